//! Archetypes, the archetype graph and the component index.
//!
//! * An [`Archetype`] is the sorted list of its ids and the [`Table`] holding the
//!   rows of its entities. Ids with data get a column; zero-sized components and
//!   tag pairs do not (the column map says -1). The id `(R, *union*)` of a
//!   union relationship `R` has a column of `Entity`: each row's target (the
//!   side array of the table), moved, swap-removed and cleared with the row.
//! * The graph: every archetype caches `add[id]` and `remove[id]` edges (a flat
//!   array for low ids, a hash map above), so moving an entity by one id is one
//!   lookup once the edge exists. Creating an edge also creates its reverse.
//! * The [`ComponentIndex`] maps every id, and the wildcard forms `(R, *)`,
//!   `(*, T)` and `*`, to the archetypes containing it, with the position of its
//!   first match in the type, its column and how many ids of the type match.
//!
//! * Empty tables: each [`IdRecord`] lists the archetypes with rows first and
//!   the empty ones after ([`IdRecord::non_empty`], [`IdRecord::empty`]). Rows
//!   are added and removed only through [`Archetypes`] (`push_row`,
//!   [`Archetypes::move_row`], [`Archetypes::remove_row`]), which move an
//!   archetype across the split of each of its records when its table gains its
//!   first row or loses its last (O(1) per record), and stamp when it became
//!   empty ([`Archetype::empty_for`], for garbage collection).
//!
//! * Inheritance: an archetype whose type holds `(IsA, base)` pairs lists the
//!   ids its entities inherit and the base holding each
//!   ([`Archetype::inherited`]); the store tracks every base's archetype and
//!   recomputes the lists when a base moves or dies
//!   ([`Archetypes::inheritance_epoch`]).
//!
//! * Several bases: the order an archetype's entities gained their `(IsA, _)`
//!   pairs decides which base wins a conflict (the first added), so it is
//!   part of the archetype's identity ([`Archetype::base_order`], recorded
//!   only when it is not the type order). Graph edges carry it along; an edge
//!   that changes it has no reverse (removing the first added base and adding
//!   it back puts it last), and the archetype it leads to lists its source so
//!   deleting either forgets the edge.
//!
//! Invariants (checked by [`Archetypes::check_invariants`]): archetype types are
//! sorted, unique per base order, `by_ids` maps every type and order to its archetype, the component
//! index lists exactly the archetypes that contain each id, and each record's
//! split matches the lengths of the tables.
//!
//! Panic safety: row moves and removals finish even when a dropped value's
//! `Drop` panics; the panic is handed back in a
//! [`PanicSlot`](crate::util::PanicSlot) so the world can update its records
//! before it continues.
//!
//! [`Table`]: crate::storage::Table

mod archetypes;
mod component_index;
mod graph;
mod inheritance;

pub use crate::entity::ArchetypeId;
pub use archetypes::{Archetype, ArchetypeFlags, Archetypes, MovePlan, MoveResult, UnionCell, is_union_id};
pub use component_index::{ArchetypeRecord, ComponentIndex, IdRecord};
pub use graph::Edges;
