//! Tests ported from hecs's `tests/tests.rs` (and the behaviour a hecs user
//! expects) to this crate's API: spawn, despawn, insert/remove/take, queries
//! with optional and filtered terms, `query_one`-style `get`, spawn_batch,
//! reserved entities, generations, clear, zero-sized components.

use std::collections::{BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
struct A(i32);
#[derive(Component, Clone, Debug, PartialEq, Eq, Default)]
struct S(String);
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct F(f32);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[component(storage = "sparse")]
struct Sp(u8);
#[derive(Component, Debug, PartialEq, Eq)]
struct Zst;
#[derive(Component, Debug, PartialEq, Eq)]
struct Zst2;

#[derive(Bundle)]
struct Foo {
    x: A,
    y: S,
}

fn s(v: &str) -> S {
    S(v.to_string())
}

// ----- random access, despawn --------------------------------------------------------

#[test]
fn random_access() {
    let mut world = World::new();
    let e = world.spawn((A(123), s("abc"))).id();
    let f = world.spawn((A(456), s("def"), F(1.0))).id();
    assert_eq!(world.get::<A>(e), Some(&A(123)));
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
    assert_eq!(world.get::<A>(f), Some(&A(456)));
    assert_eq!(world.get::<F>(f), Some(&F(1.0)));
    assert_eq!(world.get::<F>(e), None);
    world.get_mut::<A>(f).unwrap().0 = 42;
    assert_eq!(world.get::<A>(f), Some(&A(42)));
    assert_eq!(world.get::<A>(e), Some(&A(123)));
}

#[test]
fn despawn() {
    let mut world = World::new();
    let e = world.spawn((A(123), s("abc"))).id();
    let f = world.spawn((A(456), s("def"))).id();
    assert_eq!(world.entity_count(), 2);
    assert!(world.despawn(e));
    assert_eq!(world.entity_count(), 1);
    assert!(world.get::<A>(e).is_none());
    assert!(world.get::<S>(e).is_none());
    assert_eq!(world.get::<A>(f), Some(&A(456)));
    assert!(!world.is_alive(e));
    assert!(world.is_alive(f));
    let mut q = world.query::<Entity>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![f]);
}

#[test]
fn despawn_twice_is_false_the_second_time() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    assert!(world.despawn(e));
    assert!(!world.despawn(e));
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn a_despawned_entitys_index_is_reused_with_a_new_generation() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    world.despawn(a);
    let b = world.spawn(A(2)).id();
    assert_ne!(a, b);
    assert!(!world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(world.get::<A>(a), None, "a stale id never reads the new entity's value");
    assert!(!world.insert(a, A(9)), "insert on a stale id is refused");
    assert_eq!(world.get::<A>(b), Some(&A(2)));
    assert!(!world.despawn(a), "despawn of a stale id is refused");
    assert!(world.is_alive(b));
    if a.index() == b.index() {
        assert_ne!(a.generation(), b.generation());
    }
}

#[test]
fn stale_ids_are_rejected_by_queries_and_entity_access() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    world.despawn(a);
    let _b = world.spawn(A(2)).id();
    let mut q = world.query::<&A>();
    assert!(matches!(q.get(&world, a), Err(QueryError::NoSuchEntity(_))));
    assert!(world.get_entity(a).is_none());
    assert!(world.get_entity_mut(a).is_none());
    assert!(!world.has::<A>(a));
    assert!(world.remove::<A>(a).is_none());
}

#[test]
fn entity_panics_when_not_alive() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    world.despawn(a);
    let r = catch_unwind(AssertUnwindSafe(|| {
        let _ = world.entity(a);
    }));
    assert!(r.is_err());
}

// ----- queries -----------------------------------------------------------------------

#[test]
fn query_all() {
    let mut world = World::new();
    let e = world.spawn((A(123), s("abc"))).id();
    let f = world.spawn((A(456), s("def"))).id();

    let mut q = world.query::<(Entity, &A, &S)>();
    let ents = q.iter(&world).map(|(e, a, s)| (e, *a, s.clone())).collect::<Vec<_>>();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&(e, A(123), s("abc"))));
    assert!(ents.contains(&(f, A(456), s("def"))));

    let mut q = world.query::<Entity>();
    let ents = q.iter(&world).collect::<Vec<_>>();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&e));
    assert!(ents.contains(&f));
}

