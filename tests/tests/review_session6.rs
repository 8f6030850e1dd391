//! Review session 6: entity id ranges (`World::set_entity_range`), `World::spawn_at`,
//! remote reservation (`World::remote_entities`) and `Commands` reservations, and
//! how they interact.
//!
//! Checked (passing): values of entities from an old range survive range switches
//! and are dropped once, their dead slots are recycled only in their range, with
//! the next generation; stale handles (older or newer generations) never reach an
//! entity `spawn_at` put at their index, not even through queued commands;
//! `spawn_at` of the exact id of a despawned entity starts from nothing (no name,
//! sparse value, toggle, union target, parent, observer); `spawn_at` of a
//! `Commands` reservation is refused as `Alive` and the queue still fills it;
//! index 0 cannot be named; the highest index works (queries, pair target,
//! despawn); reserved ids are not alive, listed or counted before a flush;
//! threads reserving while the world spawns, despawns, applies commands and
//! switches ranges, or races `spawn_at` ahead of them: every id alive once, no
//! shared index, each in a range; exhaustion from `spawn`, `Commands`,
//! `RemoteEntities`, `spawn_batch` (consumed or dropped) and `instantiate`
//! panics naming the range, with every value dropped once; `clear_entities`
//! takes pending reservations; prefabs, children and batches take ids in the
//! range; the entity index's `Reserved` error and its flush of skipped
//! reservations.
//!
//! Findings, all fixed since (the tests pass):
//! * `spawn_at_the_top_of_a_range_keeps_the_indices_below_it_spawnable`,
//!   `spawn_at_the_maximum_index_leaves_the_world_able_to_spawn`: `spawn_at` of
//!   a high index discards every unused index below it; later spawns panic "range
//!   exhausted" (in the default range, after `spawn_at(u32::MAX - 1)`, the world
//!   can never spawn again). Spawns now take the skipped indices first;
//!   reservations still take fresh indices above the id only (documented).
//! * `components_registered_under_a_low_range_do_not_take_its_ids`: with a range
//!   below 1024, registering a component takes the range's ids (and can exhaust
//!   it) although other low ids are free.
//! * `registering_components_after_1024_entities_under_a_high_range_does_not_abort`:
//!   once the low ids are used, a component registered under
//!   `set_entity_range(3_000_000_000..)` gets an id there and its registry table is
//!   sized by that index: the process aborts on a 552 GB allocation.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ecs::entity::{EntityIndex, EntityLocation, SpawnError};
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs_tests::{DropLog, panic_message};

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Hp(u32);

#[derive(Component)]
struct Tag;

#[derive(Relationship)]
struct Likes;

/// The alive entities of the world that are not internal (what `query::<Entity>` should list).
fn listed(world: &mut World) -> HashSet<Entity> {
    world.query::<Entity>().iter(world).collect()
}

// ----- ranges switched while old entities live ---------------------------------------

#[test]
fn values_of_old_range_entities_survive_switches_and_drop_once() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(10_000..10_010);
    let a: Vec<Entity> = (0..5).map(|i| world.spawn(log.table(i)).id()).collect();
    world.set_entity_range(20_000..20_010);
    let b: Vec<Entity> = (5..10).map(|i| world.spawn(log.table(i)).id()).collect();
    // Despawn old-range entities while the other range is active: not recycled here.
    assert!(world.despawn(a[1]) && world.despawn(a[3]));
    log.assert_dropped_once([1, 3]);
    let c = world.spawn(log.table(10)).id();
    assert_eq!(c.index(), 20_005);
    world.set_entity_range(10_000..10_010);
    // The dead old-range slots come back with the next generation; stale handles stay stale.
    let d = world.spawn(log.table(11)).id();
    let e = world.spawn(log.table(12)).id();
    let recycled: HashSet<u32> = [d.index(), e.index()].into();
    assert_eq!(recycled, [a[1].index(), a[3].index()].into());
    assert!(d.generation() == 1 && e.generation() == 1);
    assert!(!world.is_alive(a[1]) && !world.is_alive(a[3]));
    assert!(world.get::<ecs_tests::DropTable>(a[1]).is_none());
    assert!(!world.despawn(a[3]));
    let f = world.spawn(log.table(13)).id();
    assert_eq!(f.index(), 10_005);
    let ids: HashSet<u32> = world.query::<&ecs_tests::DropTable>().iter(&world).map(|t| t.id).collect();
    assert_eq!(ids, [0, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].into());
    for &entity in b.iter().chain([&c, &d]) {
        assert!(world.is_alive(entity));
    }
    world.check_invariants();
    drop(world);
    log.assert_dropped_once(0..14);
}

