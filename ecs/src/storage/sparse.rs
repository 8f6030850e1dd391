//! [`SparseSet`]: storage for `storage = "sparse"` components.
//!
//! Values live in fixed-size pages indexed by entity index, so a value's address
//! never changes while it is present (inserting or removing other entities, or
//! other components, never moves it). A dense list of the entities holding a value
//! makes iteration and counting cheap.
//!
//! Invariants (checked by [`SparseSet::check_invariants`]):
//! * for every `i < dense.len()`, the slot of `dense[i].index()` has `dense_index == i`;
//! * a slot holds an initialized value iff its `dense_index` is set and points back
//!   at an entity with the slot's index.
//!
//! Panic safety: [`SparseSet::remove_drop`] unlinks the value before dropping
//! it, so a panicking `Drop` leaves the set consistent; dropping the set drops
//! every value and frees every page even if some `Drop`s panic.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::alloc;

use super::column::{array_layout, dangling};
use super::tick::{ComponentTickCells, ComponentTicks, TickCell};
use crate::entity::Entity;
use crate::util::PanicSlot;

const PAGE_BITS: u32 = 10;
const PAGE_SIZE: usize = 1 << PAGE_BITS;
const ABSENT: u32 = u32::MAX;

struct SparsePage {
    data: NonNull<u8>,
    dense_index: Box<[u32]>,
    ticks: Box<[ComponentTickCells]>,
}

/// A paged sparse set of type-erased values. See the module docs.
///
/// # Examples
/// ```
/// use core::alloc::Layout;
/// use ecs::entity::Entity;
/// use ecs::storage::{ComponentTicks, SparseSet, Tick};
/// let mut set = SparseSet::new(Layout::new::<u32>(), None);
/// let e = Entity::from_raw(5000, 0);
/// // SAFETY: the slot is initialized right away with a u32.
/// unsafe { set.insert_uninit(e, ComponentTicks::new(Tick::new(1))).cast::<u32>().write(3) };
/// let address = set.get(e).unwrap();
/// set.check_invariants();
/// // SAFETY: the set stores u32 values.
/// assert_eq!(unsafe { *address.cast::<u32>().as_ref() }, 3);
/// assert!(set.remove_drop(e));
/// assert!(!set.contains(e));
/// ```
pub struct SparseSet {
    item_layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
    pages: Vec<Option<SparsePage>>,
    dense: Vec<Entity>,
}

// SAFETY: the set only holds values of `Component` types (`Send + Sync`) and owns its pages.
unsafe impl Send for SparseSet {}
// SAFETY: shared access only reads; writes through `&SparseSet` (tick cells, values
// behind the returned pointers) require exclusive access to the entity's value.
unsafe impl Sync for SparseSet {}

impl SparseSet {
    /// An empty set for values of `item_layout`.
    pub fn new(item_layout: Layout, drop: Option<unsafe fn(*mut u8)>) -> SparseSet {
        SparseSet { item_layout: item_layout.pad_to_align(), drop, pages: Vec::new(), dense: Vec::new() }
    }

