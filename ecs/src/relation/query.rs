//! Relationship query terms: [`Pair`] (wildcard over `(R, *)`), [`WithPair`],
//! [`Up`] (traversal to the nearest ancestor) and [`Fixed`] (one fixed source).
//!
//! `Pair<R>` matches an archetype once per `(R, *)` pair of its type (the
//! query's `variant_count`), so an entity with three `Likes` pairs yields three
//! rows, each with its own target (Flecs' wildcard semantics). Rows of one
//! variant are contiguous: a query yields all entities for the first pair of
//! each archetype, then for the second, and so on.
//!
//! For a union relationship (`#[relationship(union)]`) an archetype holds the
//! one id `(R, *union*)` whatever its entities' targets: `Pair<R>` matches it
//! once and reads each row's target from that id's column, and
//! `QueryState::with_pair::<R>(t)` keeps the rows whose target is `t`.
//!
//! `Up<R, &T>` and `Fixed<&T>` resolve the entity they read from when the query
//! moves to a new table, at iteration time: nothing traversal finds is cached
//! across runs, so changes to the hierarchy are always seen. In a table holding
//! a union relationship's pair (`#[relationship(union, traversable)]`, a
//! non-fragmenting hierarchy) each row has its own target, so `Up` climbs per
//! row (the last row's result is kept for its fetch).

use core::any::TypeId;
use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::Relationship;
use crate::archetype::{Archetype, UnionCell, is_union_id};
use crate::component::{Component, StorageKind};
use crate::entity::{Entity, Id};
use crate::query::{
    AccessKind, AccessSet, AccessTerm, Label, QueryAccess, QueryData, QueryFilter, QueryState, ReadOnlyQueryData,
    WorldQuery,
};
use crate::storage::{Tick, TickCell};
use crate::world::{Mut, World};

/// The const-access id of `R`'s pairs: distinct from `R`'s own id, since pair
/// columns and the component's column are different storage.
pub(crate) const fn pair_access_id(id: u64) -> u64 {
    id ^ 0x9E37_79B9_7F4A_7C15
}

/// A const access set with one term on `R`'s pairs.
const fn pair_access<R: Component>(kind: AccessKind, label: Label) -> AccessSet {
    let mut set = AccessSet::labelled(label.as_str());
    set.push(AccessTerm { id: pair_access_id(R::ID), name: R::NAME, kind, resource: false });
    set
}

/// The runtime-access key of `relationship`'s pair values: a pseudo-entity with
/// the relationship's index and the largest generation, which no component
/// entity has (component entities are never recycled, so their generation is
/// 0). Pair columns and the component's own column are different storage, so
/// they get different keys, as in the const access sets.
#[inline]
pub(crate) fn pair_access_key(relationship: Entity) -> Entity {
    Entity::from_raw(relationship.index(), crate::query::PAIR_ACCESS_GENERATION)
}

/// `(R, *)`.
#[inline]
fn wildcard_pair(relationship: Entity) -> Id {
    Id::pair_from_indices(relationship.index(), Entity::WILDCARD.index())
}

/// The alive target of the pair at `position` of `archetype`'s type.
#[inline]
fn target_at(world: &World, archetype: &Archetype, position: u16) -> Entity {
    let id = archetype.ids()[position as usize];
    world.entity_at(id.second_index()).unwrap_or(Entity::WILDCARD)
}

/// The row targets of the pair at `position` of `archetype` if it is a union
/// id `(R, *union*)` (its column holds one target per row), else `None`.
#[inline]
fn union_targets_at(archetype: &Archetype, position: u16) -> Option<NonNull<UnionCell>> {
    let id = archetype.ids()[position as usize];
    if !is_union_id(id) {
        return None;
    }
    let column = archetype.column_map()[position as usize];
    Some(archetype.table().column(column as usize).data_ptr().cast())
}

/// The target of `row`: from the union column `targets` if there is one, else
/// the table's `target`.
///
/// # Safety
/// `targets`, when set, is the union column of the current table and `row`
/// one of its rows.
#[inline(always)]
unsafe fn row_target<R: Relationship>(targets: Option<NonNull<UnionCell>>, target: Entity, row: usize) -> Entity {
    match targets {
        // SAFETY: the union column holds an initialized target per row (caller).
        Some(targets) if R::TRAITS.union => unsafe { targets.add(row).as_ref().target },
        _ => target,
    }
}

/// The variant-th `(R, *)` position of `archetype`.
#[inline]
fn pair_position(relationship: Entity, archetype: &Archetype, variant: usize) -> Option<u16> {
    let positions = archetype.pair_positions(relationship.index());
    (variant < positions.len()).then(|| (positions.start + variant) as u16)
}

/// The indices in `archetype`'s [`Archetype::inherited`] list of the
/// `(relationship, *)` pairs it reads from prefabs and does not hold (value
/// pairs of an `inherit` relationship; none for other relationships).
#[inline]
fn inherited_pairs(relationship: Entity, archetype: &Archetype) -> impl Iterator<Item = usize> + '_ {
    archetype
        .inherited()
        .iter()
        .enumerate()
        .filter(move |(_, (id, _))| {
            id.is_pair() && id.first_index() == relationship.index() && !archetype.contains(*id)
        })
        .map(|(index, _)| index)
}