#[test]
fn entity_index_zero_cannot_be_named() {
    let message = panic_message(|| Entity::from_raw(0, 0));
    assert!(message.contains("index 0"), "{message}");
    assert_eq!(Entity::from_bits(0), None);
    assert_eq!(Entity::from_bits(5 << 32), None);
}

// ----- spawn_at ---------------------------------------------------------------------

// Finding (fixed): `spawn_at` of a high index threw away every unused index below it.
// Expected (Bevy `spawn_at`/`get_or_spawn`: skipped indices go to the free list;
// the doc only says "later spawns skip *its* index"; "spawning past its end
// panics"): after `spawn_at(509)` in `500..510` the nine never-used indices
// 500..=508 can still be spawned. Actual: the next `spawn` panics "the entity
// range 500..510 is exhausted: no fresh index left", which is false.
#[test]
fn spawn_at_the_top_of_a_range_keeps_the_indices_below_it_spawnable() {
    let mut world = World::new();
    world.set_entity_range(500..510);
    let top = Entity::from_raw(509, 3);
    world.spawn_at(top).unwrap().insert(Hp(9));
    let spawned: Vec<Entity> = (0..9).map(|_| world.spawn_empty().id()).collect();
    let indices: HashSet<u32> = spawned.iter().map(|e| e.index()).collect();
    assert_eq!(indices, (500..509).collect());
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains("500..510"), "{message}");
    world.check_invariants();
}

// Same cause, worst case: in the default range one `spawn_at` near the top of the
// index space (an id received from the network, say) left the world unable to
// spawn anything: `spawn` panicked "the entity range 1..4294967295 is exhausted"
// although about four billion indices were never used. Fixed for spawns (they
// take the skipped indices); reservations (`Commands::spawn`, `RemoteEntities`)
// still take fresh indices above the id only, so here they find none
// (`World::spawn_at`'s docs).
#[test]
fn spawn_at_the_maximum_index_leaves_the_world_able_to_spawn() {
    let mut world = World::new();
    let max = Entity::from_raw(u32::MAX - 1, 7);
    world.spawn_at(max).unwrap().insert(Hp(1));
    let spawned: Vec<Entity> = (0..100).map(|i| world.spawn(Hp(i)).id()).collect();
    assert!(spawned.iter().all(|e| e.index() != max.index()));
    assert_eq!(spawned.iter().map(|e| e.index()).collect::<HashSet<_>>().len(), 100);
    assert!(world.remote_entities().try_reserve().is_none(), "no fresh index above the id");
    world.check_invariants();
}

#[test]
fn spawn_at_the_maximum_index_is_alive_queryable_and_despawnable() {
    let mut world = World::new();
    let fan = world.spawn_empty().id();
    let max = Entity::from_raw(u32::MAX - 1, 7);
    world.spawn_at(max).unwrap().insert(Hp(1));
    assert!(world.is_alive(max));
    assert!(!world.is_alive(Entity::from_raw(u32::MAX - 1, 6)));
    assert_eq!(world.entity_at(u32::MAX - 1), Some(max));
    assert_eq!(world.query::<(Entity, &Hp)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [max]);
    // The placeholder's index is never alive.
    let placeholder = Entity::from_raw(u32::MAX, 0);
    assert!(matches!(world.spawn_at(placeholder), Err(SpawnError::OutOfRange { .. })));
    // A high index works as a pair target; despawning it removes the pair.
    world.entity_mut(fan).add_pair::<Likes>(max);
    assert!(world.has_pair::<Likes>(fan, max));
    assert_eq!(world.target::<Likes>(fan), Some(max));
    assert!(world.despawn(max));
    assert!(!world.is_alive(max));
    assert_eq!(world.target::<Likes>(fan), None);
    let again = Entity::from_raw(u32::MAX - 1, 0);
    world.spawn_at(again).unwrap();
    assert!(world.is_alive(again) && !world.is_alive(max));
    world.check_invariants();
}

