//! Tests ported from Flecs' `test/core/src/Pairs.c` to this crate's API.
//!
//! Mapping: `ecs_add_pair`/`ecs_set_pair` are `add_pair`/`insert_pair` (typed) or
//! `add_pair_id`/`add_id(Id::pair(..))` (runtime), `ecs_get_pair` is `get_pair`,
//! `ecs_get_target(e, R, i)` is `targets::<R>(e).nth(i)`, `ecs_get_parent` is
//! `parent`, `ecs_has_id` is `has_id`, a Flecs system over `(Rel, *)` is a
//! `Pair<&mut Rel>` query, `ECS_OBSERVER(.., (Rel, *))` is a
//! `Trigger<OnAdd/OnRemove, Pair<Rel>>` observer, `ecs_query(.expr)` is
//! `query_dsl`, `ecs_query(.terms)` is `query_builder`, `EcsExclusive` on a
//! runtime entity is `set_relationship_traits`, `ecs_id_str` is `id_name`.
//! A data pair's value always has the relationship's type: where Flecs stores
//! `Rel` data for a component target (`ecs_pair(Rel, ecs_id(Position))`) we use
//! the component's entity as target.
//!
//! NOT ported, and why:
//! - `add_tag_pair_for_component`, `override_tag_pair`, `set_w_recycled_tgt` (as
//!   written), `set_object_w_zero_sized_rel_comp`, `typeid_*`, `tag_pair_w_*`,
//!   `get_tag_pair_w_*`, `get_typeid_w_recycled_*`: no pairs whose value has
//!   the target's type, no `PairIsTag`, no `ecs_get_typeid`.
//!   (`set_w_recycled_tgt` is ported with a recycled target entity instead.)
//! - `override_pair`, `get_target_for_*`, `ignore_childof_from_base`: pairs are
//!   never *inherited* through `IsA` here (documented in
//!   `World::is_inherited_id`; a value pair of an `inherit` relationship stays
//!   the base's), and there is no `ecs_get_target_for_id`. Tag pairs of a base
//!   are *copied* into instances (Flecs 4's default), so `get_target_from_base`,
//!   `get_target_from_2nd_base`, `get_target_from_base_w_pair_on_instance` and
//!   `inherit_exclusive` are ported with that meaning (the instance owns the
//!   target rather than reading the base's).
//! - `add_pair_to_entity_w_scope`, `with`, `2_with`, `nested_with`,
//!   `with_relation`, `2_with_relation`, `nested_with_relation`,
//!   `with_for_existing`: no `ecs_set_scope`, no `With` trait.
//! - `add_symmetric_*`, `remove_symmetric_relation`,
//!   `delete_entity_w_symmetric_relation`, `symmetric_w_childof`, `oneof_*`,
//!   `force_relationship_*`, `force_target_*`, `inherit_relationship_trait`,
//!   `disable_w_toggle_pair_rel_target_traits`,
//!   `disable_toggle_component_and_toggle_pair`: no `Symmetric`, `OneOf`,
//!   `Relationship`/`Target` constraint traits, no toggleable pairs.
//! - `add_not_alive_relation`: Flecs makes the dead relationship id alive;
//!   here a pair with a dead half is refused (`PairError::NotAlive`, documented,
//!   see `ported_flecs_core.rs`).
//! - `add_value_pair*`, `add_exclusive_value_pairs`, `remove_value_pair*`,
//!   `value_pair_to_str`, `has_value_pair_*`, `target_w_value_pair`,
//!   `add_value_pair_w_0_target*`, `add_to_entity_w_value_pair_0_target_w_isa`:
//!   no value pairs (a target is always an alive entity), no id 0.
//! - `get_target_for_id_from_stage`: no stages.
//! - `has_wildcard_w_pair`: its last assertion (`ecs_has_id(e, EcsWildcard)`
//!   is false for an entity with only a pair) is dropped: `World::has_id`
//!   and `Id::matches` document `*` alone as matching every id, pairs included.
//! - `World_add_exclusive_after_pair_query`: Flecs refuses a trait change of a
//!   relationship in use, and so does `set_relationship_traits` for
//!   exclusivity (a panic, as for union). The variants where no entity holds
//!   the pairs any more are ported (`*_after_use`); they were findings (cached
//!   graph edges kept the old trait), fixed: the change drops the empty
//!   archetypes of the relationship's pairs and their edges.
//! - `dsl_pair_w_explicit_subj`'s and `api_pair_w_explicit_subj`'s
//!   `ecs_field_src` is ported as `DynRow::source`.

use std::collections::BTreeSet;

use ecs::component::RelationshipTraits;
use ecs::entity::Id;
use ecs::prelude::*;

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

/// Flecs' `Rel` component (a relationship with a value).
#[derive(Relationship, Debug, PartialEq)]
struct Rel {
    value: i32,
}

#[derive(Relationship, Debug, PartialEq)]
struct RelA {
    value: i32,
}

#[derive(Relationship, Debug, PartialEq)]
struct RelB {
    value: i32,
}

/// Flecs' `ECS_TAG(world, Rel)` used as a relationship.
#[derive(Relationship, Debug)]
struct TagRel;

/// Flecs' `ECS_ENTITY(world, Rel, (OnInstantiate, DontInherit))`.
#[derive(Relationship, Debug)]
#[component(on_instantiate = "dont_inherit")]
struct DontInheritRel;

#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct ExclusiveRel;

/// Flecs' `Position` with `EcsExclusive` used as a relationship with data.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct ExclusivePos {
    x: f32,
    y: f32,
}

#[derive(Component)]
struct TagA;

#[derive(Component)]
#[component(on_instantiate = "dont_inherit")]
struct DontInheritTag;

#[derive(Resource, Default)]
struct Log(Vec<(Entity, Entity)>);

fn empties<const N: usize>(world: &mut World) -> [Entity; N] {
    std::array::from_fn(|_| world.spawn_empty().id())
}

