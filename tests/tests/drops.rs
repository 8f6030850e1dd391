//! Drop accounting: every component value is dropped exactly once, whether it
//! leaves by despawn, remove, overwrite, or the world's drop, in tables, sparse
//! sets and as zero-sized tags, including values moved between archetypes.

use ecs::prelude::*;
use ecs_tests::{DropLog, DropSparse, DropSparseTag, DropTable, DropTable2, DropTag, sparse_tag_drops, tag_drops};

#[derive(Component, Debug, PartialEq)]
struct Plain(u32);

#[derive(Component, Debug)]
struct Other;

/// Counts [`DropTag`] and [`DropSparseTag`] drops from the moment it is created.
struct TagCounter {
    table: usize,
    sparse: usize,
}

impl TagCounter {
    fn start() -> TagCounter {
        TagCounter { table: tag_drops(), sparse: sparse_tag_drops() }
    }

    fn table(&self) -> usize {
        tag_drops() - self.table
    }

    fn sparse(&self) -> usize {
        sparse_tag_drops() - self.sparse
    }
}

#[test]
fn despawn_drops_each_value_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag, DropSparseTag, log.table2(3))).id();
    let keep = world.spawn((log.table(10), log.sparse(11), DropTag, DropSparseTag, log.table2(12))).id();
    assert_eq!(log.count(), 0);
    assert_eq!((tags.table(), tags.sparse()), (0, 0));

    assert!(world.despawn(e));
    log.assert_dropped_once([1, 2, 3]);
    assert_eq!((tags.table(), tags.sparse()), (1, 1));
    assert!(!world.despawn(e));
    log.assert_dropped_once([1, 2, 3]);

    assert_eq!(world.get::<DropTable>(keep).map(|v| v.id), Some(10));
    assert_eq!(world.get::<DropSparse>(keep).map(|v| v.id), Some(11));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 10, 11, 12]);
    assert_eq!((tags.table(), tags.sparse()), (2, 2));
}

#[test]
fn despawn_swap_remove_does_not_drop_the_moved_row() {
    let log = DropLog::new();
    let mut world = World::new();
    let ids: Vec<Entity> = (0..5).map(|i| world.spawn((log.table(i), log.table2(100 + i))).id()).collect();
    world.despawn(ids[0]); // the last row moves into row 0
    log.assert_dropped_once([0, 100]);
    world.despawn(ids[2]);
    log.assert_dropped_once([0, 2, 100, 102]);
    for &i in &[1, 3, 4] {
        assert_eq!(world.get::<DropTable>(ids[i as usize]).map(|v| v.id), Some(i));
        assert_eq!(world.get::<DropTable2>(ids[i as usize]).map(|v| v.id), Some(100 + i));
    }
    world.check_invariants();
    drop(world);
    log.assert_dropped_once((0..5).chain(100..105));
}

#[test]
fn world_remove_returns_the_value_and_the_caller_drops_it() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag, DropSparseTag, Plain(0))).id();

    let table = world.remove::<DropTable>(e).unwrap();
    let sparse = world.remove::<DropSparse>(e).unwrap();
    let tag = world.remove::<DropTag>(e).unwrap();
    let sparse_tag = world.remove::<DropSparseTag>(e).unwrap();
    assert_eq!((table.id, sparse.id), (1, 2));
    assert_eq!(log.count(), 0, "removed values belong to the caller");
    assert_eq!((tags.table(), tags.sparse()), (0, 0));

    drop(table);
    log.assert_dropped_once([1]);
    drop(sparse);
    log.assert_dropped_once([1, 2]);
    drop((tag, sparse_tag));
    assert_eq!((tags.table(), tags.sparse()), (1, 1));

    assert!(world.remove::<DropTable>(e).is_none());
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2]);
    assert_eq!((tags.table(), tags.sparse()), (1, 1));
}

