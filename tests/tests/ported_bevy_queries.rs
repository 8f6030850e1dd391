//! Tests ported from bevy_ecs's query and change-detection tests
//! (`query/mod.rs`, `query/state.rs`, `lib.rs`, `change_detection/mod.rs`,
//! `system/mod.rs`, `system/query.rs`, `query/fetch.rs`) to this crate's API,
//! with Bevy's meanings. Each test names the Bevy test it ports.
//!
//! Deliberate, documented differences this file adapts to (not findings):
//! - `Added`/`Changed` on a `QueryState` are relative to that state's previous
//!   `iter`/`iter_mut`, not to `World::last_change_tick` (API.md, "Queries"): where
//!   Bevy calls `world.clear_trackers()` and builds a fresh query, these tests run
//!   a kept state once instead.
//! - read-only `get_many` rejects an entity listed twice (`QueryError::AliasedMutability`,
//!   documented on `QueryState::get_many`); Bevy only rejects it in `get_many_mut`.
//! - Bevy panics at run time for aliasing query terms (`(&A, &mut A)`); here they are
//!   compile errors (API.md, "Compile-time safety"), so those tests are not ported.
//! - `QueryIter` is not an `ExactSizeIterator`: its `len()` is an inherent method that
//!   consumes it (`query.iter(&world).len()` reads as in Bevy); Bevy's `len()` checks
//!   are ported as exact `size_hint()` checks where ours is exact (table-only terms).

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use ecs::prelude::*;
use ecs::storage::{CHECK_TICK_THRESHOLD, MAX_CHANGE_AGE};

#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
struct A(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
struct B(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct C(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct D(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
#[component(storage = "sparse")]
struct Sparse(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct TableStored(&'static str);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
#[component(storage = "sparse")]
struct SparseStored(u32);
#[derive(Component, Debug, Eq, PartialEq, Clone, Copy)]
struct Tag;

#[derive(Resource, Debug, PartialEq, Eq, Clone, Copy)]
enum SystemRan {
    No,
    Yes,
}

fn run_in_schedule<M>(world: &mut World, systems: impl IntoSystemConfigs<M>) {
    let mut schedule = Schedule::new();
    schedule.add_systems(systems);
    schedule.run(world);
}

// the order of the combinations is not guaranteed, but each unique combination is present
fn check_combinations<T: Ord + Hash + std::fmt::Debug, const K: usize>(
    values: HashSet<[&T; K]>,
    expected: HashSet<[&T; K]>,
) {
    assert_eq!(values.len(), expected.len(), "got {values:?}, expected {expected:?}");
    for combination in &values {
        let mut sorted = *combination;
        sorted.sort();
        assert!(expected.contains(&sorted), "unexpected combination {sorted:?}; expected {expected:?}");
    }
}

fn choose(n: usize, k: usize) -> usize {
    if n == 0 || k == 0 || n < k {
        return 0;
    }
    let ks = 1..=k;
    let ns = (n - k + 1..=n).rev();
    ks.zip(ns).fold(1, |acc, (k, n)| acc * n / k)
}

// ===== query/mod.rs ==================================================================

/// Ports bevy_ecs `query::tests::query`.
#[test]
fn query() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    let values = world.query::<&A>().iter(&world).collect::<HashSet<&A>>();
    assert!(values.contains(&A(1)));
    assert!(values.contains(&A(2)));

    for (_a, mut b) in world.query::<(&A, &mut B)>().iter_mut(&mut world) {
        b.0 = 3;
    }
    let values = world.query::<&B>().iter(&world).collect::<Vec<&B>>();
    assert_eq!(values, vec![&B(3)]);
}

/// Exact size hint, after skipping `skip` items, and a count that agrees.
fn assert_exact_iter(mut iter: impl Iterator, expected: usize, skip: usize, what: &str) {
    let expected = expected.saturating_sub(skip);
    for _ in 0..skip {
        iter.next();
    }
    let hint = iter.size_hint();
    let count = iter.count();
    assert_eq!(hint, (expected, Some(expected)), "size_hint of {what}");
    assert_eq!(count, expected, "count of {what}");
}

fn assert_all_sizes_equal<F: QueryFilter>(world: &mut World, expected: usize) {
    let mut query = world.query_filtered::<&A, F>();
    let what = std::any::type_name::<F>();
    for skip in [0, 1, 5] {
        assert_exact_iter(query.iter(world), expected, skip, what);
    }
    // combinations: the count (their size_hint is checked in the next test)
    assert_eq!(query.iter_combinations::<1>(world).count(), choose(expected, 1), "{what} K=1");
    assert_eq!(query.iter_combinations::<2>(world).count(), choose(expected, 2), "{what} K=2");
    assert_eq!(query.iter_combinations::<5>(world).count(), choose(expected, 5), "{what} K=5");
    assert_eq!(query.iter_combinations::<43>(world).count(), choose(expected, 43), "{what} K=43");
    assert_eq!(query.iter_combinations::<64>(world).count(), choose(expected, 64), "{what} K=64");
}

/// The fixture of Bevy's `query_filtered_exactsizeiterator_len` (10 entities).
fn exactsize_world() -> World {
    let mut world = World::new();
    world.spawn((A(1), B(1), C(1)));
    world.spawn((A(2), B(2)));
    world.spawn((A(3), B(3)));
    world.spawn((A(4), C(4)));
    world.spawn((A(5), C(5)));
    world.spawn((A(6), C(6)));
    world.spawn(A(7));
    world.spawn(A(8));
    world.spawn(A(9));
    world.spawn(A(10));
    world
}

/// Ports bevy_ecs `query::tests::query_filtered_exactsizeiterator_len` (the
/// iterator's exact size hint and count for archetypal filters, and the
/// combination counts; `len()` becomes `size_hint()`, see the module docs).
#[test]
fn query_filtered_exactsizeiterator_len() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    assert_all_sizes_equal::<With<B>>(&mut world, 1);
    assert_all_sizes_equal::<Without<B>>(&mut world, 2);

    let mut world = exactsize_world();
    assert_all_sizes_equal::<With<B>>(&mut world, 3);
    assert_all_sizes_equal::<With<C>>(&mut world, 4);
    assert_all_sizes_equal::<Without<B>>(&mut world, 7);
    assert_all_sizes_equal::<Without<C>>(&mut world, 6);

    assert_all_sizes_equal::<(With<B>, With<C>)>(&mut world, 1);
    assert_all_sizes_equal::<(With<B>, Without<C>)>(&mut world, 2);
    assert_all_sizes_equal::<(Without<B>, With<C>)>(&mut world, 3);
    assert_all_sizes_equal::<(Without<B>, Without<C>)>(&mut world, 4);

    assert_all_sizes_equal::<Or<(With<B>, With<C>)>>(&mut world, 6);
    assert_all_sizes_equal::<Or<(With<B>, Without<C>)>>(&mut world, 7);
    assert_all_sizes_equal::<Or<(Without<B>, With<C>)>>(&mut world, 8);
    assert_all_sizes_equal::<Or<(Without<B>, Without<C>)>>(&mut world, 9);
    assert_all_sizes_equal::<(Or<(With<B>,)>, Or<(With<C>,)>)>(&mut world, 1);
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, With<D>)>>(&mut world, 6);

    for i in 11..14 {
        world.spawn((A(i), D(i)));
    }
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, With<D>)>>(&mut world, 9);
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, Without<D>)>>(&mut world, 10);

    for i in 14..20 {
        world.spawn((C(i), D(i)));
    }
    let mut q = world.query_filtered::<Entity, (With<C>, With<D>)>();
    for skip in [0, 1, 5] {
        assert_exact_iter(q.iter(&world), 6, skip, "Entity, (With<C>, With<D>)");
    }
}

/// Ports the combination half of bevy_ecs `query::tests::query_filtered_exactsizeiterator_len`:
/// Bevy's `QueryCombinationIter::size_hint` is exact (n choose K) for archetypal filters,
/// also after some items were taken.
#[test]
fn query_filtered_exactsizeiterator_len_combinations() {
    let mut world = exactsize_world();
    let mut q = world.query_filtered::<&A, Or<(With<B>, With<C>)>>();
    for skip in [0, 1, 5] {
        assert_exact_iter(q.iter_combinations::<2>(&world), choose(6, 2), skip, "K=2");
        assert_exact_iter(q.iter_combinations::<5>(&world), choose(6, 5), skip, "K=5");
        assert_exact_iter(q.iter_combinations::<43>(&world), 0, skip, "K=43");
    }
    let mut b = world.query::<&B>();
    assert_exact_iter(b.iter_combinations::<3>(&world), choose(3, 3), 0, "B K=3");
}

/// Ports bevy_ecs `query::tests::query_iter_combinations`.
#[test]
fn query_iter_combinations() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    world.spawn(A(4));

    let values: HashSet<[&A; 2]> = world.query::<&A>().iter_combinations(&world).collect();
    check_combinations(
        values,
        HashSet::from([[&A(1), &A(2)], [&A(1), &A(3)], [&A(1), &A(4)], [&A(2), &A(3)], [&A(2), &A(4)], [&A(3), &A(4)]]),
    );
    let mut a_query = world.query::<&A>();
    let values: HashSet<[&A; 3]> = a_query.iter_combinations(&world).collect();
    check_combinations(
        values,
        HashSet::from([[&A(1), &A(2), &A(3)], [&A(1), &A(2), &A(4)], [&A(1), &A(3), &A(4)], [&A(2), &A(3), &A(4)]]),
    );

    let mut b_query = world.query::<&B>();
    let values: Vec<[&B; 2]> = b_query.iter_combinations(&world).collect();
    assert_eq!(values, Vec::<[&B; 2]>::new());
}

