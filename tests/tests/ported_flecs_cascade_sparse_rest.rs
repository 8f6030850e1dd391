//! The rest of Flecs' `Cascade.c` and `Sparse.c` query suites (test/query/src
//! in the Flecs repository): the tests that `ported_flecs_traversal.rs` (which
//! ported most of both files, several Flecs tests per port) did not port yet
//! and that map onto our API.
//!
//! # How the tests translate
//!
//! Each test is named after its Flecs test in snake case with its suite as a
//! prefix (`cascade_`). Cascade is offered only by typed queries
//! (`QueryState::cascade::<R>()`): Flecs' `Position(cascade)` is
//! `Up<ChildOf, &Position>` plus `.cascade::<ChildOf>()`, `?Position(cascade)`
//! is `Option<Up<ChildOf, &Position>>`, `Position(cascade R)` is `Up<R, ..>`
//! with `.cascade::<R>()`, and Flecs' `ECS_ENTITY(world, R, Traversable)` is a
//! `#[relationship(traversable)]` type (`Rel`). Typed `Up` does not expose the
//! term's source, so where a Flecs test checks `ecs_field_src` the matching is
//! also checked through the DSL (`Position(up Rel)`), cached (`query_dsl`) and
//! uncached (`query_dsl_uncached`), whose `DynRow::source` is Flecs' field
//! source; rows of the DSL queries are compared as sorted lists (table order
//! is not promised), the typed cascade order exactly.
//!
//! * `EcsQueryDetectChanges` + `ecs_iter_changed` (did data the iterated table
//!   reads change since the query's previous iteration) is `Ref<T>::is_changed`
//!   on the row's own terms (`Ref<Position>`, `Option<Ref<Velocity>>`), which
//!   is relative to the previous `iter` of the same `QueryState`; a row counts
//!   as changed when one of its present `Ref`s is changed. Flecs' `[out]`,
//!   `[in]`, `[inout]` annotations are the typed query's `Ref`/`&`.
//! * Flecs' `ecs_query` returning `NULL` for an invalid query is a
//!   `query_dsl`/`query_dsl_uncached` that returns `Err(DslError)`; API.md
//!   requires such errors, never panics, with `offset` at the first wrong token.
//! * Values are drop-counted ([`Tracked`], one [`Counter`] per test): each test that makes values
//!   checks that every value made (spawned, inserted, replaced, removed with
//!   its entity) is dropped exactly once, after the world is gone.
//!
//! # Documented differences (tests adapted)
//!
//! * The DSL has no `cascade` (nor `desc`) form (API.md lists `up` and
//!   `self|up` only; cascade is the typed `QueryState::cascade`): in our DSL
//!   `cascade` is read as an entity name, so `Position(cascade)` is refused as
//!   an unknown name where Flecs builds a cascade query
//!   (`cascade_w_cache_kind_default` checks both: the typed cascade builds, the
//!   DSL text is refused).
//!
//! # NOT ported, and why
//!
//! * Already ported in `ported_flecs_traversal.rs` (by name or named in a port's
//!   doc comment): `Cascade_existing_isa_cascade`, `new_isa_cascade`,
//!   `childof_cascade`, `parent_cascade`, `existing_custom_rel_cascade`,
//!   `new_custom_rel_cascade`, `cascade_w_2_depths`, `cascade_w_3_depths`,
//!   `cascade_rematch_2_lvls`, `cascade_rematch_2_lvls_2_relations` (see
//!   below), `cascade_topological`, `cascade_after_recycled_parent_change`,
//!   `cascade_w_optional`, `remove_all`, `recreate_after_remove_all`,
//!   `nested_target_deletion`, `parent_component_n_parents_for_depth` and, as
//!   covered by it, `parent_component`, `parent_component_n_children`,
//!   `parent_component_after_query`, `parent_component_n_children_after_query`,
//!   `parent_component_n_parents_for_depth_after_query` (Flecs' non-fragmenting
//!   `Parent` would be a `#[relationship(union, traversable)]` here, and a
//!   cascade on a union relationship is refused at compile time: known).
//!   Every `Sparse_*` query test that maps: `1_fixed_sparse(_none,_self,_self_up,_up)`,
//!   `1_this_sparse(_simple,_none,_written,_written_partial,_written_none)`,
//!   `1_var_sparse(_none,_written,_written_none)`,
//!   `2_sparse(_simple,_and_regular)`, `2_regular_and_sparse`,
//!   `1_sparse_(written_)self`, `1_sparse_(written_)up`,
//!   `1_sparse_(written_)self_up`, `sparse_after_or`,
//!   `sparse_written_up_2_levels`; `Sparse_setup` is the cache-kind parameter
//!   (every DSL port runs both builds).
//! * `Cascade_cascade_rematch_2_lvls_2_relations`: ported there without the
//!   entity `t` Flecs creates with two `R` targets and deletes before building
//!   the query; `cascade_rematch_2_lvls_2_relations_w_deleted_entity` here
//!   ports the test in full (Flecs' setup and assertions).
//! * `Cascade_cascade_w_2_depths_desc`, `cascade_w_3_depths_desc`,
//!   `cascade_desc_rematch_2_lvls`, `cascade_desc_rematch_2_lvls_2_relations`,
//!   `cascade_desc_topological`: no descending cascade order.
//! * `Cascade_invalid_cascade_for_first`, `invalid_cascade_for_second`,
//!   `invalid_desc_for_first`, `invalid_desc_for_second`: Flecs sets the
//!   `EcsCascade`/`EcsDesc` flags on a term's first/second element through a
//!   term descriptor; our `Term`/`TermRef` have no traversal flags there and
//!   the typed `cascade` is a query-level builder, so the misplacement cannot
//!   be written.
//! * `Sparse_sparse_0_src_only_term`, `sparse_0_src`: `#0` (no source) is
//!   refused by our DSL and `TermRef` has no "no source" form.
//! * `Sparse_sparse_pair_first(_after_query)`, `sparse_pair_second(_after_query)`:
//!   a relationship cannot be sparse (the `Relationship` derive refuses
//!   `storage`), a type is a component or a relationship, never both, and a
//!   pair has no value typed by its target.
//! * Flecs' `q->row_fields` checks in `Sparse.c`: internal iterator detail.
//!
//! # Findings
//!
//! * `cascade_cascade_optional_change_detection_after_remove_out_term`
//!   (ignored): the runtime query `[out] Position, [in] ?Position(up),
//!   [inout] ?Velocity` (Flecs' query of that test, `up` for `cascade`) is
//!   refused with `QueryBuildError::Aliasing` ("term 0 writes Position, which
//!   term 1 may also match"), cached and uncached; Flecs builds it
//!   (Cascade.c:1930-1937) and it is the classic "write mine, read my
//!   parent's" transform query. `check_aliasing` (ecs/src/query/dynamic/compile.rs)
//!   compares the terms' ids only, not their sources: a write is always on
//!   `$this`, and an `up` term along an acyclic relationship (`ChildOf`) never
//!   reaches the row itself (nor its table). The typed `(&mut Position,
//!   Up<ChildOf, &Position>)` is refused by design (relation/propagate.rs: typed
//!   items outlive each other), but `DynQuery` rows are lent one at a time.
//!   The main port adapts the text to `[in] Position` and passes.
//!   Left as it is (the lead's decision): `iter_tables_mut` lends the written
//!   column of a whole table next to the `up` term's value, and a
//!   relationship's traits (`acyclic`, `union`) may change after a query is
//!   built (`World::set_relationship_traits`), so "never in the row's table"
//!   cannot be proven when the query is built; the refusal stays conservative
//!   (sound) rather than trusting a trait that may change.
//!
//! All other ported tests pass, and every drop-counted value is dropped
//! exactly once.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::query::{DynQuery, DynRow};

