//! Observers and events: react to changes without polling.
//!
//! An observer is a function whose first parameter is a [`Trigger<E, B>`] and
//! whose other parameters are system parameters (checked for aliasing at compile
//! time, like systems). It fires for events of type `E`:
//!
//! * the built-in lifecycle events [`OnAdd`], [`OnInsert`], [`OnReplace`],
//!   [`OnRemove`] and [`OnDespawn`], sent by structural changes for the
//!   components in `B` (a component or a tuple of them);
//! * user events (`#[derive(Event)]`), sent with [`World::trigger`] (global) or
//!   [`World::trigger_targets`] (to entities), or the same on `Commands`.
//!
//! With several components in `B`, the observer fires only when the entity has
//! *all* of them at event time (Flecs semantics): `Trigger<OnAdd, (Position,
//! Velocity)>` fires when the second of the two arrives, once, not once per
//! component as "fire on any" would. An observer is an entity, an internal one
//! (not counted by `World::entity_count`, matched only by queries naming
//! [`ObserverMarker`]): despawning it unregisters it. [`EntityWorldMut::observe`]
//! watches one entity only.
//!
//! An observer of a component with the default `on_instantiate = "inherit"`
//! policy also hears about entities that gain or lose it through `IsA` (Flecs'
//! `self|up IsA`; see [`IsA`](crate::component::IsA)), and a multi-component
//! observer counts inherited components as the entity's.
//!
//! A user event marked `#[event(propagate = ChildOf)]` (any traversable
//! relationship) travels from its target up to the target's ancestors, one
//! delivery per level, until an observer calls [`Trigger::propagate`]`(false)`.
//!
//! Observers run inside the structural change that triggered them, so their
//! `Commands` are deferred to the world and applied before the triggering call
//! returns (recursion is bounded: see `world::hooks`). When no observer watches a
//! lifecycle event, structural changes pay one flag test.
//!
//! Layer: above `system` (observer parameters are system parameters); the
//! registry and dispatch are world data (`world::observers`).

use core::any::TypeId;
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use smallvec::SmallVec;

use crate::bundle::Bundle;
use crate::entity::{Entity, Id};
use crate::system::{Commands, EntityCommands, SystemMeta, SystemParam, SystemParamItem};
use crate::world::{EntityWorldMut, TriggerInfo, World};

mod removed;

pub use removed::{RemovalCursor, RemovalReaders, RemovedComponent, RemovedComponents};

pub use crate::world::{ObserverMarker, OnAdd, OnDespawn, OnInsert, OnRemove, OnReplace};

/// Looks a traversable relationship's id up in a world.
pub type TraversalFn = fn(&World) -> Option<Entity>;

/// An event observers can watch. Derive it; `#[event(propagate = R)]` makes
/// targeted events travel up the traversable relationship `R`.
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Event)]
/// struct Explode { radius: f32 }
/// let mut world = World::new();
/// world.add_observer(|trigger: Trigger<Explode>, mut commands: Commands| {
///     let radius = trigger.event().radius;
///     commands.spawn(Name::new(format!("crater of {radius}")));
/// });
/// world.trigger(Explode { radius: 2.0 });
/// assert_eq!(world.entity_count(), 1); // the crater (observers are internal entities)
/// ```
pub trait Event: Send + Sync + 'static {
    /// The relationship targeted events propagate along (its id lookup), if any.
    const TRAVERSAL: Option<TraversalFn> = None;
}

impl Event for OnAdd {}
impl Event for OnInsert {}
impl Event for OnReplace {}
impl Event for OnRemove {}
impl Event for OnDespawn {}

