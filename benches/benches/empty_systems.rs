//! `empty_systems`: 100 systems that do nothing, each a distinct fn item
//! (`empty::<TENS, ONES>`); one iteration runs the schedule once. With no work
//! and no data the systems conflict on nothing, so this measures the executor
//! alone: its per-run setup plus its per-system dispatch (divide a median by
//! 100 for the cost per system).
//!
//! * `ecs`: our `Schedule` with its default multi-threaded executor (after the
//!   first run every system is estimated under `ecs::schedule::INLINE_BELOW`,
//!   so all run on the calling thread); `ecs_single_threaded` with
//!   `ExecutorKind::SingleThreaded`.
//! * `bevy_ecs`: its `Schedule` with the `MultiThreadedExecutor` (every system
//!   a task on its `ComputeTaskPool`); `bevy_ecs_single_threaded` with the
//!   `SingleThreadedExecutor`.
//! * `hand_written`: 100 calls through a `Vec<Box<dyn FnMut()>>`: the floor of
//!   calling a system through a pointer.
//!
//! Target: `ecs` at or below `bevy_ecs`, and `ecs_single_threaded` at or below
//! `bevy_ecs_single_threaded` (median).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs::schedule::ExecutorKind;

/// How many systems the schedule holds.
const SYSTEMS: usize = 100;

/// A system that does nothing; each `<TENS, ONES>` pair is a distinct fn item
/// (so a distinct system type for both schedules).
fn empty<const TENS: usize, const ONES: usize>() {}

/// Runs `$body` once per system `empty::<TENS, ONES>` for every `TENS` and
/// `ONES` in `0..10`, with `$system` bound to that fn item (so `$body` is
/// type-checked once per system).
macro_rules! for_each_empty_system {
    (|$system:ident| $body:expr) => {
        for_each_empty_system!(@tens |$system| $body; 0 1 2 3 4 5 6 7 8 9)
    };
    (@tens |$system:ident| $body:expr; $($tens:tt)*) => {
        $(for_each_empty_system!(@ones |$system| $body; $tens; 0 1 2 3 4 5 6 7 8 9);)*
    };
    (@ones |$system:ident| $body:expr; $tens:tt; $($ones:tt)*) => {
        $({
            let $system = empty::<$tens, $ones>;
            $body;
        })*
    };
}

/// Runs the `ecs` side with executor `kind`.
fn bench_ecs(b: &mut criterion::Bencher, kind: ExecutorKind) {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(kind);
    for_each_empty_system!(|system| schedule.add_systems(system));
    schedule.run(&mut world);
    assert_eq!(schedule.len(), SYSTEMS);
    assert_eq!(schedule.execution_order().len(), SYSTEMS);

    b.iter(|| schedule.run(&mut world));
}

/// Runs the `bevy_ecs` side with `executor`.
fn bench_bevy(b: &mut criterion::Bencher, executor: impl bevy_ecs::schedule::SystemExecutor + 'static) {
    let mut world = bevy_ecs::world::World::new();
    let mut schedule = bevy_ecs::schedule::Schedule::default();
    schedule.set_executor(executor);
    for_each_empty_system!(|system| schedule.add_systems(system));
    schedule.run(&mut world);
    assert_eq!(schedule.systems_len(), SYSTEMS);
    assert_eq!(schedule.systems().expect("the run initialized the schedule").count(), SYSTEMS);

    b.iter(|| schedule.run(&mut world));
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("empty_systems");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| bench_ecs(b, ExecutorKind::MultiThreaded));
    group.bench_function("ecs_single_threaded", |b| bench_ecs(b, ExecutorKind::SingleThreaded));
    group.bench_function("bevy_ecs", |b| bench_bevy(b, bevy_ecs::schedule::MultiThreadedExecutor::new()));
    group.bench_function("bevy_ecs_single_threaded", |b| {
        bench_bevy(b, bevy_ecs::schedule::SingleThreadedExecutor::new());
    });

    group.bench_function("hand_written", |b| {
        let mut systems: Vec<Box<dyn FnMut()>> = Vec::with_capacity(SYSTEMS);
        for_each_empty_system!(|system| systems.push(Box::new(system)));
        assert_eq!(systems.len(), SYSTEMS);

        b.iter(|| {
            // Hide the vector so the calls cannot be devirtualized and dropped.
            for system in black_box(&mut systems).iter_mut() {
                system();
            }
        });
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
