//! Review: adversarial tests for traversable union relationships
//! (`#[relationship(union, traversable)]`). Most tests build the same world
//! twice, once with the union hierarchy `Parent` and once with the fragmenting
//! twin `FragParent`, and compare what typed `Up`, runtime `up` terms,
//! `propagate`, events and cleanup see. Written by a review of the commit
//! that made unions traversable; its findings (a quadratic row-by-row
//! evaluation, cached frames of union targets going stale, the hidden row
//! variable visible to `var`, `Sparse(self|up R)` not climbing for rows
//! without their own value) are fixed and kept here as tests.

use std::collections::BTreeMap;

use ecs::component::RelationshipTraits;
use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::DynQuery;
use ecs::system::{RuntimeQuery, RuntimeQuerySpec};
use ecs::world::PairError;

#[derive(Relationship)]
#[relationship(union, traversable, acyclic, on_delete_target = "delete")]
struct Parent;

#[derive(Relationship)]
#[relationship(exclusive, traversable, acyclic, on_delete_target = "delete")]
struct FragParent;

/// A union hierarchy that allows cycles.
#[derive(Relationship)]
#[relationship(union, traversable)]
struct Loose;

/// Its fragmenting twin.
#[derive(Relationship)]
#[relationship(exclusive, traversable)]
struct FragLoose;

#[derive(Relationship)]
struct Likes;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Sparse(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(toggle)]
struct Toggled(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Global(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Marker;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Other;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Skip;

/// The union side of a twin world.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct U;

/// The fragmenting side of a twin world.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct F;

// ----- helpers --------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

/// What a twin node gets, chosen once for both twins.
#[derive(Clone, Copy, Debug)]
struct Decor {
    position: Option<f32>,
    velocity: Option<f32>,
    sparse: Option<f32>,
    toggled: Option<(f32, bool)>,
    marker: bool,
    other: bool,
    skip: bool,
}

fn random_decor(rng: &mut Rng, i: usize) -> Decor {
    let v = i as f32;
    Decor {
        position: (rng.next(3) == 0).then_some(v),
        velocity: (rng.next(4) == 0).then_some(v + 0.5),
        sparse: (rng.next(3) == 0).then_some(v + 0.25),
        toggled: (rng.next(3) == 0).then_some((v + 0.75, rng.next(2) == 0)),
        marker: rng.next(2) == 0,
        other: rng.next(3) == 0,
        skip: rng.next(5) == 0,
    }
}

fn decorate(world: &mut World, e: Entity, d: Decor) {
    let mut em = world.entity_mut(e);
    if let Some(v) = d.position {
        em.insert(Position(v));
    }
    if let Some(v) = d.velocity {
        em.insert(Velocity(v));
    }
    if let Some(v) = d.sparse {
        em.insert(Sparse(v));
    }
    if let Some((v, enabled)) = d.toggled {
        em.insert(Toggled(v));
        if !enabled {
            em.disable::<Toggled>();
        }
    }
    if d.marker {
        em.insert(Marker);
    }
    if d.other {
        em.insert(Other);
    }
    if d.skip {
        em.insert(Skip);
    }
}

/// Twin nodes: (union side, fragmenting side).
type Twins = Vec<(Entity, Entity)>;

/// Builds the same random forest on both sides. Parents may be chosen among
/// nodes created later (the union side's rows are then in no depth order).
fn twin_forest(world: &mut World, nodes: usize, seed: u64) -> Twins {
    let mut rng = Rng(seed);
    let mut twins: Twins = Vec::new();
    for i in 0..nodes {
        let d = random_decor(&mut rng, i);
        let u = world.spawn(U).id();
        let f = world.spawn(F).id();
        decorate(world, u, d);
        decorate(world, f, d);
        twins.push((u, f));
    }
    // Parent links: node i gets a parent among nodes with a smaller "rank"
    // (a random permutation), so the forest is acyclic but rows are shuffled.
    let mut rank: Vec<usize> = (0..nodes).collect();
    for i in (1..nodes).rev() {
        let j = rng.next(i as u64 + 1) as usize;
        rank.swap(i, j);
    }
    let mut by_rank = vec![0; nodes];
    for (node, &r) in rank.iter().enumerate() {
        by_rank[r] = node;
    }
    for r in 1..nodes {
        if rng.next(5) == 0 {
            continue;
        }
        let child = by_rank[r];
        let parent = by_rank[rng.next(r as u64) as usize];
        world.add_pair::<Parent>(twins[child].0, twins[parent].0);
        world.add_pair::<FragParent>(twins[child].1, twins[parent].1);
    }
    twins
}

/// Maps fragmenting-side entities to union-side ones.
fn frag_to_union(twins: &Twins) -> BTreeMap<Entity, Entity> {
    twins.iter().map(|&(u, f)| (f, u)).collect()
}

fn union_of(twins: &Twins, f: Entity) -> Entity {
    twins.iter().find(|t| t.1 == f).map(|t| t.0).unwrap_or(f)
}

/// Reparents some nodes on both sides (keeps acyclic: only to a node that is
/// not a descendant), and removes some pairs.
fn shuffle_parents(world: &mut World, twins: &Twins, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..twins.len() / 3 {
        let child = rng.next(twins.len() as u64) as usize;
        let parent = rng.next(twins.len() as u64) as usize;
        if rng.next(6) == 0 {
            let (u, f) = twins[child];
            if let Some(t) = world.target::<Parent>(u) {
                world.remove_pair::<Parent>(u, t);
            }
            if let Some(t) = world.target::<FragParent>(f) {
                world.remove_pair::<FragParent>(f, t);
            }
            continue;
        }
        let u = world.try_add_pair::<Parent>(twins[child].0, twins[parent].0);
        let f = world.try_add_pair::<FragParent>(twins[child].1, twins[parent].1);
        assert_eq!(u.is_ok(), f.is_ok(), "the cycle check agrees for node {child} -> {parent}: {u:?} / {f:?}");
    }
}

// ----- typed Up --------------------------------------------------------------------------

/// Compares `Up<Parent, &C>` with `Up<FragParent, &C>` through `get` and `iter`.
macro_rules! compare_up {
    ($world:expr, $twins:expr, $c:ty, $map:expr) => {{
        let world: &mut World = $world;
        let twins: &Twins = $twins;
        let map = $map;
        let mut uq = world.query::<(Entity, Up<Parent, &$c>)>();
        let mut fq = world.query::<(Entity, Up<FragParent, &$c>)>();
        let mut by_get_u = BTreeMap::new();
        let mut by_get_f = BTreeMap::new();
        for &(u, f) in twins {
            if let Ok((_, v)) = uq.get(world, u) {
                by_get_u.insert(u, map(v));
            }
            if let Ok((_, v)) = fq.get(world, f) {
                by_get_f.insert(union_of(twins, f), map(v));
            }
        }
        let by_iter_u: BTreeMap<Entity, f32> = uq.iter(world).map(|(e, v)| (e, map(v))).collect();
        let by_iter_f: BTreeMap<Entity, f32> = fq.iter(world).map(|(e, v)| (union_of(twins, e), map(v))).collect();
        assert_eq!(by_get_u, by_get_f, "get: union vs fragmenting");
        assert_eq!(by_iter_u, by_iter_f, "iter: union vs fragmenting");
        assert_eq!(by_iter_u, by_get_u, "union: iter vs get");
        let rows: usize = by_iter_u.len();
        rows
    }};
}

#[test]
fn typed_up_of_position_matches_twin_with_shuffled_rows() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 400, 0xDEAD_BEEF);
    let n = compare_up!(&mut world, &twins, Position, |p: &Position| p.0);
    assert!(n > 50, "{n}");
    shuffle_parents(&mut world, &twins, 17);
    compare_up!(&mut world, &twins, Position, |p: &Position| p.0);
    world.check_invariants();
}

#[test]
fn typed_up_of_a_sparse_component_matches_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 400, 0x1234_5678);
    let n = compare_up!(&mut world, &twins, Sparse, |p: &Sparse| p.0);
    assert!(n > 50, "{n}");
    shuffle_parents(&mut world, &twins, 3);
    compare_up!(&mut world, &twins, Sparse, |p: &Sparse| p.0);
}

