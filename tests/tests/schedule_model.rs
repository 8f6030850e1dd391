//! Model-based test of the schedule executors: random schedules of 2 to 10
//! systems run three times on the multi-threaded executor and on the
//! single-threaded one, each on its own identically built world, and the two
//! must agree exactly.
//!
//! Each system is one of: a writer of component `C0`/`C1`/`C2`
//! (`x = x * 3 + k`, so the order of two writers matters), a reader of one
//! component folding it into the `Acc` resource (`ResMut`, order-dependent), a
//! writer of the `Flag` resource from a component count, a `Commands` spawner
//! whose value depends on `Acc` (read through `Res`), an exclusive system
//! (`&mut World`: bumps `Flag` and `Acc`, spawns, rewrites `C1`), or an
//! `ApplyDeferred` sync point. Each may get a run condition (constant true,
//! constant false, the parity of `Flag`, a bit of `Acc`). Every system sits in
//! its own set `Slot(i)`; random `before` / `after` constraints between slots
//! only go from an earlier to a later position of a random permutation, so
//! there is no cycle (and the insertion order is not the constraint order).
//!
//! After every run the full worlds are compared (alive entity ids, every
//! entity's `C0`/`C1`/`C2` values, `Acc`, `Flag`), `World::check_invariants`
//! runs, and the per-run traces (ids pushed into a `Mutex<Vec<usize>>` read
//! through `Res`, so tracing adds no conflict) must show: the same set of
//! systems ran on both executors, each at most once, constant-condition
//! systems ran or not as their condition says, and every constraint (and
//! every one implied transitively, also through sync points and skipped
//! systems) between two systems that both ran was observed. Multi-threaded runs happen
//! inside `within_timeout`, so a deadlock fails instead of hanging.
//!
//! A second property adds a deliberate ordering cycle (two or more slots, a
//! mix of `before` and `after`) to a random acyclic schedule: `initialize`
//! must return `Err` on both executors, while the same schedule without the
//! closing edge builds when it is acyclic.
//!
//! Both properties run `CASES` cases each (well under a second in debug); no
//! failure-persistence files are written.

use std::sync::Mutex;

use ecs::schedule::{ExecutorKind, SystemConfigs};
use ecs_tests::within_timeout;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use ecs::prelude::*;

// ----- fixtures ---------------------------------------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct C0(u64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct C1(u64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(storage = "sparse")]
struct C2(u64);

/// The three component types, handled generically.
trait Val: Component + Copy {
    fn make(value: u64) -> Self;
    fn value(&self) -> u64;
    fn value_mut(&mut self) -> &mut u64;
}

macro_rules! impl_val {
    ($($ty:ident),*) => {
        $(
            impl Val for $ty {
                fn make(value: u64) -> Self {
                    $ty(value)
                }
                fn value(&self) -> u64 {
                    self.0
                }
                fn value_mut(&mut self) -> &mut u64 {
                    &mut self.0
                }
            }
        )*
    };
}

impl_val!(C0, C1, C2);

/// An order-dependent fold target.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
struct Acc(u64);

/// Read by run conditions, written by `FlagWrite` and exclusive systems.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
struct Flag(u64);

/// The ids of the systems that ran, in order. Pushed through `Res`.
#[derive(Resource, Default, Debug)]
struct Trace(Mutex<Vec<usize>>);

impl Trace {
    fn push(&self, id: usize) {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(id);
    }

