//! Component hooks (`#[component(on_add = .., on_insert = .., on_replace = ..,
//! on_remove = ..)]`): which hooks run for `spawn`, `spawn_batch`, `insert`,
//! `EntityWorldMut::insert`/`remove`/`take`/`despawn`, `remove`, `despawn` and
//! commands; their order within one structural change (every `on_replace`, then
//! every `on_remove`, while the old values are readable; every `on_add` for the
//! new components, then every `on_insert` for the whole bundle, once the new
//! values are written); the `HookContext` they get; what they may write through
//! `DeferredWorld`; the commands they queue (applied in order before the
//! triggering call returns, nested chains included, endless recursion caught);
//! drops (exactly once, hooks or not); and components without hooks.
//!
//! Hooks record their calls in thread-local logs: each test runs on its own
//! thread and starts from a fresh world ([`fresh`] also clears the logs).

use std::cell::RefCell;
use std::collections::BTreeSet;

use ecs::system::CommandQueue;
use ecs_tests::{DropLog, Position, Velocity, panic_message};

use ecs::prelude::*;

// ----- logs -----------------------------------------------------------------------------

thread_local! {
    /// Hook calls (`"A.add(1)"`) and command notes, in order.
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The context of every call of the generic logging hooks, in order.
    static CONTEXTS: RefCell<Vec<HookContext>> = const { RefCell::new(Vec::new()) };
    /// The ids of dropped `Tracked` / `TrackedSparse` values, in drop order.
    static DROPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

fn push(entry: impl Into<String>) {
    LOG.with(|log| log.borrow_mut().push(entry.into()));
}

/// The log since the last call (and clears it).
fn take_log() -> Vec<String> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// The hook contexts since the last call (and clears them).
fn take_contexts() -> Vec<HookContext> {
    CONTEXTS.with(|contexts| std::mem::take(&mut *contexts.borrow_mut()))
}

/// The ids dropped so far, sorted.
fn drops() -> Vec<u32> {
    let mut ids = DROPS.with(|drops| drops.borrow().clone());
    ids.sort_unstable();
    ids
}

/// A new world, with this thread's logs cleared.
fn fresh() -> World {
    take_log();
    take_contexts();
    DROPS.with(|drops| drops.borrow_mut().clear());
    World::new()
}

fn sorted(entries: &[String]) -> BTreeSet<String> {
    entries.iter().cloned().collect()
}

fn set(entries: &[&str]) -> BTreeSet<String> {
    entries.iter().map(|entry| (*entry).to_owned()).collect()
}

/// Asserts that `log` is every `on_replace` call of `replaced` (any order) then
/// every `on_remove` call of `removed` (any order): the order a despawn must
/// follow, whatever the order of the entity's components.
#[track_caller]
fn assert_replace_then_remove(log: &[String], replaced: &[&str], removed: &[&str]) {
    assert_eq!(log.len(), replaced.len() + removed.len(), "log: {log:?}");
    let (first, second) = log.split_at(replaced.len());
    assert_eq!(sorted(first), set(replaced), "the on_replace calls come first; log: {log:?}");
    assert_eq!(sorted(second), set(removed), "then the on_remove calls; log: {log:?}");
}

// ----- generic logging hooks -----------------------------------------------------------

/// A component whose value the logging hooks print.
trait Val: Component {
    fn val(&self) -> u32;
}

/// Logs `"{T::NAME}.{hook}({value})"` (`-` if the entity has no `T` now) and the
/// context, after checking that the context names `T`.
fn log_call<T: Val>(world: &DeferredWorld, ctx: HookContext, hook: &str) {
    assert_eq!(
        Some(ctx.component_id),
        world.world().component_id::<T>(),
        "the {hook} hook of {} got the id of another component",
        T::NAME
    );
    let value = world.get::<T>(ctx.entity).map_or_else(|| "-".to_owned(), |value| value.val().to_string());
    push(format!("{}.{hook}({value})", T::NAME));
    CONTEXTS.with(|contexts| contexts.borrow_mut().push(ctx));
}

fn hook_add<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "add");
}

fn hook_insert<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "insert");
}

fn hook_replace<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "replace");
}

fn hook_remove<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "remove");
}

/// A table component with all four hooks.
#[derive(Component, Debug, PartialEq)]
#[component(
    on_add = hook_add::<A>,
    on_insert = hook_insert::<A>,
    on_replace = hook_replace::<A>,
    on_remove = hook_remove::<A>,
)]
struct A(u32);

/// A second table component with all four hooks.
#[derive(Component, Debug, PartialEq)]
#[component(
    on_add = hook_add::<B>,
    on_insert = hook_insert::<B>,
    on_replace = hook_replace::<B>,
    on_remove = hook_remove::<B>,
)]
struct B(u32);

/// A sparse component with all four hooks.
#[derive(Component, Debug, PartialEq)]
#[component(
    storage = "sparse",
    on_add = hook_add::<S>,
    on_insert = hook_insert::<S>,
    on_replace = hook_replace::<S>,
    on_remove = hook_remove::<S>,
)]
struct S(u32);

/// A zero-sized table component (no column) with all four hooks; its value prints as 0.
#[derive(Component, Debug, PartialEq)]
#[component(
    on_add = hook_add::<Flag>,
    on_insert = hook_insert::<Flag>,
    on_replace = hook_replace::<Flag>,
    on_remove = hook_remove::<Flag>,
)]
struct Flag;

/// A component with only an `on_add` hook.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = hook_add::<OnlyAdd>)]
struct OnlyAdd(u32);

/// A component without hooks.
#[derive(Component, Debug, PartialEq)]
struct Plain(u32);

impl Val for A {
    fn val(&self) -> u32 {
        self.0
    }
}

impl Val for B {
    fn val(&self) -> u32 {
        self.0
    }
}

impl Val for S {
    fn val(&self) -> u32 {
        self.0
    }
}

impl Val for Flag {
    fn val(&self) -> u32 {
        0
    }
}

impl Val for OnlyAdd {
    fn val(&self) -> u32 {
        self.0
    }
}

/// Logs `"Watch.{hook}(A=.., B=..)"`: what the entity's `A` and `B` are when
/// a hook of another component of the same structural change runs.
fn watch(world: &DeferredWorld, ctx: HookContext, hook: &str) {
    let show = |value: Option<u32>| value.map_or_else(|| "-".to_owned(), |value| value.to_string());
    let a = show(world.get::<A>(ctx.entity).map(|a| a.0));
    let b = show(world.get::<B>(ctx.entity).map(|b| b.0));
    push(format!("Watch.{hook}(A={a},B={b})"));
}

