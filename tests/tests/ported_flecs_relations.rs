//! Tests ported from Flecs' C test suites (Relationships, Pairs, OnDelete /
//! OnDeleteTarget cleanup, exclusive relationships, hierarchies, observers and
//! events) and a few from bevy_ecs, rewritten against API.md's public API
//! ("Relationships", "Observers and events").

use std::collections::BTreeSet;

use ecs::prelude::*;
use ecs_tests::{DropLog, DropTable, panic_message};

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

#[derive(Relationship, Debug)]
struct Likes;

#[derive(Relationship, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

/// Exclusive, default cleanup (remove).
#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct Wears;

/// Exclusive data relationship.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct Grade {
    value: u32,
}

#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Pinned;

#[derive(Relationship, Debug)]
#[relationship(on_delete = "delete")]
struct OwnedBy;

#[derive(Relationship, Debug)]
#[relationship(acyclic)]
struct DependsOn;

#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct InsideOf;

/// A data relationship whose values record their drops.
#[derive(Relationship, Debug)]
struct Carries {
    token: DropTable,
}

#[derive(Resource, Default)]
struct Log(Vec<String>);

// ----- helpers ---------------------------------------------------------------------------

fn p(x: f32) -> Position {
    Position { x, y: 0.0 }
}

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

// ===== Relationships: add / has / get / remove ==========================================

#[test]
fn relationship_add_same_pair_twice_adds_it_once() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(bob);
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![bob]);
    assert_eq!(world.query::<(Entity, Pair<Likes>)>().iter(&world).count(), 1);
    assert_eq!(world.ids_of(alice).unwrap().len(), 1);
}

#[test]
fn relationship_add_several_targets_and_remove_one() {
    let mut world = World::new();
    let [alice, bob, carol, dave] = empties(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).add_pair::<Likes>(dave);
    assert_eq!(set(world.targets::<Likes>(alice)), set([bob, carol, dave]));
    world.entity_mut(alice).remove_pair::<Likes>(carol);
    assert_eq!(set(world.targets::<Likes>(alice)), set([bob, dave]));
    assert!(!world.has_pair::<Likes>(alice, carol));
    assert!(world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert!(world.is_alive(carol), "removing a pair despawns nothing");
}

#[test]
fn relationship_target_of_entity_without_pairs_is_none() {
    let mut world = World::new();
    let [alice] = empties(&mut world);
    assert_eq!(world.target::<Likes>(alice), None);
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert!(!world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert!(world.get_pair::<Eats>(alice, alice).is_none());
}

#[test]
fn relationship_queries_on_a_dead_entity_do_not_panic() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.add_pair::<Likes>(alice, bob);
    world.despawn(alice);
    assert_eq!(world.target::<Likes>(alice), None);
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.get_pair::<Eats>(alice, bob).is_none());
    assert_eq!(world.sources::<Likes>(bob).count(), 0);
}

#[test]
fn relationship_remove_absent_pair_changes_nothing() {
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(p(1.0)).add_pair::<Likes>(bob).id();
    let before = world.ids_of(alice).unwrap().to_vec();
    assert!(!world.remove_pair::<Likes>(alice, carol));
    world.entity_mut(alice).remove_pair::<Eats>(bob);
    assert_eq!(world.ids_of(alice).unwrap(), &before[..]);
    assert_eq!(world.get::<Position>(alice), Some(&p(1.0)));
}

#[test]
fn relationship_remove_wildcard_removes_every_pair_of_that_relationship_only() {
    let mut world = World::new();
    let [bob, carol, apples] = empties(&mut world);
    let alice = world.spawn(p(1.0)).id();
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).insert_pair(Eats { amount: 3 }, apples);
    world.entity_mut(alice).remove_pair::<Likes>(Entity::WILDCARD);
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 3 }));
    assert_eq!(world.get::<Position>(alice), Some(&p(1.0)));
}

#[test]
fn relationship_insert_pair_overwrites_the_value_for_the_same_target() {
    let mut world = World::new();
    let [alice, apples] = empties(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 1 }, apples);
    world.entity_mut(alice).insert_pair(Eats { amount: 5 }, apples);
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 5 }));
    assert_eq!(world.targets::<Eats>(alice).count(), 1);
}

#[test]
fn relationship_data_pairs_to_different_targets_hold_independent_values() {
    let mut world = World::new();
    let [alice, apples, pears] = empties(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 1 }, apples).insert_pair(Eats { amount: 2 }, pears);
    world.get_pair_mut::<Eats>(alice, pears).unwrap().amount = 20;
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 1 }));
    assert_eq!(world.get_pair::<Eats>(alice, pears), Some(&Eats { amount: 20 }));
    world.entity_mut(alice).remove_pair::<Eats>(apples);
    assert_eq!(world.get_pair::<Eats>(alice, pears), Some(&Eats { amount: 20 }));
    assert!(world.get_pair::<Eats>(alice, apples).is_none());
}

