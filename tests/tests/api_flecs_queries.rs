//! Acceptance tests ported from Flecs' query test suites (test/query: Basic,
//! Variables, Operators, Traversal, Transitive, Fixed sources, Wildcards and
//! Any, parser and to-string round trips) to this crate's runtime query API
//! (`world.query_builder()`, `world.query_dsl(..)`, `DynQuery`, `DynRow`).
//! Cases already covered by ported_queries.rs, dynamic_query.rs, dsl.rs and
//! api_runtime_queries.rs are not repeated here.

use std::collections::BTreeSet;

use ecs::entity::Id;
use ecs::query::{DslError, DynQuery, QueryBuildError, Traversal};

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Position {
    x: f32,
}
#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Velocity {
    x: f32,
}
#[derive(Component, Debug, PartialEq)]
struct Mass(u32);
#[derive(Component, Debug, PartialEq)]
struct Health(u32);
#[derive(Component, Debug)]
struct TagA;
#[derive(Component, Debug)]
struct TagB;
#[derive(Component, Debug)]
struct TagC;
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Shield(u32);
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(u32);
#[derive(Relationship, Debug)]
struct Likes;
#[derive(Relationship, Debug)]
struct Hates;
#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32);
#[derive(Relationship)]
#[relationship(transitive)]
struct LocatedIn;
#[derive(Relationship)]
#[relationship(traversable)]
struct Near;

fn new_world() -> World {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Mass>();
    world.register_component::<Health>();
    world.register_component::<TagA>();
    world.register_component::<TagB>();
    world.register_component::<TagC>();
    world.register_component::<Shield>();
    world.register_component::<Thrust>();
    world.register_component::<Likes>();
    world.register_component::<Hates>();
    world.register_component::<Eats>();
    world.register_component::<LocatedIn>();
    world.register_component::<Near>();
    world
}

fn cid<T: Component>(world: &World) -> Entity {
    world.component_id::<T>().expect("registered")
}

fn dsl(world: &World, text: &str) -> DynQuery {
    world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn dsl_uncached(world: &World, text: &str) -> DynQuery {
    world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// Both builds of one DSL text.
fn both(world: &World, text: &str) -> [DynQuery; 2] {
    [dsl(world, text), dsl_uncached(world, text)]
}

fn err(world: &World, text: &str) -> DslError {
    match world.query_dsl(text) {
        Ok(q) => panic!("{text:?} parsed as {:?}", q.to_dsl()),
        Err(e) => e,
    }
}

fn ents(q: &mut DynQuery, world: &World) -> BTreeSet<Entity> {
    q.iter(world).map(|r| r.entity()).collect()
}

fn ents_sorted(q: &mut DynQuery, world: &World) -> Vec<Entity> {
    let mut v: Vec<Entity> = q.iter(world).map(|r| r.entity()).collect();
    v.sort();
    v
}

fn named(world: &mut World, name: &'static str) -> Entity {
    world.spawn(Name::new(name)).id()
}

/// Every observable part of every row: entity, per-term id/source/is_set, variables.
type RowKey = (Option<Entity>, Vec<(Id, bool)>, Vec<Option<Entity>>);

fn rows_key(q: &mut DynQuery, world: &World) -> Vec<RowKey> {
    let terms = q.terms().len();
    let vars: Vec<String> = q.variables().to_vec();
    let mut v: Vec<RowKey> = q
        .iter(world)
        .map(|r| {
            (
                r.this(),
                (0..terms).map(|t| (r.id(t), r.is_set(t))).collect(),
                vars.iter().map(|name| r.var(name)).collect(),
            )
        })
        .collect();
    v.sort();
    v
}

// ================================================================== Basic

#[test]
fn basic_builder_and_dsl_give_the_same_rows_over_many_archetypes() {
    let mut world = new_world();
    let a = world.spawn((Position::default(), Velocity::default())).id();
    let b = world.spawn((Position::default(), Velocity::default(), Mass(1))).id();
    let c = world.spawn((Position::default(), Velocity::default(), TagA)).id();
    world.spawn(Position::default());
    world.spawn(Velocity::default());
    let (pos, vel) = (cid::<Position>(&world), cid::<Velocity>(&world));
    let mut built = world.query_builder().read(pos).read(vel).build().unwrap();
    let mut built_uncached = world.query_builder().read(pos).read(vel).build_uncached().unwrap();
    let expected: BTreeSet<_> = [a, b, c].into();
    assert_eq!(ents(&mut built, &world), expected);
    assert_eq!(ents(&mut built_uncached, &world), expected);
    for mut q in both(&world, "Position, Velocity") {
        assert_eq!(ents(&mut q, &world), expected);
        assert_eq!(q.count(&world), 3);
    }
}

#[test]
fn basic_row_id_of_a_plain_component_is_the_component() {
    let mut world = new_world();
    world.spawn((Position::default(), Mass(2)));
    let mut q = dsl(&world, "Position, Mass");
    let row = q.iter(&world).next().unwrap();
    assert_eq!(row.id(0), cid::<Position>(&world).id());
    assert_eq!(row.id(1), cid::<Mass>(&world).id());
    assert_eq!(row.source(0), row.entity(), "a $this term's source is the row's entity");
}

#[test]
fn basic_cached_query_built_before_any_entity_sees_later_archetypes() {
    let mut world = new_world();
    let mut q = dsl(&world, "Position, Mass");
    assert_eq!(q.count(&world), 0);
    let a = world.spawn((Position::default(), Mass(1))).id();
    assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    let b = world.spawn((Position::default(), Mass(2), TagA)).id();
    world.spawn((Position::default(), TagA));
    assert_eq!(ents(&mut q, &world), [a, b].into());
}

#[test]
fn basic_entity_leaving_and_rejoining_the_match() {
    let mut world = new_world();
    let a = world.spawn((Position::default(), Mass(1))).id();
    for mut q in both(&world, "Position, Mass") {
        assert_eq!(q.count(&world), 1);
        world.entity_mut(a).remove::<Mass>();
        assert_eq!(q.count(&world), 0);
        world.entity_mut(a).insert(Mass(3));
        let values: Vec<_> = q.iter(&world).map(|r| r.get::<Mass>(1).unwrap().0).collect();
        assert_eq!(values, [3]);
    }
}

#[test]
fn basic_tag_term_is_set_and_gives_no_column() {
    let mut world = new_world();
    let e = world.spawn((TagA, Position { x: 1.0 })).id();
    let mut q = dsl(&world, "TagA, Position");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(0), r.get::<Position>(1).copied())).collect();
    assert_eq!(rows, [(e, true, Some(Position { x: 1.0 }))]);
    let row = q.iter(&world).next().unwrap();
    assert!(row.get::<Position>(0).is_none(), "term 0 is TagA, not Position");
}

#[test]
fn basic_get_with_wrong_type_or_index_is_none() {
    let mut world = new_world();
    world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 }));
    let mut q = dsl(&world, "Position, Velocity");
    let row = q.iter(&world).next().unwrap();
    assert_eq!(row.get::<Velocity>(0), None);
    assert_eq!(row.get::<Position>(1), None);
    assert_eq!(row.get::<Position>(7), None, "past the last term");
    assert_eq!(row.get::<Velocity>(1), Some(&Velocity { x: 2.0 }));
}

#[test]
fn basic_iter_mut_writes_every_matched_row_across_tables() {
    let mut world = new_world();
    let a = world.spawn((Position { x: 1.0 }, Velocity { x: 10.0 })).id();
    let b = world.spawn((Position { x: 2.0 }, Velocity { x: 20.0 }, TagA)).id();
    let c = world.spawn(Position { x: 3.0 }).id();
    let mut q = dsl(&world, "[inout] Position, Velocity");
    let mut seen = 0;
    q.iter_mut(&mut world).for_each(|mut row| {
        let v = row.get::<Velocity>(1).unwrap().x;
        row.get_mut::<Position>(0).unwrap().x += v;
        seen += 1;
    });
    assert_eq!(seen, 2);
    assert_eq!(world.get::<Position>(a), Some(&Position { x: 11.0 }));
    assert_eq!(world.get::<Position>(b), Some(&Position { x: 22.0 }));
    assert_eq!(world.get::<Position>(c), Some(&Position { x: 3.0 }));
}

#[test]
fn basic_fetch_next_visits_each_row_once() {
    let mut world = new_world();
    let ids: Vec<Entity> = (0..5).map(|i| world.spawn(Mass(i)).id()).collect();
    world.spawn((Mass(100), TagA));
    let mut q = dsl(&world, "[inout] Mass");
    let mut it = q.iter_mut(&mut world);
    let mut n = 0;
    while let Some(mut row) = it.fetch_next() {
        row.get_mut::<Mass>(0).unwrap().0 += 1;
        n += 1;
    }
    assert_eq!(n, 6);
    for (i, e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Mass>(*e), Some(&Mass(i as u32 + 1)));
    }
}

