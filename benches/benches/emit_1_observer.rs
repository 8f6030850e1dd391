//! `emit_1_observer`: trigger one custom event type that exactly one global
//! observer watches, 10,000 times per iteration, on one long-lived world per
//! peer. The event carries a `u64`; the observer adds it to a counter resource
//! (a tiny bit of work, so the dispatch is what gets measured). After each run
//! the counter is checked against the number of triggers made, so a silent
//! observer fails the bench instead of flattering it.
//!
//! * `ecs`: `#[derive(Event)] struct Ping(u64)`, `world.add_observer(|trigger:
//!   Trigger<Ping>, counter: ResMut<Counter>| ...)`, `world.trigger(Ping(i))`
//!   (which also applies the observer's commands: none here).
//! * `bevy_ecs`: the same with its `#[derive(Event)]` (a global event),
//!   `world.add_observer(|ping: On<Ping>, counter: ResMut<Counter>| ...)` and
//!   `world.trigger(Ping(i))`.
//! * `hand_written`: a `Vec<Box<dyn FnMut(&Ping)>>` holding the one observer,
//!   which bumps a shared `Cell` counter: the floor of a dynamic dispatch.
//!
//! Target: `ecs` at or below `bevy_ecs` (median).

use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;

/// How many events each iteration triggers.
const TRIGGERS: u64 = 10_000;

/// What one iteration adds to the counter: the sum of the events' values
/// `0..TRIGGERS`.
const SUM_PER_ITERATION: u64 = TRIGGERS * (TRIGGERS - 1) / 2;

/// The `ecs` event.
#[derive(Event)]
struct Ping(u64);

/// The `ecs` counter the observer adds to.
#[derive(Resource, Default)]
struct Counter(u64);

/// Triggers `TRIGGERS` events in the `ecs` world.
fn ecs_emit(world: &mut World) {
    for i in 0..TRIGGERS {
        world.trigger(Ping(black_box(i)));
    }
}

/// The `bevy_ecs` event.
#[derive(bevy_ecs::event::Event)]
struct BevyPing(u64);

/// The `bevy_ecs` counter the observer adds to.
#[derive(bevy_ecs::resource::Resource, Default)]
struct BevyCounter(u64);

/// Triggers `TRIGGERS` events in the `bevy_ecs` world.
fn bevy_emit(world: &mut bevy_ecs::world::World) {
    for i in 0..TRIGGERS {
        world.trigger(BevyPing(black_box(i)));
    }
}

/// The baseline's event.
struct HandPing(u64);

/// A baseline observer: a boxed closure.
type HandObserver = Box<dyn FnMut(&HandPing)>;

/// The baseline: observers as boxed closures in a `Vec`, called in order.
#[derive(Default)]
struct HandWritten {
    observers: Vec<HandObserver>,
}

impl HandWritten {
    /// Runs every observer on `event`.
    #[inline(never)]
    fn trigger(&mut self, event: HandPing) {
        for observer in &mut self.observers {
            observer(&event);
        }
    }
}

/// Triggers `TRIGGERS` events through the baseline.
fn hand_written_emit(dispatcher: &mut HandWritten) {
    for i in 0..TRIGGERS {
        dispatcher.trigger(HandPing(black_box(i)));
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit_1_observer");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        world.init_resource::<Counter>();
        world.add_observer(|trigger: Trigger<Ping>, mut counter: ResMut<Counter>| counter.0 += trigger.event().0);
        assert_eq!(world.observers().len(), 1);
        ecs_emit(&mut world);
        assert_eq!(world.resource::<Counter>().0, SUM_PER_ITERATION);

        let mut iterations = 1;
        b.iter(|| {
            ecs_emit(&mut world);
            iterations += 1;
        });
        assert_eq!(world.resource::<Counter>().0, iterations * SUM_PER_ITERATION, "the observer missed events");
    });

    group.bench_function("bevy_ecs", |b| {
        use bevy_ecs::prelude::{On, ResMut};
        let mut world = bevy_ecs::world::World::new();
        world.init_resource::<BevyCounter>();
        world.add_observer(|ping: On<BevyPing>, mut counter: ResMut<BevyCounter>| counter.0 += ping.0);
        bevy_emit(&mut world);
        assert_eq!(world.resource::<BevyCounter>().0, SUM_PER_ITERATION);

        let mut iterations = 1;
        b.iter(|| {
            bevy_emit(&mut world);
            iterations += 1;
        });
        assert_eq!(world.resource::<BevyCounter>().0, iterations * SUM_PER_ITERATION, "the observer missed events");
    });

    group.bench_function("hand_written", |b| {
        let counter = Rc::new(Cell::new(0_u64));
        let mut dispatcher = HandWritten::default();
        let observed = Rc::clone(&counter);
        dispatcher.observers.push(Box::new(move |ping: &HandPing| observed.set(observed.get() + ping.0)));
        hand_written_emit(&mut dispatcher);
        assert_eq!(counter.get(), SUM_PER_ITERATION);

        let mut iterations = 1;
        b.iter(|| {
            hand_written_emit(&mut dispatcher);
            iterations += 1;
        });
        assert_eq!(counter.get(), iterations * SUM_PER_ITERATION, "the observer missed events");
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