#[test]
fn query_single_component() {
    let mut world = World::new();
    let e = world.spawn((A(123), s("abc"))).id();
    let f = world.spawn((A(456), s("def"))).id();
    let mut q = world.query::<(Entity, &A)>();
    let ents = q.iter(&world).map(|(e, a)| (e, *a)).collect::<Vec<_>>();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&(e, A(123))));
    assert!(ents.contains(&(f, A(456))));
}

#[test]
fn query_missing_component() {
    let mut world = World::new();
    world.spawn((A(123), s("abc")));
    world.spawn((A(456), s("def")));
    let mut q = world.query::<(&bool_like::B, &A)>();
    assert!(q.iter(&world).next().is_none());
}

mod bool_like {
    use ecs::prelude::*;
    #[derive(Component)]
    pub struct B(#[allow(dead_code)] pub bool);
}

#[test]
fn query_sparse_component() {
    let mut world = World::new();
    world.spawn((A(123), s("abc")));
    let f = world.spawn((A(456), s("def"), F(1.0))).id();
    let mut q = world.query::<(Entity, &F)>();
    let ents = q.iter(&world).map(|(e, b)| (e, *b)).collect::<Vec<_>>();
    assert_eq!(ents, &[(f, F(1.0))]);
}

#[test]
fn query_sparse_storage_component() {
    let mut world = World::new();
    world.spawn((A(123), s("abc")));
    let f = world.spawn((A(456), Sp(3))).id();
    let g = world.spawn(Sp(4)).id();
    let mut q = world.query::<(Entity, &Sp)>();
    let mut ents = q.iter(&world).map(|(e, b)| (e, *b)).collect::<Vec<_>>();
    ents.sort();
    let mut expected = vec![(f, Sp(3)), (g, Sp(4))];
    expected.sort();
    assert_eq!(ents, expected);
    let mut q = world.query_filtered::<Entity, (With<Sp>, With<A>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![f]);
}

impl PartialOrd for Sp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Sp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

#[test]
fn query_optional_component() {
    let mut world = World::new();
    let e = world.spawn((A(123), s("abc"))).id();
    let f = world.spawn((A(456), s("def"), F(1.0))).id();
    let mut q = world.query::<(Entity, Option<&F>, &A)>();
    let ents = q.iter(&world).map(|(e, b, &a)| (e, b.copied(), a)).collect::<Vec<_>>();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&(e, None, A(123))));
    assert!(ents.contains(&(f, Some(F(1.0)), A(456))));
}

#[test]
fn query_optional_sparse_component() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let f = world.spawn((A(2), Sp(7))).id();
    let mut q = world.query::<(Entity, Option<&Sp>, Has<Sp>)>();
    let mut rows = q.iter(&world).map(|(e, sp, has)| (e, sp.copied(), has)).collect::<Vec<_>>();
    rows.sort_by_key(|r| r.0);
    let mut expected = vec![(e, None, false), (f, Some(Sp(7)), true)];
    expected.sort_by_key(|r| r.0);
    assert_eq!(rows, expected);
}

#[test]
fn query_with_and_without_filters() {
    let mut world = World::new();
    let e = world.spawn((A(1), F(1.0))).id();
    let f = world.spawn(A(2)).id();
    let g = world.spawn((A(3), Zst)).id();
    let mut q = world.query_filtered::<Entity, With<F>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![e]);
    let mut q = world.query_filtered::<Entity, (With<A>, Without<F>)>();
    let got: BTreeSet<Entity> = q.iter(&world).collect();
    assert_eq!(got, BTreeSet::from([f, g]));
    let mut q = world.query_filtered::<Entity, Or<(With<F>, With<Zst>)>>();
    let got: BTreeSet<Entity> = q.iter(&world).collect();
    assert_eq!(got, BTreeSet::from([e, g]));
}

