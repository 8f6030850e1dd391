//! The [`World`]: entities, components, archetypes, sparse sets and resources.
//!
//! Structural changes (spawn, insert, remove, despawn) go through cached bundle
//! edges: one lookup gives the destination archetype and where every value goes,
//! then one row move and typed writes finish the job.
//!
//! Invariants (checked by [`World::check_invariants`]):
//! * every alive entity that is placed has a record pointing at a row holding it;
//! * every table's columns have one row per entity;
//! * the component index lists exactly the archetypes containing each id, those
//!   with rows before the empty ones;
//! * sparse sets only hold values of alive entities flagged `HAS_SPARSE`;
//! * no archetype's type names a dead entity (as an id, a relationship or a
//!   pair target): despawn cleanup (`cleanup.rs`) removes such ids first and
//!   deletes the archetypes that named the entity;
//! * every registered component's entity is alive and flagged `IS_COMPONENT`
//!   (despawning it unregisters it and retires its index).
//! * every tick stored in the world (table columns, sparse sets, resources,
//!   `last_change_tick`) is at most `MAX_CHANGE_AGE` older than the clock was at
//!   the last age check, and none is newer than the clock: the age check
//!   ([`World::check_change_ticks`], see `storage::tick`) clamps them whenever
//!   `CHECK_TICK_THRESHOLD` ticks passed, so the 32-bit ticks never wrap.
//!
//! Panic safety: a value's `Drop` may panic. Despawn (with its cleanup),
//! remove, insert over existing values and dropping the world still complete,
//! dropping every other value exactly once, and then the first panic continues
//! (the storage layers hand it up in a [`PanicSlot`] so the world updates its
//! records first). Panicking hooks and observers: see `hooks`.
//!
//! The world never names `query`, `relation` or `observer`; those layers hook in
//! through data it stores (hooks as fn pointers, component ids, archetype flags).

mod bundle_pairs;
mod change_detection;
mod cleanup;
mod command_queue;
mod deferred;
mod entity_ref;
mod gc;
mod hooks;
mod ids;
mod inherited_events;
mod instantiate;
mod messages;
mod names;
mod observers;
mod resource;
mod spawn_batch;
mod toggle;
mod union;

use core::any::type_name;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

pub use change_detection::{Mut, Ref};
pub use cleanup::CleanupError;
pub use command_queue::CommandQueue;
pub use deferred::{DeferredWorld, HookFn};
pub use entity_ref::{EntityRef, EntityWorldMut};
pub use gc::GcConfig;
pub use ids::PairError;
pub use messages::{Message, MessageCursor, Messages, ReadMessages};
pub use names::NameError;
pub use observers::{
    ObserverMarker, ObserverRunner, Observers, OnAdd, OnDespawn, OnInsert, OnRemove, OnReplace, TriggerInfo,
};
pub use resource::{Resource, Resources};
pub use spawn_batch::SpawnBatchIter;

use crate::archetype::Archetypes;
use crate::bundle::{Bundle, BundleId, BundleReader, BundleWriter, Bundles, ReadSource};
use crate::component::{Component, ComponentInfo, ComponentRegistrar, Components, Internal, Name, StorageKind};
use crate::entity::{ArchetypeId, Entity, EntityFlags, EntityIndex, EntityLocation, RemoteEntities, SpawnError};
use crate::storage::{CHECK_TICK_THRESHOLD, ComponentTicks, MAX_CHANGE_AGE, SparseSets, Tick, TickCell, WideTick};
use crate::util::PanicSlot;
use hooks::HookKind;
use smallvec::SmallVec;

/// What freeing a despawned entity does with its table row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RowFate {
    /// The row is removed with the entity (the last row moves into its place).
    Removed,
    /// The row stays until the caller clears the whole table
    /// ([`Archetypes::clear_rows`]): every row of it is being despawned.
    ClearedWithTable,
}

/// The `(added, changed)` tick cells of one value.
type TickCells<'a> = (&'a TickCell, &'a TickCell);

/// Identifies one world, so that state built for it (a `QueryState`) is never
/// used with another.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WorldId(u32);

static NEXT_WORLD_ID: AtomicU32 = AtomicU32::new(0);

/// The ids of the built-in components and entities of every world.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinIds {
    /// [`ComponentInfo`], carried by component entities.
    pub component_info: Entity,
    /// [`Name`].
    pub name: Entity,
    /// [`Internal`], carried by every internal entity.
    pub internal: Entity,
    /// [`ObserverMarker`], carried by observer entities.
    pub observer: Entity,
    /// [`ChildOf`](crate::component::ChildOf), the hierarchy relationship.
    pub child_of: Entity,
    /// [`IsA`](crate::component::IsA), the inheritance relationship.
    pub is_a: Entity,
    /// [`Prefab`](crate::component::Prefab), the tag of prefabs.
    pub prefab: Entity,
}

/// The container of all entities, components and resources.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
/// struct Position { x: f32, y: f32 }
/// #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
/// struct Velocity { x: f32, y: f32 }
/// #[derive(Component)]
/// struct Enemy;
///
/// let mut world = World::new();
/// let e = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 })).id();
/// world.entity_mut(e).insert(Enemy).remove::<Velocity>();
/// assert!(world.has::<Enemy>(e));
/// assert_eq!(world.get::<Velocity>(e), None);
/// assert_eq!(world.remove::<Position>(e), Some(Position::default()));
/// assert!(world.despawn(e));
/// assert!(!world.despawn(e));
/// assert_eq!(world.entity_count(), 0);
/// ```
pub struct World {
    id: WorldId,
    entities: EntityIndex,
    components: Components,
    archetypes: Archetypes,
    bundles: Bundles,
    sparse_sets: SparseSets,
    resources: Resources,
    /// The 64-bit change clock ([`WideTick`]); values are stamped with its low
    /// 32 bits.
    change_tick: AtomicU64,
    last_change_tick: Tick,
    /// The clock when the age check last ran ([`World::check_change_ticks`]).
    last_check_tick: WideTick,
    internal_count: usize,
    builtin: BuiltinIds,
    /// The entity buffer of despawn cleanup plans, kept between despawns.
    cleanup_scratch: Vec<Entity>,
    /// Inherited components entities gained in the structural change under
    /// way, reported when it completes (`inherited_events`).
    pending_inherited: Vec<(Entity, crate::entity::Id)>,
    /// The holders of union pairs by target index: `(holder, relationship
    /// index)` for every row whose union target it is (module `union`).
    union_holders: union::UnionHolders,
    /// Emptied lists of `union_holders` entries, reused by new entries.
    union_spare_lists: Vec<Vec<(Entity, u32)>>,
    /// A dying target's union holders, copied while its cleanup is planned
    /// (kept to save an allocation per despawned target).
    union_holders_scratch: Vec<(Entity, u32)>,
    /// Commands issued by hooks and observers, applied before the structural
    /// change that triggered them returns.
    deferred: CommandQueue,
    /// The observers.
    observers: Observers,
    /// The entity whose sibling name check waits for the end of the bundle
    /// being inserted into it (see `names`).
    /// The entity a `Commands::spawn` is filling: a sibling name clash of
    /// its bundle despawns it (as [`World::spawn`] does) instead of
    /// restoring its previous name.
    spawned_by_command: Option<Entity>,
    /// Whether the bundle being inserted comes from a command: a pair of it
    /// whose target was despawned meanwhile gets its relationship's
    /// `on_delete_target` policy (as `EntityCommands::add_pair` does)
    /// instead of a panic.
    pairs_by_policy: bool,
    name_check_deferred: Option<Entity>,
    /// Every entity carrying a `Name`, by name (kept by `Name`'s hooks; see
    /// `names`): lookups and sibling checks look at the few entities with
    /// one name instead of every named entity.
    name_index: NameIndex,
    /// Bumped whenever a name or a named entity's parent changes (what
    /// `World::path` and `lookup` give may change): shared with runtime
    /// queries, which print names only while it has not moved.
    name_epoch: std::sync::Arc<core::sync::atomic::AtomicU64>,
    /// The key each named entity is filed under in `name_index` (its name
    /// when last indexed; a name written in place differs until the next
    /// flush re-files it).
    indexed_names: crate::util::FxHashMap<Entity, Box<str>>,
    /// Entities whose `Name` was handed out for writing in place
    /// (`World::get_mut`) since the last flush.
    names_written: Vec<Entity>,
    /// Some query handed out `Name`s for writing in place (any entity's may
    /// have changed) since the last flush.
    /// [`NAMES_ALL_WRITTEN`] if some query handed out `Name`s for writing in
    /// place (any entity's may have changed), [`NAMES_LISTED`] if
    /// `names_written` lists entities, since the last flush (one load tells
    /// the flush whether it has anything to re-file).
    names_dirty: core::sync::atomic::AtomicU8,
    /// While [`NAMES_ALL_WRITTEN`]: every holder filed by its current name, built by
    /// the first lookup after the `name_epoch` it records moved (lookups are
    /// `&self`; the index itself is repaired at the next flush).
    names_by_value: std::sync::Mutex<(u64, NameIndex)>,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

impl Drop for World {
    /// Drops every value (table rows, sparse sets, resources, unapplied
    /// commands, observers) even if some `Drop`s panic; the first panic
    /// continues once everything is dropped.
    fn drop(&mut self) {
        let mut panics = PanicSlot::default();
        self.archetypes.drop_values(&mut panics);
        let sparse_sets = core::mem::take(&mut self.sparse_sets);
        panics.catch(|| drop(sparse_sets));
        self.resources.drop_values(&mut panics);
        let deferred = core::mem::take(&mut self.deferred);
        panics.catch(|| drop(deferred));
        let observers = core::mem::take(&mut self.observers);
        panics.catch(|| drop(observers));
        panics.resume();
    }
}

impl core::fmt::Debug for World {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("World")
            .field("id", &self.id)
            .field("entities", &self.entity_count())
            .field("archetypes", &self.archetypes.len())
            .field("components", &self.components.len())
            .field("resources", &self.resources.len())
            .finish()
    }
}

/// How many passes [`World::clear_entities`] makes at most.
const CLEAR_PASSES: usize = 16;

