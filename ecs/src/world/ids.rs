//! Id-level structural changes: add, insert or remove one [`Id`] (a component
//! entity, a runtime entity used as a tag, or a pair `(R, T)`), keeping the
//! invariants pairs need:
//!
//! * both halves of a pair are alive when it is added, and cleanup (despawn)
//!   removes every pair before either half dies, so a pair's indices always name
//!   the live entities it was built from;
//! * an entity used as a pair target is flagged `IS_TARGET`, one used as a
//!   relationship or runtime id `IS_COMPONENT`: despawn runs cleanup only for
//!   flagged entities;
//! * adding `(R, T)` for an exclusive `R` replaces the other `(R, *)` pair in the
//!   same archetype move (the graph edge encodes it);
//! * adding `(R, T)` for an acyclic `R` fails if `T` already reaches the source
//!   along `R`;
//! * nothing is added without a value that would have to be made up: a
//!   component's id (or a pair of a relationship) whose values have data, drop
//!   glue, or a Rust type that is not a struct without fields
//!   ([`Component::FIELDLESS`]) is refused with [`PairError::NeedsValue`];
//! * a wildcard (`*` or `_`, alone or in a pair) is a pattern, never an id of
//!   an archetype: adding one is [`PairError::Wildcard`]; `has_id` and
//!   `remove_id` take it as "any id it matches" (`remove_id` removes them all,
//!   in one move), `_` meaning the same as `*` there;
//! * a component's id means what the typed API means: a sparse component's id
//!   names its sparse value (`has_id`, `remove_id`; a sparse tag is added to its
//!   set, not to the archetype), and a component's hooks run as for the typed
//!   `insert`/`remove`.
//!
//! The typed API (`add_pair::<R>`, `insert_pair`, ...) is built on these by the
//! `relation` layer.

use core::fmt;
use core::ptr::NonNull;

use smallvec::SmallVec;

use super::hooks::HookKind;
use super::{TickCells, World};
use crate::archetype::ArchetypeFlags;
use crate::component::{Component, ComponentInfo, OnInstantiate, StorageKind};
use crate::entity::{ArchetypeId, Entity, EntityFlags, EntityLocation, Id};
use crate::storage::ComponentTicks;
use crate::util::PanicSlot;

/// Why a pair (or id) could not be added.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PairError {
    /// The entity, the relationship or the target is not alive.
    NotAlive(Entity),
    /// Adding the pair would close a cycle of an acyclic relationship.
    Cycle {
        /// The relationship's name.
        relationship: String,
        /// The entity the pair was added to.
        source: Entity,
        /// The target, which already reaches `source` along the relationship.
        target: Entity,
    },
    /// The id carries a value (its values have data or drop glue, or its type
    /// is not a struct without fields): insert a value with `insert` or
    /// `insert_pair` instead; nothing was added.
    NeedsValue {
        /// The id's name.
        id: String,
        /// The entity.
        entity: Entity,
    },
    /// The id is a wildcard pattern (`*` or `_`, alone or in a pair): it
    /// matches ids, it is not one, so it cannot be added.
    Wildcard {
        /// The id's name, such as `(Likes, *)`.
        id: String,
        /// The entity it was to be added to.
        entity: Entity,
    },
    /// Adding the pair would make an entity an instance (`IsA`) of one of its
    /// own `ChildOf` ancestors (or of itself): instantiating that base would
    /// instantiate its children, the entity among them, under the entity, with
    /// no end (Flecs refuses it too).
    AncestorInstance {
        /// The relationship's name (`IsA` or `ChildOf`).
        relationship: String,
        /// The entity the pair was added to.
        source: Entity,
        /// The pair's target.
        target: Entity,
        /// The base that would be both an ancestor and a base of `source`.
        base: Entity,
    },
    /// The pair is `(ChildOf, parent)`, the entity is named, and a child of
    /// `parent` has its name (names are unique among siblings).
    NameTaken(super::NameError),
    /// The pair targets the union marker [`Entity::UNION`], which only the
    /// world places in archetypes (as `(R, *union*)` for a union
    /// relationship `R`): add `(R, target)` instead.
    UnionMarker {
        /// The id's name, such as `(Movement, *union*)`.
        id: String,
        /// The entity it was to be added to.
        entity: Entity,
    },
}

impl fmt::Display for PairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairError::NotAlive(entity) => write!(f, "entity {entity:?} is not alive"),
            PairError::Cycle { relationship, source, target } => write!(
                f,
                "adding ({relationship}, {target:?}) to {source:?} would make the acyclic relationship \
                 {relationship} cyclic: {target:?} already reaches {source:?} along it"
            ),
            PairError::AncestorInstance { relationship, source, target, base } => {
                // A bundle refused before its entity exists names none.
                let source =
                    if *source == Entity::PLACEHOLDER { "a new entity".to_owned() } else { format!("{source:?}") };
                write!(
                    f,
                    "adding ({relationship}, {target:?}) to {source} would make it an instance (IsA) of {base:?}, \
                     one of its own ChildOf ancestors: instantiating {base:?} would place a copy of it under \
                     itself, without end"
                )
            }
            PairError::NeedsValue { id, entity } => write!(
                f,
                "{id} carries a value (data, drop glue, or a type that is not a struct without fields): \
                 insert a value into {entity:?} with insert or insert_pair instead of adding the id"
            ),
            PairError::Wildcard { id, entity } => write!(
                f,
                "{id} is a wildcard pattern, not an id: it cannot be added to {entity:?} \
                 (wildcards match ids in has_pair, remove_pair, with_pair and queries)"
            ),
            PairError::NameTaken(clash) => write!(f, "{clash}"),
            PairError::UnionMarker { id, entity } => write!(
                f,
                "{id} targets the union marker *union*, which the world manages: it cannot be added to \
                 {entity:?}; add the pair with its real target instead"
            ),
        }
    }
}

impl std::error::Error for PairError {}

impl World {
    /// The alive entity whose index is `index` (pairs store indices only).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// assert_eq!(world.entity_at(e.index()), Some(e));
    /// ```
    #[inline]
    pub fn entity_at(&self, index: u32) -> Option<Entity> {
        self.entities.entity_at(index)
    }

