//! The entity index: a paged sparse set mapping entity index -> [`EntityRecord`].
//!
//! Layout (as in Flecs):
//! * `pages`: sparse, paged array indexed by entity index. A page is allocated on
//!   first use, so a huge index costs one page, not a huge array.
//! * `dense`: every index ever handed out. `dense[..alive_count]` are the alive
//!   entities, `dense[alive_count..]` the dead ones, each already carrying the
//!   generation its next incarnation will have.
//!
//! Invariants (checked by [`EntityIndex::check_invariants`]):
//! * for every `i < dense.len()`, `record(dense[i].index()).dense == i`;
//! * every record reached from `dense` carries the generation of its dense entry,
//!   so an entity `e` is alive iff its record's `dense < alive_count` and the
//!   record's generation is `e`'s (the alive check never touches `dense`);
//! * index 0 is never handed out.
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
    /// The entity is internal (a component, a wildcard...): not counted, not
    /// matched by queries that do not ask for it.
    pub const INTERNAL: EntityFlags = EntityFlags(1 << 3);
    /// Transient: the entity is part of a despawn being planned (cleanup's
    /// visited mark; cleared if the despawn is refused, gone with the entity
    /// otherwise).
    pub const DELETING: EntityFlags = EntityFlags(1 << 4);
    /// Observers watch this entity alone (`EntityWorldMut::observe`): they are
    /// despawned with it.
    pub const OBSERVED: EntityFlags = EntityFlags(1 << 5);

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

impl core::ops::BitOrAssign for EntityFlags {
    fn bitor_assign(&mut self, rhs: EntityFlags) {
        self.0 |= rhs.0;
    }
}

/// One slot of the sparse array: where the entity lives and its flags.
#[derive(Clone, Copy, Debug)]
pub struct EntityRecord {
    /// Position of the entity in the dense array.
    dense: u32,
    /// The generation of `dense[self.dense]`: alive handles carry it.
    generation: u32,
    /// Where the entity's data lives.
    pub location: EntityLocation,
    /// What despawn must take care of.
    pub flags: EntityFlags,
}

const EMPTY_RECORD: EntityRecord =
    EntityRecord { dense: u32::MAX, generation: 0, location: EntityLocation::INVALID, flags: EntityFlags::EMPTY };

/// A page has a fixed length, so indexing it by `index & (PAGE_SIZE - 1)` needs no bounds check.
type Page = Box<[EntityRecord; PAGE_SIZE]>;

/// A fresh page. Kept out of line: building the page on the caller's stack would
/// give every caller a page-sized frame to probe on each call.
#[cold]
#[inline(never)]
fn new_page() -> Page {
    let page: Box<[EntityRecord]> = vec![EMPTY_RECORD; PAGE_SIZE].into_boxed_slice();
    page.try_into().unwrap_or_else(|_| unreachable!("a page has PAGE_SIZE records"))
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

    #[inline]
    fn record(&self, index: u32) -> Option<&EntityRecord> {
        let page = self.pages.get((index >> PAGE_BITS) as usize)?.as_ref()?;
        Some(&page[index as usize & (PAGE_SIZE - 1)])
    }

    #[inline]
    fn record_mut(&mut self, index: u32) -> &mut EntityRecord {
        let page_index = (index >> PAGE_BITS) as usize;
        if page_index >= self.pages.len() {
            self.pages.resize_with(page_index + 1, || None);
        }
        let page = self.pages[page_index].get_or_insert_with(new_page);
        &mut page[index as usize & (PAGE_SIZE - 1)]
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
            let index = u32::try_from(self.dense.len() + 1 + (n - dead)).expect("entity index space exhausted");
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
            let index = u32::try_from(self.dense.len() + 1).expect("entity index space exhausted");
            let entity = Entity::from_raw(index, 0);
            self.dense.push(entity);
            entity
        };
        self.alive_count += 1;
        let record = self.record_mut(entity.index());
        record.dense = position;
        record.generation = entity.generation();
        record.location = EntityLocation::INVALID;
        record.flags = EntityFlags::EMPTY;
        entity
    }

    /// Frees an alive entity and returns its last record; `None` if `entity` is
    /// not alive (already freed or stale).
    ///
    /// # Panics
    /// Panics if reservations are pending (freeing would change the ids they denote).
    pub fn free(&mut self, entity: Entity) -> Option<EntityRecord> {
        assert!(!self.has_reserved(), "EntityIndex::free with pending reservations: take_reserved first");
        let record = *self.get(entity)?;
        let position = record.dense;
        let last = self.alive_count - 1;
        let last_entity = self.dense[last as usize];
        self.dense.swap(position as usize, last as usize);
        self.record_mut(last_entity.index()).dense = position;
        let next = entity.next_generation();
        self.dense[last as usize] = next;
        let freed = self.record_mut(entity.index());
        freed.dense = last;
        freed.generation = next.generation();
        freed.location = EntityLocation::INVALID;
        freed.flags = EntityFlags::EMPTY;
        self.alive_count = last;
        Some(record)
    }

    /// Whether `entity` is alive (a stale handle is not).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// The record of an alive entity; `None` for dead or stale handles.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&EntityRecord> {
        let record = self.record(entity.index())?;
        (record.dense < self.alive_count && record.generation == entity.generation()).then_some(record)
    }

    /// The mutable record of an alive entity; `None` for dead or stale handles.
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut EntityRecord> {
        if !self.is_alive(entity) {
            return None;
        }
        Some(self.record_mut(entity.index()))
    }

    /// The location of an alive entity.
    #[inline]
    pub fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.get(entity).map(|record| record.location)
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
        match self.pages.get_mut((index >> PAGE_BITS) as usize) {
            Some(Some(page)) => page[index as usize & (PAGE_SIZE - 1)].location = location,
            _ => self.set_location_slow(index, location),
        }
    }

    #[cold]
    #[inline(never)]
    fn set_location_slow(&mut self, index: u32, location: EntityLocation) {
        self.record_mut(index).location = location;
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
        let record = self.record(index)?;
        (record.dense < self.alive_count).then(|| self.dense[record.dense as usize])
    }

    /// Verifies the invariants in the module docs.
    ///
    /// # Panics
    /// Panics with a description of the first violated invariant.
    pub fn check_invariants(&self) {
        assert!(self.alive_count as usize <= self.dense.len(), "alive_count past the dense array");
        for (position, entity) in self.dense.iter().enumerate() {
            assert_ne!(entity.index(), 0, "index 0 handed out");
            let record = self.record(entity.index()).unwrap_or_else(|| panic!("no record for {entity:?}"));
            assert_eq!(record.dense as usize, position, "record of {entity:?} points at the wrong dense slot");
            assert_eq!(record.generation, entity.generation(), "record of {entity:?} has another generation");
            if position < self.alive_count as usize {
                assert!(self.is_alive(*entity), "{entity:?} in the alive part but not alive");
            } else {
                assert!(!self.is_alive(*entity), "{entity:?} in the dead part but alive");
            }
        }
    }
}
