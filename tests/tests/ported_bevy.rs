//! Tests ported from bevy_ecs's own test suites (world, query, change
//! detection, observers, hierarchy, messages, systems, schedules, one-shot
//! systems) to this crate's API, with Bevy's meanings.

use std::collections::BTreeSet;

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct A(usize);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct B(usize);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct C;
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[component(storage = "sparse")]
struct SparseStored(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct TableStored(&'static str);

#[derive(Resource, Default, Debug, PartialEq)]
struct Order(Vec<&'static str>);
impl Order {
    fn observed(&mut self, s: &'static str) {
        self.0.push(s);
    }
}

#[derive(Resource, Default, Debug, PartialEq)]
struct Counter(usize);

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<Entity>);

fn sorted<I: IntoIterator<Item = Entity>>(it: I) -> Vec<Entity> {
    let mut v: Vec<Entity> = it.into_iter().collect();
    v.sort();
    v
}

// ===== world =========================================================================

#[test]
fn despawn_table_storage() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123))).id();
    let f = world.spawn((TableStored("def"), A(456))).id();
    assert_eq!(world.query::<&TableStored>().iter(&world).count(), 2);
    assert!(world.despawn(e));
    assert_eq!(world.query::<&TableStored>().iter(&world).count(), 1);
    assert!(world.get::<TableStored>(e).is_none());
    assert!(world.get::<A>(e).is_none());
    assert_eq!(world.get::<TableStored>(f).unwrap().0, "def");
    assert_eq!(world.get::<A>(f).unwrap().0, 456);
}

#[test]
fn despawn_mixed_storage() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), SparseStored(123))).id();
    let f = world.spawn((TableStored("def"), SparseStored(456))).id();
    assert_eq!(world.query::<&SparseStored>().iter(&world).count(), 2);
    assert!(world.despawn(e));
    assert_eq!(world.query::<&SparseStored>().iter(&world).count(), 1);
    assert!(world.get::<SparseStored>(e).is_none());
    assert_eq!(world.get::<SparseStored>(f).unwrap().0, 456);
}

#[test]
fn query_filter_with_sparse_and_without() {
    let mut world = World::new();
    world.spawn((A(123), B(1)));
    world.spawn((A(456), SparseStored(1)));
    world.spawn(A(789));
    let with: Vec<usize> = world.query_filtered::<&A, With<SparseStored>>().iter(&world).map(|a| a.0).collect();
    assert_eq!(with, vec![456]);
    let mut without: Vec<usize> =
        world.query_filtered::<&A, Without<SparseStored>>().iter(&world).map(|a| a.0).collect();
    without.sort();
    assert_eq!(without, vec![123, 789]);
}

#[test]
fn query_optional_component_sparse_no_match() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(1))).id();
    let f = world.spawn((TableStored("def"), A(2))).id();
    let mut q = world.query::<(Entity, &TableStored, Option<&SparseStored>)>();
    let mut got: Vec<(Entity, Option<u32>)> = q.iter(&world).map(|(e, _, s)| (e, s.map(|s| s.0))).collect();
    got.sort();
    assert_eq!(got, sorted([e, f]).into_iter().map(|e| (e, None)).collect::<Vec<_>>());
}

#[test]
fn add_remove_components_across_storages() {
    let mut world = World::new();
    let e1 = world.spawn((A(1), B(3), TableStored("abc"))).id();
    let e2 = world.spawn((A(2), B(4), TableStored("xyz"))).id();
    world.entity_mut(e1).insert(SparseStored(5));
    world.entity_mut(e2).remove::<A>();
    assert_eq!(world.get::<SparseStored>(e1), Some(&SparseStored(5)));
    assert_eq!(world.get::<A>(e2), None);
    assert_eq!(world.get::<B>(e2), Some(&B(4)));
    world.entity_mut(e1).remove::<(A, SparseStored)>();
    assert!(!world.has::<A>(e1));
    assert!(!world.has::<SparseStored>(e1));
    assert_eq!(world.get::<TableStored>(e1), Some(&TableStored("abc")));
}

#[test]
fn bundle_remove_via_entity_mut_removes_what_is_present() {
    // Bevy's EntityWorldMut::remove removes the intersection.
    let mut world = World::new();
    let e = world.spawn((A(1), B(2))).id();
    world.entity_mut(e).remove::<(A, C)>();
    assert!(!world.has::<A>(e));
    assert!(world.has::<B>(e));
}

#[test]
fn resource_api() {
    #[derive(Resource, Debug, PartialEq)]
    struct Num(u64);
    let mut world = World::new();
    assert!(world.get_resource::<Num>().is_none());
    assert!(!world.contains_resource::<Num>());
    world.insert_resource(Num(123));
    assert_eq!(world.resource::<Num>().0, 123);
    world.resource_mut::<Num>().0 = 5;
    assert_eq!(world.get_resource::<Num>(), Some(&Num(5)));
    world.insert_resource(Num(7));
    assert_eq!(world.resource::<Num>().0, 7, "insert replaces");
    assert_eq!(world.remove_resource::<Num>(), Some(Num(7)));
    assert_eq!(world.remove_resource::<Num>(), None);
    assert!(world.get_resource_mut::<Num>().is_none());
    world.init_resource::<Counter>();
    world.resource_mut::<Counter>().0 = 3;
    world.init_resource::<Counter>();
    assert_eq!(world.resource::<Counter>().0, 3, "init_resource keeps an existing value (Bevy)");
}

#[test]
fn clear_entities_keeps_resources_and_allows_spawning() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.spawn(A(1));
    world.spawn((B(1), SparseStored(2)));
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<&A>().iter(&world).count(), 0);
    assert_eq!(world.query::<&SparseStored>().iter(&world).count(), 0);
    assert!(world.contains_resource::<Counter>());
    let e = world.spawn(A(2)).id();
    assert_eq!(world.query::<&A>().single(&world), Ok(&A(2)));
    assert!(world.is_alive(e));
}

#[test]
fn query_get_works_across_sparse_removal() {
    let mut world = World::new();
    let a = world.spawn((SparseStored(1), A(1))).id();
    let b = world.spawn((SparseStored(2), A(2))).id();
    let c = world.spawn((SparseStored(3), A(3))).id();
    let mut q = world.query::<&SparseStored>();
    assert_eq!(q.get(&world, c), Ok(&SparseStored(3)));
    world.entity_mut(b).remove::<SparseStored>();
    world.entity_mut(c).remove::<SparseStored>();
    assert_eq!(q.get(&world, a), Ok(&SparseStored(1)));
    assert!(q.get(&world, b).is_err());
    assert!(q.get(&world, c).is_err());
}

// ===== change detection =============================================================

#[test]
fn added_tracking_relative_to_query_state() {
    let mut world = World::new();
    let a = world.spawn(A(123)).id();
    let mut added = world.query_filtered::<Entity, Added<A>>();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![a]);
    assert_eq!(added.iter(&world).count(), 0, "second run sees nothing new");
    let b = world.spawn(A(1)).id();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![b]);
}