#[test]
fn query_mut_writes_are_visible() {
    let mut world = World::new();
    let e = world.spawn((A(1), F(2.0))).id();
    let f = world.spawn(A(10)).id();
    let mut q = world.query::<&mut A>();
    for mut a in q.iter_mut(&mut world) {
        a.0 *= 2;
    }
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    assert_eq!(world.get::<A>(f), Some(&A(20)));
}

#[test]
fn query_one_get() {
    let mut world = World::new();
    let a = world.spawn((A(123), s("abc"))).id();
    let b = world.spawn((s("def"), A(456))).id();
    let c = world.spawn((A(42), s("ghi"), F(0.5))).id();
    let d = world.spawn(F(1.0)).id();
    let mut q = world.query::<&A>();
    assert_eq!(q.get(&world, a).ok(), Some(&A(123)));
    assert_eq!(q.get(&world, b).ok(), Some(&A(456)));
    assert_eq!(q.get(&world, c).ok(), Some(&A(42)));
    assert_eq!(q.get(&world, d), Err(QueryError::QueryDoesNotMatch(d)));
    world.despawn(a);
    let mut q = world.query::<&A>();
    assert_eq!(q.get(&world, a), Err(QueryError::NoSuchEntity(a)));
}

#[test]
fn query_get_mut_and_tuple() {
    let mut world = World::new();
    let e = world.spawn((A(1), s("x"))).id();
    let mut q = world.query::<(&mut A, &S)>();
    {
        let (mut a, st) = q.get_mut(&mut world, e).unwrap();
        a.0 += st.0.len() as i32;
    }
    assert_eq!(world.get::<A>(e), Some(&A(2)));
}

#[test]
fn query_state_sees_archetypes_created_after_it() {
    let mut world = World::new();
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), 0);
    world.spawn(A(1));
    world.spawn((A(2), F(0.0)));
    world.spawn((A(3), Sp(1)));
    assert_eq!(q.iter(&world).count(), 3);
    let mut sum = 0;
    for a in q.iter(&world) {
        sum += a.0;
    }
    assert_eq!(sum, 6);
}

#[test]
fn query_len_is_exact_for_unfiltered_queries() {
    let mut world = World::new();
    for i in 0..10 {
        world.spawn(A(i));
    }
    for i in 0..5 {
        world.spawn((A(i), F(0.0)));
    }
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), 15);
    let (lo, hi) = q.iter(&world).size_hint();
    assert!(lo <= 15 && hi.is_none_or(|h| h >= 15));
}

#[test]
fn single_errors_for_none_and_many() {
    let mut world = World::new();
    let mut q = world.query::<&A>();
    assert!(matches!(q.single(&world), Err(QuerySingleError::NoEntities(_))));
    world.spawn(A(1));
    let mut q = world.query::<&A>();
    assert_eq!(q.single(&world), Ok(&A(1)));
    world.spawn(A(2));
    let mut q = world.query::<&A>();
    assert!(matches!(q.single(&world), Err(QuerySingleError::MultipleEntities(_))));
}

// ----- insert / remove / take ------------------------------------------------------

#[test]
fn dynamic_components_insert_and_remove() {
    let mut world = World::new();
    let e = world.spawn((A(42),)).id();
    world.insert(e, (F(1.5), s("abc")));
    assert_eq!(world.get::<A>(e), Some(&A(42)));
    assert_eq!(world.get::<F>(e), Some(&F(1.5)));
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
    assert_eq!(world.remove::<(A, S)>(e), Some((A(42), s("abc"))));
    assert_eq!(world.get::<A>(e), None);
    assert_eq!(world.get::<S>(e), None);
    assert_eq!(world.get::<F>(e), Some(&F(1.5)));
    assert!(world.is_alive(e));
}

#[test]
fn replacement_insert_overwrites_values() {
    let mut world = World::new();
    let e = world.spawn((A(1), s("a"))).id();
    world.insert(e, (A(2), F(0.0)));
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    assert_eq!(world.get::<S>(e), Some(&s("a")));
    world.insert(e, A(3));
    assert_eq!(world.get::<A>(e), Some(&A(3)));
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), 1);
}

