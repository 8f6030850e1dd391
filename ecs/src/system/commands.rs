//! [`Commands`]: structural changes requested by systems (which only see a shared
//! `&World`), applied later, at a sync point, in the order they were issued.
//!
//! Each system owns a [`CommandQueue`] (its `Commands` state). `Commands::spawn`
//! reserves the new entity's id right away through the world's atomic counter, so
//! the id can be stored and used in further commands before the entity exists.
//! Applying a queue first makes every reserved entity alive (empty), then runs
//! the commands in order; the schedule applies the queues in system order.

use super::SystemId;
use crate::bundle::Bundle;
use crate::component::RelationshipTraits;
use crate::entity::{Entity, Id};
use crate::relation::Relationship;
use crate::world::{DeferredWorld, Message, Resource, World};

pub use crate::world::CommandQueue;

/// Deferred structural changes, as a system parameter.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Default)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Enemy;
/// fn spawner(mut commands: Commands) {
///     let e = commands.spawn((Position::default(),)).id();
///     commands.entity(e).insert(Enemy);
/// }
/// let mut world = World::new();
/// world.run_system_once(spawner);
/// assert_eq!(world.query_filtered::<&Position, With<Enemy>>().iter(&world).count(), 1);
/// ```
pub struct Commands<'w, 's> {
    queue: &'s mut CommandQueue,
    world: &'w World,
}

impl<'w, 's> Commands<'w, 's> {
    /// Commands that append to `queue` and reserve ids in `world`.
    pub fn new(queue: &'s mut CommandQueue, world: &'w World) -> Self {
        Commands { queue, world }
    }

    /// Queues a closure that gets `&mut World` (the escape hatch).
    pub fn queue(&mut self, command: impl FnOnce(&mut World) + Send + Sync + 'static) {
        self.queue.push(command);
    }

    /// Reserves an entity now and queues inserting `bundle` into it.
    ///
    /// A pair of the bundle (`ChildOf.pair(parent)`) whose target was
    /// despawned before the command applied gets its relationship's
    /// `on_delete_target` policy, as [`EntityCommands::add_pair`] does: the
    /// child of a despawned parent is despawned (`ChildOf`: delete), a
    /// `remove` pair is left out, a `panic` one panics. A `Name` that a
    /// sibling has panics and despawns the new entity (as `World::spawn`).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Turret;
    /// let mut world = World::new();
    /// let ship = world.spawn_empty().id();
    /// let turret = world.run_system_once(move |mut commands: Commands| {
    ///     commands.entity(ship).despawn();
    ///     commands.spawn((Turret, ChildOf.pair(ship))).id() // applied after the despawn
    /// });
    /// assert!(!world.is_alive(turret)); // ChildOf: deleted with its parent
    /// ```
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_, 'w, 's> {
        let entity = self.world.reserve_entity();
        self.queue.push(move |world: &mut World| world.insert_spawned(entity, bundle));
        EntityCommands { entity, commands: self }
    }

