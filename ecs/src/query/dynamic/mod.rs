//! Runtime queries: terms chosen at run time (by id, from the query DSL), with
//! wildcards, variables, traversal, fixed sources and transitive
//! relationships ([`DynQuery`], built with [`QueryBuilder`]).
//!
//! A query is compiled once (validated: aliasing writes, writes off `$this`,
//! unbound variables are [`QueryBuildError`]s) into a plan of steps
//! (`compile`): the *table prefix*, terms on the row's own table, and the
//! *dynamic suffix*, terms that read other entities. A cached query
//! ([`QueryBuilder::build`]) stores the prefix's result per archetype and
//! matches archetypes created later incrementally; an uncached one
//! ([`QueryBuilder::build_uncached`]) walks the component index at every
//! iteration. Both run the suffix at every iteration.
//!
//! Each iteration first lists its *solutions*: a table (or, for a query with
//! no `$this` term, nothing) with one hit or none per term and the variables'
//! values; rows are then the table's entities for every solution (sparse
//! components on `$this` are checked per row). Empty tables are never
//! visited, and neither are hidden ones (internal entities, `Disabled`,
//! `Prefab`) unless a term names their marker (`?Prefab` too, as in Flecs;
//! internal markers only in an `And` term). Row access is typed at run time:
//! `row.get::<T>(term)` checks the id the term matched against `T` and is
//! `None` on a mismatch. A query whose terms name an entity that is no
//! longer alive (a component, relationship, target or fixed source) matches
//! nothing: ids name entities by index, which a new entity may have reused.
//!
//! Borrows: a term reads its component on its source (`$this`, a fixed
//! entity, a variable's entity, the ancestor `up` found); writes are only on
//! `$this`. [`DynQuery::update_access`] reports reads of other entities as
//! such, so the scheduler orders a runtime query against every writer of those
//! components whatever the filters.

mod builder;
mod compile;
mod eval;
mod row;
mod table;

use core::fmt;

use smallvec::SmallVec;

pub use builder::QueryBuilder;
use compile::{Compiled, DataAccess, RowMode, Source, Step};
use eval::{Evaluator, Frame};
use row::Solutions;
pub use row::{DynGetError, DynIter, DynIterMut, DynRow, DynRowMut};
pub use table::{DynTable, DynTableMut, DynTables, DynTablesMut};

use super::access::QueryAccess;
use super::term::{Term, TermOper, TermRef, Traversal};
use crate::archetype::{Archetype, ArchetypeFlags, ArchetypeId};
use crate::entity::{Entity, Id};
use crate::query::dsl::DslNames;
use crate::storage::LastRun;
use crate::world::{World, WorldId};

/// Why a runtime query could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryBuildError {
    /// The query has no term.
    Empty,
    /// Term `writer` writes an id that term `other` may also match, so a row
    /// would hold `&mut T` and `&T` to one value.
    Aliasing {
        /// The writing term.
        writer: usize,
        /// The other term.
        other: usize,
        /// The written id (a pattern if the term has wildcards).
        id: Id,
        /// The component's name, when the query was built against a world.
        name: Option<String>,
    },
    /// A write term looks at another entity than the row's own (a fixed or
    /// variable source, `up`): runtime queries write only `$this`.
    WriteNotOnThis {
        /// The term.
        term: usize,
    },
    /// A variable is named only by `!` terms or as the source of `?` terms,
    /// so nothing binds it (a required term binds its variables, an optional
    /// one those of its id where it matches).
    UnboundVariable {
        /// A term naming it.
        term: usize,
        /// Its name, without `$`.
        variable: String,
    },
    /// Term `term` writes a component that instances read from prefabs
    /// through `IsA`, and the query may match prefabs (a term names
    /// `Prefab`): its `&mut` of a prefab's value could alias an instance's
    /// shared read. Edit prefabs with `World::get_mut`.
    WritesInheritedOnPrefabs {
        /// The term.
        term: usize,
        /// The component's name.
        name: String,
    },
    /// A term is malformed.
    InvalidTerm {
        /// The term.
        term: usize,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for QueryBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryBuildError::WritesInheritedOnPrefabs { term, name } => write!(
                f,
                "term {term} writes {name} and the query may match prefabs, whose {name} instances read \
                 through IsA; edit prefabs with World::get_mut"
            ),
            QueryBuildError::Empty => f.write_str("a query needs at least one term"),
            QueryBuildError::Aliasing { writer, other, id, name } => {
                match name {
                    Some(name) => write!(f, "term {writer} writes {name}")?,
                    None => write!(f, "term {writer} writes {id:?}")?,
                }
                write!(f, ", which term {other} may also match: a row would alias the value")
            }
            QueryBuildError::WriteNotOnThis { term } => write!(
                f,
                "term {term} writes data of another entity (a fixed source, a variable or an ancestor); \
                 runtime queries write only the row's own components"
            ),
            QueryBuildError::UnboundVariable { term, variable } => write!(
                f,
                "variable ${variable} (term {term}) is not bound: name it in a required term or in the id of an \
                 optional one (not only under `!` or as an optional term's source)"
            ),
            QueryBuildError::InvalidTerm { term, reason } => write!(f, "term {term}: {reason}"),
        }
    }
}