/// What an observer watches, as the `B` of `Trigger<E, B>`: a component or a
/// tuple of components (a bundle type), or [`Pair<R>`](crate::relation::Pair)
/// for any pair `(R, *)`. A relationship type alone (`Trigger<OnAdd,
/// ChildOf>`, as a Bevy user writes it for its `ChildOf` component) watches
/// its pairs `(R, *)` like `Pair<R>`, not the type used as a plain component;
/// in a tuple of several components it stays a plain component.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Relationship)]
/// struct Likes;
/// #[derive(Resource, Default)]
/// struct Fans(Vec<(Entity, Entity)>);
/// let mut world = World::new();
/// world.init_resource::<Fans>();
/// world.add_observer(|trigger: Trigger<OnAdd, Pair<Likes>>, mut fans: ResMut<Fans>| {
///     fans.0.push((trigger.entity(), trigger.pair_target().unwrap()));
/// });
/// let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
/// world.add_pair::<Likes>(alice, bob);
/// assert_eq!(world.resource::<Fans>().0, vec![(alice, bob)]);
/// ```
pub trait Observed: 'static {
    /// The watched ids (registering components as needed).
    fn watched_ids(world: &mut World) -> SmallVec<[Id; 2]>;
}

impl<B: Bundle> Observed for B {
    fn watched_ids(world: &mut World) -> SmallVec<[Id; 2]> {
        let bundle = world.register_bundle::<B>();
        let components = world.bundle_components(bundle);
        if let &[component] = components
            && world.components().info(component).is_some_and(|info| info.relationship().is_some())
        {
            // A relationship alone: its pairs.
            return SmallVec::from_slice(&[Id::pair_from_indices(component.index(), Entity::WILDCARD.index())]);
        }
        components.iter().map(|component| component.id()).collect()
    }
}

impl<R: crate::relation::Relationship> Observed for crate::relation::Pair<R> {
    fn watched_ids(world: &mut World) -> SmallVec<[Id; 2]> {
        let relationship = world.register_component::<R>();
        SmallVec::from_slice(&[Id::pair_from_indices(relationship.index(), Entity::WILDCARD.index())])
    }
}

/// The first parameter of an observer: the event and what it is about.
pub struct Trigger<'w, E, B: Observed = ()> {
    event: &'w mut E,
    info: &'w TriggerInfo,
    _bundle: PhantomData<B>,
}

impl<E, B: Observed> Trigger<'_, E, B> {
    /// The event.
    pub fn event(&self) -> &E {
        self.event
    }

    /// The event, mutably (later observers and propagation levels see changes).
    pub fn event_mut(&mut self) -> &mut E {
        self.event
    }

    /// The entity the event targets; [`Entity::PLACEHOLDER`] for a global event.
    pub fn entity(&self) -> Entity {
        self.info.entity
    }

    /// The components the event is about (lifecycle events).
    pub fn components(&self) -> &[Entity] {
        &self.info.components
    }

    /// Every id the event is about, pairs included (lifecycle events).
    pub fn ids(&self) -> &[Id] {
        &self.info.ids
    }

    /// The target of the first pair the event is about (e.g. for
    /// `Trigger<OnAdd, Pair<Likes>>`, whom the entity now likes).
    pub fn pair_target(&self) -> Option<Entity> {
        self.info.pair_target
    }

    /// The observer's own entity.
    pub fn observer(&self) -> Entity {
        self.info.observer
    }

    /// Whether the event goes on to the target's parent (for propagating events;
    /// `true` unless an observer set it to `false`).
    pub fn propagate(&mut self, propagate: bool) {
        self.info.propagate.set(propagate);
    }
}

impl<E: core::fmt::Debug, B: Observed> core::fmt::Debug for Trigger<'_, E, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Trigger").field("event", &self.event).field("entity", &self.info.entity).finish()
    }
}

/// A function usable as an observer: `FnMut(Trigger<E, B>, P0, P1, ...)` with
/// system parameters `P*` (up to 15).
pub trait ObserverFunction<Marker>: Send + Sync + 'static {
    /// The event.
    type Event: Event;
    /// The watched components (or pairs).
    type Bundle: Observed;
    /// The other parameters.
    type Param: SystemParam;
    /// Calls the function.
    fn run(&mut self, trigger: Trigger<'_, Self::Event, Self::Bundle>, param: SystemParamItem<'_, '_, Self::Param>);
}

