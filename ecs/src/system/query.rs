//! [`Query`]: a system's view of one cached query, bound to the world and the
//! system's change ticks for the duration of one run.

use core::any::type_name;

use crate::entity::Entity;
use crate::query::{
    QueryCombinationIter, QueryCombinationIterMut, QueryData, QueryError, QueryFilter, QueryIter, QueryParIter,
    QuerySingleError, QueryState, WorldQuery,
};
use crate::storage::Tick;
use crate::world::World;

/// A query as a system parameter: iterate, look up entities, or get the single
/// match. `Added`/`Changed` are relative to the system's previous run.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// fn movement(mut q: Query<(&mut Position, &Velocity)>) {
///     for (mut position, velocity) in q.iter_mut() {
///         position.0 += velocity.0;
///     }
/// }
/// let mut world = World::new();
/// let e = world.spawn((Position(0.0), Velocity(2.0))).id();
/// world.run_system_once(movement);
/// assert_eq!(world.get::<Position>(e).unwrap().0, 2.0);
/// ```
pub struct Query<'w, 's, D: QueryData, F: QueryFilter = ()> {
    world: &'w World,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter> Query<'w, 's, D, F> {
    /// # Safety
    /// `D`'s access (and `F`'s) on `world` is exclusive to this query for `'w`,
    /// and `state` is up to date with `world`'s archetypes.
    pub(crate) unsafe fn new(world: &'w World, state: &'s QueryState<D, F>, last_run: Tick, this_run: Tick) -> Self {
        Query { world, state, last_run, this_run }
    }

    /// Iterates read-only.
    pub fn iter(&self) -> QueryIter<'_, 's, D::ReadOnly, F> {
        // SAFETY: read-only items borrow `self` shared, so no `&mut` item is alive.
        unsafe { self.state.iter_unchecked_manual::<D::ReadOnly>(self.world, self.last_run, self.this_run) }
    }

    /// Iterates with write access.
    pub fn iter_mut(&mut self) -> QueryIter<'_, 's, D, F> {
        // SAFETY: `&mut self` makes this the only iterator of the query; the
        // system's declared access makes it the only borrow of `D`'s components.
        unsafe { self.state.iter_unchecked_manual::<D>(self.world, self.last_run, self.this_run) }
    }

    /// Iterates read-only in parallel on the rayon pool.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(|_| (Health(1),)));
    /// let total = world.run_system_once(|q: Query<&Health>| {
    ///     let total = AtomicU32::new(0);
    ///     q.par_iter().for_each(|health| { total.fetch_add(health.0, Ordering::Relaxed); });
    ///     total.into_inner()
    /// });
    /// assert_eq!(total, 100);
    /// ```
    pub fn par_iter(&self) -> QueryParIter<'_, 's, D::ReadOnly, F> {
        // SAFETY: as in `iter`.
        unsafe { self.state.par_iter_unchecked_manual::<D::ReadOnly>(self.world, self.last_run, self.this_run) }
    }

