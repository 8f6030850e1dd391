#![allow(unused)]
use ecs::prelude::*;

// `override` copies the prefab's value into each instance: the type must be `Clone`.
#[derive(Component)]
#[component(on_instantiate = "override")]
struct Hull(u32);

fn main() {}
