//! Review of d5595c6 (runtime queries refuse a pair relationship or an `up`
//! relationship wider than 31 bits, an unnamed variable, and — in
//! `build_in` — `up` along a relationship the world does not know as
//! traversable) and 9ab1e0d (of several pairs of one exclusive relationship in
//! a bundle only the last lands, on every path; `insert_if_new` drops the
//! replaced ones first; the one-move spawn accepts an archetype where an
//! exclusive pair replaced another).
//!
//! Queries: every DSL form that names a wide relationship (`(R, T)`,
//! `R(src, T)`, `#bits`, inside `!`, `?` and or-chains) is a `DslError` at
//! the name, cached and uncached; the builder refuses wide pair
//! relationships, wide `up`/`self|up` relationships (even when the world
//! marks the wide entity traversable) and unnamed variables with
//! `InvalidTerm` from `build`, `build_uncached` and `build_in` alike; wide
//! entities still work as targets, sources and plain ids, a relationship at
//! exactly `MAX_RELATIONSHIP_INDEX` still works, traversable relationships
//! from run-time traits, the derive, `ChildOf` and `IsA` still build, DSL and
//! builder agree row for row and `to_dsl()` round-trips; `$_x` variables;
//! a variable bound at run time to a wide entity and then used as a pair's
//! relationship.
//!
//! Bundles: 2..4 pairs of exclusive relationships (valued with `Drop`,
//! hooked, tag, `ChildOf`, union) mixed with non-exclusive ones through
//! `spawn` (one move and pair by pair), `insert`, `insert_if_new`,
//! commands' `spawn`/`insert`/`insert_if_new`/`spawn_batch`,
//! `World::spawn_batch`, `with_children` and bundles with `IsA` to a prefab
//! that owns a pair of the same exclusive relationship; observers of
//! `OnAdd`/`OnInsert`/`OnReplace`/`OnRemove` of `Pair<R>` and component hooks
//! count events; every value is dropped exactly once (thread-local
//! counters, each test on its own thread); typed `Pair<&R>` and runtime
//! `(R, *)` queries after each; dead targets among the replaced pairs under
//! the `remove`, `delete` and `panic` policies; names that clash under a
//! replaced parent (accepted) or under the final parent (refused, nothing
//! changed).
//!
//! Findings (both fixed in the library since; the tests run):
//! - `a_variable_bound_to_a_wide_entity_is_no_relationship`: a query such as
//!   `(Likes, $r), ($r, *)` (DSL or builder, cached or uncached) builds, and
//!   iterating it panics in `Id::pair` ("relationship index exceeds 31 bits")
//!   once `$r` binds a target whose index exceeds 31 bits; such a binding
//!   should simply match no pair (`!($r, *)` matches, `?($r, *)` is unset).
//! - `a_replaced_pair_with_a_dead_panic_target_does_not_panic`: a command
//!   bundle `(Anchored.pair(d), Anchored.pair(a))` (exclusive,
//!   `on_delete_target = "panic"`) whose replaced target `d` died before the
//!   queue applied panics and spawns nothing, though the replaced pair never
//!   lands (with `delete` or `remove` the replaced dead pair is ignored and the
//!   entity lands with `(R, a)`).

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::component::RelationshipTraits;
use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::{DynQuery, QueryBuildError, QueryBuilder, Term, TermMatch, TermOper, TermRef};
use ecs::system::CommandQueue;

// ----- drop tracking and the event log -------------------------------------------------

