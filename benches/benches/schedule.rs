//! `schedule`: the scheduler workload of `ecs_bench_suite`. 10,000 entities each
//! of `(A, B)`, `(A, B, C)`, `(A, B, C, D)` and `(A, B, C, E)` (the `f32`
//! newtypes of `ecs_benches::fragment`); three systems, `ab` (swaps `A.0` and
//! `B.0`), `cd` (swaps `C.0` and `D.0`) and `ce` (swaps `C.0` and `E.0`). One
//! iteration runs the schedule once.
//!
//! `ab` shares nothing with the other two, so a parallel executor may run it
//! beside `cd`; `cd` and `ce` both write `C`, so neither ECS runs them at the
//! same time (ours runs them in insertion order; no entity has both `D` and
//! `E`, so the result does not depend on which goes first).
//!
//! * `ecs`: our `Schedule` with its default multi-threaded executor (on the
//!   rayon pool; systems estimated under `ecs::schedule::INLINE_BELOW` run on
//!   the calling thread); `ecs_single_threaded` with
//!   `ExecutorKind::SingleThreaded`. The systems use `for` loops over
//!   `query.iter_mut()`, like the peers'. `ecs_for_each` is `ecs` with the
//!   loops written `query.iter_mut().for_each(..)` instead: our `QueryIter`
//!   is much faster through `fold` than through `next` for `&mut` items, and
//!   this side keeps that gap visible. `ecs_untracked` and
//!   `ecs_untracked_for_each` are `ecs` and `ecs_for_each` on copies of the
//!   components declared `#[component(change_detection = false)]` (no change
//!   tick stored per written row), the work the peers do.
//! * `bevy_ecs`: its `Schedule` with the `MultiThreadedExecutor` (the
//!   `multi_threaded` feature, on its `ComputeTaskPool`);
//!   `bevy_ecs_single_threaded` with the `SingleThreadedExecutor`.
//! * `hecs`: no scheduler: the three `query_mut` loops one after another.
//! * `shipyard`: a `Workload` of the three systems (`ViewMut` pairs, `for`
//!   loops over `(&mut x, &mut y).iter()`), built once into a
//!   `ScheduledWorkload` and run with `run_with_world`. Its scheduler puts `ab`
//!   and `cd` in one batch (run side by side on rayon's global pool, the
//!   `parallel` feature) and `ce` in a second one.
//! * `hand_written`: the same swaps over plain `Vec<f32>`s, one pair of vectors
//!   per system: the floor.
//!
//! Every side uses the same component types (`ecs_benches::fragment`).
//!
//! Target (issue 7): `ecs` at or below 12 µs (median). Earlier target: `ecs`
//! faster than both `bevy_ecs` and `hecs`.

use core::mem::swap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs::schedule::ExecutorKind;
use ecs_benches::fragment::{A, B, C, D, E};

/// How many entities of each of the four archetypes the workload spawns.
const PER_ARCHETYPE: usize = 10_000;

/// The starting values: `A.0 = 0.0`, `B.0 = 1.0`, ... `E.0 = 4.0`.
const START: [f32; 5] = [0.0, 1.0, 2.0, 3.0, 4.0];

