//! Tests ported from Flecs' `test/core/src/Entity.c` (the parts that are not
//! about names: validity with stale generations, make-alive, versions,
//! depth) and the entity-range tests of `test/core/src/World.c` (`range_*`),
//! to this crate's API.
//!
//! Mapping: `ecs_is_alive`/`ecs_is_valid` are `is_alive` (a handle is valid
//! here exactly when it is alive; there is no "exists" test), `ecs_get_alive`
//! is `entity_at(index)`, `ecs_make_alive` is `spawn_at`, `ecs_get_version` is
//! `Entity::generation`, `ECS_GENERATION_INC` is `Entity::from_raw(index, gen + 1)`,
//! `ecs_get_depth(e, ChildOf)` is `ancestors(e).count()`, `ecs_entity_range_new`
//! with `ecs_entity_range_set(min, max)` is `set_entity_range(min..max + 1)` (Flecs'
//! max is inclusive, ours is half-open; max 0, "unbounded", is `..u32::MAX`),
//! `ecs_bulk_new` is `spawn_batch`, `ecs_defer_begin/end` is a `CommandQueue`.
//!
//! NOT ported, and why:
//! - all `init_id_*name*`/`*path*`, `find_id_*`, `init_w_*`, `entity_init_*`,
//!   `deferred_entity_init_*`, `*set_name*`, `*symbol*`, `entity_w_*digit*`,
//!   `entity_from_*digit*`, `entity_w_parent*`, `*double_dot`,
//!   `entity_w_large_id_name`, `entity_w_short_notation`, `use_low_id_for_component`,
//!   `defer_component_init*`, `new_entity_*twice`, `set_scope_*`: names,
//!   paths, scopes and `ecs_entity_desc_t` (out of scope: name tests).
//! - `is_0_valid`, `is_junk_valid`, `make_alive_*` with id 0: `Entity` has no
//!   null value and cannot hold junk bits (`from_bits` refuses them).
//! - `make_alive_pair_nonzero_tgt`, `make_alive_pair_nonzero_existing_tgt`: no
//!   `ecs_make_alive_id` for pairs (a pair's halves must be alive already).
//! - `set_version_*`: no `ecs_set_version` (changing an alive entity's generation).
//! - `get_depth_non_acyclic`, `get_depth_2_paths`: no `ecs_get_depth` for any
//!   relationship; `ancestors` follows `ChildOf` (one parent).
//! - `record_find*`, `make_alive_from_stage`, `*_staged`, `*_n_stages`,
//!   `commit_w_*`, `insert_*`, `toggle_component*`: no records/stages/commit
//!   API; insert and toggles are covered by other ported files.
//! - `World_range_overlapping_assert`, `range_overlapping_at_boundary_assert`,
//!   `range_set_unknown_range`, `range_new_after_delete_assert`,
//!   `range_create_small_range_from_1`: there are no range objects here
//!   (`set_entity_range` takes any non-empty range, overlaps included, and
//!   documents no such assertions). `range_create_small_range_from_1` is
//!   ported as the safety property behind it: a small range over used indices
//!   never hands out an index that is alive.
//! - `range_add_existing_staged`, `range_add_in_range_staged`: no stages; ported
//!   as plain edits of an entity from another range.
//!
//! Adapted: `is_not_alive_valid` adds an alive tag entity (Flecs adds the
//! never-created id 500; here a dead plain id is refused, see
//! `ported_flecs_core.rs`).

use std::collections::BTreeSet;

use ecs::entity::SpawnError;
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs_tests::panic_message;

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

fn new(world: &mut World) -> Entity {
    world.spawn_empty().id()
}

/// Flecs' `ECS_GENERATION_INC`.
fn gen_inc(e: Entity) -> Entity {
    Entity::from_raw(e.index(), e.generation() + 1)
}

// ===== Entity.c: validity, get_alive ====================================================

#[test]
// Flecs: Entity.c, Entity_is_valid
fn is_valid() {
    let mut world = World::new();
    let e = new(&mut world);
    assert!(world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid
fn is_recycled_valid() {
    let mut world = World::new();
    let e = new(&mut world);
    assert!(world.is_alive(e));
    world.despawn(e);
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 0);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), e.index());
    assert_ne!(e2.generation(), 0, "recycled");
    assert!(world.is_alive(e2));
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_is_not_alive_valid
fn is_not_alive_valid() {
    let mut world = World::new();
    let e = new(&mut world);
    assert!(world.is_alive(e));
    let tag = new(&mut world);
    assert!(world.add_id(e, tag.id()));
    assert!(world.is_alive(e));
    world.despawn(e);
    assert!(!world.is_alive(e));
    assert!(!world.add_id(e, tag.id()), "a dead entity takes no ids");
}

