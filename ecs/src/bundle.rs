//! Bundles: groups of components inserted or removed together.
//!
//! A [`Bundle`] lists its component ids and hands its values to a typed
//! [`ComponentWriter`] (or rebuilds itself from a [`ComponentReader`]) in one fixed
//! order. Every component is a bundle, tuples of bundles up to 16 are bundles, and
//! `#[derive(Bundle)]` makes structs of bundles bundles (nesting works).
//!
//! [`Bundles`] registers each bundle type once ([`BundleInfo`]) and caches, per
//! source archetype, the destination of inserting ([`InsertEdge`]) or removing
//! ([`RemoveEdge`]) it together with where every value goes. Inserting a
//! 4-component bundle is therefore one edge lookup and one row move, not four.
//!
//! Invariant: an edge's slots are in bundle order and describe the destination
//! (insert) or source (remove) archetype the edge was built for; no bundle type
//! maps to a bundle naming a despawned component (such bundles are retired,
//! [`Bundles::forget_component`]).

use core::any::TypeId;

use smallvec::SmallVec;

use crate::archetype::{ArchetypeId, Archetypes, MovePlan};
use crate::component::{Component, ComponentRegistrar, Components, StorageKind};
use crate::entity::{Entity, Id};
use crate::storage::{ComponentTicks, SparseSetIndex, SparseSets, Table, Tick};
use crate::util::{FxHashMap, PanicSlot, TypeIdMap};

/// A group of components inserted or removed together.
///
/// # Safety
/// [`component_ids`](Bundle::component_ids), [`write_components`](Bundle::write_components)
/// and [`read_components`](Bundle::read_components) must visit the same component
/// types in the same order. `#[derive(Bundle)]` guarantees it.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Velocity(f32);
/// #[derive(Bundle)]
/// struct Mover { position: Position, velocity: Velocity }
/// #[derive(Bundle)]
/// struct Ship { mover: Mover, hull: (Health,) } // nested bundles
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let e = world.spawn(Ship { mover: Mover { position: Position(1.0), velocity: Velocity(2.0) }, hull: (Health(3),) }).id();
/// assert_eq!(world.get::<Velocity>(e), Some(&Velocity(2.0)));
/// let mover: Mover = world.remove::<Mover>(e).unwrap();
/// assert_eq!(mover.position, Position(1.0));
/// assert!(!world.has::<Position>(e) && world.has::<Health>(e));
/// ```
pub unsafe trait Bundle: Send + Sync + 'static {
    /// Whether the bundle holds pairs whose targets are known only at run time
    /// (`Relationship::pair`): they are taken out with [`Bundle::take_pairs`]
    /// before the components are written, and placed with them (tag pairs of a
    /// spawn) or added right after them.
    const HAS_PAIRS: bool = false;

    /// Moves the bundle's run-time pairs into `sink` (the pairs then write no
    /// components). Nothing for bundles without pairs.
    fn take_pairs(&mut self, _sink: &mut impl PairSink) {}

    /// Registers (if needed) and reports every component id, in order.
    fn component_ids(registrar: &mut ComponentRegistrar<'_>, ids: &mut impl FnMut(Entity));
    /// Moves every component into `writer`, in order.
    fn write_components(self, writer: &mut impl ComponentWriter);
    /// Rebuilds the bundle from `reader`, reading every component in order.
    fn read_components(reader: &mut impl ComponentReader) -> Self;
}

/// Receives the pairs of a bundle (`Relationship::pair`): the relationship's
/// value and the pair's target.
pub trait PairSink {
    /// Takes one pair.
    fn pair<C: Component>(&mut self, value: C, target: Entity);
}

/// Receives a bundle's values, in the bundle's order.
pub trait ComponentWriter {
    /// Takes the next value.
    fn write<C: Component>(&mut self, value: C);
}

/// Hands out a bundle's values, in the bundle's order.
pub trait ComponentReader {
    /// Gives the next value.
    fn read<C: Component>(&mut self) -> C;
}

// SAFETY: one component, visited once by each method.
unsafe impl<C: Component> Bundle for C {
    #[inline]
    fn component_ids(registrar: &mut ComponentRegistrar<'_>, ids: &mut impl FnMut(Entity)) {
        ids(registrar.register::<C>());
    }