#[test]
fn typed_up_of_a_toggleable_component_disabled_on_ancestors_matches_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 400, 0xABCD_EF01);
    let n = compare_up!(&mut world, &twins, Toggled, |p: &Toggled| p.0);
    assert!(n > 20, "{n}");
    // Disabling / enabling between runs (no move).
    for (i, &(u, f)) in twins.iter().enumerate() {
        if i % 3 == 0 && world.get::<Toggled>(u).is_some() {
            if world.is_enabled::<Toggled>(u) {
                world.entity_mut(u).disable::<Toggled>();
                world.entity_mut(f).disable::<Toggled>();
            } else {
                world.entity_mut(u).enable::<Toggled>();
                world.entity_mut(f).enable::<Toggled>();
            }
        }
    }
    compare_up!(&mut world, &twins, Toggled, |p: &Toggled| p.0);
}

#[test]
fn typed_up_skips_a_disabled_parent_value_and_reads_the_grandparent() {
    let mut world = World::new();
    let grand = world.spawn(Toggled(1.0)).id();
    let parent = world.spawn(Toggled(2.0)).add_pair::<Parent>(grand).id();
    let child = world.spawn(Marker).add_pair::<Parent>(parent).id();
    let sibling_parent = world.spawn(Toggled(3.0)).id();
    let sibling = world.spawn(Marker).add_pair::<Parent>(sibling_parent).id();
    let mut q = world.query::<(Entity, Up<Parent, &Toggled>)>();
    let rows: BTreeMap<Entity, f32> = q.iter(&world).map(|(e, v)| (e, v.0)).collect();
    assert_eq!(rows.get(&child), Some(&2.0));
    assert_eq!(rows.get(&sibling), Some(&3.0));
    world.entity_mut(parent).disable::<Toggled>();
    let rows: BTreeMap<Entity, f32> = q.iter(&world).map(|(e, v)| (e, v.0)).collect();
    assert_eq!(rows.get(&child), Some(&1.0), "the disabled parent value counts as absent");
    assert_eq!(rows.get(&sibling), Some(&3.0));
    world.entity_mut(sibling_parent).disable::<Toggled>();
    let rows: BTreeMap<Entity, f32> = q.iter(&world).map(|(e, v)| (e, v.0)).collect();
    assert_eq!(rows.get(&sibling), None);
    assert_eq!(rows.get(&child), Some(&1.0));
}

#[test]
fn typed_up_reads_a_value_the_ancestor_inherits_from_a_prefab() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(42.0))).id();
    let inst_u = world.instantiate(prefab);
    let inst_f = world.instantiate(prefab);
    let plain_u = world.spawn(Position(1.0)).id();
    let plain_f = world.spawn(Position(1.0)).id();
    let mut twins: Twins = Vec::new();
    for i in 0..20 {
        let u = world.spawn(Marker).id();
        let f = world.spawn(Marker).id();
        let (pu, pf) = if i % 2 == 0 { (inst_u, inst_f) } else { (plain_u, plain_f) };
        world.add_pair::<Parent>(u, pu);
        world.add_pair::<FragParent>(f, pf);
        twins.push((u, f));
    }
    twins.push((inst_u, inst_f));
    twins.push((plain_u, plain_f));
    let n = compare_up!(&mut world, &twins, Position, |p: &Position| p.0);
    assert_eq!(n, 20);
    // The prefab's value changes: the children of the instance see it.
    world.get_mut::<Position>(prefab).unwrap().0 = 7.0;
    let mut q = world.query::<Up<Parent, &Position>>();
    assert_eq!(q.get(&world, twins[0].0).map(|p| p.0), Ok(7.0));
    compare_up!(&mut world, &twins, Position, |p: &Position| p.0);
}

#[test]
fn typed_up_with_a_prefab_holding_a_union_pair_matches_twin() {
    let mut world = World::new();
    let top_u = world.spawn(Position(5.0)).id();
    let top_f = world.spawn(Position(5.0)).id();
    let prefab_u = world.spawn((Prefab, Marker)).add_pair::<Parent>(top_u).id();
    let prefab_f = world.spawn((Prefab, Marker)).add_pair::<FragParent>(top_f).id();
    let inst_u = world.instantiate(prefab_u);
    let inst_f = world.instantiate(prefab_f);
    // A prefab's pairs are copied into instances (Flecs 4 copies pairs by
    // default), union and fragmenting alike.
    assert!(world.has_pair::<Parent>(inst_u, top_u), "the union pair is copied");
    assert!(world.has_pair::<FragParent>(inst_f, top_f), "the fragmenting pair is copied");
    let twins: Twins = vec![(inst_u, inst_f), (top_u, top_f)];
    compare_up!(&mut world, &twins, Position, |p: &Position| p.0);
    // Runtime forms.
    let mut uq = world.query_dsl("Marker, Position(up Parent)").unwrap();
    let mut fq = world.query_dsl("Marker, Position(up FragParent)").unwrap();
    assert_eq!(uq.count(&world), fq.count(&world));
}

#[test]
fn typed_up_where_parents_share_the_childs_table_in_any_row_order() {
    let mut world = World::new();
    // A chain whose nodes all end up in one table (Marker + the union pair),
    // the deepest first in row order.
    let root = world.spawn(Position(100.0)).id();
    let nodes: Vec<Entity> = (0..30).map(|_| world.spawn(Marker).id()).collect();
    for i in (0..30).rev() {
        let parent = if i == 0 { root } else { nodes[i - 1] };
        world.add_pair::<Parent>(nodes[i], parent);
    }
    // Every third node gets a Position of its own through a filter-less
    // insert that keeps it in another table.
    for i in (2..30).step_by(3) {
        world.entity_mut(nodes[i]).insert(Position(i as f32));
    }
    let location = |e: Entity| world.entities().location(e).unwrap().archetype;
    assert_eq!(location(nodes[0]), location(nodes[1]));
    let mut q = world.query::<(Entity, Up<Parent, &Position>)>();
    let rows: BTreeMap<Entity, f32> = q.iter(&world).map(|(e, v)| (e, v.0)).collect();
    for (i, node) in nodes.iter().enumerate().take(30) {
        // Nearest strict ancestor with a Position.
        let mut expected = 100.0;
        for j in (0..i).rev() {
            if j >= 2 && (j - 2) % 3 == 0 {
                expected = j as f32;
                break;
            }
        }
        assert_eq!(rows.get(node), Some(&expected), "node {i}");
    }
}

#[test]
fn a_cached_state_follows_retargets_removals_and_new_tables() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let c = world.spawn(Marker).id();
    let x = world.spawn(Marker).add_pair::<Parent>(a).id();
    let y = world.spawn(Marker).add_pair::<Parent>(b).id();
    let mut q = world.query::<(Entity, Up<Parent, &Position>)>();
    let rows = |q: &mut QueryState<(Entity, Up<Parent, &Position>)>, world: &World| {
        q.iter(world).map(|(e, v)| (e, v.0)).collect::<BTreeMap<Entity, f32>>()
    };
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 1.0), (y, 2.0)]));
    // Retarget x to c (no Position): no row; then c gains a parent.
    world.add_pair::<Parent>(x, c);
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(y, 2.0)]));
    world.add_pair::<Parent>(c, b);
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 2.0), (y, 2.0), (c, 2.0)]));
    // A new table (Velocity) holding the union pair.
    let z = world.spawn((Marker, Velocity(0.0))).add_pair::<Parent>(a).id();
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 2.0), (y, 2.0), (c, 2.0), (z, 1.0)]));
    // Removing y's pair moves it out of the union table.
    world.remove_pair::<Parent>(y, b);
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 2.0), (c, 2.0), (z, 1.0)]));
    // The parent's Position changes value / is removed.
    world.get_mut::<Position>(b).unwrap().0 = 9.0;
    world.entity_mut(a).remove::<Position>();
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 9.0), (c, 9.0)]));
    // Swap-removes: despawning a row before others in the union table.
    world.despawn(c); // deletes x too (on_delete_target = delete)
    assert!(!world.is_alive(x));
    assert_eq!(rows(&mut q, &world), BTreeMap::new());
    world.check_invariants();
}

