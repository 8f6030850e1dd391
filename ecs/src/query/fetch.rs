//! The [`WorldQuery`] machinery and the data terms: `Entity`, `&T`, `&mut T`,
//! `Option<Q>`, [`Has<T>`] and tuples.
//!
//! What `&T` borrows beyond the row's own table: on an instance that inherits
//! `T` (`IsA`, the default `on_instantiate` policy), the one value of the
//! prefab holding it, another entity. Its access stays "read `T`" with the
//! row's filters, which would not prove it disjoint from a writer of `T` on
//! that prefab; instead no writer can reach a prefab's inherited value while
//! queries run: prefabs are hidden from every query that does not name
//! `Prefab`, a query naming `Prefab` that writes such a component is refused
//! (typed: `QueryState::new` panics; runtime:
//! `QueryBuildError::WritesInheritedOnPrefabs`), and `World::get_mut`
//! needs `&mut World`. `Has<T>`, `With<T>` and `Without<T>` read only
//! archetype membership (which ids the prefab holds), never values.

use core::marker::PhantomData;
use core::ptr::NonNull;

use super::access::QueryAccess;
use super::access_set::{AccessKind, AccessSet, Label};
use crate::archetype::Archetype;
use crate::component::{Component, StorageKind};
use crate::entity::{Entity, Id};
use crate::storage::{Column, DisabledBits, SparseSet, Tick, TickCell};
use crate::world::{Mut, Ref, World};

/// The shared machinery of query terms (data and filters).
///
/// # Safety
/// * `update_access` must report every component the term reads or writes;
/// * `fetch` may only be called with a row of the archetype last given to
///   `set_archetype`, which `match_archetype` accepted with the given cache;
/// * items must only reference storage the term declared.
pub unsafe trait WorldQuery {
    /// What one row yields.
    type Item<'w>;
    /// Per-iteration state (column pointers of the current table...).
    type Fetch<'w>: Clone;
    /// Resolved once per query: component ids.
    type State: Send + Sync + 'static;
    /// Computed once per matched archetype: column indices.
    type Cache: Copy + Send + Sync + 'static;
    /// `true` if matching an archetype is enough: no per-row presence check (false
    /// for terms on sparse components).
    const IS_DENSE: bool;
    /// What the term borrows, known at compile time (see [`AccessSet`]).
    const ACCESS: AccessSet;
    /// `true` if the term filters rows by a toggleable component's enabled
    /// bits (`#[component(toggle)]`): in the archetypes where
    /// [`WorldQuery::checks_toggles`] holds, rows pass only if `matches_row`
    /// says so, even when the term is dense. A query none of whose terms sets
    /// it iterates with no toggle check at all.
    const MAY_TOGGLE: bool = false;

    /// Resolves component ids, registering components as needed.
    fn init_state(world: &mut World) -> Self::State;
    /// Records reads and writes.
    fn update_access(state: &Self::State, access: &mut QueryAccess);
    /// Reports the table ids every matched archetype must contain.
    fn required_ids(state: &Self::State, ids: &mut impl FnMut(Id));
    /// Reports every id the term names, required or not (`Has<T>` names `T`
    /// without requiring it; `Option<&T>` reads it but does not name it, as in
    /// Bevy). A query that names a hiding marker (`Disabled`, `Prefab`) in
    /// any term also matches the archetypes it hides, as in Bevy (`With`,
    /// `Without`, `&` and `Has` of `Disabled` make disabled entities seen)
    /// and Flecs (a runtime term on `Disabled` or `Prefab`, `?` included).
    /// The default reports the required ids.
    fn mentioned_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
        Self::required_ids(state, ids);
    }
    /// Whether the term matches `archetype`; if so, its per-archetype cache.
    fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::Cache>;
    /// In how many ways the term matches `archetype`: 1 for most terms; for a
    /// wildcard term such as `Pair<R>`, one per matching pair (the query yields
    /// one row per entity and way, Flecs' wildcard semantics); 0 if it does not
    /// match.
    #[inline]
    fn variant_count(_state: &Self::State, _archetype: &Archetype) -> usize {
        1
    }
    /// The cache of the `variant`-th way the term matches `archetype`
    /// (`variant < variant_count`).
    #[inline]
    fn match_variant(state: &Self::State, archetype: &Archetype, _variant: usize) -> Option<Self::Cache> {
        Self::match_archetype(state, archetype)
    }
    /// Whether rows of `archetype` (which the term matched) need the per-row
    /// check for enabled bits: the term's toggleable component has a column
    /// there. Asked once per matched archetype; only when
    /// [`WorldQuery::MAY_TOGGLE`] is set.
    #[inline]
    fn checks_toggles(_state: &Self::State, _archetype: &Archetype) -> bool {
        false
    }
    /// For a dense term that matched the current archetype (after
    /// `set_archetype`): whether `matches_row` holds for each of the table's
    /// first `len` rows, as far as enabled bits go. Lets a table of a
    /// toggleable component whose values are all enabled skip the per-row
    /// check (one test per 64 rows instead). `true` unless the term reads
    /// enabled bits; only asked when [`WorldQuery::MAY_TOGGLE`] is set.
    ///
    /// # Safety
    /// `len` is at most the current table's length.
    #[inline]
    unsafe fn matches_every_row(_fetch: &Self::Fetch<'_>, _len: usize) -> bool {
        true
    }
    /// Gives the source entity of `Fixed<&C>` terms whose component type is
    /// `component` (see `QueryState::with_source`); other terms ignore it.
    fn set_source(_state: &mut Self::State, _component: core::any::TypeId, _source: Entity) {}
    /// The fetch for one iteration.
    fn init_fetch<'w>(world: &'w World, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w>;
    /// Points the fetch at `archetype`'s table.
    ///
    /// # Safety
    /// `cache` was returned by `match_archetype` for this `archetype`, which was
    /// not deleted since (a cache may point into the archetype's table, see
    /// [`ColumnCache`]).
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &Self::Cache, archetype: &'w Archetype);
    /// Whether `entity` (at `row`) has what the term needs (always true when dense).
    ///
    /// # Safety
    /// `row` is a row of the current archetype.
    unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool;
    /// Fetches one row.
    ///
    /// # Safety
    /// `row` is a row of the current archetype for which `matches_row` is true, and
    /// the caller upholds the access rules for the returned item's lifetime (no
    /// other live item aliases a `&mut` of this row).
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w>;
}

