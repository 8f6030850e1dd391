//! Runtime queries (`world.query_builder()`, `DynQuery`): every term kind
//! (read, write, with, without, optional, or-chains, pairs with `*`/`_` in
//! either half, `up`/`self|up`, fixed sources), variables joining entities,
//! transitive relationships, cached and uncached builds, build errors, typed
//! row access checked at run time, and the scheduler-facing access.

use std::collections::BTreeSet;

use ecs::entity::Id;
use ecs::query::{DynGetError, QueryAccess, QueryBuildError, Term, TermMatch, TermRef};
use ecs_tests::{Enemy, Position, Velocity};

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Shield(u32);

#[derive(Relationship, Debug)]
struct Likes;

#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32);

#[derive(Relationship)]
#[relationship(transitive)]
struct LocatedIn;

#[derive(Component)]
struct SpaceShip;
#[derive(Component)]
struct Planet;
#[derive(Relationship)]
#[relationship(exclusive)]
struct DockedTo;
#[derive(Relationship)]
#[relationship(exclusive)]
struct RuledBy;
#[derive(Relationship)]
struct AlliedWith;

fn entities(rows: impl Iterator<Item = Entity>) -> BTreeSet<Entity> {
    rows.collect()
}

fn both(builder: impl Fn(&mut World) -> ecs::query::QueryBuilder, world: &mut World) -> [ecs::query::DynQuery; 2] {
    [builder(world).build().unwrap(), builder(world).build_uncached().unwrap()]
}

#[test]
fn read_write_with_without_optional() {
    let mut world = World::new();
    let a = world.spawn((Position { x: 1.0, y: 0.0 }, Velocity { x: 1.0, y: 1.0 })).id();
    let b = world.spawn((Position { x: 2.0, y: 0.0 }, Velocity { x: 2.0, y: 2.0 }, Health(5))).id();
    world.spawn((Position { x: 3.0, y: 0.0 }, Velocity { x: 3.0, y: 3.0 }, Enemy));
    world.spawn(Position { x: 4.0, y: 0.0 });
    let pos = world.register_component::<Position>();
    let vel = world.register_component::<Velocity>();
    let enemy = world.register_component::<Enemy>();
    let health = world.register_component::<Health>();
    for mut q in both(|w| w.query_builder().write(pos).read(vel).without(enemy).optional(health), &mut world) {
        let rows: Vec<_> = q
            .iter(&world)
            .map(|row| {
                (row.entity(), row.get::<Position>(0).unwrap().x, row.is_set(3), row.get::<Health>(3).map(|h| h.0))
            })
            .collect();
        assert_eq!(rows.len(), 2);
        assert!(rows.contains(&(a, 1.0, false, None)));
        assert!(rows.contains(&(b, 2.0, true, Some(5))));
    }
    let mut q = world.query_builder().write(pos).read(vel).without(enemy).build().unwrap();
    q.iter_mut(&mut world).for_each(|mut row| {
        let v = *row.get::<Velocity>(1).unwrap();
        let mut p = row.get_mut::<Position>(0).unwrap();
        p.x += v.x;
    });
    assert_eq!(world.get::<Position>(a).unwrap().x, 2.0);
    assert_eq!(world.get::<Position>(b).unwrap().x, 4.0);
    // With: a filter, no data.
    let mut q = world.query_builder().with(health).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert_eq!(row.try_get::<Health>(0), Err(DynGetError::NoData(0)));
}

#[test]
fn typed_access_is_checked() {
    let mut world = World::new();
    world.spawn((Position::default(), Health(1)));
    let pos = world.register_component::<Position>();
    let mut q = world.query_builder().read(pos).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert!(row.get::<Health>(0).is_none());
    assert!(matches!(row.try_get::<Health>(0), Err(DynGetError::TypeMismatch { term: 0, .. })));
    assert_eq!(row.try_get::<Position>(7).unwrap_err(), DynGetError::NoSuchTerm(7));
    drop(q);
    // get_mut on a read term is refused.
    let mut q = world.query_builder().read(pos).build().unwrap();
    q.iter_mut(&mut world).for_each(|mut row| {
        assert_eq!(row.try_get_mut::<Position>(0).unwrap_err(), DynGetError::NotWritable(0));
    });
}

/// Two types of one name and layout in different modules, and a hand-written
/// impl without a `TypeKey` (checked by `TypeId`): each row hands out only
/// its term's own type, through `get`, `get_mut` and the lending rows.
#[test]
fn row_access_tells_same_shaped_types_apart() {
    mod a {
        #[derive(ecs::prelude::Component, Debug, PartialEq)]
        pub struct Mass(pub f32);
    }
    mod b {
        #[derive(ecs::prelude::Component, Debug, PartialEq)]
        pub struct Mass(pub f32);
    }
    #[derive(Debug, PartialEq)]
    struct Unkeyed(f32);
    impl Component for Unkeyed {
        const NAME: &'static str = "Unkeyed";
        const ID: u64 = 0x5eed;
    }
    assert!(<a::Mass as Component>::TYPE_KEY.is_some() && <Unkeyed as Component>::TYPE_KEY.is_none());
    assert_ne!(ecs::component::type_key_address::<a::Mass>(), ecs::component::type_key_address::<b::Mass>());

    let mut world = World::new();
    let e = world.spawn((a::Mass(1.0), b::Mass(2.0), Unkeyed(3.0))).id();
    let ids = [
        world.register_component::<a::Mass>(),
        world.register_component::<b::Mass>(),
        world.register_component::<Unkeyed>(),
    ];
    let mut q = world.query_builder().write(ids[0]).read(ids[1]).write(ids[2]).build().unwrap();
    for row in q.iter(&world) {
        assert_eq!(row.get::<a::Mass>(0), Some(&a::Mass(1.0)));
        assert_eq!(row.get::<b::Mass>(0), None);
        assert_eq!(row.get::<b::Mass>(1), Some(&b::Mass(2.0)));
        assert_eq!(row.get::<a::Mass>(1), None);
        assert_eq!(row.get::<Unkeyed>(2), Some(&Unkeyed(3.0)));
        assert_eq!(row.get::<a::Mass>(2), None);
    }
    q.iter_mut(&mut world).for_each(|mut row| {
        assert!(row.get_mut::<b::Mass>(0).is_none());
        row.get_mut::<a::Mass>(0).unwrap().0 += 10.0;
        assert!(row.get_mut::<a::Mass>(2).is_none());
        row.get_mut::<Unkeyed>(2).unwrap().0 += 10.0;
        assert_eq!(row.get::<b::Mass>(1), Some(&b::Mass(2.0)));
    });
    {
        let mut rows = q.iter_mut(&mut world);
        while let Some(mut row) = rows.fetch_next() {
            assert!(row.get_mut::<Unkeyed>(0).is_none());
            row.get_mut::<a::Mass>(0).unwrap().0 += 100.0;
        }
    }
    assert_eq!(world.get::<a::Mass>(e), Some(&a::Mass(111.0)));
    assert_eq!(world.get::<b::Mass>(e), Some(&b::Mass(2.0)));
    assert_eq!(world.get::<Unkeyed>(e), Some(&Unkeyed(13.0)));
}

