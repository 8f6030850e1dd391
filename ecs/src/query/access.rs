//! [`QueryAccess`]: which components a query reads and writes.
//!
//! A query that writes a component it also reads (or writes twice) would hand
//! out aliasing references, so `QueryState::new` refuses it. The const
//! [`AccessSet`](super::AccessSet) turns this into a compile error for every
//! typed query; this runtime check is the safety net for hand-written terms.
//!
//! The access also records which entities the query can match, as a filter in
//! disjunctive normal form (a list of clauses, each a set of required and a set
//! of excluded components). Two accesses whose every pair of clauses contradicts
//! (one requires what the other excludes) are *disjoint*: no entity matches both,
//! so they never alias even if both write the same component. `Or` filters are
//! modelled exactly, which is why systems run this check at initialization for
//! what the const check leaves undecided.
//!
//! Reads of *other* entities' components (`Up<R, &T>` reads an ancestor's `T`,
//! `Fixed<&T>` a fixed source's) are recorded apart ([`QueryAccess::reads_other`]):
//! the filter describes the rows' own entities only, so such a read conflicts
//! with any other query's write of `T`, disjoint filters or not.

use smallvec::SmallVec;

use crate::entity::Entity;

/// The generation of the pseudo-entities that stand for a relationship's
/// pair values in an access (`relation::pair_access_key`): the largest
/// generation, which no component entity has.
pub(crate) const PAIR_ACCESS_GENERATION: u32 = 0x7FFF_FFFF;

/// The relationship whose pair values the access key `key` stands for, if it
/// is such a key (by index: the relationship's entity has generation 0).
#[inline]
pub(crate) fn pair_access_relationship(key: Entity) -> Option<u32> {
    (key.generation() == PAIR_ACCESS_GENERATION).then_some(key.index())
}

/// The reads and writes of one query.
///
/// # Examples
/// ```
/// use ecs::entity::Entity;
/// use ecs::query::QueryAccess;
/// let (a, b) = (Entity::from_raw(5, 0), Entity::from_raw(6, 0));
/// let mut access = QueryAccess::default();
/// access.add_read(a);
/// access.add_write(b);
/// assert_eq!(access.conflict(), None);
/// access.add_read(b);
/// assert_eq!(access.conflict(), Some(b));
/// ```
#[derive(Clone, Debug)]
pub struct QueryAccess {
    reads: SmallVec<[Entity; 4]>,
    writes: SmallVec<[Entity; 4]>,
    tick_reads: SmallVec<[Entity; 2]>,
    reads_other: SmallVec<[Entity; 1]>,
    /// Reads whichever component a term matches (a runtime term whose
    /// component is a wildcard or a variable): conflicts with any write.
    reads_all: bool,
    conflict: Option<Entity>,
    /// Disjunctive normal form of what the query matches; one empty clause: anything.
    filter: SmallVec<[FilterClause; 1]>,
}

/// One conjunction of a query's filter: every `with` present, every `without` absent.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct FilterClause {
    /// Components that must be present.
    pub with: SmallVec<[Entity; 4]>,
    /// Components that must be absent.
    pub without: SmallVec<[Entity; 2]>,
}

impl FilterClause {
    /// Whether no entity can satisfy both clauses.
    pub fn contradicts(&self, other: &FilterClause) -> bool {
        self.with.iter().any(|id| other.without.contains(id)) || other.with.iter().any(|id| self.without.contains(id))
    }
}

impl Default for QueryAccess {
    fn default() -> Self {
        QueryAccess {
            reads: SmallVec::new(),
            writes: SmallVec::new(),
            tick_reads: SmallVec::new(),
            reads_other: SmallVec::new(),
            reads_all: false,
            conflict: None,
            filter: smallvec::smallvec![FilterClause::default()],
        }
    }
}

impl QueryAccess {
    /// Records a read of `component`.
    pub fn add_read(&mut self, component: Entity) {
        if self.writes.contains(&component) {
            self.conflict.get_or_insert(component);
        }
        self.reads.push(component);
    }

