//! Query filters: [`With`], [`Without`], [`Or`], [`Added`], [`Changed`] and tuples.
//!
//! A filter is a [`WorldQuery`] whose item is ignored: it decides by archetype
//! (`match_archetype`) and, when not dense, per row (`matches_row`). `With` and
//! `Without` on table components are archetypal (no per-row cost); on sparse
//! components, and for `Added`/`Changed`, they are checked per row.
//!
//! A toggleable component (`#[component(toggle)]`) that is disabled counts as
//! absent: `With<T>`, `Added<T>` and `Changed<T>` skip the row, `Without<T>`
//! matches it. So `Without<T>` of a toggleable `T` also matches archetypes that
//! hold `T` and decides their rows by the enabled bits; archetypes without a
//! toggleable column keep the archetypal, check-free path.

use core::marker::PhantomData;
use core::ptr::NonNull;

use super::access::QueryAccess;
use super::access_set::{AccessKind, AccessSet};
use super::fetch::{
    ColumnCache, WorldQuery, all_enabled, inherited_cells, inherited_disabled, is_toggle, match_read, row_enabled,
    toggled_in,
};
use crate::archetype::Archetype;
use crate::component::{Component, StorageKind};
use crate::entity::{Entity, Id};
use crate::storage::{DisabledBits, SparseSet, Tick, TickCell};
use crate::world::World;

/// A query term that only selects entities.
///
/// # Safety
/// Filters must not write anything.
pub unsafe trait QueryFilter: WorldQuery {}

#[inline]
fn is_table<T: Component>() -> bool {
    matches!(T::STORAGE, StorageKind::Table)
}

/// Selects entities that have `T` (without reading it).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Enemy;
/// let mut world = World::new();
/// world.spawn((Position(1.0), Enemy));
/// world.spawn(Position(2.0));
/// let mut q = world.query_filtered::<&Position, With<Enemy>>();
/// assert_eq!(q.iter(&world).map(|p| p.0).collect::<Vec<_>>(), vec![1.0]);
/// ```
pub struct With<T>(PhantomData<T>);

/// Selects entities that lack `T`, or whose toggleable `T` is disabled.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// #[component(storage = "sparse")]
/// struct Stunned;
/// let mut world = World::new();
/// world.spawn((Position(1.0), Stunned));
/// world.spawn(Position(2.0));
/// let mut q = world.query_filtered::<&Position, Without<Stunned>>();
/// assert_eq!(q.iter(&world).map(|p| p.0).collect::<Vec<_>>(), vec![2.0]);
/// ```
pub struct Without<T>(PhantomData<T>);

