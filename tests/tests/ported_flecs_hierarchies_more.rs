//! More tests ported from Flecs' `test/core/src/Hierarchies.c`: the tests that
//! `ported_flecs_hierarchies.rs`, `ported_flecs_names.rs` and
//! `ported_flecs_prefabs_more.rs` did not port yet, plus deeper variants of the
//! suite's themes (delete cascades with drop counts, reparenting, children
//! iteration, depth, `ChildOf` with prefabs, deferred hierarchy operations),
//! rewritten against API.md ("Relationships"; "Prefabs, toggles, unions, names").
//!
//! Translation: `ecs_new_w_pair(EcsChildOf, p)` is `spawn(ChildOf.pair(p))`;
//! `ecs_get_target(.., EcsChildOf, 0)` / `ecs_get_parent` are `World::target` /
//! `World::parent`; `ecs_children` is `World::children`; `ecs_get_path` is
//! `World::path`; `ecs_lookup` is `World::lookup`; `ecs_get_type(e)->count` is
//! `World::ids_of(e).len()`; `ecs_defer_begin/end` is a `Commands` batch in
//! `run_system_once`; destructors are counted with `ecs_tests::DropLog`.
//! Flecs' `.` separator is `::` here, so Flecs' escaped `\.` is an escaped
//! `::`, written `\:\:` by `World::path` (a colon touching another colon or an
//! end of the name is escaped).
//!
//! Ported (Flecs name -> test): `get_object_from_0`, `delete_children`,
//! `delete_child`, `delete_2_children`, `delete_tree_2_levels`,
//! `delete_tree_3_levels`, `tree_iter_1_table` (order), `tree_iter_2_tables`
//! (order), `path_core` / `fullpath_for_core` (a component's path),
//! `path_escaped_two_sep`, `path_escaped_two_consecutive_sep`,
//! `path_escaped_sep_at_begin`, `path_escaped_sep_at_end`,
//! `path_escaped_sep_w_parent`, `path_only_escaped_sep`,
//! `path_only_escaped_sep_w_parent`, `path_only_escaped_two_sep`,
//! `path_only_escaped_two_sep_w_parent`, `long_name_depth_1`,
//! `new_from_path_depth_0/1/2` (type counts), `add_path_depth_0/1/2`,
//! `add_path_existing_*` (adapted, see below), `add_root_path_to_child`,
//! `add_parent_path_from_root_to_child`, `add_path_w_sep_null_path`,
//! `ensure_child_alive_after_deleting_prev_parent` (built-in `ChildOf`), and
//! `recreated_parent_w_named_children` (adapted: no `#id` paths).
//! Beyond the suite's own tests, in its spirit: wide, deep (20 000 levels) and
//! thousand-child cascades with drop counts; cascades through `BoundTo`,
//! `Guards` (refused as a whole), union pairs, `Disabled` children and
//! prefabs in a deleted folder; children order and counts after archetype
//! moves; depth and `Up<ChildOf, _>` after reparenting (cached queries too);
//! deferred hierarchy batches; ChildOf observers on reparenting; names
//! written in place; stale parent handles.
//!
//! Findings: none. Every ported assertion holds.
//!
//! Deliberate differences (documented; adapted):
//! * Sibling names are unique (API.md): Flecs 4's `add_path_existing_*` let a
//!   second entity take a name a sibling has; here that is refused with
//!   `NameError::Taken` (or a panic for an inserted `Name`) and nothing changes.
//!   The tests check the refusal, and that the name can be taken once its owner
//!   lets it go.
//! * `new_from_path` / `add_path` (create or find the entities of a path) have
//!   no counterpart: the path is built with `spawn((Name, ChildOf))` and the
//!   tests check what Flecs checks of the result (names, parents, type counts,
//!   paths, lookups).
//! * Deferred operations on an entity that died earlier in the batch: Flecs
//!   ignores them; here `EntityCommands::insert` panics (documented), so the
//!   tests use `try_insert`.
//! * `delete_children` / `delete_child` check `ecs_exists` (the index is still
//!   in use by a dead id); here a stale handle is checked instead: not alive,
//!   no values, no children, and a recycled index is a different entity.
//!
//! Not ported (no counterpart): scopes (`empty_scope`, `scope_set*`,
//! `lookup_in_parent_from_scope`, `lookup_in_root_from_scope`,
//! `scope_component*`, `add_path_from_scope*`: there is no `ecs_set_scope`);
//! custom separators and prefixes (`path_custom_*`, `lookup_custom_*`,
//! `path_prefix_rel_*`, `path_core_w_prefix`, `path_core_w_empty_prefix`,
//! `path_w_buf`: paths are always `::` with no prefix); builtin entities'
//! names (`path_this_w_empty_prefix`, `path_wildcard_w_empty_prefix`,
//! `path_any_w_empty_prefix`, `tree_iter_parent_0`: no `flecs.core` module
//! and no "children of 0"); relative paths (`rel_path_*`, `lookup_self`: no
//! `path_from` / `lookup_from` with a path); get-or-create by path
//! (`new_from_path_existing_*`); `#id` paths (`path_w_entity_id`,
//! `lookup_entity_id`); `setup`. Tests already ported elsewhere are listed in
//! the headers of the files named above.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use ecs::entity::Id;
use ecs::prelude::*;
use ecs::world::NameError;
use ecs_tests::{DropLog, panic_message};

// ----- components and relationships ---------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component)]
struct TagA;

/// Default cleanup: pairs to a dead target are removed.
#[derive(Relationship, Debug)]
struct Likes;

/// Holders are deleted with their target.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct BoundTo;

/// A target cannot be despawned while it is guarded.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Guards;

type Log = Arc<Mutex<Vec<String>>>;

// ----- helpers ---------------------------------------------------------------------------

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

fn named(world: &mut World, name: &str) -> Entity {
    world.spawn(Name::new(name.to_owned())).id()
}

fn named_child(world: &mut World, name: &str, parent: Entity) -> Entity {
    world.spawn((Name::new(name.to_owned()), ChildOf.pair(parent))).id()
}

fn name_of(world: &World, e: Entity) -> Option<&str> {
    world.get::<Name>(e).map(Name::as_str)
}

fn id_count(world: &World, e: Entity) -> usize {
    world.ids_of(e).expect("alive").len()
}

fn child_of_id(world: &World, parent: Entity) -> Id {
    Id::pair(world.component_id::<ChildOf>().expect("ChildOf is built in"), parent)
}

fn name_id(world: &mut World) -> Id {
    world.register_component::<Name>().id()
}

// ===== get_target / parent =====================================================================

/// Hierarchies_get_object_from_0: Flecs aborts on entity 0; a dead handle has no parent, children or path.
#[test]
fn get_object_from_0_a_dead_entity_has_no_parent_children_or_path() {
    let mut world = World::new();
    let parent = named(&mut world, "P");
    let child = named_child(&mut world, "C", parent);
    let gc = world.spawn(ChildOf.pair(child)).id();
    world.despawn(child);
    assert!(!world.is_alive(gc));
    assert_eq!(world.target::<ChildOf>(child), None);
    assert_eq!(world.parent(child), None);
    assert_eq!(world.children(child).count(), 0);
    assert_eq!(world.ancestors(child).count(), 0);
    assert_eq!(world.descendants(child).count(), 0);
    assert_eq!(world.path(child), None);
    assert_eq!(world.lookup_child(child, "anything"), None);
    assert_eq!(world.children(parent).count(), 0);
}

// ===== delete cascades ========================================================================

/// Hierarchies_delete_children: the child of a deleted parent is not alive; its stale handle reads nothing.
#[test]
fn delete_children_leaves_a_stale_child_handle() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1), Position { x: 1.0, y: 2.0 })).id();
    assert!(world.despawn(parent));
    assert!(!world.is_alive(child));
    assert!(world.get_entity(child).is_none());
    assert_eq!(world.get::<Position>(child), None);
    assert!(!world.despawn(child), "already dead");
    log.assert_dropped_once([1]);
    // The recycled index is a new entity: not the child, not a child of anything.
    let fresh = world.spawn_empty().id();
    let fresh2 = world.spawn_empty().id();
    for e in [fresh, fresh2] {
        assert_ne!(e, child);
        assert_ne!(e, parent);
        assert_eq!(world.parent(e), None);
        assert_eq!(world.ids_of(e), Some(&[][..]));
    }
    assert!(!world.is_alive(child) && !world.is_alive(parent));
    world.check_invariants();
}

/// Hierarchies_delete_child: parent and child are both gone and nothing else is counted.
#[test]
fn delete_child_kills_parent_and_child() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    assert_eq!(id_count(&world, child), 1);
    assert_eq!(world.entity_count(), 2);
    assert!(world.despawn(parent));
    assert!(!world.is_alive(parent) && !world.is_alive(child));
    assert_eq!(world.entity_count(), 0);
    assert!(!world.despawn(parent));
    world.check_invariants();
}

/// Hierarchies_delete_2_children: both children die, each value dropped once.
#[test]
fn delete_2_children_drops_each_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let c1 = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let c2 = world.spawn((ChildOf.pair(parent), log.table(2))).id();
    let other = world.spawn(log.table(3)).id();
    assert!(world.despawn(parent));
    assert!(!world.is_alive(parent) && !world.is_alive(c1) && !world.is_alive(c2));
    assert!(world.is_alive(other));
    log.assert_dropped_once([0, 1, 2]);
    assert_eq!(world.entity_count(), 1);
}

