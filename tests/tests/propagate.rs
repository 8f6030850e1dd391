//! `QueryState::propagate`: parents before children along a relationship, each
//! row with its own item and its nearest ancestor's already-updated value.
//! Compared against a naive recursive computation on random hierarchies
//! (spawned in random order, reparented), with ancestors that lack the value,
//! ancestors the query does not match, filters, change detection, and cycles
//! of a relationship that allows them.

use std::collections::HashMap;

use ecs::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Local(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Global(f32);

#[derive(Component)]
struct Frozen;

/// Not acyclic: cycles (and self-loops) are allowed.
#[derive(Relationship)]
#[relationship(exclusive)]
struct Follows;

/// The propagation under test: `Global = parent's Global + Local`.
fn propagate_sums(world: &mut World) {
    let mut transforms = world.query::<(&Local, &mut Global)>();
    transforms.propagate::<ChildOf, Global>(world, |(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    });
}

/// The naive model: walks up from `entity` through every ancestor.
fn expected_global(world: &World, entity: Entity) -> f32 {
    let total = world.get::<Local>(entity).map_or(0.0, |local| local.0);
    let mut current = entity;
    while let Some(parent) = world.parent(current) {
        match (world.get::<Local>(parent), world.get::<Global>(parent)) {
            // A matched ancestor: its Global is recomputed first.
            (Some(_), Some(_)) => return total + expected_global(world, parent),
            // An unmatched ancestor with a Global: its value is used as it is.
            (None, Some(global)) => return total + global.0,
            // No Global: keep walking up.
            _ => {}
        }
        current = parent;
    }
    total
}

#[test]
fn a_chain_is_propagated_in_one_pass_whatever_the_spawn_order() {
    let mut world = World::new();
    // Spawn the leaves first, so table order is the reverse of depth order.
    let chain: Vec<Entity> = (0..8).map(|i| world.spawn((Local(10f32.powi(i)), Global(-1.0))).id()).collect();
    for pair in chain.windows(2) {
        // chain[i] is the child of chain[i + 1]: chain[7] is the root.
        world.add_pair::<ChildOf>(pair[0], pair[1]);
    }
    propagate_sums(&mut world);
    for (i, &entity) in chain.iter().enumerate() {
        let expected: f32 = (i as i32..8).map(|power| 10f32.powi(power)).sum();
        assert_eq!(world.get::<Global>(entity), Some(&Global(expected)), "level {i}");
    }
}

#[test]
fn the_nearest_ancestor_with_the_value_is_used_and_unmatched_ancestors_are_read_as_they_are() {
    let mut world = World::new();
    let root = world.spawn((Local(1.0), Global(0.0))).id();
    // No Global: skipped on the way up.
    let bare = world.spawn(Local(1000.0)).id();
    world.add_pair::<ChildOf>(bare, root);
    let child = world.spawn((Local(10.0), Global(0.0))).id();
    world.add_pair::<ChildOf>(child, bare);
    // A Global but no Local: not a row, its value is read unchanged.
    let anchor = world.spawn(Global(500.0)).id();
    let anchored = world.spawn((Local(5.0), Global(0.0))).id();
    world.add_pair::<ChildOf>(anchored, anchor);
    let orphan = world.spawn((Local(7.0), Global(0.0))).id();

    propagate_sums(&mut world);
    assert_eq!(world.get::<Global>(root), Some(&Global(1.0)));
    assert_eq!(world.get::<Global>(child), Some(&Global(11.0)));
    assert_eq!(world.get::<Global>(anchored), Some(&Global(505.0)));
    assert_eq!(world.get::<Global>(orphan), Some(&Global(7.0)));
    assert_eq!(world.get::<Global>(anchor), Some(&Global(500.0)));
}

#[test]
fn filters_select_the_rows_and_filtered_out_ancestors_keep_their_value() {
    let mut world = World::new();
    let root = world.spawn((Local(1.0), Global(100.0), Frozen)).id();
    let child = world.spawn((Local(2.0), Global(0.0))).id();
    world.add_pair::<ChildOf>(child, root);
    let mut moving = world.query_filtered::<(&Local, &mut Global), Without<Frozen>>();
    moving.propagate::<ChildOf, Global>(&mut world, |(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    });
    assert_eq!(world.get::<Global>(root), Some(&Global(100.0)));
    assert_eq!(world.get::<Global>(child), Some(&Global(102.0)));
}

#[test]
fn only_written_rows_are_changed() {
    let mut world = World::new();
    let root = world.spawn((Local(1.0), Global(1.0))).id();
    let child = world.spawn((Local(1.0), Global(0.0))).id();
    world.add_pair::<ChildOf>(child, root);
    let mut changed = world.query_filtered::<Entity, Changed<Global>>();
    assert_eq!(changed.iter(&world).count(), 2, "the first run sees every row as changed");

    let mut transforms = world.query::<(&Local, &mut Global)>();
    transforms.propagate::<ChildOf, Global>(&mut world, |(local, mut global), parent| {
        let value = parent.map_or(0.0, |parent| parent.0) + local.0;
        if global.0 != value {
            global.0 = value;
        }
    });
    // The root already held 1.0; only the child was written.
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![child]);
}