    /// Reserves an entity now; it is alive, empty, once the queue is applied.
    pub fn spawn_empty(&mut self) -> EntityCommands<'_, 'w, 's> {
        let entity = self.world.reserve_entity();
        EntityCommands { entity, commands: self }
    }

    /// Commands for an existing (or reserved) entity.
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_, 'w, 's> {
        EntityCommands { entity, commands: self }
    }

    /// Queues inserting (or replacing) resource `R`.
    pub fn insert_resource<R: Resource>(&mut self, resource: R) {
        self.queue.push(move |world: &mut World| world.insert_resource(resource));
    }

    /// Queues removing resource `R` (nothing happens if it is missing).
    pub fn remove_resource<R: Resource>(&mut self) {
        self.queue.push(|world: &mut World| {
            world.remove_resource::<R>();
        });
    }

    /// Queues running the registered system `id` (see [`World::run_system`]).
    ///
    /// A system that cannot run when the command is applied (a parameter
    /// cannot be built, `RunSystemError::Skipped`, or fails validation,
    /// `RunSystemError::InvalidParam`, whose message is printed) is skipped,
    /// as in Bevy: no panic.
    ///
    /// # Panics
    /// When applied, if `id` names no registered system or that system is
    /// running (the [`RunSystemError`](super::RunSystemError) message).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource, Default)]
    /// struct Resets(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Resets>();
    /// let reset = world.register_system(|mut resets: ResMut<Resets>| resets.0 += 1);
    /// world.run_system_once(move |mut commands: Commands| commands.run_system(reset));
    /// assert_eq!(world.resource::<Resets>().0, 1);
    /// ```
    pub fn run_system<O: 'static>(&mut self, id: SystemId<(), O>) {
        self.run_system_with(id, ());
    }

    /// Queues running the registered system `id` with `input` (see
    /// [`World::run_system_with`]).
    ///
    /// # Panics
    /// As [`Commands::run_system`].
    pub fn run_system_with<I: Send + Sync + 'static, O: 'static>(&mut self, id: SystemId<I, O>, input: I) {
        self.queue.push(move |world: &mut World| match world.run_system_with(id, input) {
            Ok(_) | Err(super::RunSystemError::Skipped { .. } | super::RunSystemError::InvalidParam { .. }) => {}
            Err(error) => panic!("Commands::run_system: {error}"),
        });
    }

    /// Queues writing a message; the message type is added to the world first
    /// if needed ([`World::add_message`]), so the message is never lost.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Message)]
    /// struct Scored(u32);
    /// let mut world = World::new();
    /// world.run_system_once(|mut commands: Commands| commands.write_message(Scored(1)));
    /// assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    /// ```
    pub fn write_message<M: Message>(&mut self, message: M) {
        self.queue.push(move |world: &mut World| {
            world.add_message::<M>();
            world.write_message(message);
        });
    }
}

/// Commands for one entity; chain them: `commands.entity(e).insert(A).remove::<B>()`.
pub struct EntityCommands<'a, 'w, 's> {
    entity: Entity,
    commands: &'a mut Commands<'w, 's>,
}

impl<'w, 's> EntityCommands<'_, 'w, 's> {
    /// The commands these entity commands append to.
    pub fn commands(&mut self) -> &mut Commands<'w, 's> {
        self.commands
    }
}