macro_rules! impl_observer_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl<E: Event, B: Observed, Func, $($param: SystemParam),*> ObserverFunction<fn(Trigger<E, B>, $($param,)*)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut(Trigger<E, B>, $($param),*)
                + FnMut(Trigger<'_, E, B>, $(SystemParamItem<'_, '_, $param>),*),
        {
            type Event = E;
            type Bundle = B;
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, trigger: Trigger<'_, E, B>, param: SystemParamItem<'_, '_, ($($param,)*)>) {
                // A helper with explicit generics makes rustc pick the items impl.
                fn call<T, $($param),*>(mut function: impl FnMut(T, $($param),*), trigger: T, $($param: $param),*) {
                    function(trigger, $($param),*)
                }
                let ($($param,)*) = param;
                call(self, trigger, $($param),*)
            }
        }
    };
}

ecs_macros::all_tuples!(impl_observer_function, 0, 15, P);

/// Forces the const aliasing check of an observer's parameters.
pub(crate) struct ObserverCheck<M, F: ObserverFunction<M>>(PhantomData<(M, F)>);

impl<M, F: ObserverFunction<M>> ObserverCheck<M, F> {
    pub(crate) const OK: () = crate::system::check_observer::<F::Param>();
}

impl World {
    /// Registers `observer` (a function `Trigger<E, B>, params...`) on a new
    /// entity, which is returned; despawn it to unregister, insert
    /// [`Disabled`](crate::component::Disabled) on it to pause it (Flecs'
    /// `ecs_enable(observer, false)`) and remove that to resume. Its parameters
    /// are checked for aliasing at compile time.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// #[derive(Resource, Default)]
    /// struct Added(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Added>();
    /// let observer = world
    ///     .add_observer(|trigger: Trigger<OnAdd, Health>, mut added: ResMut<Added>, q: Query<&Health>| {
    ///         added.0 += q.get(trigger.entity()).unwrap().0;
    ///     })
    ///     .id();
    /// let e = world.spawn(Health(5)).id();
    /// world.insert(e, Health(7)); // an overwrite is no add
    /// assert_eq!(world.resource::<Added>().0, 5);
    /// world.entity_mut(observer).insert(Disabled); // paused
    /// world.spawn(Health(1));
    /// assert_eq!(world.resource::<Added>().0, 5);
    /// ```
    #[track_caller]
    pub fn add_observer<M, F: ObserverFunction<M>>(&mut self, observer: F) -> EntityWorldMut<'_> {
        let () = ObserverCheck::<M, F>::OK;
        let entity = self.spawn_internal(ObserverMarker);
        self.register_typed_observer(entity, SmallVec::new(), observer);
        self.entity_mut(entity)
    }

    /// Registers `observer` under the observer entity `entity`, watching
    /// `entities` (all entities when empty).
    fn register_typed_observer<M, F: ObserverFunction<M>>(
        &mut self,
        entity: Entity,
        entities: SmallVec<[Entity; 1]>,
        mut observer: F,
    ) {
        let components = <F::Bundle as Observed>::watched_ids(self);
        let mut meta = SystemMeta::new(core::any::type_name::<F>());
        let mut state = <F::Param as SystemParam>::init_state(self, &mut meta);
        if let Some((a, b, _)) = meta.access.first_conflict() {
            panic!(
                "observer `{}`: params #{} and #{} conflict: {} vs {}",
                meta.name, a.param, b.param, a.label, b.label
            );
        }
        let runner = Box::new(move |world: &mut World, info: &TriggerInfo, event: NonNull<u8>| {
            let now = world.increment_change_tick_wide_mut();
            let this_run = meta.begin_run(now);
            // SAFETY: the state was built on this world; the observer runs alone
            // with the world exclusively borrowed, so its declared access is free.
            let param = unsafe { <F::Param as SystemParam>::get_param(&mut state, &meta, world, this_run) };
            // SAFETY: the dispatcher passes a valid, exclusive `F::Event` for events
            // of its type (the observer is registered under that type only).
            let event = unsafe { event.cast::<F::Event>().as_mut() };
            let outcome =
                catch_unwind(AssertUnwindSafe(|| observer.run(Trigger { event, info, _bundle: PhantomData }, param)));
            if let Err(payload) = outcome {
                // Its commands go with the panic (not into its next run).
                <F::Param as SystemParam>::discard(&mut state);
                resume_unwind(payload);
            }
            meta.end_run(now);
            <F::Param as SystemParam>::defer(&mut state, world);
        });
        self.register_observer(entity, TypeId::of::<F::Event>(), components, entities, runner);
    }

    /// Sends `event` to the global observers of its type (and to observers of
    /// its components, which need a target: none here). Their commands are
    /// applied before this returns.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Event)]
    /// struct Ping(u32);
    /// #[derive(Resource, Default)]
    /// struct Pongs(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Pongs>();
    /// world.add_observer(|trigger: Trigger<Ping>, mut pongs: ResMut<Pongs>| pongs.0 += trigger.event().0);
    /// world.trigger(Ping(3));
    /// assert_eq!(world.resource::<Pongs>().0, 3);
    /// ```
    pub fn trigger<E: Event>(&mut self, mut event: E) {
        self.trigger_one(&mut event, Entity::PLACEHOLDER);
        self.flush_deferred();
    }

    /// Sends `event` to each of `targets` (an entity, an array, a `Vec` or a
    /// slice of them): observers see it through `trigger.entity()`; global
    /// observers of the type see every delivery; an observer of components
    /// (`Trigger<E, C>`) hears it for a target that holds every component it
    /// watches (Flecs' emit for an entity), with those as
    /// `trigger.components()`. A propagating event then climbs each target's
    /// ancestors. A target that is not alive still reaches the global
    /// observers (as in Bevy). No target at all (an empty slice or `Vec`)
    /// triggers the event once as a global one, as [`World::trigger`] (Bevy's
    /// `trigger_targets` does the same).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Event)]
    /// #[event(propagate = ChildOf)]
    /// struct Damage(u32);
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Hp(10)).id();
    /// let turret = world.spawn(Hp(5)).id();
    /// world.add_pair::<ChildOf>(turret, ship);
    /// world.add_observer(|trigger: Trigger<Damage>, mut hp: Query<&mut Hp>| {
    ///     if let Ok(mut hp) = hp.get_mut(trigger.entity()) {
    ///         hp.0 -= trigger.event().0;
    ///     }
    /// });
    /// world.trigger_targets(Damage(1), turret); // the turret, then its parent
    /// assert_eq!(world.get::<Hp>(turret).unwrap().0, 4);
    /// assert_eq!(world.get::<Hp>(ship).unwrap().0, 9);
    /// ```
    pub fn trigger_targets<E: Event>(&mut self, mut event: E, targets: impl TriggerTargets) {
        let mut any = false;
        for target in targets.entities() {
            any = true;
            self.trigger_one(&mut event, target);
        }
        if !any {
            self.trigger_one(&mut event, Entity::PLACEHOLDER);
        }
        self.flush_deferred();
    }

    /// Delivers `event` to `target` (and up its ancestors if `E` propagates).
    fn trigger_one<E: Event>(&mut self, event: &mut E, target: Entity) {
        let mut current = target;
        // Bounded by the number of entities, so a cyclic relationship ends.
        for _ in 0..=self.entities().alive_count() {
            let propagate =
                self.run_user_event_observers(TypeId::of::<E>(), current, NonNull::from(&mut *event).cast());
            if !propagate || current == Entity::PLACEHOLDER {
                return;
            }
            let Some(relationship) = E::TRAVERSAL.and_then(|lookup| lookup(self)) else {
                return;
            };
            match self.targets_of(current, Some(relationship.index())).next() {
                Some(parent) => current = parent,
                None => return,
            }
        }
    }
}

