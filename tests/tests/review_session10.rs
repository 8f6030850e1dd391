//! Review session 10: the changes of 611e178 and 2b5fe5f in `ecs/` — a
//! bundle's pairs checked before anything of it lands
//! (`BundlePairs::refuse_invalid`, `World::spawn`,
//! `insert_bundle_registered`); `check_pair`/`line_holds_any` (an instance
//! under one of its own bases is refused, held pairs are re-added); the undo
//! of a named insert refused for a sibling clash (`name_insert_undo`, the
//! `Prefab` a prefab parent gave the subtree); names written in place
//! re-filed at the next flush (`sync_written_names`, `entities_filed_as`,
//! `filed_by_value`).
//!
//! Checked (passing): spawns and inserts refused for a dead, wildcard or
//! `ANY` target, an acyclic cycle, `IsA` + `ChildOf` under that base (either
//! order, one or two bases, the base itself as parent), inside nested tuples
//! and with union and exclusive pairs, change nothing: no value, pair, entity,
//! hook or observer call, every value dropped exactly once; two pairs of one
//! exclusive relationship keep the last, each value dropped once; union pairs
//! in bundles; `add_pair_id` refusals and re-adding held pairs;
//! `Commands::spawn`/`spawn_batch` dead-target policies (delete, remove),
//! `insert`/`try_insert` refusals at apply; `World::spawn_batch` refusals; the
//! named-insert undo over a deep subtree, children that were prefabs, an
//! entity that was a prefab; several names written in one query pass (found by
//! `lookup`, `lookup_child`, `path` before and after the flush), a clash taken
//! back once and consistently, renames to a despawned entity's name, renamed
//! prefabs and prefab children before `instantiate`, `clear_entities`; an
//! insert into a dead entity with bad pairs (false, dropped once); a named
//! spawn with `IsA` refused for a clash leaves no copies.
//!
//! Findings (expected vs actual in their tests' comments). Fixed since (the
//! tests pass): all but four; left, still ignored: a parent under a base's
//! own base (`a_parent_under_a_base_of_a_base_is_refused`: by design only
//! direct bases count, as instantiating a base never instantiates its bases'
//! children, and refusing it would drop prefab child copies), moving an ancestor under
//! one of its descendant's bases (`reparenting_a_grand_parent_under_a_base_is_refused`:
//! checking it would walk the moved entity's subtree on every reparent), the
//! refusal's message (it is a `PairError::Cycle`, whose text speaks of a
//! chain), and the undo removing a `Prefab` an observer added (a judgement
//! call: the undo restores what the entity was before the insert).
//! * `insert_if_new_with_a_refused_pair_changes_nothing`,
//!   `insert_if_new_of_isa_and_childof_under_that_base_changes_nothing`,
//!   `command_insert_if_new_with_a_cycle_changes_nothing`: `insert_if_new`
//!   (world and commands) does not check its pairs first; the pairs before a
//!   refused one stay (an `IsA` one instantiates first).
//! * `command_insert_with_a_dead_target_of_a_panic_policy_lands_nothing`: a
//!   dead target with `on_delete_target = "panic"` panics after the values
//!   landed (and their observers ran).
//! * `a_command_spawn_with_a_refused_pair_leaves_no_entity`: the entity of a
//!   refused `Commands::spawn` stays alive and empty.
//! * `an_observer_despawning_a_target_while_an_insert_lands_does_not_break_it`,
//!   `an_observer_despawning_a_target_while_a_spawn_lands_does_not_break_it`:
//!   observer commands apply between a bundle's values and its pairs, so the
//!   early check is void and an accepted bundle panics half-landed.
//! * `a_parent_under_a_base_of_a_base_is_refused`,
//!   `reparenting_a_grand_parent_under_a_base_is_refused`: an entity still
//!   becomes an instance of its own ancestor through a transitive base or by
//!   moving one of its ancestors under its base.
//! * `reparent_out_and_instantiate_in_one_insert_is_accepted`: one insert of
//!   `(ChildOf, elsewhere)` and `(IsA, old ancestor)` is refused (checked
//!   against the old parent) though the same pairs one by one are accepted.
//! * `the_refusal_of_an_instance_under_its_base_names_the_real_reason`: the
//!   message claims a false `IsA` cycle.
//! * `a_refused_named_insert_keeps_the_prefab_an_observer_added`: the undo
//!   removes a `Prefab` an observer's commands added during the insert.
//! * `a_name_swap_in_one_query_pass_is_re_filed`,
//!   `a_name_swap_and_chain_through_get_mut_are_re_filed`: renames in place
//!   that free each other's names (a<->b, a->b->c) are taken back as clashes
//!   at the flush (checked against the stale index).
//!
//! Costs (read from the code, not timed): a plain child spawn
//! (`(Position, ChildOf.pair(p))`) does no hierarchy walk in
//! `refuse_invalid` (the line is walked only with an `IsA` pair in the
//! bundle or held), but every bundle with pairs formats/allocates the `who`
//! String eagerly and inserts run `check_pair` twice (`refuse_invalid`, then
//! `prepare_add`); `name_insert_undo` walks the entity's whole subtree on
//! every named insert with any pair once any prefab exists; `get_mut::<Name>`
//! pushes to `names_written` on every call (no dedup until the flush) and
//! each lookup meanwhile scans that list.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::system::CommandQueue;

// ---------------------------------------------------------------- helpers

/// Runs `f`, returning its panic message (`None`: it did not panic).
fn panic_message(f: impl FnOnce()) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => None,
        Err(payload) => Some(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default(),
        ),
    }
}

/// The commands `f` queues, not applied yet.
fn queued(world: &mut World, f: impl FnOnce(&mut Commands)) -> CommandQueue {
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, world);
    f(&mut commands);
    queue
}

