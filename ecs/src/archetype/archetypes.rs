//! [`Archetype`] and the world's archetype store [`Archetypes`] (graph + index).

use core::ops::Index;

use smallvec::SmallVec;

use super::component_index::ComponentIndex;
use super::graph::Edges;
use super::inheritance::Inheritance;
use crate::component::{Components, StorageKind};
use crate::entity::{ArchetypeId, Entity, EntityIndex, EntityLocation, Id};
use crate::storage::{Column, Table};
use crate::util::{FxHashMap, PanicSlot};

/// The sorted ids of an archetype.
pub type ArchetypeType = SmallVec<[Id; 8]>;

/// Properties of an archetype that queries and moves test without looking at ids.
///
/// # Examples
/// ```
/// use ecs::archetype::ArchetypeFlags;
/// assert!(!ArchetypeFlags::default().contains(ArchetypeFlags::INTERNAL));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct ArchetypeFlags(u32);

impl ArchetypeFlags {
    /// The archetype holds internal entities (components, wildcards, observers): queries
    /// skip it unless they name an id only internal entities carry.
    pub const INTERNAL: ArchetypeFlags = ArchetypeFlags(1);
    /// The archetype was deleted because its type names a despawned entity: it
    /// is empty and in no index or cache. Its slot (id) is reused by the next
    /// archetype created.
    pub const DEAD: ArchetypeFlags = ArchetypeFlags(1 << 1);
    /// A component of the archetype has hooks: despawning its entities runs
    /// them (archetypes without the flag skip that work).
    pub const HAS_HOOKS: ArchetypeFlags = ArchetypeFlags(1 << 2);

    /// The archetype holds disabled entities (the built-in `Disabled` tag):
    /// queries skip it unless they name `Disabled`.
    pub const DISABLED: ArchetypeFlags = ArchetypeFlags(1 << 3);
    /// The archetype holds prefabs (the built-in `Prefab` tag): queries skip
    /// it unless they name `Prefab`.
    pub const PREFAB: ArchetypeFlags = ArchetypeFlags(1 << 4);
    /// The archetype holds the pair of a union relationship (`(R, *union*)`,
    /// see [`crate::entity::Entity::UNION`]): moving a row out of it may
    /// change the world's index of union holders (archetypes without the flag
    /// skip that work).
    pub const HAS_UNION: ArchetypeFlags = ArchetypeFlags(1 << 5);
    /// A pair of the archetype belongs to a relationship with hooks (which
    /// run for its pairs): moves that drop a pair and despawns report pairs
    /// (archetypes without the flag skip that work). Implies
    /// [`HAS_HOOKS`](Self::HAS_HOOKS).
    pub const HAS_PAIR_HOOKS: ArchetypeFlags = ArchetypeFlags(1 << 6);
    /// The flags that hide an archetype from queries that do not name their
    /// marker: [`INTERNAL`](Self::INTERNAL), [`DISABLED`](Self::DISABLED),
    /// [`PREFAB`](Self::PREFAB).
    pub const HIDDEN: ArchetypeFlags = ArchetypeFlags(1 | 1 << 3 | 1 << 4);
    /// The hiding flags a query lifts by naming their marker in any term,
    /// required or not ([`DISABLED`](Self::DISABLED) and
    /// [`PREFAB`](Self::PREFAB): `Has<Disabled>`, `?Prefab`, as in Bevy and
    /// Flecs); [`INTERNAL`](Self::INTERNAL) is lifted only by a required term.
    pub const SHOWN_WHEN_NAMED: ArchetypeFlags = ArchetypeFlags(Self::DISABLED.0 | Self::PREFAB.0);
    /// No flag.
    pub const NONE: ArchetypeFlags = ArchetypeFlags(0);

    /// Whether every flag of `other` is set.
    #[inline]
    pub const fn contains(self, other: ArchetypeFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The flags set in `self` or in `other`.
    #[inline]
    pub const fn union(self, other: ArchetypeFlags) -> ArchetypeFlags {
        ArchetypeFlags(self.0 | other.0)
    }

    /// The flags set in both `self` and `other`.
    ///
    /// # Examples
    /// ```
    /// use ecs::archetype::ArchetypeFlags;
    /// let both = ArchetypeFlags::DISABLED.union(ArchetypeFlags::INTERNAL);
    /// assert_eq!(both.intersection(ArchetypeFlags::SHOWN_WHEN_NAMED), ArchetypeFlags::DISABLED);
    /// ```
    #[inline]
    pub const fn intersection(self, other: ArchetypeFlags) -> ArchetypeFlags {
        ArchetypeFlags(self.0 & other.0)
    }

    /// Whether an archetype with these flags is hidden from a query that
    /// names the markers of the hiding flags in `allowed` (see
    /// [`Archetypes::hiding_flags`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::archetype::ArchetypeFlags;
    /// let disabled = ArchetypeFlags::DISABLED;
    /// assert!(disabled.hidden_unless(ArchetypeFlags::NONE));
    /// assert!(!disabled.hidden_unless(ArchetypeFlags::DISABLED));
    /// assert!(!ArchetypeFlags::NONE.hidden_unless(ArchetypeFlags::NONE));
    /// ```
    #[inline]
    pub const fn hidden_unless(self, allowed: ArchetypeFlags) -> bool {
        self.0 & ArchetypeFlags::HIDDEN.0 & !allowed.0 != 0
    }
}

/// How to drop one zero-sized value: its drop fn and its alignment.
type TagDropFn = (unsafe fn(*mut u8), usize);
/// A zero-sized id whose values need dropping: `(position in type, drop fn, alignment)`.
type TagDrop = (u16, unsafe fn(*mut u8), usize);

/// An archetype: its sorted type, its table and its graph edges.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// #[component(change_detection = false)]
/// struct Enemy;
/// let mut world = World::new();
/// let e = world.spawn((Position(1.0), Enemy)).id();
/// let location = world.entities().location(e).unwrap();
/// let archetype = &world.archetypes()[location.archetype];
/// assert_eq!(archetype.ids().len(), 2);
/// assert_eq!(archetype.table().columns().len(), 1); // an untracked tag has no column
/// let enemy = world.component_id::<Enemy>().unwrap();
/// assert_eq!(archetype.column_of(enemy.id()), None);
/// assert!(archetype.contains(enemy.id()));
/// assert_eq!(archetype.entities(), &[e]);
/// ```
// Laid out in declaration order and aligned to a cache line, so the table's
// row count, entity and column pointers (what a query reads per matched table)
// share the archetype's first cache line.
#[repr(C, align(64))]
pub struct Archetype {
    table: Table,
    id: ArchetypeId,
    ids: ArchetypeType,
    columns: SmallVec<[i32; 8]>,
    tag_drops: SmallVec<[TagDrop; 1]>,
    edges: Edges,
    flags: ArchetypeFlags,
    /// Plans of id-level moves (pairs, runtime ids) out of this archetype, by
    /// destination; bundle moves cache theirs in their bundle edges.
    plans: FxHashMap<ArchetypeId, MovePlan>,
    /// The archetypes whose `plans` hold a plan into this one (so deleting it
    /// can forget them).
    plan_sources: SmallVec<[ArchetypeId; 2]>,
    /// Exclusive-replacement edges into this archetype, `(source, id)`: they have
    /// no reverse edge here, so deleting it needs this list to forget them.
    replacement_sources: SmallVec<[(ArchetypeId, Id); 1]>,
    /// Remove edges into this archetype without an add edge back, `(source,
    /// id)` (removing a base and adding it again does not return to a source
    /// whose bases were added in another order): deleting it forgets them.
    removal_sources: SmallVec<[(ArchetypeId, Id); 0]>,
    /// While the table is empty: the garbage-collection epoch
    /// ([`Archetypes::gc_epoch`]) when it became empty (or was created), so
    /// its age in collections is `epoch - empty_since`, with no per-call
    /// counter to bump. Meaningless while it has rows.
    empty_since: u32,
    /// The ids its entities inherit through `(IsA, base)` pairs, each with the
    /// base holding the value, sorted by id (see `archetype::inheritance`).
    pub(super) inherited: Vec<(Id, Entity)>,
    /// The indices of its direct bases in the order they were added, when
    /// that is not the type order; empty otherwise (see
    /// [`Archetype::base_order`]).
    base_order: BaseOrder,
}

/// The indices of an archetype's direct `IsA` bases in the order they were
/// added ([`Archetype::base_order`]).
pub(crate) type BaseOrder = SmallVec<[u32; 2]>;

impl Archetype {
    /// The archetype's id.
    #[inline]
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// The sorted ids (the archetype's type).
    #[inline]
    pub fn ids(&self) -> &[Id] {
        &self.ids
    }