thread_local! {
    static DROPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    static EVENTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

/// A value whose drops are counted.
#[derive(Debug)]
struct Tr(u32);

impl Tr {
    fn new(value: u32) -> Tr {
        LIVE.with(|live| live.set(live.get() + 1));
        Tr(value)
    }
}

impl Clone for Tr {
    fn clone(&self) -> Tr {
        Tr::new(self.0 + 1000)
    }
}

impl Drop for Tr {
    fn drop(&mut self) {
        LIVE.with(|live| live.set(live.get() - 1));
        DROPS.with(|drops| drops.borrow_mut().push(self.0));
    }
}

/// The values dropped since the last call, sorted.
fn drops() -> Vec<u32> {
    DROPS.with(|drops| {
        let mut taken = std::mem::take(&mut *drops.borrow_mut());
        taken.sort_unstable();
        taken
    })
}

fn live() -> i64 {
    LIVE.with(Cell::get)
}

fn events() -> Vec<String> {
    EVENTS.with(|events| std::mem::take(&mut *events.borrow_mut()))
}

fn log(line: String) {
    EVENTS.with(|events| events.borrow_mut().push(line));
}

/// Runs `test` on a thread of its own (fresh thread-locals).
fn on_thread(test: impl FnOnce() + Send + 'static) {
    std::thread::spawn(test).join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

// ----- types ----------------------------------------------------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Position(i32);

#[derive(Relationship, Debug)]
struct Likes;

/// Traversable from the derive.
#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct Near;

/// Exclusive, valued, with `Drop`.
#[derive(Relationship, Debug, Clone)]
#[relationship(exclusive)]
struct Holds(Tr);

/// Exclusive tag, `remove`.
#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct Tied;

/// Exclusive tag, `delete`.
#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
struct Docked;

/// Exclusive tag, `panic`.
#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "panic")]
struct Anchored;

#[derive(Relationship, Debug)]
#[relationship(union)]
struct Movement;

fn hook_add(_world: DeferredWorld<'_>, ctx: HookContext) {
    log(format!("hook add {:?}", ctx.entity));
}
fn hook_insert(_world: DeferredWorld<'_>, ctx: HookContext) {
    log(format!("hook insert {:?}", ctx.entity));
}
fn hook_replace(_world: DeferredWorld<'_>, ctx: HookContext) {
    log(format!("hook replace {:?}", ctx.entity));
}
fn hook_remove(_world: DeferredWorld<'_>, ctx: HookContext) {
    log(format!("hook remove {:?}", ctx.entity));
}

/// Exclusive, valued with `Drop`, with every hook.
#[derive(Relationship, Debug)]
#[relationship(exclusive)]
#[component(on_add = hook_add, on_insert = hook_insert, on_replace = hook_replace, on_remove = hook_remove)]
struct Hooked(Tr);

// ----- query helpers --------------------------------------------------------------------

/// The rows of `q`: `$this` (if any) and the source of term 0.
fn rows(q: &mut DynQuery, world: &World) -> Vec<(Option<Entity>, Entity)> {
    let mut rows: Vec<_> = q.iter(world).map(|row| (row.var("this"), row.source(0))).collect();
    rows.sort();
    rows
}

/// A world with `A` (low index, `Position`, likes `Wide`), `Wide` (index
/// 0x8000_0000, `Position`) and `B` (wide, `Position`, likes `A`); new ids
/// come from a low range again afterwards.
fn wide_world() -> (World, Entity, Entity, Entity) {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Likes>();
    let a = world.spawn((Position(1), Name::new("A"))).id();
    world.set_entity_range(0x8000_0000..0x8000_1000);
    let wide = world.spawn((Position(2), Name::new("Wide"))).id();
    let b = world.spawn((Position(3), Name::new("B"))).id();
    world.set_entity_range(100_000..200_000);
    world.entity_mut(a).add_pair::<Likes>(wide);
    world.entity_mut(b).add_pair::<Likes>(a);
    assert!(wide.index() > Entity::MAX_RELATIONSHIP_INDEX && b.index() > Entity::MAX_RELATIONSHIP_INDEX);
    (world, a, wide, b)
}

/// `query_dsl` and `query_dsl_uncached` both give a `DslError` at `offset`
/// (never a panic), whose message says why.
fn dsl_refused(world: &World, text: &str, offset: usize, says: &str) {
    for cached in [true, false] {
        let result = catch_unwind(AssertUnwindSafe(|| {
            if cached { world.query_dsl(text).map(|_| ()) } else { world.query_dsl_uncached(text).map(|_| ()) }
        }));
        let error = match result {
            Ok(Err(error)) => error,
            Ok(Ok(())) => panic!("{text:?} (cached: {cached}) built"),
            Err(_) => panic!("{text:?} (cached: {cached}) panicked"),
        };
        assert_eq!(error.offset, offset, "{text:?}: {error}");
        assert!(error.message.contains(says), "{text:?}: {error}");
    }
}

/// `build`, `build_uncached` and `build_in` all refuse `builder` with
/// `InvalidTerm` at `term`, never panicking.
fn builder_refused(world: &World, builder: &QueryBuilder, term: usize, says: &str) {
    for how in 0..3 {
        let builder = builder.clone();
        let result = catch_unwind(AssertUnwindSafe(|| match how {
            0 => builder.build().map(|_| ()),
            1 => builder.build_uncached().map(|_| ()),
            _ => builder.build_in(world).map(|_| ()),
        }));
        match result {
            Ok(Err(QueryBuildError::InvalidTerm { term: at, reason })) => {
                assert_eq!(at, term, "{how}: {reason}");
                assert!(reason.contains(says), "{how}: {reason}");
            }
            Ok(other) => panic!("build #{how}: {other:?}"),
            Err(_) => panic!("build #{how} panicked"),
        }
    }
}

/// `builder` builds cached, uncached and in the world; the three give the
/// same rows as the DSL `text` (cached and uncached), and every query's
/// `to_dsl()` parses back to a query with the same rows.
fn agree(world: &World, builder: &QueryBuilder, text: &str) -> Vec<(Option<Entity>, Entity)> {
    let mut dsl = world.query_dsl(text).unwrap_or_else(|error| panic!("{text:?}: {error}"));
    let expected = rows(&mut dsl, world);
    let mut all = vec![dsl, world.query_dsl_uncached(text).unwrap()];
    all.push(builder.clone().build().unwrap());
    all.push(builder.clone().build_uncached().unwrap());
    all.push(builder.clone().build_in(world).unwrap());
    for (i, q) in all.iter_mut().enumerate() {
        assert_eq!(rows(q, world), expected, "query #{i} of {text:?}");
        // Twice: the cached ones serve the second from their cache.
        assert_eq!(rows(q, world), expected, "query #{i} of {text:?}, again");
        let printed = q.to_dsl();
        let mut back = world.query_dsl(&printed).unwrap_or_else(|error| panic!("{printed:?}: {error}"));
        assert_eq!(rows(&mut back, world), expected, "{printed:?} (query #{i} of {text:?})");
        assert_eq!(back.to_dsl(), world.query_dsl(&back.to_dsl()).unwrap().to_dsl());
    }
    expected
}

// ===== (1) runtime queries =================================================================

#[test]
fn dsl_refuses_a_wide_relationship_at_its_name_in_every_form() {
    let (world, _a, wide, _b) = wide_world();
    let says = "cannot be a relationship";
    let bits = wide.to_bits();
    dsl_refused(&world, "(Wide, *)", 1, says);
    dsl_refused(&world, "( Wide , A)", 2, says);
    dsl_refused(&world, "Wide($this, *)", 0, says);
    dsl_refused(&world, "Position, Wide(A, $x), Position($x)", 10, says);
    dsl_refused(&world, &format!("(#{bits}, *)"), 1, says);
    dsl_refused(&world, "!(Wide, *)", 2, says);
    dsl_refused(&world, "Position, ?(Wide, *)", 12, says);
    dsl_refused(&world, "[in] ?Wide($this, A)", 6, says);
    dsl_refused(&world, "Position || (Wide, *)", 13, says);
    dsl_refused(&world, "(Likes, *) || (Wide, *)", 15, says);
    dsl_refused(&world, "Position($x) || Wide($x, A), Likes($x, *)", 16, says);
    // The same with a relationship no world could give: the placeholder.
    let placeholder = Entity::PLACEHOLDER.to_bits();
    let error = world.query_dsl(&format!("(#{placeholder}, *)")).unwrap_err();
    assert_eq!(error.offset, 1, "{error}");
    // `parse_query` with the world's names, not only `query_dsl`.
    let error = ecs::query::parse_query("Position, (Wide, Likes)", &world).unwrap_err();
    assert_eq!(error.offset, 11, "{error}");
}

#[test]
fn dsl_refuses_up_along_a_wide_relationship_even_when_marked_traversable() {
    let (mut world, _a, wide, _b) = wide_world();
    dsl_refused(&world, "Position(up Wide)", 12, "not a traversable");
    // Run-time traits may mark a wide entity traversable: still no query.
    world.set_relationship_traits(wide, RelationshipTraits::DEFAULT.traversable());
    for text in ["Position(up Wide)", "Position(self|up Wide)", "Position($this|up Wide)"] {
        for cached in [true, false] {
            let result = catch_unwind(AssertUnwindSafe(|| {
                if cached { world.query_dsl(text).map(|_| ()) } else { world.query_dsl_uncached(text).map(|_| ()) }
            }));
            assert!(matches!(result, Ok(Err(_))), "{text:?} (cached: {cached}) built or panicked");
        }
    }
    let position = world.register_component::<Position>();
    builder_refused(&world, &world.query_builder().read(position).up(wide), 0, "31 bits");
    builder_refused(&world, &world.query_builder().read(position).self_up(wide), 0, "31 bits");
}

#[test]
fn builder_refuses_wide_relationships_in_pairs_chains_optional_and_not_terms() {
    let (world, a, wide, _b) = wide_world();
    let (position, likes) = (world.component_id::<Position>().unwrap(), world.component_id::<Likes>().unwrap());
    let wide_pair = TermMatch::pair(TermRef::Entity(wide), TermRef::Wildcard);
    builder_refused(&world, &world.query_builder().pair(wide, Entity::WILDCARD), 0, "31 bits");
    builder_refused(&world, &world.query_builder().read(position).pair(wide, a), 1, "31 bits");
    builder_refused(&world, &world.query_builder().read(position).pair(wide, a).negate_last(), 1, "31 bits");
    builder_refused(&world, &world.query_builder().read(position).pair(wide, a).optional_last(), 1, "31 bits");
    builder_refused(&world, &world.query_builder().pair(Entity::PLACEHOLDER, a), 0, "31 bits");
    let chain = |first: TermMatch, second: TermMatch| Term {
        alternatives: [first, second].into_iter().collect(),
        ..Term::new(TermMatch::component(position))
    };
    builder_refused(
        &world,
        &world.query_builder().read(position).term(chain(TermMatch::component(position), wide_pair.clone())),
        1,
        "31 bits",
    );
    builder_refused(
        &world,
        &world
            .query_builder()
            .term(chain(TermMatch::pair(TermRef::Entity(likes), TermRef::Wildcard), wide_pair.clone())),
        0,
        "31 bits",
    );
    // A chain of a `!`/`?` term (built by hand: the DSL has no such form).
    for oper in [TermOper::Not, TermOper::Optional] {
        let term = chain(wide_pair.clone(), TermMatch::component(position)).with_oper(oper);
        builder_refused(&world, &world.query_builder().read(position).term(term), 1, "31 bits");
    }
    // With a variable source.
    let term = Term::new(wide_pair).with_source(TermRef::Var("x".into()));
    builder_refused(&world, &world.query_builder().pair_var(likes, "x").term(term), 1, "31 bits");
    // `up` along a wide or placeholder relationship, in optional and not terms too.
    builder_refused(&world, &world.query_builder().read(position).up(wide).negate_last(), 0, "31 bits");
    builder_refused(
        &world,
        &world.query_builder().with(position).read(position).self_up(wide).optional_last(),
        1,
        "31 bits",
    );
    builder_refused(&world, &world.query_builder().read(position).up(Entity::PLACEHOLDER), 0, "31 bits");
}

#[test]
fn unnamed_variables_are_refused_and_underscore_names_work() {
    let (world, a, _wide, b) = wide_world();
    let (position, likes) = (world.component_id::<Position>().unwrap(), world.component_id::<Likes>().unwrap());
    let empty = || TermRef::Var(String::new());
    builder_refused(&world, &world.query_builder().read(position).source_var(""), 0, "name");
    builder_refused(&world, &world.query_builder().read(position).pair_var(likes, ""), 1, "name");
    builder_refused(
        &world,
        &world.query_builder().term(Term::new(TermMatch::pair(empty(), TermRef::Wildcard))),
        0,
        "name",
    );
    builder_refused(
        &world,
        &world.query_builder().term(Term::new(TermMatch { first: empty(), second: None })),
        0,
        "name",
    );
    let chain = Term {
        alternatives: [TermMatch::component(position), TermMatch::pair(TermRef::Entity(likes), empty())]
            .into_iter()
            .collect(),
        ..Term::new(TermMatch::component(position))
    };
    builder_refused(&world, &world.query_builder().term(chain), 0, "name");
    // `$_x` and `$_` prefixed names are names.
    let found = agree(&world, &world.query_builder().pair_var(likes, "_x"), "(Likes, $_x)");
    assert_eq!(found, vec![(Some(a), a), (Some(b), b)]);
    let builder = world.query_builder().pair_var(likes, "_x").read(position).source_var("_x");
    let found = agree(&world, &builder, "(Likes, $_x), [in] Position($_x)");
    assert_eq!(found, vec![(Some(a), a), (Some(b), b)]);
    let mut q = world.query_dsl("(Likes, $_x), Position($_x)").unwrap();
    let mut bound: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.var("_x").unwrap())).collect();
    bound.sort();
    assert_eq!(bound, vec![(a, world.lookup("Wide").unwrap()), (b, a)]);
}