/// Ports the `size_hint` check on an empty combination of bevy_ecs
/// `query::tests::query_iter_combinations` (`(0, Some(0))`).
#[test]
fn query_iter_combinations_empty_size_hint() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    let mut b_query = world.query::<&B>();
    assert_eq!(b_query.iter_combinations::<2>(&world).size_hint(), (0, Some(0)));
}

/// Ports bevy_ecs `query::tests::query_filtered_iter_combinations`. The `Added`
/// part is adapted: Bevy's `world.clear_trackers()` becomes a run of the kept
/// state (`Added` is relative to the state's previous `iter`); `iter_combinations`
/// itself does not start a run.
#[test]
fn query_filtered_iter_combinations() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    world.spawn(A(4));

    let mut a_wout_b = world.query_filtered::<&A, Without<B>>();
    let values: HashSet<[&A; 2]> = a_wout_b.iter_combinations(&world).collect();
    check_combinations(values, HashSet::from([[&A(2), &A(3)], [&A(2), &A(4)], [&A(3), &A(4)]]));

    let values: HashSet<[&A; 3]> = a_wout_b.iter_combinations(&world).collect();
    check_combinations(values, HashSet::from([[&A(2), &A(3), &A(4)]]));

    let mut query = world.query_filtered::<&A, Or<(With<A>, With<B>)>>();
    let values: HashSet<[&A; 2]> = query.iter_combinations(&world).collect();
    check_combinations(
        values,
        HashSet::from([[&A(1), &A(2)], [&A(1), &A(3)], [&A(1), &A(4)], [&A(2), &A(3)], [&A(2), &A(4)], [&A(3), &A(4)]]),
    );

    let mut query = world.query_filtered::<&mut A, Without<B>>();
    let mut combinations = query.iter_combinations_mut(&mut world);
    while let Some([mut a, mut b, mut c]) = combinations.fetch_next() {
        a.0 += 10;
        b.0 += 100;
        c.0 += 1000;
    }
    let values: HashSet<[&A; 3]> = a_wout_b.iter_combinations(&world).collect();
    check_combinations(values, HashSet::from([[&A(12), &A(103), &A(1004)]]));

    // Added<T>
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn((A(2), B(2)));
    world.spawn((A(3), B(3)));
    world.spawn((A(4), B(4)));
    let mut query_added = world.query_filtered::<&A, Added<A>>();

    query_added.iter(&world).for_each(drop); // Bevy: world.clear_trackers()
    world.spawn(A(5));
    assert_eq!(query_added.iter_combinations::<2>(&world).count(), 0);

    query_added.iter(&world).for_each(drop);
    world.spawn(A(6));
    world.spawn(A(7));
    assert_eq!(query_added.iter_combinations::<2>(&world).count(), 1);

    query_added.iter(&world).for_each(drop);
    world.spawn(A(8));
    world.spawn(A(9));
    world.spawn(A(10));
    assert_eq!(query_added.iter_combinations::<2>(&world).count(), 3);
}

