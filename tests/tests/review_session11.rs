//! Adversarial review of commit e6c9a48: run conditions whose parameters
//! cannot be built count as `false` (also inside `and`/`or`/`not`), automatic
//! sync points planned with Bevy's distance rule (an explicit `ApplyDeferred`
//! without conditions serves as the automatic sync point of its distance), and
//! the built-ins `ChildOf`, `IsA`, `Disabled`, `Prefab` made permanent.
//!
//! Every schedule test runs on both executors. Systems record what they did in
//! a `Log`; command systems queue a command that records its application, so
//! a log shows exactly which commands a system saw.
//!
//! Findings (fixed since; the tests pass):
//! - `skipped_conditional_sync_point_in_a_chain_still_leaves_the_reader_synced`,
//!   `skipped_sync_point_of_a_conditional_set_in_a_chain_still_leaves_the_reader_synced`:
//!   in `(w1, ApplyDeferred.run_if(c), r2).chain()` (or the condition on the
//!   ApplyDeferred's set) no automatic sync point is planned, so when `c` is
//!   false r2 ran before w1's commands (applied only at the end of the run),
//!   although r2 is ordered after w1 and the docs promise the commands of a
//!   system are applied before any system ordered after it runs (graph.rs: a
//!   conditional sync point "serves no one"). Bevy's pass has the same gap (it
//!   skips edges into any `ApplyDeferred`); with a direct `r2.after(w1)` edge
//!   the automatic sync point was planned. Now a conditional sync point passes
//!   the work before it on to its successors, which get an automatic one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use ecs::schedule::ExecutorKind;
use ecs_tests::{DropLog, panic_message};

use ecs::prelude::*;

const EXECUTORS: [ExecutorKind; 2] = [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// System `N` ran.
    Ran(u32),
    /// The command queued by system `N` was applied.
    Applied(u32),
}
use Ev::{Applied, Ran};

#[derive(Resource, Default, Debug)]
struct Log(Vec<Ev>);

/// A command system: logs that it ran and queues a command that logs its application.
fn w<const N: u32>(mut log: ResMut<Log>, mut commands: Commands) {
    log.0.push(Ran(N));
    commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push(Applied(N)));
}

/// A plain system: logs that it ran.
fn r<const N: u32>(mut log: ResMut<Log>) {
    log.0.push(Ran(N));
}

fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Calls>();
    world.init_resource::<Evaluations>();
    world
}

fn schedule(kind: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(kind);
    schedule
}

fn log(world: &World) -> Vec<Ev> {
    world.resource::<Log>().0.clone()
}

/// Index of the first occurrence of `ev` in the log (panics when absent).
#[track_caller]
fn at(log: &[Ev], ev: Ev) -> usize {
    log.iter().position(|&e| e == ev).unwrap_or_else(|| panic!("{ev:?} not in {log:?}"))
}

#[track_caller]
fn assert_before(log: &[Ev], first: Ev, then: Ev) {
    assert!(at(log, first) < at(log, then), "{first:?} should come before {then:?} in {log:?}");
}

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct SetA;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct SetB;

// ===== Explicit ApplyDeferred as the automatic sync point =====================================

#[test]
fn explicit_sync_point_between_writer_and_reader_needs_no_automatic_one() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain());
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2), Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}");
        assert_eq!(schedule.len(), 3, "{kind:?}");
        world.check_invariants();
    }
}

#[test]
fn explicit_sync_point_in_a_longer_chain_serves_its_distance_and_autos_fill_the_rest() {
    // w1 -> (auto, level 1) -> w2 -> AD (level 2) -> w3 -> (auto, level 3) -> r4
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, w::<2>, ApplyDeferred, w::<3>, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(
            log(&world),
            [Ran(1), Applied(1), Ran(2), Applied(2), Ran(3), Applied(3), Ran(4)],
            "{kind:?}: each step sees the previous one's commands"
        );
        assert_eq!(schedule.auto_sync_points(), 2, "{kind:?}");
        assert_eq!(schedule.len(), 5, "{kind:?}");
    }
}

#[test]
fn two_explicit_sync_points_at_one_distance_both_apply() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain());
        schedule.add_systems((w::<3>, ApplyDeferred, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(
            log(&world),
            [Ran(1), Applied(1), Ran(2), Ran(3), Applied(3), Ran(4)],
            "{kind:?}: insertion order between the chains, each reader after its sync point"
        );
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}");
        assert_eq!(schedule.len(), 6, "{kind:?}");
    }
}

#[test]
fn explicit_sync_point_of_one_chain_serves_an_unrelated_chain_at_its_distance() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems((r::<3>, ApplyDeferred, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}: the explicit one is reused");
        assert_eq!(schedule.len(), 5, "{kind:?}");
        // w1 -> AD -> r2 and r3 -> AD -> r4; the rest in insertion order.
        assert_eq!(log(&world), [Ran(1), Ran(3), Applied(1), Ran(2), Ran(4)], "{kind:?}");
    }
}

