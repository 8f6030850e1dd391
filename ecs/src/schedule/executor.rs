//! Running a built schedule: single-threaded, or on the rayon pool.
//!
//! Both executors walk the same dependency graph ([`ScheduleGraph`]): a system
//! becomes ready when its direct predecessors finished (or were skipped by a
//! run condition). The graph orders every conflicting pair, so the parallel
//! executor needs no access bookkeeping at run time: any two systems ready or
//! running at the same time are compatible. An exclusive system or sync point
//! is ordered against everything, so when it is ready nothing else runs.
//!
//! **Inline or spawn.** Handing a system to another thread costs a few
//! microseconds (queueing, waking a worker, reporting back); for tiny systems
//! that is more than they take. The executor keeps a moving estimate of each
//! system's run time and runs those below [`INLINE_BELOW`] on its own thread;
//! longer ones go to the pool, except that when no short system is ready the
//! executor thread runs the shortest long one itself rather than sit idle (the
//! shortest, so it is soon free to start what becomes ready meanwhile). While
//! it waits for the pool, it polls briefly before blocking, as long as a pool
//! thread is free. Systems never measured count as long, so a first run
//! is as parallel as the graph allows. Inline systems are timed on every
//! [`MEASURE_EVERY`]-th run only: two clock reads cost more than a tiny system.
//! When every system is known to be short, the run does not touch the pool at
//! all: it walks the graph in order on the calling thread, which is what the
//! inline rule would do anyway, without the scope and channel.
//!
//! **Commands** are applied at sync points and at the end of the run, in
//! system (insertion) order, whatever order the systems finished in.
//!
//! **Panics.** A panicking system is caught; no further system starts, the
//! running ones finish, the commands of the systems that completed are applied
//! (the panicking system's are dropped), and the panic resumes from
//! `Schedule::run`. The world stays consistent and the schedule can run again.

use core::any::Any;
use core::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use super::condition::BoxedCondition;
use super::graph::{ScheduleGraph, SystemNode};
use crate::world::World;

/// Systems whose estimated run time is below this run on the executor's own
/// thread instead of being handed to the pool.
pub const INLINE_BELOW: Duration = Duration::from_micros(8);

/// How many times the executor polls for a completion before blocking
/// (tens of microseconds).
const SPIN_POLLS: u32 = 2_000;

/// Inline systems whose run time is known are timed on every this-many-th
/// run, so the estimates follow systems whose work grows.
pub const MEASURE_EVERY: u64 = 8;

/// How a schedule runs its systems.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutorKind {
    /// On the rayon pool, non-conflicting systems at the same time (the
    /// default; falls back to one thread when the pool has one).
    #[default]
    MultiThreaded,
    /// One after another on the calling thread, in a topological order that
    /// follows insertion order where no constraint or conflict decides (for
    /// debugging).
    SingleThreaded,
}

type PanicPayload = Box<dyn Any + Send + 'static>;

/// A finished system, reported by a pool task.
struct Completion {
    node: usize,
    elapsed: Duration,
    panic: Option<PanicPayload>,
}

/// What persists between runs: time estimates and per-run scratch.
pub(crate) struct ExecutorState {
    /// Estimated run time per system, in nanoseconds; `u64::MAX` before the first measurement.
    estimates: Vec<u64>,
    /// Runs so far: inline systems with a known estimate are timed on every
    /// [`MEASURE_EVERY`]-th run only (reading the clock twice costs more than
    /// a tiny system).
    runs: u64,
    remaining: Vec<usize>,
    /// Per condition: not evaluated yet / passed / failed, this run.
    condition_results: Vec<Option<bool>>,
    /// Systems that ran (and did not panic) since the last sync point.
    pending_commands: Vec<bool>,
    ready: Vec<usize>,
    sender: Sender<Completion>,
    receiver: Receiver<Completion>,
}

impl Default for ExecutorState {
    fn default() -> ExecutorState {
        let (sender, receiver) = channel();
        ExecutorState {
            estimates: Vec::new(),
            runs: 0,
            remaining: Vec::new(),
            condition_results: Vec::new(),
            pending_commands: Vec::new(),
            ready: Vec::new(),
            sender,
            receiver,
        }
    }
}

