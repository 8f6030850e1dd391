//! Review session 4: adversarial tests for the commits 5a19ebb (bundles a
//! command inserts follow their pairs' `on_delete_target` policy;
//! `clear_entities` plans `panic` as `remove`) and ff27fd6 (the
//! `#[derive(SystemParam)]` fields pass through `__FieldItem`).
//!
//! Its findings, all fixed: the commands' pair-policy flag stayed set
//! through the hooks and observers of a pairless command bundle, so a
//! `World::insert` their commands ran followed the policy instead of
//! panicking; `EntityCommands::insert_if_new` and `Commands::spawn_batch`
//! panicked on a dead target; a panic out of a `Name` bundle's pairs left the
//! deferred sibling-name check set (so a later clash went unnoticed);
//! `__relabel` was a safe public method around an unchecked re-typing of a
//! `ParamSet` (it is `unsafe` now: a call from safe code, as
//! `__FieldItem::new(set).__relabel::<(ResMut<Other>,)>()`, no longer compiles).
//!
//! Compile-time probes (not expressible here): a derived param mixing
//! `Res<T>` (nested in a derived field) with a `ParamSet` member `ResMut<T>`,
//! `Option<Res<T>>` with a member `ResMut<T>`, and `MessageReader<M>` with a
//! nested `MessageWriter<M>` each fail `cargo check` naming both fields.

#![allow(dead_code)]

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::prelude::*;
use ecs::system::CommandQueue;

fn quiet<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

/// Applies the commands `f` queues.
fn with_commands(world: &mut World, f: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, world);
    f(&mut commands);
    queue.apply(world);
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Pos(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Tag;

/// Counts its drops.
#[derive(Debug)]
struct Dropper(Arc<AtomicUsize>);

impl Drop for Dropper {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Component, Debug)]
struct Payload(Dropper);

/// A relationship with data (default policies: `remove`).
#[derive(Relationship, Debug)]
struct Holds(Dropper);

/// Data, deleted with its target.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct Bound(Dropper);

/// Data, panics when its target goes.
#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Pinned(Dropper);

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

#[derive(Relationship)]
#[relationship(union)]
struct Moving;

#[derive(Relationship)]
#[relationship(union, on_delete_target = "delete")]
struct Riding;

#[derive(Relationship)]
#[relationship(union, on_delete_target = "panic")]
struct Tethered;

fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

fn dead(world: &mut World) -> Entity {
    let e = world.spawn_empty().id();
    world.despawn(e);
    e
}

// ------------------------------------------- (1) command bundles by policy

#[test]
fn spawn_remove_policy_drops_the_pair_value_once_and_keeps_the_rest() {
    let mut world = World::new();
    let (pair, comp) = (counter(), counter());
    let target = world.spawn_empty().id();
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        commands.entity(target).despawn();
        spawned =
            Some(commands.spawn((Payload(Dropper(comp.clone())), Holds(Dropper(pair.clone())).pair(target))).id());
    });
    let e = spawned.unwrap();
    assert!(world.is_alive(e));
    assert!(world.get::<Payload>(e).is_some());
    assert_eq!(pair.load(Ordering::SeqCst), 1, "the left-out pair value is dropped once");
    assert_eq!(comp.load(Ordering::SeqCst), 0);
    world.check_invariants();
    world.despawn(e);
    assert_eq!(comp.load(Ordering::SeqCst), 1);
    assert_eq!(pair.load(Ordering::SeqCst), 1);
    world.check_invariants();
}

