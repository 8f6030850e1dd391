//! What `Schedule::add_systems` and `Schedule::configure_sets` take: systems
//! and sets with their ordering constraints, sets and run conditions.
//!
//! * [`IntoSystemConfigs`] is implemented for systems, [`ApplyDeferred`] and
//!   tuples of them (up to 16, nested freely). `.before(x)`, `.after(x)` and
//!   `.in_set(s)` apply to every system of a tuple; `.run_if(c)` on a tuple
//!   adds one condition shared by all of them (evaluated once per run);
//!   `.chain()` orders the tuple's elements one after another.
//! * A constraint's target ([`IntoScheduleTarget`]) is a system (every
//!   instance of that function in the schedule) or a [`SystemSet`].
//! * [`IntoSystemSetConfigs`] does the same for sets.
//!
//! Every combinator forces the compile-time access check of the systems it
//! wraps, so `movement.after(spawn)` reports aliasing parameters like
//! `add_systems(movement)` does.

use core::any::{TypeId, type_name};
use core::ops::Range;

use super::condition::{BoxedCondition, IntoCondition};
use super::set::{InternedSet, SystemSet};
use crate::system::{BoxedSystem, IntoSystem, System, SystemAccess};
use crate::world::World;

/// The target of an ordering constraint: a system type or a set.
#[derive(Clone, Debug)]
pub struct ScheduleTarget(pub(crate) TargetKind);

#[derive(Clone, Debug)]
pub(crate) enum TargetKind {
    /// Every system of this type (a function system's type is unique to its function).
    System { type_id: TypeId, name: &'static str },
    /// Every system in this set.
    Set(InternedSet),
}

/// Things an ordering constraint can name: systems and [`SystemSet`]s.
pub trait IntoScheduleTarget<Marker> {
    /// The target.
    fn into_target(self) -> ScheduleTarget;
}

/// Marks the system impl of [`IntoScheduleTarget`].
pub struct IsSystemTarget;

impl<Marker, S: IntoSystem<Marker>> IntoScheduleTarget<(IsSystemTarget, Marker)> for S {
    fn into_target(self) -> ScheduleTarget {
        ScheduleTarget(TargetKind::System { type_id: TypeId::of::<S::System>(), name: type_name::<S>() })
    }
}

/// Marks the set impl of [`IntoScheduleTarget`].
pub struct IsSetTarget;

impl<S: SystemSet> IntoScheduleTarget<IsSetTarget> for S {
    fn into_target(self) -> ScheduleTarget {
        ScheduleTarget(TargetKind::Set(InternedSet::new(self)))
    }
}

/// One system with its constraints.
pub(crate) struct SystemConfig {
    pub(crate) system: BoxedSystem,
    /// The system's type, which `.before(f)`/`.after(f)` targets name.
    pub(crate) type_id: TypeId,
    /// Whether this is an [`ApplyDeferred`] sync point.
    pub(crate) sync_point: bool,
    pub(crate) before: Vec<ScheduleTarget>,
    pub(crate) after: Vec<ScheduleTarget>,
    pub(crate) sets: Vec<InternedSet>,
    pub(crate) conditions: Vec<BoxedCondition>,
}

/// Configured items (systems or sets) in tuple order, with what relates them:
/// the part `SystemConfigs` and `SystemSetConfigs` share.
pub(crate) struct ConfigList<T> {
    pub(crate) items: Vec<T>,
    /// `(a, b)`: item `a` runs before item `b` (indices into `items`), from `chain`.
    pub(crate) edges: Vec<(usize, usize)>,
    /// Conditions shared by a range of `items` (from `run_if` on a tuple).
    pub(crate) shared_conditions: Vec<(Range<usize>, BoxedCondition)>,
    /// The items of each element of the outermost tuple (what `chain` orders).
    elements: Vec<Range<usize>>,
}

impl<T> ConfigList<T> {
    fn single(item: T) -> ConfigList<T> {
        ConfigList { items: vec![item], edges: Vec::new(), shared_conditions: Vec::new(), elements: whole_range(1) }
    }

