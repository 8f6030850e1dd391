//! The component registry: type -> id, name -> id, id -> [`ComponentInfo`].
//!
//! A component whose entity is despawned is unregistered
//! ([`Components::unregister`]): its type may be registered again, under a
//! fresh id (component entity indices are retired, never recycled).

use core::any::TypeId;
use std::borrow::Cow;

use super::info::{Component, ComponentDescriptor, ComponentInfo, type_key_address};
use super::relationship::RelationshipTraits;
use crate::entity::{Entity, EntityFlags, EntityIndex, Id};
use crate::util::{FxHashMap, TypeIdMap};

/// Every registered component of a world. See the module docs.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::Components;
/// use ecs::entity::EntityIndex;
/// #[derive(Component)]
/// struct Mass(f32);
/// let mut entities = EntityIndex::default();
/// let mut components = Components::default();
/// let id = components.register::<Mass>(&mut entities);
/// assert_eq!(components.register::<Mass>(&mut entities), id); // idempotent
/// assert_eq!(components.id_of::<Mass>(), Some(id));
/// assert_eq!(components.lookup("Mass"), Some(id));
/// assert_eq!(components.info(id).unwrap().name(), "Mass");
/// ```
#[derive(Default)]
pub struct Components {
    infos: Vec<Option<ComponentInfo>>,
    by_type: TypeIdMap<Entity>,
    by_name: FxHashMap<Cow<'static, str>, Entity>,
    pending: Vec<Entity>,
    count: usize,
    /// Traits of relationships that are plain entities (created at run time),
    /// by entity index.
    runtime_relationships: FxHashMap<u32, RelationshipTraits>,
    /// A direct-mapped cache of `by_type` for typed lookups
    /// ([`Components::id_of_component`]): slot `T::ID % TYPE_CACHE_SLOTS`
    /// holds some registered type's id, checked by its `TypeId` (two types in
    /// one slot only miss). Empty until the first typed registration.
    type_cache: Vec<Option<(TypeId, Entity)>>,
}

/// How many slots [`Components`]'s typed lookup cache has (a power of two).
const TYPE_CACHE_SLOTS: usize = 64;

/// The cache slot of component type `T`.
#[inline(always)]
const fn type_cache_slot<T: Component>() -> usize {
    T::ID as usize & (TYPE_CACHE_SLOTS - 1)
}

impl Components {
    /// Registers `T` (once) and returns its id.
    #[inline]
    pub fn register<T: Component>(&mut self, entities: &mut EntityIndex) -> Entity {
        if let Some(id) = self.id_of_component::<T>() {
            return id;
        }
        let id = match self.by_type.get(&TypeId::of::<T>()) {
            Some(&id) => id,
            None => {
                let id = self.register_descriptor(ComponentDescriptor::new::<T>(), entities);
                if let Some(Some(info)) = self.infos.get_mut(id.index() as usize) {
                    info.type_key = type_key_address::<T>();
                }
                id
            }
        };
        if self.type_cache.is_empty() {
            self.type_cache.resize(TYPE_CACHE_SLOTS, None);
        }
        self.type_cache[type_cache_slot::<T>()] = Some((TypeId::of::<T>(), id));
        id
    }

    /// The id of component type `T`, if registered: [`Components::id_of`]
    /// through a small cache filled by [`Components::register`] (one slot
    /// read and a `TypeId` comparison when it hits).
    ///
    /// # Examples
    /// ```
    /// use ecs::component::Components;
    /// use ecs::entity::EntityIndex;
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Mass(f32);
    /// let (mut components, mut entities) = (Components::default(), EntityIndex::default());
    /// assert_eq!(components.id_of_component::<Mass>(), None);
    /// let id = components.register::<Mass>(&mut entities);
    /// assert_eq!(components.id_of_component::<Mass>(), Some(id));
    /// components.unregister(id);
    /// assert_eq!(components.id_of_component::<Mass>(), None);
    /// ```
    #[inline]
    pub fn id_of_component<T: Component>(&self) -> Option<Entity> {
        if let Some(Some((type_id, id))) = self.type_cache.get(type_cache_slot::<T>())
            && *type_id == TypeId::of::<T>()
        {
            return Some(*id);
        }
        self.id_of_type(TypeId::of::<T>())
    }