/// A query term that yields data.
///
/// # Safety
/// `ReadOnly` must access a subset of what `Self` accesses, and only for reading.
pub unsafe trait QueryData: WorldQuery {
    /// The read-only form (`&mut T` becomes `&T`), used by `QueryState::iter`.
    type ReadOnly: ReadOnlyQueryData<State = Self::State, Cache = Self::Cache>;
}

/// A query term that only reads.
///
/// # Safety
/// The term must never write, so any number of its items may coexist.
pub unsafe trait ReadOnlyQueryData: QueryData<ReadOnly = Self> {}

#[inline]
fn sparse_set_of(world: &World, component: Entity) -> Option<&SparseSet> {
    world.sparse_sets().of(component)
}

#[inline]
fn is_table<T: Component>() -> bool {
    matches!(T::STORAGE, StorageKind::Table)
}

/// Whether `T` is a toggleable table component, whose columns carry enabled bits.
#[inline]
pub(crate) const fn is_toggle<T: Component>() -> bool {
    T::TOGGLE && matches!(T::STORAGE, StorageKind::Table)
}

/// Whether `archetype` has a column of the toggleable component `id` (of type
/// `T`) with enabled bits, or inherits it from a base (whose bit can turn
/// off without any move): its rows need a per-row check.
#[inline]
pub(crate) fn toggled_in<T: Component>(id: Entity, archetype: &Archetype) -> bool {
    is_toggle::<T>()
        && match archetype.column_of(id.id()) {
            Some(column) => archetype.table().column(column).has_toggle_bits(),
            None => inherits_toggle::<T>(id, archetype),
        }
}

/// Whether `archetype` reads the toggleable component `id` (of type `T`)
/// from a base through `IsA` without owning it.
#[inline]
fn inherits_toggle<T: Component>(id: Entity, archetype: &Archetype) -> bool {
    is_toggle::<T>()
        && crate::component::is_inherited::<T>()
        && !archetype.contains(id.id())
        && archetype.inherited_from(id.id()).is_some()
}

/// For a table that inherits the toggleable `T` from `base` (per
/// `ColumnCache`'s base): whether the base's value is disabled, which makes
/// every row of the table lack it for query terms.
#[inline]
pub(crate) fn inherited_disabled<T: Component>(world: &World, id: Entity, base: Option<Entity>) -> bool {
    is_toggle::<T>() && base.is_some_and(|base| !world.own_value_enabled(base, id.id()))
}

/// Whether no row below `len` is disabled in `bits` (always without bits).
///
/// # Safety
/// `len` is at most the length of the table whose column `bits` came from,
/// in the current iteration.
#[inline]
pub(crate) unsafe fn all_enabled(bits: Option<DisabledBits>, len: usize) -> bool {
    // SAFETY: forwarded to the caller.
    bits.is_none_or(|bits| unsafe { bits.none_disabled(len) })
}

/// Whether `row` is enabled in `bits` (always without bits).
///
/// # Safety
/// `row` is a row of the table whose column `bits` came from, in the current
/// iteration.
#[inline(always)]
pub(crate) unsafe fn row_enabled(bits: Option<DisabledBits>, row: usize) -> bool {
    // SAFETY: forwarded to the caller.
    bits.is_none_or(|bits| unsafe { !bits.is_disabled(row) })
}

// ----- Entity --------------------------------------------------------------------------

// SAFETY: reads nothing but the row's entity.
unsafe impl WorldQuery for Entity {
    type Item<'w> = Entity;
    type Fetch<'w> = ();
    type State = ();
    type Cache = ();
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet = AccessSet::labelled("Entity");

