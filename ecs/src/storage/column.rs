//! [`Column`]: a type-erased, growable array of one component's values plus their
//! `added`/`changed` ticks.
//!
//! Invariants:
//! * `len() == added.len() == changed.len() <= capacity` (ticks live in two
//!   arrays so that a query stamping `changed` writes one contiguous `u32` stream);
//! * rows `0..len()` hold initialized values (the table initializes a pushed row
//!   before anything can observe it);
//! * the buffer is allocated with `array_layout(capacity)` when that size is non-zero.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::alloc;

use super::tick::{ComponentTicks, Tick, TickCell};

/// A type-erased column. See the module docs for the invariants.
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::storage::{Column, ComponentTicks, Tick};
/// let mut column = Column::new(Layout::new::<u64>(), None);
/// // SAFETY: the pushed slot is initialized right away with a u64.
/// unsafe { column.push_uninit(ComponentTicks::new(Tick::new(1))).cast::<u64>().write(7) };
/// assert_eq!(column.len(), 1);
/// // SAFETY: row 0 holds a u64.
/// assert_eq!(unsafe { *column.get_ptr(0).cast::<u64>().as_ref() }, 7);
/// ```
pub struct Column {
    data: NonNull<u8>,
    capacity: usize,
    item_layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
    added: Vec<TickCell>,
    changed: Vec<TickCell>,
}

// SAFETY: a column only holds values of `Component` types, which are `Send + Sync`;
// the raw buffer is owned by the column.
unsafe impl Send for Column {}
// SAFETY: as above; shared access only reads, and writes through `&Column` require
// exclusive access to the row (upheld by queries' access rules).
unsafe impl Sync for Column {}

impl Column {
    /// An empty column for values of `item_layout`, dropped with `drop`.
    pub fn new(item_layout: Layout, drop: Option<unsafe fn(*mut u8)>) -> Column {
        let item_layout = item_layout.pad_to_align();
        Column {
            data: dangling(item_layout.align()),
            capacity: if item_layout.size() == 0 { usize::MAX } else { 0 },
            item_layout,
            drop,
            added: Vec::new(),
            changed: Vec::new(),
        }
    }

    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.changed.len()
    }

    /// Whether the column has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.item_layout
    }

    /// Makes room for at least `additional` more rows, at least doubling the capacity.
    pub fn reserve(&mut self, additional: usize) {
        let needed = self.len().checked_add(additional).expect("column capacity overflow");
        if needed > self.capacity {
            self.grow_to(needed.max(self.capacity * 2).max(4));
        }
        self.added.reserve(additional);
        self.changed.reserve(additional);
    }

    fn grow_to(&mut self, new_capacity: usize) {
        let new_layout = array_layout(self.item_layout, new_capacity);
        let new_data = if self.capacity == 0 {
            // SAFETY: `new_layout` has a non-zero size (`item_layout.size() > 0` here,
            // since zero-sized columns start with capacity `usize::MAX`, and `new_capacity >= 4`).
            unsafe { alloc::alloc(new_layout) }
        } else {
            let old_layout = array_layout(self.item_layout, self.capacity);
            // SAFETY: `data` was allocated with `old_layout`; the new size is non-zero
            // and does not overflow (checked by `array_layout`).
            unsafe { alloc::realloc(self.data.as_ptr(), old_layout, new_layout.size()) }
        };
        self.data = NonNull::new(new_data).unwrap_or_else(|| alloc::handle_alloc_error(new_layout));
        self.capacity = new_capacity;
    }

    /// Appends a row with uninitialized value and the given ticks; returns the
    /// pointer where the value must be written.
    ///
    /// # Safety
    /// The caller must initialize the value before the column is read, dropped or
    /// moved.
    #[inline]
    pub unsafe fn push_uninit(&mut self, ticks: ComponentTicks) -> NonNull<u8> {
        if self.len() == self.capacity {
            self.reserve(1);
        }
        let row = self.len();
        self.added.push(TickCell::new(ticks.added));
        self.changed.push(TickCell::new(ticks.changed));
        self.get_ptr(row)
    }

    /// The address of `row` (which may be one past the end).
    #[inline]
    pub fn get_ptr(&self, row: usize) -> NonNull<u8> {
        debug_assert!(row <= self.len());
        // SAFETY: `row <= len <= capacity`, so the offset stays inside (or one past)
        // the allocation; for zero-sized values the offset is 0.
        unsafe { self.data.add(row * self.item_layout.size()) }
    }

    /// The start of the value buffer.
    #[inline]
    pub fn data_ptr(&self) -> NonNull<u8> {
        self.data
    }

    /// The `added` ticks, one per row.
    #[inline]
    pub fn added_ticks(&self) -> &[TickCell] {
        &self.added
    }

    /// The `changed` ticks, one per row.
    #[inline]
    pub fn changed_ticks(&self) -> &[TickCell] {
        &self.changed
    }

    /// The ticks of `row`.
    ///
    /// # Panics
    /// Panics if `row` is out of bounds.
    #[inline]
    pub fn ticks(&self, row: usize) -> ComponentTicks {
        ComponentTicks { added: self.added[row].get(), changed: self.changed[row].get() }
    }

    /// Sets the `changed` tick of `row`.
    #[inline]
    pub fn set_changed(&mut self, row: usize, tick: Tick) {
        self.changed[row].set(tick);
    }

    /// Drops the value of `row` in place (the row stays, uninitialized).
    ///
    /// # Safety
    /// `row < len()` and holds an initialized value, which must not be used again
    /// until it is re-initialized or forgotten by a `swap_remove_forget`.
    #[inline]
    pub unsafe fn drop_at(&mut self, row: usize) {
        if let Some(drop) = self.drop {
            // SAFETY: the caller guarantees `row` holds an initialized value.
            unsafe { drop(self.get_ptr(row).as_ptr()) }
        }
    }

    /// Removes `row` without dropping its value, moving the last row into its place.
    ///
    /// # Safety
    /// `row < len()`; the value at `row` must already be moved out or dropped.
    #[inline]
    pub unsafe fn swap_remove_forget(&mut self, row: usize) {
        let last = self.len() - 1;
        if row != last {
            // SAFETY: both rows are in bounds and distinct, so the ranges do not overlap.
            unsafe { copy_value(self.get_ptr(last), self.get_ptr(row), self.item_layout.size()) };
        }
        self.added.swap_remove(row);
        self.changed.swap_remove(row);
    }

    /// Initializes the (uninitialized) `row` with a bitwise copy of `source`'s
    /// `source_row`, value and ticks; the source value is then logically moved out.
    ///
    /// # Safety
    /// `source` stores values of the same layout; `row < len()` is uninitialized;
    /// `source_row < source.len()` holds an initialized value, which the caller
    /// forgets afterwards.
    #[inline]
    pub unsafe fn initialize_from(&mut self, row: usize, source: &Column, source_row: usize) {
        debug_assert_eq!(self.item_layout, source.item_layout);
        debug_assert!(row < self.len() && source_row < source.len());
        // SAFETY: both rows are in bounds of distinct columns (`&mut self` and
        // `&source` cannot alias), and they store values of the same layout.
        unsafe {
            core::ptr::copy_nonoverlapping(
                source.get_ptr(source_row).as_ptr(),
                self.get_ptr(row).as_ptr(),
                self.item_layout.size(),
            );
        }
        self.set_ticks(row, source.ticks(source_row));
    }

    /// Appends a bitwise copy of `source`'s `source_row` (value and ticks); the
    /// source value is then logically moved out.
    ///
    /// # Safety
    /// `source` stores values of the same layout; `source_row < source.len()` holds
    /// an initialized value, which the caller forgets afterwards.
    #[inline]
    pub unsafe fn push_moved_from(&mut self, source: &Column, source_row: usize) {
        debug_assert_eq!(self.item_layout, source.item_layout);
        // SAFETY: the new slot is initialized right away from a value of the same layout.
        unsafe {
            let destination = self.push_uninit(source.ticks(source_row));
            copy_value(source.get_ptr(source_row), destination, self.item_layout.size());
        }
    }

    /// Sets both ticks of `row`.
    #[inline]
    pub fn set_ticks(&mut self, row: usize, ticks: ComponentTicks) {
        self.added[row].set(ticks.added);
        self.changed[row].set(ticks.changed);
    }

    /// Drops every value and empties the column (keeps the allocation).
    pub fn clear(&mut self) {
        let len = self.len();
        // Empty the ticks first: if a drop panics, the remaining values leak
        // instead of being dropped twice.
        self.added.clear();
        self.changed.clear();
        if let Some(drop) = self.drop {
            for row in 0..len {
                // SAFETY: rows `0..len` held initialized values, each dropped once.
                unsafe { drop(self.data.add(row * self.item_layout.size()).as_ptr()) }
            }
        }
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        self.clear();
        if self.item_layout.size() != 0 && self.capacity != 0 {
            // SAFETY: `data` was allocated with this layout by `grow_to`.
            unsafe { alloc::dealloc(self.data.as_ptr(), array_layout(self.item_layout, self.capacity)) }
        }
    }
}

