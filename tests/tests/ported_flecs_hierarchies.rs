//! Tests ported from Flecs' C test suites for hierarchies (`Hierarchies.c`), cleanup
//! traits (`OnDelete.c`, exclusive and acyclic parts of `Pairs.c`) and observers on
//! those operations (`Observer.c`, `Trigger.c`, `TriggerOnRemove.c`), rewritten
//! against API.md's public API ("Relationships", "Observers and events", "names").
//!
//! Flecs' runtime relationships (`ecs_new` + `ecs_add_pair(r, EcsOnDelete, ..)`)
//! become entities with `World::set_relationship_traits`; `ecs_delete_with` and
//! `ecs_remove_all` become despawns or removals of each holder; `ecs_clear` becomes
//! `remove_id(e, *)`; Flecs' `.` path separator is `::` here.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::Id;
use ecs::prelude::*;
use ecs::world::{NameError, PairError};
use ecs_tests::{DropLog, panic_message};

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

/// A component that stores the entity it was set on (Flecs' `Self`).
#[derive(Component, Debug, PartialEq)]
struct SelfRef(Entity);

/// Default traits: both cleanup policies remove.
#[derive(Relationship, Debug)]
struct Likes;

/// A second default relationship.
#[derive(Relationship, Debug)]
struct Hates;

/// A data relationship (default cleanup).
#[derive(Relationship, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

/// Holders are deleted with their target (Flecs' `(OnDeleteTarget, Delete)`).
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct BoundTo;

/// A data relationship whose holders are deleted with their target.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(on_delete_target = "delete")]
struct Anchored {
    weight: u32,
}

/// Exclusive, holders deleted with the target.
#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

/// Exclusive, default cleanup.
#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct Wields;

/// A target cannot be despawned while it is guarded.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Guards;

/// Two independent acyclic relationships.
#[derive(Relationship, Debug)]
#[relationship(acyclic)]
struct DependsOn;

#[derive(Relationship, Debug)]
#[relationship(acyclic)]
struct Requires;

#[derive(Resource, Default)]
struct Log(Vec<String>);

/// Rows recorded from inside an observer: (entity, its parent, parent alive, children left).
type OrderLog = Arc<Mutex<Vec<(Entity, Option<Entity>, bool, usize)>>>;

// ----- helpers ---------------------------------------------------------------------------

fn empties<const N: usize>(world: &mut World) -> [Entity; N] {
    core::array::from_fn(|_| world.spawn_empty().id())
}

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

/// A runtime relationship entity with `traits` (Flecs: `ecs_new` + trait pairs).
fn relationship(world: &mut World, traits: RelationshipTraits) -> Entity {
    let r = world.spawn_empty().id();
    world.set_relationship_traits(r, traits);
    r
}

fn named(world: &mut World, name: &str) -> Entity {
    world.spawn(Name::new(name.to_owned())).id()
}

fn named_child(world: &mut World, name: &str, parent: Entity) -> Entity {
    world.spawn((Name::new(name.to_owned()), ChildOf.pair(parent))).id()
}

fn id_count(world: &World, entity: Entity) -> usize {
    world.ids_of(entity).expect("alive").len()
}

// ===== Hierarchies ============================================================================

/// Hierarchies_get_parent / tree_iter_empty / get_child_count_no_children: a root has no parent and no children.
#[test]
fn hierarchy_root_has_no_parent_and_no_children() {
    let mut world = World::new();
    let root = named(&mut world, "Parent");
    assert_eq!(world.parent(root), None);
    assert_eq!(world.target::<ChildOf>(root), None);
    assert_eq!(world.children(root).count(), 0);
    assert_eq!(world.query::<Entity>().with_pair::<ChildOf>(root).iter(&world).count(), 0);
    assert_eq!(world.ancestors(root).count(), 0);
}

/// Hierarchies_get_parent_from_nested(_2): the parent of a nested child is its direct parent.
#[test]
fn hierarchy_parent_of_a_nested_child_is_its_direct_parent() {
    let mut world = World::new();
    let scope = named(&mut world, "Scope");
    let child_scope = named_child(&mut world, "ChildScope", scope);
    let child = named_child(&mut world, "Child", child_scope);
    assert_eq!(world.lookup("Scope::ChildScope::Child"), Some(child));
    assert_eq!(world.parent(child), Some(child_scope));
    assert_eq!(world.parent(child_scope), Some(scope));
    assert_eq!(world.ancestors(child).collect::<Vec<_>>(), vec![child_scope, scope]);
}

/// Hierarchies_get_target_negative_index: a target lookup only sees pairs of the asked relationship.
#[test]
fn hierarchy_target_lookup_only_sees_its_relationship() {
    let mut world = World::new();
    let [t0, t1, t2, parent] = empties(&mut world);
    let child = world.spawn(ChildOf.pair(parent)).id();
    assert_eq!(world.target::<Likes>(child), None);
    let e = world.spawn_empty().add_pair::<Hates>(t0).add_pair::<Likes>(t1).insert_pair(Eats { amount: 1 }, t2).id();
    assert_eq!(world.target::<Likes>(e), Some(t1));
    assert_eq!(world.target::<Hates>(e), Some(t0));
    assert_eq!(world.target::<Eats>(e), Some(t2));
    assert_eq!(world.target::<ChildOf>(e), None);
}

/// Hierarchies_tree_iter_1_table / get_child_count: every child in one archetype is listed once.
#[test]
fn hierarchy_children_in_one_archetype_are_all_listed() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let kids: Vec<Entity> = ["Child1", "Child2", "Child3"].iter().map(|n| named_child(&mut world, n, parent)).collect();
    let listed: Vec<Entity> = world.children(parent).collect();
    assert_eq!(listed.len(), 3, "each child once: {listed:?}");
    assert_eq!(set(listed), set(kids.iter().copied()));
    assert_eq!(world.query::<Entity>().with_pair::<ChildOf>(parent).iter(&world).count(), 3);
}

/// Hierarchies_tree_iter_2_tables / get_child_count_2_tables: children spread over archetypes are all listed.
#[test]
fn hierarchy_children_across_archetypes_are_all_listed() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn(ChildOf.pair(parent)).id();
    let c3 = world.spawn((ChildOf.pair(parent), Position::default())).id();
    let c4 = world.spawn((ChildOf.pair(parent), Position::default())).id();
    let c5 = world.spawn((ChildOf.pair(parent), Velocity::default())).id();
    let listed: Vec<Entity> = world.children(parent).collect();
    assert_eq!(listed.len(), 5, "{listed:?}");
    assert_eq!(set(listed), set([c1, c2, c3, c4, c5]));
    assert_eq!(world.query::<Entity>().with_pair::<ChildOf>(parent).iter(&world).count(), 5);
    assert_eq!(world.query::<&Position>().with_pair::<ChildOf>(parent).iter(&world).count(), 2);
}

/// Hierarchies_delete_2_children_different_type / delete_tree_empty_table: children in any archetype die.
#[test]
fn hierarchy_despawning_a_parent_deletes_children_of_every_archetype() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let c1 = world.spawn((ChildOf.pair(parent), Position { x: 1.0, y: 2.0 })).id();
    let c2 = world.spawn((ChildOf.pair(parent), Velocity::default())).id();
    let c3 = world.spawn(ChildOf.pair(parent)).id();
    let bystander = world.spawn(Position::default()).id();
    assert!(world.despawn(parent));
    for e in [parent, c1, c2, c3] {
        assert!(!world.is_alive(e), "{e:?} should be dead");
    }
    assert!(world.is_alive(bystander));
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