/// Hierarchies_delete_tree_2_levels: a grandchild dies with its grandparent.
#[test]
fn delete_tree_2_levels_drops_every_level_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let grand_child = world.spawn((ChildOf.pair(child), log.table(2))).id();
    assert!(world.despawn(parent));
    for e in [parent, child, grand_child] {
        assert!(!world.is_alive(e), "{e:?}");
    }
    log.assert_dropped_once([0, 1, 2]);
    world.check_invariants();
}

/// Hierarchies_delete_tree_3_levels: a great-grandchild dies with the root.
#[test]
fn delete_tree_3_levels_drops_every_level_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let grand_child = world.spawn((ChildOf.pair(child), log.table(2))).id();
    let great = world.spawn((ChildOf.pair(grand_child), log.table(3), Position::default())).id();
    assert!(world.despawn(parent));
    for e in [parent, child, grand_child, great] {
        assert!(!world.is_alive(e), "{e:?}");
    }
    log.assert_dropped_once([0, 1, 2, 3]);
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    world.check_invariants();
}

/// delete_tree_3_levels, wide: a root with three children of three children each, values in two column types.
#[test]
fn delete_wide_tree_drops_every_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let root = world.spawn(log.table(0)).id();
    let mut expected = vec![0];
    let mut all = vec![root];
    for i in 0..3u32 {
        let id = 10 * (i + 1);
        let child = world.spawn((ChildOf.pair(root), log.table(id))).id();
        expected.push(id);
        all.push(child);
        for j in 0..3u32 {
            let gid = id + j + 1;
            let gc = if j % 2 == 0 {
                world.spawn((ChildOf.pair(child), log.table(gid))).id()
            } else {
                world.spawn((ChildOf.pair(child), log.table2(gid), Velocity::default())).id()
            };
            expected.push(gid);
            all.push(gc);
        }
    }
    let bystander = world.spawn(log.table(999)).id();
    assert_eq!(world.descendants(root).count(), 12);
    world.despawn(root);
    assert!(all.iter().all(|&e| !world.is_alive(e)));
    assert!(world.is_alive(bystander));
    log.assert_dropped_once(expected);
    world.check_invariants();
}

/// delete_tree: despawning an inner node deletes its subtree only; the parent keeps its other children.
#[test]
fn delete_inner_node_deletes_only_its_subtree() {
    let log = DropLog::new();
    let mut world = World::new();
    let root = world.spawn(log.table(0)).id();
    let left = world.spawn((ChildOf.pair(root), log.table(1))).id();
    let right = world.spawn((ChildOf.pair(root), log.table(2))).id();
    let left_kid = world.spawn((ChildOf.pair(left), log.table(3))).id();
    let right_kid = world.spawn((ChildOf.pair(right), log.table(4))).id();
    assert!(world.despawn(left));
    log.assert_dropped_once([1, 3]);
    assert!(!world.is_alive(left) && !world.is_alive(left_kid));
    assert!(world.is_alive(root) && world.is_alive(right) && world.is_alive(right_kid));
    assert_eq!(world.children(root).collect::<Vec<_>>(), vec![right]);
    assert_eq!(world.descendants(root).collect::<Vec<_>>(), vec![right, right_kid]);
    world.despawn(root);
    log.assert_dropped_once([0, 1, 2, 3, 4]);
}

/// Hierarchies_delete_child (inverse): despawning a child leaves the parent with its other children.
#[test]
fn delete_one_child_keeps_the_parent_and_siblings() {
    let mut world = World::new();
    let parent = named(&mut world, "P");
    let kids: Vec<Entity> = (0..5).map(|i| named_child(&mut world, &format!("c{i}"), parent)).collect();
    assert!(world.despawn(kids[1]));
    assert!(world.is_alive(parent));
    assert_eq!(set(world.children(parent)), set([kids[0], kids[2], kids[3], kids[4]]));
    assert_eq!(world.query::<Entity>().with_pair::<ChildOf>(parent).iter(&world).count(), 4);
    assert_eq!(world.lookup("P::c1"), None);
    assert_eq!(world.lookup("P::c4"), Some(kids[4]));
    assert_eq!(world.path(kids[4]).as_deref(), Some("P::c4"));
}

/// delete_tree_w_dtor with sparse components: sparse values of a deleted tree are dropped once.
#[test]
fn delete_tree_drops_sparse_values_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.sparse(0)).id();
    let c1 = world.spawn((ChildOf.pair(parent), log.sparse(1), log.table(11))).id();
    let c2 = world.spawn((ChildOf.pair(c1), log.sparse(2))).id();
    let other = world.spawn(log.sparse(3)).id();
    world.despawn(parent);
    assert!(!world.is_alive(c1) && !world.is_alive(c2));
    log.assert_dropped_once([0, 1, 2, 11]);
    assert!(world.is_alive(other));
    drop(world);
    log.assert_dropped_once([0, 1, 2, 3, 11]);
}

/// delete_tree_w_dtor at scale: a thousand children, every value dropped exactly once.
#[test]
fn delete_tree_with_a_thousand_children_drops_each_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(100_000)).id();
    let kids: Vec<Entity> = (0..1000u32)
        .map(|i| {
            if i % 3 == 0 {
                world.spawn((ChildOf.pair(parent), log.table(i), Position::default())).id()
            } else {
                world.spawn((ChildOf.pair(parent), log.table(i))).id()
            }
        })
        .collect();
    assert_eq!(world.children(parent).count(), 1000);
    world.despawn(parent);
    assert!(kids.iter().all(|&k| !world.is_alive(k)));
    log.assert_dropped_once((0..1000u32).chain([100_000]));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// delete_tree + on_delete_target = delete elsewhere: a holder of a pair to a deleted child is deleted too.
#[test]
fn delete_tree_deletes_holders_bound_to_a_descendant() {
    let log = DropLog::new();
    let mut world = World::new();
    let root = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(root), log.table(1))).id();
    let grand = world.spawn((ChildOf.pair(child), log.table(2))).id();
    let bound = world.spawn((BoundTo.pair(grand), log.table(3))).id();
    let bound_kid = world.spawn((ChildOf.pair(bound), log.table(4))).id();
    let liker = world.spawn((log.table(5),)).add_pair::<Likes>(grand).id();
    world.despawn(root);
    assert!(!world.is_alive(bound) && !world.is_alive(bound_kid), "BoundTo deletes its holder and its children");
    assert!(world.is_alive(liker), "Likes only loses the pair");
    assert_eq!(world.targets::<Likes>(liker).count(), 0);
    log.assert_dropped_once([0, 1, 2, 3, 4]);
    world.check_invariants();
}

/// delete_tree with a panic policy on a grandchild: the whole despawn is refused, nothing changes.
#[test]
fn delete_tree_refused_by_a_guarded_grandchild_changes_nothing() {
    let log = DropLog::new();
    let mut world = World::new();
    let root = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(root), log.table(1))).id();
    let grand = world.spawn((ChildOf.pair(child), log.table(2))).id();
    let guard = world.spawn(log.table(3)).add_pair::<Guards>(grand).id();
    let error = world.try_despawn(root).unwrap_err();
    assert_eq!(error.despawned, grand);
    assert!(error.as_target);
    assert_eq!(error.holders, vec![guard]);
    assert!(error.relationship.contains("Guards"), "{error}");
    for e in [root, child, grand, guard] {
        assert!(world.is_alive(e), "{e:?} must survive a refused despawn");
    }
    assert_eq!(world.parent(grand), Some(child));
    assert_eq!(world.parent(child), Some(root));
    assert_eq!(log.count(), 0, "nothing dropped");
    world.check_invariants();
    // Once the guard is gone the tree goes.
    world.entity_mut(guard).remove_pair::<Guards>(grand);
    assert_eq!(world.try_despawn(root), Ok(true));
    log.assert_dropped_once([0, 1, 2]);
    assert!(world.is_alive(guard));
}

/// Hierarchies_ensure_child_alive_after_deleting_prev_parent (built-in ChildOf): the new parent owns the child.
#[test]
fn ensure_child_alive_after_deleting_prev_parent() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent_1 = world.spawn_empty().id();
    let parent_2 = world.spawn_empty().id();
    let child = world.spawn((ChildOf.pair(parent_1), log.table(1))).id();
    world.entity_mut(child).add_pair::<ChildOf>(parent_2);
    assert!(world.has_pair::<ChildOf>(child, parent_2));
    assert!(!world.has_pair::<ChildOf>(child, parent_1));
    world.despawn(parent_1);
    assert!(world.is_alive(child));
    assert_eq!(log.count(), 0);
    assert_eq!(world.parent(child), Some(parent_2));
    world.despawn(parent_2);
    assert!(!world.is_alive(child));
    log.assert_dropped_once([1]);
}

/// Reparenting moves the subtree: the old parent's despawn no longer reaches it.
#[test]
fn reparented_subtree_survives_the_old_parent() {
    let log = DropLog::new();
    let mut world = World::new();
    let old = world.spawn(log.table(0)).id();
    let new = world.spawn(log.table(1)).id();
    let a = world.spawn((ChildOf.pair(old), log.table(2))).id();
    let a1 = world.spawn((ChildOf.pair(a), log.table(3))).id();
    let stay = world.spawn((ChildOf.pair(old), log.table(4))).id();
    world.entity_mut(a).add_pair::<ChildOf>(new);
    assert_eq!(world.children(old).collect::<Vec<_>>(), vec![stay]);
    assert_eq!(world.descendants(new).collect::<Vec<_>>(), vec![a, a1]);
    world.despawn(old);
    log.assert_dropped_once([0, 4]);
    assert!(world.is_alive(a) && world.is_alive(a1));
    assert_eq!(world.ancestors(a1).collect::<Vec<_>>(), vec![a, new]);
    world.despawn(new);
    log.assert_dropped_once([0, 1, 2, 3, 4]);
}

