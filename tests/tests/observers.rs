//! Observers and events (`ecs::observer`, `world::observers`): the lifecycle
//! events `OnAdd` / `OnInsert` / `OnReplace` / `OnRemove` / `OnDespawn` sent by
//! structural changes (when each fires, what it can still read, their order);
//! user events, global (`World::trigger`) and targeted (`trigger_targets` with
//! an entity, an array, a `Vec` or a slice), to global observers and to
//! single-entity observers (`EntityWorldMut::observe`); `Trigger::event_mut`;
//! multi-component observers (fire once, when the entity has all of them);
//! propagation along `ChildOf` and `Trigger::propagate(false)`; commands issued
//! by observers (applied before the triggering call returns, chains, bounded
//! recursion); observers as entities (despawning one unregisters it); system
//! parameters seeing the world at event time; despawn cleanup of a hierarchy;
//! and a world without observers.
//!
//! Observers record what they see in resources ([`Log`] for `(what, entity)`
//! pairs, [`Values`] for component values), which the tests take and compare.

use std::collections::BTreeSet;

use ecs::observer::ObserverMarker;
use ecs_tests::{Position, Velocity, panic_message};

use ecs::prelude::*;

// ----- fixtures -------------------------------------------------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Alive;

#[derive(Component, Debug, PartialEq)]
struct Tagged;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct Stunned(u32);

/// A user event, not propagating.
#[derive(Event, Debug, PartialEq)]
struct Explode {
    radius: f32,
}

/// A second user event type (observers of `Explode` must not hear it).
#[derive(Event, Debug)]
struct Ping;

/// A propagating event: climbs `ChildOf` from its target.
#[derive(Event, Debug)]
#[event(propagate = ChildOf)]
struct Bubble {
    /// How many levels it went through (observers increment it).
    hops: u32,
    /// The level whose observer stops it (`None`: nobody does).
    stop_at: Option<Entity>,
}

/// A non-propagating event sent to a child (must not reach the parent).
#[derive(Event, Debug)]
struct Local;

/// Counts down through commands: `Countdown(n)` triggers `Countdown(n - 1)`.
#[derive(Event, Debug)]
struct Countdown(u32);

/// Re-triggers itself through commands forever.
#[derive(Event, Debug)]
struct Echo;

/// `(what, entity)` entries, in firing order.
#[derive(Resource, Default, Debug)]
struct Log(Vec<(&'static str, Entity)>);

/// Values observers read, in firing order.
#[derive(Resource, Default, Debug)]
struct Values(Vec<(&'static str, u32)>);

/// Free-form entries (event payloads, counts).
#[derive(Resource, Default, Debug)]
struct Notes(Vec<String>);

fn new_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Values>();
    world.init_resource::<Notes>();
    world
}

/// The log since the last call (and clears it).
fn take_log(world: &mut World) -> Vec<(&'static str, Entity)> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

/// The values since the last call (and clears them).
fn take_values(world: &mut World) -> Vec<(&'static str, u32)> {
    std::mem::take(&mut world.resource_mut::<Values>().0)
}

/// The notes since the last call (and clears them).
fn take_notes(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Notes>().0)
}

fn pos(x: f32) -> Position {
    Position { x, y: 0.0 }
}

fn vel(x: f32) -> Velocity {
    Velocity { x, y: 0.0 }
}

fn component_set(ids: &[Entity]) -> BTreeSet<Entity> {
    ids.iter().copied().collect()
}

// ----- lifecycle events ---------------------------------------------------------------------

#[test]
fn on_add_fires_once_per_new_component_and_not_on_overwrite() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, q: Query<&Health>, mut values: ResMut<Values>| {
        // The new value is written before OnAdd.
        values.0.push(("add", q.get(trigger.entity()).unwrap().0));
    });
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut log: ResMut<Log>| log.0.push(("add", trigger.entity())));

    // Spawn.
    let a = world.spawn(Health(1)).id();
    assert_eq!(take_log(&mut world), vec![("add", a)]);
    assert_eq!(take_values(&mut world), vec![("add", 1)]);

    // Overwrite: no add.
    world.insert(a, Health(2));
    world.entity_mut(a).insert(Health(3));
    assert_eq!(take_log(&mut world), vec![]);
    assert_eq!(take_values(&mut world), vec![]);

    // Insert of a component the entity lacks (and of another component: no add for Health).
    let b = world.spawn(pos(0.0)).id();
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(b, Health(4));
    assert_eq!(take_log(&mut world), vec![("add", b)]);
    assert_eq!(take_values(&mut world), vec![("add", 4)]);
    world.insert(b, vel(1.0));
    assert_eq!(take_log(&mut world), vec![]);

    // A bundle overwriting Health and adding Position: no add for Health.
    world.insert(a, (Health(5), pos(1.0)));
    assert_eq!(take_log(&mut world), vec![]);

    // spawn_batch: one add per entity, in order.
    let batch: Vec<Entity> = world.spawn_batch((10..13).map(Health)).collect();
    assert_eq!(take_log(&mut world), batch.iter().map(|&e| ("add", e)).collect::<Vec<_>>());
    assert_eq!(take_values(&mut world), vec![("add", 10), ("add", 11), ("add", 12)]);

    // A batch whose iterator is dropped unconsumed still spawns (and fires) for each.
    drop(world.spawn_batch((20..22).map(Health)));
    assert_eq!(take_values(&mut world), vec![("add", 20), ("add", 21)]);
    assert_eq!(take_log(&mut world).len(), 2);

    // Remove then add again: a new add.
    world.remove::<Health>(a);
    world.insert(a, Health(6));
    assert_eq!(take_log(&mut world), vec![("add", a)]);
    world.check_invariants();
}

#[test]
fn on_add_trigger_reports_the_added_components_only() {
    let mut world = new_world();
    let health = world.register_component::<Health>();
    let position = world.register_component::<Position>();
    let velocity = world.register_component::<Velocity>();
    world.add_observer(|trigger: Trigger<OnAdd, Position>, mut notes: ResMut<Notes>| {
        notes.0.push(format!("{:?}", component_set(trigger.components())));
    });
    world.add_observer(|trigger: Trigger<OnInsert, Position>, mut notes: ResMut<Notes>| {
        notes.0.push(format!("insert {:?}", component_set(trigger.components())));
    });
    let e = world.spawn((Health(1), pos(0.0))).id();
    assert_eq!(
        take_notes(&mut world),
        vec![
            format!("{:?}", component_set(&[health, position])),
            format!("insert {:?}", component_set(&[health, position])),
        ]
    );
    // Position overwritten, Velocity added: OnAdd is about Velocity only (so the
    // Position observer does not fire for it), OnInsert about both.
    world.insert(e, (pos(1.0), vel(1.0)));
    assert_eq!(take_notes(&mut world), vec![format!("insert {:?}", component_set(&[position, velocity]))]);
}

