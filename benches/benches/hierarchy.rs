//! `hierarchy`: build 1,000 parents with 10 children each, every child attached
//! to its parent with `ChildOf`, then despawn every parent recursively (which
//! despawns its children too). Each iteration measures the whole build +
//! despawn round on one long-lived world per peer, so the world is empty again
//! at the end of every iteration and every peer pays for the same work: 11,000
//! spawns, 10,000 parent links and 11,000 despawns.
//!
//! * `ecs`: `add_pair::<ChildOf>(parent)`; `World::despawn(parent)` deletes the
//!   children through `ChildOf`'s `on_delete_target = "delete"` policy. Every
//!   parent's children share a table of their own (pairs fragment), which the
//!   despawn deletes again.
//! * `ecs_bundle`: the same `ChildOf` pairs given in the spawn's bundle
//!   (`spawn(ChildOf.pair(parent))`, the form of bevy's `spawn(ChildOf(parent))`):
//!   each child is placed once, in its parent's table, without a move.
//! * `ecs_union`: the same links as a union relationship (`ParentLink`:
//!   `#[relationship(union, on_delete_target = "delete")]`), the parent
//!   pointer as a non-fragmenting pair: every child sits in one table whatever
//!   its parent, so no per-parent archetype is created and deleted. `ChildOf`
//!   itself stays fragmenting.
//! * `bevy_ecs`: its built-in `ChildOf(parent)` relationship component, whose
//!   hooks keep the parent's `Children` list; `World::despawn(parent)` despawns
//!   the `Children` (a linked spawn).
//! * `hecs`: no relationships, so hand-rolled the usual way: children carry
//!   `Parent(Entity)`, the parent a `Children(Vec<Entity>)`; the despawn takes
//!   the list, despawns the children, then the parent.
//! * `shipyard`: no relationships either (nor a built-in hierarchy), so
//!   hand-rolled like `hecs`: children carry `ShipyardParent(EntityId)`, the
//!   parent a `ShipyardChildren(Vec<EntityId>)`; the despawn removes the list,
//!   deletes the children, then the parent.
//! * `hand_written`: a plain `Vec`-based entity store (free list, parent index,
//!   children lists): the floor of what the bookkeeping costs.
//!
//! Target (issue 7): `ecs` at or below 600 µs (median). Earlier target: `ecs`
//! faster than `bevy_ecs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;

/// How many parents each iteration builds and despawns.
const PARENTS: usize = 1_000;
/// How many children each parent gets.
const CHILDREN_PER_PARENT: usize = 10;
/// Every entity of one round: parents and children.
const TOTAL: usize = PARENTS * (1 + CHILDREN_PER_PARENT);

/// Builds the hierarchy in `world`, leaving the parents in `parents`.
fn ecs_build(world: &mut World, parents: &mut Vec<Entity>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.spawn_empty().id();
        for _ in 0..CHILDREN_PER_PARENT {
            world.spawn_empty().add_pair::<ChildOf>(parent);
        }
        parents.push(parent);
    }
}

/// Builds the hierarchy with the parent link in the spawn's bundle
/// (`spawn(ChildOf.pair(parent))`, bevy's `spawn(ChildOf(parent))`): each
/// child is placed once, in its parent's table.
fn ecs_bundle_build(world: &mut World, parents: &mut Vec<Entity>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.spawn_empty().id();
        for _ in 0..CHILDREN_PER_PARENT {
            world.spawn(ChildOf.pair(parent));
        }
        parents.push(parent);
    }
}

/// Despawns every parent; `ChildOf`'s cleanup policy despawns the children.
fn ecs_despawn(world: &mut World, parents: &[Entity]) {
    for &parent in parents {
        assert!(world.despawn(parent));
    }
}

/// The parent link of `ecs_union`: a union (non-fragmenting) relationship
/// whose children are deleted with their parent.
#[derive(Relationship)]
#[relationship(union, on_delete_target = "delete")]
struct ParentLink;

/// Builds the hierarchy with the union `ParentLink`, leaving the parents in
/// `parents`.
fn ecs_union_build(world: &mut World, parents: &mut Vec<Entity>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.spawn_empty().id();
        for _ in 0..CHILDREN_PER_PARENT {
            world.spawn_empty().add_pair::<ParentLink>(parent);
        }
        parents.push(parent);
    }
}

/// Builds the hierarchy with bevy's `ChildOf`, leaving the parents in `parents`.
fn bevy_build(world: &mut bevy_ecs::world::World, parents: &mut Vec<bevy_ecs::entity::Entity>) {
    use bevy_ecs::hierarchy::ChildOf;
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.spawn_empty().id();
        for _ in 0..CHILDREN_PER_PARENT {
            world.spawn(ChildOf(parent));
        }
        parents.push(parent);
    }
}

/// Despawns every parent; bevy despawns the linked `Children`.
fn bevy_despawn(world: &mut bevy_ecs::world::World, parents: &[bevy_ecs::entity::Entity]) {
    for &parent in parents {
        assert!(world.despawn(parent));
    }
}