    fn take(&self) -> Vec<usize> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// One set per system, so constraints name exactly one system.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
struct Slot(usize);

// ----- the generated schedule -------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `Query<&mut Cj>`: `x = x * 3 + k`.
    Write(usize, u64),
    /// `Query<&Cj>` folded into `ResMut<Acc>`.
    Fold(usize, u64),
    /// `Query<&Cj>` counted into `ResMut<Flag>`.
    FlagWrite(usize, u64),
    /// `Commands` spawning `Cj(acc ^ k)` with `Res<Acc>`.
    Spawn(usize, u64),
    /// `&mut World`.
    Exclusive(u64),
    /// `ApplyDeferred` (not traced).
    Deferred,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cond {
    None,
    Always,
    Never,
    FlagEven(bool),
    AccOdd,
}

#[derive(Debug, Clone, Copy)]
struct SystemSpec {
    kind: Kind,
    cond: Cond,
}

/// `first` must run before `second` (system ids, i.e. insertion positions);
/// `via_after` picks whether `second.after(Slot(first))` or
/// `first.before(Slot(second))` states it.
#[derive(Debug, Clone, Copy)]
struct Constraint {
    first: usize,
    second: usize,
    via_after: bool,
}

#[derive(Debug, Clone)]
struct Case {
    systems: Vec<SystemSpec>,
    constraints: Vec<Constraint>,
    /// Initial entities: an optional value per component.
    entities: Vec<[Option<u64>; 3]>,
}

fn kind_strategy() -> impl Strategy<Value = Kind> {
    let k = 0u64..1000;
    prop_oneof![
        4 => (0usize..3, k.clone()).prop_map(|(c, k)| Kind::Write(c, k)),
        3 => (0usize..3, k.clone()).prop_map(|(c, k)| Kind::Fold(c, k)),
        1 => (0usize..3, k.clone()).prop_map(|(c, k)| Kind::FlagWrite(c, k)),
        2 => (0usize..3, k.clone()).prop_map(|(c, k)| Kind::Spawn(c, k)),
        1 => k.prop_map(Kind::Exclusive),
        1 => Just(Kind::Deferred),
    ]
}

fn cond_strategy() -> impl Strategy<Value = Cond> {
    prop_oneof![
        6 => Just(Cond::None),
        1 => Just(Cond::Always),
        1 => Just(Cond::Never),
        1 => any::<bool>().prop_map(Cond::FlagEven),
        1 => Just(Cond::AccOdd),
    ]
}

fn system_strategy() -> impl Strategy<Value = SystemSpec> {
    (kind_strategy(), cond_strategy()).prop_map(|(kind, cond)| SystemSpec { kind, cond })
}

fn entities_strategy() -> impl Strategy<Value = Vec<[Option<u64>; 3]>> {
    prop::collection::vec(prop::array::uniform3(prop::option::of(0u64..100)), 0..6)
}

/// `count` system ids in a random order, and constraints that only go from an
/// earlier to a later position of that order (acyclic by construction).
fn acyclic_constraints(count: usize) -> impl Strategy<Value = (Vec<usize>, Vec<Constraint>)> {
    let order = Just((0..count).collect::<Vec<usize>>()).prop_shuffle();
    let pairs = prop::collection::vec((0..count, 0..count, any::<bool>()), 0..=2 * count);
    (order, pairs).prop_map(|(order, pairs)| {
        let constraints = pairs
            .into_iter()
            .filter(|&(a, b, _)| a != b)
            .map(|(a, b, via_after)| Constraint { first: order[a.min(b)], second: order[a.max(b)], via_after })
            .collect();
        (order, constraints)
    })
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (2usize..=10).prop_flat_map(|count| {
        (prop::collection::vec(system_strategy(), count), acyclic_constraints(count), entities_strategy())
            .prop_map(|(systems, (_order, constraints), entities)| Case { systems, constraints, entities })
    })
}

// ----- building ---------------------------------------------------------------------

/// Puts `system` in `Slot(id)`, attaches `id`'s constraints and condition, and
/// adds it.
fn add_configured<M>(
    schedule: &mut Schedule,
    system: impl IntoSystemConfigs<M>,
    id: usize,
    cond: Cond,
    constraints: &[Constraint],
) {
    let mut config: SystemConfigs = system.in_set(Slot(id));
    for constraint in constraints {
        if constraint.first == id && !constraint.via_after {
            config = config.before(Slot(constraint.second));
        }
        if constraint.second == id && constraint.via_after {
            config = config.after(Slot(constraint.first));
        }
    }
    config = match cond {
        Cond::None => config,
        Cond::Always => config.run_if(|| true),
        Cond::Never => config.run_if(|| false),
        Cond::FlagEven(even) => config.run_if(move |flag: Res<Flag>| flag.0.is_multiple_of(2) == even),
        Cond::AccOdd => config.run_if(|acc: Res<Acc>| acc.0 % 2 == 1),
    };
    schedule.add_systems(config);
}

fn add_write<C: Val>(schedule: &mut Schedule, id: usize, k: u64, cond: Cond, constraints: &[Constraint]) {
    let system = move |mut query: Query<&mut C>, trace: Res<Trace>| {
        trace.push(id);
        // Give a concurrently running system the chance to interleave.
        std::thread::yield_now();
        for mut value in query.iter_mut() {
            let x = value.value_mut();
            *x = x.wrapping_mul(3).wrapping_add(k);
        }
    };
    add_configured(schedule, system, id, cond, constraints);
}

fn add_fold<C: Val>(schedule: &mut Schedule, id: usize, k: u64, cond: Cond, constraints: &[Constraint]) {
    let system = move |query: Query<&C>, mut acc: ResMut<Acc>, trace: Res<Trace>| {
        trace.push(id);
        let mut folded = acc.0;
        for value in query.iter() {
            folded = folded.wrapping_mul(31).wrapping_add(value.value());
        }
        acc.0 = folded.wrapping_mul(5).wrapping_add(k);
    };
    add_configured(schedule, system, id, cond, constraints);
}

fn add_flag_write<C: Val>(schedule: &mut Schedule, id: usize, k: u64, cond: Cond, constraints: &[Constraint]) {
    let system = move |query: Query<&C>, mut flag: ResMut<Flag>, trace: Res<Trace>| {
        trace.push(id);
        flag.0 = flag.0.wrapping_add(query.iter().count() as u64).wrapping_add(k);
    };
    add_configured(schedule, system, id, cond, constraints);
}

fn add_spawn<C: Val>(schedule: &mut Schedule, id: usize, k: u64, cond: Cond, constraints: &[Constraint]) {
    let system = move |mut commands: Commands, acc: Res<Acc>, trace: Res<Trace>| {
        trace.push(id);
        commands.spawn(C::make((acc.0 ^ k) % 10_000));
    };
    add_configured(schedule, system, id, cond, constraints);
}

fn add_exclusive(schedule: &mut Schedule, id: usize, k: u64, cond: Cond, constraints: &[Constraint]) {
    let system = move |world: &mut World| {
        world.resource::<Trace>().push(id);
        let flag = {
            let mut flag = world.resource_mut::<Flag>();
            flag.0 = flag.0.wrapping_add(1);
            flag.0
        };
        {
            let mut acc = world.resource_mut::<Acc>();
            acc.0 = acc.0.wrapping_mul(7).wrapping_add(k);
        }
        world.spawn((C0(k), C2(flag)));
        for mut value in world.query::<&mut C1>().iter_mut(world) {
            value.0 = (value.0 ^ k).wrapping_add(1);
        }
    };
    add_configured(schedule, system, id, cond, constraints);
}

fn build_schedule(case: &Case, constraints: &[Constraint], executor: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(executor);
    for (id, spec) in case.systems.iter().enumerate() {
        let s = &mut schedule;
        let cond = spec.cond;
        match spec.kind {
            Kind::Write(0, k) => add_write::<C0>(s, id, k, cond, constraints),
            Kind::Write(1, k) => add_write::<C1>(s, id, k, cond, constraints),
            Kind::Write(_, k) => add_write::<C2>(s, id, k, cond, constraints),
            Kind::Fold(0, k) => add_fold::<C0>(s, id, k, cond, constraints),
            Kind::Fold(1, k) => add_fold::<C1>(s, id, k, cond, constraints),
            Kind::Fold(_, k) => add_fold::<C2>(s, id, k, cond, constraints),
            Kind::FlagWrite(0, k) => add_flag_write::<C0>(s, id, k, cond, constraints),
            Kind::FlagWrite(1, k) => add_flag_write::<C1>(s, id, k, cond, constraints),
            Kind::FlagWrite(_, k) => add_flag_write::<C2>(s, id, k, cond, constraints),
            Kind::Spawn(0, k) => add_spawn::<C0>(s, id, k, cond, constraints),
            Kind::Spawn(1, k) => add_spawn::<C1>(s, id, k, cond, constraints),
            Kind::Spawn(_, k) => add_spawn::<C2>(s, id, k, cond, constraints),
            Kind::Exclusive(k) => add_exclusive(s, id, k, cond, constraints),
            Kind::Deferred => add_configured(s, ApplyDeferred, id, cond, constraints),
        }
    }
    schedule
}

fn build_world(case: &Case) -> World {
    let mut world = World::new();
    world.insert_resource(Acc(1));
    world.insert_resource(Flag(0));
    world.insert_resource(Trace::default());
    for values in &case.entities {
        let mut entity = world.spawn_empty();
        if let Some(v) = values[0] {
            entity.insert(C0(v));
        }
        if let Some(v) = values[1] {
            entity.insert(C1(v));
        }
        if let Some(v) = values[2] {
            entity.insert(C2(v));
        }
    }
    world
}

// ----- running and comparing --------------------------------------------------------

type Row = (Entity, Option<u64>, Option<u64>, Option<u64>);

/// Everything observable in a world of this test.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    alive: Vec<Entity>,
    rows: Vec<Row>,
    acc: u64,
    flag: u64,
}

