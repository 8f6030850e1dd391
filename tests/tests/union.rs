//! Union (non-fragmenting) relationships: `#[relationship(union)]` keeps one
//! archetype id `(R, *union*)` whatever the target and the target in the row.
//! Retargeting never moves; the row's target follows swap-removes and moves;
//! queries, `with_pair`, cleanup and the id-level API read the row's target.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::{EntityLocation, Id};
use ecs::prelude::*;
use ecs::world::PairError;
use proptest::prelude::*;

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

#[derive(Relationship)]
#[relationship(union, on_delete_target = "delete")]
struct RidesOn;

#[derive(Relationship)]
#[relationship(union, on_delete_target = "panic")]
struct Guards;

#[derive(Relationship)]
#[relationship(union, acyclic)]
struct Follows;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component)]
struct Enemy;

/// Counts its drops in a shared counter.
#[derive(Component)]
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn location(world: &World, entity: Entity) -> EntityLocation {
    world.entities().location(entity).expect("alive")
}

fn movement(world: &World) -> Entity {
    world.component_id::<Movement>().expect("registered")
}

#[test]
fn retargeting_never_moves_and_keeps_other_components() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((Position(1.0), Tracked(drops.clone()))).id();
    let other = world.spawn((Position(2.0), Tracked(drops.clone()))).id();
    world.entity_mut(e).add_pair::<Movement>(walking);
    world.entity_mut(other).add_pair::<Movement>(running);
    let before = location(&world, e);
    assert_eq!(location(&world, other).archetype, before.archetype, "different targets, one archetype");
    let archetypes = world.archetypes().len();

    world.entity_mut(e).add_pair::<Movement>(running);
    assert_eq!(location(&world, e), before, "retargeting moved the entity");
    assert_eq!(world.archetypes().len(), archetypes, "retargeting created an archetype");
    assert_eq!(world.target::<Movement>(e), Some(running));
    assert!(world.has_pair::<Movement>(e, running) && !world.has_pair::<Movement>(e, walking));
    assert!(world.has_pair::<Movement>(e, Entity::WILDCARD));
    assert_eq!(world.get::<Position>(e), Some(&Position(1.0)));
    assert_eq!(world.target::<Movement>(other), Some(running));
    assert_eq!(world.ids_of(e).unwrap().iter().filter(|id| id.is_pair()).count(), 1);
    assert!(world.ids_of(e).unwrap().contains(&Id::pair(movement(&world), Entity::UNION)));
    assert_eq!(drops.load(Ordering::Relaxed), 0, "retargeting dropped a component");
    world.check_invariants();
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 2, "each value dropped exactly once");
}

#[test]
fn the_target_follows_swap_removes_and_moves() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let targets: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    let entities: Vec<Entity> = (0..12)
        .map(|i| {
            let e = world.spawn((Position(i as f32), Tracked(drops.clone()))).id();
            world.entity_mut(e).add_pair::<Movement>(targets[i % 4]);
            e
        })
        .collect();
    // Swap-removes: despawn rows from the middle.
    for &e in entities.iter().step_by(3) {
        world.despawn(e);
    }
    // Moves that keep `(Movement, *union*)`: the target travels along.
    for &e in entities.iter().skip(1).step_by(3) {
        world.entity_mut(e).insert(Enemy);
    }
    for &e in entities.iter().skip(1).step_by(6) {
        world.entity_mut(e).remove::<Enemy>();
    }
    world.check_invariants();
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 0 {
            assert!(!world.is_alive(e));
            continue;
        }
        assert_eq!(world.target::<Movement>(e), Some(targets[i % 4]), "entity {i}");
        assert_eq!(world.get::<Position>(e), Some(&Position(i as f32)));
    }
    assert_eq!(drops.load(Ordering::Relaxed), 4);
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 12);
}