    // Always inlined (like the tuples' and the writer's `write`): a spawn's
    // per-entity cost is mostly these writes, and a call keeps the writer's
    // cursor in memory.
    #[inline(always)]
    fn write_components(self, writer: &mut impl ComponentWriter) {
        writer.write(self);
    }

    #[inline]
    fn read_components(reader: &mut impl ComponentReader) -> Self {
        reader.read::<C>()
    }
}

macro_rules! impl_bundle_tuple {
    ($($name:ident),*) => {
        // SAFETY: each method visits the elements in tuple order.
        unsafe impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            #[inline]
            #[allow(unused_variables)]
            fn component_ids(registrar: &mut ComponentRegistrar<'_>, ids: &mut impl FnMut(Entity)) {
                $(<$name as Bundle>::component_ids(registrar, ids);)*
            }

            const HAS_PAIRS: bool = false $(|| <$name as Bundle>::HAS_PAIRS)*;

            #[inline]
            #[allow(unused_variables, non_snake_case)]
            fn take_pairs(&mut self, sink: &mut impl PairSink) {
                let ($($name,)*) = self;
                $(<$name as Bundle>::take_pairs($name, sink);)*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn write_components(self, writer: &mut impl ComponentWriter) {
                let ($($name,)*) = self;
                $($name.write_components(writer);)*
            }

            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            fn read_components(reader: &mut impl ComponentReader) -> Self {
                ($(<$name as Bundle>::read_components(reader),)*)
            }
        }
    };
}

ecs_macros::all_tuples!(impl_bundle_tuple, 0, 16, B);

/// The index of a registered bundle type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BundleId(u32);

impl BundleId {
    /// The index in [`Bundles`].
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where one value of a bundle goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteTarget {
    /// A column of the destination table.
    Column(u32),
    /// A zero-sized value: no storage.
    Tag,
    /// A sparse set.
    Sparse(SparseSetIndex),
}

/// One value's destination, and whether the entity already had it in its table
/// (then the old value is replaced; for sparse targets this is decided per write).
#[derive(Clone, Copy, Debug)]
pub struct WriteSlot {
    /// Where the value goes.
    pub target: WriteTarget,
    /// The source archetype already had this (table) component.
    pub existed: bool,
    type_id: Option<TypeId>,
}

/// The cached result of inserting a bundle into one source archetype.
#[derive(Debug)]
pub struct InsertEdge {
    /// The archetype the entity ends up in.
    pub destination: ArchetypeId,
    /// One slot per bundle component, in bundle order.
    pub slots: Box<[WriteSlot]>,
    /// How the entity's row moves (empty when `destination` is the source).
    pub plan: MovePlan,
}

/// Where one value of a removed bundle comes from in the source archetype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadSource {
    /// A column of the source table.
    Column(u32),
    /// A zero-sized value the source archetype has.
    Tag,
    /// A sparse set (presence is checked per entity).
    Sparse(SparseSetIndex),
    /// The source archetype lacks this table component.
    Absent,
}

/// The cached result of removing a bundle from one source archetype.
#[derive(Debug)]
pub struct RemoveEdge {
    /// The archetype the entity ends up in.
    pub destination: ArchetypeId,
    /// One source per bundle component, in bundle order.
    pub sources: Box<[ReadSource]>,
    /// Whether the source archetype has every table component of the bundle.
    pub has_all_table_components: bool,
    /// Whether the bundle has sparse components (whose presence is per entity).
    pub has_sparse: bool,
    /// How the entity's row moves (empty when `destination` is the source).
    pub plan: MovePlan,
}

/// What a bundle type is made of, in bundle order.
#[derive(Debug)]
struct BundleShape {
    components: Box<[Entity]>,
    type_ids: Box<[Option<TypeId>]>,
    table_ids: SmallVec<[Id; 8]>,
    sparse: Box<[(Entity, SparseSetIndex)]>,
}

/// Edges cached per source archetype (indexed by archetype id).
#[derive(Debug)]
struct EdgeCache<E>(Vec<Option<E>>);

/// A cached edge: where it leads.
trait CachedEdge {
    fn destination(&self) -> ArchetypeId;
}

impl CachedEdge for InsertEdge {
    #[inline]
    fn destination(&self) -> ArchetypeId {
        self.destination
    }
}

impl CachedEdge for RemoveEdge {
    #[inline]
    fn destination(&self) -> ArchetypeId {
        self.destination
    }
}

