//! [`Column`]: one component's values for the rows of a table, as raw bytes
//! (`Layout` + drop fn), with `added`/`changed` ticks per row.
//!
//! A column does not know its own length or capacity: its [`Table`](super::Table)
//! owns both for all its columns at once, so pushing a row is one capacity check
//! per table and one write per buffer, and removing a row is one length update.
//! The ticks live in two arrays so that a query stamping `changed` writes one
//! contiguous `u32` stream. A column of a component without change detection
//! (`#[component(change_detection = false)]`, see [`Column::untracked`]) has no
//! tick buffers at all: reading its ticks gives zero ticks and setting them does
//! nothing, so moves, spawns and writes touch only the values.
//!
//! A column of a toggleable component (`#[component(toggle)]`, see
//! [`Column::toggleable`]) also has a bitset with one bit per row, set while
//! the row's value is *disabled*; other columns have no bitset (an empty
//! region) and never look at one. Storing "disabled" rather than "enabled"
//! makes a fresh row enabled with no write: a bit travels with its value
//! (`initialize_from`, `move_within`) and is cleared when its row is forgotten.
//!
//! Invariants (kept by the table): the buffers hold `capacity` slots; they are
//! regions of the table's one allocation, laid out by [`Column::place`] (values,
//! then the two tick arrays, which are empty when the column is untracked,
//! then the disabled bits, empty unless the column is toggleable); rows
//! `0..len` hold initialized values and, when tracked, ticks; the disabled bit
//! of every row at or past `len` is 0. A column owns no memory: its table
//! allocates, moves and frees the buffers of all its columns at once.
//!
//! Panic safety: a value's `Drop` may panic. The `_catching` drops keep the
//! panic in a [`PanicSlot`] (the value counts as dropped), so that the table
//! finishes its operation before the panic continues.

use core::alloc::Layout;
use core::ptr::NonNull;

use super::tick::{ComponentTicks, Tick, TickCell};
use crate::util::PanicSlot;

/// A type-erased column of a [`Table`](super::Table). See the module docs above.
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::entity::Entity;
/// use ecs::storage::{Column, ComponentTicks, Table, Tick};
/// let mut table = Table::new(vec![Column::new(Layout::new::<u64>(), None)]);
/// // SAFETY: the new row's only column is initialized right away with a u64.
/// let row = unsafe {
///     let row = table.push_uninit_row(Entity::from_raw(1, 0), ComponentTicks::new(Tick::new(1)));
///     table.column(0).get_ptr(row).cast::<u64>().write(7);
///     row
/// };
/// let column = table.column(0);
/// // SAFETY: `row` holds a u64 and is in bounds.
/// unsafe {
///     assert_eq!(*column.get_ptr(row).cast::<u64>().as_ref(), 7);
///     assert_eq!(column.ticks(row).added, Tick::new(1));
/// }
/// ```
// One cache line per column, pointers first: a query setting up a table reads
// `data` and the tick pointers from a single line.
#[repr(C, align(64))]
pub struct Column {
    data: NonNull<u8>,
    added: NonNull<TickCell>,
    changed: NonNull<TickCell>,
    /// The disabled bits, one per row in `u64` words (dangling unless `toggle`).
    disabled: NonNull<u64>,
    item_layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
    /// Whether the column has tick buffers (the component has change detection).
    tracked: bool,
    /// Whether the column has a disabled bitset (the component is toggleable).
    toggle: bool,
}

// SAFETY: a column only holds values of `Component` types, which are `Send + Sync`,
// in buffers of its table.
unsafe impl Send for Column {}
// SAFETY: as above; shared access only reads, and writes through `&Column` require
// exclusive access to the row (upheld by queries' access rules).
unsafe impl Sync for Column {}

