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
//! * `dense`: every index ever handed out but not retired. `dense[..alive_count]`
//!   are the alive entities, `dense[alive_count..]` the dead ones, each already
//!   carrying the generation its next incarnation will have.
//! * `retired`: how many indices were retired ([`EntityIndex::retire`]): freed
//!   for good, in no list, never handed out again (component entities, whose
//!   ids caches such as query states keep). Fresh indices start after
//!   `dense.len() + retired`, the number of indices ever handed out.
//!
//! Invariants (checked by [`EntityIndex::check_invariants`]):
//! * for every `i < dense.len()`, `record(dense[i].index()).dense == i`;
//! * every record reached from `dense` carries the generation of its dense entry,
//!   with [`DEAD`] set when it is in the dead part; a never used record carries
//!   `DEAD` alone, a retired one `DEAD` with its next generation; Generations have 31 bits, so an entity `e` is alive iff its hot
//!   half's generation equals `e`'s (the alive check reads the hot half only);
//! * index 0 is never handed out; a retired index is never handed out again.
//!
//! Allocation pops the first dead slot (O(1)); freeing swaps the entity with the
//! last alive one and bumps its generation (O(1)).
//!
//! **Reservation** hands out ids through a shared borrow (for `Commands`, which
//! run without `&mut World`): an atomic counter `reserved` counts ids promised but
//! not yet alive. The `n`-th reservation is exactly what the `n`-th `alloc` would
//! return: first the dead slots in dense order (`dense[alive_count + n]`), then
//! fresh indices past the end. [`EntityIndex::take_reserved`] hands the count to
//! the owner, which then calls `alloc` that many times to make them alive, in
//! order. `alloc` and `free` refuse to run while reservations are pending, since
//! either would change which ids the pending reservations denote.

use core::sync::atomic::{AtomicU32, Ordering};

use super::id::{Entity, EntityLocation};

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
#[derive(Default)]
pub struct EntityIndex {
    pages: Vec<Option<Page>>,
    dense: Vec<Entity>,
    alive_count: u32,
    /// How many indices were retired (freed for good, in no list).
    retired: u32,
    /// Ids reserved through `&self` and not yet made alive.
    reserved: AtomicU32,
}

impl EntityIndex {
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
        let dead = self.dense.len() - self.alive_count as usize;
        self.dense.reserve(additional.saturating_sub(dead));
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

    /// Reserves an id through a shared borrow: the entity is not alive until the
    /// owner takes the reservations ([`EntityIndex::take_reserved`]) and allocates
    /// them, but the id is final and can be used in commands right away.
    ///
    /// # Panics
    /// Panics if the index space is exhausted.
    ///
    /// # Examples
    /// ```
    /// let mut index = ecs::entity::EntityIndex::default();
    /// let a = index.alloc();
    /// index.free(a);
    /// let (r1, r2) = (index.reserve_entity(), index.reserve_entity());
    /// assert_eq!(r1.index(), a.index()); // dead slots first
    /// assert!(!index.is_alive(r1));
    /// assert_eq!(index.take_reserved(), 2);
    /// assert_eq!((index.alloc(), index.alloc()), (r1, r2));
    /// ```
    pub fn reserve_entity(&self) -> Entity {
        let n = self.reserved.fetch_add(1, Ordering::Relaxed) as usize;
        let first_dead = self.alive_count as usize;
        let dead = self.dense.len() - first_dead;
        if n < dead {
            self.dense[first_dead + n]
        } else {
            let index = u32::try_from(self.handed_out() + 1 + (n - dead)).expect("entity index space exhausted");
            Entity::from_raw(index, 0)
        }
    }

    /// The number of pending reservations, resetting it: the caller must now
    /// `alloc` that many entities, which are the reserved ids in order.
    pub fn take_reserved(&mut self) -> u32 {
        core::mem::take(self.reserved.get_mut())
    }

    /// Whether reservations are pending.
    #[inline]
    pub fn has_reserved(&mut self) -> bool {
        *self.reserved.get_mut() != 0
    }

    /// Allocates an entity, recycling a dead index when there is one. The new
    /// entity has no location yet ([`EntityLocation::INVALID`]) and no flags.
    ///
    /// # Panics
    /// Panics if all 2^32 - 1 indices are alive, or if reservations are pending
    /// (take them first: allocating now would hand out a reserved id).
    pub fn alloc(&mut self) -> Entity {
        assert!(!self.has_reserved(), "EntityIndex::alloc with pending reservations: take_reserved first");
        let position = self.alive_count;
        let entity = if (position as usize) < self.dense.len() {
            self.dense[position as usize]
        } else {
            let index = u32::try_from(self.handed_out() + 1).expect("entity index space exhausted");
            let entity = Entity::from_raw(index, 0);
            self.dense.push(entity);
            entity
        };
        self.alive_count += 1;
        let page = self.page_mut(entity.index());
        page.hot[slot(entity.index())] =
            HotRecord { generation: entity.generation(), location: EntityLocation::INVALID };
        page.cold[slot(entity.index())] = ColdRecord { dense: position, flags: EntityFlags::EMPTY };
        entity
    }

    /// Frees an alive entity and returns its last record; `None` if `entity` is
    /// not alive (already freed or stale).
    ///
    /// # Panics
    /// Panics if reservations are pending (freeing would change the ids they denote).
    pub fn free(&mut self, entity: Entity) -> Option<EntityRecord> {
        assert!(!self.has_reserved(), "EntityIndex::free with pending reservations: take_reserved first");
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
            self.cold_mut(last_entity.index()).dense = position;
        }
        self.dense[last as usize] = next;
        self.alive_count = last;
        Some(record)
    }

    /// How many indices were ever handed out (alive, dead or retired): fresh
    /// indices start after it.
    #[inline]
    fn handed_out(&self) -> usize {
        self.dense.len() + self.retired as usize
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
        // `free` put the index first among the dead: take it out of `dense`.
        let position = self.alive_count as usize;
        debug_assert_eq!(self.dense[position].index(), entity.index());
        let last = self.dense.len() - 1;
        self.dense.swap(position, last);
        self.dense.pop();
        if position != last {
            let moved = self.dense[position].index();
            self.cold_mut(moved).dense = position as u32;
        }
        self.cold_mut(entity.index()).dense = u32::MAX;
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
            }
        }
    }
}
