//! Fresh entity indices shared with other threads: the window counter behind
//! [`RemoteEntities`].
//!
//! The entity index hands out *fresh* indices (never used before) from a window
//! `[next, end)` of its active range, kept in one atomic word shared by the
//! index and every [`RemoteEntities`] handle. Claiming an index is a
//! compare-and-swap that moves `next` up by one, so the world (through
//! `&mut EntityIndex`) and any number of threads (through `&RemoteEntities`)
//! claim indices concurrently without locks and never the same one.
//!
//! The protocol, with `flushed` the index's own mark (see `index.rs`):
//! * every index in `[flushed, next)` was claimed: by the index itself (its record
//!   is in use) or by a reservation that is not alive yet (its record is unused);
//! * every index in `[next, end)` is unused, so claiming needs no look at records;
//! * a flush reads `next` once and makes alive every unused index in
//!   `[flushed, next)`, then sets `flushed` to what it read: a claim that comes
//!   later gets an index at or above it, for the next flush.
//!
//! Switching the range swaps the whole window in one atomic step: a racing
//! claim lands either in the old window (and the switch's flush sees it) or in
//! the new one. Only claims are made from other threads; no other data goes
//! with the counter, so `Relaxed` ordering suffices (read-modify-writes of one
//! atomic are totally ordered).
//!
//! Under `cfg(loom)` the counter uses loom's atomics, so the loom model test
//! (`ecs/tests/loom_reserve.rs`) explores every interleaving of the protocol.

use std::sync::Arc;

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::id::Entity;

/// The packed window `end << 32 | next`.
#[inline]
fn pack(next: u32, end: u32) -> u64 {
    (u64::from(end) << 32) | u64::from(next)
}

/// The `(next, end)` of a packed window.
#[inline]
fn unpack(window: u64) -> (u32, u32) {
    (window as u32, (window >> 32) as u32)
}

/// The shared window of fresh indices (see the module docs).
pub(super) struct FreshIndices {
    /// `end << 32 | next`: fresh indices are `next..end`.
    window: AtomicU64,
    /// The start of the active range, for messages only.
    range_start: AtomicU32,
}

impl FreshIndices {
    /// A window handing out `next..end`, in the range starting at `range_start`.
    pub(super) fn new(range_start: u32, next: u32, end: u32) -> FreshIndices {
        FreshIndices { window: AtomicU64::new(pack(next, end)), range_start: AtomicU32::new(range_start) }
    }

    /// Claims the next fresh index; `None` when the window is used up.
    #[inline]
    pub(super) fn claim(&self) -> Option<u32> {
        let mut window = self.window.load(Ordering::Relaxed);
        loop {
            let (next, end) = unpack(window);
            if next >= end {
                return None;
            }
            match self.window.compare_exchange_weak(window, pack(next + 1, end), Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(next),
                Err(current) => window = current,
            }
        }
    }

    /// Claims every fresh index up to and including `index`, if `index` is still
    /// fresh: `Ok(previous next)`; `Err(next)` if `index` was already claimed.
    ///
    /// The caller guarantees `index < end`.
    pub(super) fn claim_through(&self, index: u32) -> Result<u32, u32> {
        let mut window = self.window.load(Ordering::Relaxed);
        loop {
            let (next, end) = unpack(window);
            debug_assert!(index < end, "claim_through past the window's end");
            if next > index {
                return Err(next);
            }
            match self.window.compare_exchange_weak(window, pack(index + 1, end), Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(next),
                Err(current) => window = current,
            }
        }
    }

    /// The next fresh index (everything below it was claimed).
    #[inline]
    pub(super) fn next(&self) -> u32 {
        unpack(self.window.load(Ordering::Relaxed)).0
    }

    /// The end of the window.
    pub(super) fn end(&self) -> u32 {
        unpack(self.window.load(Ordering::Relaxed)).1
    }

