//! Tests ported from Flecs' test suites (commit a90efc49) on toggleable
//! components, exclusive non-fragmenting relationships and disabled entities:
//! test/query/src/Toggle.c, test/query/src/DontFragment.c (the `Exclusive`
//! relationship tests), test/cpp/src/Union.cpp, the `Disabled` tests of
//! test/query/src/{Basic,Operators,Transitive,Traversal}.c and a few of
//! test/core/src/{Observer,Trigger,Prefab,OnDelete,World}.c.
//!
//! Flecs' `CanToggle` is `#[component(toggle)]` (`ecs_enable_component` is
//! `disable::<T>()`/`enable::<T>()`), a `DontFragment, Exclusive` relationship
//! is `#[relationship(union)]`, and `EcsDisabled` is the built-in `Disabled`.
//! Queries are written in the DSL (`world.query_dsl(..)`) and every one runs
//! both cached and uncached. Flecs' iteration order (per table, newest table
//! first for some operations) is not part of our contract, so rows are compared
//! as sorted lists. Flecs keys its `mod` patterns by entity id; these ports key
//! them by the spawn index (the same patterns, shifted).

use ecs::entity::Id;
use ecs::query::DynQuery;

use ecs::prelude::*;

// ----- components and relationships ---------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[component(toggle)]
struct Velocity {
    x: i32,
    y: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[component(toggle)]
struct Mass(i32);

/// Toggleable tags.
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Foo;
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Bar;
#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Walks;

/// Plain tags.
#[derive(Component, Clone, Copy, Debug)]
struct Tag;
#[derive(Component, Clone, Copy, Debug)]
struct TagA;
#[derive(Component, Clone, Copy, Debug)]
struct TagB;

/// Flecs' `ECS_ENTITY(world, Movement, DontFragment, Exclusive)`.
#[derive(Relationship, Debug)]
#[relationship(union)]
struct Movement;

/// Flecs' `Rel` with `DontFragment` and `Exclusive`.
#[derive(Relationship, Debug)]
#[relationship(union)]
struct Rel;

#[derive(Resource, Default)]
struct Invoked(Vec<Entity>);

// ----- helpers ---------------------------------------------------------------------------

fn new_world() -> World {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Mass>();
    world.register_component::<Foo>();
    world.register_component::<Bar>();
    world.register_component::<Walks>();
    world.register_component::<Tag>();
    world.register_component::<TagA>();
    world.register_component::<TagB>();
    world.register_component::<Movement>();
    world.register_component::<Rel>();
    world
}

fn named(world: &mut World, name: &'static str) -> Entity {
    world.spawn(Name::new(name)).id()
}

fn cid<T: Component>(world: &World) -> Entity {
    world.component_id::<T>().expect("registered")
}

/// An entity as the DSL writes one without a name.
fn r(entity: Entity) -> String {
    format!("#{}", entity.to_bits())
}

/// The cached and the uncached build of one DSL text.
fn both(world: &World, text: &str) -> [DynQuery; 2] {
    let cached = world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let uncached = world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    [cached, uncached]
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// The row entities of `text` (cached and uncached must agree), sorted.
fn this_rows(world: &World, text: &str) -> Vec<Entity> {
    let [mut cached, mut uncached] = both(world, text);
    let a = sorted(cached.iter(world).map(|row| row.entity()));
    let b = sorted(uncached.iter(world).map(|row| row.entity()));
    assert_eq!(a, b, "{text:?}: cached and uncached differ");
    a
}

/// The number of solutions of `text` (cached and uncached must agree).
fn count(world: &World, text: &str) -> usize {
    let [mut cached, mut uncached] = both(world, text);
    let a = cached.iter(world).count();
    let b = uncached.iter(world).count();
    assert_eq!(a, b, "{text:?}: cached and uncached differ");
    a
}

/// Per row: the entity and `is_set` of every term, sorted.
fn rows_set(world: &World, text: &str, terms: usize) -> Vec<(Entity, Vec<bool>)> {
    let [mut cached, mut uncached] = both(world, text);
    let mut out = Vec::new();
    for q in [&mut cached, &mut uncached] {
        out.push(sorted(q.iter(world).map(|row| (row.entity(), (0..terms).map(|t| row.is_set(t)).collect()))));
    }
    assert_eq!(out[0], out[1], "{text:?}: cached and uncached differ");
    out.swap_remove(0)
}

/// Per solution: the source and id of term `term` and the value of `$x`, sorted.
fn solutions(world: &World, text: &str, term: usize) -> Vec<(Entity, Id, Option<Entity>)> {
    let [mut cached, mut uncached] = both(world, text);
    let a = sorted(cached.iter(world).map(|row| (row.source(term), row.id(term), row.var("x"))));
    let b = sorted(uncached.iter(world).map(|row| (row.source(term), row.id(term), row.var("x"))));
    assert_eq!(a, b, "{text:?}: cached and uncached differ");
    a
}

fn pos(i: i32) -> Position {
    Position { x: i, y: i }
}

// ================================================================== Toggle.c: fixed sources

/// Flecs Toggle_fixed_src_1_tag_toggle: `Foo(e)` matches only while e's Foo is enabled.
#[test]
fn toggle_fixed_src_1_tag_toggle() {
    let mut world = new_world();
    let e = named(&mut world, "e");
    let foo = cid::<Foo>(&world);
    assert_eq!(count(&world, "Foo(e)"), 0);
    world.entity_mut(e).insert(Foo);
    for q in &mut both(&world, "Foo(e)") {
        let rows: Vec<(Entity, Id, bool)> =
            q.iter(&world).map(|row| (row.source(0), row.id(0), row.is_set(0))).collect();
        assert_eq!(rows, vec![(e, foo.id(), true)]);
    }
    world.entity_mut(e).disable::<Foo>();
    assert_eq!(count(&world, "Foo(e)"), 0);
    world.entity_mut(e).enable::<Foo>();
    assert_eq!(count(&world, "Foo(e)"), 1);
}

/// Flecs Toggle_fixed_src_1_component_toggle: `Position(e)` yields e's value only while enabled.
#[test]
fn toggle_fixed_src_1_component_toggle() {
    let mut world = new_world();
    let e = named(&mut world, "e");
    assert_eq!(count(&world, "Position(e)"), 0);
    world.entity_mut(e).insert(Position { x: 10, y: 20 });
    for q in &mut both(&world, "Position(e)") {
        let rows: Vec<(Entity, Position)> =
            q.iter(&world).map(|row| (row.source(0), *row.get::<Position>(0).unwrap())).collect();
        assert_eq!(rows, vec![(e, Position { x: 10, y: 20 })]);
    }
    world.entity_mut(e).disable::<Position>();
    assert_eq!(count(&world, "Position(e)"), 0);
    world.entity_mut(e).enable::<Position>();
    for q in &mut both(&world, "Position(e)") {
        let rows: Vec<Position> = q.iter(&world).map(|row| *row.get::<Position>(0).unwrap()).collect();
        assert_eq!(rows, vec![Position { x: 10, y: 20 }]);
    }
}

/// Flecs Toggle_fixed_src_2_tag_toggle: `Foo(e), Bar(e)` needs both enabled.
#[test]
fn toggle_fixed_src_2_tag_toggle() {
    let mut world = new_world();
    let e = named(&mut world, "e");
    let text = "Foo(e), Bar(e)";
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).insert((Foo, Bar));
    assert_eq!(solutions(&world, text, 1), vec![(e, cid::<Bar>(&world).id(), None)]);
    world.entity_mut(e).disable::<Foo>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).enable::<Foo>();
    assert_eq!(count(&world, text), 1);
    world.entity_mut(e).disable::<Bar>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).enable::<Bar>();
    assert_eq!(count(&world, text), 1);
    world.entity_mut(e).disable::<Foo>();
    assert_eq!(count(&world, text), 0);
}

/// Flecs Toggle_fixed_src_2_component_toggle: `Position(e), Velocity(e)` yields both values while both are enabled.
#[test]
fn toggle_fixed_src_2_component_toggle() {
    let mut world = new_world();
    let e = named(&mut world, "e");
    let text = "Position(e), Velocity(e)";
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).insert((Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 }));
    let check = |world: &World| {
        for q in &mut both(world, text) {
            let rows: Vec<(Position, Velocity)> =
                q.iter(world).map(|row| (*row.get::<Position>(0).unwrap(), *row.get::<Velocity>(1).unwrap())).collect();
            assert_eq!(rows, vec![(Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 })]);
        }
    };
    check(&world);
    world.entity_mut(e).disable::<Position>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).enable::<Position>();
    check(&world);
    world.entity_mut(e).disable::<Velocity>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e).enable::<Velocity>();
    check(&world);
    world.entity_mut(e).disable::<Position>();
    assert_eq!(count(&world, text), 0);
}

/// Flecs Toggle_fixed_2_src_w_toggle: `Foo(e1), Bar(e2)`, each source's toggle counts.
#[test]
fn toggle_fixed_2_src_w_toggle() {
    let mut world = new_world();
    let e1 = named(&mut world, "e1");
    let e2 = named(&mut world, "e2");
    let text = "Foo(e1), Bar(e2)";
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    for q in &mut both(&world, text) {
        let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.source(0), row.source(1))).collect();
        assert_eq!(rows, vec![(e1, e2)]);
    }
    world.entity_mut(e1).disable::<Foo>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e1).enable::<Foo>();
    assert_eq!(count(&world, text), 1);
    world.entity_mut(e2).disable::<Bar>();
    assert_eq!(count(&world, text), 0);
    world.entity_mut(e2).enable::<Bar>();
    assert_eq!(count(&world, text), 1);
    world.entity_mut(e1).disable::<Foo>();
    assert_eq!(count(&world, text), 0);
}