#[test]
fn writes_mark_changes() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let health = world.register_component::<Health>();
    let mut changed = world.query_filtered::<Entity, Changed<Health>>();
    assert_eq!(changed.iter(&world).count(), 1);
    assert_eq!(changed.iter(&world).count(), 0);
    let mut q = world.query_builder().write(health).build().unwrap();
    q.iter_mut(&mut world).for_each(|mut row| row.get_mut::<Health>(0).unwrap().0 += 1);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn sparse_terms_are_checked_per_row() {
    let mut world = World::new();
    let a = world.spawn((Health(1), Shield(3))).id();
    let b = world.spawn(Health(2)).id();
    let (health, shield) = (world.register_component::<Health>(), world.register_component::<Shield>());
    for mut q in both(|w| w.query_builder().read(health).read(shield), &mut world) {
        let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.get::<Shield>(1).map(|s| s.0))).collect();
        assert_eq!(rows, [(a, Some(3))]);
    }
    for mut q in both(|w| w.query_builder().read(health).without(shield), &mut world) {
        assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [b].into());
    }
    for mut q in both(|w| w.query_builder().read(health).optional(shield), &mut world) {
        let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.is_set(1))).collect();
        assert_eq!(rows, [(a, true), (b, false)].into());
    }
    let mut q = world.query_builder().write(shield).build().unwrap();
    q.iter_mut(&mut world).for_each(|mut row| row.get_mut::<Shield>(0).unwrap().0 = 9);
    assert_eq!(world.get::<Shield>(a), Some(&Shield(9)));
}

#[test]
fn or_chains_are_one_term() {
    let mut world = World::new();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Enemy).id();
    let c = world.spawn((Health(1), Enemy)).id();
    world.spawn(Position::default());
    let (health, enemy) = (world.register_component::<Health>(), world.register_component::<Enemy>());
    for mut q in both(|w| w.query_builder().with(health).or(enemy), &mut world) {
        let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.id(0))).collect();
        assert_eq!(rows.len(), 3, "one row per entity: the first alternative that matches");
        assert!(
            rows.contains(&(a, health.id())) && rows.contains(&(b, enemy.id())) && rows.contains(&(c, health.id()))
        );
    }
}

#[test]
fn pairs_with_wildcards() {
    let mut world = World::new();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let alice = world.spawn_empty().id();
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    world.entity_mut(bob).insert(Eats(3).pair(carol));
    let (likes, eats) = (world.register_component::<Likes>(), world.register_component::<Eats>());
    for mut q in both(|w| w.query_builder().pair(likes, Entity::WILDCARD), &mut world) {
        let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.pair_target(0))).collect();
        assert_eq!(rows, [(alice, bob), (alice, carol)].into());
    }
    for mut q in both(|w| w.query_builder().pair(likes, Entity::ANY), &mut world) {
        assert_eq!(q.iter(&world).count(), 1, "`_` yields one row per entity");
    }
    for mut q in both(|w| w.query_builder().pair(Entity::WILDCARD, carol), &mut world) {
        let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.id(0))).collect();
        assert_eq!(rows, [(alice, Id::pair(likes, carol)), (bob, Id::pair(eats, carol))].into());
    }
    for mut q in both(|w| w.query_builder().pair(Entity::WILDCARD, Entity::WILDCARD), &mut world) {
        assert_eq!(q.iter(&world).filter(|row| row.this() == Some(alice) || row.this() == Some(bob)).count(), 3);
    }
    let mut q = world.query_builder().pair(eats, Entity::WILDCARD).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert_eq!((row.entity(), row.get::<Eats>(0)), (bob, Some(&Eats(3))));
}

#[test]
fn up_and_self_up_traversal() {
    let mut world = World::new();
    let root = world.spawn(Health(10)).id();
    let mid = world.spawn(ChildOf.pair(root)).id();
    let leaf = world.spawn((ChildOf.pair(mid), Health(1))).id();
    let (health, child_of) = (world.register_component::<Health>(), world.register_component::<ChildOf>());
    for mut q in both(|w| w.query_builder().read(health).up(child_of), &mut world) {
        let rows: BTreeSet<_> =
            q.iter(&world).map(|row| (row.entity(), row.source(0), row.get::<Health>(0).unwrap().0)).collect();
        assert_eq!(rows, [(mid, root, 10), (leaf, root, 10)].into());
    }
    for mut q in both(|w| w.query_builder().read(health).self_up(child_of), &mut world) {
        let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.source(0))).collect();
        assert_eq!(rows, [(root, root), (mid, root), (leaf, leaf)].into());
    }
    // The ancestor changes: queries see it without new archetypes.
    world.get_mut::<Health>(root).unwrap().0 = 11;
    let mut q = world.query_builder().read(health).up(child_of).build().unwrap();
    assert!(q.iter(&world).all(|row| row.get::<Health>(0) == Some(&Health(11))));
}

#[test]
fn fixed_sources() {
    let mut world = World::new();
    let config = world.spawn(Health(7)).id();
    let a = world.spawn(Position::default()).id();
    let (health, pos) = (world.register_component::<Health>(), world.register_component::<Position>());
    for mut q in both(|w| w.query_builder().read(pos).read(health).source(config), &mut world) {
        let rows: Vec<_> =
            q.iter(&world).map(|row| (row.entity(), row.source(1), row.get::<Health>(1).unwrap().0)).collect();
        assert_eq!(rows, [(a, config, 7)]);
    }
    world.remove::<Health>(config);
    let mut q = world.query_builder().read(pos).read(health).source(config).build().unwrap();
    assert_eq!(q.iter(&world).count(), 0, "the fixed source lost its component");
    // A fixed-source term alone: one row per solution, no `$this`.
    let mut q = world.query_builder().read(pos).source(a).build().unwrap();
    let rows: Vec<_> = q.iter(&world).map(|row| (row.this(), row.source(0))).collect();
    assert_eq!(rows, [(None, a)]);
}

