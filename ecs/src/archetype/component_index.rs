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
//! record. A new archetype starts empty; a deleted one is empty.
//!
//! Records live in a slab; low plain ids find theirs through a flat array,
//! the rest through a hash map. Every archetype keeps references to its
//! records with the position of its entry in each (and every entry the index
//! of its reference), so registering, emptying, filling and unregistering an
//! archetype touch its records directly, with no lookup and no search, however
//! many archetypes a record lists (Flecs' table records).

use smallvec::SmallVec;

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
    /// For each entry, the index of the reference to this record in its
    /// archetype's list ([`ComponentIndex`]'s `refs`): swapping an entry
    /// updates that reference in O(1).
    ref_slots: Vec<u16>,
    non_empty: u32,
}

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

    /// Where the id sits in `archetype`, if it is there (a scan of the
    /// record's entries).
    pub fn get(&self, archetype: ArchetypeId) -> Option<&ArchetypeRecord> {
        self.archetypes.iter().find(|entry| entry.archetype == archetype)
    }

    /// Swaps entries `a` and `b` with their reference slots.
    #[inline]
    fn swap_entries(&mut self, a: usize, b: usize) {
        self.archetypes.swap(a, b);
        self.ref_slots.swap(a, b);
    }
}

/// An archetype's reference to one of its records: the record's slot in the
/// slab and the index of the archetype's entry in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RecordRef {
    record: u32,
    entry: u32,
}

/// An archetype's references, one per record listing it.
type RecordRefs = SmallVec<[RecordRef; 6]>;

/// id -> [`IdRecord`]. See the module docs.
#[derive(Default)]
pub struct ComponentIndex {
    /// The records; a free slot has no id and is listed in `free_records`.
    records: Vec<IdRecord>,
    free_records: Vec<u32>,
    /// Plain ids below [`FLAT_RECORD_LIMIT`]: their record's slot plus one (0:
    /// none).
    flat: Vec<u32>,
    /// Every other id: its record's slot.
    hashed: FxHashMap<Id, u32>,
    /// By archetype index: its references to the records listing it.
    refs: Vec<RecordRefs>,
}

/// Freed records keep their lists for the next new record (pair ids come and
/// go with their targets, and their lists stay short) unless they have more
/// room than this.
const SPARE_LIST_CAPACITY: usize = 16;

impl ComponentIndex {
    #[inline]
    fn is_flat(id: Id) -> bool {
        !id.is_pair() && id.first_index() < FLAT_RECORD_LIMIT
    }

    /// The slab slot of `id`'s record, if any archetype contains it.
    #[inline]
    fn slot_of(&self, id: Id) -> Option<usize> {
        if Self::is_flat(id) {
            let slot = *self.flat.get(id.first_index() as usize)?;
            slot.checked_sub(1).map(|slot| slot as usize)
        } else {
            self.hashed.get(&id).map(|&slot| slot as usize)
        }
    }

    /// The record of `id`, if any archetype contains it. A stale plain id
    /// (the index of a live entity with another generation) has none: the
    /// slot of its index belongs to the live entity's id.
    #[inline]
    pub fn get(&self, id: Id) -> Option<&IdRecord> {
        let record = &self.records[self.slot_of(id)?];
        (record.id == Some(id)).then_some(record)
    }

    /// The slot of `id`'s record, made (empty) if it has none.
    fn entry(&mut self, id: Id) -> usize {
        if let Some(slot) = self.slot_of(id) {
            return slot;
        }
        let slot = match self.free_records.pop() {
            Some(slot) => slot as usize,
            None => {
                self.records.push(IdRecord::default());
                self.records.len() - 1
            }
        };
        self.records[slot].id = Some(id);
        if Self::is_flat(id) {
            let index = id.first_index() as usize;
            if index >= self.flat.len() {
                self.flat.resize(index + 1, 0);
            }
            self.flat[index] = slot as u32 + 1;
        } else {
            self.hashed.insert(id, slot as u32);
        }
        slot
    }

