//! Propagation down a hierarchy: "write my value from my parent's value"
//! ([`QueryState::propagate`]), the classic transform propagation, without
//! aliasing.
//!
//! `(&mut Position, Up<ChildOf, &Position>)` is rejected at compile time: the
//! ancestor is also a row of the query, so its `Position` would be read and
//! written through two live borrows. Propagation does the same work in an order
//! and with lifetimes that make it sound:
//!
//! * the matched tables are visited **breadth-first** by their depth along the
//!   relationship `R` (roots first), so a parent's value is final (already
//!   written by this pass) before any of its children is visited;
//! * each call of the closure gets the row's own item and the nearest
//!   ancestor's `&T`, both with a lifetime the closure cannot keep past the call
//!   (the closure is generic over it), so no two borrows of one value are ever
//!   alive at once: the ancestor's own `Mut<T>` ended with its own call;
//! * an ancestor is always another entity than the row, except in a cycle of a
//!   relationship that allows cycles, where a row can reach itself: such a row
//!   gets `None` instead of its own value.
//!
//! Borrows: the query's own access (`D`, `F`) on the rows' entities, plus a read
//! of `T` on **any** entity (the ancestors), in turn with the rows' own writes
//! (`AccessKind::ReadOtherInTurn`). `QueryState::propagate` takes `&mut World`,
//! so nothing else can be borrowed meanwhile; the `Propagate` system param
//! declares that read, so other parameters and systems that write `T` conflict
//! with it whatever their filters.

use core::ptr::NonNull;

use smallvec::SmallVec;

