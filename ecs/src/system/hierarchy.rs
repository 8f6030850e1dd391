//! Commands and parameters for hierarchies and relationships:
//! [`EntityCommands::with_children`] with its [`ChildSpawnerCommands`],
//! [`Commands::spawn_batch`], and the [`Relations`] system parameter
//! (`EntityCommands::observe` lives with the observers, which build on this layer).
//!
//! `Relations<R>` reads which `(R, *)` pairs *any* entity has (targets,
//! sources, ancestors, descendants). Pairs only change at sync points, but a
//! data relationship's values are storage too, so it declares a read of `R`'s
//! pairs on other entities (`AccessKind::ReadOther`): a system writing
//! `Pair<&mut R>` conflicts with it whatever the filters.

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::any::type_name;
use core::marker::PhantomData;

use super::access::{ParamAccess, UnitAccess, short_type_name};
use super::commands::{Commands, EntityCommands};
use super::param::{SystemMeta, SystemParam};
use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::query::{AccessKind, AccessSet, AccessTerm, Label, QueryAccess};
use crate::relation::{ChildOf, Relationship};
use crate::storage::Tick;
use crate::world::World;

/// Spawns children of one parent from commands (`EntityCommands::with_children`).
pub struct ChildSpawnerCommands<'a, 'w, 's> {
    commands: &'a mut Commands<'w, 's>,
    parent: Entity,
}

impl<'w, 's> ChildSpawnerCommands<'_, 'w, 's> {
    /// Queues spawning `bundle` as a child of the parent; the child's id is
    /// reserved now.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_, 'w, 's> {
        let parent = self.parent;
        let mut child = self.commands.spawn(bundle);
        child.add_pair::<ChildOf>(parent);
        child
    }

    /// Queues spawning an empty child.
    pub fn spawn_empty(&mut self) -> EntityCommands<'_, 'w, 's> {
        self.spawn(())
    }

    /// The parent.
    pub fn parent(&self) -> Entity {
        self.parent
    }
}

impl core::fmt::Debug for ChildSpawnerCommands<'_, '_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChildSpawnerCommands").field("parent", &self.parent).finish()
    }
}

impl EntityCommands<'_, '_, '_> {
    /// Queues spawning children of this entity through `spawn_children`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Ship;
    /// #[derive(Component)]
    /// struct Turret;
    /// let mut world = World::new();
    /// let ship = world.run_system_once(|mut commands: Commands| {
    ///     commands.spawn(Ship).with_children(|parent| {
    ///         parent.spawn(Turret);
    ///         parent.spawn(Turret);
    ///     }).id()
    /// });
    /// assert_eq!(world.children(ship).count(), 2);
    /// ```
    pub fn with_children(&mut self, spawn_children: impl FnOnce(&mut ChildSpawnerCommands<'_, '_, '_>)) -> &mut Self {
        let parent = self.id();
        spawn_children(&mut ChildSpawnerCommands { commands: self.commands(), parent });
        self
    }
}

impl Commands<'_, '_> {
    /// Queues spawning one entity per bundle of `bundles` (in order; ids are
    /// reserved when the queue is applied).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Coin(u32);
    /// let mut world = World::new();
    /// world.run_system_once(|mut commands: Commands| commands.spawn_batch((0..10).map(|i| (Coin(i),))));
    /// assert_eq!(world.query::<&Coin>().iter(&world).count(), 10);
    /// ```
    pub fn spawn_batch<I>(&mut self, bundles: I)
    where
        I: IntoIterator + Send + Sync + 'static,
        I::Item: Bundle,
    {
        self.queue(move |world: &mut World| {
            if <I::Item as Bundle>::HAS_PAIRS {
                // Each bundle as `Commands::spawn` applies it: a pair whose
                // target was despawned meanwhile follows its policy.
                for bundle in bundles {
                    let entity = world.spawn_empty().id();
                    world.insert_spawned(entity, bundle);
                }
            } else {
                world.spawn_batch(bundles).for_each(drop);
            }
        });
    }
}

/// The relationship `R` of any entity, as a system parameter: targets,
/// sources, and walks up and down (breadth-first).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource, Default)]
/// struct Depths(Vec<usize>);
/// fn walk(hierarchy: Relations<ChildOf>, q: Query<Entity>, mut depths: ResMut<Depths>) {
///     for e in q.iter() {
///         depths.0.push(hierarchy.ancestors(e).count());
///     }
/// }
/// let mut world = World::new();
/// world.init_resource::<Depths>();
/// let root = world.spawn_empty().id();
/// let child = world.spawn_empty().add_pair::<ChildOf>(root).id();
/// world.spawn_empty().add_pair::<ChildOf>(child);
/// world.run_system_once(walk);
/// let mut depths = world.resource::<Depths>().0.clone();
/// depths.sort();
/// assert_eq!(depths, vec![0, 1, 2]);
/// ```
pub struct Relations<'w, R: Relationship> {
    world: &'w World,
    _relationship: PhantomData<fn() -> R>,
}

impl<'w, R: Relationship> Relations<'w, R> {
    /// The entities with the pair `(R, target)`.
    pub fn sources(&self, target: Entity) -> impl Iterator<Item = Entity> + 'w {
        self.world.sources::<R>(target)
    }

    /// The targets of `entity`'s `(R, *)` pairs.
    pub fn targets(&self, entity: Entity) -> impl Iterator<Item = Entity> + 'w {
        self.world.targets::<R>(entity)
    }

    /// The first (for an exclusive relationship, the only) target of `entity`.
    pub fn target(&self, entity: Entity) -> Option<Entity> {
        self.world.target::<R>(entity)
    }

    /// `entity`'s first target, its first target, and so on.
    pub fn ancestors(&self, entity: Entity) -> impl Iterator<Item = Entity> + 'w {
        self.world.ancestors_of::<R>(entity)
    }

    /// The sources of `entity`, their sources, and so on, breadth-first.
    pub fn descendants(&self, entity: Entity) -> impl Iterator<Item = Entity> + 'w {
        self.world.descendants_of::<R>(entity)
    }
}

impl<R: Relationship> core::fmt::Debug for Relations<'_, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Relations").field("relationship", &type_name::<R>()).finish()
    }
}

/// The const access of `Relations<R>`: a read of `R`'s pairs on any entity.
const fn relations_access<R: Relationship>() -> ParamAccess {
    let label = Label::new().with("Relations<").with(R::NAME).with(">");
    let mut set = AccessSet::labelled(label.as_str());
    set.push(AccessTerm {
        id: crate::relation::pair_access_id(R::ID),
        name: R::NAME,
        kind: AccessKind::ReadOther,
        resource: false,
    });
    ParamAccess::unit(set)
}

// SAFETY: declares a read of `R`'s pairs on other entities (const and runtime);
// the item only reads archetype types and the entity index, which change only
// through `&mut World`.
unsafe impl<R: Relationship> SystemParam for Relations<'_, R> {
    type State = ();
    type Item<'w, 's> = Relations<'w, R>;
    const ACCESS: ParamAccess = relations_access::<R>();

    fn init_state(world: &mut World, meta: &mut SystemMeta) {
        let relationship = world.register_component::<R>();
        let mut access = QueryAccess::default();
        access.add_read_other(crate::relation::pair_access_key(relationship));
        meta.access.add(short_type_name(type_name::<Relations<'static, R>>()), UnitAccess::Query(access));
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        _meta: &SystemMeta,
        world: &'w World,
        _this_run: Tick,
    ) -> Relations<'w, R> {
        Relations { world, _relationship: PhantomData }
    }
}
