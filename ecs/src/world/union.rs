//! Union (non-fragmenting) relationships: the pairs of a relationship with
//! [`RelationshipTraits::union`](crate::component::RelationshipTraits::union).
//!
//! An entity holding `(R, t)` of a union `R` has the one id `(R, *union*)`
//! ([`Entity::UNION`]) in its archetype, whatever `t`, and `t` in that id's
//! table column (one `Entity` per row; the table moves, swap-removes and clears
//! it with the row, so the target travels with the entity between archetypes
//! that both hold `(R, *union*)`). So:
//!
//! * adding `(R, t)` to an entity without a pair of `R` moves it once, into the
//!   archetype with `(R, *union*)`, and writes `t` into its row; adding
//!   `(R, t2)` later only rewrites the row (no move), with the events of an
//!   exclusive replacement: `OnReplace`/`OnRemove` for `(R, t)`, then
//!   `OnAdd`/`OnInsert` for `(R, t2)` (with the relationship's hooks);
//! * removing `(R, t)` (or `(R, *)`, or `(*, t)`) moves the entity out of it;
//! * `has_id`, `targets`, `sources` and the id-level removal read the row's
//!   target; every other id-level read sees `(R, *union*)` as the archetype's
//!   pair of `R` (one table for all targets);
//! * despawning `t` applies `R`'s `on_delete_target` to the rows whose target
//!   it is (module `cleanup`); despawning `R` applies `on_delete` to every
//!   holder, as for fragmenting pairs.
//!
//! The world keeps a reverse index, the holders of union pairs by target
//! ([`UnionHolders`]): `sources` and the cleanup of a dying target read it
//! instead of scanning rows. It changes where a row's union pair changes: an
//! add, a retarget, a move that drops `(R, *union*)` (`World::move_entity`),
//! a despawn (`World::remove_values`); a dying target's entry goes as a whole.
//!
//! Invariants (checked by `Archetypes::check_invariants` and
//! `World::check_invariants`): `(R, *union*)` is the only id of `R` in an
//! archetype; its column holds an alive target, never a wildcard or `*union*`
//! itself, for every row; the index lists exactly the `(holder, R)` of every
//! such row under its target. `(R, *union*)` itself is never added by users: a
//! pair targeting `*union*` is refused.

use smallvec::SmallVec;

use super::hooks::HookKind;
use super::{PairError, World};
use crate::archetype::{ArchetypeFlags, ArchetypeId, UnionCell, is_union_id};
use crate::entity::{Entity, EntityLocation, Id};
use crate::util::{FxHashMap, PanicSlot};

/// The holders of union pairs by target entity index: `(holder, relationship
/// index)` per row whose target of that union relationship it is; the row's
/// [`UnionCell`] remembers its position in the list (O(1) unlisting). An entry
/// exists only while it lists a holder.
pub(super) type UnionHolders = FxHashMap<u32, Vec<(Entity, u32)>>;

/// How many emptied holder lists the world keeps for reuse.
const SPARE_UNION_LISTS: usize = 1024;
/// Holder lists with more room than this are freed rather than kept.
const SPARE_UNION_LIST_CAPACITY: usize = 64;

/// The id `(relationship, *union*)`.
#[inline]
pub(crate) fn union_id(relationship: u32) -> Id {
    Id::pair_from_indices(relationship, Entity::UNION.index())
}

impl World {
    /// Lists `holder`'s pair of the union `relationship` under `target`; the
    /// cell to write into its row.
    fn index_union_pair(&mut self, holder: Entity, relationship: u32, target: Entity) -> UnionCell {
        let spare = &mut self.union_spare_lists;
        let holders = self.union_holders.entry(target.index()).or_insert_with(|| spare.pop().unwrap_or_default());
        holders.push((holder, relationship));
        UnionCell { target, holder_slot: (holders.len() - 1) as u32 }
    }

