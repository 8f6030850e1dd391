//! Systems built from systems: [`PipeSystem`] (`a.pipe(b)`: `b` takes `a`'s
//! output as its [`In`](super::In)) and [`MapSystem`] (`a.map(f)`: `f` applied
//! to `a`'s output).
//!
//! A pipe's access is the union of both halves' access, which is what the
//! scheduler checks against other systems. The halves run one after the other
//! in one run, so they may borrow the same data (their items never coexist),
//! and their parameters are checked against each other by neither the const
//! nor the runtime check. Commands of both halves are applied at the pipe's
//! sync point, first half first.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use super::access::SystemAccess;
use super::function::{IntoSystem, System, SystemReadOnly};
use crate::world::World;

/// `a.pipe(b)`: runs `a`, then `b` with `a`'s output as its input.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Text(&'static str);
/// #[derive(Resource, Default)]
/// struct Parsed(Option<u32>);
/// fn parse(text: Res<Text>) -> Option<u32> { text.0.parse().ok() }
/// fn store(In(value): In<Option<u32>>, mut parsed: ResMut<Parsed>) { parsed.0 = value; }
/// let mut world = World::new();
/// world.insert_resource(Text("42"));
/// world.init_resource::<Parsed>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(parse.pipe(store));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Parsed>().0, Some(42));
/// ```
pub struct PipeSystem<A, B> {
    first: A,
    second: B,
    name: Cow<'static, str>,
    access: SystemAccess,
    /// Whether the last run's second half could not be built (and did not run).
    skipped: bool,
    /// Whether the last run's second half failed its validation with a panic
    /// (a missing resource) after the first half ran.
    invalid: bool,
}

impl<A: System, B: System<In = A::Out>> PipeSystem<A, B> {
    /// `first` piped into `second`.
    pub fn new(first: A, second: B) -> Self {
        let name = Cow::Owned(format!("{} | {}", first.name(), second.name()));
        PipeSystem { first, second, name, access: SystemAccess::default(), skipped: false, invalid: false }
    }
}

/// Whether `T` is `()`, the output of every scheduled system.
fn is_unit<T: 'static>() -> bool {
    core::any::TypeId::of::<T>() == core::any::TypeId::of::<()>()
}

/// What a pipe whose second half cannot run returns: nothing, for the `()`
/// of every scheduled pipe (as Bevy skips the second half); a pipe with an
/// output has none to give.
///
/// # Panics
/// Panics for any output but `()`, naming the pipe.
fn skipped_output<T: 'static>(name: &str) -> T {
    if is_unit::<T>() {
        // SAFETY: `T` is `()` (same `TypeId`), a zero-sized value with no bytes to read.
        return unsafe { core::mem::transmute_copy::<(), T>(&()) };
    }
    panic!(
        "the second half of pipe `{name}` cannot run: a parameter cannot be built (a Single that matches no \
         entity or several), and the pipe has an output to give"
    )
}