#[test]
fn spawn_delete_policy_after_earlier_pairs_drops_each_value_once() {
    let mut world = World::new();
    let (a, b, c, comp) = (counter(), counter(), counter(), counter());
    let alive = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        commands.entity(gone).despawn();
        spawned = Some(
            commands
                .spawn((
                    Payload(Dropper(comp.clone())),
                    Holds(Dropper(a.clone())).pair(alive),
                    Bound(Dropper(b.clone())).pair(gone),
                    Holds(Dropper(c.clone())).pair(alive),
                ))
                .id(),
        );
    });
    let e = spawned.unwrap();
    assert!(!world.is_alive(e), "a delete pair despawns the new entity");
    for (name, n) in [("earlier pair", &a), ("delete pair", &b), ("later pair", &c), ("component", &comp)] {
        assert_eq!(n.load(Ordering::SeqCst), 1, "{name} value dropped {} times", n.load(Ordering::SeqCst));
    }
    assert_eq!(world.query::<&Payload>().iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn insert_delete_policy_despawns_existing_entity_and_its_children() {
    let mut world = World::new();
    let gone = world.spawn_empty().id();
    let e = world.spawn(Pos(1.0)).id();
    let child = world.spawn(ChildOf.pair(e)).id();
    with_commands(&mut world, |commands| {
        commands.entity(gone).despawn();
        commands.entity(e).insert((Tag, DockedTo.pair(gone)));
    });
    assert!(!world.is_alive(e) && !world.is_alive(child));
    world.check_invariants();
}

#[test]
fn try_insert_remove_policy_on_existing_entity() {
    let mut world = World::new();
    let gone = world.spawn_empty().id();
    let keep = world.spawn_empty().id();
    let e = world.spawn(Pos(1.0)).id();
    with_commands(&mut world, |commands| {
        commands.entity(gone).despawn();
        commands.entity(e).try_insert((Tag, Likes.pair(gone), Likes.pair(keep)));
    });
    assert!(world.has::<Tag>(e));
    assert!(world.has_pair::<Likes>(e, keep));
    assert!(!world.has_pair::<Likes>(e, gone));
    world.check_invariants();
}

#[test]
fn spawn_panic_policy_panics_drops_each_value_once_and_world_stays_valid() {
    let mut world = World::new();
    let (a, b, c) = (counter(), counter(), counter());
    let alive = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(gone).despawn();
            commands.spawn((
                Holds(Dropper(a.clone())).pair(alive),
                Pinned(Dropper(b.clone())).pair(gone),
                Holds(Dropper(c.clone())).pair(alive),
            ));
        })
    });
    assert!(result.is_err(), "a panic policy panics");
    assert_eq!(b.load(Ordering::SeqCst), 1);
    assert_eq!(c.load(Ordering::SeqCst), 1);
    world.check_invariants();
    world.clear_entities();
    assert_eq!(a.load(Ordering::SeqCst), 1);
    world.check_invariants();
    // A later direct insert with a dead target still panics (the flag did not leak).
    let e = world.spawn_empty().id();
    assert!(quiet(|| world.insert(e, Likes.pair(gone))).is_err());
    world.check_invariants();
}

#[test]
fn spawn_union_pairs_by_policy() {
    let mut world = World::new();
    let gone = world.spawn_empty().id();
    let alive = world.spawn_empty().id();
    let mut ids = Vec::new();
    with_commands(&mut world, |commands| {
        commands.entity(gone).despawn();
        ids.push(commands.spawn((Pos(1.0), Moving.pair(gone))).id());
        ids.push(commands.spawn((Pos(2.0), Moving.pair(alive), Riding.pair(gone))).id());
    });
    assert!(world.is_alive(ids[0]) && !world.has_pair::<Moving>(ids[0], Entity::WILDCARD));
    assert!(!world.is_alive(ids[1]));
    world.check_invariants();
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.spawn((Pos(3.0), Tethered.pair(gone)));
        })
    });
    assert!(result.is_err());
    world.check_invariants();
    // union target later despawned: still removed from a survivor
    let t = world.spawn_empty().id();
    let h = world.spawn((Pos(4.0), Moving.pair(t))).id();
    world.despawn(t);
    assert!(world.is_alive(h));
    world.check_invariants();
}