    /// The entity indices of its direct bases (the targets of its `(IsA, _)`
    /// pairs) in the order its entities gained them, when that order is not
    /// the type order (the bases' ids ascending); empty when it is, or when
    /// it has fewer than two bases. With several bases, the first added wins a
    /// conflict ([`Archetype::inherited`]), so the order is part of the
    /// archetype's identity: one type may have several archetypes, one per
    /// order.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Hull(u32);
    /// let mut world = World::new();
    /// let light = world.spawn((Prefab, Hull(1))).id();
    /// let heavy = world.spawn((Prefab, Hull(2))).id();
    /// let a = world.spawn_empty().add_pair::<IsA>(light).add_pair::<IsA>(heavy).id();
    /// let b = world.spawn_empty().add_pair::<IsA>(heavy).add_pair::<IsA>(light).id();
    /// assert_eq!(world.get::<Hull>(a), Some(&Hull(1)));
    /// assert_eq!(world.get::<Hull>(b), Some(&Hull(2))); // the first added wins
    /// let archetype_of = |e| world.archetypes().iter().find(|archetype| archetype.entities().contains(&e)).unwrap();
    /// assert!(archetype_of(a).base_order().is_empty()); // the type order
    /// assert_eq!(archetype_of(b).base_order(), &[heavy.index(), light.index()]);
    /// ```
    #[inline]
    pub fn base_order(&self) -> &[u32] {
        &self.base_order
    }

    /// Column of each id position (-1: no column).
    #[inline]
    pub fn column_map(&self) -> &[i32] {
        &self.columns
    }

    /// The table of rows.
    #[inline]
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The table, mutably, for writing values in place. Adding or removing
    /// rows goes through [`Archetypes::push_row`], [`Archetypes::move_row`] and
    /// [`Archetypes::remove_row`], which keep the component index's empty and
    /// non-empty parts in step with the table.
    #[inline]
    pub(crate) fn table_mut(&mut self) -> &mut Table {
        &mut self.table
    }

    /// The cached graph edges.
    #[inline]
    pub fn edges(&self) -> &Edges {
        &self.edges
    }

    /// The flags.
    #[inline]
    pub fn flags(&self) -> ArchetypeFlags {
        self.flags
    }

    /// Number of entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the archetype has no entities.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The entities, by row.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        self.table.entities()
    }

    /// The ids the archetype's entities inherit through their `(IsA, base)`
    /// pairs, each with the base holding the value, sorted by id; empty
    /// without such pairs. The ids are every plain id of the bases (nearer
    /// bases first, then in the order they were added,
    /// [`Archetype::base_order`]); whether a component is actually read
    /// through the pair is up to its `OnInstantiate` policy.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct MaxSpeed(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    /// let fighter = world.instantiate(ship);
    /// let speed = world.component_id::<MaxSpeed>().unwrap();
    /// let archetype = &world.archetypes()[world.entity(fighter).archetype()];
    /// assert_eq!(archetype.inherited_from(speed.id()), Some(ship));
    /// assert!(!archetype.contains(speed.id()));
    /// ```
    #[inline]
    pub fn inherited(&self) -> &[(Id, Entity)] {
        &self.inherited
    }

    /// The base the archetype's entities inherit `id` from, if any (see
    /// [`Archetype::inherited`]).
    #[inline]
    pub fn inherited_from(&self, id: Id) -> Option<Entity> {
        if self.inherited.is_empty() {
            return None;
        }
        let position = self.inherited.binary_search_by_key(&id, |&(inherited, _)| inherited).ok()?;
        Some(self.inherited[position].1)
    }

    /// The position of `id` in the type.
    #[inline]
    pub fn position_of(&self, id: Id) -> Option<usize> {
        if self.ids.len() <= 8 {
            self.ids.iter().position(|&candidate| candidate == id)
        } else {
            self.ids.binary_search(&id).ok()
        }
    }

    /// Whether the type contains `id`.
    #[inline]
    pub fn contains(&self, id: Id) -> bool {
        self.position_of(id).is_some()
    }

    /// Whether an id of the type matches `pattern` ([`Id::matches`]): for a
    /// concrete id, whether the type contains it; for `(R, *)`, whether it has a
    /// pair of `R`; `*` alone matches any id (`_` is read as `*`).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (likes, bob, alice) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_id(alice, Id::pair(likes, bob));
    /// let archetype = &world.archetypes()[world.entities().location(alice).unwrap().archetype];
    /// assert!(archetype.matches_id(Id::pair(likes, Entity::WILDCARD)));
    /// assert!(archetype.matches_id(Id::pair(Entity::ANY, bob)));
    /// assert!(!archetype.matches_id(Id::pair(bob, Entity::WILDCARD)));
    /// ```
    #[inline]
    pub fn matches_id(&self, pattern: Id) -> bool {
        if !pattern.is_wildcard() {
            return self.contains(pattern);
        }
        let pattern = pattern.any_as_wildcard();
        if pattern.is_pair() && pattern.first_index() != Entity::WILDCARD.index() {
            // `(R, *)`: the pairs of `R` are contiguous in the sorted type.
            return !self.pair_positions(pattern.first_index()).is_empty();
        }
        self.ids.iter().any(|&id| pattern.matches(id))
    }

    /// The column of `id`; `None` if absent or a tag.
    #[inline]
    pub fn column_of(&self, id: Id) -> Option<usize> {
        let column = self.columns[self.position_of(id)?];
        (column >= 0).then_some(column as usize)
    }

    /// The cells (targets), by row, of the union relationship whose entity
    /// index is `relationship`: the column of `(relationship, *union*)` (see
    /// [`Entity::UNION`]); `None` if the archetype lacks that id.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// #[relationship(union)]
    /// struct Movement;
    /// let mut world = World::new();
    /// let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let a = world.spawn_empty().add_pair::<Movement>(walking).id();
    /// let b = world.spawn_empty().add_pair::<Movement>(running).id();
    /// let location = world.entities().location(a).unwrap();
    /// assert_eq!(location.archetype, world.entities().location(b).unwrap().archetype);
    /// let movement = world.component_id::<Movement>().unwrap();
    /// let archetype = &world.archetypes()[location.archetype];
    /// let targets: Vec<Entity> = archetype.union_cells(movement.index()).unwrap().iter().map(|cell| cell.target).collect();
    /// assert_eq!(targets, [walking, running]);
    /// ```
    #[inline]
    pub fn union_cells(&self, relationship: u32) -> Option<&[UnionCell]> {
        let column = self.column_of(Id::pair_from_indices(relationship, Entity::UNION.index()))?;
        Some(self.union_column(column))
    }

    /// The cells stored in `column`, the column of a union id.
    #[inline]
    pub(crate) fn union_column(&self, column: usize) -> &[UnionCell] {
        let data = self.table.column(column).data_ptr().cast::<UnionCell>();
        // SAFETY: the column of a union id stores one initialized `UnionCell`
        // per row (written when the row got the id, moved with it): rows
        // `0..len()` are initialized, and `&self` keeps them unchanged.
        unsafe { core::slice::from_raw_parts(data.as_ptr(), self.len()) }
    }

    /// Sets row `row`'s cell in `column`, the column of a union id.
    ///
    /// # Safety
    /// `column` is the column of a union id of this archetype and `row` a row
    /// of its table.
    #[inline]
    pub(crate) unsafe fn set_union_cell(&mut self, column: usize, row: usize, cell: UnionCell) {
        debug_assert!(row < self.len(), "row {row} of {} rows", self.len());
        // SAFETY: the column stores `UnionCell` values (caller) and `row` is in
        // bounds; a `UnionCell` has no drop glue, so overwriting (or writing a
        // fresh slot) needs no drop.
        unsafe { self.table.column(column).get_ptr(row).cast::<UnionCell>().write(cell) };
    }

    fn tag_drop_at(&self, position: usize) -> Option<TagDropFn> {
        self.tag_drops.iter().find(|(at, _, _)| *at as usize == position).map(|&(_, drop, align)| (drop, align))
    }

    /// How many garbage collections the archetype has been empty for
    /// ([`World::collect_garbage`](crate::world::World::collect_garbage)
    /// calls since its table lost its last row, or since it was created);
    /// `None` while it has rows.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::new();
    /// let e = world.spawn(A(1)).id();
    /// let archetype = world.entities().location(e).unwrap().archetype;
    /// let epoch = world.archetypes().gc_epoch();
    /// assert_eq!(world.archetypes()[archetype].empty_for(epoch), None);
    /// world.despawn(e);
    /// assert_eq!(world.archetypes()[archetype].empty_for(epoch), Some(0));
    /// assert_eq!(world.archetypes()[archetype].empty_for(epoch + 2), Some(2));
    /// ```
    #[inline]
    pub fn empty_for(&self, epoch: u32) -> Option<u32> {
        self.is_empty().then(|| epoch.wrapping_sub(self.empty_since))
    }

    /// Whether the archetype was deleted ([`ArchetypeFlags::DEAD`]).
    #[inline]
    pub fn is_dead(&self) -> bool {
        self.flags.contains(ArchetypeFlags::DEAD)
    }