fn snapshot(world: &mut World) -> Snapshot {
    let mut alive = world.entities().alive().to_vec();
    alive.sort_unstable();
    let mut rows: Vec<Row> = world
        .query::<(Entity, Option<&C0>, Option<&C1>, Option<&C2>)>()
        .iter(world)
        .filter(|(_, c0, c1, c2)| c0.is_some() || c1.is_some() || c2.is_some())
        .map(|(entity, c0, c1, c2)| (entity, c0.map(|c| c.0), c1.map(|c| c.0), c2.map(|c| c.0)))
        .collect();
    rows.sort_unstable();
    Snapshot { alive, rows, acc: world.resource::<Acc>().0, flag: world.resource::<Flag>().0 }
}

const RUNS: usize = 3;

/// Cases per property (each case is cheap: about a millisecond in debug).
const CASES: u32 = 384;

/// Builds a fresh world and schedule for `case`, runs it [`RUNS`] times on
/// `executor`, and returns the snapshot and trace after each run.
fn execute(case: &Case, executor: ExecutorKind) -> Vec<(Snapshot, Vec<usize>)> {
    let mut world = build_world(case);
    let mut schedule = build_schedule(case, &case.constraints, executor);
    schedule.initialize(&mut world).expect("an acyclic schedule builds");
    (0..RUNS)
        .map(|_| {
            schedule.run(&mut world);
            world.check_invariants();
            let trace = world.resource::<Trace>().take();
            (snapshot(&mut world), trace)
        })
        .collect()
}