    /// A readable name for `id`: the component's or entity's `Name`, or its
    /// handle; pairs as `(relationship, target)`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// #[derive(Component)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let likes = world.register_component::<Likes>();
    /// let bob = world.spawn(Name::new("bob")).id();
    /// assert_eq!(world.id_name(Id::pair(likes, bob)), "(Likes, bob)");
    /// ```
    pub fn id_name(&self, id: Id) -> String {
        if id.is_pair() {
            format!("({}, {})", self.index_name(id.first_index()), self.index_name(id.second_index()))
        } else {
            self.index_name(id.first_index())
        }
    }

    /// A readable name for the entity with index `index` (see [`World::id_name`]).
    pub(crate) fn index_name(&self, index: u32) -> String {
        if index == Entity::WILDCARD.index() {
            return "*".to_owned();
        }
        if let Some(info) = self.components.info_by_index(index) {
            return info.name().to_owned();
        }
        match self.entity_at(index) {
            Some(entity) => match self.get::<crate::component::Name>(entity) {
                Some(name) => name.as_str().to_owned(),
                None => format!("{entity:?}"),
            },
            None => format!("#{index}"),
        }
    }

    /// The registered component whose id is the plain `id` (`None` for pairs
    /// and plain entities).
    #[inline]
    pub(crate) fn component_of_id(&self, id: Id) -> Option<&ComponentInfo> {
        if id.is_pair() {
            return None;
        }
        self.components.info_by_index(id.first_index()).filter(|info| info.id().id() == id)
    }

    /// Whether adding `id` without a value would have to make one up (see
    /// [`ComponentInfo::needs_value`] and [`ComponentInfo::pair_needs_value`]).
    fn id_needs_value(&self, id: Id) -> bool {
        if id.is_pair() {
            self.components.info_by_index(id.first_index()).is_some_and(ComponentInfo::pair_needs_value)
        } else {
            self.component_of_id(id).is_some_and(ComponentInfo::needs_value)
        }
    }

    /// Whether a structural change of `id` may run anything: a lifecycle
    /// observer exists, or `id` is a component with hooks or a pair of a
    /// relationship with hooks ([`Components::hook_owner`]).
    ///
    /// [`Components::hook_owner`]: crate::component::Components::hook_owner
    #[inline]
    pub(super) fn id_has_lifecycle(&self, id: Id) -> bool {
        self.observers().has_lifecycle_observers()
            || self.components.hook_owner(id).is_some_and(|info| info.hooks().any())
    }

    /// Runs `kind`'s lifecycle for `id` of `entity`: the component's hook (for
    /// the id of a registered component with hooks) and the event's observers.
    pub(super) fn id_lifecycle(&mut self, kind: HookKind, entity: Entity, id: Id) {
        self.ids_lifecycle(kind, entity, &[id]);
    }

    /// Runs `kind`'s lifecycle for `ids` of `entity`, as one event: the hooks
    /// of those that are components with hooks or pairs of relationships with
    /// hooks, and the observers, in [`HookKind::observers_first`]'s order.
    #[inline]
    pub(super) fn ids_lifecycle(&mut self, kind: HookKind, entity: Entity, ids: &[Id]) {
        if kind.observers_first() {
            self.run_lifecycle_observers(kind, entity, ids);
        }
        self.run_id_hook_fns(kind, entity, ids);
        if !kind.observers_first() {
            self.run_lifecycle_observers(kind, entity, ids);
        }
    }

    /// Whether `id` is a pair a spawn may place with its bundle in one move
    /// ([`BundlePairs::one_move_ids`](super::bundle_pairs::BundlePairs)):
    /// concrete (no wildcard, not a union marker), of a table-stored
    /// relationship that is neither a union nor `IsA` (whose instantiation
    /// runs its own steps).
    pub(super) fn is_plain_pair(&self, id: Id) -> bool {
        id.is_pair()
            && !id.is_wildcard()
            && !crate::archetype::is_union_id(id)
            && id.first_index() != self.builtin.is_a.index()
            && !self.is_union_relationship(id.first_index())
            && self.components.info_by_index(id.first_index()).is_some_and(|info| info.storage() == StorageKind::Table)
    }

    /// The sparse component whose id is `id`, if it is one.
    #[inline]
    fn sparse_component_of_id(&self, id: Id) -> Option<Entity> {
        self.component_of_id(id).filter(|info| info.storage() == StorageKind::Sparse).map(ComponentInfo::id)
    }

    /// Checks that `id` may be added to `entity` and flags the entities it names.
    pub(super) fn prepare_add(&mut self, entity: Entity, id: Id) -> Result<EntityLocation, PairError> {
        self.flush_entities();
        let record = self.entities.get(entity).ok_or(PairError::NotAlive(entity))?;
        // The flags come with each lookup: an id's first use flags it, later
        // uses skip the second lookup.
        let first = self.entities.alive_at(id.first_index());
        if id.is_pair() {
            let (relationship, relationship_flags) =
                first.ok_or(PairError::NotAlive(Entity::from_raw(id.first_index(), 0)))?;
            let (target, target_flags) = self
                .entities
                .alive_at(id.second_index())
                .ok_or(PairError::NotAlive(Entity::from_raw(id.second_index().max(1), 0)))?;
            self.check_pair(entity, record, relationship, target, true, true)?;
            self.flag_pair_use(relationship, relationship_flags, target, target_flags);
            if relationship == self.builtin.is_a {
                self.register_base(target);
            }
        } else if let Some((first, flags)) = first
            && !flags.contains(EntityFlags::IS_COMPONENT)
        {
            self.flag(first, EntityFlags::IS_COMPONENT);
        }
        Ok(record.location)
    }