/// Trigger_on_remove_tree: despawning the root of a ten-node tree fires OnRemove once per node holding it.
#[test]
fn hierarchy_despawning_a_tree_fires_on_remove_for_each_node() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, SelfRef>, q: Query<&SelfRef>, mut log: ResMut<Log>| {
        let stored = q.get(t.entity()).map(|s| s.0).ok();
        assert_eq!(stored, Some(t.entity()), "the value is still readable and belongs to the entity");
        log.0.push(format!("{:?}", t.entity()));
    });
    let root = world.spawn_empty().id();
    let mut nodes = Vec::new();
    let e1 = world.spawn(ChildOf.pair(root)).id();
    let e2 = world.spawn(ChildOf.pair(e1)).id();
    let e3 = world.spawn(ChildOf.pair(e1)).id();
    let e4 = world.spawn(ChildOf.pair(e2)).id();
    let e5 = world.spawn(ChildOf.pair(e2)).id();
    let e6 = world.spawn(ChildOf.pair(root)).id();
    let e7 = world.spawn(ChildOf.pair(e6)).id();
    let e8 = world.spawn(ChildOf.pair(e6)).id();
    let e9 = world.spawn(ChildOf.pair(e7)).id();
    let e10 = world.spawn(ChildOf.pair(e7)).id();
    nodes.extend([e1, e2, e3, e4, e5, e6, e7, e8, e9, e10]);
    for &e in &nodes {
        world.insert(e, SelfRef(e));
    }
    world.despawn(root);
    let log = take_log(&mut world);
    assert_eq!(log.len(), 10, "{log:?}");
    assert_eq!(set(log), set(nodes.iter().map(|e| format!("{e:?}"))));
    assert!(nodes.iter().all(|&e| !world.is_alive(e)));
}

/// Hierarchies_delete_tree_w_onremove: OnRemove fires for the parent's and each child's component.
#[test]
fn hierarchy_despawning_a_tree_fires_on_remove_for_parent_and_children() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push(format!("{:?}", t.entity())));
    let parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn(ChildOf.pair(parent)).id();
    for e in [parent, c1, c2] {
        world.insert(e, Position::default());
    }
    world.despawn(parent);
    assert!(!world.is_alive(parent) && !world.is_alive(c1) && !world.is_alive(c2));
    let log = take_log(&mut world);
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(set(log), set([parent, c1, c2].map(|e| format!("{e:?}"))));
}

/// Hierarchies_delete_tree_w_dtor: every component value of a deleted tree is dropped exactly once.
#[test]
fn hierarchy_despawning_a_tree_drops_each_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(1)).id();
    let c1 = world.spawn((ChildOf.pair(parent), log.table(2))).id();
    let c2 = world.spawn((ChildOf.pair(parent), log.table(3))).id();
    world.spawn((ChildOf.pair(c1), log.table(4)));
    world.spawn(log.table(5));
    world.despawn(parent);
    assert!(!world.is_alive(c2));
    log.assert_dropped_once([1, 2, 3, 4]);
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 5]);
}

/// Hierarchies_scope_iter_after_delete_tree / add_child_after_delete_tree / delete_tree_recreate.
#[test]
fn hierarchy_children_are_empty_after_deleting_them_and_new_children_can_follow() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    assert!(world.has_pair::<ChildOf>(child, parent));
    let children: Vec<Entity> = world.children(parent).collect();
    for c in children {
        world.despawn(c);
    }
    assert_eq!(world.children(parent).count(), 0);
    world.spawn(Position::default());
    let child2 = world.spawn(ChildOf.pair(parent)).id();
    assert!(world.has_pair::<ChildOf>(child2, parent));
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![child2]);
    world.check_invariants();
}

/// Hierarchies_add_child_to_recycled_parent / get_type_after_recycled_parent_add: a recycled index is a new parent.
#[test]
fn hierarchy_a_recycled_parent_index_starts_with_no_children() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.despawn(parent);
    assert!(!world.is_alive(parent) && !world.is_alive(child));
    let new_parent = (0..4)
        .map(|_| world.spawn(Position::default()).id())
        .find(|e| e.index() == parent.index())
        .expect("the dead parent's index is recycled");
    assert_ne!(new_parent, parent, "a recycled id has a new generation");
    assert_eq!(world.children(new_parent).count(), 0);
    let new_child = world.spawn(ChildOf.pair(new_parent)).id();
    assert!(world.is_alive(new_child));
    assert!(world.has_pair::<ChildOf>(new_child, new_parent));
    assert!(!world.has_pair::<ChildOf>(new_child, parent), "a stale parent handle does not match");
    assert_eq!(world.children(parent).count(), 0, "a stale parent handle has no children");
    assert_eq!(world.get::<Position>(new_parent), Some(&Position::default()));
    world.check_invariants();
}

/// Flecs deep hierarchies: despawning the root of a 1000-level chain deletes every level.
#[test]
fn hierarchy_despawning_a_thousand_level_chain_deletes_every_level() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mut chain = vec![root];
    for _ in 0..1000 {
        let last = *chain.last().unwrap();
        chain.push(world.spawn(ChildOf.pair(last)).id());
    }
    assert_eq!(world.descendants(root).count(), 1000);
    assert_eq!(world.ancestors(*chain.last().unwrap()).count(), 1000);
    world.despawn(root);
    assert!(chain.iter().all(|&e| !world.is_alive(e)));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// Hierarchies_path_depth_0/1/2 and lookup_depth_0/1/2: paths and lookups agree at every depth.
#[test]
fn hierarchy_path_and_lookup_at_depths_zero_one_two() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let child = named_child(&mut world, "Child", parent);
    let grand_child = named_child(&mut world, "GrandChild", child);
    assert_eq!(world.path(parent).as_deref(), Some("Parent"));
    assert_eq!(world.path(child).as_deref(), Some("Parent::Child"));
    assert_eq!(world.path(grand_child).as_deref(), Some("Parent::Child::GrandChild"));
    assert_eq!(world.lookup("Parent"), Some(parent));
    assert_eq!(world.lookup("Parent::Child"), Some(child));
    assert_eq!(world.lookup("Parent::Child::GrandChild"), Some(grand_child));
    assert_eq!(world.lookup_child(parent, "Child"), Some(child));
    assert_eq!(world.lookup_child(child, "GrandChild"), Some(grand_child));
    assert_eq!(world.lookup_child(parent, "GrandChild"), None, "lookup_child looks one level down");
}

/// Hierarchies_long_name_depth_0/1/2: long names work in paths and lookups.
#[test]
fn hierarchy_long_names_work_in_paths_and_lookups() {
    let mut world = World::new();
    let a = "a".repeat(100);
    let b = "b".repeat(150);
    let c = "c".repeat(200);
    let ea = named(&mut world, &a);
    let eb = named_child(&mut world, &b, ea);
    let ec = named_child(&mut world, &c, eb);
    let path = format!("{a}::{b}::{c}");
    assert_eq!(world.path(ec).as_deref(), Some(path.as_str()));
    assert_eq!(world.lookup(&path), Some(ec));
    assert_eq!(world.lookup(&format!("{a}::{b}")), Some(eb));
    assert_eq!(world.lookup(&a), Some(ea));
}

