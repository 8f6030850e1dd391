//! Robustness of the public API (API.md) against bad input: dead, stale,
//! placeholder, reserved and foreign entities; dead or wildcard pair halves;
//! cycles; commands on entities that died before they applied; malformed
//! paths, ranges and DSL text; unknown ids, resources, messages and systems.
//!
//! The project's rule: bad input gets a clear error, never UB and never a silent
//! wrong answer. Each test checks the documented outcome (`None`/`Err`/`false`,
//! or a panic documented in `# Panics` whose message names the entity and/or
//! the component), then that the world is still consistent
//! ([`World::check_invariants`]) and a valid operation still works.
//!
//! One limit is documented rather than tested: an [`Id`] keeps entity indices
//! only, so an `Id::pair(relationship, target)` built from a dead `target`
//! names whatever entity has that index now (`add_pair_id`, which takes
//! handles, refuses dead halves).

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::DynGetError;
use ecs::system::CommandQueue;
use ecs::world::{NameError, PairError};
use ecs_tests::{DropLog, panic_message};

// ----- types -----------------------------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(i32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Vel(i32);
#[derive(Component, Debug)]
struct Tag;
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(f32);
#[derive(Component, Clone, Debug, PartialEq)]
struct MaxSpeed(f32);
#[derive(Component, Debug, PartialEq)]
struct Gravity(i32);

#[derive(Relationship)]
struct Likes;
#[derive(Relationship, Debug, PartialEq)]
struct Eats {
    amount: u32,
}
#[derive(Relationship)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;
#[derive(Relationship)]
#[relationship(acyclic)]
struct DependsOn;
#[derive(Relationship)]
#[relationship(on_delete_target = "panic")]
struct Anchored;
#[derive(Relationship)]
#[relationship(union)]
struct Movement;

#[derive(Resource, Default, Debug)]
struct Time {
    dt: f32,
}
#[derive(Resource, Default)]
struct Counter(u32);

#[derive(Message, Debug, PartialEq)]
struct Scored {
    points: u32,
}

#[derive(Event)]
struct Ping;

// ----- helpers ---------------------------------------------------------------------

/// Checks the world's invariants and that a valid spawn / get / despawn still works.
#[track_caller]
fn assert_consistent(world: &mut World) {
    world.check_invariants();
    let e = world.spawn((Pos(7), Vel(8))).id();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(7)));
    assert!(world.insert(e, Tag));
    assert!(world.has::<Tag>(e));
    assert!(world.despawn(e));
    assert!(!world.is_alive(e));
    world.check_invariants();
}

/// A despawned entity (its index not reused yet).
fn dead(world: &mut World) -> Entity {
    let e = world.spawn(Pos(1)).id();
    assert!(world.despawn(e));
    e
}

/// `(stale, fresh)`: `stale` was despawned and `fresh` got its index with a new
/// generation and a `Pos(2)`.
fn stale_and_fresh(world: &mut World) -> (Entity, Entity) {
    let stale = world.spawn(Pos(1)).id();
    assert!(world.despawn(stale));
    let fresh = world.spawn(Pos(2)).id();
    assert_eq!(fresh.index(), stale.index(), "the despawned index is recycled");
    assert_ne!(fresh, stale);
    (stale, fresh)
}

/// An entity of another world, whose index this world never used.
fn foreign() -> Entity {
    let mut other = World::new();
    let ids: Vec<Entity> = other.spawn_batch((0..500).map(|i| (Pos(i),))).collect();
    *ids.last().unwrap()
}

/// Runs `f` and returns whether it panicked (and the message if it did).
fn try_panic<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "<non-string panic>".to_owned())
    })
}

/// Applies a command queue built by `build`.
fn apply_commands(world: &mut World, build: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, world);
        build(&mut commands);
    }
    queue.apply(world);
}

// ===== World: dead, stale, placeholder, reserved, foreign entities =================

#[test]
fn get_style_methods_on_a_dead_entity_return_none_or_false() {
    let mut world = World::new();
    let e = dead(&mut world);
    assert!(!world.is_alive(e));
    assert_eq!(world.get::<Pos>(e), None);
    assert!(world.get_mut::<Pos>(e).is_none());
    assert!(!world.has::<Pos>(e));
    assert!(!world.owns::<Pos>(e));
    assert!(world.component_ticks::<Pos>(e).is_none());
    assert!(world.get_entity(e).is_none());
    assert!(world.get_entity_mut(e).is_none());
    assert!(world.ids_of(e).is_none());
    assert_eq!(world.remove::<Pos>(e), None);
    assert!(!world.insert(e, Pos(3)));
    assert!(!world.despawn(e));
    assert_eq!(world.try_despawn(e), Ok(false));
    assert_eq!(world.path(e), None);
    assert!(world.try_inspect(e).is_none());
    assert_consistent(&mut world);
}

#[test]
fn get_style_methods_on_a_dead_sparse_component_holder_return_none() {
    let mut world = World::new();
    let e = world.spawn(Stunned(3)).id();
    world.despawn(e);
    assert_eq!(world.get::<Stunned>(e), None);
    assert!(world.get_mut::<Stunned>(e).is_none());
    assert!(!world.has::<Stunned>(e));
    assert!(!world.owns::<Stunned>(e));
    assert_eq!(world.remove::<Stunned>(e), None);
    let fresh = world.spawn(Stunned(9)).id();
    assert_eq!(fresh.index(), e.index());
    assert_eq!(world.get::<Stunned>(e), None, "the stale handle must not read the new sparse value");
    assert!(!world.has::<Stunned>(e));
    assert_eq!(world.remove::<Stunned>(e), None);
    assert_eq!(world.get::<Stunned>(fresh), Some(&Stunned(9)));
    assert_consistent(&mut world);
}

#[test]
fn stale_handle_never_reaches_the_entity_that_reuses_its_index() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    assert!(!world.is_alive(stale));
    assert_eq!(world.get::<Pos>(stale), None);
    assert!(world.get_mut::<Pos>(stale).is_none());
    assert!(!world.has::<Pos>(stale));
    assert!(world.get_entity(stale).is_none());
    assert!(world.get_entity_mut(stale).is_none());
    assert!(!world.insert(stale, Vel(5)));
    assert!(!world.has::<Vel>(fresh));
    assert_eq!(world.remove::<Pos>(stale), None);
    assert_eq!(world.get::<Pos>(fresh), Some(&Pos(2)));
    assert!(!world.despawn(stale));
    assert!(world.is_alive(fresh));
    assert_eq!(world.path(stale), None);
    assert!(world.try_inspect(stale).is_none());
    assert_consistent(&mut world);
}

#[test]
fn insert_into_a_dead_entity_returns_false_and_drops_the_bundle() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = dead(&mut world);
    assert!(!world.insert(e, log.table(1)));
    log.assert_dropped_once([1]);
    assert!(!world.insert(e, (log.table(2), log.sparse(3))));
    log.assert_dropped_once([1, 2, 3]);
    assert_consistent(&mut world);
}