    /// Frees the record in `slot`, which lists no archetype.
    fn release(&mut self, slot: usize) {
        let record = &mut self.records[slot];
        debug_assert!(record.archetypes.is_empty(), "releasing a record that lists archetypes");
        let id = record.id.take().expect("a live record has an id");
        record.non_empty = 0;
        if record.archetypes.capacity() > SPARE_LIST_CAPACITY {
            record.archetypes = Vec::new();
            record.ref_slots = Vec::new();
        }
        if Self::is_flat(id) {
            self.flat[id.first_index() as usize] = 0;
        } else {
            self.hashed.remove(&id);
        }
        self.free_records.push(slot as u32);
    }

    /// Points the reference of the entry at `index` of the record in `slot`
    /// (after a swap moved it there) at `index`.
    #[inline]
    fn relocated(&mut self, slot: usize, index: usize) {
        let record = &self.records[slot];
        let (archetype, ref_slot) = (record.archetypes[index].archetype, record.ref_slots[index]);
        self.refs[archetype.index()][ref_slot as usize].entry = index as u32;
    }

    /// Records a new archetype: `ids` is its sorted type, `columns[i]` the column
    /// of `ids[i]` (-1 for none). It joins the empty part of each record; an
    /// archetype with several ids matching a wildcard record has one entry
    /// there, counting them.
    pub(crate) fn register_archetype(&mut self, archetype: ArchetypeId, ids: &[Id], columns: &[i32]) {
        if self.refs.len() <= archetype.index() {
            self.refs.resize_with(archetype.index() + 1, RecordRefs::new);
        }
        let mut refs = core::mem::take(&mut self.refs[archetype.index()]);
        debug_assert!(refs.is_empty(), "{archetype:?} registered twice");
        let mut add = |index: &mut Self, key: Id, entry: ArchetypeRecord| {
            let slot = index.entry(key);
            let record = &mut index.records[slot];
            // The archetype's ids arrive together: another id matching this
            // (wildcard) record finds its entry last.
            if let Some(last) = record.archetypes.last_mut()
                && last.archetype == archetype
            {
                last.count += entry.count;
                return;
            }
            record.archetypes.push(entry);
            record.ref_slots.push(refs.len() as u16);
            refs.push(RecordRef { record: slot as u32, entry: record.archetypes.len() as u32 - 1 });
        };
        let wildcard = Entity::WILDCARD.index();
        for (position, (&id, &column)) in ids.iter().zip(columns).enumerate() {
            let entry = ArchetypeRecord { archetype, position: position as u16, count: 1, column };
            add(self, id, entry);
            if id.is_pair() {
                add(self, Id::pair_from_indices(id.first_index(), wildcard), entry);
                add(self, Id::pair_from_indices(wildcard, id.second_index()), entry);
            }
        }
        if !ids.is_empty() {
            let entry = ArchetypeRecord { archetype, position: 0, count: ids.len() as u16, column: columns[0] };
            add(self, Entity::WILDCARD.id(), entry);
        }
        self.refs[archetype.index()] = refs;
    }

    /// Forgets a deleted archetype; records left with no
    /// archetype are dropped.
    pub(crate) fn unregister_archetype(&mut self, archetype: ArchetypeId) {
        let Some(refs) = self.refs.get_mut(archetype.index()).map(core::mem::take) else {
            return;
        };
        for reference in &refs {
            let slot = reference.record as usize;
            let mut index = reference.entry as usize;
            let record = &mut self.records[slot];
            if index < record.non_empty as usize {
                // Keep the partition: to the end of the non-empty part first.
                let last = record.non_empty as usize - 1;
                record.swap_entries(index, last);
                record.non_empty -= 1;
                if index != last {
                    self.relocated(slot, index);
                }
                index = last;
            }
            let record = &mut self.records[slot];
            record.archetypes.swap_remove(index);
            record.ref_slots.swap_remove(index);
            if index < record.archetypes.len() {
                self.relocated(slot, index);
            } else if record.archetypes.is_empty() {
                self.release(slot);
            }
        }
        // Keep the list's allocation for the next archetype in this slot.
        let mut refs = refs;
        refs.clear();
        self.refs[archetype.index()] = refs;
    }

