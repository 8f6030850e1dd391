//! Flecs' component lifecycle tests (`test/core/src/ComponentLifecycle.c`,
//! Flecs 4; plus `override_component*` from `Sparse.c`, for the copies
//! `on_instantiate = "override"` makes), restated against this crate's API:
//! component hooks (`#[component(on_add = .., on_insert = .., on_replace = .., on_remove = ..)]`,
//! `fn(DeferredWorld, HookContext)`) and Rust value ownership.
//!
//! Name mapping: Flecs `ctor` / `copy` / `move` / `dtor` callbacks become Rust
//! ownership: a value is built by the caller, never cloned except for an
//! `on_instantiate = "override"` copy, moved between archetypes as plain
//! bytes (no drop, no duplicate), and dropped exactly once (despawn, remove,
//! overwrite, replaced exclusive pair, or the world's drop). So "ctor count"
//! tests check the `on_add` hook and that the value arrives intact, "copy"
//! tests count `Clone` calls, "move" tests check that no value is dropped or
//! duplicated, and "dtor" tests count drops per value id. Flecs' `OnSet` hook
//! is our `on_insert`; `ecs_defer_begin/end` is a `Commands` queue applied at
//! once; `ecs_new_w(Position)` + `ecs_set` is one `spawn`.
//!
//! Adapted to documented differences (API.md follows Bevy's hook order):
//! * Flecs' `on_replace` also runs on the first `ecs_set` (over the
//!   default-constructed value); ours runs only when an existing value is
//!   overwritten or removed, so `on_replace_w_set*` expect one call fewer;
//! * only `Prefab` bases pass values on (`IsA`'s rustdoc), and Flecs' copy
//!   counts include internal copies, so the override tests count one clone
//!   per entity that gets its own copy.
//!
//! Not ported (no equivalent in Rust or in our API): hooks on tags and
//! `illegal_*` / `*_flags` (hooks are per type, set by the derive, and a tag may
//! have hooks), `ecs_emplace` (`*emplace*`), `ecs_set_with` (`*_w_with*`,
//! `with_*`), async stages, `ecs_clone`, `ecs_clear` (`on_remove_after_clear`),
//! changing hooks at run time (`change_*`, `add_*hook_while_in_use`,
//! `allow_lifecycle_overwrite_*`, `set_lifecycle_after_trigger`), hook `ctx` /
//! `binding_ctx` and their free callbacks, `component_init*`, `on_validate*`,
//! `ptr_to_self` (Rust values cannot point to themselves without `Pin`),
//! `shrink`, pair overrides (`copy_on_override_pair*`, `copy_on_set_pair*`:
//! a value pair of an `inherit` relationship is neither copied nor inherited),
//! fixed-offset checks of hooks over table ranges, and hooks run during world
//! teardown (`*_while_fini`, `valid_*_in_dtor_on_fini`,
//! `delete_in_dtor_other_type_on_fini`): our `World` drop drops values without
//! running hooks (Bevy's behaviour), which `dtor_on_fini` checks.

use std::cell::RefCell;
use std::collections::BTreeMap;

use ecs::prelude::*;
use ecs::system::CommandQueue;

// ----- logs -----------------------------------------------------------------------------

