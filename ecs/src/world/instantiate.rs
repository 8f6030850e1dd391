//! Prefabs and instances: what adding `(IsA, base)` does (Flecs 4 semantics).
//!
//! When an entity gets its first `(IsA, base)` pair (through
//! [`World::instantiate`], `add_pair::<IsA>` or a bundle), each component of the
//! base (its own and what it inherits in turn) is handled by its
//! [`OnInstantiate`] policy:
//! * `Override`: the value is cloned into the instance unless the instance
//!   already owns one (a value given in the same spawn wins);
//! * `Inherit` (the default): nothing is copied; the archetype store lists
//!   the component as inherited (`Archetype::inherited`), so `get` and
//!   read-only query terms find the base's value (a toggleable one as enabled
//!   as on the base; a sparse one, in no type, by `World::sparse_base_of`'s
//!   walk of the bases when it is read);
//! * `DontInherit`: nothing (`Name`, `Prefab`, `ChildOf`, `IsA` and the
//!   internal markers are such).
//!
//! A union pair of the base (`#[relationship(union)]`) is copied: the
//! instance gets `(R, target)` with the base's target unless it holds a pair
//! of `R` already (Flecs copies `DontFragment` pairs). Other pairs the base
//! owns are copied too, as Flecs 4 copies pairs by default: a pair without a
//! value (a tag relationship's) or of an `override` relationship (its value
//! cloned), unless its relationship is `dont_inherit` or the copy would
//! close a cycle of an acyclic relationship (see
//! [`World::collect_pair_copies`]). A value pair of an `inherit` relationship
//! is not copied (it needs no `Clone`): it is inherited like an `inherit`
//! component (listed in `Archetype::inherited`), so `World::get_pair`,
//! `World::has_pair` and `World::has_id` of an instance see the prefab's
//! value.
//!
//! Then, if the base is a prefab, every child of the base (`(ChildOf, base)`)
//! is instantiated as a child of the instance: a new entity with `(IsA, child)`, `(ChildOf, instance)` and
//! the child's `Name`, recursively. An entity that gets `(ChildOf, p)` while
//! `p` is a `Prefab` becomes a `Prefab` itself, and an entity that becomes a
//! `Prefab` makes its children prefabs, so prefab children stay out of
//! queries.
//!
//! Invariants: an `Override` copy is made before the instance's archetype
//! changes (so a panicking `Clone` leaves the instance as it was); every base
//! is registered with the archetype store before the first pair naming it
//! exists.

use core::alloc::Layout;
use core::ptr::NonNull;

use smallvec::SmallVec;

use super::World;
use crate::component::{CloneFn, Name, OnInstantiate, Prefab};
use crate::entity::{Entity, EntityFlags, Id};
use crate::storage::ComponentTicks;
use crate::util::PanicSlot;

/// A value cloned out of a base, owned until it is written into an instance:
/// dropped (and its memory freed) if that never happens.
struct ClonedValue {
    ptr: NonNull<u8>,
    layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
}

impl ClonedValue {
    /// Clones the value at `source` (of a component with `layout`).
    ///
    /// # Safety
    /// `source` points to a valid value of the type `clone` and `drop` are for.
    unsafe fn new(source: *const u8, layout: Layout, clone: CloneFn, drop: Option<unsafe fn(*mut u8)>) -> ClonedValue {
        let ptr = if layout.size() == 0 {
            // A dangling but aligned address is valid for zero-sized values.
            NonNull::new(layout.align() as *mut u8).expect("alignments are non-zero")
        } else {
            // SAFETY: the layout has a non-zero size.
            NonNull::new(unsafe { std::alloc::alloc(layout) }).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
        };
        let mut value = ClonedValue { ptr, layout, drop: None };
        // SAFETY: `source` is a valid value (caller) and `ptr` room for one; if
        // `clone` panics, `value` frees the memory and drops nothing.
        unsafe { clone(source, ptr.as_ptr()) };
        value.drop = drop;
        value
    }