#[test]
fn relationship_pair_to_self_is_allowed_and_despawn_terminates() {
    let mut world = World::new();
    let [alice] = empties(&mut world);
    world.add_pair::<Likes>(alice, alice);
    assert!(world.has_pair::<Likes>(alice, alice));
    assert_eq!(world.target::<Likes>(alice), Some(alice));
    assert!(world.despawn(alice));
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn relationship_entity_used_as_relationship_and_as_target() {
    // Flecs: an entity can be both the relationship and the target of a pair.
    let mut world = World::new();
    let [rel, holder] = empties(&mut world);
    world.add_pair_id(holder, rel, rel);
    assert!(world.has_pair_id(holder, rel, rel));
    assert!(world.despawn(rel));
    assert!(world.is_alive(holder));
    assert_eq!(world.ids_of(holder).unwrap().len(), 0);
}

// ===== pairs in bundles =================================================================

#[test]
fn bundle_with_several_pairs_of_one_relationship_adds_them_all() {
    let mut world = World::new();
    let [bob, carol, apples] = empties(&mut world);
    let alice = world.spawn((p(1.0), Likes.pair(bob), Likes.pair(carol), Eats { amount: 4 }.pair(apples))).id();
    assert_eq!(set(world.targets::<Likes>(alice)), set([bob, carol]));
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 4 }));
    assert_eq!(world.get::<Position>(alice), Some(&p(1.0)));
    assert_eq!(world.ids_of(alice).unwrap().len(), 4);
}

#[test]
fn bundle_with_pairs_is_one_move_no_intermediate_archetype() {
    // API.md: pairs in a bundle are added "in one move": the entity is placed
    // once, in the archetype of its components and pairs.
    let mut world = World::new();
    let [parent] = empties(&mut world);
    let child = world.spawn((Velocity::default(), ChildOf.pair(parent))).id();
    assert_eq!(world.parent(child), Some(parent));
    let velocity = world.component_id::<Velocity>().unwrap().id();
    let populated: Vec<usize> = world
        .archetypes()
        .iter()
        .filter(|archetype| archetype.ids().contains(&velocity) && !archetype.is_empty())
        .map(|archetype| archetype.ids().len())
        .collect();
    assert_eq!(populated, vec![2], "only {{Velocity, (ChildOf, parent)}} holds an entity");
    // No entity ever sat in {Velocity}: a query cache matching it saw no row.
    let lone = world.archetypes().iter().find(|archetype| archetype.ids() == [velocity]);
    assert!(lone.is_none_or(|archetype| archetype.is_empty()));
}

#[test]
fn bundle_with_pairs_on_add_observers_see_the_whole_bundle() {
    // One move: when OnAdd observers run, every id of the bundle is on the entity.
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<OnAdd, Velocity>, parents: Query<Pair<ChildOf>>, mut log: ResMut<Log>| {
        let parent = parents.get(trigger.entity()).ok();
        log.0.push(format!("velocity added, parent set: {}", parent.is_some()));
    });
    let [parent] = empties(&mut world);
    world.spawn((Velocity::default(), ChildOf.pair(parent)));
    assert_eq!(take_log(&mut world), vec!["velocity added, parent set: true".to_owned()]);
}

// ===== exclusive relationships ==========================================================

#[test]
fn exclusive_add_replaces_the_previous_target() {
    let mut world = World::new();
    let [ship, a, b] = empties(&mut world);
    world.add_pair::<Wears>(ship, a);
    let count = world.ids_of(ship).unwrap().len();
    world.add_pair::<Wears>(ship, b);
    assert_eq!(world.targets::<Wears>(ship).collect::<Vec<_>>(), vec![b]);
    assert!(!world.has_pair::<Wears>(ship, a));
    assert_eq!(world.ids_of(ship).unwrap().len(), count);
    assert_eq!(world.query::<(Entity, Pair<Wears>)>().iter(&world).count(), 1);
}

#[test]
fn exclusive_data_pair_replacement_keeps_only_the_new_value() {
    let mut world = World::new();
    let [student, math, art] = empties(&mut world);
    world.insert_pair(student, Grade { value: 1 }, math);
    world.insert_pair(student, Grade { value: 2 }, art);
    assert!(world.get_pair::<Grade>(student, math).is_none());
    assert_eq!(world.get_pair::<Grade>(student, art), Some(&Grade { value: 2 }));
    assert_eq!(world.target::<Grade>(student), Some(art));
}

#[test]
fn exclusive_same_target_again_is_an_overwrite_not_a_replacement() {
    let mut world = World::new();
    let [student, math] = empties(&mut world);
    world.insert_pair(student, Grade { value: 1 }, math);
    world.insert_pair(student, Grade { value: 3 }, math);
    assert_eq!(world.get_pair::<Grade>(student, math), Some(&Grade { value: 3 }));
    assert_eq!(world.targets::<Grade>(student).count(), 1);
}

#[test]
fn exclusive_relationship_does_not_limit_other_relationships() {
    let mut world = World::new();
    let [ship, a, b, c] = empties(&mut world);
    world.entity_mut(ship).add_pair::<Wears>(a).add_pair::<Likes>(a).add_pair::<Likes>(b).add_pair::<Wears>(c);
    assert_eq!(world.target::<Wears>(ship), Some(c));
    assert_eq!(set(world.targets::<Likes>(ship)), set([a, b]));
}

#[test]
fn childof_reparent_moves_the_child_between_children_lists() {
    let mut world = World::new();
    let [p1, p2] = empties(&mut world);
    let child = world.spawn(ChildOf.pair(p1)).id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    assert_eq!(world.children(p1).count(), 0);
    assert_eq!(world.children(p2).collect::<Vec<_>>(), vec![child]);
    assert_eq!(world.target::<ChildOf>(child), Some(p2));
    world.despawn(p1);
    assert!(world.is_alive(child), "the old parent's deletion no longer reaches the child");
    world.despawn(p2);
    assert!(!world.is_alive(child));
}

