//! Tests ported from bevy_ecs (bevy main, commit 4805ca792c) for the world's
//! remaining files: `world/deferred_world.rs` (doc examples of `entity_mut` and
//! `entities_and_commands`), `world/spawn_batch.rs` (the behaviour of
//! `SpawnBatchIter`: `Drop`, `size_hint`/`ExactSizeIterator`, ids and storage
//! reserved from the size hint), `name.rs` (unit tests and the `Name` /
//! `NameOrEntity` docs), `resource.rs` (its doc example and `unique_resource_entities`),
//! `storage/blob_array.rs`, `storage/sparse_set.rs`, `storage/table/mod.rs`,
//! `entity/mod.rs`, `entity/remote_allocator.rs` and `world/identifier.rs` (unit
//! tests). Each test is named `<bevy file>_<bevy test or doc item>` and says what
//! it ports; doc examples, which Bevy only compiles or runs silently, are run and
//! their effect asserted. Internal-storage tests (`SparseSet`, `Table`, `Allocator`)
//! are restated through the world (`spawn_batch` = `alloc_many`, `spawn_empty` =
//! `alloc`, `despawn` = `free`, `world.sparse_sets()`, `Archetype::table()`).
//!
//! Translation: Bevy's `DeferredWorld::entity_mut(e).get_mut::<T>()` is
//! `DeferredWorld::get_mut::<T>(e)`; `NameOrEntity` is `(Entity, Option<&Name>)`;
//! Bevy's `Entity::from_index(EntityIndex::from_raw_u32(i))` /
//! `from_index_and_generation` are `Entity::from_raw(i, g)`.
//!
//! Extensions (each names what it extends): `DeferredWorld` commands from a hook;
//! spawn_batch with a lying size hint (over and under), hooks whose commands spawn
//! between bundles, an iterator that panics, a hook that panics (drops counted), a
//! `Name` clash midway; zero-sized values with `Drop` counted across despawn,
//! overwrite, remove, take, archetype moves, `clear_entities` and the world's drop
//! (dense and sparse); a dropped world's id not reused.
//!
//! Findings (all fixed since; the tests pass):
//! - `deferred_world_entities_and_commands_doc`: commands queued through a
//!   `DeferredWorld::from(&mut world)` are not applied by `World::flush` (Bevy's doc
//!   flushes and asserts they applied).
//! - `deferred_world_commands_apply_at_the_next_structural_change`: they are not
//!   applied by the next structural change either (`despawn` of a hook-less entity),
//!   only by a later change that runs hooks, where a stale insert then panics inside
//!   an unrelated `spawn`.
//! - `name_set_through_mut_is_seen_by_lookup`: a `Name` written through `Mut<Name>`
//!   (Bevy's `Name::set`/`mutate` on `&mut Name`) leaves `World::lookup`/`path` on
//!   the old name.
//! - `entity_display`: `Display for Entity` ignores width and alignment.
//! - `entity_debug_display_placeholder`: `Entity::PLACEHOLDER` prints its raw
//!   numbers, Bevy prints `PLACEHOLDER`.
//!
//! Documented differences (adapted, not findings):
//! - names are unique among siblings, roots included (world/names.rs), where Bevy's
//!   `Name` doc says several entities may share a name: the port shares a name
//!   between children of two parents;
//! - resources are not entities (API.md: `clear_entities` keeps them), so
//!   `unique_resource_entities` checks one resource per type and unchanged entity
//!   counts instead of a stable resource entity;
//! - `Entity` stores its index as is (Bevy: its complement), so within one
//!   generation ids order by ascending index (`entity_comparison`, two asserts
//!   flipped) and `from_bits(0xff_0000_00cc)` has index `0xcc` (`entity_const`);
//! - the first user entity is not `1v0` (internal entities come first);
//! - Bevy's `allocation_order_correctness` asserts a reuse order its own comment
//!   disclaims; the port asserts the freed indices are reused, once each, newer.
//!
//! Already ported elsewhere (not repeated): spawn_batch.rs
//! `spawn_batch_does_not_leak_entities`, entity/mod.rs `entity_niche_optimization`,
//! `entity_bits_roundtrip` (ported_bevy_query_more.rs, ported_bevy_more.rs);
//! bundle/tests.rs `insert_if_new`, `sparse_set_insert_if_new`,
//! `component_hook_order_*_with_macro_hooks`/`insert_remove`/`replace`/`recursive*`
//! (ported_bevy_more.rs, ported_bevy_observers.rs, ported_bevy_change_hooks.rs).
//!
//! Not ported:
//! - world/entity_fetch.rs, archetype.rs: no unit tests or doc examples.
//! - world/reflect.rs `get_component_as_reflect`, `get_component_as_mut_reflect`:
//!   reflection only.
//! - world/filtered_resource.rs docs: no `FilteredResources`/`FilteredResourcesMut`.
//! - deferred_world.rs `entity_mut` with arrays/slices/`EntityHashSet` (no many-entity
//!   fetch; ported as one `get_mut` per entity) and `entities_and_commands` (no
//!   `EntityFetcher`; the data is read before the commands are queued).
//! - name.rs `test_serde_name` (no serde), `pre_hash` (no pre-hashed `Name`; the
//!   port compares `Hash` values).
//! - bundle/tests.rs `can_spawn_bundle_without_extract` (no `SpawnRelatedBundle` /
//!   `#[bundle(ignore_from_components)]`), `component_hook_order_spawn_despawn`
//!   (no run-time `register_component_hooks`; its macro form is ported),
//!   `new_archetype_created*` (no `ArchetypeCreated` event).
//! - resource.rs `is_resource_presence` (no `IsResource`, resources are not
//!   entities), `derive_resource_component_features` (`#[derive(Resource)]` takes no
//!   `#[component(..)]` hooks or `immutable`), `derive_resource_require_features`
//!   (no required components).
//! - storage/table/mod.rs `only_one_empty_table`: every archetype owns its table
//!   here (`WorldStats::tables` doc), so there is no shared empty table.
//! - entity/mod.rs `entity_hash_*` (no `EntityHash`), `entity_generation_is_approximately_ordered`
//!   (no `EntityGeneration`); remote_allocator.rs `chunk_*`, `buffer_len_encoding`
//!   (internals of Bevy's allocator).
//! - identifier.rs `world_id_system_param`, `world_id_exclusive_system_param`
//!   (`WorldId` is not a system parameter).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use ecs::prelude::*;

