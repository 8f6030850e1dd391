//! Queries: every data term and filter, iteration, `get`/`get_mut`/`single`,
//! sparse components, empty tables, incremental archetype matching, internal
//! entities and access conflicts.

use std::collections::BTreeSet;

use ecs::component::{ComponentInfo, Internal};
use ecs::prelude::*;
use ecs::query::WorldQuery;

#[derive(Component, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
struct A(u32);

#[derive(Component, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
struct B(u32);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
struct Tag;

#[derive(Component, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
#[component(storage = "sparse")]
struct S(u32);

#[derive(Component, Debug, PartialEq, Eq, Clone, Copy)]
#[component(storage = "sparse")]
struct SparseTag;

/// The entities of [`fixture`].
struct Fixture {
    world: World,
    /// (A(1), B(10))
    e1: Entity,
    /// (A(2),)
    e2: Entity,
    /// (B(30), Tag)
    e3: Entity,
    /// (A(4), B(40), Tag, S(4))
    e4: Entity,
    /// (S(5), SparseTag)
    e5: Entity,
    /// no components
    e6: Entity,
}

fn fixture() -> Fixture {
    let mut world = World::new();
    let e1 = world.spawn((A(1), B(10))).id();
    let e2 = world.spawn(A(2)).id();
    let e3 = world.spawn((B(30), Tag)).id();
    let e4 = world.spawn((A(4), B(40), Tag, S(4))).id();
    let e5 = world.spawn((S(5), SparseTag)).id();
    let e6 = world.spawn_empty().id();
    Fixture { world, e1, e2, e3, e4, e5, e6 }
}

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

// ----- data terms ----------------------------------------------------------------------

#[test]
fn entity_term_yields_every_user_entity() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query::<Entity>();
    assert_eq!(set(q.iter(&world)), set([e1, e2, e3, e4, e5, e6]));
    world.check_invariants();
}

#[test]
fn ref_term_yields_values_of_entities_that_have_it() {
    let Fixture { mut world, .. } = fixture();
    let mut q = world.query::<&A>();
    assert_eq!(set(q.iter(&world).copied()), set([A(1), A(2), A(4)]));
    let mut q = world.query::<(Entity, &A, &B)>();
    let rows = set(q.iter(&world).map(|(e, a, b)| (e.index(), *a, *b)));
    assert_eq!(rows.iter().map(|&(_, a, b)| (a, b)).collect::<Vec<_>>(), [(A(1), B(10)), (A(4), B(40))]);
    world.check_invariants();
}

#[test]
fn mut_term_yields_mut_and_writes_persist() {
    let Fixture { mut world, e1, e2, e4, .. } = fixture();
    let mut q = world.query::<(&mut A, &B)>();
    for (mut a, b) in q.iter_mut(&mut world) {
        a.0 += b.0;
    }
    assert_eq!(world.get::<A>(e1), Some(&A(11)));
    assert_eq!(world.get::<A>(e2), Some(&A(2)), "e2 has no B: not matched");
    assert_eq!(world.get::<A>(e4), Some(&A(44)));

    let mut q = world.query::<&mut A>();
    let seen: Vec<u32> = q.iter_mut(&mut world).map(|a| a.0).collect();
    assert_eq!(set(seen), set([11, 2, 44]));
    for mut a in q.iter_mut(&mut world) {
        *a = A(0);
    }
    assert!(world.query::<&A>().iter(&world).all(|a| *a == A(0)));
    world.check_invariants();
}

#[test]
fn option_term_matches_everything_and_yields_some_where_present() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query::<(Entity, Option<&A>)>();
    let rows = set(q.iter(&world).map(|(e, a)| (e, a.copied())));
    assert_eq!(rows, set([(e1, Some(A(1))), (e2, Some(A(2))), (e3, None), (e4, Some(A(4))), (e5, None), (e6, None)]));
    let mut q = world.query::<(&A, Option<&B>)>();
    let rows = set(q.iter(&world).map(|(a, b)| (*a, b.copied())));
    assert_eq!(rows, set([(A(1), Some(B(10))), (A(2), None), (A(4), Some(B(40)))]));

    let mut q = world.query::<(&B, Option<&mut A>)>();
    for (_, a) in q.iter_mut(&mut world) {
        if let Some(mut a) = a {
            a.0 *= 100;
        }
    }
    assert_eq!(set(world.query::<&A>().iter(&world).copied()), set([A(100), A(2), A(400)]));
    world.check_invariants();
}