    /// The positions in the type of the pairs `(relationship, *)`: pairs sort by
    /// relationship, so they are contiguous.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (likes, a, b) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// let e = world.spawn_empty().id();
    /// world.add_id(e, Id::pair(likes, a));
    /// world.add_id(e, Id::pair(likes, b));
    /// let archetype = &world.archetypes()[world.entities().location(e).unwrap().archetype];
    /// assert_eq!(archetype.pair_positions(likes.index()).len(), 2);
    /// ```
    pub fn pair_positions(&self, relationship: u32) -> core::ops::Range<usize> {
        let first = Id::pair_from_indices(relationship, 0);
        let start = self.ids.partition_point(|&id| id < first);
        let len = self.ids[start..].iter().take_while(|id| id.is_pair() && id.first_index() == relationship).count();
        start..start + len
    }

    /// Drops one row's zero-sized values that need dropping, keeping a panic of
    /// their `Drop` in `panics` (the others are still dropped).
    #[inline]
    fn drop_tags(&self, panics: &mut PanicSlot) {
        for &(_, drop, align) in &self.tag_drops {
            // SAFETY: a zero-sized value may be read from any aligned address; each
            // tag value is dropped once, when its row loses it.
            panics.catch(|| unsafe { drop(crate::storage::dangling_ptr(align)) });
        }
    }

    /// Drops every row's values (tags and columns) and removes the rows, even if
    /// some `Drop`s panic (kept in `panics`).
    fn drop_rows(&mut self, panics: &mut PanicSlot) {
        for _ in 0..self.table.len() {
            self.drop_tags(panics);
        }
        panics.catch(|| self.table.clear());
    }
}

impl Drop for Archetype {
    fn drop(&mut self) {
        let mut panics = PanicSlot::default();
        self.drop_rows(&mut panics);
        panics.resume();
    }
}

const NEW_COLUMN: u32 = u32::MAX;

/// A deleted archetype's table with at most this many rows of capacity keeps
/// its buffers for the next archetype created in its slot.
const RECYCLED_TABLE_CAPACITY: usize = 64;

/// How to move a row between two archetypes: for each destination column the
/// source column it comes from, and what the source has that the destination
/// lacks. Computed once per edge by [`Archetypes::move_plan`].
#[derive(Clone, Debug, Default)]
pub struct MovePlan {
    sources: Box<[u32]>,
    removed_columns: Box<[u32]>,
    removed_tags: Box<[TagDropFn]>,
}

/// What [`Archetypes::move_row`] did.
#[derive(Clone, Copy, Debug)]
pub struct MoveResult {
    /// The entity's row in the destination.
    pub row: usize,
    /// The entity moved into the vacated source row, whose location must be updated.
    pub swapped: Option<Entity>,
}

/// How many emptiness changes [`Archetypes::emptiness_changes`] remembers.
const EMPTINESS_LOG_CAPACITY: usize = 4096;

/// Every archetype of a world, the graph edges and the component index.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct A(u32);
/// let mut world = World::new();
/// let before = world.archetypes().len();
/// world.spawn(A(1));
/// world.spawn(A(2)); // same archetype: nothing new
/// assert_eq!(world.archetypes().len(), before + 1);
/// world.check_invariants();
/// ```
pub struct Archetypes {
    archetypes: Vec<Archetype>,
    by_ids: FxHashMap<ArchetypeType, ArchetypeId>,
    /// The archetypes whose bases were added in an order other than the type
    /// order, by type and order ([`Archetype::base_order`]); `by_ids` holds
    /// the others.
    by_ordered_ids: FxHashMap<(ArchetypeType, BaseOrder), ArchetypeId>,
    index: ComponentIndex,
    internal_markers: SmallVec<[Id; 2]>,
    /// Ids whose archetypes are hidden from queries that do not name them,
    /// with the flag each sets (`Internal`-like markers, `Disabled`, `Prefab`).
    hiding_markers: SmallVec<[(Id, ArchetypeFlags); 4]>,
    /// How many archetypes were deleted so far: query caches prune dead entries
    /// when it changes.
    deleted: usize,
    /// Slots of deleted archetypes, reused by `get_or_create`.
    free: Vec<ArchetypeId>,
    /// How many slots were reused so far: a reused id is a new archetype below
    /// the length query caches have seen, so they rematch when it changes.
    reused: usize,
    /// How many garbage collections ran ([`Archetypes::gc_epoch`]).
    gc_epoch: u32,
    /// The most recent archetypes whose table got its first row or lost its
    /// last one, oldest first ([`Archetypes::emptiness_changes`]).
    emptiness_log: std::collections::VecDeque<ArchetypeId>,
    /// The sequence number of the log's first entry.
    emptiness_log_start: u64,
    /// Bases and the archetypes that inherit from them.
    inheritance: Inheritance,
}

impl Default for Archetypes {
    fn default() -> Self {
        Archetypes::new()
    }
}

/// One row's cell in the table column of a union id `(R, *union*)`: the row's
/// target and where the row's holder is listed in the world's index of union
/// holders by target (so unlisting it is O(1)).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Relationship)]
/// #[relationship(union)]
/// struct Movement;
/// let mut world = World::new();
/// let walking = world.spawn_empty().id();
/// let e = world.spawn_empty().add_pair::<Movement>(walking).id();
/// let movement = world.component_id::<Movement>().unwrap();
/// let archetype = &world.archetypes()[world.entities().location(e).unwrap().archetype];
/// assert_eq!(archetype.union_cells(movement.index()).unwrap()[0].target, walking);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct UnionCell {
    /// The row's target.
    pub target: Entity,
    /// The row's position in the list of its target's union holders.
    pub(crate) holder_slot: u32,
}

/// Whether `id` is the id `(R, Entity::UNION)` of a union relationship `R`,
/// whose table column holds each row's target (a [`UnionCell`]).
///
/// # Examples
/// ```
/// use ecs::archetype::is_union_id;
/// use ecs::entity::{Entity, Id};
/// let movement = Entity::from_raw(40, 0);
/// assert!(is_union_id(Id::pair(movement, Entity::UNION)));
/// assert!(!is_union_id(Id::pair(movement, Entity::from_raw(41, 0))));
/// assert!(!is_union_id(Entity::UNION.id()));
/// ```
#[inline]
pub fn is_union_id(id: Id) -> bool {
    id.is_pair() && id.second_index() == Entity::UNION.index()
}

/// How an id is stored in a table.
enum IdStorage {
    Column(Column),
    Tag(Option<TagDropFn>),
}

fn id_storage(components: &Components, id: Id) -> IdStorage {
    if is_union_id(id) {
        // `(R, *union*)`: the column of each row's target (see `Entity::UNION`).
        return IdStorage::Column(Column::untracked(core::alloc::Layout::new::<UnionCell>(), None));
    }
    let info = if id.is_pair() {
        components.info_by_index(id.first_index())
    } else {
        components.info_by_index(id.first_index()).filter(|info| info.id().id() == id)
    };
    match info {
        // Zero-sized components (not tag pairs) get a column too when they
        // track changes or are toggleable: it stores no values, only each
        // row's ticks (`Added<Tag>`, `Changed<Tag>`) and enabled bits. Only
        // plain ids carry toggle bits: pairs are never toggleable.
        Some(info)
            if info.storage() == StorageKind::Table
                && (!info.is_tag() || (!id.is_pair() && (info.has_change_detection() || info.is_toggle()))) =>
        {
            let column = if info.has_change_detection() { Column::new } else { Column::untracked };
            let column = column(info.layout(), info.drop_fn());
            IdStorage::Column(if info.is_toggle() && !id.is_pair() { column.toggleable() } else { column })
        }
        Some(info) if !id.is_pair() => IdStorage::Tag(info.drop_fn().map(|drop| (drop, info.layout().align()))),
        _ => IdStorage::Tag(None),
    }
}

impl Archetypes {
    /// A store holding only the empty archetype.
    pub fn new() -> Archetypes {
        let mut archetypes = Archetypes {
            archetypes: Vec::new(),
            by_ids: FxHashMap::default(),
            by_ordered_ids: FxHashMap::default(),
            index: ComponentIndex::default(),
            internal_markers: SmallVec::new(),
            hiding_markers: SmallVec::new(),
            deleted: 0,
            free: Vec::new(),
            reused: 0,
            gc_epoch: 0,
            emptiness_log: std::collections::VecDeque::new(),
            emptiness_log_start: 0,
            inheritance: Inheritance::default(),
        };
        let empty = archetypes.get_or_create(&[], &Components::default());
        debug_assert_eq!(empty, ArchetypeId::EMPTY);
        archetypes
    }

    /// Marks `id` as carried only by internal entities: archetypes containing it
    /// get [`ArchetypeFlags::INTERNAL`].
    pub(crate) fn add_internal_marker(&mut self, id: Id) {
        self.internal_markers.push(id);
        self.hiding_markers.push((id, ArchetypeFlags::INTERNAL));
    }