/// The variant-th `(R, *)` pair of `archetype`, those of its type first,
/// then those it inherits: a position of its type, or `ids().len() + i`
/// for the `i`-th entry of its inherited list.
#[inline]
fn pair_or_inherited_position(relationship: Entity, archetype: &Archetype, variant: usize) -> Option<u16> {
    let own = archetype.pair_positions(relationship.index());
    if variant < own.len() {
        return Some((own.start + variant) as u16);
    }
    if archetype.inherited().is_empty() {
        return None;
    }
    inherited_pairs(relationship, archetype)
        .nth(variant - own.len())
        .map(|index| (archetype.ids().len() + index) as u16)
}

/// The inherited pair a cache of [`pair_or_inherited_position`] names, with
/// the base holding it, if it names one (rather than a position of the type).
#[inline]
fn inherited_pair_at(archetype: &Archetype, position: u16) -> Option<(Id, Entity)> {
    let index = (position as usize).checked_sub(archetype.ids().len())?;
    archetype.inherited().get(index).copied()
}

/// How many `(R, *)` pairs `archetype` holds.
#[inline]
fn owned_pair_count(relationship: Entity, archetype: &Archetype) -> usize {
    archetype.pair_positions(relationship.index()).len()
}

/// How many `(R, *)` pairs `archetype` holds or reads from prefabs.
#[inline]
fn owned_or_inherited_count(relationship: Entity, archetype: &Archetype) -> usize {
    let inherited = if archetype.inherited().is_empty() { 0 } else { inherited_pairs(relationship, archetype).count() };
    owned_pair_count(relationship, archetype) + inherited
}

/// The matching methods shared by the `(R, *)` terms: state = `R`'s id, cache =
/// the position of the matched pair, one variant per pair. With `inherited`,
/// the pairs the archetype reads from prefabs are variants too, after its
/// own (read-only terms: a base's value is never handed out mutably).
macro_rules! pair_matching {
    (inherited) => {
        pair_matching!(pair_or_inherited_position, owned_or_inherited_count);
    };
    () => {
        pair_matching!(pair_position, owned_pair_count);
    };
    ($position:ident, $count:ident) => {
        fn required_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
            ids(wildcard_pair(*state));
        }
        #[inline]
        fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<u16> {
            $position(*state, archetype, 0)
        }
        #[inline]
        fn variant_count(state: &Entity, archetype: &Archetype) -> usize {
            $count(*state, archetype)
        }
        #[inline]
        fn match_variant(state: &Entity, archetype: &Archetype, variant: usize) -> Option<u16> {
            $position(*state, archetype, variant)
        }
    };
}

/// A relationship query term: `Pair<R>` yields the target of each `(R, *)`
/// pair, `Pair<&R>` the target and the pair's value, `Pair<&mut R>` the target
/// and a [`Mut`] of the value. One row per matching pair.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Relationship)]
/// struct Likes;
/// #[derive(Relationship)]
/// struct Eats { amount: u32 }
/// let mut world = World::new();
/// let (alice, bob, carol, apples) =
///     (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
/// world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
/// world.insert_pair(alice, Eats { amount: 2 }, apples);
/// let mut likes = world.query::<(Entity, Pair<Likes>)>();
/// assert_eq!(likes.iter(&world).collect::<Vec<_>>(), vec![(alice, bob), (alice, carol)]);
/// let mut eats = world.query::<Pair<&mut Eats>>();
/// for (_food, mut eats) in eats.iter_mut(&mut world) {
///     eats.amount += 1;
/// }
/// assert_eq!(world.get_pair::<Eats>(alice, apples).unwrap().amount, 3);
/// ```
pub struct Pair<T>(PhantomData<T>);

/// What `Pair<T>` means for each `T`: `#[derive(Relationship)]` implements it
/// for `R` itself (targets only); `&R` and `&mut R` are implemented here.
pub trait PairTerm {
    /// The query term `Pair<T>` stands for.
    type Term: QueryData;
    /// The read-only form (`&mut R` becomes `&R`).
    type ReadOnly: PairTerm<Term = <Self::Term as QueryData>::ReadOnly, ReadOnly = Self::ReadOnly>;
}

impl<R: Relationship> PairTerm for &R {
    type Term = PairRef<R>;
    type ReadOnly = Self;
}

impl<'a, R: Relationship> PairTerm for &'a mut R {
    type Term = PairMut<R>;
    type ReadOnly = &'a R;
}

// SAFETY: forwards every method to `T::Term`, which upholds the contract.
unsafe impl<T: PairTerm> WorldQuery for Pair<T> {
    type Item<'w> = <T::Term as WorldQuery>::Item<'w>;
    type Fetch<'w> = <T::Term as WorldQuery>::Fetch<'w>;
    type State = <T::Term as WorldQuery>::State;
    type Cache = <T::Term as WorldQuery>::Cache;
    const IS_DENSE: bool = <T::Term as WorldQuery>::IS_DENSE;
    const ACCESS: AccessSet = <T::Term as WorldQuery>::ACCESS;

