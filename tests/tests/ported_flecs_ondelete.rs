//! Tests ported from Flecs' `test/core/src/OnDelete.c` (cleanup policies:
//! `OnDelete` / `OnDeleteTarget` with `Remove`, `Delete` and `Panic`, deleting
//! components and relationships that are in use, cycles, chains, trees), rewritten
//! against API.md's public API ("Relationships", runtime ids).
//!
//! Translation: Flecs' runtime entities used as ids or relationships are plain
//! entities here, their traits set with `World::set_relationship_traits`
//! (`ecs_add_pair(r, EcsOnDelete, EcsDelete)` becomes
//! `RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete)`); `ecs_add_id` and
//! `ecs_add_pair` become `World::add_id`; `ecs_delete` becomes `World::despawn` /
//! `World::try_despawn` (the `Panic` policy is a `CleanupError` or a panic, never an
//! abort); `ecs_get_type(e)->count` becomes `ids_of(e).len()`. Flecs'
//! `ecs_delete_with(id)` and `ecs_remove_all(id)` have no single call here: they are
//! written as "despawn (or remove the id from) every entity that owns it", the
//! owners collected up front with a query. Flecs stores traits as pairs on the
//! relationship (`(OnDelete, Remove)` counts in its type); ours are not ids, so the
//! `count` checks of `cyclic_id_remove_both` / `cyclic_relation_remove_both` are one
//! lower here.
//!
//! `stresstest_*`'s table counts are checked against `WorldStats::archetypes`.
//!
//! Found and fixed: `id_throw_no_instances`, `add_on_delete_from_prefab`,
//! `add_on_delete_from_disabled`: an entity with `on_delete = panic` that nothing
//! used was despawned without complaint; Flecs aborts (`ecs_delete` of an entity with
//! `(OnDelete, Panic)` always panics), and so does the despawn here (refused).
//!
//! Already ported in `ported_flecs_hierarchies.rs` (not repeated): id_default,
//! id_delete, relation_default, relation_delete, object_mixed, object_throw,
//! cyclic_id_default, cyclic_id_delete, cyclic_relation_default,
//! cyclic_object_default, cyclic_object_mixed, cyclic_overlapping_table,
//! cyclic_storage_table, 2_acyclic_relations_w_cycle, remove_2_comps,
//! remove_id_and_relation, remove_object_w_3_relations_interleaved,
//! remove_object_w_50_relations, stresstest_many_objects_on_delete,
//! delete_child_of_delete_with, deep_clean_64/256, id_w_disabled,
//! id_to_no_disabled, delete_self_in_on_remove, delete_nested_in_on_remove,
//! on_delete_parent_w_in_use_id_w_remove/_w_delete, delete_w_low_rel_mixed_cleanup,
//! remove_target_no_intermediate_table.
//!
//! Not ported:
//! * `flags`: tests Flecs' internal flag macros.
//! * `remove_id_w_role`, `remove_*_w_override_pair*`, `remove_mixed_w_override_pair_3_ids`:
//!   id roles (`ECS_TOGGLE | id`, `ECS_AUTO_OVERRIDE | pair`) are not ids here (toggles
//!   are a component trait; `id_to_no_disabled` covers a dying toggled component).
//! * `delete_table_in_on_remove_during_fini`, `delete_other_in_on_remove_during_fini`,
//!   `fini_cleanup_order*`, `fini_query_w_singleton_*`, `fini_observer_w_relationship_in_scope`,
//!   `match_marked_for_deletion`, `delete_tree_w_query`'s fini part: dropping a `World`
//!   drops values but runs no hooks or observers (Bevy semantics, deliberate), and there
//!   are no singletons, modules or scopes.
//! * `delete_symmetric_relation`, `delete_observed_symmetric_relation`: no `Symmetric` trait.
//! * `delete_with_inherited_tag*`: `IsA` inherits only from bases that are `Prefab`
//!   here (deliberate, `archetype/inheritance.rs`); Flecs' plain base becomes a prefab.
//! * `remove_all_1/2`, `delete_with_1/2`: the same as `_3` with fewer entities.

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::Id;
use ecs::prelude::*;
use ecs_tests::panic_message;

// ----- components and relationships ---------------------------------------------------

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

#[derive(Component)]
struct Tag;

#[derive(Component)]
struct TagA;

#[derive(Component)]
struct TagB;

#[derive(Component)]
struct TagC;

#[derive(Component)]
struct Foo;

/// Flecs' `comp_a` / `comp_b` (sized components there; only fieldless ones can be
/// added as ids here).
#[derive(Component)]
struct CompA;

#[derive(Component)]
struct CompB;

/// Default traits (both policies remove).
#[derive(Relationship, Debug)]
struct Rel;

/// A data relationship (Flecs: a relationship that is also a component).
#[derive(Relationship, Debug, PartialEq)]
#[relationship(on_delete_target = "delete")]
struct Anchored {
    weight: u32,
}

/// A data relationship with default cleanup.
#[derive(Relationship, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

/// Despawning the relationship itself is refused while its pairs are held.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(on_delete = "panic")]
struct Sealed {
    value: u32,
}

/// Traversable, for `Tag(up Rel)`-style queries.
#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct Within;

#[derive(Resource, Default)]
struct Log(Vec<String>);

// ----- helpers ---------------------------------------------------------------------------

fn empties<const N: usize>(world: &mut World) -> [Entity; N] {
    core::array::from_fn(|_| world.spawn_empty().id())
}

/// A runtime relationship (or id) entity with `traits`.
fn relationship(world: &mut World, traits: RelationshipTraits) -> Entity {
    let r = world.spawn_empty().id();
    world.set_relationship_traits(r, traits);
    r
}

fn on_delete(policy: CleanupPolicy) -> RelationshipTraits {
    RelationshipTraits::DEFAULT.on_delete(policy)
}

fn on_delete_target(policy: CleanupPolicy) -> RelationshipTraits {
    RelationshipTraits::DEFAULT.on_delete_target(policy)
}