#[test]
fn several_chains_share_an_explicit_sync_point_and_get_automatic_ones_elsewhere() {
    // Chain A: w1 -> AD(level 1) -> r2. Chain B: w3 -> w4 (level 1) -> r5 (level 2).
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain());
        schedule.add_systems((w::<3>, w::<4>, r::<5>).chain());
        schedule.run(&mut world);
        let log = log(&world);
        assert_before(&log, Applied(1), Ran(2));
        assert_before(&log, Applied(3), Ran(4));
        assert_before(&log, Applied(4), Ran(5));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: level 1 is the explicit one, level 2 automatic");
        assert_eq!(schedule.len(), 6, "{kind:?}");
        assert_eq!(log.len(), 8, "{kind:?}: {log:?}");
    }
}

#[test]
fn chains_with_explicit_sync_points_at_different_distances() {
    // Chain A: w1 -> (1) -> w2 -> AD (2) -> r3.  Chain B: w4 -> (1) w5 -> (2) w6 -> (3) r7.
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, w::<2>, ApplyDeferred, r::<3>).chain());
        schedule.add_systems((w::<4>, w::<5>, w::<6>, r::<7>).chain());
        schedule.run(&mut world);
        let log = log(&world);
        assert_before(&log, Applied(1), Ran(2));
        assert_before(&log, Applied(2), Ran(3));
        assert_before(&log, Applied(4), Ran(5));
        assert_before(&log, Applied(5), Ran(6));
        assert_before(&log, Applied(6), Ran(7));
        assert_eq!(schedule.auto_sync_points(), 2, "{kind:?}: levels 1 and 3 are automatic, 2 explicit");
        assert_eq!(schedule.len(), 8, "{kind:?}");
        assert_eq!(log.len(), 12, "{kind:?}: {log:?}");
    }
}

#[test]
fn explicit_sync_point_before_the_writer_does_not_serve_the_reader() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((ApplyDeferred, w::<1>, r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
        assert_eq!(schedule.len(), 3, "{kind:?}");
    }
}

#[test]
fn an_unordered_explicit_sync_point_does_not_serve_a_chain() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems(ApplyDeferred);
        schedule.run(&mut world);
        assert_before(&log(&world), Applied(1), Ran(2));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: the lone ApplyDeferred is at distance 0");
        assert_eq!(schedule.len(), 3, "{kind:?}");
    }
}

#[test]
fn rebuilding_after_adding_systems_recomputes_the_sync_points() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
        schedule.add_systems((r::<3>, ApplyDeferred, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}: the new explicit one replaces the automatic one");
        assert_eq!(schedule.len(), 5, "{kind:?}");
        let log = log(&world);
        assert_eq!(&log[..3], [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_before(&log[3..], Applied(1), Ran(2));
    }
}

// ===== Explicit ApplyDeferred with run conditions ==============================================

#[test]
fn conditional_sync_point_false_is_not_reused_by_another_chain() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems((r::<3>, ApplyDeferred.run_if(|| false), r::<4>).chain());
        schedule.run(&mut world);
        assert_before(&log(&world), Applied(1), Ran(2));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
        assert_eq!(schedule.len(), 5, "{kind:?}");
    }
}

#[test]
fn conditional_sync_point_true_is_not_reused_either() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems((r::<3>, ApplyDeferred.run_if(|| true), r::<4>).chain());
        schedule.run(&mut world);
        assert_before(&log(&world), Applied(1), Ran(2));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: a condition may be false on another run");
    }
}

#[test]
fn sync_point_in_a_conditional_set_is_not_reused() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.run_if(|| false));
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems((r::<3>, ApplyDeferred.in_set(SetA), r::<4>).chain());
        schedule.run(&mut world);
        assert_before(&log(&world), Applied(1), Ran(2));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
    }
}

#[test]
fn sync_point_in_a_conditional_group_is_not_reused() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, r::<2>).chain());
        schedule.add_systems((r::<3>, ApplyDeferred, r::<4>).chain().run_if(|| false));
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}: the group never ran");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
    }
}

#[test]
fn skipped_conditional_sync_point_in_a_chain_still_leaves_the_reader_synced() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred.run_if(|| false), r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!((log(&world), schedule.auto_sync_points()), (vec![Ran(1), Applied(1), Ran(2)], 1), "{kind:?}");
    }
}

#[test]
fn skipped_sync_point_of_a_conditional_set_in_a_chain_still_leaves_the_reader_synced() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.run_if(|| false));
        schedule.add_systems((w::<1>, ApplyDeferred.in_set(SetA), r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!((log(&world), schedule.auto_sync_points()), (vec![Ran(1), Applied(1), Ran(2)], 1), "{kind:?}");
    }
}

#[test]
fn skipped_conditional_sync_point_with_a_direct_edge_gets_an_automatic_one() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred.run_if(|| false), r::<2>.after(w::<1>)).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
    }
}

