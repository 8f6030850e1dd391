//! [`System`]s, and plain functions as systems ([`FunctionSystem`]).
//!
//! A function whose parameters all implement [`SystemParam`] (up to 16) is a
//! system: [`IntoSystem`] wraps it with the parameters' states. Converting it
//! forces the const access check of its parameters (a conflict is a compile
//! error at the user's call); initializing it runs the runtime check, which also
//! decides what the const check had to leave open (`Or` filters, generic
//! resources) and panics with the system's name, both parameters and the fix.

use core::any::type_name;
use core::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use super::access::{Conflict, ParamAccess, SystemAccess};
use super::param::{SystemMeta, SystemParam, SystemParamItem};
use crate::world::World;

/// Something a schedule can run.
pub trait System: Send + Sync + 'static {
    /// What one run takes: `()` for ordinary systems, `T` for a function whose
    /// first parameter is [`In<T>`] (piped systems, `run_system_with`).
    type In: 'static;
    /// What one run returns (`()` for ordinary systems, `bool` for run conditions).
    type Out;

    /// The system's name.
    fn name(&self) -> &str;

    /// Creates the parameters' states and checks their access at run time.
    ///
    /// # Panics
    /// Panics if two parameters alias (naming the system, both parameters and
    /// the fix).
    fn initialize(&mut self, world: &mut World);

    /// Whether `initialize` ran.
    fn is_initialized(&self) -> bool;

    /// The runtime access (valid after `initialize`).
    fn access(&self) -> &SystemAccess;

    /// Runs the system through a shared world.
    ///
    /// # Safety
    /// The system is initialized on `world`, and nothing else borrows what its
    /// access declares for the duration of the call.
    unsafe fn run_unsafe(&mut self, input: Self::In, world: &World) -> Self::Out;

    /// Whether the parameters can be built now; a schedule skips a system
    /// whose parameters cannot (a `Single` without exactly one match), as if a
    /// run condition failed. Always true by default.
    ///
    /// # Safety
    /// As [`System::run_unsafe`].
    unsafe fn validate_param_unsafe(&mut self, _world: &World) -> bool {
        true
    }

    /// Applies deferred commands.
    fn apply_deferred(&mut self, world: &mut World);

    /// Drops deferred commands unapplied (after the system panicked).
    fn discard_deferred(&mut self) {}

    /// Hands deferred commands to the world's own queue instead of applying
    /// them (`World::run_system` does, so that the system is back in its
    /// slot when they apply and a command may run it again). The default
    /// applies them at once.
    fn queue_deferred(&mut self, world: &mut World) {
        self.apply_deferred(world);
    }

    /// Whether the system queues deferred work (commands) that
    /// [`System::apply_deferred`] applies: a schedule applies it before the
    /// systems ordered after this one run (automatic sync points).
    fn has_deferred(&self) -> bool {
        false
    }

    /// Whether the system takes `&mut World` ([`ExclusiveFunctionSystem`](super::ExclusiveFunctionSystem)):
    /// a schedule runs it alone, through [`System::run`], never through
    /// [`System::run_unsafe`].
    fn is_exclusive(&self) -> bool {
        false
    }

    /// Whether the last run stopped short because a parameter could not be
    /// built after it began: the second half of a pipe whose output is `()`
    /// (validated only once the first half ran, as in Bevy) gives `()`
    /// without running, and `World::run_system` reports
    /// `RunSystemError::Skipped`. `false` for systems that are checked whole
    /// before they run.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Player;
    /// fn first() -> u32 { 1 }
    /// fn second(_input: In<u32>, _player: Single<&Player>) {}
    /// let mut world = World::new();
    /// let id = world.register_system(first.pipe(second));
    /// assert!(matches!(world.run_system(id), Err(RunSystemError::Skipped { .. })));
    /// world.spawn(Player);
    /// assert!(world.run_system(id).is_ok());
    /// ```
    fn skipped_last_run(&self) -> bool {
        false
    }

    /// Whether the last run stopped with a panic because a parameter could
    /// not be built when it was validated late (a missing resource of a
    /// pipe's second half, validated after the first half ran): the panic is
    /// the caller's error, not the system's, and
    /// [`World::run_system`](crate::world::World::run_system) returns
    /// `RunSystemError::InvalidParam` for it (Bevy).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource)]
    /// struct Missing;
    /// fn first() -> u32 { 1 }
    /// fn second(_input: In<u32>, _missing: Res<Missing>) {}
    /// let mut world = World::new();
    /// let id = world.register_system(first.pipe(second));
    /// assert!(matches!(world.run_system(id), Err(RunSystemError::InvalidParam { .. })));
    /// world.insert_resource(Missing);
    /// assert!(world.run_system(id).is_ok());
    /// ```
    fn invalid_param_last_run(&self) -> bool {
        false
    }

    /// Initializes if needed, runs with `input` (`()` for most systems), and
    /// applies deferred commands. Runs the world's age check first when it is
    /// due ([`World::check_change_ticks`]). If the system panics, its deferred
    /// commands are dropped ([`System::discard_deferred`]) and the panic
    /// continues.
    ///
    /// # Panics
    /// If a parameter cannot be built ([`System::validate_param_unsafe`]: a
    /// `Single` without exactly one match); `World::run_system` returns
    /// `RunSystemError::Skipped` instead.
    fn run(&mut self, input: Self::In, world: &mut World) -> Self::Out {
        if !self.is_initialized() {
            self.initialize(world);
        }
        world.check_change_ticks();
        // SAFETY: `&mut World` excludes every other borrow.
        if !unsafe { self.validate_param_unsafe(world) } {
            panic!(
                "system `{}` cannot run: a parameter cannot be built (a Single that matches no entity or several)",
                self.name()
            );
        }
        // SAFETY: `&mut World` excludes every other borrow.
        let out = match catch_unwind(AssertUnwindSafe(|| unsafe { self.run_unsafe(input, world) })) {
            Ok(out) => out,
            Err(payload) => {
                self.discard_deferred();
                resume_unwind(payload);
            }
        };
        self.apply_deferred(world);
        out
    }
}