#[test]
fn stale_handles_never_reach_an_entity_spawned_at_their_index() {
    let mut world = World::new();
    world.set_entity_range(4000..5000);
    let old = world.spawn(Hp(1)).id();
    assert!(world.despawn(old));
    let new = Entity::from_raw(old.index(), 9);
    world.spawn_at(new).unwrap().insert(Hp(2));
    // Lower and higher generations than the alive one are both stale.
    for stale in [old, Entity::from_raw(old.index(), 1), Entity::from_raw(old.index(), 10)] {
        assert!(!world.is_alive(stale), "{stale:?}");
        assert!(world.get::<Hp>(stale).is_none());
        assert!(world.get_entity(stale).is_none());
        assert!(!world.insert(stale, Tag));
        assert!(world.remove::<Hp>(stale).is_none());
        assert!(!world.despawn(stale));
    }
    // Nor through commands queued with the stale handle.
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(old).try_insert(Tag);
    commands.entity(old).despawn();
    queue.apply(&mut world);
    assert!(world.is_alive(new));
    assert_eq!(world.get::<Hp>(new), Some(&Hp(2)));
    assert!(!world.has::<Tag>(new));
    world.check_invariants();
}

#[test]
fn a_commands_reservation_is_refused_by_spawn_at_and_then_filled_by_its_queue() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(600..700);
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let recycled = commands.spawn(log.table(1)).id();
    let fresh = commands.spawn(log.table(2)).id();
    assert_eq!((recycled.index(), recycled.generation()), (dead.index(), dead.generation() + 1));
    assert_eq!(fresh.index(), 601);
    assert!(!world.is_alive(recycled) && !world.is_alive(fresh));
    for reserved in [recycled, fresh] {
        let other_generation = Entity::from_raw(reserved.index(), reserved.generation() + 4);
        assert_eq!(
            world.spawn_at(other_generation).err(),
            Some(SpawnError::Alive { entity: other_generation, existing: reserved })
        );
        assert_eq!(world.spawn_at(reserved).err(), Some(SpawnError::Alive { entity: reserved, existing: reserved }));
    }
    assert_eq!(log.count(), 0);
    queue.apply(&mut world);
    assert_eq!(world.get::<ecs_tests::DropTable>(recycled).map(|t| t.id), Some(1));
    assert_eq!(world.get::<ecs_tests::DropTable>(fresh).map(|t| t.id), Some(2));
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2]);
}

#[test]
fn reserved_ids_are_not_alive_before_a_flush() {
    let mut world = World::new();
    world.set_entity_range(50_000..60_000);
    let kept = world.spawn(Hp(0)).id();
    let remote = world.remote_entities().reserve();
    let local = world.reserve_entity();
    for reserved in [remote, local] {
        assert!(!world.is_alive(reserved));
        assert!(world.get::<Hp>(reserved).is_none());
        assert!(world.get_entity(reserved).is_none());
        assert_eq!(world.entity_at(reserved.index()), None);
        assert!(!world.has::<Hp>(reserved));
    }
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), [kept]);
    // Despawning a reserved id flushes first: it ends up dead, the other one alive.
    world.despawn(remote);
    assert!(!world.is_alive(remote));
    assert!(world.is_alive(local));
    assert_eq!(world.entity_count(), 2);
    assert_eq!(listed(&mut world), [kept, local].into());
    world.check_invariants();
}

#[test]
fn set_entity_range_flushes_a_pending_commands_reservation_in_the_old_range() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(1000..1100);
    let mut queue = CommandQueue::default();
    let reserved = Commands::new(&mut queue, &world).spawn(log.table(7)).id();
    world.set_entity_range(2000..2100);
    assert!(world.is_alive(reserved));
    assert_eq!(reserved.index(), 1000);
    queue.apply(&mut world);
    assert_eq!(world.get::<ecs_tests::DropTable>(reserved).map(|t| t.id), Some(7));
    assert_eq!(world.spawn_empty().id().index(), 2000);
    world.set_entity_range(1000..1100);
    assert_eq!(world.spawn_empty().id().index(), 1001);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([7]);
}