fn check_trace(case: &Case, trace: &[usize]) -> Result<(), TestCaseError> {
    let position = |id: usize| trace.iter().position(|&traced| traced == id);
    for (id, spec) in case.systems.iter().enumerate() {
        let times = trace.iter().filter(|&&traced| traced == id).count();
        prop_assert!(times <= 1, "system {id} ran {times} times: {trace:?}");
        if matches!(spec.kind, Kind::Deferred) {
            continue;
        }
        match spec.cond {
            Cond::None | Cond::Always => prop_assert_eq!(times, 1, "system {} must run: {:?}", id, trace),
            Cond::Never => prop_assert_eq!(times, 0, "system {} must not run: {:?}", id, trace),
            Cond::FlagEven(_) | Cond::AccOdd => {}
        }
    }
    // Constraints are transitive, also through untraced `ApplyDeferred`s and
    // systems whose condition skipped them.
    let count = case.systems.len();
    let mut reaches = vec![vec![false; count]; count];
    for constraint in &case.constraints {
        reaches[constraint.first][constraint.second] = true;
    }
    for via in 0..count {
        for from in 0..count {
            for to in 0..count {
                if reaches[from][via] && reaches[via][to] {
                    reaches[from][to] = true;
                }
            }
        }
    }
    for (first, row) in reaches.iter().enumerate() {
        for (second, &ordered) in row.iter().enumerate() {
            if let (true, Some(at_first), Some(at_second)) = (ordered, position(first), position(second)) {
                prop_assert!(at_first < at_second, "system {first} must run before {second}: {trace:?}");
            }
        }
    }
    Ok(())
}

