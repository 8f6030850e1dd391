//! Table-at-a-time iteration of a runtime query (Flecs' `ecs_field`): each
//! [`DynTable`] is one solution on one table, and a term whose value is in a
//! column of that table gives the whole column as a typed slice, checked once
//! per table instead of once per row. This is the fast way through a runtime
//! query: the loop over a slice is the loop a typed query runs.
//!
//! A solution whose `$this` terms include sparse or toggleable components is
//! not *dense*: its rows must be checked with [`DynTable::row_matches`] (a
//! field's slice still holds every row, disabled values included). For an
//! optional (`?`) toggleable term, [`DynTable::is_set`] says whether the table
//! holds the component; whether one row's value is enabled is `DynRow::is_set`. Values found on
//! another entity (a fixed or variable source, `up`) are one value for the
//! whole table ([`DynTable::shared`]).
//!
//! Borrows in [`DynTableMut`]: [`DynTableMut::field_mut`] hands out `&mut [T]`
//! for a write term through `&self`, so the table tracks what it lent: a term
//! is lent mutably at most once, and not while it is lent shared (terms of one
//! query never alias each other: checked when it is built).

use core::any::TypeId;
use core::cell::Cell;

use super::row::{Data, FastSlot, Slot, Solution, Solutions, per_row_matches};
use crate::component::Component;
use crate::entity::{Entity, Id};
use crate::storage::{Tick, TickCell};
use crate::world::World;

/// What the readers of one table need.
#[derive(Clone, Copy)]
struct TableBase<'q> {
    world: &'q World,
    solution: &'q Solution,
    slots: &'q [Slot],
    fast: &'q [FastSlot],
    /// The rows of the table this view shows: all of them, or the one row
    /// of a solution that holds one (`$this` in an id), from `first_row`.
    entities: &'q [Entity],
    first_row: usize,
    var_names: &'q [String],
}

impl<'q> TableBase<'q> {
    fn column<T: Component>(&self, term: usize) -> Option<*mut T> {
        // SAFETY: `first_row` is a row of the column's table (below its
        // length): the offset stays in the column's allocation.
        self.fast.get(term)?.column::<T>().map(|base| unsafe { base.add(self.first_row) })
    }

    fn shared<T: Component>(&self, term: usize) -> Option<&'q T> {
        let slot = self.slots.get(term)?;
        if slot.type_id != Some(TypeId::of::<T>()) {
            return None;
        }
        match slot.data {
            // SAFETY: another entity's live `T` (type checked); the iteration
            // holds the world and writes only `$this` columns, which no other
            // term aliases (checked at build).
            Data::Value { address } => Some(unsafe { &*(address as *const T) }),
            // SAFETY: a zero-sized `T` (type checked) needs no storage.
            Data::ZeroSized => Some(unsafe { core::ptr::NonNull::<T>::dangling().as_ref() }),
            _ => None,
        }
    }

    fn var(&self, name: &str) -> Option<Entity> {
        let name = name.strip_prefix('$').unwrap_or(name);
        let index = self.var_names.iter().position(|known| known == name)?;
        self.solution.vars[index]
    }
}

