//! [`QueryState`]: a query's resolved ids and its cache of matched archetypes.
//!
//! Invariants:
//! * `matched` holds every archetype with id below `archetype_generation`
//!   that both `D` and `F` match, with their caches, after an update those
//!   whose table has rows first (`matched[..non_empty]`, kept in step with
//!   the world's emptiness log in O(1) per change; a cascade order instead
//!   orders all by depth and iterations check lengths);
//!   hidden archetypes only when the query names their marker (`Disabled`,
//!   `Prefab`: in any term, `Has` and `Option<&T>` too) or requires it
//!   (internal markers): internal
//!   ones (`Internal`, `ComponentInfo`, `ObserverMarker`), disabled entities
//!   (`Disabled`) and prefabs (`Prefab`), see `ArchetypeFlags::HIDDEN`;
//! * an update whose world shows the same `Archetypes::cache_epoch` as the last
//!   one (no archetype created, reused or deleted, no inheritance or emptiness
//!   change) and that nothing reshaped has nothing to do and returns at once;
//! * `last_run` is the previous `iter`/`iter_mut`'s reading of the world's 64-bit
//!   clock ([`LastRun::NEVER`] before the first); the baseline of `Added`/`Changed`
//!   is that tick, clamped to the age window when a run starts (so a state left
//!   idle for billions of ticks does not see wrapped ticks as new),
//!   the baseline of `Added`/`Changed`.

use core::any::type_name;
use core::fmt;

use smallvec::SmallVec;

use super::access::QueryAccess;
use super::access_set::QueryCheck;
use super::fetch::{QueryData, ReadOnlyQueryData, WorldQuery};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::matched::{MatchedArchetype, UnionRowFilter, union_rows_pass};
use super::par_iter::QueryParIter;
use crate::archetype::{Archetype, ArchetypeFlags, ArchetypeId, UnionCell};
use crate::entity::{Entity, Id};
use crate::storage::{LastRun, Tick};
use crate::world::{World, WorldId};

/// Why [`QueryState::get`] found no item.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QueryError {
    /// The entity is not alive.
    NoSuchEntity(Entity),
    /// The entity is alive but does not match the query.
    QueryDoesNotMatch(Entity),
    /// The entity was asked for twice (`get_many`, `get_many_mut`): two items
    /// of one entity could alias.
    AliasedMutability(Entity),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NoSuchEntity(entity) => write!(f, "entity {entity:?} is not alive"),
            QueryError::QueryDoesNotMatch(entity) => write!(f, "entity {entity:?} does not match the query"),
            QueryError::AliasedMutability(entity) => {
                write!(f, "entity {entity:?} was asked for more than once; its items would alias")
            }
        }
    }
}

impl std::error::Error for QueryError {}

/// Why [`QueryState::single`] found no single item.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum QuerySingleError {
    /// No entity matches; holds the query's type name.
    NoEntities(&'static str),
    /// More than one entity matches; holds the query's type name.
    MultipleEntities(&'static str),
}

impl fmt::Display for QuerySingleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuerySingleError::NoEntities(query) => write!(f, "no entity matches {query}"),
            QuerySingleError::MultipleEntities(query) => write!(f, "more than one entity matches {query}"),
        }
    }
}

impl std::error::Error for QuerySingleError {}

