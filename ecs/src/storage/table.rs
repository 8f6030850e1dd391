//! [`Table`]: the SoA rows of one archetype.
//!
//! Invariants: every column has `capacity` slots, rows `0..entities.len()` of
//! every column are initialized, and row `r` belongs to `entities[r]`. The table
//! owns the length and capacity of all its columns, and their memory: one
//! allocation (`block`, laid out by [`Column::place`] column after column) holds
//! every column's values and ticks. A push checks capacity once and grows every
//! column together (doubling, into a new block: one allocation per growth, not
//! up to three per column). Rows are removed by swap-remove, so
//! removing a row moves the last row (and its entity) into its place; callers
//! update the moved entity's location from the returned handle.
//!
//! Toggleable columns carry a disabled bit per row (see `column`): a removed
//! row's bit is cleared (or overwritten by the bit of the row moved into its
//! place), so new rows start enabled without a write, and tables without such
//! columns ([`Table::has_toggles`]) do no bit work at all.
//!
//! Panic safety: removing or clearing rows drops every value and finishes the
//! removal even when a value's `Drop` panics; the first panic continues after
//! (or is handed to the caller in a [`PanicSlot`]), so a row is never left
//! half-dropped and no value is dropped twice or leaked.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::alloc;

use smallvec::SmallVec;

use super::column::Column;
use super::tick::ComponentTicks;
use crate::entity::Entity;
use crate::util::PanicSlot;

/// The rows of one archetype. See the module docs above.
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
/// // SAFETY: row 0 now holds b's u32.
/// assert_eq!(unsafe { *table.column(0).get_ptr(0).cast::<u32>().as_ref() }, 20);
/// ```
// Declaration order: the entity vector and the column pointer (what a query
// reads per table) come first; see `Archetype`'s layout.
#[repr(C)]
pub struct Table {
    entities: Vec<Entity>,
    columns: Box<[Column]>,
    capacity: usize,
    /// The allocation of every column's buffers ([`Table::block_layout`] for
    /// `capacity`); dangling while that layout's size is 0.
    block: NonNull<u8>,
    /// Whether a column has toggle bits ([`Column::has_toggle_bits`]): only
    /// such tables clear a bit when their last row is removed.
    has_toggles: bool,
}

// SAFETY: `block` is memory the table owns (like a `Vec`'s buffer), holding the
// columns' values, which are `Send + Sync` components (see `Column`).
unsafe impl Send for Table {}
// SAFETY: as above; `&Table` only reads the block (writes through `&Column`
// need exclusive access to the row, upheld by queries' access rules).
unsafe impl Sync for Table {}

impl Table {
    /// A table with the given (empty) columns.
    pub fn new(columns: Vec<Column>) -> Table {
        let has_toggles = columns.iter().any(Column::has_toggle_bits);
        Table {
            entities: Vec::new(),
            columns: columns.into_boxed_slice(),
            capacity: 0,
            block: NonNull::dangling(),
            has_toggles,
        }
    }

    /// Whether a column stores enabled bits ([`Column::has_toggle_bits`]).
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::storage::{Column, Table};
    /// let plain = Table::new(vec![Column::new(Layout::new::<u32>(), None)]);
    /// assert!(!plain.has_toggles());
    /// let toggled = Table::new(vec![Column::new(Layout::new::<u32>(), None).toggleable()]);
    /// assert!(toggled.has_toggles());
    /// ```
    #[inline]
    pub fn has_toggles(&self) -> bool {
        self.has_toggles
    }

