//! Parser and printer edge cases against a fixed name table (the integration
//! tests in `tests/tests/dsl.rs` run the same forms against a real world).

use super::*;
use crate::query::{TermAccess, TermMatch, TermOper, TermRef, Traversal};

/// `A`, `B`, `C` (components), `Rel` (a relationship), `Up` (traversable),
/// `ChildOf` (traversable), `game::Thing`, `up` and `self` (awkward names),
/// `Shadow` (prints as `A`, which resolves elsewhere).
struct Names;

const A: Entity = Entity::from_raw(10, 0);
const B: Entity = Entity::from_raw(11, 0);
const C: Entity = Entity::from_raw(12, 0);
const REL: Entity = Entity::from_raw(13, 0);
const UP_REL: Entity = Entity::from_raw(14, 0);
const CHILD_OF: Entity = Entity::from_raw(15, 0);
const THING: Entity = Entity::from_raw(16, 0);
const NAMED_UP: Entity = Entity::from_raw(17, 0);
const NAMED_SELF: Entity = Entity::from_raw(18, 0);
const SHADOW: Entity = Entity::from_raw(19, 0);

const TABLE: [(&str, Entity); 9] = [
    ("A", A),
    ("B", B),
    ("C", C),
    ("Rel", REL),
    ("Up", UP_REL),
    ("ChildOf", CHILD_OF),
    ("game::Thing", THING),
    ("up", NAMED_UP),
    ("self", NAMED_SELF),
];

impl DslNames for Names {
    fn lookup_name(&self, name: &str) -> Option<Entity> {
        TABLE.iter().find(|(known, _)| *known == name).map(|&(_, entity)| entity)
    }

    fn name_of(&self, entity: Entity) -> Option<String> {
        if entity == SHADOW {
            return Some("A".to_string());
        }
        TABLE.iter().find(|(_, known)| *known == entity).map(|(name, _)| name.to_string())
    }

    fn is_traversable(&self, relationship: Entity) -> bool {
        relationship == UP_REL || relationship == CHILD_OF
    }
}

fn parse(input: &str) -> Vec<Term> {
    parse_query(input, &Names).unwrap_or_else(|error| panic!("{input:?}: {error}"))
}

fn error(input: &str) -> (usize, String) {
    match parse_query(input, &Names) {
        Ok(terms) => panic!("{input:?} parsed: {terms:?}"),
        Err(error) => (error.offset, error.message),
    }
}

fn var(name: &str) -> TermRef {
    TermRef::Var(name.to_string())
}

fn pair(first: TermRef, second: TermRef) -> Term {
    Term::new(TermMatch::pair(first, second))
}

/// Prints `input`'s terms, expects `printed`, and parses that back.
fn round_trip(input: &str, printed: &str) {
    let terms = parse(input);
    let text = print_query(&terms, &Names);
    assert_eq!(text, printed, "{input:?}");
    assert_eq!(parse_query(&text, &Names), Ok(terms), "{input:?} printed as {text:?}");
}

#[test]
fn components_sources_and_pairs() {
    assert_eq!(parse("A"), vec![Term::new(TermMatch::component(A))]);
    assert_eq!(parse(" A ( $this ) "), vec![Term::new(TermMatch::component(A))]);
    assert_eq!(parse("A(B)"), vec![Term::new(TermMatch::component(A)).with_source(TermRef::Entity(B))]);
    assert_eq!(parse("game::Thing"), vec![Term::new(TermMatch::component(THING))]);
    assert_eq!(parse("(Rel, *)"), vec![pair(TermRef::Entity(REL), TermRef::Wildcard)]);
    assert_eq!(parse("(_, A)"), vec![pair(TermRef::Any, TermRef::Entity(A))]);
    assert_eq!(parse("Rel($x, $y), A($x), B($y)")[0], pair(TermRef::Entity(REL), var("y")).with_source(var("x")));
    assert_eq!(
        parse("$c($this), A")[0],
        Term {
            alternatives: smallvec::smallvec![TermMatch { first: var("c"), second: None }],
            ..parse("A")[0].clone()
        }
    );
    assert_eq!(parse("*")[0].first_match().first, TermRef::Wildcard);
    assert_eq!(parse("#42949672970")[0], Term::new(TermMatch::component(Entity::from_raw(10, 10))));
}

