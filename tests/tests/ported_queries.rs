//! Ported acceptance tests: runtime queries (builder + DSL) ported from Flecs query tests.

use std::collections::BTreeSet;

use ecs::entity::Id;
use ecs::query::{DslError, DynQuery};

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
struct Health(u32);
#[derive(Component, Debug)]
struct Enemy;
#[derive(Component, Debug)]
struct Tag;
#[derive(Component, Debug)]
struct Marker;
#[derive(Component, Debug, PartialEq)]
struct Mass(u32);
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(u32);
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Shield(u32);
#[derive(Component, Debug, PartialEq, Clone)]
#[component(on_instantiate = "override")]
struct Hull(u32);
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

fn register_all(world: &mut World) {
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Health>();
    world.register_component::<Enemy>();
    world.register_component::<Tag>();
    world.register_component::<Marker>();
    world.register_component::<Mass>();
    world.register_component::<Thrust>();
    world.register_component::<Shield>();
    world.register_component::<Hull>();
    world.register_component::<Likes>();
    world.register_component::<Hates>();
    world.register_component::<Eats>();
    world.register_component::<LocatedIn>();
    world.register_component::<Near>();
}

fn new_world() -> World {
    let mut world = World::new();
    register_all(&mut world);
    world
}

fn dsl(world: &World, text: &str) -> DynQuery {
    world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn dsl_uncached(world: &World, text: &str) -> DynQuery {
    world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn ents(q: &mut DynQuery, world: &World) -> BTreeSet<Entity> {
    q.iter(world).map(|r| r.entity()).collect()
}

fn ents_vec(q: &mut DynQuery, world: &World) -> Vec<Entity> {
    let mut v: Vec<Entity> = q.iter(world).map(|r| r.entity()).collect();
    v.sort();
    v
}

fn err(world: &World, text: &str) -> DslError {
    match world.query_dsl(text) {
        Ok(q) => panic!("{text:?} parsed: {:?}", q.to_dsl()),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- sources

#[test]
fn named_entity_as_fixed_source() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Mass(9))).id();
    let a = world.spawn(Position::default()).id();
    let b = world.spawn(Position::default()).id();
    for mut q in [dsl(&world, "Position, Mass(Game)"), dsl_uncached(&world, "Position, Mass(Game)")] {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
        assert_eq!(rows, [(a, game, Some(9)), (b, game, Some(9))].into());
    }
}

#[test]
fn fixed_source_missing_component_yields_nothing_then_something() {
    let mut world = new_world();
    let game = world.spawn(Name::new("Game")).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, Mass(Game)");
    assert_eq!(q.count(&world), 0);
    world.entity_mut(game).insert(Mass(1));
    assert_eq!(q.count(&world), 1, "cached query sees the fixed source gaining the component");
    world.entity_mut(game).remove::<Mass>();
    assert_eq!(q.count(&world), 0);
}

#[test]
fn fixed_source_by_path() {
    let mut world = new_world();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station), Mass(3))).id();
    let a = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position, Mass(station::dock)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
    assert_eq!(rows, [(a, dock)]);
}

#[test]
fn explicit_this_source_is_the_same_as_none() {
    let mut world = new_world();
    let a = world.spawn((Position::default(), Velocity::default())).id();
    world.spawn(Position::default());
    let mut q1 = dsl(&world, "Position($this), Velocity($this)");
    let q2 = dsl(&world, "Position, Velocity");
    assert_eq!(ents_vec(&mut q1, &world), vec![a]);
    assert_eq!(q1.terms(), q2.terms());
}

#[test]
fn variable_source_join() {
    // Flecs: Position($this), ChildOf($this, $p), Mass($p)
    let mut world = new_world();
    let p1 = world.spawn(Mass(1)).id();
    let p2 = world.spawn_empty().id();
    let c1 = world.spawn((Position::default(), ChildOf.pair(p1))).id();
    world.spawn((Position::default(), ChildOf.pair(p2)));
    world.spawn(Position::default());
    for mut q in [
        dsl(&world, "Position, ChildOf($this, $p), Mass($p)"),
        dsl_uncached(&world, "Position, (ChildOf, $p), Mass($p)"),
    ] {
        let rows: Vec<_> =
            q.iter(&world).map(|r| (r.entity(), r.var("p"), r.source(2), r.get::<Mass>(2).map(|m| m.0))).collect();
        assert_eq!(rows, [(c1, Some(p1), p1, Some(1))]);
    }
}

// ---------------------------------------------------------------- pairs

#[test]
fn pair_with_named_target() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let carol = world.spawn(Name::new("Carol")).id();
    let alice = world.spawn_empty().add_pair::<Likes>(bob).id();
    world.spawn_empty().add_pair::<Likes>(carol);
    let mut q = dsl(&world, "(Likes, Bob)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.id(0), r.pair_target(0))).collect();
    let likes = world.component_id::<Likes>().unwrap();
    assert_eq!(rows, [(alice, Id::pair(likes, bob), bob)]);
}

#[test]
fn rel_this_target_form_equals_pair_form() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let alice = world.spawn_empty().add_pair::<Likes>(bob).id();
    let mut q = dsl(&world, "Likes($this, Bob)");
    assert_eq!(ents_vec(&mut q, &world), vec![alice]);
    assert_eq!(q.terms(), dsl(&world, "(Likes, Bob)").terms());
}