#[test]
fn spawn_isa_dead_prefab_is_left_out() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Pos(9.0))).id();
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        commands.entity(prefab).despawn();
        spawned = Some(commands.spawn((Tag, IsA.pair(prefab))).id());
    });
    let e = spawned.unwrap();
    assert!(world.is_alive(e));
    assert!(world.get::<Pos>(e).is_none());
    world.check_invariants();
}

#[test]
fn spawn_isa_instantiated_then_deleted_by_a_later_pair() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Pos(9.0))).id();
    let prefab_child = world.spawn((Prefab, Tag, ChildOf.pair(prefab))).id();
    let gone = world.spawn_empty().id();
    let before = world.entity_count();
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        commands.entity(gone).despawn();
        spawned = Some(commands.spawn((IsA.pair(prefab), DockedTo.pair(gone))).id());
    });
    assert!(!world.is_alive(spawned.unwrap()));
    assert_eq!(world.entity_count(), before - 1, "instance children went with the instance");
    assert!(world.is_alive(prefab_child));
    world.check_invariants();
}

#[test]
fn spawn_isa_with_live_prefab_instantiates_children() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Pos(9.0))).id();
    world.spawn((Prefab, Tag, ChildOf.pair(prefab)));
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        spawned = Some(commands.spawn((IsA.pair(prefab), Pos(1.0))).id());
    });
    let e = spawned.unwrap();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0)));
    assert_eq!(
        world.query_filtered::<Entity, With<Tag>>().iter(&world).filter(|&c| world.parent(c) == Some(e)).count(),
        1
    );
    world.check_invariants();
}

#[test]
fn spawn_name_with_dead_parent_is_despawned_and_frees_the_name() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("p")).id();
    let mut spawned = None;
    with_commands(&mut world, |commands| {
        commands.entity(parent).despawn();
        spawned = Some(commands.spawn((Name::new("kid"), ChildOf.pair(parent))).id());
    });
    assert!(!world.is_alive(spawned.unwrap()));
    world.check_invariants();
    // The name is free among roots.
    let root = world.spawn(Name::new("kid")).id();
    assert!(world.is_alive(root));
    world.check_invariants();
}

#[test]
fn insert_name_with_dead_parent_on_existing_named_entity() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn(Name::new("x"));
    let e = world.spawn(Name::new("y")).id();
    with_commands(&mut world, |commands| {
        commands.entity(parent).despawn();
        // "x" clashes among roots, but the entity goes with its dead parent.
        commands.entity(e).insert((Name::new("x"), ChildOf.pair(parent)));
    });
    assert!(!world.is_alive(e));
    world.check_invariants();
}

#[test]
fn insert_name_with_remove_policy_pair_still_checks_root_names() {
    let mut world = World::new();
    let gone = world.spawn_empty().id();
    world.spawn(Name::new("x"));
    let mut spawned = None;
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(gone).despawn();
            spawned = Some(commands.spawn((Name::new("x"), Likes.pair(gone))).id());
        })
    });
    assert!(result.is_err(), "a root name clash still panics");
    assert!(!world.is_alive(spawned.unwrap()));
    world.check_invariants();
}

// ------------------------------------------------ (1b) the flag's reach

#[derive(Resource, Clone, Copy, Debug)]
struct Probe {
    victim: Entity,
    gone: Entity,
    /// Whether the direct `World::insert` of a pair to a dead target panicked.
    panicked: Option<bool>,
}

/// Queues a command that inserts a pair to a dead target with
/// `World::insert` (not a command insert).
fn direct_insert_from_hook(mut world: DeferredWorld, _ctx: HookContext) {
    let Some(probe) = world.get_resource::<Probe>().copied() else { return };
    world.commands().queue(move |w: &mut World| {
        let panicked = quiet(|| w.insert(probe.victim, (Tag, Likes.pair(probe.gone)))).is_err();
        w.resource_mut::<Probe>().panicked = Some(panicked);
    });
}