// ===== children iteration ======================================================================

/// Hierarchies_tree_iter_1_table: children of one archetype are listed in creation order.
#[test]
fn tree_iter_1_table_lists_children_in_creation_order() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let c1 = named_child(&mut world, "Child1", parent);
    let c2 = named_child(&mut world, "Child2", parent);
    let c3 = named_child(&mut world, "Child3", parent);
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![c1, c2, c3]);
}

/// Hierarchies_tree_iter_2_tables: children are listed table by table, each in creation order.
#[test]
fn tree_iter_2_tables_lists_children_table_by_table() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let c1 = named_child(&mut world, "Child1", parent);
    let c2 = named_child(&mut world, "Child2", parent);
    let c3 = world.spawn((Name::new("Child3"), ChildOf.pair(parent), Position::default())).id();
    let c4 = world.spawn((Name::new("Child4"), ChildOf.pair(parent), Position::default())).id();
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![c1, c2, c3, c4]);
}

/// tree_iter: a child that changes archetype is still listed exactly once.
#[test]
fn children_are_listed_once_after_moving_between_archetypes() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(parent)).id();
    let c2 = world.spawn(ChildOf.pair(parent)).id();
    world.insert(c1, Position::default());
    world.insert(c1, Velocity::default());
    world.insert(c2, TagA);
    world.remove::<Position>(c1);
    let listed: Vec<Entity> = world.children(parent).collect();
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(set(listed), set([c1, c2]));
    assert_eq!(world.parent(c1), Some(parent));
    assert_eq!(world.parent(c2), Some(parent));
}

/// get_child_count after swap-removes: removing children from the middle of a table keeps the rest listed.
#[test]
fn child_count_after_removing_children_from_the_middle() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let kids: Vec<Entity> = (0..10).map(|_| world.spawn(ChildOf.pair(parent)).id()).collect();
    for &k in kids.iter().step_by(3) {
        world.despawn(k);
    }
    // Unparent one without despawning it.
    world.entity_mut(kids[1]).remove_pair::<ChildOf>(parent);
    let expected: Vec<Entity> =
        kids.iter().copied().enumerate().filter(|(i, _)| i % 3 != 0 && *i != 1).map(|(_, k)| k).collect();
    assert_eq!(set(world.children(parent)), set(expected.iter().copied()));
    assert_eq!(world.children(parent).count(), expected.len());
    assert_eq!(world.query::<Entity>().with_pair::<ChildOf>(parent).iter(&world).count(), expected.len());
    assert_eq!(world.parent(kids[1]), None);
    world.despawn(parent);
    assert!(world.is_alive(kids[1]), "an unparented entity survives its former parent");
    assert!(expected.iter().all(|&k| !world.is_alive(k)));
}

/// tree_iter over children spawned in a batch and through with_children.
#[test]
fn children_from_spawn_batch_and_with_children_are_all_listed() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let batch: Vec<Entity> =
        world.spawn_batch((0..20).map(|i| (ChildOf.pair(parent), Position { x: i as f32, y: 0.0 }))).collect();
    let mut spawned = Vec::new();
    world.entity_mut(parent).with_children(|p| {
        spawned.push(p.spawn(TagA).id());
        spawned.push(p.spawn_empty().id());
    });
    assert_eq!(world.children(parent).count(), 22);
    assert_eq!(set(world.children(parent)), set(batch.iter().chain(spawned.iter()).copied()));
    let sum: f32 = world.query::<&Position>().with_pair::<ChildOf>(parent).iter(&world).map(|p| p.x).sum();
    assert_eq!(sum, (0..20).sum::<i32>() as f32);
}

// ===== depth and traversal ======================================================================

/// Depth along ChildOf: the number of ancestors, updated when a subtree moves.
#[test]
fn depth_follows_reparenting() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn(ChildOf.pair(root)).id();
    let b = world.spawn(ChildOf.pair(a)).id();
    let c = world.spawn(ChildOf.pair(b)).id();
    let depth = |world: &World, e: Entity| world.ancestors(e).count();
    assert_eq!([root, a, b, c].map(|e| depth(&world, e)), [0, 1, 2, 3]);
    // Move b (and c with it) under root.
    world.entity_mut(b).add_pair::<ChildOf>(root);
    assert_eq!([root, a, b, c].map(|e| depth(&world, e)), [0, 1, 1, 2]);
    assert_eq!(world.ancestors(c).collect::<Vec<_>>(), vec![b, root]);
    // Make b a root.
    world.entity_mut(b).remove_pair::<ChildOf>(root);
    assert_eq!([root, a, b, c].map(|e| depth(&world, e)), [0, 1, 0, 1]);
    assert_eq!(world.descendants(root).collect::<Vec<_>>(), vec![a]);
}

/// Up<ChildOf, &T> reads the nearest ancestor's value, and the new parent's after a reparent.
#[test]
fn up_traversal_reads_the_new_parent_after_reparenting() {
    let mut world = World::new();
    let p1 = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let p2 = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    let mid = world.spawn(ChildOf.pair(p1)).id();
    let leaf = world.spawn((ChildOf.pair(mid), TagA)).id();
    let mut q = world.query_filtered::<(Entity, Up<ChildOf, &Position>), With<TagA>>();
    let read = |q: &mut QueryState<(Entity, Up<ChildOf, &Position>), With<TagA>>, world: &World| {
        q.iter(world).map(|(e, p)| (e, p.x)).collect::<Vec<_>>()
    };
    assert_eq!(read(&mut q, &world), vec![(leaf, 1.0)]);
    world.entity_mut(mid).add_pair::<ChildOf>(p2);
    assert_eq!(read(&mut q, &world), vec![(leaf, 2.0)]);
    world.insert(mid, Position { x: 3.0, y: 0.0 });
    assert_eq!(read(&mut q, &world), vec![(leaf, 3.0)], "the nearest ancestor wins");
    world.despawn(p2);
    assert!(!world.is_alive(leaf));
    assert_eq!(read(&mut q, &world), vec![]);
}

// ===== paths: core, escaped separators, long names =====================================================

/// Hierarchies_path_core / fullpath_for_core: a component's path is its name and looks it up.
#[test]
fn path_core_component_path_is_its_name() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    assert_eq!(world.lookup("Position"), Some(position));
    let path = world.path(position);
    assert_eq!(path.as_deref(), Some("Position"), "Flecs: ecs_get_path(ecs_id(Component)) is \"Component\"");
}

/// Escaped separators: `name` is a root whose path is `path`; the path looks it up and the raw name does not.
fn check_escaped_root(name: &str, path: &str) {
    let mut world = World::new();
    let e = named(&mut world, name);
    assert_eq!(name_of(&world, e), Some(name));
    assert_eq!(world.parent(e), None);
    assert_eq!(world.path(e).as_deref(), Some(path));
    assert_eq!(world.lookup(path), Some(e));
    world.check_invariants();
}

/// Escaped separators under a parent named `parent`.
fn check_escaped_child(name: &str, path: &str) {
    let mut world = World::new();
    let p = named(&mut world, "parent");
    let e = named_child(&mut world, name, p);
    assert_eq!(world.lookup("parent"), Some(p));
    assert_eq!(name_of(&world, e), Some(name));
    assert_eq!(world.parent(e), Some(p));
    assert_eq!(world.path(e).as_deref(), Some(path));
    assert_eq!(world.lookup(path), Some(e));
    assert_eq!(world.lookup_child(p, name), Some(e));
    world.check_invariants();
}

/// Hierarchies_path_escaped_two_sep: "foo\.bar\.woo".
#[test]
fn path_escaped_two_sep() {
    check_escaped_root("foo::bar::woo", "foo\\:\\:bar\\:\\:woo");
    let mut world = World::new();
    let e = named(&mut world, "foo::bar::woo");
    assert_eq!(world.lookup("foo::bar::woo"), None, "unescaped, it is a three-level path");
    let foo = named(&mut world, "foo");
    let bar = named_child(&mut world, "bar", foo);
    let woo = named_child(&mut world, "woo", bar);
    assert_eq!(world.lookup("foo::bar::woo"), Some(woo));
    assert_eq!(world.lookup("foo\\:\\:bar\\:\\:woo"), Some(e));
}

/// Hierarchies_path_escaped_two_consecutive_sep: "foo\.\.bar\.woo".
#[test]
fn path_escaped_two_consecutive_sep() {
    check_escaped_root("foo::::bar::woo", "foo\\:\\:\\:\\:bar\\:\\:woo");
}

/// Hierarchies_path_escaped_sep_at_begin: "\.foo\.bar".
#[test]
fn path_escaped_sep_at_begin() {
    check_escaped_root("::foo::bar", "\\:\\:foo\\:\\:bar");
}

/// Hierarchies_path_escaped_sep_at_end: "foo\.bar\.".
#[test]
fn path_escaped_sep_at_end() {
    check_escaped_root("foo::bar::", "foo\\:\\:bar\\:\\:");
}

/// Hierarchies_path_escaped_sep_w_parent: "parent.foo\.bar".
#[test]
fn path_escaped_sep_w_parent() {
    check_escaped_child("foo::bar", "parent::foo\\:\\:bar");
    let mut world = World::new();
    let p = named(&mut world, "parent");
    named_child(&mut world, "foo::bar", p);
    assert_eq!(world.lookup("parent::foo::bar"), None, "unescaped, it names parent -> foo -> bar");
}

