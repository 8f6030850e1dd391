//! Review of session 19's library changes (07a4a25, 1e2a54b):
//!
//! * observers registered with the plain wildcard `*` (or `_`, normalized to
//!   `*`) now hear every plain id's lifecycle events, alone or next to other
//!   terms (Flecs `Observer_2_terms_wildcard_batched`);
//! * `System::invalid_param_last_run`: a pipe whose second half fails its late
//!   validation (missing resource) makes `World::run_system` return
//!   `RunSystemError::InvalidParam`, other panics propagate;
//! * bundles with several `ChildOf` pairs add only the last one.
//!
//! Findings: the last two are fixed (the tests pass: `_` alone hears every
//! id; a pipe asks only a half that ran and panicked this time); the first is
//! left (ignored): a bundle is one lifecycle event here and every observer
//! runs once per event, `*` ones included. As found:
//! * `star_observer_runs_once_per_id_of_a_bundle`: a `*` observer runs once
//!   for a 3-component bundle, with all three ids; Flecs invokes a `*`
//!   observer once per id (flecs_emit looks up observers id by id).
//! * `any_alone_hears_pairs_as_flecs`: `_` alone is normalized to `*` and so
//!   never hears pairs; Flecs' `_` alone hears every id, pairs included
//!   (`Observer_on_add_any_before_edge`).
//! * `stale_inner_invalid_flag_does_not_hide_a_first_half_panic` (and its
//!   exclusive twin): `PipeSystem::invalid_param_last_run` ORs the halves'
//!   flags, and a nested pipe that is a second half keeps its `invalid` from
//!   the previous run when the outer first half panics before it runs, so a
//!   user panic becomes `Err(InvalidParam)`.

use core::any::TypeId;
use std::sync::{Arc, Mutex};

use ecs::prelude::*;
use ecs::world::{ObserverRunner, TriggerInfo};
use ecs_tests::panic_message;

#[derive(Component, Debug)]
struct A;
#[derive(Component, Debug)]
struct B;
#[derive(Component, Debug)]
struct C;
#[derive(Component, Debug)]
struct Foo;
#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "inherit")]
struct Inh(u32);
#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Ovr(u32);
#[derive(Relationship)]
struct Likes;
#[derive(Event)]
struct Ping;

#[derive(Resource)]
struct Missing;
#[derive(Resource, Default)]
struct Counter(u32);
#[derive(Resource, Default)]
struct Boom(bool);
#[derive(Component)]
struct Marker;

type Log = Arc<Mutex<Vec<(Entity, Vec<Id>)>>>;

/// A world with every fixture registered (a `*` observer also hears the
/// component entities registration creates, and new observer entities, as a
/// global observer does: registered up front so tests see only their events).
fn world() -> World {
    let mut world = World::new();
    id::<A>(&mut world);
    id::<B>(&mut world);
    id::<C>(&mut world);
    id::<Foo>(&mut world);
    id::<Inh>(&mut world);
    id::<Ovr>(&mut world);
    id::<Marker>(&mut world);
    world.register_component::<Likes>();
    world.register_component::<ChildOf>();
    world
}

fn id<T: Component>(world: &mut World) -> Id {
    world.register_component::<T>().id()
}

/// A raw observer of event `E` watching `ids`; logs (entity, ids) per run.
fn raw<E: Event>(world: &mut World, ids: &[Id]) -> (Entity, Log) {
    #[derive(Event)]
    struct Never;
    let o = world.add_observer(|_: Trigger<Never>| {}).id();
    assert!(world.unregister_observer(o));
    let log: Log = Arc::default();
    let sink = log.clone();
    let runner: ObserverRunner = Box::new(move |_: &mut World, info: &TriggerInfo, _| {
        sink.lock().unwrap().push((info.entity, info.ids.to_vec()));
    });
    world.register_observer(o, TypeId::of::<E>(), ids.iter().copied().collect(), core::iter::empty().collect(), runner);
    (o, log)
}

fn take(log: &Log) -> Vec<(Entity, Vec<Id>)> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// Every id heard, flattened, in order.
fn heard(log: &Log) -> Vec<Id> {
    take(log).into_iter().flat_map(|(_, ids)| ids).collect()
}

