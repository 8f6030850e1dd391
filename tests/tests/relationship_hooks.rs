//! A relationship's hooks run for each of its pairs `(R, target)`, as Flecs
//! runs a pair's type hooks: `on_add`/`on_insert` when a pair is added,
//! `on_replace`/`on_insert` when its value is overwritten, and
//! `on_replace`/`on_remove` when it goes (removal, an exclusive or union
//! replacement, a despawn of the holder, the cleanup of the target, a clear).
//! `HookContext::component_id` names the relationship and
//! `DeferredWorld::pair_target` the pair's target; the value is readable in
//! `on_replace`/`on_remove` and the hooks' commands apply before the call
//! returns. Every pair value is dropped exactly once, also when a hook panics.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::Id;
use ecs::prelude::*;

thread_local! {
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn log(line: String) {
    LOG.with(|l| l.borrow_mut().push(line));
}

fn take() -> Vec<String> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

fn target_name(world: &DeferredWorld, ctx: &HookContext) -> String {
    let target = world.pair_target();
    let name = target.and_then(|t| world.world().get::<Name>(t)).map(|n| n.as_str().to_string());
    format!(
        "{}:{}",
        world.world().component_info(ctx.component_id).map_or("?", |info| info.name()),
        name.unwrap_or_else(|| "-".into())
    )
}

macro_rules! logging_hook {
    ($name:ident, $label:literal) => {
        fn $name(world: DeferredWorld, ctx: HookContext) {
            log(format!("{} {}", $label, target_name(&world, &ctx)));
        }
    };
}
logging_hook!(on_add, "add");
logging_hook!(on_insert, "insert");
logging_hook!(on_replace, "replace");
logging_hook!(on_remove, "remove");

/// A tag relationship with all four hooks.
#[derive(Relationship)]
#[component(on_add = on_add, on_insert = on_insert, on_replace = on_replace, on_remove = on_remove)]
struct Likes;

/// An exclusive tag relationship with all four hooks.
#[derive(Relationship)]
#[relationship(exclusive)]
#[component(on_add = on_add, on_insert = on_insert, on_replace = on_replace, on_remove = on_remove)]
struct DockedTo;

/// A union relationship with all four hooks.
#[derive(Relationship)]
#[relationship(union)]
#[component(on_add = on_add, on_insert = on_insert, on_replace = on_replace, on_remove = on_remove)]
struct Mode;

/// Deletes its holders with its target; hooked.
#[derive(Relationship)]
#[relationship(on_delete_target = "delete")]
#[component(on_add = on_add, on_remove = on_remove)]
struct OwnedBy;

fn fuel_remove(world: DeferredWorld, ctx: HookContext) {
    let target = world.pair_target().expect("a pair hook has a target");
    let value = world.world().get_pair::<Fuel>(ctx.entity, target).map(|f| f.0);
    log(format!("remove fuel {value:?}"));
}

fn fuel_replace(world: DeferredWorld, ctx: HookContext) {
    let target = world.pair_target().expect("a pair hook has a target");
    let value = world.world().get_pair::<Fuel>(ctx.entity, target).map(|f| f.0);
    log(format!("replace fuel {value:?}"));
}

fn fuel_insert(world: DeferredWorld, ctx: HookContext) {
    let target = world.pair_target().expect("a pair hook has a target");
    let value = world.world().get_pair::<Fuel>(ctx.entity, target).map(|f| f.0);
    log(format!("insert fuel {value:?}"));
}

/// A relationship that carries a value, with a logged drop.
#[derive(Relationship)]
#[component(on_insert = fuel_insert, on_replace = fuel_replace, on_remove = fuel_remove)]
struct Fuel(u32);

impl Drop for Fuel {
    fn drop(&mut self) {
        log(format!("drop fuel {}", self.0));
    }
}

fn mark_linked(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).insert(Linked);
}

/// Its `on_add` hook marks the holder through commands.
#[derive(Relationship)]
#[component(on_add = mark_linked)]
struct LinkedTo;

#[derive(Component)]
struct Linked;

fn panicking_add(_world: DeferredWorld, _ctx: HookContext) {
    panic!("on_add of a pair panics");
}

/// A data relationship whose `on_add` panics.
#[derive(Relationship)]
#[component(on_add = panicking_add)]
struct Brittle(u32);

impl Drop for Brittle {
    fn drop(&mut self) {
        log(format!("drop brittle {}", self.0));
    }
}