#[test]
fn removing_the_pair_moves_out_and_only_the_right_target_removes() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn(Position(1.0)).add_pair::<Movement>(walking).id();
    assert!(!world.remove_pair::<Movement>(e, running), "another target is not the pair");
    assert_eq!(world.target::<Movement>(e), Some(walking));
    assert!(world.remove_pair::<Movement>(e, walking));
    assert_eq!(world.target::<Movement>(e), None);
    assert_eq!(world.ids_of(e).unwrap(), &[world.component_id::<Position>().unwrap().id()]);
    // Wildcards remove whatever the target.
    world.entity_mut(e).add_pair::<Movement>(running);
    assert!(world.remove_pair::<Movement>(e, Entity::WILDCARD));
    assert!(!world.has_pair::<Movement>(e, Entity::WILDCARD));
    world.entity_mut(e).add_pair::<Movement>(running);
    let movement = movement(&world);
    assert!(world.has_id(e, Id::pair(Entity::WILDCARD, running)));
    assert!(!world.has_id(e, Id::pair(Entity::WILDCARD, walking)));
    assert!(!world.remove_id(e, Id::pair(Entity::WILDCARD, walking)));
    assert!(world.remove_id(e, Id::pair(Entity::WILDCARD, running)));
    assert!(!world.has_id(e, Id::pair(movement, Entity::WILDCARD)));
    assert_eq!(world.get::<Position>(e), Some(&Position(1.0)));
    world.check_invariants();
}

#[test]
fn the_union_marker_cannot_be_added_and_bundles_and_sources_work() {
    let mut world = World::new();
    let walking = world.spawn_empty().id();
    let e = world.spawn((Position(0.0), Movement.pair(walking))).id();
    assert_eq!(world.target::<Movement>(e), Some(walking));
    let movement = movement(&world);
    let error = world.try_add_id(e, Id::pair(movement, Entity::UNION)).unwrap_err();
    assert!(matches!(error, PairError::UnionMarker { .. }), "{error:?}");
    assert!(error.to_string().contains("*union*"), "{error}");
    let f = world.spawn_empty().add_pair::<Movement>(walking).id();
    let mut sources: Vec<Entity> = world.sources::<Movement>(walking).collect();
    sources.sort();
    assert_eq!(sources, vec![e, f]);
    assert_eq!(world.sources::<Movement>(Entity::WILDCARD).count(), 2);
    assert!(world.get_pair::<Movement>(e, walking).is_some());
    assert!(world.get_pair_mut::<Movement>(e, walking).is_none(), "tags have no value to change");
}

#[test]
fn runtime_relationships_can_be_unions_and_bad_traits_are_refused() {
    let mut world = World::new();
    let (stance, crouched, standing) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.set_relationship_traits(stance, RelationshipTraits::DEFAULT.union());
    let e = world.spawn_empty().id();
    world.add_pair_id(e, stance, crouched);
    let before = location(&world, e);
    world.add_pair_id(e, stance, standing);
    assert_eq!(location(&world, e), before);
    assert!(world.has_pair_id(e, stance, standing) && !world.has_pair_id(e, stance, crouched));
    let invalid = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let r = world.spawn_empty().id();
        world.set_relationship_traits(r, RelationshipTraits::DEFAULT.union().transitive());
    }));
    assert!(invalid.is_err(), "a transitive union is refused");
    let switched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.set_relationship_traits(stance, RelationshipTraits::DEFAULT);
    }));
    assert!(switched.is_err(), "a union in use cannot become fragmenting");
    world.check_invariants();
}

#[test]
fn one_entity_with_two_union_pairs_to_one_target_keeps_the_index_right() {
    let mut world = World::new();
    let target = world.spawn_empty().id();
    let e = world.spawn(Position(1.0)).add_pair::<Movement>(target).add_pair::<Follows>(target).id();
    let f = world.spawn(Position(2.0)).add_pair::<Movement>(target).id();
    world.check_invariants();
    world.entity_mut(e).remove_pair::<Movement>(target);
    world.check_invariants();
    assert_eq!(world.sources::<Movement>(target).collect::<Vec<_>>(), vec![f]);
    assert_eq!(world.sources::<Follows>(target).collect::<Vec<_>>(), vec![e]);
    world.entity_mut(e).add_pair::<Movement>(target);
    world.despawn(f);
    world.check_invariants();
    world.despawn(target);
    world.check_invariants();
    assert_eq!(world.ids_of(e).unwrap(), &[world.component_id::<Position>().unwrap().id()]);
}

#[test]
fn acyclic_unions_refuse_cycles() {
    let mut world = World::new();
    let (a, b, c) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<Follows>(b, a);
    world.add_pair::<Follows>(c, b);
    let error = world.try_add_pair::<Follows>(a, c).unwrap_err();
    assert!(matches!(error, PairError::Cycle { .. }), "{error:?}");
    assert_eq!(world.target::<Follows>(a), None);
}