impl Column {
    /// An empty column (capacity 0) for values of `item_layout`, dropped with
    /// `drop`, with `added`/`changed` ticks per row.
    pub fn new(item_layout: Layout, drop: Option<unsafe fn(*mut u8)>) -> Column {
        let item_layout = item_layout.pad_to_align();
        Column {
            data: dangling(item_layout.align()),
            added: NonNull::dangling(),
            changed: NonNull::dangling(),
            disabled: NonNull::dangling(),
            item_layout,
            drop,
            tracked: true,
            toggle: false,
        }
    }

    /// An empty column like [`Column::new`] but without tick buffers, for a
    /// component without change detection: [`Column::ticks`] reads zero ticks and
    /// [`Column::set_ticks`] does nothing.
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::storage::Column;
    /// let column = Column::untracked(Layout::new::<f32>(), None);
    /// assert!(!column.has_ticks());
    /// assert!(Column::new(Layout::new::<f32>(), None).has_ticks());
    /// ```
    pub fn untracked(item_layout: Layout, drop: Option<unsafe fn(*mut u8)>) -> Column {
        Column { tracked: false, ..Column::new(item_layout, drop) }
    }

    /// Whether the column stores `added`/`changed` ticks per row.
    #[inline]
    pub fn has_ticks(&self) -> bool {
        self.tracked
    }

    /// This empty column with a disabled bit per row, for a toggleable
    /// component: rows start enabled ([`Column::is_enabled`],
    /// [`Table::set_enabled`](super::Table::set_enabled)).
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::storage::Column;
    /// let column = Column::new(Layout::new::<f32>(), None).toggleable();
    /// assert!(column.has_toggle_bits());
    /// assert!(!Column::new(Layout::new::<f32>(), None).has_toggle_bits());
    /// ```
    pub fn toggleable(self) -> Column {
        Column { toggle: true, ..self }
    }

    /// Whether the column stores an enabled bit per row (its component is
    /// toggleable).
    #[inline]
    pub fn has_toggle_bits(&self) -> bool {
        self.toggle
    }

    /// Whether `row`'s value is enabled (always, for a column without toggle
    /// bits).
    ///
    /// # Safety
    /// `row` is below the table's capacity.
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{Column, ComponentTicks, Table, Tick};
    /// let mut table = Table::new(vec![Column::new(Layout::new::<u32>(), None).toggleable()]);
    /// // SAFETY: the new row's only column is initialized right away.
    /// unsafe {
    ///     let row = table.push_uninit_row(Entity::from_raw(1, 0), ComponentTicks::new(Tick::new(1)));
    ///     table.column(0).get_ptr(row).cast::<u32>().write(7);
    ///     assert!(table.column(0).is_enabled(row)); // new rows start enabled
    ///     table.set_enabled(0, row, false);
    ///     assert!(!table.column(0).is_enabled(row));
    /// }
    /// ```
    #[inline]
    pub unsafe fn is_enabled(&self, row: usize) -> bool {
        // SAFETY: a toggleable column has a word for every row below the capacity.
        !self.toggle || unsafe { !DisabledBits(self.disabled).is_disabled(row) }
    }

    /// Enables or disables `row`'s value; nothing for a column without toggle
    /// bits.
    ///
    /// # Safety
    /// `row` is below the table's length (the bits of rows past it stay 0).
    #[inline]
    pub(crate) unsafe fn set_enabled(&mut self, row: usize, enabled: bool) {
        if self.toggle {
            // SAFETY: a toggleable column has a word for every row below the capacity.
            unsafe { set_bit(self.disabled, row, !enabled) };
        }
    }

    /// The disabled bits as queries read them (`None` without toggle bits).
    /// See [`DisabledBits`] for an example.
    #[inline]
    pub fn disabled_bits(&self) -> Option<DisabledBits> {
        self.toggle.then_some(DisabledBits(self.disabled))
    }

    /// Clears the disabled bit of `row`, a row being forgotten (the last one
    /// of a swap-remove).
    ///
    /// # Safety
    /// `row` is below the table's capacity.
    #[inline]
    pub(crate) unsafe fn forget_disabled_bit(&mut self, row: usize) {
        if self.toggle {
            // SAFETY: forwarded to the caller.
            unsafe { set_bit(self.disabled, row, false) };
        }
    }

