//! Change ticks: a wrapping `u32` clock and a cell that lets a query stamp a
//! row's tick through a shared borrow of its table.
//!
//! A value is *newer* than `last_run` when it was stamped after it; comparisons are
//! made relative to `this_run`, so they stay exact across the clock's wrap as long
//! as both ticks are less than 2^32 ticks old.
//!
//! **The age window.** Nothing would keep a stored tick that young on its own: a
//! value left untouched for 2^32 ticks would read as brand new. So every stored
//! tick is kept at most [`MAX_CHANGE_AGE`] old, the way bevy_ecs does it:
//! * ticks stored *in* the world (table columns, sparse sets, resources, the
//!   world's `last_change_tick`) are clamped by the world's age check
//!   (`World::check_change_ticks`), which runs by itself from `&mut World` entry
//!   points whenever [`CHECK_TICK_THRESHOLD`] ticks passed since the previous one;
//!   a clamped tick is exactly `MAX_CHANGE_AGE` old at check time, so it still
//!   reads as older than any baseline in the window. Between two checks a tick
//!   ages by less than `2 * CHECK_TICK_THRESHOLD`, which the window leaves room for;
//! * the `last_run` of a query state, system or observer lives outside the
//!   world's reach, so it is kept as a [`LastRun`] on the world's 64-bit clock
//!   ([`WideTick`], which never wraps in practice) and clamped exactly when the
//!   next run starts, however long the holder sat idle.
//!
//! Neither costs anything per row: the check runs once per threshold, the clamp
//! once per run.

use core::cell::UnsafeCell;

/// How many ticks may pass before the world's age check is due again (bevy_ecs'
/// value: a day at 60 frames per second with 100 systems per frame).
///
/// # Examples
/// ```
/// use ecs::storage::{CHECK_TICK_THRESHOLD, MAX_CHANGE_AGE};
/// // a tick clamped at one check is still inside the clock's range at the next
/// // one, even if that check comes late (up to twice the threshold)
/// assert!(MAX_CHANGE_AGE as u64 + 2 * CHECK_TICK_THRESHOLD as u64 <= u32::MAX as u64);
/// ```
pub const CHECK_TICK_THRESHOLD: u32 = 518_400_000;

/// The oldest a stored tick is allowed to be, in ticks: older ones are clamped to
/// exactly this age by [`Tick::check_tick`] (see the module docs).
///
/// # Examples
/// ```
/// use ecs::storage::{MAX_CHANGE_AGE, Tick};
/// let now = Tick::new(5);
/// let mut ancient = Tick::new(10); // 2^32 - 5 ticks old
/// assert!(ancient.check_tick(now));
/// assert_eq!(now.get().wrapping_sub(ancient.get()), MAX_CHANGE_AGE);
/// ```
pub const MAX_CHANGE_AGE: u32 = u32::MAX - 2 * CHECK_TICK_THRESHOLD;

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

    /// Clamps this tick to be at most [`MAX_CHANGE_AGE`] older than `now`, so it
    /// keeps reading as old when the clock comes round; returns whether it was
    /// clamped. Exact while the tick is less than 2^32 ticks old (the world's age
    /// check runs often enough for that).
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{MAX_CHANGE_AGE, Tick};
    /// let now = Tick::new(3_000_000_000);
    /// let mut recent = Tick::new(2_999_999_000);
    /// assert!(!recent.check_tick(now));
    /// assert_eq!(recent, Tick::new(2_999_999_000));
    /// let mut old = Tick::new(now.get().wrapping_sub(MAX_CHANGE_AGE + 1));
    /// assert!(old.check_tick(now));
    /// assert_eq!(old, Tick::new(now.get().wrapping_sub(MAX_CHANGE_AGE)));
    /// ```
    #[inline]
    pub fn check_tick(&mut self, now: Tick) -> bool {
        if now.0.wrapping_sub(self.0) > MAX_CHANGE_AGE {
            self.0 = now.0.wrapping_sub(MAX_CHANGE_AGE);
            true
        } else {
            false
        }
    }
}