    /// Replaces the window by the one `new(previous next)` computes, atomically;
    /// returns the previous `next` (every index below it in the old window was
    /// claimed).
    pub(super) fn replace(&self, range_start: u32, mut new: impl FnMut(u32) -> (u32, u32)) -> u32 {
        self.range_start.store(range_start, Ordering::Relaxed);
        let mut window = self.window.load(Ordering::Relaxed);
        loop {
            let (old_next, _) = unpack(window);
            let (next, end) = new(old_next);
            match self.window.compare_exchange_weak(window, pack(next, end), Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return old_next,
                Err(current) => window = current,
            }
        }
    }

    /// The active range, as far as claims know it (for messages).
    fn range(&self) -> core::ops::Range<u32> {
        self.range_start.load(Ordering::Relaxed)..self.end()
    }
}

/// A handle that reserves entity ids from any thread while the world is being
/// used, lock-free: `Send + Sync + Clone`, made by `World::remote_entities`.
///
/// A reserved id is final at once (it can be stored, sent, used in commands) but
/// its entity becomes alive, with no components, only at the world's next flush
/// (`World::flush`, which every spawn, insert, remove and despawn runs first).
/// Ids come from the world's active entity range (`World::set_entity_range`),
/// never from recycled indices, so they never collide with ids the world or
/// `Commands` hand out.
///
/// A handle may outlive its world: it then keeps handing out ids that no world
/// will ever make alive (harmless, never undefined behaviour).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let mut world = World::new();
/// let remote = world.remote_entities();
/// let reserved = std::thread::spawn(move || remote.reserve()).join().unwrap();
/// assert!(!world.is_alive(reserved));
/// let e = world.spawn_empty().id(); // spawning flushes first
/// assert!(world.is_alive(reserved));
/// assert_ne!(reserved, e);
/// ```
#[derive(Clone)]
pub struct RemoteEntities {
    fresh: Arc<FreshIndices>,
}

impl RemoteEntities {
    /// A handle claiming from `fresh`.
    pub(super) fn new(fresh: Arc<FreshIndices>) -> RemoteEntities {
        RemoteEntities { fresh }
    }

    /// Reserves a new entity id; its entity is alive after the world's next flush.
    ///
    /// # Panics
    /// Panics, naming the range, if the world's active entity range has no fresh
    /// index left (see [`RemoteEntities::try_reserve`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let remote = world.remote_entities();
    /// let (a, b) = (remote.reserve(), remote.reserve());
    /// assert_ne!(a, b);
    /// world.flush();
    /// assert!(world.is_alive(a) && world.is_alive(b));
    /// ```
    #[track_caller]
    pub fn reserve(&self) -> Entity {
        self.try_reserve().unwrap_or_else(|| {
            panic!("RemoteEntities::reserve: the entity range {:?} has no fresh index left", self.fresh.range())
        })
    }

    /// Reserves a new entity id; `None` if the world's active entity range has
    /// no fresh index left.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// world.set_entity_range(100..102);
    /// let remote = world.remote_entities();
    /// assert_eq!(remote.try_reserve().map(|e| e.index()), Some(100));
    /// assert_eq!(remote.try_reserve().map(|e| e.index()), Some(101));
    /// assert_eq!(remote.try_reserve(), None);
    /// ```
    pub fn try_reserve(&self) -> Option<Entity> {
        self.fresh.claim().map(|index| Entity::from_raw(index, 0))
    }

    /// Reserves `count` new entity ids (see [`RemoteEntities::reserve`]).
    ///
    /// # Panics
    /// As [`RemoteEntities::reserve`], if the range runs out on the way (the ids
    /// reserved before still become alive at the next flush).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let ids = world.remote_entities().reserve_many(3);
    /// world.flush();
    /// assert!(ids.iter().all(|&e| world.is_alive(e)));
    /// ```
    #[track_caller]
    pub fn reserve_many(&self, count: usize) -> Vec<Entity> {
        (0..count).map(|_| self.reserve()).collect()
    }
}

impl core::fmt::Debug for RemoteEntities {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RemoteEntities").field("range", &self.fresh.range()).field("next", &self.fresh.next()).finish()
    }
}
