//! [`SystemParam`]: what a system function can take, and how each parameter is
//! built from the world on every run.
//!
//! A parameter has a *state*, created once when the system is initialized
//! (resolved ids, a `QueryState`, a command queue, a `Local` value), and an
//! *item*, built from the state and a shared `&World` on every run. Writes through
//! a shared world are sound because every parameter declares its borrows
//! ([`SystemParam::ACCESS`] at compile time, [`SystemAccess`] at run time) and the
//! schedule never runs two systems whose borrows alias.

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::any::{TypeId, type_name};
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use super::access::{ParamAccess, SystemAccess, UnitAccess, short_type_name};
use super::commands::{CommandQueue, Commands};
use super::query::Query;
use crate::query::{AccessSet, Label, QueryAccess, QueryData, QueryFilter, QueryState};
use crate::storage::{LastRun, Tick, WideTick};
use crate::world::{Mut, Resource, World};

/// Per-system bookkeeping shared by its parameters.
#[derive(Debug)]
pub struct SystemMeta {
    /// The system's name (its function's path).
    pub name: String,
    /// The runtime access, filled in by the parameters' `init_state`.
    pub access: SystemAccess,
    /// The `Added`/`Changed` baseline of the parameters: during a run, the
    /// previous run's tick clamped to the age window (before the first run, a
    /// tick every stored tick is newer than); between runs, the previous run's
    /// tick (0 before the first). Set by [`SystemMeta::begin_run`].
    pub last_run: Tick,
    /// The previous completed run on the world's 64-bit clock.
    previous_run: LastRun,
}

impl SystemMeta {
    /// Meta for a system called `name`.
    pub fn new(name: impl Into<String>) -> SystemMeta {
        SystemMeta {
            name: name.into(),
            access: SystemAccess::default(),
            last_run: Tick::new(0),
            previous_run: LastRun::NEVER,
        }
    }

    /// Starts a run at `now` (a reading of the world's clock, taken by the
    /// caller as it advances it): sets [`SystemMeta::last_run`] to the baseline
    /// ([`LastRun::baseline`]) and returns this run's tick.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{MAX_CHANGE_AGE, Tick, WideTick};
    /// use ecs::system::SystemMeta;
    /// let mut meta = SystemMeta::new("idle");
    /// meta.end_run(WideTick::new(5));
    /// assert_eq!(meta.last_run, Tick::new(5));
    /// let later = WideTick::new(5 + (1 << 33)); // the 32-bit clock wrapped twice
    /// assert_eq!(meta.begin_run(later), later.tick());
    /// assert_eq!(later.tick().get().wrapping_sub(meta.last_run.get()), MAX_CHANGE_AGE);
    /// ```
    pub fn begin_run(&mut self, now: WideTick) -> Tick {
        self.last_run = self.previous_run.baseline(now);
        now.tick()
    }

    /// Records a completed run that started at `now`: the next run's baseline.
    /// A run that panicked is not recorded, so the next one sees its changes again.
    pub fn end_run(&mut self, now: WideTick) {
        self.previous_run = LastRun::at(now);
        self.last_run = now.tick();
    }
}

/// A system parameter.
///
/// # Safety
/// * `ACCESS` and the units `init_state` adds to `meta.access` must cover every
///   component and resource `get_param`'s item reads or writes;
/// * `get_param` may only borrow what was declared.
pub unsafe trait SystemParam: Sized {
    /// Created once per system.
    type State: Send + Sync + 'static;
    /// The parameter as the function receives it, for a given world and state borrow.
    type Item<'world, 'state>: SystemParam<State = Self::State>;
    /// What the parameter borrows, known at compile time.
    const ACCESS: ParamAccess;
    /// Whether the parameter queues deferred work ([`SystemParam::apply`] does
    /// something): a schedule puts a sync point between such a system and the
    /// systems ordered after it (`Commands` and parameters built on it).
    const HAS_DEFERRED: bool = false;

    /// Creates the state and declares the runtime access.
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State;

    /// Applies deferred work (commands) at a sync point.
    fn apply(_state: &mut Self::State, _world: &mut World) {}

