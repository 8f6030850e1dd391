//! Property test: for random worlds, each typed query and the runtime query of
//! the same terms (cached, uncached, and written in the query DSL) return the
//! same rows, also after the world changes under a cached runtime query, and
//! `to_dsl` prints each DSL query back to the same terms.

use ecs::query::{DynQuery, QueryBuilder};
use proptest::prelude::*;

use ecs::prelude::*;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct C;
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "sparse")]
struct S(u32);
#[derive(Relationship, Debug)]
struct Likes;

/// One row: the entity and the numbers the query reads (0 where a term gives none).
type Row = (Entity, Vec<u32>);

/// How to build one entity: components, pair targets and parent are indices of
/// entities built before it.
#[derive(Clone, Debug)]
struct EntitySpec {
    a: Option<u32>,
    b: Option<u32>,
    c: bool,
    s: Option<u32>,
    likes: Vec<usize>,
    parent: Option<usize>,
    despawn: bool,
}

fn entity_spec() -> impl Strategy<Value = EntitySpec> {
    (
        proptest::option::of(0u32..100),
        proptest::option::of(0u32..100),
        any::<bool>(),
        proptest::option::of(0u32..100),
        proptest::collection::vec(0usize..64, 0..3),
        proptest::option::of(0usize..64),
        proptest::bool::weighted(0.1),
    )
        .prop_map(|(a, b, c, s, likes, parent, despawn)| EntitySpec { a, b, c, s, likes, parent, despawn })
}

fn build_world(specs: &[EntitySpec]) -> World {
    let mut world = World::new();
    let mut spawned: Vec<Entity> = Vec::new();
    for spec in specs {
        let mut e = world.spawn_empty();
        if let Some(a) = spec.a {
            e.insert(A(a));
        }
        if let Some(b) = spec.b {
            e.insert(B(b));
        }
        if spec.c {
            e.insert(C);
        }
        if let Some(s) = spec.s {
            e.insert(S(s));
        }
        let id = e.id();
        if !spawned.is_empty() {
            for &target in &spec.likes {
                world.entity_mut(id).add_pair::<Likes>(spawned[target % spawned.len()]);
            }
            if let Some(parent) = spec.parent {
                world.entity_mut(id).add_pair::<ChildOf>(spawned[parent % spawned.len()]);
            }
        }
        spawned.push(id);
    }
    for (spec, &entity) in specs.iter().zip(&spawned) {
        if spec.despawn {
            world.despawn(entity);
        }
    }
    world
}

/// The query shapes compared: typed rows, runtime terms, DSL text.
const SHAPES: usize = 10;

fn typed_rows(world: &mut World, shape: usize) -> Vec<Row> {
    let mut rows: Vec<Row> = match shape {
        0 => world.query::<(Entity, &A)>().iter(world).map(|(e, a)| (e, vec![a.0])).collect(),
        1 => world.query::<(Entity, &A, &B)>().iter(world).map(|(e, a, b)| (e, vec![a.0, b.0])).collect(),
        2 => world
            .query_filtered::<(Entity, &A, Option<&B>), Without<C>>()
            .iter(world)
            .map(|(e, a, b)| (e, vec![a.0, b.map_or(0, |b| b.0 + 1)]))
            .collect(),
        3 => world.query_filtered::<(Entity, &A), With<S>>().iter(world).map(|(e, a)| (e, vec![a.0])).collect(),
        4 => world
            .query_filtered::<(Entity, Option<&S>), With<B>>()
            .iter(world)
            .map(|(e, s)| (e, vec![s.map_or(0, |s| s.0 + 1)]))
            .collect(),
        5 => world.query::<(Entity, Pair<Likes>)>().iter(world).map(|(e, t)| (e, vec![t.index()])).collect(),
        6 => world.query::<(Entity, Up<ChildOf, &A>)>().iter(world).map(|(e, a)| (e, vec![a.0])).collect(),
        7 => world
            .query_filtered::<(Entity, &B), Or<(With<A>, With<C>)>>()
            .iter(world)
            .map(|(e, b)| (e, vec![b.0]))
            .collect(),
        8 => world.query_filtered::<(Entity, &A), Without<S>>().iter(world).map(|(e, a)| (e, vec![a.0])).collect(),
        9 => world
            .query_filtered::<(Entity, &S, Pair<Likes>), With<C>>()
            .iter(world)
            .map(|(e, s, t)| (e, vec![s.0, t.index()]))
            .collect(),
        _ => unreachable!(),
    };
    rows.sort();
    rows
}

