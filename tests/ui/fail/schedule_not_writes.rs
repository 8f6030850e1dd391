#![allow(unused)]
use ecs::prelude::*;

#[derive(Resource)]
struct Counter(u32);

fn tick() {}

fn counts(mut counter: ResMut<Counter>) -> bool {
    counter.0 += 1;
    true
}

fn main() {
    // `not` does not launder a writing condition.
    let mut schedule = Schedule::new();
    schedule.add_systems(tick.run_if(not(counts)));
}