impl<A: System, B: System<In = A::Out>> System for PipeSystem<A, B>
where
    B::Out: 'static,
{
    type In = A::In;
    type Out = B::Out;

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

    unsafe fn run_unsafe(&mut self, input: A::In, world: &World) -> B::Out {
        // SAFETY: the caller gives this pipe the union of both halves' access;
        // they run one after the other, so their borrows never overlap.
        unsafe {
            self.invalid = false;
            let middle = self.run_half(|pipe| pipe.first.run_unsafe(input, world), |pipe| &pipe.first);
            // A first half that stopped short gives nothing to pipe on: the
            // skip travels out (Bevy propagates it as an error). Validated
            // only now: the first half may change what the second's
            // parameters see (Bevy).
            self.skipped = self.first.skipped_last_run() || !self.validate_second(world);
            if self.skipped {
                return skipped_output(&self.name);
            }
            self.run_half(|pipe| pipe.second.run_unsafe(middle, world), |pipe| &pipe.second)
        }
    }

    /// Runs both halves, then applies both halves' commands (as a schedule
    /// and `World::run_system` do, and Bevy: the second half does not see
    /// the first half's commands applied). A pipe with an exclusive half runs
    /// each half with its own `run` (an exclusive half applies its changes
    /// as it goes).
    ///
    /// # Panics
    /// If the first half's parameters cannot be built (as
    /// [`FunctionSystem::run`](super::FunctionSystem)), or a half panics.
    fn run(&mut self, input: A::In, world: &mut World) -> B::Out {
        if !self.is_initialized() {
            self.initialize(world);
        }
        if !self.is_exclusive() {
            world.check_change_ticks();
            // SAFETY: `&mut World` excludes every other borrow.
            if !unsafe { self.validate_param_unsafe(world) } {
                panic!(
                    "system `{}` cannot run: a parameter cannot be built (a Single that matches no entity or several)",
                    self.name
                );
            }
            // SAFETY: `&mut World` excludes every other borrow; the pipe's
            // access is the union of its halves'.
            let out = match catch_unwind(AssertUnwindSafe(|| unsafe { self.run_unsafe(input, world) })) {
                Ok(out) => out,
                Err(payload) => {
                    self.discard_deferred();
                    resume_unwind(payload);
                }
            };
            self.apply_deferred(world);
            return out;
        }
        self.invalid = false;
        let middle = self.run_half(|pipe| pipe.first.run(input, world), |pipe| &pipe.first);
        // SAFETY: `&mut World` excludes every other borrow.
        self.skipped = self.first.skipped_last_run() || !unsafe { self.validate_second(world) };
        if self.skipped {
            return skipped_output(&self.name);
        }
        self.run_half(|pipe| pipe.second.run(middle, world), |pipe| &pipe.second)
    }

    fn apply_deferred(&mut self, world: &mut World) {
        self.first.apply_deferred(world);
        self.second.apply_deferred(world);
    }

    fn discard_deferred(&mut self) {
        self.first.discard_deferred();
        self.second.discard_deferred();
    }

    fn queue_deferred(&mut self, world: &mut World) {
        self.first.queue_deferred(world);
        self.second.queue_deferred(world);
    }

    fn has_deferred(&self) -> bool {
        self.first.has_deferred() || self.second.has_deferred()
    }

    /// For a pipe without output, the first half's parameters only: the
    /// second half's are validated after the first ran, which may change
    /// what they see, and a second half that cannot run is skipped (as in
    /// Bevy). A pipe with an output validates both up front (a skipped
    /// second half would have none to give).
    unsafe fn validate_param_unsafe(&mut self, world: &World) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.first.validate_param_unsafe(world) && (is_unit::<B::Out>() || self.second.validate_param_unsafe(world))
        }
    }

    fn is_exclusive(&self) -> bool {
        self.first.is_exclusive() || self.second.is_exclusive()
    }

    fn skipped_last_run(&self) -> bool {
        self.skipped || self.first.skipped_last_run() || self.second.skipped_last_run()
    }

    fn invalid_param_last_run(&self) -> bool {
        self.invalid
    }
}

impl<A: System, B: System<In = A::Out>> PipeSystem<A, B> {
    /// Runs one half (`run`); if it panics because a parameter it validated
    /// late could not be built (`half` of the pipe says so, fresh from this
    /// run), the pipe remembers it ([`System::invalid_param_last_run`]) and
    /// the panic continues. A half that did not run this time is never asked.
    fn run_half<T, H: System>(&mut self, run: impl FnOnce(&mut Self) -> T, half: impl Fn(&Self) -> &H) -> T {
        match catch_unwind(AssertUnwindSafe(|| run(&mut *self))) {
            Ok(out) => out,
            Err(payload) => {
                self.invalid = half(self).invalid_param_last_run();
                resume_unwind(payload)
            }
        }
    }

    /// Validates the second half's parameters after the first half ran; a
    /// validation that panics (a missing resource) is remembered
    /// ([`System::invalid_param_last_run`]) and continues.
    ///
    /// # Safety
    /// As [`System::validate_param_unsafe`] of the second half.
    unsafe fn validate_second(&mut self, world: &World) -> bool {
        // SAFETY: forwarded to the caller.
        match catch_unwind(AssertUnwindSafe(|| unsafe { self.second.validate_param_unsafe(world) })) {
            Ok(valid) => valid,
            Err(payload) => {
                self.invalid = true;
                resume_unwind(payload)
            }
        }
    }
}