#[test]
fn added_queries_in_systems() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let id = world.register_system(|q: Query<Entity, Added<A>>, mut seen: ResMut<Seen>| seen.0.extend(q.iter()));
    let e1 = world.spawn(A(0)).id();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![e1]);
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![e1]);
    let e2 = world.spawn((A(1), B(1))).id();
    world.insert(e1, A(5)); // overwrite: changed, not added
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![e1, e2]);
}

#[test]
fn changed_trackers() {
    let mut world = World::new();
    let e1 = world.spawn((A(0), B(0))).id();
    let e2 = world.spawn((A(0), B(0))).id();
    let e3 = world.spawn((A(0), B(0))).id();
    world.spawn((A(0), B(0)));
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    assert_eq!(changed.iter(&world).count(), 4, "first run sees everything as changed");
    assert_eq!(changed.iter(&world).count(), 0);

    world.get_mut::<A>(e1).unwrap().0 = 1;
    world.get_mut::<A>(e3).unwrap().0 = 1;
    assert_eq!(sorted(changed.iter(&world)), sorted([e1, e3]));

    // Reading through Mut without writing does not mark changed.
    {
        let m = world.get_mut::<A>(e2).unwrap();
        let _ = m.0;
    }
    assert_eq!(changed.iter(&world).count(), 0);

    // Archetype moves keep ticks.
    world.get_mut::<A>(e2).unwrap().0 = 2;
    world.entity_mut(e2).insert(C);
    world.entity_mut(e1).insert(C);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e2]);

    // Despawn does not count as a change.
    world.despawn(e2);
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn changed_sparse_and_insert_over_existing() {
    let mut world = World::new();
    let e = world.spawn(SparseStored(0)).id();
    let mut added = world.query_filtered::<Entity, Added<SparseStored>>();
    let mut changed = world.query_filtered::<Entity, Changed<SparseStored>>();
    assert_eq!(added.iter(&world).count(), 1);
    assert_eq!(changed.iter(&world).count(), 1);
    world.insert(e, SparseStored(5));
    assert_eq!(added.iter(&world).count(), 0, "overwrite is not an add");
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
    world.remove::<SparseStored>(e);
    world.insert(e, SparseStored(6));
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e], "re-adding after remove is an add");
}

#[test]
fn mut_and_added_query() {
    let mut world = World::new();
    world.spawn(A(0));
    let mut q = world.query_filtered::<&mut A, Added<A>>();
    for mut a in q.iter_mut(&mut world) {
        a.0 = 2;
    }
    assert_eq!(q.iter_mut(&mut world).count(), 0);
    world.spawn(A(1));
    let got: Vec<usize> = q.iter_mut(&mut world).map(|a| a.0).collect();
    assert_eq!(got, vec![1]);
}

#[test]
fn mut_and_changed_query() {
    let mut world = World::new();
    let e = world.spawn((A(0), B(0))).id();
    let mut q = world.query_filtered::<(&A, &mut B), Changed<A>>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
    world.get_mut::<B>(e).unwrap().0 = 1;
    assert_eq!(q.iter_mut(&mut world).count(), 0, "B changed, not A");
    world.get_mut::<A>(e).unwrap().0 = 1;
    assert_eq!(q.iter_mut(&mut world).count(), 1);
}

#[test]
fn set_if_neq_marks_changed_only_when_different() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    changed.iter(&world).for_each(drop);
    assert!(!world.get_mut::<A>(e).unwrap().set_if_neq(A(1)));
    assert_eq!(changed.iter(&world).count(), 0);
    assert!(world.get_mut::<A>(e).unwrap().set_if_neq(A(2)));
    assert_eq!(changed.iter(&world).count(), 1);
    assert_eq!(world.get::<A>(e), Some(&A(2)));
}

#[test]
fn ref_is_added_and_is_changed_in_systems() {
    #[derive(Resource, Default)]
    struct Flags(Vec<(bool, bool)>);
    let mut world = World::new();
    world.init_resource::<Flags>();
    let e = world.spawn(A(0)).id();
    let id = world.register_system(|q: Query<Ref<A>>, mut f: ResMut<Flags>| {
        for r in &q {
            f.0.push((r.is_added(), r.is_changed()));
        }
    });
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.get_mut::<A>(e).unwrap().0 = 9;
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Flags>().0, vec![(true, true), (false, false), (false, true)]);
}

#[test]
fn changed_tags_are_tracked() {
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    let mut added = world.query_filtered::<Entity, Added<C>>();
    assert_eq!(added.iter(&world).count(), 0);
    world.entity_mut(e).insert(C);
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn changed_resource_system() {
    #[derive(Resource, Default)]
    struct Flag(bool);
    let mut world = World::new();
    world.insert_resource(Flag(false));
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(resource_changed::<Flag>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "first run: inserted counts as changed");
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    world.resource_mut::<Flag>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2);
}

// ===== systems, queries in systems ==================================================

#[test]
fn simple_system_and_local_state() {
    fn sys(mut local: Local<usize>, mut c: ResMut<Counter>) {
        *local += 1;
        c.0 = *local;
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(sys);
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 3);
}

#[test]
fn option_res_param() {
    #[derive(Resource)]
    struct Maybe;
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(|m: Option<Res<Maybe>>, mut c: ResMut<Counter>| {
        if m.is_some() {
            c.0 += 10;
        } else {
            c.0 += 1;
        }
    });
    world.run_system(id).unwrap();
    world.insert_resource(Maybe);
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counter>().0, 11);
}

#[test]
fn query_get_many_in_system() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    let b = world.spawn(A(2)).id();
    let c = world.spawn(B(3)).id();
    let dead = world.spawn(A(4)).id();
    world.despawn(dead);
    world.run_system_once(move |q: Query<&A>| {
        assert_eq!(q.get_many([a, b]).unwrap().map(|x| x.0), [1, 2]);
        assert!(q.get_many([a, c]).is_err(), "missing component");
        assert!(q.get_many([a, dead]).is_err(), "dead entity");
        assert!(q.get_many([a, a]).is_err(), "API.md: duplicate is an Err");
    });
    world.run_system_once(move |mut q: Query<&mut A>| {
        assert!(matches!(q.get_many_mut([a, a]), Err(QueryError::AliasedMutability(_))));
        let [mut x, mut y] = q.get_many_mut([a, b]).unwrap();
        std::mem::swap(&mut x.0, &mut y.0);
    });
    assert_eq!(world.get::<A>(a), Some(&A(2)));
    assert_eq!(world.get::<A>(b), Some(&A(1)));
}

#[test]
fn iter_combinations_counts() {
    let mut world = World::new();
    for i in 0..5 {
        world.spawn(A(i));
    }
    world.spawn(B(0));
    let (pairs, triples, fives, sixes) = world.run_system_once(|q: Query<&A>| {
        (
            q.iter_combinations::<2>().count(),
            q.iter_combinations::<3>().count(),
            q.iter_combinations::<5>().count(),
            q.iter_combinations::<6>().count(),
        )
    });
    assert_eq!((pairs, triples, fives, sixes), (10, 10, 1, 0));
    let sums: BTreeSet<usize> =
        world.run_system_once(|q: Query<&A>| q.iter_combinations::<2>().map(|[x, y]| x.0 + y.0).collect());
    assert_eq!(sums, (1..=7).collect());
}

