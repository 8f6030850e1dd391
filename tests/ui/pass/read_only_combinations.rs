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
fn two_readers(a: Query<&Position>, b: Query<(&Position, &Velocity)>, t1: Res<Time>, t2: Res<Time>) {}

#[system]
fn writer_and_other_reader(mut a: Query<&mut Position>, b: Query<&Velocity>) {}

#[system]
fn world_and_readers(world: &World, q: Query<&Position>, time: Res<Time>) {}

#[system]
fn write_own_changes(mut q: Query<&mut Position, Changed<Position>>, time: ResMut<Time>, mut commands: Commands) {}

fn main() {
    let mut world = World::new();
    world.insert_resource(Time(0.5));
    world.spawn((Position(1.0), Velocity(1.0)));
    let mut q = world.query::<(&Position, &Position, Has<Position>)>();
    assert_eq!(q.iter(&world).count(), 1);
    let mut q = world.query_filtered::<(&mut Position, &Velocity), Changed<Position>>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
    let mut schedule = Schedule::new();
    schedule.add_systems((two_readers, writer_and_other_reader, world_and_readers, write_own_changes));
    schedule.run(&mut world);
}
