//! Relationships: pairs `(R, T)` added, replaced (exclusive) and removed through
//! the typed and the runtime API, every cleanup policy on despawn (of a target:
//! `on_delete_target`; of a runtime relationship: `on_delete`) including
//! recursion, cycles and refusals that leave the world untouched, acyclic
//! relationships, wildcard query rows (`Pair<R>`, `Pair<&R>`, `Pair<&mut R>`),
//! `Up` traversal, `cascade` order, the deletion of archetypes that name a dead
//! entity, drop accounting of pair values, and stale entity handles.

use std::collections::BTreeSet;

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::Id;
use ecs::system::CommandQueue;
use ecs::world::{CleanupError, PairError};
use ecs_tests::{DropLog, DropTable, Enemy, Position, Velocity, panic_message};

use ecs::prelude::*;

// ----- relationships and components used below ---------------------------------------

/// A tag relationship with the default traits (policies: remove).
#[derive(Relationship, Debug)]
struct Likes;

/// A data relationship: each pair stores an `Eats`.
#[derive(Relationship, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

/// `on_delete_target = "remove"` spelled out.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "remove")]
struct Watches;

/// Holders are despawned with their target.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct BoundTo;

/// A target cannot be despawned while it is guarded.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Guards;

/// Not acyclic: cycles are allowed, and deleting a target deletes its holders.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct Follows;

/// An exclusive data relationship whose values record their drops.
#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct Holds {
    token: DropTable,
}

/// A non-exclusive data relationship whose values record their drops.
#[derive(Relationship, Debug)]
struct Owes {
    amount: u32,
    token: DropTable,
}

/// A data relationship whose holders are deleted with the target.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct Anchored {
    token: DropTable,
}

/// Traversable but not acyclic: `Up` must end on its cycles.
#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct Near;

/// A component recording the depth an entity was built at.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Level(u32);

// ----- helpers -------------------------------------------------------------------------

fn pos(x: f32) -> Position {
    Position { x, y: 0.0 }
}

fn empties<const N: usize>(world: &mut World) -> [Entity; N] {
    core::array::from_fn(|_| world.spawn_empty().id())
}

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// A runtime relationship: a named entity with `traits`.
fn runtime_relationship(world: &mut World, name: &str, traits: RelationshipTraits) -> Entity {
    let relationship = world.spawn(Name::new(name.to_owned())).id();
    world.set_relationship_traits(relationship, traits);
    relationship
}

/// The ids of `entity`'s archetype, owned (to compare before and after a change).
fn ids(world: &World, entity: Entity) -> Vec<Id> {
    world.ids_of(entity).expect("alive").to_vec()
}

/// The archetypes (alive or not) whose type names `entity`'s index in a pair or
/// as a plain id.
fn archetypes_naming(world: &World, entity: Entity) -> Vec<ecs::entity::ArchetypeId> {
    world
        .archetypes()
        .iter()
        .filter(|archetype| {
            archetype.ids().iter().any(|id| {
                if id.is_pair() {
                    id.first_index() == entity.index() || id.second_index() == entity.index()
                } else {
                    *id == entity.id()
                }
            })
        })
        .map(|archetype| archetype.id())
        .collect()
}

/// The depth of `entity` along `ChildOf` (roots: 0).
fn depth(world: &World, entity: Entity) -> u32 {
    let mut depth = 0;
    let mut current = entity;
    while let Some(parent) = world.parent(current) {
        depth += 1;
        current = parent;
    }
    depth
}

// ----- basic typed API -----------------------------------------------------------------

#[test]
fn pairs_are_added_queried_and_removed_through_the_typed_api() {
    let mut world = World::new();
    let [alice, bob, carol, apples] = empties(&mut world);
    assert!(world.add_pair::<Likes>(alice, bob));
    world.entity_mut(alice).add_pair::<Likes>(carol).insert_pair(Eats { amount: 2 }, apples);
    assert!(world.has_pair::<Likes>(alice, bob));
    assert!(world.has_pair::<Likes>(alice, carol));
    assert!(world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert!(!world.has_pair::<Likes>(bob, Entity::WILDCARD));
    assert!(!world.has_pair::<Likes>(alice, apples));
    assert!(world.has_pair::<Eats>(alice, apples));
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 2 }));
    assert!(world.get_pair::<Likes>(alice, bob).is_some());
    assert!(world.get_pair::<Likes>(bob, alice).is_none());
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![bob, carol]);
    assert_eq!(world.target::<Likes>(alice), Some(bob));
    assert_eq!(world.sources::<Likes>(carol).collect::<Vec<_>>(), vec![alice]);
    assert_eq!(world.targets::<Eats>(alice).collect::<Vec<_>>(), vec![apples]);
    assert_eq!(world.target::<Likes>(bob), None);
    world.get_pair_mut::<Eats>(alice, apples).unwrap().amount += 5;
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 7 }));
    world.check_invariants();

    assert!(world.remove_pair::<Likes>(alice, bob));
    assert!(!world.remove_pair::<Likes>(alice, bob), "removing twice reports false");
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![carol]);
    world.entity_mut(alice).remove_pair::<Likes>(carol);
    assert!(!world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 7 }), "other pairs stay");
    // Every entity is still alive: removing pairs despawns nothing.
    assert_eq!(world.entity_count(), 4);
    world.check_invariants();
}

#[test]
fn pairs_survive_component_moves_of_their_holder() {
    let mut world = World::new();
    let [bob, apples] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).add_pair::<Likes>(bob).insert_pair(Eats { amount: 3 }, apples).id();
    world.insert(alice, Velocity { x: 2.0, y: 0.0 });
    world.remove::<Position>(alice);
    assert!(world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 3 }));
    assert_eq!(world.get::<Velocity>(alice), Some(&Velocity { x: 2.0, y: 0.0 }));
    assert!(!world.has::<Position>(alice));
    world.check_invariants();
}

#[test]
fn a_data_relationship_needs_a_value() {
    let mut world = World::new();
    let [alice, apples] = empties(&mut world);
    let before = ids(&world, alice);
    let error = world.try_add_pair::<Eats>(alice, apples).unwrap_err();
    assert!(matches!(&error, PairError::NeedsValue { entity, .. } if *entity == alice), "{error:?}");
    assert_eq!(ids(&world, alice), before);
    let message = panic_message(|| world.add_pair::<Eats>(alice, apples));
    assert!(message.contains("Eats") && message.contains("insert_pair"), "{message}");
    assert!(!world.has_pair::<Eats>(alice, apples));
    world.check_invariants();
}

#[test]
fn runtime_relationships_use_entities_as_relationships() {
    let mut world = World::new();
    let [owes, alice, bob, carol] = empties(&mut world);
    assert!(world.add_pair_id(alice, owes, bob));
    world.entity_mut(alice).add_pair_id(owes, carol);
    assert!(world.has_pair_id(alice, owes, bob));
    assert!(world.has_pair_id(alice, owes, Entity::WILDCARD));
    assert!(world.has_id(alice, Id::pair(owes, carol)));
    assert!(!world.has_pair_id(bob, owes, Entity::WILDCARD));
    assert_eq!(
        sorted(world.ids_of(alice).unwrap().iter().copied()),
        sorted([Id::pair(owes, bob), Id::pair(owes, carol)])
    );
    assert!(world.remove_pair_id(alice, owes, bob));
    assert!(!world.remove_pair_id(alice, owes, bob));
    assert!(world.remove_id(alice, Id::pair(owes, carol)));
    assert_eq!(world.ids_of(alice), Some(&[][..]));
    world.check_invariants();
}

// ----- cleanup policies: on_delete_target ---------------------------------------------

#[test]
fn on_delete_target_remove_removes_the_pairs_and_keeps_the_holders() {
    let mut world = World::new();
    let [target, other] = empties(&mut world);
    let h1 = world.spawn(pos(1.0)).add_pair::<Watches>(target).add_pair::<Watches>(other).id();
    let h2 = world.spawn((pos(2.0), Enemy)).add_pair::<Watches>(target).add_pair::<Likes>(target).id();
    let h3 = world.spawn_empty().add_pair::<Likes>(other).id();
    assert_eq!(world.entity_count(), 5);

    assert!(world.despawn(target));
    assert!(!world.is_alive(target));
    for holder in [h1, h2, h3, other] {
        assert!(world.is_alive(holder));
    }
    assert_eq!(world.entity_count(), 4);
    // The pairs naming the target are gone; the others remain.
    assert_eq!(world.targets::<Watches>(h1).collect::<Vec<_>>(), vec![other]);
    assert_eq!(world.targets::<Watches>(h2).count(), 0);
    assert_eq!(world.targets::<Likes>(h2).count(), 0);
    assert_eq!(world.targets::<Likes>(h3).collect::<Vec<_>>(), vec![other]);
    // Components are kept.
    assert_eq!(world.get::<Position>(h1), Some(&pos(1.0)));
    assert_eq!(world.get::<Position>(h2), Some(&pos(2.0)));
    assert!(world.has::<Enemy>(h2));
    assert_eq!(world.ids_of(h2).unwrap().len(), 2, "h2 keeps Position and Enemy only");
    assert_eq!(world.sources::<Watches>(other).collect::<Vec<_>>(), vec![h1]);
    world.check_invariants();
}

#[test]
fn on_delete_target_delete_despawns_the_holders() {
    let mut world = World::new();
    let log = DropLog::new();
    let [target, other] = empties(&mut world);
    let h1 = world.spawn(log.table(1)).add_pair::<BoundTo>(target).id();
    let h2 = world.spawn((pos(2.0), log.table(2))).add_pair::<BoundTo>(target).add_pair::<Likes>(other).id();
    // Bound to something else: survives.
    let h3 = world.spawn(log.table(3)).add_pair::<BoundTo>(other).id();
    // Likes the dying holder h1: loses the pair (default remove) but survives.
    let fan = world.spawn(pos(9.0)).add_pair::<Likes>(h1).id();
    assert_eq!(world.entity_count(), 6);

    assert!(world.despawn(target));
    for dead in [target, h1, h2] {
        assert!(!world.is_alive(dead), "{dead:?} should be deleted");
    }
    for alive in [other, h3, fan] {
        assert!(world.is_alive(alive), "{alive:?} should survive");
    }
    assert_eq!(world.entity_count(), 3);
    log.assert_dropped_once([1, 2]);
    assert!(world.has_pair::<BoundTo>(h3, other));
    assert!(!world.has_pair::<Likes>(fan, Entity::WILDCARD));
    assert_eq!(world.get::<Position>(fan), Some(&pos(9.0)));
    assert_eq!(world.sources::<Likes>(other).count(), 0);
    world.check_invariants();
}