use super::Relationship;
use super::query::find_up_with_source;
use crate::component::Component;
use crate::entity::Entity;
use crate::query::{ArchetypeDepths, QueryData, QueryFilter, QueryState, union_rows_pass};
use crate::storage::Tick;
use crate::world::World;

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// Runs `f` on every row, parents before children along the relationship
    /// `R`, handing it the row's item and the `T` of the row's nearest ancestor
    /// along `R` that has one (`None` for roots and rows without such an
    /// ancestor). The ancestor's `T` is already updated when the ancestor is a
    /// row of this query: this is transform propagation, written safely.
    ///
    /// The items live only for one call of `f` (it is generic over their
    /// lifetime), so a row's `Mut<T>` is gone before any child reads that `T`.
    /// A union relationship (`#[relationship(union, traversable)]`) keeps
    /// each row's parent in its row: its rows are ordered one by one by their
    /// own depth, and each finds its own ancestor.
    ///
    /// Otherwise ancestors are found per table, as [`Up`](super::Up) finds them: with an
    /// exclusive relationship such as [`ChildOf`](super::ChildOf), one walk per
    /// parent.
    ///
    /// # Panics
    /// Panics if `world` is not the world this state was built for.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Local(f32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Global(f32);
    /// let mut world = World::new();
    /// let root = world.spawn((Local(1.0), Global(0.0))).id();
    /// let child = world.spawn((Local(10.0), Global(0.0))).add_pair::<ChildOf>(root).id();
    /// let grandchild = world.spawn((Local(100.0), Global(0.0))).add_pair::<ChildOf>(child).id();
    ///
    /// let mut transforms = world.query::<(&Local, &mut Global)>();
    /// transforms.propagate::<ChildOf, Global>(&mut world, |(local, mut global), parent| {
    ///     global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    /// });
    /// assert_eq!(world.get::<Global>(grandchild), Some(&Global(111.0)));
    /// assert_eq!(world.get::<Global>(child), Some(&Global(11.0)));
    /// assert_eq!(world.get::<Global>(root), Some(&Global(1.0)));
    /// ```
    #[track_caller]
    pub fn propagate<R, T>(&mut self, world: &mut World, f: impl for<'a> FnMut(D::Item<'a>, Option<&'a T>))
    where
        R: Relationship,
        T: Component,
    {
        let (last_run, this_run) = self.begin_run(world);
        // SAFETY: `&mut World` gives this run exclusive access to the world.
        unsafe { self.propagate_unchecked_manual::<R, T>(world, last_run, this_run, f) }
    }

    /// [`QueryState::propagate`] on an up-to-date state with given ticks (the
    /// `Propagate` system param's run).
    ///
    /// # Safety
    /// The matches are up to date with `world`, and the caller has `D`'s and
    /// `F`'s access on the matched rows and a shared access to `T` on every
    /// other entity for the duration of the call.
    pub(crate) unsafe fn propagate_unchecked_manual<R, T>(
        &self,
        world: &World,
        last_run: Tick,
        this_run: Tick,
        mut f: impl for<'a> FnMut(D::Item<'a>, Option<&'a T>),
    ) where
        R: Relationship,
        T: Component,
    {
        let (Some(relationship), Some(component)) = (world.component_id::<R>(), world.component_id::<T>()) else {
            // Nothing has a pair of `R` or a `T`: every row is a root.
            // SAFETY: forwarded to the caller.
            let rows = unsafe { self.iter_unchecked_manual::<D>(world, last_run, this_run) };
            rows.for_each(|item| f(item, None));
            return;
        };
        let (matched, data_state, filter_state) = self.parts();
        // What to visit, in order: (depth, matched table, row or `ALL_ROWS`).
        // A union relationship's rows in one table have different parents, so
        // different depths: each row is placed on its own.
        const ALL_ROWS: usize = usize::MAX;
        let mut order: Vec<(u32, usize, usize)> = Vec::with_capacity(matched.len());
        let mut depths = ArchetypeDepths::new(world, relationship.index());
        let mut row_depths = RowDepths::new(world, relationship.index());
        for (i, matched) in matched.iter().enumerate() {
            let archetype = &world.archetypes()[matched.archetype];
            if R::TRAITS.union && world.holds_union_of(archetype, relationship.index()) {
                order.extend(archetype.entities().iter().enumerate().map(|(row, &e)| (row_depths.depth(e), i, row)));
            } else if R::TRAITS.union {
                // No pair of `R`: every row is a root.
                order.push((0, i, ALL_ROWS));
            } else {
                order.push((depths.depth(matched.archetype), i, ALL_ROWS));
            }
        }
        order.sort_unstable();

        let mut data = D::init_fetch(world, data_state, last_run, this_run);
        let mut filter = F::init_fetch(world, filter_state, last_run, this_run);
        let mut current: Option<usize> = None;
        let mut union_rows: SmallVec<[(&[crate::archetype::UnionCell], Entity); 1]> = SmallVec::new();
        for (_, i, only_row) in order {
            let matched = &matched[i];
            let archetype = &world.archetypes()[matched.archetype];
            if archetype.is_empty() {
                continue;
            }
            if current != Some(i) {
                current = Some(i);
                // SAFETY: the caches were produced by `match_archetype` for this
                // archetype, which is alive (the caller keeps the matches up to date).
                unsafe {
                    D::set_archetype(&mut data, &matched.data, archetype);
                    F::set_archetype(&mut filter, &matched.filter, archetype);
                }
                union_rows = self.union_filters().iter().map(|filter| filter.rows(archetype)).collect();
            }
            let (rows, ancestor) = if only_row == ALL_ROWS {
                let ancestor: Option<(Entity, NonNull<T>)> =
                    find_up_with_source(world, relationship, component, archetype, None);
                (0..archetype.len(), ancestor)
            } else {
                (only_row..only_row + 1, find_up_with_source(world, relationship, component, archetype, Some(only_row)))
            };
            for row in rows {
                let entity = archetype.entities()[row];
                // SAFETY: `row` is a row of the current table.
                let passes = (matched.rows_all_pass::<D, F>()
                    || unsafe { D::matches_row(&data, entity, row) && F::matches_row(&filter, entity, row) })
                    && union_rows_pass(&union_rows, row)
                    && matched.only_entity.is_none_or(|only| only == entity);
                if !passes {
                    continue;
                }
                // SAFETY: the caller gives this run `D`'s access; each row is
                // fetched once and its item dies with the call of `f` (which is
                // generic over the lifetime), so no item of an earlier row is
                // alive. The ancestor's `T` is read through a shared reference
                // that also dies with the call; the ancestor is another entity
                // than the row (checked: a cycle could lead back to it), so the
                // row's own item never aliases it.
                unsafe {
                    let parent = match ancestor {
                        Some((source, value)) if source != entity => Some(value.as_ref()),
                        _ => None,
                    };
                    f(D::fetch(&mut data, entity, row), parent);
                }
            }
        }
    }
}

/// Depths of entities along a union relationship (whose targets are per
/// row): an entity without a target is at depth 0, one with a target one
/// below it. A chain that loops (a union that allows cycles) is cut at the
/// number of alive entities.
struct RowDepths<'w> {
    world: &'w World,
    relationship: u32,
    known: crate::util::FxHashMap<Entity, u32>,
}

impl<'w> RowDepths<'w> {
    fn new(world: &'w World, relationship: u32) -> Self {
        RowDepths { world, relationship, known: crate::util::FxHashMap::default() }
    }

    /// The depth of `entity`.
    fn depth(&mut self, entity: Entity) -> u32 {
        let mut chain: SmallVec<[Entity; 8]> = SmallVec::new();
        let mut current = entity;
        let limit = self.world.entities().alive_count();
        let base = loop {
            if let Some(&known) = self.known.get(&current) {
                break known;
            }
            if chain.len() > limit {
                break 0;
            }
            chain.push(current);
            match self.world.targets_of(current, Some(self.relationship)).next() {
                Some(parent) => current = parent,
                None => {
                    chain.pop();
                    self.known.insert(current, 0);
                    break 0;
                }
            }
        };
        let mut depth = base;
        while let Some(node) = chain.pop() {
            depth += 1;
            self.known.insert(node, depth);
        }
        self.known[&entity]
    }
}
