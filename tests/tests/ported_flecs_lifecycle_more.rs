//! More of Flecs' component lifecycle tests (`test/core/src/ComponentLifecycle.c`,
//! Flecs 4), the ones `ported_flecs_lifecycle.rs` leaves out, restated against
//! this crate's hooks (`#[component(on_add, on_insert, on_replace, on_remove)]`,
//! `fn(DeferredWorld, HookContext)`) and Rust ownership, plus variants of the
//! ported ones in deferred mode (a `CommandQueue`), with sparse storage, with
//! tags, on prefab instances, during `clear_entities` and under panicking hooks.
//!
//! Name mapping (as in `ported_flecs_lifecycle.rs`): `ctor` = the caller builds
//! the value (we check the `on_add` hook and the value), `copy` = a `Clone`
//! call (only `on_instantiate = "override"` clones), `move` = the value moves
//! between archetypes without a drop or a clone, `dtor` = a counted `Drop`
//! (every value dropped exactly once), `on_set` = `on_insert`, `ecs_emplace` =
//! `insert` (queued on a `Commands` when Flecs defers), `emplace` on an
//! existing value with `is_new == false` = `insert_if_new`, `ecs_ensure` on an
//! instance = `get_mut`, world teardown with hooks (`*_on_fini`) =
//! `World::clear_entities` (our `World` drop runs no hooks).
//!
//! Ported here: `ctor_on_tag`, `dtor_on_tag`, `move_on_tag`, `copy_on_tag`
//! (adapted: Flecs refuses ctor/dtor/copy/move hooks on tags; our zero-sized
//! components may have hooks, `Drop` and `Clone`), `ctor_w_emplace_defer`,
//! `on_add_w_emplace_defer`, `on_add_w_emplace_existing`,
//! `ctor_w_emplace_defer_twice`, `ctor_w_emplace_defer_existing`,
//! `emplace_2_components_defer`, `set_and_emplace_defer`,
//! `ctor_w_emplace_exclusive_pair`, `on_add_after_ctor_w_add`,
//! `on_add_after_ctor_w_add_to`, `move_ctor_on_move`,
//! `no_move_no_move_ctor_with_move_dtor_with_ctor_move_dtor`,
//! `on_set_hook_on_auto_override`, `batched_ensure_new_component_w_lifecycle`,
//! `new_w_table_ctor`, `new_w_table_on_add_hook`, `copy_ctor_w_override_w_ensure`,
//! `valid_type_in_dtor_on_fini`, `valid_other_type_of_entity_in_dtor_on_fini`,
//! `delete_in_dtor_other_type_on_fini`, `dtor_component_new_id_while_fini`
//! (all `*_on_fini` through `clear_entities`), and more variants named after
//! the Flecs test they extend.
//!
//! Not ported (no counterpart): `copy_on_clone` (no `ecs_clone`),
//! `ctor_on_add_pair_tag`, `copy_on_override_pair_tag`, `copy_on_set_pair_tag`
//! (a pair whose data type is its target's: our pairs take the relationship's
//! type), `*_w_with*` / `with_*` (`ecs_set_with`), `merge_async_stage_*`,
//! `ctor_move_dtor_from_move_ctor` (async stages), `emplace_grow_*`,
//! `value_move_ctor_invokes_move_ctor`, `move_ctor_*` counts (no user move
//! constructors in Rust: a move is a memcpy), `on_replace_w_ensure` and
//! `on_replace_w_emplace` (`ensure` adding a missing value has no counterpart:
//! `get_mut` never adds), `copy_ctor_w_override_w_emplace`, `illegal_*`,
//! `*_flags`, `ctx*` / `binding_ctx*` / `lifecycle_ctx*`, `on_*_ctx`,
//! `component_init*`, `with_recycled_target` (untyped `ecs_component`),
//! `change_*` / `add_*hook_while_in_use` / `allow_lifecycle_overwrite_*`
//! (hooks are fixed by the derive), `on_validate*`, `free_component_*`
//! (component-id free callbacks).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::prelude::*;
use ecs::system::CommandQueue;

// ----- logs -----------------------------------------------------------------------------

thread_local! {
    /// Hook calls `(hook, entity, value)`, in order.
    static LOG: RefCell<Vec<(&'static str, Entity, u32)>> = const { RefCell::new(Vec::new()) };
    /// How many times each value id was dropped.
    static DROPS: RefCell<BTreeMap<u32, usize>> = const { RefCell::new(BTreeMap::new()) };
    /// `Clone` calls.
    static CLONES: Cell<usize> = const { Cell::new(0) };
    /// Drops of zero-sized [`Flag`] values.
    static FLAG_DROPS: Cell<usize> = const { Cell::new(0) };
}

fn record_drop(id: u32) {
    DROPS.with(|drops| *drops.borrow_mut().entry(id).or_default() += 1);
}

fn drops() -> BTreeMap<u32, usize> {
    DROPS.with(|drops| drops.borrow().clone())
}

/// Asserts every id of `ids` was dropped exactly once and nothing else was.
#[track_caller]
fn assert_dropped_once(ids: &[u32]) {
    let expected: BTreeMap<u32, usize> = ids.iter().map(|&id| (id, 1)).collect();
    assert_eq!(drops(), expected, "drops (id -> count)");
}

fn clones() -> usize {
    CLONES.with(Cell::get)
}

fn count_clone() {
    CLONES.with(|c| c.set(c.get() + 1));
}

fn flag_drops() -> usize {
    FLAG_DROPS.with(Cell::get)
}

fn take_log() -> Vec<(&'static str, Entity, u32)> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

fn push_log(hook: &'static str, entity: Entity, value: u32) {
    LOG.with(|log| log.borrow_mut().push((hook, entity, value)));
}

/// A new world; this thread's logs cleared.
fn fresh() -> World {
    take_log();
    DROPS.with(|drops| drops.borrow_mut().clear());
    CLONES.with(|c| c.set(0));
    FLAG_DROPS.with(|c| c.set(0));
    World::new()
}

/// Runs `f`, expecting it to panic.
#[track_caller]
fn expect_panic(f: impl FnOnce()) {
    assert!(catch_unwind(AssertUnwindSafe(f)).is_err(), "expected a panic");
}

// ----- components -----------------------------------------------------------------------

trait Val: Component {
    fn val(&self) -> u32;
}

/// Logs `(hook, entity, value)` (`u32::MAX` if the entity has no `T` now),
/// after checking the context names `T`.
fn log_call<T: Val>(world: &DeferredWorld, ctx: HookContext, hook: &'static str) {
    assert_eq!(Some(ctx.component_id), world.world().component_id::<T>(), "{hook}: wrong component id");
    let value = world.get::<T>(ctx.entity).map_or(u32::MAX, Val::val);
    push_log(hook, ctx.entity, value);
}

fn log_add<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "add");
}