// ----- threads ----------------------------------------------------------------------

#[test]
fn threads_reserve_while_the_world_spawns_despawns_commands_and_switches_ranges() {
    const THREADS: usize = 3;
    const PER_THREAD: usize = 6_000;
    let ranges = [100_000..200_000, 300_000..400_000, 1..u32::MAX];
    let mut world = World::new();
    let before: HashSet<Entity> = world.entities().alive().iter().copied().collect();
    let remote = world.remote_entities();
    let done = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let remote = remote.clone();
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                while ids.len() < PER_THREAD && !done.load(Ordering::Relaxed) {
                    ids.push(remote.try_reserve().expect("the ranges are large enough"));
                }
                ids
            })
        })
        .collect();
    let mut kept: Vec<Entity> = Vec::new();
    let mut commanded: Vec<Entity> = Vec::new();
    let mut round = 0usize;
    while !workers.iter().all(|worker| worker.is_finished()) || round < 600 {
        if round.is_multiple_of(50) {
            world.set_entity_range(ranges[(round / 50) % ranges.len()].clone());
        }
        let e = world.spawn(Hp(round as u32)).id();
        assert!(world.entity_range().contains(&e.index()), "{e:?} outside {:?}", world.entity_range());
        if round.is_multiple_of(3) {
            assert!(world.despawn(e));
        } else {
            kept.push(e);
        }
        if round.is_multiple_of(5) {
            let mut queue = CommandQueue::default();
            let mut commands = Commands::new(&mut queue, &world);
            let c = commands.spawn(Tag).id();
            assert!(world.entity_range().contains(&c.index()), "{c:?}");
            queue.apply(&mut world);
            commanded.push(c);
        }
        if round.is_multiple_of(7) && kept.len() > 2 {
            let victim = kept.swap_remove(kept.len() / 2);
            assert!(world.despawn(victim));
        }
        round += 1;
        if round > 200_000 {
            done.store(true, Ordering::Relaxed);
        }
    }
    let reserved: Vec<Entity> = workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect();
    world.flush();
    assert_eq!(reserved.len(), THREADS * PER_THREAD);
    let mine: Vec<Entity> = reserved.iter().chain(&kept).chain(&commanded).copied().collect();
    let unique: HashSet<Entity> = mine.iter().copied().collect();
    assert_eq!(unique.len(), mine.len(), "an id was handed out twice");
    let indices: HashSet<u32> = unique.iter().map(|e| e.index()).collect();
    assert_eq!(indices.len(), unique.len(), "two live ids share an index");
    for &entity in &reserved {
        assert!(world.is_alive(entity), "{entity:?} reserved but not alive after the flush");
        assert!(ranges.iter().any(|range| range.contains(&entity.index())), "{entity:?} in no range");
        assert_eq!(world.entity(entity).archetype(), ecs::entity::ArchetypeId::EMPTY);
    }
    assert!(kept.iter().all(|&e| world.get::<Hp>(e).is_some()));
    assert!(commanded.iter().all(|&e| world.has::<Tag>(e)));
    assert_eq!(world.entity_count(), unique.len());
    let alive: HashSet<Entity> = world.entities().alive().iter().copied().filter(|e| !before.contains(e)).collect();
    assert_eq!(alive.len(), world.entities().alive_count() - before.len());
    assert!(unique.is_subset(&alive));
    assert_eq!(listed(&mut world), unique);
    world.check_invariants();
}

// ----- exhaustion -------------------------------------------------------------------

#[test]
fn commands_exhausting_the_range_panic_naming_it_and_drop_every_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(700..703);
    let spawner = log.clone();
    let message = panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            for i in 0..5 {
                commands.spawn(spawner.table(i));
            }
        })
    });
    assert!(message.contains("700..703"), "{message}");
    world.flush();
    world.check_invariants();
    // The three reserved ids become alive (empty: the queue was dropped).
    let count = world.entity_count();
    assert_eq!(count, 3);
    assert!(world.entities().alive().iter().all(|e| e.index() < 700 || (700..703).contains(&e.index())));
    // The world is usable: the range is full (or its slots recyclable), never a duplicate.
    let listed = listed(&mut world);
    assert_eq!(listed.len(), count);
    drop(world);
    // Values 0..=3 were made (3 with the reservation that panicked), none
    // leaked, none dropped twice.
    log.assert_dropped_once(0..4);
}

