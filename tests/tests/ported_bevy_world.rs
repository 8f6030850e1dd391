//! Behaviour checked by bevy_ecs's own unit tests for the world's entity API, commands,
//! change detection and resources, restated against this crate's API (API.md).
//!
//! Bevy's `Added`/`Changed` filters on a fresh `QueryState` are relative to
//! `World::clear_trackers`; here they are relative to the previous run of the same
//! `QueryState` (API.md). Where a Bevy test re-creates a query after
//! `clear_trackers`, the port uses [`Since`]: query states that all ran once at the
//! point Bevy cleared the trackers, one used per later check.

use std::collections::BTreeSet;

use ecs::prelude::*;
use ecs::world::CommandQueue;
use ecs_tests::{DropLog, DropSparse, DropTable, panic_message};

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy, Hash, PartialOrd, Ord)]
struct A(u32);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy, Hash, PartialOrd, Ord)]
struct B(u32);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
struct C;

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
struct TableStored(&'static str);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
#[component(storage = "sparse")]
struct SparseStored(u32);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
#[component(storage = "sparse")]
struct SparseTag;

#[derive(Resource, Debug, PartialEq, Default)]
struct Score(u32);

#[derive(Resource, Debug, PartialEq)]
struct Other(u64);

/// `(is_added, is_changed)` pairs recorded by systems, one per row or run.
#[derive(Resource, Debug, Default)]
struct Seen(Vec<(bool, bool)>);

/// Counts recorded by systems, one per run.
#[derive(Resource, Debug, Default)]
struct Counts(Vec<usize>);

/// An ordered log of what ran.
#[derive(Resource, Debug, Default)]
struct Log(Vec<&'static str>);

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

/// Query states for filter `F` that all ran once when this was made: each check
/// uses a state that has not run since, so it sees every change made after that
/// point (what a fresh Bevy query sees after `World::clear_trackers`).
struct Since<F: QueryFilter> {
    states: Vec<QueryState<Entity, F>>,
}

impl<F: QueryFilter> Since<F> {
    fn new(world: &mut World, checks: usize) -> Self {
        let mut states: Vec<QueryState<Entity, F>> = (0..checks).map(|_| world.query_filtered::<Entity, F>()).collect();
        for state in &mut states {
            state.iter(world).for_each(drop);
        }
        Since { states }
    }

    fn check(&mut self, world: &World) -> BTreeSet<Entity> {
        let mut state = self.states.pop().expect("Since::new was given enough checks");
        state.iter(world).collect()
    }
}

// ===== world: entities and components ===============================================

#[derive(Bundle, Debug, PartialEq)]
struct FooBundle {
    x: TableStored,
    y: SparseStored,
}

#[derive(Bundle, Debug, PartialEq)]
struct NestedBundle {
    a: A,
    foo: FooBundle,
    b: B,
}

/// A derived bundle spawns its fields, and take returns the same bundle value back.
#[test]
fn derived_bundle_spawn_and_take() {
    let mut world = World::new();
    let e1 = world.spawn(FooBundle { x: TableStored("abc"), y: SparseStored(123) }).id();
    let e2 = world.spawn((TableStored("def"), SparseStored(456), A(1))).id();
    assert_eq!(world.get::<TableStored>(e1), Some(&TableStored("abc")));
    assert_eq!(world.get::<SparseStored>(e1), Some(&SparseStored(123)));
    world.get_mut::<TableStored>(e1).unwrap().0 = "xyz";
    world.get_mut::<SparseStored>(e2).unwrap().0 = 42;
    assert_eq!(world.get::<SparseStored>(e2), Some(&SparseStored(42)));
    let taken = world.entity_mut(e1).take::<FooBundle>();
    assert_eq!(taken, Some(FooBundle { x: TableStored("xyz"), y: SparseStored(123) }));
    assert!(!world.has::<TableStored>(e1) && !world.has::<SparseStored>(e1));
    assert!(world.is_alive(e1), "take keeps the entity");
}

/// A bundle nested as a field of a derived bundle spawns and takes as a whole.
#[test]
fn nested_derived_bundle_spawn_and_take() {
    let mut world = World::new();
    let bundle = NestedBundle { a: A(1), foo: FooBundle { x: TableStored("ghi"), y: SparseStored(789) }, b: B(2) };
    let e = world.spawn(bundle).id();
    assert_eq!(world.get::<TableStored>(e), Some(&TableStored("ghi")));
    assert_eq!(world.get::<SparseStored>(e), Some(&SparseStored(789)));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert_eq!(world.get::<B>(e), Some(&B(2)));
    let taken = world.entity_mut(e).take::<NestedBundle>();
    let expected = NestedBundle { a: A(1), foo: FooBundle { x: TableStored("ghi"), y: SparseStored(789) }, b: B(2) };
    assert_eq!(taken, Some(expected));
    assert_eq!(world.query::<&A>().iter(&world).count(), 0);
}

/// Taking, re-inserting and adding components moves the entity between archetypes correctly.
#[test]
fn add_remove_components_with_take() {
    let mut world = World::new();
    let e1 = world.spawn((A(1), B(3), TableStored("abc"))).id();
    let e2 = world.spawn((A(2), B(4), TableStored("xyz"))).id();
    let mut ab = world.query::<(Entity, &A, &B)>();
    let mut bt = world.query::<(Entity, &B, &TableStored)>();
    let rows = |q: &mut QueryState<(Entity, &A, &B)>, w: &World| set(q.iter(w).map(|(e, a, b)| (e, *a, *b)));
    assert_eq!(rows(&mut ab, &world), set([(e1, A(1), B(3)), (e2, A(2), B(4))]));
    assert_eq!(world.entity_mut(e1).take::<A>(), Some(A(1)));
    assert_eq!(rows(&mut ab, &world), set([(e2, A(2), B(4))]));
    assert_eq!(set(bt.iter(&world).map(|(e, b, t)| (e, b.0, t.0))), set([(e1, 3, "abc"), (e2, 4, "xyz")]));
    world.entity_mut(e1).insert(A(43));
    assert_eq!(rows(&mut ab, &world), set([(e1, A(43), B(3)), (e2, A(2), B(4))]));
    world.entity_mut(e1).insert(C);
    assert_eq!(world.query::<(Entity, &C)>().iter(&world).map(|(e, c)| (e, *c)).collect::<Vec<_>>(), vec![(e1, C)]);
}

/// Thousands of table inserts and takes each return the value that entity was given.
#[test]
fn table_add_remove_many() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..2000).map(|_| world.spawn(B(0)).id()).collect();
    for (i, &e) in entities.iter().enumerate() {
        world.entity_mut(e).insert(A(i as u32));
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.entity_mut(e).take::<A>(), Some(A(i as u32)));
    }
    assert_eq!(world.query::<&B>().iter(&world).count(), 2000);
    assert_eq!(world.query::<&A>().iter(&world).count(), 0);
}