// ===== world/deferred_world.rs ==========================================================

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Position {
    x: f32,
    y: f32,
}

/// bevy_ecs world/deferred_world.rs, doc of `DeferredWorld::entity_mut`, "Single
/// `Entity`": `entity_mut(e).get_mut::<Position>()` is `DeferredWorld::get_mut(e)` here.
#[test]
fn deferred_world_entity_mut_doc() {
    let mut world = World::new();
    let entity = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    {
        let mut world = DeferredWorld::from(&mut world);
        let mut position = world.get_mut::<Position>(entity).unwrap();
        position.y = 1.0;
        assert_eq!(position.x, 0.0);
    }
    assert_eq!(world.get::<Position>(entity), Some(&Position { x: 0.0, y: 1.0 }));
    // Bevy's `# Panics`: "if any of the given entities do not exist"; our
    // non-panicking form answers `None` for a despawned entity.
    world.despawn(entity);
    assert!(DeferredWorld::from(&mut world).get_mut::<Position>(entity).is_none());
}

/// bevy_ecs world/deferred_world.rs, doc of `DeferredWorld::entity_mut`, "Array",
/// "Slice" and "`&EntityHashSet`" of entities: no many-entity fetch here, so each
/// entity is written through `get_mut` in turn, and the values are read back.
#[test]
fn deferred_world_entity_mut_doc_many() {
    let mut world = World::new();
    let e1 = world.spawn(Position { x: 0.0, y: 0.0 }).id();
    let e2 = world.spawn(Position { x: 1.0, y: 1.0 }).id();
    {
        let mut world = DeferredWorld::from(&mut world);
        let mut p1 = world.get_mut::<Position>(e1).unwrap();
        p1.x = 1.0;
        assert_eq!(p1.x, 1.0);
        let mut p2 = world.get_mut::<Position>(e2).unwrap();
        p2.x = 2.0;
        assert_eq!(p2.x, 2.0);
    }
    assert_eq!(world.get::<Position>(e1), Some(&Position { x: 1.0, y: 0.0 }));
    assert_eq!(world.get::<Position>(e2), Some(&Position { x: 2.0, y: 1.0 }));

    let ids: Vec<Entity> = (0..3).map(|_| world.spawn(Position { x: 0.0, y: 1.0 }).id()).collect();
    {
        let mut world = DeferredWorld::from(&mut world);
        for &id in &ids {
            let mut pos = world.get_mut::<Position>(id).unwrap();
            pos.y = 2.0;
            assert_eq!(pos.y, 2.0);
        }
    }
    for id in ids {
        assert_eq!(world.get::<Position>(id), Some(&Position { x: 0.0, y: 2.0 }));
    }
}

#[derive(Component)]
struct Targets(Vec<Entity>);

#[derive(Component, Debug, PartialEq)]
struct TargetedBy(Entity);

/// bevy_ecs world/deferred_world.rs, doc of `DeferredWorld::entities_and_commands`:
/// commands built from entity data of a `DeferredWorld` made with
/// `DeferredWorld::from(&mut world)` are applied by `world.flush()`. No
/// `entities_and_commands` here: the targets are read first, then the commands are
/// queued through `DeferredWorld::commands`.
#[test]
fn deferred_world_entities_and_commands_doc() {
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let eid = world.spawn(Targets(vec![e1, e2])).id();
    {
        let mut world = DeferredWorld::from(&mut world);
        let targets = world.get::<Targets>(eid).unwrap().0.clone();
        let mut commands = world.commands();
        for target in targets {
            commands.entity(target).insert(TargetedBy(eid));
        }
    }
    // Expected (Bevy): `World::flush` applies the queued commands.
    // Actual: `flush` only makes reserved entities alive; the commands stay in the
    // world's deferred queue until the next structural change.
    world.flush();
    assert_eq!(world.get::<TargetedBy>(e1), Some(&TargetedBy(eid)));
    assert_eq!(world.get::<TargetedBy>(e2), Some(&TargetedBy(eid)));
}

/// Extends the `entities_and_commands` doc: what our module doc promises for the
/// standalone `DeferredWorld` (its commands go to the world's deferred queue,
/// "applied before the current structural change returns, or at the next one"). In
/// Bevy every structural change flushes queued commands first, so the insert lands
/// before the despawn and the despawn succeeds.
#[test]
fn deferred_world_commands_apply_at_the_next_structural_change() {
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let eid = world.spawn(Targets(vec![e1, e2])).id();
    {
        let mut world = DeferredWorld::from(&mut world);
        let mut commands = world.commands();
        commands.entity(e1).insert(TargetedBy(eid));
        commands.entity(e2).insert(TargetedBy(eid));
    }
    // Expected: the queued inserts apply first (as Bevy flushes before each
    // structural change), so `e2` has `TargetedBy` once `despawn` returns.
    // Actual: `despawn` of an entity without hooks applies nothing; the commands
    // stay queued until some later change runs hooks, and the insert into the dead
    // `e1` then panics there (seen: the next `world.spawn(A(1))`, whose first
    // registration of `A` runs `Name`'s hooks, panics "cannot insert .. TargetedBy
    // into entity ..: it is not alive").
    assert!(world.despawn(e1));
    assert!(!world.is_alive(e1));
    assert_eq!(world.get::<TargetedBy>(e2), Some(&TargetedBy(eid)));
    world.check_invariants();
}