/// Flecs' `ecs_get_target(world, entity, rel, index)` for a runtime
/// relationship: the `index`-th target of `entity`'s `(rel, *)` pairs, in type
/// order.
fn target_id(world: &World, entity: Entity, rel: Entity, index: usize) -> Option<Entity> {
    let ids = world.ids_of(entity)?;
    let mut targets = ids.iter().filter(|id| id.is_pair() && id.first_index() == rel.index());
    targets.nth(index).and_then(|id| world.entity_at(id.second_index()))
}

/// Named runtime entities (Flecs' `ECS_TAG`), found by the query DSL.
fn tags<const N: usize>(world: &mut World, names: [&'static str; N]) -> [Entity; N] {
    names.map(|name| world.spawn(Name::new(name)).id())
}

fn cid<T: Component>(world: &mut World) -> Entity {
    world.register_component::<T>()
}

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

// ===== data pairs, queries over (Rel, *) =================================================

#[test]
// Flecs: Pairs.c, Pairs_type_w_one_pair
fn type_w_one_pair() {
    let mut world = World::new();
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e1 = world.spawn(Rel { value: 10 }.pair(pos)).id();
    assert!(world.has_pair::<Rel>(e1, pos));
    let e2 = world.spawn(Rel { value: 20 }.pair(vel)).id();
    assert!(world.has_pair::<Rel>(e2, vel));

    let mut q = world.query::<(Entity, Pair<&mut Rel>)>();
    let mut rows = Vec::new();
    for (e, (target, mut rel)) in q.iter_mut(&mut world) {
        rel.value += 1;
        rows.push((e, target));
    }
    assert_eq!(set(rows), set([(e1, pos), (e2, vel)]));
    assert_eq!(world.get_pair::<Rel>(e1, pos), Some(&Rel { value: 11 }));
    assert_eq!(world.get_pair::<Rel>(e2, vel), Some(&Rel { value: 21 }));
}

#[test]
// Flecs: Pairs.c, Pairs_type_w_two_pairs
fn type_w_two_pairs() {
    let mut world = World::new();
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e1 = world.spawn_empty().id();
    world.insert_pair(e1, Rel { value: 10 }, pos);
    assert!(world.has_pair::<Rel>(e1, pos));
    world.insert_pair(e1, Rel { value: 20 }, vel);
    assert!(world.has_pair::<Rel>(e1, vel));
    let e2 = world.spawn_empty().id();
    world.insert_pair(e2, Rel { value: 30 }, pos);
    world.insert_pair(e2, Rel { value: 40 }, vel);
    assert!(world.has_pair::<Rel>(e2, pos) && world.has_pair::<Rel>(e2, vel));

    let mut q = world.query::<(Entity, Pair<&mut Rel>)>();
    let mut rows = Vec::new();
    for (e, (target, mut rel)) in q.iter_mut(&mut world) {
        rel.value += 1;
        rows.push((e, target));
    }
    assert_eq!(rows.len(), 4);
    assert_eq!(set(rows), set([(e1, pos), (e1, vel), (e2, pos), (e2, vel)]));
    assert_eq!(world.get_pair::<Rel>(e1, pos).unwrap().value, 11);
    assert_eq!(world.get_pair::<Rel>(e1, vel).unwrap().value, 21);
    assert_eq!(world.get_pair::<Rel>(e2, pos).unwrap().value, 31);
    assert_eq!(world.get_pair::<Rel>(e2, vel).unwrap().value, 41);
}

#[test]
// Flecs: Pairs.c, Pairs_add_pair
fn add_pair() {
    let mut world = World::new();
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn_empty().id();
    world.entity_mut(e1).add_pair::<TagRel>(pos);
    assert!(world.has_pair::<TagRel>(e1, pos));
    // runtime form
    let rel = world.component_id::<TagRel>().unwrap();
    assert!(world.has_id(e1, Id::pair(rel, pos)));
    assert!(world.has_pair_id(e1, rel, pos));
}

#[test]
// Flecs: Pairs.c, Pairs_remove_pair
fn remove_pair() {
    let mut world = World::new();
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn(Rel { value: 10 }.pair(pos)).id();
    assert!(world.has_pair::<Rel>(e1, pos));
    assert!(world.remove_pair::<Rel>(e1, pos));
    assert!(!world.has_pair::<Rel>(e1, pos));
    assert_eq!(world.get_pair::<Rel>(e1, pos), None);
}

#[test]
// Flecs: Pairs.c, Pairs_add_tag_pair_for_tag
fn add_tag_pair_for_tag() {
    let mut world = World::new();
    let [tag1, tag2] = empties(&mut world);
    let e1 = world.spawn_empty().add_pair::<TagRel>(tag1).id();
    assert!(world.has_pair::<TagRel>(e1, tag1));
    let e2 = world.spawn_empty().add_pair::<TagRel>(tag2).id();
    assert!(world.has_pair::<TagRel>(e2, tag2));
    let rows = world.query::<(Entity, Pair<TagRel>)>().iter(&world).collect::<Vec<_>>();
    assert_eq!(set(rows), set([(e1, tag1), (e2, tag2)]));
}

#[test]
// Flecs: Pairs.c, Pairs_query_2_pairs
fn query_2_pairs() {
    let mut world = World::new();
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn(RelA { value: 1 }.pair(pos)).id();
    world.insert_pair(e1, RelB { value: 2 }, pos);
    assert!(world.has_pair::<RelA>(e1, pos) && world.has_pair::<RelB>(e1, pos));
    let e2 = world.spawn(RelA { value: 3 }.pair(pos)).id();

    let mut q = world.query::<(Entity, Pair<&mut RelA>, Pair<&mut RelB>)>();
    let mut rows = Vec::new();
    for (e, (ta, mut a), (tb, mut b)) in q.iter_mut(&mut world) {
        a.value += 1;
        b.value += 1;
        rows.push((e, ta, tb));
    }
    assert_eq!(rows, vec![(e1, pos, pos)]);
    assert_eq!(world.get_pair::<RelA>(e1, pos).unwrap().value, 2);
    assert_eq!(world.get_pair::<RelB>(e1, pos).unwrap().value, 3);
    assert_eq!(world.get_pair::<RelA>(e2, pos).unwrap().value, 3);
}

#[test]
// Flecs: Pairs.c, Pairs_query_2_pairs_2_instances_per_type
fn query_2_pairs_2_instances_per_type() {
    let mut world = World::new();
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e1 = world.spawn(RelA { value: 1 }.pair(pos)).id();
    world.insert_pair(e1, RelB { value: 2 }, pos);
    world.insert_pair(e1, RelA { value: 3 }, vel);
    world.insert_pair(e1, RelB { value: 4 }, vel);

    // One row per combination of (RelA, *) and (RelB, *): 4 rows.
    let mut q = world.query::<(Entity, Pair<&mut RelA>, Pair<&mut RelB>)>();
    let mut rows = Vec::new();
    for (e, (ta, mut a), (tb, mut b)) in q.iter_mut(&mut world) {
        a.value += 1;
        b.value += 1;
        rows.push((e, ta, tb));
    }
    assert_eq!(rows.len(), 4);
    assert_eq!(set(rows), set([(e1, pos, pos), (e1, pos, vel), (e1, vel, pos), (e1, vel, vel)]));
    assert_eq!(world.get_pair::<RelA>(e1, pos).unwrap().value, 3);
    assert_eq!(world.get_pair::<RelA>(e1, vel).unwrap().value, 5);
    assert_eq!(world.get_pair::<RelB>(e1, pos).unwrap().value, 4);
    assert_eq!(world.get_pair::<RelB>(e1, vel).unwrap().value, 6);
}

// ===== observers on pairs ===============================================================

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

fn take_log(world: &mut World) -> Vec<(Entity, Entity)> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
// Flecs: Pairs.c, Pairs_on_add_pair
fn on_add_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push((t.entity(), t.pair_target().unwrap()));
    });
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e = world.spawn_empty().id();
    world.insert_pair(e, Rel { value: 0 }, pos);
    assert_eq!(take_log(&mut world), vec![(e, pos)]);
    world.insert_pair(e, Rel { value: 0 }, vel);
    assert_eq!(take_log(&mut world), vec![(e, vel)]);
}