impl EntityCommands<'_, '_, '_> {
    /// The entity.
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Queues inserting `bundle`. A pair of the bundle whose target was
    /// despawned before the command applied gets its relationship's
    /// `on_delete_target` policy (see [`Commands::spawn`]).
    ///
    /// # Panics
    /// Applying the command panics if the entity is not alive then, naming it and
    /// the bundle; use [`EntityCommands::try_insert`] to ignore dead entities.
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            if !world.insert_from_command(entity, bundle) {
                panic!(
                    "cannot insert {} into entity {entity:?}: it is not alive (despawned before the command applied)",
                    core::any::type_name::<B>()
                );
            }
        });
        self
    }

    /// Queues [`World::insert_if_new`]: the values of `bundle` the entity
    /// does not own when the command applies are inserted, the others
    /// dropped (Bevy's `insert_if_new`).
    ///
    /// # Panics
    /// The command panics, naming the entity and the bundle, if the entity is
    /// not alive when it applies (as [`EntityCommands::insert`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Health(5)).id();
    /// let mut queue = CommandQueue::default();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.entity(e).insert_if_new(Health(9));
    /// queue.apply(&mut world);
    /// assert_eq!(world.get::<Health>(e), Some(&Health(5)));
    /// ```
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            if !world.insert_if_new_from_command(entity, bundle) {
                panic!(
                    "cannot insert {} into entity {entity:?}: it is not alive (despawned before the command applied)",
                    core::any::type_name::<B>()
                );
            }
        });
        self
    }

    /// Queues inserting `bundle` if the entity is alive then.
    pub fn try_insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            world.insert_from_command(entity, bundle);
        });
        self
    }

    /// Queues removing the components of `B` that the entity has then (as
    /// `EntityWorldMut::remove`; `World::remove` is all-or-nothing).
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            world.flush_entities();
            drop(world.remove_bundle::<B, false>(entity));
        });
        self
    }

    /// Queues disabling the entity's toggleable `T` (see
    /// [`EntityWorldMut::disable`](crate::world::EntityWorldMut::disable));
    /// nothing happens if the entity is dead or lacks `T` then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Thrust(1.0)).id();
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).entity(ship).disable::<Thrust>();
    /// queue.apply(&mut world);
    /// assert!(!world.is_enabled::<Thrust>(ship));
    /// Commands::new(&mut queue, &world).entity(ship).enable::<Thrust>();
    /// queue.apply(&mut world);
    /// assert!(world.is_enabled::<Thrust>(ship));
    /// ```
    pub fn disable<T: crate::component::Toggleable>(&mut self) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            if world.is_alive(entity) {
                world.entity_mut(entity).disable::<T>();
            }
        });
        self
    }

    /// Queues enabling the entity's toggleable `T` (see
    /// [`EntityWorldMut::enable`](crate::world::EntityWorldMut::enable));
    /// nothing happens if the entity is dead or lacks `T` then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Thrust(1.0)).id();
    /// world.entity_mut(ship).disable::<Thrust>();
    /// let mut queue = CommandQueue::default();
    /// Commands::new(&mut queue, &world).entity(ship).enable::<Thrust>();
    /// queue.apply(&mut world);
    /// assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
    /// ```
    pub fn enable<T: crate::component::Toggleable>(&mut self) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            if world.is_alive(entity) {
                world.entity_mut(entity).enable::<T>();
            }
        });
        self
    }

    /// Queues adding the pair `(R, target)`.
    ///
    /// When the command applies, nothing happens if the entity is dead. If the
    /// *target* is dead, the pair is treated as if it had existed when the target
    /// was despawned: `R`'s `on_delete_target` policy applies to the entity
    /// (`delete`: it is despawned; `remove`: nothing is added; `panic`: the
    /// command panics). So adding `(ChildOf, p)` and despawning `p` in one
    /// command buffer deletes the child whatever the order.
    ///
    /// # Panics
    /// Applying the command panics if `R` is acyclic and the pair would close a
    /// cycle, if `target` is a wildcard (a pattern, not a pair), or under the
    /// `panic` policy above, naming the entities.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::system::CommandQueue;
    /// let mut world = World::new();
    /// let (parent, child) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let mut queue = CommandQueue::default();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.entity(parent).despawn();
    /// commands.entity(child).add_pair::<ChildOf>(parent);
    /// queue.apply(&mut world);
    /// assert!(!world.is_alive(child));
    /// ```
    pub fn add_pair<R: Relationship>(&mut self, target: Entity) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            let relationship = world.register_component::<R>();
            let label = || format!("add_pair::<{}>({entity:?}, {target:?})", R::NAME);
            let pair = PairCommand { entity, relationship, target, traits: R::TRAITS };
            pair.apply(world, label, |world| world.try_add_pair::<R>(entity, target));
        });
        self
    }

    /// Queues inserting the pair `(R, target)` with `value`; applied like
    /// [`EntityCommands::add_pair`] (a dead target applies `R`'s
    /// `on_delete_target` policy, and the value is dropped).
    pub fn insert_pair<R: Relationship>(&mut self, value: R, target: Entity) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            let relationship = world.register_component::<R>();
            let label = || format!("insert_pair::<{}>({entity:?}, {target:?})", R::NAME);
            let pair = PairCommand { entity, relationship, target, traits: R::TRAITS };
            pair.apply(world, label, |world| world.try_insert_pair(entity, value, target));
        });
        self
    }

    /// Queues removing the pair `(R, target)` (nothing happens if absent);
    /// [`Entity::WILDCARD`] removes every `(R, *)` pair, as
    /// [`World::remove_pair`] does.
    pub fn remove_pair<R: Relationship>(&mut self, target: Entity) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            world.remove_pair::<R>(entity, target);
        });
        self
    }

    /// Queues adding the runtime pair `(relationship, target)` (see
    /// [`World::add_pair_id`]), applied exactly like [`EntityCommands::add_pair`]:
    /// nothing happens if the entity is dead then; a dead target applies the
    /// relationship's `on_delete_target` policy to the entity, and a dead
    /// relationship its `on_delete` policy (with the traits it had when the
    /// command was queued: a despawned relationship's traits are forgotten), as
    /// if the pair had existed when that half was despawned.
    ///
    /// # Panics
    /// Applying the command panics where [`World::add_pair_id`] would (a cycle
    /// of an acyclic relationship, a wildcard, a relationship that carries
    /// data, a relationship whose index exceeds 31 bits, dead or alive), or
    /// under a `panic` policy above, naming the entities.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::{CleanupPolicy, RelationshipTraits};
    /// use ecs::system::CommandQueue;
    /// let mut world = World::new();
    /// let (docked_to, station, ship) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    /// world.set_relationship_traits(docked_to, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
    /// let mut queue = CommandQueue::default();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.entity(station).despawn();
    /// commands.entity(ship).add_pair_id(docked_to, station);
    /// queue.apply(&mut world);
    /// assert!(!world.is_alive(ship)); // as if docked when the station went
    /// ```
    pub fn add_pair_id(&mut self, relationship: Entity, target: Entity) -> &mut Self {
        let entity = self.entity;
        let queued = self.commands.world.components().relationship_traits(relationship.index());
        self.commands.queue(move |world: &mut World| {
            let label = || format!("add_pair_id({entity:?}, {relationship:?}, {target:?})");
            // No pair can have it as its relationship, dead or alive: refused
            // before any policy applies.
            if !relationship.fits_relationship() {
                panic!("{}: {}", label(), crate::relation::too_wide(relationship));
            }
            let traits = if world.is_alive(relationship) {
                world.components().relationship_traits(relationship.index())
            } else {
                queued
            };
            let pair = PairCommand { entity, relationship, target, traits };
            pair.apply(world, label, |world| world.try_add_id(entity, Id::pair(relationship, target)));
        });
        self
    }

    /// Queues despawning the entity (nothing happens if it is already dead).
    pub fn despawn(&mut self) {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| {
            world.despawn(entity);
        });
    }

    /// Queues a closure that gets the world and this entity.
    pub fn queue(&mut self, command: impl FnOnce(&mut World, Entity) + Send + Sync + 'static) -> &mut Self {
        let entity = self.entity;
        self.commands.queue(move |world: &mut World| command(world, entity));
        self
    }
}