#[test]
fn rel_with_fixed_source_and_target() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let alice = world.spawn(Name::new("Alice")).add_pair::<Likes>(bob).id();
    let x = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position, Likes(Alice, Bob)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
    assert_eq!(rows, [(x, alice)]);
    let mut q = dsl(&world, "Position, Likes(Bob, Alice)");
    assert_eq!(q.count(&world), 0);
}

#[test]
fn wildcard_target_one_row_per_pair() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn(Position::default()).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let mut q = dsl(&world, "Position, (Likes, *)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.pair_target(1))).collect();
    assert_eq!(rows, [(alice, bob), (alice, carol)].into());
    assert_eq!(q.count(&world), 2);
}

#[test]
fn wildcard_relationship_one_row_per_pair() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    let (likes, hates) = (world.component_id::<Likes>().unwrap(), world.component_id::<Hates>().unwrap());
    let mut q = dsl(&world, "(*, Bob)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
    assert_eq!(rows, [(alice, Id::pair(likes, bob)), (alice, Id::pair(hates, bob))].into());
}

#[test]
fn any_target_one_row_per_entity() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let mut q = dsl(&world, "(Likes, _)");
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![alice]);
}

#[test]
fn variable_relationship() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    let (likes, hates) = (world.component_id::<Likes>().unwrap(), world.component_id::<Hates>().unwrap());
    for mut q in [dsl(&world, "($r, Bob)"), dsl_uncached(&world, "($r, Bob)")] {
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("r").unwrap())).collect();
        assert_eq!(rows, [(alice, likes), (alice, hates)].into());
    }
}

#[test]
fn same_variable_twice_in_pair_matches_only_equal() {
    // Flecs: ($x, $x) / (Likes, $x), (Hates, $x) on same target
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(bob).id();
    world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Hates>(carol);
    let mut q = dsl(&world, "(Likes, $x), (Hates, $x)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
    assert_eq!(rows, [(alice, Some(bob))]);
}

#[test]
fn pair_value_through_wildcard() {
    let mut world = new_world();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((Eats(1).pair(apples), Eats(2).pair(pears))).id();
    let mut q = dsl(&world, "(Eats, *)");
    let rows: BTreeSet<_> =
        q.iter(&world).map(|r| (r.entity(), r.pair_target(0), r.get::<Eats>(0).unwrap().0)).collect();
    assert_eq!(rows, [(e, apples, 1), (e, pears, 2)].into());
}

#[test]
fn variable_as_whole_term_name() {
    // Flecs: $c($this) enumerates the components of $this
    let mut world = new_world();
    let e = world.spawn((Tag, Position::default(), Velocity::default())).id();
    world.spawn(Position::default());
    let (tag, pos, vel) = (
        world.component_id::<Tag>().unwrap(),
        world.component_id::<Position>().unwrap(),
        world.component_id::<Velocity>().unwrap(),
    );
    let mut q = dsl(&world, "Tag, $c($this)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("c").unwrap())).collect();
    assert_eq!(rows, [(e, tag), (e, pos), (e, vel)].into());
}

#[test]
fn variable_term_name_joined_with_marker_on_component() {
    let mut world = new_world();
    let pos = world.component_id::<Position>().unwrap();
    world.entity_mut(pos).insert(Marker);
    let e = world.spawn((Position::default(), Velocity::default())).id();
    world.spawn(Velocity::default());
    let mut q = dsl(&world, "$c($this), Marker($c)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("c"))).collect();
    assert_eq!(rows, [(e, Some(pos))]);
}

// ---------------------------------------------------------------- operators

#[test]
fn not_and_optional() {
    let mut world = new_world();
    let a = world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 })).id();
    let b = world.spawn(Position { x: 3.0 }).id();
    world.spawn((Position::default(), Enemy));
    for mut q in [dsl(&world, "Position, !Enemy, ?Velocity"), dsl_uncached(&world, "Position, !Enemy, ?Velocity")] {
        let rows: BTreeSet<_> = q
            .iter(&world)
            .map(|r| (r.entity(), r.is_set(1), r.is_set(2), r.get::<Velocity>(2).map(|v| v.x as i32)))
            .collect();
        assert_eq!(rows, [(a, false, true, Some(2)), (b, false, false, None)].into());
    }
}

#[test]
fn not_pair_wildcard() {
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let a = world.spawn(Position::default()).id();
    world.spawn(Position::default()).add_pair::<Likes>(bob);
    let mut q = dsl(&world, "Position, !(Likes, *)");
    assert_eq!(ents_vec(&mut q, &world), vec![a]);
}

#[test]
fn optional_pair_variable_unbound_is_none() {
    // API.md: row.var(..) -> None: unbound (optional)
    let mut world = new_world();
    let bob = world.spawn_empty().id();
    let a = world.spawn(Position::default()).add_pair::<Likes>(bob).id();
    let b = world.spawn(Position::default()).id();
    let mut q = world.query_dsl("Position, ?(Likes, $x)").expect("a variable in an optional term is allowed");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.var("x"))).collect();
    assert_eq!(rows, [(a, Some(bob)), (b, None)].into());
}