    /// Takes `holder`'s pair of the union `relationship`, whose row cell is
    /// `cell`, off its target's list (nothing if the list is gone: the target
    /// is dying); the holder moved into its slot gets its cell updated.
    fn unindex_union_pair(&mut self, holder: Entity, relationship: u32, cell: UnionCell) {
        let Some(holders) = self.union_holders.get_mut(&cell.target.index()) else { return };
        let slot = cell.holder_slot as usize;
        debug_assert_eq!(holders.get(slot), Some(&(holder, relationship)), "stale union holder slot");
        holders.swap_remove(slot);
        let moved = holders.get(slot).copied();
        if holders.is_empty()
            && let Some(list) = self.union_holders.remove(&cell.target.index())
        {
            self.keep_spare_union_list(list);
        }
        if let Some((moved, moved_relationship)) = moved {
            let location = self.entities.location(moved).expect("listed union holders are alive");
            let column = self.union_column_at(location, moved_relationship).expect("listed holders hold the pair");
            let cell = UnionCell { target: cell.target, holder_slot: slot as u32 };
            // SAFETY: `column` is the union column of `moved`'s archetype and its
            // row is `moved`'s.
            unsafe { self.archetypes.get_mut(location.archetype).set_union_cell(column, location.row as usize, cell) };
        }
    }

    /// Before `entity`'s row at `location` leaves its table (for
    /// `destination`, or for good when `None`): unindexes the union pairs the
    /// row loses.
    pub(super) fn unindex_union_pairs(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        destination: Option<ArchetypeId>,
    ) {
        if !self.archetypes[location.archetype].flags().contains(ArchetypeFlags::HAS_UNION) {
            return;
        }
        // By position, re-reading the archetype after each unlisting (which
        // rewrites a cell of another row, never a type).
        let mut position = 0;
        while let Some(&id) = self.archetypes[location.archetype].ids().get(position) {
            position += 1;
            if !is_union_id(id) || destination.is_some_and(|destination| self.archetypes[destination].contains(id)) {
                continue;
            }
            let archetype = &self.archetypes[location.archetype];
            let column = archetype.column_map()[position - 1] as usize;
            let cell = archetype.union_column(column)[location.row as usize];
            self.unindex_union_pair(entity, id.first_index(), cell);
        }
    }

    /// Forgets the holders listed under the dying `target` (cleanup moves or
    /// despawns them next; their own unindexing then finds no list).
    pub(super) fn forget_union_holders_of(&mut self, target: Entity) {
        if !self.union_holders.is_empty()
            && let Some(list) = self.union_holders.remove(&target.index())
        {
            self.keep_spare_union_list(list);
        }
    }

    /// Keeps an index entry's emptied list for the next target (a hierarchy
    /// lists and forgets one per parent), unless enough are kept or it grew
    /// large.
    fn keep_spare_union_list(&mut self, mut list: Vec<(Entity, u32)>) {
        if self.union_spare_lists.len() < SPARE_UNION_LISTS && list.capacity() <= SPARE_UNION_LIST_CAPACITY {
            list.clear();
            self.union_spare_lists.push(list);
        }
    }

    /// The `(holder, relationship index)` of the union pairs targeting `target`.
    pub(super) fn union_holders_of(&self, target: Entity) -> &[(Entity, u32)] {
        self.union_holders.get(&target.index()).map_or(&[], Vec::as_slice)
    }

    /// Verifies that the index lists exactly the union rows under their targets.
    ///
    /// # Panics
    /// Panics describing the first difference.
    pub(super) fn check_union_holders(&self) {
        let mut rows = 0;
        for archetype in self.archetypes.iter() {
            for (&id, &column) in archetype.ids().iter().zip(archetype.column_map()) {
                if !is_union_id(id) {
                    continue;
                }
                for (&holder, cell) in archetype.entities().iter().zip(archetype.union_column(column as usize)) {
                    rows += 1;
                    assert_eq!(
                        self.union_holders_of(cell.target).get(cell.holder_slot as usize),
                        Some(&(holder, id.first_index())),
                        "the union index lacks {holder:?}'s pair {} under {:?} at its slot",
                        self.id_name(Id::pair_from_indices(id.first_index(), cell.target.index())),
                        cell.target
                    );
                }
            }
        }
        let listed: usize = self.union_holders.values().map(Vec::len).sum();
        assert_eq!(listed, rows, "the union index lists {listed} pairs for {rows} union rows");
        assert!(self.union_holders.values().all(|holders| !holders.is_empty()), "an empty union index entry");
    }

