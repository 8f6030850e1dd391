//! The component index: id -> the archetypes containing it.
//!
//! For every id of every archetype there is a record, and for pairs also records
//! for `(R, *)` and `(*, T)`; the wildcard `*` alone lists every type with at
//! least one id. Each [`ArchetypeRecord`] says where the id (or the first id
//! matching the wildcard) sits in the type, its column (-1 for tags) and how many
//! ids match.
//!
//! Empty and non-empty tables apart: every [`IdRecord`] keeps its entries
//! partitioned, the archetypes with rows first ([`IdRecord::non_empty`]), then
//! the empty ones ([`IdRecord::empty`]). When a table gains its first row or
//! loses its last, [`ComponentIndex::set_archetype_empty`] moves the
//! archetype's entry across the split of each of its records: one swap per
//! record (found by a short scan, or the position map of big records). A new
//! archetype starts empty; a deleted one is empty.
//!
//! Low plain ids use a flat array, the rest a hash map.

use crate::entity::{ArchetypeId, Entity, Id};
use crate::util::FxHashMap;

const FLAT_RECORD_LIMIT: u32 = 4096;

/// Where one id sits in one archetype.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ArchetypeRecord {
    /// The archetype.
    pub archetype: ArchetypeId,
    /// Position of the first matching id in the archetype's type.
    pub position: u16,
    /// How many ids of the type match (1 for an exact id; wildcards may match more).
    pub count: u16,
    /// Column of the first matching id, or -1 if it has no column.
    pub column: i32,
}

/// The archetypes containing one id.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct A(u8);
/// #[derive(Component)]
/// struct B(u8);
/// let mut world = World::new();
/// world.spawn((A(1),));
/// world.spawn((A(1), B(2)));
/// let a = world.component_id::<A>().unwrap();
/// let record = world.archetypes().component_index().get(a.id()).unwrap();
/// assert_eq!(record.archetypes().len(), 2);
/// ```
///
/// The entries are partitioned: archetypes with rows first, then empty ones.
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct A(u8);
/// #[derive(Component)]
/// struct B(u8);
/// let mut world = World::new();
/// let e = world.spawn((A(1), B(2))).id();
/// world.spawn((A(1),));
/// world.entity_mut(e).remove::<B>(); // (A, B) is empty now
/// let a = world.component_id::<A>().unwrap();
/// let record = world.archetypes().component_index().get(a.id()).unwrap();
/// assert_eq!(record.non_empty().len(), 1);
/// assert_eq!(record.empty().len(), 1);
/// ```
#[derive(Default, Debug)]
pub struct IdRecord {
    id: Option<Id>,
    /// `archetypes[..non_empty]` have rows, `archetypes[non_empty..]` none.
    archetypes: Vec<ArchetypeRecord>,
    non_empty: u32,
    /// Where each archetype's entry is in `archetypes`; only built once the
    /// record lists more than [`LINEAR_RECORD_LIMIT`] archetypes (below, a scan is
    /// faster, and most records, such as a pair's, list few).
    positions: FxHashMap<ArchetypeId, u32>,
}

/// Records with at most this many archetypes are searched linearly.
const LINEAR_RECORD_LIMIT: usize = 16;

impl IdRecord {
    /// The id this record is for.
    pub fn id(&self) -> Option<Id> {
        self.id
    }

    /// Every archetype containing the id, with where it sits: those with rows
    /// ([`IdRecord::non_empty`]) then the empty ones ([`IdRecord::empty`]).
    #[inline]
    pub fn archetypes(&self) -> &[ArchetypeRecord] {
        &self.archetypes
    }

    /// The archetypes containing the id whose tables have at least one row.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::new();
    /// let e = world.spawn((A(1),)).id();
    /// let a = world.component_id::<A>().unwrap().id();
    /// let index = world.archetypes().component_index();
    /// assert_eq!(index.get(a).unwrap().non_empty().len(), 1);
    /// world.despawn(e);
    /// let index = world.archetypes().component_index();
    /// assert!(index.get(a).unwrap().non_empty().is_empty());
    /// ```
    #[inline]
    pub fn non_empty(&self) -> &[ArchetypeRecord] {
        &self.archetypes[..self.non_empty as usize]
    }