fn watch_add(world: DeferredWorld, ctx: HookContext) {
    watch(&world, ctx, "add");
}

fn watch_insert(world: DeferredWorld, ctx: HookContext) {
    watch(&world, ctx, "insert");
}

fn watch_replace(world: DeferredWorld, ctx: HookContext) {
    watch(&world, ctx, "replace");
}

fn watch_remove(world: DeferredWorld, ctx: HookContext) {
    watch(&world, ctx, "remove");
}

/// A zero-sized component whose hooks print the entity's `A` and `B`.
#[derive(Component, Debug)]
#[component(on_add = watch_add, on_insert = watch_insert, on_replace = watch_replace, on_remove = watch_remove)]
struct Watch;

// ----- on_add / on_insert / on_replace ---------------------------------------------------

#[test]
fn spawn_runs_on_add_then_on_insert_with_the_new_value() {
    let mut world = fresh();
    let e = world.spawn(A(1)).id();
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)"]);
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    let f = world.spawn((A(2), B(3))).id();
    assert_eq!(take_log(), ["A.add(2)", "B.add(3)", "A.insert(2)", "B.insert(3)"]);
    assert_eq!((world.get::<A>(f), world.get::<B>(f)), (Some(&A(2)), Some(&B(3))));
    world.check_invariants();
}

#[test]
fn overwriting_runs_on_replace_with_the_old_value_then_on_insert_but_not_on_add() {
    let mut world = fresh();
    let e = world.spawn(A(1)).id();
    take_log();
    assert!(world.insert(e, A(2)));
    assert_eq!(take_log(), ["A.replace(1)", "A.insert(2)"]);
    world.entity_mut(e).insert(A(3));
    assert_eq!(take_log(), ["A.replace(2)", "A.insert(3)"]);
    world.entity_mut(e).insert(A(4)).insert(A(5));
    assert_eq!(take_log(), ["A.replace(3)", "A.insert(4)", "A.replace(4)", "A.insert(5)"]);
    assert_eq!(world.get::<A>(e), Some(&A(5)));
    world.check_invariants();
}

#[test]
fn inserting_a_component_the_entity_lacks_runs_on_add_then_on_insert() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    assert!(take_log().is_empty());
    assert!(world.insert(e, A(1)));
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)"]);
    world.entity_mut(e).insert(B(2));
    assert_eq!(take_log(), ["B.add(2)", "B.insert(2)"]);
    // A value the entity had and lost counts as new again.
    world.remove::<A>(e);
    take_log();
    world.entity_mut(e).insert(A(3));
    assert_eq!(take_log(), ["A.add(3)", "A.insert(3)"]);
    assert_eq!((world.get::<A>(e), world.get::<B>(e)), (Some(&A(3)), Some(&B(2))));
    world.check_invariants();
}

#[test]
fn sparse_and_zero_sized_components_run_the_same_hooks() {
    let mut world = fresh();
    let e = world.spawn(S(1)).id();
    assert_eq!(take_log(), ["S.add(1)", "S.insert(1)"]);
    world.insert(e, S(2));
    assert_eq!(take_log(), ["S.replace(1)", "S.insert(2)"]);
    assert_eq!(world.remove::<S>(e), Some(S(2)));
    assert_eq!(take_log(), ["S.replace(2)", "S.remove(2)"]);
    assert_eq!(world.remove::<S>(e), None);
    assert!(take_log().is_empty());

    world.insert(e, Flag);
    assert_eq!(take_log(), ["Flag.add(0)", "Flag.insert(0)"]);
    world.insert(e, Flag);
    assert_eq!(take_log(), ["Flag.replace(0)", "Flag.insert(0)"]);
    assert_eq!(world.remove::<Flag>(e), Some(Flag));
    assert_eq!(take_log(), ["Flag.replace(0)", "Flag.remove(0)"]);
    assert!(!world.has::<Flag>(e) && !world.has::<S>(e));
    world.check_invariants();
}

#[test]
fn only_the_hook_slots_that_are_set_run() {
    let mut world = fresh();
    let e = world.spawn(OnlyAdd(1)).id();
    assert_eq!(take_log(), ["OnlyAdd.add(1)"]);
    world.insert(e, OnlyAdd(2));
    assert!(take_log().is_empty(), "no on_insert / on_replace slot");
    assert_eq!(world.remove::<OnlyAdd>(e), Some(OnlyAdd(2)));
    assert!(take_log().is_empty(), "no on_replace / on_remove slot");
    world.insert(e, OnlyAdd(3));
    assert_eq!(take_log(), ["OnlyAdd.add(3)"]);
    world.despawn(e);
    assert!(take_log().is_empty());
    world.check_invariants();
}

#[test]
fn spawn_batch_runs_the_hooks_of_each_entity_in_turn() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((1..=3).map(A)).collect();
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)", "A.add(2)", "A.insert(2)", "A.add(3)", "A.insert(3)"]);
    let entities: Vec<Entity> = take_contexts().iter().map(|ctx| ctx.entity).collect();
    assert_eq!(entities, [ids[0], ids[0], ids[1], ids[1], ids[2], ids[2]]);

    // Bundles with sparse and zero-sized parts; dropping the iterator unconsumed
    // spawns (and hooks) every bundle.
    drop(world.spawn_batch((10..12).map(|i| (A(i), S(i + 100), Flag, Plain(i)))));
    assert_eq!(
        take_log(),
        [
            "A.add(10)",
            "S.add(110)",
            "Flag.add(0)",
            "A.insert(10)",
            "S.insert(110)",
            "Flag.insert(0)",
            "A.add(11)",
            "S.add(111)",
            "Flag.add(0)",
            "A.insert(11)",
            "S.insert(111)",
            "Flag.insert(0)",
        ]
    );
    assert_eq!(world.query::<(&A, &S, &Plain)>().iter(&world).count(), 2);
    world.check_invariants();
}

