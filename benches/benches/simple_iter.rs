//! `simple_iter`: 10,000 entities with `(Transform, Position, Rotation, Velocity)`;
//! the routine adds each entity's velocity to its position.
//!
//! * `ecs`: a `QueryState<(&Velocity, &mut Position)>` built once,
//!   `iter_mut(..).for_each(..)` per iteration (stamps a change tick per
//!   written row); `ecs_untracked`: the same on copies declared
//!   `#[component(change_detection = false)]` (no tick store), the work `hecs`
//!   and `shipyard` do.
//! * `bevy_ecs`: the same with its `QueryState` (also stamps a change tick per
//!   written row).
//! * `hecs`: a `for` loop over `query_mut::<(&Velocity, &mut Position)>()` (no
//!   change detection).
//! * `shipyard`: `World::run` with `View<Velocity>` and `ViewMut<Position>`
//!   (untracked), a `for` loop over `(&velocities, &mut positions).iter()`.
//! * `hand_written`, `hand_written_ticks`: the floor: plain vectors without
//!   and with the one store per row that per-row change detection costs.
//!
//! Target (issue 7): `ecs` at or below 8.0 µs (median). Earlier target: `ecs`
//! at or below `hecs`, although `ecs` also stamps a change tick per written row
//! and `hecs` has no change detection.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{ENTITY_COUNT, Position, Vec3, Velocity, simple_bundle};

/// Benches the `ecs` side as entry `$name`, with the types of module `$types`
/// (the change-detected types or their untracked copies).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($types:ident)::+) => {{
        use $($types)::+::{Position, Velocity, simple_bundle};

        $group.bench_function($name, |b| {
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
    }};
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked);

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle()));
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

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, View, ViewMut};
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..ENTITY_COUNT).map(|_| simple_bundle())).for_each(|_| ());
        let system = |velocities: View<Velocity>, mut positions: ViewMut<Position>| {
            for (velocity, position) in (&velocities, &mut positions).iter() {
                position.0 += velocity.0;
            }
        };
        let joined = world.run(|v: View<Velocity>, p: View<Position>| (&v, &p).iter().count());
        assert_eq!(joined, ENTITY_COUNT);
        world.run(system);
        assert!(world.run(|p: View<Position>| p.iter().all(|position| position.0 == Vec3::new(2.0, 0.0, 0.0))));

        b.iter(|| world.run(system));
    });

    // The floor: the same loop over plain vectors, without and with the one
    // store per row that per-row change detection costs.
    group.bench_function("hand_written", |b| {
        let velocities = vec![Velocity(Vec3::new(1.0, 0.0, 0.0)); ENTITY_COUNT];
        let mut positions = vec![Position(Vec3::new(1.0, 0.0, 0.0)); ENTITY_COUNT];
        b.iter(|| {
            for (position, velocity) in positions.iter_mut().zip(&velocities) {
                position.0 += velocity.0;
            }
            black_box(&mut positions);
        });
    });

    group.bench_function("hand_written_ticks", |b| {
        let velocities = vec![Velocity(Vec3::new(1.0, 0.0, 0.0)); ENTITY_COUNT];
        let mut positions = vec![Position(Vec3::new(1.0, 0.0, 0.0)); ENTITY_COUNT];
        let mut changed = vec![0_u32; ENTITY_COUNT];
        let mut tick = 0_u32;
        b.iter(|| {
            tick = tick.wrapping_add(1);
            let this_run = black_box(tick);
            for ((position, velocity), changed) in positions.iter_mut().zip(&velocities).zip(&mut changed) {
                position.0 += velocity.0;
                *changed = this_run;
            }
            black_box((&mut positions, &mut changed));
        });
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
