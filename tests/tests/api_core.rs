//! Acceptance tests for API.md sections "Components, bundles, resources", "World"
//! and "Queries", written against the exact names and shapes API.md shows, plus a
//! handful of hecs / bevy_ecs world and query unit tests ported to this API.

use ecs::prelude::*;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

// ----- the types of API.md "Components, bundles, resources" ---------------------------

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
#[derive(Component, Debug, PartialEq)] // zero-sized: a tag, stored as no column
struct Enemy;
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")] // never moves the entity between archetypes
struct Stunned(u32);
#[derive(Component, Debug, PartialEq)]
#[component(on_add = health_added, on_remove = health_removed)] // hooks: fn(DeferredWorld, HookContext)
struct Health(f32);

#[derive(Bundle)]
struct Mover {
    pos: Position,
    vel: Velocity,
}

#[derive(Resource, Default, Debug, PartialEq)]
struct Time {
    dt: f32,
}

/// What the `Health` hooks saw: (hook, entity, the Health value visible to the hook).
#[derive(Resource, Default)]
struct HookLog(Vec<(&'static str, Entity, Option<f32>)>);

fn health_added(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Health>(ctx.entity).map(|h| h.0);
    if let Some(mut log) = world.get_resource_mut::<HookLog>() {
        log.0.push(("add", ctx.entity, value));
    }
}

fn health_removed(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Health>(ctx.entity).map(|h| h.0);
    if let Some(mut log) = world.get_resource_mut::<HookLog>() {
        log.0.push(("remove", ctx.entity, value));
    }
}

fn pos(x: f32) -> Position {
    Position { x, y: 0.0 }
}

fn vel(x: f32) -> Velocity {
    Velocity { x, y: 0.0 }
}

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

fn hook_world() -> World {
    let mut world = World::new();
    world.init_resource::<HookLog>();
    world
}

fn take_log(world: &mut World) -> Vec<(&'static str, Entity, Option<f32>)> {
    std::mem::take(&mut world.resource_mut::<HookLog>().0)
}

// ===== Components, bundles, resources ===================================================

#[test]
fn tag_component_is_zero_sized_and_usable_in_every_api() {
    assert_eq!(std::mem::size_of::<Enemy>(), 0);
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Enemy)).id();
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Enemy>(e), Some(&Enemy));
    assert_eq!(world.query_filtered::<Entity, With<Enemy>>().iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(world.query::<(Entity, &Enemy)>().iter(&world).count(), 1);
    assert_eq!(world.remove::<Enemy>(e), Some(Enemy));
    assert!(!world.has::<Enemy>(e));
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
}

#[test]
fn sparse_component_insert_and_remove_never_move_the_entity() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), vel(2.0))).id();
    let before = world.entity(e).archetype();
    world.entity_mut(e).insert(Stunned(3));
    assert_eq!(world.entity(e).archetype(), before, "inserting a sparse component moved the entity");
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(3)));
    assert_eq!(world.remove::<Stunned>(e), Some(Stunned(3)));
    assert_eq!(world.entity(e).archetype(), before, "removing a sparse component moved the entity");
    // Table components on the same entity are unaffected.
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert_eq!(world.get::<Velocity>(e), Some(&vel(2.0)));
}

#[test]
fn sparse_component_spawned_with_table_components_shares_their_archetype() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let b = world.spawn((pos(2.0), Stunned(1))).id();
    assert_eq!(world.entity(a).archetype(), world.entity(b).archetype());
    assert!(world.has::<Stunned>(b));
    assert!(!world.has::<Stunned>(a));
}

#[test]
fn on_add_hook_runs_once_per_add_and_sees_the_value() {
    let mut world = hook_world();
    let e = world.spawn((pos(0.0), Health(10.0))).id();
    assert_eq!(take_log(&mut world), [("add", e, Some(10.0))]);
    // Overwriting is not an add.
    world.insert(e, Health(5.0));
    assert!(take_log(&mut world).iter().all(|(what, ..)| *what != "add"));
    // Adding to an entity that lacks it is.
    let f = world.spawn((pos(0.0),)).id();
    assert!(world.insert(f, Health(7.0)));
    assert_eq!(take_log(&mut world), [("add", f, Some(7.0))]);
}

#[test]
fn on_remove_hook_runs_on_remove_and_despawn_and_still_sees_the_value() {
    let mut world = hook_world();
    let e = world.spawn((Health(10.0),)).id();
    let f = world.spawn((Health(20.0), pos(1.0))).id();
    take_log(&mut world);

    assert_eq!(world.remove::<Health>(e), Some(Health(10.0)));
    assert_eq!(take_log(&mut world), [("remove", e, Some(10.0))]);
    // Removing what is absent runs no hook.
    assert_eq!(world.remove::<Health>(e), None);
    assert!(take_log(&mut world).is_empty());

    assert!(world.despawn(f));
    assert_eq!(take_log(&mut world), [("remove", f, Some(20.0))]);
}

#[test]
fn hooks_run_for_a_bundle_inserted_through_entity_mut() {
    let mut world = hook_world();
    let e = world.spawn((pos(0.0),)).id();
    world.entity_mut(e).insert(Enemy).insert((Health(10.0), Stunned(2)));
    assert_eq!(take_log(&mut world), [("add", e, Some(10.0))]);
    world.entity_mut(e).remove::<Health>();
    assert_eq!(take_log(&mut world), [("remove", e, Some(10.0))]);
}

#[test]
fn derived_bundle_spawns_its_fields_as_components() {
    let mut world = World::new();
    let m = world.spawn(Mover { pos: pos(1.0), vel: vel(2.0) }).id();
    assert_eq!(world.get::<Position>(m), Some(&pos(1.0)));
    assert_eq!(world.get::<Velocity>(m), Some(&vel(2.0)));
    assert_eq!(world.query::<(&Position, &Velocity)>().iter(&world).count(), 1);
}

#[test]
fn derived_bundle_nests_in_tuples_and_can_be_removed_whole() {
    let mut world = World::new();
    let m = world.spawn((Mover { pos: pos(1.0), vel: vel(2.0) }, Enemy)).id();
    assert!(world.has::<Enemy>(m));
    let removed: Option<Mover> = world.remove::<Mover>(m);
    let removed = removed.expect("both fields were present");
    assert_eq!((removed.pos, removed.vel), (pos(1.0), vel(2.0)));
    assert!(!world.has::<Position>(m));
    assert!(!world.has::<Velocity>(m));
    assert!(world.has::<Enemy>(m));
    assert!(world.is_alive(m));
}

#[test]
fn derived_resource_with_default_works_with_init_resource() {
    let mut world = World::new();
    world.init_resource::<Time>();
    assert_eq!(world.resource::<Time>(), &Time::default());
    world.insert_resource(Time { dt: 1.0 });
    world.init_resource::<Time>();
    assert_eq!(world.resource::<Time>().dt, 1.0, "init_resource must not replace");
}

// ===== World =============================================================================

#[test]
fn spawn_returns_an_entity_world_mut_whose_id_is_the_entity() {
    let mut world = World::new();
    let e: Entity = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 })).id();
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Velocity>(e), Some(&vel(1.0)));
    assert_eq!(world.get::<Position>(e), Some(&Position::default()));
    let mut view: EntityWorldMut<'_> = world.spawn((pos(3.0),));
    view.insert(Enemy);
    let f = view.id();
    assert_ne!(e, f);
    assert!(world.has::<Enemy>(f));
}

