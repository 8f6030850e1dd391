#![allow(unused)]
use ecs::prelude::*;

#[derive(Relationship)]
struct Eats {
    amount: u32,
}

#[system]
fn feed(a: Query<Pair<&mut Eats>>, b: Query<(Entity, Pair<&Eats>)>) {}

fn main() {}