/// Ports bevy_ecs `query::tests::query_iter_combinations_sparse`.
#[test]
fn query_iter_combinations_sparse() {
    let mut world = World::new();
    world.spawn_batch((1..=4).map(|i| (Sparse(i),))).for_each(drop);
    let values: HashSet<[&Sparse; 3]> = world.query::<&Sparse>().iter_combinations(&world).collect();
    check_combinations(
        values,
        HashSet::from([
            [&Sparse(1), &Sparse(2), &Sparse(3)],
            [&Sparse(1), &Sparse(2), &Sparse(4)],
            [&Sparse(1), &Sparse(3), &Sparse(4)],
            [&Sparse(2), &Sparse(3), &Sparse(4)],
        ]),
    );
}

/// Ports bevy_ecs `query::tests::get_many_only_mut_checks_duplicates`. Adapted:
/// our read-only `get_many` also rejects a duplicate (documented on
/// `QueryState::get_many`), where Bevy returns both items.
#[test]
fn get_many_only_mut_checks_duplicates() {
    let mut world = World::new();
    let id = world.spawn(A(10)).id();
    let mut query_state = world.query::<&mut A>();
    assert_eq!(query_state.get_many(&world, [id, id]), Err(QueryError::AliasedMutability(id)));
    assert!(query_state.get_many_mut(&mut world, [id, id]).is_err());
    let [a] = query_state.get_many(&world, [id]).unwrap();
    assert_eq!(a, &A(10));
}

/// Ports bevy_ecs `query::tests::multi_storage_query`.
#[test]
fn multi_storage_query() {
    let mut world = World::new();
    world.spawn((Sparse(1), B(2)));
    world.spawn(Sparse(2));

    let values = world.query::<&Sparse>().iter(&world).collect::<HashSet<&Sparse>>();
    assert!(values.contains(&Sparse(1)));
    assert!(values.contains(&Sparse(2)));

    for (_a, mut b) in world.query::<(&Sparse, &mut B)>().iter_mut(&mut world) {
        b.0 = 3;
    }
    let values = world.query::<&B>().iter(&world).collect::<Vec<&B>>();
    assert_eq!(values, vec![&B(3)]);
}

/// Ports bevy_ecs `query::tests::has_query`.
#[test]
fn has_query() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn((A(3), B(1)));
    world.spawn(A(4));

    let values: HashSet<(&A, bool)> = world.query::<(&A, Has<B>)>().iter(&world).collect();
    assert_eq!(values, HashSet::from([(&A(1), true), (&A(2), false), (&A(3), true), (&A(4), false)]));
}

/// `Has<T>` on a sparse component (Bevy's `has_query` with the storage of
/// `dense_query_over_option_is_buggy`'s `Sparse`: Bevy expects presence to be seen).
#[test]
fn has_query_sparse() {
    let mut world = World::new();
    world.spawn((A(1), Sparse(1)));
    world.spawn(A(2));
    let values: HashSet<(&A, bool)> = world.query::<(&A, Has<Sparse>)>().iter(&world).collect();
    assert_eq!(values, HashSet::from([(&A(1), true), (&A(2), false)]));
    let opt: HashSet<(&A, Option<&Sparse>)> = world.query::<(&A, Option<&Sparse>)>().iter(&world).collect();
    assert_eq!(opt, HashSet::from([(&A(1), Some(&Sparse(1))), (&A(2), None)]));
}

/// The world of Bevy's `derived_worldqueries`.
fn derived_world() -> World {
    let mut world = World::new();
    world.spawn((A(10), B(18), C(3), Sparse(4)));
    world.spawn((A(101), B(148), C(13)));
    world.spawn((A(51), B(46), Sparse(72)));
    world.spawn((A(398), C(6), Sparse(9)));
    world.spawn((B(11), C(28), Sparse(92)));
    world.spawn((C(18348), Sparse(101)));
    world.spawn((B(839), Sparse(5)));
    world.spawn((B(6721), C(122)));
    world.spawn((A(220), Sparse(63)));
    world.spawn((A(1092), C(382)));
    world.spawn((A(2058), B(3019)));
    world.spawn((B(38), C(8), Sparse(100)));
    world.spawn((A(111), C(52), Sparse(1)));
    world.spawn((A(599), B(39), Sparse(13)));
    world.spawn((A(55), B(66), C(77)));
    world.spawn_empty();
    world
}

#[derive(QueryData)]
struct CustomAB<'w> {
    a: &'w A,
    b: &'w B,
}

#[derive(QueryData)]
struct FancyParam<'w> {
    e: Entity,
    b: &'w B,
    opt: Option<&'w Sparse>,
}

#[derive(QueryData)]
struct MaybeBSparse<'w> {
    blah: Option<(&'w B, &'w Sparse)>,
}

#[derive(QueryFilter)]
struct AOrBFilter {
    _a: Or<(With<A>, With<B>)>,
}

#[derive(QueryFilter)]
struct NoSparseThatsSlow {
    _no: Without<Sparse>,
}

#[derive(QueryFilter)]
struct CSparseFilter {
    _tuple_structs_pls: With<C>,
    _ugh: With<Sparse>,
}

#[derive(QueryFilter)]
struct WithoutComps {
    _1: Without<A>,
    _2: Without<B>,
    _3: Without<C>,
}

