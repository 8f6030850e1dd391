//! The entity index: a paged sparse set mapping entity index -> [`EntityRecord`].
//!
//! Layout (as in Flecs):
//! * `pages`: sparse, paged array indexed by entity index. A page is allocated on
//!   first use, so a huge index costs one page, not a huge array. A page holds
//!   each record in two halves: the *hot* half (generation and location, 12
//!   bytes), which every lookup, insert and remove reads, and the *cold* half
//!   (dense position and flags, 8 bytes), which only allocation, despawn and the
//!   lifecycle paths touch. Five hot halves share a cache line where a whole
//!   20-byte record would fit three.
//! * `dense`: every index ever handed out but not retired, in three parts:
//!   `dense[..alive_count]` the alive entities, then the `recyclable` dead ones
//!   whose index lies in the active range, then the dead ones outside it. A dead
//!   entry already carries the generation its next incarnation will have.
//! * `retired`: how many indices were retired ([`EntityIndex::retire`]): freed
//!   for good, in no list, never handed out again (component entities, whose
//!   ids caches such as query states keep).
//!
//! **Ranges.** New entities take indices from the *active range* (half-open,
//! [`EntityIndex::FULL_RANGE`] by default, [`EntityIndex::set_range`] to change):
//! first the recyclable dead slots, then *fresh* indices (never used) from the
//! window `[next, range.end)` of a counter shared with [`RemoteEntities`]
//! handles (see `remote.rs`). A range starts its fresh indices after the highest
//! index in it that was ever used, so every index in `[next, range.end)` is
//! unused. Dead slots outside the active range stay dead (stale handles stay
//! stale) until a range containing them is active again. Component entities
//! take the lowest unused index outside the range's fresh window, whatever the
//! range ([`EntityIndex::alloc_low`]): tables indexed by component index stay small.
//! [`EntityIndex::alloc_at`] makes one given id alive (it must lie in the range);
//! the never-used indices its id skipped are kept (`gaps`) and handed out
//! before fresh ones.
//!
//! Invariants (checked by [`EntityIndex::check_invariants`]):
//! * for every `i < dense.len()`, `record(dense[i].index()).dense == i`;
//! * every record reached from `dense` carries the generation of its dense entry,
//!   with [`DEAD`] set when it is in the dead part; a never used record carries
//!   `DEAD` alone and no dense slot, a retired one no dense slot and the private
//!   `RETIRED` flag; generations have 31 bits, so an entity `e` is alive iff its
//!   hot half's generation equals `e`'s (the alive check reads the hot half only);
//! * the recyclable dead entries are exactly the dead ones inside the range;
//! * `flushed <= next`, and no index in `[next, range.end)` was ever used;
//! * index 0 is never handed out; a retired index is never handed out again.
//!
//! Allocation pops the first recyclable dead slot or claims a fresh index (O(1));
//! freeing swaps the entity with the last alive one and bumps its generation (O(1)).
//!
//! **Reservation** hands out ids through a shared borrow (for `Commands`, which
//! run without `&mut World`): an atomic counter `reserved` counts ids promised but
//! not yet alive. The first reservations denote the recyclable dead slots in
//! dense order (`dense[alive_count + n]`, what the next `alloc`s would recycle,
//! in that order); later ones claim fresh indices from the shared counter at
//! once. [`RemoteEntities`] claim fresh indices the same way from other
//! threads. [`EntityIndex::flush`] makes every reserved id alive: the counted
//! dead slots in order, then every unused index the counter passed since the
//! last flush (`[flushed, next)`; the index's own fresh allocations are in use
//! and skipped). `alloc` and `free` refuse to run while `Commands`-style
//! reservations are pending, since either would change which dead slots they
//! denote; remote reservations never denote dead slots, so they need no such care.

use core::ops::Range;
use core::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use super::id::{Entity, EntityLocation};
use super::remote::{FreshIndices, RemoteEntities};

const PAGE_BITS: u32 = 12;
const PAGE_SIZE: usize = 1 << PAGE_BITS;

/// Flags on an entity's record that tell despawn which extra work it needs.
///
/// # Examples
/// ```
/// use ecs::entity::EntityFlags;
/// let flags = EntityFlags::IS_COMPONENT | EntityFlags::HAS_SPARSE;
/// assert!(flags.contains(EntityFlags::HAS_SPARSE));
/// assert!(!flags.contains(EntityFlags::IS_TARGET));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct EntityFlags(u32);

impl EntityFlags {
    /// No flags.
    pub const EMPTY: EntityFlags = EntityFlags(0);
    /// The entity is a component (or relationship) id used by archetypes.
    pub const IS_COMPONENT: EntityFlags = EntityFlags(1);
    /// The entity is the target of at least one pair.
    pub const IS_TARGET: EntityFlags = EntityFlags(1 << 1);
    /// The entity has values in at least one sparse set.
    pub const HAS_SPARSE: EntityFlags = EntityFlags(1 << 2);
    /// The entity is internal (a component, a wildcard, an observer): not
    /// counted, not matched by queries that do not ask for it.
    pub const INTERNAL: EntityFlags = EntityFlags(1 << 3);
    /// Transient: the entity is part of a despawn being planned (cleanup's
    /// visited mark; cleared if the despawn is refused, gone with the entity
    /// otherwise).
    pub const DELETING: EntityFlags = EntityFlags(1 << 4);
    /// Observers watch this entity alone (`EntityWorldMut::observe`): they are
    /// despawned with it.
    pub const OBSERVED: EntityFlags = EntityFlags(1 << 5);
    /// The entity is never despawned (the wildcards, the built-in components the
    /// world itself relies on): `despawn` returns `false`, and a cleanup that
    /// would delete it removes the dying ids from it instead.
    pub const PERMANENT: EntityFlags = EntityFlags(1 << 6);
    /// An observer watches a pair naming this entity (`(R, e)`, `(*, e)`,
    /// `(e, *)`): pairs hold no generation, so those observers are despawned
    /// with it (else they would hear about the next entity with its index).
    pub const PAIR_OBSERVED: EntityFlags = EntityFlags(1 << 7);