/// Copies one value of `size` bytes between non-overlapping places. Common small
/// sizes are copied inline instead of through a `memcpy` call.
///
/// # Safety
/// Both pointers are valid for `size` bytes and the ranges do not overlap.
#[inline(always)]
unsafe fn copy_value(source: NonNull<u8>, destination: NonNull<u8>, size: usize) {
    let (source, destination) = (source.as_ptr(), destination.as_ptr());
    // SAFETY: guaranteed by the caller; unaligned reads/writes need no alignment.
    unsafe {
        match size {
            4 => destination.cast::<u32>().write_unaligned(source.cast::<u32>().read_unaligned()),
            8 => destination.cast::<u64>().write_unaligned(source.cast::<u64>().read_unaligned()),
            12 => destination.cast::<[u32; 3]>().write_unaligned(source.cast::<[u32; 3]>().read_unaligned()),
            16 => destination.cast::<u128>().write_unaligned(source.cast::<u128>().read_unaligned()),
            _ => core::ptr::copy_nonoverlapping(source, destination, size),
        }
    }
}

/// A dangling pointer aligned to `align` (a valid address for zero-sized values).
#[inline]
pub(crate) fn dangling(align: usize) -> NonNull<u8> {
    NonNull::<u8>::dangling().with_addr(core::num::NonZeroUsize::new(align).expect("alignment is never 0"))
}

/// The layout of `capacity` values of `item` (already padded to its alignment).
///
/// # Panics
/// Panics if the size overflows `isize`.
pub(crate) fn array_layout(item: Layout, capacity: usize) -> Layout {
    let size = item.size().checked_mul(capacity).expect("column capacity overflow");
    Layout::from_size_align(size, item.align()).expect("column capacity overflow")
}