#[test]
fn wide_entities_still_serve_as_targets_sources_and_plain_ids() {
    let (mut world, a, wide, b) = wide_world();
    let (position, likes) = (world.component_id::<Position>().unwrap(), world.component_id::<Likes>().unwrap());
    // A wide plain id (a tag that is an entity) on a low and a wide entity.
    world.add_id(a, wide.id());
    world.add_id(b, wide.id());
    let found = agree(&world, &world.query_builder().pair(likes, wide), "(Likes, Wide)");
    assert_eq!(found, vec![(Some(a), a)]);
    let found = agree(&world, &world.query_builder().pair(Entity::WILDCARD, wide), "(*, Wide)");
    assert_eq!(found, vec![(Some(a), a)]);
    let found = agree(&world, &world.query_builder().with(wide), "[none] Wide");
    assert_eq!(found, vec![(Some(a), a), (Some(b), b)]);
    let found = agree(&world, &world.query_builder().with(wide).pair(likes, a), "[none] Wide, (Likes, A)");
    assert_eq!(found, vec![(Some(b), b)]);
    // A wide fixed source (no `$this`: one row per solution).
    let mut q = world.query_dsl("Position(Wide)").unwrap();
    let got: Vec<_> = q.iter(&world).map(|row| (row.source(0), *row.get::<Position>(0).unwrap())).collect();
    assert_eq!(got, vec![(wide, Position(2))]);
    let mut q = world.query_builder().read(position).source(wide).build_uncached().unwrap();
    assert_eq!(q.iter(&world).map(|row| row.source(0)).collect::<Vec<_>>(), vec![wide]);
    assert_eq!(world.query_dsl(&q.to_dsl()).unwrap().to_dsl(), "[in] Position(Wide)");
    // A wide variable binding used as a target and a source.
    let builder = world.query_builder().pair_var(likes, "t").read(position).source_var("t");
    let found = agree(&world, &builder, "(Likes, $t), [in] Position($t)");
    assert_eq!(found, vec![(Some(a), a), (Some(b), b)]);
    // A wide entity as a relationship's source: `Likes(B, *)`.
    let mut q = world.query_dsl("Likes(B, *)").unwrap();
    assert_eq!(q.iter(&world).map(|row| row.pair_target(0)).collect::<Vec<_>>(), vec![a]);
}