thread_local! {
    /// Hook calls, `"add(entity, value)"`-like, in order.
    static LOG: RefCell<Vec<(&'static str, Entity, u32)>> = const { RefCell::new(Vec::new()) };
    /// How many times each value id was dropped.
    static DROPS: RefCell<BTreeMap<u32, usize>> = const { RefCell::new(BTreeMap::new()) };
    /// How many `Clone` calls were made.
    static CLONES: RefCell<usize> = const { RefCell::new(0) };
}

fn record_drop(id: u32) {
    DROPS.with(|drops| *drops.borrow_mut().entry(id).or_default() += 1);
}

/// The ids dropped so far with their counts.
fn drops() -> BTreeMap<u32, usize> {
    DROPS.with(|drops| drops.borrow().clone())
}

/// Asserts every id of `ids` was dropped exactly once and nothing else was dropped.
#[track_caller]
fn assert_dropped_once(ids: &[u32]) {
    let expected: BTreeMap<u32, usize> = ids.iter().map(|&id| (id, 1)).collect();
    assert_eq!(drops(), expected, "drops (id -> count)");
}

fn clones() -> usize {
    CLONES.with(|clones| *clones.borrow())
}

fn take_log() -> Vec<(&'static str, Entity, u32)> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// The hooks called so far (names only), and clears the log.
fn take_names() -> Vec<&'static str> {
    take_log().into_iter().map(|(name, _, _)| name).collect()
}

/// A new world; this thread's logs cleared.
fn fresh() -> World {
    take_log();
    DROPS.with(|drops| drops.borrow_mut().clear());
    CLONES.with(|clones| *clones.borrow_mut() = 0);
    World::new()
}

// ----- components -----------------------------------------------------------------------

/// Records its drop (by id); counts its clones.
#[derive(Component, Debug, PartialEq)]
struct Tracked(u32);

impl Drop for Tracked {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

/// A second tracked table component.
#[derive(Component, Debug, PartialEq)]
struct Tracked2(u32);

impl Drop for Tracked2 {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

/// A third and fourth tracked component (Flecs' Mass and Rotation).
#[derive(Component, Debug, PartialEq)]
struct Mass(u32);

impl Drop for Mass {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

#[derive(Component, Debug, PartialEq)]
struct Rotation(u32);

impl Drop for Rotation {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

/// Copied into instances (`on_instantiate = "override"`); counts clones and drops.
#[derive(Component, Debug, PartialEq)]
#[component(on_instantiate = "override", on_add = log_add::<Copied>, on_insert = log_insert::<Copied>)]
struct Copied(u32);

impl Clone for Copied {
    fn clone(&self) -> Self {
        CLONES.with(|clones| *clones.borrow_mut() += 1);
        Copied(self.0)
    }
}

impl Drop for Copied {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

/// A relationship whose pairs carry a tracked value.
#[derive(Relationship, Debug, PartialEq)]
struct Holds(u32);

impl Drop for Holds {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

/// An exclusive relationship whose pairs carry a tracked value.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct Slot(u32);

impl Drop for Slot {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

trait Val: Component {
    fn val(&self) -> u32;
}

impl Val for Hooked {
    fn val(&self) -> u32 {
        self.0
    }
}

impl Val for Copied {
    fn val(&self) -> u32 {
        self.0
    }
}

/// Logs `(hook, entity, value)` (`u32::MAX` if the entity has no `T` now),
/// after checking the context names `T`.
fn log_call<T: Val>(world: &DeferredWorld, ctx: HookContext, hook: &'static str) {
    assert_eq!(Some(ctx.component_id), world.world().component_id::<T>(), "{hook}: wrong component id");
    let value = world.get::<T>(ctx.entity).map_or(u32::MAX, Val::val);
    LOG.with(|log| log.borrow_mut().push((hook, ctx.entity, value)));
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

/// A component with all four logging hooks; its drops are tracked (id = value + 1000).
#[derive(Component, Debug, PartialEq)]
#[component(
    on_add = log_add::<Hooked>,
    on_insert = log_insert::<Hooked>,
    on_replace = log_replace::<Hooked>,
    on_remove = log_remove::<Hooked>,
)]
struct Hooked(u32);

impl Drop for Hooked {
    fn drop(&mut self) {
        record_drop(self.0 + 1000);
    }
}

// ----- ctor / dtor ----------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: ctor_on_add
fn ctor_on_add() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    assert!(take_log().is_empty());
    assert!(world.insert(e, Hooked(7)));
    assert_eq!(take_log(), [("add", e, 7), ("insert", e, 7)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(7));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_on_new
fn ctor_on_new() {
    let mut world = fresh();
    let e = world.spawn(Hooked(3)).id();
    assert_eq!(take_log(), [("add", e, 3), ("insert", e, 3)]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(3));
    assert_dropped_once(&[]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_remove
fn dtor_on_remove() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), Hooked(2))).id();
    take_log();
    world.entity_mut(e).remove::<Tracked>();
    assert_dropped_once(&[1]);
    world.entity_mut(e).remove::<Hooked>();
    assert_eq!(take_log(), [("replace", e, 2), ("remove", e, 2)]);
    assert_dropped_once(&[1, 1002]);
    // `World::remove` hands the value back: the caller drops it.
    world.insert(e, Tracked(3));
    let taken = world.remove::<Tracked>(e);
    assert_dropped_once(&[1, 1002]);
    drop(taken);
    assert_dropped_once(&[1, 3, 1002]);
    drop(world);
    assert_dropped_once(&[1, 3, 1002]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_delete
fn dtor_on_delete() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), Hooked(2), Tracked2(3))).id();
    take_log();
    assert!(world.despawn(e));
    assert_dropped_once(&[1, 3, 1002]);
    let log = take_log();
    assert_eq!(log, [("replace", e, 2), ("remove", e, 2)]);
    drop(world);
    assert_dropped_once(&[1, 3, 1002]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_on_fini
fn dtor_on_fini() {
    let mut world = fresh();
    for i in 0..10 {
        world.spawn((Tracked(i), Tracked2(100 + i)));
    }
    world.spawn(Hooked(5));
    let target = world.spawn_empty().id();
    world.spawn_empty().insert_pair(Holds(200), target);
    take_log();
    assert_dropped_once(&[]);
    drop(world);
    let mut expected: Vec<u32> = (0..10).chain(100..110).collect();
    expected.extend([200, 1005]);
    assert_dropped_once(&expected);
    assert!(take_log().is_empty(), "dropping the world runs no hooks");
}

// ----- copy / move ----------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: copy_on_set
fn copy_on_set() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    world.insert(e, Tracked(1));
    assert_eq!(world.get::<Tracked>(e).map(|v| v.0), Some(1));
    assert_dropped_once(&[]);
    // Setting over an existing value drops the old one only.
    world.insert(e, Tracked(2));
    assert_dropped_once(&[1]);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(2));
    assert_eq!(clones(), 0);
}

#[test]
// Flecs ComponentLifecycle.c: copy_on_override
fn copy_on_override() {
    let mut world = fresh();
    let base = world.spawn((Prefab, Copied(1))).id();
    take_log();
    assert_eq!(clones(), 0);
    let inst = world.instantiate(base);
    assert_eq!(clones(), 1, "one copy for the instance");
    assert_eq!(world.get::<Copied>(inst).map(|c| c.0), Some(1));
    assert_dropped_once(&[]);
    // Both values are dropped once each (same id, two values).
    world.despawn(inst);
    assert_eq!(drops().get(&1), Some(&1));
    drop(world);
    assert_eq!(drops().get(&1), Some(&2));
    assert_eq!(clones(), 1);
}

#[test]
// Flecs ComponentLifecycle.c: no_copy_on_move
fn no_copy_on_move() {
    let mut world = fresh();
    let e = world.spawn(Copied(10)).id();
    world.insert(e, Tracked(11));
    world.remove::<Tracked>(e);
    world.insert(e, Tracked2(12));
    assert_eq!(clones(), 0);
    assert_dropped_once(&[11]);
    assert_eq!(world.get::<Copied>(e).map(|c| c.0), Some(10));
}

#[test]
// Flecs ComponentLifecycle.c: merge_to_different_table
fn merge_to_different_table() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), Tracked2(2), Rotation(4))).id();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(e).remove::<Tracked>();
        commands.entity(e).insert(Mass(3));
        commands.entity(e).remove::<Rotation>();
    }
    assert_dropped_once(&[]);
    queue.apply(&mut world);
    assert!(!world.has::<Tracked>(e));
    assert!(world.has::<Tracked2>(e));
    assert!(world.has::<Mass>(e));
    assert!(!world.has::<Rotation>(e));
    assert_dropped_once(&[1, 4]);
    assert_eq!(world.get::<Tracked2>(e).map(|v| v.0), Some(2));
    assert_eq!(world.get::<Mass>(e).map(|v| v.0), Some(3));
    drop(world);
    assert_dropped_once(&[1, 2, 3, 4]);
}

