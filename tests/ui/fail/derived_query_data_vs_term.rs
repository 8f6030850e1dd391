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

#[derive(QueryData)]
#[query_data(mutable)]
struct Mover<'w> {
    position: &'w mut Position,
    velocity: &'w Velocity,
}

fn main() {
    let mut world = World::new();
    world.query::<(Mover, &Position)>();
}