#[test]
fn toggled_sync_point_condition_decides_per_run_with_auto_sync_off() {
    #[derive(Resource)]
    struct Flag(bool);
    fn flag(flag: Res<Flag>) -> bool {
        flag.0
    }
    for kind in EXECUTORS {
        let mut world = world();
        world.insert_resource(Flag(false));
        let mut schedule = schedule(kind);
        schedule.set_auto_sync(false);
        schedule.add_systems((w::<1>, ApplyDeferred.run_if(flag), r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Ran(2), Applied(1)], "{kind:?}: skipped: applied at the end");
        world.resource_mut::<Flag>().0 = true;
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}: ran: applied before r2");
        assert_eq!(schedule.auto_sync_points(), 0);
    }
}

// ===== set_auto_sync(false) ====================================================================

#[test]
fn auto_sync_off_keeps_only_the_explicit_sync_point() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.set_auto_sync(false);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain());
        schedule.add_systems((w::<3>, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(
            log(&world),
            [Ran(1), Applied(1), Ran(2), Ran(3), Ran(4), Applied(3)],
            "{kind:?}: w3 runs after the explicit point (insertion order), its commands wait for the end"
        );
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}");
        assert_eq!(schedule.len(), 5, "{kind:?}");
    }
}

#[test]
fn auto_sync_on_routes_the_second_chain_through_the_explicit_sync_point() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain());
        schedule.add_systems((w::<3>, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Ran(3), Applied(1), Applied(3), Ran(2), Ran(4)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}");
        assert_eq!(schedule.len(), 5, "{kind:?}");
    }
}

#[test]
fn switching_auto_sync_off_and_on_rebuilds_the_plan() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, w::<2>, ApplyDeferred, w::<3>, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 2, "{kind:?}");
        schedule.set_auto_sync(false);
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}");
        assert_eq!(log(&world), [Ran(1), Ran(2), Applied(1), Applied(2), Ran(3), Ran(4), Applied(3)], "{kind:?}");
        schedule.set_auto_sync(true);
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 2, "{kind:?}");
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2), Applied(2), Ran(3), Applied(3), Ran(4)], "{kind:?}");
        assert_eq!(schedule.len(), 5);
    }
}

// ===== Cycles ==================================================================================

#[test]
fn a_cycle_between_command_systems_is_still_an_error() {
    for auto in [true, false] {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_auto_sync(auto);
        schedule.add_systems((w::<1>.after(w::<2>), w::<2>.after(w::<1>)));
        let error = schedule.initialize(&mut world).unwrap_err();
        assert!(error.to_string().starts_with("schedule has an ordering cycle"), "{auto}: {error}");
        let message = panic_message(|| schedule.run(&mut world));
        assert!(message.starts_with("schedule has an ordering cycle"), "{auto}: {message}");
        assert!(log(&world).is_empty(), "nothing ran");
    }
}

#[test]
fn a_cycle_through_an_explicit_sync_point_via_sets_is_an_error() {
    for auto in [true, false] {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_auto_sync(auto);
        schedule.add_systems((w::<1>.in_set(SetA), ApplyDeferred, r::<2>.in_set(SetB)).chain());
        schedule.configure_sets(SetA.after(SetB));
        let error = schedule.initialize(&mut world).unwrap_err();
        assert!(error.to_string().contains("cycle"), "{auto}: {error}");
        assert_eq!(schedule.auto_sync_points(), 0);
        // Removing nothing: every run keeps refusing, and runs nothing.
        assert!(panic_message(|| schedule.run(&mut world)).contains("cycle"));
        assert!(log(&world).is_empty());
    }
}

// ===== Conditions whose parameters cannot be built ============================================

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Vacant;

#[derive(Resource, Default)]
struct Calls(u32);

#[derive(Resource, Default)]
struct Evaluations(AtomicU32);

fn guarded(mut calls: ResMut<Calls>) {
    calls.0 += 1;
}

fn vacant(_: Single<&Vacant>) -> bool {
    true
}

fn has_player(_: Single<&Player>) -> bool {
    true
}

fn counted(evaluations: Res<Evaluations>) -> bool {
    evaluations.0.fetch_add(1, Ordering::SeqCst);
    true
}

fn counted_false(evaluations: Res<Evaluations>) -> bool {
    evaluations.0.fetch_add(1, Ordering::SeqCst);
    false
}

fn calls(world: &World) -> u32 {
    world.resource::<Calls>().0
}

fn evaluations(world: &World) -> u32 {
    world.resource::<Evaluations>().0.load(Ordering::SeqCst)
}

#[test]
fn single_condition_counts_none_and_several_as_false() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(has_player));
        schedule.run(&mut world);
        assert_eq!(calls(&world), 0, "{kind:?}: no player");
        let p = world.spawn(Player).id();
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}: one player");
        let q = world.spawn(Player).id();
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}: two players");
        world.despawn(p);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 2, "{kind:?}: one again");
        world.entity_mut(q).insert(Disabled);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 2, "{kind:?}: the only player is disabled");
        world.spawn((Player, Prefab));
        world.spawn(Player);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 3, "{kind:?}: prefab and disabled players do not count");
    }
}

