//! [`QueryBuilder`]: a runtime query term by term (Flecs' query builder).
//!
//! The builder holds no borrow of the world, so ids can be registered while
//! building (`.write(world.register_component::<Velocity>())`). Every method
//! that adds a term gives it the next index; methods that modify "the last
//! term" (`up`, `self_up`, `source`, `optional`, `or`...) change the one added
//! last and do nothing when there is none yet (the build then fails with
//! [`QueryBuildError::Empty`]).

use super::{DynQuery, QueryBuildError};
use crate::entity::Entity;
use crate::query::dsl::{DslError, parse_query};
use crate::query::term::{Term, TermAccess, TermMatch, TermOper, TermRef, Traversal};
use crate::world::World;

/// Builds a [`DynQuery`]. Start with [`World::query_builder`].
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Relationship)]
/// struct Likes;
/// let mut world = World::new();
/// let bob = world.spawn_empty().id();
/// let e = world.spawn((Position(0.0), Velocity(1.0))).id();
/// world.entity_mut(e).add_pair::<Likes>(bob);
/// world.spawn((Position(0.0), Velocity(1.0), Enemy));
/// let pos = world.register_component::<Position>();
/// let likes = world.register_component::<Likes>();
/// let mut q = world
///     .query_builder()
///     .read(pos)
///     .write(world.register_component::<Velocity>())
///     .without(world.register_component::<Enemy>())
///     .pair(likes, Entity::WILDCARD)
///     .build()
///     .unwrap();
/// let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.pair_target(3))).collect();
/// assert_eq!(rows, [(e, bob)]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct QueryBuilder {
    terms: Vec<Term>,
}

/// `Entity::WILDCARD`/`Entity::ANY` as the matching [`TermRef`].
fn reference(entity: Entity) -> TermRef {
    match entity {
        Entity::WILDCARD => TermRef::Wildcard,
        Entity::ANY => TermRef::Any,
        entity => TermRef::Entity(entity),
    }
}

impl QueryBuilder {
    /// An empty builder (no world needed; see [`World::query_builder`]).
    pub fn new() -> QueryBuilder {
        QueryBuilder::default()
    }

    /// Adds `term` as is.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::query::{QueryBuilder, Term, TermMatch, TermOper};
    /// let tag = Entity::from_raw(100, 0);
    /// let q = QueryBuilder::new().term(Term::new(TermMatch::component(tag)).with_oper(TermOper::Optional)).build();
    /// assert!(q.is_ok());
    /// ```
    pub fn term(mut self, term: Term) -> Self {
        self.terms.push(term);
        self
    }

    fn component(self, id: Entity, access: TermAccess) -> Self {
        self.term(Term::new(TermMatch { first: reference(id), second: None }).with_access(access))
    }

    fn last(mut self, change: impl FnOnce(&mut Term)) -> Self {
        if let Some(term) = self.terms.last_mut() {
            change(term);
        }
        self
    }

    /// Adds a term reading component `id` (`[in] Id`).
    pub fn read(self, id: Entity) -> Self {
        self.component(id, TermAccess::In)
    }

    /// Adds a term writing component `id` (`[inout] Id`): rows give
    /// [`DynRowMut::get_mut`](super::DynRowMut::get_mut) in `iter_mut`.
    pub fn write(self, id: Entity) -> Self {
        self.component(id, TermAccess::InOut)
    }

    /// Adds a filter term: `id` required, no data (`[none] Id`).
    pub fn with(self, id: Entity) -> Self {
        self.component(id, TermAccess::None)
    }

    /// Adds a term excluding `id` (`!Id`).
    pub fn without(self, id: Entity) -> Self {
        self.component(id, TermAccess::Default).last(|term| term.oper = TermOper::Not)
    }

    /// Adds an optional read of `id` (`?Id`): rows come either way,
    /// `row.is_set(term)` tells.
    pub fn optional(self, id: Entity) -> Self {
        self.component(id, TermAccess::Default).last(|term| term.oper = TermOper::Optional)
    }

    /// Adds the pair term `(relationship, target)`; either may be
    /// [`Entity::WILDCARD`] (`*`, one row per match) or [`Entity::ANY`] (`_`).
    /// Reads the pair's value if it has one.
    pub fn pair(self, relationship: Entity, target: Entity) -> Self {
        self.term(Term::new(TermMatch::pair(reference(relationship), reference(target))))
    }