/// A reading of the world's 64-bit change clock. At one tick per nanosecond it
/// would wrap after five centuries, so unlike a [`Tick`] (its low 32 bits, what
/// storage keeps per value) two readings compare by plain subtraction.
///
/// # Examples
/// ```
/// use ecs::storage::{Tick, WideTick};
/// let wide = WideTick::new((1 << 32) + 7);
/// assert_eq!(wide.tick(), Tick::new(7));
/// assert_eq!(wide.get(), (1 << 32) + 7);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default, Hash)]
pub struct WideTick(u64);

impl WideTick {
    /// The reading `value`.
    #[inline]
    pub const fn new(value: u64) -> WideTick {
        WideTick(value)
    }

    /// The clock value.
    #[inline]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The 32-bit tick values are stamped with.
    #[inline]
    pub const fn tick(self) -> Tick {
        Tick(self.0 as u32)
    }
}

/// When a query state, system or observer last ran, on the world's 64-bit clock,
/// so that its `Added`/`Changed` baseline can be clamped exactly however long it
/// sat idle (see the module docs).
///
/// # Examples
/// ```
/// use ecs::storage::{LastRun, MAX_CHANGE_AGE, Tick, WideTick};
/// let now = WideTick::new(10_000_000_000);
/// // before the first run, every stored tick reads as new
/// let baseline = LastRun::NEVER.baseline(now);
/// let oldest = Tick::new(now.tick().get().wrapping_sub(MAX_CHANGE_AGE));
/// assert!(oldest.is_newer_than(baseline, now.tick()));
/// assert_eq!(LastRun::NEVER.tick(), Tick::new(0));
/// // a recent run is the baseline itself
/// let recent = LastRun::at(WideTick::new(now.get() - 100));
/// assert_eq!(recent.baseline(now), Tick::new(now.tick().get() - 100));
/// // a run that lies 2^32 + 1 ticks back is clamped to the window, not wrapped
/// let ancient = LastRun::at(WideTick::new(now.get() - (1 << 32) - 1));
/// assert_eq!(ancient.baseline(now), Tick::new(now.tick().get().wrapping_sub(MAX_CHANGE_AGE)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LastRun(Option<WideTick>);

impl LastRun {
    /// Not run yet.
    pub const NEVER: LastRun = LastRun(None);

    /// A run at `tick`.
    #[inline]
    pub const fn at(tick: WideTick) -> LastRun {
        LastRun(Some(tick))
    }

    /// The run's tick (`Tick(0)` before the first run).
    #[inline]
    pub fn tick(self) -> Tick {
        self.0.map_or(Tick(0), WideTick::tick)
    }

    /// The `last_run` to compare stored ticks against in a run at `now`: the
    /// previous run's tick, clamped to at most [`MAX_CHANGE_AGE`] before `now`;
    /// before the first run, the tick just after `now` (2^32 - 1 ticks "ago"),
    /// which every stored tick in the window is newer than.
    #[inline]
    pub fn baseline(self, now: WideTick) -> Tick {
        match self.0 {
            None => Tick(now.tick().0.wrapping_add(1)),
            Some(last) if now.0.saturating_sub(last.0) > MAX_CHANGE_AGE as u64 => {
                Tick(now.tick().0.wrapping_sub(MAX_CHANGE_AGE))
            }
            Some(last) => last.tick(),
        }
    }
}

impl Default for LastRun {
    fn default() -> LastRun {
        LastRun::NEVER
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

    /// [`Tick::check_tick`] on the cell.
    #[inline]
    pub fn check_tick(&mut self, now: Tick) -> bool {
        self.0.get_mut().check_tick(now)
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

    /// [`Tick::check_tick`] on both cells.
    #[inline]
    pub fn check_ticks(&mut self, now: Tick) {
        self.added.check_tick(now);
        self.changed.check_tick(now);
    }
}