/// Sparse inserts and takes each return the value that entity was given.
#[test]
fn sparse_set_add_remove_many() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..64).map(|_| world.spawn(A(2)).id()).collect();
    for (i, &e) in entities.iter().enumerate() {
        world.entity_mut(e).insert(SparseStored(i as u32));
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.entity_mut(e).take::<SparseStored>(), Some(SparseStored(i as u32)));
    }
    assert!(entities.iter().all(|&e| world.get::<A>(e) == Some(&A(2))));
}

/// take of a missing component (or a bundle only partly present) is None and removes nothing.
#[test]
fn take_missing_returns_none_and_removes_nothing() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    assert_eq!(world.entity_mut(e).take::<B>(), None);
    assert_eq!(world.entity_mut(e).take::<(A, B)>(), None);
    assert_eq!(world.get::<A>(e), Some(&A(123)), "a partial take leaves the present part");
    assert_eq!(world.get::<TableStored>(e), Some(&TableStored("abc")));
}

/// spawn_batch spawns every bundle, and a query yields them in spawn order.
#[test]
fn spawn_batch_values_in_order() {
    let mut world = World::new();
    world.spawn_batch((0..100).map(|x| (A(x), TableStored("abc"))));
    let values: Vec<u32> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
    assert_eq!(values, (0..100).collect::<Vec<_>>());
}

/// take of a tuple bundle removes exactly it; a cached query stops matching, the rest stays.
#[test]
fn take_tuple_bundle_and_cached_queries() {
    let mut world = World::new();
    world.spawn((A(1), B(1), TableStored("1")));
    let e2 = world.spawn((A(2), B(2), TableStored("2"))).id();
    world.spawn((A(3), B(3), TableStored("3")));
    let mut query = world.query::<(&B, &TableStored)>();
    assert_eq!(set(query.iter(&world).map(|(b, t)| (b.0, t.0))), set([(1, "1"), (2, "2"), (3, "3")]));
    assert_eq!(world.entity_mut(e2).take::<(B, TableStored)>(), Some((B(2), TableStored("2"))));
    assert_eq!(set(query.iter(&world).map(|(b, t)| (b.0, t.0))), set([(1, "1"), (3, "3")]));
    assert_eq!(set(world.query::<&A>().iter(&world).map(|a| a.0)), set([1, 2, 3]));
    let entity = world.entity(e2);
    assert_eq!(entity.get::<A>(), Some(&A(2)));
    assert_eq!(entity.get::<B>(), None);
    assert_eq!(entity.get::<TableStored>(), None);
}

/// An Entity query yields every alive entity exactly once through spawns and despawns.
#[test]
fn iterating_entities_sees_each_alive_entity_once() {
    #[derive(Component)]
    struct Foo;
    #[derive(Component)]
    struct Bar;
    #[derive(Component)]
    struct Baz;
    fn seen(world: &mut World) -> Vec<Entity> {
        let mut all: Vec<Entity> = world.query::<Entity>().iter(world).collect();
        all.sort();
        all
    }
    let mut world = World::new();
    let e0 = world.spawn((Foo, Bar, Baz)).id();
    assert_eq!(seen(&mut world), vec![e0]);
    let e1 = world.spawn((Foo, Bar)).id();
    let e2 = world.spawn((Bar, Baz)).id();
    let e3 = world.spawn((Foo, Baz)).id();
    assert_eq!(seen(&mut world), {
        let mut v = vec![e0, e1, e2, e3];
        v.sort();
        v
    });
    assert!(world.despawn(e0));
    let e4 = world.spawn(Foo).id();
    let e5 = world.spawn(Bar).id();
    let e6 = world.spawn(Baz).id();
    assert!(world.despawn(e2) && world.despawn(e3) && world.despawn(e4));
    assert_eq!(seen(&mut world), {
        let mut v = vec![e1, e5, e6];
        v.sort();
        v
    });
    assert_eq!(world.entity_count(), 3);
    for e in [e1, e5, e6] {
        assert!(world.despawn(e));
    }
    assert!(seen(&mut world).is_empty());
    assert_eq!(world.entity_count(), 0);
}

/// get_entity and get_entity_mut are Some for alive entities and None once despawned.
#[test]
fn get_entity_and_get_entity_mut_follow_despawn() {
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    assert!(world.get_entity(e1).is_some());
    assert!(world.get_entity_mut(e1).is_some());
    world.entity_mut(e1).despawn();
    assert!(world.get_entity(e1).is_none());
    assert!(world.get_entity_mut(e1).is_none());
    assert!(world.get_entity(e2).is_some(), "the other entity is unaffected");
    assert!(world.get_entity_mut(e2).is_some());
}

/// A stale handle whose entity was despawned sees nothing of entities spawned later.
#[test]
fn stale_handle_sees_nothing_after_respawns() {
    let mut world = World::new();
    let old = world.spawn((A(1), SparseStored(1))).id();
    assert!(world.despawn(old));
    let fresh: Vec<Entity> = (0..4).map(|i| world.spawn((A(10 + i), SparseStored(10 + i))).id()).collect();
    assert!(!fresh.contains(&old));
    assert!(!world.is_alive(old));
    assert!(world.get::<A>(old).is_none());
    assert!(world.get::<SparseStored>(old).is_none());
    assert!(world.get_mut::<A>(old).is_none());
    assert!(!world.has::<A>(old));
    assert!(world.get_entity(old).is_none());
    assert!(world.get_entity_mut(old).is_none());
    assert!(!world.insert(old, B(1)));
    assert!(world.remove::<A>(old).is_none());
    assert!(!world.despawn(old));
    for (i, &e) in fresh.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(10 + i as u32)));
        assert!(!world.has::<B>(e));
    }
}

/// entity_mut and entity panic for a stale handle even after its index was reused.
#[test]
fn entity_mut_on_a_stale_handle_panics() {
    let mut world = World::new();
    let old = world.spawn(A(1)).id();
    world.despawn(old);
    for i in 0..4 {
        world.spawn(A(i));
    }
    let message = panic_message(|| {
        world.entity_mut(old);
    });
    assert!(!message.is_empty());
    let message = panic_message(|| {
        world.entity(old);
    });
    assert!(!message.is_empty());
    assert_eq!(world.query::<&A>().iter(&world).count(), 4, "the world is unchanged by the panics");
}

#[derive(Component, Debug, PartialEq)]
struct Dense(u8);

#[derive(Component)]
struct Dense2;

/// Removing a sparse component from one entity leaves another entity's values in place.
#[test]
fn removing_sparse_keeps_other_rows() {
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), SparseTag)).id();
    let e2 = world.spawn((Dense(1), SparseTag)).id();
    world.entity_mut(e1).remove::<SparseTag>();
    assert_eq!(world.entity(e2).get::<Dense>(), Some(&Dense(1)));
    assert_eq!(world.entity(e1).get::<Dense>(), Some(&Dense(0)));
    assert!(world.has::<SparseTag>(e2));
}

/// Removing a table component from one entity (a swap-remove) leaves the other's row intact.
#[test]
fn removing_dense_keeps_other_rows() {
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), SparseTag)).id();
    let e2 = world.spawn((Dense(1), SparseTag)).id();
    world.entity_mut(e1).remove::<Dense>();
    assert_eq!(world.entity(e2).get::<Dense>(), Some(&Dense(1)));
    assert!(world.has::<SparseTag>(e1) && world.has::<SparseTag>(e2));
}