#[test]
fn variables_join_entities() {
    let mut world = World::new();
    let (ship, planet, faction, allied) = (
        world.register_component::<SpaceShip>(),
        world.register_component::<Planet>(),
        world.register_component::<RuledBy>(),
        world.register_component::<AlliedWith>(),
    );
    let docked = world.register_component::<DockedTo>();
    let empire = world.spawn_empty().id();
    let rebels = world.spawn_empty().id();
    let earth = world.spawn(Planet).id();
    world.entity_mut(earth).add_pair::<RuledBy>(empire);
    let mars = world.spawn(Planet).id();
    world.entity_mut(mars).add_pair::<RuledBy>(rebels);
    let moon = world.spawn_empty().id(); // not a planet
    let s1 = world.spawn(SpaceShip).id();
    world.entity_mut(s1).add_pair::<DockedTo>(earth);
    let s2 = world.spawn(SpaceShip).id();
    world.entity_mut(s2).add_pair::<DockedTo>(mars);
    let s3 = world.spawn(SpaceShip).id();
    world.entity_mut(s3).add_pair::<DockedTo>(moon);
    let ally = world.spawn_empty().id();
    world.entity_mut(ally).add_pair::<AlliedWith>(empire);
    // SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction), (AlliedWith, $faction)($ally)
    let build = |w: &mut World, cached: bool| {
        let b = w
            .query_builder()
            .with(ship)
            .pair_var(docked, "planet")
            .with(planet)
            .source_var("planet")
            .term(
                Term::new(TermMatch::pair(TermRef::Entity(faction), TermRef::Var("faction".into())))
                    .with_source(TermRef::Var("planet".into())),
            )
            .term(
                Term::new(TermMatch::pair(TermRef::Entity(allied), TermRef::Var("faction".into())))
                    .with_source(TermRef::Var("ally".into())),
            );
        if cached { b.build().unwrap() } else { b.build_uncached().unwrap() }
    };
    for cached in [true, false] {
        let mut q = build(&mut world, cached);
        let rows: Vec<_> =
            q.iter(&world).map(|row| (row.entity(), row.var("planet"), row.var("$faction"), row.var("ally"))).collect();
        assert_eq!(rows, [(s1, Some(earth), Some(empire), Some(ally))]);
        assert_eq!(q.variables(), ["planet", "faction", "ally"]);
    }
    // Without the ally term: both ships at planets.
    let mut q =
        world.query_builder().with(ship).pair_var(docked, "planet").with(planet).source_var("planet").build().unwrap();
    let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.var("planet").unwrap())).collect();
    assert_eq!(rows, [(s1, earth), (s2, mars)].into());
}

#[test]
fn a_variable_only_in_not_terms_is_unbound() {
    let mut world = World::new();
    let likes = world.register_component::<Likes>();
    let pos = world.register_component::<Position>();
    let error = world
        .query_builder()
        .read(pos)
        .term(
            Term::new(TermMatch::pair(TermRef::Entity(likes), TermRef::Var("x".into())))
                .with_source(TermRef::Var("y".into()))
                .with_oper(ecs::query::TermOper::Not),
        )
        .build()
        .unwrap_err();
    assert!(matches!(error, QueryBuildError::UnboundVariable { term: 1, .. }), "{error}");
}

#[test]
fn transitive_relationships_match_chains() {
    let mut world = World::new();
    let earth = world.spawn_empty().id();
    let country = world.spawn_empty().id();
    world.entity_mut(country).add_pair::<LocatedIn>(earth);
    let city = world.spawn_empty().id();
    world.entity_mut(city).add_pair::<LocatedIn>(country);
    let district = world.spawn_empty().id();
    world.entity_mut(district).add_pair::<LocatedIn>(city);
    let person = world.spawn(Health(1)).id();
    world.entity_mut(person).add_pair::<LocatedIn>(district);
    let moon = world.spawn_empty().id();
    let astronaut = world.spawn(Health(1)).id();
    world.entity_mut(astronaut).add_pair::<LocatedIn>(moon);
    let located = world.register_component::<LocatedIn>();
    for mut q in both(|w| w.query_builder().pair(located, earth), &mut world) {
        assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [country, city, district, person].into());
    }
    let health = world.register_component::<Health>();
    for mut q in both(|w| w.query_builder().with(health).pair(located, city), &mut world) {
        let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.id(1))).collect();
        assert_eq!(rows, [(person, Id::pair(located, city))]);
    }
    // A variable target enumerates every place reached.
    for mut q in both(|w| w.query_builder().with(health).pair_var(located, "place"), &mut world) {
        let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.var("place").unwrap())).collect();
        assert_eq!(
            rows,
            [(person, district), (person, city), (person, country), (person, earth), (astronaut, moon)].into()
        );
    }
    // A wildcard target is not transitive: direct targets only.
    let mut q = world.query_builder().with(health).pair(located, Entity::WILDCARD).build().unwrap();
    assert_eq!(q.iter(&world).count(), 2);
    // Moving the chain is seen by the cached query (no new archetype for `person`).
    let mut q = world.query_builder().with(health).pair(located, earth).build().unwrap();
    assert_eq!(q.iter(&world).count(), 1);
    world.entity_mut(country).remove_pair::<LocatedIn>(earth);
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn transitive_cycles_end() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(a).add_pair::<LocatedIn>(b);
    world.entity_mut(b).add_pair::<LocatedIn>(a);
    let target = world.spawn_empty().id();
    let located = world.register_component::<LocatedIn>();
    let mut q = world.query_builder().pair(located, target).build_uncached().unwrap();
    assert_eq!(q.iter(&world).count(), 0);
    let mut q = world.query_builder().pair_var(located, "x").build_uncached().unwrap();
    assert_eq!(q.iter(&world).count(), 4, "a reaches b and itself, b reaches a and itself");
}

