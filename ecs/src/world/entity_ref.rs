//! [`EntityRef`] and [`EntityWorldMut`]: views of one alive entity.

use super::World;
use super::change_detection::Mut;
use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::{ArchetypeId, Entity, EntityLocation};

/// A read-only view of one alive entity.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// let mut world = World::new();
/// let e = world.spawn(Position(3.0)).id();
/// let view = world.entity(e);
/// assert_eq!(view.id(), e);
/// assert_eq!(view.get::<Position>(), Some(&Position(3.0)));
/// assert!(view.contains::<Position>());
/// ```
#[derive(Clone, Copy)]
pub struct EntityRef<'w> {
    world: &'w World,
    entity: Entity,
}

impl<'w> EntityRef<'w> {
    pub(crate) fn new(world: &'w World, entity: Entity) -> Self {
        EntityRef { world, entity }
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity lives.
    pub fn location(&self) -> EntityLocation {
        self.world.entities.location(self.entity).expect("EntityRef of an alive entity")
    }

    /// The entity's archetype.
    pub fn archetype(&self) -> ArchetypeId {
        self.location().archetype
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        self.world.get::<T>(self.entity)
    }

    /// Whether the entity has `T`, its own or inherited (see [`World::has`]).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.has::<T>(self.entity)
    }
}

impl core::fmt::Debug for EntityRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("EntityRef").field(&self.entity).finish()
    }
}

/// A mutable view of one entity, for chaining structural changes.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(f32);
/// #[derive(Component)]
/// struct Enemy;
/// let mut world = World::new();
/// let e = world.spawn_empty().insert(Health(1.0)).insert(Enemy).id();
/// world.entity_mut(e).get_mut::<Health>().unwrap().0 = 2.0;
/// assert_eq!(world.entity(e).get::<Health>(), Some(&Health(2.0)));
/// assert_eq!(world.entity_mut(e).take::<Health>(), Some(Health(2.0)));
/// world.entity_mut(e).despawn();
/// assert!(!world.is_alive(e));
/// ```
pub struct EntityWorldMut<'w> {
    world: &'w mut World,
    entity: Entity,
}

impl<'w> EntityWorldMut<'w> {
    pub(crate) fn new(world: &'w mut World, entity: Entity) -> Self {
        EntityWorldMut { world, entity }
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity lives.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`]
    /// (the message names it).
    #[track_caller]
    pub fn location(&self) -> EntityLocation {
        self.assert_alive();
        self.world.entities.location(self.entity).expect("checked alive")
    }

    /// The world and the entity, for upper layers that extend this view.
    #[inline]
    pub(crate) fn world_and_entity(&mut self) -> (&mut World, Entity) {
        (self.world, self.entity)
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.world.get::<T>(self.entity)
    }

    /// The entity's `T` as a [`Mut`], if it has one.
    #[inline]
    pub fn get_mut<T: Component>(&mut self) -> Option<Mut<'_, T>> {
        self.world.get_mut::<T>(self.entity)
    }

    /// Whether the entity has `T`, its own or inherited (see [`World::has`]).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.has::<T>(self.entity)
    }

    /// Panics naming the entity if it is not alive (despawned through
    /// [`EntityWorldMut::world_mut`] while this view was in use).
    #[track_caller]
    pub(crate) fn assert_alive(&self) {
        if !self.world.is_alive(self.entity) {
            panic!("entity {:?} is not alive: it was despawned while an EntityWorldMut of it was in use", self.entity);
        }
    }

    /// Inserts `bundle`, replacing values the entity already has.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`],
    /// or if `bundle` holds a name a sibling has (see [`World::insert`]).
    #[track_caller]
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.assert_alive();
        self.world.insert_bundle(self.entity, bundle);
        self
    }

    /// Inserts the values of `bundle` the entity does not own yet, leaving
    /// the others as they are (Bevy's `insert_if_new`; see
    /// [`World::insert_if_new`]).
    ///
    /// # Panics
    /// As [`EntityWorldMut::insert`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Health(5)).insert_if_new(Health(9)).id();
    /// assert_eq!(world.get::<Health>(e), Some(&Health(5)));
    /// ```
    #[track_caller]
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.assert_alive();
        self.world.insert_if_new(self.entity, bundle);
        self
    }

    /// Removes the components of `B` that the entity has, dropping them.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`].
    #[track_caller]
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.assert_alive();
        drop(self.world.remove_bundle::<B, false>(self.entity));
        self
    }

    /// Removes `B` and returns it if the entity had all of it; else removes
    /// nothing and returns `None` (see [`World::remove`]).
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`].
    #[track_caller]
    pub fn take<B: Bundle>(&mut self) -> Option<B> {
        self.assert_alive();
        self.world.remove_bundle::<B, true>(self.entity)
    }

    /// Despawns the entity (see [`World::despawn`]).
    pub fn despawn(self) {
        self.world.despawn(self.entity);
    }

    /// The world.
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world, mutably. The entity may be despawned through it; later inserts
    /// and removes on this view then panic.
    pub fn world_mut(&mut self) -> &mut World {
        self.world
    }

    /// Gives the world back.
    pub fn into_world_mut(self) -> &'w mut World {
        self.world
    }
}

impl core::fmt::Debug for EntityWorldMut<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("EntityWorldMut").field(&self.entity).finish()
    }
}
