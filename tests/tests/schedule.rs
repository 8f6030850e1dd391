//! Schedules (`ecs::schedule`): ordering constraints (`before`, `after`,
//! `chain` with nested tuples, sets ordered with `configure_sets`, systems
//! ordered against sets and sets against systems), determinism of the
//! multi-threaded executor under mixed access conflicts, real concurrency of
//! non-conflicting systems, run conditions (`not`, `resource_exists`, shared
//! tuple conditions evaluated once, set conditions, conditions that change
//! between runs), build errors (system and set cycles, unknown targets) and
//! their text, panic propagation (systems, run conditions, exclusive systems)
//! and rerun, exclusive systems and `ApplyDeferred` sync points, command
//! order, ambiguity reports and the DOT and text exports.
//!
//! Most ordering tests record system names in a [`Trace`] read through `Res`,
//! so the traced systems share no data and only the constraints under test
//! order them; they run on both executors, and on the multi-threaded one
//! several times over fresh schedules (whose systems all count as long, so the
//! first run is as parallel as the graph allows). Tests that need two systems
//! running at once wait with a timeout ([`within_timeout`]) so that a missing
//! thread fails the test instead of hanging it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard};

use ecs::schedule::{Ambiguity, ExecutorKind, ScheduleBuildError};
use ecs_tests::{Enemy, Position, Velocity, panic_message};

use ecs::prelude::*;
use ecs_tests::{parallel_pool, within_timeout};

// ----- fixtures -------------------------------------------------------------------------

/// System names in the order the systems ran. Systems push through `Res`, so
/// recording adds no access conflict between them.
#[derive(Resource, Default, Debug)]
struct Trace(Mutex<Vec<&'static str>>);

impl Trace {
    fn lock(&self) -> MutexGuard<'_, Vec<&'static str>> {
        // A panicking test system may poison the lock; the names are still fine.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, name: &'static str) {
        self.lock().push(name);
    }
}

/// Declares systems that only push their own name to the [`Trace`].
macro_rules! traced {
    ($($name:ident),* $(,)?) => {
        $(
            fn $name(trace: Res<Trace>) {
                trace.push(stringify!($name));
            }
        )*
    };
}

traced!(a, b, c, d, e, f, g, h);

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
enum Stage {
    A,
    B,
    C,
}

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
struct Early;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
struct Late;

const EXECUTORS: [ExecutorKind; 2] = [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded];

/// How many fresh schedules the ordering tests run on the multi-threaded
/// executor (a first run puts every system on the pool, so each is a new
/// interleaving).
const FRESH_RUNS: usize = 20;

/// Builds a schedule with `configure` on a world holding a [`Trace`], runs it
/// `runs` times with `executor`, and returns the trace of each run.
fn trace_runs(executor: ExecutorKind, runs: usize, configure: &dyn Fn(&mut Schedule)) -> Vec<Vec<&'static str>> {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(executor);
    configure(&mut schedule);
    (0..runs)
        .map(|_| {
            schedule.run(&mut world);
            std::mem::take(&mut *world.resource::<Trace>().lock())
        })
        .collect()
}

/// Every trace of `configure` on both executors (several fresh schedules on
/// the multi-threaded one, each run twice).
fn all_traces(configure: &dyn Fn(&mut Schedule)) -> Vec<Vec<&'static str>> {
    let mut traces = trace_runs(ExecutorKind::SingleThreaded, 2, configure);
    for _ in 0..FRESH_RUNS {
        traces.extend(trace_runs(ExecutorKind::MultiThreaded, 2, configure));
    }
    traces
}

/// Asserts that `trace` holds each of `names` exactly once and that for every
/// `(x, y)` in `order`, `x` ran before `y`.
#[track_caller]
fn assert_partial_order(trace: &[&'static str], names: &[&'static str], order: &[(&'static str, &'static str)]) {
    let mut sorted_trace = trace.to_vec();
    sorted_trace.sort_unstable();
    let mut sorted_names = names.to_vec();
    sorted_names.sort_unstable();
    assert_eq!(sorted_trace, sorted_names, "each system runs once per run: {trace:?}");
    let position = |name: &str| trace.iter().position(|&traced| traced == name).expect("traced");
    for &(first, second) in order {
        assert!(position(first) < position(second), "`{first}` must run before `{second}`: {trace:?}");
    }
}

// ----- ordering constraints --------------------------------------------------------------

#[test]
fn before_and_after_order_systems_that_share_no_data() {
    // Added in the reverse of the required order: only the constraints order them.
    let traces = all_traces(&|schedule| {
        schedule.add_systems((c.after(b), b.after(a), a));
        schedule.add_systems(d.before(a));
        schedule.add_systems(e.after(c).before(f));
        schedule.add_systems(f);
    });
    for trace in traces {
        assert_partial_order(
            &trace,
            &["a", "b", "c", "d", "e", "f"],
            &[("d", "a"), ("a", "b"), ("b", "c"), ("c", "e"), ("e", "f")],
        );
    }
}

#[test]
fn constraints_on_a_tuple_apply_to_each_of_its_systems() {
    let traces = all_traces(&|schedule| {
        schedule.add_systems((a, b).after(c));
        schedule.add_systems((d, e).before(c));
        schedule.add_systems(c);
    });
    for trace in traces {
        assert_partial_order(&trace, &["a", "b", "c", "d", "e"], &[("d", "c"), ("e", "c"), ("c", "a"), ("c", "b")]);
    }
}

#[test]
fn ordering_against_a_system_targets_every_instance_of_it() {
    // `a` is added twice; `b.before(a)` and `c.after(a)` order against both.
    let traces = all_traces(&|schedule| {
        schedule.add_systems((a, c.after(a)));
        schedule.add_systems((b.before(a), a));
    });
    for trace in traces {
        assert_eq!(trace.len(), 4, "{trace:?}");
        let first_a = trace.iter().position(|&name| name == "a").unwrap();
        let last_a = trace.iter().rposition(|&name| name == "a").unwrap();
        let position = |name: &str| trace.iter().position(|&traced| traced == name).unwrap();
        assert!(position("b") < first_a, "{trace:?}");
        assert!(position("c") > last_a, "{trace:?}");
    }
}