#[test]
fn remote_reservation_exhausting_the_range_panics_naming_it() {
    let mut world = World::new();
    world.set_entity_range(710..713);
    let remote = world.remote_entities();
    let first = remote.reserve();
    let message = panic_message(|| remote.reserve_many(5));
    assert!(message.contains("710..713"), "{message}");
    assert_eq!(remote.try_reserve(), None);
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains("710..713"), "{message}");
    world.flush();
    assert!(world.is_alive(first));
    assert_eq!(world.entity_count(), 3);
    assert!(world.entities().alive().iter().filter(|e| e.index() >= 710).count() == 3);
    // Despawned slots are recycled by spawn (remote reservation never recycles).
    world.despawn(first);
    assert_eq!(world.spawn_empty().id(), Entity::from_raw(first.index(), 1));
    world.check_invariants();
}

#[test]
fn spawn_batch_exhausting_the_range_panics_naming_it_and_drops_every_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(720..723);
    let values: Vec<_> = (0..5).map(|i| log.table(i)).collect();
    let message = panic_message(|| world.spawn_batch(values).collect::<Vec<_>>());
    assert!(message.contains("720..723"), "{message}");
    assert_eq!(world.entity_count(), 3);
    let ids: HashSet<u32> = world.query::<&ecs_tests::DropTable>().iter(&world).map(|t| t.id).collect();
    assert_eq!(ids, [0, 1, 2].into());
    log.assert_dropped_once([3, 4]);
    // Dropped unconsumed: the batch spawns in `Drop`, which panics there.
    let values: Vec<_> = (5..8).map(|i| log.table(i)).collect();
    let message = panic_message(|| drop(world.spawn_batch(values)));
    assert!(message.contains("720..723"), "{message}");
    log.assert_dropped_once(3..8);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once(0..8);
}

// Finding (fixed): component registration took ids from a low user range.
// `EntityIndex::alloc_low` is documented to use "an unused index below
// LOW_INDEX_LIMIT when one is free outside the active range's fresh window", and
// `set_entity_range` says "component entities keep low indices whatever the
// range". Expected: with the range `k..k + 2` (k the first unused index) the two
// user spawns get `k` and `k + 1`, and `Hp`/`Tag` get other low ids (k + 2.. are
// free). Actual: registering `Hp` takes `k` from the user's range, so the user's
// first entity gets `k + 1`, and registering `Tag` on the second spawn panics
// "the entity range k..k+2 is exhausted" while ~1000 low indices are free. The
// loop in `alloc_low` `break`s (falls back to `alloc`) at the first index of the
// range's fresh window instead of skipping past the range.
#[test]
fn components_registered_under_a_low_range_do_not_take_its_ids() {
    let mut world = World::new();
    let k = (1..1024u32).find(|&i| world.entity_at(i).is_none()).unwrap();
    world.set_entity_range(k..k + 2);
    let a = world.spawn(Hp(1)).id();
    let b = world.spawn(Tag).id();
    assert_eq!((a.index(), b.index()), (k, k + 1));
    let hp = world.component_id::<Hp>().unwrap();
    let tag = world.component_id::<Tag>().unwrap();
    assert!(!(k..k + 2).contains(&hp.index()) && !(k..k + 2).contains(&tag.index()));
    assert!(hp.index() < EntityIndex::LOW_INDEX_LIMIT && tag.index() < EntityIndex::LOW_INDEX_LIMIT);
    world.check_invariants();
}

#[test]
fn components_registered_under_a_range_above_the_low_limit_keep_out_of_it() {
    let mut world = World::new();
    world.set_entity_range(1024..1026);
    let a = world.spawn(Hp(1)).id();
    let b = world.spawn(Tag).id();
    assert_eq!((a.index(), b.index()), (1024, 1025));
    assert!(world.component_id::<Hp>().unwrap().index() < 1024);
    assert!(world.component_id::<Tag>().unwrap().index() < 1024);
    world.check_invariants();
}

