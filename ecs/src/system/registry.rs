//! One-shot systems: systems registered in a world under a [`SystemId`] and
//! run on demand ([`World::run_system`], [`World::run_system_with`],
//! `Commands::run_system`), keeping their state (`Local`s, query caches,
//! message cursors) between runs.
//!
//! The systems live in a resource of slots (a generational slot map): an id is
//! its slot's index and generation, so the id of an unregistered system never
//! reaches a system registered later in the same slot. While a system runs, its
//! slot is marked *running* and the system is outside the world; a system that
//! runs its own id meanwhile gets [`RunSystemError::Recursive`] (no deadlock,
//! no second `&mut` of the system), and one unregistered while running is
//! dropped when it returns.

use core::any::Any;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use super::function::{IntoSystem, System};
use crate::world::{Resource, World, WorldId};

/// The id of a system registered with [`World::register_system`]; `I` is its
/// input (`T` of an [`In<T>`](super::In) first parameter) and `O` its output.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource, Default)]
/// struct Counter(u32);
/// fn count(mut counter: ResMut<Counter>, mut runs: Local<u32>) -> u32 {
///     *runs += 1;
///     counter.0 += 1;
///     *runs
/// }
/// let mut world = World::new();
/// world.init_resource::<Counter>();
/// let id: SystemId<(), u32> = world.register_system(count);
/// assert_eq!(world.run_system(id), Ok(1));
/// assert_eq!(world.run_system(id), Ok(2)); // `Local` state persists
/// assert!(world.unregister_system(id));
/// assert!(world.run_system(id).is_err());
/// ```
pub struct SystemId<I = (), O = ()> {
    index: u32,
    generation: u32,
    /// The world that registered it: another world's id names nothing there
    /// (`NotRegistered`), even where that world has a slot of this index.
    world: WorldId,
    _signature: PhantomData<fn(I) -> O>,
}

impl<I, O> SystemId<I, O> {
    /// The slot index (for debugging and maps).
    pub fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation when the system was registered.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl<I, O> Clone for SystemId<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, O> Copy for SystemId<I, O> {}

impl<I, O> PartialEq for SystemId<I, O> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && self.generation == other.generation && self.world == other.world
    }
}

impl<I, O> Eq for SystemId<I, O> {}

impl<I, O> Hash for SystemId<I, O> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.generation.hash(state);
    }
}

impl<I, O> fmt::Debug for SystemId<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SystemId({}v{})", self.index, self.generation)
    }
}

/// Why [`World::run_system`] did not run a system.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RunSystemError {
    /// No system is registered under this id (never, or unregistered since).
    NotRegistered {
        /// The id's slot index.
        index: u32,
        /// The id's generation.
        generation: u32,
    },
    /// The system is running: it (or something it runs) ran its own id.
    Recursive {
        /// The id's slot index.
        index: u32,
        /// The id's generation.
        generation: u32,
    },
    /// A parameter cannot be built now (a `Single` that matches no entity or
    /// several), so the system did not run.
    Skipped {
        /// The id's slot index.
        index: u32,
        /// The id's generation.
        generation: u32,
    },
    /// A parameter failed validation (a `Res`/`ResMut` of a resource that
    /// does not exist; the panic message a schedule would give is printed),
    /// so the system did not run.
    InvalidParam {
        /// The id's slot index.
        index: u32,
        /// The id's generation.
        generation: u32,
    },
}

impl fmt::Display for RunSystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunSystemError::NotRegistered { index, generation } => {
                write!(
                    f,
                    "no system is registered under SystemId({index}v{generation}); it was unregistered or never registered in this world"
                )
            }
            RunSystemError::Recursive { index, generation } => {
                write!(f, "system SystemId({index}v{generation}) is already running: a system cannot run itself")
            }
            RunSystemError::InvalidParam { index, generation } => write!(
                f,
                "system SystemId({index}v{generation}) did not run: a parameter failed validation (a resource it \
                 needs does not exist)"
            ),
            RunSystemError::Skipped { index, generation } => write!(
                f,
                "system SystemId({index}v{generation}) was skipped: a parameter cannot be built (a Single that matches \
                 no entity or several)"
            ),
        }
    }
}

impl std::error::Error for RunSystemError {}