#[test]
fn build_errors() {
    let mut world = World::new();
    let pos = world.register_component::<Position>();
    let likes = world.register_component::<Likes>();
    let child_of = world.register_component::<ChildOf>();
    let e = world.spawn_empty().id();
    assert_eq!(world.query_builder().build().unwrap_err(), QueryBuildError::Empty);
    let error = world.query_builder().write(pos).read(pos).build_in(&world).unwrap_err();
    assert!(matches!(error, QueryBuildError::Aliasing { writer: 0, other: 1, .. }));
    assert!(error.to_string().contains("Position"), "{error}");
    // A wildcard read may match the written pair.
    let error = world
        .query_builder()
        .term(
            Term::new(TermMatch::pair(TermRef::Entity(likes), TermRef::Entity(e)))
                .with_access(ecs::query::TermAccess::InOut),
        )
        .pair(likes, Entity::WILDCARD)
        .build()
        .unwrap_err();
    assert!(matches!(error, QueryBuildError::Aliasing { .. }));
    assert_eq!(
        world.query_builder().write(pos).source(e).build().unwrap_err(),
        QueryBuildError::WriteNotOnThis { term: 0 }
    );
    assert_eq!(
        world.query_builder().write(pos).up(child_of).build().unwrap_err(),
        QueryBuildError::WriteNotOnThis { term: 0 }
    );
    // A wildcard component may be read (whichever id it matches), not written.
    let error = world.query_builder().write(Entity::WILDCARD).build().unwrap_err();
    assert!(matches!(error, QueryBuildError::InvalidTerm { term: 0, .. }), "{error}");
    assert!(world.query_builder().read(Entity::WILDCARD).build().is_ok());
    // Two writes of different components are fine.
    let vel = world.register_component::<Velocity>();
    assert!(world.query_builder().write(pos).write(vel).build().is_ok());
}

#[test]
fn cached_queries_see_new_archetypes_and_skip_empty_tables() {
    let mut world = World::new();
    let health = world.register_component::<Health>();
    let mut q = world.query_builder().read(health).build().unwrap();
    assert_eq!(q.count(&world), 0);
    let a = world.spawn(Health(1)).id();
    world.spawn((Health(2), Position::default()));
    assert_eq!(q.count(&world), 2);
    world.despawn(a);
    assert_eq!(q.count(&world), 1);
    world.spawn(Health(3)).insert(Velocity::default());
    assert_eq!(q.count(&world), 2);
}

#[test]
fn internal_entities_are_hidden_unless_named() {
    let mut world = World::new();
    let name = world.register_component::<Name>();
    let before = world.query::<&Name>().iter(&world).count();
    let mut q = world.query_builder().read(name).build_uncached().unwrap();
    assert_eq!(q.count(&world), before);
    let mut all = world.query_builder().with(Entity::WILDCARD).access(ecs::query::TermAccess::None).build().unwrap();
    let user = world.spawn(Health(1)).id();
    assert_eq!(entities(all.iter(&world).map(|r| r.entity())), [user].into());
}

#[test]
fn access_for_the_scheduler() {
    let mut world = World::new();
    let (pos, vel, enemy) = (
        world.register_component::<Position>(),
        world.register_component::<Velocity>(),
        world.register_component::<Enemy>(),
    );
    let child_of = world.register_component::<ChildOf>();
    let q = world.query_builder().write(pos).read(vel).up(child_of).without(enemy).build().unwrap();
    let mut access = QueryAccess::default();
    q.update_access(&mut access);
    assert_eq!(access.writes(), &[pos]);
    assert_eq!(access.reads_other(), &[vel]);
    // A typed writer of Velocity restricted to enemies still conflicts: the
    // ancestor read is not covered by `!Enemy`.
    let mut writer = QueryAccess::default();
    writer.add_write(vel);
    writer.add_with(enemy);
    assert!(access.is_disjoint(&writer));
    assert_eq!(access.conflict_with(&writer), Some(vel));
}

/// Every runtime term that reads data of another entity (a sparse value
/// found `self|up` on an ancestor, a fixed source, a variable source, a pair
/// bound through `$this` in an id) is a read of that component on any
/// entity: no filter of the row makes it disjoint from a writer.
#[test]
fn terms_reading_other_entities_are_reads_of_any_entity() {
    let mut world = World::new();
    let shield = world.register_component::<Shield>();
    let health = world.register_component::<Health>();
    let enemy = world.register_component::<Enemy>();
    world.register_component::<Likes>();
    let boss = world.spawn((Name::new("boss"), Health(9))).id();
    world.add_pair::<Likes>(boss, boss);
    for (dsl, read) in [
        ("Enemy, Shield(self|up ChildOf)", shield),
        ("Enemy, Health(boss)", health),
        ("Enemy, (ChildOf, $p), Health($p)", health),
        ("Likes(boss, $this), Health(boss)", health),
    ] {
        let q = world.query_dsl(dsl).unwrap();
        let mut access = QueryAccess::default();
        q.update_access(&mut access);
        assert!(access.reads_other().contains(&read), "{dsl}: {:?}", access.reads_other());
        // A writer restricted to what the rows exclude still conflicts.
        let mut writer = QueryAccess::default();
        writer.add_write(read);
        writer.add_without(enemy);
        assert_eq!(access.conflict_with(&writer), Some(read), "{dsl}");
    }
}

#[test]
fn a_query_is_bound_to_its_first_world() {
    let mut world = World::new();
    let pos = world.register_component::<Position>();
    let mut q = world.query_builder().read(pos).build().unwrap();
    q.count(&world);
    let mut other = World::new();
    let message = ecs_tests::panic_message(|| q.count(&other));
    assert!(message.contains("other than"), "{message}");
    other.spawn_empty();
}

