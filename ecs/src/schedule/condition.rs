//! Run conditions: read-only systems returning `bool` that decide, on every
//! run, whether a system (or every system of a set) runs.
//!
//! A condition is checked at compile time to be read-only ([`IntoCondition`]
//! refuses `ResMut`, `Query<&mut T>`), and again at run time when the schedule
//! is built. A condition attached to a group (`(a, b).run_if(c)`) or a set is
//! evaluated once per run, when the first system it guards is about to start;
//! its reads count as reads of every system it guards, so it never races a
//! writer.

use crate::component::Component;
use crate::query::With;
use crate::system::{IntoSystem, Local, MessageReader, Query, Res, System, SystemAccess, SystemReadOnly};
use crate::world::{Message, Resource, World};

/// A boxed run condition.
pub type BoxedCondition = Box<dyn System<In = (), Out = bool>>;

/// Things usable as run conditions: read-only systems returning `bool`.
pub trait IntoCondition<Marker>: Sized {
    /// The compile-time checks: the parameters' access check and read-only-ness.
    const CHECK: ();

    /// Boxes the condition.
    fn into_condition(self) -> BoxedCondition;
}

/// `.and(..)` and `.or(..)` on every condition: combine two conditions into
/// one that short-circuits like `&&` and `||` (the second is evaluated only
/// when the first does not decide). Separate `.run_if` conditions, by
/// contrast, are all evaluated on every run.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Config;
/// #[derive(Resource)]
/// struct Paused;
/// #[derive(Resource, Default)]
/// struct Frames(u32);
/// fn count(mut frames: ResMut<Frames>) { frames.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Frames>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(count.run_if(resource_exists::<Config>.and(not(resource_exists::<Paused>)).or(run_once)));
/// schedule.run(&mut world); // run_once
/// schedule.run(&mut world); // no Config
/// world.insert_resource(Config);
/// schedule.run(&mut world);
/// world.insert_resource(Paused);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Frames>().0, 2);
/// ```
pub trait Condition<Marker>: IntoCondition<Marker> {
    /// Both conditions (the second only evaluated when the first passes).
    fn and<OtherMarker, Other: IntoCondition<OtherMarker>>(self, other: Other) -> CombinedCondition {
        let () = Self::CHECK;
        let () = Other::CHECK;
        CombinedCondition::new(self.into_condition(), other.into_condition(), Combinator::And)
    }

    /// Either condition (the second only evaluated when the first fails).
    fn or<OtherMarker, Other: IntoCondition<OtherMarker>>(self, other: Other) -> CombinedCondition {
        let () = Self::CHECK;
        let () = Other::CHECK;
        CombinedCondition::new(self.into_condition(), other.into_condition(), Combinator::Or)
    }
}

impl<Marker, C: IntoCondition<Marker>> Condition<Marker> for C {}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Combinator {
    And,
    Or,
}

/// The condition built by [`Condition::and`] or [`Condition::or`].
pub struct CombinedCondition {
    first: BoxedCondition,
    second: BoxedCondition,
    combinator: Combinator,
    name: String,
    access: SystemAccess,
}

impl CombinedCondition {
    fn new(first: BoxedCondition, second: BoxedCondition, combinator: Combinator) -> Self {
        let operator = if combinator == Combinator::And { "&&" } else { "||" };
        let name = format!("({} {operator} {})", first.name(), second.name());
        CombinedCondition { first, second, combinator, name, access: SystemAccess::default() }
    }

    /// Whether the first result decides without the second.
    fn decided(&self, first: bool) -> Option<bool> {
        match (self.combinator, first) {
            (Combinator::And, false) => Some(false),
            (Combinator::Or, true) => Some(true),
            _ => None,
        }
    }
}

impl core::fmt::Debug for CombinedCondition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.name)
    }
}

/// Marks the [`CombinedCondition`] impl of [`IntoCondition`].
pub struct IsCombinedCondition;

impl IntoCondition<IsCombinedCondition> for CombinedCondition {
    const CHECK: () = ();

    fn into_condition(self) -> BoxedCondition {
        Box::new(self)
    }
}

/// Its conditions are read-only (checked when they were combined).
impl SystemReadOnly for CombinedCondition {
    const READ_ONLY: bool = true;
}

impl System for CombinedCondition {
    type In = ();
    type Out = bool;

    fn name(&self) -> &str {
        &self.name
    }

    fn initialize(&mut self, world: &mut World) {
        if !self.first.is_initialized() {
            self.first.initialize(world);
        }
        if !self.second.is_initialized() {
            self.second.initialize(world);
        }
        let mut access = self.first.access().clone();
        access.extend(self.second.access());
        self.access = access;
    }