#[derive(Component)]
#[component(on_add = target_all)]
struct HookTargets(Vec<Entity>);

fn target_all(mut world: DeferredWorld, ctx: HookContext) {
    let targets = world.get::<HookTargets>(ctx.entity).unwrap().0.clone();
    let mut commands = world.commands();
    for target in targets {
        commands.entity(target).insert(TargetedBy(ctx.entity));
    }
}

/// bevy_ecs world/deferred_world.rs, doc of `DeferredWorld::entities_and_commands`,
/// in the place a `DeferredWorld` is normally met: a hook. The commands are applied
/// before the `spawn` that ran the hook returns (our `DeferredWorld::commands` doc).
#[test]
fn deferred_world_entities_and_commands_from_a_hook() {
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    let e2 = world.spawn_empty().id();
    let eid = world.spawn(HookTargets(vec![e1, e2])).id();
    assert_eq!(world.get::<TargetedBy>(e1), Some(&TargetedBy(eid)));
    assert_eq!(world.get::<TargetedBy>(e2), Some(&TargetedBy(eid)));
}

// ===== world/spawn_batch.rs =============================================================

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct A(u32);

#[derive(Component)]
struct Marker;

/// bevy_ecs world/spawn_batch.rs, `impl Drop for SpawnBatchIter` (`for _ in &mut *self {}`):
/// dropping the iterator early spawns the bundles not yet consumed.
#[test]
fn spawn_batch_drop_spawns_the_rest() {
    let mut world = World::new();
    let first = {
        let mut batch = world.spawn_batch((0..5).map(|i| (A(i),)));
        batch.next().unwrap()
    };
    assert_eq!(world.get::<A>(first), Some(&A(0)));
    assert_eq!(world.entity_count(), 5);
    let mut values: Vec<u32> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
    values.sort_unstable();
    assert_eq!(values, [0, 1, 2, 3, 4]);
}

/// bevy_ecs world/spawn_batch.rs, `size_hint` and `impl ExactSizeIterator for
/// SpawnBatchIter`: the inner iterator's hint and length, shrinking as it spawns.
#[test]
fn spawn_batch_len_and_size_hint() {
    let mut world = World::new();
    let mut batch = world.spawn_batch((0..5).map(|i| (A(i),)));
    assert_eq!(batch.size_hint(), (5, Some(5)));
    assert_eq!(batch.len(), 5);
    batch.next();
    batch.next();
    assert_eq!(batch.len(), 3);
    assert_eq!(batch.size_hint(), (3, Some(3)));
    let rest: Vec<Entity> = batch.collect();
    assert_eq!(rest.len(), 3);
    assert_eq!(world.entity_count(), 5);
}

/// An iterator whose size hint is `hint` whatever it yields.
struct Lying {
    left: u32,
    hint: (usize, Option<usize>),
}

impl Iterator for Lying {
    type Item = (A,);
    fn next(&mut self) -> Option<(A,)> {
        (self.left > 0).then(|| {
            self.left -= 1;
            (A(self.left),)
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.hint
    }
}

/// bevy_ecs world/spawn_batch.rs, `SpawnBatchIter::new` reserves storage and ids
/// from the size hint (`upper.unwrap_or(lower)`) and `Drop` frees the ids it did not
/// use (what `spawn_batch_does_not_leak_entities` checks with an honest `filter`): a
/// hint that overstates leaves no phantom entity or row behind.
#[test]
fn spawn_batch_overstated_size_hint() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch(Lying { left: 3, hint: (100, Some(100)) }).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(world.entity_count(), 3);
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
    world.check_invariants();
    let later = world.spawn(A(9)).id();
    assert!(!ids.contains(&later));
    assert_eq!(world.entity_count(), 4);
    assert_eq!(world.query::<&A>().iter(&world).count(), 4);
    world.check_invariants();
}

/// The same, with a hint that understates (Bevy reserves nothing and spawns each
/// bundle on its own): every bundle is spawned, each with its own id.
#[test]
fn spawn_batch_understated_size_hint() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch(Lying { left: 5, hint: (0, Some(0)) }).collect();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 5);
    assert_eq!(world.entity_count(), 5);
    let mut values: Vec<u32> = ids.iter().map(|&e| world.get::<A>(e).unwrap().0).collect();
    values.sort_unstable();
    assert_eq!(values, [0, 1, 2, 3, 4]);
    world.check_invariants();
}

#[derive(Component)]
#[component(on_add = spawn_marker)]
struct SpawnsMarker;

fn spawn_marker(mut world: DeferredWorld, _: HookContext) {
    world.commands().spawn(Marker);
}

/// bevy_ecs world/spawn_batch.rs: the batch's pre-allocated ids (`alloc_many`) and
/// the ids hooks' commands allocate between two spawns (`flush_commands`) never
/// collide.
#[test]
fn spawn_batch_hook_commands_spawn_between_bundles() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..10).map(|_| (SpawnsMarker,))).collect();
    let markers: Vec<Entity> = world.query_filtered::<Entity, With<Marker>>().iter(&world).collect();
    assert_eq!(markers.len(), 10);
    let all: HashSet<Entity> = ids.iter().chain(&markers).copied().collect();
    assert_eq!(all.len(), 20);
    assert_eq!(world.entity_count(), 20);
    assert!(ids.iter().all(|&e| world.has::<SpawnsMarker>(e) && !world.has::<Marker>(e)));
    world.check_invariants();
}