/// One slot of the registry.
enum SlotState {
    Vacant,
    /// The boxed system (a `Box<dyn System<In = I, Out = O>>`, erased).
    Idle(Box<dyn Any + Send + Sync>),
    Running,
}

struct Slot {
    generation: u32,
    state: SlotState,
}

/// The registered systems of a world.
#[derive(Default)]
struct RegisteredSystems {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Resource for RegisteredSystems {}

impl RegisteredSystems {
    fn slot(&mut self, index: u32, generation: u32) -> Option<&mut Slot> {
        self.slots.get_mut(index as usize).filter(|slot| slot.generation == generation)
    }
}

type BoxedIoSystem<I, O> = Box<dyn System<In = I, Out = O>>;

impl World {
    /// Registers `system` to run on demand; it is initialized now and keeps its
    /// state between runs.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let id = world.register_system(|| 7);
    /// assert_eq!(world.run_system(id), Ok(7));
    /// ```
    #[track_caller]
    pub fn register_system<Marker, S>(
        &mut self,
        system: S,
    ) -> SystemId<<S::System as System>::In, <S::System as System>::Out>
    where
        S: IntoSystem<Marker>,
        <S::System as System>::Out: 'static,
    {
        let () = S::CHECK;
        let mut system: BoxedIoSystem<<S::System as System>::In, <S::System as System>::Out> =
            Box::new(system.into_system());
        system.initialize(self);
        self.init_resource::<RegisteredSystems>();
        let mut registry = self.resource_mut::<RegisteredSystems>();
        let registry = registry.bypass_change_detection();
        let erased: Box<dyn Any + Send + Sync> = Box::new(system);
        let index = match registry.free.pop() {
            Some(index) => index,
            None => {
                registry.slots.push(Slot { generation: 0, state: SlotState::Vacant });
                (registry.slots.len() - 1) as u32
            }
        };
        let slot = &mut registry.slots[index as usize];
        slot.state = SlotState::Idle(erased);
        let generation = slot.generation;
        SystemId { index, generation, world: self.id(), _signature: PhantomData }
    }

    /// Runs the registered system `id` (its commands are applied before this
    /// returns) and returns its output.
    ///
    /// # Errors
    /// [`RunSystemError::NotRegistered`] if `id` names no registered system,
    /// [`RunSystemError::Recursive`] if that system is running (it ran itself),
    /// [`RunSystemError::Skipped`] if a `Single` does not match exactly one
    /// entity, [`RunSystemError::InvalidParam`] if a resource it needs does
    /// not exist.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Enemy;
    /// let mut world = World::new();
    /// let spawn = world.register_system(|mut commands: Commands| {
    ///     commands.spawn(Enemy);
    /// });
    /// world.run_system(spawn).unwrap();
    /// world.run_system(spawn).unwrap();
    /// assert_eq!(world.query::<&Enemy>().iter(&world).count(), 2);
    /// ```
    pub fn run_system<O: 'static>(&mut self, id: SystemId<(), O>) -> Result<O, RunSystemError> {
        self.run_system_with(id, ())
    }