    fn is_initialized(&self) -> bool {
        self.first.is_initialized() && self.second.is_initialized()
    }

    fn access(&self) -> &SystemAccess {
        &self.access
    }

    unsafe fn run_unsafe(&mut self, _input: (), world: &World) -> bool {
        // SAFETY: forwarded to the caller; the access is the union of both.
        let first = unsafe { evaluate_unsafe(self.first.as_mut(), world) };
        // SAFETY: as above; the first condition's borrows ended.
        self.decided(first).unwrap_or_else(|| unsafe { evaluate_unsafe(self.second.as_mut(), world) })
    }

    fn run(&mut self, _input: (), world: &mut World) -> bool {
        if !self.is_initialized() {
            self.initialize(world);
        }
        let first = evaluate(self.first.as_mut(), world);
        self.decided(first).unwrap_or_else(|| evaluate(self.second.as_mut(), world))
    }

    fn apply_deferred(&mut self, world: &mut World) {
        self.first.apply_deferred(world);
        self.second.apply_deferred(world);
    }

    fn discard_deferred(&mut self) {
        self.first.discard_deferred();
        self.second.discard_deferred();
    }

    fn has_deferred(&self) -> bool {
        self.first.has_deferred() || self.second.has_deferred()
    }

    /// Always true: each half is validated when it is evaluated, and one
    /// whose parameters cannot be built counts as false (Bevy), so
    /// `vacant.or(other)` still asks `other`.
    unsafe fn validate_param_unsafe(&mut self, _world: &World) -> bool {
        true
    }

    fn is_exclusive(&self) -> bool {
        self.first.is_exclusive() || self.second.is_exclusive()
    }
}

/// A condition's verdict: `false`, without running it, when its parameters
/// cannot be built (a `Single` that matches no entity or several), as in
/// Bevy; else what it returns.
///
/// # Safety
/// As [`System::run_unsafe`]: `world` is the world `condition` was
/// initialized with, and nothing conflicting with its access is borrowed.
pub(crate) unsafe fn evaluate_unsafe(condition: &mut dyn System<In = (), Out = bool>, world: &World) -> bool {
    // SAFETY: forwarded to the caller.
    unsafe { condition.validate_param_unsafe(world) && condition.run_unsafe((), world) }
}

/// [`evaluate_unsafe`] with the world to itself: the condition runs with
/// [`System::run`] (initialized first if it was not).
fn evaluate(condition: &mut dyn System<In = (), Out = bool>, world: &mut World) -> bool {
    if !condition.is_initialized() {
        condition.initialize(world);
    }
    // SAFETY: `&mut World` excludes every other borrow; the condition was
    // initialized with this world above or by its owner.
    let valid = unsafe { condition.validate_param_unsafe(world) };
    valid && condition.run((), world)
}

impl<Marker, S> IntoCondition<Marker> for S
where
    S: IntoSystem<Marker>,
    S::System: System<In = (), Out = bool>,
{
    const CHECK: () = {
        let () = S::CHECK;
        assert!(
            S::READ_ONLY,
            "a run condition must be read-only: take Res<T>, Query<&T>, Local<T> or &World, not ResMut<T> or Query<&mut T>"
        );
    };

    fn into_condition(self) -> BoxedCondition {
        let () = <Self as IntoCondition<Marker>>::CHECK;
        Box::new(self.into_system())
    }
}

/// The condition "`R` exists".
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Paused;
/// #[derive(Resource, Default)]
/// struct Frames(u32);
/// fn count(mut frames: ResMut<Frames>) { frames.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Frames::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(count.run_if(not(resource_exists::<Paused>)));
/// schedule.run(&mut world);
/// world.insert_resource(Paused);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Frames>().0, 1);
/// ```
pub fn resource_exists<R: Resource>(resource: Option<Res<R>>) -> bool {
    resource.is_some()
}

/// The condition "a message of type `M` arrived since this condition last
/// ran" (it reads them through its own cursor, so each message counts once).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Scored(u32);
/// #[derive(Resource, Default)]
/// struct Celebrations(u32);
/// fn celebrate(mut celebrations: ResMut<Celebrations>) { celebrations.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Celebrations>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(celebrate.run_if(on_message::<Scored>));
/// schedule.run(&mut world); // no message
/// world.write_message(Scored(1));
/// schedule.run(&mut world);
/// schedule.run(&mut world); // already seen
/// assert_eq!(world.resource::<Celebrations>().0, 1);
/// ```
pub fn on_message<M: Message>(mut reader: MessageReader<M>) -> bool {
    let arrived = !reader.is_empty();
    reader.clear();
    arrived
}

