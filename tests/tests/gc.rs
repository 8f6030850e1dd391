//! Empty tables and garbage collection (`world::gc`, `IdRecord::non_empty`):
//! `World::collect_garbage` deletes exactly the archetypes empty for N calls,
//! keeps the others and the empty archetype, resets an archetype's age when it
//! is refilled, honours its time budget, never moves or drops a live value, and
//! leaves cached queries, observers and bundle edge caches correct (deleted
//! slots pruned, reused slots rematched). A proptest runs random structural
//! changes and collections against fresh queries and the invariants.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ecs::archetype::ArchetypeId;
use ecs::entity::{Entity, Id};
use ecs::prelude::*;
use proptest::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct A(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct B(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct C(u32);

/// A tag (no column).
#[derive(Component, Debug)]
#[component(change_detection = false)]
struct T;

/// Counts its drops.
#[derive(Component)]
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Resource, Default)]
struct Added(Vec<Entity>);

fn gc(empty_for: u32) -> GcConfig {
    GcConfig { empty_for, max_time: None }
}

fn archetype_of(world: &World, entity: Entity) -> ArchetypeId {
    world.entities().location(entity).expect("alive").archetype
}

/// The live archetypes, but for the empty one.
fn live(world: &World) -> BTreeSet<ArchetypeId> {
    world.archetypes().iter().filter(|a| !a.is_dead() && a.id() != ArchetypeId::EMPTY).map(|a| a.id()).collect()
}

/// A world whose empty archetypes (from registration, say) are all collected.
fn clean_world() -> World {
    let mut world = World::new();
    world.register_component::<A>();
    world.register_component::<B>();
    world.register_component::<C>();
    world.register_component::<T>();
    world.collect_garbage(gc(0));
    assert!(world.archetypes().empty_archetypes().next().is_none());
    world.check_invariants();
    world
}

#[test]
fn deletes_exactly_the_archetypes_empty_for_n_calls() {
    for n in [1, 3] {
        let mut world = clean_world();
        let kept = world.spawn((A(1), C(1))).id();
        let moved = world.spawn((A(2), B(2))).id();
        let ab = archetype_of(&world, moved);
        world.entity_mut(moved).remove::<B>(); // (A, B) is empty, (A) is not
        assert!(world.archetypes()[ab].is_empty());
        let before = live(&world);
        for call in 1..n {
            assert_eq!(world.collect_garbage(gc(n)), 0, "n = {n}, call {call}");
            assert!(!world.archetypes().is_dead(ab));
            world.check_invariants();
        }
        assert_eq!(world.collect_garbage(gc(n)), 1, "n = {n}");
        assert!(world.archetypes().is_dead(ab));
        let after = live(&world);
        assert_eq!(before.difference(&after).copied().collect::<Vec<_>>(), [ab]);
        assert!(!world.archetypes().is_dead(ArchetypeId::EMPTY));
        assert_eq!(world.get::<A>(kept), Some(&A(1)));
        assert_eq!(world.get::<A>(moved), Some(&A(2)));
        world.check_invariants();
        // Nothing else is empty: later calls delete nothing.
        assert_eq!(world.collect_garbage(gc(n)), 0);
        world.check_invariants();
    }
}

#[test]
fn the_empty_archetype_and_non_empty_ones_are_never_deleted() {
    let mut world = clean_world();
    let e = world.spawn_empty().id();
    world.despawn(e); // the empty archetype is empty now
    let full = world.spawn((A(1), B(1))).id();
    let before = live(&world);
    for _ in 0..5 {
        assert_eq!(world.collect_garbage(gc(0)), 0);
    }
    assert!(!world.archetypes().is_dead(ArchetypeId::EMPTY));
    assert_eq!(live(&world), before);
    assert_eq!(world.get::<B>(full), Some(&B(1)));
    world.check_invariants();
}

