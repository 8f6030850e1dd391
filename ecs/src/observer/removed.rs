//! [`RemovedComponents<T>`]: the entities that lost a `T` (removed, or
//! despawned with it) since the system last ran.
//!
//! The first system that takes `RemovedComponents<T>` adds the message type
//! [`RemovedComponent<T>`] and an `OnRemove` observer of `T` that writes one
//! message per removal, so worlds without such a system pay nothing on
//! removals. Removals are messages that each system reads once, kept until
//! every `RemovedComponents<T>` reader has read them: a system sees every
//! removal since it last ran, however many [`World::update_messages`] calls
//! passed (each reader publishes its read position in a [`RemovalReaders<T>`]
//! resource, and the update drops only what all live readers read, and never
//! less than a plain message update drops). A reader that stops running
//! (its system kept but never run) keeps the removals since then alive;
//! dropping the system releases them.
//! Borrows: a read of the `Messages<RemovedComponent<T>>` resource. It lives
//! with the observers because it registers one; it is a system parameter like
//! those of the `system` layer below.

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::marker::PhantomData;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use super::Trigger;
use crate::component::Component;
use crate::entity::Entity;
use crate::storage::Tick;
use crate::system::{MessageReader, MessageWriter, ParamAccess, SystemMeta, SystemParam};
use crate::world::OnRemove;
use crate::world::{Message, MessageCursor, Messages, World};

/// The message that an entity lost its `T` (read through [`RemovedComponents`]).
pub struct RemovedComponent<T> {
    /// The entity that lost the component (it may be despawned by now).
    pub entity: Entity,
    _component: PhantomData<fn() -> T>,
}

impl<T: Component> Message for RemovedComponent<T> {
    const NAME: &'static str = T::NAME;
    const ID: u64 = T::ID ^ 0x7265_6D6F_7665_6421;
}

impl<T> core::fmt::Debug for RemovedComponent<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("RemovedComponent").field(&self.entity).finish()
    }
}

/// The entities that lost a `T` since this system last ran: by `remove`, by an
/// archetype move that drops it, or by `despawn`.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Resource, Default)]
/// struct Gone(Vec<Entity>);
/// fn gone(mut removed: RemovedComponents<Health>, mut log: ResMut<Gone>) {
///     log.0.extend(removed.read());
/// }
/// let mut world = World::new();
/// world.init_resource::<Gone>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(gone);
/// schedule.run(&mut world); // registers the tracking
/// let (a, b) = (world.spawn(Health(1)).id(), world.spawn(Health(2)).id());
/// world.remove::<Health>(a);
/// world.despawn(b);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Gone>().0, vec![a, b]);
/// ```
pub struct RemovedComponents<'w, 's, T: Component> {
    messages: &'w Messages<RemovedComponent<T>>,
    state: &'s mut RemovalCursor<T>,
}

impl<'w, T: Component> RemovedComponents<'w, '_, T> {
    /// The entities not read yet, oldest first; afterwards they count as read.
    pub fn read(&mut self) -> impl ExactSizeIterator<Item = Entity> + 'w {
        // Reading moves the cursor to the next sequence number: published first.
        self.state.publish(self.messages.next_sequence());
        self.state.cursor.read_all(self.messages).map(|removed| removed.entity)
    }

    /// How many removals are not read yet.
    pub fn len(&self) -> usize {
        self.state.cursor.len(self.messages)
    }

    /// Whether every removal was read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every removal as read.
    pub fn clear(&mut self) {
        self.state.cursor.clear(self.messages);
        self.state.publish(self.state.cursor.position());
    }
}

/// The read positions of the live [`RemovedComponents<T>`] readers of a world
/// (a resource): [`World::update_messages`] keeps every removal one of them
/// has not read. Each position is published by its reader after a read and
/// read by the update, which has `&mut World`: relaxed atomics suffice.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::observer::RemovalReaders;
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Resource, Default)]
/// struct Gone(usize);
/// fn gone(mut removed: RemovedComponents<Health>, mut count: ResMut<Gone>) { count.0 += removed.read().len(); }
/// let mut world = World::new();
/// world.init_resource::<Gone>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(gone);
/// schedule.run(&mut world);
/// assert!(world.contains_resource::<RemovalReaders<Health>>());
/// let e = world.spawn(Health(1)).id();
/// world.despawn(e);
/// for _ in 0..5 {
///     world.update_messages(); // the reader has not run: its removal is kept
/// }
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Gone>().0, 1);
/// ```
pub struct RemovalReaders<T> {
    positions: Vec<Weak<AtomicUsize>>,
    _component: PhantomData<fn() -> T>,
}