/// The condition "`R` was inserted since this condition last ran".
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Level(u32);
/// #[derive(Resource, Default)]
/// struct Loads(u32);
/// fn load(mut loads: ResMut<Loads>) { loads.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Loads>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(load.run_if(resource_added::<Level>));
/// schedule.run(&mut world);
/// world.insert_resource(Level(1));
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Loads>().0, 1);
/// ```
pub fn resource_added<R: Resource>(resource: Option<Res<R>>) -> bool {
    resource.is_some_and(|resource| resource.is_added())
}

/// The condition "`R` was inserted or written since this condition last ran".
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Volume(u32);
/// #[derive(Resource, Default)]
/// struct Applied(u32);
/// fn apply(mut applied: ResMut<Applied>) { applied.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Applied>();
/// world.insert_resource(Volume(3));
/// let mut schedule = Schedule::new();
/// schedule.add_systems(apply.run_if(resource_changed::<Volume>));
/// schedule.run(&mut world); // inserted: changed
/// schedule.run(&mut world);
/// world.resource_mut::<Volume>().0 = 4;
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Applied>().0, 2);
/// ```
pub fn resource_changed<R: Resource>(resource: Option<Res<R>>) -> bool {
    resource.is_some_and(|resource| resource.is_changed())
}

/// The condition "some entity has a `T`".
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Resource, Default)]
/// struct Alarms(u32);
/// fn alarm(mut alarms: ResMut<Alarms>) { alarms.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Alarms>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(alarm.run_if(any_with_component::<Enemy>));
/// schedule.run(&mut world);
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Alarms>().0, 1);
/// ```
pub fn any_with_component<T: Component>(entities: Query<(), With<T>>) -> bool {
    !entities.is_empty()
}

/// The condition "this condition never ran before": true on its first
/// evaluation only.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource, Default)]
/// struct Setups(u32);
/// fn setup(mut setups: ResMut<Setups>) { setups.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Setups>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(setup.run_if(run_once));
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Setups>().0, 1);
/// ```
pub fn run_once(mut has_run: Local<bool>) -> bool {
    !core::mem::replace(&mut *has_run, true)
}

/// The negation of a condition.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource, Default)]
/// struct Frames(u32);
/// fn count(mut frames: ResMut<Frames>) { frames.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Frames::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(count.run_if(not(|| false)));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Frames>().0, 1);
/// ```
pub fn not<Marker, C: IntoCondition<Marker>>(condition: C) -> NotCondition {
    let () = C::CHECK;
    let inner = condition.into_condition();
    let name = format!("not({})", inner.name());
    NotCondition { inner, name }
}

/// The condition built by [`not`].
pub struct NotCondition {
    inner: BoxedCondition,
    name: String,
}

impl core::fmt::Debug for NotCondition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.name)
    }
}

/// Marks the [`NotCondition`] impl of [`IntoCondition`].
pub struct IsNotCondition;

impl IntoCondition<IsNotCondition> for NotCondition {
    const CHECK: () = ();

    fn into_condition(self) -> BoxedCondition {
        Box::new(self)
    }
}

/// Its condition is read-only (checked by [`not`]).
impl SystemReadOnly for NotCondition {
    const READ_ONLY: bool = true;
}

impl System for NotCondition {
    type In = ();
    type Out = bool;

    fn name(&self) -> &str {
        &self.name
    }

    fn initialize(&mut self, world: &mut World) {
        self.inner.initialize(world);
    }

    fn is_initialized(&self) -> bool {
        self.inner.is_initialized()
    }

    fn access(&self) -> &SystemAccess {
        self.inner.access()
    }

    unsafe fn run_unsafe(&mut self, _input: (), world: &World) -> bool {
        // SAFETY: forwarded to the caller; the inner condition's access is ours.
        !unsafe { self.inner.run_unsafe((), world) }
    }

    fn apply_deferred(&mut self, world: &mut World) {
        self.inner.apply_deferred(world);
    }

    fn discard_deferred(&mut self) {
        self.inner.discard_deferred();
    }

    fn has_deferred(&self) -> bool {
        self.inner.has_deferred()
    }

    unsafe fn validate_param_unsafe(&mut self, world: &World) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe { self.inner.validate_param_unsafe(world) }
    }

    fn is_exclusive(&self) -> bool {
        self.inner.is_exclusive()
    }

    fn run(&mut self, _input: (), world: &mut World) -> bool {
        !self.inner.run((), world)
    }
}