#[test]
fn placeholder_is_never_alive_and_get_style_methods_say_so() {
    let mut world = World::new();
    world.spawn(Pos(0));
    let p = Entity::PLACEHOLDER;
    assert!(!world.is_alive(p));
    assert_eq!(world.get::<Pos>(p), None);
    assert!(world.get_mut::<Pos>(p).is_none());
    assert!(!world.has::<Pos>(p));
    assert!(world.get_entity(p).is_none());
    assert!(world.get_entity_mut(p).is_none());
    assert!(!world.insert(p, Pos(1)));
    assert_eq!(world.remove::<Pos>(p), None);
    assert!(!world.despawn(p));
    assert!(world.try_inspect(p).is_none());
    assert_eq!(world.targets::<Likes>(p).count(), 0);
    assert_eq!(world.children(p).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn entity_of_a_dead_entity_panics_naming_it() {
    let mut world = World::new();
    let e = dead(&mut world);
    let message = panic_message(|| world.entity(e).id());
    assert!(message.contains(&format!("{e:?}")), "{message}");
    assert!(message.contains("not alive"), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn entity_mut_of_a_stale_handle_panics_naming_it() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let message = panic_message(|| {
        world.entity_mut(stale).insert(Vel(1));
    });
    assert!(message.contains(&format!("{stale:?}")), "{message}");
    assert!(!world.has::<Vel>(fresh));
    assert_consistent(&mut world);
}

#[test]
fn entity_of_the_placeholder_panics_naming_it() {
    let mut world = World::new();
    let p = Entity::PLACEHOLDER;
    let message = panic_message(|| world.entity(p).id());
    assert!(message.contains(&format!("{p:?}")), "{message}");
    let message = panic_message(|| world.entity_mut(p).id());
    assert!(message.contains(&format!("{p:?}")), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn reserved_entity_is_not_alive_before_a_flush() {
    let mut world = World::new();
    let r = world.reserve_entity();
    assert!(!world.is_alive(r));
    assert_eq!(world.get::<Pos>(r), None);
    assert!(!world.has::<Pos>(r));
    assert!(world.get_entity(r).is_none());
    assert!(world.try_inspect(r).is_none());
    let message = panic_message(|| world.entity(r).id());
    assert!(message.contains(&format!("{r:?}")), "{message}");
    let message = panic_message(|| world.inspect(r));
    assert!(message.contains(&format!("{r:?}")), "{message}");
    // Every `&mut World` entry flushes first (documented on reserve_entity).
    assert!(world.get_entity_mut(r).is_some());
    assert!(world.is_alive(r));
    assert_consistent(&mut world);
}

#[test]
fn insert_into_a_reserved_entity_flushes_it_first() {
    let mut world = World::new();
    let r = world.reserve_entity();
    assert!(world.insert(r, Pos(4)), "insert flushes reservations (reserve_entity's docs)");
    assert_eq!(world.get::<Pos>(r), Some(&Pos(4)));
    assert_eq!(world.entity_count(), 1);
    assert_consistent(&mut world);
}

#[test]
fn remote_reserved_entity_is_not_alive_until_flushed() {
    let mut world = World::new();
    let remote = world.remote_entities();
    let r = remote.reserve();
    assert!(!world.is_alive(r));
    assert_eq!(world.get::<Pos>(r), None);
    assert!(world.get_entity(r).is_none());
    assert!(world.try_inspect(r).is_none());
    let message = panic_message(|| world.inspect(r));
    assert!(message.contains(&format!("{r:?}")), "{message}");
    world.flush();
    assert!(world.is_alive(r));
    assert_eq!(world.entity_count(), 1);
    assert!(world.despawn(r));
    assert!(!world.despawn(r));
    assert_consistent(&mut world);
}

#[test]
fn despawn_of_a_remote_reserved_entity_flushes_then_despawns_it() {
    let mut world = World::new();
    let r = world.remote_entities().reserve();
    assert!(world.despawn(r), "despawn flushes reservations first, so the reserved entity is alive then");
    assert!(!world.is_alive(r));
    assert_eq!(world.entity_count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn entity_of_another_world_is_not_alive_here() {
    let mut world = World::new();
    world.spawn(Pos(0));
    let f = foreign();
    assert!(!world.is_alive(f));
    assert_eq!(world.get::<Pos>(f), None);
    assert!(!world.insert(f, Pos(1)));
    assert_eq!(world.remove::<Pos>(f), None);
    assert!(!world.despawn(f));
    assert!(world.try_inspect(f).is_none());
    let message = panic_message(|| world.entity(f).id());
    assert!(message.contains(&format!("{f:?}")), "{message}");
    assert_eq!(world.entity_count(), 1);
    assert_consistent(&mut world);
}

#[test]
fn despawning_the_wildcards_is_refused_and_changes_nothing() {
    let mut world = World::new();
    let before = world.entities().alive_count();
    assert!(!world.despawn(Entity::WILDCARD));
    assert!(!world.despawn(Entity::ANY));
    assert_eq!(world.try_despawn(Entity::WILDCARD), Ok(false));
    assert!(world.is_alive(Entity::WILDCARD));
    assert_eq!(world.entities().alive_count(), before);
    assert_consistent(&mut world);
}

// ----- EntityWorldMut whose entity was despawned through world_mut -----------------

#[test]
fn entity_world_mut_insert_remove_take_after_despawn_panic_naming_the_entity() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let mut view = world.entity_mut(e);
    view.world_mut().despawn(e);
    assert_eq!(view.get::<Pos>(), None);
    assert!(!view.contains::<Pos>());
    let message = panic_message(|| {
        view.insert(Vel(1));
    });
    assert!(message.contains(&format!("{e:?}")), "{message}");
    let message = panic_message(|| {
        view.remove::<Pos>();
    });
    assert!(message.contains(&format!("{e:?}")), "{message}");
    let message = panic_message(|| view.take::<Pos>());
    assert!(message.contains(&format!("{e:?}")), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn entity_world_mut_pair_and_toggle_after_despawn_panic_naming_entity_and_component() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let e = world.spawn(Thrust(1.0)).id();
    let mut view = world.entity_mut(e);
    view.world_mut().despawn(e);
    let message = panic_message(|| {
        view.add_pair::<Likes>(bob);
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("Likes"), "{message}");
    let message = panic_message(|| {
        view.insert_pair(Eats { amount: 1 }, bob);
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("Eats"), "{message}");
    let message = panic_message(|| {
        view.disable::<Thrust>();
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("Thrust"), "{message}");
    let message = panic_message(|| {
        view.enable::<Thrust>();
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("Thrust"), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn entity_world_mut_after_despawn_and_index_reuse_does_not_touch_the_new_entity() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let mut view = world.entity_mut(e);
    view.world_mut().despawn(e);
    let fresh = view.world_mut().spawn(Pos(2)).id();
    assert_eq!(fresh.index(), e.index());
    assert_eq!(view.get::<Pos>(), None);
    assert!(try_panic(|| view.insert(Vel(3)).id()).is_err());
    assert!(!world.has::<Vel>(fresh));
    assert_eq!(world.get::<Pos>(fresh), Some(&Pos(2)));
    assert_consistent(&mut world);
}

#[test]
fn entity_world_mut_location_after_despawn_names_the_entity() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let mut view = world.entity_mut(e);
    view.world_mut().despawn(e);
    let message = panic_message(|| view.location());
    assert!(message.contains(&format!("{e:?}")), "{message}");
}

#[test]
fn entity_world_mut_add_pair_id_after_despawn_panics_like_add_pair() {
    let mut world = World::new();
    let (rel, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn_empty().id();
    let mut view = world.entity_mut(e);
    view.world_mut().despawn(e);
    let message = panic_message(|| {
        view.add_pair_id(rel, bob);
    });
    assert!(message.contains(&format!("{e:?}")), "{message}");
}

#[test]
fn entity_world_mut_observe_after_despawn_leaves_no_orphan_observer() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let observers_before = world.observers().len();
    let result = {
        let mut view = world.entity_mut(e);
        view.world_mut().despawn(e);
        try_panic(move || {
            view.observe(|_: Trigger<Ping>| {});
        })
    };
    // Either it panics (naming the entity) or it registers nothing that outlives e.
    if let Err(message) = &result {
        assert!(message.contains(&format!("{e:?}")), "{message}");
    }
    assert_eq!(world.observers().len(), observers_before, "an observer of a dead entity was left registered");
    assert_consistent(&mut world);
}

// ===== resources, messages, one-shot systems ======================================

#[test]
fn missing_resource_panics_naming_the_type_and_get_resource_is_none() {
    let mut world = World::new();
    assert!(world.get_resource::<Time>().is_none());
    assert!(world.get_resource_mut::<Time>().is_none());
    assert!(!world.contains_resource::<Time>());
    assert!(world.remove_resource::<Time>().is_none());
    let message = panic_message(|| world.resource::<Time>().dt);
    assert!(message.contains("Time"), "{message}");
    let message = panic_message(|| world.resource_mut::<Time>().dt);
    assert!(message.contains("Time"), "{message}");
    world.insert_resource(Time { dt: 0.5 });
    assert_eq!(world.resource::<Time>().dt, 0.5);
    assert_consistent(&mut world);
}

#[test]
fn removed_resource_is_missing_again() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 1.0 });
    assert_eq!(world.remove_resource::<Time>().map(|t| t.dt), Some(1.0));
    assert!(world.get_resource::<Time>().is_none());
    let message = panic_message(|| world.resource::<Time>().dt);
    assert!(message.contains("Time"), "{message}");
}

#[test]
fn system_with_a_missing_resource_does_not_run_silently_wrong() {
    let mut world = World::new();
    let result = try_panic(|| world.run_system_once(|time: Res<Time>| time.dt));
    // Bevy panics validating the param; either way it must not produce a value.
    match result {
        Ok(value) => panic!("a system read a missing resource and returned {value}"),
        Err(message) => assert!(message.contains("Time"), "{message}"),
    }
    assert_consistent(&mut world);
}

#[test]
fn write_message_of_a_type_never_added_returns_false() {
    let mut world = World::new();
    assert!(!world.write_message(Scored { points: 1 }));
    assert!(world.get_resource::<Messages<Scored>>().is_none());
    world.add_message::<Scored>();
    assert!(world.write_message(Scored { points: 2 }));
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    world.update_messages();
    assert_consistent(&mut world);
}

#[test]
fn write_message_after_its_resource_was_removed_returns_false() {
    let mut world = World::new();
    world.add_message::<Scored>();
    world.remove_resource::<Messages<Scored>>();
    assert!(!world.write_message(Scored { points: 1 }));
    world.update_messages(); // the registered update finds no resource: no panic
    assert_consistent(&mut world);
}

#[test]
fn add_message_again_after_removing_it_keeps_the_two_update_lifetime() {
    let mut world = World::new();
    world.add_message::<Scored>();
    world.remove_resource::<Messages<Scored>>();
    world.add_message::<Scored>();
    assert!(world.write_message(Scored { points: 1 }));
    world.update_messages();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1, "a message lives for two updates");
}

#[test]
fn run_system_of_an_unregistered_id_is_an_error() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(|mut c: ResMut<Counter>| c.0 += 1);
    assert_eq!(world.run_system(id), Ok(()));
    assert!(world.unregister_system(id));
    assert!(!world.unregister_system(id));
    let error = world.run_system(id).unwrap_err();
    assert!(matches!(error, RunSystemError::NotRegistered { .. }), "{error:?}");
    assert!(error.to_string().contains(&format!("{}v{}", id.index(), id.generation())), "{error}");
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_consistent(&mut world);
}

#[test]
fn stale_system_id_never_runs_the_system_registered_in_its_slot() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let old = world.register_system(|| 1u32);
    assert!(world.unregister_system(old));
    let new = world.register_system(|mut c: ResMut<Counter>| {
        c.0 += 1;
        2u32
    });
    assert_eq!(new.index(), old.index(), "the slot is reused");
    assert!(matches!(world.run_system(old), Err(RunSystemError::NotRegistered { .. })));
    assert_eq!(world.resource::<Counter>().0, 0, "the stale id reached the new system");
    assert_eq!(world.run_system(new), Ok(2));
    assert!(!world.unregister_system(old));
    assert_eq!(world.run_system(new), Ok(2), "unregistering a stale id removed the new system");
}

#[test]
fn system_id_of_another_world_is_not_registered_here() {
    let mut world = World::new();
    let mine = world.register_system(|| 10u32);
    let mut other = World::new();
    let theirs = other.register_system(|| 20u32);
    assert_eq!(theirs.index(), mine.index());
    assert!(matches!(world.run_system(theirs), Err(RunSystemError::NotRegistered { .. })));
    assert!(!world.unregister_system(theirs));
    assert_eq!(world.run_system(mine), Ok(10));
    let mut fresh = World::new();
    assert!(matches!(fresh.run_system(mine), Err(RunSystemError::NotRegistered { .. })));
}

#[test]
fn commands_run_system_of_an_unregistered_id_panics_naming_the_id() {
    let mut world = World::new();
    let id = world.register_system(|| ());
    world.unregister_system(id);
    let message = panic_message(|| apply_commands(&mut world, |commands| commands.run_system(id)));
    assert!(message.contains(&format!("SystemId({}v{})", id.index(), id.generation())), "{message}");
    assert_consistent(&mut world);
}

// ===== commands whose entity died before they applied =============================

#[test]
fn commands_insert_into_an_entity_despawned_before_apply_panics_naming_entity_and_bundle() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let message = panic_message(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(e).despawn();
            commands.entity(e).insert(Vel(1));
        })
    });
    assert!(message.contains(&format!("{e:?}")), "{message}");
    assert!(message.contains("Vel"), "{message}");
    assert!(!world.is_alive(e));
    assert_consistent(&mut world);
}

#[test]
fn commands_insert_with_a_stale_handle_panics_and_leaves_the_new_entity_alone() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(Vel(9));
    world.despawn(e);
    let fresh = world.spawn(Pos(2)).id();
    assert_eq!(fresh.index(), e.index());
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains(&format!("{e:?}")), "{message}");
    assert!(!world.has::<Vel>(fresh), "the command reached the entity that reuses the index");
    assert_consistent(&mut world);
}

