//! Adversarial review of 6bc9f11:
//!
//! - `World::run_system` / `run_system_with` (`ecs/src/system/registry.rs`):
//!   a parameter validation that panics late (a missing `Res`/`ResMut` in a
//!   pipe's second half, validated after the first half ran) returns
//!   `Err(RunSystemError::InvalidParam)` instead of panicking; `Res`/`ResMut`
//!   `validate_param` sets a thread-local flag (`VALIDATION_PANICKED`,
//!   `ecs/src/system/param.rs`) before panicking and the registry takes it.
//! - bundles (`BundlePairs::refuse_invalid`, `ecs/src/world/bundle_pairs.rs`):
//!   a bundle without a `Name` inserted into a named entity is refused before
//!   anything lands when its final `ChildOf` parent already has a child with
//!   the entity's name; bases are checked against that final parent only.
//!
//! Pinned here: ordinary body panics still panic out of `run_system` (plain
//! systems, pipes' halves, exclusive systems); late validation with pipes
//! with and without output, `map`, exclusive halves; the system stays
//! registered and runs once the resource exists; `Commands::run_system` and
//! `run_system_once`; schedules and `run_if` conditions with a missing
//! resource still panic naming it; a flag left on the thread by a caught
//! validation panic does not change a later unrelated run; nested runs
//! (an exclusive system running another system, a schedule or a one-shot
//! system whose resource is missing). For bundles: `insert`,
//! `insert_if_new`, commands, `spawn`, several `ChildOf` pairs, re-giving the
//! current parent, roots, observers renaming during the insert, drops
//! (each value dropped once on refusal) and unchanged state after a refusal.
//!
//! Findings (6 tests, 5 causes; all fixed since, the tests pass: the
//! thread-local flag was replaced by `System::invalid_param_last_run`, which
//! only a pipe's late validation of its second half sets; the first half's
//! commands are then queued; a bundle keeps only its last `ChildOf` pair; an
//! `insert_if_new` into a named entity checks the name up front). As found:
//! - `a_body_panic_after_a_nested_invalid_run_system_is_still_a_panic` and
//!   `a_body_that_catches_a_validation_panic_and_then_panics_still_panics`:
//!   the registry takes the flag (`take_validation_panic`) only after a
//!   successful up-front validation; an up-front validation panic of a nested
//!   `run_system` (returned as `Err(InvalidParam)`, `Err(_)` arm) or a
//!   validation panic the body catches itself (`run_system_once`) leaves the
//!   flag set, so a later ordinary panic of the outer body is reported as the
//!   outer system's `InvalidParam` (its own parameters were fine) and the
//!   panic is swallowed.
//! - `a_nested_schedule_missing_resource_panic_propagates`: an exclusive
//!   system running a schedule whose system lacks a resource: the schedule
//!   panics naming the resource (right), but the outer `run_system` turns that
//!   panic into `Err(InvalidParam)` for the outer system, though its own
//!   parameters were valid (Bevy propagates the error handler's panic).
//! - `a_first_halfs_commands_are_applied_when_the_second_half_is_invalid`:
//!   the first half of a `()` pipe ran (its direct writes stay) but its
//!   commands are dropped when the second half lacks a resource, while with
//!   a `Single` in the second half (`Skipped`) they are applied; Bevy's
//!   `run_system_with` calls `queue_deferred` whatever the result
//!   (system_registry.rs), so they are applied in both. Cause: the late
//!   validation panics out of `run_unsafe` before `queue_deferred`, and
//!   `discard_deferred` runs for every non-`Ok` result.
//! - `a_bundle_with_two_parents_is_checked_against_the_last_only`: inserting
//!   `(Pos, ChildOf.pair(clash), ChildOf.pair(free))` into a named entity
//!   (only the last parent counts, and `refuse_invalid` accepts it) panics
//!   with `NameTaken` after `Pos` landed: `add_to_by_policy` adds each
//!   `ChildOf` pair in turn and `check_pair` (names = true) refuses the
//!   intermediate parent.
//! - `insert_if_new_whose_name_is_kept_is_refused_before_anything_lands`:
//!   `insert_if_new((Name, Likes pair, ChildOf.pair(clash)))` into an entity
//!   that already has a name (so the bundle's `Name` is not written and the
//!   entity keeps its name) is not pre-checked (`check_names` is false for
//!   any bundle holding a `Name`), so the `Likes` pair lands before the
//!   `ChildOf` pair is refused with `NameTaken`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs_tests::{DropLog, panic_message};

