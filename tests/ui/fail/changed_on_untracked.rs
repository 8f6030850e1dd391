#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
#[component(change_detection = false)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    world.query_filtered::<Entity, Changed<Position>>();
}