#[test]
fn option_up_matches_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 99);
    let mut uq = world.query_filtered::<(Entity, Option<Up<Parent, &Position>>), (With<Marker>, With<U>)>();
    let mut fq = world.query_filtered::<(Entity, Option<Up<FragParent, &Position>>), (With<Marker>, With<F>)>();
    let u: BTreeMap<Entity, Option<f32>> = uq.iter(&world).map(|(e, v)| (e, v.map(|p| p.0))).collect();
    let f: BTreeMap<Entity, Option<f32>> =
        fq.iter(&world).map(|(e, v)| (union_of(&twins, e), v.map(|p| p.0))).collect();
    assert_eq!(u, f);
    assert!(u.values().any(Option::is_some) && u.values().any(Option::is_none));
}

#[test]
fn two_up_terms_resolve_each_own_ancestor_per_row() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 4242);
    let mut uq = world.query::<(Entity, Up<Parent, &Position>, Up<Parent, &Velocity>, Option<Up<Parent, &Sparse>>)>();
    let mut fq = world
        .query::<(Entity, Up<FragParent, &Position>, Up<FragParent, &Velocity>, Option<Up<FragParent, &Sparse>>)>();
    type Row = (f32, f32, Option<f32>);
    let u: BTreeMap<Entity, Row> = uq.iter(&world).map(|(e, p, v, s)| (e, (p.0, v.0, s.map(|s| s.0)))).collect();
    let f: BTreeMap<Entity, Row> =
        fq.iter(&world).map(|(e, p, v, s)| (union_of(&twins, e), (p.0, v.0, s.map(|s| s.0)))).collect();
    assert_eq!(u, f);
    assert!(!u.is_empty());
}

#[test]
fn up_with_filters_and_a_union_target_filter() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 777);
    let mut uq = world.query_filtered::<(Entity, Up<Parent, &Position>), (With<Marker>, Without<Other>)>();
    let mut fq = world.query_filtered::<(Entity, Up<FragParent, &Position>), (With<Marker>, Without<Other>)>();
    let u: BTreeMap<Entity, f32> = uq.iter(&world).map(|(e, p)| (e, p.0)).collect();
    let f: BTreeMap<Entity, f32> = fq.iter(&world).map(|(e, p)| (union_of(&twins, e), p.0)).collect();
    assert_eq!(u, f);
    // `with_pair::<Parent>(t)`: only the children of one node.
    let (tu, tf) = *twins.iter().max_by_key(|(u, _)| world.descendants_of::<Parent>(*u).count()).unwrap();
    let mut uq = world.query::<(Entity, Up<Parent, &Position>)>().with_pair::<Parent>(tu);
    let mut fq = world.query::<(Entity, Up<FragParent, &Position>)>().with_pair::<FragParent>(tf);
    let u: BTreeMap<Entity, f32> = uq.iter(&world).map(|(e, p)| (e, p.0)).collect();
    let f: BTreeMap<Entity, f32> = fq.iter(&world).map(|(e, p)| (union_of(&twins, e), p.0)).collect();
    assert_eq!(u, f);
}

#[test]
fn get_many_combinations_single_and_contains() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Marker).add_pair::<Parent>(a).id();
    let y = world.spawn(Marker).add_pair::<Parent>(b).id();
    let z = world.spawn(Marker).add_pair::<Parent>(x).id();
    let nothing = world.spawn_empty().id();
    let orphan = world.spawn(Marker).add_pair::<Parent>(nothing).id();
    let mut q = world.query::<Up<Parent, &Position>>();
    let [py, px, pz] = q.get_many(&world, [y, x, z]).unwrap();
    assert_eq!((py.0, px.0, pz.0), (2.0, 1.0, 1.0));
    assert!(q.get_many(&world, [x, orphan]).is_err());
    let mut sums: Vec<f32> = q.iter_combinations::<2>(&world).map(|[p, r]| p.0 + r.0).collect();
    sums.sort_by(f32::total_cmp);
    assert_eq!(sums, vec![2.0, 3.0, 3.0]);
    let mut single = world.query_filtered::<Up<Parent, &Position>, Without<Marker>>();
    assert!(single.single(&world).is_err());
    let solo = world.spawn(Other).add_pair::<Parent>(b).id();
    let mut single = world.query_filtered::<(Entity, Up<Parent, &Position>), With<Other>>();
    let (e, p) = single.single(&world).unwrap();
    assert_eq!((e, p.0), (solo, 2.0));
}

#[derive(Resource, Default)]
struct Seen(BTreeMap<Entity, f32>);

fn read_up(q: Query<(Entity, Up<Parent, &Position>)>, mut seen: ResMut<Seen>) {
    seen.0 = q.iter().map(|(e, p)| (e, p.0)).collect();
    for (e, p) in q.iter() {
        assert_eq!(q.get(e).map(|(_, p)| p.0), Ok(p.0));
        assert!(q.contains(e));
    }
}

fn write_from_up(mut q: Query<(&mut Global, Up<Parent, &Position>)>) {
    for (mut g, p) in q.iter_mut() {
        g.0 = p.0 * 10.0;
    }
}

#[test]
fn query_params_in_a_schedule_read_each_rows_parent() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Global(0.0)).add_pair::<Parent>(a).id();
    let y = world.spawn(Global(0.0)).add_pair::<Parent>(b).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((read_up, write_from_up).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, BTreeMap::from([(x, 1.0), (y, 2.0)]));
    assert_eq!(world.get::<Global>(x), Some(&Global(10.0)));
    assert_eq!(world.get::<Global>(y), Some(&Global(20.0)));
    world.add_pair::<Parent>(x, b);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, BTreeMap::from([(x, 2.0), (y, 2.0)]));
    assert_eq!(world.get::<Global>(x), Some(&Global(20.0)));
}

#[test]
fn par_iter_mut_writes_each_rows_parent_value_like_the_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 600, 31337);
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(-1.0));
        world.entity_mut(f).insert(Global(-1.0));
    }
    let mut uq = world.query::<(&mut Global, Up<Parent, &Position>)>();
    uq.par_iter_mut(&mut world).batch_size(3).for_each(|(mut g, p)| g.0 = p.0);
    let mut fq = world.query::<(&mut Global, Up<FragParent, &Position>)>();
    fq.par_iter_mut(&mut world).batch_size(3).for_each(|(mut g, p)| g.0 = p.0);
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
    }
    // par_iter (read) with tiny batches agrees with iter.
    let mut uq = world.query::<(Entity, Up<Parent, &Position>)>();
    let seq: BTreeMap<Entity, f32> = uq.iter(&world).map(|(e, p)| (e, p.0)).collect();
    let par = std::sync::Mutex::new(BTreeMap::new());
    uq.par_iter(&world).batch_size(1).for_each(|(e, p)| {
        par.lock().unwrap().insert(e, p.0);
    });
    assert_eq!(seq, par.into_inner().unwrap());
}

// ----- runtime queries ------------------------------------------------------------------

type DynRows = Vec<Vec<String>>;

/// Rows of a runtime query as strings, with fragmenting-side entities mapped
/// to the union side (so both sides compare equal).
fn dyn_rows(q: &mut DynQuery, world: &World, twins: &Twins, terms: usize, vars: &[&str]) -> DynRows {
    let map = frag_to_union(twins);
    let name = |e: Entity| format!("{:?}", map.get(&e).copied().unwrap_or(e));
    let mut rows: DynRows = q
        .iter(world)
        .map(|row| {
            let mut out = Vec::new();
            if let Some(e) = row.this() {
                out.push(name(e));
            }
            for t in 0..terms {
                if row.is_set(t) {
                    let value = row
                        .get::<Position>(t)
                        .map(|p| p.0)
                        .or_else(|| row.get::<Velocity>(t).map(|p| p.0))
                        .or_else(|| row.get::<Sparse>(t).map(|p| p.0))
                        .or_else(|| row.get::<Toggled>(t).map(|p| p.0));
                    out.push(format!("{t}:{value:?}"));
                } else {
                    out.push(format!("{t}:unset"));
                }
            }
            for v in vars {
                out.push(format!("{v}={:?}", row.var(v).map(name)));
            }
            out
        })
        .collect();
    rows.sort();
    rows
}

