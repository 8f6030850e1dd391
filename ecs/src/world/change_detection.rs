//! [`Mut`]: a mutable borrow of a component or resource that stamps the value's
//! `changed` tick when written through.
//!
//! Reading through a `Mut` (`Deref`) never marks the value changed; `DerefMut`
//! does. Components declared `change_detection = false` and tag relationships'
//! pairs have no tick storage: their `Mut` never stamps and reports neither
//! added nor changed. Zero-sized components (tags) do keep ticks.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use crate::storage::{Tick, TickCell};

/// A shared borrow of a component with its change ticks: the query term
/// `Ref<T>` reads `T` like `&T` and tells whether the value was added or
/// changed since the query (or system) last ran.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Score(u32);
/// let mut world = World::new();
/// let e = world.spawn(Score(1)).id();
/// let mut scores = world.query::<Ref<Score>>();
/// let score = scores.single(&world).unwrap();
/// assert!(score.is_added() && score.is_changed() && score.0 == 1);
/// let score = scores.single(&world).unwrap();
/// assert!(!score.is_added() && !score.is_changed());
/// world.get_mut::<Score>(e).unwrap().0 = 2;
/// let score = scores.single(&world).unwrap();
/// assert!(!score.is_added() && score.is_changed());
/// ```
pub struct Ref<'w, T: ?Sized> {
    value: &'w T,
    added: Tick,
    changed: Tick,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, T: ?Sized> Ref<'w, T> {
    /// A value with its ticks, seen by a reader whose previous run was `last_run`.
    #[inline]
    pub(crate) fn new(value: &'w T, added: Tick, changed: Tick, last_run: Tick, this_run: Tick) -> Self {
        Ref { value, added, changed, last_run, this_run }
    }

    /// Whether the value was added after the reader's last run.
    #[inline]
    pub fn is_added(&self) -> bool {
        self.added.is_newer_than(self.last_run, self.this_run)
    }

    /// Whether the value was added or written after the reader's last run.
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.changed.is_newer_than(self.last_run, self.this_run)
    }

    /// The tick of the last write.
    #[inline]
    pub fn last_changed(&self) -> Tick {
        self.changed
    }

    /// The borrow itself, for the rest of `'w`.
    #[inline]
    pub fn into_inner(self) -> &'w T {
        self.value
    }
}

impl<T: ?Sized> Clone for Ref<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Ref<'_, T> {}

impl<T: ?Sized> Deref for Ref<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> AsRef<T> for Ref<'_, T> {
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Ref").field(&self.value).finish()
    }
}

/// A mutable borrow that records writes for `Changed<T>` filters.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Score(u32);
/// let mut world = World::new();
/// let e = world.spawn(Score(1)).id();
/// let mut changed = world.query_filtered::<Entity, Changed<Score>>();
/// assert_eq!(changed.iter(&world).count(), 1); // first run: everything is new
/// assert_eq!(changed.iter(&world).count(), 0);
/// let score = world.get_mut::<Score>(e).unwrap();
/// assert_eq!(score.0, 1); // reading does not mark the value changed
/// drop(score);
/// assert_eq!(changed.iter(&world).count(), 0);
/// world.get_mut::<Score>(e).unwrap().0 += 1; // writing does
/// assert_eq!(changed.iter(&world).count(), 1);
/// ```
pub struct Mut<'w, T: ?Sized> {
    value: &'w mut T,
    added: Tick,
    changed: Option<NonNull<TickCell>>,
    last_run: Tick,
    this_run: Tick,
    _ticks: PhantomData<&'w TickCell>,
}

// SAFETY: `Mut` is a `&mut T` plus exclusive access to one tick cell; sending it
// to another thread is as safe as sending the `&mut T` (components are `Send + Sync`).
unsafe impl<T: ?Sized + Send> Send for Mut<'_, T> {}
// SAFETY: shared access to a `Mut` only reads the value and the tick.
unsafe impl<T: ?Sized + Sync> Sync for Mut<'_, T> {}

impl<'w, T: ?Sized> Mut<'w, T> {
    /// Wraps a value and its tick cell.
    ///
    /// # Safety
    /// The caller must have exclusive access to `changed` for `'w` (no other `Mut`
    /// or reader of that cell while this one lives). `None` means the value has no
    /// tick storage.
    #[inline]
    pub(crate) unsafe fn new(
        value: &'w mut T,
        added: Tick,
        changed: Option<&'w TickCell>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        Mut { value, added, changed: changed.map(NonNull::from), last_run, this_run, _ticks: PhantomData }
    }

    /// Whether the value was added after the observer's last run.
    #[inline]
    pub fn is_added(&self) -> bool {
        self.changed.is_some() && self.added.is_newer_than(self.last_run, self.this_run)
    }

    /// Whether the value was changed after the observer's last run.
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.changed
            // SAFETY: the cell is valid for `'w`, and this `Mut` has exclusive access to it.
            .is_some_and(|cell| unsafe { cell.as_ref() }.get().is_newer_than(self.last_run, self.this_run))
    }

    /// Writes `value` and marks the value changed, only if it differs from the
    /// current one (a write of an equal value is not a change). Returns whether
    /// it wrote.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, PartialEq)]
    /// struct Score(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Score(1)).id();
    /// let mut changed = world.query_filtered::<Entity, Changed<Score>>();
    /// assert_eq!(changed.iter(&world).count(), 1);
    /// assert!(!world.get_mut::<Score>(e).unwrap().set_if_neq(Score(1)));
    /// assert_eq!(changed.iter(&world).count(), 0);
    /// assert!(world.get_mut::<Score>(e).unwrap().set_if_neq(Score(2)));
    /// assert_eq!(changed.iter(&world).count(), 1);
    /// ```
    #[inline]
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: Sized + PartialEq,
    {
        if *self.value == value {
            return false;
        }
        *self.value = value;
        self.set_changed();
        true
    }

    /// Marks the value changed without writing it.
    #[inline]
    pub fn set_changed(&mut self) {
        if let Some(cell) = self.changed {
            // SAFETY: exclusive access to the cell is a precondition of `Mut::new`.
            unsafe { cell.as_ref().set_unchecked(self.this_run) };
        }
    }

    /// The value, without marking it changed.
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// The value for the rest of `'w`, marking it changed.
    #[inline]
    pub fn into_inner(mut self) -> &'w mut T {
        self.set_changed();
        self.value
    }

    /// A shorter-lived `Mut` of the same value.
    #[inline]
    pub fn reborrow(&mut self) -> Mut<'_, T> {
        Mut {
            value: self.value,
            added: self.added,
            changed: self.changed,
            last_run: self.last_run,
            this_run: self.this_run,
            _ticks: PhantomData,
        }
    }
}

impl<T: ?Sized> Deref for Mut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> DerefMut for Mut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: ?Sized> AsRef<T> for Mut<'_, T> {
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Mut").field(&self.value).finish()
    }
}

impl<T: ?Sized + PartialEq> PartialEq<T> for Mut<'_, T> {
    fn eq(&self, other: &T) -> bool {
        *self.value == *other
    }
}