/// A cached query: data `D`, filter `F`. Build it with [`World::query`] or
/// [`World::query_filtered`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// let mut world = World::new();
/// let e = world.spawn((Position(0.0), Velocity(2.0))).id();
/// world.spawn(Position(5.0));
/// let mut q = world.query::<(&mut Position, &Velocity)>();
/// for (mut position, velocity) in q.iter_mut(&mut world) {
///     position.0 += velocity.0;
/// }
/// assert_eq!(world.get::<Position>(e), Some(&Position(2.0)));
/// let mut positions = world.query::<&Position>();
/// assert_eq!(positions.iter(&world).count(), 2);
/// assert!(positions.single(&world).is_err()); // two matches
/// ```
pub struct QueryState<D: QueryData, F: QueryFilter = ()> {
    world_id: WorldId,
    archetype_generation: usize,
    matched: Vec<MatchedArchetype<D::Cache, F::Cache>>,
    data_state: D::State,
    filter_state: F::State,
    required: SmallVec<[Id; 4]>,
    /// The hiding flags the query lifts (`Archetypes::lifted_flags`):
    /// archetypes hidden by other flags (internal entities, `Disabled`,
    /// `Prefab`) are skipped.
    allowed: ArchetypeFlags,
    last_run: LastRun,
    /// `Archetypes::inheritance_epoch` when the archetypes were last matched:
    /// what archetypes inherit changed since if it differs (rematch all).
    inheritance_seen: usize,
    /// `Archetypes::deleted_count` when dead archetypes were last pruned.
    deleted_seen: usize,
    /// `Archetypes::reused_count` when the archetypes were last matched: a reused
    /// slot is a new archetype below `archetype_generation`, so a change means
    /// matching everything again.
    reused_seen: usize,
    /// Pairs required through [`QueryState::with_pair`], resolved each update.
    runtime_pairs: SmallVec<[RuntimePair; 1]>,
    /// Their ids as last resolved, each requirement a list of alternatives
    /// an archetype must hold one of (a wildcard target as the pattern
    /// `(R, *)`, matched by `Archetype::matches_id`; a transitive
    /// relationship's `(R, t)` as `(R, x)` for `t` and every `x` that reaches
    /// `t` along `R`); `None` when one cannot exist (its relationship is not
    /// registered or its target is dead): nothing matches.
    runtime_ids: Option<SmallVec<[SmallVec<[Id; 1]>; 2]>>,
    /// The `with_pair::<IsA>` requirements met reflexively, resolved with
    /// `runtime_ids`.
    reflexive: SmallVec<[ReflexivePair; 1]>,
    /// The row filters of the `with_pair` requirements whose relationship is a
    /// union (their archetypes hold `(R, *union*)`; the target is per row).
    union_filters: SmallVec<[UnionRowFilter; 1]>,
    /// The relationship whose depth orders the matched tables
    /// ([`QueryState::cascade`]).
    cascade: Option<ComponentIdFn>,
    /// `matched[..non_empty]` are the entries whose table has rows (all of
    /// them with a cascade order, which the split would break).
    non_empty: usize,
    /// Where each archetype's entries are in `matched` (several for wildcard
    /// terms: one per way it matches).
    positions: crate::util::FxHashMap<ArchetypeId, SmallVec<[u32; 1]>>,
    /// How far the world's emptiness log was read
    /// (`Archetypes::emptiness_changes`).
    emptiness_seen: u64,
    /// `matched` changed since the last split: the next one is a full pass.
    reshaped: bool,
    /// `Archetypes::cache_epoch` at the last update: while it is the same and
    /// nothing reshaped `matched` (the `with_pair` requirements, resolved
    /// first, reshape it when they change), an update has nothing to do. A
    /// cascade order is computed on every update.
    cache_epoch_seen: u64,
}

/// Refuses a query that may match prefabs (it names `Prefab`) and writes a
/// component, or the value pairs of a relationship, that instances read from
/// their prefabs: a `&mut` of a prefab's value could alias the shared `&` an
/// instance's row hands out.
#[track_caller]
fn refuse_prefab_writes(world: &World, access: &QueryAccess, query: &str) {
    for &component in access.writes() {
        if let Some(relationship) = super::access::pair_access_relationship(component) {
            let info = world.entity_at(relationship).and_then(|relationship| world.component_info(relationship));
            if let Some(info) = info.filter(|info| info.inherits_pairs()) {
                panic!(
                    "query {query} writes the pairs of {} and may match prefabs, whose {} pairs instances read \
                     through IsA; edit a prefab with World::get_pair_mut, or give the relationship another \
                     on_instantiate policy",
                    info.name(),
                    info.name()
                );
            }
            continue;
        }
        let Some(info) = world.component_info(component) else { continue };
        if info.is_inherited() || info.is_inherited_sparse() {
            panic!(
                "query {query} writes {} and may match prefabs, whose {} instances read through IsA; \
                 edit a prefab with World::get_mut, or give the component another on_instantiate policy",
                info.name(),
                info.name()
            );
        }
    }
}

/// Looks a component type's id up in a world (`World::component_id::<T>`).
pub(crate) type ComponentIdFn = fn(&World) -> Option<Entity>;

/// A pair `(R, target)` required at run time.
#[derive(Clone, Copy)]
struct RuntimePair {
    relationship: ComponentIdFn,
    target: Entity,
}

/// A `with_pair::<IsA>(target)` requirement (the `pair`-th), which `target`
/// meets itself (`IsA` is reflexive in query terms): `target` lives in
/// `archetype`, where only its row matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReflexivePair {
    pair: usize,
    archetype: ArchetypeId,
    target: Entity,
}