    /// Marks `id` as hiding its archetypes with `flag` (one of
    /// [`ArchetypeFlags::HIDDEN`]) from queries that do not name `id`.
    pub(crate) fn add_hiding_marker(&mut self, id: Id, flag: ArchetypeFlags) {
        debug_assert!(ArchetypeFlags::HIDDEN.contains(flag), "{flag:?} is no hiding flag");
        self.hiding_markers.push((id, flag));
    }

    /// The hiding flags a query lifts (what it may match beyond the
    /// unhidden archetypes): those of the markers its `required` ids name, and
    /// [`ArchetypeFlags::SHOWN_WHEN_NAMED`] ones of the markers any term names
    /// (`mentioned`, required or not).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::archetype::ArchetypeFlags;
    /// use ecs::component::Internal;
    /// let mut world = World::new();
    /// let disabled = world.component_id::<Disabled>().unwrap().id();
    /// let internal = world.component_id::<Internal>().unwrap().id();
    /// let archetypes = world.archetypes();
    /// assert_eq!(archetypes.lifted_flags([], [disabled, internal]), ArchetypeFlags::DISABLED);
    /// assert_eq!(archetypes.lifted_flags([internal], [internal]), ArchetypeFlags::INTERNAL);
    /// ```
    pub fn lifted_flags(
        &self,
        required: impl IntoIterator<Item = Id>,
        mentioned: impl IntoIterator<Item = Id>,
    ) -> ArchetypeFlags {
        self.hiding_flags(required).union(self.hiding_flags(mentioned).intersection(ArchetypeFlags::SHOWN_WHEN_NAMED))
    }

    /// The hiding flags whose markers are among `ids`: what a query that
    /// requires `ids` may see (an archetype is skipped when
    /// [`ArchetypeFlags::hidden_unless`] these flags).
    ///
    /// # Examples
    /// ```
    /// use ecs::archetype::ArchetypeFlags;
    /// use ecs::component::Disabled;
    /// use ecs::prelude::*;
    /// let world = World::new();
    /// let disabled = world.component_id::<Disabled>().unwrap();
    /// assert_eq!(world.archetypes().hiding_flags([disabled.id()]), ArchetypeFlags::DISABLED);
    /// ```
    pub fn hiding_flags(&self, ids: impl IntoIterator<Item = Id>) -> ArchetypeFlags {
        let mut flags = ArchetypeFlags::NONE;
        for id in ids {
            for &(marker, flag) in &self.hiding_markers {
                if marker == id {
                    flags = flags.union(flag);
                }
            }
        }
        flags
    }

    /// The ids whose archetypes are internal.
    pub fn internal_markers(&self) -> &[Id] {
        &self.internal_markers
    }

    /// How many archetype slots exist (ids are `0..len()`), deleted ones
    /// included. With [`Archetypes::reused_count`] this is the *generation*
    /// queries use to match new archetypes incrementally: new archetypes take a
    /// deleted slot if there is one, else the next id.
    #[inline]
    pub fn len(&self) -> usize {
        self.archetypes.len()
    }

