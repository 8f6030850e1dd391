//! Entity handles: layout, raw bits, ids, liveness, index recycling and stale handles.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::hash::Hash;
use std::hint::black_box;

use ecs::entity::{ArchetypeId, Entity, EntityLocation, Id};
use ecs::prelude::*;
use ecs_tests::panic_message;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Health(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct Marked(u32);

fn assert_handle_traits<T: Copy + Eq + Ord + Hash + Debug + Send + Sync + 'static>() {}

#[test]
fn entity_is_a_copy_eq_ord_hash_debug_handle_of_eight_bytes() {
    assert_handle_traits::<Entity>();
    assert_eq!(size_of::<Entity>(), 8);
    assert_eq!(size_of::<Option<Entity>>(), 8);
}

#[test]
fn raw_parts_round_trip() {
    let e = Entity::from_raw(42, 7);
    assert_eq!(e.index(), 42);
    assert_eq!(e.generation(), 7);
    assert_eq!(e.to_bits(), (7 << 32) | 42);
    assert_eq!(Entity::from_bits(e.to_bits()), Some(e));

    let max = Entity::from_raw(u32::MAX, 0x7FFF_FFFF);
    assert_eq!((max.index(), max.generation()), (u32::MAX, 0x7FFF_FFFF));
    assert_eq!(Entity::from_bits(max.to_bits()), Some(max));
}

#[test]
fn from_bits_rejects_non_entities() {
    assert_eq!(Entity::from_bits(0), None);
    // index 0 with a generation
    assert_eq!(Entity::from_bits(5 << 32), None);
    // the pair flag
    assert_eq!(Entity::from_bits((1 << 63) | 5), None);
}

#[test]
fn debug_and_display_show_index_and_generation() {
    let e = Entity::from_raw(12, 3);
    assert_eq!(format!("{e:?}"), "12v3");
    assert_eq!(format!("{e}"), "12v3");
}

#[test]
fn equality_and_hash_use_index_and_generation() {
    let a = Entity::from_raw(5, 0);
    let b = Entity::from_raw(5, 1);
    let c = Entity::from_raw(6, 0);
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert_eq!(a, Entity::from_raw(5, 0));
    let set: HashSet<Entity> = [a, b, c, a].into_iter().collect();
    assert_eq!(set.len(), 3);
    let ordered: BTreeSet<Entity> = [c, b, a, b].into_iter().collect();
    assert_eq!(ordered.len(), 3);
}

#[test]
#[should_panic(expected = "entity index 0 is reserved")]
fn from_raw_rejects_index_zero() {
    Entity::from_raw(black_box(0), 0);
}

#[test]
#[should_panic(expected = "entity generation exceeds 31 bits")]
fn from_raw_rejects_a_32_bit_generation() {
    Entity::from_raw(1, black_box(0x8000_0000));
}

#[test]
fn ids_encode_entities_and_pairs() {
    let likes = Entity::from_raw(10, 2);
    let bob = Entity::from_raw(20, 3);
    let plain = Id::from(likes);
    assert!(!plain.is_pair());
    assert_eq!(plain.entity(), Some(likes));
    assert_eq!(plain, likes.id());
    assert_eq!((plain.first_index(), plain.second_index()), (10, 0));

    let pair = Id::pair(likes, bob);
    assert!(pair.is_pair());
    assert_eq!(pair.entity(), None);
    // generations are dropped inside pairs
    assert_eq!((pair.first_index(), pair.second_index()), (10, 20));
    assert_eq!(pair, Id::pair_from_indices(10, 20));
    assert_eq!(pair, Id::pair(Entity::from_raw(10, 0), Entity::from_raw(20, 9)));
    assert_eq!(format!("{pair:?}"), "(10, 20)");
    assert_eq!(format!("{plain:?}"), "10v2");
    assert_eq!(Id::from_bits(pair.to_bits()), Some(pair));
    assert_eq!(Id::from_bits(plain.to_bits()), Some(plain));
    assert_eq!(Id::from_bits(0), None);
}

#[test]
#[should_panic(expected = "relationship index exceeds 31 bits")]
fn pair_rejects_a_32_bit_relationship_index() {
    Id::pair_from_indices(black_box(0x8000_0000), 1);
}

#[test]
fn spawned_entities_are_alive_and_distinct() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    let unique: HashSet<Entity> = ids.iter().copied().collect();
    assert_eq!(unique.len(), 100);
    assert!(ids.iter().all(|&e| world.is_alive(e)));
    assert!(ids.iter().all(|&e| e.index() != 0 && e.generation() == 0));
    assert_eq!(world.entity_count(), 100);
    world.check_invariants();
}

#[test]
fn despawn_kills_the_handle_and_recycles_the_index_with_a_new_generation() {
    let mut world = World::new();
    let keep = world.spawn(Health(1)).id();
    let e = world.spawn(Health(2)).id();
    assert!(world.despawn(e));
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 1);

    let reused = world.spawn(Health(3)).id();
    assert_eq!(reused.index(), e.index());
    assert_eq!(reused.generation(), e.generation() + 1);
    assert_ne!(reused, e);
    assert!(world.is_alive(reused));
    assert!(!world.is_alive(e), "the stale handle must stay dead after its index is reused");
    assert_eq!(world.get::<Health>(reused), Some(&Health(3)));
    assert_eq!(world.get::<Health>(e), None);
    assert_eq!(world.get::<Health>(keep), Some(&Health(1)));
    world.check_invariants();
}

