#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Mass(f32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Mass(1.0)).id();
    world.entity_mut(e).disable::<Mass>();
}