// ----- 1. `*` observers ---------------------------------------------------------------

#[test]
fn star_observer_hears_each_id_of_a_bundle_exactly_once() {
    let mut world = world();
    let (a, b, c) = (id::<A>(&mut world), id::<B>(&mut world), id::<C>(&mut world));
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let e = world.spawn((A, B, C)).id();
    let runs = take(&log);
    assert!(runs.iter().all(|(entity, _)| *entity == e), "{runs:?}");
    let mut ids: Vec<Id> = runs.into_iter().flat_map(|(_, ids)| ids).collect();
    ids.sort();
    let mut want = vec![a, b, c];
    want.sort();
    assert_eq!(ids, want);
}

#[test]
#[ignore = "finding (left, by design: one lifecycle event per bundle, observers run once per event): a `*` observer runs once for a spawned bundle of 3 components (TriggerInfo ids [A, B, C]); Flecs runs a `*` observer once per id"]
fn star_observer_runs_once_per_id_of_a_bundle() {
    let mut world = world();
    let (a, b, c) = (id::<A>(&mut world), id::<B>(&mut world), id::<C>(&mut world));
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let e = world.spawn((A, B, C)).id();
    // Flecs' flecs_emit looks up the observers of each id of the event in turn
    // (flecs_event_observers_get: the id, then `*` for a plain id): a `*`
    // observer is invoked once per id, each time with that one id.
    assert_eq!(take(&log), vec![(e, vec![a]), (e, vec![b]), (e, vec![c])]);
}

#[test]
fn star_observer_does_not_hear_pairs() {
    let mut world = world();
    let bob = world.spawn_empty().id();
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let (_, rlog) = raw::<OnRemove>(&mut world, &[Entity::WILDCARD.id()]);
    take(&log);
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<Likes>(bob);
    world.entity_mut(e).add_pair::<ChildOf>(bob);
    assert!(take(&log).is_empty(), "`*` alone matches no pair (Flecs)");
    world.entity_mut(e).remove_pair::<Likes>(bob);
    assert!(take(&rlog).is_empty());
    // A plain id next to it is heard.
    let a = id::<A>(&mut world);
    world.entity_mut(e).insert(A);
    assert_eq!(heard(&log), vec![a]);
}

#[test]
fn any_alone_hears_pairs_as_flecs() {
    let mut world = world();
    let bob = world.spawn_empty().id();
    let likes = world.register_component::<Likes>();
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::ANY.id()]);
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<Likes>(bob);
    // Flecs `Observer_on_add_any_before_edge`: `_` alone hears (RelA, Tgt).
    assert_eq!(heard(&log), vec![Id::pair(likes, bob)]);
}

#[test]
fn any_alone_hears_plain_ids() {
    let mut world = world();
    let a = id::<A>(&mut world);
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::ANY.id()]);
    let (_, rlog) = raw::<OnRemove>(&mut world, &[Entity::ANY.id()]);
    take(&log);
    let e = world.spawn(A).id();
    assert_eq!(take(&log), vec![(e, vec![a])]);
    world.entity_mut(e).remove::<A>();
    assert_eq!(take(&rlog), vec![(e, vec![a])]);
}

#[test]
fn star_next_to_foo_hears_ids_added_only_where_foo_is() {
    let mut world = world();
    let (a, b, foo) = (id::<A>(&mut world), id::<B>(&mut world), id::<Foo>(&mut world));
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id(), foo]);
    let without = world.spawn_empty().id();
    world.entity_mut(without).insert(A);
    assert!(take(&log).is_empty(), "no Foo: nothing heard");
    let e = world.spawn(Foo).id();
    take(&log);
    world.entity_mut(e).insert(A);
    world.entity_mut(e).insert(B);
    let runs = take(&log);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|(entity, _)| *entity == e));
    let ids: Vec<Id> = runs.into_iter().flat_map(|(_, ids)| ids).collect();
    assert!(ids.contains(&a) && ids.contains(&b), "{ids:?}");
}