/// Hierarchies_path_only_escaped_sep: "\.".
#[test]
fn path_only_escaped_sep() {
    check_escaped_root("::", "\\:\\:");
}

/// Hierarchies_path_only_escaped_sep_w_parent: "parent.\.".
#[test]
fn path_only_escaped_sep_w_parent() {
    check_escaped_child("::", "parent::\\:\\:");
}

/// Hierarchies_path_only_escaped_two_sep: "\.\.".
#[test]
fn path_only_escaped_two_sep() {
    check_escaped_root("::::", "\\:\\:\\:\\:");
}

/// Hierarchies_path_only_escaped_two_sep_w_parent: "parent.\.\.".
#[test]
fn path_only_escaped_two_sep_w_parent() {
    check_escaped_child("::::", "parent::\\:\\:\\:\\:");
}

/// Single colons at a name's ends touch the separator: "a:" and ":b" under a parent, and a child of "a:".
#[test]
fn path_single_colons_next_to_the_separator_round_trip() {
    let mut world = World::new();
    let p = named(&mut world, "p");
    let a = named_child(&mut world, "a:", p);
    let b = named_child(&mut world, ":b", p);
    let under_a = named_child(&mut world, "x", a);
    let colon_parent = named(&mut world, "q:");
    let under_q = named_child(&mut world, ":r", colon_parent);
    for e in [a, b, under_a, under_q] {
        let path = world.path(e).expect("named");
        assert_eq!(world.lookup(&path), Some(e), "{path:?}");
    }
    assert_eq!(world.path(a).as_deref(), Some("p::a\\:"));
    assert_eq!(world.path(b).as_deref(), Some("p::\\:b"));
    assert_eq!(world.path(under_a).as_deref(), Some("p::a\\:::x"));
    assert_eq!(world.path(under_q).as_deref(), Some("q\\:::\\:r"));
}

/// Hierarchies_long_name_depth_1: names of 64+ characters in a two-level path.
#[test]
fn long_name_depth_1() {
    let mut world = World::new();
    let parent_name = "a_parent_entity_with_an_identifier_longer_than_sixty_four_characters";
    let child_name = "a_child_entity_with_an_identifier_longer_than_sixty_four_characters";
    assert!(parent_name.len() >= 64 && child_name.len() >= 64);
    let parent = named(&mut world, parent_name);
    let child = named_child(&mut world, child_name, parent);
    assert_eq!(name_of(&world, parent), Some(parent_name));
    assert_eq!(name_of(&world, child), Some(child_name));
    let search_path = format!("{parent_name}::{child_name}");
    assert_eq!(world.lookup(&search_path), Some(child));
    assert_eq!(world.path(child), Some(search_path));
    assert_eq!(world.lookup(parent_name), Some(parent));
}

// ===== building paths (new_from_path / add_path) ==========================================================

/// Hierarchies_new_from_path_depth_0: a named root has one id (its name) and path "foo".
#[test]
fn new_from_path_depth_0() {
    let mut world = World::new();
    let e = named(&mut world, "foo");
    assert_eq!(name_of(&world, e), Some("foo"));
    assert_eq!(id_count(&world, e), 1);
    let name = name_id(&mut world);
    assert_eq!(world.ids_of(e), Some(&[name][..]));
    assert_eq!(world.path(e).as_deref(), Some("foo"));
}

/// Hierarchies_new_from_path_depth_1: "foo::bar" is a named child with two ids (name and ChildOf).
#[test]
fn new_from_path_depth_1() {
    let mut world = World::new();
    let foo = named(&mut world, "foo");
    let e = named_child(&mut world, "bar", foo);
    assert_eq!(name_of(&world, e), Some("bar"));
    assert_eq!(id_count(&world, e), 2);
    let ids = set(world.ids_of(e).unwrap().iter().copied());
    assert_eq!(ids, set([name_id(&mut world), child_of_id(&world, foo)]));
    assert_eq!(world.path(e).as_deref(), Some("foo::bar"));
    assert_eq!(world.lookup("foo::bar"), Some(e));
}

/// Hierarchies_new_from_path_depth_2: "foo::bar::hello" still has two ids; every level is named.
#[test]
fn new_from_path_depth_2() {
    let mut world = World::new();
    let foo = named(&mut world, "foo");
    let bar = named_child(&mut world, "bar", foo);
    let e = named_child(&mut world, "hello", bar);
    assert_eq!(name_of(&world, e), Some("hello"));
    assert_eq!(id_count(&world, e), 2);
    assert_eq!(id_count(&world, bar), 2);
    assert_eq!(id_count(&world, foo), 1);
    assert_eq!(world.path(e).as_deref(), Some("foo::bar::hello"));
    assert_eq!(world.ancestors(e).collect::<Vec<_>>(), vec![bar, foo]);
}

/// Hierarchies_add_path_depth_0/1/2: naming and parenting an existing entity gives it the path; the id is kept.
#[test]
fn add_path_to_an_existing_entity_keeps_its_id() {
    let mut world = World::new();
    let id0 = world.spawn_empty().id();
    world.set_name(id0, "foo").unwrap();
    assert_eq!(world.path(id0).as_deref(), Some("foo"));
    assert_eq!(id_count(&world, id0), 1);
    let id1 = world.spawn_empty().id();
    world.entity_mut(id1).add_pair::<ChildOf>(id0);
    world.set_name(id1, "bar").unwrap();
    assert_eq!(world.lookup("foo::bar"), Some(id1));
    assert_eq!(id_count(&world, id1), 2);
    let id2 = world.spawn(Position { x: 4.0, y: 5.0 }).id();
    world.set_name(id2, "hello").unwrap();
    world.entity_mut(id2).add_pair::<ChildOf>(id1);
    assert_eq!(world.lookup("foo::bar::hello"), Some(id2));
    assert_eq!(world.path(id2).as_deref(), Some("foo::bar::hello"));
    assert_eq!(world.get::<Position>(id2), Some(&Position { x: 4.0, y: 5.0 }));
    assert_eq!(id_count(&world, id2), 3);
    assert_eq!(world.lookup("hello"), Some(id2), "bare-name fallback (documented)");
}

/// Hierarchies_add_path_existing_depth_0 (adapted): a second root cannot take a root's name.
#[test]
fn add_path_existing_depth_0_is_refused() {
    let mut world = World::new();
    let e = named(&mut world, "foo");
    let id = world.spawn_empty().id();
    let error = world.set_name(id, "foo").unwrap_err();
    assert_eq!(error, NameError::Taken { entity: id, name: "foo".into(), sibling: e });
    assert_eq!(name_of(&world, id), None);
    assert_eq!(name_of(&world, e), Some("foo"));
    assert_eq!(world.lookup("foo"), Some(e));
    assert_eq!(id_count(&world, id), 0);
}

/// Hierarchies_add_path_existing_depth_1 (adapted): a second "bar" under "foo" is refused, a "bar" elsewhere is fine.
#[test]
fn add_path_existing_depth_1_is_refused_among_siblings_only() {
    let mut world = World::new();
    let foo = named(&mut world, "foo");
    let e = named_child(&mut world, "bar", foo);
    let id = world.spawn(ChildOf.pair(foo)).id();
    let error = world.set_name(id, "bar").unwrap_err();
    assert_eq!(error, NameError::Taken { entity: id, name: "bar".into(), sibling: e });
    assert_eq!(world.lookup("foo::bar"), Some(e));
    assert_eq!(name_of(&world, id), None);
    // A root may be called "bar".
    let root = world.spawn_empty().id();
    world.set_name(root, "bar").unwrap();
    assert_eq!(world.lookup("bar"), Some(root));
    assert_eq!(world.lookup("foo::bar"), Some(e));
}