#[test]
fn spawn_batch_yields_ids_in_bundle_order() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..1000).map(|i| (Position { x: i as f32, y: 0.0 },))).collect();
    assert_eq!(ids.len(), 1000);
    assert_eq!(set(ids.iter().copied()).len(), 1000, "ids are distinct");
    for (i, &id) in ids.iter().enumerate() {
        assert!(world.is_alive(id));
        assert_eq!(world.get::<Position>(id), Some(&pos(i as f32)), "id {i}");
    }
    assert_eq!(world.entity_count(), 1000);
    assert_eq!(world.query::<&Position>().iter(&world).count(), 1000);
}

#[test]
fn spawn_batch_accepts_any_bundle_including_derived_and_hooked() {
    let mut world = hook_world();
    let ids: Vec<Entity> =
        world.spawn_batch((0..3).map(|i| (Mover { pos: pos(i as f32), vel: vel(1.0) }, Health(i as f32)))).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(world.get::<Velocity>(ids[2]), Some(&vel(1.0)));
    let log = take_log(&mut world);
    assert_eq!(log.len(), 3);
    assert_eq!(set(log.iter().map(|(_, e, _)| *e)), set(ids));
}

#[test]
fn spawn_empty_is_alive_counted_queried_and_has_nothing() {
    let mut world = World::new();
    let empty = world.spawn_empty().id();
    assert!(world.is_alive(empty));
    assert_eq!(world.entity_count(), 1);
    assert!(!world.has::<Position>(empty));
    assert_eq!(world.get::<Position>(empty), None);
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), [empty]);
    assert!(world.insert(empty, pos(1.0)));
    assert_eq!(world.get::<Position>(empty), Some(&pos(1.0)));
}

#[test]
fn entity_mut_chains_insert_insert_remove() {
    let mut world = World::new();
    let e = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 })).id();
    world.entity_mut(e).insert(Enemy).insert((Health(10.0), Stunned(2))).remove::<Velocity>();
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Health>(e), Some(&Health(10.0)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    assert!(!world.has::<Velocity>(e));
    assert_eq!(world.get::<Position>(e), Some(&Position::default()));
}

#[test]
fn world_insert_returns_true_and_overwrites_on_alive_entities() {
    let mut world = World::new();
    let e = world.spawn((Health(10.0),)).id();
    let inserted: bool = world.insert(e, Health(5.0));
    assert!(inserted);
    assert_eq!(world.get::<Health>(e), Some(&Health(5.0)));
    assert!(world.insert(e, (pos(1.0), Stunned(1))));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(1)));
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
}

#[test]
fn world_insert_returns_false_for_dead_and_stale_entities() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    world.despawn(e);
    assert!(!world.insert(e, Health(5.0)));
    assert!(!world.is_alive(e), "insert must not resurrect");
    // The index may be reused: the stale handle must not reach the new entity.
    let f = world.spawn((pos(2.0),)).id();
    assert!(!world.insert(e, Health(5.0)));
    assert!(!world.has::<Health>(f));
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn world_insert_into_a_dead_entity_drops_the_value() {
    #[derive(Component)]
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    assert!(!world.insert(e, Counted(drops.clone())));
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn world_remove_returns_the_removed_value() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(10.0), Stunned(4), Enemy)).id();
    let h: Option<Health> = world.remove::<Health>(e);
    assert_eq!(h, Some(Health(10.0)));
    assert_eq!(world.remove::<Stunned>(e), Some(Stunned(4)));
    assert_eq!(world.remove::<Enemy>(e), Some(Enemy));
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert!(!world.has::<Health>(e));
}

#[test]
fn world_remove_of_absent_or_unregistered_or_dead_is_none() {
    #[derive(Component, Debug, PartialEq)]
    struct NeverUsed;
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    assert_eq!(world.remove::<Health>(e), None);
    assert_eq!(world.remove::<NeverUsed>(e), None);
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    world.despawn(e);
    assert_eq!(world.remove::<Position>(e), None);
}

#[test]
fn world_get_returns_option_ref() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(2))).id();
    let p: Option<&Position> = world.get::<Position>(e);
    assert_eq!(p, Some(&pos(1.0)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    assert_eq!(world.get::<Velocity>(e), None);
    world.despawn(e);
    assert_eq!(world.get::<Position>(e), None);
}

#[test]
fn world_get_mut_returns_option_mut_and_writes_persist() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(2))).id();
    {
        let mut p: Mut<'_, Position> = world.get_mut::<Position>(e).unwrap();
        p.x = 9.0;
    }
    world.get_mut::<Stunned>(e).unwrap().0 = 7;
    assert_eq!(world.get::<Position>(e), Some(&pos(9.0)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(7)));
    assert!(world.get_mut::<Velocity>(e).is_none());
    world.despawn(e);
    assert!(world.get_mut::<Position>(e).is_none());
}

#[test]
fn world_has_for_table_sparse_tag_and_unknown_components() {
    #[derive(Component)]
    struct NeverUsed;
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(2), Enemy)).id();
    let has: bool = world.has::<Enemy>(e);
    assert!(has);
    assert!(world.has::<Position>(e));
    assert!(world.has::<Stunned>(e));
    assert!(!world.has::<Velocity>(e));
    assert!(!world.has::<NeverUsed>(e));
    world.despawn(e);
    assert!(!world.has::<Position>(e), "a dead entity has nothing");
}

#[test]
fn is_alive_follows_spawn_and_despawn_and_rejects_stale_ids() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    assert!(world.is_alive(e));
    assert!(world.despawn(e));
    assert!(!world.is_alive(e));
    let reused: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    assert!(!world.is_alive(e), "a stale id stays dead when its index is reused");
    assert!(reused.iter().all(|&r| world.is_alive(r) && r != e));
}

#[test]
fn despawn_returns_whether_it_was_alive() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1))).id();
    let first: bool = world.despawn(e);
    assert!(first);
    assert!(!world.despawn(e));
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<&Stunned>().iter(&world).count(), 0);
}

#[test]
fn despawn_of_a_stale_id_does_not_touch_the_reusing_entity() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    world.despawn(e);
    let f = world.spawn((pos(2.0),)).id();
    assert!(!world.despawn(e));
    assert!(world.is_alive(f));
    assert_eq!(world.get::<Position>(f), Some(&pos(2.0)));
}