#[test]
fn remove_missing_component_returns_none_and_keeps_the_entity() {
    let mut world = World::new();
    let e = world.spawn((A(42), s("abc"))).id();
    assert!(world.remove::<F>(e).is_none());
    assert_eq!(world.get::<A>(e), Some(&A(42)));
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
}

#[test]
fn remove_of_a_partly_missing_bundle_changes_nothing() {
    // hecs: `remove::<(A, F)>` on an entity without F is `Err(MissingComponent)` and
    // leaves the entity intact; a bundle remove that returns None cannot have
    // removed (and dropped) A.
    let mut world = World::new();
    let e = world.spawn((A(42), s("abc"))).id();
    assert!(world.remove::<(A, F)>(e).is_none());
    assert_eq!(world.get::<A>(e), Some(&A(42)), "A's value is lost although remove returned None");
}

#[test]
fn take_of_a_partly_missing_bundle_changes_nothing() {
    // Bevy: `EntityWorldMut::take` returns None and removes nothing if any is missing.
    let mut world = World::new();
    let e = world.spawn((A(42), s("abc"))).id();
    assert!(world.entity_mut(e).take::<(A, F)>().is_none());
    assert_eq!(world.get::<A>(e), Some(&A(42)));
}

#[test]
fn take_returns_the_bundle_and_removes_it() {
    let mut world = World::new();
    let e = world.spawn(Foo { x: A(1), y: s("one") }).id();
    world.insert(e, F(2.0));
    let taken = world.entity_mut(e).take::<(A, S)>();
    assert_eq!(taken, Some((A(1), s("one"))));
    assert!(!world.has::<A>(e));
    assert!(!world.has::<S>(e));
    assert!(world.has::<F>(e));
}

#[test]
fn remove_last_component_keeps_the_entity_alive() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    assert_eq!(world.remove::<A>(e), Some(A(1)));
    assert!(world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
    let mut q = world.query::<Entity>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![e]);
}

#[test]
fn insert_on_despawned_entity_is_refused() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    world.despawn(e);
    assert!(!world.insert(e, F(1.0)));
    assert_eq!(world.entity_count(), 0);
    assert!(world.get_entity_mut(e).is_none());
}

#[test]
fn exchange_components_by_remove_then_insert() {
    let mut world = World::new();
    let e = world.spawn((A(1), s("x"))).id();
    let a = world.remove::<A>(e).unwrap();
    world.insert(e, F(a.0 as f32));
    assert!(!world.has::<A>(e));
    assert_eq!(world.get::<F>(e), Some(&F(1.0)));
    assert_eq!(world.get::<S>(e), Some(&s("x")));
}

#[test]
fn insert_and_remove_sparse_keeps_other_values() {
    let mut world = World::new();
    let e = world.spawn((A(1), s("x"))).id();
    let others: Vec<Entity> = (0..10).map(|i| world.spawn(A(100 + i)).id()).collect();
    world.insert(e, Sp(5));
    assert_eq!(world.get::<Sp>(e), Some(&Sp(5)));
    assert_eq!(world.remove::<Sp>(e), Some(Sp(5)));
    assert_eq!(world.remove::<Sp>(e), None);
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    for (i, o) in others.iter().enumerate() {
        assert_eq!(world.get::<A>(*o), Some(&A(100 + i as i32)));
    }
}

#[test]
fn table_add_remove_many_keeps_values_straight() {
    let mut world = World::new();
    let mut entities = Vec::new();
    for i in 0..1000 {
        entities.push(world.spawn(A(i)).id());
    }
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 0 {
            world.insert(e, F(i as f32));
        }
    }
    for (i, &e) in entities.iter().enumerate() {
        if i % 2 == 0 {
            world.remove::<A>(e);
        }
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<A>(e).copied(), if i % 2 == 0 { None } else { Some(A(i as i32)) });
        assert_eq!(world.get::<F>(e).copied(), if i % 3 == 0 { Some(F(i as f32)) } else { None });
    }
    world.check_invariants();
}

