//! [`Table`]: the SoA rows of one archetype.
//!
//! Invariants: every column has exactly `entities.len()` rows, and row `r` of each
//! column belongs to `entities[r]`. Rows are removed by swap-remove, so removing a
//! row moves the last row (and its entity) into its place; callers update the
//! moved entity's location from the returned handle.

use super::column::Column;
use super::tick::ComponentTicks;
use crate::entity::Entity;

/// The rows of one archetype. See the module docs.
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::entity::Entity;
/// use ecs::storage::{Column, ComponentTicks, Table, Tick};
/// let mut table = Table::new(vec![Column::new(Layout::new::<u32>(), None)]);
/// let (a, b) = (Entity::from_raw(1, 0), Entity::from_raw(2, 0));
/// for (entity, value) in [(a, 10_u32), (b, 20)] {
///     // SAFETY: the new row's only column is initialized right away.
///     unsafe {
///         let row = table.push_uninit_row(entity, ComponentTicks::new(Tick::new(1)));
///         table.column(0).get_ptr(row).cast::<u32>().write(value);
///     }
/// }
/// // SAFETY: row 0 exists; its values are dropped (u32: nothing to do).
/// let moved = unsafe { table.swap_remove_drop(0) };
/// assert_eq!(moved, Some(b));
/// assert_eq!(table.entities(), &[b]);
/// table.check_invariants();
/// ```
pub struct Table {
    entities: Vec<Entity>,
    columns: Box<[Column]>,
}

impl Table {
    /// A table with the given (empty) columns.
    pub fn new(columns: Vec<Column>) -> Table {
        Table { entities: Vec::new(), columns: columns.into_boxed_slice() }
    }

    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the table has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entity of every row.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The columns.
    #[inline]
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Column `index`.
    ///
    /// # Panics
    /// Panics if `index` is out of bounds.
    #[inline]
    pub fn column(&self, index: usize) -> &Column {
        &self.columns[index]
    }

    /// Column `index`, mutably.
    ///
    /// # Panics
    /// Panics if `index` is out of bounds.
    #[inline]
    pub fn column_mut(&mut self, index: usize) -> &mut Column {
        &mut self.columns[index]
    }

    /// Makes room for `additional` more rows in every column.
    pub fn reserve(&mut self, additional: usize) {
        self.entities.reserve(additional);
        for column in self.columns.iter_mut() {
            column.reserve(additional);
        }
    }

    /// Appends a row for `entity` whose values are uninitialized (ticks set to
    /// `ticks`) and returns its index.
    ///
    /// # Safety
    /// The caller must initialize every column's value at the returned row before
    /// the table is read, dropped or changed in any other way.
    #[inline]
    pub unsafe fn push_uninit_row(&mut self, entity: Entity, ticks: ComponentTicks) -> usize {
        let row = self.entities.len();
        self.entities.push(entity);
        for column in self.columns.iter_mut() {
            // SAFETY: forwarded to the caller.
            unsafe { column.push_uninit(ticks) };
        }
        row
    }

    /// Appends `entity` to the entity list only: the caller pushes exactly one
    /// value onto every column right after (`push_uninit`/`push_moved_from`).
    ///
    /// # Safety
    /// Until every column has one more row, the table breaks its invariant and must
    /// not be used otherwise.
    #[inline]
    pub unsafe fn push_entity(&mut self, entity: Entity) -> usize {
        self.entities.push(entity);
        self.entities.len() - 1
    }

    /// Removes `row` without dropping its values (they were moved out); returns the
    /// entity moved into `row` from the end, if any.
    ///
    /// # Safety
    /// `row < len()`, and every value of `row` was moved out or dropped.
    #[inline]
    pub unsafe fn swap_remove_forget(&mut self, row: usize) -> Option<Entity> {
        for column in self.columns.iter_mut() {
            // SAFETY: forwarded to the caller.
            unsafe { column.swap_remove_forget(row) };
        }
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Drops the values of `row` and removes it; returns the entity moved into
    /// `row` from the end, if any.
    ///
    /// # Safety
    /// `row < len()` and every column's value at `row` is initialized.
    #[inline]
    pub unsafe fn swap_remove_drop(&mut self, row: usize) -> Option<Entity> {
        for column in self.columns.iter_mut() {
            // SAFETY: `row` is in bounds and initialized (caller), and it is
            // forgotten right after.
            unsafe {
                column.drop_at(row);
                column.swap_remove_forget(row);
            }
        }
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Drops every value and removes every row.
    pub fn clear(&mut self) {
        self.entities.clear();
        for column in self.columns.iter_mut() {
            column.clear();
        }
    }

    /// Verifies that every column has one row per entity.
    ///
    /// # Panics
    /// Panics naming the first column whose length differs.
    pub fn check_invariants(&self) {
        for (index, column) in self.columns.iter().enumerate() {
            assert_eq!(
                column.len(),
                self.entities.len(),
                "column {index} has {} rows but the table has {} entities",
                column.len(),
                self.entities.len()
            );
        }
    }
}