#[test]
fn commands_inserts_run_the_hooks_when_applied() {
    let mut world = fresh();
    let mut queue = CommandQueue::default();
    let e = {
        let mut commands = Commands::new(&mut queue, &world);
        let e = commands.spawn(A(1)).id();
        commands.entity(e).insert(A(2)).insert(B(3));
        e
    };
    assert!(take_log().is_empty(), "nothing runs before the queue is applied");
    queue.apply(&mut world);
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)", "A.replace(1)", "A.insert(2)", "B.add(3)", "B.insert(3)"]);

    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert((A(4), S(5))).remove::<B>();
    });
    assert_eq!(take_log(), ["A.replace(2)", "S.add(5)", "A.insert(4)", "S.insert(5)", "B.replace(3)", "B.remove(3)"]);
    let spawned = world.run_system_once(|mut commands: Commands| commands.spawn((B(6), Plain(7))).id());
    assert_eq!(take_log(), ["B.add(6)", "B.insert(6)"]);
    assert_eq!(world.get::<B>(spawned), Some(&B(6)));
    world.check_invariants();
}

#[test]
fn a_bundle_with_an_existing_and_a_new_component_runs_replace_then_add_then_insert() {
    let mut world = fresh();
    let e = world.spawn(A(1)).id();
    take_log();
    world.insert(e, (A(2), B(3)));
    assert_eq!(take_log(), ["A.replace(1)", "B.add(3)", "A.insert(2)", "B.insert(3)"]);

    // on_insert follows the bundle's order.
    let f = world.spawn(A(1)).id();
    take_log();
    world.insert(f, (B(3), A(2)));
    assert_eq!(take_log(), ["A.replace(1)", "B.add(3)", "B.insert(3)", "A.insert(2)"]);

    // Both existed: both replaced (old values), none added.
    world.insert(f, (B(4), A(5)));
    assert_eq!(take_log(), ["B.replace(3)", "A.replace(2)", "B.insert(4)", "A.insert(5)"]);

    // Sparse, zero-sized and unhooked parts in one bundle.
    let g = world.spawn((S(1), Plain(0))).id();
    take_log();
    world.entity_mut(g).insert((Flag, A(4), S(5), Plain(6)));
    assert_eq!(take_log(), ["S.replace(1)", "Flag.add(0)", "A.add(4)", "Flag.insert(0)", "A.insert(4)", "S.insert(5)"]);
    assert_eq!(world.get::<Plain>(g), Some(&Plain(6)));
    world.check_invariants();
}

#[test]
fn replace_hooks_see_every_old_value_and_add_insert_hooks_every_new_one() {
    let mut world = fresh();
    let e = world.spawn((A(1), B(2), Watch)).id();
    // Every value of the bundle is written before the first on_add.
    assert_eq!(
        take_log(),
        ["A.add(1)", "B.add(2)", "Watch.add(A=1,B=2)", "A.insert(1)", "B.insert(2)", "Watch.insert(A=1,B=2)"]
    );
    // No value is overwritten before the last on_replace.
    world.insert(e, (A(3), B(4), Watch));
    assert_eq!(
        take_log(),
        [
            "A.replace(1)",
            "B.replace(2)",
            "Watch.replace(A=1,B=2)",
            "A.insert(3)",
            "B.insert(4)",
            "Watch.insert(A=3,B=4)"
        ]
    );
    world.insert(e, (Watch, B(5)));
    assert_eq!(take_log(), ["Watch.replace(A=3,B=4)", "B.replace(4)", "Watch.insert(A=3,B=5)", "B.insert(5)"]);
    // No value is removed before the last on_remove.
    world.remove::<(Watch, A)>(e);
    assert_eq!(take_log(), ["Watch.replace(A=3,B=5)", "A.replace(3)", "Watch.remove(A=3,B=5)", "A.remove(3)"]);
    world.insert(e, Watch);
    assert_eq!(take_log(), ["Watch.add(A=-,B=5)", "Watch.insert(A=-,B=5)"]);
    world.check_invariants();
}

// ----- remove and despawn ---------------------------------------------------------------

#[test]
fn remove_runs_on_replace_then_on_remove_with_the_value_readable() {
    let mut world = fresh();
    let e = world.spawn((A(1), B(2), Plain(3))).id();
    take_log();
    assert_eq!(world.remove::<A>(e), Some(A(1)));
    assert_eq!(take_log(), ["A.replace(1)", "A.remove(1)"]);
    assert!(!world.has::<A>(e));

    // Absent components run nothing.
    assert_eq!(world.remove::<A>(e), None);
    assert_eq!(world.remove::<S>(e), None);
    assert_eq!(world.remove::<(A, S, Flag)>(e), None);
    assert!(take_log().is_empty());

    world.insert(e, A(5));
    take_log();
    assert_eq!(world.remove::<(A, B)>(e), Some((A(5), B(2))));
    assert_eq!(take_log(), ["A.replace(5)", "B.replace(2)", "A.remove(5)", "B.remove(2)"]);

    // Partly present: World::remove changes nothing; EntityWorldMut::remove
    // replaces and removes the present part.
    world.insert(e, A(6));
    take_log();
    assert_eq!(world.remove::<(B, A)>(e), None);
    assert!(take_log().is_empty());
    world.entity_mut(e).remove::<(B, A)>();
    assert_eq!(take_log(), ["A.replace(6)", "A.remove(6)"]);
    assert!(!world.has::<A>(e));

    // Through EntityWorldMut.
    world.insert(e, (A(7), S(8)));
    take_log();
    world.entity_mut(e).remove::<S>();
    assert_eq!(take_log(), ["S.replace(8)", "S.remove(8)"]);
    assert_eq!(world.entity_mut(e).take::<A>(), Some(A(7)));
    assert_eq!(take_log(), ["A.replace(7)", "A.remove(7)"]);
    assert_eq!(world.entity_mut(e).take::<A>(), None);
    assert!(take_log().is_empty());

    assert_eq!(world.get::<Plain>(e), Some(&Plain(3)));
    world.check_invariants();
}

#[test]
fn dead_entities_run_no_hooks() {
    let mut world = fresh();
    let e = world.spawn(A(1)).id();
    world.despawn(e);
    take_log();
    assert!(!world.insert(e, A(2)));
    assert_eq!(world.remove::<A>(e), None);
    assert!(!world.despawn(e));
    assert!(take_log().is_empty());
    world.check_invariants();
}