#[test]
fn exclusive_cached_query_follows_replacement() {
    let mut world = World::new();
    let [ship, a, b] = empties(&mut world);
    let mut q = world.query::<(Entity, Pair<Wears>)>();
    world.add_pair::<Wears>(ship, a);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(ship, a)]);
    world.add_pair::<Wears>(ship, b);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(ship, b)]);
}

// ===== cleanup policies =================================================================

#[test]
fn on_delete_target_remove_drops_the_pairs_values_once_and_keeps_others() {
    let mut world = World::new();
    let log = DropLog::new();
    let [holder, apples, pears] = empties(&mut world);
    world.entity_mut(holder).insert_pair(Carries { token: log.table(1) }, apples);
    world.entity_mut(holder).insert_pair(Carries { token: log.table(2) }, pears);
    world.despawn(apples);
    log.assert_dropped_once([1]);
    assert!(world.is_alive(holder));
    assert_eq!(world.targets::<Carries>(holder).collect::<Vec<_>>(), vec![pears]);
    assert_eq!(world.get_pair::<Carries>(holder, pears).map(|c| c.token.id), Some(2));
}

#[test]
fn on_delete_target_delete_cascades_through_a_chain() {
    let mut world = World::new();
    let [station] = empties(&mut world);
    let ship = world.spawn(DockedTo.pair(station)).id();
    let drone = world.spawn(DockedTo.pair(ship)).id();
    let crew = world.spawn(ChildOf.pair(drone)).id();
    let bystander = world.spawn(p(0.0)).add_pair::<Likes>(drone).id();
    world.despawn(station);
    for dead in [station, ship, drone, crew] {
        assert!(!world.is_alive(dead), "{dead:?} should be deleted");
    }
    assert!(world.is_alive(bystander));
    assert!(!world.has_pair::<Likes>(bystander, Entity::WILDCARD));
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn on_delete_target_delete_with_a_self_loop_terminates() {
    let mut world = World::new();
    let [ship] = empties(&mut world);
    world.add_pair::<DockedTo>(ship, ship);
    assert!(world.despawn(ship));
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn on_delete_target_exclusive_remove_policy_keeps_the_holder() {
    let mut world = World::new();
    let [hat] = empties(&mut world);
    let person = world.spawn(p(1.0)).add_pair::<Wears>(hat).id();
    world.despawn(hat);
    assert!(world.is_alive(person));
    assert_eq!(world.target::<Wears>(person), None);
    assert_eq!(world.get::<Position>(person), Some(&p(1.0)));
}

#[test]
fn on_delete_target_panic_does_not_stop_despawning_the_holder() {
    let mut world = World::new();
    let [target] = empties(&mut world);
    let holder = world.spawn_empty().add_pair::<Pinned>(target).id();
    assert!(world.despawn(holder));
    assert!(world.despawn(target), "no holder left");
}

#[test]
fn on_delete_target_panic_refuses_then_remove_pair_allows() {
    let mut world = World::new();
    let [target] = empties(&mut world);
    let holder = world.spawn(p(1.0)).add_pair::<Pinned>(target).id();
    let message = panic_message(|| world.despawn(target));
    assert!(message.contains("Pinned"), "{message}");
    assert!(world.is_alive(target));
    assert!(world.has_pair::<Pinned>(holder, target));
    world.remove_pair::<Pinned>(holder, target);
    assert!(world.despawn(target));
    assert!(world.is_alive(holder));
}

#[test]
fn despawning_a_plain_component_entity_removes_it_from_every_holder() {
    // Flecs: deleting a component removes it from all entities (OnDelete: Remove).
    let mut world = World::new();
    let a = world.spawn((p(1.0), Velocity { x: 2.0, y: 0.0 })).id();
    let b = world.spawn(Velocity { x: 3.0, y: 0.0 }).id();
    let velocity = world.component_id::<Velocity>().unwrap();
    assert!(world.despawn(velocity));
    assert!(world.is_alive(a) && world.is_alive(b));
    assert!(!world.has::<Velocity>(a) && !world.has::<Velocity>(b));
    assert_eq!(world.get::<Position>(a), Some(&p(1.0)));
    assert_eq!(world.entity_count(), 2);
    // The type is usable again afterwards.
    world.insert(b, Velocity { x: 9.0, y: 0.0 });
    assert_eq!(world.get::<Velocity>(b), Some(&Velocity { x: 9.0, y: 0.0 }));
    assert_eq!(world.query::<&Velocity>().iter(&world).count(), 1);
}

#[test]
fn despawning_a_component_entity_drops_every_value_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let a = world.spawn((p(1.0), log.table(1))).id();
    let b = world.spawn(log.table(2)).id();
    let id = world.component_id::<DropTable>().unwrap();
    assert!(world.despawn(id));
    log.assert_dropped_once([1, 2]);
    assert!(world.is_alive(a) && world.is_alive(b));
    drop(world);
    log.assert_dropped_once([1, 2]);
}

#[test]
fn despawning_an_on_delete_delete_relationship_deletes_holders_and_their_children() {
    let mut world = World::new();
    let [owner] = empties(&mut world);
    let held = world.spawn(p(1.0)).add_pair::<OwnedBy>(owner).id();
    let child = world.spawn(ChildOf.pair(held)).id();
    let other = world.spawn(p(2.0)).id();
    let rel = world.component_id::<OwnedBy>().unwrap();
    assert!(world.despawn(rel));
    assert!(!world.is_alive(held) && !world.is_alive(child));
    assert!(world.is_alive(owner) && world.is_alive(other));
}

#[test]
fn despawning_a_target_updates_cached_queries_and_runtime_targets() {
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(p(1.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let mut rows = world.query::<(Entity, Pair<Likes>)>();
    let mut liking_bob = world.query::<Entity>().with_pair::<Likes>(bob);
    assert_eq!(rows.iter(&world).count(), 2);
    assert_eq!(liking_bob.iter(&world).collect::<Vec<_>>(), vec![alice]);
    world.despawn(bob);
    assert_eq!(rows.iter(&world).collect::<Vec<_>>(), vec![(alice, carol)]);
    assert_eq!(liking_bob.iter(&world).count(), 0);
}

#[test]
fn despawning_a_holder_removes_it_from_sources() {
    let mut world = World::new();
    let [bob] = empties(&mut world);
    let a = world.spawn_empty().add_pair::<Likes>(bob).id();
    let b = world.spawn_empty().add_pair::<Likes>(bob).id();
    world.despawn(a);
    assert_eq!(world.sources::<Likes>(bob).collect::<Vec<_>>(), vec![b]);
}

// ===== query terms ======================================================================

#[test]
fn pair_term_yields_one_row_per_entity_and_target() {
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    let a = world.spawn(p(1.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let b = world.spawn((p(2.0), Tag)).add_pair::<Likes>(carol).id();
    let _plain = world.spawn(p(3.0)).id();
    let rows = set(world.query::<(Entity, Pair<Likes>)>().iter(&world));
    assert_eq!(rows, set([(a, bob), (a, carol), (b, carol)]));
}

#[test]
fn pair_ref_term_combines_with_components() {
    let mut world = World::new();
    let [apples, pears] = empties(&mut world);
    world.spawn(p(1.0)).insert_pair(Eats { amount: 1 }, apples).insert_pair(Eats { amount: 2 }, pears);
    world.spawn(p(2.0)).insert_pair(Eats { amount: 3 }, pears);
    let mut q = world.query::<(&Position, Pair<&Eats>)>();
    let rows: BTreeSet<(i32, Entity, u32)> =
        q.iter(&world).map(|(pos, (target, eats))| (pos.x as i32, target, eats.amount)).collect();
    assert_eq!(rows, set([(1, apples, 1), (1, pears, 2), (2, pears, 3)]));
}

#[test]
fn pair_mut_term_writes_only_the_row_it_yields() {
    let mut world = World::new();
    let [apples, pears] = empties(&mut world);
    let e = world.spawn_empty().insert_pair(Eats { amount: 1 }, apples).insert_pair(Eats { amount: 2 }, pears).id();
    let mut q = world.query::<Pair<&mut Eats>>();
    for (target, mut eats) in q.iter_mut(&mut world) {
        if target == pears {
            eats.amount = 200;
        }
    }
    assert_eq!(world.get_pair::<Eats>(e, apples), Some(&Eats { amount: 1 }));
    assert_eq!(world.get_pair::<Eats>(e, pears), Some(&Eats { amount: 200 }));
}

#[test]
fn with_pair_filter_combines_with_without() {
    let mut world = World::new();
    let [bob] = empties(&mut world);
    let a = world.spawn(p(1.0)).add_pair::<Likes>(bob).id();
    let _b = world.spawn((p(2.0), Tag)).add_pair::<Likes>(bob).id();
    let _c = world.spawn(p(3.0)).id();
    let mut q = world.query_filtered::<Entity, (WithPair<Likes>, Without<Tag>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![a]);
}

#[test]
fn with_pair_filter_yields_each_entity_once() {
    let mut world = World::new();
    let [bob, carol, dave] = empties(&mut world);
    let a = world.spawn(p(1.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).add_pair::<Likes>(dave).id();
    let mut q = world.query_filtered::<Entity, WithPair<Likes>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![a]);
}

#[test]
fn runtime_target_query_sees_later_changes() {
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(bob);
    let a = world.spawn(p(1.0)).add_pair::<Likes>(bob).id();
    let _b = world.spawn(p(2.0)).add_pair::<Likes>(carol).id();
    assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![a]);
    let c = world.spawn(p(3.0)).add_pair::<Likes>(carol).add_pair::<Likes>(bob).id();
    assert_eq!(set(q.iter(&world).map(|(e, _)| e)), set([a, c]));
    world.remove_pair::<Likes>(a, bob);
    assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![c]);
}

#[test]
fn up_reads_the_nearest_ancestor_that_has_the_component() {
    let mut world = World::new();
    let root = world.spawn(p(1.0)).id();
    let mid = world.spawn((Velocity::default(), ChildOf.pair(root))).id();
    let leaf = world.spawn((p(3.0), ChildOf.pair(mid))).id();
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let rows: BTreeSet<(Entity, i32)> = q.iter(&world).map(|(e, pos)| (e, pos.x as i32)).collect();
    // mid: parent root (1); leaf: parent mid has no Position, grandparent root (1).
    assert_eq!(rows, set([(mid, 1), (leaf, 1)]));
}

#[test]
fn up_excludes_self_and_roots_do_not_match() {
    let mut world = World::new();
    let root = world.spawn(p(1.0)).id();
    let child = world.spawn((p(2.0), ChildOf.pair(root))).id();
    let mut q = world.query_filtered::<(Entity, &Position, Up<ChildOf, &Position>), WithPair<ChildOf>>();
    let rows: Vec<(Entity, i32, i32)> = q.iter(&world).map(|(e, own, up)| (e, own.x as i32, up.x as i32)).collect();
    assert_eq!(rows, vec![(child, 2, 1)]);
}

#[test]
fn up_along_a_custom_traversable_relationship() {
    let mut world = World::new();
    let room = world.spawn(p(5.0)).id();
    let box_ = world.spawn_empty().add_pair::<InsideOf>(room).id();
    let ball = world.spawn_empty().add_pair::<InsideOf>(box_).id();
    let mut q = world.query::<(Entity, Up<InsideOf, &Position>)>();
    let rows: BTreeSet<(Entity, i32)> = q.iter(&world).map(|(e, pos)| (e, pos.x as i32)).collect();
    assert_eq!(rows, set([(box_, 5), (ball, 5)]));
}

#[test]
fn up_with_a_mutable_own_component() {
    let mut world = World::new();
    let parent = world.spawn(p(4.0)).id();
    let child = world.spawn((Velocity::default(), ChildOf.pair(parent))).id();
    let mut q = world.query::<(&mut Velocity, Up<ChildOf, &Position>)>();
    for (mut vel, pos) in q.iter_mut(&mut world) {
        vel.x = pos.x * 2.0;
    }
    assert_eq!(world.get::<Velocity>(child), Some(&Velocity { x: 8.0, y: 0.0 }));
}

// ===== acyclic / traversable ============================================================

#[test]
fn acyclic_relationship_refuses_a_cycle_and_leaves_the_world_unchanged() {
    let mut world = World::new();
    let [a, b, c] = empties(&mut world);
    world.add_pair::<DependsOn>(a, b);
    world.add_pair::<DependsOn>(b, c);
    assert!(world.try_add_pair::<DependsOn>(c, a).is_err());
    assert!(!world.has_pair::<DependsOn>(c, a));
    assert!(world.try_add_pair::<DependsOn>(c, b).is_err());
    // A diamond is not a cycle.
    let [d] = empties(&mut world);
    world.add_pair::<DependsOn>(a, d);
    assert!(world.try_add_pair::<DependsOn>(d, c).is_ok());
}

#[test]
fn acyclic_relationship_refuses_a_pair_to_self() {
    let mut world = World::new();
    let [a] = empties(&mut world);
    assert!(world.try_add_pair::<DependsOn>(a, a).is_err());
    assert!(!world.has_pair::<DependsOn>(a, a));
}

#[test]
fn childof_is_acyclic() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(root)).id();
    let grandchild = world.spawn(ChildOf.pair(child)).id();
    assert!(world.try_add_pair::<ChildOf>(root, grandchild).is_err());
    assert_eq!(world.parent(root), None);
    let message = panic_message(|| world.add_pair::<ChildOf>(root, grandchild));
    assert!(message.contains("ChildOf"), "{message}");
}

// ===== observers on pairs ===============================================================

#[test]
fn on_add_pair_observer_fires_once_per_new_pair_with_its_target() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let [alice, bob, carol] = empties(&mut world);
    world.add_pair::<Likes>(alice, bob);
    world.add_pair::<Likes>(alice, bob); // already there: no add
    world.add_pair::<Likes>(alice, carol);
    world.insert(alice, Tag); // moving the holder adds no pair
    assert_eq!(take_log(&mut world), vec![format!("{alice:?}->{bob:?}"), format!("{alice:?}->{carol:?}")]);
}