#[test]
fn basic_despawned_component_entity_matches_nothing() {
    let mut world = new_world();
    world.spawn((Position::default(), TagA));
    let tag = cid::<TagA>(&world);
    let mut cached = world.query_builder().read(cid::<Position>(&world)).with(tag).build().unwrap();
    let mut uncached = world.query_builder().read(cid::<Position>(&world)).with(tag).build_uncached().unwrap();
    assert_eq!(cached.count(&world), 1);
    assert!(world.despawn(tag));
    assert_eq!(cached.count(&world), 0, "the component is gone");
    assert_eq!(uncached.count(&world), 0);
    // entities that reuse freed indices must not be matched through the stale id
    for _ in 0..8 {
        world.spawn((Position::default(), TagB));
    }
    assert_eq!(cached.count(&world), 0);
    assert_eq!(uncached.count(&world), 0);
}

#[test]
fn basic_query_on_pair_target_despawned_after_build_matches_nothing() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    world.spawn((Position::default(),)).add_pair::<Likes>(bob);
    let likes = cid::<Likes>(&world);
    let mut cached = world.query_builder().pair(likes, bob).build().unwrap();
    let mut uncached = world.query_builder().pair(likes, bob).build_uncached().unwrap();
    assert_eq!(cached.count(&world), 1);
    world.despawn(bob);
    assert_eq!(cached.count(&world), 0);
    assert_eq!(uncached.count(&world), 0);
    // fill freed slots, making pairs to whatever reused bob's index
    for _ in 0..8 {
        let t = world.spawn_empty().id();
        world.spawn_empty().add_pair::<Likes>(t);
    }
    assert_eq!(cached.count(&world), 0);
    assert_eq!(uncached.count(&world), 0);
}

#[test]
fn basic_fixed_source_despawned_after_build_matches_nothing() {
    let mut world = new_world();
    let game = world.spawn(Mass(1)).id();
    world.spawn(Position::default());
    let (pos, mass) = (cid::<Position>(&world), cid::<Mass>(&world));
    let mut cached = world.query_builder().read(pos).read(mass).source(game).build().unwrap();
    assert_eq!(cached.count(&world), 1);
    world.despawn(game);
    assert_eq!(cached.count(&world), 0);
    for i in 0..8 {
        world.spawn(Mass(i));
    }
    assert_eq!(cached.count(&world), 0, "a new entity on the old index is not the fixed source");
}

// ================================================================== Variables

#[test]
fn variables_same_variable_in_three_terms() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn(Mass(1)).id(), world.spawn_empty().id());
    let dave = world.spawn(Mass(2)).id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    world.spawn_empty().add_pair::<Likes>(carol).add_pair::<Hates>(carol); // carol has no Mass
    world.spawn_empty().add_pair::<Likes>(dave).add_pair::<Hates>(bob); // different targets
    for mut q in both(&world, "(Likes, $x), (Hates, $x), Mass($x)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"), r.get::<Mass>(2).map(|m| m.0))).collect();
        assert_eq!(rows, [(a, Some(bob), Some(1))]);
    }
}

#[test]
fn variables_variable_as_source_and_as_target() {
    // grandparents: ChildOf($this, $p), ChildOf($p, $g)
    let mut world = new_world();
    let g = world.spawn_empty().id();
    let p = world.spawn(ChildOf.pair(g)).id();
    let c = world.spawn(ChildOf.pair(p)).id();
    let lone = world.spawn_empty().id();
    let _ = lone;
    for mut q in both(&world, "ChildOf($this, $p), ChildOf($p, $g)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("p"), r.var("g"), r.source(1))).collect();
        assert_eq!(rows, [(c, Some(p), Some(g), p)]);
    }
}

#[test]
fn variables_two_variables_on_one_relationship_give_the_cross_product() {
    let mut world = new_world();
    let (b, c, d) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).add_pair::<Likes>(d).id();
    for mut q in both(&world, "(Likes, $x), (Likes, $y)") {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap(), r.var("y").unwrap())).collect();
        let mut expected = BTreeSet::new();
        for x in [b, c, d] {
            for y in [b, c, d] {
                expected.insert((a, x, y));
            }
        }
        assert_eq!(rows, expected);
        assert_eq!(q.count(&world), 9);
    }
}

#[test]
fn variables_two_wildcards_on_one_relationship_give_the_cross_product() {
    let mut world = new_world();
    let (b, c) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).id();
    for mut q in both(&world, "(Likes, *), (Likes, *)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.pair_target(0), r.pair_target(1))).collect();
        assert_eq!(rows, [(a, b, b), (a, b, c), (a, c, b), (a, c, c)].into());
    }
}

#[test]
fn variables_not_on_a_bound_variable() {
    let mut world = new_world();
    let heavy = world.spawn(Mass(1)).id();
    let light = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(heavy).add_pair::<Likes>(light).id();
    let b = world.spawn_empty().add_pair::<Likes>(heavy).id();
    for mut q in both(&world, "(Likes, $x), !Mass($x)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
        assert_eq!(rows, [(a, Some(light))]);
    }
    let _ = b;
}

#[test]
fn variables_not_pair_with_a_bound_variable_target() {
    // (Likes, $x), !(Hates, $x): likes x without also hating x
    let mut world = new_world();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn_empty().add_pair::<Likes>(x).add_pair::<Hates>(x).id();
    let b = world.spawn_empty().add_pair::<Likes>(x).add_pair::<Hates>(y).id();
    let c = world.spawn_empty().add_pair::<Likes>(y).id();
    for mut q in both(&world, "(Likes, $t), !(Hates, $t)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("t").unwrap())).collect();
        assert_eq!(rows, [(b, x), (c, y)].into());
    }
    let _ = a;
}

#[test]
fn variables_optional_on_a_bound_variable() {
    let mut world = new_world();
    let heavy = world.spawn(Mass(4)).id();
    let light = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(heavy).add_pair::<Likes>(light).id();
    for mut q in both(&world, "(Likes, $x), ?Mass($x)") {
        let rows: BTreeSet<_> = q
            .iter(&world)
            .map(|r| (r.entity(), r.var("x").unwrap(), r.is_set(1), r.get::<Mass>(1).map(|m| m.0)))
            .collect();
        assert_eq!(rows, [(a, heavy, true, Some(4)), (a, light, false, None)].into());
    }
}

#[test]
fn variables_term_order_does_not_change_the_result() {
    let mut world = new_world();
    let heavy = world.spawn(Mass(1)).id();
    let light = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(heavy).id();
    world.spawn_empty().add_pair::<Likes>(light);
    let mut first = dsl(&world, "(Likes, $x), Mass($x)");
    let mut second = dsl(&world, "Mass($x), (Likes, $x)");
    let r1: Vec<_> = first.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
    let r2: Vec<_> = second.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
    assert_eq!(r1, [(a, Some(heavy))]);
    assert_eq!(r1, r2);
}

#[test]
fn variables_lookup_with_or_without_dollar_and_unknown_names() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    world.spawn_empty().add_pair::<Likes>(bob);
    let mut q = dsl(&world, "(Likes, $friend)");
    assert_eq!(q.variables(), ["friend".to_string()]);
    let row = q.iter(&world).next().unwrap();
    assert_eq!(row.var("friend"), Some(bob));
    assert_eq!(row.var("$friend"), Some(bob));
    assert_eq!(row.var("enemy"), None);
}

#[test]
fn variables_are_listed_in_first_appearance_order() {
    let world = new_world();
    let q = dsl(&world, "Likes($a, $b), Hates($b, $c), (Likes, $a)");
    assert_eq!(q.variables(), ["a".to_string(), "b".to_string(), "c".to_string()]);
    assert!(q.has_this());
    let q = dsl(&world, "Likes($a, $b)");
    assert!(!q.has_this(), "only variables: rows are solutions");
}

#[test]
fn variables_builder_pair_var_and_source_var_equal_the_dsl() {
    let mut world = new_world();
    let heavy = world.spawn(Mass(9)).id();
    let light = world.spawn_empty().id();
    let a = world.spawn(Position::default()).add_pair::<Likes>(heavy).id();
    world.spawn(Position::default()).add_pair::<Likes>(light);
    let (pos, likes, mass) = (cid::<Position>(&world), cid::<Likes>(&world), cid::<Mass>(&world));
    let built = || world.query_builder().read(pos).pair_var(likes, "x").read(mass).source_var("x");
    let text = dsl(&world, "[in] Position, (Likes, $x), [in] Mass($x)");
    assert_eq!(built().build().unwrap().terms(), text.terms());
    for mut q in [built().build().unwrap(), built().build_uncached().unwrap()] {
        let rows: Vec<_> =
            q.iter(&world).map(|r| (r.entity(), r.var("x"), r.source(2), r.get::<Mass>(2).map(|m| m.0))).collect();
        assert_eq!(rows, [(a, Some(heavy), heavy, Some(9))]);
    }
}

#[test]
fn variables_relationship_and_target_both_variables() {
    let mut world = new_world();
    let (b, c) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn((TagA, Position::default())).add_pair::<Likes>(b).add_pair::<Hates>(c).id();
    let (likes, hates) = (cid::<Likes>(&world), cid::<Hates>(&world));
    for mut q in both(&world, "TagA, ($r, $t)") {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.var("r").unwrap(), r.var("t").unwrap())).collect();
        assert_eq!(rows, [(a, likes, b), (a, hates, c)].into(), "only pairs match ($r, $t)");
    }
}

