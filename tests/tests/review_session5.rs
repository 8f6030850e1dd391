//! Review session 5: adversarial tests for e373cf1 (the commands'
//! pair-policy flag is taken at the start of every insert;
//! `EntityCommands::insert_if_new` and `Commands::spawn_batch` follow the
//! pair policy; the deferred sibling-name check is put back when a `Name`
//! bundle's insert or spawn panics).
//!
//! Its findings: fixed, an observer panic while a clashing name was rolled
//! back left the deferred name check set, and `World::insert_if_new` with a
//! stale pair target put the pair on the entity that reused the index (it
//! panics now, as `insert`); fixed later: an `OnRemove<Name>` observer that
//! panicked while a clashing new name was taken back stopped that removal, so
//! the clash stayed (the name now goes, and the panic is resumed after).

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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

#[derive(Relationship, Debug)]
struct Holds(Dropper);

#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "delete")]
struct Bound(Dropper);

#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Pinned(Dropper);

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
#[relationship(union)]
struct Moving;

fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

fn count(c: &Arc<AtomicUsize>) -> usize {
    c.load(Ordering::SeqCst)
}

fn dead(world: &mut World) -> Entity {
    let e = world.spawn_empty().id();
    world.despawn(e);
    e
}

// --------------------------------------------------------- (1) the flag

#[derive(Resource, Clone, Copy, Debug)]
struct Probe {
    victim: Entity,
    gone: Entity,
    /// Whether each direct `World::insert` of a pair to a dead target panicked.
    panicked: Option<bool>,
    runs: usize,
}

/// Queues a command that inserts a pair to a dead target with
/// `World::insert` (not a command insert) and records whether it panicked.
fn direct_insert_from_hook(mut world: DeferredWorld, _ctx: HookContext) {
    let Some(probe) = world.get_resource::<Probe>().copied() else { return };
    world.commands().queue(move |w: &mut World| {
        let panicked = quiet(|| w.insert(probe.victim, (Tag, Likes.pair(probe.gone)))).is_err();
        let mut p = w.resource_mut::<Probe>();
        // Any non-panicking run is a leak: keep the first `false`.
        p.panicked = Some(p.panicked.unwrap_or(true) && panicked);
        p.runs += 1;
    });
}

#[derive(Component)]
#[component(on_add = direct_insert_from_hook)]
struct Trip;

fn probe_world() -> (World, Entity, Entity) {
    let mut world = World::new();
    let victim = world.spawn(Pos(0.0)).id();
    let gone = dead(&mut world);
    world.insert_resource(Probe { victim, gone, panicked: None, runs: 0 });
    let e = world.spawn_empty().id();
    (world, e, gone)
}

fn assert_no_leak(world: &World, runs: usize) {
    let probe = *world.resource::<Probe>();
    assert_eq!(probe.runs, runs);
    assert_eq!(probe.panicked, Some(true), "a direct World::insert of a dead-target pair followed the policy");
    assert!(world.is_alive(probe.victim));
}

#[test]
fn insert_if_new_command_pairs_first_then_hooks_see_no_flag() {
    let (mut world, e, gone) = probe_world();
    let alive = world.spawn_empty().id();
    with_commands(&mut world, |commands| {
        // The pairs are processed first (one dead: remove policy), then the
        // components run their hooks.
        commands.entity(e).insert_if_new((Likes.pair(gone), Likes.pair(alive), Trip, Pos(1.0)));
    });
    assert_no_leak(&world, 1);
    assert!(world.has_pair::<Likes>(e, alive));
    assert!(!world.has_pair::<Likes>(e, gone));
    world.check_invariants();
}

#[test]
fn insert_if_new_command_with_name_and_hook_sees_no_flag() {
    let (mut world, e, gone) = probe_world();
    with_commands(&mut world, |commands| {
        commands.entity(e).insert_if_new((Name::new("a"), Trip, Likes.pair(gone)));
    });
    assert_no_leak(&world, 1);
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("a"));
    world.check_invariants();
}

#[test]
fn prefab_command_insert_hooks_see_no_flag() {
    let (mut world, e, gone) = probe_world();
    let child = world.spawn((Pos(2.0), ChildOf.pair(e))).id();
    with_commands(&mut world, |commands| {
        commands.entity(e).insert((Prefab, Trip, Likes.pair(gone)));
    });
    assert_no_leak(&world, 1);
    assert!(world.is_alive(e) && world.is_alive(child));
    world.check_invariants();
}

