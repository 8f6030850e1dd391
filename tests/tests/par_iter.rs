//! Parallel query iteration (`Query::par_iter`/`par_iter_mut`,
//! `QueryState::par_iter`/`par_iter_mut`, `QueryParIter`): every row visited
//! exactly once across archetypes of all sizes (empty ones included) and any
//! batch size, results equal to the sequential iteration, filters (`With`,
//! `Without`, `Or`, `Changed`) and `Option`/`Has` terms, sparse components,
//! exact `Changed` after parallel writes of only some rows, `par_iter` inside
//! systems of a multi-threaded `Schedule`, read-only sums with atomics, and
//! that the batches really run on several threads when the pool has them.
//!
//! The fixture ([`populated_world`]) spreads rows of [`Val`] over archetypes of
//! 0, 0, 1, 7, 8 and 75 rows (with holes from despawns; sparse components are
//! not part of an archetype, so the rows with a sparse [`Spark`] share the
//! 75-row one), so a batch size of 7 gives batches that end exactly at, just
//! before and just after archetype boundaries.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use ecs::schedule::ExecutorKind;

use ecs::prelude::*;
use ecs_tests::{parallel_pool, within_timeout};

// ----- fixtures -------------------------------------------------------------------------

/// The row under test: `id` is unique per entity, `visits` counts how often a
/// parallel pass reached it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Val {
    id: u32,
    visits: u32,
    value: i64,
}