/// Inserting a sparse component into one entity leaves the other's values in place.
#[test]
fn inserting_sparse_keeps_other_rows() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();
    world.entity_mut(e1).insert(SparseTag);
    assert_eq!(world.entity(e2).get::<Dense>(), Some(&Dense(1)));
    assert_eq!(world.entity(e1).get::<Dense>(), Some(&Dense(0)));
}

/// After a sparse insert+remove reorders rows, moving one entity keeps the other's row.
#[test]
fn inserting_dense_after_row_reorder_keeps_other_rows() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();
    world.entity_mut(e1).insert(SparseTag).remove::<SparseTag>();
    world.entity_mut(e1).insert(Dense2);
    assert_eq!(world.entity(e2).get::<Dense>(), Some(&Dense(1)));
    assert_eq!(world.entity(e1).get::<Dense>(), Some(&Dense(0)));
}

/// After rows were reordered, despawning the second entity keeps the first one's values.
#[test]
fn despawning_after_row_reorder_keeps_the_other_entity() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();
    world.entity_mut(e1).insert(SparseTag).remove::<SparseTag>();
    world.entity_mut(e2).despawn();
    assert_eq!(world.entity(e1).get::<Dense>(), Some(&Dense(0)));
}

/// After rows were reordered, despawning the first entity keeps the second one's values.
#[test]
fn despawning_first_after_row_reorder_keeps_the_other_entity() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();
    world.entity_mut(e1).insert(SparseTag).remove::<SparseTag>();
    world.entity_mut(e1).despawn();
    assert_eq!(world.entity(e2).get::<Dense>(), Some(&Dense(1)));
    assert_eq!(world.query::<&Dense>().iter(&world).collect::<Vec<_>>(), vec![&Dense(1)]);
}

/// Removing a bundle fires OnRemove observers only for the members the entity had.
#[test]
fn bundle_remove_only_triggers_for_present_components() {
    #[derive(Resource, Debug, PartialEq)]
    struct Tracker {
        a: bool,
        b: bool,
    }
    let mut world = World::new();
    world.insert_resource(Tracker { a: false, b: false });
    let e = world.spawn(A(0)).id();
    world.add_observer(|_: Trigger<OnRemove, A>, mut t: ResMut<Tracker>| t.a = true);
    world.add_observer(|_: Trigger<OnRemove, B>, mut t: ResMut<Tracker>| t.b = true);
    world.entity_mut(e).remove::<(A, B)>();
    assert_eq!(world.resource::<Tracker>(), &Tracker { a: true, b: false });
}

/// Despawn reports table and sparse removals; an archetype move does not; a remove does.
#[test]
fn removed_components_for_table_sparse_and_moves() {
    #[derive(Resource, Default)]
    struct Removed(Vec<(Vec<Entity>, Vec<Entity>)>);
    let mut world = World::new();
    world.init_resource::<Removed>();
    let a = world.spawn((SparseStored(0), A(123))).id();
    let b = world.spawn((SparseStored(1), A(123))).id();
    let id = world.register_system(
        |mut table: RemovedComponents<A>, mut sparse: RemovedComponents<SparseStored>, mut out: ResMut<Removed>| {
            let entry = (table.read().collect(), sparse.read().collect());
            out.0.push(entry);
        },
    );
    world.run_system(id).unwrap();
    world.entity_mut(a).despawn();
    world.run_system(id).unwrap();
    world.entity_mut(b).insert(B(1));
    world.run_system(id).unwrap();
    world.entity_mut(b).remove::<A>();
    world.run_system(id).unwrap();
    let log = &world.resource::<Removed>().0;
    assert_eq!(log[0], (vec![], vec![]));
    assert_eq!(log[1], (vec![a], vec![a]), "despawn removes table and sparse components");
    assert_eq!(log[2], (vec![], vec![]), "an archetype move is not a removal");
    assert_eq!(log[3], (vec![b], vec![]), "removing a component is a removal");
}

fn despawn_self_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

#[derive(Component)]
#[component(on_add = despawn_self_on_add)]
struct DespawnOnAdd;

/// A hook's command that despawns the entity leaves the EntityWorldMut pointing at a dead entity.
#[test]
fn hook_despawn_through_entity_world_mut() {
    let mut world = World::new();
    let mut entity = world.spawn(A(1));
    let id = entity.id();
    entity.insert(DespawnOnAdd);
    assert!(!entity.world().is_alive(id), "the hook's despawn was applied before insert returned");
    assert!(!world.is_alive(id));
    assert_eq!(world.query::<&A>().iter(&world).count(), 0);
}

/// Further inserts through an EntityWorldMut whose entity a hook despawned panic.
#[test]
fn insert_after_hook_despawn_panics() {
    let message = panic_message(|| {
        let mut world = World::new();
        let mut entity = world.spawn(A(1));
        entity.insert(DespawnOnAdd);
        entity.insert(B(2));
    });
    assert!(message.contains("not alive"), "{message}");
}

fn ord_log(world: &mut DeferredWorld, entry: &'static str) {
    world.get_resource_mut::<Log>().expect("Log resource").0.push(entry);
}

fn ord_a_add(mut world: DeferredWorld, ctx: HookContext) {
    ord_log(&mut world, "OrdA on_add");
    world.commands().entity(ctx.entity).insert(OrdB);
}

fn ord_a_insert(mut world: DeferredWorld, ctx: HookContext) {
    ord_log(&mut world, "OrdA on_insert");
    world.commands().entity(ctx.entity).despawn();
}

fn ord_a_remove(mut world: DeferredWorld, _: HookContext) {
    ord_log(&mut world, "OrdA on_remove");
}

fn ord_b_add(mut world: DeferredWorld, _: HookContext) {
    ord_log(&mut world, "OrdB on_add");
    world.commands().queue(|world: &mut World| world.resource_mut::<Log>().0.push("OrdB command"));
}

fn ord_b_insert(mut world: DeferredWorld, _: HookContext) {
    ord_log(&mut world, "OrdB on_insert");
}

fn ord_b_remove(mut world: DeferredWorld, _: HookContext) {
    ord_log(&mut world, "OrdB on_remove");
}

#[derive(Component)]
#[component(on_add = ord_a_add, on_insert = ord_a_insert, on_remove = ord_a_remove)]
struct OrdA;

#[derive(Component)]
#[component(on_add = ord_b_add, on_insert = ord_b_insert, on_remove = ord_b_remove)]
struct OrdB;

/// A command queued while applying an earlier hook command runs before the next queued command.
#[test]
fn nested_hook_commands_run_before_later_commands() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(OrdA).id();
    assert!(!world.is_alive(e));
    let log = &world.resource::<Log>().0;
    assert_eq!(log.len(), 7, "{log:?}");
    assert_eq!(
        log[..5],
        ["OrdA on_add", "OrdA on_insert", "OrdB on_add", "OrdB on_insert", "OrdB command"],
        "OrdB's command (queued while inserting OrdB) must run before the despawn queued earlier"
    );
    assert_eq!(set(log[5..].iter().copied()), set(["OrdA on_remove", "OrdB on_remove"]));
}

