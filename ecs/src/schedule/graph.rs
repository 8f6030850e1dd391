//! The build step of a schedule: from ordering constraints and access
//! conflicts to the dependency graph the executor runs.
//!
//! 1. Every constraint is expanded to edges between systems: a set stands for
//!    its members, a system target for every instance of that function.
//!    Automatic sync points ([`plan_auto_sync`]) add edges `u -> sync -> v`
//!    where work `u` deferred (commands) must be applied before `v`, one sync
//!    point per distance level; an explicit `ApplyDeferred` without conditions
//!    at that level serves as it.
//! 2. Ordering cycles are errors that name the systems (or sets) around the
//!    cycle.
//! 3. For every pair of systems, in insertion order, whose access conflicts
//!    (exclusive systems conflict with everything; run conditions count as
//!    reads of the systems they guard) and that no path orders yet, an edge
//!    from the earlier to the later is added. Adding an edge between two
//!    unordered nodes never closes a cycle (an automatic sync point goes after
//!    the systems of lower distance levels and before the others, in either
//!    direction), and afterwards every conflicting pair is ordered, so no two conflicting systems ever run at the same time
//!    and the result never depends on thread timing. Pairs the user did not
//!    order are reported as [`Ambiguity`]s (except against `ApplyDeferred`,
//!    which is a barrier in insertion order by design).
//! 4. The executor gets the transitive reduction (fewer edges to count down)
//!    and a topological order that breaks ties by insertion order.

use core::any::TypeId;
use core::fmt;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::condition::BoxedCondition;
use super::config::{ScheduleTarget, TargetKind};
use super::set::InternedSet;
use crate::system::{BoxedSystem, Conflict, SystemAccess};
use crate::world::World;

/// A system as the schedule stores it.
pub(crate) struct SystemNode {
    pub(crate) system: BoxedSystem,
    pub(crate) type_id: TypeId,
    pub(crate) sync_point: bool,
    pub(crate) before: Vec<ScheduleTarget>,
    pub(crate) after: Vec<ScheduleTarget>,
    /// Indices into the schedule's sets.
    pub(crate) sets: Vec<usize>,
    /// Indices into the schedule's conditions (its own and shared ones).
    pub(crate) conditions: Vec<usize>,
}

/// A set as the schedule stores it.
pub(crate) struct SetNode {
    pub(crate) set: InternedSet,
    pub(crate) before: Vec<ScheduleTarget>,
    pub(crate) after: Vec<ScheduleTarget>,
    pub(crate) conditions: Vec<usize>,
}

/// Why a schedule cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleBuildError {
    /// Ordering constraints form a cycle through these systems (each runs
    /// before the next, the last before the first).
    SystemCycle(Vec<String>),
    /// Set constraints form a cycle through these sets.
    SetCycle(Vec<String>),
    /// A constraint names a system that is not in the schedule.
    UnknownSystem {
        /// The constrained system or set.
        constrained: String,
        /// The missing system.
        target: String,
    },
    /// A run condition writes (only possible for hand-written conditions; the
    /// compile-time check refuses the others).
    ConditionWrites(String),
    /// A system is in two sets that are ordered one before the other (it
    /// cannot run both before and after itself), as Bevy refuses it.
    SetsHaveOrderButIntersect {
        /// The system in both sets.
        system: String,
        /// The set ordered first.
        first: String,
        /// The set ordered after it.
        second: String,
    },
}

impl fmt::Display for ScheduleBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleBuildError::SystemCycle(systems) => {
                write!(f, "schedule has an ordering cycle: ")?;
                write_cycle(f, systems)?;
                write!(f, "; remove one of these constraints")
            }
            ScheduleBuildError::SetCycle(sets) => {
                write!(f, "schedule has a set ordering cycle: ")?;
                write_cycle(f, sets)?;
                write!(f, "; remove one of these constraints")
            }
            ScheduleBuildError::UnknownSystem { constrained, target } => write!(
                f,
                "`{constrained}` is ordered against system `{target}`, which is not in this schedule; add it, or \
                 order against a set"
            ),
            ScheduleBuildError::ConditionWrites(condition) => {
                write!(f, "run condition `{condition}` writes to the world; conditions must be read-only")
            }
            ScheduleBuildError::SetsHaveOrderButIntersect { system, first, second } => write!(
                f,
                "system `{system}` is in sets `{first}` and `{second}`, but `{first}` runs before `{second}`; take it \
                 out of one of them"
            ),
        }
    }
}