#[test]
fn prefab_command_insert_without_pairs_hooks_see_no_flag() {
    let (mut world, e, _) = probe_world();
    world.spawn((Pos(2.0), ChildOf.pair(e)));
    with_commands(&mut world, |commands| {
        commands.entity(e).insert((Prefab, Trip));
    });
    assert_no_leak(&world, 1);
    world.check_invariants();
}

#[test]
fn refused_command_inserts_on_dead_entities_leak_no_flag() {
    let (mut world, _, gone) = probe_world();
    let victim = world.resource::<Probe>().victim;
    let target = dead(&mut world);
    let _ = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(target).try_insert((Tag, Likes.pair(gone)));
            commands.entity(target).try_insert(Tag);
        })
    });
    assert!(quiet(|| world.insert(victim, Likes.pair(gone))).is_err());
    for pairs in [true, false] {
        let r = quiet(|| {
            with_commands(&mut world, |commands| {
                if pairs {
                    commands.entity(target).insert_if_new((Tag, Likes.pair(gone)));
                } else {
                    commands.entity(target).insert_if_new(Tag);
                }
            })
        });
        assert!(r.is_err(), "insert_if_new on a dead entity panics");
        world.check_invariants();
        assert!(quiet(|| world.insert(victim, Likes.pair(gone))).is_err());
        assert!(quiet(|| world.spawn((Tag, ChildOf.pair(gone))).id()).is_err());
        assert!(world.is_alive(victim));
        world.check_invariants();
    }
    let r = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(target).insert((Tag, Likes.pair(gone)));
        })
    });
    assert!(r.is_err());
    assert!(quiet(|| world.insert(victim, (Tag, ChildOf.pair(gone)))).is_err());
    assert!(world.is_alive(victim));
    world.check_invariants();
}

#[test]
fn spawn_batch_command_with_pairs_hooks_see_no_flag() {
    let (mut world, _, gone) = probe_world();
    let alive = world.spawn_empty().id();
    with_commands(&mut world, |commands| {
        commands.spawn_batch((0..4).map(move |i| (Trip, Pos(i as f32), Likes.pair(alive), Likes.pair(gone))));
    });
    assert_no_leak(&world, 4);
    let mut spawned: Vec<(Entity, f32)> = world.query::<(Entity, &Pos)>().iter(&world).map(|(e, p)| (e, p.0)).collect();
    spawned.retain(|&(e, _)| world.has_pair::<Likes>(e, alive));
    assert_eq!(spawned.len(), 4);
    let mut values: Vec<f32> = spawned.iter().map(|&(_, v)| v).collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, vec![0.0, 1.0, 2.0, 3.0]);
    for &(e, _) in &spawned {
        assert!(!world.has_pair::<Likes>(e, gone));
    }
    world.check_invariants();
}

#[test]
fn spawn_batch_command_ids_are_distinct_and_in_bundle_order() {
    let mut world = World::new();
    let alive = world.spawn_empty().id();
    // Free some indices first: the batch reuses them.
    for _ in 0..3 {
        dead(&mut world);
    }
    let mut reserved = None;
    with_commands(&mut world, |commands| {
        reserved = Some(commands.spawn(Tag).id());
        commands.spawn_batch((0..6).map(move |i| (Pos(i as f32), Likes.pair(alive))));
        commands.spawn(Tag);
    });
    let reserved = reserved.unwrap();
    assert!(world.is_alive(reserved) && world.has::<Tag>(reserved));
    let mut got: Vec<Entity> = world.query_filtered::<Entity, With<Pos>>().iter(&world).collect();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), 6);
    assert!(!got.contains(&reserved));
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).count(), 2);
    world.check_invariants();
}

// --------------------------------------------- (2) spawn_batch by policy

#[derive(Resource, Clone, Copy)]
struct Victim(Entity);

/// Despawns the `Victim` (through the hook's commands).
fn despawn_victim(mut world: DeferredWorld, _ctx: HookContext) {
    let Some(Victim(v)) = world.get_resource::<Victim>().copied() else { return };
    world.commands().entity(v).despawn();
}

