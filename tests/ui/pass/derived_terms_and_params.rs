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

#[derive(QueryData)]
#[query_data(mutable)]
struct Mover<'w> {
    entity: Entity,
    position: &'w mut Position,
    velocity: &'w Velocity,
}

#[derive(QueryFilter)]
struct Enemies {
    enemy: With<Enemy>,
}

#[derive(SystemParam)]
struct Movement<'w, 's> {
    movers: Query<'w, 's, Mover<'static>, Enemies>,
    time: Res<'w, Time>,
}

#[system]
fn movement(mut movement: Movement, others: Query<&Position, Without<Enemy>>) {
    let dt = movement.time.0;
    for mut mover in movement.movers.iter_mut() {
        mover.position.0 += mover.velocity.0 * dt;
    }
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Time(2.0));
    let e = world.spawn((Position(0.0), Velocity(1.0), Enemy)).id();
    world.run_system_once(movement);
    assert_eq!(world.get::<Position>(e).unwrap().0, 2.0);
}