fn log_insert<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "insert");
}

fn log_replace<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "replace");
}

fn log_remove<T: Val>(world: DeferredWorld, ctx: HookContext) {
    log_call::<T>(&world, ctx, "remove");
}

macro_rules! tracked {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, PartialEq)]
        struct $name(u32);

        impl Drop for $name {
            fn drop(&mut self) {
                record_drop(self.0);
            }
        }

        impl Val for $name {
            fn val(&self) -> u32 {
                self.0
            }
        }
    };
}

tracked!(
    /// All four logging hooks, table storage.
    #[derive(Component)]
    #[component(
        on_add = log_add::<Hooked>,
        on_insert = log_insert::<Hooked>,
        on_replace = log_replace::<Hooked>,
        on_remove = log_remove::<Hooked>,
    )]
    Hooked
);

tracked!(
    /// All four logging hooks, sparse storage.
    #[derive(Component)]
    #[component(
        storage = "sparse",
        on_add = log_add::<SparseHooked>,
        on_insert = log_insert::<SparseHooked>,
        on_replace = log_replace::<SparseHooked>,
        on_remove = log_remove::<SparseHooked>,
    )]
    SparseHooked
);

tracked!(
    /// No hooks.
    #[derive(Component)]
    Tracked
);

tracked!(
    /// Inherited by instances (the default `on_instantiate`), with hooks.
    #[derive(Component)]
    #[component(
        on_add = log_add::<Shared>,
        on_insert = log_insert::<Shared>,
        on_replace = log_replace::<Shared>,
        on_remove = log_remove::<Shared>,
    )]
    Shared
);

tracked!(
    /// Copied into instances (`"override"`), with hooks; clones are counted.
    #[derive(Component)]
    #[component(
        on_instantiate = "override",
        on_add = log_add::<Copied>,
        on_insert = log_insert::<Copied>,
        on_replace = log_replace::<Copied>,
        on_remove = log_remove::<Copied>,
    )]
    Copied
);

impl Clone for Copied {
    fn clone(&self) -> Self {
        count_clone();
        Copied(self.0)
    }
}

/// A zero-sized component with hooks (logged as value 0), a counted `Drop`
/// and a counted `Clone`; copied into instances.
#[derive(Component, Debug)]
#[component(
    on_instantiate = "override",
    on_add = log_add::<Flag>,
    on_insert = log_insert::<Flag>,
    on_replace = log_replace::<Flag>,
    on_remove = log_remove::<Flag>,
)]
struct Flag;

impl Val for Flag {
    fn val(&self) -> u32 {
        0
    }
}

impl Clone for Flag {
    fn clone(&self) -> Self {
        count_clone();
        Flag
    }
}

impl Drop for Flag {
    fn drop(&mut self) {
        FLAG_DROPS.with(|c| c.set(c.get() + 1));
    }
}

/// A plain tag.
#[derive(Component, Debug)]
struct Marker;

/// An exclusive tag relationship.
#[derive(Relationship)]
#[relationship(exclusive)]
struct Rel;

/// Its `on_add` hook inserts `Tracked(n + 100)` (a command), its `on_remove`
/// hook removes `Tracked` (a command).
#[derive(Component, Debug)]
#[component(on_add = adder_added, on_remove = adder_removed)]
struct Adder(u32);

impl Drop for Adder {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

fn adder_added(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Adder>(ctx.entity).unwrap().0;
    world.commands().entity(ctx.entity).insert(Tracked(n + 100));
}

fn adder_removed(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).remove::<Tracked>();
}

/// Its `on_remove` hook despawns the linked entity (a command); tracked by id.
#[derive(Component, Debug)]
#[component(on_remove = link_removed)]
struct Link {
    id: u32,
    other: Entity,
}

impl Drop for Link {
    fn drop(&mut self) {
        record_drop(self.id);
    }
}

fn link_removed(mut world: DeferredWorld, ctx: HookContext) {
    let other = world.get::<Link>(ctx.entity).unwrap().other;
    push_log("unlink", ctx.entity, 0);
    world.commands().entity(other).despawn();
}

/// Its `on_remove` hook records what the world shows of the entity: the
/// `Tracked` value it has (or `u32::MAX`), and whether it still has `Marker`.
#[derive(Component, Debug)]
#[component(on_remove = probe_removed)]
struct Probe(u32);

impl Drop for Probe {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

fn probe_removed(world: DeferredWorld, ctx: HookContext) {
    let tracked = world.get::<Tracked>(ctx.entity).map_or(u32::MAX, |t| t.0);
    push_log("probe_tracked", ctx.entity, tracked);
    push_log("probe_marker", ctx.entity, u32::from(world.world().has::<Marker>(ctx.entity)));
}

/// Its `on_remove` hook spawns a `Tracked(n + 500)` entity (a command).
#[derive(Component, Debug)]
#[component(on_remove = respawn_removed)]
struct Respawn(u32);

impl Drop for Respawn {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

fn respawn_removed(mut world: DeferredWorld, ctx: HookContext) {
    let n = world.get::<Respawn>(ctx.entity).unwrap().0;
    world.commands().spawn(Tracked(n + 500));
}

/// Panics in the hook named by `at` (`"add"`, `"insert"`, `"replace"`,
/// `"remove"`); dropped and cloned like the others.
#[derive(Component, Debug)]
#[component(
    on_instantiate = "override",
    on_add = bomb_add,
    on_insert = bomb_insert,
    on_replace = bomb_replace,
    on_remove = bomb_remove,
)]
struct Bomb {
    id: u32,
    at: &'static str,
}

impl Clone for Bomb {
    fn clone(&self) -> Self {
        count_clone();
        Bomb { id: self.id + 1, at: self.at }
    }
}

impl Drop for Bomb {
    fn drop(&mut self) {
        record_drop(self.id);
    }
}

fn bomb(world: &DeferredWorld, ctx: HookContext, hook: &'static str) {
    let bomb = world.get::<Bomb>(ctx.entity).expect("readable in every hook");
    push_log(hook, ctx.entity, bomb.id);
    if bomb.at == hook {
        panic!("bomb {} went off in {hook}", bomb.id);
    }
}

fn bomb_add(world: DeferredWorld, ctx: HookContext) {
    bomb(&world, ctx, "add");
}

fn bomb_insert(world: DeferredWorld, ctx: HookContext) {
    bomb(&world, ctx, "insert");
}

fn bomb_replace(world: DeferredWorld, ctx: HookContext) {
    bomb(&world, ctx, "replace");
}

fn bomb_remove(world: DeferredWorld, ctx: HookContext) {
    bomb(&world, ctx, "remove");
}

/// Applies what `f` queues on `world`.
fn apply(world: &mut World, f: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, world);
        f(&mut commands);
    }
    queue.apply(world);
}