    /// Whether the relationship with entity index `relationship` is a union.
    #[inline]
    pub(crate) fn is_union_relationship(&self, relationship: u32) -> bool {
        self.components.relationship_traits(relationship).union
    }

    /// The column of `(relationship, *union*)` in `location`'s archetype, if
    /// it holds that id.
    #[inline]
    fn union_column_at(&self, location: EntityLocation, relationship: u32) -> Option<usize> {
        self.archetypes[location.archetype].column_of(union_id(relationship))
    }

    /// The target of `entity`'s pair of the union relationship `relationship`
    /// (by entity index); `None` if it has none or is not alive.
    pub(crate) fn union_target(&self, entity: Entity, relationship: u32) -> Option<Entity> {
        let location = self.entities.location(entity)?;
        let column = self.union_column_at(location, relationship)?;
        Some(self.archetypes[location.archetype].union_column(column)[location.row as usize].target)
    }

    /// `id` as the pair it stands for in `entity`'s row: a union id
    /// `(R, *union*)` becomes `(R, target)`; any other id is itself. Events
    /// and `ids_of`-style readers name concrete pairs.
    pub(crate) fn concrete_pair(&self, entity: Entity, id: Id) -> Id {
        if !is_union_id(id) {
            return id;
        }
        match self.union_target(entity, id.first_index()) {
            Some(target) => Id::pair_from_indices(id.first_index(), target.index()),
            None => id,
        }
    }

    /// Whether `entity` (at `location`) has a union pair matching `pattern`:
    /// the concrete pair `(R, t)` of a union `R`, or `(*, t)`.
    pub(super) fn has_union_pair(&self, location: EntityLocation, pattern: Id) -> bool {
        if !pattern.is_pair() {
            return false;
        }
        let archetype = &self.archetypes[location.archetype];
        let row = location.row as usize;
        let wanted = pattern.second_index();
        if pattern.first_index() == Entity::WILDCARD.index() || pattern.first_index() == Entity::ANY.index() {
            return archetype.ids().iter().zip(archetype.column_map()).any(|(&id, &column)| {
                is_union_id(id) && archetype.union_column(column as usize)[row].target.index() == wanted
            });
        }
        self.union_column_at(location, pattern.first_index())
            .is_some_and(|column| archetype.union_column(column)[row].target.index() == wanted)
    }

    /// The union ids of `entity`'s archetype whose row target is `target`
    /// (for the removal of `(*, target)`).
    pub(super) fn union_ids_targeting(&self, location: EntityLocation, target: u32) -> SmallVec<[Id; 2]> {
        let archetype = &self.archetypes[location.archetype];
        let row = location.row as usize;
        archetype
            .ids()
            .iter()
            .zip(archetype.column_map())
            .filter(|&(&id, &column)| {
                is_union_id(id) && archetype.union_column(column as usize)[row].target.index() == target
            })
            .map(|(&id, _)| id)
            .collect()
    }