/// Runs the DSL query `text` (with `{P}` standing for the relationship) on both
/// sides, cached and uncached, and compares.
fn compare_dsl(world: &mut World, twins: &Twins, text: &str, terms: usize, vars: &[&str]) -> usize {
    let ut = text.replace("{P}", "Parent");
    let ft = text.replace("{P}", "FragParent");
    let mut uc = world.query_dsl(&ut).unwrap();
    let mut uu = world.query_dsl_uncached(&ut).unwrap();
    let mut fc = world.query_dsl(&ft).unwrap();
    let mut fu = world.query_dsl_uncached(&ft).unwrap();
    let a = dyn_rows(&mut uc, world, twins, terms, vars);
    let b = dyn_rows(&mut uu, world, twins, terms, vars);
    let c = dyn_rows(&mut fc, world, twins, terms, vars);
    let d = dyn_rows(&mut fu, world, twins, terms, vars);
    assert_eq!(a, c, "{text}: union cached vs fragmenting cached");
    assert_eq!(b, d, "{text}: union uncached vs fragmenting uncached");
    assert_eq!(a, b, "{text}: union cached vs uncached");
    assert_eq!(uc.count(world), a.len(), "{text}: count");
    // After a reshuffle, the same cached queries.
    shuffle_parents(world, twins, 0x5EED);
    let a = dyn_rows(&mut uc, world, twins, terms, vars);
    let c = dyn_rows(&mut fc, world, twins, terms, vars);
    assert_eq!(a, c, "{text}: after reshuffling, cached");
    let b = dyn_rows(&mut uu, world, twins, terms, vars);
    assert_eq!(a, b, "{text}: after reshuffling, union cached vs uncached");
    a.len()
}

fn runtime_world(nodes: usize, seed: u64) -> (World, Twins) {
    let mut world = World::new();
    for _ in 0..1 {
        world.register_component::<Position>();
        world.register_component::<Velocity>();
        world.register_component::<Sparse>();
        world.register_component::<Toggled>();
        world.register_component::<Marker>();
        world.register_component::<Other>();
        world.register_component::<Skip>();
        world.register_component::<Parent>();
        world.register_component::<FragParent>();
        world.register_component::<Likes>();
    }
    let twins = twin_forest(&mut world, nodes, seed);
    // Likes: some nodes like a few nodes (the same on both sides).
    let mut rng = Rng(seed ^ 0xFFFF);
    for i in 0..twins.len() {
        for _ in 0..rng.next(3) {
            let j = rng.next(twins.len() as u64) as usize;
            world.add_pair::<Likes>(twins[i].0, twins[j].0);
            world.add_pair::<Likes>(twins[i].1, twins[j].1);
        }
    }
    (world, twins)
}

#[test]
fn runtime_up_plain_optional_not_and_self_up_match_twin() {
    let (mut world, twins) = runtime_world(250, 11);
    assert!(compare_dsl(&mut world, &twins, "Marker, Position(up {P})", 2, &[]) > 10);
    compare_dsl(&mut world, &twins, "Marker, ?Position(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Marker, !Position(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Marker, Position(self|up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Position(up {P}), Velocity(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Position(up {P}) || Velocity(up {P})", 1, &[]);
    compare_dsl(&mut world, &twins, "Other, !Marker, ?Velocity(self|up {P}), Position(up {P})", 4, &[]);
}

#[test]
fn runtime_up_with_variables_matches_twin() {
    let (mut world, twins) = runtime_world(200, 12);
    assert!(compare_dsl(&mut world, &twins, "Marker, Position(up {P}), (Likes, $x)", 3, &["x"]) > 10);
    compare_dsl(&mut world, &twins, "(Likes, $x), Position($x|up {P})", 2, &["x"]);
    compare_dsl(&mut world, &twins, "Marker, (Likes, $x), Velocity($x), Position(up {P})", 4, &["x"]);
    compare_dsl(&mut world, &twins, "Position(up {P}), ?(Likes, $x), ?Velocity($x)", 3, &["x"]);
}

#[test]
fn runtime_up_of_sparse_and_toggleable_components_matches_twin() {
    let (mut world, twins) = runtime_world(250, 13);
    assert!(compare_dsl(&mut world, &twins, "Sparse(up {P})", 1, &[]) > 10);
    compare_dsl(&mut world, &twins, "Marker, Toggled(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Marker, !Toggled(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Marker, ?Sparse(up {P})", 2, &[]);
    compare_dsl(&mut world, &twins, "Toggled(self|up {P})", 1, &[]);
    compare_dsl(&mut world, &twins, "Sparse(self|up {P})", 1, &[]);
}

#[test]
fn runtime_up_through_a_union_pair_variable_matches_twin() {
    let (mut world, twins) = runtime_world(200, 14);
    assert!(compare_dsl(&mut world, &twins, "({P}, $p), Position(up {P})", 2, &["p"]) > 10);
    compare_dsl(&mut world, &twins, "({P}, $p), Position($p)", 2, &["p"]);
    compare_dsl(&mut world, &twins, "Marker, ({P}, $p), !Position($p), Position(up {P})", 4, &["p"]);
}

#[test]
fn runtime_up_from_a_fixed_source() {
    let (mut world, twins) = runtime_world(200, 15);
    for &(u, f) in twins.iter().step_by(7) {
        let uq = format!("Position(#{}|up Parent)", u.to_bits());
        let fq = format!("Position(#{}|up FragParent)", f.to_bits());
        let mut uq = world.query_dsl(&uq).unwrap();
        let mut fq = world.query_dsl(&fq).unwrap();
        let a: Vec<(Entity, f32)> = uq.iter(&world).map(|r| (r.source(0), r.get::<Position>(0).unwrap().0)).collect();
        let b: Vec<(Entity, f32)> =
            fq.iter(&world).map(|r| (union_of(&twins, r.source(0)), r.get::<Position>(0).unwrap().0)).collect();
        assert_eq!(a, b, "{u:?}");
        // And the typed form.
        let typed = world.query::<Up<Parent, &Position>>().get(&world, u).ok().map(|p| p.0);
        assert_eq!(a.first().map(|r| r.1), typed);
    }
}

#[test]
fn runtime_per_row_solutions_in_table_views_hold_their_own_row() {
    let (mut world, twins) = runtime_world(200, 16);
    for text in ["Marker, Position(up Parent)", "Position(up Parent), ?Velocity"] {
        let mut q = world.query_dsl(text).unwrap();
        let term = if text.starts_with("Marker") { 1 } else { 0 };
        let by_rows: BTreeMap<Entity, (Entity, f32)> =
            q.iter(&world).map(|r| (r.entity(), (r.source(term), r.get::<Position>(term).unwrap().0))).collect();
        let mut by_tables: BTreeMap<Entity, (Entity, f32)> = BTreeMap::new();
        let mut visited = 0;
        for table in q.iter_tables(&world) {
            let source = table.source(term).expect("an up term's source");
            let value = table.shared::<Position>(term).expect("its value").0;
            for (row, &e) in table.entities().iter().enumerate() {
                if table.is_dense() || table.row_matches(row) {
                    visited += 1;
                    assert!(by_tables.insert(e, (source, value)).is_none(), "{e:?} in two table views");
                }
            }
        }
        assert_eq!(by_rows, by_tables, "{text}");
        assert_eq!(visited, by_rows.len());
        let mut typed = world.query::<Up<Parent, &Position>>();
        for (e, (_, value)) in &by_tables {
            assert_eq!(typed.get(&world, *e).map(|p| p.0), Ok(*value));
        }
    }
    let _ = twins;
}

#[test]
fn runtime_cached_query_sees_new_tables_and_retargets() {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Marker>();
    world.register_component::<Parent>();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Marker).add_pair::<Parent>(a).id();
    let mut q = world.query_dsl("Position(up Parent)").unwrap();
    let rows = |q: &mut DynQuery, world: &World| {
        q.iter(world).map(|r| (r.entity(), r.get::<Position>(0).unwrap().0)).collect::<BTreeMap<_, _>>()
    };
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 1.0)]));
    // New tables after the first use.
    let y = world.spawn((Marker, Velocity(1.0))).add_pair::<Parent>(b).id();
    let z = world.spawn(Other).add_pair::<Parent>(y).id();
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 1.0), (y, 2.0), (z, 2.0)]));
    // Retarget, and the root gets a parent (moves a, b into the union table).
    world.add_pair::<Parent>(y, a);
    world.add_pair::<Parent>(a, b);
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(a, 2.0), (x, 1.0), (y, 1.0), (z, 1.0)]));
    world.remove_pair::<Parent>(a, b);
    world.entity_mut(a).remove::<Position>();
    assert_eq!(rows(&mut q, &world), BTreeMap::new());
}