impl std::error::Error for QueryBuildError {}

/// One cached archetype: the table prefix's frames.
struct CacheEntry {
    archetype: ArchetypeId,
    frames: SmallVec<[Frame; 1]>,
}

/// A query built at run time: terms chosen by id ([`World::query_builder`]) or
/// written in the query DSL ([`World::query_dsl`]), with wildcards, variables,
/// traversal, fixed sources and transitive relationships. Cached
/// ([`QueryBuilder::build`]: matched archetypes stored, new ones matched
/// incrementally) or not ([`QueryBuilder::build_uncached`]: the component
/// index is walked at every iteration). Rows give typed access checked at run
/// time ([`DynRow::get`]); tables give typed slices ([`DynTable::field`]).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// let mut world = World::new();
/// let e = world.spawn((Position(1.0), Velocity(2.0))).id();
/// world.spawn(Position(5.0));
/// let position = world.register_component::<Position>();
/// let velocity = world.register_component::<Velocity>();
/// let mut q = world.query_builder().write(position).read(velocity).build().unwrap();
/// q.iter_mut(&mut world).for_each(|mut row| {
///     let v = row.get::<Velocity>(1).unwrap().0;
///     row.get_mut::<Position>(0).unwrap().0 += v;
/// });
/// assert_eq!(world.get::<Position>(e), Some(&Position(3.0)));
/// assert_eq!(q.iter(&world).count(), 1);
/// ```
pub struct DynQuery {
    terms: Vec<Term>,
    compiled: Compiled,
    cached: bool,
    world_id: Option<WorldId>,
    /// The hiding flags the query lifts (see `DynQuery::lifted_flags`).
    allowed: ArchetypeFlags,
    /// Matched archetypes with their prefix frames: those whose table has
    /// rows first (`..cache_split`), then the empty ones; `cache_positions`
    /// says where each archetype is, `emptiness_seen` how far the world's
    /// emptiness log was read (`Archetypes::emptiness_changes`).
    cache: Vec<CacheEntry>,
    cache_split: usize,
    cache_positions: crate::util::FxHashMap<ArchetypeId, usize>,
    emptiness_seen: u64,
    archetype_generation: usize,
    deleted_seen: usize,
    reused_seen: usize,
    /// `Archetypes::inheritance_epoch` when the cache was built: prefix
    /// frames hold values inherited from prefabs, stale once it changes.
    inheritance_seen: usize,
    solutions: Solutions,
    last_run: LastRun,
    /// Names of the entities the terms mention, for [`DynQuery::to_dsl`].
    names: Vec<(Entity, String)>,
    /// The world's name epoch ([`World::name_epoch`]) and its value when
    /// `names` were read: stale names are never printed.
    names_epoch: Option<(std::sync::Arc<core::sync::atomic::AtomicU64>, u64)>,
}

impl fmt::Debug for DynQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynQuery").field("terms", &self.terms).field("cached", &self.cached).finish()
    }
}

impl DynQuery {
    /// Validates `terms` and builds a query (cached or not). Prefer
    /// [`World::query_builder`] or [`World::query_dsl`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::query::{DynQuery, Term, TermMatch};
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// let position = world.register_component::<Position>();
    /// let mut q = DynQuery::new(vec![Term::new(TermMatch::component(position))], true).unwrap();
    /// assert_eq!(q.iter(&world).count(), 1);
    /// ```
    pub fn new(terms: Vec<Term>, cached: bool) -> Result<DynQuery, QueryBuildError> {
        let compiled = compile::compile(&terms, &|_| false)?;
        Ok(DynQuery {
            terms,
            compiled,
            cached,
            world_id: None,
            allowed: ArchetypeFlags::NONE,
            cache: Vec::new(),
            cache_split: 0,
            cache_positions: crate::util::FxHashMap::default(),
            emptiness_seen: 0,
            archetype_generation: 0,
            deleted_seen: 0,
            reused_seen: 0,
            inheritance_seen: 0,
            solutions: Solutions::default(),
            last_run: LastRun::NEVER,
            names: Vec::new(),
            names_epoch: None,
        })
    }

