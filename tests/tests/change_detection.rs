//! Change detection, per API.md: `Added`/`Changed` are relative to the previous run
//! of the same `QueryState`; the first run sees every row as added and changed;
//! `insert` over an existing value marks it changed, not added; `Mut<T>` marks a
//! row changed only when written through; moving between archetypes keeps ticks.

use std::collections::BTreeSet;

use ecs::prelude::*;
use ecs::storage::{CHECK_TICK_THRESHOLD, MAX_CHANGE_AGE, Tick, WideTick};
use ecs::system::{IntoSystem, System};

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct A(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct B(u32);

#[derive(Component, Debug)]
struct Tag;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct S(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparseTag;

#[derive(Resource, Debug, PartialEq)]
struct Counter(u32);

type AddedA = QueryState<Entity, Added<A>>;
type ChangedA = QueryState<Entity, Changed<A>>;

fn run<F: QueryFilter>(q: &mut QueryState<Entity, F>, world: &World) -> BTreeSet<Entity> {
    q.iter(world).collect()
}

fn trackers(world: &mut World) -> (AddedA, ChangedA) {
    (world.query_filtered::<Entity, Added<A>>(), world.query_filtered::<Entity, Changed<A>>())
}

#[test]
fn the_first_run_sees_every_row_as_added_and_changed() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    let b = world.spawn((A(2), B(2))).id();
    let c = world.spawn_empty().insert(A(3)).id();
    let batch: Vec<Entity> = world.spawn_batch((0..3).map(A)).collect();
    world.spawn(B(0));
    let (mut added, mut changed) = trackers(&mut world);
    let all: BTreeSet<Entity> = [a, b, c].into_iter().chain(batch).collect();
    assert_eq!(run(&mut added, &world), all);
    assert_eq!(run(&mut changed, &world), all);
    assert!(run(&mut added, &world).is_empty(), "the second run sees nothing new");
    assert!(run(&mut changed, &world).is_empty());
    world.check_invariants();
}

#[test]
fn a_query_created_late_still_sees_everything_on_its_first_run() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let (mut first, _) = trackers(&mut world);
    run(&mut first, &world);
    for _ in 0..5 {
        let mut throwaway = world.query::<&A>();
        throwaway.iter(&world).count();
    }
    let (mut late_added, mut late_changed) = trackers(&mut world);
    assert_eq!(run(&mut late_added, &world), BTreeSet::from([e]));
    assert_eq!(run(&mut late_changed, &world), BTreeSet::from([e]));
}

#[test]
fn spawning_after_a_run_is_an_add() {
    let mut world = World::new();
    world.spawn(A(1));
    let (mut added, mut changed) = trackers(&mut world);
    run(&mut added, &world);
    run(&mut changed, &world);
    let e = world.spawn(A(2)).id();
    let f = world.spawn_empty().id();
    world.insert(f, (B(1), A(3)));
    assert_eq!(run(&mut added, &world), BTreeSet::from([e, f]));
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e, f]));
    world.check_invariants();
}

#[test]
fn insert_over_an_existing_value_is_a_change_not_an_add() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(1))).id();
    let f = world.spawn(A(2)).id();
    let (mut added, mut changed) = trackers(&mut world);
    run(&mut added, &world);
    run(&mut changed, &world);
    let before = world.component_ticks::<A>(e).unwrap();

    assert!(world.insert(e, A(10)));
    world.entity_mut(f).insert((A(20), B(20))); // in a bundle, with a move
    assert!(run(&mut added, &world).is_empty());
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e, f]));
    let after = world.component_ticks::<A>(e).unwrap();
    assert_eq!(after.added, before.added);
    assert_ne!(after.changed, before.changed);
    world.check_invariants();
}

#[test]
fn removing_and_reinserting_is_an_add_again() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(1))).id();
    let (mut added, mut changed) = trackers(&mut world);
    run(&mut added, &world);
    run(&mut changed, &world);
    world.remove::<A>(e);
    assert!(run(&mut added, &world).is_empty());
    world.insert(e, A(2));
    assert_eq!(run(&mut added, &world), BTreeSet::from([e]));
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    world.check_invariants();
}

