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
//! it on the prefab disables it for every instance reading it, and an
//! instance's `disable` changes nothing until the instance has a value of its
//! own (`insert` one, or declare the component `on_instantiate = "override"`).

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
        let Some(id) = self.components.id_of::<T>() else {
            return false;
        };
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let Some(archetype) = self.archetypes.get(location.archetype) else {
            return false;
        };
        match archetype.column_of(id.id()) {
            // SAFETY: the entity's row is below its table's length.
            Some(column) => unsafe { archetype.table().column(column).is_enabled(location.row as usize) },
            None if crate::component::is_inherited::<T>() => {
                archetype.inherited_from(id.id()).is_some_and(|base| self.own_value_enabled(base, id.id()))
            }
            None => false,
        }
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
        let Some(id) = self.components.id_of::<T>() else {
            return false;
        };
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        let archetype = self.archetypes.get_mut(location.archetype);
        let Some(column) = archetype.column_of(id.id()) else {
            return false;
        };
        archetype.table_mut().set_enabled(column, location.row as usize, enabled);
        true
    }
}

impl EntityWorldMut<'_> {
    /// Disables the entity's `T` without moving it: queries treat the value
    /// as absent (`&T` skips the entity, `Option<&T>` is `None`, `Has<T>` is
    /// `false`, `Without<T>` matches) until [`EntityWorldMut::enable`]. The
    /// value stays stored and readable with `get`. Nothing happens if the
    /// entity has no `T` of its own (an inherited `T` follows its prefab:
    /// disable it there, or insert a value of the instance's own). Toggling
    /// runs no hook or observer and does not mark the value changed.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`].
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
    /// values start enabled). Nothing happens if the entity has no `T`.
    ///
    /// # Panics
    /// Panics if the entity was despawned through [`EntityWorldMut::world_mut`].
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