    /// Clears the disabled bits of rows `0..len` (the table forgot them all).
    ///
    /// # Safety
    /// `len` is at most the table's capacity.
    pub(crate) unsafe fn forget_disabled_bits(&mut self, len: usize) {
        if self.toggle {
            // SAFETY: the bitset has `capacity.div_ceil(64)` words.
            unsafe { self.disabled.write_bytes(0, len.div_ceil(64)) };
        }
    }

    /// Whether some row at or past `len` (below `capacity`) is marked disabled,
    /// which would break the invariant (for the table's invariant check).
    ///
    /// # Safety
    /// `len <= capacity`, the table's length and capacity.
    pub(crate) unsafe fn has_stray_disabled_bits(&self, len: usize, capacity: usize) -> bool {
        // SAFETY: rows below the capacity have their bits.
        self.toggle && (len..capacity).any(|row| unsafe { DisabledBits(self.disabled).is_disabled(row) })
    }

    /// Whether `other` stores values of the same layout, with ticks or without
    /// like this column: its buffers could hold `other`'s values.
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::storage::Column;
    /// let column = Column::new(Layout::new::<f32>(), None);
    /// assert!(column.same_shape(&Column::new(Layout::new::<u32>(), None)));
    /// assert!(!column.same_shape(&Column::untracked(Layout::new::<f32>(), None)));
    /// assert!(!column.same_shape(&Column::new(Layout::new::<u64>(), None)));
    /// ```
    #[inline]
    pub fn same_shape(&self, other: &Column) -> bool {
        self.item_layout == other.item_layout && self.tracked == other.tracked && self.toggle == other.toggle
    }

    /// Keeps this column's buffers for the values of `other`, an empty column of
    /// the same shape: from now on it drops values with `other`'s drop fn.
    /// Meant for an empty table's columns (no value is dropped or kept here).
    pub(crate) fn adopt(&mut self, other: Column) {
        debug_assert!(self.same_shape(&other));
        self.drop = other.drop;
    }

    /// The layout of one tick cell, or a zero-sized one (still aligned for a
    /// cell) when the column has no ticks, so its tick buffers take no room.
    #[inline]
    fn tick_layout(&self) -> Layout {
        let cell = Layout::new::<TickCell>();
        if self.tracked { cell } else { Layout::from_size_align(0, cell.align()).expect("a cell's alignment") }
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.item_layout
    }

    /// The layout of the disabled bits for `capacity` rows (`u64` words;
    /// empty, still aligned for a word, without toggle bits).
    #[inline]
    fn disabled_layout(&self, capacity: usize) -> Layout {
        let words = if self.toggle { capacity.div_ceil(64) } else { 0 };
        Layout::array::<u64>(words).expect("table allocation size overflows isize")
    }

    /// Lays this column's buffers for `capacity` rows out after `block` (the
    /// layout of the table's allocation so far): values, then the `added` and
    /// `changed` ticks, then the disabled bits. Returns the extended layout
    /// and the four offsets. The table sizes its allocation and moves columns
    /// into it with this one layout, so both always agree.
    ///
    /// # Panics
    /// Panics if the size overflows `isize`.
    pub(crate) fn place(&self, block: Layout, capacity: usize) -> (Layout, [usize; 4]) {
        let tick_layout = self.tick_layout();
        let mut layout = block;
        let regions = [
            array_layout(self.item_layout, capacity),
            array_layout(tick_layout, capacity),
            array_layout(tick_layout, capacity),
            self.disabled_layout(capacity),
        ];
        let offsets = regions.map(|region| {
            let (extended, offset) = layout.extend(region).expect("table allocation size overflows isize");
            layout = extended;
            offset
        });
        (layout, offsets)
    }

