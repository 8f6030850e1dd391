//! Entity id ranges (`World::set_entity_range`), `World::spawn_at` and remote
//! reservation (`World::remote_entities`), with a stress test from 4 threads and
//! a model-based proptest against a naive model.

use std::collections::{BTreeMap, HashSet};

use ecs::entity::{ArchetypeId, EntityIndex, EntityLocation, SpawnError};
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs_tests::panic_message;
use proptest::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Marker;

/// The indices of `entities`.
fn indices(entities: &[Entity]) -> Vec<u32> {
    entities.iter().map(|entity| entity.index()).collect()
}

// ----- ranges -------------------------------------------------------------------------

#[test]
fn new_entities_take_indices_from_the_active_range() {
    let mut world = World::new();
    assert_eq!(world.entity_range(), 1..u32::MAX);
    world.set_entity_range(1_000_000..2_000_000);
    assert_eq!(world.entity_range(), 1_000_000..2_000_000);
    let spawned: Vec<Entity> = (0..3).map(|_| world.spawn(Health(1)).id()).collect();
    assert_eq!(indices(&spawned), [1_000_000, 1_000_001, 1_000_002]);
    let batch: Vec<Entity> = world.spawn_batch((0..2).map(|i| (Health(i),))).collect();
    assert_eq!(indices(&batch), [1_000_003, 1_000_004]);
    let reserved = world.reserve_entity();
    assert_eq!(reserved.index(), 1_000_005);
    let mut queue = CommandQueue::default();
    let commanded = Commands::new(&mut queue, &world).spawn(Health(7)).id();
    assert_eq!(commanded.index(), 1_000_006);
    queue.apply(&mut world);
    assert!(world.is_alive(reserved));
    assert_eq!(world.get::<Health>(commanded), Some(&Health(7)));
    assert!(spawned.iter().chain(&batch).all(|&entity| entity.generation() == 0));
    world.check_invariants();
}

#[test]
fn spawning_past_the_end_of_the_range_panics_naming_it() {
    let mut world = World::new();
    world.set_entity_range(500..502);
    world.spawn_empty();
    world.spawn(Health(1));
    let message = panic_message(|| world.spawn_empty().id());
    assert_eq!(message, "the entity range 500..502 is exhausted: no fresh index left for a new entity");
    let message = panic_message(|| world.reserve_entity());
    assert!(message.contains("500..502"), "{message}");
    // Nothing half-made: the world is intact, and freed slots are used again.
    world.check_invariants();
    assert_eq!(world.entity_count(), 2);
    let first = world.entity_at(500).expect("spawned");
    world.despawn(first);
    assert_eq!(world.spawn_empty().id().index(), 500);
}

#[test]
fn a_range_must_be_non_empty_and_exclude_index_zero() {
    let mut world = World::new();
    let message = panic_message(|| world.set_entity_range(10..10));
    assert_eq!(message, "the entity range 10..10 is empty");
    let message = panic_message(|| world.set_entity_range(0..100));
    assert_eq!(message, "the entity range 0..100 contains index 0, which is never used");
    assert_eq!(world.entity_range(), 1..u32::MAX);
    world.check_invariants();
}

#[test]
fn entities_of_other_ranges_stay_alive_and_usable() {
    let mut world = World::new();
    let old = world.spawn(Health(1)).id();
    let other_old = world.spawn(Health(2)).id();
    world.set_entity_range(40_000..50_000);
    let new = world.spawn(Health(3)).id();
    assert_eq!(new.index(), 40_000);
    assert_eq!(world.get::<Health>(old), Some(&Health(1)));
    assert_eq!(world.entity_at(old.index()), Some(old));
    world.entity_mut(old).insert(Marker);
    assert!(world.has::<Marker>(old));
    let mut healths: Vec<u32> = world.query::<&Health>().iter(&world).map(|health| health.0).collect();
    healths.sort_unstable();
    assert_eq!(healths, [1, 2, 3]);
    assert!(world.despawn(other_old));
    assert!(!world.is_alive(other_old));
    // The freed slot lies outside the range: not recycled into it.
    let next = world.spawn_empty().id();
    assert_eq!(next.index(), 40_001);
    world.check_invariants();
}