#[test]
// Flecs: Entity.c, Entity_is_nonzero_gen_valid
fn is_nonzero_gen_valid() {
    let world = World::new();
    let id = gen_inc(Entity::from_raw(1000, 0));
    assert_eq!(id.generation(), 1);
    assert!(!world.is_alive(id));
    assert_eq!(world.entity_at(1000), None);
}

#[test]
// Flecs: Entity.c, Entity_is_get_alive_alive
fn is_get_alive_alive() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    let e = new(&mut world);
    assert_ne!(e.generation(), 0);
    let alive = world.entity_at(e.index()).unwrap();
    assert_eq!(alive, e);
    assert!(world.is_alive(alive));
    assert!(!world.is_alive(Entity::from_raw(e.index(), 0)));
}

#[test]
// Flecs: Entity.c, Entity_get_alive_after_delete
fn get_alive_after_delete() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    assert_eq!(world.entity_at(e.index()), None);
}

#[test]
// Flecs: Entity.c, Entity_get_alive_after_delete_twice
fn get_alive_after_delete_twice() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    let e = new(&mut world);
    assert_ne!(e.generation(), 0);
    world.despawn(e);
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_at(e.index()), None);
}

// ===== Entity.c: make alive (spawn_at) ==================================================

#[test]
// Flecs: Entity.c, Entity_make_alive_zero_gen
fn make_alive_zero_gen() {
    let mut world = World::new();
    let id = Entity::from_raw(1000, 0);
    assert!(!world.is_alive(id));
    world.spawn_at(id).unwrap();
    assert!(world.is_alive(id));
    assert_eq!(world.entity_at(1000), Some(id));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_make_alive_nonzero_gen
fn make_alive_nonzero_gen() {
    let mut world = World::new();
    let id = gen_inc(Entity::from_raw(1000, 0));
    assert_eq!(id.generation(), 1);
    assert!(!world.is_alive(id));
    world.spawn_at(id).unwrap();
    assert!(world.is_alive(id));
    assert!(!world.is_alive(Entity::from_raw(1000, 0)));
}

#[test]
// Flecs: Entity.c, Entity_make_alive_zero_gen_exists
fn make_alive_zero_gen_exists() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    assert!(!world.is_alive(e));
    // Flecs makes exactly `e` (its old generation) alive again.
    world.spawn_at(e).unwrap();
    assert!(world.is_alive(e));
    assert_eq!(world.entity_at(e.index()), Some(e));
    // and the index is not handed out a second time
    let other = new(&mut world);
    assert_ne!(other.index(), e.index());
}

#[test]
// Flecs: Entity.c, Entity_make_alive_nonzero_gen_exists
fn make_alive_nonzero_gen_exists() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    let e = gen_inc(gen_inc(e)); // one above the current value
    assert!(!world.is_alive(e));
    world.spawn_at(e).unwrap();
    assert!(world.is_alive(e));
    let other = new(&mut world);
    assert_ne!(other.index(), e.index());
}

#[test]
// Flecs: Entity.c, Entity_make_alive_zero_gen_exists_alive
fn make_alive_zero_gen_exists_alive() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    world.despawn(e);
    let e1 = new(&mut world);
    assert_ne!(e1, e);
    assert_eq!(e1.index(), e.index());
    // Flecs aborts: gen 0 cannot be made alive while gen 1 is.
    assert!(matches!(world.spawn_at(e), Err(SpawnError::Alive { existing, .. }) if existing == e1));
    assert!(world.is_alive(e1) && !world.is_alive(e));
}

#[test]
// Flecs: Entity.c, Entity_make_alive_nonzero_gen_exists_alive
fn make_alive_nonzero_gen_exists_alive() {
    let mut world = World::new();
    let e = new(&mut world);
    world.despawn(e);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), e.index());
    let e2 = gen_inc(gen_inc(e));
    assert!(matches!(world.spawn_at(e2), Err(SpawnError::Alive { existing, .. }) if existing == e1));
    assert!(world.is_alive(e1) && !world.is_alive(e2));
}