    /// Whether every flag of `other` is set.
    #[inline]
    pub const fn contains(self, other: EntityFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any flag of `other` is set.
    #[inline]
    pub const fn intersects(self, other: EntityFlags) -> bool {
        self.0 & other.0 != 0
    }
}

impl EntityFlags {
    /// These flags without those of `other`.
    #[inline]
    pub const fn without(self, other: EntityFlags) -> EntityFlags {
        EntityFlags(self.0 & !other.0)
    }
}

impl core::ops::BitOr for EntityFlags {
    type Output = EntityFlags;
    fn bitor(self, rhs: EntityFlags) -> EntityFlags {
        EntityFlags(self.0 | rhs.0)
    }
}

impl EntityRecord {
    /// The record stored as `hot` and `cold` halves.
    #[inline]
    fn from_halves(hot: HotRecord, cold: ColdRecord) -> EntityRecord {
        EntityRecord { dense: cold.dense, location: hot.location, flags: cold.flags }
    }
}

impl core::ops::BitOrAssign for EntityFlags {
    fn bitor_assign(&mut self, rhs: EntityFlags) {
        self.0 |= rhs.0;
    }
}

/// A snapshot of one entity's record: where the entity lives and its flags.
#[derive(Clone, Copy, Debug)]
pub struct EntityRecord {
    /// Position of the entity in the dense array.
    dense: u32,
    /// Where the entity's data lives.
    pub location: EntityLocation,
    /// What despawn must take care of.
    pub flags: EntityFlags,
}

/// Set in a hot half's generation while its index is not alive: entity
/// generations have 31 bits, so no handle matches such a record.
const DEAD: u32 = 1 << 31;

/// Set in a retired record's flags: its index is never handed out again.
const RETIRED: EntityFlags = EntityFlags(1 << 31);

/// The half of a record every lookup reads.
#[derive(Clone, Copy)]
struct HotRecord {
    /// The generation alive handles carry, or a generation with [`DEAD`] set.
    generation: u32,
    /// Where the entity's data lives (meaningless while dead).
    location: EntityLocation,
}

/// The half of a record only allocation, despawn and lifecycle paths touch.
#[derive(Clone, Copy)]
struct ColdRecord {
    /// Position of the entity in the dense array.
    dense: u32,
    /// What despawn must take care of.
    flags: EntityFlags,
}

const EMPTY_HOT: HotRecord = HotRecord { generation: DEAD, location: EntityLocation::INVALID };
const EMPTY_COLD: ColdRecord = ColdRecord { dense: u32::MAX, flags: EntityFlags::EMPTY };

/// The records of `PAGE_SIZE` consecutive indices, in two arrays. The arrays
/// have a fixed length, so indexing them by `index & (PAGE_SIZE - 1)` needs no
/// bounds check.
struct Page {
    hot: Box<[HotRecord; PAGE_SIZE]>,
    cold: Box<[ColdRecord; PAGE_SIZE]>,
}

/// A fresh page. Kept out of line: building the page on the caller's stack would
/// give every caller a page-sized frame to probe on each call.
#[cold]
#[inline(never)]
fn new_page() -> Page {
    fn filled<T: Copy>(value: T) -> Box<[T; PAGE_SIZE]> {
        let array: Box<[T]> = vec![value; PAGE_SIZE].into_boxed_slice();
        array.try_into().unwrap_or_else(|_| unreachable!("a page has PAGE_SIZE records"))
    }
    Page { hot: filled(EMPTY_HOT), cold: filled(EMPTY_COLD) }
}

/// The offset of `index` within its page.
#[inline]
fn slot(index: u32) -> usize {
    index as usize & (PAGE_SIZE - 1)
}

/// The entity index. See the module docs for the layout and invariants.
///
/// # Examples
/// ```
/// use ecs::entity::EntityIndex;
/// let mut index = EntityIndex::default();
/// let a = index.alloc();
/// let b = index.alloc();
/// assert_eq!(index.alive_count(), 2);
/// assert!(index.free(a).is_some());
/// assert!(!index.is_alive(a));
/// let c = index.alloc(); // recycles a's index with the next generation
/// assert_eq!(c.index(), a.index());
/// assert_eq!(c.generation(), a.generation() + 1);
/// assert!(index.is_alive(b) && index.is_alive(c));
/// index.check_invariants();
/// ```
pub struct EntityIndex {
    pages: Vec<Option<Page>>,
    dense: Vec<Entity>,
    alive_count: u32,
    /// How many dead entries, right after the alive ones, lie in the range.
    recyclable: u32,
    /// How many indices were retired (freed for good, in no list).
    retired: u32,
    /// Ids reserved through `&self` and not yet made alive.
    reserved: AtomicU32,
    /// The active range: new entities get indices in it.
    range: Range<u32>,
    /// The window of fresh indices, shared with [`RemoteEntities`] handles.
    fresh: Arc<FreshIndices>,
    /// Every index below it that the fresh counter passed is alive, dead or
    /// retired, or was skipped for good (see the module docs).
    flushed: u32,
    /// [`EntityIndex::alloc_low`] looks for an unused index from here on.
    low_cursor: u32,
    /// Never-used indices below `flushed` that [`EntityIndex::alloc_at`]
    /// skipped (its id lay above them): [`EntityIndex::alloc`] hands them out
    /// before fresh ones, those in the active range. Checked when taken: one
    /// that `alloc_at` or `alloc_low` used since is passed over.
    gaps: Vec<Range<u32>>,
}

impl Default for EntityIndex {
    fn default() -> Self {
        let range = EntityIndex::FULL_RANGE;
        EntityIndex {
            pages: Vec::new(),
            dense: Vec::new(),
            alive_count: 0,
            recyclable: 0,
            retired: 0,
            reserved: AtomicU32::new(0),
            fresh: Arc::new(FreshIndices::new(range.start, range.start, range.end)),
            flushed: range.start,
            range,
            low_cursor: 1,
            gaps: Vec::new(),
        }
    }
}

/// Why an id could not be made alive ([`EntityIndex::alloc_at`], `World::spawn_at`).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::SpawnError;
/// let mut world = World::new();
/// let e = world.spawn_empty().id();
/// let error = world.spawn_at(e).err().unwrap();
/// assert_eq!(error, SpawnError::Alive { entity: e, existing: e });
/// assert!(error.to_string().contains("is alive"));
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SpawnError {
    /// An entity with that index is alive (`existing`, maybe another generation).
    Alive {
        /// The id asked for.
        entity: Entity,
        /// The alive entity holding its index.
        existing: Entity,
    },
    /// The index lies outside the active entity range.
    OutOfRange {
        /// The id asked for.
        entity: Entity,
        /// The active range.
        range: Range<u32>,
    },
    /// The index was retired (it was a component's id, which caches may still
    /// hold): it is never handed out again.
    Retired {
        /// The id asked for.
        entity: Entity,
    },
    /// The index was just reserved (by `Commands` or a `RemoteEntities` handle)
    /// as `reserved`, which becomes alive at the next flush.
    Reserved {
        /// The id asked for.
        entity: Entity,
        /// The reserved id holding its index.
        reserved: Entity,
    },
}

impl core::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SpawnError::Alive { entity, existing } => {
                write!(f, "cannot spawn {entity:?}: {existing:?} is alive with that index")
            }
            SpawnError::OutOfRange { entity, range } => {
                write!(f, "cannot spawn {entity:?}: its index lies outside the active entity range {range:?}")
            }
            SpawnError::Retired { entity } => {
                write!(f, "cannot spawn {entity:?}: its index was retired (a despawned component's id)")
            }
            SpawnError::Reserved { entity, reserved } => {
                write!(f, "cannot spawn {entity:?}: its index is reserved as {reserved:?}, alive at the next flush")
            }
        }
    }
}