#[test]
fn despawn_runs_every_on_replace_then_every_on_remove_with_the_values_readable() {
    let mut world = fresh();
    let e = world.spawn((A(1), B(2), S(3), Flag, Plain(4), Watch)).id();
    take_log();
    assert!(world.despawn(e));
    assert_replace_then_remove(
        &take_log(),
        &["A.replace(1)", "B.replace(2)", "S.replace(3)", "Flag.replace(0)", "Watch.replace(A=1,B=2)"],
        &["A.remove(1)", "B.remove(2)", "S.remove(3)", "Flag.remove(0)", "Watch.remove(A=1,B=2)"],
    );
    assert!(!world.is_alive(e));
    assert!(!world.despawn(e));
    assert!(take_log().is_empty());
    world.check_invariants();
}

#[test]
fn despawn_runs_the_hooks_of_sparse_components_alone() {
    let mut world = fresh();
    // Only a hooked sparse component: the table side is the empty archetype.
    let e = world.spawn(S(7)).id();
    take_log();
    world.despawn(e);
    assert_eq!(take_log(), ["S.replace(7)", "S.remove(7)"]);

    // A hooked sparse component added to an entity of unhooked components.
    let f = world.spawn((Plain(1), Position::default())).id();
    world.insert(f, S(8));
    take_log();
    world.entity_mut(f).despawn();
    assert_eq!(take_log(), ["S.replace(8)", "S.remove(8)"]);

    // A sparse component removed before the despawn is not reported.
    let g = world.spawn((A(1), S(9))).id();
    world.remove::<S>(g);
    take_log();
    world.despawn(g);
    assert_eq!(take_log(), ["A.replace(1)", "A.remove(1)"]);
    assert!(!world.is_alive(e) && !world.is_alive(f) && !world.is_alive(g));
    world.check_invariants();
}

#[test]
fn despawning_a_parent_runs_the_hooks_of_the_children_it_deletes() {
    let mut world = fresh();
    let parent = world.spawn(A(1)).id();
    let child = world.spawn((A(2), S(3))).id();
    assert!(world.add_pair::<ChildOf>(child, parent));
    take_log();
    take_contexts();
    assert!(world.despawn(parent));
    assert!(!world.is_alive(child));
    let log = take_log();
    let contexts = take_contexts();
    let of = |entity: Entity| -> Vec<String> {
        log.iter().zip(&contexts).filter(|(_, ctx)| ctx.entity == entity).map(|(call, _)| call.clone()).collect()
    };
    assert_eq!(of(parent), ["A.replace(1)", "A.remove(1)"]);
    assert_replace_then_remove(&of(child), &["A.replace(2)", "S.replace(3)"], &["A.remove(2)", "S.remove(3)"]);
    assert_eq!(log.len(), 6);
    world.check_invariants();
}

// ----- HookContext ----------------------------------------------------------------------

#[test]
fn the_hook_context_names_the_entity_and_the_component() {
    let mut world = fresh();
    let e = world.spawn((A(1), S(2))).id();
    let f = world.spawn(A(3)).id();
    let a = world.component_id::<A>().unwrap();
    let s = world.component_id::<S>().unwrap();
    assert_ne!(a, s);
    let ctx = |entity, component_id| HookContext { entity, component_id };
    assert_eq!(take_contexts(), [ctx(e, a), ctx(e, s), ctx(e, a), ctx(e, s), ctx(f, a), ctx(f, a)]);

    world.insert(f, S(4));
    world.remove::<A>(e);
    assert_eq!(take_contexts(), [ctx(f, s), ctx(f, s), ctx(e, a), ctx(e, a)]);
    world.despawn(f);
    let contexts = take_contexts();
    assert_eq!(contexts.len(), 4);
    assert!(contexts.iter().all(|c| c.entity == f));
    assert_eq!(contexts.iter().filter(|c| c.component_id == a).count(), 2);
    assert_eq!(contexts.iter().filter(|c| c.component_id == s).count(), 2);
    take_log();
    world.check_invariants();
}

// ----- what hooks may write -------------------------------------------------------------

#[derive(Resource, Default, Debug, PartialEq)]
struct Inserts(u32);

#[derive(Resource, Default, Debug, PartialEq)]
struct Live(i32);

/// Clamps itself to 100 and sets the entity's `Shield` to half of it, on every insert.
#[derive(Component, Debug, PartialEq)]
#[component(on_insert = health_inserted)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Shield(u32);

fn health_inserted(mut world: DeferredWorld, ctx: HookContext) {
    let health = {
        let mut health = world.get_mut::<Health>(ctx.entity).expect("on_insert sees the new value");
        health.0 = health.0.min(100);
        health.0
    };
    if let Some(mut shield) = world.get_mut::<Shield>(ctx.entity) {
        shield.0 = health / 2;
    }
    if let Some(mut inserts) = world.get_resource_mut::<Inserts>() {
        inserts.0 += 1;
    }
}

/// Counts itself in its target's `Followers` and in the `Live` resource.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = follower_added, on_remove = follower_removed)]
struct Follower(Entity);

#[derive(Component, Debug, PartialEq)]
struct Followers(u32);

fn follower_added(mut world: DeferredWorld, ctx: HookContext) {
    let target = world.get::<Follower>(ctx.entity).unwrap().0;
    if let Some(mut followers) = world.get_mut::<Followers>(target) {
        followers.0 += 1;
    }
    world.get_resource_mut::<Live>().unwrap().0 += 1;
}

fn follower_removed(mut world: DeferredWorld, ctx: HookContext) {
    let target = world.get::<Follower>(ctx.entity).expect("on_remove sees the value").0;
    if let Some(mut followers) = world.get_mut::<Followers>(target) {
        followers.0 -= 1;
    }
    world.get_resource_mut::<Live>().unwrap().0 -= 1;
}

#[test]
fn hooks_write_their_own_and_other_components_through_get_mut() {
    let mut world = fresh();
    world.init_resource::<Inserts>();
    let e = world.spawn((Shield(0), Health(250))).id();
    assert_eq!(world.get::<Health>(e), Some(&Health(100)));
    assert_eq!(world.get::<Shield>(e), Some(&Shield(50)));
    world.insert(e, Health(40));
    assert_eq!((world.get::<Health>(e), world.get::<Shield>(e)), (Some(&Health(40)), Some(&Shield(20))));
    world.entity_mut(e).insert((Health(8), Shield(99)));
    assert_eq!((world.get::<Health>(e), world.get::<Shield>(e)), (Some(&Health(8)), Some(&Shield(4))));
    let f = world.spawn(Health(1000)).id();
    assert_eq!(world.get::<Health>(f), Some(&Health(100)));
    assert_eq!(world.resource::<Inserts>(), &Inserts(4));
    world.check_invariants();
}