#[test]
// Flecs ComponentLifecycle.c: merge_to_new_table
fn merge_to_new_table() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(Hooked(1));
    assert!(take_log().is_empty());
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1)]);
    assert_dropped_once(&[]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(1));
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_stage
fn delete_in_stage() {
    let mut world = fresh();
    let e = world.spawn((Tracked(1), Tracked2(2), Mass(3))).id();
    let keep = world.spawn((Tracked(4), Tracked2(5), Mass(6))).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).despawn();
    assert_dropped_once(&[]);
    queue.apply(&mut world);
    assert!(!world.is_alive(e));
    assert_dropped_once(&[1, 2, 3]);
    assert_eq!(world.get::<Mass>(keep).map(|m| m.0), Some(6));
}

#[test]
// Flecs ComponentLifecycle.c: ctor_on_add_pair
fn ctor_on_add_pair() {
    let mut world = fresh();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert_pair(Holds(1), a).insert_pair(Holds(2), b);
    assert_dropped_once(&[]);
    assert_eq!(world.get_pair::<Holds>(e, a).map(|v| v.0), Some(1));
    assert_eq!(world.get_pair::<Holds>(e, b).map(|v| v.0), Some(2));
    // Overwriting a pair's value drops the old one.
    world.entity_mut(e).insert_pair(Holds(3), a);
    assert_dropped_once(&[1]);
    world.entity_mut(e).remove_pair::<Holds>(b);
    assert_dropped_once(&[1, 2]);
    world.despawn(e);
    assert_dropped_once(&[1, 2, 3]);
}