/// A value that counts its drops.
#[derive(Component)]
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

fn count(counter: &Arc<AtomicUsize>) -> usize {
    counter.load(Ordering::SeqCst)
}

/// Counts every `OnAdd`/`OnInsert` of `Tracked`.
fn hear_tracked(world: &mut World) -> Arc<AtomicUsize> {
    let heard = counter();
    let (on_add, on_insert) = (heard.clone(), heard.clone());
    world.add_observer(move |_: Trigger<OnAdd, Tracked>| {
        on_add.fetch_add(1, Ordering::SeqCst);
    });
    world.add_observer(move |_: Trigger<OnInsert, Tracked>| {
        on_insert.fetch_add(1, Ordering::SeqCst);
    });
    heard
}

static HOOKED_ADDS: AtomicUsize = AtomicUsize::new(0);

fn hooked_added(_world: DeferredWorld, _context: HookContext) {
    HOOKED_ADDS.fetch_add(1, Ordering::SeqCst);
}

/// Only `a_refused_bundle_runs_no_hook` uses it (the counter is global).
#[derive(Component)]
#[component(on_add = hooked_added)]
struct Hooked;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Pos(f32);

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
#[relationship(acyclic)]
struct DependsOn;

/// An exclusive relationship whose pairs carry a drop-counted value.
#[derive(Relationship)]
#[relationship(exclusive)]
struct DockedTo {
    drops: Arc<AtomicUsize>,
}

impl Drop for DockedTo {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

#[derive(Relationship)]
#[relationship(on_delete_target = "panic")]
struct Guards;

/// A dead entity (spawned and despawned).
fn dead(world: &mut World) -> Entity {
    let e = world.spawn_empty().id();
    world.despawn(e);
    e
}

/// `a` depends on `b`: adding `(DependsOn, a)` to `b` closes a cycle.
fn depends(world: &mut World) -> (Entity, Entity) {
    let b = world.spawn_empty().id();
    let a = world.spawn(DependsOn.pair(b)).id();
    (a, b)
}

/// What `world.inspect(e)` prints (ids, names, values).
fn snapshot(world: &World, e: Entity) -> String {
    world.inspect(e).to_string()
}

// ------------------------------------------- 1. a refused bundle changes nothing

#[test]
fn a_spawn_with_a_dead_target_among_its_pairs_spawns_nothing() {
    let mut world = World::new();
    let heard = hear_tracked(&mut world);
    let drops = counter();
    let alive = world.spawn_empty().id();
    let gone = dead(&mut world);
    let before = world.entity_count();
    let message = panic_message(|| {
        world.spawn((Tracked(drops.clone()), Likes.pair(alive), Pos(1.0), Likes.pair(gone)));
    })
    .expect("a dead target is refused");
    assert!(message.contains("not alive") || message.contains("dead"), "{message}");
    assert_eq!(count(&drops), 1, "the refused value is dropped once");
    assert_eq!(count(&heard), 0, "observers hear nothing of a refused spawn");
    assert_eq!(world.entity_count(), before, "no entity is left behind");
    assert_eq!(world.query::<Pair<Likes>>().iter(&world).count(), 0);
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 0);
    drop(world);
    assert_eq!(count(&drops), 1);
}

#[test]
fn a_spawn_with_a_wildcard_or_union_marker_target_spawns_nothing() {
    let mut world = World::new();
    let drops = counter();
    let before = world.entity_count();
    for target in [Entity::WILDCARD, Entity::ANY] {
        assert!(
            panic_message(|| {
                world.spawn((Tracked(drops.clone()), Likes.pair(target)));
            })
            .is_some()
        );
    }
    assert_eq!(count(&drops), 2);
    assert_eq!(world.entity_count(), before);
}

#[test]
fn an_insert_closing_a_cycle_changes_nothing_and_is_not_heard() {
    let mut world = World::new();
    let heard = hear_tracked(&mut world);
    let drops = counter();
    let (a, b) = depends(&mut world);
    let x = world.spawn_empty().id();
    world.entity_mut(b).insert(Pos(0.0));
    let before = snapshot(&world, b);
    let message = panic_message(|| {
        world.entity_mut(b).insert((Tracked(drops.clone()), Pos(9.0), Likes.pair(x), DependsOn.pair(a)));
    })
    .expect("the cycle is refused");
    assert!(message.contains("cyclic"), "{message}");
    assert_eq!(snapshot(&world, b), before, "a refused bundle changes nothing");
    assert_eq!(world.get::<Pos>(b), Some(&Pos(0.0)));
    assert!(!world.has_pair::<Likes>(b, x));
    assert_eq!(count(&drops), 1);
    assert_eq!(count(&heard), 0);
}

#[test]
fn a_refused_bundle_runs_no_hook() {
    let mut world = World::new();
    let gone = dead(&mut world);
    let e = world.spawn(Pos(0.0)).id();
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Hooked, Likes.pair(gone)));
        })
        .is_some()
    );
    assert!(
        panic_message(|| {
            world.spawn((Hooked, Likes.pair(gone)));
        })
        .is_some()
    );
    assert_eq!(HOOKED_ADDS.load(Ordering::SeqCst), 0);
    assert!(!world.has::<Hooked>(e));
    world.entity_mut(e).insert(Hooked);
    assert_eq!(HOOKED_ADDS.load(Ordering::SeqCst), 1);
}

