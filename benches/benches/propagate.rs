//! `propagate`: transform propagation down a hierarchy of 97,656 entities, 8
//! levels deep (one root, 5 children per entity): every entity's global
//! position becomes its parent's global position plus its own local offset,
//! parents before children, once per iteration (issue 16).
//!
//! * `ecs`: `QueryState::propagate::<ChildOf, GlobalPosition>` over
//!   `(&LocalOffset, &mut GlobalPosition)` (change detection on, as users write
//!   it). Children are linked with `ChildOf`, so each parent's children share a
//!   table: 19,531 tables of 5 rows, visited breadth-first.
//! * `hecs`: the usual hand-rolled way without relationships: `Parent(Entity)`
//!   on children, `Children(Vec<Entity>)` on parents, a recursive walk from the
//!   roots reading and writing through `World::get`.
//! * `hand_written`: `Vec`s in breadth-first order with a parent index per
//!   entity: `global[i] = global[parent[i]] + local[i]`, the floor.
//!
//! The entities are spawned leaves first (reverse breadth-first order), so no
//! side gets its storage order for free from the spawn order.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;
use ecs_benches::Vec3;

/// Levels of the tree, the root's included.
const DEPTH: u32 = 8;
/// Children of every entity above the last level.
const BRANCHING: usize = 5;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct LocalOffset(Vec3);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct GlobalPosition(Vec3);

/// The tree in breadth-first order: `parents[i]` is the index of entity `i`'s
/// parent (`None` for the root), and parents come before their children.
fn tree() -> Vec<Option<usize>> {
    let mut parents = vec![None];
    let mut level = 0..1;
    for _ in 1..DEPTH {
        let next = parents.len()..parents.len() + level.len() * BRANCHING;
        for parent in level {
            parents.extend(std::iter::repeat_n(Some(parent), BRANCHING));
        }
        level = next;
    }
    parents
}

fn offset(i: usize) -> Vec3 {
    Vec3::new(i as f32 * 0.001, 1.0, -(i as f32) * 0.002)
}

/// Global positions computed the obvious way, for the checks.
fn expected(parents: &[Option<usize>]) -> Vec<Vec3> {
    let mut globals: Vec<Vec3> = Vec::with_capacity(parents.len());
    for (i, parent) in parents.iter().enumerate() {
        let mut global = parent.map_or(Vec3::default(), |parent| globals[parent]);
        global += offset(i);
        globals.push(global);
    }
    globals
}

fn ecs_world(parents: &[Option<usize>]) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut entities = vec![Entity::PLACEHOLDER; parents.len()];
    for i in (0..parents.len()).rev() {
        entities[i] = world.spawn((LocalOffset(offset(i)), GlobalPosition(Vec3::default()))).id();
    }
    for (i, parent) in parents.iter().enumerate() {
        if let Some(parent) = parent {
            world.add_pair::<ChildOf>(entities[i], entities[*parent]);
        }
    }
    (world, entities)
}

fn ecs_propagate(world: &mut World, query: &mut QueryState<(&'static LocalOffset, &'static mut GlobalPosition)>) {
    query.propagate::<ChildOf, GlobalPosition>(world, |(local, mut global), parent| {
        let mut value = parent.map_or(Vec3::default(), |parent| parent.0);
        value += local.0;
        global.0 = value;
    });
}

struct HecsParent(hecs::Entity);
struct HecsChildren(Vec<hecs::Entity>);

fn hecs_world(parents: &[Option<usize>]) -> (hecs::World, Vec<hecs::Entity>) {
    let mut world = hecs::World::new();
    let mut entities = vec![hecs::Entity::DANGLING; parents.len()];
    for i in (0..parents.len()).rev() {
        entities[i] = world.spawn((LocalOffset(offset(i)), GlobalPosition(Vec3::default())));
    }
    let mut children: Vec<Vec<hecs::Entity>> = vec![Vec::new(); parents.len()];
    for (i, parent) in parents.iter().enumerate() {
        if let Some(parent) = parent {
            world.insert_one(entities[i], HecsParent(entities[*parent])).unwrap();
            children[*parent].push(entities[i]);
        }
    }
    for (i, list) in children.into_iter().enumerate() {
        if !list.is_empty() {
            world.insert_one(entities[i], HecsChildren(list)).unwrap();
        }
    }
    (world, entities)
}

fn hecs_visit(world: &hecs::World, entity: hecs::Entity, parent_global: Vec3) {
    let mut global = parent_global;
    global += world.get::<&LocalOffset>(entity).unwrap().0;
    world.get::<&mut GlobalPosition>(entity).unwrap().0 = global;
    if let Ok(children) = world.get::<&HecsChildren>(entity) {
        for &child in &children.0 {
            hecs_visit(world, child, global);
        }
    }
}

fn hecs_propagate(world: &mut hecs::World, roots: &mut Vec<hecs::Entity>) {
    roots.clear();
    roots.extend(
        world.query_mut::<hecs::Without<(hecs::Entity, &LocalOffset), &HecsParent>>().into_iter().map(|(e, _)| e),
    );
    for &root in roots.iter() {
        hecs_visit(world, root, Vec3::default());
    }
}

struct HandWritten {
    parents: Vec<u32>,
    locals: Vec<Vec3>,
    globals: Vec<Vec3>,
}

impl HandWritten {
    const ROOT: u32 = u32::MAX;

    fn new(parents: &[Option<usize>]) -> Self {
        HandWritten {
            parents: parents.iter().map(|parent| parent.map_or(Self::ROOT, |parent| parent as u32)).collect(),
            locals: (0..parents.len()).map(offset).collect(),
            globals: vec![Vec3::default(); parents.len()],
        }
    }

    fn propagate(&mut self) {
        for i in 0..self.parents.len() {
            let parent = self.parents[i];
            let mut global = if parent == Self::ROOT { Vec3::default() } else { self.globals[parent as usize] };
            global += self.locals[i];
            self.globals[i] = global;
        }
    }
}

fn bench(c: &mut Criterion) {
    let parents = tree();
    let expected = expected(&parents);
    let mut group = c.benchmark_group("propagate");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(30);

    group.bench_function("ecs", |b| {
        let (mut world, entities) = ecs_world(&parents);
        let mut query = world.query::<(&LocalOffset, &mut GlobalPosition)>();
        ecs_propagate(&mut world, &mut query);
        for (i, entity) in entities.iter().enumerate() {
            assert_eq!(world.get::<GlobalPosition>(*entity), Some(&GlobalPosition(expected[i])));
        }
        b.iter(|| ecs_propagate(black_box(&mut world), &mut query));
    });

    group.bench_function("hecs", |b| {
        let (mut world, entities) = hecs_world(&parents);
        let mut roots = Vec::new();
        hecs_propagate(&mut world, &mut roots);
        for (i, entity) in entities.iter().enumerate() {
            assert_eq!(world.get::<&GlobalPosition>(*entity).unwrap().0, expected[i]);
            let parent = world.get::<&HecsParent>(*entity).ok().map(|parent| parent.0);
            assert_eq!(parent, parents[i].map(|parent| entities[parent]));
        }
        b.iter(|| hecs_propagate(black_box(&mut world), &mut roots));
    });

    group.bench_function("hand_written", |b| {
        let mut store = HandWritten::new(&parents);
        store.propagate();
        assert_eq!(store.globals, expected);
        b.iter(|| black_box(&mut store).propagate());
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