    /// Records a read of `component` on entities other than the rows' own (an
    /// ancestor, a fixed source). Inside the query it conflicts with a write of
    /// `component` like any read; against other queries it conflicts with their
    /// writes of `component` whatever the filters (see [`QueryAccess::conflict_with`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// use ecs::query::QueryAccess;
    /// let (faction, enemy) = (Entity::from_raw(5, 0), Entity::from_raw(6, 0));
    /// let mut writer = QueryAccess::default();
    /// writer.add_write(faction);
    /// writer.add_with(enemy);
    /// let mut ancestors = QueryAccess::default();
    /// ancestors.add_read_other(faction);
    /// ancestors.add_without(enemy);
    /// assert!(writer.is_disjoint(&ancestors)); // the rows differ...
    /// assert_eq!(writer.conflict_with(&ancestors), Some(faction)); // ...the values read need not
    /// ```
    pub fn add_read_other(&mut self, component: Entity) {
        self.add_read(component);
        self.reads_other.push(component);
    }

    /// Records a read of `component` on other entities than the rows' own that
    /// happens **in turn** with this query's own writes, never while a row's
    /// own item is alive (propagation down a hierarchy). It conflicts with
    /// other queries' writes of `component` like [`QueryAccess::add_read_other`],
    /// but not with this query's writes.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// use ecs::query::QueryAccess;
    /// let global = Entity::from_raw(5, 0);
    /// let mut propagation = QueryAccess::default();
    /// propagation.add_write(global);
    /// propagation.add_read_other_in_turn(global);
    /// assert_eq!(propagation.conflict(), None);
    /// let mut other = QueryAccess::default();
    /// other.add_write(global);
    /// assert_eq!(propagation.conflict_with(&other), Some(global));
    /// ```
    pub fn add_read_other_in_turn(&mut self, component: Entity) {
        self.reads_other.push(component);
    }

    /// The components read on other entities than the rows' own.
    pub fn reads_other(&self) -> &[Entity] {
        &self.reads_other
    }

    /// Records a read of any component, on any entity: a runtime term whose
    /// component is a wildcard or a variable (`(*, t)`, `$c`) reads whichever
    /// it matches. It conflicts with every write of another query, whatever
    /// the filters; within one query, the terms themselves are checked.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// use ecs::query::QueryAccess;
    /// let mut reader = QueryAccess::default();
    /// reader.add_read_all();
    /// let mut writer = QueryAccess::default();
    /// writer.add_write(Entity::from_raw(5, 0));
    /// assert!(reader.reads_all());
    /// assert_eq!(reader.conflict_with(&writer), Some(Entity::from_raw(5, 0)));
    /// ```
    pub fn add_read_all(&mut self) {
        self.reads_all = true;
    }

    /// Whether the query reads any component it matches ([`QueryAccess::add_read_all`]).
    pub fn reads_all(&self) -> bool {
        self.reads_all
    }

    /// Records a write of `component`.
    pub fn add_write(&mut self, component: Entity) {
        if self.writes.contains(&component) || self.reads.contains(&component) {
            self.conflict.get_or_insert(component);
        }
        self.writes.push(component);
    }

    /// Records that a filter reads `component`'s change ticks (`Added`/`Changed`).
    /// Within one query this never conflicts: the filter reads a row's ticks
    /// before the row is fetched, so even `(&mut T, Changed<T>)` hands out no
    /// aliasing borrow. Other systems writing `component` do conflict with it.
    pub fn add_tick_read(&mut self, component: Entity) {
        self.tick_reads.push(component);
    }

    /// The components whose change ticks are read by filters.
    pub fn tick_reads(&self) -> &[Entity] {
        &self.tick_reads
    }

    /// The first component both written and otherwise accessed, if any.
    pub fn conflict(&self) -> Option<Entity> {
        self.conflict
    }

    /// The components read.
    pub fn reads(&self) -> &[Entity] {
        &self.reads
    }

    /// The components written.
    pub fn writes(&self) -> &[Entity] {
        &self.writes
    }