    /// [`DynQuery::new`], with the names of `world` in errors and in
    /// [`DynQuery::to_dsl`], and bound to `world` at once.
    pub(crate) fn new_in(terms: Vec<Term>, cached: bool, world: &World) -> Result<DynQuery, QueryBuildError> {
        let mut query = DynQuery::new(terms, cached).map_err(|error| name_error(error, world))?;
        if let Some(error) = query.traversal_error(world) {
            return Err(error);
        }
        if let Some(error) = query.prefab_write_error(world) {
            return Err(error);
        }
        query.bind(world);
        Ok(query)
    }

    /// [`QueryBuildError::InvalidTerm`] for a term that traverses (`up`,
    /// `self|up`) a relationship `world` does not know as traversable, as
    /// the DSL refuses it.
    fn traversal_error(&self, world: &World) -> Option<QueryBuildError> {
        self.terms.iter().enumerate().find_map(|(term, written)| {
            let (Traversal::Up(relationship) | Traversal::SelfUp(relationship)) = written.traversal else {
                return None;
            };
            (!world.is_traversable(relationship)).then(|| QueryBuildError::InvalidTerm {
                term,
                reason: format!(
                    "{} is not traversable (up needs a traversable relationship)",
                    world.id_name(relationship.id())
                ),
            })
        })
    }

    /// [`QueryBuildError::WritesInheritedOnPrefabs`] if the query names
    /// `Prefab` in a term (so matches prefabs) and writes a component read
    /// through `IsA`.
    fn prefab_write_error(&self, world: &World) -> Option<QueryBuildError> {
        if !self.lifted_flags(world).contains(ArchetypeFlags::PREFAB) {
            return None;
        }
        self.compiled.terms.iter().enumerate().find_map(|(term, compiled)| {
            let component = compiled.alternatives[0].concrete_first()?;
            let info = world.component_info(component)?;
            (compiled.access == compile::DataAccess::Write && (info.is_inherited() || info.is_inherited_sparse()))
                .then(|| QueryBuildError::WritesInheritedOnPrefabs { term, name: info.name().to_owned() })
        })
    }

    /// Tells `world` which components the query may write in place (see
    /// `World::note_write`: a `Name` written so is not in the name index).
    fn note_writes(&self, world: &World) {
        for compiled in &self.compiled.terms {
            if compiled.access == compile::DataAccess::Write
                && let Some(component) = compiled.alternatives[0].concrete_first()
            {
                world.note_write_of(component);
            }
        }
    }

    /// The hiding flags the query lifts (`Archetypes::lifted_flags`): as in
    /// Flecs, any term on `Disabled` or `Prefab` (`?Prefab` included) that
    /// searches its source itself (not `up` only) makes the query match the
    /// entities they hide; internal entities need an `And` term on their
    /// marker.
    fn lifted_flags(&self, world: &World) -> ArchetypeFlags {
        // `Disabled` is lifted only by a term that searches its source itself
        // (Flecs): `!Disabled(up)` skips the children of disabled parents and
        // still hides disabled entities. Any term on `Prefab` lifts it
        // (`Prefab(up)` finds the children of prefabs, prefabs themselves).
        let disabled = world.component_id::<crate::component::Disabled>().map(Entity::id);
        let named = move |and_only: bool| {
            self.compiled.terms.iter().filter(move |term| !and_only || term.oper == TermOper::And).flat_map(
                move |term| {
                    term.alternatives
                        .iter()
                        .filter_map(|pattern| pattern.concrete_first().map(Entity::id))
                        .filter(move |&id| term.include_self || Some(id) != disabled)
                },
            )
        };
        world.archetypes().lifted_flags(named(true), named(false))
    }

    /// The terms, in order (a term's index is its position).
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Whether the query caches its matched archetypes.
    pub fn is_cached(&self) -> bool {
        self.cached
    }

    /// The variables' names (without `$`), in the order they first appear;
    /// `$this` is not one of them (rows read it as their entity, and
    /// `DynRow::var("this")` where `$this` is in an id).
    pub fn variables(&self) -> &[String] {
        // `$this` is the row's entity (`DynRow::entity`), never listed, even
        // where it is in an id.
        &self.compiled.user_variables
    }

    /// Whether rows are entities (some term is on `$this`, or `$this` is in
    /// an id: `Likes(alice, $this)` yields whom alice likes) rather than one
    /// row per solution of the variables.
    pub fn has_this(&self) -> bool {
        self.compiled.plan.has_this || self.compiled.this_in_id
    }