#[test]
fn single_condition_sees_an_entity_spawned_by_a_chained_command_system() {
    fn spawn_player(mut commands: Commands) {
        commands.spawn(Player);
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((spawn_player, guarded.run_if(has_player)).chain());
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}: evaluated after the automatic sync point");
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}: two players now");
        assert_eq!(schedule.auto_sync_points(), 1);
    }
}

#[test]
fn vacant_or_counter_runs_and_evaluates_the_counter_once_per_run() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(vacant.or(counted)));
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        assert_eq!((calls(&world), evaluations(&world)), (3, 3), "{kind:?}");
    }
}

#[test]
fn vacant_and_counter_never_evaluates_the_counter() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(vacant.and(counted)));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (0, 0), "{kind:?}");
    }
}

#[test]
fn counter_and_vacant_evaluates_the_counter_and_is_false() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(counted.and(vacant)));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (0, 2), "{kind:?}");
    }
}

#[test]
fn not_of_a_vacant_condition_is_false_as_in_bevy() {
    // Bevy: `not` forwards the inner condition's validation error, so the
    // negation of a condition that cannot run is skipped (false), not true.
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(not(vacant)));
        schedule.run(&mut world);
        assert_eq!(calls(&world), 0, "{kind:?}");
        world.spawn(Vacant);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 0, "{kind:?}: now vacant is true, so not(vacant) is false");
        world.spawn(Vacant);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 0, "{kind:?}: two: invalid again");
    }
}

#[test]
fn not_of_vacant_inside_or_falls_through_to_the_other_half() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(not(vacant).or(counted)));
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (1, 1), "{kind:?}");
        let mut schedule = self::schedule(kind);
        schedule.add_systems(guarded.run_if(not(vacant).and(counted)));
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (1, 1), "{kind:?}: and short-circuits");
    }
}

#[test]
fn not_of_a_combination_with_a_vacant_half_negates_its_verdict() {
    // Bevy: `a.or(b)` maps a skipped half to false, so the combination is
    // valid; `not` negates its result.
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(not(vacant.or(counted_false))));
        schedule.add_systems(r::<1>.run_if(not(vacant.and(counted))));
        schedule.add_systems(r::<2>.run_if(not(vacant.or(counted))));
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}: !(false || false)");
        assert_eq!(log(&world), [Ran(1)], "{kind:?}: !(false && ..) runs, !(false || true) does not");
        assert_eq!(evaluations(&world), 2, "{kind:?}: counted_false and counted, never the and's counted");
    }
}

#[test]
fn option_single_condition_is_always_evaluated() {
    fn maybe_player(player: Option<Single<&Player>>, evaluations: Res<Evaluations>) -> bool {
        evaluations.0.fetch_add(1, Ordering::SeqCst);
        player.is_some()
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(maybe_player));
        schedule.run(&mut world);
        world.spawn(Player);
        schedule.run(&mut world);
        world.spawn(Player);
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (1, 3), "{kind:?}");
    }
}

#[test]
fn every_run_if_is_evaluated_even_behind_a_vacant_one() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(vacant).run_if(counted));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!((calls(&world), evaluations(&world)), (0, 2), "{kind:?}");
    }
}

#[test]
fn a_vacant_set_condition_skips_the_set_and_is_shared() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.run_if(vacant.or(counted_false)));
        schedule.add_systems((w::<1>, r::<2>, w::<3>).chain().in_set(SetA));
        schedule.add_systems(r::<4>);
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(4), Ran(4)], "{kind:?}");
        assert_eq!(evaluations(&world), 2, "{kind:?}: once per run for the whole set");
    }
}

#[test]
fn a_set_condition_is_evaluated_once_per_run_even_across_sync_points() {
    fn spawn_player(mut commands: Commands) {
        commands.spawn(Player);
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.run_if(has_player.and(counted)));
        schedule.add_systems((r::<1>.in_set(SetA), spawn_player, r::<2>.in_set(SetA)).chain());
        // Run 1: no player when r1 is due: the set is off for the whole run,
        // r2 included (its verdict is not recomputed after the spawn).
        schedule.run(&mut world);
        assert_eq!(log(&world), [], "{kind:?}");
        assert_eq!(evaluations(&world), 0, "{kind:?}: vacant short-circuits");
        // Run 2: one player when r1 is due: both run, the condition once.
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Ran(2)], "{kind:?}");
        assert_eq!(evaluations(&world), 1, "{kind:?}");
        // Run 3: two players.
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
    }
}

#[test]
fn a_local_counter_condition_on_a_group_ticks_once_per_run() {
    fn every_other(mut n: Local<u32>) -> bool {
        *n += 1;
        *n % 2 == 1
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((r::<1>, w::<2>, r::<3>).chain().run_if(every_other));
        for _ in 0..4 {
            schedule.run(&mut world);
        }
        let ran: Vec<Ev> = log(&world).into_iter().filter(|e| matches!(e, Ran(_))).collect();
        assert_eq!(ran, [Ran(1), Ran(2), Ran(3), Ran(1), Ran(2), Ran(3)], "{kind:?}: runs 1 and 3");
    }
}

