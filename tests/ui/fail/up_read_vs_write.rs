#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    // An ancestor matched by the same query would be written while read through `Up`.
    world.query::<(&mut Position, Up<ChildOf, &Position>)>();
}