    /// Binds the query to `world` on first use: the relationships' traits
    /// (transitive) are read from it, and the names of what the terms mention.
    ///
    /// # Panics
    /// Panics if the query was used with another world before, or (for a
    /// query made with [`DynQuery::new`]) with
    /// [`QueryBuildError::WritesInheritedOnPrefabs`]'s message.
    #[track_caller]
    fn bind(&mut self, world: &World) {
        match self.world_id {
            Some(id) => {
                assert!(id == world.id(), "DynQuery used with a world other than the one it was first used with");
                if self.names_stale() {
                    self.read_names(world);
                }
            }
            None => {
                if let Some(error) = self.prefab_write_error(world) {
                    panic!("{error}");
                }
                let is_transitive =
                    |relationship: Entity| world.components().relationship_traits(relationship.index()).transitive;
                // Validated without a world in `new`; the plan only moves
                // transitive terms out of the table prefix.
                if let Ok(compiled) = compile::compile(&self.terms, &is_transitive) {
                    self.compiled = compiled;
                }
                self.allowed = self.lifted_flags(world);
                self.read_names(world);
                self.world_id = Some(world.id());
            }
        }
    }

    /// Remembers the names (paths) of the entities the terms mention, and
    /// the world's name epoch they are valid for.
    fn read_names(&mut self, world: &World) {
        let epoch = world.name_epoch();
        let seen = epoch.load(core::sync::atomic::Ordering::Relaxed);
        self.names =
            mentioned_entities(&self.terms).filter_map(|entity| Some((entity, world.name_of(entity)?))).collect();
        self.names_epoch = Some((epoch, seen));
    }

    /// Whether a name or a named entity's parent changed since the names
    /// were read.
    fn names_stale(&self) -> bool {
        self.names_epoch
            .as_ref()
            .is_some_and(|(epoch, seen)| epoch.load(core::sync::atomic::Ordering::Relaxed) != *seen)
    }

    /// Matches archetypes created since the last call (cached queries).
    fn update_cache(&mut self, world: &World) {
        let archetypes = world.archetypes();
        let mut reshaped = false;
        if self.reused_seen != archetypes.reused_count() || self.inheritance_seen != archetypes.inheritance_epoch() {
            self.reused_seen = archetypes.reused_count();
            self.inheritance_seen = archetypes.inheritance_epoch();
            self.cache.clear();
            self.archetype_generation = 0;
            reshaped = true;
        }
        if self.deleted_seen != archetypes.deleted_count() {
            self.deleted_seen = archetypes.deleted_count();
            self.cache.retain(|entry| !archetypes.is_dead(entry.archetype));
            reshaped = true;
        }
        let generation = archetypes.len();
        if self.archetype_generation != generation && self.compiled.plan.has_this {
            self.match_new_archetypes(world);
            reshaped = true;
        }
        self.archetype_generation = generation;
        self.sort_by_emptiness(world, reshaped);
    }

    /// Keeps the cache's archetypes with rows before the empty ones: a full
    /// pass after the cache changed shape (or when the world's log no longer
    /// reaches back far enough), else one swap per emptiness change since the
    /// last look.
    fn sort_by_emptiness(&mut self, world: &World, reshaped: bool) {
        let archetypes = world.archetypes();
        let end = archetypes.emptiness_log_end();
        let changes = if reshaped { None } else { archetypes.emptiness_changes(self.emptiness_seen) };
        self.emptiness_seen = end;
        let Some(changes) = changes else {
            self.cache.sort_by_key(|entry| (archetypes[entry.archetype].is_empty(), entry.archetype));
            self.cache_split = self.cache.partition_point(|entry| !archetypes[entry.archetype].is_empty());
            self.cache_positions =
                self.cache.iter().enumerate().map(|(position, entry)| (entry.archetype, position)).collect();
            return;
        };
        for archetype in changes {
            let Some(&position) = self.cache_positions.get(&archetype) else { continue };
            let has_rows = !archetypes[archetype].is_empty();
            let target = match (has_rows, position < self.cache_split) {
                (true, false) => {
                    self.cache_split += 1;
                    self.cache_split - 1
                }
                (false, true) => {
                    self.cache_split -= 1;
                    self.cache_split
                }
                _ => continue,
            };
            self.cache.swap(position, target);
            self.cache_positions.insert(self.cache[position].archetype, position);
            self.cache_positions.insert(self.cache[target].archetype, target);
        }
    }