#[test]
fn chain_orders_each_element_after_the_previous_one_including_nested_tuples() {
    // a, then b and c (unordered between them), then d and the chained (e, f),
    // then g; `h` is chained on its own in a second call.
    let traces = all_traces(&|schedule| {
        schedule.add_systems((a, (b, c), (d, (e, f).chain()), g).chain());
        schedule.add_systems((h,).chain());
    });
    for trace in traces {
        assert_partial_order(
            &trace,
            &["a", "b", "c", "d", "e", "f", "g", "h"],
            &[
                ("a", "b"),
                ("a", "c"),
                ("b", "d"),
                ("c", "d"),
                ("b", "e"),
                ("c", "e"),
                ("e", "f"),
                ("d", "g"),
                ("f", "g"),
            ],
        );
    }
}

#[test]
fn chain_orders_configured_elements_against_their_neighbours() {
    // Elements that are themselves configured (`run_if`, `after`, `in_set`)
    // still count as one step of the chain.
    let traces = all_traces(&|schedule| {
        schedule.add_systems((c, (a, b).run_if(|| true), d.in_set(Early)).chain());
        schedule.add_systems(e.after(Early));
    });
    for trace in traces {
        assert_partial_order(
            &trace,
            &["a", "b", "c", "d", "e"],
            &[("c", "a"), ("c", "b"), ("a", "d"), ("b", "d"), ("d", "e")],
        );
    }
}

#[test]
fn configure_sets_chain_orders_whole_sets() {
    let traces = all_traces(&|schedule| {
        // Added in the reverse order, and split over several calls.
        schedule.add_systems((a, b).in_set(Stage::C));
        schedule.add_systems(c.in_set(Stage::B));
        schedule.add_systems((d, e).in_set(Stage::A));
        schedule.configure_sets((Stage::A, Stage::B, Stage::C).chain());
    });
    for trace in traces {
        assert_partial_order(&trace, &["a", "b", "c", "d", "e"], &[("d", "c"), ("e", "c"), ("c", "a"), ("c", "b")]);
    }
}

#[test]
fn configure_sets_before_and_after_order_sets_against_sets_and_systems() {
    let traces = all_traces(&|schedule| {
        schedule.add_systems((a.in_set(Late), b.in_set(Early), c.in_set(Stage::A)));
        // Set against set, both ways.
        schedule.configure_sets(Late.after(Stage::A));
        schedule.configure_sets(Early.before(Stage::A));
        // Set against a system, both ways.
        schedule.add_systems((d, e));
        schedule.configure_sets((Stage::B.after(d), Stage::C.before(e)));
        schedule.add_systems((f.in_set(Stage::B), g.in_set(Stage::C)));
    });
    for trace in traces {
        assert_partial_order(
            &trace,
            &["a", "b", "c", "d", "e", "f", "g"],
            &[("b", "c"), ("c", "a"), ("d", "f"), ("g", "e")],
        );
    }
}

#[test]
fn a_system_is_ordered_against_a_set_and_sets_nest_their_constraints() {
    let traces = all_traces(&|schedule| {
        // `a` after everything in Stage::A, `b` before everything in Stage::B.
        schedule.add_systems((a.after(Stage::A), b.before(Stage::B)));
        // `c` is in two sets, so it inherits both sets' constraints.
        schedule.add_systems((c.in_set(Stage::A).in_set(Stage::B), d.in_set(Stage::A), e.in_set(Stage::B)));
        schedule.configure_sets(Stage::B.after(f));
        schedule.add_systems(f);
    });
    for trace in traces {
        assert_partial_order(
            &trace,
            &["a", "b", "c", "d", "e", "f"],
            &[("c", "a"), ("d", "a"), ("b", "c"), ("b", "e"), ("f", "c"), ("f", "e")],
        );
    }
}

#[test]
fn ordering_against_an_empty_set_is_no_constraint() {
    let traces = all_traces(&|schedule| {
        schedule.add_systems((a.after(Stage::A), b.before(Stage::C)));
        schedule.configure_sets(Stage::B.after(Stage::A));
    });
    for trace in traces {
        assert_partial_order(&trace, &["a", "b"], &[]);
    }
}

/// A set per step, to chain many systems.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
struct Step(u32);

#[derive(Resource, Default)]
struct Steps(Mutex<Vec<u32>>);

#[test]
fn more_than_64_systems_keep_their_constraints() {
    // 100 systems that share no data, each ordered after the previous one's
    // set, added in a scrambled order; the graph's bit sets span two words.
    for executor in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Steps>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        for i in (0..100u32).map(|i| (i * 37) % 100) {
            let step = move |steps: Res<Steps>| steps.0.lock().unwrap().push(i);
            if i == 0 {
                schedule.add_systems(step.in_set(Step(0)));
            } else {
                schedule.add_systems(step.in_set(Step(i)).after(Step(i - 1)));
            }
        }
        assert_eq!(schedule.len(), 100);
        for _ in 0..2 {
            schedule.run(&mut world);
            let steps = std::mem::take(&mut *world.resource::<Steps>().0.lock().unwrap());
            assert_eq!(steps, (0..100).collect::<Vec<u32>>(), "{executor:?}");
        }
        assert!(schedule.ambiguities().is_empty());
    }
}