#[test]
fn pair_observer_ignores_other_relationships_and_components() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| log.0.push("likes".into()));
    let [alice, bob] = empties(&mut world);
    world.insert_pair(alice, Eats { amount: 1 }, bob);
    world.add_pair::<Wears>(alice, bob);
    world.insert(alice, p(0.0));
    assert!(take_log(&mut world).is_empty());
}

#[test]
fn on_remove_pair_observer_fires_on_remove_despawn_of_holder_and_of_target() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let [a, b, c, target] = empties(&mut world);
    world.add_pair::<Likes>(a, target);
    world.add_pair::<Likes>(b, target);
    world.add_pair::<Likes>(c, target);
    world.remove_pair::<Likes>(a, target);
    assert_eq!(take_log(&mut world), vec![format!("{a:?}->{target:?}")]);
    world.despawn(b);
    assert_eq!(take_log(&mut world), vec![format!("{b:?}->{target:?}")]);
    world.despawn(target);
    assert_eq!(take_log(&mut world), vec![format!("{c:?}->{target:?}")], "cleanup removes (Likes, target) from c");
}

#[test]
fn remove_pair_wildcard_fires_on_remove_for_each_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.pair_target().unwrap()));
    });
    let [a, bob, carol] = empties(&mut world);
    world.entity_mut(a).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    world.remove_pair::<Likes>(a, Entity::WILDCARD);
    assert_eq!(set(take_log(&mut world)), set([format!("{bob:?}"), format!("{carol:?}")]));
}