    /// Why the pair `(relationship, target)` may not be added to `entity`
    /// (whose record is `record`), if it may not: it would close a cycle of an
    /// acyclic relationship; `entity` would be a direct instance of one of
    /// its own `ChildOf` ancestors (an `IsA` pair to an ancestor, unless
    /// `ancestors` is false, or a parent whose line holds one of its bases:
    /// Flecs refuses instantiating an ancestor, whose children, `entity`
    /// among them, would be instantiated under `entity`; a base's own bases
    /// are not looked at, as instantiating a base never instantiates its
    /// bases' children); or (with `names`) a sibling under the new parent has
    /// its name. Adding a pair `entity` holds is never refused by the first
    /// two. Changes nothing.
    #[inline]
    pub(super) fn check_pair(
        &self,
        entity: Entity,
        record: crate::entity::EntityRecord,
        relationship: Entity,
        target: Entity,
        names: bool,
        ancestors: bool,
    ) -> Result<(), PairError> {
        let id = Id::pair(relationship, target);
        let traits = self.components.relationship_traits(relationship.index());
        let cycle = || PairError::Cycle { relationship: self.id_name(relationship.id()), source: entity, target };
        // A chain of targets from `target` back to `entity` ends in a pair
        // that targets `entity`, which flagged it `IS_TARGET` (the flag stays
        // until it is despawned): a fresh child skips the walk up its
        // parent's ancestors.
        let may_close_cycle = target == entity || record.flags.contains(EntityFlags::IS_TARGET);
        if traits.acyclic && may_close_cycle && self.reaches(relationship.index(), traits.exclusive, target, entity) {
            return Err(cycle());
        }
        if names && let Some(clash) = self.name_clash_under(entity, record.location, id) {
            return Err(PairError::NameTaken(clash));
        }
        if relationship == self.builtin.is_a {
            let archetype = &self.archetypes[record.location.archetype];
            if ancestors
                && target.index() != entity.index()
                && !archetype.contains(id)
                && let Some(parent) = self.targets_of(entity, Some(self.builtin.child_of.index())).next()
                && self.first_on_line(parent, &[target]).is_some()
            {
                return Err(self.ancestor_instance(relationship, entity, target, target));
            }
        } else if relationship == self.builtin.child_of && self.archetypes.has_bases() {
            // Only an entity with bases can become an instance of an ancestor.
            let archetype = &self.archetypes[record.location.archetype];
            let bases = archetype.pair_positions(self.builtin.is_a.index());
            if !bases.is_empty() && !archetype.contains(id) {
                let bases: SmallVec<[Entity; 2]> =
                    bases.filter_map(|position| self.entity_at(archetype.ids()[position].second_index())).collect();
                if let Some(base) = self.first_on_line(target, &bases) {
                    return Err(self.ancestor_instance(relationship, entity, target, base));
                }
            }
        }
        Ok(())
    }

    /// The first of `start` and its `ChildOf` ancestors (nearest first) that
    /// is one of `entities`.
    pub(super) fn first_on_line(&self, start: Entity, entities: &[Entity]) -> Option<Entity> {
        let mut current = Some(start);
        // A chain longer than the number of entities loops.
        for _ in 0..=self.entities.alive_count() {
            let ancestor = current?;
            if entities.contains(&ancestor) {
                return Some(ancestor);
            }
            current = self.targets_of(ancestor, Some(self.builtin.child_of.index())).next();
        }
        None
    }

    /// [`PairError::AncestorInstance`] for `(relationship, target)` on `source`.
    pub(super) fn ancestor_instance(
        &self,
        relationship: Entity,
        source: Entity,
        target: Entity,
        base: Entity,
    ) -> PairError {
        PairError::AncestorInstance { relationship: self.id_name(relationship.id()), source, target, base }
    }

    /// Flags the entities a pair names on its first use (the relationship as a
    /// component, the target as a target: cleanup looks at flagged entities
    /// only); `*_flags` are their current flags.
    #[inline]
    fn flag_pair_use(
        &mut self,
        relationship: Entity,
        relationship_flags: EntityFlags,
        target: Entity,
        target_flags: EntityFlags,
    ) {
        if !relationship_flags.contains(EntityFlags::IS_COMPONENT) {
            self.flag(relationship, EntityFlags::IS_COMPONENT);
        }
        if !target_flags.contains(EntityFlags::IS_TARGET) {
            self.flag(target, EntityFlags::IS_TARGET);
        }
    }

    /// [`World::prepare_add`]'s flags for the pair `id` of an entity that is
    /// not placed yet (a spawn placing its bundle's pairs with it: no cycle to
    /// close, no name to check yet). `false` if a half of `id` is not alive.
    pub(super) fn flag_new_pair(&mut self, id: Id) -> bool {
        let (Some((relationship, relationship_flags)), Some((target, target_flags))) =
            (self.entities.alive_at(id.first_index()), self.entities.alive_at(id.second_index()))
        else {
            return false;
        };
        self.flag_pair_use(relationship, relationship_flags, target, target_flags);
        true
    }

    pub(super) fn unflag(&mut self, entity: Entity, flag: EntityFlags) {
        if let Some(flags) = self.entities.flags_mut(entity) {
            *flags = flags.without(flag);
        }
    }

    pub(super) fn flag(&mut self, entity: Entity, flag: EntityFlags) {
        if let Some(flags) = self.entities.flags_mut(entity)
            && !flags.contains(flag)
        {
            *flags |= flag;
        }
    }

    /// Whether `from` reaches `to` by following `relationship` pairs (targets
    /// of targets...); `from == to` counts. An exclusive relationship is a chain
    /// (one target each), walked without allocating; otherwise a depth-first
    /// search with a visited set.
    pub(super) fn reaches(&self, relationship: u32, exclusive: bool, from: Entity, to: Entity) -> bool {
        if exclusive {
            let mut current = from;
            // A chain longer than the number of entities loops: it cannot reach `to`.
            for _ in 0..=self.entities.alive_count() {
                if current == to {
                    return true;
                }
                match self.targets_of(current, Some(relationship)).next() {
                    Some(next) => current = next,
                    None => return false,
                }
            }
            return false;
        }
        let mut stack = vec![from];
        let mut seen = crate::util::FxHashSet::default();
        while let Some(entity) = stack.pop() {
            if entity == to {
                return true;
            }
            if seen.insert(entity) {
                stack.extend(self.targets_of(entity, Some(relationship)));
            }
        }
        false
    }

