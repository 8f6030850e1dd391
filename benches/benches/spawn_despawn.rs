//! `spawn_despawn`: on a world created once, the routine spawns 10,000 entities
//! with `(Position, Velocity)` one `spawn` call at a time, then despawns them one
//! at a time; from the second run on, entity ids are recycled.
//!
//! * `ecs`: `World::spawn(bundle)` then `World::despawn(entity)`;
//!   `ecs_untracked`: the same with copies of the types declared
//!   `#[component(change_detection = false)]`.
//! * `bevy_ecs`: its `World::spawn(bundle)` then `World::despawn(entity)`.
//! * `hecs`: its `World::spawn(bundle)` then `World::despawn(entity)`.
//! * `shipyard`: `World::add_entity(bundle)` then `World::delete_entity(entity)`.
//! * `hand_written`: generational ids over a free list, the components in two
//!   `Vec`s indexed by slot: the floor.
//!
//! Target (issue 7): `ecs` at or below 300 µs (median).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Vec3, Velocity};

fn bundle() -> (Position, Velocity) {
    (Position(Vec3::new(0.0, 0.0, 0.0)), Velocity(Vec3::new(1.0, 0.0, 0.0)))
}

/// Benches the `ecs` side as entry `$name`, with the types of module `$types`
/// (the change-detected types or their untracked copies).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($types:ident)::+) => {{
        use $($types)::+::{Position, Velocity};

        /// The spawned bundle.
        fn bundle() -> (Position, Velocity) {
            (Position(Vec3::new(0.0, 0.0, 0.0)), Velocity(Vec3::new(1.0, 0.0, 0.0)))
        }

        /// Spawns then despawns the entities one by one.
        fn spawn_despawn(world: &mut World, entities: &mut Vec<Entity>) {
            entities.clear();
            for _ in 0..ENTITY_COUNT {
                entities.push(world.spawn(bundle()).id());
            }
            for entity in entities.drain(..) {
                assert!(world.despawn(entity));
            }
        }

        $group.bench_function($name, |b| {
            let mut world = World::new();
            let mut entities = Vec::with_capacity(ENTITY_COUNT);
            // One run spawns and despawns everything; a second one recycles the ids.
            spawn_despawn(&mut world, &mut entities);
            entities.push(world.spawn(bundle()).id());
            assert_eq!(world.entity_count(), 1);
            let recycled = entities[0];
            assert!(world.despawn(recycled));
            spawn_despawn(&mut world, &mut entities);
            assert_eq!(world.entity_count(), 0);
            assert!(!world.is_alive(recycled));

            b.iter(|| spawn_despawn(&mut world, &mut entities));
        });
    }};
}

fn hecs_spawn_despawn(world: &mut hecs::World, entities: &mut Vec<hecs::Entity>) {
    entities.clear();
    for _ in 0..ENTITY_COUNT {
        entities.push(world.spawn(bundle()));
    }
    for entity in entities.drain(..) {
        world.despawn(entity).unwrap();
    }
}

/// Spawns then despawns the entities one by one in a `bevy_ecs` world.
fn bevy_spawn_despawn(world: &mut bevy_ecs::world::World, entities: &mut Vec<bevy_ecs::entity::Entity>) {
    entities.clear();
    for _ in 0..ENTITY_COUNT {
        entities.push(world.spawn(bundle()).id());
    }
    for entity in entities.drain(..) {
        assert!(world.despawn(entity));
    }
}

/// Adds then deletes the entities one by one in a `shipyard` world.
fn shipyard_spawn_despawn(world: &mut shipyard::World, entities: &mut Vec<shipyard::EntityId>) {
    entities.clear();
    for _ in 0..ENTITY_COUNT {
        entities.push(world.add_entity(bundle()));
    }
    for entity in entities.drain(..) {
        assert!(world.delete_entity(entity));
    }
}

/// The number of live `shipyard` entities.
fn shipyard_len(world: &shipyard::World) -> usize {
    world.borrow::<shipyard::EntitiesView>().unwrap().iter().count()
}

/// The baseline's entity id: a slot and the generation it was handed out in.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HandWrittenId {
    slot: u32,
    generation: u32,
}

