//! The term model of runtime queries: what the query builder, the query DSL and
//! the query engine share (Flecs' terms).
//!
//! A query is a list of [`Term`]s; each term has an index (its position). A
//! term matches one id on one *source*:
//!
//! * the id is a component `first`, or a pair `(first, second)`; each half is a
//!   concrete entity, the wildcard `*` (one result per match), `_` (any, at
//!   most one result) or a variable `$name`;
//! * the source is `$this` (the row's entity, the default), a fixed entity, or a
//!   variable; with a [`Traversal`] the id may instead be found on an ancestor
//!   along a traversable relationship (`up`, `self|up`);
//! * [`TermOper`] says whether the term is required (`And`), must not match
//!   (`Not`) or may be missing (`Optional`); several [`TermMatch`]es in one term
//!   form an or-chain (`A || B`), which is still one term with one index and
//!   one source;
//! * [`TermAccess`] says how a data term is accessed (`[in]`, `[out]`,
//!   `[inout]`, `[none]`); it decides the query's borrows.
//!
//! Invariants a well-formed term keeps (checked when a query is built): an
//! or-chain's alternatives are all `And` (the chain carries the operator), `Not`
//! terms access nothing (an access written on one, as in `[out] !T`, is kept
//! for `to_dsl` and grants none, as in Flecs), and an id naming `$this` (the row's entity, bound per
//! row: `Likes($x, $this)`) is in a query with a term on `$this` or in a
//! required term that binds it (`Likes(alice, $this)`: each target is a row).

use core::fmt;

use smallvec::SmallVec;

use crate::entity::Entity;

/// One position of a term: the component or relationship (`first`), a pair's
/// target (`second`), or the source.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermRef {
    /// A concrete entity: a component, relationship, target or source.
    Entity(Entity),
    /// `*`: any entity, one result per match.
    Wildcard,
    /// `_`: any entity, at most one result per row.
    Any,
    /// `$this`: the row's own entity (a source, or in an id the row's entity
    /// as a value, bound per row).
    This,
    /// `$name`: a variable, bound by the first term that names it.
    Var(String),
}

impl TermRef {
    /// Whether this is `$name` (or `$this`).
    pub fn is_variable(&self) -> bool {
        matches!(self, TermRef::Var(_) | TermRef::This)
    }

    /// The entity, if concrete.
    pub fn entity(&self) -> Option<Entity> {
        match self {
            TermRef::Entity(entity) => Some(*entity),
            _ => None,
        }
    }
}

/// The id one alternative of a term matches: a component or a pair.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TermMatch {
    /// The component, or the pair's relationship.
    pub first: TermRef,
    /// The pair's target; `None` for a plain component.
    pub second: Option<TermRef>,
}

impl TermMatch {
    /// The component `id`.
    pub fn component(id: Entity) -> TermMatch {
        TermMatch { first: TermRef::Entity(id), second: None }
    }

    /// The pair `(first, second)`.
    pub fn pair(first: TermRef, second: TermRef) -> TermMatch {
        TermMatch { first, second: Some(second) }
    }
}

/// Whether a term must match, must not, or may.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TermOper {
    /// Required (the default).
    #[default]
    And,
    /// Must not match (`!`).
    Not,
    /// May be missing (`?`): rows are produced either way.
    Optional,
}

/// How a term's data is accessed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TermAccess {
    /// Unspecified: reads the matched id's data, on whatever source (`[in]`;
    /// tags have none). A wildcard or variable component (`(*, t)`, `$c`)
    /// reads whichever id it matched, declared as a read of any component,
    /// except where a write term of the query may match the same id: then it
    /// reads nothing (`[none]`).
    #[default]
    Default,
    /// `[in]`: read.
    In,
    /// `[out]`: write.
    Out,
    /// `[inout]`: read and write.
    InOut,
    /// `[none]`: a filter, no data.
    None,
}

impl TermAccess {
    /// Whether the term may write its data.
    pub fn writes(self) -> bool {
        matches!(self, TermAccess::Out | TermAccess::InOut)
    }
}

/// Where a term looks for its id besides (or instead of) its source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Traversal {
    /// On the source only (the default): with `$this` as the source, a
    /// component a prefab base gives through `IsA` counts too (its
    /// `on_instantiate` policy is `inherit`), as in Flecs.
    #[default]
    SelfOnly,
    /// On the source's own ids only (`Name(self)` written out, Flecs'
    /// explicit `self`): nothing inherited through `IsA` counts.
    Owned,
    /// On the source's ancestors along the relationship (`up Rel`), the source excluded.
    Up(Entity),
    /// On the source, else on its ancestors along the relationship
    /// (`self|up Rel`). As with [`Traversal::Owned`], the source's own ids
    /// only (traversal written out replaces the implicit `up IsA`, Flecs);
    /// an ancestor counts the values it inherits.
    SelfUp(Entity),
}

/// One term of a runtime query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// What the term matches; several alternatives form an or-chain.
    pub alternatives: SmallVec<[TermMatch; 1]>,
    /// Where it looks: `$this` by default.
    pub source: TermRef,
    /// Required, negated or optional.
    pub oper: TermOper,
    /// How its data is accessed.
    pub access: TermAccess,
    /// Whether to look up a relationship from the source.
    pub traversal: Traversal,
}

impl Term {
    /// A required term on `$this` matching `what`.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// use ecs::query::{Term, TermMatch, TermOper, TermRef};
    /// let position = Entity::from_raw(10, 0);
    /// let term = Term::new(TermMatch::component(position));
    /// assert_eq!(term.source, TermRef::This);
    /// assert_eq!(term.oper, TermOper::And);
    /// ```
    pub fn new(what: TermMatch) -> Term {
        Term {
            alternatives: smallvec::smallvec![what],
            source: TermRef::This,
            oper: TermOper::And,
            access: TermAccess::Default,
            traversal: Traversal::SelfOnly,
        }
    }

    /// The first (for a term that is no or-chain, the only) alternative.
    pub fn first_match(&self) -> &TermMatch {
        &self.alternatives[0]
    }

    /// Whether the term is an or-chain (`A || B`).
    pub fn is_or(&self) -> bool {
        self.alternatives.len() > 1
    }

    /// The term with `source`.
    pub fn with_source(mut self, source: TermRef) -> Term {
        self.source = source;
        self
    }

    /// The term with `oper`.
    pub fn with_oper(mut self, oper: TermOper) -> Term {
        self.oper = oper;
        self
    }

    /// The term with `access`.
    pub fn with_access(mut self, access: TermAccess) -> Term {
        self.access = access;
        self
    }

    /// The term with `traversal`.
    pub fn with_traversal(mut self, traversal: Traversal) -> Term {
        self.traversal = traversal;
        self
    }

    /// The variables the term names (`$this` excluded), in order, repeats kept.
    pub fn variables(&self) -> impl Iterator<Item = &str> + '_ {
        let halves = self
            .alternatives
            .iter()
            .flat_map(|alternative| core::iter::once(&alternative.first).chain(alternative.second.as_ref()));
        halves.chain(core::iter::once(&self.source)).filter_map(|reference| match reference {
            TermRef::Var(name) => Some(name.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for TermRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TermRef::Entity(entity) => write!(f, "{entity:?}"),
            TermRef::Wildcard => f.write_str("*"),
            TermRef::Any => f.write_str("_"),
            TermRef::This => f.write_str("$this"),
            TermRef::Var(name) => write!(f, "${name}"),
        }
    }
}