    /// Number of entities holding a value.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Whether no entity holds a value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The entities holding a value.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.dense
    }

    #[inline]
    fn slot(&self, entity: Entity) -> Option<(&SparsePage, usize)> {
        let page = self.pages.get((entity.index() >> PAGE_BITS) as usize)?.as_ref()?;
        let offset = entity.index() as usize & (PAGE_SIZE - 1);
        let dense = page.dense_index[offset];
        (dense != ABSENT && self.dense[dense as usize] == entity).then_some((page, offset))
    }

    #[inline]
    fn value_ptr(&self, page: &SparsePage, offset: usize) -> NonNull<u8> {
        // SAFETY: `offset < PAGE_SIZE`, inside the page's allocation (offset 0 for
        // zero-sized values).
        unsafe { page.data.add(offset * self.item_layout.size()) }
    }

    /// Whether `entity` holds a value.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.slot(entity).is_some()
    }

    /// The address of `entity`'s value, stable while the value stays.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<NonNull<u8>> {
        let (page, offset) = self.slot(entity)?;
        Some(self.value_ptr(page, offset))
    }

    /// The tick cells of `entity`'s value.
    #[inline]
    pub fn ticks(&self, entity: Entity) -> Option<&ComponentTickCells> {
        let (page, offset) = self.slot(entity)?;
        Some(&page.ticks[offset])
    }

    /// The address of `entity`'s value and its `changed` tick cell.
    #[inline]
    pub fn get_with_changed(&self, entity: Entity) -> Option<(NonNull<u8>, &TickCell)> {
        let (page, offset) = self.slot(entity)?;
        Some((self.value_ptr(page, offset), &page.ticks[offset].changed))
    }

    /// Adds an uninitialized slot for `entity`, which must not hold a value, and
    /// returns its address.
    ///
    /// # Safety
    /// `entity` holds no value in this set; the caller initializes the slot with a
    /// value of this set's layout before the set is read or dropped.
    pub unsafe fn insert_uninit(&mut self, entity: Entity, ticks: ComponentTicks) -> NonNull<u8> {
        debug_assert!(!self.contains(entity), "insert_uninit over an existing value of {entity:?}");
        let page_index = (entity.index() >> PAGE_BITS) as usize;
        if page_index >= self.pages.len() {
            self.pages.resize_with(page_index + 1, || None);
        }
        let item_layout = self.item_layout;
        let page = self.pages[page_index].get_or_insert_with(|| new_page(item_layout));
        let offset = entity.index() as usize & (PAGE_SIZE - 1);
        page.dense_index[offset] = self.dense.len() as u32;
        page.ticks[offset].set(ticks);
        self.dense.push(entity);
        let page = self.pages[page_index].as_ref().expect("page allocated above");
        self.value_ptr(page, offset)
    }

    /// Unlinks `entity`'s value without dropping it and returns its address; the
    /// value stays readable there until the next insert for this entity index.
    ///
    /// # Safety
    /// The caller must read (move out) or drop the value before inserting into this
    /// entity index again; otherwise it is leaked.
    pub unsafe fn remove_forget(&mut self, entity: Entity) -> Option<NonNull<u8>> {
        let (page, offset) = self.slot(entity)?;
        let value = self.value_ptr(page, offset);
        let position = page.dense_index[offset] as usize;
        let last = self.dense.len() - 1;
        self.dense.swap_remove(position);
        if position != last {
            let moved = self.dense[position];
            let moved_page =
                self.pages[(moved.index() >> PAGE_BITS) as usize].as_mut().expect("moved entity has a page");
            moved_page.dense_index[moved.index() as usize & (PAGE_SIZE - 1)] = position as u32;
        }
        let page = self.pages[(entity.index() >> PAGE_BITS) as usize].as_mut().expect("entity has a page");
        page.dense_index[offset] = ABSENT;
        Some(value)
    }

    /// Removes and drops `entity`'s value; `false` if it had none.
    pub fn remove_drop(&mut self, entity: Entity) -> bool {
        // SAFETY: the value is dropped right away and never used again.
        match unsafe { self.remove_forget(entity) } {
            Some(value) => {
                if let Some(drop) = self.drop {
                    // SAFETY: `value` points at the initialized value just unlinked.
                    unsafe { drop(value.as_ptr()) }
                }
                true
            }
            None => false,
        }
    }

    /// Clamps the ticks of every value to the age window relative to `now` (see
    /// [`Tick::check_tick`](super::Tick::check_tick)).
    ///
    /// # Examples
    /// ```
    /// use core::alloc::Layout;
    /// use ecs::entity::Entity;
    /// use ecs::storage::{ComponentTicks, MAX_CHANGE_AGE, SparseSet, Tick};
    /// let mut set = SparseSet::new(Layout::new::<()>(), None);
    /// let e = Entity::from_raw(3, 0);
    /// // SAFETY: a zero-sized value needs no initialization.
    /// unsafe { set.insert_uninit(e, ComponentTicks::new(Tick::new(1))) };
    /// set.check_change_ticks(Tick::new(MAX_CHANGE_AGE + 2));
    /// assert_eq!(set.ticks(e).unwrap().get().changed, Tick::new(2));
    /// ```
    pub fn check_change_ticks(&mut self, now: super::Tick) {
        for entity in &self.dense {
            let page = self.pages[(entity.index() >> PAGE_BITS) as usize].as_mut().expect("dense entity has a page");
            page.ticks[entity.index() as usize & (PAGE_SIZE - 1)].check_ticks(now);
        }
    }

    /// Verifies the invariants in the module docs.
    ///
    /// # Panics
    /// Panics describing the first violation.
    pub fn check_invariants(&self) {
        for (position, entity) in self.dense.iter().enumerate() {
            let page =
                self.pages[(entity.index() >> PAGE_BITS) as usize].as_ref().expect("dense entity without a page");
            assert_eq!(
                page.dense_index[entity.index() as usize & (PAGE_SIZE - 1)] as usize,
                position,
                "sparse slot of {entity:?} does not point back at its dense position"
            );
        }
        let linked: usize =
            self.pages.iter().flatten().map(|page| page.dense_index.iter().filter(|&&d| d != ABSENT).count()).sum();
        assert_eq!(linked, self.dense.len(), "sparse set has slots linked to no dense entity");
    }
}

fn new_page(item_layout: Layout) -> SparsePage {
    let data = if item_layout.size() == 0 {
        dangling(item_layout.align())
    } else {
        let layout = array_layout(item_layout, PAGE_SIZE);
        // SAFETY: `layout` has a non-zero size.
        let data = unsafe { alloc::alloc(layout) };
        NonNull::new(data).unwrap_or_else(|| alloc::handle_alloc_error(layout))
    };
    SparsePage {
        data,
        dense_index: vec![ABSENT; PAGE_SIZE].into_boxed_slice(),
        ticks: (0..PAGE_SIZE).map(|_| ComponentTickCells::default()).collect(),
    }
}

impl Drop for SparseSet {
    fn drop(&mut self) {
        let entities = core::mem::take(&mut self.dense);
        let mut panics = PanicSlot::default();
        if let Some(drop) = self.drop {
            for entity in &entities {
                let page =
                    self.pages[(entity.index() >> PAGE_BITS) as usize].as_ref().expect("dense entity has a page");
                let value = self.value_ptr(page, entity.index() as usize & (PAGE_SIZE - 1));
                // SAFETY: every dense entity's slot holds an initialized value, dropped
                // once here (a panicking `Drop` counts as dropped; the others go on).
                panics.catch(|| unsafe { drop(value.as_ptr()) });
            }
        }
        if self.item_layout.size() != 0 {
            let layout = array_layout(self.item_layout, PAGE_SIZE);
            for page in self.pages.iter().flatten() {
                // SAFETY: the page was allocated with this layout in `new_page`.
                unsafe { alloc::dealloc(page.data.as_ptr(), layout) }
            }
        }
        panics.resume();
    }
}