#[test]
fn has_term_reports_presence_for_table_and_sparse_components() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query::<(Entity, Has<Tag>, Has<S>, Has<A>)>();
    let rows = set(q.iter(&world));
    assert_eq!(
        rows,
        set([
            (e1, false, false, true),
            (e2, false, false, true),
            (e3, true, false, false),
            (e4, true, true, true),
            (e5, false, true, false),
            (e6, false, false, false),
        ])
    );
    world.check_invariants();
}

#[test]
fn nested_tuples_of_terms() {
    let Fixture { mut world, e1, e4, .. } = fixture();
    let mut q = world.query::<((Entity, &A), (Option<&S>, (Has<Tag>, &B)))>();
    let rows = set(q.iter(&world).map(|((e, a), (s, (tag, b)))| (e, *a, s.copied(), tag, *b)));
    assert_eq!(rows, set([(e1, A(1), None, false, B(10)), (e4, A(4), Some(S(4)), true, B(40))]));
    let mut q = world.query::<((&mut A,), (&B, ()))>();
    for ((mut a,), (b, ())) in q.iter_mut(&mut world) {
        a.0 = b.0 + 1;
    }
    assert_eq!(world.get::<A>(e4), Some(&A(41)));
    world.check_invariants();
}

#[test]
fn tag_terms_yield_the_tag() {
    let Fixture { mut world, e3, e4, .. } = fixture();
    let mut q = world.query::<(Entity, &Tag)>();
    assert_eq!(set(q.iter(&world).map(|(e, tag)| (e, *tag == Tag))), set([(e3, true), (e4, true)]));
    let mut q = world.query::<(Entity, &mut Tag)>();
    let mut seen = BTreeSet::new();
    for (e, mut tag) in q.iter_mut(&mut world) {
        *tag = Tag;
        assert!(tag.is_changed(), "tags keep ticks (unless change_detection = false)");
        seen.insert(e);
    }
    assert_eq!(seen, set([e3, e4]));
    world.check_invariants();
}

// ----- filters -------------------------------------------------------------------------

#[test]
fn with_and_without_on_table_components() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query_filtered::<Entity, With<Tag>>();
    assert_eq!(set(q.iter(&world)), set([e3, e4]));
    let mut q = world.query_filtered::<Entity, Without<Tag>>();
    assert_eq!(set(q.iter(&world)), set([e1, e2, e5, e6]));
    let mut q = world.query_filtered::<&A, Without<B>>();
    assert_eq!(set(q.iter(&world).copied()), set([A(2)]));
    let mut q = world.query_filtered::<Entity, (With<A>, With<B>, Without<Tag>)>();
    assert_eq!(set(q.iter(&world)), set([e1]));
    world.check_invariants();
}