#[test]
fn removing_a_bundle_returns_every_value() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag, log.table2(3))).id();
    let (table, sparse, tag) = world.remove::<(DropTable, DropSparse, DropTag)>(e).unwrap();
    assert_eq!(log.count(), 0);
    assert_eq!(tags.table(), 0);
    assert_eq!((table.id, sparse.id), (1, 2));
    drop((table, sparse, tag));
    log.assert_dropped_once([1, 2]);
    assert_eq!(tags.table(), 1);
    assert_eq!(world.get::<DropTable2>(e).map(|v| v.id), Some(3));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
    assert_eq!(tags.table(), 1);
}

#[test]
fn entity_world_mut_remove_drops_and_take_returns() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag, DropSparseTag, log.table2(3))).id();
    world.entity_mut(e).remove::<DropTable>();
    log.assert_dropped_once([1]);
    world.entity_mut(e).remove::<(DropSparse, DropTag, DropSparseTag)>();
    log.assert_dropped_once([1, 2]);
    assert_eq!((tags.table(), tags.sparse()), (1, 1));
    let taken = world.entity_mut(e).take::<DropTable2>().unwrap();
    log.assert_dropped_once([1, 2]);
    drop(taken);
    log.assert_dropped_once([1, 2, 3]);
    world.entity_mut(e).remove::<DropTable>(); // absent: nothing to drop
    log.assert_dropped_once([1, 2, 3]);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
    assert_eq!((tags.table(), tags.sparse()), (1, 1));
}

#[test]
fn removing_a_partly_present_bundle_drops_the_present_values() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag)).id();
    // DropTable2 is missing: World::remove changes nothing, EntityWorldMut::remove
    // removes and drops the rest.
    assert!(world.remove::<(DropTable, DropTable2, DropTag)>(e).is_none());
    log.assert_dropped_once([]);
    world.entity_mut(e).remove::<(DropTable, DropTable2, DropTag)>();
    log.assert_dropped_once([1]);
    assert_eq!(tags.table(), 1);
    let f = world.spawn((log.table(3), DropSparseTag)).id();
    // table part present, sparse part missing
    assert!(world.remove::<(DropTable, DropSparse)>(f).is_none());
    log.assert_dropped_once([1]);
    world.entity_mut(f).remove::<(DropTable, DropSparse)>();
    log.assert_dropped_once([1, 3]);
    world.entity_mut(e).remove::<(DropSparse, DropSparseTag, Plain)>();
    log.assert_dropped_once([1, 2, 3]);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
    assert_eq!(tags.table(), 1);
    assert_eq!(tags.sparse(), 1, "f's sparse tag, dropped with the world");
}

#[test]
fn overwriting_drops_the_old_value_at_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2), DropTag, DropSparseTag)).id();
    world.insert(e, log.table(3));
    log.assert_dropped_once([1]);
    assert_eq!(world.get::<DropTable>(e).map(|v| v.id), Some(3));
    world.insert(e, log.sparse(4));
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.get::<DropSparse>(e).map(|v| v.id), Some(4));
    world.insert(e, (DropTag, DropSparseTag));
    assert_eq!((tags.table(), tags.sparse()), (1, 1), "one tag value of each kind was replaced");
    world.entity_mut(e).insert((log.table(5), log.table2(6)));
    log.assert_dropped_once([1, 2, 3]);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 5, 6]);
    assert_eq!((tags.table(), tags.sparse()), (2, 2));
}

#[test]
fn assigning_through_mut_drops_the_old_value() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = world.spawn((log.table(1), log.sparse(2))).id();
    *world.get_mut::<DropTable>(e).unwrap() = log.table(3);
    log.assert_dropped_once([1]);
    let mut q = world.query::<&mut DropSparse>();
    for mut value in q.iter_mut(&mut world) {
        *value = log.sparse(4);
    }
    log.assert_dropped_once([1, 2]);
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4]);
}