impl EntityWorldMut<'_> {
    /// Registers `observer` for events that target this entity only (it is
    /// stored on a new observer entity, despawned with this one).
    ///
    /// # Panics
    /// Panics if the entity was despawned through
    /// [`EntityWorldMut::world_mut`] (the message names it); nothing is
    /// registered then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Event)]
    /// struct Hit;
    /// #[derive(Resource, Default)]
    /// struct Hits(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Hits>();
    /// let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.entity_mut(a).observe(|_: Trigger<Hit>, mut hits: ResMut<Hits>| hits.0 += 1);
    /// world.trigger_targets(Hit, [a, b]);
    /// assert_eq!(world.resource::<Hits>().0, 1);
    /// world.despawn(a); // its observer goes with it
    /// assert!(world.observers().is_empty());
    /// assert_eq!(world.entity_count(), 1);
    /// ```
    #[track_caller]
    pub fn observe<M, F: ObserverFunction<M>>(&mut self, observer: F) -> &mut Self {
        let () = ObserverCheck::<M, F>::OK;
        self.assert_alive();
        let (world, entity) = self.world_and_entity();
        let observer_entity = world.spawn_internal(ObserverMarker);
        world.register_typed_observer(observer_entity, SmallVec::from_slice(&[entity]), observer);
        world.mark_observed(entity);
        self
    }
}

