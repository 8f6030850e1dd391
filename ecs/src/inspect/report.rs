//! The report types of `World::inspect`, `World::inspect_world` and
//! `World::stats`: plain data with public fields, printed by `Display` and
//! written as JSON by `to_json`.

use core::fmt;

use super::json::{ToJson, object};
use crate::entity::{ArchetypeId, Entity, Id};

/// What [`World::inspect`](crate::world::World::inspect) tells about one
/// entity: its handle, name and path, archetype, and one
/// [`ComponentEntry`] per component, pair or tag it has (its own ones in
/// archetype order, then its sparse components, then what it inherits from
/// prefabs through `IsA`).
///
/// `Display` prints a readable multi-line report; [`EntityReport::to_json`]
/// writes the same data as JSON.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Secret(u32); // no `Debug`
/// let mut world = World::new();
/// let e = world.spawn((Name::new("hero"), Health(7), Secret(1))).id();
/// let report = world.inspect(e);
/// assert_eq!(report.entity, e);
/// assert_eq!(report.name.as_deref(), Some("hero"));
/// assert_eq!(report.component("Health").unwrap().value.as_deref(), Some("Health(7)"));
/// assert_eq!(report.component("Secret").unwrap().value, None);
/// let text = report.to_string();
/// assert!(text.contains("Health: Health(7)"));
/// assert!(text.contains("Secret: <no Debug>"));
/// assert!(report.to_json().starts_with('{'));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityReport {
    /// The inspected entity.
    pub entity: Entity,
    /// Its `Name`, if it has one.
    pub name: Option<String>,
    /// Its path along `ChildOf` (`"station::dock::crane"`,
    /// [`World::path`](crate::world::World::path)); `None` unless it and all
    /// its ancestors are named.
    pub path: Option<String>,
    /// The archetype holding it.
    pub archetype: ArchetypeId,
    /// Its components, pairs and tags (see the type's docs for the order).
    pub components: Vec<ComponentEntry>,
}

/// One component, pair or tag of an [`EntityReport`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Relationship, Debug)]
/// struct Owes(u32);
/// #[derive(Relationship)]
/// struct Likes;
/// let mut world = World::new();
/// let bob = world.spawn(Name::new("bob")).id();
/// let alice = world.spawn_empty().insert_pair(Owes(5), bob).add_pair::<Likes>(bob).id();
/// let report = world.inspect(alice);
/// let owes = report.component("(Owes, bob)").unwrap();
/// assert!(owes.is_pair() && !owes.is_tag);
/// assert_eq!((owes.relationship.as_deref(), owes.target), (Some("Owes"), Some(bob)));
/// assert_eq!(owes.value.as_deref(), Some("Owes(5)"));
/// let likes = report.component("(Likes, bob)").unwrap();
/// assert!(likes.is_tag && likes.value.is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentEntry {
    /// The id: a component, a plain entity used as a tag, or a pair (a union
    /// pair as the concrete `(R, target)` of the entity's row).
    pub id: Id,
    /// A readable name: the component's name, the entity's `Name` or handle,
    /// and pairs as `(relationship, target)` with each side so named.
    pub name: String,
    /// For a pair, the relationship's name.
    pub relationship: Option<String>,
    /// For a pair, its target, if alive.
    pub target: Option<Entity>,
    /// Whether the id stores no value: a zero-sized component, a plain
    /// entity, or a pair whose relationship is zero-sized (or no component).
    pub is_tag: bool,
    /// The value as `{:?}` prints it, if it has one and its type implements
    /// `Debug` (as seen by the derive, see
    /// [`Component::DEBUG`](crate::component::Component::DEBUG)).
    pub value: Option<String>,
    /// The prefab the value is inherited from through `IsA`, if the entity
    /// does not own it.
    pub inherited_from: Option<Entity>,
    /// Whether a toggleable component's value is disabled on this entity
    /// (stored, but absent for queries).
    pub disabled: bool,
    /// Whether the value lives in a sparse set (`storage = "sparse"`).
    pub sparse: bool,
}

impl ComponentEntry {
    /// Whether the id is a pair `(relationship, target)`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let parent = world.spawn_empty().id();
    /// let child = world.spawn(ChildOf.pair(parent)).id();
    /// let report = world.inspect(child);
    /// assert!(report.components.iter().any(|entry| entry.is_pair() && entry.target == Some(parent)));
    /// ```
    #[inline]
    pub fn is_pair(&self) -> bool {
        self.id.is_pair()
    }