#[test]
fn on_insert_fires_on_every_insert_including_overwrites_after_on_add() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut log: ResMut<Log>| log.0.push(("add", trigger.entity())));
    world.add_observer(
        |trigger: Trigger<OnInsert, Health>, q: Query<&Health>, mut log: ResMut<Log>, mut values: ResMut<Values>| {
            log.0.push(("insert", trigger.entity()));
            // The new value is readable.
            values.0.push(("insert", q.get(trigger.entity()).unwrap().0));
        },
    );

    let e = world.spawn(Health(1)).id();
    assert_eq!(take_log(&mut world), vec![("add", e), ("insert", e)]);
    world.insert(e, Health(2));
    assert_eq!(take_log(&mut world), vec![("insert", e)]);
    world.entity_mut(e).insert((Health(3), pos(0.0)));
    assert_eq!(take_log(&mut world), vec![("insert", e)]);
    // Inserting something else: no OnInsert for Health.
    world.insert(e, vel(0.0));
    assert_eq!(take_log(&mut world), vec![]);
    let batch: Vec<Entity> = world.spawn_batch([Health(4), Health(5)]).collect();
    assert_eq!(
        take_log(&mut world),
        vec![("add", batch[0]), ("insert", batch[0]), ("add", batch[1]), ("insert", batch[1])]
    );
    assert_eq!(
        take_values(&mut world),
        vec![("insert", 1), ("insert", 2), ("insert", 3), ("insert", 4), ("insert", 5)]
    );
}

#[test]
fn on_replace_fires_before_overwrite_and_remove_with_the_old_value_readable() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnReplace, Health>, q: Query<&Health>, mut values: ResMut<Values>| {
        values.0.push(("replace", q.get(trigger.entity()).unwrap().0));
    });
    world.add_observer(|trigger: Trigger<OnInsert, Health>, q: Query<&Health>, mut values: ResMut<Values>| {
        values.0.push(("insert", q.get(trigger.entity()).unwrap().0));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Health>, q: Query<&Health>, mut values: ResMut<Values>| {
        values.0.push(("remove", q.get(trigger.entity()).unwrap().0));
    });

    // A spawn replaces nothing.
    let e = world.spawn(Health(1)).id();
    assert_eq!(take_values(&mut world), vec![("insert", 1)]);

    // Overwrite: replace sees the old value, then insert the new one.
    world.insert(e, Health(2));
    assert_eq!(take_values(&mut world), vec![("replace", 1), ("insert", 2)]);
    world.entity_mut(e).insert((pos(0.0), Health(3)));
    assert_eq!(take_values(&mut world), vec![("replace", 2), ("insert", 3)]);

    // Remove: replace then remove, both with the value still there; the value is returned.
    assert_eq!(world.remove::<Health>(e), Some(Health(3)));
    assert_eq!(take_values(&mut world), vec![("replace", 3), ("remove", 3)]);
    assert!(!world.has::<Health>(e));

    // Removing what is not there: nothing.
    assert_eq!(world.remove::<Health>(e), None);
    assert_eq!(take_values(&mut world), vec![]);

    // take() also replaces and removes.
    world.insert(e, Health(4));
    take_values(&mut world);
    assert_eq!(world.entity_mut(e).take::<Health>(), Some(Health(4)));
    assert_eq!(take_values(&mut world), vec![("replace", 4), ("remove", 4)]);
}

#[test]
fn on_remove_fires_on_remove_and_despawn_with_the_value_readable() {
    let mut world = new_world();
    world.add_observer(
        |trigger: Trigger<OnRemove, Health>, q: Query<(&Health, Option<&Position>)>, mut values: ResMut<Values>| {
            let (health, position) = q.get(trigger.entity()).expect("the entity still has Health during OnRemove");
            values.0.push(("remove", health.0 + position.map_or(0, |p| p.x as u32)));
        },
    );
    let a = world.spawn((Health(1), pos(10.0))).id();
    let b = world.spawn(Health(2)).id();
    let c = world.spawn(pos(3.0)).id();
    assert_eq!(take_values(&mut world), vec![]);

    world.remove::<Health>(a);
    assert_eq!(take_values(&mut world), vec![("remove", 11)]);
    // a no longer has Health: its despawn sends no OnRemove<Health>.
    world.despawn(a);
    assert_eq!(take_values(&mut world), vec![]);

    assert!(world.despawn(b));
    assert_eq!(take_values(&mut world), vec![("remove", 2)]);
    assert!(!world.is_alive(b));
    assert!(!world.despawn(b));
    assert_eq!(take_values(&mut world), vec![]);

    // An entity without Health.
    world.despawn(c);
    assert_eq!(take_values(&mut world), vec![]);

    // EntityWorldMut::despawn too.
    let d = world.spawn(Health(4)).id();
    world.entity_mut(d).despawn();
    assert_eq!(take_values(&mut world), vec![("remove", 4)]);
    world.check_invariants();
}

#[test]
fn lifecycle_events_fire_for_sparse_components_with_the_value_readable() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, Stunned>, q: Query<&Stunned>, mut values: ResMut<Values>| {
        values.0.push(("add", q.get(trigger.entity()).unwrap().0));
    });
    world.add_observer(|trigger: Trigger<OnReplace, Stunned>, q: Query<&Stunned>, mut values: ResMut<Values>| {
        values.0.push(("replace", q.get(trigger.entity()).unwrap().0));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Stunned>, q: Query<&Stunned>, mut values: ResMut<Values>| {
        values.0.push(("remove", q.get(trigger.entity()).unwrap().0));
    });
    let e = world.spawn(Stunned(1)).id();
    world.insert(e, Stunned(2));
    assert_eq!(world.remove::<Stunned>(e), Some(Stunned(2)));
    world.insert(e, Stunned(3));
    world.despawn(e);
    assert_eq!(
        take_values(&mut world),
        vec![("add", 1), ("replace", 1), ("replace", 2), ("remove", 2), ("add", 3), ("replace", 3), ("remove", 3)]
    );
    world.check_invariants();
}

#[test]
fn on_despawn_fires_once_per_despawn_before_on_remove() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnDespawn>, q: Query<&Health>, mut log: ResMut<Log>| {
        // Everything is still readable.
        let what = if q.get(trigger.entity()).is_ok() { "despawn (with health)" } else { "despawn" };
        log.0.push((what, trigger.entity()));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Health>, mut log: ResMut<Log>| {
        log.0.push(("remove health", trigger.entity()));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Position>, mut log: ResMut<Log>| {
        log.0.push(("remove position", trigger.entity()));
    });
    world.add_observer(|trigger: Trigger<OnDespawn, Health>, mut log: ResMut<Log>| {
        log.0.push(("despawn health", trigger.entity()));
    });

    let a = world.spawn((Health(1), pos(0.0))).id();
    let b = world.spawn(pos(0.0)).id();
    let empty = world.spawn_empty().id();
    assert_eq!(take_log(&mut world), vec![]);

    assert!(world.despawn(a));
    assert_eq!(
        take_log(&mut world),
        vec![("despawn (with health)", a), ("despawn health", a), ("remove health", a), ("remove position", a)]
    );
    assert!(!world.despawn(a));
    assert_eq!(take_log(&mut world), vec![]);

    world.entity_mut(b).despawn();
    assert_eq!(take_log(&mut world), vec![("despawn", b), ("remove position", b)]);

    // An entity with no component still fires OnDespawn (once).
    world.despawn(empty);
    assert_eq!(take_log(&mut world), vec![("despawn", empty)]);

    // Removing components is no despawn.
    let c = world.spawn((Health(1), pos(0.0))).id();
    world.remove::<(Health, Position)>(c);
    assert_eq!(take_log(&mut world), vec![("remove health", c), ("remove position", c)]);
    world.check_invariants();
}