#[test]
fn star_on_remove_hears_every_component_at_despawn() {
    let mut world = world();
    let (a, b, c) = (id::<A>(&mut world), id::<B>(&mut world), id::<C>(&mut world));
    let e = world.spawn((A, B, C)).id();
    let (_, log) = raw::<OnRemove>(&mut world, &[Entity::WILDCARD.id()]);
    world.despawn(e);
    let mut ids = heard(&log);
    ids.sort();
    let mut want = vec![a, b, c];
    want.sort();
    assert_eq!(ids, want);
}

#[test]
fn star_insert_and_replace_on_reinsert() {
    let mut world = world();
    let inh = id::<Ovr>(&mut world);
    let e = world.spawn(Ovr(1)).id();
    let (_, ins) = raw::<OnInsert>(&mut world, &[Entity::WILDCARD.id()]);
    let (_, rep) = raw::<OnReplace>(&mut world, &[Entity::WILDCARD.id()]);
    let (_, add) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    take(&ins);
    take(&rep);
    world.entity_mut(e).insert(Ovr(2));
    assert_eq!(heard(&ins), vec![inh]);
    assert_eq!(heard(&rep), vec![inh]);
    assert!(take(&add).is_empty(), "already there: no OnAdd");
}

#[test]
fn star_skips_prefabs() {
    let mut world = world();
    id::<A>(&mut world);
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let p = world.spawn((Prefab, A)).id();
    assert!(take(&log).is_empty(), "observers skip prefabs unless they watch Prefab");
    world.entity_mut(p).insert(B);
    assert!(take(&log).is_empty());
}

#[test]
fn star_hears_inherited_components_of_a_new_instance() {
    let mut world = world();
    let (inh, ovr) = (id::<Inh>(&mut world), id::<Ovr>(&mut world));
    let p = world.spawn((Prefab, Inh(1), Ovr(2))).id();
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let (_, typed) = raw::<OnAdd>(&mut world, &[inh]);
    take(&log);
    let i = world.instantiate(p);
    let ids = heard(&log);
    // The typed observer of an inherited component hears it: `*` hears it too.
    let typed_ids = heard(&typed);
    assert_eq!(typed_ids, vec![inh], "control: a typed observer hears the inherited component");
    assert!(ids.contains(&inh), "{ids:?}");
    assert!(ids.contains(&ovr), "the overridden copy is the instance's own: {ids:?}");
    assert_eq!(ids.iter().filter(|&&x| x == inh).count(), 1, "once: {ids:?}");
    assert!(ids.iter().all(|x| !x.is_pair()), "no (IsA, p): {ids:?}");
    assert_eq!(world.get::<Inh>(i), Some(&Inh(1)));
}

#[test]
fn star_hears_a_component_added_to_the_prefab_on_its_instances() {
    let mut world = world();
    let inh = id::<Inh>(&mut world);
    let p = world.spawn(Prefab).id();
    let i = world.instantiate(p);
    let (_, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    let (_, typed) = raw::<OnAdd>(&mut world, &[inh]);
    take(&log);
    world.entity_mut(p).insert(Inh(3));
    let typed_runs = take(&typed);
    let runs = take(&log);
    assert_eq!(runs, typed_runs, "`*` hears what the typed observer hears");
    assert!(typed_runs.iter().any(|(entity, _)| *entity == i), "{typed_runs:?}");
}

/// What a typed, a raw and a global observer hear over a few changes.
fn ordinary_logs(with_star: bool) -> Vec<Vec<(Entity, Vec<Id>)>> {
    let mut world = world();
    let (a, likes) = (id::<A>(&mut world), world.register_component::<Likes>());
    // Same entity numbering either way: a `Ping` observer stands in for `*`.
    let star = match with_star {
        true => Some(raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()])),
        false => {
            raw::<Ping>(&mut world, &[Entity::WILDCARD.id()]);
            None
        }
    };
    let logs = [
        raw::<OnAdd>(&mut world, &[a]).1,
        raw::<OnAdd>(&mut world, &[]).1,
        raw::<OnRemove>(&mut world, &[]).1,
        raw::<OnAdd>(&mut world, &[Id::pair(likes, Entity::WILDCARD)]).1,
    ];
    logs.iter().for_each(|log| drop(take(log)));
    let bob = world.spawn_empty().id();
    let e = world.spawn((A, B)).id();
    world.entity_mut(e).add_pair::<Likes>(bob);
    world.entity_mut(e).remove::<A>();
    world.despawn(e);
    if let Some((_, star)) = star {
        assert!(!take(&star).is_empty(), "control: the `*` observer heard something");
    }
    logs.iter().map(take).collect()
}