#[test]
fn refilling_an_archetype_resets_its_age() {
    let mut world = clean_world();
    let e = world.spawn((A(1), B(1))).id();
    let ab = archetype_of(&world, e);
    world.remove::<B>(e);
    assert_eq!(world.collect_garbage(gc(3)), 0);
    assert_eq!(world.collect_garbage(gc(3)), 0);
    // Refilled before its third call, then emptied again: its age starts over.
    world.insert(e, B(2));
    assert_eq!(archetype_of(&world, e), ab);
    assert_eq!(world.collect_garbage(gc(3)), 0, "non-empty archetypes are kept");
    world.remove::<B>(e);
    assert_eq!(world.collect_garbage(gc(3)), 0);
    assert_eq!(world.collect_garbage(gc(3)), 0);
    assert!(!world.archetypes().is_dead(ab));
    assert_eq!(world.collect_garbage(gc(3)), 1);
    assert!(world.archetypes().is_dead(ab));
    world.check_invariants();
}

#[test]
fn the_component_index_keeps_empty_and_non_empty_apart() {
    let mut world = clean_world();
    let likes = world.spawn_empty().id();
    let bob = world.spawn_empty().id();
    let a = world.component_id::<A>().unwrap().id();
    let e = world.spawn((A(1),)).id();
    let f = world.spawn((A(2), B(2))).id();
    world.add_pair_id(f, likes, bob);
    let index = world.archetypes().component_index();
    let ids = |entries: &[ecs::archetype::ArchetypeRecord]| -> BTreeSet<ArchetypeId> {
        entries.iter().map(|entry| entry.archetype).collect()
    };
    let record = index.get(a).unwrap();
    assert_eq!(ids(record.non_empty()), BTreeSet::from([archetype_of(&world, e), archetype_of(&world, f)]));
    assert_eq!(
        ids(record.empty()),
        BTreeSet::from([world.archetypes().find(&sorted(vec![a, world.component_id::<B>().unwrap().id()])).unwrap()])
    );
    for pattern in [Id::pair(likes, Entity::WILDCARD), Id::pair(Entity::WILDCARD, bob), Id::pair(likes, bob)] {
        let record = index.get(pattern).unwrap();
        assert_eq!(ids(record.non_empty()), BTreeSet::from([archetype_of(&world, f)]), "{pattern:?}");
        assert!(record.empty().is_empty());
    }
    let wildcard = archetype_of(&world, f);
    world.despawn(f);
    let index = world.archetypes().component_index();
    for pattern in [Id::pair(likes, Entity::WILDCARD), Id::pair(likes, bob), Entity::WILDCARD.id()] {
        let record = index.get(pattern).unwrap();
        assert!(!ids(record.non_empty()).contains(&wildcard), "{pattern:?}");
        assert!(ids(record.empty()).contains(&wildcard), "{pattern:?}");
    }
    world.check_invariants();
}

fn sorted(mut ids: Vec<Id>) -> Vec<Id> {
    ids.sort();
    ids
}

/// `count` empty archetypes `{(likes, target_i)}`, of one entity that passes
/// through them.
fn many_empty_archetypes(world: &mut World, count: usize) -> Entity {
    let likes = world.spawn_empty().id();
    let e = world.spawn((A(0),)).id();
    for _ in 0..count {
        let target = world.spawn_empty().id();
        world.add_pair_id(e, likes, target);
        world.remove_pair_id(e, likes, target);
    }
    e
}

#[test]
fn a_zero_time_budget_deletes_a_few_per_call_and_later_calls_finish() {
    let mut world = clean_world();
    let e = many_empty_archetypes(&mut world, 100);
    let empty = world.archetypes().empty_archetypes().count();
    assert!(empty >= 100);
    let budget = GcConfig { empty_for: 1, max_time: Some(Duration::ZERO) };
    let mut total = 0;
    let mut calls = 0;
    loop {
        let deleted = world.collect_garbage(budget);
        world.check_invariants();
        calls += 1;
        assert!(deleted <= 8, "call {calls} deleted {deleted} on a zero budget");
        if deleted == 0 {
            break;
        }
        total += deleted;
    }
    assert_eq!(total, empty);
    assert!(calls > 10);
    assert!(world.archetypes().empty_archetypes().next().is_none());
    assert_eq!(world.get::<A>(e), Some(&A(0)));
    // A generous budget finishes in one call.
    many_empty_archetypes(&mut world, 50);
    let empty = world.archetypes().empty_archetypes().count();
    let budget = GcConfig { empty_for: 1, max_time: Some(Duration::from_secs(60)) };
    assert_eq!(world.collect_garbage(budget), empty);
    world.check_invariants();
}