/// Declares module `$module`: the `ecs` side's systems, world and check over the
/// components of module `$types` (the change-detected `fragment` types or
/// their untracked copies).
macro_rules! ecs_side {
    ($module:ident, $($types:ident)::+) => {
        mod $module {
            use core::mem::swap;

            use ecs::prelude::*;
            use $($types)::+::{A, B, C, D, E};

            use super::{PER_ARCHETYPE, START};

            pub fn ab(mut query: Query<(&mut A, &mut B)>) {
                for (mut a, mut b) in query.iter_mut() {
                    swap(&mut a.0, &mut b.0);
                }
            }

            pub fn cd(mut query: Query<(&mut C, &mut D)>) {
                for (mut c, mut d) in query.iter_mut() {
                    swap(&mut c.0, &mut d.0);
                }
            }

            pub fn ce(mut query: Query<(&mut C, &mut E)>) {
                for (mut c, mut e) in query.iter_mut() {
                    swap(&mut c.0, &mut e.0);
                }
            }

            /// The same three systems written with `for_each` (internal iteration).
            pub mod for_each_systems {
                use super::*;

                pub fn ab(mut query: Query<(&mut A, &mut B)>) {
                    query.iter_mut().for_each(|(mut a, mut b)| swap(&mut a.0, &mut b.0));
                }

                pub fn cd(mut query: Query<(&mut C, &mut D)>) {
                    query.iter_mut().for_each(|(mut c, mut d)| swap(&mut c.0, &mut d.0));
                }

                pub fn ce(mut query: Query<(&mut C, &mut E)>) {
                    query.iter_mut().for_each(|(mut c, mut e)| swap(&mut c.0, &mut e.0));
                }
            }

            /// A world with the workload's 40,000 entities.
            pub fn world() -> World {
                let [a, b, c, d, e] = START;
                let mut world = World::new();
                world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b)))).for_each(|_| ());
                world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c)))).for_each(|_| ());
                world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), D(d)))).for_each(|_| ());
                world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), E(e)))).for_each(|_| ());
                world
            }

            /// Checks the state after one run: every pair swapped once.
            pub fn check_one_run(world: &mut World) {
                let [a, b, c, d, e] = START;
                assert!(world.query::<(&A, &B)>().iter(world).all(|(x, y)| x.0 == b && y.0 == a));
                assert_eq!(world.query::<&A>().iter(world).count(), 4 * PER_ARCHETYPE);
                assert!(world.query::<(&C, &D)>().iter(world).all(|(x, y)| x.0 == d && y.0 == c));
                assert!(world.query::<(&C, &E)>().iter(world).all(|(x, y)| x.0 == e && y.0 == c));
                assert_eq!(world.query::<(&C, &D)>().iter(world).count(), PER_ARCHETYPE);
                assert_eq!(world.query::<(&C, &E)>().iter(world).count(), PER_ARCHETYPE);
            }
        }
    };
}

ecs_side!(tracked, ecs_benches::fragment);
ecs_side!(untracked, ecs_benches::untracked::fragment);

/// How to build one `ecs` side's world and check it after one run.
#[derive(Clone, Copy)]
struct EcsWorld {
    /// Builds the 40,000 entities.
    build: fn() -> World,
    /// Checks the state after one run.
    check_one_run: fn(&mut World),
}

/// Runs the `ecs` side: `systems` on a schedule run by executor `kind`, on the
/// world the given `EcsWorld` builds and checks.
fn bench_ecs<M>(
    b: &mut criterion::Bencher,
    EcsWorld { build: world, check_one_run }: EcsWorld,
    systems: impl IntoSystemConfigs<M>,
    kind: ExecutorKind,
) {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(systems).set_executor_kind(kind);
    schedule.run(&mut world);
    check_one_run(&mut world);
    assert_eq!(schedule.execution_order().len(), 3);
    // Back to the start, so the timed runs begin from the same state.
    schedule.run(&mut world);

    b.iter(|| schedule.run(&mut world));
}

/// The `bevy_ecs` side: same components, layout and systems.
mod bevy_side {
    use core::mem::swap;

    use bevy_ecs::prelude::*;
    use ecs_benches::fragment::{A, B, C, D, E};

    use super::{PER_ARCHETYPE, START};

    fn ab(mut query: Query<(&mut A, &mut B)>) {
        for (mut a, mut b) in &mut query {
            swap(&mut a.0, &mut b.0);
        }
    }

    fn cd(mut query: Query<(&mut C, &mut D)>) {
        for (mut c, mut d) in &mut query {
            swap(&mut c.0, &mut d.0);
        }
    }

    fn ce(mut query: Query<(&mut C, &mut E)>) {
        for (mut c, mut e) in &mut query {
            swap(&mut c.0, &mut e.0);
        }
    }

    /// A world with the workload's 40,000 entities.
    pub fn world() -> World {
        let [a, b, c, d, e] = START;
        let mut world = World::new();
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b))));
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c))));
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), D(d))));
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), E(e))));
        world
    }

    /// The three systems on a schedule run by `executor`.
    pub fn schedule(executor: impl bevy_ecs::schedule::SystemExecutor + 'static) -> Schedule {
        let mut schedule = Schedule::default();
        schedule.add_systems((ab, cd, ce)).set_executor(executor);
        schedule
    }

    /// Checks the state after one run: every pair swapped once.
    pub fn check_one_run(world: &mut World) {
        let [a, b, c, d, e] = START;
        assert!(world.query::<(&A, &B)>().iter(world).all(|(x, y)| x.0 == b && y.0 == a));
        assert_eq!(world.query::<&A>().iter(world).count(), 4 * PER_ARCHETYPE);
        assert!(world.query::<(&C, &D)>().iter(world).all(|(x, y)| x.0 == d && y.0 == c));
        assert!(world.query::<(&C, &E)>().iter(world).all(|(x, y)| x.0 == e && y.0 == c));
        assert_eq!(world.query::<(&C, &D)>().iter(world).count(), PER_ARCHETYPE);
        assert_eq!(world.query::<(&C, &E)>().iter(world).count(), PER_ARCHETYPE);
    }
}

