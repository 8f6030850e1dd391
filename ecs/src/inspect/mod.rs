//! Inspecting a world: what an entity holds ([`World::inspect`]), what the
//! world holds ([`World::inspect_world`], [`World::stats`]) and the shape of
//! the archetype graph ([`World::archetype_graph_dot`]), for debugging
//! overlays, logs and tools (Flecs' explorer, Bevy's inspector).
//!
//! Reports are snapshots: plain owned data (names and values already turned
//! into strings), so they outlive the borrow of the world and can be kept,
//! compared, printed (`Display`) or sent to a tool (`to_json`, hand-written
//! JSON with RFC 8259 string escapes; see `json`). Building one only reads the
//! world (`&self`): nothing is flushed, registered or cached, so inspecting
//! never changes what a later query or structural change does.
//!
//! Values are shown with their `Debug` impl through the type-erased
//! [`DebugFn`] each component registers
//! ([`Component::DEBUG`](crate::component::Component::DEBUG)): the derive
//! fills it in when the type implements `Debug`, with no bound on types that
//! do not. A pair's value has its relationship's type (the table column is
//! laid out from the relationship's info), so the relationship's debug fn
//! reads it.
//!
//! Invariants the reports rely on:
//! * an entity that is alive has a location whose row is below its table's
//!   length, and its archetype's column for an id holds values of that id's
//!   type (the component's, or the relationship's for a pair);
//! * a sparse set holds values of its component's type, at stable addresses
//!   while the world is borrowed;
//! * deleted archetypes are skipped everywhere (they are empty and in no
//!   index), and so are edges into them.
//!
//! The top layer (with `batch`): it reads the world through its accessors
//! (entity index, archetypes, sparse sets, components, resources, observers)
//! and no layer below names it.

mod json;
mod report;

use core::any::TypeId;
use core::fmt;
use core::fmt::Write;
use core::ptr::NonNull;

pub use report::{
    ArchetypeReport, ComponentEntry, EntityReport, ObserverReport, QueryCacheReport, WorldReport, WorldStats,
};

use crate::archetype::{Archetype, ArchetypeFlags};
use crate::component::{ComponentInfo, DebugFn, Name, StorageKind};
use crate::entity::{ArchetypeId, Entity, EntityLocation, Id};
use crate::storage::ComponentTicks;
use crate::world::World;
use crate::world::{OnAdd, OnDespawn, OnInsert, OnRemove, OnReplace};

/// Formats the value at `value` with `debug`.
///
/// # Safety
/// `value` points to a valid, aligned value of the type `debug` was made for
/// (see [`DebugFn`]), unchanged while this runs.
unsafe fn render(debug: DebugFn, value: NonNull<u8>) -> String {
    /// A value and its debug fn; made only here, under `render`'s contract.
    struct Erased(DebugFn, NonNull<u8>);
    impl fmt::Debug for Erased {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            // SAFETY: `Erased` is built only by `render`, whose caller
            // guarantees that the pointer holds a valid value of the type the
            // debug fn was made for, unchanged while it is formatted.
            unsafe { (self.0)(self.1.as_ptr(), f) }
        }
    }
    let mut out = String::new();
    let _ = write!(out, "{:?}", Erased(debug, value));
    out
}

/// The name of a lifecycle event type, or `"event"` for a user event.
fn event_name(event: TypeId) -> &'static str {
    let lifecycle = [
        (TypeId::of::<OnAdd>(), "OnAdd"),
        (TypeId::of::<OnInsert>(), "OnInsert"),
        (TypeId::of::<OnReplace>(), "OnReplace"),
        (TypeId::of::<OnRemove>(), "OnRemove"),
        (TypeId::of::<OnDespawn>(), "OnDespawn"),
    ];
    lifecycle.iter().find(|(id, _)| *id == event).map_or("event", |(_, name)| name)
}