#[test]
fn on_delete_target_panic_refuses_the_despawn_and_changes_nothing() {
    let mut world = World::new();
    let [target, other] = empties(&mut world);
    let guard = world.spawn(pos(1.0)).add_pair::<Guards>(target).add_pair::<Likes>(target).id();
    let fan = world.spawn_empty().add_pair::<Likes>(target).id();
    let guard_ids = ids(&world, guard);
    let fan_ids = ids(&world, fan);
    let (count, archetypes) = (world.entity_count(), world.archetypes().len());

    let error = world.try_despawn(target).unwrap_err();
    assert_eq!(
        error,
        CleanupError { relationship: "Guards".to_owned(), despawned: target, as_target: true, holders: vec![guard] }
    );
    let message = panic_message(|| world.despawn(target));
    assert!(message.contains("Guards"), "names the relationship: {message}");
    assert!(message.contains(&format!("{guard:?}")), "names the holder: {message}");
    assert!(message.contains(&format!("{target:?}")), "names the despawned entity: {message}");
    assert!(message.contains("on_delete_target"), "{message}");
    assert_eq!(message, error.to_string());

    // Nothing changed: not even the Likes pair (remove policy) was removed.
    assert!(world.is_alive(target));
    assert_eq!(ids(&world, guard), guard_ids);
    assert_eq!(ids(&world, fan), fan_ids);
    assert!(world.has_pair::<Guards>(guard, target));
    assert!(world.has_pair::<Likes>(guard, target));
    assert!(world.has_pair::<Likes>(fan, target));
    assert_eq!(world.entity_count(), count);
    assert_eq!(world.archetypes().len(), archetypes);
    assert!(world.archetypes().iter().all(|archetype| !archetype.is_dead()));
    world.check_invariants();

    // Once the guard lets go, the despawn goes through.
    world.remove_pair::<Guards>(guard, target);
    assert_eq!(world.try_despawn(target), Ok(true));
    assert!(!world.has_pair::<Likes>(guard, Entity::WILDCARD));
    assert!(!world.has_pair::<Likes>(fan, Entity::WILDCARD));
    assert!(world.is_alive(other) && world.is_alive(guard) && world.is_alive(fan));
    world.check_invariants();
}

#[test]
fn a_panic_refusal_lists_holders_from_every_archetype() {
    let mut world = World::new();
    let [target] = empties(&mut world);
    let g1 = world.spawn_empty().add_pair::<Guards>(target).id();
    let g2 = world.spawn(pos(1.0)).add_pair::<Guards>(target).id();
    let error = world.try_despawn(target).unwrap_err();
    assert_eq!(set(error.holders.iter().copied()), set([g1, g2]), "{error}");
    assert!(world.is_alive(target));
    world.check_invariants();
}

#[test]
fn a_panic_policy_anywhere_in_the_cleanup_closure_refuses_the_whole_despawn() {
    let mut world = World::new();
    let log = DropLog::new();
    let root = world.spawn(log.table(1)).id();
    let child = world.spawn(log.table(2)).add_pair::<ChildOf>(root).id();
    let grandchild = world.spawn(log.table(3)).add_pair::<ChildOf>(child).id();
    let guard = world.spawn(pos(0.0)).add_pair::<Guards>(grandchild).id();
    let count = world.entity_count();

    let error = world.try_despawn(root).unwrap_err();
    assert_eq!(error.relationship, "Guards");
    assert_eq!(error.despawned, grandchild, "the entity whose despawn the policy refuses");
    assert!(error.as_target);
    assert_eq!(error.holders, vec![guard]);
    let message = panic_message(|| world.despawn(root));
    assert!(message.contains("Guards") && message.contains(&format!("{guard:?}")), "{message}");

    assert_eq!(world.entity_count(), count);
    assert_eq!(log.count(), 0, "nothing was dropped");
    assert_eq!(world.parent(child), Some(root));
    assert_eq!(world.parent(grandchild), Some(child));
    assert!(world.has_pair::<Guards>(guard, grandchild));
    world.check_invariants();

    world.remove_pair::<Guards>(guard, grandchild);
    assert!(world.despawn(root));
    assert!(!world.is_alive(child) && !world.is_alive(grandchild));
    assert!(world.is_alive(guard));
    log.assert_dropped_once([1, 2, 3]);
    world.check_invariants();
}

#[test]
fn a_panic_policy_holder_deleted_by_the_same_cleanup_does_not_refuse() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    // The child guards its own parent, but dies with it.
    let child = world.spawn_empty().add_pair::<ChildOf>(root).add_pair::<Guards>(root).id();
    // An entity guarding itself does not stop its own despawn either.
    let selfish = world.spawn_empty().id();
    world.add_pair::<Guards>(selfish, selfish);

    assert_eq!(world.try_despawn(root), Ok(true));
    assert!(!world.is_alive(root) && !world.is_alive(child));
    assert_eq!(world.try_despawn(selfish), Ok(true));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

// ----- cleanup policies: on_delete (runtime relationships) ------------------------------

#[test]
fn on_delete_remove_removes_pairs_and_ids_of_the_relationship() {
    let mut world = World::new();
    let owes = runtime_relationship(&mut world, "owes", RelationshipTraits::DEFAULT);
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).add_pair_id(owes, bob).add_pair_id(owes, carol).add_pair::<Likes>(bob).id();
    let dave = world.spawn(Enemy).id();
    world.add_id(dave, owes.id()); // `owes` used as a plain tag
    world.add_pair_id(dave, owes, alice);

    assert!(world.despawn(owes));
    assert!(!world.is_alive(owes));
    for alive in [alice, bob, carol, dave] {
        assert!(world.is_alive(alive));
    }
    assert_eq!(world.entity_count(), 4);
    assert!(!world.has_pair_id(alice, owes, Entity::WILDCARD));
    assert!(!world.has_id(alice, Id::pair(owes, bob)));
    assert!(!world.has_id(dave, owes.id()));
    assert!(world.has_pair::<Likes>(alice, bob), "pairs of other relationships stay");
    assert_eq!(world.get::<Position>(alice), Some(&pos(1.0)));
    assert_eq!(world.ids_of(alice).unwrap().len(), 2, "Position and (Likes, bob)");
    assert_eq!(world.ids_of(dave).unwrap().len(), 1, "Enemy only");
    assert!(world.has::<Enemy>(dave));
    world.check_invariants();
}

#[test]
fn on_delete_delete_despawns_every_holder_of_the_relationship() {
    let mut world = World::new();
    let log = DropLog::new();
    let owns = runtime_relationship(&mut world, "owns", RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let [alice, bob] = empties(&mut world);
    let book = world.spawn(log.table(1)).add_pair_id(owns, alice).id();
    let page = world.spawn(log.table(2)).add_pair::<ChildOf>(book).id(); // dies with book
    let pen = world.spawn(log.table(3)).id();
    world.add_id(pen, owns.id()); // plain id: deleted too
    let lamp = world.spawn(log.table(4)).add_pair::<Likes>(book).id(); // loses its pair only
    assert_eq!(world.entity_count(), 7);

    assert!(world.despawn(owns));
    for dead in [owns, book, page, pen] {
        assert!(!world.is_alive(dead), "{dead:?} should be deleted");
    }
    for alive in [alice, bob, lamp] {
        assert!(world.is_alive(alive), "{alive:?} should survive");
    }
    assert_eq!(world.entity_count(), 3);
    log.assert_dropped_once([1, 2, 3]);
    assert!(!world.has_pair::<Likes>(lamp, Entity::WILDCARD));
    world.check_invariants();
}

#[test]
fn on_delete_panic_refuses_despawning_the_relationship() {
    let mut world = World::new();
    let owes = runtime_relationship(&mut world, "owes", RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic));
    let [bob] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).add_pair_id(owes, bob).id();
    let alice_ids = ids(&world, alice);
    let count = world.entity_count();

    let error = world.try_despawn(owes).unwrap_err();
    assert_eq!(
        error,
        CleanupError { relationship: "owes".to_owned(), despawned: owes, as_target: false, holders: vec![alice] }
    );
    let message = panic_message(|| world.despawn(owes));
    assert!(message.contains("owes"), "names the relationship: {message}");
    assert!(message.contains(&format!("{alice:?}")), "names the holder: {message}");
    assert!(message.contains("on_delete"), "{message}");
    assert!(!message.contains("on_delete_target"), "{message}");

    assert!(world.is_alive(owes));
    assert_eq!(world.entity_count(), count);
    assert_eq!(ids(&world, alice), alice_ids);
    assert!(world.has_pair_id(alice, owes, bob));
    world.check_invariants();

    // The target itself may go (its policy is remove).
    assert!(world.despawn(bob));
    assert!(!world.has_pair_id(alice, owes, Entity::WILDCARD));
    // With no pairs left, the relationship still stays (Flecs: an entity whose
    // own on_delete is panic is never deleted).
    let error = world.try_despawn(owes).unwrap_err();
    assert!(error.holders.is_empty() && world.is_alive(owes));
    assert_eq!(world.get::<Position>(alice), Some(&pos(1.0)));
    world.check_invariants();
}