    /// Runs the registered system `id` with `input` (see [`World::run_system`]).
    ///
    /// # Errors
    /// As [`World::run_system`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let add = world.register_system(|In((a, b)): In<(u32, u32)>| a + b);
    /// assert_eq!(world.run_system_with(add, (2, 3)), Ok(5));
    /// ```
    pub fn run_system_with<I: 'static, O: 'static>(
        &mut self,
        id: SystemId<I, O>,
        input: I,
    ) -> Result<O, RunSystemError> {
        let (index, generation) = (id.index, id.generation);
        let not_registered = RunSystemError::NotRegistered { index, generation };
        if id.world != self.id() {
            return Err(not_registered);
        }
        let mut system = {
            let Some(mut registry) = self.get_resource_mut::<RegisteredSystems>() else {
                return Err(not_registered);
            };
            let slot = registry.bypass_change_detection().slot(index, generation).ok_or(not_registered)?;
            match core::mem::replace(&mut slot.state, SlotState::Running) {
                SlotState::Idle(system) if system.is::<BoxedIoSystem<I, O>>() => system,
                SlotState::Idle(system) => {
                    // Cannot happen for an id of this world (its slot holds the
                    // system it was made for); refused rather than trusted.
                    slot.state = SlotState::Idle(system);
                    return Err(not_registered);
                }
                SlotState::Running => return Err(RunSystemError::Recursive { index, generation }),
                SlotState::Vacant => {
                    slot.state = SlotState::Vacant;
                    return Err(not_registered);
                }
            }
        };
        // Run it outside the registry; a panicking system drops its queued
        // commands and stays registered. Its commands go to the world's queue
        // and apply once it is back in its slot (as in Bevy), so a command
        // that runs it again (`Commands::run_system` of its own id) does.
        let typed =
            system.downcast_mut::<BoxedIoSystem<I, O>>().expect("a SystemId's types are the registered system's");
        let result = if typed.is_exclusive() {
            // `&mut World` systems run (and apply) through `System::run`.
            // SAFETY: `&mut World` excludes every other borrow.
            match catch_unwind(AssertUnwindSafe(|| unsafe { typed.validate_param_unsafe(self) })) {
                Ok(true) => match catch_unwind(AssertUnwindSafe(|| Ok(typed.run(input, self)))) {
                    // A parameter validated late (a pipe's second half, after
                    // its first ran) could not be built: the caller's error.
                    Err(_) if typed.invalid_param_last_run() => {
                        Ok(Err(RunSystemError::InvalidParam { index, generation }))
                    }
                    run => run,
                },
                Ok(false) => Ok(Err(RunSystemError::Skipped { index, generation })),
                Err(_) => Ok(Err(RunSystemError::InvalidParam { index, generation })),
            }
        } else {
            if !typed.is_initialized() {
                typed.initialize(self);
            }
            self.check_change_ticks();
            // SAFETY: `&mut World` excludes every other borrow; the system is
            // initialized on this world.
            match catch_unwind(AssertUnwindSafe(|| unsafe { typed.validate_param_unsafe(self) })) {
                Ok(true) => match catch_unwind(AssertUnwindSafe(|| {
                    // SAFETY: as above.
                    let out = unsafe { typed.run_unsafe(input, self) };
                    typed.queue_deferred(self);
                    Ok(out)
                })) {
                    // As above; what the first half deferred is applied (Bevy
                    // queues a system's commands whatever its result).
                    Err(_) if typed.invalid_param_last_run() => {
                        typed.queue_deferred(self);
                        Ok(Err(RunSystemError::InvalidParam { index, generation }))
                    }
                    run => run,
                },
                Ok(false) => Ok(Err(RunSystemError::Skipped { index, generation })),
                // A validation panic (a missing resource) is the caller's error.
                Err(_) => Ok(Err(RunSystemError::InvalidParam { index, generation })),
            }
        };
        // A pipe whose `()`-output second half could not be built ran its
        // first half only: skipped, as Bevy reports it.
        let result = match result {
            Ok(Ok(_)) if typed.skipped_last_run() => Ok(Err(RunSystemError::Skipped { index, generation })),
            other => other,
        };
        if result.is_err() {
            typed.discard_deferred();
        }
        // Back into its slot, unless it was unregistered meanwhile (then it is dropped here).
        if let Some(mut registry) = self.get_resource_mut::<RegisteredSystems>()
            && let Some(slot) = registry.bypass_change_detection().slot(index, generation)
            && matches!(slot.state, SlotState::Running)
        {
            slot.state = SlotState::Idle(system);
        }
        let output = result.unwrap_or_else(|payload| resume_unwind(payload));
        self.apply_system_commands();
        output
    }

    /// Unregisters the system `id` (dropping it and its state); `false` if no
    /// system was registered under it. A running system is dropped when it
    /// returns.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let id = world.register_system(|| ());
    /// assert!(world.unregister_system(id));
    /// assert!(!world.unregister_system(id));
    /// ```
    pub fn unregister_system<I, O>(&mut self, id: SystemId<I, O>) -> bool {
        if id.world != self.id() {
            return false;
        }
        let Some(mut registry) = self.get_resource_mut::<RegisteredSystems>() else {
            return false;
        };
        let registry = registry.bypass_change_detection();
        let Some(slot) = registry.slot(id.index, id.generation) else {
            return false;
        };
        let removed = core::mem::replace(&mut slot.state, SlotState::Vacant);
        if matches!(removed, SlotState::Vacant) {
            return false;
        }
        slot.generation = slot.generation.wrapping_add(1);
        registry.free.push(id.index);
        // Dropped here, outside any borrow the system could need.
        drop(removed);
        true
    }
}