#[derive(Component)]
#[component(on_add = direct_insert_from_hook)]
struct Trip;

fn probe_world() -> (World, Entity, Entity) {
    let mut world = World::new();
    let victim = world.spawn(Pos(0.0)).id();
    let gone = dead(&mut world);
    world.insert_resource(Probe { victim, gone, panicked: None });
    let e = world.spawn_empty().id();
    (world, e, gone)
}

#[test]
fn direct_insert_in_a_hook_command_of_a_plain_world_insert_panics() {
    let (mut world, e, _) = probe_world();
    world.insert(e, Trip);
    assert_eq!(world.resource::<Probe>().panicked, Some(true));
    world.check_invariants();
}

#[test]
fn direct_insert_in_a_hook_command_of_a_pairless_command_insert_panics() {
    let (mut world, e, _) = probe_world();
    with_commands(&mut world, |commands| {
        commands.entity(e).insert(Trip);
    });
    assert_eq!(
        world.resource::<Probe>().panicked,
        Some(true),
        "a direct World::insert of a pair to a dead target must panic, as outside commands"
    );
    world.check_invariants();
}

#[test]
fn direct_insert_in_a_hook_command_of_a_pairless_command_spawn_panics() {
    let (mut world, _, _) = probe_world();
    with_commands(&mut world, |commands| {
        commands.spawn((Trip, Pos(1.0)));
    });
    assert_eq!(world.resource::<Probe>().panicked, Some(true));
    world.check_invariants();
}

#[test]
fn direct_insert_in_a_hook_command_of_a_command_insert_with_pairs_panics() {
    // The flag is taken before the values land: hooks of a bundle with pairs
    // do not see it.
    let (mut world, e, _) = probe_world();
    let alive = world.spawn_empty().id();
    with_commands(&mut world, |commands| {
        commands.entity(e).insert((Trip, Likes.pair(alive)));
    });
    assert_eq!(world.resource::<Probe>().panicked, Some(true));
    world.check_invariants();
}

#[test]
fn direct_insert_in_an_observer_command_of_a_pairless_command_insert_panics() {
    let (mut world, e, _) = probe_world();
    world.add_observer(|_trigger: Trigger<OnAdd, Tag>, probe: Res<Probe>, mut commands: Commands| {
        let probe = *probe;
        if probe.panicked.is_some() {
            return;
        }
        commands.queue(move |w: &mut World| {
            let panicked = quiet(|| w.insert(probe.victim, (Pos(5.0), ChildOf.pair(probe.gone)))).is_err();
            w.resource_mut::<Probe>().panicked = Some(panicked);
        });
    });
    with_commands(&mut world, |commands| {
        commands.entity(e).insert(Tag);
    });
    let victim = world.resource::<Probe>().victim;
    assert_eq!(world.resource::<Probe>().panicked, Some(true));
    assert!(world.is_alive(victim), "a direct insert must not despawn the victim by ChildOf's policy");
    world.check_invariants();
}

/// Panics on add.
fn panic_hook(_world: DeferredWorld, _ctx: HookContext) {
    panic!("hook panics");
}

#[derive(Component)]
#[component(on_add = panic_hook)]
struct Boom;

#[test]
fn flag_restored_after_a_hook_panic_in_a_command_insert() {
    let mut world = World::new();
    let alive = world.spawn_empty().id();
    let gone = dead(&mut world);
    let e = world.spawn_empty().id();
    for pairs in [true, false] {
        let result = quiet(|| {
            with_commands(&mut world, |commands| {
                if pairs {
                    commands.entity(e).insert((Boom, Likes.pair(alive)));
                } else {
                    commands.entity(e).insert(Boom);
                }
            })
        });
        assert!(result.is_err());
        let _ = world.remove::<Boom>(e);
        world.check_invariants();
        assert!(quiet(|| world.insert(e, (Tag, Likes.pair(gone)))).is_err(), "direct insert must still panic");
        assert!(quiet(|| world.insert(e, (Tag, ChildOf.pair(gone)))).is_err());
        assert!(world.is_alive(e));
        world.check_invariants();
    }
}