    /// Adds the pair term `(relationship, $variable)`.
    pub fn pair_var(self, relationship: Entity, variable: &str) -> Self {
        self.term(Term::new(TermMatch::pair(reference(relationship), TermRef::Var(variable.to_owned()))))
    }

    /// Makes the last term an or-chain: it also matches `id` (the first
    /// alternative that matches wins).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct A;
    /// #[derive(Component)]
    /// struct B;
    /// let mut world = World::new();
    /// world.spawn(A);
    /// world.spawn(B);
    /// let (a, b) = (world.register_component::<A>(), world.register_component::<B>());
    /// let mut q = world.query_builder().with(a).or(b).build().unwrap();
    /// assert_eq!(q.iter(&world).count(), 2);
    /// ```
    pub fn or(self, id: Entity) -> Self {
        self.last(|term| term.alternatives.push(TermMatch { first: reference(id), second: None }))
    }

    /// Makes the last term optional (`?`).
    pub fn optional_last(self) -> Self {
        self.last(|term| term.oper = TermOper::Optional)
    }

    /// Negates the last term (`!`).
    pub fn negate_last(self) -> Self {
        self.last(|term| term.oper = TermOper::Not)
    }

    /// Sets the last term's access.
    pub fn access(self, access: TermAccess) -> Self {
        self.last(|term| term.access = access)
    }

    /// Makes the last term look on the ancestors along `relationship` only
    /// (`up Rel`): the nearest ancestor that has it.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Team(u8);
    /// let mut world = World::new();
    /// let parent = world.spawn(Team(7)).id();
    /// let child = world.spawn(ChildOf.pair(parent)).id();
    /// let (team, child_of) = (world.register_component::<Team>(), world.register_component::<ChildOf>());
    /// let mut q = world.query_builder().read(team).up(child_of).build().unwrap();
    /// let row = q.iter(&world).next().unwrap();
    /// assert_eq!((row.entity(), row.source(0)), (child, parent));
    /// assert_eq!(row.get::<Team>(0), Some(&Team(7)));
    /// ```
    pub fn up(self, relationship: Entity) -> Self {
        self.last(|term| term.traversal = Traversal::Up(relationship))
    }

    /// Makes the last term look on its source, else on the ancestors along
    /// `relationship` (`self|up Rel`).
    pub fn self_up(self, relationship: Entity) -> Self {
        self.last(|term| term.traversal = Traversal::SelfUp(relationship))
    }

    /// Makes the last term match only ids its source owns (`Name(self)`,
    /// Flecs' explicit `self`): a value inherited from a prefab through
    /// `IsA` does not count.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Speed(f32);
    /// let mut world = World::new();
    /// let ship = world.spawn((Prefab, Speed(10.0))).id();
    /// let instance = world.instantiate(ship);
    /// let owner = world.spawn(Speed(3.0)).id();
    /// let speed = world.register_component::<Speed>();
    /// let mut inherited = world.query_builder().read(speed).build().unwrap();
    /// let mut owned = world.query_builder().read(speed).owned().build().unwrap();
    /// let rows = |q: &mut ecs::query::DynQuery, world: &World| q.iter(world).map(|row| row.entity()).collect::<Vec<_>>();
    /// assert_eq!(rows(&mut inherited, &world).len(), 2); // the instance reads the prefab's
    /// assert_eq!(rows(&mut owned, &world), vec![owner]);
    /// assert!(owned.to_dsl().ends_with("(self)"));
    /// ```
    pub fn owned(self) -> Self {
        self.last(|term| term.traversal = Traversal::Owned)
    }

    /// Makes the last term look on `entity` instead of the row's entity.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Gravity(f32);
    /// #[derive(Component)]
    /// struct Body;
    /// let mut world = World::new();
    /// let config = world.spawn(Gravity(9.8)).id();
    /// world.spawn(Body);
    /// let (gravity, body) = (world.register_component::<Gravity>(), world.register_component::<Body>());
    /// let mut q = world.query_builder().with(body).read(gravity).source(config).build().unwrap();
    /// assert_eq!(q.iter(&world).next().unwrap().get::<Gravity>(1), Some(&Gravity(9.8)));
    /// ```
    pub fn source(self, entity: Entity) -> Self {
        self.last(|term| term.source = TermRef::Entity(entity))
    }