#[test]
// Flecs: Pairs.c, Pairs_on_add_pair_tag
fn on_add_pair_tag() {
    let mut world = log_world();
    // Flecs observes (Rel, Position) exactly: filter on the target.
    let pos = cid::<Position>(&mut world);
    world.add_observer(move |t: Trigger<OnAdd, Pair<TagRel>>, mut log: ResMut<Log>| {
        if t.pair_target() == Some(pos) {
            log.0.push((t.entity(), pos));
        }
    });
    let e = world.spawn_empty().id();
    world.add_pair::<TagRel>(e, pos);
    assert_eq!(take_log(&mut world), vec![(e, pos)]);
}

#[test]
// Flecs: Pairs.c, Pairs_on_remove_pair
fn on_remove_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push((t.entity(), t.pair_target().unwrap()));
    });
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e = world.spawn_empty().id();
    world.insert_pair(e, Rel { value: 0 }, pos);
    world.insert_pair(e, Rel { value: 0 }, vel);
    assert!(take_log(&mut world).is_empty());
    world.remove_pair::<Rel>(e, pos);
    assert_eq!(take_log(&mut world), vec![(e, pos)]);
    world.remove_pair::<Rel>(e, vel);
    assert_eq!(take_log(&mut world), vec![(e, vel)]);
}

#[test]
// Flecs: Pairs.c, Pairs_on_remove_pair_tag
fn on_remove_pair_tag() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<TagRel>>, mut log: ResMut<Log>| {
        log.0.push((t.entity(), t.pair_target().unwrap()));
    });
    let pos = cid::<Position>(&mut world);
    let e = world.spawn_empty().add_pair::<TagRel>(pos).id();
    assert!(take_log(&mut world).is_empty());
    world.remove_pair::<TagRel>(e, pos);
    assert_eq!(take_log(&mut world), vec![(e, pos)]);
}

#[test]
// Flecs: Pairs.c, Pairs_on_remove_pair_on_delete
fn on_remove_pair_on_delete() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push((t.entity(), t.pair_target().unwrap()));
    });
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    let e = world.spawn_empty().id();
    world.insert_pair(e, Rel { value: 0 }, pos);
    world.insert_pair(e, Rel { value: 0 }, vel);
    assert!(take_log(&mut world).is_empty());
    world.despawn(e);
    // Flecs reports them in type order: (Rel, Position) then (Rel, Velocity).
    assert_eq!(take_log(&mut world), vec![(e, pos), (e, vel)]);
}

#[test]
// Flecs: Pairs.c, Pairs_on_remove_pair_tag_on_delete
fn on_remove_pair_tag_on_delete() {
    let mut world = log_world();
    let (pos, vel) = (cid::<Position>(&mut world), cid::<Velocity>(&mut world));
    // Two observers, one per exact pair (Flecs: (Rel, Position), (Rel, Velocity)).
    for target in [pos, vel] {
        world.add_observer(move |t: Trigger<OnRemove, Pair<TagRel>>, mut log: ResMut<Log>| {
            if t.pair_target() == Some(target) {
                log.0.push((t.entity(), target));
            }
        });
    }
    let e = world.spawn_empty().add_pair::<TagRel>(pos).add_pair::<TagRel>(vel).id();
    assert!(take_log(&mut world).is_empty());
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec![(e, pos), (e, vel)]);
}

// ===== DSL and builder queries on pairs =================================================