#[test]
fn iter_combinations_mut_fetch_next() {
    let mut world = World::new();
    for i in 0..4 {
        world.spawn(A(i));
    }
    world.run_system_once(|mut q: Query<&mut A>| {
        let mut it = q.iter_combinations_mut::<2>();
        let mut n = 0;
        while let Some([mut x, _y]) = it.fetch_next() {
            x.0 += 1;
            n += 1;
        }
        assert_eq!(n, 6);
    });
    let mut increments: Vec<usize> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
    increments.sort();
    // Values 0..4 plus the number of pairs each entity came first in (3, 2, 1, 0).
    assert_eq!(increments.iter().sum::<usize>(), 6 + 6);
}

#[test]
fn query_is_empty_contains_single_in_system() {
    let mut world = World::new();
    let e = world.spawn((A(1), C)).id();
    let f = world.spawn(A(2)).id();
    world.run_system_once(move |q: Query<&A, With<C>>, all: Query<&A>, none: Query<&B>| {
        assert!(!q.is_empty());
        assert!(none.is_empty());
        assert!(q.contains(e));
        assert!(!q.contains(f));
        assert_eq!(q.single().map(|a| a.0), Ok(1));
        assert!(matches!(all.single(), Err(QuerySingleError::MultipleEntities(_))));
        assert!(matches!(none.single(), Err(QuerySingleError::NoEntities(_))));
    });
}

#[test]
fn query_iter_in_system_for_loops() {
    let mut world = World::new();
    for i in 0..10 {
        world.spawn((A(i), B(0)));
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut q: Query<(&A, &mut B)>| {
        for (a, mut b) in &mut q {
            b.0 = a.0 * 2;
        }
    });
    schedule.run(&mut world);
    let ok = world.query::<(&A, &B)>().iter(&world).all(|(a, b)| b.0 == a.0 * 2);
    assert!(ok);
}

#[test]
fn disjoint_mutable_queries_by_filter() {
    let mut world = World::new();
    world.spawn((A(1), C));
    world.spawn(A(2));
    world.run_system_once(|mut a: Query<&mut A, With<C>>, mut b: Query<&mut A, Without<C>>| {
        for mut x in &mut a {
            x.0 += 10;
        }
        for mut x in &mut b {
            x.0 += 100;
        }
    });
    let mut got: Vec<usize> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
    got.sort();
    assert_eq!(got, vec![11, 102]);
}

#[test]
fn param_set_allows_aliasing_params() {
    let mut world = World::new();
    world.spawn((A(1), C));
    world.spawn(A(2));
    #[allow(clippy::type_complexity)]
    fn sys(mut set: ParamSet<(Query<&mut A>, Query<&A, With<C>>)>) -> usize {
        for mut a in set.p0().iter_mut() {
            a.0 *= 10;
        }
        set.p1().iter().map(|a| a.0).sum::<usize>()
    }
    let total = world.run_system_once(sys);
    assert_eq!(total, 10);
}

#[test]
fn single_param_skips_system_unless_exactly_one() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(|s: Single<&A>, mut c: ResMut<Counter>| c.0 += s.0);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0, "no match: skipped");
    world.spawn(A(5));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 5);
    world.spawn(A(7));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 5, "two matches: skipped");
}

#[test]
fn option_single_runs_always() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(|s: Option<Single<&A>>, mut c: ResMut<Counter>| {
        c.0 += 1 + s.map(|a| a.0 * 100).unwrap_or(0);
    });
    schedule.run(&mut world);
    world.spawn(A(1));
    schedule.run(&mut world);
    world.spawn(A(1));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1 + 101 + 1);
}

#[test]
fn world_param_reads() {
    let mut world = World::new();
    world.spawn(A(3));
    world.insert_resource(Counter(4));
    let n = world.run_system_once(|w: &World| w.resource::<Counter>().0 + w.entity_count());
    assert_eq!(n, 5);
}

#[test]
fn removed_components_tracking() {
    #[derive(Resource, Default)]
    struct Removed(Vec<Vec<Entity>>);
    let mut world = World::new();
    world.init_resource::<Removed>();
    let id = world.register_system(|mut r: RemovedComponents<A>, mut out: ResMut<Removed>| {
        let v: Vec<Entity> = r.read().collect();
        out.0.push(v);
    });
    let a = world.spawn((A(1), B(1))).id();
    let b = world.spawn(A(2)).id();
    let c = world.spawn(A(3)).id();
    world.run_system(id).unwrap();
    world.remove::<A>(a);
    world.despawn(b);
    let never = world.spawn(B(0)).id(); // never had A
    world.despawn(never);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.entity_mut(c).remove::<A>();
    world.run_system(id).unwrap();
    let r = &world.resource::<Removed>().0;
    assert_eq!(r[0], Vec::<Entity>::new());
    assert_eq!(sorted(r[1].clone()), sorted([a, b]));
    assert_eq!(r[2], Vec::<Entity>::new(), "each removal is seen once");
    assert_eq!(r[3], vec![c]);
}

// ===== commands, schedules ==========================================================

#[test]
fn commands_spawn_insert_despawn_are_deferred_to_the_end_of_run() {
    let mut world = World::new();
    let victim = world.spawn(A(0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(move |mut commands: Commands, q: Query<&A>| {
        assert_eq!(q.iter().count(), 1);
        let e = commands.spawn(A(1)).id();
        commands.entity(e).insert(B(2));
        commands.entity(victim).despawn();
    });
    schedule.run(&mut world);
    assert!(!world.is_alive(victim));
    let got: Vec<(usize, usize)> = world.query::<(&A, &B)>().iter(&world).map(|(a, b)| (a.0, b.0)).collect();
    assert_eq!(got, vec![(1, 2)]);
}

#[test]
fn commands_insert_resource_and_remove_resource() {
    let mut world = World::new();
    world.run_system_once(|mut c: Commands| c.insert_resource(Counter(3)));
    assert_eq!(world.resource::<Counter>().0, 3);
    world.run_system_once(|mut c: Commands| c.remove_resource::<Counter>());
    assert!(!world.contains_resource::<Counter>());
}

#[test]
fn commands_applied_in_system_order() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut schedule = Schedule::new();
    schedule.add_systems(
        (
            |mut c: Commands| c.queue(|w: &mut World| w.resource_mut::<Order>().observed("first")),
            |mut c: Commands| c.queue(|w: &mut World| w.resource_mut::<Order>().observed("second")),
            |mut c: Commands| c.queue(|w: &mut World| w.resource_mut::<Order>().observed("third")),
        )
            .chain(),
    );
    schedule.run(&mut world);
    assert_eq!(world.resource::<Order>().0, vec!["first", "second", "third"]);
}

#[test]
fn chained_systems_see_commands_of_earlier_systems() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(
        (
            |mut c: Commands| {
                c.spawn(A(1));
            },
            |q: Query<&A>, mut n: ResMut<Counter>| n.0 = q.iter().count(),
        )
            .chain(),
    );
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn apply_deferred_with_auto_sync_off() {
    fn spawn_a(mut c: Commands) {
        c.spawn(A(1));
    }
    fn count(q: Query<&A>, mut n: ResMut<Counter>) {
        n.0 = q.iter().count();
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.set_auto_sync(false);
    schedule.add_systems((spawn_a, count).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0, "no sync point between them");
    assert_eq!(world.query::<&A>().iter(&world).count(), 1, "applied at the end of run");

    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.set_auto_sync(false);
    schedule.add_systems((spawn_a, ApplyDeferred, count).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn before_and_after_ordering() {
    fn a(mut o: ResMut<Order>) {
        o.observed("a");
    }
    fn b(mut o: ResMut<Order>) {
        o.observed("b");
    }
    fn c(mut o: ResMut<Order>) {
        o.observed("c");
    }
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut schedule = Schedule::new();
    schedule.add_systems((c.after(b), a.before(b), b));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Order>().0, vec!["a", "b", "c"]);
}

#[test]
fn system_sets_order_and_conditions() {
    #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
    enum Phase {
        First,
        Second,
    }
    fn one(mut o: ResMut<Order>) {
        o.observed("one");
    }
    fn two(mut o: ResMut<Order>) {
        o.observed("two");
    }
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut schedule = Schedule::new();
    schedule.configure_sets(Phase::Second.after(Phase::First));
    schedule.add_systems((two.in_set(Phase::Second), one.in_set(Phase::First)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Order>().0, vec!["one", "two"]);
}

#[test]
fn run_if_conditions() {
    #[derive(Resource)]
    struct Enabled;
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(resource_exists::<Enabled>));
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 100).run_if(run_once));
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1000).run_if(not(resource_exists::<Enabled>)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1100);
    world.insert_resource(Enabled);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1101);
}