    fn init_state(_world: &mut World) {}
    fn update_access(_state: &(), _access: &mut QueryAccess) {}
    fn required_ids(_state: &(), _ids: &mut impl FnMut(Id)) {}
    #[inline]
    fn match_archetype(_state: &(), _archetype: &Archetype) -> Option<()> {
        Some(())
    }
    #[inline]
    fn init_fetch(_world: &World, _state: &(), _last_run: Tick, _this_run: Tick) {}
    #[inline]
    unsafe fn set_archetype(_fetch: &mut (), _cache: &(), _archetype: &Archetype) {}
    #[inline]
    unsafe fn matches_row(_fetch: &(), _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(_fetch: &mut Self::Fetch<'w>, entity: Entity, _row: usize) -> Self::Item<'w> {
        entity
    }
}

// SAFETY: read-only.
unsafe impl QueryData for Entity {
    type ReadOnly = Entity;
}
// SAFETY: never writes.
unsafe impl ReadOnlyQueryData for Entity {}

// ----- &T ------------------------------------------------------------------------------

/// The fetch of `&T`: the current column, the one value the current table
/// inherits (`row_mask` 0: every row reads the one value), or the sparse set.
pub struct ReadFetch<'w, T> {
    column: NonNull<T>,
    /// `usize::MAX` for a column, 0 for a shared value: row `r` reads
    /// `column + (r & row_mask)`, one `and` instead of a branch per row.
    row_mask: usize,
    sparse: Option<&'w SparseSet>,
    world: &'w World,
    component: Entity,
    /// The column's enabled bits (toggleable `T` only).
    disabled: Option<DisabledBits>,
    /// A toggleable `T` inherited from a base that disabled it: no row of
    /// the table has it.
    base_disabled: bool,
    /// For a sparse `T`: the base the table's entities inherit a value from
    /// (rows without their own read it).
    sparse_base: Option<Entity>,
}

impl<T> Clone for ReadFetch<'_, T> {
    fn clone(&self) -> Self {
        ReadFetch { ..*self }
    }
}

/// What `&T`, `&mut T`, `Added<T>` and `Changed<T>` cache per matched
/// archetype: its table's column of `T`, or none (`T` is a tag or sparse).
///
/// Pointing at the column rather than holding its index spares the per-table
/// step of an iteration two dependent loads (archetype, then its column
/// slice). The pointer stays valid while the archetype lives: a table's column
/// slice is only replaced when the slot of its deleted archetype is reused, and
/// `QueryState::update_archetypes`, which runs before every iteration, drops
/// the matches of deleted archetypes and rematches after any reuse.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::WorldQuery;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let entity = world.spawn((Health(3),)).id();
/// let id = world.component_id::<Health>().unwrap();
/// let archetype = &world.archetypes()[world.entity(entity).archetype()];
/// let cache = <&Health as WorldQuery>::match_archetype(&id, archetype).unwrap();
/// assert!(cache.has_column());
/// ```
///
/// For `&T` on an archetype whose entities inherit `T` through `IsA`, the
/// column is the base's and [`ColumnCache::inherited_from`] names the base:
/// every row reads the base's one value.
#[derive(Clone, Copy, Debug)]
pub struct ColumnCache(Option<NonNull<Column>>, Option<Entity>);

// SAFETY: a pointer to a column of the world's tables, only read while a query
// holds its borrow of that world (as `&Column` is `Send`).
unsafe impl Send for ColumnCache {}
// SAFETY: as for `Send`: shared use only reads the pointer (`&Column` is `Sync`).
unsafe impl Sync for ColumnCache {}

impl ColumnCache {
    /// Whether the archetype has a column of the component (false for tags and
    /// sparse components).
    #[inline]
    pub fn has_column(self) -> bool {
        self.0.is_some()
    }

    /// The base whose value the archetype's entities read (through `IsA`),
    /// if the component is inherited rather than owned.
    #[inline]
    pub fn inherited_from(self) -> Option<Entity> {
        self.1
    }

    /// The cache of an archetype without a column of the component.
    pub(crate) const NONE: ColumnCache = ColumnCache(None, None);

    /// The column.
    ///
    /// # Safety
    /// The archetype this cache was made for is alive and unchanged in shape
    /// since (see the type docs), and the caller does not outlive its borrow of
    /// the world.
    #[inline]
    pub(crate) unsafe fn column<'w>(self) -> Option<&'w Column> {
        // SAFETY: the column is alive and in place, per the caller's contract.
        self.0.map(|column| unsafe { column.as_ref() })
    }
}

/// Matches `archetype` for component `id` of type `T`; caches its column.
#[inline]
pub(crate) fn match_component<T: Component>(id: Entity, archetype: &Archetype) -> Option<ColumnCache> {
    if is_table::<T>() {
        let position = archetype.position_of(id.id())?;
        let column = usize::try_from(archetype.column_map()[position]).ok();
        Some(ColumnCache(column.map(|index| NonNull::from(archetype.table().column(index))), None))
    } else {
        Some(ColumnCache(None, None))
    }
}

/// Matches `archetype` for component `id` of type `T`, owned or (for a
/// component read through `IsA`) inherited from a base, which the cache names.
#[inline]
pub(crate) fn match_read<T: Component>(id: Entity, archetype: &Archetype) -> Option<ColumnCache> {
    match_component::<T>(id, archetype).or_else(|| {
        if crate::component::is_inherited::<T>() {
            archetype.inherited_from(id.id()).map(|base| ColumnCache(None, Some(base)))
        } else {
            None
        }
    })
}