    fn init_state(world: &mut World) -> Self::State {
        T::Term::init_state(world)
    }
    fn update_access(state: &Self::State, access: &mut QueryAccess) {
        T::Term::update_access(state, access);
    }
    fn required_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
        T::Term::required_ids(state, ids);
    }
    fn mentioned_ids(state: &Self::State, ids: &mut impl FnMut(Id)) {
        T::Term::mentioned_ids(state, ids);
    }
    #[inline]
    fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::Cache> {
        T::Term::match_archetype(state, archetype)
    }
    #[inline]
    fn variant_count(state: &Self::State, archetype: &Archetype) -> usize {
        T::Term::variant_count(state, archetype)
    }
    #[inline]
    fn match_variant(state: &Self::State, archetype: &Archetype, variant: usize) -> Option<Self::Cache> {
        T::Term::match_variant(state, archetype, variant)
    }
    fn set_source(state: &mut Self::State, component: TypeId, source: Entity) {
        T::Term::set_source(state, component, source);
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &Self::State, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
        T::Term::init_fetch(world, state, last_run, this_run)
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &Self::Cache, archetype: &'w Archetype) {
        // SAFETY: forwarded to the caller.
        unsafe { T::Term::set_archetype(fetch, cache, archetype) }
    }
    #[inline]
    unsafe fn matches_row(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
        // SAFETY: forwarded to the caller.
        unsafe { T::Term::matches_row(fetch, entity, row) }
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
        // SAFETY: forwarded to the caller.
        unsafe { T::Term::fetch(fetch, entity, row) }
    }
}

// SAFETY: the read-only form forwards to the read-only form of the term.
unsafe impl<T: PairTerm> QueryData for Pair<T> {
    type ReadOnly = Pair<T::ReadOnly>;
}
// SAFETY: a term that is its own read-only form never writes.
unsafe impl<T: PairTerm<ReadOnly = T>> ReadOnlyQueryData for Pair<T> {}

/// The term behind `Pair<R>`: the target of each `(R, *)` pair.
pub struct PairTarget<R>(PhantomData<R>);

/// The fetch of [`PairTarget`]: the target of the current table's pair.
#[derive(Clone)]
pub struct TargetFetch<'w> {
    world: &'w World,
    target: Entity,
    /// The union column of the current table (a union relationship's rows
    /// each have their own target).
    union_targets: Option<NonNull<UnionCell>>,
}

// SAFETY: reads only archetype types and the entity index.
unsafe impl<R: Relationship> WorldQuery for PairTarget<R> {
    type Item<'w> = Entity;
    type Fetch<'w> = TargetFetch<'w>;
    type State = Entity;
    type Cache = u16;
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet = pair_access::<R>(AccessKind::With, Label::new().with("Pair<").with(R::NAME).with(">"));

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<R>()
    }
    fn update_access(_state: &Entity, _access: &mut QueryAccess) {}
    pair_matching!(inherited);
    #[inline]
    fn init_fetch<'w>(world: &'w World, _state: &Entity, _last_run: Tick, _this_run: Tick) -> TargetFetch<'w> {
        TargetFetch { world, target: Entity::WILDCARD, union_targets: None }
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut TargetFetch<'w>, cache: &u16, archetype: &'w Archetype) {
        if let Some((id, _)) = inherited_pair_at(archetype, *cache) {
            fetch.target = fetch.world.entity_at(id.second_index()).unwrap_or(Entity::WILDCARD);
            fetch.union_targets = None;
            return;
        }
        fetch.target = target_at(fetch.world, archetype, *cache);
        if R::TRAITS.union {
            fetch.union_targets = union_targets_at(archetype, *cache);
        }
    }
    #[inline]
    unsafe fn matches_row(_fetch: &TargetFetch<'_>, _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, _entity: Entity, row: usize) -> Self::Item<'w> {
        // SAFETY: `union_targets` was set for the current table, `row` is its.
        unsafe { row_target::<R>(fetch.union_targets, fetch.target, row) }
    }
}

// SAFETY: read-only.
unsafe impl<R: Relationship> QueryData for PairTarget<R> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<R: Relationship> ReadOnlyQueryData for PairTarget<R> {}

/// The term behind `Pair<&R>`: the target and value of each `(R, *)` pair.
pub struct PairRef<R>(PhantomData<R>);

/// The fetch of [`PairRef`]: the current pair's target and column (or, for
/// a pair the table inherits, the base's one value).
pub struct PairRefFetch<'w, R> {
    world: &'w World,
    target: Entity,
    column: NonNull<R>,
    /// `column` is a base's value, the same for every row.
    shared: bool,
    union_targets: Option<NonNull<UnionCell>>,
}

impl<R> Clone for PairRefFetch<'_, R> {
    fn clone(&self) -> Self {
        PairRefFetch { ..*self }
    }
}