#[test]
fn commands_try_insert_into_a_dead_entity_does_nothing() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = dead(&mut world);
    apply_commands(&mut world, |commands| {
        commands.entity(e).try_insert(log.table(1));
    });
    log.assert_dropped_once([1]);
    assert!(!world.is_alive(e));
    assert_consistent(&mut world);
}

#[test]
fn commands_remove_despawn_toggle_on_a_dead_entity_do_nothing() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.insert(fresh, Thrust(1.0));
    apply_commands(&mut world, |commands| {
        commands.entity(stale).remove::<Pos>();
        commands.entity(stale).disable::<Thrust>();
        commands.entity(stale).remove_pair::<Likes>(Entity::WILDCARD);
        commands.entity(stale).despawn();
    });
    assert!(world.is_alive(fresh));
    assert_eq!(world.get::<Pos>(fresh), Some(&Pos(2)));
    assert!(world.is_enabled::<Thrust>(fresh));
    assert_consistent(&mut world);
}

#[test]
fn commands_insert_into_the_placeholder_panics_naming_it() {
    let mut world = World::new();
    let p = Entity::PLACEHOLDER;
    let message = panic_message(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(p).insert(Tag);
        })
    });
    assert!(message.contains(&format!("{p:?}")) && message.contains("Tag"), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_with_a_dead_target_applies_the_target_policy() {
    let mut world = World::new();
    let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    let (ship, station) = (world.spawn_empty().id(), world.spawn_empty().id());
    apply_commands(&mut world, |commands| {
        commands.entity(bob).despawn();
        commands.entity(alice).add_pair::<Likes>(bob); // remove: nothing added
        commands.entity(station).despawn();
        commands.entity(ship).add_pair::<DockedTo>(station); // delete: ship despawned
    });
    assert!(world.is_alive(alice));
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert!(!world.is_alive(ship));
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_with_a_dead_target_under_panic_policy_panics_naming_it() {
    let mut world = World::new();
    let (boat, dock) = (world.spawn_empty().id(), world.spawn_empty().id());
    let message = panic_message(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(dock).despawn();
            commands.entity(boat).add_pair::<Anchored>(dock);
        })
    });
    assert!(message.contains(&format!("{dock:?}")) && message.contains("Anchored"), "{message}");
    assert!(world.is_alive(boat));
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_with_a_wildcard_target_panics_naming_the_entity() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let message = panic_message(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(e).add_pair::<Likes>(Entity::WILDCARD);
        })
    });
    assert!(message.contains(&format!("{e:?}")) && message.contains("Likes"), "{message}");
    assert_eq!(world.targets::<Likes>(e).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_onto_a_dead_entity_does_nothing() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let (stale, fresh) = stale_and_fresh(&mut world);
    apply_commands(&mut world, |commands| {
        commands.entity(stale).add_pair::<Likes>(bob);
        commands.entity(stale).insert_pair(Eats { amount: 1 }, bob);
    });
    assert!(!world.has_pair::<Likes>(fresh, bob));
    assert!(world.get_pair::<Eats>(fresh, bob).is_none());
    assert_eq!(world.sources::<Likes>(bob).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn commands_observe_on_a_dead_entity_never_registers_an_observer() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let result = try_panic(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(e).despawn();
            commands.entity(e).observe(|_: Trigger<Ping>| {});
        })
    });
    if let Err(message) = result {
        assert!(message.contains(&format!("{e:?}")), "{message}");
    }
    assert!(world.observers().is_empty());
    assert_consistent(&mut world);
}

// ===== relationships ==============================================================

#[test]
fn add_pair_with_a_dead_target_panics_naming_it_and_try_add_pair_is_err() {
    let mut world = World::new();
    let alice = world.spawn_empty().id();
    let bob = dead(&mut world);
    let message = panic_message(|| world.add_pair::<Likes>(alice, bob));
    assert!(message.contains(&format!("{bob:?}")) && message.contains("Likes"), "{message}");
    assert_eq!(world.try_add_pair::<Likes>(alice, bob), Err(PairError::NotAlive(bob)));
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn add_pair_with_a_stale_target_never_targets_the_new_entity() {
    let mut world = World::new();
    let alice = world.spawn_empty().id();
    let (stale, fresh) = stale_and_fresh(&mut world);
    assert!(try_panic(|| world.add_pair::<Likes>(alice, stale)).is_err());
    assert_eq!(world.try_add_pair::<Likes>(alice, stale), Err(PairError::NotAlive(stale)));
    assert!(!world.has_pair::<Likes>(alice, fresh));
    assert!(world.try_insert_pair(alice, Eats { amount: 1 }, stale).is_err());
    assert!(world.get_pair::<Eats>(alice, fresh).is_none());
    assert_consistent(&mut world);
}

#[test]
fn add_pair_onto_a_dead_entity_returns_false() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let e = dead(&mut world);
    assert!(!world.add_pair::<Likes>(e, bob));
    assert_eq!(world.try_add_pair::<Likes>(e, bob), Err(PairError::NotAlive(e)));
    assert!(!world.insert_pair(e, Eats { amount: 1 }, bob));
    assert_eq!(world.sources::<Likes>(bob).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn add_pair_with_a_wildcard_target_is_refused() {
    let mut world = World::new();
    let alice = world.spawn_empty().id();
    for wildcard in [Entity::WILDCARD, Entity::ANY] {
        let error = world.try_add_pair::<Likes>(alice, wildcard).unwrap_err();
        assert!(matches!(error, PairError::Wildcard { entity, .. } if entity == alice), "{error:?}");
        let message = panic_message(|| world.add_pair::<Likes>(alice, wildcard));
        assert!(message.contains(&format!("{alice:?}")) && message.contains("Likes"), "{message}");
        assert!(world.try_insert_pair(alice, Eats { amount: 1 }, wildcard).is_err());
    }
    assert_eq!(world.ids_of(alice), Some(&[][..]));
    assert_consistent(&mut world);
}

#[test]
fn add_pair_to_the_union_marker_is_refused() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let error = world.try_add_pair::<Movement>(e, Entity::UNION).unwrap_err();
    assert!(matches!(error, PairError::UnionMarker { .. }), "{error:?}");
    let message = panic_message(|| world.add_pair::<Movement>(e, Entity::UNION));
    assert!(message.contains(&format!("{e:?}")) && message.contains("Movement"), "{message}");
    assert_eq!(world.target::<Movement>(e), None);
    assert_consistent(&mut world);
}

#[test]
fn union_pair_with_a_dead_or_stale_target_is_refused() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let (stale, fresh) = stale_and_fresh(&mut world);
    assert_eq!(world.try_add_pair::<Movement>(e, stale), Err(PairError::NotAlive(stale)));
    assert!(!world.has_pair::<Movement>(e, fresh));
    assert!(world.add_pair::<Movement>(e, fresh));
    assert!(!world.has_pair::<Movement>(e, stale));
    assert_eq!(world.sources::<Movement>(stale).count(), 0);
    assert!(!world.remove_pair::<Movement>(e, stale));
    assert_eq!(world.target::<Movement>(e), Some(fresh));
    assert_consistent(&mut world);
}

#[test]
fn acyclic_cycle_is_refused_naming_both_entities() {
    let mut world = World::new();
    let (a, b, c) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<DependsOn>(a, b);
    world.add_pair::<DependsOn>(b, c);
    let error = world.try_add_pair::<DependsOn>(c, a).unwrap_err();
    assert!(matches!(error, PairError::Cycle { source, target, .. } if source == c && target == a), "{error:?}");
    let message = panic_message(|| world.add_pair::<DependsOn>(c, a));
    assert!(message.contains(&format!("{a:?}")) && message.contains(&format!("{c:?}")), "{message}");
    assert!(message.contains("DependsOn"), "{message}");
    assert_eq!(world.targets::<DependsOn>(c).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn acyclic_self_pair_is_a_cycle() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    assert!(matches!(world.try_add_pair::<DependsOn>(a, a), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<ChildOf>(a, a), Err(PairError::Cycle { .. })));
    let message = panic_message(|| world.add_pair::<ChildOf>(a, a));
    assert!(message.contains(&format!("{a:?}")), "{message}");
    assert_eq!(world.parent(a), None);
    assert_consistent(&mut world);
}

#[test]
fn childof_cycle_through_a_chain_is_refused_and_keeps_the_old_parent() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mid = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let leaf = world.spawn_empty().add_pair::<ChildOf>(mid).id();
    let other = world.spawn_empty().id();
    world.add_pair::<ChildOf>(root, other);
    assert!(matches!(world.try_add_pair::<ChildOf>(root, leaf), Err(PairError::Cycle { .. })));
    assert_eq!(world.parent(root), Some(other), "the exclusive parent was replaced by a refused pair");
    assert_eq!(world.ancestors(leaf).collect::<Vec<_>>(), vec![mid, root, other]);
    assert_consistent(&mut world);
}