#[test]
fn pair_terms_yield_each_rows_target() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Position(1.0)).add_pair::<Movement>(walking).id();
    let b = world.spawn(Position(2.0)).add_pair::<Movement>(running).id();
    let c = world.spawn(Position(3.0)).add_pair::<Movement>(walking).id();
    world.spawn(Position(4.0));
    let mut q = world.query::<(Entity, Pair<Movement>)>();
    let mut rows: Vec<_> = q.iter(&world).collect();
    rows.sort();
    assert_eq!(rows, vec![(a, walking), (b, running), (c, walking)]);
    let mut refs = world.query::<Pair<&Movement>>();
    assert_eq!(refs.iter(&world).filter(|(target, _)| *target == walking).count(), 2);
    let mut muts = world.query::<(Entity, Pair<&mut Movement>)>();
    let mut targets: Vec<_> = muts.iter_mut(&mut world).map(|(e, (t, _))| (e, t)).collect();
    targets.sort();
    assert_eq!(targets, vec![(a, walking), (b, running), (c, walking)]);
    let mut with = world.query_filtered::<Entity, WithPair<Movement>>();
    assert_eq!(with.iter(&world).count(), 3);
    assert_eq!(q.get(&world, b), Ok((b, running)));
    // `Up` climbs from each row's own target: the walkers find `walking`'s value.
    world.entity_mut(walking).insert(Position(9.0));
    let mut up = world.query::<(Entity, Up<Movement, &Position>)>();
    let mut found: Vec<(Entity, f32)> = up.iter(&world).map(|(e, p)| (e, p.0)).collect();
    found.sort_by_key(|row| row.0);
    assert_eq!(found, vec![(a, 9.0), (c, 9.0)]);
}

#[test]
fn with_pair_filters_rows_by_target() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let entities: Vec<Entity> = (0..10)
        .map(|i| {
            let target = if i % 3 == 0 { running } else { walking };
            world.spawn(Position(i as f32)).add_pair::<Movement>(target).id()
        })
        .collect();
    let mut runners = world.query::<(Entity, &Position)>().with_pair::<Movement>(running);
    let mut seen: Vec<Entity> = runners.iter(&world).map(|(e, _)| e).collect();
    seen.sort();
    assert_eq!(seen, vec![entities[0], entities[3], entities[6], entities[9]]);
    // `for_each` (the fold path) filters the same rows.
    let mut folded = 0;
    runners.iter(&world).for_each(|_| folded += 1);
    assert_eq!(folded, 4);
    assert_eq!(runners.get(&world, entities[0]).map(|(e, _)| e), Ok(entities[0]));
    assert!(runners.get(&world, entities[1]).is_err());
    // Retargeting is seen at the next iteration.
    world.entity_mut(entities[1]).add_pair::<Movement>(running);
    assert_eq!(runners.iter(&world).count(), 5);
    let mut par_count = AtomicUsize::new(0);
    runners.par_iter(&world).for_each(|_| {
        par_count.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(*par_count.get_mut(), 5);
    // The wildcard is a filter on the archetype: every holder.
    let mut any = world.query::<Entity>().with_pair::<Movement>(Entity::WILDCARD);
    assert_eq!(any.iter(&world).count(), 10);
    let mut nobody = world.query::<Entity>().with_pair::<Movement>(entities[2]);
    assert_eq!(nobody.iter(&world).count(), 0);
}

#[test]
fn deleting_a_target_removes_the_pair_by_default() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let walkers: Vec<Entity> = (0..5)
        .map(|_| world.spawn((Tracked(drops.clone()), Position(1.0))).add_pair::<Movement>(walking).id())
        .collect();
    let runner = world.spawn((Tracked(drops.clone()), Position(2.0))).add_pair::<Movement>(running).id();
    let union_archetype = location(&world, runner).archetype;
    world.despawn(walking);
    world.check_invariants();
    for &e in &walkers {
        assert!(world.is_alive(e));
        assert_eq!(world.target::<Movement>(e), None);
        assert_eq!(world.get::<Position>(e), Some(&Position(1.0)));
    }
    assert_eq!(world.target::<Movement>(runner), Some(running));
    assert_eq!(location(&world, runner).archetype, union_archetype, "the union archetype survives");
    assert_eq!(drops.load(Ordering::Relaxed), 0);
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 6);
}