#[test]
fn flag_restored_after_a_command_spawn_with_a_hook_panic() {
    let mut world = World::new();
    let gone = dead(&mut world);
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.spawn(Boom);
        })
    });
    assert!(result.is_err());
    world.check_invariants();
    let e = world.spawn_empty().id();
    assert!(quiet(|| world.insert(e, ChildOf.pair(gone))).is_err());
    assert!(world.is_alive(e));
    world.check_invariants();
}

#[test]
fn insert_if_new_command_with_dead_parent_follows_policy() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn(Pos(1.0)).id();
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(parent).despawn();
            commands.entity(e).insert_if_new((Tag, ChildOf.pair(parent)));
        })
    });
    assert!(result.is_ok(), "insert_if_new panicked where insert follows ChildOf's delete policy");
    assert!(!world.is_alive(e));
    world.check_invariants();
}

#[test]
fn insert_if_new_command_with_dead_target_does_not_leak_the_flag() {
    let mut world = World::new();
    let gone = dead(&mut world);
    let e = world.spawn(Pos(1.0)).id();
    let _ = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(e).insert_if_new((Tag, Likes.pair(gone)));
        })
    });
    world.check_invariants();
    assert!(quiet(|| world.insert(e, Likes.pair(gone))).is_err());
    world.check_invariants();
}

#[test]
fn spawn_batch_command_with_dead_parent_follows_policy() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(parent).despawn();
            commands.spawn_batch((0..3).map(move |_| (Tag, ChildOf.pair(parent))));
        })
    });
    assert!(result.is_ok(), "spawn_batch panicked where spawn follows ChildOf's delete policy");
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn panic_policy_with_name_leaves_no_deferred_name_check() {
    // The panic of a `panic` pair unwinds out of the Name-deferred insert:
    // later ChildOf changes of that entity must still check sibling names.
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn((Name::new("n"), ChildOf.pair(parent)));
    let e = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    let counted = counter();
    let result = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(gone).despawn();
            commands.entity(e).insert((Name::new("n"), Pinned(Dropper(counted.clone())).pair(gone)));
        })
    });
    assert!(result.is_err());
    assert_eq!(counted.load(Ordering::SeqCst), 1);
    world.check_invariants();
    if world.is_alive(e) && world.get::<Name>(e).is_some() {
        let clash = quiet(|| {
            world.add_pair::<ChildOf>(e, parent);
        });
        assert!(clash.is_err(), "a sibling name clash went unnoticed after the panic");
        world.check_invariants();
    }
}

#[test]
fn direct_insert_panic_with_name_leaves_no_deferred_name_check() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn((Name::new("n"), ChildOf.pair(parent)));
    let e = world.spawn_empty().id();
    let gone = dead(&mut world);
    assert!(quiet(|| world.insert(e, (Name::new("n"), Likes.pair(gone)))).is_err());
    // A refused pair refuses the whole bundle: nothing landed.
    assert_eq!(world.get::<Name>(e), None);
    world.insert(e, Name::new("n"));
    let clash = quiet(|| {
        world.add_pair::<ChildOf>(e, parent);
    });
    assert!(clash.is_err(), "a sibling name clash went unnoticed after the panic");
    world.check_invariants();
}

// ------------------------------------------------------ (2) clear_entities

#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct SparseLoad(Dropper);