/// Flecs Toggle_this_w_fixed_src_w_toggle: `Foo($this), Bar(e2)`.
#[test]
fn toggle_this_w_fixed_src_w_toggle() {
    let mut world = new_world();
    let e1 = named(&mut world, "e1");
    let e2 = named(&mut world, "e2");
    let text = "Foo($this), Bar(e2)";
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    for q in &mut both(&world, text) {
        let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.entity(), row.source(1))).collect();
        assert_eq!(rows, vec![(e1, e2)]);
    }
    world.entity_mut(e1).disable::<Foo>();
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e1).enable::<Foo>();
    assert_eq!(this_rows(&world, text), vec![e1]);
    world.entity_mut(e2).disable::<Bar>();
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e2).enable::<Bar>();
    assert_eq!(this_rows(&world, text), vec![e1]);
    world.entity_mut(e1).disable::<Foo>();
    assert!(this_rows(&world, text).is_empty());
}

/// Flecs Toggle_fixed_src_w_this_w_toggle: `Foo(e1), Bar($this)`.
#[test]
fn toggle_fixed_src_w_this_w_toggle() {
    let mut world = new_world();
    let e1 = named(&mut world, "e1");
    let e2 = named(&mut world, "e2");
    let text = "Foo(e1), Bar($this)";
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e1).insert(Foo);
    world.entity_mut(e2).insert(Bar);
    for q in &mut both(&world, text) {
        let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.entity(), row.source(0))).collect();
        assert_eq!(rows, vec![(e2, e1)]);
    }
    world.entity_mut(e1).disable::<Foo>();
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e1).enable::<Foo>();
    assert_eq!(this_rows(&world, text), vec![e2]);
    world.entity_mut(e2).disable::<Bar>();
    assert!(this_rows(&world, text).is_empty());
    world.entity_mut(e2).enable::<Bar>();
    assert_eq!(this_rows(&world, text), vec![e2]);
}

// ================================================================== Toggle.c: $this

/// Flecs Toggle_this: a disabled Position is skipped, typed and runtime.
#[test]
fn toggle_this() {
    let mut world = new_world();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn(Position::default()).id();
    let e3 = world.spawn(Position::default()).id();
    world.entity_mut(e1).enable::<Position>();
    world.entity_mut(e2).disable::<Position>();
    assert_eq!(this_rows(&world, "Position"), vec![e1, e3]);
    let typed = sorted(world.query::<(Entity, &Position)>().iter(&world).map(|(e, _)| e));
    assert_eq!(typed, vec![e1, e3]);
    for e in typed {
        assert!(world.is_enabled::<Position>(e));
    }
}

/// Flecs Toggle_this_skip_initial: the first row of the table is the disabled one.
#[test]
fn toggle_this_skip_initial() {
    let mut world = new_world();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn(Position::default()).id();
    let e3 = world.spawn(Position::default()).id();
    world.entity_mut(e1).disable::<Position>();
    world.entity_mut(e2).enable::<Position>();
    assert_eq!(this_rows(&world, "Position"), vec![e2, e3]);
    assert_eq!(sorted(world.query::<(Entity, &Position)>().iter(&world).map(|(e, _)| e)), vec![e2, e3]);
}

/// Flecs Toggle_this_tag: a toggleable tag.
#[test]
fn toggle_this_tag() {
    let mut world = new_world();
    let e1 = world.spawn(Foo).id();
    let e2 = world.spawn(Foo).id();
    let e3 = world.spawn(Foo).id();
    world.entity_mut(e1).enable::<Foo>();
    world.entity_mut(e2).disable::<Foo>();
    assert_eq!(this_rows(&world, "Foo"), vec![e1, e3]);
    assert_eq!(sorted(world.query_filtered::<Entity, With<Foo>>().iter(&world)), vec![e1, e3]);
    assert!(world.is_enabled::<Foo>(e1) && !world.is_enabled::<Foo>(e2) && world.is_enabled::<Foo>(e3));
}

/// Flecs Toggle_this_toggle_after_or_chain: `TagA || TagB, Walking` with a toggled Walking.
#[test]
fn toggle_this_toggle_after_or_chain() {
    let mut world = new_world();
    let e = world.spawn((TagA, Walks)).id();
    world.entity_mut(e).enable::<Walks>();
    let text = "TagA || TagB, Walks";
    for q in &mut both(&world, text) {
        let rows: Vec<(Entity, Id, Id)> = q.iter(&world).map(|row| (row.entity(), row.id(0), row.id(1))).collect();
        assert_eq!(rows, vec![(e, cid::<TagA>(&world).id(), cid::<Walks>(&world).id())]);
    }
    world.entity_mut(e).disable::<Walks>();
    assert!(this_rows(&world, text).is_empty());
}

// ================================================================== Toggle.c: shared (up) sources

/// parent p and child e (ChildOf p).
fn parent_and_child(world: &mut World) -> (Entity, Entity) {
    let p = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(p)).id();
    (p, e)
}

/// Per row: (entity, source of term 0, Position read by term 0).
fn shared_rows(world: &World, text: &str) -> Vec<(Entity, Entity, Position)> {
    let [mut cached, mut uncached] = both(world, text);
    let a = sorted(cached.iter(world).map(|row| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap())));
    let b = sorted(uncached.iter(world).map(|row| (row.entity(), row.source(0), *row.get::<Position>(0).unwrap())));
    assert_eq!(a, b, "{text:?}: cached and uncached differ");
    a
}

/// Flecs Toggle_this_toggle_shared_self_up: disabling the parent's Position hides it from
/// the parent (self) and from the child (up).
#[test]
fn toggle_this_toggle_shared_self_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    let text = "Position(self|up ChildOf)";
    assert!(shared_rows(&world, text).is_empty());
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    let expected = sorted(vec![(p, p, Position { x: 10, y: 20 }), (e, p, Position { x: 10, y: 20 })]);
    assert_eq!(shared_rows(&world, text), expected);
    world.entity_mut(p).disable::<Position>();
    assert!(shared_rows(&world, text).is_empty());
    world.entity_mut(p).enable::<Position>();
    assert_eq!(shared_rows(&world, text), expected);
}

/// Flecs Toggle_this_toggle_shared_up: `Position(up ChildOf)` with a toggled parent value.
#[test]
fn toggle_this_toggle_shared_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    let text = "Position(up ChildOf)";
    assert!(shared_rows(&world, text).is_empty());
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    assert_eq!(shared_rows(&world, text), vec![(e, p, Position { x: 10, y: 20 })]);
    world.entity_mut(p).disable::<Position>();
    assert!(shared_rows(&world, text).is_empty());
    world.entity_mut(p).enable::<Position>();
    assert_eq!(shared_rows(&world, text), vec![(e, p, Position { x: 10, y: 20 })]);
}

/// Rows of a query whose term `vel` is Velocity: (entity, source of Position, Velocity).
fn shared_w_self_rows(world: &World, text: &str, pos_term: usize, vel_term: usize) -> Vec<(Entity, Entity, Velocity)> {
    let [mut cached, mut uncached] = both(world, text);
    let mut out = Vec::new();
    for q in [&mut cached, &mut uncached] {
        out.push(sorted(q.iter(world).map(|row| {
            assert_eq!(row.get::<Position>(pos_term), Some(&Position { x: 10, y: 20 }));
            (row.entity(), row.source(pos_term), *row.get::<Velocity>(vel_term).unwrap())
        })));
    }
    assert_eq!(out[0], out[1], "{text:?}: cached and uncached differ");
    out.swap_remove(0)
}

/// The shared-with-self scenario of Toggle.c, for one query text. `toggle_velocity`
/// enables both Velocity values explicitly first (the `_toggle` variants).
fn shared_w_self(text: &str, pos_term: usize, vel_term: usize, self_up: bool, toggle_velocity: bool) {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    assert!(shared_w_self_rows(&world, text, pos_term, vel_term).is_empty());
    world.entity_mut(p).insert((Position { x: 10, y: 20 }, Velocity { x: 1, y: 2 }));
    world.entity_mut(e).insert(Velocity { x: 2, y: 4 });
    if toggle_velocity {
        world.entity_mut(p).enable::<Velocity>();
        world.entity_mut(e).enable::<Velocity>();
    }
    let mut expected = vec![(e, p, Velocity { x: 2, y: 4 })];
    if self_up {
        expected.push((p, p, Velocity { x: 1, y: 2 }));
    }
    let expected = sorted(expected);
    assert_eq!(shared_w_self_rows(&world, text, pos_term, vel_term), expected);
    world.entity_mut(p).disable::<Position>();
    assert!(shared_w_self_rows(&world, text, pos_term, vel_term).is_empty());
    world.entity_mut(p).enable::<Position>();
    assert_eq!(shared_w_self_rows(&world, text, pos_term, vel_term), expected);
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self: `Position(self|up ChildOf), Velocity`.
#[test]
fn toggle_this_toggle_shared_self_up_w_self() {
    shared_w_self("Position(self|up ChildOf), Velocity", 0, 1, true, false);
}

/// Flecs Toggle_this_toggle_shared_up_w_self: `Position(up ChildOf), Velocity`.
#[test]
fn toggle_this_toggle_shared_up_w_self() {
    shared_w_self("Position(up ChildOf), Velocity", 0, 1, false, false);
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self_reverse: `Velocity, Position(self|up ChildOf)`.
#[test]
fn toggle_this_toggle_shared_self_up_w_self_reverse() {
    shared_w_self("Velocity, Position(self|up ChildOf)", 1, 0, true, false);
}

/// Flecs Toggle_this_toggle_shared_up_w_self_reverse: `Velocity, Position(up ChildOf)`.
#[test]
fn toggle_this_toggle_shared_up_w_self_reverse() {
    shared_w_self("Velocity, Position(up ChildOf)", 1, 0, false, false);
}

/// Flecs Toggle_this_toggle_shared_self_up_w_self_toggle: as `_w_self`, Velocity toggled too.
#[test]
fn toggle_this_toggle_shared_self_up_w_self_toggle() {
    shared_w_self("Position(self|up ChildOf), Velocity", 0, 1, true, true);
}

/// Flecs Toggle_this_toggle_shared_up_w_self_toggle_reverse: `Velocity, Position(up ChildOf)`, Velocity toggled.
#[test]
fn toggle_this_toggle_shared_up_w_self_toggle_reverse() {
    shared_w_self("Velocity, Position(up ChildOf)", 1, 0, false, true);
}

/// Flecs Toggle_this_toggle_not_shared_self_up: `Foo, !Position(self|up ChildOf)`.
#[test]
fn toggle_this_toggle_not_shared_self_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    world.entity_mut(p).insert(Foo);
    world.entity_mut(e).insert(Foo);
    let text = "Foo, !Position(self|up ChildOf)";
    let both_rows = sorted(vec![(p, vec![true, false]), (e, vec![true, false])]);
    assert_eq!(rows_set(&world, text, 2), both_rows);
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    assert!(rows_set(&world, text, 2).is_empty());
    world.entity_mut(p).disable::<Position>();
    assert_eq!(rows_set(&world, text, 2), both_rows);
    world.entity_mut(p).enable::<Position>();
    assert!(rows_set(&world, text, 2).is_empty());
}

/// Flecs Toggle_this_toggle_not_shared_up: `Foo, !Position(up ChildOf)`.
#[test]
fn toggle_this_toggle_not_shared_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    world.entity_mut(p).insert(Foo);
    world.entity_mut(e).insert(Foo);
    let text = "Foo, !Position(up ChildOf)";
    let both_rows = sorted(vec![(p, vec![true, false]), (e, vec![true, false])]);
    assert_eq!(rows_set(&world, text, 2), both_rows);
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    assert_eq!(rows_set(&world, text, 2), vec![(p, vec![true, false])]);
    world.entity_mut(p).disable::<Position>();
    assert_eq!(rows_set(&world, text, 2), both_rows);
    world.entity_mut(p).enable::<Position>();
    assert_eq!(rows_set(&world, text, 2), vec![(p, vec![true, false])]);
}