#[test]
fn values_moved_between_archetypes_are_not_dropped() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn((log.table(1), DropTag)).id();
    let others: Vec<Entity> = (10..20).map(|i| world.spawn((log.table(i), log.table2(i + 100))).id()).collect();
    for round in 0..5 {
        world.insert(e, Plain(round)); // move
        world.insert(e, Other); // move
        world.insert(e, log.sparse(50 + round)); // no move; replaces the previous sparse value after round 0
        world.remove::<Plain>(e); // move
        world.remove::<Other>(e); // move
        world.insert(e, log.table2(60 + round)); // move, or overwrite after round 0
    }
    log.assert_dropped_once([50, 51, 52, 53, 60, 61, 62, 63]);
    assert_eq!(tags.table(), 0, "the tag moved along with the entity");
    assert_eq!(world.get::<DropTable>(e).map(|v| v.id), Some(1));
    for (i, &other) in others.iter().enumerate() {
        world.remove::<DropTable2>(other); // drops
        assert_eq!(world.get::<DropTable>(other).map(|v| v.id), Some(10 + i as u32));
    }
    log.assert_dropped_once([50, 51, 52, 53, 60, 61, 62, 63].into_iter().chain(110..120));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 54, 64].into_iter().chain(50..54).chain(60..64).chain(10..20).chain(110..120));
    assert_eq!(tags.table(), 1);
}

#[test]
fn dropping_the_world_drops_everything_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let mut expected = Vec::new();
    for i in 0..3000u32 {
        let mut view = world.spawn(log.table(i));
        expected.push(i);
        if i % 2 == 0 {
            view.insert(log.sparse(10_000 + i));
            expected.push(10_000 + i);
        }
        if i % 3 == 0 {
            view.insert(DropTag);
        }
        if i % 5 == 0 {
            view.insert((log.table2(20_000 + i), DropSparseTag));
            expected.push(20_000 + i);
        }
    }
    world.insert_resource(Holder(log.table(99_999)));
    expected.push(99_999);
    world.check_invariants();
    assert_eq!(log.count(), 0);
    drop(world);
    log.assert_dropped_once(expected);
    assert_eq!(tags.table(), 1000);
    assert_eq!(tags.sparse(), 600);
}

#[derive(Resource)]
struct Holder(DropTable);

#[test]
fn resources_are_dropped_once() {
    let log = DropLog::new();
    let mut world = World::new();
    world.insert_resource(Holder(log.table(1)));
    world.insert_resource(Holder(log.table(2))); // replaces: the old one is dropped
    log.assert_dropped_once([1]);
    let removed = world.remove_resource::<Holder>().unwrap();
    assert_eq!(removed.0.id, 2);
    log.assert_dropped_once([1]);
    drop(removed);
    log.assert_dropped_once([1, 2]);
    world.insert_resource(Holder(log.table(3)));
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

#[test]
fn spawn_batch_values_are_dropped_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..100).map(|i| (log.table(i), log.sparse(1000 + i), DropTag))).collect();
    assert_eq!(log.count(), 0);
    for &e in ids.iter().take(10) {
        world.despawn(e);
    }
    log.assert_dropped_once((0..10).chain(1000..1010));
    assert_eq!(tags.table(), 10);
    // a batch dropped before being consumed still spawns (and later drops) its values
    let mut batch = world.spawn_batch((200..210).map(|i| log.table(i)));
    batch.next();
    drop(batch);
    assert_eq!(log.count(), 20);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once((0..100).chain(1000..1100).chain(200..210));
    assert_eq!(tags.table(), 100);
}

#[test]
fn inserting_into_a_dead_entity_drops_the_bundle() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    assert!(!world.insert(e, (log.table(1), log.sparse(2), DropTag)));
    log.assert_dropped_once([1, 2]);
    assert_eq!(tags.table(), 1);
    drop(world);
    log.assert_dropped_once([1, 2]);
}

#[test]
fn queries_do_not_drop_values() {
    let log = DropLog::new();
    let mut world = World::new();
    for i in 0..10 {
        world.spawn((log.table(i), log.sparse(100 + i)));
    }
    let mut q = world.query::<(&DropTable, Option<&DropSparse>)>();
    let total: u32 = q.iter(&world).map(|(t, s)| t.id + s.map_or(0, |s| s.id)).sum();
    assert_eq!(total, (0..10).map(|i| 100 + 2 * i).sum::<u32>());
    let mut q = world.query::<(&mut DropTable, &mut DropSparse)>();
    for (mut table, sparse) in q.iter_mut(&mut world) {
        table.id += sparse.id;
    }
    assert_eq!(log.count(), 0);
    drop(world);
    log.assert_dropped_once((100..110).map(|i| i + (i - 100)).chain(100..110));
}