    /// Moves `entity` from `location` to `destination` (dropping what it loses)
    /// and returns its new row. A panicking `Drop` of a lost value is kept in
    /// `panics`: the move completes.
    pub(super) fn move_entity(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        destination: ArchetypeId,
        panics: &mut PanicSlot,
    ) -> usize {
        if destination == location.archetype {
            return location.row as usize;
        }
        if self.inherited_events_on() {
            // A panicking observer waits until the change is done.
            panics.catch(|| self.inherited_events_for_move(entity, location.archetype, Some(destination)));
        }
        if !self.union_holders.is_empty() {
            self.unindex_union_pairs(entity, location, Some(destination));
        }
        // SAFETY: `location` is the entity's; the caller initializes the columns
        // the destination adds (id-level adds add at most one, written right after).
        let moved = unsafe {
            self.archetypes.move_row_planned(
                entity,
                location.archetype,
                location.row as usize,
                destination,
                true,
                panics,
            )
        };
        if let Some(swapped) = moved.swapped {
            self.entities.set_location(swapped, location);
        }
        self.entities.set_location(entity, EntityLocation { archetype: destination, row: moved.row as u32 });
        moved.row
    }

    /// Adds `id` (a tag, a tag pair or a runtime pair: anything without a value)
    /// to `entity`, as the typed API would (a sparse tag goes to its sparse set;
    /// a component's hooks run). Returns `false` if `entity` is not alive. See
    /// [`World::try_add_id`] for the errors.
    ///
    /// # Panics
    /// Panics if a half of the pair is not alive, if the pair would make an
    /// acyclic relationship cyclic, if `id` carries a value or is a wildcard
    /// pattern (naming the id and the entity).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (likes, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let alice = world.spawn_empty().id();
    /// assert!(world.add_id(alice, Id::pair(likes, bob)));
    /// assert!(world.has_id(alice, Id::pair(likes, bob)));
    /// assert!(world.remove_id(alice, Id::pair(likes, bob)));
    /// ```
    #[track_caller]
    pub fn add_id(&mut self, entity: Entity, id: Id) -> bool {
        match self.try_add_id(entity, id) {
            Ok(()) => true,
            Err(PairError::NotAlive(dead)) if dead == entity => false,
            Err(error) => panic!("{error}"),
        }
    }

    /// Adds `id` to `entity`, or says why not (nothing changes then).
    ///
    /// # Errors
    /// [`PairError::NotAlive`] if the entity or a half of the pair is not alive;
    /// [`PairError::Cycle`] if an acyclic relationship would become cyclic;
    /// [`PairError::AncestorInstance`] if the entity would become an instance
    /// of one of its own `ChildOf` ancestors;
    /// [`PairError::NeedsValue`] if `id` carries a value: its values (or, for a
    /// pair, its relationship's) have data, drop glue, or a Rust type that is
    /// not a struct without fields ([`Component::FIELDLESS`]);
    /// [`PairError::Wildcard`] if `id` is a wildcard pattern such as
    /// `(Likes, *)` ([`Id::is_wildcard`]): patterns match ids, they are not ids.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::world::PairError;
    /// #[derive(Component)]
    /// #[component(storage = "sparse")]
    /// struct Stunned(u32);
    /// #[derive(Component)]
    /// #[component(storage = "sparse")]
    /// struct Marked;
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// let stunned = world.register_component::<Stunned>();
    /// assert!(matches!(world.try_add_id(e, stunned.id()), Err(PairError::NeedsValue { .. })));
    /// assert!(!world.has_id(e, stunned.id()) && !world.has::<Stunned>(e));
    /// let marked = world.register_component::<Marked>();
    /// assert_eq!(world.try_add_id(e, marked.id()), Ok(())); // a tag: as `insert(Marked)`
    /// assert!(world.has::<Marked>(e) && world.has_id(e, marked.id()));
    /// ```
    pub fn try_add_id(&mut self, entity: Entity, id: Id) -> Result<(), PairError> {
        self.refuse_wildcard(entity, id)?;
        self.refuse_dead_plain_id(id)?;
        if self.id_needs_value(id) {
            return Err(PairError::NeedsValue { id: self.id_name(id), entity });
        }
        if let Some(component) = self.sparse_component_of_id(id) {
            return self.add_sparse_tag(entity, component);
        }
        if id.is_pair() && self.is_union_relationship(id.first_index()) {
            return self.add_union_pair(entity, id);
        }
        let location = self.prepare_add(entity, id)?;
        let destination = self.archetypes.add_edge(location.archetype, id, &self.components);
        let existed = self.before_id_change(entity, location.archetype, destination, id);
        let mut panics = PanicSlot::default();
        let row = self.move_entity(entity, location, destination, &mut panics);
        self.stamp_tag_column(EntityLocation { archetype: destination, row: row as u32 }, id, existed);
        self.after_id_insert(entity, id, existed);
        panics.resume();
        Ok(())
    }

    /// A tag with change detection has a column of ticks (no values): stamps
    /// the row at `location` (where `id` was just added) as added (new) or
    /// changed (overwritten), as the typed insert does.
    fn stamp_tag_column(&mut self, location: EntityLocation, id: Id, existed: bool) {
        let tick = self.change_tick();
        let archetype = self.archetypes.get_mut(location.archetype);
        let Some(column) = archetype.column_of(id) else { return };
        let column = archetype.table_mut().column_mut(column);
        let row = location.row as usize;
        // SAFETY: `row` is the entity's row in this table; a zero-sized value
        // needs no initialization, and the ticks are written here.
        unsafe {
            if existed {
                column.set_changed(row, tick);
            } else {
                column.set_ticks(row, ComponentTicks::new(tick));
            }
        }
    }

    /// [`PairError::NotAlive`] if `id` is a plain entity (not a pair) that is
    /// not alive: never allocated, despawned, or a stale handle whose index
    /// another entity has now (the id would name that other entity's index).
    fn refuse_dead_plain_id(&mut self, id: Id) -> Result<(), PairError> {
        if id.is_pair() {
            return Ok(());
        }
        self.flush_entities();
        match id.entity() {
            Some(entity) if self.entities.is_alive(entity) => Ok(()),
            Some(entity) => Err(PairError::NotAlive(entity)),
            None => Err(PairError::NotAlive(Entity::from_raw(id.first_index().max(1), 0))),
        }
    }