#[test]
fn exclusive_pair_with_a_dead_target_keeps_the_current_target() {
    let mut world = World::new();
    let (ship, s1) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<DockedTo>(ship, s1);
    let s2 = dead(&mut world);
    let message = panic_message(|| world.add_pair::<DockedTo>(ship, s2));
    assert!(message.contains(&format!("{s2:?}")), "{message}");
    assert_eq!(world.targets::<DockedTo>(ship).collect::<Vec<_>>(), vec![s1]);
    let s3 = world.spawn_empty().id();
    world.add_pair::<DockedTo>(ship, s3);
    assert_eq!(world.targets::<DockedTo>(ship).collect::<Vec<_>>(), vec![s3], "exclusive: one target");
    assert_consistent(&mut world);
}

#[test]
fn has_get_remove_pair_with_a_dead_or_stale_target_say_no() {
    let mut world = World::new();
    let alice = world.spawn_empty().id();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.insert_pair(alice, Eats { amount: 5 }, fresh);
    world.add_pair::<Likes>(alice, fresh);
    assert!(!world.has_pair::<Likes>(alice, stale));
    assert!(world.get_pair::<Eats>(alice, stale).is_none());
    assert!(world.get_pair_mut::<Eats>(alice, stale).is_none());
    assert!(!world.remove_pair::<Likes>(alice, stale));
    assert!(world.has_pair::<Likes>(alice, fresh), "removing a stale pair removed the live one");
    assert_eq!(world.get_pair::<Eats>(alice, fresh), Some(&Eats { amount: 5 }));
    assert_eq!(world.sources::<Likes>(stale).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn pair_getters_on_a_dead_source_return_nothing() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let alice = world.spawn_empty().id();
    world.insert_pair(alice, Eats { amount: 1 }, bob);
    world.despawn(alice);
    assert!(!world.has_pair::<Eats>(alice, bob));
    assert!(!world.has_pair::<Eats>(alice, Entity::WILDCARD));
    assert!(world.get_pair::<Eats>(alice, bob).is_none());
    assert!(world.get_pair::<Eats>(alice, Entity::WILDCARD).is_none());
    assert!(world.get_pair_mut::<Eats>(alice, bob).is_none());
    assert_eq!(world.targets::<Eats>(alice).count(), 0);
    assert_eq!(world.target::<Eats>(alice), None);
    assert!(!world.remove_pair::<Eats>(alice, bob));
    assert_eq!(world.sources::<Eats>(bob).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn has_pair_with_any_means_any_target() {
    let mut world = World::new();
    let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    assert!(!world.has_pair::<Likes>(alice, Entity::ANY));
    world.add_pair::<Likes>(alice, bob);
    assert!(world.has_pair::<Likes>(alice, Entity::WILDCARD));
    assert!(world.has_pair::<Likes>(alice, Entity::ANY), "has_pair docs: ANY means the same as WILDCARD");
    assert!(!world.has_pair::<Likes>(bob, Entity::ANY));
}

#[test]
fn pair_of_an_unregistered_relationship_is_absent() {
    let mut world = World::new();
    let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.get_pair::<Eats>(alice, bob).is_none());
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert_eq!(world.sources::<Likes>(bob).count(), 0);
    assert!(!world.remove_pair::<Likes>(alice, Entity::WILDCARD));
    assert_consistent(&mut world);
}

#[test]
fn children_targets_and_hierarchy_walks_of_a_stale_handle_are_empty() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let kid = world.spawn_empty().add_pair::<ChildOf>(fresh).id();
    let grand = world.spawn_empty().add_pair::<ChildOf>(kid).id();
    assert_eq!(world.children(stale).count(), 0);
    assert_eq!(world.descendants(stale).count(), 0);
    assert_eq!(world.sources::<ChildOf>(stale).count(), 0);
    assert_eq!(world.parent(stale), None);
    assert_eq!(world.ancestors(stale).count(), 0);
    assert_eq!(world.descendants(fresh).collect::<Vec<_>>(), vec![kid, grand]);
    world.despawn(kid);
    assert_eq!(world.ancestors(kid).count(), 0);
    assert_eq!(world.descendants(kid).count(), 0);
    assert!(!world.is_alive(grand), "ChildOf deletes children");
    assert_consistent(&mut world);
}

#[test]
fn lookup_child_of_a_stale_parent_is_none() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let turret = world.spawn((Name::new("turret"), ChildOf.pair(fresh))).id();
    assert_eq!(world.lookup_child(fresh, "turret"), Some(turret));
    assert_eq!(world.lookup_child(stale, "turret"), None);
}

#[test]
fn lookup_child_of_a_dead_parent_is_none() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn((Name::new("turret"), ChildOf.pair(parent)));
    world.despawn(parent);
    assert_eq!(world.lookup_child(parent, "turret"), None);
    assert_eq!(world.lookup_child(Entity::PLACEHOLDER, "turret"), None);
    assert_consistent(&mut world);
}

#[test]
fn runtime_pair_ids_with_dead_halves_panic_naming_them() {
    let mut world = World::new();
    let (rel, alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let dead_rel = dead(&mut world);
    let message = panic_message(|| world.add_pair_id(alice, dead_rel, bob));
    assert!(message.contains(&format!("{dead_rel:?}")), "{message}");
    let dead_target = dead(&mut world);
    let message = panic_message(|| world.add_pair_id(alice, rel, dead_target));
    assert!(message.contains(&format!("{dead_target:?}")), "{message}");
    assert!(!world.has_pair_id(alice, dead_rel, bob));
    assert!(!world.has_pair_id(alice, rel, dead_target));
    assert!(!world.remove_pair_id(alice, dead_rel, bob));
    assert_eq!(world.ids_of(alice), Some(&[][..]));
    assert!(world.add_pair_id(alice, rel, bob));
    assert!(!world.add_pair_id(dead_target, rel, bob), "dead source: false");
    assert_consistent(&mut world);
}

#[test]
fn runtime_pair_id_with_a_wildcard_half_is_refused() {
    let mut world = World::new();
    let (rel, alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let message = panic_message(|| world.add_pair_id(alice, Entity::WILDCARD, bob));
    assert!(message.contains(&format!("{alice:?}")), "{message}");
    let message = panic_message(|| world.add_pair_id(alice, rel, Entity::ANY));
    assert!(message.contains(&format!("{alice:?}")), "{message}");
    assert!(matches!(world.try_add_id(alice, Id::pair(rel, Entity::WILDCARD)), Err(PairError::Wildcard { .. })));
    assert!(matches!(world.try_add_id(alice, Entity::WILDCARD.id()), Err(PairError::Wildcard { .. })));
    assert_eq!(world.ids_of(alice), Some(&[][..]));
    assert_consistent(&mut world);
}

#[test]
fn add_id_of_a_component_that_carries_data_is_refused_naming_it() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let pos = world.register_component::<Pos>();
    let error = world.try_add_id(e, pos.id()).unwrap_err();
    assert!(matches!(error, PairError::NeedsValue { entity, .. } if entity == e), "{error:?}");
    let message = panic_message(|| world.add_id(e, pos.id()));
    assert!(message.contains("Pos") && message.contains(&format!("{e:?}")), "{message}");
    let bob = world.spawn_empty().id();
    let message = panic_message(|| world.add_pair::<Eats>(e, bob));
    assert!(message.contains("Eats") && message.contains(&format!("{e:?}")), "{message}");
    assert!(!world.has::<Pos>(e));
    assert_consistent(&mut world);
}

#[test]
fn despawn_refused_by_a_panic_policy_names_relationship_and_holders() {
    let mut world = World::new();
    let (boat, dock) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<Anchored>(boat, dock);
    let error = world.try_despawn(dock).unwrap_err();
    assert_eq!(error.holders, vec![boat]);
    let message = panic_message(|| world.despawn(dock));
    assert!(message.contains("Anchored") && message.contains(&format!("{boat:?}")), "{message}");
    assert!(world.is_alive(dock) && world.has_pair::<Anchored>(boat, dock), "the refused despawn changed the world");
    world.remove_pair::<Anchored>(boat, dock);
    assert_eq!(world.try_despawn(dock), Ok(true));
    assert_consistent(&mut world);
}

#[test]
fn set_relationship_traits_invalid_union_panics_naming_the_relationship() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    let traits = RelationshipTraits::DEFAULT.union().transitive();
    let message = panic_message(|| world.set_relationship_traits(rel, traits));
    assert!(message.contains(&format!("{rel:?}")), "{message}");
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
    assert_consistent(&mut world);
}

// ===== names and lookup ===========================================================

#[test]
fn lookup_of_malformed_paths_is_none() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn((Name::new("b"), ChildOf.pair(a))).id();
    assert_eq!(world.lookup("a::b"), Some(b));
    for path in
        ["", "::", "::a", "a::", "a::::b", "::a::b", "a::b::", "a:b", "a::b::c", " a", "a ", "b::a", "\0", "::::"]
    {
        assert_eq!(world.lookup(path), None, "lookup({path:?})");
    }
    assert_consistent(&mut world);
}

#[test]
fn lookup_of_a_despawned_name_is_none() {
    let mut world = World::new();
    let a = world.spawn(Name::new("station")).id();
    let b = world.spawn((Name::new("dock"), ChildOf.pair(a))).id();
    world.despawn(a);
    assert!(!world.is_alive(b));
    assert_eq!(world.lookup("station"), None);
    assert_eq!(world.lookup("station::dock"), None);
    assert_eq!(world.lookup("dock"), None);
    let again = world.spawn(Name::new("station")).id();
    assert_eq!(world.lookup("station"), Some(again));
    assert_consistent(&mut world);
}

#[test]
fn spawning_a_root_with_a_taken_name_panics_naming_both_and_keeps_the_first() {
    let mut world = World::new();
    let first = world.spawn(Name::new("tank")).id();
    let count = world.entity_count();
    let message = panic_message(|| world.spawn(Name::new("tank")).id());
    assert!(message.contains(&format!("{first:?}")), "{message}");
    assert_eq!(world.entity_count(), count, "the refused entity was left alive");
    assert_eq!(world.lookup("tank"), Some(first));
    assert_consistent(&mut world);
}