// ----- user events --------------------------------------------------------------------------

#[test]
fn a_global_event_reaches_global_observers_with_the_placeholder_entity() {
    let mut world = new_world();
    let first = world
        .add_observer(|trigger: Trigger<Explode>, mut log: ResMut<Log>, mut notes: ResMut<Notes>| {
            log.0.push(("first", trigger.entity()));
            notes.0.push(format!("first {} {:?}", trigger.event().radius, trigger.observer()));
        })
        .id();
    let second = world
        .add_observer(|trigger: Trigger<Explode>, mut log: ResMut<Log>, mut notes: ResMut<Notes>| {
            log.0.push(("second", trigger.entity()));
            notes.0.push(format!("second {} {:?}", trigger.event().radius, trigger.observer()));
        })
        .id();
    // Observers of another event, and of the same event on one entity, stay silent.
    world.add_observer(|_: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("ping", Entity::PLACEHOLDER)));
    let target = world.spawn_empty().id();
    world.entity_mut(target).observe(|trigger: Trigger<Explode>, mut log: ResMut<Log>| {
        log.0.push(("entity", trigger.entity()));
    });

    world.trigger(Explode { radius: 2.5 });
    assert_eq!(take_log(&mut world), vec![("first", Entity::PLACEHOLDER), ("second", Entity::PLACEHOLDER)]);
    assert_eq!(take_notes(&mut world), vec![format!("first 2.5 {first:?}"), format!("second 2.5 {second:?}")]);

    world.trigger(Ping);
    assert_eq!(take_log(&mut world), vec![("ping", Entity::PLACEHOLDER)]);

    // An event nobody observes is a no-op.
    world.trigger(Countdown(0));
    assert_eq!(take_log(&mut world), vec![]);
}

#[test]
fn a_targeted_event_reaches_global_observers_per_target_and_entity_observers_for_their_entity() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<Explode>, mut log: ResMut<Log>| log.0.push(("global", trigger.entity())));
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    world
        .entity_mut(a)
        .observe(|trigger: Trigger<Explode>, mut log: ResMut<Log>| log.0.push(("a watcher", trigger.entity())))
        .observe(|trigger: Trigger<Explode>, mut log: ResMut<Log>| log.0.push(("a watcher 2", trigger.entity())));
    world
        .entity_mut(b)
        .observe(|trigger: Trigger<Explode>, mut log: ResMut<Log>| log.0.push(("b watcher", trigger.entity())));
    // A watcher of b for another event type.
    world
        .entity_mut(b)
        .observe(|trigger: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("b ping", trigger.entity())));

    // One entity.
    world.trigger_targets(Explode { radius: 1.0 }, a);
    assert_eq!(take_log(&mut world), vec![("global", a), ("a watcher", a), ("a watcher 2", a)]);
    world.trigger_targets(Explode { radius: 1.0 }, c);
    assert_eq!(take_log(&mut world), vec![("global", c)]);

    // An array: once per target, in order.
    world.trigger_targets(Explode { radius: 1.0 }, [a, b]);
    assert_eq!(
        take_log(&mut world),
        vec![("global", a), ("a watcher", a), ("a watcher 2", a), ("global", b), ("b watcher", b)]
    );

    // A Vec.
    world.trigger_targets(Explode { radius: 1.0 }, vec![c, b, c]);
    assert_eq!(take_log(&mut world), vec![("global", c), ("global", b), ("b watcher", b), ("global", c)]);

    // A slice.
    let targets = [b, a];
    world.trigger_targets(Explode { radius: 1.0 }, &targets[..]);
    assert_eq!(
        take_log(&mut world),
        vec![("global", b), ("b watcher", b), ("global", a), ("a watcher", a), ("a watcher 2", a)]
    );

    // No targets: once as a global event (as Bevy's `trigger_targets`).
    world.trigger_targets(Explode { radius: 1.0 }, Vec::new());
    assert_eq!(take_log(&mut world), vec![("global", Entity::PLACEHOLDER)]);

    // The global trigger does not reach entity watchers.
    world.trigger(Explode { radius: 1.0 });
    assert_eq!(take_log(&mut world), vec![("global", Entity::PLACEHOLDER)]);

    world.trigger_targets(Ping, [a, b]);
    assert_eq!(take_log(&mut world), vec![("b ping", b)]);
}