#[test]
fn despawn_runs_cleanup_policies_child_of_and_pairs_to_the_target() {
    #[derive(Relationship)]
    struct Likes;
    let mut world = World::new();
    let parent = world.spawn((pos(0.0),)).id();
    let child = world.spawn((pos(1.0), ChildOf.pair(parent))).id();
    let fan = world.spawn((pos(2.0),)).id();
    world.entity_mut(fan).add_pair::<Likes>(parent);
    assert!(world.has_pair::<Likes>(fan, parent));

    assert!(world.despawn(parent));
    assert!(!world.is_alive(child), "ChildOf: on_delete_target = delete");
    assert!(world.is_alive(fan), "default policy removes the pair, not the holder");
    assert!(!world.has_pair::<Likes>(fan, parent));
    assert_eq!(world.targets::<Likes>(fan).count(), 0);
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn entity_count_counts_alive_user_entities_only() {
    #[derive(Relationship)]
    struct Likes;
    #[derive(Event)]
    struct Poke;
    let mut world = World::new();
    assert_eq!(world.entity_count(), 0);
    let a = world.spawn((pos(1.0),)).id();
    let b = world.spawn_empty().id();
    let _ids: Vec<Entity> = world.spawn_batch((0..5).map(|i| (pos(i as f32),))).collect();
    assert_eq!(world.entity_count(), 7);
    world.register_component::<Velocity>();
    world.register_component::<Likes>();
    world.add_observer(|_: Trigger<Poke>| {});
    world.entity_mut(a).add_pair::<Likes>(b);
    world.entity_mut(a).add_pair::<ChildOf>(b);
    world.insert_resource(Time::default());
    assert_eq!(world.entity_count(), 7, "internal entities are not counted");
    world.despawn(b); // a is its child: despawned too
    assert_eq!(world.entity_count(), 5);
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn entity_ref_reads_components_of_alive_entities() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(2))).id();
    let view: EntityRef<'_> = world.entity(e);
    assert_eq!(view.id(), e);
    assert_eq!(view.get::<Position>(), Some(&pos(1.0)));
    assert_eq!(view.get::<Stunned>(), Some(&Stunned(2)));
    assert_eq!(view.get::<Velocity>(), None);
    assert_eq!(world.entity(e).get::<Position>(), Some(&pos(1.0)));
}

#[test]
fn get_entity_is_the_non_panicking_form_of_entity() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let view: Option<EntityRef<'_>> = world.get_entity(e);
    assert_eq!(view.map(|v| v.id()), Some(e));
    world.despawn(e);
    assert!(world.get_entity(e).is_none());
    assert!(world.get_entity_mut(e).is_none());
}

#[test]
#[should_panic]
fn entity_panics_on_a_dead_entity() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    world.despawn(e);
    let _ = world.entity(e);
}

#[test]
#[should_panic]
fn entity_mut_panics_on_a_dead_entity() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    world.despawn(e);
    world.entity_mut(e).insert(Enemy);
}

#[test]
fn resources_insert_read_write_remove() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 0.016 });
    let t: &Time = world.resource::<Time>();
    assert_eq!(t.dt, 0.016);
    world.resource_mut::<Time>().dt = 0.02;
    assert_eq!(world.resource::<Time>().dt, 0.02);
    let m: Mut<'_, Time> = world.resource_mut::<Time>();
    assert_eq!(m.dt, 0.02);
    let removed: Option<Time> = world.remove_resource::<Time>();
    assert_eq!(removed, Some(Time { dt: 0.02 }));
    assert_eq!(world.remove_resource::<Time>(), None);
    assert!(world.get_resource::<Time>().is_none());
}

#[test]
fn get_resource_and_get_resource_mut_are_options() {
    let mut world = World::new();
    assert!(world.get_resource::<Time>().is_none());
    assert!(world.get_resource_mut::<Time>().is_none());
    world.insert_resource(Time { dt: 1.0 });
    let t: Option<&Time> = world.get_resource::<Time>();
    assert_eq!(t, Some(&Time { dt: 1.0 }));
    let m: Option<Mut<'_, Time>> = world.get_resource_mut::<Time>();
    m.unwrap().dt = 2.0;
    assert_eq!(world.resource::<Time>().dt, 2.0);
}

#[test]
fn insert_resource_replaces_the_value() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 1.0 });
    world.insert_resource(Time { dt: 2.0 });
    assert_eq!(world.resource::<Time>().dt, 2.0);
    assert_eq!(world.remove_resource::<Time>(), Some(Time { dt: 2.0 }));
    assert_eq!(world.remove_resource::<Time>(), None);
}

#[test]
#[should_panic]
fn resource_panics_when_missing() {
    let world = World::new();
    let _ = world.resource::<Time>();
}

#[test]
#[should_panic]
fn resource_mut_panics_when_missing() {
    let mut world = World::new();
    world.resource_mut::<Time>().dt = 1.0;
}

#[test]
fn resources_are_not_entities_and_survive_clear_entities() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 1.0 });
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<Entity>().iter(&world).count(), 0);
    world.spawn((pos(1.0),));
    world.clear_entities();
    assert_eq!(world.resource::<Time>().dt, 1.0);
}

#[test]
fn entity_is_copy_eq_ord_hash_debug_and_eight_bytes() {
    fn bounds<T: Copy + Eq + Ord + std::hash::Hash + std::fmt::Debug>() {}
    bounds::<Entity>();
    assert_eq!(std::mem::size_of::<Entity>(), 8);
    assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);

    let mut world = World::new();
    let ids: Vec<Entity> = (0..10).map(|_| world.spawn_empty().id()).collect();
    let hashed: HashSet<Entity> = ids.iter().copied().collect();
    let ordered: BTreeSet<Entity> = ids.iter().copied().collect();
    assert_eq!(hashed.len(), 10);
    assert_eq!(ordered.len(), 10);
    let copy = ids[0];
    assert_eq!(copy, ids[0]);
    assert!(!format!("{copy:?}").is_empty());
    // The order is total and consistent with Eq.
    for a in &ids {
        for b in &ids {
            assert_eq!(a.cmp(b) == std::cmp::Ordering::Equal, a == b);
        }
    }
}

#[test]
fn internal_entities_are_never_matched_by_ordinary_queries() {
    #[derive(Relationship)]
    struct Likes;
    #[derive(Event)]
    struct Poke;
    let mut world = World::new();
    let user = world.spawn((pos(1.0), Name::new("user"))).id();
    let other = world.spawn_empty().id();
    world.register_component::<Velocity>();
    world.register_component::<Likes>();
    world.add_observer(|_: Trigger<Poke>| {});
    world.entity_mut(user).add_pair::<Likes>(other);

    assert_eq!(set(world.query::<Entity>().iter(&world)), set([user, other]));
    assert_eq!(world.query::<()>().iter(&world).count(), 2);
    assert_eq!(world.query::<Option<&Position>>().iter(&world).count(), 2);
    assert_eq!(world.query::<Has<Velocity>>().iter(&world).count(), 2);
    assert_eq!(world.query_filtered::<Entity, Without<Position>>().iter(&world).collect::<Vec<_>>(), [other]);
    // Name is carried by user entities too, so naming it does not reach component entities.
    assert_eq!(world.query::<(Entity, &Name)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [user]);
    assert_eq!(world.query_filtered::<Entity, With<Name>>().iter(&world).collect::<Vec<_>>(), [user]);
    assert_eq!(world.query_filtered::<Entity, Or<(With<Position>, Without<Position>)>>().iter(&world).count(), 2);
}

#[test]
fn internal_entities_are_matched_by_a_term_only_they_carry() {
    let mut world = World::new();
    world.spawn((pos(1.0),));
    let id = world.register_component::<Velocity>();
    let mut q = world.query::<(Entity, &ecs::component::ComponentInfo)>();
    assert!(q.iter(&world).any(|(e, _)| e == id));
}

// ===== Queries ===========================================================================

