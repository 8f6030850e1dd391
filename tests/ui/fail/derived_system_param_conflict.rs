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

#[derive(SystemParam)]
struct Movers<'w, 's> {
    writers: Query<'w, 's, &'static mut Position>,
    readers: Query<'w, 's, &'static Position>,
}

fn main() {}