#[test]
fn not_fixed_source() {
    let mut world = new_world();
    let game = world.spawn(Name::new("Game")).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, !Mass(Game)");
    assert_eq!(q.count(&world), 1);
    world.entity_mut(game).insert(Mass(1));
    assert_eq!(q.count(&world), 0);
}

#[test]
fn or_chain_is_one_term_index() {
    let mut world = new_world();
    let a = world.spawn((Position { x: 1.0 }, Health(1))).id();
    let b = world.spawn((Velocity { x: 2.0 }, Health(2))).id();
    world.spawn(Health(3));
    let (pos, vel) = (world.component_id::<Position>().unwrap(), world.component_id::<Velocity>().unwrap());
    for mut q in [dsl(&world, "Position || Velocity, Health"), dsl_uncached(&world, "Position || Velocity, Health")] {
        assert_eq!(q.terms().len(), 2);
        let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.id(0), r.get::<Health>(1).unwrap().0)).collect();
        assert_eq!(rows, [(a, pos.id(), 1), (b, vel.id(), 2)].into());
    }
}

#[test]
fn or_chain_data_of_matched_alternative() {
    let mut world = new_world();
    let a = world.spawn(Position { x: 1.0 }).id();
    let b = world.spawn(Velocity { x: 2.0 }).id();
    let mut q = dsl(&world, "Position || Velocity");
    for row in q.iter(&world) {
        if row.entity() == a {
            assert_eq!(row.get::<Position>(0), Some(&Position { x: 1.0 }));
            assert_eq!(row.get::<Velocity>(0), None);
        } else {
            assert_eq!(row.entity(), b);
            assert_eq!(row.get::<Velocity>(0), Some(&Velocity { x: 2.0 }));
        }
    }
    assert_eq!(q.count(&world), 2);
}

#[test]
fn or_chain_with_fixed_source() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Velocity::default())).id();
    world.spawn(Tag);
    let mut q = dsl(&world, "Tag, Position(Game) || Velocity(Game)");
    let rows: Vec<_> = q.iter(&world).map(|r| r.source(1)).collect();
    assert_eq!(rows, [game]);
}

#[test]
fn or_chain_of_pairs() {
    let mut world = new_world();
    let bob = world.spawn(Name::new("Bob")).id();
    let a = world.spawn_empty().add_pair::<Likes>(bob).id();
    let b = world.spawn_empty().add_pair::<Hates>(bob).id();
    world.spawn(Tag);
    let mut q = dsl(&world, "(Likes, Bob) || (Hates, Bob)");
    assert_eq!(ents(&mut q, &world), [a, b].into());
}

#[test]
fn or_chain_with_not_inside_is_an_error_with_offset() {
    let world = new_world();
    assert_eq!(err(&world, "Position || !Velocity").offset, 12);
    assert_eq!(err(&world, "Position || ?Velocity").offset, 12);
    assert_eq!(err(&world, "Tag, Position || Velocity || !Health").offset, 29);
}

// ---------------------------------------------------------------- access

#[test]
fn access_modifiers_decide_writability() {
    let mut world = new_world();
    let e = world.spawn((Position { x: 1.0 }, Velocity { x: 1.0 }, Health(1), Mass(1))).id();
    let mut q = dsl(&world, "[in] Position, [out] Velocity, [inout] Health, [none] Mass");
    q.iter_mut(&mut world).for_each(|mut row| {
        assert!(row.get_mut::<Position>(0).is_none(), "[in] is read only");
        row.get_mut::<Velocity>(1).expect("[out] writes").x = 5.0;
        row.get_mut::<Health>(2).expect("[inout] writes").0 = 7;
        assert!(row.get::<Mass>(3).is_none(), "[none] gives no data");
        assert!(row.get_mut::<Mass>(3).is_none());
        assert_eq!(row.get::<Position>(0), Some(&Position { x: 1.0 }));
    });
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity { x: 5.0 }));
    assert_eq!(world.get::<Health>(e), Some(&Health(7)));
}

#[test]
fn none_access_still_filters() {
    let mut world = new_world();
    let a = world.spawn((Position::default(), Mass(1))).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, [none] Mass");
    assert_eq!(ents_vec(&mut q, &world), vec![a]);
}

#[test]
fn write_and_read_same_component_is_refused() {
    let world = new_world();
    let e = err(&world, "[out] Position, Velocity, [in] Position");
    assert!(e.offset == 0 || e.offset == 26, "offset points at one of the terms: {e}");
}

#[test]
fn sparse_component_write_term() {
    let mut world = new_world();
    let e = world.spawn((Shield(1), Position::default())).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, [inout] Shield");
    q.iter_mut(&mut world).for_each(|mut row| row.get_mut::<Shield>(1).unwrap().0 = 9);
    assert_eq!(world.get::<Shield>(e), Some(&Shield(9)));
    assert_eq!(q.count(&world), 1);
}

// ---------------------------------------------------------------- traversal

#[test]
fn up_finds_nearest_ancestor() {
    let mut world = new_world();
    let root = world.spawn(Mass(1)).id();
    let mid = world.spawn((Mass(2), ChildOf.pair(root))).id();
    let leaf = world.spawn((Tag, ChildOf.pair(mid))).id();
    for text in ["Tag, Mass(up ChildOf)", "Tag, Mass(up)"] {
        let mut q = dsl(&world, text);
        let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).unwrap().0)).collect();
        assert_eq!(rows, [(leaf, mid, 2)], "{text}");
    }
}