impl std::error::Error for SpawnError {}

/// Panics: the active range has no fresh index left.
#[cold]
#[inline(never)]
#[track_caller]
fn range_exhausted(range: &Range<u32>) -> ! {
    panic!("the entity range {range:?} is exhausted: no fresh index left for a new entity")
}

impl EntityIndex {
    /// The default active range: every index but 0 (never used) and `u32::MAX`
    /// (the index of [`Entity::PLACEHOLDER`], never alive).
    pub const FULL_RANGE: Range<u32> = 1..u32::MAX;

    /// Component entities ([`EntityIndex::alloc_low`]) take the lowest unused
    /// index: below this one while the first entities leave one free.
    pub const LOW_INDEX_LIMIT: u32 = 1024;

    /// How many entities are alive.
    #[inline]
    pub fn alive_count(&self) -> usize {
        self.alive_count as usize
    }

    /// The alive entities, in dense order (unspecified, changes on free).
    pub fn alive(&self) -> &[Entity] {
        &self.dense[..self.alive_count as usize]
    }

    /// Makes room for `additional` more entities without reallocating the dense array.
    pub fn reserve(&mut self, additional: usize) {
        self.dense.reserve(additional.saturating_sub(self.recyclable as usize));
    }

    /// The page of `index`, if it was ever allocated.
    #[inline]
    fn page(&self, index: u32) -> Option<&Page> {
        self.pages.get((index >> PAGE_BITS) as usize)?.as_ref()
    }

    /// The page of `index`, mutably, if it was ever allocated.
    #[inline]
    fn existing_page_mut(&mut self, index: u32) -> Option<&mut Page> {
        self.pages.get_mut((index >> PAGE_BITS) as usize)?.as_mut()
    }

    /// The page of `index`, allocated (with the pages before it) if needed.
    #[inline]
    fn page_mut(&mut self, index: u32) -> &mut Page {
        let page_index = (index >> PAGE_BITS) as usize;
        if page_index >= self.pages.len() {
            self.pages.resize_with(page_index + 1, || None);
        }
        self.pages[page_index].get_or_insert_with(new_page)
    }

    /// The hot half of `index`'s record, if its page exists.
    #[inline]
    fn hot(&self, index: u32) -> Option<&HotRecord> {
        Some(&self.page(index)?.hot[slot(index)])
    }

    /// The cold half of `index`'s record, if its page exists.
    #[inline]
    fn cold(&self, index: u32) -> Option<&ColdRecord> {
        Some(&self.page(index)?.cold[slot(index)])
    }

