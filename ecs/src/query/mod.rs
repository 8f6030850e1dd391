//! Typed queries: what to fetch ([`QueryData`]), which entities ([`QueryFilter`]),
//! a cached [`QueryState`] and its iterators, sequential ([`QueryIter`]) and
//! parallel on the rayon pool ([`QueryParIter`]).
//!
//! * Data terms: [`Entity`](crate::entity::Entity), `&T`, `&mut T` (yields
//!   [`Mut<T>`](crate::world::Mut)), `Option<Q>`, [`Has<T>`], tuples up to 16.
//! * Filters: [`With<T>`], [`Without<T>`], [`Or<(..)>`](Or), [`Added<T>`],
//!   [`Changed<T>`], tuples up to 16.
//!
//! Every term knows three things: its *state* (component ids, resolved once), how
//! it matches an archetype (producing a per-archetype *cache*, e.g. a column
//! index) and how it fetches one row. A `QueryState` stores the matched
//! archetypes with their caches and matches new archetypes incrementally
//! (archetypes are append-only; their count is the generation).
//!
//! Sparse components do not fragment archetypes, so terms on them are checked per
//! row; queries made only of table terms and archetypal filters have no per-row
//! branch. Empty tables are skipped before any per-table work.

mod access;
mod access_set;
mod dsl;
mod dynamic;
mod fetch;
mod filter;
mod iter;
mod many;
mod matched;
mod par_iter;
mod state;
mod term;

pub(crate) use access::PAIR_ACCESS_GENERATION;
pub use access::QueryAccess;
pub use access_set::{
    AccessKind, AccessSet, AccessTerm, ConstStr, LABEL_CAPACITY, Label, MAX_ACCESS_TERMS, MESSAGE_CAPACITY, QueryCheck,
    check_query, push_query_label,
};
pub(crate) use access_set::{push_propagate_hint, reads_other_entities};
pub use dsl::{DslError, DslNames, parse_query, print_query};
pub use dynamic::{
    DynGetError, DynIter, DynIterMut, DynQuery, DynRow, DynRowMut, DynTable, DynTableMut, DynTables, DynTablesMut,
    QueryBuildError, QueryBuilder,
};
pub use fetch::{ColumnCache, Has, QueryData, ReadFetch, ReadOnlyQueryData, RefFetch, WorldQuery, WriteFetch};
pub use filter::{Added, Changed, Or, QueryFilter, With, Without};
pub use iter::QueryIter;
pub use many::{QueryCombinationIter, QueryCombinationIterMut};
pub(crate) use matched::union_rows_pass;
pub use par_iter::QueryParIter;
pub(crate) use state::ArchetypeDepths;
pub use state::{QueryError, QuerySingleError, QueryState};
pub use term::{Term, TermAccess, TermMatch, TermOper, TermRef, Traversal};