#[test]
fn up_excludes_self_and_self_up_includes_it() {
    let mut world = new_world();
    let root = world.spawn(Mass(1)).id();
    let child = world.spawn((Mass(2), ChildOf.pair(root))).id();
    let bare = world.spawn(ChildOf.pair(root)).id();
    let mut up = dsl(&world, "Mass(up)");
    let rows: BTreeSet<_> = up.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
    assert_eq!(rows, [(child, root), (bare, root)].into());
    for text in ["Mass(self|up)", "Mass(self|up ChildOf)"] {
        let mut q = dsl(&world, text);
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.source(0), r.get::<Mass>(0).unwrap().0)).collect();
        assert_eq!(rows, [(root, root, 1), (child, child, 2), (bare, root, 1)].into(), "{text}");
    }
}

#[test]
fn up_custom_traversable_relationship() {
    let mut world = new_world();
    let far = world.spawn(Mass(5)).id();
    let a = world.spawn(Tag).add_pair::<Near>(far).id();
    let mut q = dsl(&world, "Tag, Mass(up Near)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
    assert_eq!(rows, [(a, far)]);
}

#[test]
fn up_with_not_and_optional() {
    let mut world = new_world();
    let root = world.spawn(Mass(1)).id();
    let a = world.spawn((Tag, ChildOf.pair(root))).id();
    let b = world.spawn(Tag).id();
    let mut q = dsl(&world, "Tag, !Mass(up)");
    assert_eq!(ents_vec(&mut q, &world), vec![b]);
    let mut q = dsl(&world, "Tag, ?Mass(up)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(1))).collect();
    assert_eq!(rows, [(a, true), (b, false)].into());
}

#[test]
fn up_sees_reparenting_and_ancestor_changes() {
    let mut world = new_world();
    let p1 = world.spawn(Mass(1)).id();
    let p2 = world.spawn_empty().id();
    let c = world.spawn((Tag, ChildOf.pair(p1))).id();
    let mut cached = dsl(&world, "Tag, Mass(up)");
    assert_eq!(cached.count(&world), 1);
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    assert_eq!(cached.count(&world), 0);
    world.entity_mut(p2).insert(Mass(2));
    assert_eq!(cached.count(&world), 1);
    world.entity_mut(p2).remove::<Mass>();
    assert_eq!(cached.count(&world), 0);
    let mut uncached = dsl_uncached(&world, "Tag, Mass(up)");
    assert_eq!(uncached.count(&world), 0);
}

#[test]
fn up_on_non_traversable_is_an_error() {
    let world = new_world();
    assert_eq!(err(&world, "Position(up Likes)").offset, 12);
    assert_eq!(err(&world, "Tag, Position(self|up Likes)").offset, 22);
}

// ---------------------------------------------------------------- errors

#[test]
fn error_offsets_per_kind() {
    let world = new_world();
    // unexpected end: the input's length
    for text in ["Position,", "(Likes,", "Position(", "Position || ", "[in] ", "Likes($this,"] {
        assert_eq!(err(&world, text).offset, text.len(), "{text:?}");
    }
    // unknown names
    assert_eq!(err(&world, "Position, Nope").offset, 10);
    assert_eq!(err(&world, "(Likes, Nobody)").offset, 8);
    assert_eq!(err(&world, "Position(Nobody)").offset, 9);
    assert_eq!(err(&world, "(Nope, *)").offset, 1);
    // bad syntax
    assert_eq!(err(&world, "Position Velocity").offset, 9);
    assert_eq!(err(&world, "Position, &Velocity").offset, 10);
    // unbalanced parens
    assert_eq!(err(&world, "Position)").offset, 8);
    assert_eq!(err(&world, "(Likes, *").offset, 9);
    // unbound variables
    assert_eq!(err(&world, "Position, !Velocity($x)").offset, 20);
    // `$this` in an id is the row's entity (entities that like themselves),
    // as in Flecs: no error
    assert!(world.query_dsl("(Likes, $this)").is_ok());
}

#[test]
fn errors_never_panic() {
    let world = new_world();
    for text in [
        "",
        ",",
        "(",
        ")",
        "((",
        "[",
        "]",
        "[in",
        "!",
        "?",
        "||",
        "$",
        "$x",
        "*",
        "_",
        "!!Position",
        "??Position",
        "Position(up)",
        "Position(self|)",
        "Position(|up)",
        "(,)",
        "(Likes)",
        "(Likes, *, *)",
        "Position(,)",
        "Likes(a, b, c)",
        "#",
        "#1",
        "Position || Position",
        "[none]",
        "!$x",
        "Position($x",
        "!*",
        "(*, *)($x)",
    ] {
        // A query or an error inside the input, never a panic.
        if let Err(error) = world.query_dsl(text) {
            assert!(error.offset <= text.len(), "{text:?}: {error}");
            assert!(!error.message.is_empty(), "{text:?}");
        }
    }
}

#[test]
fn error_display_and_message() {
    let world = new_world();
    let e = err(&world, "Position, Nope");
    assert!(e.to_string().contains("10"), "{e}");
    assert!(e.message.contains("Nope"));
}

// ---------------------------------------------------------------- to_dsl

#[test]
fn to_dsl_round_trips() {
    let mut world = new_world();
    world.spawn(Name::new("Bob"));
    world.spawn(Name::new("Game"));
    let texts = [
        "Position",
        "Position, [in] Velocity, !Enemy, ?Health",
        "[out] Position, [inout] Velocity, [none] Health",
        "(Likes, *), (*, Bob), (Likes, _), ($r, Bob)",
        "Likes(Game, Bob), Position(Game)",
        "Position || Velocity, Health",
        "Mass(up ChildOf), Mass(self|up ChildOf), Mass(up), Mass(self|up), Mass(up Near)",
        "Position, (ChildOf, $p), Mass($p)",
        "Tag, $c($this)",
        "Position($x)",
        "(LocatedIn, Bob)",
        "Position(Game) || Velocity(Game)",
    ];
    for text in texts {
        let q = dsl(&world, text);
        let printed = q.to_dsl();
        let back = world.query_dsl(&printed).unwrap_or_else(|e| panic!("{text:?} printed {printed:?}: {e}"));
        assert_eq!(back.terms(), q.terms(), "{text:?} -> {printed:?}");
        assert_eq!(back.to_dsl(), printed, "printing is stable");
    }
}

#[test]
fn builder_query_to_dsl_round_trips() {
    let mut world = new_world();
    let bob = world.spawn_empty().id(); // unnamed target
    let pos = world.component_id::<Position>().unwrap();
    let vel = world.component_id::<Velocity>().unwrap();
    let enemy = world.component_id::<Enemy>().unwrap();
    let likes = world.component_id::<Likes>().unwrap();
    let child_of = world.component_id::<ChildOf>().unwrap();
    let mass = world.component_id::<Mass>().unwrap();
    let q = world
        .query_builder()
        .read(pos)
        .write(vel)
        .without(enemy)
        .pair(likes, bob)
        .read(mass)
        .up(child_of)
        .with(mass)
        .or(pos)
        .build()
        .unwrap();
    let printed = q.to_dsl();
    let back = world.query_dsl(&printed).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
    assert_eq!(back.terms(), q.terms(), "{printed}");
}

// ---------------------------------------------------------------- no $this

#[test]
fn fixed_source_only_query_yields_one_row() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Mass(1), Health(2))).id();
    world.spawn(Mass(3));
    let mut q = dsl(&world, "Mass(Game), Health(Game)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.this(), r.source(0), r.get::<Health>(1).unwrap().0)).collect();
    assert_eq!(rows, [(None, game, 2)]);
    world.entity_mut(game).remove::<Health>();
    assert_eq!(q.count(&world), 0);
}