#[test]
fn dsl_queries_run() {
    let mut world = World::new();
    world.register_component::<SpaceShip>();
    world.register_component::<Planet>();
    world.register_component::<DockedTo>();
    world.register_component::<RuledBy>();
    world.register_component::<AlliedWith>();
    let empire = world.spawn(Name::new("Empire")).id();
    let earth = world.spawn((Planet, Name::new("Earth"))).id();
    world.entity_mut(earth).add_pair::<RuledBy>(empire);
    let ship = world.spawn(SpaceShip).id();
    world.entity_mut(ship).add_pair::<DockedTo>(earth);
    let lonely = world.spawn(SpaceShip).id();
    let ally = world.spawn_empty().id();
    world.entity_mut(ally).add_pair::<AlliedWith>(empire);

    let text = "SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction)";
    let mut q = world.query_dsl(text).unwrap();
    let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.var("planet"), row.var("faction"))).collect();
    assert_eq!(rows, [(ship, Some(earth), Some(empire))]);
    assert_eq!(world.query_dsl(&q.to_dsl()).unwrap().terms(), q.terms());

    let mut q = world
        .query_dsl("SpaceShip, (DockedTo, $planet), RuledBy($planet, $faction), AlliedWith($ally, $faction)")
        .unwrap();
    let rows: Vec<_> = q.iter(&world).map(|row| (row.entity(), row.var("ally"))).collect();
    assert_eq!(rows, [(ship, Some(ally))]);

    // Named targets and optional terms.
    let mut q = world.query_dsl("SpaceShip, ?(DockedTo, Earth)").unwrap();
    let rows: BTreeSet<_> = q.iter(&world).map(|row| (row.entity(), row.is_set(1))).collect();
    assert_eq!(rows, [(ship, true), (lonely, false)].into());

    // A query with no `$this`: one row per solution.
    let mut q = world.query_dsl("RuledBy(Earth, $who)").unwrap();
    let rows: Vec<_> = q.iter(&world).map(|row| (row.this(), row.var("who"))).collect();
    assert_eq!(rows, [(None, Some(empire))]);

    // `$c($this)`: every component of the row, one row each.
    let mut q = world.query_dsl("SpaceShip, $c($this)").unwrap();
    let of_ship: Vec<_> =
        q.iter(&world).filter(|row| row.entity() == lonely).map(|row| row.var("c").unwrap()).collect();
    assert_eq!(of_ship, [world.component_id::<SpaceShip>().unwrap()]);
}

#[test]
fn dsl_build_errors_point_at_the_term() {
    let mut world = World::new();
    world.register_component::<Position>();
    let error = world.query_dsl("Position, [inout] Position").unwrap_err();
    assert_eq!(error.offset, 10, "{error}");
    assert!(error.message.contains("Position"), "{error}");
    let error = world.query_dsl("Position, [out] Position(up)").unwrap_err();
    assert_eq!(error.offset, 10, "{error}");
}

mod systems {
    use super::*;
    use ecs::query::DynQuery;
    use ecs::system::{RuntimeQuery, RuntimeQuerySpec};

    struct Movers;
    impl RuntimeQuerySpec for Movers {
        fn build(world: &mut World) -> DynQuery {
            world.register_component::<Position>();
            world.register_component::<Velocity>();
            world.query_dsl("[inout] Position, Velocity").unwrap()
        }
    }

    struct ParentHealth;
    impl RuntimeQuerySpec for ParentHealth {
        fn build(world: &mut World) -> DynQuery {
            world.register_component::<Health>();
            world.query_dsl("Health(up ChildOf)").unwrap()
        }
    }

    fn integrate(mut movers: RuntimeQuery<Movers>) {
        movers.iter_mut().for_each(|mut row| {
            let v = *row.get::<Velocity>(1).unwrap();
            row.get_mut::<Position>(0).unwrap().x += v.x;
        });
    }

    #[test]
    fn runtime_queries_in_systems() {
        let mut world = World::new();
        let e = world.spawn((Position::default(), Velocity { x: 2.0, y: 0.0 })).id();
        let mut schedule = Schedule::default();
        schedule.add_systems(integrate);
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.get::<Position>(e).unwrap().x, 4.0);
    }

    #[test]
    fn a_runtime_query_conflicting_with_another_param_panics_at_initialization() {
        fn both(_movers: RuntimeQuery<Movers>, _positions: Query<&Position>) {}
        let mut world = World::new();
        let message = ecs_tests::panic_message(|| world.run_system_once(both));
        assert!(message.contains("conflict") && message.contains("Position"), "{message}");
    }

    #[test]
    fn the_scheduler_orders_runtime_queries_by_their_access() {
        fn reads_parents(_q: RuntimeQuery<ParentHealth>) {}
        fn writes_enemy_health(_q: Query<&mut Health, With<Enemy>>) {}
        fn writes_positions(_q: Query<&mut Position>) {}
        let mut world = World::new();
        let mut schedule = Schedule::default();
        schedule.add_systems((reads_parents, writes_enemy_health, writes_positions));
        schedule.initialize(&mut world).unwrap();
        let ambiguities = schedule.ambiguities();
        let text = format!("{ambiguities:?}");
        assert!(text.contains("reads_parents") && text.contains("writes_enemy_health"), "{text}");
        assert!(!text.contains("writes_positions"), "{text}");
    }
}

#[test]
fn runtime_relationships_with_the_transitive_trait() {
    let mut world = World::new();
    let part_of = world.spawn(Name::new("PartOf")).id();
    world.set_relationship_traits(part_of, ecs::component::RelationshipTraits::DEFAULT.transitive());
    let [car, engine, piston, bolt] = [(); 4].map(|()| world.spawn_empty().id());
    for (part, whole) in [(engine, car), (piston, engine), (bolt, piston)] {
        world.add_id(part, Id::pair(part_of, whole));
    }
    for mut q in both(|w| w.query_builder().pair(part_of, car), &mut world) {
        assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [engine, piston, bolt].into());
    }
    let mut q = world.query_dsl("(PartOf, $whole)").unwrap();
    let of_bolt: BTreeSet<_> =
        q.iter(&world).filter(|row| row.entity() == bolt).map(|row| row.var("whole").unwrap()).collect();
    assert_eq!(of_bolt, [piston, engine, car].into());
}

#[test]
fn cached_runtime_queries_survive_garbage_collection() {
    use ecs::world::GcConfig;
    let mut world = World::new();
    let health = world.register_component::<Health>();
    let mut cached = world.query_builder().read(health).build().unwrap();
    let temporary: Vec<Entity> = (0..20u32)
        .map(|i| {
            let mut e = world.spawn(Health(i));
            if i % 2 == 0 {
                e.insert(Position::default());
            }
            if i % 3 == 0 {
                e.insert(Velocity::default());
            }
            e.id()
        })
        .collect();
    assert_eq!(cached.count(&world), 20);
    for e in temporary {
        world.despawn(e);
    }
    let mut deleted = 0;
    for _ in 0..3 {
        deleted += world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
    }
    assert!(deleted >= 4, "{deleted}");
    assert_eq!(cached.count(&world), 0);
    // New archetypes reuse the freed slots: the cache rematches.
    world.spawn((Health(1), Enemy));
    world.spawn((Health(2), Velocity::default(), Enemy));
    world.spawn(Enemy);
    assert_eq!(cached.count(&world), 2);
    let mut fresh = world.query_builder().read(health).build_uncached().unwrap();
    assert_eq!(fresh.count(&world), 2);
    world.check_invariants();
}

