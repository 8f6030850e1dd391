#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn other() {}

// Aliasing parameters: `&mut Position` and `&Position` of every entity.
fn bad(a: Query<&mut Position>, b: Query<&Position>) {}

fn main() {
    let mut schedule = Schedule::new();
    // The ordering combinator must not hide the access check.
    schedule.add_systems((other, bad.after(other)));
}
