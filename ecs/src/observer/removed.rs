//! [`RemovedComponents<T>`]: the entities that lost a `T` (removed, or
//! despawned with it) since the system last ran.
//!
//! The first system that takes `RemovedComponents<T>` adds the message type
//! [`RemovedComponent<T>`] and an `OnRemove` observer of `T` that writes one
//! message per removal, so worlds without such a system pay nothing on
//! removals. Removals are messages: they live for two
//! [`World::update_messages`] calls, and each system reads each removal once.
//! Borrows: a read of the `Messages<RemovedComponent<T>>` resource. It lives
//! with the observers because it registers one; it is a system parameter like
//! those of the `system` layer below.

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::marker::PhantomData;

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
    reader: MessageReader<'w, 's, RemovedComponent<T>>,
}

impl<'w, T: Component> RemovedComponents<'w, '_, T> {
    /// The entities not read yet, oldest first; afterwards they count as read.
    pub fn read(&mut self) -> impl ExactSizeIterator<Item = Entity> + 'w {
        self.reader.read().map(|removed| removed.entity)
    }

    /// How many removals are not read yet.
    pub fn len(&self) -> usize {
        self.reader.len()
    }

    /// Whether every removal was read.
    pub fn is_empty(&self) -> bool {
        self.reader.is_empty()
    }

    /// Marks every removal as read.
    pub fn clear(&mut self) {
        self.reader.clear();
    }
}

impl<T: Component> core::fmt::Debug for RemovedComponents<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RemovedComponents").field("pending", &self.len()).finish()
    }
}

/// Starts tracking removals of `T` in `world` (once per world).
fn track_removals<T: Component>(world: &mut World) {
    if world.contains_resource::<Messages<RemovedComponent<T>>>() {
        return;
    }
    world.add_message::<RemovedComponent<T>>();
    world.add_observer(|trigger: Trigger<OnRemove, T>, mut removed: MessageWriter<RemovedComponent<T>>| {
        removed.write(RemovedComponent { entity: trigger.entity(), _component: PhantomData });
    });
}

// SAFETY: declares (through `MessageReader`) a read of the removal messages;
// the item only reads them.
unsafe impl<T: Component> SystemParam for RemovedComponents<'_, '_, T> {
    type State = MessageCursor<RemovedComponent<T>>;
    type Item<'w, 's> = RemovedComponents<'w, 's, T>;
    const ACCESS: ParamAccess = <MessageReader<'static, 'static, RemovedComponent<T>> as SystemParam>::ACCESS;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        track_removals::<T>(world);
        <MessageReader<'static, 'static, RemovedComponent<T>> as SystemParam>::init_state(world, meta)
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> RemovedComponents<'w, 's, T> {
        // SAFETY: forwarded to the caller.
        let reader = unsafe {
            <MessageReader<'w, 's, RemovedComponent<T>> as SystemParam>::get_param(state, meta, world, this_run)
        };
        RemovedComponents { reader }
    }
}