#[test]
fn hooks_write_other_entities_and_resources() {
    let mut world = fresh();
    world.init_resource::<Live>();
    let leader = world.spawn(Followers(0)).id();
    let other = world.spawn(Followers(0)).id();
    let a = world.spawn(Follower(leader)).id();
    let b = world.spawn((Follower(leader), Plain(1))).id();
    let c: Vec<Entity> = world.spawn_batch((0..3).map(|_| Follower(other))).collect();
    assert_eq!(world.get::<Followers>(leader), Some(&Followers(2)));
    assert_eq!(world.get::<Followers>(other), Some(&Followers(3)));
    assert_eq!(world.resource::<Live>(), &Live(5));

    // An overwrite is no add/remove: the counts stay.
    world.insert(a, Follower(leader));
    assert_eq!(world.get::<Followers>(leader), Some(&Followers(2)));
    world.remove::<Follower>(a);
    world.despawn(b);
    world.despawn(c[0]);
    assert_eq!(world.get::<Followers>(leader), Some(&Followers(0)));
    assert_eq!(world.get::<Followers>(other), Some(&Followers(2)));
    assert_eq!(world.resource::<Live>(), &Live(2));
    assert_eq!(world.query::<&Follower>().iter(&world).count(), 2);
    world.check_invariants();
}

// ----- commands from hooks --------------------------------------------------------------

/// Inserts `Tagged` with its value into its entity (a command) when added.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = tagger_added)]
struct Tagger(u32);

#[derive(Component, Debug, PartialEq)]
struct Tagged(u32);

fn tagger_added(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Tagger>(ctx.entity).unwrap().0;
    world.commands().entity(ctx.entity).insert(Tagged(n));
}

#[test]
fn commands_from_hooks_are_applied_before_spawn_and_insert_return() {
    let mut world = fresh();
    let e = world.spawn(Tagger(1)).id();
    assert_eq!(world.get::<Tagged>(e), Some(&Tagged(1)));

    let f = world.spawn(Plain(0)).id();
    world.insert(f, Tagger(2));
    assert_eq!(world.get::<Tagged>(f), Some(&Tagged(2)));

    let mut g = world.spawn_empty();
    g.insert(Tagger(3));
    assert_eq!(g.get::<Tagged>(), Some(&Tagged(3)), "seen through the same EntityWorldMut");
    let g = g.id();

    let batch: Vec<Entity> = world.spawn_batch((10..15).map(Tagger)).collect();
    for (i, &entity) in batch.iter().enumerate() {
        assert_eq!(world.get::<Tagged>(entity), Some(&Tagged(10 + i as u32)));
    }
    assert_eq!(world.query::<(&Tagger, &Tagged)>().iter(&world).count(), 8);
    assert!([e, f, g].iter().all(|&entity| world.is_alive(entity)));
    world.check_invariants();
}

/// Spawns a `Spawned` naming its entity (a command) when added.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = spawner_added)]
struct Spawner(u32);

#[derive(Component, Debug, PartialEq)]
struct Spawned {
    parent: Entity,
    n: u32,
}

fn spawner_added(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Spawner>(ctx.entity).unwrap().0;
    world.commands().spawn(Spawned { parent: ctx.entity, n });
}

#[test]
fn hooks_spawn_entities_through_commands() {
    let mut world = fresh();
    let e = world.spawn(Spawner(1)).id();
    let spawned: Vec<(Entity, Entity, u32)> =
        world.query::<(Entity, &Spawned)>().iter(&world).map(|(id, s)| (id, s.parent, s.n)).collect();
    assert_eq!(spawned.len(), 1);
    assert_eq!((spawned[0].1, spawned[0].2), (e, 1));
    assert!(world.is_alive(spawned[0].0));

    // In a batch, the ids reserved by the commands never collide with the batch's.
    let batch: Vec<Entity> = world.spawn_batch((0..10).map(Spawner)).collect();
    let mut spawned: Vec<(Entity, Entity, u32)> =
        world.query::<(Entity, &Spawned)>().iter(&world).map(|(id, s)| (id, s.parent, s.n)).collect();
    spawned.sort_by_key(|&(_, _, n)| n);
    assert_eq!(spawned.len(), 11);
    let mut all: BTreeSet<Entity> = batch.iter().copied().collect();
    all.insert(e);
    for &(id, parent, _) in &spawned {
        assert!(world.is_alive(id));
        assert!(all.insert(id), "{id:?} is used twice");
        assert!(parent == e || batch.contains(&parent));
    }
    for (i, &entity) in batch.iter().enumerate() {
        assert!(spawned.iter().any(|&(_, parent, n)| parent == entity && n == i as u32));
    }
    assert_eq!(world.entity_count(), 22);
    world.check_invariants();
}

/// Despawns the entity it names (a command) when removed.
#[derive(Component, Debug, PartialEq)]
#[component(on_remove = linked_removed)]
struct Linked(Entity);

fn linked_removed(mut world: DeferredWorld, ctx: HookContext) {
    let target = world.get::<Linked>(ctx.entity).unwrap().0;
    world.commands().entity(target).despawn();
}

#[test]
fn commands_from_remove_hooks_are_applied_before_remove_and_despawn_return() {
    let mut world = fresh();
    let target = world.spawn(Plain(1)).id();
    let e = world.spawn(Linked(target)).id();
    assert_eq!(world.remove::<Linked>(e), Some(Linked(target)));
    assert!(!world.is_alive(target));
    assert!(world.is_alive(e));

    // A chain: each despawn's hook despawns the next.
    let c = world.spawn(A(3)).id();
    let b = world.spawn(Linked(c)).id();
    let a = world.spawn(Linked(b)).id();
    take_log();
    assert!(world.despawn(a));
    assert!(!world.is_alive(a) && !world.is_alive(b) && !world.is_alive(c));
    assert_eq!(take_log(), ["A.replace(3)", "A.remove(3)"]);

    let target = world.spawn_empty().id();
    world.spawn(Linked(target)).despawn();
    assert!(!world.is_alive(target));
    world.check_invariants();
}

/// Hooks that log their call and queue a command logging its own application.
fn cmd_hook<T: Component>(mut world: DeferredWorld, ctx: HookContext, hook: &'static str) {
    push(format!("{}.{hook}", T::NAME));
    let entity = ctx.entity;
    world.commands().queue(move |world: &mut World| {
        push(format!("cmd {}.{hook} has={}", T::NAME, world.has::<T>(entity)));
    });
}