#[test]
fn generations_keep_growing_across_many_recycles() {
    let mut world = World::new();
    let first = world.spawn_empty().id();
    let mut handles = vec![first];
    for _ in 0..20 {
        let last = *handles.last().unwrap();
        assert!(world.despawn(last));
        handles.push(world.spawn_empty().id());
    }
    let last = *handles.last().unwrap();
    assert_eq!(last.index(), first.index());
    assert_eq!(last.generation(), first.generation() + 20);
    // every earlier handle of the index is stale
    assert_eq!(handles.iter().filter(|&&e| world.is_alive(e)).count(), 1);
    assert_eq!(handles.iter().copied().collect::<HashSet<_>>().len(), 21);
    world.check_invariants();
}

#[test]
fn mass_spawn_despawn_keeps_alive_handles_unique() {
    let mut world = World::new();
    let mut alive: Vec<Entity> = (0..5000).map(|i| world.spawn(Health(i)).id()).collect();
    let dead: Vec<Entity> = alive.iter().copied().filter(|e| e.index() % 3 == 0).collect();
    for &e in &dead {
        assert!(world.despawn(e));
    }
    alive.retain(|e| e.index() % 3 != 0);
    let respawned: Vec<Entity> = (0..dead.len() as u32).map(|i| world.spawn(Health(100_000 + i)).id()).collect();
    // respawns reuse exactly the freed indices, with a higher generation
    let freed: BTreeSet<u32> = dead.iter().map(|e| e.index()).collect();
    let reused: BTreeSet<u32> = respawned.iter().map(|e| e.index()).collect();
    assert_eq!(freed, reused);
    assert!(respawned.iter().all(|e| e.generation() == 1));
    assert!(dead.iter().all(|&e| !world.is_alive(e)));

    let everyone: HashSet<Entity> = alive.iter().chain(&respawned).copied().collect();
    assert_eq!(everyone.len(), 5000);
    assert_eq!(world.entity_count(), 5000);
    for &e in &alive {
        assert!(world.get::<Health>(e).is_some_and(|h| h.0 < 5000));
    }
    for &e in &respawned {
        assert!(world.get::<Health>(e).is_some_and(|h| h.0 >= 100_000));
    }
    world.check_invariants();
}