#[test]
fn moving_between_archetypes_keeps_the_ticks() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let others: Vec<Entity> = (0..3).map(|i| world.spawn((A(i), B(i))).id()).collect();
    let (mut added, mut changed) = trackers(&mut world);
    run(&mut added, &world);
    run(&mut changed, &world);
    let ticks = world.component_ticks::<A>(e).unwrap();

    world.insert(e, B(5)); // {A} -> {A, B}
    world.insert(e, Tag); // -> {A, B, Tag}
    world.insert(e, S(1)); // sparse: no move
    world.remove::<B>(e); // -> {A, Tag}
    world.despawn(others[0]); // swap-removes inside {A, B}
    world.remove::<B>(others[2]); // moves another row
    assert_eq!(world.component_ticks::<A>(e), Some(ticks));
    assert!(run(&mut added, &world).is_empty(), "a move is not an add");
    assert!(run(&mut changed, &world).is_empty(), "a move is not a change");
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    world.check_invariants();
}

#[test]
fn mut_marks_changed_only_when_written_through() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let (_, mut changed) = trackers(&mut world);
    run(&mut changed, &world);

    {
        let value = world.get_mut::<A>(e).unwrap();
        assert_eq!(value.0, 1);
        assert_eq!(*value, A(1));
        assert!(value == A(1));
        assert_eq!(value.as_ref(), &A(1));
        assert_eq!(format!("{value:?}"), "Mut(A(1))");
    }
    assert!(run(&mut changed, &world).is_empty(), "reading through Mut is not a change");

    world.get_mut::<A>(e).unwrap().bypass_change_detection().0 = 2;
    assert!(run(&mut changed, &world).is_empty(), "bypass_change_detection does not mark");
    assert_eq!(world.get::<A>(e), Some(&A(2)));

    world.get_mut::<A>(e).unwrap().0 = 3;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));

    world.get_mut::<A>(e).unwrap().set_changed();
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]), "set_changed marks without writing");

    world.get_mut::<A>(e).unwrap().into_inner().0 = 4;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]), "into_inner marks");

    {
        let mut value = world.get_mut::<A>(e).unwrap();
        value.reborrow().0 = 5;
    }
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]), "a reborrow's write marks");

    world.entity_mut(e).get_mut::<A>().unwrap().0 = 6;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    assert!(run(&mut changed, &world).is_empty());
    world.check_invariants();
}

#[test]
fn query_iter_mut_marks_only_the_rows_written() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..10).map(|i| world.spawn(A(i)).id()).collect();
    let mut writer = world.query::<&mut A>();
    let (_, mut changed) = trackers(&mut world);
    run(&mut changed, &world);

    for mut a in writer.iter_mut(&mut world) {
        if a.0 % 3 == 0 {
            a.0 += 100;
        } else {
            assert!(a.0 < 10, "read only");
        }
    }
    let expected: BTreeSet<Entity> = [0, 3, 6, 9].into_iter().map(|i| ids[i]).collect();
    assert_eq!(run(&mut changed, &world), expected);

    // the same through the fold path
    writer.iter_mut(&mut world).for_each(|mut a| {
        if a.0 == 1 {
            a.0 = 1;
        }
    });
    assert_eq!(run(&mut changed, &world), BTreeSet::from([ids[1]]));
    world.check_invariants();
}

#[test]
fn get_mut_and_single_mut_of_a_query_mark_changes() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let (_, mut changed) = trackers(&mut world);
    run(&mut changed, &world);
    let mut q = world.query::<&mut A>();
    assert_eq!(q.get_mut(&mut world, e).unwrap().0, 1);
    assert!(run(&mut changed, &world).is_empty());
    q.get_mut(&mut world, e).unwrap().0 = 2;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    q.single_mut(&mut world).unwrap().0 = 3;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    world.check_invariants();
}

#[test]
fn each_query_state_has_its_own_last_run() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let (_, mut early) = trackers(&mut world);
    run(&mut early, &world);
    world.get_mut::<A>(e).unwrap().0 = 2;
    let (_, mut late) = trackers(&mut world);
    assert_eq!(run(&mut late, &world), BTreeSet::from([e]));
    assert!(run(&mut late, &world).is_empty());
    assert_eq!(run(&mut early, &world), BTreeSet::from([e]), "the late query's runs don't hide it from early");
    world.check_invariants();
}