#[test]
fn any_with_component_condition() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(any_with_component::<C>));
    schedule.run(&mut world);
    world.spawn(C);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

// ===== one-shot systems =============================================================

#[test]
fn run_system_once_returns_output_and_applies_commands() {
    let mut world = World::new();
    world.spawn(A(1));
    world.spawn(A(2));
    assert_eq!(world.run_system_once(|q: Query<&A>| q.iter().count()), 2);
    let e = world.run_system_once(|mut c: Commands| c.spawn(B(5)).id());
    assert_eq!(world.get::<B>(e), Some(&B(5)), "commands of run_system_once are applied");
}

#[test]
fn registered_system_commands_are_applied_after_run_system() {
    let mut world = World::new();
    let id = world.register_system(|mut c: Commands| {
        c.spawn(A(9));
    });
    world.run_system(id).unwrap();
    assert_eq!(world.query::<&A>().iter(&world).count(), 1);
    world.run_system(id).unwrap();
    assert_eq!(world.query::<&A>().iter(&world).count(), 2);
}

#[test]
fn run_system_with_input_and_pipe() {
    fn parse(In(s): In<&'static str>) -> usize {
        s.len()
    }
    let mut world = World::new();
    let id = world.register_system(parse);
    assert_eq!(world.run_system_with(id, "abcd"), Ok(4));
    let piped = world.register_system((|| 21u32).pipe(|In(x): In<u32>| x * 2));
    assert_eq!(world.run_system(piped), Ok(42));
    let mapped = world.register_system((|| 3u32).map(|x: u32| x + 1));
    assert_eq!(world.run_system(mapped), Ok(4));
}

#[test]
fn commands_run_system() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(|mut c: ResMut<Counter>| c.0 += 1);
    world.run_system_once(move |mut c: Commands| {
        c.run_system(id);
        c.run_system(id);
    });
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn run_system_of_unregistered_id_is_an_error() {
    let mut world = World::new();
    let id = world.register_system(|| ());
    assert!(world.unregister_system(id));
    assert!(matches!(world.run_system(id), Err(RunSystemError::NotRegistered { .. })));
}

#[test]
fn nested_run_system_from_exclusive_world() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let inner = world.register_system(|mut c: ResMut<Counter>| c.0 += 1);
    let outer = world.register_system(move |mut c: Commands| c.run_system(inner));
    world.run_system(outer).unwrap();
    assert_eq!(world.resource::<Counter>().0, 1);
}

// ===== observers ====================================================================

#[test]
fn observer_order_spawn_despawn() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<OnAdd, A>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: Trigger<OnInsert, A>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: Trigger<OnReplace, A>, mut res: ResMut<Order>| res.observed("replace"));
    world.add_observer(|_: Trigger<OnRemove, A>, mut res: ResMut<Order>| res.observed("remove"));
    let e = world.spawn(A(0)).id();
    world.despawn(e);
    assert_eq!(world.resource::<Order>().0, vec!["add", "insert", "replace", "remove"]);
}

#[test]
fn observer_order_insert_remove_and_replace() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<OnAdd, A>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: Trigger<OnInsert, A>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: Trigger<OnReplace, A>, mut res: ResMut<Order>| res.observed("replace"));
    world.add_observer(|_: Trigger<OnRemove, A>, mut res: ResMut<Order>| res.observed("remove"));
    let e = world.spawn(B(0)).id();
    world.entity_mut(e).insert(A(0));
    world.entity_mut(e).insert(A(1));
    world.entity_mut(e).remove::<A>();
    assert_eq!(world.resource::<Order>().0, vec!["add", "insert", "replace", "insert", "replace", "remove"]);
}

#[test]
fn observer_order_recursive() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|t: Trigger<OnAdd, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("add_a");
        commands.entity(t.entity()).insert(B(0));
    });
    world.add_observer(|t: Trigger<OnRemove, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("remove_a");
        commands.entity(t.entity()).remove::<B>();
    });
    world.add_observer(|_: Trigger<OnAdd, B>, mut res: ResMut<Order>| res.observed("add_b"));
    world.add_observer(|_: Trigger<OnRemove, B>, mut res: ResMut<Order>| res.observed("remove_b"));
    let e = world.spawn(A(0)).id();
    assert!(world.has::<B>(e), "observer commands are applied before spawn returns (Bevy flushes)");
    world.entity_mut(e).remove::<A>();
    assert!(!world.has::<B>(e));
    assert_eq!(world.resource::<Order>().0, vec!["add_a", "add_b", "remove_a", "remove_b"]);
}

#[test]
fn observer_multiple_listeners() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.add_observer(|_: Trigger<OnAdd, A>, mut c: ResMut<Counter>| c.0 += 1);
    world.add_observer(|_: Trigger<OnAdd, A>, mut c: ResMut<Counter>| c.0 += 1);
    world.spawn(A(0));
    assert_eq!(world.resource::<Counter>().0, 2);
}

/// Bevy's `observer_multiple_components` fires once per watched component;
/// ours follows Flecs (documented in `observer`): an observer on several
/// components fires when an entity comes to have all of them, once per event.
#[test]
fn observer_multiple_components() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<OnAdd, (A, B)>, mut res: ResMut<Order>| res.observed("add_ab"));
    let e = world.spawn(A(0)).id();
    assert!(world.resource::<Order>().0.is_empty(), "B is missing");
    world.entity_mut(e).insert(B(0));
    assert_eq!(world.resource::<Order>().0, vec!["add_ab"]);
    world.spawn((A(1), B(1)));
    assert_eq!(world.resource::<Order>().0, vec!["add_ab", "add_ab"], "one event for both at once");
}