/// The address of `base`'s own value of component `id` (a dangling, aligned
/// one for a tag), for a table inheriting it.
///
/// # Panics
/// Panics if `base` is dead or lacks the component: query caches rebuild
/// when a base moves or dies, so a matched base always holds it.
fn inherited_value<T>(world: &World, id: Entity, base: Entity) -> NonNull<T> {
    match world.id_value(base, id.id()) {
        Some((value, _)) => value.cast(),
        // A zero-sized value without a column: any aligned address is one.
        None if size_of::<T>() == 0 && world.owns_id(base, id.id()) => NonNull::dangling(),
        None => stale_base(base, id),
    }
}

/// The address of `base`'s own value of the change-detected component `id`
/// and its two tick cells (added, changed), for a table inheriting it.
///
/// # Panics
/// Panics if `base` is dead or lacks the component or its ticks, as
/// [`inherited_value`].
pub(super) fn inherited_cells(world: &World, id: Entity, base: Entity) -> (NonNull<u8>, [NonNull<TickCell>; 2]) {
    match world.id_value(base, id.id()) {
        Some((value, Some((added, changed)))) => (value, [NonNull::from(added), NonNull::from(changed)]),
        _ => stale_base(base, id),
    }
}

/// The panic of a matched table whose base no longer gives component `id`.
#[cold]
#[inline(never)]
fn stale_base(base: Entity, id: Entity) -> ! {
    panic!("base {base:?} of a matched table no longer holds component {id:?}")
}

/// The enabled bits of `column` when `T` is toggleable (`None` otherwise).
#[inline(always)]
fn disabled_bits_of<T: Component>(column: Option<&Column>) -> Option<DisabledBits> {
    if is_toggle::<T>() { column.and_then(Column::disabled_bits) } else { None }
}

/// The start of `column` as a `*T` (dangling for none).
#[inline]
fn column_start<T>(column: Option<&Column>) -> NonNull<T> {
    column.map_or(NonNull::dangling(), |column| column.data_ptr().cast())
}

// SAFETY: reads `T` only (declared in `update_access`); items are rows of the
// current table or values of the sparse set.
unsafe impl<T: Component> WorldQuery for &T {
    type Item<'w> = &'w T;
    type Fetch<'w> = ReadFetch<'w, T>;
    type State = Entity;
    type Cache = ColumnCache;
    const IS_DENSE: bool = matches!(T::STORAGE, StorageKind::Table);
    const ACCESS: AccessSet = AccessSet::read::<T>();
    const MAY_TOGGLE: bool = is_toggle::<T>();

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<T>()
    }
    fn update_access(state: &Entity, access: &mut QueryAccess) {
        access.add_read(*state);
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
    fn init_fetch<'w>(world: &'w World, state: &Entity, _last_run: Tick, _this_run: Tick) -> ReadFetch<'w, T> {
        let sparse = if is_table::<T>() { None } else { sparse_set_of(world, *state) };
        ReadFetch {
            column: NonNull::dangling(),
            row_mask: usize::MAX,
            sparse,
            world,
            component: *state,
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
    unsafe fn set_archetype<'w>(fetch: &mut ReadFetch<'w, T>, cache: &ColumnCache, archetype: &'w Archetype) {
        if crate::component::is_inherited_sparse::<T>() {
            fetch.sparse_base = fetch.world.sparse_base_of(archetype, fetch.component);
        }
        if is_table::<T>() {
            fetch.row_mask = if cache.1.is_some() { 0 } else { usize::MAX };
            fetch.column = match cache.1 {
                Some(base) => inherited_value(fetch.world, fetch.component, base),
                // SAFETY: `match_archetype` made `cache` for this archetype, which the
                // iteration's borrow of the world keeps alive.
                None => column_start(unsafe { cache.column() }),
            };
            // SAFETY: as above (an inherited value's cache names no column).
            fetch.disabled = disabled_bits_of::<T>(unsafe { cache.column() });
            fetch.base_disabled = inherited_disabled::<T>(fetch.world, fetch.component, cache.1);
        }
    }
    #[inline]
    unsafe fn matches_every_row(fetch: &ReadFetch<'_, T>, len: usize) -> bool {
        // SAFETY: forwarded to the caller.
        !fetch.base_disabled && unsafe { all_enabled(fetch.disabled, len) }
    }
    #[inline]
    unsafe fn matches_row(fetch: &ReadFetch<'_, T>, entity: Entity, row: usize) -> bool {
        if is_toggle::<T>() {
            // SAFETY: `row` is a row of the current table.
            return !fetch.base_disabled && unsafe { row_enabled(fetch.disabled, row) };
        }
        is_table::<T>() || fetch.sparse.is_some_and(|set| set.contains(entity)) || fetch.sparse_base.is_some()
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        if is_table::<T>() {
            // SAFETY: `row` is a row of the current table, whose column stores `T`
            // (or `T` is zero-sized and the pointer is dangling but aligned); a
            // shared value is the base's, valid while the world is borrowed.
            unsafe {
                let row = if crate::component::is_inherited::<T>() { row & fetch.row_mask } else { row };
                fetch.column.add(row).as_ref()
            }
        } else {
            // SAFETY: `matches_row` checked the entity, or the base its table
            // inherits from, has a value in this set of `T`s.
            unsafe {
                let set = crate::util::debug_unwrap(fetch.sparse);
                let value = set.get(entity).or_else(|| fetch.sparse_base.and_then(|base| set.get(base)));
                crate::util::debug_unwrap(value).cast::<T>().as_ref()
            }
        }
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> QueryData for &T {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}

// ----- &mut T --------------------------------------------------------------------------

/// The fetch of `&mut T`: the current column and its ticks, or the sparse set.
pub struct WriteFetch<'w, T> {
    column: NonNull<T>,
    added: NonNull<TickCell>,
    changed: NonNull<TickCell>,
    has_ticks: bool,
    sparse: Option<&'w SparseSet>,
    last_run: Tick,
    this_run: Tick,
    /// The column's enabled bits (toggleable `T` only).
    disabled: Option<DisabledBits>,
    _marker: PhantomData<&'w mut T>,
}