impl<E: CachedEdge> EdgeCache<E> {
    /// The edge from `source`, built on first use (`built` is then told its
    /// destination, to index it for invalidation).
    #[inline(always)]
    fn get_or_build(
        &mut self,
        source: ArchetypeId,
        archetypes: &mut Archetypes,
        build: impl FnOnce(&mut Archetypes) -> E,
        built: impl FnOnce(ArchetypeId),
    ) -> &E {
        let slot = source.index();
        if let Some(Some(_)) = self.0.get(slot) {
            // Re-borrow: returning the first borrow would keep `self` borrowed on
            // the build path too.
            let edge = self.0[slot].as_ref().expect("checked above");
            debug_assert!(!archetypes.is_dead(edge.destination()), "bundle edge into a deleted archetype");
            return edge;
        }
        let edge = build(archetypes);
        built(edge.destination());
        self.insert(slot, edge)
    }

    #[cold]
    #[inline(never)]
    fn insert(&mut self, slot: usize, edge: E) -> &E {
        if slot >= self.0.len() {
            self.0.resize_with(slot + 1, || None);
        }
        self.0[slot].insert(edge)
    }

    /// Forgets the edge from `source`; returns its destination if there was one.
    fn forget(&mut self, source: ArchetypeId) -> Option<ArchetypeId> {
        self.0.get_mut(source.index()).and_then(Option::take).map(|edge| edge.destination())
    }

    /// Forgets the edge from `source` if it leads to `destination`.
    fn forget_if(&mut self, source: ArchetypeId, destination: ArchetypeId) {
        if let Some(slot) = self.0.get_mut(source.index())
            && slot.as_ref().is_some_and(|edge| edge.destination() == destination)
        {
            *slot = None;
        }
    }
}

/// A registered bundle type.
#[derive(Debug)]
pub struct BundleInfo {
    id: BundleId,
    /// Whether a component of the bundle has hooks (inserting or removing it
    /// then takes the slower path that runs them). Hooks are part of a
    /// component's registration, so this is fixed when the bundle is.
    hooks: bool,
    shape: BundleShape,
    insert_edges: EdgeCache<InsertEdge>,
    remove_edges: EdgeCache<RemoveEdge>,
}

impl BundleInfo {
    /// Whether a component of the bundle has hooks.
    #[inline]
    pub fn has_hooks(&self) -> bool {
        self.hooks
    }

    /// The bundle's id.
    pub fn id(&self) -> BundleId {
        self.id
    }

    /// The component ids, in bundle order.
    pub fn components(&self) -> &[Entity] {
        &self.shape.components
    }

    /// The sparse components and their sets.
    pub fn sparse_components(&self) -> &[(Entity, SparseSetIndex)] {
        &self.shape.sparse
    }
}

/// Slots of the direct-mapped cache in front of `Bundles::by_type`.
const RECENT_SLOTS: usize = 16;

/// Every registered bundle type of a world.
#[derive(Default)]
pub struct Bundles {
    by_type: TypeIdMap<BundleId>,
    /// A direct-mapped cache of `by_type` (slot = low bits of the `TypeId`'s hash):
    /// one compare instead of a hash-table probe on the hot insert/remove paths.
    recent: [Option<(TypeId, BundleId)>; RECENT_SLOTS],
    infos: Vec<BundleInfo>,
    /// The cached edges leading into each archetype, `(bundle, source, is an
    /// insert edge)`, so deleting the archetype can forget them.
    by_destination: FxHashMap<ArchetypeId, Vec<(BundleId, ArchetypeId, bool)>>,
}

/// The slot of `type_id` in [`Bundles::recent`].
#[inline]
fn recent_slot(type_id: &TypeId) -> usize {
    let mut hasher = crate::util::PassThroughHasher::default();
    core::hash::Hash::hash(type_id, &mut hasher);
    core::hash::Hasher::finish(&hasher) as usize % RECENT_SLOTS
}

impl Bundles {
    /// The id of bundle type `B`, registering it (and its components) if needed.
    ///
    /// # Errors
    /// If `B` contains the same component twice, a message naming it; the bundle is
    /// not registered (its components are).
    #[inline]
    pub fn register<B: Bundle>(
        &mut self,
        registrar: &mut ComponentRegistrar<'_>,
        sparse_sets: &mut SparseSets,
    ) -> Result<BundleId, String> {
        match self.recent_id::<B>() {
            Some(id) => Ok(id),
            None => self.register_uncached::<B>(registrar, sparse_sets),
        }
    }

