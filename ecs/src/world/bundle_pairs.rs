//! Pairs inside bundles (`(Position(0.0), ChildOf.pair(parent))`): their
//! targets are known only at run time. A spawn whose pairs are all of plain
//! fragmenting relationships (no union storage, not `IsA`) places the entity
//! once, in the archetype of its components and pairs: pair ids sort after
//! every plain id, so that archetype's first columns are those of the
//! components alone and the bundle's write plan serves them, and each pair
//! with a value writes it into its own column. Then the hooks and observers
//! of everything run with the whole bundle in place. Any other bundle (and
//! every insert) writes its static part in one move, then adds each pair with
//! the same checks as `insert_pair` (a dead or wildcard target, an acyclic
//! relationship's cycle; exclusive relationships replace their old pair).
//! Of several pairs of one exclusive relationship in a bundle only the last
//! lands, on every path (the placement's answer, and Flecs' for a bulk add).
//! Those checks run for every pair before anything of the bundle lands
//! (`BundlePairs::refuse_invalid`, with the bundle's own `IsA` and `ChildOf`
//! pairs taken together), so a refused bundle changes nothing.
//! Bundles without pairs (`Bundle::HAS_PAIRS` is false, known at compile time)
//! pay nothing.

use core::ptr::NonNull;

use smallvec::SmallVec;

use super::{PairError, World};
use crate::archetype::Archetypes;
use crate::bundle::{Bundle, PairSink};
use crate::component::Component;
use crate::entity::{ArchetypeId, Entity, Id};
use crate::storage::{ComponentTicks, Tick};

/// What to do with one pair taken out of a bundle.
pub(super) enum PairUse<'w> {
    /// Add it (with its value) to the entity, as `insert_pair` does, with
    /// this target.
    Add(&'w mut World, Entity, Entity),
    /// Move its value to this address, the pair's slot in a new row of the
    /// archetype the entity was placed in (pairs with a column only).
    Write(NonNull<u8>),
}

/// Uses one pair taken out of a bundle, once. It captures the value alone
/// (the target comes with [`PairUse::Add`]), so a unit relationship's
/// (`ChildOf`'s) closure is zero-sized and boxing it allocates nothing.
type UsePair = Box<dyn FnOnce(PairUse<'_>) -> Result<(), (String, PairError)> + Send + Sync>;

/// One pair taken out of a bundle.
struct PendingPair {
    /// Its target.
    target: Entity,
    /// Registers its relationship (a component) and returns it.
    register: fn(&mut World) -> Entity,
    /// Its relationship, once [`PendingPair::relationship`] registered it.
    relationship: Option<Entity>,
    /// Adds or writes it, with its value.
    apply: UsePair,
}

/// The pairs of one bundle, in bundle order.
#[derive(Default)]
pub(super) struct BundlePairs(SmallVec<[PendingPair; 1]>);

impl PairSink for BundlePairs {
    fn pair<C: Component>(&mut self, value: C, target: Entity) {
        let apply: UsePair = Box::new(move |action: PairUse<'_>| match action {
            PairUse::Add(world, entity, target) => {
                let describe = |error| (format!("({}, {target:?})", C::NAME), error);
                if !world.is_alive(target) {
                    return Err(describe(PairError::NotAlive(target)));
                }
                let relationship = world.register_component::<C>();
                world.insert_id_value(entity, Id::pair(relationship, target), value).map_err(describe)
            }
            PairUse::Write(slot) => {
                // SAFETY: `BundlePairs::write_to` hands out the uninitialized,
                // aligned slot of this pair's value in the column storing its
                // relationship's values, `C`s (only pairs with a column get one).
                unsafe { slot.cast::<C>().write(value) };
                Ok(())
            }
        });
        self.0.push(PendingPair {
            target,
            register: |world: &mut World| world.component_id::<C>().unwrap_or_else(|| world.register_component::<C>()),
            relationship: None,
            apply,
        });
    }
}

