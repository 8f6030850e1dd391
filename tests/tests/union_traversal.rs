//! Traversable union relationships: a non-fragmenting hierarchy
//! (`#[relationship(union, traversable)]`). Children of different parents
//! share one table, each row keeps its own parent, and every traversal reads
//! the row's own target: typed `Up`, runtime `up` terms (cached and uncached),
//! `propagate`, propagating events, cleanup and cycle checks. A fragmenting
//! twin relationship built the same way is the reference.

use ecs::component::RelationshipTraits;
use ecs::prelude::*;
use ecs::world::PairError;

/// The non-fragmenting hierarchy under test.
#[derive(Relationship)]
#[relationship(union, traversable, acyclic, on_delete_target = "delete")]
struct Parent;

/// The same hierarchy, fragmenting: the reference.
#[derive(Relationship)]
#[relationship(exclusive, traversable, acyclic, on_delete_target = "delete")]
struct FragParent;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Global(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct FragGlobal(f32);

#[derive(Component)]
struct Marker;

/// The entities a `Climb` went through, in order.
#[derive(Resource, Default)]
struct Climbed(Vec<Entity>);

/// A propagating event that climbs `Parent`.
#[derive(Event, Debug)]
#[event(propagate = Parent)]
struct Climb;

/// The `Up<Parent, &Position>` rows of `world`, sorted.
fn up_rows(world: &mut World) -> Vec<(Entity, f32)> {
    let mut q = world.query::<(Entity, Up<Parent, &Position>)>();
    let mut rows: Vec<(Entity, f32)> = q.iter(world).map(|(e, p)| (e, p.0)).collect();
    rows.sort_by_key(|row| row.0);
    rows
}

#[test]
fn children_of_different_parents_share_one_table_and_up_reads_each_rows_parent() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let a1 = world.spawn(Marker).add_pair::<Parent>(a).id();
    let b1 = world.spawn(Marker).add_pair::<Parent>(b).id();
    let a2 = world.spawn(Marker).add_pair::<Parent>(a).id();
    let location = |world: &World, e: Entity| world.entities().location(e).unwrap().archetype;
    assert_eq!(location(&world, a1), location(&world, b1), "one table whatever the parent");
    assert_eq!(up_rows(&mut world), vec![(a1, 1.0), (b1, 2.0), (a2, 1.0)]);

    // Retargeting rewrites the row (no move) and `Up` follows it.
    let before = world.entities().location(a1);
    world.add_pair::<Parent>(a1, b);
    assert_eq!(world.entities().location(a1), before, "a retarget never moves");
    assert_eq!(up_rows(&mut world), vec![(a1, 2.0), (b1, 2.0), (a2, 1.0)]);
    world.check_invariants();
}

#[test]
fn up_climbs_past_ancestors_without_the_component_and_mixes_with_other_terms() {
    let mut world = World::new();
    let root = world.spawn(Position(10.0)).id();
    let middle = world.spawn(Marker).add_pair::<Parent>(root).id();
    let leaf = world.spawn(Marker).add_pair::<Parent>(middle).id();
    let other_root = world.spawn(Position(20.0)).id();
    let near = world.spawn(Marker).add_pair::<Parent>(other_root).id();
    // An orphan in the same table as the others would be: no pair, no row.
    world.spawn(Marker);
    // `middle`, `leaf`, `near` share a table; each row climbs its own chain.
    assert_eq!(up_rows(&mut world), vec![(middle, 10.0), (leaf, 10.0), (near, 20.0)]);

    // Optional: every `Marker` row, `None` where no ancestor has `Position`.
    let mut q = world.query_filtered::<(Entity, Option<Up<Parent, &Position>>), With<Marker>>();
    let mut rows: Vec<(Entity, Option<f32>)> = q.iter(&world).map(|(e, p)| (e, p.map(|p| p.0))).collect();
    rows.sort_by_key(|row| row.0);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows.iter().filter(|row| row.1.is_none()).count(), 1);
    assert!(rows.contains(&(leaf, Some(10.0))) && rows.contains(&(near, Some(20.0))));

    // The nearer ancestor wins once it has the component.
    world.entity_mut(middle).insert(Position(5.0));
    assert_eq!(up_rows(&mut world), vec![(middle, 10.0), (leaf, 5.0), (near, 20.0)]);
    // A filter on the row itself combines with the per-row climb.
    let mut q = world.query_filtered::<(Entity, Up<Parent, &Position>), Without<Position>>();
    let mut rows: Vec<Entity> = q.iter(&world).map(|(e, _)| e).collect();
    rows.sort();
    assert_eq!(rows, vec![leaf, near]);
    // `get` goes through the same per-row climb.
    let mut q = world.query::<Up<Parent, &Position>>();
    assert_eq!(q.get(&world, leaf).map(|p| p.0), Ok(5.0));
    assert!(q.get(&world, root).is_err(), "a root has no ancestor");
}