#[test]
// Flecs: Pairs.c, Pairs_pair_w_component_query
fn pair_w_component_query() {
    let mut world = World::new();
    let pos = cid::<Position>(&mut world);
    let e = world.spawn(Rel { value: 3 }.pair(pos)).id();
    let mut q = world.query_dsl("(Rel, Position)").unwrap();
    let rows: Vec<(Entity, i32)> = q.iter(&world).map(|row| (row.entity(), row.get::<Rel>(0).unwrap().value)).collect();
    assert_eq!(rows, vec![(e, 3)]);
}

#[test]
// Flecs: Pairs.c, Pairs_query_pair_or_component
fn query_pair_or_component() {
    let mut world = World::new();
    let [rel] = tags(&mut world, ["Rel"]);
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn_empty().id();
    world.add_pair_id(e1, rel, pos);
    let e2 = world.spawn(Position::default()).id();
    let mut q = world.query_dsl("(Rel, Position) || Position").unwrap();
    let rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(set(rows), set([e1, e2]));
}

#[test]
// Flecs: Pairs.c, Pairs_query_pair_or_pair
fn query_pair_or_pair() {
    let mut world = World::new();
    let [rel_a, rel_b] = tags(&mut world, ["RelA", "RelB"]);
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn_empty().id();
    world.add_pair_id(e1, rel_a, pos);
    let e2 = world.spawn(Position::default()).id();
    world.add_pair_id(e2, rel_b, pos);
    let mut q = world.query_dsl("(RelA, Position) || (RelB, Position)").unwrap();
    let rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(set(rows), set([e1, e2]));
}

#[test]
// Flecs: Pairs.c, Pairs_query_not_pair
fn query_not_pair() {
    let mut world = World::new();
    let [rel] = tags(&mut world, ["Rel"]);
    let pos = cid::<Position>(&mut world);
    let e1 = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let e2 = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    world.add_pair_id(e2, rel, pos);
    let mut q = world.query_dsl("!(Rel, Position), Position").unwrap();
    let rows: Vec<(Entity, bool, f32)> =
        q.iter(&world).map(|row| (row.entity(), row.is_set(0), row.get::<Position>(1).unwrap().x)).collect();
    assert_eq!(rows, vec![(e1, false, 1.0)]);
}

/// The four entities of Flecs' `dsl_pair*`/`api_pair*` tests, created after the
/// query: `(Rel, Obj)`, `(Rel, Obj_2)`, `(Rel_2, Obj)`, `(Rel_2, Obj_2)`.
struct Four {
    rel: Entity,
    rel_2: Entity,
    obj: Entity,
    obj_2: Entity,
}

fn four_tags(world: &mut World) -> Four {
    let [rel, rel_2, obj, obj_2] = tags(world, ["Rel", "Rel_2", "Obj", "Obj_2"]);
    Four { rel, rel_2, obj, obj_2 }
}

fn four_entities(world: &mut World, t: &Four) -> [Entity; 4] {
    let pairs = [(t.rel, t.obj), (t.rel, t.obj_2), (t.rel_2, t.obj), (t.rel_2, t.obj_2)];
    pairs.map(|(r, o)| {
        let e = world.spawn_empty().id();
        world.add_id(e, Id::pair(r, o));
        e
    })
}

/// (entity, id of term 0) per row, sorted by entity.
fn rows_w_id(world: &World, q: &mut DynQuery) -> Vec<(Entity, Id)> {
    let mut rows: Vec<(Entity, Id)> = q.iter(world).map(|row| (row.entity(), row.id(0))).collect();
    rows.sort();
    rows
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair
fn dsl_pair() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_dsl("(Rel, Obj)").unwrap();
    let [e1, ..] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e1, Id::pair(t.rel, t.obj))]);
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair_w_pred_wildcard
fn dsl_pair_w_pred_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_dsl("(*, Obj)").unwrap();
    let [e1, _, e3, _] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e1, Id::pair(t.rel, t.obj)), (e3, Id::pair(t.rel_2, t.obj))]);
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair_w_obj_wildcard
fn dsl_pair_w_obj_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_dsl("(Rel_2, *)").unwrap();
    let [_, _, e3, e4] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e3, Id::pair(t.rel_2, t.obj)), (e4, Id::pair(t.rel_2, t.obj_2))]);
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair_w_both_wildcard
fn dsl_pair_w_both_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_dsl("(*, *)").unwrap();
    let [e1, e2, e3, e4] = four_entities(&mut world, &t);
    let rows: Vec<(Entity, Id)> =
        rows_w_id(&world, &mut q).into_iter().filter(|(e, _)| [e1, e2, e3, e4].contains(e)).collect();
    assert_eq!(
        rows,
        vec![
            (e1, Id::pair(t.rel, t.obj)),
            (e2, Id::pair(t.rel, t.obj_2)),
            (e3, Id::pair(t.rel_2, t.obj)),
            (e4, Id::pair(t.rel_2, t.obj_2)),
        ]
    );
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair_w_explicit_subj_this
fn dsl_pair_w_explicit_subj_this() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_dsl("Rel($this, Obj)").unwrap();
    let [e1, ..] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e1, Id::pair(t.rel, t.obj))]);
}

#[test]
// Flecs: Pairs.c, Pairs_dsl_pair_w_explicit_subj
fn dsl_pair_w_explicit_subj() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let [tag] = tags(&mut world, ["Tag"]);
    let subj = world.spawn(Name::new("Subj")).id();
    world.add_id(subj, Id::pair(t.rel, t.obj));
    let mut q = world.query_dsl("Rel(Subj, Obj), Tag").unwrap();
    let [_, _, _, e4] = four_entities(&mut world, &t);
    world.add_id(e4, tag.id());
    let rows: Vec<(Entity, Id, Entity)> = q.iter(&world).map(|row| (row.entity(), row.id(0), row.source(0))).collect();
    assert_eq!(rows, vec![(e4, Id::pair(t.rel, t.obj), subj)]);
}