#[test]
fn on_delete_panic_also_guards_the_relationship_used_as_a_plain_id() {
    let mut world = World::new();
    let marked =
        runtime_relationship(&mut world, "marked", RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic));
    let holder = world.spawn_empty().id();
    world.add_id(holder, marked.id());
    let error = world.try_despawn(marked).unwrap_err();
    assert_eq!(error.relationship, "marked");
    assert_eq!(error.despawned, marked);
    assert!(!error.as_target);
    assert_eq!(error.holders, vec![holder]);
    assert!(world.has_id(holder, marked.id()));
    world.check_invariants();
}

#[test]
fn runtime_relationship_on_delete_target_policies_apply_too() {
    let mut world = World::new();
    let docked =
        runtime_relationship(&mut world, "docked", RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
    let [station, other] = empties(&mut world);
    let ship = world.spawn_empty().add_pair_id(docked, station).id();
    let ship2 = world.spawn_empty().add_pair_id(docked, other).id();
    assert!(world.despawn(station));
    assert!(!world.is_alive(ship));
    assert!(world.is_alive(ship2) && world.is_alive(docked));
    world.check_invariants();
}

#[test]
fn relationship_traits_do_not_outlive_their_entity() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.set_relationship_traits(old, RelationshipTraits::DEFAULT.exclusive());
    assert!(world.despawn(old));
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), old.index(), "the index is recycled");
    let [alice, a, b] = empties(&mut world);
    world.add_pair_id(alice, fresh, a);
    world.add_pair_id(alice, fresh, b);
    assert!(world.has_pair_id(alice, fresh, a), "a fresh entity is not exclusive");
    assert!(world.has_pair_id(alice, fresh, b));
    world.check_invariants();
}

#[test]
fn relationship_traits_of_a_used_relationship_are_forgotten_on_despawn() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.set_relationship_traits(old, RelationshipTraits::DEFAULT.exclusive().on_delete_target(CleanupPolicy::Delete));
    let [x, y] = empties(&mut world);
    world.add_pair_id(x, old, y);
    assert!(world.despawn(old));
    assert!(!world.has_pair_id(x, old, Entity::WILDCARD));
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), old.index(), "the index is recycled");
    let [alice, a, b] = empties(&mut world);
    world.add_pair_id(alice, fresh, a);
    world.add_pair_id(alice, fresh, b);
    assert!(world.has_pair_id(alice, fresh, a) && world.has_pair_id(alice, fresh, b));
    assert!(world.despawn(a));
    assert!(world.is_alive(alice), "default on_delete_target is remove");
    assert!(world.has_pair_id(alice, fresh, b));
    assert!(!world.has_pair_id(alice, fresh, a));
    world.check_invariants();
}

// ----- cleanup policies: on_delete (derived relationships) -------------------------------

/// Holders are despawned with the relationship's component entity.
#[derive(Relationship, Debug)]
#[relationship(on_delete = "delete")]
struct OwnedBy;

/// The relationship's component entity cannot be despawned while held.
#[derive(Relationship, Debug)]
#[relationship(on_delete = "panic")]
struct Pinned;

/// API.md: `world.despawn(world.component_id::<R>().unwrap())` applies `R`'s
/// `on_delete` policy to every holder, Flecs-style: remove (default) drops the
/// pairs and plain ids of `R` (each value once), delete despawns the holders
/// with their own cleanup cascading, panic refuses before anything changes,
/// naming `R` and a holder. Afterwards `R` is unregistered and its next use
/// registers it afresh.
#[test]
fn despawning_a_derived_relationships_entity_applies_its_on_delete_policy() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol, owner] = empties(&mut world);

    // remove (the default): pairs and the plain id go, values dropped once.
    let alice = world.spawn(pos(1.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let dave = world.spawn_empty().insert_pair(owes(&log, 1), bob).insert_pair(owes(&log, 2), carol).id();
    world.insert(dave, Likes);
    let likes = world.component_id::<Likes>().unwrap();
    let owes_id = world.component_id::<Owes>().unwrap();
    let mut fans = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(fans.iter(&world).count(), 2);
    assert!(world.despawn(likes));
    assert!(world.despawn(owes_id));
    log.assert_dropped_once([1, 2]);
    assert!(world.is_alive(alice) && world.is_alive(dave));
    assert_eq!(ids(&world, alice), vec![world.component_id::<Position>().unwrap().id()]);
    assert_eq!(ids(&world, dave), vec![]);
    assert!(!world.has_pair::<Likes>(alice, Entity::WILDCARD) && world.component_id::<Likes>().is_none());
    assert_eq!(world.get_pair::<Owes>(dave, bob).map(|o| o.amount), None);
    assert_eq!(fans.iter(&world).count(), 0, "a stale state matches nothing");
    world.check_invariants();

    // delete: holders go, and their own dependents with them.
    let held = world.spawn(pos(2.0)).add_pair::<OwnedBy>(owner).id();
    let child = world.spawn_empty().add_pair::<ChildOf>(held).id();
    let bystander = world.spawn(pos(3.0)).id();
    let owned_by = world.component_id::<OwnedBy>().unwrap();
    assert!(world.despawn(owned_by));
    assert!(!world.is_alive(held) && !world.is_alive(child), "ChildOf cascades from the deleted holder");
    assert!(world.is_alive(owner) && world.is_alive(bystander));
    world.check_invariants();

    // panic: refused before anything changes, naming Pinned and the holder.
    world.add_pair::<Pinned>(alice, bob);
    let pinned = world.component_id::<Pinned>().unwrap();
    let error = world.try_despawn(pinned).unwrap_err();
    assert_eq!(
        (error.relationship.as_str(), error.despawned, error.holders.as_slice()),
        ("Pinned", pinned, &[alice][..])
    );
    let message = panic_message(|| world.despawn(pinned));
    assert!(message.contains("Pinned") && message.contains(&format!("{alice:?}")), "{message}");
    assert!(world.is_alive(pinned) && world.has_pair::<Pinned>(alice, bob));
    world.remove_pair::<Pinned>(alice, bob);
    assert!(world.try_despawn(pinned).unwrap_err().holders.is_empty(), "never deleted (Flecs), held or not");
    assert!(world.is_alive(pinned));

    // The relationship is registered afresh on its next use.
    world.add_pair::<Likes>(alice, carol);
    let fresh = world.component_id::<Likes>().unwrap();
    assert_ne!(fresh, likes);
    assert!(world.entity_at(likes.index()).is_none(), "its index is retired");
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![carol]);
    assert_eq!(world.query::<(Entity, Pair<Likes>)>().iter(&world).count(), 1);
    world.check_invariants();
}

// ----- recursion and cycles --------------------------------------------------------------

#[test]
fn despawning_a_root_deletes_its_hierarchy_through_three_levels() {
    let mut world = World::new();
    let log = DropLog::new();
    let mut next_id = 0;
    let mut token = |log: &DropLog| {
        next_id += 1;
        log.table(next_id)
    };
    let root = world.spawn(token(&log)).id();
    let mut tree = vec![root];
    let mut children = Vec::new();
    for _ in 0..2 {
        let child = world.spawn(token(&log)).add_pair::<ChildOf>(root).id();
        children.push(child);
    }
    let mut grandchildren = Vec::new();
    for &child in &children {
        for _ in 0..2 {
            grandchildren.push(world.spawn((token(&log), pos(1.0))).add_pair::<ChildOf>(child).id());
        }
    }
    let mut great = Vec::new();
    for &grandchild in &grandchildren {
        great.push(world.spawn(token(&log)).add_pair::<ChildOf>(grandchild).id());
    }
    tree.extend(&children);
    tree.extend(&grandchildren);
    tree.extend(&great);
    assert_eq!(tree.len(), 1 + 2 + 4 + 4);
    let tree_tokens = next_id;

    // Unrelated entities: another tree, a loner, and a fan of a grandchild.
    let other_root = world.spawn(pos(5.0)).id();
    let other_child = world.spawn_empty().add_pair::<ChildOf>(other_root).id();
    let loner = world.spawn(Velocity::default()).id();
    let fan = world.spawn(Enemy).add_pair::<Likes>(grandchildren[2]).add_pair::<Likes>(other_root).id();
    assert_eq!(world.entity_count(), tree.len() + 4);
    assert_eq!(depth(&world, great[3]), 3);

    assert!(world.despawn(root));
    for &entity in &tree {
        assert!(!world.is_alive(entity), "{entity:?} should be deleted with the root");
    }
    for entity in [other_root, other_child, loner, fan] {
        assert!(world.is_alive(entity));
    }
    assert_eq!(world.entity_count(), 4);
    log.assert_dropped_once(1..=tree_tokens);
    assert_eq!(world.parent(other_child), Some(other_root));
    assert_eq!(world.targets::<Likes>(fan).collect::<Vec<_>>(), vec![other_root]);
    assert_eq!(world.children(other_root).collect::<Vec<_>>(), vec![other_child]);
    let mut positions = world.query::<&Position>();
    assert_eq!(positions.iter(&world).count(), 1, "only other_root's Position is left");
    world.check_invariants();
}

#[test]
fn despawning_a_middle_node_deletes_only_its_subtree() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let b = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let a1 = world.spawn_empty().add_pair::<ChildOf>(a).id();
    let a11 = world.spawn_empty().add_pair::<ChildOf>(a1).id();
    let b1 = world.spawn_empty().add_pair::<ChildOf>(b).id();
    assert!(world.despawn(a));
    assert!(!world.is_alive(a) && !world.is_alive(a1) && !world.is_alive(a11));
    assert!(world.is_alive(root) && world.is_alive(b) && world.is_alive(b1));
    assert_eq!(world.children(root).collect::<Vec<_>>(), vec![b]);
    assert_eq!(world.entity_count(), 3);
    world.check_invariants();
}

