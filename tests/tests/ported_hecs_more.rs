//! More tests ported from hecs (github.com/Ralith/hecs): the tests of
//! `tests/tests.rs` that `ported_hecs.rs` does not already cover, plus the unit
//! tests of `src/world.rs`, `src/command_buffer.rs` and `src/entities.rs` that
//! our public API can express. hecs' `PreparedQuery`/`View`/`query_one` map to
//! `QueryState` (`iter`, `get`, `get_mut`, `get_many_mut`), `CommandBuffer` to a
//! `CommandQueue` with `Commands`, `World::len` to `entity_count`, `World::clear`
//! to `clear_entities`, `take` to `EntityWorldMut::take` + `despawn`,
//! `EntityBuilder` bundles to tuples, hecs' bare types (`i32`, `&str`, `bool`)
//! to newtype components.
//!
//! NOT ported, and why:
//! - already in `ported_hecs.rs`: random_access, despawn, query_all,
//!   query_single_component, query_missing_component, query_sparse_component,
//!   query_optional_component, invalidate_prepared_query, dynamic_components,
//!   derived_bundle, spawn_many, clear, remove_missing, exchange_components,
//!   reserve, spawn_batch, query_one, duplicate_components_panic.
//! - derived_query, derived_enum_query*, derived_bundle_clone, build_entity_clone,
//!   build_builder_clone, cloned_builder, build_dynamic_bundle,
//!   access_builder_components: no `#[derive(Query)]`, no enum queries, no
//!   `EntityBuilder`/`DynamicBundleClone`.
//! - illegal_borrow*, illegal_query_*_borrow*, illegal_random_access, view_mut_panic:
//!   these aliasing errors are compile errors here (API.md), not runtime panics.
//! - query_batched, query_mut_batched, spawn_column_batch, columnar_access,
//!   component_ref_map, bad_bundle_derive (compile-time here), serialize tests,
//!   world.rs `deterministic_ids`/`single_element_freelist`/
//!   `spawn_column_batch_at_redundant`: no batched iteration, column batches,
//!   archetype column access, `Ref::map`, freelist access.
//! - world.rs `clear_repeats_entity_id`: hecs' `clear` resets the allocator (same
//!   id and generation again); here `clear_entities` despawns, so generations grow
//!   (the safe behaviour for stale handles).
//! - command_buffer.rs `populate_archetypes`: counts archetypes, an implementation
//!   detail (ours also has built-in ones).
//! - entities.rs internals (`alloc_many_updates_pending`, `reserve_grows*`, raw
//!   `Entities` API) beyond what `World` exposes.
//! - `spawn_at` (world.rs): hecs' `spawn_at` of a live index replaces the living
//!   entity; here it is an `Err` while any entity with that index is alive
//!   (API.md). Ported with that expectation.
//!
//! Adapted: `reuse_populated` registers its second component first (components
//! are entities here, so registering one on first use takes the freed index);
//! `simultaneous_access_must_be_non_overlapping` and `query_many_duplicate` expect
//! an `Err` from `get_many_mut` where hecs panics (API.md).
//!
//! No findings: every ported test passes.

use std::sync::Arc;

use ecs::entity::SpawnError;
use ecs::system::CommandQueue;

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
struct A(i32);
#[derive(Component, Clone, Debug, PartialEq, Eq, Default)]
struct S(String);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct B(bool);
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct F(f64);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct U(u8);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Big([u8; 1024]);
#[derive(Component, Debug)]
struct C;
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[component(storage = "sparse")]
struct Sp(u16);

fn s(v: &str) -> S {
    S(v.to_string())
}

/// Builds commands against `world`, then applies them (hecs' `CommandBuffer::run_on`).
fn run_on(world: &mut World, build: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, world);
        build(&mut commands);
    }
    queue.apply(world);
}

// ===== tests/tests.rs ======================================================================

#[test]
fn prepare_query() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let f = world.spawn((s("def"), A(456))).id();
    let mut query = world.query::<(Entity, &A, &S)>();
    let ents: Vec<(Entity, i32, String)> = query.iter(&world).map(|(e, a, s)| (e, a.0, s.0.clone())).collect();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&(e, 123, "abc".into())));
    assert!(ents.contains(&(f, 456, "def".into())));
    let ents: Vec<(Entity, i32, String)> = query.iter_mut(&mut world).map(|(e, a, s)| (e, a.0, s.0.clone())).collect();
    assert_eq!(ents.len(), 2);
    assert!(ents.contains(&(e, 123, "abc".into())));
    assert!(ents.contains(&(f, 456, "def".into())));
}