// ----- prefabs, hierarchies, clear --------------------------------------------------

#[test]
fn prefab_instances_children_and_batches_take_ids_from_the_range() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hp(10))).id();
    world.spawn((Tag, ChildOf.pair(prefab)));
    world.spawn((Tag, ChildOf.pair(prefab)));
    world.set_entity_range(30_000..30_100);
    let instance = world.instantiate(prefab);
    let children: Vec<Entity> = world.children(instance).collect();
    assert_eq!(children.len(), 2);
    let mut parent = world.spawn(Hp(1));
    parent.with_children(|spawner| {
        spawner.spawn(Tag);
        spawner.spawn(Tag);
    });
    let parent = parent.id();
    let batch: Vec<Entity> = world.spawn_batch((0..3).map(Hp)).collect();
    let made: Vec<Entity> = [instance, parent]
        .into_iter()
        .chain(children)
        .chain(world.children(parent).collect::<Vec<_>>())
        .chain(batch)
        .collect();
    assert_eq!(made.len(), 9);
    assert!(made.iter().all(|e| (30_000..30_009).contains(&e.index())), "{made:?}");
    assert_eq!(made.iter().map(|e| e.index()).collect::<HashSet<_>>().len(), 9);
    assert_eq!(world.get::<Hp>(instance), Some(&Hp(10)));
    world.check_invariants();
}

#[test]
fn instantiate_exhausting_the_range_panics_naming_it_and_leaves_a_consistent_world() {
    let log = DropLog::new();
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hp(10))).id();
    for _ in 0..3 {
        world.spawn((Tag, ChildOf.pair(prefab)));
    }
    world.set_entity_range(31_000..31_002);
    let keep = world.spawn(log.table(1)).id();
    let message = panic_message(|| world.instantiate(prefab));
    assert!(message.contains("31000..31002"), "{message}");
    // The instance itself (31001) stays, without the children it had no ids
    // for: a clear panic, a consistent world, no id outside the range.
    world.check_invariants();
    assert!(world.is_alive(keep));
    let count = world.entity_count();
    assert_eq!(listed(&mut world).len() + 4, count, "prefab and its children are hidden");
    assert!(world.entities().alive().iter().all(|e| e.index() < 31_002));
    // Despawning everything and spawning again works.
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    let again = world.spawn(log.table(2)).id();
    assert!((31_000..31_002).contains(&again.index()));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2]);
}

#[test]
fn clear_entities_takes_pending_reservations_and_recycles_within_the_range() {
    let log = DropLog::new();
    let mut world = World::new();
    world.set_entity_range(40_000..40_010);
    let spawned: Vec<Entity> = (0..4).map(|i| world.spawn(log.table(i)).id()).collect();
    let remote = world.remote_entities().reserve();
    let mut queue = CommandQueue::default();
    let commanded = Commands::new(&mut queue, &world).spawn(log.table(9)).id();
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert!(!world.is_alive(remote) && !world.is_alive(commanded));
    log.assert_dropped_once(0..4);
    // The queued insert into the despawned reservation is dropped, not applied.
    queue.apply(&mut world);
    assert_eq!(world.entity_count(), 0);
    log.assert_dropped_once([0, 1, 2, 3, 9]);
    let again: Vec<Entity> = (0..6).map(|_| world.spawn_empty().id()).collect();
    let mut indices: Vec<u32> = again.iter().map(|e| e.index()).collect();
    indices.sort_unstable();
    assert_eq!(indices, (40_000..40_006).collect::<Vec<_>>());
    assert!(again.iter().all(|e| e.generation() == 1), "{again:?}");
    for old in spawned.iter().chain([&remote, &commanded]) {
        assert!(!world.is_alive(*old));
    }
    world.check_invariants();
}

// ----- the entity index directly: races the world hides ------------------------------