#[test]
fn observer_despawn_stops_it() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let obs = world.add_observer(|_: Trigger<OnAdd, A>, mut c: ResMut<Counter>| c.0 += 1).id();
    world.spawn(A(0));
    assert!(world.despawn(obs));
    world.spawn(A(0));
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_eq!(world.entity_count(), 2, "the observer entity is internal");
}

#[test]
fn observer_sees_component_values_on_add_and_remove() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world
        .add_observer(|t: Trigger<OnAdd, A>, q: Query<&A>, mut c: ResMut<Counter>| c.0 += q.get(t.entity()).unwrap().0);
    world.add_observer(|t: Trigger<OnRemove, A>, q: Query<&A>, mut c: ResMut<Counter>| {
        c.0 += 100 * q.get(t.entity()).unwrap().0
    });
    let e = world.spawn(A(3)).id();
    world.despawn(e);
    assert_eq!(world.resource::<Counter>().0, 303);
}

#[derive(Event)]
struct EventA;

#[derive(Event)]
struct EventWithData {
    counter: usize,
}

#[test]
fn observer_no_target_and_event_data() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.init_resource::<Counter>();
    world.add_observer(|t: Trigger<EventA>, mut res: ResMut<Order>| {
        assert_eq!(t.entity(), Entity::PLACEHOLDER);
        res.observed("event_a");
    });
    world.add_observer(|t: Trigger<EventWithData>, mut c: ResMut<Counter>| c.0 += t.event().counter);
    world.trigger(EventA);
    world.trigger(EventWithData { counter: 5 });
    assert_eq!(world.resource::<Order>().0, vec!["event_a"]);
    assert_eq!(world.resource::<Counter>().0, 5);
}

#[test]
fn observer_entity_routing() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    world.entity_mut(a).observe(|t: Trigger<EventA>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    world.add_observer(|t: Trigger<EventA>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    world.trigger_targets(EventA, b);
    assert_eq!(world.resource::<Seen>().0, vec![b], "only the global observer fires for b");
    world.resource_mut::<Seen>().0.clear();
    world.trigger_targets(EventA, a);
    assert_eq!(world.resource::<Seen>().0, vec![a, a]);
    world.resource_mut::<Seen>().0.clear();
    world.trigger_targets(EventA, [a, b]);
    assert_eq!(world.resource::<Seen>().0.len(), 3);
}

#[test]
fn entity_observer_is_removed_with_its_entity() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let a = world.spawn_empty().id();
    world.entity_mut(a).observe(|_: Trigger<EventA>, mut c: ResMut<Counter>| c.0 += 1);
    world.despawn(a);
    world.trigger(EventA);
    world.trigger_targets(EventA, a);
    assert_eq!(world.resource::<Counter>().0, 0);
    assert_eq!(world.entity_count(), 0, "no observer entity left behind");
}

#[test]
fn observer_on_remove_during_despawn_spawn_empty() {
    let mut world = World::new();
    world.add_observer(|_: Trigger<OnRemove, A>, mut cmd: Commands| {
        cmd.spawn_empty();
    });
    let e = world.spawn(A(0)).id();
    world.despawn(e);
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn commands_trigger_and_entity_observe() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let e = world.run_system_once(|mut c: Commands| {
        let e = c.spawn_empty().observe(|_: Trigger<EventA>, mut n: ResMut<Counter>| n.0 += 10).id();
        c.trigger_targets(EventA, e);
        e
    });
    assert_eq!(world.resource::<Counter>().0, 10);
    world.run_system_once(|mut c: Commands| c.trigger(EventWithData { counter: 1 }));
    world.trigger_targets(EventA, e);
    assert_eq!(world.resource::<Counter>().0, 20);
}

// ===== hierarchy ====================================================================

#[test]
fn with_children_and_children() {
    let mut world = World::new();
    let mut kids = Vec::new();
    let parent = world
        .spawn(A(0))
        .with_children(|p| {
            kids.push(p.spawn(A(1)).id());
            kids.push(p.spawn(A(2)).id());
        })
        .id();
    assert_eq!(sorted(world.children(parent)), sorted(kids.clone()));
    for &k in &kids {
        assert_eq!(world.target::<ChildOf>(k), Some(parent));
        assert!(world.has_pair::<ChildOf>(k, parent));
    }
}

#[test]
fn despawn_is_recursive_for_children() {
    let mut world = World::new();
    let root = world.spawn(A(0)).id();
    let child = world.spawn((A(1), ChildOf.pair(root))).id();
    let grandchild = world.spawn((A(2), ChildOf.pair(child))).id();
    let other = world.spawn(A(3)).id();
    world.despawn(root);
    assert!(!world.is_alive(child));
    assert!(!world.is_alive(grandchild));
    assert!(world.is_alive(other));
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn despawning_a_child_removes_it_from_parent() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn(ChildOf.pair(parent)).id();
    world.despawn(c1);
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![c2]);
    assert!(world.is_alive(parent));
}

#[test]
fn reparenting_replaces_the_old_parent() {
    let mut world = World::new();
    let p1 = world.spawn_empty().id();
    let p2 = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(p1)).id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    assert_eq!(world.target::<ChildOf>(child), Some(p2));
    assert_eq!(world.targets::<ChildOf>(child).count(), 1);
    assert_eq!(world.children(p1).count(), 0);
    assert_eq!(world.children(p2).collect::<Vec<_>>(), vec![child]);
    world.despawn(p1);
    assert!(world.is_alive(child));
}

#[test]
fn removing_child_of_detaches() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.entity_mut(child).remove_pair::<ChildOf>(parent);
    assert_eq!(world.target::<ChildOf>(child), None);
    assert_eq!(world.children(parent).count(), 0);
    world.despawn(parent);
    assert!(world.is_alive(child));
}

#[test]
fn ancestors_and_descendants() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn(ChildOf.pair(root)).id();
    let b = world.spawn(ChildOf.pair(root)).id();
    let a1 = world.spawn(ChildOf.pair(a)).id();
    let b1 = world.spawn(ChildOf.pair(b)).id();
    let a11 = world.spawn(ChildOf.pair(a1)).id();
    assert_eq!(world.ancestors(a11).collect::<Vec<_>>(), vec![a1, a, root]);
    assert_eq!(world.ancestors(root).count(), 0);
    let desc: Vec<Entity> = world.descendants(root).collect();
    assert_eq!(desc.len(), 5);
    // Breadth-first: both depth-1 entities before any depth-2 one, depth-3 last.
    assert_eq!(sorted(desc[..2].iter().copied()), sorted([a, b]));
    assert_eq!(sorted(desc[2..4].iter().copied()), sorted([a1, b1]));
    assert_eq!(desc[4], a11);
}

#[test]
fn commands_with_children_and_relations_param() {
    let mut world = World::new();
    let parent = world.run_system_once(|mut c: Commands| {
        c.spawn(A(0))
            .with_children(|p| {
                p.spawn(A(1));
                p.spawn(A(2));
            })
            .id()
    });
    assert_eq!(world.children(parent).count(), 2);
    let (n, parents) = world.run_system_once(move |h: Relations<ChildOf>, q: Query<Entity, With<A>>| {
        let n = h.sources(parent).count();
        let parents: Vec<Option<Entity>> = q.iter().filter(|&e| e != parent).map(|e| h.target(e)).collect();
        (n, parents)
    });
    assert_eq!(n, 2);
    assert_eq!(parents, vec![Some(parent), Some(parent)]);
}