impl PendingPair {
    /// Its relationship (a component id), registered on the first call.
    #[inline]
    fn relationship(&mut self, world: &mut World) -> Entity {
        *self.relationship.get_or_insert_with(|| (self.register)(world))
    }
}

impl BundlePairs {
    /// The pairs of `bundle`, taken out of it (empty without a call when `B`
    /// has none).
    #[inline]
    pub(super) fn take<B: Bundle>(bundle: &mut B) -> BundlePairs {
        let mut pairs = BundlePairs::default();
        if B::HAS_PAIRS {
            bundle.take_pairs(&mut pairs);
        }
        pairs
    }

    /// Panics, naming the pair and `entity` (`None`: an entity about to be
    /// spawned), if a pair would be refused when the pairs are added: a dead
    /// (unless `dead_by_policy`) or wildcard target, a cycle of an acyclic
    /// relationship, or an instance of one of its own `ChildOf` ancestors
    /// (also through the bundle's own `IsA` and `ChildOf` pairs together).
    /// Called before anything of the bundle lands, so a refused bundle
    /// changes nothing. With `check_names` (a bundle without a `Name`, into
    /// an existing entity), a sibling under the bundle's new parent with the
    /// entity's name refuses it too; a bundle's own `Name` is checked later,
    /// with the bundle in place.
    ///
    /// # Panics
    /// As said.
    #[track_caller]
    pub(super) fn refuse_invalid(
        &mut self,
        world: &mut World,
        entity: Option<Entity>,
        dead_by_policy: bool,
        check_names: bool,
    ) {
        if self.0.is_empty() {
            return;
        }
        let relationships: SmallVec<[Entity; 4]> = self.0.iter_mut().map(|pair| pair.relationship(world)).collect();
        let replaced = replaced_pairs(world, &relationships);
        let (is_a, child_of) = (world.builtin.is_a, world.builtin.child_of);
        let record = entity.and_then(|entity| world.entities.get(entity));
        let who = || entity.map_or_else(|| "a new entity".to_owned(), |entity| format!("{entity:?}"));
        // An `IsA` pair is checked against the parent the bundle gives, if it
        // gives one (below), not the entity's current one: its last `ChildOf`
        // pair (exclusive: the last one wins, and lands before any base).
        let final_parent =
            relationships.iter().rposition(|&relationship| relationship == child_of).map(|at| self.0[at].target);
        let has_bases = relationships.contains(&is_a);
        for (position, (pair, &relationship)) in self.0.iter().zip(&relationships).enumerate() {
            let target = pair.target;
            let id = Id::pair(relationship, target);
            // Named by its halves (a dead target's index may be another's now).
            let refuse = |error: PairError| -> ! {
                let relationship = world.index_name(relationship.index());
                panic!("cannot add the pair ({relationship}, {target:?}) of a bundle to {}: {error}", who())
            };
            if id.is_wildcard() || crate::archetype::is_union_id(id) {
                refuse(PairError::Wildcard { id: world.id_name(id), entity: entity.unwrap_or(Entity::PLACEHOLDER) });
            }
            if !world.is_alive(target) {
                let panics = world.components.relationship_traits(relationship.index()).on_delete_target
                    == crate::component::CleanupPolicy::Panic;
                // A later pair of an exclusive relationship replaces it: it
                // never lands, so no policy applies to it.
                if dead_by_policy && (!panics || replaced[position]) {
                    continue; // `remove` leaves it out, `delete` despawns the entity
                }
                if dead_by_policy {
                    // `panic`: the policy's message, before anything lands.
                    panic!("{}", world.dead_target_refusal(relationship, target, &who()));
                }
                refuse(PairError::NotAlive(target));
            }
            let check_ancestors = !(relationship == is_a && final_parent.is_some());
            if let (Some(entity), Some(record)) = (entity, record)
                && let Err(error) = world.check_pair(entity, record, relationship, target, false, check_ancestors)
            {
                refuse(error);
            }
            // The bundle's own bases and final parent together.
            let source = entity.unwrap_or(Entity::PLACEHOLDER);
            if relationship == child_of && Some(target) == final_parent {
                if has_bases {
                    let bases: SmallVec<[Entity; 2]> = self
                        .0
                        .iter()
                        .zip(&relationships)
                        .filter(|&(_, &other)| other == is_a)
                        .map(|(base, _)| base.target)
                        .collect();
                    if let Some(base) = world.first_on_line(target, &bases) {
                        refuse(world.ancestor_instance(relationship, source, target, base));
                    }
                }
                // A bundle without a `Name` keeps the entity's: a sibling
                // under the new parent with it refuses the bundle now.
                if check_names
                    && let (Some(entity), Some(record)) = (entity, record)
                    && let Some(clash) = world.name_clash_under(entity, record.location, id)
                {
                    refuse(PairError::NameTaken(clash));
                }
            }
            if relationship == is_a
                && let Some(parent) = final_parent
                && world.is_alive(parent)
                && world.first_on_line(parent, &[target]).is_some()
            {
                refuse(world.ancestor_instance(relationship, source, target, target));
            }
        }
    }

