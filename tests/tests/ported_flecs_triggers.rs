//! Flecs' trigger tests (single-term observers) and monitors, restated
//! against this crate's API (API.md, "Observers and events",
//! "Relationships", "Prefabs, toggles, unions, names"; `ecs::observer`,
//! `world::observers`, `world::inherited_events`).
//!
//! Sources (Flecs 4, `test/core/src`): the tests of `TriggerOnAdd.c`,
//! `TriggerOnRemove.c`, `TriggerOnSet.c`, `Trigger.c`, `Monitor.c` and
//! `ObserverOnSet.c` that `ported_flecs_observers.rs`, `ported_flecs_events.rs`
//! and `inherited_observers.rs` do not port yet, a few single-term tests of
//! `Observer.c` (`unset_on_delete_*`, `2_terms_on_remove_on_clear`,
//! `delete_observed_tgt`, `wildcard_pair_w_*_component`) and the observer
//! tests of `Sparse.c` (sparse components). Each test names what it ports.
//!
//! Name mapping: a Flecs trigger on `Id` for event `Ev` is
//! `world.add_observer(|t: Trigger<Ev, Id>, ..| ..)`; `(Rel, *)` is
//! `Pair<Rel>`; Flecs `OnSet` is our `OnInsert`; an observer on `*` (any
//! id) is a global `Trigger<Ev>` (no component); a specific pair `(Rel, Tgt)`,
//! `(*, Tgt)` and `(*, *)`, which the typed API cannot name, go through the
//! public `World::register_observer` (helper `raw`); `src = e` is
//! `entity_mut(e).observe(..)` (an entity observer); `ecs_delete(o)` is
//! despawning the observer entity; `ecs_clear(e)` is `remove_id(e, *)`
//! (removes every id, the entity stays alive); `ecs_remove_pair(e, Rel, *)`
//! is `remove_id(e, (Rel, *))`; deferred mode (`ecs_defer_begin/end`, a
//! system in `ecs_progress`) is a system's `Commands`, run by a `Schedule`
//! or `run_system_once`; `ecs_bulk_new` is `spawn_batch`; `EcsSparse` is
//! `storage = "sparse"`; a Flecs `EcsMonitor` observer is two observers of
//! the same terms, `OnAdd` ("match") and `OnRemove` ("unmatch"), since ours
//! fire only while the entity has every term. Each log line is
//! `what entity ids`, checked in firing order.
//!
//! Adapted to documented differences of ours (each test says so):
//! * observers are `self|up IsA` for inheritable components (module docs of
//!   `observer`): Flecs' `up`-only and `self`-only terms hear less
//!   (`on_add_superset`, `override_after_add_in_on_add`); an entity observer
//!   hears its entity inherit (`entity_source_base_set`);
//! * only `Prefab` bases pass values on (`IsA`'s rustdoc), so bases are
//!   prefabs; observers of components do not hear prefabs themselves;
//!   tag pairs of a prefab are copied at instantiation, not inherited later
//!   (`World::instantiate`: `trigger_superset_wildcard`);
//! * an own value over an inherited one reports the inherited loss, then the
//!   own add (`world::inherited_events`): `monitor_w_self_superset`;
//! * one observer call per event (`world::observers`: "at most once per
//!   event and target"), with `Trigger::ids` listing every id the event is
//!   about: a spawn of two tags reaches a global observer once with both
//!   (`on_add_wildcard`), a clear reaches `OnRemove TagA` with both removed
//!   ids (`on_remove_w_clear`); Flecs calls once per id. Removing `(Rel, *)`
//!   with two targets is two events here too (`remove_wildcard_2_ids`);
//! * our `OnAdd` multi-term observer is no monitor: a second `(Rel, *)` pair
//!   or removing one of two is heard (`monitor_w_wildcard`);
//! * a data component always comes with a value: Flecs' add-then-set is one
//!   insert, `ecs_new_w(T)` (no `OnSet`) has no counterpart (`on_set_wildcard`);
//! * removing, inside `OnAdd`, the component being set is deferred, not an
//!   abort (`remove_added_component_in_on_add_w_set`);
//! * our `World` drop runs no observers (Bevy): `ecs_fini` tests use
//!   `clear_entities` (`on_remove_w_world_fini`);
//! * observers are internal entities, outside `World::lookup`
//!   (`world::names`): `trigger_w_named_entity`;
//! * Flecs' `*` observer (ids but no pairs) has no counterpart; ours is `_`
//!   (`on_add_any`); a value pair takes its relationship's type, never its
//!   target's (`wildcard_pair_w_obj_component`); inherited sparse values are
//!   not reported, so `sparse_on_set_observer_w_override` copies.
//!
//! Findings (fixed since; the tests pass):
//! * `on_add_pair_wildcard`, `on_remove_pair_wildcard`: an observer of
//!   `(*, *)` was accepted by `World::register_observer` and never fired
//!   (dispatch looked an id up as `(R, T)`, `(R, *)` and `(*, T)` only);
//! * `delete_observed_tgt`: an observer of `(Rel, Tgt)` fired for
//!   `(Rel, New)` after `Tgt` was despawned and `New` reused its index (pairs
//!   drop generations; Flecs refuses the delete). Now such observers are
//!   despawned with their target.
//!
//! Not ported (no counterpart here): `ecs_clone` (`clone_*`, `on_add_w_clone`,
//! `clone_w_value`), ctx / binding ctx (`sys_context`,
//! `get_sys_context_from_param`, `delete_trigger_w_delete_ctx`), iterator
//! and field details (`w_value_instanced`, `w_filter_term`, `filter_term`,
//! `readonly_term`, `trigger_w_index`), `ecs_modified`
//! (`on_set_component_after_modified`: writes through `Mut` send no event),
//! `Not` / `Or` / optional terms (`on_add_not_tag`, `on_remove_not_tag`,
//! `not_only*`, `Monitor_1_comp_1_not`, `monitor_w_not`, `monitor_w_or`,
//! `monitor_w_optional`, `monitor_other_table`, `monitor_component`'s
//! `!Tag`, `set_optional_one_term`), `up`-only / `up ChildOf` terms
//! (`on_add_superset_childof`, `on_remove_superset_childof`,
//! `Monitor_1_parent`, `Monitor_1_comp_1_parent`,
//! `trigger_cleanup_2_w_self_super_id`, `on_add_base_superset_trigger`,
//! `on_add_superset_w_component`, `on_set_superset_w_component`,
//! `on_add_base_*superset_w_owned`, `on_set_*superset*`,
//! `on_set_up_on_instantiate_override`,
//! `on_set_superset_after_filter_observer*`), `yield_existing`
//! (`on_add_yield_existing*`, `on_set_yield_existing`), adding a pair to an
//! entity that does not exist yet (`add_non_existing_entity`: refused here),
//! `create_stresstest` (no semantics), `ecs_emplace`; duplicates of tests
//! ported elsewhere (`on_add_trigger_before_table`,
//! `on_add_trigger_after_table`, `on_remove_trigger_*_table`, `on_add_tag`,
//! `on_remove_tag`, `set_1_of_3_1_from_base`,
//! `on_set_self_from_child_base_of_prefab`); and from `Sparse.c` the
//! `ensure` / `emplace` / `modified` / clone / bulk / `DontFragment` /
//! child-override-hierarchy / fini variants. The Flecs callbacks
//! `Trigger_w_value`, `w_value_from_entity`, `n_w_values`, `w_nonzero_value`
//! and `w_new_entity_value` are helpers, not tests.

use core::any::TypeId;

use ecs::observer::Observed;
use ecs::prelude::*;
use ecs::world::{ObserverRunner, TriggerInfo};

// ----- fixtures -------------------------------------------------------------------------

#[derive(Component, Debug)]
struct TagA;

#[derive(Component, Debug)]
struct TagB;

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

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Mass(f32);

/// Flecs' `TagA` with `(OnInstantiate, Inherit)` (our default, spelled out).
#[derive(Component, Debug)]
#[component(on_instantiate = "inherit")]
struct InhTagA;

/// Flecs' `TagB` with `(OnInstantiate, Inherit)`.
#[derive(Component, Debug)]
#[component(on_instantiate = "inherit")]
struct InhTagB;

/// Flecs' `Position` with `(OnInstantiate, Inherit)`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "inherit")]
struct InhPos {
    x: f32,
    y: f32,
}

/// Flecs' `Velocity` with `(OnInstantiate, Inherit)`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "inherit")]
struct InhVel {
    x: f32,
    y: f32,
}

/// Flecs' `Position` with `(OnInstantiate, Override)` (the Flecs default).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct OvrPos {
    x: f32,
    y: f32,
}

#[derive(Relationship, Debug)]
struct Rel;

#[derive(Relationship, Debug)]
struct RelB;

/// A relationship whose pairs carry a value (Flecs' `ecs_set_pair(Position, Obj)`).
#[derive(Relationship, Clone, Copy, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

/// What observers saw, in firing order.
#[derive(Resource, Default, Debug)]
struct Log(Vec<String>);

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

/// The log since the last call (and clears it).
fn take(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

/// One log line: what fired, for which entity, about which ids.
fn rec(what: &str, e: Entity, ids: &[Id]) -> String {
    format!("{what} {e:?} {ids:?}")
}

fn id<T: Component>(world: &mut World) -> Id {
    world.register_component::<T>().id()
}

fn rel<R: Relationship>(world: &mut World) -> Entity {
    world.register_component::<R>()
}

/// A typed single-term observer (a Flecs trigger) that logs `what`.
fn on<E: Event, B: Observed>(world: &mut World, what: &'static str) -> Entity {
    world.add_observer(move |t: Trigger<E, B>, mut log: ResMut<Log>| log.0.push(rec(what, t.entity(), t.ids()))).id()
}

/// An observer of the raw id pattern `id` (a specific pair `(R, T)`,
/// `(*, T)` or `(*, *)`), which the typed API cannot name, registered through
/// `World::register_observer` on an observer entity of its own.
fn raw<E: Event>(world: &mut World, what: &'static str, id: Id) -> Entity {
    raw_terms::<E>(world, what, &[id])
}

/// As [`raw`] with several terms (the entity must have all of them).
fn raw_terms<E: Event>(world: &mut World, what: &'static str, ids: &[Id]) -> Entity {
    #[derive(Event)]
    struct Never;
    let o = world.add_observer(|_: Trigger<Never>| {}).id();
    assert!(world.unregister_observer(o));
    let runner: ObserverRunner = Box::new(move |world: &mut World, info: &TriggerInfo, _| {
        world.resource_mut::<Log>().0.push(rec(what, info.entity, &info.ids));
    });
    world.register_observer(o, TypeId::of::<E>(), ids.iter().copied().collect(), core::iter::empty().collect(), runner);
    o
}

fn prefab(world: &mut World) -> Entity {
    world.spawn(Prefab).id()
}

// ===== TriggerOnAdd.c ===================================================================

/// Flecs `TriggerOnAdd_add_match_1_of_1`: adding `Position` to an existing
/// entity fires once, for it, with `Position`, and the value is readable.
#[test]
fn add_match_1_of_1() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    world.add_observer(|t: Trigger<OnAdd, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = *q.get(t.entity()).unwrap();
        log.0.push(format!("{} {p:?}", rec("add", t.entity(), t.ids())));
    });
    let e = world.spawn_empty().id();
    assert!(take(&mut world).is_empty());
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![format!("{} {:?}", rec("add", e, &[pos]), Position { x: 10.0, y: 20.0 })]);
}