    /// Moves the value to `destination` (room for one, aligned); the memory is
    /// freed on drop, the value no longer dropped.
    ///
    /// # Safety
    /// `destination` is valid for a write of one value of the type and not
    /// initialized.
    unsafe fn write_to(mut self, destination: *mut u8) {
        // SAFETY: the caller gives room for one value; the source holds one.
        unsafe { core::ptr::copy_nonoverlapping(self.ptr.as_ptr(), destination, self.layout.size()) };
        self.drop = None;
    }
}

impl Drop for ClonedValue {
    fn drop(&mut self) {
        if let Some(drop) = self.drop {
            // SAFETY: the value was cloned in and not moved out (`write_to`
            // clears `drop`).
            unsafe { drop(self.ptr.as_ptr()) };
        }
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

impl World {
    /// Makes a new instance of `prefab`: an entity with `(IsA, prefab)`, its
    /// `override` components and its tag pairs copied, its children
    /// instantiated (see [`IsA`](crate::component::IsA) and the module docs).
    /// The same as `spawn_empty().add_pair::<IsA>(prefab)`.
    ///
    /// # Panics
    /// Panics if `prefab` is not alive, or cannot be a base (a wildcard such
    /// as [`Entity::WILDCARD`]), naming it; no instance is left behind then.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Clone, Debug, PartialEq)]
    /// #[component(on_instantiate = "override")]
    /// struct Health(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct MaxSpeed(f32);
    /// #[derive(Component)]
    /// struct Turret;
    /// let mut world = World::new();
    /// let ship = world.spawn((Prefab, Health(100), MaxSpeed(10.0))).id();
    /// world.spawn((Turret, Name::new("turret"), ChildOf.pair(ship)));
    /// let fighter = world.instantiate(ship);
    /// assert_eq!(world.get::<MaxSpeed>(fighter), Some(&MaxSpeed(10.0))); // inherited
    /// world.get_mut::<Health>(fighter).unwrap().0 -= 30; // its own copy
    /// assert_eq!(world.get::<Health>(ship), Some(&Health(100)));
    /// let turret = world.lookup_child(fighter, "turret").unwrap();
    /// assert!(world.get::<Turret>(turret).is_some());
    /// assert_eq!(world.query::<&Turret>().iter(&world).count(), 1); // the prefab's is hidden
    /// # #[derive(Relationship)]
    /// # struct Targets;
    /// # let enemy = world.spawn_empty().id();
    /// world.add_pair::<Targets>(ship, enemy);
    /// let second = world.instantiate(ship);
    /// assert!(world.has_pair::<Targets>(second, enemy)); // a copy of the prefab's pair
    /// ```
    #[track_caller]
    pub fn instantiate(&mut self, prefab: Entity) -> Entity {
        assert!(self.is_alive(prefab), "instantiate({prefab:?}): the prefab is not alive");
        let instance = self.spawn(()).id();
        if let Err(error) = self.try_add_id(instance, Id::pair(self.builtin.is_a, prefab)) {
            self.despawn(instance);
            panic!("instantiate({prefab:?}): {error}");
        }
        instance
    }

    /// The child of `parent` named `name` (a child whose `Name` is `name`);
    /// `None` if there is none or `parent` is not alive.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let ship = world.spawn_empty().id();
    /// let turret = world.spawn((Name::new("turret"), ChildOf.pair(ship))).id();
    /// assert_eq!(world.lookup_child(ship, "turret"), Some(turret));
    /// assert_eq!(world.lookup_child(ship, "engine"), None);
    /// ```
    pub fn lookup_child(&self, parent: Entity, name: &str) -> Option<Entity> {
        // Pairs name their target by index: a stale handle must not reach the
        // children of the entity that now has its index.
        if !self.is_alive(parent) {
            return None;
        }
        self.children_by_index(parent)
            .into_iter()
            .find(|&child| self.get::<Name>(child).is_some_and(|n| n.as_str() == name))
    }

    /// The entities with `(ChildOf, parent)`, in table order.
    pub(super) fn children_by_index(&self, parent: Entity) -> SmallVec<[Entity; 8]> {
        let child_of = self.builtin.child_of;
        let Some(record) = self.archetypes.component_index().get(Id::pair(child_of, parent)) else {
            return SmallVec::new();
        };
        record
            .non_empty()
            .iter()
            .flat_map(|entry| self.archetypes[entry.archetype].entities().iter().copied())
            .collect()
    }

    /// Before `(IsA, base)` is added anywhere: registers `base` with the
    /// archetype store, so the archetypes holding the pair know what they
    /// inherit.
    pub(super) fn register_base(&mut self, base: Entity) {
        if let Some(location) = self.entities.location(base)
            && !self.archetypes.is_base(base)
        {
            self.archetypes.register_base(base, location.archetype);
        }
    }

    /// After `id` was added to `entity` (new, not an overwrite): applies
    /// `(IsA, base)`'s instantiation and makes children of prefabs prefabs.
    pub(super) fn after_pair_added(&mut self, entity: Entity, id: Id) {
        if !id.is_pair() {
            return;
        }
        let relationship = id.first_index();
        if relationship == self.builtin.is_a.index() {
            let Some(target) = self.entity_at(id.second_index()) else { return };
            self.instantiate_from(entity, target);
        } else if relationship == self.builtin.child_of.index()
            && self.any_prefab()
            && let Some(target) = self.entity_at(id.second_index())
            && self.is_prefab(target)
            && !self.is_prefab(entity)
        {
            self.entity_mut(entity).insert(Prefab);
        }
    }

    /// After `entity` became a [`Prefab`]: its children (and theirs) become
    /// prefabs too, as children added to a prefab do (Flecs
    /// `prefab_children_after_adding_prefab`).
    pub(super) fn make_children_prefabs(&mut self, entity: Entity) {
        for child in self.children_by_index(entity) {
            if self.is_alive(child) && !self.is_prefab(child) {
                // Inserting `Prefab` reaches the child's own children.
                self.insert_bundle(child, Prefab);
            }
        }
    }

    /// Whether any entity holds [`Prefab`] (one component-index lookup): a
    /// world without prefabs skips the prefab checks of every `ChildOf` pair.
    #[inline]
    pub(super) fn any_prefab(&self) -> bool {
        self.archetypes
            .component_index()
            .get(self.builtin.prefab.id())
            .is_some_and(|record| !record.non_empty().is_empty())
    }

    /// Whether `entity` holds [`Prefab`]: its archetype's flag, no id lookup
    /// (checked on every `ChildOf` pair added).
    #[inline]
    pub(super) fn is_prefab(&self, entity: Entity) -> bool {
        self.entities.location(entity).is_some_and(|location| {
            self.archetypes[location.archetype].flags().contains(crate::archetype::ArchetypeFlags::PREFAB)
        })
    }

    /// Copies `base`'s `override` components into `instance` and instantiates
    /// `base`'s children under it.
    fn instantiate_from(&mut self, instance: Entity, base: Entity) {
        let Some(location) = self.entities.location(base) else { return };
        let archetype = &self.archetypes[location.archetype];
        // The base's own ids, then what it inherits (each with its holder).
        let mut copies: SmallVec<[(Id, Entity); 8]> = SmallVec::new();
        for &id in archetype.ids().iter().filter(|id| !id.is_pair()) {
            copies.push((id, base));
        }
        for &(id, holder) in archetype.inherited() {
            if !archetype.contains(id) {
                copies.push((id, holder));
            }
        }
        copies.retain(|&mut (id, _)| {
            self.component_of_id(id).is_some_and(|info| info.on_instantiate() == OnInstantiate::Override)
        });
        let pair_sources = self.pair_sources(instance, base);
        self.collect_pair_copies(instance, &pair_sources, &mut copies);
        self.copy_overrides(instance, &copies);
        self.copy_sparse_overrides(instance, base);
        self.copy_union_pairs(instance, &pair_sources);
        // Only a prefab's children are instantiated (Flecs: a plain base
        // passes on no children).
        if !self.is_prefab(base) {
            return;
        }
        for child in self.children_by_index(base) {
            if !self.is_alive(instance) {
                break; // a hook despawned it: no children to give
            }
            let name = self.get::<Name>(child).cloned();
            // Two bases with a child of one name: the first added base's child
            // is the instance's (names are unique among siblings).
            if let Some(name) = &name
                && self.lookup_child(instance, name.as_str()).is_some()
            {
                continue;
            }
            let copy = self.spawn(()).id();
            let (is_a, child_of) = (self.builtin.is_a, self.builtin.child_of);
            // `IsA` first: the copy's overrides land in tables shared by every
            // instance's copy; only the parent pair fragments per instance.
            if self.is_alive(child) {
                let _ = self.try_add_id(copy, Id::pair(is_a, child));
            }
            if !self.is_alive(copy) {
                continue;
            }
            if self.try_add_id(copy, Id::pair(child_of, instance)).is_err() {
                // The instance went (a hook despawned it): no orphan copy.
                self.despawn(copy);
                continue;
            }
            if let Some(name) = name
                && self.is_alive(copy)
            {
                self.entity_mut(copy).insert(name);
            }
        }
    }

    /// Adds to `copies` the pairs of `base` that `instance` gets a copy of
    /// (Flecs 4 copies pairs by default, `(OnInstantiate, Override)`): each
    /// `(R, target)` the base owns whose relationship is not `dont_inherit`
    /// (`IsA`, `ChildOf` and the internal ones are), carries no value or has
    /// `on_instantiate = "override"` (a value is cloned, so it needs `Clone`;
    /// a value of an `inherit` relationship stays the base's, unshared), is
    /// not a union pair ([`World::copy_union_pairs`] gives those), and would
    /// not close a cycle of an acyclic relationship. A pair of an exclusive
    /// relationship is skipped when `instance` holds one of that relationship
    /// already (one given in the same spawn wins). A base that is itself an
    /// instance got its bases' pairs when it was made; the pairs the base's
    /// own prefab bases hold now are copied too (nearer bases first), so a
    /// chain of prefabs passes them down as it passes `override` values.
    /// `sources` are [`World::pair_sources`] of the base.
    fn collect_pair_copies(&self, instance: Entity, sources: &[Entity], copies: &mut SmallVec<[(Id, Entity); 8]>) {
        let Some(location) = self.entities.location(instance) else { return };
        let own = self.archetypes[location.archetype].ids();
        for &holder in sources {
            self.collect_pairs_of(instance, own, holder, copies);
        }
    }

    /// The entities whose pairs an instance of `base` copies: the base, then
    /// its prefab bases (depth-first in the order they were added, nearer
    /// first), as `override` components come from `Archetype::inherited`: a
    /// pair added to a prefab's base after the prefab was made reaches new
    /// instances too.
    fn pair_sources(&self, instance: Entity, base: Entity) -> SmallVec<[Entity; 4]> {
        let is_a = self.builtin.is_a.index();
        let mut holders: SmallVec<[Entity; 4]> = SmallVec::new();
        let mut pending: SmallVec<[Entity; 4]> = smallvec::smallvec![base];
        while let Some(holder) = pending.pop() {
            if holders.contains(&holder) || holder == instance {
                continue;
            }
            let Some(holder_location) = self.entities.location(holder) else { continue };
            let archetype = &self.archetypes[holder_location.archetype];
            if holder != base && !self.is_prefab(holder) {
                continue;
            }
            holders.push(holder);
            // In the order they were added (the archetype records it unless
            // it is the type order), pushed in reverse: the first added base
            // is visited first.
            let bases: SmallVec<[Entity; 4]> = if archetype.base_order().is_empty() {
                archetype
                    .ids()
                    .iter()
                    .filter(|id| id.is_pair() && id.first_index() == is_a)
                    .filter_map(|id| self.entity_at(id.second_index()))
                    .collect()
            } else {
                archetype.base_order().iter().filter_map(|&index| self.entity_at(index)).collect()
            };
            pending.extend(bases.into_iter().rev());
        }
        holders
    }

    /// [`World::collect_pair_copies`] for the pairs `holder` owns.
    fn collect_pairs_of(&self, instance: Entity, own: &[Id], holder: Entity, copies: &mut SmallVec<[(Id, Entity); 8]>) {
        let Some(holder_location) = self.entities.location(holder) else { return };
        for &id in self.archetypes[holder_location.archetype].ids().iter().filter(|id| id.is_pair()) {
            if crate::archetype::is_union_id(id) || own.contains(&id) || copies.iter().any(|(copy, _)| *copy == id) {
                continue;
            }
            let relationship = id.first_index();
            let copied = match self.components.info_by_index(relationship) {
                Some(info) => match info.on_instantiate() {
                    OnInstantiate::DontInherit => false,
                    OnInstantiate::Override => true,
                    OnInstantiate::Inherit => !info.pair_needs_value(),
                },
                // A plain entity used as a relationship: a tag.
                None => true,
            };
            if !copied {
                continue;
            }
            let traits = self.components.relationship_traits(relationship);
            let of_relationship = |held: &Id| held.is_pair() && held.first_index() == relationship;
            if traits.exclusive
                && (own.iter().any(of_relationship) || copies.iter().any(|(copy, _)| of_relationship(copy)))
            {
                continue;
            }
            let Some(target) = self.entity_at(id.second_index()) else { continue };
            if traits.acyclic && self.reaches(relationship, traits.exclusive, target, instance) {
                continue;
            }
            copies.push((id, holder));
        }
    }

    /// Clones each sparse `override` value `base` owns or gets from its own
    /// prefab bases into `instance`, unless `instance` owns one already
    /// (Flecs `Sparse_override_component`):
    /// sparse values live in no archetype, so [`World::copy_overrides`] does
    /// not see them. Every value is cloned before any is inserted (a
    /// panicking `Clone` changes nothing); each insert runs the component's
    /// hooks and observers as `add_id` of it does.
    fn copy_sparse_overrides(&mut self, instance: Entity, base: Entity) {
        let Some(base_location) = self.entities.location(base) else { return };
        let base_archetype = &self.archetypes[base_location.archetype];
        let mut values: SmallVec<[(Entity, ClonedValue); 2]> = SmallVec::new();
        for (component, set) in self.sparse_sets.iter() {
            let Some(info) = self.components.info(component) else { continue };
            let (Some(clone), OnInstantiate::Override) = (info.clone_fn(), info.on_instantiate()) else { continue };
            if set.is_empty() || set.contains(instance) {
                continue; // its own value wins
            }
            // The base's own value, else the nearest one its prefab bases
            // give (as table overrides come from `Archetype::inherited`).
            let holder = if set.contains(base) { Some(base) } else { self.sparse_base_of(base_archetype, component) };
            let Some(source) = holder.and_then(|holder| set.get(holder)) else { continue };
            // SAFETY: `source` is `base`'s value in the set of the component
            // whose layout, clone and drop functions these are.
            values
                .push((component, unsafe { ClonedValue::new(source.as_ptr(), info.layout(), clone, info.drop_fn()) }));
        }
        let tick = self.change_tick();
        for (component, value) in values {
            let Some(set) = self.sparse_sets.index_of(component) else { continue };
            let set = self.sparse_sets.get_mut(set);
            if !self.entities.is_alive(instance) || set.contains(instance) {
                continue; // an earlier insert's hook despawned it or gave it one
            }
            // SAFETY: the instance holds no value in this set; the slot is
            // written at once with the cloned value of the set's type.
            unsafe { value.write_to(set.insert_uninit(instance, ComponentTicks::new(tick)).as_ptr()) };
            self.flag(instance, EntityFlags::HAS_SPARSE);
            self.after_id_insert(instance, component.id(), false);
        }
    }

    /// Gives `instance` each union pair `base` (or, nearer first, one of its
    /// prefab bases) holds, `(R, target)` with the holder row's target, unless
    /// `instance` holds a pair of `R` already (one given in the same spawn
    /// wins). A union pair's target lives in its
    /// holder's row, so it is copied rather than shared: Flecs' default
    /// `(OnInstantiate, Override)` for `DontFragment` relationships
    /// (`prefab_w_union`). Later changes of the base's target do not reach
    /// the copy.
    fn copy_union_pairs(&mut self, instance: Entity, sources: &[Entity]) {
        // The base's own, then its prefab bases' (`sources`, as other pairs).
        let mut pairs: SmallVec<[(u32, Entity); 2]> = SmallVec::new();
        for &holder in sources {
            let Some(location) = self.entities.location(holder) else { continue };
            for id in self.archetypes[location.archetype].ids().iter().filter(|&&id| crate::archetype::is_union_id(id))
            {
                let relationship = id.first_index();
                if pairs.iter().all(|&(taken, _)| taken != relationship)
                    && let Some(target) = self.union_target(holder, relationship)
                {
                    pairs.push((relationship, target));
                }
            }
        }
        for (relationship, target) in pairs {
            if !self.is_alive(instance) || self.union_target(instance, relationship).is_some() {
                continue;
            }
            // A failure (a dead target) leaves the instance without the pair,
            // as an `add_pair` to that target would.
            let _ = self.try_add_id(instance, Id::pair_from_indices(relationship, target.index()));
        }
    }

    /// Clones each `(component, holder)`'s value into `instance` (tags
    /// without a clone function are just added), skipping those `instance`
    /// owns already, in one archetype move. Every value is cloned before
    /// anything changes, so a panicking `Clone` leaves the instance as it was.
    fn copy_overrides(&mut self, instance: Entity, copies: &[(Id, Entity)]) {
        let Some(location) = self.entities.location(instance) else { return };
        let mut values: SmallVec<[(Id, Option<ClonedValue>); 8]> = SmallVec::new();
        // Toggleable values copied disabled: their bit comes along.
        let mut disabled: SmallVec<[Id; 2]> = SmallVec::new();
        for &(id, holder) in copies {
            if self.archetypes[location.archetype].contains(id) || values.iter().any(|(added, _)| *added == id) {
                continue; // its own value wins (and the nearest holder's)
            }
            // A pair's value is its relationship's.
            let info =
                if id.is_pair() { self.components.info_by_index(id.first_index()) } else { self.component_of_id(id) };
            let Some(info) = info else {
                // A pair of a plain entity used as a relationship: a tag.
                if id.is_pair() {
                    values.push((id, None));
                }
                continue;
            };
            let (layout, drop) = (info.layout(), info.drop_fn());
            let needs_value = if id.is_pair() { info.pair_needs_value() } else { info.needs_value() };
            match info.clone_fn() {
                Some(clone) => {
                    // A zero-sized value may have no column: any aligned address is one.
                    let source = match self.id_value(holder, id) {
                        Some((source, _)) => source,
                        None if layout.size() == 0 => NonNull::dangling(),
                        None => continue,
                    };
                    if info.is_toggle() && !id.is_pair() && !self.own_value_enabled(holder, id) {
                        disabled.push(id);
                    }
                    // SAFETY: `source` points at `holder`'s value of the
                    // component whose clone and drop functions these are.
                    values.push((id, Some(unsafe { ClonedValue::new(source.as_ptr(), layout, clone, drop) })));
                }
                // A tag without a clone function: adding it is the copy.
                None if layout.size() == 0 && !needs_value => values.push((id, None)),
                None => {}
            }
        }
        if values.is_empty() {
            return;
        }
        let mut ids: SmallVec<[Id; 16]> = SmallVec::from_slice(self.archetypes[location.archetype].ids());
        ids.extend(values.iter().map(|(id, _)| *id));
        ids.sort_unstable();
        let destination = self.archetypes.get_or_create_from(location.archetype, &ids, &self.components);
        let mut panics = PanicSlot::default();
        let row = self.move_entity(instance, location, destination, &mut panics);
        let tick = self.change_tick();
        let archetype = self.archetypes.get_mut(destination);
        for (id, value) in values.iter_mut() {
            let column = archetype.column_of(*id);
            match (column, value.take()) {
                (Some(column), value) => {
                    let column = archetype.table_mut().column_mut(column);
                    // SAFETY: the move left `row`'s slot of this new column
                    // uninitialized; `value` is a value of the column's type
                    // (a zero-sized tag's column holds only ticks).
                    unsafe {
                        if let Some(value) = value {
                            value.write_to(column.get_ptr(row).as_ptr());
                        }
                        column.set_ticks(row, ComponentTicks::new(tick));
                    }
                }
                // A zero-sized value without a column: the archetype's tag
                // stands for it (and drops it with the tag).
                // SAFETY: zero-sized: nothing is written.
                (None, Some(value)) => unsafe { value.write_to(NonNull::<u8>::dangling().as_ptr()) },
                (None, None) => {}
            }
        }
        for id in disabled {
            if let Some(column) = archetype.column_of(id) {
                archetype.table_mut().set_enabled(column, row, false);
            }
        }
        // One event for all the copies (a multi-component observer fires once,
        // as for a spawn of the same bundle).
        let ids: SmallVec<[Id; 8]> = values.iter().map(|(id, _)| *id).collect();
        if ids.iter().any(|&id| self.id_has_lifecycle(id)) {
            self.ids_lifecycle(super::hooks::HookKind::Add, instance, &ids);
            self.ids_lifecycle(super::hooks::HookKind::Insert, instance, &ids);
            self.flush_deferred();
        }
        panics.resume();
    }

    /// The base the entities of `archetype` inherit their value of the sparse
    /// component `component` from, if any: the rules of table components
    /// (`archetype::inheritance`), walked when asked since sparse values are
    /// not in any type. Bases are visited depth-first in the order they were
    /// added ([`Archetype::base_order`](crate::archetype::Archetype::base_order)); a
    /// prefab holding a value gives it; a plain base holding one gives
    /// nothing and hides what lies beyond it; any other base passes on what
    /// its own bases give.
    pub(crate) fn sparse_base_of(&self, archetype: &crate::archetype::Archetype, component: Entity) -> Option<Entity> {
        if !self.archetypes.has_bases() {
            return None;
        }
        let set = self.sparse_sets.of(component).filter(|set| !set.is_empty())?;
        let is_a = self.builtin.is_a.index();
        let bases_of = |archetype: &crate::archetype::Archetype, stack: &mut SmallVec<[Entity; 8]>| {
            let mark = stack.len();
            let bases = self.pair_ids_in(archetype, is_a);
            stack.extend(bases.filter_map(|id| self.entities.entity_at(id.second_index())));
            // Popped in the order they were added.
            stack[mark..].reverse();
        };
        let mut stack: SmallVec<[Entity; 8]> = SmallVec::new();
        bases_of(archetype, &mut stack);
        let mut visited: SmallVec<[Entity; 8]> = SmallVec::new();
        while let Some(base) = stack.pop() {
            if visited.contains(&base) {
                continue;
            }
            visited.push(base);
            let Some(location) = self.entities.location(base) else { continue };
            let base_archetype = &self.archetypes[location.archetype];
            if set.contains(base) {
                if base_archetype.contains(self.builtin.prefab.id()) {
                    return Some(base);
                }
                continue;
            }
            bases_of(base_archetype, &mut stack);
        }
        None
    }
}