#[test]
fn table_iteration() {
    let mut world = World::new();
    let config = world.spawn(Health(100)).id();
    let a = world.spawn((Position { x: 1.0, y: 0.0 }, Velocity { x: 1.0, y: 0.0 })).id();
    let b = world.spawn((Position { x: 2.0, y: 0.0 }, Velocity { x: 2.0, y: 0.0 }, Shield(1))).id();
    let (pos, vel, health, shield) = (
        world.register_component::<Position>(),
        world.register_component::<Velocity>(),
        world.register_component::<Health>(),
        world.register_component::<Shield>(),
    );
    let mut q = world.query_builder().write(pos).read(vel).read(health).source(config).build().unwrap();
    let mut seen = 0;
    for table in q.iter_tables(&world) {
        assert!(table.is_dense());
        assert_eq!(table.shared::<Health>(2), Some(&Health(100)));
        assert_eq!(table.source(2), Some(config));
        assert!(table.field::<Health>(2).is_none(), "a value of another entity is no column");
        assert!(table.field::<Velocity>(0).is_none(), "type checked");
        seen += table.field::<Position>(0).unwrap().len();
    }
    assert_eq!(seen, 2);
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    changed.iter(&world).for_each(drop);
    q.iter_tables_mut(&mut world).for_each(|table| {
        let velocities = table.field::<Velocity>(1).unwrap();
        assert!(table.field_mut::<Velocity>(1).is_none(), "not a write term");
        let positions = table.field_mut::<Position>(0).unwrap();
        assert!(table.field_mut::<Position>(0).is_none(), "lent once");
        assert!(table.field::<Position>(0).is_none(), "not while lent mutably");
        for (position, velocity) in positions.iter_mut().zip(velocities) {
            position.x += velocity.x;
        }
    });
    assert_eq!(world.get::<Position>(a).unwrap().x, 2.0);
    assert_eq!(world.get::<Position>(b).unwrap().x, 4.0);
    assert_eq!(entities(changed.iter(&world)), [a, b].into());
    // Sparse `$this` terms make a table not dense.
    let mut q = world.query_builder().read(pos).read(shield).build().unwrap();
    for table in q.iter_tables(&world) {
        assert!(!table.is_dense());
        let matching: Vec<Entity> =
            (0..table.len()).filter(|&row| table.row_matches(row)).map(|row| table.entities()[row]).collect();
        assert_eq!(matching, [b]);
    }
}

#[test]
fn the_cache_keeps_tables_with_rows_apart_across_many_changes() {
    let mut world = World::new();
    let health = world.register_component::<Health>();
    let mut q = world.query_builder().read(health).build().unwrap();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn((Health(2), Enemy)).id();
    assert_eq!(q.count(&world), 2);
    // Empty and refill tables between iterations, a few times and then more
    // times than the world's change log remembers.
    for rounds in [1, 3, 5000] {
        for _ in 0..rounds {
            world.entity_mut(a).insert(Enemy);
            world.entity_mut(a).remove::<Enemy>();
        }
        assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [a, b].into());
        world.entity_mut(b).remove::<Enemy>();
        assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [a, b].into());
        world.entity_mut(b).insert(Enemy);
    }
    world.despawn(a);
    assert_eq!(entities(q.iter(&world).map(|r| r.entity())), [b].into());
}

#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(u32);

#[derive(Component, Debug, PartialEq, Default)]
struct Marker;

/// `row.get`/`row.get_mut` decide where a value is once per table (the row
/// path makes no call); they must agree with the checked `try_get` for every
/// place a value can be: a column, a toggleable column of an optional term, a
/// sparse set, a fixed source, an ancestor, a zero-sized value, an absent
/// optional term, a filter, and a type that is not the term's.
#[test]
fn the_row_fast_path_agrees_with_the_checked_path() {
    let mut world = World::new();
    let root = world.spawn(Health(100)).id();
    world.spawn((Health(7), Name::new("station")));
    for i in 0..40u32 {
        let mut entity = world.spawn((Position { x: i as f32, y: 0.0 }, Marker));
        if i % 2 == 0 {
            entity.insert(Shield(i));
        }
        if i % 3 == 0 {
            entity.insert(Thrust(i));
        }
        if i % 5 == 0 {
            entity.insert(Enemy);
        }
        let id = entity.add_pair::<ChildOf>(root).id();
        if i % 3 == 0 && i % 2 == 1 {
            world.entity_mut(id).disable::<Thrust>();
        }
    }
    let mut query = world
        .query_dsl("[inout] Position, ?Shield, ?Thrust, Health(station), Health(up ChildOf), Marker, !Enemy")
        .unwrap();
    fn check<T: Component>(row: &ecs::query::DynRow<'_>, term: usize) {
        let (fast, checked) = (row.get::<T>(term), row.try_get::<T>(term).ok());
        assert_eq!(fast.map(|v| v as *const T), checked.map(|v| v as *const T), "term {term} of {:?}", row.entity());
    }
    let mut seen = 0;
    for row in query.iter(&world) {
        seen += 1;
        for term in 0..8 {
            check::<Position>(&row, term);
            check::<Shield>(&row, term);
            check::<Thrust>(&row, term);
            check::<Health>(&row, term);
            check::<Marker>(&row, term);
            check::<Enemy>(&row, term);
        }
        let i = row.get::<Position>(0).unwrap().x as u32;
        assert_eq!(row.get::<Shield>(1), i.is_multiple_of(2).then_some(&Shield(i)));
        let enabled = i.is_multiple_of(6);
        assert_eq!(row.get::<Thrust>(2), enabled.then_some(&Thrust(i)));
        assert_eq!(row.get::<Health>(3), Some(&Health(7)));
        assert_eq!(row.get::<Health>(4), Some(&Health(100)));
        assert_eq!(row.get::<Marker>(5), Some(&Marker));
        assert!(row.get::<Enemy>(6).is_none());
        assert_eq!(row.get::<Position>(8), None);
    }
    assert_eq!(seen, 32);
    // Writes: only the write term, only with its type; ticks are stamped.
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    changed.iter(&world).count();
    query.iter_mut(&mut world).for_each(|mut row| {
        assert!(row.get_mut::<Health>(3).is_none() && row.get_mut::<Shield>(1).is_none());
        assert!(row.get_mut::<Shield>(0).is_none());
        // Read terms in columns with ticks are never handed out mutably.
        assert!(row.get_mut::<Marker>(5).is_none() && row.get_mut::<Position>(5).is_none());
        let same = row.get_mut::<Position>(0).is_some() == row.try_get_mut::<Position>(0).is_ok();
        assert!(same);
        // Terms past the ones `for_each` copies next to its loop read the pool.
        for term in 0..8 {
            let (fast, checked) = (row.get::<Marker>(term), row.try_get::<Marker>(term).ok());
            assert_eq!(fast.map(|v| v as *const Marker), checked.map(|v| v as *const Marker));
            let (fast, checked) = (row.get::<Health>(term), row.try_get::<Health>(term).ok());
            assert_eq!(fast.map(|v| v as *const Health), checked.map(|v| v as *const Health));
            let (fast, checked) = (row.get::<Thrust>(term), row.try_get::<Thrust>(term).ok());
            assert_eq!(fast.map(|v| v as *const Thrust), checked.map(|v| v as *const Thrust));
        }
        assert_eq!(row.get::<Marker>(5), Some(&Marker));
        row.get_mut::<Position>(0).unwrap().y = 1.0;
    });
    assert_eq!(changed.iter(&world).count(), 32);
    assert_eq!(world.query::<&Position>().iter(&world).filter(|p| p.y == 1.0).count(), 32);
}