    /// Moves the first `len` rows (values, ticks and disabled bits) into the
    /// regions of `block` at `offsets`, and points the column there; the
    /// disabled bits of the new rows up to `capacity` start at 0.
    ///
    /// # Safety
    /// `block` is an allocation of the table's new layout, `offsets` are this
    /// column's regions in it from [`Column::place`] for `capacity`, at least
    /// `len`; the current buffers hold `len` initialized rows and are not read
    /// again (the caller frees them).
    pub(crate) unsafe fn relocate(&mut self, block: NonNull<u8>, offsets: [usize; 4], len: usize, capacity: usize) {
        if self.toggle {
            let (kept, words) = (len.div_ceil(64), capacity.div_ceil(64));
            // SAFETY: the new bit region holds `words` words (`place` for
            // `capacity`), the old one at least `kept` (it covered `len` rows);
            // the regions are in distinct allocations. Bits past `len` are 0
            // in the kept words (invariant), and the rest are zeroed here.
            unsafe {
                let disabled = block.add(offsets[3]).cast::<u64>();
                core::ptr::copy_nonoverlapping(self.disabled.as_ptr(), disabled.as_ptr(), kept);
                disabled.add(kept).write_bytes(0, words - kept);
                self.disabled = disabled;
            }
        }
        let tick_size = self.tick_layout().size();
        // SAFETY: each region is inside `block` (or at its end when empty) and
        // aligned for its items (`place` aligned it, and the block has the
        // layout's alignment); old and new buffers are distinct allocations.
        unsafe {
            let data = block.add(offsets[0]);
            core::ptr::copy_nonoverlapping(self.data.as_ptr(), data.as_ptr(), len * self.item_layout.size());
            let added = block.add(offsets[1]);
            core::ptr::copy_nonoverlapping(self.added.cast::<u8>().as_ptr(), added.as_ptr(), len * tick_size);
            let changed = block.add(offsets[2]);
            core::ptr::copy_nonoverlapping(self.changed.cast::<u8>().as_ptr(), changed.as_ptr(), len * tick_size);
            self.data = data;
            self.added = added.cast();
            self.changed = changed.cast();
        }
    }

    /// The address of `row`'s value.
    ///
    /// # Safety
    /// `row` is at most the table's capacity (only rows below its length hold values).
    #[inline]
    pub unsafe fn get_ptr(&self, row: usize) -> NonNull<u8> {
        // SAFETY: the offset stays inside (or one past) the allocation; for
        // zero-sized values it is 0.
        unsafe { self.data.add(row * self.item_layout.size()) }
    }

    /// The start of the value buffer.
    #[inline]
    pub fn data_ptr(&self) -> NonNull<u8> {
        self.data
    }

    /// The start of the `added` tick buffer (one cell per row); dangling when
    /// the column has no ticks ([`Column::has_ticks`]).
    #[inline]
    pub fn added_ptr(&self) -> NonNull<TickCell> {
        self.added
    }

    /// The start of the `changed` tick buffer (one cell per row); dangling when
    /// the column has no ticks ([`Column::has_ticks`]).
    #[inline]
    pub fn changed_ptr(&self) -> NonNull<TickCell> {
        self.changed
    }

    /// The ticks of `row` (zero ticks when the column has none).
    ///
    /// # Safety
    /// `row` is below the table's length.
    #[inline]
    pub unsafe fn ticks(&self, row: usize) -> ComponentTicks {
        if !self.tracked {
            return ComponentTicks::new(Tick::default());
        }
        // SAFETY: the caller guarantees `row` is an initialized row; the column
        // is tracked.
        unsafe { self.tracked_ticks(row) }
    }

    /// The ticks of `row` of a tracked column.
    ///
    /// # Safety
    /// The column has ticks and `row` is below the table's length.
    #[inline]
    unsafe fn tracked_ticks(&self, row: usize) -> ComponentTicks {
        // SAFETY: forwarded to the caller.
        unsafe {
            ComponentTicks { added: self.added.add(row).as_ref().get(), changed: self.changed.add(row).as_ref().get() }
        }
    }