#[test]
fn a_local_counter_behind_a_vacant_or_ticks_once_per_run() {
    fn every_other(mut n: Local<u32>) -> bool {
        *n += 1;
        *n % 2 == 1
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.run_if(vacant.or(every_other)));
        schedule.add_systems((r::<1>.in_set(SetA), r::<2>.in_set(SetA), guarded.in_set(SetA)));
        for _ in 0..5 {
            schedule.run(&mut world);
        }
        assert_eq!(calls(&world), 3, "{kind:?}: runs 1, 3, 5");
        assert_eq!(log(&world).len(), 6, "{kind:?}");
    }
}

#[test]
fn a_vacant_condition_on_an_exclusive_system_skips_it_without_panicking() {
    fn exclusive(world: &mut World) {
        world.resource_mut::<Calls>().0 += 1;
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, exclusive.run_if(vacant), r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!(calls(&world), 0, "{kind:?}");
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        world.spawn(Vacant);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 1, "{kind:?}");
    }
}

#[test]
fn a_vacant_condition_on_an_explicit_sync_point_skips_it_without_panicking() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.set_auto_sync(false);
        schedule.add_systems((w::<1>, ApplyDeferred.run_if(vacant), r::<2>).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Ran(2), Applied(1)], "{kind:?}");
        world.spawn(Vacant);
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
    }
}

#[test]
fn a_panicking_condition_still_propagates_inside_or_and_not() {
    fn boom() -> bool {
        panic!("condition boom")
    }
    for kind in EXECUTORS {
        for variant in 0..3 {
            let mut world = world();
            let mut schedule = schedule(kind);
            // w1 first, so it completed before the condition panics.
            match variant {
                0 => schedule.add_systems((w::<1>, guarded.run_if(vacant.or(boom))).chain()),
                1 => schedule.add_systems((w::<1>, guarded.run_if(not(boom))).chain()),
                _ => schedule.add_systems((w::<1>, guarded.run_if(counted.and(boom))).chain()),
            };
            let message = panic_message(|| schedule.run(&mut world));
            assert!(message.contains("condition boom"), "{kind:?} {variant}: {message}");
            assert_eq!(calls(&world), 0, "{kind:?} {variant}: the guarded system did not run");
            assert_eq!(log(&world), [Ran(1), Applied(1)], "{kind:?} {variant}: other systems' commands applied");
            // The schedule can run again, and panics again.
            let message = panic_message(|| schedule.run(&mut world));
            assert!(message.contains("condition boom"), "{kind:?} {variant}: {message}");
            assert_eq!(log(&world), [Ran(1), Applied(1), Ran(1), Applied(1)], "{kind:?} {variant}");
            assert_eq!(evaluations(&world), if variant == 2 { 2 } else { 0 }, "{kind:?} {variant}");
        }
    }
}

#[test]
fn a_missing_resource_in_a_condition_half_still_panics() {
    #[derive(Resource)]
    struct Missing;
    fn needs_missing(_: Res<Missing>) -> bool {
        true
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(vacant.or(needs_missing)));
        let message = panic_message(|| schedule.run(&mut world));
        assert!(message.contains("Missing"), "{kind:?}: {message}");
        assert_eq!(calls(&world), 0);
    }
}

#[test]
fn a_combined_condition_run_directly_validates_each_half() {
    let mut world = world();
    let mut either = vacant.or(counted);
    assert!(either.run((), &mut world));
    let mut both = vacant.and(counted);
    assert!(!both.run((), &mut world));
    let mut negated_either = not(vacant.or(counted_false));
    assert!(negated_either.run((), &mut world));
    assert_eq!(evaluations(&world), 2);
    world.spawn(Vacant);
    assert!(both.run((), &mut world));
    assert_eq!(evaluations(&world), 3);
}

// ===== Permanent built-ins =====================================================================

