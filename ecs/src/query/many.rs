//! Several items of one query at once: [`QueryState::get_many`] /
//! [`QueryState::get_many_mut`] (given entities) and the combination iterators
//! [`QueryCombinationIter`] / [`QueryCombinationIterMut`] (every unordered
//! `K`-tuple of matching entities).
//!
//! Soundness rests on distinctness: `get_many_mut` refuses a repeated entity
//! (an `Err`, never two `&mut` of one row), and a combination never repeats an
//! entity. The mutable combination iterator is a lending iterator
//! (`fetch_next` borrows it), so no two tuples of `&mut` items coexist.

use super::fetch::{QueryData, WorldQuery};
use super::filter::QueryFilter;
use super::state::{QueryError, QueryState};
use crate::entity::Entity;
use crate::storage::Tick;
use crate::world::World;

/// `Err(AliasedMutability)` for the first entity listed twice.
fn check_distinct<const N: usize>(entities: &[Entity; N]) -> Result<(), QueryError> {
    for (i, entity) in entities.iter().enumerate() {
        if entities[..i].contains(entity) {
            return Err(QueryError::AliasedMutability(*entity));
        }
    }
    Ok(())
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// The read-only items of `entities`, in order.
    ///
    /// # Errors
    /// [`QueryError::NoSuchEntity`] or [`QueryError::QueryDoesNotMatch`] for the
    /// first entity that has no item, [`QueryError::AliasedMutability`] for an
    /// entity listed twice.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(1)).id(), world.spawn(Health(2)).id());
    /// let mut q = world.query::<&Health>();
    /// let [x, y] = q.get_many(&world, [b, a]).unwrap();
    /// assert_eq!((x.0, y.0), (2, 1));
    /// assert_eq!(q.get_many(&world, [a, a]).err(), Some(QueryError::AliasedMutability(a)));
    /// ```
    #[track_caller]
    pub fn get_many<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[<D::ReadOnly as WorldQuery>::Item<'w>; N], QueryError> {
        self.update_archetypes(world);
        // SAFETY: read-only access through `&World`.
        unsafe {
            self.get_many_unchecked_manual::<D::ReadOnly, N>(world, entities, self.last_run(), world.change_tick())
        }
    }

    /// The items of `entities`, with write access, in order.
    ///
    /// # Errors
    /// As [`QueryState::get_many`].
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(1)).id(), world.spawn(Health(2)).id());
    /// let mut q = world.query::<&mut Health>();
    /// let [mut x, mut y] = q.get_many_mut(&mut world, [a, b]).unwrap();
    /// core::mem::swap(&mut x.0, &mut y.0);
    /// assert_eq!(world.get::<Health>(a).unwrap().0, 2);
    /// ```
    #[track_caller]
    pub fn get_many_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: [Entity; N],
    ) -> Result<[D::Item<'w>; N], QueryError> {
        self.update_archetypes(world);
        let this_run = world.change_tick();
        // SAFETY: `&mut World` gives exclusive access.
        unsafe { self.get_many_unchecked_manual::<D, N>(world, entities, self.last_run(), this_run) }
    }

    /// # Safety
    /// As [`QueryState::iter_unchecked_manual`].
    pub(crate) unsafe fn get_many_unchecked_manual<'w, Q, const N: usize>(
        &self,
        world: &'w World,
        entities: [Entity; N],
        last_run: Tick,
        this_run: Tick,
    ) -> Result<[Q::Item<'w>; N], QueryError>
    where
        Q: QueryData<State = D::State, Cache = D::Cache>,
    {
        check_distinct(&entities)?;
        for &entity in &entities {
            // SAFETY: the caller's access; the item is dropped at once.
            unsafe { self.get_unchecked_manual::<Q::ReadOnly>(world, entity, last_run, this_run) }?;
        }
        Ok(core::array::from_fn(|i| {
            // SAFETY: the entities are distinct, so the items never alias; each
            // matched just above and the world cannot change meanwhile.
            let item = unsafe { self.get_unchecked_manual::<Q>(world, entities[i], last_run, this_run) };
            item.unwrap_or_else(|_| unreachable!("checked above"))
        }))
    }

    /// The matching entities, in iteration order (each once, whatever the
    /// number of ways it matches).
    pub(crate) fn matching_entities(&self, world: &World, last_run: Tick, this_run: Tick) -> Vec<Entity> {
        let mut entities = Vec::new();
        // An archetype is listed once per way it matches (a `Pair<R>` term
        // matches one pair at a time): each entity is kept once.
        let mut seen = crate::util::FxHashSet::default();
        for archetype in self.matched_archetypes() {
            for &entity in world.archetypes()[archetype].entities() {
                // SAFETY: read-only fetch; the caller holds at least a shared borrow of `world`.
                let matches = unsafe { self.get_unchecked_manual::<D::ReadOnly>(world, entity, last_run, this_run) };
                if matches.is_ok() && seen.insert(entity) {
                    entities.push(entity);
                }
            }
        }
        entities
    }

    /// Every unordered `K`-tuple of distinct matching entities' read-only
    /// items, each once.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Mass(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((1..=4).map(|m| (Mass(m),)));
    /// let mut q = world.query::<&Mass>();
    /// let pairs: Vec<(u32, u32)> = q.iter_combinations::<2>(&world).map(|[a, b]| (a.0, b.0)).collect();
    /// assert_eq!(pairs.len(), 6); // 4 choose 2
    /// assert!(pairs.iter().all(|(a, b)| a != b));
    /// ```
    #[track_caller]
    pub fn iter_combinations<'w, 's, const K: usize>(
        &'s mut self,
        world: &'w World,
    ) -> QueryCombinationIter<'w, 's, D, F, K> {
        self.update_archetypes(world);
        let this_run = world.change_tick();
        let entities = self.matching_entities(world, self.last_run(), this_run);
        QueryCombinationIter::new(world, self, entities, self.last_run(), this_run)
    }

    /// Every unordered `K`-tuple of distinct matching entities' items, with
    /// write access, one tuple at a time ([`QueryCombinationIterMut::fetch_next`]).
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Charge(i32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..3).map(|_| (Charge(0),)));
    /// let mut q = world.query::<&mut Charge>();
    /// let mut pairs = q.iter_combinations_mut::<2>(&mut world);
    /// while let Some([mut a, mut b]) = pairs.fetch_next() {
    ///     a.0 += 1;
    ///     b.0 -= 1;
    /// }
    /// assert_eq!(q.iter(&world).map(|c| c.0).sum::<i32>(), 0);
    /// ```
    #[track_caller]
    pub fn iter_combinations_mut<'w, 's, const K: usize>(
        &'s mut self,
        world: &'w mut World,
    ) -> QueryCombinationIterMut<'w, 's, D, F, K> {
        self.update_archetypes(world);
        let this_run = world.change_tick();
        let entities = self.matching_entities(world, self.last_run(), this_run);
        QueryCombinationIterMut { inner: QueryCombinationIter::new(world, self, entities, self.last_run(), this_run) }
    }
}

