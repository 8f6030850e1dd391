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

fn bad(a: Query<&Position>, b: Query<(&Velocity, &mut Position)>) {}

fn main() {
    let mut world = World::new();
    world.run_system_once(bad);
}