#[test]
fn clear_entities_typed_panic_pairs_with_values_drop_once() {
    let mut world = World::new();
    let (a, b, s) = (counter(), counter(), counter());
    let target = world.spawn(Pos(1.0)).id();
    let holder = world.spawn((Pos(2.0), SparseLoad(Dropper(s.clone())))).id();
    world.insert_pair(holder, Pinned(Dropper(a.clone())), target);
    world.insert_pair(holder, Bound(Dropper(b.clone())), holder);
    let child = world.spawn(ChildOf.pair(holder)).id();
    world.insert_pair(child, Pinned(Dropper(counter())), target);
    assert!(quiet(|| world.despawn(target)).is_err());
    world.check_invariants();
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    for (name, n) in [("pinned", &a), ("bound", &b), ("sparse", &s)] {
        assert_eq!(n.load(Ordering::SeqCst), 1, "{name} dropped {} times", n.load(Ordering::SeqCst));
    }
    world.check_invariants();
}

#[test]
fn clear_entities_mixed_policies_union_and_runtime_relationships() {
    let mut world = World::new();
    let panic_rel = world.spawn_empty().id();
    world.set_relationship_traits(
        panic_rel,
        RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic).on_delete_target(CleanupPolicy::Panic),
    );
    let delete_rel = world.spawn_empty().id();
    world.set_relationship_traits(
        delete_rel,
        RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete).on_delete_target(CleanupPolicy::Delete),
    );
    let union_rel = world.spawn_empty().id();
    world.set_relationship_traits(
        union_rel,
        RelationshipTraits::DEFAULT
            .exclusive()
            .union()
            .on_delete(CleanupPolicy::Panic)
            .on_delete_target(CleanupPolicy::Panic),
    );
    let mut all = vec![panic_rel, delete_rel, union_rel];
    let targets: Vec<Entity> = (0..4).map(|i| world.spawn(Pos(i as f32)).id()).collect();
    all.extend(&targets);
    for i in 0..12 {
        let e = world.spawn((Pos(10.0 + i as f32), Tethered.pair(targets[i % 4]))).id();
        world.add_pair_id(e, panic_rel, targets[(i + 1) % 4]);
        if i % 2 == 0 {
            world.add_pair_id(e, delete_rel, targets[(i + 2) % 4]);
        }
        world.add_pair_id(e, union_rel, targets[(i + 3) % 4]);
        if i % 3 == 0 {
            world.add_id(e, panic_rel.id());
        }
        all.push(e);
    }
    // targets pointing at each other
    world.add_pair_id(targets[0], panic_rel, targets[1]);
    world.add_pair_id(targets[1], union_rel, targets[0]);
    world.check_invariants();
    world.clear_entities();
    for e in all {
        assert!(!world.is_alive(e), "{e:?} survived");
    }
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
    // usable afterwards, and panic policies of new relationships still refuse
    let t = world.spawn_empty().id();
    let h = world.spawn(Tethered.pair(t)).id();
    assert!(quiet(|| world.despawn(t)).is_err());
    assert!(world.is_alive(h) && world.is_alive(t));
    world.check_invariants();
}

#[derive(Resource, Default)]
struct Removed(Vec<Entity>);

