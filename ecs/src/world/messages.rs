//! Buffered messages: [`Message`] types, their double-buffered store
//! [`Messages<M>`] (a resource), read positions ([`MessageCursor`]) and the
//! world's `add_message` / `write_message` / `update_messages`.
//!
//! A message gets a sequence number when written. [`Messages::update`] (once per
//! frame, through [`World::update_messages`]) drops the messages of the previous
//! update and keeps the current ones one update longer, so a message is
//! readable for two updates. A reader keeps a cursor (the next sequence number
//! to read): each reader sees each message at most once, and one that runs at
//! least once every two updates sees every message.
//!
//! Invariants: `previous` holds the messages numbered `previous_start ..
//! current_start`, `current` those numbered `current_start .. next`; sequence
//! numbers only grow.

use core::marker::PhantomData;

use super::{Resource, World};

/// A type that systems exchange as buffered messages. Derive it:
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Message, Debug, PartialEq)]
/// struct Scored { points: u32 }
/// let mut world = World::new();
/// world.add_message::<Scored>();
/// assert!(world.write_message(Scored { points: 2 }));
/// let mut cursor = MessageCursor::<Scored>::default();
/// let messages = world.resource::<Messages<Scored>>();
/// assert_eq!(cursor.read(messages).collect::<Vec<_>>(), vec![&Scored { points: 2 }]);
/// ```
///
/// `NAME` and `ID` play the role they play for resources: the compile-time
/// access checks compare `ID`s (a writer and a reader of one message type in
/// one system conflict) and name the type in their messages. The derive sets
/// both for non-generic types; `ID == 0` means "unknown" (checked at run time).
pub trait Message: Send + Sync + 'static {
    /// The type's name, for messages.
    const NAME: &'static str = "<message>";
    /// A compile-time id, or 0 when unknown.
    const ID: u64 = 0;
}

/// The messages of type `M`: the current update's and the previous one's.
/// A resource, added by [`World::add_message`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Ping(u32);
/// let mut messages = Messages::<Ping>::default();
/// messages.write(Ping(1));
/// messages.update();
/// messages.write(Ping(2));
/// assert_eq!(messages.len(), 2);
/// messages.update(); // Ping(1) is two updates old: dropped
/// assert_eq!(messages.iter().map(|ping| ping.0).collect::<Vec<_>>(), vec![2]);
/// ```
pub struct Messages<M: Message> {
    previous: Vec<M>,
    previous_start: usize,
    current: Vec<M>,
    current_start: usize,
}

impl<M: Message> Default for Messages<M> {
    fn default() -> Self {
        Messages { previous: Vec::new(), previous_start: 0, current: Vec::new(), current_start: 0 }
    }
}

impl<M: Message> core::fmt::Debug for Messages<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Messages")
            .field("type", &core::any::type_name::<M>())
            .field("previous", &self.previous.len())
            .field("current", &self.current.len())
            .finish()
    }
}

impl<M: Message> Resource for Messages<M> {
    const NAME: &'static str = M::NAME;
    // One id per message type, distinct from every component and resource id.
    const ID: u64 = if M::ID == 0 { 0 } else { M::ID ^ 0x6D65_7373_6167_6573 };
}

impl<M: Message> Messages<M> {
    /// Writes a message; it is readable for this update and the next.
    pub fn write(&mut self, message: M) {
        self.current.push(message);
    }

