//! Prefabs told as a small fleet: a spaceship prefab with two turret
//! children, instanced 100 times; each component's `on_instantiate` policy
//! at work (shared `MaxSpeed`, copied `Hull`, a `Blueprint` id instances do
//! not get); one ship's turret toggled off without moving it; a prefab edit
//! reaching every ship at once; and the prefab deleted at the end.
//!
//! Run it with `cargo run --release --example prefabs`. The key facts are
//! asserted too, so the example fails loudly if the behaviour changes.

use ecs::prelude::*;

/// Top speed: the same for every ship of a class, so instances share the
/// prefab's one value (the default policy, `inherit`).
#[derive(Component, Debug, PartialEq)]
struct MaxSpeed(f32);

/// Hull points: each ship takes its own damage, so instances get a copy
/// (`override`, which needs `Clone`).
#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Hull(u32);

/// The shipyard's catalogue number: a property of the blueprint, not of the
/// ships built from it (`dont_inherit`).
#[derive(Component, Debug)]
#[component(on_instantiate = "dont_inherit")]
struct Blueprint(u32);

/// Where a ship is.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
struct Position(f32);

/// A turret's fire rate; toggled off per turret without an archetype move.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(toggle, on_instantiate = "override")]
struct Firing(u32);

fn main() {
    let mut world = World::new();

    // The prefab: hidden from ordinary queries, a template for instances.
    let fighter = world.spawn((Prefab, Name::new("Fighter"), MaxSpeed(10.0), Hull(100), Blueprint(7))).id();
    for side in ["left", "right"] {
        let turret = world.spawn((Name::new(side), Firing(3), ChildOf.pair(fighter))).id();
        assert!(world.has::<Prefab>(turret), "children of a prefab are prefabs");
    }
    println!(
        "prefab {fighter:?} \"Fighter\": MaxSpeed 10 (inherit), Hull 100 (override), Blueprint 7 (dont_inherit), 2 turrets"
    );

    // 100 instances, each with its own two turrets.
    let ships: Vec<Entity> = (0..100)
        .map(|i| {
            let ship = world.instantiate(fighter);
            world.entity_mut(ship).insert((Name::new(format!("ship{i}")), Position(0.0)));
            ship
        })
        .collect();
    let turrets = world.query::<&Firing>().iter(&world).count();
    println!("instantiated {} ships with {turrets} turrets", ships.len());
    assert_eq!(turrets, 200);
    assert_eq!(world.get::<MaxSpeed>(ships[0]), Some(&MaxSpeed(10.0)));
    assert!(world.get::<Blueprint>(ships[0]).is_none());
    assert_eq!(world.get::<Blueprint>(fighter).map(|blueprint| blueprint.0), Some(7));

    // Each ship owns its hull: damage one.
    world.get_mut::<Hull>(ships[3]).unwrap().0 -= 40;
    println!("ship3 hit: hull {:?}, ship4 hull {:?}", world.get::<Hull>(ships[3]), world.get::<Hull>(ships[4]));
    assert_eq!(world.get::<Hull>(ships[4]), Some(&Hull(100)));

    // Toggle one turret off: it stays in its table, queries skip it.
    let jammed = world.lookup("ship7::left").expect("instances' children keep their names");
    let archetype = world.entity(jammed).archetype();
    world.entity_mut(jammed).disable::<Firing>();
    assert_eq!(world.entity(jammed).archetype(), archetype, "toggling never moves");
    let firing = world.query::<&Firing>().iter(&world).count();
    println!("ship7's left turret jammed: {firing} turrets firing");
    assert_eq!(firing, 199);
    assert!(!world.is_enabled::<Firing>(jammed));

    // Move every ship by its (inherited) speed.
    let mut movement = world.query::<(&mut Position, &MaxSpeed)>();
    for (mut position, speed) in movement.iter_mut(&mut world) {
        position.0 += speed.0;
    }
    assert_eq!(world.get::<Position>(ships[99]), Some(&Position(10.0)));

    // One edit of the prefab reaches every ship that inherits the value.
    world.get_mut::<MaxSpeed>(fighter).unwrap().0 = 12.0;
    for (mut position, speed) in movement.iter_mut(&mut world) {
        position.0 += speed.0;
    }
    println!("refit of the class: ship99 at {:?}", world.get::<Position>(ships[99]));
    assert_eq!(world.get::<Position>(ships[99]), Some(&Position(22.0)));

    // An upgraded ship gets its own value; the others keep sharing.
    world.entity_mut(ships[0]).insert(MaxSpeed(20.0));
    assert_eq!(world.get::<MaxSpeed>(ships[1]), Some(&MaxSpeed(12.0)));

    // Deleting the prefab: ships keep what they own and lose what they shared.
    world.despawn(fighter);
    println!(
        "prefab deleted: ship1 hull {:?}, max speed {:?}",
        world.get::<Hull>(ships[1]),
        world.get::<MaxSpeed>(ships[1])
    );
    assert_eq!(world.get::<Hull>(ships[1]), Some(&Hull(100)));
    assert_eq!(world.get::<MaxSpeed>(ships[1]), None);
    assert_eq!(world.get::<MaxSpeed>(ships[0]), Some(&MaxSpeed(20.0)));
    assert_eq!(world.query::<&Firing>().iter(&world).count(), 199, "instances' turrets are their own");
}
