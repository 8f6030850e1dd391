//! The query DSL against a real world: every form of the language parsed into the
//! expected terms, every error with its exact byte offset, and properties:
//! random term lists print and parse back to equal terms, and random text (bytes,
//! token soups) never panics the parser.

use ecs::query::{DslNames, Term, TermAccess, TermMatch, TermOper, TermRef, Traversal, parse_query, print_query};
use ecs_tests::{Enemy, Position, Velocity};
use proptest::prelude::*;

use ecs::prelude::*;

/// Health of a unit.
#[derive(Component, Debug)]
struct Health;

/// A singleton-like component used as a fixed source.
#[derive(Component, Debug)]
struct Game;

/// A tag relationship (not traversable).
#[derive(Relationship, Debug)]
struct Likes;

/// A traversable relationship besides `ChildOf`.
#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct LocatedIn;

/// The or-chain `first || rest...` on `$this`.
fn alternatives(first: TermMatch, rest: impl IntoIterator<Item = TermMatch>) -> Term {
    let mut term = Term::new(first);
    term.alternatives.extend(rest);
    term
}

/// The ids of the fixture's components and relationships.
struct Ids {
    position: Entity,
    velocity: Entity,
    enemy: Entity,
    health: Entity,
    game: Entity,
    likes: Entity,
    located_in: Entity,
    child_of: Entity,
}

fn fixture() -> (World, Ids) {
    let mut world = World::new();
    let ids = Ids {
        position: world.register_component::<Position>(),
        velocity: world.register_component::<Velocity>(),
        enemy: world.register_component::<Enemy>(),
        health: world.register_component::<Health>(),
        game: world.register_component::<Game>(),
        likes: world.register_component::<Likes>(),
        located_in: world.register_component::<LocatedIn>(),
        child_of: world.register_component::<ChildOf>(),
    };
    // The unnamed entities of `entity_pool`, alive: `#bits` of a dead entity
    // is an error.
    for unnamed in UNNAMED {
        world.spawn_at(unnamed).expect("a free id");
    }
    (world, ids)
}

/// Unnamed entities random terms use (written `#bits`).
const UNNAMED: [Entity; 3] =
    [Entity::from_raw(500, 0), Entity::from_raw(77, 3), Entity::from_raw(u32::MAX - 1, 0x7FFF_FFFF)];

fn parse(world: &World, input: &str) -> Vec<Term> {
    parse_query(input, world).unwrap_or_else(|error| panic!("{input:?}: {error}"))
}

fn component(id: Entity) -> Term {
    Term::new(TermMatch::component(id))
}

fn pair(first: TermRef, second: TermRef) -> Term {
    Term::new(TermMatch::pair(first, second))
}

fn var(name: &str) -> TermRef {
    TermRef::Var(name.to_string())
}

fn entity(id: Entity) -> TermRef {
    TermRef::Entity(id)
}

// ----- forms -------------------------------------------------------------------------

#[test]
fn names_and_sources() {
    let (mut world, ids) = fixture();
    assert_eq!(parse(&world, "Position"), vec![component(ids.position)]);
    assert_eq!(parse(&world, "ecs_tests::Position"), vec![component(ids.position)]);
    assert_eq!(parse(&world, "Position($this)"), vec![component(ids.position)]);
    assert_eq!(parse(&world, "Position(Game)"), vec![component(ids.position).with_source(entity(ids.game))]);
    assert_eq!(
        parse(&world, "Health, Position($target), Likes($this, $target)"),
        vec![
            component(ids.health),
            component(ids.position).with_source(var("target")),
            pair(entity(ids.likes), var("target")),
        ]
    );
    let unnamed = world.spawn_empty().id();
    let text = format!("Position(#{})", unnamed.to_bits());
    assert_eq!(parse(&world, &text), vec![component(ids.position).with_source(entity(unnamed))]);
}

#[test]
fn pairs_wildcards_and_variables() {
    let (world, ids) = fixture();
    assert_eq!(
        parse(&world, "(Likes, *), (*, Enemy), (_, _), (Likes, $x), ($r, Enemy)"),
        vec![
            pair(entity(ids.likes), TermRef::Wildcard),
            pair(TermRef::Wildcard, entity(ids.enemy)),
            pair(TermRef::Any, TermRef::Any),
            pair(entity(ids.likes), var("x")),
            pair(var("r"), entity(ids.enemy)),
        ]
    );
    assert_eq!(parse(&world, "Likes(Game, $x)"), vec![pair(entity(ids.likes), var("x")).with_source(entity(ids.game))]);
    // `$var` as a whole term's name.
    assert_eq!(
        parse(&world, "$c($this), (Likes, $c)"),
        vec![Term::new(TermMatch { first: var("c"), second: None }), pair(entity(ids.likes), var("c"))]
    );
    assert_eq!(parse(&world, "*"), vec![Term::new(TermMatch { first: TermRef::Wildcard, second: None })]);
}