    /// The id of `B` if it is in the direct-mapped cache (one compare).
    #[inline]
    pub fn recent_id<B: Bundle>(&self) -> Option<BundleId> {
        let type_id = TypeId::of::<B>();
        match self.recent[recent_slot(&type_id)] {
            Some((recent_type, id)) if recent_type == type_id => Some(id),
            _ => None,
        }
    }

    #[inline(never)]
    fn register_uncached<B: Bundle>(
        &mut self,
        registrar: &mut ComponentRegistrar<'_>,
        sparse_sets: &mut SparseSets,
    ) -> Result<BundleId, String> {
        let type_id = TypeId::of::<B>();
        let slot = recent_slot(&type_id);
        let id = match self.by_type.get(&type_id) {
            Some(&id) => id,
            None => self.register_slow::<B>(registrar, sparse_sets)?,
        };
        self.recent[slot] = Some((type_id, id));
        Ok(id)
    }

    #[cold]
    fn register_slow<B: Bundle>(
        &mut self,
        registrar: &mut ComponentRegistrar<'_>,
        sparse_sets: &mut SparseSets,
    ) -> Result<BundleId, String> {
        let mut components = Vec::new();
        B::component_ids(registrar, &mut |id| components.push(id));
        let registry = registrar.components();
        for (position, component) in components.iter().enumerate() {
            if components[..position].contains(component) {
                let name = registry.info(*component).map_or("?", |info| info.name());
                return Err(format!("bundle {} contains component {name} more than once", core::any::type_name::<B>()));
            }
        }
        let id = BundleId(self.infos.len() as u32);
        let info = Self::describe(id, components, registry, sparse_sets);
        self.infos.push(info);
        self.by_type.insert(TypeId::of::<B>(), id);
        Ok(id)
    }

    fn describe(
        id: BundleId,
        components: Vec<Entity>,
        registry: &Components,
        sparse_sets: &mut SparseSets,
    ) -> BundleInfo {
        let mut table_ids = SmallVec::new();
        let mut sparse = Vec::new();
        let mut type_ids = Vec::with_capacity(components.len());
        for &component in &components {
            let info = registry.info(component).expect("bundle component is registered");
            type_ids.push(info.type_id());
            match info.storage() {
                StorageKind::Table => table_ids.push(component.id()),
                StorageKind::Sparse => {
                    let set = sparse_sets.get_or_insert(component, info.layout(), info.drop_fn());
                    sparse.push((component, set));
                }
            }
        }
        table_ids.sort_unstable();
        let shape = BundleShape {
            components: components.into_boxed_slice(),
            type_ids: type_ids.into_boxed_slice(),
            table_ids,
            sparse: sparse.into_boxed_slice(),
        };
        let hooks = has_hooks(&shape.components, registry);
        BundleInfo { id, hooks, shape, insert_edges: EdgeCache(Vec::new()), remove_edges: EdgeCache(Vec::new()) }
    }

    /// The info of bundle `id`.
    #[inline]
    pub fn info(&self, id: BundleId) -> &BundleInfo {
        &self.infos[id.index()]
    }

    /// The cached insert edge of bundle `id` from `source`, built on first use.
    #[inline]
    pub fn insert_edge(
        &mut self,
        id: BundleId,
        source: ArchetypeId,
        archetypes: &mut Archetypes,
        components: &Components,
        sparse_sets: &SparseSets,
    ) -> &InsertEdge {
        let info = &mut self.infos[id.index()];
        let shape = &info.shape;
        let by_destination = &mut self.by_destination;
        info.insert_edges.get_or_build(
            source,
            archetypes,
            |archetypes| Self::build_insert_edge(shape, source, archetypes, components, sparse_sets),
            |destination| record_edge(by_destination, destination, (id, source, true)),
        )
    }

