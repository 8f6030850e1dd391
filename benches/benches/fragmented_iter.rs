//! `fragmented_iter`: 26 component types `A`..`Z`, 20 entities of each, every
//! entity also with `Data`; the routine doubles every `Data` (26 archetypes of 20
//! rows each).
//!
//! * `ecs`: a `QueryState<&mut Data>` built once, `iter_mut(..).for_each(..)`
//!   per iteration (26 tables visited); `ecs_untracked`: the same on copies of
//!   the types declared `#[component(change_detection = false)]`.
//! * `bevy_ecs`: the same with its `QueryState` (26 archetypes, each its own
//!   table).
//! * `hecs`: a `for` loop over `query_mut::<&mut Data>()` (26 archetypes).
//! * `shipyard`: `World::run` with `ViewMut<Data>`, a `for` loop over
//!   `(&mut data).iter()`: shipyard keeps one sparse set per component, so all
//!   520 `Data` are one dense array and the fragmentation costs it nothing.
//! * `hand_written`: one `Vec<Data>` per archetype (26 of 20), doubled vector
//!   by vector: the floor.
//!
//! Target (issue 7): `ecs` at or below 0.06 µs (median). Earlier target: `ecs`
//! at or below `hecs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::fragment::*;
use ecs_benches::{Data, FRAGMENT_ENTITIES_PER_TYPE};

/// How many entities the workload spawns in all.
const TOTAL: usize = 26 * FRAGMENT_ENTITIES_PER_TYPE;

/// Spawns `FRAGMENT_ENTITIES_PER_TYPE` entities of `(X(0.0), Data(1.0))` for each
/// type `X` of `A`..`Z` into `$world` through its batch method `$spawn`
/// (`spawn_batch`, or shipyard's `bulk_add_entity`: the calls read the same);
/// evaluates to how many it spawned.
macro_rules! spawn_fragmented {
    ($world:expr, $spawn:ident) => {
        spawn_fragmented!(@each $world, $spawn, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z)
    };
    (@each $world:expr, $spawn:ident, $($name:ident),*) => {{
        let mut spawned = 0;
        $(
            spawned += $world
                .$spawn((0..FRAGMENT_ENTITIES_PER_TYPE).map(|_| ($name(0.0), Data(1.0))))
                .count();
        )*
        spawned
    }};
}

/// Benches the `ecs` side as entry `$name`, with `A`..`Z` from module
/// `$fragments` and `Data` from module `$data` (the change-detected types or
/// their untracked copies).
macro_rules! ecs_entry {
    ($group:ident, $name:literal, $($fragments:ident)::+, $($data:ident)::+) => {{
        use $($fragments)::+::{A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z};
        use $($data)::+::Data;

        $group.bench_function($name, |b| {
            let mut world = World::new();
            assert_eq!(spawn_fragmented!(world, spawn_batch), TOTAL);
            let mut query = world.query::<&mut Data>();
            // Spawning a bundle may leave empty intermediate archetypes (e.g.
            // `{Data}`); count the ones holding rows.
            let filled = query.matched_archetypes().filter(|&id| !world.archetypes()[id].is_empty()).count();
            assert_eq!(filled, 26);
            assert_eq!(query.iter(&world).count(), TOTAL);
            query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
            assert!(query.iter(&world).all(|data| data.0 == 2.0));

            b.iter(|| {
                query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
            });
        });
    }};
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fragmented_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    ecs_entry!(group, "ecs", ecs_benches::fragment, ecs_benches);
    ecs_entry!(group, "ecs_untracked", ecs_benches::untracked, ecs_benches::untracked);

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        assert_eq!(spawn_fragmented!(world, spawn_batch), TOTAL);
        let data = world.component_id::<Data>().expect("spawning registered `Data`");
        assert_eq!(world.archetypes().iter().filter(|a| a.contains(data) && !a.is_empty()).count(), 26);
        let mut query = world.query::<&mut Data>();
        assert_eq!(query.iter(&world).count(), TOTAL);
        query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
        assert!(query.iter(&world).all(|data| data.0 == 2.0));

        b.iter(|| {
            query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
        });
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        assert_eq!(spawn_fragmented!(world, spawn_batch), TOTAL);
        assert_eq!(world.archetypes().filter(|a| a.has::<Data>() && !a.is_empty()).count(), 26);
        assert_eq!(world.query_mut::<&mut Data>().into_iter().count(), TOTAL);
        for data in world.query_mut::<&mut Data>() {
            data.0 *= 2.0;
        }
        assert!(world.query_mut::<&Data>().into_iter().all(|data| data.0 == 2.0));

        b.iter(|| {
            for data in world.query_mut::<&mut Data>() {
                data.0 *= 2.0;
            }
        });
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, View, ViewMut};
        let mut world = shipyard::World::new();
        assert_eq!(spawn_fragmented!(world, bulk_add_entity), TOTAL);
        let system = |mut data: ViewMut<Data>| {
            for data in (&mut data).iter() {
                data.0 *= 2.0;
            }
        };
        assert_eq!(world.run(|data: View<Data>| data.iter().count()), TOTAL);
        assert_eq!(world.run(|a: View<A>, z: View<Z>| (a.iter().count(), z.iter().count())), (20, 20));
        world.run(system);
        assert!(world.run(|data: View<Data>| data.iter().all(|data| data.0 == 2.0)));

        b.iter(|| world.run(system));
    });

    group.bench_function("hand_written", |b| {
        let mut archetypes = vec![vec![Data(1.0); FRAGMENT_ENTITIES_PER_TYPE]; 26];
        let run = |archetypes: &mut Vec<Vec<Data>>| {
            for archetype in archetypes.iter_mut() {
                for data in archetype.iter_mut() {
                    data.0 *= 2.0;
                }
            }
            black_box(archetypes);
        };
        assert_eq!(archetypes.iter().map(Vec::len).sum::<usize>(), TOTAL);
        run(&mut archetypes);
        assert!(archetypes.iter().flatten().all(|data| data.0 == 2.0));

        b.iter(|| run(&mut archetypes));
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