#[test]
fn nested_tuples_with_a_refused_pair_change_nothing() {
    let mut world = World::new();
    let drops = counter();
    let (a, b) = depends(&mut world);
    let x = world.spawn_empty().id();
    let before = snapshot(&world, b);
    let nested = ((Tracked(drops.clone()),), ((Likes.pair(x), Pos(2.0)), ((DependsOn.pair(a),),)));
    assert!(
        panic_message(|| {
            world.entity_mut(b).insert(nested);
        })
        .is_some()
    );
    assert_eq!(snapshot(&world, b), before);
    assert_eq!(count(&drops), 1);
    // A nested spawn with the same pairs but a fine target lands whole.
    let e = world.spawn(((Tracked(drops.clone()),), ((Likes.pair(x), Pos(2.0)), ((DependsOn.pair(a),),)))).id();
    assert!(world.has_pair::<Likes>(e, x) && world.has_pair::<DependsOn>(e, a));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(2.0)));
}

#[test]
fn isa_and_childof_under_that_base_in_one_insert_change_nothing() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    world.spawn((Prefab, Name::new("gun"), ChildOf.pair(base)));
    let holder = world.spawn((Prefab, ChildOf.pair(base))).id();
    let e = world.spawn(Likes.pair(base)).id();
    let before = snapshot(&world, e);
    let entities = world.entity_count();
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((IsA.pair(base), ChildOf.pair(holder)));
        })
        .is_some()
    );
    assert_eq!(snapshot(&world, e), before);
    assert_eq!(world.entity_count(), entities, "no copy of the base's children was made");
    assert_eq!(world.children(e).count(), 0);
    // The other order of the two pairs too, and a spawn.
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((ChildOf.pair(holder), IsA.pair(base)));
        })
        .is_some()
    );
    assert!(
        panic_message(|| {
            world.spawn((Pos(3.0), ChildOf.pair(holder), IsA.pair(base)));
        })
        .is_some()
    );
    assert_eq!(snapshot(&world, e), before);
    assert_eq!(world.entity_count(), entities);
}

#[test]
fn a_second_base_whose_line_holds_the_parent_is_refused() {
    let mut world = World::new();
    let first = world.spawn((Prefab, Pos(1.0))).id();
    let second = world.spawn(Prefab).id();
    let holder = world.spawn((Prefab, ChildOf.pair(second))).id();
    let deep = world.spawn((Prefab, ChildOf.pair(holder))).id();
    let entities = world.entity_count();
    assert!(
        panic_message(|| {
            world.spawn((IsA.pair(first), IsA.pair(second), ChildOf.pair(deep)));
        })
        .is_some()
    );
    assert_eq!(world.entity_count(), entities);
    // An entity that already has both bases cannot move under the second's line.
    let e = world.spawn((IsA.pair(first), IsA.pair(second))).id();
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert(ChildOf.pair(deep));
        })
        .is_some()
    );
    assert_eq!(world.target::<ChildOf>(e), None);
    // Nor through the runtime API.
    let child_of = world.component_id::<ChildOf>().unwrap();
    assert!(
        panic_message(|| {
            world.add_pair_id(e, child_of, holder);
        })
        .is_some()
    );
    assert_eq!(world.target::<ChildOf>(e), None);
    // Under the first base's line it is fine for the second... no: both are bases.
    let elsewhere = world.spawn_empty().id();
    world.entity_mut(e).insert(ChildOf.pair(elsewhere));
    assert_eq!(world.target::<ChildOf>(e), Some(elsewhere));
}

#[test]
fn runtime_isa_to_an_ancestor_is_refused_and_held_pairs_are_re_added() {
    let mut world = World::new();
    let is_a = world.component_id::<IsA>().unwrap();
    let grand = world.spawn(Pos(1.0)).id();
    let parent = world.spawn(ChildOf.pair(grand)).id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    assert!(
        panic_message(|| {
            world.add_pair_id(e, is_a, grand);
        })
        .is_some()
    );
    assert!(!world.has_pair::<IsA>(e, grand));
    // A base elsewhere is fine, and re-adding held pairs changes nothing.
    let base = world.spawn(Pos(2.0)).id();
    assert!(world.add_pair_id(e, is_a, base));
    assert!(world.add_pair_id(e, is_a, base));
    let child_of = world.component_id::<ChildOf>().unwrap();
    assert!(world.add_pair_id(e, child_of, parent));
    world.entity_mut(e).insert((IsA.pair(base), ChildOf.pair(parent)));
    assert_eq!(world.target::<ChildOf>(e), Some(parent));
    assert!(world.has_pair::<IsA>(e, base));
}

#[test]
fn union_pairs_in_bundles_land_and_a_refused_bundle_keeps_the_old_target() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let gone = dead(&mut world);
    let e = world.spawn((Pos(0.0), Movement.pair(walking))).id();
    assert!(world.has_pair::<Movement>(e, walking));
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Movement.pair(running), Likes.pair(gone)));
        })
        .is_some()
    );
    assert!(world.has_pair::<Movement>(e, walking));
    assert!(!world.has_pair::<Movement>(e, running));
    world.entity_mut(e).insert((Movement.pair(running), Pos(1.0)));
    assert_eq!(world.targets::<Movement>(e).collect::<Vec<_>>(), vec![running]);
    // A dead union target is refused too, before anything lands.
    let drops = counter();
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Tracked(drops.clone()), Movement.pair(gone)));
        })
        .is_some()
    );
    assert!(!world.has::<Tracked>(e));
    assert_eq!(count(&drops), 1);
}

