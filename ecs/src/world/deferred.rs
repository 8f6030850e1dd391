//! [`DeferredWorld`]: the world as hooks see it, and the constructor of [`Hook`]s.
//!
//! Hooks (and observers) run in the middle of a structural change, so they may
//! read and write component values and resources but not add, remove or despawn
//! directly: structural changes go through `DeferredWorld::commands`, whose queue
//! is handed to the world when the `DeferredWorld` is dropped and applied before
//! the triggering call (`spawn`, `insert`, `remove`, `despawn`...) returns. If
//! the hook panics, its commands are dropped instead. A `DeferredWorld` made
//! by the user (`DeferredWorld::from(&mut world)`) applies its commands when
//! it is dropped.

use super::change_detection::Mut;
use super::{CommandQueue, World};
use crate::component::{Component, Hook, HookContext};
use crate::entity::{Entity, Id};
use crate::world::Resource;

/// The world, restricted to non-structural access.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(f32);
/// fn heal(mut world: DeferredWorld, ctx: HookContext) {
///     if let Some(mut health) = world.get_mut::<Health>(ctx.entity) {
///         health.0 = 100.0;
///     }
/// }
/// let mut world = World::new();
/// let e = world.spawn(Health(1.0)).id();
/// let ctx = HookContext { entity: e, component_id: world.component_id::<Health>().unwrap() };
/// heal(DeferredWorld::from(&mut world), ctx);
/// assert_eq!(world.get::<Health>(e).unwrap().0, 100.0);
/// ```
pub struct DeferredWorld<'w> {
    world: &'w mut World,
    queue: CommandQueue,
    /// Made by the user from a `&mut World` (not handed to a hook): its
    /// commands are applied when it is dropped, as no structural change is
    /// under way that would apply them.
    applies_on_drop: bool,
    /// The pair whose relationship's hook this world is handed to.
    hook_pair: Option<Id>,
}

/// A `DeferredWorld` of the user's own: its commands are applied when it is
/// dropped (Bevy applies them at the world's next flush, which every
/// structural change does first: nothing can tell the two apart).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Marked;
/// let mut world = World::new();
/// let e = world.spawn_empty().id();
/// {
///     let mut deferred = DeferredWorld::from(&mut world);
///     deferred.commands().entity(e).insert(Marked);
/// }
/// assert_eq!(world.get::<Marked>(e), Some(&Marked));
/// ```
impl<'w> From<&'w mut World> for DeferredWorld<'w> {
    fn from(world: &'w mut World) -> Self {
        DeferredWorld { world, queue: CommandQueue::default(), applies_on_drop: true, hook_pair: None }
    }
}

impl Drop for DeferredWorld<'_> {
    fn drop(&mut self) {
        // The commands of a hook that panics are dropped with it (as a panicking
        // system's are), never applied by a later structural change.
        if !self.queue.is_empty() && !std::thread::panicking() {
            self.world.deferred.append(&mut self.queue);
            if self.applies_on_drop {
                self.world.flush_deferred();
            }
        }
    }
}

impl<'w> DeferredWorld<'w> {
    /// The world as a hook sees it: its commands go to the world's deferred
    /// queue, applied before the structural change that ran the hook returns.
    #[inline]
    pub(crate) fn for_hook(world: &'w mut World) -> Self {
        DeferredWorld { world, queue: CommandQueue::default(), applies_on_drop: false, hook_pair: None }
    }
}