impl<D: QueryData, F: QueryFilter> fmt::Debug for QueryState<D, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryState")
            .field("query", &type_name::<(D, F)>())
            .field("matched_archetypes", &self.matched.len())
            .finish()
    }
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// Resolves the query's ids in `world` (registering components as needed) and
    /// matches the existing archetypes.
    ///
    /// # Panics
    /// Panics if the query writes a component it also reads or writes elsewhere
    /// (e.g. `(&mut Position, &Position)`), naming the component.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let () = QueryCheck::<D, F>::OK;
        let data_state = D::init_state(world);
        let filter_state = F::init_state(world);
        let mut access = QueryAccess::default();
        D::update_access(&data_state, &mut access);
        F::update_access(&filter_state, &mut access);
        if let Some(component) = access.conflict() {
            let name = world.components().info_by_index(component.index()).map_or("?", |info| info.name());
            panic!(
                "query {} accesses {name} mutably and also reads or writes it elsewhere; \
                 split the query or make the terms disjoint",
                type_name::<(D, F)>()
            );
        }
        let mut required = SmallVec::new();
        D::required_ids(&data_state, &mut |id| required.push(id));
        F::required_ids(&filter_state, &mut |id| required.push(id));
        // Archetypes hidden by `Disabled` or `Prefab` are matched by queries
        // that name it in any term (`With`, `Has`, `Option<&T>`, ...), internal
        // ones only by queries that require their marker.
        let mut mentioned: SmallVec<[Id; 8]> = SmallVec::new();
        D::mentioned_ids(&data_state, &mut |id| mentioned.push(id));
        F::mentioned_ids(&filter_state, &mut |id| mentioned.push(id));
        let allowed = world.archetypes().lifted_flags(required.iter().copied(), mentioned.iter().copied());
        if allowed.contains(ArchetypeFlags::PREFAB) {
            refuse_prefab_writes(world, &access, type_name::<(D, F)>());
        }
        let mut state = QueryState {
            world_id: world.id(),
            archetype_generation: 0,
            matched: Vec::new(),
            data_state,
            filter_state,
            required,
            allowed,
            last_run: LastRun::NEVER,
            inheritance_seen: world.archetypes().inheritance_epoch(),
            deleted_seen: 0,
            reused_seen: 0,
            runtime_pairs: SmallVec::new(),
            runtime_ids: Some(SmallVec::new()),
            reflexive: SmallVec::new(),
            union_filters: SmallVec::new(),
            cascade: None,
            non_empty: 0,
            positions: crate::util::FxHashMap::default(),
            emptiness_seen: 0,
            reshaped: true,
            cache_epoch_seen: u64::MAX,
        };
        state.update_archetypes(world);
        state
    }

    #[track_caller]
    fn validate_world(&self, world: &World) {
        assert!(
            world.id() == self.world_id,
            "QueryState<{}> used with a world other than the one it was built for",
            type_name::<(D, F)>()
        );
    }

    fn try_match(&self, archetype: &Archetype) -> Option<MatchedArchetype<D::Cache, F::Cache>> {
        self.try_match_variant(archetype, 0)
    }

    fn try_match_variant(&self, archetype: &Archetype, variant: usize) -> Option<MatchedArchetype<D::Cache, F::Cache>> {
        if archetype.is_dead() || archetype.flags().hidden_unless(self.allowed) {
            return None;
        }
        let mut only_entity = None;
        if !self.runtime_pairs.is_empty() {
            let ids = self.runtime_ids.as_ref()?;
            for (position, alternatives) in ids.iter().enumerate() {
                if alternatives.iter().any(|&id| archetype.matches_id(id)) {
                    continue;
                }
                // `(IsA, B)` is reflexive: `B` itself, in its own table.
                match self.reflexive.iter().find(|reflexive| reflexive.pair == position) {
                    Some(reflexive)
                        if reflexive.archetype == archetype.id()
                            && only_entity.is_none_or(|only| only == reflexive.target) =>
                    {
                        only_entity = Some(reflexive.target);
                    }
                    _ => return None,
                }
            }
        }
        let data_count = D::variant_count(&self.data_state, archetype).max(1);
        let data = D::match_variant(&self.data_state, archetype, variant % data_count)?;
        let filter = F::match_variant(&self.filter_state, archetype, variant / data_count)?;
        let toggled = (D::MAY_TOGGLE && D::checks_toggles(&self.data_state, archetype))
            || (F::MAY_TOGGLE && F::checks_toggles(&self.filter_state, archetype));
        Some(MatchedArchetype { archetype: archetype.id(), data, filter, toggled, only_entity })
    }

    /// Adds every way the query matches `archetype` to the cache.
    fn push_matches(&mut self, archetype: &Archetype) {
        let count = D::variant_count(&self.data_state, archetype) * F::variant_count(&self.filter_state, archetype);
        for variant in 0..count {
            if let Some(matched) = self.try_match_variant(archetype, variant) {
                self.matched.push(matched);
                self.reshaped = true;
            }
        }
    }

    /// Matches the archetypes created since the last update. The first update
    /// walks the component index of the rarest required id instead of every
    /// archetype.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn update_archetypes(&mut self, world: &World) {
        self.validate_world(world);
        if !self.runtime_pairs.is_empty() {
            self.resolve_runtime_pairs(world);
        }
        let archetypes = world.archetypes();
        let epoch = archetypes.cache_epoch();
        if epoch == self.cache_epoch_seen && !self.reshaped && self.cascade.is_none() {
            return;
        }
        self.cache_epoch_seen = epoch;
        if self.reused_seen != archetypes.reused_count() || self.inheritance_seen != archetypes.inheritance_epoch() {
            self.reused_seen = archetypes.reused_count();
            self.inheritance_seen = archetypes.inheritance_epoch();
            self.matched.clear();
            self.reshaped = true;
            self.archetype_generation = 0;
        }
        if self.deleted_seen != archetypes.deleted_count() {
            self.deleted_seen = archetypes.deleted_count();
            self.matched.retain(|matched| !archetypes.is_dead(matched.archetype));
            self.reshaped = true;
        }
        let generation = archetypes.len();
        if self.archetype_generation != generation {
            for archetype in archetypes.candidates(self.required.iter().copied(), self.archetype_generation, false) {
                self.push_matches(&archetypes[archetype]);
            }
            self.archetype_generation = generation;
        }
        if self.cascade.is_some() {
            self.order_by_depth(world);
            self.non_empty = self.matched.len();
        } else {
            self.sort_by_emptiness(world);
        }
    }

    /// Keeps the entries whose table has rows before the empty ones
    /// (`matched[..non_empty]`): a full pass after `matched` changed (or when
    /// the world's emptiness log no longer reaches back far enough), else a
    /// swap per entry of each archetype that filled or emptied since.
    fn sort_by_emptiness(&mut self, world: &World) {
        let archetypes = world.archetypes();
        let end = archetypes.emptiness_log_end();
        let changes =
            if core::mem::take(&mut self.reshaped) { None } else { archetypes.emptiness_changes(self.emptiness_seen) };
        self.emptiness_seen = end;
        let Some(changes) = changes else {
            self.matched.sort_by_key(|matched| (archetypes[matched.archetype].is_empty(), matched.archetype));
            self.non_empty = self.matched.partition_point(|matched| !archetypes[matched.archetype].is_empty());
            self.positions.clear();
            for (position, matched) in self.matched.iter().enumerate() {
                self.positions.entry(matched.archetype).or_default().push(position as u32);
            }
            return;
        };
        for archetype in changes {
            let has_rows = !archetypes[archetype].is_empty();
            // Each swap puts one entry of `archetype` on its side of the split.
            while let Some(position) = self.positions.get(&archetype).and_then(|positions| {
                let split = self.non_empty;
                positions
                    .iter()
                    .map(|&position| position as usize)
                    .find(|&position| if has_rows { position >= split } else { position < split })
            }) {
                let split = self.non_empty;
                let target = if has_rows {
                    self.non_empty += 1;
                    split
                } else {
                    self.non_empty -= 1;
                    split - 1
                };
                self.swap_entries(position, target);
            }
        }
    }

    /// Swaps two entries of `matched`, keeping `positions` right.
    fn swap_entries(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.matched.swap(a, b);
        for (moved_to, moved_from) in [(a, b), (b, a)] {
            let archetype = self.matched[moved_to].archetype;
            if let Some(position) = self
                .positions
                .get_mut(&archetype)
                .and_then(|positions| positions.iter_mut().find(|position| **position as usize == moved_from))
            {
                *position = moved_to as u32;
            }
        }
    }

    /// Re-resolves the `with_pair` requirements; if they changed (a target died,
    /// the relationship got registered, a transitive chain grew or broke), the
    /// matches are rebuilt. A concrete pair of a union relationship requires
    /// `(R, *union*)` of the archetype and becomes a row filter; one of a
    /// transitive relationship (`IsA`, `#[relationship(transitive)]`) is held
    /// by every entity whose chain of `R` targets reaches the target.
    fn resolve_runtime_pairs(&mut self, world: &World) {
        let mut union_filters = SmallVec::new();
        let mut reflexive: SmallVec<[ReflexivePair; 1]> = SmallVec::new();
        let is_a = world.builtin_ids().is_a;
        let ids: Option<SmallVec<[SmallVec<[Id; 1]>; 2]>> = self
            .runtime_pairs
            .iter()
            .enumerate()
            .map(|(position, pair)| {
                let relationship = (pair.relationship)(world)?;
                if !world.is_alive(pair.target) {
                    return None;
                }
                let id = Id::pair(relationship, pair.target).any_as_wildcard();
                let traits = world.components().relationship_traits(relationship.index());
                if !id.is_wildcard() && traits.union {
                    union_filters.push(UnionRowFilter { relationship: relationship.index(), target: pair.target });
                    return Some(SmallVec::from_slice(&[Id::pair(relationship, Entity::UNION)]));
                }
                if !id.is_wildcard() && relationship == is_a {
                    let archetype = world.entities().location(pair.target).map(|location| location.archetype);
                    if let Some(archetype) = archetype {
                        reflexive.push(ReflexivePair { pair: position, archetype, target: pair.target });
                    }
                }
                if !id.is_wildcard() && traits.transitive {
                    return Some(transitive_alternatives(world, relationship, pair.target));
                }
                Some(SmallVec::from_slice(&[id]))
            })
            .collect();
        self.union_filters = union_filters;
        if ids != self.runtime_ids || reflexive != self.reflexive {
            self.runtime_ids = ids;
            self.reflexive = reflexive;
            self.matched.clear();
            self.reshaped = true;
            self.archetype_generation = 0;
        }
    }

    /// With [`QueryState::cascade`]: orders the matched tables by the depth of
    /// their entities along the relationship (stable, so ties keep their order).
    fn order_by_depth(&mut self, world: &World) {
        let Some(relationship) = self.cascade.and_then(|lookup| lookup(world)) else {
            return;
        };
        let mut depths = ArchetypeDepths::new(world, relationship.index());
        let keyed: Vec<u32> = self.matched.iter().map(|matched| depths.depth(matched.archetype)).collect();
        let mut order: Vec<usize> = (0..self.matched.len()).collect();
        order.sort_by_key(|&i| keyed[i]);
        let mut slots: Vec<Option<MatchedArchetype<D::Cache, F::Cache>>> = self.matched.drain(..).map(Some).collect();
        self.matched.extend(order.into_iter().filter_map(|i| slots[i].take()));
    }

    /// Requires the pair `(relationship, target)`, the relationship looked up by
    /// `relationship` at every update (the `relation` layer's `with_pair`).
    pub(crate) fn require_runtime_pair(mut self, relationship: ComponentIdFn, target: Entity) -> Self {
        self.runtime_pairs.push(RuntimePair { relationship, target });
        self.runtime_ids = Some(SmallVec::new());
        self.matched.clear();
        self.reshaped = true;
        self.archetype_generation = 0;
        self
    }

    /// Orders iteration by depth along the relationship `relationship` looks up
    /// (the `relation` layer's `cascade`).
    pub(crate) fn order_by(mut self, relationship: ComponentIdFn) -> Self {
        self.cascade = Some(relationship);
        self
    }

    /// Gives `source` as the entity that `Fixed<&T>` terms of this query read
    /// `T` from.
    pub fn with_source<T: crate::component::Component>(mut self, source: Entity) -> Self {
        D::set_source(&mut self.data_state, core::any::TypeId::of::<T>(), source);
        F::set_source(&mut self.filter_state, core::any::TypeId::of::<T>(), source);
        self
    }

    /// Records the query's reads, writes and filter in `access`.
    pub fn update_access(&self, access: &mut QueryAccess) {
        D::update_access(&self.data_state, access);
        F::update_access(&self.filter_state, access);
    }

    /// The matched archetypes with their caches, and the terms' states (for
    /// iterations written outside `QueryIter`, such as `relation`'s propagation).
    #[allow(clippy::type_complexity)]
    pub(crate) fn parts(&self) -> (&[MatchedArchetype<D::Cache, F::Cache>], &D::State, &F::State) {
        (self.matches_with_rows(), &self.data_state, &self.filter_state)
    }

    /// The matched entries whose table had rows at the last update (with a
    /// cascade order: all of them); iterations start from these, so they
    /// never visit an empty table.
    #[inline]
    fn matches_with_rows(&self) -> &[MatchedArchetype<D::Cache, F::Cache>] {
        &self.matched[..self.non_empty.min(self.matched.len())]
    }

    /// The matched archetypes an iteration visits: those whose table had rows
    /// at the last update (every matched one with a cascade order).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A(u32);
    /// #[derive(Component)]
    /// struct B;
    /// let mut world = World::new();
    /// let e = world.spawn(A(1)).id();
    /// world.entity_mut(e).insert(B); // the table of (A) is empty now
    /// let mut q = world.query::<&A>();
    /// assert_eq!(q.matched_archetypes().count(), 2);
    /// assert_eq!(q.archetypes_with_rows().count(), 1);
    /// ```
    pub fn archetypes_with_rows(&self) -> impl Iterator<Item = ArchetypeId> + '_ {
        self.matches_with_rows().iter().map(|matched| matched.archetype)
    }

    /// The row filters of `with_pair` on union relationships (rows whose
    /// target of the relationship is not the filter's do not match).
    pub(crate) fn union_filters(&self) -> &[UnionRowFilter] {
        &self.union_filters
    }

    /// The archetypes this query matched so far.
    pub fn matched_archetypes(&self) -> impl Iterator<Item = ArchetypeId> + '_ {
        self.matched.iter().map(|matched| matched.archetype)
    }

    /// The tick of the previous `iter`/`iter_mut` run.
    pub fn last_run(&self) -> Tick {
        self.last_run.tick()
    }

    /// Starts a run: updates the matches, advances the clock and returns this
    /// state's `Added`/`Changed` baseline (its previous run, clamped to the age
    /// window) and this run's tick.
    pub(crate) fn begin_run(&mut self, world: &World) -> (Tick, Tick) {
        self.update_archetypes(world);
        let now = world.increment_change_tick_wide();
        let last_run = core::mem::replace(&mut self.last_run, LastRun::at(now)).baseline(now);
        (last_run, now.tick())
    }

    /// The baseline of a read that does not start a run (`get`, `iter_peek`)
    /// and the current tick.
    fn peek_run(&self, world: &World) -> (Tick, Tick) {
        let now = world.change_tick_wide();
        (self.last_run.baseline(now), now.tick())
    }

    /// Iterates read-only over the matching entities. `Added`/`Changed` compare
    /// against the previous `iter`/`iter_mut` of this state.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, D::ReadOnly, F> {
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `D::ReadOnly` only reads, and `&World` forbids concurrent writes.
        unsafe { self.iter_unchecked_manual::<D::ReadOnly>(world, last_run, this_run) }
    }

    /// Iterates over the matching entities with write access.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, D, F> {
        world.check_change_ticks();
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `&mut World` gives this iterator exclusive access to the world.
        unsafe { self.iter_unchecked_manual::<D>(world, last_run, this_run) }
    }

    /// Iterates read-only in parallel on the rayon pool (see [`QueryParIter`]).
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(|_| (Health(2),)));
    /// let total = AtomicU32::new(0);
    /// world.query::<&Health>().par_iter(&world).for_each(|health| {
    ///     total.fetch_add(health.0, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 200);
    /// ```
    #[track_caller]
    pub fn par_iter<'w, 's>(&'s mut self, world: &'w World) -> QueryParIter<'w, 's, D::ReadOnly, F> {
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `D::ReadOnly` only reads, and `&World` forbids concurrent writes.
        unsafe { self.par_iter_unchecked_manual::<D::ReadOnly>(world, last_run, this_run) }
    }

    /// Iterates with write access in parallel on the rayon pool (see
    /// [`QueryParIter`]); writes stamp each row's changed tick as `iter_mut` does.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Velocity(f32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..1000).map(|i| (Position(0.0), Velocity(i as f32))));
    /// let mut query = world.query::<(&mut Position, &Velocity)>();
    /// query.par_iter_mut(&mut world).for_each(|(mut position, velocity)| position.0 += velocity.0);
    /// assert!(query.iter(&world).all(|(position, velocity)| position.0 == velocity.0));
    /// ```
    #[track_caller]
    pub fn par_iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryParIter<'w, 's, D, F> {
        world.check_change_ticks();
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `&mut World` gives this iteration exclusive access to the world.
        unsafe { self.par_iter_unchecked_manual::<D>(world, last_run, this_run) }
    }

    /// A parallel iteration over `world` with data `Q` (sharing `D`'s state).
    ///
    /// # Safety
    /// As [`QueryState::iter_unchecked_manual`].
    pub(crate) unsafe fn par_iter_unchecked_manual<'w, 's, Q>(
        &'s self,
        world: &'w World,
        last_run: Tick,
        this_run: Tick,
    ) -> QueryParIter<'w, 's, Q, F>
    where
        Q: QueryData<State = D::State, Cache = D::Cache>,
    {
        // SAFETY: forwarded to the caller.
        unsafe {
            QueryParIter::new(
                world,
                self.matches_with_rows(),
                &self.data_state,
                &self.filter_state,
                &self.union_filters,
                last_run,
                this_run,
            )
        }
    }

    /// An iterator over `world` with data `Q` (which shares `D`'s state and caches).
    ///
    /// # Safety
    /// The caller guarantees `Q`'s access is allowed for `'w` (read-only with
    /// `&World`, or exclusive through `&mut World`).
    pub(crate) unsafe fn iter_unchecked_manual<'w, 's, Q>(
        &'s self,
        world: &'w World,
        last_run: Tick,
        this_run: Tick,
    ) -> QueryIter<'w, 's, Q, F>
    where
        Q: QueryData<State = D::State, Cache = D::Cache>,
    {
        // SAFETY: forwarded to the caller.
        unsafe {
            QueryIter::new(
                world,
                self.matches_with_rows(),
                &self.data_state,
                &self.filter_state,
                &self.union_filters,
                last_run,
                this_run,
            )
        }
    }

    /// The read-only item of `entity`.
    ///
    /// # Errors
    /// [`QueryError::NoSuchEntity`] if it is not alive, [`QueryError::QueryDoesNotMatch`]
    /// if it does not match.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn get<'w>(
        &mut self,
        world: &'w World,
        entity: Entity,
    ) -> Result<<D::ReadOnly as WorldQuery>::Item<'w>, QueryError> {
        self.update_archetypes(world);
        let (last_run, this_run) = self.peek_run(world);
        // SAFETY: read-only access through `&World`.
        unsafe { self.get_unchecked_manual::<D::ReadOnly>(world, entity, last_run, this_run) }
    }

    /// The item of `entity`, with write access.
    ///
    /// # Errors
    /// As [`QueryState::get`].
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn get_mut<'w>(&mut self, world: &'w mut World, entity: Entity) -> Result<D::Item<'w>, QueryError> {
        self.update_archetypes(world);
        let (last_run, this_run) = self.peek_run(world);
        // SAFETY: `&mut World` gives exclusive access.
        unsafe { self.get_unchecked_manual::<D>(world, entity, last_run, this_run) }
    }

    /// # Safety
    /// As [`QueryState::iter_unchecked_manual`].
    pub(crate) unsafe fn get_unchecked_manual<'w, Q>(
        &self,
        world: &'w World,
        entity: Entity,
        last_run: Tick,
        this_run: Tick,
    ) -> Result<Q::Item<'w>, QueryError>
    where
        Q: QueryData<State = D::State, Cache = D::Cache>,
    {
        let location = world.entities().location(entity).ok_or(QueryError::NoSuchEntity(entity))?;
        let archetype = world.archetypes().get(location.archetype).ok_or(QueryError::QueryDoesNotMatch(entity))?;
        let matched = self.try_match(archetype).ok_or(QueryError::QueryDoesNotMatch(entity))?;
        let row = location.row as usize;
        let mut data = Q::init_fetch(world, &self.data_state, last_run, this_run);
        let mut filter = F::init_fetch(world, &self.filter_state, last_run, this_run);
        // SAFETY: the caches were just computed for this archetype; `row` is the
        // entity's row; access is the caller's guarantee.
        unsafe {
            Q::set_archetype(&mut data, &matched.data, archetype);
            F::set_archetype(&mut filter, &matched.filter, archetype);
            let union_rows: SmallVec<[(&[UnionCell], Entity); 1]> =
                self.union_filters.iter().map(|filter| filter.rows(archetype)).collect();
            if !Q::matches_row(&data, entity, row)
                || !F::matches_row(&filter, entity, row)
                || !union_rows_pass(&union_rows, row)
                || matched.only_entity.is_some_and(|only| only != entity)
            {
                return Err(QueryError::QueryDoesNotMatch(entity));
            }
            Ok(Q::fetch(&mut data, entity, row))
        }
    }

    /// The only matching item.
    ///
    /// # Errors
    /// [`QuerySingleError::NoEntities`] or [`QuerySingleError::MultipleEntities`].
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn single<'w>(&mut self, world: &'w World) -> Result<<D::ReadOnly as WorldQuery>::Item<'w>, QuerySingleError> {
        let mut iter = self.iter(world);
        let first = iter.next().ok_or(QuerySingleError::NoEntities(type_name::<(D, F)>()))?;
        match iter.next() {
            None => Ok(first),
            Some(_) => Err(QuerySingleError::MultipleEntities(type_name::<(D, F)>())),
        }
    }

    /// The only matching item, with write access.
    ///
    /// # Errors
    /// As [`QueryState::single`].
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn single_mut<'w>(&mut self, world: &'w mut World) -> Result<D::Item<'w>, QuerySingleError> {
        let mut iter = self.iter_mut(world);
        let first = iter.next().ok_or(QuerySingleError::NoEntities(type_name::<(D, F)>()))?;
        match iter.next() {
            None => Ok(first),
            Some(_) => Err(QuerySingleError::MultipleEntities(type_name::<(D, F)>())),
        }
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter> QueryState<D, F> {
    /// Iterates read-only without advancing `last_run` (for inspection: `Added`
    /// and `Changed` see the same rows on the next `iter`).
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    #[track_caller]
    pub fn iter_peek<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, D, F> {
        self.update_archetypes(world);
        let (last_run, this_run) = self.peek_run(world);
        // SAFETY: `D` is read-only and `&World` forbids concurrent writes.
        unsafe { self.iter_unchecked_manual::<D>(world, last_run, this_run) }
    }
}