/// The `hecs` child's link to its parent.
struct HecsParent(hecs::Entity);

/// The `hecs` parent's list of children.
struct HecsChildren(Vec<hecs::Entity>);

/// Builds the hand-rolled hierarchy: children with `HecsParent`, then the
/// parent's `HecsChildren` list.
fn hecs_build(world: &mut hecs::World, parents: &mut Vec<hecs::Entity>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.spawn(());
        let children: Vec<hecs::Entity> =
            (0..CHILDREN_PER_PARENT).map(|_| world.spawn((HecsParent(parent),))).collect();
        world.insert_one(parent, HecsChildren(children)).unwrap();
        parents.push(parent);
    }
}

/// Despawns each parent's children, then the parent.
fn hecs_despawn(world: &mut hecs::World, parents: &[hecs::Entity]) {
    for &parent in parents {
        let children = world.remove_one::<HecsChildren>(parent).unwrap();
        for child in children.0 {
            world.despawn(child).unwrap();
        }
        world.despawn(parent).unwrap();
    }
}

/// The `shipyard` child's link to its parent.
#[derive(shipyard::Component)]
struct ShipyardParent(shipyard::EntityId);

/// The `shipyard` parent's list of children.
#[derive(shipyard::Component)]
struct ShipyardChildren(Vec<shipyard::EntityId>);

/// Builds the hand-rolled hierarchy: children with `ShipyardParent`, then the
/// parent's `ShipyardChildren` list.
fn shipyard_build(world: &mut shipyard::World, parents: &mut Vec<shipyard::EntityId>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = world.add_entity(());
        let children: Vec<shipyard::EntityId> =
            (0..CHILDREN_PER_PARENT).map(|_| world.add_entity((ShipyardParent(parent),))).collect();
        world.add_component(parent, (ShipyardChildren(children),));
        parents.push(parent);
    }
}

/// Deletes each parent's children, then the parent.
fn shipyard_despawn(world: &mut shipyard::World, parents: &[shipyard::EntityId]) {
    for &parent in parents {
        let (children,) = world.remove::<(ShipyardChildren,)>(parent);
        for child in children.unwrap().0 {
            assert!(world.delete_entity(child));
        }
        assert!(world.delete_entity(parent));
    }
}

/// The number of live `shipyard` entities.
fn shipyard_len(world: &shipyard::World) -> usize {
    world.borrow::<shipyard::EntitiesView>().unwrap().iter().count()
}

/// A minimal `Vec`-based entity store with a parent link per entity and a
/// children list per parent (no components, no generations checks beyond the
/// alive flags): the baseline.
#[derive(Default)]
struct HandWritten {
    alive: Vec<bool>,
    parent: Vec<u32>,
    children: Vec<Vec<u32>>,
    free: Vec<u32>,
    len: usize,
}

impl HandWritten {
    /// The "no parent" marker.
    const NONE: u32 = u32::MAX;

    /// A new entity, reusing a free slot first.
    fn spawn(&mut self, parent: u32) -> u32 {
        self.len += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.alive.push(false);
                self.parent.push(Self::NONE);
                self.children.push(Vec::new());
                (self.alive.len() - 1) as u32
            }
        };
        self.alive[id as usize] = true;
        self.parent[id as usize] = parent;
        if parent != Self::NONE {
            self.children[parent as usize].push(id);
        }
        id
    }

    /// Despawns `id` and its descendants.
    fn despawn_recursive(&mut self, id: u32) {
        let mut children = std::mem::take(&mut self.children[id as usize]);
        for &child in &children {
            self.despawn_recursive(child);
        }
        children.clear();
        self.children[id as usize] = children;
        self.alive[id as usize] = false;
        self.parent[id as usize] = Self::NONE;
        self.free.push(id);
        self.len -= 1;
    }
}

/// Builds the baseline hierarchy, leaving the parents in `parents`.
fn hand_written_build(store: &mut HandWritten, parents: &mut Vec<u32>) {
    parents.clear();
    for _ in 0..PARENTS {
        let parent = store.spawn(HandWritten::NONE);
        for _ in 0..CHILDREN_PER_PARENT {
            store.spawn(parent);
        }
        parents.push(parent);
    }
}

