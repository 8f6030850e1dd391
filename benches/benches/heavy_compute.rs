//! `heavy_compute`: the parallel-iteration workload of `ecs_bench_suite`. 1,000
//! entities with `(Transform, Position, Rotation, Velocity)`; one iteration
//! inverts every entity's matrix 100 times (writing it back each time), then
//! turns its position by the result (`ecs_benches::heavy_work`). Per entity that
//! is ~100 general 4x4 inverses, so the work dwarfs the iteration overhead and
//! the benchmark measures how well each side spreads rows over threads.
//!
//! The matrix is a rotation (orthonormal), so the repeated inverses stay
//! accurate; an even count brings it back to where it started, which every side
//! checks after the timed runs too.
//!
//! * `ecs`: `QueryState::par_iter_mut` on the rayon global pool;
//!   `ecs_sequential`: the same closure through `iter_mut`, the single-threaded
//!   reference.
//! * `bevy_ecs`: `QueryState::par_iter_mut` on its `ComputeTaskPool` (the
//!   `multi_threaded` feature; the pool is created with `TaskPool::default`,
//!   one thread per core, as the multi-threaded executor would).
//! * `hecs`: a sequential `query_mut` loop (hecs has no parallel iteration).
//! * `shipyard`: `World::run` with `ViewMut<Position>` and `ViewMut<Transform>`,
//!   `(&mut positions, &mut transforms).par_iter()` (the `parallel` feature: a
//!   rayon parallel iterator on rayon's global pool, the one `ecs` uses).
//! * `hand_written`: a sequential loop over two `Vec`s; `hand_written_rayon`:
//!   the same with rayon's `par_iter_mut`, the floor for the parallel sides.
//!
//! Every side uses the same component types (`ecs_benches`).
//!
//! Target (issue 7): `ecs` at or below 1.02x `hand_written_rayon` (median).
//! Earlier target: `ecs` at least 1.8x faster than `ecs_sequential` on 2
//! cores.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{HEAVY_ENTITY_COUNT, Mat4, Position, Transform, Vec3, heavy_bundle, heavy_work};
use rayon::prelude::*;

/// The tolerance of the post-run checks.
const EPSILON: f32 = 1e-3;

/// The matrix every entity starts with (and returns to after each iteration).
fn start_matrix() -> Mat4 {
    heavy_bundle().0.0
}

/// The position after one iteration from the start: the unit Y vector turned by
/// the rotation (`(0, cos 1.2, sin 1.2)`).
fn position_after_one_run() -> Vec3 {
    start_matrix().transform_vector(heavy_bundle().1.0)
}

/// Whether `a` and `b` agree within [`EPSILON`].
fn near(a: Vec3, b: Vec3) -> bool {
    a.0.iter().zip(&b.0).all(|(x, y)| (x - y).abs() < EPSILON)
}

