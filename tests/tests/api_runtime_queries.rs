//! The lines of API.md's "Runtime queries" section, as written there (names,
//! shapes and types spelled out), each checked for the behaviour it states.

use ecs::entity::Id;
use ecs::query::{DslError, DynQuery, QueryBuildError};

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Position {
    x: f32,
}
#[derive(Component, Debug, PartialEq)]
struct Velocity {
    x: f32,
}
#[derive(Component)]
struct Enemy;
#[derive(Component)]
struct Health(#[allow(dead_code)] u32);
#[derive(Relationship)]
struct Likes;
#[derive(Component)]
struct SpaceShip;
#[derive(Component)]
struct Planet;
#[derive(Relationship)]
struct DockedTo;
#[derive(Relationship)]
struct RuledBy;

#[derive(Relationship)]
#[relationship(transitive)] // (LocatedIn, Earth) matches chains: a in b, b in Earth
struct LocatedIn;

#[test]
fn the_builder_lines() -> Result<(), QueryBuildError> {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let e = world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 })).id();
    world.entity_mut(e).add_pair::<Likes>(bob);
    world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 }, Enemy)).add_pair::<Likes>(bob);

    let pos = world.register_component::<Position>(); // Entity (components are entities); component_id -> Option
    assert_eq!(world.component_id::<Position>(), Some(pos));
    let likes = world.register_component::<Likes>();
    let mut q = world
        .query_builder() // QueryBuilder
        .read(pos) // term 0
        .write(world.register_component::<Velocity>()) // term 1
        .without(world.register_component::<Enemy>()) // term 2: every term has an index, in the order written
        .pair(likes, Entity::WILDCARD) // term 3: (Likes, *)
        .build()?; // Result<DynQuery, QueryBuildError>; build_uncached() same API
    let mut rows = 0;
    for row in q.iter(&world) {
        // DynRow
        let e2: Entity = row.entity();
        let p: Option<&Position> = row.get::<Position>(0); // None if absent (optional term) or T is not the term's type
        let target: Entity = row.pair_target(3); // what the wildcard matched
        let id: Id = row.id(3); // the id term 3 matched
        let set: bool = row.is_set(0); // false where an optional term did not match
        let src: Entity = row.source(0); // the entity the term matched on
        assert_eq!((e2, p, target, id, set, src), (e, Some(&Position { x: 1.0 }), bob, Id::pair(likes, bob), true, e));
        assert!(row.get::<Velocity>(0).is_none(), "not the term's type");
        rows += 1;
    }
    assert_eq!(rows, 1);
    q.iter_mut(&mut world).for_each(|mut row| {
        if let Some(mut v) = row.get_mut::<Velocity>(1) {
            v.x = 0.0;
        }
    });
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity { x: 0.0 }));
    let uncached: DynQuery = world.query_builder().read(pos).build_uncached()?;
    assert!(!uncached.is_cached());
    Ok(())
}

#[test]
fn the_dsl_lines() -> Result<(), DslError> {
    let mut world = World::new();
    for register in [
        World::register_component::<Position>,
        World::register_component::<Velocity>,
        World::register_component::<Enemy>,
        World::register_component::<Health>,
        World::register_component::<Likes>,
        World::register_component::<SpaceShip>,
        World::register_component::<Planet>,
        World::register_component::<DockedTo>,
        World::register_component::<RuledBy>,
    ] {
        register(&mut world);
    }
    let parent = world.spawn(Position { x: 5.0 }).id();
    let bob = world.spawn_empty().id();
    let child = world.spawn((Position { x: 1.0 }, Velocity { x: 1.0 }, Health(3), ChildOf.pair(parent))).id();
    world.entity_mut(child).add_pair::<Likes>(bob);

    // The query DSL (Flecs query language subset). Names resolve with world.lookup.
    let mut q = world.query_dsl("Position, [in] Velocity, !Enemy, ?Health, (Likes, *), Position(up ChildOf)")?;
    let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.is_set(3), row.source(5))).collect();
    assert_eq!(rows, [(child, true, parent)]);
    // Result<DynQuery, DslError>; DslError { offset: usize, message: String } implements Display + Error
    let error: DslError = world.query_dsl("Position, Nope").unwrap_err();
    let DslError { offset, message } = error.clone();
    assert_eq!(offset, 10);
    assert!(!message.is_empty());
    let _: &dyn std::error::Error = &error;
    assert!(error.to_string().contains("Nope"));

    let earth = world.spawn((Planet, Name::new("Earth"))).id();
    let empire = world.spawn_empty().id();
    world.entity_mut(earth).add_pair::<RuledBy>(empire);
    let ship = world.spawn(SpaceShip).add_pair::<DockedTo>(earth).id();
    let mut q = world.query_dsl("SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction)")?;
    for row in q.iter(&world) {
        let planet: Entity = row.var("planet").unwrap(); // None: unbound (optional)
        assert_eq!((row.entity(), planet, row.var("faction")), (ship, earth, Some(empire)));
    }
    assert_eq!(q.count(&world), 1);
    let text: String = q.to_dsl(); // String, parses back to the same query
    assert_eq!(world.query_dsl(&text)?.terms(), q.terms());
    Ok(())
}

#[test]
fn the_transitive_and_gc_lines() {
    let mut world = World::new();
    let earth = world.spawn_empty().id();
    let b = world.spawn_empty().add_pair::<LocatedIn>(earth).id();
    let a = world.spawn_empty().add_pair::<LocatedIn>(b).id();
    let located = world.register_component::<LocatedIn>();
    let mut q = world.query_builder().pair(located, earth).build().unwrap();
    let mut found: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    found.sort();
    assert_eq!(found, [b, a]); // a in b, b in Earth

    let temporary = world.spawn((Position { x: 0.0 }, Enemy)).id();
    world.despawn(temporary);
    let mut deleted = 0;
    for _ in 0..3 {
        let n: usize = world.collect_garbage(GcConfig { empty_for: 3, max_time: None }); // archetypes deleted (empty for 3 calls)
        deleted += n;
    }
    assert!(deleted >= 1, "the (Position, Enemy) archetype was empty for 3 calls");
    world.check_invariants();
}

/// API.md: "Everything is reachable through `use ecs::prelude::*;`", the
/// runtime query types included (`QueryBuilder`, `DynQuery`,
/// `QueryBuildError`, `DynRow`, `Id`).
mod through_the_prelude_alone {
    use ecs::prelude::*;

    #[derive(Component)]
    struct Mass(u32);

    #[test]
    fn runtime_query_types_are_in_the_prelude() {
        let mut world = World::new();
        let mass = world.register_component::<Mass>();
        let e = world.spawn(Mass(3)).id();
        let builder: QueryBuilder = world.query_builder().read(mass);
        let built: Result<DynQuery, QueryBuildError> = builder.build();
        let mut q = built.unwrap();
        let rows: Vec<(Entity, u32, Id)> =
            q.iter(&world).map(|row: DynRow<'_>| (row.entity(), row.get::<Mass>(0).unwrap().0, row.id(0))).collect();
        assert_eq!(rows, vec![(e, 3, mass.id())]);
        q.iter_mut(&mut world).for_each(|mut row: DynRowMut<'_>| {
            assert!(row.get_mut::<Mass>(0).is_none(), "term 0 is read-only");
        });
    }
}