    /// Enables or disables the value of `row` in column `column` (nothing if
    /// the column has no toggle bits, [`Column::has_toggle_bits`]).
    ///
    /// # Panics
    /// Panics if `row` is not a row of the table or `column` is out of bounds.
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{Column, ComponentTicks, Table, Tick};
    /// let mut table = Table::new(vec![Column::new(Layout::new::<u16>(), None).toggleable()]);
    /// // SAFETY: the new row's only column is initialized right away.
    /// unsafe {
    ///     let row = table.push_uninit_row(Entity::from_raw(1, 0), ComponentTicks::new(Tick::new(1)));
    ///     table.column(0).get_ptr(row).cast::<u16>().write(3);
    /// }
    /// table.set_enabled(0, 0, false);
    /// // SAFETY: row 0 exists.
    /// assert!(!unsafe { table.column(0).is_enabled(0) });
    /// table.set_enabled(0, 0, true);
    /// // SAFETY: row 0 exists.
    /// assert!(unsafe { table.column(0).is_enabled(0) });
    /// ```
    pub fn set_enabled(&mut self, column: usize, row: usize, enabled: bool) {
        assert!(row < self.len(), "row {row} of a table of {} rows", self.len());
        // SAFETY: `row` is below the length, checked above.
        unsafe { self.columns[column].set_enabled(row, enabled) };
    }

    /// The layout of one allocation holding `columns`' buffers for `capacity`
    /// rows, and each column's region offsets (see [`Column::place`]).
    fn block_layout(columns: &[Column], capacity: usize) -> (Layout, SmallVec<[[usize; 4]; 8]>) {
        let mut layout = Layout::new::<()>();
        let offsets = columns
            .iter()
            .map(|column| {
                let (extended, offsets) = column.place(layout, capacity);
                layout = extended;
                offsets
            })
            .collect();
        (layout, offsets)
    }

    /// Frees the block (the values were dropped or moved out).
    ///
    /// # Safety
    /// `block` was allocated for the columns' layout at `capacity` rows and is
    /// not used again.
    unsafe fn free_block(&mut self) {
        let (layout, _) = Self::block_layout(&self.columns, self.capacity);
        if layout.size() != 0 {
            // SAFETY: allocated with this layout (caller).
            unsafe { alloc::dealloc(self.block.as_ptr(), layout) };
        }
    }