#[test]
fn query_state_iter_mut_writes_through_mut() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), vel(2.0))).id();
    let b = world.spawn((pos(10.0), vel(-1.0), Enemy)).id();
    let c = world.spawn((pos(5.0),)).id();
    let mut q: QueryState<(Entity, &mut Position, &Velocity)> = world.query::<(Entity, &mut Position, &Velocity)>();
    let mut seen = Vec::new();
    for (e, mut pos, vel) in q.iter_mut(&mut world) {
        pos.x += vel.x;
        seen.push(e);
    }
    assert_eq!(set(seen), set([a, b]));
    assert_eq!(world.get::<Position>(a), Some(&pos(3.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(9.0)));
    assert_eq!(world.get::<Position>(c), Some(&pos(5.0)));
}

#[test]
fn mut_term_yields_mut() {
    let mut world = World::new();
    world.spawn((pos(1.0),));
    let mut q = world.query::<&mut Position>();
    for p in q.iter_mut(&mut world) {
        let mut p: Mut<'_, Position> = p;
        p.y = 4.0;
    }
    assert_eq!(world.query::<&Position>().iter(&world).next(), Some(&Position { x: 1.0, y: 4.0 }));
}

#[test]
fn query_filtered_with_and_without_counts() {
    let mut world = World::new();
    world.spawn((pos(1.0), Enemy));
    world.spawn((pos(2.0), Enemy, Stunned(1)));
    world.spawn((pos(3.0),));
    world.spawn((Enemy,));
    let mut q = world.query_filtered::<&Position, (With<Enemy>, Without<Stunned>)>();
    let n = q.iter(&world).count();
    assert_eq!(n, 1);
    assert_eq!(q.iter(&world).next(), Some(&pos(1.0)));
}

#[test]
fn query_get_returns_result_with_query_error() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Enemy)).id();
    let stunned = world.spawn((pos(2.0), Enemy, Stunned(1))).id();
    let plain = world.spawn((pos(3.0),)).id();
    let mut q = world.query_filtered::<&Position, (With<Enemy>, Without<Stunned>)>();
    let p: Option<&Position> = q.get(&world, e).ok();
    assert_eq!(p, Some(&pos(1.0)));
    let r: Result<&Position, QueryError> = q.get(&world, stunned);
    assert_eq!(r, Err(QueryError::QueryDoesNotMatch(stunned)));
    assert_eq!(q.get(&world, plain), Err(QueryError::QueryDoesNotMatch(plain)));
    world.despawn(e);
    assert_eq!(q.get(&world, e), Err(QueryError::NoSuchEntity(e)));
}

#[test]
fn query_errors_are_std_errors_with_display() {
    fn is_error<E: std::error::Error>(_: &E) {}
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let mut q = world.query::<&Position>();
    let err = q.get(&world, e).unwrap_err();
    is_error(&err);
    assert!(!err.to_string().is_empty());
    let single = q.single(&world).unwrap_err();
    is_error(&single);
    assert!(!single.to_string().is_empty());
}

#[test]
fn query_single_errs_for_none_and_many() {
    let mut world = World::new();
    let mut q = world.query_filtered::<&Position, (With<Enemy>, Without<Stunned>)>();
    let none: Result<&Position, QuerySingleError> = q.single(&world);
    assert!(matches!(none, Err(QuerySingleError::NoEntities(_))), "{none:?}");
    world.spawn((pos(1.0), Enemy));
    world.spawn((pos(2.0), Enemy, Stunned(1)));
    assert_eq!(q.single(&world), Ok(&pos(1.0)));
    world.spawn((pos(3.0), Enemy));
    assert!(matches!(q.single(&world), Err(QuerySingleError::MultipleEntities(_))));
}

#[test]
fn query_get_and_single_see_archetypes_created_after_the_state() {
    let mut world = World::new();
    let mut q = world.query::<(Entity, &Position)>();
    let e = world.spawn((pos(1.0), Stunned(1), Enemy, vel(1.0))).id();
    assert_eq!(q.get(&world, e).map(|(id, p)| (id, *p)), Ok((e, pos(1.0))));
    assert_eq!(q.single(&world).map(|(id, _)| id), Ok(e));
}

#[test]
fn query_get_mut_writes_one_entity() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let b = world.spawn((pos(2.0),)).id();
    let mut q = world.query::<&mut Position>();
    q.get_mut(&mut world, a).unwrap().x = 100.0;
    assert_eq!(world.get::<Position>(a), Some(&pos(100.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(2.0)));
}

#[test]
fn option_term_over_a_tuple_query() {
    let mut world = World::new();
    let both = world.spawn((pos(1.0), vel(2.0))).id();
    let only_pos = world.spawn((pos(3.0),)).id();
    let mut q = world.query::<(Entity, Option<(&Position, &Velocity)>)>();
    let mut rows: Vec<(Entity, Option<(Position, Velocity)>)> =
        q.iter(&world).map(|(e, o)| (e, o.map(|(p, v)| (*p, *v)))).collect();
    rows.sort_by_key(|(e, _)| *e);
    let mut expected = vec![(both, Some((pos(1.0), vel(2.0)))), (only_pos, None)];
    expected.sort_by_key(|(e, _)| *e);
    assert_eq!(rows, expected);
}

#[test]
fn option_mut_term_yields_option_mut_and_writes() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), vel(1.0))).id();
    let b = world.spawn((pos(2.0),)).id();
    let c = world.spawn((pos(3.0), Stunned(1))).id();
    let mut q = world.query::<(Entity, Option<&mut Velocity>, Option<&mut Stunned>)>();
    let mut count = 0;
    for (_, v, s) in q.iter_mut(&mut world) {
        let v: Option<Mut<'_, Velocity>> = v;
        if let Some(mut v) = v {
            v.x = 50.0;
        }
        if let Some(mut s) = s {
            s.0 = 60;
        }
        count += 1;
    }
    assert_eq!(count, 3);
    assert_eq!(world.get::<Velocity>(a), Some(&vel(50.0)));
    assert_eq!(world.get::<Velocity>(b), None);
    assert_eq!(world.get::<Stunned>(c), Some(&Stunned(60)));
}

#[test]
fn has_term_for_table_sparse_and_tag() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), Enemy, Stunned(1), vel(0.0))).id();
    let b = world.spawn((pos(2.0),)).id();
    let mut q = world.query::<(Entity, Has<Enemy>, Has<Stunned>, Has<Velocity>)>();
    let rows: BTreeSet<(Entity, bool, bool, bool)> = q.iter(&world).collect();
    assert_eq!(rows, set([(a, true, true, true), (b, false, false, false)]));
    // Has never filters.
    assert_eq!(world.query::<Has<Health>>().iter(&world).count(), 2);
}

#[test]
fn nested_tuple_data_terms() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), vel(2.0), Stunned(3))).id();
    let mut q = world.query::<(Entity, (&Position, (&Velocity, &Stunned)))>();
    let (id, (p, (v, s))) = q.single(&world).unwrap();
    assert_eq!((id, *p, *v, s.0), (e, pos(1.0), vel(2.0), 3));
}

#[test]
fn empty_filter_and_unit_data_query_every_user_entity() {
    let mut world = World::new();
    world.spawn((pos(1.0),));
    world.spawn_empty();
    world.spawn((Stunned(1),));
    assert_eq!(world.query::<()>().iter(&world).count(), 3);
    assert_eq!(world.query_filtered::<Entity, ()>().iter(&world).count(), 3);
}

