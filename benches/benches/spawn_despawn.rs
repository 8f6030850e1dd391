//! `spawn_despawn`: on a world created once, the routine spawns 10,000 entities
//! with `(Position, Velocity)` one `spawn` call at a time, then despawns them one
//! at a time; from the second run on, entity ids are recycled.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Vec3, Velocity};

fn bundle() -> (Position, Velocity) {
    (Position(Vec3::new(0.0, 0.0, 0.0)), Velocity(Vec3::new(1.0, 0.0, 0.0)))
}

fn ecs_spawn_despawn(world: &mut World, entities: &mut Vec<Entity>) {
    entities.clear();
    for _ in 0..ENTITY_COUNT {
        entities.push(world.spawn(bundle()).id());
    }
    for entity in entities.drain(..) {
        assert!(world.despawn(entity));
    }
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn_despawn");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        let mut entities = Vec::with_capacity(ENTITY_COUNT);
        // One run spawns and despawns everything; a second one recycles the ids.
        ecs_spawn_despawn(&mut world, &mut entities);
        entities.push(world.spawn(bundle()).id());
        assert_eq!(world.entity_count(), 1);
        let recycled = entities[0];
        assert!(world.despawn(recycled));
        ecs_spawn_despawn(&mut world, &mut entities);
        assert_eq!(world.entity_count(), 0);
        assert!(!world.is_alive(recycled));

        b.iter(|| ecs_spawn_despawn(&mut world, &mut entities));
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

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