// ===== commands =====================================================================

fn spawn_by_fn_command(world: &mut World) {
    world.spawn((A(0), B(42)));
    world.resource_mut::<Log>().0.push("fn");
}

/// Commands spawn, despawn (twice without panicking) and run closure and fn commands in order.
#[test]
fn commands_spawn_despawn_and_custom_commands() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut queue = CommandQueue::default();
    let entity = Commands::new(&mut queue, &world).spawn((A(1), B(2))).id();
    queue.apply(&mut world);
    assert_eq!(world.query::<&A>().iter(&world).count(), 1);
    let rows: Vec<(u32, u32)> = world.query::<(&A, &B)>().iter(&world).map(|(a, b)| (a.0, b.0)).collect();
    assert_eq!(rows, vec![(1, 2)]);
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(entity).despawn();
        commands.entity(entity).despawn();
    }
    queue.apply(&mut world);
    assert!(!world.is_alive(entity));
    assert_eq!(world.query::<(&A, &B)>().iter(&world).count(), 0);
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.queue(|world: &mut World| {
            world.spawn((A(42), B(0)));
            world.resource_mut::<Log>().0.push("closure");
        });
        commands.queue(spawn_by_fn_command);
    }
    queue.apply(&mut world);
    let rows = set(world.query::<(&A, &B)>().iter(&world).map(|(a, b)| (a.0, b.0)));
    assert_eq!(rows, set([(42, 0), (0, 42)]));
    assert_eq!(world.resource::<Log>().0, vec!["closure", "fn"]);
}

/// A despawn command leaves the entity readable until its queue is applied.
#[test]
fn queued_despawn_takes_effect_only_when_applied() {
    let mut world = World::new();
    let e = world.spawn(A(35)).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).despawn();
    assert_eq!(world.get::<A>(e), Some(&A(35)));
    assert!(world.is_alive(e));
    queue.apply(&mut world);
    assert!(world.get_entity(e).is_none());
}

/// An entity reserved by Commands is not alive before the queue applies and is after.
#[test]
fn reserved_entity_becomes_alive_when_applied() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let (empty, full) = {
        let mut commands = Commands::new(&mut queue, &world);
        let empty = commands.spawn_empty().id();
        let full = commands.spawn_empty().id();
        commands.entity(full).insert((A(7), SparseStored(8)));
        (empty, full)
    };
    assert_ne!(empty, full);
    assert!(!world.is_alive(empty) && !world.is_alive(full));
    assert!(world.get::<A>(full).is_none());
    assert!(world.get_entity(full).is_none());
    assert_eq!(world.entity_count(), 0, "reserved ids are not entities until applied");
    queue.apply(&mut world);
    assert!(world.is_alive(empty) && world.is_alive(full));
    assert_eq!(world.get::<A>(full), Some(&A(7)));
    assert_eq!(world.get::<SparseStored>(full), Some(&SparseStored(8)));
    assert_eq!(world.entity_count(), 2);
}

/// Commands::remove drops table and sparse values when applied, not when queued.
#[test]
fn commands_remove_drops_values_when_applied() {
    let log = DropLog::new();
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn((A(1), B(2), log.table(1), log.sparse(2))).id();
    queue.apply(&mut world);
    assert_eq!(world.query::<(&A, &B)>().iter(&world).count(), 1);
    Commands::new(&mut queue, &world).entity(e).remove::<A>().remove::<(A, B, DropSparse, DropTable)>();
    assert_eq!(log.count(), 0, "nothing is dropped before the queue applies");
    queue.apply(&mut world);
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.query::<(&A, &B)>().iter(&world).count(), 0);
    assert_eq!(world.query::<&B>().iter(&world).count(), 0);
    assert!(world.is_alive(e));
}

/// try_insert into an entity despawned by an earlier-applied queue is a silent no-op.
#[test]
fn try_insert_after_despawn_in_another_queue_is_ignored() {
    let mut world = World::new();
    let mut queue1 = CommandQueue::default();
    let e = Commands::new(&mut queue1, &world).spawn(A(1)).id();
    queue1.apply(&mut world);
    Commands::new(&mut queue1, &world).entity(e).try_insert(B(1));
    let mut queue2 = CommandQueue::default();
    Commands::new(&mut queue2, &world).entity(e).despawn();
    queue2.apply(&mut world);
    queue1.apply(&mut world);
    assert!(!world.is_alive(e));
    assert_eq!(world.query::<&B>().iter(&world).count(), 0);
}

/// insert into an entity despawned before the command applies panics (Bevy's default handler).
#[test]
fn insert_after_despawn_in_another_queue_panics() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut queue1 = CommandQueue::default();
    Commands::new(&mut queue1, &world).entity(e).insert(B(1));
    world.despawn(e);
    let message = panic_message(|| queue1.apply(&mut world));
    assert!(message.contains("not alive"), "{message}");
    assert_eq!(world.query::<&B>().iter(&world).count(), 0);
}

/// Commands aimed at a stale handle never touch an entity spawned after the despawn.
#[test]
fn commands_on_a_stale_handle_never_touch_later_entities() {
    let mut world = World::new();
    let old = world.spawn(A(1)).id();
    world.despawn(old);
    let fresh: Vec<Entity> = (0..4).map(|i| world.spawn(A(10 + i)).id()).collect();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(old).try_insert(B(1));
        commands.entity(old).remove::<A>();
        commands.entity(old).despawn();
    }
    queue.apply(&mut world);
    for (i, &e) in fresh.iter().enumerate() {
        assert!(world.is_alive(e));
        assert_eq!(world.get::<A>(e), Some(&A(10 + i as u32)));
        assert!(!world.has::<B>(e));
    }
    assert_eq!(world.entity_count(), 4);
}

/// Commands insert and remove resources, leaving other resources alone.
#[test]
fn commands_insert_and_remove_resources() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.insert_resource(Score(123));
        commands.insert_resource(Other(456));
    }
    queue.apply(&mut world);
    assert!(world.contains_resource::<Score>() && world.contains_resource::<Other>());
    Commands::new(&mut queue, &world).remove_resource::<Score>();
    queue.apply(&mut world);
    assert!(!world.contains_resource::<Score>());
    assert_eq!(world.get_resource::<Other>(), Some(&Other(456)));
    Commands::new(&mut queue, &world).remove_resource::<Score>();
    queue.apply(&mut world);
    assert!(!world.contains_resource::<Score>(), "removing a missing resource is harmless");
}

/// CommandQueue::append moves the other queue's commands after this queue's own.
#[test]
fn command_queue_append_keeps_both_in_order() {
    let mut world = World::new();
    let mut queue1 = CommandQueue::default();
    Commands::new(&mut queue1, &world).insert_resource(Score(1));
    let mut queue2 = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue2, &world);
        commands.insert_resource(Other(2));
        commands.insert_resource(Score(2));
    }
    queue1.append(&mut queue2);
    assert!(queue2.is_empty());
    queue1.apply(&mut world);
    assert_eq!(world.get_resource::<Other>(), Some(&Other(2)));
    assert_eq!(world.resource::<Score>().0, 2, "the appended commands run after the original ones");
}