#[test]
fn child_of_is_queryable() {
    let mut world = World::new();
    let parent = world.spawn(A(10)).id();
    let child = world.spawn((A(1), ChildOf.pair(parent))).id();
    let mut q = world.query::<(Entity, Pair<ChildOf>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(child, parent)]);
    let mut q = world.query_filtered::<(&A, Up<ChildOf, &A>), WithPair<ChildOf>>();
    let got: Vec<(usize, usize)> = q.iter(&world).map(|(a, p)| (a.0, p.0)).collect();
    assert_eq!(got, vec![(1, 10)]);
}

// ===== messages =====================================================================

#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
struct TestMsg {
    i: usize,
}

#[test]
fn messages_live_two_updates() {
    let mut messages = Messages::<TestMsg>::default();
    let mut reader = MessageCursor::<TestMsg>::default();
    messages.write(TestMsg { i: 0 });
    assert_eq!(reader.read(&messages).copied().collect::<Vec<_>>(), vec![TestMsg { i: 0 }]);
    assert_eq!(reader.read(&messages).count(), 0, "read once");

    messages.write(TestMsg { i: 1 });
    let mut late = MessageCursor::<TestMsg>::default();
    messages.update();
    messages.write(TestMsg { i: 2 });
    assert_eq!(reader.read(&messages).copied().collect::<Vec<_>>(), vec![TestMsg { i: 1 }, TestMsg { i: 2 }]);
    messages.update();
    // `late` never read: after two updates messages 0 and 1 are gone, 2 remains.
    assert_eq!(late.read(&messages).copied().collect::<Vec<_>>(), vec![TestMsg { i: 2 }]);
    messages.update();
    assert!(messages.is_empty());
    let mut fresh = MessageCursor::<TestMsg>::default();
    assert_eq!(fresh.read(&messages).count(), 0);
}

#[test]
fn message_cursor_len_and_clear() {
    let mut messages = Messages::<TestMsg>::default();
    let mut reader = MessageCursor::<TestMsg>::default();
    messages.write(TestMsg { i: 0 });
    messages.write_batch([TestMsg { i: 1 }, TestMsg { i: 2 }]);
    assert_eq!(messages.len(), 3);
    assert_eq!(reader.len(&messages), 3);
    assert!(!reader.is_empty(&messages));
    reader.clear(&messages);
    assert!(reader.is_empty(&messages));
    messages.write(TestMsg { i: 3 });
    assert_eq!(reader.read(&messages).map(|m| m.i).collect::<Vec<_>>(), vec![3]);
    messages.clear();
    assert!(messages.is_empty());
    assert_eq!(reader.len(&messages), 0);
}

#[test]
fn write_message_needs_add_message() {
    let mut world = World::new();
    assert!(!world.write_message(TestMsg { i: 0 }));
    world.add_message::<TestMsg>();
    assert!(world.write_message(TestMsg { i: 1 }));
    world.add_message::<TestMsg>(); // idempotent: keeps queued messages
    assert_eq!(world.resource::<Messages<TestMsg>>().len(), 1);
}

#[test]
fn message_reader_and_writer_systems_across_frames() {
    #[derive(Resource, Default)]
    struct Got(Vec<usize>);
    fn writer(mut w: MessageWriter<TestMsg>, mut n: Local<usize>) {
        w.write(TestMsg { i: *n });
        *n += 1;
    }
    fn reader(mut r: MessageReader<TestMsg>, mut got: ResMut<Got>) {
        got.0.extend(r.read().map(|m| m.i));
    }
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.init_resource::<Got>();
    let mut schedule = Schedule::new();
    schedule.add_systems((writer, reader.after(writer)));
    for _ in 0..4 {
        schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Got>().0, vec![0, 1, 2, 3], "each message seen exactly once");
}

#[test]
fn reader_running_before_writer_sees_messages_next_frame() {
    #[derive(Resource, Default)]
    struct Got(Vec<usize>);
    fn writer(mut w: MessageWriter<TestMsg>) {
        w.write(TestMsg { i: 7 });
    }
    fn reader(mut r: MessageReader<TestMsg>, mut got: ResMut<Got>) {
        got.0.extend(r.read().map(|m| m.i));
    }
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.init_resource::<Got>();
    let mut schedule = Schedule::new();
    schedule.add_systems((reader, writer.after(reader)));
    for _ in 0..3 {
        schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Got>().0, vec![7, 7], "frame n's message read in frame n+1");
}

#[test]
fn two_readers_each_see_every_message() {
    #[derive(Resource, Default)]
    struct Got(Vec<(u8, usize)>);
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.init_resource::<Got>();
    world.write_message(TestMsg { i: 1 });
    world.write_message(TestMsg { i: 2 });
    let r1 = world.register_system(|mut r: MessageReader<TestMsg>, mut g: ResMut<Got>| {
        g.0.extend(r.read().map(|m| (1, m.i)));
    });
    let r2 = world.register_system(|mut r: MessageReader<TestMsg>, mut g: ResMut<Got>| {
        g.0.extend(r.read().map(|m| (2, m.i)));
    });
    world.run_system(r1).unwrap();
    world.run_system(r2).unwrap();
    world.run_system(r1).unwrap();
    assert_eq!(world.resource::<Got>().0, vec![(1, 1), (1, 2), (2, 1), (2, 2)]);
}

#[test]
fn message_mutator_and_commands_write_message() {
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.run_system_once(|mut c: Commands| c.write_message(TestMsg { i: 1 }));
    world.run_system_once(|mut m: MessageMutator<TestMsg>| {
        for msg in m.read() {
            msg.i += 10;
        }
    });
    let got: Vec<usize> = world.resource::<Messages<TestMsg>>().iter().map(|m| m.i).collect();
    assert_eq!(got, vec![11]);
}

#[test]
fn on_message_condition() {
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(on_message::<TestMsg>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
    world.write_message(TestMsg { i: 0 });
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "each message triggers once");
}

#[test]
fn message_reader_len_and_is_empty() {
    let mut world = World::new();
    world.add_message::<TestMsg>();
    world.write_message(TestMsg { i: 0 });
    world.write_message(TestMsg { i: 1 });
    let id = world.register_system(|r: MessageReader<TestMsg>| (r.len(), r.is_empty()));
    assert_eq!(world.run_system(id), Ok((2, false)));
    // len() does not consume.
    assert_eq!(world.run_system(id), Ok((2, false)));
}

// ===== relationships (bevy relationship tests, Flecs policies from API.md) ==========

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
struct Eats {
    amount: u32,
}

#[derive(Relationship)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

#[test]
fn children_keep_insertion_order() {
    // Bevy's `Children` keeps the order children were added.
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let kids: Vec<Entity> = (0..5).map(|i| world.spawn((A(i), ChildOf.pair(parent))).id()).collect();
    assert_eq!(world.children(parent).collect::<Vec<_>>(), kids);
}

#[test]
fn relationship_to_a_dead_target_is_not_added() {
    let mut world = World::new();
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let e = world.spawn_empty().id();
    // Bevy warns and drops the relationship; here add_pair panics (documented) and
    // try_add_pair is the non-panicking form.
    assert!(world.try_add_pair::<ChildOf>(e, dead).is_err());
    assert_eq!(world.target::<ChildOf>(e), None);
    assert!(!world.has_pair::<Likes>(e, dead));
    assert!(world.is_alive(e));
}