    /// [`BundlePairs::add_to_by_policy`] for `insert_if_new`: only the pairs
    /// `entity` does not own are added (the others' values are dropped). Of
    /// several pairs of one exclusive relationship the last is the bundle's
    /// (for `ChildOf`, the parent [`BundlePairs::refuse_invalid`] checked):
    /// the others go first, and the last goes too if `entity` already has it.
    #[track_caller]
    pub(super) fn add_new_to(self, world: &mut World, entity: Entity) {
        let mut pairs = self.0;
        let relationships: SmallVec<[Entity; 4]> = pairs.iter_mut().map(|pair| pair.relationship(world)).collect();
        let replaced = replaced_pairs(world, &relationships);
        let mut new = BundlePairs::default();
        for ((pair, relationship), replaced) in pairs.into_iter().zip(relationships).zip(replaced) {
            if !replaced && !world.owns_id(entity, Id::pair(relationship, pair.target)) {
                new.0.push(pair);
            }
        }
        new.add_to_by_policy(world, entity);
    }

    /// Adds the pairs to the alive `entity`, in order, once
    /// [`BundlePairs::refuse_invalid`] accepted them. A pair whose target is
    /// not alive now (despawned before a command applied, or by a hook or
    /// observer of this very insert) gets its relationship's
    /// `on_delete_target` policy, as if the pair had existed when the target
    /// was despawned: `remove` leaves it out (its value is dropped), `delete`
    /// despawns `entity` (the pairs after it are dropped), `panic` panics
    /// naming both.
    ///
    /// # Panics
    /// For a dead target whose relationship has `on_delete_target = "panic"`,
    /// and for a pair refused otherwise (naming the entity and the pair).
    #[track_caller]
    pub(super) fn add_to_by_policy(mut self, world: &mut World, entity: Entity) {
        // Hooks and observers ran since the relationships were looked up (a
        // relationship's entity may have been despawned): look them up again.
        for pair in &mut self.0 {
            pair.relationship = None;
        }
        for mut pair in self.parents_first(world) {
            if !world.is_alive(entity) {
                return; // a `delete` policy or a hook despawned it: the rest is dropped
            }
            if !world.is_alive(pair.target) {
                let relationship = pair.relationship(world);
                world.apply_dead_target_policy(entity, relationship, pair.target);
                continue;
            }
            if let Err((pair, error)) = (pair.apply)(PairUse::Add(world, entity, pair.target)) {
                panic!("cannot add the pair {pair} of a bundle to {entity:?}: {error}");
            }
        }
    }