#[test]
// Flecs: Entity.c, Entity_make_alive_after_deleted_1_entity
fn make_alive_after_deleted_1_entity() {
    let mut world = World::new();
    let e1 = new(&mut world);
    world.despawn(e1);
    let e1 = new(&mut world);
    world.despawn(e1);
    assert!(!world.is_alive(e1));
    world.spawn_at(e1).unwrap();
    assert!(world.is_alive(e1));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_make_alive_after_deleted_2_entities
fn make_alive_after_deleted_2_entities() {
    let mut world = World::new();
    let e1 = new(&mut world);
    world.despawn(e1);
    let e1 = new(&mut world);
    let e2 = new(&mut world);
    world.despawn(e1);
    world.despawn(e2);
    assert!(!world.is_alive(e1));
    world.spawn_at(e1).unwrap();
    assert!(world.is_alive(e1));
    assert!(!world.is_alive(e2));
    world.spawn_at(e2).unwrap();
    assert!(world.is_alive(e2));
    assert_eq!(world.entity_count(), 2);
    // new entities take neither index
    let e3 = new(&mut world);
    assert!(e3.index() != e1.index() && e3.index() != e2.index());
}

#[test]
// Flecs: Entity.c, Entity_get_version_after_reuse
fn get_version_after_reuse() {
    let mut world = World::new();
    let e = new(&mut world);
    assert_eq!(e.generation(), 0);
    world.despawn(e);
    let e_new = new(&mut world);
    assert_eq!(e_new.index(), e.index());
    assert_eq!(e_new.generation(), e.generation() + 1);
}

#[test]
// Flecs: Entity.c, Entity_get_depth
fn get_depth() {
    let mut world = World::new();
    let e1 = new(&mut world);
    let e2 = world.spawn(ChildOf.pair(e1)).id();
    let e3 = world.spawn(ChildOf.pair(e2)).id();
    let e4 = world.spawn(ChildOf.pair(e3)).id();
    assert_eq!(world.ancestors(e1).count(), 0);
    assert_eq!(world.ancestors(e2).count(), 1);
    assert_eq!(world.ancestors(e3).count(), 2);
    assert_eq!(world.ancestors(e4).count(), 3);
}

#[test]
// Flecs: Entity.c, Entity_get_depth_empty
fn get_depth_empty() {
    let mut world = World::new();
    let e1 = new(&mut world);
    assert_eq!(world.ancestors(e1).count(), 0);
}

#[test]
// Flecs: Entity.c, Entity_init_id_exceed_32_bits
fn init_id_exceed_32_bits() {
    let mut world = World::new();
    // The last index a range can hold (u32::MAX is the exclusive end).
    world.set_entity_range(u32::MAX - 1..u32::MAX);
    let e = new(&mut world);
    assert_eq!(e.index(), u32::MAX - 1);
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains(&format!("{}", u32::MAX - 1)), "names the range: {message}");
}

// ===== World.c: entity ranges ==========================================================

#[test]
// Flecs: World.c, World_range_add_existing_staged (adapted: no stages)
fn range_add_existing_staged() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    assert!(e.index() < 1000);
    world.set_entity_range(1000..1501);
    world.insert(e, Velocity::default());
    assert!(world.has::<Position>(e) && world.has::<Velocity>(e));
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).remove::<Velocity>();
    queue.apply(&mut world);
    assert!(world.has::<Position>(e) && !world.has::<Velocity>(e));
}

#[test]
// Flecs: World.c, World_range_add_in_range_staged (adapted: no stages)
fn range_add_in_range_staged() {
    let mut world = World::new();
    world.set_entity_range(500..1001);
    let e = world.spawn(Position::default()).id();
    assert_eq!(e.index(), 500);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(Velocity::default());
    queue.apply(&mut world);
    assert!(world.has::<Position>(e) && world.has::<Velocity>(e));
}

#[test]
// Flecs: World.c, World_range_get
fn range_get() {
    let mut world = World::new();
    assert_eq!(world.entity_range(), 1..u32::MAX);
    world.set_entity_range(1000..2001);
    assert_eq!(world.entity_range(), 1000..2001);
    world.set_entity_range(3000..4001);
    assert_eq!(world.entity_range(), 3000..4001);
    world.set_entity_range(1000..2001);
    assert_eq!(world.entity_range(), 1000..2001);
}

#[test]
// Flecs: World.c, World_range_recycled_in_range
fn range_recycled_in_range() {
    let mut world = World::new();
    world.set_entity_range(5000..10001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 5000);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 5001);
    world.despawn(e1);
    let e3 = new(&mut world);
    assert_eq!(e3.index(), 5000);
    assert_ne!(e3, e1);
}