// ----- tags -----------------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: ctor_on_tag (adapted: a zero-sized component may have hooks)
fn ctor_on_tag() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    world.insert(e, Flag);
    assert_eq!(take_log(), [("add", e, 0), ("insert", e, 0)]);
    assert!(world.has::<Flag>(e));
    assert_eq!(flag_drops(), 0, "the tag value is kept, not dropped, on insert");
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_tag (adapted: a zero-sized value is dropped once)
fn dtor_on_tag() {
    let mut world = fresh();
    let a = world.spawn(Flag).id();
    let b = world.spawn(Flag).id();
    let c = world.spawn(Flag).id();
    take_log();
    world.entity_mut(a).remove::<Flag>();
    assert_eq!(take_log(), [("replace", a, 0), ("remove", a, 0)]);
    assert_eq!(flag_drops(), 1);
    world.despawn(b);
    assert_eq!(take_log(), [("replace", b, 0), ("remove", b, 0)]);
    assert_eq!(flag_drops(), 2);
    world.insert(c, Flag);
    assert_eq!(take_log(), [("replace", c, 0), ("insert", c, 0)]);
    assert_eq!(flag_drops(), 3, "overwriting drops the old tag value");
    drop(world);
    assert_eq!(flag_drops(), 4);
    assert!(take_log().is_empty(), "no hooks at world drop");
}

#[test]
// Flecs ComponentLifecycle.c: move_on_tag (adapted: moving a tag neither drops nor runs hooks)
fn move_on_tag() {
    let mut world = fresh();
    let e = world.spawn((Flag, Tracked(1))).id();
    take_log();
    world.entity_mut(e).insert(Marker);
    world.entity_mut(e).remove::<Marker>();
    world.entity_mut(e).insert(Hooked(2));
    assert_eq!(take_log(), [("add", e, 2), ("insert", e, 2)]);
    assert_eq!(flag_drops(), 0);
    assert_dropped_once(&[]);
    assert!(world.has::<Flag>(e));
    world.despawn(e);
    assert_eq!(flag_drops(), 1);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_tag (adapted: an override tag is cloned once per instance)
fn copy_on_tag() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Flag)).id();
    take_log();
    let i1 = world.instantiate(p);
    let i2 = world.instantiate(p);
    assert_eq!(clones(), 2);
    assert_eq!(take_log(), [("add", i1, 0), ("insert", i1, 0), ("add", i2, 0), ("insert", i2, 0)]);
    assert!(world.owns::<Flag>(i1) && world.owns::<Flag>(i2));
    assert_eq!(flag_drops(), 0);
    world.despawn(i1);
    assert_eq!(flag_drops(), 1);
    drop(world);
    assert_eq!(flag_drops(), 3, "prefab's + two copies");
}

// ----- emplace / deferred inserts -------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer and on_add_w_emplace_defer
fn ctor_w_emplace_defer() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(Hooked(10));
    assert!(!world.has::<Hooked>(e), "not visible before the queue is applied");
    assert!(take_log().is_empty(), "no hook runs while deferred");
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10)]);
    assert_eq!(world.get::<Hooked>(e).map(|h| h.0), Some(10));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_w_emplace_existing (another component is kept, moved)
fn on_add_w_emplace_existing() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), SparseHooked(2))).id();
    take_log();
    world.insert(e, Hooked(3));
    assert_eq!(take_log(), [("add", e, 3), ("insert", e, 3)]);
    assert_dropped_once(&[]);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(1));
    assert_eq!(world.get::<SparseHooked>(e).map(|t| t.0), Some(2));
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer_twice (sparse storage)
fn ctor_w_emplace_defer_twice() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    apply(&mut world, |commands| {
        commands.entity(e).insert(SparseHooked(10));
        commands.entity(e).insert(SparseHooked(20));
    });
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10), ("replace", e, 10), ("insert", e, 20)]);
    assert_eq!(world.get::<SparseHooked>(e).map(|v| v.0), Some(20));
    assert_dropped_once(&[10]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer_existing
fn ctor_w_emplace_defer_existing() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    apply(&mut world, |commands| {
        commands.entity(e).insert(Hooked(2));
        commands.entity(e).insert(Hooked(3));
    });
    assert_eq!(take_log(), [("replace", e, 1), ("insert", e, 2), ("replace", e, 2), ("insert", e, 3)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(3));
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer_existing (emplace on an existing value
// keeps it: `is_new == false`, no hook)
fn emplace_existing_keeps_the_value_insert_if_new() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    assert!(world.insert_if_new(e, Hooked(2)));
    assert!(take_log().is_empty(), "no hook for a kept value");
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(1));
    assert_dropped_once(&[2]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer_existing (deferred `insert_if_new`)
fn emplace_existing_keeps_the_value_insert_if_new_deferred() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    let f = world.spawn_empty().id();
    take_log();
    apply(&mut world, |commands| {
        commands.entity(e).insert_if_new(Hooked(2));
        commands.entity(f).insert_if_new(Hooked(3));
        commands.entity(f).insert_if_new(Hooked(4));
    });
    assert_eq!(take_log(), [("add", f, 3), ("insert", f, 3)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(1));
    assert_eq!(world.get::<Hooked>(f).map(|v| v.0), Some(3));
    assert_dropped_once(&[2, 4]);
}

#[test]
// Flecs ComponentLifecycle.c: emplace_2_components_defer
fn emplace_2_components_defer() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    apply(&mut world, |commands| {
        commands.entity(e).insert(Hooked(10));
        commands.entity(e).insert(SparseHooked(1));
    });
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10), ("add", e, 1), ("insert", e, 1)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(10));
    assert_eq!(world.get::<SparseHooked>(e).map(|v| v.0), Some(1));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: set_and_emplace_defer (a queued spawn, then inserts into it)
fn set_and_emplace_defer() {
    let mut world = fresh();
    let mut queue = CommandQueue::default();
    let e = {
        let mut commands = Commands::new(&mut queue, &world);
        let e = commands.spawn(Hooked(10)).id();
        commands.entity(e).insert((SparseHooked(1), Marker));
        e
    };
    assert!(take_log().is_empty());
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10), ("add", e, 1), ("insert", e, 1)]);
    assert!(world.has::<Marker>(e));
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(10));
    assert_dropped_once(&[]);
    world.despawn(e);
    assert_dropped_once(&[1, 10]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_exclusive_pair
fn ctor_w_emplace_exclusive_pair() {
    let mut world = fresh();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().add_pair::<Rel>(a).id();
    world.insert(e, Hooked(10));
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10)]);
    world.entity_mut(e).add_pair::<Rel>(b);
    assert!(world.has_pair::<Rel>(e, b));
    assert!(!world.has_pair::<Rel>(e, a));
    assert!(take_log().is_empty(), "replacing the pair moves Hooked: no hook");
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(10));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_exclusive_pair (deferred)
fn ctor_w_emplace_exclusive_pair_defer() {
    let mut world = fresh();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().add_pair::<Rel>(a).id();
    apply(&mut world, |commands| {
        commands.entity(e).insert(Hooked(10));
        commands.entity(e).add_pair::<Rel>(b);
    });
    assert_eq!(take_log(), [("add", e, 10), ("insert", e, 10)]);
    assert!(world.has_pair::<Rel>(e, b) && !world.has_pair::<Rel>(e, a));
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(10));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_ctor_w_add (spawn: on_add sees the value)
fn on_add_after_ctor_w_add() {
    let mut world = fresh();
    let e = world.spawn((Hooked(7), Tracked(1))).id();
    assert_eq!(take_log(), [("add", e, 7), ("insert", e, 7)]);
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_ctor_w_add_to (an entity that has a tag)
fn on_add_after_ctor_w_add_to() {
    let mut world = fresh();
    let e = world.spawn(Marker).id();
    assert!(take_log().is_empty());
    world.entity_mut(e).insert(Hooked(7));
    assert_eq!(take_log(), [("add", e, 7), ("insert", e, 7)]);
    assert!(world.has::<Marker>(e));
}

// ----- moves ----------------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: move_ctor_on_move (e2 fills e1's old row: nothing dropped)
fn move_ctor_on_move() {
    let mut world = fresh();
    let e1 = world.spawn((Hooked(1), Tracked(11))).id();
    let e2 = world.spawn((Hooked(2), Tracked(12))).id();
    let p = world.spawn_empty().id();
    take_log();
    world.entity_mut(e1).add_pair::<ChildOf>(p);
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    assert_eq!(world.get::<Hooked>(e1).map(|v| v.0), Some(1));
    assert_eq!(world.get::<Hooked>(e2).map(|v| v.0), Some(2));
    assert_eq!(world.get::<Tracked>(e2).map(|v| v.0), Some(12));
    world.entity_mut(e2).add_pair::<ChildOf>(p);
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    world.despawn(p);
    assert!(!world.is_alive(e1) && !world.is_alive(e2));
    let mut log = take_log();
    log.sort();
    assert_eq!(log, [("remove", e1, 1), ("remove", e2, 2), ("replace", e1, 1), ("replace", e2, 2)]);
    assert_dropped_once(&[1, 2, 11, 12]);
}

#[test]
// Flecs ComponentLifecycle.c: no_move_no_move_ctor_with_move_dtor_with_ctor_move_dtor
fn no_move_no_move_ctor_with_move_dtor_with_ctor_move_dtor() {
    let mut world = fresh();
    let ids: Vec<Entity> = (1..=3).map(|i| world.spawn(Hooked(i)).id()).collect();
    take_log();
    world.insert(ids[1], Tracked(20));
    assert!(take_log().is_empty(), "moving Hooked runs no hook");
    assert_dropped_once(&[]);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(i as u32 + 1));
    }
    drop(world);
    assert_dropped_once(&[1, 2, 3, 20]);
}