#[test]
fn set_name_clash_and_dead_entity_are_errors() {
    let mut world = World::new();
    let a = world.spawn(Name::new("tank")).id();
    let b = world.spawn_empty().id();
    assert_eq!(world.set_name(b, "tank"), Err(NameError::Taken { entity: b, name: "tank".into(), sibling: a }));
    assert!(world.get::<Name>(b).is_none());
    let d = dead(&mut world);
    assert_eq!(world.set_name(d, "ghost"), Err(NameError::NotAlive(d)));
    assert_eq!(world.lookup("ghost"), None);
    assert!(world.set_name(b, "other").is_ok());
    assert_consistent(&mut world);
}

#[test]
fn insert_of_a_clashing_name_panics_naming_both_and_restores_the_old_name() {
    let mut world = World::new();
    let a = world.spawn(Name::new("tank")).id();
    let b = world.spawn(Name::new("jeep")).id();
    let message = panic_message(|| world.insert(b, Name::new("tank")));
    assert!(message.contains(&format!("{a:?}")) && message.contains(&format!("{b:?}")), "{message}");
    assert_eq!(world.get::<Name>(b).map(Name::as_str), Some("jeep"));
    assert_eq!(world.lookup("jeep"), Some(b));
    assert_eq!(world.lookup("tank"), Some(a));
    assert_consistent(&mut world);
}

#[test]
fn reparenting_into_a_sibling_name_clash_is_refused() {
    let mut world = World::new();
    let p = world.spawn(Name::new("p")).id();
    let x = world.spawn((Name::new("x"), ChildOf.pair(p))).id();
    let other = world.spawn(Name::new("q")).id();
    let y = world.spawn((Name::new("x"), ChildOf.pair(other))).id();
    assert!(matches!(world.try_add_pair::<ChildOf>(y, p), Err(PairError::NameTaken(_))));
    let message = panic_message(|| world.add_pair::<ChildOf>(y, p));
    assert!(message.contains(&format!("{x:?}")) && message.contains(&format!("{y:?}")), "{message}");
    assert_eq!(world.parent(y), Some(other));
    assert_eq!(world.lookup("p::x"), Some(x));
    assert_eq!(world.lookup("q::x"), Some(y));
    assert_consistent(&mut world);
}

#[test]
fn making_a_named_child_a_root_with_a_taken_name_panics_and_changes_nothing() {
    let mut world = World::new();
    let root = world.spawn(Name::new("x")).id();
    let p = world.spawn(Name::new("p")).id();
    let child = world.spawn((Name::new("x"), ChildOf.pair(p))).id();
    let message = panic_message(|| world.remove_pair::<ChildOf>(child, p));
    assert!(message.contains(&format!("{root:?}")) && message.contains(&format!("{child:?}")), "{message}");
    assert_eq!(world.parent(child), Some(p));
    assert_eq!(world.lookup("x"), Some(root));
    assert_consistent(&mut world);
}

#[test]
fn lookup_of_a_name_shared_by_children_of_different_parents_is_the_oldest() {
    let mut world = World::new();
    let p = world.spawn(Name::new("p")).id();
    let q = world.spawn(Name::new("q")).id();
    let first = world.spawn((Name::new("dock"), ChildOf.pair(p))).id();
    let second = world.spawn((Name::new("dock"), ChildOf.pair(q))).id();
    assert_eq!(world.lookup("dock"), Some(first));
    assert_eq!(world.lookup("q::dock"), Some(second));
    world.despawn(first);
    assert_eq!(world.lookup("dock"), Some(second));
}

#[test]
fn path_of_dead_stale_and_unnamed_entities_is_none() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.insert(fresh, Name::new("fresh"));
    assert_eq!(world.path(fresh).as_deref(), Some("fresh"));
    assert_eq!(world.path(stale), None);
    assert_eq!(world.path(Entity::PLACEHOLDER), None);
    let unnamed = world.spawn_empty().id();
    assert_eq!(world.path(unnamed), None);
}

// ===== entity ranges and spawn_at =================================================

#[test]
fn set_entity_range_empty_inverted_or_with_zero_panics_naming_the_range() {
    let mut world = World::new();
    let before = world.entity_range();
    #[allow(clippy::reversed_empty_ranges)]
    let bad = [5..5, 10..5, 0..10, 0..0, u32::MAX..u32::MAX];
    for range in bad {
        let message = panic_message(|| world.set_entity_range(range.clone()));
        assert!(message.contains(&format!("{range:?}")), "{message}");
        assert_eq!(world.entity_range(), before, "a refused range was applied");
    }
    assert_consistent(&mut world);
}

#[test]
fn spawning_past_the_end_of_the_range_panics_naming_it() {
    let mut world = World::new();
    world.set_entity_range(100..102);
    let a = world.spawn(Pos(0)).id();
    let b = world.spawn_empty().id();
    assert_eq!((a.index(), b.index()), (100, 101));
    let message = panic_message(|| world.spawn(Pos(1)).id());
    assert!(message.contains("100..102"), "{message}");
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains("100..102"), "{message}");
    let message = panic_message(|| world.reserve_entity());
    assert!(message.contains("100..102"), "{message}");
    let message = panic_message(|| world.remote_entities().reserve());
    assert!(message.contains("100..102"), "{message}");
    assert_eq!(world.remote_entities().try_reserve(), None);
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
    world.despawn(a);
    assert_eq!(world.spawn(Pos(3)).id().index(), 100, "a freed index of the range is reused");
    world.check_invariants();
}

#[test]
fn spawn_batch_past_the_end_of_the_range_panics_naming_it_and_stays_consistent() {
    let mut world = World::new();
    world.set_entity_range(50..53);
    let message = panic_message(|| world.spawn_batch((0..5).map(|i| (Pos(i),))).count());
    assert!(message.contains("50..53"), "{message}");
    world.check_invariants();
    assert!(world.entity_count() <= 3);
    let alive = world.query::<&Pos>().iter(&world).count();
    assert_eq!(alive, world.entity_count());
}

#[test]
fn spawn_at_a_taken_index_is_an_error_naming_the_holder() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    assert_eq!(world.spawn_at(e).err(), Some(SpawnError::Alive { entity: e, existing: e }));
    let other_generation = Entity::from_raw(e.index(), e.generation() + 3);
    assert_eq!(
        world.spawn_at(other_generation).err(),
        Some(SpawnError::Alive { entity: other_generation, existing: e })
    );
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
    assert_eq!(world.entity_count(), 1);
    assert_consistent(&mut world);
}

#[test]
fn spawn_at_out_of_range_and_placeholder_are_errors() {
    let mut world = World::new();
    assert!(matches!(world.spawn_at(Entity::PLACEHOLDER), Err(SpawnError::OutOfRange { .. })));
    world.set_entity_range(1000..2000);
    let outside = Entity::from_raw(5000, 0);
    assert_eq!(world.spawn_at(outside).err(), Some(SpawnError::OutOfRange { entity: outside, range: 1000..2000 }));
    let below = Entity::from_raw(999, 0);
    assert!(matches!(world.spawn_at(below), Err(SpawnError::OutOfRange { .. })));
    assert!(!world.is_alive(outside) && !world.is_alive(below));
    assert_eq!(world.entity_count(), 0);
    let inside = Entity::from_raw(1500, 2);
    assert!(world.spawn_at(inside).is_ok());
    assert!(world.is_alive(inside));
    assert_consistent(&mut world);
}

#[test]
fn spawn_at_a_retired_component_id_is_an_error() {
    let mut world = World::new();
    let pos = world.register_component::<Pos>();
    assert!(world.despawn(pos));
    let result = world.spawn_at(pos).map(|e| e.id());
    assert_eq!(result, Err(SpawnError::Retired { entity: pos }), "a retired component id was handed out again");
    let next_generation = Entity::from_raw(pos.index(), pos.generation() + 1);
    assert!(matches!(world.spawn_at(next_generation), Err(SpawnError::Retired { .. })));
    assert!(!world.is_alive(pos));
    assert_consistent(&mut world);
}

#[test]
fn spawn_at_a_reserved_id_never_makes_two_entities() {
    let mut world = World::new();
    let r = world.remote_entities().reserve();
    let result = world.spawn_at(r).map(|e| e.id());
    assert!(result.is_err(), "spawn_at took an id a RemoteEntities handle had reserved: {result:?}");
    world.flush();
    assert!(world.is_alive(r));
    assert_eq!(world.entity_count(), 1);
    let local = world.reserve_entity();
    let result = world.spawn_at(local).map(|e| e.id());
    assert!(result.is_err(), "spawn_at took an id reserve_entity had reserved: {result:?}");
    assert!(world.is_alive(local));
    assert_eq!(world.entity_count(), 2);
    assert_consistent(&mut world);
}

#[test]
fn entity_from_raw_rejects_index_zero_and_oversized_generations() {
    let message = panic_message(|| Entity::from_raw(0, 0));
    assert!(message.contains("index 0"), "{message}");
    let message = panic_message(|| Entity::from_raw(1, u32::MAX));
    assert!(message.contains("generation"), "{message}");
    assert_eq!(Entity::from_bits(0), None);
    assert_eq!(Entity::from_bits(Id::pair_from_indices(5, 6).to_bits()), None, "a pair is no entity");
}

// ===== typed queries ==============================================================

#[test]
fn query_get_of_dead_stale_placeholder_and_unmatched_entities_is_err() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let d = dead(&mut world);
    let vel_only = world.spawn(Vel(1)).id();
    let mut q = world.query::<&Pos>();
    assert_eq!(q.get(&world, d).err(), Some(QueryError::NoSuchEntity(d)));
    assert_eq!(q.get(&world, stale).err(), Some(QueryError::NoSuchEntity(stale)));
    assert_eq!(q.get(&world, Entity::PLACEHOLDER).err(), Some(QueryError::NoSuchEntity(Entity::PLACEHOLDER)));
    assert_eq!(q.get(&world, vel_only).err(), Some(QueryError::QueryDoesNotMatch(vel_only)));
    assert_eq!(q.get(&world, fresh).ok(), Some(&Pos(2)));
    let mut qm = world.query::<&mut Pos>();
    assert_eq!(qm.get_mut(&mut world, stale).err(), Some(QueryError::NoSuchEntity(stale)));
    assert!(QueryError::NoSuchEntity(stale).to_string().contains(&format!("{stale:?}")));
    assert_consistent(&mut world);
}