fn builtins(world: &World) -> [(&'static str, Entity); 4] {
    [
        ("ChildOf", world.component_id::<ChildOf>().unwrap()),
        ("IsA", world.component_id::<IsA>().unwrap()),
        ("Disabled", world.component_id::<Disabled>().unwrap()),
        ("Prefab", world.component_id::<Prefab>().unwrap()),
    ]
}

/// The built-ins still work: hierarchy cleanup, instantiation, hiding.
#[track_caller]
fn assert_builtins_work(world: &mut World) {
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    assert_eq!(world.target::<ChildOf>(child), Some(parent));
    let prefab = world.spawn((Prefab, Player)).id();
    let instance = world.instantiate(prefab);
    assert!(world.has::<Player>(instance), "inherited from the prefab");
    let hidden = world.spawn((Player, Disabled)).id();
    let visible: Vec<Entity> = world.query_filtered::<Entity, With<Player>>().iter(world).collect();
    assert_eq!(visible, [instance], "prefab and disabled entities hidden");
    world.despawn(parent);
    assert!(!world.is_alive(child), "ChildOf still deletes children");
    for e in [prefab, instance, hidden] {
        world.despawn(e);
    }
    world.check_invariants();
}

#[test]
fn despawn_and_try_despawn_of_each_builtin_return_false_and_change_nothing() {
    let mut world = world();
    let user = world.spawn(Vacant).id();
    let count = world.entity_count();
    for (name, builtin) in builtins(&world) {
        let ids = world.ids_of(builtin).map(<[Id]>::to_vec);
        assert!(!world.despawn(builtin), "{name}");
        assert_eq!(world.try_despawn(builtin), Ok(false), "{name}");
        world.entity_mut(builtin).despawn();
        assert!(world.is_alive(builtin), "{name}");
        assert_eq!(world.ids_of(builtin).map(<[Id]>::to_vec), ids, "{name}: its ids unchanged");
    }
    assert_eq!(world.entity_count(), count);
    assert!(world.is_alive(user));
    assert_builtins_work(&mut world);
}

#[test]
fn commands_despawning_a_builtin_leave_it_and_the_other_commands_apply() {
    #[derive(Resource)]
    struct Targets(Vec<Entity>);
    fn despawn_targets(targets: Res<Targets>, mut commands: Commands) {
        for &target in &targets.0 {
            commands.entity(target).despawn();
        }
        commands.spawn(Player);
    }
    for kind in EXECUTORS {
        let mut world = world();
        let targets = builtins(&world).map(|(_, e)| e).to_vec();
        world.insert_resource(Targets(targets.clone()));
        let mut schedule = schedule(kind);
        schedule.add_systems((despawn_targets, guarded.run_if(has_player)).chain());
        schedule.run(&mut world);
        assert!(targets.iter().all(|&t| world.is_alive(t)), "{kind:?}");
        assert_eq!(calls(&world), 1, "{kind:?}: the spawn after the despawns applied");
        world.resource_mut::<Targets>().0.clear();
        for (_, e) in builtins(&world) {
            world.despawn(e);
        }
        world.query_filtered::<Entity, With<Player>>().iter(&world).collect::<Vec<_>>().into_iter().for_each(|e| {
            world.despawn(e);
        });
        assert_builtins_work(&mut world);
    }
}

#[test]
fn despawning_the_parent_of_the_childof_entity_only_removes_the_pair() {
    let drops = DropLog::new();
    {
        let mut world = world();
        let child_of = world.component_id::<ChildOf>().unwrap();
        let parent = world.spawn_empty().id();
        world.insert(child_of, drops.table(7));
        world.entity_mut(child_of).add_pair::<ChildOf>(parent);
        assert_eq!(world.target::<ChildOf>(child_of), Some(parent));
        assert!(world.despawn(parent));
        assert!(world.is_alive(child_of));
        assert_eq!(world.target::<ChildOf>(child_of), None, "the pair is gone");
        assert_eq!(world.get::<ecs_tests::DropTable>(child_of).map(|d| d.id), Some(7), "its data stays");
        assert_eq!(drops.count(), 0);
        assert_builtins_work(&mut world);
    }
    drops.assert_dropped_once([7]);
}

#[test]
fn children_of_a_builtin_survive_a_cascade_that_spares_the_builtin() {
    let mut world = world();
    let is_a = world.component_id::<IsA>().unwrap();
    let parent = world.spawn_empty().id();
    world.entity_mut(is_a).add_pair::<ChildOf>(parent);
    let grandchild = world.spawn((Player, ChildOf.pair(is_a))).id();
    assert!(world.despawn(parent));
    assert!(world.is_alive(is_a));
    assert!(world.is_alive(grandchild), "its parent (IsA) lives, so it is not deleted");
    assert_eq!(world.target::<ChildOf>(grandchild), Some(is_a));
    world.check_invariants();
    world.despawn(grandchild);
    assert_builtins_work(&mut world);
}

#[test]
fn a_delete_target_relationship_on_a_builtin_only_loses_its_pair() {
    #[derive(Relationship)]
    #[relationship(on_delete_target = "delete")]
    struct OwnedBy;
    let mut world = world();
    let prefab = world.component_id::<Prefab>().unwrap();
    let owner = world.spawn_empty().id();
    let owned = world.spawn(OwnedBy.pair(owner)).id();
    world.entity_mut(prefab).add_pair::<OwnedBy>(owner);
    assert!(world.despawn(owner));
    assert!(!world.is_alive(owned), "a user entity is deleted");
    assert!(world.is_alive(prefab));
    assert!(!world.has_pair::<OwnedBy>(prefab, owner));
    assert_builtins_work(&mut world);
}

#[test]
fn despawning_a_delete_relationship_held_by_a_builtin_only_removes_the_pair() {
    #[derive(Relationship)]
    #[relationship(on_delete = "delete")]
    struct Doomed;
    let mut world = world();
    let disabled = world.component_id::<Disabled>().unwrap();
    let target = world.spawn_empty().id();
    let holder = world.spawn(Doomed.pair(target)).id();
    world.entity_mut(disabled).add_pair::<Doomed>(target);
    let doomed = world.component_id::<Doomed>().unwrap();
    assert!(world.despawn(doomed));
    assert!(!world.is_alive(holder), "the user holder is deleted (on_delete = delete)");
    assert!(world.is_alive(disabled));
    assert!(world.is_alive(target));
    assert!(!world.has_id(disabled, Id::pair(doomed, target)));
    assert_builtins_work(&mut world);
}

#[test]
fn refused_despawn_of_a_builtin_fires_no_observer() {
    #[derive(Component)]
    struct Tagged;
    let removed = Arc::new(AtomicU32::new(0));
    let despawned = Arc::new(AtomicU32::new(0));
    let mut world = world();
    let (r, d) = (removed.clone(), despawned.clone());
    world.add_observer(move |_: Trigger<OnRemove, Tagged>| {
        r.fetch_add(1, Ordering::SeqCst);
    });
    world.add_observer(move |_: Trigger<OnDespawn>| {
        d.fetch_add(1, Ordering::SeqCst);
    });
    for (name, builtin) in builtins(&world) {
        world.insert(builtin, Tagged);
        assert!(!world.despawn(builtin), "{name}");
        assert!(world.has::<Tagged>(builtin), "{name}");
    }
    assert_eq!(removed.load(Ordering::SeqCst), 0);
    assert_eq!(despawned.load(Ordering::SeqCst), 0);
}

#[test]
fn clear_entities_spares_builtins_that_are_children_of_user_entities() {
    let drops = DropLog::new();
    {
        let mut world = world();
        let parent = world.spawn(drops.table(1)).id();
        for (i, (_, builtin)) in builtins(&world).into_iter().enumerate() {
            world.insert(builtin, drops.table(10 + i as u32));
            world.entity_mut(builtin).add_pair::<ChildOf>(parent);
        }
        world.spawn((drops.table(2), ChildOf.pair(parent)));
        world.clear_entities();
        assert_eq!(world.entity_count(), 0);
        assert!(!world.is_alive(parent));
        drops.assert_dropped_once([1, 2]);
        for (name, builtin) in builtins(&world) {
            assert!(world.is_alive(builtin), "{name}");
            assert_eq!(world.target::<ChildOf>(builtin), None, "{name}");
        }
        assert_builtins_work(&mut world);
        world.check_invariants();
    }
    drops.assert_dropped_once([1, 2, 10, 11, 12, 13]);
}

#[test]
fn world_drop_drops_the_data_on_builtins_exactly_once_after_refused_despawns() {
    let drops = DropLog::new();
    {
        let mut world = world();
        for (i, (_, builtin)) in builtins(&world).into_iter().enumerate() {
            world.insert(builtin, drops.table(i as u32));
            world.insert(builtin, drops.sparse(100 + i as u32));
            assert!(!world.despawn(builtin));
            assert_eq!(world.try_despawn(builtin), Ok(false));
        }
        assert_eq!(drops.count(), 0);
    }
    drops.assert_dropped_once([0, 1, 2, 3, 100, 101, 102, 103]);
}

#[test]
fn a_panic_policy_on_a_spared_builtin_does_not_refuse_the_cascade() {
    #[derive(Relationship)]
    #[relationship(on_delete_target = "panic")]
    struct Anchor;
    let mut world = world();
    let is_a = world.component_id::<IsA>().unwrap();
    let parent = world.spawn_empty().id();
    world.entity_mut(is_a).add_pair::<ChildOf>(parent);
    let holder = world.spawn(Anchor.pair(is_a)).id();
    assert_eq!(world.try_despawn(parent), Ok(true), "IsA is spared, so nothing anchored to it dies");
    assert!(world.is_alive(is_a));
    assert!(world.has_pair::<Anchor>(holder, is_a));
    world.check_invariants();
    world.despawn(holder);
    assert_builtins_work(&mut world);
}

#[test]
fn a_delete_union_pair_on_a_builtin_only_loses_the_pair() {
    #[derive(Relationship)]
    #[relationship(union, on_delete_target = "delete")]
    struct Mode;
    let mut world = world();
    let prefab = world.component_id::<Prefab>().unwrap();
    let walking = world.spawn_empty().id();
    let user = world.spawn_empty().id();
    world.entity_mut(user).add_pair::<Mode>(walking);
    world.entity_mut(prefab).add_pair::<Mode>(walking);
    assert_eq!(world.target::<Mode>(prefab), Some(walking));
    assert!(world.despawn(walking));
    assert!(!world.is_alive(user), "the user holder is deleted");
    assert!(world.is_alive(prefab));
    assert_eq!(world.target::<Mode>(prefab), None);
    world.check_invariants();
    assert_builtins_work(&mut world);
}

#[test]
fn an_unconditional_sync_point_in_an_ordered_set_serves_the_set() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets(SetA.before(SetB));
        schedule.add_systems(w::<1>.in_set(SetA));
        schedule.add_systems((ApplyDeferred.in_set(SetB), r::<2>.in_set(SetB)));
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 0, "{kind:?}: the set's ApplyDeferred is at distance 1");
        assert_eq!(schedule.len(), 3, "{kind:?}");
    }
}