#[test]
fn live_entities_keep_their_locations_and_values_are_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = clean_world();
    let mut kept = Vec::new();
    for i in 0..20u32 {
        let e = world.spawn((A(i), Counted(drops.clone()))).id();
        if i % 2 == 0 {
            world.insert(e, B(i));
        }
        if i % 3 == 0 {
            world.insert(e, T);
        }
        kept.push(e);
    }
    // Empty archetypes on the way: (A, Counted, C) and (A, Counted, B, C).
    for &e in &kept[..4] {
        world.insert(e, C(0));
        world.remove::<C>(e);
    }
    let locations: Vec<_> = kept.iter().map(|&e| world.entities().location(e)).collect();
    assert!(world.collect_garbage(gc(1)) >= 2);
    assert_eq!(drops.load(Ordering::SeqCst), 0, "collection drops no value");
    for (i, &e) in kept.iter().enumerate() {
        assert_eq!(world.entities().location(e), locations[i], "{e:?} moved");
        assert_eq!(world.get::<A>(e), Some(&A(i as u32)));
        assert_eq!(world.get::<B>(e).is_some(), i % 2 == 0);
    }
    world.check_invariants();
    for &e in &kept {
        world.despawn(e);
    }
    assert_eq!(drops.load(Ordering::SeqCst), kept.len());
    let empty = world.archetypes().empty_archetypes().count();
    assert!(empty >= 4);
    assert_eq!(world.collect_garbage(gc(1)), empty);
    assert_eq!(drops.load(Ordering::SeqCst), kept.len(), "dropped exactly once");
    world.check_invariants();
}

/// Every `(entity, A, Option<B>)` a fresh query sees, sorted.
fn fresh_rows(world: &mut World) -> Vec<(Entity, u32, Option<u32>)> {
    let mut rows: Vec<_> =
        world.query::<(Entity, &A, Option<&B>)>().iter(world).map(|(e, a, b)| (e, a.0, b.map(|b| b.0))).collect();
    rows.sort();
    rows
}

#[test]
fn cached_queries_follow_deleted_and_reused_slots() {
    let mut world = clean_world();
    let mut kept = world.query::<(Entity, &A, Option<&B>)>();
    let mut with_c = world.query_filtered::<Entity, With<C>>();
    let rows = |q: &mut QueryState<(Entity, &A, Option<&B>)>, world: &World| {
        let mut rows: Vec<_> = q.iter(world).map(|(e, a, b)| (e, a.0, b.map(|b| b.0))).collect();
        rows.sort();
        rows
    };
    let mut entities = Vec::new();
    for i in 0..6u32 {
        entities.push(world.spawn((A(i), C(i))).id());
    }
    for &e in &entities[..3] {
        world.insert(e, B(7));
    }
    assert_eq!(rows(&mut kept, &world), fresh_rows(&mut world));
    // Empty (A, C) and (A, B, C), then collect them.
    for &e in &entities {
        world.remove::<C>(e);
    }
    assert_eq!(world.collect_garbage(gc(1)), 2);
    world.check_invariants();
    assert_eq!(rows(&mut kept, &world), fresh_rows(&mut world));
    assert_eq!(with_c.iter(&world).count(), 0);
    // New shapes take the freed slots: the kept states must see them.
    let free_before = world.archetypes().reused_count();
    let e = world.spawn((A(100), T)).id();
    let f = world.spawn((A(101), B(1), C(5))).id();
    assert!(world.archetypes().reused_count() > free_before, "slots are reused (else this test covers less)");
    assert_eq!(rows(&mut kept, &world), fresh_rows(&mut world));
    assert_eq!(with_c.iter(&world).collect::<Vec<_>>(), [f]);
    assert!(rows(&mut kept, &world).iter().any(|row| row.0 == e));
    world.check_invariants();
}

