//! Run conditions: read-only systems returning `bool` that decide, on every
//! run, whether a system (or every system of a set) runs.
//!
//! A condition is checked at compile time to be read-only ([`IntoCondition`]
//! refuses `ResMut`, `Query<&mut T>`), and again at run time when the schedule
//! is built. A condition attached to a group (`(a, b).run_if(c)`) or a set is
//! evaluated once per run, when the first system it guards is about to start;
//! its reads count as reads of every system it guards, so it never races a
//! writer.

use crate::system::{IntoSystem, MessageReader, Res, System, SystemAccess};
use crate::world::{Message, Resource, World};

/// A boxed run condition.
pub type BoxedCondition = Box<dyn System<Out = bool>>;

/// Things usable as run conditions: read-only systems returning `bool`.
pub trait IntoCondition<Marker>: Sized {
    /// The compile-time checks: the parameters' access check and read-only-ness.
    const CHECK: ();

    /// Boxes the condition.
    fn into_condition(self) -> BoxedCondition;
}

impl<Marker, S> IntoCondition<Marker> for S
where
    S: IntoSystem<Marker>,
    S::System: System<Out = bool>,
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

impl System for NotCondition {
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

    unsafe fn run_unsafe(&mut self, world: &World) -> bool {
        // SAFETY: forwarded to the caller; the inner condition's access is ours.
        !unsafe { self.inner.run_unsafe(world) }
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

    fn is_exclusive(&self) -> bool {
        self.inner.is_exclusive()
    }

    fn run(&mut self, world: &mut World) -> bool {
        !self.inner.run(world)
    }
}