#[test]
// Flecs ComponentLifecycle.c: ctor_on_move_pair
fn ctor_on_move_pair() {
    let mut world = fresh();
    let a = world.spawn_empty().id();
    let e = world.spawn(Tracked(1)).insert_pair(Holds(2), a).id();
    world.insert(e, Tracked2(3));
    drop(world.remove::<Tracked2>(e));
    world.insert(e, Mass(4));
    assert_dropped_once(&[3]);
    assert_eq!(world.get_pair::<Holds>(e, a).map(|v| v.0), Some(2));
    assert_eq!(world.get::<Tracked>(e).map(|v| v.0), Some(1));
    drop(world);
    assert_dropped_once(&[1, 2, 3, 4]);
}

#[test]
// Flecs ComponentLifecycle.c: move_on_realloc (and ctor_move_dtor_after_resize)
fn move_on_realloc() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..1000).map(|i| world.spawn((Tracked(i), Tracked2(10_000 + i))).id()).collect();
    assert_dropped_once(&[]);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Tracked>(e).map(|t| t.0), Some(i as u32));
        assert_eq!(world.get::<Tracked2>(e).map(|t| t.0), Some(10_000 + i as u32));
    }
    drop(world);
    let expected: Vec<u32> = (0..1000).chain(10_000..11_000).collect();
    assert_dropped_once(&expected);
}

#[test]
// Flecs ComponentLifecycle.c: move_on_bulk_new
fn move_on_bulk_new() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((0..500).map(|i| (Tracked(i), Mass(1000 + i)))).collect();
    assert_eq!(ids.len(), 500);
    assert_dropped_once(&[]);
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Mass>(e).map(|m| m.0), Some(1000 + i as u32));
    }
    drop(world);
    let expected: Vec<u32> = (0..500).chain(1000..1500).collect();
    assert_dropped_once(&expected);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_on_bulk_new
fn on_add_on_bulk_new() {
    let mut world = fresh();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(Hooked)).collect();
    let adds: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(name, _, _)| *name == "add").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(adds, [(ids[0], 0), (ids[1], 1), (ids[2], 2)]);
}

#[test]
// Flecs ComponentLifecycle.c: move_on_delete (and move_dtor_on_delete)
fn move_on_delete() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..4).map(|i| world.spawn((Tracked(i), Hooked(i))).id()).collect();
    take_log();
    world.despawn(ids[1]); // the last row moves into its place
    assert_dropped_once(&[1, 1001]);
    assert_eq!(take_log(), [("replace", ids[1], 1), ("remove", ids[1], 1)]);
    for i in [0, 2, 3] {
        assert_eq!(world.get::<Tracked>(ids[i]).map(|t| t.0), Some(i as u32));
        assert_eq!(world.get::<Hooked>(ids[i]).map(|t| t.0), Some(i as u32));
    }
    world.despawn(ids[3]);
    assert_dropped_once(&[1, 3, 1001, 1003]);
    assert_eq!(take_log(), [("replace", ids[3], 3), ("remove", ids[3], 3)]);
}