/// A system does not see its own commands during its run; a chained later system does.
#[test]
fn commands_invisible_in_their_own_system_and_applied_at_sync_point() {
    fn spawner(mut commands: Commands, q: Query<&A>, mut counts: ResMut<Counts>) {
        commands.spawn(A(1));
        counts.0.push(q.iter().count());
    }
    fn counter(q: Query<&A>, mut counts: ResMut<Counts>) {
        counts.0.push(q.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, counter).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counts>().0, vec![0, 1, 1, 2]);
}

// ===== change detection: queries ====================================================

/// Added on a query state matches on its first run (also via get), then not after.
#[test]
fn added_tracking_through_iter_and_get() {
    let mut world = World::new();
    let a = world.spawn(A(123)).id();
    let mut all = world.query::<&A>();
    let mut added = world.query_filtered::<(), Added<A>>();
    assert_eq!(all.iter(&world).count(), 1);
    assert!(added.get(&world, a).is_ok(), "before its first run, everything is added");
    assert_eq!(added.iter(&world).count(), 1);
    assert_eq!(added.iter(&world).count(), 0);
    assert!(added.get(&world, a).is_err());
    assert_eq!(all.iter(&world).count(), 1);
    assert!(all.get(&world, a).is_ok());
}

/// Inserting another component does not make an existing one added again; a joint Added needs both new.
#[test]
fn added_queries_across_inserts_and_spawns() {
    let mut world = World::new();
    let e1 = world.spawn(A(0)).id();
    let mut added_a = world.query_filtered::<Entity, Added<A>>();
    let mut added_b = world.query_filtered::<Entity, Added<B>>();
    let mut added_both = world.query_filtered::<Entity, (Added<A>, Added<B>)>();
    assert_eq!(added_a.iter(&world).collect::<Vec<_>>(), vec![e1]);
    assert!(added_b.iter(&world).next().is_none());
    world.entity_mut(e1).insert(B(0));
    assert!(added_a.iter(&world).next().is_none(), "inserting B does not re-add A");
    assert_eq!(added_b.iter(&world).collect::<Vec<_>>(), vec![e1]);
    assert_eq!(added_both.iter(&world).collect::<Vec<_>>(), vec![e1], "first run: everything is added");
    let e2 = world.spawn((A(1), B(1))).id();
    assert_eq!(added_a.iter(&world).collect::<Vec<_>>(), vec![e2]);
    assert_eq!(added_b.iter(&world).collect::<Vec<_>>(), vec![e2]);
    assert_eq!(added_both.iter(&world).collect::<Vec<_>>(), vec![e2]);
}

/// Changed<A> sees the rows written through iter_mut and keeps them across an archetype move.
#[test]
fn changed_trackers_follow_writes_and_archetype_moves() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0))).id();
    let e2 = world.spawn((A(0), B(0))).id();
    let e3 = world.spawn((A(0), B(0))).id();
    world.spawn((A(0), B(0)));
    let mut since = Since::<Changed<A>>::new(&mut world, 3);
    for (e, mut a) in world.query::<(Entity, &mut A)>().iter_mut(&mut world) {
        if e == e1 || e == e3 {
            a.0 += 1;
        }
    }
    assert_eq!(since.check(&world), set([e1, e3]));
    world.entity_mut(e1).insert(C);
    assert_eq!(since.check(&world), set([e1, e3]), "an archetype move keeps the changed state");
    assert!(world.despawn(e2));
    assert_eq!(since.check(&world), set([e1, e3]), "despawning an unchanged entity changes nothing");
}

/// Despawning a changed entity removes it from Changed results.
#[test]
fn despawned_changed_entity_leaves_changed_results() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0))).id();
    let e3 = world.spawn((A(0), B(0))).id();
    let mut since = Since::<Changed<A>>::new(&mut world, 1);
    world.get_mut::<A>(e1).unwrap().0 = 1;
    world.get_mut::<A>(e3).unwrap().0 = 1;
    world.entity_mut(e1).insert((A(0), B(0)));
    assert!(world.despawn(e1));
    assert_eq!(since.check(&world), set([e3]));
}

/// Inserting into an empty entity is an add and a change; inserting again is only a change.
#[test]
fn insert_into_spawn_empty_is_added_then_changed() {
    let mut world = World::new();
    world.spawn((A(0), B(0)));
    let mut changed = Since::<Changed<A>>::new(&mut world, 2);
    let mut added = Since::<Added<A>>::new(&mut world, 2);
    let e4 = world.spawn_empty().id();
    world.entity_mut(e4).insert(A(0));
    assert_eq!(changed.check(&world), set([e4]));
    assert_eq!(added.check(&world), set([e4]));
    let mut changed_again = Since::<Changed<A>>::new(&mut world, 1);
    let mut added_again = Since::<Added<A>>::new(&mut world, 1);
    world.entity_mut(e4).insert(A(1));
    assert_eq!(changed.check(&world), set([e4]));
    assert_eq!(changed_again.check(&world), set([e4]));
    assert!(added_again.check(&world).is_empty(), "an overwrite is not an add");
    assert_eq!(added.check(&world), set([e4]));
}

/// A bundle insert marks present members changed (not added) and new members added and changed.
#[test]
fn bundle_insert_over_partly_present_components() {
    let mut world = World::new();
    let e4 = world.spawn(A(1)).id();
    let mut added_a = Since::<Added<A>>::new(&mut world, 1);
    let mut changed_a = Since::<Changed<A>>::new(&mut world, 1);
    let mut added_b = Since::<Added<B>>::new(&mut world, 1);
    let mut changed_b = Since::<Changed<B>>::new(&mut world, 1);
    world.entity_mut(e4).insert((A(0), B(0)));
    assert!(added_a.check(&world).is_empty());
    assert_eq!(changed_a.check(&world), set([e4]));
    assert_eq!(added_b.check(&world), set([e4]));
    assert_eq!(changed_b.check(&world), set([e4]));
}

/// Sparse Changed follows iter_mut writes, survives an archetype move and an overwrite, and despawn.
#[test]
fn changed_trackers_sparse() {
    let mut world = World::new();
    let e1 = world.spawn(SparseStored(0)).id();
    let e2 = world.spawn(SparseStored(0)).id();
    let e3 = world.spawn(SparseStored(0)).id();
    world.spawn(SparseStored(0));
    let mut since = Since::<Changed<SparseStored>>::new(&mut world, 5);
    for (e, mut s) in world.query::<(Entity, &mut SparseStored)>().iter_mut(&mut world) {
        if e == e1 || e == e3 {
            s.0 += 1;
        }
    }
    assert_eq!(since.check(&world), set([e1, e3]));
    world.entity_mut(e1).insert(C);
    assert_eq!(since.check(&world), set([e1, e3]));
    world.entity_mut(e1).insert(SparseStored(0));
    assert_eq!(since.check(&world), set([e1, e3]));
    assert!(world.despawn(e2));
    assert_eq!(since.check(&world), set([e1, e3]));
    assert!(world.despawn(e1));
    assert_eq!(since.check(&world), set([e3]));
}