#[test]
fn or_filter_with_and_without_terms() {
    let mut world = World::new();
    let enemy = world.spawn((pos(1.0), Enemy)).id();
    let stunned = world.spawn((pos(2.0), Stunned(1))).id();
    let both = world.spawn((pos(3.0), Enemy, Stunned(1))).id();
    let neither = world.spawn((pos(4.0),)).id();
    let mut q = world.query_filtered::<Entity, Or<(With<Enemy>, With<Stunned>)>>();
    assert_eq!(set(q.iter(&world)), set([enemy, stunned, both]));
    let mut q = world.query_filtered::<Entity, Or<(Without<Enemy>, With<Stunned>)>>();
    assert_eq!(set(q.iter(&world)), set([stunned, both, neither]));
    let mut q = world.query_filtered::<Entity, (With<Position>, Or<(With<Enemy>,)>)>();
    assert_eq!(set(q.iter(&world)), set([enemy, both]));
}

macro_rules! components {
    ($($name:ident),*) => {
        $(#[derive(Component, Debug, PartialEq, Clone, Copy)] struct $name(u8);)*
    };
}
components!(K0, K1, K2, K3, K4, K5, K6, K7, K8, K9, K10, K11, K12, K13, K14, K15);

#[test]
fn sixteen_term_tuples_of_mixed_data_terms() {
    let mut world = World::new();
    let e = world.spawn((K0(0), K1(1), K2(2), K3(3), K4(4), K5(5), K6(6), K7(7))).id();
    let mut q = world.query::<(
        Entity,
        &K0,
        &mut K1,
        Option<&K2>,
        Option<&mut K3>,
        Has<K4>,
        Has<K8>,
        Option<&K9>,
        &K5,
        &K6,
        &K7,
        Option<&K10>,
        Option<&K11>,
        Has<K12>,
        Option<&K13>,
        Option<&K14>,
    )>();
    let row = q.single_mut(&mut world).unwrap();
    let (id, k0, mut k1, k2, k3, h4, h8, k9, k5, _, k7, k10, _, h12, _, k14) = row;
    assert_eq!(id, e);
    assert_eq!(k0.0, 0);
    k1.0 = 11;
    assert_eq!(k2.map(|k| k.0), Some(2));
    k3.unwrap().0 = 33;
    assert!(h4 && !h8 && !h12);
    assert!(k9.is_none() && k10.is_none() && k14.is_none());
    assert_eq!((k5.0, k7.0), (5, 7));
    assert_eq!(world.get::<K1>(e), Some(&K1(11)));
    assert_eq!(world.get::<K3>(e), Some(&K3(33)));
}

#[test]
fn sixteen_term_filter_tuples_with_change_filters() {
    let mut world = World::new();
    let full = world
        .spawn((K0(0), K1(1), K2(2), K3(3), K4(4), K5(5), K6(6), K7(7), K8(8), K9(9), K10(10), K11(11), K12(12)))
        .id();
    world.spawn((K0(0),));
    type F = (
        With<K0>,
        With<K1>,
        With<K2>,
        With<K3>,
        With<K4>,
        With<K5>,
        With<K6>,
        With<K7>,
        With<K8>,
        With<K9>,
        With<K10>,
        With<K11>,
        Added<K12>,
        Changed<K0>,
        Without<K13>,
        Or<(Without<K14>, With<K15>)>,
    );
    let mut q = world.query_filtered::<Entity, F>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [full]);
    assert_eq!(q.iter(&world).count(), 0, "second run: nothing added or changed");
}

// ----- Added / Changed ------------------------------------------------------------------

#[test]
fn first_run_sees_every_row_as_added_and_changed_for_all_storages() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), Stunned(1), Enemy)).id();
    let b = world.spawn((pos(2.0), Stunned(2), Enemy)).id();
    let mut added = world.query_filtered::<Entity, (Added<Position>, Added<Stunned>, Added<Enemy>)>();
    let mut changed = world.query_filtered::<Entity, (Changed<Position>, Changed<Stunned>, Changed<Enemy>)>();
    assert_eq!(set(added.iter(&world)), set([a, b]));
    assert_eq!(set(changed.iter(&world)), set([a, b]));
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn a_query_state_created_after_a_change_still_sees_it_on_its_first_run() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let mut first = world.query_filtered::<Entity, Changed<Position>>();
    assert_eq!(first.iter(&world).count(), 1);
    assert_eq!(first.iter(&world).count(), 0);
    let mut late = world.query_filtered::<Entity, Added<Position>>();
    assert_eq!(late.iter(&world).collect::<Vec<_>>(), [a]);
}

#[test]
fn insert_over_existing_marks_changed_not_added_even_inside_a_bundle() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let mut added_pos = world.query_filtered::<Entity, Added<Position>>();
    let mut changed_pos = world.query_filtered::<Entity, Changed<Position>>();
    let mut added_vel = world.query_filtered::<Entity, Added<Velocity>>();
    added_pos.iter(&world).count();
    changed_pos.iter(&world).count();
    added_vel.iter(&world).count();

    // One bundle: Position overwritten, Velocity new.
    assert!(world.insert(e, (pos(2.0), vel(1.0))));
    assert_eq!(added_pos.iter(&world).count(), 0, "overwrite is not an add");
    assert_eq!(changed_pos.iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(added_vel.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn insert_over_existing_through_entity_mut_marks_changed_not_added() {
    let mut world = World::new();
    let e = world.spawn((Stunned(1), Enemy)).id();
    let mut added = world.query_filtered::<Entity, Or<(Added<Stunned>, Added<Enemy>)>>();
    let mut changed = world.query_filtered::<Entity, (Changed<Stunned>, Changed<Enemy>)>();
    added.iter(&world).count();
    changed.iter(&world).count();
    world.entity_mut(e).insert((Stunned(2), Enemy));
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn mut_from_world_get_mut_marks_changed_only_when_written() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1))).id();
    let mut changed = world.query_filtered::<Entity, Or<(Changed<Position>, Changed<Stunned>)>>();
    changed.iter(&world).count();

    {
        let p = world.get_mut::<Position>(e).unwrap();
        assert_eq!(p.x, 1.0); // read only
        let s = world.get_mut::<Stunned>(e).unwrap();
        assert_eq!(s.0, 1);
    }
    assert_eq!(changed.iter(&world).count(), 0, "reading through Mut is not a change");

    world.get_mut::<Stunned>(e).unwrap().0 = 2;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn mut_from_a_query_marks_only_rows_written_through() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let _b = world.spawn((pos(2.0),)).id();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    changed.iter(&world).count();
    let mut writer = world.query::<(Entity, &mut Position)>();
    for (e, mut p) in writer.iter_mut(&mut world) {
        if e == a {
            p.x = 10.0;
        } else {
            let _read = p.x;
        }
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
}

#[test]
fn moving_between_archetypes_keeps_the_ticks() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), vel(1.0))).id();
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    added.iter(&world).count();
    changed.iter(&world).count();

    world.entity_mut(e).insert(Enemy); // move to a bigger archetype
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    world.remove::<Velocity>(e); // and to a smaller one
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    world.insert(e, (Health(1.0), Stunned(1)));
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
}