#[derive(Component)]
#[component(on_add = despawn_victim)]
struct Killer;

/// Despawns its own entity (through the hook's commands).
fn despawn_self(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

#[derive(Component)]
#[component(on_add = despawn_self)]
struct Suicide;

#[test]
fn spawn_batch_command_hook_despawns_a_later_bundles_target() {
    let mut world = World::new();
    let target = world.spawn_empty().id();
    world.insert_resource(Victim(target));
    let (first, second, comps) = (counter(), counter(), counter());
    let (f, s, c) = (first.clone(), second.clone(), comps.clone());
    let result = quiet(|| {
        with_commands(&mut world, move |commands| {
            let bundles: Vec<(Option<Killer>, Payload, Bound)> = vec![
                (Some(Killer), Payload(Dropper(c.clone())), Bound(Dropper(f))),
                (None, Payload(Dropper(c)), Bound(Dropper(s))),
            ];
            commands.spawn_batch(bundles.into_iter().map(move |(k, p, b)| {
                let _ = k;
                (Killer, p, b.pair(target))
            }));
        })
    });
    assert!(result.is_ok(), "a later bundle's dead target follows the delete policy");
    assert!(!world.is_alive(target));
    assert_eq!(world.query::<&Payload>().iter(&world).count(), 0, "both deleted with the target");
    assert_eq!(count(&first), 1);
    assert_eq!(count(&second), 1);
    assert_eq!(count(&comps), 2);
    world.check_invariants();
}

#[test]
fn spawn_batch_command_hook_despawns_its_own_entity() {
    let mut world = World::new();
    let alive = world.spawn_empty().id();
    let (pairs, comps) = (counter(), counter());
    let (p, c) = (pairs.clone(), comps.clone());
    with_commands(&mut world, move |commands| {
        let bundles: Vec<_> = (0..3)
            .map(|_| (Name::new("same"), Suicide, Payload(Dropper(c.clone())), Holds(Dropper(p.clone())).pair(alive)))
            .collect();
        commands.spawn_batch(bundles);
    });
    assert_eq!(world.query::<&Payload>().iter(&world).count(), 0);
    assert_eq!(count(&comps), 3);
    assert_eq!(count(&pairs), 3);
    world.check_invariants();
}

#[test]
fn spawn_batch_command_name_clash_mid_batch_drops_each_value_once() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let (comps, pairs) = (counter(), counter());
    let (c, p) = (comps.clone(), pairs.clone());
    let result = quiet(|| {
        with_commands(&mut world, move |commands| {
            let names = ["a", "b", "a", "c"];
            let bundles: Vec<_> = names
                .iter()
                .map(|n| {
                    (
                        Name::new(*n),
                        Payload(Dropper(c.clone())),
                        Holds(Dropper(p.clone())).pair(parent),
                        ChildOf.pair(parent),
                    )
                })
                .collect();
            commands.spawn_batch(bundles);
        })
    });
    assert!(result.is_err(), "the clash panics");
    world.check_invariants();
    let mut names: Vec<String> =
        world.children(parent).filter_map(|c| world.get::<Name>(c)).map(|n| n.as_str().to_owned()).collect();
    names.sort();
    assert_eq!(names, vec!["a".to_owned(), "b".to_owned()], "the clashing entity was despawned, the rest not spawned");
    assert_eq!(count(&comps), 2, "clashing + unspawned component values dropped once");
    assert_eq!(count(&pairs), 2);
    world.clear_entities();
    assert_eq!(count(&comps), 4);
    assert_eq!(count(&pairs), 4);
    world.check_invariants();
}