    fn empty() -> ConfigList<T> {
        ConfigList { items: Vec::new(), edges: Vec::new(), shared_conditions: Vec::new(), elements: Vec::new() }
    }

    /// Appends `other` as the next element of a tuple.
    fn append(&mut self, mut other: ConfigList<T>) {
        let offset = self.items.len();
        self.items.append(&mut other.items);
        self.edges.extend(other.edges.into_iter().map(|(a, b)| (a + offset, b + offset)));
        self.shared_conditions.extend(
            other.shared_conditions.into_iter().map(|(range, c)| (range.start + offset..range.end + offset, c)),
        );
        self.elements.push(offset..self.items.len());
    }

    /// Makes the whole list one element (after a combinator applied to all of it).
    fn whole(mut self) -> ConfigList<T> {
        self.elements = whole_range(self.items.len());
        self
    }

    /// Applies `change` to every item; the list becomes one element.
    fn each(mut self, mut change: impl FnMut(&mut T)) -> ConfigList<T> {
        self.items.iter_mut().for_each(&mut change);
        self.whole()
    }

    /// One condition guarding every item.
    fn share(mut self, condition: BoxedCondition) -> ConfigList<T> {
        let all = 0..self.items.len();
        self.shared_conditions.push((all, condition));
        self.whole()
    }

    /// Orders each element of the tuple after the previous one.
    fn chain(mut self) -> ConfigList<T> {
        let elements = core::mem::take(&mut self.elements);
        for pair in elements.windows(2) {
            for a in pair[0].clone() {
                for b in pair[1].clone() {
                    self.edges.push((a, b));
                }
            }
        }
        self.whole()
    }
}

/// Systems with their constraints, as [`Schedule::add_systems`](super::Schedule::add_systems) takes them.
pub struct SystemConfigs(pub(crate) ConfigList<SystemConfig>);

impl core::fmt::Debug for SystemConfigs {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.0.items.iter().map(|config| config.system.name())).finish()
    }
}

/// Things [`Schedule::add_systems`](super::Schedule::add_systems) accepts: a
/// system, [`ApplyDeferred`], configured systems, or a tuple of them.
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
/// schedule.add_systems((c.after(b), b.after(a), a));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["a", "b", "c"]);
/// ```
pub trait IntoSystemConfigs<Marker>: Sized {
    /// The compile-time access checks of every system.
    const CHECK: ();

    /// Converts into configured systems.
    fn into_configs(self) -> SystemConfigs;

    /// Runs these systems before `target` (a system or a set).
    #[track_caller]
    fn before<M>(self, target: impl IntoScheduleTarget<M>) -> SystemConfigs {
        let () = Self::CHECK;
        let target = target.into_target();
        SystemConfigs(self.into_configs().0.each(|config| config.before.push(target.clone())))
    }

    /// Runs these systems after `target` (a system or a set).
    #[track_caller]
    fn after<M>(self, target: impl IntoScheduleTarget<M>) -> SystemConfigs {
        let () = Self::CHECK;
        let target = target.into_target();
        SystemConfigs(self.into_configs().0.each(|config| config.after.push(target.clone())))
    }

    /// Puts these systems in `set`.
    #[track_caller]
    fn in_set(self, set: impl SystemSet) -> SystemConfigs {
        let () = Self::CHECK;
        let set = InternedSet::new(set);
        SystemConfigs(self.into_configs().0.each(|config| config.sets.push(set.clone())))
    }

    /// Runs these systems only when `condition` returns `true`; on a tuple, one
    /// condition guards all of them and is evaluated once per run.
    #[track_caller]
    fn run_if<M>(self, condition: impl IntoCondition<M>) -> SystemConfigs {
        let () = Self::CHECK;
        let condition = condition.into_condition();
        let mut configs = self.into_configs().0;
        if let [config] = configs.items.as_mut_slice() {
            config.conditions.push(condition);
            return SystemConfigs(configs.whole());
        }
        SystemConfigs(configs.share(condition))
    }