#[test]
fn a_row_that_reaches_itself_through_a_cycle_gets_no_parent() {
    let mut world = World::new();
    let lonely = world.spawn((Local(1.0), Global(0.0))).id();
    world.add_pair::<Follows>(lonely, lonely);
    let (a, b) = (world.spawn((Local(2.0), Global(0.0))).id(), world.spawn(Local(3.0)).id());
    // a -> b -> a, and b has no Global: a's nearest ancestor with one is a itself.
    world.add_pair::<Follows>(a, b);
    world.add_pair::<Follows>(b, a);
    let mut parents = Vec::new();
    let mut transforms = world.query::<(Entity, &mut Global)>();
    transforms.propagate::<Follows, Global>(&mut world, |(entity, mut global), parent| {
        parents.push((entity, parent.copied()));
        global.0 += 1.0;
    });
    parents.sort_by_key(|(entity, _)| *entity);
    assert_eq!(parents, vec![(lonely, None), (a, None)]);
}

#[test]
fn without_pairs_or_values_every_row_is_a_root() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..3).map(|i| world.spawn((Local(i as f32), Global(9.0))).id()).collect();
    propagate_sums(&mut world);
    for (i, entity) in entities.into_iter().enumerate() {
        assert_eq!(world.get::<Global>(entity), Some(&Global(i as f32)));
    }
    // A relationship never registered: every row is a root.
    let mut rows = 0;
    world.query::<&Local>().propagate::<Follows, Global>(&mut world, |_, parent| {
        assert!(parent.is_none());
        rows += 1;
    });
    assert_eq!(rows, 3);
}