    /// Hands deferred work to the world's own queue instead of applying it:
    /// what observers do, since they run in the middle of a structural change
    /// (the world applies the queue before the change returns). The default
    /// applies at once, which is right for parameters with no deferred work.
    fn defer(state: &mut Self::State, world: &mut World) {
        Self::apply(state, world);
    }

    /// Drops deferred work unapplied: what a schedule does with the commands of
    /// a system that panicked. The default has nothing to drop.
    fn discard(_state: &mut Self::State) {}

    /// Whether the item can be built now; a system with a parameter that
    /// cannot is skipped (`Single` without exactly one match). The default
    /// is always valid.
    ///
    /// # Safety
    /// As [`SystemParam::get_param`]: the declared access is the caller's for
    /// the call.
    unsafe fn validate_param(_state: &mut Self::State, _meta: &SystemMeta, _world: &World) -> bool {
        true
    }

    /// Builds the item.
    ///
    /// # Safety
    /// `state` was created by `init_state` on this `world`, and no other live
    /// borrow conflicts with the declared access for `'w`.
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Self::Item<'w, 's>;
}

/// The item type of parameter `P` for given lifetimes.
pub type SystemParamItem<'w, 's, P> = <P as SystemParam>::Item<'w, 's>;

// ----- Query ---------------------------------------------------------------------------

/// The label of `Query<D>` / `Query<D, F>`.
const fn query_label(data: &AccessSet, filter: &AccessSet) -> Label {
    let mut label = Label::new();
    crate::query::push_query_label(&mut label, data, filter);
    label
}

/// The const access of `Query<D, F>`: one unit with `D`'s and `F`'s terms.
const fn query_access(data: &AccessSet, filter: &AccessSet) -> AccessSet {
    let mut set = AccessSet::labelled(query_label(data, filter).as_str());
    set.extend(data);
    set.extend(filter);
    set
}

// SAFETY: declares `D`'s and `F`'s access (const and runtime); the item only
// iterates with that access.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Query<'_, '_, D, F> {
    type State = QueryState<D, F>;
    type Item<'w, 's> = Query<'w, 's, D, F>;
    const ACCESS: ParamAccess = ParamAccess::unit(query_access(&D::ACCESS, &F::ACCESS));

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let state = QueryState::new(world);
        let mut access = QueryAccess::default();
        state.update_access(&mut access);
        meta.access.add(short_type_name(type_name::<Query<'static, 'static, D, F>>()), UnitAccess::Query(access));
        state
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Query<'w, 's, D, F> {
        state.update_archetypes(world);
        // SAFETY: forwarded to the caller: the declared access is ours for `'w`.
        unsafe { Query::new(world, state, meta.last_run, this_run) }
    }
}

// ----- resources -----------------------------------------------------------------------

/// Shared access to resource `R` in a system; the system panics if `R` is missing
/// (take `Option<Res<R>>` to allow that).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Score(u32);
/// fn read(score: Res<Score>) -> u32 { score.0 }
/// let mut world = World::new();
/// world.insert_resource(Score(3));
/// assert_eq!(world.run_system_once(read), 3);
/// ```
pub struct Res<'w, R: Resource> {
    value: &'w R,
    added: Tick,
    changed: Tick,
    last_run: Tick,
    this_run: Tick,
}

impl<R: Resource> Res<'_, R> {
    /// Whether the resource was inserted since the system last ran.
    pub fn is_added(&self) -> bool {
        self.added.is_newer_than(self.last_run, self.this_run)
    }

    /// Whether the resource was written since the system last ran.
    pub fn is_changed(&self) -> bool {
        self.changed.is_newer_than(self.last_run, self.this_run)
    }
}

impl<R: Resource> Deref for Res<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

/// Mutable access to resource `R` in a system; writing marks it changed. The
/// system panics if `R` is missing (take `Option<ResMut<R>>` to allow that).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource)]
/// struct Score(u32);
/// fn bump(mut score: ResMut<Score>) { score.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Score(3));
/// world.run_system_once(bump);
/// assert_eq!(world.resource::<Score>().0, 4);
/// ```
pub struct ResMut<'w, R: Resource> {
    value: Mut<'w, R>,
}