#[test]
fn dead_slots_are_recycled_only_while_their_range_is_active() {
    let mut world = World::new();
    world.set_entity_range(1000..2000);
    let a = world.spawn_empty().id();
    world.despawn(a);
    world.set_entity_range(3000..4000);
    let b = world.spawn_empty().id();
    assert_eq!(b.index(), 3000);
    world.despawn(b);
    world.set_entity_range(1000..2000);
    let recycled = world.spawn_empty().id();
    assert_eq!((recycled.index(), recycled.generation()), (a.index(), a.generation() + 1));
    assert!(!world.is_alive(a));
    world.set_entity_range(3000..4000);
    let recycled = world.spawn_empty().id();
    assert_eq!((recycled.index(), recycled.generation()), (3000, 1));
    world.check_invariants();
}

#[test]
fn switching_ranges_back_and_forth_resumes_each_after_its_highest_index() {
    let mut world = World::new();
    let (a, b) = (1000..2000, 5000..6000);
    let mut seen = HashSet::new();
    let mut expect = |world: &mut World, range: &std::ops::Range<u32>, index: u32| {
        world.set_entity_range(range.clone());
        let e = world.spawn_empty().id();
        assert_eq!(e.index(), index);
        assert!(seen.insert(e), "{e:?} handed out twice");
    };
    expect(&mut world, &a, 1000);
    expect(&mut world, &b, 5000);
    expect(&mut world, &a, 1001);
    expect(&mut world, &a, 1002);
    expect(&mut world, &b, 5001);
    // An overlapping range starts after everything used inside it.
    expect(&mut world, &(900..1500), 1003);
    expect(&mut world, &a, 1004);
    world.check_invariants();
}

#[test]
fn components_registered_under_a_high_range_keep_low_ids() {
    let mut world = World::new();
    world.set_entity_range(1_000_000..2_000_000);
    let e = world.spawn((Health(1), Marker)).id();
    let health = world.component_id::<Health>().unwrap();
    let marker = world.component_id::<Marker>().unwrap();
    assert!(health.index() < EntityIndex::LOW_INDEX_LIMIT, "{health:?}");
    assert!(marker.index() < EntityIndex::LOW_INDEX_LIMIT, "{marker:?}");
    assert_eq!(e.index(), 1_000_000);
    assert_eq!(world.spawn_empty().id().index(), 1_000_001);
    world.check_invariants();
}

// ----- spawn_at ---------------------------------------------------------------------

#[test]
fn spawn_at_gives_exactly_the_id_asked_for() {
    let mut world = World::new();
    let id = Entity::from_raw(777, 12);
    let e = world.spawn_at(id).unwrap().insert(Health(5)).id();
    assert_eq!(e, id);
    assert!(world.is_alive(id));
    assert!(!world.is_alive(Entity::from_raw(777, 11)));
    assert_eq!(world.get::<Health>(id), Some(&Health(5)));
    assert_eq!(world.entity_count(), 1);
    // Later spawns skip it.
    let spawned: Vec<Entity> = (0..2000).map(|_| world.spawn_empty().id()).collect();
    assert!(spawned.iter().all(|entity| entity.index() != 777));
    assert_eq!(spawned.iter().collect::<HashSet<_>>().len(), 2000);
    world.check_invariants();
}

#[test]
fn spawn_at_fills_indices_the_fresh_counter_skipped() {
    let mut world = World::new();
    let before = world.spawn_empty().id().index();
    let high = Entity::from_raw(100, 0);
    world.spawn_at(high).unwrap();
    // 50 was jumped over: spawn_at may take it, and spawns take the other
    // skipped indices (lowest first, as Bevy's free list) before going on
    // after 100.
    let gap = Entity::from_raw(50, 4);
    world.spawn_at(gap).unwrap();
    assert!(world.is_alive(gap));
    let spawned: Vec<Entity> = (0..(100 - before - 2 + 10)).map(|_| world.spawn_empty().id()).collect();
    let expected: Vec<u32> = (before + 1..100).filter(|&index| index != 50).chain(101..111).collect();
    assert_eq!(indices(&spawned), expected);
    world.check_invariants();
}