/// A boxed system, by default taking and returning `()`.
pub type BoxedSystem<In = (), Out = ()> = Box<dyn System<In = In, Out = Out>>;

/// The input of a system whose first parameter is `In<T>`: what
/// [`World::run_system_with`](crate::world::World) or the system piped into it
/// ([`IntoSystem::pipe`]) hands it.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// fn double(In(value): In<u32>) -> u32 { value * 2 }
/// let mut world = World::new();
/// let id = world.register_system(double);
/// assert_eq!(world.run_system_with(id, 21), Ok(42));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct In<T>(pub T);

impl<T> core::ops::Deref for In<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> core::ops::DerefMut for In<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// What a system type says at compile time about its writes: run conditions
/// must be read-only, and a pipe ([`PipeSystem`](super::PipeSystem)) or map
/// ([`MapSystem`](super::MapSystem)) is read-only when its systems are.
/// Implemented for every system type of this crate; a custom [`System`]
/// that is piped or mapped implements it too.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::system::SystemReadOnly;
/// #[derive(Resource)]
/// struct Score(u32);
/// fn high(score: Res<Score>) -> bool { score.0 > 10 }
/// fn reset(mut score: ResMut<Score>) -> bool { score.0 = 0; true }
/// fn is_read_only<M, S: IntoSystem<M>>(system: S) -> bool where S::System: SystemReadOnly {
///     let _ = system;
///     <S::System as SystemReadOnly>::READ_ONLY
/// }
/// assert!(is_read_only(high));
/// assert!(is_read_only(high.map(|high| !high)));
/// assert!(!is_read_only(reset));
/// assert!(!is_read_only(high.pipe(|In(high): In<bool>, mut score: ResMut<Score>| { score.0 += 1; high })));
/// ```
pub trait SystemReadOnly: System {
    /// Whether the system provably writes nothing.
    const READ_ONLY: bool;
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> SystemReadOnly for FunctionSystem<Marker, F> {
    const READ_ONLY: bool = !<F::Param as SystemParam>::ACCESS.writes_any();
}

/// Conversion into a [`System`]; implemented for functions of system parameters.
pub trait IntoSystem<Marker>: Sized {
    /// The system type.
    type System: System;
    /// The compile-time access check; generic entry points reference it so a
    /// conflict's note points at the user's call.
    const CHECK: () = ();
    /// Whether the system provably writes nothing (known at compile time); run
    /// conditions must be read-only.
    const READ_ONLY: bool = false;

    /// Converts, forcing the compile-time access check.
    fn into_system(self) -> Self::System;