#[test]
fn variables_pair_values_per_solution_without_this() {
    let mut world = new_world();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn((Eats(1).pair(apples), Eats(2).pair(pears))).id();
    let b = world.spawn(Eats(3).pair(apples)).id();
    for mut q in both(&world, "Eats($x, $y)") {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap(), r.get::<Eats>(0).map(|e| e.0))).collect();
        assert_eq!(rows, [(a, apples, Some(1)), (a, pears, Some(2)), (b, apples, Some(3))].into());
    }
}

#[test]
fn variables_join_across_two_relationships_without_this() {
    // Flecs: Likes($x, $y), Likes($y, $x) -- mutual likes
    let mut world = new_world();
    let (a, b, c) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(a).add_pair::<Likes>(b);
    world.entity_mut(b).add_pair::<Likes>(a);
    world.entity_mut(b).add_pair::<Likes>(c);
    for mut q in both(&world, "Likes($x, $y), Likes($y, $x)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap())).collect();
        assert_eq!(rows, [(a, b), (b, a)].into());
    }
}

#[test]
fn variables_this_as_target_of_another_entity() {
    // Flecs: Position($this), Likes($x, $this): who likes me
    let mut world = new_world();
    let me = world.spawn(Position::default()).id();
    let other = world.spawn(Position::default()).id();
    let fan = world.spawn_empty().add_pair::<Likes>(me).id();
    let _ = other;
    for mut q in both(&world, "Position, Likes($x, $this)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
        assert_eq!(rows, [(me, Some(fan))]);
    }
}

#[test]
fn variables_this_in_an_id_is_each_rows_entity() {
    // Several rows in one table: each row sees only the pairs naming it.
    let mut world = new_world();
    let people: Vec<Entity> = (0..50).map(|_| world.spawn(Position::default()).id()).collect();
    let mut expected = BTreeSet::new();
    for (i, &person) in people.iter().enumerate() {
        for _ in 0..(i % 3) {
            let fan = world.spawn_empty().add_pair::<Likes>(person).id();
            expected.insert((person, fan));
        }
    }
    for mut q in both(&world, "Position, Likes($x, $this)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap())).collect();
        assert_eq!(rows, expected);
    }
    // An entity that likes itself: `$this` as source and target.
    let narcissus = people[7];
    world.entity_mut(narcissus).add_pair::<Likes>(narcissus);
    for mut q in both(&world, "Position, Likes($this, $this)") {
        assert_eq!(ents(&mut q, &world), [narcissus].into());
    }
}

#[test]
fn variables_this_in_an_id_without_a_term_on_this_is_bound_by_the_ids() {
    // Flecs `Variables_1_ent_src_w_pair_this_tgt`: `RelA(ent, $this)` yields
    // each target of `ent`'s `RelA` pairs as a row of its own.
    let mut world = new_world();
    let ent = named(&mut world, "ent");
    let (tgt_a, tgt_b) = (world.spawn(TagA).id(), world.spawn((TagB, Position::default())).id());
    for mut q in both(&world, "Likes(ent, $this)") {
        assert!(q.has_this(), "rows are entities");
        assert_eq!(q.count(&world), 0);
    }
    world.add_pair::<Likes>(ent, tgt_a);
    world.add_pair::<Likes>(ent, tgt_b);
    let likes = cid::<Likes>(&world);
    for mut q in both(&world, "Likes(ent, $this)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("this"), r.source(0), r.id(0))).collect();
        assert_eq!(
            rows,
            [(tgt_a, Some(tgt_a), ent, Id::pair(likes, tgt_a)), (tgt_b, Some(tgt_b), ent, Id::pair(likes, tgt_b)),]
                .into()
        );
        assert_eq!(q.count(&world), 2);
    }
    // Each row is its entity's only: table views show one row each.
    let mut q = dsl(&world, "Likes(ent, $this)");
    let viewed: usize = q.iter_tables(&world).map(|table| table.len()).sum();
    assert_eq!(viewed, 2);
    // `$x` as the source: every liker's targets.
    let fan = world.spawn_empty().add_pair::<Likes>(tgt_a).id();
    for mut q in both(&world, "Likes($x, $this)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.entity())).collect();
        assert_eq!(rows, [(ent, tgt_a), (ent, tgt_b), (fan, tgt_a)].into());
    }
    // Flecs `Variables_1_ent_src_w_pair_this_rel_tgt`: `$this(ent, $this)`.
    for mut q in both(&world, "$this(ent, $this)") {
        assert_eq!(q.count(&world), 0);
    }
    world.add_id(ent, Id::pair(tgt_a, tgt_a));
    for mut q in both(&world, "$this(ent, $this)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
        assert_eq!(rows, [(tgt_a, Id::pair(tgt_a, tgt_a))]);
    }
}

#[test]
fn variables_this_in_an_id_must_be_bound_by_some_term() {
    let world = new_world();
    // Only a `!` term names it: nothing binds it.
    assert!(world.query_dsl("TagA($x), !Likes($x, $this)").is_err());
    // `this` is not a user variable's name.
    let likes = cid::<Likes>(&world);
    let error = world.query_builder().read(cid::<Position>(&world)).pair_var(likes, "this").build();
    assert!(matches!(error, Err(QueryBuildError::InvalidTerm { .. })), "{error:?}");
}

// ================================================================== Operators

#[test]
fn operators_not_several_components() {
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    world.spawn((Position::default(), Velocity::default()));
    world.spawn((Position::default(), Mass(1)));
    world.spawn((Position::default(), Velocity::default(), Mass(1)));
    for mut q in both(&world, "Position, !Velocity, !Mass") {
        assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    }
}

#[test]
fn operators_not_pair_with_a_specific_target_only_excludes_that_target() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Position::default()).add_pair::<Likes>(carol).id();
    world.spawn(Position::default()).add_pair::<Likes>(bob);
    let c = world.spawn(Position::default()).id();
    let likes = cid::<Likes>(&world);
    let pos = cid::<Position>(&world);
    let mut q = world.query_builder().read(pos).pair(likes, bob).negate_last().build().unwrap();
    assert_eq!(ents(&mut q, &world), [a, c].into());
}

#[test]
fn operators_not_any_equals_not_wildcard() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let a = world.spawn(Position::default()).id();
    world.spawn(Position::default()).add_pair::<Likes>(bob).add_pair::<Likes>(a);
    let mut any = dsl(&world, "Position, !(Likes, _)");
    let mut wildcard = dsl(&world, "Position, !(Likes, *)");
    assert_eq!(ents_sorted(&mut any, &world), vec![a]);
    assert_eq!(ents_sorted(&mut wildcard, &world), vec![a]);
}

#[test]
fn operators_optional_terms_every_combination() {
    let mut world = new_world();
    let n = world.spawn(Position::default()).id();
    let v = world.spawn((Position::default(), Velocity { x: 1.0 })).id();
    let m = world.spawn((Position::default(), Mass(2))).id();
    let vm = world.spawn((Position::default(), Velocity { x: 3.0 }, Mass(4))).id();
    world.spawn(Mass(5));
    for mut q in both(&world, "Position, ?Velocity, ?Mass") {
        let rows: BTreeSet<_> = q
            .iter(&world)
            .map(|r| (r.entity(), r.get::<Velocity>(1).map(|v| v.x as u32), r.get::<Mass>(2).map(|m| m.0)))
            .collect();
        assert_eq!(rows, [(n, None, None), (v, Some(1), None), (m, None, Some(2)), (vm, Some(3), Some(4))].into());
    }
}

#[test]
fn operators_optional_on_a_fixed_source() {
    let mut world = new_world();
    let game = world.spawn(Name::new("Game")).id();
    let a = world.spawn(Position::default()).id();
    let b = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position, ?Mass(Game)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.get::<Mass>(1).is_some())).collect();
    assert_eq!(rows, [(a, false, false), (b, false, false)].into());
    world.entity_mut(game).insert(Mass(5));
    let rows: BTreeSet<_> =
        q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
    assert_eq!(rows, [(a, true, game, Some(5)), (b, true, game, Some(5))].into());
}

#[test]
fn operators_optional_wildcard_one_row_per_match_or_one_unset_row() {
    let mut world = new_world();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Position::default()).add_pair::<Likes>(x).add_pair::<Likes>(y).id();
    let b = world.spawn(Position::default()).id();
    for mut q in both(&world, "Position, ?(Likes, *)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.try_pair_target(1))).collect();
        assert_eq!(rows, [(a, true, Some(x)), (a, true, Some(y)), (b, false, None)].into());
    }
}

#[test]
fn operators_only_optional_terms_match_entities_without_them() {
    // Flecs: a query whose terms are all optional still iterates $this
    let mut world = new_world();
    let a = world.spawn((Position::default(), Mass(1))).id();
    let b = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position, ?Mass");
    assert_eq!(ents(&mut q, &world), [a, b].into());
    let mut q = dsl(&world, "?Mass");
    let rows = ents(&mut q, &world);
    assert!(rows.contains(&a) && rows.contains(&b), "{rows:?}");
}

#[test]
fn operators_or_chain_of_three() {
    let mut world = new_world();
    let a = world.spawn(TagA).id();
    let b = world.spawn(TagB).id();
    let c = world.spawn(TagC).id();
    world.spawn(Position::default());
    let (ta, tb, tc) = (cid::<TagA>(&world), cid::<TagB>(&world), cid::<TagC>(&world));
    for mut q in both(&world, "TagA || TagB || TagC") {
        assert_eq!(q.terms().len(), 1);
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
        assert_eq!(rows, [(a, ta.id()), (b, tb.id()), (c, tc.id())].into());
    }
}

