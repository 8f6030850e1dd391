//! Exclusive systems: functions of `&mut World` ([`ExclusiveFunctionSystem`]).
//!
//! An exclusive system may do anything a world owner can (spawn directly, run
//! other systems, change resources), so a schedule orders it against every
//! other system and runs it alone; it is never run through a shared world.

use core::any::type_name;
use core::marker::PhantomData;

use super::access::SystemAccess;
use super::function::{IntoSystem, System, SystemReadOnly};
use crate::storage::{LastRun, Tick};
use crate::world::World;

/// A function of `&mut World` as a system.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Marker;
/// fn spawn_now(world: &mut World) {
///     world.spawn(Marker);
/// }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(spawn_now);
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Marker>().iter(&world).count(), 1);
/// ```
pub struct ExclusiveFunctionSystem<F, Out> {
    function: F,
    name: &'static str,
    access: SystemAccess,
    initialized: bool,
    last_run: LastRun,
    _out: PhantomData<fn() -> Out>,
}

impl<F, Out> ExclusiveFunctionSystem<F, Out> {
    /// The change tick of the previous run (0 before the first).
    pub fn last_run(&self) -> Tick {
        self.last_run.tick()
    }
}

/// Marks the exclusive-function impl of [`IntoSystem`].
pub struct IsExclusiveFunctionSystem;

impl<F, Out> IntoSystem<(IsExclusiveFunctionSystem, Out)> for F
where
    F: FnMut(&mut World) -> Out + Send + Sync + 'static,
    Out: 'static,
{
    type System = ExclusiveFunctionSystem<F, Out>;

    fn into_system(self) -> Self::System {
        ExclusiveFunctionSystem {
            function: self,
            name: type_name::<F>(),
            access: SystemAccess::default(),
            initialized: false,
            last_run: LastRun::NEVER,
            _out: PhantomData,
        }
    }
}

/// An exclusive system takes `&mut World`: never read-only.
impl<F, Out> SystemReadOnly for ExclusiveFunctionSystem<F, Out>
where
    F: FnMut(&mut World) -> Out + Send + Sync + 'static,
    Out: 'static,
{
    const READ_ONLY: bool = false;
}

impl<F, Out> System for ExclusiveFunctionSystem<F, Out>
where
    F: FnMut(&mut World) -> Out + Send + Sync + 'static,
    Out: 'static,
{
    type In = ();
    type Out = Out;

    fn name(&self) -> &str {
        self.name
    }

    fn initialize(&mut self, _world: &mut World) {
        self.initialized = true;
    }

    fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Empty: an exclusive system is ordered against every system by
    /// [`System::is_exclusive`], not by its units.
    fn access(&self) -> &SystemAccess {
        &self.access
    }

    /// # Panics
    /// Always: an exclusive system needs `&mut World`; call [`System::run`].
    unsafe fn run_unsafe(&mut self, _input: (), _world: &World) -> Out {
        panic!("exclusive system `{}` needs `&mut World`: run it with `System::run`", self.name)
    }

    fn apply_deferred(&mut self, _world: &mut World) {}

    fn is_exclusive(&self) -> bool {
        true
    }

    fn run(&mut self, _input: (), world: &mut World) -> Out {
        self.initialized = true;
        self.last_run = LastRun::at(world.increment_change_tick_wide_mut());
        (self.function)(world)
    }
}