    /// Runs the elements of this tuple one after another, each after the
    /// previous one (commands still apply at the next sync point).
    #[track_caller]
    fn chain(self) -> SystemConfigs {
        let () = Self::CHECK;
        SystemConfigs(self.into_configs().0.chain())
    }
}

impl IntoSystemConfigs<()> for SystemConfigs {
    const CHECK: () = ();
    fn into_configs(self) -> SystemConfigs {
        self
    }
}

/// Marks the single-system impl of [`IntoSystemConfigs`].
pub struct IsSingleSystem;

impl<Marker, S> IntoSystemConfigs<(IsSingleSystem, Marker)> for S
where
    S: IntoSystem<Marker>,
    S::System: System<In = (), Out = ()>,
{
    const CHECK: () = S::CHECK;
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs(ConfigList::single(SystemConfig {
            system: Box::new(self.into_system()),
            type_id: TypeId::of::<S::System>(),
            sync_point: false,
            before: Vec::new(),
            after: Vec::new(),
            sets: Vec::new(),
            conditions: Vec::new(),
        }))
    }
}

/// A sync point: when it runs, the commands of every system that ran before it
/// (in this run) are applied, in system order. It is ordered against every
/// other system, so systems added before it run before it unless constrained.
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
/// world.insert_resource(Seen::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems((spawn, ApplyDeferred, count).chain());
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Seen>().0, 1); // the spawn was applied before `count`
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ApplyDeferred;

/// The system behind [`ApplyDeferred`] and automatic sync points: exclusive,
/// doing nothing itself (the executor applies the pending commands when it
/// reaches the node).
struct SyncPointSystem {
    access: SystemAccess,
    name: &'static str,
}

/// An automatic sync point's system (named `auto_sync`).
pub(crate) fn auto_sync_system() -> BoxedSystem {
    Box::new(SyncPointSystem { access: SystemAccess::default(), name: "auto_sync" })
}

impl System for SyncPointSystem {
    type In = ();
    type Out = ();

    fn name(&self) -> &str {
        self.name
    }

    fn initialize(&mut self, _world: &mut World) {}

    fn is_initialized(&self) -> bool {
        true
    }

    fn access(&self) -> &SystemAccess {
        &self.access
    }

    unsafe fn run_unsafe(&mut self, _input: (), _world: &World) {}

    fn apply_deferred(&mut self, _world: &mut World) {}

    fn is_exclusive(&self) -> bool {
        true
    }

    fn run(&mut self, _input: (), _world: &mut World) {}
}

/// Marks the [`ApplyDeferred`] impl of [`IntoSystemConfigs`].
pub struct IsApplyDeferred;

impl IntoSystemConfigs<IsApplyDeferred> for ApplyDeferred {
    const CHECK: () = ();
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs(ConfigList::single(SystemConfig {
            system: Box::new(SyncPointSystem { access: SystemAccess::default(), name: "apply_deferred" }),
            type_id: TypeId::of::<ApplyDeferred>(),
            sync_point: true,
            before: Vec::new(),
            after: Vec::new(),
            sets: Vec::new(),
            conditions: Vec::new(),
        }))
    }
}

/// Marks the tuple impls of [`IntoSystemConfigs`].
pub struct IsSystemTuple;

macro_rules! impl_into_system_configs_tuple {
    ($(($config:ident, $marker:ident)),*) => {
        #[allow(non_snake_case)]
        impl<$($config: IntoSystemConfigs<$marker>, $marker),*> IntoSystemConfigs<(IsSystemTuple, $($marker,)*)>
            for ($($config,)*)
        {
            const CHECK: () = { $(let () = $config::CHECK;)* };
            fn into_configs(self) -> SystemConfigs {
                let ($($config,)*) = self;
                let mut configs = ConfigList::empty();
                $(configs.append($config.into_configs().0);)*
                SystemConfigs(configs)
            }
        }
    };
}

ecs_macros::all_tuples!(impl_into_system_configs_tuple, 1, 16, S, M);

// ----- sets ----------------------------------------------------------------------------