#[test]
fn spawn_at_refuses_alive_out_of_range_and_retired_ids() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let other_generation = Entity::from_raw(e.index(), e.generation() + 3);
    let error = world.spawn_at(other_generation).err().unwrap();
    assert_eq!(error, SpawnError::Alive { entity: other_generation, existing: e });
    assert_eq!(error.to_string(), format!("cannot spawn {other_generation:?}: {e:?} is alive with that index"));

    world.set_entity_range(2000..3000);
    let outside = Entity::from_raw(1999, 0);
    let error = world.spawn_at(outside).err().unwrap();
    assert_eq!(error, SpawnError::OutOfRange { entity: outside, range: 2000..3000 });
    assert_eq!(
        error.to_string(),
        format!("cannot spawn {outside:?}: its index lies outside the active entity range 2000..3000")
    );
    let placeholder = world.spawn_at(Entity::PLACEHOLDER).err().unwrap();
    assert!(matches!(placeholder, SpawnError::OutOfRange { .. }));

    // A despawned component's index is retired for good.
    world.set_entity_range(1..u32::MAX);
    let health = world.register_component::<Health>();
    assert!(world.despawn(health));
    let again = Entity::from_raw(health.index(), health.generation() + 1);
    let error = world.spawn_at(again).err().unwrap();
    assert_eq!(error, SpawnError::Retired { entity: again });
    assert!(error.to_string().contains("retired"), "{error}");
    world.check_invariants();
}

#[test]
fn spawn_at_honours_the_generation_after_despawn() {
    let mut world = World::new();
    world.set_entity_range(3000..4000);
    let first = world.spawn(Health(1)).id();
    assert!(world.despawn(first));
    // The next incarnation may be given any generation, higher or lower.
    let chosen = Entity::from_raw(first.index(), 40);
    world.spawn_at(chosen).unwrap();
    assert!(world.is_alive(chosen) && !world.is_alive(first));
    assert!(world.despawn(chosen));
    let rewound = Entity::from_raw(first.index(), 2);
    world.spawn_at(rewound).unwrap();
    assert!(world.is_alive(rewound) && !world.is_alive(chosen));
    assert!(world.despawn(rewound));
    // A plain spawn now recycles the slot with the generation after 2.
    assert_eq!(world.spawn_empty().id(), Entity::from_raw(first.index(), 3));
    world.check_invariants();
}

#[test]
fn spawn_at_flushes_reservations_first() {
    let mut world = World::new();
    let reserved = world.reserve_entity();
    let remote = world.remote_entities().reserve();
    let clash = Entity::from_raw(reserved.index(), 9);
    assert_eq!(world.spawn_at(clash).err(), Some(SpawnError::Alive { entity: clash, existing: reserved }));
    assert!(world.is_alive(reserved) && world.is_alive(remote));
    let clash = Entity::from_raw(remote.index(), 1);
    assert_eq!(world.spawn_at(clash).err(), Some(SpawnError::Alive { entity: clash, existing: remote }));
    world.check_invariants();
}

// ----- remote reservation -------------------------------------------------------------

fn assert_send_sync_clone<T: Send + Sync + Clone + 'static>() {}

#[test]
fn remote_entities_is_send_sync_clone() {
    assert_send_sync_clone::<RemoteEntities>();
}

#[test]
fn remote_ids_become_alive_and_empty_at_the_next_flush() {
    let mut world = World::new();
    let remote = world.remote_entities();
    let before = remote.reserve();
    assert!(!world.is_alive(before));
    world.flush();
    assert!(world.is_alive(before));
    assert_eq!(world.entity(before).archetype(), ArchetypeId::EMPTY);
    assert_eq!(world.ids_of(before), Some(&[][..]));
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn remote_reservations_interleave_with_spawns_despawns_and_commands() {
    let mut world = World::new();
    let remote = world.remote_entities();
    let dead: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
    let r1 = remote.reserve();
    for &entity in &dead {
        assert!(world.despawn(entity)); // flushes r1 first
    }
    assert!(world.is_alive(r1));
    let r2 = remote.reserve();
    let local = world.reserve_entity(); // recycles a dead slot
    let r3 = remote.reserve();
    let local_fresh: Vec<Entity> = (0..3).map(|_| world.reserve_entity()).collect();
    let r4 = remote.reserve();
    let spawned = world.spawn(Health(9)).id(); // flushes everything first
    let mut all = vec![r1, r2, r3, r4, local, spawned];
    all.extend(&local_fresh);
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len(), "ids handed out twice: {all:?}");
    assert!(all.iter().all(|&entity| world.is_alive(entity)));
    assert!(dead.iter().any(|old| old.index() == local.index()), "Commands recycle dead slots first");
    assert!(dead.iter().all(|old| ![r1, r2, r3, r4].iter().any(|r| r.index() == old.index())));
    assert_eq!(world.entity_count(), 9);
    world.check_invariants();
}