#[test]
fn query_get_of_a_reserved_entity_is_err() {
    let mut world = World::new();
    let r = world.reserve_entity();
    let mut q = world.query::<Entity>();
    assert!(q.get(&world, r).is_err(), "a reserved, not flushed entity was found by a query");
}

#[test]
fn query_get_of_internal_entities_does_not_match() {
    let mut world = World::new();
    let pos = world.register_component::<Pos>();
    let mut q = world.query::<Entity>();
    assert!(q.get(&world, pos).is_err(), "a component entity matched a user query");
    assert!(q.get(&world, Entity::WILDCARD).is_err());
}

#[test]
fn query_get_many_with_a_dead_or_duplicate_entity_is_err() {
    let mut world = World::new();
    let a = world.spawn(Pos(1)).id();
    let b = world.spawn(Pos(2)).id();
    let d = dead(&mut world);
    let mut q = world.query::<&mut Pos>();
    assert_eq!(q.get_many(&world, [a, d]).err(), Some(QueryError::NoSuchEntity(d)));
    assert_eq!(q.get_many_mut(&mut world, [a, a]).err(), Some(QueryError::AliasedMutability(a)));
    assert!(q.get_many_mut(&mut world, [a, Entity::PLACEHOLDER]).is_err());
    let [pa, pb] = q.get_many_mut(&mut world, [a, b]).unwrap();
    assert_eq!((*pa, *pb), (Pos(1), Pos(2)));
    assert_consistent(&mut world);
}

#[test]
fn query_single_with_none_or_many_is_err() {
    let mut world = World::new();
    let mut q = world.query::<&Pos>();
    assert!(matches!(q.single(&world), Err(QuerySingleError::NoEntities(_))));
    world.spawn(Pos(1));
    world.spawn(Pos(2));
    assert!(matches!(q.single(&world), Err(QuerySingleError::MultipleEntities(_))));
}

#[test]
fn system_query_get_of_a_dead_entity_is_err() {
    let mut world = World::new();
    let (stale, _fresh) = stale_and_fresh(&mut world);
    let got = world.run_system_once(move |q: Query<&Pos>| q.get(stale).err());
    assert_eq!(got, Some(QueryError::NoSuchEntity(stale)));
    let contains = world.run_system_once(move |q: Query<&Pos>| q.contains(stale));
    assert!(!contains);
}

#[test]
fn with_pair_of_a_dead_or_stale_target_matches_nothing() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let fan = world.spawn(Pos(9)).id();
    world.add_pair::<Likes>(fan, fresh);
    let mut q = world.query::<Entity>().with_pair::<Likes>(stale);
    assert_eq!(q.iter(&world).count(), 0, "with_pair(stale) matched the entity that reuses its index");
    let mut q = world.query::<Entity>().with_pair::<Likes>(fresh);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![fan]);
    let mut q = world.query::<Entity>().with_pair::<Likes>(Entity::PLACEHOLDER);
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn fixed_source_that_is_stale_reads_nothing() {
    let mut world = World::new();
    let settings = world.spawn(Gravity(-10)).id();
    world.spawn(Vel(0));
    let mut q = world.query::<(&Vel, Fixed<&Gravity>)>().with_source::<Gravity>(settings);
    assert_eq!(q.iter(&world).count(), 1);
    world.despawn(settings);
    assert_eq!(q.iter(&world).count(), 0, "a dead fixed source still yielded rows");
    let fresh = world.spawn(Gravity(99)).id();
    assert_eq!(fresh.index(), settings.index());
    assert_eq!(q.iter(&world).count(), 0, "the stale fixed source read the new entity's Gravity");
}

// ===== runtime queries ============================================================

fn dsl_world() -> World {
    let mut world = World::new();
    let bob = world.spawn(Name::new("Bob")).id();
    let e = world.spawn((Pos(1), Vel(2))).id();
    world.add_pair::<Likes>(e, bob);
    world.add_pair::<ChildOf>(e, bob);
    world.register_component::<Tag>();
    world.register_component::<Thrust>();
    world
}

#[test]
fn query_dsl_garbage_is_an_err_with_an_offset_never_a_panic() {
    let world = dsl_world();
    let inputs = [
        "",
        " ",
        ",",
        ",,",
        "Pos,",
        ",Pos",
        "Pos,,Vel",
        "(",
        ")",
        "()",
        "(,)",
        "(Likes",
        "(Likes,",
        "(Likes, *",
        "(Likes, *))",
        "Likes(",
        "Likes($this,",
        "Pos(up",
        "Pos(up Nope)",
        "Pos(self|",
        "Pos(self|up Likes)",
        "Pos(up Likes)",
        "!",
        "?",
        "!?Pos",
        "?!Pos",
        "Pos ||",
        "|| Pos",
        "Pos || !Vel",
        "Pos || ?Vel",
        "[in]",
        "[in",
        "[bogus] Pos",
        "[in] [out] Pos",
        "$",
        "$(",
        "$x",
        "!$x",
        "(Likes, $)",
        "Pos($)",
        "Nope",
        "Pos, Nope",
        "Pos Vel",
        "Pos::",
        "::Pos",
        "Bob::",
        "\u{0}",
        "Pos\u{0}",
        "Pösition",
        "ü, ü",
        "日本",
        "Pos, 日本",
        "(((((((((Pos",
        ")))))))",
        "*",
        "_",
        "(*, *",
        "Pos(Nope)",
        "Pos($this, Bob, Bob)",
        "Likes(Bob, Bob, Bob)",
        "[out] Pos(Bob)",
        "[inout] Pos(up)",
        "Pos, [in] Vel, !Tag, ?Thrust, (Likes, *), Pos(up ChildOf), garbage!",
    ];
    for input in inputs {
        let outcome = try_panic(|| world.query_dsl(input).map(|q| q.to_dsl()));
        let result = match outcome {
            Ok(result) => result,
            Err(message) => panic!("query_dsl({input:?}) panicked: {message}"),
        };
        // `$x` (a variable as a term's id), `*` and `_` are valid queries.
        let valid = ["$x", "*", "_"].contains(&input);
        assert_eq!(result.is_ok(), valid, "query_dsl({input:?}) = {:?}", result.as_ref().map_err(|e| e.offset));
        if let Err(error) = result {
            assert!(error.offset <= input.len(), "query_dsl({input:?}): offset {} past the end", error.offset);
            assert!(input.is_char_boundary(error.offset), "query_dsl({input:?}): offset inside a character");
            assert!(!error.message.is_empty());
            assert!(!error.to_string().is_empty());
        }
        let uncached = try_panic(|| world.query_dsl_uncached(input).is_ok());
        assert!(uncached.is_ok(), "query_dsl_uncached({input:?}) panicked: {:?}", uncached.err());
    }
}

#[test]
fn query_dsl_documented_errors_have_the_documented_offsets() {
    let world = dsl_world();
    assert_eq!(world.query_dsl("Pos, Nope").unwrap_err().offset, 5, "unknown name: its first byte");
    let error = world.query_dsl("(Likes, *").unwrap_err();
    assert_eq!(error.offset, "(Likes, *".len(), "unexpected end: the input's length");
    assert!(world.query_dsl("").is_err(), "an empty query is an error");
    assert!(world.query_dsl("Pos(up Likes)").is_err(), "up along a non-traversable relationship");
    assert!(world.query_dsl("Pos || !Vel").is_err(), "! inside an or-chain");
    assert!(world.query_dsl("Pos || ?Vel").is_err(), "? inside an or-chain");
    assert!(world.query_dsl("!Pos($x)").is_err(), "a variable only a ! term names is unbound");
    let error = world.query_dsl("Pos, [in] Vel, (Likes, Nope)").unwrap_err();
    assert_eq!(&"Pos, [in] Vel, (Likes, Nope)"[error.offset..error.offset + 4], "Nope");
}

#[test]
fn query_dsl_naming_a_despawned_entity_is_an_error() {
    let mut world = dsl_world();
    let bob = world.lookup("Bob").unwrap();
    assert!(world.query_dsl("(Likes, Bob)").is_ok());
    world.despawn(bob);
    let error = world.query_dsl("(Likes, Bob)").unwrap_err();
    assert_eq!(error.offset, "(Likes, ".len());
}

#[test]
fn query_builder_with_no_term_is_an_empty_error() {
    let world = World::new();
    assert!(matches!(world.query_builder().build(), Err(ecs::query::QueryBuildError::Empty)));
    assert!(matches!(world.query_builder().build_uncached(), Err(ecs::query::QueryBuildError::Empty)));
    // Modifiers of "the last term" do nothing without one (the build still fails).
    let pos = Entity::from_raw(500, 0);
    let built = world.query_builder().up(pos).source(pos).optional_last().negate_last().or(pos).build();
    assert!(matches!(built, Err(ecs::query::QueryBuildError::Empty)), "{:?}", built.err());
}

#[test]
fn query_builder_with_unknown_dead_or_placeholder_ids_matches_nothing() {
    let mut world = World::new();
    world.spawn((Pos(1), Vel(2)));
    let d = dead(&mut world);
    let likes = world.register_component::<Likes>();
    for id in [Entity::from_raw(4000, 0), d, Entity::PLACEHOLDER, foreign()] {
        let built = try_panic(|| world.query_builder().read(id).build().map(|mut q| q.iter(&world).count()));
        match built {
            Ok(Ok(rows)) => assert_eq!(rows, 0, "read({id:?}) matched rows"),
            Ok(Err(_)) => {}
            Err(message) => panic!("query_builder().read({id:?}) panicked: {message}"),
        }
        let built = try_panic(|| world.query_builder().pair(likes, id).build().map(|mut q| q.iter(&world).count()));
        match built {
            Ok(Ok(rows)) => assert_eq!(rows, 0, "pair(likes, {id:?}) matched rows"),
            Ok(Err(_)) => {}
            Err(message) => panic!("query_builder().pair(likes, {id:?}) panicked: {message}"),
        }
    }
    assert_consistent(&mut world);
}