#[test]
// Flecs ComponentLifecycle.c: dtor_after_add_exclusive_component
fn dtor_after_add_exclusive_component() {
    let mut world = fresh();
    let (tgt_a, tgt_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e1 = world.spawn_empty().insert_pair(Slot(1), tgt_b).id();
    let e2 = world.spawn_empty().insert_pair(Slot(2), tgt_b).id();
    world.entity_mut(e1).insert_pair(Slot(3), tgt_a);
    assert_dropped_once(&[1]);
    assert!(!world.has_pair::<Slot>(e1, tgt_b));
    assert_eq!(world.get_pair::<Slot>(e1, tgt_a).map(|v| v.0), Some(3));
    assert_eq!(world.get_pair::<Slot>(e2, tgt_b).map(|v| v.0), Some(2));
}

#[test]
// Flecs ComponentLifecycle.c: dtor_after_add_exclusive_component_last
fn dtor_after_add_exclusive_component_last() {
    let mut world = fresh();
    let (tgt_a, tgt_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e1 = world.spawn_empty().insert_pair(Slot(1), tgt_b).id();
    world.entity_mut(e1).insert_pair(Slot(2), tgt_a);
    assert_dropped_once(&[1]);
    assert_eq!(world.targets::<Slot>(e1).collect::<Vec<_>>(), [tgt_a]);
    drop(world);
    assert_dropped_once(&[1, 2]);
}

// ----- hooks ----------------------------------------------------------------------------

#[test]
// Flecs ComponentLifecycle.c: on_set_after_set
fn on_set_after_set() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    world.insert(e, Hooked(2));
    world.insert(e, Hooked(3));
    assert_eq!(take_log(), [("replace", e, 1), ("insert", e, 2), ("replace", e, 2), ("insert", e, 3)]);
    assert_dropped_once(&[1001, 1002]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_new
fn on_add_after_new() {
    let mut world = fresh();
    for i in 0..3 {
        world.spawn(Hooked(i));
        assert_eq!(take_names().iter().filter(|name| **name == "add").count(), 1);
    }
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_add
fn on_add_after_add() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
    for (i, &e) in ids.iter().enumerate() {
        world.insert(e, Hooked(i as u32));
        assert_eq!(take_log(), [("add", e, i as u32), ("insert", e, i as u32)]);
    }
}

#[test]
// Flecs ComponentLifecycle.c: on_add_after_set
fn on_add_after_set() {
    let mut world = fresh();
    let mut adds = 0;
    for _ in 0..3 {
        let e = world.spawn_empty().id();
        world.entity_mut(e).insert(Hooked(10));
        adds += take_names().iter().filter(|name| **name == "add").count();
        world.entity_mut(e).insert(Hooked(20)); // overwrite: no add
        adds += take_names().iter().filter(|name| **name == "add").count();
    }
    assert_eq!(adds, 3);
}

#[test]
// Flecs ComponentLifecycle.c: on_remove_after_remove
fn on_remove_after_remove() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..3).map(|i| world.spawn(Hooked(i)).id()).collect();
    take_log();
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.remove::<Hooked>(e).map(|h| h.0), Some(i as u32));
        assert_eq!(take_log(), [("replace", e, i as u32), ("remove", e, i as u32)]);
    }
    assert_dropped_once(&[1000, 1001, 1002]);
}

#[test]
// Flecs ComponentLifecycle.c: on_remove_after_delete
fn on_remove_after_delete() {
    let mut world = fresh();
    let ids: Vec<Entity> = (0..3).map(|i| world.spawn(Hooked(i)).id()).collect();
    take_log();
    for (i, &e) in ids.iter().enumerate() {
        world.despawn(e);
        assert_eq!(take_log(), [("replace", e, i as u32), ("remove", e, i as u32)]);
    }
    assert_dropped_once(&[1000, 1001, 1002]);
}

#[test]
// Flecs ComponentLifecycle.c: on_add_w_existing_component
fn on_add_w_existing_component() {
    let mut world = fresh();
    let e = world.spawn(Name::new("Foo")).id();
    world.insert(e, Hooked(1));
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1)]);
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("Foo"));
}

#[test]
// Flecs ComponentLifecycle.c: on_remove_w_existing_component
fn on_remove_w_existing_component() {
    let mut world = fresh();
    let e = world.spawn((Name::new("Foo"), Hooked(1))).id();
    take_log();
    world.entity_mut(e).remove::<Hooked>();
    assert_eq!(take_log(), [("replace", e, 1), ("remove", e, 1)]);
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("Foo"));
}

#[test]
// Flecs ComponentLifecycle.c: on_add_hook_check_offset
fn on_add_hook_check_offset() {
    let mut world = fresh();
    let e1 = world.spawn(Hooked(10)).id();
    let e2 = world.spawn(Hooked(30)).id();
    let e3 = world.spawn(Hooked(50)).id();
    let adds: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(name, _, _)| *name == "add").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(adds, [(e1, 10), (e2, 30), (e3, 50)]);
}

#[test]
// Flecs ComponentLifecycle.c: on_remove_hook_check_offset
fn on_remove_hook_check_offset() {
    let mut world = fresh();
    let ids: Vec<Entity> = [10, 30, 50].into_iter().map(|v| world.spawn(Hooked(v)).id()).collect();
    take_log();
    world.despawn(ids[0]);
    world.despawn(ids[2]);
    world.despawn(ids[1]);
    let removes: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(name, _, _)| *name == "remove").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(removes, [(ids[0], 10), (ids[2], 50), (ids[1], 30)]);
}

