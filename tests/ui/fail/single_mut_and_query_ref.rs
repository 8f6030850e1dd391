#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn s(player: Single<&mut Position>, all: Query<&Position>) {}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(s);
}