#[test]
fn with_and_without_on_sparse_components() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query_filtered::<Entity, With<S>>();
    assert_eq!(set(q.iter(&world)), set([e4, e5]));
    let mut q = world.query_filtered::<Entity, Without<S>>();
    assert_eq!(set(q.iter(&world)), set([e1, e2, e3, e6]));
    let mut q = world.query_filtered::<Entity, (With<SparseTag>, With<S>)>();
    assert_eq!(set(q.iter(&world)), set([e5]));
    let mut q = world.query_filtered::<&A, (With<Tag>, Without<S>)>();
    assert_eq!(q.iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn or_filters() {
    let Fixture { mut world, e1, e2, e3, e4, e5, e6 } = fixture();
    let mut q = world.query_filtered::<Entity, Or<(With<Tag>, With<S>)>>();
    assert_eq!(set(q.iter(&world)), set([e3, e4, e5]));
    let mut q = world.query_filtered::<Entity, Or<(Without<A>, With<S>)>>();
    assert_eq!(set(q.iter(&world)), set([e3, e4, e5, e6]));
    let mut q = world.query_filtered::<Entity, Or<(With<A>, With<B>)>>();
    assert_eq!(set(q.iter(&world)), set([e1, e2, e3, e4]));
    let mut q = world.query_filtered::<Entity, Or<(With<SparseTag>,)>>();
    assert_eq!(set(q.iter(&world)), set([e5]));
    // an Or inside a tuple, and a tuple inside an Or
    let mut q = world.query_filtered::<Entity, (Or<(With<Tag>, Without<B>)>, With<A>)>();
    assert_eq!(set(q.iter(&world)), set([e2, e4]));
    let mut q = world.query_filtered::<Entity, Or<((With<A>, Without<B>), (With<S>, Without<A>))>>();
    assert_eq!(set(q.iter(&world)), set([e2, e5]));
    world.check_invariants();
}

#[test]
fn added_and_changed_filters_in_queries() {
    let Fixture { mut world, e1, e2, e4, .. } = fixture();
    let mut added = world.query_filtered::<Entity, Added<A>>();
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    assert_eq!(set(added.iter(&world)), set([e1, e2, e4]));
    assert_eq!(set(changed.iter(&world)), set([e1, e2, e4]));
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    world.get_mut::<A>(e2).unwrap().0 = 20;
    let e7 = world.spawn(A(7)).id();
    assert_eq!(set(added.iter(&world)), set([e7]));
    assert_eq!(set(changed.iter(&world)), set([e2, e7]));
    let mut either = world.query_filtered::<Entity, Or<(Added<S>, Changed<B>)>>();
    assert_eq!(set(either.iter(&world)).len(), 4, "e1, e3, e4 (B) and e5 (S)");
    world.get_mut::<B>(e1).unwrap().0 = 11;
    assert_eq!(set(either.iter(&world)), set([e1]));
    world.check_invariants();
}

// ----- get / get_mut / single ------------------------------------------------------------

#[test]
fn get_returns_the_item_or_a_precise_error() {
    let Fixture { mut world, e1, e2, e3, e4, .. } = fixture();
    let mut q = world.query_filtered::<(&A, Option<&S>), With<B>>();
    assert_eq!(q.get(&world, e1), Ok((&A(1), None)));
    assert_eq!(q.get(&world, e4), Ok((&A(4), Some(&S(4)))));
    assert_eq!(q.get(&world, e2), Err(QueryError::QueryDoesNotMatch(e2)), "filtered out");
    assert_eq!(q.get(&world, e3), Err(QueryError::QueryDoesNotMatch(e3)), "lacks A");
    let mut sparse = world.query::<&S>();
    assert_eq!(sparse.get(&world, e1), Err(QueryError::QueryDoesNotMatch(e1)), "lacks the sparse S");
    let mut without = world.query_filtered::<Entity, Without<S>>();
    assert_eq!(without.get(&world, e4), Err(QueryError::QueryDoesNotMatch(e4)));
    assert_eq!(without.get(&world, e1), Ok(e1));
    world.check_invariants();
}

#[test]
fn get_rejects_dead_and_stale_entities() {
    let Fixture { mut world, e1, .. } = fixture();
    let mut q = world.query::<&A>();
    world.despawn(e1);
    assert_eq!(q.get(&world, e1), Err(QueryError::NoSuchEntity(e1)));
    let reused = world.spawn(A(99)).id();
    assert_eq!(reused.index(), e1.index());
    assert_eq!(q.get(&world, e1), Err(QueryError::NoSuchEntity(e1)));
    assert_eq!(q.get(&world, reused), Ok(&A(99)));
    let never = Entity::from_raw(123_456, 0);
    assert_eq!(q.get(&world, never), Err(QueryError::NoSuchEntity(never)));
    let mut q = world.query::<&mut A>();
    assert!(matches!(q.get_mut(&mut world, e1), Err(QueryError::NoSuchEntity(e)) if e == e1));
    world.check_invariants();
}

#[test]
fn get_mut_writes_one_entity() {
    let Fixture { mut world, e1, e2, e3, e4, .. } = fixture();
    let mut q = world.query::<(&mut A, Option<&mut S>)>();
    {
        let (mut a, s) = q.get_mut(&mut world, e4).unwrap();
        a.0 = 400;
        s.unwrap().0 = 401;
    }
    q.get_mut(&mut world, e1).unwrap().0.0 = 100;
    assert!(matches!(q.get_mut(&mut world, e3), Err(QueryError::QueryDoesNotMatch(e)) if e == e3));
    assert_eq!(world.get::<A>(e4), Some(&A(400)));
    assert_eq!(world.get::<S>(e4), Some(&S(401)));
    assert_eq!(world.get::<A>(e1), Some(&A(100)));
    assert_eq!(world.get::<A>(e2), Some(&A(2)));
    world.check_invariants();
}

#[test]
fn single_needs_exactly_one_match() {
    let Fixture { mut world, e4, e5, .. } = fixture();
    let mut one = world.query_filtered::<(Entity, &A), With<S>>();
    assert_eq!(one.single(&world), Ok((e4, &A(4))));
    let mut none = world.query_filtered::<&A, With<SparseTag>>();
    assert!(matches!(none.single(&world), Err(QuerySingleError::NoEntities(_))));
    let mut many = world.query::<&A>();
    assert!(matches!(many.single(&world), Err(QuerySingleError::MultipleEntities(_))));

    let mut q = world.query_filtered::<&mut S, With<SparseTag>>();
    q.single_mut(&mut world).unwrap().0 = 50;
    assert_eq!(world.get::<S>(e5), Some(&S(50)));
    let mut q = world.query::<&mut S>();
    assert!(matches!(q.single_mut(&mut world), Err(QuerySingleError::MultipleEntities(_))));
    world.check_invariants();
}

#[test]
fn query_errors_display_and_name_the_query() {
    let e = Entity::from_raw(9, 1);
    assert_eq!(QueryError::NoSuchEntity(e).to_string(), "entity 9v1 is not alive");
    assert_eq!(QueryError::QueryDoesNotMatch(e).to_string(), "entity 9v1 does not match the query");
    let mut world = World::new();
    let mut q = world.query::<&A>();
    let error = q.single(&world).unwrap_err();
    let QuerySingleError::NoEntities(name) = &error else { panic!("expected NoEntities, got {error:?}") };
    assert!(name.contains("A"), "{name}");
    assert!(error.to_string().starts_with("no entity matches "), "{error}");
    world.spawn(A(1));
    world.spawn(A(2));
    let error = q.single(&world).unwrap_err();
    assert!(error.to_string().starts_with("more than one entity matches "), "{error}");
    let _: &dyn std::error::Error = &error;
}

// ----- iteration -----------------------------------------------------------------------

#[test]
fn dense_queries_report_an_exact_size() {
    let Fixture { mut world, .. } = fixture();
    let mut q = world.query::<&A>();
    let iter = q.iter(&world);
    assert_eq!(iter.size_hint(), (3, Some(3)));
    let mut q = world.query_filtered::<Entity, With<B>>();
    let mut iter = q.iter(&world);
    assert_eq!(iter.size_hint(), (3, Some(3)));
    iter.next();
    assert_eq!(iter.size_hint(), (2, Some(2)));
    // sparse terms need a per-row check: no exact size
    let mut q = world.query::<&S>();
    let iter = q.iter(&world);
    assert_eq!(iter.size_hint().0, 0);
    assert_eq!(iter.count(), 2);
}

#[test]
fn folding_after_next_visits_each_remaining_row_once() {
    let mut world = World::new();
    for i in 0..10 {
        world.spawn(A(i));
        world.spawn((A(100 + i), B(i)));
        world.spawn((A(200 + i), S(i)));
    }
    let mut q = world.query::<&A>();
    let all = set(q.iter(&world).copied());
    assert_eq!(all.len(), 30);
    for skip in [0, 1, 5, 10, 11, 25, 30] {
        let mut iter = q.iter(&world);
        let mut seen: Vec<A> = iter.by_ref().take(skip).copied().collect();
        iter.for_each(|a| seen.push(*a));
        assert_eq!(seen.len(), 30, "skip {skip}");
        assert_eq!(set(seen), all);
    }
    let sum: u32 = q.iter(&world).map(|a| a.0).sum();
    assert_eq!(sum, (0..10).map(|i| i * 3 + 300).sum::<u32>());
    // the same with a sparse term (per-row checks)
    let mut q = world.query::<(&A, &S)>();
    let mut iter = q.iter(&world);
    let first = iter.next().map(|(a, _)| *a);
    let rest = iter.fold(0, |count, _| count + 1);
    assert!(first.is_some());
    assert_eq!(rest, 9);
    world.check_invariants();
}

#[test]
fn empty_tables_yield_nothing_but_stay_matched() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    let ab = world.spawn((A(2), B(2))).id();
    let abt = world.spawn((A(3), B(3), Tag)).id();
    let mut q = world.query::<&A>();
    let matched = q.matched_archetypes().count();
    assert_eq!(matched, 3);
    world.despawn(ab);
    world.remove::<A>(a);
    assert_eq!(set(q.iter(&world).copied()), set([A(3)]));
    assert_eq!(q.iter(&world).size_hint(), (1, Some(1)));
    assert_eq!(q.matched_archetypes().count(), matched);
    world.despawn(abt);
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(q.iter(&world).next(), None);
    assert!(matches!(q.single(&world), Err(QuerySingleError::NoEntities(_))));
    world.check_invariants();
}