impl<R: Resource> ResMut<'_, R> {
    /// Whether the resource was inserted since the system last ran.
    pub fn is_added(&self) -> bool {
        self.value.is_added()
    }

    /// Whether the resource was written since the system last ran.
    pub fn is_changed(&self) -> bool {
        self.value.is_changed()
    }
}

impl<R: Resource> Deref for ResMut<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.value
    }
}

impl<R: Resource> DerefMut for ResMut<'_, R> {
    fn deref_mut(&mut self) -> &mut R {
        &mut self.value
    }
}

const fn resource_label<R: Resource>(write: bool) -> Label {
    Label::new().with(if write { "ResMut<" } else { "Res<" }).with(R::NAME).with(">")
}

const fn resource_access<R: Resource>(write: bool) -> ParamAccess {
    ParamAccess::unit(AccessSet::resource(R::ID, R::NAME, write, resource_label::<R>(write).as_str()))
}

fn declare_resource<R: Resource>(meta: &mut SystemMeta, write: bool, label: &str) {
    meta.access.add(
        format!("{label}<{}>", short_type_name(type_name::<R>())),
        UnitAccess::Resource { type_id: TypeId::of::<R>(), write },
    );
}

#[track_caller]
fn missing_resource<R: Resource>(meta: &SystemMeta) -> ! {
    panic!(
        "system `{}` needs resource {}, which does not exist; insert it with World::insert_resource \
         (or take Option<Res<_>>)",
        meta.name,
        type_name::<R>()
    )
}

/// `Res<R>` as an optional parameter.
fn get_res<'w, R: Resource>(meta: &SystemMeta, world: &'w World, this_run: Tick) -> Option<Res<'w, R>> {
    let value = world.get_resource::<R>()?;
    let (added, changed) = world.resources().ticks::<R>()?;
    Some(Res { value, added, changed, last_run: meta.last_run, this_run })
}

/// `ResMut<R>` as an optional parameter.
///
/// # Safety
/// No other borrow of `R` lives during `'w`.
unsafe fn get_res_mut<'w, R: Resource>(meta: &SystemMeta, world: &'w World, this_run: Tick) -> Option<ResMut<'w, R>> {
    // SAFETY: forwarded to the caller.
    let value = unsafe { world.resources().get_mut_unchecked::<R>(meta.last_run, this_run)? };
    Some(ResMut { value })
}

// SAFETY: declares a read of `R`; the item only reads it.
unsafe impl<R: Resource> SystemParam for Res<'_, R> {
    type State = ();
    type Item<'w, 's> = Res<'w, R>;
    const ACCESS: ParamAccess = resource_access::<R>(false);

    fn init_state(_world: &mut World, meta: &mut SystemMeta) {
        declare_resource::<R>(meta, false, "Res");
    }

    /// A missing resource fails validation with the panic `get_param` would
    /// give (a schedule panics as before; `World::run_system` returns
    /// `RunSystemError::InvalidParam`).
    unsafe fn validate_param(_state: &mut (), meta: &SystemMeta, world: &World) -> bool {
        if !world.contains_resource::<R>() {
            missing_resource::<R>(meta);
        }
        true
    }

    unsafe fn get_param<'w, 's>(_state: &'s mut (), meta: &SystemMeta, world: &'w World, this_run: Tick) -> Res<'w, R> {
        get_res(meta, world, this_run).unwrap_or_else(|| missing_resource::<R>(meta))
    }
}

// SAFETY: declares a read of `R`; the item only reads it.
unsafe impl<R: Resource> SystemParam for Option<Res<'_, R>> {
    type State = ();
    type Item<'w, 's> = Option<Res<'w, R>>;
    const ACCESS: ParamAccess = resource_access::<R>(false);

    fn init_state(_world: &mut World, meta: &mut SystemMeta) {
        declare_resource::<R>(meta, false, "Res");
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Option<Res<'w, R>> {
        get_res(meta, world, this_run)
    }
}