#[derive(Resource)]
struct Missing;

#[derive(Resource, Default)]
struct Counter(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component)]
struct Marker;

#[derive(Component)]
struct Player;

#[derive(Relationship)]
struct Likes;

fn count(mut counter: ResMut<Counter>) -> u32 {
    counter.0 += 1;
    counter.0
}

fn count_unit(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

fn needs_missing(_input: In<u32>, _missing: Res<Missing>) {}

fn needs_missing_mut(_input: In<u32>, _missing: ResMut<Missing>) {}

fn is_invalid<O: std::fmt::Debug>(result: &Result<O, RunSystemError>) -> bool {
    matches!(result, Err(RunSystemError::InvalidParam { .. }))
}

// ----- 1. run_system and late validation ---------------------------------------------

#[test]
fn a_plain_body_panic_still_panics_out_of_run_system() {
    let mut world = World::new();
    let id = world.register_system(|| -> u32 { panic!("plain body boom") });
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("plain body boom"), "{message}");
    // Still registered, and a second run panics the same way.
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("plain body boom"), "{message}");
}

#[test]
fn a_panic_in_either_half_of_a_pipe_still_panics() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let first = world.register_system((|| -> u32 { panic!("first half boom") }).pipe(|_: In<u32>| {}));
    let message = panic_message(|| world.run_system(first));
    assert!(message.contains("first half boom"), "{message}");
    let second = world.register_system(count.pipe(|_: In<u32>, _c: Res<Counter>| panic!("second half boom")));
    let message = panic_message(|| world.run_system(second));
    assert!(message.contains("second half boom"), "{message}");
    assert_eq!(world.resource::<Counter>().0, 1, "the first half ran once");
    // The flag is for validation only: a body panic that reads like a
    // missing-resource message is still a panic.
    let lookalike = world.register_system(count.pipe(|_: In<u32>| {
        panic!("system `x` needs resource Missing, which does not exist");
    }));
    let message = panic_message(|| world.run_system(lookalike));
    assert!(message.contains("needs resource"), "{message}");
}

#[test]
fn an_exclusive_body_panic_still_panics() {
    let mut world = World::new();
    let id = world.register_system(|_world: &mut World| -> u32 { panic!("exclusive boom") });
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("exclusive boom"), "{message}");
}

#[test]
fn a_late_missing_resource_is_invalid_param_and_the_system_runs_once_it_exists() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(needs_missing));
    let mut_id = world.register_system(count.pipe(needs_missing_mut));
    for round in 1..=2 {
        let result = world.run_system(id);
        assert!(is_invalid(&result), "round {round}: {result:?}");
    }
    let result = world.run_system(mut_id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 3, "the first halves ran (as in Bevy)");
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(()));
    assert_eq!(world.run_system(mut_id), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 5);
    // Removed again: invalid again, not `Recursive` (the slot was given back).
    world.remove_resource::<Missing>();
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
}

#[test]
fn a_pipe_with_an_output_is_validated_whole_before_the_first_half_runs() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(|In(n): In<u32>, _m: Res<Missing>| n * 10));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 0, "validated up front: the first half did not run");
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(10));
}

#[test]
fn a_map_over_a_late_invalid_pipe_is_invalid_param() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(needs_missing).map(|()| 7u32));
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 1);
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(7));
    // A map whose function panics is a panic.
    let boom = world.register_system(count.map(|_: u32| -> u32 { panic!("map boom") }));
    let message = panic_message(|| world.run_system(boom));
    assert!(message.contains("map boom"), "{message}");
}