/// The baseline: generational slots over a free list, the components in two
/// vectors indexed by slot.
#[derive(Default)]
struct HandWritten {
    /// Each slot's current generation, odd while the slot is alive.
    generations: Vec<u32>,
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
    /// Dead slots, reused last-freed first.
    free: Vec<u32>,
    len: usize,
}

impl HandWritten {
    /// A new entity with `(position, velocity)`, reusing a free slot first.
    fn spawn(&mut self, (position, velocity): (Position, Velocity)) -> HandWrittenId {
        self.len += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.positions[slot as usize] = position;
                self.velocities[slot as usize] = velocity;
                slot
            }
            None => {
                self.generations.push(0);
                self.positions.push(position);
                self.velocities.push(velocity);
                (self.generations.len() - 1) as u32
            }
        };
        let generation = &mut self.generations[slot as usize];
        *generation += 1;
        HandWrittenId { slot, generation: *generation }
    }

    /// Whether `id` names a live entity.
    fn is_alive(&self, id: HandWrittenId) -> bool {
        self.generations.get(id.slot as usize) == Some(&id.generation) && id.generation % 2 == 1
    }

    /// Despawns `id`; returns whether it was alive.
    fn despawn(&mut self, id: HandWrittenId) -> bool {
        if !self.is_alive(id) {
            return false;
        }
        self.generations[id.slot as usize] += 1;
        self.free.push(id.slot);
        self.len -= 1;
        true
    }
}

/// Spawns then despawns the entities one by one in the baseline.
fn hand_written_spawn_despawn(store: &mut HandWritten, entities: &mut Vec<HandWrittenId>) {
    entities.clear();
    for _ in 0..ENTITY_COUNT {
        entities.push(store.spawn(bundle()));
    }
    for entity in entities.drain(..) {
        assert!(store.despawn(entity));
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn_despawn");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked);

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        // A new bevy world already holds entities of its own (resources).
        let base = world.entity_count();
        let mut entities = Vec::with_capacity(ENTITY_COUNT);
        bevy_spawn_despawn(&mut world, &mut entities);
        entities.push(world.spawn(bundle()).id());
        assert_eq!(world.entity_count(), base + 1);
        let recycled = entities[0];
        assert!(world.despawn(recycled));
        bevy_spawn_despawn(&mut world, &mut entities);
        assert_eq!(world.entity_count(), base);
        assert!(world.get_entity(recycled).is_err());

        b.iter(|| bevy_spawn_despawn(&mut world, &mut entities));
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        let mut entities = Vec::with_capacity(ENTITY_COUNT);
        hecs_spawn_despawn(&mut world, &mut entities);
        entities.push(world.spawn(bundle()));
        assert_eq!(world.len(), 1);
        let recycled = entities[0];
        world.despawn(recycled).unwrap();
        hecs_spawn_despawn(&mut world, &mut entities);
        assert_eq!(world.len(), 0);
        assert!(!world.contains(recycled));

        b.iter(|| hecs_spawn_despawn(&mut world, &mut entities));
    });

    group.bench_function("shipyard", |b| {
        let mut world = shipyard::World::new();
        let mut entities = Vec::with_capacity(ENTITY_COUNT);
        shipyard_spawn_despawn(&mut world, &mut entities);
        entities.push(world.add_entity(bundle()));
        assert_eq!(shipyard_len(&world), 1);
        let recycled = entities[0];
        assert!(world.delete_entity(recycled));
        shipyard_spawn_despawn(&mut world, &mut entities);
        assert_eq!(shipyard_len(&world), 0);
        assert!(!world.is_entity_alive(recycled));

        b.iter(|| shipyard_spawn_despawn(&mut world, &mut entities));
    });

    group.bench_function("hand_written", |b| {
        let mut store = HandWritten::default();
        let mut entities = Vec::with_capacity(ENTITY_COUNT);
        hand_written_spawn_despawn(&mut store, &mut entities);
        entities.push(store.spawn(bundle()));
        assert_eq!(store.len, 1);
        let recycled = entities[0];
        assert!(store.despawn(recycled));
        hand_written_spawn_despawn(&mut store, &mut entities);
        assert_eq!(store.len, 0);
        assert!(!store.is_alive(recycled));
        assert_eq!(store.positions.len(), ENTITY_COUNT);

        b.iter(|| hand_written_spawn_despawn(black_box(&mut store), &mut entities));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