#[derive(Resource, Default, Debug)]
struct Log(Vec<&'static str>);

fn log_one(mut log: ResMut<Log>) {
    log.0.push("one");
}

fn log_two(mut log: ResMut<Log>) {
    log.0.push("two");
}

fn log_three(mut log: ResMut<Log>) {
    log.0.push("three");
}

#[test]
fn unordered_conflicting_systems_run_in_insertion_order_and_constraints_win() {
    for executor in EXECUTORS {
        for _ in 0..FRESH_RUNS {
            let mut world = World::new();
            world.init_resource::<Log>();
            let mut schedule = Schedule::new();
            schedule.set_executor_kind(executor);
            schedule.add_systems((log_three, log_one, log_two.before(log_three)));
            schedule.run(&mut world);
            assert_eq!(world.resource::<Log>().0, ["two", "three", "one"], "{executor:?}");
            let order: Vec<&str> = schedule.execution_order();
            assert_eq!(order, ["schedule::log_two", "schedule::log_three", "schedule::log_one"]);
        }
    }
}

#[test]
fn systems_added_after_a_run_join_the_graph_and_keep_their_state() {
    fn count(mut runs: Local<u32>, trace: Res<Trace>) {
        *runs += 1;
        trace.push(if *runs == 1 { "count first" } else { "count again" });
    }
    for executor in EXECUTORS {
        let mut world = World::new();
        world.insert_resource(Trace::default());
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((count, a.after(count)));
        schedule.run(&mut world);
        schedule.add_systems(b.before(count));
        assert_eq!(schedule.len(), 3);
        schedule.run(&mut world);
        let trace = std::mem::take(&mut *world.resource::<Trace>().lock());
        assert_partial_order(&trace[..2], &["count first", "a"], &[("count first", "a")]);
        assert_partial_order(&trace[2..], &["b", "count again", "a"], &[("b", "count again"), ("count again", "a")]);
    }
}

// ----- determinism -------------------------------------------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Pos(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Vel(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Hp(i64);

#[derive(Component, Debug)]
struct Heavy;

#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
struct Total(i64);

// Every update below is order-sensitive (multiply-then-add, xor, integer
// division), so running two conflicting systems the other way round changes
// the numbers.

/// Writes `Pos`, reads `Vel`.
fn det_integrate(mut q: Query<(&mut Pos, &Vel)>) {
    for (mut pos, vel) in q.iter_mut() {
        pos.0 = pos.0.wrapping_mul(3).wrapping_add(vel.0) % 1_000_003;
    }
}

/// Writes `Vel` of heavy entities (disjoint from [`det_drag`]).
fn det_gravity(mut q: Query<&mut Vel, With<Heavy>>) {
    for mut vel in q.iter_mut() {
        vel.0 -= 7;
    }
}

/// Writes `Vel` of light entities (disjoint from [`det_gravity`]).
fn det_drag(mut q: Query<&mut Vel, Without<Heavy>>) {
    for mut vel in q.iter_mut() {
        vel.0 = vel.0 / 2 + 3;
    }
}

/// Reads `Pos`, writes `Hp`.
fn det_damage(mut q: Query<(&Pos, &mut Hp)>) {
    for (pos, mut hp) in q.iter_mut() {
        hp.0 = (hp.0.wrapping_mul(5) ^ pos.0) % 65_521;
    }
}

/// Writes `Pos` of heavy entities.
fn det_clamp(mut q: Query<&mut Pos, With<Heavy>>) {
    for mut pos in q.iter_mut() {
        pos.0 %= 1000;
    }
}

/// Commands: spawns one entity from the total, makes light entities whose
/// position is a multiple of 3 heavy.
fn det_spawner(mut commands: Commands, total: Res<Total>, q: Query<(Entity, &Pos), Without<Heavy>>) {
    commands.spawn((Pos(total.0 % 97), Vel(total.0 % 13), Hp(1)));
    for (entity, pos) in q.iter() {
        if pos.0 % 3 == 0 {
            commands.entity(entity).insert(Heavy);
        }
    }
}

/// Writes the `Total` resource from every position.
fn det_total(mut total: ResMut<Total>, q: Query<&Pos>) {
    let sum = q.iter().fold(0i64, |sum, pos| sum.wrapping_add(pos.0));
    total.0 = (total.0.wrapping_mul(31).wrapping_add(sum)) % 1_000_000_007;
}

/// Writes `Hp` of light entities from the total.
fn det_heal(mut q: Query<&mut Hp, Without<Heavy>>, total: Res<Total>) {
    for mut hp in q.iter_mut() {
        hp.0 += total.0 % 11;
    }
}

/// Everything observable in a determinism world.
type Snapshot = (Vec<(Entity, Pos, Vel, Hp, bool)>, Total);

fn snapshot(world: &mut World) -> Snapshot {
    let mut rows: Vec<_> = world
        .query::<(Entity, &Pos, &Vel, &Hp, Has<Heavy>)>()
        .iter(world)
        .map(|(entity, pos, vel, hp, heavy)| (entity, *pos, *vel, *hp, heavy))
        .collect();
    rows.sort_unstable();
    (rows, *world.resource::<Total>())
}

/// A fresh world and schedule of the eight systems, run three times (the
/// first run with every system on the pool, the later ones with measured
/// systems inline), and the resulting snapshot.
fn deterministic_run(executor: ExecutorKind) -> (Snapshot, usize) {
    let mut world = World::new();
    world.insert_resource(Total(1));
    for i in 0..40i64 {
        let entity = world.spawn((Pos(i * 7 + 1), Vel(i % 5 - 2), Hp(100 + i))).id();
        if i % 4 == 0 {
            world.insert(entity, Heavy);
        }
    }
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(executor);
    schedule.add_systems((
        det_spawner,
        det_integrate,
        det_gravity,
        det_drag,
        det_damage,
        det_clamp.before(det_integrate),
        det_total,
        det_heal,
    ));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    world.check_invariants();
    let ambiguities = schedule.ambiguities().len();
    (snapshot(&mut world), ambiguities)
}

#[test]
fn mixed_conflicts_give_the_same_world_on_every_multi_threaded_run_and_on_one_thread() {
    // One schedule cannot serve several worlds (its query states belong to the
    // world it was initialized on), and a schedule's first run is the most
    // parallel one (no system measured yet), so every iteration builds a fresh
    // world and schedule: 200 independent cold starts, each followed by warm runs.
    let (expected, ambiguities) = deterministic_run(ExecutorKind::SingleThreaded);
    assert!(ambiguities >= 5, "the test needs unordered conflicting pairs, got {ambiguities}");
    assert_eq!(expected.0.len(), 43, "three spawns on top of 40 entities");
    assert!(expected.0.iter().any(|row| row.4) && expected.0.iter().any(|row| !row.4));
    for iteration in 0..200 {
        let (actual, _) = deterministic_run(ExecutorKind::MultiThreaded);
        assert_eq!(actual, expected, "multi-threaded run {iteration} differs from the single-threaded one");
    }
}

// ----- concurrency -------------------------------------------------------------------------

#[derive(Resource)]
struct Gate(Arc<Barrier>);

#[derive(Resource, Default)]
struct Arrivals(AtomicUsize);

fn meet_left(gate: Res<Gate>, arrivals: Res<Arrivals>) {
    gate.0.wait();
    arrivals.0.fetch_add(1, Ordering::SeqCst);
}

fn meet_right(gate: Res<Gate>, arrivals: Res<Arrivals>) {
    gate.0.wait();
    arrivals.0.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn non_conflicting_systems_run_at_the_same_time_on_a_first_run() {
    if !parallel_pool() {
        eprintln!("skipped: the rayon pool has one thread");
        return;
    }
    // Each system waits for the other at the barrier: the run finishes only if
    // both run at once. A fresh schedule has measured nothing, so neither is
    // taken for a tiny system to run inline.
    let arrivals = within_timeout(|| {
        let mut world = World::new();
        world.insert_resource(Gate(Arc::new(Barrier::new(2))));
        world.init_resource::<Arrivals>();
        let mut schedule = Schedule::new();
        schedule.add_systems((meet_left, meet_right));
        schedule.run(&mut world);
        world.resource::<Arrivals>().0.load(Ordering::SeqCst)
    });
    assert_eq!(arrivals, 2);
}

// ----- run conditions ----------------------------------------------------------------------

/// Counts evaluations of the conditions that read it.
#[derive(Resource, Default)]
struct Evaluations(AtomicUsize);

impl Evaluations {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

fn counted_yes(evaluations: Res<Evaluations>) -> bool {
    evaluations.0.fetch_add(1, Ordering::SeqCst);
    true
}

fn counted_no(evaluations: Res<Evaluations>) -> bool {
    evaluations.0.fetch_add(1, Ordering::SeqCst);
    false
}

#[derive(Resource)]
struct Enabled(bool);

#[derive(Resource)]
struct Paused;

/// The names a run traced, sorted (for conditions, which decide only whether
/// a system runs).
fn ran(world: &World) -> Vec<&'static str> {
    let mut names = std::mem::take(&mut *world.resource::<Trace>().lock());
    names.sort_unstable();
    names
}

fn condition_world() -> World {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    world.init_resource::<Evaluations>();
    world
}

#[test]
fn run_if_true_runs_the_system_and_false_skips_it() {
    for executor in EXECUTORS {
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((a.run_if(|| true), b.run_if(|| false), c));
        schedule.add_systems(d.run_if(|enabled: Res<Enabled>| enabled.0));
        world.insert_resource(Enabled(false));
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["a", "c"], "{executor:?}");
        world.insert_resource(Enabled(true));
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["a", "c", "d"], "{executor:?}");
    }
}