    #[cold]
    fn build_insert_edge(
        info: &BundleShape,
        source: ArchetypeId,
        archetypes: &mut Archetypes,
        components: &Components,
        sparse_sets: &SparseSets,
    ) -> InsertEdge {
        let destination = match info.table_ids.as_slice() {
            // One id: the graph's own edge (cached both ways).
            &[id] => archetypes.add_edge(source, id, components),
            ids => {
                // Several ids: go straight to the destination type, so no
                // intermediate archetypes are created.
                let mut target: SmallVec<[Id; 8]> = SmallVec::from_slice(archetypes[source].ids());
                for &id in ids {
                    if let Err(position) = target.binary_search(&id) {
                        target.insert(position, id);
                    }
                }
                archetypes.get_or_create_from(source, &target, components)
            }
        };
        let source_archetype = &archetypes[source];
        let destination_archetype = &archetypes[destination];
        let slots = info
            .components
            .iter()
            .zip(info.type_ids.iter())
            .map(|(&component, &type_id)| {
                if let Some(set) = sparse_sets.index_of(component) {
                    return WriteSlot { target: WriteTarget::Sparse(set), existed: false, type_id };
                }
                let target = match destination_archetype.column_of(component.id()) {
                    Some(column) => WriteTarget::Column(column as u32),
                    None => WriteTarget::Tag,
                };
                WriteSlot { target, existed: source_archetype.contains(component.id()), type_id }
            })
            .collect();
        let plan = if destination == source { MovePlan::default() } else { archetypes.move_plan(source, destination) };
        InsertEdge { destination, slots, plan }
    }

    /// The cached remove edge of bundle `id` from `source`, built on first use.
    #[inline]
    pub fn remove_edge(
        &mut self,
        id: BundleId,
        source: ArchetypeId,
        archetypes: &mut Archetypes,
        components: &Components,
        sparse_sets: &SparseSets,
    ) -> &RemoveEdge {
        let info = &mut self.infos[id.index()];
        let shape = &info.shape;
        let by_destination = &mut self.by_destination;
        info.remove_edges.get_or_build(
            source,
            archetypes,
            |archetypes| Self::build_remove_edge(shape, source, archetypes, components, sparse_sets),
            |destination| record_edge(by_destination, destination, (id, source, false)),
        )
    }

    /// Verifies that no cached edge starts from or leads to a deleted archetype.
    ///
    /// # Panics
    /// Panics naming the first such edge.
    pub fn check_invariants(&self, archetypes: &Archetypes) {
        for info in &self.infos {
            let inserts = info
                .insert_edges
                .0
                .iter()
                .enumerate()
                .map(|(source, edge)| (source, edge.as_ref().map(|e| e.destination)));
            let removes = info
                .remove_edges
                .0
                .iter()
                .enumerate()
                .map(|(source, edge)| (source, edge.as_ref().map(|e| e.destination)));
            for (source, destination) in inserts.chain(removes) {
                if let Some(destination) = destination {
                    let source = ArchetypeId::new(source);
                    assert!(
                        !archetypes.is_dead(source) && !archetypes.is_dead(destination),
                        "bundle {:?} caches an edge {source:?} -> {destination:?} touching a deleted archetype",
                        info.id
                    );
                }
            }
        }
    }

    /// Retires every bundle containing the despawned component `component`: its
    /// type is forgotten (registering it again builds a new bundle with the
    /// component's new id) and its edges are dropped. A retired bundle's info
    /// stays readable under its [`BundleId`] (its component list names the dead
    /// id), but no insert or remove goes through it again.
    pub fn forget_component(&mut self, component: Entity) {
        let retired: Vec<BundleId> =
            self.infos.iter().filter(|info| info.components().contains(&component)).map(|info| info.id).collect();
        if retired.is_empty() {
            return;
        }
        self.by_type.retain(|_, id| !retired.contains(id));
        for slot in &mut self.recent {
            if slot.is_some_and(|(_, id)| retired.contains(&id)) {
                *slot = None;
            }
        }
        for &id in &retired {
            let info = &mut self.infos[id.index()];
            info.insert_edges = EdgeCache(Vec::new());
            info.remove_edges = EdgeCache(Vec::new());
        }
        for edges in self.by_destination.values_mut() {
            edges.retain(|(bundle, _, _)| !retired.contains(bundle));
        }
        self.by_destination.retain(|_, edges| !edges.is_empty());
    }

    /// Forgets every cached edge from or into the deleted archetype `archetype`
    /// (its slot may be reused by another archetype).
    pub fn forget_archetype(&mut self, archetype: ArchetypeId) {
        for info in &mut self.infos {
            let bundle = info.id;
            for (insert, destination) in
                [(true, info.insert_edges.forget(archetype)), (false, info.remove_edges.forget(archetype))]
            {
                if let Some(destination) = destination.filter(|&destination| destination != archetype)
                    && let Some(sources) = self.by_destination.get_mut(&destination)
                {
                    sources.retain(|&entry| entry != (bundle, archetype, insert));
                }
            }
        }
        for (bundle, source, insert) in self.by_destination.remove(&archetype).unwrap_or_default() {
            let info = &mut self.infos[bundle.index()];
            if insert {
                info.insert_edges.forget_if(source, archetype);
            } else {
                info.remove_edges.forget_if(source, archetype);
            }
        }
    }