#[test]
fn clear_entities_observers_see_values_and_their_commands_apply() {
    let mut world = World::new();
    world.init_resource::<Removed>();
    world.add_observer(|trigger: Trigger<OnRemove, Pos>, q: Query<&Pos>, mut removed: ResMut<Removed>| {
        assert!(q.get(trigger.entity()).is_ok(), "the value is still readable in OnRemove");
        removed.0.push(trigger.entity());
    });
    let target = world.spawn(Pos(0.0)).id();
    let mut holders = Vec::new();
    for i in 0..5 {
        holders.push(world.spawn((Pos(i as f32), Tethered.pair(target))).id());
    }
    world.clear_entities();
    assert_eq!(world.resource::<Removed>().0.len(), 6);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn clear_entities_observer_that_adds_panic_pairs_during_the_clear() {
    // An observer reacting to each removal ties a survivor to an entity that
    // clear_entities despawns later with a `panic` pair: nothing is refused.
    // (An observer's own `despawn` command of such a target does refuse and
    // panic: that is a plain despawn, not part of the clear.)
    let mut world = World::new();
    let ids: Vec<Entity> = (0..8).map(|i| world.spawn(Pos(i as f32)).id()).collect();
    let shared = ids.clone();
    world.add_observer(move |trigger: Trigger<OnRemove, Pos>, mut commands: Commands| {
        let me = trigger.entity();
        let at = shared.iter().position(|&e| e == me).unwrap_or(0);
        let next = shared[(at + 1) % shared.len()];
        let after = shared[(at + 2) % shared.len()];
        commands.queue(move |w: &mut World| {
            if w.is_alive(next) && w.is_alive(after) {
                let _ = quiet(|| w.insert_pair(next, Pinned(Dropper(counter())), after));
            }
        });
    });
    let result = quiet(|| world.clear_entities());
    assert!(result.is_ok(), "clear_entities panicked");
    world.check_invariants();
    for e in ids {
        assert!(!world.is_alive(e), "{e:?} survived");
    }
}

#[test]
fn clear_entities_with_prefab_instances_and_panic_isa_target() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Panic));
    let prefab = world.spawn((Prefab, Pos(1.0))).id();
    world.spawn((Prefab, Tag, ChildOf.pair(prefab)));
    let inst = world.spawn(IsA.pair(prefab)).id();
    world.add_pair_id(inst, rel, prefab);
    world.clear_entities();
    assert!(!world.is_alive(inst) && !world.is_alive(prefab));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn clear_entities_sparse_holders_and_component_entities_stay() {
    // Sparse relationships cannot be declared (`storage` is refused on a
    // relationship) and component entities are internal: clear_entities
    // never plans a sparse set's `on_delete`. The holders go, values dropped once.
    let mut world = World::new();
    let n = counter();
    let target = world.spawn_empty().id();
    let holder = world.spawn((Pos(1.0), SparseLoad(Dropper(n.clone())))).id();
    world.insert_pair(holder, Pinned(Dropper(counter())), target);
    let comp = world.register_component::<SparseLoad>();
    world.clear_entities();
    assert!(!world.is_alive(holder) && !world.is_alive(target));
    assert!(world.is_alive(comp));
    assert_eq!(n.load(Ordering::SeqCst), 1);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
    let again = world.spawn(SparseLoad(Dropper(n.clone()))).id();
    assert!(world.get::<SparseLoad>(again).is_some());
    world.check_invariants();
}

#[test]
fn clear_entities_observer_spawning_during_the_clear() {
    let mut world = World::new();
    world.add_observer(|_trigger: Trigger<OnRemove, Tag>, mut commands: Commands| {
        commands.spawn(Pos(0.0));
    });
    for _ in 0..3 {
        world.spawn(Tag);
    }
    world.clear_entities();
    // Entities spawned by observers during the clear go too (a further
    // pass; they survived it before, not being in the first pass's list).
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 0);
    world.check_invariants();
    assert_eq!(world.entity_count(), 0);
}

// --------------------------------------- (3) derived params, __FieldItem

#[derive(Resource, Default, Debug, PartialEq)]
struct Score(u64);

#[derive(Resource, Default, Debug, PartialEq)]
struct Other(u64);

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Ping(u32);

#[derive(Resource, Default, Debug, PartialEq)]
struct Missing;

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Pong(u32);

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Pang(u32);

#[derive(SystemParam)]
struct Unit;

#[derive(SystemParam)]
struct Tuple<'w, 's>(Res<'w, Score>, Local<'s, u32>);

#[derive(SystemParam)]
struct OnlyW<'w> {
    score: Option<Res<'w, Score>>,
    missing: Option<Res<'w, Missing>>,
}

#[derive(SystemParam)]
struct OnlyS<'s> {
    local: Local<'s, Vec<u32>>,
}