#[test]
fn not_and_resource_exists_follow_the_world() {
    for executor in EXECUTORS {
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((
            a.run_if(resource_exists::<Paused>),
            b.run_if(not(resource_exists::<Paused>)),
            c.run_if(not(|| false)),
            d.run_if(not(not(resource_exists::<Paused>))),
        ));
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["b", "c"], "{executor:?}");
        world.insert_resource(Paused);
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["a", "c", "d"], "{executor:?}");
        world.remove_resource::<Paused>();
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["b", "c"], "{executor:?}");
    }
}

#[test]
fn a_tuple_condition_is_evaluated_once_per_run_and_guards_every_system_of_the_tuple() {
    for executor in EXECUTORS {
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        // Three systems, some ordered after others, under one condition.
        schedule.add_systems((a, b, (c, d).chain()).run_if(counted_yes));
        for run in 1..=3 {
            schedule.run(&mut world);
            assert_eq!(ran(&world), ["a", "b", "c", "d"], "{executor:?}");
            assert_eq!(world.resource::<Evaluations>().count(), run, "{executor:?}: one evaluation per run");
        }

        // A false shared condition: evaluated once, nothing runs.
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((a, b, c).run_if(counted_no));
        schedule.add_systems(d);
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["d", "d"], "{executor:?}");
        assert_eq!(world.resource::<Evaluations>().count(), 2, "{executor:?}");

        // The same function attached to each system separately is two conditions.
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((a.run_if(counted_yes), b.run_if(counted_yes)));
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["a", "b"], "{executor:?}");
        assert_eq!(world.resource::<Evaluations>().count(), 2, "{executor:?}");
    }
}

#[test]
fn set_conditions_guard_every_member_and_combine_with_system_conditions() {
    for executor in EXECUTORS {
        let mut world = condition_world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((a.in_set(Stage::A), b.in_set(Stage::A), c.in_set(Stage::A).run_if(|| false)));
        schedule.add_systems((d.in_set(Stage::B), e));
        schedule.configure_sets(Stage::A.run_if(resource_exists::<Paused>));
        schedule.configure_sets((Stage::B, Stage::C).run_if(counted_yes));
        schedule.add_systems(f.in_set(Stage::C));
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["d", "e", "f"], "{executor:?}");
        assert_eq!(world.resource::<Evaluations>().count(), 1, "one condition shared by two sets");
        world.insert_resource(Paused);
        schedule.run(&mut world);
        assert_eq!(ran(&world), ["a", "b", "d", "e", "f"], "{executor:?}: `c` also needs its own condition");
        assert_eq!(world.resource::<Evaluations>().count(), 2);
    }
}

#[derive(Resource, Default)]
struct Frame(u32);

