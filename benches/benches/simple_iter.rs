//! `simple_iter`: 10,000 entities with `(Transform, Position, Rotation, Velocity)`;
//! the routine adds each entity's velocity to its position.
//!
//! Target: `ecs` at or below `hecs` (median), although `ecs` also stamps a
//! change tick per written row and `hecs` has no change detection.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Vec3, Velocity, simple_bundle};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).for_each(|_| ());
        let mut query = world.query::<(&Velocity, &mut Position)>();
        assert_eq!(query.iter(&world).count(), ENTITY_COUNT);
        query.iter_mut(&mut world).for_each(|(velocity, mut position)| position.0 += velocity.0);
        assert!(query.iter(&world).all(|(_, position)| position.0 == Vec3::new(2.0, 0.0, 0.0)));

        b.iter(|| {
            query.iter_mut(&mut world).for_each(|(velocity, mut position)| position.0 += velocity.0);
        });
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).for_each(|_| ());
        assert_eq!(world.query_mut::<(&Velocity, &mut Position)>().into_iter().count(), ENTITY_COUNT);
        world.query_mut::<(&Velocity, &mut Position)>().into_iter().for_each(|(velocity, position)| {
            position.0 += velocity.0;
        });
        assert!(world.query_mut::<&Position>().into_iter().all(|position| position.0 == Vec3::new(2.0, 0.0, 0.0)));

        b.iter(|| {
            for (velocity, position) in world.query_mut::<(&Velocity, &mut Position)>() {
                position.0 += velocity.0;
            }
        });
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