    /// Records that matched entities must have `component`.
    pub fn add_with(&mut self, component: Entity) {
        for clause in &mut self.filter {
            if !clause.with.contains(&component) {
                clause.with.push(component);
            }
        }
    }

    /// Records that matched entities must lack `component`.
    pub fn add_without(&mut self, component: Entity) {
        for clause in &mut self.filter {
            if !clause.without.contains(&component) {
                clause.without.push(component);
            }
        }
    }

    /// Adds `other`'s reads, writes and tick reads, but not its filter (for
    /// `Option<Q>`, which matches whether or not `Q` does).
    pub fn extend_borrows(&mut self, other: &QueryAccess) {
        for &component in &other.reads {
            self.add_read(component);
        }
        self.reads_other.extend_from_slice(&other.reads_other);
        self.reads_all |= other.reads_all;
        for &component in &other.writes {
            self.add_write(component);
        }
        self.tick_reads.extend_from_slice(&other.tick_reads);
        if let Some(component) = other.conflict {
            self.conflict.get_or_insert(component);
        }
    }

    /// Adds the borrows of every branch and restricts the filter to entities that
    /// match at least one branch (for `Or<(..)>`).
    pub fn add_any_of(&mut self, branches: &[QueryAccess]) {
        let mut any: SmallVec<[FilterClause; 1]> = SmallVec::new();
        for branch in branches {
            self.extend_borrows(branch);
            any.extend(branch.filter.iter().cloned());
        }
        let mut combined = SmallVec::new();
        for clause in &self.filter {
            for alternative in &any {
                let mut both = clause.clone();
                for id in &alternative.with {
                    if !both.with.contains(id) {
                        both.with.push(*id);
                    }
                }
                for id in &alternative.without {
                    if !both.without.contains(id) {
                        both.without.push(*id);
                    }
                }
                combined.push(both);
            }
        }
        self.filter = combined;
    }

    /// The filter's clauses (disjunctive normal form).
    pub fn filter(&self) -> &[FilterClause] {
        &self.filter
    }

    /// Whether no entity can match both accesses.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// use ecs::query::QueryAccess;
    /// let (enemy, position) = (Entity::from_raw(5, 0), Entity::from_raw(6, 0));
    /// let mut enemies = QueryAccess::default();
    /// enemies.add_write(position);
    /// enemies.add_with(enemy);
    /// let mut others = QueryAccess::default();
    /// others.add_write(position);
    /// assert_eq!(enemies.conflict_with(&others), Some(position));
    /// others.add_without(enemy);
    /// assert!(enemies.is_disjoint(&others));
    /// assert_eq!(enemies.conflict_with(&others), None);
    /// ```
    pub fn is_disjoint(&self, other: &QueryAccess) -> bool {
        self.filter.iter().all(|mine| other.filter.iter().all(|theirs| mine.contradicts(theirs)))
    }

    /// The first component by which two queries of one system alias: one writes
    /// what the other reads on other entities (whatever the filters), or one
    /// writes what the other reads, writes or reads the ticks of and no entity
    /// is excluded from one of them by the other's filter.
    pub fn conflict_with(&self, other: &QueryAccess) -> Option<Entity> {
        let read_elsewhere = self
            .writes
            .iter()
            .find(|id| other.reads_other.contains(id))
            .or_else(|| other.writes.iter().find(|id| self.reads_other.contains(id)));
        if let Some(&component) = read_elsewhere {
            return Some(component);
        }
        let read_anything = (if other.reads_all { self.writes.first() } else { None })
            .or_else(|| if self.reads_all { other.writes.first() } else { None });
        if let Some(&component) = read_anything {
            return Some(component);
        }
        let touches = |access: &QueryAccess, id: &Entity| {
            access.reads.contains(id) || access.writes.contains(id) || access.tick_reads.contains(id)
        };
        let conflict = self
            .writes
            .iter()
            .find(|id| touches(other, id))
            .or_else(|| other.writes.iter().find(|id| touches(self, id)))
            .copied()?;
        (!self.is_disjoint(other)).then_some(conflict)
    }
}