    /// The archetypes containing the id whose tables have no rows.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::new();
    /// let e = world.spawn((A(1),)).id();
    /// world.despawn(e);
    /// let a = world.component_id::<A>().unwrap().id();
    /// let record = world.archetypes().component_index().get(a).unwrap();
    /// assert_eq!(record.empty().len(), 1);
    /// ```
    #[inline]
    pub fn empty(&self) -> &[ArchetypeRecord] {
        &self.archetypes[self.non_empty as usize..]
    }

    /// Where the id sits in `archetype`, if it is there.
    #[inline]
    pub fn get(&self, archetype: ArchetypeId) -> Option<&ArchetypeRecord> {
        self.index_of(archetype).map(|index| &self.archetypes[index])
    }

    #[inline]
    fn index_of(&self, archetype: ArchetypeId) -> Option<usize> {
        if self.archetypes.len() <= LINEAR_RECORD_LIMIT {
            self.archetypes.iter().position(|entry| entry.archetype == archetype)
        } else {
            self.positions.get(&archetype).map(|&index| index as usize)
        }
    }

    /// Removes `archetype`'s entry (whatever its count); `false` if absent.
    fn remove(&mut self, archetype: ArchetypeId) -> bool {
        let Some(mut index) = self.index_of(archetype) else {
            return false;
        };
        if index < self.non_empty as usize {
            // Deleted archetypes are empty, but keep the partition either way:
            // move the entry to the end of the non-empty part first.
            let last = self.non_empty as usize - 1;
            self.swap_entries(index, last);
            self.non_empty -= 1;
            index = last;
        }
        let indexed = self.archetypes.len() > LINEAR_RECORD_LIMIT;
        self.archetypes.swap_remove(index);
        if indexed {
            self.positions.remove(&archetype);
            if self.archetypes.len() <= LINEAR_RECORD_LIMIT {
                self.positions = FxHashMap::default();
            } else if let Some(moved) = self.archetypes.get(index) {
                self.positions.insert(moved.archetype, index as u32);
            }
        }
        true
    }

    /// Swaps entries `a` and `b`, keeping the position map right.
    #[inline]
    fn swap_entries(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.archetypes.swap(a, b);
        if self.archetypes.len() > LINEAR_RECORD_LIMIT {
            self.positions.insert(self.archetypes[a].archetype, a as u32);
            self.positions.insert(self.archetypes[b].archetype, b as u32);
        }
    }

    /// Moves `archetype`'s entry to the empty part (`empty`) or the non-empty
    /// part, with one swap across the split; nothing if it is already there
    /// (an archetype with two ids matching a wildcard record meets it twice).
    #[inline]
    fn set_empty(&mut self, archetype: ArchetypeId, empty: bool) {
        let Some(index) = self.find_on_side(archetype, empty) else {
            debug_assert!(self.index_of(archetype).is_some(), "{archetype:?} missing from the record of {:?}", self.id);
            return;
        };
        let split = self.non_empty as usize;
        if empty {
            self.swap_entries(index, split - 1);
            self.non_empty -= 1;
        } else {
            self.swap_entries(index, split);
            self.non_empty += 1;
        }
    }

    /// The index of `archetype`'s entry if it is in the non-empty part
    /// (`non_empty`) or the empty part. The entry next to the split is tried
    /// first: a table that churns between 0 and 1 rows sits there after its
    /// last swap, so it is found without a search.
    #[inline]
    fn find_on_side(&self, archetype: ArchetypeId, non_empty: bool) -> Option<usize> {
        let split = self.non_empty as usize;
        let entries = &self.archetypes;
        let (side, boundary) =
            if non_empty { (0..split, split.checked_sub(1)) } else { (split..entries.len(), Some(split)) };
        if let Some(boundary) = boundary
            && entries.get(boundary).is_some_and(|entry| entry.archetype == archetype)
        {
            return Some(boundary);
        }
        if entries.len() > LINEAR_RECORD_LIMIT {
            let index = *self.positions.get(&archetype)? as usize;
            side.contains(&index).then_some(index)
        } else if non_empty {
            entries[side].iter().rposition(|entry| entry.archetype == archetype)
        } else {
            entries[side].iter().position(|entry| entry.archetype == archetype).map(|index| index + split)
        }
    }