    /// Moves archetype `archetype` to the empty (`empty`) or the non-empty
    /// part of each of its records (its ids, their wildcard forms and `*`):
    /// call it when its table loses its last row or gains its first. One swap
    /// per record, nothing for a record where it is on that side already.
    pub(crate) fn set_archetype_empty(&mut self, archetype: ArchetypeId, empty: bool) {
        let Some(count) = self.refs.get(archetype.index()).map(SmallVec::len) else {
            return;
        };
        for position in 0..count {
            let reference = self.refs[archetype.index()][position];
            let slot = reference.record as usize;
            let index = reference.entry as usize;
            let record = &mut self.records[slot];
            let split = record.non_empty as usize;
            let boundary = match (empty, index < split) {
                (true, true) => {
                    record.non_empty -= 1;
                    split - 1
                }
                (false, false) => {
                    record.non_empty += 1;
                    split
                }
                _ => continue,
            };
            if index != boundary {
                record.swap_entries(index, boundary);
                self.relocated(slot, index);
                self.refs[archetype.index()][position].entry = boundary as u32;
            }
        }
    }

    /// Verifies each record's own bookkeeping: the split is in bounds,
    /// `is_empty` agrees with the side of the split each entry is on, and the
    /// references between entries and archetypes agree.
    ///
    /// # Panics
    /// Panics describing the first violation.
    pub(crate) fn check_partition(&self, is_empty: impl Fn(ArchetypeId) -> bool) {
        for (slot, record) in self.records.iter().enumerate() {
            let Some(id) = record.id else {
                assert!(self.free_records.contains(&(slot as u32)), "record slot {slot} is neither live nor free");
                continue;
            };
            assert_eq!(self.slot_of(id), Some(slot), "the record of {id:?} is not found at its slot");
            assert!(record.non_empty as usize <= record.archetypes.len(), "split of {id:?} out of bounds");
            assert_eq!(record.ref_slots.len(), record.archetypes.len(), "{id:?}: one reference slot per entry");
            for (index, entry) in record.archetypes.iter().enumerate() {
                let empty = is_empty(entry.archetype);
                assert_eq!(
                    index >= record.non_empty as usize,
                    empty,
                    "{:?} is on the wrong side of the split of {id:?} (empty: {empty})",
                    entry.archetype
                );
                let reference = self.refs[entry.archetype.index()].get(record.ref_slots[index] as usize);
                assert_eq!(
                    reference,
                    Some(&RecordRef { record: slot as u32, entry: index as u32 }),
                    "{:?}'s reference to the record of {id:?} is off",
                    entry.archetype
                );
            }
        }
        for (archetype, refs) in self.refs.iter().enumerate() {
            for reference in refs {
                let record = &self.records[reference.record as usize];
                assert_eq!(
                    record.archetypes.get(reference.entry as usize).map(|entry| entry.archetype.index()),
                    Some(archetype),
                    "archetype {archetype} refers to an entry of {:?} that is not its own",
                    record.id
                );
            }
        }
    }

