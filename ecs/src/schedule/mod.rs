//! [`Schedule`]: systems with ordering constraints, run in parallel on the
//! rayon pool where their access allows.
//!
//! * **Adding:** [`Schedule::add_systems`] takes systems, tuples,
//!   `.before(x)`/`.after(x)`/`.chain()`/`.in_set(s)`/`.run_if(c)`
//!   ([`IntoSystemConfigs`]), exclusive systems (`fn(&mut World)`) and
//!   [`ApplyDeferred`] sync points; [`Schedule::configure_sets`] constrains
//!   [`SystemSet`]s. Every system's parameters are checked at compile time.
//! * **Building** ([`Schedule::initialize`], done by the first `run` after a
//!   change): systems are initialized (their runtime access checked), then the
//!   dependency graph is built (see `graph`): constraint edges, automatic sync
//!   points on ordering edges that leave a system with commands (one per
//!   distance level, [`Schedule::set_auto_sync`]), a cycle check that names
//!   the systems, and an edge in insertion order between every conflicting
//!   pair no constraint orders, so results never depend on thread timing.
//!   Those pairs are reported by [`Schedule::ambiguities`].
//! * **Running** ([`Schedule::run`]): see `executor`: tiny systems inline,
//!   long ones on the pool, commands at sync points and at the end in system
//!   order, panics propagated after running systems finish.
//! * **Inspecting:** [`Schedule::to_dot`] (Graphviz) and
//!   [`Schedule::describe`] (text).

mod condition;
mod config;
mod executor;
mod graph;
mod set;

use core::fmt::Write as _;

pub use condition::{
    BoxedCondition, CombinedCondition, Condition, IntoCondition, IsCombinedCondition, IsNotCondition, NotCondition,
    any_with_component, not, on_message, resource_added, resource_changed, resource_exists, run_once,
};
pub use config::{
    ApplyDeferred, IntoScheduleTarget, IntoSystemConfigs, IntoSystemSetConfigs, IsApplyDeferred, IsSetTarget,
    IsSetTuple, IsSingleSet, IsSingleSystem, IsSystemTarget, IsSystemTuple, ScheduleTarget, SystemConfigs,
    SystemSetConfigs,
};
pub use executor::{ExecutorKind, INLINE_BELOW, MEASURE_EVERY};
pub use graph::{Ambiguity, ScheduleBuildError};
pub use set::SystemSet;

use config::TargetKind;
use executor::{ExecutorState, Run};
use graph::{ScheduleGraph, SetNode, SystemNode};
use set::InternedSet;

use crate::system::short_type_name;
use crate::world::World;

/// Systems run on a world, in parallel where their access allows.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Default)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// #[derive(Resource)]
/// struct Time { dt: f32 }
/// fn movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
///     for (mut p, v) in q.iter_mut() { p.0 += v.0 * time.dt; }
/// }
/// fn spawner(mut commands: Commands) {
///     commands.spawn((Position::default(), Velocity(1.0)));
/// }
/// let mut world = World::new();
/// world.insert_resource(Time { dt: 0.5 });
/// let mut schedule = Schedule::new();
/// schedule.add_systems((movement, spawner.after(movement)));
/// schedule.run(&mut world); // spawns one mover (at the end of the run)
/// schedule.run(&mut world); // moves it, spawns another
/// let mut positions: Vec<f32> = world.query::<&Position>().iter(&world).map(|p| p.0).collect();
/// positions.sort_by(f32::total_cmp);
/// assert_eq!(positions, vec![0.0, 0.5]);
/// ```
#[derive(Default)]
pub struct Schedule {
    nodes: Vec<SystemNode>,
    sets: Vec<SetNode>,
    conditions: Vec<BoxedCondition>,
    /// `(a, b)`: system `a` before system `b`, from `chain`.
    chain_edges: Vec<(usize, usize)>,
    /// The built graph; `None` after a change.
    graph: Option<ScheduleGraph>,
    /// `set_auto_sync(false)`: only explicit `ApplyDeferred` sync points.
    auto_sync_disabled: bool,
    /// How many automatic sync points the last build appended to `nodes`.
    auto_syncs: usize,
    executor: ExecutorKind,
    state: ExecutorState,
}