/// Runs the `bevy_ecs` side with `executor`.
fn bench_bevy(b: &mut criterion::Bencher, executor: impl bevy_ecs::schedule::SystemExecutor + 'static) {
    let mut world = bevy_side::world();
    let mut schedule = bevy_side::schedule(executor);
    schedule.run(&mut world);
    bevy_side::check_one_run(&mut world);
    assert_eq!(schedule.systems_len(), 3);
    schedule.run(&mut world);

    b.iter(|| schedule.run(&mut world));
}

/// The `shipyard` side: same components and systems, as a `Workload`.
mod shipyard_side {
    use core::mem::swap;

    use ecs_benches::fragment::{A, B, C, D, E};
    use shipyard::scheduler::ScheduledWorkload;
    use shipyard::scheduler::info::WorkloadInfo;
    use shipyard::{IntoIter, View, ViewMut, Workload, World};

    use super::{PER_ARCHETYPE, START};

    fn ab(mut a: ViewMut<A>, mut b: ViewMut<B>) {
        for (a, b) in (&mut a, &mut b).iter() {
            swap(&mut a.0, &mut b.0);
        }
    }

    fn cd(mut c: ViewMut<C>, mut d: ViewMut<D>) {
        for (c, d) in (&mut c, &mut d).iter() {
            swap(&mut c.0, &mut d.0);
        }
    }

    fn ce(mut c: ViewMut<C>, mut e: ViewMut<E>) {
        for (c, e) in (&mut c, &mut e).iter() {
            swap(&mut c.0, &mut e.0);
        }
    }

    /// A world with the workload's 40,000 entities.
    pub fn world() -> World {
        let [a, b, c, d, e] = START;
        let mut world = World::new();
        world.bulk_add_entity((0..PER_ARCHETYPE).map(|_| (A(a), B(b)))).for_each(|_| ());
        world.bulk_add_entity((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c)))).for_each(|_| ());
        world.bulk_add_entity((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), D(d)))).for_each(|_| ());
        world.bulk_add_entity((0..PER_ARCHETYPE).map(|_| (A(a), B(b), C(c), E(e)))).for_each(|_| ());
        world
    }

    /// The three systems as one workload, scheduled.
    pub fn workload() -> (ScheduledWorkload, WorkloadInfo) {
        Workload::new("schedule").with_system(ab).with_system(cd).with_system(ce).build().unwrap()
    }

    /// Checks the state after one run: every pair swapped once.
    pub fn check_one_run(world: &World) {
        let [a, b, c, d, e] = START;
        world.run(|va: View<A>, vb: View<B>, vc: View<C>, vd: View<D>, ve: View<E>| {
            assert_eq!(va.len(), 4 * PER_ARCHETYPE);
            assert!((&va, &vb).iter().all(|(x, y)| x.0 == b && y.0 == a));
            assert_eq!((&vc, &vd).iter().count(), PER_ARCHETYPE);
            assert!((&vc, &vd).iter().all(|(x, y)| x.0 == d && y.0 == c));
            assert_eq!((&vc, &ve).iter().count(), PER_ARCHETYPE);
            assert!((&vc, &ve).iter().all(|(x, y)| x.0 == e && y.0 == c));
        });
    }
}

/// The `hecs` side: the three loops in schedule order.
fn hecs_run(world: &mut hecs::World) {
    for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
        swap(&mut a.0, &mut b.0);
    }
    for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
        swap(&mut c.0, &mut d.0);
    }
    for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
        swap(&mut c.0, &mut e.0);
    }
}

/// The baseline: one pair of vectors per system.
struct HandWritten {
    ab: (Vec<f32>, Vec<f32>),
    cd: (Vec<f32>, Vec<f32>),
    ce: (Vec<f32>, Vec<f32>),
}