#[test]
fn operators_and_access() {
    let (world, ids) = fixture();
    assert_eq!(
        parse(&world, "Position, [in] Velocity, !Enemy, ?Health, [out] Position, [inout] ?Health, [none] !Enemy"),
        vec![
            component(ids.position),
            component(ids.velocity).with_access(TermAccess::In),
            component(ids.enemy).with_oper(TermOper::Not),
            component(ids.health).with_oper(TermOper::Optional),
            component(ids.position).with_access(TermAccess::Out),
            component(ids.health).with_access(TermAccess::InOut).with_oper(TermOper::Optional),
            component(ids.enemy).with_access(TermAccess::None).with_oper(TermOper::Not),
        ]
    );
}

#[test]
fn or_chains_are_one_term_with_one_source() {
    let (world, ids) = fixture();
    let terms = parse(&world, "Position || Velocity || (Likes, *), Health");
    assert_eq!(
        terms,
        vec![
            alternatives(
                TermMatch::component(ids.position),
                [TermMatch::component(ids.velocity), TermMatch::pair(entity(ids.likes), TermRef::Wildcard)]
            ),
            component(ids.health),
        ]
    );
    assert_eq!(
        parse(&world, "[in] Position(Game) || Velocity(Game)"),
        vec![
            alternatives(TermMatch::component(ids.position), [TermMatch::component(ids.velocity)])
                .with_source(entity(ids.game))
                .with_access(TermAccess::In)
        ]
    );
}

#[test]
fn traversal() {
    let (world, ids) = fixture();
    let up = |traversal: Traversal| component(ids.position).with_traversal(traversal);
    assert_eq!(
        parse(&world, "Position(up LocatedIn), Position(self|up LocatedIn), Position(up), Position(self|up)"),
        vec![
            up(Traversal::Up(ids.located_in)),
            up(Traversal::SelfUp(ids.located_in)),
            up(Traversal::Up(ids.child_of)),
            up(Traversal::SelfUp(ids.child_of)),
        ]
    );
    assert_eq!(
        parse(&world, "Position($p|up), Health($p)"),
        vec![up(Traversal::Up(ids.child_of)).with_source(var("p")), component(ids.health).with_source(var("p"))]
    );
    // `self` written out: owned ids only (Flecs' explicit `self`).
    let mut owned = component(ids.position);
    owned.traversal = Traversal::Owned;
    assert_eq!(parse(&world, "Position(self)"), vec![owned]);
}

#[test]
fn up_alone_means_child_of_which_every_world_knows() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let child_of = world.lookup("ChildOf").expect("every world registers ChildOf");
    let terms = parse_query("Position(up)", &world).unwrap();
    assert_eq!(terms, vec![Term::new(TermMatch::component(position)).with_traversal(Traversal::Up(child_of))]);
}

#[test]
fn the_api_examples_parse() {
    let (world, ids) = fixture();
    let terms = parse(&world, "Position, [in] Velocity, !Enemy, ?Health, (Likes, *), Position(up ChildOf)");
    assert_eq!(terms.len(), 6);
    assert_eq!(terms[5], component(ids.position).with_traversal(Traversal::Up(ids.child_of)));
    let terms = parse(&world, "Position, (Likes, $planet), Health($planet), Likes($planet, $faction)");
    assert_eq!(terms[3], pair(entity(ids.likes), var("faction")).with_source(var("planet")));
}

// ----- errors ------------------------------------------------------------------------

