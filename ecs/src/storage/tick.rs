//! Change ticks: a wrapping `u32` clock and a cell that lets a query stamp a
//! row's tick through a shared borrow of its table.
//!
//! A value is *newer* than `last_run` when it was stamped after it; comparisons are
//! made relative to `this_run` so the clock may wrap (a tick older than 2^31 runs
//! reads as old).

use core::cell::UnsafeCell;

/// A point on the world's change clock.
///
/// # Examples
/// ```
/// use ecs::storage::Tick;
/// let stamped = Tick::new(5);
/// assert!(stamped.is_newer_than(Tick::new(4), Tick::new(6)));
/// assert!(!stamped.is_newer_than(Tick::new(5), Tick::new(6)));
/// // wrapping: stamped just before the clock wrapped, read just after
/// assert!(Tick::new(u32::MAX).is_newer_than(Tick::new(u32::MAX - 1), Tick::new(3)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Tick(u32);

impl Tick {
    /// A tick with the given clock value.
    #[inline]
    pub const fn new(value: u32) -> Tick {
        Tick(value)
    }

    /// The clock value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Whether this tick is after `last_run`, as seen at `this_run`.
    #[inline]
    pub const fn is_newer_than(self, last_run: Tick, this_run: Tick) -> bool {
        let age = this_run.0.wrapping_sub(self.0);
        let since_last = this_run.0.wrapping_sub(last_run.0);
        age < since_last
    }
}

/// The `added` and `changed` ticks of one value.
///
/// # Examples
/// ```
/// use ecs::storage::{ComponentTicks, Tick};
/// let ticks = ComponentTicks::new(Tick::new(3));
/// assert_eq!((ticks.added, ticks.changed), (Tick::new(3), Tick::new(3)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ComponentTicks {
    /// When the value was added to its entity.
    pub added: Tick,
    /// When the value was last written.
    pub changed: Tick,
}

impl ComponentTicks {
    /// Ticks of a value added (and changed) at `tick`.
    #[inline]
    pub const fn new(tick: Tick) -> ComponentTicks {
        ComponentTicks { added: tick, changed: tick }
    }
}

/// A [`Tick`] that can be written through a shared reference. Writers must hold
/// exclusive access to the row (queries guarantee it through their access rules).
#[repr(transparent)]
#[derive(Default)]
pub struct TickCell(UnsafeCell<Tick>);

// SAFETY: a `TickCell` is only written by the holder of exclusive access to its
// row (a `&mut T` query term or `&mut World`); concurrent reads of other rows or
// other columns never touch it.
unsafe impl Sync for TickCell {}

impl TickCell {
    /// A cell holding `tick`.
    #[inline]
    pub const fn new(tick: Tick) -> TickCell {
        TickCell(UnsafeCell::new(tick))
    }

    /// Reads the tick.
    #[inline]
    pub fn get(&self) -> Tick {
        // SAFETY: writers hold exclusive access to this row, so no write races this read.
        unsafe { *self.0.get() }
    }

    /// Writes the tick through a shared reference.
    ///
    /// # Safety
    /// The caller must have exclusive access to this row's value (no other reader
    /// or writer of this cell at the same time).
    #[inline]
    pub unsafe fn set_unchecked(&self, tick: Tick) {
        // SAFETY: the caller guarantees exclusive access.
        unsafe { *self.0.get() = tick }
    }

    /// Writes the tick.
    #[inline]
    pub fn set(&mut self, tick: Tick) {
        *self.0.get_mut() = tick;
    }
}

impl Clone for TickCell {
    fn clone(&self) -> TickCell {
        TickCell::new(self.get())
    }
}

/// The `added` and `changed` tick cells of one value, stored side by side so a
/// row's ticks are one push, one copy and one swap-remove.
#[repr(C)]
#[derive(Default, Clone)]
pub struct ComponentTickCells {
    /// When the value was added.
    pub added: TickCell,
    /// When the value was last written.
    pub changed: TickCell,
}

impl ComponentTickCells {
    /// Cells holding `ticks`.
    #[inline]
    pub const fn new(ticks: ComponentTicks) -> ComponentTickCells {
        ComponentTickCells { added: TickCell::new(ticks.added), changed: TickCell::new(ticks.changed) }
    }

    /// Reads both ticks.
    #[inline]
    pub fn get(&self) -> ComponentTicks {
        ComponentTicks { added: self.added.get(), changed: self.changed.get() }
    }

    /// Writes both ticks.
    #[inline]
    pub fn set(&mut self, ticks: ComponentTicks) {
        self.added.set(ticks.added);
        self.changed.set(ticks.changed);
    }
}