/// The address of `base`'s own value of the pair `id`, which a matched table
/// inherits (a dangling, aligned one for a zero-sized value).
///
/// # Panics
/// Panics if `base` no longer holds the pair: query caches rebuild when a
/// base moves or dies, so a matched base always holds it.
fn inherited_pair_value<R>(world: &World, id: Id, base: Entity) -> NonNull<R> {
    match world.id_value(base, id) {
        Some((value, _)) => value.cast(),
        None if size_of::<R>() == 0 && world.owns_id(base, id) => NonNull::dangling(),
        None => panic!("base {base:?} of a matched table no longer holds the pair {id:?}"),
    }
}

/// The start of column `column` of `archetype` (dangling for tag pairs and
/// for a union id, whose column holds targets, not values).
#[inline]
fn pair_column<R>(archetype: &Archetype, position: u16) -> (NonNull<R>, i32) {
    let column = archetype.column_map()[position as usize];
    let column = if is_union_id(archetype.ids()[position as usize]) { -1 } else { column };
    let start =
        if column >= 0 { archetype.table().column(column as usize).data_ptr().cast() } else { NonNull::dangling() };
    (start, column)
}

// SAFETY: reads the pair columns of `R` only (declared as reads of `R`).
unsafe impl<R: Relationship> WorldQuery for PairRef<R> {
    type Item<'w> = (Entity, &'w R);
    type Fetch<'w> = PairRefFetch<'w, R>;
    type State = Entity;
    type Cache = u16;
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet = pair_access::<R>(AccessKind::Read, Label::new().with("Pair<&").with(R::NAME).with(">"));

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<R>()
    }
    fn update_access(state: &Entity, access: &mut QueryAccess) {
        access.add_read(pair_access_key(*state));
    }
    pair_matching!(inherited);
    #[inline]
    fn init_fetch<'w>(world: &'w World, _state: &Entity, _last_run: Tick, _this_run: Tick) -> Self::Fetch<'w> {
        PairRefFetch {
            world,
            target: Entity::WILDCARD,
            column: NonNull::dangling(),
            shared: false,
            union_targets: None,
        }
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &u16, archetype: &'w Archetype) {
        if let Some((id, base)) = inherited_pair_at(archetype, *cache) {
            fetch.target = fetch.world.entity_at(id.second_index()).unwrap_or(Entity::WILDCARD);
            fetch.column = inherited_pair_value(fetch.world, id, base);
            fetch.shared = true;
            fetch.union_targets = None;
            return;
        }
        fetch.shared = false;
        fetch.target = target_at(fetch.world, archetype, *cache);
        fetch.column = pair_column::<R>(archetype, *cache).0;
        if R::TRAITS.union {
            fetch.union_targets = union_targets_at(archetype, *cache);
        }
    }
    #[inline]
    unsafe fn matches_row(_fetch: &Self::Fetch<'_>, _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, _entity: Entity, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is a row of the current table, whose pair column stores `R`
        // (or `R` is zero-sized and the pointer dangling but aligned), or the
        // column is a base's one value (`shared`); the union column, if any, is
        // the current table's.
        unsafe {
            let value = if fetch.shared { fetch.column } else { fetch.column.add(row) };
            (row_target::<R>(fetch.union_targets, fetch.target, row), value.as_ref())
        }
    }
}

// SAFETY: read-only.
unsafe impl<R: Relationship> QueryData for PairRef<R> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<R: Relationship> ReadOnlyQueryData for PairRef<R> {}

/// The term behind `Pair<&mut R>`: the target and a [`Mut`] of each `(R, *)`
/// pair's value.
pub struct PairMut<R>(PhantomData<R>);

/// The fetch of [`PairMut`].
pub struct PairMutFetch<'w, R> {
    world: &'w World,
    target: Entity,
    column: NonNull<R>,
    added: NonNull<TickCell>,
    changed: NonNull<TickCell>,
    has_ticks: bool,
    union_targets: Option<NonNull<UnionCell>>,
    last_run: Tick,
    this_run: Tick,
}

impl<R> Clone for PairMutFetch<'_, R> {
    fn clone(&self) -> Self {
        PairMutFetch { ..*self }
    }
}