// ======================================================================== counters

/// Counts the values of one test: made and dropped.
struct Counter {
    made: AtomicUsize,
    drops: AtomicUsize,
}

impl Counter {
    const fn new() -> Counter {
        Counter { made: AtomicUsize::new(0), drops: AtomicUsize::new(0) }
    }

    fn made(&self) -> usize {
        self.made.load(Ordering::SeqCst)
    }

    fn drops(&self) -> usize {
        self.drops.load(Ordering::SeqCst)
    }

    /// After the world is gone: every value made was dropped exactly once.
    #[track_caller]
    fn assert_all_dropped(&self) {
        assert!(self.made() > 0, "the test made values");
        assert_eq!(self.made(), self.drops(), "made vs dropped");
    }
}

/// A field that reports its creation and drop to a test's [`Counter`].
struct Tracked(&'static Counter);

impl Tracked {
    fn new(counter: &'static Counter) -> Tracked {
        counter.made.fetch_add(1, Ordering::SeqCst);
        Tracked(counter)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.drops.fetch_add(1, Ordering::SeqCst);
    }
}

impl fmt::Debug for Tracked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tracked")
    }
}

// ======================================================================== components

/// Flecs' `Position`, drop-counted.
#[derive(Component, Debug)]
struct Position {
    x: i32,
    y: i32,
    _t: Tracked,
}