#[test]
fn never_allocated_handles_are_dead() {
    let mut world = World::new();
    world.spawn(Health(1));
    for e in [Entity::from_raw(1_000_000, 0), Entity::from_raw(u32::MAX, 5), Entity::from_raw(7, 3)] {
        assert!(!world.is_alive(e), "{e:?}");
        assert!(world.get::<Health>(e).is_none());
        assert!(world.get_mut::<Health>(e).is_none());
        assert!(!world.has::<Health>(e));
        assert!(!world.insert(e, Health(9)));
        assert!(world.remove::<Health>(e).is_none());
        assert!(!world.despawn(e));
        assert!(world.get_entity(e).is_none());
        assert!(world.get_entity_mut(e).is_none());
        assert_eq!(world.entities().location(e), None);
    }
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn stale_handle_does_not_see_the_new_entitys_components() {
    let mut world = World::new();
    let old = world.spawn((Health(1), Marked(1))).id();
    world.despawn(old);
    let new = world.spawn((Health(2), Marked(2))).id();
    assert_eq!(new.index(), old.index());

    assert!(!world.is_alive(old));
    assert_eq!(world.get::<Health>(old), None);
    assert_eq!(world.get::<Marked>(old), None, "sparse lookups must check the generation");
    assert!(world.get_mut::<Marked>(old).is_none());
    assert!(!world.has::<Health>(old));
    assert!(!world.has::<Marked>(old));
    assert!(!world.insert(old, Health(99)));
    assert!(world.remove::<Marked>(old).is_none());
    assert!(world.remove::<Health>(old).is_none());
    assert!(!world.despawn(old));

    assert_eq!(world.get::<Health>(new), Some(&Health(2)));
    assert_eq!(world.get::<Marked>(new), Some(&Marked(2)));
    world.check_invariants();
}

#[test]
fn wildcards_are_internal_alive_entities() {
    let mut world = World::new();
    assert!(world.is_alive(Entity::WILDCARD));
    assert!(world.is_alive(Entity::ANY));
    assert_eq!((Entity::WILDCARD.index(), Entity::ANY.index()), (1, 2));
    assert_eq!(world.get::<Name>(Entity::WILDCARD).map(Name::as_str), Some("*"));
    assert_eq!(world.get::<Name>(Entity::ANY).map(Name::as_str), Some("_"));
    assert_eq!(world.entity_count(), 0);
    assert!(!world.despawn(Entity::WILDCARD), "internal entities cannot be despawned");
    assert!(world.is_alive(Entity::WILDCARD));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn entity_count_ignores_internal_entities() {
    let mut world = World::new();
    let internal_alive = world.entities().alive_count();
    assert!(internal_alive >= 5, "wildcards and built-in component entities");
    assert_eq!(world.entity_count(), 0);
    world.register_component::<Health>();
    assert_eq!(world.entities().alive_count(), internal_alive + 1);
    assert_eq!(world.entity_count(), 0);
    let e = world.spawn(Health(1)).id();
    world.spawn(Marked(1)); // registers Marked: one more internal entity
    assert_eq!(world.entity_count(), 2);
    assert_eq!(world.entities().alive_count(), internal_alive + 4);
    world.despawn(e);
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn entities_alive_lists_every_alive_entity() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(Health(1)).id();
    let c = world.spawn_empty().id();
    world.despawn(b);
    let alive: HashSet<Entity> = world.entities().alive().iter().copied().collect();
    assert!(alive.contains(&a) && alive.contains(&c) && !alive.contains(&b));
    assert!(alive.contains(&Entity::WILDCARD));
    assert_eq!(alive.len(), world.entities().alive_count());
    assert_eq!(world.entities().entity_at(a.index()), Some(a));
    assert_eq!(world.entities().entity_at(b.index()), None);
    world.check_invariants();
}

#[test]
fn locations_track_archetype_and_row() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let la = world.entities().location(a).unwrap();
    let lb = world.entities().location(b).unwrap();
    assert_eq!(la.archetype, ArchetypeId::EMPTY);
    assert_eq!(lb.archetype, ArchetypeId::EMPTY);
    assert_eq!(lb.row, la.row + 1);

    world.insert(a, Health(1));
    let moved = world.entities().location(a).unwrap();
    assert_ne!(moved.archetype, ArchetypeId::EMPTY);
    assert_eq!(moved.row, 0);
    // `b` was the last row of the empty archetype: it was swapped into `a`'s old row
    assert_eq!(world.entities().location(b), Some(EntityLocation { archetype: ArchetypeId::EMPTY, row: la.row }));
    assert_eq!(world.entity(a).location(), moved);
    assert_eq!(world.entity(a).archetype(), moved.archetype);
    world.check_invariants();
}

#[test]
fn the_entity_panic_names_the_stale_entity() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    world.spawn_empty();
    let message = panic_message(|| world.entity(e).id());
    assert_eq!(message, format!("entity {e:?} is not alive"));
    let message = panic_message(|| world.entity_mut(e).id());
    assert_eq!(message, format!("entity {e:?} is not alive"));
}

// ----- reservation -----------------------------------------------------------------------

#[test]
fn reserved_entities_are_the_ones_later_allocated_in_order() {
    let mut world = World::new();
    let dead: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
    for &entity in &dead {
        assert!(world.despawn(entity));
    }
    let reserved: Vec<Entity> = (0..5).map(|_| world.reserve_entity()).collect();
    // all distinct, none alive yet, dead indices recycled first with a new generation
    let unique: std::collections::HashSet<_> = reserved.iter().collect();
    assert_eq!(unique.len(), 5);
    assert!(reserved.iter().all(|&entity| !world.is_alive(entity)));
    for entity in &reserved[..3] {
        assert!(dead.iter().any(|old| old.index() == entity.index() && old.generation() + 1 == entity.generation()));
    }
    world.flush_entities();
    assert!(reserved.iter().all(|&entity| world.is_alive(entity)));
    assert!(dead.iter().all(|&entity| !world.is_alive(entity)));
    assert_eq!(world.entity_count(), 5);
    world.check_invariants();
}

#[test]
fn structural_changes_flush_reservations_first() {
    let mut world = World::new();
    let kept = world.spawn_empty().id();
    let reserved = world.reserve_entity();
    // despawning would reorder the dead slots the reservation points at
    assert!(world.despawn(kept));
    assert!(world.is_alive(reserved));
    let reserved_again = world.reserve_entity();
    let spawned = world.spawn_empty().id();
    assert_ne!(spawned, reserved_again);
    assert!(world.is_alive(reserved_again) && world.is_alive(spawned));
    world.check_invariants();
}

#[test]
fn a_reserved_entity_can_be_inserted_into_and_edited_directly() {
    let mut world = World::new();
    let first = world.reserve_entity();
    assert!(world.insert(first, Health(1)));
    assert_eq!(world.get::<Health>(first), Some(&Health(1)));

    let second = world.reserve_entity();
    world.entity_mut(second).insert(Health(2));
    assert_eq!(world.get::<Health>(second), Some(&Health(2)));

    let third = world.reserve_entity();
    assert!(world.get_entity_mut(third).is_some());
    let fourth = world.reserve_entity();
    assert_eq!(world.remove::<Health>(fourth), None);
    assert!(world.is_alive(fourth));
    world.check_invariants();
}

#[test]
#[should_panic(expected = "pending reservations")]
fn the_entity_index_refuses_to_allocate_over_pending_reservations() {
    let mut index = ecs::entity::EntityIndex::default();
    index.reserve_entity();
    index.alloc();
}