    #[cold]
    fn build_remove_edge(
        info: &BundleShape,
        source: ArchetypeId,
        archetypes: &mut Archetypes,
        components: &Components,
        sparse_sets: &SparseSets,
    ) -> RemoveEdge {
        let destination = match info.table_ids.as_slice() {
            &[id] => archetypes.remove_edge(source, id, components),
            ids => {
                let mut target: SmallVec<[Id; 8]> = SmallVec::from_slice(archetypes[source].ids());
                target.retain(|id| !ids.contains(id));
                archetypes.get_or_create_from(source, &target, components)
            }
        };
        let source_archetype = &archetypes[source];
        let mut has_all_table_components = true;
        let sources = info
            .components
            .iter()
            .map(|&component| {
                if let Some(set) = sparse_sets.index_of(component) {
                    return ReadSource::Sparse(set);
                }
                match (source_archetype.position_of(component.id()), source_archetype.column_of(component.id())) {
                    (Some(_), Some(column)) => ReadSource::Column(column as u32),
                    (Some(_), None) => ReadSource::Tag,
                    (None, _) => {
                        has_all_table_components = false;
                        ReadSource::Absent
                    }
                }
            })
            .collect();
        let plan = if destination == source { MovePlan::default() } else { archetypes.move_plan(source, destination) };
        let has_sparse = !info.sparse.is_empty();
        RemoveEdge { destination, sources, has_all_table_components, has_sparse, plan }
    }
}

/// Writes a bundle's values into one table row and the sparse sets.
pub(crate) struct BundleWriter<'a> {
    slots: &'a [WriteSlot],
    table: &'a mut Table,
    row: usize,
    sparse_sets: &'a mut SparseSets,
    entity: Entity,
    tick: Tick,
    cursor: usize,
    /// Where a panicking `Drop` of a replaced value goes: the write goes on.
    panics: &'a mut PanicSlot,
}

impl<'a> BundleWriter<'a> {
    /// Writes `bundle` into `row` of `table` (and the sparse sets) as `slots` say.
    /// A value that replaces an existing one is written first and the old one
    /// dropped after; a panic of that `Drop` is kept in `panics`, so every value
    /// of the bundle is still written.
    ///
    /// # Safety
    /// `slots` is the insert edge of `B` whose destination owns `table`; `row` is
    /// `entity`'s row there, with every column that the edge's source lacked still
    /// uninitialized and every other column initialized.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn write_bundle<B: Bundle>(
        bundle: B,
        slots: &'a [WriteSlot],
        table: &'a mut Table,
        row: usize,
        sparse_sets: &'a mut SparseSets,
        entity: Entity,
        tick: Tick,
        panics: &'a mut PanicSlot,
    ) {
        let mut writer = BundleWriter { slots, table, row, sparse_sets, entity, tick, cursor: 0, panics };
        bundle.write_components(&mut writer);
    }
}