/// Flecs Toggle_this_toggle_optional_shared_self_up: `Foo, ?Position(self|up ChildOf)`.
#[test]
fn toggle_this_toggle_optional_shared_self_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    world.entity_mut(p).insert(Foo);
    world.entity_mut(e).insert(Foo);
    let text = "Foo, ?Position(self|up ChildOf)";
    let unset = sorted(vec![(p, vec![true, false]), (e, vec![true, false])]);
    let set_ = sorted(vec![(p, vec![true, true]), (e, vec![true, true])]);
    assert_eq!(rows_set(&world, text, 2), unset);
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    assert_eq!(rows_set(&world, text, 2), set_);
    for q in &mut both(&world, text) {
        let sources = sorted(q.iter(&world).map(|row| (row.entity(), row.source(1))));
        assert_eq!(sources, sorted(vec![(p, p), (e, p)]));
    }
    world.entity_mut(p).disable::<Position>();
    assert_eq!(rows_set(&world, text, 2), unset);
    world.entity_mut(p).enable::<Position>();
    assert_eq!(rows_set(&world, text, 2), set_);
}

/// Flecs Toggle_this_toggle_optional_shared_up: `Foo, ?Position(up ChildOf)`.
#[test]
fn toggle_this_toggle_optional_shared_up() {
    let mut world = new_world();
    let (p, e) = parent_and_child(&mut world);
    world.entity_mut(p).insert(Foo);
    world.entity_mut(e).insert(Foo);
    let text = "Foo, ?Position(up ChildOf)";
    let unset = sorted(vec![(p, vec![true, false]), (e, vec![true, false])]);
    let e_set = sorted(vec![(p, vec![true, false]), (e, vec![true, true])]);
    assert_eq!(rows_set(&world, text, 2), unset);
    world.entity_mut(p).insert(Position { x: 10, y: 20 });
    assert_eq!(rows_set(&world, text, 2), e_set);
    world.entity_mut(p).disable::<Position>();
    assert_eq!(rows_set(&world, text, 2), unset);
    world.entity_mut(p).enable::<Position>();
    assert_eq!(rows_set(&world, text, 2), e_set);
}

// ================================================================== Toggle.c: bit patterns

/// Flecs `test_disable_toggle_mod` / `test_enable_toggle_mod`: `total` toggled entities
/// (disabled where `i % modulo == 0`, or enabled only there when `enable_mod`), then
/// `total` untouched ones; `Position` yields exactly the enabled ones with their values.
fn toggle_mod(total: i32, modulo: i32, enable_mod: bool) {
    let mut world = new_world();
    let mut expected = Vec::new();
    for i in 0..total {
        let e = world.spawn(pos(i)).id();
        let on = (i % modulo == 0) == enable_mod;
        if on {
            world.entity_mut(e).enable::<Position>();
            expected.push(e);
        } else {
            world.entity_mut(e).disable::<Position>();
        }
    }
    for i in 0..total {
        expected.push(world.spawn(pos(total + i)).id());
    }
    let expected = sorted(expected);
    for q in &mut both(&world, "Position") {
        let mut seen = Vec::new();
        for row in q.iter(&world) {
            let e = row.entity();
            assert!(world.is_enabled::<Position>(e));
            assert_eq!(row.get::<Position>(0), world.get::<Position>(e));
            seen.push(e);
        }
        assert_eq!(sorted(seen), expected, "total {total} mod {modulo}");
    }
    let mut typed = world.query::<(Entity, &Position)>();
    assert_eq!(sorted(typed.iter(&world).map(|(e, _)| e)), expected, "total {total} mod {modulo}");
}

const TOTALS: [i32; 5] = [64, 100, 128, 200, 1024];
const MODS: [i32; 9] = [1, 2, 3, 7, 8, 10, 64, 256, 1024];

/// Flecs Toggle_this_{64,100,128,200,1024}_mod_{1,2,3,7,8,10,64,256,1024} (45 tests, one loop).
#[test]
fn toggle_this_n_mod_m() {
    for total in TOTALS {
        for modulo in MODS {
            toggle_mod(total, modulo, false);
        }
    }
}

/// Flecs Toggle_this_enabled_{64,100,128,200,1024}_mod_{1,..,1024} (45 tests, one loop).
#[test]
fn toggle_this_enabled_n_mod_m() {
    for total in TOTALS {
        for modulo in MODS {
            toggle_mod(total, modulo, true);
        }
    }
}

/// Flecs Toggle_this_mod_{2,8,64,256,1024}_2_bitsets: two toggled components with
/// different patterns; `Position, Velocity` yields rows where both are enabled.
#[test]
fn toggle_this_mod_2_bitsets() {
    for (a, b) in [(2, 3), (8, 4), (64, 16), (256, 64), (1024, 128)] {
        let mut world = new_world();
        let mut expected = Vec::new();
        for i in 0..16384 {
            let e = world.spawn((Position::default(), Velocity::default())).id();
            if i % a != 0 {
                world.entity_mut(e).disable::<Position>();
            }
            if i % b != 0 {
                world.entity_mut(e).disable::<Velocity>();
            }
            if i % a == 0 && i % b == 0 {
                expected.push(e);
            }
        }
        assert!(!expected.is_empty());
        assert_eq!(this_rows(&world, "Position, Velocity"), sorted(expected.clone()), "mod {a} {b}");
        let typed = world.query::<(Entity, &Position, &Velocity)>().iter(&world).map(|(e, ..)| e).collect::<Vec<_>>();
        assert_eq!(sorted(typed), sorted(expected), "mod {a} {b}");
    }
}

/// A small deterministic generator for the randomized tests (Flecs uses `rand()`).
struct Lcg(u64);
impl Lcg {
    fn bit(&mut self) -> bool {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) & 1 == 1
    }
}

/// Flecs Toggle_this_randomized_{2,3,4}_bitsets: random enable bits on 2..4 toggled
/// components, plus entities that lack one (no match) or were never toggled (match).
#[test]
fn toggle_this_randomized_bitsets() {
    let mut rng = Lcg(0x5eed);
    for n in 2..=4 {
        let mut world = new_world();
        let mut expected = 0;
        for _ in 0..8192 {
            let e = world.spawn((Position::default(), Velocity::default(), Mass(0), Foo)).id();
            let bits: Vec<bool> = (0..4).map(|_| rng.bit()).collect();
            let mut entity = world.entity_mut(e);
            entity.disable::<Position>();
            if bits[0] {
                entity.enable::<Position>();
            }
            if !bits[1] {
                entity.disable::<Velocity>();
            }
            if n >= 3 && !bits[2] {
                entity.disable::<Mass>();
            }
            if n >= 4 && !bits[3] {
                entity.disable::<Foo>();
            }
            if bits[..n].iter().all(|&b| b) {
                expected += 1;
            }
        }
        for _ in 0..2048 {
            world.spawn(Position::default());
            world.spawn(Velocity::default());
            world.spawn((Position::default(), Velocity::default(), Mass(0), Foo));
            expected += 1;
        }
        let text = ["Position, Velocity", "Position, Velocity, Mass", "Position, Velocity, Mass, Foo"][n - 2];
        assert_eq!(count(&world, text), expected, "{text}");
        for q in &mut both(&world, text) {
            for row in q.iter(&world) {
                assert!(world.is_enabled::<Position>(row.entity()) && world.is_enabled::<Velocity>(row.entity()));
            }
        }
    }
}