#[test]
// Flecs ComponentLifecycle.c: move_ctor_on_move (sparse values stay put while the entity moves)
fn sparse_value_is_not_moved_or_dropped_by_table_moves() {
    let mut world = fresh();
    let e = world.spawn((SparseHooked(1), Tracked(2))).id();
    take_log();
    world.entity_mut(e).insert(Marker).remove::<Tracked>().insert(Hooked(3));
    assert_eq!(take_log(), [("add", e, 3), ("insert", e, 3)]);
    assert_dropped_once(&[2]);
    assert_eq!(world.get::<SparseHooked>(e).map(|v| v.0), Some(1));
    world.despawn(e);
    assert_dropped_once(&[1, 2, 3]);
}

#[test]
// Flecs ComponentLifecycle.c: batched_ensure_new_component_w_lifecycle
fn batched_ensure_new_component_w_lifecycle() {
    let mut world = fresh();
    let mut queue = CommandQueue::default();
    let e = {
        let mut commands = Commands::new(&mut queue, &world);
        let e = commands.spawn_empty().id();
        commands.entity(e).insert(Hooked(1));
        commands.entity(e).insert(Marker);
        e
    };
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1)]);
    assert!(world.has::<Marker>(e));
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(1));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: new_w_table_ctor (spawn_batch: values arrive intact, none dropped)
fn new_w_table_ctor() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((0..4).map(|i| (Hooked(i), Tracked(10 + i)))).collect();
    assert_eq!(ids.len(), 4);
    assert_dropped_once(&[]);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(i as u32));
        assert_eq!(world.get::<Tracked>(e).map(|v| v.0), Some(10 + i as u32));
    }
    drop(world);
    assert_dropped_once(&[0, 1, 2, 3, 10, 11, 12, 13]);
}

#[test]
// Flecs ComponentLifecycle.c: new_w_table_on_add_hook
fn new_w_table_on_add_hook() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (SparseHooked(i),))).collect();
    let adds: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(h, _, _)| *h == "add").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(adds, [(ids[0], 0), (ids[1], 1), (ids[2], 2)]);
}