    /// Adds `record` (of a new, so empty, archetype: it joins the empty part),
    /// or counts one more matching id if its archetype is the last one listed:
    /// an archetype registers all its ids at once, so another id of the same
    /// archetype matching this record (a wildcard) arrives while it is still the
    /// last entry.
    fn insert(&mut self, record: ArchetypeRecord) {
        if let Some(last) = self.archetypes.last_mut()
            && last.archetype == record.archetype
        {
            last.count += record.count;
            return;
        }
        debug_assert!(self.index_of(record.archetype).is_none(), "{:?} registered twice", record.archetype);
        self.archetypes.push(record);
        if self.archetypes.len() == LINEAR_RECORD_LIMIT + 1 {
            self.positions = self.archetypes.iter().enumerate().map(|(i, e)| (e.archetype, i as u32)).collect();
        } else if self.archetypes.len() > LINEAR_RECORD_LIMIT {
            self.positions.insert(record.archetype, self.archetypes.len() as u32 - 1);
        }
    }
}

/// id -> [`IdRecord`]. See the module docs.
#[derive(Default)]
pub struct ComponentIndex {
    flat: Vec<IdRecord>,
    hashed: FxHashMap<Id, IdRecord>,
    /// Emptied archetype lists of dropped hashed records, for the next new
    /// ones: pair ids come and go with their targets (a parent's `(ChildOf,
    /// parent)` and `(*, parent)`), and their lists stay short.
    spare_lists: Vec<Vec<ArchetypeRecord>>,
}

/// How many emptied lists [`ComponentIndex`] keeps for reuse.
const SPARE_LIST_LIMIT: usize = 4096;
/// Lists with more room than this are freed rather than kept.
const SPARE_LIST_CAPACITY: usize = 16;

impl ComponentIndex {
    #[inline]
    fn is_flat(id: Id) -> bool {
        !id.is_pair() && id.first_index() < FLAT_RECORD_LIMIT
    }

    /// The record of `id`, if any archetype contains it.
    #[inline]
    pub fn get(&self, id: Id) -> Option<&IdRecord> {
        let record =
            if Self::is_flat(id) { self.flat.get(id.first_index() as usize)? } else { self.hashed.get(&id)? };
        (record.id == Some(id)).then_some(record)
    }

    fn entry(&mut self, id: Id) -> &mut IdRecord {
        let record = if Self::is_flat(id) {
            let slot = id.first_index() as usize;
            if slot >= self.flat.len() {
                self.flat.resize_with(slot + 1, IdRecord::default);
            }
            &mut self.flat[slot]
        } else {
            let spare_lists = &mut self.spare_lists;
            self.hashed.entry(id).or_insert_with(|| IdRecord {
                archetypes: spare_lists.pop().unwrap_or_default(),
                ..IdRecord::default()
            })
        };
        debug_assert!(record.id.is_none() || record.id == Some(id), "two live ids share index {}", id.first_index());
        record.id = Some(id);
        record
    }

    /// Records a new archetype: `ids` is its sorted type, `columns[i]` the column
    /// of `ids[i]` (-1 for none).
    pub(crate) fn register_archetype(&mut self, archetype: ArchetypeId, ids: &[Id], columns: &[i32]) {
        for (position, (&id, &column)) in ids.iter().zip(columns).enumerate() {
            let record = ArchetypeRecord { archetype, position: position as u16, count: 1, column };
            self.entry(id).insert(record);
            if id.is_pair() {
                let wildcard = Entity::WILDCARD.index();
                self.entry(Id::pair_from_indices(id.first_index(), wildcard)).insert(record);
                self.entry(Id::pair_from_indices(wildcard, id.second_index())).insert(record);
            }
        }
        if !ids.is_empty() {
            let record = ArchetypeRecord { archetype, position: 0, count: ids.len() as u16, column: columns[0] };
            self.entry(Entity::WILDCARD.id()).insert(record);
        }
    }

    /// Forgets a deleted archetype of type `ids`; records left with no archetype
    /// are dropped.
    pub(crate) fn unregister_archetype(&mut self, archetype: ArchetypeId, ids: &[Id]) {
        let wildcard = Entity::WILDCARD.index();
        for &id in ids {
            self.remove_from(id, archetype);
            if id.is_pair() {
                self.remove_from(Id::pair_from_indices(id.first_index(), wildcard), archetype);
                self.remove_from(Id::pair_from_indices(wildcard, id.second_index()), archetype);
            }
        }
        if !ids.is_empty() {
            self.remove_from(Entity::WILDCARD.id(), archetype);
        }
    }

