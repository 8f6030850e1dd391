//! `many_archetypes_iter`: 10,000 entities with `Data`, entity `i` also with the
//! zero-sized tags `T0`..`T9` whose bit is set in `i % 1024` (1,024 archetypes of
//! about 10 rows each); the routine adds 1 to every `Data`.
//!
//! * `ecs`: entities built by `spawn(Data)` then one `insert` per tag; a
//!   `QueryState<&mut Data>` built once, `iter_mut(..).for_each(..)` per
//!   iteration (1,024 tables visited); `ecs_untracked`: the same with a copy
//!   of `Data` declared `#[component(change_detection = false)]`.
//! * `bevy_ecs`: built the same way (`spawn`, then `entity_mut(e).insert(tag)`),
//!   iterated the same way with its `QueryState` (1,024 archetypes and tables).
//! * `hecs`: built with `spawn` then `insert_one` per tag; a `for` loop over
//!   `query_mut::<&mut Data>()` (1,024 archetypes).
//! * `shipyard`: built with `add_entity` then `add_component(e, (tag,))` per
//!   tag; `World::run` with `ViewMut<Data>` and a `for` loop over
//!   `(&mut data).iter()`: one sparse set per component, so the tags do not
//!   split `Data`, which stays one dense array.
//! * `hand_written`: one `Vec<Data>` per tag set (1,024 of about 10), visited
//!   vector by vector: the floor.
//!
//! Target (issue 7): `ecs` at or below 1.0 µs (median).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::tags::T9;
use ecs_benches::{Data, ENTITY_COUNT, TAG_ARCHETYPES, for_each_set_tag};

/// Benches the `ecs` side as entry `$name`, with `Data` from module `$types`
/// (the change-detected type or its untracked copy).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($types:ident)::+) => {{
        use $($types)::+::Data;

        $group.bench_function($name, |b| {
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
    }};
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("many_archetypes_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked);

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        for i in 0..ENTITY_COUNT {
            let entity = world.spawn(Data(0.0)).id();
            for_each_set_tag!(i % TAG_ARCHETYPES, |tag| world.entity_mut(entity).insert(tag));
        }
        let data = world.component_id::<Data>().expect("spawning registered `Data`");
        assert_eq!(world.archetypes().iter().filter(|a| a.contains(data) && !a.is_empty()).count(), TAG_ARCHETYPES);
        let mut query = world.query::<&mut Data>();
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

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, View, ViewMut};
        let mut world = shipyard::World::new();
        for i in 0..ENTITY_COUNT {
            let entity = world.add_entity((Data(0.0),));
            for_each_set_tag!(i % TAG_ARCHETYPES, |tag| world.add_component(entity, (tag,)));
        }
        let system = |mut data: ViewMut<Data>| {
            for data in (&mut data).iter() {
                data.0 += 1.0;
            }
        };
        assert_eq!(world.run(|data: View<Data>| data.len()), ENTITY_COUNT);
        // Entity `i` has `T9` when bit 9 of `i % 1024` is set: 512 of every 1,024.
        let with_t9 = (0..ENTITY_COUNT).filter(|i| i % TAG_ARCHETYPES >= 512).count();
        assert_eq!(world.run(|data: View<Data>, t9: View<T9>| (&data, &t9).iter().count()), with_t9);
        world.run(system);
        assert!(world.run(|data: View<Data>| data.iter().all(|data| data.0 == 1.0)));

        b.iter(|| world.run(system));
    });

    group.bench_function("hand_written", |b| {
        let mut archetypes: Vec<Vec<Data>> = vec![Vec::new(); TAG_ARCHETYPES];
        for i in 0..ENTITY_COUNT {
            archetypes[i % TAG_ARCHETYPES].push(Data(0.0));
        }
        let run = |archetypes: &mut Vec<Vec<Data>>| {
            for archetype in archetypes.iter_mut() {
                for data in archetype.iter_mut() {
                    data.0 += 1.0;
                }
            }
            black_box(archetypes);
        };
        assert_eq!(archetypes.iter().map(Vec::len).sum::<usize>(), ENTITY_COUNT);
        run(&mut archetypes);
        assert!(archetypes.iter().flatten().all(|data| data.0 == 1.0));

        b.iter(|| run(&mut archetypes));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