#[test]
fn runtime_variables_hide_the_row_variable() {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Parent>();
    world.register_component::<Likes>();
    let a = world.spawn(Position(1.0)).id();
    let liked = world.spawn_empty().id();
    let x = world.spawn_empty().add_pair::<Parent>(a).add_pair::<Likes>(liked).id();
    let mut q = world.query_dsl("(Likes, $who), Position(up Parent)").unwrap();
    assert_eq!(q.variables(), ["who".to_owned()]);
    let row = q.iter(&world).next().expect("one row");
    assert_eq!(row.entity(), x);
    assert_eq!(row.var("who"), Some(liked));
    // `this` is the row's entity (Flecs' variable 0), whatever the hidden
    // row variable holds; it is not among the user's variables.
    assert_eq!(row.var("this"), Some(x));
    assert_eq!(row.var("$this"), Some(x));
}

#[test]
fn runtime_iter_mut_writes_from_each_rows_parent() {
    let (mut world, twins) = runtime_world(200, 17);
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(-1.0));
        world.entity_mut(f).insert(Global(-1.0));
    }
    world.register_component::<Global>();
    for p in ["Parent", "FragParent"] {
        let mut q = world.query_dsl(&format!("[out] Global, Position(up {p})")).unwrap();
        q.iter_mut(&mut world).for_each(|mut row| {
            let v = row.get::<Position>(1).unwrap().0;
            row.get_mut::<Global>(0).unwrap().0 = v;
        });
    }
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
    }
}

struct UpSpec;

impl RuntimeQuerySpec for UpSpec {
    fn build(world: &mut World) -> DynQuery {
        world.register_component::<Parent>();
        world.register_component::<Global>();
        world.query_dsl("[out] Global, Position(up Parent)").unwrap()
    }
}

fn runtime_system(mut q: RuntimeQuery<UpSpec>) {
    q.iter_mut().for_each(|mut row| {
        let v = row.get::<Position>(1).unwrap().0;
        row.get_mut::<Global>(0).unwrap().0 = v + 100.0;
    });
}

#[test]
fn runtime_query_param_in_a_schedule() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Global(0.0)).add_pair::<Parent>(a).id();
    let y = world.spawn(Global(0.0)).add_pair::<Parent>(b).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(runtime_system);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(x), Some(&Global(101.0)));
    assert_eq!(world.get::<Global>(y), Some(&Global(102.0)));
    world.add_pair::<Parent>(y, a);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(y), Some(&Global(101.0)));
}

#[test]
fn runtime_union_relationship_with_traits_set_at_runtime_matches_twin() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.union().traversable().acyclic());
    let frag = world.spawn_empty().id();
    world.set_relationship_traits(frag, RelationshipTraits::DEFAULT.exclusive().traversable().acyclic());
    let mut rng = Rng(0x77);
    let mut twins: Twins = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    for i in 0..200 {
        let has = rng.next(3) == 0;
        let u = world.spawn_empty().id();
        let f = world.spawn_empty().id();
        if has {
            world.entity_mut(u).insert(Position(i as f32));
            world.entity_mut(f).insert(Position(i as f32));
        }
        if i > 0 && rng.next(5) != 0 {
            let p = rng.next(i as u64) as usize;
            world.add_id(u, Id::pair(rel, twins[p].0));
            world.add_id(f, Id::pair(frag, twins[p].1));
            parents.push(Some(p));
        } else {
            parents.push(None);
        }
        twins.push((u, f));
    }
    let collect = |q: &mut DynQuery, world: &World| {
        q.iter(world)
            .map(|r| (union_of(&twins, r.entity()), r.get::<Position>(0).unwrap().0))
            .collect::<BTreeMap<Entity, f32>>()
    };
    let mut uq = world.query_builder().read(position).up(rel).build().unwrap();
    let mut fq = world.query_builder().read(position).up(frag).build().unwrap();
    let a = collect(&mut uq, &world);
    assert_eq!(a, collect(&mut fq, &world));
    assert!(a.len() > 20);
    let mut uq = world.query_dsl(&format!("Position(self|up #{})", rel.to_bits())).unwrap();
    let mut fq = world.query_dsl(&format!("Position(self|up #{})", frag.to_bits())).unwrap();
    assert_eq!(collect(&mut uq, &world), collect(&mut fq, &world));
    // Cycle check through runtime union rows.
    let leaf = (0..200).rev().find(|&i| parents[i].is_some_and(|p| parents[p].is_some())).unwrap();
    let mut top = leaf;
    while let Some(p) = parents[top] {
        top = p;
    }
    assert!(world.try_add_id(twins[top].0, Id::pair(rel, twins[leaf].0)).is_err(), "a loop through union rows");
    assert!(world.try_add_id(twins[top].1, Id::pair(frag, twins[leaf].1)).is_err(), "a loop, fragmenting");
}

// ----- propagate ------------------------------------------------------------------------

#[test]
fn propagate_with_filters_and_missing_components_matches_twin_across_runs() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 400, 0xF00D);
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(0.0));
        world.entity_mut(f).insert(Global(0.0));
    }
    // The ancestor component is `Global`; rows carry Position optionally;
    // `Skip` rows are filtered out (their Global stays stale, as on the twin).
    let mut us = world.query_filtered::<(Option<&Position>, &mut Global), (Without<Skip>, With<U>)>();
    let mut fs = world.query_filtered::<(Option<&Position>, &mut Global), (Without<Skip>, With<F>)>();
    for run in 0..4 {
        us.propagate::<Parent, Global>(&mut world, |(local, mut global), parent| {
            global.0 = parent.map_or(0.0, |p| p.0) * 0.5 + local.map_or(1.0, |p| p.0) + run as f32;
        });
        fs.propagate::<FragParent, Global>(&mut world, |(local, mut global), parent| {
            global.0 = parent.map_or(0.0, |p| p.0) * 0.5 + local.map_or(1.0, |p| p.0) + run as f32;
        });
        for &(u, f) in &twins {
            assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "run {run}: {u:?} / {f:?}");
        }
        shuffle_parents(&mut world, &twins, run + 100);
    }
}

#[test]
fn propagate_where_some_rows_lack_the_propagated_component() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 400, 0xBEEF);
    // Only rows with Velocity carry the propagated value; others are skipped
    // by the query but still link the chain.
    for &(u, f) in &twins {
        if world.get::<Velocity>(u).is_some() {
            world.entity_mut(u).insert(Global(0.0));
            world.entity_mut(f).insert(Global(0.0));
        }
    }
    let mut us = world.query_filtered::<(&Velocity, &mut Global), With<U>>();
    us.propagate::<Parent, Global>(&mut world, |(v, mut g), parent| g.0 = parent.map_or(0.0, |p| p.0) + v.0);
    let mut fs = world.query_filtered::<(&Velocity, &mut Global), With<F>>();
    fs.propagate::<FragParent, Global>(&mut world, |(v, mut g), parent| g.0 = parent.map_or(0.0, |p| p.0) + v.0);
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
    }
}

#[test]
fn propagate_down_a_deep_chain_built_bottom_up() {
    let mut world = World::new();
    let n = 300;
    let nodes: Vec<Entity> = (0..n).map(|_| world.spawn((Position(1.0), Global(0.0))).id()).collect();
    // Bottom-up: the deepest node gets its parent first.
    for i in (1..n).rev() {
        world.add_pair::<Parent>(nodes[i], nodes[i - 1]);
    }
    let mut q = world.query::<(&Position, &mut Global)>();
    q.propagate::<Parent, Global>(&mut world, |(p, mut g), parent| g.0 = parent.map_or(0.0, |x| x.0) + p.0);
    for (i, &e) in nodes.iter().enumerate() {
        assert_eq!(world.get::<Global>(e), Some(&Global((i + 1) as f32)), "depth {i}");
    }
    // Reverse the chain between runs (cached state).
    for &node in &nodes {
        if let Some(t) = world.target::<Parent>(node) {
            world.remove_pair::<Parent>(node, t);
        }
    }
    for i in 0..n - 1 {
        world.add_pair::<Parent>(nodes[i], nodes[i + 1]);
    }
    q.propagate::<Parent, Global>(&mut world, |(p, mut g), parent| g.0 = parent.map_or(0.0, |x| x.0) + p.0);
    for (i, &e) in nodes.iter().enumerate() {
        assert_eq!(world.get::<Global>(e), Some(&Global((n - i) as f32)), "reversed, node {i}");
    }
}