#[test]
fn a_relationship_at_the_highest_index_still_works() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    world.set_entity_range(Entity::MAX_RELATIONSHIP_INDEX..Entity::MAX_RELATIONSHIP_INDEX + 2);
    let rel = world.spawn(Name::new("Top")).id();
    let over = world.spawn(Name::new("Over")).id();
    world.set_entity_range(100..1000);
    assert_eq!((rel.index(), over.index()), (Entity::MAX_RELATIONSHIP_INDEX, Entity::MAX_RELATIONSHIP_INDEX + 1));
    let target = world.spawn(Position(5)).id();
    let holder = world.spawn(Position(6)).id();
    world.add_id(holder, Id::pair(rel, target));
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.traversable());
    let found = agree(&world, &world.query_builder().pair(rel, Entity::WILDCARD), "(Top, *)");
    assert_eq!(found, vec![(Some(holder), holder)]);
    let found = agree(&world, &world.query_builder().read(position).up(rel), "[in] Position(up Top)");
    assert_eq!(found, vec![(Some(holder), target)]);
    // One past it: refused by both.
    dsl_refused(&world, "(Over, *)", 1, "cannot be a relationship");
    world.set_relationship_traits(over, RelationshipTraits::DEFAULT.traversable());
    builder_refused(&world, &world.query_builder().read(position).up(over), 0, "31 bits");
    assert!(world.query_dsl("[in] Position(up Over)").is_err());
}

#[test]
fn traversable_relationships_from_every_source_still_build() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let (child_of, is_a, near) =
        (world.register_component::<ChildOf>(), world.register_component::<IsA>(), world.register_component::<Near>());
    let likes = world.register_component::<Likes>();
    // A plain entity made traversable at run time.
    let rel = world.spawn(Name::new("Rel")).id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.traversable().acyclic());
    let root = world.spawn((Position(1), Name::new("Root"))).id();
    let mid = world.spawn_empty().id();
    world.add_id(mid, Id::pair(rel, root));
    let leaf = world.spawn_empty().id();
    world.add_id(leaf, Id::pair(rel, mid));
    let found = agree(&world, &world.query_builder().read(position).up(rel), "[in] Position(up Rel)");
    assert_eq!(found, vec![(Some(mid), root), (Some(leaf), root)]);
    let found = agree(&world, &world.query_builder().read(position).self_up(rel), "[in] Position(self|up Rel)");
    assert_eq!(found, vec![(Some(root), root), (Some(mid), root), (Some(leaf), root)]);
    // Derive, ChildOf and IsA.
    let parent = world.spawn(Position(2)).id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    let found = agree(&world, &world.query_builder().read(position).up(child_of), "[in] Position(up ChildOf)");
    assert_eq!(found, vec![(Some(child), parent)]);
    let near_to = world.spawn(Position(3)).id();
    let close = world.spawn(Near.pair(near_to)).id();
    let found = agree(&world, &world.query_builder().read(position).up(near), "[in] Position(up Near)");
    assert_eq!(found, vec![(Some(close), near_to)]);
    let prefab = world.spawn((Prefab, Position(4))).id();
    let instance = world.instantiate(prefab);
    let found = agree(&world, &world.query_builder().read(position).up(is_a), "[in] Position(up IsA)");
    assert_eq!(found, vec![(Some(instance), prefab)]);
    // A non-traversable relationship: refused by `build_in` and the DSL alike.
    let error = world.query_builder().read(position).up(likes).build_in(&world).unwrap_err();
    assert!(matches!(error, QueryBuildError::InvalidTerm { term: 0, .. }), "{error:?}");
    assert!(world.query_dsl("[in] Position(up Likes)").is_err());
    // Traits set after a failed build: it builds now, and DSL and builder agree.
    let plain = world.spawn(Name::new("Plain")).id();
    let error = world.query_builder().read(position).up(plain).build_in(&world).unwrap_err();
    assert!(matches!(error, QueryBuildError::InvalidTerm { term: 0, .. }), "{error:?}");
    world.set_relationship_traits(plain, RelationshipTraits::DEFAULT.traversable());
    let under = world.spawn_empty().id();
    world.add_id(under, Id::pair(plain, parent));
    let found = agree(&world, &world.query_builder().read(position).up(plain), "[in] Position(up Plain)");
    assert_eq!(found, vec![(Some(under), parent)]);
}