#[test]
fn a_query_does_not_see_its_own_writes_on_its_next_run_but_others_do() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut writer = world.query::<&mut A>();
    let (_, mut observer) = trackers(&mut world);
    run(&mut observer, &world);
    for mut a in writer.iter_mut(&mut world) {
        assert!(a.is_changed(), "first run");
        a.0 += 1;
    }
    for a in writer.iter_mut(&mut world) {
        assert!(!a.is_changed(), "its own write happened during its previous run");
    }
    assert_eq!(run(&mut observer, &world), BTreeSet::from([e]));
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    world.check_invariants();
}

#[test]
fn iter_peek_and_get_do_not_advance_the_last_run() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let (_, mut changed) = trackers(&mut world);
    assert_eq!(changed.iter_peek(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(changed.iter_peek(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(changed.get(&world, e), Ok(e));
    assert_eq!(changed.get(&world, e), Ok(e));
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    assert_eq!(changed.get(&world, e), Err(QueryError::QueryDoesNotMatch(e)));
    assert_eq!(changed.iter_peek(&world).count(), 0);
    world.get_mut::<A>(e).unwrap().0 = 2;
    assert_eq!(changed.get(&world, e), Ok(e));
    assert_eq!(changed.iter_peek(&world).count(), 1);
    world.check_invariants();
}

#[test]
fn mut_reports_added_and_changed_relative_to_the_query_run() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut q = world.query::<&mut A>();
    for a in q.iter_mut(&mut world) {
        assert!(a.is_added() && a.is_changed());
    }
    for a in q.iter_mut(&mut world) {
        assert!(!a.is_added() && !a.is_changed());
    }
    world.insert(e, A(2));
    for mut a in q.iter_mut(&mut world) {
        assert!(!a.is_added() && a.is_changed());
        a.0 = 3;
        assert!(a.is_changed());
    }
    world.check_invariants();
}

#[test]
fn world_get_mut_is_relative_to_clear_trackers() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    {
        let value = world.get_mut::<A>(e).unwrap();
        assert!(value.is_added() && value.is_changed());
    }
    world.clear_trackers();
    {
        let mut value = world.get_mut::<A>(e).unwrap();
        assert!(!value.is_added() && !value.is_changed());
        value.0 = 2;
        assert!(value.is_changed());
        assert!(!value.is_added());
    }
    assert!(world.get_mut::<A>(e).unwrap().is_changed());
    let last = world.last_change_tick();
    world.clear_trackers();
    assert_ne!(world.last_change_tick(), last);
    assert!(!world.get_mut::<A>(e).unwrap().is_changed());
}

#[test]
fn sparse_components_follow_the_same_rules() {
    let mut world = World::new();
    let e = world.spawn((A(0), S(1))).id();
    let mut added = world.query_filtered::<Entity, Added<S>>();
    let mut changed = world.query_filtered::<Entity, Changed<S>>();
    let mut tag_changed = world.query_filtered::<Entity, Changed<SparseTag>>();
    assert_eq!(run(&mut added, &world), BTreeSet::from([e]));
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));
    assert!(run(&mut tag_changed, &world).is_empty());

    world.insert(e, S(2));
    assert!(run(&mut added, &world).is_empty());
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));

    assert_eq!(world.get_mut::<S>(e).unwrap().0, 2);
    assert!(run(&mut changed, &world).is_empty());
    world.get_mut::<S>(e).unwrap().0 = 3;
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));

    let mut q = world.query::<&mut S>();
    for mut s in q.iter_mut(&mut world) {
        s.0 = 4;
    }
    assert_eq!(run(&mut changed, &world), BTreeSet::from([e]));

    world.insert(e, B(1)); // table move: sparse ticks untouched
    assert!(run(&mut changed, &world).is_empty());

    world.remove::<S>(e);
    world.insert(e, S(5));
    assert_eq!(run(&mut added, &world), BTreeSet::from([e]));

    world.insert(e, SparseTag);
    assert_eq!(run(&mut tag_changed, &world), BTreeSet::from([e]));
    world.insert(e, SparseTag);
    assert_eq!(run(&mut tag_changed, &world), BTreeSet::from([e]), "overwriting a sparse tag is a change");
    world.check_invariants();
}