fn write_cycle(f: &mut fmt::Formatter<'_>, names: &[String]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        let next = &names[(i + 1) % names.len()];
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "`{name}` runs before `{next}`")?;
    }
    Ok(())
}

impl std::error::Error for ScheduleBuildError {}

/// Two systems whose access conflicts and that no constraint orders: the
/// schedule runs them in insertion order (`first`, then `second`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ambiguity {
    /// The system added first (it runs first).
    pub first: String,
    /// The system added later.
    pub second: String,
    /// What they conflict on, e.g. `Position (Query<&mut Position> vs Query<&Position>)`.
    pub conflicts: Vec<String>,
}

impl fmt::Display for Ambiguity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` and `{}` conflict on {}", self.first, self.second, self.conflicts.join(", "))
    }
}

/// What the executor runs.
#[derive(Debug, Default)]
pub(crate) struct ScheduleGraph {
    /// A topological order, ties broken by insertion order.
    pub(crate) order: Vec<usize>,
    /// Direct successors in the transitive reduction.
    pub(crate) successors: Vec<Vec<usize>>,
    /// Direct predecessors' count in the transitive reduction.
    pub(crate) predecessor_count: Vec<usize>,
    /// Every condition a system must pass: its own and its sets'.
    pub(crate) node_conditions: Vec<Vec<usize>>,
    /// Whether each system is exclusive (sync points included).
    pub(crate) exclusive: Vec<bool>,
    /// Whether each system is an `ApplyDeferred` sync point.
    pub(crate) sync_point: Vec<bool>,
    /// Per automatic sync point, the systems whose commands it applies: those
    /// ordered before it by constraints (directly or through other systems),
    /// in system order. The commands of a system no constraint orders before
    /// it wait for a later sync point or the end of the run, whenever it ran.
    /// `None` for systems and for explicit `ApplyDeferred` points, which apply
    /// every pending command (Bevy's).
    pub(crate) sync_applies: Vec<Option<Vec<usize>>>,
    /// Edges from constraints, expanded to systems (deduplicated).
    pub(crate) constraint_edges: Vec<(usize, usize)>,
    /// Edges added between conflicting unordered systems, with what they conflict on.
    pub(crate) conflict_edges: Vec<(usize, usize, Vec<String>)>,
    /// Conflicting pairs no constraint orders.
    pub(crate) ambiguities: Vec<Ambiguity>,
}

/// A fixed-size bit set over node indices.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn union_with(&mut self, other: &Bits) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word |= other;
        }
    }
}

/// The ordering constraints of `nodes` expanded to edges between systems
/// (deduplicated, in a stable order): chains, `before`/`after` on systems and
/// sets. Step 1 of the build.
pub(crate) fn constraint_edges(
    nodes: &[SystemNode],
    sets: &[SetNode],
    chain_edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, ScheduleBuildError> {
    check_set_cycles(nodes, sets)?;
    let count = nodes.len();
    let members: Vec<Vec<usize>> =
        (0..sets.len()).map(|set| (0..count).filter(|&node| nodes[node].sets.contains(&set)).collect()).collect();
    let resolve =
        |target: &ScheduleTarget, constrained: &dyn Fn() -> String| -> Result<Vec<usize>, ScheduleBuildError> {
            match &target.0 {
                TargetKind::System { type_id, name } => {
                    let found: Vec<usize> = (0..count).filter(|&node| nodes[node].type_id == *type_id).collect();
                    if found.is_empty() {
                        return Err(ScheduleBuildError::UnknownSystem {
                            constrained: constrained(),
                            target: (*name).to_owned(),
                        });
                    }
                    Ok(found)
                }
                TargetKind::Set(set) => Ok(sets
                    .iter()
                    .position(|node| node.set == *set)
                    .map(|index| members[index].clone())
                    .unwrap_or_default()),
            }
        };

    let mut edge_set = rustc_hash::FxHashSet::default();
    let mut constraint_edges = Vec::new();
    let mut add_edge = |from: usize, to: usize| {
        if edge_set.insert((from, to)) {
            constraint_edges.push((from, to));
        }
    };
    for &(from, to) in chain_edges {
        add_edge(from, to);
    }
    for (index, node) in nodes.iter().enumerate() {
        let name = || node.system.name().to_owned();
        for target in &node.before {
            for other in resolve(target, &name)? {
                add_edge(index, other);
            }
        }
        for target in &node.after {
            for other in resolve(target, &name)? {
                add_edge(other, index);
            }
        }
    }
    for (set_index, set) in sets.iter().enumerate() {
        let name = || format!("{:?}", set.set);
        for target in &set.before {
            for other in resolve(target, &name)? {
                for &member in &members[set_index] {
                    add_edge(member, other);
                }
            }
        }
        for target in &set.after {
            for other in resolve(target, &name)? {
                for &member in &members[set_index] {
                    add_edge(other, member);
                }
            }
        }
    }
    // A set without members still orders what is ordered before it before
    // what is ordered after it (Bevy collapses an empty set's edges), also a
    // set only named as a target.
    let set_of = |target: &ScheduleTarget| match &target.0 {
        TargetKind::Set(set) => Some(set.clone()),
        TargetKind::System { .. } => None,
    };
    let is_empty =
        |set: &InternedSet| sets.iter().position(|node| node.set == *set).is_none_or(|index| members[index].is_empty());
    let mut empty_sets: Vec<InternedSet> = Vec::new();
    let named = nodes.iter().flat_map(|node| node.before.iter().chain(&node.after));
    let named = named.chain(sets.iter().flat_map(|node| node.before.iter().chain(&node.after)));
    for set in named.filter_map(set_of).chain(sets.iter().map(|node| node.set.clone())) {
        if is_empty(&set) && !empty_sets.contains(&set) {
            empty_sets.push(set);
        }
    }
    // Per empty set: the systems ordered before and after it, and the empty
    // sets ordered before and after it (a chain of empty sets orders too).
    let position = |set: &InternedSet| empty_sets.iter().position(|empty| empty == set);
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); empty_sets.len()];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); empty_sets.len()];
    let mut set_edges: Vec<(usize, usize)> = Vec::new();
    for (empty_index, empty) in empty_sets.iter().enumerate() {
        let names = |target: &ScheduleTarget| matches!(&target.0, TargetKind::Set(set) if set == empty);
        let name = || format!("{empty:?}");
        for (index, node) in nodes.iter().enumerate() {
            if node.before.iter().any(names) {
                before[empty_index].push(index);
            }
            if node.after.iter().any(names) {
                after[empty_index].push(index);
            }
        }
        for (other, other_set) in sets.iter().enumerate() {
            if other_set.before.iter().any(names) {
                before[empty_index].extend_from_slice(&members[other]);
            }
            if other_set.after.iter().any(names) {
                after[empty_index].extend_from_slice(&members[other]);
            }
            if other_set.set == *empty {
                for target in &other_set.after {
                    before[empty_index].extend(resolve(target, &name)?);
                    if let Some(earlier) = set_of(target).and_then(|set| position(&set)) {
                        set_edges.push((earlier, empty_index));
                    }
                }
                for target in &other_set.before {
                    after[empty_index].extend(resolve(target, &name)?);
                    if let Some(later) = set_of(target).and_then(|set| position(&set)) {
                        set_edges.push((empty_index, later));
                    }
                }
            }
        }
    }
    // Through chains of empty sets: what precedes an earlier one precedes
    // this one, what follows a later one follows it (a fixpoint; a cycle of
    // empty sets is refused by `check_set_cycles` above).
    let mut changed = true;
    while changed {
        changed = false;
        for &(earlier, later) in &set_edges {
            for index in before[earlier].clone() {
                if !before[later].contains(&index) {
                    before[later].push(index);
                    changed = true;
                }
            }
            for index in after[later].clone() {
                if !after[earlier].contains(&index) {
                    after[earlier].push(index);
                    changed = true;
                }
            }
        }
    }
    for (before, after) in before.iter().zip(&after) {
        for &from in before {
            for &to in after {
                if from != to {
                    add_edge(from, to);
                }
            }
        }
    }
    Ok(constraint_edges)
}

/// Where automatic sync points go (see [`plan_auto_sync`]).
#[derive(Debug)]
pub(crate) struct AutoSyncPlan {
    /// How many sync points to append (one per distance level, levels 1..=count).
    pub(crate) levels: usize,
    /// Edges through them, with sync point `level` at node index `first_sync + level - 1`.
    pub(crate) edges: Vec<(usize, usize)>,
    /// Per node (the sync points included): its distance level, which orders
    /// sync points against systems no constraint relates to them.
    pub(crate) levels_of: Vec<u32>,
}

/// Plans automatic sync points (Bevy's auto-insert pass). Walking the
/// constraint edges in topological order, a node's *distance* is the most
/// sync points any constraint path to it needs: an edge `u -> v` adds one
/// when `u` has deferred work (commands) or `v` is an explicit
/// `ApplyDeferred` without conditions (which applies work itself, so the
/// work of `u`s before it needs no other sync point). An `ApplyDeferred`
/// with a condition may be skipped, so it passes the deferred work before
/// it on to its own successors (unlike Bevy, which leaves them unsynced). Then every edge
/// `u -> v` whose ends lie at different distances, `v` not an
/// `ApplyDeferred`, goes through the sync point of `v`'s distance: an
/// explicit `ApplyDeferred` without conditions at that distance when there
/// is one (the last in topological order), else a new sync point, one per
/// distance, shared by every edge that needs one there. `None` when no new
/// sync point is needed. New sync points get indices from `nodes.len()` on.
pub(crate) fn plan_auto_sync(
    nodes: &[SystemNode],
    sets: &[SetNode],
    edges: &[(usize, usize)],
) -> Result<Option<AutoSyncPlan>, ScheduleBuildError> {
    let count = nodes.len();
    let deferred: Vec<bool> = nodes.iter().map(|node| !node.sync_point && node.system.has_deferred()).collect();
    if !edges.iter().any(|&(from, _)| deferred[from]) {
        return Ok(None);
    }
    // A sync point with a run condition may be skipped: it serves no one.
    let explicit: Vec<bool> =
        nodes.iter().map(|node| node.sync_point && node_conditions(node, sets).is_empty()).collect();
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); count];
    for &(from, to) in edges {
        successors[from].push(to);
    }
    let order = topological_order(&successors).map_err(|cycle| {
        ScheduleBuildError::SystemCycle(cycle.into_iter().map(|node| nodes[node].system.name().to_owned()).collect())
    })?;
    let mut distance = vec![0u32; count];
    let mut explicit_at: Vec<(u32, usize)> = Vec::new();
    // A sync point with a condition may not run: the deferred work before it
    // passes through to its successors, which get a sync point of their own.
    let mut passed_on = vec![false; count];
    for &from in &order {
        if explicit[from] {
            // Its distance is final: every edge into it came earlier.
            explicit_at.retain(|&(level, _)| level != distance[from]);
            explicit_at.push((distance[from], from));
        }
        let has_work = deferred[from] || passed_on[from];
        for &to in &successors[from] {
            let conditional = nodes[to].sync_point && !explicit[to];
            if conditional && has_work {
                passed_on[to] = true;
            }
            let step = u32::from((has_work && !conditional) || explicit[to]);
            distance[to] = distance[to].max(distance[from] + step);
        }
    }
    let needs_sync = |&(from, to): &(usize, usize)| distance[from] != distance[to] && !nodes[to].sync_point;
    let mut levels: Vec<u32> = edges
        .iter()
        .filter(|edge| needs_sync(edge))
        .map(|&(_, to)| distance[to])
        .filter(|level| !explicit_at.iter().any(|(explicit, _)| explicit == level))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    if levels.is_empty() && !edges.iter().any(needs_sync) {
        return Ok(None);
    }
    let sync_of = |level: u32| match explicit_at.iter().find(|(explicit, _)| *explicit == level) {
        Some(&(_, node)) => node,
        None => count + levels.binary_search(&level).expect("a planned level"),
    };
    let mut sync_edges = Vec::new();
    for edge in edges.iter().filter(|edge| needs_sync(edge)) {
        let sync = sync_of(distance[edge.1]);
        for pair in [(edge.0, sync), (sync, edge.1)] {
            if pair.0 != pair.1 && !sync_edges.contains(&pair) {
                sync_edges.push(pair);
            }
        }
    }
    let mut levels_of = distance;
    levels_of.extend(levels.iter().copied());
    Ok(Some(AutoSyncPlan { levels: levels.len(), edges: sync_edges, levels_of }))
}

/// Builds the graph of `nodes` from their constraint edges (see
/// [`constraint_edges`], plus the edges through automatic sync points). Systems
/// and conditions must be initialized. With `auto_sync` (the first automatic
/// sync point's index and every node's distance level), a sync point and a
/// system no constraint relates are ordered by level: the system first when its
/// level is lower.
pub(crate) fn build(
    nodes: &[SystemNode],
    sets: &[SetNode],
    conditions: &[BoxedCondition],
    constraint_edges: Vec<(usize, usize)>,
    auto_sync: Option<(usize, &[u32])>,
    world: &World,
) -> Result<ScheduleGraph, ScheduleBuildError> {
    for condition in conditions {
        if condition.access().writes_anything() {
            return Err(ScheduleBuildError::ConditionWrites(condition.name().to_owned()));
        }
    }
    let count = nodes.len();

    // 2. Cycles, and the reachability of the constraints alone.
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); count];
    for &(from, to) in &constraint_edges {
        successors[from].push(to);
    }
    let order = topological_order(&successors).map_err(|cycle| {
        ScheduleBuildError::SystemCycle(cycle.into_iter().map(|node| nodes[node].system.name().to_owned()).collect())
    })?;
    let constrained_reach = reachability(&successors, &order);
    let sync_applies = (0..count)
        .map(|node| match auto_sync {
            Some((first_sync, _)) if node >= first_sync => {
                Some((0..count).filter(|&system| constrained_reach[system].contains(node)).collect())
            }
            _ => None,
        })
        .collect();

    // 3. Conflict edges, in insertion order.
    let mut reach = constrained_reach.clone();
    let mut conflict_edges = Vec::new();
    let mut ambiguities = Vec::new();
    let accesses: Vec<Vec<&SystemAccess>> = nodes
        .iter()
        .map(|node| {
            let mut access = vec![node.system.access()];
            access.extend(node_conditions(node, sets).into_iter().map(|condition| conditions[condition].access()));
            access
        })
        .collect();
    for first in 0..count {
        for second in first + 1..count {
            let (conflicts, reservation_only) = describe_conflicts(nodes, &accesses, first, second, world);
            if conflicts.is_empty() {
                continue;
            }
            // A sync point is a barrier by design: being unordered against it is
            // not an ambiguity (it orders by insertion, as documented).
            // Nor is reserving entity ids in both: ordered by insertion so ids
            // are deterministic, but nothing a user would want to order.
            let barrier = nodes[first].sync_point || nodes[second].sync_point || reservation_only;
            if !barrier && !constrained_reach[first].contains(second) && !constrained_reach[second].contains(first) {
                ambiguities.push(Ambiguity {
                    first: nodes[first].system.name().to_owned(),
                    second: nodes[second].system.name().to_owned(),
                    conflicts: conflicts.clone(),
                });
            }
            if reach[first].contains(second) || reach[second].contains(first) {
                continue;
            }
            // Insertion order, except against an automatic sync point (which
            // has no place in insertion order): by distance level.
            let (from, to) = match auto_sync {
                Some((first_sync, levels)) if second >= first_sync && first < first_sync => {
                    if levels[first] < levels[second] { (first, second) } else { (second, first) }
                }
                _ => (first, second),
            };
            successors[from].push(to);
            conflict_edges.push((from, to, conflicts));
            let mut gained = reach[to].clone();
            gained.insert(to);
            for (node, bits) in reach.iter_mut().enumerate() {
                if node == from || bits.contains(from) {
                    bits.union_with(&gained);
                }
            }
        }
    }

    // 4. Transitive reduction and execution order.
    let mut reduced: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut predecessor_count = vec![0; count];
    for node in 0..count {
        let direct = &successors[node];
        for &to in direct {
            let redundant = direct.iter().any(|&other| other != to && reach[other].contains(to));
            if !redundant && !reduced[node].contains(&to) {
                reduced[node].push(to);
                predecessor_count[to] += 1;
            }
        }
        reduced[node].sort_unstable();
    }
    let order = topological_order(&reduced).expect("conflict edges join unordered systems only, so no cycle");
    let node_conditions = nodes.iter().map(|node| node_conditions(node, sets)).collect();
    Ok(ScheduleGraph {
        order,
        successors: reduced,
        predecessor_count,
        node_conditions,
        exclusive: nodes.iter().map(|node| node.system.is_exclusive()).collect(),
        sync_point: nodes.iter().map(|node| node.sync_point).collect(),
        sync_applies,
        constraint_edges,
        conflict_edges,
        ambiguities,
    })
}

/// The conditions guarding `node`: its own, then its sets', without repeats.
fn node_conditions(node: &SystemNode, sets: &[SetNode]) -> Vec<usize> {
    let mut all = node.conditions.clone();
    for &set in &node.sets {
        for &condition in &sets[set].conditions {
            if !all.contains(&condition) {
                all.push(condition);
            }
        }
    }
    all
}

/// What systems `a` and `b` conflict on (empty if they may run together),
/// and whether that is only both reserving entity ids.
fn describe_conflicts(
    nodes: &[SystemNode],
    accesses: &[Vec<&SystemAccess>],
    a: usize,
    b: usize,
    world: &World,
) -> (Vec<String>, bool) {
    if nodes[a].system.is_exclusive() || nodes[b].system.is_exclusive() {
        return (vec!["the world (exclusive system)".to_owned()], false);
    }
    let mut described = Vec::new();
    let mut reservation_only = true;
    for first in &accesses[a] {
        for second in &accesses[b] {
            for (unit_a, unit_b, conflict) in first.conflicts_with(second) {
                reservation_only &= conflict == Conflict::EntityReservation;
                let text = format!("{} ({} vs {})", conflict.describe(world), unit_a.label, unit_b.label);
                if !described.contains(&text) {
                    described.push(text);
                }
            }
        }
    }
    (described, reservation_only)
}

/// Kahn's algorithm with a min-heap, so unordered nodes come in index order;
/// on a cycle, the nodes around one cycle, in order.
fn topological_order(successors: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    let count = successors.len();
    let mut in_degree = vec![0usize; count];
    for list in successors {
        for &to in list {
            in_degree[to] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..count).filter(|&n| in_degree[n] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(count);
    while let Some(Reverse(node)) = ready.pop() {
        order.push(node);
        for &to in &successors[node] {
            in_degree[to] -= 1;
            if in_degree[to] == 0 {
                ready.push(Reverse(to));
            }
        }
    }
    if order.len() == count {
        return Ok(order);
    }
    // Every node left has a predecessor that is also left: walk predecessors
    // until one repeats; the walk from there is a cycle (reversed).
    let left: Vec<bool> = in_degree.iter().map(|&degree| degree > 0).collect();
    let mut predecessor = vec![usize::MAX; count];
    for (from, list) in successors.iter().enumerate() {
        for &to in list {
            if left[from] && left[to] && predecessor[to] == usize::MAX {
                predecessor[to] = from;
            }
        }
    }
    let start = (0..count).find(|&n| left[n]).expect("a node is left on a cycle");
    let mut seen = vec![false; count];
    let mut node = start;
    while !seen[node] {
        seen[node] = true;
        node = predecessor[node];
    }
    let mut cycle = vec![node];
    let mut walk = predecessor[node];
    while walk != node {
        cycle.push(walk);
        walk = predecessor[walk];
    }
    cycle.reverse();
    // Start the message at the earliest-added system, for stable text.
    let first = cycle.iter().enumerate().min_by_key(|(_, node)| **node).map_or(0, |(i, _)| i);
    cycle.rotate_left(first);
    Err(cycle)
}

/// `reach[n]`: the nodes reachable from `n` (not `n` itself), given a topological `order`.
fn reachability(successors: &[Vec<usize>], order: &[usize]) -> Vec<Bits> {
    let mut reach = vec![Bits::new(successors.len()); successors.len()];
    for &node in order.iter().rev() {
        let mut bits = Bits::new(successors.len());
        for &to in &successors[node] {
            bits.insert(to);
            bits.union_with(&reach[to]);
        }
        reach[node] = bits;
    }
    reach
}

/// Set-level constraints between sets must not form a cycle (checked even
/// for empty sets), and no system may be in two sets one of which runs
/// before the other (Bevy's `SetsHaveOrderButIntersect`, also through empty
/// sets in between).
fn check_set_cycles(nodes: &[SystemNode], sets: &[SetNode]) -> Result<(), ScheduleBuildError> {
    let index_of = |target: &ScheduleTarget| match &target.0 {
        TargetKind::Set(set) => sets.iter().position(|node| node.set == *set),
        TargetKind::System { .. } => None,
    };
    let mut successors = vec![Vec::new(); sets.len()];
    for (index, set) in sets.iter().enumerate() {
        for other in set.before.iter().filter_map(index_of) {
            successors[index].push(other);
        }
        for other in set.after.iter().filter_map(index_of) {
            successors[other].push(index);
        }
    }
    let order = topological_order(&successors).map_err(|cycle| {
        ScheduleBuildError::SetCycle(cycle.into_iter().map(|set| format!("{:?}", sets[set].set)).collect())
    })?;
    let reach = reachability(&successors, &order);
    for node in nodes {
        for &a in &node.sets {
            if let Some(&b) = node.sets.iter().find(|&&b| reach[a].contains(b)) {
                return Err(ScheduleBuildError::SetsHaveOrderButIntersect {
                    system: node.system.name().to_owned(),
                    first: format!("{:?}", sets[a].set),
                    second: format!("{:?}", sets[b].set),
                });
            }
        }
    }
    Ok(())
}