/// The next combination of `K` indices below `len` after `indices`
/// (lexicographic); `false` when there is none.
fn advance<const K: usize>(indices: &mut [usize; K], len: usize, started: &mut bool) -> bool {
    if K == 0 || K > len {
        return false;
    }
    if !*started {
        *started = true;
        *indices = core::array::from_fn(|i| i);
        return true;
    }
    let mut i = K;
    while i > 0 {
        i -= 1;
        if indices[i] < len - K + i {
            indices[i] += 1;
            for j in i + 1..K {
                indices[j] = indices[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The iterator of [`QueryState::iter_combinations`] (and `Query::iter_combinations`).
pub struct QueryCombinationIter<'w, 's, D: QueryData, F: QueryFilter, const K: usize> {
    world: &'w World,
    state: &'s QueryState<D, F>,
    entities: Vec<Entity>,
    indices: [usize; K],
    started: bool,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's, D: QueryData, F: QueryFilter, const K: usize> QueryCombinationIter<'w, 's, D, F, K> {
    pub(crate) fn new(
        world: &'w World,
        state: &'s QueryState<D, F>,
        entities: Vec<Entity>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryCombinationIter { world, state, entities, indices: [0; K], started: false, last_run, this_run }
    }

    /// Advances and returns the current combination's entities.
    fn next_entities(&mut self) -> Option<[Entity; K]> {
        advance(&mut self.indices, self.entities.len(), &mut self.started)
            .then(|| core::array::from_fn(|i| self.entities[self.indices[i]]))
    }
}

/// `n` choose `k`, if it fits a `usize`.
fn binomial(n: usize, k: usize) -> Option<usize> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut result: u128 = 1;
    for i in 0..k {
        // Exact at each step: the product of `i + 1` consecutive integers is
        // divisible by `(i + 1)!`; in `u128`, the product before the division
        // does not overflow while the result fits a `usize`.
        result = result.checked_mul((n - i) as u128)? / (i as u128 + 1);
        if result > usize::MAX as u128 {
            return None;
        }
    }
    usize::try_from(result).ok()
}

/// How many `K`-combinations of `len` items come after `indices` (or from the
/// start, when not `started`) in lexicographic order.
fn combinations_left<const K: usize>(indices: &[usize; K], len: usize, started: bool) -> Option<usize> {
    if K == 0 || K > len {
        return Some(0);
    }
    if !started {
        return binomial(len, K);
    }
    // Those greater than `c_0 < .. < c_{K-1}`: the sum of C(len - 1 - c_i, K - i).
    indices.iter().enumerate().try_fold(0usize, |sum, (i, &c)| sum.checked_add(binomial(len - 1 - c, K - i)?))
}

impl<'w, D: QueryData, F: QueryFilter, const K: usize> Iterator for QueryCombinationIter<'w, '_, D, F, K> {
    type Item = [<D::ReadOnly as WorldQuery>::Item<'w>; K];

    /// Exact: the matching entities are listed when the iterator is made.
    fn size_hint(&self) -> (usize, Option<usize>) {
        match combinations_left(&self.indices, self.entities.len(), self.started) {
            Some(left) => (left, Some(left)),
            None => (usize::MAX, None),
        }
    }

    fn next(&mut self) -> Option<Self::Item> {
        let entities = self.next_entities()?;
        // SAFETY: read-only items; the world is borrowed shared for `'w` (or
        // exclusively by the mutable iterator, which never lends these).
        let items = unsafe {
            self.state.get_many_unchecked_manual::<D::ReadOnly, K>(self.world, entities, self.last_run, self.this_run)
        };
        Some(items.unwrap_or_else(|error| unreachable!("a matched entity stopped matching: {error}")))
    }
}

impl<D: QueryData, F: QueryFilter, const K: usize> core::fmt::Debug for QueryCombinationIter<'_, '_, D, F, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryCombinationIter").field("entities", &self.entities.len()).finish()
    }
}

/// The lending iterator of [`QueryState::iter_combinations_mut`] (and
/// `Query::iter_combinations_mut`): one tuple of `&mut` items at a time.
pub struct QueryCombinationIterMut<'w, 's, D: QueryData, F: QueryFilter, const K: usize> {
    inner: QueryCombinationIter<'w, 's, D, F, K>,
}

impl<'w, 's, D: QueryData, F: QueryFilter, const K: usize> QueryCombinationIterMut<'w, 's, D, F, K> {
    /// Wraps a combination iterator built with exclusive access to `D`.
    pub(crate) fn new(inner: QueryCombinationIter<'w, 's, D, F, K>) -> Self {
        QueryCombinationIterMut { inner }
    }

    /// The next combination's items; they borrow this iterator, so the
    /// previous tuple is gone before the next one is fetched.
    #[allow(clippy::should_implement_trait)]
    pub fn fetch_next(&mut self) -> Option<[D::Item<'_>; K]> {
        let entities = self.inner.next_entities()?;
        let inner = &self.inner;
        let world: &World = inner.world;
        // SAFETY: the iterator was built from `&mut World` (or a system's
        // exclusive access to `D`); the entities are distinct and the items
        // borrow `self` mutably, so no two tuples coexist.
        let items =
            unsafe { inner.state.get_many_unchecked_manual::<D, K>(world, entities, inner.last_run, inner.this_run) };
        Some(items.unwrap_or_else(|error| unreachable!("a matched entity stopped matching: {error}")))
    }
}

impl<D: QueryData, F: QueryFilter, const K: usize> core::fmt::Debug for QueryCombinationIterMut<'_, '_, D, F, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryCombinationIterMut").field("entities", &self.inner.entities.len()).finish()
    }
}