#[test]
// Flecs ComponentLifecycle.c: on_set_hook_check_offset
fn on_set_hook_check_offset() {
    let mut world = fresh();
    let ids: Vec<Entity> = [10, 30, 50].into_iter().map(|v| world.spawn(Hooked(v)).id()).collect();
    take_log();
    world.insert(ids[1], Hooked(31));
    world.insert(ids[0], Hooked(11));
    let inserts: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(name, _, _)| *name == "insert").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(inserts, [(ids[1], 31), (ids[0], 11)]);
}

#[test]
// Flecs ComponentLifecycle.c: on_set_hook_on_override
fn on_set_hook_on_override() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10))).id();
    assert_eq!(take_log(), [("add", p, 10), ("insert", p, 10)]);
    let i = world.instantiate(p);
    // The instance gets its own copy: its hooks run for it.
    assert_eq!(take_log(), [("add", i, 10), ("insert", i, 10)]);
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(10));
    assert_eq!(clones(), 1);
}

#[test]
// Flecs ComponentLifecycle.c: on_replace_w_set (adapted: no on_replace for a new value)
fn on_replace_w_set() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    world.insert(e, Hooked(10));
    assert_eq!(take_names().iter().filter(|name| **name == "replace").count(), 0);
}

#[test]
// Flecs ComponentLifecycle.c: on_replace_w_set_existing (adapted: one call fewer)
fn on_replace_w_set_existing() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    world.insert(e, Hooked(10));
    take_log();
    world.insert(e, Hooked(11));
    assert_eq!(take_log(), [("replace", e, 10), ("insert", e, 11)]);
    assert_dropped_once(&[1010]);
}

#[test]
// Flecs ComponentLifecycle.c: on_replace_set_2_entities (adapted: one call fewer each)
fn on_replace_set_2_entities() {
    let mut world = fresh();
    let e1 = world.spawn(Hooked(10)).id();
    world.insert(e1, Hooked(11));
    let e2 = world.spawn(Hooked(20)).id();
    world.insert(e2, Hooked(21));
    let replaces: Vec<(Entity, u32)> =
        take_log().into_iter().filter(|(name, _, _)| *name == "replace").map(|(_, e, v)| (e, v)).collect();
    assert_eq!(replaces, [(e1, 10), (e2, 20)]);
}

#[test]
// Flecs ComponentLifecycle.c: on_replace_w_get_mut
fn on_replace_w_get_mut() {
    let mut world = fresh();
    let e = world.spawn(Hooked(1)).id();
    take_log();
    world.get_mut::<Hooked>(e).unwrap().0 = 2;
    assert!(take_log().is_empty(), "writing through get_mut runs no hook");
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(2));
    assert_dropped_once(&[]);
}

// ----- hooks that read the world ---------------------------------------------------------

/// Logs what the world says about the hook's entity.
fn probe(world: &DeferredWorld, ctx: HookContext, hook: &'static str) {
    let w = world.world();
    let has = w.has::<Probed>(ctx.entity);
    let alive = w.is_alive(ctx.entity);
    let value = w.get::<Probed>(ctx.entity).map_or(u32::MAX, |p| p.0);
    let name = w.get::<Name>(ctx.entity).map(|n| n.as_str().to_owned());
    PROBES.with(|probes| probes.borrow_mut().push((hook, has, alive, value, name)));
}

