//! `fragmented_iter`: 26 component types `A`..`Z`, 20 entities of each, every
//! entity also with `Data`; the routine doubles every `Data` (26 archetypes of 20
//! rows each).
//!
//! Target: `ecs` at or below `hecs` (median).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::fragment::*;
use ecs_benches::{Data, FRAGMENT_ENTITIES_PER_TYPE};

/// How many entities the workload spawns in all.
const TOTAL: usize = 26 * FRAGMENT_ENTITIES_PER_TYPE;

/// Spawns `FRAGMENT_ENTITIES_PER_TYPE` entities of `(X(0.0), Data(1.0))` for each
/// type `X` of `A`..`Z` into `$world` (either crate: the calls read the same).
macro_rules! spawn_fragmented {
    ($world:expr) => {
        spawn_fragmented!(@each $world, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z)
    };
    (@each $world:expr, $($name:ident),*) => {{
        let mut spawned = 0;
        $(
            spawned += $world
                .spawn_batch((0..FRAGMENT_ENTITIES_PER_TYPE).map(|_| ($name(0.0), Data(1.0))))
                .count();
        )*
        spawned
    }};
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fragmented_iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        assert_eq!(spawn_fragmented!(world), TOTAL);
        let mut query = world.query::<&mut Data>();
        // Spawning a bundle may leave empty intermediate archetypes (e.g. `{Data}`);
        // count the ones holding rows.
        let filled = query.matched_archetypes().filter(|&id| !world.archetypes()[id].is_empty()).count();
        assert_eq!(filled, 26);
        assert_eq!(query.iter(&world).count(), TOTAL);
        query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
        assert!(query.iter(&world).all(|data| data.0 == 2.0));

        b.iter(|| {
            query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0);
        });
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        assert_eq!(spawn_fragmented!(world), TOTAL);
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

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
