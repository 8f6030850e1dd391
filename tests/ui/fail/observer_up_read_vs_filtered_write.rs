#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Faction(u32);
#[derive(Component)]
struct Enemy;

fn main() {
    let mut world = World::new();
    world.add_observer(
        |trigger: Trigger<OnAdd, Enemy>,
         w: Query<&mut Faction, With<Enemy>>,
         r: Query<Up<ChildOf, &Faction>, Without<Enemy>>| {},
    );
}