impl ExecutorState {
    /// Sizes the per-system arrays after the graph changed.
    pub(crate) fn reset(&mut self, systems: usize) {
        self.estimates = vec![u64::MAX; systems];
    }

    /// The next completion: polled for a short while first (a system handed
    /// to the pool usually finishes within microseconds of the executor
    /// running dry, and waking a blocked thread costs more than that), then
    /// blocking. With as many tasks running as the pool has threads, every
    /// core is busy, so it blocks at once rather than take a core from them.
    fn wait_for_completion(&self, running: usize, threads: usize) -> Completion {
        let polls = if running < threads { SPIN_POLLS } else { 0 };
        for _ in 0..polls {
            if let Ok(done) = self.receiver.try_recv() {
                return done;
            }
            core::hint::spin_loop();
        }
        self.receiver.recv().expect("the executor holds a sender")
    }

    fn record(&mut self, node: usize, elapsed: Duration) {
        let measured = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX - 1);
        let estimate = &mut self.estimates[node];
        *estimate = if *estimate == u64::MAX { measured } else { (*estimate * 3 + measured) / 4 };
    }
}

/// A raw pointer shared with pool tasks: the world, or the schedule's systems.
///
/// Only `World` and `SystemNode` get the `Send`/`Sync` impls, each with its
/// own argument.
struct TaskPtr<T>(*mut T);

impl<T> Clone for TaskPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TaskPtr<T> {}

impl<T> TaskPtr<T> {
    /// A method (not a field access) so closures capture the whole `Send` wrapper.
    fn get(self) -> *mut T {
        self.0
    }
}

// SAFETY: the executor hands the world to tasks that only reborrow it shared
// while it runs no exclusive system (the graph guarantees that), and the world
// is `Sync`.
unsafe impl Send for TaskPtr<World> {}
// SAFETY: as for `Send`.
unsafe impl Sync for TaskPtr<World> {}
// SAFETY: each task touches only the system node it runs, and each node runs
// at most once per run, so tasks never share a node; systems are `Send + Sync`.
unsafe impl Send for TaskPtr<SystemNode> {}
// SAFETY: as for `Send`.
unsafe impl Sync for TaskPtr<SystemNode> {}