// ----- spawn_batch, spawn_many, clear ------------------------------------------------

#[test]
fn spawn_batch() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..100).map(|x| (A(x), s("abc")))).collect();
    assert_eq!(ids.len(), 100);
    let mut q = world.query::<(Entity, &A)>();
    let entities = q.iter(&world).map(|(e, &a)| (e, a)).collect::<Vec<_>>();
    assert_eq!(entities.len(), 100);
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(world.get::<A>(*id), Some(&A(i as i32)));
    }
}

#[test]
fn spawn_batch_spawns_everything_even_when_not_consumed() {
    let mut world = World::new();
    drop(world.spawn_batch((0..10).map(A)));
    assert_eq!(world.entity_count(), 10);
    let mut it = world.spawn_batch((0..10).map(A));
    let _first = it.next();
    drop(it);
    assert_eq!(world.entity_count(), 20);
}

#[test]
fn spawn_batch_ids_are_distinct_and_alive() {
    let mut world = World::new();
    let dead = world.spawn(A(0)).id();
    world.despawn(dead);
    let ids: Vec<Entity> = world.spawn_batch((0..50).map(|i| (A(i), F(0.0)))).collect();
    let set: HashSet<Entity> = ids.iter().copied().collect();
    assert_eq!(set.len(), 50);
    assert!(!set.contains(&dead));
    assert!(ids.iter().all(|&e| world.is_alive(e)));
}

#[test]
fn spawn_many() {
    let mut world = World::new();
    const N: usize = 100_000;
    for i in 0..N as i32 {
        world.spawn((A(i),));
    }
    assert_eq!(world.entity_count(), N);
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), N);
}

#[test]
fn spawn_many_then_despawn_half() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..10_000).map(|i| world.spawn((A(i), F(i as f32))).id()).collect();
    for &e in ids.iter().step_by(2) {
        assert!(world.despawn(e));
    }
    assert_eq!(world.entity_count(), 5_000);
    for (i, &e) in ids.iter().enumerate() {
        if i % 2 == 0 {
            assert!(!world.is_alive(e));
        } else {
            assert_eq!(world.get::<A>(e), Some(&A(i as i32)));
        }
    }
}

#[test]
fn clear_entities() {
    let mut world = World::new();
    world.spawn((A(1), s("a")));
    world.spawn((F(1.0), Sp(2)));
    world.insert_resource(Res1);
    assert_eq!(world.entity_count(), 2);
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    let mut q = world.query::<Entity>();
    assert_eq!(q.iter(&world).count(), 0);
    assert!(world.contains_resource::<Res1>(), "resources stay");
    let e = world.spawn(A(5)).id();
    assert_eq!(world.get::<A>(e), Some(&A(5)));
    assert_eq!(world.entity_count(), 1);
}

#[derive(Resource)]
struct Res1;

// ----- reserve -----------------------------------------------------------------------

#[test]
fn reserve_then_insert() {
    let mut world = World::new();
    let a = world.reserve_entity();
    let b = world.reserve_entity();
    assert_ne!(a, b);
    assert!(world.insert(a, (A(1), s("x"))), "insert flushes reserved ids");
    assert!(world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(world.get::<A>(a), Some(&A(1)));
    assert_eq!(world.entity_count(), 2);
    let mut q = world.query::<Entity>();
    let got: BTreeSet<Entity> = q.iter(&world).collect();
    assert_eq!(got, BTreeSet::from([a, b]));
}

#[test]
fn reserve_then_flush_then_spawn_gets_new_ids() {
    let mut world = World::new();
    let reserved: Vec<Entity> = (0..5).map(|_| world.reserve_entity()).collect();
    world.flush();
    assert!(reserved.iter().all(|&e| world.is_alive(e)));
    let e = world.spawn(A(1)).id();
    assert!(!reserved.contains(&e));
    assert_eq!(world.entity_count(), 6);
}

#[test]
fn reserve_reuses_freed_ids_without_confusion() {
    let mut world = World::new();
    let dead = world.spawn(A(0)).id();
    world.despawn(dead);
    let r = world.reserve_entity();
    assert_ne!(r, dead);
    world.flush();
    assert!(world.is_alive(r));
    assert!(!world.is_alive(dead));
}

// ----- entity ids --------------------------------------------------------------------

#[test]
fn entity_is_eight_bytes_and_roundtrips_bits() {
    assert_eq!(std::mem::size_of::<Entity>(), 8);
    assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
}

#[test]
fn entity_ordering_and_hash_are_consistent() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..20).map(|i| world.spawn(A(i)).id()).collect();
    let set: HashSet<Entity> = ids.iter().copied().collect();
    let sorted: BTreeSet<Entity> = ids.iter().copied().collect();
    assert_eq!(set.len(), 20);
    assert_eq!(sorted.len(), 20);
}