#[test]
fn exclusive_replacement_fires_on_remove_for_the_old_pair_and_on_add_for_the_new() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Wears>>, mut log: ResMut<Log>| {
        log.0.push(format!("add {:?}", t.pair_target().unwrap()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<Wears>>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?}", t.pair_target().unwrap()));
    });
    let [e, a, b] = empties(&mut world);
    world.add_pair::<Wears>(e, a);
    world.add_pair::<Wears>(e, b);
    assert_eq!(take_log(&mut world), vec![format!("add {a:?}"), format!("remove {a:?}"), format!("add {b:?}")]);
}

#[test]
fn on_insert_pair_fires_on_every_insert_on_add_only_on_the_first() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Eats>>, mut log: ResMut<Log>| {
        log.0.push(format!("add {:?}", t.pair_target().unwrap()));
    });
    world.add_observer(|t: Trigger<OnInsert, Pair<Eats>>, mut log: ResMut<Log>| {
        log.0.push(format!("insert {:?}", t.pair_target().unwrap()));
    });
    let [e, apples] = empties(&mut world);
    world.insert_pair(e, Eats { amount: 1 }, apples);
    world.insert_pair(e, Eats { amount: 2 }, apples);
    assert_eq!(
        take_log(&mut world),
        vec![format!("add {apples:?}"), format!("insert {apples:?}"), format!("insert {apples:?}")]
    );
}