fn union_propagate_system(mut walk: Propagate<Parent, Global, (&Position, &mut Global)>) {
    walk.for_each(|(p, mut g), parent| g.0 = parent.map_or(0.0, |x| x.0) + p.0);
}

#[test]
fn the_propagate_param_walks_a_union_hierarchy() {
    let mut world = World::new();
    let leaf = world.spawn((Position(100.0), Global(0.0))).id();
    let mid = world.spawn((Position(10.0), Global(0.0))).id();
    let root = world.spawn((Position(1.0), Global(0.0))).id();
    world.add_pair::<Parent>(leaf, mid);
    world.add_pair::<Parent>(mid, root);
    let mut schedule = Schedule::new();
    schedule.add_systems(union_propagate_system);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(leaf), Some(&Global(111.0)));
    world.add_pair::<Parent>(leaf, root);
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(leaf), Some(&Global(101.0)));
}

#[test]
fn propagate_with_cycles_in_a_loose_union_matches_twin() {
    let mut world = World::new();
    let n = 60;
    let mut twins: Twins = Vec::new();
    for i in 0..n {
        let u = world.spawn((Position(i as f32), Global(0.0), U)).id();
        let f = world.spawn((Position(i as f32), Global(0.0), F)).id();
        twins.push((u, f));
    }
    let mut rng = Rng(5);
    for i in 0..n {
        if rng.next(4) == 0 {
            continue;
        }
        let j = rng.next(n as u64) as usize;
        world.add_pair::<Loose>(twins[i].0, twins[j].0);
        world.add_pair::<FragLoose>(twins[i].1, twins[j].1);
    }
    let mut uq = world.query::<(Entity, Up<Loose, &Position>)>();
    let mut fq = world.query::<(Entity, Up<FragLoose, &Position>)>();
    let u: BTreeMap<Entity, f32> = uq.iter(&world).map(|(e, p)| (e, p.0)).collect();
    let f: BTreeMap<Entity, f32> = fq.iter(&world).map(|(e, p)| (union_of(&twins, e), p.0)).collect();
    assert_eq!(u, f);
    let mut us = world.query_filtered::<(&Position, &mut Global), With<U>>();
    us.propagate::<Loose, Global>(&mut world, |(p, mut g), parent| g.0 = parent.map_or(-1.0, |x| x.0 * 0.0) + p.0);
    let mut fs = world.query_filtered::<(&Position, &mut Global), With<F>>();
    fs.propagate::<FragLoose, Global>(&mut world, |(p, mut g), parent| g.0 = parent.map_or(-1.0, |x| x.0 * 0.0) + p.0);
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
    }
}

// ----- events, cleanup, cycles ----------------------------------------------------------

#[derive(Resource, Default)]
struct Climbed(Vec<Entity>);

#[derive(Event, Debug)]
#[event(propagate = Parent)]
struct Climb;

#[test]
fn propagating_events_follow_retargets_and_deep_chains() {
    let mut world = World::new();
    world.init_resource::<Climbed>();
    world.add_observer(|t: Trigger<Climb>, mut c: ResMut<Climbed>| c.0.push(t.entity()));
    let nodes: Vec<Entity> = (0..50).map(|_| world.spawn(Marker).id()).collect();
    for i in (1..50).rev() {
        world.add_pair::<Parent>(nodes[i], nodes[i - 1]);
    }
    world.trigger_targets(Climb, nodes[49]);
    let expected: Vec<Entity> = nodes.iter().rev().copied().collect();
    assert_eq!(std::mem::take(&mut world.resource_mut::<Climbed>().0), expected);
    world.add_pair::<Parent>(nodes[49], nodes[10]);
    world.trigger_targets(Climb, nodes[49]);
    let mut expected = vec![nodes[49]];
    expected.extend(nodes[..=10].iter().rev());
    assert_eq!(world.resource::<Climbed>().0, expected);
}

#[test]
fn cleanup_of_a_deep_and_bushy_union_tree_matches_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 500, 0xC1EA);
    // Also a deep chain on both sides.
    let mut prev = twins[0];
    let mut chain = Vec::new();
    for _ in 0..200 {
        let u = world.spawn(Marker).add_pair::<Parent>(prev.0).id();
        let f = world.spawn(Marker).add_pair::<FragParent>(prev.1).id();
        prev = (u, f);
        chain.push(prev);
    }
    let mut rng = Rng(9);
    for _ in 0..20 {
        let (u, f) = twins[rng.next(twins.len() as u64) as usize];
        if !world.is_alive(u) {
            assert!(!world.is_alive(f));
            continue;
        }
        world.despawn(u);
        world.despawn(f);
        for &(u, f) in twins.iter().chain(&chain) {
            assert_eq!(world.is_alive(u), world.is_alive(f), "{u:?} / {f:?}");
        }
        world.check_invariants();
    }
    world.despawn(twins[0].0);
    world.despawn(twins[0].1);
    for &(u, f) in &chain {
        assert!(!world.is_alive(u) && !world.is_alive(f));
    }
    let alive: Twins = twins.iter().copied().filter(|(u, _)| world.is_alive(*u)).collect();
    compare_up!(&mut world, &alive, Position, |p: &Position| p.0);
}

#[test]
fn cycle_checks_through_long_union_chains() {
    let mut world = World::new();
    let nodes: Vec<Entity> = (0..100).map(|_| world.spawn(Marker).id()).collect();
    for i in (1..100).rev() {
        world.add_pair::<Parent>(nodes[i], nodes[i - 1]);
    }
    for j in [1, 50, 99] {
        assert!(matches!(world.try_add_pair::<Parent>(nodes[0], nodes[j]), Err(PairError::Cycle { .. })), "{j}");
    }
    // Retargeting within the chain to a non-descendant is fine.
    assert!(world.try_add_pair::<Parent>(nodes[60], nodes[10]).is_ok());
    assert!(matches!(world.try_add_pair::<Parent>(nodes[10], nodes[99]), Err(PairError::Cycle { .. })));
    assert!(world.try_add_pair::<Parent>(nodes[55], nodes[99]).is_ok());
    world.check_invariants();
    assert_eq!(world.ancestors_of::<Parent>(nodes[99]).count(), 39 + 11);
}

// ----- minimal repros -------------------------------------------------------------------

/// `(Parent, $p)` in a cached runtime query: a target that appears in a
/// table after the query first matched it.
#[test]
fn cached_union_pair_variable_sees_targets_added_later_to_a_matched_table() {
    let mut world = World::new();
    world.register_component::<Parent>();
    world.register_component::<Position>();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Marker).add_pair::<Parent>(a).id();
    let mut cached = world.query_dsl("Marker, (Parent, $p)").unwrap();
    let rows = |q: &mut DynQuery, world: &World| {
        let mut v: Vec<(Entity, Option<Entity>)> = q.iter(world).map(|r| (r.entity(), r.var("p"))).collect();
        v.sort();
        v
    };
    assert_eq!(rows(&mut cached, &world), vec![(x, Some(a))]);
    // A new row in the same table with a new target, and a retarget.
    let y = world.spawn(Marker).add_pair::<Parent>(b).id();
    let mut uncached = world.query_dsl_uncached("Marker, (Parent, $p)").unwrap();
    assert_eq!(rows(&mut uncached, &world), vec![(x, Some(a)), (y, Some(b))]);
    assert_eq!(rows(&mut cached, &world), vec![(x, Some(a)), (y, Some(b))], "cached");
}

/// The same through `up`: `(Parent, $p), Position(up Parent)`.
#[test]
fn cached_union_pair_variable_plus_up_sees_retargets() {
    let mut world = World::new();
    world.register_component::<Parent>();
    world.register_component::<Position>();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Marker).add_pair::<Parent>(a).id();
    let mut cached = world.query_dsl("(Parent, $p), Position(up Parent)").unwrap();
    let rows = |q: &mut DynQuery, world: &World| {
        let mut v: Vec<(Entity, Option<Entity>, f32)> =
            q.iter(world).map(|r| (r.entity(), r.var("p"), r.get::<Position>(1).unwrap().0)).collect();
        v.sort_by_key(|r| r.0);
        v
    };
    assert_eq!(rows(&mut cached, &world), vec![(x, Some(a), 1.0)]);
    world.add_pair::<Parent>(x, b);
    assert_eq!(rows(&mut cached, &world), vec![(x, Some(b), 2.0)], "retarget (no move), cached");
}

