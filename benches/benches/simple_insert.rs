//! `simple_insert`: spawn 10,000 entities with `(Transform, Position, Rotation,
//! Velocity)` through `spawn_batch` into a fresh world.
//!
//! The empty world is built outside the measured routine (`iter_batched`), and the
//! filled world is returned from it so that its drop is not measured either.

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Velocity, simple_bundle};

fn ecs_insert(world: &mut World) -> usize {
    world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
}

fn hecs_insert(world: &mut hecs::World) -> usize {
    world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).count()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut check = World::new();
        assert_eq!(ecs_insert(&mut check), ENTITY_COUNT);
        assert_eq!(check.entity_count(), ENTITY_COUNT);
        assert_eq!(check.query::<(&Position, &Velocity)>().iter(&check).count(), ENTITY_COUNT);

        b.iter_batched(
            World::new,
            |mut world| {
                ecs_insert(&mut world);
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

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