/// `a.map(f)`: runs `a` and returns `f` of its output.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Enemy;
/// let mut world = World::new();
/// world.spawn(Enemy);
/// let count = |q: Query<&Enemy>| q.iter().count();
/// assert_eq!(world.run_system_once(count.map(|n| n * 10)), 10);
/// ```
pub struct MapSystem<S, F> {
    system: S,
    function: F,
    name: Cow<'static, str>,
}

impl<S: System, F> MapSystem<S, F> {
    /// `system` with `function` applied to its output.
    pub fn new(system: S, function: F) -> Self {
        let name = Cow::Owned(format!("{}.map(..)", system.name()));
        MapSystem { system, function, name }
    }
}

impl<S, F, T> System for MapSystem<S, F>
where
    S: System,
    F: FnMut(S::Out) -> T + Send + Sync + 'static,
    T: 'static,
{
    type In = S::In;
    type Out = T;

    fn name(&self) -> &str {
        &self.name
    }

    fn initialize(&mut self, world: &mut World) {
        self.system.initialize(world);
    }

    fn is_initialized(&self) -> bool {
        self.system.is_initialized()
    }

    fn access(&self) -> &SystemAccess {
        self.system.access()
    }

    unsafe fn run_unsafe(&mut self, input: S::In, world: &World) -> T {
        // SAFETY: forwarded to the caller; the access is the inner system's.
        let output = unsafe { self.system.run_unsafe(input, world) };
        // A skipped inner pipe gave a made-up `()`: nothing to map when the
        // map gives `()` too (else the function makes the value to return,
        // and `World::run_system` reports the skip).
        if is_unit::<T>() && self.system.skipped_last_run() {
            return skipped_output(&self.name);
        }
        (self.function)(output)
    }

    fn run(&mut self, input: S::In, world: &mut World) -> T {
        let output = self.system.run(input, world);
        if is_unit::<T>() && self.system.skipped_last_run() {
            return skipped_output(&self.name);
        }
        (self.function)(output)
    }

    fn apply_deferred(&mut self, world: &mut World) {
        self.system.apply_deferred(world);
    }

    fn discard_deferred(&mut self) {
        self.system.discard_deferred();
    }

    fn queue_deferred(&mut self, world: &mut World) {
        self.system.queue_deferred(world);
    }

    fn has_deferred(&self) -> bool {
        self.system.has_deferred()
    }

    unsafe fn validate_param_unsafe(&mut self, world: &World) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe { self.system.validate_param_unsafe(world) }
    }

    fn is_exclusive(&self) -> bool {
        self.system.is_exclusive()
    }

    fn skipped_last_run(&self) -> bool {
        self.system.skipped_last_run()
    }

    fn invalid_param_last_run(&self) -> bool {
        self.system.invalid_param_last_run()
    }
}

/// Marks the [`IntoSystem`] impl of [`PipeSystem`] and [`MapSystem`] (they are
/// systems already).
pub struct IsCombinedSystem;

impl<A: SystemReadOnly, B: SystemReadOnly<In = A::Out>> SystemReadOnly for PipeSystem<A, B> {
    const READ_ONLY: bool = A::READ_ONLY && B::READ_ONLY;
}

impl<S, F, T> SystemReadOnly for MapSystem<S, F>
where
    S: SystemReadOnly,
    F: FnMut(S::Out) -> T + Send + Sync + 'static,
    T: 'static,
{
    const READ_ONLY: bool = S::READ_ONLY;
}

impl<A: SystemReadOnly, B: SystemReadOnly<In = A::Out>> IntoSystem<IsCombinedSystem> for PipeSystem<A, B> {
    type System = Self;
    const READ_ONLY: bool = <Self as SystemReadOnly>::READ_ONLY;
    fn into_system(self) -> Self {
        self
    }
}

impl<S, F, T> IntoSystem<IsCombinedSystem> for MapSystem<S, F>
where
    S: SystemReadOnly,
    F: FnMut(S::Out) -> T + Send + Sync + 'static,
    T: 'static,
{
    type System = Self;
    const READ_ONLY: bool = <Self as SystemReadOnly>::READ_ONLY;
    fn into_system(self) -> Self {
        self
    }
}