/// One set with its constraints.
pub(crate) struct SetConfig {
    pub(crate) set: InternedSet,
    pub(crate) before: Vec<ScheduleTarget>,
    pub(crate) after: Vec<ScheduleTarget>,
}

/// Sets with their constraints, as [`Schedule::configure_sets`](super::Schedule::configure_sets) takes them.
pub struct SystemSetConfigs(pub(crate) ConfigList<SetConfig>);

impl core::fmt::Debug for SystemSetConfigs {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.0.items.iter().map(|config| &config.set)).finish()
    }
}

/// Things [`Schedule::configure_sets`](super::Schedule::configure_sets)
/// accepts: a set, configured sets, or a tuple of them. The constraints and
/// conditions apply to every system in the set.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
/// struct Physics;
/// #[derive(Resource, Default)]
/// struct Steps(u32);
/// fn step(mut steps: ResMut<Steps>) { steps.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Steps::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(step.in_set(Physics));
/// schedule.configure_sets(Physics.run_if(|steps: Res<Steps>| steps.0 < 2));
/// for _ in 0..5 {
///     schedule.run(&mut world);
/// }
/// assert_eq!(world.resource::<Steps>().0, 2);
/// ```
pub trait IntoSystemSetConfigs<Marker>: Sized {
    /// Converts into configured sets.
    fn into_set_configs(self) -> SystemSetConfigs;

    /// Runs these sets' systems before `target` (a system or a set).
    fn before<M>(self, target: impl IntoScheduleTarget<M>) -> SystemSetConfigs {
        let target = target.into_target();
        SystemSetConfigs(self.into_set_configs().0.each(|config| config.before.push(target.clone())))
    }

    /// Runs these sets' systems after `target` (a system or a set).
    fn after<M>(self, target: impl IntoScheduleTarget<M>) -> SystemSetConfigs {
        let target = target.into_target();
        SystemSetConfigs(self.into_set_configs().0.each(|config| config.after.push(target.clone())))
    }

    /// Runs these sets' systems only when `condition` returns `true`; on a
    /// tuple, one condition guards all the sets and is evaluated once per run.
    fn run_if<M>(self, condition: impl IntoCondition<M>) -> SystemSetConfigs {
        let condition = condition.into_condition();
        SystemSetConfigs(self.into_set_configs().0.share(condition))
    }

    /// Runs the elements of this tuple one after another.
    fn chain(self) -> SystemSetConfigs {
        SystemSetConfigs(self.into_set_configs().0.chain())
    }
}

impl IntoSystemSetConfigs<()> for SystemSetConfigs {
    fn into_set_configs(self) -> SystemSetConfigs {
        self
    }
}

/// Marks the single-set impl of [`IntoSystemSetConfigs`].
pub struct IsSingleSet;

impl<S: SystemSet> IntoSystemSetConfigs<IsSingleSet> for S {
    fn into_set_configs(self) -> SystemSetConfigs {
        SystemSetConfigs(ConfigList::single(SetConfig {
            set: InternedSet::new(self),
            before: Vec::new(),
            after: Vec::new(),
        }))
    }
}

/// Marks the tuple impls of [`IntoSystemSetConfigs`].
pub struct IsSetTuple;

macro_rules! impl_into_system_set_configs_tuple {
    ($(($config:ident, $marker:ident)),*) => {
        #[allow(non_snake_case)]
        impl<$($config: IntoSystemSetConfigs<$marker>, $marker),*> IntoSystemSetConfigs<(IsSetTuple, $($marker,)*)>
            for ($($config,)*)
        {
            fn into_set_configs(self) -> SystemSetConfigs {
                let ($($config,)*) = self;
                let mut configs = ConfigList::empty();
                $(configs.append($config.into_set_configs().0);)*
                SystemSetConfigs(configs)
            }
        }
    };
}

ecs_macros::all_tuples!(impl_into_system_set_configs_tuple, 1, 16, S, M);

/// One element spanning `0..len` (a list that `chain` treats as one step).
fn whole_range(len: usize) -> Vec<Range<usize>> {
    core::iter::once(0..len).collect()
}