    /// Writes every message of `messages`, in order.
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) {
        self.current.extend(messages);
    }

    /// Ends an update: the previous update's messages are dropped, this
    /// update's become the previous ones.
    pub fn update(&mut self) {
        self.update_keeping(usize::MAX);
    }

    /// Ends an update like [`Messages::update`], but keeps every message
    /// numbered `keep_from` or later as well (and at least what `update` keeps):
    /// the stored messages become the previous update's, the current update
    /// starts empty. Used for messages whose readers must each see every
    /// message however rarely they run (`RemovedComponents`).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Message)]
    /// struct Ping(u32);
    /// let mut messages = Messages::<Ping>::default();
    /// messages.write(Ping(0));
    /// messages.write(Ping(1));
    /// messages.update_keeping(1); // a slow reader has read Ping(0) only
    /// messages.update_keeping(1);
    /// messages.update_keeping(1);
    /// assert_eq!(messages.iter().map(|ping| ping.0).collect::<Vec<_>>(), vec![1]);
    /// messages.update_keeping(2);
    /// assert!(messages.is_empty());
    /// ```
    pub fn update_keeping(&mut self, keep_from: usize) {
        let keep_from = keep_from.min(self.current_start).max(self.previous_start);
        let dropped = keep_from - self.previous_start;
        self.previous.drain(..dropped);
        self.previous_start = keep_from;
        self.previous.append(&mut self.current);
        self.current_start = self.previous_start + self.previous.len();
    }

    /// The sequence number the next message will get.
    pub fn next_sequence(&self) -> usize {
        self.current_start + self.current.len()
    }

    /// The oldest sequence number still stored.
    pub fn oldest_sequence(&self) -> usize {
        self.previous_start
    }

    /// How many messages are stored (both updates).
    pub fn len(&self) -> usize {
        self.previous.len() + self.current.len()
    }

    /// Whether no message is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every stored message, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &M> + '_ {
        self.previous.iter().chain(self.current.iter())
    }

    /// Drops every stored message (readers skip them).
    pub fn clear(&mut self) {
        self.update();
        self.update();
    }

    /// The stored messages numbered `from` and later, oldest first, as the two
    /// slices of the previous and the current update.
    fn since(&self, from: usize) -> (&[M], &[M]) {
        let previous = from.saturating_sub(self.previous_start).min(self.previous.len());
        let current = from.saturating_sub(self.current_start).min(self.current.len());
        (&self.previous[previous..], &self.current[current..])
    }

    /// [`Messages::since`], mutably.
    fn since_mut(&mut self, from: usize) -> (&mut [M], &mut [M]) {
        let previous = from.saturating_sub(self.previous_start).min(self.previous.len());
        let current = from.saturating_sub(self.current_start).min(self.current.len());
        (&mut self.previous[previous..], &mut self.current[current..])
    }
}

/// A read position in the messages of type `M`: the next sequence number to
/// read. Each reader (a `MessageReader` parameter keeps one per system) reads
/// every message once.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message)]
/// struct Ping(u32);
/// let mut messages = Messages::<Ping>::default();
/// let mut cursor = MessageCursor::<Ping>::default();
/// messages.write(Ping(1));
/// assert_eq!(cursor.read(&messages).count(), 1);
/// assert_eq!(cursor.read(&messages).count(), 0); // already read
/// messages.write(Ping(2));
/// assert_eq!(cursor.read(&messages).map(|ping| ping.0).collect::<Vec<_>>(), vec![2]);
/// ```
pub struct MessageCursor<M: Message> {
    next: usize,
    _message: PhantomData<fn() -> M>,
}

impl<M: Message> Default for MessageCursor<M> {
    fn default() -> Self {
        MessageCursor { next: 0, _message: PhantomData }
    }
}

impl<M: Message> Clone for MessageCursor<M> {
    fn clone(&self) -> Self {
        MessageCursor { next: self.next, _message: PhantomData }
    }
}

impl<M: Message> core::fmt::Debug for MessageCursor<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageCursor").field("next", &self.next).finish()
    }
}

impl<M: Message> MessageCursor<M> {
    /// The messages not read yet, oldest first; each counts as read once the
    /// iterator has yielded it (as in Bevy: a reader that takes some and
    /// drops the iterator reads the rest next time).
    pub fn read<'a, 'c>(&'c mut self, messages: &'a Messages<M>) -> ReadMessages<'a, 'c, M> {
        let (previous, current) = messages.since(self.next);
        let sequence = messages.next_sequence() - previous.len() - current.len();
        ReadMessages {
            inner: Marking {
                items: Chained { first: previous.iter(), second: current.iter() },
                cursor: &mut self.next,
                sequence,
            },
        }
    }