#[test]
fn a_sync_point_in_a_set_with_a_true_condition_is_not_reused_but_the_reader_is_synced() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.configure_sets((SetA.before(SetB), SetB.run_if(counted)));
        schedule.add_systems(w::<1>.in_set(SetA));
        schedule.add_systems((ApplyDeferred.in_set(SetB), r::<2>.in_set(SetB)));
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
        assert_eq!(evaluations(&world), 1, "{kind:?}: the set condition once");
    }
}

#[test]
fn consecutive_explicit_sync_points_need_no_automatic_one() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, ApplyDeferred, r::<2>, w::<3>, r::<4>).chain());
        schedule.run(&mut world);
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2), Ran(3), Applied(3), Ran(4)], "{kind:?}");
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: only between w3 and r4");
        assert_eq!(schedule.len(), 6, "{kind:?}");
    }
}

#[test]
fn a_diamond_of_command_systems_around_an_explicit_sync_point() {
    // w1 -> {w2, r3} -> r4, with an explicit ApplyDeferred at distance 1 in another chain.
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((r::<5>, ApplyDeferred, r::<6>).chain());
        schedule.add_systems((w::<1>, (w::<2>, r::<3>), r::<4>).chain());
        schedule.run(&mut world);
        let log = log(&world);
        assert_before(&log, Applied(1), Ran(2));
        assert_before(&log, Applied(1), Ran(3));
        assert_before(&log, Applied(2), Ran(4));
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: level 1 explicit, level 2 automatic");
        assert_eq!(schedule.len(), 7, "{kind:?}");
        assert_eq!(log.len(), 8, "{kind:?}: {log:?}");
    }
}