#[test]
fn event_mut_changes_are_seen_by_later_observers() {
    let mut world = new_world();
    world.add_observer(|mut trigger: Trigger<Explode>, mut notes: ResMut<Notes>| {
        notes.0.push(format!("first sees {}", trigger.event().radius));
        trigger.event_mut().radius *= 2.0;
    });
    world.add_observer(|mut trigger: Trigger<Explode>, mut notes: ResMut<Notes>| {
        notes.0.push(format!("second sees {}", trigger.event().radius));
        trigger.event_mut().radius += 1.0;
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).observe(|trigger: Trigger<Explode>, mut notes: ResMut<Notes>| {
        notes.0.push(format!("watcher sees {}", trigger.event().radius));
    });

    world.trigger(Explode { radius: 1.5 });
    assert_eq!(take_notes(&mut world), vec!["first sees 1.5", "second sees 3"]);

    world.trigger_targets(Explode { radius: 1.0 }, e);
    assert_eq!(take_notes(&mut world), vec!["first sees 1", "second sees 2", "watcher sees 3"]);
}

// ----- multi-component observers -----------------------------------------------------------

#[test]
fn multi_component_on_add_fires_once_when_the_entity_gets_the_last_of_them() {
    let mut world = new_world();
    world.add_observer(
        |trigger: Trigger<OnAdd, (Position, Velocity)>, q: Query<(&Position, &Velocity)>, mut log: ResMut<Log>| {
            assert!(q.get(trigger.entity()).is_ok(), "both components are there when it fires");
            log.0.push(("both", trigger.entity()));
        },
    );

    // One, then the other: fires when the second arrives, once.
    let a = world.spawn(pos(0.0)).id();
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(a, vel(0.0));
    assert_eq!(take_log(&mut world), vec![("both", a)]);

    // The other order.
    let b = world.spawn(vel(0.0)).id();
    world.insert(b, Health(1));
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(b, pos(0.0));
    assert_eq!(take_log(&mut world), vec![("both", b)]);

    // Both in one spawn: exactly once.
    let c = world.spawn((pos(0.0), vel(0.0))).id();
    assert_eq!(take_log(&mut world), vec![("both", c)]);
    let d = world.spawn((Health(1), vel(0.0), pos(0.0))).id();
    assert_eq!(take_log(&mut world), vec![("both", d)]);

    // Both in one insert: once.
    let e = world.spawn(Health(1)).id();
    world.insert(e, (pos(0.0), vel(0.0)));
    assert_eq!(take_log(&mut world), vec![("both", e)]);

    // spawn_batch: once per entity.
    let batch: Vec<Entity> = world.spawn_batch((0..3).map(|i| (pos(i as f32), vel(0.0)))).collect();
    assert_eq!(take_log(&mut world), batch.iter().map(|&x| ("both", x)).collect::<Vec<_>>());

    // Only one of them: never.
    world.spawn(pos(0.0));
    world.spawn(vel(0.0));
    assert_eq!(take_log(&mut world), vec![]);

    // Overwrites are no adds.
    world.insert(a, pos(1.0));
    world.insert(a, (pos(2.0), vel(2.0)));
    assert_eq!(take_log(&mut world), vec![]);

    // Losing one and getting it back: fires again.
    world.remove::<Velocity>(a);
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(a, vel(3.0));
    assert_eq!(take_log(&mut world), vec![("both", a)]);
}

#[test]
fn multi_component_on_add_with_a_sparse_component() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, (Position, Stunned)>, mut log: ResMut<Log>| {
        log.0.push(("both", trigger.entity()));
    });
    let a = world.spawn(Stunned(1)).id();
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(a, pos(0.0));
    assert_eq!(take_log(&mut world), vec![("both", a)]);
    let b = world.spawn(pos(0.0)).id();
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(b, Stunned(2));
    assert_eq!(take_log(&mut world), vec![("both", b)]);
    let c = world.spawn((Stunned(3), pos(0.0))).id();
    assert_eq!(take_log(&mut world), vec![("both", c)]);
}

#[test]
fn multi_component_on_remove_fires_once_when_either_goes_while_both_were_present() {
    let mut world = new_world();
    world.add_observer(
        |trigger: Trigger<OnRemove, (Position, Velocity)>, q: Query<(&Position, &Velocity)>, mut log: ResMut<Log>| {
            assert!(q.get(trigger.entity()).is_ok(), "both components are still there when it fires");
            log.0.push(("lost one", trigger.entity()));
        },
    );

    // Removing Position while both are present: fires; then Velocity alone: not.
    let a = world.spawn((pos(0.0), vel(0.0))).id();
    world.remove::<Position>(a);
    assert_eq!(take_log(&mut world), vec![("lost one", a)]);
    world.remove::<Velocity>(a);
    assert_eq!(take_log(&mut world), vec![]);

    // Removing Velocity first.
    let b = world.spawn((pos(0.0), vel(0.0), Health(1))).id();
    world.remove::<Velocity>(b);
    assert_eq!(take_log(&mut world), vec![("lost one", b)]);

    // Both at once: once.
    let c = world.spawn((pos(0.0), vel(0.0))).id();
    world.remove::<(Position, Velocity)>(c);
    assert_eq!(take_log(&mut world), vec![("lost one", c)]);

    // Despawn with both: once; with one: never.
    let d = world.spawn((pos(0.0), vel(0.0))).id();
    world.despawn(d);
    assert_eq!(take_log(&mut world), vec![("lost one", d)]);
    let e = world.spawn(pos(0.0)).id();
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec![]);

    // Removing something else: never.
    let f = world.spawn((pos(0.0), vel(0.0), Health(1))).id();
    world.remove::<Health>(f);
    assert_eq!(take_log(&mut world), vec![]);
}

#[test]
fn multi_component_on_insert_fires_for_an_insert_of_either_while_both_are_present() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnInsert, (Position, Velocity)>, mut log: ResMut<Log>| {
        log.0.push(("insert", trigger.entity()));
    });
    let a = world.spawn(pos(0.0)).id();
    world.insert(a, pos(1.0));
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(a, vel(0.0));
    assert_eq!(take_log(&mut world), vec![("insert", a)]);
    world.insert(a, pos(2.0));
    assert_eq!(take_log(&mut world), vec![("insert", a)]);
    world.insert(a, (pos(3.0), vel(3.0)));
    assert_eq!(take_log(&mut world), vec![("insert", a)]);
    world.insert(a, Health(1));
    assert_eq!(take_log(&mut world), vec![]);
}

#[test]
fn an_entity_observer_of_a_lifecycle_event_fires_only_for_its_entity_and_its_components() {
    let mut world = new_world();
    let watched = world.spawn(pos(0.0)).id();
    let other = world.spawn(pos(0.0)).id();
    world.entity_mut(watched).observe(|trigger: Trigger<OnAdd, Health>, mut log: ResMut<Log>| {
        log.0.push(("watched gets health", trigger.entity()));
    });
    world.insert(other, Health(1));
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(watched, Health(1));
    assert_eq!(take_log(&mut world), vec![("watched gets health", watched)]);
}

#[test]
fn an_entity_observer_of_a_lifecycle_event_ignores_other_components() {
    let mut world = new_world();
    let watched = world.spawn(pos(0.0)).id();
    world.entity_mut(watched).observe(|trigger: Trigger<OnAdd, Health>, mut log: ResMut<Log>| {
        log.0.push(("watched gets health", trigger.entity()));
    });
    world.insert(watched, vel(0.0));
    assert_eq!(take_log(&mut world), vec![]);
    world.insert(watched, Health(1));
    assert_eq!(take_log(&mut world), vec![("watched gets health", watched)]);
}

// ----- propagation ----------------------------------------------------------------------------

/// root <- child <- grandchild (ChildOf), each level watched by an entity
/// observer that logs its level and counts a hop; a global observer logs every
/// delivery. The entity observer of `stop_at` stops the propagation.
fn hierarchy(world: &mut World) -> (Entity, Entity, Entity) {
    world.add_observer(|trigger: Trigger<Bubble>, mut log: ResMut<Log>| log.0.push(("global", trigger.entity())));
    let root = world.spawn_empty().id();
    let child = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let grandchild = world.spawn_empty().add_pair::<ChildOf>(child).id();
    assert_eq!(world.parent(grandchild), Some(child));
    assert_eq!(world.parent(child), Some(root));
    for (level, name) in [(root, "root"), (child, "child"), (grandchild, "grandchild")] {
        world.entity_mut(level).observe(
            move |mut trigger: Trigger<Bubble>, mut log: ResMut<Log>, mut notes: ResMut<Notes>| {
                assert_eq!(trigger.entity(), level, "each level sees itself as the target");
                log.0.push((name, trigger.entity()));
                trigger.event_mut().hops += 1;
                notes.0.push(format!("{name} hop {}", trigger.event().hops));
                if trigger.event().stop_at == Some(level) {
                    trigger.propagate(false);
                }
            },
        );
    }
    (root, child, grandchild)
}