// SAFETY: declares a write of `R`; the item is the only borrow of it.
unsafe impl<R: Resource> SystemParam for ResMut<'_, R> {
    type State = ();
    type Item<'w, 's> = ResMut<'w, R>;
    const ACCESS: ParamAccess = resource_access::<R>(true);

    fn init_state(_world: &mut World, meta: &mut SystemMeta) {
        declare_resource::<R>(meta, true, "ResMut");
    }

    /// As for `Res`: a missing resource fails validation with a panic.
    unsafe fn validate_param(_state: &mut (), meta: &SystemMeta, world: &World) -> bool {
        if !world.contains_resource::<R>() {
            missing_resource::<R>(meta);
        }
        true
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> ResMut<'w, R> {
        // SAFETY: the declared write excludes every other borrow of `R` (caller).
        unsafe { get_res_mut(meta, world, this_run) }.unwrap_or_else(|| missing_resource::<R>(meta))
    }
}

// SAFETY: declares a write of `R`; the item is the only borrow of it.
unsafe impl<R: Resource> SystemParam for Option<ResMut<'_, R>> {
    type State = ();
    type Item<'w, 's> = Option<ResMut<'w, R>>;
    const ACCESS: ParamAccess = resource_access::<R>(true);

    fn init_state(_world: &mut World, meta: &mut SystemMeta) {
        declare_resource::<R>(meta, true, "ResMut");
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Option<ResMut<'w, R>> {
        // SAFETY: as for `ResMut`.
        unsafe { get_res_mut(meta, world, this_run) }
    }
}

// ----- &World, Local, Commands ---------------------------------------------------------

// SAFETY: declares a read of everything; the item is a shared borrow.
unsafe impl SystemParam for &World {
    type State = ();
    type Item<'w, 's> = &'w World;
    const ACCESS: ParamAccess = ParamAccess::unit(AccessSet::whole_world("&World"));

    fn init_state(_world: &mut World, meta: &mut SystemMeta) {
        meta.access.add("&World".to_owned(), UnitAccess::World);
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        _meta: &SystemMeta,
        world: &'w World,
        _this_run: Tick,
    ) -> &'w World {
        world
    }
}

/// A value owned by one system, kept between its runs (starts as `T::default()`).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// fn count(mut runs: Local<u32>) -> u32 { *runs += 1; *runs }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// let mut system = ecs::system::IntoSystem::into_system(count);
/// use ecs::system::System;
/// system.initialize(&mut world);
/// assert_eq!(system.run((), &mut world), 1);
/// assert_eq!(system.run((), &mut world), 2);
/// # let _ = &mut schedule;
/// ```
///
/// `T` needs `Send` only (as in Bevy): the system reaches its local through
/// `&mut` alone, so a `Local<RefCell<u8>>` is fine.
pub struct Local<'s, T: Send + 'static>(&'s mut T);

/// The state of a [`Local`]: its value, only ever reached through `&mut`
/// (`get_param` takes the state mutably), so sharing a `&LocalState<T>`
/// between threads reaches nothing and it is `Sync` for any `Send` value.
#[doc(hidden)]
pub struct LocalState<T>(T);

// SAFETY: no method gives `&T` out of a `&LocalState<T>` (the field is
// private and read only through `&mut`): a shared reference is useless, as
// for `std::sync::Exclusive`.
unsafe impl<T: Send> Sync for LocalState<T> {}

impl<T: Send + 'static> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: Send + 'static> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

// SAFETY: borrows only the system's own state.
unsafe impl<T: Default + Send + 'static> SystemParam for Local<'_, T> {
    type State = LocalState<T>;
    type Item<'w, 's> = Local<'s, T>;
    const ACCESS: ParamAccess = ParamAccess::NONE;

    fn init_state(_world: &mut World, _meta: &mut SystemMeta) -> LocalState<T> {
        LocalState(T::default())
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut LocalState<T>,
        _meta: &SystemMeta,
        _world: &'w World,
        _this_run: Tick,
    ) -> Local<'s, T> {
        Local(&mut state.0)
    }
}