    /// Iterates with write access in parallel on the rayon pool; every row is
    /// visited once, and writes mark rows changed as in `iter_mut`.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// fn heal(mut q: Query<&mut Health>) {
    ///     q.par_iter_mut().for_each(|mut health| health.0 += 1);
    /// }
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(|_| (Health(1),)));
    /// world.run_system_once(heal);
    /// assert!(world.query::<&Health>().iter(&world).all(|health| health.0 == 2));
    /// ```
    pub fn par_iter_mut(&mut self) -> QueryParIter<'_, 's, D, F> {
        // SAFETY: as in `iter_mut`.
        unsafe { self.state.par_iter_unchecked_manual::<D>(self.world, self.last_run, self.this_run) }
    }

    /// The read-only item of `entity`.
    ///
    /// # Errors
    /// [`QueryError::NoSuchEntity`] or [`QueryError::QueryDoesNotMatch`].
    pub fn get(&self, entity: Entity) -> Result<<D::ReadOnly as WorldQuery>::Item<'_>, QueryError> {
        // SAFETY: as in `iter`.
        unsafe { self.state.get_unchecked_manual::<D::ReadOnly>(self.world, entity, self.last_run, self.this_run) }
    }

    /// The item of `entity`, with write access.
    ///
    /// # Errors
    /// As [`Query::get`].
    pub fn get_mut(&mut self, entity: Entity) -> Result<D::Item<'_>, QueryError> {
        // SAFETY: as in `iter_mut`.
        unsafe { self.state.get_unchecked_manual::<D>(self.world, entity, self.last_run, self.this_run) }
    }

    /// The only matching item.
    ///
    /// # Errors
    /// [`QuerySingleError::NoEntities`] or [`QuerySingleError::MultipleEntities`].
    pub fn single(&self) -> Result<<D::ReadOnly as WorldQuery>::Item<'_>, QuerySingleError> {
        let mut iter = self.iter();
        let first = iter.next().ok_or(QuerySingleError::NoEntities(type_name::<(D, F)>()))?;
        match iter.next() {
            None => Ok(first),
            Some(_) => Err(QuerySingleError::MultipleEntities(type_name::<(D, F)>())),
        }
    }

    /// The only matching item, with write access.
    ///
    /// # Errors
    /// As [`Query::single`].
    pub fn single_mut(&mut self) -> Result<D::Item<'_>, QuerySingleError> {
        let mut iter = self.iter_mut();
        let first = iter.next().ok_or(QuerySingleError::NoEntities(type_name::<(D, F)>()))?;
        match iter.next() {
            None => Ok(first),
            Some(_) => Err(QuerySingleError::MultipleEntities(type_name::<(D, F)>())),
        }
    }

    /// The read-only items of `entities`, in order.
    ///
    /// # Errors
    /// [`QueryError::NoSuchEntity`] or [`QueryError::QueryDoesNotMatch`] for an
    /// entity without an item, [`QueryError::AliasedMutability`] for one listed twice.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(1)).id(), world.spawn(Health(2)).id());
    /// let sum = world.run_system_once(move |q: Query<&Health>| {
    ///     let [x, y] = q.get_many([a, b]).unwrap();
    ///     assert!(q.get_many([a, a]).is_err());
    ///     x.0 + y.0
    /// });
    /// assert_eq!(sum, 3);
    /// ```
    pub fn get_many<const N: usize>(
        &self,
        entities: [Entity; N],
    ) -> Result<[<D::ReadOnly as WorldQuery>::Item<'_>; N], QueryError> {
        // SAFETY: as in `iter`.
        unsafe {
            self.state.get_many_unchecked_manual::<D::ReadOnly, N>(self.world, entities, self.last_run, self.this_run)
        }
    }

    /// The items of `entities`, with write access, in order.
    ///
    /// # Errors
    /// As [`Query::get_many`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(1)).id(), world.spawn(Health(5)).id());
    /// world.run_system_once(move |mut q: Query<&mut Health>| {
    ///     let [mut from, mut to] = q.get_many_mut([b, a]).unwrap();
    ///     from.0 -= 2;
    ///     to.0 += 2;
    /// });
    /// assert_eq!(world.get::<Health>(a).unwrap().0, 3);
    /// ```
    pub fn get_many_mut<const N: usize>(&mut self, entities: [Entity; N]) -> Result<[D::Item<'_>; N], QueryError> {
        // SAFETY: as in `iter_mut`; the entities are checked distinct.
        unsafe { self.state.get_many_unchecked_manual::<D, N>(self.world, entities, self.last_run, self.this_run) }
    }

    /// Every unordered `K`-tuple of distinct matching entities' read-only items.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Mass(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..5).map(|m| (Mass(m),)));
    /// let pairs = world.run_system_once(|q: Query<&Mass>| q.iter_combinations::<2>().count());
    /// assert_eq!(pairs, 10);
    /// ```
    pub fn iter_combinations<const K: usize>(&self) -> QueryCombinationIter<'_, 's, D, F, K> {
        let entities = self.matching_entities();
        QueryCombinationIter::new(self.world, self.state, entities, self.last_run, self.this_run)
    }

    /// Every unordered `K`-tuple of distinct matching entities' items, with
    /// write access, one tuple at a time (`fetch_next`).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Charge(i32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..4).map(|_| (Charge(0),)));
    /// world.run_system_once(|mut q: Query<&mut Charge>| {
    ///     let mut pairs = q.iter_combinations_mut::<2>();
    ///     while let Some([mut a, mut b]) = pairs.fetch_next() {
    ///         a.0 += 1;
    ///         b.0 += 1;
    ///     }
    /// });
    /// assert!(world.query::<&Charge>().iter(&world).all(|c| c.0 == 3));
    /// ```
    pub fn iter_combinations_mut<const K: usize>(&mut self) -> QueryCombinationIterMut<'_, 's, D, F, K> {
        let entities = self.matching_entities();
        QueryCombinationIterMut::new(QueryCombinationIter::new(
            self.world,
            self.state,
            entities,
            self.last_run,
            self.this_run,
        ))
    }

    fn matching_entities(&self) -> Vec<Entity> {
        self.state.matching_entities(self.world, self.last_run, self.this_run)
    }

    /// Whether no entity matches.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// Whether `entity` matches.
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_ok()
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a Query<'_, 's, D, F> {
    type Item = <D::ReadOnly as WorldQuery>::Item<'a>;
    type IntoIter = QueryIter<'a, 's, D::ReadOnly, F>;

    /// `for item in &query`: [`Query::iter`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, 's, D: QueryData, F: QueryFilter> IntoIterator for &'a mut Query<'_, 's, D, F> {
    type Item = D::Item<'a>;
    type IntoIter = QueryIter<'a, 's, D, F>;

    /// `for item in &mut query`: [`Query::iter_mut`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<D: QueryData, F: QueryFilter> core::fmt::Debug for Query<'_, '_, D, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Query").field("query", &type_name::<(D, F)>()).finish()
    }
}