/// Hierarchies_lookup_after_root_to_parent_move: adding a parent changes the path.
#[test]
fn hierarchy_lookup_after_root_to_parent_move() {
    let mut world = World::new();
    let p = named(&mut world, "Parent");
    let c = named(&mut world, "Child");
    assert_eq!(world.path(c).as_deref(), Some("Child"));
    assert_eq!(world.lookup("Child"), Some(c));
    world.entity_mut(c).add_pair::<ChildOf>(p);
    assert_eq!(world.get::<Name>(c), Some(&Name::new("Child")));
    assert_eq!(world.lookup("Parent::Child"), Some(c));
    assert_eq!(world.path(c).as_deref(), Some("Parent::Child"));
}

/// Hierarchies_lookup_after_parent_to_root_move: removing the parent makes the child a named root.
#[test]
fn hierarchy_lookup_after_parent_to_root_move() {
    let mut world = World::new();
    let p = named(&mut world, "Parent");
    let c = named_child(&mut world, "Child", p);
    assert_eq!(world.lookup("Parent::Child"), Some(c));
    world.entity_mut(c).remove_pair::<ChildOf>(p);
    assert_eq!(world.get::<Name>(c), Some(&Name::new("Child")));
    assert_eq!(world.lookup("Child"), Some(c));
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.path(c).as_deref(), Some("Child"));
    assert_eq!(world.lookup_child(p, "Child"), None);
}

/// Hierarchies_lookup_after_parent_to_parent_move: reparenting moves the paths of the whole subtree.
#[test]
fn hierarchy_lookup_after_parent_to_parent_move_moves_the_subtree() {
    let mut world = World::new();
    let p = named(&mut world, "Parent");
    let p2 = named(&mut world, "Parent2");
    let c = named_child(&mut world, "Child", p);
    let gc = named_child(&mut world, "GrandChild", c);
    assert_eq!(world.lookup("Parent2::Child"), None);
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.lookup("Parent::Child::GrandChild"), None);
    assert_eq!(world.lookup("Parent2::Child"), Some(c));
    assert_eq!(world.lookup("Parent2::Child::GrandChild"), Some(gc));
    assert_eq!(world.path(c).as_deref(), Some("Parent2::Child"));
    assert_eq!(world.path(gc).as_deref(), Some("Parent2::Child::GrandChild"));
    assert_eq!(world.ancestors(gc).collect::<Vec<_>>(), vec![c, p2]);
}

/// Hierarchies_lookup_after_clear_from_root / _from_parent: clearing every id forgets the name and the parent.
#[test]
fn hierarchy_lookup_after_clearing_an_entity() {
    let mut world = World::new();
    let root_child = named(&mut world, "Child");
    assert!(world.remove_id(root_child, Entity::WILDCARD.id()));
    assert_eq!(world.get::<Name>(root_child), None);
    assert_eq!(world.lookup("Child"), None);
    assert!(world.is_alive(root_child));

    let p = named(&mut world, "Parent");
    let c = named_child(&mut world, "Child", p);
    assert!(world.remove_id(c, Entity::WILDCARD.id()));
    assert_eq!(world.get::<Name>(c), None);
    assert_eq!(world.parent(c), None);
    assert_eq!(world.lookup("Child"), None);
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.path(c), None);
    assert_eq!(world.children(p).count(), 0);
    assert!(world.is_alive(c));
    world.check_invariants();
}

/// Hierarchies_lookup_after_delete_from_root / _from_parent: a despawned entity is no longer found.
#[test]
fn hierarchy_lookup_after_deleting_an_entity() {
    let mut world = World::new();
    let root = named(&mut world, "Child");
    world.despawn(root);
    assert_eq!(world.lookup("Child"), None);
    let p = named(&mut world, "Parent");
    let c = named_child(&mut world, "Child", p);
    world.despawn(c);
    assert_eq!(world.lookup("Child"), None);
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.lookup_child(p, "Child"), None);
    assert_eq!(world.lookup("Parent"), Some(p));
}

/// Hierarchies_defer_batch_remove_name_w_add_childof: a deferred clear then parent leaves an unnamed child.
#[test]
fn hierarchy_deferred_clear_then_add_parent_leaves_an_unnamed_child() {
    let mut world = World::new();
    let e = named(&mut world, "e");
    assert_eq!(world.lookup("e"), Some(e));
    let parent = world.spawn_empty().id();
    world.run_system_once(move |mut commands: Commands| {
        commands
            .entity(e)
            .queue(|world: &mut World, entity: Entity| {
                world.remove_id(entity, Entity::WILDCARD.id());
            })
            .add_pair::<ChildOf>(parent);
    });
    assert_eq!(world.lookup("e"), None);
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.get::<Name>(e), None);
}

/// Hierarchies_defer_batch_remove_childof_w_add_name: a deferred clear then name leaves a named root.
#[test]
fn hierarchy_deferred_clear_then_name_leaves_a_named_root() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands
            .entity(e)
            .queue(|world: &mut World, entity: Entity| {
                world.remove_id(entity, Entity::WILDCARD.id());
            })
            .insert(Name::new("e"));
    });
    assert_eq!(world.get::<Name>(e), Some(&Name::new("e")));
    assert_eq!(world.lookup("e"), Some(e));
    assert!(!world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.path(e).as_deref(), Some("e"));
}

/// Hierarchies_defer_batch_remove_add_childof_same_pair_named: removing and re-adding a parent keeps lookups.
#[test]
fn hierarchy_deferred_remove_and_readd_of_the_same_parent_keeps_named_children() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let c1 = named_child(&mut world, "c1", parent);
    let c2 = named_child(&mut world, "c2", parent);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(c1).remove_pair::<ChildOf>(parent).add_pair::<ChildOf>(parent);
    });
    assert!(world.has_pair::<ChildOf>(c1, parent));
    assert_eq!(world.get::<Name>(c1), Some(&Name::new("c1")));
    assert_eq!(world.lookup_child(parent, "c1"), Some(c1));
    assert_eq!(world.lookup_child(parent, "c2"), Some(c2));
    assert_eq!(set(world.children(parent)), set([c1, c2]));
    world.check_invariants();
}

/// Name uniqueness among siblings: reparenting into a parent that has a same-named child is refused.
#[test]
fn names_reparenting_into_a_same_named_sibling_is_refused_and_keeps_the_old_parent() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    let b = named(&mut world, "b");
    let moving = named_child(&mut world, "dock", a);
    let taken = named_child(&mut world, "dock", b);
    let error = world.try_add_pair::<ChildOf>(moving, b).unwrap_err();
    assert_eq!(error, PairError::NameTaken(NameError::Taken { entity: moving, name: "dock".into(), sibling: taken }));
    let message = panic_message(|| world.entity_mut(moving).add_pair::<ChildOf>(b).id());
    assert!(message.contains(&format!("{moving:?}")) && message.contains(&format!("{taken:?}")), "{message}");
    assert_eq!(world.parent(moving), Some(a), "the old parent is kept");
    assert_eq!(world.children(b).collect::<Vec<_>>(), vec![taken]);
    assert_eq!(world.lookup("a::dock"), Some(moving));
    assert_eq!(world.lookup("b::dock"), Some(taken));
    world.check_invariants();
}

/// Name uniqueness among siblings: the name of a despawned sibling is free again.
#[test]
fn names_a_despawned_siblings_name_can_be_reused() {
    let mut world = World::new();
    let station = named(&mut world, "station");
    let old = named_child(&mut world, "dock", station);
    world.despawn(old);
    let new = named_child(&mut world, "dock", station);
    assert_eq!(world.lookup("station::dock"), Some(new));
    assert_eq!(world.lookup_child(station, "dock"), Some(new));
    // Renaming frees the old name too.
    world.set_name(new, "pier").unwrap();
    let third = named_child(&mut world, "dock", station);
    assert_eq!(world.lookup("station::dock"), Some(third));
    assert_eq!(world.lookup("station::pier"), Some(new));
}