    /// Sets both ticks of `row` of a tracked column.
    ///
    /// # Safety
    /// The column has ticks, `row` is below the table's capacity and the caller
    /// has exclusive access to it.
    #[inline]
    unsafe fn set_tracked_ticks(&mut self, row: usize, ticks: ComponentTicks) {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.added.add(row).write(TickCell::new(ticks.added));
            self.changed.add(row).write(TickCell::new(ticks.changed));
        }
    }

    /// The `added` and `changed` cells of `row`, or `None` when the column has
    /// no ticks.
    ///
    /// # Safety
    /// `row` is below the table's length.
    #[inline]
    pub unsafe fn tick_cells(&self, row: usize) -> Option<(&TickCell, &TickCell)> {
        // SAFETY: a tracked column has one cell per row in each tick buffer.
        self.tracked.then(|| unsafe { (self.added.add(row).as_ref(), self.changed.add(row).as_ref()) })
    }

    /// Sets both ticks of `row` (nothing when the column has no ticks).
    ///
    /// # Safety
    /// `row` is below the table's capacity, and the caller has exclusive access to it.
    #[inline]
    pub unsafe fn set_ticks(&mut self, row: usize, ticks: ComponentTicks) {
        if self.tracked {
            // SAFETY: forwarded to the caller; the column is tracked.
            unsafe { self.set_tracked_ticks(row, ticks) };
        }
    }

    /// Sets the `changed` tick of `row` (nothing when the column has no ticks).
    ///
    /// # Safety
    /// `row` is below the table's length, and the caller has exclusive access to it.
    #[inline]
    pub unsafe fn set_changed(&mut self, row: usize, tick: Tick) {
        if !self.tracked {
            return;
        }
        // SAFETY: forwarded to the caller.
        unsafe { self.changed.add(row).write(TickCell::new(tick)) };
    }

    /// Clamps the ticks of rows `0..len` to the age window ([`Tick::check_tick`]
    /// relative to `now`); nothing when the column has no ticks.
    ///
    /// # Safety
    /// `len` is at most the table's length.
    pub(crate) unsafe fn check_ticks(&mut self, len: usize, now: Tick) {
        if !self.tracked {
            return;
        }
        for row in 0..len {
            // SAFETY: a tracked column has an initialized cell per row below the
            // table's length (caller), and `&mut self` excludes every other access.
            unsafe {
                self.added.add(row).as_mut().check_tick(now);
                self.changed.add(row).as_mut().check_tick(now);
            }
        }
    }

    /// The age relative to `now` of the oldest tick of rows `0..len` (0 when the
    /// column has no ticks): what the world's invariant check compares with the
    /// age window.
    ///
    /// # Safety
    /// `len` is at most the table's length.
    pub(crate) unsafe fn oldest_tick_age(&self, len: usize, now: Tick) -> u32 {
        if !self.tracked {
            return 0;
        }
        // SAFETY: a tracked column has an initialized cell per row below the
        // table's length (caller) in each tick buffer.
        let (added, changed) = unsafe {
            (
                core::slice::from_raw_parts(self.added.as_ptr(), len),
                core::slice::from_raw_parts(self.changed.as_ptr(), len),
            )
        };
        let mut oldest = 0;
        for cells in [added, changed] {
            for cell in cells {
                oldest = oldest.max(now.get().wrapping_sub(cell.get().get()));
            }
        }
        oldest
    }

    /// Initializes the (uninitialized) `row` with a bitwise copy of `source`'s
    /// `source_row`, value and ticks; the source value is then logically moved out.
    ///
    /// # Safety
    /// `source` stores values of the same layout; `row` is below this table's
    /// capacity and uninitialized; `source_row` is an initialized row of `source`,
    /// which the caller forgets afterwards.
    #[inline]
    pub unsafe fn initialize_from(&mut self, row: usize, source: &Column, source_row: usize) {
        debug_assert_eq!(self.item_layout, source.item_layout);
        debug_assert_eq!(self.tracked, source.tracked);
        debug_assert_eq!(self.toggle, source.toggle);
        if self.toggle {
            // SAFETY: both columns are toggleable (same component) and both rows
            // are below their capacities; `row`'s bit is 0 (a fresh row), and
            // the source's is cleared when its table forgets `source_row`.
            unsafe {
                if DisabledBits(source.disabled).is_disabled(source_row) {
                    set_bit(self.disabled, row, true);
                }
            }
        }
        // SAFETY: both rows are in their buffers, which are distinct allocations
        // (`&mut self` and `&source` cannot alias), with values of the same layout,
        // and both columns store the same component, so both have ticks or neither.
        // The ticks are read before anything is written: the source and destination
        // buffers often share their low 12 address bits, and a load issued after a
        // store to such an address waits on it (4K aliasing).
        unsafe {
            let ticks = self.tracked.then(|| source.tracked_ticks(source_row));
            copy_value(source.get_ptr(source_row), self.get_ptr(row), self.item_layout.size());
            if let Some(ticks) = ticks {
                self.set_tracked_ticks(row, ticks);
            }
        }
    }

    /// Drops the value of `row` in place (the row stays, uninitialized).
    ///
    /// # Safety
    /// `row` holds an initialized value, which must not be used again until it is
    /// re-initialized or forgotten by a swap-remove.
    #[inline]
    pub unsafe fn drop_at(&mut self, row: usize) {
        if let Some(drop) = self.drop {
            // SAFETY: the caller guarantees `row` holds an initialized value.
            unsafe { drop(self.get_ptr(row).as_ptr()) }
        }
    }

    /// [`Column::drop_at`], keeping a panic of the value's `Drop` in `panics`
    /// instead of unwinding: the row counts as dropped either way.
    ///
    /// # Safety
    /// As [`Column::drop_at`].
    #[inline]
    pub(crate) unsafe fn drop_at_catching(&mut self, row: usize, panics: &mut PanicSlot) {
        if let Some(drop) = self.drop {
            // SAFETY: the caller guarantees `row` holds an initialized value.
            let value = unsafe { self.get_ptr(row) };
            // SAFETY: as above; the value is dropped once, whether or not it panics.
            panics.catch(|| unsafe { drop(value.as_ptr()) });
        }
    }

    /// Moves the value and ticks of row `last` into `row` (a bitwise copy; `last`
    /// is then logically uninitialized).
    ///
    /// # Safety
    /// `row != last` are both below the table's length; `row`'s value was moved out
    /// or dropped.
    #[inline]
    pub unsafe fn move_within(&mut self, last: usize, row: usize) {
        if self.toggle {
            // SAFETY: both rows are below the capacity; `last` is forgotten
            // after this move, so its bit goes back to 0.
            unsafe {
                let disabled = DisabledBits(self.disabled).is_disabled(last);
                set_bit(self.disabled, row, disabled);
                set_bit(self.disabled, last, false);
            }
        }
        // SAFETY: distinct in-bounds rows of one buffer do not overlap; the tick
        // buffers are only touched when the column has them.
        unsafe {
            let ticks = self.tracked.then(|| self.tracked_ticks(last));
            copy_value(self.get_ptr(last), self.get_ptr(row), self.item_layout.size());
            if let Some(ticks) = ticks {
                self.set_tracked_ticks(row, ticks);
            }
        }
    }

    /// Drops the values of rows `0..len`. If a value's `Drop` panics, the
    /// others are still dropped, then the first panic continues.
    ///
    /// # Safety
    /// Rows `0..len` hold initialized values, which are not used again.
    pub unsafe fn drop_rows(&mut self, len: usize) {
        if self.drop.is_none() {
            return;
        }
        let mut panics = PanicSlot::default();
        for row in 0..len {
            // SAFETY: forwarded to the caller; each value is dropped once.
            unsafe { self.drop_at_catching(row, &mut panics) };
        }
        panics.resume();
    }
}

