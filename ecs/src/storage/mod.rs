//! Storage: type-erased columns, SoA tables, sparse sets and change ticks.
//!
//! * [`Column`]: one component's values for every row of a table, as raw bytes
//!   (`Layout` + drop fn), growing by doubling, with `added`/`changed` ticks per row.
//! * [`Table`]: the rows of one archetype: an entity list plus one column per id
//!   that has data. All columns have the table's length and capacity.
//! * [`SparseSet`]: a paged sparse set for `storage = "sparse"` components: values
//!   live in fixed pages indexed by entity index, so they never move while present.
//! * Toggle bits: a column of a toggleable component carries one bit per row
//!   (set while the row's value is disabled); tables without such columns have
//!   no bitset ([`Table::has_toggles`]).
//! * [`Tick`]: the change-detection clock; [`LastRun`] and the age window that
//!   keeps stored ticks from wrapping ([`MAX_CHANGE_AGE`]).
//!
//! This layer knows nothing of ids or archetypes: it stores bytes by row.

mod column;
mod sparse;
mod sparse_sets;
mod table;
mod tick;

pub use column::{Column, DisabledBits};
pub use sparse::SparseSet;
pub use sparse_sets::{SparseSetIndex, SparseSets};
pub use table::Table;
pub use tick::{
    CHECK_TICK_THRESHOLD, ComponentTickCells, ComponentTicks, LastRun, MAX_CHANGE_AGE, Tick, TickCell, WideTick,
};

/// A dangling pointer aligned to `align`: a valid address for zero-sized values.
///
/// # Examples
/// ```
/// assert_eq!(ecs::storage::dangling_ptr(8) as usize % 8, 0);
/// ```
#[inline]
pub fn dangling_ptr(align: usize) -> *mut u8 {
    column::dangling(align).as_ptr()
}