#[test]
// Flecs: World.c, World_range_switch_preserves_recycled
fn range_switch_preserves_recycled() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    world.despawn(e1);
    world.set_entity_range(3000..4001);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 3000);
    world.set_entity_range(1000..2001);
    let e3 = new(&mut world);
    assert_eq!(e3.index(), 1000);
    assert_ne!(e3, e1);
}

#[test]
// Flecs: World.c, World_range_no_cross_recycle
fn range_no_cross_recycle() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    world.despawn(e1);
    world.set_entity_range(3000..4001);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 3000);
}

#[test]
// Flecs: World.c, World_range_delete_outside_range
fn range_delete_outside_range() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e_a = new(&mut world);
    assert_eq!(e_a.index(), 1000);
    world.set_entity_range(3000..4001);
    let e_b = new(&mut world);
    assert_eq!(e_b.index(), 3000);
    world.despawn(e_a);
    world.set_entity_range(1000..2001);
    let e_a2 = new(&mut world);
    assert_eq!(e_a2.index(), 1000);
    assert_ne!(e_a2, e_a);
}

#[test]
// Flecs: World.c, World_range_multiple_switches
fn range_multiple_switches() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let (a1, a2) = (new(&mut world), new(&mut world));
    assert_eq!((a1.index(), a2.index()), (1000, 1001));
    world.despawn(a1);
    world.despawn(a2);
    world.set_entity_range(3000..4001);
    let (b1, b2) = (new(&mut world), new(&mut world));
    assert_eq!((b1.index(), b2.index()), (3000, 3001));
    world.despawn(b1);
    world.set_entity_range(1000..2001);
    let (a3, a4) = (new(&mut world), new(&mut world));
    assert!((1000..=1001).contains(&a3.index()));
    assert!((1000..=1001).contains(&a4.index()));
    assert_ne!(a3.index(), a4.index());
    world.set_entity_range(3000..4001);
    let b3 = new(&mut world);
    assert_eq!(b3.index(), 3000);
    assert_ne!(b3, b1);
    let b4 = new(&mut world);
    assert_eq!(b4.index(), 3002);
}

#[test]
// Flecs: World.c, World_range_unbounded
fn range_unbounded() {
    let mut world = World::new();
    world.set_entity_range(1000..u32::MAX);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 1001);
    world.despawn(e1);
    let e3 = new(&mut world);
    assert_eq!(e3.index(), 1000);
    assert_ne!(e3, e1);
    let e4 = new(&mut world);
    assert_eq!(e4.index(), 1002);
}

#[test]
// Flecs: World.c, World_range_delete_outside_all_ranges
fn range_delete_outside_all_ranges() {
    let mut world = World::new();
    let pre = new(&mut world);
    world.set_entity_range(5000..6001);
    world.despawn(pre);
    let e = new(&mut world);
    assert_eq!(e.index(), 5000);
}

#[test]
// Flecs: World.c, World_range_set_clears_pre_existing_not_alive
fn range_set_clears_pre_existing_not_alive() {
    let mut world = World::new();
    let (e1, e2) = (new(&mut world), new(&mut world));
    world.despawn(e1);
    world.despawn(e2);
    world.set_entity_range(5000..6001);
    let e3 = new(&mut world);
    assert_eq!(e3.index(), 5000);
}

#[test]
// Flecs: World.c, World_range_three_ranges_binary_search
fn range_three_ranges_binary_search() {
    let mut world = World::new();
    let (a, b, c) = (1000..2001, 3000..4001, 5000..6001);
    world.set_entity_range(a.clone());
    let ea = new(&mut world);
    assert_eq!(ea.index(), 1000);
    world.set_entity_range(b.clone());
    let eb = new(&mut world);
    assert_eq!(eb.index(), 3000);
    world.set_entity_range(c.clone());
    let ec = new(&mut world);
    assert_eq!(ec.index(), 5000);
    world.despawn(ea);
    world.despawn(eb);
    world.set_entity_range(a);
    let ea2 = new(&mut world);
    assert_eq!(ea2.index(), 1000);
    assert_ne!(ea2, ea);
    world.set_entity_range(b);
    let eb2 = new(&mut world);
    assert_eq!(eb2.index(), 3000);
    assert_ne!(eb2, eb);
    world.set_entity_range(c);
    let ec2 = new(&mut world);
    assert_eq!(ec2.index(), 5001);
}

#[test]
// Flecs: World.c, World_range_set_same_range
fn range_set_same_range() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    world.despawn(e1);
    world.set_entity_range(1000..2001);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 1000);
    assert_ne!(e2, e1);
}