#[test]
// Flecs: Pairs.c, Pairs_api_pair
fn api_pair() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_builder().pair(t.rel, t.obj).build().unwrap();
    let [e1, ..] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e1, Id::pair(t.rel, t.obj))]);
}

#[test]
// Flecs: Pairs.c, Pairs_api_pair_w_pred_wildcard
fn api_pair_w_pred_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_builder().pair(Entity::WILDCARD, t.obj).build().unwrap();
    let [e1, _, e3, _] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e1, Id::pair(t.rel, t.obj)), (e3, Id::pair(t.rel_2, t.obj))]);
}

#[test]
// Flecs: Pairs.c, Pairs_api_pair_w_obj_wildcard
fn api_pair_w_obj_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_builder().pair(t.rel_2, Entity::WILDCARD).build().unwrap();
    let [_, _, e3, e4] = four_entities(&mut world, &t);
    assert_eq!(rows_w_id(&world, &mut q), vec![(e3, Id::pair(t.rel_2, t.obj)), (e4, Id::pair(t.rel_2, t.obj_2))]);
    let targets: Vec<Entity> = q.iter(&world).map(|row| row.pair_target(0)).collect();
    assert_eq!(set(targets), set([t.obj, t.obj_2]));
}

#[test]
// Flecs: Pairs.c, Pairs_api_pair_w_both_wildcard
fn api_pair_w_both_wildcard() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let mut q = world.query_builder().pair(Entity::WILDCARD, Entity::WILDCARD).build().unwrap();
    let [e1, e2, e3, e4] = four_entities(&mut world, &t);
    let rows: Vec<(Entity, Id)> =
        rows_w_id(&world, &mut q).into_iter().filter(|(e, _)| [e1, e2, e3, e4].contains(e)).collect();
    assert_eq!(rows.len(), 4);
}

#[test]
// Flecs: Pairs.c, Pairs_api_pair_w_explicit_subj
fn api_pair_w_explicit_subj() {
    let mut world = World::new();
    let t = four_tags(&mut world);
    let [tag] = tags(&mut world, ["Tag"]);
    let subj = world.spawn_empty().id();
    world.add_id(subj, Id::pair(t.rel, t.obj));
    let mut q = world.query_builder().pair(t.rel, t.obj).source(subj).with(tag).build().unwrap();
    let [_, _, _, e4] = four_entities(&mut world, &t);
    world.add_id(e4, tag.id());
    let rows: Vec<(Entity, Id, Entity)> = q.iter(&world).map(|row| (row.entity(), row.id(0), row.source(0))).collect();
    assert_eq!(rows, vec![(e4, Id::pair(t.rel, t.obj), subj)]);
}

// ===== id strings with recycled ids ====================================================

#[test]
// Flecs: Pairs.c, Pairs_id_str_w_recycled_rel
fn id_str_w_recycled_rel() {
    let mut world = World::new();
    let o = world.spawn(Name::new("o")).id();
    let dummy = world.spawn_empty().id();
    world.despawn(dummy);
    let r = world.spawn(Name::new("r")).id();
    assert_ne!(r.generation(), 0, "recycled");
    assert_eq!(world.id_name(Id::pair(r, o)), "(r, o)");
}

#[test]
// Flecs: Pairs.c, Pairs_id_str_w_recycled_obj
fn id_str_w_recycled_obj() {
    let mut world = World::new();
    let r = world.spawn(Name::new("r")).id();
    let dummy = world.spawn_empty().id();
    world.despawn(dummy);
    let o = world.spawn(Name::new("o")).id();
    assert_ne!(o.generation(), 0, "recycled");
    assert_eq!(world.id_name(Id::pair(r, o)), "(r, o)");
}

// ===== targets ==========================================================================

#[test]
// Flecs: Pairs.c, Pairs_get_1_target
fn get_1_target() {
    let mut world = World::new();
    let [e, obj] = empties(&mut world);
    world.add_pair::<TagRel>(e, obj);
    assert!(world.has_pair::<TagRel>(e, obj));
    assert_eq!(world.targets::<TagRel>(e).next(), Some(obj));
    assert_eq!(world.target::<TagRel>(e), Some(obj));
}

#[test]
// Flecs: Pairs.c, Pairs_get_1_target_not_found
fn get_1_target_not_found() {
    let mut world = World::new();
    let [e] = empties(&mut world);
    world.register_component::<TagRel>();
    assert_eq!(world.target::<TagRel>(e), None);
    // never registered: also none
    assert_eq!(world.target::<ExclusiveRel>(e), None);
}

#[test]
// Flecs: Pairs.c, Pairs_get_n_targets
fn get_n_targets() {
    let mut world = World::new();
    let [e, obj_1, obj_2, obj_3] = empties(&mut world);
    world.entity_mut(e).add_pair::<TagRel>(obj_1).add_pair::<TagRel>(obj_2).add_pair::<TagRel>(obj_3);
    assert!(world.has_pair::<TagRel>(e, obj_1));
    assert!(world.has_pair::<TagRel>(e, obj_2));
    assert!(world.has_pair::<TagRel>(e, obj_3));
    assert_eq!(world.targets::<TagRel>(e).next(), Some(obj_1));
    assert_eq!(world.targets::<TagRel>(e).nth(1), Some(obj_2));
    assert_eq!(world.targets::<TagRel>(e).nth(2), Some(obj_3));
    assert_eq!(world.targets::<TagRel>(e).nth(3), None);
}

#[test]
// Flecs: Pairs.c, Pairs_get_childof_target_from_base
fn get_childof_target_from_base() {
    let mut world = World::new();
    let [parent] = empties(&mut world);
    let base = world.spawn((Prefab, ChildOf.pair(parent))).id();
    let e = world.instantiate(base);
    assert!(world.has_pair::<ChildOf>(base, parent));
    assert!(!world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.targets::<ChildOf>(e).next(), None);
    assert_eq!(world.targets::<ChildOf>(e).nth(1), None);
}