macro_rules! impl_presence_filter {
    ($name:ident, $wanted:literal, $kind:ident) => {
        // SAFETY: reads only archetype membership or sparse-set presence.
        unsafe impl<T: Component> WorldQuery for $name<T> {
            type Item<'w> = ();
            /// The sparse set, the column's enabled bits, whether an inherited
            /// toggleable value is disabled on its base (`None`: not
            /// inherited; for a sparse `T`, whether the table inherits a
            /// value), the world and the component.
            type Fetch<'w> = (Option<&'w SparseSet>, Option<DisabledBits>, Option<bool>, &'w World, Entity);
            type State = Entity;
            type Cache = ColumnCache;
            const IS_DENSE: bool = matches!(T::STORAGE, StorageKind::Table);
            const ACCESS: AccessSet =
                AccessSet::component::<T>(AccessKind::$kind, concat!(stringify!($name), "<"), ">");
            const MAY_TOGGLE: bool = is_toggle::<T>();

            fn init_state(world: &mut World) -> Entity {
                world.register_component::<T>()
            }
            fn update_access(state: &Entity, access: &mut QueryAccess) {
                if $wanted { access.add_with(*state) } else { access.add_without(*state) }
            }
            fn required_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
                if $wanted && is_table::<T>() {
                    ids(state.id());
                }
            }
            #[inline]
            fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<ColumnCache> {
                if !is_table::<T>() {
                    return Some(ColumnCache::NONE);
                }
                // A toggleable `T` present in the archetype is decided per row
                // (by its column's enabled bits) for both filters, and one
                // inherited from a base by the base's bit, per iteration.
                if is_toggle::<T>() && toggled_in::<T>(*state, archetype) {
                    return match_read::<T>(*state, archetype);
                }
                let has = archetype.contains(state.id())
                    || (crate::component::is_inherited::<T>() && archetype.inherited_from(state.id()).is_some());
                (has == $wanted).then_some(ColumnCache::NONE)
            }
            #[inline]
            fn checks_toggles(state: &Entity, archetype: &Archetype) -> bool {
                toggled_in::<T>(*state, archetype)
            }
            #[inline]
            fn init_fetch<'w>(world: &'w World, state: &Entity, _last_run: Tick, _this_run: Tick) -> Self::Fetch<'w> {
                (if is_table::<T>() { None } else { world.sparse_sets().of(*state) }, None, None, world, *state)
            }
            #[inline]
            unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &ColumnCache, archetype: &'w Archetype) {
                if crate::component::is_inherited_sparse::<T>() {
                    // For a sparse `T` (never toggleable): whether the table
                    // inherits a value from a base.
                    fetch.2 = Some(fetch.3.sparse_base_of(archetype, fetch.4).is_some());
                }
                if is_toggle::<T>() {
                    // SAFETY: `match_archetype` made `cache` for this archetype,
                    // which the iteration's borrow of the world keeps alive.
                    fetch.1 = unsafe { cache.column::<'w>() }.and_then(|column| column.disabled_bits());
                    fetch.2 = cache.inherited_from().map(|base| inherited_disabled::<T>(fetch.3, fetch.4, Some(base)));
                }
            }
            #[inline]
            unsafe fn matches_every_row(fetch: &Self::Fetch<'_>, len: usize) -> bool {
                if is_toggle::<T>()
                    && let Some(disabled) = fetch.2
                {
                    return disabled != $wanted;
                }
                // `With`: every row enabled; `Without`: no bits (no `T` here).
                // SAFETY: forwarded to the caller.
                if $wanted { unsafe { all_enabled(fetch.1, len) } } else { fetch.1.is_none() }
            }
            #[inline]
            unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
                if is_toggle::<T>() {
                    if let Some(disabled) = fetch.2 {
                        return disabled != $wanted;
                    }
                    // Bits only where the archetype holds `T`: present, and
                    // enabled unless its bit says otherwise.
                    return match fetch.1 {
                        // SAFETY: `row` is a row of the current table.
                        Some(bits) => unsafe { row_enabled(Some(bits), row) == $wanted },
                        None => true,
                    };
                }
                is_table::<T>() || (fetch.0.is_some_and(|set| set.contains(entity)) || fetch.2 == Some(true)) == $wanted
            }
            #[inline]
            unsafe fn fetch<'w>(_fetch: &mut Self::Fetch<'w>, _entity: Entity, _row: usize) -> Self::Item<'w> {}
        }

        // SAFETY: never writes.
        unsafe impl<T: Component> QueryFilter for $name<T> {}
    };
}

impl_presence_filter!(With, true, With);
impl_presence_filter!(Without, false, Without);

/// Selects entities whose `T` was added since the query last ran (the first run
/// sees every `T` as added). Only components with data carry ticks: using it with
/// a zero-sized table component is a compile error.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn(Health(1)).id();
/// let mut added = world.query_filtered::<Entity, Added<Health>>();
/// assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
/// assert_eq!(added.iter(&world).count(), 0);
/// world.insert(e, Health(2)); // an overwrite is a change, not an add
/// assert_eq!(added.iter(&world).count(), 0);
/// ```
pub struct Added<T>(PhantomData<T>);

/// Selects entities whose `T` was written since the query last ran (the first run
/// sees every `T` as changed). Only components with data carry ticks: using it
/// with a zero-sized table component is a compile error.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn(Health(1)).id();
/// let mut changed = world.query_filtered::<Entity, Changed<Health>>();
/// assert_eq!(changed.iter(&world).count(), 1);
/// world.insert(e, Health(2));
/// assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
/// ```
pub struct Changed<T>(PhantomData<T>);

/// The fetch of `Added`/`Changed`: the current tick column or the sparse set
/// (for a value inherited from a prefab, the base's ticks, as `Ref<T>` reads
/// them).
#[derive(Clone, Copy)]
pub struct TickFetch<'w> {
    ticks: NonNull<TickCell>,
    /// `usize::MAX` for a column, 0 for an inherited value's one cell.
    row_mask: usize,
    sparse: Option<&'w SparseSet>,
    world: &'w World,
    component: Entity,
    last_run: Tick,
    this_run: Tick,
    /// The column's enabled bits (toggleable components only).
    disabled: Option<DisabledBits>,
    /// A toggleable component inherited from a base that disabled it.
    base_disabled: bool,
    /// For a sparse component: the base the table's entities inherit from.
    sparse_base: Option<Entity>,
}