#[test]
fn errors_have_exact_offsets() {
    let (world, _) = fixture();
    let cases: &[(&str, usize, &str)] = &[
        // empty input and unexpected end
        ("", 0, "empty query"),
        (" \t\n", 3, "empty query"),
        ("Position,", 9, "expected a term (a name, `#id`, `*`, `_` or `$variable`), found end of input"),
        ("Likes(Game,", 11, "expected a pair target"),
        ("[in]", 4, "expected a term"),
        // unknown names
        ("Nope", 0, "unknown name `Nope`"),
        ("Position, (Likes, Nope)", 18, "unknown name `Nope`"),
        ("Position(up Nope)", 12, "unknown name `Nope`"),
        ("my_game::Position", 0, "unknown name `my_game::Position`"),
        // bad syntax
        ("Position Velocity", 9, "expected `,` or end of input, found `Velocity`"),
        ("(Likes Enemy)", 7, "expected `,`, found `Enemy`"),
        ("Position;", 8, "unexpected character `;`"),
        ("Position, ,Velocity", 10, "expected a term"),
        // unbalanced parens
        ("(Likes, *", 9, "expected `)`, found end of input (unbalanced `(` at byte 0)"),
        ("Position(Game", 13, "expected `)`, found end of input (unbalanced `(` at byte 8)"),
        ("Position)", 8, "unbalanced `)`: expected `,` or end of input"),
        ("(Likes, *))", 10, "unbalanced `)`"),
        ("((Likes, *))", 1, "expected a term"),
        // access modifiers
        ("[write] Position", 1, "unknown access modifier `write`: expected `in`, `out`, `inout` or `none`"),
        ("[in Position", 4, "expected `]`, found `Position`"),
        // or-chains
        ("Position || !Velocity", 12, "`!` inside an or-chain (`!` and `?` inside an or-chain are errors)"),
        ("Position || ?Velocity", 12, "`?` inside an or-chain"),
        ("!Position || Velocity", 0, "`!` cannot prefix an or-chain (`!` and `?` inside an or-chain are errors)"),
        ("?Position || Velocity", 0, "`?` cannot prefix an or-chain"),
        ("Position(Game) || Velocity", 18, "share one source"),
        ("Position || Velocity(up)", 21, "share one source"),
        ("Position ||", 11, "expected a term"),
        // traversal
        ("Position(up Likes)", 12, "`Likes` is not a traversable relationship"),
        ("Position(self|up Health)", 17, "`Health` is not a traversable relationship"),
        ("Position(self|Game)", 14, "expected `up` after `self|`, found `Game`"),
        ("Position(Game|LocatedIn)", 14, "expected `self` or `up`, found `LocatedIn`"),
        // variables
        ("!Position($x)", 10, "unbound variable `$x`: no required term binds it, nor the id of an optional one"),
        ("!(Likes, $y), Position", 9, "unbound variable `$y`"),
        ("Position, ?Health($y)", 18, "unbound variable `$y`"),
        ("Position($a), ?Likes($b, $a)", 21, "unbound variable `$b`"),
        ("Position(*)", 9, "`*` cannot be a source"),
        ("$", 0, "expected a variable name after `$`"),
        // entity literals
        ("#0", 0, "`#0` is no entity id (index 0 or a pair)"),
        ("#4294967296", 0, "`#4294967296` is no entity id"),
        ("#9223372036854775809", 0, "no entity id"),
        ("#18446744073709551616", 0, "`#18446744073709551616` does not fit 64 bits"),
        ("Position(#)", 9, "expected the decimal bits of an entity after `#`"),
        // non-ASCII
        ("Position, Größe", 12, "unexpected character `ö` (names are ASCII)"),
        ("Pos\u{0301}ition", 3, "unexpected character `\\u{301}` (names are ASCII)"),
        ("$größe", 3, "unexpected character `ö` (names are ASCII)"),
        ("\u{1F980}", 0, "unexpected character `\u{1F980}`"),
    ];
    for &(input, offset, message) in cases {
        let error = match parse_query(input, &world) {
            Ok(terms) => panic!("{input:?} parsed: {terms:?}"),
            Err(error) => error,
        };
        assert!(error.message.contains(message), "{input:?}: {:?} lacks {message:?}", error.message);
        assert_eq!(error.offset, offset, "{input:?}: {error}");
        assert_eq!(error.to_string(), format!("at byte {offset}: {}", error.message));
    }
}

// ----- printing ----------------------------------------------------------------------