/// Ports bevy_ecs `query::tests::derived_worldqueries` (without its `AnyOf` part:
/// we have no `AnyOf`).
#[test]
fn derived_worldqueries() {
    let mut world = derived_world();
    {
        let custom: Vec<_> = world.query::<CustomAB>().iter(&world).map(|item| (*item.a, *item.b)).collect();
        let normal: Vec<_> = world.query::<(&A, &B)>().iter(&world).map(|(a, b)| (*a, *b)).collect();
        assert_eq!(custom, normal);
        assert_eq!(custom.len(), 6);
    }
    {
        let custom: Vec<_> =
            world.query::<FancyParam>().iter(&world).map(|fancy| (fancy.e, *fancy.b, fancy.opt.copied())).collect();
        let normal: Vec<_> = world
            .query::<(Entity, &B, Option<&Sparse>)>()
            .iter(&world)
            .map(|(e, b, opt)| (e, *b, opt.copied()))
            .collect();
        assert_eq!(custom, normal);
    }
    {
        let custom: Vec<_> =
            world.query::<MaybeBSparse>().iter(&world).map(|m| m.blah.map(|(b, s)| (*b, *s))).collect();
        let normal: Vec<_> =
            world.query::<Option<(&B, &Sparse)>>().iter(&world).map(|m| m.map(|(b, s)| (*b, *s))).collect();
        assert_eq!(custom, normal);
        assert_eq!(normal.iter().filter(|m| m.is_some()).count(), 6);
    }
    {
        let custom: Vec<Entity> =
            world.query_filtered::<Entity, (AOrBFilter, NoSparseThatsSlow)>().iter(&world).collect();
        let normal: Vec<Entity> =
            world.query_filtered::<Entity, (Or<(With<A>, With<B>)>, Without<Sparse>)>().iter(&world).collect();
        assert_eq!(custom, normal);
        assert_eq!(normal.len(), 5);
    }
    {
        let custom: Vec<Entity> = world.query_filtered::<Entity, CSparseFilter>().iter(&world).collect();
        let normal: Vec<Entity> = world.query_filtered::<Entity, (With<C>, With<Sparse>)>().iter(&world).collect();
        assert_eq!(custom, normal);
        assert_eq!(normal.len(), 6);
    }
    {
        let custom: Vec<Entity> = world.query_filtered::<Entity, WithoutComps>().iter(&world).collect();
        let normal: Vec<Entity> =
            world.query_filtered::<Entity, (Without<A>, Without<B>, Without<C>)>().iter(&world).collect();
        assert_eq!(custom, normal);
        assert_eq!(normal.len(), 1, "only the empty entity");
    }
    {
        let custom: Vec<_> = world
            .query::<CustomAB>()
            .iter_combinations::<2>(&world)
            .map(|[i0, i1]| [(*i0.a, *i0.b), (*i1.a, *i1.b)])
            .collect();
        let normal: Vec<_> = world
            .query::<(&A, &B)>()
            .iter_combinations(&world)
            .map(|[(a0, b0), (a1, b1)]| [(*a0, *b0), (*a1, *b1)])
            .collect();
        assert_eq!(custom, normal);
        assert_eq!(normal.len(), choose(6, 2));
    }
}

#[derive(QueryData)]
struct NamedQuery<'w> {
    id: Entity,
    a: &'w A,
}
#[derive(QueryData)]
struct NamedPair<'w> {
    a: &'w A,
    b: &'w B,
}

#[derive(QueryData)]
struct TupleQuery<'w>(&'w A, &'w B);
#[derive(QueryData)]
struct UnitQuery;
#[derive(QueryData)]
#[query_data(mutable)]
struct TupleMut<'w>(Entity, &'w mut A);

/// Ports bevy_ecs `query::fetch::tests::world_query_struct_variants`: named,
/// tuple and unit structs derive `QueryData` (a tuple struct's item is a tuple
/// struct too). Runs the system too, and writes through a mutable tuple struct.
#[test]
fn world_query_struct_variants() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(2))).id();
    world.spawn(A(3));
    let seen = world.run_system_once(|q: Query<(NamedQuery, NamedPair, TupleQuery, UnitQuery)>| {
        q.iter()
            .map(|(named, pair, tuple, _)| (named.id, named.a.0, pair.a.0, pair.b.0, tuple.0.0, tuple.1.0))
            .collect::<Vec<_>>()
    });
    assert_eq!(seen, vec![(e, 1, 1, 2, 1, 2)]);
    world.run_system_once(|mut q: Query<TupleMut>| {
        for mut item in q.iter_mut() {
            item.1.0 += 10;
        }
        // The read-only form is a tuple struct too.
        assert_eq!(q.iter().map(|item| item.1.0).sum::<usize>(), 11 + 13);
    });
}

/// Ports bevy_ecs `query::tests::mut_to_immut_query_methods_have_immut_item`: the
/// read-only methods of a `&mut` query yield `&T` (a compile check), on a state and
/// on a system's `Query`.
#[test]
fn mut_to_immut_query_methods_have_immut_item() {
    #[derive(Component)]
    struct Foo;

    let mut world = World::new();
    let e = world.spawn(Foo).id();

    let mut q = world.query::<&mut Foo>();
    let _: Option<&Foo> = q.iter(&world).next();
    let _: Option<[&Foo; 2]> = q.iter_combinations::<2>(&world).next();
    q.iter(&world).for_each(|_: &Foo| ());
    let _: Option<&Foo> = q.get(&world, e).ok();
    let _: Option<[&Foo; 1]> = q.get_many(&world, [e]).ok();
    let _: Option<&Foo> = q.single(&world).ok();
    let _: &Foo = q.single(&world).unwrap();

    let ok = world.run_system_once(move |q: Query<&mut Foo>| {
        let _: Option<&Foo> = q.iter().next();
        let _: Option<[&Foo; 2]> = q.iter_combinations::<2>().next();
        q.iter().for_each(|_: &Foo| ());
        let _: Option<&Foo> = q.get(e).ok();
        let _: Option<[&Foo; 1]> = q.get_many([e]).ok();
        let _: Option<&Foo> = q.single().ok();
        let _: &Foo = q.single().unwrap();
        true
    });
    assert!(ok);
}

fn propagate_system(mut query: Query<(&A, &mut B), Changed<A>>) {
    query.par_iter_mut().for_each(|(a, mut b)| {
        b.0 = a.0;
    });
}

fn modify_system(mut query: Query<&mut A>) {
    for mut a in &mut query {
        a.0 = 2;
    }
}

/// Ports bevy_ecs `query::tests::par_iter_mut_change_detection` (regression test
/// for bevy#8029): a `Changed` filter in `par_iter_mut` sees a later system's write
/// on the next run.
#[test]
fn par_iter_mut_change_detection() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    let mut schedule = Schedule::new();
    schedule.add_systems((propagate_system, modify_system).chain());
    schedule.run(&mut world);
    world.clear_trackers();
    schedule.run(&mut world);
    world.clear_trackers();
    let values = world.query::<&B>().iter(&world).collect::<Vec<&B>>();
    assert_eq!(values, vec![&B(2)]);
}

// ===== lib.rs =========================================================================

/// Ports bevy_ecs `tests::query_all`.
#[test]
fn query_all() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456))).id();
    let ents =
        world.query::<(Entity, &A, &TableStored)>().iter(&world).map(|(e, &i, &s)| (e, i, s)).collect::<Vec<_>>();
    assert_eq!(ents, &[(e, A(123), TableStored("abc")), (f, A(456), TableStored("def"))]);
}