#[test]
fn keywords_are_names_outside_places() {
    assert_eq!(parse("up")[0], Term::new(TermMatch::component(NAMED_UP)));
    assert_eq!(parse("self(A)")[0], Term::new(TermMatch::component(NAMED_SELF)).with_source(TermRef::Entity(A)));
    // `up` the relationship, which is not traversable.
    assert_eq!(error("A(up up)"), (5, "`up` is not a traversable relationship".to_string()));
}

#[test]
fn opers_access_and_traversal() {
    let terms = parse("[in] A, [out] !B, [inout] ?C, [none] A(up), A(self|up Up), A(self), A($x|up), B($x|self|up)");
    assert_eq!(terms[0].access, TermAccess::In);
    assert_eq!((terms[1].access, terms[1].oper), (TermAccess::Out, TermOper::Not));
    assert_eq!((terms[2].access, terms[2].oper), (TermAccess::InOut, TermOper::Optional));
    assert_eq!((terms[3].access, &terms[3].traversal), (TermAccess::None, &Traversal::Up(CHILD_OF)));
    assert_eq!(terms[4].traversal, Traversal::SelfUp(UP_REL));
    assert_eq!(terms[5].traversal, Traversal::Owned, "`self` written out: owned ids only");
    assert_eq!((&terms[6].source, &terms[6].traversal), (&var("x"), &Traversal::Up(CHILD_OF)));
    assert_eq!((&terms[7].source, &terms[7].traversal), (&var("x"), &Traversal::SelfUp(CHILD_OF)));
    let pair_up = &parse("Rel(up Up, A)")[0];
    assert_eq!((&pair_up.source, &pair_up.traversal), (&TermRef::This, &Traversal::Up(UP_REL)));
}

#[test]
fn or_chains_are_one_term() {
    let terms = parse("A || B || (Rel, C), [in] A($x) || B($x)");
    assert_eq!(terms.len(), 2);
    assert_eq!(terms[0].alternatives.len(), 3);
    assert_eq!(terms[0].alternatives[2], TermMatch::pair(TermRef::Entity(REL), TermRef::Entity(C)));
    assert_eq!((&terms[1].source, terms[1].access), (&var("x"), TermAccess::In));
}

#[test]
fn errors_point_at_the_wrong_token() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 0, "empty query"),
        ("   ", 3, "empty query"),
        ("Nope", 0, "unknown name `Nope`"),
        ("A, game::Nope", 3, "unknown name `game::Nope`"),
        ("A B", 2, "expected `,` or end of input, found `B`"),
        ("A)", 1, "unbalanced `)`"),
        ("(A, B", 5, "expected `)`, found end of input (unbalanced `(` at byte 0)"),
        ("A(B, C, A)", 6, "expected `)`, found `,`"),
        ("(A B)", 3, "expected `,`, found `B`"),
        ("A,", 2, "expected a term"),
        (",A", 0, "expected a term"),
        ("A(", 2, "expected a source"),
        ("[in A", 4, "expected `]`, found `A`"),
        ("[write] A", 1, "unknown access modifier `write`"),
        ("[] A", 1, "unknown access modifier `]`"),
        ("!A || B", 0, "`!` cannot prefix an or-chain"),
        ("?A || B", 0, "`?` cannot prefix an or-chain"),
        ("A || !B", 5, "`!` inside an or-chain"),
        ("A || ?B", 5, "`?` inside an or-chain"),
        ("A($x) || B, C($x)", 9, "share one source"),
        ("A || B(up)", 7, "share one source"),
        ("A(up Rel)", 5, "`Rel` is not a traversable relationship"),
        ("A(self|up #55834574858)", 10, "`#55834574858` is not a traversable relationship"),
        ("A(self|B)", 7, "expected `up` after `self|`"),
        ("A(B|C)", 4, "expected `self` or `up`"),
        ("!A($x)", 3, "unbound variable `$x`"),
        ("A, !(Rel, $y), ?B($y), C($z)", 10, "unbound variable `$y`"),
        ("A(*)", 2, "`*` cannot be a source"),
        ("A(_)", 2, "`_` cannot be a source"),
        ("#0", 0, "`#0` is no entity id"),
        ("#", 0, "expected the decimal bits"),
        ("#18446744073709551616", 0, "does not fit 64 bits"),
        ("A, é", 3, "unexpected character `é`"),
        ("A::", 3, "expected a name segment after `::`"),
        ("$ A", 0, "expected a variable name after `$`"),
        ("A || B C ü", 7, "expected `,` or end of input, found `C`"),
    ];
    for &(input, offset, message) in cases {
        let (actual_offset, actual_message) = error(input);
        assert_eq!(actual_offset, offset, "{input:?}: {actual_message}");
        assert!(actual_message.contains(message), "{input:?}: {actual_message:?} lacks {message:?}");
    }
}

