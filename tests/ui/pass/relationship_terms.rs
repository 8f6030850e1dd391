#![allow(unused)]
use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Position(f32);
#[derive(Relationship)]
struct Likes;
#[derive(Relationship)]
struct Eats {
    amount: u32,
}

// A pair's value and the component of the same type are different storage.
#[system]
fn feed(mut pairs: Query<(Entity, Pair<&mut Eats>)>, plain: Query<&Eats>) {
    for (_, (_, mut eats)) in pairs.iter_mut() {
        eats.amount += 1;
    }
}

// Reading an ancestor's component next to other reads is fine.
#[system]
fn follow(q: Query<(&Position, Up<ChildOf, &Position>)>, likes: Query<(Entity, Pair<Likes>)>) {}

fn main() {
    let mut world = World::new();
    let (alice, bob, carol, apples) =
        (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).insert_pair(Eats { amount: 1 }, apples);
    world.spawn(Eats { amount: 7 });
    world.run_system_once(feed);
    world.run_system_once(follow);
    assert_eq!(world.get_pair::<Eats>(alice, apples).map(|e| e.amount), Some(2));
    let mut rows = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(rows.iter(&world).count(), 2);
}