fn next_frame(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

#[test]
fn conditions_are_evaluated_on_every_run_and_see_earlier_systems_of_the_same_run() {
    for executor in EXECUTORS {
        let mut world = condition_world();
        world.init_resource::<Frame>();
        world.insert_resource(Enabled(true));
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        // `next_frame` is added first and the condition reads what it writes,
        // so the condition is evaluated after it, in the same run.
        schedule.add_systems(next_frame);
        schedule.add_systems(a.run_if(|frame: Res<Frame>| frame.0.is_multiple_of(2)));
        schedule.add_systems(b.run_if(|enabled: Res<Enabled>| enabled.0));
        let mut seen = Vec::new();
        for run in 0..6 {
            world.resource_mut::<Enabled>().0 = run < 3;
            schedule.run(&mut world);
            seen.push(ran(&world));
        }
        assert_eq!(seen, [vec!["b"], vec!["a", "b"], vec!["b"], vec!["a"], vec![], vec!["a"]], "{executor:?}");
    }
}

/// `b` is skipped by its condition; `c` (chained after it) and `d` (after it)
/// must still run, `c` after `a`.
fn check_skipped_system_successors(executor: ExecutorKind) {
    for _ in 0..FRESH_RUNS {
        let traces = trace_runs(executor, 3, &|schedule| {
            schedule.add_systems((a, b.run_if(|| false), c).chain());
            schedule.add_systems(d.after(b));
        });
        for trace in traces {
            assert_partial_order(&trace, &["a", "c", "d"], &[("a", "c")]);
        }
    }
}

/// The members of `Stage::A` are skipped by the set's condition; `c`, ordered
/// after the set, must still run.
fn check_skipped_set_successors(executor: ExecutorKind) {
    let traces = trace_runs(executor, 2, &|schedule| {
        schedule.add_systems((a.in_set(Stage::A), b.in_set(Stage::A), c.after(Stage::A), d));
        schedule.configure_sets(Stage::A.run_if(|| false));
    });
    for trace in traces {
        assert_partial_order(&trace, &["c", "d"], &[]);
    }
}

#[test]
fn a_skipped_system_does_not_hold_back_its_successors() {
    // Regression: the multi-threaded executor once lost the successors that a
    // skipped system made ready while it was going through a batch.
    for executor in EXECUTORS {
        check_skipped_system_successors(executor);
        check_skipped_set_successors(executor);
    }
}

// ----- build errors ----------------------------------------------------------------------

fn cycle_a() {}
fn cycle_b() {}
fn cycle_c() {}

/// Builds `configure` on a new world and returns the build error, after
/// checking that `run` panics with the same text.
fn build_error(configure: impl Fn(&mut Schedule)) -> ScheduleBuildError {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    configure(&mut schedule);
    let error = schedule.initialize(&mut world).expect_err("the schedule must not build");
    let mut schedule = Schedule::new();
    configure(&mut schedule);
    assert_eq!(panic_message(|| schedule.run(&mut world)), error.to_string(), "run panics with the error's text");
    assert!(schedule.ambiguities().is_empty() && schedule.execution_order().is_empty(), "nothing was built");
    error
}

#[test]
fn a_system_cycle_is_an_error_that_names_the_systems() {
    let error = build_error(|schedule| {
        schedule.add_systems((cycle_a.after(cycle_b), cycle_b.after(cycle_a)));
    });
    assert_eq!(error, ScheduleBuildError::SystemCycle(vec!["schedule::cycle_a".into(), "schedule::cycle_b".into()]));
    assert_eq!(
        error.to_string(),
        "schedule has an ordering cycle: `schedule::cycle_a` runs before `schedule::cycle_b`, `schedule::cycle_b` \
         runs before `schedule::cycle_a`; remove one of these constraints"
    );
}

#[test]
fn a_chain_contradicted_by_an_after_is_a_cycle() {
    let error = build_error(|schedule| {
        schedule.add_systems((cycle_a.after(cycle_c), cycle_b, cycle_c).chain());
    });
    assert_eq!(
        error.to_string(),
        "schedule has an ordering cycle: `schedule::cycle_a` runs before `schedule::cycle_b`, `schedule::cycle_b` \
         runs before `schedule::cycle_c`, `schedule::cycle_c` runs before `schedule::cycle_a`; remove one of these \
         constraints"
    );
    // The same through sets: a system's constraints against its own set.
    let error = build_error(|schedule| {
        schedule.add_systems((cycle_a.in_set(Early), cycle_b.before(Early).after(cycle_a)));
    });
    assert!(matches!(&error, ScheduleBuildError::SystemCycle(names) if names.len() == 2), "{error:?}");
}

#[test]
fn a_set_cycle_is_an_error_that_names_the_sets() {
    let error = build_error(|schedule| {
        schedule.add_systems((cycle_a.in_set(Stage::A), cycle_b.in_set(Stage::B)));
        schedule.configure_sets((Stage::A.before(Stage::B), Stage::B.before(Stage::C)));
        schedule.configure_sets(Stage::C.before(Stage::A));
    });
    assert_eq!(error, ScheduleBuildError::SetCycle(vec!["A".into(), "B".into(), "C".into()]));
    assert_eq!(
        error.to_string(),
        "schedule has a set ordering cycle: `A` runs before `B`, `B` runs before `C`, `C` runs before `A`; remove \
         one of these constraints"
    );
    // Empty sets are checked too, and a chain of sets closes a cycle the same way.
    let error = build_error(|schedule| {
        schedule.configure_sets((Early, Late).chain());
        schedule.configure_sets(Early.after(Late));
    });
    assert_eq!(error, ScheduleBuildError::SetCycle(vec!["Early".into(), "Late".into()]));
}

#[test]
fn ordering_against_a_system_that_is_not_in_the_schedule_is_an_error() {
    let error = build_error(|schedule| {
        schedule.add_systems(cycle_a.after(cycle_b));
    });
    assert_eq!(
        error,
        ScheduleBuildError::UnknownSystem {
            constrained: "schedule::cycle_a".into(),
            target: "schedule::cycle_b".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "`schedule::cycle_a` is ordered against system `schedule::cycle_b`, which is not in this schedule; add it, \
         or order against a set"
    );
    let error = build_error(|schedule| {
        schedule.add_systems(cycle_a.in_set(Early));
        schedule.configure_sets(Early.before(cycle_c));
    });
    assert_eq!(
        error,
        ScheduleBuildError::UnknownSystem { constrained: "Early".into(), target: "schedule::cycle_c".into() }
    );
}

#[test]
fn a_schedule_that_failed_to_build_builds_once_the_missing_system_is_added() {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(a.after(b));
    assert!(matches!(schedule.initialize(&mut world), Err(ScheduleBuildError::UnknownSystem { .. })));
    schedule.add_systems(b);
    schedule.initialize(&mut world).expect("builds now");
    schedule.run(&mut world);
    assert_eq!(*world.resource::<Trace>().lock(), ["b", "a"]);
}

// ----- panics ---------------------------------------------------------------------------

/// Set while the panicking system should panic (once).
#[derive(Resource)]
struct PanicOnce(AtomicBool);

#[derive(Component, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Made(&'static str);

fn make_before(mut commands: Commands) {
    commands.spawn(Made("before"));
}

fn explode(mut commands: Commands, once: Res<PanicOnce>) {
    commands.spawn(Made("explode"));
    if once.0.swap(false, Ordering::SeqCst) {
        panic!("explode: first run");
    }
}

fn make_after(mut commands: Commands) {
    commands.spawn(Made("after"));
}

fn made(world: &mut World) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = world.query::<&Made>().iter(world).map(|made| made.0).collect();
    names.sort_unstable();
    names
}

#[test]
fn a_panicking_system_propagates_keeps_completed_commands_and_the_schedule_runs_again() {
    for executor in EXECUTORS {
        let mut world = World::new();
        world.insert_resource(PanicOnce(AtomicBool::new(true)));
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((make_before, explode, make_after).chain());

        let message = panic_message(|| schedule.run(&mut world));
        assert_eq!(message, "explode: first run", "{executor:?}: the system's own payload");
        // `make_before` completed: its spawn is applied. `explode`'s spawn is
        // dropped, and `make_after` never started.
        assert_eq!(made(&mut world), ["before"], "{executor:?}");
        world.check_invariants();

        schedule.run(&mut world);
        assert_eq!(made(&mut world), ["after", "before", "before", "explode"], "{executor:?}");
        world.check_invariants();
        schedule.run(&mut world);
        assert_eq!(made(&mut world).len(), 7, "{executor:?}");
        world.check_invariants();
    }
}

#[test]
fn a_panic_on_the_pool_waits_for_running_systems_and_applies_their_commands() {
    // `explode` and `make_before` share no data and run at the same time on a
    // first run; whichever finishes, the panic comes out of `run` and the
    // completed system's commands are applied.
    let mut world = World::new();
    world.insert_resource(PanicOnce(AtomicBool::new(true)));
    let mut schedule = Schedule::new();
    schedule.add_systems((explode, make_before));
    schedule.add_systems(make_after.after(explode).after(make_before));
    let message = panic_message(|| schedule.run(&mut world));
    assert_eq!(message, "explode: first run");
    let after_panic = made(&mut world);
    assert!(after_panic.is_empty() || after_panic == ["before"], "{after_panic:?}");
    world.check_invariants();
    schedule.run(&mut world);
    let mut expected = after_panic;
    expected.extend(["after", "before", "explode"]);
    expected.sort_unstable();
    assert_eq!(made(&mut world), expected);
    world.check_invariants();
}

fn exploder(gate: Res<Gate>) {
    gate.0.wait();
    panic!("exploder");
}

fn partner(gate: Res<Gate>, mut commands: Commands) {
    gate.0.wait();
    commands.spawn(Made("partner"));
}

#[test]
fn a_panic_waits_for_the_system_running_beside_it_and_applies_its_commands() {
    if !parallel_pool() {
        eprintln!("skipped: the rayon pool has one thread");
        return;
    }
    // The barrier guarantees both are running when `exploder` panics.
    // (Only a first run: once measured, two tiny systems may both run inline,
    // one after the other, and a barrier between them would never open.)
    let (message, made) = within_timeout(|| {
        let mut world = World::new();
        world.insert_resource(Gate(Arc::new(Barrier::new(2))));
        let mut schedule = Schedule::new();
        schedule.add_systems((exploder, partner, make_after.after(exploder)));
        let message = panic_message(|| schedule.run(&mut world));
        world.check_invariants();
        (message, made(&mut world))
    });
    assert_eq!(message, "exploder");
    assert_eq!(made, ["partner"], "the partner finished and its spawn was applied; `make_after` never started");
}

fn condition_explodes(once: Res<PanicOnce>) -> bool {
    if once.0.swap(false, Ordering::SeqCst) {
        panic!("condition: first run");
    }
    true
}

#[test]
fn a_panicking_run_condition_stops_the_run_like_a_panicking_system() {
    for executor in EXECUTORS {
        let mut world = World::new();
        world.insert_resource(PanicOnce(AtomicBool::new(true)));
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((make_before, make_after.run_if(condition_explodes), explode).chain());
        let message = panic_message(|| schedule.run(&mut world));
        assert_eq!(message, "condition: first run", "{executor:?}");
        assert_eq!(made(&mut world), ["before"], "{executor:?}: nothing after the condition started");
        world.check_invariants();
        schedule.run(&mut world);
        assert_eq!(made(&mut world), ["after", "before", "before", "explode"], "{executor:?}");
        world.check_invariants();
    }
}

/// Spawns directly, then panics on its first run.
fn exclusive_explode(world: &mut World) {
    world.spawn(Made("exclusive"));
    if world.resource::<PanicOnce>().0.swap(false, Ordering::SeqCst) {
        panic!("exclusive: first run");
    }
}

#[test]
fn a_panicking_exclusive_system_keeps_its_direct_changes_and_the_schedule_runs_again() {
    for executor in EXECUTORS {
        let mut world = World::new();
        world.insert_resource(PanicOnce(AtomicBool::new(true)));
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((make_before, exclusive_explode, make_after).chain());
        let message = panic_message(|| schedule.run(&mut world));
        assert_eq!(message, "exclusive: first run", "{executor:?}");
        // What an exclusive system did directly stays done.
        assert_eq!(made(&mut world), ["before", "exclusive"], "{executor:?}");
        world.check_invariants();
        schedule.run(&mut world);
        assert_eq!(made(&mut world), ["after", "before", "before", "exclusive", "exclusive"], "{executor:?}");
        world.check_invariants();
    }
}

// ----- exclusive systems, sync points, commands -------------------------------------------

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<usize>);