#[derive(Component, Debug)]
struct TagA;

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct B(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[component(storage = "sparse")]
struct Spark(u32);

/// Used only to create archetypes that end up empty.
#[derive(Component, Debug)]
struct Gone;

fn val(id: u32) -> Val {
    Val { id, visits: 0, value: i64::from(id) * 10 }
}

/// How many entities of [`populated_world`] have a [`Val`].
const VAL_ROWS: usize = 50 + 7 + 8 + 1 + 5 + 20;

/// A world whose [`Val`] rows lie in archetypes of 75 (50 plain rows, 5 that
/// passed through an archetype that is now empty, 20 with a sparse [`Spark`]),
/// 7, 8 and 1 rows, plus two empty archetypes that still match `&Val`, and
/// rows without `Val`.
fn populated_world() -> World {
    let mut world = World::new();
    let mut id = 0..;
    let mut next = || id.next().unwrap();
    // 50 plain rows, with holes: 10 more are spawned and despawned in between.
    let mut doomed = Vec::new();
    for i in 0..60 {
        let entity = world.spawn(val(if i % 6 == 5 { 9999 } else { next() })).id();
        if i % 6 == 5 {
            doomed.push(entity);
        }
    }
    for entity in doomed {
        world.despawn(entity);
    }
    for _ in 0..7 {
        world.spawn((val(next()), TagA));
    }
    for i in 0..8 {
        world.spawn((val(next()), B(i)));
    }
    world.spawn((val(next()), TagA, B(100)));
    // Five rows that pass through (Val, Gone) and leave it empty.
    for _ in 0..5 {
        let entity = world.spawn((val(next()), Gone)).id();
        world.remove::<Gone>(entity);
    }
    // An archetype (Val, TagA, Gone) that is empty from the start of iteration.
    let ghost = world.spawn((val(9999), TagA, Gone)).id();
    world.despawn(ghost);
    for i in 0..20 {
        world.spawn((val(next()), Spark(i)));
    }
    // Rows without `Val`.
    for i in 0..10 {
        world.spawn((B(i), Spark(i)));
    }
    world.check_invariants();
    world
}

/// Every `Val` in the world, sorted by id.
fn vals(world: &mut World) -> Vec<Val> {
    let mut rows: Vec<Val> = world.query::<&Val>().iter(world).copied().collect();
    rows.sort_unstable_by_key(|row| row.id);
    rows
}

/// The entity of the `Val` with each id.
fn entities_by_id(world: &mut World) -> BTreeMap<u32, Entity> {
    world.query::<(Entity, &Val)>().iter(world).map(|(entity, row)| (row.id, entity)).collect()
}

// ----- every row exactly once -------------------------------------------------------------

#[test]
fn the_fixture_has_empty_archetypes_that_the_query_matches() {
    let mut world = populated_world();
    let query = world.query::<&Val>();
    let sizes: Vec<usize> = query.matched_archetypes().map(|id| world.archetypes().get(id).unwrap().len()).collect();
    assert!(sizes.iter().filter(|&&size| size == 0).count() >= 2, "{sizes:?}");
    assert_eq!(sizes.iter().sum::<usize>(), VAL_ROWS, "{sizes:?}");
    for size in [1, 7, 8, 75] {
        assert!(sizes.contains(&size), "{sizes:?}");
    }
}

#[test]
fn par_iter_mut_visits_every_row_exactly_once_whatever_the_batch_size() {
    for batch_size in [None, Some(0), Some(1), Some(7), Some(8), Some(64), Some(VAL_ROWS), Some(10_000)] {
        let mut world = populated_world();
        let calls = AtomicUsize::new(0);
        let mut query = world.query::<&mut Val>();
        let iteration = query.par_iter_mut(&mut world);
        let iteration = match batch_size {
            Some(rows) => iteration.batch_size(rows),
            None => iteration,
        };
        iteration.for_each(|mut row| {
            row.visits += 1;
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(calls.into_inner(), VAL_ROWS, "batch size {batch_size:?}");
        let rows = vals(&mut world);
        assert_eq!(rows.len(), VAL_ROWS);
        assert!(rows.iter().all(|row| row.visits == 1), "batch size {batch_size:?}: {rows:?}");
        assert_eq!(rows.iter().map(|row| row.id).collect::<Vec<_>>(), (0..VAL_ROWS as u32).collect::<Vec<_>>());
        world.check_invariants();
    }
}

/// A per-row update whose result depends only on the row.
fn update(row: &mut Val, b: Option<&B>) {
    row.value = row.value * 3 + i64::from(row.id) + b.map_or(0, |b| i64::from(b.0) * 1000);
    row.visits += 1;
}

#[test]
fn par_iter_mut_gives_the_same_world_as_iter_mut() {
    let mut sequential = populated_world();
    let mut query = sequential.query::<(&mut Val, Option<&B>)>();
    for _ in 0..3 {
        for (mut row, b) in query.iter_mut(&mut sequential) {
            update(&mut row, b);
        }
    }
    let expected = vals(&mut sequential);

    let mut parallel = populated_world();
    let mut query = parallel.query::<(&mut Val, Option<&B>)>();
    for _ in 0..3 {
        query.par_iter_mut(&mut parallel).batch_size(7).for_each(|(mut row, b)| update(&mut row, b));
    }
    assert_eq!(vals(&mut parallel), expected);
    assert!(expected.iter().all(|row| row.visits == 3));

    // The same through `Query::par_iter_mut` in a system.
    let mut in_system = populated_world();
    for _ in 0..3 {
        in_system.run_system_once(|mut q: Query<(&mut Val, Option<&B>)>| {
            q.par_iter_mut().batch_size(7).for_each(|(mut row, b)| update(&mut row, b));
        });
    }
    assert_eq!(vals(&mut in_system), expected);
    in_system.check_invariants();
}

#[test]
fn an_empty_query_never_calls_the_closure() {
    let mut world = World::new();
    world.spawn(B(1));
    world.query::<&mut Val>().par_iter_mut(&mut world).batch_size(1).for_each(|_| panic!("no rows"));
    world.query::<&Val>().par_iter(&world).for_each(|_| panic!("no rows"));
    let ghost = world.spawn(val(1)).id();
    world.despawn(ghost);
    world.query::<&mut Val>().par_iter_mut(&mut world).batch_size(1).for_each(|_| panic!("no rows"));
    world.run_system_once(|q: Query<&Val, With<B>>| q.par_iter().for_each(|_| panic!("no rows")));
}

// ----- filters, Option and Has terms ------------------------------------------------------

/// Asserts that `world.query_filtered::<$data, $filter>()` gives the same items
/// through `par_iter` (batch size 3) as through `iter`, after mapping each item
/// with `$map` and sorting.
macro_rules! assert_par_matches_iter {
    ($world:expr, $data:ty, $filter:ty, $map:expr) => {{
        let world: &mut World = $world;
        let map = $map;
        let mut expected: Vec<_> = world.query_filtered::<$data, $filter>().iter(world).map(&map).collect();
        expected.sort_unstable();
        let collected = Mutex::new(Vec::new());
        world.query_filtered::<$data, $filter>().par_iter(world).batch_size(3).for_each(|item| {
            collected.lock().unwrap().push(map(item));
        });
        let mut actual = collected.into_inner().unwrap();
        actual.sort_unstable();
        assert_eq!(actual, expected, "{} filtered by {}", stringify!($data), stringify!($filter));
        expected.len()
    }};
}

#[test]
fn filters_and_option_terms_select_the_same_rows_as_iter() {
    let mut world = populated_world();
    let w = &mut world;
    assert_eq!(assert_par_matches_iter!(w, (Entity, &Val), With<TagA>, |(e, v): (Entity, &Val)| (e, v.id)), 8);
    assert_eq!(assert_par_matches_iter!(w, (Entity, &Val), Without<B>, |(e, v): (Entity, &Val)| (e, v.id)), 82);
    assert_eq!(
        assert_par_matches_iter!(w, (Entity, &Val), (With<TagA>, Without<B>), |(e, v): (Entity, &Val)| (e, v.id)),
        7
    );
    assert_eq!(assert_par_matches_iter!(w, &Val, Or<(With<TagA>, With<B>)>, |v: &Val| v.id), 7 + 8 + 1, "Or of With");
    assert_eq!(
        assert_par_matches_iter!(w, (Entity, Option<&B>, Has<TagA>), With<Val>, |(e, b, a): (
            Entity,
            Option<&B>,
            bool
        )| (e, b.copied(), a)),
        VAL_ROWS
    );
    assert_eq!(
        assert_par_matches_iter!(w, (&Val, Option<&Spark>), (), |(v, s): (&Val, Option<&Spark>)| (v.id, s.copied())),
        VAL_ROWS
    );
    assert_eq!(assert_par_matches_iter!(w, &B, Without<Val>, |b: &B| b.0), 10);
    assert_eq!(assert_par_matches_iter!(w, Entity, (With<Val>, With<Spark>), |e: Entity| e), 20);
}

#[test]
fn par_iter_mut_with_filters_writes_only_the_selected_rows() {
    let mut world = populated_world();
    world
        .query_filtered::<&mut Val, (With<TagA>, Without<B>)>()
        .par_iter_mut(&mut world)
        .batch_size(2)
        .for_each(|mut row| row.visits += 1);
    world.query_filtered::<(&mut Val, Option<&B>), Without<TagA>>().par_iter_mut(&mut world).batch_size(5).for_each(
        |(mut row, b)| {
            if b.is_some() {
                row.visits += 10;
            }
        },
    );
    let mut by_visits = BTreeMap::<u32, usize>::new();
    for row in vals(&mut world) {
        *by_visits.entry(row.visits).or_default() += 1;
    }
    // 7 TagA-only rows, 8 B-only rows, the TagA+B row untouched like the rest.
    assert_eq!(by_visits, BTreeMap::from([(0, VAL_ROWS - 15), (1, 7), (10, 8)]));
}

// ----- sparse components ------------------------------------------------------------------

#[test]
fn sparse_components_are_visited_once_and_written_in_parallel() {
    let mut world = populated_world();
    let calls = AtomicUsize::new(0);
    world.query::<&mut Spark>().par_iter_mut(&mut world).batch_size(3).for_each(|mut spark| {
        spark.0 += 1000;
        calls.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(calls.into_inner(), 30, "20 with Val and 10 without");
    world.query::<(&mut Val, &mut Spark)>().par_iter_mut(&mut world).batch_size(7).for_each(|(mut row, mut spark)| {
        row.visits += 1;
        spark.0 += 1;
    });
    let mut sparks: Vec<u32> = world.query::<&Spark>().iter(&world).map(|spark| spark.0).collect();
    sparks.sort_unstable();
    let mut expected: Vec<u32> = (0..20).map(|i| i + 1001).chain((0..10).map(|i| i + 1000)).collect();
    expected.sort_unstable();
    assert_eq!(sparks, expected);
    let visited = vals(&mut world).iter().filter(|row| row.visits == 1).count();
    assert_eq!(visited, 20);
    world.check_invariants();
}

// ----- change detection -------------------------------------------------------------------

#[test]
fn changed_after_par_iter_mut_is_exactly_the_rows_written() {
    let mut world = populated_world();
    let by_id = entities_by_id(&mut world);
    let mut changed = world.query_filtered::<Entity, Changed<Val>>();
    assert_eq!(changed.iter(&world).count(), VAL_ROWS, "everything is new to a new state");
    assert_eq!(changed.iter(&world).count(), 0);

    for parity in [0, 1] {
        // Write every other row (reads through `Deref` do not mark a row).
        world.query::<&mut Val>().par_iter_mut(&mut world).batch_size(7).for_each(|mut row| {
            if row.id % 2 == parity {
                row.value += 1;
            }
        });
        let got: BTreeSet<Entity> = changed.iter(&world).collect();
        let expected: BTreeSet<Entity> =
            by_id.iter().filter(|&(id, _)| id % 2 == parity).map(|(_, &entity)| entity).collect();
        assert_eq!(got, expected, "parity {parity}");
    }
    // A pass that only reads changes nothing.
    world.query::<&mut Val>().par_iter_mut(&mut world).batch_size(7).for_each(|row| assert!(row.value >= 0));
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn changed_after_parallel_writes_to_a_sparse_component_is_exact() {
    let mut world = populated_world();
    let mut changed = world.query_filtered::<&Spark, Changed<Spark>>();
    assert_eq!(changed.iter(&world).count(), 30);
    world.query::<&mut Spark>().par_iter_mut(&mut world).batch_size(2).for_each(|mut spark| {
        if spark.0 % 3 == 0 {
            spark.0 += 100;
        }
    });
    let mut got: Vec<u32> = changed.iter(&world).map(|spark| spark.0).collect();
    got.sort_unstable();
    let mut expected: Vec<u32> = (0..20).chain(0..10).filter(|i| i % 3 == 0).map(|i| i + 100).collect();
    expected.sort_unstable();
    assert_eq!(got, expected);
}

#[test]
fn a_changed_filter_in_par_iter_visits_only_changed_rows() {
    let mut world = populated_world();
    let by_id = entities_by_id(&mut world);
    let mut changed = world.query_filtered::<(Entity, &Val), Changed<Val>>();
    changed.iter(&world).for_each(drop);
    for id in [0, 13, 56, 57, 70, 89] {
        world.get_mut::<Val>(by_id[&id]).unwrap().value = -1;
    }
    let seen = Mutex::new(Vec::new());
    changed.par_iter(&world).batch_size(1).for_each(|(_, row)| seen.lock().unwrap().push(row.id));
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, [0, 13, 56, 57, 70, 89]);
}

/// Writes `Val::value` of the rows whose id is a multiple of the run number
/// (in parallel), and records the rows it wrote.
fn par_writer(mut q: Query<&mut Val>, mut run: Local<u32>, mut written: ResMut<Written>) {
    *run += 1;
    let divisor = *run + 1;
    let ids = Mutex::new(BTreeSet::new());
    q.par_iter_mut().batch_size(4).for_each(|mut row| {
        if row.id % divisor == 0 {
            row.value += 1;
            ids.lock().unwrap().insert(row.id);
        }
    });
    written.0.push(ids.into_inner().unwrap());
}

/// Records the rows whose `Val` changed since this system's previous run.
fn changed_recorder(q: Query<&Val, Changed<Val>>, mut seen: ResMut<SeenChanged>) {
    seen.0.push(q.iter().map(|row| row.id).collect());
}

#[derive(Resource, Default)]
struct Written(Vec<BTreeSet<u32>>);

#[derive(Resource, Default)]
struct SeenChanged(Vec<BTreeSet<u32>>);

#[test]
fn a_later_system_sees_exactly_the_rows_a_par_iter_mut_system_wrote() {
    for executor in [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded] {
        let (written, seen) = within_timeout(move || {
            let mut world = populated_world();
            world.init_resource::<Written>();
            world.init_resource::<SeenChanged>();
            let mut schedule = Schedule::new();
            schedule.set_executor_kind(executor);
            schedule.add_systems((par_writer, changed_recorder).chain());
            for _ in 0..4 {
                schedule.run(&mut world);
            }
            let written = std::mem::take(&mut world.resource_mut::<Written>().0);
            (written, std::mem::take(&mut world.resource_mut::<SeenChanged>().0))
        });
        assert_eq!(seen[0].len(), VAL_ROWS, "{executor:?}: the first run sees every row as changed");
        assert_eq!(seen[1..], written[1..], "{executor:?}");
        assert_eq!(written[3].len(), VAL_ROWS.div_ceil(5), "{executor:?}");
    }
}

// ----- inside schedules, read-only sums, threads -------------------------------------------

#[derive(Resource, Default, Debug, PartialEq)]
struct Sums(Vec<i64>);

fn par_scale_tagged(mut q: Query<&mut Val, With<TagA>>) {
    q.par_iter_mut().batch_size(2).for_each(|mut row| row.value = row.value * 2 + 1);
}

fn par_scale_untagged(mut q: Query<&mut Val, Without<TagA>>) {
    q.par_iter_mut().batch_size(3).for_each(|mut row| row.value -= 3);
}

fn par_bump_sparks(mut q: Query<&mut Spark>) {
    q.par_iter_mut().batch_size(4).for_each(|mut spark| spark.0 += 2);
}

fn par_sum(q: Query<&Val>, mut sums: ResMut<Sums>) {
    let total = AtomicI64::new(0);
    q.par_iter().batch_size(5).for_each(|row| {
        total.fetch_add(row.value, Ordering::Relaxed);
    });
    sums.0.push(total.into_inner());
}

fn scheduled_par_iter_world(executor: ExecutorKind) -> (Vec<Val>, Vec<u32>, Vec<i64>) {
    let mut world = populated_world();
    world.init_resource::<Sums>();
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(executor);
    // The three writers are disjoint (run together on the pool); the sum reads
    // what two of them write, so it runs after them, in insertion order.
    schedule.add_systems((par_scale_tagged, par_scale_untagged, par_bump_sparks, par_sum));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    world.check_invariants();
    let mut sparks: Vec<u32> = world.query::<&Spark>().iter(&world).map(|spark| spark.0).collect();
    sparks.sort_unstable();
    let sums = std::mem::take(&mut world.resource_mut::<Sums>().0);
    (vals(&mut world), sparks, sums)
}

#[test]
fn par_iter_inside_systems_of_a_multi_threaded_schedule() {
    let expected = scheduled_par_iter_world(ExecutorKind::SingleThreaded);
    for _ in 0..10 {
        let actual = within_timeout(|| scheduled_par_iter_world(ExecutorKind::MultiThreaded));
        assert_eq!(actual, expected);
    }
    // And the numbers are the sequential ones.
    let mut world = populated_world();
    let mut sums = Vec::new();
    for _ in 0..3 {
        for (mut row, tagged) in world.query::<(&mut Val, Has<TagA>)>().iter_mut(&mut world) {
            row.value = if tagged { row.value * 2 + 1 } else { row.value - 3 };
        }
        sums.push(world.query::<&Val>().iter(&world).map(|row| row.value).sum::<i64>());
    }
    assert_eq!(expected.2, sums);
    assert_eq!(expected.0, vals(&mut world));
}

#[test]
fn read_only_par_iter_sums_with_atomics() {
    let mut world = World::new();
    world.spawn_batch((0..5000u32).map(|id| (val(id),)));
    let expected: i64 = (0..5000i64).map(|id| id * 10).sum();

    let total = AtomicI64::new(0);
    let rows = AtomicUsize::new(0);
    world.query::<&Val>().par_iter(&world).for_each(|row| {
        total.fetch_add(row.value, Ordering::Relaxed);
        rows.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!((total.into_inner(), rows.into_inner()), (expected, 5000));

    let in_system = world.run_system_once(|q: Query<&Val>| {
        let total = AtomicI64::new(0);
        q.par_iter().batch_size(64).for_each(|row| {
            total.fetch_add(row.value, Ordering::Relaxed);
        });
        total.into_inner()
    });
    assert_eq!(in_system, expected);
    // Read-only passes change nothing.
    assert!(vals(&mut world).iter().all(|row| row.visits == 0));
}

#[test]
fn rows_that_fit_in_one_batch_run_on_the_calling_thread() {
    let mut world = populated_world();
    let caller = std::thread::current().id();
    let threads = Mutex::new(HashSet::new());
    world.query::<&Val>().par_iter(&world).batch_size(VAL_ROWS).for_each(|_| {
        threads.lock().unwrap().insert(std::thread::current().id());
    });
    assert_eq!(threads.into_inner().unwrap(), HashSet::from([caller]));
}

#[test]
fn batches_run_on_several_threads_when_the_pool_has_them() {
    if !parallel_pool() {
        eprintln!("skipped: the rayon pool has one thread");
        return;
    }
    let mut world = World::new();
    world.spawn_batch((0..4096u32).map(|id| (val(id),)));
    // Each thread that gets a batch waits (up to 10 s) until a second thread
    // has one too, so a busy second worker delays the test but cannot fail it.
    let threads: Mutex<HashSet<ThreadId>> = Mutex::new(HashSet::new());
    let second_thread = Condvar::new();
    let visited = AtomicUsize::new(0);
    world.query::<&mut Val>().par_iter_mut(&mut world).batch_size(16).for_each(|mut row| {
        row.visits += 1;
        visited.fetch_add(1, Ordering::Relaxed);
        let mut seen = threads.lock().unwrap();
        if seen.insert(std::thread::current().id()) && seen.len() >= 2 {
            second_thread.notify_all();
        }
        let _ = second_thread.wait_timeout_while(seen, Duration::from_secs(10), |seen| seen.len() < 2).unwrap();
    });
    assert_eq!(visited.into_inner(), 4096);
    let threads = threads.into_inner().unwrap();
    assert!(threads.len() >= 2, "batches ran on {} thread(s)", threads.len());
    assert!(vals(&mut world).iter().all(|row| row.visits == 1));
}