impl Schedule {
    /// An empty schedule.
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// Adds systems (a system, configured systems, or a tuple of them),
    /// checking each one's parameters at compile time.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    /// fn a(mut log: ResMut<Log>) { log.0.push("a"); }
    /// fn b(mut log: ResMut<Log>) { log.0.push("b"); }
    /// fn c(mut log: ResMut<Log>) { log.0.push("c"); }
    /// let mut world = World::new();
    /// world.insert_resource(Log::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((c, b, a).chain());
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["c", "b", "a"]);
    /// ```
    #[track_caller]
    pub fn add_systems<Marker, S: IntoSystemConfigs<Marker>>(&mut self, systems: S) -> &mut Self {
        let () = S::CHECK;
        self.remove_auto_syncs();
        let configs = systems.into_configs().0;
        let offset = self.nodes.len();
        for config in configs.items {
            let sets = config.sets.into_iter().map(|set| self.intern_set(set)).collect();
            let conditions = config.conditions.into_iter().map(|condition| self.push_condition(condition)).collect();
            self.nodes.push(SystemNode {
                system: config.system,
                type_id: config.type_id,
                sync_point: config.sync_point,
                before: config.before,
                after: config.after,
                sets,
                conditions,
            });
        }
        for (range, condition) in configs.shared_conditions {
            let condition = self.push_condition(condition);
            for node in range {
                self.nodes[offset + node].conditions.push(condition);
            }
        }
        self.chain_edges.extend(configs.edges.into_iter().map(|(a, b)| (offset + a, offset + b)));
        let targeted: Vec<InternedSet> = self.nodes[offset..]
            .iter()
            .flat_map(|node| node.before.iter().chain(&node.after))
            .filter_map(|target| match &target.0 {
                TargetKind::Set(set) => Some(set.clone()),
                TargetKind::System { .. } => None,
            })
            .collect();
        for set in targeted {
            self.intern_set(set);
        }
        self.graph = None;
        self
    }

    /// Configures sets (a set, configured sets, or a tuple of them): their
    /// ordering constraints and run conditions apply to every member system.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
    /// enum Stage { Early, Late }
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    /// fn late(mut log: ResMut<Log>) { log.0.push("late"); }
    /// fn early(mut log: ResMut<Log>) { log.0.push("early"); }
    /// let mut world = World::new();
    /// world.insert_resource(Log::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((late.in_set(Stage::Late), early.in_set(Stage::Early)));
    /// schedule.configure_sets(Stage::Late.after(Stage::Early));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["early", "late"]);
    /// ```
    pub fn configure_sets<Marker, S: IntoSystemSetConfigs<Marker>>(&mut self, sets: S) -> &mut Self {
        let configs = sets.into_set_configs().0;
        let indices: Vec<usize> = configs.items.iter().map(|config| self.intern_set(config.set.clone())).collect();
        for (config, &index) in configs.items.into_iter().zip(&indices) {
            for target in config.before.iter().chain(&config.after) {
                if let TargetKind::Set(set) = &target.0 {
                    self.intern_set(set.clone());
                }
            }
            self.sets[index].before.extend(config.before);
            self.sets[index].after.extend(config.after);
        }
        for (a, b) in configs.edges {
            let target = ScheduleTarget(TargetKind::Set(self.sets[indices[b]].set.clone()));
            self.sets[indices[a]].before.push(target);
        }
        for (range, condition) in configs.shared_conditions {
            let condition = self.push_condition(condition);
            for set in range {
                self.sets[indices[set]].conditions.push(condition);
            }
        }
        self.graph = None;
        self
    }

    /// Drops the automatic sync points of the last build (they are planned
    /// again by the next one).
    fn remove_auto_syncs(&mut self) {
        self.nodes.truncate(self.nodes.len() - self.auto_syncs);
        self.auto_syncs = 0;
        self.graph = None;
    }

    /// Turns automatic sync points on (the default) or off. On, the commands
    /// of a system are applied before any system ordered after it runs
    /// (exclusive systems included): the build puts an `ApplyDeferred` on such
    /// ordering edges, one per distance level, shared by every edge that needs
    /// one there. An automatic sync point applies the commands of the systems
    /// ordered before it only: an unordered system's commands wait for the end
    /// of the run (or a sync point it is ordered before), whenever it ran, so
    /// what a system sees never depends on thread timing. Off, only explicit
    /// [`ApplyDeferred`]s (which apply every pending command, as in Bevy) and
    /// the end of the run apply commands. Systems without deferred parameters
    /// never get one.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Resource, Default)]
    /// struct Seen(usize);
    /// fn spawn(mut commands: Commands) { commands.spawn(Enemy); }
    /// fn count(enemies: Query<&Enemy>, mut seen: ResMut<Seen>) { seen.0 = enemies.iter().count(); }
    /// let mut world = World::new();
    /// world.init_resource::<Seen>();
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((spawn, count).chain());
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Seen>().0, 1); // applied between the two
    /// schedule.set_auto_sync(false);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Seen>().0, 1); // the second enemy comes at the end of the run
    /// ```
    pub fn set_auto_sync(&mut self, enabled: bool) -> &mut Self {
        if self.auto_sync_disabled == enabled {
            self.auto_sync_disabled = !enabled;
            self.remove_auto_syncs();
        }
        self
    }

    /// Whether automatic sync points are on.
    pub fn auto_sync(&self) -> bool {
        !self.auto_sync_disabled
    }

    fn intern_set(&mut self, set: InternedSet) -> usize {
        if let Some(index) = self.sets.iter().position(|node| node.set == set) {
            return index;
        }
        self.sets.push(SetNode { set, before: Vec::new(), after: Vec::new(), conditions: Vec::new() });
        self.sets.len() - 1
    }

    fn push_condition(&mut self, condition: BoxedCondition) -> usize {
        self.conditions.push(condition);
        self.conditions.len() - 1
    }

    /// Chooses the executor (multi-threaded by default).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ExecutorKind;
    /// let mut schedule = Schedule::new();
    /// schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    /// assert_eq!(schedule.executor_kind(), ExecutorKind::SingleThreaded);
    /// ```
    pub fn set_executor_kind(&mut self, kind: ExecutorKind) -> &mut Self {
        self.executor = kind;
        self
    }

    /// The executor in use.
    pub fn executor_kind(&self) -> ExecutorKind {
        self.executor
    }

    /// The number of systems added (explicit sync points included, automatic
    /// ones not).
    pub fn len(&self) -> usize {
        self.nodes.len() - self.auto_syncs
    }

    /// Whether the schedule has no systems.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The added systems' names, in insertion order.
    pub fn system_names(&self) -> impl Iterator<Item = &str> {
        self.nodes[..self.len()].iter().map(|node| node.system.name())
    }

    /// How many automatic sync points the last build inserted.
    pub fn auto_sync_points(&self) -> usize {
        self.auto_syncs
    }

    /// Initializes new systems and builds the dependency graph if anything
    /// changed since the last build. `run` does this itself; call it to get
    /// the error instead of a panic, or before [`Schedule::ambiguities`].
    ///
    /// # Errors
    /// [`ScheduleBuildError`] on an ordering cycle, a constraint naming a
    /// system that is not in the schedule, or a condition that writes.
    ///
    /// # Panics
    /// If a system's parameters alias in a way only the runtime check sees.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// fn a() {}
    /// fn b() {}
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((a.after(b), b.after(a)));
    /// let error = schedule.initialize(&mut world).unwrap_err();
    /// assert!(error.to_string().starts_with("schedule has an ordering cycle"));
    /// ```
    pub fn initialize(&mut self, world: &mut World) -> Result<(), ScheduleBuildError> {
        if self.graph.is_some() {
            // Nothing was added since the last build (adding clears the graph).
            return Ok(());
        }
        for node in &mut self.nodes {
            if !node.system.is_initialized() {
                node.system.initialize(world);
            }
        }
        for condition in &mut self.conditions {
            if !condition.is_initialized() {
                condition.initialize(world);
            }
        }
        self.nodes.truncate(self.nodes.len() - self.auto_syncs);
        self.auto_syncs = 0;
        let mut edges = graph::constraint_edges(&self.nodes, &self.sets, &self.chain_edges)?;
        let plan = if self.auto_sync_disabled { None } else { graph::plan_auto_sync(&self.nodes, &self.sets, &edges)? };
        let first_sync = self.nodes.len();
        if let Some(plan) = &plan {
            for _ in 0..plan.levels {
                self.nodes.push(SystemNode {
                    system: config::auto_sync_system(),
                    type_id: core::any::TypeId::of::<ApplyDeferred>(),
                    sync_point: true,
                    before: Vec::new(),
                    after: Vec::new(),
                    sets: Vec::new(),
                    conditions: Vec::new(),
                });
            }
            self.auto_syncs = plan.levels;
            edges.extend(plan.edges.iter().copied());
        }
        let auto_sync = plan.as_ref().map(|plan| (first_sync, plan.levels_of.as_slice()));
        let graph = graph::build(&self.nodes, &self.sets, &self.conditions, edges, auto_sync, world)?;
        self.state.reset(self.nodes.len());
        self.graph = Some(graph);
        Ok(())
    }

    /// Runs every system once: in parallel where their access allows, in
    /// dependency order, commands applied at sync points and at the end in
    /// system order. Runs the world's age check first when it is due
    /// ([`World::check_change_ticks`]), so a program that runs a schedule every
    /// frame never sees change ticks wrap.
    ///
    /// # Panics
    /// If the schedule cannot be built (the [`ScheduleBuildError`] message), a
    /// system fails its runtime access check, or a system panics: then no
    /// further system starts, the running ones finish, the commands of the
    /// systems that completed are applied (not the panicking one's), and the
    /// panic continues from here. The schedule can run again.
    pub fn run(&mut self, world: &mut World) {
        if let Err(error) = self.initialize(world) {
            panic!("{error}");
        }
        // The age check, when due, keeps the ticks the systems compare in the
        // window (their own `last_run`s clamp themselves as they start).
        world.check_change_ticks();
        let graph = self.graph.as_ref().expect("initialize built the graph");
        let mut run = Run::new(&mut self.nodes, &mut self.conditions, graph, &mut self.state);
        match self.executor {
            ExecutorKind::MultiThreaded => run.run_multi_threaded(world),
            ExecutorKind::SingleThreaded => run.run_single_threaded(world),
        }
    }

    /// The conflicting system pairs that no constraint orders (the schedule
    /// runs each pair in insertion order), as of the last build; empty before
    /// [`Schedule::initialize`] or `run`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource, Default)]
    /// struct Score(u32);
    /// fn add(mut score: ResMut<Score>) { score.0 += 1; }
    /// fn double(mut score: ResMut<Score>) { score.0 *= 2; }
    /// let mut world = World::new();
    /// world.insert_resource(Score::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((add, double));
    /// schedule.initialize(&mut world).unwrap();
    /// let ambiguities = schedule.ambiguities();
    /// assert_eq!(ambiguities.len(), 1);
    /// assert!(ambiguities[0].first.ends_with("add") && ambiguities[0].second.ends_with("double"));
    /// ```
    pub fn ambiguities(&self) -> &[Ambiguity] {
        self.graph.as_ref().map_or(&[], |graph| graph.ambiguities.as_slice())
    }

    /// The systems' names in the order the single-threaded executor runs them
    /// (after a build; empty before).
    pub fn execution_order(&self) -> Vec<&str> {
        self.graph
            .as_ref()
            .map_or_else(Vec::new, |graph| graph.order.iter().map(|&node| self.nodes[node].system.name()).collect())
    }

    /// The dependency graph as Graphviz DOT (after a build): systems (exclusive
    /// ones bold, sync points as diamonds), constraint edges (solid), conflict
    /// edges added in insertion order (dashed red, labelled with what they
    /// conflict on) and set membership (dotted, from a set's ellipse).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// fn a() {}
    /// fn b() {}
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((a, b).chain());
    /// schedule.initialize(&mut world).unwrap();
    /// let dot = schedule.to_dot();
    /// assert!(dot.starts_with("digraph schedule {"));
    /// assert!(dot.contains("s0 -> s1;"));
    /// ```
    pub fn to_dot(&self) -> String {
        let mut dot = String::from("digraph schedule {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
        for (index, node) in self.nodes.iter().enumerate() {
            let name = escape(&short_type_name(node.system.name()));
            let style = if index >= self.len() {
                ", shape=diamond, style=dashed, color=blue"
            } else if node.sync_point {
                ", shape=diamond"
            } else if node.system.is_exclusive() {
                ", style=bold"
            } else {
                ""
            };
            let _ = writeln!(dot, "  s{index} [label=\"{name}\"{style}];");
        }
        for (index, set) in self.sets.iter().enumerate() {
            let _ = writeln!(dot, "  set{index} [label=\"{}\", shape=ellipse, style=dashed];", escape(&set.set.name()));
            for (member, node) in self.nodes.iter().enumerate() {
                if node.sets.contains(&index) {
                    let _ = writeln!(dot, "  set{index} -> s{member} [style=dotted, arrowhead=none];");
                }
            }
        }
        if let Some(graph) = &self.graph {
            for &(from, to) in &graph.constraint_edges {
                let _ = writeln!(dot, "  s{from} -> s{to};");
            }
            for (from, to, conflicts) in &graph.conflict_edges {
                let label = escape(&conflicts.join("\\n"));
                let _ = writeln!(dot, "  s{from} -> s{to} [style=dashed, color=red, label=\"{label}\"];");
            }
        }
        dot.push_str("}\n");
        dot
    }

    /// A text description (after a build): each system in execution order,
    /// with what it waits for and its run conditions, then the ambiguities.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// fn first() {}
    /// fn second() {}
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((first, second).chain());
    /// schedule.initialize(&mut world).unwrap();
    /// let text = schedule.describe();
    /// assert!(text.contains("second (after: first)"));
    /// ```
    pub fn describe(&self) -> String {
        let Some(graph) = &self.graph else {
            return "schedule not built yet: call initialize or run\n".to_owned();
        };
        let name = |node: usize| short_type_name(self.nodes[node].system.name());
        let mut text = String::new();
        for (position, &node) in graph.order.iter().enumerate() {
            let mut waits: Vec<String> = graph
                .constraint_edges
                .iter()
                .filter(|&&(_, to)| to == node)
                .map(|&(from, _)| name(from))
                .chain(
                    graph.conflict_edges.iter().filter(|edge| edge.1 == node).map(|edge| name(edge.0) + " [conflict]"),
                )
                .collect();
            waits.dedup();
            let _ = write!(text, "{:>3}. {}", position + 1, name(node));
            if graph.exclusive[node] {
                text.push_str(" <exclusive>");
            }
            if !waits.is_empty() {
                let _ = write!(text, " (after: {})", waits.join(", "));
            }
            let conditions = &graph.node_conditions[node];
            if !conditions.is_empty() {
                let names: Vec<String> =
                    conditions.iter().map(|&c| short_type_name(self.conditions[c].name())).collect();
                let _ = write!(text, " if {}", names.join(" && "));
            }
            text.push('\n');
        }
        for ambiguity in &graph.ambiguities {
            let _ = writeln!(
                text,
                "ambiguity: {} and {} conflict on {} (run in insertion order)",
                short_type_name(&ambiguity.first),
                short_type_name(&ambiguity.second),
                ambiguity.conflicts.join(", ")
            );
        }
        text
    }
}

/// Escapes `"` and `\` for a DOT label (keeping `\n` line breaks).
fn escape(text: &str) -> String {
    text.replace('"', "\\\"")
}

impl core::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.system_names()).finish()
    }
}