#[test]
fn variable_source_only_query_one_row_per_solution() {
    let mut world = new_world();
    let a = world.spawn(Mass(1)).id();
    let b = world.spawn((Mass(2), Tag)).id();
    let mut q = dsl(&world, "Mass($x)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.this(), r.var("x").unwrap())).collect();
    assert_eq!(rows, [(None, a), (None, b)].into());
    let mut q = dsl(&world, "Mass($x), Tag($x)");
    let rows: Vec<_> = q.iter(&world).map(|r| r.var("x").unwrap()).collect();
    assert_eq!(rows, [b]);
}

#[test]
fn variable_pair_source_only_query() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let dave = world.spawn_empty().add_pair::<Likes>(alice).id();
    let mut q = dsl(&world, "Likes($x, $y)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap())).collect();
    assert_eq!(rows, [(alice, bob), (alice, carol), (dave, alice)].into());
    // chain: Likes($x, $y), Likes($y, $z)
    let mut q = dsl(&world, "Likes($x, $y), Likes($y, $z)");
    let rows: BTreeSet<_> =
        q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap(), r.var("z").unwrap())).collect();
    assert_eq!(rows, [(dave, alice, bob), (dave, alice, carol)].into());
}

#[test]
fn no_this_query_skips_disabled_and_prefab_sources() {
    // Flecs: variables, like $this, do not match Prefab/Disabled entities unless named
    let mut world = new_world();
    let a = world.spawn(Mass(1)).id();
    world.spawn((Mass(2), Disabled));
    world.spawn((Mass(3), Prefab));
    let mut q = dsl(&world, "Mass($x)");
    let rows: Vec<_> = q.iter(&world).map(|r| r.var("x").unwrap()).collect();
    assert_eq!(rows, [a]);
}

// ---------------------------------------------------------------- transitive