#[test]
fn a_cycle_of_a_delete_relationship_is_deleted_and_the_cleanup_terminates() {
    let mut world = World::new();
    let [a, b, c, bystander] = empties(&mut world);
    world.add_pair::<Follows>(a, b);
    world.add_pair::<Follows>(b, c);
    world.add_pair::<Follows>(c, a);
    let watcher = world.spawn_empty().add_pair::<Likes>(b).id();
    // A self-loop is allowed too (Follows is not acyclic).
    let narcissus = world.spawn_empty().id();
    world.add_pair::<Follows>(narcissus, narcissus);
    assert!(world.has_pair::<Follows>(narcissus, narcissus));
    world.check_invariants();

    assert!(world.despawn(a));
    for dead in [a, b, c] {
        assert!(!world.is_alive(dead), "{dead:?} should be deleted");
    }
    assert!(world.is_alive(bystander) && world.is_alive(watcher) && world.is_alive(narcissus));
    assert!(!world.has_pair::<Likes>(watcher, Entity::WILDCARD));
    assert_eq!(world.entity_count(), 3);
    world.check_invariants();

    assert!(world.despawn(narcissus));
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
}

// ----- acyclic relationships ---------------------------------------------------------------

#[test]
fn an_acyclic_relationship_rejects_cycles_and_leaves_the_world_unchanged() {
    let mut world = World::new();
    let [a, b, c] = empties(&mut world);
    world.add_pair::<ChildOf>(b, a);
    world.add_pair::<ChildOf>(c, b);
    let before: Vec<Vec<Id>> = [a, b, c].iter().map(|&e| ids(&world, e)).collect();
    let archetypes = world.archetypes().len();

    let error = world.try_add_pair::<ChildOf>(a, c).unwrap_err();
    assert_eq!(error, PairError::Cycle { relationship: "ChildOf".to_owned(), source: a, target: c });
    let message = panic_message(|| world.add_pair::<ChildOf>(a, c));
    assert!(message.contains("ChildOf"), "{message}");
    assert!(message.contains(&format!("{a:?}")) && message.contains(&format!("{c:?}")), "{message}");
    let message = panic_message(|| {
        world.entity_mut(a).add_pair::<ChildOf>(b);
    });
    assert!(message.contains(&format!("{a:?}")) && message.contains(&format!("{b:?}")), "{message}");
    // A self-loop is a cycle.
    assert!(matches!(
        world.try_add_pair::<ChildOf>(a, a),
        Err(PairError::Cycle { source, target, .. }) if source == a && target == a
    ));
    assert!(matches!(world.entity_mut(b).try_add_pair::<ChildOf>(c), Err(PairError::Cycle { .. })));

    let after: Vec<Vec<Id>> = [a, b, c].iter().map(|&e| ids(&world, e)).collect();
    assert_eq!(after, before);
    assert_eq!(world.parent(a), None);
    assert_eq!(world.parent(b), Some(a));
    assert_eq!(world.parent(c), Some(b));
    assert_eq!(world.archetypes().len(), archetypes, "no archetype was created");
    world.check_invariants();

    // Re-parenting that does not close a cycle is fine.
    let d = world.spawn_empty().id();
    world.add_pair::<ChildOf>(a, d);
    world.add_pair::<ChildOf>(c, a);
    assert_eq!(world.parent(c), Some(a));
    world.check_invariants();
}

#[test]
fn a_runtime_acyclic_relationship_rejects_cycles() {
    let mut world = World::new();
    let before = runtime_relationship(&mut world, "before", RelationshipTraits::DEFAULT.acyclic());
    let [a, b, c] = empties(&mut world);
    world.add_pair_id(a, before, b);
    world.add_pair_id(b, before, c);
    let error = world.try_add_id(c, Id::pair(before, a)).unwrap_err();
    assert_eq!(error, PairError::Cycle { relationship: "before".to_owned(), source: c, target: a });
    // Not exclusive: a second, acyclic target is fine.
    world.add_pair_id(a, before, c);
    assert!(world.has_pair_id(a, before, b) && world.has_pair_id(a, before, c));
    world.check_invariants();
}

// ----- exclusive relationships -------------------------------------------------------------

#[test]
fn an_exclusive_pair_replaces_the_previous_one_and_keeps_other_data() {
    let mut world = World::new();
    let [p1, p2, friend] = empties(&mut world);
    let child = world
        .spawn((pos(1.0), Velocity { x: 2.0, y: 3.0 }))
        .add_pair::<ChildOf>(p1)
        .add_pair::<Likes>(friend)
        .insert_pair(Eats { amount: 4 }, friend)
        .id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    assert_eq!(world.parent(child), Some(p2));
    assert_eq!(world.targets::<ChildOf>(child).collect::<Vec<_>>(), vec![p2]);
    assert!(!world.has_pair::<ChildOf>(child, p1));
    assert_eq!(world.children(p1).count(), 0);
    assert_eq!(world.children(p2).collect::<Vec<_>>(), vec![child]);
    assert_eq!(world.get::<Position>(child), Some(&pos(1.0)));
    assert_eq!(world.get::<Velocity>(child), Some(&Velocity { x: 2.0, y: 3.0 }));
    assert!(world.has_pair::<Likes>(child, friend));
    assert_eq!(world.get_pair::<Eats>(child, friend), Some(&Eats { amount: 4 }));
    assert_eq!(world.ids_of(child).unwrap().len(), 5);
    world.check_invariants();

    // Adding the same parent again changes nothing; going back works too.
    world.add_pair::<ChildOf>(child, p2);
    assert_eq!(world.targets::<ChildOf>(child).collect::<Vec<_>>(), vec![p2]);
    world.add_pair::<ChildOf>(child, p1);
    assert_eq!(world.targets::<ChildOf>(child).collect::<Vec<_>>(), vec![p1]);
    assert_eq!(world.get_pair::<Eats>(child, friend), Some(&Eats { amount: 4 }));
    // The old parent no longer deletes it.
    assert!(world.despawn(p2));
    assert!(world.is_alive(child));
    assert!(world.despawn(p1));
    assert!(!world.is_alive(child));
    world.check_invariants();
}

#[test]
fn an_exclusive_runtime_relationship_replaces_its_pair() {
    let mut world = World::new();
    let docked = runtime_relationship(&mut world, "docked", RelationshipTraits::DEFAULT.exclusive());
    let [s1, s2] = empties(&mut world);
    let ship = world.spawn(pos(1.0)).add_pair_id(docked, s1).id();
    world.add_pair_id(ship, docked, s2);
    assert!(!world.has_pair_id(ship, docked, s1));
    assert!(world.has_pair_id(ship, docked, s2));
    assert_eq!(world.get::<Position>(ship), Some(&pos(1.0)));
    assert_eq!(world.ids_of(ship).unwrap().len(), 2);
    world.check_invariants();
}

#[test]
fn an_exclusive_data_pair_drops_the_replaced_value_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [a, b] = empties(&mut world);
    let holder = world.spawn(pos(1.0)).insert_pair(Holds { token: log.table(1) }, a).id();
    world.insert_pair(holder, Holds { token: log.table(2) }, b);
    log.assert_dropped_once([1]);
    assert!(world.get_pair::<Holds>(holder, a).is_none());
    assert_eq!(world.get_pair::<Holds>(holder, b).map(|h| h.token.id), Some(2));
    assert_eq!(world.targets::<Holds>(holder).collect::<Vec<_>>(), vec![b]);
    assert_eq!(world.get::<Position>(holder), Some(&pos(1.0)));
    // Same target: the value is overwritten.
    world.insert_pair(holder, Holds { token: log.table(3) }, b);
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.get_pair::<Holds>(holder, b).map(|h| h.token.id), Some(3));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

// ----- wildcard rows -------------------------------------------------------------------------

#[test]
fn pair_terms_yield_one_row_per_pair() {
    let mut world = World::new();
    let [b, c, d] = empties(&mut world);
    let alice = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).add_pair::<Likes>(d).id();
    world.spawn(pos(0.0)); // no pairs: no rows

    let mut q = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(sorted(q.iter(&world)), vec![(alice, b), (alice, c), (alice, d)]);
    let mut targets = world.query::<Pair<Likes>>();
    assert_eq!(sorted(targets.iter(&world)), vec![b, c, d]);

    // A second entity with the same three pairs (same archetype): 6 rows.
    let bob = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).add_pair::<Likes>(d).id();
    assert_eq!(world.entities().location(alice).unwrap().archetype, world.entities().location(bob).unwrap().archetype);
    let rows = sorted(q.iter(&world));
    assert_eq!(rows.len(), 6);
    assert_eq!(set(rows), set([(alice, b), (alice, c), (alice, d), (bob, b), (bob, c), (bob, d)]));

    // The filter WithPair yields one row per entity, whatever its pair count.
    let mut with = world.query_filtered::<Entity, WithPair<Likes>>();
    assert_eq!(sorted(with.iter(&world)), sorted([alice, bob]));
    world.check_invariants();
}

#[test]
fn two_entities_with_different_targets_yield_six_rows() {
    let mut world = World::new();
    let targets: [Entity; 6] = empties(&mut world);
    let x = world
        .spawn_empty()
        .add_pair::<Likes>(targets[0])
        .add_pair::<Likes>(targets[1])
        .add_pair::<Likes>(targets[2])
        .id();
    let y = world
        .spawn(pos(1.0))
        .add_pair::<Likes>(targets[3])
        .add_pair::<Likes>(targets[4])
        .add_pair::<Likes>(targets[5])
        .id();
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    let rows = sorted(q.iter(&world));
    let expected: Vec<(Entity, Entity)> =
        sorted(targets[..3].iter().map(|&t| (x, t)).chain(targets[3..].iter().map(|&t| (y, t))));
    assert_eq!(rows, expected);
    let mut with_position = world.query::<(Entity, &Position, Pair<Likes>)>();
    assert_eq!(with_position.iter(&world).count(), 3);
}

#[test]
fn two_pair_terms_of_one_relationship_yield_the_product_of_the_pairs() {
    let mut world = World::new();
    let [b, c, d] = empties(&mut world);
    let alice = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).add_pair::<Likes>(d).id();
    let mut q = world.query::<(Entity, Pair<Likes>, Pair<Likes>)>();
    let rows = sorted(q.iter(&world));
    assert_eq!(rows.len(), 9);
    let expected: Vec<(Entity, Entity, Entity)> =
        sorted([b, c, d].iter().flat_map(|&x| [b, c, d].map(|y| (alice, x, y))));
    assert_eq!(rows, expected);
    let mut q2 = world.query::<(Pair<Likes>, Pair<Likes>)>();
    assert_eq!(q2.iter(&world).count(), 9);
}