/// Flecs `TriggerOnAdd_add_match_1_of_2`: adding `Position` then `Velocity`
/// fires the `Position` observer once.
#[test]
fn add_match_1_of_2() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    on::<OnAdd, Position>(&mut world, "add");
    let e = world.spawn_empty().id();
    world.insert(e, Position::default());
    world.insert(e, Velocity::default());
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos])]);
}

/// Flecs `TriggerOnAdd_add_no_match_1` and `TriggerOnAdd_set_no_match_1`:
/// a `Velocity` observer does not fire for `Position`.
#[test]
fn add_no_match_1() {
    let mut world = log_world();
    on::<OnAdd, Velocity>(&mut world, "add");
    let e = world.spawn_empty().id();
    world.insert(e, Position { x: 1.0, y: 2.0 });
    world.spawn(Position::default());
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_add_again_1`: adding a component the entity has fires
/// no `OnAdd` (ours: an insert over it fires `OnInsert` only).
#[test]
fn add_again_1() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    on::<OnAdd, Position>(&mut world, "add");
    on::<OnInsert, Position>(&mut world, "insert");
    let e = world.spawn_empty().id();
    world.insert(e, Position::default());
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos]), rec("insert", e, &[pos])]);
    world.insert(e, Position::default());
    assert_eq!(take(&mut world), vec![rec("insert", e, &[pos])]);
}

/// Flecs `TriggerOnAdd_new_w_count_match_1_of_1` (`ecs_bulk_new`): a batch of
/// three fires once per entity, in creation order, each value readable.
#[test]
fn new_w_count_match_1_of_1() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    world.add_observer(|t: Trigger<OnAdd, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = *q.get(t.entity()).unwrap();
        log.0.push(format!("{} {}", rec("add", t.entity(), t.ids()), p.x));
    });
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Position { x: 10.0 + i as f32, y: 20.0 },))).collect();
    let expected: Vec<String> =
        ids.iter().enumerate().map(|(i, &e)| format!("{} {}", rec("add", e, &[pos]), 10 + i)).collect();
    assert_eq!(take(&mut world), expected);
}

/// Flecs `TriggerOnAdd_override_after_add_in_on_add`: an `OnAdd Position`
/// observer adds `Velocity`; an instance that overrides its prefab's
/// `Position` hears the add, gets `Velocity`, and reads its own value.
/// Adapted: Flecs' observer is `Position(self)` and does not hear the
/// instance inherit `Position`; ours are `self|up IsA` (module docs of
/// `observer`), so the instance hears the inherited add first.
#[test]
fn override_after_add_in_on_add() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 })).id();
    world.add_observer(|t: Trigger<OnAdd, InhPos>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(rec("add", t.entity(), t.ids()));
        commands.entity(t.entity()).insert(Velocity::default());
    });
    let e = world.instantiate(base);
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos])], "adapted: inherited add heard");
    world.entity_mut(e).remove::<Velocity>();
    world.insert(e, InhPos { x: 1.0, y: 2.0 });
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos])]);
    assert!(world.has::<Velocity>(e));
    assert_eq!(world.get::<InhPos>(e), Some(&InhPos { x: 1.0, y: 2.0 }));
    world.entity_mut(e).get_mut::<InhPos>().unwrap().x = 5.0;
    assert_eq!(world.get::<InhPos>(base), Some(&InhPos { x: 1.0, y: 2.0 }), "the instance owns its value");
}

/// Flecs `TriggerOnAdd_set_after_add_in_on_add`: `OnAdd Position` adds
/// `Velocity`, `OnSet Position` (ours: `OnInsert`) bumps the value; a set of
/// `{1, 2}` ends as `{2, 3}` with `Velocity` added, the add heard once.
#[test]
fn set_after_add_in_on_add() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    world.add_observer(|t: Trigger<OnAdd, Position>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(rec("add", t.entity(), t.ids()));
        commands.entity(t.entity()).insert(Velocity::default());
    });
    world.add_observer(|t: Trigger<OnInsert, Position>, mut q: Query<&mut Position>| {
        let mut p = q.get_mut(t.entity()).unwrap();
        p.x += 1.0;
        p.y += 1.0;
    });
    let e = world.spawn_empty().id();
    world.insert(e, Position { x: 1.0, y: 2.0 });
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos])]);
    assert!(world.has::<Velocity>(e));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 2.0, y: 3.0 }));
}

/// Flecs `TriggerOnAdd_add_again_in_progress`: a system that re-adds
/// `Position` (through its `Commands`, Flecs' deferred mode) fires no `OnAdd`.
#[test]
fn add_again_in_progress() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    on::<OnAdd, Position>(&mut world, "add");
    on::<OnInsert, Position>(&mut world, "insert");
    let e = world.spawn_empty().id();
    world.insert(e, Position::default());
    take(&mut world);
    fn add_again(mut commands: Commands, q: Query<Entity, With<Position>>) {
        for e in q.iter() {
            commands.entity(e).insert(Position::default());
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(add_again);
    schedule.run(&mut world);
    assert_eq!(take(&mut world), vec![rec("insert", e, &[pos])]);
}

/// Flecs `TriggerOnAdd_add_in_progress_before_system_def`: after a system
/// added `Velocity` in deferred mode, an `OnAdd Mass` observer created later
/// initialises `Mass` on add.
#[test]
fn add_in_progress_before_system_def() {
    let mut world = log_world();
    fn add_velocity(mut commands: Commands, q: Query<Entity, (With<Position>, Without<Velocity>)>) {
        for e in q.iter() {
            commands.entity(e).insert(Velocity::default());
        }
    }
    let e = world.spawn(Position::default()).id();
    assert!(!world.has::<Velocity>(e));
    let mut schedule = Schedule::new();
    schedule.add_systems(add_velocity);
    schedule.run(&mut world);
    assert!(world.has::<Position>(e) && world.has::<Velocity>(e));
    world.add_observer(|t: Trigger<OnAdd, Mass>, mut q: Query<&mut Mass>| q.get_mut(t.entity()).unwrap().0 = 10.0);
    world.insert(e, Mass(0.0));
    assert_eq!(world.get::<Mass>(e), Some(&Mass(10.0)));
}

/// Flecs `TriggerOnAdd_2_systems_w_table_creation`: the first of two
/// `OnAdd Position` observers adds 100 new ids (100 new tables); the second
/// still runs, once, and sees `Position`.
#[test]
fn two_systems_w_table_creation() {
    let mut world = log_world();
    let tags: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    let for_a = tags.clone();
    world.add_observer(move |t: Trigger<OnAdd, Position>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(format!("a {:?}", t.entity()));
        let (e, tags) = (t.entity(), for_a.clone());
        commands.queue(move |world: &mut World| {
            for tag in tags {
                assert!(world.add_id(e, tag.id()));
            }
        });
    });
    world.add_observer(|t: Trigger<OnAdd, Position>, q: Query<Has<Position>>, mut log: ResMut<Log>| {
        log.0.push(format!("b {:?} {}", t.entity(), q.get(t.entity()).unwrap()));
    });
    let e = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![format!("a {e:?}"), format!("b {e:?} true")]);
    assert!(tags.iter().all(|tag| world.has_id(e, tag.id())));
}

/// Flecs `TriggerOnAdd_2_systems_w_table_creation_in_progress`: a system
/// creates an entity with `Position` in deferred mode; both observers run
/// once for it when the commands are applied.
#[test]
fn two_systems_w_table_creation_in_progress() {
    let mut world = log_world();
    on::<OnAdd, Position>(&mut world, "a");
    on::<OnAdd, Position>(&mut world, "b");
    let pos = id::<Position>(&mut world);
    #[derive(Resource, Default)]
    struct Spawned(Vec<Entity>);
    world.init_resource::<Spawned>();
    fn spawner(mut commands: Commands, mut spawned: ResMut<Spawned>, log: Res<Log>) {
        assert!(log.0.is_empty(), "deferred: nothing fired while the system runs");
        spawned.0.push(commands.spawn(Position::default()).id());
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(spawner);
    schedule.run(&mut world);
    let e = world.resource::<Spawned>().0[0];
    assert_eq!(take(&mut world), vec![rec("a", e, &[pos]), rec("b", e, &[pos])]);
}

/// Flecs `TriggerOnAdd_on_add_in_on_update`: a system adds `Velocity` to three
/// entities (deferred); `OnAdd Velocity` adds `Mass`; all end with both, and
/// the observer heard the three entities in order.
#[test]
fn on_add_in_on_update() {
    let mut world = log_world();
    let vel = id::<Velocity>(&mut world);
    world.add_observer(|t: Trigger<OnAdd, Velocity>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(rec("add", t.entity(), t.ids()));
        commands.entity(t.entity()).insert(Mass(1.0));
    });
    let es: Vec<Entity> = (0..3).map(|_| world.spawn(Position::default()).id()).collect();
    fn add_to_current(mut commands: Commands, q: Query<Entity, With<Position>>) {
        for e in q.iter() {
            commands.entity(e).insert(Velocity::default());
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(add_to_current);
    schedule.run(&mut world);
    for &e in &es {
        assert!(world.has::<Position>(e) && world.has::<Velocity>(e) && world.has::<Mass>(e));
    }
    let mut seen = take(&mut world);
    seen.sort();
    let mut expected: Vec<String> = es.iter().map(|&e| rec("add", e, &[vel])).collect();
    expected.sort();
    assert_eq!(seen, expected);
}

/// Flecs `TriggerOnAdd_add_after_delete_trigger`: a deleted `OnAdd`
/// observer no longer fires, and deleting it fires nothing.
#[test]
fn add_after_delete_trigger() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let o = on::<OnAdd, Position>(&mut world, "add");
    let e1 = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![rec("add", e1, &[pos])]);
    assert!(world.despawn(o));
    assert!(take(&mut world).is_empty());
    let e2 = world.spawn(Position::default()).id();
    assert!(world.has::<Position>(e2));
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_remove_added_component_in_on_add_w_set`: an `OnAdd`
/// observer that removes the component just added. Adapted: Flecs aborts
/// (removing the component being set inside its `OnAdd`); ours defers the
/// removal to after the insert, so the value is set, heard, then removed.
#[test]
fn remove_added_component_in_on_add_w_set() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    world.add_observer(|t: Trigger<OnAdd, Position>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(rec("add", t.entity(), t.ids()));
        commands.entity(t.entity()).remove::<Position>();
    });
    on::<OnInsert, Position>(&mut world, "insert");
    on::<OnRemove, Position>(&mut world, "remove");
    let e = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos]), rec("insert", e, &[pos]), rec("remove", e, &[pos])]);
    assert!(!world.has::<Position>(e));
}

// ===== TriggerOnRemove.c ================================================================

/// Flecs `TriggerOnRemove_remove_no_match`: removing a component the entity
/// does not have fires no `OnRemove` of another component.
#[test]
fn remove_no_match() {
    let mut world = log_world();
    on::<OnRemove, Position>(&mut world, "remove");
    let e = world.spawn(Position::default()).id();
    world.entity_mut(e).remove::<Velocity>();
    assert!(take(&mut world).is_empty());
    assert!(world.has::<Position>(e));
}