#[test]
fn deleting_a_target_deletes_the_holders_with_the_delete_policy() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let (cart, boat) = (world.spawn_empty().id(), world.spawn_empty().id());
    let riders: Vec<Entity> = (0..6)
        .map(|i| {
            let vehicle = if i % 2 == 0 { cart } else { boat };
            world.spawn(Tracked(drops.clone())).add_pair::<RidesOn>(vehicle).id()
        })
        .collect();
    // A rider of a rider: deleted recursively.
    let nested = world.spawn(Tracked(drops.clone())).add_pair::<RidesOn>(riders[0]).id();
    world.despawn(cart);
    world.check_invariants();
    for (i, &rider) in riders.iter().enumerate() {
        assert_eq!(world.is_alive(rider), i % 2 == 1, "rider {i}");
    }
    assert!(!world.is_alive(nested));
    assert_eq!(drops.load(Ordering::Relaxed), 4);
    assert_eq!(world.sources::<RidesOn>(boat).count(), 3);
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 7);
}

#[test]
fn the_panic_policy_refuses_before_anything_changes() {
    let mut world = World::new();
    let (gate, wall) = (world.spawn_empty().id(), world.spawn_empty().id());
    let guard = world.spawn(Position(1.0)).add_pair::<Guards>(gate).id();
    world.spawn(Position(2.0)).add_pair::<Guards>(wall);
    let error = world.try_despawn(gate).unwrap_err();
    assert_eq!(error.holders, vec![guard]);
    assert!(error.as_target);
    assert!(world.is_alive(gate) && world.has_pair::<Guards>(guard, gate));
    world.entity_mut(guard).add_pair::<Guards>(wall);
    assert_eq!(world.try_despawn(gate), Ok(true));
    world.check_invariants();
}

#[test]
fn deleting_the_relationship_removes_every_pair() {
    let mut world = World::new();
    let (stance, crouched) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.set_relationship_traits(stance, RelationshipTraits::DEFAULT.union());
    let holders: Vec<Entity> = (0..3)
        .map(|_| {
            let e = world.spawn(Position(0.0)).id();
            world.add_pair_id(e, stance, crouched);
            e
        })
        .collect();
    world.despawn(stance);
    world.check_invariants();
    for &e in &holders {
        assert_eq!(world.ids_of(e).unwrap().len(), 1, "{e:?} kept a pair of the dead relationship");
    }
    // The delete policy on the relationship despawns the holders.
    let owned_by = world.spawn_empty().id();
    world.set_relationship_traits(owned_by, RelationshipTraits::DEFAULT.union().on_delete(CleanupPolicy::Delete));
    world.add_pair_id(holders[0], owned_by, crouched);
    world.despawn(owned_by);
    assert!(!world.is_alive(holders[0]) && world.is_alive(holders[1]));
    world.check_invariants();
}

/// The rows of `query`: each row's entity and what term `term` matched
/// (the target and the id), sorted.
fn rows(world: &World, query: &mut ecs::query::DynQuery, term: usize) -> Vec<(Entity, Entity, Id)> {
    let mut rows: Vec<_> = query.iter(world).map(|row| (row.entity(), row.pair_target(term), row.id(term))).collect();
    rows.sort();
    rows
}