#[test]
fn an_exclusive_first_half_then_a_missing_resource_is_invalid_param() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(
        (|world: &mut World| -> u32 {
            world.resource_mut::<Counter>().0 += 1;
            world.spawn(Marker);
            1
        })
        .pipe(needs_missing),
    );
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1, "an exclusive half's changes stay");
    world.insert_resource(Missing);
    assert_eq!(world.run_system(id), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn a_first_half_that_removes_the_resource_makes_the_second_half_invalid() {
    let mut world = World::new();
    world.insert_resource(Missing);
    let id = world.register_system(
        (|world: &mut World| -> u32 {
            world.remove_resource::<Missing>();
            3
        })
        .pipe(needs_missing),
    );
    let result = world.run_system(id);
    assert!(is_invalid(&result), "{result:?}");
    assert!(!world.contains_resource::<Missing>());
}

#[test]
fn a_first_halfs_commands_are_applied_when_the_second_half_is_invalid() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let first = |mut counter: ResMut<Counter>, mut commands: Commands| -> u32 {
        counter.0 += 1;
        commands.spawn(Marker);
        1
    };
    // Control: a `Single` the second half cannot build is `Skipped`, and the
    // first half's commands are applied.
    let skipped = world.register_system(first.pipe(|_: In<u32>, _p: Single<&Player>| {}));
    let result = world.run_system(skipped);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1, "Skipped: the first half's commands applied");
    let invalid = world.register_system(first.pipe(needs_missing));
    let result = world.run_system(invalid);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 2, "both first halves ran");
    assert_eq!(
        world.query::<&Marker>().iter(&world).count(),
        2,
        "InvalidParam: the first half ran and its commands are applied (Bevy queues them whatever the result)"
    );
}

#[test]
fn a_nested_invalid_run_system_leaves_the_outer_run_ok() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let inner = world.register_system(count.pipe(needs_missing));
    let inner_up_front = world.register_system(|_m: Res<Missing>| ());
    let outer = world.register_system(move |world: &mut World| -> u32 {
        let late = world.run_system(inner);
        let early = world.run_system(inner_up_front);
        assert!(is_invalid(&late), "{late:?}");
        assert!(is_invalid(&early), "{early:?}");
        42
    });
    assert_eq!(world.run_system(outer), Ok(42));
    // A non-exclusive pipe whose first half is the nesting exclusive system.
    let piped = world.register_system(
        (move |world: &mut World| -> u32 {
            let _ = world.run_system(inner_up_front);
            5
        })
        .pipe(|In(n): In<u32>, mut counter: ResMut<Counter>| counter.0 += n),
    );
    assert_eq!(world.run_system(piped), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 6);
}

#[test]
fn a_body_panic_after_a_nested_invalid_run_system_is_still_a_panic() {
    let mut world = World::new();
    let inner = world.register_system(|_m: Res<Missing>| ());
    let outer = world.register_system(move |world: &mut World| {
        let result = world.run_system(inner);
        assert!(is_invalid(&result), "{result:?}");
        panic!("outer boom after an invalid inner run");
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| world.run_system(outer)));
    match outcome {
        Err(payload) => {
            let message = payload.downcast_ref::<&str>().map(|s| (*s).to_owned()).unwrap_or_default();
            assert!(message.contains("outer boom"), "{message}");
        }
        Ok(result) => panic!("the outer body panicked, but run_system returned {result:?}"),
    }
}

#[test]
fn a_body_that_catches_a_validation_panic_and_then_panics_still_panics() {
    let mut world = World::new();
    // Non-exclusive: its own scratch world, nothing of the outer world.
    let outer = world.register_system(|| -> u32 {
        let mut scratch = World::new();
        let caught = catch_unwind(AssertUnwindSafe(|| scratch.run_system_once(|_m: Res<Missing>| ())));
        assert!(caught.is_err(), "run_system_once panics for a missing resource");
        panic!("body boom after a caught validation panic");
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| world.run_system(outer)));
    assert!(outcome.is_err(), "the body panicked, but run_system returned {:?}", outcome.ok());
}

#[test]
fn a_body_that_catches_a_validation_panic_and_returns_is_ok() {
    let mut world = World::new();
    let outer = world.register_system(|world: &mut World| -> bool {
        catch_unwind(AssertUnwindSafe(|| world.run_system_once(|_m: Res<Missing>| ()))).is_err()
    });
    assert_eq!(world.run_system(outer), Ok(true));
    // And a later, unrelated panicking system on this thread still panics.
    let boom = world.register_system(|| panic!("later boom"));
    let message = panic_message(|| world.run_system(boom));
    assert!(message.contains("later boom"), "{message}");
}