fn own_hook(world: DeferredWorld, _ctx: HookContext) {
    log(format!("own {:?}", world.pair_target()));
}

/// A plain component with a hook: no pair target.
#[derive(Component)]
#[component(on_add = own_hook)]
struct Plain;

fn named(world: &mut World, name: &'static str) -> Entity {
    world.spawn(Name::new(name)).id()
}

/// `add_pair` runs `on_add` then `on_insert`, naming the relationship and the target.
#[test]
fn add_pair_runs_add_then_insert() {
    let mut world = World::new();
    let (e, bob) = (world.spawn_empty().id(), named(&mut world, "bob"));
    take();
    assert!(world.add_pair::<Likes>(e, bob));
    assert_eq!(take(), ["add Likes:bob", "insert Likes:bob"]);
    // Adding it again: an overwrite of a tag (replace, insert), no add.
    world.add_pair::<Likes>(e, bob);
    assert_eq!(take(), ["replace Likes:bob", "insert Likes:bob"]);
}

/// The context names the relationship's component entity and the holder.
#[test]
fn context_names_relationship_and_holder() {
    use std::sync::Mutex;
    static SEEN: Mutex<Vec<(Entity, Entity, Option<Entity>)>> = Mutex::new(Vec::new());
    fn record(world: DeferredWorld, ctx: HookContext) {
        SEEN.lock().unwrap().push((ctx.entity, ctx.component_id, world.pair_target()));
    }
    #[derive(Relationship)]
    #[component(on_add = record)]
    struct Watched;
    let mut world = World::new();
    let (e, t) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<Watched>(e, t);
    let relationship = world.component_id::<Watched>().unwrap();
    assert_eq!(*SEEN.lock().unwrap(), [(e, relationship, Some(t))]);
}

/// A component's own hook has no pair target.
#[test]
fn plain_component_hook_has_no_pair_target() {
    let mut world = World::new();
    world.spawn(Plain);
    assert_eq!(take(), ["own None"]);
}

/// Each pair of a non-exclusive relationship runs the hooks with its own target.
#[test]
fn hooks_run_per_pair() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    take();
    world.add_pair::<Likes>(e, a);
    world.add_pair::<Likes>(e, b);
    assert_eq!(take(), ["add Likes:a", "insert Likes:a", "add Likes:b", "insert Likes:b"]);
    assert!(world.remove_pair::<Likes>(e, a));
    assert_eq!(take(), ["replace Likes:a", "remove Likes:a"]);
    assert!(!world.remove_pair::<Likes>(e, a));
    assert!(take().is_empty());
}

/// An exclusive replacement removes the old pair (replace, remove) and adds the new one.
#[test]
fn exclusive_replacement_runs_remove_of_old_pair() {
    let mut world = World::new();
    let ship = world.spawn_empty().id();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    world.add_pair::<DockedTo>(ship, a);
    take();
    world.add_pair::<DockedTo>(ship, b);
    let mut seen = take();
    // The old pair's events come before the new pair's.
    assert_eq!(seen.len(), 4, "{seen:?}");
    let new: Vec<String> = seen.split_off(2);
    assert_eq!(seen, ["replace DockedTo:a", "remove DockedTo:a"]);
    assert_eq!(new, ["add DockedTo:b", "insert DockedTo:b"]);
    assert_eq!(world.target::<DockedTo>(ship), Some(b));
}

/// Despawning the holder runs `on_replace`/`on_remove` for every pair, value readable.
#[test]
fn despawn_of_holder_runs_remove_hooks_with_values() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    world.insert_pair(e, Fuel(1), a);
    world.insert_pair(e, Fuel(2), b);
    assert_eq!(take(), ["insert fuel Some(1)", "insert fuel Some(2)"]);
    assert!(world.despawn(e));
    let mut seen = take();
    seen.sort();
    assert_eq!(
        seen,
        [
            "drop fuel 1",
            "drop fuel 2",
            "remove fuel Some(1)",
            "remove fuel Some(2)",
            "replace fuel Some(1)",
            "replace fuel Some(2)"
        ]
    );
    drop(world);
    assert!(take().is_empty());
}