#[test]
fn two_pairs_of_one_exclusive_relationship_in_a_bundle_keep_the_last_and_drop_each_once() {
    let mut world = World::new();
    let drops = counter();
    let (a, b, c) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let docked = |drops: &Arc<AtomicUsize>| DockedTo { drops: drops.clone() };
    let e = world.spawn((docked(&drops).pair(a), Pos(0.0), docked(&drops).pair(b))).id();
    assert_eq!(world.targets::<DockedTo>(e).collect::<Vec<_>>(), vec![b]);
    assert_eq!(count(&drops), 1, "the replaced value is dropped at once");
    // Replaced inside an insert, with the old pair held.
    world.entity_mut(e).insert((docked(&drops).pair(c), docked(&drops).pair(a)));
    assert_eq!(world.targets::<DockedTo>(e).collect::<Vec<_>>(), vec![a]);
    assert_eq!(count(&drops), 3);
    // Refused with a held exclusive pair: the held one stays, the new ones drop.
    let gone = dead(&mut world);
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((docked(&drops).pair(c), Likes.pair(gone)));
        })
        .is_some()
    );
    assert_eq!(world.targets::<DockedTo>(e).collect::<Vec<_>>(), vec![a]);
    assert_eq!(count(&drops), 4);
    world.despawn(e);
    assert_eq!(count(&drops), 5, "every value dropped exactly once");
}

// ------------------------------------------------------------ commands

#[test]
fn command_spawns_apply_dead_target_policies() {
    let mut world = World::new();
    let drops = counter();
    let (parent, liked) = (world.spawn_empty().id(), world.spawn_empty().id());
    let mut spawned = (Entity::PLACEHOLDER, Entity::PLACEHOLDER);
    let mut queue = queued(&mut world, |commands| {
        spawned.0 = commands.spawn((Tracked(drops.clone()), ChildOf.pair(parent))).id();
        spawned.1 = commands.spawn((Tracked(drops.clone()), Likes.pair(liked), Pos(1.0))).id();
    });
    world.despawn(parent);
    world.despawn(liked);
    queue.apply(&mut world);
    assert!(!world.is_alive(spawned.0), "ChildOf's delete policy despawns the child");
    assert!(world.is_alive(spawned.1), "Likes' remove policy leaves the pair out");
    assert_eq!(world.get::<Pos>(spawned.1), Some(&Pos(1.0)));
    assert_eq!(world.targets::<Likes>(spawned.1).count(), 0);
    assert_eq!(count(&drops), 1);
    drop(world);
    assert_eq!(count(&drops), 2);
}

#[test]
fn command_inserts_with_a_cycle_panic_at_apply_and_change_nothing() {
    let mut world = World::new();
    let drops = counter();
    let (a, b) = depends(&mut world);
    let x = world.spawn_empty().id();
    let before = snapshot(&world, b);
    for how in 0..2 {
        let mut queue = queued(&mut world, |commands| {
            let bundle = (Tracked(drops.clone()), Likes.pair(x), DependsOn.pair(a));
            if how == 0 {
                commands.entity(b).insert(bundle);
            } else {
                commands.entity(b).try_insert(bundle);
            }
        });
        let message = panic_message(|| queue.apply(&mut world)).expect("refused at apply");
        assert!(message.contains("cyclic"), "{how}: {message}");
        assert_eq!(snapshot(&world, b), before, "{how}: nothing changed");
        assert_eq!(count(&drops), how + 1);
    }
}

#[test]
fn command_spawn_batch_with_pairs_applies_policies_per_bundle() {
    let mut world = World::new();
    let (parent, other) = (world.spawn_empty().id(), world.spawn_empty().id());
    let mut queue = queued(&mut world, |commands| {
        commands.spawn_batch(vec![
            (Pos(0.0), ChildOf.pair(parent)),
            (Pos(1.0), ChildOf.pair(other)),
            (Pos(2.0), ChildOf.pair(parent)),
        ]);
    });
    world.despawn(parent);
    queue.apply(&mut world);
    let left: Vec<f32> = world.query::<&Pos>().iter(&world).map(|p| p.0).collect();
    assert_eq!(left, vec![1.0], "children of the dead parent are deleted, the other stays");
    assert_eq!(world.children(other).count(), 1);
    // A world spawn_batch refuses a dead target before spawning that bundle.
    let gone = dead(&mut world);
    let before = world.entity_count();
    assert!(
        panic_message(|| {
            world.spawn_batch(vec![(Pos(5.0), Likes.pair(gone))]).for_each(drop);
        })
        .is_some()
    );
    assert_eq!(world.entity_count(), before);
}

/// A dead target whose relationship says `panic` refuses the command's
/// bundle. Expected: as any refusal, nothing of the bundle lands (Flecs'
/// panic policy panics before anything changes). Actual: the values land
/// (`Pos(7.0)` overwrites `Pos(0.0)`, `Tracked` is added and its observers
/// run), then `add_to_by_policy` panics.
#[test]
fn command_insert_with_a_dead_target_of_a_panic_policy_lands_nothing() {
    let mut world = World::new();
    let drops = counter();
    let guarded = world.spawn_empty().id();
    let e = world.spawn(Pos(0.0)).id();
    let before = snapshot(&world, e);
    let mut queue = queued(&mut world, |commands| {
        commands.entity(e).insert((Tracked(drops.clone()), Pos(7.0), Guards.pair(guarded)));
    });
    world.despawn(guarded);
    assert!(panic_message(|| queue.apply(&mut world)).is_some());
    assert_eq!(snapshot(&world, e), before);
    assert_eq!(count(&drops), 1);
}

// --------------------------------------------------- World::insert_if_new

/// As `command_inserts_with_a_cycle_panic_at_apply_and_change_nothing` for
/// `EntityCommands::insert_if_new`. Expected: nothing changes. Actual: the
/// `Likes` pair before the refused `DependsOn` pair stays.
#[test]
fn command_insert_if_new_with_a_cycle_changes_nothing() {
    let mut world = World::new();
    let drops = counter();
    let (a, b) = depends(&mut world);
    let x = world.spawn_empty().id();
    let before = snapshot(&world, b);
    let mut queue = queued(&mut world, |commands| {
        commands.entity(b).insert_if_new((Tracked(drops.clone()), Likes.pair(x), DependsOn.pair(a)));
    });
    let message = panic_message(|| queue.apply(&mut world)).expect("refused at apply");
    assert!(message.contains("cyclic"), "{message}");
    assert_eq!(count(&drops), 1);
    assert_eq!(snapshot(&world, b), before);
}