    /// Moves archetype `archetype` of type `ids` to the empty (`empty`) or the
    /// non-empty part of each of its records (its ids, their wildcard forms and
    /// `*`): call it when its table loses its last row or gains its first.
    /// O(1) per record.
    pub(crate) fn set_archetype_empty(&mut self, archetype: ArchetypeId, ids: &[Id], empty: bool) {
        let wildcard = Entity::WILDCARD.index();
        for &id in ids {
            self.record_mut(id).set_empty(archetype, empty);
            if id.is_pair() {
                self.record_mut(Id::pair_from_indices(id.first_index(), wildcard)).set_empty(archetype, empty);
                self.record_mut(Id::pair_from_indices(wildcard, id.second_index())).set_empty(archetype, empty);
            }
        }
        if !ids.is_empty() {
            self.record_mut(Entity::WILDCARD.id()).set_empty(archetype, empty);
        }
    }

    /// The existing record of `id` (every id of a registered archetype has one).
    #[inline]
    fn record_mut(&mut self, id: Id) -> &mut IdRecord {
        let record =
            if Self::is_flat(id) { self.flat.get_mut(id.first_index() as usize) } else { self.hashed.get_mut(&id) };
        let record = record.expect("an archetype's id has a record");
        debug_assert_eq!(record.id, Some(id), "record of {id:?} reused by another id");
        record
    }

    fn remove_from(&mut self, id: Id, archetype: ArchetypeId) {
        if Self::is_flat(id) {
            if let Some(record) = self.flat.get_mut(id.first_index() as usize)
                && record.id == Some(id)
                && record.remove(archetype)
                && record.archetypes.is_empty()
            {
                *record = IdRecord::default();
            }
        } else if let Some(record) = self.hashed.get_mut(&id)
            && record.remove(archetype)
            && record.archetypes.is_empty()
            && let Some(record) = self.hashed.remove(&id)
            && self.spare_lists.len() < SPARE_LIST_LIMIT
            && record.archetypes.capacity() <= SPARE_LIST_CAPACITY
        {
            self.spare_lists.push(record.archetypes);
        }
    }

    /// Verifies each record's own bookkeeping: the split is in bounds, the
    /// position map (when built) locates every entry, and `is_empty` agrees
    /// with the side of the split each entry is on.
    ///
    /// # Panics
    /// Panics describing the first violation.
    pub(crate) fn check_partition(&self, is_empty: impl Fn(ArchetypeId) -> bool) {
        for record in self.records() {
            let id = record.id;
            assert!(record.non_empty as usize <= record.archetypes.len(), "split of {id:?} out of bounds");
            for (index, entry) in record.archetypes.iter().enumerate() {
                let empty = is_empty(entry.archetype);
                assert_eq!(
                    index >= record.non_empty as usize,
                    empty,
                    "{:?} is on the wrong side of the split of {id:?} (empty: {empty})",
                    entry.archetype
                );
                assert_eq!(record.index_of(entry.archetype), Some(index), "{id:?} mislocates {:?}", entry.archetype);
            }
            if record.archetypes.len() > LINEAR_RECORD_LIMIT {
                assert_eq!(record.positions.len(), record.archetypes.len(), "position map of {id:?} is off");
            } else {
                assert!(record.positions.is_empty(), "small record {id:?} keeps a position map");
            }
        }
    }

