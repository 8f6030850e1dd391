//! Message parameters: [`MessageWriter`], [`MessageReader`], [`MessageMutator`].
//!
//! They sit on the [`Messages<M>`] resource, so their borrows are a resource's:
//! a writer borrows `Messages<M>` mutably (as `ResMut`), a reader shares it (as
//! `Res`) and keeps its read position in the system's own state (a
//! [`MessageCursor`], like a `Local`), a mutator borrows it mutably with its own
//! cursor. A writer and a reader of one message type in one system are a
//! compile error naming the type, as `ResMut` + `Res` is; two readers never
//! conflict. Initializing a system with one of them adds the message type to
//! the world ([`World::add_message`]).

// Parameter impls spell out `'w, 's` in `get_param` like the trait, even where one is unused.
#![allow(clippy::needless_lifetimes)]

use core::any::{TypeId, type_name};

use super::access::{ParamAccess, UnitAccess, short_type_name};
use super::param::{SystemMeta, SystemParam};
use crate::query::{AccessSet, Label};
use crate::storage::Tick;
use crate::world::{Message, MessageCursor, Messages, Mut, Resource, World};

/// Writes messages of type `M`.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Scored { points: u32 }
/// fn score(mut scored: MessageWriter<Scored>) {
///     scored.write(Scored { points: 1 });
/// }
/// let mut world = World::new();
/// world.run_system_once(score);
/// assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
/// ```
pub struct MessageWriter<'w, M: Message> {
    messages: Mut<'w, Messages<M>>,
}

impl<M: Message> MessageWriter<'_, M> {
    /// Writes one message.
    pub fn write(&mut self, message: M) {
        self.messages.write(message);
    }

    /// Writes every message of `messages`, in order.
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) {
        self.messages.write_batch(messages);
    }

    /// Writes `M::default()`.
    pub fn write_default(&mut self)
    where
        M: Default,
    {
        self.messages.write(M::default());
    }
}

impl<M: Message> core::fmt::Debug for MessageWriter<'_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageWriter").field("messages", &self.messages).finish()
    }
}

/// Reads the messages of type `M` that this system has not read yet.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Scored { points: u32 }
/// #[derive(Resource, Default)]
/// struct Total(u32);
/// fn tally(mut scored: MessageReader<Scored>, mut total: ResMut<Total>) {
///     for message in scored.read() {
///         total.0 += message.points;
///     }
/// }
/// let mut world = World::new();
/// world.init_resource::<Total>();
/// world.add_message::<Scored>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(tally);
/// world.write_message(Scored { points: 2 });
/// schedule.run(&mut world);
/// schedule.run(&mut world); // each message is read once
/// assert_eq!(world.resource::<Total>().0, 2);
/// ```
pub struct MessageReader<'w, 's, M: Message> {
    messages: &'w Messages<M>,
    cursor: &'s mut MessageCursor<M>,
}

impl<'w, M: Message> MessageReader<'w, '_, M> {
    /// The messages not read yet, oldest first; each counts as read once the
    /// iterator yields it (a reader that takes some reads the rest next time).
    pub fn read(&mut self) -> crate::world::ReadMessages<'w, '_, M> {
        self.cursor.read(self.messages)
    }

    /// How many messages are not read yet.
    pub fn len(&self) -> usize {
        self.cursor.len(self.messages)
    }

    /// Whether every message was read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every message as read.
    pub fn clear(&mut self) {
        self.cursor.clear(self.messages);
    }
}

impl<M: Message> core::fmt::Debug for MessageReader<'_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageReader").field("messages", &self.messages).field("cursor", &self.cursor).finish()
    }
}

/// Reads the messages of type `M` that this system has not read yet, mutably.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Damage(u32);
/// fn armor(mut damage: MessageMutator<Damage>) {
///     for message in damage.read() {
///         message.0 /= 2;
///     }
/// }
/// let mut world = World::new();
/// world.add_message::<Damage>();
/// world.write_message(Damage(10));
/// world.run_system_once(armor);
/// assert_eq!(world.resource::<Messages<Damage>>().iter().next().unwrap().0, 5);
/// ```
pub struct MessageMutator<'w, 's, M: Message> {
    messages: Mut<'w, Messages<M>>,
    cursor: &'s mut MessageCursor<M>,
}