/// Defines the readers shared by [`DynTable`] and [`DynTableMut`].
macro_rules! table_readers {
    ($lifetime:lifetime) => {
        /// The table's entities (`$this`); empty for a query with no `$this` term.
        pub fn entities(&self) -> &$lifetime [Entity] {
            self.base.entities
        }

        /// How many rows the table has.
        pub fn len(&self) -> usize {
            self.base.entities.len()
        }

        /// Whether the table has no rows (only for a query with no `$this` term:
        /// empty tables are never visited).
        pub fn is_empty(&self) -> bool {
            self.base.entities.is_empty()
        }

        /// Whether every row matches; otherwise (sparse or toggleable `$this`
        /// terms) check [`Self::row_matches`].
        pub fn is_dense(&self) -> bool {
            self.base.solution.per_row.is_empty()
        }

        /// Whether row `row` matches the per-row (sparse, toggleable) terms.
        pub fn row_matches(&self, row: usize) -> bool {
            self.base.entities.get(row).is_some_and(|&entity| {
                per_row_matches(self.base.world, self.base.solution, entity, self.base.first_row + row)
            })
        }

        /// The id term `term` matched in this table (for a term that did not
        /// match, its id with unbound parts as `*`); `None` if there is no such term.
        pub fn id(&self, term: usize) -> Option<Id> {
            let slot = self.base.slots.get(term)?;
            Some(slot.hit.map_or(slot.pattern, |hit| hit.id))
        }

        /// Whether term `term` matched in this table (sparse terms: per row).
        pub fn is_set(&self, term: usize) -> bool {
            self.base.slots.get(term).is_some_and(|slot| slot.hit.is_some())
        }

        /// The entity term `term` matched on when it is not the rows' own (a
        /// fixed or variable source, the ancestor `up` reached).
        pub fn source(&self, term: usize) -> Option<Entity> {
            self.base.slots.get(term)?.source
        }

        /// The entity variable `name` is bound to in this table.
        pub fn var(&self, name: &str) -> Option<Entity> {
            self.base.var(name)
        }

        /// One value for the whole table: term `term`'s `T` on another entity.
        pub fn shared<T: Component>(&self, term: usize) -> Option<&$lifetime T> {
            self.base.shared::<T>(term)
        }
    };
}

/// One table of [`DynQuery::iter_tables`](super::DynQuery::iter_tables).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// world.spawn(Health(3));
/// world.spawn(Health(4));
/// let mut q = world.query_dsl("Health").unwrap();
/// let mut total = 0;
/// for table in q.iter_tables(&world) {
///     total += table.field::<Health>(0).unwrap().iter().map(|h| h.0).sum::<u32>();
/// }
/// assert_eq!(total, 7);
/// ```
#[derive(Clone, Copy)]
pub struct DynTable<'q> {
    base: TableBase<'q>,
}

impl<'q> DynTable<'q> {
    table_readers!('q);

    /// Term `term`'s values, one per row, when they are in a column of this
    /// table and are `T`s; `None` otherwise (use [`DynTable::shared`] for
    /// values of other entities, `DynRow::get` for sparse ones).
    pub fn field<T: Component>(&self, term: usize) -> Option<&'q [T]> {
        let base = self.base.column::<T>(term)?;
        // SAFETY: the column holds `len` live `T`s (type checked); nothing
        // writes them while the world is borrowed by the iteration.
        Some(unsafe { core::slice::from_raw_parts(base, self.base.entities.len()) })
    }
}

/// One table of [`DynQuery::iter_tables_mut`](super::DynQuery::iter_tables_mut),
/// lent one at a time.
pub struct DynTableMut<'r> {
    base: TableBase<'r>,
    this_run: Tick,
    /// Terms lent mutably, and write terms lent shared (bit = term).
    lent_mut: Cell<u64>,
    lent_shared: Cell<u64>,
}

impl<'r> DynTableMut<'r> {
    table_readers!('_);

    /// Term `term`'s values as in [`DynTable::field`]; `None` also while the
    /// term is lent mutably.
    pub fn field<T: Component>(&self, term: usize) -> Option<&[T]> {
        let base = self.base.column::<T>(term)?;
        if self.base.slots[term].writes {
            let bit = 1u64.checked_shl(term as u32)?;
            if self.lent_mut.get() & bit != 0 {
                return None;
            }
            self.lent_shared.set(self.lent_shared.get() | bit);
        }
        // SAFETY: as in `DynTable::field`; a write term's column is not lent
        // mutably (checked above) while this borrow of `self` lives.
        Some(unsafe { core::slice::from_raw_parts(base, self.base.entities.len()) })
    }

    /// Term `term`'s values, mutably, for a write term (`[inout]`/`[out]`) in
    /// a column of this table; every row is marked changed now. `None` for
    /// other terms, for terms 64 and above, and if the term was already lent
    /// in this table.
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
    /// let mut q = world.query_dsl("[inout] Position, Velocity").unwrap();
    /// q.iter_tables_mut(&mut world).for_each(|table| {
    ///     let velocities = table.field::<Velocity>(1).unwrap();
    ///     let positions = table.field_mut::<Position>(0).unwrap();
    ///     for (position, velocity) in positions.iter_mut().zip(velocities) {
    ///         position.0 += velocity.0;
    ///     }
    /// });
    /// assert_eq!(world.get::<Position>(e), Some(&Position(3.0)));
    /// ```
    #[allow(clippy::mut_from_ref)]
    pub fn field_mut<T: Component>(&self, term: usize) -> Option<&mut [T]> {
        let base = self.base.column::<T>(term)?;
        if !self.base.slots[term].writes {
            return None;
        }
        let bit = 1u64.checked_shl(term as u32)?;
        if (self.lent_mut.get() | self.lent_shared.get()) & bit != 0 {
            return None;
        }
        self.lent_mut.set(self.lent_mut.get() | bit);
        let len = self.base.entities.len();
        let changed = self.base.fast[term].changed;
        let first_row = self.base.first_row;
        // SAFETY: the iteration holds the world exclusively; the column holds
        // `len` live `T`s (type checked); no other term of the query matches
        // this id (checked at build) and this term is lent once per table
        // (the bit above), so the slice is the only borrow of those values;
        // the tick cells are the same rows' own.
        unsafe {
            if changed != 0 {
                for row in first_row..first_row + len {
                    (*(changed as *mut TickCell).add(row)).set(self.this_run);
                }
            }
            Some(core::slice::from_raw_parts_mut(base, len))
        }
    }
}

/// Walks the solutions of an iteration, one table each.
struct TableCursor<'q> {
    world: &'q World,
    solutions: &'q Solutions,
    var_names: &'q [String],
    next: usize,
}