    /// Every record, for invariant checks.
    pub(crate) fn records(&self) -> impl Iterator<Item = &IdRecord> {
        self.flat.iter().filter(|record| record.id.is_some()).chain(self.hashed.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archetype(index: usize) -> ArchetypeId {
        ArchetypeId::new(index)
    }

    /// A record listing archetypes `0..count`, all empty.
    fn record(count: usize) -> IdRecord {
        let mut record = IdRecord::default();
        for index in 0..count {
            record.insert(ArchetypeRecord { archetype: archetype(index), position: 0, count: 1, column: 0 });
        }
        record
    }

    /// Checks the split against `non_empty` (the archetypes with rows) and the
    /// position map against the entries.
    fn check(record: &IdRecord, non_empty: &[usize]) {
        let mut listed: Vec<usize> = record.non_empty().iter().map(|entry| entry.archetype.index()).collect();
        listed.sort_unstable();
        let mut expected = non_empty.to_vec();
        expected.sort_unstable();
        assert_eq!(listed, expected);
        assert!(record.empty().iter().all(|entry| !non_empty.contains(&entry.archetype.index())));
        assert_eq!(record.non_empty().len() + record.empty().len(), record.archetypes().len());
        for (index, entry) in record.archetypes().iter().enumerate() {
            assert_eq!(record.index_of(entry.archetype), Some(index));
            assert_eq!(record.get(entry.archetype), Some(entry));
        }
        if record.archetypes().len() > LINEAR_RECORD_LIMIT {
            assert_eq!(record.positions.len(), record.archetypes().len());
        }
    }

    #[test]
    fn new_archetypes_start_empty() {
        let record = record(3);
        assert!(record.non_empty().is_empty());
        assert_eq!(record.empty().len(), 3);
    }

    #[test]
    fn swaps_across_the_split_small_and_big() {
        for count in [3, LINEAR_RECORD_LIMIT, LINEAR_RECORD_LIMIT + 1, 100] {
            let mut record = record(count);
            let mut non_empty = Vec::new();
            for index in (0..count).step_by(3) {
                record.set_empty(archetype(index), false);
                non_empty.push(index);
                check(&record, &non_empty);
            }
            // Idempotent: a second "non-empty" (a wildcard meeting the same
            // archetype twice) changes nothing.
            record.set_empty(archetype(0), false);
            check(&record, &non_empty);
            for index in (0..count).step_by(6) {
                record.set_empty(archetype(index), true);
                non_empty.retain(|&other| other != index);
                check(&record, &non_empty);
                record.set_empty(archetype(index), true);
                check(&record, &non_empty);
            }
        }
    }

    #[test]
    fn removal_keeps_the_partition() {
        for count in [4, LINEAR_RECORD_LIMIT + 2, 64] {
            let mut record = record(count);
            let mut non_empty: Vec<usize> = (0..count).filter(|index| index % 2 == 0).collect();
            for &index in &non_empty {
                record.set_empty(archetype(index), false);
            }
            check(&record, &non_empty);
            // Remove an empty one, then a non-empty one, from the front.
            for index in [1, 0, count - 1, count / 2] {
                assert!(record.remove(archetype(index)));
                assert!(!record.remove(archetype(index)));
                non_empty.retain(|&other| other != index);
                check(&record, &non_empty);
            }
            // Shrinking below the linear limit drops the position map.
            let remaining: Vec<usize> = record.archetypes().iter().map(|entry| entry.archetype.index()).collect();
            for index in remaining {
                record.remove(archetype(index));
                non_empty.retain(|&other| other != index);
                check(&record, &non_empty);
            }
            assert!(record.archetypes().is_empty());
            assert_eq!(record.non_empty, 0);
        }
    }

    #[test]
    fn index_moves_archetypes_of_pairs_across_every_record() {
        let mut index = ComponentIndex::default();
        let (likes, bob, alice) = (Entity::from_raw(10, 0), Entity::from_raw(11, 0), Entity::from_raw(12, 0));
        let plain = Entity::from_raw(5, 0).id();
        let ids_a = [plain, Id::pair(likes, bob), Id::pair(likes, alice)];
        let mut ids_a = ids_a.to_vec();
        ids_a.sort_unstable();
        let ids_b = [plain];
        index.register_archetype(archetype(1), &ids_a, &[0, -1, -1]);
        index.register_archetype(archetype(2), &ids_b, &[0]);
        let is_empty_all = |_: ArchetypeId| true;
        index.check_partition(is_empty_all);
        index.set_archetype_empty(archetype(1), &ids_a, false);
        index.check_partition(|id| id != archetype(1));
        let likes_any = Id::pair(likes, Entity::WILDCARD);
        assert_eq!(index.get(likes_any).unwrap().non_empty().len(), 1);
        assert_eq!(index.get(likes_any).unwrap().non_empty()[0].count, 2);
        assert_eq!(index.get(Entity::WILDCARD.id()).unwrap().non_empty().len(), 1);
        assert_eq!(index.get(Id::pair(Entity::WILDCARD, bob)).unwrap().non_empty().len(), 1);
        index.set_archetype_empty(archetype(2), &ids_b, false);
        index.check_partition(|_| false);
        assert_eq!(index.get(plain).unwrap().non_empty().len(), 2);
        index.set_archetype_empty(archetype(1), &ids_a, true);
        index.check_partition(|id| id == archetype(1));
        assert_eq!(index.get(plain).unwrap().empty()[0].archetype, archetype(1));
        index.unregister_archetype(archetype(1), &ids_a);
        index.check_partition(|_| false);
        assert!(index.get(likes_any).is_none());
    }
}