// SAFETY: writes the pair columns of `R` only (declared as writes of `R`); each
// (row, pair) is handed out once per iteration: variants are distinct pairs,
// hence distinct columns.
unsafe impl<R: Relationship> WorldQuery for PairMut<R> {
    type Item<'w> = (Entity, Mut<'w, R>);
    type Fetch<'w> = PairMutFetch<'w, R>;
    type State = Entity;
    type Cache = u16;
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet =
        pair_access::<R>(AccessKind::Write, Label::new().with("Pair<&mut ").with(R::NAME).with(">"));

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<R>()
    }
    fn update_access(state: &Entity, access: &mut QueryAccess) {
        access.add_write(pair_access_key(*state));
    }
    pair_matching!();
    #[inline]
    fn init_fetch<'w>(world: &'w World, _state: &Entity, last_run: Tick, this_run: Tick) -> Self::Fetch<'w> {
        PairMutFetch {
            world,
            target: Entity::WILDCARD,
            column: NonNull::dangling(),
            added: NonNull::dangling(),
            changed: NonNull::dangling(),
            has_ticks: false,
            union_targets: None,
            last_run,
            this_run,
        }
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, cache: &u16, archetype: &'w Archetype) {
        fetch.target = target_at(fetch.world, archetype, *cache);
        let (start, column) = pair_column::<R>(archetype, *cache);
        fetch.column = start;
        fetch.has_ticks = column >= 0;
        if R::TRAITS.union {
            fetch.union_targets = union_targets_at(archetype, *cache);
        }
        if column >= 0 {
            let column = archetype.table().column(column as usize);
            fetch.added = column.added_ptr();
            fetch.changed = column.changed_ptr();
        }
    }
    #[inline]
    unsafe fn matches_row(_fetch: &Self::Fetch<'_>, _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, _entity: Entity, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is a row of the current table whose pair column stores `R`;
        // the query has exclusive access to `R`'s pairs and hands this (row, pair)
        // out once, so the `&mut` and the tick cell are unique.
        unsafe {
            let value = fetch.column.add(row).as_mut();
            // Only zero-sized (tag) relationships have no column, and only those
            // without change detection a column without ticks.
            let item = if R::CHANGE_DETECTION && (size_of::<R>() != 0 || fetch.has_ticks) {
                let added = fetch.added.add(row).as_ref().get();
                Mut::new(value, added, Some(fetch.changed.add(row).as_ref()), fetch.last_run, fetch.this_run)
            } else {
                Mut::new(value, Tick::default(), None, fetch.last_run, fetch.this_run)
            };
            (row_target::<R>(fetch.union_targets, fetch.target, row), item)
        }
    }
}

// SAFETY: `PairRef<R>` reads the same pairs.
unsafe impl<R: Relationship> QueryData for PairMut<R> {
    type ReadOnly = PairRef<R>;
}

/// Selects entities with at least one `(R, *)` pair (one row per entity,
/// whatever the number of pairs), its own or a value pair it reads from a
/// prefab (an `inherit` relationship's).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let mut world = World::new();
/// let parent = world.spawn_empty().id();
/// let child = world.spawn_empty().id();
/// world.add_pair::<ChildOf>(child, parent);
/// let mut q = world.query_filtered::<Entity, WithPair<ChildOf>>();
/// assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![child]);
/// ```
pub struct WithPair<R>(PhantomData<R>);

// SAFETY: reads only archetype types.
unsafe impl<R: Relationship> WorldQuery for WithPair<R> {
    type Item<'w> = ();
    type Fetch<'w> = ();
    type State = Entity;
    type Cache = ();
    const IS_DENSE: bool = true;
    const ACCESS: AccessSet =
        pair_access::<R>(AccessKind::With, Label::new().with("WithPair<").with(R::NAME).with(">"));

    fn init_state(world: &mut World) -> Entity {
        world.register_component::<R>()
    }
    fn update_access(_state: &Entity, _access: &mut QueryAccess) {}
    fn required_ids(state: &Entity, ids: &mut impl FnMut(Id)) {
        ids(wildcard_pair(*state));
    }
    #[inline]
    fn match_archetype(state: &Entity, archetype: &Archetype) -> Option<()> {
        pair_or_inherited_position(*state, archetype, 0).map(|_| ())
    }
    #[inline]
    fn init_fetch(_world: &World, _state: &Entity, _last_run: Tick, _this_run: Tick) {}
    #[inline]
    unsafe fn set_archetype(_fetch: &mut (), _cache: &(), _archetype: &Archetype) {}
    #[inline]
    unsafe fn matches_row(_fetch: &(), _entity: Entity, _row: usize) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch<'w>(_fetch: &mut Self::Fetch<'w>, _entity: Entity, _row: usize) -> Self::Item<'w> {}
}

// SAFETY: never writes.
unsafe impl<R: Relationship> QueryFilter for WithPair<R> {}

/// Where a component of some other entity (an ancestor, a fixed source) lives.
fn component_of<T: Component>(world: &World, component: Entity, entity: Entity) -> Option<NonNull<T>> {
    match T::STORAGE {
        StorageKind::Table => {
            let location = world.entities().location(entity)?;
            let archetype = &world.archetypes()[location.archetype];
            // A disabled toggleable value counts as absent (`Up` goes on to
            // the next ancestor, `Fixed` does not match).
            if T::TOGGLE && !world.is_enabled::<T>(entity) {
                return None;
            }
            // A value the entity inherits from a prefab through `IsA` is read
            // as `&T` reads it (the read of `T` on any entity is declared).
            let inherited = || {
                archetype.inherited_from(component.id()).filter(|_| {
                    world.component_info(component).is_some_and(crate::component::ComponentInfo::is_inherited)
                })
            };
            if size_of::<T>() == 0 {
                return (archetype.contains(component.id()) || inherited().is_some()).then(NonNull::dangling);
            }
            let Some(column) = archetype.column_of(component.id()) else {
                return component_of::<T>(world, component, inherited()?);
            };
            let column = archetype.table().column(column);
            // SAFETY: `row` is the entity's row, below the table's length.
            Some(unsafe { column.get_ptr(location.row as usize) }.cast())
        }
        StorageKind::Sparse => {
            let set = world.sparse_sets().of(component)?;
            // Or the value it inherits from a prefab, as `&T` reads it.
            let inherited = || {
                let location = world.entities().location(entity)?;
                set.get(world.sparse_base_of(&world.archetypes()[location.archetype], component)?)
            };
            let value = set.get(entity);
            let value = if crate::component::is_inherited_sparse::<T>() { value.or_else(inherited) } else { value };
            value.map(NonNull::cast)
        }
    }
}

