//! The component index: id -> the archetypes containing it.
//!
//! For every id of every archetype there is a record, and for pairs also records
//! for `(R, *)` and `(*, T)`; the wildcard `*` alone lists every non-empty type.
//! Each [`ArchetypeRecord`] says where the id (or the first id matching the
//! wildcard) sits in the type, its column (-1 for tags) and how many ids match.
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
#[derive(Default, Debug)]
pub struct IdRecord {
    id: Option<Id>,
    archetypes: Vec<ArchetypeRecord>,
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

    /// Every archetype containing the id, with where it sits.
    #[inline]
    pub fn archetypes(&self) -> &[ArchetypeRecord] {
        &self.archetypes
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
        let Some(index) = self.index_of(archetype) else {
            return false;
        };
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

    /// Adds `record`, or counts one more matching id if its archetype is the
    /// last one listed: an archetype registers all its ids at once, so another
    /// id of the same archetype matching this record (a wildcard) arrives while
    /// it is still the last entry.
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

    /// Every record, for invariant checks.
    pub(crate) fn records(&self) -> impl Iterator<Item = &IdRecord> {
        self.flat.iter().filter(|record| record.id.is_some()).chain(self.hashed.values())
    }
}