/// Hierarchies_add_path_existing_depth_2 (adapted): inserting a clashing Name panics and leaves the entity unnamed.
#[test]
fn add_path_existing_depth_2_insert_panics_and_changes_nothing() {
    let mut world = World::new();
    let foo = named(&mut world, "foo");
    let bar = named_child(&mut world, "bar", foo);
    let e = named_child(&mut world, "hello", bar);
    let id = world.spawn((ChildOf.pair(bar), Position::default())).id();
    let message = panic_message(|| {
        world.entity_mut(id).insert(Name::new("hello"));
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains(&format!("{id:?}")), "{message}");
    assert!(world.is_alive(id));
    assert_eq!(name_of(&world, id), None);
    assert_eq!(world.parent(id), Some(bar));
    assert_eq!(world.lookup("foo::bar::hello"), Some(e));
    assert_eq!(world.children(bar).count(), 2);
    world.check_invariants();
}

/// Hierarchies_add_path_existing_intermediate: a path below an existing "foo::bar" reuses it.
#[test]
fn add_path_existing_intermediate() {
    let mut world = World::new();
    let foo = named(&mut world, "foo");
    let parent = named_child(&mut world, "bar", foo);
    let found = world.lookup("foo::bar").expect("exists");
    assert_eq!(found, parent);
    let id = world.spawn_empty().id();
    world.entity_mut(id).add_pair::<ChildOf>(found);
    world.set_name(id, "hello").unwrap();
    assert_eq!(name_of(&world, id), Some("hello"));
    assert_eq!(world.lookup("foo::bar::hello"), Some(id));
    assert_eq!(world.lookup("foo::bar"), Some(parent));
    assert!(world.has_pair::<ChildOf>(id, parent));
}

/// Hierarchies_add_path_existing_three_entities (adapted): a name passes to another entity only once freed.
#[test]
fn add_path_existing_three_entities_name_passes_once_freed() {
    let mut world = World::new();
    let a = named(&mut world, "foo");
    let b = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    assert!(world.set_name(b, "foo").is_err());
    assert_eq!(world.lookup("foo"), Some(a));
    // a lets the name go: b can take it, and then c is refused naming b.
    assert!(world.remove::<Name>(a).is_some());
    assert_eq!(world.lookup("foo"), None);
    world.set_name(b, "foo").unwrap();
    assert_eq!(world.lookup("foo"), Some(b));
    let error = world.set_name(c, "foo").unwrap_err();
    assert_eq!(error, NameError::Taken { entity: c, name: "foo".into(), sibling: b });
    // b is despawned: c takes it.
    world.despawn(b);
    world.set_name(c, "foo").unwrap();
    assert_eq!(world.lookup("foo"), Some(c));
    assert_eq!(name_of(&world, a), None);
}

/// Hierarchies_add_path_existing_renames_entity (adapted): a rename to a taken name is refused; a free one works.
#[test]
fn add_path_existing_renames_entity() {
    let mut world = World::new();
    let a = named(&mut world, "foo");
    let b = named(&mut world, "Bar");
    assert!(world.set_name(b, "foo").is_err());
    assert_eq!(name_of(&world, b), Some("Bar"), "a refused rename keeps the old name");
    assert_eq!(world.lookup("Bar"), Some(b));
    assert_eq!(world.lookup("foo"), Some(a));
    world.set_name(b, "baz").unwrap();
    assert_eq!(name_of(&world, b), Some("baz"));
    assert_eq!(world.lookup("baz"), Some(b));
    assert_eq!(world.lookup("Bar"), None);
    assert_eq!(world.lookup("foo"), Some(a));
}

/// Hierarchies_add_path_existing_in_different_scopes / returns_user_entity: one name under two parents.
#[test]
fn add_path_existing_in_different_scopes() {
    let mut world = World::new();
    let p1 = named(&mut world, "p1");
    let p2 = named(&mut world, "p2");
    let a = named_child(&mut world, "foo", p1);
    let b = world.spawn_empty().id();
    world.entity_mut(b).add_pair::<ChildOf>(p2);
    assert_eq!(world.set_name(b, "foo"), Ok(()));
    assert_ne!(a, b);
    assert_eq!(world.lookup("p1::foo"), Some(a));
    assert_eq!(world.lookup("p2::foo"), Some(b));
    assert_eq!(world.path(b).as_deref(), Some("p2::foo"));
    // Moving b under p1 would make two "foo" siblings: refused, b stays under p2.
    let message = panic_message(|| {
        world.entity_mut(b).add_pair::<ChildOf>(p1);
    });
    assert!(message.contains("foo"), "{message}");
    assert_eq!(world.parent(b), Some(p2));
    assert_eq!(world.lookup("p2::foo"), Some(b));
    assert_eq!(world.lookup("p1::foo"), Some(a));
}

/// Hierarchies_add_root_path_to_child: a child made a root keeps its name and is found as a root.
#[test]
fn add_root_path_to_child() {
    let mut world = World::new();
    let parent = named(&mut world, "parent");
    let child = named_child(&mut world, "child", parent);
    assert_eq!(world.target::<ChildOf>(child), Some(parent));
    world.entity_mut(child).remove_pair::<ChildOf>(parent);
    assert_eq!(world.target::<ChildOf>(child), None);
    assert_eq!(name_of(&world, child), Some("child"));
    assert_eq!(world.path(child).as_deref(), Some("child"));
    assert_eq!(world.lookup("child"), Some(child));
    assert_eq!(world.lookup("parent::child"), None);
    assert_eq!(world.children(parent).count(), 0);
}

/// Hierarchies_add_parent_path_from_root_to_child: a grandchild moved up to its grandparent.
#[test]
fn add_parent_path_from_root_to_child() {
    let mut world = World::new();
    let gparent = named(&mut world, "gparent");
    let parent = named_child(&mut world, "parent", gparent);
    let child = named_child(&mut world, "child", parent);
    assert_eq!(world.lookup("gparent::parent::child"), Some(child));
    world.entity_mut(child).add_pair::<ChildOf>(gparent);
    assert_eq!(world.target::<ChildOf>(child), Some(gparent));
    assert_eq!(name_of(&world, child), Some("child"));
    assert_eq!(world.path(child).as_deref(), Some("gparent::child"));
    assert_eq!(world.lookup("gparent::child"), Some(child));
    assert_eq!(world.lookup("gparent::parent::child"), None);
    assert_eq!(world.children(parent).count(), 0);
    assert_eq!(set(world.children(gparent)), set([parent, child]));
    // Deleting the old parent no longer reaches the child.
    world.despawn(parent);
    assert!(world.is_alive(child));
}

/// Hierarchies_add_path_w_sep_null_path: parenting an unnamed entity; it has a parent but no path.
#[test]
fn add_path_w_sep_null_path() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn_empty().id();
    world.entity_mut(child).add_pair::<ChildOf>(parent);
    assert!(world.has_pair::<ChildOf>(child, parent));
    assert_eq!(world.target::<ChildOf>(child), Some(parent));
    assert_eq!(world.ids_of(child), Some(&[child_of_id(&world, parent)][..]));
    assert_eq!(name_of(&world, child), None);
    assert_eq!(world.path(child), None);
}

/// Renaming an ancestor changes the paths below it; the old paths no longer look anything up.
#[test]
fn renaming_an_ancestor_moves_every_path_below() {
    let mut world = World::new();
    let root = named(&mut world, "root");
    let mid = named_child(&mut world, "mid", root);
    let leaf = named_child(&mut world, "leaf", mid);
    world.set_name(mid, "middle").unwrap();
    assert_eq!(world.path(leaf).as_deref(), Some("root::middle::leaf"));
    assert_eq!(world.lookup("root::middle::leaf"), Some(leaf));
    assert_eq!(world.lookup("root::mid::leaf"), None);
    assert_eq!(world.lookup("root::mid"), None);
    world.set_name(root, "top").unwrap();
    assert_eq!(world.path(leaf).as_deref(), Some("top::middle::leaf"));
    assert_eq!(world.lookup("root::middle::leaf"), None);
    assert_eq!(world.lookup("top::middle::leaf"), Some(leaf));
}

/// An unnamed ancestor hides the path; naming it again restores lookups.
#[test]
fn removing_an_ancestors_name_hides_the_path_until_renamed() {
    let mut world = World::new();
    let root = named(&mut world, "root");
    let mid = named_child(&mut world, "mid", root);
    let leaf = named_child(&mut world, "leaf", mid);
    assert!(world.remove::<Name>(mid).is_some());
    assert_eq!(world.path(leaf), None);
    assert_eq!(world.path(mid), None);
    assert_eq!(world.lookup("root::mid::leaf"), None);
    assert_eq!(world.lookup("root::mid"), None);
    assert_eq!(world.lookup_child(mid, "leaf"), Some(leaf), "the child keeps its own name");
    world.entity_mut(mid).insert(Name::new("mid"));
    assert_eq!(world.lookup("root::mid::leaf"), Some(leaf));
    assert_eq!(world.path(leaf).as_deref(), Some("root::mid::leaf"));
}

/// Hierarchies_recreated_parent_w_named_children (adapted): a recreated parent with the old name has no children.
#[test]
fn recreated_parent_w_named_children() {
    let mut world = World::new();
    let parent = named(&mut world, "e1");
    let child = named_child(&mut world, "e2", parent);
    world.despawn(parent);
    assert!(!world.is_alive(child));
    let parent2 = named(&mut world, "e1");
    assert_ne!(parent2, parent);
    assert_eq!(world.lookup("e1"), Some(parent2));
    assert_eq!(world.lookup("e1::e2"), None, "the old child died with the old parent");
    assert_eq!(world.lookup_child(parent, "e2"), None, "a stale parent handle finds nothing");
    let child2 = named_child(&mut world, "e2", parent2);
    assert_eq!(world.lookup("e1::e2"), Some(child2));
    assert_eq!(world.path(child2).as_deref(), Some("e1::e2"));
    assert_eq!(world.children(parent).count(), 0);
}

// ===== deferred hierarchy operations ==========================================================================

/// defer: a parent and its child spawned in one batch (the child names the reserved parent).
#[test]
fn deferred_spawn_of_parent_and_child_in_one_batch() {
    let mut world = World::new();
    let (parent, child) = world.run_system_once(|mut commands: Commands| {
        let parent = commands.spawn(Name::new("ship")).id();
        let child = commands.spawn((Name::new("turret"), ChildOf.pair(parent))).id();
        (parent, child)
    });
    assert_eq!(world.parent(child), Some(parent));
    assert_eq!(world.lookup("ship::turret"), Some(child));
    assert_eq!(world.path(child).as_deref(), Some("ship::turret"));
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![child]);
}

/// defer: adding a parent and then despawning that parent in one batch deletes the child.
#[test]
fn deferred_add_child_of_then_despawn_parent_deletes_the_child() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(log.table(1)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(child).add_pair::<ChildOf>(parent);
        commands.entity(parent).despawn();
    });
    assert!(!world.is_alive(parent));
    assert!(!world.is_alive(child), "the child was a child when its parent was despawned");
    log.assert_dropped_once([1]);
}

/// defer: reparenting and despawning the old parent in one batch keeps the child.
#[test]
fn deferred_reparent_then_despawn_old_parent_keeps_the_child() {
    let log = DropLog::new();
    let mut world = World::new();
    let old = world.spawn(log.table(0)).id();
    let new = world.spawn_empty().id();
    let child = world.spawn((ChildOf.pair(old), log.table(1))).id();
    let grand = world.spawn((ChildOf.pair(child), log.table(2))).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(child).add_pair::<ChildOf>(new);
        commands.entity(old).despawn();
    });
    assert!(!world.is_alive(old));
    assert!(world.is_alive(child) && world.is_alive(grand));
    assert_eq!(world.parent(child), Some(new));
    log.assert_dropped_once([0]);
}

