//! The query DSL: a subset of the Flecs query language, parsed into and printed
//! from the [`Term`]s of the term model (`query::term`).
//!
//! This is the pure language layer: [`parse_query`] turns text into terms,
//! [`print_query`] turns terms into canonical text. Names are resolved through
//! [`DslNames`] (implemented by [`World`] with [`World::lookup`]), so the
//! layer needs no query engine.
//!
//! # Grammar
//!
//! ```text
//! query       = term { "," term } ;
//! term        = [ access ] [ "!" | "?" ] alternative { "||" alternative } ;
//! access      = "[" ( "in" | "out" | "inout" | "none" ) "]" ;
//! alternative = "(" reference "," reference ")"                   (* (Rel, Tgt) on $this *)
//!             | reference [ "(" place [ "," reference ] ")" ] ;   (* Name, Name(src), Rel(src, Tgt) *)
//! place       = traversal | reference [ "|" traversal ] ;         (* the source, then how to look *)
//! traversal   = "self" [ "|" "up" [ entity ] ] | "up" [ entity ] ;
//! reference   = entity | "*" | "_" | variable ;
//! entity      = name | "#" decimal ;                              (* #bits: Entity::to_bits, alive *)
//! variable    = "$" segment ;                                     (* "$this": the row's entity *)
//! name        = segment { "::" segment } ;                        (* resolved whole: a::b::C *)
//! segment     = ( letter | "_" ) { letter | digit | "_" } ;       (* ASCII; "_" alone is Any *)
//! ```
//!
//! Whitespace (Unicode) may appear between any two tokens. What each form means:
//!
//! * `Name` matches the component `Name` on `$this`; `Name(src)` on the source
//!   `src`, an entity, a `$variable` or `$this` (the default, printed as nothing).
//! * `(Rel, Tgt)` matches a pair on `$this`; `Rel(src, Tgt)` on `src`. `*`
//!   (wildcard), `_` (any) and `$var` may stand for `Rel` and `Tgt`, and
//!   `$var`/`*`/`_` for a whole term's name (`$c($this)`).
//! * `!` (not) and `?` (optional) prefix a term; `[in]`, `[out]`, `[inout]`,
//!   `[none]` come before them (no modifier: [`TermAccess::Default`]).
//! * `A || B` is ONE term with two alternatives. They share one source: each
//!   alternative writes the same place (`A($x) || B($x)`), or none. `!` and `?`
//!   may not appear inside a chain, nor before its first alternative (`!A || B`
//!   is an error at the `!`).
//! * Traversal: `Name(up Rel)`, `Name(self|up Rel)`; `up`/`self|up` without a
//!   relationship mean `up ChildOf` (looked up by the name `ChildOf`). With a
//!   source: `Name($x|up Rel)`, `Name($x|self|up Rel)`; with a pair:
//!   `Rel(up, Tgt)`, `Rel($x|up Rel2, Tgt)`. The relationship must be
//!   traversable ([`DslNames::is_traversable`]).
//! * `self` written out (`Name(self)`, `Name($x|self)`, [`Traversal::Owned`](crate::query::Traversal::Owned))
//!   and the `self` half of `self|up Rel` match the source's own ids only, as
//!   Flecs' explicit `self`: traversal written out replaces the implicit
//!   `up IsA` of an inheritable component. Without a place, a `$this` term
//!   also sees values inherited from prefabs.
//! * `up` and `self` are keywords only at the start of a place; elsewhere they
//!   are names like any other.
//!
//! # Invariants
//!
//! * [`parse_query`] never panics, on any `&str`; every error is a [`DslError`]
//!   whose offset is the byte offset of the first character of the wrong token
//!   (inside a literal or name: of the wrong character; the input's length for
//!   an unexpected end). The first error in reading order is reported, except
//!   unbound variables, which are checked once the whole query is read.
//! * A successful parse keeps: at least one term; `*`
//!   and `_` never as a source; or-chains are `And` and their alternatives share
//!   the term's source and traversal; every traversal relationship is
//!   traversable; every variable occurs in some `And` term (or-chains count).
//! * `parse_query(&print_query(&terms, names), names) == Ok(terms)` for every
//!   `terms` that `parse_query` returned with the same `names`. The printer
//!   writes an entity by [`DslNames::name_of`] when that name reads back as the
//!   same entity, else as `#bits`, so unnamed entities round-trip.

