#![allow(unused)]
use ecs::prelude::*;

#[derive(Resource)]
struct Score(u32);

fn main() {
    let mut world = World::new();
    world.add_observer(|trigger: Trigger<OnDespawn>, all: &World, score: ResMut<Score>| {});
}