fn cmd_add<T: Component>(world: DeferredWorld, ctx: HookContext) {
    cmd_hook::<T>(world, ctx, "add");
}

fn cmd_insert<T: Component>(world: DeferredWorld, ctx: HookContext) {
    cmd_hook::<T>(world, ctx, "insert");
}

fn cmd_replace<T: Component>(world: DeferredWorld, ctx: HookContext) {
    cmd_hook::<T>(world, ctx, "replace");
}

fn cmd_remove<T: Component>(world: DeferredWorld, ctx: HookContext) {
    cmd_hook::<T>(world, ctx, "remove");
}

#[derive(Component, Debug)]
#[component(
    on_add = cmd_add::<CmdA>,
    on_insert = cmd_insert::<CmdA>,
    on_replace = cmd_replace::<CmdA>,
    on_remove = cmd_remove::<CmdA>,
)]
struct CmdA;

#[derive(Component, Debug)]
#[component(
    storage = "sparse",
    on_add = cmd_add::<CmdB>,
    on_insert = cmd_insert::<CmdB>,
    on_replace = cmd_replace::<CmdB>,
    on_remove = cmd_remove::<CmdB>,
)]
struct CmdB;

#[test]
fn commands_from_hooks_run_after_every_hook_in_the_order_they_were_queued() {
    let mut world = fresh();
    let e = world.spawn((CmdA, CmdB)).id();
    assert_eq!(
        take_log(),
        [
            "CmdA.add",
            "CmdB.add",
            "CmdA.insert",
            "CmdB.insert",
            "cmd CmdA.add has=true",
            "cmd CmdB.add has=true",
            "cmd CmdA.insert has=true",
            "cmd CmdB.insert has=true",
        ]
    );
    world.insert(e, (CmdB, CmdA));
    assert_eq!(
        take_log(),
        [
            "CmdB.replace",
            "CmdA.replace",
            "CmdB.insert",
            "CmdA.insert",
            "cmd CmdB.replace has=true",
            "cmd CmdA.replace has=true",
            "cmd CmdB.insert has=true",
            "cmd CmdA.insert has=true",
        ]
    );
    // The commands of remove hooks run after the removal.
    world.remove::<(CmdA, CmdB)>(e);
    assert_eq!(
        take_log(),
        [
            "CmdA.replace",
            "CmdB.replace",
            "CmdA.remove",
            "CmdB.remove",
            "cmd CmdA.replace has=false",
            "cmd CmdB.replace has=false",
            "cmd CmdA.remove has=false",
            "cmd CmdB.remove has=false",
        ]
    );
    world.insert(e, CmdA);
    take_log();
    world.despawn(e);
    assert_eq!(take_log(), ["CmdA.replace", "CmdA.remove", "cmd CmdA.replace has=false", "cmd CmdA.remove has=false"]);
    world.check_invariants();
}

/// `ChainA`'s on_add inserts `ChainB` then notes it; `ChainB`'s inserts
/// `ChainC`; `ChainC`'s logs.
#[derive(Component, Debug)]
#[component(on_add = chain_a_added)]
struct ChainA;

#[derive(Component, Debug)]
#[component(on_add = chain_b_added)]
struct ChainB;

#[derive(Component, Debug)]
#[component(storage = "sparse", on_add = chain_c_added)]
struct ChainC;

fn chain_a_added(mut world: DeferredWorld, ctx: HookContext) {
    push("ChainA.add");
    let mut commands = world.commands();
    commands.entity(ctx.entity).insert(ChainB);
    commands.queue(|world: &mut World| {
        let has = world.query::<(&ChainB, &ChainC)>().iter(world).count();
        push(format!("after ChainB: {has} with ChainB and ChainC"));
    });
}

fn chain_b_added(mut world: DeferredWorld, ctx: HookContext) {
    push("ChainB.add");
    world.commands().entity(ctx.entity).insert(ChainC);
}

fn chain_c_added(_world: DeferredWorld, _ctx: HookContext) {
    push("ChainC.add");
}

#[test]
fn a_chain_of_hook_commands_completes_depth_first_before_the_call_returns() {
    let mut world = fresh();
    let e = world.spawn(ChainA).id();
    assert!(world.has::<ChainB>(e) && world.has::<ChainC>(e));
    assert_eq!(take_log(), ["ChainA.add", "ChainB.add", "ChainC.add", "after ChainB: 1 with ChainB and ChainC"]);

    let f = world.spawn(Plain(0)).id();
    world.entity_mut(f).insert(ChainA);
    assert!(world.has::<ChainB>(f) && world.has::<ChainC>(f));
    take_log();

    // From a system's commands too.
    let g = world.run_system_once(|mut commands: Commands| commands.spawn(ChainA).id());
    assert!(world.has::<ChainB>(g) && world.has::<ChainC>(g));
    assert_eq!(take_log(), ["ChainA.add", "ChainB.add", "ChainC.add", "after ChainB: 3 with ChainB and ChainC"]);
    world.check_invariants();
}

/// Spawns another `Recurse` when added: endless.
#[derive(Component, Debug)]
#[component(on_add = recurse_added)]
struct Recurse;

fn recurse_added(mut world: DeferredWorld, _ctx: HookContext) {
    world.commands().spawn(Recurse);
}

/// Spawns `Countdown(n - 1)` when `Countdown(n > 0)` is added: `n` nested levels.
#[derive(Component, Debug)]
#[component(on_add = countdown_added)]
struct Countdown(u32);

fn countdown_added(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Countdown>(ctx.entity).unwrap().0;
    if n > 0 {
        world.commands().spawn(Countdown(n - 1));
    }
}

#[test]
fn endless_hook_recursion_panics_instead_of_overflowing_the_stack() {
    let mut world = fresh();
    let message = panic_message(|| {
        world.spawn(Recurse);
    });
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");

    // The nesting depth is unwound with the panic: chains work again afterwards,
    // on this thread, up to the limit.
    let mut world = fresh();
    world.spawn(Countdown(10));
    assert_eq!(world.query::<&Countdown>().iter(&world).count(), 11);
    world.check_invariants();
    let message = panic_message(|| {
        fresh().spawn(Recurse);
    });
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");
}