#[test]
fn operators_or_chain_first_matching_alternative_wins_one_row() {
    let mut world = new_world();
    let e = world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 })).id();
    let pos = cid::<Position>(&world);
    let vel = cid::<Velocity>(&world);
    for mut q in both(&world, "Position || Velocity") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
        assert_eq!(rows, [(e, pos.id())]);
    }
    for mut q in both(&world, "Velocity || Position") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.id(0), r.get::<Velocity>(0).copied())).collect();
        assert_eq!(rows, [(e, vel.id(), Some(Velocity { x: 2.0 }))]);
    }
}

#[test]
fn operators_or_chain_mixing_pairs_and_components() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).id();
    let b = world.spawn(TagA).id();
    world.spawn(TagB);
    let likes = cid::<Likes>(&world);
    for mut q in both(&world, "(Likes, Bob) || TagA") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
        assert_eq!(rows, [(a, Id::pair(likes, bob)), (b, cid::<TagA>(&world).id())].into());
    }
}

#[test]
fn operators_or_chain_with_variable_targets_binds_the_variable() {
    let mut world = new_world();
    let heavy = world.spawn(Mass(1)).id();
    let light = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(heavy).id();
    let b = world.spawn_empty().add_pair::<Hates>(heavy).id();
    world.spawn_empty().add_pair::<Likes>(light);
    for mut q in both(&world, "(Likes, $x) || (Hates, $x), Mass($x)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap())).collect();
        assert_eq!(rows, [(a, heavy), (b, heavy)].into());
    }
}

#[test]
fn operators_or_chain_builder_equals_dsl() {
    let mut world = new_world();
    let (ta, tb, pos) = (cid::<TagA>(&world), cid::<TagB>(&world), cid::<Position>(&world));
    let a = world.spawn((Position::default(), TagA)).id();
    let b = world.spawn((Position::default(), TagB)).id();
    world.spawn(Position::default());
    let mut built = world.query_builder().with(ta).or(tb).read(pos).build().unwrap();
    let mut text = dsl(&world, "[none] TagA || TagB, [in] Position");
    assert_eq!(built.terms(), text.terms());
    assert_eq!(ents(&mut built, &world), [a, b].into());
    assert_eq!(ents(&mut text, &world), [a, b].into());
}

#[test]
fn operators_or_chain_after_a_not_term() {
    let mut world = new_world();
    let a = world.spawn(TagA).id();
    world.spawn((TagA, Position::default()));
    let c = world.spawn(TagB).id();
    world.spawn(TagC);
    for mut q in both(&world, "!Position, TagA || TagB") {
        assert_eq!(ents(&mut q, &world), [a, c].into());
    }
}

#[test]
fn operators_not_on_entity_with_only_the_excluded_pair_target_other() {
    // !(Likes, Bob) on entities that like someone else still match
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let carol = world.spawn_empty().id();
    let a = world.spawn(TagA).add_pair::<Likes>(carol).id();
    world.spawn(TagA).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    for mut q in both(&world, "TagA, !(Likes, Bob)") {
        assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    }
}

// ================================================================== Wildcards and Any

#[test]
fn wildcard_and_any_result_counts_differ() {
    let mut world = new_world();
    let (b, c, d) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn_empty().add_pair::<Likes>(b).add_pair::<Likes>(c).add_pair::<Likes>(d).id();
    let e = world.spawn_empty().add_pair::<Likes>(b).id();
    let mut star = dsl(&world, "(Likes, *)");
    let mut any = dsl(&world, "(Likes, _)");
    assert_eq!(star.count(&world), 4);
    assert_eq!(any.count(&world), 2);
    assert_eq!(ents(&mut any, &world), [a, e].into());
}

#[test]
fn wildcard_and_any_relationship_counts_differ() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    world.entity_mut(a).insert(Eats(1).pair(bob));
    let mut star = dsl(&world, "(*, Bob)");
    let mut any = dsl(&world, "(_, Bob)");
    assert_eq!(star.count(&world), 3);
    let rows: Vec<_> = any.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, [a]);
}

#[test]
fn wildcard_wildcard_matches_every_pair_but_no_plain_component() {
    let mut world = new_world();
    let (b, c) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn((TagA, Position::default())).add_pair::<Likes>(b).add_pair::<Hates>(c).id();
    let (likes, hates) = (cid::<Likes>(&world), cid::<Hates>(&world));
    for mut q in both(&world, "TagA, (*, *)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(1))).collect();
        assert_eq!(rows, [(a, Id::pair(likes, b)), (a, Id::pair(hates, c))].into());
    }
    for mut q in both(&world, "TagA, (_, _)") {
        let rows: Vec<_> = q.iter(&world).map(|r| r.entity()).collect();
        assert_eq!(rows, [a], "(_, _) is one row per entity");
    }
    world.spawn(TagA);
    let mut q = dsl(&world, "TagA, (*, *)");
    assert_eq!(q.count(&world), 2, "an entity without pairs does not match (*, *)");
}

#[test]

fn wildcard_relationship_reads_the_value_of_the_matched_pair() {
    let mut world = new_world();
    let apples = world.spawn(Name::new("apples")).id();
    let a = world.spawn_empty().add_pair::<Likes>(apples).id();
    world.entity_mut(a).insert(Eats(7).pair(apples));
    let (likes, eats) = (cid::<Likes>(&world), cid::<Eats>(&world));
    let mut q = dsl(&world, "(*, apples)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.id(0), r.get::<Eats>(0).map(|e| e.0))).collect();
    assert_eq!(rows, [(Id::pair(likes, apples), None), (Id::pair(eats, apples), Some(7))].into());
}

#[test]
fn wildcard_term_alone_enumerates_every_id_of_this() {
    // Flecs: `*` on $this yields one result per id in the table that is not a
    // pair (ecs_id_match: a plain wildcard does not match pair ids)
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let e = world.spawn((TagA, Position::default(), Velocity::default())).add_pair::<Likes>(bob).id();
    let mut q = dsl(&world, "TagA, *");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(1))).collect();
    let expected: BTreeSet<_> =
        [(e, cid::<TagA>(&world).id()), (e, cid::<Position>(&world).id()), (e, cid::<Velocity>(&world).id())].into();
    assert_eq!(rows, expected);
}

#[test]
fn any_term_alone_is_one_row_per_entity() {
    let mut world = new_world();
    let e = world.spawn((TagA, Position::default(), Velocity::default())).id();
    let mut q = dsl(&world, "TagA, _");
    let rows: Vec<_> = q.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, [e]);
}

#[test]
fn wildcard_target_joined_with_a_variable_term() {
    let mut world = new_world();
    let (x, y, z) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn_empty().add_pair::<Likes>(x).add_pair::<Likes>(y).add_pair::<Hates>(z).id();
    for mut q in both(&world, "(Likes, *), (Hates, $h)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.pair_target(0), r.var("h").unwrap())).collect();
        assert_eq!(rows, [(a, x, z), (a, y, z)].into());
    }
}

#[test]
fn wildcard_in_builder_reports_matched_ids() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    let (likes, hates) = (cid::<Likes>(&world), cid::<Hates>(&world));
    let mut q = world.query_builder().pair(Entity::WILDCARD, bob).build_uncached().unwrap();
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(0), r.pair_target(0))).collect();
    assert_eq!(rows, [(a, Id::pair(likes, bob), bob), (a, Id::pair(hates, bob), bob)].into());
    let mut q = world.query_builder().pair(Entity::ANY, bob).build().unwrap();
    assert_eq!(q.count(&world), 1);
}

#[test]
fn wildcard_pair_on_fixed_source_crossed_with_this() {
    let mut world = new_world();
    let game = world.spawn(Name::new("Game")).id();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(game).add_pair::<Likes>(x).add_pair::<Likes>(y);
    let a = world.spawn(Position::default()).id();
    let b = world.spawn(Position::default()).id();
    for mut q in both(&world, "Position, Likes(Game, *)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.pair_target(1), r.source(1))).collect();
        assert_eq!(rows, [(a, x, game), (a, y, game), (b, x, game), (b, y, game)].into());
    }
}

// ================================================================== Traversal

#[test]
fn traversal_up_reaches_the_root_through_levels_without_the_component() {
    let mut world = new_world();
    let root = world.spawn(Mass(1)).id();
    let l1 = world.spawn(ChildOf.pair(root)).id();
    let l2 = world.spawn(ChildOf.pair(l1)).id();
    let leaf = world.spawn((TagA, ChildOf.pair(l2))).id();
    for mut q in both(&world, "TagA, Mass(up)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
        assert_eq!(rows, [(leaf, root, Some(1))]);
    }
}

#[test]
fn traversal_self_and_up_terms_in_one_query_have_different_sources() {
    let mut world = new_world();
    let p = world.spawn(Mass(1)).id();
    let c = world.spawn((Mass(2), ChildOf.pair(p))).id();
    for mut q in both(&world, "Mass, Mass(up)") {
        let rows: Vec<_> = q
            .iter(&world)
            .map(|r| (r.entity(), r.source(0), r.get::<Mass>(0).unwrap().0, r.source(1), r.get::<Mass>(1).unwrap().0))
            .collect();
        assert_eq!(rows, [(c, c, 2, p, 1)]);
    }
}

