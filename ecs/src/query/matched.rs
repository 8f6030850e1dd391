//! What a typed query cache holds per matched archetype ([`MatchedArchetype`]:
//! the terms' caches) and the row filters of `with_pair` on union
//! relationships ([`UnionRowFilter`]): the shared vocabulary of the cache
//! (`state`) and the iterators (`iter`, `par_iter`), below all three.
//!
//! Invariant: a `MatchedArchetype`'s caches were made by its terms'
//! `match_archetype` for that archetype, which is alive while it is listed.

use super::fetch::WorldQuery;
use crate::archetype::{Archetype, ArchetypeId, UnionCell};
use crate::entity::Entity;

/// One matched archetype with the terms' caches.
pub(crate) struct MatchedArchetype<DC, FC> {
    pub(crate) archetype: ArchetypeId,
    pub(crate) data: DC,
    pub(crate) filter: FC,
    /// Whether a term filters this archetype's rows by enabled bits
    /// ([`WorldQuery::checks_toggles`]); always `false` for queries without
    /// toggleable terms.
    pub(crate) toggled: bool,
    /// The one entity of this archetype that matches: the target `B` of a
    /// `with_pair::<IsA>(B)` requirement, matched reflexively in its own
    /// table (whose other rows do not inherit from it). `None`: every row.
    pub(crate) only_entity: Option<Entity>,
}

impl<DC, FC> MatchedArchetype<DC, FC> {
    /// The rows of `entities` (the archetype's) that may match: all of them,
    /// or the row of [`MatchedArchetype::only_entity`] (none if it is not
    /// there), as a range of row indices.
    #[inline]
    pub(crate) fn row_range(&self, entities: &[Entity]) -> core::ops::Range<usize> {
        match self.only_entity {
            None => 0..entities.len(),
            Some(only) => match entities.iter().position(|&entity| entity == only) {
                Some(row) => row..row + 1,
                None => 0..0,
            },
        }
    }
}

impl<DC, FC> MatchedArchetype<DC, FC> {
    /// Whether every row of this archetype passes `D` and `F` without a
    /// per-row check: the terms are dense and none reads enabled bits here.
    /// Constant `D::IS_DENSE && F::IS_DENSE` for queries without toggleable
    /// terms, so their row loops stay free of the check.
    #[inline(always)]
    pub(crate) fn rows_all_pass<D, F>(&self) -> bool
    where
        D: WorldQuery<Cache = DC>,
        F: WorldQuery<Cache = FC>,
    {
        D::IS_DENSE && F::IS_DENSE && (!(D::MAY_TOGGLE || F::MAY_TOGGLE) || !self.toggled)
    }
}

/// The row filter of `with_pair::<R>(target)` for a union relationship `R`:
/// rows whose target of `R` (the union column of `(R, *union*)`) is `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnionRowFilter {
    /// `R`'s entity index.
    pub(crate) relationship: u32,
    /// The target rows must have.
    pub(crate) target: Entity,
}

impl UnionRowFilter {
    /// The union column `archetype` holds for this filter's relationship
    /// (empty if none: no row passes) and the target rows must have.
    #[inline]
    pub(crate) fn rows<'w>(&self, archetype: &'w Archetype) -> (&'w [UnionCell], Entity) {
        (archetype.union_cells(self.relationship).unwrap_or(&[]), self.target)
    }
}

/// Whether `row` passes the per-table union row checks `rows` (pairs of a
/// union column and the target it must hold).
#[inline]
pub(crate) fn union_rows_pass(rows: &[(&[UnionCell], Entity)], row: usize) -> bool {
    rows.iter().all(|&(cells, target)| cells.get(row).is_some_and(|cell| cell.target == target))
}
