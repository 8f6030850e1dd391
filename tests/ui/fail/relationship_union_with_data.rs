use ecs::prelude::*;

// A union keeps one target per row and no pair value: a relationship that
// carries data cannot be a union.
#[derive(Relationship)]
#[relationship(union)]
struct Eats {
    amount: u32,
}

fn main() {}