impl<'q> TableCursor<'q> {
    fn next_table(&mut self) -> Option<TableBase<'q>> {
        let solution = self.solutions.list.get(self.next)?;
        self.next += 1;
        let range = solution.start..solution.start + self.solutions.terms;
        let entities = match solution.archetype {
            Some(archetype) => self.world.archetypes()[archetype].entities(),
            None => &[],
        };
        // A solution of one row shows that row alone (else every row of a
        // table of such solutions would be visited once per solution).
        let (entities, first_row) = match solution.only_entity() {
            Some(entity) => match solution.row_of(self.world, entity) {
                Some(row) => (&entities[row..=row], row),
                None => (&entities[..0], 0),
            },
            None => (entities, 0),
        };
        Some(TableBase {
            world: self.world,
            solution,
            slots: &self.solutions.slots[range.clone()],
            fast: &self.solutions.fast[solution.fast_start..solution.fast_start + self.solutions.terms],
            entities,
            first_row,
            var_names: self.var_names,
        })
    }
}

/// The tables of [`DynQuery::iter_tables`](super::DynQuery::iter_tables).
pub struct DynTables<'q> {
    cursor: TableCursor<'q>,
}

impl<'q> DynTables<'q> {
    pub(crate) fn new(world: &'q World, solutions: &'q Solutions, var_names: &'q [String]) -> Self {
        DynTables { cursor: TableCursor { world, solutions, var_names, next: 0 } }
    }
}

impl<'q> Iterator for DynTables<'q> {
    type Item = DynTable<'q>;

    fn next(&mut self) -> Option<DynTable<'q>> {
        self.cursor.next_table().map(|base| DynTable { base })
    }
}

/// The lending iterator of [`DynQuery::iter_tables_mut`](super::DynQuery::iter_tables_mut).
pub struct DynTablesMut<'q> {
    cursor: TableCursor<'q>,
    this_run: Tick,
}

impl<'q> DynTablesMut<'q> {
    pub(crate) fn new(world: &'q World, solutions: &'q Solutions, var_names: &'q [String], this_run: Tick) -> Self {
        DynTablesMut { cursor: TableCursor { world, solutions, var_names, next: 0 }, this_run }
    }

    /// The next table; the previous one must be dropped first.
    #[allow(clippy::should_implement_trait)]
    pub fn fetch_next(&mut self) -> Option<DynTableMut<'_>> {
        let base = self.cursor.next_table()?;
        Some(DynTableMut { base, this_run: self.this_run, lent_mut: Cell::new(0), lent_shared: Cell::new(0) })
    }

    /// Calls `f` with every table.
    pub fn for_each(mut self, mut f: impl FnMut(DynTableMut<'_>)) {
        while let Some(table) = self.fetch_next() {
            f(table);
        }
    }
}
