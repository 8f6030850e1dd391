//! The typed relationship API on [`World`] and [`EntityWorldMut`], built on the
//! world's id-level operations (`add_id`, `remove_id`, ...).
//!
//! A runtime target may be the wildcard [`Entity::WILDCARD`] (or
//! [`Entity::ANY`], which means the same here): "any target". Each entry point
//! says what that means for it: a test (`has_pair`, `has_pair_id`) asks for any
//! pair, `sources` lists every holder of any pair once, a read (`get_pair`,
//! `get_pair_mut`) reads the first pair in id order (the lowest target index,
//! the one `target` returns), a removal (`remove_pair`, `remove_pair_id`)
//! removes every matching pair in one move, and an addition (`add_pair`,
//! `insert_pair`, `add_pair_id`) is refused with [`PairError::Wildcard`]: a
//! pattern is not a pair.

use core::ptr::NonNull;

use super::{ChildOf, Relationship};
use crate::entity::{Entity, Id};
use crate::storage::Tick;
use crate::world::{EntityWorldMut, Mut, PairError, World};

impl World {
    /// The pair id `(R, target)`, registering `R`.
    fn pair_id<R: Relationship>(&mut self, target: Entity) -> Id {
        Id::pair(self.register_component::<R>(), target)
    }

    /// The pair id `(R, target)` if `R` is registered and `target` alive; a
    /// wildcard target gives the pattern `(R, *)` (`_` read as `*`).
    fn existing_pair_id<R: Relationship>(&self, target: Entity) -> Option<Id> {
        let relationship = self.component_id::<R>()?;
        self.is_alive(target).then(|| Id::pair(relationship, target).any_as_wildcard())
    }

    /// The pair of `entity` that `id` names: `id` itself, or for the pattern
    /// `(R, *)` the first pair of `R` in `entity`'s type (lowest target index).
    fn first_matching_pair(&self, entity: Entity, id: Id) -> Option<Id> {
        if !id.is_wildcard() {
            return Some(id);
        }
        let location = self.entities().location(entity)?;
        let archetype = &self.archetypes()[location.archetype];
        archetype.pair_positions(id.first_index()).next().map(|position| archetype.ids()[position])
    }

    /// Adds the pair `(R, target)` to `entity` (for an exclusive `R`, replacing
    /// its current `(R, *)` pair in one move). Returns `false` if `entity` is not
    /// alive.
    ///
    /// # Panics
    /// Panics if `target` is not alive or is a wildcard, if `R` is acyclic and
    /// the pair would close a cycle (naming both entities), if `R` carries
    /// data (use [`World::insert_pair`]), or if `R` is `ChildOf`, the entity is
    /// named and a child of `target` has its name (naming both).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// assert!(world.add_pair::<Likes>(alice, bob));
    /// assert!(world.has_pair::<Likes>(alice, bob));
    /// ```
    #[track_caller]
    pub fn add_pair<R: Relationship>(&mut self, entity: Entity, target: Entity) -> bool {
        match self.try_add_pair::<R>(entity, target) {
            Ok(()) => true,
            Err(PairError::NotAlive(dead)) if dead == entity => false,
            Err(error) => panic!("add_pair::<{}>({entity:?}, {target:?}): {error}", R::NAME),
        }
    }

    /// Adds the pair `(R, target)` to `entity`, or says why not (nothing changes).
    ///
    /// # Errors
    /// See [`World::try_add_id`]: a dead entity or target, a wildcard target
    /// ([`PairError::Wildcard`]), a cycle of an acyclic relationship, or a
    /// relationship that carries data.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::world::PairError;
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_pair::<ChildOf>(b, a);
    /// let error = world.try_add_pair::<ChildOf>(a, b).unwrap_err();
    /// assert!(matches!(error, PairError::Cycle { .. }));
    /// assert_eq!(world.parent(a), None);
    /// ```
    pub fn try_add_pair<R: Relationship>(&mut self, entity: Entity, target: Entity) -> Result<(), PairError> {
        if !self.is_alive(target) {
            return Err(PairError::NotAlive(target));
        }
        let id = self.pair_id::<R>(target);
        self.try_add_id(entity, id)
    }

