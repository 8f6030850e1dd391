#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

// Members may alias each other, but not the system's other params.
fn s(mut set: ParamSet<(Query<&mut Position>, Query<&Position>)>, other: Query<&Position>) {}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(s);
}