#[test]
fn a_propagating_event_climbs_three_levels_of_child_of() {
    let mut world = new_world();
    let (root, child, grandchild) = hierarchy(&mut world);

    world.trigger_targets(Bubble { hops: 0, stop_at: None }, grandchild);
    assert_eq!(
        take_log(&mut world),
        vec![
            ("global", grandchild),
            ("grandchild", grandchild),
            ("global", child),
            ("child", child),
            ("global", root),
            ("root", root),
        ]
    );
    // The event is shared by the levels: changes carry up.
    assert_eq!(take_notes(&mut world), vec!["grandchild hop 1", "child hop 2", "root hop 3"]);

    // From the middle: the middle and the root.
    world.trigger_targets(Bubble { hops: 0, stop_at: None }, child);
    assert_eq!(take_log(&mut world), vec![("global", child), ("child", child), ("global", root), ("root", root)]);
    take_notes(&mut world);

    // From the root: the root only.
    world.trigger_targets(Bubble { hops: 0, stop_at: None }, root);
    assert_eq!(take_log(&mut world), vec![("global", root), ("root", root)]);
    take_notes(&mut world);

    // A global trigger has no target, so nothing to climb.
    world.trigger(Bubble { hops: 0, stop_at: None });
    assert_eq!(take_log(&mut world), vec![("global", Entity::PLACEHOLDER)]);
}

#[test]
fn propagate_false_at_the_middle_level_stops_the_climb() {
    let mut world = new_world();
    let (root, child, grandchild) = hierarchy(&mut world);

    world.trigger_targets(Bubble { hops: 0, stop_at: Some(child) }, grandchild);
    assert_eq!(
        take_log(&mut world),
        vec![("global", grandchild), ("grandchild", grandchild), ("global", child), ("child", child)]
    );
    assert_eq!(take_notes(&mut world), vec!["grandchild hop 1", "child hop 2"]);

    // Stopping at the first level.
    world.trigger_targets(Bubble { hops: 0, stop_at: Some(grandchild) }, grandchild);
    assert_eq!(take_log(&mut world), vec![("global", grandchild), ("grandchild", grandchild)]);
    take_notes(&mut world);

    // The stop is per delivery: several targets each climb until stopped.
    world.trigger_targets(Bubble { hops: 0, stop_at: Some(child) }, [grandchild, root]);
    assert_eq!(
        take_log(&mut world),
        vec![
            ("global", grandchild),
            ("grandchild", grandchild),
            ("global", child),
            ("child", child),
            ("global", root),
            ("root", root)
        ]
    );
}

#[test]
fn a_non_propagating_event_stays_on_its_target() {
    let mut world = new_world();
    let root = world.spawn_empty().id();
    let child = world.spawn_empty().add_pair::<ChildOf>(root).id();
    world.add_observer(|trigger: Trigger<Local>, mut log: ResMut<Log>| log.0.push(("global", trigger.entity())));
    world
        .entity_mut(root)
        .observe(|trigger: Trigger<Local>, mut log: ResMut<Log>| log.0.push(("root", trigger.entity())));
    world.trigger_targets(Local, child);
    assert_eq!(take_log(&mut world), vec![("global", child)]);
}

// ----- commands from observers ----------------------------------------------------------------

#[test]
fn observer_commands_are_applied_before_the_triggering_call_returns() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut commands: Commands| {
        commands.entity(trigger.entity()).insert(Alive);
    });
    world.add_observer(|trigger: Trigger<OnRemove, Health>, mut commands: Commands| {
        commands.entity(trigger.entity()).remove::<Alive>();
    });
    world.add_observer(|trigger: Trigger<Explode>, mut commands: Commands| {
        commands.spawn((Health(trigger.event().radius as u32), Tagged));
    });

    // spawn
    let a = world.spawn(Health(1)).id();
    assert!(world.has::<Alive>(a));
    // insert
    let b = world.spawn_empty().id();
    world.insert(b, Health(1));
    assert!(world.has::<Alive>(b));
    // EntityWorldMut::insert
    let c = world.spawn_empty().insert(Health(1)).id();
    assert!(world.has::<Alive>(c));
    // spawn_batch
    let batch: Vec<Entity> = world.spawn_batch([Health(1), Health(2)]).collect();
    assert!(batch.iter().all(|&e| world.has::<Alive>(e)));
    // remove
    world.remove::<Health>(a);
    assert!(!world.has::<Alive>(a));
    // trigger (the spawned entity's own OnAdd command ran too)
    world.trigger(Explode { radius: 7.0 });
    let mut q = world.query_filtered::<(&Health, Has<Alive>), With<Tagged>>();
    let spawned: Vec<(Health, bool)> = q.iter(&world).map(|(h, alive)| (*h, alive)).collect();
    assert_eq!(spawned, vec![(Health(7), true)]);
    // trigger_targets
    world.trigger_targets(Explode { radius: 8.0 }, b);
    let mut q = world.query_filtered::<&Health, With<Tagged>>();
    let mut radii: Vec<u32> = q.iter(&world).map(|h| h.0).collect();
    radii.sort_unstable();
    assert_eq!(radii, vec![7, 8]);
    world.check_invariants();
}

#[derive(Component, Debug, PartialEq)]
struct Tombstone(Entity);

#[test]
fn observer_commands_issued_during_a_despawn_apply_before_despawn_returns() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnDespawn, Health>, mut commands: Commands| {
        commands.spawn(Tombstone(trigger.entity()));
    });
    // A command aimed at the dying entity: applied after it is gone, so ignored.
    world.add_observer(|trigger: Trigger<OnRemove, Health>, mut commands: Commands| {
        commands.entity(trigger.entity()).try_insert(Alive);
    });
    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Health(2)).add_pair::<ChildOf>(a).id();
    world.spawn(pos(0.0));

    world.despawn(a);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    let mut q = world.query::<&Tombstone>();
    let tombstones: BTreeSet<Entity> = q.iter(&world).map(|t| t.0).collect();
    assert_eq!(tombstones, BTreeSet::from([a, b]));
    let mut q = world.query::<&Alive>();
    assert_eq!(q.iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn chained_observer_commands_all_apply_before_the_call_returns() {
    let mut world = new_world();
    // spawn(Health) -> OnAdd<Health> inserts Alive -> OnAdd<Alive> triggers Ping on
    // the entity -> its Ping watcher... is global: it tags the entity.
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(("health added", trigger.entity()));
        commands.entity(trigger.entity()).insert(Alive);
    });
    world.add_observer(|trigger: Trigger<OnAdd, Alive>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(("alive added", trigger.entity()));
        commands.trigger_targets(Ping, trigger.entity());
    });
    world.add_observer(|trigger: Trigger<Ping>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(("pinged", trigger.entity()));
        commands.entity(trigger.entity()).insert(Tagged);
    });
    world
        .add_observer(|trigger: Trigger<OnAdd, Tagged>, mut log: ResMut<Log>| log.0.push(("tagged", trigger.entity())));

    let e = world.spawn(Health(1)).id();
    assert_eq!(take_log(&mut world), vec![("health added", e), ("alive added", e), ("pinged", e), ("tagged", e)]);
    assert!(world.has::<Alive>(e) && world.has::<Tagged>(e));

    // A countdown through Commands::trigger: every level runs before `trigger` returns.
    world.add_observer(|trigger: Trigger<Countdown>, mut commands: Commands, mut notes: ResMut<Notes>| {
        let n = trigger.event().0;
        notes.0.push(n.to_string());
        if n > 0 {
            commands.trigger(Countdown(n - 1));
        }
    });
    world.trigger(Countdown(60));
    let notes = take_notes(&mut world);
    assert_eq!(notes, (0..=60).rev().map(|n| n.to_string()).collect::<Vec<_>>());
}