/// `T` of the nearest ancestor of the entity along the traversable relationship
/// `R` (the entity itself excluded): its `(R, p)` target `p` if `p` has `T`
/// (its own, or one it inherits from a prefab through `IsA`, as `&T` reads
/// it), else `p`'s own target, and so on. With several `(R, *)` targets (a
/// relationship that is not exclusive) the walk is depth-first in type
/// order, as Flecs searches: a target and what lies beyond it before the
/// next target. Entities whose ancestors lack `T` (or that have no `(R, *)`
/// pair) do not match.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// let mut world = World::new();
/// let root = world.spawn(Position(10.0)).id();
/// let middle = world.spawn_empty().id();
/// let leaf = world.spawn(Position(1.0)).id();
/// world.add_pair::<ChildOf>(middle, root);
/// world.add_pair::<ChildOf>(leaf, middle);
/// let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
/// let mut rows: Vec<_> = q.iter(&world).map(|(e, p)| (e, p.0)).collect();
/// rows.sort_by_key(|row| row.0);
/// assert_eq!(rows, vec![(middle, 10.0), (leaf, 10.0)]);
/// ```
pub struct Up<R, Q>(PhantomData<(R, Q)>);

/// The fetch of [`Up`]: the ancestor's value for the current table, or, in a
/// table holding a union relationship's pair (targets differ per row), the
/// value found for the last parent asked about.
pub struct UpFetch<'w, T> {
    world: &'w World,
    relationship: Entity,
    component: Entity,
    value: Option<NonNull<T>>,
    /// The current table's union column (its rows' targets) when its rows
    /// are resolved one by one.
    union_targets: Option<NonNull<UnionCell>>,
    /// The last parent resolved and what it gave: siblings share it.
    last_parent: Cell<Option<(Entity, Option<NonNull<T>>)>>,
}

impl<T> Clone for UpFetch<'_, T> {
    fn clone(&self) -> Self {
        UpFetch { last_parent: Cell::new(self.last_parent.get()), ..*self }
    }
}

impl<T: Component> UpFetch<'_, T> {
    /// The ancestor's value for `row` of the current table.
    ///
    /// # Safety
    /// `row` is a row of the current table.
    #[inline]
    unsafe fn value_at(&self, row: usize) -> Option<NonNull<T>> {
        let Some(targets) = self.union_targets else { return self.value };
        // SAFETY: the union column holds an initialized target per row, and
        // `row` is a row of its table (caller).
        let parent = unsafe { targets.add(row).as_ref().target };
        if let Some((cached, value)) = self.last_parent.get()
            && cached == parent
        {
            return value;
        }
        // The parent's own value, else what lies above it (a union is
        // exclusive: one chain).
        let value = component_of::<T>(self.world, self.component, parent).or_else(|| {
            let location = self.world.entities().location(parent)?;
            let archetype = &self.world.archetypes()[location.archetype];
            find_up_with_source::<T>(
                self.world,
                self.relationship,
                self.component,
                archetype,
                Some(location.row as usize),
            )
            .map(|(_, value)| value)
        });
        self.last_parent.set(Some((parent, value)));
        value
    }
}

/// [`find_up_with_source`]'s value.
fn find_up<T: Component>(
    world: &World,
    relationship: Entity,
    component: Entity,
    archetype: &Archetype,
) -> Option<NonNull<T>> {
    find_up_with_source(world, relationship, component, archetype, None).map(|(_, value)| value)
}

/// The nearest ancestor's `T` along `relationship`, with the ancestor it was
/// found on: depth-first over `archetype`'s `(relationship, *)` targets in
/// type order (`IsA` bases in the order they were added). Each entity is
/// visited once, so a cycle (in a relationship that allows them) ends. A
/// union relationship's target is `row`'s (`None`: no ancestor through it;
/// see [`World::holds_union_of`]).
pub(super) fn find_up_with_source<T: Component>(
    world: &World,
    relationship: Entity,
    component: Entity,
    archetype: &Archetype,
    row: Option<usize>,
) -> Option<(Entity, NonNull<T>)> {
    if !world.found_up(relationship, component.id()) {
        return None;
    }
    world.find_up(archetype, row, relationship, |current| {
        component_of::<T>(world, component, current).map(|value| (current, value))
    })
}

