#![allow(unused)]
use ecs::prelude::*;

fn tick() {}

// An exclusive system may change anything, so it cannot be a run condition.
fn exclusive_condition(world: &mut World) -> bool {
    world.spawn(());
    true
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(tick.run_if(exclusive_condition));
}
