//! Hierarchy helpers on the world: [`World::ancestors`], [`World::descendants`]
//! (breadth-first), and [`EntityWorldMut::with_children`] with its
//! [`ChildSpawner`].
//!
//! The walks follow `ChildOf` (the `*_of::<R>` forms any relationship) through
//! the component index, one step at a time; they are bounded by the number of
//! alive entities, so a cycle in a relationship that allows cycles ends.

use std::collections::VecDeque;

use super::{ChildOf, Relationship};
use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::world::{EntityWorldMut, World};

impl World {
    /// The ancestors of `entity` along `ChildOf`: its parent, the parent's
    /// parent, and so on up to the root (empty for a root or a dead entity).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let root = world.spawn_empty().id();
    /// let middle = world.spawn_empty().add_pair::<ChildOf>(root).id();
    /// let leaf = world.spawn_empty().add_pair::<ChildOf>(middle).id();
    /// assert_eq!(world.ancestors(leaf).collect::<Vec<_>>(), vec![middle, root]);
    /// ```
    pub fn ancestors(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.ancestors_of::<ChildOf>(entity)
    }

    /// The ancestors of `entity` along the relationship `R` (its first target,
    /// that target's first target, ...).
    pub fn ancestors_of<R: Relationship>(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        let limit = self.entities().alive_count();
        core::iter::successors(self.target::<R>(entity), move |&current| self.target::<R>(current))
            .take(limit)
            .take_while(move |&ancestor| ancestor != entity)
    }

    /// The descendants of `entity` along `ChildOf`, breadth-first: its
    /// children, then their children, and so on (not `entity` itself).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let root = world.spawn_empty().id();
    /// let a = world.spawn_empty().add_pair::<ChildOf>(root).id();
    /// let b = world.spawn_empty().add_pair::<ChildOf>(root).id();
    /// let a1 = world.spawn_empty().add_pair::<ChildOf>(a).id();
    /// assert_eq!(world.descendants(root).collect::<Vec<_>>(), vec![a, b, a1]);
    /// ```
    pub fn descendants(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.descendants_of::<ChildOf>(entity)
    }

    /// The descendants of `entity` along the relationship `R`, breadth-first
    /// (each entity once, `entity` itself never).
    pub fn descendants_of<R: Relationship>(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        let mut queue: VecDeque<Entity> = self.sources::<R>(entity).collect();
        let mut seen = crate::util::FxHashSet::default();
        seen.insert(entity);
        core::iter::from_fn(move || {
            while let Some(next) = queue.pop_front() {
                if seen.insert(next) {
                    queue.extend(self.sources::<R>(next));
                    return Some(next);
                }
            }
            None
        })
    }
}

/// Spawns children of one parent (`with_children`): every entity spawned
/// through it gets `(ChildOf, parent)`.
pub struct ChildSpawner<'w> {
    world: &'w mut World,
    parent: Entity,
}

impl ChildSpawner<'_> {
    /// Spawns `bundle` as a child of the parent; returns it for further
    /// changes (its own `with_children` included).
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityWorldMut<'_> {
        let parent = self.parent;
        let mut child = self.world.spawn(bundle);
        child.add_pair::<ChildOf>(parent);
        child
    }

    /// Spawns an empty child.
    pub fn spawn_empty(&mut self) -> EntityWorldMut<'_> {
        self.spawn(())
    }

    /// The parent.
    pub fn parent(&self) -> Entity {
        self.parent
    }
}

impl core::fmt::Debug for ChildSpawner<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChildSpawner").field("parent", &self.parent).finish()
    }
}

impl EntityWorldMut<'_> {
    /// Spawns children of this entity through `spawn_children`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Ship;
    /// #[derive(Component)]
    /// struct Turret;
    /// let mut world = World::new();
    /// let ship = world
    ///     .spawn(Ship)
    ///     .with_children(|parent| {
    ///         parent.spawn(Turret);
    ///         parent.spawn(Turret).with_children(|barrel| {
    ///             barrel.spawn_empty();
    ///         });
    ///     })
    ///     .id();
    /// assert_eq!(world.children(ship).count(), 2);
    /// assert_eq!(world.descendants(ship).count(), 3);
    /// ```
    pub fn with_children(&mut self, spawn_children: impl FnOnce(&mut ChildSpawner<'_>)) -> &mut Self {
        let (world, parent) = self.world_and_entity();
        spawn_children(&mut ChildSpawner { world, parent });
        self
    }
}