/// Flecs Toggle_this_w_other_tag: `Position, Tag` over rows with a disabled Position.
#[test]
fn toggle_this_w_other_tag() {
    let mut world = new_world();
    let mut expected = Vec::new();
    for i in 0..1024 {
        let e = world.spawn(pos(i)).id();
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).insert(Tag);
            if i % 3 != 0 {
                expected.push(e);
            }
        }
    }
    assert!(!expected.is_empty());
    assert_eq!(this_rows(&world, "Position, Tag"), sorted(expected));
}

/// Flecs Toggle_this_w_other_component: `Position, Velocity`, values checked per row.
#[test]
fn toggle_this_w_other_component() {
    let mut world = new_world();
    let mut expected = Vec::new();
    for i in 0..1024 {
        let e = world.spawn(pos(i)).id();
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).insert(Velocity { x: i * 2, y: i * 2 });
            if i % 3 != 0 {
                expected.push(e);
            }
        }
    }
    for q in &mut both(&world, "Position, Velocity") {
        let mut seen = Vec::new();
        for row in q.iter(&world) {
            let p = *row.get::<Position>(0).unwrap();
            assert_eq!(row.get::<Velocity>(1), Some(&Velocity { x: p.x * 2, y: p.y * 2 }));
            assert!(p.x % 3 != 0 && p.x % 5 == 0);
            seen.push(row.entity());
        }
        assert_eq!(sorted(seen), sorted(expected.clone()));
    }
}

/// Flecs Toggle_this_not: `!Position` matches the rows whose Position is disabled.
#[test]
fn toggle_this_not() {
    let mut world = new_world();
    let mut disabled = Vec::new();
    for i in 0..1024 {
        let e = world.spawn(pos(i)).id();
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Position>();
            disabled.push(e);
        } else {
            world.entity_mut(e).enable::<Position>();
        }
    }
    for q in &mut both(&world, "!Position") {
        let mut with_pos = Vec::new();
        for row in q.iter(&world) {
            assert!(!row.is_set(0));
            assert!(!world.is_enabled::<Position>(row.entity()));
            if world.has::<Position>(row.entity()) {
                with_pos.push(row.entity());
            }
        }
        assert_eq!(sorted(with_pos), disabled);
    }
}

/// Flecs `this_written_not`: `Tag, !Position` over toggled, absent and untoggled Position.
fn written_not(total: i32, modulo: i32) {
    let mut world = new_world();
    let mut expected = Vec::new();
    for i in 0..total {
        let e = world.spawn((pos(i), Tag)).id();
        if i % modulo == 0 {
            world.entity_mut(e).disable::<Position>();
            expected.push(e);
        }
    }
    for _ in 0..total {
        expected.push(world.spawn(Tag).id());
    }
    for i in 0..total {
        world.spawn((pos(i), Tag));
    }
    let expected: Vec<(Entity, Vec<bool>)> = sorted(expected.into_iter().map(|e| (e, vec![true, false])));
    assert_eq!(rows_set(&world, "Tag, !Position", 2), expected, "mod {modulo}");
}

/// Flecs Toggle_this_written_not_1024_mod_{2,3,7,8,10,64,256,1024}.
#[test]
fn toggle_this_written_not_1024_mod_m() {
    for modulo in [2, 3, 7, 8, 10, 64, 256, 1024] {
        written_not(1024, modulo);
    }
}

/// Flecs Toggle_this_optional (`this_optional(1024, 2)`): `?Position` is set only where enabled.
#[test]
fn toggle_this_optional() {
    let mut world = new_world();
    let mut with_pos = Vec::new();
    for i in 0..1024 {
        let e = world.spawn(pos(i)).id();
        if i % 2 == 0 {
            with_pos.push(e);
        } else {
            world.entity_mut(e).disable::<Position>();
        }
    }
    for i in 0..1024 {
        with_pos.push(world.spawn(pos(i)).id());
    }
    for q in &mut both(&world, "?Position") {
        let mut seen = Vec::new();
        for row in q.iter(&world) {
            let e = row.entity();
            assert_eq!(row.is_set(0), world.is_enabled::<Position>(e));
            if row.is_set(0) {
                assert_eq!(row.get::<Position>(0), world.get::<Position>(e));
                seen.push(e);
            } else {
                assert_eq!(row.get::<Position>(0), None);
            }
        }
        assert_eq!(sorted(seen), sorted(with_pos.clone()));
    }
}

/// Flecs `this_written_optional`: `Tag, ?Position`.
fn written_optional(total: i32, modulo: i32) {
    let mut world = new_world();
    let mut expected = Vec::new();
    for i in 0..total {
        let e = world.spawn((pos(i), Tag)).id();
        if i % modulo == 0 {
            expected.push((e, vec![true, true]));
        } else {
            world.entity_mut(e).disable::<Position>();
            expected.push((e, vec![true, false]));
        }
    }
    for _ in 0..total {
        expected.push((world.spawn(Tag).id(), vec![true, false]));
    }
    for i in 0..total {
        expected.push((world.spawn((pos(i), Tag)).id(), vec![true, true]));
    }
    assert_eq!(rows_set(&world, "Tag, ?Position", 2), sorted(expected), "mod {modulo}");
    for q in &mut both(&world, "Tag, ?Position") {
        for row in q.iter(&world) {
            assert_eq!(row.get::<Position>(1).is_some(), row.is_set(1));
        }
    }
}

/// Flecs Toggle_this_written_optional_1024_mod_{2,3,7,8,10,64,256,1024}.
#[test]
fn toggle_this_written_optional_1024_mod_m() {
    for modulo in [2, 3, 7, 8, 10, 64, 256, 1024] {
        written_optional(1024, modulo);
    }
}

/// Flecs Toggle_this_table_move_2_from_3: moving two of three rows to another table keeps
/// each one's bit.
#[test]
fn toggle_this_table_move_2_from_3() {
    let mut world = new_world();
    let mut q = world.query_dsl("Position").unwrap();
    let e1 = world.spawn(Position { x: 10, y: 20 }).id();
    let e2 = world.spawn(Position { x: 20, y: 30 }).id();
    let e3 = world.spawn(Position { x: 30, y: 40 }).id();
    world.entity_mut(e1).enable::<Position>();
    world.entity_mut(e2).disable::<Position>();
    world.entity_mut(e3).enable::<Position>();
    world.entity_mut(e3).insert(Tag);
    world.entity_mut(e2).insert(Tag);
    assert!(world.is_enabled::<Position>(e1));
    assert!(!world.is_enabled::<Position>(e2));
    assert!(world.is_enabled::<Position>(e3));
    let rows = sorted(q.iter(&world).map(|row| (row.entity(), *row.get::<Position>(0).unwrap())));
    assert_eq!(rows, sorted(vec![(e1, Position { x: 10, y: 20 }), (e3, Position { x: 30, y: 40 })]));
}

// ================================================================== Toggle.c: written combinations

/// One component's state on an entity of the combination tests.
#[derive(Clone, Copy, PartialEq)]
enum State {
    Absent,
    On,
    Off,
}

/// Term operators of the combination tests.
#[derive(Clone, Copy)]
enum Op {
    And,
    Not,
    Opt,
}

/// Flecs Toggle_this_written_*: entities with `Tag` and every combination of
/// absent / enabled / disabled `Position`, `Velocity` (and `Mass` when `three`), plus
/// one entity without `Tag`. `terms` are the query's terms after `Tag`, in Flecs' order.
fn written_combination(terms: &[(&str, Op)], three: bool) {
    let mut world = new_world();
    let n = if three { 3 } else { 2 };
    let mut model: Vec<(Entity, Vec<State>)> = Vec::new();
    for code in 0..3usize.pow(n) {
        let states: Vec<State> =
            (0..n).map(|k| [State::Absent, State::On, State::Off][code / 3usize.pow(k) % 3]).collect();
        let e = world.spawn(Tag).id();
        for (k, &state) in states.iter().enumerate() {
            if state == State::Absent {
                continue;
            }
            let mut entity = world.entity_mut(e);
            match k {
                0 => entity.insert(Position::default()),
                1 => entity.insert(Velocity::default()),
                _ => entity.insert(Mass(0)),
            };
            if state == State::Off {
                match k {
                    0 => entity.disable::<Position>(),
                    1 => entity.disable::<Velocity>(),
                    _ => entity.disable::<Mass>(),
                };
            }
        }
        model.push((e, states));
    }
    world.spawn((Position::default(), Velocity::default(), Mass(0)));
    let index = |name: &str| ["Position", "Velocity", "Mass"].iter().position(|&n| n == name).unwrap();
    let mut expected = Vec::new();
    'entities: for (e, states) in &model {
        let mut set = vec![true];
        for &(name, op) in terms {
            let on = states[index(name)] == State::On;
            match op {
                Op::And if !on => continue 'entities,
                Op::Not if on => continue 'entities,
                Op::And => set.push(true),
                Op::Not => set.push(false),
                Op::Opt => set.push(on),
            }
        }
        expected.push((*e, set));
    }
    let text = std::iter::once("Tag".to_string())
        .chain(terms.iter().map(|&(name, op)| match op {
            Op::And => name.to_string(),
            Op::Not => format!("!{name}"),
            Op::Opt => format!("?{name}"),
        }))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(!expected.is_empty());
    assert_eq!(rows_set(&world, &text, terms.len() + 1), sorted(expected), "{text}");
}

/// Flecs Toggle_this_written_toggle_w_not_toggle: `Tag, Position, !Velocity`.
#[test]
fn toggle_this_written_toggle_w_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Not)], false);
}

/// Flecs Toggle_this_written_not_toggle_w_toggle: `Tag, !Velocity, Position`.
#[test]
fn toggle_this_written_not_toggle_w_toggle() {
    written_combination(&[("Velocity", Op::Not), ("Position", Op::And)], false);
}

/// Flecs Toggle_this_written_toggle_w_optional_toggle: `Tag, Position, ?Velocity`.
#[test]
fn toggle_this_written_toggle_w_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Opt)], false);
}

