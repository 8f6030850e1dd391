//! `prefab`: instantiating prefabs and reading inherited values (ecs only:
//! the peers have no prefabs; the `by_hand` rows are the same entities built
//! with plain spawns, the floor instantiation is compared with).
//!
//! * `instantiate_10k_inherit`: a prefab with 5 components (the default
//!   `inherit` policy) and 3 children, instantiated 10,000 times with
//!   `World::instantiate` (40,000 entities: each instance and a copy of each
//!   child). The world is rebuilt outside the timing.
//! * `instantiate_10k_override`: the same with 5 `override` components
//!   (cloned into every instance and child copy).
//! * `by_hand_10k`: the same 40,000 entities spawned with their 5 components
//!   and `ChildOf` pairs, no prefab.
//! * `iter_inherited_10k` / `iter_owned_10k`: `for (mut p, s) in
//!   q.iter_mut(&mut world)` over 10,000 entities whose `Speed` is inherited
//!   from one prefab vs owned.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ecs::prelude::*;

const INSTANCES: usize = 10_000;

macro_rules! components {
    ($policy:literal: $($name:ident),*) => {
        $(
            #[derive(Component, Clone, Copy, Default)]
            #[component(on_instantiate = $policy)]
            struct $name(#[allow(dead_code)] f32);
        )*
    };
}
components!("inherit": I1, I2, I3, I4, I5);
components!("override": O1, O2, O3, O4, O5);

#[derive(Component, Clone, Copy, Default)]
struct Position(f32);
#[derive(Component, Clone, Copy, Default)]
struct Speed(f32);
#[derive(Component, Clone, Copy, Default)]
#[component(on_instantiate = "override")]
struct Turret;

/// A world holding a prefab with `bundle` and 3 children.
fn world_with_prefab<B: Bundle + Clone>(bundle: B) -> (World, Entity) {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, bundle.clone())).id();
    for _ in 0..3 {
        world.spawn((Turret, bundle.clone(), ChildOf.pair(prefab)));
    }
    (world, prefab)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("prefab");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3)).sample_size(20);

    let inherit = (I1(1.0), I2(2.0), I3(3.0), I4(4.0), I5(5.0));
    let overrides = (O1(1.0), O2(2.0), O3(3.0), O4(4.0), O5(5.0));
    group.bench_function("instantiate_10k_inherit", |b| {
        b.iter_batched(
            || world_with_prefab(inherit),
            |(mut world, prefab)| {
                for _ in 0..INSTANCES {
                    black_box(world.instantiate(prefab));
                }
                world
            },
            BatchSize::LargeInput,
        );
    });
    group.bench_function("instantiate_10k_override", |b| {
        b.iter_batched(
            || world_with_prefab(overrides),
            |(mut world, prefab)| {
                for _ in 0..INSTANCES {
                    black_box(world.instantiate(prefab));
                }
                world
            },
            BatchSize::LargeInput,
        );
    });
    group.bench_function("by_hand_10k", |b| {
        b.iter_batched(
            World::new,
            |mut world| {
                for _ in 0..INSTANCES {
                    let parent = world.spawn(overrides).id();
                    for _ in 0..3 {
                        world.spawn((Turret, overrides, ChildOf.pair(parent)));
                    }
                }
                world
            },
            BatchSize::LargeInput,
        );
    });

    let mut inherited = World::new();
    let ship = inherited.spawn((Prefab, Speed(2.0))).id();
    for _ in 0..INSTANCES {
        let instance = inherited.instantiate(ship);
        inherited.entity_mut(instance).insert(Position(0.0));
    }
    let mut query = inherited.query::<(&mut Position, &Speed)>();
    group.bench_function("iter_inherited_10k", |b| {
        b.iter(|| {
            for (mut position, speed) in query.iter_mut(&mut inherited) {
                position.0 += speed.0;
            }
        });
    });
    let mut owned = World::new();
    owned.spawn_batch((0..INSTANCES).map(|_| (Position(0.0), Speed(2.0)))).for_each(drop);
    let mut query = owned.query::<(&mut Position, &Speed)>();
    group.bench_function("iter_owned_10k", |b| {
        b.iter(|| {
            for (mut position, speed) in query.iter_mut(&mut owned) {
                position.0 += speed.0;
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