/// defer: removing ChildOf and despawning the parent in one batch leaves a root.
#[test]
fn deferred_remove_child_of_then_despawn_parent_leaves_a_root() {
    let mut world = World::new();
    let parent = named(&mut world, "p");
    let child = named_child(&mut world, "c", parent);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(child).remove_pair::<ChildOf>(parent);
        commands.entity(parent).despawn();
    });
    assert!(world.is_alive(child));
    assert_eq!(world.parent(child), None);
    assert_eq!(world.path(child).as_deref(), Some("c"));
    assert_eq!(world.lookup("c"), Some(child));
}

/// defer: despawning a child and then its parent in one batch drops every value once.
#[test]
fn deferred_despawn_of_child_then_parent_drops_each_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let grand = world.spawn((ChildOf.pair(child), log.table(2))).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(grand).despawn();
        commands.entity(child).despawn();
        commands.entity(parent).despawn();
    });
    for e in [parent, child, grand] {
        assert!(!world.is_alive(e));
    }
    log.assert_dropped_once([0, 1, 2]);
    world.check_invariants();
}

/// defer: despawning a parent and then one of its (already deleted) children in one batch is harmless.
#[test]
fn deferred_despawn_of_parent_then_child_is_harmless() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let sibling = world.spawn((ChildOf.pair(parent), log.table(2))).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(parent).despawn();
        commands.entity(child).despawn();
        // `insert` on a dead entity panics (documented); Flecs ignores it.
        commands.entity(sibling).try_insert(Position::default());
    });
    for e in [parent, child, sibling] {
        assert!(!world.is_alive(e));
    }
    log.assert_dropped_once([0, 1, 2]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// defer: renaming and reparenting in one batch; the path reflects both.
#[test]
fn deferred_rename_and_reparent_in_one_batch() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    let b = named(&mut world, "b");
    let e = named_child(&mut world, "e", a);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert(Name::new("renamed")).add_pair::<ChildOf>(b);
    });
    assert_eq!(world.parent(e), Some(b));
    assert_eq!(world.path(e).as_deref(), Some("b::renamed"));
    assert_eq!(world.lookup("b::renamed"), Some(e));
    assert_eq!(world.lookup("a::e"), None);
    assert_eq!(world.lookup("a::renamed"), None);
    assert_eq!(world.children(a).count(), 0);
}

/// defer: a child spawned under a parent despawned earlier in the same batch is deleted (ChildOf deletes).
#[test]
fn deferred_spawn_under_a_parent_despawned_in_the_batch_is_deleted() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let l = log.clone();
    let child = world.run_system_once(move |mut commands: Commands| {
        commands.entity(parent).despawn();
        commands.spawn((ChildOf.pair(parent), l.table(7))).id()
    });
    assert!(!world.is_alive(parent));
    assert!(!world.is_alive(child));
    log.assert_dropped_once([7]);
    assert_eq!(world.entity_count(), 0);
}

/// defer: with_children-style nesting through commands; despawning the root later deletes all.
#[test]
fn deferred_nested_children_are_deleted_with_the_root() {
    let log = DropLog::new();
    let mut world = World::new();
    let l = log.clone();
    let root = world.run_system_once(move |mut commands: Commands| {
        let root = commands.spawn(l.table(0)).id();
        let a = commands.spawn((ChildOf.pair(root), l.table(1))).id();
        commands.spawn((ChildOf.pair(a), l.table(2)));
        commands.spawn((ChildOf.pair(root), l.table(3)));
        root
    });
    assert_eq!(world.descendants(root).count(), 3);
    world.run_system_once(move |mut commands: Commands| commands.entity(root).despawn());
    log.assert_dropped_once([0, 1, 2, 3]);
    assert_eq!(world.entity_count(), 0);
}

// ===== observers on hierarchy changes =======================================================================

/// Reparenting (exclusive replace) fires OnRemove for the old ChildOf pair and OnAdd for the new one.
#[test]
fn reparent_fires_on_remove_old_pair_and_on_add_new_pair() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnAdd, Pair<ChildOf>>| {
        l.lock().unwrap().push(format!("add {:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnRemove, Pair<ChildOf>>| {
        l.lock().unwrap().push(format!("remove {:?}->{:?}", t.entity(), t.pair_target().unwrap()));
    });
    let p1 = world.spawn_empty().id();
    let p2 = world.spawn_empty().id();
    let c = world.spawn(ChildOf.pair(p1)).id();
    assert_eq!(std::mem::take(&mut *log.lock().unwrap()), vec![format!("add {c:?}->{p1:?}")]);
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    let got = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(set(got.iter().cloned()), set([format!("remove {c:?}->{p1:?}"), format!("add {c:?}->{p2:?}")]));
    assert_eq!(got.len(), 2, "{got:?}");
    // Re-adding the same parent fires nothing.
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    assert!(log.lock().unwrap().is_empty());
}

/// delete_tree_w_onremove: an OnRemove observer on the parent's component sees the children already gone.
#[test]
fn on_remove_of_the_root_sees_its_children_deleted() {
    let seen: Arc<Mutex<Vec<(Entity, usize, bool)>>> = Arc::default();
    let mut world = World::new();
    let s = seen.clone();
    world.add_observer(move |t: Trigger<OnRemove, Velocity>, world: &World| {
        let e = t.entity();
        s.lock().unwrap().push((e, world.children(e).count(), world.is_alive(e)));
    });
    let root = world.spawn(Velocity::default()).id();
    let kid = world.spawn((ChildOf.pair(root), Velocity::default())).id();
    world.spawn(ChildOf.pair(kid));
    world.despawn(root);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let root_row = seen.iter().find(|row| row.0 == root).expect("root's OnRemove");
    assert_eq!(root_row.1, 0, "children are deleted before their parent");
    let kid_row = seen.iter().find(|row| row.0 == kid).expect("kid's OnRemove");
    assert_eq!(kid_row.1, 0);
    assert_eq!(seen.last().unwrap().0, root, "the root goes last");
}

// ===== ChildOf with prefabs ==========================================================================

/// Instances get their own children, named like the prefab's; paths go through the instance.
#[test]
fn prefab_children_become_children_of_each_instance() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Name::new("Ship"))).id();
    let turret = world.spawn((Name::new("Turret"), ChildOf.pair(prefab), Position { x: 1.0, y: 2.0 })).id();
    assert!(world.has::<Prefab>(turret), "children of a prefab are prefabs");
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    world.set_name(a, "a").unwrap();
    world.set_name(b, "b").unwrap();
    let ta = world.lookup_child(a, "Turret").expect("instance child");
    let tb = world.lookup_child(b, "Turret").expect("instance child");
    assert_ne!(ta, tb);
    assert_ne!(ta, turret);
    assert!(!world.has::<Prefab>(ta));
    assert_eq!(world.parent(ta), Some(a));
    assert_eq!(world.path(ta).as_deref(), Some("a::Turret"));
    assert_eq!(world.lookup("b::Turret"), Some(tb));
    assert_eq!(world.lookup("Ship::Turret"), Some(turret));
    assert_eq!(world.get::<Position>(ta), Some(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(world.children(prefab).collect::<Vec<_>>(), vec![turret]);
}

/// Deleting a prefab deletes its own children; instances and their children survive.
#[test]
fn deleting_a_prefab_keeps_instance_children() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Name::new("Ship"))).id();
    let turret = world.spawn((Name::new("Turret"), ChildOf.pair(prefab), Velocity { x: 3.0, y: 0.0 })).id();
    let inst = world.instantiate(prefab);
    let inst_turret = world.lookup_child(inst, "Turret").unwrap();
    world.despawn(prefab);
    assert!(!world.is_alive(turret), "the prefab's child goes with it");
    assert!(world.is_alive(inst) && world.is_alive(inst_turret));
    assert_eq!(world.parent(inst_turret), Some(inst));
    assert_eq!(world.children(inst).collect::<Vec<_>>(), vec![inst_turret]);
    world.check_invariants();
}

/// An entity moved under a prefab becomes a prefab (children of a prefab get Prefab).
#[test]
fn reparenting_under_a_prefab_makes_a_prefab() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Name::new("Base"))).id();
    let e = world.spawn((Name::new("Part"), Position::default())).id();
    world.entity_mut(e).add_pair::<ChildOf>(prefab);
    assert!(world.has::<Prefab>(e));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0, "prefabs are not matched");
    let inst = world.instantiate(prefab);
    let part = world.lookup_child(inst, "Part").expect("instantiated");
    assert!(!world.has::<Prefab>(part));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 1);
}

/// Despawning an instance child deletes only that copy.
#[test]
fn despawning_an_instance_child_leaves_the_prefab_child() {
    let log = DropLog::new();
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    let child = world.spawn((Name::new("C"), ChildOf.pair(prefab), log.table(1))).id();
    let inst = world.spawn(TagA).add_pair::<IsA>(prefab).id();
    let inst_child = world.lookup_child(inst, "C");
    // The DropTable has no Clone, so it is inherited, not copied: one value in all.
    let inst_child = inst_child.expect("instance child");
    world.despawn(inst);
    assert!(!world.is_alive(inst_child));
    assert!(world.is_alive(child));
    assert_eq!(log.count(), 0, "the prefab child's value is not dropped with the instance");
    world.despawn(prefab);
    log.assert_dropped_once([1]);
}

