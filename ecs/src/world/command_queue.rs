//! [`CommandQueue`]: a list of deferred world changes, applied later in the
//! order they were pushed. Systems own one each (their `Commands`); the world
//! owns one for the commands that hooks and observers issue in the middle of a
//! structural change, applied before the triggering call returns.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::World;
use crate::util::PanicSlot;

type Command = Box<dyn FnOnce(&mut World) + Send + Sync>;

/// A list of deferred world changes.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::world::CommandQueue;
/// #[derive(Component)]
/// struct Score(u32);
/// let mut world = World::new();
/// let mut queue = CommandQueue::default();
/// let e = {
///     let mut commands = Commands::new(&mut queue, &world);
///     commands.spawn(Score(1)).id()
/// };
/// assert!(!world.is_alive(e));
/// queue.apply(&mut world);
/// assert_eq!(world.get::<Score>(e).map(|s| s.0), Some(1));
/// ```
#[derive(Default)]
pub struct CommandQueue {
    commands: Vec<Command>,
}

impl CommandQueue {
    /// Appends a command.
    pub fn push(&mut self, command: impl FnOnce(&mut World) + Send + Sync + 'static) {
        self.commands.push(Box::new(command));
    }

    /// The number of queued commands.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// Whether no command is queued.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Drops every queued command unrun (the entities they reserved still become
    /// alive, empty, at the next flush).
    ///
    /// # Examples
    /// ```
    /// use ecs::world::{CommandQueue, World};
    /// let mut queue = CommandQueue::default();
    /// queue.push(|world: &mut World| { world.spawn(()); });
    /// queue.clear();
    /// assert!(queue.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.commands.clear();
    }

    /// Makes reserved entities alive, then runs the commands in order. If a
    /// command panics, the ones after it are dropped unrun (each once, even if
    /// a value they own panics in its `Drop`) and the panic goes on; the queue
    /// is empty either way.
    ///
    /// # Examples
    /// ```
    /// use ecs::world::{CommandQueue, World};
    /// let mut world = World::new();
    /// let mut queue = CommandQueue::default();
    /// queue.push(|world: &mut World| { world.spawn(()); });
    /// queue.push(|_: &mut World| panic!("bad command"));
    /// queue.push(|world: &mut World| { world.spawn(()); });
    /// let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.apply(&mut world)));
    /// assert!(applied.is_err());
    /// assert_eq!(world.entity_count(), 1);
    /// assert!(queue.is_empty());
    /// ```
    pub fn apply(&mut self, world: &mut World) {
        world.flush_entities();
        let mut commands = core::mem::take(&mut self.commands).into_iter();
        for command in commands.by_ref() {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| command(world))) {
                let mut panics = PanicSlot::default();
                panics.keep(payload);
                for unrun in commands {
                    panics.drop_value(unrun);
                }
                panics.resume();
                return;
            }
        }
    }
}

impl core::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CommandQueue").field("len", &self.commands.len()).finish()
    }
}

impl CommandQueue {
    /// Moves every command of `other` to the end of this queue.
    pub fn append(&mut self, other: &mut CommandQueue) {
        self.commands.append(&mut other.commands);
    }
}