#[test]
fn a_nested_schedule_missing_resource_panic_propagates() {
    let mut world = World::new();
    let outer = world.register_system(|world: &mut World| {
        let mut schedule = Schedule::new();
        schedule.add_systems(|_m: Res<Missing>| {});
        schedule.run(world);
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| world.run_system(outer)));
    match outcome {
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            assert!(message.contains("Missing"), "{message}");
        }
        Ok(result) => panic!("the outer system's own parameters are valid; got {result:?}"),
    }
}

#[test]
fn schedules_with_a_missing_resource_still_panic_naming_it() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count.pipe(needs_missing));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Missing"), "{message}");

    let mut schedule = Schedule::new();
    schedule.add_systems(count_unit.run_if(|_m: Res<Missing>| true));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Missing"), "{message}");

    let mut schedule = Schedule::new();
    schedule.add_systems(|_m: ResMut<Missing>| {});
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Missing"), "{message}");

    // A system that ran no validation panic on this thread since then still
    // panics with its own message through run_system.
    let boom = world.register_system(|| panic!("after schedules"));
    let message = panic_message(|| world.run_system(boom));
    assert!(message.contains("after schedules"), "{message}");
    // And an unrelated valid run is Ok.
    let ok = world.register_system(count);
    assert!(world.run_system(ok).is_ok());
}

#[test]
fn a_run_if_condition_that_lacks_a_resource_does_not_run_its_system() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_unit.run_if(resource_exists::<Missing>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
    let mut schedule = Schedule::new();
    schedule.add_systems(count_unit.run_if(|_m: Res<Missing>| true));
    assert!(catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).is_err());
    assert_eq!(world.resource::<Counter>().0, 0);
    world.insert_resource(Missing);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn commands_run_system_of_a_late_invalid_pipe_is_skipped_quietly() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(count.pipe(needs_missing));
    world.run_system_once(move |mut commands: Commands| {
        commands.run_system(id);
        commands.spawn(Marker);
    });
    assert_eq!(world.resource::<Counter>().0, 1, "the first half ran");
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1, "later commands still applied");
    // Then a panicking system through commands still panics.
    let boom = world.register_system(|| panic!("commands boom"));
    let message = panic_message(|| world.run_system_once(move |mut commands: Commands| commands.run_system(boom)));
    assert!(message.contains("commands boom"), "{message}");
    world.insert_resource(Missing);
    world.run_system_once(move |mut commands: Commands| commands.run_system(id));
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn run_system_once_of_a_late_invalid_pipe_panics_naming_the_resource() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let message = panic_message(|| world.run_system_once(count.pipe(needs_missing)));
    assert!(message.contains("Missing"), "{message}");
    assert_eq!(world.resource::<Counter>().0, 1);
    // The flag left on this thread by that panic changes no later run.
    let boom = world.register_system(|_c: Res<Counter>| -> u32 { panic!("unrelated boom") });
    let message = panic_message(|| world.run_system(boom));
    assert!(message.contains("unrelated boom"), "{message}");
    let ok = world.register_system(count.pipe(|In(n): In<u32>| n));
    assert_eq!(world.run_system(ok), Ok(2));
}

#[test]
fn run_system_with_input_and_a_late_missing_resource() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(
        (|In(n): In<u32>, mut counter: ResMut<Counter>| {
            counter.0 += n;
            n
        })
        .pipe(needs_missing),
    );
    let result = world.run_system_with(id, 4);
    assert!(is_invalid(&result), "{result:?}");
    assert_eq!(world.resource::<Counter>().0, 4);
    world.insert_resource(Missing);
    assert_eq!(world.run_system_with(id, 5), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 9);
}

#[test]
fn a_flag_left_by_another_thread_or_this_one_does_not_change_unrelated_runs() {
    // A validation panic caught at top level (through run_system_once) on this
    // thread, then a registered system that panics by itself.
    let mut world = World::new();
    assert!(catch_unwind(AssertUnwindSafe(|| world.run_system_once(|_m: Res<Missing>| ()))).is_err());
    let id = world.register_system(|_w: &mut World| -> u32 { panic!("exclusive after leak") });
    let message = panic_message(|| world.run_system(id));
    assert!(message.contains("exclusive after leak"), "{message}");
    // A validation panic on another thread does not reach this one.
    std::thread::spawn(|| {
        let mut other = World::new();
        let _ = catch_unwind(AssertUnwindSafe(|| other.run_system_once(|_m: Res<Missing>| ())));
    })
    .join()
    .unwrap();
    let boom = world.register_system(|| panic!("after other thread"));
    let message = panic_message(|| world.run_system(boom));
    assert!(message.contains("after other thread"), "{message}");
}