    /// The messages not read yet, oldest first, all counted as read at once
    /// (`RemovedComponents`, which publishes its position as it reads).
    pub(crate) fn read_all<'a>(&mut self, messages: &'a Messages<M>) -> impl ExactSizeIterator<Item = &'a M> + 'a {
        let (previous, current) = messages.since(self.next);
        self.next = messages.next_sequence();
        Chained { first: previous.iter(), second: current.iter() }
    }

    /// The messages not read yet, mutably, oldest first; each counts as read
    /// once the iterator has yielded it.
    pub fn read_mut<'a, 'c>(
        &'c mut self,
        messages: &'a mut Messages<M>,
    ) -> impl ExactSizeIterator<Item = &'a mut M> + 'c
    where
        'a: 'c,
    {
        let next_sequence = messages.next_sequence();
        let (previous, current) = messages.since_mut(self.next);
        let sequence = next_sequence - previous.len() - current.len();
        Marking {
            items: Chained { first: previous.iter_mut(), second: current.iter_mut() },
            cursor: &mut self.next,
            sequence,
        }
    }

    /// How many messages are not read yet.
    pub fn len(&self, messages: &Messages<M>) -> usize {
        let (previous, current) = messages.since(self.next);
        previous.len() + current.len()
    }

    /// Whether every message was read.
    pub fn is_empty(&self, messages: &Messages<M>) -> bool {
        self.len(messages) == 0
    }

    /// Marks every message as read without reading it.
    pub fn clear(&mut self, messages: &Messages<M>) {
        self.next = messages.next_sequence();
    }

    /// The sequence number of the next message to read (every message
    /// numbered below it counts as read).
    pub fn position(&self) -> usize {
        self.next
    }
}

/// Two iterators one after the other, with an exact length.
struct Chained<A, B> {
    first: A,
    second: B,
}

impl<T, A: Iterator<Item = T>, B: Iterator<Item = T>> Iterator for Chained<A, B> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.first.next().or_else(|| self.second.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (a, _) = self.first.size_hint();
        let (b, _) = self.second.size_hint();
        (a + b, Some(a + b))
    }
}

impl<T, A: ExactSizeIterator<Item = T>, B: ExactSizeIterator<Item = T>> ExactSizeIterator for Chained<A, B> {}

/// The iterator of [`MessageCursor::read`] (and `MessageReader::read`): the
/// unread messages, oldest first, each counted as read once yielded. A named
/// type without `Drop`, so the reader may be used again as soon as the
/// iterator is no longer (as with Bevy's).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Message, Debug, PartialEq)]
/// struct Ping(u32);
/// let mut messages = Messages::<Ping>::default();
/// messages.write(Ping(1));
/// messages.write(Ping(2));
/// let mut cursor = MessageCursor::<Ping>::default();
/// let mut read = cursor.read(&messages);
/// assert_eq!(read.next(), Some(&Ping(1)));
/// assert_eq!(cursor.len(&messages), 1, "the second is still unread");
/// ```
pub struct ReadMessages<'a, 'c, M: Message> {
    inner: Marking<'c, Chained<core::slice::Iter<'a, M>, core::slice::Iter<'a, M>>>,
}

impl<'a, M: Message> Iterator for ReadMessages<'a, '_, M> {
    type Item = &'a M;

    #[inline]
    fn next(&mut self) -> Option<&'a M> {
        self.inner.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<M: Message> ExactSizeIterator for ReadMessages<'_, '_, M> {}

/// Messages in sequence order from `sequence` on, moving a cursor past each
/// one as it is yielded.
struct Marking<'c, I> {
    items: I,
    cursor: &'c mut usize,
    sequence: usize,
}