    /// Inserts the pair `(R, target)` with its value into `entity`, replacing
    /// the value if the pair exists. Returns `false` if `entity` is not alive.
    ///
    /// # Panics
    /// As [`World::add_pair`] (but data relationships are expected here).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship, Debug, PartialEq)]
    /// struct Eats { amount: u32 }
    /// let mut world = World::new();
    /// let (alice, apples) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.insert_pair(alice, Eats { amount: 2 }, apples);
    /// world.insert_pair(alice, Eats { amount: 3 }, apples);
    /// assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 3 }));
    /// ```
    #[track_caller]
    pub fn insert_pair<R: Relationship>(&mut self, entity: Entity, value: R, target: Entity) -> bool {
        match self.try_insert_pair(entity, value, target) {
            Ok(()) => true,
            Err(PairError::NotAlive(dead)) if dead == entity => false,
            Err(error) => panic!("insert_pair::<{}>({entity:?}, {target:?}): {error}", R::NAME),
        }
    }

    /// Inserts the pair `(R, target)` with its value, or says why not.
    ///
    /// # Errors
    /// See [`World::try_add_pair`] (never `NeedsValue`); on an error the value
    /// is dropped.
    pub fn try_insert_pair<R: Relationship>(
        &mut self,
        entity: Entity,
        value: R,
        target: Entity,
    ) -> Result<(), PairError> {
        if !self.is_alive(target) {
            return Err(PairError::NotAlive(target));
        }
        let id = self.pair_id::<R>(target);
        self.insert_id_value(entity, id, value)
    }

    /// Removes the pair `(R, target)` from `entity` (dropping its value).
    /// Returns whether it was there. With [`Entity::WILDCARD`] as `target`,
    /// removes every `(R, *)` pair (in one move) and returns whether there was
    /// any.
    ///
    /// # Panics
    /// Panics if it would make a named entity a root while a root has its
    /// name (see [`World::remove_id`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    /// assert!(world.remove_pair::<Likes>(alice, Entity::WILDCARD));
    /// assert_eq!(world.targets::<Likes>(alice).count(), 0);
    /// ```
    pub fn remove_pair<R: Relationship>(&mut self, entity: Entity, target: Entity) -> bool {
        match self.existing_pair_id::<R>(target) {
            Some(id) => self.remove_id(entity, id),
            None => false,
        }
    }

    /// Whether `entity` has the pair `(R, target)`: owns it, or, for a value
    /// pair of an `inherit` relationship, reads it from a prefab through `IsA`
    /// (as [`World::has`] sees inherited components). `target` may be
    /// [`Entity::WILDCARD`] (or [`Entity::ANY`]) for "any target" (owned).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Eats(u32);
    /// let mut world = World::new();
    /// let (prefab, apples) = (world.spawn(Prefab).id(), world.spawn_empty().id());
    /// world.insert_pair(prefab, Eats(3), apples);
    /// let instance = world.instantiate(prefab);
    /// assert!(world.has_pair::<Eats>(instance, apples));
    /// assert!(!world.owns_pair::<Eats>(instance, apples));
    /// ```
    pub fn has_pair<R: Relationship>(&self, entity: Entity, target: Entity) -> bool {
        let Some(relationship) = self.component_id::<R>() else {
            return false;
        };
        if target != Entity::WILDCARD && !self.is_alive(target) {
            return false;
        }
        let id = Id::pair(relationship, target);
        self.owns_id(entity, id) || (!id.is_wildcard() && self.inherits_id(entity, id))
    }