#[test]
fn traversal_up_pair_term() {
    // Flecs: Likes(up, Bob) -- an ancestor likes Bob
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let parent = world.spawn_empty().add_pair::<Likes>(bob).id();
    let child = world.spawn((TagA, ChildOf.pair(parent))).id();
    world.spawn(TagA).add_pair::<Likes>(bob); // self only: not matched by up
    for mut q in both(&world, "TagA, Likes(up, Bob)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
        assert_eq!(rows, [(child, parent)]);
    }
}

#[test]
fn traversal_up_wildcard_pair_reports_the_target() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let parent = world.spawn_empty().add_pair::<Likes>(bob).id();
    let child = world.spawn((TagA, ChildOf.pair(parent))).id();
    let mut q = dsl(&world, "TagA, Likes(up, *)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.pair_target(1))).collect();
    assert_eq!(rows, [(child, parent, bob)]);
}

#[test]
fn traversal_cached_up_sees_value_changes_on_the_ancestor() {
    let mut world = new_world();
    let p = world.spawn(Mass(1)).id();
    world.spawn((TagA, ChildOf.pair(p)));
    let mut q = dsl(&world, "TagA, Mass(up)");
    assert_eq!(q.iter(&world).next().unwrap().get::<Mass>(1), Some(&Mass(1)));
    world.get_mut::<Mass>(p).unwrap().0 = 42;
    assert_eq!(q.iter(&world).next().unwrap().get::<Mass>(1), Some(&Mass(42)));
}

#[test]
fn traversal_up_is_a_through_two_levels_of_prefabs() {
    let mut world = new_world();
    let base = world.spawn((Prefab, Mass(3))).id();
    let mid = world.spawn((Prefab, IsA.pair(base))).id();
    let inst = world.spawn((TagA, IsA.pair(mid))).id();
    let mut q = dsl(&world, "TagA, Mass(up IsA)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
    assert_eq!(rows, [(inst, base, Some(3))]);
}

#[test]
fn traversal_self_up_optional() {
    let mut world = new_world();
    let p = world.spawn(Mass(1)).id();
    let own = world.spawn((TagA, Mass(2), ChildOf.pair(p))).id();
    let inherited = world.spawn((TagA, ChildOf.pair(p))).id();
    let none = world.spawn(TagA).id();
    for mut q in both(&world, "TagA, ?Mass(self|up)") {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.get::<Mass>(1).map(|m| m.0))).collect();
        assert_eq!(rows, [(own, true, Some(2)), (inherited, true, Some(1)), (none, false, None)].into());
    }
}

#[test]
fn traversal_up_from_a_variable_source() {
    // (Likes, $x), Mass($x|up): the liked entity's ancestor has Mass
    let mut world = new_world();
    let root = world.spawn(Mass(5)).id();
    let liked = world.spawn(ChildOf.pair(root)).id();
    let orphan = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(liked).id();
    world.spawn_empty().add_pair::<Likes>(orphan);
    for mut q in both(&world, "(Likes, $x), Mass($x|up)") {
        let rows: Vec<_> =
            q.iter(&world).map(|r| (r.entity(), r.var("x"), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
        assert_eq!(rows, [(a, Some(liked), root, Some(5))]);
    }
}

#[test]
fn traversal_custom_traversable_relationship_over_several_levels() {
    let mut world = new_world();
    let far = world.spawn(Mass(8)).id();
    let mid = world.spawn_empty().add_pair::<Near>(far).id();
    let a = world.spawn(TagA).add_pair::<Near>(mid).id();
    let near = cid::<Near>(&world);
    let (tag, mass) = (cid::<TagA>(&world), cid::<Mass>(&world));
    let mut q = world.query_builder().with(tag).read(mass).up(near).build().unwrap();
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
    assert_eq!(rows, [(a, far)]);
}

#[test]
fn traversal_builder_self_up_equals_dsl() {
    let mut world = new_world();
    let (mass, child_of) = (cid::<Mass>(&world), cid::<ChildOf>(&world));
    let p = world.spawn(Mass(1)).id();
    let c = world.spawn(ChildOf.pair(p)).id();
    let mut built = world.query_builder().read(mass).self_up(child_of).build().unwrap();
    let text = dsl(&world, "[in] Mass(self|up ChildOf)");
    assert_eq!(built.terms(), text.terms());
    let rows: BTreeSet<_> = built.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
    assert_eq!(rows, [(p, p), (c, p)].into());
}

#[test]
fn traversal_up_not_matched_after_the_parent_is_despawned() {
    let mut world = new_world();
    let p = world.spawn(Mass(1)).id();
    let other = world.spawn((TagA, Mass(1))).id();
    world.spawn((TagA, ChildOf.pair(p)));
    let mut q = dsl(&world, "TagA, Mass(up)");
    assert_eq!(q.count(&world), 1);
    world.despawn(p);
    assert_eq!(q.count(&world), 0, "the child was deleted with its parent");
    let _ = other;
}

#[test]
fn traversal_cascade_is_not_supported_and_is_an_error() {
    // Flecs' `cascade` is not in the DSL subset: an error, never a panic
    let world = new_world();
    let e = err(&world, "TagA, Mass(cascade)");
    assert!(e.offset >= 11 && e.offset <= "TagA, Mass(cascade)".len(), "{e}");
}

// ================================================================== Transitive

fn geography(world: &mut World) -> (Entity, Entity, Entity, Entity) {
    let earth = named(world, "Earth");
    let europe = world.spawn(Name::new("Europe")).add_pair::<LocatedIn>(earth).id();
    let france = world.spawn(Name::new("France")).add_pair::<LocatedIn>(europe).id();
    let paris = world.spawn(Name::new("Paris")).add_pair::<LocatedIn>(france).id();
    (earth, europe, france, paris)
}

#[test]
fn transitive_this_with_variable_target_lists_every_reachable_target() {
    let mut world = new_world();
    let (earth, europe, france, paris) = geography(&mut world);
    for mut q in both(&world, "(LocatedIn, $x)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap())).collect();
        let expected: BTreeSet<_> =
            [(europe, earth), (france, europe), (france, earth), (paris, france), (paris, europe), (paris, earth)]
                .into();
        assert_eq!(rows, expected);
    }
}

#[test]
fn transitive_both_variables_without_this() {
    let mut world = new_world();
    let (earth, europe, france, _) = geography(&mut world);
    let _ = world.despawn(world.lookup("Paris").unwrap());
    for mut q in both(&world, "LocatedIn($x, $y)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap())).collect();
        assert_eq!(rows, [(europe, earth), (france, europe), (france, earth)].into());
    }
}

#[test]
fn transitive_not_excludes_indirect_members() {
    let mut world = new_world();
    let (_, europe, france, paris) = geography(&mut world);
    let mars = named(&mut world, "Mars");
    for e in [europe, france, paris, mars] {
        world.entity_mut(e).insert(TagA);
    }
    for mut q in both(&world, "TagA, !(LocatedIn, Earth)") {
        assert_eq!(ents_sorted(&mut q, &world), vec![mars]);
    }
}

#[test]
fn transitive_optional_is_set_through_the_chain() {
    let mut world = new_world();
    let (_, europe, _, paris) = geography(&mut world);
    let mars = named(&mut world, "Mars");
    for e in [paris, mars] {
        world.entity_mut(e).insert(TagA);
    }
    let _ = europe;
    for mut q in both(&world, "TagA, ?(LocatedIn, Europe)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(1))).collect();
        assert_eq!(rows, [(paris, true), (mars, false)].into());
    }
}

#[test]
fn transitive_diamond_yields_each_entity_once_for_a_fixed_target() {
    let mut world = new_world();
    let top = named(&mut world, "Top");
    let left = world.spawn_empty().add_pair::<LocatedIn>(top).id();
    let right = world.spawn_empty().add_pair::<LocatedIn>(top).id();
    let bottom = world.spawn_empty().add_pair::<LocatedIn>(left).add_pair::<LocatedIn>(right).id();
    for mut q in both(&world, "(LocatedIn, Top)") {
        assert_eq!(ents_sorted(&mut q, &world), {
            let mut v = vec![left, right, bottom];
            v.sort();
            v
        });
    }
}

#[test]
fn transitive_diamond_variable_target_values_are_distinct() {
    let mut world = new_world();
    let top = world.spawn_empty().id();
    let left = world.spawn_empty().add_pair::<LocatedIn>(top).id();
    let right = world.spawn_empty().add_pair::<LocatedIn>(top).id();
    let bottom = world.spawn(TagA).add_pair::<LocatedIn>(left).add_pair::<LocatedIn>(right).id();
    for mut q in both(&world, "TagA, (LocatedIn, $x)") {
        let mut xs: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap())).collect();
        xs.sort();
        let mut expected = vec![(bottom, left), (bottom, right), (bottom, top)];
        expected.sort();
        assert_eq!(xs, expected);
    }
}