macro_rules! impl_tick_filter {
    ($name:ident, $column_ticks:ident, $pick:ident, $cell:tt) => {
        // SAFETY: reads only `T`'s ticks (declared as a read of `T`).
        unsafe impl<T: Component> WorldQuery for $name<T> {
            type Item<'w> = ();
            type Fetch<'w> = TickFetch<'w>;
            type State = Entity;
            type Cache = ColumnCache;
            const IS_DENSE: bool = false;
            const ACCESS: AccessSet =
                AccessSet::component::<T>(AccessKind::ChangeTicks, concat!(stringify!($name), "<"), ">")
                    .and_requires::<T>();
            const MAY_TOGGLE: bool = is_toggle::<T>();

            fn init_state(world: &mut World) -> Entity {
                const {
                    assert!(
                        T::CHANGE_DETECTION,
                        "Added<T>/Changed<T> need change detection: T is declared `#[component(change_detection = false)]`"
                    );
                };
                world.register_component::<T>()
            }
            fn update_access(state: &Entity, access: &mut QueryAccess) {
                access.add_tick_read(*state);
                access.add_with(*state);
            }
            fn required_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
                if is_table::<T>() {
                    ids(state.id());
                }
            }
            #[inline]
            fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<ColumnCache> {
                match_read::<T>(*state, archetype)
            }
            #[inline]
            fn init_fetch<'w>(world: &'w World, state: &Entity, last_run: Tick, this_run: Tick) -> TickFetch<'w> {
                let sparse = if is_table::<T>() { None } else { world.sparse_sets().of(*state) };
                TickFetch {
                    ticks: NonNull::dangling(),
                    row_mask: usize::MAX,
                    sparse,
                    world,
                    component: *state,
                    last_run,
                    this_run,
                    disabled: None,
                    base_disabled: false,
                    sparse_base: None,
                }
            }
            #[inline]
            fn checks_toggles(state: &Entity, archetype: &Archetype) -> bool {
                toggled_in::<T>(*state, archetype)
            }
            #[inline]
            unsafe fn set_archetype<'w>(fetch: &mut TickFetch<'w>, cache: &ColumnCache, archetype: &'w Archetype) {
                if crate::component::is_inherited_sparse::<T>() {
                    fetch.sparse_base = fetch.world.sparse_base_of(archetype, fetch.component);
                }
                if !is_table::<T>() {
                    return;
                }
                fetch.row_mask = usize::MAX;
                fetch.disabled = None;
                // SAFETY: `match_archetype` made `cache` for this archetype, which the
                // iteration's borrow of the world keeps alive.
                if let Some(column) = unsafe { cache.column::<'w>() } {
                    fetch.ticks = column.$column_ticks();
                    if is_toggle::<T>() {
                        fetch.disabled = column.disabled_bits();
                    }
                } else if let Some(base) = cache.inherited_from() {
                    // Every row reads the base's value's ticks.
                    let (_, cells) = inherited_cells(fetch.world, fetch.component, base);
                    fetch.ticks = cells[$cell];
                    fetch.row_mask = 0;
                }
                fetch.base_disabled = inherited_disabled::<T>(fetch.world, fetch.component, cache.inherited_from());
            }
            #[inline]
            unsafe fn matches_row(fetch: &TickFetch<'_>, entity: Entity, row: usize) -> bool {
                // SAFETY: `row` is a row of the current table.
                if is_toggle::<T>() && (fetch.base_disabled || !unsafe { row_enabled(fetch.disabled, row) }) {
                    return false;
                }
                let tick = if is_table::<T>() {
                    // SAFETY: `row` is a row of the current table, whose tick column
                    // has one cell per row (an inherited value: row mask 0, the
                    // base's one cell).
                    unsafe { fetch.ticks.add(row & fetch.row_mask).as_ref().get() }
                } else {
                    let holder = match fetch.sparse {
                        Some(set) if set.contains(entity) => entity,
                        _ => match fetch.sparse_base {
                            Some(base) => base,
                            None => return false,
                        },
                    };
                    match fetch.sparse.and_then(|set| set.ticks(holder)) {
                        Some(cells) => cells.$pick.get(),
                        None => return false,
                    }
                };
                tick.is_newer_than(fetch.last_run, fetch.this_run)
            }
            #[inline]
            unsafe fn fetch<'w>(_fetch: &mut Self::Fetch<'w>, _entity: Entity, _row: usize) -> Self::Item<'w> {}
        }

        // SAFETY: never writes.
        unsafe impl<T: Component> QueryFilter for $name<T> {}
    };
}