#[test]
fn hook_commands_may_nest_64_levels_but_not_65() {
    let mut world = fresh();
    world.spawn(Countdown(64));
    assert_eq!(world.query::<&Countdown>().iter(&world).count(), 65);
    world.check_invariants();

    let mut world = fresh();
    let message = panic_message(|| {
        world.spawn(Countdown(65));
    });
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");
}

// ----- drops ------------------------------------------------------------------------------

/// A table component with all four hooks that records its drop.
#[derive(Component, Debug, PartialEq)]
#[component(
    on_add = hook_add::<Tracked>,
    on_insert = hook_insert::<Tracked>,
    on_replace = hook_replace::<Tracked>,
    on_remove = hook_remove::<Tracked>,
)]
struct Tracked(u32);

/// A sparse component with all four hooks that records its drop.
#[derive(Component, Debug, PartialEq)]
#[component(
    storage = "sparse",
    on_add = hook_add::<TrackedSparse>,
    on_insert = hook_insert::<TrackedSparse>,
    on_replace = hook_replace::<TrackedSparse>,
    on_remove = hook_remove::<TrackedSparse>,
)]
struct TrackedSparse(u32);

impl Drop for Tracked {
    fn drop(&mut self) {
        DROPS.with(|drops| drops.borrow_mut().push(self.0));
    }
}

impl Drop for TrackedSparse {
    fn drop(&mut self) {
        DROPS.with(|drops| drops.borrow_mut().push(self.0));
    }
}

impl Val for Tracked {
    fn val(&self) -> u32 {
        self.0
    }
}

impl Val for TrackedSparse {
    fn val(&self) -> u32 {
        self.0
    }
}

#[test]
fn hooked_values_are_dropped_exactly_once_across_overwrite_remove_and_despawn() {
    let mut world = fresh();
    let log = DropLog::new();
    let e = world.spawn((Tracked(1), TrackedSparse(2), log.table(100))).id();
    assert!(drops().is_empty());
    world.insert(e, Tracked(3));
    assert_eq!(drops(), [1]);
    world.insert(e, (TrackedSparse(4), log.table(101)));
    assert_eq!(drops(), [1, 2]);
    log.assert_dropped_once([100]);

    let taken = world.remove::<Tracked>(e);
    assert_eq!(drops(), [1, 2], "a taken value is the caller's");
    drop(taken);
    assert_eq!(drops(), [1, 2, 3]);
    world.entity_mut(e).remove::<TrackedSparse>();
    assert_eq!(drops(), [1, 2, 3, 4]);

    world.insert(e, (Tracked(5), TrackedSparse(6)));
    assert!(world.remove::<(Tracked, B)>(e).is_none()); // partial: nothing removed
    assert_eq!(drops(), [1, 2, 3, 4]);
    world.entity_mut(e).remove::<(Tracked, B)>(); // the present part: Tracked dropped
    assert_eq!(drops(), [1, 2, 3, 4, 5]);
    world.insert(e, Tracked(7));
    world.despawn(e);
    assert_eq!(drops(), [1, 2, 3, 4, 5, 6, 7]);
    log.assert_dropped_once([100, 101]);

    let batch: Vec<Entity> = world.spawn_batch((10..13).map(|i| (Tracked(i), TrackedSparse(i + 10)))).collect();
    world.insert(batch[0], Tracked(30));
    world.despawn(batch[1]);
    assert_eq!(drops(), [1, 2, 3, 4, 5, 6, 7, 10, 11, 21]);
    world.check_invariants();
    drop(world);
    assert_eq!(drops(), [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 20, 21, 22, 30]);
}

/// Despawns its entity (a command) when added.
#[derive(Component, Debug)]
#[component(on_add = doomed_added)]
struct Doomed;

fn doomed_added(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

/// Removes its entity's `Tracked` (a command) on every insert.
#[derive(Component, Debug)]
#[component(on_insert = strip_inserted)]
struct Strip;

fn strip_inserted(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).remove::<Tracked>();
}

/// Tries to insert a `Tracked(99)` into its entity (a command) when removed.
#[derive(Component, Debug)]
#[component(on_remove = revive_removed)]
struct Revive;

fn revive_removed(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).try_insert(Tracked(99));
}

#[test]
fn structural_commands_from_hooks_drop_each_value_once() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), TrackedSparse(2), Doomed)).id();
    assert!(!world.is_alive(e), "despawned by its own on_add's command");
    assert_eq!(drops(), [1, 2]);
    assert_replace_then_remove(
        &take_log()[4..],
        &["Tracked.replace(1)", "TrackedSparse.replace(2)"],
        &["Tracked.remove(1)", "TrackedSparse.remove(2)"],
    );

    let f = world.spawn((Tracked(3), Strip)).id();
    assert!(!world.has::<Tracked>(f));
    assert_eq!(drops(), [1, 2, 3]);
    world.insert(f, (Tracked(4), Strip));
    assert!(!world.has::<Tracked>(f));
    assert_eq!(drops(), [1, 2, 3, 4]);

    // The revived value meets a dead entity: dropped with the command.
    let g = world.spawn((Tracked(5), Revive)).id();
    world.despawn(g);
    assert!(!world.is_alive(g));
    assert_eq!(drops(), [1, 2, 3, 4, 5, 99]);
    // Removing Revive alone revives: the command inserts into the living entity.
    let h = world.spawn(Revive).id();
    world.remove::<Revive>(h);
    // (Compare ids: a `Tracked` built for the comparison would log its drop.)
    assert_eq!(world.get::<Tracked>(h).map(|tracked| tracked.0), Some(99));
    world.check_invariants();
    drop(world);
    assert_eq!(drops(), [1, 2, 3, 4, 5, 99, 99]);
}

/// Despawns its entity (a command) when removed.
#[derive(Component, Debug, PartialEq)]
#[component(on_remove = fragile_removed)]
struct Fragile;