#[test]
fn transitive_dsl_target_and_fixed_source() {
    let mut world = new_world();
    let earth = world.spawn(Name::new("Earth")).id();
    let france = world.spawn(Name::new("France")).add_pair::<LocatedIn>(earth).id();
    let paris = world.spawn(Name::new("Paris")).add_pair::<LocatedIn>(france).id();
    world.spawn(Name::new("Mars"));
    let mut q = dsl(&world, "(LocatedIn, Earth)");
    assert_eq!(ents(&mut q, &world), [france, paris].into());
    let mut q = dsl(&world, "Position, LocatedIn(Paris, Earth)");
    let e = world.spawn(Position::default()).id();
    assert_eq!(ents_vec(&mut q, &world), vec![e], "Paris is (transitively) in Earth");
    let mut q = dsl(&world, "Position, LocatedIn(Paris, Mars)");
    assert_eq!(q.count(&world), 0);
    let mut q = dsl(&world, "LocatedIn(Paris, $place)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| r.var("place").unwrap()).collect();
    assert_eq!(rows, [france, earth].into());
}

#[test]
fn transitive_with_this_and_variable_target_joined() {
    let mut world = new_world();
    let earth = world.spawn((Name::new("Earth"), Tag)).id();
    let france = world.spawn_empty().add_pair::<LocatedIn>(earth).id();
    let paris = world.spawn(Mass(1)).add_pair::<LocatedIn>(france).id();
    let mut q = dsl(&world, "Mass, (LocatedIn, $p), Tag($p)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.var("p"))).collect();
    assert_eq!(rows, [(paris, Some(earth))]);
}

#[test]
fn transitive_cached_sees_chain_changes() {
    let mut world = new_world();
    let earth = world.spawn(Name::new("Earth")).id();
    let france = world.spawn_empty().id();
    let paris = world.spawn(Mass(1)).add_pair::<LocatedIn>(france).id();
    let mut cached = dsl(&world, "Mass, (LocatedIn, Earth)");
    assert_eq!(cached.count(&world), 0);
    world.entity_mut(france).add_pair::<LocatedIn>(earth);
    assert_eq!(ents_vec(&mut cached, &world), vec![paris]);
    let mut uncached = dsl_uncached(&world, "Mass, (LocatedIn, Earth)");
    assert_eq!(ents_vec(&mut uncached, &world), vec![paris]);
}

// ---------------------------------------------------------------- IsA

#[test]
fn is_a_reflexive_for_plain_base() {
    let mut world = new_world();
    let base = world.spawn((Name::new("Base"), Mass(1))).id();
    let inst = world.spawn(IsA.pair(base)).id();
    let inst2 = world.spawn(IsA.pair(inst)).id();
    world.spawn(Mass(4));
    let mut q = dsl(&world, "(IsA, Base)");
    assert_eq!(ents(&mut q, &world), [base, inst, inst2].into(), "reflexive and transitive");
}

#[test]
fn inherited_component_in_runtime_query() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Mass(7))).id();
    let inst = world.instantiate(prefab);
    let owner = world.spawn(Mass(1)).id();
    for mut q in [dsl(&world, "Mass"), dsl_uncached(&world, "Mass")] {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|r| (r.entity(), r.source(0), r.get::<Mass>(0).unwrap().0)).collect();
        assert_eq!(rows, [(inst, prefab, 7), (owner, owner, 1)].into());
    }
    let mut q = dsl(&world, "Tag || Mass");
    assert_eq!(ents(&mut q, &world), [inst, owner].into());
    let mut q = dsl(&world, "!Mass");
    assert!(!ents(&mut q, &world).contains(&inst));
    let mut q = dsl(&world, "?Mass, (IsA, *)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.is_set(0))).collect();
    assert_eq!(rows, [(inst, true)]);
}

#[test]
fn write_term_sees_only_owned_values() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Mass(7))).id();
    let inst = world.instantiate(prefab);
    let owner = world.spawn(Mass(1)).id();
    let mut q = dsl(&world, "[inout] Mass");
    assert_eq!(ents_vec(&mut q, &world), vec![owner]);
    world.entity_mut(inst).insert(Mass(2));
    assert_eq!(ents(&mut q, &world), [inst, owner].into());
}

// ---------------------------------------------------------------- Disabled / Prefab

#[test]
fn disabled_and_prefab_skipped_unless_named() {
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    let d = world.spawn((Position::default(), Disabled)).id();
    let p = world.spawn((Position::default(), Prefab)).id();
    let mut q = dsl(&world, "Position");
    assert_eq!(ents_vec(&mut q, &world), vec![a]);
    let mut q = dsl(&world, "Position, Disabled");
    assert_eq!(ents_vec(&mut q, &world), vec![d]);
    let mut q = dsl(&world, "Position, Prefab");
    assert_eq!(ents_vec(&mut q, &world), vec![p]);
}

#[test]
fn optional_disabled_matches_enabled_and_disabled() {
    // Flecs: a query that mentions Disabled (even optionally) matches disabled entities
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    let d = world.spawn((Position::default(), Disabled)).id();
    let mut q = dsl(&world, "Position, ?Disabled");
    assert_eq!(ents(&mut q, &world), [a, d].into());
}

#[test]
fn optional_prefab_matches_prefabs_and_non_prefabs() {
    // Flecs: `?Prefab` sets EcsQueryMatchPrefab (any term on Prefab does)
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    let p = world.spawn((Position::default(), Prefab)).id();
    let mut q = dsl(&world, "Position, ?Prefab");
    assert_eq!(ents(&mut q, &world), [a, p].into());
}

