//! Observers and hooks, step by step, printing what fired and why:
//!
//! 1. a component hook (`#[component(on_add = ...)]`, part of the component's
//!    type, always runs first) next to an observer of the same change (added at
//!    run time, any number of them, with system parameters);
//! 2. the lifecycle events of `Health`: `OnAdd` fires on the first add only,
//!    not on an overwrite; `OnInsert` on every insert; `OnReplace` before an
//!    overwrite; `OnRemove` and `OnDespawn` while the value is still readable;
//! 3. a custom `#[derive(Event)] struct Explode { radius }`, triggered globally
//!    and at entities (global observers hear every delivery, an observer made
//!    with `observe` only its own entity's);
//! 4. a multi-component observer `Trigger<OnAdd, (Position, Velocity)>`: it
//!    fires once, when the entity has *both*, i.e. when the second of the two
//!    arrives (or when both come in one bundle). "Fire on any" semantics would
//!    instead fire as soon as either one is added, on an entity that may still
//!    lack the other, and once per watched component of the bundle;
//! 5. `#[event(propagate = ChildOf)] struct Damage(u32)` climbing a three-level
//!    hierarchy (gun -> turret -> ship), then stopped halfway with
//!    `trigger.propagate(false)`;
//! 6. an observer issuing `Commands`: they are applied (and fire their own
//!    observers) before the triggering `spawn` returns;
//! 7. despawning an observer's entity unregisters it.
//!
//! Run it with `cargo run --release --example observers`. The key facts are
//! asserted too, so the example fails loudly if the behaviour changes.

use ecs::prelude::*;

/// What fired, in order: observers and hooks push a line each.
#[derive(Resource, Default)]
struct Log(Vec<String>);

/// A component with an `on_add` hook.
#[derive(Component)]
#[component(on_add = shield_added)]
struct Shield;

/// The `Shield` hook: a plain function stored with the component's info.
fn shield_added(mut world: DeferredWorld, ctx: HookContext) {
    world.get_resource_mut::<Log>().unwrap().0.push(format!("hook     on_add Shield on {:?}", ctx.entity));
}

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Position;

#[derive(Component)]
struct Velocity;

/// Marks an enemy; an observer gives every new enemy its `Health`.
#[derive(Component)]
struct Enemy;

/// A custom event, global or targeted.
#[derive(Event)]
struct Explode {
    radius: f32,
}

/// A targeted event that climbs `ChildOf` from its target to the root.
#[derive(Event)]
#[event(propagate = ChildOf)]
struct Damage(u32);

/// Prints and returns what fired since the last call.
fn fired(world: &mut World) -> Vec<String> {
    let lines = std::mem::take(&mut world.resource_mut::<Log>().0);
    lines.iter().for_each(|line| println!("    fired: {line}"));
    if lines.is_empty() {
        println!("    fired: nothing");
    }
    lines
}

/// The entity's name, or `"?"`.
fn name(names: &Query<&Name>, entity: Entity) -> String {
    names.get(entity).map_or_else(|_| String::from("?"), |name| name.as_str().to_owned())
}

