//! Toggleable components: disabling and enabling a value per entity without a
//! move ([`World::is_enabled`], [`EntityWorldMut::disable`],
//! [`EntityWorldMut::enable`]).
//!
//! A `#[component(toggle)]` component's table columns carry one bit per row
//! (see `storage::column`); disabling flips the bit of the entity's row and
//! nothing else: no archetype move, no hook, no observer, no change tick. A
//! disabled value stays stored: [`World::get`] and [`World::get_mut`] still
//! return it (like Flecs' `ecs_get`), so it can be read and edited while
//! disabled; queries treat it as absent for every term. The bit travels with
//! the value when the entity moves to another table that holds the component,
//! and re-inserting a value over a disabled one keeps it disabled (an insert
//! replaces the value, not its state). Removing the component forgets the bit:
//! a value added later starts enabled.
//!
//! A toggleable component inherited through `IsA` (the default
//! `on_instantiate` policy) is as enabled as the base's own value: disabling
//! it on the prefab disables it for every instance reading it. An instance
//! that disables (or enables) a value it inherits gets its own copy first, a
//! clone of the base's (the derive finds `Clone` without a bound; a type
//! without it panics there, naming entity and component: insert an own value
//! first), as Flecs overrides a component an instance toggles.

use super::{EntityWorldMut, World};
use crate::component::{Component, StorageKind, Toggleable};
use crate::entity::{Entity, Id};

impl World {
    /// Whether `entity`'s `T` is enabled: `false` if the entity is not alive
    /// or lacks `T`, or its `T` is disabled ([`EntityWorldMut::disable`]). An
    /// inherited `T` is as enabled as on the base holding it. For a component
    /// that is not toggleable, whether the entity has `T`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Thrust(1.0)).id();
    /// assert!(world.is_enabled::<Thrust>(ship));
    /// world.entity_mut(ship).disable::<Thrust>();
    /// assert!(!world.is_enabled::<Thrust>(ship));
    /// assert_eq!(world.get::<Thrust>(ship).map(|t| t.0), Some(1.0)); // still stored
    /// world.entity_mut(ship).enable::<Thrust>();
    /// assert!(world.is_enabled::<Thrust>(ship));
    /// world.despawn(ship);
    /// assert!(!world.is_enabled::<Thrust>(ship));
    /// ```
    pub fn is_enabled<T: Component>(&self, entity: Entity) -> bool {
        if !T::TOGGLE || T::STORAGE != StorageKind::Table {
            return self.has::<T>(entity);
        }
        let Some(id) = self.components.id_of_component::<T>() else {
            return false;
        };
        let Some(archetype) = self.entities.location(entity).and_then(|at| self.archetypes.get(at.archetype)) else {
            return false;
        };
        // Its own value, else the base's it inherits.
        let holder = match archetype.column_of(id.id()) {
            Some(_) => Some(entity),
            None if crate::component::is_inherited::<T>() => archetype.inherited_from(id.id()),
            None => None,
        };
        holder.is_some_and(|holder| self.own_value_enabled(holder, id.id()))
    }