type ProbeEntry = (&'static str, bool, bool, u32, Option<String>);

thread_local! {
    static PROBES: RefCell<Vec<ProbeEntry>> = const { RefCell::new(Vec::new()) };
}

fn take_probes() -> Vec<ProbeEntry> {
    PROBES.with(|probes| std::mem::take(&mut *probes.borrow_mut()))
}

fn probe_add(world: DeferredWorld, ctx: HookContext) {
    probe(&world, ctx, "add");
}

fn probe_remove(world: DeferredWorld, ctx: HookContext) {
    probe(&world, ctx, "remove");
}

#[derive(Component, Debug)]
#[component(on_add = probe_add, on_remove = probe_remove)]
struct Probed(u32);

#[test]
// Flecs ComponentLifecycle.c: has_in_on_add_hook_new and get_in_on_add_hook_new
fn has_in_on_add_hook_new() {
    let mut world = fresh();
    take_probes();
    world.spawn(Probed(5));
    assert_eq!(take_probes(), [("add", true, true, 5, None)]);
}

#[test]
// Flecs ComponentLifecycle.c: has_in_on_add_hook_move and get_in_on_add_hook_move
fn has_in_on_add_hook_move() {
    let mut world = fresh();
    take_probes();
    let e1 = world.spawn(Tracked(1)).id();
    world.insert(e1, Probed(6));
    let e2 = world.spawn_empty().id();
    world.insert(e2, Probed(7));
    assert_eq!(take_probes(), [("add", true, true, 6, None), ("add", true, true, 7, None)]);
}

#[test]
// Flecs ComponentLifecycle.c: get_name_in_on_add_hook_move
fn get_name_in_on_add_hook_move() {
    let mut world = fresh();
    take_probes();
    let e = world.spawn(Name::new("foo")).id();
    world.insert(e, Probed(1));
    assert_eq!(take_probes(), [("add", true, true, 1, Some("foo".to_owned()))]);
}

#[test]
// Flecs ComponentLifecycle.c: count_in_on_add and count_in_on_remove
fn count_in_on_add() {
    let mut world = fresh();
    take_probes();
    let e = world.spawn(Probed(1)).id();
    assert_eq!(take_probes(), [("add", true, true, 1, None)]);
    assert_eq!(world.query::<&Probed>().iter(&world).count(), 1);
    world.despawn(e);
    // on_remove still sees the value and the entity.
    assert_eq!(take_probes(), [("remove", true, true, 1, None)]);
    assert_eq!(world.query::<&Probed>().iter(&world).count(), 0);
}

#[test]
// Flecs ComponentLifecycle.c: valid_entity_in_dtor_after_delete
fn valid_entity_in_dtor_after_delete() {
    let mut world = fresh();
    take_probes();
    let e = world.spawn((Probed(1), Tracked(2))).id();
    take_probes();
    world.despawn(e);
    assert_eq!(take_probes(), [("remove", true, true, 1, None)]);
    assert!(!world.is_alive(e));
    assert_dropped_once(&[2]);
}

/// Despawns the entity named by its value (a command) when removed.
#[derive(Component, Debug)]
#[component(on_remove = despawn_other)]
struct KillsOther(Entity);

fn despawn_other(mut world: DeferredWorld, ctx: HookContext) {
    let other = world.get::<KillsOther>(ctx.entity).unwrap().0;
    world.commands().entity(other).despawn();
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_dtor_other_type_on_delete
fn delete_in_dtor_other_type_on_delete() {
    let mut world = fresh();
    let e1 = world.spawn(Tracked(1)).id();
    let e2 = world.spawn((Tracked2(2), KillsOther(e1))).id();
    world.insert(e1, KillsOther(e2));
    world.despawn(e1);
    assert!(!world.is_alive(e1));
    assert!(!world.is_alive(e2), "e1's hook despawned e2");
    assert_dropped_once(&[1, 2]);
    world.check_invariants();
}

#[test]
// Flecs ComponentLifecycle.c: delete_in_dtor_other_type_on_delete_parent
fn delete_in_dtor_other_type_on_delete_parent() {
    let mut world = fresh();
    let parent = world.spawn(Tracked(1)).id();
    let other = world.spawn(Tracked(2)).id();
    let child = world.spawn((Tracked(3), KillsOther(other))).add_pair::<ChildOf>(parent).id();
    world.despawn(parent);
    assert!(!world.is_alive(child));
    assert!(!world.is_alive(other));
    assert_dropped_once(&[1, 2, 3]);
    world.check_invariants();
}

/// Despawns its own entity (a command) when removed.
#[derive(Component, Debug)]
#[component(on_remove = despawn_self)]
struct KillsSelf(u32);

impl Drop for KillsSelf {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

fn despawn_self(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

#[test]
// Flecs ComponentLifecycle.c: delete_self_in_dtor_on_delete
fn delete_self_in_dtor_on_delete() {
    let mut world = fresh();
    let ids: Vec<Entity> = (1..=3).map(|i| world.spawn((KillsSelf(i), Tracked(10 + i))).id()).collect();
    for &e in &ids {
        assert!(world.despawn(e));
    }
    assert!(ids.iter().all(|&e| !world.is_alive(e)));
    assert_dropped_once(&[1, 2, 3, 11, 12, 13]);
    world.check_invariants();
}

#[test]
// Flecs ComponentLifecycle.c: batched_set_new_component_w_lifecycle
fn batched_set_new_component_w_lifecycle() {
    let mut world = fresh();
    let e = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(e).insert(Hooked(1));
        commands.entity(e).insert(Hooked(2));
    }
    queue.apply(&mut world);
    assert_eq!(take_log(), [("add", e, 1), ("insert", e, 1), ("replace", e, 1), ("insert", e, 2)]);
    assert_dropped_once(&[1001]);
    assert_eq!(world.get::<Hooked>(e).map(|v| v.0), Some(2));
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override
fn copy_ctor_w_override() {
    let mut world = fresh();
    let p = world.spawn(Prefab).id();
    world.insert(p, Copied(10));
    assert_eq!(clones(), 0);
    let i = world.spawn_empty().add_pair::<IsA>(p).id();
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(10));
    assert_eq!(clones(), 1);
    assert_dropped_once(&[]);
    // The copy is the instance's own: replacing it leaves the prefab's value.
    world.insert(i, Copied(11));
    assert_dropped_once(&[10]);
    assert_eq!(world.get::<Copied>(p).map(|c| c.0), Some(10));
}

#[test]
// Flecs ComponentLifecycle.c: on_nested_prefab_copy_test_invokes_copy_count (adapted:
// one clone per instance that gets a copy; Flecs' own count includes internal copies)
fn on_nested_prefab_copy_test_invokes_copy_count() {
    let mut world = fresh();
    let child = world.spawn((Prefab, Copied(1))).id();
    let parent = world.spawn((Prefab, Name::new("parent"))).id();
    let mut kids = Vec::new();
    for (n, name) in ["e1", "e2", "e3"].into_iter().enumerate() {
        let kid = world.spawn((Prefab, Name::new(name))).add_pair::<IsA>(child).add_pair::<ChildOf>(parent).id();
        assert_eq!(clones(), n + 1);
        kids.push(kid);
    }
    let a_parent = world.instantiate(parent);
    assert_eq!(clones(), 6, "one copy per instantiated child");
    let children: Vec<Entity> = world.children(a_parent).collect();
    assert_eq!(children.len(), 3);
    for &c in &children {
        assert_eq!(world.get::<Copied>(c).map(|c| c.0), Some(1));
    }
    assert_dropped_once(&[]);
    drop(world);
    assert_eq!(drops().get(&1), Some(&7), "seven values (prefab + 3 + 3), each dropped once");
}

#[test]
// Flecs ComponentLifecycle.c: copy_ctor_w_override (a value given in the same spawn wins)
fn override_value_given_in_same_spawn_is_not_copied_over() {
    let mut world = fresh();
    let p = world.spawn((Prefab, Copied(10))).id();
    let i = world.spawn((Copied(20), IsA.pair(p))).id();
    assert_eq!(world.get::<Copied>(i).map(|c| c.0), Some(20));
    drop(world);
    // Whether or not a copy was made, every value made is dropped once.
    assert_eq!(drops().get(&20), Some(&1));
    assert_eq!(drops().get(&10), Some(&(1 + clones())));
}

/// Like [`Copied`], stored in a sparse set.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse", on_instantiate = "override")]
struct SparseCopied(u32);

impl Clone for SparseCopied {
    fn clone(&self) -> Self {
        CLONES.with(|clones| *clones.borrow_mut() += 1);
        SparseCopied(self.0)
    }
}

impl Drop for SparseCopied {
    fn drop(&mut self) {
        record_drop(self.0);
    }
}

#[test]
// Flecs Sparse.c: override_component (copy_on_override's clone and drop counts, sparse storage)
fn override_component() {
    let mut world = fresh();
    let base = world.spawn((Prefab, SparseCopied(10))).id();
    let e = world.instantiate(base);
    assert_eq!(world.get::<SparseCopied>(e).map(|c| c.0), Some(10), "the instance owns a copy");
    assert_eq!(clones(), 1);
    world.get_mut::<SparseCopied>(e).expect("owned, so mutable").0 = 11;
    assert_eq!(world.get::<SparseCopied>(base).map(|c| c.0), Some(10));
    world.despawn(e);
    assert_dropped_once(&[11]);
}

#[test]
// Flecs Sparse.c: override_component_2_lvls (table storage; clone and drop counts)
fn override_component_2_lvls() {
    let mut world = fresh();
    let base = world.spawn((Prefab, Copied(10))).id();
    let base_base = world.spawn(Prefab).add_pair::<IsA>(base).id();
    assert_eq!(clones(), 1, "the variant owns a copy");
    let e = world.instantiate(base_base);
    assert_eq!(clones(), 2);
    world.get_mut::<Copied>(e).expect("owned, so mutable").0 = 11;
    assert_eq!(world.get::<Copied>(base).map(|c| c.0), Some(10));
    assert_eq!(world.get::<Copied>(base_base).map(|c| c.0), Some(10));
    world.despawn(e);
    assert_dropped_once(&[11]);
    drop(world);
    assert_eq!(drops(), BTreeMap::from([(10, 2), (11, 1)]));
}