#[test]
fn a_change_made_before_a_move_survives_the_move() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    changed.iter(&world).count();
    added.iter(&world).count();
    world.get_mut::<Position>(e).unwrap().x = 2.0;
    world.entity_mut(e).insert(Enemy);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e], "change tick travels with the value");
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn added_follows_spawn_batch_and_respawn() {
    let mut world = World::new();
    let first = world.spawn((pos(0.0),)).id();
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    added.iter(&world).count();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (pos(i as f32),))).collect();
    assert_eq!(set(added.iter(&world)), set(ids.iter().copied()));
    world.despawn(first);
    let again = world.spawn((pos(9.0),)).id();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [again]);
}

#[test]
fn added_and_changed_are_per_query_state() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let mut q1 = world.query_filtered::<Entity, Changed<Position>>();
    let mut q2 = world.query_filtered::<Entity, Changed<Position>>();
    assert_eq!(q1.iter(&world).count(), 1);
    world.get_mut::<Position>(e).unwrap().x = 3.0;
    assert_eq!(q1.iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(q2.iter(&world).collect::<Vec<_>>(), [e], "q2 has never run: sees everything");
    assert_eq!(q1.iter(&world).count(), 0);
    assert_eq!(q2.iter(&world).count(), 0);
}

#[test]
fn or_of_added_and_changed_filters() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), vel(1.0))).id();
    let b = world.spawn((pos(2.0), vel(2.0))).id();
    let mut q = world.query_filtered::<Entity, Or<(Added<Position>, Changed<Velocity>)>>();
    assert_eq!(set(q.iter(&world)), set([a, b]));
    world.get_mut::<Velocity>(b).unwrap().x = 5.0;
    let c = world.spawn((pos(3.0),)).id();
    assert_eq!(set(q.iter(&world)), set([b, c]));
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn mut_reports_added_and_changed_relative_to_its_query_run() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let mut q = world.query::<&mut Position>();
    {
        let p = q.get_mut(&mut world, e).unwrap();
        assert!(p.is_added());
        assert!(p.is_changed());
    }
    // After a full run, an untouched row is neither added nor changed.
    for p in q.iter_mut(&mut world) {
        let _ = p.x;
    }
    for p in q.iter_mut(&mut world) {
        assert!(!p.is_added());
        assert!(!p.is_changed());
    }
}

#[test]
fn removed_and_reinserted_is_added_again() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1))).id();
    let mut added = world.query_filtered::<Entity, Or<(Added<Position>, Added<Stunned>)>>();
    added.iter(&world).count();
    world.remove::<Stunned>(e);
    world.insert(e, Stunned(2));
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [e]);
}

// ===== ported from hecs ==================================================================

#[test]
fn port_hecs_random_access() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(2.0))).id();
    let f = world.spawn((pos(3.0), Health(4.0), Stunned(5))).id();
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert_eq!(world.get::<Health>(e), Some(&Health(2.0)));
    assert_eq!(world.get::<Stunned>(e), None);
    assert_eq!(world.get::<Position>(f), Some(&pos(3.0)));
    assert_eq!(world.get::<Stunned>(f), Some(&Stunned(5)));
    world.get_mut::<Health>(f).unwrap().0 = 42.0;
    assert_eq!(world.get::<Health>(f), Some(&Health(42.0)));
}

#[test]
fn port_hecs_despawn() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(1.0))).id();
    let f = world.spawn((pos(2.0), Health(2.0))).id();
    assert_eq!(world.query::<()>().iter(&world).count(), 2);
    assert!(world.despawn(e));
    assert_eq!(world.query::<()>().iter(&world).count(), 1);
    assert!(world.get::<Position>(e).is_none());
    assert!(world.get::<Health>(e).is_none());
    assert_eq!(world.get::<Position>(f), Some(&pos(2.0)));
}

#[test]
fn port_hecs_query_all() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(5.0))).id();
    let f = world.spawn((pos(2.0), Health(6.0), Enemy)).id();
    let rows: Vec<(Entity, Position, f32)> =
        world.query::<(Entity, &Position, &Health)>().iter(&world).map(|(id, p, h)| (id, *p, h.0)).collect();
    assert_eq!(rows.len(), 2);
    assert!(rows.contains(&(e, pos(1.0), 5.0)));
    assert!(rows.contains(&(f, pos(2.0), 6.0)));
    let ents = set(world.query::<Entity>().iter(&world));
    assert_eq!(ents, set([e, f]));
}

#[test]
fn port_hecs_remove_missing() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(1.0))).id();
    assert!(world.remove::<Velocity>(e).is_none());
    assert!(world.remove::<(Position, Velocity)>(e).is_none());
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)), "a failed bundle remove keeps everything");
}

#[test]
fn port_hecs_spawn_many() {
    let mut world = World::new();
    const N: usize = 10_000;
    for i in 0..N {
        world.spawn((Health(i as f32),));
    }
    assert_eq!(world.query::<&Health>().iter(&world).count(), N);
    assert_eq!(world.entity_count(), N);
}

#[test]
fn port_hecs_query_one() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let b = world.spawn((pos(2.0), Health(3.0))).id();
    let mut q = world.query::<(&Position, &Health)>();
    assert!(q.get(&world, a).is_err());
    assert_eq!(q.get(&world, b).map(|(p, h)| (*p, h.0)), Ok((pos(2.0), 3.0)));
    world.despawn(b);
    assert!(q.get(&world, b).is_err());
}

#[test]
fn port_hecs_clear() {
    let mut world = World::new();
    world.spawn((pos(1.0), Health(1.0)));
    world.spawn((pos(2.0),));
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<Entity>().iter(&world).count(), 0);
    let e = world.spawn((pos(3.0),)).id();
    assert_eq!(world.query::<&Position>().iter(&world).collect::<Vec<_>>(), [&pos(3.0)]);
    assert!(world.is_alive(e));
}

// ===== ported from bevy_ecs ==============================================================

#[test]
fn port_bevy_stateful_query_handles_new_archetype() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), vel(1.0))).id();
    let mut q = world.query::<&Position>();
    assert_eq!(q.iter(&world).copied().collect::<Vec<_>>(), [pos(1.0)]);
    let b = world.spawn((pos(2.0), Stunned(1))).id();
    assert_eq!(set(q.iter(&world).map(|p| p.x as i32)), set([1, 2]));
    assert!(q.get(&world, b).is_ok());
    assert!(q.get(&world, a).is_ok());
}

#[test]
fn port_bevy_query_all_for_each() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(5.0))).id();
    let f = world.spawn((pos(2.0), Health(6.0), Enemy)).id();
    let mut seen = Vec::new();
    world.query::<(Entity, &Health)>().iter(&world).for_each(|(id, h)| seen.push((id, h.0)));
    seen.sort_by_key(|(id, _)| *id);
    let mut expected = vec![(e, 5.0), (f, 6.0)];
    expected.sort_by_key(|(id, _)| *id);
    assert_eq!(seen, expected);
}

#[test]
fn port_bevy_multi_storage_query() {
    let mut world = World::new();
    let a = world.spawn((Stunned(1), Health(1.0))).id();
    world.spawn((Stunned(2),));
    let mut q = world.query::<(Entity, &Stunned, &mut Health)>();
    let mut rows = Vec::new();
    for (e, s, mut h) in q.iter_mut(&mut world) {
        h.0 += s.0 as f32;
        rows.push(e);
    }
    assert_eq!(rows, [a]);
    assert_eq!(world.get::<Health>(a), Some(&Health(2.0)));
}