    /// Whether `entity` itself holds the pair `(R, target)` (not what it
    /// reads from a prefab, see [`World::has_pair`]). `target` may be
    /// [`Entity::WILDCARD`] (or [`Entity::ANY`]) for "any target".
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_pair::<Likes>(alice, bob);
    /// assert!(world.owns_pair::<Likes>(alice, bob));
    /// assert!(world.owns_pair::<Likes>(alice, Entity::WILDCARD));
    /// ```
    pub fn owns_pair<R: Relationship>(&self, entity: Entity, target: Entity) -> bool {
        let Some(relationship) = self.component_id::<R>() else {
            return false;
        };
        if target != Entity::WILDCARD && !self.is_alive(target) {
            return false;
        }
        self.owns_id(entity, Id::pair(relationship, target))
    }

    /// The value of `entity`'s pair `(R, target)`; `None` if it lacks the pair.
    /// For tag relationships the value is the unit value. An instance reads
    /// a value pair of an `inherit` relationship it does not own from its
    /// prefab (the prefab's value, as `World::get` reads an inherited
    /// component; [`World::has_pair`] asks what it owns). With
    /// [`Entity::WILDCARD`] as `target`: the value of its first `(R, *)` pair in
    /// id order (the lowest target index, the target [`World::target`] gives).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship, Debug, PartialEq)]
    /// struct Eats(u32);
    /// let mut world = World::new();
    /// let (alice, apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.entity_mut(alice).insert_pair(Eats(2), pears).insert_pair(Eats(1), apples);
    /// assert_eq!(world.get_pair::<Eats>(alice, pears), Some(&Eats(2)));
    /// assert_eq!(world.get_pair::<Eats>(alice, Entity::WILDCARD), Some(&Eats(1))); // apples: lower index
    /// ```
    pub fn get_pair<R: Relationship>(&self, entity: Entity, target: Entity) -> Option<&R> {
        let id = self.existing_pair_id::<R>(target)?;
        let id = self.first_matching_pair(entity, id)?;
        if size_of::<R>() == 0 {
            // SAFETY: a zero-sized value may be read at any aligned address.
            return self.owns_id(entity, id).then(|| unsafe { NonNull::<R>::dangling().as_ref() });
        }
        let (value, _) = match self.id_value(entity, id) {
            Some(own) => own,
            // A value pair of an `inherit` relationship, read from a prefab.
            None => self.id_value(self.inherited_base_of(entity, id)?, id)?,
        };
        // SAFETY: the column of a pair of `R` stores `R` values; borrowed for `&self`.
        Some(unsafe { value.cast::<R>().as_ref() })
    }