/// An iterator that panics on its third item.
struct PanicsOnThird(u32);

impl Iterator for PanicsOnThird {
    type Item = (A,);
    fn next(&mut self) -> Option<(A,)> {
        self.0 += 1;
        assert!(self.0 < 3, "third bundle");
        Some((A(self.0),))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (10, Some(10))
    }
}

/// bevy_ecs world/spawn_batch.rs (storage and ids reserved from the size hint up
/// front): a bundle iterator that panics half way leaves the bundles spawned so far
/// and a consistent world, with no reserved row or id left behind.
#[test]
fn spawn_batch_iterator_panics_midway() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn_batch(PanicsOnThird(0)).for_each(drop);
    }));
    assert!(result.is_err());
    assert_eq!(world.entity_count(), 2);
    assert_eq!(world.query::<&A>().iter(&world).count(), 2);
    world.check_invariants();
    let e = world.spawn(A(7)).id();
    assert_eq!(world.get::<A>(e), Some(&A(7)));
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
    world.check_invariants();
}

/// Extends the spawn_batch.rs port to our sibling-name rule (world/names.rs: a
/// spawn whose `Name` clashes is undone and panics naming both entities): a batch
/// with a clash in the middle leaves the bundles spawned before it, a consistent
/// world, and the first entity still found under the name.
#[test]
fn spawn_batch_name_clash_midway() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn_batch(["a", "b", "a", "c"].map(|name| (Name::new(name), A(0)))).for_each(drop);
    }));
    assert!(result.is_err());
    world.check_invariants();
    assert_eq!(world.entity_count(), 2);
    assert_eq!(world.query::<&Name>().iter(&world).count(), 2);
    let a = world.lookup("a").unwrap();
    assert_eq!(world.get::<Name>(a).map(Name::as_str), Some("a"));
    assert!(world.lookup("b").is_some());
    assert_eq!(world.lookup("c"), None);
    let c = world.spawn(Name::new("c")).id();
    assert_eq!(world.lookup("c"), Some(c));
}

static HOOK_PANIC_SPAWNS: AtomicUsize = AtomicUsize::new(0);
static HOOK_PANIC_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
#[component(on_add = panic_on_third)]
struct PanicsInHook;

fn panic_on_third(_: DeferredWorld, _: HookContext) {
    assert!(HOOK_PANIC_SPAWNS.fetch_add(1, SeqCst) != 2, "third on_add");
}

#[derive(Component)]
struct DropCounted;

impl Drop for DropCounted {
    fn drop(&mut self) {
        HOOK_PANIC_DROPS.fetch_add(1, SeqCst);
    }
}

/// Extends the spawn_batch.rs port: a hook that panics during a batch (our
/// spawn_batch.rs: "the iterator stops and the remaining bundles are dropped
/// unspawned") leaves a consistent world, and every bundle value is dropped exactly
/// once in the end (the unspawned ones at once, the spawned ones with the world).
#[test]
fn spawn_batch_hook_panics_midway() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Built up front, so that the unspawned values exist and must be dropped.
        let bundles: Vec<(PanicsInHook, DropCounted)> = (0..6).map(|_| (PanicsInHook, DropCounted)).collect();
        world.spawn_batch(bundles).for_each(drop);
    }));
    assert!(result.is_err());
    world.check_invariants();
    let alive = world.query::<&DropCounted>().iter(&world).count();
    assert_eq!(alive, world.entity_count());
    assert!((2..=3).contains(&alive), "the two before the panic, and perhaps the one whose hook panicked");
    assert_eq!(HOOK_PANIC_DROPS.load(SeqCst), 6 - alive, "the unspawned values are dropped");
    drop(world);
    assert_eq!(HOOK_PANIC_DROPS.load(SeqCst), 6);
}

// ===== name.rs ==========================================================================