    /// The hot half of an alive `entity`'s record.
    #[inline]
    fn alive_hot(&self, entity: Entity) -> Option<&HotRecord> {
        self.hot(entity.index()).filter(|hot| hot.generation == entity.generation())
    }

    /// The cold half of `index`'s record (allocating its page if needed).
    #[inline]
    fn cold_mut(&mut self, index: u32) -> &mut ColdRecord {
        &mut self.page_mut(index).cold[slot(index)]
    }

    /// Whether `index` was ever handed out (alive, dead or retired).
    #[inline]
    fn is_used(&self, index: u32) -> bool {
        self.cold(index).is_some_and(|cold| cold.dense != u32::MAX || cold.flags.contains(RETIRED))
    }

    /// Puts `entity` at dense position `position`, pointing its record there.
    #[inline]
    fn set_dense(&mut self, position: usize, entity: Entity) {
        self.dense[position] = entity;
        self.cold_mut(entity.index()).dense = position as u32;
    }

    /// Swaps two dense entries, keeping their records in step.
    #[inline]
    fn swap_dense(&mut self, a: usize, b: usize) {
        if a != b {
            let (first, second) = (self.dense[a], self.dense[b]);
            self.set_dense(a, second);
            self.set_dense(b, first);
        }
    }

    /// Adds `entity` (whose index is in no dense slot) to the alive part, keeping
    /// the recyclable and the other dead entries apart.
    fn push_alive(&mut self, entity: Entity) {
        let alive = self.alive_count as usize;
        let boundary = alive + self.recyclable as usize;
        self.dense.push(entity);
        let last = self.dense.len() - 1;
        self.cold_mut(entity.index()).dense = last as u32;
        // The first non-recyclable dead entry goes last, the first recyclable one
        // to the boundary, `entity` to the end of the alive part.
        self.swap_dense(boundary, last);
        self.swap_dense(alive, boundary);
        self.alive_count += 1;
    }

    /// Writes the record of `entity`, just put in the alive part: its
    /// generation, no location, no flags.
    #[inline]
    fn write_alive_record(&mut self, entity: Entity) {
        let page = self.page_mut(entity.index());
        page.hot[slot(entity.index())] =
            HotRecord { generation: entity.generation(), location: EntityLocation::INVALID };
        page.cold[slot(entity.index())].flags = EntityFlags::EMPTY;
    }

    /// Panics if `Commands`-style reservations are pending.
    #[inline]
    #[track_caller]
    fn assert_no_local_reservations(&mut self, what: &str) {
        assert!(*self.reserved.get_mut() == 0, "EntityIndex::{what} with pending reservations: flush first");
    }

    /// Claims a fresh index from the active range.
    #[inline]
    #[track_caller]
    fn claim_fresh(&mut self) -> u32 {
        let Some(index) = self.fresh.claim() else { range_exhausted(&self.range) };
        if index == self.flushed {
            // Nobody claimed in between: nothing below `index + 1` is pending.
            self.flushed = index + 1;
        }
        index
    }

    /// Takes a never-used index of the active range below `flushed` out of
    /// [`EntityIndex::gaps`](EntityIndex), else claims a fresh one. (An index
    /// at or above `flushed` belongs to the fresh counter's window, or to a
    /// reservation pending in it, whatever a gap says: a range set since may
    /// have moved the counter below it.)
    #[cold]
    #[track_caller]
    fn claim_gap_or_fresh(&mut self) -> u32 {
        let usable = self.range.start..self.range.end.min(self.flushed);
        while let Some(position) =
            self.gaps.iter().position(|gap| gap.start.max(usable.start) < gap.end.min(usable.end))
        {
            let gap = self.gaps[position].clone();
            let index = gap.start.max(usable.start);
            // What is left of the gap on either side of `index`.
            let (below, above) = (gap.start..index, index + 1..gap.end);
            match (below.is_empty(), above.is_empty()) {
                (true, true) => {
                    self.gaps.swap_remove(position);
                }
                (false, true) => self.gaps[position] = below,
                (true, false) => self.gaps[position] = above,
                (false, false) => {
                    self.gaps[position] = below;
                    self.gaps.push(above);
                }
            }
            if !self.is_used(index) {
                return index;
            }
        }
        self.claim_fresh()
    }

    /// Reserves an id through a shared borrow: the entity is not alive until the
    /// owner flushes ([`EntityIndex::flush`]), but the id is final and can be
    /// used in commands right away.
    ///
    /// # Panics
    /// Panics, naming it, if the active range has no recyclable slot and no
    /// fresh index left.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityIndex, EntityLocation};
    /// let mut index = EntityIndex::default();
    /// let a = index.alloc();
    /// index.free(a);
    /// let (r1, r2) = (index.reserve_entity(), index.reserve_entity());
    /// assert_eq!(r1.index(), a.index()); // dead slots first
    /// assert!(!index.is_alive(r1));
    /// index.flush(|_| EntityLocation::INVALID);
    /// assert!(index.is_alive(r1) && index.is_alive(r2));
    /// ```
    #[track_caller]
    pub fn reserve_entity(&self) -> Entity {
        let n = self.reserved.fetch_add(1, Ordering::Relaxed);
        if n < self.recyclable {
            self.dense[(self.alive_count + n) as usize]
        } else {
            let index = self.fresh.claim().unwrap_or_else(|| range_exhausted(&self.range));
            Entity::from_raw(index, 0)
        }
    }