// ----- 2. bundles without a Name under a parent with a sibling of the entity's name --

struct Clash {
    world: World,
    dock: Entity,
    taken: Entity,
    e: Entity,
    target: Entity,
}

/// `e` is a root named "x"; `dock` has a child named "x" (`taken`).
fn clash() -> Clash {
    let mut world = World::new();
    let dock = world.spawn(Name::new("dock")).id();
    let taken = world.spawn((Name::new("x"), ChildOf.pair(dock))).id();
    let e = world.spawn(Name::new("x")).id();
    let target = world.spawn_empty().id();
    Clash { world, dock, taken, e, target }
}

fn observed(world: &mut World) -> Arc<AtomicUsize> {
    let fired = Arc::new(AtomicUsize::new(0));
    let seen = fired.clone();
    world.add_observer(move |_t: Trigger<OnAdd, Pos>| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let seen = fired.clone();
    world.add_observer(move |_t: Trigger<OnInsert, Marker>| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    fired
}

#[track_caller]
fn assert_unchanged(c: &mut Clash) {
    let (world, e) = (&mut c.world, c.e);
    assert_eq!(world.get::<Pos>(e), None);
    assert!(!world.has::<Marker>(e));
    assert!(!world.has_pair::<Likes>(e, c.target));
    assert_eq!(world.target::<ChildOf>(e), None);
    assert_eq!(world.get::<Name>(e).map(Name::as_str), Some("x"));
    assert_eq!(world.lookup("x"), Some(e));
    assert_eq!(world.lookup("dock::x"), Some(c.taken));
    world.check_invariants();
}

#[test]
fn insert_without_a_name_is_refused_before_anything_lands() {
    let mut c = clash();
    let log = DropLog::new();
    let fired = observed(&mut c.world);
    let before = c.world.entity(c.e).archetype();
    let count = c.world.entity_count();
    let (e, dock, target) = (c.e, c.dock, c.target);
    let message = panic_message(|| {
        c.world.entity_mut(e).insert((
            Pos(1.0),
            log.table(1),
            Marker,
            log.sparse(2),
            Likes.pair(target),
            ChildOf.pair(dock),
        ));
    });
    assert!(message.contains(&format!("{:?}", c.taken)), "{message}");
    log.assert_dropped_once([1, 2]);
    assert_eq!(fired.load(Ordering::SeqCst), 0, "no observer fired");
    assert_eq!(c.world.entity(e).archetype(), before);
    assert_eq!(c.world.entity_count(), count);
    assert_unchanged(&mut c);
    // The world still works: the same bundle under another parent lands.
    let free = c.world.spawn_empty().id();
    c.world.entity_mut(e).insert((Pos(2.0), log.table(3), ChildOf.pair(free)));
    assert_eq!(c.world.get::<Pos>(e), Some(&Pos(2.0)));
    assert_eq!(c.world.target::<ChildOf>(e), Some(free));
    assert_eq!(fired.load(Ordering::SeqCst), 1);
    log.assert_dropped_once([1, 2]);
}

#[test]
fn world_insert_without_a_name_is_refused_too() {
    let mut c = clash();
    let log = DropLog::new();
    let (e, dock) = (c.e, c.dock);
    let message = panic_message(|| c.world.insert(e, (log.table(1), ChildOf.pair(dock))));
    assert!(message.contains("x"), "{message}");
    log.assert_dropped_once([1]);
    assert_unchanged(&mut c);
}

#[test]
fn insert_if_new_without_a_name_is_refused_before_anything_lands() {
    let mut c = clash();
    let log = DropLog::new();
    let fired = observed(&mut c.world);
    let (e, dock, target) = (c.e, c.dock, c.target);
    let before = c.world.entity(e).archetype();
    let message = panic_message(|| {
        c.world.insert_if_new(e, (Pos(1.0), log.table(1), Marker, Likes.pair(target), ChildOf.pair(dock)));
    });
    assert!(message.contains(&format!("{:?}", c.taken)), "{message}");
    log.assert_dropped_once([1]);
    assert_eq!(fired.load(Ordering::SeqCst), 0);
    assert_eq!(c.world.entity(e).archetype(), before);
    assert_unchanged(&mut c);
}

#[test]
fn insert_if_new_whose_name_is_kept_is_refused_before_anything_lands() {
    let mut c = clash();
    let (e, dock, target) = (c.e, c.dock, c.target);
    let result = catch_unwind(AssertUnwindSafe(|| {
        c.world.insert_if_new(e, (Name::new("other"), Likes.pair(target), ChildOf.pair(dock)));
    }));
    assert!(result.is_err(), "the entity keeps the name x, which dock has");
    assert_eq!(c.world.target::<ChildOf>(e), None);
    assert!(!c.world.has_pair::<Likes>(e, target), "the Likes pair landed though the bundle was refused");
    assert_unchanged(&mut c);
}

#[test]
fn commands_insert_without_a_name_is_refused_and_drops_once() {
    let mut c = clash();
    let log = DropLog::new();
    let fired = observed(&mut c.world);
    let (e, dock, target) = (c.e, c.dock, c.target);
    let bundle = (Pos(1.0), log.table(1), Marker, Likes.pair(target), ChildOf.pair(dock));
    let mut slot = Some(bundle);
    let message = panic_message(|| {
        c.world.run_system_once(move |mut commands: Commands| {
            let bundle = slot.take().unwrap();
            commands.entity(e).insert(bundle);
        });
    });
    assert!(message.contains("x"), "{message}");
    log.assert_dropped_once([1]);
    assert_eq!(fired.load(Ordering::SeqCst), 0);
    assert_unchanged(&mut c);
    assert!(c.world.is_alive(e), "an existing entity is not despawned for a refused insert");
}

#[test]
fn spawn_without_a_name_under_a_parent_with_any_names_is_never_refused() {
    let mut c = clash();
    let dock = c.dock;
    let child = c.world.spawn((Pos(1.0), ChildOf.pair(dock))).id();
    assert_eq!(c.world.target::<ChildOf>(child), Some(dock));
    let commanded =
        c.world.run_system_once(move |mut commands: Commands| commands.spawn((Marker, ChildOf.pair(dock))).id());
    assert_eq!(c.world.target::<ChildOf>(commanded), Some(dock));
    assert_eq!(c.world.children(dock).count(), 3);
    c.world.check_invariants();
}

#[test]
fn a_bundle_with_two_parents_is_checked_against_the_last_only() {
    let mut c = clash();
    let (e, dock) = (c.e, c.dock);
    let free = c.world.spawn(Name::new("free")).id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        c.world.entity_mut(e).insert((Pos(1.0), ChildOf.pair(dock), ChildOf.pair(free)));
    }));
    let pos = c.world.get::<Pos>(e).copied();
    assert!(result.is_ok(), "refused; Pos after the refusal: {pos:?}");
    assert_eq!(c.world.target::<ChildOf>(e), Some(free));
    assert_eq!(pos, Some(Pos(1.0)));
    assert_eq!(c.world.lookup("free::x"), Some(e));
    c.world.check_invariants();
}