impl<M: Message> MessageMutator<'_, '_, M> {
    /// The messages not read yet, mutably, oldest first; each counts as read
    /// once the iterator yields it.
    pub fn read(&mut self) -> impl ExactSizeIterator<Item = &mut M> + '_ {
        self.cursor.read_mut(&mut self.messages)
    }

    /// How many messages are not read yet.
    pub fn len(&self) -> usize {
        self.cursor.len(&self.messages)
    }

    /// Whether every message was read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every message as read.
    pub fn clear(&mut self) {
        self.cursor.clear(&self.messages);
    }
}

impl<M: Message> core::fmt::Debug for MessageMutator<'_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageMutator").field("messages", &self.messages).field("cursor", &self.cursor).finish()
    }
}

/// The const access of a message parameter: `Messages<M>` shared or mutable,
/// labelled `{kind}<M>`.
const fn message_access<M: Message>(kind: &str, write: bool) -> ParamAccess {
    let label = Label::new().with(kind).with("<").with(M::NAME).with(">");
    ParamAccess::unit(AccessSet::resource(
        <Messages<M> as Resource>::ID,
        <Messages<M> as Resource>::NAME,
        write,
        label.as_str(),
    ))
}

/// Adds `M` to the world and declares the borrow of `Messages<M>`.
fn init_message<M: Message>(world: &mut World, meta: &mut SystemMeta, kind: &str, write: bool) {
    world.add_message::<M>();
    meta.access.add(
        format!("{kind}<{}>", short_type_name(type_name::<M>())),
        UnitAccess::Resource { type_id: TypeId::of::<Messages<M>>(), write },
    );
}

/// `Messages<M>` mutably, from a shared world.
///
/// # Safety
/// No other borrow of `Messages<M>` lives during `'w`.
unsafe fn messages_mut<'w, M: Message>(meta: &SystemMeta, world: &'w World, this_run: Tick) -> Mut<'w, Messages<M>> {
    // SAFETY: forwarded to the caller.
    let messages = unsafe { world.resources().get_mut_unchecked::<Messages<M>>(meta.last_run, this_run) };
    messages.unwrap_or_else(|| missing_messages::<M>(meta))
}

#[track_caller]
fn missing_messages<M: Message>(meta: &SystemMeta) -> ! {
    panic!(
        "system `{}` uses messages of type {}, whose Messages resource was removed; keep it, or add it again with \
         World::add_message",
        meta.name,
        type_name::<M>()
    )
}

// SAFETY: declares a write of `Messages<M>`; the item is the only borrow of it.
unsafe impl<M: Message> SystemParam for MessageWriter<'_, M> {
    type State = ();
    type Item<'w, 's> = MessageWriter<'w, M>;
    const ACCESS: ParamAccess = message_access::<M>("MessageWriter", true);

    fn init_state(world: &mut World, meta: &mut SystemMeta) {
        init_message::<M>(world, meta, "MessageWriter", true);
    }

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> MessageWriter<'w, M> {
        // SAFETY: the declared write excludes every other borrow (caller).
        MessageWriter { messages: unsafe { messages_mut(meta, world, this_run) } }
    }
}

// SAFETY: declares a read of `Messages<M>`; the item only reads it (its cursor
// is the system's own state).
unsafe impl<M: Message> SystemParam for MessageReader<'_, '_, M> {
    type State = MessageCursor<M>;
    type Item<'w, 's> = MessageReader<'w, 's, M>;
    const ACCESS: ParamAccess = message_access::<M>("MessageReader", false);

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> MessageCursor<M> {
        init_message::<M>(world, meta, "MessageReader", false);
        MessageCursor::default()
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut MessageCursor<M>,
        meta: &SystemMeta,
        world: &'w World,
        _this_run: Tick,
    ) -> MessageReader<'w, 's, M> {
        let messages = world.get_resource::<Messages<M>>().unwrap_or_else(|| missing_messages::<M>(meta));
        MessageReader { messages, cursor: state }
    }
}

// SAFETY: declares a write of `Messages<M>`; the item is the only borrow of it.
unsafe impl<M: Message> SystemParam for MessageMutator<'_, '_, M> {
    type State = MessageCursor<M>;
    type Item<'w, 's> = MessageMutator<'w, 's, M>;
    const ACCESS: ParamAccess = message_access::<M>("MessageMutator", true);

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> MessageCursor<M> {
        init_message::<M>(world, meta, "MessageMutator", true);
        MessageCursor::default()
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut MessageCursor<M>,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> MessageMutator<'w, 's, M> {
        // SAFETY: the declared write excludes every other borrow (caller).
        MessageMutator { messages: unsafe { messages_mut(meta, world, this_run) }, cursor: state }
    }
}