// ===== cascades across other relationships, toggles, unions ===================================================

/// A union relationship's holder pointing at a deleted descendant.
#[derive(Relationship, Debug)]
#[relationship(union)]
struct Movement;

/// A child bound to its own parent is deleted once (ChildOf and BoundTo both delete it).
#[test]
fn delete_tree_child_bound_to_its_own_parent_dropped_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), BoundTo.pair(parent), log.table(1))).id();
    let grand = world.spawn((ChildOf.pair(child), BoundTo.pair(parent), log.sparse(2))).id();
    world.despawn(parent);
    assert!(!world.is_alive(child) && !world.is_alive(grand));
    log.assert_dropped_once([0, 1, 2]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// Deleting a child deletes the parent bound to it, and with it the child's siblings.
#[test]
fn delete_child_cascades_up_through_bound_to_and_down_through_child_of() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1))).id();
    let sibling = world.spawn((ChildOf.pair(parent), log.table(2))).id();
    let nephew = world.spawn((ChildOf.pair(sibling), log.table(3))).id();
    world.entity_mut(parent).add_pair::<BoundTo>(child);
    let outsider = world.spawn(log.table(4)).id();
    world.despawn(child);
    for e in [parent, child, sibling, nephew] {
        assert!(!world.is_alive(e), "{e:?}");
    }
    assert!(world.is_alive(outsider));
    log.assert_dropped_once([0, 1, 2, 3]);
    world.check_invariants();
}

/// Disabled children are deleted with their parent like any other.
#[test]
fn delete_tree_deletes_disabled_children() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), log.table(1), Disabled)).id();
    let grand = world.spawn((ChildOf.pair(child), log.table(2))).id();
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![child], "children lists see disabled entities");
    world.despawn(parent);
    assert!(!world.is_alive(child) && !world.is_alive(grand));
    log.assert_dropped_once([0, 1, 2]);
}

/// A union pair targeting a deleted descendant is removed from its (surviving) holder.
#[test]
fn delete_tree_removes_union_pairs_targeting_descendants() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(root)).id();
    let elsewhere = world.spawn_empty().id();
    let walker = world.spawn(Position::default()).id();
    let other = world.spawn(Position::default()).id();
    world.entity_mut(walker).add_pair::<Movement>(child);
    world.entity_mut(other).add_pair::<Movement>(elsewhere);
    assert_eq!(world.target::<Movement>(walker), Some(child));
    world.despawn(root);
    assert!(world.is_alive(walker));
    assert_eq!(world.target::<Movement>(walker), None);
    assert_eq!(world.sources::<Movement>(child).count(), 0);
    assert_eq!(world.target::<Movement>(other), Some(elsewhere));
    assert_eq!(world.sources::<Movement>(elsewhere).collect::<Vec<_>>(), vec![other]);
    world.check_invariants();
}

/// A prefab that is a child of a folder: deleting the folder deletes the prefab; instances keep owned values.
#[test]
fn delete_folder_of_a_prefab_detaches_instances() {
    let mut world = World::new();
    let folder = world.spawn(Name::new("prefabs")).id();
    let prefab = world.spawn((Prefab, Name::new("Ship"), ChildOf.pair(folder), Velocity { x: 5.0, y: 0.0 })).id();
    assert_eq!(world.lookup("prefabs::Ship"), Some(prefab));
    let inst = world.instantiate(prefab);
    world.insert(inst, Position { x: 1.0, y: 1.0 });
    assert_eq!(world.get::<Velocity>(inst), Some(&Velocity { x: 5.0, y: 0.0 }));
    world.despawn(folder);
    assert!(!world.is_alive(prefab));
    assert!(world.is_alive(inst));
    assert!(!world.has_pair::<IsA>(inst, prefab));
    assert_eq!(world.get::<Velocity>(inst), None, "the inherited value went with the prefab");
    assert_eq!(world.get::<Position>(inst), Some(&Position { x: 1.0, y: 1.0 }));
    world.check_invariants();
}

/// Flecs' ecs_clear of a parent removes its ids but keeps its children.
#[test]
fn clearing_a_parent_keeps_its_children() {
    let mut world = World::new();
    let parent = world.spawn((Name::new("p"), Position::default())).id();
    let child = named_child(&mut world, "c", parent);
    world.remove_id(parent, Entity::WILDCARD.id());
    assert!(world.is_alive(parent) && world.is_alive(child));
    assert_eq!(world.ids_of(parent), Some(&[][..]));
    assert_eq!(world.parent(child), Some(parent));
    assert_eq!(world.lookup_child(parent, "c"), Some(child));
    assert_eq!(world.path(child), None, "the parent lost its name");
    world.set_name(parent, "q").unwrap();
    assert_eq!(world.lookup("q::c"), Some(child));
    world.despawn(parent);
    assert!(!world.is_alive(child));
}

/// OnDespawn fires once for every entity of a deleted tree.
#[test]
fn on_despawn_fires_once_per_entity_of_a_tree() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn(ChildOf.pair(root)).id();
    let b = world.spawn((ChildOf.pair(root), Position::default())).id();
    let a1 = world.spawn(ChildOf.pair(a)).id();
    let bystander = world.spawn_empty().id();
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnDespawn>| l.lock().unwrap().push(format!("{:?}", t.entity())));
    world.despawn(root);
    let got = log.lock().unwrap().clone();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(set(got), set([root, a, b, a1].map(|e| format!("{e:?}"))));
    assert!(world.is_alive(bystander));
}

/// An observer that spawns a new child of the dying parent during the cascade leaves no orphan behind.
#[test]
fn child_spawned_under_a_dying_parent_during_cleanup_is_deleted() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn((ChildOf.pair(parent), TagA));
    world.add_observer(move |t: Trigger<OnRemove, TagA>, mut commands: Commands| {
        let _ = t.entity();
        commands.spawn((ChildOf.pair(parent), Position::default()));
    });
    world.despawn(parent);
    assert!(!world.is_alive(parent));
    let orphans: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
    assert!(orphans.is_empty(), "no child of a dead parent survives: {orphans:?}");
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    world.check_invariants();
}

/// A name written in place (get_mut) moves the path at once.
#[test]
fn name_written_in_place_moves_the_path() {
    let mut world = World::new();
    let root = named(&mut world, "root");
    let mid = named_child(&mut world, "mid", root);
    let leaf = named_child(&mut world, "leaf", mid);
    world.get_mut::<Name>(mid).unwrap().0 = "middle".into();
    assert_eq!(world.path(leaf).as_deref(), Some("root::middle::leaf"));
    assert_eq!(world.lookup("root::middle::leaf"), Some(leaf));
    assert_eq!(world.lookup("root::mid::leaf"), None);
    assert_eq!(world.lookup_child(root, "middle"), Some(mid));
    // After a structural change (a flush) the index agrees.
    world.spawn_empty();
    assert_eq!(world.lookup("root::middle"), Some(mid));
    assert_eq!(world.lookup("root::mid"), None);
}

/// A child named like a component is found through its path (components shadow bare names only).
#[test]
fn child_named_like_a_component_is_found_by_path() {
    let mut world = World::new();
    world.register_component::<Position>();
    let p = named(&mut world, "P");
    let c = named_child(&mut world, "Position", p);
    assert_eq!(world.lookup("P::Position"), Some(c));
    assert_eq!(world.path(c).as_deref(), Some("P::Position"));
    assert_eq!(world.lookup_child(p, "Position"), Some(c));
}

/// A very deep chain: despawning the root deletes every level, no recursion limit.
#[test]
fn delete_a_twenty_thousand_level_chain() {
    let log = DropLog::new();
    let mut world = World::new();
    let root = world.spawn(log.table(0)).id();
    let mut last = root;
    for i in 1..20_000u32 {
        last = world.spawn((ChildOf.pair(last), log.table(i))).id();
    }
    assert_eq!(world.ancestors(last).count(), 19_999);
    world.despawn(root);
    assert!(!world.is_alive(last));
    assert_eq!(log.count(), 20_000);
    assert_eq!(log.dropped(), (0..20_000u32).collect::<Vec<_>>());
    assert_eq!(world.entity_count(), 0);
}

/// Two ChildOf pairs in one bundle: ChildOf is exclusive, so the entity ends with exactly one parent.
#[test]
fn bundle_with_two_child_of_pairs_keeps_one_parent() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn((ChildOf.pair(a), ChildOf.pair(b))).id();
    assert_eq!(world.targets::<ChildOf>(c).count(), 1, "exclusive: one parent");
    assert_eq!(world.parent(c), Some(b), "Flecs: the last pair added wins");
    assert_eq!(world.children(a).count(), 0);
    assert_eq!(world.children(b).collect::<Vec<_>>(), vec![c]);
}

// ===== stale handles, hidden entities, builtins ===================================================

/// A stale parent handle whose index was recycled reaches none of the new entity's children.
#[test]
fn stale_parent_handle_does_not_reach_the_recycled_entitys_children() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index(), "the index is recycled");
    assert_ne!(new, old);
    let kid = named_child(&mut world, "kid", new);
    assert_eq!(world.children(new).collect::<Vec<_>>(), vec![kid]);
    assert_eq!(world.lookup_child(old, "kid"), None, "lookup_child guards stale handles");
    assert_eq!(world.children(old).count(), 0, "children of a dead handle");
    assert_eq!(world.descendants(old).count(), 0, "descendants of a dead handle");
    assert!(!world.has_pair::<ChildOf>(kid, old), "the kid is not a child of the dead entity");
}