    /// A handle reserving fresh ids from other threads (see [`RemoteEntities`]);
    /// they become alive at the next [`EntityIndex::flush`].
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityIndex, EntityLocation};
    /// let mut index = EntityIndex::default();
    /// let remote = index.remote();
    /// let reserved = std::thread::spawn(move || remote.reserve()).join().unwrap();
    /// let own = index.alloc();
    /// assert_ne!(own, reserved);
    /// index.flush(|_| EntityLocation::INVALID);
    /// assert!(index.is_alive(reserved));
    /// index.check_invariants();
    /// ```
    pub fn remote(&self) -> RemoteEntities {
        RemoteEntities::new(Arc::clone(&self.fresh))
    }

    /// Whether reservations (by [`EntityIndex::reserve_entity`] or a
    /// [`RemoteEntities`] handle) wait for [`EntityIndex::flush`].
    #[inline]
    pub fn has_reserved(&mut self) -> bool {
        *self.reserved.get_mut() != 0 || self.fresh.next() != self.flushed
    }

    /// Makes every reserved id alive (see the module docs), calling `place` for
    /// each to learn its location.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityIndex, EntityLocation};
    /// let mut index = EntityIndex::default();
    /// let local = index.reserve_entity();
    /// let remote = index.remote().reserve();
    /// let mut placed = Vec::new();
    /// index.flush(|entity| {
    ///     placed.push(entity);
    ///     EntityLocation::INVALID
    /// });
    /// assert_eq!(placed, [local, remote]);
    /// assert!(!index.has_reserved());
    /// ```
    pub fn flush(&mut self, mut place: impl FnMut(Entity) -> EntityLocation) {
        let local = core::mem::take(self.reserved.get_mut());
        // The first `recyclable` local reservations denote the recyclable dead
        // slots in order; the others claimed fresh indices, swept below.
        for _ in 0..local.min(self.recyclable) {
            let entity = self.alloc();
            let location = place(entity);
            self.set_location(entity, location);
        }
        let claimed = self.fresh.next();
        self.sweep(self.flushed, claimed, &mut place);
        self.flushed = claimed;
    }

    /// Makes alive (generation 0) every unused index in `from..to`: indices the
    /// fresh counter passed for reservations.
    fn sweep(&mut self, from: u32, to: u32, place: &mut impl FnMut(Entity) -> EntityLocation) {
        for index in from..to {
            if !self.is_used(index) {
                let entity = Entity::from_raw(index, 0);
                self.push_alive(entity);
                self.write_alive_record(entity);
                let location = place(entity);
                self.set_location(entity, location);
            }
        }
    }

    /// Allocates an entity in the active range, recycling a dead index in it
    /// when there is one. The new entity has no location yet
    /// ([`EntityLocation::INVALID`]) and no flags.
    ///
    /// # Panics
    /// Panics if the active range is exhausted (naming it), or if
    /// [`EntityIndex::reserve_entity`] reservations are pending (flush first:
    /// allocating now would hand out a reserved id).
    #[track_caller]
    pub fn alloc(&mut self) -> Entity {
        self.assert_no_local_reservations("alloc");
        let entity = if self.recyclable > 0 {
            let entity = self.dense[self.alive_count as usize];
            self.alive_count += 1;
            self.recyclable -= 1;
            entity
        } else {
            let index = if self.gaps.is_empty() { self.claim_fresh() } else { self.claim_gap_or_fresh() };
            let entity = Entity::from_raw(index, 0);
            if self.dense.len() == self.alive_count as usize {
                // Nothing dead to keep apart (the common case): one page lookup.
                let position = self.alive_count;
                self.dense.push(entity);
                self.alive_count += 1;
                let page = self.page_mut(entity.index());
                page.hot[slot(entity.index())] = HotRecord { generation: 0, location: EntityLocation::INVALID };
                page.cold[slot(entity.index())] = ColdRecord { dense: position, flags: EntityFlags::EMPTY };
                return entity;
            }
            self.push_alive(entity);
            entity
        };
        self.write_alive_record(entity);
        entity
    }

    /// Allocates an entity with the lowest unused index outside the active
    /// range's fresh window (below [`EntityIndex::LOW_INDEX_LIMIT`] while one
    /// is free there), else as [`EntityIndex::alloc`]. Component entities use
    /// it, so that component ids stay small whatever the range (Flecs does the
    /// same): a high range never gives a component one of its indices while a
    /// lower one is unused.
    ///
    /// # Panics
    /// As [`EntityIndex::alloc`].
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityIndex, EntityLocation};
    /// let mut index = EntityIndex::default();
    /// index.set_range(1000..2000, |_| EntityLocation::INVALID);
    /// assert_eq!(index.alloc().index(), 1000);
    /// assert_eq!(index.alloc_low().index(), 1);
    /// index.check_invariants();
    /// ```
    #[track_caller]
    pub fn alloc_low(&mut self) -> Entity {
        self.assert_no_local_reservations("alloc_low");
        let mut index = self.low_cursor;
        // Past the limit too: under a high range, a component must not take an
        // index of it (tables indexed by component index would grow to it).
        // `low_cursor` only moves past used indices, so the scan is amortized.
        while index < u32::MAX {
            if self.is_used(index) {
                // Used indices never become unused again.
                if index == self.low_cursor {
                    self.low_cursor += 1;
                }
                index += 1;
                continue;
            }
            if self.range.contains(&index) {
                if index >= self.flushed {
                    // The range's fresh window (or a reservation pending in
                    // it): the range's own; look above it.
                    index = self.range.end;
                    continue;
                }
                if let Some(gap) = self.gaps.iter().find(|gap| gap.contains(&index)) {
                    // Kept for the range's spawns (`alloc_at` skipped it).
                    index = gap.end;
                    continue;
                }
            }
            let entity = Entity::from_raw(index, 0);
            self.push_alive(entity);
            self.write_alive_record(entity);
            if index == self.low_cursor {
                self.low_cursor += 1;
            }
            return entity;
        }
        self.alloc()
    }

    /// Makes exactly `entity` (index and generation) alive, with no location
    /// yet and no flags. Reservations whose indices it skips are made alive on
    /// the way, placed by `place`.
    ///
    /// # Errors
    /// [`SpawnError::OutOfRange`] if the index lies outside the active range,
    /// [`SpawnError::Alive`] if an entity with that index is alive,
    /// [`SpawnError::Retired`] if the index was retired, and
    /// [`SpawnError::Reserved`] if it is reserved and not flushed yet.
    ///
    /// # Panics
    /// Panics if [`EntityIndex::reserve_entity`] reservations are pending.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, EntityIndex, EntityLocation, SpawnError};
    /// let mut index = EntityIndex::default();
    /// let wanted = Entity::from_raw(500, 7);
    /// assert_eq!(index.alloc_at(wanted, |_| EntityLocation::INVALID), Ok(()));
    /// assert!(index.is_alive(wanted));
    /// let again = index.alloc_at(wanted, |_| EntityLocation::INVALID);
    /// assert_eq!(again, Err(SpawnError::Alive { entity: wanted, existing: wanted }));
    /// assert_eq!(index.alloc().index(), 1); // the indices it skipped come first
    /// index.check_invariants();
    /// ```
    pub fn alloc_at(
        &mut self,
        entity: Entity,
        mut place: impl FnMut(Entity) -> EntityLocation,
    ) -> Result<(), SpawnError> {
        self.assert_no_local_reservations("alloc_at");
        let index = entity.index();
        if !self.range.contains(&index) {
            return Err(SpawnError::OutOfRange { entity, range: self.range.clone() });
        }
        if let Some(existing) = self.entity_at(index) {
            return Err(SpawnError::Alive { entity, existing });
        }
        if let Some(&cold) = self.cold(index).filter(|_| self.is_used(index)) {
            if cold.flags.contains(RETIRED) {
                return Err(SpawnError::Retired { entity });
            }
            // Dead and in the range: among the recyclable entries.
            let position = cold.dense as usize;
            let alive = self.alive_count as usize;
            debug_assert!(position >= alive && position < alive + self.recyclable as usize);
            self.swap_dense(position, alive);
            self.dense[alive] = entity;
            self.alive_count += 1;
            self.recyclable -= 1;
        } else if index < self.flushed {
            // Never used, and skipped by the fresh counter for good.
            self.push_alive(entity);
        } else {
            match self.fresh.claim_through(index) {
                Err(_) => return Err(SpawnError::Reserved { entity, reserved: Entity::from_raw(index, 0) }),
                Ok(previous_next) => {
                    // Reservations claimed since the last flush, then the skipped
                    // indices `previous_next..index`, below `flushed` now: kept
                    // for later allocations.
                    self.sweep(self.flushed, previous_next, &mut place);
                    if previous_next < index {
                        self.gaps.push(previous_next..index);
                    }
                    self.flushed = index + 1;
                    self.push_alive(entity);
                }
            }
        }
        self.write_alive_record(entity);
        Ok(())
    }

    /// The active range: new entities get indices in it.
    ///
    /// # Examples
    /// ```
    /// let index = ecs::entity::EntityIndex::default();
    /// assert_eq!(index.range(), ecs::entity::EntityIndex::FULL_RANGE);
    /// ```
    pub fn range(&self) -> Range<u32> {
        self.range.clone()
    }

    /// Makes `range` (half-open, over entity indices) the active range. Pending
    /// remote reservations of the old range are made alive (placed by `place`).
    /// Fresh indices of `range` start after the highest index in it ever used;
    /// dead slots in it are recycled first, and dead slots outside it are left
    /// dead until a range containing them is active again.
    ///
    /// # Panics
    /// Panics if `range` is empty or contains index 0, or if
    /// [`EntityIndex::reserve_entity`] reservations are pending.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityIndex, EntityLocation};
    /// let mut index = EntityIndex::default();
    /// let low = index.alloc();
    /// index.set_range(1000..2000, |_| EntityLocation::INVALID);
    /// let high = index.alloc();
    /// assert_eq!(high.index(), 1000);
    /// index.free(low); // outside the range: not recycled into it
    /// assert_eq!(index.alloc().index(), 1001);
    /// index.check_invariants();
    /// ```
    #[track_caller]
    pub fn set_range(&mut self, range: Range<u32>, mut place: impl FnMut(Entity) -> EntityLocation) {
        assert!(range.start != 0, "the entity range {range:?} contains index 0, which is never used");
        assert!(range.start < range.end, "the entity range {range:?} is empty");
        self.assert_no_local_reservations("set_range");
        let highest_used = self.highest_used_in(range.clone());
        let flushed = self.flushed;
        let mut next = range.start;
        let previous_next = self.fresh.replace(range.start, |old_next| {
            next = highest_used.map_or(range.start, |highest| highest + 1);
            // Reservations pending in `flushed..old_next` may lie in the new range.
            if flushed < old_next && old_next > range.start && flushed < range.end {
                next = next.max(old_next.min(range.end));
            }
            (next, range.end)
        });
        self.sweep(flushed, previous_next, &mut place);
        self.flushed = next;
        self.range = range;
        // The dead entries in the new range become the recyclable ones.
        let alive = self.alive_count as usize;
        let mut boundary = alive;
        for position in alive..self.dense.len() {
            if self.range.contains(&self.dense[position].index()) {
                self.swap_dense(position, boundary);
                boundary += 1;
            }
        }
        self.recyclable = (boundary - alive) as u32;
    }

    /// The highest index in `range` that was ever used (alive, dead or retired).
    fn highest_used_in(&self, range: Range<u32>) -> Option<u32> {
        if range.is_empty() || self.pages.is_empty() {
            return None;
        }
        let last_page = ((range.end - 1) >> PAGE_BITS).min(self.pages.len() as u32 - 1);
        let first_page = range.start >> PAGE_BITS;
        for page_index in (first_page..=last_page).rev() {
            if self.pages[page_index as usize].is_none() {
                continue;
            }
            let page_start = page_index << PAGE_BITS;
            let low = range.start.max(page_start);
            let high = (range.end - 1).min(page_start + (PAGE_SIZE as u32 - 1));
            if let Some(index) = (low..=high).rev().find(|&index| self.is_used(index)) {
                return Some(index);
            }
        }
        None
    }

    /// Frees an alive entity and returns its last record; `None` if `entity` is
    /// not alive (already freed or stale). Its index is recycled while it lies in
    /// the active range.
    ///
    /// # Panics
    /// Panics if [`EntityIndex::reserve_entity`] reservations are pending
    /// (freeing would change the ids they denote).
    pub fn free(&mut self, entity: Entity) -> Option<EntityRecord> {
        self.assert_no_local_reservations("free");
        let last = self.alive_count.checked_sub(1)?;
        let next = entity.next_generation();
        // The entity's own record, read and rewritten through one page lookup.
        let index = entity.index();
        let page = self.existing_page_mut(index)?;
        let (hot, cold) = (&mut page.hot[slot(index)], &mut page.cold[slot(index)]);
        if hot.generation != entity.generation() {
            return None;
        }
        let record = EntityRecord::from_halves(*hot, *cold);
        *hot = HotRecord { generation: next.generation() | DEAD, location: EntityLocation::INVALID };
        *cold = ColdRecord { dense: last, flags: EntityFlags::EMPTY };
        // The last alive entity takes its dense slot; its own slot holds the
        // next generation of the freed index, first of the dead.
        let position = record.dense;
        let last_entity = self.dense[last as usize];
        if last_entity != entity {
            self.dense[position as usize] = last_entity;
            // An alive entity's page exists: no allocation path.
            let page = self.existing_page_mut(last_entity.index()).expect("an alive entity has a page");
            page.cold[slot(last_entity.index())].dense = position;
        }
        self.dense[last as usize] = next;
        self.alive_count = last;
        if self.range.contains(&index) {
            self.recyclable += 1;
        } else {
            // Behind the recyclable entries, first of the others.
            self.swap_dense(last as usize, (last + self.recyclable) as usize);
        }
        Some(record)
    }

    /// Frees an alive entity for good and returns its last record, like
    /// [`EntityIndex::free`], but its index is never handed out again: every
    /// handle with it stays dead, and an id kept elsewhere (a component id in a
    /// query state) can never name a new entity. `None` if `entity` is not alive.
    ///
    /// # Panics
    /// Panics if reservations are pending.
    ///
    /// # Examples
    /// ```
    /// let mut index = ecs::entity::EntityIndex::default();
    /// let a = index.alloc();
    /// assert!(index.retire(a).is_some());
    /// let b = index.alloc();
    /// assert_ne!(b.index(), a.index()); // not recycled
    /// assert_eq!(index.entity_at(a.index()), None);
    /// index.check_invariants();
    /// ```
    pub fn retire(&mut self, entity: Entity) -> Option<EntityRecord> {
        let record = self.free(entity)?;
        // `free` put the index among the dead: take it out of `dense`.
        let index = entity.index();
        let mut position = self.cold(index).expect("a freed index has its record").dense as usize;
        let alive = self.alive_count as usize;
        if position < alive + self.recyclable as usize {
            let last_recyclable = alive + self.recyclable as usize - 1;
            self.swap_dense(position, last_recyclable);
            self.recyclable -= 1;
            position = last_recyclable;
        }
        let last = self.dense.len() - 1;
        self.swap_dense(position, last);
        self.dense.pop();
        *self.cold_mut(index) = ColdRecord { dense: u32::MAX, flags: RETIRED };
        self.retired += 1;
        Some(record)
    }

    /// Whether `entity` is alive (a stale handle is not).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.alive_hot(entity).is_some()
    }

    /// A snapshot of an alive entity's record; `None` for dead or stale handles.
    /// (It reads both halves; [`EntityIndex::location`] reads only the hot one.)
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityFlags, EntityIndex};
    /// let mut index = EntityIndex::default();
    /// let e = index.alloc();
    /// *index.flags_mut(e).unwrap() |= EntityFlags::IS_TARGET;
    /// assert!(index.get(e).unwrap().flags.contains(EntityFlags::IS_TARGET));
    /// index.free(e);
    /// assert!(index.get(e).is_none());
    /// ```
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<EntityRecord> {
        let page = self.page(entity.index())?;
        let (hot, cold) = (page.hot[slot(entity.index())], page.cold[slot(entity.index())]);
        (hot.generation == entity.generation()).then_some(EntityRecord::from_halves(hot, cold))
    }

    /// The flags of an alive entity, to change; `None` for dead or stale handles.
    #[inline]
    pub fn flags_mut(&mut self, entity: Entity) -> Option<&mut EntityFlags> {
        let index = entity.index();
        let page = self.existing_page_mut(index)?;
        (page.hot[slot(index)].generation == entity.generation()).then(|| &mut page.cold[slot(index)].flags)
    }

    /// The location of an alive entity.
    #[inline]
    pub fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.alive_hot(entity).map(|hot| hot.location)
    }

    /// Sets the location of an entity known to be alive.
    ///
    /// # Panics
    /// Panics (in debug builds) if `entity` is not alive.
    #[inline]
    pub fn set_location(&mut self, entity: Entity, location: EntityLocation) {
        debug_assert!(self.is_alive(entity), "set_location on dead entity {entity:?}");
        let index = entity.index();
        // Alive entities always have their page: the growth path stays out of line.
        match self.existing_page_mut(index) {
            Some(page) => page.hot[slot(index)].location = location,
            None => self.set_location_slow(index, location),
        }
    }

    #[cold]
    #[inline(never)]
    fn set_location_slow(&mut self, index: u32, location: EntityLocation) {
        self.page_mut(index).hot[slot(index)].location = location;
    }

    /// The alive entity whose index is `index`, if any.
    ///
    /// # Examples
    /// ```
    /// let mut index = ecs::entity::EntityIndex::default();
    /// let e = index.alloc();
    /// assert_eq!(index.entity_at(e.index()), Some(e));
    /// assert_eq!(index.entity_at(99), None);
    /// ```
    pub fn entity_at(&self, index: u32) -> Option<Entity> {
        let generation = self.hot(index)?.generation;
        (generation & DEAD == 0).then(|| Entity::from_raw(index, generation))
    }

    /// The alive entity whose index is `index` and its flags, through one
    /// page lookup; `None` if none is alive there.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{EntityFlags, EntityIndex};
    /// let mut index = EntityIndex::default();
    /// let e = index.alloc();
    /// assert_eq!(index.alive_at(e.index()), Some((e, EntityFlags::EMPTY)));
    /// assert_eq!(index.alive_at(99), None);
    /// ```
    #[inline]
    pub fn alive_at(&self, index: u32) -> Option<(Entity, EntityFlags)> {
        let page = self.page(index)?;
        let generation = page.hot[slot(index)].generation;
        (generation & DEAD == 0).then(|| (Entity::from_raw(index, generation), page.cold[slot(index)].flags))
    }

    /// Verifies the invariants in the module docs.
    ///
    /// # Panics
    /// Panics with a description of the first violated invariant.
    pub fn check_invariants(&self) {
        assert!(self.alive_count as usize <= self.dense.len(), "alive_count past the dense array");
        let listed =
            self.pages.iter().flatten().flat_map(|page| page.cold.iter()).filter(|cold| cold.dense != u32::MAX);
        assert_eq!(listed.count(), self.dense.len(), "a record outside the dense array claims a dense slot");
        for (position, entity) in self.dense.iter().enumerate() {
            assert_ne!(entity.index(), 0, "index 0 handed out");
            let page = self.page(entity.index()).unwrap_or_else(|| panic!("no record for {entity:?}"));
            let (hot, cold) = (page.hot[slot(entity.index())], page.cold[slot(entity.index())]);
            assert_eq!(cold.dense as usize, position, "record of {entity:?} points at the wrong dense slot");
            let dead = if position < self.alive_count as usize { 0 } else { DEAD };
            assert_eq!(hot.generation, entity.generation() | dead, "record of {entity:?} has another generation");
            if position < self.alive_count as usize {
                assert!(self.is_alive(*entity), "{entity:?} in the alive part but not alive");
            } else {
                assert!(!self.is_alive(*entity), "{entity:?} in the dead part but alive");
                let recyclable = position < (self.alive_count + self.recyclable) as usize;
                assert_eq!(
                    recyclable,
                    self.range.contains(&entity.index()),
                    "dead {entity:?} recyclable or not against the range {:?}",
                    self.range
                );
            }
        }
        assert!(
            (self.alive_count + self.recyclable) as usize <= self.dense.len(),
            "more recyclable entries than dead ones"
        );
        let retired = self
            .pages
            .iter()
            .flatten()
            .flat_map(|page| page.cold.iter())
            .filter(|cold| cold.flags.contains(RETIRED))
            .inspect(|cold| assert_eq!(cold.dense, u32::MAX, "a retired record claims a dense slot"))
            .count();
        assert_eq!(retired, self.retired as usize, "retired count is off");
        let next = self.fresh.next();
        assert_eq!(self.fresh.end(), self.range.end, "the fresh window ends elsewhere than the range");
        assert!(self.range.start <= next && next <= self.range.end, "fresh index {next} outside {:?}", self.range);
        assert!(self.flushed <= next, "flushed mark {} past the fresh counter {next}", self.flushed);
        if let Some(used) = self.highest_used_in(next..self.range.end) {
            panic!("index {used} is in use but at or above the fresh counter {next}");
        }
    }
}