#[test]
fn up_without_child_of_is_an_error() {
    struct NoChildOf;
    impl DslNames for NoChildOf {
        fn lookup_name(&self, name: &str) -> Option<Entity> {
            (name == "A").then_some(A)
        }
        fn name_of(&self, _: Entity) -> Option<String> {
            None
        }
        fn is_traversable(&self, _: Entity) -> bool {
            true
        }
    }
    let error = parse_query("A(self|up)", &NoChildOf).unwrap_err();
    assert_eq!(error.offset, 7);
    assert!(error.message.contains("`ChildOf` is unknown"), "{error}");
}

#[test]
fn printing_is_canonical_and_round_trips() {
    round_trip("A", "A");
    round_trip("A($this)", "A");
    round_trip("  [inout]?A(B),!(Rel,*)", "[inout] ?A(B), !(Rel, *)");
    round_trip("Rel($this, _)", "(Rel, _)");
    round_trip("Rel($x, $y), $y($x)", "Rel($x, $y), $y($x)");
    round_trip("A(up)", "A(up ChildOf)");
    round_trip("A($x|self|up Up), B($x)", "A($x|self|up Up), B($x)");
    round_trip("Rel(up, A)", "Rel(up ChildOf, A)");
    round_trip("A(self) || B(self)", "A(self) || B(self)");
    round_trip("A(#73014444042) || B(#73014444042)", "A(#73014444042) || B(#73014444042)");
    round_trip("A(B|up) || game::Thing(B|up)", "A(B|up ChildOf) || game::Thing(B|up ChildOf)");
    // Names that would not read back print as ids: keywords, and a name that resolves elsewhere.
    round_trip("up(A), self(A), A(self)", "#17(A), #18(A), A(self)");
    let shadow = [Term::new(TermMatch::component(SHADOW))];
    assert_eq!(print_query(&shadow, &Names), format!("#{}", SHADOW.to_bits()));
}

#[test]
fn never_panics_on_awkward_input() {
    let inputs = [
        "(",
        ")",
        "((",
        "[",
        "]",
        "[in]",
        "[in",
        "!",
        "?",
        "||",
        "|",
        "A ||",
        "A |",
        "A(|",
        "A($x|",
        "A(up |",
        "A(self|",
        "A(self|up",
        "A(self|up Up",
        "(A,",
        "(A, B,",
        "$",
        "$$",
        "#",
        "#-1",
        "::",
        "A::B::",
        "\u{0}",
        "é",
        "A(é)",
        "\u{feff}A",
        "A\u{2003},\u{2003}B",
        "Aé",
        "#1é",
        "$xé",
    ];
    for input in inputs {
        let _ = parse_query(input, &Names);
    }
    // Every prefix of a long valid query is an error or parses, at a char boundary.
    let query = "[in] A($x|self|up Up) || B($x|self|up Up), ?Rel($x, #73014444042), !(Rel, *)";
    for end in 0..=query.len() {
        if let Err(error) = parse_query(&query[..end], &Names) {
            assert!(error.offset <= end);
        }
    }
}

#[test]
fn error_display() {
    let error = DslError { offset: 3, message: "unknown name `X`".to_string() };
    assert_eq!(error.to_string(), "at byte 3: unknown name `X`");
    let boxed: Box<dyn std::error::Error> = Box::new(error);
    assert!(boxed.to_string().starts_with("at byte 3"));
}