#[test]
fn changed_filters_combine_with_other_terms() {
    let mut world = World::new();
    let a = world.spawn((A(1), B(1))).id();
    let b = world.spawn((A(2), B(2), Tag)).id();
    let c = world.spawn(A(3)).id();
    let mut q = world.query_filtered::<Entity, (Changed<A>, With<B>, Without<Tag>)>();
    assert_eq!(run(&mut q, &world), BTreeSet::from([a]));
    for e in [a, b, c] {
        world.get_mut::<A>(e).unwrap().0 += 10;
    }
    assert_eq!(run(&mut q, &world), BTreeSet::from([a]));
    let mut either = world.query_filtered::<Entity, Or<(Changed<A>, Added<B>)>>();
    assert_eq!(run(&mut either, &world).len(), 3);
    world.get_mut::<A>(c).unwrap().0 = 0;
    world.insert(b, B(5)); // changed, not added
    assert_eq!(run(&mut either, &world), BTreeSet::from([c]));
    world.check_invariants();
}

#[test]
fn component_ticks_record_add_and_change() {
    let mut world = World::new();
    let e = world.spawn((A(1), S(1))).id();
    let spawned = world.component_ticks::<A>(e).unwrap();
    assert_eq!(spawned.added, spawned.changed);
    assert_eq!(spawned.added, world.change_tick());
    world.query::<&A>().iter(&world).count(); // advances the clock
    world.get_mut::<A>(e).unwrap().0 = 2;
    let written = world.component_ticks::<A>(e).unwrap();
    assert_eq!(written.added, spawned.added);
    assert!(written.changed.is_newer_than(spawned.changed, world.change_tick()));
    let sparse = world.component_ticks::<S>(e).unwrap();
    assert_eq!(sparse.added, spawned.added);
    assert_eq!(world.component_ticks::<B>(e), None);
}

#[test]
fn the_clock_advances_once_per_query_run() {
    let mut world = World::new();
    world.spawn(A(1));
    let start = world.change_tick();
    let mut q = world.query::<&A>();
    q.iter(&world).count();
    q.iter(&world).count();
    assert_eq!(world.change_tick(), Tick::new(start.get() + 2));
    assert_eq!(q.last_run(), Tick::new(start.get() + 1));
    q.get(&world, Entity::from_raw(9999, 0)).ok();
    q.iter_peek(&world).count();
    assert_eq!(world.change_tick(), Tick::new(start.get() + 2), "get and iter_peek do not advance it");
}

#[test]
fn resources_track_changes_too() {
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let (added, changed) = world.resources().ticks::<Counter>().unwrap();
    assert_eq!(added, changed);
    {
        let counter = world.resource_mut::<Counter>();
        assert!(counter.is_added() && counter.is_changed());
    }
    world.clear_trackers();
    {
        let counter = world.resource_mut::<Counter>();
        assert_eq!(counter.0, 0);
        assert!(!counter.is_changed());
    }
    assert_eq!(world.resources().ticks::<Counter>().unwrap().1, changed, "reading is not a change");
    world.resource_mut::<Counter>().0 += 1;
    let (added_after, changed_after) = world.resources().ticks::<Counter>().unwrap();
    assert_eq!(added_after, added);
    assert_ne!(changed_after, changed);
    assert!(world.resource_mut::<Counter>().is_changed());

    world.clear_trackers();
    world.insert_resource(Counter(10)); // replace: changed, not added
    let counter = world.resource_mut::<Counter>();
    assert!(counter.is_changed() && !counter.is_added());
    assert_eq!(counter.0, 10);
    assert!(world.resources().ticks::<Missing>().is_none());
}

#[derive(Resource)]
struct Missing;

#[test]
fn ticks_compare_relative_to_the_current_run_and_wrap() {
    let t = |value| Tick::new(value);
    assert!(t(5).is_newer_than(t(4), t(6)));
    assert!(!t(4).is_newer_than(t(4), t(6)));
    assert!(!t(3).is_newer_than(t(4), t(6)));
    // the clock wrapped between last_run and this_run
    assert!(t(2).is_newer_than(t(u32::MAX - 1), t(5)));
    assert!(t(u32::MAX).is_newer_than(t(u32::MAX - 1), t(3)));
    assert!(!t(u32::MAX - 2).is_newer_than(t(u32::MAX - 1), t(3)));
}

/// A table component declared without change detection: no tick columns.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(change_detection = false)]
struct Untracked(u32);

/// A sparse component declared without change detection.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse", change_detection = false)]
struct SparseUntracked(u32);