#[test]
fn self_parenting_does_not_hang() {
    // Bevy refuses `ChildOf(self)`. Whatever is chosen, walking must terminate.
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let _ = world.try_add_pair::<ChildOf>(e, e);
    assert!(world.ancestors(e).take(10).count() < 10);
    assert!(world.descendants(e).take(10).count() < 10);
    world.despawn(e);
    assert!(!world.is_alive(e));
}

#[test]
fn pairs_to_a_despawned_target_are_removed() {
    let mut world = World::new();
    let alice = world.spawn_empty().id();
    let bob = world.spawn_empty().id();
    let apples = world.spawn_empty().id();
    world.entity_mut(alice).add_pair::<Likes>(bob).insert_pair(Eats { amount: 2 }, apples);
    assert!(world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.get_pair::<Eats>(alice, apples).map(|e| e.amount), Some(2));
    world.despawn(bob);
    assert!(world.is_alive(alice));
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert_eq!(world.get_pair::<Eats>(alice, apples).map(|e| e.amount), Some(2));
    world.despawn(apples);
    assert!(world.get_pair::<Eats>(alice, apples).is_none());
    assert_eq!(world.query::<(Entity, Pair<Likes>)>().iter(&world).count(), 0);
}

#[test]
fn delete_policy_and_exclusive_relationship() {
    let mut world = World::new();
    let station = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    let ship = world.spawn(DockedTo.pair(station)).id();
    world.entity_mut(ship).add_pair::<DockedTo>(other);
    assert_eq!(world.targets::<DockedTo>(ship).collect::<Vec<_>>(), vec![other]);
    world.despawn(station);
    assert!(world.is_alive(ship));
    world.despawn(other);
    assert!(!world.is_alive(ship));
}

#[test]
fn remove_pair_wildcard_and_multiple_targets() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    world.entity_mut(a).add_pair::<Likes>(b).add_pair::<Likes>(c);
    assert_eq!(sorted(world.targets::<Likes>(a)), sorted([b, c]));
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(q.iter(&world).count(), 2, "one row per pair");
    world.entity_mut(a).remove_pair::<Likes>(Entity::WILDCARD);
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    let mut q = world.query_filtered::<Entity, WithPair<Likes>>();
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn pair_mut_query_writes() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let food = world.spawn_empty().id();
    world.entity_mut(a).insert_pair(Eats { amount: 1 }, food);
    let mut q = world.query::<Pair<&mut Eats>>();
    for (target, mut eats) in q.iter_mut(&mut world) {
        assert_eq!(target, food);
        eats.amount += 4;
    }
    assert_eq!(world.get_pair::<Eats>(a, food).map(|e| e.amount), Some(5));
}

#[test]
fn despawning_a_relationship_removes_it_from_holders() {
    let mut world = World::new();
    let a = world.spawn(A(0)).id();
    let b = world.spawn_empty().id();
    world.entity_mut(a).add_pair::<Likes>(b);
    let likes = world.component_id::<Likes>().unwrap();
    world.despawn(likes);
    assert!(world.is_alive(a));
    assert!(world.is_alive(b));
    assert_eq!(world.get::<A>(a), Some(&A(0)));
}

// ===== component hooks ==============================================================

#[derive(Component)]
#[component(on_add = hooked_added, on_remove = hooked_removed)]
struct Hooked(usize);

fn hooked_added(mut world: DeferredWorld, ctx: HookContext) {
    let v = world.get::<Hooked>(ctx.entity).unwrap().0;
    world.get_resource_mut::<Order>().unwrap().observed(if v == 1 { "hook_add_1" } else { "hook_add" });
}

fn hooked_removed(mut world: DeferredWorld, ctx: HookContext) {
    assert!(world.get::<Hooked>(ctx.entity).is_some(), "value readable in on_remove");
    world.get_resource_mut::<Order>().unwrap().observed("hook_remove");
}

#[test]
fn component_hooks_run_on_add_and_remove_not_on_overwrite() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let e = world.spawn(Hooked(1)).id();
    world.insert(e, Hooked(2));
    world.entity_mut(e).insert(A(0));
    world.remove::<Hooked>(e);
    world.insert(e, Hooked(3));
    world.despawn(e);
    assert_eq!(world.resource::<Order>().0, vec!["hook_add_1", "hook_remove", "hook_add", "hook_remove"]);
}

#[test]
fn hook_commands_are_applied() {
    #[derive(Component)]
    #[component(on_add = spawn_marker)]
    struct Spawner;
    fn spawn_marker(mut world: DeferredWorld, ctx: HookContext) {
        world.commands().entity(ctx.entity).insert(B(7));
    }
    let mut world = World::new();
    let e = world.spawn(Spawner).id();
    assert_eq!(world.get::<B>(e), Some(&B(7)));
}

// ===== event propagation (bevy observer_propagating) ================================

#[derive(Event)]
#[event(propagate = ChildOf)]
struct Bubble;

#[test]
fn observer_propagating_along_child_of() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let parent = world.spawn_empty().id();
    world.entity_mut(parent).observe(|_: Trigger<Bubble>, mut res: ResMut<Order>| res.observed("parent"));
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.entity_mut(child).observe(|_: Trigger<Bubble>, mut res: ResMut<Order>| res.observed("child"));
    world.trigger_targets(Bubble, child);
    assert_eq!(world.resource::<Order>().0, vec!["child", "parent"]);
}

#[test]
fn observer_propagating_halt() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let parent = world.spawn_empty().id();
    world.entity_mut(parent).observe(|_: Trigger<Bubble>, mut res: ResMut<Order>| res.observed("parent"));
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.entity_mut(child).observe(|mut t: Trigger<Bubble>, mut res: ResMut<Order>| {
        res.observed("child");
        t.propagate(false);
    });
    world.trigger_targets(Bubble, child);
    assert_eq!(world.resource::<Order>().0, vec!["child"]);
}

#[test]
fn observer_propagating_reaches_global_observer_per_hop() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.add_observer(|t: Trigger<Bubble>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    world.trigger_targets(Bubble, child);
    assert_eq!(world.resource::<Seen>().0, vec![child, parent]);
}

// ===== more change detection / schedule semantics ===================================