#[test]
fn an_observer_that_retriggers_itself_forever_panics_instead_of_overflowing() {
    let mut world = new_world();
    world.add_observer(|_: Trigger<Echo>, mut commands: Commands| commands.trigger(Echo));
    let message = panic_message(|| world.trigger(Echo));
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");
    drop(world);

    // An observer whose OnAdd spawns another entity with the same component.
    let mut world = new_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut commands: Commands| {
        commands.spawn(Health(0));
    });
    let message = panic_message(|| world.spawn(Health(0)).id());
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");
    drop(world);

    // The nesting depth is restored after the panic: a fresh world on this thread
    // runs a legitimate chain.
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<Countdown>, mut commands: Commands, mut notes: ResMut<Notes>| {
        notes.0.push(trigger.event().0.to_string());
        if trigger.event().0 > 0 {
            commands.trigger(Countdown(trigger.event().0 - 1));
        }
    });
    world.trigger(Countdown(3));
    assert_eq!(take_notes(&mut world), vec!["3", "2", "1", "0"]);
}

// ----- observers are entities ---------------------------------------------------------------------

#[test]
fn despawning_the_observer_entity_stops_it_from_firing() {
    let mut world = new_world();
    let ping =
        world.add_observer(|_: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("ping", Entity::PLACEHOLDER))).id();
    let add = world
        .add_observer(|trigger: Trigger<OnAdd, Health>, mut log: ResMut<Log>| log.0.push(("add", trigger.entity())))
        .id();
    assert!(world.has::<ObserverMarker>(ping) && world.has::<ObserverMarker>(add));
    assert_eq!(world.observers().len(), 2);
    assert!(world.observers().has_lifecycle_observers());

    world.trigger(Ping);
    let e = world.spawn(Health(1)).id();
    assert_eq!(take_log(&mut world), vec![("ping", Entity::PLACEHOLDER), ("add", e)]);

    assert!(world.despawn(ping));
    world.trigger(Ping);
    world.spawn(Health(1));
    assert_eq!(take_log(&mut world).len(), 1, "only the OnAdd observer is left");
    assert_eq!(world.observers().len(), 1);

    world.entity_mut(add).despawn();
    world.spawn(Health(1));
    assert_eq!(take_log(&mut world), vec![]);
    assert!(world.observers().is_empty());
    assert!(!world.observers().has_lifecycle_observers());

    // An entity observer too.
    let target = world.spawn_empty().id();
    world
        .entity_mut(target)
        .observe(|trigger: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("watch", trigger.entity())));
    assert_eq!(world.observers().len(), 1);
    let mut q = world.query_filtered::<Entity, With<ObserverMarker>>();
    let watcher: Vec<Entity> = q.iter(&world).collect();
    assert_eq!(watcher.len(), 1);
    world.trigger_targets(Ping, target);
    assert_eq!(take_log(&mut world), vec![("watch", target)]);
    world.despawn(watcher[0]);
    world.trigger_targets(Ping, target);
    assert_eq!(take_log(&mut world), vec![]);
    assert!(world.observers().is_empty());

    // Removing the marker unregisters as well.
    let again =
        world.add_observer(|_: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("again", Entity::PLACEHOLDER))).id();
    world.remove::<ObserverMarker>(again);
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), vec![]);
    assert!(world.observers().is_empty());
    world.check_invariants();
}

#[test]
fn an_observer_that_despawns_itself_fires_once() {
    let mut world = new_world();
    let observer = world
        .add_observer(|trigger: Trigger<Ping>, mut commands: Commands, mut log: ResMut<Log>| {
            log.0.push(("once", trigger.observer()));
            commands.entity(trigger.observer()).despawn();
        })
        .id();
    world.trigger(Ping);
    assert!(!world.is_alive(observer), "its despawn was applied before trigger returned");
    world.trigger(Ping);
    world.trigger_targets(Ping, [observer]);
    assert_eq!(take_log(&mut world), vec![("once", observer)]);
    assert!(world.observers().is_empty());

    // A lifecycle observer despawning itself during a batch: the first spawn only.
    let observer = world
        .add_observer(|trigger: Trigger<OnAdd, Health>, mut commands: Commands, mut log: ResMut<Log>| {
            log.0.push(("first health", trigger.entity()));
            commands.entity(trigger.observer()).despawn();
        })
        .id();
    let batch: Vec<Entity> = world.spawn_batch([Health(1), Health(2), Health(3)]).collect();
    assert_eq!(take_log(&mut world), vec![("first health", batch[0])]);
    assert!(!world.is_alive(observer));
    assert!(!world.observers().has_lifecycle_observers());
    world.check_invariants();
}

// ----- parameters see the world at event time ------------------------------------------------------

#[test]
fn observer_queries_see_the_world_at_event_time() {
    let mut world = new_world();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, q: Query<(Entity, &Health)>, mut notes: ResMut<Notes>| {
        let count = q.iter().count();
        let includes_new = q.iter().any(|(e, _)| e == trigger.entity());
        notes.0.push(format!("add: {count} with health, new one included: {includes_new}"));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Health>, q: Query<(Entity, &Health)>, mut notes: ResMut<Notes>| {
        let count = q.iter().count();
        let includes_old = q.iter().any(|(e, _)| e == trigger.entity());
        notes.0.push(format!("remove: {count} with health, old one included: {includes_old}"));
    });
    // A mutating query: doubles the value it was given.
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut q: Query<&mut Health>| {
        q.get_mut(trigger.entity()).unwrap().0 *= 2;
    });

    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Health(2)).id();
    world.spawn(pos(0.0));
    let batch: Vec<Entity> = world.spawn_batch([Health(3), Health(4)]).collect();
    assert_eq!(
        take_notes(&mut world),
        vec![
            "add: 1 with health, new one included: true",
            "add: 2 with health, new one included: true",
            "add: 3 with health, new one included: true",
            "add: 4 with health, new one included: true",
        ]
    );
    assert_eq!(world.get::<Health>(a), Some(&Health(2)));
    assert_eq!(world.get::<Health>(b), Some(&Health(4)));
    assert_eq!(world.get::<Health>(batch[1]), Some(&Health(8)));

    world.despawn(a);
    world.remove::<Health>(b);
    assert_eq!(
        take_notes(&mut world),
        vec!["remove: 4 with health, old one included: true", "remove: 3 with health, old one included: true"]
    );
    let mut q = world.query::<&Health>();
    assert_eq!(q.iter(&world).count(), 2);
}

