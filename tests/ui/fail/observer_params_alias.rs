#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Health(u32);

fn main() {
    let mut world = World::new();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, a: Query<&mut Health>, b: Query<&Health>| {});
}