#[test]
fn pair_ref_and_pair_mut_read_and_write_each_pairs_own_value() {
    let mut world = World::new();
    let [apples, pears, plums] = empties(&mut world);
    let alice = world
        .spawn_empty()
        .insert_pair(Eats { amount: 1 }, apples)
        .insert_pair(Eats { amount: 2 }, pears)
        .insert_pair(Eats { amount: 3 }, plums)
        .id();
    let bob = world.spawn(pos(0.0)).insert_pair(Eats { amount: 10 }, pears).id();

    let mut read = world.query::<(Entity, Pair<&Eats>)>();
    let rows: Vec<(Entity, Entity, u32)> = sorted(read.iter(&world).map(|(e, (t, eats))| (e, t, eats.amount)));
    assert_eq!(rows, sorted([(alice, apples, 1), (alice, pears, 2), (alice, plums, 3), (bob, pears, 10)]));

    let mut write = world.query::<(Entity, Pair<&mut Eats>)>();
    let mut visited = Vec::new();
    for (entity, (target, mut eats)) in write.iter_mut(&mut world) {
        visited.push((entity, target));
        eats.amount = eats.amount * 100 + target.index();
    }
    assert_eq!(visited.len(), 4);
    assert_eq!(set(visited), set([(alice, apples), (alice, pears), (alice, plums), (bob, pears)]));
    assert_eq!(world.get_pair::<Eats>(alice, apples).unwrap().amount, 100 + apples.index());
    assert_eq!(world.get_pair::<Eats>(alice, pears).unwrap().amount, 200 + pears.index());
    assert_eq!(world.get_pair::<Eats>(alice, plums).unwrap().amount, 300 + plums.index());
    assert_eq!(world.get_pair::<Eats>(bob, pears).unwrap().amount, 1000 + pears.index());
    world.check_invariants();
}