/// bevy_ecs name.rs `test_display_of_debug_name`: no `NameOrEntity`; its `Display`
/// (the name, or `{index}v{generation}`) is rebuilt from `(Entity, Option<&Name>)`.
/// Bevy's first entity is `1v0`; ours has a higher index (internal entities come
/// first), so the expected text is built from the entity's own index.
#[test]
fn name_test_display_of_debug_name() {
    fn show((entity, name): (Entity, Option<&Name>)) -> String {
        name.map_or_else(|| entity.to_string(), Name::to_string)
    }
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    let name = Name::new("MyName");
    let e2 = world.spawn(name.clone()).id();
    let mut query = world.query::<(Entity, Option<&Name>)>();
    let d1 = show(query.get(&world, e1).unwrap());
    assert_eq!(d1, format!("{}v{}", e1.index(), e1.generation()));
    let d2 = show(query.get(&world, e2).unwrap());
    assert_eq!(d2, "MyName");
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// bevy_ecs name.rs `test_name_hash_is_fixed`: no `pre_hash`; a `Name`'s hash depends
/// on its text only (borrowed or owned, old or new), and names compare by text.
#[test]
fn name_test_name_hash_is_fixed() {
    let str = "foobar";
    let borrowed = Name::new(str);
    let owned = Name::new(String::from(str));
    assert_eq!(hash_of(&borrowed), hash_of(&owned));
    assert_eq!(hash_of(&borrowed), hash_of(&Name::new("foobar")));
    assert_eq!(borrowed, owned);
    assert_ne!(hash_of(&borrowed), hash_of(&Name::new("foobaz")));
    assert_ne!(borrowed, Name::new("foobaz"));
}

#[derive(Component)]
struct Score(f32);

/// bevy_ecs name.rs, doc of `NameOrEntity` (`increment_score`), run: a system reads
/// the name where there is one, the entity otherwise.
#[test]
fn name_doc_name_or_entity() {
    #[derive(Resource, Default)]
    struct Seen(Vec<String>);
    fn increment_score(mut scores: Query<(Entity, Option<&Name>, &mut Score)>, mut seen: ResMut<Seen>) {
        for (entity, name, mut score) in scores.iter_mut() {
            score.0 += 1.0;
            seen.0.push(name.map_or_else(|| entity.to_string(), |name| name.to_string()));
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let named = world.spawn((Name::new("Alice"), Score(0.0))).id();
    let anonymous = world.spawn(Score(1.0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(increment_score);
    schedule.run(&mut world);
    assert_eq!(world.get::<Score>(named).unwrap().0, 1.0);
    assert_eq!(world.get::<Score>(anonymous).unwrap().0, 2.0);
    let mut seen = world.resource::<Seen>().0.clone();
    seen.sort();
    let mut expected = vec!["Alice".to_string(), format!("{anonymous}")];
    expected.sort();
    assert_eq!(seen, expected);
}

/// bevy_ecs name.rs, doc of `Name`: "multiple entities can have the same name". Ours
/// keeps names unique among siblings (roots included, world/names.rs): entities
/// under different parents share a name, and the `Entity` stays the identifier.
#[test]
fn name_doc_multiple_entities_can_have_the_same_name() {
    let mut world = World::new();
    let p1 = world.spawn_empty().id();
    let p2 = world.spawn_empty().id();
    let a = world.spawn((Name::new("turret"), ChildOf.pair(p1))).id();
    let b = world.spawn((Name::new("turret"), ChildOf.pair(p2))).id();
    assert_ne!(a, b);
    assert_eq!(world.get::<Name>(a), world.get::<Name>(b));
    let named: Vec<Entity> = world
        .query::<(Entity, &Name)>()
        .iter(&world)
        .filter(|(_, name)| name.as_str() == "turret")
        .map(|(e, _)| e)
        .collect();
    assert_eq!(named.len(), 2);
}

/// bevy_ecs name.rs, `Name::set` / `Name::mutate` ("Updates the name of the entity
/// in place"), which Bevy users call through `&mut Name` (`Query<&mut Name>`). No
/// `set` here: the text is written through `Mut<Name>`; `World::lookup` and
/// `World::path` must then find the entity by its new name, not its old one.
#[test]
fn name_set_through_mut_is_seen_by_lookup() {
    let mut world = World::new();
    let e = world.spawn(Name::new("old")).id();
    world.get_mut::<Name>(e).unwrap().0 = "new".into();
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("new"));
    // Expected: the name index follows the value. Actual: lookup("new") is None and
    // lookup("old") still answers `e` (the index is kept by Name's insert/replace
    // hooks only, world/names.rs).
    assert_eq!(world.lookup("old"), None);
    assert_eq!(world.lookup("new"), Some(e));
    assert_eq!(world.path(e).as_deref(), Some("new"));

    fn rename(mut names: Query<&mut Name>) {
        for mut name in names.iter_mut() {
            name.0 = "renamed".into();
        }
    }
    world.run_system_once(rename);
    assert_eq!(world.lookup("new"), None);
    assert_eq!(world.lookup("renamed"), Some(e));
}

// ===== resource.rs ======================================================================

#[derive(Resource)]
struct MyResource {
    value: u32,
}

#[derive(Resource, Default)]
struct Ran(u32);

fn read_resource_system(resource: Res<MyResource>, mut ran: ResMut<Ran>) {
    assert_eq!(resource.value, 42);
    ran.0 += 1;
}

fn write_resource_system(mut resource: ResMut<MyResource>, mut ran: ResMut<Ran>) {
    assert_eq!(resource.value, 42);
    resource.value = 0;
    assert_eq!(resource.value, 0);
    ran.0 += 10;
}

/// bevy_ecs resource.rs, doc of `Resource` (read then write systems, chained), run
/// and its effect asserted.
#[test]
fn resource_doc() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    world.insert_resource(MyResource { value: 42 });
    world.init_resource::<Ran>();
    schedule.add_systems((read_resource_system, write_resource_system).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Ran>().0, 11);
    assert_eq!(world.resource::<MyResource>().value, 0);
}

/// bevy_ecs resource.rs `unique_resource_entities`: Bevy 0.18 stores each resource on
/// one stable entity; ours are not entities (API.md: `clear_entities` keeps them), so
/// the port checks what holds for both: one resource per type whatever is inserted,
/// removed or re-inserted, and registering a resource type as a component adds no
/// resource. Entity counts never move here.
#[test]
fn resource_unique_resource_entities() {
    #[derive(Default, Resource)]
    struct TestResource1;
    #[derive(Resource)]
    struct TestResource2(#[allow(dead_code)] String);
    #[derive(Resource, Component)]
    struct TestResource3(u8);

    let mut world = World::new();
    let start = world.entity_count();
    let resources = world.stats().resources;
    world.init_resource::<TestResource1>();
    assert_eq!(world.stats().resources, resources + 1);
    world.insert_resource(TestResource2(String::from("Foo")));
    assert_eq!(world.stats().resources, resources + 2);
    world.register_component::<TestResource3>();
    assert_eq!(world.stats().resources, resources + 2);
    assert!(!world.contains_resource::<TestResource3>());
    world.insert_resource(TestResource3(20));
    assert_eq!(world.stats().resources, resources + 3);
    assert_eq!(world.remove_resource::<TestResource3>().map(|r| r.0), Some(20));
    assert_eq!(world.stats().resources, resources + 2);
    world.insert_resource(TestResource3(21));
    assert_eq!(world.resource::<TestResource3>().0, 21);
    assert!(world.remove_resource::<TestResource1>().is_some());
    world.init_resource::<TestResource1>();
    world.insert_resource(TestResource2(String::from("Bar")));
    assert_eq!(world.stats().resources, resources + 3);
    assert_eq!(world.entity_count(), start);
}

// ===== storage/blob_array.rs, storage/sparse_set.rs, storage/table/mod.rs ===============

#[derive(Component)]
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("PanicOnDrop is being Dropped");
    }
}

/// bevy_ecs storage/blob_array.rs `make_sure_zst_components_get_dropped`.
#[test]
#[should_panic(expected = "PanicOnDrop is being Dropped")]
fn blob_array_make_sure_zst_components_get_dropped() {
    let mut world = World::new();
    world.spawn(PanicOnDrop);
}

static ZST_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
struct CountedZst;

impl Drop for CountedZst {
    fn drop(&mut self) {
        ZST_DROPS.fetch_add(1, SeqCst);
    }
}

static SPARSE_ZST_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
#[component(storage = "sparse")]
struct CountedSparseZst;

impl Drop for CountedSparseZst {
    fn drop(&mut self) {
        SPARSE_ZST_DROPS.fetch_add(1, SeqCst);
    }
}

/// Extends `make_sure_zst_components_get_dropped`: a zero-sized value (stored as no
/// column, API.md) is still dropped exactly once on despawn, overwrite, `remove`
/// (returned, then dropped by the caller), batch spawn and world drop.
#[test]
fn blob_array_zst_drops_counted() {
    let drops = || ZST_DROPS.load(SeqCst);
    let mut world = World::new();
    let e = world.spawn(CountedZst).id();
    assert_eq!(drops(), 0);
    world.despawn(e);
    assert_eq!(drops(), 1);
    let e = world.spawn((CountedZst, A(1))).id();
    world.insert(e, CountedZst);
    assert_eq!(drops(), 2, "overwrite drops the old value");
    let removed = world.remove::<CountedZst>(e);
    assert!(removed.is_some());
    assert_eq!(drops(), 2, "remove hands the value out");
    drop(removed);
    assert_eq!(drops(), 3);
    world.insert(e, CountedZst);
    world.spawn_batch((0..4).map(|_| (CountedZst,))).for_each(drop);
    assert_eq!(drops(), 3);
    drop(world);
    assert_eq!(drops(), 8, "the world's drop drops the 5 held values");
}

/// The same for a sparse zero-sized value.
#[test]
fn blob_array_sparse_zst_drops_counted() {
    let drops = || SPARSE_ZST_DROPS.load(SeqCst);
    let mut world = World::new();
    let e = world.spawn(CountedSparseZst).id();
    world.despawn(e);
    assert_eq!(drops(), 1);
    let e = world.spawn(CountedSparseZst).id();
    world.insert(e, CountedSparseZst);
    assert_eq!(drops(), 2);
    drop(world.remove::<CountedSparseZst>(e));
    assert_eq!(drops(), 3);
    world.insert(e, CountedSparseZst);
    drop(world);
    assert_eq!(drops(), 4);
}

static MOVED_ZST_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
struct MovedZst;

impl Drop for MovedZst {
    fn drop(&mut self) {
        MOVED_ZST_DROPS.fetch_add(1, SeqCst);
    }
}

/// Extends `make_sure_zst_components_get_dropped`: a zero-sized value carried along
/// archetype moves (insert, remove of another component, `take`, `clear_entities`)
/// is dropped once, when it leaves, never by a move.
#[test]
fn blob_array_zst_moves_do_not_drop() {
    let drops = || MOVED_ZST_DROPS.load(SeqCst);
    let mut world = World::new();
    let e = world.spawn(MovedZst).id();
    let other = world.spawn((MovedZst, A(2))).id();
    world.insert(e, A(1));
    world.insert(e, W(1));
    world.remove::<A>(e);
    world.despawn(other);
    assert_eq!(drops(), 1, "only the despawned entity's value");
    let taken = world.entity_mut(e).take::<MovedZst>();
    assert!(taken.is_some());
    assert_eq!(drops(), 1);
    drop(taken);
    assert_eq!(drops(), 2);
    world.spawn_batch((0..3).map(|i| (MovedZst, W(i)))).for_each(drop);
    world.insert(e, MovedZst);
    world.clear_entities();
    assert_eq!(drops(), 6);
    drop(world);
    assert_eq!(drops(), 6);
}

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Foo(usize);

/// bevy_ecs storage/sparse_set.rs `sparse_set`, through the world: a sparse
/// component's values by entity, in insertion order while nothing is removed,
/// `remove` returning each value once.
#[test]
fn sparse_set_sparse_set() {
    let mut world = World::new();
    let [e0, e1, e2, e3, e4] = [(); 5].map(|_| world.spawn_empty().id());
    world.insert(e1, Foo(1));
    world.insert(e2, Foo(2));
    world.insert(e3, Foo(3));

    assert_eq!(world.get::<Foo>(e0), None);
    assert_eq!(world.get::<Foo>(e1), Some(&Foo(1)));
    assert_eq!(world.get::<Foo>(e2), Some(&Foo(2)));
    assert_eq!(world.get::<Foo>(e3), Some(&Foo(3)));
    assert_eq!(world.get::<Foo>(e4), None);
    let id = world.component_id::<Foo>().unwrap();
    assert_eq!(world.sparse_sets().of(id).unwrap().entities(), &[e1, e2, e3]);

    assert_eq!(world.remove::<Foo>(e2), Some(Foo(2)));
    assert_eq!(world.remove::<Foo>(e2), None);

    assert_eq!(world.get::<Foo>(e0), None);
    assert_eq!(world.get::<Foo>(e1), Some(&Foo(1)));
    assert_eq!(world.get::<Foo>(e2), None);
    assert_eq!(world.get::<Foo>(e3), Some(&Foo(3)));
    assert_eq!(world.get::<Foo>(e4), None);

    assert_eq!(world.remove::<Foo>(e1), Some(Foo(1)));

    assert_eq!(world.get::<Foo>(e0), None);
    assert_eq!(world.get::<Foo>(e1), None);
    assert_eq!(world.get::<Foo>(e2), None);
    assert_eq!(world.get::<Foo>(e3), Some(&Foo(3)));
    assert_eq!(world.get::<Foo>(e4), None);

    world.insert(e4, Foo(4));
    assert_eq!(world.get::<Foo>(e4), Some(&Foo(4)));
    *world.get_mut::<Foo>(e4).unwrap() = Foo(5);
    assert_eq!(world.get::<Foo>(e4), Some(&Foo(5)));
    assert_eq!(world.sparse_sets().of(id).unwrap().len(), 2);
    world.check_invariants();
}

/// bevy_ecs storage/sparse_set.rs `sparse_sets`: one set per sparse component
/// (`WorldStats::sparse_sets`, made on first use here), each with its own length.
#[test]
fn sparse_set_sparse_sets() {
    #[derive(Component, Default, Debug)]
    #[component(storage = "sparse")]
    struct TestComponent1;
    #[derive(Component, Default, Debug)]
    #[component(storage = "sparse")]
    struct TestComponent2;

    let mut world = World::new();
    let base = world.stats().sparse_sets;
    let e = world.spawn(TestComponent1).id();
    assert_eq!(world.stats().sparse_sets, base + 1);
    world.spawn((TestComponent1, TestComponent2));
    assert_eq!(world.stats().sparse_sets, base + 2);
    let c1 = world.component_id::<TestComponent1>().unwrap();
    let c2 = world.component_id::<TestComponent2>().unwrap();
    assert_eq!(world.sparse_sets().of(c1).unwrap().len(), 2);
    assert_eq!(world.sparse_sets().of(c2).unwrap().len(), 1);
    world.despawn(e);
    assert_eq!(world.sparse_sets().of(c1).unwrap().len(), 1);
    assert_eq!(world.stats().sparse_sets, base + 2);
}

#[derive(Component, Debug, PartialEq)]
struct W(usize);

/// bevy_ecs storage/table/mod.rs `table`: 200 rows in one table, each value where
/// it was written (Bevy checks `entity_count` and a capacity of 256; ours reports
/// a capacity of at least the length).
#[test]
fn table_table() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..200).map(|i| (W(i),))).collect();
    let archetype = world.entity(entities[0]).archetype();
    let archetype = world.archetypes().get(archetype).unwrap();
    assert_eq!(archetype.len(), 200);
    assert_eq!(archetype.table().len(), 200);
    assert!(archetype.table().capacity() >= 200);
    assert_eq!(archetype.entities(), &entities[..]);
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<W>(e), Some(&W(i)));
    }
}