#[test]
fn changed_in_system_is_relative_to_that_systems_last_run() {
    #[derive(Resource, Default)]
    struct Counts(Vec<usize>);
    fn bump(mut q: Query<&mut A>, mut frame: Local<usize>) {
        *frame += 1;
        if frame.is_multiple_of(2) {
            for mut a in &mut q {
                a.0 += 1;
            }
        }
    }
    fn watch(q: Query<(), Changed<A>>, mut c: ResMut<Counts>) {
        c.0.push(q.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    world.spawn(A(0));
    world.spawn(A(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((bump, watch).chain());
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counts>().0, vec![2, 2, 0, 2]);
}

#[test]
fn added_sees_entities_spawned_by_commands_of_an_earlier_system() {
    #[derive(Resource, Default)]
    struct Counts(Vec<usize>);
    fn spawn_one(mut c: Commands) {
        c.spawn(A(0));
    }
    fn watch(q: Query<(), Added<A>>, mut c: ResMut<Counts>) {
        c.0.push(q.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Counts>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_one, watch).chain());
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counts>().0, vec![1, 1, 1]);
}

#[test]
fn removed_components_in_schedule_across_frames() {
    #[derive(Resource, Default)]
    struct Got(Vec<usize>);
    fn remover(mut c: Commands, q: Query<Entity, With<A>>) {
        if let Some(e) = q.iter().next() {
            c.entity(e).remove::<A>();
        }
    }
    fn watcher(mut r: RemovedComponents<A>, mut g: ResMut<Got>) {
        g.0.push(r.read().count());
    }
    let mut world = World::new();
    world.init_resource::<Got>();
    world.spawn(A(0));
    world.spawn(A(1));
    let mut schedule = Schedule::new();
    schedule.add_systems((remover, watcher).chain());
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Got>().0, vec![1, 1, 0]);
}

#[test]
fn exclusive_world_system_sees_commands_of_earlier_chained_system() {
    fn spawn_one(mut c: Commands) {
        c.spawn(A(0));
    }
    fn exclusive(world: &mut World) {
        let n = world.query::<&A>().iter(world).count();
        world.insert_resource(Counter(n));
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_one, exclusive).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn resource_added_condition() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    #[derive(Resource)]
    struct Flag;
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(resource_added::<Flag>));
    schedule.run(&mut world);
    world.insert_resource(Flag);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn run_if_conditions_all_evaluated_and_short_circuit() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    static EVALS: AtomicUsize = AtomicUsize::new(0);
    fn counting() -> bool {
        EVALS.fetch_add(1, SeqCst);
        true
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if(|| false).run_if(counting));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
    assert_eq!(EVALS.load(SeqCst), 1, "every .run_if condition evaluated each run (Bevy)");
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if((|| false).and(counting)));
    schedule.run(&mut world);
    assert_eq!(EVALS.load(SeqCst), 1, ".and short-circuits");
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut c: ResMut<Counter>| c.0 += 1).run_if((|| true).or(counting)));
    schedule.run(&mut world);
    assert_eq!(EVALS.load(SeqCst), 1, ".or short-circuits");
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn par_iter_mut_in_system() {
    let mut world = World::new();
    for i in 0..1000 {
        world.spawn((A(i), B(0)));
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut q: Query<(&A, &mut B)>| {
        q.par_iter_mut().for_each(|(a, mut b)| b.0 = a.0 + 1);
    });
    schedule.run(&mut world);
    assert!(world.query::<(&A, &B)>().iter(&world).all(|(a, b)| b.0 == a.0 + 1));
}

#[test]
fn spawn_batch_fires_observers_and_hooks() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<OnAdd, A>, mut c: ResMut<Counter>| c.0 += 1);
    let ids: Vec<Entity> = world.spawn_batch((0..5).map(|i| (A(i), Hooked(0)))).collect();
    assert_eq!(ids.len(), 5);
    assert_eq!(world.resource::<Counter>().0, 5);
    assert_eq!(world.resource::<Order>().0.len(), 5);
}

#[test]
fn commands_spawn_batch_and_despawn_of_dead_entity_is_harmless() {
    let mut world = World::new();
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    world.run_system_once(move |mut c: Commands| {
        c.spawn_batch((0..3).map(A));
        c.entity(dead).despawn();
    });
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
}

#[test]
fn message_missed_by_reader_that_skips_two_updates() {
    let mut world = World::new();
    world.add_message::<TestMsg>();
    let id = world.register_system(|mut r: MessageReader<TestMsg>| r.read().map(|m| m.i).collect::<Vec<_>>());
    assert_eq!(world.run_system(id), Ok(vec![]));
    world.write_message(TestMsg { i: 1 });
    world.update_messages();
    world.write_message(TestMsg { i: 2 });
    world.update_messages();
    world.write_message(TestMsg { i: 3 });
    assert_eq!(world.run_system(id), Ok(vec![2, 3]), "message 1 is gone after two updates");
}

#[test]
fn res_is_added_and_is_changed() {
    #[derive(Resource, Default)]
    struct Flags(Vec<(bool, bool)>);
    let mut world = World::new();
    world.init_resource::<Flags>();
    world.insert_resource(Counter(0));
    let id = world.register_system(|c: Res<Counter>, mut f: ResMut<Flags>| f.0.push((c.is_added(), c.is_changed())));
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    world.resource_mut::<Counter>().0 = 1;
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Flags>().0, vec![(true, true), (false, false), (false, true)]);
}

#[test]
fn entity_commands_apply_in_order() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.run_system_once(move |mut c: Commands| {
        c.entity(e).insert(A(1)).remove::<A>().insert(B(2));
    });
    assert!(!world.has::<A>(e));
    assert_eq!(world.get::<B>(e), Some(&B(2)));
}

#[test]
fn commands_despawn_is_recursive() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.run_system_once(move |mut c: Commands| c.entity(parent).despawn());
    assert!(!world.is_alive(child));
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn registered_system_with_unmatched_single_is_skipped() {
    let mut world = World::new();
    let id = world.register_system(|s: Single<&A>| s.0);
    assert!(matches!(world.run_system(id), Err(RunSystemError::Skipped { .. })));
    world.spawn(A(4));
    assert_eq!(world.run_system(id), Ok(4));
}

#[test]
fn single_mut_writes() {
    let mut world = World::new();
    let e = world.spawn((A(1), C)).id();
    world.spawn(A(5));
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut s: Single<&mut A, With<C>>| s.0 += 1);
    schedule.run(&mut world);
    assert_eq!(world.get::<A>(e), Some(&A(2)));
}

#[test]
fn observer_despawning_the_new_entity_during_spawn() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, A>, mut c: Commands| c.entity(t.entity()).despawn());
    let e = world.spawn((A(0), B(0))).id();
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<&B>().iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn observer_cascade_inserts_on_other_entities() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let other = world.spawn_empty().id();
    world.add_observer(move |t: Trigger<OnAdd, A>, mut c: Commands, mut n: ResMut<Counter>| {
        n.0 += 1;
        if t.entity() != other {
            c.entity(other).insert(A(99));
        }
    });
    world.spawn(A(0));
    assert_eq!(world.get::<A>(other), Some(&A(99)));
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn observer_triggering_an_event_from_an_event() {
    #[derive(Event)]
    struct Second;
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<EventA>, mut c: Commands, mut o: ResMut<Order>| {
        o.observed("first");
        c.trigger(Second);
    });
    world.add_observer(|_: Trigger<Second>, mut o: ResMut<Order>| o.observed("second"));
    world.trigger(EventA);
    assert_eq!(world.resource::<Order>().0, vec!["first", "second"]);
}

#[test]
fn hook_and_observer_see_consistent_state_on_despawn_of_parent() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|t: Trigger<OnRemove, A>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let parent = world.spawn(A(0)).id();
    let child = world.spawn((A(1), ChildOf.pair(parent))).id();
    world.despawn(parent);
    assert_eq!(sorted(world.resource::<Seen>().0.clone()), sorted([parent, child]));
    world.check_invariants();
}
