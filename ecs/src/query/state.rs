//! [`QueryState`]: a query's resolved ids and its cache of matched archetypes.
//!
//! Invariants:
//! * `matched` holds, in archetype order, every archetype with id below
//!   `archetype_generation` that both `D` and `F` match (internal archetypes only
//!   when the query names `Internal` or `ComponentInfo`), with their caches;
//! * `last_run` is the tick of the previous `iter`/`iter_mut` (0 before the first),
//!   the baseline of `Added`/`Changed`.

use core::any::type_name;
use core::fmt;

use smallvec::SmallVec;

use super::access::QueryAccess;
use super::access_set::QueryCheck;
use super::fetch::{QueryData, ReadOnlyQueryData, WorldQuery};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use crate::archetype::{Archetype, ArchetypeFlags, ArchetypeId};
use crate::entity::{Entity, Id};
use crate::storage::Tick;
use crate::world::{World, WorldId};

/// Why [`QueryState::get`] found no item.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QueryError {
    /// The entity is not alive.
    NoSuchEntity(Entity),
    /// The entity is alive but does not match the query.
    QueryDoesNotMatch(Entity),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NoSuchEntity(entity) => write!(f, "entity {entity:?} is not alive"),
            QueryError::QueryDoesNotMatch(entity) => write!(f, "entity {entity:?} does not match the query"),
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

/// One matched archetype with the terms' caches.
pub(crate) struct MatchedArchetype<DC, FC> {
    pub(crate) archetype: ArchetypeId,
    pub(crate) data: DC,
    pub(crate) filter: FC,
}

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
    match_internal: bool,
    last_run: Tick,
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
            let name = world.component_info(component).map_or("?", |info| info.name());
            panic!(
                "query {} accesses {name} mutably and also reads or writes it elsewhere; \
                 split the query or make the terms disjoint",
                type_name::<(D, F)>()
            );
        }
        let mut required = SmallVec::new();
        D::required_ids(&data_state, &mut |id| required.push(id));
        F::required_ids(&filter_state, &mut |id| required.push(id));
        let markers = world.archetypes().internal_markers();
        let match_internal = required.iter().any(|id| markers.contains(id));
        let mut state = QueryState {
            world_id: world.id(),
            archetype_generation: 0,
            matched: Vec::new(),
            data_state,
            filter_state,
            required,
            match_internal,
            last_run: Tick::new(0),
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
        if archetype.flags().contains(ArchetypeFlags::INTERNAL) && !self.match_internal {
            return None;
        }
        Some(MatchedArchetype {
            archetype: archetype.id(),
            data: D::match_archetype(&self.data_state, archetype)?,
            filter: F::match_archetype(&self.filter_state, archetype)?,
        })
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
        let archetypes = world.archetypes();
        let generation = archetypes.len();
        if self.archetype_generation == generation {
            return;
        }
        let index = archetypes.component_index();
        let rarest = if self.archetype_generation == 0 {
            self.required
                .iter()
                .map(|&id| index.get(id).map_or(0, |record| record.archetypes().len()))
                .zip(self.required.iter())
                .min_by_key(|(count, _)| *count)
                .map(|(_, &id)| id)
        } else {
            None
        };
        match rarest {
            Some(id) => {
                let mut candidates: Vec<ArchetypeId> = index
                    .get(id)
                    .map(|record| record.archetypes().iter().map(|entry| entry.archetype).collect())
                    .unwrap_or_default();
                candidates.sort_unstable();
                for archetype in candidates {
                    if let Some(matched) = self.try_match(&archetypes[archetype]) {
                        self.matched.push(matched);
                    }
                }
            }
            None => {
                for archetype in &archetypes.iter().as_slice()[self.archetype_generation..] {
                    if let Some(matched) = self.try_match(archetype) {
                        self.matched.push(matched);
                    }
                }
            }
        }
        self.archetype_generation = generation;
    }

    /// Records the query's reads, writes and filter in `access`.
    pub fn update_access(&self, access: &mut QueryAccess) {
        D::update_access(&self.data_state, access);
        F::update_access(&self.filter_state, access);
    }

    /// The archetypes this query matched so far.
    pub fn matched_archetypes(&self) -> impl Iterator<Item = ArchetypeId> + '_ {
        self.matched.iter().map(|matched| matched.archetype)
    }

    /// The tick of the previous `iter`/`iter_mut` run.
    pub fn last_run(&self) -> Tick {
        self.last_run
    }

    fn begin_run(&mut self, world: &World) -> (Tick, Tick) {
        self.update_archetypes(world);
        let this_run = world.increment_change_tick();
        let last_run = core::mem::replace(&mut self.last_run, this_run);
        (last_run, this_run)
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
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `&mut World` gives this iterator exclusive access to the world.
        unsafe { self.iter_unchecked_manual::<D>(world, last_run, this_run) }
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
        unsafe { QueryIter::new(world, &self.matched, &self.data_state, &self.filter_state, last_run, this_run) }
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
        // SAFETY: read-only access through `&World`.
        unsafe { self.get_unchecked_manual::<D::ReadOnly>(world, entity, self.last_run, world.change_tick()) }
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
        let this_run = world.change_tick();
        // SAFETY: `&mut World` gives exclusive access.
        unsafe { self.get_unchecked_manual::<D>(world, entity, self.last_run, this_run) }
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
            if !Q::matches_row(&data, entity, row) || !F::matches_row(&filter, entity, row) {
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
        let this_run = world.change_tick();
        // SAFETY: `D` is read-only and `&World` forbids concurrent writes.
        unsafe { self.iter_unchecked_manual::<D>(world, self.last_run, this_run) }
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