/// Copies one value of `size` bytes between non-overlapping places. Common small
/// sizes are copied inline instead of through a `memcpy` call, tested one by one
/// (a jump table's indirect branch costs more than two predicted compares here).
///
/// # Safety
/// Both pointers are valid for `size` bytes and the ranges do not overlap.
#[inline(always)]
unsafe fn copy_value(source: NonNull<u8>, destination: NonNull<u8>, size: usize) {
    let (source, destination) = (source.as_ptr(), destination.as_ptr());
    // SAFETY: guaranteed by the caller; unaligned reads/writes need no alignment.
    unsafe {
        if size == 4 {
            destination.cast::<u32>().write_unaligned(source.cast::<u32>().read_unaligned());
        } else if size == 8 {
            destination.cast::<u64>().write_unaligned(source.cast::<u64>().read_unaligned());
        } else if (9..=16).contains(&size) {
            // Two overlapping 8-byte copies cover any size from 9 to 16.
            destination.cast::<u64>().write_unaligned(source.cast::<u64>().read_unaligned());
            let tail = size - 8;
            destination.add(tail).cast::<u64>().write_unaligned(source.add(tail).cast::<u64>().read_unaligned());
        } else {
            core::ptr::copy_nonoverlapping(source, destination, size);
        }
    }
}

