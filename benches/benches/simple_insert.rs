//! `simple_insert`: spawn 10,000 entities with `(Transform, Position, Rotation,
//! Velocity)` into a fresh world.
//!
//! The empty world is built outside the measured routine (`iter_batched`), and the
//! filled world is returned from it so that its drop is not measured either.
//!
//! * `ecs`: `World::spawn_batch`, the ids collected by `count()`;
//!   `ecs_untracked`: the same with copies of the types declared
//!   `#[component(change_detection = false)]` (no tick columns to fill).
//! * `bevy_ecs`: its `World::spawn_batch` (one archetype and table lookup, then
//!   one row write per entity).
//! * `hecs`: its `World::spawn_batch`.
//! * `shipyard`: `World::bulk_add_entity` (one sparse set per component, each
//!   extended in bulk).
//! * `hand_written`: one push per component into four empty `Vec`s: the floor
//!   (it pays, like every side, for growing its storage and faulting in fresh
//!   pages each iteration).
//!
//! * `ecs_rebuild`, `hecs_rebuild`, `hand_written_rebuild`: the same work with
//!   one world built, filled and dropped per iteration (see the entries).
//!
//! Target (issue 7): `ecs` at or below 200 µs (median).

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Rotation, Transform, Velocity, simple_bundle};

/// Benches the `ecs` side as entry `$name`, with the types of module `$types`
/// (the change-detected types or their untracked copies).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($types:ident)::+) => {{
        use $($types)::+::{Position, Velocity, simple_bundle};

        /// Spawns the entities; returns how many.
        fn insert(world: &mut World) -> usize {
            world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
        }

        $group.bench_function($name, |b| {
            let mut check = World::new();
            assert_eq!(insert(&mut check), ENTITY_COUNT);
            assert_eq!(check.entity_count(), ENTITY_COUNT);
            assert_eq!(check.query::<(&Position, &Velocity)>().iter(&check).count(), ENTITY_COUNT);

            b.iter_batched(
                World::new,
                |mut world| {
                    insert(&mut world);
                    world
                },
                BatchSize::SmallInput,
            );
        });
    }};
}

fn hecs_insert(world: &mut hecs::World) -> usize {
    world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
}

/// Spawns the entities into a `bevy_ecs` world; returns how many.
fn bevy_insert(world: &mut bevy_ecs::world::World) -> usize {
    world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
}

/// Spawns the entities into a `shipyard` world; returns how many.
fn shipyard_insert(world: &mut shipyard::World) -> usize {
    world.bulk_add_entity((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
}

/// The baseline's "world": one vector per component.
#[derive(Default)]
struct HandWritten {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

/// Pushes the entities' components into the baseline's vectors; returns how many.
fn hand_written_insert(store: &mut HandWritten) -> usize {
    for _ in 0..ENTITY_COUNT {
        let (transform, position, rotation, velocity) = simple_bundle();
        store.transforms.push(transform);
        store.positions.push(position);
        store.rotations.push(rotation);
        store.velocities.push(velocity);
    }
    store.positions.len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked);

    group.bench_function("bevy_ecs", |b| {
        let mut check = bevy_ecs::world::World::new();
        // A new bevy world already holds entities of its own (resources).
        let base = check.entity_count() as usize;
        assert_eq!(bevy_insert(&mut check), ENTITY_COUNT);
        assert_eq!(check.entity_count() as usize - base, ENTITY_COUNT);
        assert_eq!(check.query::<(&Position, &Velocity)>().iter(&check).count(), ENTITY_COUNT);

        b.iter_batched(
            bevy_ecs::world::World::new,
            |mut world| {
                bevy_insert(&mut world);
                world
            },
            BatchSize::SmallInput,
        );
    });

    group.bench_function("hecs", |b| {
        let mut check = hecs::World::new();
        assert_eq!(hecs_insert(&mut check), ENTITY_COUNT);
        assert_eq!(check.len() as usize, ENTITY_COUNT);
        assert_eq!(check.query_mut::<(&Position, &Velocity)>().into_iter().count(), ENTITY_COUNT);

        b.iter_batched(
            hecs::World::new,
            |mut world| {
                hecs_insert(&mut world);
                world
            },
            BatchSize::SmallInput,
        );
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{EntitiesView, IntoIter, View};
        let mut check = shipyard::World::new();
        assert_eq!(shipyard_insert(&mut check), ENTITY_COUNT);
        assert_eq!(check.borrow::<EntitiesView>().unwrap().iter().count(), ENTITY_COUNT);
        let joined =
            check.run(|positions: View<Position>, velocities: View<Velocity>| (&positions, &velocities).iter().count());
        assert_eq!(joined, ENTITY_COUNT);

        b.iter_batched(
            shipyard::World::new,
            |mut world| {
                shipyard_insert(&mut world);
                world
            },
            BatchSize::SmallInput,
        );
    });

    group.bench_function("hand_written", |b| {
        let mut check = HandWritten::default();
        assert_eq!(hand_written_insert(&mut check), ENTITY_COUNT);
        assert!(check.transforms.len() == ENTITY_COUNT && check.rotations.len() == ENTITY_COUNT);
        assert!(check.velocities.iter().all(|&velocity| velocity == simple_bundle().3));

        b.iter_batched(
            HandWritten::default,
            |mut store| {
                hand_written_insert(&mut store);
                store
            },
            BatchSize::SmallInput,
        );
    });

    // One world at a time: build, fill and drop it in each iteration, the
    // pattern of a tool or test that rebuilds its world. The batched entries
    // above keep many filled worlds alive before dropping them together, so the
    // allocator hands their memory back to the OS and every side faults in
    // fresh pages (their medians move with the process's heap history); here a
    // side pays that only if its allocations let the allocator return a whole
    // world's memory between iterations.
    group.bench_function("ecs_rebuild", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
        });
    });
    group.bench_function("hecs_rebuild", |b| {
        b.iter(|| hecs_insert(&mut hecs::World::new()));
    });
    group.bench_function("hand_written_rebuild", |b| {
        b.iter(|| hand_written_insert(&mut HandWritten::default()));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