#[test]
fn random_access_via_view() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let f = world.spawn((s("def"),)).id();
    let mut query = world.query::<(&A, &S)>();
    let (i, st) = query.get(&world, e).unwrap();
    assert_eq!((i.0, st.0.as_str()), (123, "abc"));
    assert!(query.get(&world, f).is_err());
}

#[test]
fn random_access_via_view_mut() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let f = world.spawn((s("def"),)).id();
    let mut query = world.query::<(&mut A, &S)>();
    {
        let (mut i, st) = query.get_mut(&mut world, e).unwrap();
        assert_eq!((i.0, st.0.as_str()), (123, "abc"));
        i.0 = 124;
    }
    assert!(query.get_mut(&mut world, f).is_err());
    assert!(query.get(&world, e).is_ok());
    assert!(query.get(&world, f).is_err());
    assert_eq!(world.get::<A>(e), Some(&A(124)));
}

#[test]
fn view_borrow_on_world() {
    // tests/tests.rs
    let mut world = World::new();
    let e0 = world.spawn((A(3), s("hello"))).id();
    let e1 = world.spawn((F(6.0), s("world"))).id();
    let e2 = world.spawn((A(12),)).id();
    {
        let mut str_view = world.query::<&S>();
        assert_eq!(str_view.get(&world, e0).unwrap().0, "hello");
        assert_eq!(str_view.get(&world, e1).unwrap().0, "world");
        assert!(str_view.get(&world, e2).is_err());
    }
    {
        let mut int_view = world.query::<&mut A>();
        assert_eq!(int_view.get_mut(&mut world, e0).unwrap().0, 3);
        assert!(int_view.get_mut(&mut world, e1).is_err());
        assert_eq!(int_view.get_mut(&mut world, e2).unwrap().0, 12);
        int_view.get_mut(&mut world, e0).unwrap().0 = 100;
    }
    {
        let mut int_str_view = world.query::<(&S, &mut A)>();
        let (st, i) = int_str_view.get_mut(&mut world, e0).unwrap();
        assert_eq!((st.0.as_str(), i.0), ("hello", 100));
        assert!(int_str_view.get_mut(&mut world, e1).is_err());
        assert!(int_str_view.get_mut(&mut world, e2).is_err());
    }
}

#[test]
fn view_mut_on_world() {
    // tests/tests.rs
    let mut world = World::new();
    let e0 = world.spawn((A(3), s("hello"))).id();
    let e1 = world.spawn((F(6.0), s("world"))).id();
    let e2 = world.spawn((A(12),)).id();
    let mut int_view = world.query::<&mut A>();
    for (e, expected) in [(e0, Some(3)), (e1, None), (e2, Some(12))] {
        assert_eq!(int_view.get_mut(&mut world, e).ok().map(|a| a.0), expected);
    }
    int_view.get_mut(&mut world, e0).unwrap().0 = 100;
    let mut int_str_view = world.query::<(&S, &mut A)>();
    let (st, i) = int_str_view.get_mut(&mut world, e0).unwrap();
    assert_eq!((st.0.as_str(), i.0), ("hello", 100));
}

#[test]
fn simultaneous_access_must_be_non_overlapping() {
    // tests/tests.rs (hecs panics; here get_many_mut reports an Err, API.md)
    let mut world = World::new();
    let a = world.spawn((A(1),)).id();
    let b = world.spawn((A(2),)).id();
    let c = world.spawn((A(3),)).id();
    let d = world.spawn((A(4),)).id();
    let mut query = world.query::<&mut A>();
    assert!(query.get_many_mut(&mut world, [a, d, c, b, a]).is_err());
    let [mut x, mut y, mut z, mut w] = query.get_many_mut(&mut world, [a, d, c, b]).unwrap();
    x.0 += 10;
    y.0 += 10;
    z.0 += 10;
    w.0 += 10;
    assert_eq!(world.get::<A>(a), Some(&A(11)));
    assert_eq!(world.get::<A>(d), Some(&A(14)));
}

#[test]
fn build_entity() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let mut big = [0u8; 1024];
    big[1023] = 7;
    let f = world.spawn((s("def"), Big(big), A(789))).id();
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
    assert_eq!(world.get::<A>(e), Some(&A(123)));
    assert_eq!(world.get::<S>(f), Some(&s("def")));
    assert_eq!(world.get::<A>(f), Some(&A(789)));
    assert_eq!(world.get::<Big>(f).unwrap().0[1023], 7);
    assert!(world.get::<Big>(e).is_none());
}

