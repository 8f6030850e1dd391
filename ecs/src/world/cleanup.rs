//! Cleanup on despawn: what happens to the pairs (and ids) that name an entity
//! when it dies.
//!
//! Despawning `x` looks at every archetype that names `x` as a relationship or
//! plain id (`x`, `(x, *)`: the relationship's `on_delete` policy) or as a target
//! (`(*, x)`: each pair's relationship's `on_delete_target` policy), found
//! through the component index, and applies the policy to the entities of
//! those archetypes:
//!
//! * `Remove`: the entities lose the ids naming `x` (one move per entity);
//! * `Delete`: the entities are despawned too, with their own cleanup (the
//!   closure is computed breadth-first with a visited set, so cycles end);
//! * `Panic`: the despawn is refused.
//!
//! The whole closure is planned before anything changes, so a `Panic` policy
//! anywhere in it leaves the world untouched ([`World::try_despawn`] returns the
//! [`CleanupError`]). Once the entities are moved or despawned, the archetypes
//! that name a dead entity are empty and are deleted (from the graph, the
//! component index, the bundle edge caches and, at their next update, every
//! query cache); their slots are reused by the next archetypes created.
//!
//! A component's own entity is despawned the same way (Flecs semantics): its
//! holders are found through the component index (table components, tags,
//! pairs of a relationship) or its sparse set (sparse components), and get the
//! component's `on_delete` policy (`#[relationship(on_delete = ...)]`; plain
//! components remove). One whose `on_delete` is `panic` is never despawned,
//! held or not (Flecs: deleting it aborts); the despawn is refused. Holders
//! that lose it run its `on_replace`/`on_remove` hooks and observers first,
//! and each value is dropped once. Then the
//! component is unregistered ([`Components::unregister`]), the bundles naming it
//! are retired, and its entity index is retired (never recycled): a query state
//! or bundle built before keeps a dead id that no archetype will ever contain.
//! The world's own built-in components (and the wildcards) are `PERMANENT`:
//! never despawned.
//!
//! Union relationships (module `union`) keep their targets in table rows, not
//! in archetype types: despawning `x` also scans the rows of the archetypes
//! holding a union id `(R, *union*)` for the target `x`, and applies `R`'s
//! `on_delete_target` to those rows only (`Remove`: the holder moves out of
//! the union archetype; `Delete`: it is despawned; `Panic`: refused). Their
//! archetypes survive (they name no dying entity).
//!
//! Order (Flecs: "DAGs get deleted bottom to top"): first the survivors lose
//! the ids naming dying entities (their `OnRemove` runs while every dying
//! entity is alive), then the dying entities go one by one, each one's hooks
//! and observers (`OnDespawn`, `OnReplace`, `OnRemove`) running just before it
//! is freed, an entity holding a pair to another dying entity before that one
//! (a child's events after its own children are gone and while its parent
//! lives), dying components and relationships last. A cleanup no hook or
//! observer hears frees its entities and clears their tables as a whole.
//!
//! Only entities flagged `IS_TARGET` or `IS_COMPONENT` (set when they are first
//! used in a pair or as an id) pay for this; a plain despawn never looks.
//!
//! Panic safety: once planned, a cleanup always runs to the end. A hook,
//! observer or `Drop` that panics on the way is caught; the rest of the plan
//! still runs (so the invariant "no archetype names a dead entity" holds), and
//! the first panic continues when the despawn returns.
//!
//! [`Components::unregister`]: crate::component::Components::unregister

use core::fmt;

use smallvec::SmallVec;

use super::hooks::HookKind;
use super::{RowFate, World};
use crate::component::CleanupPolicy;
use crate::entity::{ArchetypeId, Entity, EntityFlags, Id};
use crate::util::{FxHashMap, PanicSlot};

/// Why a despawn was refused: a relationship with the `panic` policy.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CleanupError {
    /// The relationship whose policy refused it.
    pub relationship: String,
    /// The entity whose despawn triggered the policy (the one asked for, or one
    /// that its cleanup would have deleted).
    pub despawned: Entity,
    /// Whether `despawned` is the pairs' target (`on_delete_target`) rather than
    /// the relationship itself (`on_delete`).
    pub as_target: bool,
    /// Entities holding the pairs (the first few). Empty when `despawned` is
    /// a component or relationship with `on_delete = "panic"` that nothing
    /// holds: such an entity is never despawned (Flecs).
    pub holders: Vec<Entity>,
}