/// A relationship with data, declared without change detection.
#[derive(Relationship, Debug, PartialEq, Clone, Copy)]
#[component(change_detection = false)]
struct Owes(u32);

#[test]
fn components_without_change_detection_keep_values_but_no_ticks() {
    let mut world = World::new();
    let id = world.register_component::<Untracked>();
    assert!(!world.component_info(id).unwrap().has_change_detection());
    let a_id = world.register_component::<A>();
    assert!(world.component_info(a_id).unwrap().has_change_detection());

    let e = world.spawn((A(1), Untracked(10), SparseUntracked(100))).id();
    let other = world.spawn((A(2), Untracked(20))).id();
    assert_eq!(world.component_ticks::<Untracked>(e), None);
    assert_eq!(world.component_ticks::<SparseUntracked>(e), None);
    assert!(world.component_ticks::<A>(e).is_some());

    // Writes go through and never report added or changed.
    let mut value = world.get_mut::<Untracked>(e).unwrap();
    assert!(!value.is_added() && !value.is_changed());
    value.0 += 1;
    assert!(!value.is_changed());
    world.get_mut::<SparseUntracked>(e).unwrap().0 += 1;
    assert_eq!(world.get::<Untracked>(e), Some(&Untracked(11)));
    assert_eq!(world.get::<SparseUntracked>(e), Some(&SparseUntracked(101)));

    // In a table mixing both kinds, writing the untracked column leaves the
    // tracked one's `Changed` untouched, and writing the tracked one is seen.
    let (_, mut changed_a) = trackers(&mut world);
    assert_eq!(run(&mut changed_a, &world).len(), 2);
    for (mut untracked, mut sparse) in
        world.query::<(&mut Untracked, Option<&mut SparseUntracked>)>().iter_mut(&mut world)
    {
        untracked.0 *= 2;
        assert!(!untracked.is_changed());
        if let Some(sparse) = sparse.as_mut() {
            sparse.0 *= 2;
            assert!(!sparse.is_changed());
        }
    }
    assert!(run(&mut changed_a, &world).is_empty());
    world
        .query::<(&mut A, &Untracked)>()
        .iter_mut(&mut world)
        .filter(|(_, u)| u.0 == 40)
        .for_each(|(mut a, _)| a.0 = 0);
    assert_eq!(run(&mut changed_a, &world), BTreeSet::from([other]));

    // Moving between archetypes (both ways, over a swap-remove) keeps the values.
    world.insert(e, B(1));
    world.remove::<A>(other);
    assert_eq!(world.remove::<B>(e), Some(B(1)));
    assert_eq!(world.get::<Untracked>(e), Some(&Untracked(22)));
    assert_eq!(world.get::<Untracked>(other), Some(&Untracked(40)));
    assert_eq!(world.remove::<Untracked>(other), Some(Untracked(40)));
    world.check_invariants();
}

#[test]
fn relationships_without_change_detection_write_through_pairs() {
    let mut world = World::new();
    let (alice, bob) = (world.spawn(A(0)).id(), world.spawn_empty().id());
    world.insert_pair(alice, Owes(5), bob);
    let mut owed = world.get_pair_mut::<Owes>(alice, bob).unwrap();
    owed.0 += 1;
    assert!(!owed.is_changed() && !owed.is_added());
    for (_, mut pair) in world.query::<Pair<&mut Owes>>().iter_mut(&mut world) {
        pair.0 *= 10;
        assert!(!pair.is_changed());
    }
    assert_eq!(world.get_pair::<Owes>(alice, bob), Some(&Owes(60)));
    world.check_invariants();
}

// ----- the age window: ticks never wrap ------------------------------------------------
//
// The world's clock is 32 bits per stored value: without the age check, a value
// left untouched for 2^32 ticks reads as changed again. These tests advance the
// clock with `World::advance_change_tick` in frames of at most
// `CHECK_TICK_THRESHOLD` ticks, each frame reaching an entry point that runs the
// due age check, as a long-running program would.

/// Advances `world`'s clock in frames of at most `CHECK_TICK_THRESHOLD` ticks
/// until `total` ticks passed since `since` (a reading of the wide clock), calling
/// `frame` after each advance; returns the number of frames.
fn run_frames(world: &mut World, since: WideTick, total: u64, mut frame: impl FnMut(&mut World)) -> usize {
    let mut frames = 0;
    loop {
        let elapsed = world.change_tick_wide().get() - since.get();
        if elapsed >= total {
            return frames;
        }
        let step = (total - elapsed).min(u64::from(CHECK_TICK_THRESHOLD));
        world.advance_change_tick(step as u32);
        frame(world);
        frames += 1;
    }
}