impl_tick_filter!(Added, added_ptr, added, 0);
impl_tick_filter!(Changed, changed_ptr, changed, 1);

/// Selects entities matching at least one of the filters of the tuple `F`.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct A;
/// #[derive(Component)]
/// struct B;
/// let mut world = World::new();
/// world.spawn(A);
/// world.spawn(B);
/// world.spawn((A, B));
/// world.spawn_empty();
/// let mut q = world.query_filtered::<Entity, Or<(With<A>, With<B>)>>();
/// assert_eq!(q.iter(&world).count(), 3);
/// ```
pub struct Or<F>(PhantomData<F>);

macro_rules! impl_or_filter {
    ($(($name:ident, $state:ident, $cache:ident, $fetch:ident)),*) => {
        #[allow(non_snake_case, unused_variables, unused_mut, clippy::unused_unit)]
        // SAFETY: accesses what the branches access; fetches a branch only where it matched.
        unsafe impl<$($name: QueryFilter),*> WorldQuery for Or<($($name,)*)> {
            type Item<'w> = ();
            type Fetch<'w> = ($(($name::Fetch<'w>, bool),)*);
            type State = ($($name::State,)*);
            type Cache = ($(Option<$name::Cache>,)*);
            const IS_DENSE: bool = true $(&& $name::IS_DENSE)*;
            const ACCESS: AccessSet = AccessSet::any_of(&[$($name::ACCESS),*]);
            const MAY_TOGGLE: bool = false $(|| $name::MAY_TOGGLE)*;

            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)*)
            }
            fn update_access(state: &Self::State, access: &mut QueryAccess) {
                let ($($state,)*) = state;
                let branches = [$({
                    let mut branch = QueryAccess::default();
                    $name::update_access($state, &mut branch);
                    branch
                }),*];
                access.add_any_of(&branches);
            }
            fn required_ids(_state: &Self::State, _ids: &mut impl FnMut(Id)) {}
            fn mentioned_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
                let ($($state,)*) = state;
                $($name::mentioned_ids($state, ids);)*
            }
            #[inline]
            fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::Cache> {
                let ($($state,)*) = state;
                let cache = ($($name::match_archetype($state, archetype),)*);
                let ($($cache,)*) = &cache;
                let any = false $(|| $cache.is_some())*;
                any.then_some(cache)
            }
            #[inline]
            fn checks_toggles(state: &Self::State, archetype: &Archetype) -> bool {
                let ($($state,)*) = state;
                false $(|| ($name::MAY_TOGGLE && $name::checks_toggles($state, archetype)))*
            }
            #[inline]
            fn init_fetch<'w>(world: &'w World, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
                let ($($state,)*) = state;
                ($(($name::init_fetch(world, $state, last_run, this_run), false),)*)
            }
            #[inline]
            unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &Self::Cache, archetype: &'w Archetype) {
                let ($($fetch,)*) = fetch;
                let ($($cache,)*) = cache;
                $(
                    $fetch.1 = $cache.is_some();
                    if let Some($cache) = $cache {
                        // SAFETY: the cache came from this branch's `match_archetype`.
                        unsafe { $name::set_archetype(&mut $fetch.0, $cache, archetype) };
                    }
                )*
            }
            #[inline]
            unsafe fn matches_every_row(fetch: &Self::Fetch<'_>, len: usize) -> bool {
                let ($($fetch,)*) = fetch;
                // One branch that matched the archetype and passes every row is enough.
                // SAFETY: a branch is asked only if it matched the current archetype.
                false $(|| ($fetch.1 && unsafe { $name::matches_every_row(&$fetch.0, len) }))*
            }
            #[inline]
            unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
                let ($($fetch,)*) = fetch;
                // SAFETY: a branch is asked only if it matched the current archetype.
                false $(|| ($fetch.1 && unsafe { $name::matches_row(&$fetch.0, entity, row) }))*
            }
            #[inline]
            unsafe fn fetch<'w>(_fetch: &mut Self::Fetch<'w>, _entity: Entity, _row: usize) -> Self::Item<'w> {}
        }

        // SAFETY: no branch writes.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for Or<($($name,)*)> {}
    };
}

ecs_macros::all_tuples!(impl_or_filter, 1, 16, F, s, c, f);

macro_rules! impl_filter_tuple {
    ($($name:ident),*) => {
        // SAFETY: no element writes.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {}
    };
}

ecs_macros::all_tuples!(impl_filter_tuple, 0, 16, F);