#[test]
fn on_insert_pair_observer_reads_the_new_value() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, Pair<Eats>>, q: Query<Pair<&Eats>>, mut log: ResMut<Log>| {
        let (target, eats) = q.get(t.entity()).unwrap();
        log.0.push(format!("{} {}", target == t.pair_target().unwrap(), eats.amount));
    });
    let [e, apples] = empties(&mut world);
    world.insert_pair(e, Eats { amount: 7 }, apples);
    world.insert_pair(e, Eats { amount: 8 }, apples);
    assert_eq!(take_log(&mut world), vec!["true 7".to_owned(), "true 8".to_owned()]);
}

#[test]
fn on_remove_pair_observer_still_reads_the_value() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Eats>>, q: Query<Pair<&Eats>>, mut log: ResMut<Log>| {
        let amount = q.get(t.entity()).map(|(_, eats)| eats.amount).ok();
        log.0.push(format!("{amount:?}"));
    });
    let [e, apples] = empties(&mut world);
    world.insert_pair(e, Eats { amount: 7 }, apples);
    world.remove_pair::<Eats>(e, apples);
    assert_eq!(take_log(&mut world), vec!["Some(7)".to_owned()]);
}

#[test]
fn pair_observers_fire_for_pairs_in_a_spawn_bundle() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<ChildOf>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.pair_target().unwrap()));
    });
    let [parent] = empties(&mut world);
    world.spawn((p(0.0), ChildOf.pair(parent)));
    world.entity_mut(parent).with_children(|spawner| {
        spawner.spawn(Tag);
    });
    assert_eq!(take_log(&mut world), vec![format!("{parent:?}"), format!("{parent:?}")]);
}

#[test]
fn despawning_a_relationship_entity_fires_on_remove_for_each_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.entity()));
    });
    let [a, b, target] = empties(&mut world);
    world.add_pair::<Likes>(a, target);
    world.add_pair::<Likes>(b, target);
    let likes = world.component_id::<Likes>().unwrap();
    world.despawn(likes);
    assert_eq!(set(take_log(&mut world)), set([format!("{a:?}"), format!("{b:?}")]));
}

#[test]
fn on_despawn_fires_for_entities_deleted_by_on_delete_target_delete() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnDespawn>, mut log: ResMut<Log>| log.0.push(format!("{:?}", t.entity())));
    let [station] = empties(&mut world);
    let ship = world.spawn(DockedTo.pair(station)).id();
    world.despawn(station);
    assert_eq!(set(take_log(&mut world)), set([format!("{station:?}"), format!("{ship:?}")]));
}

#[test]
fn an_observer_can_add_a_pair_in_response_to_a_pair() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut commands: Commands| {
        let target = t.pair_target().unwrap();
        commands.entity(target).add_pair::<Likes>(t.entity());
    });
    let [alice, bob] = empties(&mut world);
    world.add_pair::<Likes>(alice, bob);
    assert!(world.has_pair::<Likes>(bob, alice), "the observer's command is applied before add_pair returns");
}

// ===== observers and events: ordering, trigger, trigger_targets =========================

#[test]
fn observers_of_one_event_run_in_registration_order() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push("first".into()));
    world.add_observer(|_: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push("second".into()));
    world.add_observer(|_: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push("third".into()));
    world.spawn(p(0.0));
    assert_eq!(take_log(&mut world), vec!["first", "second", "third"]);
}

#[test]
fn lifecycle_order_add_insert_then_remove() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push("remove".into()));
    world.add_observer(|_: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push("insert".into()));
    world.add_observer(|_: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push("add".into()));
    let e = world.spawn(p(0.0)).id();
    world.insert(e, p(1.0));
    world.remove::<Position>(e);
    assert_eq!(take_log(&mut world), vec!["add", "insert", "insert", "remove"]);
}

#[derive(Event)]
struct Explode {
    radius: f32,
}