// SAFETY: reserves entity ids through the world's atomic counter (no borrow of
// storage) and writes only the system's own queue. It declares the
// reservation, so a schedule orders two systems that reserve ids and the ids
// come out in system order, whatever the threads do.
unsafe impl SystemParam for Commands<'_, '_> {
    type State = CommandQueue;
    type Item<'w, 's> = Commands<'w, 's>;
    const ACCESS: ParamAccess = ParamAccess::NONE;
    const HAS_DEFERRED: bool = true;

    fn init_state(_world: &mut World, meta: &mut SystemMeta) -> CommandQueue {
        meta.access.add("Commands".to_owned(), UnitAccess::EntityReservation);
        CommandQueue::default()
    }

    fn apply(state: &mut CommandQueue, world: &mut World) {
        state.apply(world);
    }

    fn defer(state: &mut CommandQueue, world: &mut World) {
        world.defer_commands(state);
    }

    fn discard(state: &mut CommandQueue) {
        state.clear();
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut CommandQueue,
        _meta: &SystemMeta,
        world: &'w World,
        _this_run: Tick,
    ) -> Commands<'w, 's> {
        Commands::new(state, world)
    }
}

/// A marker parameter that borrows nothing (`PhantomData<T>`), handy in derived params.
// SAFETY: borrows nothing.
unsafe impl<T: ?Sized> SystemParam for PhantomData<T> {
    type State = ();
    type Item<'w, 's> = PhantomData<T>;
    const ACCESS: ParamAccess = ParamAccess::NONE;

    fn init_state(_world: &mut World, _meta: &mut SystemMeta) {}

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        _meta: &SystemMeta,
        _world: &'w World,
        _this_run: Tick,
    ) -> PhantomData<T> {
        PhantomData
    }
}

// ----- tuples --------------------------------------------------------------------------

macro_rules! impl_system_param_tuple {
    ($(($param:ident, $state:ident)),*) => {
        #[allow(non_snake_case, unused_variables, unused_mut, unused_unsafe, unused_assignments, clippy::unused_unit)]
        // SAFETY: each element declares its own access; the tuple only combines them,
        // numbering the elements as parameters.
        unsafe impl<$($param: SystemParam),*> SystemParam for ($($param,)*) {
            type State = ($($param::State,)*);
            type Item<'w, 's> = ($($param::Item<'w, 's>,)*);
            const ACCESS: ParamAccess = ParamAccess::system(&[$($param::ACCESS),*]);
            const HAS_DEFERRED: bool = false $(|| $param::HAS_DEFERRED)*;

            fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                // Only the outermost tuple (a system's parameter list) numbers its elements.
                let outermost = meta.access.enter();
                let mut index = 0;
                let state = ($({
                    if outermost {
                        meta.access.begin_param(index);
                    }
                    index += 1;
                    $param::init_state(world, meta)
                },)*);
                meta.access.exit();
                state
            }

            fn apply(state: &mut Self::State, world: &mut World) {
                let ($($state,)*) = state;
                $($param::apply($state, world);)*
            }

            fn defer(state: &mut Self::State, world: &mut World) {
                let ($($state,)*) = state;
                $($param::defer($state, world);)*
            }

            fn discard(state: &mut Self::State) {
                let ($($state,)*) = state;
                $($param::discard($state);)*
            }

            unsafe fn validate_param(state: &mut Self::State, meta: &SystemMeta, world: &World) -> bool {
                let ($($state,)*) = state;
                // SAFETY: forwarded to the caller.
                true $(&& unsafe { $param::validate_param($state, meta, world) })*
            }

            unsafe fn get_param<'w, 's>(
                state: &'s mut Self::State,
                meta: &SystemMeta,
                world: &'w World,
                this_run: Tick,
            ) -> Self::Item<'w, 's> {
                let ($($state,)*) = state;
                // SAFETY: forwarded to the caller; the elements' accesses were checked
                // against each other when the system was initialized.
                unsafe { ($($param::get_param($state, meta, world, this_run),)*) }
            }
        }
    };
}

ecs_macros::all_tuples!(impl_system_param_tuple, 0, 16, P, s);