#[derive(Clone, Debug)]
enum Op {
    /// Spawn an entity with Local (value) and optionally Global, optionally under an earlier one.
    Spawn {
        local: Option<u8>,
        global: bool,
        parent: Option<usize>,
    },
    /// Give entity `child` the parent `parent` (refused when it would be a cycle).
    Reparent {
        child: usize,
        parent: usize,
    },
    /// Remove the parent of `child`.
    Orphan {
        child: usize,
    },
    Despawn {
        entity: usize,
    },
    Propagate,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (proptest::option::weighted(0.8, 0u8..10), proptest::bool::weighted(0.8), proptest::option::of(0usize..64))
            .prop_map(|(local, global, parent)| Op::Spawn { local, global, parent }),
        2 => (0usize..64, 0usize..64).prop_map(|(child, parent)| Op::Reparent { child, parent }),
        1 => (0usize..64).prop_map(|child| Op::Orphan { child }),
        1 => (0usize..64).prop_map(|entity| Op::Despawn { entity }),
        1 => Just(Op::Propagate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn propagation_matches_a_naive_walk_on_random_hierarchies(ops in proptest::collection::vec(op(), 1..60)) {
        let mut world = World::new();
        let mut entities: Vec<Entity> = Vec::new();
        let pick = |entities: &[Entity], i: usize| (!entities.is_empty()).then(|| entities[i % entities.len()]);
        for op in ops {
            match op {
                Op::Spawn { local, global, parent } => {
                    let mut entity = world.spawn_empty();
                    if let Some(local) = local {
                        entity.insert(Local(local as f32));
                    }
                    if global {
                        entity.insert(Global(-1.0));
                    }
                    let id = entity.id();
                    if let Some(parent) = parent.and_then(|parent| pick(&entities, parent)) {
                        // Dead parents are refused; that is fine here.
                        let _ = world.try_add_pair::<ChildOf>(id, parent);
                    }
                    entities.push(id);
                }
                Op::Reparent { child, parent } => {
                    if let (Some(child), Some(parent)) = (pick(&entities, child), pick(&entities, parent)) {
                        let _ = world.try_add_pair::<ChildOf>(child, parent);
                    }
                }
                Op::Orphan { child } => {
                    let alive = pick(&entities, child).filter(|child| world.is_alive(*child));
                    if let Some((child, parent)) = alive.and_then(|child| Some((child, world.parent(child)?))) {
                        world.entity_mut(child).remove_pair::<ChildOf>(parent);
                    }
                }
                Op::Despawn { entity } => {
                    if let Some(entity) = pick(&entities, entity) {
                        world.despawn(entity);
                    }
                }
                Op::Propagate => propagate_sums(&mut world),
            }
        }
        propagate_sums(&mut world);
        let alive: Vec<Entity> = entities.iter().copied().filter(|e| world.is_alive(*e)).collect();
        let expected: HashMap<Entity, f32> = alive
            .iter()
            .filter(|e| world.has::<Local>(**e) && world.has::<Global>(**e))
            .map(|&e| (e, expected_global(&world, e)))
            .collect();
        for (entity, value) in expected {
            prop_assert_eq!(world.get::<Global>(entity), Some(&Global(value)), "entity {:?}", entity);
        }
        world.check_invariants();
    }
}

// ----- the Propagate system param ------------------------------------------------------

fn propagate_system(mut walk: Propagate<ChildOf, Global, (&Local, &mut Global), Without<Frozen>>) {
    walk.for_each(|(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    });
}

fn thaw(mut frozen: Query<&mut Global, With<Frozen>>) {
    frozen.iter_mut().for_each(|mut global| global.0 += 1000.0);
}

fn read_frozen(frozen: Query<&Global, With<Frozen>>) {
    frozen.iter().for_each(|global| assert!(global.0.is_finite()));
}

#[test]
fn the_propagate_param_walks_parents_first_and_sees_changes_since_its_last_run() {
    let mut world = World::new();
    let root = world.spawn((Local(1.0), Global(0.0))).id();
    let child = world.spawn((Local(2.0), Global(0.0))).add_pair::<ChildOf>(root).id();
    let grandchild = world.spawn((Local(3.0), Global(0.0))).add_pair::<ChildOf>(child).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(propagate_system);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(grandchild), Some(&Global(6.0)));
    world.get_mut::<Local>(root).unwrap().0 = 10.0;
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(grandchild), Some(&Global(15.0)));
}

#[test]
fn writers_of_the_propagated_value_conflict_with_the_walk_whatever_their_filters() {
    let mut world = World::new();
    let frozen = world.spawn((Local(1.0), Global(7.0), Frozen)).id();
    let child = world.spawn((Local(2.0), Global(0.0))).add_pair::<ChildOf>(frozen).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((propagate_system, thaw, read_frozen));
    schedule.initialize(&mut world).expect("builds");
    let pairs: Vec<(String, String)> =
        schedule.ambiguities().iter().map(|a| (a.first.clone(), a.second.clone())).collect();
    // The walk reads the frozen parent's Global, which `thaw` writes; readers do not conflict.
    assert_eq!(
        pairs,
        [
            ("propagate::propagate_system".to_owned(), "propagate::thaw".to_owned()),
            ("propagate::thaw".to_owned(), "propagate::read_frozen".to_owned()),
        ]
    );
    schedule.run(&mut world);
    // Insertion order: the walk ran before `thaw`.
    assert_eq!(world.get::<Global>(child), Some(&Global(9.0)));
}