    /// Matches the archetypes created since the last look.
    fn match_new_archetypes(&mut self, world: &World) {
        let archetypes = world.archetypes();
        let evaluator = Evaluator { world, compiled: &self.compiled, allowed: self.allowed };
        for archetype in candidate_archetypes(world, &self.compiled, self.archetype_generation, false) {
            let archetype = &archetypes[archetype];
            if !evaluator.archetype_allowed(archetype) {
                continue;
            }
            let mut frames = SmallVec::new();
            let mut frame = Frame::new(&self.compiled);
            evaluator
                .run(&self.compiled.plan.prefix, Some(archetype), &mut frame, &mut |found| frames.push(found.clone()));
            // A table holding a union pair is kept whatever its frames: they
            // depend on its rows' targets, which change without a move, so
            // iterations find them afresh.
            if !frames.is_empty() || archetype.flags().contains(ArchetypeFlags::HAS_UNION) {
                self.cache.push(CacheEntry { archetype: archetype.id(), frames });
            }
        }
    }

    /// Whether a term names (as component, relationship, target or fixed
    /// source) an entity that is no longer alive.
    fn names_a_dead_entity(&self, world: &World) -> bool {
        self.terms.iter().any(|term| {
            let matched = term
                .alternatives
                .iter()
                .flat_map(|alternative| [Some(&alternative.first), alternative.second.as_ref()]);
            matched
                .flatten()
                .chain([&term.source])
                .any(|reference| reference.entity().is_some_and(|entity| !world.is_alive(entity)))
        })
    }

    /// Lists this iteration's solutions, ready for rows.
    fn collect_solutions(&mut self, world: &World) {
        self.list_solutions(world);
        self.solutions.seal(world, self.compiled.visible_variables());
    }

    fn list_solutions(&mut self, world: &World) {
        self.bind(world);
        if self.cached {
            self.update_cache(world);
        }
        self.solutions.clear(self.compiled.terms.len());
        if self.names_a_dead_entity(world) {
            // Its ids name the entity by index only, which a new entity may
            // have by now: nothing matches (Flecs deletes such queries).
            return;
        }
        let compiled = &self.compiled;
        let evaluator = Evaluator { world, compiled, allowed: self.allowed };
        let solutions = &mut self.solutions;
        // Runs `steps` from `frame` on `archetype`, pushing the solutions.
        let mut from_frame = |steps: &[Step], archetype: Option<&Archetype>, frame: &mut Frame| {
            let (Some(this), Some(table)) = (compiled.this_var, archetype) else {
                return evaluator.run(steps, archetype, frame, &mut |found| {
                    // `$this` bound by the ids: its row is yielded as a table's
                    // would be, so a hidden one (`Disabled`, `Prefab`) is not.
                    let hidden = archetype.is_none()
                        && compiled.this_in_id
                        && compiled.this_var.and_then(|this| found.vars[this]).is_some_and(|entity| {
                            world.entities().location(entity).is_some_and(|location| {
                                !evaluator.archetype_allowed(&world.archetypes()[location.archetype])
                            })
                        });
                    if !hidden {
                        solutions.push(world, compiled, archetype, found, None);
                    }
                });
            };
            let mode = compiled.row_mode(world, table);
            if mode == RowMode::Table {
                return evaluator.run(steps, archetype, frame, &mut |found| {
                    solutions.push(world, compiled, archetype, found, None);
                });
            }
            // `$this` in an id, or an `up` through a union pair here: the steps
            // (the suffix) run once per row with the row's entity bound (each
            // solution then holds that row alone), or once per union target
            // of the climbed relationship (each solution holds its rows).
            let mut parents_done: crate::util::FxHashSet<Entity> = crate::util::FxHashSet::default();
            for row in frame_rows(world, compiled, frame, table) {
                let entity = table.entities()[row];
                // A frame whose table-level union target is another row's
                // cannot hold this row: not worth its suffix.
                if !union_checks_pass(world, compiled, frame, entity, row) {
                    continue;
                }
                let group = match mode {
                    RowMode::EachParent(relationship) => {
                        let Some(parent) = world.union_target(entity, relationship) else { continue };
                        if !parents_done.insert(parent) {
                            continue;
                        }
                        Some((relationship, parent))
                    }
                    _ => None,
                };
                frame.vars[this] = Some(entity);
                evaluator.run(steps, archetype, frame, &mut |found| {
                    solutions.push(world, compiled, archetype, found, group);
                });
            }
            frame.vars[this] = None;
        };
        let suffix = &compiled.plan.suffix;
        if !compiled.plan.has_this {
            from_frame(suffix, None, &mut Frame::new(compiled));
            return;
        }
        let archetypes = world.archetypes();
        // The frames the table-level prefix finds on `archetype`.
        let prefix_frames = |archetype: &Archetype| {
            let mut frames: SmallVec<[Frame; 1]> = SmallVec::new();
            evaluator.run(&compiled.plan.prefix, Some(archetype), &mut Frame::new(compiled), &mut |found| {
                frames.push(found.clone());
            });
            frames
        };
        if self.cached {
            // Only the archetypes with rows: empty ones are kept apart.
            for entry in &self.cache[..self.cache_split] {
                let archetype = &archetypes[entry.archetype];
                debug_assert!(!archetype.is_empty(), "{:?} is empty but before the cache's split", entry.archetype);
                if archetype.flags().contains(ArchetypeFlags::HAS_UNION) {
                    // Union targets change without a move (and rows come
                    // and go): frames binding them are found afresh.
                    for mut frame in prefix_frames(archetype) {
                        from_frame(suffix, Some(archetype), &mut frame);
                    }
                    continue;
                }
                for frame in &entry.frames {
                    from_frame(suffix, Some(archetype), &mut frame.clone());
                }
            }
        } else {
            let steps: Vec<Step> = compiled.plan.prefix.iter().chain(&compiled.plan.suffix).copied().collect();
            for archetype in candidate_archetypes(world, compiled, 0, true) {
                let archetype = &archetypes[archetype];
                if archetype.is_empty() || !evaluator.archetype_allowed(archetype) {
                    continue;
                }
                if compiled.this_var.is_some() && compiled.row_mode(world, archetype) != RowMode::Table {
                    // The table-level prefix once, the rest per row.
                    for mut frame in prefix_frames(archetype) {
                        from_frame(suffix, Some(archetype), &mut frame);
                    }
                    continue;
                }
                from_frame(&steps, Some(archetype), &mut Frame::new(compiled));
            }
        }
    }