#[test]
fn remote_reservations_follow_the_range_and_survive_a_switch() {
    let mut world = World::new();
    let remote = world.remote_entities();
    world.set_entity_range(200..203);
    let pending = remote.reserve();
    assert_eq!(pending.index(), 200);
    world.set_entity_range(300..302); // the switch flushes the old window
    assert!(world.is_alive(pending));
    assert_eq!(remote.reserve().index(), 300);
    assert_eq!(world.spawn_empty().id().index(), 301);
    assert_eq!(remote.try_reserve(), None);
    let message = panic_message(|| remote.reserve());
    assert_eq!(message, "RemoteEntities::reserve: the entity range 300..302 has no fresh index left");
    // Back in the first range, after the pending one.
    world.set_entity_range(200..203);
    assert_eq!(remote.reserve().index(), 201);
    world.flush();
    assert_eq!(world.entity_count(), 4);
    world.check_invariants();
}

#[test]
fn a_switch_to_an_overlapping_range_starts_after_pending_remote_ids() {
    let mut world = World::new();
    let remote = world.remote_entities();
    world.set_entity_range(1000..1200);
    let pending = remote.reserve_many(2);
    world.set_entity_range(1..u32::MAX);
    let next = world.spawn_empty().id();
    assert_eq!(next.index(), 1002);
    assert!(pending.iter().all(|&entity| world.is_alive(entity)));
    world.check_invariants();
}

#[test]
fn the_index_switching_ranges_accounts_for_unflushed_remote_ids() {
    // As when a remote thread reserves between the world's flush and the switch.
    let mut index = EntityIndex::default();
    let remote = index.remote();
    index.set_range(1000..1200, |_| EntityLocation::INVALID);
    let pending = remote.reserve_many(2);
    let mut placed = Vec::new();
    index.set_range(1..u32::MAX, |entity| {
        placed.push(entity);
        EntityLocation::INVALID
    });
    assert_eq!(placed, pending);
    assert_eq!(index.alloc().index(), 1002);
    index.check_invariants();
}

#[test]
fn a_handle_outliving_its_world_keeps_reserving_harmlessly() {
    let world = World::new();
    let remote = world.remote_entities();
    let before = remote.reserve();
    drop(world);
    let after = remote.reserve();
    assert_ne!(before, after);
    assert_eq!(remote.clone().reserve_many(3).len(), 3);
}

#[test]
fn four_threads_reserve_while_the_world_spawns_and_despawns() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 10_000;
    let mut world = World::new();
    let remote = world.remote_entities();
    let start = std::sync::Barrier::new(THREADS + 1);
    let (reserved, kept) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let remote = remote.clone();
                let start = &start;
                scope.spawn(move || {
                    start.wait();
                    (0..PER_THREAD).map(|_| remote.reserve()).collect::<Vec<Entity>>()
                })
            })
            .collect();
        start.wait();
        let mut kept: Vec<Entity> = Vec::new();
        let mut round = 0u32;
        while !workers.iter().all(|worker| worker.is_finished()) || round < 2000 {
            let e = world.spawn(Health(round)).id();
            if round.is_multiple_of(3) {
                assert!(world.despawn(e));
            } else {
                kept.push(e);
            }
            if round.is_multiple_of(7) && kept.len() > 2 {
                let victim = kept.swap_remove(kept.len() / 2);
                assert!(world.despawn(victim));
            }
            round += 1;
        }
        let reserved: Vec<Entity> = workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect();
        (reserved, kept)
    });
    world.flush();
    assert_eq!(reserved.len(), THREADS * PER_THREAD);
    let unique: HashSet<Entity> = reserved.iter().chain(&kept).copied().collect();
    assert_eq!(unique.len(), reserved.len() + kept.len(), "an id was handed out twice");
    let indices: HashSet<u32> = unique.iter().map(|entity| entity.index()).collect();
    assert_eq!(indices.len(), unique.len(), "two live ids share an index");
    assert!(unique.iter().all(|&entity| world.is_alive(entity)));
    assert_eq!(world.entity_count(), unique.len());
    assert!(kept.iter().all(|&entity| world.get::<Health>(entity).is_some()));
    world.check_invariants();
}

// ----- model-based ------------------------------------------------------------------

/// The ranges the model switches between (0 is the full range).
const RANGES: [std::ops::Range<u32>; 3] = [1..u32::MAX, 1000..1200, 2000..2200];

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Despawn(usize),
    SpawnAt { range: usize, offset: u32, generation: u32 },
    SpawnAtAlive(usize),
    SetRange(usize),
    Reserve,
    RemoteReserve(usize),
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Spawn),
        3 => any::<usize>().prop_map(Op::Despawn),
        2 => (0..RANGES.len(), 0..40u32, 0..4u32)
            .prop_map(|(range, offset, generation)| Op::SpawnAt { range, offset, generation }),
        1 => any::<usize>().prop_map(Op::SpawnAtAlive),
        1 => (0..RANGES.len()).prop_map(Op::SetRange),
        2 => Just(Op::Reserve),
        2 => (1..4usize).prop_map(Op::RemoteReserve),
        1 => Just(Op::Flush),
    ]
}