/// Flecs `TriggerOnRemove_delete_no_match`: deleting an entity without
/// `Position` fires no `OnRemove Position`.
#[test]
fn delete_no_match() {
    let mut world = log_world();
    on::<OnRemove, Position>(&mut world, "remove");
    let e = world.spawn(Velocity::default()).id();
    assert!(world.despawn(e));
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnRemove_on_remove_in_on_update`: a system removes
/// `Velocity` from three entities (deferred); `OnRemove Velocity` hears
/// each once, and they keep `Position`.
#[test]
fn on_remove_in_on_update() {
    let mut world = log_world();
    let vel = id::<Velocity>(&mut world);
    on::<OnRemove, Velocity>(&mut world, "remove");
    let es: Vec<Entity> = (0..3).map(|_| world.spawn((Position::default(), Velocity::default())).id()).collect();
    fn remove_from_current(mut commands: Commands, q: Query<Entity, With<Position>>) {
        for e in q.iter() {
            commands.entity(e).remove::<Velocity>();
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(remove_from_current);
    schedule.run(&mut world);
    for &e in &es {
        assert!(world.has::<Position>(e) && !world.has::<Velocity>(e));
    }
    let mut seen = take(&mut world);
    seen.sort();
    let mut expected: Vec<String> = es.iter().map(|&e| rec("remove", e, &[vel])).collect();
    expected.sort();
    assert_eq!(seen, expected);
}

/// Flecs `TriggerOnRemove_remove_after_delete_trigger`.
#[test]
fn remove_after_delete_trigger() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let o = on::<OnRemove, Position>(&mut world, "remove");
    let e1 = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e1).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("remove", e1, &[pos])]);
    assert!(world.despawn(o));
    assert!(take(&mut world).is_empty());
    let e2 = world.spawn(Position::default()).id();
    world.entity_mut(e2).remove::<Position>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnRemove_remove_after_delete_wildcard_id_trigger`: the same
/// for an `OnRemove` observer of every id (ours: a global one). As in Flecs,
/// the observer hears its own entity's components removed by its deletion,
/// once (ours: its internal marker components), then nothing more.
#[test]
fn remove_after_delete_wildcard_id_trigger() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let o = on::<OnRemove, ()>(&mut world, "remove");
    let e1 = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e1).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("remove", e1, &[pos])]);
    assert!(world.despawn(o));
    let seen = take(&mut world);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with(&format!("remove {o:?} [")), "{seen:?}");
    let e2 = world.spawn(Position::default()).id();
    world.entity_mut(e2).remove::<Position>();
    assert!(take(&mut world).is_empty());
}

// ===== TriggerOnSet.c ===================================================================

/// Flecs `TriggerOnSet_un_set_tag_w_clear`: clearing an entity (ours:
/// removing the wildcard `*`, which removes every id) fires `OnRemove` for
/// its tag once.
#[test]
fn un_set_tag_w_clear() {
    let mut world = log_world();
    let tag = id::<TagA>(&mut world);
    on::<OnRemove, TagA>(&mut world, "remove");
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
    assert!(world.remove_id(e, Entity::WILDCARD.id()));
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    assert!(world.is_alive(e) && !world.has::<TagA>(e));
}

/// Flecs `TriggerOnSet_on_set_after_override_w_new_w_count`: three instances
/// of a prefab whose `Position` is copied to each (Flecs `auto_override`,
/// ours `on_instantiate = "override"`) each hear `OnSet` (ours `OnInsert`)
/// once, in creation order; the observer's bump lands on each own copy.
#[test]
fn on_set_after_override_w_new_w_count() {
    let mut world = log_world();
    let pos = id::<OvrPos>(&mut world);
    let base = world.spawn((Prefab, OvrPos { x: 1.0, y: 3.0 })).id();
    world.add_observer(|t: Trigger<OnInsert, OvrPos>, mut q: Query<&mut OvrPos>, mut log: ResMut<Log>| {
        log.0.push(rec("set", t.entity(), t.ids()));
        q.get_mut(t.entity()).unwrap().x += 1.0;
    });
    let ids: Vec<Entity> = (0..3).map(|_| world.instantiate(base)).collect();
    assert_eq!(take(&mut world), ids.iter().map(|&e| rec("set", e, &[pos])).collect::<Vec<_>>());
    for e in ids {
        assert_eq!(world.get::<OvrPos>(e), Some(&OvrPos { x: 2.0, y: 3.0 }));
    }
    assert_eq!(world.get::<OvrPos>(base), Some(&OvrPos { x: 1.0, y: 3.0 }));
}

// ===== Trigger.c: wildcards ==============================================================

/// Flecs `Trigger_on_add_wildcard`: an observer of `*` (ours: a global
/// lifecycle observer) hears each tag added, with the tag. Adapted: Flecs
/// invokes it once per id; ours once per event with every id it is about
/// (`world::observers`: "each observer runs at most once per event and
/// target"), so a spawn of two tags is one call with both.
#[test]
fn on_add_wildcard() {
    let mut world = log_world();
    let (a, b) = (id::<TagA>(&mut world), id::<TagB>(&mut world));
    let o = on::<OnAdd, ()>(&mut world, "add");
    let e = world.spawn(TagA).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[a])]);
    world.entity_mut(e).insert(TagB);
    assert_eq!(take(&mut world), vec![rec("add", e, &[b])]);
    world.despawn(o);
    let o2 = world
        .add_observer(|t: Trigger<OnAdd>, mut log: ResMut<Log>| {
            let mut ids = t.ids().to_vec();
            ids.sort();
            log.0.push(rec("add", t.entity(), &ids));
        })
        .id();
    let e2 = world.spawn((TagA, TagB)).id();
    let mut both = vec![a, b];
    both.sort();
    assert_eq!(take(&mut world), vec![rec("add", e2, &both)], "adapted: one call, both ids");
    world.despawn(o2);
}

/// Flecs `Trigger_on_add_pair_pred_wildcard`: an observer of `(*, Obj)`
/// hears each pair with target `Obj`, with that pair, and no other.
#[test]
fn on_add_pair_pred_wildcard() {
    let mut world = log_world();
    let (pred_a, pred_b) = (rel::<Rel>(&mut world), rel::<RelB>(&mut world));
    let (obj, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    raw::<OnAdd>(&mut world, "add", Id::pair(Entity::WILDCARD, obj));
    let e = world.spawn(Rel.pair(obj)).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[Id::pair(pred_a, obj)])]);
    world.add_pair::<RelB>(e, obj);
    assert_eq!(take(&mut world), vec![rec("add", e, &[Id::pair(pred_b, obj)])]);
    world.add_pair::<Rel>(e, other);
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_pair_wildcard` (and `Observer_on_add_wildcard_wildcard_*_edge`):
/// an observer of `(*, *)` hears a pair added, not a plain tag.
#[test]
fn on_add_pair_wildcard() {
    let mut world = log_world();
    let pred = rel::<Rel>(&mut world);
    let obj = world.spawn_empty().id();
    raw::<OnAdd>(&mut world, "add", Id::pair(Entity::WILDCARD, Entity::WILDCARD));
    let e = world.spawn(Rel.pair(obj)).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[Id::pair(pred, obj)])]);
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_any`: an observer of any id hears a tag and a pair,
/// each with its id. Adapted: Flecs' `*` observer (tags only, no pairs) has
/// no counterpart (our global observer is Flecs' `_`); the `(*, *)` observer
/// of the Flecs test is `on_add_pair_wildcard` (a finding, fixed). As in Flecs
/// (which zeroes its probes after creating its observers), the "any"
/// observer hears later observers' entities being made.
#[test]
fn on_add_any() {
    let mut world = log_world();
    let tag = id::<TagA>(&mut world);
    let r = rel::<Rel>(&mut world);
    let obj = world.spawn_empty().id();
    id::<TagB>(&mut world);
    on::<OnAdd, ()>(&mut world, "any");
    let o2 = on::<OnAdd, TagB>(&mut world, "other");
    let seen = take(&mut world);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with(&format!("any {o2:?} [")), "{seen:?}");
    let e1 = world.spawn(TagA).id();
    assert_eq!(take(&mut world), vec![rec("any", e1, &[tag])]);
    let e2 = world.spawn(Rel.pair(obj)).id();
    assert_eq!(take(&mut world), vec![rec("any", e2, &[Id::pair(r, obj)])]);
}

/// Flecs `Trigger_on_remove_wildcard` (and `Observer_on_remove_wildcard_after_edge`):
/// a global `OnRemove` observer hears each tag removed, with that tag.
#[test]
fn on_remove_wildcard() {
    let mut world = log_world();
    let (a, b) = (id::<TagA>(&mut world), id::<TagB>(&mut world));
    world.spawn((TagA, TagB));
    on::<OnRemove, ()>(&mut world, "remove");
    let e = world.spawn((TagA, TagB)).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![rec("remove", e, &[a])]);
    assert!(world.remove_id(e, b));
    assert_eq!(take(&mut world), vec![rec("remove", e, &[b])]);
}

/// Flecs `Trigger_on_remove_pair_pred_wildcard` and
/// `Trigger_un_set_pair_pred_wildcard`: `(*, Obj)` hears the pair removed.
#[test]
fn on_remove_pair_pred_wildcard() {
    let mut world = log_world();
    let (pred_a, pred_b) = (rel::<Rel>(&mut world), rel::<RelB>(&mut world));
    let (obj, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    raw::<OnRemove>(&mut world, "remove", Id::pair(Entity::WILDCARD, obj));
    let e = world.spawn((Rel.pair(obj), RelB.pair(obj), Rel.pair(other))).id();
    assert!(take(&mut world).is_empty());
    world.remove_pair::<Rel>(e, other);
    assert!(take(&mut world).is_empty());
    world.remove_pair::<Rel>(e, obj);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[Id::pair(pred_a, obj)])]);
    world.remove_pair::<RelB>(e, obj);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[Id::pair(pred_b, obj)])]);
}

/// Flecs `Trigger_on_remove_pair_wildcard` and `Trigger_un_set_pair_wildcard`:
/// `(*, *)` hears a pair removed, not a tag.
#[test]
fn on_remove_pair_wildcard() {
    let mut world = log_world();
    let pred = rel::<Rel>(&mut world);
    let obj = world.spawn_empty().id();
    raw::<OnRemove>(&mut world, "remove", Id::pair(Entity::WILDCARD, Entity::WILDCARD));
    let e = world.spawn((TagA, Rel.pair(obj))).id();
    world.entity_mut(e).remove::<TagA>();
    assert!(take(&mut world).is_empty());
    world.remove_pair::<Rel>(e, obj);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[Id::pair(pred, obj)])]);
}

