//! [`ParamSet`]: parameters that may alias each other, used one at a time.
//!
//! `ParamSet<(P0, P1, ..)>` (up to 8 members) gives `p0()`, `p1()`, ... Each
//! accessor borrows the set mutably, so two members' items never coexist; the
//! members are therefore not checked against each other, at compile time
//! (their units share a `param_set` mark in [`ParamAccess`]) or at run time
//! (`SystemAccess::begin_param_set`). Against the system's other parameters
//! every member is checked as usual.
//!
//! Lifetimes: a system's signature names its members with elided lifetimes
//! (`Query<&mut Position>`), which stand for lifetimes the function is generic
//! over. The accessors therefore only require [`ParamSetMember`], which is
//! implemented for every lifetime (unlike [`SystemParam`], whose state must be
//! `'static`): the member's state is the one the system built for the `'static`
//! instantiation of the same type, reached through a pointer that the
//! accessor reads as the member's state type (the two differ only in
//! lifetimes, which do not change layout).

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::marker::PhantomData;

use super::access::ParamAccess;
use super::commands::Commands;
use super::message::{MessageReader, MessageWriter};
use super::param::{Res, ResMut, SystemMeta, SystemParam};
use super::query::Query;
use super::single::Single;
use crate::query::{QueryData, QueryFilter, QueryState};
use crate::storage::Tick;
use crate::world::{CommandQueue, Message, MessageCursor, Resource, World};

/// A parameter type usable as a [`ParamSet`] member, for any lifetimes.
///
/// # Safety
/// `member_item` must build exactly the item `SystemParam::get_param` of the
/// `'static` instantiation of `Self` builds, from a state of that
/// instantiation's `SystemParam::State`, borrowing only what it declares.
pub unsafe trait ParamSetMember {
    /// The item, as `SystemParam::Item` of the `'static` instantiation.
    type MemberItem<'w, 's>
    where
        Self: 'w + 's;

    /// Builds the item.
    ///
    /// # Safety
    /// `state` points to the `SystemParam::State` of the `'static`
    /// instantiation of `Self`, valid and unaliased for `'s`; the declared
    /// access is the caller's for `'w` (as for `SystemParam::get_param`).
    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Self::MemberItem<'w, 's>;
}

// SAFETY: as `Query`'s `get_param`.
unsafe impl<D: QueryData, F: QueryFilter> ParamSetMember for Query<'_, '_, D, F> {
    type MemberItem<'w, 's>
        = Query<'w, 's, D, F>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Query<'w, 's, D, F> {
        // SAFETY: `state` is a `QueryState` of `D` and `F` up to lifetimes (the
        // caller), which a `QueryState` only mentions through `'static` types.
        let state = unsafe { &mut *state.cast::<QueryState<D, F>>() };
        state.update_archetypes(world);
        // SAFETY: the declared access is the caller's.
        unsafe { Query::new(world, state, meta.last_run, this_run) }
    }
}

// SAFETY: as `Res`'s `get_param` (no state).
unsafe impl<R: Resource> ParamSetMember for Res<'_, R> {
    type MemberItem<'w, 's>
        = Res<'w, R>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Res<'w, R> {
        // SAFETY: forwarded to the caller (the state is `()`).
        unsafe { <Res<'w, R> as SystemParam>::get_param(&mut *state.cast::<()>(), meta, world, this_run) }
    }
}

// SAFETY: as `ResMut`'s `get_param` (no state).
unsafe impl<R: Resource> ParamSetMember for ResMut<'_, R> {
    type MemberItem<'w, 's>
        = ResMut<'w, R>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> ResMut<'w, R> {
        // SAFETY: forwarded to the caller (the state is `()`).
        unsafe { <ResMut<'w, R> as SystemParam>::get_param(&mut *state.cast::<()>(), meta, world, this_run) }
    }
}

// SAFETY: as `MessageReader`'s `get_param`.
unsafe impl<M: Message> ParamSetMember for MessageReader<'_, '_, M> {
    type MemberItem<'w, 's>
        = MessageReader<'w, 's, M>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> MessageReader<'w, 's, M> {
        // SAFETY: forwarded to the caller (the state is the cursor).
        unsafe {
            <MessageReader<'w, 's, M> as SystemParam>::get_param(
                &mut *state.cast::<MessageCursor<M>>(),
                meta,
                world,
                this_run,
            )
        }
    }
}

// SAFETY: as `MessageWriter`'s `get_param` (no state).
unsafe impl<M: Message> ParamSetMember for MessageWriter<'_, M> {
    type MemberItem<'w, 's>
        = MessageWriter<'w, M>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> MessageWriter<'w, M> {
        // SAFETY: forwarded to the caller (the state is `()`).
        unsafe { <MessageWriter<'w, M> as SystemParam>::get_param(&mut *state.cast::<()>(), meta, world, this_run) }
    }
}