fn spawn_enemy(mut commands: Commands) {
    commands.spawn(Enemy);
}

fn count_enemies(enemies: Query<&Enemy>, mut seen: ResMut<Seen>) {
    seen.0.push(enemies.iter().count());
}

#[test]
fn apply_deferred_makes_commands_visible_to_later_systems_of_the_same_run() {
    for executor in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Seen>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((spawn_enemy, ApplyDeferred, count_enemies).chain());
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [1, 2], "{executor:?}");

        // Without `chain`: the sync point still runs after the systems added
        // before it and before those added after it.
        let mut world = World::new();
        world.init_resource::<Seen>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((spawn_enemy, ApplyDeferred, count_enemies));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [1], "{executor:?}");
        assert_eq!(schedule.len(), 3);
        world.check_invariants();
    }
}

#[test]
fn with_auto_sync_off_commands_are_visible_on_the_next_run() {
    for executor in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Seen>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.set_auto_sync(false);
        schedule.add_systems((spawn_enemy, count_enemies).chain());
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [0], "{executor:?}: applied at the end of the run");
        assert_eq!(world.query::<&Enemy>().iter(&world).count(), 1);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [0, 1], "{executor:?}");
        world.check_invariants();
    }
}

/// How many [`busy`]-like systems are inside their body right now.
#[derive(Resource, Default)]
struct InFlight(AtomicUsize);

fn busy_one(in_flight: Res<InFlight>, trace: Res<Trace>) {
    in_flight.0.fetch_add(1, Ordering::SeqCst);
    trace.push("busy_one");
    in_flight.0.fetch_sub(1, Ordering::SeqCst);
}

fn busy_two(in_flight: Res<InFlight>, trace: Res<Trace>) {
    in_flight.0.fetch_add(1, Ordering::SeqCst);
    trace.push("busy_two");
    in_flight.0.fetch_sub(1, Ordering::SeqCst);
}

fn solo(world: &mut World) {
    assert_eq!(world.resource::<InFlight>().0.load(Ordering::SeqCst), 0, "an exclusive system runs alone");
    world.resource::<Trace>().push("solo");
    world.spawn(Enemy);
}

fn trace_enemies(enemies: Query<&Enemy>, trace: Res<Trace>) {
    trace.push(if enemies.iter().count() == 1 { "sees the enemy" } else { "sees no enemy" });
}