#[test]
fn alloc_at_an_index_a_remote_handle_holds_is_reserved_and_past_it_flushes_it() {
    let mut index = EntityIndex::default();
    index.set_range(100..200, |_| EntityLocation::INVALID);
    let remote = index.remote();
    let r = remote.reserve();
    let clash = Entity::from_raw(r.index(), 3);
    let error = index.alloc_at(clash, |_| EntityLocation::INVALID).unwrap_err();
    assert_eq!(error, SpawnError::Reserved { entity: clash, reserved: r });
    assert!(error.to_string().contains("reserved"), "{error}");
    let mut placed = Vec::new();
    let far = Entity::from_raw(150, 2);
    index
        .alloc_at(far, |e| {
            placed.push(e);
            EntityLocation::INVALID
        })
        .unwrap();
    assert_eq!(placed, [r]);
    assert!(index.is_alive(r) && index.is_alive(far));
    let next = remote.reserve();
    assert_eq!(next.index(), 151);
    index.flush(|_| EntityLocation::INVALID);
    assert!(index.is_alive(next));
    index.check_invariants();
}

#[test]
fn spawn_at_ahead_of_remote_threads_never_duplicates_an_id() {
    const THREADS: usize = 2;
    const PER_THREAD: usize = 4_000;
    let range = 1_000_000..1_100_000;
    let mut world = World::new();
    world.set_entity_range(range.clone());
    let remote = world.remote_entities();
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let remote = remote.clone();
            std::thread::spawn(move || (0..PER_THREAD).map(|_| remote.reserve()).collect::<Vec<Entity>>())
        })
        .collect();
    let mut placed: Vec<Entity> = Vec::new();
    let mut spawned: Vec<Entity> = Vec::new();
    let mut refused = 0usize;
    let mut i = 0u32;
    while !workers.iter().all(|worker| worker.is_finished()) || i < 500 {
        let wanted = Entity::from_raw(range.start + i * 5, i % 4);
        match world.spawn_at(wanted) {
            Ok(mut entity) => {
                entity.insert(Hp(i));
                placed.push(wanted);
            }
            Err(SpawnError::Alive { existing, .. }) => {
                assert_eq!(existing.index(), wanted.index());
                refused += 1;
            }
            Err(SpawnError::Reserved { reserved, .. }) => {
                assert_eq!(reserved.index(), wanted.index());
                refused += 1;
            }
            Err(other) => panic!("unexpected {other}"),
        }
        spawned.push(world.spawn(Tag).id());
        i += 1;
        assert!(i < 19_000, "ran out of the test's range");
    }
    let reserved: Vec<Entity> = workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect();
    world.flush();
    let all: Vec<Entity> = reserved.iter().chain(&placed).chain(&spawned).copied().collect();
    let indices: HashSet<u32> = all.iter().map(|e| e.index()).collect();
    assert_eq!(indices.len(), all.len(), "an index was handed out twice ({refused} spawn_at refused)");
    assert!(all.iter().all(|&e| world.is_alive(e) && range.contains(&e.index())));
    assert!(placed.iter().all(|&e| world.get::<Hp>(e).is_some()));
    assert_eq!(world.entity_count(), all.len());
    world.check_invariants();
}

#[test]
fn generations_wrap_after_spawn_at_with_the_last_generation() {
    let mut world = World::new();
    world.set_entity_range(8000..8010);
    let last = Entity::from_raw(8003, 0x7FFF_FFFF);
    world.spawn_at(last).unwrap().insert(Hp(1));
    assert!(world.despawn(last));
    assert!(!world.is_alive(last));
    // The slot's next incarnation wraps to generation 0 (as Bevy and Flecs do).
    let mut queue = CommandQueue::default();
    let reserved = Commands::new(&mut queue, &world).spawn(Hp(2)).id();
    assert_eq!(reserved, Entity::from_raw(8003, 0));
    queue.apply(&mut world);
    assert_eq!(world.get::<Hp>(reserved), Some(&Hp(2)));
    assert!(world.get::<Hp>(last).is_none());
    world.check_invariants();
}

/// Set in the environment of the child process that
/// `registering_components_after_1024_entities_under_a_high_range_does_not_abort`
/// starts: the child does the work that may abort the process.
const CHILD_ENV: &str = "ECS_REVIEW_SESSION6_CHILD";

