//! [`Single`]: the one entity a query matches, as a system parameter.
//!
//! A system with a `Single<D, F>` runs only when exactly one entity matches
//! (otherwise the schedule skips it, as if a run condition failed, and
//! `World::run_system` returns `RunSystemError::Skipped`); `Option<Single<D, F>>`
//! always runs and is `None` unless exactly one entity matches. Its borrows are
//! those of `Query<D, F>`.

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::any::type_name;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use super::access::{ParamAccess, UnitAccess, short_type_name};
use super::param::{SystemMeta, SystemParam};
use crate::query::{AccessSet, Label, QueryAccess, QueryData, QueryFilter, QueryState};
use crate::storage::Tick;
use crate::world::World;

/// The item of the only entity matching `D` and `F`; the system is skipped
/// unless exactly one matches.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Player;
/// #[derive(Component)]
/// struct Position(f32);
/// fn walk(mut player: Single<&mut Position, With<Player>>) {
///     player.0 += 1.0;
/// }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(walk);
/// schedule.run(&mut world); // no player: skipped
/// let player = world.spawn((Player, Position(0.0))).id();
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Position>(player).unwrap().0, 1.0);
/// world.spawn((Player, Position(0.0)));
/// schedule.run(&mut world); // two players: skipped
/// assert_eq!(world.get::<Position>(player).unwrap().0, 1.0);
/// ```
pub struct Single<'w, D: QueryData, F: QueryFilter = ()> {
    item: D::Item<'w>,
    _filter: PhantomData<F>,
}

impl<'w, D: QueryData, F: QueryFilter> Single<'w, D, F> {
    /// The item.
    pub fn into_inner(self) -> D::Item<'w> {
        self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Single<'w, D, F> {
    type Target = D::Item<'w>;
    fn deref(&self) -> &D::Item<'w> {
        &self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> DerefMut for Single<'w, D, F> {
    fn deref_mut(&mut self) -> &mut D::Item<'w> {
        &mut self.item
    }
}

impl<D: QueryData, F: QueryFilter> core::fmt::Debug for Single<'_, D, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Single").field("query", &type_name::<(D, F)>()).finish()
    }
}

/// The const access of `Single<D, F>`: `Query<D, F>`'s, labelled `Single<D, F>`.
const fn single_access(data: &AccessSet, filter: &AccessSet) -> ParamAccess {
    let mut label = Label::new().with("Single<").with(data.label().as_str());
    if !filter.label().is_empty() && !matches!(filter.label().as_str().as_bytes(), b"()") {
        label.push(", ");
        label.push(filter.label().as_str());
    }
    label.push(">");
    let mut set = AccessSet::labelled(label.as_str());
    set.extend(data);
    set.extend(filter);
    ParamAccess::unit(set)
}

fn init_single<D: QueryData + 'static, F: QueryFilter + 'static>(
    world: &mut World,
    meta: &mut SystemMeta,
) -> QueryState<D, F> {
    let state = QueryState::new(world);
    let mut access = QueryAccess::default();
    state.update_access(&mut access);
    meta.access.add(short_type_name(type_name::<Single<'static, D, F>>()), UnitAccess::Query(access));
    state
}

/// The item of the only match, if there is exactly one.
///
/// # Safety
/// The declared access of `D` and `F` is the caller's for `'w`.
unsafe fn only_item<'w, D: QueryData, F: QueryFilter>(
    state: &mut QueryState<D, F>,
    meta: &SystemMeta,
    world: &'w World,
    this_run: Tick,
) -> Option<D::Item<'w>> {
    state.update_archetypes(world);
    // SAFETY: forwarded to the caller.
    let mut items = unsafe { state.iter_unchecked_manual::<D>(world, meta.last_run, this_run) };
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// `Some(Single)` if exactly one entity matches.
///
/// # Safety
/// As [`only_item`].
pub(super) unsafe fn only_single<'w, D: QueryData, F: QueryFilter>(
    state: &mut QueryState<D, F>,
    meta: &SystemMeta,
    world: &'w World,
    this_run: Tick,
) -> Option<Single<'w, D, F>> {
    // SAFETY: forwarded to the caller.
    let item = unsafe { only_item(state, meta, world, this_run) };
    item.map(|item| Single { item, _filter: PhantomData })
}

/// Whether exactly one entity matches.
///
/// # Safety
/// As [`only_item`].
unsafe fn exactly_one<D: QueryData, F: QueryFilter>(
    state: &mut QueryState<D, F>,
    meta: &SystemMeta,
    world: &World,
) -> bool {
    state.update_archetypes(world);
    // SAFETY: read-only items, within the caller's access.
    let items = unsafe { state.iter_unchecked_manual::<D::ReadOnly>(world, meta.last_run, world.change_tick()) };
    items.take(2).count() == 1
}

// SAFETY: declares `D`'s and `F`'s access (const and runtime) like `Query`; the
// item is one row's item.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Single<'_, D, F> {
    type State = QueryState<D, F>;
    type Item<'w, 's> = Single<'w, D, F>;
    const ACCESS: ParamAccess = single_access(&D::ACCESS, &F::ACCESS);

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        init_single(world, meta)
    }

    unsafe fn validate_param(state: &mut QueryState<D, F>, meta: &SystemMeta, world: &World) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe { exactly_one(state, meta, world) }
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Single<'w, D, F> {
        // SAFETY: forwarded to the caller.
        let item = unsafe { only_item(state, meta, world, this_run) };
        let item = item.unwrap_or_else(|| {
            panic!(
                "system `{}`: {} does not match exactly one entity; systems are skipped then (validate first)",
                meta.name,
                short_type_name(type_name::<Single<'static, D, F>>())
            )
        });
        Single { item, _filter: PhantomData }
    }
}

// SAFETY: as for `Single`.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Option<Single<'_, D, F>> {
    type State = QueryState<D, F>;
    type Item<'w, 's> = Option<Single<'w, D, F>>;
    const ACCESS: ParamAccess = single_access(&D::ACCESS, &F::ACCESS);

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        init_single(world, meta)
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Option<Single<'w, D, F>> {
        // SAFETY: forwarded to the caller.
        unsafe { only_single(state, meta, world, this_run) }
    }
}