    /// [`PairError::Wildcard`] if `id` is a wildcard pattern,
    /// [`PairError::UnionMarker`] if it targets [`Entity::UNION`].
    fn refuse_wildcard(&self, entity: Entity, id: Id) -> Result<(), PairError> {
        if id.is_wildcard() {
            return Err(PairError::Wildcard { id: self.id_name(id), entity });
        }
        if crate::archetype::is_union_id(id) {
            return Err(PairError::UnionMarker { id: self.id_name(id), entity });
        }
        Ok(())
    }

    /// Lifecycle events before adding `id` moves `entity` from `source` to
    /// `destination`: `OnReplace` for an overwritten `id`, `OnReplace` and
    /// `OnRemove` for the pairs an exclusive replacement drops. Returns whether
    /// the entity already had `id`. `destination` is the add edge of `id`
    /// from `source`: `source` itself only when it holds `id` (a move may
    /// also re-add a held pair, when an exclusive relationship's replacement
    /// drops the others, so a move is checked against the type).
    pub(super) fn before_id_change(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        destination: ArchetypeId,
        id: Id,
    ) -> bool {
        let existed = source == destination || self.archetypes[source].contains(id);
        if existed && self.id_has_lifecycle(id) {
            self.id_lifecycle(HookKind::Replace, entity, id);
            self.report_inherited_overwrite_ids(HookKind::Replace, entity, &[id]);
        }
        // An exclusive relationship's replaced pair goes with the move (an
        // add that drops nothing makes the type longer).
        let may_drop =
            source != destination && self.archetypes[destination].ids().len() <= self.archetypes[source].ids().len();
        if may_drop
            && (self.observers().has_lifecycle_observers()
                || self.archetypes[source].flags().contains(ArchetypeFlags::HAS_PAIR_HOOKS))
        {
            let dropped: SmallVec<[Id; 2]> = self.archetypes[source]
                .ids()
                .iter()
                .copied()
                .filter(|&old| !self.archetypes[destination].contains(old))
                .collect();
            if !dropped.is_empty() {
                self.ids_lifecycle(HookKind::Replace, entity, &dropped);
                self.ids_lifecycle(HookKind::Remove, entity, &dropped);
            }
        }
        existed
    }

    /// Lifecycle events after `id` was added or inserted (hooks, observers),
    /// then their commands.
    pub(super) fn after_id_insert(&mut self, entity: Entity, id: Id, existed: bool) {
        if self.id_has_lifecycle(id) {
            if !existed {
                self.id_lifecycle(HookKind::Add, entity, id);
            }
            self.id_lifecycle(HookKind::Insert, entity, id);
            if existed {
                self.report_inherited_overwrite_ids(HookKind::Insert, entity, &[id]);
            }
            self.flush_deferred();
        }
        if !existed && id == self.builtin.prefab.id() {
            self.make_children_prefabs(entity);
        }
        if !existed && id.is_pair() {
            self.after_pair_added(entity, id);
        }
        self.flush_inherited_gains();
    }

    /// Adds the sparse tag `component` (zero-sized, no drop glue, fieldless) to
    /// `entity` as `insert` would: its value goes to the component's sparse set,
    /// `on_replace` runs for an overwrite, then `on_add` (if new) and
    /// `on_insert`, with their observers.
    fn add_sparse_tag(&mut self, entity: Entity, component: Entity) -> Result<(), PairError> {
        self.flush_entities();
        if !self.is_alive(entity) {
            return Err(PairError::NotAlive(entity));
        }
        let info = self.components.info(component).expect("sparse ids are registered components");
        debug_assert!(info.is_tag() && info.drop_fn().is_none(), "only value-free sparse ids are added by id");
        let (layout, drop_fn) = (info.layout(), info.drop_fn());
        let set = self.sparse_sets.get_or_insert(component, layout, drop_fn);
        let existed = self.sparse_sets.get(set).contains(entity);
        if existed {
            self.id_lifecycle(HookKind::Replace, entity, component.id());
        }
        let tick = self.change_tick();
        let set = self.sparse_sets.get_mut(set);
        match set.get_with_changed(entity) {
            // Hooks cannot remove it (their commands wait): the overwrite of a
            // value-free zero-sized value is only its changed tick.
            // SAFETY: `&mut self` gives exclusive access to the value's ticks.
            Some((_, changed)) => unsafe { changed.set_unchecked(tick) },
            None => {
                // SAFETY: the entity holds no value in this set; the value is
                // zero-sized (any aligned address holds it, nothing to write) and
                // the component is fieldless (`needs_value` is false), so it exists.
                unsafe { set.insert_uninit(entity, ComponentTicks::new(tick)) };
            }
        }
        self.flag(entity, EntityFlags::HAS_SPARSE);
        self.after_id_insert(entity, component.id(), existed);
        Ok(())
    }

    /// Inserts `value` as the data of `id` (a pair whose relationship is `T`, or
    /// `T`'s own id), replacing the old value if there is one.
    ///
    /// # Errors
    /// As [`World::try_add_id`] (never `NeedsValue`).
    pub(crate) fn insert_id_value<T: Component>(&mut self, entity: Entity, id: Id, value: T) -> Result<(), PairError> {
        debug_assert!(self.components.id_of::<T>().is_some_and(|c| c.index() == id.first_index()));
        self.refuse_wildcard(entity, id)?;
        if id.is_pair() && self.is_union_relationship(id.first_index()) {
            // A union relationship is a tag (its value is zero-sized): only the
            // target is kept.
            self.add_union_pair(entity, id)?;
            drop(value);
            return Ok(());
        }
        let location = self.prepare_add(entity, id)?;
        let destination = self.archetypes.add_edge(location.archetype, id, &self.components);
        let existed = self.before_id_change(entity, location.archetype, destination, id);
        // Observers cannot move the entity (their commands wait).
        let location = self.entities.location(entity).expect("observers cannot despawn (their commands wait)");
        let mut panics = PanicSlot::default();
        self.write_id_value(entity, location, destination, id, existed, value, &mut panics);
        self.after_id_insert(entity, id, existed);
        panics.resume();
        Ok(())
    }