// ===== entity/mod.rs, entity/remote_allocator.rs, world/identifier.rs ===================

/// bevy_ecs entity/mod.rs `entity_const`: handles built and read in const contexts.
/// Bevy stores the index's complement in the low bits (`!0xcc`); ours stores the
/// index itself (`Entity::from_bits` doc), generation in the high half for both.
#[test]
fn entity_const() {
    const C1: Entity = Entity::from_raw(42, 0);
    assert_eq!(42, C1.index());
    assert_eq!(0, C1.generation());

    const C2: Option<Entity> = Entity::from_bits(0x0000_00ff_0000_00cc);
    let c2 = C2.unwrap();
    assert_eq!(0xcc, c2.index());
    assert_eq!(0x0000_00ff, c2.generation());

    const C3: u32 = Entity::from_raw(33, 0).index();
    assert_eq!(33, C3);

    const C4: Option<u32> = match Entity::from_bits(0x00dd_00ff_1111_1111) {
        Some(e) => Some(e.generation()),
        None => None,
    };
    assert_eq!(Some(0x00dd_00ff), C4);
}

/// bevy_ecs entity/mod.rs `entity_comparison`: equality by index and generation;
/// ordering by generation first. Within one generation Bevy orders by descending
/// index (it stores the index's complement); ours by ascending index (API.md only
/// asks for `Ord`), so those two asserts are flipped.
#[test]
#[allow(clippy::nonminimal_bool)]
fn entity_comparison() {
    let e = Entity::from_raw;
    assert_eq!(e(123, 456), e(123, 456));
    assert_ne!(e(123, 789), e(123, 456));
    assert_ne!(e(123, 456), e(123, 789));
    assert_ne!(e(123, 456), e(456, 123));

    assert!(e(123, 456) >= e(123, 456));
    assert!(e(123, 456) <= e(123, 456));
    assert!(!(e(123, 456) < e(123, 456)));
    assert!(!(e(123, 456) > e(123, 456)));

    assert!(e(9, 1) < e(1, 9));
    assert!(e(1, 9) > e(9, 1));

    // Bevy: e(1, 1) > e(2, 1) and e(2, 2) < e(1, 2) (descending index).
    assert!(e(1, 1) < e(2, 1));
    assert!(e(1, 1) <= e(2, 1));
    assert!(e(2, 2) > e(1, 2));
    assert!(e(2, 2) >= e(1, 2));
}