/// Ports bevy_ecs `tests::query_all_for_each`.
#[test]
fn query_all_for_each() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456))).id();
    let mut results = Vec::new();
    world.query::<(Entity, &A, &TableStored)>().iter(&world).for_each(|(e, &i, &s)| results.push((e, i, s)));
    assert_eq!(results, &[(e, A(123), TableStored("abc")), (f, A(456), TableStored("def"))]);
}

/// Ports bevy_ecs `tests::query_single_component`.
#[test]
fn query_single_component() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456), B(1))).id();
    let ents = world.query::<(Entity, &A)>().iter(&world).map(|(e, &i)| (e, i)).collect::<HashSet<_>>();
    assert_eq!(ents, HashSet::from([(e, A(123)), (f, A(456))]));
}

/// Ports bevy_ecs `tests::stateful_query_handles_new_archetype`.
#[test]
fn stateful_query_handles_new_archetype() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let mut query = world.query::<(Entity, &A)>();
    let ents = query.iter(&world).map(|(e, &i)| (e, i)).collect::<Vec<_>>();
    assert_eq!(ents, &[(e, A(123))]);

    let f = world.spawn((TableStored("def"), A(456), B(1))).id();
    let ents = query.iter(&world).map(|(e, &i)| (e, i)).collect::<Vec<_>>();
    assert_eq!(ents, &[(e, A(123)), (f, A(456))]);
}

/// Ports bevy_ecs `tests::query_single_component_for_each`.
#[test]
fn query_single_component_for_each() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456), B(1))).id();
    let mut results = HashSet::new();
    world.query::<(Entity, &A)>().iter(&world).for_each(|(e, &i)| {
        results.insert((e, i));
    });
    assert_eq!(results, HashSet::from([(e, A(123)), (f, A(456))]));
}

/// Ports bevy_ecs `tests::par_for_each_dense`.
#[test]
fn par_for_each_dense() {
    let mut world = World::new();
    let e1 = world.spawn(A(1)).id();
    let e2 = world.spawn(A(2)).id();
    let e3 = world.spawn(A(3)).id();
    let e4 = world.spawn((A(4), B(1))).id();
    let e5 = world.spawn((A(5), B(1))).id();
    let results = Arc::new(Mutex::new(Vec::new()));
    world.query::<(Entity, &A)>().par_iter(&world).for_each(|(e, &A(i))| {
        results.lock().unwrap().push((e, i));
    });
    results.lock().unwrap().sort();
    let mut expected = [(e1, 1), (e2, 2), (e3, 3), (e4, 4), (e5, 5)];
    expected.sort();
    assert_eq!(&*results.lock().unwrap(), &expected);
}

/// Ports bevy_ecs `tests::par_for_each_sparse`.
#[test]
fn par_for_each_sparse() {
    let mut world = World::new();
    let e1 = world.spawn(SparseStored(1)).id();
    let e2 = world.spawn(SparseStored(2)).id();
    let e3 = world.spawn(SparseStored(3)).id();
    let e4 = world.spawn((SparseStored(4), A(1))).id();
    let e5 = world.spawn((SparseStored(5), A(1))).id();
    let results = Arc::new(Mutex::new(Vec::new()));
    world
        .query::<(Entity, &SparseStored)>()
        .par_iter(&world)
        .for_each(|(e, &SparseStored(i))| results.lock().unwrap().push((e, i)));
    results.lock().unwrap().sort();
    let mut expected = [(e1, 1), (e2, 2), (e3, 3), (e4, 4), (e5, 5)];
    expected.sort();
    assert_eq!(&*results.lock().unwrap(), &expected);
}

/// Ports bevy_ecs `tests::query_missing_component`.
#[test]
fn query_missing_component() {
    let mut world = World::new();
    world.spawn((TableStored("abc"), A(123)));
    world.spawn((TableStored("def"), A(456)));
    assert!(world.query::<(&B, &A)>().iter(&world).next().is_none());
}

/// Ports bevy_ecs `tests::query_sparse_component`.
#[test]
fn query_sparse_component() {
    let mut world = World::new();
    world.spawn((TableStored("abc"), A(123)));
    let f = world.spawn((TableStored("def"), A(456), B(1))).id();
    let ents = world.query::<(Entity, &B)>().iter(&world).map(|(e, &b)| (e, b)).collect::<Vec<_>>();
    assert_eq!(ents, &[(f, B(1))]);
}

/// Ports bevy_ecs `tests::query_filter_with`.
#[test]
fn query_filter_with() {
    let mut world = World::new();
    world.spawn((A(123), B(1)));
    world.spawn(A(456));
    let result = world.query_filtered::<&A, With<B>>().iter(&world).cloned().collect::<Vec<_>>();
    assert_eq!(result, vec![A(123)]);
}

/// Ports bevy_ecs `tests::query_filter_with_for_each`.
#[test]
fn query_filter_with_for_each() {
    let mut world = World::new();
    world.spawn((A(123), B(1)));
    world.spawn(A(456));
    let mut results = Vec::new();
    world.query_filtered::<&A, With<B>>().iter(&world).for_each(|i| results.push(*i));
    assert_eq!(results, vec![A(123)]);
}

/// Ports bevy_ecs `tests::query_filter_with_sparse_for_each`.
#[test]
fn query_filter_with_sparse_for_each() {
    let mut world = World::new();
    world.spawn((A(123), SparseStored(321)));
    world.spawn(A(456));
    let mut results = Vec::new();
    world.query_filtered::<&A, With<SparseStored>>().iter(&world).for_each(|i| results.push(*i));
    assert_eq!(results, vec![A(123)]);
}

/// Ports bevy_ecs `tests::query_filter_without`.
#[test]
fn query_filter_without() {
    let mut world = World::new();
    world.spawn((A(123), B(321)));
    world.spawn(A(456));
    let result = world.query_filtered::<&A, Without<B>>().iter(&world).cloned().collect::<Vec<_>>();
    assert_eq!(result, vec![A(456)]);
}