impl EntityCommands<'_, '_, '_> {
    /// Queues registering `observer` for events that target this entity only
    /// (see `EntityWorldMut::observe`).
    ///
    /// # Panics
    /// When the commands are applied, if the entity is no longer alive (the
    /// message names it); no observer is registered then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Event)]
    /// struct Explode;
    /// #[derive(Resource, Default)]
    /// struct Booms(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Booms>();
    /// let mine = world.run_system_once(|mut commands: Commands| {
    ///     commands.spawn_empty().observe(|_: Trigger<Explode>, mut booms: ResMut<Booms>| booms.0 += 1).id()
    /// });
    /// world.trigger_targets(Explode, mine);
    /// assert_eq!(world.resource::<Booms>().0, 1);
    /// ```
    #[track_caller]
    pub fn observe<M, F>(&mut self, observer: F) -> &mut Self
    where
        F: ObserverFunction<M> + Send + Sync,
        M: 'static,
    {
        let () = ObserverCheck::<M, F>::OK;
        self.queue(move |world: &mut World, entity: Entity| {
            world.entity_mut(entity).observe(observer);
        })
    }
}

impl Commands<'_, '_> {
    /// Queues [`World::trigger`].
    pub fn trigger<E: Event>(&mut self, event: E) {
        self.queue(move |world: &mut World| world.trigger(event));
    }

    /// Queues [`World::trigger_targets`].
    pub fn trigger_targets<E: Event>(&mut self, event: E, targets: impl TriggerTargets + Send + Sync + 'static) {
        self.queue(move |world: &mut World| world.trigger_targets(event, targets));
    }
}

/// What [`World::trigger_targets`] accepts: one entity or several.
pub trait TriggerTargets {
    /// The targets, in order.
    fn entities(&self) -> impl Iterator<Item = Entity> + '_;
}

impl TriggerTargets for Entity {
    fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        core::iter::once(*self)
    }
}

impl<const N: usize> TriggerTargets for [Entity; N] {
    fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.iter().copied()
    }
}

impl TriggerTargets for Vec<Entity> {
    fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.iter().copied()
    }
}

impl TriggerTargets for &[Entity] {
    fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.iter().copied()
    }
}
