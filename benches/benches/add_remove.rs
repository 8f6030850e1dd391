//! `add_remove`: 10,000 entities with `A`; the routine inserts `B` into each, one
//! call per entity, then removes `B` from each (two archetype moves per entity).
//!
//! * `ecs`: `World::insert` then `World::remove::<B>` per entity;
//!   `ecs_untracked`: the same on copies of `A` and `B` declared without change
//!   detection (no tick copies on the moves), like `hecs` and `shipyard`.
//! * `bevy_ecs`: `World::entity_mut(e).insert(B)` then `.take::<B>()` per
//!   entity (two archetype moves, each a table move).
//! * `hecs`: `World::insert_one` then `World::remove_one::<B>` per entity.
//! * `shipyard`: `World::add_component(e, (B,))` then `World::remove::<(B,)>(e)`
//!   per entity (no archetypes: a push to and a swap-remove from `B`'s sparse
//!   set).
//! * `hand_written`: the `A`s in a `Vec<A>` and the `B`s in a `Vec<Option<B>>`
//!   indexed by entity, set to `Some` then taken back: the floor.
//!
//! * `ecs_tag` / `ecs_tag_untracked` (issue 23): the same with a zero-sized
//!   tag instead of `B`: a tracked tag keeps a column of ticks (what
//!   `Added<Tag>`/`Changed<Tag>` read), an untracked one stores nothing, as
//!   every tag did before.
//!
//! Target (issue 7): `ecs` at or below 300 µs (median). Earlier target: `ecs`
//! at or below 0.7x `hecs`: one cached graph-edge move per operation.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::{A, B, ENTITY_COUNT};

/// Benches the `ecs` side as entry `$name`, with `A` and `B` from module
/// `$types` (the change-detected types or their untracked copies).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($types:ident)::+) => {{
        use $($types)::+::{A, B};

        /// Inserts then removes `B` on every entity.
        fn add_remove(world: &mut World, entities: &[Entity]) {
            for &entity in entities {
                assert!(world.insert(entity, B(0.0)));
            }
            for &entity in entities {
                assert!(world.remove::<B>(entity).is_some());
            }
        }

        $group.bench_function($name, |b| {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
            assert_eq!(entities.len(), ENTITY_COUNT);
            add_remove(&mut world, &entities);
            assert_eq!(world.entity_count(), ENTITY_COUNT);
            assert_eq!(world.query::<&A>().iter(&world).count(), ENTITY_COUNT);
            assert_eq!(world.query::<&B>().iter(&world).count(), 0);

            b.iter(|| add_remove(&mut world, &entities));
        });
    }};
}

/// A tag with change detection (a column of ticks per table).
#[derive(Component)]
struct Flag;

/// A tag without change detection (no storage).
#[derive(Component)]
#[component(change_detection = false)]
struct UntrackedFlag;

/// Benches inserting then removing the tag `$tag` on every entity, as `$name`.
macro_rules! ecs_tag_entry {
    ($group:ident, $name:literal, $tag:ident) => {{
        fn add_remove(world: &mut World, entities: &[Entity]) {
            for &entity in entities {
                assert!(world.insert(entity, $tag));
            }
            for &entity in entities {
                assert!(world.remove::<$tag>(entity).is_some());
            }
        }

        $group.bench_function($name, |b| {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
            add_remove(&mut world, &entities);
            assert_eq!(world.query::<&$tag>().iter(&world).count(), 0);
            b.iter(|| add_remove(&mut world, &entities));
        });
    }};
}

fn hecs_add_remove(world: &mut hecs::World, entities: &[hecs::Entity]) {
    for &entity in entities {
        world.insert_one(entity, B(0.0)).unwrap();
    }
    for &entity in entities {
        world.remove_one::<B>(entity).unwrap();
    }
}

/// Inserts then removes `B` on every entity of a `bevy_ecs` world.
fn bevy_add_remove(world: &mut bevy_ecs::world::World, entities: &[bevy_ecs::entity::Entity]) {
    for &entity in entities {
        world.entity_mut(entity).insert(B(0.0));
    }
    for &entity in entities {
        assert!(world.entity_mut(entity).take::<B>().is_some());
    }
}

/// Adds then removes `B` on every entity of a `shipyard` world.
fn shipyard_add_remove(world: &mut shipyard::World, entities: &[shipyard::EntityId]) {
    for &entity in entities {
        world.add_component(entity, (B(0.0),));
    }
    for &entity in entities {
        assert!(world.remove::<(B,)>(entity).0.is_some());
    }
}

/// Sets then clears every entity's `B` slot of the baseline.
fn hand_written_add_remove(bs: &mut [Option<B>]) {
    for b in bs.iter_mut() {
        *b = Some(B(0.0));
    }
    for b in bs.iter_mut() {
        assert!(b.take().is_some());
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked);
    ecs_tag_entry!(group, "ecs_tag", Flag);
    ecs_tag_entry!(group, "ecs_tag_untracked", UntrackedFlag);

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        let entities: Vec<bevy_ecs::entity::Entity> =
            world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
        assert_eq!(entities.len(), ENTITY_COUNT);
        bevy_add_remove(&mut world, &entities);
        assert_eq!(world.query::<&A>().iter(&world).count(), ENTITY_COUNT);
        assert_eq!(world.query::<&B>().iter(&world).count(), 0);

        b.iter(|| bevy_add_remove(&mut world, &entities));
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        let entities: Vec<hecs::Entity> = world.spawn_batch((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
        assert_eq!(entities.len(), ENTITY_COUNT);
        hecs_add_remove(&mut world, &entities);
        assert_eq!(world.len() as usize, ENTITY_COUNT);
        assert_eq!(world.query_mut::<&A>().into_iter().count(), ENTITY_COUNT);
        assert_eq!(world.query_mut::<&B>().into_iter().count(), 0);

        b.iter(|| hecs_add_remove(&mut world, &entities));
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{EntitiesView, View};
        let mut world = shipyard::World::new();
        let entities: Vec<shipyard::EntityId> =
            world.bulk_add_entity((0..ENTITY_COUNT).map(|i| (A(i as f32),))).collect();
        assert_eq!(entities.len(), ENTITY_COUNT);
        shipyard_add_remove(&mut world, &entities);
        assert_eq!(world.borrow::<EntitiesView>().unwrap().iter().count(), ENTITY_COUNT);
        assert_eq!(world.run(|a: View<A>, b: View<B>| (a.len(), b.len())), (ENTITY_COUNT, 0));

        b.iter(|| shipyard_add_remove(&mut world, &entities));
    });

    group.bench_function("hand_written", |b| {
        let a_values: Vec<A> = (0..ENTITY_COUNT).map(|i| A(i as f32)).collect();
        let mut b_values: Vec<Option<B>> = vec![None; ENTITY_COUNT];
        hand_written_add_remove(&mut b_values);
        assert_eq!(a_values.len(), ENTITY_COUNT);
        assert!(b_values.iter().all(Option::is_none));

        b.iter(|| hand_written_add_remove(black_box(&mut b_values)));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