// ----- despawn cleanup of a hierarchy --------------------------------------------------------------

#[derive(Resource, Default, Debug)]
struct Unparented(Vec<(Entity, Option<Entity>)>);

#[test]
fn despawning_a_parent_fires_on_despawn_and_on_remove_for_it_and_every_deleted_descendant() {
    let mut world = new_world();
    world.init_resource::<Unparented>();
    world.add_observer(|trigger: Trigger<OnDespawn>, q: Query<&Health>, mut log: ResMut<Log>| {
        assert!(q.get(trigger.entity()).is_ok(), "components are readable during OnDespawn");
        log.0.push(("despawn", trigger.entity()));
    });
    world.add_observer(
        |trigger: Trigger<OnRemove, Health>, q: Query<&Health>, mut log: ResMut<Log>, mut values: ResMut<Values>| {
            values.0.push(("remove", q.get(trigger.entity()).unwrap().0));
            log.0.push(("remove", trigger.entity()));
        },
    );
    world.add_observer(|trigger: Trigger<OnRemove, Pair<ChildOf>>, mut unparented: ResMut<Unparented>| {
        unparented.0.push((trigger.entity(), trigger.pair_target()));
    });

    let root = world.spawn(Health(1)).id();
    let c1 = world.spawn(Health(2)).add_pair::<ChildOf>(root).id();
    let c2 = world.spawn(Health(3)).add_pair::<ChildOf>(root).id();
    let g = world.spawn(Health(4)).add_pair::<ChildOf>(c1).id();
    let bystander = world.spawn(Health(5)).id();
    assert_eq!(take_log(&mut world), vec![]);

    assert!(world.despawn(root));
    for e in [root, c1, c2, g] {
        assert!(!world.is_alive(e));
    }
    assert!(world.is_alive(bystander));

    let log = take_log(&mut world);
    let deleted = [root, c1, c2, g];
    for e in deleted {
        let despawns: Vec<usize> = (0..log.len()).filter(|&i| log[i] == ("despawn", e)).collect();
        let removes: Vec<usize> = (0..log.len()).filter(|&i| log[i] == ("remove", e)).collect();
        assert_eq!(despawns.len(), 1, "one OnDespawn for {e:?}: {log:?}");
        assert_eq!(removes.len(), 1, "one OnRemove<Health> for {e:?}: {log:?}");
        assert!(despawns[0] < removes[0], "OnDespawn before OnRemove for {e:?}: {log:?}");
    }
    assert_eq!(log.len(), 8, "nothing else fired: {log:?}");
    // Bottom to top, as Flecs deletes a tree: every entity's events after its
    // children's, so the despawned root goes last.
    let first_event = |e: Entity| log.iter().position(|&(_, seen)| seen == e).unwrap();
    let last_event = |e: Entity| log.iter().rposition(|&(_, seen)| seen == e).unwrap();
    assert!(last_event(g) < first_event(c1), "the grandchild goes before its parent: {log:?}");
    for child in [c1, c2] {
        assert!(last_event(child) < first_event(root), "{child:?} goes before the root: {log:?}");
    }
    assert_eq!(log[6], ("despawn", root), "the despawned entity goes last: {log:?}");
    let mut values: Vec<u32> = take_values(&mut world).into_iter().map(|(_, v)| v).collect();
    values.sort_unstable();
    assert_eq!(values, vec![1, 2, 3, 4]);

    // The children also lose their (ChildOf, parent) pairs.
    let unparented: BTreeSet<Entity> =
        std::mem::take(&mut world.resource_mut::<Unparented>().0).into_iter().map(|(e, _)| e).collect();
    assert_eq!(unparented, BTreeSet::from([c1, c2, g]));
    world.check_invariants();
}

#[test]
fn despawning_a_parent_reports_the_parent_as_pair_target_of_the_children_child_of_removal() {
    let mut world = new_world();
    world.init_resource::<Unparented>();
    world.add_observer(|trigger: Trigger<OnRemove, Pair<ChildOf>>, mut unparented: ResMut<Unparented>| {
        unparented.0.push((trigger.entity(), trigger.pair_target()));
    });
    let root = world.spawn(Health(1)).id();
    let c1 = world.spawn(Health(2)).add_pair::<ChildOf>(root).id();
    let c2 = world.spawn(Health(3)).add_pair::<ChildOf>(root).id();
    let g = world.spawn(Health(4)).add_pair::<ChildOf>(c1).id();

    // A plain removal reports the target.
    let other = world.spawn_empty().add_pair::<ChildOf>(root).id();
    world.entity_mut(other).remove_pair::<ChildOf>(root);
    assert_eq!(std::mem::take(&mut world.resource_mut::<Unparented>().0), vec![(other, Some(root))]);

    world.despawn(root);
    let unparented: BTreeSet<(Entity, Option<Entity>)> =
        std::mem::take(&mut world.resource_mut::<Unparented>().0).into_iter().collect();
    assert_eq!(unparented, BTreeSet::from([(c1, Some(root)), (c2, Some(root)), (g, Some(c1))]));
}

// ----- no observers ----------------------------------------------------------------------------------

#[test]
fn a_world_without_observers_behaves_as_before() {
    let mut world = World::new();
    assert!(world.observers().is_empty());
    assert!(!world.observers().has_lifecycle_observers());

    let a = world.spawn((Health(1), pos(1.0))).id();
    let b = world.spawn(Stunned(2)).id();
    world.insert(a, Health(2));
    world.insert(b, vel(1.0));
    assert_eq!(world.remove::<Position>(a), Some(pos(1.0)));
    let batch: Vec<Entity> = world.spawn_batch((0..4).map(Health)).collect();
    let child = world.spawn(Health(9)).add_pair::<ChildOf>(batch[0]).id();
    world.trigger(Explode { radius: 1.0 });
    world.trigger_targets(Explode { radius: 1.0 }, [a, b]);
    world.trigger_targets(Bubble { hops: 0, stop_at: None }, child);
    world.despawn(batch[0]);
    assert!(!world.is_alive(child));
    world.despawn(b);

    assert_eq!(world.get::<Health>(a), Some(&Health(2)));
    assert_eq!(world.entity_count(), 4);
    world.check_invariants();

    // Adding and despawning an observer leaves no trace in the dispatch.
    let observer = world.add_observer(|_: Trigger<OnAdd, Health>| {}).id();
    assert!(world.observers().has_lifecycle_observers());
    world.despawn(observer);
    assert!(world.observers().is_empty());
    assert!(!world.observers().has_lifecycle_observers());
    let c = world.spawn(Health(3)).id();
    assert_eq!(world.get::<Health>(c), Some(&Health(3)));
    assert_eq!(world.entity_count(), 5);
    world.check_invariants();
}

