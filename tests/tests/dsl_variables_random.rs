//! Random DSL queries with variables, optional and or terms against random
//! worlds: building never panics (an error is fine: an unbound variable is
//! one), and the cached and the uncached build of one text yield the same
//! rows, also after the world changes under the cached one. The planner
//! orders terms by which binds a variable first (Flecs: the first term
//! naming it, in written order; an optional term or a partial or-chain binds
//! it conditionally), so random shapes reach its corners.

use ecs::prelude::*;
use proptest::prelude::*;

#[derive(Component)]
struct TagA;
#[derive(Component)]
struct TagB;
#[derive(Component)]
struct TagC;
#[derive(Relationship)]
struct RelA;
#[derive(Relationship)]
struct RelB;

const TAGS: [&str; 3] = ["TagA", "TagB", "TagC"];
const RELS: [&str; 2] = ["RelA", "RelB"];
const VARS: [&str; 3] = ["$x", "$y", "$this"];

/// One random term as DSL text.
fn term() -> impl Strategy<Value = String> {
    let source = prop::sample::select(&VARS[..]);
    let reference = prop::sample::select(vec!["$x", "$y", "*"]);
    let single = prop_oneof![
        (prop::sample::select(&TAGS[..]), source.clone()).prop_map(|(tag, src)| format!("{tag}({src})")),
        (prop::sample::select(&RELS[..]), source, reference).prop_map(|(rel, src, tgt)| format!("{rel}({src}, {tgt})")),
    ];
    (single.clone(), prop::option::of(single), 0..4u8).prop_map(|(first, second, prefix)| match (prefix, second) {
        (0, Some(second)) => format!("{first} || {second}"),
        (1, _) => format!("?{first}"),
        (2, _) => format!("!{first}"),
        _ => first,
    })
}

/// Applies random structure to a world: entities with tags and pairs.
fn populate(world: &mut World, ops: &[(u8, u8, u8)]) -> Vec<Entity> {
    let mut entities: Vec<Entity> = (0..6).map(|_| world.spawn_empty().id()).collect();
    for &(kind, a, b) in ops {
        let (a, b) = (entities[a as usize % entities.len()], entities[b as usize % entities.len()]);
        match kind % 7 {
            0 => drop(world.entity_mut(a).insert(TagA)),
            1 => drop(world.entity_mut(a).insert(TagB)),
            2 => drop(world.entity_mut(a).insert(TagC)),
            3 => drop(world.entity_mut(a).add_pair::<RelA>(b)),
            4 => drop(world.entity_mut(a).add_pair::<RelB>(b)),
            5 => drop(world.entity_mut(a).remove::<TagA>()),
            _ => entities.push(world.spawn(TagB).id()),
        }
    }
    entities
}

/// One row: its entity (`None` without `$this`), the variables `x` and `y`,
/// and which terms are set.
type Row = (Option<Entity>, Vec<Option<Entity>>, Vec<bool>);

/// The rows of `q`, sorted.
fn rows(q: &mut DynQuery, world: &World, terms: usize) -> Vec<Row> {
    let mut rows: Vec<_> = q
        .iter(world)
        .map(|row| {
            let this = row.this();
            let vars = ["x", "y"].iter().map(|name| row.var(name)).collect();
            let set = (0..terms).map(|term| row.is_set(term)).collect();
            (this, vars, set)
        })
        .collect();
    rows.sort();
    rows
}

/// The number of cases: 128, or `DSL_VARIABLES_CASES`.
fn cases() -> u32 {
    std::env::var("DSL_VARIABLES_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(128)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cached_and_uncached_agree(
        terms in prop::collection::vec(term(), 1..5),
        ops in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..30),
        later in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..10),
    ) {
        let mut world = World::new();
        populate(&mut world, &ops);
        let text = terms.join(", ");
        let (Ok(mut cached), Ok(mut uncached)) = (world.query_dsl(&text), world.query_dsl_uncached(&text)) else {
            // Both refuse alike (an unbound variable, a wildcard source...).
            prop_assert_eq!(world.query_dsl(&text).is_ok(), world.query_dsl_uncached(&text).is_ok(), "{}", text);
            return Ok(());
        };
        let count = terms.len();
        prop_assert_eq!(rows(&mut cached, &world, count), rows(&mut uncached, &world, count), "{}", &text);
        populate(&mut world, &later);
        prop_assert_eq!(rows(&mut cached, &world, count), rows(&mut uncached, &world, count), "{} (after changes)", &text);
    }
}