/// Lookups find disabled entities and prefabs, as Flecs' do.
#[test]
fn lookup_finds_disabled_and_prefab_entities() {
    let mut world = World::new();
    let p = named(&mut world, "p");
    let c = world.spawn((Name::new("c"), ChildOf.pair(p), Disabled)).id();
    assert_eq!(world.lookup("p::c"), Some(c));
    assert_eq!(world.path(c).as_deref(), Some("p::c"));
    assert_eq!(world.lookup_child(p, "c"), Some(c));
    let prefab = world.spawn((Prefab, Name::new("Ship"))).id();
    let part = named_child(&mut world, "Part", prefab);
    assert_eq!(world.lookup("Ship"), Some(prefab));
    assert_eq!(world.lookup("Ship::Part"), Some(part));
    assert_eq!(world.path(part).as_deref(), Some("Ship::Part"));
    // A disabled sibling still holds its name.
    let other = world.spawn(ChildOf.pair(p)).id();
    assert!(world.set_name(other, "c").is_err());
}

/// Paths of a dying subtree are still readable from OnRemove observers (ancestors die after descendants).
#[test]
fn paths_are_readable_during_the_cascade() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnRemove, TagA>, world: &World| {
        l.lock().unwrap().push(world.path(t.entity()).unwrap_or_else(|| "<none>".into()));
    });
    let root = named(&mut world, "root");
    let a = world.spawn((Name::new("a"), ChildOf.pair(root), TagA)).id();
    world.spawn((Name::new("b"), ChildOf.pair(a), TagA));
    world.despawn(root);
    let got = log.lock().unwrap().clone();
    assert_eq!(set(got), set(["root::a".to_owned(), "root::a::b".to_owned()]));
}

/// Setting an entity's own name again is not a clash.
#[test]
fn renaming_to_the_same_name_is_not_a_clash() {
    let mut world = World::new();
    let p = named(&mut world, "p");
    let c = named_child(&mut world, "c", p);
    assert_eq!(world.set_name(c, "c"), Ok(()));
    assert_eq!(world.set_name(p, "p"), Ok(()));
    world.entity_mut(c).insert(Name::new("c"));
    assert_eq!(world.lookup("p::c"), Some(c));
    world.check_invariants();
}

/// ChildOf itself cannot be despawned from under a hierarchy (Flecs: core entities are protected).
#[test]
fn despawning_child_of_itself_keeps_the_hierarchy() {
    let mut world = World::new();
    let p = named(&mut world, "p");
    let c = named_child(&mut world, "c", p);
    let child_of = world.component_id::<ChildOf>().unwrap();
    let _ = world.try_despawn(child_of);
    assert!(world.is_alive(child_of));
    assert!(world.is_alive(p) && world.is_alive(c));
    assert_eq!(world.parent(c), Some(p));
    assert_eq!(world.lookup("p::c"), Some(c));
}

// ===== cached queries over a changing hierarchy ==================================================

/// A cached Up<ChildOf, &T> query follows values appearing and disappearing on ancestors.
#[test]
fn cached_up_query_follows_values_on_ancestors() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mid = world.spawn(ChildOf.pair(root)).id();
    let leaf = world.spawn((ChildOf.pair(mid), TagA)).id();
    let mut q = world.query_filtered::<(Entity, Up<ChildOf, &Position>), With<TagA>>();
    let read = |q: &mut QueryState<(Entity, Up<ChildOf, &Position>), With<TagA>>, world: &World| {
        q.iter(world).map(|(e, p)| (e, p.x)).collect::<Vec<_>>()
    };
    assert_eq!(read(&mut q, &world), vec![]);
    world.insert(root, Position { x: 1.0, y: 0.0 });
    assert_eq!(read(&mut q, &world), vec![(leaf, 1.0)], "found two levels up");
    world.insert(mid, Position { x: 2.0, y: 0.0 });
    assert_eq!(read(&mut q, &world), vec![(leaf, 2.0)]);
    world.remove::<Position>(mid);
    assert_eq!(read(&mut q, &world), vec![(leaf, 1.0)]);
    world.remove::<Position>(root);
    assert_eq!(read(&mut q, &world), vec![]);
    world.insert(leaf, Position { x: 9.0, y: 0.0 });
    assert_eq!(read(&mut q, &world), vec![], "the entity itself is excluded");
    world.entity_mut(mid).remove_pair::<ChildOf>(root);
    world.insert(root, Position { x: 1.0, y: 0.0 });
    assert_eq!(read(&mut q, &world), vec![], "mid is a root now");
    world.entity_mut(mid).add_pair::<ChildOf>(root);
    assert_eq!(read(&mut q, &world), vec![(leaf, 1.0)]);
}

/// A cached with_pair::<ChildOf>(parent) query sees children in archetypes created after it.
#[test]
fn cached_children_query_matches_new_archetypes_and_reparenting() {
    let mut world = World::new();
    let p = world.spawn_empty().id();
    let q_parent = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(p)).id();
    let mut q = world.query::<Entity>().with_pair::<ChildOf>(p);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![c1]);
    let c2 = world.spawn((ChildOf.pair(p), Position::default(), TagA)).id();
    let c3 = world.spawn(ChildOf.pair(q_parent)).id();
    assert_eq!(set(q.iter(&world)), set([c1, c2]));
    world.entity_mut(c3).add_pair::<ChildOf>(p);
    world.entity_mut(c1).add_pair::<ChildOf>(q_parent);
    assert_eq!(set(q.iter(&world)), set([c2, c3]));
    world.despawn(c2);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![c3]);
}

/// Reparenting through a bundle insert and through commands fires the same ChildOf events.
#[test]
fn reparent_by_bundle_insert_and_commands_fires_remove_and_add() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnAdd, Pair<ChildOf>>| {
        l.lock().unwrap().push(format!("add {:?}", t.pair_target().unwrap()));
    });
    let l = log.clone();
    world.add_observer(move |t: Trigger<OnRemove, Pair<ChildOf>>| {
        l.lock().unwrap().push(format!("remove {:?}", t.pair_target().unwrap()));
    });
    let [p1, p2, p3] = [(); 3].map(|_| world.spawn_empty().id());
    let c = world.spawn(ChildOf.pair(p1)).id();
    log.lock().unwrap().clear();
    world.entity_mut(c).insert((ChildOf.pair(p2), Position::default()));
    let got = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(set(got.iter().cloned()), set([format!("remove {p1:?}"), format!("add {p2:?}")]), "{got:?}");
    assert_eq!(got.len(), 2, "{got:?}");
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(c).add_pair::<ChildOf>(p3);
    });
    let got = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(set(got.iter().cloned()), set([format!("remove {p2:?}"), format!("add {p3:?}")]), "{got:?}");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(world.parent(c), Some(p3));
}

// ===== names written in place =====================================================================

/// A name written through a query moves the path, and a later lookup finds the new path.
#[test]
fn name_written_by_a_query_moves_the_path() {
    let mut world = World::new();
    let root = named(&mut world, "root");
    let mid = named_child(&mut world, "mid", root);
    let leaf = named_child(&mut world, "leaf", mid);
    world.run_system_once(|mut q: Query<&mut Name>| {
        for mut name in q.iter_mut() {
            if name.as_str() == "mid" {
                name.0 = "middle".into();
            }
        }
    });
    assert_eq!(world.lookup("root::middle::leaf"), Some(leaf));
    assert_eq!(world.lookup("root::mid::leaf"), None);
    assert_eq!(world.path(leaf).as_deref(), Some("root::middle::leaf"));
    world.spawn_empty();
    assert_eq!(world.lookup("root::middle"), Some(mid));
    assert_eq!(world.lookup("root::mid"), None);
    // The old name is free for a sibling now.
    let again = named_child(&mut world, "mid", root);
    assert_eq!(world.lookup("root::mid"), Some(again));
}

/// An entity renamed in place and despawned before the next flush leaves no name behind.
#[test]
fn renamed_in_place_then_despawned_leaves_no_name() {
    let mut world = World::new();
    let p = named(&mut world, "p");
    let c = named_child(&mut world, "c", p);
    let gc = named_child(&mut world, "gc", c);
    world.get_mut::<Name>(c).unwrap().0 = "x".into();
    assert_eq!(world.lookup("p::x::gc"), Some(gc));
    world.despawn(c);
    assert!(!world.is_alive(gc));
    assert_eq!(world.lookup("p::x"), None);
    assert_eq!(world.lookup("p::c"), None);
    assert_eq!(world.lookup("x"), None);
    let x = named_child(&mut world, "x", p);
    let c2 = named_child(&mut world, "c", p);
    assert_eq!(world.lookup("p::x"), Some(x));
    assert_eq!(world.lookup("p::c"), Some(c2));
    world.check_invariants();
}

/// An observer of a child's despawn that despawns the parent deletes the siblings, each value dropped once.
#[test]
fn despawning_the_parent_from_a_childs_on_remove_drops_each_value_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let parent = world.spawn(log.table(0)).id();
    let child = world.spawn((ChildOf.pair(parent), TagA, log.table(1))).id();
    let sibling = world.spawn((ChildOf.pair(parent), log.table(2))).id();
    let nephew = world.spawn((ChildOf.pair(sibling), log.table(3))).id();
    world.add_observer(move |t: Trigger<OnRemove, TagA>, world: &World, mut commands: Commands| {
        if let Some(p) = world.parent(t.entity()) {
            commands.entity(p).despawn();
        }
    });
    world.despawn(child);
    for e in [parent, child, sibling, nephew] {
        assert!(!world.is_alive(e), "{e:?}");
    }
    log.assert_dropped_once([0, 1, 2, 3]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}