#[test]
fn port_bevy_has_query() {
    let mut world = World::new();
    world.spawn((pos(1.0),));
    world.spawn((pos(2.0), Enemy));
    let mut q = world.query::<Has<Enemy>>();
    let mut values: Vec<bool> = q.iter(&world).collect();
    values.sort();
    assert_eq!(values, [false, true]);
}

#[test]
fn port_bevy_insert_overwrite_drop_table_and_sparse() {
    #[derive(Component)]
    struct Tracked(#[allow(dead_code)] Arc<()>);
    #[derive(Component)]
    #[component(storage = "sparse")]
    struct TrackedSparse(#[allow(dead_code)] Arc<()>);

    let (first, second) = (Arc::new(()), Arc::new(()));
    let mut world = World::new();
    let e = world.spawn((Tracked(first.clone()),)).id();
    world.insert(e, Tracked(second.clone()));
    assert_eq!(Arc::strong_count(&first), 1, "the overwritten value is dropped");
    assert_eq!(Arc::strong_count(&second), 2);
    world.despawn(e);
    assert_eq!(Arc::strong_count(&second), 1);

    let (first, second) = (Arc::new(()), Arc::new(()));
    let e = world.spawn((TrackedSparse(first.clone()),)).id();
    world.insert(e, TrackedSparse(second.clone()));
    assert_eq!(Arc::strong_count(&first), 1, "the overwritten sparse value is dropped");
    assert_eq!(Arc::strong_count(&second), 2);
    world.despawn(e);
    assert_eq!(Arc::strong_count(&second), 1);
}

#[test]
fn port_bevy_take() {
    let mut world = World::new();
    let e = world.spawn((Health(1.0), Stunned(2), pos(3.0))).id();
    let taken: Option<(Health, Stunned)> = world.entity_mut(e).take::<(Health, Stunned)>();
    assert_eq!(taken, Some((Health(1.0), Stunned(2))));
    assert!(!world.has::<Health>(e));
    assert!(!world.has::<Stunned>(e));
    assert_eq!(world.get::<Position>(e), Some(&pos(3.0)));
    assert_eq!(world.entity_mut(e).take::<(Health,)>(), None);
}

#[test]
fn port_bevy_many_entities() {
    let mut world = World::new();
    world.spawn((pos(0.0), Health(1.0)));
    world.spawn((pos(0.0), Health(2.0)));
    world.spawn((pos(0.0),));
    let mut q = world.query_filtered::<Entity, With<Health>>();
    let ids: Vec<Entity> = q.iter(&world).collect();
    let mut read = world.query::<&Health>();
    let mut total = 0.0;
    for id in ids {
        total += read.get(&world, id).unwrap().0;
    }
    assert_eq!(total, 3.0);
}

#[test]
fn port_bevy_query_filter_without_and_with_sparse() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), Stunned(1))).id();
    let b = world.spawn((pos(2.0),)).id();
    let with: Vec<Entity> = world.query_filtered::<Entity, With<Stunned>>().iter(&world).collect();
    let without: Vec<Entity> = world.query_filtered::<Entity, Without<Stunned>>().iter(&world).collect();
    assert_eq!(with, [a]);
    assert_eq!(without, [b]);
}

#[test]
fn port_bevy_spawn_batch_then_query() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..100).map(|i| (pos(i as f32), Health(i as f32)))).collect();
    let sum: f32 = world.query::<&Health>().iter(&world).map(|h| h.0).sum();
    assert_eq!(sum, (0..100).sum::<i32>() as f32);
    assert_eq!(world.get::<Health>(ids[42]), Some(&Health(42.0)));
}

// ===== more edges ========================================================================

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparseTag;

#[test]
fn sparse_zero_sized_component_get_remove_query() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), SparseTag)).id();
    let f = world.spawn((SparseTag,)).id();
    assert_eq!(world.get::<SparseTag>(e), Some(&SparseTag));
    assert!(world.has::<SparseTag>(f));
    assert_eq!(set(world.query_filtered::<Entity, With<SparseTag>>().iter(&world)), set([e, f]));
    assert_eq!(world.query::<&SparseTag>().iter(&world).count(), 2);
    assert_eq!(world.remove::<SparseTag>(e), Some(SparseTag));
    assert_eq!(world.query::<(Entity, &SparseTag)>().iter(&world).map(|(x, _)| x).collect::<Vec<_>>(), [f]);
}

#[test]
fn sparse_values_do_not_leak_to_an_entity_reusing_the_index() {
    let mut world = World::new();
    let mut olds = Vec::new();
    for _ in 0..8 {
        olds.push(world.spawn((Stunned(9), SparseTag)).id());
    }
    for &e in &olds {
        world.despawn(e);
    }
    let news: Vec<Entity> = (0..8).map(|_| world.spawn((pos(0.0),)).id()).collect();
    for &n in &news {
        assert!(!world.has::<Stunned>(n), "{n:?} inherited a stale sparse value");
        assert!(!world.has::<SparseTag>(n));
        assert_eq!(world.get::<Stunned>(n), None);
    }
    assert_eq!(world.query::<&Stunned>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<Entity, With<SparseTag>>().iter(&world).count(), 0);
    assert_eq!(world.query::<Has<Stunned>>().iter(&world).filter(|h| *h).count(), 0);
}