/// Flecs Toggle_this_written_optional_toggle_w_toggle: `Tag, ?Velocity, Position`.
#[test]
fn toggle_this_written_optional_toggle_w_toggle() {
    written_combination(&[("Velocity", Op::Opt), ("Position", Op::And)], false);
}

/// Flecs Toggle_this_written_not_w_optional_toggle: `Tag, !Velocity, ?Position`.
#[test]
fn toggle_this_written_not_w_optional_toggle() {
    written_combination(&[("Velocity", Op::Not), ("Position", Op::Opt)], false);
}

/// Flecs Toggle_this_written_optional_w_not_toggle: `Tag, ?Position, !Velocity`.
#[test]
fn toggle_this_written_optional_w_not_toggle() {
    written_combination(&[("Position", Op::Opt), ("Velocity", Op::Not)], false);
}

/// Flecs Toggle_this_written_2_not_toggle: `Tag, !Position, !Velocity`.
#[test]
fn toggle_this_written_2_not_toggle() {
    written_combination(&[("Position", Op::Not), ("Velocity", Op::Not)], false);
}

/// Flecs Toggle_this_written_2_optional_toggle: `Tag, ?Position, ?Velocity`.
#[test]
fn toggle_this_written_2_optional_toggle() {
    written_combination(&[("Position", Op::Opt), ("Velocity", Op::Opt)], false);
}

/// Flecs Toggle_this_written_toggle_w_2_not_toggle: `Tag, Position, !Velocity, !Mass`.
#[test]
fn toggle_this_written_toggle_w_2_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Not), ("Mass", Op::Not)], true);
}

/// Flecs Toggle_this_written_toggle_w_2_optional_toggle: `Tag, Position, ?Velocity, ?Mass`.
#[test]
fn toggle_this_written_toggle_w_2_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::Opt), ("Mass", Op::Opt)], true);
}

/// Flecs Toggle_this_written_2_toggle_w_not_toggle: `Tag, Position, Velocity, !Mass`.
#[test]
fn toggle_this_written_2_toggle_w_not_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::And), ("Mass", Op::Not)], true);
}

/// Flecs Toggle_this_written_2_toggle_w_optional_toggle: `Tag, Position, Velocity, ?Mass`.
#[test]
fn toggle_this_written_2_toggle_w_optional_toggle() {
    written_combination(&[("Position", Op::And), ("Velocity", Op::And), ("Mass", Op::Opt)], true);
}

// ================================================================== OnDelete.c: toggles and cleanup

/// Flecs OnDelete_id_w_disabled: despawning an id the entities hold moves them; each
/// keeps its toggle bit.
#[test]
fn on_delete_id_w_disabled() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..4).map(|_| world.spawn(Foo).id()).collect();
    for &e in &es {
        world.entity_mut(e).disable::<Foo>();
    }
    world.entity_mut(es[0]).enable::<Foo>();
    world.entity_mut(es[2]).enable::<Foo>();
    let expect = |world: &World| {
        let bits: Vec<bool> = es.iter().map(|&e| world.is_enabled::<Foo>(e)).collect();
        assert_eq!(bits, vec![true, false, true, false]);
    };
    expect(&world);
    let t = world.spawn_empty().id();
    assert!(world.add_id(es[2], t.id()));
    assert!(world.add_id(es[3], t.id()));
    expect(&world);
    world.despawn(t);
    expect(&world);
    assert_eq!(this_rows(&world, "Foo"), sorted(vec![es[0], es[2]]));
    world.check_invariants();
}

/// Flecs OnDelete_id_to_no_disabled: despawning a toggleable component removes it from
/// every holder, disabled or not.
#[test]
fn on_delete_id_to_no_disabled() {
    let mut world = new_world();
    let es: Vec<Entity> = (0..4).map(|_| world.spawn(TagA).id()).collect();
    world.entity_mut(es[0]).insert(Foo).disable::<Foo>();
    world.entity_mut(es[1]).insert(Foo).disable::<Foo>();
    assert!(!world.is_enabled::<Foo>(es[0]) && !world.is_enabled::<Foo>(es[1]));
    let foo = cid::<Foo>(&world);
    world.despawn(foo);
    for &e in &es {
        assert!(world.has::<TagA>(e));
        assert!(!world.has_id(e, foo.id()));
    }
    world.check_invariants();
}

// ================================================================== Union.cpp / DontFragment.c

/// Flecs Union_add_case: replacing the target keeps the table and the old pair goes.
#[test]
fn union_add_case() {
    let mut world = new_world();
    let standing = named(&mut world, "Standing");
    let walking = named(&mut world, "Walking");
    let e = world.spawn_empty().add_pair::<Movement>(standing).id();
    assert!(world.has_pair::<Movement>(e, standing));
    let table = world.entity(e).archetype();
    world.entity_mut(e).add_pair::<Movement>(walking);
    assert_eq!(world.entity(e).archetype(), table);
    assert!(world.has_pair::<Movement>(e, walking));
    assert!(!world.has_pair::<Movement>(e, standing));
}

/// Flecs Union_get_case: `target` reads the current target.
#[test]
fn union_get_case() {
    let mut world = new_world();
    let standing = named(&mut world, "Standing");
    named(&mut world, "Walking");
    let e = world.spawn_empty().add_pair::<Movement>(standing).id();
    assert!(world.has_pair::<Movement>(e, standing));
    assert_eq!(world.target::<Movement>(e), Some(standing));
}

/// Flecs Union_add_remove_switch_w_type: `(Movement, *)` holds while any target is
/// set; removing `(Movement, *)` clears it. Adapted: Flecs keeps the entity in its table
/// after the removal (DontFragment never changes the table); ours moves it out of the
/// archetype holding `(Movement, *union*)` (documented in `world::union`: "removing
/// (R, t) (or (R, *), or (*, t)) moves the entity out of it").
#[test]
fn union_add_remove_switch_w_type() {
    let mut world = new_world();
    let standing = named(&mut world, "Standing");
    let walking = named(&mut world, "Walking");
    let e = world.spawn_empty().add_pair::<Movement>(standing).id();
    assert!(world.has_pair::<Movement>(e, Entity::WILDCARD));
    assert!(world.has_pair::<Movement>(e, standing));
    let table = world.entity(e).archetype();
    world.entity_mut(e).add_pair::<Movement>(walking);
    assert!(world.has_pair::<Movement>(e, walking));
    assert!(!world.has_pair::<Movement>(e, standing));
    assert_eq!(world.entity(e).archetype(), table);
    assert_eq!(world.target::<Movement>(e), Some(walking));
    world.entity_mut(e).remove_pair::<Movement>(Entity::WILDCARD);
    assert!(!world.has_pair::<Movement>(e, Entity::WILDCARD));
    assert!(!world.has_pair::<Movement>(e, walking));
    assert_eq!(world.target::<Movement>(e), None);
}

/// Flecs Union_switch_enum_type (an enum relationship is a union of its constants):
/// cycling through three targets, exactly one held at a time, one table throughout.
#[test]
fn union_switch_enum_type() {
    let mut world = new_world();
    let colors = [named(&mut world, "Red"), named(&mut world, "Green"), named(&mut world, "Blue")];
    let e = world.spawn_empty().add_pair::<Movement>(colors[0]).id();
    let table = world.entity(e).archetype();
    for (i, &color) in colors.iter().enumerate() {
        world.entity_mut(e).add_pair::<Movement>(color);
        for (j, &other) in colors.iter().enumerate() {
            assert_eq!(world.has_pair::<Movement>(e, other), i == j);
        }
        assert!(world.has_pair::<Movement>(e, Entity::WILDCARD));
        assert_eq!(world.entity(e).archetype(), table);
    }
    world.entity_mut(e).remove_pair::<Movement>(Entity::WILDCARD);
    assert!(colors.iter().all(|&c| !world.has_pair::<Movement>(e, c)));
    assert!(!world.has_pair::<Movement>(e, Entity::WILDCARD));
}

/// Walking, Running, Sitting and e1..e6 with Walking, Walking, Running, Running, Running,
/// Sitting (Foo on e3, e4; Bar on e5, e6), as DontFragment.c sets them up.
struct Movers {
    walking: Entity,
    running: Entity,
    sitting: Entity,
    e: [Entity; 6],
}

fn movers(world: &mut World) -> Movers {
    let walking = named(world, "Walking");
    let running = named(world, "Running");
    let sitting = named(world, "Sitting");
    let e: [Entity; 6] = std::array::from_fn(|_| world.spawn_empty().id());
    for (i, target) in [walking, walking, running, running, running, sitting].into_iter().enumerate() {
        world.entity_mut(e[i]).add_pair::<Movement>(target);
    }
    world.entity_mut(e[2]).insert(Foo);
    world.entity_mut(e[3]).insert(Foo);
    world.entity_mut(e[4]).insert(Bar);
    world.entity_mut(e[5]).insert(Bar);
    Movers { walking, running, sitting, e }
}

fn pair<R: Component>(world: &World, target: Entity) -> Id {
    Id::pair(cid::<R>(world), target)
}

/// Flecs DontFragment_1_fixed_sparse_exclusive_any: `Movement(ent, _)` matches once (the
/// reported id is checked in `dont_fragment_exclusive_any_reports_the_wildcard_id`).
#[test]
fn dont_fragment_1_fixed_sparse_exclusive_any() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    let ent = named(&mut world, "ent");
    world.entity_mut(ent).add_pair::<Movement>(walking);
    for q in &mut both(&world, "Movement(ent, _)") {
        let rows: Vec<(Entity, bool)> = q.iter(&world).map(|row| (row.source(0), row.is_set(0))).collect();
        assert_eq!(rows, vec![(ent, true)]);
    }
}

