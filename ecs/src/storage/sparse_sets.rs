//! [`SparseSets`]: one [`SparseSet`] per sparse component, addressed by a dense
//! [`SparseSetIndex`] so hot paths (bundle writes, query fetches) index a `Vec`
//! instead of hashing the component id.
//!
//! Invariant: `by_component[c.index()]` names the set of component `c`, and sets
//! are never removed, so a `SparseSetIndex` stays valid for the world's life.

use core::alloc::Layout;

use super::sparse::SparseSet;
use crate::entity::Entity;

/// The position of a sparse set in [`SparseSets`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SparseSetIndex(pub(crate) u32);

/// Every sparse set of a world.
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::entity::Entity;
/// use ecs::storage::SparseSets;
/// let mut sets = SparseSets::default();
/// let component = Entity::from_raw(7, 0);
/// let index = sets.get_or_insert(component, Layout::new::<u8>(), None);
/// assert_eq!(sets.index_of(component), Some(index));
/// assert!(sets.get(index).is_empty());
/// ```
#[derive(Default)]
pub struct SparseSets {
    sets: Vec<(Entity, SparseSet)>,
    by_component: Vec<u32>,
}

const NO_SET: u32 = u32::MAX;

impl SparseSets {
    /// The set of `component`, created with `layout`/`drop` if missing.
    pub fn get_or_insert(
        &mut self,
        component: Entity,
        layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
    ) -> SparseSetIndex {
        if let Some(index) = self.index_of(component) {
            return index;
        }
        let slot = component.index() as usize;
        if slot >= self.by_component.len() {
            self.by_component.resize(slot + 1, NO_SET);
        }
        let index = self.sets.len() as u32;
        self.by_component[slot] = index;
        self.sets.push((component, SparseSet::new(layout, drop)));
        SparseSetIndex(index)
    }

    /// The index of `component`'s set, if it has one.
    #[inline]
    pub fn index_of(&self, component: Entity) -> Option<SparseSetIndex> {
        let index = *self.by_component.get(component.index() as usize)?;
        (index != NO_SET && self.sets[index as usize].0 == component).then_some(SparseSetIndex(index))
    }

    /// The set at `index`.
    #[inline]
    pub fn get(&self, index: SparseSetIndex) -> &SparseSet {
        &self.sets[index.0 as usize].1
    }

    /// The set at `index`, mutably.
    #[inline]
    pub fn get_mut(&mut self, index: SparseSetIndex) -> &mut SparseSet {
        &mut self.sets[index.0 as usize].1
    }

    /// The set of `component`, if it has one.
    #[inline]
    pub fn of(&self, component: Entity) -> Option<&SparseSet> {
        self.index_of(component).map(|index| self.get(index))
    }

    /// Every `(component, set)`.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, &SparseSet)> {
        self.sets.iter().map(|(component, set)| (*component, set))
    }

    /// Clamps the ticks of every value of every set to the age window relative
    /// to `now` ([`SparseSet::check_change_ticks`]).
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{ComponentTicks, MAX_CHANGE_AGE, SparseSets, Tick};
    /// let mut sets = SparseSets::default();
    /// let index = sets.get_or_insert(Entity::from_raw(7, 0), Layout::new::<()>(), None);
    /// let e = Entity::from_raw(3, 0);
    /// // SAFETY: a zero-sized value needs no initialization.
    /// unsafe { sets.get_mut(index).insert_uninit(e, ComponentTicks::new(Tick::new(1))) };
    /// sets.check_change_ticks(Tick::new(MAX_CHANGE_AGE + 9));
    /// assert_eq!(sets.get(index).ticks(e).unwrap().get().added, Tick::new(9));
    /// ```
    pub fn check_change_ticks(&mut self, now: crate::storage::Tick) {
        for (_, set) in self.sets.iter_mut() {
            set.check_change_ticks(now);
        }
    }

    /// Every `(component, set)`, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Entity, &mut SparseSet)> {
        self.sets.iter_mut().map(|(component, set)| (*component, set))
    }
}