#[test]
fn trigger_targets_delivers_once_per_target_in_order() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Explode>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), t.event().radius));
    });
    let [a, b] = empties(&mut world);
    world.trigger_targets(Explode { radius: 2.0 }, [a, b]);
    world.trigger_targets(Explode { radius: 3.0 }, vec![b]);
    assert_eq!(take_log(&mut world), vec![format!("{a:?} 2"), format!("{b:?} 2"), format!("{b:?} 3")]);
}

#[test]
fn global_trigger_does_not_reach_entity_observers() {
    let mut world = log_world();
    let [a] = empties(&mut world);
    world.entity_mut(a).observe(|_: Trigger<Explode>, mut log: ResMut<Log>| log.0.push("entity".into()));
    world.add_observer(|t: Trigger<Explode>, mut log: ResMut<Log>| {
        log.0.push(format!("global {}", t.entity() == Entity::PLACEHOLDER));
    });
    world.trigger(Explode { radius: 1.0 });
    assert_eq!(take_log(&mut world), vec!["global true"]);
    world.trigger_targets(Explode { radius: 1.0 }, a);
    let log = take_log(&mut world);
    assert_eq!(set(log.iter().cloned()), set(["entity".to_owned(), "global false".to_owned()]));
}

#[test]
fn user_events_do_not_reach_lifecycle_observers() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push("add".into()));
    let e = world.spawn(p(0.0)).id();
    take_log(&mut world);
    world.trigger_targets(Explode { radius: 1.0 }, e);
    assert!(take_log(&mut world).is_empty());
}

#[test]
fn on_add_pair_observer_fires_per_pair_of_a_bundle() {
    // Flecs: an observer for (Likes, *) is invoked once per matching pair.
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} ids={}", t.pair_target().unwrap(), t.ids().len()));
    });
    let [bob, carol] = empties(&mut world);
    world.spawn((Likes.pair(bob), Likes.pair(carol)));
    let log = take_log(&mut world);
    assert_eq!(log.len(), 2, "{log:?}");
}

#[test]
fn despawning_a_holder_fires_on_remove_per_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} ids={}", t.pair_target().unwrap(), t.ids().len()));
    });
    let [a, bob, carol] = empties(&mut world);
    world.entity_mut(a).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    world.despawn(a);
    let log = take_log(&mut world);
    assert_eq!(log.len(), 2, "{log:?}");
}

#[test]
fn exclusive_replacement_through_a_bundle_insert_fires_on_remove_for_the_old_pair() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<DockedTo>>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?}", t.pair_target().unwrap()));
    });
    let [a, b] = empties(&mut world);
    let ship = world.spawn(DockedTo.pair(a)).id();
    world.entity_mut(ship).insert((p(1.0), DockedTo.pair(b)));
    assert_eq!(take_log(&mut world), vec![format!("remove {a:?}")]);
    assert_eq!(world.target::<DockedTo>(ship), Some(b));
}

#[test]
fn an_entity_scoped_pair_observer_fires_only_for_its_entity() {
    let mut world = log_world();
    let [alice, bob, carol] = empties(&mut world);
    world.entity_mut(alice).observe(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?}", t.pair_target().unwrap()));
    });
    world.add_pair::<Likes>(bob, carol);
    world.add_pair::<Likes>(alice, carol);
    assert_eq!(take_log(&mut world), vec![format!("{carol:?}")]);
}

#[test]
fn commands_add_insert_and_remove_pairs() {
    let mut world = World::new();
    let [alice, bob, apples] = empties(&mut world);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(alice).add_pair::<Likes>(bob).insert_pair(Eats { amount: 2 }, apples);
    });
    assert!(world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 2 }));
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(alice).remove_pair::<Likes>(bob);
    });
    assert!(!world.has_pair::<Likes>(alice, bob));
}

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Aura(u32);

#[test]
fn up_reads_a_sparse_component_of_the_parent() {
    let mut world = World::new();
    let parent = world.spawn(Aura(3)).id();
    let child = world.spawn((p(0.0), ChildOf.pair(parent))).id();
    let mut q = world.query::<(Entity, Up<ChildOf, &Aura>)>();
    let rows: Vec<(Entity, u32)> = q.iter(&world).map(|(e, aura)| (e, aura.0)).collect();
    assert_eq!(rows, vec![(child, 3)]);
}

