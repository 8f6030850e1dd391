//! `many_archetypes_iter`: 10,000 entities with `Data`, entity `i` also with the
//! zero-sized tags `T0`..`T9` whose bit is set in `i % 1024` (1,024 archetypes of
//! about 10 rows each); the routine adds 1 to every `Data`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{Data, ENTITY_COUNT, TAG_ARCHETYPES, for_each_set_tag};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("many_archetypes_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        for i in 0..ENTITY_COUNT {
            let entity = world.spawn(Data(0.0)).id();
            for_each_set_tag!(i % TAG_ARCHETYPES, |tag| assert!(world.insert(entity, tag)));
        }
        let mut query = world.query::<&mut Data>();
        assert_eq!(query.matched_archetypes().count(), TAG_ARCHETYPES);
        assert_eq!(query.iter(&world).count(), ENTITY_COUNT);
        query.iter_mut(&mut world).for_each(|mut data| data.0 += 1.0);
        assert!(query.iter(&world).all(|data| data.0 == 1.0));

        b.iter(|| {
            query.iter_mut(&mut world).for_each(|mut data| data.0 += 1.0);
        });
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        for i in 0..ENTITY_COUNT {
            let entity = world.spawn((Data(0.0),));
            for_each_set_tag!(i % TAG_ARCHETYPES, |tag| world.insert_one(entity, tag).unwrap());
        }
        assert_eq!(world.archetypes().filter(|a| a.has::<Data>() && !a.is_empty()).count(), TAG_ARCHETYPES);
        assert_eq!(world.query_mut::<&mut Data>().into_iter().count(), ENTITY_COUNT);
        for data in world.query_mut::<&mut Data>() {
            data.0 += 1.0;
        }
        assert!(world.query_mut::<&Data>().into_iter().all(|data| data.0 == 1.0));

        b.iter(|| {
            for data in world.query_mut::<&mut Data>() {
                data.0 += 1.0;
            }
        });
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