// ----- prefabs --------------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: on_set_hook_on_auto_override (an instance that overrides an
// inherited value gets its own, with hooks; removing it uncovers the prefab's)
fn on_set_hook_on_auto_override() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Shared(10))).id();
    assert_eq!(take_log(), [("add", p, 10), ("insert", p, 10)]);
    let i = world.instantiate(p);
    assert_eq!(world.get::<Shared>(i).map(|v| v.0), Some(10));
    world.insert(i, Shared(20));
    assert_eq!(take_log(), [("add", i, 20), ("insert", i, 20)]);
    assert!(world.owns::<Shared>(i));
    assert_eq!(world.get::<Shared>(p).map(|v| v.0), Some(10));
    assert_dropped_once(&[]);
    world.entity_mut(i).remove::<Shared>();
    assert_eq!(take_log(), [("replace", i, 20), ("remove", i, 20)]);
    assert_dropped_once(&[20]);
    assert_eq!(world.get::<Shared>(i).map(|v| v.0), Some(10), "the prefab's value shows again");
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override_w_ensure (adapted: `get_mut` never
// overrides an inherited value; an "override" value is owned and mutable at once)
fn copy_ctor_w_override_w_ensure() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Shared(10), Copied(20))).id();
    take_log();
    let i = world.instantiate(p);
    assert_eq!(clones(), 1, "only the override component is cloned");
    assert!(world.has::<Shared>(i) && !world.owns::<Shared>(i));
    assert!(world.get_mut::<Shared>(i).is_none(), "an inherited value is not handed out mutably");
    world.get_mut::<Copied>(i).expect("own copy").0 = 21;
    assert_eq!(world.get::<Copied>(p).map(|v| v.0), Some(20));
    assert_eq!(take_log(), [("add", i, 20), ("insert", i, 20)], "hooks run for the copy only");
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override_w_ensure (no ctor/hook on instantiate
// for an inherited value)
fn instantiate_runs_no_hooks_for_inherited_values() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Shared(10), SparseHooked(5))).id();
    take_log();
    let i = world.instantiate(p);
    let j = world.spawn(Marker).add_pair::<IsA>(p).id();
    assert!(take_log().is_empty(), "nothing is added to the instances");
    assert_eq!(world.get::<Shared>(i).map(|v| v.0), Some(10));
    assert_eq!(world.get::<Shared>(j).map(|v| v.0), Some(10));
    world.despawn(i);
    world.despawn(j);
    assert!(take_log().is_empty(), "instances own nothing hooked");
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (despawning the prefab: instances keep their
// copies; only the prefab's own values run hooks and drop)
fn despawning_a_prefab_keeps_instance_copies() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Shared(10), Copied(20))).id();
    let i = world.instantiate(p);
    take_log();
    world.despawn(p);
    let mut log = take_log();
    log.sort();
    assert_eq!(log, [("remove", p, 10), ("remove", p, 20), ("replace", p, 10), ("replace", p, 20)]);
    assert_eq!(drops(), BTreeMap::from([(10, 1), (20, 1)]));
    assert!(world.is_alive(i));
    assert_eq!(world.get::<Copied>(i).map(|v| v.0), Some(20));
    assert_eq!(world.get::<Shared>(i), None);
    world.despawn(i);
    assert_eq!(take_log(), [("replace", i, 20), ("remove", i, 20)]);
    assert_eq!(drops(), BTreeMap::from([(10, 1), (20, 2)]));
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override (deferred: a queued instantiate clones at apply)
fn copy_on_override_defer() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(20))).id();
    take_log();
    let mut queue = CommandQueue::default();
    let i = Commands::new(&mut queue, &world).spawn_empty().add_pair::<IsA>(p).id();
    assert_eq!(clones(), 0);
    queue.apply(&mut world);
    assert_eq!(clones(), 1);
    assert_eq!(take_log(), [("add", i, 20), ("insert", i, 20)]);
    assert!(world.owns::<Copied>(i));
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(20, 2)]));
}

// ----- deferred hooks -------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: on_remove_after_remove (deferred: runs at apply, value readable)
fn on_remove_after_remove_defer() {
    let mut world = fresh();
    let e = world.spawn((Hooked(1), SparseHooked(2))).id();
    take_log();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).remove::<(Hooked, SparseHooked)>();
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    queue.apply(&mut world);
    let log = take_log();
    assert_eq!(log.len(), 4);
    let mut replaces = log[..2].to_vec();
    replaces.sort();
    let mut removes = log[2..].to_vec();
    removes.sort();
    assert_eq!(replaces, [("replace", e, 1), ("replace", e, 2)]);
    assert_eq!(removes, [("remove", e, 1), ("remove", e, 2)]);
    assert_dropped_once(&[1, 2]);
    assert!(world.is_alive(e));
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_stage (hooks run at apply, on the values)
fn on_remove_after_delete_defer() {
    let mut world = fresh();
    let e = world.spawn((Hooked(1), Tracked(2))).id();
    take_log();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).despawn();
    assert!(take_log().is_empty());
    queue.apply(&mut world);
    assert_eq!(take_log(), [("replace", e, 1), ("remove", e, 1)]);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer then remove in the same queue
fn add_then_remove_in_one_queue() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    apply(&mut world, |commands| {
        commands.entity(e).insert(Hooked(1));
        commands.entity(e).remove::<Hooked>();
    });
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1), ("replace", e, 1), ("remove", e, 1)]);
    assert!(!world.has::<Hooked>(e));
    assert_dropped_once(&[1]);
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_stage (spawn and despawn in one queue)
fn spawn_then_despawn_in_one_queue() {
    let mut world = fresh();
    let mut queue = CommandQueue::default();
    let e = {
        let mut commands = Commands::new(&mut queue, &world);
        let e = commands.spawn((Hooked(1), Tracked(2))).id();
        commands.entity(e).despawn();
        e
    };
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1), ("replace", e, 1), ("remove", e, 1)]);
    assert!(!world.is_alive(e));
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_stage (a queued insert after a queued despawn)
fn insert_after_despawn_in_one_queue_drops_the_value() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    apply(&mut world, |commands| {
        commands.entity(e).despawn();
        commands.entity(e).try_insert(Hooked(2));
    });
    assert_eq!(take_log(), [("replace", e, 1), ("remove", e, 1)]);
    assert!(!world.is_alive(e));
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: on_set_after_set (deferred: on_insert on every queued set, in order)
fn on_set_after_set_defer_2_entities() {
    let mut world = fresh();
    let a = world.spawn(Hooked(1)).id();
    let b = world.spawn_empty().id();
    take_log();
    apply(&mut world, |commands| {
        commands.entity(b).insert(Hooked(2));
        commands.entity(a).insert(Hooked(3));
    });
    assert_eq!(take_log(), [("add", b, 2), ("insert", b, 2), ("replace", a, 1), ("insert", a, 3)]);
    assert_dropped_once(&[1]);
}

// ----- hooks that add and remove other components ---------------------------------------

#[test]
// Flecs ComponentLifecycle.c: on_add hook that adds a component (Flecs `on_add` + ecs_set)
fn on_add_hook_adds_component() {
    let mut world = fresh();
    let e = world.spawn(Adder(1)).id();
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(101));
    world.entity_mut(e).remove::<Adder>();
    assert!(!world.has::<Tracked>(e), "the on_remove hook removed it");
    assert_dropped_once(&[1, 101]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add hook that sets an existing component (overwrites once)
fn on_add_hook_overwrites_existing_component() {
    let mut world = fresh();
    let e = world.spawn(Tracked(5)).id();
    world.insert(e, Adder(2));
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(102));
    assert_dropped_once(&[5]);
    world.despawn(e);
    assert_dropped_once(&[2, 5, 102]);
}

#[test]
// Flecs ComponentLifecycle.c: new_w_table_on_add_hook (a hook that adds a component, in bulk)
fn on_add_hook_adds_component_in_bulk() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Adder(i),))).collect();
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(100 + i as u32));
    }
    drop(world);
    assert_dropped_once(&[0, 1, 2, 100, 101, 102]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add hook that adds a component, deferred
fn on_add_hook_adds_component_defer() {
    let mut world = fresh();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn(Adder(3)).id();
    queue.apply(&mut world);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(103));
    apply(&mut world, |commands| commands.entity(e).despawn());
    assert!(!world.is_alive(e));
    assert_dropped_once(&[3, 103]);
}