#[test]
fn new_archetypes_are_matched_incrementally() {
    let mut world = World::new();
    let mut q = world.query::<(&A, Option<&B>)>();
    let mut filtered = world.query_filtered::<Entity, (With<B>, Without<Tag>)>();
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(q.matched_archetypes().count(), 0);

    world.spawn(A(1));
    assert_eq!(q.iter(&world).count(), 1);
    world.spawn((A(2), B(2)));
    let e3 = world.spawn((B(3), Tag)).id();
    let e4 = world.spawn(B(4)).id();
    assert_eq!(set(q.iter(&world).map(|(a, b)| (*a, b.copied()))), set([(A(1), None), (A(2), Some(B(2)))]));
    assert_eq!(q.matched_archetypes().count(), 2);
    assert_eq!(filtered.get(&world, e4), Ok(e4), "get matches new archetypes too");
    assert_eq!(filtered.get(&world, e3), Err(QueryError::QueryDoesNotMatch(e3)));
    assert_eq!(filtered.iter(&world).count(), 2);

    world.insert(e3, A(3));
    assert_eq!(q.iter(&world).count(), 3);
    q.update_archetypes(&world);
    let a = world.component_id::<A>().unwrap().id();
    let expected = set(world.archetypes().iter().filter(|arch| arch.contains(a)).map(|arch| arch.id()));
    assert_eq!(set(q.matched_archetypes()), expected);
    world.check_invariants();
}