fn id_count(world: &World, entity: Entity) -> usize {
    world.ids_of(entity).expect("alive").len()
}

fn pair(world: &mut World, entity: Entity, r: Entity, t: Entity) {
    assert!(world.add_id(entity, Id::pair(r, t)));
}

/// The entities matching a runtime query of one id or pair (Flecs' `ecs_each_id`).
fn owners(world: &World, first: Entity, second: Option<Entity>) -> Vec<Entity> {
    let builder = world.query_builder();
    let builder = match second {
        Some(target) => builder.pair(first, target),
        None => builder.with(first),
    };
    let mut query = builder.build_in(world).expect("query builds");
    query.iter(world).map(|row| row.entity()).collect()
}

/// Flecs' `ecs_delete_with`: despawns every entity that owns the id (collected first).
fn delete_with(world: &mut World, first: Entity, second: Option<Entity>) {
    for e in owners(world, first, second) {
        world.despawn(e);
    }
}

fn archetype_count(world: &World) -> usize {
    world.stats().archetypes
}

// ===== id / relation / object policies ==========================================================

/// OnDelete.c: OnDelete_id_remove
#[test]
fn id_remove() {
    let mut world = World::new();
    let c = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let e = world.spawn_empty().id();
    world.add_id(e, c.id());
    assert!(world.has_id(e, c.id()));
    world.despawn(c);
    assert!(!world.is_alive(c));
    assert!(world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_relation_remove
#[test]
fn relation_remove() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let o = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    pair(&mut world, e, r, o);
    assert!(world.has_id(e, Id::pair(r, o)));
    world.despawn(r);
    assert!(!world.is_alive(r));
    assert!(world.is_alive(o));
    assert!(world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_object_default
#[test]
fn object_default() {
    let mut world = World::new();
    let [r, o, e] = empties(&mut world);
    pair(&mut world, e, r, o);
    world.despawn(o);
    assert!(world.is_alive(r));
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_object_remove
#[test]
fn object_remove() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete_target(CleanupPolicy::Remove));
    let [o, e] = empties(&mut world);
    pair(&mut world, e, r, o);
    world.despawn(o);
    assert!(world.is_alive(r));
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_object_delete
#[test]
fn object_delete() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [o, e] = empties(&mut world);
    pair(&mut world, e, r, o);
    world.despawn(o);
    assert!(world.is_alive(r));
    assert!(!world.is_alive(o));
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_id_throw
#[test]
fn id_throw() {
    let mut world = World::new();
    let c = relationship(&mut world, on_delete(CleanupPolicy::Panic));
    let e = world.spawn_empty().id();
    world.add_id(e, c.id());
    let error = world.try_despawn(c).unwrap_err();
    assert_eq!(error.holders, vec![e]);
    assert!(!error.as_target);
    assert!(world.is_alive(c) && world.has_id(e, c.id()), "nothing changed");
    let message = panic_message(|| world.despawn(c));
    assert!(message.contains("panic"), "{message}");
    assert!(world.is_alive(c) && world.has_id(e, c.id()));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_relation_throw
#[test]
fn relation_throw() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete(CleanupPolicy::Panic));
    let [o, e] = empties(&mut world);
    pair(&mut world, e, r, o);
    let error = world.try_despawn(r).unwrap_err();
    assert_eq!(error.holders, vec![e]);
    assert_eq!(error.despawned, r);
    assert!(world.is_alive(r) && world.is_alive(o) && world.has_id(e, Id::pair(r, o)));
    assert!(!panic_message(|| world.despawn(r)).is_empty());
    assert!(world.has_id(e, Id::pair(r, o)));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_id_remove_no_instances
#[test]
fn id_remove_no_instances() {
    let mut world = World::new();
    let c = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    assert!(world.despawn(c));
    assert!(!world.is_alive(c));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_id_delete_no_instances
#[test]
fn id_delete_no_instances() {
    let mut world = World::new();
    let c = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    assert!(world.despawn(c));
    assert!(!world.is_alive(c));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_id_throw_no_instances
#[test]
fn id_throw_no_instances() {
    let mut world = World::new();
    let c = relationship(&mut world, on_delete(CleanupPolicy::Panic));
    assert!(world.try_despawn(c).is_err(), "Flecs: deleting an entity with (OnDelete, Panic) aborts");
    assert!(world.is_alive(c));
}

/// OnDelete.c: OnDelete_component_throw
#[test]
fn component_throw() {
    let mut world = World::new();
    let [o] = empties(&mut world);
    let e = world.spawn(Sealed { value: 10 }.pair(o)).id();
    let sealed = world.component_id::<Sealed>().unwrap();
    let error = world.try_despawn(sealed).unwrap_err();
    assert_eq!(error.holders, vec![e]);
    assert!(world.is_alive(sealed));
    assert_eq!(world.get_pair::<Sealed>(e, o), Some(&Sealed { value: 10 }));
    assert!(!panic_message(|| world.despawn(sealed)).is_empty());
    assert_eq!(world.get_pair::<Sealed>(e, o), Some(&Sealed { value: 10 }));
    world.check_invariants();
}

// ===== cycles ==================================================================================

/// OnDelete.c: OnDelete_cyclic_self
#[test]
fn cyclic_self() {
    let mut world = World::new();
    let [e, r] = empties(&mut world);
    pair(&mut world, e, r, e);
    assert!(world.has_id(e, Id::pair(r, e)));
    world.despawn(e);
    assert!(!world.is_alive(e));
    assert!(world.is_alive(r));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_nonempty_cyclic_self
#[test]
fn nonempty_cyclic_self() {
    let mut world = World::new();
    let e = world.spawn(Tag).id();
    let r = world.spawn_empty().id();
    pair(&mut world, e, r, e);
    world.despawn(e);
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_id_remove
#[test]
fn cyclic_id_remove() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let b = world.spawn_empty().id();
    world.add_id(a, b.id());
    world.add_id(b, a.id());
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_id_remove_both
#[test]
fn cyclic_id_remove_both() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let b = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    world.add_id(a, b.id());
    world.add_id(b, a.id());
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0, "Flecs: 1, its (OnDelete, Remove) pair");
    world.despawn(b);
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_id_delete_both
#[test]
fn cyclic_id_delete_both() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    let b = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    world.add_id(a, b.id());
    world.add_id(b, a.id());
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_relation_remove
#[test]
fn cyclic_relation_remove() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let [b, o_a, o_b] = empties(&mut world);
    pair(&mut world, a, b, o_b);
    pair(&mut world, b, a, o_a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(b));
    assert!(world.is_alive(o_a) && world.is_alive(o_b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_relation_remove_both
#[test]
fn cyclic_relation_remove_both() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let b = relationship(&mut world, on_delete(CleanupPolicy::Remove));
    let [o_a, o_b] = empties(&mut world);
    pair(&mut world, a, b, o_b);
    pair(&mut world, b, a, o_a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0, "Flecs: 1, its (OnDelete, Remove) pair");
    world.despawn(b);
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_relation_delete
#[test]
fn cyclic_relation_delete() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    let [b, o_a, o_b] = empties(&mut world);
    pair(&mut world, a, b, o_b);
    pair(&mut world, b, a, o_a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(!world.is_alive(b));
    assert!(world.is_alive(o_a) && world.is_alive(o_b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_relation_delete_both
#[test]
fn cyclic_relation_delete_both() {
    let mut world = World::new();
    let a = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    let b = relationship(&mut world, on_delete(CleanupPolicy::Delete));
    let [o_a, o_b] = empties(&mut world);
    pair(&mut world, a, b, o_b);
    pair(&mut world, b, a, o_a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_object_remove
#[test]
fn cyclic_object_remove() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete_target(CleanupPolicy::Remove));
    let [a, b] = empties(&mut world);
    pair(&mut world, a, r, b);
    pair(&mut world, b, r, a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_object_delete
#[test]
fn cyclic_object_delete() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [a, b] = empties(&mut world);
    pair(&mut world, a, r, b);
    pair(&mut world, b, r, a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(!world.is_alive(b));
    assert!(world.is_alive(r));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_overlapping_new_tables
#[test]
fn cyclic_overlapping_new_tables() {
    let mut world = World::new();
    let tag = world.spawn_empty().id();
    let rel_1 = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [rel_2, obj_a, obj_b] = empties(&mut world);
    pair(&mut world, obj_a, rel_1, obj_b);
    pair(&mut world, obj_b, rel_1, obj_a);
    let e = world.spawn_empty().id();
    pair(&mut world, e, rel_2, obj_a);
    pair(&mut world, e, rel_2, obj_b);
    world.add_id(e, tag.id());
    world.despawn(obj_a);
    assert!(!world.is_alive(obj_a));
    assert!(!world.is_alive(obj_b));
    assert!(world.is_alive(e));
    assert_eq!(world.ids_of(e), Some(&[tag.id()][..]));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_storage_table_2
#[test]
fn cyclic_storage_table_2() {
    let mut world = World::new();
    let [obj_a, obj_b] = empties(&mut world);
    world.entity_mut(obj_a).insert_pair(Anchored { weight: 1 }, obj_b);
    world.entity_mut(obj_b).insert(Tag);
    world.entity_mut(obj_b).insert_pair(Anchored { weight: 2 }, obj_a);
    world.entity_mut(obj_b).insert_pair(Anchored { weight: 3 }, obj_b);
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert_pair(Anchored { weight: 4 }, obj_a);
    world.entity_mut(e).insert_pair(Anchored { weight: 5 }, obj_b);
    world.entity_mut(e).remove_pair::<Anchored>(obj_b);
    world.despawn(obj_a);
    assert!(!world.is_alive(obj_a));
    assert!(!world.is_alive(obj_b));
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_storage_table_3
#[test]
fn cyclic_storage_table_3() {
    let mut world = World::new();
    let [obj_a, obj_b] = empties(&mut world);
    world.entity_mut(obj_a).insert_pair(Anchored { weight: 1 }, obj_b);
    world.entity_mut(obj_b).insert(Tag);
    world.entity_mut(obj_b).insert_pair(Anchored { weight: 2 }, obj_a);
    world.entity_mut(obj_b).insert_pair(Anchored { weight: 3 }, obj_b);
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert_pair(Anchored { weight: 4 }, obj_a);
    world.entity_mut(e).insert_pair(Anchored { weight: 5 }, obj_b);
    world.despawn(obj_a);
    assert!(!world.is_alive(obj_a));
    assert!(!world.is_alive(obj_b));
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_cyclic_set_empty
#[test]
fn cyclic_set_empty() {
    let mut world = World::new();
    let rel_1 = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [rel_2, obj_a, obj_b] = empties(&mut world);
    pair(&mut world, obj_a, rel_1, obj_b);
    pair(&mut world, obj_b, rel_1, obj_a);
    pair(&mut world, obj_b, rel_2, obj_b);
    let e = world.spawn(Tag).id();
    pair(&mut world, e, rel_2, obj_a);
    world.despawn(obj_a);
    assert!(!world.is_alive(obj_a));
    assert!(!world.is_alive(obj_b));
    assert!(world.is_alive(e));
    assert!(world.has::<Tag>(e));
    assert_eq!(id_count(&world, e), 1);
    world.check_invariants();
}

// ===== removing ids from many holders ==========================================================

/// OnDelete.c: OnDelete_remove_2_comps_to_existing_table
#[test]
fn remove_2_comps_to_existing_table() {
    let mut world = World::new();
    let [c, e] = empties(&mut world);
    world.add_id(e, c.id());
    world.insert(e, Position { x: 10.0, y: 20.0 });
    let e2 = world.spawn(Position { x: 20.0, y: 30.0 }).id();
    let e3 = world.spawn(Position { x: 40.0, y: 50.0 }).id();
    world.despawn(c);
    assert!(!world.is_alive(c));
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 10.0, y: 20.0 }));
    assert_eq!(world.get::<Position>(e2), Some(&Position { x: 20.0, y: 30.0 }));
    assert_eq!(world.get::<Position>(e3), Some(&Position { x: 40.0, y: 50.0 }));
    assert_eq!(world.entity(e).archetype(), world.entity(e2).archetype());
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_recursive
#[test]
fn delete_recursive() {
    let mut world = World::new();
    let r = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [p, c, gc] = empties(&mut world);
    pair(&mut world, c, r, p);
    pair(&mut world, gc, r, c);
    world.despawn(p);
    assert!(!world.is_alive(p));
    assert!(!world.is_alive(c));
    assert!(!world.is_alive(gc));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_2_relations
#[test]
fn remove_2_relations() {
    let mut world = World::new();
    let [r, o_1, o_2, e] = empties(&mut world);
    pair(&mut world, e, r, o_1);
    pair(&mut world, e, r, o_2);
    world.despawn(r);
    assert!(!world.is_alive(r));
    assert!(world.is_alive(e) && world.is_alive(o_1) && world.is_alive(o_2));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_object_w_2_relations
#[test]
fn remove_object_w_2_relations() {
    let mut world = World::new();
    let [r_1, r_2, o, e] = empties(&mut world);
    pair(&mut world, e, r_1, o);
    pair(&mut world, e, r_2, o);
    world.despawn(o);
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e) && world.is_alive(r_1) && world.is_alive(r_2));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_object_w_5_relations
#[test]
fn remove_object_w_5_relations() {
    let mut world = World::new();
    let rs: [Entity; 5] = empties(&mut world);
    let [o, e] = empties(&mut world);
    for r in rs {
        pair(&mut world, e, r, o);
    }
    world.despawn(o);
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e));
    assert!(rs.iter().all(|&r| world.is_alive(r)));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_object_w_50_relations_3_tables
#[test]
fn remove_object_w_50_relations_3_tables() {
    let mut world = World::new();
    let rs: [Entity; 50] = empties(&mut world);
    let o = world.spawn_empty().id();
    let e_1 = world.spawn(TagA).id();
    let e_2 = world.spawn(TagB).id();
    let e_3 = world.spawn(TagC).id();
    for r in rs {
        for e in [e_1, e_2, e_3] {
            pair(&mut world, e, r, o);
        }
    }
    world.despawn(o);
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e_1) && world.is_alive(e_2) && world.is_alive(e_3));
    assert!(world.has::<TagA>(e_1) && world.has::<TagB>(e_2) && world.has::<TagC>(e_3));
    assert_eq!(id_count(&world, e_1), 1);
    assert_eq!(id_count(&world, e_2), 1);
    assert_eq!(id_count(&world, e_3), 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_id_from_2_tables
#[test]
fn remove_id_from_2_tables() {
    let mut world = World::new();
    let c = world.spawn_empty().id();
    let e1 = world.spawn_empty().id();
    world.add_id(e1, c.id());
    let e2 = world.spawn(Tag).id();
    world.add_id(e2, c.id());
    world.despawn(c);
    assert!(!world.is_alive(c));
    assert!(world.is_alive(e1) && world.is_alive(e2));
    assert_eq!(id_count(&world, e1), 0);
    assert_eq!(id_count(&world, e2), 1);
    assert!(world.has::<Tag>(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_relation_from_2_tables
#[test]
fn remove_relation_from_2_tables() {
    let mut world = World::new();
    let [r, o, e1] = empties(&mut world);
    pair(&mut world, e1, r, o);
    let e2 = world.spawn(Tag).id();
    pair(&mut world, e2, r, o);
    world.despawn(r);
    assert!(!world.is_alive(r));
    assert!(world.is_alive(e1) && world.is_alive(e2) && world.is_alive(o));
    assert_eq!(id_count(&world, e1), 0);
    assert_eq!(id_count(&world, e2), 1);
    assert!(world.has::<Tag>(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_object_from_2_tables
#[test]
fn remove_object_from_2_tables() {
    let mut world = World::new();
    let [r, o, e1] = empties(&mut world);
    pair(&mut world, e1, r, o);
    let e2 = world.spawn(Tag).id();
    pair(&mut world, e2, r, o);
    world.despawn(o);
    assert!(!world.is_alive(o));
    assert!(world.is_alive(e1) && world.is_alive(e2) && world.is_alive(r));
    assert_eq!(id_count(&world, e1), 0);
    assert_eq!(id_count(&world, e2), 1);
    assert!(world.has::<Tag>(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_id_and_relation_from_2_tables
#[test]
fn remove_id_and_relation_from_2_tables() {
    let mut world = World::new();
    let [r, o, e1] = empties(&mut world);
    pair(&mut world, e1, r, o);
    world.add_id(e1, r.id());
    let e2 = world.spawn(Tag).id();
    pair(&mut world, e2, r, o);
    world.add_id(e2, r.id());
    world.despawn(r);
    assert!(!world.is_alive(r));
    assert!(world.is_alive(e1) && world.is_alive(e2));
    assert_eq!(id_count(&world, e1), 0);
    assert_eq!(id_count(&world, e2), 1);
    assert!(world.has::<Tag>(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_merge_pair_component
#[test]
fn merge_pair_component() {
    let mut world = World::new();
    let [e_1, e_2, obj] = empties(&mut world);
    world.add_id(e_1, e_2.id());
    world.entity_mut(e_1).insert_pair(Eats { amount: 10 }, obj);
    world.despawn(e_2);
    assert_eq!(world.get_pair::<Eats>(e_1, obj), Some(&Eats { amount: 10 }));
    assert_eq!(id_count(&world, e_1), 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_on_delete_action
#[test]
fn remove_on_delete_action() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    assert!(world.has::<Position>(e));
    let position = world.component_id::<Position>().unwrap();
    assert!(world.despawn(position));
    assert!(world.is_alive(e));
    assert!(!world.has::<Position>(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_empty_after_remove
#[test]
fn empty_after_remove() {
    let mut world = World::new();
    let [tag, e] = empties(&mut world);
    world.add_id(e, tag.id());
    assert!(world.has_id(e, tag.id()));
    world.despawn(tag);
    assert!(world.is_alive(e));
    assert!(!world.has_id(e, tag.id()));
    assert_eq!(world.ids_of(e), Some(&[][..]));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_target_no_intermediate_table_3_pairs
#[test]
fn remove_target_no_intermediate_table_3_pairs() {
    let mut world = World::new();
    let [r1, r2, r3, t] = empties(&mut world);
    let e1 = world.spawn_empty().id();
    pair(&mut world, e1, r1, t);
    pair(&mut world, e1, r2, t);
    pair(&mut world, e1, r3, t);
    world.insert(e1, Foo);
    let e2 = world.spawn(Foo).id();
    let slots = world.archetypes().len();
    world.despawn(t);
    assert_eq!(world.archetypes().len(), slots, "no archetype created on the way");
    assert!(world.is_alive(e1));
    assert!(!world.has_id(e1, Id::pair(r1, t)));
    assert!(!world.has_id(e1, Id::pair(r2, t)));
    assert!(!world.has_id(e1, Id::pair(r3, t)));
    assert!(world.has::<Foo>(e1) && world.has::<Foo>(e2));
    assert_eq!(world.entity(e1).archetype(), world.entity(e2).archetype());
    world.check_invariants();
}

// ===== archetype bookkeeping ====================================================================

/// OnDelete.c: OnDelete_stresstest_many_objects
#[test]
fn stresstest_many_objects() {
    let mut world = World::new();
    world.register_component::<Tag>();
    let before = archetype_count(&world);
    let relationships: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    for &r in &relationships {
        for _ in 0..100 {
            let o = world.spawn_empty().id();
            let e = world.spawn(Tag).id();
            pair(&mut world, e, r, o);
        }
        world.despawn(r);
    }
    // Flecs: one table more than before (the Tag table).
    assert_eq!(archetype_count(&world) - before, 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_stresstest_many_relations
#[test]
fn stresstest_many_relations() {
    let mut world = World::new();
    world.register_component::<Tag>();
    let before = archetype_count(&world);
    let objects: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    for &o in &objects {
        for _ in 0..100 {
            let r = world.spawn_empty().id();
            let e = world.spawn(Tag).id();
            pair(&mut world, e, r, o);
        }
        world.despawn(o);
    }
    assert_eq!(archetype_count(&world) - before, 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_stresstest_many_relations_on_delete
#[test]
fn stresstest_many_relations_on_delete() {
    let mut world = World::new();
    world.register_component::<Tag>();
    let objects: Vec<Entity> = (0..50).map(|_| world.spawn_empty().id()).collect();
    let before = archetype_count(&world);
    for &o in &objects {
        for _ in 0..50 {
            let r = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
            let e = world.spawn_empty().id();
            pair(&mut world, e, r, o);
            world.insert(e, Tag);
        }
        world.despawn(o);
    }
    assert_eq!(archetype_count(&world) - before, 0);
    world.check_invariants();
}

// ===== observers during cleanup =================================================================

/// OnDelete.c: OnDelete_empty_table_w_on_remove
#[test]
fn empty_table_w_on_remove() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.entity()));
    });
    let e1 = world.spawn((TagA, Tag)).id();
    world.despawn(e1);
    assert!(!world.is_alive(e1));
    assert_eq!(world.resource::<Log>().0, vec![format!("{e1:?}")]);
    // Deleting TagA now that its table is empty must not call the observer again.
    let tag_a = world.component_id::<TagA>().unwrap();
    delete_with(&mut world, tag_a, None);
    world.despawn(tag_a);
    assert_eq!(world.resource::<Log>().0.len(), 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_add_deleted_in_on_remove
#[test]
fn add_deleted_in_on_remove() {
    // Flecs aborts (an id being deleted is added back); here the observer's commands
    // run after the cleanup: the world stays consistent whatever they do.
    let mut world = World::new();
    let t = world.register_component::<TagA>();
    world.spawn(TagA);
    world.add_observer(|_: Trigger<OnRemove, TagA>, mut commands: Commands| {
        commands.spawn(TagA);
    });
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(t)));
    assert!(!world.is_alive(t));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_tree_w_query
#[test]
fn delete_tree_w_query() {
    let mut world = World::new();
    let mut q = world.query_filtered::<Entity, With<Tag>>();
    let mut up = world.query::<(Entity, Up<Within, &Position>)>();
    let e1 = world.spawn((Tag, Position::default())).id();
    let e2 = world.spawn((Tag, Position::default())).id();
    world.entity_mut(e2).add_pair::<Within>(e1);
    world.insert(e1, Foo);
    assert_eq!(up.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![e2]);
    world.despawn(e1);
    assert_eq!(up.iter(&world).count(), 0);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![e2]);
    world.check_invariants();
}

// ===== delete_with / remove_all ==================================================================

/// OnDelete.c: OnDelete_delete_with_tag
#[test]
fn delete_with_tag() {
    let mut world = World::new();
    let e_1 = world.spawn(TagA).id();
    let e_2 = world.spawn(TagA).id();
    let e_3 = world.spawn((TagA, TagB)).id();
    let tag_a = world.component_id::<TagA>().unwrap();
    delete_with(&mut world, tag_a, None);
    assert!(!world.is_alive(e_1) && !world.is_alive(e_2) && !world.is_alive(e_3));
    assert!(world.is_alive(tag_a));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_component
#[test]
fn delete_with_component() {
    let mut world = World::new();
    let e_1 = world.spawn(Position::default()).id();
    let e_2 = world.spawn(Position::default()).id();
    let e_3 = world.spawn((Position::default(), Velocity::default())).id();
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e_1) && !world.is_alive(e_2) && !world.is_alive(e_3));
    assert!(world.is_alive(position));
    assert_eq!(world.query::<&Velocity>().iter(&world).count(), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_pair
#[test]
fn delete_with_pair() {
    let mut world = World::new();
    let obj = world.spawn_empty().id();
    let e_1 = world.spawn(Rel.pair(obj)).id();
    let e_2 = world.spawn(Rel.pair(obj)).id();
    let e_3 = world.spawn((Rel.pair(obj), Tag)).id();
    let rel = world.component_id::<Rel>().unwrap();
    delete_with(&mut world, rel, Some(obj));
    assert!(!world.is_alive(e_1) && !world.is_alive(e_2) && !world.is_alive(e_3));
    assert!(world.is_alive(obj));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_object_wildcard
#[test]
fn delete_with_object_wildcard() {
    let mut world = World::new();
    let [obj_a, obj_b] = empties(&mut world);
    let e_1 = world.spawn(Rel.pair(obj_a)).id();
    let e_2 = world.spawn(Rel.pair(obj_b)).id();
    let e_3 = world.spawn((Rel.pair(obj_b), Tag)).id();
    let rel = world.component_id::<Rel>().unwrap();
    delete_with(&mut world, rel, Some(Entity::WILDCARD));
    assert!(!world.is_alive(e_1) && !world.is_alive(e_2) && !world.is_alive(e_3));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_relation_wildcard
#[test]
fn delete_with_relation_wildcard() {
    let mut world = World::new();
    let [rel_a, rel_b, obj] = empties(&mut world);
    let e_1 = world.spawn_empty().id();
    pair(&mut world, e_1, rel_a, obj);
    let e_2 = world.spawn_empty().id();
    pair(&mut world, e_2, rel_b, obj);
    let e_3 = world.spawn(Tag).id();
    pair(&mut world, e_3, rel_b, obj);
    delete_with(&mut world, Entity::WILDCARD, Some(obj));
    assert!(!world.is_alive(e_1) && !world.is_alive(e_2) && !world.is_alive(e_3));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_all_with_entity
#[test]
fn delete_all_with_entity() {
    let mut world = World::new();
    let [rel_a, rel_b, obj] = empties(&mut world);
    let mk = |world: &mut World, r: Entity, t: Entity| {
        let e = world.spawn_empty().id();
        pair(world, e, r, t);
        e
    };
    let e_1 = mk(&mut world, rel_a, obj);
    let e_2 = mk(&mut world, rel_b, obj);
    let e_3 = mk(&mut world, rel_b, obj);
    let e_4 = mk(&mut world, obj, rel_a);
    let e_5 = mk(&mut world, obj, rel_b);
    let e_6 = world.spawn_empty().id();
    world.add_id(e_6, obj.id());
    world.insert(e_3, Tag);
    let alive = |world: &World| [e_1, e_2, e_3, e_4, e_5, e_6].map(|e| world.is_alive(e));

    delete_with(&mut world, obj, None);
    assert_eq!(alive(&world), [true, true, true, true, true, false]);
    delete_with(&mut world, obj, Some(Entity::WILDCARD));
    assert_eq!(alive(&world), [true, true, true, false, false, false]);
    delete_with(&mut world, Entity::WILDCARD, Some(obj));
    assert_eq!(alive(&world), [false; 6]);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_childof_entity
#[test]
fn remove_childof_entity() {
    let mut world = World::new();
    let [parent_1, parent_2] = empties(&mut world);
    let e_1 = world.spawn(ChildOf.pair(parent_1)).id();
    let e_2 = world.spawn(ChildOf.pair(parent_1)).id();
    let e_3 = world.spawn((ChildOf.pair(parent_1), Tag)).id();
    let e_4 = world.spawn(ChildOf.pair(parent_2)).id();
    // ecs_remove_all(world, ecs_pair(EcsChildOf, parent_1))
    let child_of = world.component_id::<ChildOf>().unwrap();
    for e in owners(&world, child_of, Some(parent_1)) {
        world.entity_mut(e).remove_pair::<ChildOf>(parent_1);
    }
    assert!([e_1, e_2, e_3, e_4].iter().all(|&e| world.is_alive(e)));
    for e in [e_1, e_2, e_3] {
        assert!(!world.has_pair::<ChildOf>(e, parent_1));
        assert!(!world.has_pair::<ChildOf>(e, parent_2));
    }
    assert!(world.has_pair::<ChildOf>(e_4, parent_2));
    assert!(world.has::<Tag>(e_3));
    // Removing the children left nothing for the parent to delete.
    world.despawn(parent_1);
    assert!([e_1, e_2, e_3, e_4].iter().all(|&e| world.is_alive(e)));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_childof_wildcard
#[test]
fn remove_childof_wildcard() {
    let mut world = World::new();
    let child_of = relationship(&mut world, on_delete_target(CleanupPolicy::Delete));
    let [parent_1, parent_2] = empties(&mut world);
    let mk = |world: &mut World, p: Entity| {
        let e = world.spawn_empty().id();
        pair(world, e, child_of, p);
        e
    };
    let e_1 = mk(&mut world, parent_1);
    let e_2 = mk(&mut world, parent_1);
    let e_3 = mk(&mut world, parent_1);
    let e_4 = mk(&mut world, parent_2);
    world.insert(e_3, Tag);
    // ecs_remove_all(world, ecs_pair(child_of, EcsWildcard))
    for e in owners(&world, child_of, Some(Entity::WILDCARD)) {
        world.remove_id(e, Id::pair(child_of, Entity::WILDCARD));
    }
    assert!([e_1, e_2, e_3, e_4].iter().all(|&e| world.is_alive(e)));
    assert!(!world.has_id(e_1, Id::pair(child_of, parent_1)));
    assert!(!world.has_id(e_2, Id::pair(child_of, parent_1)));
    assert!(!world.has_id(e_3, Id::pair(child_of, parent_1)));
    assert!(!world.has_id(e_4, Id::pair(child_of, parent_2)));
    assert!(!world.has::<Tag>(e_1) && !world.has::<Tag>(e_2) && !world.has::<Tag>(e_4));
    assert!(world.has::<Tag>(e_3));
    world.despawn(parent_1);
    world.despawn(parent_2);
    assert!([e_1, e_2, e_3, e_4].iter().all(|&e| world.is_alive(e)));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_component_after_delete_cyclic_self
#[test]
fn delete_with_component_after_delete_cyclic_self() {
    let mut world = World::new();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn(Position::default()).id();
    world.entity_mut(e2).add_pair::<Rel>(e2);
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e1) && !world.is_alive(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_component_after_delete_cyclic
#[test]
fn delete_with_component_after_delete_cyclic() {
    let mut world = World::new();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn(Position::default()).id();
    let e3 = world.spawn(Position::default()).id();
    world.entity_mut(e2).add_pair::<Rel>(e3);
    world.entity_mut(e3).add_pair::<Rel>(e2);
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e1) && !world.is_alive(e2) && !world.is_alive(e3));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_component_after_delete_cyclic_w_alive_moved
#[test]
fn delete_with_component_after_delete_cyclic_w_alive_moved() {
    let mut world = World::new();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn(Position::default()).id();
    let e3 = world.spawn(Position::default()).id();
    let e4 = world.spawn_empty().id();
    world.entity_mut(e4).add_pair::<Rel>(e2).insert(Velocity::default());
    world.entity_mut(e2).add_pair::<Rel>(e3);
    world.entity_mut(e3).add_pair::<Rel>(e2);
    let e5 = world.spawn_empty().id();
    world.entity_mut(e5).add_pair::<Rel>(e2).add_pair::<Rel>(e3).insert(Velocity::default());
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e1) && !world.is_alive(e2) && !world.is_alive(e3));
    assert!(world.is_alive(e4) && world.is_alive(e5));
    assert!(world.has::<Velocity>(e4) && world.has::<Velocity>(e5));
    assert_eq!(id_count(&world, e4), 1);
    assert_eq!(id_count(&world, e5), 1);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_w_relation
#[test]
fn delete_with_w_relation() {
    let mut world = World::new();
    let e1 = world.spawn(Tag).id();
    let e2 = world.spawn(Tag).id();
    world.entity_mut(e2).add_pair::<Rel>(e1);
    let tag = world.component_id::<Tag>().unwrap();
    delete_with(&mut world, tag, None);
    assert!(!world.is_alive(e1) && !world.is_alive(e2));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_create_after_delete_with
#[test]
fn create_after_delete_with() {
    let mut world = World::new();
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e));
    assert!(world.is_alive(position));
    assert!(world.component_info(position).is_some());
    let id = world.spawn_empty().id();
    assert_eq!(id_count(&world, id), 0);
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 10.0, y: 20.0 }));
    assert_eq!(world.component_id::<Position>(), Some(position));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_inherited_tag
#[test]
fn delete_with_inherited_tag() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Tag)).id();
    let inst = world.instantiate(base);
    assert!(world.has::<Tag>(inst) && !world.owns::<Tag>(inst));
    // ecs_delete_with deletes the entities that own the tag: the base only.
    world.despawn(base);
    assert!(!world.is_alive(base));
    assert!(world.is_alive(inst));
    assert!(!world.has::<Tag>(inst));
    assert!(world.component_id::<Tag>().is_some_and(|t| world.is_alive(t)));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_inherited_tag_w_query
#[test]
fn delete_with_inherited_tag_w_query() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Tag)).id();
    let inst = world.instantiate(base);
    let mut q = world.query_filtered::<Entity, With<Tag>>();
    // Flecs matches the (non-prefab) base too; a prefab base is not matched.
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![inst]);
    world.despawn(base);
    assert!(!world.is_alive(base));
    assert!(world.is_alive(inst));
    assert_eq!(q.iter(&world).count(), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_inherited_tag_w_observer
#[test]
fn delete_with_inherited_tag_w_observer() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let base = world.spawn((Prefab, Tag)).id();
    let inst = world.instantiate(base);
    world.add_observer(|t: Trigger<OnRemove, Tag>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.entity()));
    });
    world.despawn(base);
    // Flecs: the instance (losing the inherited tag) first, then the base; the base is
    // a prefab here, which observers skip (as Flecs observers skip prefabs).
    assert_eq!(world.resource::<Log>().0, vec![format!("{inst:?}")]);
    assert!(!world.is_alive(base));
    assert!(world.is_alive(inst));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_nested_delete_with
#[test]
fn nested_delete_with() {
    let mut world = World::new();
    // The OnRemove of Position despawns the entity's children (ecs_delete_with(ChildOf, e)).
    world.add_observer(|t: Trigger<OnRemove, Position>, mut commands: Commands, q: Query<(Entity, Pair<ChildOf>)>| {
        for (child, parent) in q.iter() {
            if parent == t.entity() {
                commands.entity(child).despawn();
            }
        }
    });
    let e = world.spawn(Position::default()).id();
    let c = world.spawn(ChildOf.pair(e)).id();
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(world.is_alive(position));
    assert!(!world.is_alive(e));
    assert!(!world.is_alive(c));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_deferred_delete_with_after_create_named
#[test]
fn deferred_delete_with_after_create_named() {
    let mut world = World::new();
    let e1 = world.spawn((Name::new("e1"), Tag)).id();
    let tag = world.component_id::<Tag>().unwrap();
    let holders = owners(&world, tag, None);
    let e2 = world.run_system_once(move |mut commands: Commands| {
        for &e in &holders {
            commands.entity(e).despawn();
        }
        commands.spawn((Name::new("e2"), Tag)).id()
    });
    assert!(!world.is_alive(e1));
    assert!(world.is_alive(e2));
    assert!(world.has::<Tag>(e2));
    assert_eq!(world.get::<Name>(e2).map(|n| n.as_str()), Some("e2"));
    assert_eq!(world.lookup("e2"), Some(e2));
    assert_eq!(world.lookup("e1"), None);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_deferred_delete_with_childof_after_create_named
#[test]
fn deferred_delete_with_childof_after_create_named() {
    let mut world = World::new();
    let parent = world.spawn((Name::new("parent"), Tag)).id();
    let e1 = world.spawn((Name::new("e1"), ChildOf.pair(parent), Tag)).id();
    let child_of = world.component_id::<ChildOf>().unwrap();
    let holders = owners(&world, child_of, Some(parent));
    let e2 = world.run_system_once(move |mut commands: Commands| {
        for &e in &holders {
            commands.entity(e).despawn();
        }
        commands.spawn((Name::new("e2"), ChildOf.pair(parent), Tag)).id()
    });
    assert!(!world.is_alive(e1));
    assert!(world.is_alive(e2));
    assert!(world.has::<Tag>(e2));
    assert_eq!(world.get::<Name>(e2).map(|n| n.as_str()), Some("e2"));
    assert_eq!(world.lookup("parent::e2"), Some(e2));
    assert_eq!(world.path(e2).as_deref(), Some("parent::e2"));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_w_low_rel_mixed_cleanup_interleaved_ids
#[test]
fn delete_w_low_rel_mixed_cleanup_interleaved_ids() {
    let mut world = World::new();
    let [rel, parent, other] = empties(&mut world);
    let child = world.spawn(ChildOf.pair(parent)).id();
    pair(&mut world, child, rel, other);
    pair(&mut world, child, rel, parent);
    world.despawn(parent);
    assert!(!world.is_alive(parent));
    assert!(!world.is_alive(child));
    assert!(world.is_alive(other) && world.is_alive(rel));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_add_on_delete_from_prefab
#[test]
fn add_on_delete_from_prefab() {
    let mut world = World::new();
    let e = world.spawn(Prefab).id();
    world.set_relationship_traits(e, on_delete(CleanupPolicy::Panic));
    assert!(world.try_despawn(e).is_err(), "Flecs aborts");
}

/// OnDelete.c: OnDelete_add_on_delete_from_disabled
#[test]
fn add_on_delete_from_disabled() {
    let mut world = World::new();
    let e = world.spawn(Disabled).id();
    world.set_relationship_traits(e, on_delete(CleanupPolicy::Panic));
    assert!(world.try_despawn(e).is_err(), "Flecs aborts");
}

/// OnDelete.c: OnDelete_delete_on_delete_from_prefab
#[test]
fn delete_on_delete_from_prefab() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.set_relationship_traits(e, on_delete(CleanupPolicy::Panic));
    world.insert(e, Prefab);
    world.set_relationship_traits(e, RelationshipTraits::DEFAULT);
    let holder = world.spawn_empty().id();
    world.add_id(holder, e.id());
    assert_eq!(world.try_despawn(e), Ok(true), "no longer panic");
    assert!(!world.is_alive(e));
    assert!(!world.has_id(holder, e.id()));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_on_delete_from_disabled
#[test]
fn delete_on_delete_from_disabled() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.set_relationship_traits(e, on_delete(CleanupPolicy::Panic));
    world.insert(e, Disabled);
    world.set_relationship_traits(e, RelationshipTraits::DEFAULT);
    let holder = world.spawn_empty().id();
    world.add_id(holder, e.id());
    assert_eq!(world.try_despawn(e), Ok(true), "no longer panic");
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// OnDelete.c: OnDelete_remove_all_3
#[test]
fn remove_all_3() {
    let mut world = World::new();
    let e1 = world.spawn((Name::new("e1"), Position { x: 10.0, y: 20.0 })).id();
    let e2 = world.spawn((Name::new("e2"), Position { x: 30.0, y: 40.0 })).id();
    let e3 = world.spawn((Name::new("e3"), Position { x: 50.0, y: 60.0 })).id();
    let position = world.component_id::<Position>().unwrap();
    for e in owners(&world, position, None) {
        world.remove::<Position>(e);
    }
    for (e, name) in [(e1, "e1"), (e2, "e2"), (e3, "e3")] {
        assert!(world.is_alive(e));
        assert!(!world.has::<Position>(e));
        assert_eq!(world.lookup(name), Some(e));
    }
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_with_3
#[test]
fn delete_with_3() {
    let mut world = World::new();
    let e1 = world.spawn((Name::new("e1"), Position { x: 10.0, y: 20.0 })).id();
    let e2 = world.spawn((Name::new("e2"), Position { x: 30.0, y: 40.0 })).id();
    let e3 = world.spawn((Name::new("e3"), Position { x: 50.0, y: 60.0 })).id();
    let position = world.component_id::<Position>().unwrap();
    delete_with(&mut world, position, None);
    assert!(!world.is_alive(e1) && !world.is_alive(e2) && !world.is_alive(e3));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    assert_eq!(world.lookup("e1"), None);
    world.check_invariants();
}

/// OnDelete.c: OnDelete_delete_all_w_component_cycle
#[test]
fn delete_all_w_component_cycle() {
    let mut world = World::new();
    let tag = world.spawn_empty().id();
    let comp_a = world.register_component::<CompA>();
    let comp_b = world.register_component::<CompB>();
    world.add_id(comp_a, tag.id());
    world.add_id(comp_b, tag.id());
    world.add_id(comp_a, comp_b.id());
    world.add_id(comp_b, comp_a.id());
    // ecs_delete_with(world, tag): component entities are internal and not matched
    // by queries, so despawn the holders named here.
    for e in [comp_a, comp_b] {
        if world.is_alive(e) && world.has_id(e, tag.id()) {
            world.despawn(e);
        }
    }
    assert!(!world.is_alive(comp_a));
    assert!(!world.is_alive(comp_b));
    assert!(world.component_info(comp_a).is_none());
    assert!(world.component_info(comp_b).is_none());
    assert_eq!(world.component_id::<CompA>(), None);
    assert_eq!(world.component_id::<CompB>(), None);
    world.check_invariants();
}
