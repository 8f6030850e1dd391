#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Local(f32);
#[derive(Component, Debug, PartialEq)]
struct Global(f32);

// The walk writes Global on its rows and reads it on ancestors, in turn: it
// compiles. Reading Global elsewhere (on entities without Local) is fine too.
#[system]
fn propagate(mut walk: Propagate<ChildOf, Global, (&Local, &mut Global)>, anchors: Query<&Global, Without<Local>>) {
    walk.for_each(|(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    });
}

fn main() {
    let mut world = World::new();
    let anchor = world.spawn(Global(100.0)).id();
    let child = world.spawn((Local(1.0), Global(0.0))).add_pair::<ChildOf>(anchor).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(propagate);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(child), Some(&Global(101.0)));
}