#[test]
// Flecs: Pairs.c, Pairs_get_dontinherit_target_from_base
fn get_dontinherit_target_from_base() {
    let mut world = World::new();
    let [parent] = empties(&mut world);
    let base = world.spawn((Prefab, DontInheritRel.pair(parent))).id();
    let e = world.instantiate(base);
    assert!(world.has_pair::<DontInheritRel>(base, parent));
    assert!(!world.has_pair::<DontInheritRel>(e, parent));
    assert_eq!(world.targets::<DontInheritRel>(e).next(), None);
    assert_eq!(world.targets::<DontInheritRel>(e).nth(1), None);
}

#[test]
// Flecs: Pairs.c, Pairs_get_target_from_base (the pair is copied, Flecs 4's default)
fn get_target_from_base() {
    let mut world = World::new();
    let [rel, tgt] = empties(&mut world);
    let base = world.spawn_empty().id();
    world.add_id(base, Id::pair(rel, tgt));
    let inst = world.spawn(IsA.pair(base)).id();
    assert_eq!(target_id(&world, base, rel, 0), Some(tgt));
    assert_eq!(target_id(&world, inst, rel, 0), Some(tgt));
}

#[test]
// Flecs: Pairs.c, Pairs_get_target_from_2nd_base
fn get_target_from_2nd_base() {
    let mut world = World::new();
    let [rel, tgt, base_1] = empties(&mut world);
    let base_2 = world.spawn_empty().id();
    world.add_id(base_2, Id::pair(rel, tgt));
    let inst = world.spawn(IsA.pair(base_1)).id();
    world.add_pair::<IsA>(inst, base_2);
    assert_eq!(target_id(&world, base_1, rel, 0), None);
    assert_eq!(target_id(&world, base_2, rel, 0), Some(tgt));
    assert_eq!(target_id(&world, inst, rel, 0), Some(tgt));
}

#[test]
// Flecs: Pairs.c, Pairs_get_target_from_base_w_pair_on_instance
fn get_target_from_base_w_pair_on_instance() {
    let mut world = World::new();
    let [rel, tgt_a, tgt_b] = empties(&mut world);
    let base = world.spawn_empty().id();
    world.add_id(base, Id::pair(rel, tgt_b));
    let inst = world.spawn(IsA.pair(base)).id();
    world.add_id(inst, Id::pair(rel, tgt_a));
    assert_eq!(target_id(&world, base, rel, 0), Some(tgt_b));
    assert_eq!(target_id(&world, inst, rel, 0), Some(tgt_a));
    assert_eq!(target_id(&world, inst, rel, 1), Some(tgt_b));
}

#[test]
// Flecs: Pairs.c, Pairs_inherit_exclusive
fn inherit_exclusive() {
    let mut world = World::new();
    let [obj_a, obj_b] = empties(&mut world);
    let base = world.spawn(ExclusiveRel.pair(obj_a)).id();
    let inst = world.spawn(IsA.pair(base)).id();
    assert!(world.has_pair::<ExclusiveRel>(inst, obj_a));
    world.add_pair::<ExclusiveRel>(inst, obj_b);
    assert!(world.has_pair::<ExclusiveRel>(inst, obj_b));
    assert!(!world.has_pair::<ExclusiveRel>(inst, obj_a));
}

#[test]
// Flecs: Pairs.c, Pairs_get_parent
fn get_parent() {
    let mut world = World::new();
    let [parent] = empties(&mut world);
    let e = world.spawn(ChildOf.pair(parent)).id();
    assert_eq!(world.target::<ChildOf>(e), Some(parent));
    assert_eq!(world.parent(e), Some(parent));
}

#[test]
// Flecs: Pairs.c, Pairs_get_parent_from_root
fn get_parent_from_root() {
    let mut world = World::new();
    let [e] = empties(&mut world);
    assert_eq!(world.parent(e), None);
}

// ===== exclusive relationships ==========================================================

#[test]
// Flecs: Pairs.c, Pairs_add_exclusive_relation_twice
fn add_exclusive_relation_twice() {
    let mut world = World::new();
    let [e, obj_a, obj_b] = empties(&mut world);
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    world.add_pair::<ExclusiveRel>(e, obj_b);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_b));
    assert!(!world.has_pair::<ExclusiveRel>(e, obj_a));
}

#[test]
// Flecs: Pairs.c, Pairs_add_same_exclusive_relation_twice
fn add_same_exclusive_relation_twice() {
    let mut world = World::new();
    let [e, obj_a] = empties(&mut world);
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    assert_eq!(world.targets::<ExclusiveRel>(e).count(), 1);
}

#[test]
// Flecs: Pairs.c, Pairs_set_exclusive_relation_twice
fn set_exclusive_relation_twice() {
    let mut world = World::new();
    let [e, start, stop] = empties(&mut world);
    world.insert_pair(e, ExclusivePos { x: 10.0, y: 20.0 }, start);
    assert!(world.has_pair::<ExclusivePos>(e, start));
    world.insert_pair(e, ExclusivePos { x: 20.0, y: 30.0 }, stop);
    assert!(world.has_pair::<ExclusivePos>(e, stop));
    assert!(!world.has_pair::<ExclusivePos>(e, start));
    assert_eq!(world.get_pair::<ExclusivePos>(e, stop), Some(&ExclusivePos { x: 20.0, y: 30.0 }));
    assert_eq!(world.get_pair::<ExclusivePos>(e, start), None);
}

#[test]
// Flecs: Pairs.c, Pairs_add_exclusive_non_empty_table
fn add_exclusive_non_empty_table() {
    let mut world = World::new();
    let [tag_a, tag_b, tag_c, tag_d, obj_a, obj_b] = empties(&mut world);
    let e = world.spawn_empty().id();
    for tag in [tag_a, tag_b, tag_c, tag_d] {
        world.add_id(e, tag.id());
    }
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    world.add_pair::<ExclusiveRel>(e, obj_b);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_b));
    assert!(!world.has_pair::<ExclusiveRel>(e, obj_a));
    for tag in [tag_a, tag_b, tag_c, tag_d] {
        assert!(world.has_id(e, tag.id()));
    }
}