/// Overwriting a pair's value: `on_replace` sees the old value, `on_insert` the new one.
#[test]
fn overwrite_runs_replace_with_old_then_insert_with_new() {
    let mut world = World::new();
    let (e, t) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.insert_pair(e, Fuel(1), t);
    take();
    world.insert_pair(e, Fuel(5), t);
    assert_eq!(take(), ["replace fuel Some(1)", "drop fuel 1", "insert fuel Some(5)"]);
    world.remove_pair::<Fuel>(e, t);
    assert_eq!(take(), ["replace fuel Some(5)", "remove fuel Some(5)", "drop fuel 5"]);
    drop(world);
    assert!(take().is_empty());
}

/// Despawning a target removes its pairs from survivors: their hooks run first.
#[test]
fn cleanup_of_target_runs_remove_hooks_on_holders() {
    let mut world = World::new();
    let (e, f) = (world.spawn_empty().id(), world.spawn_empty().id());
    let t = named(&mut world, "t");
    world.add_pair::<Likes>(e, t);
    world.add_pair::<Likes>(f, t);
    take();
    assert!(world.despawn(t));
    assert_eq!(take(), ["replace Likes:t", "remove Likes:t", "replace Likes:t", "remove Likes:t"]);
    assert!(world.is_alive(e) && world.is_alive(f));
    assert!(!world.has_pair::<Likes>(e, t));
}

/// A `delete` cleanup despawns the holders; their pairs' `on_remove` runs.
#[test]
fn delete_cleanup_runs_remove_hooks_on_deleted_holders() {
    let mut world = World::new();
    let owner = named(&mut world, "owner");
    let item = world.spawn_empty().id();
    world.add_pair::<OwnedBy>(item, owner);
    assert_eq!(take(), ["add OwnedBy:owner"]);
    assert!(world.despawn(owner));
    assert_eq!(take(), ["remove OwnedBy:owner"]);
    assert!(!world.is_alive(item));
}

/// `remove_id(e, *)` (a clear) runs the hooks of every pair it removes.
#[test]
fn clear_runs_pair_hooks() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    world.add_pair::<Likes>(e, a);
    world.insert_pair(e, Fuel(3), b);
    take();
    assert!(world.remove_id(e, Entity::WILDCARD.id()));
    let mut seen = take();
    seen.sort();
    assert_eq!(
        seen,
        ["drop fuel 3", "remove Likes:a", "remove fuel Some(3)", "replace Likes:a", "replace fuel Some(3)"]
    );
}

/// `remove_pair::<R>(e, *)` runs the hooks of each removed pair.
#[test]
fn wildcard_remove_runs_hooks_per_pair() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    world.add_pair::<Likes>(e, a);
    world.add_pair::<Likes>(e, b);
    take();
    assert!(world.remove_pair::<Likes>(e, Entity::WILDCARD));
    let mut seen = take();
    seen.sort();
    assert_eq!(seen, ["remove Likes:a", "remove Likes:b", "replace Likes:a", "replace Likes:b"]);
}

/// A union relationship: adding, changing the target (old removed, new added) and removing.
#[test]
fn union_pairs_run_hooks() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (walk, run) = (named(&mut world, "walk"), named(&mut world, "run"));
    take();
    world.add_pair::<Mode>(e, walk);
    assert_eq!(take(), ["add Mode:walk", "insert Mode:walk"]);
    world.add_pair::<Mode>(e, run);
    assert_eq!(take(), ["replace Mode:walk", "remove Mode:walk", "add Mode:run", "insert Mode:run"]);
    world.add_pair::<Mode>(e, run);
    assert_eq!(take(), ["replace Mode:run", "insert Mode:run"]);
    assert!(!world.remove_pair::<Mode>(e, walk));
    assert!(take().is_empty());
    assert!(world.remove_pair::<Mode>(e, run));
    assert_eq!(take(), ["replace Mode:run", "remove Mode:run"]);
    world.add_pair::<Mode>(e, walk);
    take();
    assert!(world.despawn(e));
    assert_eq!(take(), ["replace Mode:walk", "remove Mode:walk"]);
}

/// A union target's despawn removes the union pair from its holders, with hooks.
#[test]
fn union_target_cleanup_runs_hooks() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let walk = named(&mut world, "walk");
    world.add_pair::<Mode>(e, walk);
    take();
    assert!(world.despawn(walk));
    assert_eq!(take(), ["replace Mode:walk", "remove Mode:walk"]);
    assert!(world.is_alive(e));
}