#[test]
fn with_pair_matches_a_runtime_target_and_nothing_once_it_dies() {
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    let fan = world.spawn(pos(1.0)).add_pair::<Likes>(bob).id();
    let both = world.spawn(pos(2.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    world.spawn(pos(3.0)).add_pair::<Likes>(carol);
    let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(bob);
    assert_eq!(sorted(q.iter(&world).map(|(e, _)| e)), sorted([fan, both]));
    // A later fan is seen by the same state.
    let late = world.spawn(pos(4.0)).add_pair::<Likes>(bob).id();
    assert_eq!(sorted(q.iter(&world).map(|(e, _)| e)), sorted([fan, both, late]));
    assert!(world.despawn(bob));
    assert_eq!(q.iter(&world).count(), 0);
    // A new entity recycling bob's index is not bob.
    let new_bob = world.spawn_empty().id();
    assert_eq!(new_bob.index(), bob.index());
    world.add_pair::<Likes>(fan, new_bob);
    assert_eq!(q.iter(&world).count(), 0);
    world.check_invariants();
}

/// `Entity::WILDCARD` (and `Entity::ANY`) as a runtime target means "any
/// target" wherever a target is looked for: `with_pair` and `has_pair` filter
/// (one row per entity), `sources` lists every holder once, `get_pair` /
/// `get_pair_mut` read the first pair in id order, and removals remove every
/// matching pair (values dropped once). A wildcard is a pattern: adding one is
/// an error naming it, never a pair stored in an archetype.
#[test]
fn a_wildcard_target_means_any_target_in_every_runtime_target_entry_point() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol, dave] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let eve = world.spawn(pos(2.0)).add_pair::<Likes>(carol).id();
    let loner = world.spawn(pos(3.0)).id();
    for wildcard in [Entity::WILDCARD, Entity::ANY] {
        let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(wildcard);
        assert_eq!(sorted(q.iter(&world).map(|(e, _)| e)), sorted([alice, eve]), "{wildcard:?}: one row each");
        assert!(q.get(&world, loner).is_err());
        assert!(world.has_pair::<Likes>(alice, wildcard) && !world.has_pair::<Likes>(loner, wildcard));
        assert_eq!(sorted(world.sources::<Likes>(wildcard)), sorted([alice, eve]), "{wildcard:?}");
        assert!(
            world.get_pair::<Likes>(alice, wildcard).is_some() && world.get_pair::<Likes>(loner, wildcard).is_none()
        );
    }
    let likes = world.component_id::<Likes>().unwrap();
    assert!(world.has_pair_id(alice, likes, Entity::WILDCARD) && world.has_pair_id(alice, Entity::WILDCARD, bob));
    assert!(world.has_id(alice, Id::pair(Entity::WILDCARD, Entity::WILDCARD)));
    assert!(!world.has_id(loner, Id::pair(Entity::WILDCARD, Entity::WILDCARD)));
    // A state built before the pairs sees later holders too.
    let mut fans = world.query::<Entity>().with_pair::<Likes>(Entity::WILDCARD);
    let late = world.spawn_empty().add_pair::<Likes>(dave).id();
    assert_eq!(sorted(fans.iter(&world)), sorted([alice, eve, late]));

    // Values: the first pair in id order (the lowest target index).
    world.entity_mut(dave).insert_pair(owes(&log, 2), carol).insert_pair(owes(&log, 1), bob);
    assert_eq!(world.get_pair::<Owes>(dave, Entity::WILDCARD).map(|o| o.amount), Some(1));
    world.get_pair_mut::<Owes>(dave, Entity::WILDCARD).unwrap().amount = 10;
    assert_eq!(world.get_pair::<Owes>(dave, bob).map(|o| o.amount), Some(10));

    // Removal removes every matching pair, in one move; values dropped once.
    assert!(world.remove_pair::<Owes>(dave, Entity::WILDCARD));
    log.assert_dropped_once([1, 2]);
    assert!(!world.has_pair::<Owes>(dave, Entity::WILDCARD));
    assert!(!world.remove_pair::<Owes>(dave, Entity::WILDCARD), "nothing left to remove");
    world.entity_mut(alice).remove_pair::<Likes>(Entity::WILDCARD);
    assert!(!world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert_eq!(world.get::<Position>(alice), Some(&pos(1.0)), "other ids stay");
    assert!(world.remove_pair_id(late, likes, Entity::ANY));
    assert!(world.remove_id(eve, Id::pair(Entity::WILDCARD, carol)));
    assert_eq!(fans.iter(&world).count(), 0);
    world.add_pair::<Likes>(eve, bob);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(eve).remove_pair::<Likes>(Entity::WILDCARD);
    queue.apply(&mut world);
    assert!(!world.has_pair::<Likes>(eve, Entity::WILDCARD));

    // Adding a wildcard is an error that names it; nothing changes.
    let before = ids(&world, loner);
    for target in [Entity::WILDCARD, Entity::ANY] {
        match world.try_add_pair::<Likes>(loner, target) {
            Err(PairError::Wildcard { id, entity }) => {
                assert_eq!(entity, loner);
                assert!(id.starts_with("(Likes, "), "{id}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(world.try_insert_pair(loner, owes(&log, 3), target), Err(PairError::Wildcard { .. })));
    }
    log.assert_dropped_once([1, 2, 3, 3]);
    assert!(matches!(world.try_add_id(loner, Entity::WILDCARD.id()), Err(PairError::Wildcard { .. })));
    let message = panic_message(|| world.add_pair_id(loner, Entity::WILDCARD, bob));
    assert!(message.contains("wildcard"), "{message}");
    let message = panic_message(|| world.add_pair::<Likes>(loner, Entity::WILDCARD));
    assert!(message.contains("Likes") && message.contains("wildcard"), "{message}");
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(loner).add_pair::<Likes>(Entity::WILDCARD);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains("wildcard"), "{message}");
    assert_eq!(ids(&world, loner), before);
    world.check_invariants();
}

// ----- Up traversal ---------------------------------------------------------------------------

#[test]
fn up_reads_the_nearest_ancestor_and_sees_hierarchy_changes() {
    let mut world = World::new();
    let root = world.spawn(pos(1.0)).id();
    let middle = world.spawn(Velocity::default()).add_pair::<ChildOf>(root).id();
    let leaf = world.spawn_empty().add_pair::<ChildOf>(middle).id();
    let orphan = world.spawn(pos(7.0)).id();
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let rows = |q: &mut QueryState<(Entity, Up<ChildOf, &Position>)>, world: &World| {
        sorted(q.iter(world).map(|(e, p)| (e, p.x as i32)))
    };
    // Through two levels: the leaf reads the root's Position (the middle lacks it);
    // roots and the orphan do not match (the entity itself is excluded).
    assert_eq!(rows(&mut q, &world), sorted([(middle, 1), (leaf, 1)]));

    // The nearest ancestor wins.
    world.insert(middle, pos(2.0));
    assert_eq!(rows(&mut q, &world), sorted([(middle, 1), (leaf, 2)]));

    // Re-parenting the leaf under the orphan.
    world.add_pair::<ChildOf>(leaf, orphan);
    assert_eq!(rows(&mut q, &world), sorted([(middle, 1), (leaf, 7)]));

    // Removing the component from an ancestor.
    world.remove::<Position>(root);
    assert_eq!(rows(&mut q, &world), sorted([(leaf, 7)]));
    world.remove::<Position>(orphan);
    assert_eq!(rows(&mut q, &world), vec![]);

    // Adding it back to the root: the leaf's chain (orphan) still lacks it.
    world.insert(root, pos(3.0));
    assert_eq!(rows(&mut q, &world), sorted([(middle, 3)]));
    // Moving the leaf back under the middle, then changing a value in place.
    world.add_pair::<ChildOf>(leaf, middle);
    world.get_mut::<Position>(middle).unwrap().x = 5.0;
    assert_eq!(rows(&mut q, &world), sorted([(middle, 3), (leaf, 5)]));
    // Removing the middle's Position: the leaf reads the root again.
    world.remove::<Position>(middle);
    assert_eq!(rows(&mut q, &world), sorted([(middle, 3), (leaf, 3)]));
    world.check_invariants();
}

#[test]
fn up_combines_with_the_entitys_own_components_and_filters() {
    let mut world = World::new();
    let root = world.spawn(pos(10.0)).id();
    let a = world.spawn(pos(1.0)).add_pair::<ChildOf>(root).id();
    let b = world.spawn((pos(2.0), Enemy)).add_pair::<ChildOf>(root).id();
    let mut q = world.query_filtered::<(Entity, &Position, Up<ChildOf, &Position>), WithPair<ChildOf>>();
    let rows = sorted(q.iter(&world).map(|(e, own, up)| (e, own.x as i32, up.x as i32)));
    assert_eq!(rows, sorted([(a, 1, 10), (b, 2, 10)]));
    let mut enemies = world.query_filtered::<(Entity, Up<ChildOf, &Position>), With<Enemy>>();
    assert_eq!(enemies.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
}

#[test]
fn up_ends_on_a_cycle_of_a_traversable_relationship() {
    let mut world = World::new();
    let [a, b] = empties(&mut world);
    world.add_pair::<Near>(a, b);
    world.add_pair::<Near>(b, a);
    let selfish = world.spawn_empty().id();
    world.add_pair::<Near>(selfish, selfish);
    let mut q = world.query::<(Entity, Up<Near, &Position>)>();
    assert_eq!(q.iter(&world).count(), 0, "nobody in the cycles has a Position");
    world.insert(b, pos(4.0));
    // a reads b's. (b reaches its own Position only around the cycle; whether that
    // counts is not specified, so only a's row is checked, and that it ends.)
    let rows = sorted(q.iter(&world).map(|(e, p)| (e, p.x as i32)));
    assert!(rows.contains(&(a, 4)), "{rows:?}");
    assert!(rows.iter().all(|&(e, x)| (e == a || e == b) && x == 4), "{rows:?}");
    world.check_invariants();
}

#[test]
fn fixed_reads_one_source_for_every_row_and_nothing_once_it_is_gone() {
    let mut world = World::new();
    let settings = world.spawn(Velocity { x: 0.0, y: -9.8 }).id();
    let e1 = world.spawn(pos(1.0)).id();
    let e2 = world.spawn(pos(2.0)).add_pair::<Likes>(settings).id();
    let mut q = world.query::<(Entity, &Position, Fixed<&Velocity>)>().with_source::<Velocity>(settings);
    let rows = sorted(q.iter(&world).map(|(e, _, v)| (e, v.y as i32)));
    assert_eq!(rows, sorted([(e1, -9), (e2, -9)]));
    world.get_mut::<Velocity>(settings).unwrap().y = -1.0;
    assert!(q.iter(&world).all(|(_, _, v)| v.y == -1.0));
    assert!(world.despawn(settings));
    assert_eq!(q.iter(&world).count(), 0);
    // An entity recycling the source's index is not the source.
    let impostor = world.spawn(Velocity { x: 1.0, y: 1.0 }).id();
    assert_eq!(impostor.index(), settings.index());
    assert_eq!(q.iter(&world).count(), 0);
    world.check_invariants();
}

// ----- cascade -------------------------------------------------------------------------------

#[test]
fn cascade_yields_parents_before_children_whatever_the_archetype_order() {
    let mut world = World::new();
    // Spawn everything first, then link bottom-up: the children's archetypes
    // (ChildOf their parent) are created before their parents' archetypes.
    let roots = [world.spawn(Level(0)).id(), world.spawn((Level(0), Enemy)).id()];
    let mids: Vec<Entity> = (0..4)
        .map(
            |i| if i % 2 == 0 { world.spawn(Level(1)).id() } else { world.spawn((Level(1), Velocity::default())).id() },
        )
        .collect();
    let leaves: Vec<Entity> = (0..6)
        .map(|i| if i % 3 == 0 { world.spawn((Level(2), Enemy)).id() } else { world.spawn(Level(2)).id() })
        .collect();
    for (i, &leaf) in leaves.iter().enumerate() {
        world.add_pair::<ChildOf>(leaf, mids[i % mids.len()]);
    }
    for (i, &mid) in mids.iter().enumerate() {
        world.add_pair::<ChildOf>(mid, roots[i % 2]);
    }
    let mut everyone: Vec<Entity> = roots.to_vec();
    everyone.extend(&mids);
    everyone.extend(&leaves);
    for &entity in &everyone {
        assert_eq!(Some(&Level(depth(&world, entity))), world.get::<Level>(entity));
    }

    let mut q = world.query::<(Entity, &Level)>().cascade::<ChildOf>();
    let order: Vec<(Entity, u32)> = q.iter(&world).map(|(e, l)| (e, l.0)).collect();
    assert_eq!(set(order.iter().map(|(e, _)| *e)), set(everyone.iter().copied()));
    assert_eq!(order.len(), everyone.len());
    let levels: Vec<u32> = order.iter().map(|(_, l)| *l).collect();
    assert!(levels.windows(2).all(|w| w[0] <= w[1]), "not parents first: {levels:?}");

    // Re-parenting changes depths; the same state follows.
    world.add_pair::<ChildOf>(mids[0], mids[1]);
    let order: Vec<Entity> = q.iter(&world).map(|(e, _)| e).collect();
    let depths: Vec<u32> = order.iter().map(|&e| depth(&world, e)).collect();
    assert_eq!(order.len(), everyone.len());
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "not parents first after re-parenting: {depths:?}");
    assert_eq!(depths.last(), Some(&3));
    world.check_invariants();
}

// ----- archetype deletion ----------------------------------------------------------------------

#[test]
fn archetypes_naming_a_dead_entity_are_deleted_and_its_index_can_be_reused() {
    let mut world = World::new();
    let [target, other] = empties(&mut world);
    let a = world.spawn(pos(1.0)).add_pair::<Likes>(target).id();
    let b = world.spawn((pos(2.0), Enemy)).add_pair::<Likes>(target).add_pair::<Likes>(other).id();
    let c = world.spawn_empty().insert_pair(Eats { amount: 1 }, target).id();
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(q.iter(&world).count(), 3);
    let naming = archetypes_naming(&world, target);
    assert!(naming.len() >= 3, "{naming:?}");
    let likes = world.component_id::<Likes>().unwrap();
    let likes_archetypes: Vec<_> =
        naming.iter().copied().filter(|&id| world.archetypes()[id].ids().contains(&Id::pair(likes, target))).collect();
    assert_eq!(likes_archetypes.len(), 3, "a, b before and after its second pair");
    for id in &likes_archetypes {
        assert!(q.matched_archetypes().any(|m| m == *id), "the query matched {id:?}");
    }

    assert!(world.despawn(target));
    for &id in &naming {
        assert!(world.archetypes()[id].is_dead(), "{id:?} names the dead entity but is not dead");
        assert!(world.archetypes()[id].is_empty());
    }
    assert!(archetypes_naming(&world, target).iter().all(|&id| world.archetypes()[id].is_dead()));
    assert_eq!(sorted(q.iter(&world)), vec![(b, other)]);
    let matched: Vec<_> = q.matched_archetypes().collect();
    for &id in &naming {
        assert!(!matched.contains(&id), "the query still lists dead {id:?}");
    }
    assert!(matched.iter().all(|&id| !world.archetypes()[id].is_dead()));
    world.check_invariants();

    // The index is recycled; pairs with the new entity work (through the same
    // cached edges that led to the dead archetypes).
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), target.index());
    assert_ne!(fresh, target);
    world.add_pair::<Likes>(a, fresh);
    world.add_pair::<Likes>(b, fresh);
    world.insert_pair(c, Eats { amount: 2 }, fresh);
    assert!(world.has_pair::<Likes>(a, fresh) && world.has_pair::<Likes>(b, fresh));
    assert!(!world.has_pair::<Likes>(a, target));
    assert_eq!(world.get_pair::<Eats>(c, fresh), Some(&Eats { amount: 2 }));
    assert_eq!(world.get_pair::<Eats>(c, target), None);
    for entity in [a, b, c] {
        let archetype = world.entities().location(entity).unwrap().archetype;
        assert!(!world.archetypes()[archetype].is_dead());
    }
    assert_eq!(sorted(q.iter(&world)), sorted([(a, fresh), (b, other), (b, fresh)]));
    assert_eq!(world.get::<Position>(b), Some(&pos(2.0)));
    assert_eq!(sorted(world.sources::<Likes>(fresh)), sorted([a, b]));
    world.check_invariants();

    // And the new target's cleanup works as well.
    assert!(world.despawn(fresh));
    assert_eq!(sorted(q.iter(&world)), vec![(b, other)]);
    assert!(!world.has_pair::<Eats>(c, Entity::WILDCARD));
    world.check_invariants();
}

#[test]
fn a_dead_runtime_relationships_archetypes_are_deleted() {
    let mut world = World::new();
    let owes = world.spawn_empty().id();
    let [bob] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).add_pair_id(owes, bob).id();
    let naming = archetypes_naming(&world, owes);
    assert!(!naming.is_empty());
    assert!(world.despawn(owes));
    assert!(naming.iter().all(|&id| world.archetypes()[id].is_dead()));
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), owes.index());
    world.add_pair_id(alice, fresh, bob);
    assert!(world.has_pair_id(alice, fresh, bob));
    assert!(!world.has_pair_id(alice, owes, bob));
    world.check_invariants();
}

// ----- drop accounting ----------------------------------------------------------------------

fn owes(log: &DropLog, id: u32) -> Owes {
    Owes { amount: id, token: log.table(id) }
}

#[test]
fn remove_pair_drops_the_value_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(pos(0.0)).insert_pair(owes(&log, 1), bob).insert_pair(owes(&log, 2), carol).id();
    assert_eq!(log.count(), 0);
    assert!(world.remove_pair::<Owes>(alice, bob));
    log.assert_dropped_once([1]);
    assert_eq!(world.get_pair::<Owes>(alice, carol).map(|o| o.amount), Some(2));
    world.entity_mut(alice).remove_pair::<Owes>(carol);
    log.assert_dropped_once([1, 2]);
    assert!(!world.remove_pair::<Owes>(alice, carol));
    log.assert_dropped_once([1, 2]);
    world.check_invariants();
}

