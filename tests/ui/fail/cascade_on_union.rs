#![allow(unused)]
use ecs::prelude::*;

#[derive(Relationship)]
#[relationship(union, traversable)]
struct Parent;

#[derive(Component)]
struct Level(u32);

fn main() {
    let mut world = World::new();
    // A union's rows in one table have different parents: no table order works.
    let q = world.query::<&Level>().cascade::<Parent>();
}