/// Flecs `Trigger_wildcard_pair_w_pred_component` (and the `Observer.c`
/// test of that name): an `OnSet` (ours `OnInsert`) observer of `(Eats, *)`
/// hears each value pair set, reading the value; changing a value through
/// `get_pair_mut` fires nothing.
#[test]
fn wildcard_pair_w_pred_component() {
    let mut world = log_world();
    let eats = rel::<Eats>(&mut world);
    let (obj_a, obj_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_observer(|t: Trigger<OnInsert, Pair<Eats>>, mut log: ResMut<Log>, q: Query<Pair<&Eats>>| {
        let tgt = t.pair_target().unwrap();
        let value = q.iter().find(|(target, _)| *target == tgt).map(|(_, v)| v.amount);
        log.0.push(format!("{} {value:?}", rec("set", t.entity(), t.ids())));
    });
    let e = world.spawn_empty().id();
    world.insert_pair(e, Eats { amount: 10 }, obj_a);
    assert_eq!(take(&mut world), vec![format!("{} Some(10)", rec("set", e, &[Id::pair(eats, obj_a)]))]);
    world.get_pair_mut::<Eats>(e, obj_a).unwrap().amount = 30;
    assert!(take(&mut world).is_empty());
    world.insert_pair(e, Eats { amount: 20 }, obj_b);
    assert_eq!(take(&mut world), vec![format!("{} Some(20)", rec("set", e, &[Id::pair(eats, obj_b)]))]);
    assert_eq!(world.get_pair::<Eats>(e, obj_a), Some(&Eats { amount: 30 }));
}

/// Flecs `Trigger_wildcard_pair_w_obj_component`: an observer of
/// `(*, Position)` hears pairs whose target is the `Position` component.
/// Adapted: Flecs gives such a pair `Position`'s type; ours carries the
/// relationship's (here a tag), so the event is `OnInsert` of a tag pair.
#[test]
fn wildcard_pair_w_obj_component() {
    let mut world = log_world();
    let pos = world.register_component::<Position>();
    let (rel_a, rel_b) = (rel::<Rel>(&mut world), rel::<RelB>(&mut world));
    raw::<OnInsert>(&mut world, "set", Id::pair(Entity::WILDCARD, pos));
    let other = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    world.add_pair::<Rel>(e, pos);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(rel_a, pos)])]);
    world.add_pair::<RelB>(e, other);
    assert!(take(&mut world).is_empty());
    world.add_pair::<RelB>(e, pos);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(rel_b, pos)])]);
}

/// Flecs `Trigger_on_set_wildcard`: a global `OnSet` (ours `OnInsert`)
/// observer hears a set with the component. Adapted: Flecs'
/// `ecs_new_w(Position)` adds without a value (no `OnSet`); ours always
/// writes one, so the entity starts empty.
#[test]
fn on_set_wildcard() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let o = on::<OnInsert, ()>(&mut world, "set");
    let e = world.spawn_empty().id();
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    assert!(world.despawn(o));
}

/// Flecs `Trigger_on_set_pair`: an observer of one value pair `(Eats, Obj)`
/// hears it set, and not `(Eats, Other)`.
#[test]
fn on_set_pair() {
    let mut world = log_world();
    let eats = rel::<Eats>(&mut world);
    let (obj, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    raw::<OnInsert>(&mut world, "set", Id::pair(eats, obj));
    let e = world.spawn_empty().id();
    world.insert_pair(e, Eats { amount: 1 }, other);
    assert!(take(&mut world).is_empty());
    world.insert_pair(e, Eats { amount: 10 }, obj);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(eats, obj)])]);
    world.insert_pair(e, Eats { amount: 20 }, obj);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(eats, obj)])]);
}

/// Flecs `Trigger_on_set_pair_w_obj_wildcard`: `(Eats, *)` hears the set of
/// `(Eats, Obj)`, first and again.
#[test]
fn on_set_pair_w_obj_wildcard() {
    let mut world = log_world();
    let eats = rel::<Eats>(&mut world);
    let obj = world.spawn_empty().id();
    on::<OnInsert, Pair<Eats>>(&mut world, "set");
    let e = world.spawn(Eats { amount: 1 }.pair(obj)).id();
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(eats, obj)])]);
    world.insert_pair(e, Eats { amount: 2 }, obj);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(eats, obj)])]);
    world.entity_mut(e).add_pair::<Rel>(obj);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_pair_pred_wildcard`: `(*, Obj)` hears the set of
/// `(Eats, Obj)`.
#[test]
fn on_set_pair_pred_wildcard() {
    let mut world = log_world();
    let eats = rel::<Eats>(&mut world);
    let (obj, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    raw::<OnInsert>(&mut world, "set", Id::pair(Entity::WILDCARD, obj));
    let e = world.spawn_empty().id();
    world.insert_pair(e, Eats { amount: 10 }, obj);
    assert_eq!(take(&mut world), vec![rec("set", e, &[Id::pair(eats, obj)])]);
    world.insert_pair(e, Eats { amount: 10 }, other);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_un_set_component` and `Trigger_un_set_wildcard`: an
/// `OnRemove` observer of `Position` and a global one both hear the removal
/// and both read the value still.
#[test]
fn un_set_component_and_wildcard() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        log.0.push(format!("{} {}", rec("pos", t.entity(), t.ids()), q.get(t.entity()).unwrap().x));
    });
    world.add_observer(|t: Trigger<OnRemove>, q: Query<&Position>, mut log: ResMut<Log>| {
        log.0.push(format!("{} {}", rec("any", t.entity(), t.ids()), q.get(t.entity()).unwrap().x));
    });
    let e = world.spawn(Position { x: 7.0, y: 0.0 }).id();
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![format!("{} 7", rec("pos", e, &[pos])), format!("{} 7", rec("any", e, &[pos]))]);
}

/// Flecs `Trigger_un_set_pair`: an observer of `(Eats, Obj)` hears the pair
/// removed while its value is still readable.
#[test]
fn un_set_pair() {
    let mut world = log_world();
    let eats = rel::<Eats>(&mut world);
    let obj = world.spawn_empty().id();
    let o = world.add_observer(|_: Trigger<OnRemove, Pair<Eats>>| {}).id();
    world.unregister_observer(o);
    let runner: ObserverRunner = Box::new(move |world: &mut World, info: &TriggerInfo, _| {
        let value = world.get_pair::<Eats>(info.entity, obj).map(|v| v.amount);
        world.resource_mut::<Log>().0.push(format!("{} {value:?}", rec("unset", info.entity, &info.ids)));
    });
    world.register_observer(
        o,
        TypeId::of::<OnRemove>(),
        [Id::pair(eats, obj)].into_iter().collect(),
        core::iter::empty().collect(),
        runner,
    );
    let e = world.spawn(Eats { amount: 5 }.pair(obj)).id();
    assert!(take(&mut world).is_empty());
    world.remove_pair::<Eats>(e, obj);
    assert_eq!(take(&mut world), vec![format!("{} Some(5)", rec("unset", e, &[Id::pair(eats, obj)]))]);
}

// ===== Trigger.c: inheritance (IsA) =====================================================

/// Flecs `Trigger_on_add_superset`: adding an `IsA` base with `TagA` fires
/// `OnAdd TagA` for the instance. Adapted: bases are prefabs (only prefabs
/// pass values on, `IsA`'s rustdoc); Flecs' observer is `up` only and does
/// not hear the instance's own add; ours is `self|up`, so it does.
#[test]
fn on_add_superset() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let base_no_comp = prefab(&mut world);
    let base = world.spawn((Prefab, InhTagA)).id();
    let e = world.instantiate(base_no_comp);
    assert!(take(&mut world).is_empty());
    world.add_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.entity_mut(e).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])], "adapted: self|up hears the override");
}

/// Flecs `Trigger_on_add_superset_2_levels`: the tag comes from the base's
/// base.
#[test]
fn on_add_superset_2_levels() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let base_no_comp = prefab(&mut world);
    let base_of_base = world.spawn((Prefab, InhTagA)).id();
    let base = world.spawn((Prefab, IsA.pair(base_of_base))).id();
    let e = world.instantiate(base_no_comp);
    assert!(take(&mut world).is_empty());
    world.add_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
}

/// Flecs `Trigger_on_remove_superset`: removing the `IsA` base fires
/// `OnRemove` for the instance once.
#[test]
fn on_remove_superset() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnRemove, InhTagA>(&mut world, "remove");
    let base_no_comp = prefab(&mut world);
    let base = world.spawn((Prefab, InhTagA)).id();
    let e = world.instantiate(base_no_comp);
    world.add_pair::<IsA>(e, base);
    assert!(take(&mut world).is_empty());
    world.remove_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    assert!(!world.has::<InhTagA>(e));
}

/// Flecs `Trigger_on_add_self_superset`: a `self|up IsA` observer (ours by
/// default) hears the base's own add, an instance gaining it through `IsA`,
/// the instance's own add over the inherited tag, and nothing when an
/// instance that owns the tag gets the base again. Adapted: the base is a
/// prefab, and observers of components do not hear about prefabs, so the
/// base's own add is checked on a plain entity.
#[test]
fn on_add_self_superset() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let plain = world.spawn(InhTagA).id();
    assert_eq!(take(&mut world), vec![rec("add", plain, &[tag])]);
    let base_no_comp = prefab(&mut world);
    let base = world.spawn((Prefab, InhTagA)).id();
    assert!(take(&mut world).is_empty(), "a prefab is not heard");
    let e = world.instantiate(base_no_comp);
    world.add_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.entity_mut(e).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.remove_pair::<IsA>(e, base);
    world.add_pair::<IsA>(e, base);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_remove_self_superset`: `OnRemove` for losing the base,
/// for removing an own tag, and nothing when an owner loses the base.
#[test]
fn on_remove_self_superset() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnRemove, InhTagA>(&mut world, "remove");
    let base_no_comp = prefab(&mut world);
    let base = world.spawn((Prefab, InhTagA)).id();
    let e = world.instantiate(base_no_comp);
    world.add_pair::<IsA>(e, base);
    world.remove_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    world.entity_mut(e).insert(InhTagA);
    world.entity_mut(e).remove::<InhTagA>();
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    world.entity_mut(e).insert(InhTagA);
    world.add_pair::<IsA>(e, base);
    world.remove_pair::<IsA>(e, base);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_base`: setting `Position` on a prefab fires `OnSet`
/// (ours `OnInsert`) for its instance, not the prefab, each time; setting
/// `Velocity` fires nothing.
#[test]
fn on_set_base() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    on::<OnInsert, InhPos>(&mut world, "set");
    let base = prefab(&mut world);
    let e = world.instantiate(base);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    world.insert(base, InhVel { x: 1.0, y: 2.0 });
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_unset_base`: removing `Position` from a prefab fires
/// `OnRemove` for its instance once; removing it again or `Velocity` fires
/// nothing.
#[test]
fn on_unset_base() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    on::<OnRemove, InhPos>(&mut world, "unset");
    let base = prefab(&mut world);
    let e = world.instantiate(base);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    world.insert(base, InhVel { x: 1.0, y: 2.0 });
    world.entity_mut(base).remove::<InhPos>();
    assert_eq!(take(&mut world), vec![rec("unset", e, &[pos])]);
    world.entity_mut(base).remove::<InhPos>();
    world.entity_mut(base).remove::<InhVel>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_base_2_entities` and `Trigger_on_add_base_2_entities_filter`:
/// adding a tag to a prefab with two instances fires once per instance, in
/// creation order; adding it again, or another tag, fires nothing.
#[test]
fn on_add_base_2_entities() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let base = prefab(&mut world);
    let e1 = world.instantiate(base);
    let e2 = world.instantiate(base);
    world.entity_mut(base).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e1, &[tag]), rec("add", e2, &[tag])]);
    world.entity_mut(base).insert(InhTagA);
    world.entity_mut(base).insert(InhTagB);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_base_w_override`: the instance hears the tag added
/// to its prefab, then its own add of it; once it owns it, the prefab losing
/// and regaining the tag is not heard.
#[test]
fn on_add_base_w_override() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let base = prefab(&mut world);
    let e = world.instantiate(base);
    world.entity_mut(base).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.entity_mut(e).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.entity_mut(base).remove::<InhTagA>();
    world.entity_mut(base).insert(InhTagA);
    world.entity_mut(base).insert(InhTagB);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_base_w_override`: the same with `OnSet` (ours
/// `OnInsert`) of a value.
#[test]
fn on_set_base_w_override() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    on::<OnInsert, InhPos>(&mut world, "set");
    let base = prefab(&mut world);
    let e = world.instantiate(base);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    world.insert(e, InhPos { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    world.insert(base, InhVel { x: 1.0, y: 2.0 });
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_base_w_value_2_entities_instanced`: setting a
/// prefab's value fires for both instances, each reading the new value.
#[test]
fn on_set_base_w_value_2_entities_instanced() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    world.add_observer(|t: Trigger<OnInsert, InhPos>, q: Query<&InhPos>, mut log: ResMut<Log>| {
        log.0.push(format!("{} {}", rec("set", t.entity(), t.ids()), q.get(t.entity()).unwrap().x));
    });
    let base = prefab(&mut world);
    let e1 = world.instantiate(base);
    let e2 = world.instantiate(base);
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    let expect = |x: u32| vec![format!("{} {x}", rec("set", e1, &[pos])), format!("{} {x}", rec("set", e2, &[pos]))];
    assert_eq!(take(&mut world), expect(10));
    world.insert(base, InhPos { x: 30.0, y: 20.0 });
    assert_eq!(take(&mut world), expect(30));
    world.insert(base, InhVel { x: 1.0, y: 2.0 });
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_base_superset_trigger_2_lvls`: a tag added to the
/// base of a base reaches the instance (not the intermediate prefab).
#[test]
fn on_add_base_superset_trigger_2_lvls() {
    let mut world = log_world();
    let tag = id::<InhTagA>(&mut world);
    on::<OnAdd, InhTagA>(&mut world, "add");
    let base_of_base = prefab(&mut world);
    let base = prefab(&mut world);
    world.add_pair::<IsA>(base, base_of_base);
    let e = world.instantiate(base);
    world.entity_mut(base_of_base).insert(InhTagA);
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
    world.entity_mut(base_of_base).insert(InhTagA);
    world.entity_mut(base_of_base).insert(InhTagB);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_entity_source_base_set`: an observer of `Position` on one
/// instance (`src = subj`) does not fire for other instances setting their
/// own. Adapted: Flecs' fixed-source term does not hear the base being set
/// (count 0); ours is an entity observer, which hears its entity inherit
/// (`inherited_observers::an_entity_observer_hears_its_entity_inherit`).
#[test]
fn entity_source_base_set() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    let base = prefab(&mut world);
    let subj = world.instantiate(base);
    let dummy = world.instantiate(base);
    let dummy_no_base = world.spawn_empty().id();
    world
        .entity_mut(subj)
        .observe(|t: Trigger<OnInsert, InhPos>, mut log: ResMut<Log>| log.0.push(rec("set", t.entity(), t.ids())));
    world.insert(dummy, InhPos { x: 10.0, y: 20.0 });
    world.insert(dummy_no_base, InhPos { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    world.insert(base, InhPos { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![rec("set", subj, &[pos])], "adapted: hears its inherited value");
}

/// Flecs `Trigger_on_set_self_trigger_with_add_isa`: a `self` observer
/// does not fire when an entity gets an `IsA` base that has the component.
/// Ours: a plain (non-prefab) base passes nothing on, so nothing fires either.
#[test]
fn on_set_self_trigger_with_add_isa() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    on::<OnInsert, InhPos>(&mut world, "set");
    let base = world.spawn(InhPos { x: 10.0, y: 20.0 }).id();
    assert_eq!(take(&mut world), vec![rec("set", base, &[pos])]);
    let e = world.spawn_empty().id();
    world.add_pair::<IsA>(e, base);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_trigger_superset_wildcard`: an observer of `(Rel, *)`
/// hears an instance gain each pair its base gains. Adapted: ours copies a
/// prefab's tag pairs at instantiation (`World::instantiate`) and does not
/// pass later ones on, so only the instance made after the pair hears it.
#[test]
fn trigger_superset_wildcard() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let (obj_a, obj_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let base = prefab(&mut world);
    let inst = world.instantiate(base);
    on::<OnAdd, Pair<Rel>>(&mut world, "add");
    world.add_pair::<Rel>(base, obj_a);
    let later = world.instantiate(base);
    assert_eq!(take(&mut world), vec![rec("add", later, &[Id::pair(r, obj_a)])]);
    assert!(!world.has_pair::<Rel>(inst, obj_a));
    world.add_pair::<Rel>(base, obj_b);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_self_from_child_of_prefab`: instantiating a prefab
/// with a child prefab that has `Position` fires `OnSet` (ours `OnInsert`)
/// once, for the instance's child, which has `Position`.
#[test]
fn on_set_self_from_child_of_prefab() {
    let mut world = log_world();
    let pos = id::<OvrPos>(&mut world);
    let base = prefab(&mut world);
    let base_child = world.spawn((Prefab, Name::new("Child"), ChildOf.pair(base), OvrPos { x: 10.0, y: 20.0 })).id();
    on::<OnInsert, OvrPos>(&mut world, "set");
    let inst = world.instantiate(base);
    let inst_child = world.lookup_child(inst, "Child").unwrap();
    assert_ne!(inst_child, base_child);
    assert_eq!(take(&mut world), vec![rec("set", inst_child, &[pos])]);
    assert_eq!(world.get::<OvrPos>(inst_child), Some(&OvrPos { x: 10.0, y: 20.0 }));
}

/// Flecs `Trigger_on_set_self_on_instantiate_override` (and
/// `on_set_self_auto_override`): instantiating a prefab whose `Position` is
/// copied fires `OnSet` (ours `OnInsert`) once, for the instance, which owns
/// its copy. Adapted: the base is a prefab.
#[test]
fn on_set_self_on_instantiate_override() {
    let mut world = log_world();
    let pos = id::<OvrPos>(&mut world);
    let base = world.spawn((Prefab, OvrPos { x: 10.0, y: 20.0 })).id();
    on::<OnInsert, OvrPos>(&mut world, "set");
    let inst = world.instantiate(base);
    assert_eq!(take(&mut world), vec![rec("set", inst, &[pos])]);
    world.get_mut::<OvrPos>(inst).unwrap().x = 1.0;
    assert_eq!(world.get::<OvrPos>(base), Some(&OvrPos { x: 10.0, y: 20.0 }));
}

// ===== Trigger.c: removing by wildcard, clear, despawn ===================================

/// Flecs `Trigger_remove_wildcard_1_id`: removing `(Rel, *)` from an entity
/// with `(Rel, ObjA)` fires both an `(Rel, ObjA)` and an `(Rel, *)`
/// observer once, with the concrete pair.
#[test]
fn remove_wildcard_1_id() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let obj_a = world.spawn_empty().id();
    let e = world.spawn(Rel.pair(obj_a)).id();
    raw::<OnRemove>(&mut world, "a", Id::pair(r, obj_a));
    on::<OnRemove, Pair<Rel>>(&mut world, "b");
    assert!(world.remove_id(e, Id::pair(r, Entity::WILDCARD)));
    assert!(!world.has_pair::<Rel>(e, obj_a));
    let p = Id::pair(r, obj_a);
    assert_eq!(take(&mut world), vec![rec("a", e, &[p]), rec("b", e, &[p])]);
}

/// Flecs `Trigger_remove_wildcard_2_ids`: removing `(Rel, *)` from an entity
/// with `(Rel, ObjA)` and `(Rel, ObjB)` fires the `(Rel, *)` observer for
/// each pair (twice, the last with `(Rel, ObjB)`) and each specific
/// observer for its own pair, once.
#[test]
fn remove_wildcard_2_ids() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let (obj_a, obj_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((Rel.pair(obj_a), Rel.pair(obj_b))).id();
    on::<OnRemove, Pair<Rel>>(&mut world, "a");
    raw::<OnRemove>(&mut world, "b", Id::pair(r, obj_a));
    raw::<OnRemove>(&mut world, "c", Id::pair(r, obj_b));
    assert!(world.remove_id(e, Id::pair(r, Entity::WILDCARD)));
    assert!(!world.has_pair::<Rel>(e, obj_a) && !world.has_pair::<Rel>(e, obj_b));
    let (pa, pb) = (Id::pair(r, obj_a), Id::pair(r, obj_b));
    assert_eq!(take(&mut world), vec![rec("a", e, &[pa]), rec("b", e, &[pa]), rec("a", e, &[pb]), rec("c", e, &[pb])]);
}

/// Flecs `Trigger_on_remove_w_clear`: clearing an entity (ours: removing
/// `*`) fires `OnRemove TagA` once. Adapted: Flecs' event id is `TagA`;
/// our `Trigger::ids` lists every id the event is about ("every id the event
/// is about"), here both removed ids.
#[test]
fn on_remove_w_clear() {
    let mut world = log_world();
    let (tag, pos) = (id::<TagA>(&mut world), id::<Position>(&mut world));
    on::<OnRemove, TagA>(&mut world, "remove");
    let e = world.spawn((TagA, Position::default())).id();
    assert!(world.remove_id(e, Entity::WILDCARD.id()));
    let mut both = [tag, pos];
    both.sort();
    assert_eq!(take(&mut world), vec![rec("remove", e, &both)]);
    assert!(world.is_alive(e) && !world.has::<Position>(e));
}

/// Flecs `Trigger_clear_in_trigger`: an `OnAdd TagA` observer clears the
/// entity; it ends with neither tag.
#[test]
fn clear_in_trigger() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| {
        let e = t.entity();
        commands.queue(move |world: &mut World| {
            world.remove_id(e, Entity::WILDCARD.id());
        });
    });
    let e = world.spawn((TagA, TagB)).id();
    assert!(world.is_alive(e));
    assert!(!world.has::<TagA>(e) && !world.has::<TagB>(e));
}

/// Flecs `Trigger_trigger_w_named_entity`: an observer on a named entity
/// fires. Adapted: Flecs' `ecs_lookup` finds the named observer; ours is an
/// internal entity, and internal entities are outside `World::lookup`
/// (`world::names` module docs), so only its `Name` is checked.
#[test]
fn trigger_w_named_entity() {
    let mut world = log_world();
    let tag = id::<TagA>(&mut world);
    let o = on::<OnAdd, TagA>(&mut world, "add");
    world.entity_mut(o).insert(Name::new("MyTrigger"));
    assert_eq!(world.get::<Name>(o).map(|n| n.as_str().to_owned()).as_deref(), Some("MyTrigger"));
    assert_eq!(world.lookup("MyTrigger"), None, "adapted: internal entities are not looked up");
    let e = world.spawn(TagA).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[tag])]);
}

/// Flecs `Trigger_trigger_on_prefab_tag`: an observer of `Prefab` fires once
/// when a prefab is made.
#[test]
fn trigger_on_prefab_tag() {
    let mut world = log_world();
    let p = id::<Prefab>(&mut world);
    on::<OnAdd, Prefab>(&mut world, "add");
    let e = world.spawn(Prefab).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[p])]);
}

/// Flecs `Trigger_on_remove_w_world_fini` and `Monitor_monitor_at_fini`:
/// Flecs runs `OnRemove` for every entity at `ecs_fini`. Adapted: our
/// `World` drop drops values without running hooks or observers (Bevy's
/// behaviour, `ported_flecs_lifecycle::dtor_on_fini`); `clear_entities` is
/// the way to run them, and does so once per entity.
#[test]
fn on_remove_w_world_fini() {
    let mut world = log_world();
    let tag = id::<TagA>(&mut world);
    on::<OnRemove, TagA>(&mut world, "remove");
    let e = world.spawn(TagA).id();
    world.clear_entities();
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    assert!(!world.is_alive(e));
}

// ===== Observer.c: deletes and clears ===================================================

/// Flecs `Observer_unset_on_delete_1`: of three entities with `Position`,
/// deleting one fires `OnRemove` once, for it.
#[test]
fn unset_on_delete_1() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    on::<OnRemove, Position>(&mut world, "unset");
    world.spawn(Position::default());
    world.spawn(Position::default());
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.despawn(e);
    assert_eq!(take(&mut world), vec![rec("unset", e, &[pos])]);
}

/// Flecs `Observer_unset_on_delete_3`: an `OnRemove` observer of three
/// components fires once when an entity with all three is deleted.
#[test]
fn unset_on_delete_3() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, (Position, Velocity, Mass)>, mut log: ResMut<Log>| {
        log.0.push(format!("unset {:?} {}", t.entity(), t.ids().len()));
    });
    for _ in 0..2 {
        let e = world.spawn(Position::default()).id();
        world.insert(e, Velocity::default());
        world.insert(e, Mass(1.0));
    }
    let e3 = world.spawn(Position::default()).id();
    world.insert(e3, Velocity::default());
    world.insert(e3, Mass(1.0));
    assert!(take(&mut world).is_empty());
    world.despawn(e3);
    assert_eq!(take(&mut world), vec![format!("unset {e3:?} 3")]);
}

/// Flecs `Observer_2_terms_on_remove_on_clear`: clearing an entity with both
/// terms fires a two-term `OnRemove` observer once.
#[test]
fn two_terms_on_remove_on_clear() {
    let mut world = log_world();
    on::<OnRemove, (TagA, TagB)>(&mut world, "remove");
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    world.entity_mut(e).insert(TagB);
    assert!(take(&mut world).is_empty());
    world.remove_id(e, Entity::WILDCARD.id());
    let seen = take(&mut world);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with(&format!("remove {e:?}")));
}

/// Flecs `Observer_delete_observed_tgt`: Flecs refuses (aborts) to delete a
/// target an observer names in a pair term. Ours lets the target go; the
/// observer of `(Rel, Tgt)` must then never fire for a pair with another
/// entity that reuses the target's index (pairs drop generations).
#[test]
fn delete_observed_tgt() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let tgt = world.spawn_empty().id();
    raw::<OnAdd>(&mut world, "add", Id::pair(r, tgt));
    let e1 = world.spawn(TagA).id();
    world.add_pair::<Rel>(e1, tgt);
    assert_eq!(take(&mut world), vec![rec("add", e1, &[Id::pair(r, tgt)])]);
    world.despawn(tgt);
    let reused = (0..64).map(|_| world.spawn_empty().id()).find(|n| n.index() == tgt.index());
    let Some(new_tgt) = reused else { return };
    let e2 = world.spawn(TagA).id();
    world.add_pair::<Rel>(e2, new_tgt);
    assert!(take(&mut world).is_empty(), "an observer of a dead target fired for a new entity");
}

// ===== Observer.c / Trigger.c: entity observers vs global ================================

/// Flecs `Trigger_entity_source_1_trigger`'s counterpart for `OnAdd`: an
/// observer of `Position` on `e1` (`src = e1`) hears only `e1`; a global one
/// hears both; they run in registration order.
#[test]
fn entity_observer_vs_global_on_add() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    world
        .entity_mut(e1)
        .observe(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(rec("e1", t.entity(), t.ids())));
    on::<OnAdd, Position>(&mut world, "global");
    world.insert(e2, Position::default());
    assert_eq!(take(&mut world), vec![rec("global", e2, &[pos])]);
    world.insert(e1, Position::default());
    assert_eq!(take(&mut world), vec![rec("e1", e1, &[pos]), rec("global", e1, &[pos])]);
}

/// Flecs `Trigger_entity_source_*` with `OnRemove` on delete: an entity
/// observer hears its entity's components removed by the despawn (once),
/// and is unregistered with it.
#[test]
fn entity_observer_on_remove_w_delete() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    let e = world.spawn(Position::default()).id();
    let other = world.spawn(Position::default()).id();
    world
        .entity_mut(e)
        .observe(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push(rec("remove", t.entity(), t.ids())));
    let before = world.observers().len();
    world.despawn(other);
    assert!(take(&mut world).is_empty());
    world.despawn(e);
    assert_eq!(take(&mut world), vec![rec("remove", e, &[pos])]);
    assert_eq!(world.observers().len(), before - 1);
}

/// An entity observer of `(Rel, *)` (Flecs `src = e` with a wildcard pair
/// term) hears each pair of its entity, not of others.
#[test]
fn entity_observer_pair_wildcard() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let (obj_a, obj_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    world
        .entity_mut(e)
        .observe(|t: Trigger<OnAdd, Pair<Rel>>, mut log: ResMut<Log>| log.0.push(rec("add", t.entity(), t.ids())));
    world.add_pair::<Rel>(other, obj_a);
    world.add_pair::<RelB>(e, obj_a);
    assert!(take(&mut world).is_empty());
    world.add_pair::<Rel>(e, obj_a);
    world.add_pair::<Rel>(e, obj_b);
    assert_eq!(take(&mut world), vec![rec("add", e, &[Id::pair(r, obj_a)]), rec("add", e, &[Id::pair(r, obj_b)])]);
}

/// An entity observer with no component (Flecs `src = e` on `*`) hears
/// every lifecycle change of its entity, in order.
#[test]
fn entity_observer_any_component() {
    let mut world = log_world();
    let (pos, tag) = (id::<Position>(&mut world), id::<TagA>(&mut world));
    let e = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    world.entity_mut(e).observe(|t: Trigger<OnAdd>, mut log: ResMut<Log>| log.0.push(rec("add", t.entity(), t.ids())));
    world
        .entity_mut(e)
        .observe(|t: Trigger<OnRemove>, mut log: ResMut<Log>| log.0.push(rec("remove", t.entity(), t.ids())));
    world.insert(other, Position::default());
    assert!(take(&mut world).is_empty());
    world.insert(e, Position::default());
    world.entity_mut(e).insert(TagA);
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos]), rec("add", e, &[tag]), rec("remove", e, &[pos])]);
}

/// Deferred mode (Flecs `ecs_defer_begin/end` around adds): commands of a
/// system add, set and remove in order; observers hear each when applied,
/// in command order, and none while the system runs.
#[test]
fn deferred_add_set_remove_in_system() {
    let mut world = log_world();
    let (pos, tag) = (id::<Position>(&mut world), id::<TagA>(&mut world));
    on::<OnAdd, Position>(&mut world, "add");
    on::<OnInsert, Position>(&mut world, "set");
    on::<OnRemove, TagA>(&mut world, "remove");
    let e = world.spawn(TagA).id();
    take(&mut world);
    #[derive(Resource)]
    struct Target(Entity);
    world.insert_resource(Target(e));
    fn sys(mut commands: Commands, target: Res<Target>, log: Res<Log>) {
        assert!(log.0.is_empty());
        commands.entity(target.0).insert(Position::default()).insert(Position { x: 1.0, y: 1.0 }).remove::<TagA>();
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(sys);
    schedule.run(&mut world);
    assert_eq!(
        take(&mut world),
        vec![rec("add", e, &[pos]), rec("set", e, &[pos]), rec("set", e, &[pos]), rec("remove", e, &[tag])]
    );
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 1.0 }));
}

/// Deferred despawn (Flecs `ecs_delete` in deferred mode): the `OnRemove`
/// observers run when the command applies, reading the values.
#[test]
fn deferred_delete_in_system() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?} {}", t.entity(), q.get(t.entity()).unwrap().x));
    });
    let es: Vec<Entity> = (0..3).map(|i| world.spawn(Position { x: i as f32, y: 0.0 }).id()).collect();
    fn sys(mut commands: Commands, q: Query<(Entity, &Position)>) {
        for (e, p) in q.iter() {
            if p.x >= 1.0 {
                commands.entity(e).despawn();
            }
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(sys);
    schedule.run(&mut world);
    let mut seen = take(&mut world);
    seen.sort();
    assert_eq!(seen, vec![format!("remove {:?} 1", es[1]), format!("remove {:?} 2", es[2])]);
    assert!(world.is_alive(es[0]) && !world.is_alive(es[1]) && !world.is_alive(es[2]));
}

// ===== ObserverOnSet.c ==================================================================

/// Flecs `ObserverOnSet_set_1_of_2_1_from_base`: `OnSet Position(self|up),
/// Velocity` fires when the instance (inheriting `Position`) sets `Velocity`.
/// Adapted: adding without a value does not exist here, so the add-then-set
/// is one insert (one call).
#[test]
fn set_1_of_2_1_from_base() {
    let mut world = log_world();
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 })).id();
    world.add_observer(|t: Trigger<OnInsert, (InhPos, Velocity)>, mut log: ResMut<Log>| {
        log.0.push(format!("set {:?}", t.entity()));
    });
    let e = world.instantiate(base);
    assert!(take(&mut world).is_empty());
    world.insert(e, Velocity { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![format!("set {e:?}")]);
}

/// Flecs `ObserverOnSet_add_base_to_2_overridden`: an entity that owns both
/// components gets a base with both: no `OnSet` (ours `OnInsert`).
#[test]
fn add_base_to_2_overridden() {
    let mut world = log_world();
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 }, InhVel { x: 1.0, y: 2.0 })).id();
    on::<OnInsert, (InhPos, InhVel)>(&mut world, "set");
    let e = world.spawn(InhPos { x: 0.0, y: 0.0 }).id();
    world.insert(e, InhVel { x: 0.0, y: 0.0 });
    take(&mut world);
    world.add_pair::<IsA>(e, base);
    assert!(take(&mut world).is_empty());
}