impl Position {
    fn new(counter: &'static Counter, x: i32, y: i32) -> Position {
        Position { x, y, _t: Tracked::new(counter) }
    }

    fn xy(&self) -> (i32, i32) {
        (self.x, self.y)
    }
}

/// Flecs' `Velocity`, drop-counted.
#[derive(Component, Debug)]
struct Velocity {
    x: i32,
    y: i32,
    _t: Tracked,
}

impl Velocity {
    fn new(counter: &'static Counter, x: i32, y: i32) -> Velocity {
        Velocity { x, y, _t: Tracked::new(counter) }
    }
}

#[derive(Relationship)]
#[relationship(traversable)]
struct Rel;

/// A world with the typed components and relationships registered (their
/// type names resolve in the DSL).
fn new_world() -> World {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Rel>();
    world
}

/// The cached and the uncached build of one DSL text.
fn both(world: &World, text: &str) -> [DynQuery; 2] {
    let cached = world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let uncached = world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert!(cached.is_cached() && !uncached.is_cached());
    [cached, uncached]
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// Both builds of `text` yield exactly `expected`, each row mapped by `f`
/// (compared as sorted lists: table order is not promised).
#[track_caller]
fn check<T: Ord + fmt::Debug>(world: &World, text: &str, f: impl Fn(&DynRow<'_>) -> T, expected: Vec<T>) {
    let expected = sorted(expected);
    for (i, mut q) in both(world, text).into_iter().enumerate() {
        let got = sorted(q.iter(world).map(|row| f(&row)));
        assert_eq!(got, expected, "{} build of {text:?}", ["cached", "uncached"][i]);
    }
}

/// Both builds of `text` are refused with an error (Flecs: `ecs_query`
/// returns `NULL`), each at `offset` where given; returns the cached error.
#[track_caller]
fn refused(world: &World, text: &str, offset: Option<usize>) -> DslError {
    let cached = world.query_dsl(text).err().unwrap_or_else(|| panic!("{text:?} was built (cached)"));
    let uncached = world.query_dsl_uncached(text).err().unwrap_or_else(|| panic!("{text:?} was built (uncached)"));
    for err in [&cached, &uncached] {
        assert!(err.offset <= text.len(), "{text:?}: offset {} past the end", err.offset);
        assert!(!err.message.is_empty(), "{text:?}: an error says what is wrong");
        if let Some(offset) = offset {
            assert_eq!(err.offset, offset, "{text:?}: {err}");
        }
    }
    assert_eq!(cached.offset, uncached.offset, "{text:?}: both builds refuse at one place");
    cached
}

// ======================================================================== Cascade

/// Flecs Cascade_cascade_w_cache_kind_default: `Position(cascade)` with the
/// default cache kind builds. Ours: the typed cascade query builds (and orders
/// a child after its parent); the DSL has no `cascade` form, so the text is
/// refused (documented difference), naming the unknown `cascade`.
#[test]
fn cascade_cascade_w_cache_kind_default() {
    static C: Counter = Counter::new();
    {
        let mut world = new_world();
        let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>().cascade::<ChildOf>();
        assert_eq!(q.iter(&world).count(), 0);
        let p = world.spawn(Position::new(&C, 10, 20)).id();
        let c = world.spawn(ChildOf.pair(p)).id();
        let rows: Vec<(Entity, (i32, i32))> = q.iter(&world).map(|(e, pos)| (e, pos.xy())).collect();
        assert_eq!(rows, [(c, (10, 20))]);
        refused(&world, "Position(cascade)", Some("Position(".len()));
    }
    C.assert_all_dropped();
}

/// Flecs Cascade_invalid_cascade_for_uncached: `Position(cascade)` with
/// `EcsQueryCacheNone` is refused. Ours: `query_dsl_uncached` (and the cached
/// build) refuse it: an error at `cascade`, never a panic.
#[test]
fn cascade_invalid_cascade_for_uncached() {
    let world = new_world();
    let Err(err) = world.query_dsl_uncached("Position(cascade)") else { panic!("built") };
    assert_eq!(err.offset, "Position(".len(), "{err}");
    refused(&world, "Position(cascade)", Some("Position(".len()));
}

/// Flecs Cascade_invalid_desc_without_cascade: `Tag(desc)` (desc without
/// cascade) is refused.
#[test]
fn cascade_invalid_desc_without_cascade() {
    let mut world = new_world();
    world.spawn(Name::new("Tag"));
    refused(&world, "Tag(desc)", Some("Tag(".len()));
}

/// Flecs Cascade_two_cascade_terms: `Position(cascade),*(cascade)` is refused.
#[test]
fn cascade_two_cascade_terms() {
    let world = new_world();
    refused(&world, "Position(cascade),*(cascade)", Some("Position(".len()));
}

/// Flecs Cascade_cascade_in_or_chain: `toggle|$l||toggle|$n(cascade)` is
/// refused (where exactly is not Flecs' concern: `toggle` is an unknown name
/// here and `|` after a name is no traversal).
#[test]
fn cascade_cascade_in_or_chain() {
    let world = new_world();
    refused(&world, "toggle|$l||toggle|$n(cascade)", None);
}

/// Flecs Cascade_cascade_rematch_2_lvls_2_relations, in full (the port in
/// `ported_flecs_traversal.rs` leaves out `t`): e_3 -R-> e_2 -R-> e_1 -R-> e_0,
/// all with Position; `t` (Position, `(R, e_2)`, `(R, e_1)`) is deleted before
/// the query is built; `Position(cascade R)` yields e_1, e_2, e_3 in that
/// order, each reading its target's value (sources e_0, e_1, e_2).
#[test]
fn cascade_rematch_2_lvls_2_relations_w_deleted_entity() {
    static C: Counter = Counter::new();
    for query_first in [false, true] {
        let mut world = new_world();
        let mut early = world.query::<(Entity, Up<Rel, &Position>)>().cascade::<Rel>();
        let e_0 = world.spawn(Position::new(&C, 10, 20)).id();
        let e_1 = world.spawn(Position::new(&C, 30, 40)).id();
        let e_2 = world.spawn(Position::new(&C, 50, 60)).id();
        let e_3 = world.spawn(Position::new(&C, 70, 80)).id();
        world.entity_mut(e_3).add_pair::<Rel>(e_2);
        world.entity_mut(e_2).add_pair::<Rel>(e_1);
        world.entity_mut(e_1).add_pair::<Rel>(e_0);

        let t = world.spawn_empty().id();
        world.entity_mut(t).insert(Position::new(&C, 0, 0));
        world.entity_mut(t).add_pair::<Rel>(e_2);
        world.entity_mut(t).add_pair::<Rel>(e_1);
        let drops = C.drops();
        assert!(world.despawn(t));
        assert_eq!(C.drops(), drops + 1, "t's Position is dropped with t");
        for e in [e_0, e_1, e_2, e_3] {
            assert!(world.is_alive(e), "deleting t (a source of R pairs) deletes no target");
        }

        let mut late = world.query::<(Entity, Up<Rel, &Position>)>().cascade::<Rel>();
        let q = if query_first { &mut early } else { &mut late };
        let rows: Vec<(Entity, (i32, i32))> = q.iter(&world).map(|(e, pos)| (e, pos.xy())).collect();
        assert_eq!(rows, [(e_1, (10, 20)), (e_2, (30, 40)), (e_3, (50, 60))], "query_first: {query_first}");
        // Flecs' it.sources[0]: the target each row reads.
        let f = |row: &DynRow<'_>| (row.entity(), row.source(0), row.get::<Position>(0).map(Position::xy));
        let expected = vec![(e_1, e_0, Some((10, 20))), (e_2, e_1, Some((30, 40))), (e_3, e_2, Some((50, 60)))];
        check(&world, "Position(up Rel)", f, expected);
    }
    C.assert_all_dropped();
}

/// Flecs Cascade_cascade_optional_change_detection_after_remove:
/// `[out] Position, [in] ?Position(cascade), [inout] ?Velocity` with change
/// detection; root (Position) is the parent of child (Position, Velocity).
/// Removing root's Position leaves child matched with the cascade term unset
/// and reports no change; setting child's Velocity reports one.
#[test]
fn cascade_cascade_optional_change_detection_after_remove() {
    static C: Counter = Counter::new();
    {
        let mut world = new_world();
        let root = world.spawn((Name::new("root"), Position::new(&C, 10, 20))).id();
        let child = world.spawn(Name::new("child")).id();
        world.entity_mut(child).add_pair::<ChildOf>(root);
        world.entity_mut(child).insert(Velocity::new(&C, 1, 2));
        world.entity_mut(child).insert(Position::new(&C, 30, 40));

        let mut q = world
            .query::<(Entity, Ref<Position>, Option<Up<ChildOf, &Position>>, Option<Ref<Velocity>>)>()
            .cascade::<ChildOf>();
        // (entity, own Position, cascade Position, Velocity, changed)
        type Row = (Entity, (i32, i32), Option<(i32, i32)>, Option<(i32, i32)>, bool);
        let mut run = |world: &World| -> Vec<Row> {
            q.iter(world)
                .map(|(e, own, up, vel)| {
                    let changed = own.is_changed() || vel.as_ref().is_some_and(|v| v.is_changed());
                    (e, own.xy(), up.map(Position::xy), vel.map(|v| (v.x, v.y)), changed)
                })
                .collect()
        };

        assert_eq!(
            run(&world),
            [(root, (10, 20), None, None, true), (child, (30, 40), Some((10, 20)), Some((1, 2)), true)]
        );
        // Flecs: field 1's source is root.
        let f = |row: &DynRow<'_>| (row.entity(), row.is_set(1), row.is_set(1).then(|| row.source(1)), row.is_set(2));
        // `[in]` for Flecs' `[out] Position`: see `_out_term` (finding).
        let text = "[in] Position, [in] ?Position(up), [inout] ?Velocity";
        check(&world, text, f, vec![(root, false, None, false), (child, true, Some(root), true)]);

        let removed = world.remove::<Position>(root).expect("root had a Position");
        assert_eq!(removed.xy(), (10, 20));
        let drops = C.drops();
        drop(removed);
        assert_eq!(C.drops(), drops + 1);

        assert_eq!(run(&world), [(child, (30, 40), None, Some((1, 2)), false)]);
        check(&world, text, f, vec![(child, false, None, true)]);
        assert_eq!(run(&world), [(child, (30, 40), None, Some((1, 2)), false)]);

        let drops = C.drops();
        world.entity_mut(child).insert(Velocity::new(&C, 3, 4));
        assert_eq!(C.drops(), drops + 1, "the replaced Velocity is dropped");
        assert_eq!(run(&world), [(child, (30, 40), None, Some((3, 4)), true)]);
    }
    C.assert_all_dropped();
}

/// Flecs Cascade_cascade_optional_change_detection_after_remove, the query
/// exactly as Flecs writes it (`[out] Position, [in] ?Position(cascade),
/// [inout] ?Velocity`, here with `up`: the DSL has no cascade): Flecs builds it
/// (`test_assert(q != NULL)`, Cascade.c:1930-1937) since the `up` term reads
/// the parent's Position, never the row's own. Rows as above; the `[out]` term
/// is written through `iter_mut`.
#[test]
#[ignore = "finding (left, by design: table views lend whole columns and traits may change at run time): DynQuery refuses `[out] Position, ?Position(up)` as Aliasing (check_aliasing ignores sources; up along acyclic ChildOf never reaches the row), Flecs builds it"]
fn cascade_cascade_optional_change_detection_after_remove_out_term() {
    static C: Counter = Counter::new();
    {
        let mut world = new_world();
        let root = world.spawn((Name::new("root"), Position::new(&C, 10, 20))).id();
        let child = world.spawn(Name::new("child")).id();
        world.entity_mut(child).add_pair::<ChildOf>(root);
        world.entity_mut(child).insert(Velocity::new(&C, 1, 2));
        world.entity_mut(child).insert(Position::new(&C, 30, 40));

        let text = "[out] Position, [in] ?Position(up), [inout] ?Velocity";
        let f = |row: &DynRow<'_>| {
            let up = row.is_set(1).then(|| (row.source(1), row.get::<Position>(1).map(Position::xy)));
            (row.entity(), row.get::<Position>(0).map(Position::xy), up, row.is_set(2))
        };
        let expected =
            vec![(root, Some((10, 20)), None, false), (child, Some((30, 40)), Some((root, Some((10, 20)))), true)];
        check(&world, text, f, expected);

        for mut q in both(&world, text) {
            q.iter_mut(&mut world).for_each(|mut row| {
                let up_x = row.get::<Position>(1).map_or(0, |p| p.x);
                let mut own = row.get_mut::<Position>(0).expect("the [out] term is set");
                own.x += up_x;
            });
        }
        let x = |world: &World, e: Entity| world.get::<Position>(e).map(|p| p.x);
        assert_eq!((x(&world, root), x(&world, child)), (Some(10), Some(30 + 10 + 10)));

        drop(world.remove::<Position>(root));
        check(&world, text, f, vec![(child, Some((50, 40)), None, true)]);
    }
    C.assert_all_dropped();
}