// ----- zero-sized components, bundles ----------------------------------------------

#[test]
fn spawn_and_remove_zst_components() {
    let mut world = World::new();
    let e = world.spawn((Zst, A(1), Zst2)).id();
    assert!(world.has::<Zst>(e));
    assert_eq!(world.get::<Zst>(e), Some(&Zst));
    assert_eq!(world.remove::<Zst>(e), Some(Zst));
    assert!(!world.has::<Zst>(e));
    assert!(world.has::<Zst2>(e));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    let mut q = world.query::<(Entity, &Zst2)>();
    assert_eq!(q.iter(&world).count(), 1);
    let only_zst = world.spawn(Zst).id();
    let mut q = world.query_filtered::<Entity, With<Zst>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![only_zst]);
}

#[test]
fn derived_bundle() {
    let mut world = World::new();
    let e = world.spawn(Foo { x: A(42), y: s("abc") }).id();
    assert_eq!(world.get::<A>(e), Some(&A(42)));
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
    let taken = world.remove::<Foo>(e).map(|f| (f.x, f.y));
    assert_eq!(taken, Some((A(42), s("abc"))));
    assert!(!world.has::<A>(e));
}

#[test]
fn duplicate_components_in_a_bundle_panic() {
    // hecs and Bevy both refuse a bundle that names a component twice.
    let mut world = World::new();
    let r = catch_unwind(AssertUnwindSafe(|| {
        world.spawn((A(1), A(2)));
    }));
    assert!(r.is_err(), "spawn((A(1), A(2))) should panic (duplicate component)");
}

#[test]
fn entity_ref_api() {
    let mut world = World::new();
    let e = world.spawn((A(1), s("x"))).id();
    let r = world.entity(e);
    assert_eq!(r.id(), e);
    assert!(r.contains::<A>());
    assert!(!r.contains::<F>());
    assert_eq!(r.get::<S>(), Some(&s("x")));
    let mut m = world.entity_mut(e);
    m.get_mut::<A>().unwrap().0 = 5;
    m.insert(F(1.0));
    assert!(m.contains::<F>());
    m.remove::<S>();
    assert!(!m.contains::<S>());
    assert_eq!(m.get::<A>(), Some(&A(5)));
    m.despawn();
    assert!(!world.is_alive(e));
}

#[test]
fn query_iteration_after_moves_sees_each_entity_once() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..64).map(|i| world.spawn(A(i)).id()).collect();
    for &e in &ids[..32] {
        world.insert(e, F(0.0));
    }
    for &e in &ids[16..48] {
        world.insert(e, Zst);
    }
    let mut q = world.query::<(Entity, &A)>();
    let seen: Vec<Entity> = q.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(seen.len(), 64);
    let set: HashSet<Entity> = seen.into_iter().collect();
    assert_eq!(set.len(), 64);
}

