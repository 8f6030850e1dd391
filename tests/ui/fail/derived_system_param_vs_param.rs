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
    movers: Query<'w, 's, (&'static mut Position, &'static Velocity)>,
    time: Res<'w, Time>,
}

#[system]
fn bad(movers: Movers, time: ResMut<Time>) {}

fn main() {}