impl fmt::Display for CleanupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (despawned, relationship, holders) = (self.despawned, &self.relationship, &self.holders);
        if self.as_target {
            write!(
                f,
                "cannot despawn {despawned:?}: it is the target of {relationship} pairs held by {holders:?}, and \
                 {relationship} has on_delete_target = \"panic\"; remove those pairs first"
            )
        } else if holders.is_empty() {
            write!(
                f,
                "cannot despawn {despawned:?}: it is the component or relationship {relationship}, which has \
                 on_delete = \"panic\" (it can never be despawned while that policy holds; change its traits first)"
            )
        } else {
            write!(
                f,
                "cannot despawn {despawned:?}: it is the component or relationship {relationship}, held (as an id \
                 or in pairs) by {holders:?}, and {relationship} has on_delete = \"panic\"; remove it from them first"
            )
        }
    }
}

impl std::error::Error for CleanupError {}

/// The pattern `(entity, *)` of the pairs with `entity` as their
/// relationship; `None` for an index above 31 bits, which no pair can have as
/// its relationship (such an entity is still a valid target and plain id).
fn relationship_pairs(entity: Entity) -> Option<Id> {
    entity.fits_relationship().then(|| Id::pair_from_indices(entity.index(), Entity::WILDCARD.index()))
}

/// Where the holders of a dying id are.
#[derive(Clone, Copy)]
enum Holders {
    /// The entities of an archetype naming it.
    Archetype(ArchetypeId),
    /// The entities of the sparse set of a dying sparse component.
    Sparse(Entity),
    /// The holders of the union relationship (by index) whose pair targets
    /// the entity.
    Union(u32, Entity),
}

/// A `Panic` policy met while planning; it refuses the despawn only if some
/// holder survives (is not deleted by the same cleanup).
struct PanicCheck {
    holders: Holders,
    id: Id,
    despawned: Entity,
    as_target: bool,
}

/// Everything a despawn with cleanup will do, computed before doing it.
#[derive(Default)]
struct CleanupPlan {
    /// Entities to despawn, in discovery order (the root first); each is flagged
    /// `DELETING` while the plan lives (cheaper than a visited set).
    delete: Vec<Entity>,
    /// The entities of `delete` that are targets or components (flagged
    /// `IS_TARGET` or `IS_COMPONENT` when planned): the only ones whose death
    /// reaches other archetypes, read without a second pass over `delete`.
    named: SmallVec<[Entity; 4]>,
    /// Ids that the surviving entities of an archetype lose.
    removals: FxHashMap<ArchetypeId, SmallVec<[Id; 2]>>,
    /// Dying sparse components whose surviving holders lose their value.
    sparse_removals: SmallVec<[Entity; 1]>,
    /// Holders that lose a union pair `(R, *union*)` because its row's target
    /// (the second `Entity`) dies.
    union_removals: Vec<(Entity, Id, Entity)>,
    panics: Vec<PanicCheck>,
    /// Whether `panic` policies plan as `remove` (nothing is refused: the
    /// holders lose the ids, [`World::clear_entities`]).
    panic_as_remove: bool,
}

impl CleanupPlan {
    /// The policy the plan applies for `policy`.
    fn policy(&self, policy: CleanupPolicy) -> CleanupPolicy {
        match policy {
            CleanupPolicy::Panic if self.panic_as_remove => CleanupPolicy::Remove,
            other => other,
        }
    }
}