#[test]
fn transitive_cycle_with_a_fixed_target_terminates() {
    let mut world = new_world();
    let a = named(&mut world, "A");
    let b = world.spawn_empty().add_pair::<LocatedIn>(a).id();
    let c = world.spawn_empty().add_pair::<LocatedIn>(b).id();
    world.entity_mut(a).add_pair::<LocatedIn>(c); // a -> c -> b -> a
    let outside = world.spawn_empty().id();
    for mut q in both(&world, "(LocatedIn, A)") {
        let rows = ents(&mut q, &world);
        assert!(rows.contains(&b) && rows.contains(&c), "{rows:?}");
        assert!(!rows.contains(&outside));
        assert_eq!(q.count(&world), rows.len(), "no entity twice");
    }
}

#[test]
fn transitive_cycle_with_both_variables_terminates() {
    let mut world = new_world();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().add_pair::<LocatedIn>(a).id();
    world.entity_mut(a).add_pair::<LocatedIn>(b);
    for mut q in both(&world, "LocatedIn($x, $y)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap())).collect();
        assert!(rows.contains(&(a, b)) && rows.contains(&(b, a)), "{rows:?}");
        assert!(rows.len() <= 4, "{rows:?}");
    }
}

#[test]
fn transitive_cached_sees_a_link_removed() {
    let mut world = new_world();
    let (_, europe, france, paris) = geography(&mut world);
    world.entity_mut(paris).insert(TagA);
    let mut q = dsl(&world, "TagA, (LocatedIn, Earth)");
    assert_eq!(q.count(&world), 1);
    world.entity_mut(france).remove_pair::<LocatedIn>(europe);
    assert_eq!(q.count(&world), 0, "the chain is broken");
    let mut fresh = dsl_uncached(&world, "TagA, (LocatedIn, Earth)");
    assert_eq!(fresh.count(&world), 0);
}

#[test]
fn transitive_chain_breaks_when_a_middle_entity_is_despawned() {
    let mut world = new_world();
    let (_, europe, _, paris) = geography(&mut world);
    world.entity_mut(paris).insert(TagA);
    let mut q = dsl(&world, "TagA, (LocatedIn, Earth)");
    assert_eq!(q.count(&world), 1);
    world.despawn(europe);
    assert_eq!(q.count(&world), 0);
}

#[test]
fn non_transitive_relationship_matches_direct_pairs_only() {
    let mut world = new_world();
    let c = named(&mut world, "C");
    let b = world.spawn_empty().add_pair::<Likes>(c).id();
    world.spawn_empty().add_pair::<Likes>(b);
    for mut q in both(&world, "(Likes, C)") {
        assert_eq!(ents_sorted(&mut q, &world), vec![b]);
    }
}

#[test]
fn transitive_fixed_source_and_variable_target_joined_with_a_component() {
    // LocatedIn(Paris, $x), Mass($x): which places containing Paris have Mass
    let mut world = new_world();
    let (earth, europe, _, _) = geography(&mut world);
    world.entity_mut(earth).insert(Mass(1));
    world.entity_mut(europe).insert(Mass(2));
    for mut q in both(&world, "LocatedIn(Paris, $x), Mass($x)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.get::<Mass>(1).unwrap().0)).collect();
        assert_eq!(rows, [(earth, 1), (europe, 2)].into());
    }
}

// ================================================================== Fixed sources

#[test]
fn fixed_sources_several_distinct_entities() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Mass(1))).id();
    let config = world.spawn((Name::new("Config"), Health(2))).id();
    let a = world.spawn(Position::default()).id();
    for mut q in both(&world, "Position, Mass(Game), Health(Config)") {
        let rows: Vec<_> = q
            .iter(&world)
            .map(|r| (r.entity(), r.source(1), r.source(2), r.get::<Mass>(1).unwrap().0, r.get::<Health>(2).unwrap().0))
            .collect();
        assert_eq!(rows, [(a, game, config, 1, 2)]);
    }
    world.entity_mut(config).remove::<Health>();
    let mut q = dsl(&world, "Position, Mass(Game), Health(Config)");
    assert_eq!(q.count(&world), 0);
}

#[test]
fn fixed_source_value_updates_are_visible_to_a_cached_query() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Mass(1))).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, Mass(Game)");
    assert_eq!(q.iter(&world).next().unwrap().get::<Mass>(1), Some(&Mass(1)));
    world.get_mut::<Mass>(game).unwrap().0 = 7;
    assert_eq!(q.iter(&world).next().unwrap().get::<Mass>(1), Some(&Mass(7)));
}

#[test]
fn fixed_source_builder_and_dsl_agree() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Mass(1))).id();
    world.spawn(Position::default());
    let (pos, mass) = (cid::<Position>(&world), cid::<Mass>(&world));
    let mut built = world.query_builder().read(pos).read(mass).source(game).build().unwrap();
    let mut text = dsl(&world, "[in] Position, [in] Mass(Game)");
    assert_eq!(built.terms(), text.terms());
    assert_eq!(rows_key(&mut built, &world), rows_key(&mut text, &world));
}

#[test]
fn fixed_source_not_pair() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let game = world.spawn(Name::new("Game")).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, !Likes(Game, Bob)");
    assert_eq!(q.count(&world), 1);
    world.entity_mut(game).add_pair::<Likes>(bob);
    assert_eq!(q.count(&world), 0);
}

#[test]
fn fixed_source_that_is_disabled_still_matches_when_named() {
    // Flecs: Disabled/Prefab filtering applies to $this and variables, not to
    // entities a term names as its fixed source
    let mut world = new_world();
    world.spawn((Name::new("Game"), Mass(1), Disabled));
    world.spawn((Name::new("Base"), Mass(2), Prefab));
    let a = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position, Mass(Game)");
    assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    let mut q = dsl(&world, "Position, Mass(Base)");
    assert_eq!(ents_sorted(&mut q, &world), vec![a]);
}

#[test]
fn fixed_source_only_query_with_wildcard_pair_one_row_per_target() {
    let mut world = new_world();
    let game = world.spawn(Name::new("Game")).id();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(game).add_pair::<Likes>(x).add_pair::<Likes>(y);
    for mut q in both(&world, "Likes(Game, *)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.this(), r.pair_target(0))).collect();
        assert_eq!(rows, [(None, x), (None, y)].into());
    }
}

// ================================================================== Prefabs / Disabled

#[test]
fn is_a_variable_binds_the_prefab_and_instances_are_rows() {
    let mut world = new_world();
    let base = world.spawn((Prefab, Mass(1))).id();
    let i1 = world.instantiate(base);
    let i2 = world.instantiate(base);
    for mut q in both(&world, "(IsA, $b)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("b").unwrap())).collect();
        assert!(rows.contains(&(i1, base)) && rows.contains(&(i2, base)), "{rows:?}");
        assert!(!rows.iter().any(|(e, _)| *e == base), "the prefab itself is not a $this row: {rows:?}");
    }
}

#[test]
fn not_disabled_is_the_same_as_the_default() {
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    world.spawn((Position::default(), Disabled));
    for mut q in both(&world, "Position, !Disabled") {
        assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    }
}

#[test]
fn prefab_and_disabled_both_named() {
    let mut world = new_world();
    world.spawn((Position::default(), Prefab));
    world.spawn((Position::default(), Disabled));
    let both_e = world.spawn((Position::default(), Prefab, Disabled)).id();
    for mut q in both(&world, "Position, Prefab, Disabled") {
        assert_eq!(ents_sorted(&mut q, &world), vec![both_e]);
    }
    let mut q = dsl(&world, "Position, Prefab");
    assert_eq!(q.count(&world), 1, "a disabled prefab needs Disabled named too");
}