/// Name uniqueness is among siblings only: a child may share its parent's (or grandparent's) name.
#[test]
fn names_a_child_may_share_its_parents_name() {
    let mut world = World::new();
    let outer = named(&mut world, "node");
    let inner = named_child(&mut world, "node", outer);
    let innermost = named_child(&mut world, "node", inner);
    assert_eq!(world.lookup("node"), Some(outer));
    assert_eq!(world.lookup("node::node"), Some(inner));
    assert_eq!(world.lookup("node::node::node"), Some(innermost));
    assert_eq!(world.path(innermost).as_deref(), Some("node::node::node"));
}

// ===== OnDelete: the relationship or id entity is despawned ==================================

/// OnDelete_id_default / id_remove / id_remove_no_instances: a despawned plain id leaves its holders.
#[test]
fn on_delete_plain_id_default_removes_it_from_holders() {
    let mut world = World::new();
    let [c, e] = empties(&mut world);
    world.add_id(e, c.id());
    assert!(world.has_id(e, c.id()));
    assert!(world.despawn(c));
    assert!(!world.is_alive(c));
    assert!(world.is_alive(e));
    assert!(!world.has_id(e, c.id()));
    assert_eq!(id_count(&world, e), 0);

    let unused = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Remove));
    assert!(world.despawn(unused), "an unused id with remove despawns");
    world.check_invariants();
}

/// OnDelete_id_delete / id_delete_no_instances: a despawned id with on_delete = delete deletes its holders.
#[test]
fn on_delete_plain_id_with_delete_deletes_holders() {
    let mut world = World::new();
    let c = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let [e, other] = empties(&mut world);
    world.add_id(e, c.id());
    world.despawn(c);
    assert!(!world.is_alive(c));
    assert!(!world.is_alive(e));
    assert!(world.is_alive(other));

    let unused = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    assert!(world.despawn(unused));
    assert!(!world.is_alive(unused));
}

/// OnDelete_relation_default / remove_2_relations: a despawned relationship leaves holders and targets.
#[test]
fn on_delete_relationship_default_removes_pairs_and_keeps_targets() {
    let mut world = World::new();
    let [r, o1, o2, e] = empties(&mut world);
    world.add_pair_id(e, r, o1);
    world.add_pair_id(e, r, o2);
    assert!(world.has_pair_id(e, r, o1) && world.has_pair_id(e, r, o2));
    world.despawn(r);
    assert!(!world.is_alive(r));
    assert!(world.is_alive(o1) && world.is_alive(o2) && world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete_relation_delete: a despawned relationship with on_delete = delete deletes holders, not targets.
#[test]
fn on_delete_relationship_delete_deletes_holders_and_keeps_targets() {
    let mut world = World::new();
    let r = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let [o, e, f] = empties(&mut world);
    world.add_pair_id(e, r, o);
    world.add_pair_id(f, r, o);
    let child_of_e = world.spawn(ChildOf.pair(e)).id();
    world.despawn(r);
    assert!(world.is_alive(o));
    assert!(!world.is_alive(e) && !world.is_alive(f));
    assert!(!world.is_alive(child_of_e), "a deleted holder takes its children");
}

/// OnDelete_remove_id_and_relation: a relationship used as an id and in pairs is removed in both forms.
#[test]
fn on_delete_relationship_used_as_id_and_in_pairs_is_removed_in_both_forms() {
    let mut world = World::new();
    let [r, o, e] = empties(&mut world);
    world.add_id(e, r.id());
    world.add_pair_id(e, r, o);
    world.insert(e, Position { x: 3.0, y: 4.0 });
    world.despawn(r);
    assert!(world.is_alive(e));
    assert_eq!(world.ids_of(e).unwrap().to_vec(), vec![world.component_id::<Position>().unwrap().id()]);
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 3.0, y: 4.0 }));
}

/// OnDelete_remove_2_comps(_to_existing_table): removing a despawned id keeps the holder's other values.
#[test]
fn on_delete_removing_a_plain_id_keeps_other_values() {
    let mut world = World::new();
    let c = world.spawn_empty().id();
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    world.add_id(e, c.id());
    let e2 = world.spawn(Position { x: 20.0, y: 30.0 }).id();
    let e3 = world.spawn(Position { x: 40.0, y: 50.0 }).id();
    world.despawn(c);
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 10.0, y: 20.0 }));
    assert_eq!(world.get::<Position>(e2), Some(&Position { x: 20.0, y: 30.0 }));
    assert_eq!(world.get::<Position>(e3), Some(&Position { x: 40.0, y: 50.0 }));
    assert_eq!(world.entity(e).archetype(), world.entity(e2).archetype(), "e moved into the existing archetype");
    world.check_invariants();
}

// ===== OnDeleteTarget: the target is despawned ==================================================

/// OnDelete_object_mixed: each relationship's own on_delete_target policy applies to its holders.
#[test]
fn on_delete_target_mixed_policies_apply_per_relationship() {
    let mut world = World::new();
    let r1 = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
    let [t1, t2, r2, o] = empties(&mut world);
    let e1 = world.spawn_empty().add_pair_id(r1, o).id();
    world.add_id(e1, t1.id());
    let e2 = world.spawn_empty().add_pair_id(r2, o).id();
    world.add_id(e2, t1.id());
    let e3 = world.spawn_empty().add_pair_id(r1, o).id();
    world.add_id(e3, t2.id());
    let e4 = world.spawn_empty().add_pair_id(r2, o).id();
    world.add_id(e4, t2.id());
    world.despawn(o);
    assert!(world.is_alive(r1) && world.is_alive(r2));
    assert!(!world.is_alive(o));
    assert!(!world.is_alive(e1) && !world.is_alive(e3));
    assert!(world.is_alive(e2) && world.is_alive(e4));
    assert_eq!(world.ids_of(e2).unwrap().to_vec(), vec![t1.id()]);
    assert_eq!(world.ids_of(e4).unwrap().to_vec(), vec![t2.id()]);
    world.check_invariants();
}

/// OnDelete_remove_object_w_50_relations(_3_tables): a dead target leaves holders of fifty relationships.
#[test]
fn on_delete_target_removes_pairs_of_fifty_relationships() {
    let mut world = World::new();
    let rels: Vec<Entity> = (0..50).map(|_| world.spawn_empty().id()).collect();
    let o = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    let tagged: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
    world.insert(tagged[0], TagA);
    world.insert(tagged[1], TagB);
    world.insert(tagged[2], (TagA, TagB));
    for &r in &rels {
        world.add_pair_id(e, r, o);
        for &t in &tagged {
            world.add_pair_id(t, r, o);
        }
    }
    assert_eq!(id_count(&world, e), 50);
    world.despawn(o);
    assert!(world.is_alive(e));
    assert_eq!(id_count(&world, e), 0);
    assert!(rels.iter().all(|&r| world.is_alive(r)));
    assert!(world.has::<TagA>(tagged[0]) && world.has::<TagB>(tagged[1]));
    assert!(world.has::<TagA>(tagged[2]) && world.has::<TagB>(tagged[2]));
    assert_eq!(id_count(&world, tagged[2]), 2);
    world.check_invariants();
}