/// Sparse: insert into an empty entity is added+changed; a later overwrite is changed only.
#[test]
fn sparse_insert_added_then_overwrite_changed() {
    let mut world = World::new();
    let e4 = world.spawn_empty().id();
    let mut changed = Since::<Changed<SparseStored>>::new(&mut world, 2);
    let mut added = Since::<Added<SparseStored>>::new(&mut world, 1);
    world.entity_mut(e4).insert(SparseStored(0));
    assert_eq!(changed.check(&world), set([e4]));
    assert_eq!(added.check(&world), set([e4]));
    world.entity_mut(e4).insert(A(1));
    assert_eq!(changed.check(&world), set([e4]), "a table move does not lose sparse ticks");
    let mut added = Since::<Added<SparseStored>>::new(&mut world, 1);
    let mut changed = Since::<Changed<SparseStored>>::new(&mut world, 1);
    world.entity_mut(e4).insert(SparseStored(0));
    assert!(added.check(&world).is_empty());
    assert_eq!(changed.check(&world), set([e4]));
}

/// A Ref<T> from a query state reports added/changed relative to that state's previous run.
#[test]
fn ref_flags_from_a_query_state() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut refs = world.query::<Ref<A>>();
    let r = refs.single(&world).unwrap();
    assert!(r.is_added() && r.is_changed());
    let r = refs.single(&world).unwrap();
    assert!(!r.is_added() && !r.is_changed());
    world.entity_mut(e).insert(A(2));
    let r = refs.single(&world).unwrap();
    assert!(!r.is_added() && r.is_changed() && r.0 == 2);
    world.remove::<A>(e);
    world.insert(e, A(3));
    let r = refs.single(&world).unwrap();
    assert!(r.is_added() && r.is_changed(), "removed and reinserted is added again");
}

// ===== change detection: systems and schedules ======================================

fn record_ref_a(q: Query<Ref<A>>, mut seen: ResMut<Seen>) {
    for a in &q {
        seen.0.push((a.is_added(), a.is_changed()));
    }
}

/// A system's Ref<T> flags are relative to its own previous run across schedule runs.
#[test]
fn ref_in_system_across_schedule_runs() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn(A(0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(record_ref_a);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<A>(e).unwrap().0 = 1;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, true), (false, false)]);
}

fn bump_every_other_run(mut q: Query<&mut A>, mut run: Local<u32>) {
    if run.is_multiple_of(2) {
        for mut a in &mut q {
            a.0 += 1;
        }
    }
    *run += 1;
}

fn count_changed_a(q: Query<(), Changed<A>>, mut counts: ResMut<Counts>) {
    counts.0.push(q.iter().count());
}

/// A write by a system ordered after the reader is seen by the reader on the next run.
#[test]
fn changes_by_a_later_system_are_seen_next_run() {
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((count_changed_a, bump_every_other_run).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counts>().0, vec![1, 1, 0, 1]);
}

/// A write by a system ordered before the reader is seen by the reader in the same run.
#[test]
fn changes_by_an_earlier_system_are_seen_same_run() {
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((bump_every_other_run, count_changed_a).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counts>().0, vec![1, 0, 1, 0]);
}

/// A system does not see its own writes as changes on its next run, but sees others' writes.
#[test]
fn system_does_not_see_its_own_writes() {
    fn self_writer(mut q: Query<&mut A>, mut seen: ResMut<Seen>) {
        for mut a in &mut q {
            seen.0.push((a.is_added(), a.is_changed()));
            a.0 += 1;
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn(A(0)).id();
    let id = world.register_system(self_writer);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.get_mut::<A>(e).unwrap().0 = 100;
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, false), (false, true)]);
    assert_eq!(world.get::<A>(e), Some(&A(101)));
}

/// Option<Single<&A, Changed<A>>> in a registered system follows changes between runs.
#[test]
fn option_single_changed_in_a_registered_system() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let id = world.register_system(|q: Option<Single<&A, Changed<A>>>| q.map(|a| a.0));
    assert_eq!(world.run_system(id), Ok(Some(1)));
    assert_eq!(world.run_system(id), Ok(None));
    world.entity_mut(e).get_mut::<A>().unwrap().0 = 2;
    assert_eq!(world.run_system(id), Ok(Some(2)));
    assert_eq!(world.run_system(id), Ok(None));
}

#[derive(Resource, Default)]
struct Flag;

#[derive(Default)]
struct PipeInfo {
    do_first: bool,
    do_second: bool,
    first_flag: bool,
    second_flag: bool,
}

fn pipe_first(In(mut info): In<PipeInfo>, mut flag: ResMut<Flag>) -> PipeInfo {
    if flag.is_changed() {
        info.first_flag = true;
    }
    if info.do_first {
        *flag = Flag;
    }
    info
}

fn pipe_second(In(mut info): In<PipeInfo>, mut flag: ResMut<Flag>) -> PipeInfo {
    if flag.is_changed() {
        info.second_flag = true;
    }
    if info.do_second {
        *flag = Flag;
    }
    info
}

/// In a piped system each half tracks changes on its own: each sees the other's writes once.
#[test]
fn pipe_change_detection() {
    let mut world = World::new();
    world.init_resource::<Flag>();
    let mut sys = pipe_first.pipe(pipe_second);
    sys.run(PipeInfo::default(), &mut world);
    let info = sys.run(PipeInfo { do_first: true, ..PipeInfo::default() }, &mut world);
    assert!(!info.first_flag, "first does not see its own write");
    assert!(info.second_flag, "second sees first's write in the same run");
    let info1 = sys.run(PipeInfo { do_second: true, ..PipeInfo::default() }, &mut world);
    let info2 = sys.run(PipeInfo::default(), &mut world);
    assert!(!info1.first_flag && !info1.second_flag);
    assert!(info2.first_flag, "first sees second's write on the next run");
    assert!(!info2.second_flag, "second does not see its own write");
}

/// Removing and reinserting a component between runs makes a system see it as added again.
#[test]
fn remove_and_reinsert_between_runs_is_added_in_system() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn((A(0), B(0))).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(record_ref_a);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.remove::<A>(e);
    world.insert(e, A(5));
    schedule.run(&mut world);
    world.remove::<A>(e);
    schedule.run(&mut world);
    world.entity_mut(e).insert(A(6));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Seen>().0,
        vec![(true, true), (false, false), (true, true), (true, true), (false, false)]
    );
}

/// Sparse components removed and reinserted between system runs are added again too.
#[test]
fn sparse_remove_and_reinsert_between_runs_is_added_in_system() {
    fn record(q: Query<Ref<SparseStored>>, mut seen: ResMut<Seen>) {
        for s in &q {
            seen.0.push((s.is_added(), s.is_changed()));
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn((A(0), SparseStored(0))).id();
    let id = world.register_system(record);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.entity_mut(e).take::<SparseStored>(), Some(SparseStored(0)));
    world.entity_mut(e).insert(SparseStored(1));
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (true, true), (false, false)]);
}