#[test]
fn random_churn_drops_every_value_exactly_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    let mut world = World::new();
    let mut alive: Vec<Entity> = Vec::new();
    let mut created = Vec::new();
    let mut tag_values = 0;
    let mut fresh = 0u32;
    let mut id = || {
        fresh += 1;
        fresh
    };
    let mut kept_outside = Vec::new();
    for _ in 0..3000 {
        let pick = |n: u64, alive: &[Entity]| alive[(n % alive.len() as u64) as usize];
        match next(8) {
            0 | 1 => {
                let (a, b) = (id(), id());
                created.extend([a, b]);
                alive.push(world.spawn((log.table(a), log.sparse(b))).id());
            }
            2 if !alive.is_empty() => {
                let a = id();
                created.push(a);
                world.insert(pick(next(1 << 20), &alive), log.table2(a));
            }
            3 if !alive.is_empty() => {
                tag_values += 1;
                world.insert(pick(next(1 << 20), &alive), DropTag);
            }
            4 if !alive.is_empty() => {
                if let Some(value) = world.remove::<DropTable>(pick(next(1 << 20), &alive)) {
                    kept_outside.push(value);
                }
            }
            5 if !alive.is_empty() => {
                world.entity_mut(pick(next(1 << 20), &alive)).remove::<(DropSparse, DropTag)>();
            }
            6 if !alive.is_empty() => {
                let a = id();
                created.push(a);
                world.insert(pick(next(1 << 20), &alive), log.sparse(a));
            }
            7 if !alive.is_empty() => {
                let index = (next(1 << 20) % alive.len() as u64) as usize;
                assert!(world.despawn(alive.swap_remove(index)));
            }
            _ => {}
        }
    }
    world.check_invariants();
    let outside: Vec<u32> = kept_outside.iter().map(|v| v.id).collect();
    assert!(log.dropped().iter().all(|dropped| !outside.contains(dropped)));
    drop(world);
    drop(kept_outside);
    log.assert_dropped_once(created);
    assert_eq!(tags.table(), tag_values);
}

/// Same layout as [`DropTable`] (a `u32` and a pointer), but its drop records
/// nothing: dropped with `DropTable`'s drop fn instead, a value would be logged
/// (or crash on a `None`).
#[derive(Component, Debug)]
struct SilentTable {
    id: u32,
    _log: Option<DropLog>,
}

#[test]
fn a_recycled_archetype_slot_drops_with_the_new_archetypes_types() {
    let log = DropLog::new();
    let mut world = World::new();
    // The archetypes children pass through before their pair is added exist
    // already, so the pair archetypes below are the only new ones.
    world.spawn(SilentTable { id: 0, _log: None });
    world.spawn((Plain(0), log.table2(0)));
    // A parent's children archetype, deleted with the parent: its slot keeps
    // the emptied table.
    let parent = world.spawn_empty().id();
    let child = world.spawn(log.table(1)).add_pair::<ChildOf>(parent).id();
    let deleted = world.entities().location(child).unwrap().archetype;
    assert!(world.despawn(parent));
    assert!(!world.is_alive(child));
    log.assert_dropped_once([1]);
    assert!(world.archetypes().is_dead(deleted));
    world.check_invariants();

    // The next archetype of the same shape reuses the slot and its buffers, and
    // drops its values as its own type.
    let parent = world.spawn_empty().id();
    let children: Vec<Entity> =
        (0..3).map(|i| world.spawn(SilentTable { id: 10 + i, _log: None }).add_pair::<ChildOf>(parent).id()).collect();
    assert_eq!(world.entities().location(children[0]).unwrap().archetype, deleted, "the slot is reused");
    assert_eq!(world.get::<SilentTable>(children[2]).map(|v| v.id), Some(12));
    world.entity_mut(children[0]).insert(SilentTable { id: 20, _log: Some(log.clone()) });
    assert!(world.despawn(parent));
    log.assert_dropped_once([1]);
    world.check_invariants();

    // A different shape in the same slot starts from a fresh table.
    let parent = world.spawn_empty().id();
    let child = world.spawn((Plain(7), log.table2(30))).add_pair::<ChildOf>(parent).id();
    assert_eq!(world.entities().location(child).unwrap().archetype, deleted, "the slot is reused again");
    assert_eq!(world.get::<Plain>(child), Some(&Plain(7)));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([0, 1, 30]);
}