/// OnDelete_remove_object_w_3_relations_interleaved: only pairs to the dead target go.
#[test]
fn on_delete_target_keeps_pairs_to_other_targets() {
    let mut world = World::new();
    let [r1, r2, r3, t1, t2, e] = empties(&mut world);
    for t in [t1, t2] {
        for r in [r1, r2, r3] {
            world.add_pair_id(e, r, t);
        }
    }
    world.despawn(t1);
    assert!(world.is_alive(r1) && world.is_alive(r2) && world.is_alive(r3) && world.is_alive(t2));
    for r in [r1, r2, r3] {
        assert!(!world.has_pair_id(e, r, t1));
        assert!(world.has_pair_id(e, r, t2));
    }
}

/// OnDelete_remove_target_no_intermediate_table: removing two pairs to one dead target is one move.
#[test]
fn on_delete_target_removal_creates_no_intermediate_archetype() {
    let mut world = World::new();
    let t = world.spawn_empty().id();
    let e1 = world.spawn(Tag).add_pair::<Likes>(t).add_pair::<Hates>(t).id();
    let e2 = world.spawn(Tag).id();
    let slots = world.archetypes().len();
    world.despawn(t);
    assert_eq!(world.archetypes().len(), slots, "no archetype was created on the way");
    assert!(world.is_alive(e1) && world.is_alive(e2));
    assert!(!world.has_pair::<Likes>(e1, t) && !world.has_pair::<Hates>(e1, t));
    assert!(world.has::<Tag>(e1) && world.has::<Tag>(e2));
    assert_eq!(world.entity(e1).archetype(), world.entity(e2).archetype());
    world.check_invariants();
}

/// OnDelete_deep_clean_64/256: a 256-long chain of delete pairs is deleted whole.
#[test]
fn on_delete_target_deletes_a_chain_of_256() {
    let mut world = World::new();
    let first = world.spawn_empty().id();
    let mut prev = first;
    let mut chain = Vec::new();
    for _ in 0..256 {
        let e = world.spawn(BoundTo.pair(prev)).id();
        chain.push(e);
        prev = e;
    }
    assert!(chain.iter().all(|&e| world.is_alive(e)));
    world.despawn(first);
    assert!(!world.is_alive(first));
    assert!(chain.iter().all(|&e| !world.is_alive(e)));
    world.check_invariants();
}

/// OnDelete_delete_child_of_delete_with: holders deleted by a delete policy take their children.
#[test]
fn on_delete_target_delete_reaches_the_holders_children() {
    let mut world = World::new();
    let obj = world.spawn_empty().id();
    let holders: Vec<Entity> = (0..3).map(|_| world.spawn(BoundTo.pair(obj)).id()).collect();
    let children: Vec<Entity> = holders.iter().map(|&h| world.spawn(ChildOf.pair(h)).id()).collect();
    let grandchildren: Vec<Entity> = children.iter().map(|&c| world.spawn(ChildOf.pair(c)).id()).collect();
    world.despawn(obj);
    for e in holders.iter().chain(&children).chain(&grandchildren) {
        assert!(!world.is_alive(*e));
    }
    assert_eq!(world.entity_count(), 0);
}

/// OnDelete_on_delete_parent_w_in_use_id_w_remove: a child relationship dies with its parent, holders stay.
#[test]
fn on_delete_parent_deletes_a_child_relationship_whose_holders_lose_the_pair() {
    let mut world = World::new();
    let p = world.spawn(Tag).id();
    let r = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Remove));
    world.add_pair::<ChildOf>(r, p);
    let o = world.spawn(ChildOf.pair(p)).id();
    let e = world.spawn_empty().add_pair_id(r, o).id();
    world.despawn(p);
    assert!(!world.is_alive(p) && !world.is_alive(r) && !world.is_alive(o));
    assert!(world.is_alive(e));
    assert!(!world.has_pair_id(e, r, o));
    assert_eq!(id_count(&world, e), 0);
    world.check_invariants();
}

/// OnDelete_on_delete_parent_w_in_use_id_w_delete: a child delete relationship takes its holders along.
#[test]
fn on_delete_parent_deletes_a_child_relationship_and_its_delete_policy_holders() {
    let mut world = World::new();
    let p = world.spawn(Tag).id();
    let r = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    world.add_pair::<ChildOf>(r, p);
    let o = world.spawn(ChildOf.pair(p)).id();
    let e = world.spawn_empty().add_pair_id(r, o).id();
    world.despawn(p);
    assert!(!world.is_alive(p) && !world.is_alive(r) && !world.is_alive(o));
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// OnDelete_delete_w_low_rel_mixed_cleanup: a holder with a delete and a remove pair to the target dies.
#[test]
fn on_delete_target_delete_wins_over_remove_on_one_holder() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).add_pair::<Likes>(parent).id();
    let fan = world.spawn_empty().add_pair::<Likes>(parent).id();
    world.despawn(parent);
    assert!(!world.is_alive(parent));
    assert!(!world.is_alive(child));
    assert!(world.is_alive(fan) && !world.has_pair::<Likes>(fan, parent));
}

/// OnDelete_stresstest_many_objects_on_delete: repeated relationship deletions leave no archetypes behind.
#[test]
fn on_delete_many_relationship_deletions_leave_no_archetypes_behind() {
    let mut world = World::new();
    world.register_component::<Tag>();
    let rels: Vec<Entity> = (0..20)
        .map(|_| relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete)))
        .collect();
    let archetypes = world.stats().archetypes;
    for &r in &rels {
        let mut holders = Vec::new();
        for _ in 0..20 {
            let o = world.spawn_empty().id();
            let e = world.spawn_empty().add_pair_id(r, o).id();
            world.insert(e, Tag);
            holders.push(e);
        }
        world.despawn(r);
        assert!(holders.iter().all(|&e| !world.is_alive(e)));
    }
    assert_eq!(world.stats().archetypes, archetypes);
    world.check_invariants();
}

/// OnDelete_object_throw refusal: a refused despawn fires no OnRemove or OnDespawn observer.
#[test]
fn on_delete_target_panic_refusal_fires_no_observer() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?}", t.entity()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<Guards>>, mut log: ResMut<Log>| {
        log.0.push(format!("unguard {:?}", t.entity()));
    });
    world.add_observer(|t: Trigger<OnDespawn>, mut log: ResMut<Log>| log.0.push(format!("despawn {:?}", t.entity())));
    let root = world.spawn(Position::default()).id();
    let child = world.spawn((ChildOf.pair(root), Position::default())).id();
    let guard = world.spawn(Guards.pair(child)).id();
    take_log(&mut world);
    let error = world.try_despawn(root).unwrap_err();
    assert_eq!(error.holders, vec![guard]);
    assert_eq!(error.despawned, child);
    assert!(take_log(&mut world).is_empty(), "nothing happened before the refusal");
    assert!(world.is_alive(root) && world.is_alive(child) && world.has_pair::<Guards>(guard, child));
    let message = panic_message(|| world.despawn(root));
    assert!(message.contains("Guards"), "{message}");
    assert!(take_log(&mut world).is_empty());
    world.check_invariants();
}

// ===== Cycles in cleanup =======================================================================

/// OnDelete_cyclic_id_default: two entities used as each other's id, default policy.
#[test]
fn on_delete_cyclic_ids_default_removes_one_side_at_a_time() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    world.add_id(a, b.id());
    world.add_id(b, a.id());
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(b));
    world.check_invariants();
}