/// Appends `text` as a Graphviz double-quoted string.
fn dot_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl World {
    /// A report of `entity`: its name and path, archetype, and every
    /// component, pair and tag it has with its value shown by `Debug` where
    /// the type implements it (see [`EntityReport`]); sparse components and
    /// components inherited from prefabs through `IsA` are listed too, and
    /// disabled toggleable values are marked. [`World::try_inspect`] is the
    /// form that returns `None` for an entity that is not alive.
    ///
    /// # Panics
    /// Panics if `entity` is not alive (despawned, stale, or reserved and not
    /// yet flushed), naming it. A component's own `Debug` impl may panic too.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug)]
    /// struct Position { x: f32, y: f32 }
    /// #[derive(Component)]
    /// struct Enemy;
    /// let mut world = World::new();
    /// let station = world.spawn(Name::new("station")).id();
    /// let e = world.spawn((Name::new("drone"), ChildOf.pair(station), Position { x: 1.0, y: 2.0 }, Enemy)).id();
    /// let report = world.inspect(e);
    /// assert_eq!(report.path.as_deref(), Some("station::drone"));
    /// assert_eq!(report.component("Position").unwrap().value.as_deref(), Some("Position { x: 1.0, y: 2.0 }"));
    /// assert!(report.component("Enemy").unwrap().is_tag);
    /// assert!(report.component("(ChildOf, station)").is_some());
    /// println!("{report}");
    /// assert!(report.to_json().starts_with('{'));
    /// ```
    #[track_caller]
    pub fn inspect(&self, entity: Entity) -> EntityReport {
        self.try_inspect(entity).unwrap_or_else(|| panic!("inspect: entity {entity:?} is not alive"))
    }

    /// [`World::inspect`], or `None` if `entity` is not alive (despawned,
    /// stale, or reserved and not yet flushed); never panics (but a
    /// component's own `Debug` impl may).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.spawn(Name::new("drone")).id();
    /// assert_eq!(world.try_inspect(e).unwrap().name.as_deref(), Some("drone"));
    /// world.despawn(e);
    /// assert!(world.try_inspect(e).is_none());
    /// ```
    pub fn try_inspect(&self, entity: Entity) -> Option<EntityReport> {
        let location = self.entities().location(entity)?;
        let archetype = self.archetypes().get(location.archetype).filter(|archetype| !archetype.is_dead())?;
        if location.row as usize >= archetype.len() || archetype.entities()[location.row as usize] != entity {
            return None;
        }
        let mut components = Vec::with_capacity(archetype.ids().len());
        for &id in archetype.ids() {
            components.push(self.owned_entry(entity, location, archetype, id));
        }
        for (component, set) in self.sparse_sets().iter() {
            let Some(value) = set.get(entity) else { continue };
            let info = self.components().info(component);
            let mut entry = self.entry_header(component.id(), info);
            entry.sparse = true;
            entry.is_tag = info.is_none_or(ComponentInfo::is_tag);
            if !entry.is_tag {
                // SAFETY: a sparse set holds values of its component's type
                // (its layout comes from the same info), at a stable address
                // while `&self` borrows the world.
                entry.value = info.and_then(ComponentInfo::debug_fn).map(|debug| unsafe { render(debug, value) });
            }
            components.push(entry);
        }
        for &(id, base) in archetype.inherited() {
            let Some(info) = self.component_of_id(id).filter(|info| info.is_inherited()) else { continue };
            if archetype.contains(id) {
                continue; // overridden: the entity owns its value
            }
            let mut entry = self.entry_header(id, Some(info));
            entry.inherited_from = Some(base);
            entry.is_tag = info.is_tag();
            if !entry.is_tag
                && let Some(debug) = info.debug_fn()
                && let Some((value, _)) = self.id_value(base, id)
            {
                // SAFETY: `id_value` gives the base's value of `id` from the
                // column of `id`, which holds values of the component's type
                // (the one `debug` was made for); `&self` keeps it unchanged.
                entry.value = Some(unsafe { render(debug, value) });
            }
            components.push(entry);
        }
        Some(EntityReport {
            entity,
            name: self.get::<Name>(entity).map(|name| name.as_str().to_owned()),
            path: self.path(entity),
            archetype: location.archetype,
            components,
        })
    }

    /// The name, pair parts and tag-ness of `id`, with no value yet.
    fn entry_header(&self, id: Id, info: Option<&ComponentInfo>) -> ComponentEntry {
        let (relationship, target) = if id.is_pair() {
            (Some(self.index_name(id.first_index())), self.entity_at(id.second_index()))
        } else {
            (None, None)
        };
        ComponentEntry {
            id,
            name: self.id_name(id),
            relationship,
            target,
            is_tag: info.is_none_or(ComponentInfo::is_tag),
            value: None,
            inherited_from: None,
            disabled: false,
            sparse: info.is_some_and(|info| info.storage() == StorageKind::Sparse && !id.is_pair()),
        }
    }

    /// The entry of `id`, an id of `entity`'s archetype.
    fn owned_entry(&self, entity: Entity, location: EntityLocation, archetype: &Archetype, id: Id) -> ComponentEntry {
        let concrete = self.concrete_pair(entity, id);
        // A pair's values have its relationship's type.
        let info =
            if id.is_pair() { self.components().info_by_index(id.first_index()) } else { self.component_of_id(id) };
        let mut entry = self.entry_header(concrete, info);
        if crate::archetype::is_union_id(id) {
            entry.is_tag = true; // its column holds targets, not values
            return entry;
        }
        let Some(column) = archetype.column_of(id) else { return entry };
        let column = archetype.table().column(column);
        let row = location.row as usize;
        // SAFETY: `row` is `entity`'s row (checked by `inspect`), below the
        // table's length, and toggle bits cover every row below the capacity.
        entry.disabled = unsafe { !column.is_enabled(row) };
        if !entry.is_tag
            && let Some(debug) = info.and_then(ComponentInfo::debug_fn)
        {
            // SAFETY: as above for `row`; the pointer stays inside the column.
            let value = unsafe { column.get_ptr(row) };
            // SAFETY: the column of `id` holds initialized values of the
            // component's type (the relationship's for a pair), the type
            // `debug` was made for; `&self` keeps the value unchanged.
            entry.value = Some(unsafe { render(debug, value) });
        }
        entry
    }

    /// Counts and sizes of the world: entities, live and empty archetypes,
    /// tables, approximate bytes of component storage, components, sparse
    /// sets, resources, observers and graph edges (see [`WorldStats`] for
    /// what each counts). One walk over the archetypes and sparse sets.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let base = world.stats();
    /// let e = world.spawn(Health(1)).id();
    /// assert_eq!(world.stats().entities, base.entities + 1);
    /// world.despawn(e);
    /// let stats = world.stats();
    /// assert_eq!((stats.entities, stats.empty_archetypes), (base.entities, base.empty_archetypes + 1));
    /// ```
    pub fn stats(&self) -> WorldStats {
        let mut stats = WorldStats {
            entities: self.entity_count(),
            internal_entities: self.entities().alive_count() - self.entity_count(),
            components: self.components().len(),
            resources: self.resources().len(),
            observers: self.observers().len(),
            ..WorldStats::default()
        };
        for archetype in self.archetypes().iter().filter(|archetype| !archetype.is_dead()) {
            stats.archetypes += 1;
            stats.empty_archetypes += usize::from(archetype.is_empty());
            let table = archetype.table();
            if table.capacity() > 0 {
                stats.tables += 1;
                let block = table
                    .columns()
                    .iter()
                    .fold(core::alloc::Layout::new::<()>(), |layout, column| column.place(layout, table.capacity()).0);
                stats.bytes += block.size() + table.capacity() * size_of::<Entity>();
            }
            stats.graph_edges += self.live_edges(archetype).count();
        }
        for (component, set) in self.sparse_sets().iter() {
            stats.sparse_sets += 1;
            let size = self.components().info(component).map_or(0, |info| info.layout().size());
            stats.bytes += set.len() * (size + size_of::<ComponentTicks>());
        }
        stats
    }

    /// The cached edges of `archetype` that lead to live archetypes:
    /// `(added, id, destination)`, sorted.
    fn live_edges<'a>(&'a self, archetype: &'a Archetype) -> impl Iterator<Item = (bool, Id, usize)> + 'a {
        let mut edges: Vec<(bool, Id, usize)> = archetype
            .edges()
            .adds()
            .map(|(id, to)| (true, id, to.index()))
            .chain(archetype.edges().removes().map(|(id, to)| (false, id, to.index())))
            .filter(|&(_, _, to)| self.archetypes().get(ArchetypeId::new(to)).is_some_and(|target| !target.is_dead()))
            .collect();
        edges.sort_unstable_by_key(|&(added, id, to)| (!added, id, to));
        edges.into_iter()
    }

    /// A report of the whole world: [`World::stats`], every live archetype
    /// (its ids by name and entity count), the resources by name, the
    /// observers (event and watched components) and what the world knows of
    /// query caches (see [`WorldReport`]; query states are owned by their
    /// users, so the world does not list them).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// #[derive(Resource)]
    /// struct Score(u32);
    /// let mut world = World::new();
    /// world.spawn(Health(1));
    /// world.insert_resource(Score(0));
    /// world.add_observer(|_: Trigger<OnRemove, Health>| {});
    /// let report = world.inspect_world();
    /// assert_eq!(report.resources, ["Score"]);
    /// assert_eq!(report.observers[0].event, "OnRemove");
    /// assert!(report.archetypes.iter().any(|a| a.components == ["Health"]));
    /// println!("{report}");
    /// ```
    pub fn inspect_world(&self) -> WorldReport {
        let archetypes = self
            .archetypes()
            .iter()
            .filter(|archetype| !archetype.is_dead())
            .map(|archetype| ArchetypeReport {
                id: archetype.id(),
                components: archetype.ids().iter().map(|&id| self.id_name(id)).collect(),
                entities: archetype.len(),
                columns: archetype.table().columns().len(),
                capacity: archetype.table().capacity(),
                internal: archetype.flags().contains(ArchetypeFlags::INTERNAL),
            })
            .collect();
        let mut resources: Vec<String> = self.resources().names().map(str::to_owned).collect();
        resources.sort_unstable();
        let observers = self
            .observers()
            .entries()
            .into_iter()
            .map(|(entity, event, watches, entity_scoped)| ObserverReport {
                entity,
                event: event_name(event).to_owned(),
                watches: watches.iter().map(|&id| self.id_name(id)).collect(),
                entity_scoped,
            })
            .collect();
        WorldReport {
            stats: self.stats(),
            archetypes,
            resources,
            observers,
            queries: QueryCacheReport {
                cache_epoch: self.archetypes().cache_epoch(),
                deleted_archetypes: self.archetypes().deleted_count(),
                reused_archetype_slots: self.archetypes().reused_count(),
            },
        }
    }

    /// The archetype graph in Graphviz DOT: a `digraph` with one node per
    /// live archetype (`a<id>`, labelled with its ids' names and its entity
    /// count; internal archetypes grey) and one edge per cached graph edge
    /// between live archetypes, labelled `+Name` for an add edge and `-Name`
    /// (dashed) for a remove edge. Render it with `dot -Tsvg`. Only edges a
    /// structural change has used are cached, so the graph shows the moves
    /// the program made. For a schedule's system graph, see
    /// [`Schedule::to_dot`](crate::schedule::Schedule::to_dot).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// world.entity_mut(e).insert(Health(1));
    /// let archetype = world.entity(e).archetype().index();
    /// let dot = world.archetype_graph_dot();
    /// assert!(dot.starts_with("digraph archetypes {"));
    /// assert!(dot.contains(&format!("a0 -> a{archetype} [label=\"+Health\"]")));
    /// ```
    pub fn archetype_graph_dot(&self) -> String {
        let mut out =
            String::from("digraph archetypes {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
        for archetype in self.archetypes().iter().filter(|archetype| !archetype.is_dead()) {
            let names: Vec<String> = archetype.ids().iter().map(|&id| self.id_name(id)).collect();
            let plural = if archetype.len() == 1 { "entity" } else { "entities" };
            let label = format!("#{} [{}]\n{} {plural}", archetype.id().index(), names.join(", "), archetype.len());
            let _ = write!(out, "  a{} [label=", archetype.id().index());
            dot_string(&mut out, &label);
            if archetype.flags().contains(ArchetypeFlags::INTERNAL) {
                out.push_str(", color=grey, fontcolor=grey");
            }
            out.push_str("];\n");
        }
        for archetype in self.archetypes().iter().filter(|archetype| !archetype.is_dead()) {
            for (added, id, to) in self.live_edges(archetype) {
                let _ = write!(out, "  a{} -> a{to} [label=", archetype.id().index());
                dot_string(&mut out, &format!("{}{}", if added { '+' } else { '-' }, self.id_name(id)));
                out.push_str(if added { "];\n" } else { ", style=dashed];\n" });
            }
        }
        out.push_str("}\n");
        out
    }
}