#[test]
fn runtime_queries_and_the_dsl_match_union_pairs_per_row() {
    let mut world = World::new();
    let walking = world.spawn(Name::new("walking")).id();
    let running = world.spawn(Name::new("running")).id();
    let a = world.spawn((Position(1.0), Name::new("alpha"))).add_pair::<Movement>(walking).id();
    let b = world.spawn(Position(2.0)).add_pair::<Movement>(running).id();
    let c = world.spawn(Position(3.0)).add_pair::<Movement>(walking).id();
    let d = world.spawn(Position(4.0)).id();
    let movement = world.register_component::<Movement>();
    let position = world.register_component::<Position>();
    let pair = |target: Entity| Id::pair(movement, target);

    for cached in [true, false] {
        let builder = world.query_builder().read(position).pair(movement, walking);
        let mut q = if cached { builder.build() } else { builder.build_uncached() }.unwrap();
        assert_eq!(rows(&world, &mut q, 1), vec![(a, walking, pair(walking)), (c, walking, pair(walking))]);
        let builder = world.query_builder().read(position).pair(movement, Entity::WILDCARD);
        let mut any = if cached { builder.build() } else { builder.build_uncached() }.unwrap();
        let expected = vec![(a, walking, pair(walking)), (b, running, pair(running)), (c, walking, pair(walking))];
        assert_eq!(rows(&world, &mut any, 1), expected);
    }

    let mut walkers = world.query_dsl("Position, (Movement, walking)").unwrap();
    assert_eq!(rows(&world, &mut walkers, 1).len(), 2);
    // Retargeting moves nothing, and a cached query sees it at once.
    world.entity_mut(b).add_pair::<Movement>(walking);
    assert_eq!(rows(&world, &mut walkers, 1).iter().map(|row| row.0).collect::<Vec<_>>(), vec![a, b, c]);
    world.entity_mut(b).add_pair::<Movement>(running);

    let mut not_walking = world.query_dsl("Position, !(Movement, walking)").unwrap();
    let mut seen: Vec<Entity> = not_walking.iter(&world).map(|row| row.entity()).collect();
    seen.sort();
    assert_eq!(seen, vec![b, d]);

    let mut optional = world.query_dsl("Position, ?(Movement, running)").unwrap();
    let mut set: Vec<(Entity, bool)> = optional.iter(&world).map(|row| (row.entity(), row.is_set(1))).collect();
    set.sort();
    assert_eq!(set, vec![(a, false), (b, true), (c, false), (d, false)]);

    let mut by_target = world.query_dsl("Position, (*, walking)").unwrap();
    assert_eq!(by_target.iter(&world).map(|row| row.entity()).collect::<Vec<_>>().len(), 2);

    // On another entity than `$this` (a variable source here) the pair is
    // that entity's: it binds variables like any pair.
    let mut holders = world.query_dsl("Movement($who, walking)").unwrap();
    let mut seen: Vec<Option<Entity>> = holders.iter(&world).map(|row| row.var("who")).collect();
    seen.sort();
    assert_eq!(seen, vec![Some(a), Some(c)]);
    let mut alpha = world.query_dsl("Movement(alpha, $m)").unwrap();
    assert_eq!(alpha.iter(&world).map(|row| row.var("m")).collect::<Vec<_>>(), vec![Some(walking)]);
}

#[derive(Resource, Default)]
struct Events(Vec<(&'static str, Entity, Entity)>);

#[test]
fn retargeting_fires_the_events_of_an_exclusive_replacement() {
    let mut world = World::new();
    world.insert_resource(Events::default());
    world.add_observer(|trigger: Trigger<OnAdd, Pair<Movement>>, mut events: ResMut<Events>| {
        events.0.push(("add", trigger.entity(), trigger.pair_target().unwrap()));
    });
    world.add_observer(|trigger: Trigger<OnRemove, Pair<Movement>>, mut events: ResMut<Events>| {
        events.0.push(("remove", trigger.entity(), trigger.pair_target().unwrap()));
    });
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().add_pair::<Movement>(walking).id();
    world.entity_mut(e).add_pair::<Movement>(running);
    world.entity_mut(e).add_pair::<Movement>(running); // same target: no add, no remove
    world.entity_mut(e).remove_pair::<Movement>(running);
    assert_eq!(
        world.resource::<Events>().0,
        vec![("add", e, walking), ("remove", e, walking), ("add", e, running), ("remove", e, running)]
    );
}

// A naive model of random operations, compared after each one.

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    AddPair(usize, usize),
    RemovePair(usize, usize),
    RemoveAnyPair(usize),
    Insert(usize),
    Remove(usize),
    Despawn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Spawn),
        4 => (0..64usize, 0..64usize).prop_map(|(a, b)| Op::AddPair(a, b)),
        1 => (0..64usize, 0..64usize).prop_map(|(a, b)| Op::RemovePair(a, b)),
        1 => (0..64usize).prop_map(Op::RemoveAnyPair),
        2 => (0..64usize).prop_map(Op::Insert),
        1 => (0..64usize).prop_map(Op::Remove),
        1 => (0..64usize).prop_map(Op::Despawn),
    ]
}

/// The model: each alive entity's union target and whether it has `Position`.
#[derive(Default)]
struct Model {
    alive: Vec<Entity>,
    target: std::collections::HashMap<Entity, Entity>,
    position: std::collections::HashMap<Entity, f32>,
}

