//! `union`: change the target of 10,000 entities' exclusive relationship pair,
//! one call per entity, flipping between two targets each iteration.
//!
//! * `retarget_10k/union`: a `#[relationship(union)]` relationship: the
//!   entities stay in their one table (`(R, *union*)`), each call rewrites the
//!   row's target (no archetype move).
//! * `retarget_10k/fragmenting`: the same with a fragmenting exclusive
//!   relationship (`#[relationship(exclusive)]`): each call moves the entity
//!   between the archetypes `(R, a)` and `(R, b)` along the cached
//!   replacement edge (a row move of its `Position`).
//!
//! Both entities carry a `Position`, so the fragmenting move copies a value.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;

/// How many entities change target per iteration.
const ENTITIES: usize = 10_000;

#[derive(Component, Clone, Copy)]
struct Position(#[allow(dead_code)] [f32; 3]);

/// The non-fragmenting relationship.
#[derive(Relationship)]
#[relationship(union)]
struct Movement;

/// The fragmenting exclusive relationship.
#[derive(Relationship)]
#[relationship(exclusive)]
struct State;

/// A world of `ENTITIES` entities with a `Position` and the pair `(R, first)`,
/// its two targets and the entities.
fn setup<R: Relationship>() -> (World, [Entity; 2], Vec<Entity>) {
    let mut world = World::new();
    let targets = [world.spawn_empty().id(), world.spawn_empty().id()];
    let entities: Vec<Entity> = world.spawn_batch((0..ENTITIES).map(|_| (Position([0.0; 3]),))).collect();
    // Both targets once, so that a fragmenting relationship's two archetypes
    // (and the edge between them) exist before the measurement.
    for target in [targets[1], targets[0]] {
        for &entity in &entities {
            world.add_pair::<R>(entity, target);
        }
    }
    (world, targets, entities)
}

/// Benches retargeting every entity to the other target, as entry `name`.
fn retarget<R: Relationship>(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str) {
    group.bench_function(name, |b| {
        let (mut world, targets, entities) = setup::<R>();
        let archetypes = world.archetypes().len();
        let mut next = 1;
        b.iter(|| {
            let target = targets[next];
            for &entity in black_box(&entities) {
                world.add_pair::<R>(entity, target);
            }
            next = 1 - next;
        });
        assert_eq!(world.archetypes().len(), archetypes, "retargeting created archetypes");
        assert!(entities.iter().all(|&entity| world.target::<R>(entity) == Some(targets[1 - next])));
    });
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("union/retarget_10k");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);
    retarget::<Movement>(&mut group, "union");
    retarget::<State>(&mut group, "fragmenting");
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