#[test]
fn query_builder_pair_with_a_stale_target_never_matches_the_new_entity() {
    let mut world = World::new();
    let likes = world.register_component::<Likes>();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let fan = world.spawn(Pos(3)).id();
    world.add_pair::<Likes>(fan, fresh);
    let result = world.query_builder().pair(likes, stale).build().map(|mut q| q.iter(&world).count());
    if let Ok(rows) = result {
        assert_eq!(rows, 0, "a pair term with a stale target matched the entity reusing its index");
    }
}

#[test]
fn query_builder_fixed_source_that_is_dead_yields_nothing() {
    let mut world = World::new();
    let settings = world.spawn(Gravity(1)).id();
    world.spawn(Pos(1));
    let pos = world.register_component::<Pos>();
    let gravity = world.register_component::<Gravity>();
    let mut q = world.query_builder().read(pos).read(gravity).source(settings).build().unwrap();
    assert_eq!(q.iter(&world).count(), 1);
    world.despawn(settings);
    assert_eq!(q.iter(&world).count(), 0, "a dead fixed source still matched");
    let fresh = world.spawn(Gravity(2)).id();
    assert_eq!(fresh.index(), settings.index());
    let rows: Vec<Option<i32>> = q.iter(&world).map(|row| row.get::<Gravity>(1).map(|g| g.0)).collect();
    assert!(rows.is_empty(), "the stale fixed source read the new entity's value: {rows:?}");
}

#[test]
fn query_builder_aliasing_write_is_an_error_naming_the_component() {
    let mut world = World::new();
    let pos = world.register_component::<Pos>();
    let error = world.query_builder().write(pos).read(pos).build_in(&world).unwrap_err();
    assert!(error.to_string().contains("Pos"), "{error}");
    let error = world.query_dsl("[inout] Pos, Pos").unwrap_err();
    assert!(error.message.contains("Pos"), "{}", error.message);
}

#[test]
fn row_get_with_the_wrong_type_or_term_index_is_none_or_err() {
    let mut world = World::new();
    let e = world.spawn((Pos(1), Vel(2), Tag)).id();
    let (pos, vel, tag) =
        (world.register_component::<Pos>(), world.register_component::<Vel>(), world.register_component::<Tag>());
    let mut q = world.query_builder().read(pos).write(vel).with(tag).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert_eq!(row.entity(), e);
    assert_eq!(row.get::<Pos>(0), Some(&Pos(1)));
    assert_eq!(row.get::<Vel>(0), None, "wrong type");
    assert_eq!(row.get::<Gravity>(0), None, "an unregistered type");
    assert_eq!(row.get::<Pos>(3), None, "no term 3");
    assert_eq!(row.get::<Pos>(usize::MAX), None);
    assert!(row.get::<Tag>(2).is_none(), "a tag has no data");
    assert!(matches!(row.try_get::<Vel>(0), Err(DynGetError::TypeMismatch { term: 0, .. })));
    assert!(matches!(row.try_get::<Pos>(3), Err(DynGetError::NoSuchTerm(3))));
    assert!(matches!(row.try_get::<Tag>(2), Err(DynGetError::NoData(2))));
    assert!(!row.is_set(3));
    assert_eq!(row.try_pair_target(0), None);
    assert_eq!(row.try_pair_target(99), None);
    assert_eq!(row.var("nope"), None);
    assert_eq!(row.var(""), None);
    assert_eq!(row.var("$"), None);
}

#[test]
fn row_mut_get_mut_on_a_read_term_wrong_type_or_index_is_none_or_err() {
    let mut world = World::new();
    let e = world.spawn((Pos(1), Vel(2))).id();
    let (pos, vel) = (world.register_component::<Pos>(), world.register_component::<Vel>());
    let mut q = world.query_builder().read(pos).write(vel).build().unwrap();
    {
        let mut rows = q.iter_mut(&mut world);
        let mut row = rows.fetch_next().unwrap();
        assert!(row.get_mut::<Pos>(0).is_none(), "a read term handed out a Mut");
        assert!(matches!(row.try_get_mut::<Pos>(0), Err(DynGetError::NotWritable(0))));
        assert!(row.get_mut::<Pos>(1).is_none(), "wrong type on the write term");
        assert!(matches!(row.try_get_mut::<Pos>(1), Err(DynGetError::TypeMismatch { term: 1, .. })));
        assert!(row.get_mut::<Vel>(7).is_none());
        assert!(matches!(row.try_get_mut::<Vel>(7), Err(DynGetError::NoSuchTerm(7))));
        row.get_mut::<Vel>(1).unwrap().0 = 5;
    }
    assert_eq!(world.get::<Vel>(e), Some(&Vel(5)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1)));
}

#[test]
fn row_get_of_an_optional_term_that_did_not_match_is_none() {
    let mut world = World::new();
    world.spawn(Pos(1));
    let (pos, vel) = (world.register_component::<Pos>(), world.register_component::<Vel>());
    let mut q = world.query_builder().read(pos).optional(vel).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert!(!row.is_set(1));
    assert_eq!(row.get::<Vel>(1), None);
    assert!(matches!(row.try_get::<Vel>(1), Err(DynGetError::NotSet(1))));
}

#[test]
fn row_get_of_a_disabled_toggle_term_is_none() {
    let mut world = World::new();
    let e = world.spawn((Pos(1), Thrust(2.0))).id();
    world.entity_mut(e).disable::<Thrust>();
    let (pos, thrust) = (world.register_component::<Pos>(), world.register_component::<Thrust>());
    let mut q = world.query_builder().read(pos).optional(thrust).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    assert!(!row.is_set(1));
    assert_eq!(row.get::<Thrust>(1), None, "a disabled value was read through an optional term");
    assert!(matches!(row.try_get::<Thrust>(1), Err(DynGetError::NotSet(1))));
    let mut required = world.query_builder().read(pos).read(thrust).build().unwrap();
    assert_eq!(required.iter(&world).count(), 0, "a disabled value matched a required term");
}

#[test]
fn row_id_source_and_pair_target_with_a_bad_term_panic_naming_the_term() {
    let mut world = World::new();
    world.spawn(Pos(1));
    let pos = world.register_component::<Pos>();
    let mut q = world.query_builder().read(pos).build().unwrap();
    let row = q.iter(&world).next().unwrap();
    let message = panic_message(|| row.id(5));
    assert!(message.contains('5'), "{message}");
    let message = panic_message(|| row.source(5));
    assert!(message.contains('5'), "{message}");
    let message = panic_message(|| row.pair_target(0));
    assert!(message.contains("term 0"), "{message}");
}

#[test]
fn row_entity_of_a_query_without_this_panics_and_this_is_none() {
    let mut world = World::new();
    let bob = world.spawn((Name::new("Bob"), Pos(4))).id();
    let _ = bob;
    let mut q = world.query_dsl("Pos(Bob)").unwrap();
    let row = q.iter(&world).next().expect("one solution");
    assert_eq!(row.this(), None);
    let message = panic_message(|| row.entity());
    assert!(message.contains("$this"), "{message}");
    assert_eq!(row.get::<Pos>(0), Some(&Pos(4)));
}

// ===== prefabs, toggles, inspect, observers =======================================

#[test]
fn instantiate_of_a_dead_or_stale_prefab_panics_naming_it() {
    let mut world = World::new();
    let d = dead(&mut world);
    let count = world.entity_count();
    let message = panic_message(|| world.instantiate(d));
    assert!(message.contains(&format!("{d:?}")), "{message}");
    assert_eq!(world.entity_count(), count, "a refused instantiate left an entity");
    let (stale, _fresh) = stale_and_fresh(&mut world);
    let message = panic_message(|| world.instantiate(stale));
    assert!(message.contains(&format!("{stale:?}")), "{message}");
    let message = panic_message(|| world.instantiate(Entity::PLACEHOLDER));
    assert!(message.contains(&format!("{:?}", Entity::PLACEHOLDER)), "{message}");
    assert_consistent(&mut world);
}

#[test]
fn instantiate_of_a_non_prefab_is_an_isa_pair_that_passes_no_value() {
    // IsA docs: values are read through prefabs only; a plain base's pair still
    // matches `(IsA, base)` terms.
    let mut world = World::new();
    let base = world.spawn(MaxSpeed(3.0)).id();
    let inst = world.instantiate(base);
    assert!(world.has_pair::<IsA>(inst, base));
    assert_eq!(world.get::<MaxSpeed>(inst), None);
    assert!(!world.has::<MaxSpeed>(inst));
    let mut q = world.query::<Entity>().with_pair::<IsA>(base);
    assert!(q.iter(&world).any(|e| e == inst));
    assert_consistent(&mut world);
}

#[test]
fn instantiate_of_a_wildcard_changes_nothing() {
    let mut world = World::new();
    let count = world.entity_count();
    let result = try_panic(|| world.instantiate(Entity::WILDCARD));
    assert!(result.is_err(), "a wildcard was instantiated");
    assert_eq!(world.entity_count(), count, "the refused instance was left alive");
}

#[test]
fn isa_cycle_is_refused() {
    let mut world = World::new();
    let a = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let b = world.instantiate(a);
    let result = world.try_add_pair::<IsA>(a, b);
    assert!(result.is_err(), "IsA cycle a -> b -> a accepted");
    assert_eq!(world.get::<MaxSpeed>(b), Some(&MaxSpeed(1.0)));
    assert_consistent(&mut world);
}