#[test]
fn disabled_entities_not_bound_to_a_variable_target() {
    // (Likes, $x), Mass($x): a disabled $x is not matched unless Disabled is named
    let mut world = new_world();
    let off = world.spawn((Mass(1), Disabled)).id();
    let on = world.spawn(Mass(2)).id();
    let a = world.spawn_empty().add_pair::<Likes>(off).add_pair::<Likes>(on).id();
    let mut q = dsl(&world, "(Likes, $x), Mass($x)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("x").unwrap())).collect();
    assert!(rows.contains(&(a, on)));
    let _ = off;
}

// ================================================================== Cached vs uncached

#[test]
fn cached_and_uncached_identical_rows_over_edits_and_garbage_collection() {
    let mut world = new_world();
    let bob = named(&mut world, "Bob");
    let earth = named(&mut world, "Earth");
    let game = named(&mut world, "Game");
    let texts = [
        "(Likes, $x), (Likes, $y)",
        "(*, Bob)",
        "(_, Bob)",
        "(Likes, *) || TagA",
        "TagA, (LocatedIn, Earth)",
        "TagA, (LocatedIn, $p)",
        "Position, Mass(Game)",
        "Position, ?Mass(Game)",
        "(Likes, $x), Mass($x)",
        "(Likes, $x), !Mass($x)",
        "TagB, Mass(up)",
        "TagA, (*, *)",
        "Likes($x, $y)",
    ];
    let mut cached: Vec<DynQuery> = texts.iter().map(|t| dsl(&world, t)).collect();
    let mut pool: Vec<Entity> = vec![bob, earth];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for step in 0..250 {
        let r = next();
        let pick = pool[(r as usize >> 8) % pool.len()];
        let other = pool[(r as usize >> 24) % pool.len()];
        let alive = world.is_alive(pick);
        match r % 14 {
            0 | 1 => pool.push(world.spawn((Position::default(), TagA)).id()),
            2 if alive => {
                world.entity_mut(pick).add_pair::<Likes>(if r & 0x100_0000_0000 != 0 { bob } else { other });
            }
            3 if alive => {
                world.entity_mut(pick).insert(Mass(1));
            }
            4 if alive => {
                world.entity_mut(pick).remove::<Mass>();
            }
            5 if alive && pick != bob && pick != earth => {
                world.despawn(pick);
            }
            6 if alive && world.is_alive(other) && pick != other => {
                world.entity_mut(pick).add_pair::<LocatedIn>(other);
            }
            7 if alive => {
                world.entity_mut(pick).add_pair::<Hates>(bob);
            }
            8 => {
                if world.has::<Mass>(game) {
                    world.entity_mut(game).remove::<Mass>();
                } else {
                    world.entity_mut(game).insert(Mass(3));
                }
            }
            9 if alive => {
                world.entity_mut(pick).insert(TagB);
            }
            10 if alive && world.is_alive(other) && pick != other && !world.ancestors(other).any(|a| a == pick) => {
                world.entity_mut(pick).add_pair::<ChildOf>(other);
            }
            11 if alive => {
                world.entity_mut(pick).remove_pair::<Likes>(Entity::WILDCARD);
            }
            12 if alive => {
                world.entity_mut(pick).remove::<TagA>();
            }
            _ => {}
        }
        pool.retain(|e| world.is_alive(*e));
        if step % 7 == 0 {
            world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
        }
        if step % 5 == 0 {
            for (i, text) in texts.iter().enumerate() {
                let mut fresh = dsl_uncached(&world, text);
                assert_eq!(rows_key(&mut cached[i], &world), rows_key(&mut fresh, &world), "step {step}: {text}");
            }
        }
    }
}

#[test]
fn cached_query_survives_its_archetype_being_deleted_and_recreated() {
    let mut world = new_world();
    let e = world.spawn((Position::default(), Mass(1), TagC)).id();
    let mut q = dsl(&world, "Position, Mass");
    assert_eq!(q.count(&world), 1);
    world.despawn(e);
    for _ in 0..3 {
        world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
    }
    assert_eq!(q.count(&world), 0);
    let f = world.spawn((Position::default(), Mass(2), TagC)).id();
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.get::<Mass>(1).unwrap().0)).collect();
    assert_eq!(rows, [(f, 2)]);
}

// ================================================================== Parser

#[test]
fn parser_valid_strings_from_flecs() {
    let mut world = new_world();
    named(&mut world, "Bob");
    named(&mut world, "Game");
    for text in [
        "Position",
        "Position, Velocity",
        "Position($this)",
        "Position(Game)",
        "Position($x), Velocity($x)",
        "(Likes, Bob)",
        "(Likes, *)",
        "(Likes, _)",
        "(*, Bob)",
        "(*, *)",
        "(_, _)",
        "($r, $t)",
        "Likes($this, Bob)",
        "Likes(Game, *)",
        "Likes($x, $y)",
        "$c($this)",
        "!Position",
        "?Position",
        "!(Likes, *)",
        "?(Likes, $x)",
        "[in] Position",
        "[out] Position",
        "[inout] Position",
        "[none] Position",
        "[in] ?Velocity",
        "[none] !Velocity",
        "Position || Velocity",
        "(Likes, Bob) || (Hates, Bob)",
        "Position(up)",
        "Position(up ChildOf)",
        "Position(self|up)",
        "Position(self|up ChildOf)",
        "Position(self)",
        "Likes(up, Bob)",
        "Likes(self|up ChildOf, *)",
        "(Likes, $x), Position($x|up)",
        "(Likes, $x), Position($x|self|up ChildOf)",
        "Position(Game|up)",
    ] {
        assert!(world.query_dsl(text).is_ok(), "{text:?}: {:?}", world.query_dsl(text).err());
    }
}

/// `self` written out is Flecs' explicit `self`: the same term on the row's
/// own ids, without the implicit `up IsA` of an inheritable component (see
/// `prefab.rs` `explicit_self_matches_owned_values_only`).
#[test]
fn parser_self_alone_is_the_default_place_owned_only() {
    let world = new_world();
    let (explicit, default) =
        (dsl(&world, "Position(self)").terms().to_vec(), dsl(&world, "Position").terms().to_vec());
    assert_eq!(explicit.len(), 1);
    assert_eq!((&explicit[0].alternatives, &explicit[0].source), (&default[0].alternatives, &default[0].source));
    assert_eq!((explicit[0].traversal.clone(), default[0].traversal.clone()), (Traversal::Owned, Traversal::SelfOnly));
}

#[test]
fn parser_invalid_strings_with_offsets() {
    let world = new_world();
    let cases: &[(&str, usize)] = &[
        ("Position,,Velocity", 9),
        ("Position, , Velocity", 10),
        ("[foo] Position", 1),
        ("[in Position", 4),
        ("[in] [out] Position", 5),
        ("(Likes, *))", 10),
        ("Position(*)", 9),
        ("Position(_)", 9),
        ("Position, {Velocity}", 10),
        ("Position || Nope", 12),
        ("(Likes, *) || (Nope, *)", 15),
        ("Position(self|up ChildOf", 24),
        ("Position(up Nope)", 12),
        ("Likes($this, *, *)", 14),
        ("Position(up, )", 13),
    ];
    for &(text, offset) in cases {
        let e = err(&world, text);
        assert_eq!(e.offset, offset, "{text:?}: {e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn parser_unbound_variables_are_errors() {
    let world = new_world();
    for text in ["Position($x)||Velocity", "!(Likes, $x)", "Position, ?Velocity($x)", "!Position($x), !Velocity($x)"] {
        if let Ok(q) = world.query_dsl(text) {
            panic!("{text:?} parsed as {:?}", q.to_dsl());
        }
    }
}

#[test]
fn parser_or_alternatives_with_different_sources_are_an_error() {
    let mut world = new_world();
    named(&mut world, "Game");
    let e = err(&world, "Position(Game) || Velocity");
    assert!(e.offset > 0 && e.offset <= "Position(Game) || Velocity".len(), "{e}");
}

#[test]
fn parser_this_as_a_pair_target_or_relationship_is_refused_or_meaningful() {
    // In an id, `$this` is the row's entity (Flecs: a variable like any
    // other): `($this, *)` finds the entities holding a pair whose
    // relationship is the entity itself.
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let (own, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_id(own, Id::pair(own, bob));
    world.add_id(other, Id::pair(own, bob));
    for mut q in both(&world, "($this, *)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
        assert_eq!(rows, [(own, Id::pair(own, bob))]);
    }
}

#[test]
fn parser_entity_ids_as_hash_bits() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).id();
    let text = format!("(Likes, #{})", bob.to_bits());
    let mut q = dsl(&world, &text);
    assert_eq!(ents_sorted(&mut q, &world), vec![a]);
    let pos = cid::<Position>(&world);
    let e = world.spawn(Position { x: 3.0 }).id();
    let mut q = dsl(&world, &format!("#{}", pos.to_bits()));
    assert_eq!(
        q.iter(&world).map(|r| (r.entity(), r.get::<Position>(0).copied())).collect::<Vec<_>>(),
        [(e, Some(Position { x: 3.0 }))]
    );
}

// ================================================================== To string round trips

#[test]
fn to_dsl_canonical_forms() {
    let mut world = new_world();
    named(&mut world, "Bob");
    for (input, canonical) in [
        ("Position($this)", "Position"),
        ("Likes($this, Bob)", "(Likes, Bob)"),
        ("  Position ,Velocity", "Position, Velocity"),
        ("!Position", "!Position"),
        ("?(Likes, *)", "?(Likes, *)"),
        ("[in]Position", "[in] Position"),
        ("Position||Velocity", "Position || Velocity"),
    ] {
        assert_eq!(dsl(&world, input).to_dsl(), canonical, "{input:?}");
    }
}

#[test]
fn to_dsl_round_trips_for_flecs_shapes() {
    let mut world = new_world();
    named(&mut world, "Bob");
    named(&mut world, "Game");
    for text in [
        "(Likes, $x), (Likes, $y)",
        "ChildOf($this, $p), ChildOf($p, $g)",
        "(Likes, $x), !Mass($x)",
        "(Likes, $x), ?Mass($x)",
        "(Likes, $x) || (Hates, $x), Mass($x)",
        "Likes(up, Bob)",
        "Likes(self|up ChildOf, *)",
        "(Likes, $x), Mass($x|up)",
        "(Likes, $x), Mass($x|self|up ChildOf)",
        "Likes(Game, *)",
        "Position, ?Mass(Game)",
        "Position, !Likes(Game, Bob)",
        "(_, _), (*, *)",
        "TagA, *",
        "TagA, _",
        "LocatedIn($x, $y)",
        "[none] TagA || TagB, [in] Position",
    ] {
        let q = dsl(&world, text);
        let printed = q.to_dsl();
        let back = world.query_dsl(&printed).unwrap_or_else(|e| panic!("{text:?} printed {printed:?}: {e}"));
        assert_eq!(back.terms(), q.terms(), "{text:?} -> {printed:?}");
        assert_eq!(back.to_dsl(), printed);
    }
}

#[test]
fn to_dsl_of_builder_with_variables_and_sources_round_trips() {
    let mut world = new_world();
    let game = named(&mut world, "Game");
    let unnamed = world.spawn_empty().id();
    let (pos, likes, mass, near) =
        (cid::<Position>(&world), cid::<Likes>(&world), cid::<Mass>(&world), cid::<Near>(&world));
    let q = world
        .query_builder()
        .read(pos)
        .pair_var(likes, "x")
        .read(mass)
        .source_var("x")
        .read(mass)
        .source(game)
        .pair(likes, unnamed)
        .optional_last()
        .read(mass)
        .self_up(near)
        .build_in(&world)
        .unwrap();
    let printed = q.to_dsl();
    let back = world.query_dsl(&printed).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
    assert_eq!(back.terms(), q.terms(), "{printed}");
    assert!(printed.contains("Game"), "named entities print by name: {printed}");
    assert!(printed.contains(&format!("#{}", unnamed.to_bits())), "unnamed print as #bits: {printed}");
}

#[test]
fn to_dsl_query_runs_the_same_rows_as_the_original() {
    let mut world = new_world();
    let bob = named(&mut world, "Bob");
    let heavy = world.spawn(Mass(1)).id();
    world.spawn(TagA).add_pair::<Likes>(bob).add_pair::<Likes>(heavy);
    world.spawn(TagA).add_pair::<Hates>(heavy);
    let mut q = dsl(&world, "TagA, (Likes, $x) || (Hates, $x), ?Mass($x)");
    let mut back = dsl(&world, &q.to_dsl());
    let a = rows_key(&mut q, &world);
    assert_eq!(a.len(), 3);
    assert_eq!(a, rows_key(&mut back, &world));
}

// ================================================================== Build errors (builder)

#[test]
fn builder_write_on_variable_source_is_refused() {
    let world = new_world();
    let (likes, mass) = (cid::<Likes>(&world), cid::<Mass>(&world));
    let error = world.query_builder().pair_var(likes, "x").write(mass).source_var("x").build().unwrap_err();
    assert_eq!(error, QueryBuildError::WriteNotOnThis { term: 1 });
}

#[test]
fn builder_variable_only_in_optional_source_is_unbound() {
    let world = new_world();
    let (pos, mass) = (cid::<Position>(&world), cid::<Mass>(&world));
    let error = world.query_builder().read(pos).optional(mass).source_var("x").build().unwrap_err();
    assert!(
        matches!(error, QueryBuildError::UnboundVariable { term: 1, ref variable } if variable == "x"),
        "{error:?}"
    );
}

#[test]
fn builder_negated_or_chain_matches_neither_or_is_refused() {
    // Flecs: Not applied to an or-chain means none of the alternatives
    let mut world = new_world();
    let (ta, tb, pos) = (cid::<TagA>(&world), cid::<TagB>(&world), cid::<Position>(&world));
    let n = world.spawn(Position::default()).id();
    world.spawn((Position::default(), TagA));
    world.spawn((Position::default(), TagB));
    match world.query_builder().read(pos).with(ta).or(tb).negate_last().build() {
        Ok(mut q) => assert_eq!(ents_sorted(&mut q, &world), vec![n]),
        Err(error) => assert!(matches!(error, QueryBuildError::InvalidTerm { term: 1, .. }), "{error:?}"),
    }
}

#[test]
fn is_a_inheritance_through_a_non_prefab_intermediate_base() {
    // Flecs: any entity can be an IsA base; IsA is transitive (API.md: "IsA
    // (transitive, traversable)"), so inst inherits base's Mass through mid
    let mut world = new_world();
    let base = world.spawn((Prefab, Mass(3))).id();
    let mid = world.spawn(IsA.pair(base)).id();
    let inst = world.spawn((TagA, IsA.pair(mid))).id();
    assert_eq!(world.get::<Mass>(mid), Some(&Mass(3)));
    assert_eq!(world.get::<Mass>(inst), Some(&Mass(3)));
    for mut q in both(&world, "TagA, Mass") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
        assert_eq!(rows, [(inst, base)]);
    }
}