/// A component removed and reinserted by commands within one frame is added for a later system.
#[test]
fn commands_remove_and_reinsert_is_added_for_a_later_system() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn(A(0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(record_ref_a);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).remove::<A>().insert(A(1));
    });
    schedule.run(&mut world);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert(A(2));
    });
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (true, true), (false, true)]);
}

/// An entity spawned after a despawn is added for a system even when its index is reused.
#[test]
fn respawned_entity_is_added_for_a_system() {
    fn record(q: Query<(Entity, Ref<A>)>, mut log: ResMut<Seen>) {
        for (_, a) in &q {
            log.0.push((a.is_added(), a.is_changed()));
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let old = world.spawn(A(0)).id();
    let id = world.register_system(record);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.despawn(old);
    let new = world.spawn(A(1)).id();
    assert_ne!(old, new);
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (true, true)]);
}

/// A system that first runs late still sees every existing row as added on that first run.
#[test]
fn system_added_later_sees_everything_on_first_run() {
    fn count_added(q: Query<(), Added<A>>, mut counts: ResMut<Counts>) {
        counts.0.push(q.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.init_resource::<Seen>();
    world.spawn_batch((0..3).map(A));
    let mut early = Schedule::new();
    early.add_systems(record_ref_a);
    for _ in 0..3 {
        early.run(&mut world);
    }
    let mut late = Schedule::new();
    late.add_systems(count_added);
    late.run(&mut world);
    late.run(&mut world);
    assert_eq!(world.resource::<Counts>().0, vec![3, 0]);
}

/// An insert over an existing value by commands is a change (not an add) for a chained reader.
#[test]
fn commands_overwrite_is_changed_not_added_for_chained_reader() {
    fn overwrite(mut commands: Commands, q: Query<Entity, With<A>>, mut run: Local<u32>) {
        if *run == 1 {
            for e in &q {
                commands.entity(e).insert(A(9));
            }
        }
        *run += 1;
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((overwrite, record_ref_a).chain());
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, true), (false, false)]);
}

/// `(added, changed)` row counts recorded by a system, one pair per run.
#[derive(Resource, Debug, Default)]
struct Tally(Vec<(usize, usize)>);

fn tally_ref_a(q: Query<Ref<A>>, mut tally: ResMut<Tally>) {
    let added = q.iter().filter(|a| a.is_added()).count();
    let changed = q.iter().filter(|a| a.is_changed()).count();
    tally.0.push((added, changed));
}

/// Spawns and overwrites applied from commands of a system after the reader are seen on its next run.
#[test]
fn commands_applied_after_the_reader_are_seen_next_run() {
    let mut world = World::new();
    world.init_resource::<Tally>();
    let e0 = world.spawn(A(0)).id();
    let mut schedule = Schedule::new();
    let writer = move |mut commands: Commands, mut run: Local<u32>| {
        match *run {
            0 => {
                commands.spawn(A(1));
            }
            1 => {
                commands.entity(e0).insert(A(5));
            }
            _ => {}
        }
        *run += 1;
    };
    schedule.add_systems((tally_ref_a, writer).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Tally>().0, vec![(1, 1), (1, 1), (0, 1), (0, 0)]);
    assert_eq!(world.get::<A>(e0), Some(&A(5)));
}

/// Writes by an exclusive system chained before readers are seen in that run and not the next.
#[test]
fn exclusive_system_writes_seen_by_later_readers_once() {
    fn exclusive_writer(world: &mut World) {
        let run = world.resource::<Score>().0;
        if run.is_multiple_of(2) {
            for e in world.query_filtered::<Entity, With<A>>().iter(world).collect::<Vec<_>>() {
                world.get_mut::<A>(e).unwrap().0 += 1;
            }
            world.resource_mut::<Other>().0 += 1;
        }
        world.resource_mut::<Score>().0 += 1;
    }
    fn read_other(other: Res<Other>, mut counts: ResMut<Counts>) {
        counts.0.push(usize::from(other.is_changed()));
    }
    let mut world = World::new();
    world.init_resource::<Tally>();
    world.init_resource::<Counts>();
    world.insert_resource(Score(0));
    world.insert_resource(Other(0));
    world.spawn(A(0));
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((exclusive_writer, (tally_ref_a, read_other)).chain());
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Tally>().0, vec![(2, 2), (0, 0), (0, 2), (0, 0), (0, 2)]);
    assert_eq!(world.resource::<Counts>().0, vec![1, 0, 1, 0, 1]);
}

/// An observer's Ref<T> sees the new value as added on OnAdd and as changed (not added) on OnInsert.
#[test]
fn observer_ref_flags_on_add_and_overwrite() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|trigger: Trigger<OnInsert, A>, q: Query<Ref<A>>, mut seen: ResMut<Seen>| {
        let a = q.get(trigger.entity()).unwrap();
        seen.0.push((a.is_added(), a.is_changed()));
    });
    let e = world.spawn(A(0)).id();
    world.insert(e, A(1));
    world.entity_mut(e).insert(B(0));
    world.get_mut::<A>(e).unwrap().0 = 2;
    world.insert(e, A(3));
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, true), (false, true)]);
}

/// An observer's Changed filter is relative to that observer's previous run.
#[test]
fn observer_changed_filter_is_relative_to_its_previous_run() {
    #[derive(Event)]
    struct Ping;
    let mut world = World::new();
    world.init_resource::<Counts>();
    let e = world.spawn(A(0)).id();
    world.spawn(A(0));
    world.add_observer(|_: Trigger<Ping>, q: Query<(), Changed<A>>, mut counts: ResMut<Counts>| {
        counts.0.push(q.iter().count());
    });
    world.trigger(Ping);
    world.trigger(Ping);
    world.get_mut::<A>(e).unwrap().0 = 1;
    world.trigger(Ping);
    world.trigger(Ping);
    world.spawn(A(5));
    world.trigger(Ping);
    assert_eq!(world.resource::<Counts>().0, vec![2, 0, 1, 0, 1]);
}

/// Commands issued by both halves of a piped system are applied after it runs.
#[test]
fn commands_from_both_halves_of_a_pipe_are_applied() {
    fn produce(mut commands: Commands) -> u32 {
        commands.spawn(A(1));
        7
    }
    fn consume(In(value): In<u32>, mut commands: Commands) {
        commands.spawn(A(value));
    }
    let mut world = World::new();
    world.run_system_once(produce.pipe(consume));
    assert_eq!(set(world.query::<&A>().iter(&world).copied()), set([A(1), A(7)]));
    let mut schedule = Schedule::new();
    schedule.add_systems(produce.pipe(consume));
    schedule.run(&mut world);
    assert_eq!(world.query::<&A>().iter(&world).count(), 4);
}

/// Changes made while a system is skipped by run_if are seen when it next runs.
#[test]
fn changes_while_skipped_by_run_if_are_seen_when_it_runs() {
    #[derive(Resource)]
    struct Enabled(bool);
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.insert_resource(Enabled(true));
    let e = world.spawn(A(0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_changed_a.run_if(|enabled: Res<Enabled>| enabled.0));
    schedule.run(&mut world);
    world.resource_mut::<Enabled>().0 = false;
    schedule.run(&mut world);
    world.get_mut::<A>(e).unwrap().0 = 1;
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.resource_mut::<Enabled>().0 = true;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counts>().0, vec![1, 1, 0]);
}