#[test]
fn spawn_batch_command_panic_policy_mid_batch_drops_each_value_once() {
    let mut world = World::new();
    let alive = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    let (comps, pairs) = (counter(), counter());
    let (c, p) = (comps.clone(), pairs.clone());
    let result = quiet(|| {
        with_commands(&mut world, move |commands| {
            commands.entity(gone).despawn();
            let targets = [alive, gone, alive];
            let bundles: Vec<_> =
                targets.iter().map(|&t| (Payload(Dropper(c.clone())), Pinned(Dropper(p.clone())).pair(t))).collect();
            commands.spawn_batch(bundles);
        })
    });
    assert!(result.is_err());
    world.check_invariants();
    let live = world.query::<&Payload>().iter(&world).count();
    assert!(live <= 2, "the third bundle is not spawned");
    assert_eq!(count(&comps), 3 - live);
    world.clear_entities();
    assert_eq!(count(&comps), 3);
    assert_eq!(count(&pairs), 3);
    world.check_invariants();
    // No flag left behind.
    let e = world.spawn_empty().id();
    assert!(quiet(|| world.insert(e, ChildOf.pair(gone))).is_err());
    assert!(world.is_alive(e));
    world.check_invariants();
}

// ------------------------------------------- (3) the deferred name check

/// A clash of `e`'s name under `parent` must still be refused.
fn assert_clash_refused(world: &mut World, e: Entity, parent: Entity) {
    let name = world.get::<Name>(e).expect("named").as_str().to_owned();
    world.spawn((Name::new(name), ChildOf.pair(parent)));
    let clash = quiet(|| {
        world.add_pair::<ChildOf>(e, parent);
    });
    assert!(clash.is_err(), "a sibling name clash went unnoticed");
    world.check_invariants();
}

#[derive(Resource)]
struct PanicOnName(&'static str);

#[test]
fn observer_panic_while_restoring_the_old_name_leaves_no_deferred_check() {
    let mut world = World::new();
    world.spawn(Name::new("x"));
    let e = world.spawn(Name::new("y")).id();
    let parent = world.spawn_empty().id();
    world.add_observer(|trigger: Trigger<OnInsert, Name>, names: Query<&Name>, bad: Option<Res<PanicOnName>>| {
        if let (Ok(name), Some(bad)) = (names.get(trigger.entity()), bad)
            && name.as_str() == bad.0
        {
            panic!("observer refuses {}", bad.0);
        }
    });
    world.insert_resource(PanicOnName("y"));
    // "x" clashes among roots: the name goes back to "y", whose observer panics.
    assert!(quiet(|| world.insert(e, Name::new("x"))).is_err());
    world.remove_resource::<PanicOnName>();
    world.check_invariants();
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("y"));
    assert_clash_refused(&mut world, e, parent);
}

#[test]
fn observer_panic_while_removing_the_new_name_leaves_no_deferred_check() {
    let mut world = World::new();
    world.spawn(Name::new("x"));
    let e = world.spawn(Pos(0.0)).id();
    let parent = world.spawn_empty().id();
    world.insert_resource(PanicOnName("x"));
    world.add_observer(|trigger: Trigger<OnRemove, Name>, names: Query<&Name>, bad: Option<Res<PanicOnName>>| {
        if let (Ok(name), Some(bad)) = (names.get(trigger.entity()), bad)
            && name.as_str() == bad.0
        {
            panic!("observer refuses removing {}", bad.0);
        }
    });
    assert!(quiet(|| world.insert(e, Name::new("x"))).is_err());
    world.remove_resource::<PanicOnName>();
    world.check_invariants();
    assert_ne!(world.get::<Name>(e).map(Name::as_str), Some("x"), "two roots named \"x\" were left in place");
    if world.get::<Name>(e).is_none() {
        world.insert(e, Name::new("q"));
    }
    assert_clash_refused(&mut world, e, parent);
}

#[test]
fn world_spawn_named_with_refused_union_pair_restores_the_check() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let gone = dead(&mut world);
    let before = world.entity_count();
    assert!(quiet(|| world.spawn((Name::new("n"), Moving.pair(gone))).id()).is_err());
    world.check_invariants();
    let left: Vec<Entity> = world.query_filtered::<Entity, With<Name>>().iter(&world).collect();
    if let Some(&e) = left.first() {
        assert_clash_refused(&mut world, e, parent);
    } else {
        assert_eq!(world.entity_count(), before);
    }
}

#[test]
fn world_spawn_batch_named_with_refused_pair_restores_the_check() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let alive = world.spawn_empty().id();
    let gone = dead(&mut world);
    let r = quiet(|| {
        world
            .spawn_batch(vec![(Name::new("m"), Moving.pair(alive)), (Name::new("n"), Moving.pair(gone))])
            .for_each(drop)
    });
    assert!(r.is_err());
    world.check_invariants();
    let left: Vec<Entity> = world.query_filtered::<Entity, With<Name>>().iter(&world).collect();
    for e in left {
        assert_clash_refused(&mut world, e, parent);
    }
}

