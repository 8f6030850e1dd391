#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Velocity(f32);
#[derive(Component)]
struct Enemy;
#[derive(Resource)]
struct Time(f32);

#[system]
fn ok(mut a: Query<&mut Position, With<Enemy>>, mut b: Query<&mut Position, Without<Enemy>>) {
    for mut p in a.iter_mut() {
        p.0 += 1.0;
    }
    for mut p in b.iter_mut() {
        p.0 -= 1.0;
    }
}

// a required data term excludes what the other query's `Without` excludes
#[system]
fn required_vs_without(mut a: Query<(&mut Position, &Enemy)>, mut b: Query<&mut Position, Without<Enemy>>) {
    for (mut p, _) in a.iter_mut() {
        p.0 *= 10.0;
    }
    for mut p in b.iter_mut() {
        p.0 *= 10.0;
    }
}

fn main() {
    let mut world = World::new();
    let enemy = world.spawn((Position(0.0), Enemy)).id();
    let friend = world.spawn(Position(0.0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((ok, required_vs_without));
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(enemy).unwrap().0, 10.0);
    assert_eq!(world.get::<Position>(friend).unwrap().0, -10.0);
}