// SAFETY: reads `T` on other entities (declared as `ReadOther` / `add_read_other`,
// so no filter makes it disjoint from a writer of `T`); items are shared references.
unsafe impl<R: Relationship, T: Component> WorldQuery for Up<R, &T> {
    type Item<'w> = &'w T;
    type Fetch<'w> = UpFetch<'w, T>;
    type State = (Entity, Entity);
    type Cache = ();
    const IS_DENSE: bool = false;
    const ACCESS: AccessSet = {
        let label = Label::new().with("Up<").with(R::NAME).with(", &").with(T::NAME).with(">");
        let mut set = AccessSet::labelled(label.as_str());
        set.push(AccessTerm { id: T::ID, name: T::NAME, kind: AccessKind::ReadOther, resource: false });
        set
    };

    fn init_state(world: &mut World) -> (Entity, Entity) {
        (world.register_component::<R>(), world.register_component::<T>())
    }
    fn update_access(state: &(Entity, Entity), access: &mut QueryAccess) {
        access.add_read_other(state.1);
    }
    fn required_ids(state: &(Entity, Entity), ids: &mut impl FnMut(Id)) {
        ids(wildcard_pair(state.0));
    }
    #[inline]
    fn match_archetype(state: &(Entity, Entity), archetype: &Archetype) -> Option<()> {
        (!archetype.pair_positions(state.0.index()).is_empty()).then_some(())
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &(Entity, Entity), _last_run: Tick, _this_run: Tick) -> Self::Fetch<'w> {
        UpFetch {
            world,
            relationship: state.0,
            component: state.1,
            value: None,
            union_targets: None,
            last_parent: Cell::new(None),
        }
    }
    #[inline]
    unsafe fn set_archetype<'w>(fetch: &mut Self::Fetch<'w>, _cache: &(), archetype: &'w Archetype) {
        fetch.last_parent.set(None);
        // Only a union relationship's pair can differ per row (no search otherwise).
        let union_position = if R::TRAITS.union {
            archetype.pair_positions(fetch.relationship.index()).next().filter(|&p| is_union_id(archetype.ids()[p]))
        } else {
            None
        };
        match union_position {
            Some(position) => {
                // A union pair: each row has its own parent, so its own ancestor.
                fetch.union_targets = union_targets_at(archetype, position as u16);
                fetch.value = None;
            }
            None => {
                fetch.union_targets = None;
                fetch.value = find_up::<T>(fetch.world, fetch.relationship, fetch.component, archetype);
            }
        }
    }
    #[inline]
    unsafe fn matches_row(fetch: &Self::Fetch<'_>, _entity: Entity, row: usize) -> bool {
        // SAFETY: `row` is a row of the current table (caller).
        unsafe { fetch.value_at(row) }.is_some()
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut Self::Fetch<'w>, _entity: Entity, row: usize) -> &'w T {
        // SAFETY: `matches_row` checked the ancestor's value exists; it lives in
        // the world borrowed for `'w`, and the query only reads `T`; `row` is
        // a row of the current table.
        unsafe { crate::util::debug_unwrap(fetch.value_at(row)).as_ref() }
    }
}

// SAFETY: read-only.
unsafe impl<R: Relationship, T: Component> QueryData for Up<R, &T> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<R: Relationship, T: Component> ReadOnlyQueryData for Up<R, &T> {}

/// `T` of one fixed entity, the same for every row (a multi-source query, like
/// Flecs' `$this` plus a fixed `src`). The entity is given to the query with
/// [`QueryState::with_source`](crate::query::QueryState::with_source); until
/// then, or while it lacks `T`, the query matches nothing.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Velocity(f32);
/// #[derive(Component)]
/// struct Gravity(f32);
/// let mut world = World::new();
/// let settings = world.spawn(Gravity(-9.8)).id();
/// world.spawn(Velocity(0.0));
/// let mut q = world.query::<(&mut Velocity, Fixed<&Gravity>)>().with_source::<Gravity>(settings);
/// for (mut velocity, gravity) in q.iter_mut(&mut world) {
///     velocity.0 += gravity.0;
/// }
/// assert_eq!(q.iter(&world).next().unwrap().0 .0, -9.8);
/// ```
pub struct Fixed<Q>(PhantomData<Q>);

/// The state of [`Fixed`]: the component and the source entity (once given).
#[derive(Clone, Copy, Debug)]
pub struct FixedState {
    component: Entity,
    type_id: TypeId,
    source: Option<Entity>,
}

/// The fetch of [`Fixed`]: the source's value.
pub struct FixedFetch<T> {
    value: Option<NonNull<T>>,
}

impl<T> Clone for FixedFetch<T> {
    fn clone(&self) -> Self {
        FixedFetch { value: self.value }
    }
}

// SAFETY: reads `T` of one other entity (declared as `ReadOther` / `add_read_other`,
// so no filter makes it disjoint from a writer of `T`); items are shared references.
unsafe impl<T: Component> WorldQuery for Fixed<&T> {
    type Item<'w> = &'w T;
    type Fetch<'w> = FixedFetch<T>;
    type State = FixedState;
    type Cache = ();
    const IS_DENSE: bool = false;
    const ACCESS: AccessSet = AccessSet::component::<T>(AccessKind::ReadOther, "Fixed<&", ">");