#[test]
// Flecs: World.c, World_range_bulk_new
fn range_bulk_new() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let (e1, e2, e3) = (new(&mut world), new(&mut world), new(&mut world));
    assert_eq!([e1.index(), e2.index(), e3.index()], [1000, 1001, 1002]);
    world.despawn(e1);
    world.despawn(e2);
    world.set_entity_range(3000..4001);
    let bulk: Vec<Entity> = world.spawn_batch((0..3).map(|_| (Position::default(),))).collect();
    assert_eq!(bulk.iter().map(|e| e.index()).collect::<Vec<_>>(), vec![3000, 3001, 3002]);
    assert!(bulk.iter().all(|&e| world.has::<Position>(e)));
}

#[test]
// Flecs: World.c, World_range_delete_w_components
fn range_delete_w_components() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let ea = world.spawn(Position { x: 1.0, y: 2.0 }).id();
    assert_eq!(ea.index(), 1000);
    world.insert(ea, Velocity::default());
    world.set_entity_range(3000..4001);
    let eb = world.spawn(Position { x: 3.0, y: 4.0 }).id();
    assert_eq!(eb.index(), 3000);
    world.despawn(ea);
    assert!(!world.is_alive(ea));
    world.set_entity_range(1000..2001);
    let ea2 = new(&mut world);
    assert_eq!(ea2.index(), 1000);
    assert_ne!(ea2, ea);
    assert!(!world.has::<Position>(ea2));
    assert!(!world.has::<Velocity>(ea2));
    assert_eq!(world.get::<Position>(eb), Some(&Position { x: 3.0, y: 4.0 }));
}

#[test]
// Flecs: World.c, World_range_recycle_then_fresh
fn range_recycle_then_fresh() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    world.despawn(e1);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 1000);
    assert_ne!(e2, e1);
    assert_eq!(new(&mut world).index(), 1001);
    assert_eq!(new(&mut world).index(), 1002);
}

#[test]
// Flecs: World.c, World_range_delete_recycled_same_range
fn range_delete_recycled_same_range() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let mut seen = BTreeSet::new();
    for _ in 0..4 {
        let e = new(&mut world);
        assert_eq!(e.index(), 1000);
        assert!(seen.insert(e), "a new generation each time");
        world.despawn(e);
    }
}

#[test]
// Flecs: World.c, World_range_invalid_max_lt_min
fn range_invalid_max_lt_min() {
    let mut world = World::new();
    #[allow(clippy::reversed_empty_ranges)]
    let message = panic_message(|| world.set_entity_range(2000..1000));
    assert!(!message.is_empty());
    assert_eq!(world.entity_range(), 1..u32::MAX, "unchanged");
}

#[test]
// Flecs: World.c, World_range_adjacent_no_overlap
fn range_adjacent_no_overlap() {
    let mut world = World::new();
    world.set_entity_range(1000..2000);
    assert_eq!(new(&mut world).index(), 1000);
    world.set_entity_range(2000..3001);
    assert_eq!(new(&mut world).index(), 2000);
}

#[test]
// Flecs: World.c, World_range_recycle_last_id_n_times
fn range_recycle_last_id_n_times() {
    let mut world = World::new();
    world.set_entity_range(1000..1001);
    let mut prev: Option<Entity> = None;
    for _ in 0..3 {
        let e = new(&mut world);
        assert_eq!(e.index(), 1000);
        assert_ne!(Some(e), prev);
        prev = Some(e);
        world.despawn(e);
    }
    let last = new(&mut world);
    assert_eq!(last.index(), 1000);
    assert_ne!(Some(last), prev);
}

#[test]
// Flecs: World.c, World_range_cascade_delete_across_ranges
fn range_cascade_delete_across_ranges() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let parent = new(&mut world);
    assert_eq!(parent.index(), 1000);
    world.set_entity_range(3000..4001);
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn(ChildOf.pair(parent)).id();
    assert_eq!((c1.index(), c2.index()), (3000, 3001));
    world.despawn(parent);
    assert!(!world.is_alive(parent) && !world.is_alive(c1) && !world.is_alive(c2));
    let (c3, c4) = (new(&mut world), new(&mut world));
    assert!((3000..=3001).contains(&c3.index()));
    assert!((3000..=3001).contains(&c4.index()));
    assert_ne!(c3.index(), c4.index());
    world.set_entity_range(1000..2001);
    let p2 = new(&mut world);
    assert_eq!(p2.index(), 1000);
    assert_ne!(p2, parent);
}