#[test]
fn an_observer_spawning_several_entities_through_commands_spawns_them_all() {
    let mut world = new_world();
    world.add_observer(|_: Trigger<OnAdd, Alive>| {});
    world.add_observer(|_: Trigger<Ping>, mut commands: Commands| {
        commands.spawn(Health(1));
        commands.spawn(Health(2));
    });
    world.trigger(Ping);
    let mut q = world.query::<&Health>();
    let mut values: Vec<u32> = q.iter(&world).map(|h| h.0).collect();
    values.sort_unstable();
    assert_eq!(values, vec![1, 2]);
    world.check_invariants();

    // One spawn per target of a targeted event.
    let mut world = new_world();
    world.add_observer(|_: Trigger<OnAdd, Alive>| {});
    world.add_observer(|trigger: Trigger<Explode>, mut commands: Commands| {
        commands.spawn((Health(trigger.event().radius as u32), Tagged));
    });
    let (b, c) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.trigger_targets(Explode { radius: 8.0 }, [b, c]);
    let mut q = world.query_filtered::<&Health, With<Tagged>>();
    let radii: Vec<u32> = q.iter(&world).map(|h| h.0).collect();
    assert_eq!(radii, vec![8, 8]);
    world.check_invariants();
}

/// API.md: observers are internal entities, not counted by `entity_count` and
/// matched only by queries naming a term they alone carry (`ObserverMarker`).
#[test]
fn observer_entities_are_internal_not_counted_nor_matched() {
    let mut world = World::new();
    assert_eq!(world.entity_count(), 0);
    let observer = world.add_observer(|_: Trigger<Explode>| {}).id();
    assert_eq!(world.entity_count(), 0, "the observer is not counted");
    assert_eq!(world.query::<Entity>().iter(&world).count(), 0, "nor matched by query::<Entity>()");
    assert_eq!(world.query::<()>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<Entity, Without<Health>>().iter(&world).count(), 0);
    let mut markers = world.query_filtered::<Entity, With<ObserverMarker>>();
    assert_eq!(markers.iter(&world).collect::<Vec<_>>(), [observer], "a term only observers carry");

    let e = world.spawn(Health(1)).id();
    world.entity_mut(e).observe(|_: Trigger<Explode>| {});
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(markers.iter(&world).count(), 2);
    world.check_invariants();

    assert!(world.despawn(observer), "an observer can still be despawned");
    assert!(world.despawn(e));
    assert!(world.observers().is_empty());
    assert_eq!(world.entity_count(), 0);
    assert_eq!(markers.iter(&world).count(), 0);
    world.check_invariants();
}

/// A relationship type alone in a `Trigger` watches its pairs, as a Bevy
/// user expects of `Trigger<OnAdd, ChildOf>` (Bevy's `ChildOf` is a
/// component): adding, replacing and removing a parent, and the parent's
/// despawn, are heard, with the pair's target.
#[test]
fn a_relationship_type_in_a_trigger_watches_its_pairs() {
    #[derive(Resource, Default)]
    struct Heard(Vec<(&'static str, Entity, Option<Entity>)>);
    let mut world = World::new();
    world.init_resource::<Heard>();
    world.add_observer(|t: Trigger<OnAdd, ChildOf>, mut heard: ResMut<Heard>| {
        heard.0.push(("add", t.entity(), t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnRemove, ChildOf>, mut heard: ResMut<Heard>| {
        heard.0.push(("remove", t.entity(), t.pair_target()));
    });
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    let child = world.spawn(ChildOf.pair(p1)).id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    world.entity_mut(child).remove_pair::<ChildOf>(p2);
    let other = world.spawn_empty().add_pair::<ChildOf>(p1).id();
    world.despawn(p1);
    let heard = &world.resource::<Heard>().0;
    assert_eq!(
        heard,
        &vec![
            ("add", child, Some(p1)),
            ("remove", child, Some(p1)),
            ("add", child, Some(p2)),
            ("remove", child, Some(p2)),
            ("add", other, Some(p1)),
            ("remove", other, Some(p1)),
        ]
    );
}

/// A user event sent to an entity reaches the observers of components the
/// entity holds (every watched one), once each, with the watched ids as the
/// trigger's components; global observers hear it once; an entity without
/// the components, a prefab and an untargeted trigger reach no component
/// observer; propagation reaches the parent's component observers.
#[test]
fn a_targeted_user_event_reaches_observers_of_the_targets_components() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Notes>();
    world.add_observer(|t: Trigger<Explode, Health>, mut log: ResMut<Log>| log.0.push(("health", t.entity())));
    world.add_observer(|t: Trigger<Explode, (Health, Tagged)>, mut log: ResMut<Log>| {
        log.0.push(("health+tagged", t.entity()))
    });
    world.add_observer(|t: Trigger<Explode>, mut log: ResMut<Log>, mut notes: ResMut<Notes>| {
        log.0.push(("global", t.entity()));
        notes.0.push(format!("{}", t.components().len()));
    });
    world.add_observer(|t: Trigger<Bubble, Health>, mut log: ResMut<Log>| log.0.push(("bubble", t.entity())));
    let both = world.spawn((Health(1), Tagged)).id();
    let health = world.spawn(Health(2)).id();
    let bare = world.spawn(Alive).id();
    let prefab = world.spawn((Prefab, Health(3))).id();
    let take = |world: &mut World| core::mem::take(&mut world.resource_mut::<Log>().0);
    world.trigger_targets(Explode { radius: 1.0 }, both);
    let mut fired = take(&mut world);
    fired.sort();
    assert_eq!(fired, [("global", both), ("health", both), ("health+tagged", both)]);
    world.trigger_targets(Explode { radius: 1.0 }, [health, bare, prefab]);
    assert_eq!(take(&mut world), [("health", health), ("global", health), ("global", bare), ("global", prefab)]);
    world.trigger(Explode { radius: 1.0 });
    assert_eq!(take(&mut world), [("global", Entity::PLACEHOLDER)]);
    // A propagating event: the child has no Health, its parent has.
    let child = world.spawn((Alive, ChildOf.pair(health))).id();
    world.trigger_targets(Bubble { hops: 0, stop_at: None }, child);
    assert_eq!(take(&mut world), [("bubble", health)]);
    world.check_invariants();
}