// ================================================================== More sources: sparse, toggles, reparenting

#[test]
fn traversal_up_is_a_stops_at_the_middle_prefab_that_owns_the_value() {
    let mut world = new_world();
    let base = world.spawn((Prefab, Mass(3))).id();
    let mid = world.spawn((Prefab, Mass(5), IsA.pair(base))).id();
    let inst = world.spawn((TagA, IsA.pair(mid))).id();
    let mut q = dsl(&world, "TagA, Mass(self|up IsA)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
    assert_eq!(rows, [(inst, mid, Some(5))]);
}

#[test]
fn sparse_component_on_fixed_source_variable_and_up() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Shield(1))).id();
    let parent = world.spawn(Shield(2)).id();
    let child = world.spawn((TagA, ChildOf.pair(parent))).id();
    let liker = world.spawn_empty().add_pair::<Likes>(parent).id();
    world.spawn_empty().add_pair::<Likes>(child);
    for mut q in both(&world, "TagA, Shield(Game)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.get::<Shield>(1).map(|s| s.0))).collect();
        assert_eq!(rows, [(child, Some(1))]);
    }
    for mut q in both(&world, "TagA, Shield(up)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Shield>(1).map(|s| s.0))).collect();
        assert_eq!(rows, [(child, parent, Some(2))]);
    }
    for mut q in both(&world, "(Likes, $x), Shield($x)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"), r.get::<Shield>(1).map(|s| s.0))).collect();
        assert_eq!(rows, [(liker, Some(parent), Some(2))]);
    }
    world.entity_mut(game).remove::<Shield>();
    assert_eq!(dsl(&world, "TagA, Shield(Game)").count(&world), 0);
}

#[test]
fn toggled_off_component_on_a_variable_source_is_absent() {
    let mut world = new_world();
    let on = world.spawn(Thrust(1)).id();
    let off = world.spawn(Thrust(2)).id();
    world.entity_mut(off).disable::<Thrust>();
    let a = world.spawn_empty().add_pair::<Likes>(on).add_pair::<Likes>(off).id();
    for mut q in both(&world, "(Likes, $x), Thrust($x)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
        assert_eq!(rows, [(a, Some(on))]);
    }
    for mut q in both(&world, "(Likes, $x), !Thrust($x)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
        assert_eq!(rows, [(a, Some(off))]);
    }
}

#[test]
fn or_chain_with_up_alternatives() {
    let mut world = new_world();
    let pm = world.spawn(Mass(1)).id();
    let ph = world.spawn(Health(2)).id();
    let a = world.spawn((TagA, ChildOf.pair(pm))).id();
    let b = world.spawn((TagA, ChildOf.pair(ph))).id();
    world.spawn(TagA);
    for mut q in both(&world, "TagA, Mass(up) || Health(up)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
        assert_eq!(rows, [(a, pm), (b, ph)].into());
    }
}

#[test]
fn is_a_variable_lists_every_base_along_the_chain() {
    let mut world = new_world();
    let base = world.spawn((Prefab, Mass(1))).id();
    let mid = world.spawn((Prefab, IsA.pair(base))).id();
    let inst = world.spawn((TagA, IsA.pair(mid))).id();
    for mut q in both(&world, "TagA, (IsA, $b)") {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("b").unwrap())).collect();
        assert!(rows.contains(&(inst, mid)) && rows.contains(&(inst, base)), "IsA is transitive: {rows:?}");
    }
}

#[test]
fn cached_variable_query_follows_an_exclusive_target_change() {
    let mut world = new_world();
    let p1 = world.spawn(Mass(1)).id();
    let p2 = world.spawn(Mass(2)).id();
    let c = world.spawn((TagA, ChildOf.pair(p1))).id();
    let mut q = dsl(&world, "TagA, (ChildOf, $p), Mass($p)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("p"), r.get::<Mass>(2).map(|m| m.0))).collect();
    assert_eq!(rows, [(c, Some(p1), Some(1))]);
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("p"), r.get::<Mass>(2).map(|m| m.0))).collect();
    assert_eq!(rows, [(c, Some(p2), Some(2))]);
}

#[test]
fn up_wildcard_pair_through_two_levels_finds_the_nearest() {
    let mut world = new_world();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    let root = world.spawn_empty().add_pair::<Likes>(x).id();
    let mid = world.spawn(ChildOf.pair(root)).add_pair::<Likes>(y).id();
    let leaf = world.spawn((TagA, ChildOf.pair(mid))).id();
    for mut q in both(&world, "TagA, Likes(up, *)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.pair_target(1))).collect();
        assert_eq!(rows, [(leaf, mid, y)]);
    }
}

#[test]
fn transitive_pair_on_variable_source() {
    // (Likes, $x), LocatedIn($x, Earth): likes something located (transitively) on Earth
    let mut world = new_world();
    let (_, _, _, paris) = geography(&mut world);
    let mars = named(&mut world, "Mars");
    let a = world.spawn_empty().add_pair::<Likes>(paris).id();
    world.spawn_empty().add_pair::<Likes>(mars);
    for mut q in both(&world, "(Likes, $x), LocatedIn($x, Earth)") {
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
        assert_eq!(rows, [(a, Some(paris))]);
    }
}