#[test]
// Flecs: World.c, World_range_deferred_delete_across_ranges
fn range_deferred_delete_across_ranges() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let ea = new(&mut world);
    assert_eq!(ea.index(), 1000);
    world.set_entity_range(3000..4001);
    let eb = new(&mut world);
    assert_eq!(eb.index(), 3000);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(ea).despawn();
    assert!(world.is_alive(ea));
    queue.apply(&mut world);
    assert!(!world.is_alive(ea));
    let eb2 = new(&mut world);
    assert_eq!(eb2.index(), 3001);
    world.set_entity_range(1000..2001);
    let ea2 = new(&mut world);
    assert_eq!(ea2.index(), 1000);
    assert_ne!(ea2, ea);
}

#[test]
// Flecs: World.c, World_range_randomized_10_ranges
fn range_randomized_10_ranges() {
    let mut world = World::new();
    let ranges: Vec<std::ops::Range<u32>> =
        (0..10u32).map(|r| (r + 1) * 1_000_000..(r + 1) * 1_000_000 + 100_000).collect();
    let mut alive: Vec<Vec<Entity>> = vec![Vec::new(); 10];
    let mut active = 0;
    world.set_entity_range(ranges[0].clone());
    // xorshift, seeded
    let mut state: u64 = 42;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 33) as usize
    };
    for _ in 0..5000 {
        match rand() % 3 {
            0 => {
                active = rand() % 10;
                world.set_entity_range(ranges[active].clone());
            }
            1 => {
                let e = new(&mut world);
                assert!(ranges[active].contains(&e.index()), "{e:?} outside {:?}", ranges[active]);
                alive[active].push(e);
            }
            _ => {
                let dr = rand() % 10;
                if !alive[dr].is_empty() {
                    let slot = rand() % alive[dr].len();
                    let e = alive[dr].swap_remove(slot);
                    assert!(world.despawn(e));
                }
            }
        }
    }
    let expected: usize = alive.iter().map(Vec::len).sum();
    assert_eq!(world.entity_count(), expected);
    assert!(alive.iter().flatten().all(|&e| world.is_alive(e)));
    world.check_invariants();
}

#[test]
// Flecs: World.c, World_range_exhausted
fn range_exhausted() {
    let mut world = World::new();
    world.set_entity_range(1000..1003);
    assert_eq!(new(&mut world).index(), 1000);
    assert_eq!(new(&mut world).index(), 1001);
    assert_eq!(new(&mut world).index(), 1002);
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains("1000") && message.contains("1003"), "names the range: {message}");
}

#[test]
// Flecs: World.c, World_range_delete_recycled_to_correct_range
fn range_delete_recycled_to_correct_range() {
    let mut world = World::new();
    world.set_entity_range(1000..2001);
    let e1 = new(&mut world);
    assert_eq!(e1.index(), 1000);
    world.despawn(e1);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), 1000);
    assert_ne!(e2, e1);
    world.set_entity_range(3000..4001);
    world.despawn(e2);
    assert!(!world.is_alive(e2));
    let eb = new(&mut world);
    assert_eq!(eb.index(), 3000);
    world.set_entity_range(1000..2001);
    let e3 = new(&mut world);
    assert_eq!(e3.index(), 1000);
    assert!(e3 != e2 && e3 != e1);
}

#[test]
// Flecs: World.c, World_range_create_small_range_from_1 (ported as: no alive index is handed out)
fn range_create_small_range_from_1() {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    let users: Vec<Entity> = (0..20).map(|_| new(&mut world)).collect();
    let taken: BTreeSet<u32> = world.entities().alive().iter().map(|e| e.index()).collect();
    world.set_entity_range(1..11);
    for _ in 0..10 {
        let Ok(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn_empty().id())) else {
            break; // the range is used up: refusing is fine
        };
        assert!(!taken.contains(&e.index()), "{e:?} reuses an index that is alive");
    }
    assert!(users.iter().all(|&e| world.is_alive(e)));
    world.check_invariants();
}

#[test]
// Flecs: World.c, World_range_create_large_range_from_1
fn range_create_large_range_from_1() {
    let mut world = World::new();
    let e1 = new(&mut world);
    world.set_entity_range(1..1001);
    assert_eq!(world.entity_range(), 1..1001);
    world.despawn(e1);
    let e2 = new(&mut world);
    assert_eq!(e2.index(), e1.index());
    assert_ne!(e2, e1);
}