impl ComponentWriter for BundleWriter<'_> {
    #[inline(always)]
    fn write<C: Component>(&mut self, value: C) {
        debug_assert!(self.cursor < self.slots.len(), "Bundle wrote more components than it has");
        // SAFETY: `slots` has one slot per component of the bundle, which writes
        // each of its components once (the `Bundle` contract).
        let slot = unsafe { *self.slots.get_unchecked(self.cursor) };
        self.cursor += 1;
        debug_assert_eq!(slot.type_id, Some(TypeId::of::<C>()), "Bundle wrote components out of order");
        // As in `BundleReader::read`: dispatch on what `C` is at compile time.
        if matches!(C::STORAGE, StorageKind::Sparse) {
            let WriteTarget::Sparse(set) = slot.target else {
                unreachable!("a sparse component's write target is its set");
            };
            let set = self.sparse_sets.get_mut(set);
            if let Some((place, changed)) = set.get_with_changed(self.entity) {
                // SAFETY: the set stores `C` and the slot holds an initialized value;
                // `&mut self` gives exclusive access to it and its tick.
                let old = unsafe {
                    changed.set_unchecked(self.tick);
                    place.cast::<C>().as_ptr().replace(value)
                };
                self.panics.drop_value(old);
            } else {
                // SAFETY: the entity has no value in this set; the slot is written at once.
                unsafe { set.insert_uninit(self.entity, ComponentTicks::new(self.tick)).cast::<C>().write(value) };
            }
        } else if size_of::<C>() == 0 && !C::CHANGE_DETECTION && !C::TOGGLE {
            debug_assert!(
                matches!(slot.target, WriteTarget::Tag),
                "untracked zero-sized table components that are not toggleable are tags"
            );
            if slot.existed {
                // The entity keeps one value: the old one is dropped, and all values
                // of a zero-sized type are identical, so drop the new one instead.
                self.panics.drop_value(value);
            } else {
                core::mem::forget(value);
            }
        } else {
            let WriteTarget::Column(column) = slot.target else {
                unreachable!("a sized, tracked or toggleable table component's write target is a column");
            };
            // SAFETY: the slots of an insert edge name columns of its destination,
            // whose table this is (`write_bundle`'s contract).
            let column = unsafe { self.table.column_unchecked_mut(column as usize) };
            // SAFETY: the slot's column stores `C` (the bundle contract) and `row`
            // is the entity's row. An existing value is initialized: it is swapped
            // out and dropped after the write; a new one is uninitialized and
            // written without drop.
            unsafe {
                let place = column.get_ptr(self.row).cast::<C>();
                if slot.existed {
                    let old = place.as_ptr().replace(value);
                    column.set_changed(self.row, self.tick);
                    self.panics.drop_value(old);
                } else {
                    place.write(value);
                    column.set_ticks(self.row, ComponentTicks::new(self.tick));
                }
            }
        }
    }
}

/// Reads (moves out) a bundle's values from one table row and the sparse sets.
pub(crate) struct BundleReader<'a> {
    pub(crate) sources: &'a [ReadSource],
    pub(crate) table: &'a Table,
    pub(crate) row: usize,
    pub(crate) sparse_sets: &'a mut SparseSets,
    pub(crate) entity: Entity,
    pub(crate) cursor: usize,
}

impl ComponentReader for BundleReader<'_> {
    #[inline]
    fn read<C: Component>(&mut self) -> C {
        let source = self.sources[self.cursor];
        self.cursor += 1;
        // Dispatch on what `C` is (known at compile time), so a bundle read is
        // straight-line code; the cached source only supplies the index.
        if matches!(C::STORAGE, StorageKind::Sparse) {
            let ReadSource::Sparse(set) = source else {
                unreachable!("a sparse component's read source is its set");
            };
            // SAFETY: the value is moved out right here and never dropped by the set.
            let place = unsafe { self.sparse_sets.get_mut(set).remove_forget(self.entity) };
            let place = place.expect("BundleReader reads only bundles whose every component is present");
            // SAFETY: the set stores `C` and the slot held an initialized value.
            unsafe { place.cast::<C>().read() }
        } else if size_of::<C>() == 0 && !C::CHANGE_DETECTION && !C::TOGGLE {
            debug_assert!(matches!(source, ReadSource::Tag), "BundleReader reads only present components");
            // SAFETY: `C` is zero-sized: any aligned address holds its (only) value.
            unsafe { core::ptr::NonNull::<C>::dangling().read() }
        } else {
            let ReadSource::Column(column) = source else {
                unreachable!("BundleReader reads only bundles whose every component is present");
            };
            // SAFETY: the column stores `C` (bundle contract); the caller forgets the
            // value afterwards (the row is moved with `drop_removed = false`).
            unsafe { self.table.column(column as usize).get_ptr(self.row).cast::<C>().read() }
        }
    }
}

/// Indexes a new edge `(bundle, source, insert)` under its destination (edges
/// that stay in their source archetype are not indexed).
fn record_edge(
    by_destination: &mut FxHashMap<ArchetypeId, Vec<(BundleId, ArchetypeId, bool)>>,
    destination: ArchetypeId,
    edge: (BundleId, ArchetypeId, bool),
) {
    if destination != edge.1 {
        by_destination.entry(destination).or_default().push(edge);
    }
}

/// Whether any of `ids` has a hook.
fn has_hooks(ids: &[Entity], components: &Components) -> bool {
    ids.iter().any(|&id| components.info(id).is_some_and(|info| info.hooks().any()))
}