impl<T> Clone for WriteFetch<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for WriteFetch<'_, T> {}

// SAFETY: writes `T` only (declared in `update_access`); each row is handed out
// once per iteration, so `&mut` items never alias.
unsafe impl<T: Component> WorldQuery for &mut T {
    type Item<'w> = Mut<'w, T>;
    type Fetch<'w> = WriteFetch<'w, T>;
    type State = Entity;
    type Cache = ColumnCache;
    const IS_DENSE: bool = matches!(T::STORAGE, StorageKind::Table);
    const ACCESS: AccessSet = AccessSet::write::<T>();
    const MAY_TOGGLE: bool = is_toggle::<T>();

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<T>()
    }
    fn update_access(state: &Entity, access: &mut QueryAccess) {
        access.add_write(*state);
        access.add_with(*state);
    }
    fn required_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
        if is_table::<T>() {
            ids(state.id());
        }
    }
    #[inline]
    fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<ColumnCache> {
        match_component::<T>(*state, archetype)
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &Entity, last_run: Tick, this_run: Tick) -> WriteFetch<'w, T> {
        world.note_write::<T>();
        let sparse = if is_table::<T>() { None } else { sparse_set_of(world, *state) };
        WriteFetch {
            column: NonNull::dangling(),
            added: NonNull::dangling(),
            changed: NonNull::dangling(),
            has_ticks: false,
            sparse,
            last_run,
            this_run,
            disabled: None,
            _marker: PhantomData,
        }
    }
    #[inline]
    fn checks_toggles(state: &Entity, archetype: &Archetype) -> bool {
        toggled_in::<T>(*state, archetype)
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut WriteFetch<'w, T>, cache: &ColumnCache, _archetype: &'w Archetype) {
        if is_table::<T>() {
            // SAFETY: as for `&T`.
            let column = unsafe { cache.column::<'w>() };
            fetch.disabled = disabled_bits_of::<T>(column);
            fetch.has_ticks = column.is_some();
            debug_assert!(fetch.has_ticks || size_of::<T>() == 0, "a sized table component has a column");
            if let Some(column) = column {
                fetch.column = column.data_ptr().cast();
                fetch.added = column.added_ptr();
                fetch.changed = column.changed_ptr();
            } else {
                fetch.column = NonNull::dangling();
            }
        }
    }
    #[inline]
    unsafe fn matches_every_row(fetch: &WriteFetch<'_, T>, len: usize) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe { all_enabled(fetch.disabled, len) }
    }
    #[inline]
    unsafe fn matches_row(fetch: &WriteFetch<'_, T>, entity: Entity, row: usize) -> bool {
        if is_toggle::<T>() {
            // SAFETY: `row` is a row of the current table.
            return unsafe { row_enabled(fetch.disabled, row) };
        }
        is_table::<T>() || fetch.sparse.is_some_and(|set| set.contains(entity))
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        if is_table::<T>() {
            // SAFETY: `row` is a row of the current table whose column stores `T`;
            // the query has exclusive access to `T` (checked at state creation) and
            // hands this row out once, so the `&mut` and the tick cell are unique.
            unsafe {
                let value = fetch.column.add(row).as_mut();
                // Only untracked zero-sized components have no column, and only
                // untracked components a column without ticks; knowing
                // `CHANGE_DETECTION` at compile time keeps the row loop free of
                // the branch for sized components.
                if T::CHANGE_DETECTION && (size_of::<T>() != 0 || fetch.has_ticks) {
                    let added = fetch.added.add(row).as_ref().get();
                    Mut::new(value, added, Some(fetch.changed.add(row).as_ref()), fetch.last_run, fetch.this_run)
                } else {
                    Mut::new(value, Tick::default(), None, fetch.last_run, fetch.this_run)
                }
            }
        } else {
            // SAFETY: `matches_row` checked the entity has a value in this set of
            // `T`s; exclusive access as above.
            unsafe {
                let set = crate::util::debug_unwrap(fetch.sparse);
                let value = crate::util::debug_unwrap(set.get(entity)).cast::<T>().as_mut();
                if T::CHANGE_DETECTION {
                    let cells = crate::util::debug_unwrap(set.ticks(entity));
                    Mut::new(value, cells.added.get(), Some(&cells.changed), fetch.last_run, fetch.this_run)
                } else {
                    Mut::new(value, Tick::default(), None, fetch.last_run, fetch.this_run)
                }
            }
        }
    }
}

// SAFETY: `&T` reads the same component.
unsafe impl<'a, T: Component> QueryData for &'a mut T {
    type ReadOnly = &'a T;
}

// ----- Ref<T> --------------------------------------------------------------------------

