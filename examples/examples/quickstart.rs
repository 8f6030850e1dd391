//! A tour of the core runtime that prints what it does, so a person can check it
//! by eye: spawning, bundles, archetypes, queries with filters, change detection,
//! sparse components, resources and despawning.
//!
//! Run it with `cargo run --release --example quickstart`.

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug)]
struct Enemy;

#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Debug, PartialEq)]
struct Health(f32);

#[derive(Bundle)]
struct Mover {
    position: Position,
    velocity: Velocity,
}

#[derive(Resource, Default)]
struct Time {
    dt: f32,
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 0.5 });

    let player = world
        .spawn((Name::new("player"), Mover { position: Position::default(), velocity: Velocity { x: 1.0, y: 0.0 } }))
        .insert(Health(10.0))
        .id();
    let grunts: Vec<Entity> = world
        .spawn_batch((0..3).map(|i| (Position { x: 10.0 + i as f32, y: 0.0 }, Velocity { x: -1.0, y: 0.5 }, Enemy)))
        .collect();
    world.insert(grunts[1], Stunned(2));
    println!("spawned player {player:?} and enemies {grunts:?}");
    println!("entities: {}, archetypes: {}", world.entity_count(), world.archetypes().len());
    println!(
        "component id of Position: {:?} (lookup by name: {:?})",
        world.component_id::<Position>(),
        world.lookup("Position")
    );

    // Move everything that is not stunned; stunned enemies stay put.
    let mut movement = world.query_filtered::<(&mut Position, &Velocity), Without<Stunned>>();
    for step in 1..=2 {
        let dt = world.resource::<Time>().dt;
        let mut moved = 0;
        for (mut position, velocity) in movement.iter_mut(&mut world) {
            position.x += velocity.x * dt;
            position.y += velocity.y * dt;
            moved += 1;
        }
        println!("step {step}: moved {moved} entities (dt = {dt})");
    }

    let mut positions = world.query::<(Entity, Option<&Name>, &Position, Has<Enemy>)>();
    let mut rows: Vec<_> = positions.iter(&world).collect();
    rows.sort_by_key(|(entity, ..)| *entity);
    for (entity, name, position, is_enemy) in rows {
        let label = name.map_or("-", Name::as_str);
        println!("  {entity:?} name={label} enemy={is_enemy} at ({:.1}, {:.1})", position.x, position.y);
    }

    // Change detection: only what was written since the query's last run shows up.
    let mut changed = world.query_filtered::<Entity, Changed<Health>>();
    println!("Changed<Health> on first run: {:?}", changed.iter(&world).collect::<Vec<_>>());
    println!("Changed<Health> with no writes: {:?}", changed.iter(&world).collect::<Vec<_>>());
    world.get_mut::<Health>(player).expect("player has health").0 -= 3.0;
    println!("Changed<Health> after a hit: {:?}", changed.iter(&world).collect::<Vec<_>>());

    let stunned: Vec<(Entity, u32)> =
        world.query::<(Entity, &Stunned)>().iter(&world).map(|(entity, stunned)| (entity, stunned.0)).collect();
    println!("stunned (sparse storage, archetype unchanged): {stunned:?}");

    let removed = world.remove::<Health>(player);
    println!("removed {removed:?} from the player; player has Health: {}", world.has::<Health>(player));
    world.despawn(grunts[0]);
    println!(
        "despawned {:?}: alive = {}, get = {:?}",
        grunts[0],
        world.is_alive(grunts[0]),
        world.get::<Position>(grunts[0])
    );
    println!("entities left: {}", world.entity_count());
    world.check_invariants();
    println!("invariants hold");
}