fn main() {
    let mut world = World::new();
    world.init_resource::<Log>();

    println!("== 1. Hook vs observer: the hook is part of Shield's type and runs first");
    world.add_observer(|trigger: Trigger<OnAdd, Shield>, mut log: ResMut<Log>| {
        log.0.push(format!("observer OnAdd  Shield on {:?}", trigger.entity()));
    });
    let knight = world.spawn(Shield).id();
    println!("  spawn(Shield) as {knight:?}:");
    let lines = fired(&mut world);
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("hook") && lines[1].starts_with("observer"));

    println!("== 2. Lifecycle of Health: add, overwrite, remove, despawn");
    world.add_observer(|trigger: Trigger<OnAdd, Health>, health: Query<&Health>, mut log: ResMut<Log>| {
        log.0.push(format!("OnAdd     {:?}", health.get(trigger.entity()).unwrap()));
    });
    world.add_observer(|trigger: Trigger<OnInsert, Health>, health: Query<&Health>, mut log: ResMut<Log>| {
        log.0.push(format!("OnInsert  {:?}", health.get(trigger.entity()).unwrap()));
    });
    world.add_observer(|trigger: Trigger<OnReplace, Health>, health: Query<&Health>, mut log: ResMut<Log>| {
        log.0.push(format!("OnReplace {:?} (old value)", health.get(trigger.entity()).unwrap()));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Health>, health: Query<&Health>, mut log: ResMut<Log>| {
        log.0.push(format!("OnRemove  {:?} (still readable)", health.get(trigger.entity()).unwrap()));
    });
    world.add_observer(|trigger: Trigger<OnDespawn, Health>, health: Query<&Health>, mut log: ResMut<Log>| {
        log.0.push(format!("OnDespawn {:?} (still readable)", health.get(trigger.entity()).unwrap()));
    });
    let hero = world.spawn(Health(10)).id();
    println!("  spawn(Health(10)): a new component, so OnAdd, then OnInsert");
    assert_eq!(fired(&mut world), ["OnAdd     Health(10)", "OnInsert  Health(10)"]);
    world.insert(hero, Health(7));
    println!("  insert(Health(7)): an overwrite, so no OnAdd; OnReplace sees the old value");
    assert_eq!(fired(&mut world), ["OnReplace Health(10) (old value)", "OnInsert  Health(7)"]);
    assert_eq!(world.remove::<Health>(hero), Some(Health(7)));
    println!("  remove::<Health>(): OnReplace and OnRemove run before the value goes");
    assert_eq!(fired(&mut world), ["OnReplace Health(7) (old value)", "OnRemove  Health(7) (still readable)"]);
    let goner = world.spawn(Health(3)).id();
    world.resource_mut::<Log>().0.clear(); // its OnAdd and OnInsert, seen above
    println!("  despawn() of an entity with Health(3): OnDespawn first, then the removals");
    assert!(world.despawn(goner));
    assert_eq!(
        fired(&mut world),
        [
            "OnDespawn Health(3) (still readable)",
            "OnReplace Health(3) (old value)",
            "OnRemove  Health(3) (still readable)"
        ]
    );

    println!("== 3. A custom event: Explode {{ radius }}, global and targeted");
    let anywhere = world
        .add_observer(|trigger: Trigger<Explode>, mut log: ResMut<Log>| {
            let target = trigger.entity();
            let at = if target == Entity::PLACEHOLDER { String::from("no target") } else { format!("{target:?}") };
            log.0.push(format!("global observer: radius {} at {at}", trigger.event().radius));
        })
        .id();
    let barrel = world.spawn(Name::new("barrel")).id();
    let crate_ = world.spawn(Name::new("crate")).id();
    world.entity_mut(barrel).observe(|trigger: Trigger<Explode>, mut log: ResMut<Log>| {
        log.0.push(format!("the barrel's own observer: radius {}", trigger.event().radius));
    });
    println!("  trigger(Explode {{ radius: 2.0 }}): global, so only the global observer");
    world.trigger(Explode { radius: 2.0 });
    assert_eq!(fired(&mut world), ["global observer: radius 2 at no target"]);
    println!("  trigger_targets(Explode {{ radius: 5.0 }}, [barrel {barrel:?}, crate {crate_:?}]):");
    world.trigger_targets(Explode { radius: 5.0 }, [barrel, crate_]);
    let lines = fired(&mut world);
    assert_eq!(lines.len(), 3, "the global observer twice, the barrel's once");
    assert_eq!(lines[1], "the barrel's own observer: radius 5");

    println!("== 4. Trigger<OnAdd, (Position, Velocity)>: fires once the entity has both");
    world.add_observer(|trigger: Trigger<OnAdd, (Position, Velocity)>, mut log: ResMut<Log>| {
        log.0.push(format!("moving body complete: {:?}", trigger.entity()));
    });
    let rock = world.spawn(Position).id();
    println!("  spawn(Position): Velocity is missing, so nothing");
    assert!(fired(&mut world).is_empty());
    world.insert(rock, Velocity);
    println!("  insert(Velocity): the second one arrives");
    assert_eq!(fired(&mut world), [format!("moving body complete: {rock:?}")]);
    let comet = world.spawn((Position, Velocity)).id();
    println!("  spawn((Position, Velocity)): both at once, still a single firing");
    assert_eq!(fired(&mut world), [format!("moving body complete: {comet:?}")]);

    println!("== 5. Damage(u32) propagates up ChildOf: gun -> turret -> ship");
    let ship = world.spawn(Name::new("ship")).id();
    let turret = world.spawn(Name::new("turret")).add_pair::<ChildOf>(ship).id();
    let gun = world.spawn(Name::new("gun")).add_pair::<ChildOf>(turret).id();
    world.add_observer(|trigger: Trigger<Damage>, names: Query<&Name>, mut log: ResMut<Log>| {
        log.0.push(format!("{} takes {}", name(&names, trigger.entity()), trigger.event().0));
    });
    println!("  trigger_targets(Damage(3), gun): one delivery per level, target first");
    world.trigger_targets(Damage(3), gun);
    assert_eq!(fired(&mut world), ["gun takes 3", "turret takes 3", "ship takes 3"]);
    world.entity_mut(turret).observe(|mut trigger: Trigger<Damage>, mut log: ResMut<Log>| {
        trigger.propagate(false);
        log.0.push(String::from("turret armour: propagate(false)"));
    });
    println!("  the turret's own observer now stops it: the ship is spared");
    world.trigger_targets(Damage(4), gun);
    assert_eq!(fired(&mut world), ["gun takes 4", "turret takes 4", "turret armour: propagate(false)"]);

    println!("== 6. An observer with Commands: applied before spawn returns");
    world.add_observer(|trigger: Trigger<OnAdd, Enemy>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(String::from("OnAdd Enemy: commands.insert(Health(100))"));
        commands.entity(trigger.entity()).insert(Health(100));
    });
    let orc = world.spawn(Enemy).id();
    println!("  spawn(Enemy): the queued insert ran, and fired Health's observers, before spawn returned");
    let lines = fired(&mut world);
    assert_eq!(lines, ["OnAdd Enemy: commands.insert(Health(100))", "OnAdd     Health(100)", "OnInsert  Health(100)"]);
    assert_eq!(world.get::<Health>(orc), Some(&Health(100)));

    println!("== 7. An observer is an entity: despawning it unregisters it");
    let before = world.observers().len();
    assert!(world.despawn(anywhere));
    println!("  despawn(global Explode observer {anywhere:?}): {before} observers -> {}", world.observers().len());
    assert_eq!(world.observers().len(), before - 1);
    println!("  trigger_targets(Explode {{ radius: 9.0 }}, crate): no global observer left");
    world.trigger_targets(Explode { radius: 9.0 }, crate_);
    assert!(fired(&mut world).is_empty());
    world.check_invariants();
    println!("invariants hold");
}