#[test]
fn observers_and_bundle_edges_work_after_collection() {
    let mut world = clean_world();
    world.init_resource::<Added>();
    world.add_observer(|trigger: Trigger<OnAdd, B>, mut added: ResMut<Added>| added.0.push(trigger.entity()));
    let e = world.spawn((A(1),)).id();
    // The bundle (B, C) caches its edge (A) -> (A, B, C); spawning (A, B)
    // caches EMPTY -> (A, B).
    world.insert(e, (B(1), C(1)));
    let abc = archetype_of(&world, e);
    let spawned = world.spawn((A(2), B(2))).id();
    let ab = archetype_of(&world, spawned);
    world.remove::<(B, C)>(e);
    world.despawn(spawned);
    world.resource_mut::<Added>().0.clear();
    assert_eq!(world.collect_garbage(gc(1)), 2);
    assert!(world.archetypes().is_dead(abc) && world.archetypes().is_dead(ab));
    world.check_invariants();
    // Unrelated archetypes take the slots first.
    let other = world.spawn((C(9), T)).id();
    world.check_invariants();
    // The collected destinations are built again.
    world.insert(e, (B(3), C(3)));
    let again = world.spawn((A(4), B(4))).id();
    assert_eq!(world.get::<B>(e), Some(&B(3)));
    assert_eq!(world.get::<C>(e), Some(&C(3)));
    assert_eq!(world.get::<B>(again), Some(&B(4)));
    assert_eq!(world.get::<C>(other), Some(&C(9)));
    assert_eq!(world.resource::<Added>().0, [e, again]);
    world.check_invariants();
}

#[test]
fn collection_after_despawn_cleanup_and_clear() {
    let mut world = clean_world();
    let parent = world.spawn((A(0),)).id();
    for i in 0..4u32 {
        let child = world.spawn((B(i),)).id();
        world.add_pair::<ChildOf>(child, parent);
    }
    world.despawn(parent); // cleanup deletes the pair archetype itself
    world.check_invariants();
    world.spawn_batch((0..10u32).map(|i| (A(i), C(i)))).for_each(drop);
    world.clear_entities();
    world.check_invariants();
    let deleted = world.collect_garbage(gc(1));
    assert!(deleted >= 2);
    assert!(world.archetypes().empty_archetypes().next().is_none());
    world.check_invariants();
}

#[derive(Clone, Debug)]
enum Op {
    Spawn { a: u32, b: bool, c: bool, t: bool },
    Insert { entity: usize, which: u8, value: u32 },
    Remove { entity: usize, which: u8 },
    AddPair { entity: usize, target: usize },
    Despawn { entity: usize },
    Collect { empty_for: u32, zero_budget: bool },
    KeptQuery,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<u32>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(a, b, c, t)| Op::Spawn { a, b, c, t }),
        3 => (any::<usize>(), 0u8..4, any::<u32>()).prop_map(|(entity, which, value)| Op::Insert { entity, which, value }),
        3 => (any::<usize>(), 0u8..4).prop_map(|(entity, which)| Op::Remove { entity, which }),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(entity, target)| Op::AddPair { entity, target }),
        2 => any::<usize>().prop_map(|entity| Op::Despawn { entity }),
        2 => (0u32..4, any::<bool>()).prop_map(|(empty_for, zero_budget)| Op::Collect { empty_for, zero_budget }),
        1 => Just(Op::KeptQuery),
    ]
}

type Row = (Entity, Option<u32>, Option<u32>, Option<u32>, bool);