#[test]

fn a_variable_bound_to_a_wide_entity_is_no_relationship() {
    let (world, a, wide, b) = wide_world();
    let likes = world.component_id::<Likes>().unwrap();
    let var_pair =
        |oper: TermOper| Term::new(TermMatch::pair(TermRef::Var("r".into()), TermRef::Wildcard)).with_oper(oper);
    // `a` likes `wide` (no pair can have it as relationship), `b` likes `a`
    // (`a` has no pairs of its own as a relationship either).
    for (text, oper, expected) in [
        ("(Likes, $r), ($r, *)", TermOper::And, vec![]),
        ("(Likes, $r), !($r, *)", TermOper::Not, vec![a, b]),
        ("(Likes, $r), ?($r, *)", TermOper::Optional, vec![a, b]),
    ] {
        let builder = world.query_builder().pair_var(likes, "r").term(var_pair(oper));
        let queries: Vec<Result<DynQuery, String>> = vec![
            world.query_dsl(text).map_err(|e| e.to_string()),
            world.query_dsl_uncached(text).map_err(|e| e.to_string()),
            builder.clone().build().map_err(|e| e.to_string()),
            builder.build_uncached().map_err(|e| e.to_string()),
        ];
        for (i, q) in queries.into_iter().enumerate() {
            let mut q = q.unwrap_or_else(|error| panic!("{text:?} #{i}: {error}"));
            let got = catch_unwind(AssertUnwindSafe(|| {
                let mut got: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
                got.sort();
                got
            }));
            assert_eq!(got.ok(), Some(expected.clone()), "{text:?} #{i} panicked or differs (wide: {wide:?})");
        }
    }
}

// ===== (2) bundles with several pairs of one exclusive relationship ============================