/// `Sparse(self|up Parent)`: a row without its own sparse value should take
/// its parent's (sparse components do not fragment, so this is a per-row
/// question, which the union's per-row evaluation could answer).
#[test]
fn self_up_of_a_sparse_component_climbs_for_rows_without_their_own() {
    let mut world = World::new();
    world.register_component::<Sparse>();
    world.register_component::<Parent>();
    world.register_component::<FragParent>();
    let top = world.spawn(Sparse(1.0)).id();
    let own = world.spawn(Sparse(2.0)).add_pair::<Parent>(top).id();
    let bare = world.spawn(Marker).add_pair::<Parent>(top).id();
    let ftop = world.spawn(Sparse(1.0)).id();
    let fown = world.spawn(Sparse(2.0)).add_pair::<FragParent>(ftop).id();
    let fbare = world.spawn(Marker).add_pair::<FragParent>(ftop).id();
    for (p, top, own, bare) in [("Parent", top, own, bare), ("FragParent", ftop, fown, fbare)] {
        let mut q = world.query_dsl(&format!("Sparse(self|up {p})")).unwrap();
        let rows: BTreeMap<Entity, f32> = q.iter(&world).map(|r| (r.entity(), r.get::<Sparse>(0).unwrap().0)).collect();
        assert_eq!(rows.get(&top), Some(&1.0), "{p}");
        assert_eq!(rows.get(&own), Some(&2.0), "{p}");
        assert_eq!(rows.get(&bare), Some(&1.0), "{p}: a row without its own sparse value climbs: {rows:?}");
    }
}

// ----- more combinations ----------------------------------------------------------------

#[test]
fn typed_up_with_pair_variants_and_the_parent_target() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 0xAB);
    let mut rng = Rng(3);
    for i in 0..twins.len() {
        for _ in 0..rng.next(3) {
            let j = rng.next(twins.len() as u64) as usize;
            world.add_pair::<Likes>(twins[i].0, twins[j].0);
            world.add_pair::<Likes>(twins[i].1, twins[j].1);
        }
    }
    let mut uq = world.query::<(Entity, Pair<Likes>, Pair<Parent>, Up<Parent, &Position>)>();
    let mut fq = world.query::<(Entity, Pair<Likes>, Pair<FragParent>, Up<FragParent, &Position>)>();
    let mut u: Vec<(Entity, Entity, Entity, f32)> = uq.iter(&world).map(|(e, l, p, v)| (e, l, p, v.0)).collect();
    let mut f: Vec<(Entity, Entity, Entity, f32)> = fq
        .iter(&world)
        .map(|(e, l, p, v)| (union_of(&twins, e), union_of(&twins, l), union_of(&twins, p), v.0))
        .collect();
    u.sort_by_key(|row| (row.0, row.1, row.2));
    f.sort_by_key(|row| (row.0, row.1, row.2));
    assert_eq!(u, f);
    assert!(u.len() > 20);
    // Each row's Up value is its own parent's Position where the parent has one.
    for &(e, _, p, v) in &u {
        assert_eq!(world.target::<Parent>(e), Some(p));
        if let Some(pp) = world.get::<Position>(p) {
            assert_eq!(pp.0, v);
        }
    }
}

#[test]
fn runtime_this_in_an_id_plus_up_through_a_union_matches_twin() {
    let (mut world, twins) = runtime_world(200, 21);
    assert!(compare_dsl(&mut world, &twins, "Likes($x, $this), Position(up {P})", 2, &["x"]) > 5);
    compare_dsl(&mut world, &twins, "Marker, Likes($x, $this), Position($x|up {P}), ?Velocity(up {P})", 4, &["x"]);
}

#[test]
fn runtime_table_views_write_each_rows_parent_value() {
    let (mut world, twins) = runtime_world(200, 22);
    world.register_component::<Global>();
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(-1.0));
        world.entity_mut(f).insert(Global(-1.0));
    }
    for p in ["Parent", "FragParent"] {
        let mut q = world.query_dsl(&format!("[out] Global, Position(up {p})")).unwrap();
        q.iter_tables_mut(&mut world).for_each(|table| {
            let value = table.shared::<Position>(1).expect("one ancestor value per view").0;
            let rows: Vec<bool> = (0..table.len()).map(|row| table.is_dense() || table.row_matches(row)).collect();
            let globals = table.field_mut::<Global>(0).unwrap();
            assert_eq!(globals.len(), rows.len());
            for (g, ok) in globals.iter_mut().zip(rows) {
                if ok {
                    g.0 = value;
                }
            }
        });
    }
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
    }
}

#[test]
fn typed_up_through_a_self_loop_in_a_loose_union_matches_twin() {
    let mut world = World::new();
    let a = world.spawn((Position(1.0), U)).id();
    let fa = world.spawn((Position(1.0), F)).id();
    world.add_pair::<Loose>(a, a);
    world.add_pair::<FragLoose>(fa, fa);
    let b = world.spawn((Marker, U)).add_pair::<Loose>(a).id();
    let fb = world.spawn((Marker, F)).add_pair::<FragLoose>(fa).id();
    // A two-cycle without values.
    let c = world.spawn((Marker, U)).id();
    let d = world.spawn((Marker, U)).add_pair::<Loose>(c).id();
    world.add_pair::<Loose>(c, d);
    let fc = world.spawn((Marker, F)).id();
    let fd = world.spawn((Marker, F)).add_pair::<FragLoose>(fc).id();
    world.add_pair::<FragLoose>(fc, fd);
    let twins: Twins = vec![(a, fa), (b, fb), (c, fc), (d, fd)];
    let mut uq = world.query::<(Entity, Up<Loose, &Position>)>();
    let mut fq = world.query::<(Entity, Up<FragLoose, &Position>)>();
    let u: BTreeMap<Entity, f32> = uq.iter(&world).map(|(e, p)| (e, p.0)).collect();
    let f: BTreeMap<Entity, f32> = fq.iter(&world).map(|(e, p)| (union_of(&twins, e), p.0)).collect();
    assert_eq!(u, f);
    let mut uq = world.query_dsl("Marker, Position(up Loose)").unwrap();
    let mut fq = world.query_dsl("Marker, Position(up FragLoose)").unwrap();
    assert_eq!(uq.count(&world), fq.count(&world));
    let mut uq = world.query_dsl("Marker, !Position(up Loose)").unwrap();
    let mut fq = world.query_dsl("Marker, !Position(up FragLoose)").unwrap();
    assert_eq!(uq.count(&world), fq.count(&world));
}

#[test]
fn runtime_union_pair_variable_plus_up_on_one_table_of_many_targets() {
    // `(Parent, $p)` on a table whose rows have N distinct targets gives N
    // table-level frames; evaluated row by row (for `up`), each row keeps the
    // frame of its own target only (the cost is linear: measured when this
    // was fixed, 1.16 s -> 95 ms at N = 400 in a debug build).
    let n = 400;
    let mut world = World::new();
    world.register_component::<Parent>();
    world.register_component::<FragParent>();
    world.register_component::<Position>();
    for i in 0..n {
        let pu = world.spawn(Position(i as f32)).id();
        let pf = world.spawn(Position(i as f32)).id();
        world.spawn(Marker).add_pair::<Parent>(pu);
        world.spawn(Marker).add_pair::<FragParent>(pf);
    }
    let sum = |text: &str, world: &World| {
        let mut q = world.query_dsl_uncached(text).unwrap();
        let rows: Vec<(Entity, f32)> =
            q.iter(world).map(|r| (r.var("p").unwrap(), r.get::<Position>(2).unwrap().0)).collect();
        for &(p, value) in &rows {
            assert_eq!(world.get::<Position>(p).map(|p| p.0), Some(value), "the row's own parent");
        }
        (rows.len(), rows.iter().map(|row| f64::from(row.1)).sum::<f64>())
    };
    let union = sum("Marker, (Parent, $p), Position(up Parent)", &world);
    let frag = sum("Marker, (FragParent, $p), Position(up FragParent)", &world);
    assert_eq!(union, frag);
    assert_eq!(union.0, n);
}