    /// Makes the last term look on the entity of variable `name` (without `$`).
    pub fn source_var(self, name: &str) -> Self {
        self.last(|term| term.source = TermRef::Var(name.to_owned()))
    }

    /// The terms so far.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// A cached query: matched archetypes are stored and new ones matched
    /// incrementally.
    pub fn build(self) -> Result<DynQuery, QueryBuildError> {
        DynQuery::new(self.terms, true)
    }

    /// The same query without a cache: each iteration walks the component index.
    pub fn build_uncached(self) -> Result<DynQuery, QueryBuildError> {
        DynQuery::new(self.terms, false)
    }

    /// [`QueryBuilder::build`], with `world`'s component names in errors, and
    /// checked against `world` as the DSL checks its queries: `up` along a
    /// relationship that is not traversable is a
    /// [`QueryBuildError::InvalidTerm`].
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// let position = world.register_component::<Position>();
    /// let error = world.query_builder().write(position).read(position).build_in(&world).unwrap_err();
    /// assert!(error.to_string().contains("Position"), "{error}");
    /// ```
    pub fn build_in(self, world: &World) -> Result<DynQuery, QueryBuildError> {
        DynQuery::new_in(self.terms, true, world)
    }
}

impl World {
    /// A [`QueryBuilder`] for a runtime query (it does not borrow the world).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// let position = world.register_component::<Position>();
    /// let mut q = world.query_builder().read(position).build().unwrap();
    /// assert_eq!(q.iter(&world).count(), 1);
    /// ```
    pub fn query_builder(&self) -> QueryBuilder {
        QueryBuilder { terms: Vec::new() }
    }

    /// A cached runtime query written in the query DSL (the Flecs query
    /// language subset of [`crate::query::parse_query`]); names
    /// resolve with [`World::lookup`]. Any text gives a query or a
    /// [`DslError`] with the byte offset of what is wrong, never a panic.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Velocity(f32);
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let bob = world.spawn(Name::new("Bob")).id();
    /// let e = world.spawn((Position(0.0), Velocity(1.0))).id();
    /// world.entity_mut(e).add_pair::<Likes>(bob);
    /// world.register_component::<Likes>();
    /// let mut q = world.query_dsl("Position, [in] Velocity, (Likes, *)").unwrap();
    /// let row = q.iter(&world).next().unwrap();
    /// assert_eq!((row.entity(), row.pair_target(2)), (e, bob));
    /// assert_eq!(q.to_dsl(), "Position, [in] Velocity, (Likes, *)");
    /// let error = world.query_dsl("Position, Nope").unwrap_err();
    /// assert_eq!(error.offset, 10);
    /// ```
    pub fn query_dsl(&self, text: &str) -> Result<DynQuery, DslError> {
        self.query_dsl_with(text, true)
    }

    /// [`World::query_dsl`] without a cache (each iteration walks the component index).
    pub fn query_dsl_uncached(&self, text: &str) -> Result<DynQuery, DslError> {
        self.query_dsl_with(text, false)
    }

    fn query_dsl_with(&self, text: &str, cached: bool) -> Result<DynQuery, DslError> {
        let terms = parse_query(text, self)?;
        DynQuery::new_in(terms, cached, self).map_err(|error| {
            let term = match &error {
                QueryBuildError::Empty => 0,
                QueryBuildError::Aliasing { writer, .. } => *writer,
                QueryBuildError::WriteNotOnThis { term }
                | QueryBuildError::UnboundVariable { term, .. }
                | QueryBuildError::InvalidTerm { term, .. }
                | QueryBuildError::WritesInheritedOnPrefabs { term, .. } => *term,
            };
            DslError { offset: term_offset(text, term), message: error.to_string() }
        })
    }
}

/// The byte offset where term `index` of a DSL text starts (terms are
/// separated by commas outside parentheses and brackets).
fn term_offset(text: &str, index: usize) -> usize {
    let mut depth = 0usize;
    let mut term = 0;
    let mut start = 0;
    for (offset, character) in text.char_indices() {
        match character {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                term += 1;
                start = offset + 1;
                if term > index {
                    break;
                }
            }
            _ => {}
        }
        if term == index && offset >= start && !character.is_whitespace() && character != ',' {
            return offset;
        }
    }
    start.min(text.len())
}