// SAFETY: as `Commands`' `get_param`: the state is the member's own command
// queue (applied, deferred or discarded through the set's `SystemParam` impl).
unsafe impl ParamSetMember for Commands<'_, '_> {
    type MemberItem<'w, 's>
        = Commands<'w, 's>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Commands<'w, 's> {
        // SAFETY: forwarded to the caller (the state is the queue).
        unsafe {
            <Commands<'w, 's> as SystemParam>::get_param(&mut *state.cast::<CommandQueue>(), meta, world, this_run)
        }
    }
}

// SAFETY: as `Option<Single>`'s `get_param`, with the state of a `QueryState`.
unsafe impl<D: QueryData, F: QueryFilter> ParamSetMember for Option<Single<'_, D, F>> {
    type MemberItem<'w, 's>
        = Option<Single<'w, D, F>>
    where
        Self: 'w + 's;

    unsafe fn member_item<'w, 's>(
        state: *mut (),
        meta: &'s SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Option<Single<'w, D, F>> {
        // SAFETY: as for `Query`.
        let state = unsafe { &mut *state.cast::<QueryState<D, F>>() };
        // SAFETY: forwarded to the caller.
        unsafe { super::single::only_single(state, meta, world, this_run) }
    }
}

/// Parameters that may alias each other, used one at a time (`p0()`,
/// `p1()`, ...): each accessor borrows the set, so no two members' items are
/// alive together. The members still conflict with the system's other
/// parameters. Members: `Query`, `Res`, `ResMut`, `MessageReader`,
/// `MessageWriter`, `Option<Single>`, `Commands` (applied with the system's
/// other commands).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Enemy;
/// fn both(mut set: ParamSet<(Query<&mut Position>, Query<&Position, With<Enemy>>)>) {
///     let enemy_x: f32 = set.p1().iter().map(|p| p.0).sum();
///     for mut position in set.p0().iter_mut() {
///         position.0 += enemy_x;
///     }
/// }
/// let mut world = World::new();
/// world.spawn((Position(1.0), Enemy));
/// let friend = world.spawn(Position(0.0)).id();
/// world.run_system_once(both);
/// assert_eq!(world.get::<Position>(friend).unwrap().0, 1.0);
/// ```
pub struct ParamSet<'w, 's, T> {
    world: &'w World,
    members: [*mut (); 8],
    meta: &'s SystemMeta,
    this_run: Tick,
    _members: PhantomData<fn() -> T>,
    _state: PhantomData<&'s mut ()>,
}

/// A derived parameter's field value on its way into the struct
/// (`#[derive(SystemParam)]`): `(&__FieldItem::new(value)).__relabel()` is the
/// value itself, except for a [`ParamSet`], whose members are relabelled to
/// the field's lifetimes (the `ParamSet` impl is found first, by method
/// resolution on the concrete type; every other type falls back to the
/// identity on `&__FieldItem<T>`).
#[doc(hidden)]
pub struct __FieldItem<T>(core::cell::Cell<Option<T>>);

impl<T> __FieldItem<T> {
    /// Wraps a field's value.
    pub fn new(value: T) -> Self {
        __FieldItem(core::cell::Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        self.0.take().expect("a derived parameter's field is taken once")
    }
}

/// `(&__FieldItem::new(value)).__relabel()` with both cases in scope: what
/// `#[derive(SystemParam)]` writes for each field's value.
#[doc(hidden)]
#[macro_export]
macro_rules! __relabel_field {
    ($value:expr) => {{
        #[allow(unused_imports)]
        use $crate::system::{__RelabelOther as _, __RelabelParamSet as _};
        let item = $crate::system::__FieldItem::new($value);
        // SAFETY: the derive passes a field's value and takes the result as
        // the same field: a set's members differ only in their lifetimes.
        unsafe { (&item).__relabel() }
    }};
}

/// The `ParamSet` case of [`__FieldItem`].
#[doc(hidden)]
pub trait __RelabelParamSet<'w, 's> {
    /// The set with its members named as the field names them: what
    /// `#[derive(SystemParam)]` uses for a field such as
    /// `ParamSet<'w, 's, (Query<'w, 's, &'static mut A>,)>`, whose members
    /// carry the struct's lifetimes while the set's item carries the run's.
    ///
    /// # Safety
    /// Each member of `U` is the set's member at its position with only its
    /// lifetimes changed (the same parameter, so the same state type, which
    /// the accessors cast the member pointers to).
    unsafe fn __relabel<U>(&self) -> ParamSet<'w, 's, U>;
}

impl<'w, 's, T> __RelabelParamSet<'w, 's> for __FieldItem<ParamSet<'w, 's, T>> {
    unsafe fn __relabel<U>(&self) -> ParamSet<'w, 's, U> {
        let set = self.take();
        ParamSet {
            world: set.world,
            members: set.members,
            meta: set.meta,
            this_run: set.this_run,
            _members: PhantomData,
            _state: PhantomData,
        }
    }
}

/// The fallback case of [`__FieldItem`]: the value itself.
#[doc(hidden)]
pub trait __RelabelOther<T> {
    /// The value, unchanged.
    ///
    /// # Safety
    /// None needed (it is `unsafe` to match [`__RelabelParamSet::__relabel`],
    /// which the same call may resolve to).
    unsafe fn __relabel(&self) -> T;
}

impl<T> __RelabelOther<T> for &__FieldItem<T> {
    unsafe fn __relabel(&self) -> T {
        self.take()
    }
}

impl<T> core::fmt::Debug for ParamSet<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParamSet").field("members", &core::any::type_name::<T>()).finish()
    }
}

