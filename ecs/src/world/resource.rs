//! Resources: singleton values stored in the world by type, with change ticks.
//!
//! Invariant: the map holds at most one value per type, boxed in a
//! [`ResourceCell`], keyed by its `TypeId`; the cell's value type is always the
//! key's type. The cell lets systems that declared write access to a resource
//! borrow it mutably through a shared `&World` (the scheduler guarantees no other
//! borrow of it exists meanwhile).

use core::any::{Any, TypeId};
use core::cell::UnsafeCell;

use super::change_detection::Mut;
use crate::storage::{Tick, TickCell};
use crate::util::TypeIdMap;

/// A type that can be stored as a world resource. Derive it:
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Resource, Default)]
/// struct Time { dt: f32 }
/// let mut world = World::new();
/// world.insert_resource(Time { dt: 0.5 });
/// assert_eq!(world.resource::<Time>().dt, 0.5);
/// ```
///
/// `NAME` and `ID` play the role they play for components: the compile-time
/// access checks of systems compare `ID`s and name the type in their messages.
/// The derive sets both for non-generic types; generic resources (and hand-written
/// impls that keep the defaults) have `ID == 0`, which the const check treats as
/// "unknown", leaving their conflicts to the runtime check at system initialization.
pub trait Resource: Send + Sync + 'static {
    /// The type's name, for messages.
    const NAME: &'static str = "<resource>";
    /// A compile-time id (`component_type_id(module_path!(), NAME)`), or 0 when unknown.
    const ID: u64 = 0;
}

/// A resource value that systems with declared write access may borrow mutably
/// through a shared world.
struct ResourceCell<R>(UnsafeCell<R>);

// SAFETY: `R: Sync`; shared access only reads, and mutable access through the
// cell is only handed out under the world's access rules (`&mut World`, or a
// system whose declared `ResMut<R>` excludes every other borrow of `R`).
unsafe impl<R: Sync> Sync for ResourceCell<R> {}

struct ResourceData {
    value: Box<dyn Any + Send + Sync>,
    /// `R::NAME`, or the type path when that is the default (for reports).
    name: &'static str,
    added: Tick,
    changed: TickCell,
}

impl ResourceData {
    fn cell<R: Resource>(&self) -> &ResourceCell<R> {
        self.value.downcast_ref::<ResourceCell<R>>().expect("resource stored under its own TypeId")
    }
}

/// The resources of a world.
#[derive(Default)]
pub struct Resources {
    map: TypeIdMap<ResourceData>,
}

impl Resources {
    /// Drops every resource, each in turn even if a `Drop` panics (the first
    /// panic is kept in `panics`, later ones discarded), leaving the store
    /// empty with its allocation freed: what dropping the world does. A plain
    /// drop of the map would stop at a panicking value and leak the rest and
    /// the table.
    pub(crate) fn drop_values(&mut self, panics: &mut crate::util::PanicSlot) {
        for (_, data) in core::mem::take(&mut self.map) {
            panics.catch(|| drop(data));
        }
    }

    /// Inserts or replaces `value`; returns the previous value.
    pub fn insert<R: Resource>(&mut self, value: R, tick: Tick) -> Option<R> {
        match self.map.get_mut(&TypeId::of::<R>()) {
            Some(data) => {
                data.changed.set(tick);
                let slot = data.value.downcast_mut::<ResourceCell<R>>().expect("resource stored under its own TypeId");
                Some(core::mem::replace(slot.0.get_mut(), value))
            }
            None => {
                let value = Box::new(ResourceCell(UnsafeCell::new(value)));
                let name = if R::NAME == "<resource>" { core::any::type_name::<R>() } else { R::NAME };
                let data = ResourceData { value, name, added: tick, changed: TickCell::new(tick) };
                self.map.insert(TypeId::of::<R>(), data);
                None
            }
        }
    }

    /// Removes and returns the value of `R`.
    pub fn remove<R: Resource>(&mut self) -> Option<R> {
        let data = self.map.remove(&TypeId::of::<R>())?;
        let cell = data.value.downcast::<ResourceCell<R>>().expect("resource stored under its own TypeId");
        Some(cell.0.into_inner())
    }

    /// Whether `R` is present.
    pub fn contains<R: Resource>(&self) -> bool {
        self.map.contains_key(&TypeId::of::<R>())
    }

    /// The value of `R`.
    pub fn get<R: Resource>(&self) -> Option<&R> {
        let cell = self.map.get(&TypeId::of::<R>())?.cell::<R>();
        // SAFETY: a shared borrow of the map excludes `&mut` access; mutable
        // borrows through the cell (`get_mut_unchecked`) promise no shared borrow
        // of `R` exists meanwhile.
        Some(unsafe { &*cell.0.get() })
    }

    /// The value of `R` as a [`Mut`] that stamps `this_run` when written.
    pub fn get_mut<R: Resource>(&mut self, last_run: Tick, this_run: Tick) -> Option<Mut<'_, R>> {
        // SAFETY: `&mut self` gives exclusive access to every resource.
        unsafe { self.get_mut_unchecked(last_run, this_run) }
    }

    /// [`Resources::get_mut`] through a shared borrow.
    ///
    /// # Safety
    /// No other borrow of `R` (shared or mutable) may exist while the returned
    /// `Mut` lives (systems guarantee this by declaring `ResMut<R>`).
    pub unsafe fn get_mut_unchecked<R: Resource>(&self, last_run: Tick, this_run: Tick) -> Option<Mut<'_, R>> {
        let data = self.map.get(&TypeId::of::<R>())?;
        let cell = data.cell::<R>();
        // SAFETY: the caller guarantees exclusive access to `R` and its ticks.
        Some(unsafe { Mut::new(&mut *cell.0.get(), data.added, Some(&data.changed), last_run, this_run) })
    }

    /// The `(added, changed)` ticks of `R`.
    pub fn ticks<R: Resource>(&self) -> Option<(Tick, Tick)> {
        let data = self.map.get(&TypeId::of::<R>())?;
        Some((data.added, data.changed.get()))
    }

    /// Clamps every resource's ticks to the age window relative to `now` (see
    /// [`Tick::check_tick`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::storage::{MAX_CHANGE_AGE, Tick};
    /// use ecs::world::Resources;
    /// #[derive(Resource)]
    /// struct Score(u32);
    /// let mut resources = Resources::default();
    /// resources.insert(Score(0), Tick::new(1));
    /// resources.check_change_ticks(Tick::new(MAX_CHANGE_AGE + 4));
    /// assert_eq!(resources.ticks::<Score>(), Some((Tick::new(4), Tick::new(4))));
    /// ```
    pub fn check_change_ticks(&mut self, now: Tick) {
        for data in self.map.values_mut() {
            data.added.check_tick(now);
            data.changed.check_tick(now);
        }
    }

    /// The `(added, changed)` ticks of every resource, in no particular order.
    pub(crate) fn all_ticks(&self) -> impl Iterator<Item = (Tick, Tick)> + '_ {
        self.map.values().map(|data| (data.added, data.changed.get()))
    }

    /// The name of every resource (`Resource::NAME`, or the type path for
    /// types that keep the default name), in no particular order.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::storage::Tick;
    /// use ecs::world::Resources;
    /// #[derive(Resource)]
    /// struct Score(u32);
    /// let mut resources = Resources::default();
    /// resources.insert(Score(0), Tick::new(1));
    /// assert_eq!(resources.names().collect::<Vec<_>>(), ["Score"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.map.values().map(|data| data.name)
    }

    /// Number of resources.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are no resources.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