impl World {
    /// A cached query for data `D`.
    ///
    /// # Panics
    /// Panics if `D` writes a component it also reads or writes elsewhere.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// let mut q = world.query::<(Entity, &Position)>();
    /// assert_eq!(q.iter(&world).count(), 1);
    /// ```
    #[track_caller]
    pub fn query<D: QueryData>(&mut self) -> QueryState<D, ()> {
        let () = QueryCheck::<D, ()>::OK;
        QueryState::new(self)
    }

    /// A cached query for data `D` filtered by `F`.
    ///
    /// # Panics
    /// As [`World::query`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Enemy;
    /// let mut world = World::new();
    /// world.spawn((Position(1.0), Enemy));
    /// world.spawn(Position(1.0));
    /// let mut q = world.query_filtered::<&Position, With<Enemy>>();
    /// assert_eq!(q.iter(&world).count(), 1);
    /// ```
    #[track_caller]
    pub fn query_filtered<D: QueryData, F: QueryFilter>(&mut self) -> QueryState<D, F> {
        let () = QueryCheck::<D, F>::OK;
        QueryState::new(self)
    }
}

/// The depth of archetypes' entities along one relationship (0 without a pair:
/// a root), memoized per archetype in a dense array. Exact for exclusive
/// relationships, where every entity of an archetype has the same target; for
/// others the first target decides. A chain longer than the number of
/// archetypes is a cycle and counts as depth 0 where it closes.
pub(crate) struct ArchetypeDepths<'w> {
    world: &'w World,
    relationship: u32,
    depths: Vec<u32>,
}