    /// Turns this empty table into one with `columns`, keeping its buffers (and
    /// capacity) when `columns` have the same shape as its own, one by one
    /// ([`Column::same_shape`]); otherwise the old buffers are freed and the table
    /// starts at capacity 0. A re-created archetype of a recycled slot (a
    /// parent's children, say) so skips the allocations of its first rows.
    ///
    /// # Panics
    /// Panics if the table has rows.
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{Column, ComponentTicks, Table, Tick};
    /// let mut table = Table::new(vec![Column::new(Layout::new::<u32>(), None)]);
    /// // SAFETY: the new row's only column is initialized right away.
    /// unsafe {
    ///     let row = table.push_uninit_row(Entity::from_raw(1, 0), ComponentTicks::new(Tick::new(1)));
    ///     table.column(0).get_ptr(row).cast::<u32>().write(5);
    /// }
    /// table.clear();
    /// table.reshape(vec![Column::new(Layout::new::<f32>(), None)]); // same size and alignment
    /// assert_eq!(table.capacity(), 4);
    /// table.reshape(vec![Column::new(Layout::new::<u64>(), None)]);
    /// assert_eq!(table.capacity(), 0);
    /// ```
    pub fn reshape(&mut self, columns: impl IntoIterator<Item = Column>) {
        assert!(self.is_empty(), "reshaping a table that holds {} rows", self.len());
        // Gathered on the stack: a table of the same shape needs no allocation.
        let columns: SmallVec<[Column; 8]> = columns.into_iter().collect();
        let same_shape = self.columns.len() == columns.len()
            && self.columns.iter().zip(&columns).all(|(old, new)| old.same_shape(new));
        if same_shape {
            for (old, new) in self.columns.iter_mut().zip(columns) {
                old.adopt(new);
            }
        } else {
            *self = Table::new(columns.into_vec());
        }
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

    /// Number of rows the columns can hold without growing.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.capacity
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

    /// Column `index`, mutably and without a bounds check: for the bundle
    /// writer, whose slots name the columns of their edge's destination.
    ///
    /// # Safety
    /// `index` is below `self.columns().len()`.
    #[inline]
    pub(crate) unsafe fn column_unchecked_mut(&mut self, index: usize) -> &mut Column {
        debug_assert!(index < self.columns.len(), "column {index} of {} columns", self.columns.len());
        // SAFETY: in bounds, per the caller's contract.
        unsafe { self.columns.get_unchecked_mut(index) }
    }

    /// Column `index`, mutably (crate-private, like [`Table::columns_mut`]).
    ///
    /// # Panics
    /// Panics if `index` is out of bounds.
    #[inline]
    pub(crate) fn column_mut(&mut self, index: usize) -> &mut Column {
        &mut self.columns[index]
    }

    /// The columns, mutably. Crate-private: swapping a column for another would
    /// break the table's capacity bookkeeping, which safe methods rely on.
    #[inline]
    pub(crate) fn columns_mut(&mut self) -> &mut [Column] {
        &mut self.columns
    }

    /// Makes room for `additional` more rows in every column (at least doubling).
    pub fn reserve(&mut self, additional: usize) {
        let needed = self.len().checked_add(additional).expect("table capacity overflow");
        if needed > self.capacity {
            self.grow(needed);
        }
        self.entities.reserve(additional);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, needed: usize) {
        let new_capacity = needed.max(self.capacity * 2).max(4);
        let (layout, offsets) = Self::block_layout(&self.columns, new_capacity);
        let block = if layout.size() == 0 {
            super::column::dangling(layout.align())
        } else {
            // SAFETY: the layout has a non-zero size.
            NonNull::new(unsafe { alloc::alloc(layout) }).unwrap_or_else(|| alloc::handle_alloc_error(layout))
        };
        let len = self.entities.len();
        for (column, offsets) in self.columns.iter_mut().zip(offsets) {
            // SAFETY: `block` has the layout that `place` computed `offsets` in,
            // for more than `len` rows; the old buffers hold `len` rows and are
            // freed right after.
            unsafe { column.relocate(block, offsets, len, new_capacity) };
        }
        // SAFETY: the old block has the layout for `self.capacity` and every
        // value moved out of it.
        unsafe { self.free_block() };
        self.block = block;
        self.capacity = new_capacity;
    }

    /// Appends `entity` with uninitialized values and returns the new row. The
    /// caller then initializes every column's slot at that row (ticks included:
    /// with `Column::set_ticks`, `initialize_from`, or writes).
    ///
    /// # Safety
    /// Every column's value and ticks at the returned row must be initialized
    /// before the table is read, dropped or changed in any other way.
    #[inline]
    pub unsafe fn push_entity(&mut self, entity: Entity) -> usize {
        let row = self.entities.len();
        if row == self.capacity {
            self.grow(row + 1);
        }
        self.entities.push(entity);
        row
    }

    /// Appends a row for `entity` whose values are uninitialized and whose ticks
    /// are `ticks`; returns its index.
    ///
    /// # Safety
    /// The caller must initialize every column's value at the returned row before
    /// the table is read, dropped or changed in any other way.
    #[inline]
    pub unsafe fn push_uninit_row(&mut self, entity: Entity, ticks: ComponentTicks) -> usize {
        // SAFETY: the ticks are set here, the values by the caller.
        unsafe {
            let row = self.push_entity(entity);
            for column in self.columns.iter_mut() {
                column.set_ticks(row, ticks);
            }
            row
        }
    }

    /// Removes `row` without dropping its values (they were moved out); returns the
    /// entity moved into `row` from the end, if any.
    ///
    /// # Safety
    /// `row < len()`, and every value of `row` was moved out or dropped.
    #[inline(always)]
    pub unsafe fn swap_remove_forget(&mut self, row: usize) -> Option<Entity> {
        let last = self.entities.len() - 1;
        if row != last {
            for column in self.columns.iter_mut() {
                // SAFETY: distinct in-bounds rows; `row`'s value is gone (caller).
                unsafe { column.move_within(last, row) };
            }
        } else if self.has_toggles {
            for column in self.columns.iter_mut() {
                // SAFETY: `last` is in bounds; it is forgotten right below.
                unsafe { column.forget_disabled_bit(last) };
            }
        }
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Drops the values of `row` and removes it; returns the entity moved into
    /// `row` from the end, if any. If a value's `Drop` panics, the other values
    /// are still dropped and the row removed, then the first panic continues.
    ///
    /// # Safety
    /// `row < len()` and every column's value at `row` is initialized.
    #[inline]
    pub unsafe fn swap_remove_drop(&mut self, row: usize) -> Option<Entity> {
        let mut panics = PanicSlot::default();
        // SAFETY: forwarded to the caller.
        let swapped = unsafe { self.swap_remove_drop_catching(row, &mut panics) };
        panics.resume();
        swapped
    }

    /// [`Table::swap_remove_drop`], keeping a panic of a value's `Drop` in
    /// `panics`: the row is removed either way.
    ///
    /// # Safety
    /// As [`Table::swap_remove_drop`].
    #[inline]
    pub(crate) unsafe fn swap_remove_drop_catching(&mut self, row: usize, panics: &mut PanicSlot) -> Option<Entity> {
        for column in self.columns.iter_mut() {
            // SAFETY: `row` is initialized (caller) and forgotten right after.
            unsafe { column.drop_at_catching(row, panics) };
        }
        // SAFETY: every value of `row` was just dropped.
        unsafe { self.swap_remove_forget(row) }
    }

    /// Drops every value and removes every row (keeps the capacity). If a
    /// value's `Drop` panics, the others are still dropped (and the rows
    /// removed), then the first panic continues.
    pub fn clear(&mut self) {
        let len = self.entities.len();
        // Forget the rows first: nothing can see them while they are dropped.
        self.entities.clear();
        let mut panics = PanicSlot::default();
        for column in self.columns.iter_mut() {
            // SAFETY: `len` is at most the capacity; the rows are forgotten.
            unsafe { column.forget_disabled_bits(len) };
            // SAFETY: rows `0..len` were initialized and are now forgotten by the
            // table; `drop_rows` drops each once, even if some panic.
            panics.catch(|| unsafe { column.drop_rows(len) });
        }
        panics.resume();
    }

    /// Clamps every row's ticks to the age window relative to `now` (see
    /// [`Tick::check_tick`](super::Tick::check_tick)).
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{Column, ComponentTicks, MAX_CHANGE_AGE, Table, Tick};
    /// let mut table = Table::new(vec![Column::new(Layout::new::<u32>(), None)]);
    /// // SAFETY: the new row's only column is initialized right away.
    /// unsafe {
    ///     let row = table.push_uninit_row(Entity::from_raw(1, 0), ComponentTicks::new(Tick::new(1)));
    ///     table.column(0).get_ptr(row).cast::<u32>().write(5);
    /// }
    /// let now = Tick::new(MAX_CHANGE_AGE + 2);
    /// table.check_change_ticks(now);
    /// // SAFETY: row 0 exists.
    /// assert_eq!(unsafe { table.column(0).ticks(0) }.added, Tick::new(2));
    /// ```
    pub fn check_change_ticks(&mut self, now: super::Tick) {
        let len = self.entities.len();
        for column in self.columns.iter_mut() {
            // SAFETY: `len` is the table's length.
            unsafe { column.check_ticks(len, now) };
        }
    }

    /// Verifies that the table's length fits its capacity.
    ///
    /// # Panics
    /// Panics if it does not.
    pub fn check_invariants(&self) {
        assert!(
            self.entities.len() <= self.capacity || self.columns.is_empty(),
            "table holds {} rows but its columns only {}",
            self.entities.len(),
            self.capacity
        );
        for (index, column) in self.columns.iter().enumerate() {
            // SAFETY: the length is at most the capacity (checked above).
            let stray = unsafe { column.has_stray_disabled_bits(self.entities.len(), self.capacity) };
            assert!(!stray, "column {index} has a disabled bit past the table's {} rows", self.entities.len());
        }
        assert_eq!(
            self.has_toggles,
            self.columns.iter().any(Column::has_toggle_bits),
            "the table's toggle flag disagrees with its columns"
        );
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let mut panics = PanicSlot::default();
        panics.catch(|| self.clear());
        // SAFETY: the block has the layout for `capacity`; every value was
        // dropped (or its `Drop` panicked, which counts as dropped).
        unsafe { self.free_block() };
        panics.resume();
    }
}
