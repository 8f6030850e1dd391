#![allow(unused)]
use ecs::prelude::*;

#[derive(Relationship)]
struct Eats {
    amount: u32,
}

fn main() {
    let mut world = World::new();
    // Both terms borrow the values of the (Eats, *) pairs.
    world.query::<(Pair<&mut Eats>, Pair<&Eats>)>();
}