/// A pair given in a spawned bundle runs its hooks once the entity is complete.
#[test]
fn pair_in_spawned_bundle_runs_hooks() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    take();
    let e = world.spawn((Plain, Likes.pair(a))).id();
    let seen = take();
    assert!(seen.contains(&"add Likes:a".to_string()), "{seen:?}");
    assert!(seen.contains(&"insert Likes:a".to_string()), "{seen:?}");
    assert!(seen.contains(&"own None".to_string()), "{seen:?}");
    assert!(world.has_pair::<Likes>(e, a));
}

/// A pair hook's commands apply before the call returns.
#[test]
fn pair_hook_commands_apply_before_return() {
    let mut world = World::new();
    let (e, t) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<LinkedTo>(e, t);
    assert!(world.get::<Linked>(e).is_some());
    // Through commands too.
    let f = world.spawn_empty().id();
    let mut queue = ecs::system::CommandQueue::default();
    Commands::new(&mut queue, &world).entity(f).add_pair::<LinkedTo>(t);
    queue.apply(&mut world);
    assert!(world.get::<Linked>(f).is_some());
}

/// An observer of the pair and the hook: on add the hook first, on remove the observer first.
#[test]
fn hook_and_observer_order() {
    let mut world = World::new();
    world.add_observer(|_: Trigger<OnAdd, Pair<Likes>>| log("observer add".into()));
    world.add_observer(|_: Trigger<OnRemove, Pair<Likes>>| log("observer remove".into()));
    let e = world.spawn_empty().id();
    let a = named(&mut world, "a");
    take();
    world.add_pair::<Likes>(e, a);
    assert_eq!(take(), ["add Likes:a", "observer add", "insert Likes:a"]);
    world.remove_pair::<Likes>(e, a);
    assert_eq!(take(), ["replace Likes:a", "observer remove", "remove Likes:a"]);
}

/// A panicking `on_add` of a data pair leaves the pair in place; its value is dropped once.
#[test]
fn panicking_pair_hook_drops_value_once() {
    let mut world = World::new();
    let (e, t) = (world.spawn_empty().id(), world.spawn_empty().id());
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert_pair(e, Brittle(7), t);
    }));
    assert!(result.is_err());
    // `on_add` runs after the change: the pair stays.
    assert_eq!(world.get_pair::<Brittle>(e, t).map(|b| b.0), Some(7));
    assert!(take().is_empty());
    assert!(world.despawn(e));
    assert_eq!(take(), ["drop brittle 7"]);
    drop(world);
    assert!(take().is_empty());
}

/// A pair added by id (`add_pair_id`) of a hooked relationship runs its hooks too.
#[test]
fn add_pair_id_runs_relationship_hooks() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let a = named(&mut world, "a");
    let likes = world.register_component::<Likes>();
    take();
    assert!(world.add_pair_id(e, likes, a));
    assert_eq!(take(), ["add Likes:a", "insert Likes:a"]);
    assert!(world.remove_id(e, Id::pair(likes, a)));
    assert_eq!(take(), ["replace Likes:a", "remove Likes:a"]);
}

/// A relationship without hooks runs nothing (and pairs of it stay on the fast path).
#[test]
fn relationship_without_hooks_runs_nothing() {
    let mut world = World::new();
    let (e, t) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<ChildOf>(e, t);
    assert!(world.despawn(t));
    assert!(take().is_empty());
}

/// `spawn_batch` of bundles with a pair runs the pair's hooks for each entity.
#[test]
fn spawn_batch_runs_pair_hooks() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    take();
    let spawned: Vec<Entity> = world.spawn_batch((0..3).map(|_| Likes.pair(a))).collect();
    assert_eq!(spawned.len(), 3);
    let seen = take();
    assert_eq!(seen.iter().filter(|l| *l == "add Likes:a").count(), 3, "{seen:?}");
    assert_eq!(seen.iter().filter(|l| *l == "insert Likes:a").count(), 3, "{seen:?}");
}

/// Instantiating a prefab that holds a hooked pair runs the pair's hooks on the instance.
#[test]
fn instantiate_runs_pair_hooks_on_instance() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    let prefab = world.spawn(Prefab).id();
    world.add_pair::<Likes>(prefab, a);
    take();
    let instance = world.instantiate(prefab);
    let seen = take();
    assert!(world.has_pair::<Likes>(instance, a));
    assert_eq!(seen, ["add Likes:a", "insert Likes:a"]);
}