/// Data pairs in a spawn bundle are placed with the components too: one
/// populated archetype, values and change ticks in place, observers of both
/// see the whole bundle; a repeated pair or an exclusive one given twice keeps
/// the last value and drops the others once.
#[test]
fn bundle_with_data_pairs_is_one_move_and_drops_replaced_values_once() {
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<OnAdd, Velocity>, eats: Query<Pair<&Eats>>, mut log: ResMut<Log>| {
        let amount = eats.get(trigger.entity()).ok().map(|(_, eats)| eats.amount);
        log.0.push(format!("velocity added, eats {amount:?}"));
    });
    let [parent, apples, pears] = empties(&mut world);
    let e = world.spawn((Velocity::default(), ChildOf.pair(parent), Eats { amount: 2 }.pair(apples))).id();
    assert_eq!(take_log(&mut world), vec!["velocity added, eats Some(2)".to_owned()]);
    assert_eq!(world.get_pair::<Eats>(e, apples), Some(&Eats { amount: 2 }));
    assert_eq!(world.parent(e), Some(parent));
    let velocity = world.component_id::<Velocity>().unwrap().id();
    let populated = world.archetypes().iter().filter(|a| a.ids().contains(&velocity) && !a.is_empty()).count();
    assert_eq!(populated, 1);
    let mut added = world.query_filtered::<Entity, Added<Velocity>>();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    // Two pairs of one exclusive relationship: the last wins.
    let f = world.spawn((Velocity::default(), Wears.pair(apples), Wears.pair(pears))).id();
    assert_eq!(world.targets::<Wears>(f).collect::<Vec<_>>(), vec![pears]);
    // An exclusive data relationship given twice: the last value wins.
    let h = world.spawn((Velocity::default(), Grade { value: 1 }.pair(apples), Grade { value: 7 }.pair(pears))).id();
    assert_eq!(world.get_pair::<Grade>(h, pears), Some(&Grade { value: 7 }));
    assert_eq!(world.get_pair::<Grade>(h, apples), None);
    // The same data pair twice: the last value wins.
    let g = world.spawn((Eats { amount: 1 }.pair(pears), Eats { amount: 5 }.pair(pears))).id();
    assert_eq!(world.get_pair::<Eats>(g, pears), Some(&Eats { amount: 5 }));
    world.check_invariants();
}

/// A spawn bundle with pairs ends in the same state as spawning its
/// components and adding its pairs one by one: the same ids, pair values and
/// relationship bookkeeping (targets' sources, cleanup on target despawn).
#[test]
fn one_move_bundles_match_pair_by_pair_spawns() {
    let mut world = World::new();
    let [parent, apples, pears] = empties(&mut world);
    let by_bundle = [
        world.spawn((Velocity::default(), ChildOf.pair(parent))).id(),
        world.spawn((ChildOf.pair(parent), Likes.pair(apples), Eats { amount: 3 }.pair(pears))).id(),
        world.spawn((Velocity::default(), Wears.pair(apples), Grade { value: 4 }.pair(pears))).id(),
        world.spawn((Eats { amount: 1 }.pair(apples), Eats { amount: 2 }.pair(pears), Velocity::default())).id(),
    ];
    let step = |world: &mut World| {
        let a = world.spawn(Velocity::default()).add_pair::<ChildOf>(parent).id();
        let b = world.spawn_empty().add_pair::<ChildOf>(parent).add_pair::<Likes>(apples).id();
        world.entity_mut(b).insert_pair(Eats { amount: 3 }, pears);
        let c = world.spawn(Velocity::default()).add_pair::<Wears>(apples).id();
        world.entity_mut(c).insert_pair(Grade { value: 4 }, pears);
        let d = world.spawn(Velocity::default()).id();
        world.entity_mut(d).insert_pair(Eats { amount: 1 }, apples).insert_pair(Eats { amount: 2 }, pears);
        [a, b, c, d]
    };
    let by_steps = step(&mut world);
    for (&bundled, &stepped) in by_bundle.iter().zip(&by_steps) {
        assert_eq!(world.ids_of(bundled), world.ids_of(stepped));
        assert_eq!(world.get_pair::<Eats>(bundled, pears), world.get_pair::<Eats>(stepped, pears));
        assert_eq!(world.get_pair::<Eats>(bundled, apples), world.get_pair::<Eats>(stepped, apples));
        assert_eq!(world.get_pair::<Grade>(bundled, pears), world.get_pair::<Grade>(stepped, pears));
    }
    assert_eq!(world.sources::<Eats>(pears).count(), 4);
    world.despawn(pears); // default cleanup: the pairs go, the holders stay
    for &entity in by_bundle.iter().chain(&by_steps) {
        assert!(world.is_alive(entity));
        assert_eq!(world.get_pair::<Eats>(entity, pears), None);
    }
    world.despawn(parent); // ChildOf deletes the children
    assert!(!world.is_alive(by_bundle[0]) && !world.is_alive(by_bundle[1]));
    assert!(!world.is_alive(by_steps[0]) && !world.is_alive(by_steps[1]));
    world.check_invariants();
}

/// `spawn_batch` places bundles with pairs as `spawn` does: once, with their
/// pairs, observers seeing the whole bundle.
#[test]
fn spawn_batch_with_pairs_is_one_move_per_entity() {
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<OnAdd, Velocity>, parents: Query<Pair<ChildOf>>, mut log: ResMut<Log>| {
        log.0.push(format!("parent set: {}", parents.get(trigger.entity()).is_ok()));
    });
    let [parent, apples] = empties(&mut world);
    let batch: Vec<Entity> = world
        .spawn_batch((0..3).map(|i| (Velocity::default(), ChildOf.pair(parent), Eats { amount: i }.pair(apples))))
        .collect();
    assert_eq!(take_log(&mut world), vec!["parent set: true".to_owned(); 3]);
    for (i, &entity) in batch.iter().enumerate() {
        assert_eq!(world.parent(entity), Some(parent));
        assert_eq!(world.get_pair::<Eats>(entity, apples), Some(&Eats { amount: i as u32 }));
    }
    let velocity = world.component_id::<Velocity>().unwrap().id();
    let populated = world.archetypes().iter().filter(|a| a.ids().contains(&velocity) && !a.is_empty()).count();
    assert_eq!(populated, 1);
    world.check_invariants();
}
