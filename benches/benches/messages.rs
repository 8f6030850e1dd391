//! `messages`: one frame of a game loop that writes and reads 10,000 messages:
//! a writer system writes them, a reader system ordered after it reads and sums
//! them, then the frame ends with the messages' update (issue 23).
//!
//! * `ecs`: `MessageWriter<Hit>` / `MessageReader<Hit>` systems chained in a
//!   `Schedule` (multi-threaded executor), then `World::update_messages`.
//! * `bevy_ecs`: the same systems with bevy's `MessageWriter` / `MessageReader`
//!   in its `Schedule` (`MultiThreadedExecutor`), then `Messages::update`.
//! * `hand_written`: a double-buffered `Vec` (write, read, swap), the floor.
//!
//! Each side checks the reader's sum after the first frame.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

/// Messages per frame.
const COUNT: u32 = 10_000;
/// The sum the reader sees in one frame: 0 + 1 + ... + COUNT - 1.
const SUM: u64 = (COUNT as u64) * (COUNT as u64 - 1) / 2;

mod ecs_side {
    use ecs::prelude::*;

    use super::COUNT;

    #[derive(Message)]
    pub struct Hit(pub u32);

    #[derive(Resource, Default)]
    pub struct Total(pub u64);

    fn write(mut hits: MessageWriter<Hit>) {
        for i in 0..COUNT {
            hits.write(Hit(i));
        }
    }

    fn read(mut hits: MessageReader<Hit>, mut total: ResMut<Total>) {
        total.0 = hits.read().map(|hit| u64::from(hit.0)).sum();
    }

    pub fn setup() -> (World, Schedule) {
        let mut world = World::new();
        world.add_message::<Hit>();
        world.init_resource::<Total>();
        let mut schedule = Schedule::new();
        schedule.add_systems((write, read).chain());
        (world, schedule)
    }

    pub fn frame(world: &mut World, schedule: &mut Schedule) {
        schedule.run(world);
        world.update_messages();
    }
}

mod bevy_side {
    use bevy_ecs::message::Messages;
    use bevy_ecs::prelude::*;

    use super::COUNT;

    #[derive(Message)]
    pub struct Hit(pub u32);

    #[derive(Resource, Default)]
    pub struct Total(pub u64);

    fn write(mut hits: MessageWriter<Hit>) {
        for i in 0..COUNT {
            hits.write(Hit(i));
        }
    }

    fn read(mut hits: MessageReader<Hit>, mut total: ResMut<Total>) {
        total.0 = hits.read().map(|hit| u64::from(hit.0)).sum();
    }

    pub fn setup() -> (World, Schedule) {
        let mut world = World::new();
        world.init_resource::<Messages<Hit>>();
        world.init_resource::<Total>();
        let mut schedule = Schedule::default();
        schedule.add_systems((write, read).chain()).set_executor(bevy_ecs::schedule::MultiThreadedExecutor::new());
        (world, schedule)
    }

    pub fn frame(world: &mut World, schedule: &mut Schedule) {
        schedule.run(world);
        world.resource_mut::<Messages<Hit>>().update();
    }
}

/// Two buffers swapped per frame, as the floor.
#[derive(Default)]
struct HandWritten {
    current: Vec<u32>,
    previous: Vec<u32>,
    total: u64,
}

impl HandWritten {
    fn frame(&mut self) {
        for i in 0..COUNT {
            self.current.push(i);
        }
        self.total = self.current.iter().map(|&hit| u64::from(hit)).sum();
        self.previous.clear();
        std::mem::swap(&mut self.previous, &mut self.current);
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("messages");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let (mut world, mut schedule) = ecs_side::setup();
        ecs_side::frame(&mut world, &mut schedule);
        assert_eq!(world.resource::<ecs_side::Total>().0, SUM);
        ecs_side::frame(&mut world, &mut schedule);
        assert_eq!(world.resource::<ecs_side::Total>().0, SUM, "each message read once");
        b.iter(|| ecs_side::frame(black_box(&mut world), &mut schedule));
    });

    group.bench_function("bevy_ecs", |b| {
        let (mut world, mut schedule) = bevy_side::setup();
        bevy_side::frame(&mut world, &mut schedule);
        assert_eq!(world.resource::<bevy_side::Total>().0, SUM);
        bevy_side::frame(&mut world, &mut schedule);
        assert_eq!(world.resource::<bevy_side::Total>().0, SUM, "each message read once");
        b.iter(|| bevy_side::frame(black_box(&mut world), &mut schedule));
    });

    group.bench_function("hand_written", |b| {
        let mut store = HandWritten::default();
        store.frame();
        assert_eq!(store.total, SUM);
        b.iter(|| black_box(&mut store).frame());
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