impl<'w> ArchetypeDepths<'w> {
    const UNKNOWN: u32 = u32::MAX;

    /// Depths along the relationship with entity index `relationship`.
    pub(crate) fn new(world: &'w World, relationship: u32) -> Self {
        ArchetypeDepths { world, relationship, depths: vec![Self::UNKNOWN; world.archetypes().len()] }
    }

    /// The depth of `archetype`'s entities.
    pub(crate) fn depth(&mut self, archetype: ArchetypeId) -> u32 {
        let world = self.world;
        let mut chain: SmallVec<[ArchetypeId; 8]> = SmallVec::new();
        let mut current = archetype;
        let base = loop {
            let known = self.depths[current.index()];
            if known != Self::UNKNOWN {
                break known;
            }
            if chain.len() > world.archetypes().len() {
                break 0;
            }
            chain.push(current);
            let node = &world.archetypes()[current];
            let parent = node
                .pair_positions(self.relationship)
                .next()
                .and_then(|position| world.entity_at(node.ids()[position].second_index()))
                .and_then(|parent| world.entities().location(parent));
            match parent {
                Some(location) => current = location.archetype,
                None => {
                    // The top of the chain: depth 0.
                    let top = chain.pop().expect("pushed above");
                    self.depths[top.index()] = 0;
                    break 0;
                }
            }
        };
        let mut depth = base;
        while let Some(node) = chain.pop() {
            depth += 1;
            self.depths[node.index()] = depth;
        }
        self.depths[archetype.index()]
    }
}