/// bevy_ecs entity/mod.rs `entity_debug` (the numeric half).
#[test]
fn entity_debug() {
    let entity = Entity::from_raw(42, 0);
    assert_eq!(format!("{entity:?}"), "42v0");
    assert_eq!(format!("{:?}", Entity::from_raw(7, 3)), "7v3");
}

/// bevy_ecs entity/mod.rs `entity_display` (the numeric half): `{index}v{generation}`,
/// padded as `str` is by the width and alignment flags.
#[test]
fn entity_display() {
    let entity = Entity::from_raw(42, 0);
    assert_eq!(format!("{entity}"), "42v0");
    // Expected (Bevy, and any `Display` that uses `Formatter::pad`): padded.
    // Actual: `impl Display for Entity` writes with `write!`, dropping the flags.
    assert_eq!(format!("{entity:<5}"), "42v0 ");
    assert_eq!(format!("{entity:>6}"), "  42v0");
}

/// bevy_ecs entity/mod.rs `entity_debug` / `entity_display`, the `PLACEHOLDER` half.
#[test]
fn entity_debug_display_placeholder() {
    // Expected (Bevy): "PLACEHOLDER". Actual: the raw index and generation.
    assert_eq!(format!("{:?}", Entity::PLACEHOLDER), "PLACEHOLDER");
    assert_eq!(format!("{}", Entity::PLACEHOLDER), "PLACEHOLDER");
}

