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
#[derive(Resource, Default)]
struct Frames(u32);
#[derive(Resource)]
struct Paused;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
enum Stage {
    Input,
    Simulate,
}

fn movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
    for (mut p, v) in q.iter_mut() {
        p.0 += v.0 * time.0;
    }
}
fn enemies(mut q: Query<&mut Position, With<Enemy>>) {}
fn friends(mut q: Query<&mut Position, Without<Enemy>>) {}
fn spawner(mut commands: Commands) {
    commands.spawn((Position(0.0), Velocity(1.0)));
}
fn count(mut frames: ResMut<Frames>) {
    frames.0 += 1;
}
fn exclusive(world: &mut World) {
    world.spawn(Enemy);
}

// Every read-only parameter kind is a valid run condition.
fn reads_resource(time: Res<Time>) -> bool {
    time.0 > 0.0
}
fn reads_query(q: Query<&Position, With<Enemy>>) -> bool {
    q.iter().count() < 100
}
fn reads_world(world: &World) -> bool {
    world.contains_resource::<Time>()
}
fn has_local(mut calls: Local<u32>) -> bool {
    *calls += 1;
    true
}
fn reads_optional(frames: Option<Res<Frames>>) -> bool {
    frames.is_some()
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Time(0.5));
    world.init_resource::<Frames>();
    let mut schedule = Schedule::new();
    schedule.add_systems((
        (spawner, ApplyDeferred, movement.run_if(reads_resource)).chain(),
        (enemies, friends).in_set(Stage::Simulate).run_if(reads_query),
        count.in_set(Stage::Input).run_if(not(resource_exists::<Paused>)).run_if(has_local),
        exclusive.after(count).before(Stage::Simulate),
    ));
    schedule.configure_sets((Stage::Input, Stage::Simulate).chain().run_if(reads_world));
    schedule.configure_sets(Stage::Simulate.run_if(reads_optional).run_if(|frames: Res<Frames>| frames.0 < 10));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Frames>().0, 2);
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 2);
}