/// OnDelete_cyclic_id_delete(_both): two entities used as each other's id with delete die together.
#[test]
fn on_delete_cyclic_ids_with_delete_delete_both() {
    for both in [false, true] {
        let mut world = World::new();
        let a = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
        let b = world.spawn_empty().id();
        if both {
            world.set_relationship_traits(b, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
        }
        world.add_id(a, b.id());
        world.add_id(b, a.id());
        world.despawn(a);
        assert!(!world.is_alive(a), "both = {both}");
        assert!(!world.is_alive(b), "both = {both}");
        world.check_invariants();
    }
}

/// OnDelete_cyclic_relation_default / _delete: relationships holding pairs of each other.
#[test]
fn on_delete_cyclic_relationships_follow_the_despawned_ones_policy() {
    // Default: b only loses its (a, o_a) pair.
    let mut world = World::new();
    let [a, b, o_a, o_b] = empties(&mut world);
    world.add_pair_id(a, b, o_b);
    world.add_pair_id(b, a, o_a);
    world.despawn(a);
    assert!(world.is_alive(b));
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(b) && world.is_alive(o_a) && world.is_alive(o_b));

    // Delete on a: b holds (a, o_a) and dies.
    let mut world = World::new();
    let a = relationship(&mut world, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let [b, o_a, o_b] = empties(&mut world);
    world.add_pair_id(a, b, o_b);
    world.add_pair_id(b, a, o_a);
    world.despawn(a);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert!(world.is_alive(o_a) && world.is_alive(o_b));
    world.check_invariants();
}

/// OnDelete_cyclic_object_default / _remove: two entities targeting each other with a remove relationship.
#[test]
fn on_delete_cyclic_targets_with_remove_keep_the_survivor() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    world.add_pair::<Likes>(a, b);
    world.add_pair::<Likes>(b, a);
    world.despawn(a);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(world.targets::<Likes>(b).count(), 0);
    assert_eq!(id_count(&world, b), 0);
    world.despawn(b);
    assert!(!world.is_alive(b));
}

/// OnDelete_cyclic_overlapping_table: a delete cycle plus an entity targeting both members all die.
#[test]
fn on_delete_cyclic_overlapping_delete_closure_deletes_everything() {
    let mut world = World::new();
    let [a, b, c] = empties(&mut world);
    world.add_pair::<BoundTo>(a, b);
    world.add_pair::<BoundTo>(b, a);
    world.add_pair::<BoundTo>(c, a);
    world.add_pair::<BoundTo>(c, b);
    world.despawn(a);
    assert!(!world.is_alive(a) && !world.is_alive(b) && !world.is_alive(c));
    world.check_invariants();
}

/// OnDelete_cyclic_object_mixed / cyclic_overlapping_new_tables / cyclic_set_empty: remove holders of a cycle survive.
#[test]
fn on_delete_cyclic_delete_closure_keeps_remove_holders() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    world.add_pair::<BoundTo>(a, b);
    world.add_pair::<BoundTo>(b, a);
    world.add_pair::<Likes>(b, b);
    let e = world.spawn(Tag).add_pair::<Likes>(a).add_pair::<Likes>(b).id();
    let f = world.spawn(Tag).add_pair::<Likes>(a).id();
    world.despawn(a);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert!(world.is_alive(e) && world.is_alive(f));
    assert_eq!(world.targets::<Likes>(e).count(), 0);
    assert_eq!(world.targets::<Likes>(f).count(), 0);
    assert!(world.has::<Tag>(e) && world.has::<Tag>(f));
    assert_eq!(world.entity(e).archetype(), world.entity(f).archetype());
    world.check_invariants();
}

/// OnDelete_cyclic_storage_table(_2/_3): a data delete relationship with a self pair and a shared holder.
#[test]
fn on_delete_cyclic_data_relationship_with_a_self_pair_deletes_everything() {
    for remove_one in [false, true] {
        let mut world = World::new();
        let [a, b] = empties(&mut world);
        world.insert_pair(a, Anchored { weight: 1 }, b);
        world.insert(b, Tag);
        world.insert_pair(b, Anchored { weight: 2 }, a);
        world.insert_pair(b, Anchored { weight: 3 }, b);
        let e = world.spawn_empty().insert_pair(Anchored { weight: 4 }, a).insert_pair(Anchored { weight: 5 }, b).id();
        if remove_one {
            world.remove_pair::<Anchored>(e, b);
        }
        world.despawn(a);
        assert!(!world.is_alive(a), "remove_one = {remove_one}");
        assert!(!world.is_alive(b), "remove_one = {remove_one}");
        assert!(!world.is_alive(e), "remove_one = {remove_one}");
        world.check_invariants();
    }
}

// ===== Exclusive relationships =================================================================

/// Pairs_add_exclusive_non_empty_table(_w_pairs): replacement keeps tags and other relationships' pairs.
#[test]
fn exclusive_replacement_keeps_tags_and_other_pairs() {
    let mut world = World::new();
    let [obj_a, obj_b] = empties(&mut world);
    let e = world.spawn((Tag, TagA, TagB, Position { x: 1.0, y: 1.0 })).id();
    world.entity_mut(e).add_pair::<Likes>(obj_a).add_pair::<Hates>(obj_a);
    world.entity_mut(e).add_pair::<Wields>(obj_a);
    assert!(world.has_pair::<Wields>(e, obj_a));
    world.entity_mut(e).add_pair::<Wields>(obj_b);
    assert!(world.has_pair::<Wields>(e, obj_b));
    assert!(!world.has_pair::<Wields>(e, obj_a));
    assert!(world.has_pair::<Likes>(e, obj_a) && world.has_pair::<Hates>(e, obj_a));
    assert!(world.has::<Tag>(e) && world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 1.0 }));
    assert_eq!(world.targets::<Wields>(e).collect::<Vec<_>>(), vec![obj_b]);
}

/// Pairs_add_existing_exclusive_pair_after_pair / add_pair_to_entity_w_exclusive_pair: re-adding the same parent.
#[test]
fn exclusive_readding_the_same_parent_keeps_other_pairs() {
    let mut world = World::new();
    let [parent, obj_a] = empties(&mut world);
    let e = world.spawn(ChildOf.pair(parent)).id();
    world.entity_mut(e).add_pair::<ChildOf>(obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a) && !world.has_pair::<ChildOf>(e, parent));
    world.entity_mut(e).add_pair::<Likes>(obj_a);
    let archetype = world.entity(e).archetype();
    world.entity_mut(e).add_pair::<ChildOf>(obj_a);
    assert_eq!(world.entity(e).archetype(), archetype, "re-adding the same pair moves nothing");
    world.entity_mut(e).add_pair::<Hates>(obj_a);
    assert!(world.has_pair::<ChildOf>(e, obj_a));
    assert!(world.has_pair::<Likes>(e, obj_a));
    assert!(world.has_pair::<Hates>(e, obj_a));
    assert_eq!(world.children(obj_a).collect::<Vec<_>>(), vec![e]);
}

/// Hierarchies_ensure_child_alive_after_deleting_prev_parent for a custom exclusive delete relationship.
#[test]
fn exclusive_replaced_target_no_longer_deletes_the_holder() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    let ship = world.spawn(DockedTo.pair(a)).id();
    world.entity_mut(ship).add_pair::<DockedTo>(b);
    assert_eq!(world.targets::<DockedTo>(ship).collect::<Vec<_>>(), vec![b]);
    world.despawn(a);
    assert!(world.is_alive(ship));
    assert!(world.has_pair::<DockedTo>(ship, b));
    world.despawn(b);
    assert!(!world.is_alive(ship));
}

// ===== Acyclic relationships ====================================================================