    /// Whether `entity`'s own value of the table component `id` is enabled:
    /// `true` for a column without enabled bits, `false` if the entity is
    /// not alive or has no such column. What an entity inheriting the value
    /// from `entity` sees.
    pub(crate) fn own_value_enabled(&self, entity: Entity, id: Id) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let Some(archetype) = self.archetypes.get(location.archetype) else {
            return false;
        };
        match archetype.column_of(id) {
            // SAFETY: the entity's row is below its table's length.
            Some(column) => unsafe { archetype.table().column(column).is_enabled(location.row as usize) },
            None => false,
        }
    }

    /// Enables or disables `entity`'s `T`; returns whether the entity has a
    /// `T` (nothing changes otherwise).
    fn set_enabled<T: Toggleable>(&mut self, entity: Entity, enabled: bool) -> bool {
        const {
            assert!(
                T::TOGGLE && matches!(T::STORAGE, StorageKind::Table),
                "Toggleable components need `Component::TOGGLE = true` and table storage: \
                 derive them with #[component(toggle)]"
            );
        };
        let Some(id) = self.components.id_of_component::<T>() else {
            return false;
        };
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let archetype = self.archetypes.get_mut(location.archetype);
        let Some(column) = archetype.column_of(id.id()) else {
            return self.set_inherited_enabled::<T>(entity, id, enabled);
        };
        archetype.table_mut().set_enabled(column, location.row as usize, enabled);
        true
    }

    /// [`World::set_enabled`] for an entity without a `T` of its own: one it
    /// inherits that is not already as asked becomes its own first (a clone
    /// of the base's value, inserted as any value is), then is set.
    #[track_caller]
    fn set_inherited_enabled<T: Toggleable>(&mut self, entity: Entity, id: Entity, enabled: bool) -> bool {
        let location = self.entities.location(entity).expect("set_enabled checked the entity is alive");
        let base = match self.archetypes[location.archetype].inherited_from(id.id()) {
            Some(base) if crate::component::is_inherited::<T>() => base,
            _ => return false,
        };
        if self.own_value_enabled(base, id.id()) == enabled {
            return true;
        }
        let Some(clone) = T::CLONE else {
            let action = if enabled { "enable" } else { "disable" };
            panic!(
                "cannot {action} {} on entity {entity:?}: its value is inherited from {base:?} and shared with \
                 every instance; insert a value of its own first (or derive Clone, and {action} copies it)",
                T::NAME
            );
        };
        let (source, _) = self.id_value(base, id.id()).expect("a base holds the value it gives");
        let mut value = core::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `source` is the base's `T` (the component's own clone fn,
        // `T::CLONE`), `value` room for one `T`; the clone initializes it.
        let value = unsafe {
            clone(source.as_ptr(), value.as_mut_ptr().cast());
            value.assume_init()
        };
        self.entity_mut(entity).insert(value);
        self.set_enabled::<T>(entity, enabled)
    }
}

impl EntityWorldMut<'_> {
    /// Disables the entity's `T` without moving it: queries treat the value
    /// as absent (`&T` skips the entity, `Option<&T>` is `None`, `Has<T>` is
    /// `false`, `Without<T>` matches) until [`EntityWorldMut::enable`]. The
    /// value stays stored and readable with `get`. Nothing happens if the
    /// entity has no `T`. An entity that inherits its `T` from a prefab gets
    /// its own copy first (a clone, inserted as any value is) unless the
    /// inherited value is already disabled. Toggling runs no hook or observer
    /// and does not mark the value changed.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`],
    /// or if it inherits an enabled `T` whose type is not `Clone` (no copy
    /// can be made: insert a value of its own first), naming the entity and
    /// the component.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// #[derive(Component)]
    /// struct Ship;
    /// let mut world = World::new();
    /// let a = world.spawn((Ship, Thrust(1.0))).id();
    /// let b = world.spawn((Ship, Thrust(2.0))).id();
    /// world.entity_mut(a).disable::<Thrust>();
    /// let mut thrusting = world.query::<(Entity, &Thrust)>();
    /// assert_eq!(thrusting.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    /// let mut idle = world.query_filtered::<Entity, (With<Ship>, Without<Thrust>)>();
    /// assert_eq!(idle.iter(&world).collect::<Vec<_>>(), vec![a]);
    /// ```
    #[track_caller]
    pub fn disable<T: Toggleable>(&mut self) -> &mut Self {
        self.toggle::<T>(false)
    }

    /// Enables the entity's `T` again after [`EntityWorldMut::disable`] (new
    /// values start enabled). Nothing happens if the entity has no `T`. An
    /// entity inheriting a `T` its prefab disabled gets its own (enabled)
    /// copy, as [`EntityWorldMut::disable`] describes.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`],
    /// or if it inherits a disabled `T` whose type is not `Clone`, naming the
    /// entity and the component.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Thrust(1.0)).id();
    /// world.entity_mut(ship).disable::<Thrust>().enable::<Thrust>();
    /// assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
    /// ```
    #[track_caller]
    pub fn enable<T: Toggleable>(&mut self) -> &mut Self {
        self.toggle::<T>(true)
    }

    #[track_caller]
    fn toggle<T: Toggleable>(&mut self, enabled: bool) -> &mut Self {
        let (world, entity) = self.world_and_entity();
        if !world.is_alive(entity) {
            let action = if enabled { "enable" } else { "disable" };
            panic!(
                "cannot {action} {} on entity {entity:?}: it is not alive (despawned while an EntityWorldMut \
                 of it was in use)",
                T::NAME
            );
        }
        world.set_enabled::<T>(entity, enabled);
        self
    }
}