#[test]
fn exclusive_systems_run_alone_in_insertion_order_and_their_changes_are_immediate() {
    for executor in EXECUTORS {
        for _ in 0..FRESH_RUNS {
            let mut world = World::new();
            world.insert_resource(Trace::default());
            world.init_resource::<InFlight>();
            let mut schedule = Schedule::new();
            schedule.set_executor_kind(executor);
            schedule.add_systems((busy_one, solo, busy_two, trace_enemies));
            schedule.run(&mut world);
            let trace = std::mem::take(&mut *world.resource::<Trace>().lock());
            assert_partial_order(
                &trace,
                &["busy_one", "solo", "busy_two", "sees the enemy"],
                &[("busy_one", "solo"), ("solo", "busy_two"), ("solo", "sees the enemy")],
            );
        }
    }
}

#[derive(Resource, Debug, PartialEq)]
struct Winner(&'static str);

#[test]
fn commands_apply_in_insertion_order_not_run_order() {
    // Two systems with `Commands` never run at the same time (both reserve
    // entity ids, see `two_command_systems_are_ordered_by_insertion...`),
    // so the way to make one finish before a system added earlier is a
    // constraint.
    fn insert_one(mut commands: Commands) {
        commands.insert_resource(Winner("one"));
        commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("one"));
    }
    fn insert_two(mut commands: Commands) {
        commands.insert_resource(Winner("two"));
        commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("two"));
    }
    for executor in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Log>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        // `insert_two` is ordered first but added second: the order of
        // application is insertion order, not run order (without the
        // automatic sync point the ordering would put between them).
        schedule.set_auto_sync(false);
        schedule.add_systems((insert_one, insert_two.before(insert_one)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Winner>(), &Winner("two"), "{executor:?}");
        assert_eq!(world.resource::<Log>().0, ["one", "two"], "{executor:?}");
    }
}

// ----- ambiguities, DOT, description -------------------------------------------------------

fn move_one(mut q: Query<&mut Position>) {
    q.iter_mut().for_each(|mut p| p.x += 1.0);
}

fn move_two(mut q: Query<&mut Position>) {
    q.iter_mut().for_each(|mut p| p.x *= 2.0);
}

fn read_positions(q: Query<&Position>) {
    q.iter().for_each(|p| assert!(p.x.is_finite()));
}

fn move_enemies(mut q: Query<&mut Position, With<Enemy>>) {
    q.iter_mut().for_each(|mut p| p.y += 1.0);
}

fn move_friends(mut q: Query<&mut Position, Without<Enemy>>) {
    q.iter_mut().for_each(|mut p| p.y -= 1.0);
}

fn steer(mut q: Query<&mut Velocity>) {
    q.iter_mut().for_each(|mut v| v.x = -v.x);
}

fn ambiguities_of(configure: impl Fn(&mut Schedule)) -> Vec<Ambiguity> {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    world.init_resource::<Frame>();
    world.spawn((Position::default(), Velocity::default()));
    world.spawn((Position::default(), Enemy));
    let mut schedule = Schedule::new();
    configure(&mut schedule);
    assert!(schedule.ambiguities().is_empty(), "no ambiguities before the build");
    schedule.initialize(&mut world).expect("builds");
    let ambiguities = schedule.ambiguities().to_vec();
    schedule.run(&mut world);
    ambiguities
}

#[test]
fn two_unordered_writers_are_one_ambiguity_named_in_insertion_order() {
    let ambiguities = ambiguities_of(|schedule| {
        schedule.add_systems((move_one, move_two, steer));
    });
    assert_eq!(
        ambiguities,
        [Ambiguity {
            first: "schedule::move_one".into(),
            second: "schedule::move_two".into(),
            conflicts: vec!["Position (Query<&mut Position> vs Query<&mut Position>)".into()],
        }]
    );
    assert_eq!(
        ambiguities[0].to_string(),
        "`schedule::move_one` and `schedule::move_two` conflict on Position (Query<&mut Position> vs Query<&mut \
         Position>)"
    );

    let ambiguities = ambiguities_of(|schedule| {
        schedule.add_systems((read_positions, move_two, move_one));
    });
    let pairs: Vec<(&str, &str)> =
        ambiguities.iter().map(|ambiguity| (ambiguity.first.as_str(), ambiguity.second.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("schedule::read_positions", "schedule::move_two"),
            ("schedule::read_positions", "schedule::move_one"),
            ("schedule::move_two", "schedule::move_one"),
        ]
    );
    assert_eq!(ambiguities[0].conflicts, ["Position (Query<&Position> vs Query<&mut Position>)"]);
}

fn write_enemy_positions(mut q: Query<&mut Position, With<Enemy>>) {
    q.iter_mut().for_each(|mut p| p.x += 1.0);
}

fn read_parent_positions(q: Query<Up<ChildOf, &Position>, Without<Enemy>>) {
    q.iter().for_each(|p| assert!(p.x.is_finite()));
}

fn read_source_position(q: Query<Fixed<&Position>, Without<Enemy>>) {
    q.iter().for_each(|p| assert!(p.x.is_finite()));
}

#[test]
fn reads_of_other_entities_conflict_with_writers_whatever_the_filters() {
    // The rows are disjoint (With<Enemy> / Without<Enemy>), but `Up` reads the
    // parent's Position and `Fixed` a source's: an enemy parent of a friendly
    // child would be read and written at once.
    let ambiguities = ambiguities_of(|schedule| {
        schedule.add_systems((write_enemy_positions, read_parent_positions, read_source_position));
    });
    let pairs: Vec<(&str, &str)> =
        ambiguities.iter().map(|ambiguity| (ambiguity.first.as_str(), ambiguity.second.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("schedule::write_enemy_positions", "schedule::read_parent_positions"),
            ("schedule::write_enemy_positions", "schedule::read_source_position"),
        ]
    );
    assert_eq!(
        ambiguities[0].conflicts,
        ["Position (Query<&mut Position, With<Enemy>> vs Query<Up<ChildOf, &Position>, Without<Enemy>>)"]
    );
    // Readers of other entities do not conflict with each other.
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((read_parent_positions, read_source_position, read_positions));
        }),
        []
    );
}