/// Flecs `ObserverOnSet_add_base_to_1_of_2_overridden`: an `OnSet Position`
/// observer hears an entity that owns `Velocity` get a base with both (it
/// gains `Position`); one that owns `Position` hears nothing.
#[test]
fn add_base_to_1_of_2_overridden() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 }, InhVel { x: 1.0, y: 2.0 })).id();
    on::<OnInsert, InhPos>(&mut world, "set");
    let e = world.spawn(InhVel { x: 0.0, y: 0.0 }).id();
    assert!(take(&mut world).is_empty());
    world.add_pair::<IsA>(e, base);
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    let e2 = world.spawn(InhPos { x: 0.0, y: 0.0 }).id();
    assert_eq!(take(&mut world), vec![rec("set", e2, &[pos])]);
    world.add_pair::<IsA>(e2, base);
    assert!(take(&mut world).is_empty());
}

/// Flecs `ObserverOnSet_on_set_after_remove_override_isa_before_add`:
/// removing an own value that hid an inherited one fires `OnSet` (ours
/// `OnInsert`) for the uncovered value.
#[test]
fn on_set_after_remove_override_isa_before_add() {
    let mut world = log_world();
    let pos = id::<InhPos>(&mut world);
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 })).id();
    let e = world.instantiate(base);
    world.insert(e, InhPos { x: 5.0, y: 5.0 });
    on::<OnInsert, InhPos>(&mut world, "set");
    world.entity_mut(e).remove::<InhPos>();
    assert_eq!(take(&mut world), vec![rec("set", e, &[pos])]);
    assert_eq!(world.get::<InhPos>(e), Some(&InhPos { x: 1.0, y: 2.0 }));
}