    /// Registers a component from its descriptor: allocates its entity, records the
    /// info and the names. A descriptor with a `type_id` already registered returns
    /// the existing id.
    pub fn register_descriptor(&mut self, descriptor: ComponentDescriptor, entities: &mut EntityIndex) -> Entity {
        if let Some(type_id) = descriptor.type_id
            && let Some(&id) = self.by_type.get(&type_id)
        {
            return id;
        }
        // Low indices whatever the entity range: tables here and in the storage
        // layers are indexed by component index.
        let id = entities.alloc_low();
        if let Some(flags) = entities.flags_mut(id) {
            *flags |= EntityFlags::IS_COMPONENT | EntityFlags::INTERNAL;
        }
        if let Some(type_id) = descriptor.type_id {
            self.by_type.insert(type_id, id);
        }
        self.by_name.entry(descriptor.name.clone()).or_insert(id);
        self.by_name.entry(descriptor.type_name.clone()).or_insert(id);
        let index = id.index() as usize;
        if index >= self.infos.len() {
            self.infos.resize_with(index + 1, || None);
        }
        self.infos[index] = Some(ComponentInfo { id, descriptor, type_key: 0 });
        self.pending.push(id);
        self.count += 1;
        id
    }

    /// The id of `T`, if registered.
    #[inline]
    pub fn id_of<T: 'static>(&self) -> Option<Entity> {
        self.id_of_type(TypeId::of::<T>())
    }

    /// The id of the type with `type_id`, if registered.
    #[inline]
    pub fn id_of_type(&self, type_id: TypeId) -> Option<Entity> {
        self.by_type.get(&type_id).copied()
    }

    /// The component registered under `name` (short name or full type path).
    pub fn lookup(&self, name: &str) -> Option<Entity> {
        self.by_name.get(name).copied()
    }

    /// The info of component `id`; `None` if `id` is no component of this registry.
    #[inline]
    pub fn info(&self, id: Entity) -> Option<&ComponentInfo> {
        let info = self.infos.get(id.index() as usize)?.as_ref()?;
        (info.id == id).then_some(info)
    }

    /// The info of the component whose entity index is `index`.
    #[inline]
    pub fn info_by_index(&self, index: u32) -> Option<&ComponentInfo> {
        self.infos.get(index as usize)?.as_ref()
    }

    /// The component whose hooks run when `id` is added, inserted, replaced or
    /// removed: the component of a plain id, or, for a concrete pair, the
    /// component that is its relationship (its first element): a
    /// relationship's hooks run for every pair of it, as Flecs runs a pair's
    /// type hooks. `None` for wildcards and unregistered ids.
    #[inline]
    pub(crate) fn hook_owner(&self, id: Id) -> Option<&ComponentInfo> {
        if id.is_pair() {
            if id.is_wildcard() {
                return None;
            }
            return self.info_by_index(id.first_index());
        }
        self.info_by_index(id.first_index()).filter(|info| info.id.id() == id)
    }

    /// Mutable info of component `id`.
    pub fn info_mut(&mut self, id: Entity) -> Option<&mut ComponentInfo> {
        let info = self.infos.get_mut(id.index() as usize)?.as_mut()?;
        (info.id == id).then_some(info)
    }

    /// How many components are registered.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no component is registered.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Iterates over every registered component's info.
    pub fn iter(&self) -> impl Iterator<Item = &ComponentInfo> {
        self.infos.iter().flatten()
    }

    /// The traits of the relationship whose entity index is `index`: a component's
    /// declared traits, those set at run time with
    /// [`Components::set_relationship_traits`], or [`RelationshipTraits::DEFAULT`].
    ///
    /// # Examples
    /// ```
    /// use ecs::component::{Components, RelationshipTraits};
    /// let components = Components::default();
    /// assert_eq!(components.relationship_traits(42), RelationshipTraits::DEFAULT);
    /// ```
    #[inline]
    pub fn relationship_traits(&self, index: u32) -> RelationshipTraits {
        if let Some(traits) = self.info_by_index(index).and_then(ComponentInfo::relationship) {
            return *traits;
        }
        if self.runtime_relationships.is_empty() {
            return RelationshipTraits::DEFAULT;
        }
        self.runtime_relationships.get(&index).copied().unwrap_or_default()
    }

    /// Sets the traits of a relationship that is a plain entity. A component's
    /// traits are fixed by its type and cannot be changed.
    ///
    /// # Panics
    /// Panics if `entity` is a registered component.
    pub fn set_relationship_traits(&mut self, entity: Entity, traits: RelationshipTraits) {
        if let Some(info) = self.info_by_index(entity.index()) {
            panic!("{entity:?} is the component {}: its relationship traits come from its type", info.name());
        }
        self.runtime_relationships.insert(entity.index(), traits);
    }

    /// Forgets the component `id` (its entity was despawned): its info, its type
    /// and its names (those that named it). Its entity index is retired by the
    /// world, so the id never names another component. Returns the info;
    /// `None` if `id` is no registered component.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::Components;
    /// use ecs::entity::EntityIndex;
    /// #[derive(Component)]
    /// struct Mass(f32);
    /// let (mut components, mut entities) = (Components::default(), EntityIndex::default());
    /// let id = components.register::<Mass>(&mut entities);
    /// assert_eq!(components.unregister(id).map(|info| info.id()), Some(id));
    /// assert_eq!((components.id_of::<Mass>(), components.lookup("Mass"), components.len()), (None, None, 0));
    /// assert_ne!(components.register::<Mass>(&mut entities), id); // a fresh id
    /// ```
    pub fn unregister(&mut self, id: Entity) -> Option<ComponentInfo> {
        self.info(id)?;
        let info = self.infos[id.index() as usize].take().expect("checked above");
        if let Some(type_id) = info.type_id() {
            self.by_type.remove(&type_id);
        }
        for slot in &mut self.type_cache {
            if slot.is_some_and(|(_, cached)| cached == id) {
                *slot = None;
            }
        }
        self.by_name.retain(|_, named| *named != id);
        self.pending.retain(|pending| *pending != id);
        self.forget_relationship_traits(id.index());
        self.count -= 1;
        Some(info)
    }

    /// Forgets the traits of a despawned runtime relationship.
    pub(crate) fn forget_relationship_traits(&mut self, index: u32) {
        if !self.runtime_relationships.is_empty() {
            self.runtime_relationships.remove(&index);
        }
    }

    /// Takes the ids registered since the last call: entities the world has not
    /// yet placed in its internal component archetype.
    pub fn take_pending(&mut self) -> Vec<Entity> {
        core::mem::take(&mut self.pending)
    }

    /// Whether registrations are waiting to be placed.
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }
}

/// Registers components on behalf of a bundle: the registry plus the entity index
/// that hands out component ids.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::{ComponentRegistrar, Components};
/// use ecs::entity::EntityIndex;
/// #[derive(Component)]
/// struct Mass(f32);
/// let (mut components, mut entities) = (Components::default(), EntityIndex::default());
/// let mut registrar = ComponentRegistrar::new(&mut components, &mut entities);
/// let id = registrar.register::<Mass>();
/// assert_eq!(registrar.components().id_of::<Mass>(), Some(id));
/// ```
pub struct ComponentRegistrar<'a> {
    components: &'a mut Components,
    entities: &'a mut EntityIndex,
}

impl<'a> ComponentRegistrar<'a> {
    /// A registrar over a registry and an entity index.
    #[inline]
    pub fn new(components: &'a mut Components, entities: &'a mut EntityIndex) -> Self {
        ComponentRegistrar { components, entities }
    }

    /// Registers `T` (once) and returns its id.
    #[inline]
    pub fn register<T: Component>(&mut self) -> Entity {
        self.components.register::<T>(self.entities)
    }

    /// The registry.
    #[inline]
    pub fn components(&self) -> &Components {
        self.components
    }
}
