#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Local(f32);
#[derive(Component)]
struct Global(f32);
#[derive(Component)]
struct Frozen;

// The walk reads every ancestor's Global, frozen ones included, while `frozen`
// could hold a `Mut<Global>` of one of them.
#[system]
fn s(
    mut walk: Propagate<ChildOf, Global, (&Local, &mut Global), Without<Frozen>>,
    mut frozen: Query<&mut Global, With<Frozen>>,
) {
}

fn main() {}
