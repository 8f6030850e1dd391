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
fn bad(writer: Query<&mut Position>, changed: Query<Entity, Changed<Position>>) {}

fn main() {}