/// A queued pair addition, typed or by id: the same rules for both (see
/// [`EntityCommands::add_pair`]).
struct PairCommand {
    entity: Entity,
    relationship: Entity,
    target: Entity,
    traits: RelationshipTraits,
}

impl PairCommand {
    /// Applies it: nothing for a dead entity; for a dead relationship or target,
    /// its cleanup policy as if the pair had existed when it was despawned;
    /// otherwise `add`, whose error panics. `label` names the command.
    #[track_caller]
    fn apply(
        self,
        world: &mut World,
        label: impl Fn() -> String,
        add: impl FnOnce(&mut World) -> Result<(), crate::world::PairError>,
    ) {
        let PairCommand { entity, relationship, target, traits } = self;
        if !world.is_alive(entity) {
            return;
        }
        let (policy, trait_name, half, dead) = if !world.is_alive(relationship) {
            (traits.on_delete, "on_delete", "relationship", relationship)
        } else if !world.is_alive(target) {
            (traits.on_delete_target, "on_delete_target", "target", target)
        } else {
            if let Err(error) = add(world) {
                panic!("command {}: {error}", label());
            }
            return;
        };
        world.apply_dead_pair_policy(entity, policy, |world| {
            format!(
                "command {}: the {half} {dead:?} was despawned and the relationship {} has {trait_name} = \"panic\"",
                label(),
                world.index_name(relationship.index())
            )
        });
    }
}

impl DeferredWorld<'_> {
    /// Commands from a hook or observer: applied (in order) before the structural
    /// change that triggered it returns.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(on_add = tag_new)]
    /// struct Spawned;
    /// #[derive(Component)]
    /// struct Tagged;
    /// fn tag_new(mut world: DeferredWorld, ctx: HookContext) {
    ///     world.commands().entity(ctx.entity).insert(Tagged);
    /// }
    /// let mut world = World::new();
    /// let e = world.spawn(Spawned).id();
    /// assert!(world.has::<Tagged>(e));
    /// ```
    pub fn commands(&mut self) -> Commands<'_, '_> {
        let (queue, world) = self.queue_and_world();
        Commands::new(queue, world)
    }
}