#[allow(clippy::type_complexity)]
#[derive(SystemParam)]
struct Inner<'w, 's> {
    set: ParamSet<'w, 's, (Query<'w, 's, &'static mut Pos>, Query<'w, 's, &'static Pos, With<Tag>>)>,
    writer: MessageWriter<'w, Pang>,
}

#[allow(clippy::type_complexity)]
#[derive(SystemParam)]
struct Everything<'w, 's> {
    unit: Unit,
    tuple: Tuple<'w, 's>,
    only_w: OnlyW<'w>,
    only_s: OnlyS<'s>,
    inner: Inner<'w, 's>,
    commands: Commands<'w, 's>,
    reader: MessageReader<'w, 's, Pong>,
    single: Single<'w, Entity, (With<Tag>, Without<Pos>)>,
    maybe_single: Option<Single<'w, &'static Score2>>,
    members: ParamSet<
        'w,
        's,
        (
            Res<'w, Other>,
            ResMut<'w, Other>,
            Commands<'w, 's>,
            MessageReader<'w, 's, Ping>,
            MessageWriter<'w, Ping>,
            Option<Single<'w, &'static mut Tag, Without<Pos>>>,
            Query<'w, 's, Entity>,
        ),
    >,
    local: Local<'s, Cell<u32>>,
}

#[derive(Component, Debug)]
struct Score2;

#[test]
fn derived_param_with_every_field_kind() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    world.insert_resource(Other(0));
    world.add_message::<Ping>();
    world.add_message::<Pong>();
    world.add_message::<Pang>();
    world.spawn((Pos(1.0), Tag));
    world.spawn(Pos(2.0));
    let lone = world.spawn(Tag).id();
    let id = world.register_system(move |mut all: Everything| {
        let _: &Unit = &all.unit;
        *all.tuple.1 += 1;
        assert_eq!(all.tuple.0.0, 1 + u64::from(*all.tuple.1) - 1);
        assert!(all.only_w.score.is_some() && all.only_w.missing.is_none());
        all.only_s.local.push(*all.tuple.1);
        let tagged: f32 = all.inner.set.p1().iter().map(|p| p.0).sum();
        for mut p in all.inner.set.p0().iter_mut() {
            p.0 += tagged;
        }
        all.inner.writer.write(Pang(*all.tuple.1));
        let read: Vec<u32> = all.reader.read().map(|p| p.0).collect();
        let _ = read;
        assert!(all.maybe_single.is_none());
        let _ = &all.single;
        let before = all.members.p0().0;
        all.members.p1().0 = before + 1;
        all.members.p2().spawn(Score2);
        let _ = all.members.p3().read().count();
        all.members.p4().write(Ping(100));
        assert!(all.members.p5().is_some());
        assert!(all.members.p6().iter().count() >= 3);
        all.local.set(all.local.get() + 1);
        all.commands.entity(lone).insert(Pos(-1.0));
    });
    world.run_system(id).unwrap();
    assert_eq!(world.get::<Pos>(lone), Some(&Pos(-1.0)));
    assert_eq!(world.resource::<Other>().0, 1);
    assert_eq!(world.query::<&Score2>().iter(&world).count(), 1);
    let sum: f32 = world.query::<&Pos>().iter(&world).map(|p| p.0).sum();
    assert_eq!(sum, 2.0 + 3.0 - 1.0);
    world.check_invariants();
}

#[test]
fn derived_param_locals_keep_state_across_runs() {
    let mut world = World::new();
    world.insert_resource(Score(5));
    let id = world.register_system(|mut tuple: Tuple, mut only_s: OnlyS, _unit: Unit| -> (u32, usize) {
        *tuple.1 += 1;
        only_s.local.push(*tuple.1);
        (*tuple.1, only_s.local.len())
    });
    assert_eq!(world.run_system(id).unwrap(), (1, 1));
    assert_eq!(world.run_system(id).unwrap(), (2, 2));
}