#[test]
fn build_entity_bundle() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let f = world.spawn((A(456),)).id();
    world.entity_mut(f).insert((s("def"), Big([3; 1024]), A(789)));
    assert_eq!(world.get::<S>(e), Some(&s("abc")));
    assert_eq!(world.get::<A>(e), Some(&A(123)));
    assert_eq!(world.get::<S>(f), Some(&s("def")));
    assert_eq!(world.get::<A>(f), Some(&A(789)));
    assert_eq!(world.get::<Big>(f), Some(&Big([3; 1024])));
}

#[test]
fn spawn_buffered_entity() {
    // tests/tests.rs
    let mut world = World::new();
    let ent = world.reserve_entity();
    let ent1 = world.reserve_entity();
    let ent2 = world.reserve_entity();
    let ent3 = world.reserve_entity();
    run_on(&mut world, |buffer| {
        buffer.entity(ent).insert((A(1), B(true)));
        buffer.entity(ent1).insert((A(13), F(7.11), s("hecs")));
        buffer.entity(ent2).insert((U(17), B(false), Sp(3)));
        buffer.entity(ent3).insert((U(2), s("qwe"), F(101.103), B(false)));
    });
    assert_eq!(world.get::<B>(ent), Some(&B(true)));
    assert_eq!(world.get::<B>(ent2), Some(&B(false)));
    assert_eq!(world.get::<Sp>(ent2), Some(&Sp(3)));
    assert_eq!(world.get::<S>(ent1), Some(&s("hecs")));
    assert_eq!(world.get::<A>(ent1), Some(&A(13)));
    assert_eq!(world.get::<U>(ent3), Some(&U(2)));
    assert_eq!(world.entity_count(), 4);
    world.check_invariants();
}

#[test]
fn despawn_buffered_entity() {
    // tests/tests.rs
    let mut world = World::new();
    let ent = world.spawn((A(1), B(true))).id();
    run_on(&mut world, |buffer| {
        buffer.entity(ent).despawn();
    });
    assert!(!world.is_alive(ent));
}

#[test]
fn remove_buffered_component() {
    // tests/tests.rs
    let mut world = World::new();
    let ent = world.spawn((A(7), B(true), s("hecs"))).id();
    run_on(&mut world, |buffer| {
        buffer.entity(ent).remove::<(A, S)>();
    });
    assert!(world.get::<S>(ent).is_none());
    assert!(world.get::<A>(ent).is_none());
    assert_eq!(world.get::<B>(ent), Some(&B(true)));
}

#[test]
fn disjoint_queries() {
    // tests/tests.rs
    let mut world = World::new();
    world.spawn((s("abc"), B(true)));
    world.spawn((s("def"), A(456)));
    let mut a = world.query::<(&mut S, &B)>();
    let mut b = world.query::<(&mut S, &A)>();
    assert_eq!(a.iter_mut(&mut world).count(), 1);
    assert_eq!(b.iter_mut(&mut world).count(), 1);
}

#[test]
fn shared_borrow() {
    // tests/tests.rs
    let mut world = World::new();
    world.spawn((s("abc"), A(123)));
    world.spawn((s("def"), A(456)));
    let mut q = world.query::<(&A, &A)>();
    let mut sums: Vec<i32> = q.iter(&world).map(|(x, y)| x.0 + y.0).collect();
    sums.sort();
    assert_eq!(sums, vec![246, 912]);
}

#[test]
fn query_or() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn((s("abc"), A(123))).id();
    let _ = world.spawn((s("def"),));
    let f = world.spawn((s("ghi"), B(true))).id();
    let g = world.spawn((s("jkl"), A(456), B(false))).id();
    let mut q = world.query_filtered::<(Entity, &S, Option<&A>, Option<&B>), Or<(With<A>, With<B>)>>();
    let results: Vec<_> = q.iter(&world).map(|(e, st, a, b)| (e, st.0.clone(), a.copied(), b.copied())).collect();
    assert_eq!(results.len(), 3);
    assert!(results.contains(&(e, "abc".into(), Some(A(123)), None)));
    assert!(results.contains(&(f, "ghi".into(), None, Some(B(true)))));
    assert!(results.contains(&(g, "jkl".into(), Some(A(456)), Some(B(false)))));
}

