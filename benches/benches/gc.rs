//! `gc`: the cost of keeping empty tables apart and of collecting them (ecs only:
//! the peers have no such feature to compare with).
//!
//! * `churn_1_entity`: one entity with `A` gets `B` and loses it again, 10,000
//!   times: every move empties one table and fills another, so each pays the
//!   component index's empty/non-empty swap (one per record of both
//!   archetypes). The worst case of empty-table tracking; bulk moves
//!   (`add_remove`) pay it once per table, not per entity.
//! * `collect_1000`: `World::collect_garbage` deleting 1,000 empty archetypes
//!   (`(Likes, target_i)` pairs an entity passed through), set up again outside
//!   the timing for each run.
//! * `collect_nothing`: a collection on a world with 1,000 non-empty
//!   archetypes and no empty one (the per-call floor).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{A, B, ENTITY_COUNT};

const ARCHETYPES: usize = 1_000;

/// A world with `ARCHETYPES` empty pair archetypes.
fn world_with_empty_archetypes() -> World {
    let mut world = World::new();
    let likes = world.spawn_empty().id();
    let e = world.spawn(A(0.0)).id();
    for _ in 0..ARCHETYPES {
        let target = world.spawn_empty().id();
        world.add_pair_id(e, likes, target);
        world.remove_pair_id(e, likes, target);
    }
    world
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("gc");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));

    group.bench_function("churn_1_entity", |b| {
        let mut world = World::new();
        let e = world.spawn(A(0.0)).id();
        b.iter(|| {
            for _ in 0..ENTITY_COUNT {
                world.insert(e, B(0.0));
                black_box(world.remove::<B>(e));
            }
        });
    });

    group.bench_function("collect_1000", |b| {
        b.iter_batched(
            world_with_empty_archetypes,
            |mut world| {
                assert!(world.collect_garbage(GcConfig { empty_for: 1, max_time: None }) >= ARCHETYPES);
                world
            },
            BatchSize::LargeInput,
        );
    });

    group.bench_function("collect_nothing", |b| {
        let mut world = World::new();
        let likes = world.spawn_empty().id();
        for _ in 0..ARCHETYPES {
            let target = world.spawn_empty().id();
            let e = world.spawn(A(0.0)).id();
            world.add_pair_id(e, likes, target);
        }
        world.collect_garbage(GcConfig { empty_for: 0, max_time: None });
        b.iter(|| black_box(world.collect_garbage(GcConfig { empty_for: 1, max_time: None })));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