/// Ports bevy_ecs `tests::query_optional_component_table`.
#[test]
fn query_optional_component_table() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456), B(1))).id();
    // this should be skipped
    world.spawn(TableStored("abc"));
    let ents = world
        .query::<(Entity, Option<&B>, &A)>()
        .iter(&world)
        .map(|(e, b, &i)| (e, b.copied(), i))
        .collect::<HashSet<_>>();
    assert_eq!(ents, HashSet::from([(e, None, A(123)), (f, Some(B(1)), A(456))]));
}

/// Ports bevy_ecs `tests::query_optional_component_sparse`.
#[test]
fn query_optional_component_sparse() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456), SparseStored(1))).id();
    let ents = world
        .query::<(Entity, Option<&SparseStored>, &A)>()
        .iter(&world)
        .map(|(e, b, &i)| (e, b.copied(), i))
        .collect::<HashSet<_>>();
    assert_eq!(ents, HashSet::from([(e, None, A(123)), (f, Some(SparseStored(1)), A(456))]));
}

/// Ports bevy_ecs `tests::query_get`.
#[test]
fn query_get() {
    let mut world = World::new();
    let a = world.spawn((TableStored("abc"), A(123))).id();
    let b = world.spawn((TableStored("def"), A(456))).id();
    let c = world.spawn((TableStored("ghi"), A(789), B(1))).id();

    let mut i32_query = world.query::<&A>();
    assert_eq!(i32_query.get(&world, a).unwrap().0, 123);
    assert_eq!(i32_query.get(&world, b).unwrap().0, 456);

    let mut i32_bool_query = world.query::<(&A, &B)>();
    assert!(i32_bool_query.get(&world, a).is_err());
    assert_eq!(i32_bool_query.get(&world, c).unwrap(), (&A(789), &B(1)));
    assert!(world.despawn(a));
    assert!(i32_query.get(&world, a).is_err());
}

/// Ports bevy_ecs `tests::changed_query`. Adapted: a kept query state stands in
/// for Bevy's fresh query after `world.clear_trackers()`.
#[test]
fn changed_query() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0))).id();
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e1]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![]);
    *world.get_mut::<A>(e1).unwrap() = A(1);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e1]);
}

/// Ports bevy_ecs `tests::exact_size_query` (`len()` as an exact `size_hint()`).
#[test]
fn exact_size_query() {
    let mut world = World::new();
    world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0), Tag));
    world.spawn(Tag);
    let mut query = world.query::<(&A, &B)>();
    assert_eq!(query.iter(&world).size_hint(), (3, Some(3)));
}

/// `exact_size_query` over a sparse component: Bevy's `QueryIter` is an
/// `ExactSizeIterator` for every archetypal filter whatever the storage, so
/// `len()` is 3 here. Adapted: our sparse components do not fragment tables
/// (documented on `StorageKind::Sparse`), so their rows are checked one by
/// one and the size hint is a bound, `(0, Some(rows of the matched tables))`;
/// `len()` counts exactly.
#[test]
fn exact_size_query_sparse() {
    let mut world = World::new();
    world.spawn((A(0), Sparse(0)));
    world.spawn((A(0), Sparse(1)));
    world.spawn((A(0), Sparse(2), Tag));
    world.spawn(Tag);
    world.spawn(A(1));
    let mut query = world.query::<(&A, &Sparse)>();
    let (lower, upper) = query.iter(&world).size_hint();
    assert!(lower <= 3 && upper.is_some_and(|upper| upper >= 3), "{lower} {upper:?}");
    assert_eq!(query.iter(&world).len(), 3);
    let mut query = world.query_filtered::<&A, With<Sparse>>();
    let (lower, upper) = query.iter(&world).size_hint();
    assert!(lower <= 3 && upper.is_some_and(|upper| upper >= 3), "{lower} {upper:?}");
    assert_eq!(query.iter(&world).len(), 3);
}

/// Ports bevy_ecs `tests::test_is_archetypal_size_hints`: the lower bound is exact
/// for archetypal filters and 0 for `Added`/`Changed`.
#[test]
fn test_is_archetypal_size_hints() {
    let mut world = World::new();
    macro_rules! query_min_size {
        ($query:ty, $filter:ty) => {
            world.query_filtered::<$query, $filter>().iter(&world).size_hint().0
        };
    }
    world.spawn((A(1), B(1), Tag));
    world.spawn((A(1), Tag));
    world.spawn((A(1), B(1)));
    world.spawn((B(1), Tag));
    world.spawn(A(1));
    world.spawn(Tag);
    assert_eq!(2, query_min_size![(), (With<A>, Without<B>)]);
    assert_eq!(3, query_min_size![&B, Or<(With<A>, With<Tag>)>]);
    assert_eq!(1, query_min_size![&B, (With<A>, With<Tag>)]);
    assert_eq!(1, query_min_size![(&A, &B), With<Tag>]);
    assert_eq!(4, query_min_size![&A, ()], "Simple Archetypal");
    assert_eq!(4, query_min_size![Ref<A>, ()]);
    assert_eq!(0, query_min_size![(), Added<A>], "Simple Added");
    assert_eq!(0, query_min_size![(), Changed<A>], "Simple Changed");
    assert_eq!(0, query_min_size![(&A, &B), Changed<A>]);
    assert_eq!(0, query_min_size![&A, (Changed<A>, With<B>)]);
    assert_eq!(0, query_min_size![(&A, &B), Or<(Changed<A>, Changed<B>)>]);
}

/// Ports bevy_ecs `tests::multiple_worlds_same_query_get`.
#[test]
#[should_panic(expected = "used with a world other than the one it was built for")]
fn multiple_worlds_same_query_get() {
    let mut world_a = World::new();
    let mut world_b = World::new();
    let e = world_b.spawn(A(1)).id();
    let mut query = world_a.query::<&A>();
    let _ = query.get(&world_a, e);
    let _ = query.get(&world_b, e);
}

/// Ports bevy_ecs `tests::multiple_worlds_same_query_for_each`.
#[test]
#[should_panic(expected = "used with a world other than the one it was built for")]
fn multiple_worlds_same_query_for_each() {
    let mut world_a = World::new();
    let world_b = World::new();
    let mut query = world_a.query::<&A>();
    query.iter(&world_a).for_each(|_| {});
    query.iter(&world_b).for_each(|_| {});
}

// ===== query/state.rs =================================================================