    /// The value of `entity`'s pair `(R, target)` as a [`Mut`] (writing marks it
    /// changed); `None` if it lacks the pair or `R` is a tag. With
    /// [`Entity::WILDCARD`] as `target`: its first `(R, *)` pair, as
    /// [`World::get_pair`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Eats { amount: u32 }
    /// let mut world = World::new();
    /// let (alice, apples) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.insert_pair(alice, Eats { amount: 2 }, apples);
    /// world.get_pair_mut::<Eats>(alice, apples).unwrap().amount += 1;
    /// assert_eq!(world.get_pair::<Eats>(alice, apples).unwrap().amount, 3);
    /// ```
    pub fn get_pair_mut<R: Relationship>(&mut self, entity: Entity, target: Entity) -> Option<Mut<'_, R>> {
        let id = self.existing_pair_id::<R>(target)?;
        let id = self.first_matching_pair(entity, id)?;
        let (this_run, last_run) = (self.change_tick(), self.last_change_tick());
        let (value, ticks) = self.id_value(entity, id)?;
        let added = ticks.map_or(Tick::default(), |(added, _)| added.get());
        // SAFETY: `&mut self` gives exclusive access to the value and its tick
        // cells for the returned borrow; the column stores `R` values.
        unsafe {
            Some(Mut::new(value.cast::<R>().as_mut(), added, ticks.map(|(_, changed)| changed), last_run, this_run))
        }
    }

    /// The targets of `entity`'s `(R, *)` pairs, in id order (`IsA` bases in
    /// the order they were added, the first added being the one that wins a
    /// conflict; empty if it has none or is not alive).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    /// assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![bob, carol]);
    /// assert_eq!(world.target::<Likes>(alice), Some(bob));
    /// ```
    pub fn targets<R: Relationship>(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        let relationship = self.component_id::<R>();
        self.targets_of(entity, relationship.map(|r| r.index()))
    }

    /// The first (for an exclusive relationship, the only) target of `entity`'s
    /// `(R, *)` pairs.
    pub fn target<R: Relationship>(&self, entity: Entity) -> Option<Entity> {
        self.targets::<R>(entity).next()
    }

    /// The entities that have the pair `(R, target)`; with [`Entity::WILDCARD`]
    /// as `target`, those with any `(R, *)` pair, each once.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_pair::<Likes>(alice, bob);
    /// assert_eq!(world.sources::<Likes>(bob).collect::<Vec<_>>(), vec![alice]);
    /// ```
    pub fn sources<R: Relationship>(&self, target: Entity) -> impl Iterator<Item = Entity> + '_ {
        let id = self.existing_pair_id::<R>(target);
        // A union relationship's holders of one target share a table with the
        // others: their rows are found by target.
        let union = id.filter(|id| !id.is_wildcard() && self.is_union_relationship(id.first_index()));
        let record = id.filter(|_| union.is_none()).and_then(|id| self.archetypes().component_index().get(id));
        let fragmenting = record
            .into_iter()
            .flat_map(|record| record.non_empty().iter())
            .flat_map(|entry| self.archetypes()[entry.archetype].entities().iter().copied());
        fragmenting.chain(union.into_iter().flat_map(move |id| self.union_sources(id.first_index(), target)))
    }

    /// The children of `parent` (the entities with `(ChildOf, parent)`).
    pub fn children(&self, parent: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.sources::<ChildOf>(parent)
    }

    /// The parent of `child` (the target of its `(ChildOf, *)` pair).
    pub fn parent(&self, child: Entity) -> Option<Entity> {
        self.target::<ChildOf>(child)
    }

    /// Adds the pair `(relationship, target)` where the relationship is any
    /// entity (created at run time; its traits come from
    /// [`World::set_relationship_traits`]). Returns `false` if `entity` is not
    /// alive.
    ///
    /// # Panics
    /// As [`World::add_id`]: also if `relationship` or `target` is not alive or
    /// is a wildcard (a pattern, not a pair), and if `relationship`'s index
    /// does not fit the 31 bits a pair gives its relationship
    /// ([`Entity::MAX_RELATIONSHIP_INDEX`]: an entity of a high
    /// [`World::set_entity_range`]), naming them.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let (owes, alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_pair_id(alice, owes, bob);
    /// assert!(world.has_pair_id(alice, owes, bob));
    /// assert!(world.remove_pair_id(alice, owes, bob));
    /// ```
    #[track_caller]
    pub fn add_pair_id(&mut self, entity: Entity, relationship: Entity, target: Entity) -> bool {
        if !self.is_alive(relationship) || !self.is_alive(target) {
            let dead = if self.is_alive(relationship) { target } else { relationship };
            panic!("add_pair_id({entity:?}, {relationship:?}, {target:?}): {}", PairError::NotAlive(dead));
        }
        if !relationship.fits_relationship() {
            panic!("add_pair_id({entity:?}, {relationship:?}, {target:?}): {}", too_wide(relationship));
        }
        self.add_id(entity, Id::pair(relationship, target))
    }

    /// Removes the pair `(relationship, target)`; whether it was there. A
    /// wildcard in either half removes every pair it matches (see
    /// [`World::remove_id`]). A relationship whose index exceeds 31 bits
    /// ([`Entity::MAX_RELATIONSHIP_INDEX`]) is in no pair: `false`.
    pub fn remove_pair_id(&mut self, entity: Entity, relationship: Entity, target: Entity) -> bool {
        self.is_alive(relationship)
            && self.is_alive(target)
            && relationship.fits_relationship()
            && self.remove_id(entity, Id::pair(relationship, target))
    }

    /// Whether `entity` has the pair `(relationship, target)`; either may be a
    /// wildcard ("any"). A relationship whose index exceeds 31 bits
    /// ([`Entity::MAX_RELATIONSHIP_INDEX`]) is in no pair: `false`.
    pub fn has_pair_id(&self, entity: Entity, relationship: Entity, target: Entity) -> bool {
        self.is_alive(relationship)
            && self.is_alive(target)
            && relationship.fits_relationship()
            && self.owns_id(entity, Id::pair(relationship, target))
    }
}