#[test]
// Flecs ComponentLifecycle.c: delete_self_in_dtor_on_delete (two entities whose remove hooks
// despawn each other)
fn remove_hooks_that_despawn_each_other() {
    let mut world = fresh();
    let a = world.spawn(Tracked(1)).id();
    let b = world.spawn((Tracked(2), Link { id: 12, other: a })).id();
    world.insert(a, Link { id: 11, other: b });
    world.despawn(a);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert_eq!(take_log(), [("unlink", a, 0), ("unlink", b, 0)]);
    assert_dropped_once(&[1, 2, 11, 12]);
}

#[test]
// Flecs ComponentLifecycle.c: delete_self_in_dtor_on_delete (an entity linked to itself)
fn remove_hook_that_despawns_its_own_entity() {
    let mut world = fresh();
    let a = world.spawn(Tracked(1)).id();
    world.insert(a, Link { id: 11, other: a });
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert_eq!(take_log(), [("unlink", a, 0)]);
    assert_dropped_once(&[1, 11]);
}

// ----- teardown (clear_entities) --------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: valid_type_in_dtor_on_fini (the entity's other values are
// readable in the remove hook)
fn valid_type_in_dtor_on_fini() {
    let mut world = fresh();
    let e = world.spawn((Probe(1), Tracked(2), Marker)).id();
    world.clear_entities();
    assert_eq!(take_log(), [("probe_tracked", e, 2), ("probe_marker", e, 1)]);
    assert_eq!(world.entity_count(), 0);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: valid_other_type_of_entity_in_dtor_on_fini
fn valid_other_type_of_entity_in_dtor_on_fini() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..3).map(|i| world.spawn((Probe(i), Tracked(10 + i), Hooked(20 + i))).id()).collect();
    take_log();
    world.clear_entities();
    let probes: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(h, _, _)| *h == "probe_tracked").map(|(_, e, v)| (e, v)).collect();
    let mut probes = probes;
    probes.sort();
    let mut expected: Vec<(Entity, u32)> = ids.iter().enumerate().map(|(i, &e)| (e, 10 + i as u32)).collect();
    expected.sort();
    assert_eq!(probes, expected);
    assert_dropped_once(&[0, 1, 2, 10, 11, 12, 20, 21, 22]);
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_dtor_other_type_on_fini
fn delete_in_dtor_other_type_on_fini() {
    let mut world = fresh();
    let a = world.spawn(Tracked(1)).id();
    let b = world.spawn((Tracked(2), Link { id: 12, other: a })).id();
    let c = world.spawn((Hooked(3), Link { id: 13, other: b })).id();
    world.clear_entities();
    assert!(!world.is_alive(a) && !world.is_alive(b) && !world.is_alive(c));
    assert_eq!(world.entity_count(), 0);
    assert_dropped_once(&[1, 2, 3, 12, 13]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_component_new_id_while_fini (a remove hook that spawns
// while every entity is being despawned)
fn dtor_component_new_id_while_fini() {
    let mut world = fresh();
    world.spawn(Respawn(1));
    world.spawn(Respawn(2));
    world.clear_entities();
    assert_eq!(world.entity_count(), 0, "every user entity is despawned");
    assert_dropped_once(&[1, 2, 501, 502]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_component_new_id_while_fini (every value dropped once)
fn dtor_component_new_id_while_fini_drops_once() {
    let mut world = fresh();
    world.spawn(Respawn(1));
    world.spawn(Respawn(2));
    world.clear_entities();
    drop(world);
    assert_dropped_once(&[1, 2, 501, 502]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_fini (clear_entities runs the hooks; the world's drop does not)
fn hooks_run_on_clear_but_not_on_world_drop() {
    let mut world = fresh();
    let a = world.spawn(Hooked(1)).id();
    world.clear_entities();
    assert_eq!(take_log(), [("add", a, 1), ("insert", a, 1), ("replace", a, 1), ("remove", a, 1)]);
    world.spawn(SparseHooked(2));
    take_log();
    drop(world);
    assert!(take_log().is_empty());
    assert_dropped_once(&[1, 2]);
}

// ----- panicking hooks ------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer (an on_add hook that panics while a
// queue is applied: the value stays, every value is dropped once)
fn panicking_on_add_hook_in_deferred_insert_drops_once() {
    let mut world = fresh();
    let e = world.spawn(Tracked(1)).id();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(e).insert(Bomb { id: 10, at: "add" });
        commands.entity(e).insert(Tracked(2));
    }
    expect_panic(|| queue.apply(&mut world));
    assert_eq!(world.get::<Bomb>(e).map(|b| b.id), Some(10), "on_add runs after the change");
    drop(queue);
    drop(world);
    let d = drops();
    assert_eq!(d.get(&10), Some(&1));
    assert_eq!(d.get(&1), Some(&1));
    assert!(d.get(&2).is_none_or(|&n| n == 1), "{d:?}");
    assert!(d.values().all(|&n| n == 1), "{d:?}");
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (an on_insert hook that panics on the copy:
// the prefab's value and the copy are each dropped once)
fn panicking_on_insert_hook_on_instantiate_drops_once() {
    let mut world = fresh();
    let p = world.spawn(Prefab).id();
    world.insert(p, Bomb { id: 10, at: "none" });
    if let Some(mut b) = world.get_mut::<Bomb>(p) {
        b.at = "insert";
    }
    take_log();
    let mut instance = None;
    expect_panic(|| instance = Some(world.instantiate(p)));
    assert_eq!(clones(), 1);
    assert_eq!(take_log().first().map(|(h, _, v)| (*h, *v)), Some(("add", 11)));
    // The world stays usable.
    let other = world.spawn(Tracked(1)).id();
    world.despawn(other);
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(1, 1), (10, 1), (11, 1)]));
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_fini (a panicking remove hook during clear_entities:
// the entity is still despawned and every value dropped once)
fn panicking_on_remove_hook_during_clear_drops_once() {
    let mut world = fresh();
    let a = world.spawn((Bomb { id: 10, at: "remove" }, Tracked(1))).id();
    let b = world.spawn((Hooked(2), Tracked(3))).id();
    expect_panic(|| world.clear_entities());
    assert!(!world.is_alive(a), "a despawn always completes");
    world.clear_entities();
    assert!(!world.is_alive(b));
    assert_eq!(world.entity_count(), 0);
    drop(world);
    assert_dropped_once(&[1, 2, 3, 10]);
}

#[test]
// Flecs ComponentLifecycle.c: on_replace_w_set_existing (a panicking on_replace stops the
// overwrite: the old value stays, the new one is dropped once)
fn panicking_on_replace_hook_in_deferred_set_drops_once() {
    let mut world = fresh();
    let e = world.spawn(Bomb { id: 10, at: "replace" }).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(Bomb { id: 20, at: "none" });
    expect_panic(|| queue.apply(&mut world));
    assert_eq!(world.get::<Bomb>(e).map(|b| b.id), Some(10));
    assert_dropped_once(&[20]);
    world.get_mut::<Bomb>(e).unwrap().at = "none";
    world.despawn(e);
    assert_dropped_once(&[10, 20]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_new (a panicking on_add on a value moved by a
// later insert: nothing dropped twice)
fn panicking_on_add_hook_then_moves_drop_once() {
    let mut world = fresh();
    let e = world.spawn(Tracked(1)).id();
    expect_panic(|| {
        world.insert(e, Bomb { id: 10, at: "add" });
    });
    assert_eq!(world.get::<Bomb>(e).map(|b| b.id), Some(10));
    world.insert(e, Marker);
    world.insert(e, Hooked(2));
    assert_eq!(world.get::<Bomb>(e).map(|b| b.id), Some(10));
    assert_dropped_once(&[]);
    world.get_mut::<Bomb>(e).unwrap().at = "none";
    world.despawn(e);
    assert_dropped_once(&[1, 2, 10]);
}

// ----- hooks and observers --------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: on_set_after_set / on_remove_after_remove, with observers
// (documented order: on_add hook, OnAdd observer, on_insert hook, OnInsert observer; on
// removal OnReplace observer, on_replace hook, OnRemove observer, on_remove hook)
fn hooks_and_observers_order() {
    let mut world = fresh();
    world.add_observer(|t: Trigger<OnAdd, Hooked>| push_log("obs_add", t.entity(), 0));
    world.add_observer(|t: Trigger<OnInsert, Hooked>| push_log("obs_insert", t.entity(), 0));
    world.add_observer(|t: Trigger<OnReplace, Hooked>| push_log("obs_replace", t.entity(), 0));
    world.add_observer(|t: Trigger<OnRemove, Hooked>| push_log("obs_remove", t.entity(), 0));
    let e = world.spawn(Hooked(1)).id();
    assert_eq!(take_log(), [("add", e, 1), ("obs_add", e, 0), ("insert", e, 1), ("obs_insert", e, 0)]);
    world.insert(e, Hooked(2));
    assert_eq!(take_log(), [("obs_replace", e, 0), ("replace", e, 1), ("insert", e, 2), ("obs_insert", e, 0)]);
    world.entity_mut(e).remove::<Hooked>();
    assert_eq!(take_log(), [("obs_replace", e, 0), ("replace", e, 2), ("obs_remove", e, 0), ("remove", e, 2)]);
    assert_dropped_once(&[1, 2]);
}

// ----- more prefab and storage variants -------------------------------------------------

tracked!(
    /// Copied into instances, sparse storage, with hooks; clones are counted.
    #[derive(Component)]
    #[component(
        storage = "sparse",
        on_instantiate = "override",
        on_add = log_add::<SparseCopied>,
        on_insert = log_insert::<SparseCopied>,
        on_replace = log_replace::<SparseCopied>,
        on_remove = log_remove::<SparseCopied>,
    )]
    SparseCopied
);

impl Clone for SparseCopied {
    fn clone(&self) -> Self {
        count_clone();
        SparseCopied(self.0)
    }
}

tracked!(
    /// A toggleable component with hooks.
    #[derive(Component)]
    #[component(
        toggle,
        on_add = log_add::<Toggled>,
        on_insert = log_insert::<Toggled>,
        on_replace = log_replace::<Toggled>,
        on_remove = log_remove::<Toggled>,
    )]
    Toggled
);

#[test]
// Flecs ComponentLifecycle.c: on_set_hook_on_override (sparse storage: the copy's hooks run)
fn on_set_hook_on_override_sparse() {
    let mut world = fresh();
    let p = world.spawn((Prefab, SparseCopied(10))).id();
    assert_eq!(take_log(), [("add", p, 10), ("insert", p, 10)]);
    let i = world.instantiate(p);
    assert_eq!(clones(), 1);
    assert_eq!(take_log(), [("add", i, 10), ("insert", i, 10)]);
    world.despawn(i);
    assert_eq!(take_log(), [("replace", i, 10), ("remove", i, 10)]);
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(10, 2)]));
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (IsA given in a spawn bundle: one copy, hooks once)
fn copy_on_override_isa_in_spawn_bundle() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10))).id();
    take_log();
    let i = world.spawn((Marker, IsA.pair(p))).id();
    assert_eq!(clones(), 1);
    assert_eq!(take_log(), [("add", i, 10), ("insert", i, 10)]);
    assert!(world.owns::<Copied>(i) && world.has::<Marker>(i));
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(10, 2)]));
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override (a value given in the same spawn wins:
// its hooks see it, never the prefab's)
fn override_value_given_in_spawn_hooks_see_it() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10))).id();
    take_log();
    let i = world.spawn((Copied(20), IsA.pair(p))).id();
    let log: Vec<(&str, Entity, u32)> = take_log();
    assert!(log.iter().all(|&(_, e, _)| e == i), "{log:?}");
    assert_eq!(log.last(), Some(&("insert", i, 20)), "{log:?}");
    assert_eq!(log.iter().filter(|(h, _, _)| *h == "add").count(), 1, "{log:?}");
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(20));
    drop(world);
    assert_eq!(drops().get(&20), Some(&1));
    assert_eq!(drops().get(&10), Some(&(1 + clones())));
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (removing IsA keeps the copies: no hook, no drop)
fn removing_isa_keeps_override_copies() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10), Shared(5))).id();
    let i = world.instantiate(p);
    take_log();
    world.entity_mut(i).remove_pair::<IsA>(p);
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    assert!(world.owns::<Copied>(i));
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(10));
    assert_eq!(world.get::<Shared>(i), None);
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (a value added to the prefab later is not
// copied into existing instances; only the prefab's hooks run)
fn override_added_to_prefab_later_is_not_copied() {
    let mut world = fresh();
    let p = world.spawn(Prefab).id();
    let i = world.instantiate(p);
    world.insert(p, Copied(10));
    assert_eq!(take_log(), [("add", p, 10), ("insert", p, 10)]);
    assert_eq!(clones(), 0);
    assert!(!world.owns::<Copied>(i));
    world.insert(p, Shared(3));
    world.insert(p, Shared(4));
    assert_eq!(
        take_log(),
        [("add", p, 3), ("insert", p, 3), ("replace", p, 3), ("insert", p, 4)],
        "only the prefab's hooks run"
    );
    assert_eq!(world.get::<Shared>(i).map(|v| v.0), Some(4));
    assert_dropped_once(&[3]);
}

#[test]
// Flecs ComponentLifecycle.c: on_nested_prefab_copy_test_invokes_copy_count (prefab
// children's copies run their hooks on the instantiated children)
fn override_copies_in_prefab_children_run_hooks() {
    let mut world = fresh();
    let parent = world.spawn((Prefab, Copied(1))).id();
    world.spawn((Prefab, Copied(2), ChildOf.pair(parent)));
    take_log();
    let inst = world.instantiate(parent);
    let kids: Vec<Entity> = world.children(inst).collect();
    assert_eq!(kids.len(), 1);
    let mut log = take_log();
    log.sort();
    let mut expected = vec![("add", inst, 1), ("insert", inst, 1), ("add", kids[0], 2), ("insert", kids[0], 2)];
    expected.sort();
    assert_eq!(log, expected);
    world.despawn(inst);
    let mut log = take_log();
    log.sort();
    let mut expected = vec![("replace", inst, 1), ("remove", inst, 1), ("replace", kids[0], 2), ("remove", kids[0], 2)];
    expected.sort();
    assert_eq!(log, expected);
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(1, 2), (2, 2)]));
}