/// Observers of every lifecycle event of `Pair<Holds>` and `OnAdd`/`OnRemove`
/// of `Pair<ChildOf>`, logging `event entity target`.
fn observe(world: &mut World) {
    world.add_observer(|t: Trigger<OnAdd, Pair<Holds>>| log(format!("add {:?} {:?}", t.entity(), t.pair_target())));
    world.add_observer(|t: Trigger<OnInsert, Pair<Holds>>| {
        log(format!("insert {:?} {:?}", t.entity(), t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnReplace, Pair<Holds>>| {
        log(format!("replace {:?} {:?}", t.entity(), t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<Holds>>| {
        log(format!("remove {:?} {:?}", t.entity(), t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnAdd, Pair<ChildOf>>| {
        log(format!("add ChildOf {:?} {:?}", t.entity(), t.pair_target()));
    });
}

/// The `(Holds, *)` pairs `e` has, by the typed and the runtime query and
/// by `targets`/`get_pair`: all must agree; returns (target, value)s.
fn holds_of(world: &mut World, e: Entity) -> Vec<(Entity, u32)> {
    let targets: Vec<Entity> = world.targets::<Holds>(e).collect();
    let by_get: Vec<(Entity, u32)> =
        targets.iter().map(|&t| (t, world.get_pair::<Holds>(e, t).expect("a listed target has a value").0.0)).collect();
    let mut typed = world.query::<(Entity, Pair<&Holds>)>();
    let by_typed: Vec<(Entity, u32)> =
        typed.iter(world).filter(|(row, _)| *row == e).map(|(_, (t, value))| (t, value.0.0)).collect();
    assert_eq!(by_typed, by_get, "typed Pair<&Holds> of {e:?}");
    let mut runtime = world.query_dsl_uncached("(Holds, *)").unwrap();
    let by_runtime: Vec<(Entity, u32)> = runtime
        .iter(world)
        .filter(|row| row.entity() == e)
        .map(|row| (row.pair_target(0), row.get::<Holds>(0).unwrap().0.0))
        .collect();
    assert_eq!(by_runtime, by_get, "runtime (Holds, *) of {e:?}");
    by_get
}

fn apply(world: &mut World, build: impl FnOnce(&mut Commands<'_, '_>)) {
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, world);
    build(&mut commands);
    queue.apply(world);
}

#[test]
fn every_path_keeps_the_last_exclusive_pair_and_drops_the_others_once() {
    on_thread(|| {
        let mut world = World::new();
        observe(&mut world);
        let [x, a, b, c] = [(); 4].map(|()| world.spawn_empty().id());
        let expect = |world: &mut World, e: Entity, target: Entity, value: u32, dropped: Vec<u32>, what: &str| {
            assert_eq!(holds_of(world, e), vec![(target, value)], "{what}");
            assert_eq!(drops(), dropped, "{what}");
            // At most one add and one remove of a `(Holds, *)` pair on `e`, and
            // never of a replaced pair's target.
            let log = events();
            let count = |event: &str| log.iter().filter(|line| line.starts_with(&format!("{event} {e:?} "))).count();
            assert!(count("add") <= 1 && count("remove") <= 1, "{what}: {log:?}");
            let landed = format!("Some({target:?})");
            assert!(
                log.iter()
                    .filter(|line| line.starts_with("add "))
                    .all(|line| line.ends_with(&landed) || line.contains("ChildOf")),
                "{what}: {log:?}"
            );
            world.check_invariants();
        };
        // One move: 2, 3, 4 pairs mixed with non-exclusive ones.
        let e = world.spawn((Holds(Tr::new(1)).pair(a), Holds(Tr::new(2)).pair(b))).id();
        expect(&mut world, e, b, 2, vec![1], "spawn 2");
        let e = world
            .spawn((
                Position(0),
                Holds(Tr::new(3)).pair(a),
                Likes.pair(x),
                Holds(Tr::new(4)).pair(b),
                Holds(Tr::new(5)).pair(c),
            ))
            .id();
        expect(&mut world, e, c, 5, vec![3, 4], "spawn 3");
        assert!(world.has_pair::<Likes>(e, x));
        let e = world
            .spawn((
                Holds(Tr::new(6)).pair(c),
                Holds(Tr::new(7)).pair(b),
                Likes.pair(a),
                Holds(Tr::new(8)).pair(a),
                Likes.pair(b),
                Holds(Tr::new(9)).pair(c),
            ))
            .id();
        expect(&mut world, e, c, 9, vec![6, 7, 8], "spawn 4, first and last on one target");
        // Pair by pair: a union pair in the bundle takes the spawn off the one move.
        let e = world.spawn((Movement.pair(x), Holds(Tr::new(10)).pair(a), Holds(Tr::new(11)).pair(b))).id();
        expect(&mut world, e, b, 11, vec![10], "spawn with a union");
        // insert on an entity holding another target, and the same target.
        let e = world.spawn((Position(1), Holds(Tr::new(12)).pair(x))).id();
        events();
        world.entity_mut(e).insert((Holds(Tr::new(13)).pair(a), Likes.pair(a), Holds(Tr::new(14)).pair(b)));
        expect(&mut world, e, b, 14, vec![12, 13], "insert over x");
        world.entity_mut(e).insert((Holds(Tr::new(15)).pair(c), Holds(Tr::new(16)).pair(b)));
        expect(&mut world, e, b, 16, vec![14, 15], "insert over the same target");
        // insert_if_new: the last is owned (nothing changes), then new.
        world.entity_mut(e).insert_if_new((Holds(Tr::new(17)).pair(a), Holds(Tr::new(18)).pair(b)));
        expect(&mut world, e, b, 16, vec![17, 18], "insert_if_new, last owned");
        world.entity_mut(e).insert_if_new((Holds(Tr::new(19)).pair(b), Holds(Tr::new(20)).pair(c)));
        expect(&mut world, e, c, 20, vec![16, 19], "insert_if_new, last new");
        // Commands.
        let mut spawned = None;
        apply(&mut world, |commands| {
            spawned = Some(
                commands
                    .spawn((Holds(Tr::new(21)).pair(a), Holds(Tr::new(22)).pair(b), Holds(Tr::new(23)).pair(x)))
                    .id(),
            );
        });
        expect(&mut world, spawned.unwrap(), x, 23, vec![21, 22], "commands.spawn");
        apply(&mut world, |commands| {
            commands.entity(e).insert((Holds(Tr::new(24)).pair(x), Likes.pair(c), Holds(Tr::new(25)).pair(a)));
        });
        expect(&mut world, e, a, 25, vec![20, 24], "commands insert");
        apply(&mut world, |commands| {
            commands.entity(e).insert_if_new((Holds(Tr::new(26)).pair(a), Holds(Tr::new(27)).pair(b)));
        });
        expect(&mut world, e, b, 27, vec![25, 26], "commands insert_if_new");
        // Batches.
        events();
        let batch: Vec<Entity> =
            world
                .spawn_batch((0..3).map(|i| {
                    (Position(i), Holds(Tr::new(30 + i as u32)).pair(a), Holds(Tr::new(40 + i as u32)).pair(b))
                }))
                .collect();
        for (i, &e) in batch.iter().enumerate() {
            assert_eq!(holds_of(&mut world, e), vec![(b, 40 + i as u32)]);
        }
        assert_eq!(drops(), vec![30, 31, 32]);
        let before: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
        apply(&mut world, |commands| {
            commands.spawn_batch((0..2).map(move |i| (Holds(Tr::new(50 + i)).pair(c), Holds(Tr::new(60 + i)).pair(x))));
        });
        let made: Vec<Entity> = world.query::<Entity>().iter(&world).filter(|e| !before.contains(e)).collect();
        assert_eq!(made.len(), 2);
        let mut values: Vec<_> = made.iter().flat_map(|&e| holds_of(&mut world, e)).collect();
        values.sort();
        assert_eq!(values, vec![(x, 60), (x, 61)]);
        assert_eq!(drops(), vec![50, 51]);
        // Only the landing targets (b, then x) were added by the batches.
        let log = events();
        assert_eq!(log.iter().filter(|line| line.starts_with("add ")).count(), 5, "{log:?}");
        assert!(
            log.iter().all(|line| line.ends_with(&format!("Some({b:?})")) || line.ends_with(&format!("Some({x:?})"))),
            "{log:?}"
        );
        // with_children: the child's bundle pairs, then its parent.
        let parent = world
            .spawn(Position(9))
            .with_children(|spawner| {
                spawner.spawn((Holds(Tr::new(70)).pair(a), Holds(Tr::new(71)).pair(b), Holds(Tr::new(72)).pair(c)));
            })
            .id();
        let child = world.children(parent).next().unwrap();
        expect(&mut world, child, c, 72, vec![70, 71], "with_children");
        events();
        drop(world);
        assert_eq!(live(), 0, "every value dropped once");
    });
}

#[test]
fn observers_and_hooks_see_only_the_pair_that_lands() {
    on_thread(|| {
        let mut world = World::new();
        observe(&mut world);
        let [x, a, b] = [(); 3].map(|()| world.spawn_empty().id());
        // One move.
        let e = world.spawn((Position(0), Holds(Tr::new(1)).pair(a), Holds(Tr::new(2)).pair(b))).id();
        assert_eq!(events(), vec![format!("add {e:?} Some({b:?})"), format!("insert {e:?} Some({b:?})")]);
        // Pair by pair (a union pair in the bundle).
        let e = world.spawn((Movement.pair(x), Holds(Tr::new(3)).pair(a), Holds(Tr::new(4)).pair(b))).id();
        assert_eq!(events(), vec![format!("add {e:?} Some({b:?})"), format!("insert {e:?} Some({b:?})")]);
        // Insert over another target: the old one is replaced and removed once.
        world.entity_mut(e).insert((Holds(Tr::new(5)).pair(x), Holds(Tr::new(6)).pair(a)));
        assert_eq!(
            events(),
            vec![
                format!("replace {e:?} Some({b:?})"),
                format!("remove {e:?} Some({b:?})"),
                format!("add {e:?} Some({a:?})"),
                format!("insert {e:?} Some({a:?})"),
            ]
        );
        // Insert over the same target: a replace and an insert, no add or remove.
        world.entity_mut(e).insert((Holds(Tr::new(7)).pair(b), Holds(Tr::new(8)).pair(a)));
        assert_eq!(events(), vec![format!("replace {e:?} Some({a:?})"), format!("insert {e:?} Some({a:?})")]);
        assert_eq!(drops(), vec![1, 3, 4, 5, 6, 7]);
        // Component hooks of an exclusive valued relationship, every path.
        let h = world.spawn((Hooked(Tr::new(10)).pair(a), Likes.pair(x), Hooked(Tr::new(11)).pair(b))).id();
        assert_eq!(events(), vec![format!("hook add {h:?}"), format!("hook insert {h:?}")]);
        world.entity_mut(h).insert((Hooked(Tr::new(12)).pair(b), Hooked(Tr::new(13)).pair(x)));
        assert_eq!(
            events(),
            vec![
                format!("hook replace {h:?}"),
                format!("hook remove {h:?}"),
                format!("hook add {h:?}"),
                format!("hook insert {h:?}")
            ]
        );
        world.entity_mut(h).insert_if_new((Hooked(Tr::new(14)).pair(a), Hooked(Tr::new(15)).pair(x)));
        assert_eq!(events(), Vec::<String>::new());
        apply(&mut world, |commands| {
            commands.entity(h).insert((Hooked(Tr::new(16)).pair(a), Hooked(Tr::new(17)).pair(x)));
        });
        assert_eq!(events(), vec![format!("hook replace {h:?}"), format!("hook insert {h:?}")]);
        assert_eq!(drops(), vec![10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(world.targets::<Hooked>(h).collect::<Vec<_>>(), vec![x]);
        assert_eq!(world.get_pair::<Hooked>(h, x).map(|v| v.0.0), Some(17));
        world.despawn(h);
        assert_eq!(events(), vec![format!("hook replace {h:?}"), format!("hook remove {h:?}")]);
        assert_eq!(drops(), vec![17]);
        drop(world);
        assert_eq!(live(), 0);
    });
}

#[test]
fn union_bundles_keep_the_last_target_on_every_path() {
    on_thread(|| {
        let mut world = World::new();
        let [a, b, c] = [(); 3].map(|()| world.spawn_empty().id());
        let movement = world.register_component::<Movement>();
        let check = |world: &mut World, e: Entity, target: Entity| {
            assert_eq!(world.targets::<Movement>(e).collect::<Vec<_>>(), vec![target]);
            let mut q = world.query::<(Entity, Pair<Movement>)>();
            let rows: Vec<Entity> = q.iter(world).filter(|(row, _)| *row == e).map(|(_, t)| t).collect();
            assert_eq!(rows, vec![target]);
            let mut q = world.query_builder().pair(movement, Entity::WILDCARD).build_uncached().unwrap();
            let rows: Vec<Entity> =
                q.iter(world).filter(|row| row.entity() == e).map(|row| row.pair_target(0)).collect();
            assert_eq!(rows, vec![target]);
            world.check_invariants();
        };
        let e = world.spawn((Movement.pair(a), Position(0), Movement.pair(b), Movement.pair(c))).id();
        check(&mut world, e, c);
        world.entity_mut(e).insert((Movement.pair(c), Movement.pair(a)));
        check(&mut world, e, a);
        world.entity_mut(e).insert_if_new((Movement.pair(b), Movement.pair(a)));
        check(&mut world, e, a);
        world.entity_mut(e).insert_if_new((Movement.pair(a), Movement.pair(b)));
        check(&mut world, e, b);
        let batch: Vec<Entity> = world
            .spawn_batch(vec![(Movement.pair(a), Movement.pair(b)), (Movement.pair(c), Movement.pair(a))])
            .collect();
        check(&mut world, batch[0], b);
        check(&mut world, batch[1], a);
        let mut made = None;
        apply(&mut world, |commands| {
            made = Some(commands.spawn((Movement.pair(b), Likes.pair(a), Movement.pair(c))).id())
        });
        check(&mut world, made.unwrap(), c);
    });
}

#[test]
fn a_replaced_pair_with_a_dead_target_is_ignored_by_remove_and_delete() {
    on_thread(|| {
        let mut world = World::new();
        let a = world.spawn_empty().id();
        for policy in 0..2 {
            for insert in [false, true] {
                let dead = world.spawn_empty().id();
                let existing = world.spawn(Position(7)).id();
                let mut made = None;
                apply(&mut world, |_| {});
                let mut queue = CommandQueue::default();
                let mut commands = Commands::new(&mut queue, &world);
                match (policy, insert) {
                    (0, false) => made = Some(commands.spawn((Position(1), Tied.pair(dead), Tied.pair(a))).id()),
                    (1, false) => made = Some(commands.spawn((Position(1), Docked.pair(dead), Docked.pair(a))).id()),
                    (0, true) => drop(commands.entity(existing).insert((Tied.pair(dead), Tied.pair(a)))),
                    _ => drop(commands.entity(existing).insert((Docked.pair(dead), Docked.pair(a)))),
                }
                world.despawn(dead);
                queue.apply(&mut world);
                let e = made.unwrap_or(existing);
                assert!(world.is_alive(e), "policy {policy}, insert {insert}");
                let targets: Vec<Entity> =
                    if policy == 0 { world.targets::<Tied>(e).collect() } else { world.targets::<Docked>(e).collect() };
                assert_eq!(targets, vec![a], "policy {policy}, insert {insert}");
                world.check_invariants();
            }
        }
        // The last pair's dead target does get its policy.
        let dead = world.spawn_empty().id();
        let mut queue = CommandQueue::default();
        let mut commands = Commands::new(&mut queue, &world);
        let doomed = commands.spawn((Position(1), Docked.pair(a), Docked.pair(dead))).id();
        world.despawn(dead);
        queue.apply(&mut world);
        assert!(!world.is_alive(doomed));
    });
}

#[test]

fn a_replaced_pair_with_a_dead_panic_target_does_not_panic() {
    on_thread(|| {
        let mut world = World::new();
        let a = world.spawn_empty().id();
        let dead = world.spawn_empty().id();
        let mut queue = CommandQueue::default();
        let mut commands = Commands::new(&mut queue, &world);
        let e = commands.spawn((Position(1), Anchored.pair(dead), Anchored.pair(a))).id();
        world.despawn(dead);
        let applied = catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world)));
        assert!(applied.is_ok(), "the replaced pair's policy panicked");
        assert!(world.is_alive(e));
        assert_eq!(world.targets::<Anchored>(e).collect::<Vec<_>>(), vec![a]);
    });
}

#[test]
fn names_clash_only_under_the_final_parent() {
    on_thread(|| {
        // Returns a world with parents `pa` (holding a child named "kid") and `pb`.
        let setup = || {
            let mut world = World::new();
            let (pa, pb) = (world.spawn(Name::new("pa")).id(), world.spawn(Name::new("pb")).id());
            world.spawn((Name::new("kid"), ChildOf.pair(pa)));
            (world, pa, pb)
        };
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        for path in 0..4 {
            // A clash under the replaced parent only: accepted, under `pb`.
            let (mut world, pa, pb) = setup();
            let kid = match path {
                0 => world.spawn((Name::new("kid"), ChildOf.pair(pa), ChildOf.pair(pb))).id(),
                1 => world
                    .spawn((Name::new("kid"), Position(0), ChildOf.pair(pa), Likes.pair(pa), ChildOf.pair(pb)))
                    .id(),
                2 => {
                    let kid = world.spawn(Name::new("kid2")).id();
                    world.entity_mut(kid).insert((Name::new("kid"), ChildOf.pair(pa), ChildOf.pair(pb)));
                    kid
                }
                _ => {
                    let kid = world.spawn(Name::new("kid")).id();
                    world.set_entity_range(500..600); // the root "kid" above clashes with nothing now
                    world.entity_mut(kid).insert((ChildOf.pair(pa), ChildOf.pair(pb)));
                    kid
                }
            };
            assert_eq!(world.target::<ChildOf>(kid), Some(pb), "path {path}");
            assert_eq!(world.lookup("pb::kid"), Some(kid), "path {path}");
            world.check_invariants();
            // A clash under the final parent: refused, nothing changes.
            let (mut world, pa, pb) = setup();
            let count = world.entity_count();
            let loose = world.spawn(Name::new("loose")).id();
            let refused = catch_unwind(AssertUnwindSafe(|| match path {
                0 => drop(world.spawn((Name::new("kid"), ChildOf.pair(pb), ChildOf.pair(pa)))),
                1 => drop(world.spawn((
                    Name::new("kid"),
                    Position(0),
                    ChildOf.pair(pb),
                    Likes.pair(pb),
                    ChildOf.pair(pa),
                ))),
                2 => drop(world.entity_mut(loose).insert((Name::new("kid"), ChildOf.pair(pb), ChildOf.pair(pa)))),
                _ => {
                    world.entity_mut(loose).insert(Name::new("kid2"));
                    let clash = world.spawn((Name::new("kid2"), ChildOf.pair(pa))).id();
                    let _ = clash;
                    world.entity_mut(loose).insert((ChildOf.pair(pb), ChildOf.pair(pa)));
                }
            }));
            assert!(refused.is_err(), "path {path}: a clash under the final parent was accepted");
            assert_eq!(world.target::<ChildOf>(loose), None, "path {path}");
            assert_eq!(world.children(pb).count(), 0, "path {path}");
            assert!(world.children(pa).count() <= 2, "path {path}");
            if path < 2 {
                assert_eq!(world.entity_count(), count + 1, "path {path}: a refused spawn left an entity");
            }
            world.check_invariants();
        }
        // Commands: the clash under the replaced parent is accepted.
        let (mut world, pa, pb) = setup();
        let mut made = None;
        apply(&mut world, |commands| {
            made = Some(commands.spawn((Name::new("kid"), ChildOf.pair(pa), ChildOf.pair(pb))).id())
        });
        assert_eq!(world.lookup("pb::kid"), made);
        std::panic::set_hook(quiet);
    });
}

#[test]
fn instance_bundles_keep_the_bundles_last_pair_over_the_bases() {
    on_thread(|| {
        let mut world = World::new();
        let [x, a, b, p] = [(); 4].map(|()| world.spawn_empty().id());
        let base = world.spawn((Prefab, Holds(Tr::new(1)).pair(x))).id();
        for order in 0..4 {
            let e = match order {
                0 => world.spawn((IsA.pair(base), Holds(Tr::new(10)).pair(a), Holds(Tr::new(11)).pair(b))).id(),
                1 => world.spawn((Holds(Tr::new(10)).pair(a), IsA.pair(base), Holds(Tr::new(11)).pair(b))).id(),
                2 => world.spawn((Holds(Tr::new(10)).pair(a), Holds(Tr::new(11)).pair(b), IsA.pair(base))).id(),
                _ => world
                    .spawn((
                        Holds(Tr::new(10)).pair(a),
                        ChildOf.pair(x),
                        Holds(Tr::new(11)).pair(b),
                        IsA.pair(base),
                        ChildOf.pair(p),
                    ))
                    .id(),
            };
            assert_eq!(world.targets::<Holds>(e).collect::<Vec<_>>(), vec![b], "order {order}");
            assert_eq!(world.get_pair::<Holds>(e, b).map(|v| v.0.0), Some(11), "order {order}");
            assert!(world.has_pair::<IsA>(e, base), "order {order}");
            assert_eq!(holds_of(&mut world, e), vec![(b, 11)], "order {order}");
            let copies: Vec<u32> = drops().into_iter().filter(|&v| v != 10).collect();
            assert!(copies.iter().all(|&v| v == 1001), "order {order}: {copies:?}");
            if order == 3 {
                assert_eq!(world.target::<ChildOf>(e), Some(p));
            }
            world.check_invariants();
        }
        drop(world);
        assert_eq!(live(), 0);
    });
}