#[test]
fn is_enabled_on_dead_stale_and_lacking_entities_is_false() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.insert(fresh, Thrust(1.0));
    assert!(!world.is_enabled::<Thrust>(stale));
    assert!(world.is_enabled::<Thrust>(fresh));
    assert!(!world.is_enabled::<Thrust>(Entity::PLACEHOLDER));
    let plain = world.spawn(Pos(1)).id();
    assert!(!world.is_enabled::<Thrust>(plain));
    assert!(world.is_enabled::<Pos>(plain), "a non-toggle component: whether the entity has it");
    assert!(!world.is_enabled::<Vel>(plain));
    world.entity_mut(plain).disable::<Thrust>(); // lacks T: nothing happens
    assert!(!world.has::<Thrust>(plain));
    world.check_invariants();
}

#[test]
fn inspect_of_a_dead_entity_panics_naming_it_and_try_inspect_is_none() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let message = panic_message(|| world.inspect(stale));
    assert!(message.contains(&format!("{stale:?}")), "{message}");
    assert!(world.try_inspect(stale).is_none());
    let message = panic_message(|| world.inspect(Entity::PLACEHOLDER));
    assert!(message.contains(&format!("{:?}", Entity::PLACEHOLDER)), "{message}");
    let report = world.inspect(fresh).to_string();
    assert!(report.contains("Pos"), "{report}");
    assert_consistent(&mut world);
}

#[test]
fn trigger_targets_with_a_stale_handle_does_not_reach_the_new_entitys_observer() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.entity_mut(fresh).observe(|_: Trigger<Ping>, mut c: ResMut<Counter>| c.0 += 1);
    world.trigger_targets(Ping, stale);
    assert_eq!(world.resource::<Counter>().0, 0, "a stale target reached the new entity's observer");
    world.trigger_targets(Ping, Entity::PLACEHOLDER);
    assert_eq!(world.resource::<Counter>().0, 0);
    world.trigger_targets(Ping, fresh);
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_consistent(&mut world);
}

#[test]
fn entity_observer_of_a_despawned_entity_is_gone() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let e = world.spawn_empty().id();
    world.entity_mut(e).observe(|_: Trigger<Ping>, mut c: ResMut<Counter>| c.0 += 1);
    world.despawn(e);
    assert!(world.observers().is_empty());
    world.trigger_targets(Ping, e);
    assert_eq!(world.resource::<Counter>().0, 0);
    assert_consistent(&mut world);
}

#[test]
fn despawned_component_id_is_refused_by_runtime_apis() {
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    let pos = world.component_id::<Pos>().unwrap();
    assert!(world.despawn(pos));
    assert_eq!(world.get::<Pos>(e), None);
    assert!(!world.has_id(e, pos.id()));
    assert!(world.component_info(pos).is_none());
    let message = panic_message(|| world.add_pair_id(e, pos, e));
    assert!(message.contains(&format!("{pos:?}")), "{message}");
    let rows = world.query_builder().read(pos).build().map(|mut q| q.iter(&world).count());
    assert!(matches!(rows, Ok(0) | Err(_)), "{rows:?}");
    assert!(world.insert(e, Pos(2)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(2)));
    assert_consistent(&mut world);
}

// ===== more entry points ==========================================================

#[test]
fn relations_param_on_dead_and_stale_entities_is_empty() {
    let mut world = World::new();
    let (stale, fresh) = stale_and_fresh(&mut world);
    let kid = world.spawn_empty().add_pair::<ChildOf>(fresh).id();
    let (target, sources, ancestors, descendants) = world.run_system_once(move |h: Relations<ChildOf>| {
        (h.target(stale), h.sources(stale).count(), h.ancestors(stale).count(), h.descendants(stale).count())
    });
    assert_eq!((target, sources, ancestors, descendants), (None, 0, 0, 0));
    let parent = world.run_system_once(move |h: Relations<ChildOf>| h.target(kid));
    assert_eq!(parent, Some(fresh));
}

#[test]
fn one_shot_system_with_an_unmatched_single_is_skipped_not_run() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(|_p: Single<&Pos>, mut c: ResMut<Counter>| c.0 += 1);
    assert!(matches!(world.run_system(id), Err(RunSystemError::Skipped { .. })));
    world.spawn(Pos(1));
    world.spawn(Pos(2));
    assert!(matches!(world.run_system(id), Err(RunSystemError::Skipped { .. })), "two matches");
    assert_eq!(world.resource::<Counter>().0, 0);
}

#[test]
fn spawning_a_bundle_with_a_duplicate_component_panics_naming_it_and_spawns_nothing() {
    let mut world = World::new();
    let message = panic_message(|| world.spawn((Pos(1), Pos(2))).id());
    assert!(message.contains("Pos"), "{message}");
    assert_eq!(world.entity_count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn clear_entities_makes_every_old_handle_stale() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..10).map(|i| (Pos(i),))).collect();
    world.insert_resource(Time { dt: 1.0 });
    world.clear_entities();
    let fresh: Vec<Entity> = world.spawn_batch((0..10).map(|i| (Pos(100 + i),))).collect();
    for old in &ids {
        assert!(!world.is_alive(*old));
        assert_eq!(world.get::<Pos>(*old), None);
    }
    assert!(fresh.iter().all(|e| world.is_alive(*e)));
    assert_eq!(world.resource::<Time>().dt, 1.0, "resources stay");
    assert_consistent(&mut world);
}

#[test]
fn remove_pair_wildcard_on_dead_or_stale_entities_removes_nothing() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let (stale, fresh) = stale_and_fresh(&mut world);
    world.add_pair::<Likes>(fresh, bob);
    assert!(!world.remove_pair::<Likes>(stale, Entity::WILDCARD));
    assert!(!world.remove_id(stale, Entity::WILDCARD.id()));
    assert!(world.has_pair::<Likes>(fresh, bob), "a stale handle removed the new entity's pairs");
    assert!(world.remove_pair::<Likes>(fresh, Entity::WILDCARD));
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_id_with_a_dead_relationship_applies_its_queued_policy() {
    let mut world = World::new();
    let (rel, holder, target) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let (rel_del, doomed) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.set_relationship_traits(rel_del, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    apply_commands(&mut world, |commands| {
        commands.entity(rel).despawn();
        commands.entity(holder).add_pair_id(rel, target); // remove (default): nothing added
        commands.entity(rel_del).despawn();
        commands.entity(doomed).add_pair_id(rel_del, target); // delete: holder despawned
    });
    assert!(world.is_alive(holder));
    assert_eq!(world.ids_of(holder), Some(&[][..]));
    assert!(!world.is_alive(doomed));
    assert_consistent(&mut world);
}

#[test]
fn commands_add_pair_that_closes_a_cycle_panics_naming_the_entities() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<DependsOn>(a, b);
    let message = panic_message(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(b).add_pair::<DependsOn>(a);
        })
    });
    assert!(message.contains(&format!("{a:?}")) && message.contains(&format!("{b:?}")), "{message}");
    assert_eq!(world.targets::<DependsOn>(b).count(), 0);
    assert_consistent(&mut world);
}

#[test]
fn spawn_at_a_dead_index_outside_the_active_range_is_out_of_range() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.despawn(old);
    world.set_entity_range(10_000..20_000);
    assert!(matches!(world.spawn_at(old), Err(SpawnError::OutOfRange { .. })));
    assert!(!world.is_alive(old));
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), 10_000, "a dead index outside the range is not recycled into it");
    assert_consistent(&mut world);
}

#[test]
fn spawn_at_a_just_despawned_id_revives_exactly_that_id() {
    // spawn_at docs: "gives exactly that id (index and generation)"; it is the
    // caller's choice to reuse an id, so the old handle is alive again.
    let mut world = World::new();
    let e = world.spawn(Pos(1)).id();
    world.despawn(e);
    let again = world.spawn_at(e).unwrap().id();
    assert_eq!(again, e);
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Pos>(e), None, "the revived entity starts empty");
    let next = world.spawn_empty().id();
    assert_ne!(next.index(), e.index(), "later spawns skip its index");
    assert_consistent(&mut world);
}

#[test]
fn trigger_targets_to_a_dead_entity_reaches_no_entity_observer() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let alive = world.spawn_empty().id();
    world.entity_mut(alive).observe(|_: Trigger<Ping>, mut c: ResMut<Counter>| c.0 += 1);
    let d = dead(&mut world);
    world.trigger_targets(Ping, [d, Entity::PLACEHOLDER]);
    assert_eq!(world.resource::<Counter>().0, 0);
    world.trigger_targets(Ping, vec![d, alive]);
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_consistent(&mut world);
}

#[test]
fn query_dsl_random_token_soup_never_panics() {
    let world = dsl_world();
    let tokens = [
        "Pos",
        "Vel",
        "Tag",
        "Thrust",
        "Likes",
        "ChildOf",
        "Bob",
        "Nope",
        "$this",
        "$x",
        "$y",
        "*",
        "_",
        "(",
        ")",
        ",",
        ", ",
        "!",
        "?",
        "||",
        "[in]",
        "[out]",
        "[inout]",
        "[none]",
        "[",
        "]",
        "up",
        "self|up",
        "self|",
        " ",
        "::",
        "#",
        "#12",
        "#99999999999",
        "ü",
        "\t",
        "$",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for _ in 0..3000 {
        let len = 1 + next(10);
        let input: String = (0..len).map(|_| tokens[next(tokens.len())]).collect();
        let outcome = try_panic(|| world.query_dsl(&input).map(|q| q.to_dsl()));
        match outcome {
            Err(message) => panic!("query_dsl({input:?}) panicked: {message}"),
            Ok(Err(error)) => {
                assert!(error.offset <= input.len(), "query_dsl({input:?}): offset {}", error.offset);
                assert!(input.is_char_boundary(error.offset), "query_dsl({input:?}): offset {}", error.offset);
            }
            Ok(Ok(text)) => {
                let again = try_panic(|| world.query_dsl(&text).map(|q| q.to_dsl()));
                assert!(
                    matches!(&again, Ok(Ok(same)) if *same == text),
                    "query_dsl({input:?}).to_dsl() = {text:?} does not parse back to itself: {again:?}"
                );
            }
        }
    }
}
