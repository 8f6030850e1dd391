//! Resources: singleton values stored in the world by type, with change ticks.
//!
//! Invariant: the map holds at most one value per type, boxed, keyed by its
//! `TypeId`; the box's concrete type is always the key's type.

use core::any::{Any, TypeId};

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
pub trait Resource: Send + Sync + 'static {}

struct ResourceData {
    value: Box<dyn Any + Send + Sync>,
    added: Tick,
    changed: TickCell,
}

/// The resources of a world.
#[derive(Default)]
pub struct Resources {
    map: TypeIdMap<ResourceData>,
}

impl Resources {
    /// Inserts or replaces `value`; returns the previous value.
    pub fn insert<R: Resource>(&mut self, value: R, tick: Tick) -> Option<R> {
        match self.map.get_mut(&TypeId::of::<R>()) {
            Some(data) => {
                data.changed.set(tick);
                let slot = data.value.downcast_mut::<R>().expect("resource stored under its own TypeId");
                Some(core::mem::replace(slot, value))
            }
            None => {
                let data = ResourceData { value: Box::new(value), added: tick, changed: TickCell::new(tick) };
                self.map.insert(TypeId::of::<R>(), data);
                None
            }
        }
    }

    /// Removes and returns the value of `R`.
    pub fn remove<R: Resource>(&mut self) -> Option<R> {
        let data = self.map.remove(&TypeId::of::<R>())?;
        Some(*data.value.downcast::<R>().expect("resource stored under its own TypeId"))
    }

    /// Whether `R` is present.
    pub fn contains<R: Resource>(&self) -> bool {
        self.map.contains_key(&TypeId::of::<R>())
    }

    /// The value of `R`.
    pub fn get<R: Resource>(&self) -> Option<&R> {
        self.map.get(&TypeId::of::<R>())?.value.downcast_ref::<R>()
    }

    /// The value of `R` as a [`Mut`] that stamps `this_run` when written.
    pub fn get_mut<R: Resource>(&mut self, last_run: Tick, this_run: Tick) -> Option<Mut<'_, R>> {
        let data = self.map.get_mut(&TypeId::of::<R>())?;
        let added = data.added;
        let value = data.value.downcast_mut::<R>()?;
        // SAFETY: `&mut self` gives exclusive access to the cell for the borrow.
        Some(unsafe { Mut::new(value, added, Some(&data.changed), last_run, this_run) })
    }

    /// The `(added, changed)` ticks of `R`.
    pub fn ticks<R: Resource>(&self) -> Option<(Tick, Tick)> {
        let data = self.map.get(&TypeId::of::<R>())?;
        Some((data.added, data.changed.get()))
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