/// Flecs DontFragment_1_fixed_sparse_exclusive_tgt_var: `Movement(ent, $x)` binds the one
/// current target, before and after retargeting.
#[test]
fn dont_fragment_1_fixed_sparse_exclusive_tgt_var() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    let running = named(&mut world, "Running");
    let ent = named(&mut world, "ent");
    world.entity_mut(ent).add_pair::<Movement>(walking);
    let text = "Movement(ent, $x)";
    assert_eq!(solutions(&world, text, 0), vec![(ent, pair::<Movement>(&world, walking), Some(walking))]);
    world.entity_mut(ent).add_pair::<Movement>(running);
    assert_eq!(solutions(&world, text, 0), vec![(ent, pair::<Movement>(&world, running), Some(running))]);
}

/// Flecs DontFragment_1_this_sparse_exclusive_any: `(Movement, _)` yields every holder once.
#[test]
fn dont_fragment_1_this_sparse_exclusive_any() {
    let mut world = new_world();
    let m = movers(&mut world);
    assert_eq!(this_rows(&world, "(Movement, _)"), sorted(m.e));
}

/// Flecs DontFragment_1_this_sparse_exclusive_tgt_var: `(Movement, $x)` binds each row's target.
#[test]
fn dont_fragment_1_this_sparse_exclusive_tgt_var() {
    let mut world = new_world();
    let m = movers(&mut world);
    let [mut cached, mut uncached] = both(&world, "(Movement, $x)");
    for q in [&mut cached, &mut uncached] {
        let rows = sorted(q.iter(&world).map(|row| (row.entity(), row.var("x"), row.id(0))));
        let targets = [m.walking, m.walking, m.running, m.running, m.running, m.sitting];
        let expected = sorted((0..6).map(|i| (m.e[i], Some(targets[i]), pair::<Movement>(&world, targets[i]))));
        assert_eq!(rows, expected);
    }
}

/// Flecs DontFragment_1_var_sparse_exclusive_any: `Movement($x, _)`, one solution per holder.
#[test]
fn dont_fragment_1_var_sparse_exclusive_any() {
    let mut world = new_world();
    let m = movers(&mut world);
    let found: Vec<(Entity, Option<Entity>)> =
        solutions(&world, "Movement($x, _)", 0).into_iter().map(|(src, _, x)| (src, x)).collect();
    assert_eq!(found, sorted(m.e.iter().map(|&e| (e, Some(e)))));
}

/// Flecs DontFragment_1_fixed_sparse_exclusive_any, DontFragment_1_this_sparse_exclusive_any,
/// DontFragment_1_var_sparse_exclusive_any, DontFragment_this_written_sparse_exclusive_any:
/// the field id of an `_` (any) term is `(Movement, *)`, not the matched pair.
#[test]
fn dont_fragment_exclusive_any_reports_the_wildcard_id() {
    let mut world = new_world();
    let m = movers(&mut world);
    let ent = named(&mut world, "ent");
    world.entity_mut(ent).add_pair::<Movement>(m.walking);
    let wildcard = pair::<Movement>(&world, Entity::WILDCARD);
    for text in ["Movement(ent, _)", "(Movement, _)", "Movement($x, _)"] {
        for q in &mut both(&world, text) {
            let ids: Vec<Id> = q.iter(&world).map(|row| row.id(0)).collect();
            assert!(!ids.is_empty());
            assert!(ids.iter().all(|&id| id == wildcard), "{text}: {ids:?}");
        }
    }
}

/// Flecs DontFragment_this_written_sparse_exclusive_any: `TagA, (Movement, _)`.
#[test]
fn dont_fragment_this_written_sparse_exclusive_any() {
    let mut world = new_world();
    let m = movers(&mut world);
    for &e in &m.e {
        world.entity_mut(e).insert(TagA);
    }
    world.spawn(TagA);
    assert_eq!(this_rows(&world, "TagA, (Movement, _)"), sorted(m.e));
}

/// Flecs DontFragment_1_fixed_sparse_pair_exclusive_not: `!Movement(ent, Walking)`.
#[test]
fn dont_fragment_1_fixed_sparse_pair_exclusive_not() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    let ent = named(&mut world, "ent");
    let text = "!Movement(ent, Walking)";
    for q in &mut both(&world, text) {
        let rows: Vec<(Entity, Id, bool)> =
            q.iter(&world).map(|row| (row.source(0), row.id(0), row.is_set(0))).collect();
        assert_eq!(rows, vec![(ent, pair::<Movement>(&world, walking), false)]);
    }
    world.entity_mut(ent).add_pair::<Movement>(walking);
    assert_eq!(count(&world, text), 0);
}

/// Flecs DontFragment_1_fixed_sparse_pair_exclusive_wildcard_not and
/// DontFragment_1_fixed_sparse_pair_exclusive_any_not: `!Movement(ent, *)`, `!Movement(ent, _)`.
#[test]
fn dont_fragment_1_fixed_sparse_pair_exclusive_wildcard_and_any_not() {
    for text in ["!Movement(ent, *)", "!Movement(ent, _)"] {
        let mut world = new_world();
        let walking = named(&mut world, "Walking");
        let ent = named(&mut world, "ent");
        for q in &mut both(&world, text) {
            let rows: Vec<(Entity, Id, bool)> =
                q.iter(&world).map(|row| (row.source(0), row.id(0), row.is_set(0))).collect();
            assert_eq!(rows, vec![(ent, pair::<Movement>(&world, Entity::WILDCARD), false)], "{text}");
        }
        world.entity_mut(ent).add_pair::<Movement>(walking);
        assert_eq!(count(&world, text), 0, "{text}");
    }
}

/// `movers` with TagA on e1..e6 and a seventh entity with only TagA.
fn movers_with_tag(world: &mut World) -> (Movers, Entity) {
    let m = movers(world);
    for &e in &m.e {
        world.entity_mut(e).insert(TagA);
    }
    let e7 = world.spawn(TagA).id();
    (m, e7)
}

/// Flecs DontFragment_1_this_sparse_pair_exclusive_not: `TagA, !(Movement, Walking)`.
#[test]
fn dont_fragment_1_this_sparse_pair_exclusive_not() {
    let mut world = new_world();
    let (m, e7) = movers_with_tag(&mut world);
    let expected = sorted([e7, m.e[2], m.e[3], m.e[4], m.e[5]].map(|e| (e, vec![true, false])));
    assert_eq!(rows_set(&world, "TagA, !(Movement, Walking)", 2), expected);
}

/// Flecs DontFragment_1_this_sparse_pair_exclusive_wildcard_not and
/// DontFragment_1_this_sparse_pair_exclusive_any_not: `TagA, !(Movement, *)` / `_`.
#[test]
fn dont_fragment_1_this_sparse_pair_exclusive_wildcard_and_any_not() {
    let mut world = new_world();
    let (_, e7) = movers_with_tag(&mut world);
    for text in ["TagA, !(Movement, *)", "TagA, !(Movement, _)"] {
        assert_eq!(rows_set(&world, text, 2), vec![(e7, vec![true, false])], "{text}");
    }
}

/// Flecs DontFragment_1_var_sparse_pair_exclusive_wildcard_not and
/// DontFragment_1_var_sparse_pair_exclusive_any_not: `TagA($x), !Movement($x, *)` / `_`.
#[test]
fn dont_fragment_1_var_sparse_pair_exclusive_wildcard_and_any_not() {
    let mut world = new_world();
    let (_, e7) = movers_with_tag(&mut world);
    for text in ["TagA($x), !Movement($x, *)", "TagA($x), !Movement($x, _)"] {
        let [mut cached, mut uncached] = both(&world, text);
        for q in [&mut cached, &mut uncached] {
            let rows: Vec<(Option<Entity>, bool, bool)> =
                q.iter(&world).map(|row| (row.var("x"), row.is_set(0), row.is_set(1))).collect();
            assert_eq!(rows, vec![(Some(e7), true, false)], "{text}");
        }
    }
}

/// Rel with TgtA..TgtC; `ent` (named) with (Rel, TgtA) and e1..e4 with TgtA, TgtA, TgtB,
/// TgtC, as DontFragment_1_*_exclusive set them up.
fn rel_world(with_ent: bool) -> (World, [Entity; 3], [Entity; 4], Option<Entity>) {
    let mut world = new_world();
    let tgt = [named(&mut world, "TgtA"), named(&mut world, "TgtB"), named(&mut world, "TgtC")];
    let ent = with_ent.then(|| {
        let ent = named(&mut world, "ent");
        world.entity_mut(ent).add_pair::<Rel>(tgt[0]);
        ent
    });
    let e: [Entity; 4] = [tgt[0], tgt[0], tgt[1], tgt[2]].map(|t| world.spawn_empty().add_pair::<Rel>(t).id());
    (world, tgt, e, ent)
}

/// Flecs DontFragment_1_fixed_exclusive: `Rel(ent, TgtA)` matches ent only.
#[test]
fn dont_fragment_1_fixed_exclusive() {
    let (world, tgt, _, ent) = rel_world(true);
    let ent = ent.unwrap();
    assert_eq!(solutions(&world, "Rel(ent, TgtA)", 0), vec![(ent, pair::<Rel>(&world, tgt[0]), None)]);
}

/// Flecs DontFragment_1_fixed_exclusive_second_wildcard: `Rel(ent, *)` yields ent's one pair.
#[test]
fn dont_fragment_1_fixed_exclusive_second_wildcard() {
    let (world, tgt, _, ent) = rel_world(true);
    let ent = ent.unwrap();
    assert_eq!(solutions(&world, "Rel(ent, *)", 0), vec![(ent, pair::<Rel>(&world, tgt[0]), None)]);
}