#[test]
fn ordinary_observers_are_unaffected_by_a_star_observer() {
    let (plain, with_star) = (ordinary_logs(false), ordinary_logs(true));
    assert!(plain.iter().all(|log| !log.is_empty()), "{plain:?}");
    assert_eq!(plain, with_star);
}

#[test]
fn star_user_event_observer_runs_once_for_a_target() {
    let mut world = world();
    let (_, log) = raw::<Ping>(&mut world, &[Entity::WILDCARD.id()]);
    let e = world.spawn((A, B, C)).id();
    world.trigger_targets(Ping, e);
    let runs = take(&log);
    assert_eq!(runs.len(), 1, "one event, one run: {runs:?}");
}

#[test]
fn unregistering_a_star_observer_stops_it() {
    let mut world = world();
    let (o, log) = raw::<OnAdd>(&mut world, &[Entity::WILDCARD.id()]);
    world.spawn(A);
    assert_eq!(take(&log).len(), 1);
    assert!(world.unregister_observer(o));
    world.spawn(A);
    assert!(take(&log).is_empty());
}

// ----- 2. late validation of pipes ----------------------------------------------------

fn count(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

fn unit_then(_: In<()>, mut counter: ResMut<Counter>) {
    counter.0 += 10;
}

fn needs_missing(_: In<()>, _m: Res<Missing>) {}

fn is_invalid<O: std::fmt::Debug>(result: &Result<O, RunSystemError>) -> bool {
    matches!(result, Err(RunSystemError::InvalidParam { .. }))
}

#[test]
fn pipe_of_pipe_with_missing_last_half_is_invalid_param() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(unit_then).pipe(needs_missing));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 11);
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(()));
}

#[test]
fn pipe_into_pipe_with_missing_inner_second_half_is_invalid_param() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(unit_then.pipe(needs_missing)));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 11);
}

#[test]
fn stale_inner_invalid_flag_does_not_hide_a_first_half_panic() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Boom>();
    let first = |boom: Res<Boom>| {
        if boom.0 {
            panic!("first half boom");
        }
    };
    let id = world.register_system(first.pipe(unit_then.pipe(needs_missing)));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    world.resource_mut::<Boom>().0 = true;
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("first half boom"), "{message}");
}

#[test]
fn stale_inner_invalid_flag_does_not_hide_a_middle_panic() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Boom>();
    let middle = |_: In<()>, boom: Res<Boom>| {
        if boom.0 {
            panic!("middle boom");
        }
    };
    let id = world.register_system(count.pipe(middle.pipe(needs_missing)).map(|()| 1u8));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    world.resource_mut::<Boom>().0 = true;
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("middle boom"), "{message}");
}

#[test]
fn second_half_panic_after_an_invalid_run_propagates() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(|_: In<()>, _m: Res<Missing>| panic!("second boom")));
    assert!(is_invalid(&world.run_system(id)));
    world.insert_resource(Missing);
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("second boom"), "{message}");
    // And an invalid run again afterwards.
    world.remove_resource::<Missing>();
    assert!(is_invalid(&world.run_system(id)));
}

#[test]
fn first_half_commands_apply_with_an_invalid_nested_pipe() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let first = |mut commands: Commands| {
        commands.spawn(Marker);
    };
    let id = world.register_system(first.pipe(unit_then).pipe(needs_missing));
    assert!(is_invalid(&world.run_system(id)));
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1);
}

#[test]
fn pipe_in_a_schedule_still_panics_naming_the_resource() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count.pipe(needs_missing));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Missing"), "{message}");
    // A nested pipe too.
    let mut schedule = Schedule::new();
    schedule.add_systems(count.pipe(unit_then.pipe(needs_missing)));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Missing"), "{message}");
}