/// Despawns every parent of the baseline with its children.
fn hand_written_despawn(store: &mut HandWritten, parents: &[u32]) {
    for &parent in parents {
        store.despawn_recursive(parent);
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchy");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);

    group.bench_function("ecs", |b| {
        let mut world = World::new();
        let mut parents = Vec::with_capacity(PARENTS);
        ecs_build(&mut world, &mut parents);
        assert_eq!(world.entity_count(), TOTAL);
        assert!(parents.iter().all(|&parent| world.children(parent).count() == CHILDREN_PER_PARENT));
        let children: Vec<Entity> = world.children(parents[0]).collect();
        ecs_despawn(&mut world, &parents);
        assert_eq!(world.entity_count(), 0);
        assert!(children.iter().all(|&child| !world.is_alive(child)));

        b.iter(|| {
            ecs_build(&mut world, &mut parents);
            ecs_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(world.entity_count(), 0);
    });

    group.bench_function("ecs_bundle", |b| {
        let mut world = World::new();
        let mut parents = Vec::with_capacity(PARENTS);
        ecs_bundle_build(&mut world, &mut parents);
        assert_eq!(world.entity_count(), TOTAL);
        assert!(parents.iter().all(|&parent| world.children(parent).count() == CHILDREN_PER_PARENT));
        ecs_despawn(&mut world, &parents);
        assert_eq!(world.entity_count(), 0);

        b.iter(|| {
            ecs_bundle_build(&mut world, &mut parents);
            ecs_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(world.entity_count(), 0);
    });

    group.bench_function("ecs_union", |b| {
        let mut world = World::new();
        let mut parents = Vec::with_capacity(PARENTS);
        ecs_union_build(&mut world, &mut parents);
        assert_eq!(world.entity_count(), TOTAL);
        assert!(parents.iter().all(|&parent| world.sources::<ParentLink>(parent).count() == CHILDREN_PER_PARENT));
        let children: Vec<Entity> = world.sources::<ParentLink>(parents[0]).collect();
        ecs_despawn(&mut world, &parents);
        assert_eq!(world.entity_count(), 0);
        assert!(children.iter().all(|&child| !world.is_alive(child)));

        b.iter(|| {
            ecs_union_build(&mut world, &mut parents);
            ecs_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(world.entity_count(), 0);
    });

    group.bench_function("bevy_ecs", |b| {
        use bevy_ecs::hierarchy::Children;
        let mut world = bevy_ecs::world::World::new();
        // A new bevy world already holds entities of its own (resources).
        let base = world.entity_count();
        let mut parents = Vec::with_capacity(PARENTS);
        bevy_build(&mut world, &mut parents);
        assert_eq!((world.entity_count() - base) as usize, TOTAL);
        assert!(parents.iter().all(|&parent| world.get::<Children>(parent).unwrap().len() == CHILDREN_PER_PARENT));
        let children: Vec<bevy_ecs::entity::Entity> = world.get::<Children>(parents[0]).unwrap().to_vec();
        bevy_despawn(&mut world, &parents);
        assert_eq!(world.entity_count(), base);
        assert!(children.iter().all(|&child| world.get_entity(child).is_err()));

        b.iter(|| {
            bevy_build(&mut world, &mut parents);
            bevy_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(world.entity_count(), base);
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        let mut parents = Vec::with_capacity(PARENTS);
        hecs_build(&mut world, &mut parents);
        assert_eq!(world.len() as usize, TOTAL);
        let children = world.get::<&HecsChildren>(parents[0]).unwrap().0.clone();
        assert_eq!(children.len(), CHILDREN_PER_PARENT);
        assert!(children.iter().all(|&child| world.get::<&HecsParent>(child).unwrap().0 == parents[0]));
        hecs_despawn(&mut world, &parents);
        assert_eq!(world.len(), 0);
        assert!(children.iter().all(|&child| !world.contains(child)));

        b.iter(|| {
            hecs_build(&mut world, &mut parents);
            hecs_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(world.len(), 0);
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{Get, View};
        let mut world = shipyard::World::new();
        let mut parents = Vec::with_capacity(PARENTS);
        shipyard_build(&mut world, &mut parents);
        assert_eq!(shipyard_len(&world), TOTAL);
        let children = world.run(|lists: View<ShipyardChildren>| lists.get(parents[0]).unwrap().0.clone());
        assert_eq!(children.len(), CHILDREN_PER_PARENT);
        let links = world.run(|links: View<ShipyardParent>| {
            children.iter().all(|&child| links.get(child).is_ok_and(|link| link.0 == parents[0]))
        });
        assert!(links);
        shipyard_despawn(&mut world, &parents);
        assert_eq!(shipyard_len(&world), 0);
        assert!(children.iter().all(|&child| !world.is_entity_alive(child)));

        b.iter(|| {
            shipyard_build(&mut world, &mut parents);
            shipyard_despawn(&mut world, black_box(&parents));
        });
        assert_eq!(shipyard_len(&world), 0);
    });

    group.bench_function("hand_written", |b| {
        let mut store = HandWritten::default();
        let mut parents = Vec::with_capacity(PARENTS);
        hand_written_build(&mut store, &mut parents);
        assert_eq!(store.len, TOTAL);
        assert!(parents.iter().all(|&parent| store.children[parent as usize].len() == CHILDREN_PER_PARENT));
        hand_written_despawn(&mut store, &parents);
        assert_eq!(store.len, 0);
        assert!(store.alive.iter().all(|alive| !alive));

        b.iter(|| {
            hand_written_build(&mut store, &mut parents);
            hand_written_despawn(&mut store, black_box(&parents));
        });
        assert_eq!(store.len, 0);
    });

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
