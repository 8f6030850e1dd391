//! `runtime_query`: the runtime query engine (issue 17).
//!
//! * `iter/typed`: `for (velocity, mut position) in query.iter_mut(..)` over the
//!   10,000 entities of `simple_iter` (the typed baseline); `iter/runtime`: the
//!   same work through a cached `DynQuery` (`[inout] Position, Velocity`),
//!   `iter_mut(..).for_each(|row| ..)` with `row.get::<Velocity>(1)` and
//!   `row.get_mut::<Position>(0)`; `iter/typed_read`, `iter/runtime_read`: a
//!   read-only sum (`for row in q.iter(..)`). Target: runtime within 1.3x of typed.
//!   `iter/runtime_tables`, `iter/runtime_tables_read`: the same through
//!   `iter_tables_mut`/`iter_tables` (Flecs' fields: one typed slice per term
//!   and table).
//! * `uncached_match`: building an uncached query and counting its rows in a
//!   world of 10,000 archetypes (each entity a `Position` and its own
//!   `(Likes, target)` pair, one in ten also a `Velocity`), with the terms
//!   `Position, Velocity, (Likes, *)`.
//! * `spaceship_rule`: `SpaceShip, (DockedTo, $planet), Planet($planet),
//!   RuledBy($planet, $faction), AlliedWith($ally, $faction)` over 10,000 ships
//!   docked at 100 planets ruled by 10 factions (each with one ally), cached.
//! * `dsl_parse`: parsing that rule's text (names resolved in the world).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs::query::parse_query;
use ecs_benches::{ENTITY_COUNT, Position, Vec3, Velocity, simple_bundle};

#[derive(Relationship)]
struct Likes;
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

const RULE: &str =
    "SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction), AlliedWith($ally, $faction)";

fn iteration(c: &mut Criterion) {
    let mut group = c.benchmark_group("runtime_query/iter");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);
    let setup = || {
        let mut world = World::new();
        world.spawn_batch((0..ENTITY_COUNT).map(|_| simple_bundle())).for_each(|_| ());
        world
    };
    group.bench_function("typed", |b| {
        let mut world = setup();
        let mut query = world.query::<(&Velocity, &mut Position)>();
        b.iter(|| {
            for (velocity, mut position) in query.iter_mut(&mut world) {
                position.0 += velocity.0;
            }
        });
        assert!(query.iter(&world).all(|(_, position)| position.0.0[0] > 1.0));
    });
    group.bench_function("runtime", |b| {
        let mut world = setup();
        let mut query = world.query_dsl("[inout] Position, Velocity").unwrap();
        b.iter(|| {
            query.iter_mut(&mut world).for_each(|mut row| {
                let velocity = row.get::<Velocity>(1).unwrap().0;
                row.get_mut::<Position>(0).unwrap().0 += velocity;
            });
        });
        assert!(world.query::<&Position>().iter(&world).all(|position| position.0.0[0] > 1.0));
    });
    group.bench_function("runtime_tables", |b| {
        let mut world = setup();
        let mut query = world.query_dsl("[inout] Position, Velocity").unwrap();
        b.iter(|| {
            query.iter_tables_mut(&mut world).for_each(|table| {
                let velocities = table.field::<Velocity>(1).unwrap();
                for (position, velocity) in table.field_mut::<Position>(0).unwrap().iter_mut().zip(velocities) {
                    position.0 += velocity.0;
                }
            });
        });
        assert!(world.query::<&Position>().iter(&world).all(|position| position.0.0[0] > 1.0));
    });
    group.bench_function("typed_read", |b| {
        let mut world = setup();
        let mut query = world.query::<(&Velocity, &Position)>();
        b.iter(|| {
            let mut sum = Vec3::new(0.0, 0.0, 0.0);
            for (velocity, position) in query.iter(&world) {
                sum += velocity.0;
                sum += position.0;
            }
            black_box(sum)
        });
    });
    group.bench_function("runtime_read", |b| {
        let world = setup();
        let mut query = world.query_dsl("Velocity, Position").unwrap();
        b.iter(|| {
            let mut sum = Vec3::new(0.0, 0.0, 0.0);
            for row in query.iter(&world) {
                sum += row.get::<Velocity>(0).unwrap().0;
                sum += row.get::<Position>(1).unwrap().0;
            }
            black_box(sum)
        });
    });
    group.bench_function("runtime_tables_read", |b| {
        let world = setup();
        let mut query = world.query_dsl("Velocity, Position").unwrap();
        b.iter(|| {
            let mut sum = Vec3::new(0.0, 0.0, 0.0);
            for table in query.iter_tables(&world) {
                let positions = table.field::<Position>(1).unwrap();
                for (velocity, position) in table.field::<Velocity>(0).unwrap().iter().zip(positions) {
                    sum += velocity.0;
                    sum += position.0;
                }
            }
            black_box(sum)
        });
    });
    group.finish();
}

fn matching(c: &mut Criterion) {
    let mut group = c.benchmark_group("runtime_query");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(30);
    group.bench_function("uncached_match", |b| {
        let mut world = World::new();
        let targets: Vec<Entity> = (0..10_000).map(|_| world.spawn_empty().id()).collect();
        for (i, &target) in targets.iter().enumerate() {
            let mut e = world.spawn(Position(Vec3::new(1.0, 0.0, 0.0)));
            e.add_pair::<Likes>(target);
            if i % 10 == 0 {
                e.insert(Velocity(Vec3::new(1.0, 0.0, 0.0)));
            }
        }
        assert!(world.archetypes().len() > 10_000);
        world.register_component::<Likes>();
        b.iter(|| {
            let mut query = world.query_dsl_uncached("Position, Velocity, (Likes, *)").unwrap();
            let rows = query.count(&world);
            assert_eq!(rows, 1_000);
            black_box(rows)
        });
    });
    let mut world = World::new();
    let factions: Vec<Entity> = (0..10).map(|_| world.spawn_empty().id()).collect();
    for &faction in &factions {
        world.spawn_empty().add_pair::<AlliedWith>(faction);
    }
    let planets: Vec<Entity> = (0..100)
        .map(|i| {
            let mut planet = world.spawn(Planet);
            planet.add_pair::<RuledBy>(factions[i % factions.len()]);
            planet.id()
        })
        .collect();
    for i in 0..10_000 {
        world.spawn(SpaceShip).add_pair::<DockedTo>(planets[i % planets.len()]);
    }
    world.register_component::<AlliedWith>();
    group.bench_function("spaceship_rule", |b| {
        let mut query = world.query_dsl(RULE).unwrap();
        assert_eq!(query.count(&world), 10_000);
        b.iter(|| {
            let mut ships = 0usize;
            for row in query.iter(&world) {
                ships += usize::from(row.var("ally").is_some());
            }
            black_box(ships)
        });
    });
    group.bench_function("dsl_parse", |b| {
        b.iter(|| black_box(parse_query(black_box(RULE), &world).unwrap()));
    });
    group.finish();
}

criterion_group!(benches, iteration, matching);
criterion_main!(benches);
