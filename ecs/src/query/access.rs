//! [`QueryAccess`]: which components a query reads and writes.
//!
//! A query that writes a component it also reads (or writes twice) would hand
//! out aliasing references, so `QueryState::new` refuses it. (The compile-time
//! checks issue turns this into a const-evaluation error; this runtime check is
//! the safety net for every query, including those built dynamically.)

use smallvec::SmallVec;

use crate::entity::Entity;

/// The reads and writes of one query.
///
/// # Examples
/// ```
/// use ecs::entity::Entity;
/// use ecs::query::QueryAccess;
/// let (a, b) = (Entity::from_raw(5, 0), Entity::from_raw(6, 0));
/// let mut access = QueryAccess::default();
/// access.add_read(a);
/// access.add_write(b);
/// assert_eq!(access.conflict(), None);
/// access.add_read(b);
/// assert_eq!(access.conflict(), Some(b));
/// ```
#[derive(Clone, Default, Debug)]
pub struct QueryAccess {
    reads: SmallVec<[Entity; 4]>,
    writes: SmallVec<[Entity; 4]>,
    tick_reads: SmallVec<[Entity; 2]>,
    conflict: Option<Entity>,
}

impl QueryAccess {
    /// Records a read of `component`.
    pub fn add_read(&mut self, component: Entity) {
        if self.writes.contains(&component) {
            self.conflict.get_or_insert(component);
        }
        self.reads.push(component);
    }

    /// Records a write of `component`.
    pub fn add_write(&mut self, component: Entity) {
        if self.writes.contains(&component) || self.reads.contains(&component) {
            self.conflict.get_or_insert(component);
        }
        self.writes.push(component);
    }

    /// Records that a filter reads `component`'s change ticks (`Added`/`Changed`).
    /// Within one query this never conflicts: the filter reads a row's ticks
    /// before the row is fetched, so even `(&mut T, Changed<T>)` hands out no
    /// aliasing borrow. Other systems writing `component` do conflict with it.
    pub fn add_tick_read(&mut self, component: Entity) {
        self.tick_reads.push(component);
    }

    /// The components whose change ticks are read by filters.
    pub fn tick_reads(&self) -> &[Entity] {
        &self.tick_reads
    }

    /// The first component both written and otherwise accessed, if any.
    pub fn conflict(&self) -> Option<Entity> {
        self.conflict
    }

    /// The components read.
    pub fn reads(&self) -> &[Entity] {
        &self.reads
    }

    /// The components written.
    pub fn writes(&self) -> &[Entity] {
        &self.writes
    }
}
