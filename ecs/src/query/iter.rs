//! [`QueryIter`]: walks the matched archetypes of a `QueryState`, row by row.
//!
//! Per table it sets the fetches once (column pointers) and decides whether
//! its rows need any check (`fast_end`); per row it only indexes.
//! `next` is inline and makes no call (the move to the next table included), so
//! a `for` loop over it keeps its accumulators in registers.
//! Empty tables are skipped before any per-table work. When every term is dense
//! (table components, archetypal filters) there is no per-row check; `fold` (and
//! so `for_each`) runs a tight inner loop per table. A query with a term on a
//! toggleable component decides per table, when it enters it, whether its rows
//! need the enabled-bit check (`MatchedArchetype::rows_all_pass`); a query
//! without such a term has no toggle check at all (a constant condition).
//! The row filters of `with_pair` on union relationships (module `state`)
//! compare each row's target; queries without them never look.

use core::iter::FusedIterator;
use core::ops::Range;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::matched::{MatchedArchetype, UnionRowFilter, union_rows_pass};
use crate::archetype::{Archetype, Archetypes, UnionCell};
use crate::entity::Entity;
use crate::storage::Tick;
use crate::world::World;

/// The iterator of a query: yields `D`'s items for rows that pass `F`.
pub struct QueryIter<'w, 's, D: QueryData, F: QueryFilter> {
    archetypes: &'w Archetypes,
    matched: core::slice::Iter<'s, MatchedArchetype<D::Cache, F::Cache>>,
    data: D::Fetch<'w>,
    filter: F::Fetch<'w>,
    entities: &'w [Entity],
    row: usize,
    /// Rows of the current table below this need no check at all (no row
    /// term, toggle or union filter to test): the table's length when every
    /// row passes as it is, else 0. `next`'s fast path compares the row with
    /// it and nothing else, so its loop carries no other state.
    fast_end: usize,
    /// Whether every row of the current table passes without a check.
    rows_all_pass: bool,
    /// The query's union row filters; per table, the first one's union
    /// column and target, and the table for the others (rare: looked up per
    /// row). Plain references, so the iterator has no drop glue and its
    /// borrow of the world ends with its last use.
    union_filters: &'s [UnionRowFilter],
    union_rows: (&'w [UnionCell], Entity),
    archetype: Option<&'w Archetype>,
}

impl<'w, 's, D: QueryData, F: QueryFilter> QueryIter<'w, 's, D, F> {
    /// # Safety
    /// The caller guarantees `D`'s access is allowed on `world` for `'w`.
    pub(crate) unsafe fn new(
        world: &'w World,
        matched: &'s [MatchedArchetype<D::Cache, F::Cache>],
        data_state: &'s D::State,
        filter_state: &'s F::State,
        union_filters: &'s [UnionRowFilter],
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryIter {
            archetypes: world.archetypes(),
            matched: matched.iter(),
            data: D::init_fetch(world, data_state, last_run, this_run),
            filter: F::init_fetch(world, filter_state, last_run, this_run),
            entities: &[],
            row: 0,
            fast_end: 0,
            rows_all_pass: D::IS_DENSE && F::IS_DENSE,
            union_filters,
            union_rows: (&[], Entity::PLACEHOLDER),
            archetype: None,
        }
    }

    /// An iterator over rows `rows` of the table of `matched[0]` only: one
    /// batch of a parallel iteration (`matched` holds that one entry).
    ///
    /// # Safety
    /// As [`QueryIter::new`]; `rows` lie within the table.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn batch(
        world: &'w World,
        matched: &'s [MatchedArchetype<D::Cache, F::Cache>],
        data_state: &'s D::State,
        filter_state: &'s F::State,
        union_filters: &'s [UnionRowFilter],
        last_run: Tick,
        this_run: Tick,
        rows: Range<usize>,
    ) -> Self {
        // SAFETY: forwarded to the caller.
        let mut iter =
            unsafe { QueryIter::new(world, matched, data_state, filter_state, union_filters, last_run, this_run) };
        if iter.next_table() {
            // Within what the table itself allows (one row, for a reflexive match).
            let end = rows.end.min(iter.entities.len());
            iter.entities = &iter.entities[..end];
            iter.fast_end = iter.fast_end.min(end);
            iter.row = rows.start.max(iter.row);
        }
        iter
    }

    /// Moves to the next non-empty matched table; `false` when none is left.
    #[inline(always)]
    fn next_table(&mut self) -> bool {
        for matched in self.matched.by_ref() {
            // SAFETY: matched ids come from this world's archetypes.
            let archetype = unsafe { self.archetypes.get_unchecked(matched.archetype) };
            if archetype.is_empty() {
                continue;
            }
            // SAFETY: the caches were produced by `match_archetype` for this archetype.
            unsafe {
                D::set_archetype(&mut self.data, &matched.data, archetype);
                F::set_archetype(&mut self.filter, &matched.filter, archetype);
            }
            self.entities = archetype.entities();
            self.row = 0;
            if matched.only_entity.is_some() {
                // One row of this table matches: iterate just that one.
                let rows = matched.row_range(self.entities);
                self.entities = &self.entities[..rows.end];
                self.row = rows.start;
            }
            if D::MAY_TOGGLE || F::MAY_TOGGLE {
                // A toggled table whose values are all enabled (one test per
                // 64 rows) runs the check-free loop too.
                // SAFETY: the fetches were just set to this table, of this length.
                self.rows_all_pass = matched.rows_all_pass::<D, F>()
                    || (D::IS_DENSE
                        && F::IS_DENSE
                        && unsafe {
                            D::matches_every_row(&self.data, self.entities.len())
                                && F::matches_every_row(&self.filter, self.entities.len())
                        });
            }
            if let Some(first) = self.union_filters.first() {
                self.union_rows = first.rows(archetype);
                self.archetype = Some(archetype);
            }
            self.fast_end =
                if self.table_rows_all_pass() && self.union_filters.is_empty() { self.entities.len() } else { 0 };
            return true;
        }
        false
    }