/// Just under one full turn of the 32-bit clock: a holder that last ran this long
/// ago has not wrapped, but values stamped a little before its run have.
const ALMOST_A_TURN: u64 = (1 << 32) - 500;

#[test]
fn frequently_run_queries_never_see_untouched_values_as_changed() {
    let mut world = World::new();
    let old = world.spawn((A(0), S(0))).id();
    let fresh = world.spawn((A(0), S(0))).id();
    world.insert_resource(Counter(0));
    let (mut added_a, mut changed_a) = trackers(&mut world);
    let mut changed_s = world.query_filtered::<Entity, Changed<S>>();
    let both = BTreeSet::from([old, fresh]);
    assert_eq!(run(&mut changed_a, &world), both);
    assert_eq!(run(&mut changed_s, &world), both);
    assert_eq!(run(&mut added_a, &world), both);
    world.clear_trackers();
    let start = world.change_tick_wide();
    // Two and a half turns of the clock, one frame per threshold: every frame
    // writes `fresh` and must see only it (`old` is never touched again).
    let frames = run_frames(&mut world, start, 5 << 31, |world| {
        world.clear_trackers(); // the frame's entry point: runs the due age check
        let elapsed = world.change_tick_wide().get() - start.get();
        assert!(!world.get_mut::<A>(old).unwrap().is_changed(), "world-level Mut after {elapsed} ticks");
        assert!(!world.resource_mut::<Counter>().is_changed(), "untouched resource after {elapsed} ticks");
        world.get_mut::<A>(fresh).unwrap().0 += 1;
        world.get_mut::<S>(fresh).unwrap().0 += 1;
        assert!(world.get_mut::<A>(fresh).unwrap().is_changed());
        assert_eq!(run(&mut changed_a, world), BTreeSet::from([fresh]), "table column after {elapsed} ticks");
        assert_eq!(run(&mut changed_s, world), BTreeSet::from([fresh]), "sparse set after {elapsed} ticks");
        assert!(run(&mut added_a, world).is_empty(), "nothing added after {elapsed} ticks");
        world.check_invariants();
    });
    assert!(frames > 20);
    assert_eq!(world.get::<A>(fresh), Some(&A(frames as u32)));
}

#[derive(Resource, Default)]
struct Frames(Vec<(BTreeSet<Entity>, BTreeSet<Entity>, bool, bool)>);

#[derive(Resource, Default)]
struct Ticker(u32);

#[derive(Component)]
struct Fresh;

fn write_fresh(mut a: Query<&mut A, With<Fresh>>, mut s: Query<&mut S, With<Fresh>>, mut ticker: ResMut<Ticker>) {
    a.iter_mut().for_each(|mut a| a.0 += 1);
    s.iter_mut().for_each(|mut s| s.0 += 1);
    ticker.0 += 1;
}

fn record_frame(
    a: Query<Entity, Changed<A>>,
    s: Query<Entity, Changed<S>>,
    counter: Res<Counter>,
    ticker: Res<Ticker>,
    mut frames: ResMut<Frames>,
) {
    frames.0.push((a.iter().collect(), s.iter().collect(), counter.is_changed(), ticker.is_changed()));
}