    /// Writes the entry as a JSON object.
    fn write_json(&self, out: &mut String) {
        object(
            out,
            &[
                ("name", &self.name),
                ("id", &format!("{:?}", self.id)),
                ("pair", &self.is_pair()),
                ("relationship", &self.relationship),
                ("target", &self.target),
                ("tag", &self.is_tag),
                ("value", &self.value),
                ("inherited_from", &self.inherited_from),
                ("disabled", &self.disabled),
                ("sparse", &self.sparse),
            ],
        );
    }
}

impl ToJson for ComponentEntry {
    fn write_json(&self, out: &mut String) {
        ComponentEntry::write_json(self, out);
    }
}

impl EntityReport {
    /// The entry named `name` (as [`ComponentEntry::name`] spells it:
    /// `"Position"`, `"(Likes, bob)"`), if the entity has it.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Enemy;
    /// let mut world = World::new();
    /// let e = world.spawn(Enemy).id();
    /// let report = world.inspect(e);
    /// assert!(report.component("Enemy").unwrap().is_tag);
    /// assert!(report.component("Position").is_none());
    /// ```
    pub fn component(&self, name: &str) -> Option<&ComponentEntry> {
        self.components.iter().find(|entry| entry.name == name)
    }

    /// The report as one JSON object: `entity` (the handle as a string,
    /// `"5v0"`), `name`, `path` (strings or `null`), `archetype` (a number)
    /// and `components`, an array of objects with `name`, `id`, `pair`,
    /// `relationship`, `target`, `tag`, `value`, `inherited_from`,
    /// `disabled` and `sparse`. Strings are escaped as JSON requires.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let mut world = World::new();
    /// let e = world.spawn(Name::new("say \"hi\"")).id();
    /// let json = world.inspect(e).to_json();
    /// assert!(json.contains(r#""name":"say \"hi\"""#));
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        object(
            &mut out,
            &[
                ("entity", &self.entity),
                ("name", &self.name),
                ("path", &self.path),
                ("archetype", &self.archetype),
                ("components", &self.components),
            ],
        );
        out
    }
}

/// Prints the entity, then one line per entry: `name: value`, `<no Debug>`
/// for a value whose type has no `Debug`, `(tag)` for tags, and notes in
/// brackets for inherited, disabled and sparse values.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn((Name::new("hero"), Health(3))).id();
/// let text = world.inspect(e).to_string();
/// assert!(text.starts_with(&format!("entity {e:?} \"hero\"")));
/// assert!(text.lines().any(|line| line.trim() == "Health: Health(3)"));
/// ```
impl fmt::Display for EntityReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entity {:?}", self.entity)?;
        if let Some(name) = &self.name {
            write!(f, " {name:?}")?;
        }
        if let Some(path) = self.path.as_ref().filter(|path| Some(*path) != self.name.as_ref()) {
            write!(f, " (path {path})")?;
        }
        writeln!(f, ", archetype {}", self.archetype.index())?;
        for entry in &self.components {
            write!(f, "  {}", entry.name)?;
            match (&entry.value, entry.is_tag) {
                (_, true) => write!(f, " (tag)")?,
                (Some(value), false) => write!(f, ": {value}")?,
                (None, false) => write!(f, ": <no Debug>")?,
            }
            if let Some(base) = entry.inherited_from {
                write!(f, " [inherited from {base:?}]")?;
            }
            if entry.disabled {
                write!(f, " [disabled]")?;
            }
            if entry.sparse {
                write!(f, " [sparse]")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Counts and sizes of a world, from
/// [`World::stats`](crate::world::World::stats). Cheap to compute (one walk
/// over the archetypes and sparse sets), so it suits a per-frame overlay.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let before = world.stats();
/// let e = world.spawn(Health(1)).id();
/// let after = world.stats();
/// assert_eq!(after.entities, before.entities + 1);
/// assert_eq!(after.archetypes, before.archetypes + 1);
/// assert!(after.bytes > before.bytes);
/// world.despawn(e);
/// assert_eq!(world.stats().empty_archetypes, before.empty_archetypes + 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WorldStats {
    /// Alive user entities ([`World::entity_count`](crate::world::World::entity_count)).
    pub entities: usize,
    /// Alive internal entities: component entities, wildcards, observers.
    pub internal_entities: usize,
    /// Live archetypes (deleted ones not counted), including the empty
    /// archetype and the internal ones that hold component entities.
    pub archetypes: usize,
    /// Live archetypes without entities (the empty archetype included when it
    /// holds none); garbage collection may delete them.
    pub empty_archetypes: usize,
    /// Tables with allocated row storage (capacity above 0). Every archetype
    /// owns one table; an emptied table keeps its allocation, so it still
    /// counts here until its archetype is deleted.
    pub tables: usize,
    /// Bytes of component storage allocated, approximately: each live table's
    /// block (values, change ticks and enabled bits at its capacity, exact)
    /// plus its entity list at capacity, plus each sparse set's values and
    /// ticks by the number of values held (sparse pages are not counted).
    /// Resources and heap memory owned by values are not counted.
    pub bytes: usize,
    /// Registered components.
    pub components: usize,
    /// Sparse sets (one per sparse component used so far).
    pub sparse_sets: usize,
    /// Resources.
    pub resources: usize,
    /// Registered observers.
    pub observers: usize,
    /// Cached archetype-graph edges (add and remove) between live archetypes.
    pub graph_edges: usize,
}

impl WorldStats {
    /// The stats as one JSON object with the field names as keys.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let world = World::new();
    /// let json = world.stats().to_json();
    /// assert!(json.starts_with(r#"{"entities":0,"#));
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

impl ToJson for WorldStats {
    fn write_json(&self, out: &mut String) {
        object(
            out,
            &[
                ("entities", &self.entities),
                ("internal_entities", &self.internal_entities),
                ("archetypes", &self.archetypes),
                ("empty_archetypes", &self.empty_archetypes),
                ("tables", &self.tables),
                ("bytes", &self.bytes),
                ("components", &self.components),
                ("sparse_sets", &self.sparse_sets),
                ("resources", &self.resources),
                ("observers", &self.observers),
                ("graph_edges", &self.graph_edges),
            ],
        );
    }
}

/// One line: every count with its name.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let world = World::new();
/// assert!(world.stats().to_string().starts_with("0 entities ("));
/// ```
impl fmt::Display for WorldStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entities ({} internal), {} archetypes ({} empty), {} tables, {} bytes, {} components, \
             {} sparse sets, {} resources, {} observers, {} graph edges",
            self.entities,
            self.internal_entities,
            self.archetypes,
            self.empty_archetypes,
            self.tables,
            self.bytes,
            self.components,
            self.sparse_sets,
            self.resources,
            self.observers,
            self.graph_edges,
        )
    }
}