    /// Whether every row of the current table passes without a check: a
    /// constant unless the query has toggleable terms.
    #[inline(always)]
    fn table_rows_all_pass(&self) -> bool {
        D::IS_DENSE && F::IS_DENSE && (!(D::MAY_TOGGLE || F::MAY_TOGGLE) || self.rows_all_pass)
    }

    /// Whether `row` passes the terms' row checks (not the union filters).
    #[inline(always)]
    fn terms_pass(&self, entity: Entity, row: usize) -> bool {
        // SAFETY: `row` is a row of the current table.
        self.table_rows_all_pass()
            || unsafe { D::matches_row(&self.data, entity, row) && F::matches_row(&self.filter, entity, row) }
    }

    #[inline(always)]
    fn row_passes(&self, entity: Entity, row: usize) -> bool {
        self.terms_pass(entity, row) && (self.union_filters.is_empty() || self.union_filters_pass(row))
    }

    /// Whether `row` has the target of every union row filter.
    #[inline]
    fn union_filters_pass(&self, row: usize) -> bool {
        union_rows_pass(&[self.union_rows], row)
            && self.union_filters[1..].iter().all(|filter| match self.archetype {
                Some(archetype) => union_rows_pass(&[filter.rows(archetype)], row),
                None => false,
            })
    }

    /// [`Iterator::next`] past its inline case: rows that need a check, and
    /// the move to the next non-empty table.
    #[inline(always)]
    fn next_checked(&mut self) -> Option<D::Item<'w>> {
        loop {
            let row = self.row;
            if row < self.entities.len() {
                self.row = row + 1;
                // SAFETY: `row < len`.
                let entity = unsafe { *self.entities.get_unchecked(row) };
                if self.row_passes(entity, row) {
                    // SAFETY: `row` is in the current table and passed the row checks;
                    // each row is yielded once, so `&mut` items never alias.
                    return Some(unsafe { D::fetch(&mut self.data, entity, row) });
                }
                continue;
            }
            if !self.next_table() {
                return None;
            }
        }
    }
}

impl<D: QueryData, F: QueryFilter> QueryIter<'_, '_, D, F> {
    /// How many items are left, counted by running the iterator out (Bevy's
    /// `query.iter().len()`; exact whatever the terms: rows checked one by one
    /// are counted too, so it is O(rows) where the size hint is not exact).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..3).map(|h| (Health(h),)));
    /// assert_eq!(world.query::<&Health>().iter(&world).len(), 3);
    /// ```
    pub fn len(self) -> usize {
        match self.size_hint() {
            (lower, Some(upper)) if lower == upper => lower,
            _ => self.count(),
        }
    }

    /// Whether no item is left (consumes the iterator, as [`QueryIter::len`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// assert!(world.query::<&Health>().iter(&world).is_empty());
    /// ```
    pub fn is_empty(mut self) -> bool {
        self.next().is_none()
    }
}

impl<'w, D: QueryData, F: QueryFilter> Iterator for QueryIter<'w, '_, D, F> {
    type Item = D::Item<'w>;

    #[inline(always)]
    fn next(&mut self) -> Option<D::Item<'w>> {
        // The common case first (a row of the current table that needs no
        // check), then row checks and the move to the next table, inline as
        // well: no call, so a caller's loop keeps its accumulators in
        // registers.
        let row = self.row;
        if row < self.fast_end {
            self.row = row + 1;
            // SAFETY: `fast_end <= len`.
            let entity = unsafe { *self.entities.get_unchecked(row) };
            // SAFETY: as in `next_checked`; every row of the table passes.
            return Some(unsafe { D::fetch(&mut self.data, entity, row) });
        }
        self.next_checked()
    }

    #[inline]
    fn fold<B, Func>(mut self, init: B, mut func: Func) -> B
    where
        Func: FnMut(B, Self::Item) -> B,
    {
        let mut accumulator = init;
        loop {
            let entities = self.entities;
            // The union filters are decided per table, out of the row loop.
            if self.table_rows_all_pass() && self.union_filters.is_empty() {
                for (row, &entity) in entities.iter().enumerate().skip(self.row) {
                    // SAFETY: as in `next`; every row of the table passes.
                    accumulator = func(accumulator, unsafe { D::fetch(&mut self.data, entity, row) });
                }
            } else {
                for (row, &entity) in entities.iter().enumerate().skip(self.row) {
                    if self.row_passes(entity, row) {
                        // SAFETY: as in `next`.
                        accumulator = func(accumulator, unsafe { D::fetch(&mut self.data, entity, row) });
                    }
                }
            }
            self.row = entities.len();
            if !self.next_table() {
                return accumulator;
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let current = self.entities.len().saturating_sub(self.row);
        let rest: usize = self
            .matched
            .clone()
            .map(|matched| matched.row_range(self.archetypes[matched.archetype].entities()).len())
            .sum();
        if D::IS_DENSE && F::IS_DENSE && !(D::MAY_TOGGLE || F::MAY_TOGGLE) && self.union_filters.is_empty() {
            (current + rest, Some(current + rest))
        } else {
            // Rows checked one by one (sparse, toggleable, union filters):
            // at most every row of the matched tables.
            (0, Some(current + rest))
        }
    }
}

impl<D: QueryData, F: QueryFilter> FusedIterator for QueryIter<'_, '_, D, F> {}

impl<D: QueryData, F: QueryFilter> core::fmt::Debug for QueryIter<'_, '_, D, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryIter").field("row", &self.row).finish()
    }
}