#[test]
fn systems_in_a_schedule_keep_untouched_values_and_resources_old() {
    let mut world = World::new();
    world.init_resource::<Frames>();
    world.init_resource::<Ticker>();
    world.insert_resource(Counter(0));
    let old = world.spawn((A(0), S(0))).id();
    let fresh = world.spawn((A(0), S(0), Fresh)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((write_fresh, record_frame).chain());
    schedule.run(&mut world); // the first run sees everything
    let start = world.change_tick_wide();
    let frames = run_frames(&mut world, start, 5 << 31, |world| schedule.run(world));
    let recorded = &world.resource::<Frames>().0;
    assert_eq!(recorded.len(), frames + 1);
    let both = BTreeSet::from([old, fresh]);
    assert_eq!(recorded[0], (both.clone(), both, true, true));
    for (frame, seen) in recorded.iter().enumerate().skip(1) {
        let only_fresh = BTreeSet::from([fresh]);
        assert_eq!(seen, &(only_fresh.clone(), only_fresh, false, true), "frame {frame} of {frames}");
    }
    world.check_invariants();
}

#[derive(Event)]
struct Probe;

#[derive(Resource, Default)]
struct Probed(BTreeSet<Entity>);

fn changed_a_system(q: Query<Entity, Changed<A>>) -> BTreeSet<Entity> {
    q.iter().collect()
}

#[test]
fn rarely_run_queries_systems_and_observers_clamp_their_last_run() {
    let mut world = World::new();
    world.init_resource::<Probed>();
    let old = world.spawn(A(0)).id();
    let fresh = world.spawn(A(0)).id();
    world.add_observer(|_: Trigger<Probe>, q: Query<Entity, Changed<A>>, mut probed: ResMut<Probed>| {
        probed.0 = q.iter().collect();
    });
    let mut query = world.query_filtered::<Entity, Changed<A>>();
    let mut system = IntoSystem::into_system(changed_a_system);
    let mut probe = |world: &mut World| {
        world.trigger(Probe);
        let observed = core::mem::take(&mut world.resource_mut::<Probed>().0);
        [run(&mut query, world), system.run((), world), observed]
    };
    // Values stamped well before the holders' first run.
    world.advance_change_tick(1000);
    let both = BTreeSet::from([old, fresh]);
    assert_eq!(probe(&mut world), [both.clone(), both.clone(), both]);
    let probed_at = world.change_tick_wide();
    let write_fresh = |world: &mut World| {
        world.clear_trackers();
        world.get_mut::<A>(fresh).unwrap().0 += 1;
    };
    // Just under a turn after their run: `old` (1000 ticks older) has wrapped.
    run_frames(&mut world, probed_at, ALMOST_A_TURN, write_fresh);
    let only_fresh = BTreeSet::from([fresh]);
    assert_eq!(probe(&mut world), [only_fresh.clone(), only_fresh.clone(), only_fresh.clone()]);
    // Idle for two and a half turns: their last run is clamped, not wrapped.
    let probed_at = world.change_tick_wide();
    run_frames(&mut world, probed_at, 5 << 31, write_fresh);
    assert_eq!(probe(&mut world), [only_fresh.clone(), only_fresh.clone(), only_fresh]);
    assert_eq!(probe(&mut world), [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()]);
    world.check_invariants();
}

/// A `&mut World` entry point under test.
type Entry = Box<dyn FnMut(&mut World)>;

#[test]
fn every_clock_advancing_entry_point_runs_the_due_age_check() {
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    world.add_observer(|_: Trigger<Probe>| {});
    let mut query = world.query::<&mut A>();
    let mut schedule = Schedule::new();
    schedule.add_systems(|_: Query<&A>| {});
    let mut exclusive = Schedule::new();
    exclusive.add_systems(|_: &mut World| {});
    let mut entries: Vec<(&str, Entry)> = vec![
        ("clear_trackers", Box::new(|world| world.clear_trackers())),
        (
            "increment_change_tick_mut",
            Box::new(|world| {
                world.increment_change_tick_mut();
            }),
        ),
        ("Schedule::run", Box::new(move |world| schedule.run(world))),
        ("exclusive system", Box::new(move |world| exclusive.run(world))),
        ("World::run_system_once", Box::new(|world| world.run_system_once(|_: Query<&A>| {}))),
        ("observer", Box::new(|world| world.trigger(Probe))),
        ("QueryState::iter_mut", Box::new(move |world| query.iter_mut(world).for_each(drop))),
    ];
    let mut par_query = world.query::<&mut A>();
    entries.push(("QueryState::par_iter_mut", Box::new(move |world| par_query.par_iter_mut(world).for_each(drop))));
    for (name, entry) in entries.iter_mut() {
        world.advance_change_tick(CHECK_TICK_THRESHOLD);
        entry(&mut world);
        assert!(!world.check_change_ticks(), "{name} left the due age check undone");
    }
    // Seven thresholds passed since `e` was stamped, more than the window: the
    // checks clamped it to exactly the window's age at the last of them.
    let ticks = world.component_ticks::<A>(e).unwrap();
    assert!(world.change_tick().get().wrapping_sub(ticks.added.get()) < MAX_CHANGE_AGE + 100);
    world.check_invariants();
}