mod lexer;
mod parser;
mod printer;

use core::fmt;

use crate::entity::Entity;
use crate::world::World;

use crate::query::Term;
#[cfg(doc)]
use crate::query::TermAccess;

/// What the DSL needs to know about names: resolving them while parsing,
/// finding them while printing, and which relationships `up` may walk.
///
/// # Examples
/// ```
/// use ecs::entity::Entity;
/// use ecs::query::{DslNames, TermMatch, parse_query};
///
/// /// Two names over fixed entities; only `Parent` is traversable.
/// struct Fixed;
/// impl DslNames for Fixed {
///     fn lookup_name(&self, name: &str) -> Option<Entity> {
///         match name {
///             "Position" => Some(Entity::from_raw(10, 0)),
///             "Parent" => Some(Entity::from_raw(11, 0)),
///             _ => None,
///         }
///     }
///     fn name_of(&self, entity: Entity) -> Option<String> {
///         (entity.index() == 10).then(|| "Position".to_string())
///     }
///     fn is_traversable(&self, relationship: Entity) -> bool {
///         relationship.index() == 11
///     }
/// }
///
/// let terms = parse_query("Position(up Parent)", &Fixed).unwrap();
/// assert_eq!(terms[0].alternatives[0], TermMatch::component(Entity::from_raw(10, 0)));
/// assert!(parse_query("Position(up Position)", &Fixed).is_err());
/// ```
pub trait DslNames {
    /// The entity `name` stands for (a component's name, a named entity), if any.
    fn lookup_name(&self, name: &str) -> Option<Entity>;

    /// The name to print for `entity`, if it has one. The printer uses it only
    /// when it is one DSL name that [`DslNames::lookup_name`] resolves back to
    /// `entity`; otherwise it prints `#bits`.
    fn name_of(&self, entity: Entity) -> Option<String>;

    /// Whether `up relationship` may be walked.
    fn is_traversable(&self, relationship: Entity) -> bool;

    /// Whether `entity`, written as `#bits`, may be named: a world refuses
    /// an entity that is not alive (Flecs `not_alive_*`). Every entity by
    /// default.
    fn is_alive(&self, entity: Entity) -> bool {
        let _ = entity;
        true
    }
}

/// Names of a world: [`World::lookup`] resolves (component short names and
/// full type paths, then entity paths along `ChildOf`), a component prints by
/// its name and an entity by its path when that resolves back to it, and the registry's relationship traits say what is traversable.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::DslNames;
///
/// #[derive(Component)]
/// struct Position(f32);
///
/// let mut world = World::new();
/// let position = world.register_component::<Position>();
/// let child_of = world.register_component::<ChildOf>();
/// assert_eq!(world.lookup_name("Position"), Some(position));
/// assert_eq!(world.name_of(position).as_deref(), Some("Position"));
/// assert!(world.is_traversable(child_of) && !world.is_traversable(position));
/// ```
impl DslNames for World {
    fn lookup_name(&self, name: &str) -> Option<Entity> {
        self.lookup(name)
    }

    fn name_of(&self, entity: Entity) -> Option<String> {
        let name = match self.component_info(entity) {
            Some(info) => info.name().to_owned(),
            None => self.path(entity)?,
        };
        (self.lookup(&name) == Some(entity)).then_some(name)
    }

    fn is_traversable(&self, relationship: Entity) -> bool {
        self.components().relationship_traits(relationship.index()).traversable
    }