impl DeferredWorld<'_> {
    /// This world, handed to the hook a relationship runs for `pair`.
    pub(crate) fn with_hook_pair(mut self, pair: Option<Id>) -> Self {
        self.hook_pair = pair;
        self
    }

    /// The target of the pair `(R, target)` whose change runs this hook, when
    /// the hook is relationship `R`'s (a relationship's hooks run for each of
    /// its pairs, as in Flecs; [`HookContext::component_id`] names `R`);
    /// `None` in a component's own hook and in a `DeferredWorld` made from a
    /// `World`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use std::sync::Mutex;
    /// static DOCKED: Mutex<Vec<(Entity, Entity)>> = Mutex::new(Vec::new());
    /// fn docked(world: DeferredWorld, ctx: HookContext) {
    ///     DOCKED.lock().unwrap().push((ctx.entity, world.pair_target().unwrap()));
    /// }
    /// #[derive(Relationship)]
    /// #[component(on_add = docked)]
    /// struct DockedTo;
    /// let mut world = World::new();
    /// let station = world.spawn_empty().id();
    /// let ship = world.spawn_empty().id();
    /// world.add_pair::<DockedTo>(ship, station);
    /// assert_eq!(*DOCKED.lock().unwrap(), [(ship, station)]);
    /// ```
    #[inline]
    pub fn pair_target(&self) -> Option<Entity> {
        self.world.entity_at(self.hook_pair?.second_index())
    }

    /// The queue its commands go to, and the world (to reserve ids).
    #[inline]
    pub(crate) fn queue_and_world(&mut self) -> (&mut CommandQueue, &World) {
        (&mut self.queue, self.world)
    }

    /// The world, read-only.
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world, mutably, for the crate's own non-structural bookkeeping
    /// (e.g. unregistering an observer from a hook).
    #[inline]
    pub(crate) fn world_mut_unchecked(&mut self) -> &mut World {
        self.world
    }

    /// `entity`'s `T`.
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        self.world.get::<T>(entity)
    }

    /// `entity`'s `T` as a [`Mut`].
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        self.world.get_mut::<T>(entity)
    }

    /// Resource `R`, if present.
    pub fn get_resource<R: Resource>(&self) -> Option<&R> {
        self.world.get_resource::<R>()
    }

    /// Resource `R` as a [`Mut`], if present.
    pub fn get_resource_mut<R: Resource>(&mut self) -> Option<Mut<'_, R>> {
        self.world.get_resource_mut::<R>()
    }

    /// Resource `R` (as Bevy's `DeferredWorld::resource`).
    ///
    /// # Panics
    /// Panics if `R` is not present, naming the type. Use
    /// [`DeferredWorld::get_resource`] for an `Option`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource)]
    /// struct Bonus(u32);
    /// #[derive(Component)]
    /// #[component(on_add = add_bonus)]
    /// struct Score(u32);
    /// fn add_bonus(mut world: DeferredWorld, context: HookContext) {
    ///     let bonus = world.resource::<Bonus>().0;
    ///     world.get_mut::<Score>(context.entity).unwrap().0 += bonus;
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Bonus(5));
    /// let e = world.spawn(Score(1)).id();
    /// assert_eq!(world.get::<Score>(e).unwrap().0, 6);
    /// ```
    #[track_caller]
    pub fn resource<R: Resource>(&self) -> &R {
        self.world.resource::<R>()
    }

    /// Resource `R` as a [`Mut`] (as Bevy's `DeferredWorld::resource_mut`).
    ///
    /// # Panics
    /// Panics if `R` is not present, naming the type. Use
    /// [`DeferredWorld::get_resource_mut`] for an `Option`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource, Default)]
    /// struct Spawned(u32);
    /// #[derive(Component)]
    /// #[component(on_add = count)]
    /// struct Enemy;
    /// fn count(mut world: DeferredWorld, _: HookContext) {
    ///     world.resource_mut::<Spawned>().0 += 1;
    /// }
    /// let mut world = World::new();
    /// world.init_resource::<Spawned>();
    /// world.spawn(Enemy);
    /// world.spawn(Enemy);
    /// assert_eq!(world.resource::<Spawned>().0, 2);
    /// ```
    #[track_caller]
    pub fn resource_mut<R: Resource>(&mut self) -> Mut<'_, R> {
        self.world.resource_mut::<R>()
    }
}

/// The signature of a component hook.
pub type HookFn = for<'w> fn(DeferredWorld<'w>, HookContext);

impl Hook {
    /// Erases a hook function for storage in [`ComponentHooks`](crate::component::ComponentHooks).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::Hook;
    /// fn on_add(_: DeferredWorld, _: HookContext) {}
    /// const HOOK: Hook = Hook::new(on_add);
    /// assert!(HOOK.get() as usize == on_add as ecs::world::HookFn as usize);
    /// ```
    pub const fn new(hook: HookFn) -> Hook {
        // SAFETY: fn pointers all have the same size and representation; `get`
        // transmutes back to the exact same type before any call.
        Hook(unsafe { core::mem::transmute::<HookFn, fn()>(hook) })
    }

    /// The hook function.
    pub fn get(self) -> HookFn {
        // SAFETY: every `Hook` is built by `Hook::new` from a `HookFn`.
        unsafe { core::mem::transmute::<fn(), HookFn>(self.0) }
    }

    /// Runs the hook.
    pub fn call(self, world: DeferredWorld<'_>, context: HookContext) {
        (self.get())(world, context)
    }
}