#[test]
fn runtime_and_typed_up_agree_with_the_twin_at_scale() {
    let n = 2000usize;
    let mut world = World::new();
    world.register_component::<Parent>();
    world.register_component::<FragParent>();
    world.register_component::<Position>();
    let roots: Vec<(Entity, Entity)> =
        (0..50).map(|i| (world.spawn(Position(i as f32)).id(), world.spawn(Position(i as f32)).id())).collect();
    for i in 0..n {
        let (pu, pf) = roots[i % roots.len()];
        world.spawn(Marker).add_pair::<Parent>(pu);
        world.spawn(Marker).add_pair::<FragParent>(pf);
    }
    let mut union_q = world.query_dsl("Marker, Position(up Parent)").unwrap();
    let mut frag_q = world.query_dsl("Marker, Position(up FragParent)").unwrap();
    assert_eq!(union_q.count(&world), n);
    assert_eq!(frag_q.count(&world), n);
    let mut typed_u = world.query::<Up<Parent, &Position>>();
    let mut typed_f = world.query::<Up<FragParent, &Position>>();
    let su: f32 = typed_u.iter(&world).map(|p| p.0).sum();
    let sf: f32 = typed_f.iter(&world).map(|p| p.0).sum();
    assert_eq!(su, sf);
}

#[test]
fn self_loops_are_refused_and_removed_targets_are_not_climbed() {
    let mut world = World::new();
    let e = world.spawn(Position(1.0)).id();
    assert!(matches!(world.try_add_pair::<Parent>(e, e), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<FragParent>(e, e), Err(PairError::Cycle { .. })));
    // Loose (on_delete_target = remove): despawning a middle node leaves its
    // children without a parent on both sides.
    let mut twins: Twins = Vec::new();
    let top = (world.spawn((Position(1.0), U)).id(), world.spawn((Position(1.0), F)).id());
    let mid = (world.spawn((Marker, U)).id(), world.spawn((Marker, F)).id());
    world.add_pair::<Loose>(mid.0, top.0);
    world.add_pair::<FragLoose>(mid.1, top.1);
    for _ in 0..5 {
        let u = world.spawn((Marker, U)).add_pair::<Loose>(mid.0).id();
        let f = world.spawn((Marker, F)).add_pair::<FragLoose>(mid.1).id();
        twins.push((u, f));
    }
    let count = |world: &mut World| {
        let u = world.query::<Up<Loose, &Position>>().iter(world).count();
        let f = world.query::<Up<FragLoose, &Position>>().iter(world).count();
        let du = world.query_dsl("Position(up Loose)").unwrap().count(world);
        let df = world.query_dsl("Position(up FragLoose)").unwrap().count(world);
        (u, f, du, df)
    };
    assert_eq!(count(&mut world), (6, 6, 6, 6));
    world.despawn(mid.0);
    world.despawn(mid.1);
    assert_eq!(count(&mut world), (0, 0, 0, 0));
    world.check_invariants();
}

#[test]
fn a_runtime_relationship_switched_between_union_and_fragmenting_under_a_cached_query() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.union().traversable());
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let x = world.spawn(Marker).id();
    let y = world.spawn(Marker).id();
    world.add_id(x, Id::pair(rel, a));
    world.add_id(y, Id::pair(rel, b));
    let mut q = world.query_builder().read(position).up(rel).build().unwrap();
    let rows = |q: &mut DynQuery, world: &World| {
        q.iter(world).map(|r| (r.entity(), r.get::<Position>(0).unwrap().0)).collect::<BTreeMap<_, _>>()
    };
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 1.0), (y, 2.0)]));
    world.remove_id(x, Id::pair(rel, a));
    world.remove_id(y, Id::pair(rel, b));
    assert_eq!(rows(&mut q, &world), BTreeMap::new());
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive().traversable());
    world.add_id(x, Id::pair(rel, b));
    world.add_id(y, Id::pair(rel, a));
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 2.0), (y, 1.0)]));
    world.remove_id(x, Id::pair(rel, b));
    world.remove_id(y, Id::pair(rel, a));
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.union().traversable());
    world.add_id(x, Id::pair(rel, a));
    world.add_id(y, Id::pair(rel, a));
    assert_eq!(rows(&mut q, &world), BTreeMap::from([(x, 1.0), (y, 1.0)]));
    world.check_invariants();
}

#[test]
fn propagate_with_changed_filters_and_pair_targets_matches_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 0x51);
    for &(u, f) in &twins {
        world.entity_mut(u).insert(Global(0.0));
        world.entity_mut(f).insert(Global(0.0));
    }
    let mut us = world.query_filtered::<(Entity, Option<Pair<Parent>>, &mut Global), With<U>>();
    let mut fs = world.query_filtered::<(Entity, Option<Pair<FragParent>>, &mut Global), With<F>>();
    us.propagate::<Parent, Global>(&mut world, |(e, p, mut g), parent| {
        g.0 = parent.map_or(0.0, |x| x.0) + 1.0 + p.map_or(0.0, |_| 0.5) + (e.index() % 2) as f32 * 0.0;
    });
    fs.propagate::<FragParent, Global>(&mut world, |(e, p, mut g), parent| {
        g.0 = parent.map_or(0.0, |x| x.0) + 1.0 + p.map_or(0.0, |_| 0.5) + (e.index() % 2) as f32 * 0.0;
    });
    for &(u, f) in &twins {
        assert_eq!(world.get::<Global>(u), world.get::<Global>(f), "{u:?} / {f:?}");
        // Global is the depth-based sum: 1 + 1.5 * depth.
        let depth = world.ancestors_of::<Parent>(u).count() as f32;
        assert_eq!(world.get::<Global>(u).unwrap().0, 1.0 + 1.5 * depth, "{u:?}");
    }
}

#[test]
fn union_and_child_of_up_terms_in_one_query_match_twin() {
    let mut world = World::new();
    let twins = twin_forest(&mut world, 300, 0xC0);
    // A ChildOf hierarchy over the same nodes (the same on both sides).
    let mut rng = Rng(0xC1);
    for i in 1..twins.len() {
        if rng.next(3) == 0 {
            let j = rng.next(i as u64) as usize;
            world.add_pair::<ChildOf>(twins[i].0, twins[j].0);
            world.add_pair::<ChildOf>(twins[i].1, twins[j].1);
        }
    }
    let mut uq = world.query::<(Entity, Up<ChildOf, &Velocity>, Up<Parent, &Position>, Option<Up<Parent, &Marker>>)>();
    let mut fq =
        world.query::<(Entity, Up<ChildOf, &Velocity>, Up<FragParent, &Position>, Option<Up<FragParent, &Marker>>)>();
    let u: BTreeMap<Entity, (f32, f32, bool)> =
        uq.iter(&world).map(|(e, v, p, m)| (e, (v.0, p.0, m.is_some()))).collect();
    let f: BTreeMap<Entity, (f32, f32, bool)> =
        fq.iter(&world).map(|(e, v, p, m)| (union_of(&twins, e), (v.0, p.0, m.is_some()))).collect();
    assert_eq!(u, f);
    assert!(!u.is_empty());
    world.register_component::<Parent>();
    world.register_component::<FragParent>();
    let mut uq = world.query_dsl("Velocity(up ChildOf), Position(up Parent), ?Marker(up Parent)").unwrap();
    let mut fq = world.query_dsl("Velocity(up ChildOf), Position(up FragParent), ?Marker(up FragParent)").unwrap();
    let rows = |q: &mut DynQuery, world: &World| {
        let mut v: Vec<(Entity, f32, f32, bool)> = q
            .iter(world)
            .map(|r| {
                (
                    union_of(&twins, r.entity()),
                    r.get::<Velocity>(0).unwrap().0,
                    r.get::<Position>(1).unwrap().0,
                    r.is_set(2),
                )
            })
            .collect();
        v.sort_by_key(|r| r.0);
        v
    };
    let a = rows(&mut uq, &world);
    assert_eq!(a, rows(&mut fq, &world));
    assert_eq!(a.len(), u.len());
}
