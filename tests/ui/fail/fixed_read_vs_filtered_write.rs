#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Gravity(f32);
#[derive(Component)]
struct Settings;

// `Fixed` reads one source entity, which the filters say nothing about.
#[system]
fn s(mut w: Query<&mut Gravity, Without<Settings>>, r: Query<Fixed<&Gravity>, With<Settings>>) {}

fn main() {}