/// Changes made while a Single system is skipped (no match) are seen when it next runs.
#[test]
fn changes_while_single_skips_are_seen_when_it_runs() {
    fn watch(one: Single<Ref<A>, With<C>>, mut seen: ResMut<Seen>) {
        seen.0.push((one.is_added(), one.is_changed()));
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn((A(0), C)).id();
    let extra = world.spawn((A(0), C)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(watch);
    schedule.run(&mut world);
    world.despawn(extra);
    schedule.run(&mut world);
    schedule.run(&mut world);
    let other = world.spawn((A(0), C)).id();
    schedule.run(&mut world);
    world.get_mut::<A>(e).unwrap().0 = 1;
    world.despawn(other);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, true), (false, false)]);
}

// ===== resources ====================================================================

/// init_resource keeps an existing value and does not mark it changed.
#[test]
fn init_resource_does_not_overwrite_or_mark_changed() {
    fn watch(score: Res<Score>, mut seen: ResMut<Seen>) {
        seen.0.push((score.is_added(), score.is_changed()));
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.insert_resource(Score(5));
    world.init_resource::<Score>();
    assert_eq!(world.resource::<Score>().0, 5);
    let id = world.register_system(watch);
    world.run_system(id).unwrap();
    world.init_resource::<Score>();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Score>().0, 5);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false)]);
}

#[derive(Resource)]
struct Flipper(bool);

#[derive(Resource)]
struct AddedCount(usize);

#[derive(Resource)]
struct ChangedCount(usize);

/// Res is_added/is_changed across schedule runs chained with ApplyDeferred and clear_trackers.
#[test]
fn changed_resource_system_with_clear_trackers() {
    fn incr_on_flip(value: Res<Flipper>, mut changed: ResMut<ChangedCount>, mut added: ResMut<AddedCount>) {
        if value.is_added() {
            added.0 += 1;
        }
        if value.is_changed() {
            changed.0 += 1;
        }
    }
    let mut world = World::new();
    world.insert_resource(Flipper(false));
    world.insert_resource(AddedCount(0));
    world.insert_resource(ChangedCount(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((incr_on_flip, ApplyDeferred, World::clear_trackers).chain());
    schedule.run(&mut world);
    assert_eq!((world.resource::<AddedCount>().0, world.resource::<ChangedCount>().0), (1, 1));
    schedule.run(&mut world);
    assert_eq!((world.resource::<AddedCount>().0, world.resource::<ChangedCount>().0), (1, 1));
    world.resource_mut::<Flipper>().0 = true;
    schedule.run(&mut world);
    assert_eq!((world.resource::<AddedCount>().0, world.resource::<ChangedCount>().0), (1, 2));
    assert!(world.resource::<Flipper>().0);
}

fn watch_score(score: Option<Res<Score>>, mut seen: ResMut<Counts>, mut flags: ResMut<Seen>) {
    match score {
        Some(score) => {
            seen.0.push(score.0 as usize);
            flags.0.push((score.is_added(), score.is_changed()));
        }
        None => seen.0.push(usize::MAX),
    }
}

/// insert_resource over an existing resource is a change but not an add (Bevy keeps the added tick).
#[test]
fn insert_resource_over_existing_is_changed_not_added() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.init_resource::<Counts>();
    world.insert_resource(Score(1));
    let id = world.register_system(watch_score);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.insert_resource(Score(2));
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counts>().0, vec![1, 1, 2, 2]);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, true), (false, false)]);
}

/// A resource removed then re-inserted is added again; while removed, Option<Res> is None.
#[test]
fn removed_then_reinserted_resource_is_added_again() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.init_resource::<Counts>();
    world.insert_resource(Score(1));
    let id = world.register_system(watch_score);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.remove_resource::<Score>(), Some(Score(1)));
    world.run_system(id).unwrap();
    world.insert_resource(Score(3));
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counts>().0, vec![1, 1, usize::MAX, 3]);
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (true, true)]);
}

/// A ResMut that is only read does not mark the resource changed; a write does, seen once.
#[test]
fn res_mut_marks_changed_only_when_written() {
    fn writer(mut score: ResMut<Score>, mut run: Local<u32>) {
        let current = score.0;
        if *run == 1 {
            score.0 = current + 10;
        }
        *run += 1;
    }
    fn reader(score: Res<Score>, mut seen: ResMut<Seen>) {
        seen.0.push((score.is_added(), score.is_changed()));
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.insert_resource(Score(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((writer, reader).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, true), (false, false), (false, false)]);
    assert_eq!(world.resource::<Score>().0, 10);
}

/// ResMut::is_changed in the writing system: true on its first run, false for its own writes later.
#[test]
fn res_mut_flags_inside_the_writing_system() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.insert_resource(Score(0));
    let id = world.register_system(|mut score: ResMut<Score>, mut seen: ResMut<Seen>| {
        seen.0.push((score.is_added(), score.is_changed()));
        score.0 += 1;
    });
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.resource_mut::<Score>().0 = 50;
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, true)]);
    assert_eq!(world.resource::<Score>().0, 51);
}

/// set_if_neq on a world resource Mut marks it changed only when the value differs.
#[test]
fn resource_set_if_neq_after_clear_trackers() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    assert!(world.resource_mut::<Score>().is_added(), "before clear_trackers the insert is new");
    world.clear_trackers();
    let mut r = world.resource_mut::<Score>();
    assert!(!r.is_added());
    assert!(!r.is_changed(), "the resource begins unchanged");
    assert!(!r.set_if_neq(Score(0)));
    assert!(!r.is_changed(), "setting an equal value is not a change");
    assert!(r.set_if_neq(Score(3)));
    assert!(r.is_changed(), "setting a different value is a change");
    assert_eq!(world.resource::<Score>().0, 3);
}

/// A resource inserted by commands is added for a chained system; re-inserting it is a change.
#[test]
fn commands_insert_resource_seen_by_chained_system() {
    fn inserter(mut commands: Commands, mut run: Local<u32>) {
        if *run == 0 || *run == 2 {
            commands.insert_resource(Score(*run));
        }
        *run += 1;
    }
    fn reader(score: Option<Res<Score>>, mut seen: ResMut<Seen>) {
        if let Some(score) = score {
            seen.0.push((score.is_added(), score.is_changed()));
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems((inserter, reader).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, vec![(true, true), (false, false), (false, true), (false, false)]);
    assert_eq!(world.resource::<Score>().0, 2);
}

/// A resource removed by commands is gone for a chained system in the same run.
#[test]
fn commands_remove_resource_seen_by_chained_system() {
    fn remover(mut commands: Commands) {
        commands.remove_resource::<Score>();
    }
    fn reader(score: Option<Res<Score>>, mut counts: ResMut<Counts>) {
        counts.0.push(usize::from(score.is_some()));
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.insert_resource(Score(1));
    let mut schedule = Schedule::new();
    schedule.add_systems((reader, remover, reader).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counts>().0, vec![1, 0]);
    assert!(!world.contains_resource::<Score>());
}