impl EntityWorldMut<'_> {
    /// Adds the pair `(R, target)`; see [`World::add_pair`].
    ///
    /// # Panics
    /// As [`World::add_pair`], and if the entity is not alive.
    #[track_caller]
    pub fn add_pair<R: Relationship>(&mut self, target: Entity) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        if !world.add_pair::<R>(entity, target) {
            panic!("add_pair::<{}>: entity {entity:?} is not alive", R::NAME);
        }
        self
    }

    /// Adds the pair `(R, target)`, or says why not; see [`World::try_add_pair`].
    ///
    /// # Errors
    /// As [`World::try_add_pair`].
    pub fn try_add_pair<R: Relationship>(&mut self, target: Entity) -> Result<&mut Self, PairError> {
        let (world, entity) = self.world_and_entity();
        world.try_add_pair::<R>(entity, target)?;
        Ok(self)
    }

    /// Inserts the pair `(R, target)` with `value`; see [`World::insert_pair`].
    ///
    /// # Panics
    /// As [`World::insert_pair`], and if the entity is not alive.
    #[track_caller]
    pub fn insert_pair<R: Relationship>(&mut self, value: R, target: Entity) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        if !world.insert_pair(entity, value, target) {
            panic!("insert_pair::<{}>: entity {entity:?} is not alive", R::NAME);
        }
        self
    }

    /// Removes the pair `(R, target)` if present; [`Entity::WILDCARD`] removes
    /// every `(R, *)` pair (see [`World::remove_pair`]).
    pub fn remove_pair<R: Relationship>(&mut self, target: Entity) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        world.remove_pair::<R>(entity, target);
        self
    }

    /// Adds the runtime pair `(relationship, target)`; see [`World::add_pair_id`].
    ///
    /// # Panics
    /// As [`World::add_pair_id`], and if the entity was despawned through
    /// [`EntityWorldMut::world_mut`] (naming it), as [`EntityWorldMut::add_pair`].
    #[track_caller]
    pub fn add_pair_id(&mut self, relationship: Entity, target: Entity) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        if !world.add_pair_id(entity, relationship, target) {
            panic!("add_pair_id: entity {entity:?} is not alive");
        }
        self
    }

    /// Removes the runtime pair `(relationship, target)` if present.
    pub fn remove_pair_id(&mut self, relationship: Entity, target: Entity) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        world.remove_pair_id(entity, relationship, target);
        self
    }

    /// Whether the entity has the pair `(R, target)`.
    pub fn has_pair<R: Relationship>(&self, target: Entity) -> bool {
        self.world().has_pair::<R>(self.id(), target)
    }

    /// The value of the entity's pair `(R, target)`.
    pub fn get_pair<R: Relationship>(&self, target: Entity) -> Option<&R> {
        self.world().get_pair::<R>(self.id(), target)
    }
}

/// Why `relationship` cannot be a pair's relationship (its index is too wide).
pub(crate) fn too_wide(relationship: Entity) -> String {
    format!(
        "{relationship:?} cannot be a relationship: its index exceeds the 31 bits of a pair's relationship \
         (Entity::MAX_RELATIONSHIP_INDEX)"
    )
}
