//! Tests ported from bevy_ecs (bevy main, commit 4805ca792c3e) for the
//! per-entity views: the unit tests of `world/entity_access/mod.rs` (called
//! `world/entity_ref.rs` up to Bevy 0.17), restated against this crate's
//! [`EntityWorldMut`] / [`EntityRef`] and the id-level `World` methods
//! (`remove_id`, `has_id`). Each test names the Bevy file and test it ports.
//!
//! Bevy's row-update regression tests (`*_updates_archetype_row`,
//! `*_updates_table_row`) only read one value back; the ports also check, for
//! every entity involved, that its recorded location names its row in its
//! archetype and table (`assert_located`, plus `World::check_invariants`), and
//! count drops (every value dropped exactly once) where values are dropped.
//!
//! Extensions (each names the Bevy test it extends): the same row-update
//! regressions with the rows moved by hooks' commands while one `EntityWorldMut`
//! is in use (`*_from_a_hook`, `..._when_a_hook_moves_the_entity`,
//! `take_then_hook_commands_reinsert`), a view whose entity is despawned and its
//! index reused inside the "world scope", sparse values after removals, and one
//! long seeded sequence of inserts/removes/takes/despawns checked against a model
//! (values, rows, `Dense`'s ticks across moves, drops).
//!
//! No findings: every ported test passes. Observation (not a finding: the
//! rustdoc of `EntityWorldMut::despawn` names no panic): after the entity was
//! despawned through `world_mut`, `EntityWorldMut::despawn` returns quietly where
//! Bevy's panics; it does not touch an entity that reuses the index.
//!
//! Adapted:
//! - `entity_mut_world_scope_panic`: no `EntityWorldMut::world_scope`; the scope
//!   is `EntityWorldMut::world_mut` inside `catch_unwind` (our view looks its
//!   location up on every call, so nothing needs updating after the scope).
//! - `retain_nothing`: no `retain`; `World::remove_id(e, *)` ("`*` alone removes
//!   every id and sparse value", its rustdoc) is the same "keep nothing" operation.
//! - `entity_mut_remove_by_id`: `World::remove_id` with the component's id.
//! - `entity_ref_get_by_id_invalid_component_id` /
//!   `entity_mut_get_by_id_invalid_component_id`: no `get_by_id`; the by-id
//!   reads and writes we have (`has_id`, `remove_id`) of an id that names no
//!   component must answer "absent" without panicking.
//!
//! Already ported elsewhere (not repeated): `get_components`,
//! `spawned_after_swap_remove`, `with_component_activates_hooks`
//! (ported_bevy_more.rs); `adding_observer_updates_location`,
//! `location_on_despawned_entity_panics`, `archetype_modifications_trigger_flush`,
//! `command_ordering_is_correct`, `command_despawns_dont_invalidate_entity_world_muts`,
//! `using_despawned_entity_world_mut_panics`,
//! `bundle_remove_only_triggers_for_present_components` (ported_bevy_observers.rs).
//!
//! Not ported (no counterpart in API.md or ecs/src):
//! - `entity_ref_get_by_id`, `entity_mut_get_by_id`, `get_by_id_array`,
//!   `get_by_id_vec`, `get_mut_by_id_array`, `get_mut_by_id_vec`,
//!   `get_mut_by_id_unchecked` (no untyped `get_by_id`/`get_mut_by_id`, no `Ptr`/`MutUntyped`);
//! - `entity_mut_insert_by_id`, `entity_mut_insert_bundle_by_id` (no `insert_by_id(s)`
//!   taking `OwningPtr`s; `add_id` adds ids without values);
//! - `entity_mut_resource_scope`, `entity_mut_resource_scope_panic`,
//!   `entity_mut_reborrow_scope_panic` (no `resource_scope`/`reborrow_scope`);
//! - `retain_some_components` (no `retain`; emulating it with removes would test
//!   nothing of Bevy's `retain`);
//! - `entity_ref_except*`, `entity_mut_except*`, `filtered_entity_*`,
//!   `disjoint_access`, `ref_compatible*`, `mut_compatible*`, `*_incompatible_*`
//!   (no `EntityRefExcept`/`EntityMutExcept`/`FilteredEntityRef`/`FilteredEntityMut`,
//!   and `EntityRef`/`EntityMut` are not query terms or system params here);
//! - `get_components_mut` (no `get_components_mut` on `EntityWorldMut`);
//! - `entity_world_mut_clone_and_move_components`,
//!   `entity_world_mut_clone_with_move_and_require` (no entity cloning, no required components);
//! - `update_despawned_by_after_observers`, `spawned_by_set_before_flush` (no caller
//!   tracking / spawn ticks);
//! - the doc examples of `world_mut.rs`, `entity_mut.rs`, `entity_ref.rs` and
//!   `entry.rs`: each shows `get_components_mut*`, `into_components_mut*`,
//!   `modify_component`, `world_scope`, `entry`, `clone_*`, `get_by_id*`, or
//!   `EntityRef`/`EntityMut` query terms, none of which exist here.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::ArchetypeId;
use ecs::prelude::*;
use ecs_tests::DropLog;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct TestComponent(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct TestComponent2(u32);

#[derive(Component, PartialEq, Debug)]
struct Dense(u8);

#[derive(Component, Debug)]
struct Dense2;

#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct Sparse;

#[derive(Component, Debug)]
struct Marker1;

#[derive(Component, Debug)]
struct Marker2;

#[derive(Component, Debug)]
struct Marker3;

/// Asserts that `e`'s recorded location names its row: the archetype's and the
/// table's entity lists hold `e` at that row, `EntityRef::location` agrees, and
/// the world's invariants hold.
#[track_caller]
fn assert_located(world: &World, e: Entity) {
    let loc = world.entities().location(e).expect("entity is alive");
    assert_eq!(world.entity(e).location(), loc);
    let archetype = world.archetypes().get(loc.archetype).expect("the location names an archetype");
    let row = loc.row as usize;
    assert_eq!(archetype.entities().get(row), Some(&e), "archetype row of {e:?}");
    assert_eq!(archetype.table().entities().get(row), Some(&e), "table row of {e:?}");
    world.check_invariants();
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn entity_mut_world_scope_panic() {
    let mut world = World::new();

    let mut entity = world.spawn_empty();
    let old_location = entity.location();
    let id = entity.id();
    let res = catch_unwind(AssertUnwindSafe(|| {
        // Change the entity's location through the world the view lends out.
        entity.world_mut().entity_mut(id).insert(TestComponent(0));
        panic!("this should get caught by the outer scope")
    }));
    assert!(res.is_err());

    // The view sees the new location and the inserted value.
    assert_ne!(entity.location(), old_location);
    assert_eq!(entity.get::<TestComponent>(), Some(&TestComponent(0)));
    entity.insert(TestComponent2(1));
    assert!(entity.contains::<TestComponent2>());
    assert_located(&world, id);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn removing_sparse_updates_archetype_row() {
    let log = DropLog::new();
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), Sparse, log.table(1))).id();
    let e2 = world.spawn((Dense(1), Sparse, log.table(2))).id();

    world.entity_mut(e1).remove::<Sparse>();
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
    assert_eq!(world.entity(e1).get::<ecs_tests::DropTable>().unwrap().id, 1);
    assert_eq!(world.entity(e2).get::<ecs_tests::DropTable>().unwrap().id, 2);
    assert_located(&world, e1);
    assert_located(&world, e2);
    assert_eq!(log.count(), 0, "a move drops nothing");
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn removing_dense_updates_table_row() {
    let log = DropLog::new();
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), Sparse, log.table(1))).id();
    let e2 = world.spawn((Dense(1), Sparse, log.table(2))).id();

    world.entity_mut(e1).remove::<Dense>();
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert!(world.entity(e1).get::<Dense>().is_none());
    assert!(world.entity(e1).contains::<Sparse>());
    assert_eq!(world.entity(e1).get::<ecs_tests::DropTable>().unwrap().id, 1);
    assert_eq!(world.entity(e2).get::<ecs_tests::DropTable>().unwrap().id, 2);
    assert_located(&world, e1);
    assert_located(&world, e2);
    assert_eq!(log.count(), 0, "a move drops nothing");
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (retain::<()> as remove_id(*))
#[test]
fn retain_nothing() {
    let mut world = World::new();
    let ent = world.spawn((Marker1, Marker2, Marker3)).id();

    assert!(world.remove_id(ent, Entity::WILDCARD.id()));
    assert!(world.is_alive(ent));
    assert_eq!(world.entity(ent).archetype(), ArchetypeId::EMPTY);
    assert!(!world.entity(ent).contains::<Marker1>());
    assert!(!world.entity(ent).contains::<Marker2>());
    assert!(!world.entity(ent).contains::<Marker3>());
    assert_located(&world, ent);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn inserting_sparse_updates_archetype_row() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();

    world.entity_mut(e1).insert(Sparse);
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
    assert_located(&world, e1);
    assert_located(&world, e2);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn inserting_dense_updates_archetype_row() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();

    world.entity_mut(e1).insert(Sparse).remove::<Sparse>();

    // Bevy: archetype with [e2, e1], table with [e1, e2]

    world.entity_mut(e2).insert(Dense2);

    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert!(world.entity(e2).contains::<Dense2>());
    assert_located(&world, e1);
    assert_located(&world, e2);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn inserting_dense_updates_table_row() {
    let mut world = World::new();
    let e1 = world.spawn(Dense(0)).id();
    let e2 = world.spawn(Dense(1)).id();

    world.entity_mut(e1).insert(Sparse).remove::<Sparse>();

    // Bevy: archetype with [e2, e1], table with [e1, e2]

    world.entity_mut(e1).insert(Dense2);

    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
    assert_located(&world, e1);
    assert_located(&world, e2);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn despawning_entity_updates_archetype_row() {
    let log = DropLog::new();
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), log.table(1))).id();
    let e2 = world.spawn((Dense(1), log.table(2))).id();

    world.entity_mut(e1).insert(Sparse).remove::<Sparse>();

    // Bevy: archetype with [e2, e1], table with [e1, e2]

    world.entity_mut(e2).despawn();

    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
    assert_eq!(world.entity(e1).get::<ecs_tests::DropTable>().unwrap().id, 1);
    assert!(!world.is_alive(e2));
    assert_located(&world, e1);
    log.assert_dropped_once([2]);
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs
#[test]
fn despawning_entity_updates_table_row() {
    let log = DropLog::new();
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), log.table(1))).id();
    let e2 = world.spawn((Dense(1), log.table(2))).id();

    world.entity_mut(e1).insert(Sparse).remove::<Sparse>();

    // Bevy: archetype with [e2, e1], table with [e1, e2]

    world.entity_mut(e1).despawn();

    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert_eq!(world.entity(e2).get::<ecs_tests::DropTable>().unwrap().id, 2);
    assert!(!world.is_alive(e1));
    assert_located(&world, e2);
    log.assert_dropped_once([1]);
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (remove_by_id as World::remove_id)
#[test]
fn entity_mut_remove_by_id() {
    let log = DropLog::new();
    let mut world = World::new();
    let test_component_id = world.register_component::<TestComponent>();
    let drop_id = world.register_component::<ecs_tests::DropTable>();

    let e = world.spawn((TestComponent(42), log.table(7))).id();
    assert!(world.remove_id(e, test_component_id.id()));

    let components: Vec<_> = world.query::<&TestComponent>().iter(&world).collect();
    assert_eq!(components, vec![] as Vec<&TestComponent>);
    assert_eq!(log.count(), 0);

    assert!(world.remove_id(e, drop_id.id()));
    log.assert_dropped_once([7]);
    assert_located(&world, e);

    // remove non-existent component does not panic
    let empty = world.spawn_empty().id();
    assert!(!world.remove_id(empty, test_component_id.id()));
    assert!(!world.remove_id(e, test_component_id.id()));
    drop(world);
    log.assert_dropped_once([7]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (get_by_id as has_id)
#[test]
fn entity_ref_get_by_id_invalid_component_id() {
    let invalid_component_id = Entity::from_raw(u32::MAX - 1, 0).id();

    let mut world = World::new();
    let entity = world.spawn_empty().id();
    assert!(!world.has_id(entity, invalid_component_id));
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (get_by_id / get_mut_by_id
// as has_id / remove_id)
#[test]
fn entity_mut_get_by_id_invalid_component_id() {
    let invalid_component_id = Entity::from_raw(u32::MAX - 1, 0).id();

    let mut world = World::new();
    let entity = world.spawn(TestComponent(1)).id();
    assert!(!world.has_id(entity, invalid_component_id));
    assert!(!world.remove_id(entity, invalid_component_id));
    assert_eq!(world.get::<TestComponent>(entity), Some(&TestComponent(1)));
    assert_located(&world, entity);
}

// ----- the same regressions, with the rows moved by hooks mid-call -------------------
//
// Bevy's row-update tests move other entities' rows between two calls. Here a
// hook's commands (applied before `insert`/`remove` return) move rows while one
// `EntityWorldMut` is in use; the view must keep naming the right row.

/// An entity a hook despawns, taken once.
#[derive(Resource, Default)]
struct Victim(Option<Entity>);

#[derive(Component, Debug)]
#[component(on_add = despawn_victim, on_remove = despawn_victim)]
struct KillsVictim;

fn despawn_victim(mut world: DeferredWorld, _: HookContext) {
    if let Some(victim) = world.resource_mut::<Victim>().0.take() {
        world.commands().entity(victim).despawn();
    }
}

/// Inserts `Dense2` on its own entity when added: the entity moves again before
/// the `insert` that added this returns.
#[derive(Component, Debug)]
#[component(on_add = insert_dense2_on_self)]
struct MovesSelf;

fn insert_dense2_on_self(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).insert(Dense2);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (extends
// `despawning_entity_updates_table_row`: the despawn comes from a hook)
#[test]
fn despawning_entity_updates_table_row_from_a_hook() {
    let log = DropLog::new();
    let mut world = World::new();
    world.init_resource::<Victim>();
    let a = world.spawn((Dense(0), KillsVictim, log.table(1))).id();
    let b = world.spawn((Dense(1), log.table(2))).id();
    world.resource_mut::<Victim>().0 = Some(a);

    // b moves into a's archetype (row 1), then the hook's despawn of a swap-removes
    // row 0: b is now row 0.
    let mut view = world.entity_mut(b);
    view.insert(KillsVictim);
    assert!(!view.world().is_alive(a));
    assert_eq!(view.get::<Dense>(), Some(&Dense(1)));
    assert_eq!(view.get::<ecs_tests::DropTable>().map(|d| d.id), Some(2));
    assert_eq!(view.location(), view.world().entities().location(b).unwrap());
    view.insert(Dense2);
    assert_eq!(view.take::<Dense>(), Some(Dense(1)));
    assert_located(&world, b);
    log.assert_dropped_once([1]);
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (extends
// `removing_dense_updates_table_row`: the remove's hook despawns a row neighbour)
#[test]
fn removing_dense_updates_table_row_from_a_hook() {
    let log = DropLog::new();
    let mut world = World::new();
    world.init_resource::<Victim>();
    let a = world.spawn((Dense(0), log.table(1))).id();
    let b = world.spawn((Dense(1), KillsVictim, log.table(2))).id();
    let c = world.spawn((Dense(2), log.table(3))).id();
    // a is row 0 of (Dense, DropTable), c row 1; b leaves (.., KillsVictim) for it.
    world.resource_mut::<Victim>().0 = Some(a);

    let mut view = world.entity_mut(b);
    view.remove::<KillsVictim>();
    assert!(!view.world().is_alive(a));
    assert_eq!(view.get::<Dense>(), Some(&Dense(1)));
    assert_eq!(view.get::<ecs_tests::DropTable>().map(|d| d.id), Some(2));
    view.insert(Sparse);
    assert!(view.contains::<Sparse>());
    assert_located(&world, b);
    assert_located(&world, c);
    assert_eq!(world.get::<Dense>(c), Some(&Dense(2)));
    log.assert_dropped_once([1]);
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (extends
// `adding_observer_updates_location`: a hook moves the view's own entity)
#[test]
fn inserting_dense_updates_archetype_row_when_a_hook_moves_the_entity() {
    let log = DropLog::new();
    let mut world = World::new();
    let other = world.spawn((Dense(9), log.table(9))).id();
    let e = world.spawn((Dense(0), log.table(1))).id();

    let mut view = world.entity_mut(e);
    view.insert(MovesSelf);
    // the hook's insert ran before `insert` returned
    assert!(view.contains::<Dense2>());
    assert_eq!(view.location(), view.world().entities().location(e).unwrap());
    assert_eq!(view.get::<Dense>(), Some(&Dense(0)));
    let taken = view.take::<(Dense, ecs_tests::DropTable)>();
    assert_eq!(taken.as_ref().map(|(d, t)| (d.0, t.id)), Some((0, 1)));
    assert_eq!(log.count(), 0, "take hands the values back");
    drop(taken);
    log.assert_dropped_once([1]);
    view.despawn();
    assert!(!world.is_alive(e));
    assert_located(&world, other);
    assert_eq!(world.get::<Dense>(other), Some(&Dense(9)));
    drop(world);
    log.assert_dropped_once([1, 9]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (extends
// `entity_mut_world_scope_panic`: the entity is despawned inside the scope and its
// index reused; the view must not reach the new entity)
#[test]
fn entity_mut_world_scope_despawn_and_respawn() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = world.spawn((Dense(0), log.table(1))).id();
    let mut view = world.entity_mut(e);
    let newcomer = {
        let w = view.world_mut();
        assert!(w.despawn(e));
        let mut newcomer = w.spawn((Dense(7), log.table(2))).id();
        // make sure the index is reused, however the allocator orders free indices
        while newcomer.index() != e.index() {
            newcomer = w.spawn((Dense(8), log.table(3))).id();
            if w.entity_count() > 64 {
                break;
            }
        }
        newcomer
    };
    assert_eq!(newcomer.index(), e.index(), "the index was reused");
    assert_ne!(newcomer, e);
    log.assert_dropped_once([1]);
    assert!(view.get::<Dense>().is_none(), "the view sees nothing of a later entity");
    assert!(!view.contains::<Dense>());
    assert!(view.get_mut::<Dense>().is_none());
    let insert = catch_unwind(AssertUnwindSafe(|| {
        view.insert(Dense2);
    }));
    assert!(insert.is_err(), "insert through a view of a despawned entity panics");
    let remove = catch_unwind(AssertUnwindSafe(|| {
        view.remove::<Dense>();
    }));
    assert!(remove.is_err(), "remove through a view of a despawned entity panics");
    // Bevy's `despawn` panics here too; ours returns quietly (its rustdoc names no
    // panic), but must not reach the entity that reuses the index.
    let _ = catch_unwind(AssertUnwindSafe(move || view.despawn()));
    assert!(world.is_alive(newcomer));
    assert!(!world.entity(newcomer).contains::<Dense2>());
    assert_eq!(world.get::<Dense>(newcomer).map(|d| d.0 >= 7), Some(true));
    drop(world);
    assert_eq!(log.count_of(1), 1);
    assert_eq!(log.count_of(2), 1);
}

/// On removal, queues a re-insert of itself (value 99) on its entity.
#[derive(Component, Debug, PartialEq)]
#[component(on_remove = reinsert_self)]
struct Sticky(u32);

fn reinsert_self(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).insert(Sticky(99));
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (`take` and
// `archetype_modifications_trigger_flush`: commands queued by the remove hooks run
// before `take` returns, after the value was taken)
#[test]
fn take_then_hook_commands_reinsert() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = world.spawn((Sticky(1), Dense(1), log.table(1))).id();
    let neighbour = world.spawn((Sticky(2), Dense(2), log.table(2))).id();

    let mut view = world.entity_mut(e);
    let taken = view.take::<(Sticky, ecs_tests::DropTable)>();
    assert_eq!(taken.as_ref().map(|(s, d)| (s.0, d.id)), Some((1, 1)));
    assert_eq!(view.get::<Sticky>(), Some(&Sticky(99)), "the hook's insert ran before take returned");
    assert!(view.get::<ecs_tests::DropTable>().is_none());
    assert_eq!(view.get::<Dense>(), Some(&Dense(1)));
    assert_eq!(view.location(), view.world().entities().location(e).unwrap());
    assert_eq!(log.count(), 0);
    drop(taken);
    log.assert_dropped_once([1]);
    assert_located(&world, e);
    assert_located(&world, neighbour);
    assert_eq!(world.get::<Dense>(neighbour), Some(&Dense(2)));
    drop(world);
    log.assert_dropped_once([1, 2]);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (`removing_sparse_updates_archetype_row`
// for the sparse values themselves: a removal from one entity must not disturb the
// sparse values of the others)
#[test]
fn removing_sparse_updates_sparse_rows() {
    let log = DropLog::new();
    let mut world = World::new();
    let es: Vec<Entity> = (0..4).map(|i| world.spawn((Dense(i as u8), log.sparse(i))).id()).collect();

    world.entity_mut(es[0]).remove::<ecs_tests::DropSparse>();
    log.assert_dropped_once([0]);
    let taken = world.entity_mut(es[2]).take::<ecs_tests::DropSparse>().map(|s| s.id);
    assert_eq!(taken, Some(2));
    log.assert_dropped_once([0, 2]);
    world.entity_mut(es[1]).despawn();
    log.assert_dropped_once([0, 1, 2]);
    world.entity_mut(es[0]).insert(log.sparse(10));
    for (e, want) in [(es[0], Some(10)), (es[2], None), (es[3], Some(3))] {
        assert_eq!(world.get::<ecs_tests::DropSparse>(e).map(|s| s.id), want, "{e:?}");
        assert_located(&world, e);
    }
    drop(world);
    log.assert_dropped_once([0, 1, 2, 3, 10]);
}

/// The values the model expects of one entity.
#[derive(Default, Clone, Debug)]
struct Expect {
    dense: Option<u8>,
    dense2: bool,
    sparse: bool,
    table: Option<u32>,
    sparse_val: Option<u32>,
    /// `(added, changed)` of `Dense` when last written.
    dense_ticks: Option<(ecs::storage::Tick, ecs::storage::Tick)>,
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs (the `*_updates_archetype_row` /
// `*_updates_table_row` family, run as one long seeded sequence of inserts, removes,
// takes and despawns through `EntityWorldMut`, every entity checked after every step,
// with ticks kept across moves and each value dropped once)
#[test]
fn entity_world_mut_moves_keep_every_row_in_place() {
    let log = DropLog::new();
    let mut world = World::new();
    let mut model: Vec<(Entity, Expect)> = Vec::new();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut next_id = 1000u32;
    let mut dropped: Vec<u32> = Vec::new();

    for step in 0..3000 {
        world.clear_trackers();
        let now = world.change_tick();
        if model.len() < 4 || next(10) == 0 {
            let v = next(200) as u8;
            let e = world.spawn(Dense(v)).id();
            let t = world.component_ticks::<Dense>(e).map(|t| (t.added, t.changed));
            model.push((e, Expect { dense: Some(v), dense_ticks: t, ..Expect::default() }));
            continue;
        }
        let i = next(model.len() as u64) as usize;
        let (e, ref mut x) = model[i];
        let mut view = world.entity_mut(e);
        match next(11) {
            0 => {
                let v = next(200) as u8;
                view.insert(Dense(v));
                x.dense_ticks = Some(match (x.dense, x.dense_ticks) {
                    (Some(_), Some((added, _))) => (added, now),
                    _ => (now, now),
                });
                x.dense = Some(v);
            }
            1 => {
                view.remove::<Dense>();
                x.dense = None;
                x.dense_ticks = None;
            }
            2 => {
                view.insert(Dense2);
                x.dense2 = true;
            }
            3 => {
                view.remove::<Dense2>();
                x.dense2 = false;
            }
            4 => {
                view.insert(Sparse);
                x.sparse = true;
            }
            5 => {
                view.remove::<Sparse>();
                x.sparse = false;
            }
            6 => {
                next_id += 1;
                view.insert(log.table(next_id));
                if let Some(old) = x.table.replace(next_id) {
                    dropped.push(old);
                }
            }
            7 => {
                let got = view.take::<ecs_tests::DropTable>().map(|t| t.id);
                assert_eq!(got, x.table.take(), "step {step}: take of {e:?}");
                dropped.extend(got);
            }
            8 => {
                next_id += 1;
                view.insert(log.sparse(next_id));
                if let Some(old) = x.sparse_val.replace(next_id) {
                    dropped.push(old);
                }
            }
            9 => {
                view.remove::<(ecs_tests::DropSparse, Dense2)>();
                dropped.extend(x.sparse_val.take());
                x.dense2 = false;
            }
            _ => {
                view.despawn();
                dropped.extend(x.table);
                dropped.extend(x.sparse_val);
                model.swap_remove(i);
            }
        }
        log.assert_dropped_once(dropped.iter().copied());
        for (e, x) in &model {
            let r = world.entity(*e);
            assert_eq!(r.get::<Dense>().map(|d| d.0), x.dense, "step {step}: Dense of {e:?}");
            assert_eq!(r.contains::<Dense2>(), x.dense2, "step {step}: Dense2 of {e:?}");
            assert_eq!(r.contains::<Sparse>(), x.sparse, "step {step}: Sparse of {e:?}");
            assert_eq!(r.get::<ecs_tests::DropTable>().map(|t| t.id), x.table, "step {step}: table of {e:?}");
            assert_eq!(r.get::<ecs_tests::DropSparse>().map(|t| t.id), x.sparse_val, "step {step}: sparse of {e:?}");
            let ticks = world.component_ticks::<Dense>(*e).map(|t| (t.added, t.changed));
            assert_eq!(ticks, x.dense_ticks, "step {step}: Dense ticks of {e:?}");
            let loc = world.entities().location(*e).unwrap();
            let archetype = world.archetypes().get(loc.archetype).unwrap();
            assert_eq!(archetype.entities()[loc.row as usize], *e, "step {step}: row of {e:?}");
        }
        if step % 100 == 0 {
            world.check_invariants();
        }
    }
    let alive = model.len();
    assert_eq!(world.entity_count(), alive);
    drop(world);
    for (_, x) in &model {
        dropped.extend(x.table);
        dropped.extend(x.sparse_val);
    }
    log.assert_dropped_once(dropped);
}