fn fragile_removed(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

#[test]
fn a_remove_hook_may_despawn_its_entity() {
    let mut world = fresh();
    let e = world.spawn((Fragile, Tracked(1), Plain(2))).id();
    take_log();
    assert_eq!(world.remove::<Fragile>(e), Some(Fragile));
    assert!(!world.is_alive(e), "despawned before remove returns");
    assert_eq!(take_log(), ["Tracked.replace(1)", "Tracked.remove(1)"]);
    assert_eq!(drops(), [1]);

    let f = world.spawn((Fragile, Tracked(3))).id();
    world.entity_mut(f).remove::<(Fragile, Tracked)>();
    assert!(!world.is_alive(f));
    assert_eq!(drops(), [1, 3]);
    world.check_invariants();
}

// ----- components without hooks ---------------------------------------------------------

#[test]
fn components_without_hooks_are_unaffected_by_hooked_neighbours() {
    let mut world = fresh();
    let log = DropLog::new();
    let plain = world.spawn((Position { x: 1.0, y: 0.0 }, Velocity::default(), Plain(1))).id();
    world.insert(plain, Plain(2));
    world.remove::<Velocity>(plain);
    assert_eq!(world.spawn_batch((0..3).map(Plain)).count(), 3);
    assert!(take_log().is_empty());

    let mixed = world.spawn((A(1), Plain(10), log.table(1))).id();
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)"]);
    // Unhooked bundles into or out of a hooked archetype run nothing.
    world.insert(mixed, (Position::default(), Plain(11)));
    world.insert(mixed, log.table2(2));
    assert_eq!(world.remove::<Position>(mixed), Some(Position::default()));
    world.entity_mut(mixed).remove::<ecs_tests::DropTable2>();
    assert!(take_log().is_empty());
    log.assert_dropped_once([2]);
    // A hooked and an unhooked component in one bundle: only the hooked one reports.
    world.insert(mixed, (Plain(12), A(2)));
    assert_eq!(take_log(), ["A.replace(1)", "A.insert(2)"]);
    assert_eq!(world.remove::<(A, Plain)>(mixed), Some((A(2), Plain(12))));
    assert_eq!(take_log(), ["A.replace(2)", "A.remove(2)"]);

    assert_eq!(world.get::<Plain>(plain), Some(&Plain(2)));
    assert_eq!(world.get::<Position>(plain), Some(&Position { x: 1.0, y: 0.0 }));
    assert_eq!(world.query::<&Plain>().iter(&world).count(), 4);
    assert!(world.despawn(plain));
    assert!(world.despawn(mixed));
    assert!(take_log().is_empty());
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.entity_count(), 3);
    world.check_invariants();
}

// ----- entities reserved by hook commands -------------------------------------------------

/// Spawns a `Spawned` naming its entity (a command) when removed.
#[derive(Component, Debug, PartialEq)]
#[component(on_remove = mourned_removed)]
struct Mourned(u32);

fn mourned_removed(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Mourned>(ctx.entity).expect("on_remove sees the value").0;
    world.commands().spawn(Spawned { parent: ctx.entity, n });
}

/// The `(parent, n)` of every `Spawned`, sorted by `n`.
fn spawned(world: &mut World) -> Vec<(Entity, u32)> {
    let mut spawned: Vec<(Entity, u32)> = world.query::<&Spawned>().iter(world).map(|s| (s.parent, s.n)).collect();
    spawned.sort_by_key(|&(_, n)| n);
    spawned
}

#[test]
fn remove_hooks_spawn_entities_through_commands() {
    let mut world = fresh();
    let e = world.spawn((Mourned(1), Plain(0))).id();
    assert_eq!(world.remove::<Mourned>(e), Some(Mourned(1)));
    assert_eq!(spawned(&mut world), [(e, 1)]);
    world.insert(e, Mourned(2));
    world.entity_mut(e).remove::<Mourned>();
    assert_eq!(spawned(&mut world), [(e, 1), (e, 2)]);
    assert!(world.is_alive(e));
    world.check_invariants();
}

#[test]
fn despawn_hooks_spawn_entities_through_commands() {
    let mut world = fresh();
    let e = world.spawn(Mourned(1)).id();
    assert!(world.despawn(e));
    assert!(!world.is_alive(e));
    assert_eq!(spawned(&mut world), [(e, 1)]);

    let f = world.spawn((Mourned(2), S(0))).id();
    world.entity_mut(f).despawn();
    assert_eq!(spawned(&mut world), [(e, 1), (f, 2)]);

    let parent = world.spawn(Mourned(3)).id();
    let child = world.spawn(Mourned(4)).id();
    assert!(world.add_pair::<ChildOf>(child, parent));
    assert!(world.despawn(parent));
    assert!(!world.is_alive(child));
    assert_eq!(spawned(&mut world), [(e, 1), (f, 2), (parent, 3), (child, 4)]);
    world.check_invariants();
}

#[derive(Resource, Default, Debug)]
struct Reserved(Vec<Entity>);

/// Reserves an empty entity (`commands().spawn_empty()`) when added, and notes it
/// in `Reserved`.
#[derive(Component, Debug)]
#[component(on_add = reserver_added)]
struct Reserver;

fn reserver_added(mut world: DeferredWorld, _ctx: HookContext) {
    let reserved = world.commands().spawn_empty().id();
    world.get_resource_mut::<Reserved>().unwrap().0.push(reserved);
}

#[test]
fn an_entity_reserved_by_a_hook_is_alive_when_the_call_returns() {
    let mut world = fresh();
    world.init_resource::<Reserved>();
    world.spawn(Reserver);
    let reserved = world.resource::<Reserved>().0[0];
    assert!(world.is_alive(reserved), "reserved by spawn's on_add");

    let e = world.spawn_empty().id();
    world.insert(e, Reserver);
    let reserved = world.resource::<Reserved>().0[1];
    assert!(world.is_alive(reserved), "reserved by insert's on_add");
    assert_eq!(world.entity_count(), 4);
    world.check_invariants();
}

#[test]
fn spawn_batch_hooks_may_reserve_entities() {
    let mut world = fresh();
    world.init_resource::<Reserved>();
    let ids: Vec<Entity> = world.spawn_batch([Reserver, Reserver]).collect();
    let reserved = world.resource::<Reserved>().0.clone();
    assert_eq!(reserved.len(), 2);
    let all: BTreeSet<Entity> = ids.iter().chain(&reserved).copied().collect();
    assert_eq!(all.len(), 4, "ids are distinct");
    assert!(all.iter().all(|&entity| world.is_alive(entity)));
    world.check_invariants();
}

#[test]
fn the_nesting_limit_panic_drops_the_runaway_commands() {
    let mut world = fresh();
    let message = panic_message(|| {
        world.spawn(Recurse);
    });
    assert!(message.contains("nested more than 64 levels"), "unexpected message: {message}");
    world.check_invariants();
    take_log();
    let e = world.spawn(A(1)).id();
    assert_eq!(take_log(), ["A.add(1)", "A.insert(1)"]);
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    world.check_invariants();
}