impl<T> Default for RemovalReaders<T> {
    fn default() -> Self {
        RemovalReaders { positions: Vec::new(), _component: PhantomData }
    }
}

impl<T: Component> crate::world::Resource for RemovalReaders<T> {}

impl<T> RemovalReaders<T> {
    /// The lowest read position of the live readers (the oldest removal one
    /// of them has not read), forgetting the readers that were dropped;
    /// `None` if none is alive.
    fn oldest_unread(&mut self) -> Option<usize> {
        self.positions.retain(|position| position.strong_count() > 0);
        self.positions.iter().filter_map(Weak::upgrade).map(|position| position.load(Ordering::Relaxed)).min()
    }
}

/// The state of one [`RemovedComponents<T>`] parameter: its cursor and the
/// position it publishes to the world's [`RemovalReaders<T>`] (see there for
/// an example; dropping the state, with its system, unregisters the reader).
pub struct RemovalCursor<T: Component> {
    cursor: MessageCursor<RemovedComponent<T>>,
    published: Arc<AtomicUsize>,
}

impl<T: Component> RemovalCursor<T> {
    /// Publishes `position`, where the cursor is (or is about to be).
    fn publish(&self, position: usize) {
        self.published.store(position, Ordering::Relaxed);
    }
}

/// What [`World::update_messages`] does to the removals of `T`: end the update
/// keeping whatever a live reader has not read yet.
fn update_removals<T: Component>(world: &mut World) {
    let keep_from = world.get_resource_mut::<RemovalReaders<T>>().and_then(|mut readers| readers.oldest_unread());
    if let Some(mut messages) = world.get_resource_mut::<Messages<RemovedComponent<T>>>() {
        match keep_from {
            Some(keep_from) => messages.update_keeping(keep_from),
            None => messages.update(),
        }
    }
}

impl<T: Component> core::fmt::Debug for RemovedComponents<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RemovedComponents").field("pending", &self.len()).finish()
    }
}

/// Starts tracking removals of `T` in `world` (once per world: the
/// [`RemovalReaders<T>`] resource marks it; the messages resource is added
/// again if it was removed, and made to keep what readers have not read even
/// if the message type was added by hand before).
fn track_removals<T: Component>(world: &mut World) {
    world.add_message::<RemovedComponent<T>>();
    world.set_message_update::<RemovedComponent<T>>(update_removals::<T>);
    if world.contains_resource::<RemovalReaders<T>>() {
        return;
    }
    world.init_resource::<RemovalReaders<T>>();
    let observer = world
        .add_observer(|trigger: Trigger<OnRemove, T>, mut removed: MessageWriter<RemovedComponent<T>>| {
            removed.write(RemovedComponent { entity: trigger.entity(), _component: PhantomData });
        })
        .id();
    // Prefabs lose components too.
    world.observers_mut().see_prefabs(observer);
}

// SAFETY: declares (through `MessageReader`) a read of the removal messages;
// the item only reads them.
unsafe impl<T: Component> SystemParam for RemovedComponents<'_, '_, T> {
    type State = RemovalCursor<T>;
    type Item<'w, 's> = RemovedComponents<'w, 's, T>;
    const ACCESS: ParamAccess = <MessageReader<'static, 'static, RemovedComponent<T>> as SystemParam>::ACCESS;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        track_removals::<T>(world);
        let cursor = <MessageReader<'static, 'static, RemovedComponent<T>> as SystemParam>::init_state(world, meta);
        let published = Arc::new(AtomicUsize::new(cursor.position()));
        world.resource_mut::<RemovalReaders<T>>().positions.push(Arc::downgrade(&published));
        RemovalCursor { cursor, published }
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: &'w World,
        _this_run: Tick,
    ) -> RemovedComponents<'w, 's, T> {
        let messages = world.get_resource::<Messages<RemovedComponent<T>>>().unwrap_or_else(|| {
            panic!("system `{}` uses RemovedComponents<{}>, whose Messages resource was removed", meta.name, T::NAME)
        });
        RemovedComponents { messages, state }
    }
}