#[test]
// Flecs: Pairs.c, Pairs_add_exclusive_non_empty_table_w_pairs
fn add_exclusive_non_empty_table_w_pairs() {
    let mut world = World::new();
    let [rel_a, rel_b, obj_a, obj_b] = empties(&mut world);
    let e = world.spawn_empty().id();
    world.add_pair_id(e, rel_a, obj_a);
    world.add_pair_id(e, rel_b, obj_a);
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    world.add_pair::<ExclusiveRel>(e, obj_b);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_b));
    assert!(!world.has_pair::<ExclusiveRel>(e, obj_a));
    assert!(world.has_pair_id(e, rel_a, obj_a) && world.has_pair_id(e, rel_b, obj_a));
}

#[test]
// Flecs: Pairs.c, Pairs_add_pair_to_entity_w_exclusive_pair
fn add_pair_to_entity_w_exclusive_pair() {
    let mut world = World::new();
    let [obj_a, rel_a, rel_b] = empties(&mut world);
    let e = world.spawn_empty().id();
    world.add_pair::<ChildOf>(e, obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a));
    world.add_pair_id(e, rel_a, obj_a);
    assert!(world.has_pair_id(e, rel_a, obj_a));
    world.add_pair_id(e, rel_b, obj_a);
    assert!(world.has_pair_id(e, rel_b, obj_a));
    assert!(world.has_pair::<ChildOf>(e, obj_a));
}

#[test]
// Flecs: Pairs.c, Pairs_add_existing_exclusive_pair_after_pair
fn add_existing_exclusive_pair_after_pair() {
    let mut world = World::new();
    let [rel_a, rel_b, obj_a, parent] = empties(&mut world);
    let e = world.spawn(ChildOf.pair(parent)).id();
    world.add_pair::<ChildOf>(e, obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a));
    world.add_pair_id(e, rel_a, obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a) && world.has_pair_id(e, rel_a, obj_a));
    world.add_pair::<ChildOf>(e, obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a) && world.has_pair_id(e, rel_a, obj_a));
    world.add_pair_id(e, rel_b, obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a));
    assert!(world.has_pair_id(e, rel_a, obj_a));
    assert!(world.has_pair_id(e, rel_b, obj_a));
    assert!(!world.has_pair::<ChildOf>(e, parent));
}

#[test]
// Flecs: Pairs.c, Pairs_add_remove_exclusive_property
fn add_remove_exclusive_property() {
    let mut world = World::new();
    let [rel, tgt_1, tgt_2, e] = empties(&mut world);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT);
    world.add_pair_id(e, rel, tgt_1);
    assert!(world.has_pair_id(e, rel, tgt_1));
    world.add_pair_id(e, rel, tgt_2);
    assert!(world.has_pair_id(e, rel, tgt_2));
    assert!(world.has_pair_id(e, rel, tgt_1));
}

#[test]
// Flecs: Pairs.c, Pairs_relationship_with_exclusive
fn relationship_with_exclusive() {
    let mut world = World::new();
    let [rel, tgt_a, tgt_b, e] = empties(&mut world);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    world.add_pair_id(e, rel, tgt_a);
    assert!(world.has_pair_id(e, rel, tgt_a));
    assert!(!world.has_pair_id(e, rel, tgt_b));
    world.add_pair_id(e, rel, tgt_b);
    assert!(!world.has_pair_id(e, rel, tgt_a));
    assert!(world.has_pair_id(e, rel, tgt_b));
}

// ===== ranges, wildcards ================================================================

#[test]
// Flecs: Pairs.c, Pairs_65k_relations
fn _65k_relations() {
    let mut world = World::new();
    world.set_entity_range(65536..u32::MAX);
    let [rel, obj] = empties(&mut world);
    assert!(rel.index() >= 65536);
    let e = world.spawn_empty().id();
    world.add_pair_id(e, rel, obj);
    assert!(world.has_pair_id(e, rel, obj));
    assert!(world.has_id(e, Id::pair(rel, obj)));
}

fn four_pairs(world: &mut World) -> (Entity, [Entity; 4]) {
    let [rel_a, rel_b, obj_a, obj_b] = empties(world);
    let e = world.spawn_empty().id();
    for (r, o) in [(rel_a, obj_a), (rel_a, obj_b), (rel_b, obj_a), (rel_b, obj_b)] {
        world.add_pair_id(e, r, o);
        assert!(world.has_pair_id(e, r, o));
    }
    (e, [rel_a, rel_b, obj_a, obj_b])
}

#[test]
// Flecs: Pairs.c, Pairs_remove_wildcard
fn remove_wildcard() {
    let mut world = World::new();
    let (e, [rel_a, rel_b, obj_a, obj_b]) = four_pairs(&mut world);
    assert!(world.remove_pair_id(e, rel_a, Entity::WILDCARD));
    assert!(!world.has_pair_id(e, rel_a, obj_a));
    assert!(!world.has_pair_id(e, rel_a, obj_b));
    assert!(world.has_pair_id(e, rel_b, obj_a));
    assert!(world.has_pair_id(e, rel_b, obj_b));
}

#[test]
// Flecs: Pairs.c, Pairs_remove_relation_wildcard
fn remove_relation_wildcard() {
    let mut world = World::new();
    let (e, [rel_a, rel_b, obj_a, obj_b]) = four_pairs(&mut world);
    assert!(world.remove_id(e, Id::pair(Entity::WILDCARD, obj_a)));
    assert!(!world.has_pair_id(e, rel_a, obj_a));
    assert!(world.has_pair_id(e, rel_a, obj_b));
    assert!(!world.has_pair_id(e, rel_b, obj_a));
    assert!(world.has_pair_id(e, rel_b, obj_b));
}