/// The naive model: the alive entities by index, the reserved ids not alive yet.
struct Model {
    alive: BTreeMap<u32, Entity>,
    /// Entities this test created (despawn candidates).
    users: Vec<Entity>,
    pending: Vec<Entity>,
    range: std::ops::Range<u32>,
}

impl Model {
    /// What every flushing world call does first.
    fn flush(&mut self) {
        for entity in self.pending.drain(..) {
            assert!(self.alive.insert(entity.index(), entity).is_none(), "reserved {entity:?} was alive");
            self.users.push(entity);
        }
    }

    /// A new id handed out by spawn or a reservation: in the range, no alive or
    /// pending entity has its index.
    fn check_new(&self, entity: Entity) -> Result<(), TestCaseError> {
        prop_assert!(self.range.contains(&entity.index()), "{:?} outside {:?}", entity, self.range);
        prop_assert!(!self.alive.contains_key(&entity.index()), "{:?} handed out while alive", entity);
        prop_assert!(self.pending.iter().all(|p| p.index() != entity.index()), "{:?} reserved twice", entity);
        Ok(())
    }
}

fn run_model(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut world = World::new();
    let remote = world.remote_entities();
    let alive = world.entities().alive().iter().map(|&entity| (entity.index(), entity)).collect();
    let mut model = Model { alive, users: Vec::new(), pending: Vec::new(), range: RANGES[0].clone() };
    for op in ops {
        match op {
            Op::Spawn => {
                model.flush();
                let entity = world.spawn_empty().id();
                model.check_new(entity)?;
                model.alive.insert(entity.index(), entity);
                model.users.push(entity);
            }
            Op::Despawn(pick) => {
                model.flush();
                if !model.users.is_empty() {
                    let entity = model.users.swap_remove(pick % model.users.len());
                    prop_assert!(world.despawn(entity));
                    model.alive.remove(&entity.index());
                }
            }
            Op::SpawnAt { range, offset, generation } => {
                let entity = Entity::from_raw(RANGES[range].start + offset, generation);
                spawn_at(&mut world, &mut model, entity)?;
            }
            Op::SpawnAtAlive(pick) => {
                if let Some(&existing) = model.users.get(pick % model.users.len().max(1)) {
                    spawn_at(&mut world, &mut model, Entity::from_raw(existing.index(), 0))?;
                }
            }
            Op::SetRange(which) => {
                model.flush();
                world.set_entity_range(RANGES[which].clone());
                model.range = RANGES[which].clone();
            }
            Op::Reserve => {
                let entity = world.reserve_entity();
                model.check_new(entity)?;
                prop_assert!(!world.is_alive(entity));
                model.pending.push(entity);
            }
            Op::RemoteReserve(count) => {
                for entity in remote.reserve_many(count) {
                    model.check_new(entity)?;
                    prop_assert_eq!(entity.generation(), 0);
                    model.pending.push(entity);
                }
            }
            Op::Flush => {
                model.flush();
                world.flush();
            }
        }
        world.check_invariants();
        prop_assert_eq!(world.entities().alive_count(), model.alive.len());
        for entity in model.alive.values() {
            prop_assert!(world.is_alive(*entity), "{:?} should be alive", entity);
        }
        for entity in &model.pending {
            prop_assert!(!world.is_alive(*entity), "{:?} alive before the flush", entity);
        }
    }
    Ok(())
}

/// `world.spawn_at(entity)` against the model's expectation.
fn spawn_at(world: &mut World, model: &mut Model, entity: Entity) -> Result<(), TestCaseError> {
    model.flush();
    let expected = if !model.range.contains(&entity.index()) {
        Err(SpawnError::OutOfRange { entity, range: model.range.clone() })
    } else if let Some(&existing) = model.alive.get(&entity.index()) {
        Err(SpawnError::Alive { entity, existing })
    } else {
        Ok(entity)
    };
    let got = world.spawn_at(entity).map(|spawned| spawned.id());
    prop_assert_eq!(&got, &expected);
    if got.is_ok() {
        model.alive.insert(entity.index(), entity);
        model.users.push(entity);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_ranges_spawns_and_reservations_match_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        run_model(ops)?;
    }
}
