//! Garbage collection of empty archetypes ([`World::collect_garbage`]).
//!
//! Archetypes are never deleted by moving entities: a table that empties keeps
//! its archetype, its graph edges and its buffers, so refilling it is cheap. A
//! world that tries many combinations of components (or pairs with short-lived
//! targets that are not despawned) piles up empty archetypes, which cost memory,
//! component-index entries and query-cache entries. `collect_garbage` deletes
//! those that have stayed empty long enough.
//!
//! * Age: every call advances the archetypes' garbage-collection epoch
//!   ([`Archetypes::gc_epoch`]); an archetype remembers the epoch at which its
//!   table last became empty (or at which it was created), so "empty for N
//!   calls" is one subtraction and refilling the table resets it, with no
//!   per-call work on each empty archetype.
//! * Candidates: the empty part of the component index's `*` record, so a call
//!   walks the empty archetypes only (the component index keeps empty and
//!   non-empty archetypes apart, see `archetype::component_index`).
//! * Deletion takes the same path as despawn cleanup: [`Archetypes::delete`]
//!   (the archetype leaves the graph, the component index and the type map, and
//!   its slot is reused by the next new archetype), then
//!   [`Bundles::forget_archetype`](crate::bundle::Bundles::forget_archetype)
//!   (bundle edges from and into it). These are the only places in the world
//!   that keep archetype ids besides entity locations; query caches notice the
//!   deletion (`Archetypes::deleted_count`) and drop the entry, and notice a
//!   reused slot (`Archetypes::reused_count`) and match again.
//!
//! Invariants: the empty archetype ([`ArchetypeId::EMPTY`], where fresh and
//! reserved entities live) is never deleted; only archetypes without rows are
//! deleted, so no live entity moves and no value is dropped. Empty internal
//! archetypes may be deleted: nothing in the world keeps their ids, and they are
//! created again (like any archetype) when an entity needs them.

use core::time::Duration;
use std::time::Instant;

use super::World;
use crate::archetype::ArchetypeId;

/// How [`World::collect_garbage`] chooses what to delete.
///
/// The default, `empty_for: 3, max_time: None`, deletes archetypes that stayed
/// empty through three collections: called once per frame, a table that empties
/// and refills from one frame to the next (a state entities pass through) keeps
/// its archetype, edges and buffers, while combinations no longer used go
/// within a few frames. Flecs' `ecs_delete_empty_tables` takes the same
/// "delete after N calls" count.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let config = GcConfig::default();
/// assert_eq!(config.empty_for, 3);
/// assert_eq!(config.max_time, None);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GcConfig {
    /// Delete an archetype once it has been empty for at least this many calls
    /// (the current one included): 1 deletes every archetype that is empty when
    /// the previous call ran, or became empty since; 0 deletes every empty one.
    pub empty_for: u32,
    /// Stop after about this long; the archetypes left go on a later call. The
    /// clock is read every few deletions, so a call deletes a few archetypes
    /// even with `Duration::ZERO`.
    pub max_time: Option<Duration>,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig { empty_for: 3, max_time: None }
    }
}

/// The clock is read after this many deletions (reading it costs about as
/// much as deleting a small archetype).
const DELETIONS_PER_CLOCK_CHECK: usize = 8;

impl World {
    /// Deletes the archetypes that have been empty for at least
    /// `config.empty_for` calls of this method (counting this one), within the
    /// time budget `config.max_time`; returns how many it deleted. See the
    /// module docs of `world::gc`.
    ///
    /// Live entities never move. Cached queries drop the deleted archetypes at
    /// their next update; bundle edges to and from them are forgotten.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u32);
    /// #[derive(Component)]
    /// struct B(u32);
    /// let mut world = World::new();
    /// let e = world.spawn((A(1), B(2))).id();
    /// world.entity_mut(e).remove::<B>(); // (A, B) is empty now
    /// let config = GcConfig { empty_for: 3, max_time: None };
    /// assert_eq!(world.collect_garbage(config), 0); // empty for 1 call
    /// assert_eq!(world.collect_garbage(config), 0); // 2
    /// assert_eq!(world.collect_garbage(config), 1); // 3: deleted
    /// assert_eq!(world.get::<A>(e).unwrap().0, 1);
    /// world.check_invariants();
    /// ```
    pub fn collect_garbage(&mut self, config: GcConfig) -> usize {
        let start = config.max_time.map(|_| Instant::now());
        let epoch = self.archetypes.advance_gc_epoch();
        let doomed: Vec<ArchetypeId> = self
            .archetypes
            .empty_archetypes()
            .filter(|&id| self.archetypes[id].empty_for(epoch).is_some_and(|age| age >= config.empty_for))
            .collect();
        let mut deleted = 0;
        for id in doomed {
            if let (Some(start), Some(max_time)) = (start, config.max_time)
                && deleted % DELETIONS_PER_CLOCK_CHECK == 0
                && deleted != 0
                && start.elapsed() >= max_time
            {
                break;
            }
            self.delete_empty_archetype(id);
            deleted += 1;
        }
        deleted
    }

    /// Deletes the empty archetype `id` (nothing if it is dead already) and
    /// forgets the bundle destinations that lead to it: what collection,
    /// cleanup and relationship trait changes share.
    ///
    /// # Panics
    /// As [`Archetypes::delete`](crate::archetype::Archetypes::delete): if it
    /// holds entities or is the empty archetype.
    pub(super) fn delete_empty_archetype(&mut self, id: ArchetypeId) {
        if !self.archetypes.is_dead(id) {
            debug_assert!(self.archetypes[id].is_empty(), "deleting {id:?}, which still holds entities");
            self.archetypes.delete(id);
            self.bundles.forget_archetype(id);
        }
    }
}