impl<I: Iterator> Iterator for Marking<'_, I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.items.next()?;
        self.sequence += 1;
        *self.cursor = self.sequence;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for Marking<'_, I> {}

/// What [`World::update_messages`] does to one message type.
type MessageUpdate = fn(&mut World);

/// The message types added to a world, each once (by type), with its update
/// function.
#[derive(Default)]
struct MessageRegistry {
    updates: Vec<(core::any::TypeId, MessageUpdate)>,
}

impl Resource for MessageRegistry {}

fn update_messages_of<M: Message>(world: &mut World) {
    if let Some(mut messages) = world.get_resource_mut::<Messages<M>>() {
        messages.update();
    }
}

impl World {
    /// Adds the message type `M`: inserts the [`Messages<M>`] resource and
    /// registers it with [`World::update_messages`]. Adding it again does
    /// nothing. Systems that take `MessageWriter<M>`, `MessageReader<M>` or
    /// `MessageMutator<M>` add it when they are initialized.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Message)]
    /// struct Scored(u32);
    /// let mut world = World::new();
    /// assert!(!world.write_message(Scored(1))); // not added yet
    /// world.add_message::<Scored>();
    /// world.add_message::<Scored>(); // idempotent
    /// assert!(world.write_message(Scored(1)));
    /// assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    /// ```
    pub fn add_message<M: Message>(&mut self) {
        if self.contains_resource::<Messages<M>>() {
            return;
        }
        self.insert_resource(Messages::<M>::default());
        self.init_resource::<MessageRegistry>();
        // Added again after its resource was removed: updated once still.
        let mut registry = self.resource_mut::<MessageRegistry>();
        let type_id = core::any::TypeId::of::<M>();
        if !registry.updates.iter().any(|&(registered, _)| registered == type_id) {
            registry.updates.push((type_id, update_messages_of::<M>));
        }
    }

    /// Makes `update` what [`World::update_messages`] does to the messages
    /// of `M`, an added type (nothing if it was never added).
    pub(crate) fn set_message_update<M: Message>(&mut self, update: MessageUpdate) {
        let type_id = core::any::TypeId::of::<M>();
        if let Some(mut registry) = self.get_resource_mut::<MessageRegistry>()
            && let Some(entry) = registry.updates.iter_mut().find(|(registered, _)| *registered == type_id)
        {
            entry.1 = update;
        }
    }

    /// Writes a message of an added type; `false` (and the message is dropped)
    /// when the type was never added.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Message)]
    /// struct Scored(u32);
    /// let mut world = World::new();
    /// world.add_message::<Scored>();
    /// assert!(world.write_message(Scored(3)));
    /// ```
    pub fn write_message<M: Message>(&mut self, message: M) -> bool {
        match self.get_resource_mut::<Messages<M>>() {
            Some(mut messages) => {
                messages.write(message);
                true
            }
            None => false,
        }
    }

    /// Ends an update for every added message type (call it once per frame):
    /// messages written two updates ago are dropped (removals, which
    /// `RemovedComponents` readers see since they last ran, are kept until
    /// every such reader read them).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Message)]
    /// struct Scored(u32);
    /// let mut world = World::new();
    /// world.add_message::<Scored>();
    /// world.write_message(Scored(1));
    /// world.update_messages();
    /// assert_eq!(world.resource::<Messages<Scored>>().len(), 1); // still readable
    /// world.update_messages();
    /// assert!(world.resource::<Messages<Scored>>().is_empty());
    /// ```
    pub fn update_messages(&mut self) {
        let updates: Vec<MessageUpdate> = match self.get_resource::<MessageRegistry>() {
            Some(registry) => registry.updates.iter().map(|&(_, update)| update).collect(),
            None => return,
        };
        for update in updates {
            update(self);
        }
    }
}