/// Ports bevy_ecs `query::state::tests::right_world_get_many`.
#[test]
#[should_panic(expected = "used with a world other than the one it was built for")]
fn right_world_get_many() {
    let mut world_1 = World::new();
    let world_2 = World::new();
    let mut query_state = world_1.query::<Entity>();
    let _panics = query_state.get_many(&world_2, []);
}

/// Ports bevy_ecs `query::state::tests::right_world_get_many_mut`.
#[test]
#[should_panic(expected = "used with a world other than the one it was built for")]
fn right_world_get_many_mut() {
    let mut world_1 = World::new();
    let mut world_2 = World::new();
    let mut query_state = world_1.query::<Entity>();
    let _panics = query_state.get_many_mut(&mut world_2, []);
}

/// Ports bevy_ecs `query::state::tests::query_respects_default_filters`, with our
/// built-in `Disabled` in place of a registered disabling component (we have no
/// `register_disabling_component` nor `Allow<T>`).
#[test]
fn query_respects_default_filters() {
    let mut world = World::new();
    world.spawn((A(0), B(0), Tag));
    world.spawn((B(0), Disabled, Tag));
    world.spawn((Disabled, Tag));

    // Without<Disabled> implicitly: only the first entity
    assert_eq!(1, world.query::<&Tag>().iter(&world).count());
    // With<Disabled> matches the last two entities
    assert_eq!(2, world.query_filtered::<&Tag, With<Disabled>>().iter(&world).count());
    // Has bypasses the filter entirely
    assert_eq!(3, world.query::<(&Tag, Has<Disabled>)>().iter(&world).count());
    // Other filters are still respected
    assert_eq!(1, world.query_filtered::<(&Tag, Has<Disabled>), Without<B>>().iter(&world).count());
}

// ===== change_detection/mod.rs =======================================================

/// Ports bevy_ecs `change_detection::tests::change_expiration`: a change older
/// than `MAX_CHANGE_AGE` is no longer seen as changed by a system that ran before.
/// Adapted: Bevy's second system (initialized but never run) also reports
/// `false`; here a system's first run sees every stored row as changed, however
/// old (documented on `LastRun::baseline` and in API.md), so it reports `true`.
#[test]
fn change_expiration() {
    fn change_detected(query: Option<Single<Ref<Tag>>>) -> bool {
        query.unwrap().is_changed()
    }
    fn change_expired(query: Option<Single<Ref<Tag>>>) -> bool {
        query.unwrap().is_changed()
    }
    let mut world = World::new();
    world.spawn(Tag);
    let detected = world.register_system(change_detected);
    let expired = world.register_system(change_expired);
    assert!(world.run_system(detected).unwrap());
    world.advance_change_tick(MAX_CHANGE_AGE);
    assert!(!world.run_system(detected).unwrap(), "expired for a system that ran before");
    assert!(world.run_system(expired).unwrap(), "a first run sees every row as changed (ours)");
    assert!(!world.run_system(expired).unwrap());
}

/// Ports bevy_ecs `change_detection::tests::change_tick_wraparound`: with the
/// 32-bit clock wrapped round between the previous run and the spawn, the
/// value is still changed. (We cannot set `last_change_tick` directly; the clock is
/// advanced to just before `u32::MAX` instead.)
#[test]
fn change_tick_wraparound() {
    let mut world = World::new();
    let mut query = world.query::<Ref<Tag>>();
    query.iter(&world).for_each(drop);
    let now = world.change_tick().get();
    world.advance_change_tick(u32::MAX - now - 1);
    world.check_change_ticks();
    query.iter(&world).for_each(drop); // previous run just before the wrap
    world.advance_change_tick(3); // wraps the 32-bit counter
    assert!(world.change_tick().get() < 10, "the 32-bit tick wrapped");
    world.spawn(Tag);
    world.increment_change_tick();
    assert!(query.single(&world).unwrap().is_changed());
}

/// Ports bevy_ecs `change_detection::tests::change_tick_scan`: the age check clamps
/// ticks older than `MAX_CHANGE_AGE` to exactly that age.
#[test]
fn change_tick_scan() {
    let mut world = World::new();
    let e = world.spawn(Tag).id();
    world.advance_change_tick(MAX_CHANGE_AGE + CHECK_TICK_THRESHOLD);
    let change_tick = world.change_tick().get();
    let ticks = world.component_ticks::<Tag>(e).unwrap();
    assert!(change_tick.wrapping_sub(ticks.added.get()) > MAX_CHANGE_AGE);
    assert!(change_tick.wrapping_sub(ticks.changed.get()) > MAX_CHANGE_AGE);

    assert!(world.check_change_ticks());
    let ticks = world.component_ticks::<Tag>(e).unwrap();
    assert_eq!(change_tick.wrapping_sub(ticks.added.get()), MAX_CHANGE_AGE);
    assert_eq!(change_tick.wrapping_sub(ticks.changed.get()), MAX_CHANGE_AGE);
    let mut query = world.query::<Ref<Tag>>();
    query.iter(&world).for_each(drop);
    assert!(!query.single(&world).unwrap().is_changed());
}