impl World {
    /// An empty world (with its built-in entities: the wildcards, the union marker and the
    /// component entities of `ComponentInfo`, `Name`, `Internal`,
    /// `ObserverMarker`, `ChildOf`, `IsA`, `Disabled` and `Prefab`, all
    /// permanent: [`World::despawn`] of one returns `false` and changes nothing).
    ///
    /// # Panics
    /// Panics if more than `u32::MAX` worlds are created in one process.
    pub fn new() -> World {
        let id = NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed);
        assert!(id != u32::MAX, "too many worlds");
        let mut entities = EntityIndex::default();
        let wildcard = entities.alloc();
        let any = entities.alloc();
        let union = entities.alloc();
        debug_assert_eq!((wildcard, any, union), (Entity::WILDCARD, Entity::ANY, Entity::UNION));
        let mut components = Components::default();
        let builtin = BuiltinIds {
            component_info: components.register::<ComponentInfo>(&mut entities),
            name: components.register::<Name>(&mut entities),
            internal: components.register::<Internal>(&mut entities),
            observer: components.register::<ObserverMarker>(&mut entities),
            // Registered below, once the world exists.
            child_of: Entity::WILDCARD,
            is_a: Entity::WILDCARD,
            prefab: Entity::WILDCARD,
        };
        // `Name`'s hooks keep the name index (set before any bundle holding
        // `Name` caches whether its components have hooks).
        if let Some(info) = components.info_mut(builtin.name) {
            *info.hooks_mut() = names::NAME_HOOKS;
        }
        let mut archetypes = Archetypes::new();
        archetypes.add_internal_marker(builtin.internal.id());
        archetypes.add_internal_marker(builtin.component_info.id());
        archetypes.add_internal_marker(builtin.observer.id());
        let mut world = World {
            id: WorldId(id),
            entities,
            components,
            archetypes,
            bundles: Bundles::default(),
            sparse_sets: SparseSets::default(),
            resources: Resources::default(),
            change_tick: AtomicU64::new(1),
            last_change_tick: Tick::new(0),
            last_check_tick: WideTick::new(0),
            internal_count: 0,
            builtin,
            cleanup_scratch: Vec::new(),
            pending_inherited: Vec::new(),
            union_holders: union::UnionHolders::default(),
            union_spare_lists: Vec::new(),
            union_holders_scratch: Vec::new(),
            deferred: CommandQueue::default(),
            observers: Observers::default(),
            name_check_deferred: None,
            spawned_by_command: None,
            pairs_by_policy: false,
            name_index: crate::util::FxHashMap::default(),
            name_epoch: std::sync::Arc::default(),
            indexed_names: crate::util::FxHashMap::default(),
            names_written: Vec::new(),
            names_dirty: core::sync::atomic::AtomicU8::new(0),
            names_by_value: std::sync::Mutex::new((u64::MAX, crate::util::FxHashMap::default())),
        };
        // The world relies on these: they are never despawned.
        for builtin in [builtin.component_info, builtin.name, builtin.internal, builtin.observer] {
            world.flag(builtin, EntityFlags::PERMANENT);
        }
        for (wildcard, name) in [(wildcard, "*"), (any, "_"), (union, "*union*")] {
            world.mark_internal(wildcard);
            world.flag(wildcard, EntityFlags::PERMANENT);
            let bundle_id = world.register_bundle::<(Name, Internal)>();
            world.place_spawned(wildcard, bundle_id, (Name::new(name), Internal));
        }
        world.flush_components();
        world.builtin.child_of = world.register_component::<crate::component::ChildOf>();
        let is_a = world.register_component::<crate::component::IsA>();
        world.builtin.is_a = is_a;
        world.archetypes.set_inheritance_relationship(is_a);
        // Disabled entities and prefabs are hidden from queries that do not name them.
        let disabled = world.register_component::<crate::component::Disabled>();
        let prefab = world.register_component::<crate::component::Prefab>();
        world.builtin.prefab = prefab;
        world.archetypes.add_hiding_marker(disabled.id(), crate::archetype::ArchetypeFlags::DISABLED);
        world.archetypes.add_hiding_marker(prefab.id(), crate::archetype::ArchetypeFlags::PREFAB);
        // Every other part relies on these too (Flecs refuses deleting a
        // built-in): never despawned, also not by a cascade.
        for builtin in [world.builtin.child_of, is_a, disabled, prefab] {
            world.flag(builtin, EntityFlags::PERMANENT);
        }
        // `flush_entities` relies on `()` being registered (it must not allocate).
        world.register_bundle::<()>();
        world
    }

    /// This world's id.
    #[inline]
    pub fn id(&self) -> WorldId {
        self.id
    }

    /// The ids of the built-in components.
    #[inline]
    pub fn builtin_ids(&self) -> BuiltinIds {
        self.builtin
    }

    /// Spawns an internal entity with `bundle` and [`Internal`] (an observer, say):
    /// flagged `INTERNAL` before any hook or observer sees it, not counted by
    /// [`World::entity_count`], matched only by queries naming an internal marker.
    pub(crate) fn spawn_internal<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.flush_entities();
        let bundle_id = self.register_bundle::<(B, Internal)>();
        let entity = self.entities.alloc();
        self.mark_internal(entity);
        self.place_spawned(entity, bundle_id, (bundle, Internal));
        entity
    }

    fn mark_internal(&mut self, entity: Entity) {
        if let Some(flags) = self.entities.flags_mut(entity)
            && !flags.contains(EntityFlags::INTERNAL)
        {
            *flags |= EntityFlags::INTERNAL;
        }
        self.internal_count += 1;
    }

    /// Places newly registered component entities in the internal component
    /// archetype, carrying their `ComponentInfo` and `Name`.
    #[inline]
    fn flush_components(&mut self) {
        if self.components.has_pending() {
            self.flush_components_slow();
        }
    }

    /// Makes the entities reserved through `&World` (by `Commands`) or by
    /// [`RemoteEntities`] handles alive, with no components. Every path that
    /// allocates or frees entities calls this first.
    #[inline]
    pub fn flush_entities(&mut self) {
        if self.entities.has_reserved() {
            self.flush_entities_slow();
        }
        if *self.names_dirty.get_mut() != 0 {
            self.sync_written_names();
        }
    }

    #[cold]
    fn flush_entities_slow(&mut self) {
        // The reserved entities become alive and empty, placed directly in the
        // empty archetype: no component, so no hook or observer to run (running
        // them here could apply queued commands to reserved entities that are
        // not alive yet).
        self.entities.flush(place_empty(&mut self.archetypes));
    }

    /// Reserves an entity id without `&mut World`: it becomes alive (with no
    /// components) at the next [`World::flush_entities`], which every `&mut World`
    /// entry that could touch it runs first (`spawn`, `spawn_batch`, `despawn`,
    /// `insert`, `remove`, `entity_mut`, `get_entity_mut`, registration and
    /// command application).
    ///
    /// # Panics
    /// Panics if the active entity range has no index left (naming the range).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.reserve_entity();
    /// assert!(!world.is_alive(e));
    /// world.flush_entities();
    /// assert!(world.is_alive(e));
    /// ```
    #[track_caller]
    pub fn reserve_entity(&self) -> Entity {
        self.entities.reserve_entity()
    }

    /// Makes every reserved id alive now, with no components: those of
    /// [`World::reserve_entity`] (`Commands`) and of [`RemoteEntities`] handles
    /// ([`World::remote_entities`]); and applies the commands hooks and
    /// observers left queued, if any. Spawn, insert, remove, despawn and
    /// command application flush first, so this is needed only to see remote
    /// reservations alive before any of those.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.remote_entities().reserve();
    /// assert!(!world.is_alive(e));
    /// world.flush();
    /// assert!(world.is_alive(e));
    /// assert_eq!(world.entity_count(), 1);
    /// ```
    pub fn flush(&mut self) {
        self.flush_deferred();
    }

    /// A handle that reserves entity ids from any thread, lock-free, while this
    /// world is being used; the ids become alive (empty) at the world's next
    /// flush. See [`RemoteEntities`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let remote = world.remote_entities();
    /// let loaders: Vec<_> = (0..2)
    ///     .map(|_| {
    ///         let remote = remote.clone();
    ///         std::thread::spawn(move || remote.reserve_many(100))
    ///     })
    ///     .collect();
    /// let spawned: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    /// let reserved: Vec<Entity> = loaders.into_iter().flat_map(|l| l.join().unwrap()).collect();
    /// world.flush();
    /// assert!(reserved.iter().chain(&spawned).all(|&e| world.is_alive(e)));
    /// assert_eq!(world.entity_count(), 300);
    /// ```
    pub fn remote_entities(&self) -> RemoteEntities {
        self.entities.remote()
    }

    /// Makes `range` (half-open, over entity *indices*) the active entity range:
    /// new entities (`spawn`, `spawn_batch`, `Commands`, [`RemoteEntities`],
    /// [`World::spawn_at`]) get indices in it, for networked games where peers
    /// own disjoint ranges. Entities from other ranges stay alive and can be
    /// looked up, edited and despawned; a dead index outside the range is not
    /// recycled into it (it stays dead until a range containing it is active
    /// again). Fresh indices continue after the highest index of the range ever
    /// used. Component entities keep low indices whatever the range.
    ///
    /// # Panics
    /// Panics if `range` is empty or contains index 0.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let old = world.spawn_empty().id();
    /// world.set_entity_range(1_000_000..2_000_000);
    /// let new = world.spawn_empty().id();
    /// assert_eq!(new.index(), 1_000_000);
    /// assert!(world.is_alive(old)); // other ranges stay alive
    /// assert_eq!(world.entity_range(), 1_000_000..2_000_000);
    /// ```
    #[track_caller]
    pub fn set_entity_range(&mut self, range: core::ops::Range<u32>) {
        self.flush_entities();
        self.entities.set_range(range, place_empty(&mut self.archetypes));
    }

    /// The active entity range (see [`World::set_entity_range`]);
    /// `1..u32::MAX` unless set.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let world = World::new();
    /// assert_eq!(world.entity_range(), 1..u32::MAX);
    /// ```
    pub fn entity_range(&self) -> core::ops::Range<u32> {
        self.entities.range()
    }

    /// Spawns an entity with no components under exactly the id `entity`
    /// (index and generation), which must lie in the active entity range.
    /// Later spawns skip its index; the never-used indices below it stay
    /// spawnable (later spawns take them before fresh ones, as Bevy's).
    /// Reservations ([`Commands::spawn`](crate::system::Commands::spawn),
    /// [`RemoteEntities`]) take fresh indices only, above the highest id
    /// `spawn_at` made alive: near the top of the range they run out first.
    ///
    /// # Errors
    /// [`SpawnError::Alive`] while an entity with that index is alive (any
    /// generation), [`SpawnError::OutOfRange`] if the index lies outside the
    /// active range, [`SpawnError::Retired`] if it was a despawned component's
    /// id, and [`SpawnError::Reserved`] if a [`RemoteEntities`] handle reserved
    /// it during the call (it is alive after the next flush).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::SpawnError;
    /// #[derive(Component)]
    /// struct Ship;
    /// let mut world = World::new();
    /// let id = Entity::from_raw(5_000, 3);
    /// world.spawn_at(id).unwrap().insert(Ship);
    /// assert!(world.has::<Ship>(id));
    /// assert!(matches!(world.spawn_at(id), Err(SpawnError::Alive { .. })));
    /// world.set_entity_range(10_000..20_000);
    /// let outside = Entity::from_raw(6_000, 0);
    /// assert!(matches!(world.spawn_at(outside), Err(SpawnError::OutOfRange { .. })));
    /// ```
    pub fn spawn_at(&mut self, entity: Entity) -> Result<EntityWorldMut<'_>, SpawnError> {
        self.flush_entities();
        self.entities.alloc_at(entity, place_empty(&mut self.archetypes))?;
        let bundle_id = self.register_bundle::<()>();
        self.place_spawned(entity, bundle_id, ());
        Ok(EntityWorldMut::new(self, entity))
    }

    #[cold]
    fn flush_components_slow(&mut self) {
        while self.components.has_pending() {
            for id in self.components.take_pending() {
                let info = self.components.info(id).expect("pending ids are registered").clone();
                // Value pairs of an `inherit` relationship are read through
                // `IsA` (tag pairs and `override` ones are copied instead).
                if info.inherits_pairs() {
                    let exclusive = info.relationship().is_some_and(|traits| traits.exclusive);
                    self.archetypes.inherit_pairs_of(id, exclusive);
                }
                let name = Name(info.descriptor.name.clone());
                self.internal_count += 1;
                let bundle_id = self.register_bundle::<(ComponentInfo, Name, Internal)>();
                self.place_spawned(id, bundle_id, (info, name, Internal));
            }
        }
    }

    // ----- entities -----------------------------------------------------------------

    /// The entity index (locations, flags).
    #[inline]
    pub fn entities(&self) -> &EntityIndex {
        &self.entities
    }

    /// The archetypes, graph and component index.
    #[inline]
    pub fn archetypes(&self) -> &Archetypes {
        &self.archetypes
    }

    /// The sparse sets.
    #[inline]
    pub fn sparse_sets(&self) -> &SparseSets {
        &self.sparse_sets
    }

    /// The component registry.
    #[inline]
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// How many user entities are alive (internal entities such as component
    /// entities and wildcards are not counted).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// world.spawn_empty();
    /// assert_eq!(world.entity_count(), 1);
    /// ```
    #[inline]
    pub fn entity_count(&self) -> usize {
        self.entities.alive_count() - self.internal_count
    }

    /// Despawns every user entity (internal ones, such as component entities
    /// and observers, stay, and so do resources), running cleanup policies,
    /// hooks and observers as [`World::despawn`] does.
    ///
    /// Cleanup policies apply as for [`World::despawn`], except `panic`: every
    /// user entity goes (Flecs ignores the policy while a world is torn down),
    /// so no despawn is refused halfway. Entities that hooks or observers
    /// spawn meanwhile go too (in further passes, at most 16: a hook that
    /// spawns on every despawn leaves the last pass's entities alive).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Resource)]
    /// struct Level(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Level(3));
    /// world.spawn_batch((0..10).map(|_| (Enemy,)));
    /// world.clear_entities();
    /// assert_eq!(world.entity_count(), 0);
    /// assert_eq!(world.resource::<Level>().0, 3);
    /// let e = world.spawn(Enemy).id(); // the world is still usable
    /// assert!(world.has::<Enemy>(e));
    /// ```
    pub fn clear_entities(&mut self) {
        // Hooks and observers may spawn entities while others go: passes
        // until none is left (bounded, in case every pass spawns more).
        for _ in 0..CLEAR_PASSES {
            self.flush_entities();
            let users: Vec<Entity> = self
                .entities
                .alive()
                .iter()
                .copied()
                .filter(|&entity| self.entities.get(entity).is_some_and(|r| !r.flags.contains(EntityFlags::INTERNAL)))
                .collect();
            let mut despawned = false;
            for entity in users {
                // Cleanup may already have despawned it (children of a parent).
                despawned |= self.despawn_refusing(entity, false).unwrap_or(false);
            }
            if !despawned {
                return;
            }
        }
    }

    /// Whether `entity` is alive (stale handles are not).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.entities.is_alive(entity)
    }

    /// Spawns an entity with `bundle`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Position(f32, f32);
    /// let mut world = World::new();
    /// let e = world.spawn(Position(1.0, 2.0)).id();
    /// assert_eq!(world.get::<Position>(e), Some(&Position(1.0, 2.0)));
    /// ```
    ///
    /// # Panics
    /// Panics if `B` contains the same component twice (nothing is spawned), if
    /// the active entity range ([`World::set_entity_range`]) has no index left
    /// (the message names the range), or if `B` holds a [`Name`] that a sibling
    /// (an entity with the same `ChildOf` parent, or another root) has: the new
    /// entity is despawned and the message names the sibling.
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, mut bundle: B) -> EntityWorldMut<'_> {
        self.flush_entities();
        let mut pairs = bundle_pairs::BundlePairs::take(&mut bundle);
        // Register first: a rejected bundle must not leave an entity behind.
        let bundle_id = self.register_bundle::<B>();
        if B::HAS_PAIRS {
            pairs.refuse_invalid(self, None, false, false);
        }
        let entity = self.entities.alloc();
        if B::HAS_PAIRS
            && let Some((pair_ids, destination)) = self.one_move_spawn(&mut pairs, bundle_id)
        {
            self.place_spawned_with_pairs(entity, bundle_id, bundle, pairs, &pair_ids, destination);
            if self.bundle_has_name(bundle_id) {
                self.refuse_spawned_name_clash(entity);
            }
            return EntityWorldMut::new(self, entity);
        }
        if B::HAS_PAIRS && self.bundle_has_name(bundle_id) {
            // The name is checked once the pairs (a parent) landed too.
            self.with_name_check_deferred(entity, |world| {
                world.place_spawned(entity, bundle_id, bundle);
                pairs.add_to_by_policy(world, entity);
            });
            self.refuse_spawned_name_clash(entity);
            return EntityWorldMut::new(self, entity);
        }
        self.place_spawned(entity, bundle_id, bundle);
        if B::HAS_PAIRS {
            pairs.add_to_by_policy(self, entity);
        }
        if self.bundle_has_name(bundle_id) {
            self.refuse_spawned_name_clash(entity);
        }
        EntityWorldMut::new(self, entity)
    }

    /// Spawns an entity with no components (as `spawn(())`, without the bundle
    /// steps: no component, so no hook, observer or name check to run).
    ///
    /// # Panics
    /// Panics if the active entity range ([`World::set_entity_range`]) has no
    /// index left (the message names the range).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// assert!(world.is_alive(e));
    /// assert_eq!(world.entity(e).archetype(), ecs::entity::ArchetypeId::EMPTY);
    /// ```
    #[track_caller]
    pub fn spawn_empty(&mut self) -> EntityWorldMut<'_> {
        self.flush_entities();
        let entity = self.entities.alloc();
        let location = place_empty(&mut self.archetypes)(entity);
        self.entities.set_location(entity, location);
        EntityWorldMut::new(self, entity)
    }

    /// Spawns one entity per bundle of `bundles` and returns their ids. The
    /// destination archetype is looked up once and the storage reserved once (from
    /// the iterator's size hint). Entities are spawned as the returned iterator is
    /// consumed; dropping it spawns the rest (unless a panic is unwinding: see
    /// [`SpawnBatchIter`]).
    ///
    /// # Panics
    /// Panics if `B` contains the same component twice (before anything is
    /// spawned), if the active entity range ([`World::set_entity_range`]) runs
    /// out of indices (the message names the range), or, as [`World::spawn`],
    /// if a bundle holds a [`Name`] that a sibling has.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let ids: Vec<Entity> = world.spawn_batch((0..1000).map(|i| (Position(i as f32),))).collect();
    /// assert_eq!(ids.len(), 1000);
    /// assert_eq!(world.get::<Position>(ids[10]).unwrap().0, 10.0);
    /// ```
    pub fn spawn_batch<I>(&mut self, bundles: I) -> SpawnBatchIter<'_, I::IntoIter>
    where
        I: IntoIterator,
        I::Item: Bundle,
    {
        self.flush_entities();
        SpawnBatchIter::new(self, bundles.into_iter())
    }

    /// Places the freshly allocated (unplaced) `entity` with `bundle` (registered
    /// as `bundle_id`).
    fn place_spawned<B: Bundle>(&mut self, entity: Entity, bundle_id: BundleId, bundle: B) {
        self.place_spawned_in(entity, bundle_id, bundle, None);
    }

    /// [`World::place_spawned`], or with `one_move` (the bundle's pairs, their
    /// ids and the archetype of its components and pairs, see
    /// [`World::one_move_spawn`]) into that archetype, the pair values written
    /// into their columns; then the components' hooks and observers.
    #[inline(always)]
    fn place_spawned_in<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle_id: BundleId,
        bundle: B,
        one_move: Option<(bundle_pairs::BundlePairs, &[crate::entity::Id], ArchetypeId)>,
    ) {
        let tick = self.change_tick();
        let hooks = self.bundle_lifecycle(bundle_id, entity);
        let edge = self.bundles.insert_edge(
            bundle_id,
            ArchetypeId::EMPTY,
            &mut self.archetypes,
            &self.components,
            &self.sparse_sets,
        );
        let destination = one_move.as_ref().map_or(edge.destination, |&(_, _, destination)| destination);
        let pair_ids: &[crate::entity::Id] = one_move.as_ref().map_or(&[], |&(_, pair_ids, _)| pair_ids);
        // SAFETY: a spawn edge starts from the empty archetype, so its slots cover
        // every column of its destination, all new: the writer initializes each
        // value and its ticks. A one-move `destination` starts with those columns,
        // in the same order, and has one more per pair with a value
        // (`one_move_spawn` checked), which `write_to` initializes before
        // anything reads the row.
        unsafe {
            let (row, table) = self.archetypes.push_row(destination, entity);
            self.entities.set_location(entity, EntityLocation { archetype: destination, row: row as u32 });
            // A spawn replaces nothing, so no `Drop` runs: nothing to catch.
            let mut panics = PanicSlot::default();
            BundleWriter::write_bundle(
                bundle,
                &edge.slots,
                table,
                row,
                &mut self.sparse_sets,
                entity,
                tick,
                &mut panics,
            );
            debug_assert!(!panics.is_panicking(), "a spawn dropped a value");
            if let Some((pairs, pair_ids, _)) = one_move {
                pairs.write_to(&mut self.archetypes, destination, row, pair_ids, tick);
            }
        }
        self.mark_sparse(entity, bundle_id);
        // A child of a prefab is a prefab before anyone hears of its values
        // (as when `ChildOf` comes first): observers skip prefabs.
        if !pair_ids.is_empty()
            && self.any_prefab()
            && let Some(parent) = pair_ids
                .iter()
                .find(|id| id.is_pair() && id.first_index() == self.builtin.child_of.index())
                .and_then(|id| self.entity_at(id.second_index()))
            && self.is_prefab(parent)
        {
            self.entity_mut(entity).insert(crate::component::Prefab);
        }
        if hooks {
            self.after_insert_hooks(entity, bundle_id, &[]);
        }
    }

    /// The pair ids and the archetype of a spawn of bundle `bundle_id` with
    /// `pairs` that can be placed in one move (see `world::bundle_pairs`):
    /// every pair a plain pair, and the archetype of the components and pairs
    /// starting with the columns of the components alone (pair ids sort after
    /// plain ones, so the plain ids and their columns come first and the
    /// bundle's write plan fits them), then one column per pair with a value.
    fn one_move_spawn(
        &mut self,
        pairs: &mut bundle_pairs::BundlePairs,
        bundle_id: BundleId,
    ) -> Option<(SmallVec<[crate::entity::Id; 2]>, ArchetypeId)> {
        let pair_ids = pairs.one_move_ids(self)?;
        let edge = self.bundles.insert_edge(
            bundle_id,
            ArchetypeId::EMPTY,
            &mut self.archetypes,
            &self.components,
            &self.sparse_sets,
        );
        let components_only = edge.destination;
        let mut destination = components_only;
        for &id in &pair_ids {
            destination = self.archetypes.add_edge(destination, id, &self.components);
        }
        let (placed, alone) = (&self.archetypes[destination], &self.archetypes[components_only]);
        // Pairs sort after plain ids: the placement fits when the archetype is
        // the bundle's components (no pair of their own) followed by pairs of
        // the bundle only (an exclusive relationship's later pair replaced
        // the earlier ones: `write_to` drops their values), with one more
        // column for each of those pairs that has one.
        let (placed_ids, alone_ids) = (placed.ids(), alone.ids());
        let fits = alone_ids.last().is_none_or(|id| !id.is_pair())
            && placed_ids.len() >= alone_ids.len()
            && placed_ids[..alone_ids.len()] == *alone_ids
            && placed_ids[alone_ids.len()..].iter().all(|id| id.is_pair() && pair_ids.contains(id))
            && placed.table().columns().len()
                == alone.table().columns().len()
                    + placed_ids[alone_ids.len()..].iter().filter(|&&id| placed.column_of(id).is_some()).count();
        fits.then_some((pair_ids, destination))
    }

    /// [`World::place_spawned`] into `destination`, the archetype of the
    /// bundle's components and its pairs `pairs`, whose ids are `pair_ids`
    /// ([`World::one_move_spawn`]): one placement (components through the
    /// bundle's write plan, pair values into their columns), then the hooks
    /// and observers of the components and of each pair, all with the whole
    /// bundle in place.
    #[cold]
    #[inline(never)]
    fn place_spawned_with_pairs<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle_id: BundleId,
        bundle: B,
        pairs: bundle_pairs::BundlePairs,
        pair_ids: &[crate::entity::Id],
        destination: ArchetypeId,
    ) {
        self.place_spawned_in(entity, bundle_id, bundle, Some((pairs, pair_ids, destination)));
        for &id in pair_ids {
            // An exclusive relationship's later pair replaced an earlier one.
            if self.entities.location(entity).is_some_and(|location| self.archetypes[location.archetype].contains(id)) {
                self.after_id_insert(entity, id, false);
            }
        }
    }

    /// Runs `on_add` for the components of bundle `bundle_id` that are not in
    /// `existed`, then `on_insert` for all of them; applies their commands.
    #[cold]
    fn after_insert_hooks(&mut self, entity: Entity, bundle_id: BundleId, existed: &[Entity]) {
        let components: SmallVec<[Entity; 8]> = SmallVec::from_slice(self.bundles.info(bundle_id).components());
        let added: SmallVec<[Entity; 8]> =
            components.iter().copied().filter(|component| !existed.contains(component)).collect();
        self.run_hooks(HookKind::Add, entity, &added);
        self.run_hooks(HookKind::Insert, entity, &components);
        self.report_inherited_overwrite(HookKind::Insert, entity, existed);
        self.flush_deferred();
    }

    /// The components of bundle `bundle_id` that `entity` has now (table or
    /// sparse).
    fn bundle_components_present(&self, entity: Entity, bundle_id: BundleId) -> SmallVec<[Entity; 8]> {
        let location = self.entities.location(entity);
        let archetype = location.map(|location| &self.archetypes[location.archetype]);
        self.bundles
            .info(bundle_id)
            .components()
            .iter()
            .copied()
            .filter(|&component| {
                archetype.is_some_and(|archetype| archetype.contains(component.id()))
                    || self.sparse_sets.of(component).is_some_and(|set| set.contains(entity))
            })
            .collect()
    }

    /// Flags `entity` as holding sparse values if bundle `bundle_id` has any.
    #[inline]
    fn mark_sparse(&mut self, entity: Entity, bundle_id: BundleId) {
        if !self.bundles.info(bundle_id).sparse_components().is_empty()
            && let Some(flags) = self.entities.flags_mut(entity)
        {
            *flags |= EntityFlags::HAS_SPARSE;
        }
    }

    /// The component ids of the registered bundle `bundle`, in bundle order.
    pub(crate) fn bundle_components(&self, bundle: BundleId) -> &[Entity] {
        self.bundles.info(bundle).components()
    }

    /// Registers bundle type `B` (and its components).
    ///
    /// # Panics
    /// Panics if `B` contains a component twice, naming it; the world is left
    /// unchanged but for the registration of `B`'s components.
    #[inline]
    #[track_caller]
    pub(crate) fn register_bundle<B: Bundle>(&mut self) -> BundleId {
        // A bundle in the cache is registered and its components are flushed.
        if let Some(id) = self.bundles.recent_id::<B>() {
            return id;
        }
        self.register_bundle_slow::<B>()
    }

    #[inline(never)]
    #[track_caller]
    fn register_bundle_slow<B: Bundle>(&mut self) -> BundleId {
        self.flush_entities();
        let mut registrar = ComponentRegistrar::new(&mut self.components, &mut self.entities);
        let id = self.bundles.register::<B>(&mut registrar, &mut self.sparse_sets);
        self.flush_components();
        id.unwrap_or_else(|message| panic!("{message}"))
    }

    /// Despawns `entity`, dropping its components. Returns `false` if it was not
    /// alive or is permanent (the wildcards and the world's built-in components
    /// `ComponentInfo`, `Name`, `Internal` and `ObserverMarker`). Observers,
    /// internal entities too, are despawned (and unregistered) like any entity.
    ///
    /// If the entity is used in pairs (as a relationship or a target), each
    /// relationship's cleanup policy runs first: pairs naming it are removed from
    /// their holders, or the holders are despawned too (recursively, e.g. the
    /// children of a `ChildOf` parent). See [`World::try_despawn`].
    ///
    /// Components are entities (Flecs semantics): despawning a component's
    /// entity applies its `on_delete` policy to every holder (remove by
    /// default: holders lose it, hooks and observers run, each value is dropped
    /// once; delete: holders are despawned with their own cleanup; panic: the
    /// despawn is refused before anything changes), then unregisters it. Its
    /// type may be used again: it is registered afresh, under a new id. Query
    /// states (and systems' queries) and observers built before keep the old
    /// id, which nothing holds any more (it is never reused): their terms on the
    /// type match nothing, and such observers never fire; build them again.
    ///
    /// # Panics
    /// Panics if a relationship (or component) with the `panic` policy refuses
    /// the despawn, naming it and the entities holding its pairs or ids; the
    /// world is unchanged then. A panic of a value's `Drop`, a hook or an
    /// observer continues from here once the despawn is complete.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// assert!(world.despawn(e));
    /// assert!(!world.is_alive(e));
    /// assert!(!world.despawn(e));
    ///
    /// let hurt = world.spawn(Health(3)).id();
    /// let health = world.component_id::<Health>().unwrap();
    /// assert!(world.despawn(health)); // every holder loses its Health
    /// assert!(world.is_alive(hurt) && world.get::<Health>(hurt).is_none());
    /// assert_eq!(world.component_id::<Health>(), None);
    /// world.insert(hurt, Health(4)); // registered again, under a fresh id
    /// assert_ne!(world.component_id::<Health>(), Some(health));
    /// assert_eq!(world.get::<Health>(hurt), Some(&Health(4)));
    /// ```
    #[track_caller]
    pub fn despawn(&mut self, entity: Entity) -> bool {
        self.flush_entities();
        let Some(record) = self.entities.get(entity) else {
            return false;
        };
        // The common case inline: no pairs, no hooks, nothing sparse.
        if record.flags.intersects(
            EntityFlags::INTERNAL
                | EntityFlags::IS_TARGET
                | EntityFlags::IS_COMPONENT
                | EntityFlags::HAS_SPARSE
                | EntityFlags::OBSERVED
                | EntityFlags::PAIR_OBSERVED,
        ) || self.archetype_lifecycle(record.location.archetype, record.flags)
        {
            return self.despawn_slow(entity);
        }
        self.remove_record(entity, record);
        true
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn despawn_slow(&mut self, entity: Entity) -> bool {
        match self.try_despawn(entity) {
            Ok(despawned) => despawned,
            Err(error) => panic!("{error}"),
        }
    }

    /// Despawns the alive, non-internal `entity` (whose record is `record`)
    /// without looking at pairs (its cleanup, if any, was done by the caller).
    /// A panicking hook, observer or `Drop` does not stop it: the panic is kept
    /// in `panics`.
    fn despawn_record(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        let record = self.notify_despawn_catching(entity, record, panics);
        self.free_despawned(entity, record, panics);
    }

    /// [`World::notify_despawn`], keeping a panic of a hook or observer in
    /// `panics`: the despawn goes on without the events that did not run.
    pub(super) fn notify_despawn_catching(
        &mut self,
        entity: Entity,
        record: crate::entity::EntityRecord,
        panics: &mut PanicSlot,
    ) -> crate::entity::EntityRecord {
        if !self.archetype_lifecycle(record.location.archetype, record.flags)
            && !record.flags.contains(EntityFlags::HAS_SPARSE)
        {
            return record;
        }
        panics.catch(|| {
            self.notify_despawn(entity, record);
        });
        // Hooks and observers cannot despawn or move it (their commands wait).
        self.entities.get(entity).expect("hooks cannot despawn (their commands wait)")
    }

    /// Runs the despawn's lifecycle events for `entity` (`OnDespawn`, then
    /// `on_replace`/`OnReplace` and `on_remove`/`OnRemove` for its components and
    /// pairs), while everything is readable; returns its record afterwards.
    fn notify_despawn(
        &mut self,
        entity: Entity,
        mut record: crate::entity::EntityRecord,
    ) -> crate::entity::EntityRecord {
        if self.archetype_lifecycle(record.location.archetype, record.flags)
            || (record.flags.contains(EntityFlags::HAS_SPARSE) && self.sparse_sets.iter().next().is_some())
        {
            let hooked = self.hooked_components(entity);
            // Observers also hear about the entity's pairs (a union pair as
            // its row's concrete pair).
            // A relationship's hooks run for its pairs (the archetype's flag).
            let pair_hooks = self.archetypes[record.location.archetype]
                .flags()
                .contains(crate::archetype::ArchetypeFlags::HAS_PAIR_HOOKS);
            let pairs: SmallVec<[crate::entity::Id; 4]> = if self.observers.has_lifecycle_observers() || pair_hooks {
                self.archetypes[record.location.archetype]
                    .ids()
                    .iter()
                    .filter(|id| id.is_pair())
                    .map(|&id| self.concrete_pair(entity, id))
                    .collect()
            } else {
                SmallVec::new()
            };
            if self.observers.has_lifecycle_observers() {
                // `OnDespawn` first; a unit struct lives at any aligned address.
                let ptr = core::ptr::NonNull::<OnDespawn>::dangling().cast();
                let ids: SmallVec<[crate::entity::Id; 4]> =
                    hooked.iter().map(|component| component.id()).chain(pairs.iter().copied()).collect();
                self.run_observers(core::any::TypeId::of::<OnDespawn>(), entity, &ids, ptr);
            }
            // What its instances read from it goes too (reported first); what
            // it inherits is reported with its own components, one event.
            let inherited = if self.inherited_events_on() {
                self.inherited_lost_by_despawn(entity, record.location.archetype)
            } else {
                SmallVec::new()
            };
            // Bevy's order: each event's observers (of components and pairs),
            // then its hooks; `OnReplace` before `OnRemove`.
            for kind in [HookKind::Replace, HookKind::Remove] {
                self.ids_lifecycle(kind, entity, &pairs);
                if inherited.is_empty() {
                    self.run_hooks(kind, entity, &hooked);
                } else {
                    let ids: SmallVec<[crate::entity::Id; 8]> =
                        hooked.iter().map(|component| component.id()).chain(inherited.iter().copied()).collect();
                    self.run_lifecycle_observers(kind, entity, &ids);
                    self.run_hook_fns(kind, entity, &hooked);
                }
            }
            // Nothing structural can have changed (their commands wait).
            record = self.entities.get(entity).expect("hooks cannot despawn (their commands wait)");
        }
        record
    }

    /// Frees the alive `entity` after [`World::notify_despawn`]: its values are
    /// dropped, and the observers of it alone are queued for despawning. A
    /// component's entity (whose holders the cleanup already handled) is
    /// unregistered, the bundles naming it retired and its index retired. A
    /// panicking `Drop` is kept in `panics`.
    fn free_despawned(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        self.free_despawned_with(entity, record, RowFate::Removed, panics);
    }

    /// [`World::free_despawned`], leaving the entity's table row to the caller
    /// when `row` is [`RowFate::ClearedWithTable`]: a cleanup that despawns
    /// every entity of an archetype frees them one by one, then drops the whole
    /// table at once ([`Archetypes::clear_rows`]) instead of removing row after
    /// row.
    #[inline(always)]
    pub(super) fn free_despawned_with(
        &mut self,
        entity: Entity,
        record: crate::entity::EntityRecord,
        row: RowFate,
        panics: &mut PanicSlot,
    ) {
        // Commands of hooks and observers may have reserved entities: make them
        // alive first (the index refuses to free over pending reservations).
        self.flush_entities();
        let retire = record.flags.contains(EntityFlags::IS_COMPONENT) && self.components.unregister(entity).is_some();
        if retire {
            self.bundles.forget_component(entity);
        }
        match row {
            RowFate::Removed => self.remove_values(entity, record, panics),
            RowFate::ClearedWithTable => self.remove_values_off_table(entity, record, panics),
        }
        if retire {
            self.entities.retire(entity);
        } else {
            self.entities.free(entity);
        }
        if record.flags.contains(EntityFlags::INTERNAL) {
            self.internal_count -= 1;
        }
        if record.flags.intersects(EntityFlags::OBSERVED | EntityFlags::PAIR_OBSERVED) {
            // Observers of this entity alone, and those of a pair naming it,
            // go with it (applied with the despawn's other deferred work).
            let mut watchers = SmallVec::<[Entity; 2]>::new();
            if record.flags.contains(EntityFlags::OBSERVED) {
                watchers.extend(self.observers.watchers_of(entity));
            }
            if record.flags.contains(EntityFlags::PAIR_OBSERVED) {
                watchers.extend(self.observers.watching_pairs_of(entity));
            }
            for watcher in watchers {
                self.deferred.push(move |world: &mut World| {
                    world.despawn(watcher);
                });
            }
        }
    }

    /// Drops the alive `entity`'s values (with `record` its current record) and
    /// frees it; no hooks, no cleanup. If a value's `Drop` panics, the entity is
    /// still freed and its other values dropped, then the panic continues.
    #[inline(always)]
    fn remove_record(&mut self, entity: Entity, record: crate::entity::EntityRecord) {
        let mut panics = PanicSlot::default();
        self.remove_record_catching(entity, record, &mut panics);
        panics.resume();
    }

    /// [`World::remove_record`], keeping a panicking `Drop` in `panics`.
    #[inline(always)]
    fn remove_record_catching(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        self.remove_values(entity, record, panics);
        self.entities.free(entity);
    }

    /// Drops the alive `entity`'s values and removes its row (with `record` its
    /// current record), leaving its index to the caller; a panicking `Drop` is
    /// kept in `panics`.
    #[inline(always)]
    fn remove_values(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        let location = record.location;
        if !self.union_holders.is_empty() {
            self.unindex_union_pairs(entity, location, None);
        }
        // SAFETY: the entity is alive, so its location is a valid, initialized row.
        let swapped = unsafe { self.archetypes.remove_row(location.archetype, location.row as usize, panics) };
        if let Some(swapped) = swapped {
            self.entities.set_location(swapped, location);
        }
        self.remove_sparse_values(entity, record, panics);
    }

    /// [`World::remove_values`] but for the entity's table row, which stays
    /// (its table is cleared as a whole by the caller): its union pairs' index
    /// entries (read from the row) and its sparse values go.
    #[inline(always)]
    fn remove_values_off_table(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        if !self.union_holders.is_empty() {
            self.unindex_union_pairs(entity, record.location, None);
        }
        self.remove_sparse_values(entity, record, panics);
    }

    /// Drops the sparse values of `entity` (with `record` its current record).
    #[inline(always)]
    fn remove_sparse_values(&mut self, entity: Entity, record: crate::entity::EntityRecord, panics: &mut PanicSlot) {
        if record.flags.contains(EntityFlags::HAS_SPARSE) {
            for (_, set) in self.sparse_sets.iter_mut() {
                // The value is unlinked before its `Drop` runs.
                panics.catch(|| {
                    set.remove_drop(entity);
                });
            }
        }
    }

    /// A read-only view of `entity`.
    ///
    /// # Panics
    /// Panics if `entity` is not alive, naming it. Use [`World::get_entity`] to get
    /// an `Option` instead.
    #[track_caller]
    pub fn entity(&self, entity: Entity) -> EntityRef<'_> {
        self.get_entity(entity).unwrap_or_else(|| panic!("entity {entity:?} is not alive"))
    }

    /// A read-only view of `entity`, if it is alive.
    pub fn get_entity(&self, entity: Entity) -> Option<EntityRef<'_>> {
        self.is_alive(entity).then(|| EntityRef::new(self, entity))
    }

    /// A mutable view of `entity`, for chained inserts and removes.
    ///
    /// # Panics
    /// Panics if `entity` is not alive, naming it. Use [`World::get_entity_mut`] to
    /// get an `Option` instead.
    #[track_caller]
    pub fn entity_mut(&mut self, entity: Entity) -> EntityWorldMut<'_> {
        self.flush_entities();
        if !self.is_alive(entity) {
            panic!("entity {entity:?} is not alive");
        }
        EntityWorldMut::new(self, entity)
    }

    /// A mutable view of `entity`, if it is alive.
    pub fn get_entity_mut(&mut self, entity: Entity) -> Option<EntityWorldMut<'_>> {
        self.flush_entities();
        self.is_alive(entity).then(|| EntityWorldMut::new(self, entity))
    }

    // ----- components ---------------------------------------------------------------

    /// Registers component `T` (once) and returns its id (an entity).
    pub fn register_component<T: Component>(&mut self) -> Entity {
        self.flush_entities();
        let id = self.components.register::<T>(&mut self.entities);
        self.flush_components();
        id
    }

    /// The id of component `T`, if registered.
    #[inline]
    pub fn component_id<T: Component>(&self) -> Option<Entity> {
        self.components.id_of_component::<T>()
    }

    /// The component registered under `name` (its short name, like `"Position"`,
    /// or its full type path), else the entity at path `name`: `"station"` is
    /// an entity whose [`crate::component::Name`] is `station` (one without a
    /// parent first, else the oldest such entity), `"station::dock::crane"`
    /// walks down `ChildOf` from a root entity named `station` through children
    /// named `dock` and `crane` (a name holding `::` is written with its
    /// colons escaped, `a\:\:b`, as [`World::path`] writes it; `\:` stands
    /// for `:` and `\\` for `\`). If two types share a short name, the first
    /// registered keeps it; the full path always works. Entities are found by a
    /// walk over the named ones. A registered component comes before an
    /// entity named like it (which `lookup` then finds only by id); the
    /// world's built-ins (`Prefab`, `ChildOf`, `IsA`, `Name`...) live apart,
    /// as in Flecs' `flecs.core`: a root of the user's named like one is
    /// found before it. `*` and `_` name the wildcards, and a component may
    /// start a path (its children's paths).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let id = world.register_component::<Position>();
    /// let station = world.spawn(Name::new("station")).id();
    /// let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    /// let crane = world.spawn((Name::new("crane"), ChildOf.pair(dock))).id();
    /// assert_eq!(world.lookup("Position"), Some(id));
    /// assert_eq!(world.lookup("station"), Some(station));
    /// assert_eq!(world.lookup("station::dock::crane"), Some(crane));
    /// assert_eq!(world.path(crane).as_deref(), Some("station::dock::crane"));
    /// assert_eq!(world.lookup("dock::crane"), None); // paths start at a root
    /// assert_eq!(world.lookup("Nope"), None);
    /// ```
    pub fn lookup(&self, name: &str) -> Option<Entity> {
        // The wildcards' names (Flecs').
        match name {
            "*" => return Some(Entity::WILDCARD),
            "_" => return Some(Entity::ANY),
            _ => {}
        }
        if let Some(component) = self.components.lookup(name) {
            // The world's built-ins (`Prefab`, `ChildOf`...) live apart, as in
            // Flecs' `flecs.core`: a root entity of the user's with such a
            // name comes first.
            if self.is_permanent(component)
                && let Some(root) = self.named_child(None, name)
            {
                return Some(root);
            }
            return Some(component);
        }
        let segments = names::path_segments(name);
        let (first, rest) = segments.split_first()?;
        // A root entity of the user's, else a component (by its short name
        // or type path: its children have paths too).
        let root = self.named_child(None, first).or_else(|| self.components.lookup(first));
        if rest.is_empty() {
            return root.or_else(|| self.named_anywhere(first));
        }
        let mut current = root?;
        for segment in rest {
            current = self.named_child(Some(current), segment)?;
        }
        Some(current)
    }

    /// The path of `entity` along `ChildOf` (`"station::dock::crane"`); `None`
    /// unless `entity` and all its ancestors are alive and named. A name
    /// holding `::` is escaped (`"a\:\:b"`; see [`World::lookup`]), so the
    /// path always looks `entity` up again. (A component at the root whose
    /// short name another root or component has taken starts with its full
    /// type path, which `lookup` knows.)
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let root = world.spawn(Name::new("root")).id();
    /// let unnamed = world.spawn(ChildOf.pair(root)).id();
    /// let leaf = world.spawn((Name::new("leaf"), ChildOf.pair(unnamed))).id();
    /// assert_eq!(world.path(root).as_deref(), Some("root"));
    /// assert_eq!(world.path(leaf), None); // an ancestor has no name
    /// ```
    pub fn path(&self, entity: Entity) -> Option<String> {
        let mut names: Vec<&str> = Vec::new();
        let mut current = Some(entity);
        let mut root = entity;
        while let Some(entity) = current {
            if names.len() > self.entities.alive_count() {
                return None; // a cycle (ChildOf is acyclic; stay safe)
            }
            names.push(self.get::<crate::component::Name>(entity)?.as_str());
            root = entity;
            current = self.parent_of(entity);
        }
        // A component whose short name looks another root up (a root of the
        // user's, or a component registered first) goes by its type path.
        if let Some(info) = self.components.info(root)
            && let Some(name) = names.last_mut()
        {
            let mut segment = String::new();
            names::push_escaped_segment(&mut segment, name);
            if self.lookup(&segment) != Some(root) {
                if entity == root {
                    // Alone, as written (`lookup` knows type paths).
                    return Some(info.type_name().to_owned());
                }
                *name = info.type_name();
            }
        }
        let mut path = String::new();
        for (at, name) in names.iter().rev().enumerate() {
            if at > 0 {
                path.push_str("::");
            }
            names::push_escaped_segment(&mut path, name);
        }
        Some(path)
    }

    /// The `ChildOf` parent of `entity`.
    fn parent_of(&self, entity: Entity) -> Option<Entity> {
        let child_of = self.components.id_of::<crate::component::ChildOf>()?;
        self.targets_of(entity, Some(child_of.index())).next()
    }

    /// Whether `entity` is one of the world's permanent built-ins.
    fn is_permanent(&self, entity: Entity) -> bool {
        self.entities.get(entity).is_some_and(|record| record.flags.contains(EntityFlags::PERMANENT))
    }

    /// The oldest (lowest index) visible entity named `name` whose parent is
    /// `parent` (`None`: a root, with no parent).
    fn named_child(&self, parent: Option<Entity>, name: &str) -> Option<Entity> {
        let child_of = self.components.id_of::<crate::component::ChildOf>()?;
        self.find_named(
            name,
            |archetype| match parent {
                None => archetype.pair_positions(child_of.index()).is_empty(),
                Some(parent) => archetype.contains(crate::entity::Id::pair(child_of, parent)),
            },
            None,
        )
    }

    /// The oldest (lowest index) visible entity named `name`, anywhere.
    fn named_anywhere(&self, name: &str) -> Option<Entity> {
        self.find_named(name, |_| true, None)
    }

    /// The oldest entity but `except` named `name` in a non-internal archetype
    /// that `keep` accepts.
    fn find_named(
        &self,
        name: &str,
        keep: impl Fn(&crate::archetype::Archetype) -> bool,
        except: Option<Entity>,
    ) -> Option<Entity> {
        let mut found: Option<Entity> = None;
        for entity in self.entities_filed_as(name) {
            let Some(location) = self.entities.location(entity) else { continue };
            let archetype = &self.archetypes[location.archetype];
            if archetype.flags().contains(crate::archetype::ArchetypeFlags::INTERNAL)
                || !keep(archetype)
                || Some(entity) == except
            {
                continue;
            }
            if found.is_none_or(|best| entity.index() < best.index()) {
                found = Some(entity);
            }
        }
        found
    }

    /// The info of component `id`.
    pub fn component_info(&self, id: Entity) -> Option<&ComponentInfo> {
        self.components.info(id)
    }

    /// Inserts `bundle` into `entity`, replacing values it already has. Returns
    /// `false` (dropping `bundle`) if the entity is not alive.
    ///
    /// # Panics
    /// If the `Drop` of a replaced value panics, the insert still completes
    /// (every value written, hooks run) and the panic continues from here. A
    /// hook or observer that panics: see `world::hooks`. If `bundle` holds a
    /// [`Name`] that a sibling of `entity` has (same `ChildOf` parent, or both
    /// roots), the entity's name and parent go back to what they were and the
    /// panic names both entities ([`World::set_name`] returns an error instead).
    /// If a pair of `bundle` would be refused (a dead or wildcard target, a
    /// cycle of an acyclic relationship, an instance under one of its own
    /// bases), it panics naming the pair before anything changes.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(f32);
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// assert!(world.insert(e, Health(5.0)));
    /// assert!(world.insert(e, Health(6.0))); // replaces
    /// assert_eq!(world.get::<Health>(e), Some(&Health(6.0)));
    /// world.despawn(e);
    /// assert!(!world.insert(e, Health(1.0)));
    /// ```
    #[inline]
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) -> bool {
        self.flush_entities();
        self.insert_bundle(entity, bundle)
    }

    /// Inserts the values of `bundle` that `entity` does not own yet and drops
    /// the others, leaving the entity's values as they were (Bevy's
    /// `insert_if_new`); a pair `(R, target)` of the bundle is added only if
    /// the entity lacks it. Returns `false` (dropping `bundle`) if the entity
    /// is not alive. Each new value is inserted as `insert` would (hooks and
    /// observers per value).
    ///
    /// # Panics
    /// As [`World::insert`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Health(5)).id();
    /// assert!(world.insert_if_new(e, (Health(100), Armor(2))));
    /// assert_eq!(world.get::<Health>(e), Some(&Health(5))); // kept
    /// assert_eq!(world.get::<Armor>(e), Some(&Armor(2))); // new
    /// ```
    #[track_caller]
    pub fn insert_if_new<B: Bundle>(&mut self, entity: Entity, mut bundle: B) -> bool {
        self.flush_entities();
        if !self.is_alive(entity) {
            return false;
        }
        /// Inserts the values the entity does not own.
        struct NewValues<'w> {
            world: &'w mut World,
            entity: Entity,
        }
        impl crate::bundle::ComponentWriter for NewValues<'_> {
            #[track_caller]
            fn write<C: Component>(&mut self, value: C) {
                if self.world.is_alive(self.entity) && !self.world.owns::<C>(self.entity) {
                    self.world.insert_bundle(self.entity, value);
                }
            }
        }
        let by_policy = core::mem::take(&mut self.pairs_by_policy);
        if B::HAS_PAIRS {
            // Checked whole first: a refused pair changes nothing.
            let mut pairs = bundle_pairs::BundlePairs::take(&mut bundle);
            // The entity's own name is kept over a bundle's: checked now too.
            let bundle_id = self.register_bundle::<B>();
            let check_names = !self.bundle_has_name(bundle_id) || self.get::<Name>(entity).is_some();
            pairs.refuse_invalid(self, Some(entity), by_policy, check_names);
            pairs.add_new_to(self, entity);
        }
        bundle.write_components(&mut NewValues { world: self, entity });
        true
    }

    /// [`World::insert_if_new`] for an `EntityCommands::insert_if_new`: a pair
    /// whose target was despawned before the command applied gets its
    /// relationship's `on_delete_target` policy (see
    /// [`World::insert_from_command`]).
    #[track_caller]
    pub(crate) fn insert_if_new_from_command<B: Bundle>(&mut self, entity: Entity, bundle: B) -> bool {
        self.as_command(None, |world| world.insert_if_new(entity, bundle))
    }

    /// Runs `insert` as a command's insert: the bundle's pairs follow their
    /// policies (`pairs_by_policy`) and, for a `Commands::spawn`, `spawned`
    /// is despawned on a name clash (`spawned_by_command`). Both flags are
    /// put back afterwards, also when `insert` panics, so a command applied
    /// meanwhile (by a hook's or observer's commands) keeps its own.
    fn as_command<R>(&mut self, spawned: Option<Entity>, insert: impl FnOnce(&mut World) -> R) -> R {
        self.flush_entities();
        let outer = (
            core::mem::replace(&mut self.spawned_by_command, spawned),
            core::mem::replace(&mut self.pairs_by_policy, true),
        );
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| insert(self)));
        (self.spawned_by_command, self.pairs_by_policy) = outer;
        result.unwrap_or_else(|payload| {
            // A `Commands::spawn` whose bundle was refused: nothing landed,
            // and no entity is left behind (as `World::spawn`).
            if let Some(spawned) = spawned
                && self.ids_of(spawned).is_some_and(<[crate::entity::Id]>::is_empty)
            {
                self.despawn(spawned);
            }
            std::panic::resume_unwind(payload)
        })
    }

    /// For a pair `(relationship, target)` of a command's bundle whose target
    /// is not alive: applies the relationship's `on_delete_target` policy to
    /// `entity` as if the pair had existed when the target was despawned
    /// (`remove`: nothing, the pair is left out; `delete`: `entity` is
    /// despawned; `panic`: a panic naming both).
    #[track_caller]
    pub(super) fn apply_dead_target_policy(&mut self, entity: Entity, relationship: Entity, target: Entity) {
        let policy = self.components.relationship_traits(relationship.index()).on_delete_target;
        self.apply_dead_pair_policy(entity, policy, |world| {
            world.dead_target_refusal(relationship, target, &format!("{entity:?}"))
        });
    }

    /// The refusal of a bundle's pair `(relationship, target)` for `who`
    /// whose target is dead and whose relationship has
    /// `on_delete_target = "panic"`.
    pub(super) fn dead_target_refusal(&self, relationship: Entity, target: Entity, who: &str) -> String {
        let relationship = self.index_name(relationship.index());
        format!(
            "cannot add the pair ({relationship}, {target:?}) of a bundle to {who}: the target was despawned \
             and {relationship} has on_delete_target = \"panic\""
        )
    }

    /// Applies `policy` to `entity` for a pair that a command adds after one
    /// of its halves was despawned, as if the pair had existed then:
    /// `remove` does nothing (the pair is left out), `delete` despawns
    /// `entity`, `panic` panics with `refusal`'s message.
    #[track_caller]
    pub(crate) fn apply_dead_pair_policy(
        &mut self,
        entity: Entity,
        policy: crate::component::CleanupPolicy,
        refusal: impl FnOnce(&World) -> String,
    ) {
        match policy {
            crate::component::CleanupPolicy::Remove => {}
            crate::component::CleanupPolicy::Delete => {
                self.despawn(entity);
            }
            crate::component::CleanupPolicy::Panic => panic!("{}", refusal(self)),
        }
    }

    /// Inserts `bundle` into `entity`, which a `Commands::spawn` reserved:
    /// as [`World::insert`], except that a sibling name clash despawns the
    /// entity (and panics naming both), as [`World::spawn`] does.
    #[track_caller]
    pub(crate) fn insert_spawned<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        self.as_command(Some(entity), |world| world.insert_bundle(entity, bundle));
    }

    /// Inserts `bundle` into `entity` for an `EntityCommands::insert`: as
    /// [`World::insert`], except that a pair of the bundle whose target was
    /// despawned before the command applied gets its relationship's
    /// `on_delete_target` policy (remove: left out; delete: the entity is
    /// despawned; panic: a panic), as `EntityCommands::add_pair` does.
    /// `false` if `entity` is not alive.
    #[track_caller]
    pub(crate) fn insert_from_command<B: Bundle>(&mut self, entity: Entity, bundle: B) -> bool {
        self.as_command(None, |world| world.insert_bundle(entity, bundle))
    }

    /// Inserts `bundle` into `entity`; `false` if it is not alive.
    #[inline]
    #[track_caller]
    pub(crate) fn insert_bundle<B: Bundle>(&mut self, entity: Entity, bundle: B) -> bool {
        let bundle_id = self.register_bundle::<B>();
        if self.bundles.info(bundle_id).components().contains(&self.builtin.prefab) && !self.is_prefab(entity) {
            // Its children become prefabs with it (Flecs).
            let inserted = self.insert_bundle_named(entity, bundle_id, bundle);
            if inserted {
                self.make_children_prefabs(entity);
            }
            return inserted;
        }
        self.insert_bundle_named(entity, bundle_id, bundle)
    }

    /// [`World::insert_bundle`] of `bundle`, registered as `bundle_id`, with
    /// the sibling name check when it holds a [`Name`].
    #[inline]
    fn insert_bundle_named<B: Bundle>(&mut self, entity: Entity, bundle_id: BundleId, bundle: B) -> bool {
        if self.bundle_has_name(bundle_id) {
            // Sibling names are checked once the name (and pairs) landed.
            let previous = self.name_insert_undo(entity, B::HAS_PAIRS);
            let inserted = self
                .with_name_check_deferred(entity, |world| world.insert_bundle_registered(entity, bundle_id, bundle));
            if inserted {
                self.refuse_inserted_name_clash(entity, previous);
            }
            return inserted;
        }
        self.insert_bundle_registered(entity, bundle_id, bundle)
    }

    /// Whether bundle `bundle_id` holds a [`Name`].
    #[inline]
    pub(super) fn bundle_has_name(&self, bundle_id: BundleId) -> bool {
        self.bundles.info(bundle_id).components().contains(&self.builtin.name)
    }

    /// [`World::insert_bundle`] of `bundle`, registered as `bundle_id`, without
    /// the sibling name check.
    #[inline]
    fn insert_bundle_registered<B: Bundle>(&mut self, entity: Entity, bundle_id: BundleId, mut bundle: B) -> bool {
        // Only this bundle's pairs: bundles that hooks' commands insert
        // meanwhile set the flag for themselves (a plain insert never sees it).
        let by_policy = core::mem::take(&mut self.pairs_by_policy);
        if B::HAS_PAIRS {
            let mut pairs = bundle_pairs::BundlePairs::take(&mut bundle);
            // A refused pair refuses the whole bundle before anything lands.
            if self.entities.is_alive(entity) {
                let check_names = !self.bundle_has_name(bundle_id);
                pairs.refuse_invalid(self, Some(entity), by_policy, check_names);
            }
            let inserted = self.insert_bundle_values(entity, bundle_id, bundle);
            if inserted {
                pairs.add_to_by_policy(self, entity);
            }
            return inserted;
        }
        self.insert_bundle_values(entity, bundle_id, bundle)
    }

    /// Inserts the components of `bundle` (registered as `bundle_id`, its pairs
    /// already taken out).
    #[inline]
    pub(super) fn insert_bundle_values<B: Bundle>(&mut self, entity: Entity, bundle_id: BundleId, bundle: B) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        if self.bundle_lifecycle(bundle_id, entity) {
            self.insert_bundle_hooked(entity, bundle_id, bundle);
        } else {
            let mut panics = PanicSlot::default();
            self.insert_bundle_unhooked(entity, bundle_id, location, bundle, &mut panics);
            self.flush_inherited_gains_catching(&mut panics);
            panics.resume();
        }
        true
    }

    /// `insert_bundle` with hooks: `on_replace` for the values it overwrites
    /// (still readable), the insert, then `on_add`/`on_insert`.
    #[cold]
    #[inline(never)]
    fn insert_bundle_hooked<B: Bundle>(&mut self, entity: Entity, bundle_id: BundleId, bundle: B) {
        let existed = self.bundle_components_present(entity, bundle_id);
        self.run_hooks(HookKind::Replace, entity, &existed);
        self.report_inherited_overwrite(HookKind::Replace, entity, &existed);
        let location = self.entities.location(entity).expect("hooks cannot despawn (their commands wait)");
        let mut panics = PanicSlot::default();
        self.insert_bundle_unhooked(entity, bundle_id, location, bundle, &mut panics);
        // A replaced value's panicking `Drop` waits for the insert's events.
        self.after_insert_hooks(entity, bundle_id, &existed);
        panics.resume();
    }

    /// Inserts `bundle` (registered as `bundle_id`) into the alive `entity` at
    /// `location`, without running hooks. A panicking `Drop` of a value it
    /// replaces (or of an exclusive pair it drops) is kept in `panics`: every
    /// value is still written and the records updated.
    #[inline(always)]
    fn insert_bundle_unhooked<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle_id: BundleId,
        location: EntityLocation,
        bundle: B,
        panics: &mut PanicSlot,
    ) {
        let tick = self.change_tick();
        if self.inherited_events_on() {
            let destination = self
                .bundles
                .insert_edge(bundle_id, location.archetype, &mut self.archetypes, &self.components, &self.sparse_sets)
                .destination;
            // A panicking observer waits until the change is done.
            panics.catch(|| self.inherited_events_for_move(entity, location.archetype, Some(destination)));
        }
        let edge = self.bundles.insert_edge(
            bundle_id,
            location.archetype,
            &mut self.archetypes,
            &self.components,
            &self.sparse_sets,
        );
        let destination = edge.destination;
        let mut row = location.row as usize;
        if destination != location.archetype {
            // SAFETY: `row` is the entity's row; an insert edge only adds ids (and
            // for an exclusive relationship drops the replaced pair, which the move
            // drops itself); the new columns are written by the writer below.
            let moved = unsafe {
                self.archetypes.move_row(entity, location.archetype, row, destination, &edge.plan, true, panics)
            };
            if let Some(swapped) = moved.swapped {
                self.entities.set_location(swapped, location);
            }
            row = moved.row;
            self.entities.set_location(entity, EntityLocation { archetype: destination, row: row as u32 });
        }
        let table = self.archetypes.get_mut(destination).table_mut();
        // SAFETY: the edge was built for the entity's archetype; after the move the
        // columns the source lacked are the uninitialized ones the writer fills.
        unsafe {
            BundleWriter::write_bundle(bundle, &edge.slots, table, row, &mut self.sparse_sets, entity, tick, panics);
        }
        self.mark_sparse(entity, bundle_id);
    }

    /// Removes the components of bundle `B` from `entity` and returns them if it had
    /// every one of them (its own values, not inherited ones). If it lacks any,
    /// nothing is removed and `None` is returned (as hecs' `remove` and Bevy's
    /// `take`); `None` too if the entity is not alive.
    /// [`EntityWorldMut::remove`] removes whatever part of `B` the entity has.
    ///
    /// # Panics
    /// If the `Drop` of a dropped value panics, the removal still completes and
    /// the panic continues from here.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(f32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u8);
    /// let mut world = World::new();
    /// let e = world.spawn((Health(5.0), Armor(1))).id();
    /// assert_eq!(world.remove::<Health>(e), Some(Health(5.0)));
    /// assert_eq!(world.remove::<Health>(e), None);
    /// assert_eq!(world.remove::<(Health, Armor)>(e), None); // Health missing: nothing removed
    /// assert_eq!(world.get::<Armor>(e), Some(&Armor(1)));
    /// world.entity_mut(e).remove::<(Health, Armor)>(); // removes what is there
    /// assert!(!world.has::<Armor>(e));
    /// ```
    #[inline]
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Option<B> {
        self.flush_entities();
        self.remove_bundle::<B, true>(entity)
    }

    /// Removes `B` from `entity`; see [`World::remove`]. With `ALL_OR_NOTHING`,
    /// an entity lacking part of `B` is left unchanged; without, the part it
    /// has is removed and dropped (both give `None` then).
    #[inline]
    pub(crate) fn remove_bundle<B: Bundle, const ALL_OR_NOTHING: bool>(&mut self, entity: Entity) -> Option<B> {
        const {
            assert!(
                !B::HAS_PAIRS,
                "a bundle with `Relationship::pair` values cannot be removed as a bundle: use remove_pair"
            );
        }
        let bundle_id = self.register_bundle::<B>();
        let location = self.entities.location(entity)?;
        if self.bundle_lifecycle(bundle_id, entity) {
            return self.remove_bundle_hooked::<B, ALL_OR_NOTHING>(entity, bundle_id);
        }
        let mut panics = PanicSlot::default();
        let taken = self.remove_bundle_unhooked::<B, ALL_OR_NOTHING>(entity, bundle_id, location, &mut panics);
        self.flush_inherited_gains_catching(&mut panics);
        panics.resume();
        taken
    }

    /// `remove_bundle` with hooks: `on_replace` then `on_remove` for the values it
    /// removes (still readable), the removal, then their commands.
    #[cold]
    #[inline(never)]
    fn remove_bundle_hooked<B: Bundle, const ALL_OR_NOTHING: bool>(
        &mut self,
        entity: Entity,
        bundle_id: BundleId,
    ) -> Option<B> {
        let present = self.bundle_components_present(entity, bundle_id);
        if ALL_OR_NOTHING && present.len() < self.bundles.info(bundle_id).components().len() {
            return None;
        }
        self.run_hooks(HookKind::Replace, entity, &present);
        self.run_hooks(HookKind::Remove, entity, &present);
        let location = self.entities.location(entity).expect("hooks cannot despawn (their commands wait)");
        let mut panics = PanicSlot::default();
        let taken = self.remove_bundle_unhooked::<B, ALL_OR_NOTHING>(entity, bundle_id, location, &mut panics);
        self.flush_deferred();
        panics.resume();
        taken
    }

    /// Whether `entity` has every component of a remove edge's bundle (its
    /// table ones by the edge, its sparse ones by their sets).
    #[inline(always)]
    fn remove_edge_has_all(edge: &crate::bundle::RemoveEdge, sparse_sets: &SparseSets, entity: Entity) -> bool {
        edge.has_all_table_components
            && (!edge.has_sparse
                || edge.sources.iter().all(|source| match source {
                    ReadSource::Sparse(set) => sparse_sets.get(*set).contains(entity),
                    _ => true,
                }))
    }

    /// Removes bundle `B` (registered as `bundle_id`) from the alive `entity` at
    /// `location`, without running hooks. Values it drops (when the entity has
    /// only part of `B`) keep a panicking `Drop` in `panics`: the removal
    /// completes.
    #[inline(always)]
    fn remove_bundle_unhooked<B: Bundle, const ALL_OR_NOTHING: bool>(
        &mut self,
        entity: Entity,
        bundle_id: BundleId,
        location: EntityLocation,
        panics: &mut PanicSlot,
    ) -> Option<B> {
        if self.inherited_events_on() {
            let edge = self.bundles.remove_edge(
                bundle_id,
                location.archetype,
                &mut self.archetypes,
                &self.components,
                &self.sparse_sets,
            );
            let (destination, has_all) = (edge.destination, Self::remove_edge_has_all(edge, &self.sparse_sets, entity));
            if !ALL_OR_NOTHING || has_all {
                // A panicking observer waits until the change is done.
                panics.catch(|| self.inherited_events_for_move(entity, location.archetype, Some(destination)));
            }
        }
        let edge = self.bundles.remove_edge(
            bundle_id,
            location.archetype,
            &mut self.archetypes,
            &self.components,
            &self.sparse_sets,
        );
        let has_all = Self::remove_edge_has_all(edge, &self.sparse_sets, entity);
        if ALL_OR_NOTHING && !has_all {
            return None;
        }
        let row = location.row as usize;
        let taken = if has_all {
            let mut reader = BundleReader {
                sources: &edge.sources,
                table: self.archetypes[location.archetype].table(),
                row,
                sparse_sets: &mut self.sparse_sets,
                entity,
                cursor: 0,
            };
            Some(B::read_components(&mut reader))
        } else {
            if edge.has_sparse {
                for source in edge.sources.iter() {
                    if let ReadSource::Sparse(set) = source {
                        let set = self.sparse_sets.get_mut(*set);
                        // The value is unlinked before its `Drop` runs.
                        panics.catch(|| {
                            set.remove_drop(entity);
                        });
                    }
                }
            }
            None
        };
        if edge.destination != location.archetype {
            // SAFETY: `row` is the entity's row; a remove edge only removes ids, so the
            // destination has no new columns; when the bundle was read, its table
            // values were moved out and are forgotten (`drop_removed = !has_all`).
            let moved = unsafe {
                self.archetypes.move_row(
                    entity,
                    location.archetype,
                    row,
                    edge.destination,
                    &edge.plan,
                    !has_all,
                    panics,
                )
            };
            if let Some(swapped) = moved.swapped {
                self.entities.set_location(swapped, location);
            }
            let new_location = EntityLocation { archetype: edge.destination, row: moved.row as u32 };
            self.entities.set_location(entity, new_location);
        }
        taken
    }

    /// Whether `entity` has component `T`, its own or inherited from a base
    /// through `IsA` (for components with the default `on_instantiate`
    /// policy, as the `Has<T>` query term sees it); `false` if it is not
    /// alive. [`World::owns`] ignores inherited values.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct MaxSpeed(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    /// let fighter = world.instantiate(ship);
    /// assert!(world.has::<MaxSpeed>(fighter) && !world.owns::<MaxSpeed>(fighter));
    /// ```
    #[inline]
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        let Some(id) = self.components.id_of_component::<T>() else {
            return false;
        };
        match T::STORAGE {
            StorageKind::Table => {
                self.entities.location(entity).and_then(|location| self.archetypes.get(location.archetype)).is_some_and(
                    |archetype| {
                        archetype.contains(id.id())
                            || (crate::component::is_inherited::<T>() && archetype.inherited_from(id.id()).is_some())
                    },
                )
            }
            StorageKind::Sparse => {
                self.is_alive(entity)
                    && (self.sparse_sets.of(id).is_some_and(|set| set.contains(entity))
                        || (crate::component::is_inherited_sparse::<T>()
                            && self.sparse_base_holding(entity, id).is_some()))
            }
        }
    }

    /// Whether `entity` has its own component `T` (not one inherited through
    /// `IsA`); `false` if it is not alive.
    #[inline]
    pub fn owns<T: Component>(&self, entity: Entity) -> bool {
        let Some(id) = self.components.id_of_component::<T>() else {
            return false;
        };
        match T::STORAGE {
            StorageKind::Table => self
                .entities
                .location(entity)
                .and_then(|location| self.archetypes.get(location.archetype))
                .is_some_and(|archetype| archetype.contains(id.id())),
            StorageKind::Sparse => {
                self.is_alive(entity) && self.sparse_sets.of(id).is_some_and(|set| set.contains(entity))
            }
        }
    }

    /// The `T` of `entity`; `None` if the entity is not alive or lacks `T`.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        let value = match self.value_of::<T>(entity) {
            Some(found) => found,
            None if crate::component::is_inherited::<T>() => self.value_of::<T>(self.base_holding::<T>(entity)?)?,
            None if crate::component::is_inherited_sparse::<T>() => {
                let id = self.components.id_of_component::<T>()?;
                self.value_of::<T>(self.sparse_base_holding(entity, id)?)?
            }
            None => return None,
        };
        // SAFETY: `value` points at a valid `T` in this world's storage, borrowed for `&self`.
        Some(unsafe { value.cast::<T>().as_ref() })
    }

    /// Address of `entity`'s own `T` ([`World::get_with_ticks`] without the
    /// ticks, for reads).
    #[inline(always)]
    fn value_of<T: Component>(&self, entity: Entity) -> Option<core::ptr::NonNull<u8>> {
        if T::STORAGE != StorageKind::Table {
            return self.get_with_ticks::<T>(entity).map(|(value, _)| value);
        }
        match self.table_slot_of::<T>(entity)? {
            // SAFETY: `row` is the entity's row in the column's table.
            (Some(column), row) => Some(unsafe { column.get_ptr(row) }),
            (None, _) => Some(core::ptr::NonNull::<T>::dangling().cast()),
        }
    }

    /// The column holding `entity`'s table component `T` (`None`: `T` is a
    /// tag in its archetype) and its row; `None` if it lacks `T` or is not
    /// alive.
    #[inline(always)]
    fn table_slot_of<T: Component>(&self, entity: Entity) -> Option<(Option<&crate::storage::Column>, usize)> {
        let id = self.components.id_of_component::<T>()?;
        let location = self.entities.location(entity)?;
        let archetype = self.archetypes.get(location.archetype)?;
        let column = archetype.column_map()[archetype.position_of(id.id())?];
        let column = (column >= 0).then(|| archetype.table().column(column as usize));
        Some((column, location.row as usize))
    }

    /// The base `entity` inherits its `T` from (through `IsA`), if any.
    #[inline]
    fn base_holding<T: Component>(&self, entity: Entity) -> Option<Entity> {
        let id = self.components.id_of_component::<T>()?;
        let location = self.entities.location(entity)?;
        self.archetypes.get(location.archetype)?.inherited_from(id.id())
    }

    /// The base `entity` inherits its value of the sparse component
    /// `component` from, if any (see [`World::sparse_base_of`]).
    fn sparse_base_holding(&self, entity: Entity, component: Entity) -> Option<Entity> {
        let location = self.entities.location(entity)?;
        self.sparse_base_of(self.archetypes.get(location.archetype)?, component)
    }

    /// Address of `entity`'s `T` and its tick cells (`None` for table tags).
    #[inline]
    fn get_with_ticks<T: Component>(&self, entity: Entity) -> Option<(core::ptr::NonNull<u8>, Option<TickCells<'_>>)> {
        match T::STORAGE {
            StorageKind::Table => match self.table_slot_of::<T>(entity)? {
                // SAFETY: `row` is the entity's row, below the table's length.
                (Some(column), row) => unsafe { Some((column.get_ptr(row), column.tick_cells(row))) },
                (None, _) => Some((core::ptr::NonNull::<T>::dangling().cast(), None)),
            },
            StorageKind::Sparse => {
                let id = self.components.id_of_component::<T>()?;
                if !self.is_alive(entity) {
                    return None;
                }
                let set = self.sparse_sets.of(id)?;
                let ticks = set.ticks(entity).filter(|_| T::CHANGE_DETECTION);
                Some((set.get(entity)?, ticks.map(|cells| (&cells.added, &cells.changed))))
            }
        }
    }

    /// The `T` of `entity` as a [`Mut`] that marks it changed when written; `None`
    /// if the entity is not alive or lacks `T`.
    #[inline]
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        if T::ID == <Name as Component>::ID {
            self.note_name_write_of(entity);
        }
        let this_run = self.change_tick();
        let last_run = self.last_change_tick;
        let (value, ticks) = self.get_with_ticks::<T>(entity)?;
        // SAFETY: `&mut self` gives exclusive access to the value and its tick
        // cells for the returned borrow; `value` points at a valid `T`.
        unsafe {
            let value = &mut *value.cast::<T>().as_ptr();
            let (added, changed) = match ticks {
                Some((added, changed)) => (added.get(), Some(changed)),
                None => (Tick::default(), None),
            };
            Some(Mut::new(value, added, changed, last_run, this_run))
        }
    }

    /// The `(added, changed)` ticks of `entity`'s `T`, if it has one with ticks.
    pub fn component_ticks<T: Component>(&self, entity: Entity) -> Option<ComponentTicks> {
        let (_, ticks) = self.get_with_ticks::<T>(entity)?;
        let (added, changed) = ticks?;
        Some(ComponentTicks { added: added.get(), changed: changed.get() })
    }

    // ----- resources ----------------------------------------------------------------

    /// Inserts (or replaces) resource `R`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Resource)]
    /// struct Time { dt: f32 }
    /// let mut world = World::new();
    /// world.insert_resource(Time { dt: 0.016 });
    /// world.resource_mut::<Time>().dt = 0.02;
    /// assert_eq!(world.resource::<Time>().dt, 0.02);
    /// assert_eq!(world.remove_resource::<Time>().map(|t| t.dt), Some(0.02));
    /// assert!(world.get_resource::<Time>().is_none());
    /// ```
    pub fn insert_resource<R: Resource>(&mut self, value: R) {
        let tick = self.change_tick();
        self.resources.insert(value, tick);
    }

    /// Inserts `R::default()` unless `R` is present.
    pub fn init_resource<R: Resource + Default>(&mut self) {
        if !self.resources.contains::<R>() {
            self.insert_resource(R::default());
        }
    }

    /// Removes resource `R` and returns it.
    pub fn remove_resource<R: Resource>(&mut self) -> Option<R> {
        self.resources.remove::<R>()
    }

    /// Whether resource `R` is present.
    pub fn contains_resource<R: Resource>(&self) -> bool {
        self.resources.contains::<R>()
    }

    /// Resource `R`.
    ///
    /// # Panics
    /// Panics if `R` is not present, naming the type. Use
    /// [`World::get_resource`] for an `Option`.
    #[track_caller]
    pub fn resource<R: Resource>(&self) -> &R {
        self.get_resource::<R>().unwrap_or_else(|| missing_resource::<R>())
    }

    /// Resource `R`, if present.
    pub fn get_resource<R: Resource>(&self) -> Option<&R> {
        self.resources.get::<R>()
    }

    /// Resource `R` as a [`Mut`].
    ///
    /// # Panics
    /// Panics if `R` is not present, naming the type. Use
    /// [`World::get_resource_mut`] for an `Option`.
    #[track_caller]
    pub fn resource_mut<R: Resource>(&mut self) -> Mut<'_, R> {
        self.get_resource_mut::<R>().unwrap_or_else(|| missing_resource::<R>())
    }

    /// Resource `R` as a [`Mut`], if present.
    pub fn get_resource_mut<R: Resource>(&mut self) -> Option<Mut<'_, R>> {
        let this_run = self.change_tick();
        self.resources.get_mut::<R>(self.last_change_tick, this_run)
    }

    /// The resources.
    pub fn resources(&self) -> &Resources {
        &self.resources
    }

    // ----- change ticks -------------------------------------------------------------

    /// The current change tick: writes made now are stamped with it.
    #[inline]
    pub fn change_tick(&self) -> Tick {
        self.change_tick_wide().tick()
    }

    /// The current change tick on the world's 64-bit clock (see
    /// [`WideTick`]; [`World::change_tick`] is its low 32 bits).
    ///
    /// # Examples
    /// ```
    /// let world = ecs::world::World::new();
    /// assert_eq!(world.change_tick_wide().tick(), world.change_tick());
    /// ```
    #[inline]
    pub fn change_tick_wide(&self) -> WideTick {
        WideTick::new(self.change_tick.load(Ordering::Relaxed))
    }

    /// Advances the change tick and returns the tick before it: a query run that
    /// started now stamps its writes with the returned tick, and later writes are
    /// newer than it.
    #[inline]
    pub fn increment_change_tick(&self) -> Tick {
        self.increment_change_tick_wide().tick()
    }

    /// [`World::increment_change_tick`] on the 64-bit clock.
    ///
    /// # Examples
    /// ```
    /// let world = ecs::world::World::new();
    /// let before = world.change_tick_wide();
    /// assert_eq!(world.increment_change_tick_wide(), before);
    /// assert_eq!(world.change_tick_wide().get(), before.get() + 1);
    /// ```
    #[inline]
    pub fn increment_change_tick_wide(&self) -> WideTick {
        WideTick::new(self.change_tick.fetch_add(1, Ordering::Relaxed))
    }

    /// [`World::increment_change_tick`] through `&mut self` (no atomic operation);
    /// runs the age check when it is due ([`World::check_change_ticks`]).
    ///
    /// # Examples
    /// ```
    /// let mut world = ecs::world::World::new();
    /// let before = world.change_tick();
    /// assert_eq!(world.increment_change_tick_mut(), before);
    /// assert_ne!(world.change_tick(), before);
    /// ```
    #[inline]
    pub fn increment_change_tick_mut(&mut self) -> Tick {
        self.increment_change_tick_wide_mut().tick()
    }

    /// [`World::increment_change_tick_mut`] on the 64-bit clock.
    ///
    /// # Examples
    /// ```
    /// let mut world = ecs::world::World::new();
    /// let before = world.change_tick_wide();
    /// assert_eq!(world.increment_change_tick_wide_mut(), before);
    /// assert_eq!(world.change_tick_wide().get(), before.get() + 1);
    /// ```
    #[inline]
    pub fn increment_change_tick_wide_mut(&mut self) -> WideTick {
        self.check_change_ticks();
        let tick = self.change_tick.get_mut();
        let previous = *tick;
        *tick = previous + 1;
        WideTick::new(previous)
    }

    /// Advances the change clock by `by` ticks at once, as `by` query or system
    /// runs would, **without** running the age check: a test hook for programs
    /// that run for billions of ticks. The next automatic check (or a call to
    /// [`World::check_change_ticks`]) catches up; a program that advances the
    /// clock by more than `2 * CHECK_TICK_THRESHOLD` between two checks lets
    /// stored ticks wrap (values untouched for 2^32 ticks read as changed), so
    /// advance in steps of at most [`CHECK_TICK_THRESHOLD`] with a check between
    /// them, as a real program would.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::storage::CHECK_TICK_THRESHOLD;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn(Health(1));
    /// let mut changed = world.query_filtered::<Entity, Changed<Health>>();
    /// assert_eq!(changed.iter(&world).count(), 1);
    /// for _ in 0..10 {
    ///     // 5 * 10^9 ticks: the clock wraps, the untouched value stays old
    ///     world.advance_change_tick(CHECK_TICK_THRESHOLD);
    ///     world.check_change_ticks();
    /// }
    /// assert_eq!(changed.iter(&world).count(), 0);
    /// ```
    pub fn advance_change_tick(&mut self, by: u32) {
        *self.change_tick.get_mut() += u64::from(by);
    }

    /// The tick `Mut`s from `World::get_mut` compare against for `is_changed`
    /// (advanced by [`World::clear_trackers`]).
    pub fn last_change_tick(&self) -> Tick {
        self.last_change_tick
    }

    /// Starts a new change-detection frame for world-level `Mut`s; runs the age
    /// check when it is due ([`World::check_change_ticks`]).
    pub fn clear_trackers(&mut self) {
        self.last_change_tick = self.increment_change_tick_mut();
    }

    /// The age check: when [`CHECK_TICK_THRESHOLD`] ticks or more passed since
    /// the previous check, clamps every tick stored in the world (table
    /// columns, sparse sets, resources, [`World::last_change_tick`]) to at most
    /// [`MAX_CHANGE_AGE`] old, so values left
    /// untouched for billions of ticks keep reading as old when the 32-bit clock
    /// comes round. Returns whether it ran (otherwise it costs one comparison).
    ///
    /// It runs by itself from the `&mut World` entry points that advance the
    /// clock: [`Schedule::run`](crate::schedule::Schedule::run),
    /// [`System::run`](crate::system::System::run) (and `World::run_system`),
    /// exclusive systems, observers, [`World::clear_trackers`] and the `&mut World`
    /// methods of `QueryState`. A program that advances the clock only through
    /// `&World` (`QueryState::iter` in a loop) must call it at least once per
    /// `CHECK_TICK_THRESHOLD` ticks. Query states, systems and observers clamp
    /// their own `last_run` when they next run (see [`LastRun`](crate::storage::LastRun)).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::storage::{CHECK_TICK_THRESHOLD, MAX_CHANGE_AGE};
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Health(1)).id();
    /// assert!(!world.check_change_ticks(), "not due yet");
    /// for _ in 0..7 {
    ///     world.advance_change_tick(CHECK_TICK_THRESHOLD);
    ///     assert!(world.check_change_ticks());
    /// }
    /// let ticks = world.component_ticks::<Health>(e).unwrap();
    /// assert_eq!(world.change_tick().get().wrapping_sub(ticks.changed.get()), MAX_CHANGE_AGE);
    /// ```
    pub fn check_change_ticks(&mut self) -> bool {
        let now = self.change_tick_wide();
        if now.get() - self.last_check_tick.get() < u64::from(CHECK_TICK_THRESHOLD) {
            return false;
        }
        self.check_change_ticks_now(now);
        true
    }

    #[cold]
    #[inline(never)]
    fn check_change_ticks_now(&mut self, now: WideTick) {
        let tick = now.tick();
        self.archetypes.check_change_ticks(tick);
        self.sparse_sets.check_change_ticks(tick);
        self.resources.check_change_ticks(tick);
        self.last_change_tick.check_tick(tick);
        self.last_check_tick = now;
    }

    // ----- checks -------------------------------------------------------------------

    /// Verifies that the entity index, the tables, the component index and the
    /// sparse sets agree, and that every stored tick is in the age window (see
    /// the module docs).
    ///
    /// # Panics
    /// Panics describing the first violation.
    pub fn check_invariants(&self) {
        self.entities.check_invariants();
        self.archetypes.check_invariants(&self.entities);
        self.check_union_holders();
        self.bundles.check_invariants(&self.archetypes);
        for &entity in self.entities.alive() {
            let location = self.entities.location(entity).expect("alive entities have records");
            let archetype = self.archetypes.get(location.archetype);
            let archetype = archetype.unwrap_or_else(|| panic!("{entity:?} is alive but placed nowhere"));
            assert_eq!(
                archetype.entities().get(location.row as usize),
                Some(&entity),
                "{entity:?}'s record points at a row holding another entity"
            );
        }
        let placed: usize = self.archetypes.iter().map(|archetype| archetype.len()).sum();
        assert_eq!(placed, self.entities.alive_count(), "table rows and alive entities differ in number");
        for (component, set) in self.sparse_sets.iter() {
            set.check_invariants();
            for &entity in set.entities() {
                let record = self.entities.get(entity);
                let record = record.unwrap_or_else(|| panic!("sparse set of {component:?} holds dead {entity:?}"));
                assert!(record.flags.contains(EntityFlags::HAS_SPARSE), "{entity:?} lacks HAS_SPARSE");
            }
        }
        let internal = self
            .entities
            .alive()
            .iter()
            .filter(|&&entity| self.entities.get(entity).is_some_and(|r| r.flags.contains(EntityFlags::INTERNAL)))
            .count();
        assert_eq!(internal, self.internal_count, "internal entity count is off");
        for info in self.components.iter() {
            let record = self.entities.get(info.id());
            let record =
                record.unwrap_or_else(|| panic!("component {} has a dead entity {:?}", info.name(), info.id()));
            assert!(record.flags.contains(EntityFlags::IS_COMPONENT), "component {} lacks IS_COMPONENT", info.name());
        }
        self.check_tick_window();
    }

    /// Checks the tick invariant of the module docs.
    fn check_tick_window(&self) {
        let now = self.change_tick_wide();
        let bound = u64::from(MAX_CHANGE_AGE) + (now.get() - self.last_check_tick.get());
        let check = |tick: Tick, holder: &dyn Fn() -> String| {
            let age = now.tick().get().wrapping_sub(tick.get());
            assert!(
                u64::from(age) <= bound,
                "{} holds {tick:?}, {age} ticks before the clock ({:?}): outside the age window",
                holder(),
                now.tick()
            );
        };
        check(self.last_change_tick, &|| "the world's last_change_tick".to_owned());
        for archetype in self.archetypes.iter() {
            let table = archetype.table();
            for (index, column) in table.columns().iter().enumerate() {
                // SAFETY: the table's length.
                let age = unsafe { column.oldest_tick_age(table.len(), now.tick()) };
                check(Tick::new(now.tick().get().wrapping_sub(age)), &|| {
                    format!("column {index} of {:?}", archetype.id())
                });
            }
        }
        for (component, set) in self.sparse_sets.iter() {
            for &entity in set.entities() {
                let ticks = set.ticks(entity).expect("dense entities hold values").get();
                let holder = || format!("the sparse value of {component:?} of {entity:?}");
                check(ticks.added, &holder);
                check(ticks.changed, &holder);
            }
        }
        for (added, changed) in self.resources.all_ticks() {
            check(added, &|| "a resource".to_owned());
            check(changed, &|| "a resource".to_owned());
        }
    }
}

/// Places each entity it is given, just made alive, in a new row of the empty
/// archetype (how reserved entities become alive).
fn place_empty(archetypes: &mut Archetypes) -> impl FnMut(Entity) -> EntityLocation + '_ {
    |entity| {
        // SAFETY: the empty archetype's table has no columns: the pushed row is
        // complete.
        let (row, _) = unsafe { archetypes.push_row(ArchetypeId::EMPTY, entity) };
        EntityLocation { archetype: ArchetypeId::EMPTY, row: row as u32 }
    }
}

#[cold]
#[track_caller]
fn missing_resource<R>() -> ! {
    panic!("resource {} does not exist; add it with World::insert_resource", type_name::<R>())
}

/// Names to the entities carrying them (the world's name index).
type NameIndex = crate::util::FxHashMap<Box<str>, smallvec::SmallVec<[Entity; 1]>>;

/// `World::names_dirty`: a query may have written any `Name` in place.
const NAMES_ALL_WRITTEN: u8 = 1;
/// `World::names_dirty`: `World::names_written` lists entities.
const NAMES_LISTED: u8 = 2;