/// Builds the same random forest with `Parent` (union) and `FragParent`
/// (fragmenting), each node maybe holding a `Position`; returns the pairs of
/// nodes (union node, fragmenting node).
fn twin_forest(world: &mut World, nodes: usize, seed: u64) -> Vec<(Entity, Entity)> {
    let mut state = seed;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let mut twins: Vec<(Entity, Entity)> = Vec::new();
    for i in 0..nodes {
        let value = (next(5) != 0).then_some(Position(i as f32));
        let (u, f) = match value {
            Some(value) => (world.spawn(value).id(), world.spawn(value).id()),
            None => (world.spawn(Marker).id(), world.spawn(Marker).id()),
        };
        if !twins.is_empty() && next(4) != 0 {
            let (pu, pf) = twins[next(twins.len() as u64) as usize];
            world.add_pair::<Parent>(u, pu);
            world.add_pair::<FragParent>(f, pf);
        }
        twins.push((u, f));
    }
    twins
}

#[test]
fn up_through_a_union_agrees_with_the_fragmenting_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 0x9E37_79B9);
    let mut union_up = world.query::<Up<Parent, &Position>>();
    let mut frag_up = world.query::<Up<FragParent, &Position>>();
    for &(u, f) in &twins {
        let via_union = union_up.get(&world, u).ok().map(|p| p.0);
        let via_frag = frag_up.get(&world, f).ok().map(|p| p.0);
        assert_eq!(via_union, via_frag, "{u:?} / {f:?}");
    }
    // The iteration yields the same multiset of values.
    let mut a: Vec<f32> = union_up.iter(&world).map(|p| p.0).collect();
    let mut b: Vec<f32> = frag_up.iter(&world).map(|p| p.0).collect();
    a.sort_by(f32::total_cmp);
    b.sort_by(f32::total_cmp);
    assert_eq!(a, b);
    assert!(!a.is_empty());
    // Reparenting some nodes on both sides keeps them equal.
    for window in twins.windows(7).step_by(7) {
        let (child, parent) = (window[6], window[0]);
        world.add_pair::<Parent>(child.0, parent.0);
        world.add_pair::<FragParent>(child.1, parent.1);
    }
    for &(u, f) in &twins {
        let via_union = union_up.get(&world, u).ok().map(|p| p.0);
        let via_frag = frag_up.get(&world, f).ok().map(|p| p.0);
        assert_eq!(via_union, via_frag, "after reparenting: {u:?} / {f:?}");
    }
    world.check_invariants();
}

#[test]
fn par_iter_reads_each_rows_ancestor() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 500, 7);
    let mut union_up = world.query::<Up<Parent, &Position>>();
    let sequential: f64 = union_up.iter(&world).map(|p| f64::from(p.0)).sum();
    let total = std::sync::Mutex::new(0.0f64);
    union_up.par_iter(&world).for_each(|p| *total.lock().unwrap() += f64::from(p.0));
    assert_eq!(*total.lock().unwrap(), sequential);
    assert!(twins.len() == 500 && sequential > 0.0);
}