/// Ports bevy_ecs `change_detection::tests::set_if_neq` for a component (the
/// resource form is ported in ported_bevy_world.rs): `set_if_neq` with an equal
/// value does not mark the component changed, a different value does.
#[test]
fn set_if_neq_component_in_iter_mut() {
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    let mut q = world.query::<&mut A>();
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    q.iter(&world).for_each(drop); // the first run of `q` would see A as changed
    changed.iter(&world).for_each(drop);
    for mut a in q.iter_mut(&mut world) {
        assert!(!a.is_changed(), "must begin unchanged");
        a.set_if_neq(A(0));
        assert!(!a.is_changed(), "equal value: not changed");
    }
    assert_eq!(changed.iter(&world).count(), 0);
    for mut a in q.iter_mut(&mut world) {
        a.set_if_neq(A(3));
        assert!(a.is_changed(), "different value: changed");
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
}

/// Ports bevy_ecs `change_detection::tests::map_mut`'s point with what we have:
/// writing through `bypass_change_detection` does not flag a change, `set_changed`
/// does, and a write to one field flags the whole component.
#[test]
fn mut_field_write_and_bypass() {
    let mut world = World::new();
    let e = world.spawn((A(0), B(0))).id();
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    changed.iter(&world).for_each(drop);
    {
        let mut a = world.get_mut::<A>(e).unwrap();
        a.bypass_change_detection().0 = 5;
    }
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(world.get::<A>(e), Some(&A(5)));
    world.get_mut::<A>(e).unwrap().set_changed();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
    world.get_mut::<A>(e).unwrap().0 += 1;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
}

// ===== system/mod.rs, system/query.rs =================================================

/// Ports bevy_ecs `system::tests::simple_system`.
#[test]
fn simple_system() {
    fn sys(query: Query<&A>, mut count: Local<usize>) -> usize {
        for _a in &query {
            *count += 1;
        }
        *count
    }
    let mut world = World::new();
    world.spawn(A(0));
    let id = world.register_system(sys);
    assert_eq!(world.run_system(id).unwrap(), 1);
}

#[derive(Resource)]
struct EntitiesArray(Vec<Entity>);
const ENTITIES_COUNT: usize = 1000;

fn get_many_system(mut ran: ResMut<SystemRan>, entities: Res<EntitiesArray>, q: Query<&A>) {
    let entities: [Entity; ENTITIES_COUNT] = entities.0.clone().try_into().unwrap();
    for (i, a) in (0..ENTITIES_COUNT).zip(q.get_many(entities).unwrap()) {
        assert_eq!(i, a.0);
    }
    *ran = SystemRan::Yes;
}

fn get_many_mut_system(mut ran: ResMut<SystemRan>, entities: Res<EntitiesArray>, mut q: Query<&mut A>) {
    let entities: [Entity; ENTITIES_COUNT] = entities.0.clone().try_into().unwrap();
    for (i, a) in (0..ENTITIES_COUNT).zip(q.get_many_mut(entities).unwrap()) {
        assert_eq!(i, a.0);
    }
    *ran = SystemRan::Yes;
}

/// Ports bevy_ecs `system::tests::get_many_is_ordered`.
#[test]
fn get_many_is_ordered() {
    let mut world = World::new();
    world.insert_resource(SystemRan::No);
    let ids = (0..ENTITIES_COUNT).map(|i| world.spawn(A(i)).id()).collect();
    world.insert_resource(EntitiesArray(ids));
    run_in_schedule(&mut world, get_many_system);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);
    world.insert_resource(SystemRan::No);
    run_in_schedule(&mut world, get_many_mut_system);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);
}

/// The two queries of `or_param_set_query_system`'s `ParamSet`.
type ChangedOrAdded<'w, 's> =
    (Query<'w, 's, (), Or<(Changed<A>, Changed<B>)>>, Query<'w, 's, (), Or<(Added<A>, Added<B>)>>);

fn or_param_set_query_system(mut ran: ResMut<SystemRan>, mut set: ParamSet<ChangedOrAdded>) {
    let changed = set.p0().iter().count();
    let added = set.p1().iter().count();
    assert_eq!(changed, 1);
    assert_eq!(added, 1);
    *ran = SystemRan::Yes;
}

/// Ports bevy_ecs `system::tests::or_param_set_system` (regression test for bevy#762).
#[test]
fn or_param_set_system() {
    let mut world = World::new();
    world.insert_resource(SystemRan::No);
    world.spawn((A(0), B(0)));
    run_in_schedule(&mut world, or_param_set_query_system);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);
}

/// Ports bevy_ecs `system::query::tests::get_many_uniqueness` through the public
/// `get_many_mut`.
#[test]
fn get_many_uniqueness() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|_| world.spawn_empty().id()).collect();
    let mut query_state = world.query::<Entity>();
    let all: [Entity; 10] = entities.clone().try_into().unwrap();
    assert_eq!(query_state.get_many_mut(&mut world, all), Ok(all));
    assert_eq!(
        query_state.get_many_mut(&mut world, [entities[0], entities[0]]),
        Err(QueryError::AliasedMutability(entities[0]))
    );
    assert_eq!(
        query_state.get_many_mut(&mut world, [entities[0], entities[1], entities[0]]),
        Err(QueryError::AliasedMutability(entities[0]))
    );
    assert_eq!(
        query_state.get_many_mut(&mut world, [entities[9], entities[9]]),
        Err(QueryError::AliasedMutability(entities[9]))
    );
}

/// Ports bevy_ecs `system::tests::system_state_change_detection` with a registered
/// system (we have no `SystemState`): `Option<Single<&A, Changed<A>>>` is `Some`
/// on the first run, `None` on the next, `Some` again after a write.
#[test]
fn system_state_change_detection() {
    let mut world = World::new();
    let entity = world.spawn(A(1)).id();
    let id = world.register_system(|q: Option<Single<&A, Changed<A>>>| q.map(|a| **a));
    assert_eq!(world.run_system(id).unwrap(), Some(A(1)));
    assert_eq!(world.run_system(id).unwrap(), None);
    world.entity_mut(entity).get_mut::<A>().unwrap().0 = 2;
    assert_eq!(world.run_system(id).unwrap(), Some(A(2)));
}

/// Bevy's `Changed` in a `Query` uses the system's last run; `get`, `single` and
/// `contains` agree with iteration (Bevy's `Query::get` applies the filter).
#[test]
fn changed_filter_applies_to_get_and_contains_in_systems() {
    let mut world = World::new();
    let a = world.spawn(A(0)).id();
    let b = world.spawn(A(0)).id();
    let id = world.register_system(move |q: Query<Entity, Changed<A>>| {
        (q.iter().count(), q.get(a).is_ok(), q.contains(b), q.single().ok())
    });
    assert_eq!(world.run_system(id).unwrap(), (2, true, true, None));
    world.get_mut::<A>(b).unwrap().0 = 1;
    assert_eq!(world.run_system(id).unwrap(), (1, false, true, Some(b)));
    assert_eq!(world.run_system(id).unwrap(), (0, false, false, None));
}

/// Bevy's lib.rs "despawn in query" pattern: entities collected from a query are
/// despawned afterwards; the kept state then sees only the survivors.
#[test]
fn despawn_entities_collected_from_a_query() {
    let mut world = World::new();
    let keep = world.spawn((A(1), B(0))).id();
    world.spawn(A(2));
    world.spawn((A(3), Sparse(0)));
    let mut q = world.query_filtered::<Entity, Without<B>>();
    let doomed: Vec<Entity> = q.iter(&world).collect();
    for e in doomed {
        assert!(world.despawn(e));
    }
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), vec![keep]);
    assert_eq!(world.query::<&Sparse>().iter(&world).count(), 0);
}
