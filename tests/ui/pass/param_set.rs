#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Enemy;

// Two aliasing queries in one ParamSet, with elided lifetimes.
fn both(mut set: ParamSet<(Query<&mut Position>, Query<&Position, With<Enemy>>)>) {
    let sum: f32 = set.p1().iter().map(|p| p.0).sum();
    for mut p in set.p0().iter_mut() {
        p.0 += sum;
    }
}

#[system]
fn annotated(mut set: ParamSet<(Query<&mut Position>, Query<&Position>)>, enemies: Query<&Enemy>) {
    let n = set.p1().iter().count();
    set.p0().iter_mut().for_each(|mut p| p.0 += n as f32);
}

fn main() {
    let mut world = World::new();
    world.spawn((Position(1.0), Enemy));
    let mut schedule = Schedule::new();
    schedule.add_systems((both, annotated).chain());
    schedule.run(&mut world);
}