#[test]
fn ordered_or_disjoint_systems_are_not_ambiguous() {
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_one, move_two.before(move_one)));
        }),
        []
    );
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_one, move_two).chain());
        }),
        []
    );
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_enemies, move_friends));
        }),
        []
    );
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_one, steer, read_positions.after(move_one)));
        }),
        []
    );
    // Ordered through sets.
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_one.in_set(Late), move_two.in_set(Early)));
            schedule.configure_sets(Early.before(Late));
        }),
        []
    );
    // Ordered transitively, through a system that conflicts with neither.
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_one, steer, move_two).chain());
        }),
        []
    );
    // A `With` writer still conflicts with an unfiltered reader.
    assert_eq!(
        ambiguities_of(|schedule| {
            schedule.add_systems((move_enemies, read_positions));
        })
        .len(),
        1
    );
}

#[test]
fn a_run_condition_counts_as_a_read_of_the_systems_it_guards() {
    let ambiguities = ambiguities_of(|schedule| {
        schedule.add_systems((next_frame, a.run_if(|frame: Res<Frame>| frame.0 > 0)));
    });
    assert_eq!(ambiguities.len(), 1, "{ambiguities:?}");
    assert_eq!(ambiguities[0].first, "schedule::next_frame");
    assert_eq!(ambiguities[0].second, "schedule::a");
    assert_eq!(ambiguities[0].conflicts, ["a resource (ResMut<Frame> vs Res<Frame>)"]);
}

#[test]
fn two_command_systems_are_ordered_by_insertion_so_ids_follow_system_order_but_are_not_ambiguous() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_enemy, make_after));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities(), [], "reserving ids in both is nothing a user would order");
    let dot = schedule.to_dot();
    assert!(dot.contains("s0 -> s1 [style=dashed, color=red, label=\"entity reservation (Commands vs Commands)\"]"));
    for executor in EXECUTORS {
        for _ in 0..FRESH_RUNS {
            let mut world = World::new();
            let mut schedule = Schedule::new();
            schedule.set_executor_kind(executor);
            schedule.add_systems((spawn_enemy, make_after));
            schedule.run(&mut world);
            let enemy = world.query_filtered::<Entity, With<Enemy>>().iter(&world).next().unwrap();
            let made = world.query_filtered::<Entity, With<Made>>().iter(&world).next().unwrap();
            assert!(enemy < made, "{executor:?}: the system added first reserves first");
        }
    }
}

#[test]
fn to_dot_has_every_system_and_the_constraint_and_conflict_edges() {
    fn dot_first() {}
    fn dot_second() {}
    let mut world = World::new();
    world.spawn(Position::default());
    let mut schedule = Schedule::new();
    schedule.add_systems((dot_first, dot_second).chain());
    schedule.add_systems((move_one, move_two.in_set(Late), ApplyDeferred, solo.after(dot_second)));
    world.init_resource::<InFlight>();
    world.insert_resource(Trace::default());
    schedule.initialize(&mut world).unwrap();
    let dot = schedule.to_dot();
    assert!(dot.starts_with("digraph schedule {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    for (node, label) in
        ["dot_first", "dot_second", "move_one", "move_two", "apply_deferred", "solo"].iter().enumerate()
    {
        assert!(dot.contains(&format!("  s{node} [label=\"{label}\"")), "node s{node} `{label}` in\n{dot}");
    }
    assert!(dot.contains("  s4 [label=\"apply_deferred\", shape=diamond];"), "{dot}");
    assert!(dot.contains("  s5 [label=\"solo\", style=bold];"), "{dot}");
    // Constraint edges: the chain and `solo.after(dot_second)`.
    assert!(dot.contains("  s0 -> s1;\n"), "{dot}");
    assert!(dot.contains("  s1 -> s5;\n"), "{dot}");
    // The unordered writers get a dashed red conflict edge naming the component.
    let conflict = dot.lines().find(|line| line.trim_start().starts_with("s2 -> s3 ")).expect("conflict edge");
    assert!(conflict.contains("style=dashed, color=red"), "{conflict}");
    assert!(conflict.contains("Position (Query<&mut Position> vs Query<&mut Position>)"), "{conflict}");
    // Set membership.
    assert!(dot.contains("[label=\"Late\", shape=ellipse, style=dashed];"), "{dot}");
    assert!(dot.contains("-> s3 [style=dotted, arrowhead=none];"), "{dot}");
    schedule.run(&mut world);
}

#[test]
fn describe_lists_the_execution_order_waits_conditions_and_ambiguities() {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    world.init_resource::<Frame>();
    let mut schedule = Schedule::new();
    assert_eq!(schedule.describe(), "schedule not built yet: call initialize or run\n");
    schedule.add_systems((b.after(a), a.run_if(resource_exists::<Paused>)));
    schedule.add_systems((move_one, move_two));
    schedule.initialize(&mut world).unwrap();
    let text = schedule.describe();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with("  1. a if resource_exists"), "{text}");
    assert_eq!(lines[1], "  2. b (after: a)", "{text}");
    assert_eq!(lines[2], "  3. move_one", "{text}");
    assert_eq!(lines[3], "  4. move_two (after: move_one [conflict])", "{text}");
    assert_eq!(
        lines[4],
        "ambiguity: move_one and move_two conflict on Position (Query<&mut Position> vs Query<&mut Position>) (run \
         in insertion order)"
    );
    let names: Vec<&str> = schedule.system_names().collect();
    assert_eq!(names, ["schedule::b", "schedule::a", "schedule::move_one", "schedule::move_two"]);
    assert_eq!(schedule.execution_order(), ["schedule::a", "schedule::b", "schedule::move_one", "schedule::move_two"]);
}

/// Ordering through a chain of sets without members: `a.before(E1)`,
/// `E1.before(E2)`, `b.after(E2)` orders `a` before `b` (Bevy collapses
/// empty sets one after another); added against that order, both
/// executors still run `a` first.
#[test]
fn ordering_follows_a_chain_of_empty_sets() {
    #[derive(SystemSet, Hash, PartialEq, Eq, Clone, Debug)]
    struct E1;
    #[derive(SystemSet, Hash, PartialEq, Eq, Clone, Debug)]
    struct E2;
    #[derive(Resource, Default)]
    struct Trace(Vec<u32>);
    fn a(mut trace: ResMut<Trace>) {
        trace.0.push(1);
    }
    fn b(mut trace: ResMut<Trace>) {
        trace.0.push(2);
    }
    for kind in [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded] {
        let mut world = World::new();
        world.init_resource::<Trace>();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(kind);
        schedule.add_systems((b.after(E2), a.before(E1)));
        schedule.configure_sets(E1.before(E2));
        schedule.initialize(&mut world).unwrap();
        assert!(schedule.ambiguities().is_empty(), "{:?}", schedule.ambiguities());
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, vec![1, 2], "{kind:?}");
    }
}