    /// Every record, for invariant checks.
    pub(crate) fn records(&self) -> impl Iterator<Item = &IdRecord> {
        self.records.iter().filter(|record| record.id.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archetype(index: usize) -> ArchetypeId {
        ArchetypeId::new(index)
    }

    /// An index whose archetypes `1..=count` hold one shared plain id and one
    /// pair each (`(likes, target i)`): the shared records (`shared`,
    /// `(likes, *)`, `*`) list them all.
    fn index(count: usize) -> (ComponentIndex, Vec<Vec<Id>>) {
        let mut index = ComponentIndex::default();
        let (shared, likes) = (Entity::from_raw(5, 0).id(), Entity::from_raw(6, 0));
        let mut types = vec![Vec::new()];
        for number in 1..=count {
            let mut ids = vec![shared, Id::pair(likes, Entity::from_raw(100 + number as u32, 0))];
            ids.sort_unstable();
            index.register_archetype(archetype(number), &ids, &[0, -1]);
            types.push(ids);
        }
        (index, types)
    }

    /// Checks the index against the archetypes with rows.
    fn check(index: &ComponentIndex, non_empty: &[usize]) {
        index.check_partition(|archetype| !non_empty.contains(&archetype.index()));
        let shared = index.get(Entity::from_raw(5, 0).id()).unwrap();
        let mut listed: Vec<usize> = shared.non_empty().iter().map(|entry| entry.archetype.index()).collect();
        listed.sort_unstable();
        let mut expected = non_empty.to_vec();
        expected.sort_unstable();
        assert_eq!(listed, expected);
        for entry in shared.archetypes() {
            assert_eq!(shared.get(entry.archetype), Some(entry));
        }
    }

    #[test]
    fn new_archetypes_start_empty() {
        let (index, _) = index(3);
        check(&index, &[]);
        assert_eq!(index.get(Entity::WILDCARD.id()).unwrap().empty().len(), 3);
    }

    #[test]
    fn swaps_across_the_split_small_and_big() {
        for count in [3, 16, 17, 100] {
            let (mut index, _) = index(count);
            let mut non_empty = Vec::new();
            for number in (1..=count).step_by(3) {
                index.set_archetype_empty(archetype(number), false);
                non_empty.push(number);
                check(&index, &non_empty);
            }
            // Idempotent: a second "non-empty" changes nothing.
            index.set_archetype_empty(archetype(1), false);
            check(&index, &non_empty);
            for number in (1..=count).step_by(6) {
                index.set_archetype_empty(archetype(number), true);
                non_empty.retain(|&other| other != number);
                check(&index, &non_empty);
                index.set_archetype_empty(archetype(number), true);
                check(&index, &non_empty);
            }
        }
    }

    #[test]
    fn removal_keeps_the_partition() {
        for count in [4, 18, 64] {
            let (mut index, types) = index(count);
            let mut non_empty: Vec<usize> = (1..=count).filter(|number| number % 2 == 0).collect();
            for &number in &non_empty {
                index.set_archetype_empty(archetype(number), false);
            }
            check(&index, &non_empty);
            // Unregister an empty one, then non-empty ones, from both ends
            // (a deleted archetype is empty, but the partition holds anyway).
            let mut alive: Vec<usize> = (1..=count).collect();
            for number in [1, 2, count, count / 2] {
                index.unregister_archetype(archetype(number));
                alive.retain(|&other| other != number);
                non_empty.retain(|&other| other != number);
                check(&index, &non_empty);
                // Its own pair's records are gone.
                assert!(index.get(types[number][1]).is_none());
                assert!(
                    index
                        .get(Id::pair_from_indices(Entity::WILDCARD.index(), types[number][1].second_index()))
                        .is_none()
                );
            }
            for number in alive {
                index.unregister_archetype(archetype(number));
                non_empty.retain(|&other| other != number);
                index.check_partition(|archetype| !non_empty.contains(&archetype.index()));
            }
            assert!(index.get(Entity::WILDCARD.id()).is_none());
            assert_eq!(index.records().count(), 0);
            // Freed records are reused.
            index.register_archetype(archetype(1), &types[1], &[0, -1]);
            assert!(index.records.len() <= 3 + 2 * count);
            index.check_partition(|_| true);
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
        index.set_archetype_empty(archetype(1), false);
        index.check_partition(|id| id != archetype(1));
        let likes_any = Id::pair(likes, Entity::WILDCARD);
        assert_eq!(index.get(likes_any).unwrap().non_empty().len(), 1);
        assert_eq!(index.get(likes_any).unwrap().non_empty()[0].count, 2);
        assert_eq!(index.get(Entity::WILDCARD.id()).unwrap().non_empty().len(), 1);
        assert_eq!(index.get(Id::pair(Entity::WILDCARD, bob)).unwrap().non_empty().len(), 1);
        index.set_archetype_empty(archetype(2), false);
        index.check_partition(|_| false);
        assert_eq!(index.get(plain).unwrap().non_empty().len(), 2);
        index.set_archetype_empty(archetype(1), true);
        index.check_partition(|id| id == archetype(1));
        assert_eq!(index.get(plain).unwrap().empty()[0].archetype, archetype(1));
        index.unregister_archetype(archetype(1));
        index.check_partition(|_| false);
        assert!(index.get(likes_any).is_none());
    }
}
