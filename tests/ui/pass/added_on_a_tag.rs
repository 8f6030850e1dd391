#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Enemy;

// Tags keep per-row ticks: Added/Changed on them compile and work, in the
// user's crate (this used to be a post-monomorphization error).
fn main() {
    let mut world = World::new();
    let mut added = world.query_filtered::<Entity, Added<Enemy>>();
    let e = world.spawn(Enemy).id();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    assert_eq!(added.iter(&world).count(), 0);
    let mut changed = world.query_filtered::<Entity, Changed<Enemy>>();
    assert_eq!(changed.iter(&world).count(), 1);
    world.entity_mut(e).insert(Enemy); // an overwrite is a change, not an add
    assert_eq!(changed.iter(&world).count(), 1);
    assert_eq!(added.iter(&world).count(), 0);
}