/// Everything one run touches, borrowed from the schedule.
///
/// The systems are reached through a raw pointer only: pool tasks hold `&mut`
/// to the systems they run, so the executor must never reborrow the whole list
/// while tasks are out; it touches one system at a time, one that no task runs.
pub(crate) struct Run<'a> {
    nodes: TaskPtr<SystemNode>,
    count: usize,
    conditions: &'a mut [BoxedCondition],
    graph: &'a ScheduleGraph,
    state: &'a mut ExecutorState,
    _nodes: PhantomData<&'a mut [SystemNode]>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        nodes: &'a mut [SystemNode],
        conditions: &'a mut [BoxedCondition],
        graph: &'a ScheduleGraph,
        state: &'a mut ExecutorState,
    ) -> Run<'a> {
        Run { count: nodes.len(), nodes: TaskPtr(nodes.as_mut_ptr()), conditions, graph, state, _nodes: PhantomData }
    }

    /// System `node`.
    ///
    /// # Safety
    /// No pool task is running `node`, and no other reference to it is live.
    #[allow(clippy::mut_from_ref)]
    unsafe fn node(&self, node: usize) -> &mut SystemNode {
        debug_assert!(node < self.count);
        // SAFETY: `node` is in bounds of the borrowed slice; exclusivity is the caller's.
        unsafe { &mut *self.nodes.get().add(node) }
    }

    fn begin(&mut self) {
        self.state.runs = self.state.runs.wrapping_add(1);
        let count = self.count;
        self.state.remaining.clear();
        self.state.remaining.extend_from_slice(&self.graph.predecessor_count);
        self.state.condition_results.clear();
        self.state.condition_results.resize(self.conditions.len(), None);
        self.state.pending_commands.clear();
        self.state.pending_commands.resize(count, false);
        if self.state.estimates.len() != count {
            self.state.reset(count);
        }
    }

    /// Whether `node`'s conditions pass, evaluating each at most once per run
    /// and every one of them even after one failed (as Bevy does: a stateful
    /// condition keeps counting behind a false one), and then whether its
    /// parameters can be built (`Single`); a panicking condition counts as
    /// failed and its panic is kept in `panic`.
    fn conditions_pass(&mut self, node: usize, world: &World, panic: &mut Option<PanicPayload>) -> bool {
        let mut all = true;
        for &condition in &self.graph.node_conditions[node] {
            let result = match self.state.condition_results[condition] {
                Some(result) => result,
                None => {
                    let system = &mut self.conditions[condition];
                    // SAFETY: conditions only read; the graph orders the systems a
                    // condition guards against every writer of what it reads, and
                    // those guarded systems are ready, so no conflicting system runs.
                    // A condition whose parameters cannot be built is false.
                    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
                        super::condition::evaluate_unsafe(system.as_mut(), world)
                    }));
                    let result = outcome.unwrap_or_else(|payload| {
                        panic.get_or_insert(payload);
                        false
                    });
                    self.state.condition_results[condition] = Some(result);
                    result
                }
            };
            all &= result;
        }
        if all && !self.graph.exclusive[node] {
            // SAFETY: `node` is not running (it is being scheduled) and no other
            // reference to it is live.
            let system = unsafe { &mut self.node(node).system };
            // SAFETY: as for the conditions above: the system is ready, so
            // nothing conflicting with its access runs.
            let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { system.validate_param_unsafe(world) }));
            all = outcome.unwrap_or_else(|payload| {
                panic.get_or_insert(payload);
                false
            });
        }
        all
    }

    /// Marks `node` finished and queues successors that became ready.
    fn finish(&mut self, node: usize) {
        for &next in &self.graph.successors[node] {
            self.state.remaining[next] -= 1;
            if self.state.remaining[next] == 0 {
                self.state.ready.push(next);
            }
        }
    }

    /// Applies the pending commands of the systems that ran, in system order.
    ///
    /// A command that panics stops its own system's queue only; the other
    /// systems' commands are still applied, and the first panic is returned.
    /// Called only while no pool task runs (at sync points and the end).
    fn apply_pending(&mut self, world: &mut World) -> Option<PanicPayload> {
        self.apply_pending_of(world, 0..self.count)
    }

    /// [`Run::apply_pending`] for the systems in `nodes` (ascending) only.
    fn apply_pending_of(&mut self, world: &mut World, nodes: impl IntoIterator<Item = usize>) -> Option<PanicPayload> {
        let mut panic = None;
        for node in nodes {
            if core::mem::take(&mut self.state.pending_commands[node]) {
                // SAFETY: no task is running (see above).
                let system = unsafe { &mut self.node(node).system };
                if let Err(payload) = catch_unwind(AssertUnwindSafe(|| system.apply_deferred(world))) {
                    system.discard_deferred();
                    panic.get_or_insert(payload);
                }
            }
        }
        panic
    }

    /// The end of a run: pending commands, conditions' commands, then the
    /// first panic if any.
    fn end(&mut self, world: &mut World, mut panic: Option<PanicPayload>) {
        if let Some(payload) = self.apply_pending(world) {
            panic.get_or_insert(payload);
        }
        for condition in self.conditions.iter_mut() {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| condition.apply_deferred(world))) {
                condition.discard_deferred();
                panic.get_or_insert(payload);
            }
        }
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }

    /// Runs an exclusive system or sync point on this thread; no task may be running.
    fn run_exclusive(&mut self, node: usize, world: &mut World) -> Option<PanicPayload> {
        if self.graph.sync_point[node] {
            // An automatic sync point applies the commands of the systems
            // ordered before it; an explicit `ApplyDeferred`, all pending ones.
            let graph = self.graph;
            return match &graph.sync_applies[node] {
                Some(systems) => self.apply_pending_of(world, systems.iter().copied()),
                None => self.apply_pending(world),
            };
        }
        let start = Instant::now();
        // SAFETY: no task is running.
        let system = unsafe { &mut self.node(node).system };
        let result = catch_unwind(AssertUnwindSafe(|| system.run((), world)));
        self.state.record(node, start.elapsed());
        result.err()
    }

    /// Records a finished system's outcome; returns its panic, if any.
    fn complete(&mut self, node: usize, panic: Option<PanicPayload>) -> Option<PanicPayload> {
        if panic.is_some() {
            // SAFETY: `node` finished, so no task runs it.
            unsafe { self.node(node) }.system.discard_deferred();
        } else {
            self.state.pending_commands[node] = true;
        }
        self.finish(node);
        panic
    }

    /// Runs every system once on this thread, in the graph's order.
    pub(crate) fn run_single_threaded(&mut self, world: &mut World) {
        self.run_in_order(world, false);
    }

    /// The single-threaded walk; with `measure`, it keeps the time estimates of
    /// the multi-threaded executor up to date (as that executor would).
    fn run_in_order(&mut self, world: &mut World, measure: bool) {
        self.begin();
        let mut panic = None;
        for index in 0..self.graph.order.len() {
            let node = self.graph.order[index];
            if !self.conditions_pass(node, world, &mut panic) {
                if panic.is_some() {
                    break;
                }
                continue;
            }
            let outcome = if self.graph.exclusive[node] {
                self.run_exclusive(node, world)
            } else {
                let start = (measure && self.should_measure(node)).then(Instant::now);
                // SAFETY: there are no tasks on this executor.
                let system = unsafe { &mut self.node(node).system };
                // SAFETY: one system at a time, with the world borrowed mutably.
                let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { system.run_unsafe((), world) })).err();
                if let Some(start) = start {
                    self.state.record(node, start.elapsed());
                }
                outcome
            };
            if let Some(payload) = self.complete(node, outcome) {
                panic = Some(payload);
                break;
            }
        }
        self.state.ready.clear();
        self.end(world, panic);
    }

    /// Whether to time `node` on this run: always until its first estimate,
    /// then on every [`MEASURE_EVERY`]-th run.
    fn should_measure(&self, node: usize) -> bool {
        self.state.runs.is_multiple_of(MEASURE_EVERY) || self.state.estimates[node] == u64::MAX
    }

    /// Whether every system is known to be shorter than [`INLINE_BELOW`] (or
    /// exclusive): then the multi-threaded executor would run them all inline,
    /// and walking them in order without the pool is the same, minus the cost.
    fn all_inline(&self) -> bool {
        let below = INLINE_BELOW.as_nanos() as u64;
        self.state.estimates.len() == self.count
            && self
                .state
                .estimates
                .iter()
                .zip(&self.graph.exclusive)
                .all(|(&estimate, &exclusive)| exclusive || estimate < below)
    }

    /// Runs every system once, non-conflicting ones at the same time on the
    /// rayon pool.
    pub(crate) fn run_multi_threaded(&mut self, world: &mut World) {
        let threads = rayon::current_num_threads();
        if threads <= 1 || self.all_inline() {
            return self.run_in_order(world, true);
        }
        self.begin();
        self.state.ready.clear();
        for node in 0..self.count {
            if self.graph.predecessor_count[node] == 0 {
                self.state.ready.push(node);
            }
        }
        let world_ptr = TaskPtr::<World>(world);
        let nodes_ptr = self.nodes;
        let sender = self.state.sender.clone();
        let mut panic: Option<PanicPayload> = None;
        let mut running = 0usize;
        let mut inline = Vec::new();
        let mut spawn = Vec::new();
        rayon::in_place_scope(|scope| {
            loop {
                while let Ok(done) = self.state.receiver.try_recv() {
                    running -= 1;
                    self.on_completion(done, &mut panic);
                }
                if panic.is_some() || self.state.ready.is_empty() {
                    if running == 0 {
                        break;
                    }
                    let done = self.state.wait_for_completion(running, threads);
                    running -= 1;
                    self.on_completion(done, &mut panic);
                    continue;
                }
                // SAFETY: no task borrows the world mutably; shared reborrows only.
                let shared_world = unsafe { &*world_ptr.get() };
                let mut ready = core::mem::take(&mut self.state.ready);
                ready.sort_unstable();
                for node in ready.drain(..) {
                    if panic.is_some() {
                        // A condition panicked: start nothing more.
                        self.state.ready.push(node);
                        continue;
                    }
                    if !self.conditions_pass(node, shared_world, &mut panic) {
                        self.finish(node);
                        continue;
                    }
                    // Exclusive systems always run here.
                    if self.graph.exclusive[node] || self.state.estimates[node] < INLINE_BELOW.as_nanos() as u64 {
                        inline.push(node);
                    } else {
                        spawn.push(node);
                    }
                }
                // Skipped systems may have made successors ready meanwhile:
                // keep them, and the emptied list's allocation.
                let made_ready = core::mem::replace(&mut self.state.ready, ready);
                self.state.ready.extend(made_ready);
                if panic.is_some() {
                    self.state.ready.append(&mut inline);
                    self.state.ready.append(&mut spawn);
                    continue;
                }
                if inline.is_empty() && !spawn.is_empty() {
                    // Rather than wait idle, run one of the long systems here:
                    // the shortest, so this thread is soon free to start the
                    // systems that become ready meanwhile.
                    let estimates = &self.state.estimates;
                    let shortest = (0..spawn.len()).min_by_key(|&i| estimates[spawn[i]]).unwrap_or(0);
                    inline.push(spawn.remove(shortest));
                }
                for node in spawn.drain(..) {
                    running += 1;
                    let sender = &sender;
                    scope.spawn(move |_| {
                        let start = Instant::now();
                        // SAFETY: this task is the only user of node `node` in this
                        // run, and the graph keeps every system whose access
                        // conflicts with it (and every exclusive system) from
                        // running until it reports completion.
                        let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
                            let system = &mut (*nodes_ptr.get().add(node)).system;
                            system.run_unsafe((), &*world_ptr.get())
                        }));
                        let _ = sender.send(Completion { node, elapsed: start.elapsed(), panic: outcome.err() });
                    });
                }
                let mut batch = inline.drain(..);
                while let Some(node) = batch.next() {
                    let outcome = if self.graph.exclusive[node] {
                        // The graph orders an exclusive system against all
                        // others, so none is running; wait for stragglers anyway
                        // rather than alias the world.
                        while running > 0 {
                            let done = self.state.wait_for_completion(running, threads);
                            running -= 1;
                            self.on_completion(done, &mut panic);
                        }
                        // SAFETY: no task is running, so nothing else borrows the world.
                        self.run_exclusive(node, unsafe { &mut *world_ptr.get() })
                    } else {
                        let start = self.should_measure(node).then(Instant::now);
                        // SAFETY: `node` was ready, so no task runs it.
                        let system = unsafe { &mut self.node(node).system };
                        // SAFETY: as for spawned tasks: the graph keeps conflicting
                        // systems from running at the same time.
                        let outcome =
                            catch_unwind(AssertUnwindSafe(|| unsafe { system.run_unsafe((), &*world_ptr.get()) }))
                                .err();
                        if let Some(start) = start {
                            self.state.record(node, start.elapsed());
                        }
                        outcome
                    };
                    if let Some(payload) = self.complete(node, outcome) {
                        panic.get_or_insert(payload);
                    }
                    if panic.is_some() {
                        // Do not start the rest of this batch.
                        self.state.ready.extend(batch.by_ref());
                        break;
                    }
                }
            }
        });
        self.state.ready.clear();
        self.end(world, panic);
    }

    fn on_completion(&mut self, done: Completion, panic: &mut Option<PanicPayload>) {
        self.state.record(done.node, done.elapsed);
        if let Some(payload) = self.complete(done.node, done.panic) {
            panic.get_or_insert(payload);
        }
    }
}