#[test]
fn insert_pair_overwrite_drops_the_old_value_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob] = empties(&mut world);
    let alice = world.spawn_empty().insert_pair(owes(&log, 1), bob).id();
    world.insert_pair(alice, owes(&log, 2), bob);
    log.assert_dropped_once([1]);
    assert_eq!(world.get_pair::<Owes>(alice, bob).map(|o| o.amount), Some(2));
    world.get_pair_mut::<Owes>(alice, bob).unwrap().token = log.table(3);
    log.assert_dropped_once([1, 2]);
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

#[test]
fn moving_the_holder_between_archetypes_drops_no_pair_value() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn_empty().insert_pair(owes(&log, 1), bob).id();
    world.insert(alice, pos(1.0));
    world.add_pair::<Likes>(alice, carol);
    world.insert_pair(alice, owes(&log, 2), carol);
    world.remove::<Position>(alice);
    world.remove_pair::<Likes>(alice, carol);
    assert_eq!(log.count(), 0);
    assert_eq!(world.get_pair::<Owes>(alice, bob).map(|o| o.token.id), Some(1));
    assert_eq!(world.get_pair::<Owes>(alice, carol).map(|o| o.token.id), Some(2));
    world.check_invariants();
}

#[test]
fn cleanup_removal_drops_the_pair_value_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(pos(1.0)).insert_pair(owes(&log, 1), bob).insert_pair(owes(&log, 2), carol).id();
    let dave = world.spawn_empty().insert_pair(owes(&log, 3), bob).id();
    assert!(world.despawn(bob));
    log.assert_dropped_once([1, 3]);
    assert!(world.is_alive(alice) && world.is_alive(dave));
    assert_eq!(world.get_pair::<Owes>(alice, carol).map(|o| o.token.id), Some(2));
    assert!(!world.has_pair::<Owes>(dave, Entity::WILDCARD));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

#[test]
fn cleanup_deletion_drops_the_holders_pair_values_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [anchor] = empties(&mut world);
    let holder = world.spawn(log.table(10)).insert_pair(Anchored { token: log.table(1) }, anchor).id();
    let holder2 = world
        .spawn_empty()
        .insert_pair(Anchored { token: log.table(2) }, anchor)
        .insert_pair(owes(&log, 3), holder)
        .id();
    assert_eq!(world.get_pair::<Anchored>(holder, anchor).map(|a| a.token.id), Some(1));
    assert!(world.despawn(anchor));
    assert!(!world.is_alive(holder) && !world.is_alive(holder2));
    log.assert_dropped_once([1, 2, 3, 10]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn despawning_the_holder_drops_its_pair_values_exactly_once() {
    let mut world = World::new();
    let log = DropLog::new();
    let [bob, carol] = empties(&mut world);
    let alice = world.spawn(log.table(10)).insert_pair(owes(&log, 1), bob).insert_pair(owes(&log, 2), carol).id();
    let other = world.spawn_empty().insert_pair(owes(&log, 3), bob).id();
    assert!(world.despawn(alice));
    log.assert_dropped_once([1, 2, 10]);
    assert_eq!(world.get_pair::<Owes>(other, bob).map(|o| o.token.id), Some(3));
    world.check_invariants();
}

#[test]
fn dropping_the_world_drops_every_pair_value_exactly_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let [bob, carol] = empties(&mut world);
    world.spawn(pos(1.0)).insert_pair(owes(&log, 1), bob).insert_pair(owes(&log, 2), carol);
    world.spawn_empty().insert_pair(owes(&log, 3), bob).insert_pair(Holds { token: log.table(4) }, carol);
    world.spawn_empty().insert_pair(Anchored { token: log.table(5) }, carol);
    assert_eq!(log.count(), 0);
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 5]);
}

#[test]
fn a_cascading_delete_drops_every_value_once_with_remove_and_delete_mixed() {
    let mut world = World::new();
    let log = DropLog::new();
    let root = world.spawn(log.table(100)).id();
    let keep = world.spawn_empty().id();
    let child = world.spawn(log.table(101)).add_pair::<ChildOf>(root).insert_pair(owes(&log, 1), root).id();
    // Survivor holding data pairs on both dying entities: loses both, in one move.
    let survivor = world
        .spawn(log.table(200))
        .insert_pair(owes(&log, 2), root)
        .insert_pair(owes(&log, 3), child)
        .insert_pair(owes(&log, 4), keep)
        .id();
    assert!(world.despawn(root));
    assert!(!world.is_alive(child));
    log.assert_dropped_once([1, 2, 3, 100, 101]);
    assert!(world.is_alive(survivor));
    assert_eq!(world.targets::<Owes>(survivor).collect::<Vec<_>>(), vec![keep]);
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 100, 101, 200]);
}

// ----- commands --------------------------------------------------------------------------

#[test]
fn queued_pairs_apply_in_order_and_reach_reserved_entities() {
    let mut world = World::new();
    let log = DropLog::new();
    let [parent] = empties(&mut world);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let child = commands.spawn(pos(1.0)).add_pair::<ChildOf>(parent).id();
    let target = commands.spawn_empty().id();
    commands.entity(child).add_pair::<Likes>(target).insert_pair(owes(&log, 1), target);
    commands.entity(child).insert_pair(owes(&log, 2), target); // overwrites 1
    commands.entity(parent).add_pair::<Likes>(child).remove_pair::<Likes>(child);
    assert!(!world.is_alive(child));
    queue.apply(&mut world);
    assert_eq!(world.parent(child), Some(parent));
    assert!(world.has_pair::<Likes>(child, target));
    assert!(!world.has_pair::<Likes>(parent, Entity::WILDCARD));
    log.assert_dropped_once([1]);
    assert_eq!(world.get_pair::<Owes>(child, target).map(|o| o.token.id), Some(2));
    world.check_invariants();
}

#[test]
fn a_queued_pair_with_a_dead_target_follows_the_targets_policy() {
    let mut world = World::new();
    let log = DropLog::new();
    let [target, keeps, deleted, refused] = empties(&mut world);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(target).despawn();
    commands.entity(keeps).add_pair::<Likes>(target).insert_pair(owes(&log, 1), target);
    commands.entity(deleted).add_pair::<BoundTo>(target);
    queue.apply(&mut world);
    assert!(world.is_alive(keeps) && !world.has_pair::<Likes>(keeps, Entity::WILDCARD));
    assert!(!world.has_pair::<Owes>(keeps, Entity::WILDCARD));
    log.assert_dropped_once([1]);
    assert!(!world.is_alive(deleted), "BoundTo deletes holders of a dead target");

    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(refused).add_pair::<Guards>(target);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains("Guards") && message.contains(&format!("{target:?}")), "{message}");
    assert!(world.is_alive(refused) && !world.has_pair::<Guards>(refused, Entity::WILDCARD));

    // A cycle is reported when the command applies.
    let [a, b] = empties(&mut world);
    world.add_pair::<ChildOf>(b, a);
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(a).add_pair::<ChildOf>(b);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains("ChildOf") && message.contains("cyclic"), "{message}");
    assert_eq!(world.parent(a), None);
    world.check_invariants();
}

/// `add_pair_id` through commands applies the same cleanup policies as the
/// typed `add_pair`: a target despawned earlier in the buffer applies the
/// relationship's `on_delete_target` (delete: the holder is despawned; remove:
/// nothing is added; panic: the command panics naming both), and a despawned
/// relationship applies its `on_delete` (with the traits it had when queued).
#[test]
fn a_queued_runtime_pair_with_a_dead_half_follows_the_same_policies_as_the_typed_one() {
    let mut world = World::new();
    let bound =
        runtime_relationship(&mut world, "bound", RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
    let watches = runtime_relationship(&mut world, "watches", RelationshipTraits::DEFAULT);
    let guards =
        runtime_relationship(&mut world, "guards", RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Panic));
    let owns = runtime_relationship(&mut world, "owns", RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let [target, deleted, typed, kept, owned, refused] = empties(&mut world);

    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(target).despawn();
    commands.entity(deleted).add_pair_id(bound, target);
    commands.entity(typed).add_pair::<BoundTo>(target);
    commands.entity(kept).add_pair_id(watches, target);
    commands.entity(owns).despawn();
    commands.entity(owned).add_pair_id(owns, kept);
    queue.apply(&mut world);
    assert!(!world.is_alive(typed), "the typed path deletes the holder of a dead BoundTo target");
    assert!(!world.is_alive(deleted), "so does the id path under on_delete_target = delete");
    assert!(world.is_alive(kept) && world.ids_of(kept) == Some(&[][..]), "remove: nothing added");
    assert!(!world.is_alive(owned), "a dead relationship applies its on_delete = delete");

    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(refused).add_pair_id(guards, target);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains(&format!("{refused:?}")) && message.contains(&format!("{target:?}")), "{message}");
    assert!(message.contains("guards") && message.contains("on_delete_target"), "{message}");
    assert!(world.is_alive(refused) && world.ids_of(refused) == Some(&[][..]));
    world.check_invariants();
}

// ----- odds and ends --------------------------------------------------------------------------

#[test]
fn a_tag_relationship_can_be_inserted_with_its_unit_value() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.insert_pair(alice, Likes, bob);
    assert!(world.has_pair::<Likes>(alice, bob));
    assert!(world.get_pair::<Likes>(alice, bob).is_some());
    assert!(world.get_pair_mut::<Likes>(alice, bob).is_none(), "documented: None for tags");
    world.check_invariants();
}

