#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Velocity(f32);
#[derive(Component)]
struct Enemy;
#[derive(Resource)]
struct Time(f32);

fn bad2(a: ResMut<Time>, b: Res<Time>) {}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(bad2);
}