    /// Always false: the empty archetype always exists.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.archetypes.is_empty()
    }

    /// The archetype `id`, if it exists.
    #[inline]
    pub fn get(&self, id: ArchetypeId) -> Option<&Archetype> {
        self.archetypes.get(id.index())
    }

    /// The archetype `id`, without a bounds check: for the query iterators'
    /// per-table step, whose matched ids all come from this collection.
    ///
    /// # Safety
    /// `id` was handed out by this `Archetypes` (slots are never removed, so
    /// every such id stays in bounds; a dead slot is empty).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, id: ArchetypeId) -> &Archetype {
        debug_assert!(id.index() < self.archetypes.len(), "{id:?} was not handed out by this world");
        // SAFETY: in bounds, per the caller's contract.
        unsafe { self.archetypes.get_unchecked(id.index()) }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ArchetypeId) -> &mut Archetype {
        &mut self.archetypes[id.index()]
    }

    /// Every archetype, by id.
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, Archetype> {
        self.archetypes.iter()
    }

    /// The component index.
    #[inline]
    pub fn component_index(&self) -> &ComponentIndex {
        &self.index
    }

    /// The archetypes a query may match, in ascending id order: the first step
    /// of every matcher (typed `QueryState`s and runtime queries). A query that
    /// has matched nothing yet (`since == 0`) and requires `required` ids (ids
    /// or wildcard patterns with a component-index record) starts from the
    /// record that lists the fewest archetypes (all of them, or with
    /// `non_empty` only those with rows); a required id with no record means
    /// nothing matches. Otherwise, every archetype from `since` on (the ones
    /// created since the query last looked). Each query then checks its own
    /// terms per candidate.
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
    /// world.spawn((A, B));
    /// let (a, b) = (world.component_id::<A>().unwrap(), world.component_id::<B>().unwrap());
    /// let archetypes = world.archetypes();
    /// assert_eq!(archetypes.candidates([a.id(), b.id()], 0, false).len(), 1); // B's record is smaller
    /// assert_eq!(archetypes.candidates([], archetypes.len() - 1, false).len(), 1);
    /// ```
    pub fn candidates(
        &self,
        required: impl IntoIterator<Item = Id>,
        since: usize,
        non_empty: bool,
    ) -> Vec<ArchetypeId> {
        let mut rarest: Option<Option<&super::IdRecord>> = None;
        if since == 0 {
            let size = |record: Option<&super::IdRecord>| {
                record.map_or(0, |record| if non_empty { record.non_empty().len() } else { record.archetypes().len() })
            };
            for id in required {
                let record = self.index.get(id);
                if rarest.is_none_or(|best| size(record) < size(best)) {
                    rarest = Some(record);
                }
            }
        }
        let list = |record: &super::IdRecord| -> Vec<ArchetypeId> {
            let entries = if non_empty { record.non_empty() } else { record.archetypes() };
            entries.iter().map(|entry| entry.archetype).collect()
        };
        let mut candidates: Vec<ArchetypeId> = match rarest {
            Some(None) => Vec::new(),
            Some(Some(record)) => list(record),
            None => (since..self.archetypes.len()).map(ArchetypeId::new).collect(),
        };
        // Archetypes that inherit may match without holding a required id.
        if rarest.is_some()
            && let Some(record) = self.inheritance.isa_wildcard().and_then(|pattern| self.index.get(pattern))
        {
            candidates.extend(list(record));
            candidates.sort_unstable();
            candidates.dedup();
        }
        if non_empty {
            candidates.retain(|&archetype| !self.archetypes[archetype.index()].is_empty());
        }
        candidates.sort_unstable();
        candidates
    }

    /// The archetype whose type is exactly `ids` (sorted, unique), if it
    /// exists: the one whose bases, if it has several, were added in type order
    /// (others of the same type record another order,
    /// [`Archetype::base_order`]).
    pub fn find(&self, ids: &[Id]) -> Option<ArchetypeId> {
        self.by_ids.get(ids).copied()
    }

    /// The archetype of type `ids` (sorted, unique), created if missing.
    pub fn get_or_create(&mut self, ids: &[Id], components: &Components) -> ArchetypeId {
        self.get_or_create_ordered(ids, BaseOrder::new(), components)
    }

    /// The archetype of type `ids` reached from `source` by a change that
    /// adds no base (inserting or removing components, dropping pairs): its
    /// bases keep the order they were added in ([`Archetype::base_order`]).
    pub(crate) fn get_or_create_from(
        &mut self,
        source: ArchetypeId,
        ids: &[Id],
        components: &Components,
    ) -> ArchetypeId {
        let order = self.derived_order(source, ids, None);
        self.get_or_create_ordered(ids, order, components)
    }

    /// The base order of the type `ids` reached from `source`, `added` the
    /// pair being added if any (see [`Archetype::base_order`]).
    #[inline]
    fn derived_order(&self, source: ArchetypeId, ids: &[Id], added: Option<Id>) -> BaseOrder {
        let source = &self.archetypes[source.index()];
        self.inheritance.derived_order(&source.ids, &source.base_order, ids, added)
    }

    /// The archetype of type `ids` (sorted, unique) whose bases were added in
    /// `order` ([`Archetype::base_order`]: empty for the type order), created
    /// if missing.
    fn get_or_create_ordered(&mut self, ids: &[Id], order: BaseOrder, components: &Components) -> ArchetypeId {
        debug_assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "archetype type not sorted: {ids:?}");
        let existing = if order.is_empty() {
            self.find(ids)
        } else {
            self.by_ordered_ids.get(&(SmallVec::from_slice(ids), order.clone())).copied()
        };
        if let Some(id) = existing {
            return id;
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.reused += 1;
                id
            }
            None => ArchetypeId::new(self.archetypes.len()),
        };
        let mut columns = SmallVec::with_capacity(ids.len());
        // On the stack: a recycled table of the same shape keeps its own.
        let mut table_columns: SmallVec<[Column; 8]> = SmallVec::new();
        let mut tag_drops = SmallVec::new();
        for (position, &component) in ids.iter().enumerate() {
            match id_storage(components, component) {
                IdStorage::Column(column) => {
                    columns.push(table_columns.len() as i32);
                    table_columns.push(column);
                }
                IdStorage::Tag(drop) => {
                    columns.push(-1);
                    if let Some((drop, align)) = drop {
                        tag_drops.push((position as u16, drop, align));
                    }
                }
            }
        }
        let hidden = self.hiding_flags(ids.iter().copied());
        // A relationship's hooks run for its pairs (a union's marker pair too).
        let hooked_id = |id: &&Id| components.hook_owner(**id).is_some_and(|info| info.hooks().any());
        let pair_hooked = ids.iter().filter(|id| id.is_pair()).any(|id| hooked_id(&id));
        let hooked = pair_hooked || ids.iter().any(|id| hooked_id(&id));
        let has_union = ids.iter().any(|&id| is_union_id(id));
        let ids: ArchetypeType = SmallVec::from_slice(ids);
        self.index.register_archetype(id, &ids, &columns);
        if order.is_empty() {
            self.by_ids.insert(ids.clone(), id);
        } else {
            self.by_ordered_ids.insert((ids.clone(), order.clone()), id);
        }
        let inherits = self.inheritance.holds_isa(&ids);
        let flags = ArchetypeFlags(
            hidden.0
                | if hooked { ArchetypeFlags::HAS_HOOKS.0 } else { 0 }
                | if pair_hooked { ArchetypeFlags::HAS_PAIR_HOOKS.0 } else { 0 }
                | if has_union { ArchetypeFlags::HAS_UNION.0 } else { 0 },
        );
        match self.archetypes.get_mut(id.index()) {
            // A recycled slot, filled in place: its dead archetype's table and
            // maps (emptied by `delete`) serve the new one, and nothing big is
            // moved or dropped.
            Some(dead) => {
                dead.table.reshape(table_columns);
                dead.id = id;
                dead.ids = ids;
                dead.columns = columns;
                dead.tag_drops = tag_drops;
                debug_assert!(dead.edges.adds().next().is_none() && dead.plans.is_empty(), "delete empties the maps");
                dead.plan_sources.clear();
                dead.replacement_sources.clear();
                dead.removal_sources.clear();
                dead.empty_since = self.gc_epoch;
                dead.flags = flags;
                dead.inherited.clear();
                dead.base_order = order;
            }
            None => self.archetypes.push(Archetype {
                id,
                ids,
                columns,
                tag_drops,
                table: Table::new(table_columns.into_vec()),
                edges: Edges::default(),
                plans: FxHashMap::default(),
                plan_sources: SmallVec::new(),
                replacement_sources: SmallVec::new(),
                removal_sources: SmallVec::new(),
                empty_since: self.gc_epoch,
                flags,
                inherited: Vec::new(),
                base_order: order,
            }),
        }
        if inherits {
            let archetype = &self.archetypes[id.index()];
            let inherited =
                self.inheritance.compute(&archetype.ids, &archetype.base_order, prefab_ids(&self.archetypes));
            self.archetypes[id.index()].inherited = inherited;
            self.inheritance.archetypes.push(id);
        }
        id
    }

    /// Makes the pairs of `relationship` inherited through `IsA` like plain
    /// ids (listed in [`Archetype::inherited`]; of an `exclusive` one, only
    /// the first found, and none where the archetype holds one). The world
    /// calls it when it registers a relationship whose pairs carry values and
    /// whose policy is `inherit`, before any pair of it exists.
    pub(crate) fn inherit_pairs_of(&mut self, relationship: Entity, exclusive: bool) {
        self.inheritance.inherit_pairs_of(relationship, exclusive);
    }

    /// Makes `relationship` the `IsA` relationship (the world's built-in).
    pub(crate) fn set_inheritance_relationship(&mut self, relationship: Entity) {
        self.inheritance.set_relationship(relationship);
    }

    /// Registers `base`, which lives in `archetype`, as a base: entities with
    /// `(IsA, base)` inherit its ids. The world calls it before the first such
    /// pair is added.
    pub(crate) fn register_base(&mut self, base: Entity, archetype: ArchetypeId) {
        let previous = self.inheritance.bases.insert(base.index(), (base, archetype));
        if previous != Some((base, archetype)) {
            self.refresh_inheritance();
        }
    }

    /// The archetypes holding an `(IsA, _)` pair: those that may inherit an
    /// id without holding it (what a walk of one id's record misses).
    pub(crate) fn inheriting(&self) -> impl Iterator<Item = ArchetypeId> + '_ {
        let record = self.inheritance.isa_wildcard().and_then(|pattern| self.index.get(pattern));
        record.into_iter().flat_map(|record| record.archetypes().iter().map(|entry| entry.archetype))
    }

    /// Whether any entity is registered as a base (no archetype inherits
    /// anything while none is).
    #[inline]
    pub(crate) fn has_bases(&self) -> bool {
        !self.inheritance.bases.is_empty()
    }

    /// Whether `entity` is registered as a base.
    #[inline]
    pub fn is_base(&self, entity: Entity) -> bool {
        self.inheritance.bases.get(&entity.index()).is_some_and(|&(base, _)| base == entity)
    }

    /// A counter that changes whenever the inherited ids of an existing
    /// archetype may have changed ([`Archetype::inherited`]: a base gained or
    /// lost ids, died, or was registered): query caches that match inherited
    /// components rebuild when it changes.
    #[inline]
    pub fn inheritance_epoch(&self) -> usize {
        self.inheritance.epoch
    }

    /// The live archetypes whose type holds an `(IsA, _)` pair (those that
    /// may inherit ids).
    #[inline]
    pub(crate) fn inheriting_archetypes(&self) -> &[ArchetypeId] {
        &self.inheritance.archetypes
    }

    /// The inherited ids archetype `id` would have (see
    /// [`Archetype::inherited`]) if the base `base` lived in `destination`
    /// (`None`: if it were dead): what a move of the base is about to do to
    /// its instances.
    pub(crate) fn inherited_if_base_moved(
        &self,
        id: ArchetypeId,
        base: Entity,
        destination: Option<ArchetypeId>,
    ) -> Vec<(Id, Entity)> {
        let archetype = &self.archetypes[id.index()];
        self.inheritance.compute_if_moved(
            &archetype.ids,
            &archetype.base_order,
            prefab_ids(&self.archetypes),
            Some((base, destination)),
        )
    }

    /// Recomputes the inherited ids of every archetype with `(IsA, _)` pairs.
    fn refresh_inheritance(&mut self) {
        self.inheritance.epoch += 1;
        for position in 0..self.inheritance.archetypes.len() {
            let id = self.inheritance.archetypes[position];
            let archetype = &self.archetypes[id.index()];
            let inherited =
                self.inheritance.compute(&archetype.ids, &archetype.base_order, prefab_ids(&self.archetypes));
            self.archetypes[id.index()].inherited = inherited;
        }
    }

    /// After `entity` moved to `destination` (or died, `None`): a base's new
    /// ids change what its instances inherit.
    #[inline]
    fn base_moved(&mut self, entity: Entity, destination: Option<ArchetypeId>) {
        if self.inheritance.bases.is_empty() || !self.is_base(entity) {
            return;
        }
        match destination {
            Some(archetype) => {
                self.inheritance.bases.insert(entity.index(), (entity, archetype));
            }
            None => {
                self.inheritance.bases.remove(&entity.index());
            }
        }
        self.refresh_inheritance();
    }

    /// How many archetype slots were reused so far (a generation for caches:
    /// reused ids are below the length they saw).
    #[inline]
    pub fn reused_count(&self) -> usize {
        self.reused
    }

    /// How many garbage collections ran so far: the clock of
    /// [`Archetype::empty_for`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let before = world.archetypes().gc_epoch();
    /// world.collect_garbage(GcConfig::default());
    /// assert_eq!(world.archetypes().gc_epoch(), before + 1);
    /// ```
    #[inline]
    pub fn gc_epoch(&self) -> u32 {
        self.gc_epoch
    }

    /// Starts a garbage collection: advances [`Archetypes::gc_epoch`] and
    /// returns the new epoch.
    pub(crate) fn advance_gc_epoch(&mut self) -> u32 {
        self.gc_epoch = self.gc_epoch.wrapping_add(1);
        self.gc_epoch
    }

    /// The archetypes whose tables are empty, but for the empty archetype
    /// (which has no ids): the empty part of the `*` record of the component
    /// index, so the walk costs the number of empty archetypes, not of all.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::new();
    /// let e = world.spawn(A(1)).id();
    /// let archetype = world.entities().location(e).unwrap().archetype;
    /// assert!(!world.archetypes().empty_archetypes().any(|id| id == archetype));
    /// world.despawn(e);
    /// assert!(world.archetypes().empty_archetypes().any(|id| id == archetype));
    /// ```
    pub fn empty_archetypes(&self) -> impl Iterator<Item = ArchetypeId> + '_ {
        self.index
            .get(Entity::WILDCARD.id())
            .map_or(&[][..], |record| record.empty())
            .iter()
            .map(|entry| entry.archetype)
    }

    /// Appends `entity` as a new row of `archetype` and returns the row and the
    /// table, for the caller to write the row's values. The one place, with
    /// [`Archetypes::move_row`] and [`Archetypes::remove_row`], where table
    /// lengths change: a table's first row moves its archetype to the non-empty
    /// part of the component index.
    ///
    /// # Safety
    /// As [`Table::push_entity`]: every column's value and ticks at the
    /// returned row must be initialized before the table is used again.
    #[inline]
    pub(crate) unsafe fn push_row(&mut self, archetype: ArchetypeId, entity: Entity) -> (usize, &mut Table) {
        // SAFETY: forwarded to the caller.
        let row = unsafe { self.archetypes[archetype.index()].table.push_entity(entity) };
        if row == 0 {
            self.table_filled(archetype);
        }
        (row, &mut self.archetypes[archetype.index()].table)
    }

    /// `archetype`'s table got its first row: its entries go to the non-empty
    /// part of every record of the component index.
    #[cold]
    #[inline(never)]
    fn table_filled(&mut self, archetype: ArchetypeId) {
        self.index.set_archetype_empty(archetype, false);
        self.log_emptiness_change(archetype);
    }

    /// Records that `archetype`'s table went empty or non-empty, for caches
    /// that keep the two apart ([`Archetypes::emptiness_changes`]).
    fn log_emptiness_change(&mut self, archetype: ArchetypeId) {
        if self.emptiness_log.len() == EMPTINESS_LOG_CAPACITY {
            self.emptiness_log.pop_front();
            self.emptiness_log_start += 1;
        }
        self.emptiness_log.push_back(archetype);
    }

    /// The sequence number the next emptiness change will get: a cache that
    /// is up to date with every change so far remembers it.
    pub fn emptiness_log_end(&self) -> u64 {
        self.emptiness_log_start + self.emptiness_log.len() as u64
    }

    /// A number that grows whenever a query cache may have to look at the
    /// archetypes again: an archetype was created, a slot reused, an archetype
    /// deleted, what archetypes inherit changed, or a table got its first row
    /// or lost its last one. The sum of those monotonic counters, so it never
    /// repeats a value after a change; a cache that saw the same value has
    /// nothing to update.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let before = world.archetypes().cache_epoch();
    /// let e = world.spawn(Health(1)).id(); // a new archetype, its first row
    /// let after = world.archetypes().cache_epoch();
    /// assert!(after > before);
    /// world.get_mut::<Health>(e).unwrap().0 = 2; // no structural change
    /// assert_eq!(world.archetypes().cache_epoch(), after);
    /// ```
    #[inline]
    pub fn cache_epoch(&self) -> u64 {
        self.len() as u64
            + self.reused as u64
            + self.deleted as u64
            + self.inheritance.epoch as u64
            + self.emptiness_log_end()
    }

    /// The archetypes whose table got its first row or lost its last one since
    /// sequence number `since` (some may have changed back), oldest first;
    /// `None` if the log no longer reaches back that far (a cache then looks
    /// at every archetype it holds). A cache that keeps empty and non-empty
    /// archetypes apart pays O(1) per change this way.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::new();
    /// let seen = world.archetypes().emptiness_log_end();
    /// let e = world.spawn(A(1)).id();
    /// world.despawn(e);
    /// let archetype = world.archetypes().find(&[world.component_id::<A>().unwrap().id()]).unwrap();
    /// let changes: Vec<_> = world.archetypes().emptiness_changes(seen).unwrap().collect();
    /// assert_eq!(changes, [archetype, archetype]); // filled, then emptied
    /// ```
    pub fn emptiness_changes(&self, since: u64) -> Option<impl Iterator<Item = ArchetypeId> + '_> {
        let skip = since.checked_sub(self.emptiness_log_start)?;
        Some(self.emptiness_log.iter().skip(skip as usize).copied())
    }

    /// `archetype`'s table lost its last row: its entries go to the empty part
    /// of every record, and its garbage-collection age starts at 0.
    #[cold]
    #[inline(never)]
    fn table_emptied(&mut self, archetype: ArchetypeId) {
        let slot = &mut self.archetypes[archetype.index()];
        slot.empty_since = self.gc_epoch;
        self.index.set_archetype_empty(archetype, true);
        self.log_emptiness_change(archetype);
    }

    /// How many archetypes were deleted so far (a generation for caches).
    #[inline]
    pub fn deleted_count(&self) -> usize {
        self.deleted
    }

    /// Whether archetype `id` was deleted.
    #[inline]
    pub fn is_dead(&self, id: ArchetypeId) -> bool {
        self.archetypes[id.index()].is_dead()
    }

    /// The archetype reached from `source` by adding `id` (`source` itself if it
    /// has `id`), following or creating the graph edge. Adding a pair `(R, T)` of
    /// an exclusive relationship `R` also removes the other `(R, *)` pairs: the
    /// replacement is one edge, so one move.
    #[inline]
    pub fn add_edge(&mut self, source: ArchetypeId, id: Id, components: &Components) -> ArchetypeId {
        if let Some(target) = self.archetypes[source.index()].edges.add(id) {
            debug_assert!(!self.archetypes[target.index()].is_dead(), "edge into a deleted archetype");
            return target;
        }
        self.create_edge(source, id, true, components)
    }

    /// The archetype reached from `source` by removing `id` (`source` itself if it
    /// lacks `id`), following or creating the graph edge.
    #[inline]
    pub fn remove_edge(&mut self, source: ArchetypeId, id: Id, components: &Components) -> ArchetypeId {
        if let Some(target) = self.archetypes[source.index()].edges.remove(id) {
            debug_assert!(!self.archetypes[target.index()].is_dead(), "edge into a deleted archetype");
            return target;
        }
        self.create_edge(source, id, false, components)
    }

    /// The archetype of `source`'s type without the ids `remove` says to drop.
    pub fn without(
        &mut self,
        source: ArchetypeId,
        mut remove: impl FnMut(Id) -> bool,
        components: &Components,
    ) -> ArchetypeId {
        let mut ids: ArchetypeType = self.archetypes[source.index()].ids.clone();
        let before = ids.len();
        ids.retain(|id| !remove(*id));
        if ids.len() == before { source } else { self.get_or_create_from(source, &ids, components) }
    }

    #[cold]
    fn create_edge(&mut self, source: ArchetypeId, id: Id, add: bool, components: &Components) -> ArchetypeId {
        let mut ids: ArchetypeType = self.archetypes[source.index()].ids.clone();
        // Only an `IsA` pair changes the bases; without a recorded order the
        // destination has none either.
        let keeps_order = self.archetypes[source.index()].base_order.is_empty() && !self.inheritance.is_isa_pair(id);
        let mut replaced = false;
        if add && id.is_pair() && components.relationship_traits(id.first_index()).exclusive {
            let before = ids.len();
            ids.retain(|other| *other == id || !(other.is_pair() && other.first_index() == id.first_index()));
            replaced = ids.len() != before;
        }
        let order_of = |archetypes: &Self, ids: &[Id], added: Option<Id>| {
            if keeps_order { BaseOrder::new() } else { archetypes.derived_order(source, ids, added) }
        };
        let target = match (ids.binary_search(&id), add) {
            (Ok(_), true) if !replaced => source,
            (Ok(_), true) => self.get_or_create_ordered(&ids, order_of(self, &ids, None), components),
            (Err(_), false) => source,
            (Err(position), true) => {
                ids.insert(position, id);
                self.get_or_create_ordered(&ids, order_of(self, &ids, Some(id)), components)
            }
            (Ok(position), false) => {
                ids.remove(position);
                self.get_or_create_ordered(&ids, order_of(self, &ids, None), components)
            }
        };
        // The reverse edge leads back to `source` unless bases were added in
        // another order: removing the first added base and adding it again
        // puts it last ([`Archetype::base_order`]).
        let reverse_returns = target != source && {
            let source_archetype = &self.archetypes[source.index()];
            let target_archetype = &self.archetypes[target.index()];
            keeps_order
                || self.inheritance.derived_order(
                    &target_archetype.ids,
                    &target_archetype.base_order,
                    &source_archetype.ids,
                    (!add).then_some(id),
                ) == source_archetype.base_order
        };
        if add {
            self.archetypes[source.index()].edges.set_add(id, target);
            // An exclusive replacement's reverse is not "remove `id`": the target
            // only remembers the edge, to forget it when deleted.
            if reverse_returns && !replaced {
                self.archetypes[target.index()].edges.set_remove(id, source);
            } else if target != source {
                self.archetypes[target.index()].replacement_sources.push((source, id));
            }
        } else {
            self.archetypes[source.index()].edges.set_remove(id, target);
            if reverse_returns {
                self.archetypes[target.index()].edges.set_add(id, source);
            } else if target != source {
                self.archetypes[target.index()].removal_sources.push((source, id));
            }
        }
        target
    }

    /// Moves `entity` like [`Archetypes::move_row`], with the plan cached for the
    /// pair of archetypes (for id-level moves, which have no bundle edge).
    ///
    /// # Safety
    /// As [`Archetypes::move_row`], without the `plan` requirement.
    pub unsafe fn move_row_planned(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        row: usize,
        destination: ArchetypeId,
        drop_removed: bool,
        panics: &mut PanicSlot,
    ) -> MoveResult {
        let source_archetype = &self.archetypes[source.index()];
        if source_archetype.table.columns().is_empty() && source_archetype.tag_drops.is_empty() {
            // Nothing to copy or drop (e.g. out of the empty archetype): the
            // empty plan is exact, no cache needed.
            // SAFETY: forwarded to the caller; with no source columns and no tag
            // drops, every destination column is new and nothing is removed.
            return unsafe {
                self.move_row(entity, source, row, destination, &MovePlan::default(), drop_removed, panics)
            };
        }
        // Lend the plans out of the source for the move (moving a map is a copy
        // of its header, not of its entries).
        let mut plans = core::mem::take(&mut self.archetypes[source.index()].plans);
        // One hash lookup a move: the entry gives the plan, new or cached.
        let plan = match plans.entry(destination) {
            std::collections::hash_map::Entry::Occupied(slot) => slot.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                self.archetypes[destination.index()].plan_sources.push(source);
                slot.insert(self.move_plan(source, destination))
            }
        };
        // SAFETY: forwarded to the caller; the plan is the plan of this move.
        let moved = unsafe { self.move_row(entity, source, row, destination, plan, drop_removed, panics) };
        self.archetypes[source.index()].plans = plans;
        moved
    }

    /// Deletes the empty archetype `id`: it leaves `by_ids`, the component index,
    /// the graph (its own edges, the edges and move plans of other archetypes
    /// that lead to it), and it is flagged [`ArchetypeFlags::DEAD`] until its
    /// slot is reused. The slot keeps the emptied table when its capacity is at
    /// most 64 rows (else the buffers are freed) and its emptied edge and move
    /// plan maps, so the next archetype created there (a new parent's
    /// children, say) starts with their allocations. Bundle
    /// edge caches are the caller's
    /// ([`Bundles::forget_archetype`](crate::bundle::Bundles::forget_archetype)).
    ///
    /// # Panics
    /// Panics if the archetype has entities or is the empty archetype.
    pub fn delete(&mut self, id: ArchetypeId) {
        assert!(id != ArchetypeId::EMPTY, "the empty archetype cannot be deleted");
        let archetype = &mut self.archetypes[id.index()];
        if archetype.is_dead() {
            return;
        }
        assert!(archetype.is_empty(), "deleting archetype {id:?} which still has {} entities", archetype.len());
        archetype.flags = ArchetypeFlags(archetype.flags.0 | ArchetypeFlags::DEAD.0);
        // A small table keeps its buffers for the next archetype created in this
        // slot (`get_or_create` reshapes it); a big one gives its memory back.
        if archetype.table.capacity() > RECYCLED_TABLE_CAPACITY {
            archetype.table = Table::new(Vec::new());
        }
        archetype.tag_drops.clear();
        let mut edges = core::mem::take(&mut archetype.edges);
        let mut plans = core::mem::take(&mut archetype.plans);
        let plan_sources = core::mem::take(&mut archetype.plan_sources);
        let replacement_sources = core::mem::take(&mut archetype.replacement_sources);
        let removal_sources = core::mem::take(&mut archetype.removal_sources);
        let ids = core::mem::take(&mut archetype.ids);
        let order = core::mem::take(&mut archetype.base_order);
        // Edges are created in pairs (`add` one way, `remove` back), except
        // exclusive replacements and edges that change a base order, which
        // the target lists.
        for (edge, target) in edges.adds() {
            let target = &mut self.archetypes[target.index()];
            target.edges.forget_remove(edge, id);
            target.replacement_sources.retain(|(source, _)| *source != id);
        }
        for (edge, target) in edges.removes() {
            let target = &mut self.archetypes[target.index()];
            target.edges.forget_add(edge, id);
            target.removal_sources.retain(|(source, _)| *source != id);
        }
        for (source, edge) in replacement_sources {
            self.archetypes[source.index()].edges.forget_add(edge, id);
        }
        for (source, edge) in removal_sources {
            self.archetypes[source.index()].edges.forget_remove(edge, id);
        }
        for target in plans.keys() {
            self.archetypes[target.index()].plan_sources.retain(|source| *source != id);
        }
        for source in plan_sources {
            self.archetypes[source.index()].plans.remove(&id);
        }
        // The emptied maps stay in the slot: the next archetype created there
        // starts with their allocations.
        edges.clear();
        plans.clear();
        let dead = &mut self.archetypes[id.index()];
        dead.edges = edges;
        dead.plans = plans;
        if order.is_empty() {
            self.by_ids.remove(&ids);
        } else {
            self.by_ordered_ids.remove(&(ids, order));
        }
        self.index.unregister_archetype(id);
        self.archetypes[id.index()].inherited = Vec::new();
        self.inheritance.archetypes.retain(|&inheriting| inheriting != id);
        self.deleted += 1;
        self.free.push(id);
    }

    /// Two distinct archetypes, mutably.
    fn pair_mut(&mut self, a: ArchetypeId, b: ArchetypeId) -> (&mut Archetype, &mut Archetype) {
        assert_ne!(a, b, "pair_mut of one archetype");
        if a.index() < b.index() {
            let (low, high) = self.archetypes.split_at_mut(b.index());
            (&mut low[a.index()], &mut high[0])
        } else {
            let (low, high) = self.archetypes.split_at_mut(a.index());
            (&mut high[0], &mut low[b.index()])
        }
    }

    /// How rows move from `source` to `destination` (computed once per edge and
    /// cached by the caller).
    pub fn move_plan(&self, source: ArchetypeId, destination: ArchetypeId) -> MovePlan {
        let (source, destination) = (&self.archetypes[source.index()], &self.archetypes[destination.index()]);
        let mut sources = vec![NEW_COLUMN; destination.table.columns().len()];
        let mut removed_columns = Vec::new();
        let mut removed_tags = Vec::new();
        for (position, &id) in source.ids.iter().enumerate() {
            let source_column = source.columns[position];
            match destination.position_of(id) {
                Some(target) => {
                    if source_column >= 0 {
                        sources[destination.columns[target] as usize] = source_column as u32;
                    }
                }
                None if source_column >= 0 => removed_columns.push(source_column as u32),
                None => removed_tags.extend(source.tag_drop_at(position)),
            }
        }
        MovePlan {
            sources: sources.into_boxed_slice(),
            removed_columns: removed_columns.into_boxed_slice(),
            removed_tags: removed_tags.into_boxed_slice(),
        }
    }

    /// Moves `entity` from `row` of `source` to a new row of `destination` following
    /// `plan`: values of shared ids are moved (ticks kept); values only in `source`
    /// are dropped when `drop_removed`, else forgotten (the caller moved them out).
    /// A panicking `Drop` of a removed value is kept in `panics`: the move
    /// completes, and the caller updates its records before resuming it.
    ///
    /// # Safety
    /// * `source != destination`, `plan` is `move_plan(source, destination)` (or
    ///   the empty plan when `source` has no columns and no tags to drop: every
    ///   destination column is then new), and `row` is `entity`'s row in `source`;
    /// * when `!drop_removed`, the caller has moved out every value of `source` that
    ///   `destination` lacks;
    /// * the caller initializes every column of `destination` that `source` lacks
    ///   at the returned row, value and ticks, before the table is used again.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn move_row(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        row: usize,
        destination: ArchetypeId,
        plan: &MovePlan,
        drop_removed: bool,
        panics: &mut PanicSlot,
    ) -> MoveResult {
        let (source_id, destination_id) = (source, destination);
        let (source, destination) = self.pair_mut(source, destination);
        debug_assert_eq!(source.table.entities()[row], entity);
        // SAFETY: every column gets exactly one new row in the loop below; new
        // columns are initialized by the caller, shared ones are moved from `row`,
        // which is forgotten by the swap-remove; removed ones are dropped or were
        // moved out by the caller.
        unsafe {
            let new_row = destination.table.push_entity(entity);
            let destination_columns = destination.table.columns_mut();
            let source_columns = source.table.columns_mut();
            // `move_plan` built `sources` with one entry per destination column and
            // every other index from the source's column map: all in bounds.
            for (column, &source_column) in plan.sources.iter().enumerate() {
                // New columns (value and ticks) are initialized by the caller.
                if source_column != NEW_COLUMN {
                    let column = destination_columns.get_unchecked_mut(column);
                    column.initialize_from(new_row, source_columns.get_unchecked(source_column as usize), row);
                }
            }
            if drop_removed {
                for &column in plan.removed_columns.iter() {
                    source_columns.get_unchecked_mut(column as usize).drop_at_catching(row, panics);
                }
                for &(drop, align) in plan.removed_tags.iter() {
                    panics.catch(|| drop(crate::storage::dangling_ptr(align)));
                }
            }
            let swapped = source.table.swap_remove_forget(row);
            let emptied = source.table.is_empty();
            if new_row == 0 {
                self.table_filled(destination_id);
            }
            if emptied {
                self.table_emptied(source_id);
            }
            self.base_moved(entity, Some(destination_id));
            MoveResult { row: new_row, swapped }
        }
    }

    /// Drops the values of `row` in `archetype` and removes the row; returns the
    /// entity swapped into it. A panicking `Drop` is kept in `panics`: the other
    /// values are still dropped and the row removed.
    ///
    /// # Safety
    /// `row` is a row of `archetype` with initialized values.
    pub unsafe fn remove_row(&mut self, archetype: ArchetypeId, row: usize, panics: &mut PanicSlot) -> Option<Entity> {
        let id = archetype;
        let archetype = &mut self.archetypes[id.index()];
        let entity = archetype.table.entities()[row];
        archetype.drop_tags(panics);
        // SAFETY: forwarded to the caller.
        let swapped = unsafe { archetype.table.swap_remove_drop_catching(row, panics) };
        if archetype.table.is_empty() {
            self.table_emptied(id);
        }
        self.base_moved(entity, None);
        swapped
    }

    /// Drops the values of every row of archetype `id` and empties its table,
    /// even if some `Drop`s panic (kept in `panics`): the bulk form of
    /// [`Archetypes::remove_row`] for a cleanup that despawned every entity of
    /// the archetype (each freed with its row left in place).
    pub(crate) fn clear_rows(&mut self, id: ArchetypeId, panics: &mut PanicSlot) {
        let archetype = &mut self.archetypes[id.index()];
        if archetype.is_empty() {
            return;
        }
        if !self.inheritance.bases.is_empty() {
            let entities: SmallVec<[Entity; 16]> = SmallVec::from_slice(archetype.table.entities());
            for entity in entities {
                self.base_moved(entity, None);
            }
        }
        self.archetypes[id.index()].drop_rows(panics);
        self.table_emptied(id);
    }

    /// Drops every value of every archetype and empties their tables (for the
    /// world's drop), even if some `Drop`s panic: the first panic is kept in
    /// `panics`. The component index's empty/non-empty split is left as it was:
    /// nothing reads it again.
    pub(crate) fn drop_values(&mut self, panics: &mut PanicSlot) {
        for archetype in self.archetypes.iter_mut() {
            archetype.drop_rows(panics);
        }
    }

    /// Clamps the ticks of every table row to the age window relative to `now`
    /// ([`Table::check_change_ticks`]).
    pub(crate) fn check_change_ticks(&mut self, now: crate::storage::Tick) {
        for archetype in self.archetypes.iter_mut() {
            archetype.table.check_change_ticks(now);
        }
    }

    /// Verifies the invariants in the module docs and that every row's
    /// entity is alive and located there.
    ///
    /// # Panics
    /// Panics describing the first violation.
    pub fn check_invariants(&self, entities: &EntityIndex) {
        for &(base, archetype) in self.inheritance.bases.values() {
            assert_eq!(
                entities.location(base).map(|location| location.archetype),
                Some(archetype),
                "base {base:?} is not where the inheritance map says"
            );
        }
        let mut live = 0;
        for archetype in &self.archetypes {
            if archetype.is_dead() {
                assert!(
                    archetype.is_empty() && archetype.ids.is_empty(),
                    "dead archetype {:?} not empty",
                    archetype.id
                );
                assert!(
                    archetype.table.capacity() <= RECYCLED_TABLE_CAPACITY,
                    "dead archetype {:?} keeps a table of capacity {}",
                    archetype.id,
                    archetype.table.capacity()
                );
                assert!(
                    archetype.edges.adds().chain(archetype.edges.removes()).next().is_none()
                        && archetype.plans.is_empty(),
                    "dead archetype {:?} keeps edges or move plans",
                    archetype.id
                );
                continue;
            }
            assert!(archetype.ids.windows(2).all(|pair| pair[0] < pair[1]), "type of {:?} not sorted", archetype.id);
            live += 1;
            let key = (archetype.ids.clone(), archetype.base_order.clone());
            let found = if key.1.is_empty() { self.by_ids.get(&key.0) } else { self.by_ordered_ids.get(&key) };
            assert_eq!(found, Some(&archetype.id), "by_ids lost {:?}", archetype.id);
            let ordered = self.inheritance.derived_order(&archetype.ids, &archetype.base_order, &archetype.ids, None);
            assert_eq!(ordered, archetype.base_order, "base order of {:?} not normalized", archetype.id);
            archetype.table.check_invariants();
            // Deleting an archetype forgets every edge and plan leading to it (its
            // slot may be reused by an unrelated archetype).
            for (edge, target) in archetype.edges.adds().chain(archetype.edges.removes()) {
                assert!(
                    !self.archetypes[target.index()].is_dead(),
                    "{:?} has an edge {edge:?} into deleted {target:?}",
                    archetype.id
                );
            }
            for target in archetype.plans.keys() {
                assert!(
                    !self.archetypes[target.index()].is_dead(),
                    "{:?} has a move plan into deleted {target:?}",
                    archetype.id
                );
            }
            // No id names a dead entity: cleanup removes every pair (and id) before
            // either half dies, and deletes the archetypes that named it.
            for &id in archetype.ids.iter() {
                for index in if id.is_pair() { [id.first_index(), id.second_index()] } else { [id.first_index(); 2] } {
                    assert!(
                        entities.entity_at(index).is_some(),
                        "{:?} names dead entity index {index} in {id:?}",
                        archetype.id
                    );
                }
            }
            let inherits = self.inheritance.holds_isa(&archetype.ids);
            assert_eq!(
                self.inheritance.archetypes.contains(&archetype.id),
                inherits,
                "inheriting archetypes list wrong about {:?}",
                archetype.id
            );
            if inherits {
                assert_eq!(
                    archetype.inherited,
                    self.inheritance.compute(&archetype.ids, &archetype.base_order, prefab_ids(&self.archetypes)),
                    "stale inherited ids of {:?}",
                    archetype.id
                );
            }
            // Union columns name an alive target in every row.
            for (position, &id) in archetype.ids.iter().enumerate() {
                if !is_union_id(id) {
                    continue;
                }
                let column = archetype.columns[position];
                assert!(column >= 0, "union id {id:?} of {:?} has no column", archetype.id);
                for (row, &UnionCell { target, .. }) in archetype.union_column(column as usize).iter().enumerate() {
                    assert!(
                        entities.location(target).is_some() && target != Entity::UNION && !target.id().is_wildcard(),
                        "{:?} row {row}: union {id:?} targets {target:?}, which is not alive or not a target",
                        archetype.id
                    );
                }
            }
            for (row, &entity) in archetype.entities().iter().enumerate() {
                let expected = EntityLocation { archetype: archetype.id, row: row as u32 };
                assert_eq!(entities.location(entity), Some(expected), "{entity:?} in {:?} row {row}", archetype.id);
            }
            for (position, &id) in archetype.ids.iter().enumerate() {
                let record = self.index.get(id).and_then(|record| record.get(archetype.id));
                let record = record.unwrap_or_else(|| panic!("component index lacks {id:?} in {:?}", archetype.id));
                assert_eq!(record.position as usize, position, "component index position of {id:?}");
                assert_eq!(record.column, archetype.columns[position], "component index column of {id:?}");
            }
        }
        assert_eq!(self.by_ids.len() + self.by_ordered_ids.len(), live, "a type lookup names a dead archetype");
        // Empty and non-empty tables apart, in every record.
        self.index.check_partition(|archetype| self.archetypes[archetype.index()].is_empty());
        for record in self.index.records() {
            let id = record.id().expect("records() yields used records");
            for entry in record.archetypes() {
                let archetype = &self.archetypes[entry.archetype.index()];
                let matches = archetype.ids.iter().filter(|&&candidate| id.matches(candidate)).count();
                assert_eq!(matches, entry.count as usize, "component index count of {id:?} in {:?}", archetype.id);
            }
            for archetype in &self.archetypes {
                let contains = archetype.ids.iter().any(|&candidate| id.matches(candidate));
                assert_eq!(
                    record.get(archetype.id).is_some(),
                    contains,
                    "component index of {id:?} vs {:?}",
                    archetype.id
                );
            }
        }
    }
}

impl Index<ArchetypeId> for Archetypes {
    type Output = Archetype;

    #[inline]
    fn index(&self, id: ArchetypeId) -> &Archetype {
        &self.archetypes[id.index()]
    }
}

/// The type of an archetype of `archetypes` if it holds prefabs (what
/// inheritance reads through).
fn prefab_ids<'a>(archetypes: &'a [Archetype]) -> impl Fn(ArchetypeId) -> (&'a [Id], &'a [u32], bool) {
    |archetype| {
        let archetype = &archetypes[archetype.index()];
        (archetype.ids(), archetype.base_order(), archetype.flags().contains(ArchetypeFlags::PREFAB))
    }
}