/// The fetch of `Ref<T>`: the current column and its ticks, or the sparse set
/// (a value inherited from a prefab, with its ticks, as `&T` reads it).
pub struct RefFetch<'w, T> {
    column: NonNull<T>,
    added: NonNull<TickCell>,
    changed: NonNull<TickCell>,
    /// `usize::MAX` for a column, 0 for an inherited value (as `&T`'s).
    row_mask: usize,
    sparse: Option<&'w SparseSet>,
    world: &'w World,
    component: Entity,
    last_run: Tick,
    this_run: Tick,
    /// The column's enabled bits (toggleable `T` only).
    disabled: Option<DisabledBits>,
    /// A toggleable `T` inherited from a base that disabled it.
    base_disabled: bool,
    /// For a sparse `T`: the base the table's entities inherit a value from.
    sparse_base: Option<Entity>,
}

impl<T> Clone for RefFetch<'_, T> {
    fn clone(&self) -> Self {
        RefFetch { ..*self }
    }
}

// SAFETY: reads `T` and its ticks only (declared as a read of `T`); items are
// shared references to rows of the current table or values of the sparse set.
unsafe impl<'a, T: Component> WorldQuery for Ref<'a, T> {
    type Item<'w> = Ref<'w, T>;
    type Fetch<'w> = RefFetch<'w, T>;
    type State = Entity;
    type Cache = ColumnCache;
    const IS_DENSE: bool = matches!(T::STORAGE, StorageKind::Table);
    const ACCESS: AccessSet = AccessSet::component::<T>(AccessKind::Read, "Ref<", ">").and_requires::<T>();
    const MAY_TOGGLE: bool = is_toggle::<T>();

    fn init_state(world: &mut World) -> Entity {
        const {
            assert!(
                T::CHANGE_DETECTION,
                "Ref<T> needs change detection: T is declared `#[component(change_detection = false)]`; use &T"
            );
        };
        world.register_component::<T>()
    }
    fn update_access(state: &Entity, access: &mut QueryAccess) {
        access.add_read(*state);
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
    fn init_fetch<'w>(world: &'w World, state: &Entity, last_run: Tick, this_run: Tick) -> RefFetch<'w, T> {
        let sparse = if is_table::<T>() { None } else { sparse_set_of(world, *state) };
        RefFetch {
            column: NonNull::dangling(),
            added: NonNull::dangling(),
            changed: NonNull::dangling(),
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
    unsafe fn set_archetype<'w>(fetch: &mut RefFetch<'w, T>, cache: &ColumnCache, archetype: &'w Archetype) {
        if crate::component::is_inherited_sparse::<T>() {
            fetch.sparse_base = fetch.world.sparse_base_of(archetype, fetch.component);
        }
        if !is_table::<T>() {
            return;
        }
        fetch.row_mask = usize::MAX;
        // SAFETY: as for `&T`.
        if let Some(column) = unsafe { cache.column::<'w>() } {
            fetch.disabled = disabled_bits_of::<T>(Some(column));
            fetch.column = column.data_ptr().cast();
            fetch.added = column.added_ptr();
            fetch.changed = column.changed_ptr();
        } else if let Some(base) = cache.1 {
            // Every row reads the base's value and ticks.
            let (value, [added, changed]) = inherited_cells(fetch.world, fetch.component, base);
            fetch.disabled = None;
            fetch.column = value.cast();
            fetch.added = added;
            fetch.changed = changed;
            fetch.row_mask = 0;
        }
        fetch.base_disabled = inherited_disabled::<T>(fetch.world, fetch.component, cache.1);
    }
    #[inline]
    unsafe fn matches_every_row(fetch: &RefFetch<'_, T>, len: usize) -> bool {
        // SAFETY: forwarded to the caller.
        !fetch.base_disabled && unsafe { all_enabled(fetch.disabled, len) }
    }
    #[inline]
    unsafe fn matches_row(fetch: &RefFetch<'_, T>, entity: Entity, row: usize) -> bool {
        if is_toggle::<T>() {
            // SAFETY: `row` is a row of the current table.
            return !fetch.base_disabled && unsafe { row_enabled(fetch.disabled, row) };
        }
        is_table::<T>() || fetch.sparse.is_some_and(|set| set.contains(entity)) || fetch.sparse_base.is_some()
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        if is_table::<T>() {
            // SAFETY: `row` is a row of the current table, whose column stores `T`
            // with one tick cell per row (sized, change-detected: checked above);
            // an inherited value (row mask 0) is the base's, with its cells.
            unsafe {
                let row = if crate::component::is_inherited::<T>() { row & fetch.row_mask } else { row };
                let value = fetch.column.add(row).as_ref();
                let added = fetch.added.add(row).as_ref().get();
                let changed = fetch.changed.add(row).as_ref().get();
                Ref::new(value, added, changed, fetch.last_run, fetch.this_run)
            }
        } else {
            // SAFETY: `matches_row` checked the entity, or the base its table
            // inherits from, has a value in this set of `T`s.
            unsafe {
                let set = crate::util::debug_unwrap(fetch.sparse);
                let holder = if set.contains(entity) { entity } else { crate::util::debug_unwrap(fetch.sparse_base) };
                let value = crate::util::debug_unwrap(set.get(holder)).cast::<T>().as_ref();
                let cells = crate::util::debug_unwrap(set.ticks(holder));
                Ref::new(value, cells.added.get(), cells.changed.get(), fetch.last_run, fetch.this_run)
            }
        }
    }
}