#[test]
fn a_query_built_late_matches_the_same_archetypes_as_one_built_early() {
    let mut world = World::new();
    let mut early = world.query::<(&A, &B)>();
    for mask in 0..16u32 {
        let mut view = world.spawn(A(mask));
        if mask & 1 != 0 {
            view.insert(B(mask));
        }
        if mask & 2 != 0 {
            view.insert(Tag);
        }
        if mask & 4 != 0 {
            view.insert(S(mask));
        }
        if mask & 8 != 0 {
            view.remove::<A>();
        }
    }
    let mut late = world.query::<(&A, &B)>();
    early.update_archetypes(&world);
    assert_eq!(set(early.matched_archetypes()), set(late.matched_archetypes()));
    let expected = set([1, 3, 5, 7].map(A));
    assert_eq!(set(early.iter(&world).map(|(a, _)| *a)), expected);
    assert_eq!(set(late.iter(&world).map(|(a, _)| *a)), expected);
    world.check_invariants();
}

#[test]
fn many_entities_across_archetypes_are_each_visited_once() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..3000)
        .map(|i| match i % 3 {
            0 => world.spawn(A(i)).id(),
            1 => world.spawn((A(i), B(i))).id(),
            _ => world.spawn((A(i), S(i))).id(),
        })
        .collect();
    let mut q = world.query::<(Entity, &mut A)>();
    for (_, mut a) in q.iter_mut(&mut world) {
        a.0 += 1;
    }
    let visited: Vec<Entity> = q.iter_mut(&mut world).map(|(e, _)| e).collect();
    assert_eq!(visited.len(), 3000);
    assert_eq!(set(visited), set(ids.iter().copied()));
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(i as u32 + 1)));
    }
    world.check_invariants();
}

// ----- sparse components in queries ----------------------------------------------------

#[test]
fn sparse_components_in_queries() {
    let Fixture { mut world, e4, e5, .. } = fixture();
    let mut q = world.query::<(Entity, &S)>();
    assert_eq!(set(q.iter(&world).map(|(e, s)| (e, *s))), set([(e4, S(4)), (e5, S(5))]));
    let mut q = world.query::<(&A, &S)>();
    assert_eq!(q.iter(&world).map(|(a, s)| (*a, *s)).collect::<Vec<_>>(), [(A(4), S(4))]);
    let mut q = world.query::<&mut S>();
    for mut s in q.iter_mut(&mut world) {
        s.0 *= 10;
    }
    assert_eq!(world.get::<S>(e4), Some(&S(40)));
    assert_eq!(world.get::<S>(e5), Some(&S(50)));
    let mut q = world.query::<(Entity, &SparseTag)>();
    assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [e5]);

    // a sparse value added later is seen without any archetype change
    let e1 = world.spawn(A(1)).id();
    let mut q = world.query::<(&A, &S)>();
    assert_eq!(q.iter(&world).count(), 1);
    world.insert(e1, S(1));
    assert_eq!(q.iter(&world).count(), 2);
    world.remove::<S>(e4);
    assert_eq!(q.iter(&world).map(|(a, _)| *a).collect::<Vec<_>>(), [A(1)]);
    world.check_invariants();
}