#[test]
fn a_bundle_whose_last_parent_clashes_is_refused_whatever_comes_before() {
    let mut c = clash();
    let log = DropLog::new();
    let (e, dock) = (c.e, c.dock);
    let free = c.world.spawn_empty().id();
    let message = panic_message(|| {
        c.world.entity_mut(e).insert((log.table(1), ChildOf.pair(free), ChildOf.pair(dock)));
    });
    assert!(message.contains(&format!("{:?}", c.taken)), "{message}");
    log.assert_dropped_once([1]);
    assert_eq!(c.world.children(free).count(), 0);
    assert_unchanged(&mut c);
}

#[test]
fn re_giving_the_current_parent_is_no_clash_with_itself() {
    let mut world = World::new();
    let dock = world.spawn(Name::new("dock")).id();
    let e = world.spawn((Name::new("x"), ChildOf.pair(dock))).id();
    world.entity_mut(e).insert((Pos(1.0), ChildOf.pair(dock)));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0)));
    world.insert_if_new(e, (Marker, ChildOf.pair(dock)));
    assert!(world.has::<Marker>(e));
    assert_eq!(world.target::<ChildOf>(e), Some(dock));
    assert_eq!(world.lookup("dock::x"), Some(e));
    // Moving it to a parent with an "x" is refused; it stays under dock.
    let other = world.spawn(Name::new("other")).id();
    world.spawn((Name::new("x"), ChildOf.pair(other)));
    let message = panic_message(|| {
        world.entity_mut(e).insert((Pos(9.0), ChildOf.pair(other)));
    });
    assert!(message.contains("x"), "{message}");
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0)));
    assert_eq!(world.target::<ChildOf>(e), Some(dock));
    world.check_invariants();
}