/// What each live entity holds, as the model expects it.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Model {
    a: Option<u32>,
    b: Option<u32>,
    c: Option<u32>,
    t: bool,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_changes_and_collections_keep_queries_and_invariants(ops in proptest::collection::vec(op(), 1..80)) {
        let mut world = World::new();
        let likes = world.spawn_empty().id();
        let mut model: HashMap<Entity, Model> = HashMap::new();
        let mut entities: Vec<Entity> = Vec::new();
        // Cached states built before any collection, updated only now and then.
        let mut kept = world.query::<(Entity, Option<&A>, Option<&B>, Option<&C>, Has<T>)>();
        let mut kept_a = world.query_filtered::<(Entity, &A), Without<C>>();
        let pick = |entities: &[Entity], i: usize| (!entities.is_empty()).then(|| entities[i % entities.len()]);
        for op in ops {
            match op {
                Op::Spawn { a, b, c, t } => {
                    let mut entity = world.spawn(A(a));
                    if b { entity.insert(B(a)); }
                    if c { entity.insert(C(a)); }
                    if t { entity.insert(T); }
                    let id = entity.id();
                    model.insert(id, Model { a: Some(a), b: b.then_some(a), c: c.then_some(a), t });
                    entities.push(id);
                }
                Op::Insert { entity, which, value } => {
                    if let Some(e) = pick(&entities, entity) && let Some(m) = model.get_mut(&e) {
                        match which {
                            0 => { world.insert(e, A(value)); m.a = Some(value); }
                            1 => { world.insert(e, B(value)); m.b = Some(value); }
                            2 => { world.insert(e, (C(value), T)); m.c = Some(value); m.t = true; }
                            _ => { world.insert(e, T); m.t = true; }
                        }
                    }
                }
                Op::Remove { entity, which } => {
                    if let Some(e) = pick(&entities, entity) && let Some(m) = model.get_mut(&e) {
                        match which {
                            0 => { world.remove::<A>(e); m.a = None; }
                            1 => { world.remove::<B>(e); m.b = None; }
                            2 => { world.entity_mut(e).remove::<(C, T)>(); m.c = None; m.t = false; }
                            _ => { world.remove::<T>(e); m.t = false; }
                        }
                    }
                }
                Op::AddPair { entity, target } => {
                    if let (Some(e), Some(target)) = (pick(&entities, entity), pick(&entities, target))
                        && model.contains_key(&e) && model.contains_key(&target)
                    {
                        world.add_pair_id(e, likes, target);
                    }
                }
                Op::Despawn { entity } => {
                    if let Some(e) = pick(&entities, entity) && model.remove(&e).is_some() {
                        prop_assert!(world.despawn(e));
                    }
                }
                Op::Collect { empty_for, zero_budget } => {
                    let non_empty: Vec<ArchetypeId> = world.archetypes().iter().filter(|a| !a.is_empty()).map(|a| a.id()).collect();
                    let empty_before = world.archetypes().empty_archetypes().count();
                    let max_time = zero_budget.then_some(Duration::ZERO);
                    let deleted = world.collect_garbage(GcConfig { empty_for, max_time });
                    prop_assert!(deleted <= empty_before);
                    if zero_budget { prop_assert!(deleted <= 8); }
                    for id in non_empty {
                        prop_assert!(!world.archetypes().is_dead(id), "non-empty {:?} deleted", id);
                    }
                    if empty_for <= 1 && !zero_budget {
                        prop_assert_eq!(world.archetypes().empty_archetypes().count(), 0);
                    }
                }
                Op::KeptQuery => {
                    let mut rows: Vec<(Entity, u32)> = kept_a.iter(&world).map(|(e, a)| (e, a.0)).collect();
                    rows.sort();
                    let mut fresh: Vec<(Entity, u32)> = world.query_filtered::<(Entity, &A), Without<C>>().iter(&world).map(|(e, a)| (e, a.0)).collect();
                    fresh.sort();
                    prop_assert_eq!(rows, fresh);
                }
            }
            world.check_invariants();
            // The kept state against the model (and so against a fresh query).
            let mut rows: Vec<Row> = kept
                .iter(&world)
                .filter(|row| model.contains_key(&row.0))
                .map(|(e, a, b, c, t)| (e, a.map(|a| a.0), b.map(|b| b.0), c.map(|c| c.0), t))
                .collect();
            rows.sort();
            let mut expected: Vec<Row> = model.iter().map(|(&e, m)| (e, m.a, m.b, m.c, m.t)).collect();
            expected.sort();
            prop_assert_eq!(rows, expected);
        }
    }
}