    fn init_state(world: &mut World) -> FixedState {
        FixedState { component: world.register_component::<T>(), type_id: TypeId::of::<T>(), source: None }
    }
    fn update_access(state: &FixedState, access: &mut QueryAccess) {
        access.add_read_other(state.component);
    }
    fn required_ids(_state: &FixedState, _ids: &mut impl FnMut(Id)) {}
    #[inline]
    fn match_archetype(_state: &FixedState, _archetype: &Archetype) -> Option<()> {
        Some(())
    }
    fn set_source(state: &mut FixedState, component: TypeId, source: Entity) {
        if state.type_id == component {
            state.source = Some(source);
        }
    }
    #[inline]
    fn init_fetch<'w>(world: &'w World, state: &FixedState, _last_run: Tick, _this_run: Tick) -> Self::Fetch<'w> {
        let value = state.source.and_then(|source| component_of::<T>(world, state.component, source));
        FixedFetch { value }
    }
    #[inline]
    unsafe fn set_archetype<'w>(_fetch: &mut Self::Fetch<'w>, _cache: &(), _archetype: &'w Archetype) {}
    #[inline]
    unsafe fn matches_row(fetch: &FixedFetch<T>, _entity: Entity, _row: usize) -> bool {
        fetch.value.is_some()
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &mut FixedFetch<T>, _entity: Entity, _row: usize) -> &'w T {
        // SAFETY: `matches_row` checked the source has the value; it lives in the
        // world borrowed for `'w` (the fetch was built from it), read-only.
        unsafe { crate::util::debug_unwrap(fetch.value).as_ref() }
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> QueryData for Fixed<&T> {
    type ReadOnly = Self;
}
// SAFETY: never writes.
unsafe impl<T: Component> ReadOnlyQueryData for Fixed<&T> {}

/// Relationship builders of [`QueryState`].
impl<D: QueryData, F: crate::query::QueryFilter> QueryState<D, F> {
    /// Adds a required pair `(R, target)` with a target known only at run time.
    /// Checked again at every iteration: if `target` dies, nothing matches.
    /// [`Entity::WILDCARD`] (or [`Entity::ANY`]) as `target` requires any
    /// `(R, *)` pair: a filter, one row per entity (unlike the `Pair<R>` term,
    /// which yields one row per pair). For a transitive `R` (`IsA`,
    /// `#[relationship(transitive)]`) an entity matches when its chain of `R`
    /// targets reaches `target` (instances of variants of a prefab, a person
    /// in a city in a country). `IsA` is also reflexive (API.md: `(IsA, B)`
    /// matches `B` and whatever inherits from `B`, as the runtime term does):
    /// `target` itself matches, as far as the query's other terms and filters
    /// allow (a prefab only when the query names `Prefab`). Other transitive
    /// relationships are not reflexive.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let fan = world.spawn(Position(1.0)).id();
    /// world.add_pair::<Likes>(fan, bob);
    /// let other = world.spawn(Position(2.0)).add_pair::<Likes>(carol).id();
    /// let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(bob);
    /// assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![fan]);
    /// let mut any = world.query::<(Entity, &Position)>().with_pair::<Likes>(Entity::WILDCARD);
    /// assert_eq!(any.iter(&world).count(), 2);
    /// # let _ = other;
    /// ```
    pub fn with_pair<R: Relationship>(self, target: Entity) -> Self {
        self.require_runtime_pair(World::component_id::<R>, target)
    }

    /// Iterates parents before children: tables are visited breadth-first by the
    /// depth of their entities along the relationship `R` (entities without an
    /// `(R, *)` pair first). Meant for exclusive relationships such as
    /// `ChildOf`, where all entities of a table share their parent.
    ///
    /// A union relationship (`#[relationship(union)]`) is refused at compile
    /// time: its rows in one table have different parents, so no order of
    /// tables puts parents first ([`QueryState::propagate`] orders rows and
    /// takes unions).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Level(u32);
    /// let mut world = World::new();
    /// let root = world.spawn(Level(0)).id();
    /// let child = world.spawn(Level(1)).id();
    /// let grandchild = world.spawn(Level(2)).id();
    /// world.add_pair::<ChildOf>(grandchild, child);
    /// world.add_pair::<ChildOf>(child, root);
    /// let mut q = world.query::<&Level>().cascade::<ChildOf>();
    /// assert_eq!(q.iter(&world).map(|l| l.0).collect::<Vec<_>>(), vec![0, 1, 2]);
    /// ```
    pub fn cascade<R: Relationship>(self) -> Self {
        const {
            assert!(
                !R::TRAITS.union,
                "cascade::<R>() orders tables, and a union relationship's rows in one table have different \
                 parents: use propagate::<R, T>(), which orders rows"
            );
        }
        self.order_by(World::component_id::<R>)
    }
}