#[test]
fn len() {
    // tests/tests.rs
    let mut world = World::new();
    let ent = world.spawn(()).id();
    world.spawn(());
    world.spawn(());
    assert_eq!(world.entity_count(), 3);
    world.despawn(ent);
    assert_eq!(world.entity_count(), 2);
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn take() {
    // tests/tests.rs
    let mut world_a = World::new();
    let e = world_a.spawn((s("abc"), A(42))).id();
    let f = world_a.spawn((s("def"), A(17))).id();
    let mut world_b = World::new();
    let bundle = world_a.entity_mut(e).take::<(S, A)>().unwrap();
    world_a.despawn(e);
    let e2 = world_b.spawn(bundle).id();
    assert!(!world_a.is_alive(e));
    assert_eq!(world_b.get::<S>(e2), Some(&s("abc")));
    assert_eq!(world_b.get::<A>(e2), Some(&A(42)));
    assert_eq!(world_a.get::<S>(f), Some(&s("def")));
    assert_eq!(world_a.get::<A>(f), Some(&A(17)));
    let (st, a) = world_b.entity_mut(e2).take::<(S, A)>().unwrap();
    assert_eq!((st, a), (s("abc"), A(42)));
    assert!(world_b.despawn(e2));
    assert!(!world_b.is_alive(e2));
}

#[test]
fn empty_archetype_conflict() {
    // tests/tests.rs
    let mut world = World::new();
    let _ = world.spawn((A(42), B(true)));
    let _ = world.spawn((A(17), s("abc")));
    let e = world.spawn((A(12), B(false), s("def"))).id();
    world.despawn(e);
    let mut q1 = world.query::<(&A, &S)>();
    let mut q2 = world.query::<(&A, &B)>();
    let mut pairs = 0;
    for _ in q1.iter(&world) {
        for _ in q2.iter(&world) {
            pairs += 1;
        }
    }
    assert_eq!(pairs, 1);
    for (mut a, _) in world.query::<(&mut A, &S)>().iter_mut(&mut world) {
        a.0 += 1;
    }
}

#[test]
fn empty_entity_ref() {
    // tests/tests.rs
    let mut world = World::new();
    let e = world.spawn(()).id();
    let r = world.entity(e);
    assert_eq!(r.id(), e);
    assert!(world.get_entity(e).is_some());
}

#[test]
fn query_many() {
    // tests/tests.rs
    let mut world = World::new();
    let a = world.spawn((A(42), B(true))).id();
    let b = world.spawn((A(17),)).id();
    let mut q = world.query::<&A>();
    assert_eq!(q.get_many(&world, [a, b]).unwrap(), [&A(42), &A(17)]);
    let [x, y] = q.get_many_mut(&mut world, [a, b]).unwrap();
    assert_eq!((*x, *y), (A(42), A(17)));
}

#[test]
fn query_many_duplicate() {
    // tests/tests.rs (hecs panics; here an Err, API.md)
    let mut world = World::new();
    let e = world.spawn((A(1),)).id();
    let mut q = world.query::<&mut A>();
    assert!(q.get_many_mut(&mut world, [e, e]).is_err());
    let mut q = world.query::<Entity>();
    assert!(q.get_many_mut(&mut world, [e, e]).is_err());
}

#[test]
fn cache_invalidation() {
    // tests/tests.rs
    let mut world = World::new();
    let mut q = world.query::<(Entity, &A)>();
    assert_eq!(q.iter(&world).count(), 0);
    let a = world.spawn((A(42), B(true))).id();
    let b = world.spawn((A(17),)).id();
    let mut got: Vec<(Entity, A)> = q.iter(&world).map(|(e, a)| (e, *a)).collect();
    got.sort();
    let mut expected = vec![(a, A(42)), (b, A(17))];
    expected.sort();
    assert_eq!(got, expected);
}

#[test]
fn entity_generation_regression() {
    // tests/tests.rs (hecs issue #417)
    let mut world = World::new();
    let a = world.spawn((C,)).id();
    let b = world.spawn((C,)).id();
    assert!(world.despawn(a));
    assert!(world.despawn(b));
    let c = world.spawn((C,)).id();
    assert!(world.despawn(c));
    let d = world.spawn((C,)).id();
    let d2 = world.query::<Entity>().iter(&world).next().unwrap();
    assert_eq!(d, d2);
    assert_eq!(world.query_filtered::<Entity, With<C>>().iter(&world).collect::<Vec<_>>(), vec![d]);
    for stale in [a, b, c] {
        assert!(!world.is_alive(stale));
        assert!(!world.has::<C>(stale));
    }
}

// ===== src/world.rs =======================================================================

#[test]
fn reuse_empty() {
    // src/world.rs
    let mut world = World::new();
    let a = world.spawn(()).id();
    world.despawn(a);
    let b = world.spawn(()).id();
    assert_eq!(a.index(), b.index());
    assert_ne!(a.generation(), b.generation());
}

#[test]
fn spawn_at() {
    // src/world.rs (a live index: Err here, where hecs replaces the entity)
    let mut world = World::new();
    let a = world.spawn(()).id();
    world.despawn(a);
    let b = world.spawn(()).id();
    assert!(world.is_alive(b));
    assert_eq!(a.index(), b.index());
    assert_ne!(a.generation(), b.generation());
    assert!(matches!(world.spawn_at(a), Err(SpawnError::Alive { .. })));
    assert!(world.is_alive(b) && !world.is_alive(a));
    world.despawn(b);
    let a2 = world.spawn_at(a).unwrap().insert(A(5)).id();
    assert_eq!(a2, a);
    assert!(world.is_alive(a) && !world.is_alive(b));
    assert_eq!(world.get::<A>(a), Some(&A(5)));
    world.check_invariants();
}

#[test]
fn reuse_populated() {
    // src/world.rs
    let mut world = World::new();
    // Components are entities: registering B on first use would take the freed index.
    world.register_component::<B>();
    let a = world.spawn((A(42),)).id();
    assert_eq!(world.get::<A>(a), Some(&A(42)));
    world.despawn(a);
    let b = world.spawn((B(true),)).id();
    assert_eq!(a.index(), b.index());
    assert_ne!(a.generation(), b.generation());
    assert!(world.get::<A>(b).is_none());
    assert_eq!(world.get::<B>(b), Some(&B(true)));
    assert!(world.get::<B>(a).is_none());
}

#[test]
fn remove_nothing() {
    // src/world.rs
    let mut world = World::new();
    let a = world.spawn((s("abc"), A(123))).id();
    assert_eq!(world.remove::<()>(a), Some(()));
    assert_eq!(world.get::<A>(a), Some(&A(123)));
    world.entity_mut(a).remove::<()>();
    assert_eq!(world.entity_mut(a).take::<()>(), Some(()));
    assert_eq!(world.get::<S>(a), Some(&s("abc")));
}

#[test]
fn bad_insert() {
    // src/world.rs
    let mut world = World::new();
    assert!(!world.insert(Entity::PLACEHOLDER, ()));
    assert!(!world.insert(Entity::PLACEHOLDER, A(1)));
    assert!(!world.insert(Entity::from_raw(123_456, 0), (A(1), Sp(2))));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

// ===== src/command_buffer.rs ==============================================================

#[test]
fn failed_insert_regression() {
    // src/command_buffer.rs
    let mut world = World::new();
    let a = world.spawn((C,)).id();
    let b = world.spawn((C,)).id();
    world.clear_entities();
    let mut queue = CommandQueue::default();
    {
        let mut cmd = Commands::new(&mut queue, &world);
        cmd.entity(a).try_insert(C);
        cmd.entity(b).try_insert(C);
    }
    // Make `a` valid again.
    world.spawn_at(a).unwrap();
    queue.apply(&mut world);
    assert!(world.has::<C>(a));
    assert!(!world.is_alive(b) && !world.has::<C>(b));
    world.check_invariants();
}

#[test]
fn insert_then_remove() {
    // src/command_buffer.rs
    let mut world = World::new();
    let a = world.spawn(()).id();
    run_on(&mut world, |cmd| {
        cmd.entity(a).insert(A(42));
        cmd.entity(a).remove::<A>();
    });
    assert!(!world.has::<A>(a));
}

#[test]
fn remove_then_insert() {
    // src/command_buffer.rs
    let mut world = World::new();
    let a = world.spawn((A(17),)).id();
    run_on(&mut world, |cmd| {
        cmd.entity(a).remove::<A>();
        cmd.entity(a).insert(A(42));
    });
    assert_eq!(world.get::<A>(a), Some(&A(42)));
}

#[test]
fn insert_then_queue() {
    // src/command_buffer.rs
    let mut world = World::new();
    let a = world.spawn(()).id();
    run_on(&mut world, |cmd| {
        cmd.entity(a).insert(A(42));
        cmd.queue(move |world: &mut World| {
            world.insert(a, A(123));
        });
    });
    assert_eq!(world.get::<A>(a), Some(&A(123)));
}

#[derive(Component)]
struct Shared(Arc<()>);

#[test]
fn ownership_sanity() {
    // src/command_buffer.rs
    let refcount = Arc::new(());
    let mut world = World::new();
    let entity = world.spawn(()).id();
    {
        let mut queue = CommandQueue::default();
        Commands::new(&mut queue, &world).entity(entity).insert(Shared(refcount.clone()));
        assert_eq!(Arc::strong_count(&refcount), 2);
        queue.apply(&mut world);
    }
    assert_eq!(Arc::strong_count(&refcount), 2);
    assert!(Arc::ptr_eq(&world.get::<Shared>(entity).unwrap().0, &refcount));
    world.despawn(entity);
    assert_eq!(Arc::strong_count(&refcount), 1);

    // A queue dropped without being applied drops its values once.
    {
        let mut queue = CommandQueue::default();
        let e = world.spawn(()).id();
        Commands::new(&mut queue, &world).entity(e).insert(Shared(refcount.clone()));
        assert_eq!(Arc::strong_count(&refcount), 2);
    }
    assert_eq!(Arc::strong_count(&refcount), 1);
}

// ===== src/entities.rs ====================================================================

#[test]
fn alloc_and_free() {
    // src/entities.rs (through World: spawn/despawn at random, stale frees refused)
    let mut world = World::new();
    let mut seed = 0xFEED_FACE_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut alive: Vec<Entity> = Vec::new();
    let mut dead: Vec<Entity> = Vec::new();
    for _ in 0..2000 {
        if next() % 10 < 7 || alive.is_empty() {
            let e = world.spawn((A(0),)).id();
            assert!(!alive.contains(&e) && !dead.contains(&e), "{e:?} handed out twice");
            alive.push(e);
        } else if next() % 2 == 0 && !dead.is_empty() {
            let e = dead[(next() as usize) % dead.len()];
            assert!(!world.despawn(e), "stale {e:?} despawned");
        } else {
            let e = alive.swap_remove((next() as usize) % alive.len());
            assert!(world.despawn(e));
            dead.push(e);
        }
        assert_eq!(world.entity_count(), alive.len());
    }
    for &e in &alive {
        assert!(world.is_alive(e) && world.has::<A>(e));
    }
    world.check_invariants();
}

#[test]
fn alloc_at() {
    // src/entities.rs
    let mut world = World::new();
    let mut old = Vec::new();
    for _ in 0..2 {
        let e = world.spawn(()).id();
        old.push(e);
        world.despawn(e);
    }
    assert_eq!(world.entity_count(), 0);
    assert_eq!(old[0].index(), old[1].index());
    let entity = old[1];
    assert!(!world.is_alive(entity));
    world.spawn_at(entity).unwrap();
    assert!(world.is_alive(entity));
    assert_eq!(world.entity_count(), 1);
    // The index is no longer free: a new entity gets another one.
    let other = world.spawn(()).id();
    assert_ne!(other.index(), entity.index());
    assert!(world.spawn_at(entity).is_err());
    // An index far beyond the allocated ones; the ones skipped stay usable.
    let far = Entity::from_raw(entity.index() + 100, 2);
    world.spawn_at(far).unwrap();
    assert!(world.is_alive(far));
    assert!(!world.is_alive(Entity::from_raw(far.index(), 1)));
    let many: Vec<Entity> = (0..200).map(|_| world.spawn(()).id()).collect();
    assert!(!many.contains(&far) && !many.iter().any(|e| e.index() == far.index()));
    assert_eq!(world.entity_count(), 203);
    world.check_invariants();
}

#[test]
fn alloc_at_regression() {
    // src/entities.rs
    let mut world = World::new();
    let at = Entity::from_raw(10_000, 1);
    world.spawn_at(at).unwrap();
    assert!(!world.is_alive(Entity::from_raw(10_000, 0)));
    assert!(!world.is_alive(Entity::from_raw(9_999, 1)));
    assert!(!world.is_alive(Entity::from_raw(9_999, 0)));
}

#[test]
fn contains() {
    // src/entities.rs
    let mut world = World::new();
    for _ in 0..2 {
        let e = world.spawn(()).id();
        assert!(world.is_alive(e));
        world.despawn(e);
        assert!(!world.is_alive(e));
    }
    for _ in 0..3 {
        let e = world.reserve_entity();
        world.flush();
        assert!(world.is_alive(e));
        assert!(!world.is_alive(Entity::from_raw(e.index(), e.generation() + 1)));
        assert!(!world.is_alive(Entity::from_raw(e.index() + 1, e.generation())));
    }
}