    /// Iterates read-only over the rows.
    ///
    /// # Panics
    /// Panics if the query was used with another world before.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.entity_mut(alice).add_pair::<Likes>(bob);
    /// let likes = world.register_component::<Likes>();
    /// let mut q = world.query_builder().pair(likes, Entity::WILDCARD).build().unwrap();
    /// let row = q.iter(&world).next().unwrap();
    /// assert_eq!((row.entity(), row.pair_target(0)), (alice, bob));
    /// ```
    #[track_caller]
    pub fn iter<'q>(&'q mut self, world: &'q World) -> DynIter<'q> {
        self.collect_solutions(world);
        DynIter::new(world, &self.solutions)
    }

    /// Iterates over the rows with write access to the write terms
    /// (`row.get_mut`). The iterator lends one row at a time
    /// ([`DynIterMut::fetch_next`], [`DynIterMut::for_each`]).
    ///
    /// # Panics
    /// Panics if the query was used with another world before.
    #[track_caller]
    pub fn iter_mut<'q>(&'q mut self, world: &'q mut World) -> DynIterMut<'q> {
        let world: &World = world;
        self.collect_solutions(world);
        let now = world.increment_change_tick_wide();
        let last_run = core::mem::replace(&mut self.last_run, LastRun::at(now)).baseline(now);
        self.note_writes(world);
        DynIterMut::new(world, &self.solutions, last_run, now.tick())
    }

    /// Iterates read-only over the matched tables (one [`DynTable`] per
    /// solution and table): typed column slices, checked once per table.
    ///
    /// # Panics
    /// Panics if the query was used with another world before.
    #[track_caller]
    pub fn iter_tables<'q>(&'q mut self, world: &'q World) -> DynTables<'q> {
        self.collect_solutions(world);
        DynTables::new(world, &self.solutions, self.compiled.visible_variables())
    }

    /// Iterates over the matched tables with `field_mut` for write terms
    /// (lends one table at a time).
    ///
    /// # Panics
    /// Panics if the query was used with another world before.
    #[track_caller]
    pub fn iter_tables_mut<'q>(&'q mut self, world: &'q mut World) -> DynTablesMut<'q> {
        let world: &World = world;
        self.collect_solutions(world);
        let now = world.increment_change_tick_wide();
        self.last_run = LastRun::at(now);
        self.note_writes(world);
        DynTablesMut::new(world, &self.solutions, self.compiled.visible_variables(), now.tick())
    }