#[derive(Resource, Default)]
struct S1(u32);
#[derive(Resource, Default)]
struct S2(u32);
#[derive(Resource, Default)]
struct S3(u32);

fn s1(mut s: ResMut<S1>) {
    s.0 += 1;
}
fn s2(mut s: ResMut<S2>) {
    s.0 += 1;
}
fn s3(mut s: ResMut<S3>) {
    s.0 += 1;
}

#[test]
fn a_group_condition_over_parallel_systems_is_evaluated_once_per_run() {
    for kind in EXECUTORS {
        let mut world = world();
        world.init_resource::<S1>();
        world.init_resource::<S2>();
        world.init_resource::<S3>();
        let mut schedule = schedule(kind);
        schedule.add_systems((s1, s2, s3).run_if(vacant.or(counted)));
        schedule.add_systems(guarded.run_if(vacant.or(counted)));
        for _ in 0..4 {
            schedule.run(&mut world);
        }
        let ran = (world.resource::<S1>().0, world.resource::<S2>().0, world.resource::<S3>().0, calls(&world));
        assert_eq!(ran, (4, 4, 4, 4), "{kind:?}");
        assert_eq!(evaluations(&world), 8, "{kind:?}: the group's condition and guarded's, once each per run");
        assert!(schedule.ambiguities().is_empty(), "{kind:?}");
    }
}

#[test]
fn run_once_behind_a_vacant_or_fires_on_the_first_run_only() {
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems(guarded.run_if(vacant.or(run_once)));
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        assert_eq!(calls(&world), 1, "{kind:?}");
        // Once vacant matches, the first half decides.
        world.spawn(Vacant);
        schedule.run(&mut world);
        assert_eq!(calls(&world), 2, "{kind:?}");
    }
}

#[test]
fn a_combined_condition_keeps_its_local_state_when_run_directly() {
    fn every_other(mut n: Local<u32>) -> bool {
        *n += 1;
        *n % 2 == 1
    }
    let mut world = world();
    let mut either = vacant.or(every_other);
    let results: Vec<bool> = (0..4).map(|_| either.run((), &mut world)).collect();
    assert_eq!(results, [true, false, true, false]);
    let mut both = every_other.and(vacant);
    let results: Vec<bool> = (0..2).map(|_| both.run((), &mut world)).collect();
    assert_eq!(results, [false, false]);
    world.spawn(Vacant);
    let results: Vec<bool> = (0..4).map(|_| both.run((), &mut world)).collect();
    assert_eq!(results, [true, false, true, false], "the counter ticked on the earlier runs too");
}

#[test]
fn a_group_with_an_explicit_sync_point_under_a_stateful_condition() {
    fn every_other(mut n: Local<u32>) -> bool {
        *n += 1;
        *n % 2 == 1
    }
    for kind in EXECUTORS {
        let mut world = world();
        let mut schedule = schedule(kind);
        schedule.add_systems((w::<1>, ApplyDeferred, r::<2>).chain().run_if(every_other));
        for _ in 0..4 {
            schedule.run(&mut world);
        }
        assert_eq!(log(&world), [Ran(1), Applied(1), Ran(2), Ran(1), Applied(1), Ran(2)], "{kind:?}: runs 1 and 3");
        assert_eq!(schedule.len(), 3, "{kind:?}");
    }
}