impl World {
    /// Despawns `entity` like [`World::despawn`], but returns the refusal of a
    /// `panic` cleanup policy as an error instead of panicking. `Ok(false)` if
    /// the entity was not alive or is permanent (a wildcard or one of the
    /// world's built-in components); component entities and observers, internal
    /// too, are despawned (see [`World::despawn`]).
    ///
    /// # Errors
    /// [`CleanupError`] if despawning `entity` (or an entity its cleanup would
    /// delete) is refused by a relationship's `panic` policy; nothing changed.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::{CleanupPolicy, RelationshipTraits};
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (docked_to, station, ship) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.set_relationship_traits(docked_to, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Panic));
    /// world.add_id(ship, Id::pair(docked_to, station));
    /// let error = world.try_despawn(station).unwrap_err();
    /// assert_eq!(error.holders, vec![ship]);
    /// assert!(world.is_alive(station));
    /// world.remove_id(ship, Id::pair(docked_to, station));
    /// assert_eq!(world.try_despawn(station), Ok(true));
    /// ```
    pub fn try_despawn(&mut self, entity: Entity) -> Result<bool, CleanupError> {
        self.despawn_refusing(entity, true)
    }

    /// [`World::try_despawn`]; with `refuse` false, `panic` policies do not
    /// refuse anything (the entity and what its cleanup deletes go, as when
    /// Flecs tears a world down): [`World::clear_entities`].
    pub(super) fn despawn_refusing(&mut self, entity: Entity, refuse: bool) -> Result<bool, CleanupError> {
        self.flush_entities();
        let Some(record) = self.entities.get(entity) else {
            return Ok(false);
        };
        if record.flags.contains(EntityFlags::PERMANENT) {
            return Ok(false);
        }
        let mut panics = PanicSlot::default();
        if record.flags.intersects(EntityFlags::IS_TARGET | EntityFlags::IS_COMPONENT) {
            let plan = self.plan_cleanup(entity, !refuse);
            if let Err(error) = if refuse { self.refusal(&plan) } else { Ok(()) } {
                for &entity in &plan.delete {
                    self.unflag(entity, EntityFlags::DELETING);
                }
                self.recycle_plan(plan);
                return Err(error);
            }
            self.run_cleanup(plan, &mut panics);
        } else {
            self.despawn_record(entity, record, &mut panics);
        }
        // The commands of the hooks and observers that did not panic still apply.
        panics.catch(|| self.flush_deferred());
        panics.resume();
        Ok(true)
    }

    /// Sets the traits of `relationship`, an entity created at run time and used
    /// as the first half of pairs (typed relationships get theirs from
    /// `#[derive(Relationship)]`). The traits apply to pairs added from now on.
    /// Exclusivity is encoded in the archetype graph's cached edges: changing
    /// it drops the (empty) archetypes holding the relationship's pairs, and
    /// with them those edges, so the next pair added follows the new trait.
    ///
    /// A union relationship ([`RelationshipTraits::union`]) must not be
    /// transitive, and whether a relationship is a union can
    /// only change while no entity holds one of its pairs (the two store their
    /// pairs differently).
    ///
    /// # Panics
    /// Panics if `relationship` is a registered component, if `traits` is an
    /// invalid union ([`RelationshipTraits::is_valid_union`]), or if it would
    /// change whether `relationship` is a union, or exclusive, while entities
    /// hold its pairs (Flecs refuses trait changes of a relationship in use).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::{CleanupPolicy, RelationshipTraits};
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (owns, alice, book) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.set_relationship_traits(owns, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    /// world.add_id(book, Id::pair(owns, alice));
    /// world.despawn(owns); // deleting the relationship deletes what holds its pairs
    /// assert!(!world.is_alive(book));
    /// ```
    ///
    /// [`RelationshipTraits::union`]: crate::component::RelationshipTraits::union
    /// [`RelationshipTraits::is_valid_union`]: crate::component::RelationshipTraits::is_valid_union
    #[track_caller]
    pub fn set_relationship_traits(&mut self, relationship: Entity, traits: crate::component::RelationshipTraits) {
        assert!(
            traits.is_valid_union(),
            "set_relationship_traits({relationship:?}): a union relationship must be exclusive and not transitive \
             (transitive matching reads one target per table, a union's targets differ per row)"
        );
        let was = self.components.relationship_traits(relationship.index());
        let pairs = relationship_pairs(relationship);
        let held = || {
            pairs.is_some_and(|pairs| {
                self.archetypes.component_index().get(pairs).is_some_and(|record| !record.non_empty().is_empty())
            })
        };
        if was.union != traits.union {
            assert!(
                !held(),
                "set_relationship_traits({relationship:?}): cannot make {} a union relationship or a fragmenting one \
                 while entities hold its pairs; remove them first",
                self.id_name(relationship.id())
            );
        }
        if was.exclusive != traits.exclusive {
            assert!(
                !held(),
                "set_relationship_traits({relationship:?}): cannot change whether {} is exclusive while entities hold \
                 its pairs; remove them first",
                self.id_name(relationship.id())
            );
            self.forget_pair_archetypes(pairs);
        }
        self.components.set_relationship_traits(relationship, traits);
        // Despawning it must forget the traits (cleanup runs for flagged entities).
        self.flag(relationship, EntityFlags::IS_COMPONENT);
    }

    /// Deletes the archetypes holding a pair that matches `pairs` (all empty:
    /// nothing holds such a pair), and with them every graph edge and bundle
    /// destination that leads to them.
    fn forget_pair_archetypes(&mut self, pairs: Option<Id>) {
        let Some(record) = pairs.and_then(|pairs| self.archetypes.component_index().get(pairs)) else { return };
        let doomed: SmallVec<[ArchetypeId; 8]> = record.archetypes().iter().map(|entry| entry.archetype).collect();
        for archetype in doomed {
            self.delete_empty_archetype(archetype);
        }
    }

    fn is_deleting(&self, entity: Entity) -> bool {
        self.entities.get(entity).is_some_and(|record| record.flags.contains(EntityFlags::DELETING))
    }

    /// Adds the alive `entity` to the plan's deletions unless it is there
    /// already or is permanent (never despawned); returns `false` for a
    /// permanent one. Reads and flags it through one lookup.
    fn plan_delete(&mut self, plan: &mut CleanupPlan, entity: Entity) -> bool {
        let Some(flags) = self.entities.flags_mut(entity) else {
            return true;
        };
        if flags.contains(EntityFlags::PERMANENT) {
            return false;
        }
        if !flags.contains(EntityFlags::DELETING) {
            *flags |= EntityFlags::DELETING;
            plan.delete.push(entity);
        }
        true
    }

    /// Computes what despawning `root` does (only the transient `DELETING` flags
    /// change).
    fn plan_cleanup(&mut self, root: Entity, panic_as_remove: bool) -> CleanupPlan {
        // Reuse the last plan's buffer: despawning a hierarchy plans many times.
        let mut plan = CleanupPlan {
            delete: core::mem::take(&mut self.cleanup_scratch),
            panic_as_remove,
            ..CleanupPlan::default()
        };
        self.plan_delete(&mut plan, root);
        let wildcard = Entity::WILDCARD.index();
        let mut next = 0;
        while let Some(&dying) = plan.delete.get(next) {
            next += 1;
            let flags = self.entities.get(dying).map(|record| record.flags).unwrap_or_default();
            if flags.intersects(EntityFlags::IS_TARGET | EntityFlags::IS_COMPONENT) {
                plan.named.push(dying);
            }
            if flags.contains(EntityFlags::IS_TARGET) {
                self.plan_for_pattern(&mut plan, dying, Id::pair_from_indices(wildcard, dying.index()), true);
                self.plan_for_union_targets(&mut plan, dying);
            }
            if flags.contains(EntityFlags::IS_COMPONENT) {
                self.plan_for_pattern(&mut plan, dying, dying.id(), false);
                if let Some(pairs) = relationship_pairs(dying) {
                    self.plan_for_pattern(&mut plan, dying, pairs, false);
                }
                self.plan_for_sparse(&mut plan, dying);
            }
        }
        plan
    }

    /// Applies the `on_delete` policy of `dying`, if it is a sparse component,
    /// to the entities holding a value of it.
    fn plan_for_sparse(&mut self, plan: &mut CleanupPlan, dying: Entity) {
        if self.components.info(dying).is_none_or(|info| info.storage() != crate::component::StorageKind::Sparse) {
            return;
        }
        let Some(set) = self.sparse_sets.of(dying).filter(|set| !set.is_empty()) else {
            return;
        };
        match plan.policy(self.components.relationship_traits(dying.index()).on_delete) {
            CleanupPolicy::Remove => plan.sparse_removals.push(dying),
            CleanupPolicy::Panic => {
                plan.panics.push(PanicCheck {
                    holders: Holders::Sparse(dying),
                    id: dying.id(),
                    despawned: dying,
                    as_target: false,
                });
            }
            CleanupPolicy::Delete => {
                let holders: Vec<Entity> = set.entities().to_vec();
                let mut permanent = false;
                for holder in holders {
                    permanent |= !self.plan_delete(plan, holder);
                }
                // Permanent entities are never despawned: they lose the value.
                if permanent {
                    plan.sparse_removals.push(dying);
                }
            }
        }
    }

    /// Applies `on_delete_target` to the holders of union pairs targeting
    /// `dying` (from the world's index of them; see the module docs).
    fn plan_for_union_targets(&mut self, plan: &mut CleanupPlan, dying: Entity) {
        if self.union_holders_of(dying).is_empty() {
            return;
        }
        let mut holders = core::mem::take(&mut self.union_holders_scratch);
        holders.clear();
        holders.extend_from_slice(self.union_holders_of(dying));
        let mut refused: SmallVec<[u32; 1]> = SmallVec::new();
        for &(holder, relationship) in &holders {
            let id = super::union::union_id(relationship);
            match plan.policy(self.components.relationship_traits(relationship).on_delete_target) {
                CleanupPolicy::Remove => plan.union_removals.push((holder, id, dying)),
                CleanupPolicy::Panic if !refused.contains(&relationship) => {
                    refused.push(relationship);
                    plan.panics.push(PanicCheck {
                        holders: Holders::Union(relationship, dying),
                        id: Id::pair_from_indices(relationship, dying.index()),
                        despawned: dying,
                        as_target: true,
                    });
                }
                CleanupPolicy::Panic => {}
                CleanupPolicy::Delete => {
                    if !self.plan_delete(plan, holder) {
                        // Permanent entities are never despawned: they lose the pair.
                        plan.union_removals.push((holder, id, dying));
                    }
                }
            }
        }
        self.union_holders_scratch = holders;
    }

    /// The error of the first `Panic` policy in `plan` that some surviving
    /// holder triggers.
    fn refusal(&self, plan: &CleanupPlan) -> Result<(), CleanupError> {
        let relationship_of = |check: &PanicCheck| {
            if check.id.is_pair() { check.id.first_index() } else { check.despawned.index() }
        };
        let survivors = |check: &PanicCheck| {
            let (holders, union): (&[Entity], &[(Entity, u32)]) = match check.holders {
                Holders::Archetype(archetype) => (self.archetypes[archetype].entities(), &[]),
                Holders::Sparse(component) => {
                    (self.sparse_sets.of(component).map_or(&[][..], |set| set.entities()), &[])
                }
                Holders::Union(_, target) => (&[], self.union_holders_of(target)),
            };
            let relationship = match check.holders {
                Holders::Union(relationship, _) => relationship,
                _ => u32::MAX,
            };
            let union = union.iter().filter(move |&&(_, listed)| listed == relationship).map(|&(holder, _)| holder);
            holders.iter().copied().chain(union).filter(|&holder| !self.is_deleting(holder))
        };
        // Flecs: deleting an entity whose own `on_delete` is `panic` aborts
        // whether or not anything holds it (`id_throw_no_instances`).
        for &dying in &plan.named {
            let is_component =
                self.entities.get(dying).is_some_and(|record| record.flags.contains(EntityFlags::IS_COMPONENT));
            if is_component && self.components.relationship_traits(dying.index()).on_delete == CleanupPolicy::Panic {
                let held: Vec<Entity> = plan
                    .panics
                    .iter()
                    .filter(|check| !check.as_target && check.despawned == dying)
                    .flat_map(survivors)
                    .take(8)
                    .collect();
                return Err(CleanupError {
                    relationship: self.index_name(dying.index()),
                    despawned: dying,
                    as_target: false,
                    holders: held,
                });
            }
        }
        if let Some(refusal) = plan.panics.iter().find(|check| survivors(check).next().is_some()) {
            // Name the holders of every archetype refusing for the same reason.
            let holders: Vec<Entity> = plan
                .panics
                .iter()
                .filter(|check| {
                    relationship_of(check) == relationship_of(refusal)
                        && check.despawned == refusal.despawned
                        && check.as_target == refusal.as_target
                })
                .flat_map(survivors)
                .take(8)
                .collect();
            return Err(CleanupError {
                relationship: self.index_name(relationship_of(refusal)),
                despawned: refusal.despawned,
                as_target: refusal.as_target,
                holders,
            });
        }
        Ok(())
    }

    /// Applies the policies for every id of every archetype matching `pattern`
    /// (a form naming `dying`).
    fn plan_for_pattern(&mut self, plan: &mut CleanupPlan, dying: Entity, pattern: Id, as_target: bool) {
        let Some(record) = self.archetypes.component_index().get(pattern) else {
            return;
        };
        // Empty archetypes hold no entity to plan for; step 3 deletes them
        // (`doomed` takes every archetype of the record).
        let entries: SmallVec<[(ArchetypeId, u16); 4]> =
            record.non_empty().iter().map(|entry| (entry.archetype, entry.position)).collect();
        for (archetype_id, position) in entries {
            let ids: SmallVec<[Id; 8]> =
                SmallVec::from_slice(&self.archetypes[archetype_id].ids()[position as usize..]);
            for id in ids {
                let names_dying = if as_target {
                    id.is_pair() && id.second_index() == dying.index()
                } else {
                    id == dying.id() || (id.is_pair() && id.first_index() == dying.index())
                };
                if !names_dying {
                    continue;
                }
                let relationship = if id.is_pair() { id.first_index() } else { dying.index() };
                let traits = self.components.relationship_traits(relationship);
                let policy = plan.policy(if as_target { traits.on_delete_target } else { traits.on_delete });
                match policy {
                    CleanupPolicy::Remove => plan.removals.entry(archetype_id).or_default().push(id),
                    CleanupPolicy::Panic => {
                        let holders = Holders::Archetype(archetype_id);
                        plan.panics.push(PanicCheck { holders, id, despawned: dying, as_target });
                    }
                    CleanupPolicy::Delete => {
                        let mut permanent = false;
                        // Last row first: freed in this order, each holder is the
                        // table's last row, so no other row is swapped into its place.
                        for index in (0..self.archetypes[archetype_id].len()).rev() {
                            let holder = self.archetypes[archetype_id].entities()[index];
                            permanent |= !self.plan_delete(plan, holder);
                        }
                        // Permanent entities are never despawned: they lose the id.
                        if permanent {
                            plan.removals.entry(archetype_id).or_default().push(id);
                        }
                    }
                }
            }
        }
    }

    /// The order in which the dying entities of a cleanup others hear of go
    /// (Flecs: "DAGs get deleted bottom to top"): an entity holding a pair
    /// that targets another dying entity goes before it, so its events run
    /// while its targets (its parent, for `ChildOf`) live and the entities
    /// holding pairs to it (its children) are gone. Among entities free to
    /// go, the one found last by the plan's breadth-first walk goes first;
    /// entities on a cycle of such pairs go last, in reverse plan order.
    /// Components (and relationships) go after every other entity, so that
    /// the hooks and observers of their dying holders still find them
    /// registered.
    fn bottom_up_order(&self, plan: &[Entity]) -> Vec<Entity> {
        let position: FxHashMap<Entity, usize> = plan.iter().enumerate().map(|(at, &dying)| (dying, at)).collect();
        // `before[x]`: the dying entities `x` must go before (its targets).
        let mut before: Vec<SmallVec<[usize; 2]>> = vec![SmallVec::new(); plan.len()];
        let mut waiting = vec![0usize; plan.len()];
        for (at, &dying) in plan.iter().enumerate() {
            let Some(location) = self.entities.location(dying) else { continue };
            for &id in self.archetypes[location.archetype].ids() {
                if !id.is_pair() {
                    continue;
                }
                let id = self.concrete_pair(dying, id);
                let Some(target) = self.entities.entity_at(id.second_index()) else { continue };
                if let Some(&target_at) = position.get(&target)
                    && target_at != at
                    && !before[at].contains(&target_at)
                {
                    before[at].push(target_at);
                    waiting[target_at] += 1;
                }
            }
        }
        let is_component = |dying: Entity| {
            self.entities.get(dying).is_some_and(|record| record.flags.contains(EntityFlags::IS_COMPONENT))
        };
        let mut ready: std::collections::BinaryHeap<usize> = (0..plan.len()).filter(|&at| waiting[at] == 0).collect();
        let mut order = Vec::with_capacity(plan.len());
        let mut done = vec![false; plan.len()];
        while let Some(at) = ready.pop() {
            done[at] = true;
            order.push(plan[at]);
            for &target_at in &before[at] {
                waiting[target_at] -= 1;
                if waiting[target_at] == 0 {
                    ready.push(target_at);
                }
            }
        }
        // Cycles: what is left, in reverse plan order.
        order.extend((0..plan.len()).rev().filter(|&at| !done[at]).map(|at| plan[at]));
        // Components last (stable: their relative order is kept).
        let (mut others, components): (Vec<Entity>, Vec<Entity>) =
            order.into_iter().partition(|&dying| !is_component(dying));
        others.extend(components);
        others
    }

    /// Frees the planned entities of a cleanup no hook or observer hears of.
    /// Every row of an archetype naming a dying entity should be dying too
    /// (step 1 of [`World::run_cleanup`] moved the survivors out; a `Panic`
    /// policy refused the plan). Where that is so, the entities are freed with
    /// their rows left in place and the table is cleared as a whole afterwards;
    /// checked, since clearing a live entity's row would leave it pointing at
    /// dropped values.
    fn free_planned_silently(&mut self, plan: &CleanupPlan, doomed: &[ArchetypeId], panics: &mut PanicSlot) {
        let cleared: SmallVec<[ArchetypeId; 4]> = doomed
            .iter()
            .copied()
            .filter(|&archetype| {
                !self.archetypes.is_dead(archetype)
                    && self.archetypes[archetype].entities().iter().all(|&holder| self.is_deleting(holder))
            })
            .collect();
        for &dying in &plan.delete {
            if let Some(record) = self.entities.get(dying) {
                let row = if cleared.binary_search(&record.location.archetype).is_ok() {
                    RowFate::ClearedWithTable
                } else {
                    RowFate::Removed
                };
                self.free_despawned_with(dying, record, row, panics);
            }
        }
        for archetype in cleared {
            self.archetypes.clear_rows(archetype, panics);
        }
    }

    /// Keeps the plan's buffer for the next despawn.
    fn recycle_plan(&mut self, plan: CleanupPlan) {
        let mut delete = plan.delete;
        delete.clear();
        self.cleanup_scratch = delete;
    }

    /// Carries out `plan`. A panicking hook, observer or `Drop` does not stop it
    /// (the panic is kept in `panics`): every planned entity is despawned and
    /// every archetype naming one deleted, so no pair outlives its target.
    fn run_cleanup(&mut self, plan: CleanupPlan, panics: &mut PanicSlot) {
        // 1. Survivors lose the ids that name dying entities.
        for (&archetype, ids) in &plan.removals {
            let holders: Vec<Entity> = self.archetypes[archetype].entities().to_vec();
            let mut destination = None;
            for holder in holders {
                if self.is_deleting(holder) {
                    continue;
                }
                // The component's hooks (for plain ids) and the observers, while
                // the values are readable.
                panics.catch(|| {
                    self.ids_lifecycle(HookKind::Replace, holder, ids);
                    self.ids_lifecycle(HookKind::Remove, holder, ids);
                });
                let location = self.entities.location(holder).expect("holders are alive");
                let destination = *destination.get_or_insert_with(|| {
                    self.archetypes.without(archetype, |id| ids.contains(&id), &self.components)
                });
                self.move_entity(holder, location, destination, panics);
            }
        }
        // 1b. Surviving holders of a dying sparse component lose their value.
        for &component in &plan.sparse_removals {
            let holders: Vec<Entity> = self.sparse_sets.of(component).map_or(Vec::new(), |set| set.entities().to_vec());
            for holder in holders {
                if self.is_deleting(holder) {
                    continue;
                }
                panics.catch(|| {
                    self.ids_lifecycle(HookKind::Replace, holder, &[component.id()]);
                    self.ids_lifecycle(HookKind::Remove, holder, &[component.id()]);
                });
                if let Some(set) = self.sparse_sets.index_of(component) {
                    let set = self.sparse_sets.get_mut(set);
                    panics.catch(|| {
                        set.remove_drop(holder);
                    });
                }
            }
        }
        // Hooks or observers hear of some despawn (step 2).
        let notified = plan.delete.iter().any(|&dying| {
            self.entities.get(dying).is_some_and(|record| {
                self.archetype_lifecycle(record.location.archetype, record.flags)
                    || record.flags.contains(EntityFlags::HAS_SPARSE)
            })
        });
        // 1c. Surviving holders of union pairs targeting a dying entity lose
        // them. Where nothing runs that could read the index (no hook or
        // observer hears of a union pair's removal or of a despawn), the
        // dying targets' index entries go first, as a whole (each holder's
        // own unindexing then has nothing to search); else each holder
        // leaves its target's list as it loses the pair, as a fragmenting
        // pair's holder leaves its table.
        let watched = notified
            || plan
                .union_removals
                .iter()
                .any(|&(_, id, target)| self.id_has_lifecycle(Id::pair_from_indices(id.first_index(), target.index())));
        if !self.union_holders.is_empty() && !watched {
            for &dying in &plan.named {
                // Only targets are listed.
                if self.entities.get(dying).is_some_and(|record| record.flags.contains(EntityFlags::IS_TARGET)) {
                    self.forget_union_holders_of(dying);
                }
            }
        }
        for &(holder, id, target) in &plan.union_removals {
            if self.is_deleting(holder) || self.union_target(holder, id.first_index()) != Some(target) {
                continue;
            }
            let pair = [Id::pair_from_indices(id.first_index(), target.index())];
            panics.catch(|| {
                self.ids_lifecycle(HookKind::Replace, holder, &pair);
                self.ids_lifecycle(HookKind::Remove, holder, &pair);
            });
            let location = self.entities.location(holder).expect("holders are alive");
            let destination = self.archetypes.remove_edge(location.archetype, id, &self.components);
            self.move_entity(holder, location, destination, panics);
        }
        // 2. The dying entities go; remember the archetypes that name them.
        let wildcard = Entity::WILDCARD.index();
        let mut doomed: SmallVec<[ArchetypeId; 4]> = SmallVec::new();
        for &dying in &plan.named {
            let flags = self.entities.get(dying).map(|record| record.flags).unwrap_or_default();
            if flags.intersects(EntityFlags::IS_TARGET | EntityFlags::IS_COMPONENT) {
                let index = self.archetypes.component_index();
                let patterns =
                    [Some(Id::pair_from_indices(wildcard, dying.index())), Some(dying.id()), relationship_pairs(dying)];
                for pattern in patterns.into_iter().flatten() {
                    if let Some(record) = index.get(pattern) {
                        doomed.extend(record.archetypes().iter().map(|entry| entry.archetype));
                    }
                }
                self.components.forget_relationship_traits(dying.index());
            }
        }
        doomed.sort_unstable();
        doomed.dedup();
        if notified {
            // Hooks or observers hear of some despawn: bottom to top, as Flecs
            // deletes a DAG (`bottom_up_order`); each one's events run just
            // before it is freed. Rows are removed one by one: an observer may
            // query them.
            for dying in self.bottom_up_order(&plan.delete) {
                if let Some(record) = self.entities.get(dying) {
                    let record = self.notify_despawn_catching(dying, record, panics);
                    self.free_despawned_with(dying, record, RowFate::Removed, panics);
                }
            }
        } else {
            self.free_planned_silently(&plan, &doomed, panics);
        }
        // Every holder left its dead target's list (none is kept for an index
        // a new entity may take).
        if watched && !self.union_holders.is_empty() {
            for &dying in &plan.named {
                self.forget_union_holders_of(dying);
            }
        }
        // 3. Archetypes naming a dead entity are empty now: delete them, in id
        // order (the component index orders its entries by emptiness, not by
        // creation; deletion order decides which freed slot is reused first).
        for archetype in doomed {
            self.delete_empty_archetype(archetype);
        }
        self.recycle_plan(plan);
    }
}