// SAFETY: read-only.
unsafe impl<'a, T: Component> QueryData for Ref<'a, T> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<T: Component> ReadOnlyQueryData for Ref<'_, T> {}

// ----- Option<Q> -----------------------------------------------------------------------

// SAFETY: accesses exactly what `Q` accesses, and only fetches `Q` where it matches.
unsafe impl<Q: WorldQuery> WorldQuery for Option<Q> {
    type Item<'w> = Option<Q::Item<'w>>;
    type Fetch<'w> = (Q::Fetch<'w>, bool);
    type State = Q::State;
    type Cache = Option<Q::Cache>;
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet = Q::ACCESS.optional();

    fn init_state(world: &mut World) -> Q::State {
        Q::init_state(world)
    }
    fn update_access(state: &Q::State, access: &mut QueryAccess) {
        let mut inner = QueryAccess::default();
        Q::update_access(state, &mut inner);
        access.extend_borrows(&inner);
    }
    fn required_ids(_state: &Q::State, _ids: &mut impl FnMut(Id)) {}
    // An optional read names nothing (Bevy: `Option<&Disabled>` leaves
    // disabled entities hidden; read access is not a mention).
    fn mentioned_ids(_state: &Q::State, _ids: &mut impl FnMut(Id)) {}
    #[inline]
    fn match_archetype(state: &Q::State, archetype: &Archetype) -> Option<Option<Q::Cache>> {
        Some(Q::match_archetype(state, archetype))
    }
    #[inline]
    fn variant_count(state: &Q::State, archetype: &Archetype) -> usize {
        Q::variant_count(state, archetype).max(1)
    }
    #[inline]
    fn match_variant(state: &Q::State, archetype: &Archetype, variant: usize) -> Option<Option<Q::Cache>> {
        Some(Q::match_variant(state, archetype, variant))
    }
    fn set_source(state: &mut Q::State, component: core::any::TypeId, source: Entity) {
        Q::set_source(state, component, source);
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &Q::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
        (Q::init_fetch(world, state, last_run, this_run), false)
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &Option<Q::Cache>, archetype: &'w Archetype) {
        fetch.1 = cache.is_some();
        if let Some(cache) = cache {
            // SAFETY: `cache` came from `Q::match_archetype` for this archetype.
            unsafe { Q::set_archetype(&mut fetch.0, cache, archetype) };
        }
    }
    #[inline]
    unsafe fn matches_row(_fetch: &Self::Fetch<'_>, _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        // SAFETY: `Q` matched this archetype, and `matches_row` is checked before fetching.
        unsafe { (fetch.1 && Q::matches_row(&fetch.0, entity, row)).then(|| Q::fetch(&mut fetch.0, entity, row)) }
    }
}

// SAFETY: the read-only form of `Option<Q>` is `Option<Q::ReadOnly>`.
unsafe impl<Q: QueryData> QueryData for Option<Q> {
    type ReadOnly = Option<Q::ReadOnly>;
}
// SAFETY: `Q` never writes.
unsafe impl<Q: ReadOnlyQueryData> ReadOnlyQueryData for Option<Q> {}

// ----- Has<T> --------------------------------------------------------------------------

/// Yields whether the entity has `T`, without reading it (matches every entity).
/// A disabled toggleable `T` counts as absent.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Enemy;
/// let mut world = World::new();
/// let a = world.spawn(Enemy).id();
/// let b = world.spawn_empty().id();
/// let mut q = world.query::<(Entity, Has<Enemy>)>();
/// let mut rows: Vec<_> = q.iter(&world).collect();
/// rows.sort();
/// assert_eq!(rows, vec![(a, true), (b, false)]);
/// ```
pub struct Has<T>(PhantomData<T>);