    /// Moves `entity` to `destination` and writes `value` for `id`. A panicking
    /// `Drop` of a value it replaces or loses is kept in `panics`.
    #[allow(clippy::too_many_arguments)]
    fn write_id_value<T: Component>(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        destination: ArchetypeId,
        id: Id,
        existed: bool,
        value: T,
        panics: &mut PanicSlot,
    ) {
        let tick = self.change_tick();
        let row = self.move_entity(entity, location, destination, panics);
        let archetype = self.archetypes.get_mut(destination);
        let Some(column) = archetype.column_of(id) else {
            // A zero-sized value: nothing to store.
            panics.drop_value(value);
            return;
        };
        let column = archetype.table_mut().column_mut(column);
        // SAFETY: the column stores `T` values (its id's relationship is `T`);
        // `row` is the entity's row: initialized if the id existed (swapped out
        // and dropped after the write), else the fresh uninitialized slot the
        // move left for it.
        unsafe {
            let place = column.get_ptr(row).cast::<T>();
            if existed {
                let old = place.as_ptr().replace(value);
                column.set_changed(row, tick);
                panics.drop_value(old);
            } else {
                place.write(value);
                column.set_ticks(row, ComponentTicks::new(tick));
            }
        }
    }

    /// Removes `id` from `entity`, dropping its value (a sparse component's id
    /// removes its sparse value), with the hooks and observers the typed
    /// `remove` runs. Returns whether the entity had it.
    ///
    /// A wildcard pattern removes every id it matches, in one move: `(R, *)`
    /// every pair of `R`, `(*, T)` every pair targeting `T`, `(*, *)` every
    /// pair, `*` alone every id and sparse value (`_` means the same as `*`);
    /// `true` if anything was removed.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (tag, e) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_id(e, tag.id());
    /// assert!(world.remove_id(e, tag.id()));
    /// assert!(!world.remove_id(e, tag.id()));
    /// ```
    ///
    /// # Panics
    /// Panics, naming both entities and changing nothing, if `id` removes the
    /// `ChildOf` pair of a named entity while a root has its name (it would
    /// become a second root with that name).
    #[track_caller]
    pub fn remove_id(&mut self, entity: Entity, id: Id) -> bool {
        self.flush_entities();
        if !id.is_pair() && !id.is_wildcard() && !id.entity().is_some_and(|named| self.entities.is_alive(named)) {
            // No entity holds the id of a dead one (its despawn removed it);
            // a stale handle must not reach the live entity of its index.
            return false;
        }
        self.refuse_root_name_clash(entity, id);
        if id.is_wildcard() {
            return self.remove_matching(entity, id.any_as_wildcard());
        }
        if let Some(component) = self.sparse_component_of_id(id) {
            return self.remove_sparse_id(entity, component);
        }
        if id.is_pair() && self.is_union_relationship(id.first_index()) {
            return self.remove_union_pair(entity, id);
        }
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let destination = self.archetypes.remove_edge(location.archetype, id, &self.components);
        if destination == location.archetype {
            return false;
        }
        if self.id_has_lifecycle(id) {
            self.id_lifecycle(HookKind::Replace, entity, id);
            self.id_lifecycle(HookKind::Remove, entity, id);
        }
        let location = self.entities.location(entity).expect("observers cannot despawn (their commands wait)");
        let mut panics = PanicSlot::default();
        self.move_entity(entity, location, destination, &mut panics);
        self.flush_deferred();
        panics.resume();
        true
    }

    /// The sparse components `entity` holds a value of.
    fn sparse_components_of(&self, entity: Entity) -> SmallVec<[Entity; 2]> {
        let flags = self.entities.get(entity).map(|record| record.flags).unwrap_or_default();
        if !flags.contains(EntityFlags::HAS_SPARSE) {
            return SmallVec::new();
        }
        self.sparse_sets.iter().filter(|(_, set)| set.contains(entity)).map(|(component, _)| component).collect()
    }