    /// This system, then `next` with this system's output as its [`In`]
    /// (see [`PipeSystem`](super::PipeSystem)).
    fn pipe<NextMarker, Next>(self, next: Next) -> super::PipeSystem<Self::System, Next::System>
    where
        Next: IntoSystem<NextMarker>,
        Next::System: System<In = <Self::System as System>::Out>,
    {
        let () = Self::CHECK;
        let () = Next::CHECK;
        super::PipeSystem::new(self.into_system(), next.into_system())
    }

    /// This system with `function` applied to its output (see
    /// [`MapSystem`](super::MapSystem)).
    fn map<T, F>(self, function: F) -> super::MapSystem<Self::System, F>
    where
        F: FnMut(<Self::System as System>::Out) -> T + Send + Sync + 'static,
    {
        let () = Self::CHECK;
        super::MapSystem::new(self.into_system(), function)
    }
}

/// A function usable as a system, with parameters `Self::Param` (after an
/// optional [`In<T>`] first parameter).
pub trait SystemParamFunction<Marker>: Send + Sync + 'static {
    /// The input (`T` of a first parameter `In<T>`, else `()`).
    type In: 'static;
    /// The parameters, as a tuple.
    type Param: SystemParam;
    /// The return type.
    type Out;
    /// The compile-time access check of the parameters.
    const CHECK: () = <Self::Param as SystemParam>::ACCESS.check("");

    /// Calls the function.
    fn run(&mut self, input: Self::In, param: SystemParamItem<'_, '_, Self::Param>) -> Self::Out;
}

/// A function system: the function and its parameters' states.
pub struct FunctionSystem<Marker, F: SystemParamFunction<Marker>> {
    function: F,
    state: Option<<F::Param as SystemParam>::State>,
    meta: SystemMeta,
    _marker: PhantomData<fn() -> Marker>,
}

/// Marks the function-system impl of [`IntoSystem`].
pub struct IsFunctionSystem;