#[test]
fn roots_and_unnamed_entities_are_not_refused() {
    let mut world = World::new();
    let dock = world.spawn(Name::new("dock")).id();
    world.spawn((Name::new("x"), ChildOf.pair(dock)));
    // A named root given no parent: nothing to check.
    let root = world.spawn(Name::new("x")).id();
    world.entity_mut(root).insert((Pos(1.0), Likes.pair(dock)));
    assert_eq!(world.get::<Pos>(root), Some(&Pos(1.0)));
    // An unnamed entity under dock: no name, no clash.
    let unnamed = world.spawn_empty().id();
    world.entity_mut(unnamed).insert((Pos(2.0), ChildOf.pair(dock)));
    assert_eq!(world.target::<ChildOf>(unnamed), Some(dock));
    // A named child moved to a parent whose children have other names only.
    let y = world.spawn((Name::new("y"), ChildOf.pair(dock))).id();
    world.entity_mut(y).insert((Marker, ChildOf.pair(root)));
    assert_eq!(world.lookup("x::y"), Some(y));
    world.check_invariants();
}

#[test]
fn bases_and_a_clashing_final_parent_are_refused_whole() {
    let mut c = clash();
    let log = DropLog::new();
    let (e, dock) = (c.e, c.dock);
    let base = c.world.spawn((Prefab, Pos(5.0))).id();
    c.world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let count = c.world.entity_count();
    let message = panic_message(|| {
        c.world.entity_mut(e).insert((log.table(1), IsA.pair(base), ChildOf.pair(dock)));
    });
    assert!(message.contains(&format!("{:?}", c.taken)), "{message}");
    assert!(!c.world.has_pair::<IsA>(e, base));
    assert_eq!(c.world.children(e).count(), 0, "no prefab child instantiated");
    assert_eq!(c.world.entity_count(), count);
    log.assert_dropped_once([1]);
    assert_unchanged(&mut c);
}

#[test]
fn an_observer_renaming_during_the_insert_never_leaves_two_siblings_with_one_name() {
    let mut world = World::new();
    let dock = world.spawn(Name::new("dock")).id();
    let taken = world.spawn((Name::new("y"), ChildOf.pair(dock))).id();
    let e = world.spawn(Name::new("x")).id();
    // Renames e in place to "y" when Marker lands, after the up-front check.
    world.add_observer(|trigger: Trigger<OnAdd, Marker>, mut names: Query<&mut Name>| {
        if let Ok(mut name) = names.get_mut(trigger.entity()) {
            *name = Name::new("y");
        }
    });
    let _ = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(e).insert((Marker, ChildOf.pair(dock)));
    }));
    let _ = catch_unwind(AssertUnwindSafe(|| world.flush()));
    let ys = world.children(dock).filter(|&child| world.get::<Name>(child).map(Name::as_str) == Some("y")).count();
    assert_eq!(ys, 1, "two children of dock named y");
    assert_eq!(world.lookup("dock::y"), Some(taken));
    world.check_invariants();
}

#[test]
fn an_observer_that_would_rename_never_fires_for_a_refused_bundle() {
    let mut c = clash();
    let (e, dock) = (c.e, c.dock);
    let fired = Arc::new(AtomicUsize::new(0));
    let seen = fired.clone();
    c.world.add_observer(move |trigger: Trigger<OnAdd, Marker>, mut names: Query<&mut Name>| {
        seen.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut name) = names.get_mut(trigger.entity()) {
            *name = Name::new("renamed");
        }
    });
    let message = panic_message(|| {
        c.world.entity_mut(e).insert((Marker, ChildOf.pair(dock)));
    });
    assert!(message.contains("x"), "{message}");
    assert_eq!(fired.load(Ordering::SeqCst), 0);
    assert_unchanged(&mut c);
}
