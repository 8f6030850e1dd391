//! `add_remove`: 10,000 entities with `A`; the routine inserts `B` into each, one
//! call per entity, then removes `B` from each (two archetype moves per entity).
//!
//! Target: `ecs` at or below 0.7x `hecs` (median): one cached graph-edge move per
//! operation.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{A, B, ENTITY_COUNT};

fn ecs_add_remove(world: &mut World, entities: &[Entity]) {
    for &entity in entities {
        assert!(world.insert(entity, B(0.0)));
    }
    for &entity in entities {
        assert!(world.remove::<B>(entity).is_some());
    }
}

fn hecs_add_remove(world: &mut hecs::World, entities: &[hecs::Entity]) {
    for &entity in entities {
        world.insert_one(entity, B(0.0)).unwrap();
    }
    for &entity in entities {
        world.remove_one::<B>(entity).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
        assert_eq!(entities.len(), ENTITY_COUNT);
        ecs_add_remove(&mut world, &entities);
        assert_eq!(world.entity_count(), ENTITY_COUNT);
        assert_eq!(world.query::<&A>().iter(&world).count(), ENTITY_COUNT);
        assert_eq!(world.query::<&B>().iter(&world).count(), 0);

        b.iter(|| ecs_add_remove(&mut world, &entities));
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        let entities: Vec<hecs::Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
        assert_eq!(entities.len(), ENTITY_COUNT);
        hecs_add_remove(&mut world, &entities);
        assert_eq!(world.len() as usize, ENTITY_COUNT);
        assert_eq!(world.query_mut::<&A>().into_iter().count(), ENTITY_COUNT);
        assert_eq!(world.query_mut::<&B>().into_iter().count(), 0);

        b.iter(|| hecs_add_remove(&mut world, &entities));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