impl<Marker: 'static, F: SystemParamFunction<Marker>> IntoSystem<(IsFunctionSystem, Marker)> for F {
    type System = FunctionSystem<Marker, F>;
    const CHECK: () = F::CHECK;
    const READ_ONLY: bool = !<F::Param as SystemParam>::ACCESS.writes_any();

    fn into_system(self) -> Self::System {
        let () = F::CHECK;
        FunctionSystem { function: self, state: None, meta: SystemMeta::new(type_name::<F>()), _marker: PhantomData }
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> System for FunctionSystem<Marker, F> {
    type In = F::In;
    type Out = F::Out;

    fn name(&self) -> &str {
        &self.meta.name
    }

    fn initialize(&mut self, world: &mut World) {
        // A second initialization rebuilds the access from scratch instead of
        // appending the parameters' units again.
        self.meta.access = SystemAccess::default();
        let state = <F::Param as SystemParam>::init_state(world, &mut self.meta);
        if let Some((a, b, conflict)) = self.meta.access.first_conflict() {
            let on = conflict.describe(world);
            let fix = match conflict {
                Conflict::World => "&World reads everything, so no other param may write: use an exclusive system",
                Conflict::Resource(_) => "a resource may be borrowed mutably by one param only",
                Conflict::Component(_) => "make them disjoint with With<T>/Without<T> or merge them into one query",
                Conflict::EntityReservation => "entity reservations of one system never conflict",
            };
            panic!(
                "system `{}`: params #{} and #{} conflict on {on}: {} vs {}; {fix}",
                self.meta.name, a.param, b.param, a.label, b.label
            );
        }
        self.state = Some(state);
    }

    fn is_initialized(&self) -> bool {
        self.state.is_some()
    }

    fn access(&self) -> &SystemAccess {
        &self.meta.access
    }

    unsafe fn run_unsafe(&mut self, input: F::In, world: &World) -> F::Out {
        let now = world.increment_change_tick_wide();
        let this_run = self.meta.begin_run(now);
        let state = self.state.as_mut().unwrap_or_else(|| panic!("system `{}` run before initialize", self.meta.name));
        // SAFETY: forwarded to the caller: initialized on `world`, declared access exclusive.
        let params = unsafe { <F::Param as SystemParam>::get_param(state, &self.meta, world, this_run) };
        let out = self.function.run(input, params);
        self.meta.end_run(now);
        out
    }

    fn apply_deferred(&mut self, world: &mut World) {
        if let Some(state) = self.state.as_mut() {
            <F::Param as SystemParam>::apply(state, world);
        }
    }

    fn discard_deferred(&mut self) {
        if let Some(state) = self.state.as_mut() {
            <F::Param as SystemParam>::discard(state);
        }
    }

    fn queue_deferred(&mut self, world: &mut World) {
        if let Some(state) = self.state.as_mut() {
            <F::Param as SystemParam>::defer(state, world);
        }
    }

    fn has_deferred(&self) -> bool {
        <F::Param as SystemParam>::HAS_DEFERRED
    }

    unsafe fn validate_param_unsafe(&mut self, world: &World) -> bool {
        let Some(state) = self.state.as_mut() else { return false };
        // SAFETY: forwarded to the caller.
        unsafe { <F::Param as SystemParam>::validate_param(state, &self.meta, world) }
    }
}

macro_rules! impl_system_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl<Out, Func, $($param: SystemParam),*> SystemParamFunction<fn($($param,)*) -> Out> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut($($param),*) -> Out + FnMut($(SystemParamItem<'_, '_, $param>),*) -> Out,
            Out: 'static,
        {
            type In = ();
            type Param = ($($param,)*);
            type Out = Out;

            #[inline]
            fn run(&mut self, _input: (), param: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                // Calling through a helper with explicit generic types makes rustc
                // pick the `FnMut(items)` impl rather than the `FnMut(params)` one.
                fn call<Out, $($param),*>(mut function: impl FnMut($($param),*) -> Out, $($param: $param),*) -> Out {
                    function($($param),*)
                }
                let ($($param,)*) = param;
                call(self, $($param),*)
            }
        }

        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl<Input, Out, Func, $($param: SystemParam),*> SystemParamFunction<(HasSystemInput, fn(In<Input>, $($param,)*) -> Out)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func:
                FnMut(In<Input>, $($param),*) -> Out + FnMut(In<Input>, $(SystemParamItem<'_, '_, $param>),*) -> Out,
            Input: 'static,
            Out: 'static,
        {
            type In = Input;
            type Param = ($($param,)*);
            type Out = Out;

            #[inline]
            fn run(&mut self, input: Input, param: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                fn call<Input, Out, $($param),*>(
                    mut function: impl FnMut(In<Input>, $($param),*) -> Out,
                    input: In<Input>,
                    $($param: $param),*
                ) -> Out {
                    function(input, $($param),*)
                }
                let ($($param,)*) = param;
                call(self, In(input), $($param),*)
            }
        }
    };
}

/// Marks the [`SystemParamFunction`] impls of functions whose first parameter is [`In<T>`].
pub struct HasSystemInput;

ecs_macros::all_tuples!(impl_system_function, 0, 16, P);

impl World {
    /// Runs `system` once on this world (initialize, run, apply its commands) and
    /// returns what it returns. Its parameters are checked at compile time.
    ///
    /// # Panics
    /// Panics if the parameters alias in a way only the runtime check can see.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn(Health(3));
    /// let total = world.run_system_once(|q: Query<&Health>| q.iter().map(|h| h.0).sum::<u32>());
    /// assert_eq!(total, 3);
    /// ```
    #[track_caller]
    pub fn run_system_once<Marker, S>(&mut self, system: S) -> <S::System as System>::Out
    where
        S: IntoSystem<Marker>,
        S::System: System<In = ()>,
    {
        // Forced here too, so a conflict's note points at the caller's line.
        let () = S::CHECK;
        self.run_system_once_with(system, ())
    }

    /// [`World::run_system_once`] for a system taking [`In<T>`]: runs it once
    /// with `input`.
    ///
    /// # Panics
    /// As [`World::run_system_once`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_once_with(|In(n): In<u32>| n + 1, 41), 42);
    /// ```
    #[track_caller]
    pub fn run_system_once_with<Marker, S: IntoSystem<Marker>>(
        &mut self,
        system: S,
        input: <S::System as System>::In,
    ) -> <S::System as System>::Out {
        let () = S::CHECK;
        let mut system = system.into_system();
        system.run(input, self)
    }
}

/// Forces the const check of `ParamAccess`es in generic code paths (re-exported
/// for the `#[system]` attribute).
#[doc(hidden)]
pub const fn check_params(access: &ParamAccess, name: &str) {
    access.check(name);
}