/// Acyclic check: closing a cycle through a 100-level ChildOf chain is refused and changes nothing.
#[test]
fn acyclic_cycle_through_a_long_chain_is_refused() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mut last = root;
    for _ in 0..100 {
        last = world.spawn(ChildOf.pair(last)).id();
    }
    let error = world.try_add_pair::<ChildOf>(root, last).unwrap_err();
    assert!(matches!(error, PairError::Cycle { source, target, .. } if source == root && target == last));
    assert_eq!(world.parent(root), None);
    assert_eq!(world.descendants(root).count(), 100);
    // The same for a custom acyclic relationship.
    let nodes: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    for pair in nodes.windows(2) {
        world.add_pair::<DependsOn>(pair[0], pair[1]);
    }
    assert!(matches!(world.try_add_pair::<DependsOn>(nodes[99], nodes[0]), Err(PairError::Cycle { .. })));
    assert!(!world.has_pair::<DependsOn>(nodes[99], nodes[0]));
    world.check_invariants();
}

/// OnDelete_2_acyclic_relations_w_cycle: acyclicity is per relationship, a cycle across two is allowed.
#[test]
fn acyclic_cycle_across_two_relationships_is_allowed_and_cleans_up() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    world.add_pair::<DependsOn>(a, b);
    assert!(world.try_add_pair::<Requires>(b, a).is_ok());
    assert!(world.has_pair::<DependsOn>(a, b) && world.has_pair::<Requires>(b, a));
    world.despawn(a);
    assert!(world.is_alive(b));
    assert!(!world.has_pair::<Requires>(b, a));
    world.check_invariants();
}

/// Acyclic check: a bundle insert that would close a ChildOf cycle is refused.
#[test]
fn acyclic_bundle_insert_closing_a_cycle_is_refused() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(root)).id();
    let grandchild = world.spawn(ChildOf.pair(child)).id();
    let message = panic_message(|| world.insert(root, (Position::default(), ChildOf.pair(grandchild))));
    assert!(message.contains("ChildOf"), "{message}");
    assert_eq!(world.parent(root), None);
    assert!(!world.has_pair::<ChildOf>(root, grandchild));
    assert_eq!(world.parent(grandchild), Some(child));
    world.check_invariants();
}

// ===== Observers on cleanup and pairs ==========================================================

/// Observer_on_add_R_wildcard_after_edge: a (R, *) OnAdd observer registered after the edges were cached.
#[test]
fn observer_on_add_wildcard_pair_fires_after_edges_were_cached() {
    let mut world = log_world();
    let [tgt_a, tgt_b] = empties(&mut world);
    let warm = world.spawn_empty().add_pair::<Likes>(tgt_a).add_pair::<Likes>(tgt_b).id();
    world.remove_pair::<Likes>(warm, tgt_a);
    world.remove_pair::<Likes>(warm, tgt_b);
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let e = world.spawn_empty().id();
    world.add_pair::<Likes>(e, tgt_a);
    assert_eq!(take_log(&mut world), vec![format!("{e:?}->{tgt_a:?}")]);
    world.add_pair::<Likes>(e, tgt_b);
    assert_eq!(take_log(&mut world), vec![format!("{e:?}->{tgt_b:?}")]);
}

/// Observer_on_remove_R_wildcard_after_edge: a (R, *) OnRemove observer reports the exact pair removed.
#[test]
fn observer_on_remove_wildcard_pair_reports_each_exact_pair() {
    let mut world = log_world();
    let [tgt_a, tgt_b] = empties(&mut world);
    let warm = world.spawn_empty().add_pair::<Likes>(tgt_a).add_pair::<Likes>(tgt_b).id();
    world.remove_pair::<Likes>(warm, tgt_a);
    world.remove_pair::<Likes>(warm, tgt_b);
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {:?}", t.entity(), t.ids()));
    });
    let likes = world.component_id::<Likes>().unwrap();
    let e = world.spawn_empty().add_pair::<Likes>(tgt_a).add_pair::<Likes>(tgt_b).id();
    assert!(take_log(&mut world).is_empty());
    world.remove_pair::<Likes>(e, tgt_a);
    assert_eq!(take_log(&mut world), vec![format!("{e:?} {:?}", [Id::pair(likes, tgt_a)])]);
    world.remove_pair::<Likes>(e, tgt_b);
    assert_eq!(take_log(&mut world), vec![format!("{e:?} {:?}", [Id::pair(likes, tgt_b)])]);
}

/// Observer_on_add_2_pairs_w_uni_observer: each new pair fires once and the trigger names that pair.
#[test]
fn observer_pair_trigger_names_the_pair_that_was_added() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.ids()));
    });
    let likes = world.register_component::<Likes>();
    let [tgt_a, tgt_b, tgt_c] = empties(&mut world);
    let e = world.spawn(Tag).id();
    for tgt in [tgt_a, tgt_b, tgt_c] {
        world.add_pair::<Likes>(e, tgt);
        assert_eq!(take_log(&mut world), vec![format!("{:?}", [Id::pair(likes, tgt)])]);
    }
}

/// Pairs_on_remove_pair_on_delete for ChildOf: despawning a parent fires OnRemove (ChildOf, parent) per child.
#[test]
fn observer_on_remove_child_of_fires_for_each_child_of_a_despawned_parent() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<ChildOf>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn((ChildOf.pair(parent), Position::default())).id();
    let gc = world.spawn(ChildOf.pair(c1)).id();
    world.despawn(parent);
    let log = take_log(&mut world);
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(
        set(log),
        set([format!("{c1:?}->{parent:?}"), format!("{c2:?}->{parent:?}"), format!("{gc:?}->{c1:?}")])
    );
}

/// Observer_2_terms_on_remove_on_delete: a two-component OnRemove observer fires once on despawn.
#[test]
fn observer_two_component_on_remove_fires_once_on_despawn() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, (TagA, TagB)>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.insert(e, TagA);
    world.insert(e, TagB);
    assert!(take_log(&mut world).is_empty());
    let parent = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<ChildOf>(parent);
    world.despawn(parent);
    assert_eq!(take_log(&mut world), vec![format!("{e:?}")]);
}

/// TriggerOnRemove_delete_watched: an OnRemove observer reads the value of a deleted parent.
#[test]
fn observer_on_remove_reads_the_value_of_a_despawned_parent() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).ok().copied();
        log.0.push(format!("{p:?}"));
    });
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    world.spawn(ChildOf.pair(e));
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec![format!("{:?}", Some(Position { x: 10.0, y: 20.0 }))]);
}

/// Cleanup removal of a data pair: the OnRemove observer still reads the pair's value.
#[test]
fn observer_on_remove_reads_a_data_pair_removed_by_target_cleanup() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Eats>>, q: Query<Pair<&Eats>>, mut log: ResMut<Log>| {
        let target = t.pair_target().unwrap();
        let amounts: Vec<u32> = q.iter().filter(|(tgt, _)| *tgt == target).map(|(_, eats)| eats.amount).collect();
        log.0.push(format!("{:?} {amounts:?}", t.entity()));
    });
    let [apples, pears] = empties(&mut world);
    let e = world.spawn_empty().insert_pair(Eats { amount: 7 }, apples).insert_pair(Eats { amount: 2 }, pears).id();
    world.despawn(apples);
    assert_eq!(take_log(&mut world), vec![format!("{e:?} [7]")]);
    assert_eq!(world.get_pair::<Eats>(e, apples), None);
    assert_eq!(world.get_pair::<Eats>(e, pears), Some(&Eats { amount: 2 }));
}