/// A sparse write term: `get_mut` reaches the row entity's value in the set
/// and stamps its ticks; rows without a value are not yielded.
#[test]
fn sparse_write_terms_through_the_row_fast_path() {
    let mut world = World::new();
    let with: Vec<Entity> = (0..10).map(|i| world.spawn((Health(i), Shield(i))).id()).collect();
    (0..10).for_each(|i| {
        world.spawn(Health(i));
    });
    let mut changed = world.query_filtered::<Entity, Changed<Shield>>();
    changed.iter(&world).count();
    let mut query = world.query_dsl("Health, [inout] Shield").unwrap();
    let mut count = 0;
    query.iter_mut(&mut world).for_each(|mut row| {
        count += 1;
        row.get_mut::<Shield>(1).unwrap().0 += 100;
    });
    assert_eq!(count, 10);
    assert_eq!(entities(changed.iter(&world)), entities(with.iter().copied()));
    assert!(with.iter().all(|&e| world.get::<Shield>(e).unwrap().0 >= 100));
}

#[derive(Component, Debug, PartialEq)]
#[component(change_detection = false)]
struct Untracked(u32);

/// A write term on a component without change detection (no tick arrays)
/// takes `get_mut`'s other path; a read term of the same query does not
/// write.
#[test]
fn write_terms_without_ticks_through_the_row_fast_path() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..20).map(|i| world.spawn((Untracked(i), Health(i))).id()).collect();
    let mut query = world.query_dsl("[inout] Untracked, Health").unwrap();
    query.iter_mut(&mut world).for_each(|mut row| {
        assert!(row.get_mut::<Health>(1).is_none() && row.get_mut::<Health>(0).is_none());
        let health = row.get::<Health>(1).unwrap().0;
        let mut value = row.get_mut::<Untracked>(0).unwrap();
        assert!(!value.is_changed() || value.is_added());
        value.0 += health;
    });
    for (i, &entity) in entities.iter().enumerate() {
        assert_eq!(world.get::<Untracked>(entity), Some(&Untracked(2 * i as u32)));
    }
}

/// Solutions with fewer terms than the row path reads without a bound check
/// (their fast slots are padded with absent ones): terms past the query's
/// give nothing, and every solution reads its own terms, not its
/// neighbour's padding.
#[test]
fn terms_past_a_short_query_give_nothing() {
    let mut world = World::new();
    for i in 0..6u32 {
        let e = world.spawn(Health(i)).id();
        if i % 2 == 0 {
            world.entity_mut(e).insert(Shield(i)); // a second table
        }
    }
    let health = world.register_component::<Health>();
    let mut query = world.query_builder().write(health).build().unwrap();
    let mut seen = Vec::new();
    for row in query.iter(&world) {
        seen.push(row.get::<Health>(0).unwrap().0);
        for term in 1..6 {
            assert_eq!(row.get::<Health>(term), None, "term {term}");
            assert_eq!(row.try_get::<Health>(term).unwrap_err(), DynGetError::NoSuchTerm(term));
        }
    }
    seen.sort_unstable();
    assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
    let mut rows = 0;
    query.iter_mut(&mut world).for_each(|mut row| {
        for term in 1..6 {
            assert!(row.get::<Health>(term).is_none() && row.get_mut::<Health>(term).is_none(), "term {term}");
        }
        row.get_mut::<Health>(0).unwrap().0 += 10;
        rows += 1;
    });
    assert_eq!(rows, 6);
    let mut rows = query.iter_mut(&mut world);
    while let Some(mut row) = rows.fetch_next() {
        assert!(row.get_mut::<Health>(1).is_none() && row.get_mut::<Health>(3).is_none());
        assert!(row.get_mut::<Health>(0).unwrap().0 >= 10);
    }
    let mut total: Vec<u32> = world.query::<&Health>().iter(&world).map(|health| health.0).collect();
    total.sort_unstable();
    assert_eq!(total, [10, 11, 12, 13, 14, 15]);
}

