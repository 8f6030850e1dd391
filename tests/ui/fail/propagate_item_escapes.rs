#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Global(f32);

fn main() {
    let mut world = World::new();
    let mut q = world.query::<&mut Global>();
    // A kept `Mut<Global>` of a parent would alias the `&Global` its children get.
    let mut kept = Vec::new();
    q.propagate::<ChildOf, Global>(&mut world, |global, parent| kept.push(global));
}
