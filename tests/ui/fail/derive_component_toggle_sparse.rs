#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
#[component(storage = "sparse", toggle)]
struct Thrust(f32);

fn main() {}