/// Flecs DontFragment_1_this_exclusive: `(Rel, TgtA)` yields e1, e2.
#[test]
fn dont_fragment_1_this_exclusive() {
    let (world, _, e, _) = rel_world(false);
    assert_eq!(this_rows(&world, "(Rel, TgtA)"), sorted(vec![e[0], e[1]]));
}

/// Flecs DontFragment_1_this_exclusive_not_in_use: a query made before any pair exists
/// sees the holders added later.
#[test]
fn dont_fragment_1_this_exclusive_not_in_use() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    named(&mut world, "Running");
    let mut q = world.query_dsl("(Movement, Walking)").unwrap();
    let es: Vec<Entity> = (0..3).map(|_| world.spawn_empty().add_pair::<Movement>(walking).id()).collect();
    for &e in &es {
        assert!(world.has_pair::<Movement>(e, walking));
    }
    assert_eq!(sorted(q.iter(&world).map(|row| row.entity())), es);
}

/// Flecs DontFragment_1_this_exclusive_second_wildcard: `(Rel, *)` yields each row's pair.
#[test]
fn dont_fragment_1_this_exclusive_second_wildcard() {
    let (world, tgt, e, _) = rel_world(false);
    let [mut cached, mut uncached] = both(&world, "(Rel, *)");
    for q in [&mut cached, &mut uncached] {
        let rows = sorted(q.iter(&world).map(|row| (row.entity(), row.id(0))));
        let expected = sorted(
            [(e[0], tgt[0]), (e[1], tgt[0]), (e[2], tgt[1]), (e[3], tgt[2])].map(|(e, t)| (e, pair::<Rel>(&world, t))),
        );
        assert_eq!(rows, expected);
    }
}

/// Flecs DontFragment_1_var_exclusive: `Rel($x, TgtA)`.
#[test]
fn dont_fragment_1_var_exclusive() {
    let (world, tgt, e, _) = rel_world(false);
    let id = pair::<Rel>(&world, tgt[0]);
    assert_eq!(solutions(&world, "Rel($x, TgtA)", 0), sorted(vec![(e[0], id, Some(e[0])), (e[1], id, Some(e[1]))]));
}

/// Flecs DontFragment_1_var_exclusive_second_wildcard: `Rel($x, *)`.
#[test]
fn dont_fragment_1_var_exclusive_second_wildcard() {
    let (world, tgt, e, _) = rel_world(false);
    let expected = sorted(
        [(e[0], tgt[0]), (e[1], tgt[0]), (e[2], tgt[1]), (e[3], tgt[2])]
            .map(|(e, t)| (e, pair::<Rel>(&world, t), Some(e))),
    );
    assert_eq!(solutions(&world, "Rel($x, *)", 0), expected);
}

/// `rel_world(false)` with Foo on e1..e4 and a fifth entity with only Foo.
fn rel_world_with_foo() -> (World, [Entity; 3], [Entity; 4]) {
    let (mut world, tgt, e, _) = rel_world(false);
    for &e in &e {
        world.entity_mut(e).insert(Foo);
    }
    world.spawn(Foo);
    (world, tgt, e)
}

/// Flecs DontFragment_1_this_written_exclusive: `Foo, (Rel, TgtA)`.
#[test]
fn dont_fragment_1_this_written_exclusive() {
    let (world, _, e) = rel_world_with_foo();
    assert_eq!(this_rows(&world, "Foo, (Rel, TgtA)"), sorted(vec![e[0], e[1]]));
}

/// Flecs DontFragment_1_this_written_exclusive_second_wildcard: `Foo, (Rel, *)`.
#[test]
fn dont_fragment_1_this_written_exclusive_second_wildcard() {
    let (world, tgt, e) = rel_world_with_foo();
    let [mut cached, mut uncached] = both(&world, "Foo, (Rel, *)");
    for q in [&mut cached, &mut uncached] {
        let rows = sorted(q.iter(&world).map(|row| (row.entity(), row.id(1))));
        let expected = sorted(
            [(e[0], tgt[0]), (e[1], tgt[0]), (e[2], tgt[1]), (e[3], tgt[2])].map(|(e, t)| (e, pair::<Rel>(&world, t))),
        );
        assert_eq!(rows, expected);
    }
}

/// Flecs DontFragment_1_var_written_exclusive: `Foo($x), Rel($x, TgtA)`.
#[test]
fn dont_fragment_1_var_written_exclusive() {
    let (world, tgt, e) = rel_world_with_foo();
    let id = pair::<Rel>(&world, tgt[0]);
    assert_eq!(
        solutions(&world, "Foo($x), Rel($x, TgtA)", 1),
        sorted(vec![(e[0], id, Some(e[0])), (e[1], id, Some(e[1]))])
    );
}

/// Flecs DontFragment_1_var_written_exclusive_second_wildcard: `Foo($x), Rel($x, *)`.
#[test]
fn dont_fragment_1_var_written_exclusive_second_wildcard() {
    let (world, tgt, e) = rel_world_with_foo();
    let expected = sorted(
        [(e[0], tgt[0]), (e[1], tgt[0]), (e[2], tgt[1]), (e[3], tgt[2])]
            .map(|(e, t)| (e, pair::<Rel>(&world, t), Some(e))),
    );
    assert_eq!(solutions(&world, "Foo($x), Rel($x, *)", 1), expected);
}

/// Flecs DontFragment_this_sparse_pair_recycled: a pair targeting its own holder goes with
/// the holder; a recycled id starts without it and can add it again.
#[test]
fn dont_fragment_this_sparse_pair_recycled() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<Rel>(e);
    assert!(world.has_pair::<Rel>(e, e));
    world.despawn(e);
    assert!(!world.is_alive(e));
    let e = world.spawn_empty().id();
    assert!(!world.has_pair::<Rel>(e, e));
    world.entity_mut(e).add_pair::<Rel>(e);
    assert!(world.has_pair::<Rel>(e, e));
    let text = format!("(Rel, {})", r(e));
    for q in &mut both(&world, &text) {
        let rows: Vec<(Entity, Id, bool)> =
            q.iter(&world).map(|row| (row.entity(), row.id(0), row.is_set(0))).collect();
        assert_eq!(rows, vec![(e, pair::<Rel>(&world, e), true)]);
    }
    world.check_invariants();
}

/// Flecs DontFragment_ignore_prefab_disabled (with a union pair as the non-fragmenting
/// term): disabled entities and prefabs are skipped.
#[test]
fn dont_fragment_ignore_prefab_disabled() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    let mut q = world.query_dsl("(Movement, Walking)").unwrap();
    let es: Vec<Entity> = (0..3).map(|_| world.spawn_empty().add_pair::<Movement>(walking).id()).collect();
    world.entity_mut(es[1]).insert(Disabled);
    world.entity_mut(es[2]).insert(Prefab);
    assert_eq!(q.iter(&world).map(|row| row.entity()).collect::<Vec<_>>(), vec![es[0]]);
    assert_eq!(this_rows(&world, "(Movement, Walking)"), vec![es[0]]);
    assert_eq!(world.query::<(Entity, Pair<Movement>)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![es[0]]);
}

/// Flecs DontFragment_match_prefab_disabled (the query flags
/// `EcsQueryMatchDisabled|EcsQueryMatchPrefab` written as `?Disabled, ?Prefab` terms).
#[test]
fn dont_fragment_match_prefab_disabled() {
    let mut world = new_world();
    let walking = named(&mut world, "Walking");
    let es: Vec<Entity> = (0..3).map(|_| world.spawn_empty().add_pair::<Movement>(walking).id()).collect();
    world.entity_mut(es[1]).insert(Disabled);
    world.entity_mut(es[2]).insert(Prefab);
    assert_eq!(this_rows(&world, "(Movement, Walking), ?Disabled, ?Prefab"), es);
    assert_eq!(this_rows(&world, "(Movement, Walking), ?Disabled"), vec![es[0], es[1]]);
    assert_eq!(this_rows(&world, "(Movement, Walking), ?Prefab"), vec![es[0], es[2]]);
}

// ================================================================== Disabled entities

/// Flecs Basic_match_disabled: `TagA` skips disabled and prefab entities; `TagA, Disabled`
/// yields only the disabled one.
#[test]
fn basic_match_disabled() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    world.spawn((TagA, Prefab));
    assert_eq!(this_rows(&world, "TagA"), vec![e1]);
    assert_eq!(this_rows(&world, "TagA, Disabled"), vec![e2]);
    assert_eq!(sorted(world.query_filtered::<Entity, With<TagA>>().iter(&world)), vec![e1]);
    assert_eq!(sorted(world.query_filtered::<Entity, (With<TagA>, With<Disabled>)>().iter(&world)), vec![e2]);
}

/// Flecs Basic_match_disabled_prefab: the four combinations of naming Disabled and Prefab.
#[test]
fn basic_match_disabled_prefab() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    let e3 = world.spawn((TagA, Prefab)).id();
    let e4 = world.spawn((TagA, Prefab, Disabled)).id();
    assert_eq!(this_rows(&world, "TagA"), vec![e1]);
    assert_eq!(this_rows(&world, "TagA, Disabled"), vec![e2]);
    assert_eq!(this_rows(&world, "TagA, Prefab"), vec![e3]);
    assert_eq!(this_rows(&world, "TagA, Prefab, Disabled"), vec![e4]);
}