fn check_case(case: &Case) -> Result<(), TestCaseError> {
    let multi_case = case.clone();
    let multi = within_timeout(move || execute(&multi_case, ExecutorKind::MultiThreaded));
    let single = execute(case, ExecutorKind::SingleThreaded);
    for (run, ((multi_snapshot, multi_trace), (single_snapshot, single_trace))) in multi.iter().zip(&single).enumerate()
    {
        check_trace(case, multi_trace)?;
        check_trace(case, single_trace)?;
        let mut multi_ran = multi_trace.clone();
        multi_ran.sort_unstable();
        let mut single_ran = single_trace.clone();
        single_ran.sort_unstable();
        prop_assert_eq!(multi_ran, single_ran, "run {}: different systems ran", run);
        prop_assert_eq!(multi_snapshot, single_snapshot, "run {}: worlds differ", run);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(CASES) })]

    #[test]
    fn multi_threaded_matches_single_threaded(case in case_strategy()) {
        check_case(&case)?;
    }

    #[test]
    fn ordering_cycles_fail_to_build(
        case in case_strategy(),
        cycle_seed in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 2..=4),
    ) {
        let count = case.systems.len();
        // Distinct members of the cycle, in cycle order.
        let mut members: Vec<usize> = Vec::new();
        for (index, _) in &cycle_seed {
            let member = index.index(count);
            if !members.contains(&member) {
                members.push(member);
            }
        }
        if members.len() < 2 {
            // Every index picked the same system: close the cycle with its neighbour.
            members.push((members[0] + 1) % count);
        }
        let mut open = case.constraints.clone();
        for pair in members.windows(2) {
            open.push(Constraint { first: pair[0], second: pair[1], via_after: cycle_seed[0].1 });
        }
        let closing = Constraint { first: members[members.len() - 1], second: members[0], via_after: cycle_seed[1].1 };
        // Without the closing edge the graph may still have a cycle (the open
        // path against the case's own constraints), so only the closed one is
        // asserted to fail; the open one must build when it is acyclic.
        let mut closed = open.clone();
        closed.push(closing);
        for executor in [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded] {
            let mut world = build_world(&case);
            let mut schedule = build_schedule(&case, &closed, executor);
            prop_assert!(schedule.initialize(&mut world).is_err(), "a cycle through {:?} must not build", members);
        }
        if is_acyclic(count, &open) {
            let mut world = build_world(&case);
            let mut schedule = build_schedule(&case, &open, ExecutorKind::SingleThreaded);
            prop_assert!(schedule.initialize(&mut world).is_ok());
        }
    }
}

/// Whether `constraints` over `count` systems have no cycle (Kahn's algorithm).
fn is_acyclic(count: usize, constraints: &[Constraint]) -> bool {
    let mut indegree = vec![0usize; count];
    for constraint in constraints {
        indegree[constraint.second] += 1;
    }
    let mut ready: Vec<usize> = (0..count).filter(|&node| indegree[node] == 0).collect();
    let mut done = 0;
    while let Some(node) = ready.pop() {
        done += 1;
        for constraint in constraints.iter().filter(|constraint| constraint.first == node) {
            indegree[constraint.second] -= 1;
            if indegree[constraint.second] == 0 {
                ready.push(constraint.second);
            }
        }
    }
    done == count
}