/// Flecs `ObserverOnSet_on_set_w_override_after_clear`: clearing an entity
/// that overrides an inherited value (it loses the base too) fires no `OnSet`.
#[test]
fn on_set_w_override_after_clear() {
    let mut world = log_world();
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 })).id();
    let e = world.instantiate(base);
    world.insert(e, InhPos { x: 5.0, y: 5.0 });
    on::<OnInsert, InhPos>(&mut world, "set");
    world.remove_id(e, Entity::WILDCARD.id());
    assert!(take(&mut world).is_empty());
    assert!(!world.has::<InhPos>(e));
}

/// Flecs `ObserverOnSet_on_set_w_override_after_delete_w_ecs_init`: deleting
/// such an entity fires no `OnSet`.
#[test]
fn on_set_w_override_after_delete_w_ecs_init() {
    let mut world = log_world();
    let base = world.spawn((Prefab, InhPos { x: 1.0, y: 2.0 })).id();
    let e = world.instantiate(base);
    world.insert(e, InhPos { x: 5.0, y: 5.0 });
    on::<OnInsert, InhPos>(&mut world, "set");
    world.despawn(e);
    assert!(take(&mut world).is_empty());
}

// ===== Monitor.c ========================================================================
// Flecs' `EcsMonitor` fires `OnAdd` when an entity starts matching all terms
// and `OnRemove` when it stops. Ours: two multi-term observers, `OnAdd` and
// `OnRemove` of the same components (they fire only when the entity has all
// of them, `world::observers`).

/// Registers a monitor of `B`: "match" / "unmatch" lines.
fn monitor<B: Observed>(world: &mut World) {
    on::<OnAdd, B>(world, "match");
    on::<OnRemove, B>(world, "unmatch");
}

/// Flecs `Monitor_1_comp`: a one-term monitor fires on the add, not on a
/// later add of another component.
#[test]
fn monitor_1_comp() {
    let mut world = log_world();
    let pos = id::<Position>(&mut world);
    monitor::<Position>(&mut world);
    let e = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![rec("match", e, &[pos])]);
    world.insert(e, Velocity::default());
    assert!(take(&mut world).is_empty());
}

/// Flecs `Monitor_2_comps`: `Position, Velocity` matches when `Velocity`
/// arrives, unmatches when `Position` goes, matches again when it returns.
#[test]
fn monitor_2_comps() {
    let mut world = log_world();
    let (pos, vel) = (id::<Position>(&mut world), id::<Velocity>(&mut world));
    monitor::<(Position, Velocity)>(&mut world);
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.insert(e, Velocity::default());
    assert_eq!(take(&mut world), vec![rec("match", e, &[vel])]);
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[pos])]);
    world.insert(e, Position::default());
    assert_eq!(take(&mut world), vec![rec("match", e, &[pos])]);
}

/// Flecs `Monitor_1_comp_prefab_new` and `Monitor_1_comp_prefab_add`: a
/// prefab with `Position` does not match.
#[test]
fn monitor_1_comp_prefab() {
    let mut world = log_world();
    monitor::<Position>(&mut world);
    let p1 = world.spawn((Prefab, Position::default())).id();
    world.insert(p1, Velocity::default());
    let p2 = world.spawn(Prefab).id();
    world.insert(p2, Position::default());
    world.insert(p2, Velocity::default());
    assert!(take(&mut world).is_empty());
}

/// Flecs `Monitor_monitor_w_and`: the first unmatch fires, the second does
/// not; the first match after that fires.
#[test]
fn monitor_w_and() {
    let mut world = log_world();
    let (pos, vel) = (id::<Position>(&mut world), id::<Velocity>(&mut world));
    monitor::<(Position, Velocity)>(&mut world);
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.insert(e, Velocity::default());
    assert_eq!(take(&mut world), vec![rec("match", e, &[vel])]);
    world.entity_mut(e).remove::<Velocity>();
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[vel])]);
    world.entity_mut(e).remove::<Position>();
    assert!(take(&mut world).is_empty());
    world.insert(e, Velocity::default());
    assert!(take(&mut world).is_empty());
    world.insert(e, Position::default());
    assert_eq!(take(&mut world), vec![rec("match", e, &[pos])]);
}

/// Flecs `Monitor_monitor_w_superset`: `Position, Velocity(up IsA)`: the
/// first base with `Velocity` matches, a second does not, removing the
/// second does not unmatch, removing the first does; then losing `Position`
/// fires nothing. Adapted: bases are prefabs.
#[test]
fn monitor_w_superset() {
    let mut world = log_world();
    let vel = id::<InhVel>(&mut world);
    monitor::<(Position, InhVel)>(&mut world);
    let base_1 = world.spawn((Prefab, InhVel { x: 1.0, y: 0.0 })).id();
    let base_2 = world.spawn((Prefab, InhVel { x: 2.0, y: 0.0 })).id();
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.add_pair::<IsA>(e, base_1);
    assert_eq!(take(&mut world), vec![rec("match", e, &[vel])]);
    world.add_pair::<IsA>(e, base_2);
    assert!(take(&mut world).is_empty());
    world.remove_pair::<IsA>(e, base_2);
    assert!(take(&mut world).is_empty());
    world.remove_pair::<IsA>(e, base_1);
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[vel])]);
    world.entity_mut(e).remove::<Position>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Monitor_monitor_w_self_superset`: `Velocity(self|up IsA)`.
/// Adapted: our observers are not a monitor, so owning `Velocity` while
/// inheriting it is heard as the inherited value's loss and the own value's
/// add (documented in `world::inherited_events`; Flecs' "third match" is
/// silent).
#[test]
fn monitor_w_self_superset() {
    let mut world = log_world();
    let (pos, vel) = (id::<Position>(&mut world), id::<InhVel>(&mut world));
    monitor::<(Position, InhVel)>(&mut world);
    let base_1 = world.spawn((Prefab, InhVel { x: 1.0, y: 0.0 })).id();
    let base_2 = world.spawn((Prefab, InhVel { x: 2.0, y: 0.0 })).id();
    let e = world.spawn(Position::default()).id();
    world.add_pair::<IsA>(e, base_1);
    assert_eq!(take(&mut world), vec![rec("match", e, &[vel])]);
    world.add_pair::<IsA>(e, base_2);
    assert!(take(&mut world).is_empty());
    world.insert(e, InhVel { x: 3.0, y: 0.0 });
    // Adapted: an own value over an inherited one reports the inherited
    // one's loss, then its own add (`world::inherited_events`).
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[vel]), rec("match", e, &[vel])]);
    world.remove_pair::<IsA>(e, base_2);
    world.remove_pair::<IsA>(e, base_1);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<InhVel>();
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[vel])]);
    world.insert(e, InhVel { x: 3.0, y: 0.0 });
    assert_eq!(take(&mut world), vec![rec("match", e, &[vel])]);
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[pos])]);
}

/// Flecs `Monitor_monitor_w_wildcard`: `Position, (Eats, *)` (a tuple of a
/// component and `Pair<R>` is no `Observed` type, so the terms are given as
/// ids to `World::register_observer`). Adapted as
/// above: a second `(Rel, *)` pair is an add our `OnAdd` observer hears, and
/// removing one of two pairs is heard as `OnRemove` of that pair (Flecs'
/// monitor fires only when the last goes).
#[test]
fn monitor_w_wildcard() {
    let mut world = log_world();
    let (pos, r) = (id::<Position>(&mut world), rel::<Rel>(&mut world));
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let terms = [pos, Id::pair(r, Entity::WILDCARD)];
    raw_terms::<OnAdd>(&mut world, "match", &terms);
    raw_terms::<OnRemove>(&mut world, "unmatch", &terms);
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.add_pair::<Rel>(e, apples);
    assert_eq!(take(&mut world), vec![rec("match", e, &[Id::pair(r, apples)])]);
    world.add_pair::<Rel>(e, pears);
    assert_eq!(take(&mut world), vec![rec("match", e, &[Id::pair(r, pears)])], "adapted: not a monitor");
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[pos])]);
    world.insert(e, Position::default());
    assert_eq!(take(&mut world), vec![rec("match", e, &[pos])]);
    world.remove_pair::<Rel>(e, apples);
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[Id::pair(r, apples)])], "adapted: not a monitor");
    world.remove_pair::<Rel>(e, pears);
    assert_eq!(take(&mut world), vec![rec("unmatch", e, &[Id::pair(r, pears)])]);
}

/// Flecs `Monitor_monitor_component`'s value part: the monitor reads the
/// component on match and on unmatch (before it is removed). Adapted: Flecs'
/// second term is `!Tag` (no `Not` terms here), so ours requires `TagA`.
#[test]
fn monitor_component_value() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, (Position, TagA)>, q: Query<&Position>, mut log: ResMut<Log>| {
        log.0.push(format!("match {}", q.get(t.entity()).unwrap().x));
    });
    world.add_observer(|t: Trigger<OnRemove, (Position, TagA)>, q: Query<&Position>, mut log: ResMut<Log>| {
        log.0.push(format!("unmatch {}", q.get(t.entity()).unwrap().x));
    });
    let e = world.spawn(Position { x: 3.0, y: 0.0 }).id();
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec!["match 3"]);
    world.despawn(e);
    assert_eq!(take(&mut world), vec!["unmatch 3"]);
}

// ===== Sparse.c: observers of sparse components ==========================================

/// Flecs' sparse `Position` (`EcsSparse`): never moves the entity.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SPos {
    x: f32,
    y: f32,
}

/// A second sparse component.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SVel {
    x: f32,
    y: f32,
}

/// A sparse tag.
#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct STag;

/// A sparse tag (Flecs' `DontFragB`).
#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct STagB;

/// Flecs `Sparse_on_add_observer` and `Sparse_on_add_observer_tag`: `OnAdd`
/// of a sparse component or tag fires once, for the entity, with the id.
#[test]
fn sparse_on_add_observer() {
    let mut world = log_world();
    let (pos, tag) = (id::<SPos>(&mut world), id::<STag>(&mut world));
    on::<OnAdd, SPos>(&mut world, "add");
    on::<OnAdd, STag>(&mut world, "tag");
    let e = world.spawn(SPos { x: 10.0, y: 20.0 }).id();
    assert_eq!(take(&mut world), vec![rec("add", e, &[pos])]);
    world.entity_mut(e).insert(STag);
    assert_eq!(take(&mut world), vec![rec("tag", e, &[tag])]);
    world.insert(e, SPos { x: 1.0, y: 2.0 });
    world.entity_mut(e).insert(STag);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Sparse_on_set_observer_set` and `Sparse_on_set_observer_insert`:
/// `OnSet` (ours `OnInsert`) of a sparse component on each set, reading the
/// new value.
#[test]
fn sparse_on_set_observer_set() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, SPos>, q: Query<&SPos>, mut log: ResMut<Log>| {
        log.0.push(format!("set {:?} {}", t.entity(), q.get(t.entity()).unwrap().x));
    });
    let e = world.spawn(SPos { x: 10.0, y: 20.0 }).id();
    world.insert(e, SPos { x: 30.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![format!("set {e:?} 10"), format!("set {e:?} 30")]);
}

/// Flecs `Sparse_on_remove_observer_remove`, `_delete` and `_clear`:
/// `OnRemove` of a sparse component fires once for a remove, a delete and a
/// clear (ours: removing `*`), with the value still readable.
#[test]
fn sparse_on_remove_observer_remove_delete_clear() {
    let mut world = log_world();
    let pos = id::<SPos>(&mut world);
    world.add_observer(|t: Trigger<OnRemove, SPos>, q: Query<&SPos>, mut log: ResMut<Log>| {
        let x = q.get(t.entity()).map(|p| p.x).ok();
        log.0.push(format!("{} {x:?}", rec("remove", t.entity(), t.ids())));
    });
    let e1 = world.spawn(SPos { x: 1.0, y: 0.0 }).id();
    let e2 = world.spawn(SPos { x: 2.0, y: 0.0 }).id();
    let e3 = world.spawn(SPos { x: 3.0, y: 0.0 }).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e1).remove::<SPos>();
    assert_eq!(take(&mut world), vec![format!("{} Some(1.0)", rec("remove", e1, &[pos]))]);
    world.despawn(e2);
    assert_eq!(take(&mut world), vec![format!("{} Some(2.0)", rec("remove", e2, &[pos]))]);
    assert!(world.remove_id(e3, Entity::WILDCARD.id()));
    assert_eq!(take(&mut world), vec![format!("{} Some(3.0)", rec("remove", e3, &[pos]))]);
    assert!(!world.has::<SPos>(e3) && world.is_alive(e3));
}

/// Flecs `Sparse_on_remove_observer_tag`: `OnRemove` of a sparse tag.
#[test]
fn sparse_on_remove_observer_tag() {
    let mut world = log_world();
    let tag = id::<STag>(&mut world);
    on::<OnRemove, STag>(&mut world, "remove");
    let e = world.spawn(STag).id();
    world.entity_mut(e).remove::<STag>();
    assert_eq!(take(&mut world), vec![rec("remove", e, &[tag])]);
    world.entity_mut(e).remove::<STag>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Sparse_on_add_observer_2_terms`: an `OnAdd` observer of two sparse
/// components fires once when an entity is made with both.
#[test]
fn sparse_on_add_observer_2_terms() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, (SPos, SVel)>, q: Query<(&SPos, &SVel)>, mut log: ResMut<Log>| {
        let (p, v) = q.get(t.entity()).unwrap();
        log.0.push(format!("add {:?} {} {}", t.entity(), p.x, v.x));
    });
    let e = world.spawn((SPos { x: 10.0, y: 20.0 }, SVel { x: 1.0, y: 2.0 })).id();
    assert_eq!(take(&mut world), vec![format!("add {e:?} 10 1")]);
}

/// Flecs `Sparse_on_remove_observer_2_terms`: an `OnRemove` observer of two
/// sparse components fires once when one of them goes.
#[test]
fn sparse_on_remove_observer_2_terms() {
    let mut world = log_world();
    on::<OnRemove, (SPos, SVel)>(&mut world, "remove");
    let pos = id::<SPos>(&mut world);
    let e = world.spawn_empty().id();
    world.insert(e, SPos { x: 10.0, y: 20.0 });
    world.insert(e, SVel { x: 1.0, y: 2.0 });
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<SPos>();
    assert_eq!(take(&mut world), vec![rec("remove", e, &[pos])]);
    world.entity_mut(e).remove::<SVel>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Sparse_defer_remove_two_sparse_w_observer` (and
/// `defer_add_two_sparse_w_observer`): two sparse tags added, then removed,
/// in deferred mode; each observer fires once per change.
#[test]
fn sparse_defer_add_remove_two_w_observer() {
    let mut world = log_world();
    let (a, b) = (id::<STag>(&mut world), id::<STagB>(&mut world));
    on::<OnAdd, STag>(&mut world, "add_a");
    on::<OnAdd, STagB>(&mut world, "add_b");
    on::<OnRemove, STag>(&mut world, "remove_a");
    on::<OnRemove, STagB>(&mut world, "remove_b");
    let e = world.spawn_empty().id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert(STag).insert(STagB);
    });
    assert_eq!(take(&mut world), vec![rec("add_a", e, &[a]), rec("add_b", e, &[b])]);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).remove::<STag>().remove::<STagB>();
    });
    assert_eq!(take(&mut world), vec![rec("remove_a", e, &[a]), rec("remove_b", e, &[b])]);
}

/// Flecs `Sparse_check_sparse_in_regular_observer` and
/// `Sparse_check_regular_in_sparse_observer`: while an entity with a sparse
/// and a table component is deleted, each `OnRemove` observer still sees the
/// other component.
#[test]
fn sparse_check_sparse_and_regular_in_on_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Velocity>, q: Query<Option<&SPos>>, mut log: ResMut<Log>| {
        log.0.push(format!("vel sees sparse {:?}", q.get(t.entity()).unwrap().map(|p| p.x)));
    });
    world.add_observer(|t: Trigger<OnRemove, SPos>, q: Query<Option<&Velocity>>, mut log: ResMut<Log>| {
        log.0.push(format!("sparse sees vel {:?}", q.get(t.entity()).unwrap().map(|v| v.x)));
    });
    let e = world.spawn(SPos { x: 10.0, y: 20.0 }).id();
    world.insert(e, Velocity { x: 3.0, y: 0.0 });
    assert!(take(&mut world).is_empty());
    world.despawn(e);
    let mut seen = take(&mut world);
    seen.sort();
    assert_eq!(seen, vec!["sparse sees vel Some(3.0)", "vel sees sparse Some(10.0)"]);
}

/// Flecs `Sparse_on_set_observer_w_override`: an instance of a prefab with a
/// sparse component hears `OnSet` (ours `OnInsert`) once and reads the
/// prefab's value. Adapted: ours does not report inherited sparse values
/// (`world::inherited_events`: "Sparse components ... are not reported"), so
/// the component is copied (`on_instantiate = "override"`), as Flecs' test
/// name says.
#[test]
fn sparse_on_set_observer_w_override() {
    #[derive(Component, Clone, Copy, Debug, PartialEq)]
    #[component(storage = "sparse", on_instantiate = "override")]
    struct SOvr {
        x: f32,
        y: f32,
    }
    let mut world = log_world();
    let ovr = id::<SOvr>(&mut world);
    on::<OnInsert, SOvr>(&mut world, "set");
    let p = world.spawn(Prefab).id();
    world.insert(p, SOvr { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    let i = world.instantiate(p);
    assert_eq!(world.get::<SOvr>(i), Some(&SOvr { x: 10.0, y: 20.0 }));
    assert_eq!(take(&mut world), vec![rec("set", i, &[ovr])]);
}

/// Flecs `Sparse_remove_pair_wildcard_tgt_w_observer`: removing `(Rel, *)`
/// fires the observer of each removed `(Rel, Tgt)` once. Ours: with table
/// pairs (relationships have no sparse storage).
#[test]
fn remove_pair_wildcard_tgt_w_observer() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let [tgt_a, tgt_b, tgt_c] = [(); 3].map(|()| world.spawn_empty().id());
    raw::<OnRemove>(&mut world, "a", Id::pair(r, tgt_a));
    raw::<OnRemove>(&mut world, "b", Id::pair(r, tgt_b));
    raw::<OnRemove>(&mut world, "c", Id::pair(r, tgt_c));
    let e1 = world.spawn((Rel.pair(tgt_a), Rel.pair(tgt_b))).id();
    let e2 = world.spawn((Rel.pair(tgt_a), Rel.pair(tgt_c))).id();
    assert!(take(&mut world).is_empty());
    world.remove_id(e1, Id::pair(r, Entity::WILDCARD));
    assert_eq!(take(&mut world), vec![rec("a", e1, &[Id::pair(r, tgt_a)]), rec("b", e1, &[Id::pair(r, tgt_b)])]);
    world.remove_id(e2, Id::pair(r, Entity::WILDCARD));
    assert_eq!(take(&mut world), vec![rec("a", e2, &[Id::pair(r, tgt_a)]), rec("c", e2, &[Id::pair(r, tgt_c)])]);
}

/// Flecs `Sparse_create_entity_in_on_remove`: an `OnRemove (R, *)` observer
/// creates an entity while a parent, a child that is the target and a child
/// holding `(R, target)` are deleted; all three die, the new one lives.
#[test]
fn create_entity_in_on_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Rel>>, mut commands: Commands, mut log: ResMut<Log>| {
        let made = commands.spawn(TagB).id();
        log.0.push(format!("{:?} {made:?}", t.entity()));
    });
    let parent = world.spawn_empty().id();
    let target = world.spawn(ChildOf.pair(parent)).id();
    let subject = world.spawn(ChildOf.pair(parent)).id();
    world.add_pair::<Rel>(subject, target);
    world.despawn(parent);
    assert!(!world.is_alive(parent) && !world.is_alive(subject) && !world.is_alive(target));
    let seen = take(&mut world);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with(&format!("{subject:?} ")), "{seen:?}");
    let mut tagged = world.query_filtered::<Entity, With<TagB>>();
    assert_eq!(tagged.iter(&world).count(), 1);
}

/// Flecs `Trigger_on_remove_pair_pred_wildcard` and `_obj_wildcard` through
/// cleanup: deleting a target removes `(R, tgt)` from its holders (API.md:
/// "pairs that target a dead entity are removed"), which `(*, tgt)` and
/// `(R, *)` observers hear once per holder, before the target is gone.
#[test]
fn on_remove_pair_wildcards_on_delete_target() {
    let mut world = log_world();
    let r = rel::<Rel>(&mut world);
    let tgt = world.spawn_empty().id();
    raw::<OnRemove>(&mut world, "pred_wc", Id::pair(Entity::WILDCARD, tgt));
    on::<OnRemove, Pair<Rel>>(&mut world, "obj_wc");
    let e1 = world.spawn((TagA, Rel.pair(tgt))).id();
    let e2 = world.spawn(Rel.pair(tgt)).id();
    assert!(world.despawn(tgt));
    let p = Id::pair(r, tgt);
    let mut seen = take(&mut world);
    seen.sort();
    let mut expected =
        vec![rec("pred_wc", e1, &[p]), rec("obj_wc", e1, &[p]), rec("pred_wc", e2, &[p]), rec("obj_wc", e2, &[p])];
    expected.sort();
    assert_eq!(seen, expected);
    assert!(world.is_alive(e1) && world.is_alive(e2) && !world.has_pair::<Rel>(e1, tgt));
}