#[test]
fn builder_disabled_and_prefab() {
    let mut world = new_world();
    let pos = world.component_id::<Position>().unwrap();
    let disabled = world.component_id::<Disabled>().unwrap();
    let a = world.spawn(Position::default()).id();
    let d = world.spawn((Position::default(), Disabled)).id();
    let mut q = world.query_builder().read(pos).build().unwrap();
    assert_eq!(ents_vec(&mut q, &world), vec![a]);
    let mut q = world.query_builder().read(pos).with(disabled).build().unwrap();
    assert_eq!(ents_vec(&mut q, &world), vec![d]);
    let mut q = world.query_builder().read(pos).without(disabled).build().unwrap();
    assert_eq!(ents_vec(&mut q, &world), vec![a]);
}

#[test]
fn disabling_is_seen_by_cached_query() {
    let mut world = new_world();
    let a = world.spawn(Position::default()).id();
    let mut q = dsl(&world, "Position");
    assert_eq!(q.count(&world), 1);
    world.entity_mut(a).insert(Disabled);
    assert_eq!(q.count(&world), 0);
    world.entity_mut(a).remove::<Disabled>();
    assert_eq!(q.count(&world), 1);
}

#[test]
fn disabled_parent_does_not_hide_children_for_up() {
    let mut world = new_world();
    let parent = world.spawn((Mass(1), Disabled)).id();
    let child = world.spawn((Tag, ChildOf.pair(parent))).id();
    let mut q = dsl(&world, "Tag, Mass(up)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
    assert_eq!(rows, [(child, parent)], "up traversal may reach a disabled ancestor (Flecs)");
}

// ---------------------------------------------------------------- toggles

#[test]
fn disabled_toggle_counts_as_absent_in_runtime_queries() {
    let mut world = new_world();
    let on = world.spawn((Position::default(), Thrust(1))).id();
    let off = world.spawn((Position::default(), Thrust(2))).id();
    world.entity_mut(off).disable::<Thrust>();
    for mut q in [dsl(&world, "Position, Thrust"), dsl_uncached(&world, "Position, Thrust")] {
        assert_eq!(ents_vec(&mut q, &world), vec![on]);
    }
    let mut q = dsl(&world, "Position, !Thrust");
    assert_eq!(ents_vec(&mut q, &world), vec![off]);
    let mut q = dsl(&world, "Position, ?Thrust");
    let rows: BTreeSet<_> =
        q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.get::<Thrust>(1).map(|t| t.0))).collect();
    assert_eq!(rows, [(on, true, Some(1)), (off, false, None)].into());
    let mut q = dsl(&world, "Position, [none] Thrust");
    assert_eq!(ents_vec(&mut q, &world), vec![on]);
    let mut q = dsl(&world, "Thrust || Velocity");
    assert_eq!(ents_vec(&mut q, &world), vec![on]);
}

#[test]
fn toggle_changes_seen_by_cached_query() {
    let mut world = new_world();
    let e = world.spawn(Thrust(1)).id();
    let mut q = dsl(&world, "Thrust");
    assert_eq!(q.count(&world), 1);
    world.entity_mut(e).disable::<Thrust>();
    assert_eq!(q.count(&world), 0);
    world.entity_mut(e).enable::<Thrust>();
    assert_eq!(q.count(&world), 1);
}

#[test]
fn disabled_toggle_on_fixed_source_and_up() {
    let mut world = new_world();
    let game = world.spawn((Name::new("Game"), Thrust(1))).id();
    let child = world.spawn((Tag, ChildOf.pair(game))).id();
    world.entity_mut(game).disable::<Thrust>();
    let mut q = dsl(&world, "Tag, Thrust(Game)");
    assert_eq!(q.count(&world), 0, "disabled toggle on a fixed source is absent");
    let mut q = dsl(&world, "Tag, Thrust(up)");
    assert_eq!(q.count(&world), 0, "disabled toggle on an ancestor is absent");
    let mut q = dsl(&world, "Tag, !Thrust(up)");
    assert_eq!(ents_vec(&mut q, &world), vec![child]);
}

// ---------------------------------------------------------------- cached vs uncached

