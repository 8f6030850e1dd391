#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
struct Physics;

// A set condition that writes through a query: refused like a system's.
fn nudges(mut q: Query<&mut Position>) -> bool {
    q.iter_mut().for_each(|mut p| p.0 += 1.0);
    true
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.configure_sets(Physics.run_if(nudges));
}