#[test]
fn a_sparse_query_built_before_any_value_exists() {
    let mut world = World::new();
    let mut q = world.query::<(Entity, &S)>();
    let mut without = world.query_filtered::<Entity, Without<S>>();
    let e = world.spawn(A(1)).id();
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(without.iter(&world).collect::<Vec<_>>(), [e]);
    world.insert(e, S(1));
    assert_eq!(q.iter(&world).map(|(e, s)| (e, *s)).collect::<Vec<_>>(), [(e, S(1))]);
    assert_eq!(without.iter(&world).count(), 0);
    world.check_invariants();
}

// ----- internal entities ---------------------------------------------------------------

#[test]
fn internal_entities_are_excluded_unless_asked_for() {
    let mut world = World::new();
    let user = world.spawn(Name::new("user")).id();
    let component = world.register_component::<A>();

    let mut all = world.query::<Entity>();
    assert_eq!(all.iter(&world).collect::<Vec<_>>(), [user]);
    assert_eq!(all.get(&world, Entity::WILDCARD), Err(QueryError::QueryDoesNotMatch(Entity::WILDCARD)));
    assert_eq!(all.get(&world, component), Err(QueryError::QueryDoesNotMatch(component)));
    let mut names = world.query::<&Name>();
    assert_eq!(names.iter(&world).map(Name::as_str).collect::<Vec<_>>(), ["user"]);
    let mut optional = world.query::<(Entity, Option<&ComponentInfo>)>();
    assert_eq!(optional.iter(&world).count(), 1);

    let mut internal = world.query_filtered::<Entity, With<Internal>>();
    let internal_entities = set(internal.iter(&world));
    assert!(internal_entities.contains(&Entity::WILDCARD));
    assert!(internal_entities.contains(&Entity::ANY));
    assert!(internal_entities.contains(&component));
    assert!(!internal_entities.contains(&user));
    assert_eq!(internal_entities.len(), world.entities().alive_count() - world.entity_count());

    let mut infos = world.query::<(Entity, &ComponentInfo)>();
    assert_eq!(infos.iter(&world).count(), world.components().len());
    assert_eq!(infos.get(&world, component).map(|(_, info)| info.name()), Ok("A"));
    world.check_invariants();
}

/// Every kind of internal entity (wildcards, component and relationship entities,
/// observers, global and entity-scoped) is invisible to `entity_count` and to
/// queries that name no term only internal entities carry: `Entity`, `()`,
/// `Without`, `Option` and `Has` terms included.
#[test]
fn no_internal_entity_is_counted_or_matched_by_ordinary_queries() {
    #[derive(Relationship)]
    struct Likes;
    #[derive(Event)]
    struct Poke;
    let mut world = World::new();
    let user = world.spawn(A(1)).id();
    let plain = world.spawn_empty().id();
    let component = world.register_component::<B>();
    let relationship = world.register_component::<Likes>();
    let observer = world.add_observer(|_: Trigger<OnAdd, A>| {}).id();
    world.entity_mut(plain).observe(|_: Trigger<Poke>| {});
    let scoped = set(world.query_filtered::<Entity, With<ecs::observer::ObserverMarker>>().iter(&world));
    assert_eq!(scoped.len(), 2, "both observers carry the marker: a term only they carry");
    assert!(scoped.contains(&observer));
    let internal = [Entity::WILDCARD, Entity::ANY, component, relationship, observer];

    assert_eq!(world.entity_count(), 2);
    assert_eq!(set(world.query::<Entity>().iter(&world)), set([user, plain]));
    assert_eq!(world.query::<()>().iter(&world).count(), 2);
    assert_eq!(set(world.query_filtered::<Entity, Without<B>>().iter(&world)), set([user, plain]));
    assert_eq!(world.query::<(Entity, Option<&A>)>().iter(&world).count(), 2);
    assert_eq!(world.query::<(Entity, Has<Name>)>().iter(&world).count(), 2);
    let mut all = world.query::<Entity>();
    for entity in internal.into_iter().chain(scoped.iter().copied()) {
        assert_eq!(all.get(&world, entity), Err(QueryError::QueryDoesNotMatch(entity)), "{entity:?}");
    }
    let with_internal = set(world.query_filtered::<Entity, With<Internal>>().iter(&world));
    assert!(internal.iter().chain(&scoped).all(|entity| with_internal.contains(entity)), "{with_internal:?}");
    assert_eq!(with_internal.len(), world.entities().alive_count() - world.entity_count());

    // Observers stay despawnable: their entity and its registration go.
    assert!(world.despawn(observer));
    assert_eq!(world.observers().len(), 1);
    world.despawn(plain); // its scoped observer goes with it
    assert!(world.observers().is_empty());
    assert_eq!(world.entity_count(), 1);
    assert_eq!(set(world.query::<Entity>().iter(&world)), set([user]));
    world.check_invariants();
}