impl HandWritten {
    fn new() -> HandWritten {
        let [a, b, c, d, e] = START;
        HandWritten {
            ab: (vec![a; 4 * PER_ARCHETYPE], vec![b; 4 * PER_ARCHETYPE]),
            cd: (vec![c; PER_ARCHETYPE], vec![d; PER_ARCHETYPE]),
            ce: (vec![c; PER_ARCHETYPE], vec![e; PER_ARCHETYPE]),
        }
    }

    fn run(&mut self) {
        for (left, right) in [&mut self.ab, &mut self.cd, &mut self.ce] {
            for (x, y) in left.iter_mut().zip(right.iter_mut()) {
                swap(x, y);
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    let tracked_world = EcsWorld { build: tracked::world, check_one_run: tracked::check_one_run };
    let untracked_world = EcsWorld { build: untracked::world, check_one_run: untracked::check_one_run };
    group.bench_function("ecs", |b| {
        use tracked::{ab, cd, ce};
        bench_ecs(b, tracked_world, (ab, cd, ce), ExecutorKind::MultiThreaded);
    });
    group.bench_function("ecs_single_threaded", |b| {
        use tracked::{ab, cd, ce};
        bench_ecs(b, tracked_world, (ab, cd, ce), ExecutorKind::SingleThreaded);
    });
    group.bench_function("ecs_for_each", |b| {
        use tracked::for_each_systems::{ab, cd, ce};
        bench_ecs(b, tracked_world, (ab, cd, ce), ExecutorKind::MultiThreaded);
    });
    group.bench_function("ecs_untracked", |b| {
        use untracked::{ab, cd, ce};
        bench_ecs(b, untracked_world, (ab, cd, ce), ExecutorKind::MultiThreaded);
    });
    group.bench_function("ecs_untracked_for_each", |b| {
        use untracked::for_each_systems::{ab, cd, ce};
        bench_ecs(b, untracked_world, (ab, cd, ce), ExecutorKind::MultiThreaded);
    });
    group.bench_function("bevy_ecs", |b| bench_bevy(b, bevy_ecs::schedule::MultiThreadedExecutor::new()));
    group.bench_function("bevy_ecs_single_threaded", |b| {
        bench_bevy(b, bevy_ecs::schedule::SingleThreadedExecutor::new());
    });

    group.bench_function("hecs", |b| {
        let [a0, b0, c0, d0, e0] = START;
        let mut world = hecs::World::new();
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a0), B(b0)))).for_each(|_| ());
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a0), B(b0), C(c0)))).for_each(|_| ());
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a0), B(b0), C(c0), D(d0)))).for_each(|_| ());
        world.spawn_batch((0..PER_ARCHETYPE).map(|_| (A(a0), B(b0), C(c0), E(e0)))).for_each(|_| ());
        hecs_run(&mut world);
        assert_eq!(world.query_mut::<&A>().into_iter().count(), 4 * PER_ARCHETYPE);
        assert!(world.query_mut::<(&A, &B)>().into_iter().all(|(x, y)| x.0 == b0 && y.0 == a0));
        assert!(world.query_mut::<(&C, &D)>().into_iter().all(|(x, y)| x.0 == d0 && y.0 == c0));
        assert!(world.query_mut::<(&C, &E)>().into_iter().all(|(x, y)| x.0 == e0 && y.0 == c0));
        hecs_run(&mut world);

        b.iter(|| hecs_run(&mut world));
    });

    group.bench_function("shipyard", |b| {
        let world = shipyard_side::world();
        let (workload, info) = shipyard_side::workload();
        // `ab` and `cd` share a batch; `ce` waits for `cd` (both write `C`).
        let batches: Vec<usize> = info.batches_info.iter().map(|batch| batch.systems().count()).collect();
        assert_eq!(batches, [2, 1]);
        workload.run_with_world(&world).unwrap();
        shipyard_side::check_one_run(&world);
        workload.run_with_world(&world).unwrap();

        b.iter(|| workload.run_with_world(&world).unwrap());
    });

    group.bench_function("hand_written", |b| {
        let [a0, b0, ..] = START;
        let mut store = HandWritten::new();
        store.run();
        assert!(store.ab.0.iter().zip(&store.ab.1).all(|(&x, &y)| x == b0 && y == a0));
        store.run();

        b.iter(|| {
            store.run();
            black_box(&mut store);
        });
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
