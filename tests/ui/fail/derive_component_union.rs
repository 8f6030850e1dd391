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

#[derive(Component)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