// SAFETY: reads only archetype membership or sparse-set presence, never values.
unsafe impl<T: Component> WorldQuery for Has<T> {
    type Item<'w> = bool;
    type Fetch<'w> = (bool, Option<&'w SparseSet>, Option<DisabledBits>, &'w World, Entity);
    type State = Entity;
    type Cache = (bool, ColumnCache);
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet = AccessSet::labelled(Label::new().with("Has<").with(T::NAME).with(">").as_str());

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<T>()
    }
    fn update_access(_state: &Entity, _access: &mut QueryAccess) {}
    fn required_ids(_state: &Entity, _ids: &mut impl FnMut(Id)) {}
    fn mentioned_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
        ids(state.id());
    }
    #[inline]
    fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<(bool, ColumnCache)> {
        let owned = is_table::<T>() && archetype.contains(state.id());
        let inherited =
            is_table::<T>() && crate::component::is_inherited::<T>() && archetype.inherited_from(state.id()).is_some();
        let column = match (is_toggle::<T>(), owned) {
            (true, true) => match_component::<T>(*state, archetype),
            // The base whose enabled bit decides, per iteration.
            (true, false) if inherited => match_read::<T>(*state, archetype),
            _ => None,
        };
        Some((owned || inherited, column.unwrap_or(ColumnCache::NONE)))
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &Entity, _last_run: Tick, _this_run: Tick) -> Self::Fetch<'w> {
        (false, if is_table::<T>() { None } else { sparse_set_of(world, *state) }, None, world, *state)
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &(bool, ColumnCache), archetype: &'w Archetype) {
        fetch.0 = cache.0;
        if crate::component::is_inherited_sparse::<T>() {
            // For a sparse `T`: whether the table inherits a value.
            fetch.0 = fetch.3.sparse_base_of(archetype, fetch.4).is_some();
        }
        if is_toggle::<T>() {
            // SAFETY: `match_archetype` made `cache` for this archetype, alive
            // for the iteration.
            fetch.2 = disabled_bits_of::<T>(unsafe { cache.1.column::<'w>() });
            fetch.0 &= !inherited_disabled::<T>(fetch.3, fetch.4, cache.1.1);
        }
    }
    #[inline]
    unsafe fn matches_row(_fetch: &Self::Fetch<'_>, _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        if is_toggle::<T>() {
            // SAFETY: `row` is a row of the current table.
            return fetch.0 && unsafe { row_enabled(fetch.2, row) };
        }
        if is_table::<T>() { fetch.0 } else { fetch.0 || fetch.1.is_some_and(|set| set.contains(entity)) }
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> QueryData for Has<T> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<T: Component> ReadOnlyQueryData for Has<T> {}

// ----- tuples --------------------------------------------------------------------------

macro_rules! impl_query_data_tuple {
    ($(($name:ident, $state:ident, $cache:ident, $fetch:ident)),*) => {
        #[allow(non_snake_case, unused_variables, unused_unsafe, clippy::unused_unit)]
        // SAFETY: each element upholds the contract; the tuple only combines them.
        unsafe impl<$($name: WorldQuery),*> WorldQuery for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            type State = ($($name::State,)*);
            type Cache = ($($name::Cache,)*);
            const IS_DENSE: bool = true $(&& $name::IS_DENSE)*;
            const ACCESS: AccessSet = AccessSet::tuple(&[$($name::ACCESS),*]);
            const MAY_TOGGLE: bool = false $(|| $name::MAY_TOGGLE)*;

            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)*)
            }
            fn update_access(state: &Self::State, access: &mut QueryAccess) {
                let ($($state,)*) = state;
                $($name::update_access($state, access);)*
            }
            fn required_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
                let ($($state,)*) = state;
                $($name::required_ids($state, ids);)*
            }
            fn mentioned_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
                let ($($state,)*) = state;
                $($name::mentioned_ids($state, ids);)*
            }
            #[inline]
            fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::Cache> {
                let ($($state,)*) = state;
                Some(($($name::match_archetype($state, archetype)?,)*))
            }
            #[inline]
            fn variant_count(state: &Self::State, archetype: &Archetype) -> usize {
                let ($($state,)*) = state;
                1 $(* $name::variant_count($state, archetype))*
            }
            #[inline]
            #[allow(unused_mut, unused_assignments)]
            fn match_variant(state: &Self::State, archetype: &Archetype, variant: usize) -> Option<Self::Cache> {
                let ($($state,)*) = state;
                // `variant` in mixed radix: the first element varies fastest.
                let mut rest = variant;
                Some(($({
                    let count = $name::variant_count($state, archetype).max(1);
                    let own = rest % count;
                    rest /= count;
                    $name::match_variant($state, archetype, own)?
                },)*))
            }
            fn set_source(state: &mut Self::State, component: core::any::TypeId, source: Entity) {
                let ($($state,)*) = state;
                $($name::set_source($state, component, source);)*
            }
            #[inline]
            fn checks_toggles(state: &Self::State, archetype: &Archetype) -> bool {
                let ($($state,)*) = state;
                false $(|| ($name::MAY_TOGGLE && $name::checks_toggles($state, archetype)))*
            }
            #[inline]
            fn init_fetch<'w>(world: &'w World, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
                let ($($state,)*) = state;
                ($($name::init_fetch(world, $state, last_run, this_run),)*)
            }
            #[inline]
            unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &Self::Cache, archetype: &'w Archetype) {
                let ($($fetch,)*) = fetch;
                let ($($cache,)*) = cache;
                // SAFETY: each element's cache came from its own `match_archetype`.
                unsafe { $($name::set_archetype($fetch, $cache, archetype);)* }
            }
            #[inline]
            unsafe fn matches_every_row(fetch: &Self::Fetch<'_>, len: usize) -> bool {
                let ($($fetch,)*) = fetch;
                // SAFETY: forwarded to the caller.
                true $(&& (!$name::MAY_TOGGLE || unsafe { $name::matches_every_row($fetch, len) }))*
            }
            #[inline]
            unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
                let ($($fetch,)*) = fetch;
                // SAFETY: forwarded to the caller.
                true $(&& unsafe { $name::matches_row($fetch, entity, row) })*
            }
            #[inline]
            unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
                let ($($fetch,)*) = fetch;
                // SAFETY: forwarded to the caller.
                unsafe { ($($name::fetch($fetch, entity, row),)*) }
            }
        }

        // SAFETY: the read-only form is the tuple of the elements' read-only forms.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type ReadOnly = ($($name::ReadOnly,)*);
        }
        // SAFETY: no element writes.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

ecs_macros::all_tuples!(impl_query_data_tuple, 0, 16, Q, s, c, f);