macro_rules! impl_param_set {
    ($(($param:ident, $state:ident, $index:tt, $accessor:ident)),*) => {
        impl<'w, 's, $($param: ParamSetMember),*> ParamSet<'w, 's, ($($param,)*)> {
            $(
                /// This member's item; it borrows the set, so no other member's
                /// item is alive meanwhile.
                pub fn $accessor(&mut self) -> $param::MemberItem<'_, '_> {
                    // SAFETY: the pointer is this member's state, built by the
                    // `SystemParam` impl below for the `'static` instantiation;
                    // `&mut self` makes this the only live member item, and the
                    // system declared this member's access.
                    unsafe { $param::member_item(self.members[$index], self.meta, self.world, self.this_run) }
                }
            )*
        }

        #[allow(non_snake_case)]
        // SAFETY: declares every member's access (not checked member against
        // member: their items never coexist); the accessors build one member's
        // item at a time.
        unsafe impl<$($param: SystemParam + ParamSetMember),*> SystemParam for ParamSet<'_, '_, ($($param,)*)> {
            type State = (($($param::State,)*), SystemMeta);
            type Item<'w, 's> = ParamSet<'w, 's, ($($param,)*)>;
            const ACCESS: ParamAccess = ParamAccess::param_set(&[$($param::ACCESS),*]);
            const HAS_DEFERRED: bool = false $(|| $param::HAS_DEFERRED)*;

            fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                let outer = meta.access.begin_param_set();
                let states = ($($param::init_state(world, meta),)*);
                meta.access.end_param_set(outer);
                (states, SystemMeta::new(meta.name.clone()))
            }

            fn apply(state: &mut Self::State, world: &mut World) {
                let ($($state,)*) = &mut state.0;
                $($param::apply($state, world);)*
            }

            fn defer(state: &mut Self::State, world: &mut World) {
                let ($($state,)*) = &mut state.0;
                $($param::defer($state, world);)*
            }

            fn discard(state: &mut Self::State) {
                let ($($state,)*) = &mut state.0;
                $($param::discard($state);)*
            }

            unsafe fn validate_param(state: &mut Self::State, meta: &SystemMeta, world: &World) -> bool {
                let ($($state,)*) = &mut state.0;
                // SAFETY: forwarded to the caller; one member at a time.
                true $(&& unsafe { $param::validate_param($state, meta, world) })*
            }

            unsafe fn get_param<'w, 's>(
                state: &'s mut Self::State,
                meta: &SystemMeta,
                world: &'w World,
                this_run: Tick,
            ) -> Self::Item<'w, 's> {
                let (states, own_meta) = state;
                own_meta.last_run = meta.last_run;
                let ($($state,)*) = states;
                let mut members = [core::ptr::null_mut(); 8];
                $(members[$index] = ($state as *mut $param::State).cast::<()>();)*
                ParamSet { world, members, meta: own_meta, this_run, _members: PhantomData, _state: PhantomData }
            }
        }
    };
}

impl_param_set!((P0, s0, 0, p0));
impl_param_set!((P0, s0, 0, p0), (P1, s1, 1, p1));
impl_param_set!((P0, s0, 0, p0), (P1, s1, 1, p1), (P2, s2, 2, p2));
impl_param_set!((P0, s0, 0, p0), (P1, s1, 1, p1), (P2, s2, 2, p2), (P3, s3, 3, p3));
impl_param_set!((P0, s0, 0, p0), (P1, s1, 1, p1), (P2, s2, 2, p2), (P3, s3, 3, p3), (P4, s4, 4, p4));
impl_param_set!((P0, s0, 0, p0), (P1, s1, 1, p1), (P2, s2, 2, p2), (P3, s3, 3, p3), (P4, s4, 4, p4), (P5, s5, 5, p5));
impl_param_set!(
    (P0, s0, 0, p0),
    (P1, s1, 1, p1),
    (P2, s2, 2, p2),
    (P3, s3, 3, p3),
    (P4, s4, 4, p4),
    (P5, s5, 5, p5),
    (P6, s6, 6, p6)
);
impl_param_set!(
    (P0, s0, 0, p0),
    (P1, s1, 1, p1),
    (P2, s2, 2, p2),
    (P3, s3, 3, p3),
    (P4, s4, 4, p4),
    (P5, s5, 5, p5),
    (P6, s6, 6, p6),
    (P7, s7, 7, p7)
);