/// The pairs `(relationship, x)` for `target` and every entity `x` whose chain
/// of `relationship` targets reaches `target`: an entity holding one of them
/// reaches `target` too. Found from the targets of `relationship` (the
/// archetypes holding a pair of it, then each target's own pairs), so the cost
/// follows the number of targets, not of the entities holding pairs.
fn transitive_alternatives(world: &World, relationship: Entity, target: Entity) -> SmallVec<[Id; 1]> {
    let archetypes = world.archetypes();
    let index = relationship.index();
    let wildcard = Id::pair(relationship, Entity::WILDCARD);
    // Every target of the relationship, once.
    let mut targets: Vec<u32> = Vec::new();
    if let Some(record) = archetypes.component_index().get(wildcard) {
        for entry in record.archetypes() {
            let archetype = &archetypes[entry.archetype];
            targets.extend(archetype.pair_positions(index).map(|position| archetype.ids()[position].second_index()));
        }
    }
    targets.sort_unstable();
    targets.dedup();
    // Each target's own targets: the edges a chain follows.
    let mut reaches: Vec<(u32, u32)> = Vec::new();
    for &from in &targets {
        let Some(entity) = world.entity_at(from) else { continue };
        let Some(location) = world.entities().location(entity) else { continue };
        let archetype = &archetypes[location.archetype];
        for position in archetype.pair_positions(index) {
            reaches.push((from, archetype.ids()[position].second_index()));
        }
    }
    let mut closure: SmallVec<[u32; 8]> = SmallVec::from_slice(&[target.index()]);
    let mut next = 0;
    while let Some(&reached) = closure.get(next) {
        next += 1;
        for &(from, to) in &reaches {
            if to == reached && !closure.contains(&from) {
                closure.push(from);
            }
        }
    }
    closure.iter().map(|&x| Id::pair_from_indices(index, x)).collect()
}