    /// [`DynQuery::iter_mut`] through a shared borrow of the world, with the
    /// caller's change-detection ticks (a system parameter's).
    ///
    /// # Safety
    /// The caller has the query's declared access ([`DynQuery::update_access`])
    /// to `world` for `'q`: nothing else reads what it writes or writes what
    /// it reads.
    pub(crate) unsafe fn iter_mut_shared<'q>(
        &'q mut self,
        world: &'q World,
        last_run: crate::storage::Tick,
        this_run: crate::storage::Tick,
    ) -> DynIterMut<'q> {
        self.collect_solutions(world);
        self.note_writes(world);
        DynIterMut::new(world, &self.solutions, last_run, this_run)
    }

    /// Binds the query to `world` and matches its archetypes now (a system
    /// parameter's initialization).
    pub(crate) fn prepare(&mut self, world: &World) {
        self.bind(world);
        if self.cached {
            self.update_cache(world);
        }
    }

    /// How many rows the query yields now.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// let position = world.register_component::<Position>();
    /// assert_eq!(world.query_builder().read(position).build_uncached().unwrap().count(&world), 1);
    /// ```
    pub fn count(&mut self, world: &World) -> usize {
        self.iter(world).count()
    }

    /// Records the query's borrows in `access` (for the scheduler): reads and
    /// writes of `$this`'s components, reads of other entities' components
    /// (fixed and variable sources, `up`) as reads of other entities, and the
    /// required/excluded components of `$this` as the filter.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::query::QueryAccess;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let position = world.register_component::<Position>();
    /// let q = world.query_builder().write(position).build().unwrap();
    /// let mut access = QueryAccess::default();
    /// q.update_access(&mut access);
    /// assert_eq!(access.writes(), &[position]);
    /// ```
    pub fn update_access(&self, access: &mut QueryAccess) {
        for term in &self.compiled.terms {
            let on_this = term.source == Source::This && term.up.is_none();
            let concrete: SmallVec<[Entity; 1]> =
                term.alternatives.iter().filter_map(|pattern| pattern.concrete_first()).collect();
            // A wildcard or variable component reads whichever id it matches.
            if term.access == DataAccess::Read && concrete.len() < term.alternatives.len() {
                access.add_read_all();
            }
            for &component in &concrete {
                match term.access {
                    DataAccess::None => {}
                    DataAccess::Read if on_this => access.add_read(component),
                    DataAccess::Read => access.add_read_other(component),
                    DataAccess::Write => access.add_write(component),
                }
            }
            let plain = term.alternatives.len() == 1 && term.alternatives[0].second.is_none();
            if on_this
                && plain
                && !term.transitive
                && let Some(&component) = concrete.first()
            {
                match term.oper {
                    TermOper::And => access.add_with(component),
                    TermOper::Not => access.add_without(component),
                    TermOper::Optional => {}
                }
            }
        }
    }

    /// The query in the query DSL (see [`World::query_dsl`]); entities print
    /// by the names they had when the query was built or last used, else as
    /// `#bits`, and every entity prints as `#bits` if a name or a named
    /// entity's parent changed since (the names may resolve to other
    /// entities now). It parses back to the same terms while the entities
    /// it names are alive.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let position = world.register_component::<Position>();
    /// let q = world.query_builder().read(position).without(position).build_in(&world).unwrap();
    /// assert_eq!(q.to_dsl(), "[in] Position, !Position");
    /// // Built without a world and never used: no names are known yet.
    /// let q = world.query_builder().read(position).build().unwrap();
    /// assert_eq!(q.to_dsl(), format!("[in] #{}", position.to_bits()));
    /// ```
    pub fn to_dsl(&self) -> String {
        let names: &[(Entity, String)] = if self.names_stale() { &[] } else { &self.names };
        crate::query::dsl::print_query(&self.terms, &KnownNames(names))
    }
}

/// Names remembered by a query, for printing.
struct KnownNames<'a>(&'a [(Entity, String)]);

impl crate::query::dsl::DslNames for KnownNames<'_> {
    fn lookup_name(&self, name: &str) -> Option<Entity> {
        self.0.iter().find(|(_, known)| known == name).map(|(entity, _)| *entity)
    }
    fn name_of(&self, entity: Entity) -> Option<String> {
        self.0.iter().find(|(known, _)| *known == entity).map(|(_, name)| name.clone())
    }
    fn is_traversable(&self, _relationship: Entity) -> bool {
        true
    }
}

/// The entities `terms` mention (components, relationships, targets, sources).
/// The rows of `table` a frame can hold, in order: the holders of its
/// required union target on `$this` when it has one (from the world's index,
/// not a scan: a table of N targets has N such frames), else every row.
fn frame_rows(world: &World, compiled: &Compiled, frame: &Frame, table: &Archetype) -> FrameRows {
    let required = required_union_hits(compiled, frame).find_map(|hit| hit.union_row.map(|target| (hit, target)));
    match required {
        Some((hit, target)) => {
            FrameRows::Listed(row::union_holder_rows(world, hit.id.first_index(), target, table.id()).into_iter())
        }
        None => FrameRows::All(0..table.len() as u32),
    }
}