#[derive(Component)]
#[component(on_add = panic_hook)]
struct Boom;

fn panic_hook(_world: DeferredWorld, _ctx: HookContext) {
    panic!("hook panics");
}

#[test]
fn spawn_batch_command_named_hook_panic_restores_the_check() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let alive = world.spawn_empty().id();
    let r = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.spawn_batch(vec![(Name::new("h"), Boom, Likes.pair(alive))]);
        })
    });
    assert!(r.is_err());
    world.check_invariants();
    let left: Vec<Entity> = world.query_filtered::<Entity, With<Name>>().iter(&world).collect();
    for e in left {
        let _ = world.remove::<Boom>(e);
        assert_clash_refused(&mut world, e, parent);
    }
}

#[test]
fn one_move_spawn_named_hook_panic_restores_the_check() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let alive = world.spawn_empty().id();
    // Plain pairs with live targets: the one-move path.
    assert!(quiet(|| world.spawn((Name::new("o"), Boom, Likes.pair(alive))).id()).is_err());
    world.check_invariants();
    let left: Vec<Entity> = world.query_filtered::<Entity, With<Name>>().iter(&world).collect();
    for e in left {
        let _ = world.remove::<Boom>(e);
        assert_clash_refused(&mut world, e, parent);
    }
}

#[test]
fn insert_if_new_name_then_clash_via_pair_restores() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    world.spawn((Name::new("n"), ChildOf.pair(parent)));
    let e = world.spawn(Pos(0.0)).id();
    // The pair lands first (unnamed), then the name clashes.
    assert!(quiet(|| world.insert_if_new(e, (Name::new("n"), ChildOf.pair(parent)))).is_err());
    world.check_invariants();
    let clash = world.get::<Name>(e).is_some_and(|n| n.as_str() == "n") && world.parent(e) == Some(parent);
    assert!(!clash, "a clash was left in place");
    // A later clash is still noticed.
    let other = world.spawn_empty().id();
    if world.get::<Name>(e).is_none() {
        world.insert(e, Name::new("k"));
    }
    let _ = world.remove_pair::<ChildOf>(e, parent);
    assert_clash_refused(&mut world, e, other);
}

#[test]
fn insert_if_new_command_name_clash_with_boom_restores() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn(Pos(0.0)).id();
    let r = quiet(|| {
        with_commands(&mut world, |commands| {
            commands.entity(e).insert_if_new((Name::new("w"), Boom, ChildOf.pair(parent)));
        })
    });
    assert!(r.is_err());
    world.check_invariants();
    let _ = world.remove::<Boom>(e);
    let other = world.spawn_empty().id();
    if world.get::<Name>(e).is_some() {
        assert_clash_refused(&mut world, e, other);
    }
}

#[test]
fn plain_insert_if_new_with_a_stale_target_refuses_like_insert() {
    let mut world = World::new();
    let gone = dead(&mut world);
    let reuse = world.spawn_empty().id();
    assert_eq!(reuse.index(), gone.index(), "the index is recycled");
    let v = world.spawn_empty().id();
    assert!(quiet(|| world.insert(v, Likes.pair(gone))).is_err(), "insert refuses the stale target");
    let r = quiet(|| world.insert_if_new(v, Likes.pair(gone)));
    assert!(!world.has_pair::<Likes>(v, reuse), "the pair landed on the entity that reused the index");
    assert!(r.is_err(), "insert_if_new must refuse the dead target as insert does");
    world.check_invariants();
}

#[test]
fn command_insert_if_new_with_a_stale_target_follows_the_policy() {
    let mut world = World::new();
    let gone = dead(&mut world);
    let reuse = world.spawn_empty().id();
    let v = world.spawn_empty().id();
    with_commands(&mut world, |commands| {
        commands.entity(v).insert_if_new((Tag, Likes.pair(gone)));
    });
    assert!(world.has::<Tag>(v));
    assert!(!world.has_pair::<Likes>(v, reuse));
    world.check_invariants();
}