/// The disabled bits of a toggleable column, as a query reads them: the
/// column's words, one bit per row (set: disabled). Valid while the column's
/// table neither grows nor is dropped, like [`Column::data_ptr`].
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::entity::Entity;
/// use ecs::storage::{Column, ComponentTicks, Table, Tick};
/// let mut table = Table::new(vec![Column::new(Layout::new::<u8>(), None).toggleable()]);
/// for index in 1..=2 {
///     // SAFETY: the new row's only column is initialized right away.
///     unsafe {
///         let row = table.push_uninit_row(Entity::from_raw(index, 0), ComponentTicks::new(Tick::new(1)));
///         table.column(0).get_ptr(row).write(7);
///     }
/// }
/// table.set_enabled(0, 1, false);
/// let bits = table.column(0).disabled_bits().unwrap();
/// // SAFETY: rows 0 and 1 exist and the table is unchanged since.
/// unsafe { assert_eq!((bits.is_disabled(0), bits.is_disabled(1)), (false, true)) };
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DisabledBits(NonNull<u64>);

// SAFETY: a pointer into a column of the world's tables, only read while a
// query holds its borrow of that world (as `&Column` is `Send`).
unsafe impl Send for DisabledBits {}
// SAFETY: as for `Send`: shared use only reads (`&Column` is `Sync`).
unsafe impl Sync for DisabledBits {}

impl DisabledBits {
    /// Whether `row` is disabled.
    ///
    /// # Safety
    /// `row` is below the capacity of the column the bits belong to, and that
    /// column is alive and unchanged in place.
    #[inline(always)]
    pub unsafe fn is_disabled(self, row: usize) -> bool {
        // SAFETY: the word of `row` is inside the bitset (caller).
        unsafe { (*self.0.as_ptr().add(row / 64) >> (row % 64)) & 1 != 0 }
    }

    /// Whether no row below `len` is disabled: one test per 64 rows (the
    /// bits past the table's length are 0).
    ///
    /// # Safety
    /// `len` is at most the length of the table the bits belong to, which is
    /// alive and unchanged in place.
    #[inline]
    pub(crate) unsafe fn none_disabled(self, len: usize) -> bool {
        // SAFETY: the bitset has a word for every 64 rows below the capacity.
        let words = unsafe { core::slice::from_raw_parts(self.0.as_ptr(), len.div_ceil(64)) };
        words.iter().all(|&word| word == 0)
    }
}

/// Sets (or clears) bit `row` of the bitset at `words`.
///
/// # Safety
/// The word of `row` is inside the bitset, and the caller has exclusive access to it.
#[inline(always)]
unsafe fn set_bit(words: NonNull<u64>, row: usize, value: bool) {
    let mask = 1_u64 << (row % 64);
    // SAFETY: guaranteed by the caller.
    unsafe {
        let word = words.as_ptr().add(row / 64);
        if value { *word |= mask } else { *word &= !mask }
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