/// What [`World::inspect_world`](crate::world::World::inspect_world) tells:
/// the [`WorldStats`], every live archetype, the resources, the observers and
/// what the world knows of query caches.
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
/// let report = world.inspect_world();
/// assert!(report.archetypes.iter().any(|a| a.components == ["Health"] && a.entities == 1));
/// assert_eq!(report.resources, ["Score"]);
/// assert!(report.to_string().contains("Score"));
/// assert!(report.to_json().contains(r#""resources":["Score"]"#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldReport {
    /// The counts and sizes.
    pub stats: WorldStats,
    /// Every live archetype, by id.
    pub archetypes: Vec<ArchetypeReport>,
    /// The resources' names (`Resource::NAME`, or the type path for types
    /// that keep the default), sorted.
    pub resources: Vec<String>,
    /// Every observer, in registration order.
    pub observers: Vec<ObserverReport>,
    /// What the world knows of query caches.
    pub queries: QueryCacheReport,
}

/// One archetype of a [`WorldReport`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// world.spawn(Health(1));
/// let report = world.inspect_world();
/// let health = report.archetypes.iter().find(|a| a.components == ["Health"]).unwrap();
/// assert_eq!((health.entities, health.columns, health.internal), (1, 1, false));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchetypeReport {
    /// The archetype's id.
    pub id: ArchetypeId,
    /// The names of its ids, in type order (pairs as `(relationship, target)`).
    pub components: Vec<String>,
    /// How many entities it holds.
    pub entities: usize,
    /// How many table columns it has (ids with stored values or ticks).
    pub columns: usize,
    /// How many rows its table can hold without growing.
    pub capacity: usize,
    /// Whether it holds internal entities (component entities, wildcards,
    /// observers), which queries skip unless they name an internal marker.
    pub internal: bool,
}

impl ToJson for ArchetypeReport {
    fn write_json(&self, out: &mut String) {
        object(
            out,
            &[
                ("id", &self.id),
                ("components", &self.components),
                ("entities", &self.entities),
                ("columns", &self.columns),
                ("capacity", &self.capacity),
                ("internal", &self.internal),
            ],
        );
    }
}