#[test]
fn printing_is_canonical() {
    let (mut world, _) = fixture();
    let cases = [
        ("Position", "Position"),
        ("ecs_tests::Position($this)", "Position"),
        ("[in]Velocity,!Enemy,?Health", "[in] Velocity, !Enemy, ?Health"),
        ("Likes($this,*)", "(Likes, *)"),
        ("Likes(Game, $x)", "Likes(Game, $x)"),
        ("Position, Likes($x,$this)", "Position, Likes($x, $this)"),
        ("$c($this), (Likes, $c)", "$c, (Likes, $c)"),
        ("Position(up)", "Position(up ChildOf)"),
        ("Position(self | up LocatedIn)", "Position(self|up LocatedIn)"),
        ("Position($p|up), Health($p)", "Position($p|up ChildOf), Health($p)"),
        ("Likes(up, _)", "Likes(up ChildOf, _)"),
        ("Position(Game)||Velocity(Game)", "Position(Game) || Velocity(Game)"),
    ];
    for (input, printed) in cases {
        let terms = parse(&world, input);
        assert_eq!(print_query(&terms, &world), printed, "{input:?}");
        assert_eq!(parse_query(printed, &world), Ok(terms), "{printed:?}");
    }
    // Unnamed entities print as `#bits` and read back.
    let unnamed = world.spawn_empty().id();
    let terms = vec![component(world.lookup("Position").unwrap()).with_source(entity(unnamed))];
    let text = print_query(&terms, &world);
    assert_eq!(text, format!("Position(#{})", unnamed.to_bits()));
    assert_eq!(parse_query(&text, &world), Ok(terms));
}

#[test]
fn world_names() {
    let (world, ids) = fixture();
    assert_eq!(world.lookup_name("Health"), Some(ids.health));
    assert_eq!(world.name_of(ids.health).as_deref(), Some("Health"));
    assert_eq!(world.name_of(Entity::from_raw(999, 0)), None);
    assert!(world.is_traversable(ids.child_of) && world.is_traversable(ids.located_in));
    assert!(!world.is_traversable(ids.likes) && !world.is_traversable(ids.position));
}

// ----- properties --------------------------------------------------------------------

/// The entities random terms draw from: the fixture's ids, and unnamed ones.
fn entity_pool(ids: &Ids) -> Vec<Entity> {
    vec![
        ids.position,
        ids.velocity,
        ids.enemy,
        ids.health,
        ids.game,
        ids.likes,
        ids.located_in,
        ids.child_of,
        UNNAMED[0],
        UNNAMED[1],
        UNNAMED[2],
    ]
}

/// A random term, described by indices so one strategy serves any world.
#[derive(Clone, Debug)]
struct TermSeed {
    alternatives: Vec<(RefSeed, Option<RefSeed>)>,
    source: RefSeed,
    oper: u8,
    access: u8,
    traversal: u8,
}

/// A random reference: 0..=2 `*`, `_`, `$this`, 3..=5 a variable, else an entity.
#[derive(Clone, Copy, Debug)]
struct RefSeed(u8, u8);

fn ref_seed() -> impl Strategy<Value = RefSeed> {
    (0u8..12, any::<u8>()).prop_map(|(kind, pick)| RefSeed(kind, pick))
}

fn term_seed() -> impl Strategy<Value = TermSeed> {
    (prop::collection::vec((ref_seed(), prop::option::of(ref_seed())), 1..4), ref_seed(), 0u8..3, 0u8..5, 0u8..6)
        .prop_map(|(alternatives, source, oper, access, traversal)| TermSeed {
            alternatives,
            source,
            oper,
            access,
            traversal,
        })
}

const VARIABLES: [&str; 3] = ["a", "b", "x_1"];

/// A reference for a first or second position (never `$this`).
fn match_ref(seed: RefSeed, pool: &[Entity]) -> TermRef {
    match seed.0 {
        0 => TermRef::Wildcard,
        1 => TermRef::Any,
        2..=5 => var(VARIABLES[seed.1 as usize % VARIABLES.len()]),
        _ => entity(pool[seed.1 as usize % pool.len()]),
    }
}

/// A reference for a source (never `*` or `_`).
fn source_ref(seed: RefSeed, pool: &[Entity]) -> TermRef {
    match seed.0 {
        0..=2 => TermRef::This,
        3..=5 => var(VARIABLES[seed.1 as usize % VARIABLES.len()]),
        _ => entity(pool[seed.1 as usize % pool.len()]),
    }
}