// ----- access conflicts ----------------------------------------------------------------

// Conflicting queries are compile errors (see `tests/ui/`); here the const access
// sets that drive those errors are inspected directly.

/// The first aliasing pair of data terms of `Q`, as `(term, term)` labels.
fn internal_conflict<Q: WorldQuery>() -> Option<(String, String)> {
    Q::ACCESS.internal_conflict().map(|(a, b)| (a.label().as_str().to_owned(), b.label().as_str().to_owned()))
}

#[test]
fn const_access_sets_find_aliasing_terms_at_any_depth() {
    assert_eq!(internal_conflict::<(&mut A, &A)>(), Some(("&mut A".into(), "&A".into())));
    assert_eq!(internal_conflict::<(&B, (Entity, &mut B))>(), Some(("&mut B".into(), "&B".into())));
    assert_eq!(internal_conflict::<(&mut S, Option<&mut S>)>(), Some(("&mut S".into(), "&mut S".into())));
    assert_eq!(internal_conflict::<(Entity, &mut A, Option<&A>)>(), Some(("&mut A".into(), "&A".into())));
    assert_eq!(internal_conflict::<(&A, &A, Has<A>)>(), None);
    assert_eq!(internal_conflict::<(&mut A, &B)>(), None);
}

#[test]
fn const_access_sets_label_the_query_as_written() {
    assert_eq!(<(Entity, &mut A, Option<&B>) as WorldQuery>::ACCESS.label().as_str(), "(Entity, &mut A, Option<&B>)");
    assert_eq!(<(With<A>, Without<B>) as WorldQuery>::ACCESS.label().as_str(), "(With<A>, Without<B>)");
    assert_eq!(<Or<(Added<A>, Changed<B>)> as WorldQuery>::ACCESS.label().as_str(), "Or<(Added<A>, Changed<B>)>");
    assert_eq!(<(Has<Tag>,) as WorldQuery>::ACCESS.label().as_str(), "(Has<Tag>,)");
}

#[test]
fn const_access_sets_prove_disjointness_by_filters() {
    let with = <(&mut A, With<Tag>) as WorldQuery>::ACCESS;
    let without = <(&mut A, Without<Tag>) as WorldQuery>::ACCESS;
    let plain = <&A as WorldQuery>::ACCESS;
    assert!(with.is_disjoint(&without));
    assert!(with.conflict_with(&without).is_none());
    assert!(with.conflict_with(&plain).is_some());
    // a required data term against `Without`
    let requires_b = <(&mut A, &B) as WorldQuery>::ACCESS;
    let without_b = <(&A, Without<B>) as WorldQuery>::ACCESS;
    assert!(requires_b.conflict_with(&without_b).is_none());
    // `Option` does not require, so it proves nothing
    let optional_b = <(&mut A, Option<&B>) as WorldQuery>::ACCESS;
    assert!(optional_b.conflict_with(&without_b).is_some());
    // `Or` is left to the runtime check
    let either = <(&mut A, Or<(With<B>, With<Tag>)>) as WorldQuery>::ACCESS;
    assert!(either.undecidable());
    assert!(either.conflict_with(&plain).is_none());
}

#[test]
fn non_conflicting_combinations_are_allowed() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(2))).id();
    let mut q = world.query::<(&A, &A)>();
    assert_eq!(q.single(&world), Ok((&A(1), &A(1))));
    let mut q = world.query_filtered::<(&mut A, Has<A>), With<A>>();
    let (mut a, has) = q.single_mut(&mut world).unwrap();
    assert!(has);
    a.0 = 5;
    let mut q = world.query_filtered::<(&mut A, &mut B), Without<Tag>>();
    let (mut a, mut b) = q.get_mut(&mut world, e).unwrap();
    std::mem::swap(&mut a.0, &mut b.0);
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    assert_eq!(world.get::<B>(e), Some(&B(5)));
    world.check_invariants();
}

#[test]
fn mut_with_a_changed_filter_on_the_same_component() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut q = world.query_filtered::<&mut A, Changed<A>>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
    world.get_mut::<A>(e).unwrap().0 = 2;
    for mut a in q.iter_mut(&mut world) {
        a.0 += 1;
    }
    assert_eq!(world.get::<A>(e), Some(&A(3)));
    let mut q = world.query_filtered::<&mut A, Added<A>>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
}