/// Flecs deletes a target after its holders' cleanup: OnRemove sees holder and target still alive.
#[test]
fn observer_on_remove_during_target_cleanup_sees_holder_and_target_alive() {
    let seen: Arc<Mutex<Vec<(bool, bool, bool)>>> = Arc::default();
    let mut world = World::new();
    let log = seen.clone();
    world.add_observer(move |t: Trigger<OnRemove, Pair<Likes>>, world: &World| {
        let target = t.pair_target().unwrap();
        let row = (world.is_alive(t.entity()), world.is_alive(target), world.has_pair::<Likes>(t.entity(), target));
        log.lock().unwrap().push(row);
    });
    let [target, holder] = empties(&mut world);
    world.add_pair::<Likes>(holder, target);
    world.despawn(target);
    assert_eq!(*seen.lock().unwrap(), vec![(true, true, true)]);
    assert!(!world.is_alive(target) && world.is_alive(holder));
}

/// OnDelete_delete_self_in_on_remove: an OnRemove observer despawning the target being deleted is harmless.
#[test]
fn observer_despawning_the_dying_target_inside_on_remove_is_harmless() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<BoundTo>>, mut commands: Commands, mut log: ResMut<Log>| {
        commands.entity(t.pair_target().unwrap()).despawn();
        log.0.push("invoked".into());
    });
    let a = world.spawn_empty().id();
    let b = world.spawn(BoundTo.pair(a)).id();
    world.despawn(a);
    assert_eq!(take_log(&mut world), vec!["invoked".to_owned()]);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// OnDelete_delete_nested_in_on_remove: an OnRemove observer despawning a component entity during cleanup.
#[test]
fn observer_despawning_a_component_inside_on_remove_during_cleanup() {
    let mut world = log_world();
    let tag = world.register_component::<Tag>();
    world.add_observer(move |_: Trigger<OnRemove, Pair<BoundTo>>, mut commands: Commands, mut log: ResMut<Log>| {
        commands.entity(tag).despawn();
        log.0.push("invoked".into());
    });
    let a = world.spawn_empty().id();
    let b = world.spawn(BoundTo.pair(a)).id();
    let c = world.spawn(Tag).id();
    world.despawn(a);
    assert_eq!(take_log(&mut world), vec!["invoked".to_owned()]);
    assert!(!world.is_alive(a) && !world.is_alive(b));
    assert!(world.is_alive(c));
    assert!(!world.has::<Tag>(c));
    assert_eq!(id_count(&world, c), 0);
    assert_eq!(world.component_id::<Tag>(), None);
    world.check_invariants();
}

/// Trigger_delete_in_trigger: an OnAdd observer that despawns its entity leaves it dead after spawn.
#[test]
fn observer_despawning_in_on_add_leaves_the_entity_dead() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| commands.entity(t.entity()).despawn());
    let parent = world.spawn_empty().id();
    let e = world.spawn((TagA, TagB, ChildOf.pair(parent))).id();
    assert!(!world.is_alive(e));
    assert_eq!(world.children(parent).count(), 0);
    world.check_invariants();
}

/// Observer_emit_for_recreated_id_after_delete_with: pair observers fire again for pairs recreated after cleanup.
#[test]
fn observer_fires_for_a_pair_recreated_after_its_archetype_was_deleted() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<BoundTo>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let tgt = world.spawn_empty().id();
    let e1 = world.spawn((TagA, BoundTo.pair(tgt))).id();
    take_log(&mut world);
    world.despawn(e1);
    world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
    let e2 = world.spawn(TagA).id();
    world.add_pair::<BoundTo>(e2, tgt);
    assert_eq!(take_log(&mut world), vec![format!("{e2:?}->{tgt:?}")]);
    // The target dies (taking e2); a new target, possibly on a recycled index, fires again.
    world.despawn(tgt);
    assert!(!world.is_alive(e2));
    let tgt2 = world.spawn_empty().id();
    let e3 = world.spawn((TagA, BoundTo.pair(tgt2))).id();
    assert_eq!(take_log(&mut world), vec![format!("{e3:?}->{tgt2:?}")]);
}

/// Entity-scoped OnRemove observers on a child fire when its parent is despawned.
#[test]
fn observer_entity_scoped_on_a_child_fires_when_the_parent_is_despawned() {
    let mut world = log_world();
    let parent = world.spawn(Position::default()).id();
    let child = world.spawn((ChildOf.pair(parent), Position { x: 5.0, y: 0.0 })).id();
    world.entity_mut(child).observe(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.entity()));
    });
    world.despawn(parent);
    assert_eq!(take_log(&mut world), vec![format!("{child:?}")]);
    // The observer went with its entity: other removals do not reach it.
    let other = world.spawn(Position::default()).id();
    world.despawn(other);
    assert!(take_log(&mut world).is_empty());
}

/// Observer_create_observer_after_in_use_w_delete_component: despawning a component fires OnRemove per holder.
#[test]
fn observer_on_remove_fires_per_holder_when_a_component_entity_is_despawned() {
    let mut world = log_world();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn((Position::default(), Velocity::default())).id();
    world.add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push(format!("{:?}", t.entity())));
    let position = world.component_id::<Position>().unwrap();
    world.despawn(position);
    assert_eq!(set(take_log(&mut world)), set([format!("{e1:?}"), format!("{e2:?}")]));
    assert!(world.is_alive(e1) && world.is_alive(e2));
    assert!(world.get::<Velocity>(e2).is_some());
}

/// NonFragmentingChildOf_3_levels_2_children_cleanup_order_after_delete: trees are deleted bottom to top.
#[test]
fn observer_tree_delete_runs_bottom_to_top_parent_alive_children_gone() {
    // (entity, its parent, parent alive?, children left) for each OnRemove<TagA>.
    let seen: OrderLog = Arc::default();
    let mut world = World::new();
    let log = seen.clone();
    world.add_observer(move |t: Trigger<OnRemove, TagA>, world: &World| {
        let e = t.entity();
        let parent = world.parent(e);
        let alive = parent.is_some_and(|p| world.is_alive(p));
        log.lock().unwrap().push((e, parent, alive, world.children(e).count()));
    });
    let p0 = world.spawn_empty().id();
    let p1_1 = world.spawn((TagA, ChildOf.pair(p0))).id();
    let p1_2 = world.spawn((TagA, ChildOf.pair(p0))).id();
    let p2_1 = world.spawn((TagA, ChildOf.pair(p1_1))).id();
    let p2_2 = world.spawn((TagA, ChildOf.pair(p1_2))).id();
    let p3_1 = world.spawn((TagA, ChildOf.pair(p2_1))).id();
    let p3_2 = world.spawn((TagA, ChildOf.pair(p2_2))).id();
    world.despawn(p0);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(set(seen.iter().map(|row| row.0)), set([p1_1, p1_2, p2_1, p2_2, p3_1, p3_2]));
    assert_eq!(seen.len(), 6, "{seen:?}");
    for (e, parent, alive, children) in seen {
        assert!(parent.is_some() && alive, "{e:?}: its parent {parent:?} is still alive during its OnRemove");
        assert_eq!(children, 0, "{e:?}: its children were deleted before it");
    }
}

/// Flecs' ecs_delete: OnRemove of a holder's pair to a dying target fires before the target's own OnRemove.
#[test]
fn observer_on_remove_of_holders_pairs_fires_before_the_targets_own_components() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| {
        log.0.push(format!("position {:?}", t.entity()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("likes {:?}", t.entity()));
    });
    let target = world.spawn(Position::default()).id();
    let fan = world.spawn_empty().add_pair::<Likes>(target).id();
    world.despawn(target);
    assert_eq!(take_log(&mut world), vec![format!("likes {fan:?}"), format!("position {target:?}")]);
}