/// Expected: `insert_if_new` refuses its bundle whole, as `insert` now does.
/// Actual: it adds the pairs one by one (before the values), so the pairs
/// before the refused one stay.
#[test]
fn insert_if_new_with_a_refused_pair_changes_nothing() {
    let mut world = World::new();
    let drops = counter();
    let (a, b) = depends(&mut world);
    let x = world.spawn_empty().id();
    let before = snapshot(&world, b);
    assert!(
        panic_message(|| {
            world.insert_if_new(b, (Tracked(drops.clone()), Likes.pair(x), DependsOn.pair(a)));
        })
        .is_some()
    );
    assert_eq!(count(&drops), 1);
    assert!(!world.has_pair::<Likes>(b, x), "the pair before the refused one stayed");
    assert_eq!(snapshot(&world, b), before);
}

/// Expected: `(IsA, base)` with a parent under `base` in one
/// `insert_if_new` is refused before anything lands (as `insert`). Actual:
/// the `IsA` pair lands (and copies the base's children under the entity),
/// then the `ChildOf` pair is refused.
#[test]
fn insert_if_new_of_isa_and_childof_under_that_base_changes_nothing() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    world.spawn((Prefab, Name::new("gun"), ChildOf.pair(base)));
    let holder = world.spawn((Prefab, ChildOf.pair(base))).id();
    let e = world.spawn_empty().id();
    let entities = world.entity_count();
    assert!(
        panic_message(|| {
            world.insert_if_new(e, (IsA.pair(base), ChildOf.pair(holder)));
        })
        .is_some()
    );
    assert!(!world.has_pair::<IsA>(e, base));
    assert_eq!(world.entity_count(), entities);
}

// --------------------------------------------- IsA + ChildOf through lines

/// Expected: an entity cannot be an instance of an ancestor through a base
/// of its base either (`IsA` is transitive: `e` inherits from `grand` as
/// much as from `middle`). Actual: only the direct bases are checked.
#[test]
#[ignore = "finding (left, by design): only direct bases count; instantiating a base never instantiates its bases' children"]
fn a_parent_under_a_base_of_a_base_is_refused() {
    let mut world = World::new();
    let grand = world.spawn((Prefab, Pos(1.0))).id();
    let middle = world.spawn((Prefab, IsA.pair(grand))).id();
    let holder = world.spawn((Prefab, ChildOf.pair(grand))).id();
    let entities = world.entity_count();
    let spawned = panic_message(|| {
        world.spawn((IsA.pair(middle), ChildOf.pair(holder)));
    });
    assert!(spawned.is_some(), "spawned an instance of grand under grand");
    assert_eq!(world.entity_count(), entities);
}

/// Expected: moving an ancestor of `e` under `e`'s base is refused (it makes
/// `e` an instance of its own ancestor, which a direct `ChildOf`/`IsA` add
/// refuses). Actual: only the entity's own bases are checked, so the state
/// the new checks forbid is reached through a grand-parent.
#[test]
#[ignore = "finding (left): reparenting an ancestor under a descendant's base is not refused (a subtree walk per reparent)"]
fn reparenting_a_grand_parent_under_a_base_is_refused() {
    let mut world = World::new();
    let base = world.spawn(Pos(1.0)).id();
    let parent = world.spawn_empty().id();
    let e = world.spawn((IsA.pair(base), ChildOf.pair(parent))).id();
    let refused = panic_message(|| {
        world.entity_mut(parent).insert(ChildOf.pair(base));
    });
    assert!(refused.is_some(), "e is now an instance of its grand-parent");
    assert_eq!(world.target::<ChildOf>(parent), None);
    assert!(world.has_pair::<IsA>(e, base));
}

/// Expected: one insert that moves `e` out from under `base` and makes it an
/// instance of `base` is accepted: the state it leaves is valid, and the
/// same pairs added one after the other (`ChildOf` first) are accepted.
/// Actual: `refuse_invalid` checks the `IsA` pair against the parent `e`
/// has now, not the one the bundle gives it.
#[test]
fn reparent_out_and_instantiate_in_one_insert_is_accepted() {
    let mut world = World::new();
    let base = world.spawn(Pos(1.0)).id();
    let e = world.spawn(ChildOf.pair(base)).id();
    let elsewhere = world.spawn_empty().id();
    // One pair at a time works.
    let f = world.spawn(ChildOf.pair(base)).id();
    world.entity_mut(f).insert(ChildOf.pair(elsewhere));
    world.entity_mut(f).insert(IsA.pair(base));
    assert!(world.has_pair::<IsA>(f, base));
    let refused = panic_message(|| {
        world.entity_mut(e).insert((ChildOf.pair(elsewhere), IsA.pair(base)));
    });
    assert_eq!(refused, None);
    assert_eq!(world.target::<ChildOf>(e), Some(elsewhere));
    assert!(world.has_pair::<IsA>(e, base));
    // A plain base passes no value of its own (only prefabs' are inherited):
    // as for the entity that got the pairs one at a time.
    assert_eq!(world.get::<Pos>(e), world.get::<Pos>(f));
}

// ------------------------------------------ 3. a refused named insert's undo

/// A prefab parent `p` with a child named "x"; `e` with a two-level subtree.
fn prefab_with_x(world: &mut World) -> Entity {
    let p = world.spawn((Prefab, Name::new("P"))).id();
    world.spawn((Name::new("x"), ChildOf.pair(p)));
    p
}

