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

#[system]
fn bad(a: Query<&mut Position>, b: Query<&Position>) {}

fn main() {}