#[test]
#[should_panic(expected = "used with a world other than the one it was built for")]
fn a_query_state_panics_on_another_world() {
    let mut first = World::new();
    let second = World::new();
    let mut q = first.query::<&A>();
    q.iter(&second);
}

#[test]
fn query_state_debug_names_the_query() {
    let mut world = World::new();
    world.spawn(A(1));
    let q = world.query::<&A>();
    let debug = format!("{q:?}");
    assert!(debug.starts_with("QueryState"), "{debug}");
    assert!(debug.contains("matched_archetypes: 1"), "{debug}");
}

// ----- tuple arity ---------------------------------------------------------------------

macro_rules! components {
    ($($name:ident),*) => {
        $(#[derive(Component, Debug, PartialEq, Clone, Copy)] struct $name(u8);)*
    };
}
components!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15);

#[test]
fn sixteen_term_tuples() {
    let mut world = World::new();
    let full = world
        .spawn((
            C0(0),
            C1(1),
            C2(2),
            C3(3),
            C4(4),
            C5(5),
            C6(6),
            C7(7),
            C8(8),
            C9(9),
            C10(10),
            C11(11),
            C12(12),
            C13(13),
            C14(14),
            C15(15),
        ))
        .id();
    let partial = world.spawn((C0(100), C15(115))).id();

    let mut q =
        world.query::<(&C0, &C1, &C2, &C3, &C4, &C5, &C6, &C7, &C8, &C9, &C10, &C11, &C12, &C13, &C14, &mut C15)>();
    let (c0, .., c14, mut c15) = q.single_mut(&mut world).unwrap();
    assert_eq!((c0.0, c14.0, c15.0), (0, 14, 15));
    c15.0 = 150;
    assert_eq!(world.get::<C15>(full), Some(&C15(150)));

    type All = (
        With<C0>,
        With<C1>,
        With<C2>,
        With<C3>,
        With<C4>,
        With<C5>,
        With<C6>,
        With<C7>,
        With<C8>,
        With<C9>,
        With<C10>,
        With<C11>,
        With<C12>,
        With<C13>,
        With<C14>,
        With<C15>,
    );
    let mut q = world.query_filtered::<Entity, All>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [full]);
    type Any = Or<(
        With<C1>,
        With<C2>,
        With<C3>,
        With<C4>,
        With<C5>,
        With<C6>,
        With<C7>,
        With<C8>,
        With<C9>,
        With<C10>,
        With<C11>,
        With<C12>,
        With<C13>,
        With<C14>,
        With<C15>,
        Without<C0>,
    )>;
    let mut q = world.query_filtered::<Entity, Any>();
    assert_eq!(set(q.iter(&world)), set([full, partial]));
    world.check_invariants();
}

/// A component of another size than `A`, so an archetype of it cannot keep the
/// buffers of one without it.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Wide([u64; 4]);

#[test]
fn a_kept_query_state_follows_deleted_and_reused_archetype_slots() {
    // Terms cache a pointer to their column per matched archetype: after the
    // archetype is deleted and its slot reused by another shape (or the same
    // shape), the state must not read through the old match.
    let mut world = World::new();
    let mut values = world.query::<&mut A>();
    let mut changed = world.query_filtered::<&A, Changed<A>>();
    let mut used = Vec::new();
    for round in 0..3u32 {
        let parent = world.spawn_empty().id();
        let child = world.spawn((A(round),)).id();
        world.add_pair::<ChildOf>(child, parent);
        if round == 1 {
            // A different shape in the slot that round 0's archetype left.
            world.insert(child, (Wide([7; 4]),));
        }
        let archetype = world.entity(child).archetype();
        used.push(archetype);
        values.iter_mut(&mut world).for_each(|mut a| a.0 += 10);
        assert_eq!(values.iter(&world).copied().collect::<Vec<_>>(), [A(round + 10)], "round {round}");
        assert_eq!(changed.iter(&world).count(), 1, "round {round}");
        assert_eq!(world.get::<A>(child), Some(&A(round + 10)));
        assert!(world.despawn(parent));
        assert!(!world.is_alive(child));
        assert!(world.archetypes().is_dead(archetype), "round {round}: the pair archetype is deleted");
        assert_eq!(values.iter(&world).count(), 0, "round {round}");
        world.check_invariants();
    }
    // Round 2's archetype took the slot of round 1's, whose table had a `Wide`
    // column too (so it was rebuilt, not kept).
    assert_eq!(used[2], used[1], "slots are reused (else this test covers less)");
}