/// One observer of a [`WorldReport`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let observer = world.add_observer(|_: Trigger<OnAdd, Health>| {}).id();
/// let report = world.inspect_world();
/// assert_eq!(report.observers[0].entity, observer);
/// assert_eq!(report.observers[0].event, "OnAdd");
/// assert_eq!(report.observers[0].watches, ["Health"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObserverReport {
    /// The observer's entity.
    pub entity: Entity,
    /// The event: `OnAdd`, `OnInsert`, `OnReplace`, `OnRemove`, `OnDespawn`,
    /// or `event` for a user event (the registry keeps only its `TypeId`,
    /// which has no readable name).
    pub event: String,
    /// The names of the components and pairs it watches (empty: all).
    pub watches: Vec<String>,
    /// Whether it watches particular entities only (`EntityWorldMut::observe`).
    pub entity_scoped: bool,
}

impl ToJson for ObserverReport {
    fn write_json(&self, out: &mut String) {
        object(
            out,
            &[
                ("entity", &self.entity),
                ("event", &self.event),
                ("watches", &self.watches),
                ("entity_scoped", &self.entity_scoped),
            ],
        );
    }
}

/// What the world knows of query caches. Cached queries
/// ([`QueryState`](crate::query::QueryState)) are owned by their users
/// (systems, locals, your own variables), not registered with the world, so
/// the world cannot list them; it reports the counters every cache compares
/// against to decide whether to look at the archetypes again.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let before = world.inspect_world().queries.cache_epoch;
/// world.spawn(Health(1));
/// assert!(world.inspect_world().queries.cache_epoch > before);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryCacheReport {
    /// [`Archetypes::cache_epoch`](crate::archetype::Archetypes::cache_epoch):
    /// grows whenever a cache may have to revalidate.
    pub cache_epoch: u64,
    /// Archetypes deleted so far (caches drop them).
    pub deleted_archetypes: usize,
    /// Archetype slots reused so far.
    pub reused_archetype_slots: usize,
}

impl ToJson for QueryCacheReport {
    fn write_json(&self, out: &mut String) {
        object(
            out,
            &[
                ("tracked_by_world", &false),
                ("cache_epoch", &self.cache_epoch),
                ("deleted_archetypes", &self.deleted_archetypes),
                ("reused_archetype_slots", &self.reused_archetype_slots),
            ],
        );
    }
}

impl WorldReport {
    /// The report as one JSON object: `stats` (as [`WorldStats::to_json`]),
    /// `archetypes` (objects with `id`, `components`, `entities`, `columns`,
    /// `capacity`, `internal`), `resources` (names), `observers` (objects
    /// with `entity`, `event`, `watches`, `entity_scoped`) and `queries`
    /// (`tracked_by_world: false` and the counters of [`QueryCacheReport`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// let world = World::new();
    /// let json = world.inspect_world().to_json();
    /// assert!(json.starts_with(r#"{"stats":{"#) && json.ends_with('}'));
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        object(
            &mut out,
            &[
                ("stats", &self.stats),
                ("archetypes", &self.archetypes),
                ("resources", &self.resources),
                ("observers", &self.observers),
                ("queries", &self.queries),
            ],
        );
        out
    }
}

/// Prints the stats line, then one section each for archetypes (id, ids,
/// entity count), resources, observers and query caches.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// world.spawn(Health(1));
/// let text = world.inspect_world().to_string();
/// assert!(text.contains("[Health] 1 entity"));
/// ```
impl fmt::Display for WorldReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "world: {}", self.stats)?;
        writeln!(f, "archetypes:")?;
        for archetype in &self.archetypes {
            let plural = if archetype.entities == 1 { "entity" } else { "entities" };
            write!(
                f,
                "  #{} [{}] {} {plural}",
                archetype.id.index(),
                archetype.components.join(", "),
                archetype.entities
            )?;
            if archetype.internal {
                write!(f, " (internal)")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "resources:")?;
        for resource in &self.resources {
            writeln!(f, "  {resource}")?;
        }
        writeln!(f, "observers:")?;
        for observer in &self.observers {
            write!(f, "  {:?} {}", observer.entity, observer.event)?;
            if observer.watches.is_empty() {
                write!(f, " (any component)")?;
            } else {
                write!(f, " [{}]", observer.watches.join(", "))?;
            }
            if observer.entity_scoped {
                write!(f, " (entity-scoped)")?;
            }
            writeln!(f)?;
        }
        writeln!(
            f,
            "queries: owned by their users, not listed by the world; cache epoch {}, {} archetypes deleted, \
             {} slots reused",
            self.queries.cache_epoch, self.queries.deleted_archetypes, self.queries.reused_archetype_slots
        )
    }
}
