//! [`QueryParIter`]: a query's rows split into batches run on the rayon pool.
//!
//! The matched tables are cut into batches of at most `batch_size` rows (by
//! default a quarter of an even share per pool thread, like Bevy's batching);
//! each batch builds its own fetch, so no per-row state is shared between
//! threads. Batches never overlap, so every row (and every `&mut` item) is
//! produced exactly once; change ticks are per row, so `Changed` stays exact
//! under parallel writes. Iteration order across batches is unspecified (a
//! `cascade` order is not kept).

use rayon::prelude::*;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::matched::{MatchedArchetype, UnionRowFilter};
use crate::storage::Tick;
use crate::world::World;

/// A parallel iteration over a query; run it with [`QueryParIter::for_each`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// world.spawn_batch((0..1000).map(|_| (Health(1),)));
/// let mut query = world.query::<&mut Health>();
/// query.par_iter_mut(&mut world).for_each(|mut health| health.0 += 1);
/// assert!(query.iter(&world).all(|health| health.0 == 2));
/// ```
pub struct QueryParIter<'w, 's, D: QueryData, F: QueryFilter> {
    world: &'w World,
    matched: &'s [MatchedArchetype<D::Cache, F::Cache>],
    data_state: &'s D::State,
    filter_state: &'s F::State,
    union_filters: &'s [UnionRowFilter],
    last_run: Tick,
    this_run: Tick,
    batch_size: Option<usize>,
}

/// One batch: rows `start..end` of the table of `matched[matched_index]`.
#[derive(Clone, Copy)]
struct Batch {
    matched_index: usize,
    start: usize,
    end: usize,
}

impl<'w, 's, D: QueryData, F: QueryFilter> QueryParIter<'w, 's, D, F> {
    /// # Safety
    /// `D`'s access is allowed on `world` for `'w` (as for `QueryIter::new`).
    pub(crate) unsafe fn new(
        world: &'w World,
        matched: &'s [MatchedArchetype<D::Cache, F::Cache>],
        data_state: &'s D::State,
        filter_state: &'s F::State,
        union_filters: &'s [UnionRowFilter],
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryParIter { world, matched, data_state, filter_state, union_filters, last_run, this_run, batch_size: None }
    }

    /// Sets the most rows one batch holds (at least 1); by default the rows are
    /// split into about four batches per pool thread.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(|_| (Health(1),)));
    /// let mut query = world.query::<&mut Health>();
    /// query.par_iter_mut(&mut world).batch_size(8).for_each(|mut health| health.0 *= 3);
    /// assert_eq!(query.iter(&world).map(|health| health.0).sum::<u32>(), 300);
    /// ```
    pub fn batch_size(mut self, rows: usize) -> Self {
        self.batch_size = Some(rows.max(1));
        self
    }

    /// Calls `func` on every item, in parallel on the rayon pool (on the calling
    /// thread when the pool has one thread or the rows fit in one batch).
    pub fn for_each<Func>(self, func: Func)
    where
        Func: Fn(D::Item<'w>) + Send + Sync,
    {
        let archetypes = self.world.archetypes();
        let total: usize = self.matched.iter().map(|matched| archetypes[matched.archetype].len()).sum();
        if total == 0 {
            return;
        }
        let threads = rayon::current_num_threads();
        let batch_size = self.batch_size.unwrap_or_else(|| total.div_ceil(threads * 4)).max(1);
        if threads <= 1 || total <= batch_size {
            for matched_index in 0..self.matched.len() {
                let end = archetypes[self.matched[matched_index].archetype].len();
                self.run_batch(Batch { matched_index, start: 0, end }, &func);
            }
            return;
        }
        let mut batches = Vec::with_capacity(total.div_ceil(batch_size) + self.matched.len());
        for (matched_index, matched) in self.matched.iter().enumerate() {
            let len = archetypes[matched.archetype].len();
            let mut start = 0;
            while start < len {
                let end = (start + batch_size).min(len);
                batches.push(Batch { matched_index, start, end });
                start = end;
            }
        }
        batches.par_iter().for_each(|&batch| self.run_batch(batch, &func));
    }

    /// Runs `func` over one batch with a fetch of its own (a `QueryIter`
    /// over the batch's rows, so the row loop is the sequential one).
    #[inline]
    fn run_batch<Func: Fn(D::Item<'w>)>(&self, batch: Batch, func: &Func) {
        if batch.start == batch.end {
            return;
        }
        let matched = &self.matched[batch.matched_index..=batch.matched_index];
        // SAFETY: the access is the caller's (`new`); batches never overlap, so
        // each row's item is produced once and `&mut` items never alias.
        let rows = unsafe {
            QueryIter::<D, F>::batch(
                self.world,
                matched,
                self.data_state,
                self.filter_state,
                self.union_filters,
                self.last_run,
                self.this_run,
                batch.start..batch.end,
            )
        };
        rows.for_each(func);
    }
}

impl<D: QueryData, F: QueryFilter> core::fmt::Debug for QueryParIter<'_, '_, D, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryParIter").field("batch_size", &self.batch_size).finish()
    }
}