#[test]
fn a_refused_named_insert_under_a_prefab_takes_back_prefab_from_a_deep_subtree() {
    let mut world = World::new();
    let p = prefab_with_x(&mut world);
    let e = world.spawn(Name::new("e")).id();
    let child = world.spawn(ChildOf.pair(e)).id();
    let grand = world.spawn(ChildOf.pair(child)).id();
    let great = world.spawn((Pos(0.0), ChildOf.pair(grand))).id();
    let message = panic_message(|| {
        world.entity_mut(e).insert((Name::new("x"), ChildOf.pair(p)));
    })
    .expect("a sibling is named x");
    assert!(message.contains('x'), "{message}");
    for entity in [e, child, grand, great] {
        assert!(!world.has::<Prefab>(entity), "{entity:?} kept the Prefab of the refused parent");
    }
    assert_eq!(world.target::<ChildOf>(e), None);
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("e"));
    assert_eq!(world.lookup("e"), Some(e));
    assert_eq!(world.query_filtered::<Entity, With<Pos>>().iter(&world).count(), 1, "queries see great again");
}

#[test]
fn a_refused_named_insert_keeps_prefab_on_children_that_had_it() {
    let mut world = World::new();
    let p = prefab_with_x(&mut world);
    let e = world.spawn(Name::new("e")).id();
    let plain = world.spawn(ChildOf.pair(e)).id();
    let was_prefab = world.spawn((Prefab, ChildOf.pair(e))).id();
    let under_prefab = world.spawn(ChildOf.pair(was_prefab)).id();
    assert!(world.has::<Prefab>(under_prefab), "children of a prefab are prefabs");
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Name::new("x"), ChildOf.pair(p), Pos(1.0)));
        })
        .is_some()
    );
    assert!(!world.has::<Prefab>(e) && !world.has::<Prefab>(plain));
    assert!(world.has::<Prefab>(was_prefab) && world.has::<Prefab>(under_prefab));
    // A former prefab parent: the entity was already a prefab, nothing to undo.
    let q = world.spawn((Prefab, Name::new("q"))).id();
    let qc = world.spawn((Name::new("c"), ChildOf.pair(q))).id();
    assert!(
        panic_message(|| {
            world.entity_mut(q).insert((Name::new("x"), ChildOf.pair(p)));
        })
        .is_some()
    );
    assert!(world.has::<Prefab>(q) && world.has::<Prefab>(qc));
    assert_eq!(world.lookup("q"), Some(q));
}

/// Every entity of the subtree that was not a prefab before the refused
/// insert is not one after, also below a child that was a prefab (whose
/// `Prefab`-less child the undo does not walk to: the reparenting does not
/// reach it either).
#[test]
fn a_refused_named_insert_takes_back_prefab_below_a_prefab_child() {
    let mut world = World::new();
    let p = prefab_with_x(&mut world);
    let e = world.spawn(Name::new("e")).id();
    let was_prefab = world.spawn((Prefab, ChildOf.pair(e))).id();
    let below = world.spawn(ChildOf.pair(was_prefab)).id();
    world.entity_mut(below).remove::<Prefab>();
    assert!(!world.has::<Prefab>(below));
    world.entity_mut(e).insert(Pos(0.0));
    let other = world.spawn(ChildOf.pair(p)).id();
    world.entity_mut(other).insert(Pos(0.0));
    // Reparenting without a clash makes the whole subtree prefabs:
    assert!(world.has::<Prefab>(other));
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Name::new("x"), ChildOf.pair(p)));
        })
        .is_some()
    );
    assert!(!world.has::<Prefab>(e));
    assert!(!world.has::<Prefab>(below), "below was not a prefab before the refused insert");
}

// ------------------------------------------------ 4. names written in place

fn rename(world: &mut World, e: Entity, name: &'static str) {
    *world.get_mut::<Name>(e).unwrap() = Name::new(name);
}

#[test]
fn several_names_written_in_one_query_pass_are_found_before_and_after_the_flush() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("root")).id();
    let kids: Vec<Entity> =
        (0..4).map(|i| world.spawn((Name::new(format!("k{i}")), ChildOf.pair(parent))).id()).collect();
    for mut name in world.query::<&mut Name>().iter_mut(&mut world) {
        if let Some(rest) = name.as_str().strip_prefix('k') {
            *name = Name::new(format!("n{rest}"));
        }
    }
    for step in ["before", "after"] {
        for (i, &kid) in kids.iter().enumerate() {
            assert_eq!(world.lookup(&format!("root::n{i}")), Some(kid), "{step}");
            assert_eq!(world.lookup_child(parent, &format!("n{i}")), Some(kid), "{step}");
            assert_eq!(world.path(kid), Some(format!("root::n{i}")), "{step}");
            assert_eq!(world.lookup(&format!("root::k{i}")), None, "{step}");
        }
        world.flush();
    }
    // The old names are free for new siblings, the new ones taken.
    world.spawn((Name::new("k0"), ChildOf.pair(parent)));
    assert!(
        panic_message(|| {
            world.spawn((Name::new("n0"), ChildOf.pair(parent)));
        })
        .is_some()
    );
}

/// Expected: two siblings swapping names in place (a valid end state, no two
/// siblings share a name) are re-filed. Actual: the flush compares each
/// written name with the index as it was (the other entity still filed under
/// it), takes both back and panics.
#[test]
fn a_name_swap_in_one_query_pass_is_re_filed() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn(Name::new("b")).id();
    for (e, mut name) in world.query::<(Entity, &mut Name)>().iter_mut(&mut world) {
        *name = Name::new(if e == a { "b" } else { "a" });
    }
    assert_eq!(world.lookup("a"), Some(b));
    assert_eq!(panic_message(|| world.flush()), None);
    assert_eq!((world.lookup("a"), world.lookup("b")), (Some(b), Some(a)));
}