    /// The pairs to add, in bundle order, except: of several pairs of one
    /// exclusive relationship (`ChildOf` among them) only the last is added
    /// (it would replace the others, as a spawn placed in one move keeps it
    /// alone, and as Flecs adds a bulk of ids as one table change), and a
    /// bundle with `IsA` pairs gives its parent first: its bases were
    /// checked against that parent ([`BundlePairs::refuse_invalid`]), and a
    /// base instantiates its children under the entity where that parent
    /// already holds it.
    fn parents_first(mut self, world: &mut World) -> SmallVec<[PendingPair; 1]> {
        if self.0.len() < 2 {
            return self.0;
        }
        let (is_a, child_of) = (world.builtin.is_a, world.builtin.child_of);
        let relationships: SmallVec<[Entity; 4]> =
            self.0.iter_mut().map(|pair| pair.relationship(&mut *world)).collect();
        let replaced = replaced_pairs(world, &relationships);
        let reorder = relationships.contains(&child_of) && relationships.contains(&is_a);
        if !reorder && !replaced.contains(&true) {
            return self.0;
        }
        let mut keyed: SmallVec<[(bool, PendingPair); 4]> = relationships
            .iter()
            .zip(replaced)
            .zip(self.0)
            .filter(|&((_, replaced), _)| !replaced)
            .map(|((&relationship, _), pair)| (reorder && relationship != child_of, pair))
            .collect();
        // Stable: the order within each part is kept.
        keyed.sort_by_key(|&(later, _)| later);
        keyed.into_iter().map(|(_, pair)| pair).collect()
    }

    /// Moves the values of the pairs `ids` (as [`BundlePairs::one_move_ids`]
    /// gave them) into `row` of `archetype`, the row of the entity just placed
    /// there, and stamps their ticks; a pair an exclusive relationship's later
    /// pair replaced is dropped. Tag pairs have no column and write nothing.
    ///
    /// # Safety
    /// `row` is a new row of `archetype` whose pair columns are not initialized
    /// yet; every other column of it is.
    pub(super) unsafe fn write_to(
        self,
        archetypes: &mut Archetypes,
        archetype: ArchetypeId,
        row: usize,
        ids: &[Id],
        tick: Tick,
    ) {
        for (pair, &id) in self.0.into_iter().zip(ids) {
            let archetype = archetypes.get_mut(archetype);
            match archetype.column_of(id) {
                Some(column) if archetype.contains(id) => {
                    let column = archetype.table_mut().column_mut(column);
                    // SAFETY: `row` is a row of this table (forwarded), the pair's
                    // column stores its relationship's values; written once here.
                    unsafe {
                        let slot = column.get_ptr(row);
                        drop((pair.apply)(PairUse::Write(slot)));
                        column.set_ticks(row, ComponentTicks::new(tick));
                    }
                }
                // A tag, or a pair replaced by a later one: its value is dropped.
                _ => drop(pair),
            }
        }
    }

    /// The ids of the pairs if a new entity (allocated, not placed yet) can
    /// get them all with its spawn's one move: each a pair of a plain
    /// fragmenting relationship (not a union, not `IsA`, stored in tables)
    /// with a live, concrete target. Their relationships and targets are
    /// flagged as `add_pair` flags them. `None`: take the pair-by-pair path.
    pub(super) fn one_move_ids(&mut self, world: &mut World) -> Option<SmallVec<[Id; 2]>> {
        let mut ids = SmallVec::new();
        for pair in &mut self.0 {
            if !world.is_alive(pair.target) {
                return None;
            }
            let relationship = pair.relationship(world);
            let id = Id::pair(relationship, pair.target);
            // A repeated pair replaces its value: the pair-by-pair path drops
            // the first one.
            if !world.is_plain_pair(id) || ids.contains(&id) {
                return None;
            }
            ids.push(id);
        }
        for &id in &ids {
            // A new entity closes no cycle (nothing targets it) and its name is
            // checked once it is placed: only the flags of `add_pair` remain.
            if !world.flag_new_pair(id) {
                return None;
            }
        }
        Some(ids)
    }
}

/// For each pair of a bundle (whose relationships are `relationships`, in
/// bundle order), whether a later pair of the same exclusive relationship
/// replaces it.
fn replaced_pairs(world: &World, relationships: &[Entity]) -> SmallVec<[bool; 4]> {
    relationships
        .iter()
        .enumerate()
        .map(|(position, &relationship)| {
            relationships[position + 1..].contains(&relationship)
                && world.components.relationship_traits(relationship.index()).exclusive
        })
        .collect()
}