/// A variable named only in the id of an optional term is bound where the term
/// matches (one row per match) and unbound where it does not (Flecs' optional
/// variables; API.md: `row.var(..)` is `None` when unbound).
#[test]
fn optional_terms_bind_variables_where_they_match() {
    let mut world = World::new();
    let (bob, carol) = (world.spawn(Health(7)).id(), world.spawn_empty().id());
    let both = world.spawn(Position::default()).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let one = world.spawn(Position::default()).add_pair::<Likes>(carol).id();
    let none = world.spawn(Position::default()).id();
    let expected = BTreeSet::from([(both, Some(bob)), (both, Some(carol)), (one, Some(carol)), (none, None)]);
    let likes = world.register_component::<Likes>();
    let position = world.register_component::<Position>();
    let builder = || world.query_builder().with(position).pair_var(likes, "x").optional_last();
    for mut query in [
        world.query_dsl("Position, ?(Likes, $x)").unwrap(),
        world.query_dsl_uncached("Position, ?(Likes, $x)").unwrap(),
        builder().build_in(&world).unwrap(),
    ] {
        let rows: BTreeSet<_> = query.iter(&world).map(|row| (row.entity(), row.var("x"))).collect();
        assert_eq!(rows, expected, "{}", query.to_dsl());
        assert!(query.iter(&world).all(|row| row.is_set(1) == row.var("x").is_some()));
        assert_eq!(world.query_dsl(&query.to_dsl()).unwrap().count(&world), 4);
    }
    // A later term reads the optional binding: `Health($x)` holds for bob only;
    // where `$x` is unbound, an optional term on it does not match.
    let mut query = world.query_dsl("Position, ?(Likes, $x), ?Health($x)").unwrap();
    let rows: BTreeSet<_> = query.iter(&world).map(|row| (row.entity(), row.var("x"), row.is_set(2))).collect();
    assert_eq!(
        rows,
        BTreeSet::from([
            (both, Some(bob), true),
            (both, Some(carol), false),
            (one, Some(carol), false),
            (none, None, false)
        ])
    );
    // A cached query follows new matches.
    let mut cached = world.query_dsl("Position, ?(Likes, $x)").unwrap();
    assert_eq!(cached.count(&world), 4);
    world.entity_mut(none).add_pair::<Likes>(bob);
    let rows: BTreeSet<_> = cached.iter(&world).map(|row| (row.entity(), row.var("x"))).collect();
    assert!(rows.contains(&(none, Some(bob))) && !rows.contains(&(none, None)));
    // Only under `!`, or only as an optional term's source: still an error.
    assert!(matches!(
        world.query_builder().with(position).pair_var(likes, "y").negate_last().build(),
        Err(QueryBuildError::UnboundVariable { .. })
    ));
    assert!(world.query_dsl("Position, ?Health($y)").is_err());
}

// ----- wildcard and variable components read the id they matched ------------------------

#[test]
fn wildcard_and_variable_components_read_the_matched_value() {
    let mut world = World::new();
    let apples = world.spawn(Name::new("apples")).id();
    let e = world.spawn((Health(3), Position { x: 1.0, y: 2.0 })).insert(Eats(7).pair(apples)).id();
    world.entity_mut(e).add_pair::<Likes>(apples);
    // `(*, apples)`: each matched pair's own value (none for the tag).
    let mut q = world.query_dsl("(*, apples)").unwrap();
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.id(0), r.get::<Eats>(0).map(|eats| eats.0))).collect();
    let (likes, eats) = (world.component_id::<Likes>().unwrap(), world.component_id::<Eats>().unwrap());
    assert_eq!(rows, [(Id::pair(likes, apples), None), (Id::pair(eats, apples), Some(7))].into());
    // `$c($this)`: every component of the row, each readable as its type.
    let mut q = world.query_dsl("Health, $c").unwrap();
    let health = world.component_id::<Health>().unwrap();
    let position = world.component_id::<Position>().unwrap();
    let mut seen = Vec::new();
    for row in q.iter(&world) {
        let component = row.var("c").unwrap();
        if component == health {
            seen.push(format!("health {}", row.get::<Health>(1).unwrap().0));
        } else if component == position {
            seen.push(format!("position {}", row.get::<Position>(1).unwrap().y));
        }
        assert!(row.get::<Velocity>(1).is_none(), "a value is read as its own type only");
    }
    seen.sort();
    assert_eq!(seen, ["health 3", "position 2"]);
}

#[test]
fn a_wildcard_read_conflicts_with_every_write_and_relaxes_before_its_own() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let likes = world.register_component::<Likes>();
    world.register_component::<Health>();
    // The wildcard term reads whatever it matches: any writer conflicts.
    let mut reader = QueryAccess::default();
    world.query_dsl("Health, (*, *)").unwrap().update_access(&mut reader);
    assert!(reader.reads_all());
    let mut writer = QueryAccess::default();
    world.query_builder().write(position).build().unwrap().update_access(&mut writer);
    assert_eq!(reader.conflict_with(&writer), Some(position));
    assert_eq!(writer.conflict_with(&reader), Some(position));
    // `[none]` or a concrete relationship reads no other component.
    let mut quiet = QueryAccess::default();
    world.query_dsl("Health, [none] (*, *), (Likes, *)").unwrap().update_access(&mut quiet);
    assert!(!quiet.reads_all());
    assert_eq!(quiet.conflict_with(&writer), None);
    // In one query, a default-access wildcard that may match the written id
    // reads nothing (no aliasing error); its value is the write term's.
    let mut q =
        world.query_builder().write(position).term(Term::new(TermMatch::component(Entity::WILDCARD))).build().unwrap();
    let e = world.spawn(Position { x: 4.0, y: 0.0 }).id();
    let mut written = 0;
    q.iter_mut(&mut world).for_each(|mut row| {
        assert!(row.get::<Position>(1).is_none(), "the wildcard reads nothing: {:?}", row.id(1));
        row.get_mut::<Position>(0).unwrap().x += 1.0;
        written += 1;
    });
    assert_eq!(written, 1);
    assert_eq!(world.get::<Position>(e).unwrap().x, 5.0);
    // An explicit `[in]` on such a term is an aliasing error.
    let error = world
        .query_builder()
        .write(position)
        .term(Term::new(TermMatch::component(Entity::WILDCARD)).with_access(ecs::query::TermAccess::In))
        .build()
        .unwrap_err();
    assert!(matches!(error, QueryBuildError::Aliasing { .. }), "{error}");
    let _ = likes;
}

#[test]
fn a_system_reading_a_wildcard_runs_apart_from_writers() {
    use ecs::system::{RuntimeQuery, RuntimeQuerySpec};
    struct AllPairs;
    impl RuntimeQuerySpec for AllPairs {
        fn build(world: &mut World) -> ecs::query::DynQuery {
            world.register_component::<Health>();
            world.query_dsl("Health, (*, *)").unwrap()
        }
    }
    fn read_pairs(mut q: RuntimeQuery<AllPairs>) {
        let _ = q.iter().count();
    }
    fn write_eats(mut q: Query<Pair<&mut Eats>>) {
        for (_, mut eats) in &mut q {
            eats.0 += 1;
        }
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((read_pairs, write_eats));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1, "the wildcard reader and the pair writer must not run at once");
}