// ----- toggles, disabled entities, bundles ----------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: no_copy_on_move (toggling runs no hook and drops nothing; a
// disabled value is still removed with its hooks)
fn toggling_runs_no_hooks() {
    let mut world = fresh();
    let e = world.spawn((Toggled(1), Tracked(2))).id();
    take_log();
    world.entity_mut(e).disable::<Toggled>();
    world.entity_mut(e).enable::<Toggled>();
    world.entity_mut(e).disable::<Toggled>();
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    world.despawn(e);
    assert_eq!(take_log(), [("replace", e, 1), ("remove", e, 1)]);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: on_set_after_set (a disabled toggle value overwritten)
fn overwriting_a_disabled_toggle_value() {
    let mut world = fresh();
    let e = world.spawn(Toggled(1)).id();
    world.entity_mut(e).disable::<Toggled>();
    take_log();
    world.insert(e, Toggled(2));
    assert_eq!(take_log(), [("replace", e, 1), ("insert", e, 2)]);
    assert_dropped_once(&[1]);
    drop(world);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: on_remove_after_delete (a Disabled entity runs its hooks too)
fn disabled_entity_runs_hooks_on_despawn() {
    let mut world = fresh();
    let e = world.spawn((Hooked(1), SparseHooked(2), Disabled)).id();
    take_log();
    world.despawn(e);
    let mut log = take_log();
    log.sort();
    assert_eq!(log, [("remove", e, 1), ("remove", e, 2), ("replace", e, 1), ("replace", e, 2)]);
    assert_dropped_once(&[1, 2]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_w_emplace_defer_existing (a bundle half present: kept
// values run no hook, new ones run on_add/on_insert)
fn insert_if_new_bundle_partly_present() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    assert!(world.insert_if_new(e, (Hooked(2), SparseHooked(3))));
    assert_eq!(take_log(), [("add", e, 3), ("insert", e, 3)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(1));
    assert_dropped_once(&[2]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_remove (take: hooks run, the values are the caller's)
fn take_bundle_runs_remove_hooks_and_does_not_drop() {
    let mut world = fresh();
    let e = world.spawn((Hooked(1), SparseHooked(2), Tracked(3))).id();
    take_log();
    let taken = world.entity_mut(e).take::<(Hooked, SparseHooked)>();
    let log = take_log();
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(log[..2].iter().all(|(h, _, _)| *h == "replace") && log[2..].iter().all(|(h, _, _)| *h == "remove"));
    assert_dropped_once(&[]);
    let (h, s) = taken.expect("both present");
    assert_eq!((h.0, s.0), (1, 2));
    drop((h, s));
    assert_dropped_once(&[1, 2]);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(3));
}

// ----- panicking copies -----------------------------------------------------------------

/// Copied into instances; its `Clone` panics while `explode` is set.
#[derive(Component, Debug)]
#[component(on_instantiate = "override")]
struct Fragile {
    id: u32,
    explode: bool,
}

impl Clone for Fragile {
    fn clone(&self) -> Self {
        assert!(!self.explode, "clone of fragile {} exploded", self.id);
        count_clone();
        Fragile { id: self.id + 1, explode: false }
    }
}

impl Drop for Fragile {
    fn drop(&mut self) {
        record_drop(self.id);
    }
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (a copy hook that panics: the copies made
// before it are dropped once, nothing leaks, the world stays usable)
fn panicking_clone_on_instantiate_drops_once() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10), Fragile { id: 20, explode: true }, SparseCopied(30))).id();
    take_log();
    expect_panic(|| {
        world.instantiate(p);
    });
    let made = clones();
    world.get_mut::<Fragile>(p).unwrap().explode = false;
    let i = world.instantiate(p);
    assert_eq!(world.get::<Fragile>(i).map(|f| f.id), Some(21));
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(10));
    assert_eq!(world.get::<SparseCopied>(i).map(|c| c.0), Some(30));
    assert_eq!(clones(), made + 3);
    world.check_invariants();
    drop(world);
    let d = drops();
    assert_eq!(d.get(&20), Some(&1));
    assert_eq!(d.get(&21), Some(&1));
    // Every clone made (before the panic and after) is dropped exactly once, with the originals.
    assert_eq!(d.get(&10).unwrap() + d.get(&30).unwrap(), 2 + 2 + (made));
    assert!(d.keys().all(|k| [10, 20, 21, 30].contains(k)), "{d:?}");
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override (a panicking copy in a queued instantiate)
fn panicking_clone_in_deferred_instantiate_drops_once() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Fragile { id: 20, explode: true }, Tracked(1))).id();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.spawn((Tracked(2), IsA.pair(p)));
        commands.spawn(Tracked(3));
    }
    expect_panic(|| queue.apply(&mut world));
    drop(queue);
    world.check_invariants();
    drop(world);
    let d = drops();
    assert_eq!(d.get(&20), Some(&1));
    assert_eq!(d.get(&1), Some(&1));
    assert_eq!(d.get(&2), Some(&1), "the instance's own value is dropped once");
    assert!(d.get(&3).is_none_or(|&n| n == 1), "{d:?}");
    assert!(!d.contains_key(&21), "{d:?}");
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_remove (removing a value an instance only inherits:
// nothing to remove, no hook, the prefab's value untouched)
fn removing_an_inherited_value_runs_no_hook() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Shared(10))).id();
    let i = world.instantiate(p);
    take_log();
    assert!(world.remove::<Shared>(i).is_none());
    world.entity_mut(i).remove::<Shared>();
    assert!(world.entity_mut(i).take::<Shared>().is_none());
    assert!(take_log().is_empty());
    assert_dropped_once(&[]);
    assert_eq!(world.get::<Shared>(p).map(|v| v.0), Some(10));
    assert_eq!(world.get::<Shared>(i).map(|v| v.0), Some(10));
}
