//! `toggle`: toggleable components (`#[component(toggle)]`, ecs only: the
//! peers have no such feature to compare with), 10,000 entities each.
//!
//! * `disable_enable_10k`: `world.entity_mut(e).disable::<T>()` on every
//!   entity, then `enable::<T>()` on every entity (20,000 toggles, no move).
//! * `iter_no_toggle`: `for (a, mut b) in q.iter_mut(&mut world)` with
//!   `Query<(&A, &mut B)>` over one table without any toggle column: the
//!   baseline, the very code path of a query before toggles existed.
//! * `iter_toggle_all_enabled`: the same loop with `B` replaced by a
//!   toggleable `T` whose values are all enabled: what the per-row enabled
//!   check costs in a table that holds a toggle column.
//! * `iter_toggle_half_disabled`: the same, every other value disabled.
//! * `iter_no_toggle_term_in_toggle_table`: `Query<(&A, &mut B)>` over a
//!   table that also holds a toggleable column, half of it disabled: a query
//!   that does not name the toggleable component pays nothing there either.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::ENTITY_COUNT;

#[derive(Component, Clone, Copy)]
struct A(f32);

#[derive(Component, Clone, Copy)]
struct B(f32);

#[derive(Component, Clone, Copy)]
#[component(toggle)]
struct T(f32);

/// Runs `for (a, mut b) in q.iter_mut(&mut world)` over `world` as the routine.
macro_rules! iter_entry {
    ($group:ident, $name:literal, $world:expr, $written:ty, $expected:expr) => {{
        $group.bench_function($name, |bencher| {
            let mut world: World = $world;
            let mut query = world.query::<(&A, &mut $written)>();
            assert_eq!(query.iter(&world).count(), $expected);
            bencher.iter(|| {
                for (a, mut b) in query.iter_mut(&mut world) {
                    b.0 += a.0;
                }
            });
        });
    }};
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("toggle");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("disable_enable_10k", |bencher| {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..ENTITY_COUNT).map(|_| world.spawn((A(1.0), T(0.0))).id()).collect();
        bencher.iter(|| {
            for &entity in &entities {
                world.entity_mut(entity).disable::<T>();
            }
            for &entity in &entities {
                world.entity_mut(entity).enable::<T>();
            }
            black_box(&mut world);
        });
        assert!(entities.iter().all(|&entity| world.is_enabled::<T>(entity)));
    });

    iter_entry!(
        group,
        "iter_no_toggle",
        {
            let mut world = World::new();
            world.spawn_batch((0..ENTITY_COUNT).map(|_| (A(1.0), B(0.0)))).for_each(drop);
            world
        },
        B,
        ENTITY_COUNT
    );
    iter_entry!(
        group,
        "iter_toggle_all_enabled",
        {
            let mut world = World::new();
            world.spawn_batch((0..ENTITY_COUNT).map(|_| (A(1.0), T(0.0)))).for_each(drop);
            world
        },
        T,
        ENTITY_COUNT
    );
    iter_entry!(
        group,
        "iter_toggle_half_disabled",
        {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|_| (A(1.0), T(0.0)))).collect();
            for &entity in entities.iter().step_by(2) {
                world.entity_mut(entity).disable::<T>();
            }
            world
        },
        T,
        ENTITY_COUNT / 2
    );
    iter_entry!(
        group,
        "iter_no_toggle_term_in_toggle_table",
        {
            let mut world = World::new();
            let entities: Vec<Entity> =
                world.spawn_batch((0..ENTITY_COUNT).map(|_| (A(1.0), B(0.0), T(0.0)))).collect();
            for &entity in entities.iter().step_by(2) {
                world.entity_mut(entity).disable::<T>();
            }
            world
        },
        B,
        ENTITY_COUNT
    );

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