/// As above through `get_mut`, and a chain (a -> "b", b -> "c").
#[test]
fn a_name_swap_and_chain_through_get_mut_are_re_filed() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn(Name::new("b")).id();
    rename(&mut world, a, "b");
    rename(&mut world, b, "a");
    assert_eq!(panic_message(|| world.flush()), None);
    assert_eq!((world.lookup("a"), world.lookup("b")), (Some(b), Some(a)));
    rename(&mut world, b, "c");
    rename(&mut world, a, "a");
    assert_eq!(panic_message(|| world.flush()), None);
    assert_eq!((world.lookup("a"), world.lookup("c")), (Some(a), Some(b)));
}

#[test]
fn a_written_name_that_clashes_is_taken_back_and_the_world_stays_consistent() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn(Name::new("b")).id();
    rename(&mut world, b, "a");
    let message = panic_message(|| world.flush()).expect("a clash panics at the flush");
    assert!(message.contains("written in place"), "{message}");
    assert_eq!(world.get::<Name>(b).map(Name::as_str), Some("b"));
    assert_eq!((world.lookup("a"), world.lookup("b")), (Some(a), Some(b)));
    assert_eq!(panic_message(|| world.flush()), None, "the clash is reported once");
    // Two entities written to one new name: the first (lowest) keeps it.
    for mut name in world.query::<&mut Name>().iter_mut(&mut world) {
        *name = Name::new("z");
    }
    assert!(panic_message(|| world.flush()).is_some());
    let names: Vec<String> = [a, b].iter().map(|&e| world.get::<Name>(e).unwrap().as_str().to_owned()).collect();
    assert_eq!(names.iter().filter(|n| *n == "z").count(), 1, "{names:?}");
    assert!(world.lookup("z").is_some());
}

#[test]
fn a_rename_to_the_name_of_a_despawned_entity() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn(Name::new("b")).id();
    // Despawned first: the name is free.
    world.despawn(a);
    rename(&mut world, b, "a");
    assert_eq!(world.lookup("a"), Some(b));
    world.flush();
    assert_eq!(world.lookup("a"), Some(b));
    // Written first: the despawn's flush sees the clash (by the contract,
    // at the next flush), takes the name back and despawns nothing.
    let c = world.spawn(Name::new("c")).id();
    rename(&mut world, c, "a");
    assert!(
        panic_message(|| {
            world.despawn(b);
        })
        .is_some()
    );
    assert!(world.is_alive(b));
    assert_eq!((world.lookup("a"), world.lookup("c")), (Some(b), Some(c)));
    world.despawn(b);
    rename(&mut world, c, "a");
    world.flush();
    assert_eq!(world.lookup("a"), Some(c));
}

#[test]
fn renamed_prefabs_and_prefab_children_before_instantiate() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Fighter"), Pos(1.0))).id();
    let gun = world.spawn((Name::new("gun"), ChildOf.pair(ship))).id();
    rename(&mut world, ship, "Bomber");
    for mut name in world.query_filtered::<&mut Name, With<Prefab>>().iter_mut(&mut world) {
        if name.as_str() == "gun" {
            *name = Name::new("cannon");
        }
    }
    assert_eq!(world.lookup("Bomber"), Some(ship));
    assert_eq!(world.lookup("Fighter"), None);
    assert_eq!(world.lookup("Bomber::cannon"), Some(gun));
    let inst = world.instantiate(ship);
    assert_eq!(world.get::<Name>(inst), None, "Name is never inherited");
    let copy = world.lookup_child(inst, "cannon").expect("the copy has the written name");
    assert_ne!(copy, gun);
    assert_eq!(world.lookup_child(inst, "gun"), None);
    assert_eq!(world.lookup("Bomber::cannon"), Some(gun));
    world.set_name(inst, "one").unwrap();
    assert_eq!(world.lookup("one::cannon"), Some(copy));
    assert_eq!(world.path(copy), Some("one::cannon".to_owned()));
}

// ------------------------------------------------------------ more probes

/// Despawns `x` (once) from the first `OnAdd<Tracked>` observer's commands.
fn despawn_on_tracked(world: &mut World, x: Entity) {
    let once = Arc::new(std::sync::atomic::AtomicBool::new(false));
    world.add_observer(move |_: Trigger<OnAdd, Tracked>, mut commands: Commands| {
        if !once.swap(true, Ordering::SeqCst) {
            commands.entity(x).despawn();
        }
    });
}

/// Expected: an observer of the bundle's values that despawns a pair's
/// target through its commands acts after the bundle landed (commands wait,
/// as for hooks); the pair then goes with its target (remove policy) and the
/// insert succeeds. Actual: the observer's commands apply between the values
/// and the pairs (`insert_bundle_values` flushes them), so `add_to` finds
/// the target dead and panics "not alive" with the values landed: the check
/// `refuse_invalid` made before is void and the bundle half-lands.
#[test]
fn an_observer_despawning_a_target_while_an_insert_lands_does_not_break_it() {
    let mut world = World::new();
    let x = world.spawn_empty().id();
    despawn_on_tracked(&mut world, x);
    let drops = counter();
    let e = world.spawn(Pos(0.0)).id();
    let refused = panic_message(|| {
        world.entity_mut(e).insert((Tracked(drops.clone()), Likes.pair(x)));
    });
    assert_eq!(refused, None);
    assert!(!world.is_alive(x));
    assert!(world.has::<Tracked>(e));
    assert_eq!(world.targets::<Likes>(e).count(), 0, "the pair went with its target");
}

/// As above for a spawn that adds its pairs one by one (with an `IsA` pair).
#[test]
fn an_observer_despawning_a_target_while_a_spawn_lands_does_not_break_it() {
    let mut world = World::new();
    let x = world.spawn_empty().id();
    let base = world.spawn(Pos(1.0)).id();
    despawn_on_tracked(&mut world, x);
    let drops = counter();
    let entities = world.entity_count();
    let refused = panic_message(|| {
        world.spawn((Tracked(drops.clone()), IsA.pair(base), Likes.pair(x)));
    });
    assert_eq!(refused, None);
    assert_eq!(world.entity_count(), entities, "one spawned, x despawned");
    assert_eq!(count(&drops), 0);
}