#[test]
fn propagate_orders_rows_by_their_own_depth() {
    let mut world = World::new();
    // Children are spawned before their parents get their pairs, so the
    // shared table's row order is not the depth order.
    let leaf = world.spawn((Position(100.0), Global(0.0))).id();
    let middle = world.spawn((Position(10.0), Global(0.0))).id();
    let root = world.spawn((Position(1.0), Global(0.0))).id();
    let other = world.spawn((Position(1000.0), Global(0.0))).id();
    world.add_pair::<Parent>(leaf, middle);
    world.add_pair::<Parent>(middle, root);
    world.add_pair::<Parent>(other, leaf);
    let mut transforms = world.query::<(&Position, &mut Global)>();
    transforms.propagate::<Parent, Global>(&mut world, |(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
    });
    assert_eq!(world.get::<Global>(root), Some(&Global(1.0)));
    assert_eq!(world.get::<Global>(middle), Some(&Global(11.0)));
    assert_eq!(world.get::<Global>(leaf), Some(&Global(111.0)));
    assert_eq!(world.get::<Global>(other), Some(&Global(1111.0)));
}

#[test]
fn propagate_through_a_union_agrees_with_the_fragmenting_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 200, 42);
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(0.0));
        world.entity_mut(f).insert(FragGlobal(0.0));
    }
    let mut union_side = world.query::<(Option<&Position>, &mut Global)>();
    union_side.propagate::<Parent, Global>(&mut world, |(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.map_or(1.0, |p| p.0);
    });
    let mut frag_side = world.query::<(Option<&Position>, &mut FragGlobal)>();
    frag_side.propagate::<FragParent, FragGlobal>(&mut world, |(local, mut global), parent| {
        global.0 = parent.map_or(0.0, |parent| parent.0) + local.map_or(1.0, |p| p.0);
    });
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u).unwrap().0, world.get::<FragGlobal>(f).unwrap().0, "{u:?} / {f:?}");
    }
}

#[test]
fn runtime_up_terms_climb_each_rows_target_cached_and_uncached() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let marker = world.register_component::<Marker>();
    let parent = world.register_component::<Parent>();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let a1 = world.spawn(Marker).add_pair::<Parent>(a).id();
    let b1 = world.spawn(Marker).add_pair::<Parent>(b).id();
    let b11 = world.spawn(Marker).add_pair::<Parent>(b1).id();
    world.spawn(Marker);
    let expected = vec![(a1, a, 1.0), (b1, b, 2.0), (b11, b, 2.0)];

    let rows = |q: &mut ecs::query::DynQuery, world: &World| {
        let mut rows: Vec<(Entity, Entity, f32)> =
            q.iter(world).map(|row| (row.entity(), row.source(1), row.get::<Position>(1).unwrap().0)).collect();
        rows.sort_by_key(|row| row.0);
        rows
    };
    let mut dsl = world.query_dsl("Marker, Position(up Parent)").unwrap();
    assert_eq!(rows(&mut dsl, &world), expected);
    assert!(dsl.variables().is_empty(), "the row variable is not the user's: {:?}", dsl.variables());
    let mut cached = world.query_builder().with(marker).read(position).up(parent).build().unwrap();
    assert_eq!(rows(&mut cached, &world), expected);
    let mut uncached = world.query_builder().with(marker).read(position).up(parent).build_uncached().unwrap();
    assert_eq!(rows(&mut uncached, &world), expected);
    assert_eq!(uncached.count(&world), 3);

    // A retarget (no move) is seen by every form.
    world.add_pair::<Parent>(b11, a1);
    let expected = vec![(a1, a, 1.0), (b1, b, 2.0), (b11, a, 1.0)];
    assert_eq!(rows(&mut dsl, &world), expected);
    assert_eq!(rows(&mut cached, &world), expected);
    assert_eq!(rows(&mut uncached, &world), expected);

    // `self|up`: a row's own value first.
    world.entity_mut(a1).insert(Position(7.0));
    let mut self_up = world.query_dsl("Marker, Position(self|up Parent)").unwrap();
    let mut got: Vec<(Entity, f32)> =
        self_up.iter(&world).map(|row| (row.entity(), row.get::<Position>(1).unwrap().0)).collect();
    got.sort_by_key(|row| row.0);
    assert_eq!(got, vec![(a1, 7.0), (b1, 2.0), (b11, 7.0)]);
    // `!Position(up Parent)`: rows with no such ancestor.
    let mut none = world.query_dsl("Marker, !Position(up Parent)").unwrap();
    assert_eq!(none.count(&world), 1);
}

