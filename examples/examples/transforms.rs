//! Transform propagation, the classic "my value from my parent's value", told as
//! a small solar system: a sun, planets circling it, moons circling planets and
//! a space station circling a moon. Each body has a local orbit (angle, radius)
//! and a global position, which is its parent's global position plus its own
//! offset, so parents must be updated before their children.
//!
//! The obvious query, `(&mut GlobalPosition, Up<ChildOf, &GlobalPosition>)`,
//! does not compile: a planet is both a row (its `GlobalPosition` borrowed
//! mutably) and the ancestor its moons read. [`Propagate`] is the safe form: it
//! walks the hierarchy breadth-first and hands each body its own `Mut` and its
//! parent's already-updated `&GlobalPosition`, one call at a time, so no two
//! borrows of one value are ever alive together. `QueryState::propagate` does
//! the same outside systems.
//!
//! Run it with `cargo run --release --example transforms`. The positions are
//! checked against a hand computation, so the example fails loudly if the
//! behaviour changes.

use ecs::prelude::*;

/// A body's orbit around its parent: radius and angle (radians), advancing by
/// `speed` radians per frame.
#[derive(Component, Clone, Copy, Debug)]
struct Orbit {
    radius: f32,
    angle: f32,
    speed: f32,
}

/// Where a body is in the solar system: computed from the parent's position.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
struct GlobalPosition {
    x: f32,
    y: f32,
}

/// A body's name, for printing.
#[derive(Component, Clone, Copy, Debug)]
struct Body(&'static str);

/// Advances every orbit by its speed.
fn advance_orbits(mut orbits: Query<&mut Orbit>) {
    for mut orbit in orbits.iter_mut() {
        orbit.angle += orbit.speed;
    }
}

/// Parents first: each body's position is its parent's plus its orbit offset.
fn propagate_positions(mut bodies: Propagate<ChildOf, GlobalPosition, (&Orbit, &mut GlobalPosition)>) {
    bodies.for_each(|(orbit, mut global), parent| {
        let center = parent.copied().unwrap_or_default();
        global.x = center.x + orbit.radius * orbit.angle.cos();
        global.y = center.y + orbit.radius * orbit.angle.sin();
    });
}

fn spawn_body(world: &mut World, name: &'static str, radius: f32, speed: f32, parent: Option<Entity>) -> Entity {
    let orbit = Orbit { radius, angle: 0.0, speed };
    let mut body = world.spawn((Body(name), orbit, GlobalPosition::default()));
    if let Some(parent) = parent {
        body.add_pair::<ChildOf>(parent);
    }
    body.id()
}

/// The position a body should have, walking up its orbits by hand.
fn expected_position(world: &World, body: Entity) -> GlobalPosition {
    let orbit = world.get::<Orbit>(body).expect("every body orbits");
    let center = world.parent(body).map_or(GlobalPosition::default(), |parent| expected_position(world, parent));
    GlobalPosition { x: center.x + orbit.radius * orbit.angle.cos(), y: center.y + orbit.radius * orbit.angle.sin() }
}

fn main() {
    let mut world = World::new();
    let sun = spawn_body(&mut world, "Sun", 0.0, 0.0, None);
    let earth = spawn_body(&mut world, "Earth", 100.0, 0.10, Some(sun));
    let mars = spawn_body(&mut world, "Mars", 150.0, 0.05, Some(sun));
    let moon = spawn_body(&mut world, "Moon", 10.0, 0.50, Some(earth));
    let phobos = spawn_body(&mut world, "Phobos", 3.0, 1.00, Some(mars));
    let station = spawn_body(&mut world, "Lunar station", 1.0, 2.00, Some(moon));
    let bodies = [sun, earth, mars, moon, phobos, station];
    println!("A sun, two planets, two moons and a station: {} bodies, 4 levels deep.", bodies.len());

    let mut schedule = Schedule::new();
    schedule.add_systems((advance_orbits, propagate_positions).chain());

    for frame in 1..=3 {
        schedule.run(&mut world);
        println!("\nframe {frame}:");
        for body in bodies {
            let position = world.get::<GlobalPosition>(body).copied().expect("every body has a position");
            let name = world.get::<Body>(body).expect("named").0;
            let depth = std::iter::successors(world.parent(body), |&parent| world.parent(parent)).count();
            println!("  {:indent$}{name:<14} at ({:8.2}, {:8.2})", "", position.x, position.y, indent = depth * 2);
            let expected = expected_position(&world, body);
            assert!(
                (position.x - expected.x).abs() < 1e-3 && (position.y - expected.y).abs() < 1e-3,
                "{name}: {position:?}, expected {expected:?}"
            );
        }
    }

    println!("\nThe station follows the moon, which follows the earth: every position was computed");
    println!("from a parent updated earlier in the same walk, without a second borrow of any value.");
}