#[test]
fn cached_and_uncached_agree_after_changes() {
    let mut world = new_world();
    world.spawn(Name::new("Bob"));
    let texts = [
        "Position",
        "Position, !Velocity",
        "Position, ?Velocity",
        "Position || Velocity",
        "(Likes, *)",
        "(Likes, Bob)",
        "Mass(up)",
        "Mass(self|up)",
        "Position, Thrust",
        "Position, !Thrust",
        "Mass, (ChildOf, $p), Position($p)",
        "[none] Shield",
    ];
    let mut cached: Vec<DynQuery> = texts.iter().map(|t| dsl(&world, t)).collect();
    let bob = world.lookup("Bob").unwrap();
    let mut entities: Vec<Entity> = Vec::new();
    let mut seed: u64 = 12345;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for step in 0..300 {
        let r = next();
        let pick = if entities.is_empty() { None } else { Some(entities[(r as usize >> 8) % entities.len()]) };
        match r % 12 {
            0 | 1 => entities.push(world.spawn(Position::default()).id()),
            2 => {
                if let Some(e) = pick {
                    world.entity_mut(e).insert(Velocity::default());
                }
            }
            3 => {
                if let Some(e) = pick {
                    world.entity_mut(e).remove::<Velocity>();
                }
            }
            4 => {
                if let Some(e) = pick {
                    world.entity_mut(e).add_pair::<Likes>(bob);
                }
            }
            5 => {
                if let Some(e) = pick {
                    world.entity_mut(e).insert(Mass(1));
                }
            }
            6 => {
                if let (Some(e), Some(p)) = (pick, entities.get((r as usize >> 20) % entities.len().max(1)).copied())
                    && e != p
                    && !world.ancestors(p).any(|a| a == e)
                {
                    world.entity_mut(e).add_pair::<ChildOf>(p);
                }
            }
            7 => {
                if let Some(e) = pick
                    && world.despawn(e)
                {
                    entities.retain(|x| world.is_alive(*x));
                }
            }
            8 => {
                if let Some(e) = pick {
                    world.entity_mut(e).insert(Thrust(1));
                }
            }
            9 => {
                if let Some(e) = pick
                    && (world.has::<Thrust>(e) || world.is_enabled::<Thrust>(e))
                {
                    if world.is_enabled::<Thrust>(e) {
                        world.entity_mut(e).disable::<Thrust>();
                    } else {
                        world.entity_mut(e).enable::<Thrust>();
                    }
                }
            }
            10 => {
                if let Some(e) = pick {
                    world.entity_mut(e).insert(Shield(1));
                }
            }
            _ => {
                if let Some(e) = pick {
                    world.entity_mut(e).remove::<Position>();
                }
            }
        }
        if step % 10 == 0 {
            world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
        }
        for (i, text) in texts.iter().enumerate() {
            let mut fresh = dsl_uncached(&world, text);
            let key = |q: &mut DynQuery| -> Vec<(Option<Entity>, Vec<Id>, Option<Entity>)> {
                let mut v: Vec<_> = q
                    .iter(&world)
                    .map(|r| (r.this(), (0..q_len(text, &world)).map(|t| r.id(t)).collect(), r.var("p")))
                    .collect();
                v.sort();
                v
            };
            let a = key(&mut cached[i]);
            let b = key(&mut fresh);
            assert_eq!(a, b, "step {step}: {text}");
        }
    }
}

fn q_len(text: &str, world: &World) -> usize {
    world.query_dsl_uncached(text).unwrap().terms().len()
}

// ---------------------------------------------------------------- misc

#[test]
fn internal_entities_not_matched_by_wildcard_pairs() {
    let mut world = new_world();
    let e = world.spawn(Tag).id();
    let mut q = dsl(&world, "(ChildOf, *)");
    assert_eq!(q.count(&world), 0, "no user entity has a parent");
    let c = world.spawn(ChildOf.pair(e)).id();
    assert_eq!(ents_vec(&mut q, &world), vec![c]);
}

#[test]
fn query_on_names_via_name_component() {
    let mut world = new_world();
    let a = world.spawn((Name::new("A"), Position::default())).id();
    world.spawn(Position::default());
    let mut q = dsl(&world, "Position, Name");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.get::<Name>(1).map(|n| n.as_str().to_owned()))).collect();
    assert_eq!(rows, [(a, Some("A".to_owned()))]);
}

#[test]
fn whitespace_is_free() {
    let mut world = new_world();
    world.spawn(Name::new("Bob"));
    let a = dsl(&world, "  Position ,\n\t[in]Velocity,!Enemy  ,  ?  Health , ( Likes ,  * ) , Mass ( up  ChildOf )  ");
    let b = dsl(&world, "Position, [in] Velocity, !Enemy, ?Health, (Likes, *), Mass(up ChildOf)");
    assert_eq!(a.terms(), b.terms());
    let a = dsl(&world, "Likes ( $this , Bob ) || Hates($this,Bob)");
    let b = dsl(&world, "(Likes, Bob) || (Hates, Bob)");
    assert_eq!(a.terms(), b.terms());
}

#[test]
fn up_is_a_reads_from_prefab() {
    let mut world = new_world();
    let prefab = world.spawn((Prefab, Mass(4))).id();
    let inst = world.spawn((Tag, IsA.pair(prefab))).id();
    let mut q = dsl(&world, "Tag, Mass(up IsA)");
    let rows: Vec<_> = q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Mass>(1).map(|m| m.0))).collect();
    assert_eq!(rows, [(inst, prefab, Some(4))]);
}

#[test]
fn variable_source_with_wildcard_target() {
    let mut world = new_world();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn_empty().add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let mut q = dsl(&world, "Likes($x, *)");
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.pair_target(0))).collect();
    assert_eq!(rows, [(alice, bob), (alice, carol)].into());
}

#[test]
fn write_on_fixed_source_is_an_error_not_a_panic() {
    let mut world = new_world();
    world.spawn(Name::new("Game"));
    let e = err(&world, "Position, [out] Mass(Game)");
    assert!(e.offset >= 10 && e.offset < 26, "{e}");
    let e = err(&world, "Position, [inout] Mass(up)");
    assert!(e.offset >= 10, "{e}");
}

#[test]
fn is_a_pair_to_dsl_round_trip() {
    let mut world = new_world();
    world.spawn((Prefab, Name::new("Base")));
    let q = dsl(&world, "(IsA, Base), Prefab, !Disabled, (ChildOf, *)");
    let back = dsl(&world, &q.to_dsl());
    assert_eq!(back.terms(), q.terms());
}