#[test]
fn a_relationships_component_entity_is_despawned_through_its_policy_and_keeps_its_traits_until_then() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.add_pair::<Guards>(alice, bob);
    let guards = world.component_id::<Guards>().unwrap();
    let message = panic_message(|| world.set_relationship_traits(guards, RelationshipTraits::DEFAULT));
    assert!(message.contains("Guards"), "{message}");
    // Guards' on_delete is the default (remove): the holder loses the pair.
    assert_eq!(world.try_despawn(guards), Ok(true));
    assert_eq!(world.try_despawn(guards), Ok(false), "already dead");
    assert!(world.is_alive(alice) && !world.has_pair::<Guards>(alice, Entity::WILDCARD));
    assert_eq!(world.try_despawn(alice), Ok(true), "holders may go");
    world.check_invariants();
}

// ----- stale handles ------------------------------------------------------------------------

#[test]
fn stale_targets_are_not_found_and_cannot_be_added() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.add_pair::<Likes>(alice, bob);
    world.insert_pair(alice, Eats { amount: 1 }, bob);
    assert!(world.despawn(bob));
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.get_pair::<Likes>(alice, bob).is_none());
    assert!(world.get_pair::<Eats>(alice, bob).is_none());
    assert!(world.get_pair_mut::<Eats>(alice, bob).is_none());
    assert!(!world.remove_pair::<Likes>(alice, bob));
    assert!(!world.has_pair_id(alice, world.component_id::<Likes>().unwrap(), bob));

    assert_eq!(world.try_add_pair::<Likes>(alice, bob), Err(PairError::NotAlive(bob)));
    assert_eq!(world.try_insert_pair(alice, Eats { amount: 2 }, bob), Err(PairError::NotAlive(bob)));
    assert_eq!(world.entity_mut(alice).try_add_pair::<Likes>(bob).err(), Some(PairError::NotAlive(bob)));
    let message = panic_message(|| world.add_pair::<Likes>(alice, bob));
    assert!(message.contains(&format!("{bob:?}")) && message.contains("not alive"), "{message}");
    assert!(message.contains("Likes"), "{message}");
    let message = panic_message(|| {
        world.entity_mut(alice).add_pair::<Likes>(bob);
    });
    assert!(message.contains(&format!("{bob:?}")) && message.contains("not alive"), "{message}");
    let message = panic_message(|| world.insert_pair(alice, Eats { amount: 3 }, bob));
    assert!(message.contains(&format!("{bob:?}")) && message.contains("not alive"), "{message}");
    let [owes] = empties(&mut world);
    let message = panic_message(|| world.add_pair_id(alice, owes, bob));
    assert!(message.contains(&format!("{bob:?}")) && message.contains("not alive"), "{message}");
    assert_eq!(world.ids_of(alice), Some(&[][..]), "nothing was added");
    world.check_invariants();
}

#[test]
fn a_stale_target_is_not_confused_with_the_entity_that_reuses_its_index() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    assert!(world.despawn(bob));
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), bob.index());
    world.add_pair::<Likes>(alice, fresh);
    world.insert_pair(alice, Eats { amount: 5 }, fresh);
    assert!(world.has_pair::<Likes>(alice, fresh));
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.get_pair::<Eats>(alice, bob).is_none());
    assert!(!world.remove_pair::<Likes>(alice, bob));
    assert!(!world.remove_pair::<Eats>(alice, bob));
    assert!(world.has_pair::<Likes>(alice, fresh), "the stale remove touched nothing");
    assert_eq!(world.get_pair::<Eats>(alice, fresh), Some(&Eats { amount: 5 }));
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![fresh]);
    world.check_invariants();
}

#[test]
fn pairs_of_a_dead_holder_are_not_found_and_adding_to_it_reports_false() {
    let mut world = World::new();
    let [alice, bob] = empties(&mut world);
    world.add_pair::<Likes>(alice, bob);
    assert!(world.despawn(alice));
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert_eq!(world.sources::<Likes>(bob).count(), 0);
    assert!(!world.add_pair::<Likes>(alice, bob));
    assert_eq!(world.try_add_pair::<Likes>(alice, bob), Err(PairError::NotAlive(alice)));
    assert!(!world.insert_pair(alice, Eats { amount: 1 }, bob));
    assert!(!world.remove_pair::<Likes>(alice, bob));
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

/// A typed `with_pair::<R>(t)` of a transitive `R` matches every entity whose
/// chain of `R` targets reaches `t`, and follows the chains as they grow and
/// break (the requirement is resolved again at every update).
#[test]
fn typed_with_pair_of_a_transitive_relationship_follows_chains() {
    #[derive(Relationship)]
    #[relationship(transitive)]
    struct LocatedIn;
    let mut world = World::new();
    let earth = world.spawn_empty().id();
    let country = world.spawn(LocatedIn.pair(earth)).id();
    let city = world.spawn_empty().id();
    let person = world.spawn(LocatedIn.pair(city)).id();
    let mut on_earth = world.query::<Entity>().with_pair::<LocatedIn>(earth);
    let found = |q: &mut QueryState<Entity>, world: &World| q.iter(world).collect::<BTreeSet<Entity>>();
    assert_eq!(found(&mut on_earth, &world), [country].into());
    world.add_pair::<LocatedIn>(city, country);
    assert_eq!(found(&mut on_earth, &world), [country, city, person].into());
    let mut in_city = world.query::<Entity>().with_pair::<LocatedIn>(city);
    assert_eq!(found(&mut in_city, &world), [person].into());
    world.remove_pair::<LocatedIn>(city, country);
    assert_eq!(found(&mut on_earth, &world), [country].into());
    world.add_pair::<LocatedIn>(city, country);
    world.despawn(country);
    assert_eq!(found(&mut on_earth, &world), BTreeSet::new());
}

/// A relationship cannot be made exclusive while an entity holds its pairs
/// (Flecs refuses trait changes of a relationship in use; an entity would
/// hold two targets of an exclusive relationship). Once nothing holds them,
/// the change applies to the next pairs, whatever graph edges were cached.
#[test]
fn exclusivity_changes_only_while_no_entity_holds_the_pairs() {
    let mut world = World::new();
    let (likes, a, b) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().id();
    world.add_id(e, Id::pair(likes, a));
    world.add_id(e, Id::pair(likes, b));
    let message = panic_message(|| world.set_relationship_traits(likes, RelationshipTraits::DEFAULT.exclusive()));
    assert!(message.contains("exclusive"), "{message}");
    assert!(!world.components().relationship_traits(likes.index()).exclusive);
    assert!(world.has_id(e, Id::pair(likes, a)) && world.has_id(e, Id::pair(likes, b)));
    world.remove_id(e, Id::pair(likes, Entity::WILDCARD));
    world.set_relationship_traits(likes, RelationshipTraits::DEFAULT.exclusive());
    world.add_id(e, Id::pair(likes, a));
    world.add_id(e, Id::pair(likes, b));
    assert!(!world.has_id(e, Id::pair(likes, a)) && world.has_id(e, Id::pair(likes, b)));
    world.check_invariants();
}

/// `Up` along a traversable relationship with several targets walks them
/// depth-first in type order (a target and what lies beyond it, then the
/// next), as the runtime `up` term and Flecs do: the first target without
/// the value no longer hides a later one that has it.
#[test]
fn up_follows_every_target_of_a_relationship_that_is_not_exclusive() {
    let mut world = World::new();
    let bare = world.spawn_empty().id();
    let far = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let middle = world.spawn_empty().add_pair::<Near>(far).id();
    let holder = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    let e = world.spawn_empty().add_pair::<Near>(bare).add_pair::<Near>(holder).id();
    let found: Vec<(Entity, f32)> =
        world.query::<(Entity, Up<Near, &Position>)>().iter(&world).map(|(e, p)| (e, p.x)).collect();
    assert!(found.contains(&(e, 2.0)), "{found:?}");
    // Depth-first: `middle`'s chain is searched before the next target.
    let both = world.spawn_empty().add_pair::<Near>(middle).add_pair::<Near>(holder).id();
    let value = world.query::<(Entity, Up<Near, &Position>)>().iter(&world).find(|(e, _)| *e == both).map(|(_, p)| p.x);
    let expected = if middle < holder { 1.0 } else { 2.0 };
    assert_eq!(value, Some(expected));
    let mut runtime = world.query_dsl("Position(up Near)").unwrap();
    let rows: Vec<(Entity, f32)> =
        runtime.iter(&world).map(|row| (row.entity(), row.get::<Position>(0).unwrap().x)).collect();
    assert!(rows.contains(&(e, 2.0)) && rows.contains(&(both, expected)), "{rows:?}");
}

/// A query matching an entity once per pair (`Pair<R>`) lists each entity
/// once in `iter_combinations` (it panicked: the archetype is matched once
/// per pair, and its entities were listed twice).
#[test]
fn iter_combinations_of_a_pair_query_lists_each_entity_once() {
    #[derive(Relationship)]
    struct Fancies;
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e1 = world.spawn_empty().add_pair::<Fancies>(a).add_pair::<Fancies>(b).id();
    let e2 = world.spawn_empty().add_pair::<Fancies>(a).add_pair::<Fancies>(b).id();
    let mut q = world.query::<(Entity, Pair<Fancies>)>();
    assert_eq!(q.iter(&world).count(), 4, "one row per pair");
    let pairs: Vec<[Entity; 2]> = q.iter_combinations::<2>(&world).map(|[(x, _), (y, _)]| [x, y]).collect();
    assert_eq!(pairs, vec![[e1, e2]]);
}

/// The size hint of `iter_combinations` is exact also where the product of
/// the binomial's factors overflows a `usize` before its division (review
/// finding: 110,000 entities, K = 4, reported `usize::MAX`).
#[test]
fn iter_combinations_size_hint_does_not_overflow_early() {
    #[derive(Component)]
    struct Dot(#[allow(dead_code)] u32);
    let n: u128 = 110_000;
    let exact = n * (n - 1) * (n - 2) * (n - 3) / 24;
    let mut world = World::new();
    world.spawn_batch((0..n as u32).map(|i| (Dot(i),)));
    let mut q = world.query::<&Dot>();
    assert_eq!(q.iter_combinations::<4>(&world).size_hint(), (exact as usize, Some(exact as usize)));
}