// Finding (fixed): once every index below `LOW_INDEX_LIMIT` is in use (1100 entities
// spawned in the default range, an ordinary start-up), a component registered
// under a high range (`set_entity_range(3_000_000_000..)`, a networked peer's
// range) gets an id from that range, and `Components::register_descriptor`
// (`infos.resize_with(index + 1, ..)`, component/registry.rs) sizes its table by
// the component's index: the process aborts with "memory allocation of
// 552000000184 bytes failed". (Per the code, a relationship registered there
// would also get an index above 31 bits, which `Id::pair` refuses.) Expected: registering a component
// works whatever the range (Flecs keeps high component ids in hash maps), or at
// worst a clear panic. The check runs in a child process so that the abort fails
// this test instead of killing the test binary. With a range at 5_000_000 the
// same spawn does not abort but takes over a second and allocates tables of 5M
// entries.
#[test]
fn registering_components_after_1024_entities_under_a_high_range_does_not_abort() {
    const NAME: &str = "registering_components_after_1024_entities_under_a_high_range_does_not_abort";
    if std::env::var_os(CHILD_ENV).is_some() {
        let mut world = World::new();
        for _ in 0..1100 {
            world.spawn_empty();
        }
        world.set_entity_range(3_000_000_000..3_000_001_000);
        let e = world.spawn(Hp(1)).id();
        assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
        let target = world.spawn_empty().id();
        world.entity_mut(e).add_pair::<Likes>(target);
        assert!(world.has_pair::<Likes>(e, target));
        world.check_invariants();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    // The address space is capped (8 GB) so that the huge allocation fails at
    // once even where the kernel overcommits memory without limit.
    let script = "ulimit -v 8000000 2>/dev/null; exec \"$0\" --exact \"$1\" --include-ignored --test-threads=1";
    let output = std::process::Command::new("sh")
        .args(["-c", script])
        .arg(exe)
        .arg(NAME)
        .env(CHILD_ENV, "1")
        .output()
        .expect("the child test process starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first_lines: String = stderr.lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(output.status.success(), "child failed ({}): {first_lines}", output.status);
}

#[derive(Component)]
#[component(storage = "sparse")]
struct Stun(u32);

#[derive(Component)]
#[component(toggle)]
struct Thrust;

#[derive(Relationship)]
#[relationship(union)]
struct Mode;

#[derive(Event)]
struct Ping;

#[derive(Resource, Default)]
struct Pings(u32);

#[test]
fn spawn_at_the_exact_id_of_a_despawned_entity_starts_from_nothing() {
    let mut world = World::new();
    world.init_resource::<Pings>();
    let walking = world.spawn_empty().id();
    let parent = world.spawn(Name::new("parent")).id();
    let named = world.spawn((Name::new("rex"), Stun(3), Thrust)).id();
    world.entity_mut(named).disable::<Thrust>();
    assert_eq!(world.get::<Stun>(named).map(|stun| stun.0), Some(3));
    world.entity_mut(named).add_pair::<Mode>(walking);
    let child = world.spawn((Hp(1), ChildOf.pair(parent))).id();
    let observer = world.add_observer(|_: Trigger<Ping>, mut pings: ResMut<Pings>| pings.0 += 1).id();
    let watched = world.spawn_empty().id();
    world.entity_mut(watched).observe(|_: Trigger<Ping>, mut pings: ResMut<Pings>| pings.0 += 10);
    for entity in [named, child, observer, watched] {
        assert!(world.despawn(entity), "{entity:?}");
    }
    for entity in [named, child, observer, watched] {
        world.spawn_at(entity).unwrap();
        assert!(world.is_alive(entity));
        assert_eq!(world.ids_of(entity), Some(&[][..]), "{entity:?} came back with ids");
    }
    assert_eq!(world.lookup("rex"), None);
    assert!(world.get::<Stun>(named).is_none());
    assert!(!world.has::<Thrust>(named) && !world.is_enabled::<Thrust>(named));
    assert_eq!(world.target::<Mode>(named), None);
    assert_eq!(world.children(parent).count(), 0);
    assert_eq!(world.target::<ChildOf>(child), None);
    world.trigger(Ping);
    world.trigger_targets(Ping, watched);
    assert_eq!(world.resource::<Pings>().0, 0, "a despawned observer ran for its revived id");
    assert_eq!(world.entity_count(), 6);
    assert_eq!(listed(&mut world).len(), 6);
    world.check_invariants();
}