/// Flecs Basic_match_disabled_this_tgt: `TagA, ChildOf($child, $this)` skips a disabled
/// parent (its child is not disabled) unless the query names Disabled. Adapted: our DSL
/// allows `$this` only as a source (documented in `query::dsl`), so the parent is the
/// variable `$p`: `TagA($p), ChildOf($child, $p)`.
#[test]
fn basic_match_disabled_this_tgt() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    let e3 = world.spawn((TagA, Prefab)).id();
    let children: Vec<Entity> = [e1, e2, e3].map(|parent| world.spawn(ChildOf.pair(parent)).id()).to_vec();
    let parents = |world: &World, text: &str| -> Vec<(Option<Entity>, Option<Entity>)> {
        let [mut cached, mut uncached] = both(world, text);
        let a = sorted(cached.iter(world).map(|row| (row.var("p"), row.var("child"))));
        let b = sorted(uncached.iter(world).map(|row| (row.var("p"), row.var("child"))));
        assert_eq!(a, b, "{text:?}");
        a
    };
    assert_eq!(parents(&world, "TagA($p), ChildOf($child, $p)"), vec![(Some(e1), Some(children[0]))]);
    assert_eq!(parents(&world, "TagA($p), ChildOf($child, $p), Disabled($p)"), vec![(Some(e2), Some(children[1]))]);
}

/// Flecs Basic_match_optional_disabled: `TagA, ?Disabled` yields enabled and disabled, not prefabs.
#[test]
fn basic_match_optional_disabled() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    world.spawn((TagA, Prefab));
    assert_eq!(this_rows(&world, "TagA"), vec![e1]);
    assert_eq!(this_rows(&world, "TagA, ?Disabled"), vec![e1, e2]);
}

/// Flecs Basic_match_self_disabled: as `match_disabled` with explicit `(self)`.
#[test]
fn basic_match_self_disabled() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    world.spawn((TagA, Prefab));
    assert_eq!(this_rows(&world, "TagA($this)"), vec![e1]);
    assert_eq!(this_rows(&world, "TagA($this), Disabled($this)"), vec![e2]);
}

/// Flecs Basic_match_optional_self_disabled: `TagA(self), ?Disabled(self)`.
#[test]
fn basic_match_optional_self_disabled() {
    let mut world = new_world();
    let e1 = world.spawn(TagA).id();
    let e2 = world.spawn((TagA, Disabled)).id();
    world.spawn((TagA, Prefab));
    assert_eq!(this_rows(&world, "TagA($this), ?Disabled($this)"), vec![e1, e2]);
}

/// Flecs Basic_2_trivial_w_disabled: `TagA(self), Disabled` across two tables.
#[test]
fn basic_2_trivial_w_disabled() {
    let mut world = new_world();
    let e1 = world.spawn((Disabled, TagA)).id();
    let e2 = world.spawn((Disabled, TagA, TagB)).id();
    let disabled = world.component_id::<Disabled>().expect("built in");
    for q in &mut both(&world, "TagA($this), Disabled") {
        let rows = sorted(q.iter(&world).map(|row| (row.entity(), row.id(1), row.source(0), row.source(1))));
        assert_eq!(rows, sorted(vec![(e1, disabled.id(), e1, e1), (e2, disabled.id(), e2, e2)]));
    }
}

/// Flecs Operators_1_not_match_disabled: `!Foo` does not match a disabled entity.
#[test]
fn operators_1_not_match_disabled() {
    let mut world = new_world();
    let e = world.spawn(Disabled).id();
    let live = world.spawn(TagA).id();
    let rows = this_rows(&world, "!Foo");
    assert!(!rows.contains(&e));
    assert!(rows.contains(&live));
}

/// Flecs Operators_1_not_match_disabled_w_match_disabled_flag (the flag written as a
/// `?Disabled` term): `!Foo, ?Disabled` matches the disabled entity but not a prefab.
#[test]
fn operators_1_not_match_disabled_w_match_disabled_flag() {
    let mut world = new_world();
    let p = world.spawn(Prefab).id();
    let d = world.spawn(Disabled).id();
    let rows = this_rows(&world, "!Foo, ?Disabled");
    assert!(!rows.contains(&p));
    assert!(rows.contains(&d));
}

/// Flecs Transitive_isa_disabled: an instance of a disabled base starts disabled (the tag
/// is copied); once enabled, `(IsA, base)` matches it and not the disabled base.
#[test]
fn transitive_isa_disabled() {
    let mut world = new_world();
    let base = world.spawn(Disabled).id();
    let inst = world.spawn_empty().add_pair::<IsA>(base).id();
    world.entity_mut(inst).remove::<Disabled>();
    let isa = cid::<IsA>(&world);
    for q in &mut both(&world, &format!("(IsA, {})", r(base))) {
        let rows: Vec<(Entity, Id)> = q.iter(&world).map(|row| (row.entity(), row.id(0))).collect();
        assert_eq!(rows, vec![(inst, Id::pair(isa, base))]);
    }
}

/// Flecs Transitive_isa_disabled_match_disabled_term: `(IsA, base), ?Disabled` matches the
/// disabled base itself (IsA is reflexive) and its disabled instance.
#[test]
fn transitive_isa_disabled_match_disabled_term() {
    let mut world = new_world();
    let base = world.spawn(Disabled).id();
    let inst = world.spawn_empty().add_pair::<IsA>(base).id();
    assert!(world.has::<Disabled>(inst));
    assert_eq!(this_rows(&world, &format!("(IsA, {}), ?Disabled", r(base))), sorted(vec![base, inst]));
}

/// Flecs Traversal_not_up_disabled: `TagA, !Disabled(up)` keeps out a child of a disabled
/// parent, and (naming Disabled only on the parent) an entity that is itself disabled:
/// Flecs matches disabled entities only when a `Disabled` term reads `self`
/// (validator.c: `term->src.id & EcsSelf`).
#[test]
fn traversal_not_up_disabled() {
    let mut world = new_world();
    let parent = world.spawn(Disabled).id();
    let e1 = world.spawn(TagA).id();
    world.spawn((TagA, Disabled));
    world.spawn((TagA, ChildOf.pair(parent)));
    for q in &mut both(&world, "TagA, !Disabled(up)") {
        let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.entity(), row.source(0))).collect();
        assert_eq!(rows, vec![(e1, e1)]);
    }
}

/// Flecs Observer_trigger_on_disabled. Adapted: in Flecs an `OnAdd TagA` observer skips
/// prefabs and disabled entities unless it names Disabled; ours sees disabled entities
/// (documented on `Disabled`: "observers still see them"). Prefabs are kept as in Flecs.
#[test]
fn observer_trigger_on_disabled() {
    let mut world = new_world();
    world.init_resource::<Invoked>();
    world.add_observer(|trigger: Trigger<OnAdd, TagA>, mut invoked: ResMut<Invoked>| invoked.0.push(trigger.entity()));
    let live = world.spawn(TagA).id();
    assert_eq!(world.resource::<Invoked>().0, vec![live]);
    world.resource_mut::<Invoked>().0.clear();
    let disabled = world.spawn(Disabled).id();
    assert!(world.resource::<Invoked>().0.is_empty());
    world.entity_mut(disabled).insert(TagA);
    assert_eq!(world.resource::<Invoked>().0, vec![disabled], "ours: observers see disabled entities");
}

/// Flecs Observer_trigger_on_disabled (prefab part) / Trigger_trigger_on_prefab: an
/// `OnAdd TagA` observer is not invoked for a prefab.
#[test]
fn observer_trigger_on_prefab() {
    let mut world = new_world();
    world.init_resource::<Invoked>();
    world.add_observer(|trigger: Trigger<OnAdd, TagA>, mut invoked: ResMut<Invoked>| invoked.0.push(trigger.entity()));
    let prefab = world.spawn(Prefab).id();
    world.entity_mut(prefab).insert(TagA);
    assert!(world.resource::<Invoked>().0.is_empty(), "observer ran for a prefab");
}

/// Flecs Trigger_trigger_on_disabled_tag: an observer of `Disabled` itself runs when an
/// entity is spawned with it.
#[test]
fn trigger_on_disabled_tag() {
    let mut world = new_world();
    world.init_resource::<Invoked>();
    world.add_observer(|trigger: Trigger<OnAdd, Disabled>, mut invoked: ResMut<Invoked>| {
        invoked.0.push(trigger.entity())
    });
    let e = world.spawn(Disabled).id();
    assert_eq!(world.resource::<Invoked>().0, vec![e]);
}

/// Flecs Prefab_inherit_disabled: adding `(IsA, base)` to an existing entity whose base is
/// disabled makes it disabled too, and it inherits the base's components. Adapted: the
/// base carries `Prefab` as well, since ours reads values from prefab bases only
/// (documented on `IsA`: "Values are read from prefabs only"); Flecs' base is a plain entity.
#[test]
fn prefab_inherit_disabled() {
    let mut world = new_world();
    let e1 = world.spawn(Position::default()).id();
    let e2 = world.spawn((Velocity::default(), Disabled, Prefab)).id();
    world.entity_mut(e1).add_pair::<IsA>(e2);
    assert!(world.has::<Position>(e1));
    assert!(world.has::<Velocity>(e1));
    assert!(world.has::<Disabled>(e1));
    assert!(world.has_pair::<IsA>(e1, e2));
    assert!(!world.has::<Position>(e2));
    assert!(world.has::<Velocity>(e2));
    assert!(world.has::<Disabled>(e2));
}

/// Flecs World_is_entity_enabled: a new entity is not disabled.
#[test]
fn world_is_entity_enabled() {
    let mut world = new_world();
    let e = world.spawn_empty().id();
    assert!(!world.has::<Disabled>(e));
}

/// Any term on `Prefab` lifts prefab hiding, `up` included (Flecs requires
/// `self` only for `Disabled`): `TagA, Prefab(up)` finds the children of
/// prefabs, which are prefabs themselves (review finding).
#[test]
fn a_prefab_up_term_finds_the_children_of_prefabs() {
    let mut world = new_world();
    let parent = world.spawn(Prefab).id();
    let child = world.spawn(TagA).id();
    world.add_pair::<ChildOf>(child, parent);
    assert!(world.has::<Prefab>(child));
    for q in &mut both(&world, "TagA, Prefab(up)") {
        let rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
        assert_eq!(rows, vec![child]);
    }
}