#[test]
fn components_are_dropped_on_despawn_and_overwrite() {
    use std::sync::Arc;
    #[derive(Component)]
    struct Tracked(#[allow(dead_code)] Arc<()>);
    let token = Arc::new(());
    let mut world = World::new();
    let e = world.spawn(Tracked(token.clone())).id();
    let f = world.spawn((Tracked(token.clone()), A(1))).id();
    assert_eq!(Arc::strong_count(&token), 3);
    world.insert(e, Tracked(token.clone()));
    assert_eq!(Arc::strong_count(&token), 3, "the overwritten value is dropped");
    world.despawn(e);
    assert_eq!(Arc::strong_count(&token), 2);
    world.remove::<Tracked>(f);
    assert_eq!(Arc::strong_count(&token), 1);
    world.insert(f, Tracked(token.clone()));
    drop(world);
    assert_eq!(Arc::strong_count(&token), 1, "dropping the world drops its components");
}

// ----- more query shapes -------------------------------------------------------------

#[test]
fn empty_entities_are_alive_counted_and_queried() {
    let mut world = World::new();
    let e = world.spawn(()).id();
    let f = world.spawn_empty().id();
    assert_eq!(world.entity_count(), 2);
    let mut q = world.query::<Entity>();
    assert_eq!(BTreeSet::from_iter(q.iter(&world)), BTreeSet::from([e, f]));
    let mut q = world.query::<(Entity, Option<&A>)>();
    assert_eq!(q.iter(&world).count(), 2);
    world.insert(e, A(1));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
}

#[test]
fn entity_only_query_includes_sparse_only_entities() {
    let mut world = World::new();
    let e = world.spawn(Sp(1)).id();
    let mut q = world.query::<(Entity, Has<Sp>, Has<A>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(e, true, false)]);
}

#[test]
fn optional_mut_writes() {
    let mut world = World::new();
    let e = world.spawn((A(1), F(1.0))).id();
    let f = world.spawn(A(2)).id();
    let mut q = world.query::<(&A, Option<&mut F>)>();
    for (a, f) in q.iter_mut(&mut world) {
        if let Some(mut f) = f {
            f.0 += a.0 as f32;
        }
    }
    assert_eq!(world.get::<F>(e), Some(&F(2.0)));
    assert_eq!(world.get::<F>(f), None);
}

#[test]
fn filtered_get_reports_does_not_match() {
    let mut world = World::new();
    let e = world.spawn((A(1), Zst)).id();
    let f = world.spawn(A(2)).id();
    let mut q = world.query_filtered::<&A, Without<Zst>>();
    assert_eq!(q.get(&world, e), Err(QueryError::QueryDoesNotMatch(e)));
    assert_eq!(q.get(&world, f), Ok(&A(2)));
    let mut q = world.query_filtered::<Entity, Or<(Without<Zst>, With<Sp>)>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![f]);
}

#[test]
fn has_and_get_mut_on_zst() {
    let mut world = World::new();
    let e = world.spawn(Zst).id();
    assert!(world.get_mut::<Zst>(e).is_some());
    let mut q = world.query::<Has<Zst>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![true]);
    let mut q = world.query::<&mut Zst>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
}

#[test]
fn query_state_get_many_and_combinations() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    let b = world.spawn(A(2)).id();
    let c = world.spawn(A(3)).id();
    let mut q = world.query::<&mut A>();
    {
        let [mut x, mut y] = q.get_many_mut(&mut world, [a, c]).unwrap();
        std::mem::swap(&mut x.0, &mut y.0);
    }
    assert!(q.get_many_mut(&mut world, [b, b]).is_err());
    assert_eq!(world.get::<A>(a), Some(&A(3)));
    assert_eq!(world.get::<A>(c), Some(&A(1)));
    let mut q = world.query::<&A>();
    assert_eq!(q.iter_combinations::<2>(&world).count(), 3);
    assert_eq!(q.get_many(&world, [a, b]).unwrap().map(|x| x.0), [3, 2]);
}

#[test]
fn world_insert_bundle_with_sparse_and_table_then_remove_some() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    world.insert(e, (Sp(2), F(3.0), Zst));
    assert_eq!(world.remove::<(Sp, Zst)>(e), Some((Sp(2), Zst)));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert_eq!(world.get::<F>(e), Some(&F(3.0)));
    assert!(!world.has::<Sp>(e) && !world.has::<Zst>(e));
}