impl Model {
    fn pick(&self, i: usize) -> Option<Entity> {
        (!self.alive.is_empty()).then(|| self.alive[i % self.alive.len()])
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn union_pairs_match_a_naive_model(ops in proptest::collection::vec(op(), 1..80)) {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut created = 0;
        let mut world = World::new();
        let mut model = Model::default();
        for _ in 0..4 {
            model.alive.push(world.spawn(Tracked(drops.clone())).id());
            created += 1;
        }
        for op in ops {
            match op {
                Op::Spawn => {
                    model.alive.push(world.spawn(Tracked(drops.clone())).id());
                    created += 1;
                }
                Op::AddPair(a, b) => {
                    let (Some(a), Some(b)) = (model.pick(a), model.pick(b)) else { continue };
                    let before = location(&world, a);
                    let had = model.target.contains_key(&a);
                    world.entity_mut(a).add_pair::<Movement>(b);
                    if had {
                        prop_assert_eq!(location(&world, a), before, "retarget moved");
                    }
                    model.target.insert(a, b);
                }
                Op::RemovePair(a, b) => {
                    let (Some(a), Some(b)) = (model.pick(a), model.pick(b)) else { continue };
                    let removed = world.remove_pair::<Movement>(a, b);
                    let expected = model.target.get(&a) == Some(&b);
                    prop_assert_eq!(removed, expected);
                    if expected {
                        model.target.remove(&a);
                    }
                }
                Op::RemoveAnyPair(a) => {
                    let Some(a) = model.pick(a) else { continue };
                    world.entity_mut(a).remove_pair::<Movement>(Entity::WILDCARD);
                    model.target.remove(&a);
                }
                Op::Insert(a) => {
                    let Some(a) = model.pick(a) else { continue };
                    world.entity_mut(a).insert(Position(a.index() as f32));
                    model.position.insert(a, a.index() as f32);
                }
                Op::Remove(a) => {
                    let Some(a) = model.pick(a) else { continue };
                    world.entity_mut(a).remove::<Position>();
                    model.position.remove(&a);
                }
                Op::Despawn(a) => {
                    let Some(a) = model.pick(a) else { continue };
                    world.despawn(a);
                    model.alive.retain(|&e| e != a);
                    model.target.remove(&a);
                    model.position.remove(&a);
                    // Default policy: pairs targeting `a` are removed.
                    model.target.retain(|_, target| *target != a);
                }
            }
            world.check_invariants();
            for &e in &model.alive {
                prop_assert_eq!(world.target::<Movement>(e), model.target.get(&e).copied(), "target of {:?}", e);
                prop_assert_eq!(world.get::<Position>(e).map(|p| p.0), model.position.get(&e).copied());
            }
            let mut rows: Vec<(Entity, Entity)> = world.query::<(Entity, Pair<Movement>)>().iter(&world).collect();
            rows.sort();
            let mut expected: Vec<(Entity, Entity)> = model.target.iter().map(|(&e, &t)| (e, t)).collect();
            expected.sort();
            prop_assert_eq!(rows, expected);
            if let Some(&target) = model.alive.first() {
                let mut q = world.query::<(Entity, &Position)>().with_pair::<Movement>(target);
                let mut rows: Vec<Entity> = q.iter(&world).map(|(e, _)| e).collect();
                rows.sort();
                let mut expected: Vec<Entity> = model
                    .target
                    .iter()
                    .filter(|&(e, t)| *t == target && model.position.contains_key(e))
                    .map(|(&e, _)| e)
                    .collect();
                expected.sort();
                prop_assert_eq!(rows, expected);
                let movement = world.register_component::<Movement>();
                let mut runtime = world.query_builder().pair(movement, target).build_uncached().unwrap();
                let mut runtime_rows: Vec<Entity> = runtime.iter(&world).map(|row| row.entity()).collect();
                runtime_rows.sort();
                let mut sources: Vec<Entity> = world.sources::<Movement>(target).collect();
                sources.sort();
                let mut expected: Vec<Entity> =
                    model.target.iter().filter(|&(_, t)| *t == target).map(|(&e, _)| e).collect();
                expected.sort();
                prop_assert_eq!(&runtime_rows, &expected);
                prop_assert_eq!(sources, expected);
            }
        }
        let alive = model.alive.len();
        drop(world);
        prop_assert_eq!(drops.load(Ordering::Relaxed), created, "{} alive at the end", alive);
    }
}
