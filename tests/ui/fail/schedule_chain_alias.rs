#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(Resource)]
struct Time(f32);

fn other() {}

fn bad(a: ResMut<Time>, b: Res<Time>) {}

fn main() {
    let mut schedule = Schedule::new();
    // Nested in a chained tuple under a condition: still checked.
    schedule.add_systems((other, (bad, other).run_if(|| true)).chain());
}