    /// Adds the pair `id = (R, t)` of the union relationship `R` to `entity`:
    /// rewrites its row's target if it holds `(R, *union*)` (no move), else
    /// moves it into the archetype with `(R, *union*)`. Events as for an
    /// exclusive replacement (module docs).
    pub(super) fn add_union_pair(&mut self, entity: Entity, id: Id) -> Result<(), PairError> {
        let location = self.prepare_add(entity, id)?;
        let target = self.entity_at(id.second_index()).ok_or(PairError::NotAlive(entity))?;
        let relationship = id.first_index();
        if let Some(column) = self.union_column_at(location, relationship) {
            let old_cell = self.archetypes[location.archetype].union_column(column)[location.row as usize];
            let old = old_cell.target;
            let existed = old == target;
            if self.id_has_lifecycle(id) {
                if existed {
                    self.id_lifecycle(HookKind::Replace, entity, id);
                } else {
                    let old_pair = Id::pair_from_indices(relationship, old.index());
                    self.id_lifecycle(HookKind::Replace, entity, old_pair);
                    self.id_lifecycle(HookKind::Remove, entity, old_pair);
                }
            }
            // Hooks and observers cannot move the entity (their commands wait).
            let location = self.entities.location(entity).expect("observers cannot despawn (their commands wait)");
            if !existed {
                self.unindex_union_pair(entity, relationship, old_cell);
                let cell = self.index_union_pair(entity, relationship, target);
                // Unlisting may have updated another row, never this one's
                // location: observers did not move the entity.
                // SAFETY: `column` is the column of `(R, *union*)` in the
                // entity's archetype and `row` its row.
                unsafe {
                    self.archetypes.get_mut(location.archetype).set_union_cell(column, location.row as usize, cell);
                }
            }
            self.after_id_insert(entity, id, existed);
            return Ok(());
        }
        let union = union_id(relationship);
        let destination = self.archetypes.add_edge(location.archetype, union, &self.components);
        // Events for the ids the move drops (none: a union has no other pair).
        self.before_id_change(entity, location.archetype, destination, union);
        let location = self.entities.location(entity).expect("observers cannot despawn (their commands wait)");
        let mut panics = PanicSlot::default();
        let row = self.move_entity(entity, location, destination, &mut panics);
        let column = self.archetypes[destination].column_of(union).expect("a union id has a column");
        let cell = self.index_union_pair(entity, relationship, target);
        // SAFETY: the move left the new column of `(R, *union*)` uninitialized
        // at `row`, the entity's row in `destination`: written here.
        unsafe { self.archetypes.get_mut(destination).set_union_cell(column, row, cell) };
        self.after_id_insert(entity, id, false);
        panics.resume();
        Ok(())
    }

    /// Removes the pair `id = (R, t)` of the union relationship `R` from
    /// `entity` if its row's target is `t` (`(R, *union*)` removes whatever
    /// the target): `OnReplace`/`OnRemove` for `(R, t)`, then the move out of
    /// the archetype with `(R, *union*)`. Whether it had the pair.
    pub(super) fn remove_union_pair(&mut self, entity: Entity, id: Id) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let relationship = id.first_index();
        let Some(column) = self.union_column_at(location, relationship) else {
            return false;
        };
        let target = self.archetypes[location.archetype].union_column(column)[location.row as usize].target;
        if !is_union_id(id) && target.index() != id.second_index() {
            return false;
        }
        let pair = Id::pair_from_indices(relationship, target.index());
        if self.id_has_lifecycle(pair) {
            self.id_lifecycle(HookKind::Replace, entity, pair);
            self.id_lifecycle(HookKind::Remove, entity, pair);
        }
        let location = self.entities.location(entity).expect("observers cannot despawn (their commands wait)");
        let destination = self.archetypes.remove_edge(location.archetype, union_id(relationship), &self.components);
        let mut panics = PanicSlot::default();
        self.move_entity(entity, location, destination, &mut panics);
        self.flush_deferred();
        panics.resume();
        true
    }

    /// The entities whose pair of the union relationship `relationship` targets
    /// `target` (from the index of holders by target).
    pub(crate) fn union_sources(&self, relationship: u32, target: Entity) -> impl Iterator<Item = Entity> + '_ {
        let holders = if self.is_alive(target) { self.union_holders_of(target) } else { &[] };
        holders.iter().filter(move |&&(_, listed)| listed == relationship).map(|&(holder, _)| holder)
    }
}