#[test]
fn stale_inner_invalid_flag_does_not_hide_an_exclusive_first_half_panic() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Boom>();
    let ex = |world: &mut World| {
        if world.resource::<Boom>().0 {
            panic!("exclusive first boom");
        }
    };
    let id = world.register_system(ex.pipe(unit_then.pipe(needs_missing)));
    assert!(is_invalid(&world.run_system(id)));
    world.resource_mut::<Boom>().0 = true;
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("exclusive first boom"), "{message}");
}

#[test]
fn exclusive_pipe_of_pipe_with_missing_resource_is_invalid() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let ex = |world: &mut World| {
        world.resource_mut::<Counter>().0 += 1;
    };
    let id = world.register_system(ex.pipe(unit_then).pipe(needs_missing));
    assert!(is_invalid(&world.run_system(id)));
    assert_eq!(world.resource::<Counter>().0, 11);
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(()));
}

// ----- 3. several ChildOf pairs in a bundle -------------------------------------------

#[test]
fn a_bundle_with_two_parents_keeps_the_last_and_observers_hear_only_it() {
    let mut world = World::new();
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    let child_of = world.register_component::<ChildOf>();
    let (_, log) = raw::<OnAdd>(&mut world, &[Id::pair(child_of, Entity::WILDCARD)]);
    let e = world.spawn((ChildOf.pair(p1), ChildOf.pair(p2))).id();
    assert_eq!(world.target::<ChildOf>(e), Some(p2));
    assert!(!world.has_pair::<ChildOf>(e, p1));
    assert_eq!(heard(&log), vec![Id::pair(child_of, p2)]);
    assert_eq!(world.children(p1).count(), 0);
    assert_eq!(world.children(p2).collect::<Vec<_>>(), vec![e]);
}

#[test]
fn inserting_two_parents_into_an_existing_child_keeps_the_last() {
    let mut world = World::new();
    let (p0, p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn(ChildOf.pair(p0)).id();
    world.entity_mut(e).insert((ChildOf.pair(p1), A, ChildOf.pair(p2)));
    assert_eq!(world.targets::<ChildOf>(e).collect::<Vec<_>>(), vec![p2]);
    assert!(world.has::<A>(e));
}

#[test]
fn two_parents_and_an_isa_instantiate_prefab_children_under_the_entity_with_the_last_parent() {
    let mut world = World::new();
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    let base = world.spawn((Prefab, Inh(5))).id();
    world.spawn((Prefab, ChildOf.pair(base), Marker));
    let e = world.spawn((IsA.pair(base), ChildOf.pair(p1), ChildOf.pair(p2))).id();
    assert_eq!(world.target::<ChildOf>(e), Some(p2));
    assert_eq!(world.get::<Inh>(e), Some(&Inh(5)));
    let kids: Vec<Entity> = world.children(e).collect();
    assert_eq!(kids.len(), 1, "the prefab's child is instantiated under e");
    assert!(world.has::<Marker>(kids[0]));
    assert_eq!(world.descendants(p2).count(), 2);
    assert_eq!(world.descendants(p1).count(), 0);
}

#[test]
fn a_name_clash_under_a_dropped_parent_does_not_refuse_the_spawn() {
    let mut world = World::new();
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.spawn((Name::new("x"), ChildOf.pair(p1)));
    let e = world.spawn((Name::new("x"), ChildOf.pair(p1), ChildOf.pair(p2))).id();
    assert_eq!(world.target::<ChildOf>(e), Some(p2));
}

#[test]
fn a_name_clash_under_the_kept_parent_is_refused() {
    let mut world = World::new();
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.spawn((Name::new("x"), ChildOf.pair(p2)));
    let message = panic_message(|| {
        world.spawn((Name::new("x"), ChildOf.pair(p1), ChildOf.pair(p2)));
    });
    assert!(message.contains('x'), "{message}");
    assert_eq!(world.children(p2).count(), 1);
    assert_eq!(world.children(p1).count(), 0);
}