fn builder(world: &mut World, shape: usize) -> QueryBuilder {
    let (a, b, c, s) = (
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
        world.register_component::<S>(),
    );
    let (likes, child_of) = (world.register_component::<Likes>(), world.register_component::<ChildOf>());
    let q = world.query_builder();
    match shape {
        0 => q.read(a),
        1 => q.read(a).read(b),
        2 => q.read(a).optional(b).without(c),
        3 => q.read(a).with(s),
        4 => q.with(b).optional(s),
        5 => q.pair(likes, Entity::WILDCARD),
        6 => q.read(a).up(child_of),
        7 => q.read(b).with(a).or(c),
        8 => q.read(a).without(s),
        9 => q.read(s).pair(likes, Entity::WILDCARD).with(c),
        _ => unreachable!(),
    }
}

/// The same shapes in the query DSL.
const DSL: [&str; SHAPES] = [
    "A",
    "A, B",
    "A, ?B, !C",
    "A, [none] S",
    "[none] B, ?S",
    "(Likes, *)",
    "A(up ChildOf)",
    "B, [none] A || C",
    "A, !S",
    "S, (Likes, *), [none] C",
];

/// The runtime query's rows, read like `typed_rows` reads the typed one.
fn dyn_rows(query: &mut DynQuery, world: &World, shape: usize) -> Vec<Row> {
    let mut rows: Vec<Row> = query
        .iter(world)
        .map(|row| {
            let values = match shape {
                0 | 3 | 6 | 8 => vec![row.get::<A>(0).unwrap().0],
                1 => vec![row.get::<A>(0).unwrap().0, row.get::<B>(1).unwrap().0],
                2 => vec![row.get::<A>(0).unwrap().0, row.get::<B>(1).map_or(0, |b| b.0 + 1)],
                4 => vec![row.get::<S>(1).map_or(0, |s| s.0 + 1)],
                5 => vec![row.pair_target(0).index()],
                7 => vec![row.get::<B>(0).unwrap().0],
                9 => vec![row.get::<S>(0).unwrap().0, row.pair_target(1).index()],
                _ => unreachable!(),
            };
            (row.entity(), values)
        })
        .collect();
    rows.sort();
    rows
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn typed_and_runtime_queries_agree(specs in proptest::collection::vec(entity_spec(), 0..48), more in proptest::collection::vec(entity_spec(), 0..8)) {
        let mut world = build_world(&specs);
        for (shape, dsl_text) in DSL.iter().enumerate() {
            let expected = typed_rows(&mut world, shape);
            let mut cached = builder(&mut world, shape).build().unwrap();
            let mut uncached = builder(&mut world, shape).build_uncached().unwrap();
            prop_assert_eq!(&dyn_rows(&mut cached, &world, shape), &expected, "cached, shape {}", shape);
            prop_assert_eq!(&dyn_rows(&mut uncached, &world, shape), &expected, "uncached, shape {}", shape);
            let mut dsl = world.query_dsl(dsl_text).unwrap();
            prop_assert_eq!(&dyn_rows(&mut dsl, &world, shape), &expected, "DSL {:?}", dsl_text);
            let mut printed = world.query_dsl_uncached(&dsl.to_dsl()).unwrap();
            prop_assert_eq!(printed.terms(), dsl.terms(), "to_dsl of {:?} gave {:?}", dsl_text, dsl.to_dsl());
            prop_assert_eq!(&dyn_rows(&mut printed, &world, shape), &expected, "printed DSL of shape {}", shape);
            // The world changes under the cached query: new archetypes, moves, despawns.
            for spec in &more {
                let mut e = world.spawn_empty();
                if let Some(a) = spec.a { e.insert(A(a)); }
                if spec.c { e.insert(C); }
                if let Some(s) = spec.s { e.insert(S(s)); }
                let id = e.id();
                if spec.despawn { world.despawn(id); }
            }
            let expected = typed_rows(&mut world, shape);
            prop_assert_eq!(&dyn_rows(&mut cached, &world, shape), &expected, "cached after changes, shape {}", shape);
        }
    }
}