    /// Removes every id of `entity` that `pattern` (a wildcard, `_` already
    /// read as `*`) matches: `on_replace` then `on_remove` (hooks and observers)
    /// for each, then one move (and, for `*`, the sparse values); whether any.
    fn remove_matching(&mut self, entity: Entity, pattern: Id) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let mut matched: SmallVec<[Id; 4]> =
            self.archetypes[location.archetype].ids().iter().copied().filter(|&id| pattern.matches(id)).collect();
        if pattern.is_pair() && pattern.second_index() != Entity::WILDCARD.index() {
            // `(*, t)`: the union pairs whose row targets `t`.
            matched.extend(self.union_ids_targeting(location, pattern.second_index()));
        }
        let table_ids = matched.len();
        if pattern == Entity::WILDCARD.id() {
            matched.extend(self.sparse_components_of(entity).into_iter().map(Entity::id));
        }
        if matched.is_empty() {
            return false;
        }
        // Events name a union's concrete pair `(R, target)`, not `(R, *union*)`.
        let events: SmallVec<[Id; 4]> = matched.iter().map(|&id| self.concrete_pair(entity, id)).collect();
        for kind in [HookKind::Replace, HookKind::Remove] {
            self.ids_lifecycle(kind, entity, &events);
        }
        // Hooks and observers cannot move or despawn it (their commands wait).
        let location = self.entities.location(entity).expect("hooks cannot despawn (their commands wait)");
        let table = &matched[..table_ids];
        let destination = self.archetypes.without(location.archetype, |id| table.contains(&id), &self.components);
        // A panicking `Drop` lets the removal finish, then continues.
        let mut panics = PanicSlot::default();
        self.move_entity(entity, location, destination, &mut panics);
        for &id in &matched[table_ids..] {
            if let Some(set) = id.entity().and_then(|component| self.sparse_sets.index_of(component)) {
                let set = self.sparse_sets.get_mut(set);
                panics.catch(|| {
                    set.remove_drop(entity);
                });
            }
        }
        self.flush_deferred();
        panics.resume();
        true
    }

    /// Removes `entity`'s value of the sparse `component` as `remove` would
    /// (`on_replace`, `on_remove`, their observers, then the drop); whether it
    /// had one.
    fn remove_sparse_id(&mut self, entity: Entity, component: Entity) -> bool {
        let holds = |world: &World| {
            world.is_alive(entity) && world.sparse_sets.of(component).is_some_and(|set| set.contains(entity))
        };
        if !holds(self) {
            return false;
        }
        self.id_lifecycle(HookKind::Replace, entity, component.id());
        self.id_lifecycle(HookKind::Remove, entity, component.id());
        // Hooks and observers cannot remove it (their commands wait). A
        // panicking `Drop` lets the removal finish (the value is unlinked
        // first), then continues.
        let mut panics = PanicSlot::default();
        if let Some(set) = self.sparse_sets.index_of(component) {
            let set = self.sparse_sets.get_mut(set);
            panics.catch(|| {
                set.remove_drop(entity);
            });
        }
        self.flush_deferred();
        panics.resume();
        true
    }

    /// Whether `entity` has `id` (`false` if it is not alive): owns it, or
    /// inherits it from a prefab through `IsA` (a component with the inherit
    /// policy, or a plain entity used as a tag), as `World::has::<T>` and
    /// queries see it. A wildcard pattern asks for any id it matches (owned):
    /// `(R, *)`, `(*, T)` and `(*, *)` any pair of that form, `*` alone any id
    /// or sparse value (`_` means the same as `*`); a sparse component's id
    /// matches its sparse value.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// let mut world = World::new();
    /// let (likes, bob, alice) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_id(alice, Id::pair(likes, bob));
    /// assert!(world.has_id(alice, Id::pair(likes, Entity::WILDCARD)));
    /// assert!(!world.has_id(bob, Id::pair(likes, Entity::WILDCARD)));
    /// ```
    pub fn has_id(&self, entity: Entity, id: Id) -> bool {
        self.owns_id(entity, id)
            || (!id.is_wildcard() && (self.inherits_id(entity, id) || self.inherits_sparse_id(entity, id)))
    }

    /// Whether `entity` inherits the sparse component `id` (default policy)
    /// from a prefab, as `World::has::<T>` finds it (a walk of the bases).
    fn inherits_sparse_id(&self, entity: Entity, id: Id) -> bool {
        id.entity()
            .filter(|&component| self.components.info(component).is_some_and(ComponentInfo::is_inherited_sparse))
            .is_some_and(|component| self.sparse_base_holding(entity, component).is_some())
    }

    /// Whether `entity`'s own type (or sparse sets, or union rows) holds
    /// `id`: [`World::has_id`] without what it inherits.
    pub(crate) fn owns_id(&self, entity: Entity, id: Id) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let archetype = &self.archetypes[location.archetype];
        if id.is_wildcard() {
            let id = id.any_as_wildcard();
            return archetype.matches_id(id)
                || (id == Entity::WILDCARD.id() && !self.sparse_components_of(entity).is_empty())
                || (id.is_pair()
                    && id.second_index() != Entity::WILDCARD.index()
                    && self.has_union_pair(location, id));
        }
        if archetype.contains(id) {
            return true;
        }
        if id.is_pair() && self.is_union_relationship(id.first_index()) {
            return self.has_union_pair(location, id);
        }
        self.sparse_component_of_id(id)
            .and_then(|component| self.sparse_sets.of(component))
            .is_some_and(|set| set.contains(entity))
    }

    /// Whether `entity` has `id` ([`World::has_id`]) or inherits it: a plain
    /// component with the default `on_instantiate = "inherit"` policy read
    /// from a base through `IsA` (as `Has<T>` sees it).
    pub(crate) fn has_id_or_inherits(&self, entity: Entity, id: Id) -> bool {
        self.owns_id(entity, id) || self.inherits_id(entity, id)
    }

    /// Whether instances inherit `id` from their prefabs: a component with
    /// the `inherit` policy, an entity that is not a component (a runtime
    /// tag: no value to copy, so it is shared, as the default policy shares),
    /// or a value pair of an `inherit` relationship
    /// ([`ComponentInfo::inherits_pairs`]). Other pairs are not inherited (an
    /// instance gets copies of its base's tag and `override` pairs instead,
    /// see `World::instantiate`).
    pub(crate) fn is_inherited_id(&self, id: Id) -> bool {
        if id.is_pair() {
            return !id.is_wildcard() && self.inherits_pairs_of(id.first_index());
        }
        id.entity().is_some_and(|entity| match self.components.info(entity) {
            Some(info) => info.is_inherited(),
            None => self.entities.get(entity).is_some_and(|record| !record.flags.contains(EntityFlags::INTERNAL)),
        })
    }

    /// Whether an `up` walk along `relationship` may find `id` on an
    /// ancestor: along `IsA`, ids whose component or relationship is
    /// `dont_inherit` (`Name`, `Prefab`, `(ChildOf, _)`, `(IsA, _)`, and
    /// user components with that policy) are never found on a base, as Flecs'
    /// search never inherits them; along any other relationship every id is.
    #[inline]
    pub(crate) fn found_up(&self, relationship: Entity, id: Id) -> bool {
        if relationship != self.builtin.is_a {
            return true;
        }
        // A plain id's own index, a pair's relationship's.
        self.components
            .info_by_index(id.first_index())
            .is_none_or(|info| info.on_instantiate() != OnInstantiate::DontInherit)
    }

    /// Whether instances read the value pairs of the relationship whose
    /// entity index is `relationship` from their prefabs
    /// ([`ComponentInfo::inherits_pairs`]).
    #[inline]
    pub(crate) fn inherits_pairs_of(&self, relationship: u32) -> bool {
        self.components.info_by_index(relationship).is_some_and(ComponentInfo::inherits_pairs)
    }

    /// The prefab base `entity` reads its `id` from through `IsA` (a
    /// component or value pair it inherits and does not own), if any.
    pub(crate) fn inherited_base_of(&self, entity: Entity, id: Id) -> Option<Entity> {
        let location = self.entities.location(entity)?;
        let archetype = &self.archetypes[location.archetype];
        if archetype.inherited().is_empty() || archetype.contains(id) || !self.is_inherited_id(id) {
            return None;
        }
        archetype.inherited_from(id)
    }

    /// Whether `entity` inherits the component or value pair `id` (see
    /// [`World::has_id_or_inherits`]) without owning it.
    /// A pair pattern (`(R, *)`) asks for any such value pair.
    pub(crate) fn inherits_id(&self, entity: Entity, id: Id) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let archetype = &self.archetypes[location.archetype];
        if id.is_wildcard() {
            let pattern = id.any_as_wildcard();
            return id.is_pair()
                && archetype.inherited().iter().any(|&(held, _)| {
                    held.is_pair() && pattern.matches(held) && !archetype.contains(held) && self.is_inherited_id(held)
                });
        }
        !archetype.inherited().is_empty()
            && !archetype.contains(id)
            && archetype.inherited_from(id).is_some()
            && self.is_inherited_id(id)
    }

    /// The address of `entity`'s value for `id` and its tick cells (`None` if
    /// the entity lacks `id` or `id` has no column; the cells are `None` when
    /// the component has no change detection).
    pub(crate) fn id_value(&self, entity: Entity, id: Id) -> Option<(NonNull<u8>, Option<TickCells<'_>>)> {
        if crate::archetype::is_union_id(id) {
            // Its column holds targets, not values of the relationship.
            return None;
        }
        let location = self.entities.location(entity)?;
        let archetype = &self.archetypes[location.archetype];
        let column = archetype.table().column(archetype.column_of(id)?);
        let row = location.row as usize;
        // SAFETY: `row` is the entity's row, below the table's length.
        unsafe { Some((column.get_ptr(row), column.tick_cells(row))) }
    }

    /// The targets of `entity`'s `(relationship, *)` pairs (by index).
    /// A union relationship's target is its row's.
    /// Walks up `relationship` from the targets of `archetype`'s entities
    /// and returns the first `found` gives for an ancestor: depth-first over
    /// every `(relationship, *)` target in type order, `IsA` bases in the
    /// order they were added (Flecs' search: a
    /// target, what lies beyond it, then the next target). An exclusive
    /// relationship is a chain, walked without a visited set and bounded by
    /// the number of alive entities (in case it loops); any other visits
    /// each entity once. What `up` query terms, typed and runtime, share.
    ///
    /// A union relationship's target differs per row (its id is
    /// `(relationship, *union*)`): it is read from `row` of `archetype`, and
    /// from each ancestor's own row. With `row` `None`, a union pair of
    /// `archetype` gives no target: callers resolving one ancestor per table
    /// ask [`World::holds_union_of`] first and go row by row where it holds.
    pub(crate) fn find_up<R>(
        &self,
        archetype: &crate::archetype::Archetype,
        row: Option<usize>,
        relationship: Entity,
        mut found: impl FnMut(Entity) -> Option<R>,
    ) -> Option<R> {
        let targets_in =
            |archetype: &crate::archetype::Archetype, row: Option<usize>, stack: &mut SmallVec<[Entity; 8]>| {
                let mark = stack.len();
                for id in self.pair_ids_in(archetype, relationship.index()) {
                    let target = if crate::archetype::is_union_id(id) {
                        row.zip(archetype.column_of(id)).map(|(row, column)| archetype.union_column(column)[row].target)
                    } else {
                        self.entity_at(id.second_index())
                    };
                    stack.extend(target);
                }
                stack[mark..].reverse();
            };
        let exclusive = self.components.relationship_traits(relationship.index()).exclusive;
        let mut visited = crate::util::FxHashSet::default();
        let mut steps = 0;
        let mut stack: SmallVec<[Entity; 8]> = SmallVec::new();
        targets_in(archetype, row, &mut stack);
        while let Some(ancestor) = stack.pop() {
            if exclusive {
                steps += 1;
                if steps > self.entities.alive_count() + 1 {
                    return None;
                }
            } else if !visited.insert(ancestor) {
                continue;
            }
            if let Some(value) = found(ancestor) {
                return Some(value);
            }
            if let Some(location) = self.entities.location(ancestor) {
                targets_in(&self.archetypes[location.archetype], Some(location.row as usize), &mut stack);
            }
        }
        None
    }

    /// Whether `archetype` holds a pair of the union relationship
    /// `relationship` (the id `(relationship, *union*)`): its rows' targets
    /// differ, so traversal along `relationship` is resolved per row there.
    #[inline]
    pub(crate) fn holds_union_of(&self, archetype: &crate::archetype::Archetype, relationship: u32) -> bool {
        archetype.contains(super::union::union_id(relationship))
    }

    pub(crate) fn targets_of(&self, entity: Entity, relationship: Option<u32>) -> impl Iterator<Item = Entity> + '_ {
        let location = self.entities().location(entity);
        let ids = match (relationship, location) {
            (Some(relationship), Some(location)) => {
                Some(self.pair_ids_in(&self.archetypes()[location.archetype], relationship))
            }
            _ => None,
        };
        ids.into_iter().flatten().filter_map(move |id| match location {
            Some(location) if crate::archetype::is_union_id(id) => {
                let archetype = &self.archetypes()[location.archetype];
                let column = archetype.column_of(id)?;
                // A target freed while the cleanup that removes this pair runs
                // (a cycle of dying entities) is gone, as `entity_at` finds a
                // fragmenting pair's dead target gone.
                Some(archetype.union_column(column)[location.row as usize].target)
                    .filter(|&target| self.is_alive(target))
            }
            _ => self.entity_at(id.second_index()),
        })
    }

    /// `archetype`'s `(relationship, *)` pairs in type order, but `IsA`
    /// pairs in the order they were added
    /// ([`Archetype::base_order`](crate::archetype::Archetype::base_order)):
    /// what every walk over an entity's targets reads.
    pub(crate) fn pair_ids_in<'a>(
        &self,
        archetype: &'a crate::archetype::Archetype,
        relationship: u32,
    ) -> impl Iterator<Item = Id> + 'a {
        let order = if relationship == self.builtin.is_a.index() { archetype.base_order() } else { &[] };
        let in_type_order =
            if order.is_empty() { &archetype.ids()[archetype.pair_positions(relationship)] } else { &[] };
        order.iter().map(move |&base| Id::pair_from_indices(relationship, base)).chain(in_type_order.iter().copied())
    }

    /// The ids of `entity`'s archetype (its components and pairs, sorted).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let (tag, e) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_id(e, tag.id());
    /// assert_eq!(world.ids_of(e), Some(&[tag.id()][..]));
    /// ```
    pub fn ids_of(&self, entity: Entity) -> Option<&[crate::entity::Id]> {
        let location = self.entities.location(entity)?;
        Some(self.archetypes[location.archetype].ids())
    }
}
