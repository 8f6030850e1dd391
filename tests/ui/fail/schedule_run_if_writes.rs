#![allow(unused)]
use ecs::prelude::*;

#[derive(Resource)]
struct Counter(u32);

fn tick() {}

// A run condition that writes: refused, since conditions run alongside the
// systems they guard and are evaluated at most once per run.
fn counts(mut counter: ResMut<Counter>) -> bool {
    counter.0 += 1;
    true
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(tick.run_if(counts));
}
