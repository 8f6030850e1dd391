//! [`SpawnBatchIter`]: spawns one entity per bundle of an iterator.
//!
//! The bundle is registered and its destination archetype looked up once, and the
//! table and entity index are reserved from the iterator's size hint once. Each
//! `next` spawns one entity; dropping the iterator spawns the rest, so every
//! bundle is spawned whether or not the ids are consumed. Except while a panic
//! unwinds (a hook or observer of a spawn panicked): then the iterator stops
//! and the remaining bundles are dropped unspawned.
//!
//! Hooks and observers run after each spawn and apply their commands, which may
//! delete archetypes (despawning a component's entity deletes those naming it,
//! the batch's destination among them, and retires the bundle). After hooks,
//! the iterator checks the archetypes' deletion count and, if it moved,
//! registers the bundle and looks its destination up again; batches without
//! hooks or observers run no commands and skip the check.
//!
//! Bundles with run-time pairs (`Relationship::pair`) spawn one by one as
//! `World::spawn` does (one move where their pairs allow it, see
//! `bundle_pairs`): their archetype depends on each bundle's targets.

use super::World;
use crate::bundle::{Bundle, BundleId, BundleWriter, WriteSlot};
use crate::entity::{ArchetypeId, Entity, EntityFlags, EntityLocation};
use crate::util::PanicSlot;

/// The iterator returned by [`World::spawn_batch`].
pub struct SpawnBatchIter<'w, I: Iterator<Item: Bundle>> {
    world: &'w mut World,
    bundles: I,
    target: BatchTarget,
}

/// Where a batch's bundles go, looked up once (and again after hooks deleted
/// archetypes).
struct BatchTarget {
    slots: Box<[WriteSlot]>,
    destination: ArchetypeId,
    has_sparse: bool,
    /// The bundle, when a component of it has hooks (run after each spawn).
    hooked: Option<BundleId>,
    /// `Archetypes::deleted_count` when the destination was looked up.
    deleted_seen: usize,
    /// Whether the bundle holds a `Name` (sibling names are checked per entity).
    named: bool,
}

impl<'w, I: Iterator<Item: Bundle>> SpawnBatchIter<'w, I> {
    pub(crate) fn new(world: &'w mut World, bundles: I) -> Self {
        let (lower, _) = bundles.size_hint();
        let target = Self::resolve(world, lower);
        SpawnBatchIter { world, bundles, target }
    }

    /// Registers the bundle and looks up where it goes, reserving room for
    /// `lower` more entities.
    fn resolve(world: &mut World, lower: usize) -> BatchTarget {
        let bundle = world.register_bundle::<I::Item>();
        let edge = world.bundles.insert_edge(
            bundle,
            ArchetypeId::EMPTY,
            &mut world.archetypes,
            &world.components,
            &world.sparse_sets,
        );
        let destination = edge.destination;
        let slots = edge.slots.clone();
        world.archetypes.get_mut(destination).table_mut().reserve(lower);
        world.entities.reserve(lower);
        let has_sparse = !world.bundles.info(bundle).sparse_components().is_empty();
        // New entities carry no flags: whether they need hooks or observers
        // depends on the bundle only.
        let components = world.bundles.info(bundle).components().iter().map(|component| component.id());
        let hooked = (world.bundles.info(bundle).has_hooks()
            || world.observers.may_observe(components, crate::entity::EntityFlags::EMPTY))
        .then_some(bundle);
        let named = world.bundle_has_name(bundle);
        BatchTarget { slots, destination, has_sparse, hooked, deleted_seen: world.archetypes.deleted_count(), named }
    }

    fn spawn_one(&mut self, bundle: I::Item) -> Entity {
        if <I::Item as Bundle>::HAS_PAIRS {
            // Bundles with pairs spawn as `World::spawn` does (one move where
            // the pairs allow it, the name checked once they all landed).
            let entity = self.world.spawn(bundle).id();
            if self.world.archetypes.deleted_count() != self.target.deleted_seen {
                // Hooks or observers deleted archetypes: the batch's destination
                // may be gone (its slot reused) and the bundle retired.
                let (lower, _) = self.bundles.size_hint();
                self.target = Self::resolve(self.world, lower);
            }
            return entity;
        }
        let world = &mut *self.world;
        let target = &self.target;
        // Hooks of the previous spawn may have reserved entities.
        world.flush_entities();
        let entity = world.entities.alloc();
        let tick = world.change_tick();
        // SAFETY: the slots come from the edge that starts from the empty archetype,
        // so they cover every column of the destination, all new: the writer
        // initializes each value and its ticks. Hooks that deleted archetypes
        // since made `spawn_one` look the destination up again.
        unsafe {
            let (row, table) = world.archetypes.push_row(target.destination, entity);
            world.entities.set_location(entity, EntityLocation { archetype: target.destination, row: row as u32 });
            // A spawn replaces nothing, so no `Drop` runs: nothing to catch.
            let mut panics = PanicSlot::default();
            let sparse_sets = &mut world.sparse_sets;
            BundleWriter::write_bundle(bundle, &target.slots, table, row, sparse_sets, entity, tick, &mut panics);
            debug_assert!(!panics.is_panicking(), "a spawn dropped a value");
        }
        if target.has_sparse
            && let Some(flags) = world.entities.flags_mut(entity)
        {
            *flags |= EntityFlags::HAS_SPARSE;
        }
        if let Some(bundle) = target.hooked {
            world.after_insert_hooks(entity, bundle, &[]);
        }
        if target.named {
            world.refuse_spawned_name_clash(entity);
        }
        if target.hooked.is_some() && world.archetypes.deleted_count() != target.deleted_seen {
            // Commands of hooks or observers deleted archetypes: the destination
            // may be gone (its slot reused) and the bundle retired.
            let (lower, _) = self.bundles.size_hint();
            self.target = Self::resolve(world, lower);
        }
        entity
    }
}

impl<I: Iterator<Item: Bundle>> Iterator for SpawnBatchIter<'_, I> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let bundle = self.bundles.next()?;
        Some(self.spawn_one(bundle))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.bundles.size_hint()
    }
}

impl<I: ExactSizeIterator<Item: Bundle>> ExactSizeIterator for SpawnBatchIter<'_, I> {}

impl<I: Iterator<Item: Bundle>> Drop for SpawnBatchIter<'_, I> {
    fn drop(&mut self) {
        // Dropped while a panic unwinds (a hook of the last spawn panicked):
        // spawning the rest would run hooks again, and a second panic would
        // abort. The remaining bundles are dropped with the iterator instead.
        if std::thread::panicking() {
            return;
        }
        while let Some(bundle) = self.bundles.next() {
            self.spawn_one(bundle);
        }
    }
}