    fn is_alive(&self, entity: Entity) -> bool {
        // The reserved wildcards are never alive but always nameable.
        World::is_alive(self, entity) || entity == Entity::WILDCARD || entity == Entity::ANY
    }
}

/// A query text the DSL rejects: where (a byte offset into the text) and why.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::{DslError, parse_query};
///
/// let world = World::new();
/// let error = parse_query("Nope", &world).unwrap_err();
/// assert_eq!(error, DslError { offset: 0, message: "unknown name `Nope`".to_string() });
/// assert_eq!(error.to_string(), "at byte 0: unknown name `Nope`");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DslError {
    /// The byte offset of the first character of the wrong token (the input's
    /// length for an unexpected end).
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl DslError {
    fn new(offset: usize, message: impl Into<String>) -> DslError {
        DslError { offset, message: message.into() }
    }
}

impl fmt::Display for DslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for DslError {}

/// Parses a query written in the DSL (see the grammar in the module docs) into
/// its terms, in the order written.
///
/// # Errors
/// A [`DslError`] for an empty query, a character or literal that is no token,
/// bad syntax (unbalanced parentheses included), an unknown name or access
/// modifier, `!`/`?` in an or-chain, alternatives with different sources, a
/// relationship after `up` that is not traversable, a pair's relationship
/// whose index exceeds 31 bits, `$this` anywhere but a source, `*`/`_` as a
/// source, or a variable that no required term binds (nor the id of an
/// optional one).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::{TermMatch, TermOper, TermRef, parse_query};
///
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Relationship)]
/// struct Likes;
///
/// let mut world = World::new();
/// let position = world.register_component::<Position>();
/// let enemy = world.register_component::<Enemy>();
/// let likes = world.register_component::<Likes>();
///
/// let terms = parse_query("Position, !Enemy, (Likes, $friend), Position($friend)", &world).unwrap();
/// assert_eq!(terms.len(), 4);
/// assert_eq!(terms[0].alternatives[0], TermMatch::component(position));
/// assert_eq!((terms[1].oper, terms[1].first_match()), (TermOper::Not, &TermMatch::component(enemy)));
/// assert_eq!(terms[2].alternatives[0], TermMatch::pair(TermRef::Entity(likes), TermRef::Var("friend".into())));
/// assert_eq!(terms[3].source, TermRef::Var("friend".into()));
///
/// let error = parse_query("Position, (Likes, *", &world).unwrap_err();
/// assert_eq!(error.offset, 19); // the end of the input: `)` expected
/// ```
pub fn parse_query(input: &str, names: &impl DslNames) -> Result<Vec<Term>, DslError> {
    parser::parse(input, names)
}

/// Prints terms as canonical DSL text: one space after each comma and around
/// `||`, access modifiers only where not default, sources only where not
/// `$this`, `(Rel, Tgt)` for a pair on `$this` without traversal and
/// `Rel(place, Tgt)` otherwise, entities by name where the name reads back
/// (else `#bits`), `up` always with its relationship.
///
/// What [`parse_query`] returned prints to text that parses back to the same
/// terms; terms the parser would reject (an or-chain under `!`, `$this` as a
/// target, a variable named `this`, ...) print without that promise.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::{parse_query, print_query};
///
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
///
/// let mut world = World::new();
/// world.register_component::<Position>();
/// world.register_component::<Velocity>();
/// world.register_component::<ChildOf>();
///
/// let terms = parse_query("[in]Velocity||Position ,?Position( self|up )", &world).unwrap();
/// let text = print_query(&terms, &world);
/// assert_eq!(text, "[in] Velocity || Position, ?Position(self|up ChildOf)");
/// assert_eq!(parse_query(&text, &world), Ok(terms));
/// ```
pub fn print_query(terms: &[Term], names: &impl DslNames) -> String {
    printer::print(terms, names)
}

#[cfg(test)]
mod tests;