/// The rows a frame visits ([`frame_rows`]): a listed subset or all of them.
enum FrameRows {
    Listed(smallvec::IntoIter<[u32; 8]>),
    All(core::ops::Range<u32>),
}

impl Iterator for FrameRows {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            FrameRows::Listed(rows) => rows.next(),
            FrameRows::All(rows) => rows.next(),
        }
        .map(|row| row as usize)
    }
}

/// The hits of `frame` on `$this` whose union target each row must hold
/// ([`Compiled::union_target_required`]).
fn required_union_hits<'f>(compiled: &'f Compiled, frame: &'f Frame) -> impl Iterator<Item = &'f eval::Hit> + 'f {
    frame.hits.iter().enumerate().filter_map(|(index, hit)| {
        hit.as_ref()
            .filter(|hit| hit.source.is_none() && hit.checks_union_target() && compiled.union_target_required(index))
    })
}

/// Whether `entity` (at `row` of the frame's table) has the target each
/// required union-pair hit of `frame` on `$this` asks for: a row-by-row
/// evaluation skips the frames of other targets before running the rest.
fn union_checks_pass(world: &World, compiled: &Compiled, frame: &Frame, entity: Entity, row: usize) -> bool {
    required_union_hits(compiled, frame).all(|hit| row::union_check_holds(world, hit, entity, row))
}

fn mentioned_entities(terms: &[Term]) -> impl Iterator<Item = Entity> + '_ {
    terms.iter().flat_map(|term| {
        let halves = term.alternatives.iter().flat_map(|alternative| {
            core::iter::once(&alternative.first).chain(alternative.second.as_ref()).filter_map(TermRef::entity)
        });
        let traversal = match term.traversal {
            super::term::Traversal::SelfOnly | super::term::Traversal::Owned => None,
            super::term::Traversal::Up(relationship) | super::term::Traversal::SelfUp(relationship) => {
                Some(relationship)
            }
        };
        halves.chain(term.source.entity()).chain(traversal)
    })
}

/// `error` with the component's name.
fn name_error(error: QueryBuildError, world: &World) -> QueryBuildError {
    match error {
        QueryBuildError::Aliasing { writer, other, id, name: None } => {
            let name = Some(world.id_name(id));
            QueryBuildError::Aliasing { writer, other, id, name }
        }
        error => error,
    }
}

/// The archetypes `$this` may be in ([`Archetypes::candidates`](crate::archetype::Archetypes::candidates),
/// the matcher's first step shared with typed queries): through the
/// component-index records of the required table-level terms (sparse
/// components and `(*, *)` have none), from archetype `since` on. A union
/// relationship's `(R, t)` requires `(R, *union*)` (the target is per row);
/// `(*, t)` requires nothing while union pairs exist (a row's union target
/// may be `t`).
fn candidate_archetypes(world: &World, compiled: &Compiled, since: usize, non_empty: bool) -> Vec<ArchetypeId> {
    let no_vars: SmallVec<[Option<Entity>; 4]> = smallvec::smallvec![None; compiled.var_names.len()];
    let wildcard = Entity::WILDCARD.index();
    let unions_exist = world.archetypes().component_index().get(Id::pair(Entity::WILDCARD, Entity::UNION)).is_some();
    let required = compiled.plan.selectors.iter().filter_map(|&term| {
        let pattern = compiled.terms[term].alternatives[0];
        let mut id = pattern.index_id(&no_vars);
        let sparse = eval::is_sparse(world, pattern);
        // `(*, *)`, and `_` alone (it matches empty entities too): no record.
        let any_pair = (pattern.second.is_some() && id == Id::pair(Entity::WILDCARD, Entity::WILDCARD))
            || (pattern.second.is_none() && matches!(pattern.first, compile::Half::Any));
        let concrete_target = id.is_pair() && id.second_index() != wildcard;
        if concrete_target && id.first_index() != wildcard && world.is_union_relationship(id.first_index()) {
            id = Id::pair_from_indices(id.first_index(), Entity::UNION.index());
        }
        let union_rows = unions_exist && concrete_target && id.first_index() == wildcard;
        // `*` or a variable alone also matches sparse ids, which no table
        // type lists (an entity holding only those lives in the empty table).
        let sparse_ids = pattern.second.is_none()
            && !matches!(pattern.first, compile::Half::Entity(_))
            && world.sparse_sets().iter().next().is_some();
        (!sparse && !any_pair && !union_rows && !sparse_ids).then_some(id)
    });
    world.archetypes().candidates(required, since, non_empty)
}