/// Terms `parse_query` accepts: or-chains are `And`, traversals use traversable
/// relationships, and every variable gets a required term binding it.
fn build_terms(seeds: &[TermSeed], ids: &Ids) -> Vec<Term> {
    let pool = entity_pool(ids);
    let mut terms: Vec<Term> = seeds
        .iter()
        .map(|seed| {
            let mut alternatives = seed.alternatives.iter().map(|(first, second)| {
                let second = second.map(|second| match_ref(second, &pool));
                let first = match match_ref(*first, &pool) {
                    // A pair's relationship fits 31 bits (the parser refuses a wider one).
                    TermRef::Entity(wide) if second.is_some() && wide.index() > Entity::MAX_RELATIONSHIP_INDEX => {
                        TermRef::Wildcard
                    }
                    first => first,
                };
                TermMatch { first, second }
            });
            let mut term = Term::new(alternatives.next().expect("at least one alternative"));
            term.alternatives.extend(alternatives);
            term.source = source_ref(seed.source, &pool);
            term.oper = match (seed.oper, term.is_or()) {
                (1, false) => TermOper::Not,
                (2, false) => TermOper::Optional,
                _ => TermOper::And,
            };
            term.access = [TermAccess::Default, TermAccess::In, TermAccess::Out, TermAccess::InOut, TermAccess::None]
                [seed.access as usize];
            term.traversal = match seed.traversal {
                1 => Traversal::Up(ids.child_of),
                2 => Traversal::SelfUp(ids.child_of),
                3 => Traversal::Up(ids.located_in),
                4 => Traversal::SelfUp(ids.located_in),
                5 => Traversal::Owned,
                _ => Traversal::SelfOnly,
            };
            term
        })
        .collect();
    let mut used: Vec<String> = terms.iter().flat_map(|term| term.variables().map(str::to_string)).collect();
    used.sort();
    used.dedup();
    for name in used {
        terms.push(component(ids.position).with_source(TermRef::Var(name)));
    }
    terms
}

/// Pieces of query text, valid and not, for token soups.
const PIECES: &[&str] = &[
    "Position",
    "Velocity",
    "Likes",
    "LocatedIn",
    "ChildOf",
    "Game",
    "Nope",
    "ecs_tests::Position",
    "up",
    "self",
    "$x",
    "$this",
    "$",
    "*",
    "_",
    "#1",
    "#0",
    "#4294967306",
    "#",
    "(",
    ")",
    "[",
    "]",
    "in",
    "out",
    "inout",
    "none",
    "!",
    "?",
    "||",
    "|",
    ",",
    "::",
    " ",
    "é",
    "\u{1F980}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn printed_terms_parse_back(seeds in prop::collection::vec(term_seed(), 1..6)) {
        let (world, ids) = fixture();
        let terms = build_terms(&seeds, &ids);
        let text = print_query(&terms, &world);
        prop_assert_eq!(parse_query(&text, &world), Ok(terms), "{}", text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let (world, _) = fixture();
        check_any_text(&world, &String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn token_soups_never_panic_and_round_trip(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..16)) {
        let (world, _) = fixture();
        check_any_text(&world, &pieces.concat())?;
        check_any_text(&world, &pieces.join(" "))?;
    }
}

/// Parsing `text` does not panic; an error points into the text at a char
/// boundary; a success prints and parses back to the same terms.
fn check_any_text(world: &World, text: &str) -> Result<(), TestCaseError> {
    match parse_query(text, world) {
        Ok(terms) => {
            let printed = print_query(&terms, world);
            prop_assert_eq!(parse_query(&printed, world), Ok(terms), "{:?} printed as {:?}", text, printed);
        }
        Err(error) => {
            prop_assert!(error.offset <= text.len() && text.is_char_boundary(error.offset), "{:?}: {}", text, error);
        }
    }
    Ok(())
}

#[test]
fn to_dsl_prints_bits_after_a_rename_and_the_new_name_after_the_next_use() {
    let (mut world, ids) = fixture();
    let target = world.spawn(Name::new("home")).id();
    world.spawn(Name::new("other"));
    let mut q = world.query_dsl("(Likes, home)").unwrap();
    assert_eq!(q.to_dsl(), "(Likes, home)");
    world.entity_mut(target).insert(Name::new("house"));
    let printed = q.to_dsl();
    assert_eq!(printed, format!("(#{}, #{})", ids.likes.to_bits(), target.to_bits()), "stale names are not printed");
    assert_eq!(parse(&world, &printed), q.terms());
    let _ = q.iter(&world).count();
    assert_eq!(q.to_dsl(), "(Likes, house)");
    // A named entity moved under a parent: its path changed.
    let parent = world.spawn(Name::new("street")).id();
    world.add_pair::<ChildOf>(target, parent);
    assert!(q.to_dsl().contains('#'));
    let _ = q.iter(&world).count();
    assert_eq!(q.to_dsl(), "(Likes, street::house)");
}