/// Expected: a `Commands::spawn` whose bundle is refused at apply leaves no
/// entity behind (as `World::spawn`, and as a command spawn refused for a
/// name clash, which `refuse_inserted_name_clash` despawns). Actual: the
/// reserved entity stays alive and empty.
#[test]
fn a_command_spawn_with_a_refused_pair_leaves_no_entity() {
    let mut world = World::new();
    let drops = counter();
    let mut spawned = Entity::PLACEHOLDER;
    let mut queue = queued(&mut world, |commands| {
        spawned = commands.spawn((Tracked(drops.clone()), Likes.pair(Entity::WILDCARD))).id();
    });
    assert!(panic_message(|| queue.apply(&mut world)).is_some());
    assert_eq!(count(&drops), 1);
    assert!(!world.is_alive(spawned), "the refused spawn left an entity");
}

#[test]
fn an_instance_of_its_own_parent_is_refused() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    let entities = world.entity_count();
    assert!(
        panic_message(|| {
            world.spawn((ChildOf.pair(base), IsA.pair(base)));
        })
        .is_some()
    );
    assert_eq!(world.entity_count(), entities);
    let e = world.spawn(ChildOf.pair(base)).id();
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert(IsA.pair(base));
        })
        .is_some()
    );
    assert!(!world.has_pair::<IsA>(e, base));
}

/// Expected: the refusal of an instance under its own base says so (names
/// `ChildOf`/the ancestor). Actual: it reports an `IsA` cycle claiming
/// "<base> already reaches <entity> along it", which is false (`base`
/// reaches it along `ChildOf`; no `IsA` chain exists).
#[test]
fn the_refusal_of_an_instance_under_its_base_names_the_real_reason() {
    let mut world = World::new();
    let base = world.spawn(Pos(1.0)).id();
    let e = world.spawn(ChildOf.pair(base)).id();
    let message = panic_message(|| {
        world.entity_mut(e).insert(IsA.pair(base));
    })
    .expect("refused");
    assert!(!message.contains("already reaches"), "{message}");
    assert!(message.contains("ChildOf") || message.contains("ancestor"), "{message}");
}

/// A named insert refused for a clash takes back the `Prefab` the new prefab
/// parent gave the subtree. Expected: a `Prefab` an observer of the bundle's
/// values (which stay: only name and parent go back) put on a child through
/// its commands is the observer's, not the parent's, and stays. Actual:
/// `refuse_inserted_name_clash` removes `Prefab` from every entity that was
/// not a prefab before the insert (`NameInsertUndo::not_prefabs`, taken
/// before the observer's commands applied), so the observer's is removed.
#[test]
#[ignore = "finding: the undo of a refused named insert removes a Prefab an observer's commands added during the insert"]
fn a_refused_named_insert_keeps_the_prefab_an_observer_added() {
    let mut world = World::new();
    let p = prefab_with_x(&mut world);
    let e = world.spawn(Name::new("e")).id();
    let c = world.spawn(ChildOf.pair(e)).id();
    world.add_observer(move |_: Trigger<OnAdd, Pos>, mut commands: Commands| {
        commands.entity(c).insert(Prefab);
    });
    assert!(
        panic_message(|| {
            world.entity_mut(e).insert((Name::new("x"), ChildOf.pair(p), Pos(1.0)));
        })
        .is_some()
    );
    assert!(world.has::<Pos>(e), "values other than the name stay (documented)");
    assert!(!world.has::<Prefab>(e));
    assert!(world.has::<Prefab>(c), "the observer's Prefab was taken back");
}

#[test]
fn names_are_free_again_after_clear_entities_and_in_place_writes() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    rename(&mut world, a, "b");
    world.clear_entities();
    assert_eq!(world.lookup("a"), None);
    assert_eq!(world.lookup("b"), None);
    world.flush();
    let b = world.spawn(Name::new("b")).id();
    let a2 = world.spawn(Name::new("a")).id();
    assert_eq!((world.lookup("a"), world.lookup("b")), (Some(a2), Some(b)));
    for mut name in world.query::<&mut Name>().iter_mut(&mut world) {
        if name.as_str() == "a" {
            *name = Name::new("c");
        }
    }
    world.clear_entities();
    world.flush();
    let c = world.spawn(Name::new("c")).id();
    assert_eq!(world.lookup("c"), Some(c));
}

#[test]
fn an_insert_into_a_dead_entity_with_bad_pairs_is_false_and_drops_once() {
    let mut world = World::new();
    let drops = counter();
    let gone = dead(&mut world);
    let stale = dead(&mut world);
    assert!(!world.insert(stale, (Tracked(drops.clone()), Likes.pair(gone), Likes.pair(Entity::WILDCARD))));
    assert_eq!(count(&drops), 1);
}

#[test]
fn a_named_spawn_with_isa_refused_for_a_clash_leaves_no_copies() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    world.spawn((Prefab, Name::new("gun"), ChildOf.pair(base)));
    let x = world.spawn(Name::new("x")).id();
    let entities = world.entity_count();
    let drops = counter();
    assert!(
        panic_message(|| {
            world.spawn((Name::new("x"), Tracked(drops.clone()), IsA.pair(base)));
        })
        .is_some()
    );
    assert_eq!(world.entity_count(), entities, "the spawned entity and its copies are gone");
    assert_eq!(count(&drops), 1);
    assert_eq!(world.lookup("x"), Some(x));
    assert_eq!(world.query_filtered::<Entity, With<Name>>().iter(&world).count(), 1, "prefabs not matched");
}