/// bevy_ecs entity/mod.rs `allocator`, through the world: `alloc_many` is
/// `spawn_batch`, `alloc` is `spawn_empty`, `free` is `despawn`. Every id is unique,
/// before and after the indices are recycled, and no recycled id equals a freed one.
#[test]
fn entity_allocator() {
    let mut world = World::new();
    let mut entities: Vec<Entity> = world.spawn_batch((0..2048).map(|_| (Marker,))).collect();
    for _ in 0..2048 {
        entities.push(world.spawn_empty().id());
    }
    let unique: HashSet<Entity> = entities.iter().copied().collect();
    assert_eq!(unique.len(), entities.len());

    for &e in &entities {
        assert!(world.despawn(e));
    }
    assert_eq!(world.entity_count(), 0);

    let again: Vec<Entity> = world.spawn_batch((0..5000).map(|_| (Marker,))).collect();
    let unique_again: HashSet<Entity> = again.iter().copied().collect();
    assert_eq!(unique_again.len(), 5000);
    assert!(unique_again.is_disjoint(&unique));
    assert!(again.iter().all(|&e| world.is_alive(e)));
    assert!(entities.iter().all(|&e| !world.is_alive(e)));
    assert_eq!(world.entity_count(), 5000);
    world.check_invariants();
}

/// bevy_ecs entity/remote_allocator.rs `uniqueness`, through `RemoteEntities`:
/// reserved ids are unique, also once freed indices are reserved again by a mix of
/// `reserve_many` and `reserve`.
#[test]
fn remote_allocator_uniqueness() {
    let mut world = World::new();
    let remote = world.remote_entities();
    let first = remote.reserve_many(1000);
    assert_eq!(first.iter().collect::<HashSet<_>>().len(), 1000);
    world.flush();
    for &e in &first {
        assert!(world.despawn(e));
    }

    let mut entities = remote.reserve_many(500);
    for _ in 0..1000 {
        entities.push(remote.reserve());
    }
    entities.extend(remote.reserve_many(500));
    let unique: HashSet<Entity> = entities.iter().copied().collect();
    assert_eq!(unique.len(), 2000);
    assert!(first.iter().all(|e| !unique.contains(e)));
    world.flush();
    assert!(entities.iter().all(|&e| world.is_alive(e)));
    assert_eq!(world.entity_count(), 2000);
    world.check_invariants();
}

/// bevy_ecs entity/remote_allocator.rs `allocation_order_correctness`: Bevy asserts
/// its own reuse order, which its comment says is not guaranteed; the port checks
/// that allocations "don't step on each other's toes": the four freed indices are
/// reused (our `Entity` doc: a despawned index is reused), each once, with a newer
/// generation, by `spawn_empty`, a two-entity `spawn_batch` and `spawn_empty`.
#[test]
fn remote_allocator_allocation_order_correctness() {
    let mut world = World::new();
    // Components are entities: register `Marker` first, or its registration takes
    // one of the freed indices.
    world.register_component::<Marker>();
    let freed: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    for &e in &freed {
        world.despawn(e);
    }
    let r0 = world.spawn_empty().id();
    let many: Vec<Entity> = world.spawn_batch((0..2).map(|_| (Marker,))).collect();
    let r3 = world.spawn_empty().id();
    let reused = [r0, many[0], many[1], r3];
    let mut old: Vec<u32> = freed.iter().map(|e| e.index()).collect();
    let mut new: Vec<u32> = reused.iter().map(|e| e.index()).collect();
    old.sort_unstable();
    new.sort_unstable();
    assert_eq!(old, new);
    for r in reused {
        let before = freed.iter().find(|e| e.index() == r.index()).unwrap();
        assert!(r.generation() > before.generation());
        assert!(world.is_alive(r));
        assert!(!world.is_alive(*before));
    }
}

/// bevy_ecs world/identifier.rs `world_ids_unique`: 50 worlds, 50 ids; and (an
/// extension: a `QueryState` keeps its world's id) the id of a dropped world is not
/// handed to a later one.
#[test]
fn identifier_world_ids_unique() {
    let dropped = World::new().id();
    let worlds: Vec<World> = (0..50).map(|_| World::new()).collect();
    let ids: Vec<_> = worlds.iter().map(World::id).collect();
    for (i, &id1) in ids.iter().enumerate() {
        for &id2 in ids.iter().skip(i + 1) {
            assert_ne!(id1, id2, "WorldIds should not repeat");
        }
        assert_ne!(id1, dropped, "a dropped world's id is not reused");
    }
}