#[test]
// Flecs: Pairs.c, Pairs_remove_wildcard_all
fn remove_wildcard_all() {
    let mut world = World::new();
    let (e, [rel_a, rel_b, obj_a, obj_b]) = four_pairs(&mut world);
    assert!(world.remove_pair_id(e, Entity::WILDCARD, Entity::WILDCARD));
    for (r, o) in [(rel_a, obj_a), (rel_a, obj_b), (rel_b, obj_a), (rel_b, obj_b)] {
        assert!(!world.has_pair_id(e, r, o));
    }
    assert!(world.is_alive(e));
}

#[test]
// Flecs: Pairs.c, Pairs_dont_inherit
fn dont_inherit() {
    // Adapted: Flecs' `(OnInstantiate, DontInherit)` tag is a component with
    // `on_instantiate = "dont_inherit"`; the base is a `Prefab` (only prefab
    // bases give their components here).
    let mut world = World::new();
    let base = world.spawn((Prefab, DontInheritTag, TagA)).id();
    let inst = world.instantiate(base);
    assert!(world.has::<DontInheritTag>(base));
    assert!(!world.has::<DontInheritTag>(inst));
    assert!(world.has::<TagA>(base));
    assert!(world.has::<TagA>(inst));
}

#[test]
// Flecs: Pairs.c, Pairs_has_wildcard_w_pair
fn has_wildcard_w_pair() {
    let mut world = World::new();
    let [rel, obj] = empties(&mut world);
    let e = world.spawn_empty().id();
    world.add_pair_id(e, rel, obj);
    assert!(world.has_id(e, Id::pair(Entity::WILDCARD, Entity::WILDCARD)));
    assert!(world.has_id(e, Id::pair(rel, Entity::WILDCARD)));
    assert!(world.has_id(e, Id::pair(Entity::WILDCARD, obj)));
    assert!(world.has_id(e, Id::pair(rel, obj)));
    // Flecs: `ecs_has_id(e, EcsWildcard)` is false here (a plain `*` matches no
    // pair); dropped: `World::has_id` documents `*` alone as "any id".
}

#[test]
// Flecs: Pairs.c, Pairs_has_pair_wildcard_w_tag
fn has_pair_wildcard_w_tag() {
    let mut world = World::new();
    let [tag] = empties(&mut world);
    let e = world.spawn_empty().id();
    world.add_id(e, tag.id());
    assert!(!world.has_id(e, Id::pair(Entity::WILDCARD, Entity::WILDCARD)));
    assert!(world.has_id(e, tag.id()));
    assert!(world.has_id(e, Entity::WILDCARD.id()));
}

// ===== recycled relationship / target ===================================================

#[test]
// Flecs: Pairs.c, Pairs_set_w_recycled_rel
fn set_w_recycled_rel() {
    let mut world = World::new();
    let dummy = world.spawn_empty().id();
    world.despawn(dummy);
    let rel = world.register_component::<Rel>();
    let [e, tgt] = empties(&mut world);
    world.insert_pair(e, Rel { value: 10 }, tgt);
    assert!(world.has_pair::<Rel>(e, tgt));
    assert!(world.has_pair_id(e, rel, tgt));
    assert_eq!(world.get_pair::<Rel>(e, tgt), Some(&Rel { value: 10 }));
}

#[test]
// Flecs: Pairs.c, Pairs_set_w_recycled_tgt (adapted: the target is a recycled entity)
fn set_w_recycled_tgt() {
    let mut world = World::new();
    let dummy = world.spawn_empty().id();
    world.despawn(dummy);
    let tgt = world.spawn_empty().id();
    assert_eq!(tgt.index(), dummy.index());
    assert_ne!(tgt, dummy);
    let e = world.spawn_empty().id();
    world.insert_pair(e, Rel { value: 10 }, tgt);
    assert!(world.has_pair::<Rel>(e, tgt));
    assert!(!world.has_pair::<Rel>(e, dummy));
    assert_eq!(world.get_pair::<Rel>(e, tgt), Some(&Rel { value: 10 }));
    assert_eq!(world.get_pair::<Rel>(e, dummy), None);
    assert_eq!(world.target::<Rel>(e), Some(tgt));
}

// ===== exclusive trait changed after use (were findings) =================================

#[test]
// Flecs: Pairs.c, Pairs_relationship_with_exclusive (variant: the trait is set after
// the relationship was used once; Flecs refuses a trait change while in use, else applies it)
fn relationship_with_exclusive_after_use() {
    let mut world = World::new();
    let [rel, tgt_a, tgt_b, e1, e] = empties(&mut world);
    // Use (rel, *) once, then let no entity hold it.
    world.add_pair_id(e1, rel, tgt_a);
    world.add_pair_id(e1, rel, tgt_b);
    world.remove_pair_id(e1, rel, Entity::WILDCARD);
    // "The traits apply to pairs added from now on" (World::set_relationship_traits).
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    world.add_pair_id(e, rel, tgt_a);
    world.add_pair_id(e, rel, tgt_b);
    assert!(world.has_pair_id(e, rel, tgt_b));
    assert!(!world.has_pair_id(e, rel, tgt_a), "exclusive: (rel, tgt_b) replaces (rel, tgt_a)");
}

#[test]
// Flecs: Pairs.c, Pairs_add_remove_exclusive_property (variant: exclusive is removed
// after the relationship was used)
fn add_remove_exclusive_property_after_use() {
    let mut world = World::new();
    let [rel, tgt_1, tgt_2, e1, e] = empties(&mut world);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    world.add_pair_id(e1, rel, tgt_1);
    world.add_pair_id(e1, rel, tgt_2);
    world.despawn(e1);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT);
    world.add_pair_id(e, rel, tgt_1);
    world.add_pair_id(e, rel, tgt_2);
    assert!(world.has_pair_id(e, rel, tgt_2));
    assert!(world.has_pair_id(e, rel, tgt_1), "not exclusive any more: both pairs");
}