/// A pair value carrying a drop-logged value.
#[derive(Relationship)]
struct Owes(#[allow(dead_code)] DropTable);

/// An exclusive one.
#[derive(Relationship)]
#[relationship(exclusive)]
struct OwesOne(#[allow(dead_code)] DropTable);

/// Pair values of a spawn bundle placed with it in one move are dropped once:
/// at despawn, when replaced by a later pair of the same bundle (a repeated
/// pair, an exclusive relationship's second target), and with the world.
#[test]
fn pair_values_of_a_spawned_bundle_are_dropped_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((log.table(1), Owes(log.table(2)).pair(a), OwesOne(log.table(3)).pair(a))).id();
    log.assert_dropped_once([]);
    let f = world.spawn((Owes(log.table(4)).pair(b), Owes(log.table(5)).pair(b))).id();
    log.assert_dropped_once([4]);
    let g = world.spawn((OwesOne(log.table(6)).pair(a), OwesOne(log.table(7)).pair(b))).id();
    log.assert_dropped_once([4, 6]);
    assert!(world.has_pair::<OwesOne>(g, b) && !world.has_pair::<OwesOne>(g, a));
    world.despawn(e);
    log.assert_dropped_once([1, 2, 3, 4, 6]);
    world.despawn(a); // g's pairs target b only
    assert!(world.is_alive(g) && world.is_alive(f));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 5, 6, 7]);
}

/// A cleanup that despawns every entity of an archetype (a parent's children)
/// frees them and then clears their table at once: each table value, tag and
/// sparse value is still dropped exactly once, the rows of other tables (a
/// survivor sharing the children's components, another parent's children)
/// keep theirs, and the emptied archetype goes.
#[test]
fn despawning_a_parent_clears_its_childrens_table_dropping_each_value_once() {
    let log = DropLog::new();
    let tags = TagCounter::start();
    let mut world = World::new();
    let parent = world.spawn(log.table(100)).id();
    let other_parent = world.spawn_empty().id();
    let children: Vec<Entity> = (0..5)
        .map(|i| world.spawn((log.table(i), log.sparse(10 + i), DropTag)).add_pair::<ChildOf>(parent).id())
        .collect();
    let grandchild = world.spawn(log.table2(50)).add_pair::<ChildOf>(children[2]).id();
    let survivor = world.spawn((log.table(200), log.sparse(201), DropTag)).id();
    let cousin = world.spawn((log.table(300), log.sparse(301), DropTag)).add_pair::<ChildOf>(other_parent).id();
    let children_archetype = world.entities().location(children[0]).unwrap().archetype;

    assert!(world.despawn(parent));
    for &e in children.iter().chain([&grandchild]) {
        assert!(!world.is_alive(e), "{e:?} outlived its ancestor");
    }
    log.assert_dropped_once([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 50, 100]);
    assert_eq!(tags.table(), 5);
    assert!(world.archetypes().is_dead(children_archetype));
    for (e, table, sparse) in [(survivor, 200, 201), (cousin, 300, 301)] {
        assert_eq!(world.get::<DropTable>(e).map(|v| v.id), Some(table));
        assert_eq!(world.get::<DropSparse>(e).map(|v| v.id), Some(sparse));
        assert!(world.has::<DropTag>(e));
    }
    world.check_invariants();

    // The freed ids and the recycled slot serve new entities as usual.
    let parent = world.spawn_empty().id();
    let child = world.spawn((log.table(400), log.sparse(401), DropTag)).add_pair::<ChildOf>(parent).id();
    assert_eq!(world.get::<DropTable>(child).map(|v| v.id), Some(400));
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 50, 100, 200, 201, 300, 301, 400, 401]);
    assert_eq!(tags.table(), 8);
}