/// Whether `position` and `matrix` still look like the workload's state after
/// any number of iterations: the matrix back at the start, the position a unit
/// vector in the YZ plane.
fn still_sane(position: Vec3, matrix: &Mat4) -> bool {
    let [x, y, z] = position.0;
    matrix.max_abs_diff(&start_matrix()) < EPSILON
        && x.abs() < EPSILON
        && ((y * y + z * z).sqrt() - 1.0).abs() < EPSILON
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(30);

    // One closure for both `ecs` sides.
    let ecs_side = |parallel: bool| {
        move |b: &mut criterion::Bencher| {
            let mut world = World::new();
            world.spawn_batch((0..HEAVY_ENTITY_COUNT).map(|_| heavy_bundle())).for_each(|_| ());
            let mut query = world.query::<(&mut Position, &mut Transform)>();
            let mut run = |world: &mut World| {
                let work = |(mut position, mut transform): (Mut<Position>, Mut<Transform>)| {
                    heavy_work(&mut position.0, &mut transform.0);
                };
                if parallel {
                    query.par_iter_mut(world).for_each(work);
                } else {
                    query.iter_mut(world).for_each(work);
                }
            };
            run(&mut world);
            let mut check = world.query::<(&Position, &Transform)>();
            assert_eq!(check.iter(&world).count(), HEAVY_ENTITY_COUNT);
            assert!(check.iter(&world).all(|(position, transform)| {
                near(position.0, position_after_one_run()) && transform.0.max_abs_diff(&start_matrix()) < EPSILON
            }));

            b.iter(|| run(&mut world));
            assert!(check.iter(&world).all(|(position, transform)| still_sane(position.0, &transform.0)));
        }
    };
    group.bench_function("ecs", ecs_side(true));
    group.bench_function("ecs_sequential", ecs_side(false));

    group.bench_function("bevy_ecs", |b| {
        // `par_iter_mut` panics without a compute pool (a bevy `App` makes one).
        bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..HEAVY_ENTITY_COUNT).map(|_| heavy_bundle()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        let mut run = |world: &mut bevy_ecs::world::World| {
            query.par_iter_mut(world).for_each(|(mut position, mut transform)| {
                heavy_work(&mut position.0, &mut transform.0);
            });
        };
        run(&mut world);
        let mut check = world.query::<(&Position, &Transform)>();
        assert_eq!(check.iter(&world).count(), HEAVY_ENTITY_COUNT);
        assert!(check.iter(&world).all(|(position, transform)| {
            near(position.0, position_after_one_run()) && transform.0.max_abs_diff(&start_matrix()) < EPSILON
        }));

        b.iter(|| run(&mut world));
        assert!(check.iter(&world).all(|(position, transform)| still_sane(position.0, &transform.0)));
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        world.spawn_batch((0..HEAVY_ENTITY_COUNT).map(|_| heavy_bundle())).for_each(|_| ());
        let run = |world: &mut hecs::World| {
            for (position, transform) in world.query_mut::<(&mut Position, &mut Transform)>() {
                heavy_work(&mut position.0, &mut transform.0);
            }
        };
        run(&mut world);
        assert_eq!(world.query_mut::<(&Position, &Transform)>().into_iter().count(), HEAVY_ENTITY_COUNT);
        assert!(world.query_mut::<(&Position, &Transform)>().into_iter().all(|(position, transform)| {
            near(position.0, position_after_one_run()) && transform.0.max_abs_diff(&start_matrix()) < EPSILON
        }));

        b.iter(|| run(&mut world));
        assert!(
            world
                .query_mut::<(&Position, &Transform)>()
                .into_iter()
                .all(|(position, transform)| still_sane(position.0, &transform.0))
        );
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, View, ViewMut};
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..HEAVY_ENTITY_COUNT).map(|_| heavy_bundle())).for_each(|_| ());
        let system = |mut positions: ViewMut<Position>, mut transforms: ViewMut<Transform>| {
            (&mut positions, &mut transforms).par_iter().for_each(|(position, transform)| {
                heavy_work(&mut position.0, &mut transform.0);
            });
        };
        let all = |check: fn(&Position, &Transform) -> bool| {
            move |positions: View<Position>, transforms: View<Transform>| {
                (&positions, &transforms).iter().filter(|&(position, transform)| check(position, transform)).count()
            }
        };
        world.run(system);
        let after_one_run = |position: &Position, transform: &Transform| {
            near(position.0, position_after_one_run()) && transform.0.max_abs_diff(&start_matrix()) < EPSILON
        };
        assert_eq!(world.run(all(after_one_run)), HEAVY_ENTITY_COUNT);

        b.iter(|| world.run(system));
        assert_eq!(world.run(all(|position, transform| still_sane(position.0, &transform.0))), HEAVY_ENTITY_COUNT);
    });

    // The floor: plain vectors, sequential and on rayon's global pool (the one
    // `ecs` uses).
    let hand_written = |parallel: bool| {
        move |b: &mut criterion::Bencher| {
            let (transform, position, ..) = heavy_bundle();
            let mut positions = vec![position.0; HEAVY_ENTITY_COUNT];
            let mut matrices = vec![transform.0; HEAVY_ENTITY_COUNT];
            let run = |positions: &mut Vec<Vec3>, matrices: &mut Vec<Mat4>| {
                if parallel {
                    positions.par_iter_mut().zip(matrices.par_iter_mut()).for_each(|(p, m)| heavy_work(p, m));
                } else {
                    positions.iter_mut().zip(matrices.iter_mut()).for_each(|(p, m)| heavy_work(p, m));
                }
                black_box((positions, matrices));
            };
            run(&mut positions, &mut matrices);
            assert!(positions.iter().all(|&position| near(position, position_after_one_run())));
            assert!(matrices.iter().all(|matrix| matrix.max_abs_diff(&start_matrix()) < EPSILON));

            b.iter(|| run(&mut positions, &mut matrices));
            assert!(positions.iter().zip(&matrices).all(|(&position, matrix)| still_sane(position, matrix)));
        }
    };
    group.bench_function("hand_written", hand_written(false));
    group.bench_function("hand_written_rayon", hand_written(true));

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