#[test]
fn runtime_up_through_a_union_agrees_with_the_fragmenting_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 99);
    let mut union_q = world.query_dsl("Position(up Parent)").unwrap();
    let mut frag_q = world.query_dsl("Position(up FragParent)").unwrap();
    let collect = |q: &mut ecs::query::DynQuery, world: &World| {
        let mut values: Vec<f32> = q.iter(world).map(|row| row.get::<Position>(0).unwrap().0).collect();
        values.sort_by(f32::total_cmp);
        values
    };
    let union_values = collect(&mut union_q, &world);
    assert_eq!(union_values, collect(&mut frag_q, &world));
    assert!(!union_values.is_empty() && twins.len() == 300);
}

#[test]
fn propagating_events_climb_each_entitys_own_parent() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let middle = world.spawn_empty().add_pair::<Parent>(root).id();
    let leaf = world.spawn_empty().add_pair::<Parent>(middle).id();
    let other = world.spawn_empty().add_pair::<Parent>(root).id();
    world.init_resource::<Climbed>();
    world.add_observer(|trigger: Trigger<Climb>, mut climbed: ResMut<Climbed>| climbed.0.push(trigger.entity()));
    world.trigger_targets(Climb, leaf);
    assert_eq!(std::mem::take(&mut world.resource_mut::<Climbed>().0), vec![leaf, middle, root]);
    world.trigger_targets(Climb, other);
    assert_eq!(world.resource::<Climbed>().0, vec![other, root]);
}

#[test]
fn hierarchy_walks_cleanup_and_cycles_follow_the_rows() {
    let mut world = World::new();
    let root = world.spawn(Position(0.0)).id();
    let a = world.spawn(Position(1.0)).add_pair::<Parent>(root).id();
    let b = world.spawn(Position(2.0)).add_pair::<Parent>(root).id();
    let a1 = world.spawn(Position(3.0)).add_pair::<Parent>(a).id();
    assert_eq!(world.ancestors_of::<Parent>(a1).collect::<Vec<_>>(), vec![a, root]);
    let mut below: Vec<Entity> = world.descendants_of::<Parent>(root).collect();
    below.sort();
    assert_eq!(below, vec![a, b, a1]);
    // Acyclic: closing a loop through the rows is refused.
    assert!(matches!(world.try_add_pair::<Parent>(root, a1), Err(PairError::Cycle { .. })));
    // `on_delete_target = "delete"` takes the whole subtree.
    world.despawn(a);
    assert!(!world.is_alive(a1) && world.is_alive(b) && world.is_alive(root));
    world.despawn(root);
    assert!(!world.is_alive(b));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn traits_allow_traversable_unions_but_not_transitive_ones() {
    const { assert!(<Parent as Relationship>::TRAITS.union && <Parent as Relationship>::TRAITS.traversable) };
    assert!(RelationshipTraits::DEFAULT.union().traversable().is_valid_union());
    assert!(!RelationshipTraits::DEFAULT.union().transitive().is_valid_union());
    // A runtime relationship made a traversable union is climbed the same way.
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.union().traversable());
    let position = world.register_component::<Position>();
    let top = world.spawn(Position(4.0)).id();
    let child = world.spawn(Marker).id();
    world.add_id(child, ecs::entity::Id::pair(rel, top));
    let mut q = world.query_builder().read(position).up(rel).build().unwrap();
    let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.entity(), row.source(0))).collect();
    assert_eq!(rows, vec![(child, top)]);
}