#[test]
fn sparse_only_entity_is_queryable_and_fully_despawned() {
    let mut world = World::new();
    let e = world.spawn((Stunned(1),)).id();
    assert_eq!(world.query::<(Entity, &Stunned)>().iter(&world).map(|(x, s)| (x, s.0)).collect::<Vec<_>>(), [(e, 1)]);
    assert!(world.despawn(e));
    assert_eq!(world.query::<&Stunned>().iter(&world).count(), 0);
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn spawn_batch_with_an_inexact_size_hint() {
    let mut world = World::new();
    let ids: Vec<Entity> =
        world.spawn_batch((0..20).filter(|i| i % 3 == 0).map(|i| (pos(i as f32), Stunned(i)))).collect();
    assert_eq!(ids.len(), 7);
    for (k, &id) in ids.iter().enumerate() {
        assert_eq!(world.get::<Stunned>(id), Some(&Stunned(3 * k as u32)));
    }
    assert_eq!(world.entity_count(), 7);
}

#[test]
fn spawning_the_unit_bundle_and_inserting_the_unit_bundle() {
    let mut world = World::new();
    let e = world.spawn(()).id();
    assert!(world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
    assert!(world.insert(e, ()));
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    assert!(!world.insert(dead, ()), "false: entity not alive, even for an empty bundle");
}

#[test]
fn derived_bundle_through_world_insert_and_entity_mut_remove() {
    let mut world = World::new();
    let e = world.spawn((Enemy,)).id();
    assert!(world.insert(e, Mover { pos: pos(1.0), vel: vel(2.0) }));
    assert_eq!(world.get::<Velocity>(e), Some(&vel(2.0)));
    world.entity_mut(e).remove::<Mover>();
    assert!(!world.has::<Position>(e) && !world.has::<Velocity>(e));
    assert!(world.has::<Enemy>(e));
}

#[test]
fn clear_entities_runs_on_remove_hooks() {
    let mut world = hook_world();
    let e = world.spawn((Health(3.0),)).id();
    take_log(&mut world);
    world.clear_entities();
    assert_eq!(take_log(&mut world), [("remove", e, Some(3.0))]);
}

#[test]
fn clear_entities_keeps_internal_entities_working() {
    #[derive(Event)]
    struct Poke;
    #[derive(Resource, Default)]
    struct Pokes(usize);
    let mut world = World::new();
    world.init_resource::<Pokes>();
    world.add_observer(|_: Trigger<Poke>, mut n: ResMut<Pokes>| n.0 += 1);
    let comp = world.register_component::<Position>();
    world.spawn((pos(1.0),));
    world.clear_entities();
    assert!(world.is_alive(comp), "component entities are not user entities");
    world.trigger(Poke);
    assert_eq!(world.resource::<Pokes>().0, 1, "observers survive clear_entities");
    let e = world.spawn((pos(2.0),)).id();
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn without_a_term_only_internal_entities_carry_matches_no_internal_entity() {
    let mut world = World::new();
    let user = world.spawn((pos(1.0),)).id();
    world.register_component::<Velocity>();
    let mut q = world.query_filtered::<Entity, Without<ecs::component::ComponentInfo>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [user]);
}

#[test]
fn option_mut_not_written_does_not_mark_changed() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), vel(1.0))).id();
    let mut changed = world.query_filtered::<Entity, Changed<Velocity>>();
    changed.iter(&world).count();
    let mut q = world.query::<Option<&mut Velocity>>();
    for v in q.iter_mut(&mut world) {
        assert_eq!(v.map(|v| v.x), Some(1.0));
    }
    assert_eq!(changed.iter(&world).count(), 0);
    for v in q.iter_mut(&mut world) {
        v.unwrap().x = 2.0;
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn entity_world_mut_get_mut_marks_changed_when_written() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    changed.iter(&world).count();
    {
        let mut view = world.entity_mut(e);
        let p = view.get_mut::<Position>().unwrap();
        assert_eq!(p.x, 1.0);
    }
    assert_eq!(changed.iter(&world).count(), 0);
    world.entity_mut(e).get_mut::<Position>().unwrap().x = 5.0;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn query_single_with_a_change_filter() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0),)).id();
    let _b = world.spawn((pos(2.0),)).id();
    let mut q = world.query_filtered::<Entity, Changed<Position>>();
    assert_eq!(q.iter(&world).count(), 2);
    world.get_mut::<Position>(a).unwrap().x = 3.0;
    assert_eq!(q.single(&world), Ok(a));
}

#[test]
fn despawned_entities_leave_every_query() {
    let mut world = World::new();
    let a = world.spawn((pos(1.0), vel(1.0), Stunned(1), Enemy)).id();
    let b = world.spawn((pos(2.0), vel(2.0), Stunned(2), Enemy)).id();
    let mut q = world.query::<(Entity, &Position, Option<&Stunned>, Has<Enemy>)>();
    assert_eq!(q.iter(&world).count(), 2);
    world.despawn(a);
    assert_eq!(q.iter(&world).map(|(e, ..)| e).collect::<Vec<_>>(), [b]);
    assert_eq!(q.get(&world, a).map(|_| ()), Err(QueryError::NoSuchEntity(a)));
}

#[test]
fn hooks_do_not_run_when_the_entity_only_moves() {
    let mut world = hook_world();
    let e = world.spawn((Health(1.0), pos(0.0))).id();
    take_log(&mut world);
    world.insert(e, (vel(1.0), Enemy));
    world.remove::<Position>(e);
    world.insert(e, Stunned(1));
    world.remove::<Stunned>(e);
    assert!(take_log(&mut world).is_empty(), "moves are neither adds nor removes of Health");
    // A failed bundle remove removes nothing and runs no hook.
    assert!(world.remove::<(Health, Position)>(e).is_none());
    assert!(take_log(&mut world).is_empty());
    assert!(world.has::<Health>(e));
}

#[test]
fn filters_on_unregistered_components() {
    #[derive(Component)]
    struct NeverUsed;
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    assert_eq!(world.query_filtered::<Entity, With<NeverUsed>>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<Entity, Without<NeverUsed>>().iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(world.query::<&NeverUsed>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<Entity, Added<NeverUsed>>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<Entity, Changed<NeverUsed>>().iter(&world).count(), 0);
}

#[test]
fn added_and_changed_imply_presence() {
    let mut world = World::new();
    let with = world.spawn((pos(1.0), Stunned(1), Enemy)).id();
    world.spawn((vel(1.0),));
    let mut q = world.query_filtered::<Entity, (Added<Position>, Changed<Stunned>, Added<Enemy>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [with]);
    let mut q = world.query_filtered::<Entity, Changed<Stunned>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [with]);
}

#[test]
#[should_panic]
fn spawn_batch_with_a_duplicate_component_panics() {
    let mut world = World::new();
    let _ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| (pos(i as f32), pos(0.0)))).collect();
}

#[test]
fn despawn_of_a_deep_child_of_chain() {
    let mut world = World::new();
    let root = world.spawn((pos(0.0),)).id();
    let mut last = root;
    for i in 0..5_000 {
        last = world.spawn((pos(i as f32), ChildOf.pair(last))).id();
    }
    assert_eq!(world.entity_count(), 5_001);
    assert!(world.despawn(root));
    assert!(!world.is_alive(last));
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn despawn_of_an_entity_that_targets_itself() {
    #[derive(Relationship)]
    struct Likes;
    let mut world = World::new();
    let e = world.spawn((pos(1.0),)).id();
    let other = world.spawn((pos(2.0),)).id();
    world.entity_mut(e).add_pair::<Likes>(e);
    world.entity_mut(other).add_pair::<Likes>(e);
    assert!(world.has_pair::<Likes>(e, e));
    assert!(world.despawn(e));
    assert!(!world.is_alive(e));
    assert!(!world.has_pair::<Likes>(other, e));
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn query_state_iter_count_matches_entity_count_across_churn() {
    let mut world = World::new();
    let mut q = world.query::<Entity>();
    let mut alive = Vec::new();
    for round in 0..20u32 {
        for i in 0..10u32 {
            let e = match (round + i) % 4 {
                0 => world.spawn((pos(0.0),)).id(),
                1 => world.spawn((pos(0.0), Stunned(i))).id(),
                2 => world.spawn((Enemy, vel(1.0))).id(),
                _ => world.spawn_empty().id(),
            };
            alive.push(e);
        }
        for k in (0..alive.len()).rev().step_by(3) {
            let e = alive.swap_remove(k);
            assert!(world.despawn(e));
        }
        assert_eq!(world.entity_count(), alive.len());
        assert_eq!(set(q.iter(&world)), set(alive.iter().copied()));
    }
}

#[test]
fn read_only_iter_of_a_mutable_query_state() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), vel(2.0))).id();
    let mut q = world.query::<(Entity, &mut Position, &Velocity)>();
    let rows: Vec<(Entity, Position, Velocity)> = q.iter(&world).map(|(id, p, v)| (id, *p, *v)).collect();
    assert_eq!(rows, [(e, pos(1.0), vel(2.0))]);
    let (id, p, _) = q.get(&world, e).unwrap();
    assert_eq!((id, *p), (e, pos(1.0)));
    let (id, ..) = q.single(&world).unwrap();
    assert_eq!(id, e);
}
