//! The system layer: function systems run through `World::run_system_once` and
//! `Schedule`, their parameters (`Query`, `Res`, `ResMut`, `Option<Res>`,
//! `Local`, `&World`, `Commands`), change detection relative to a system's
//! previous run, deferred commands (order, visibility, id reservation, panics,
//! drops), and the runtime access check that decides what the const check
//! leaves open (`Or` filters, generic resources).

use std::collections::BTreeSet;

use ecs::system::{CommandQueue, IntoSystem, System};
use ecs_tests::{DropLog, DropSparse, DropTable, DropTag, panic_message, tag_drops};
use ecs_tests::{Enemy, Position, Velocity};

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Debug, PartialEq)]
struct B;

#[derive(Component, Debug, PartialEq)]
struct C;

#[derive(Component, Debug, PartialEq)]
struct Marker(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Resource, Default, Debug, PartialEq)]
struct Time {
    dt: f32,
}

#[derive(Resource, Debug, PartialEq)]
struct Score(u32);

#[derive(Resource, Default, Debug, PartialEq)]
struct Log(Vec<String>);

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<BTreeSet<Entity>>);

#[derive(Resource, Default, Debug, PartialEq)]
struct Spawned(Option<Entity>);

#[derive(Resource, Debug, PartialEq)]
struct Missing;

/// A generic resource: its derive leaves `Resource::ID` unknown, so only the
/// runtime check can tell `Wrapper<u32>` from `Wrapper<u64>`.
#[derive(Resource, Debug, PartialEq)]
struct Wrapper<T: Send + Sync + 'static>(T);

fn pos(x: f32) -> Position {
    Position { x, y: 0.0 }
}

fn set<const N: usize>(entities: [Entity; N]) -> BTreeSet<Entity> {
    BTreeSet::from(entities)
}

/// Initializes the function system `f` on `world` and returns it.
fn initialized<Marker, S: IntoSystem<Marker>>(world: &mut World, f: S) -> S::System {
    let mut system = f.into_system();
    system.initialize(world);
    assert!(system.is_initialized());
    system
}

// ----- queries in function systems ---------------------------------------------------

#[test]
fn run_system_iterates_a_query_and_returns_what_the_system_returns() {
    let mut world = World::new();
    world.spawn((pos(1.0), Enemy));
    world.spawn((pos(2.0), Enemy));
    world.spawn(pos(40.0));
    fn enemy_x_sum(q: Query<&Position, With<Enemy>>) -> f32 {
        q.iter().map(|p| p.x).sum()
    }
    assert_eq!(world.run_system_once(enemy_x_sum), 3.0);
    assert_eq!(world.run_system_once(|q: Query<&Position>| q.iter().count()), 3);
    assert_eq!(world.run_system_once(|q: Query<Entity, Without<Enemy>>| q.iter().count()), 1);
    world.check_invariants();
}

fn movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
    for (mut p, v) in q.iter_mut() {
        p.x += v.x * time.dt;
        p.y += v.y * time.dt;
    }
}

#[test]
fn a_schedule_runs_a_query_system_on_every_run() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 0.5 });
    let mover = world.spawn((Position::default(), Velocity { x: 2.0, y: -4.0 })).id();
    let still = world.spawn(pos(7.0)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(movement);
    assert_eq!(schedule.len(), 1);
    assert!(schedule.system_names().next().unwrap().ends_with("movement"));
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(mover), Some(&Position { x: 1.0, y: -2.0 }));
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(mover), Some(&Position { x: 2.0, y: -4.0 }));
    assert_eq!(world.get::<Position>(still), Some(&pos(7.0)));
    // A mover spawned between runs is matched on the next run (new archetype).
    let late = world.spawn((pos(0.0), Velocity { x: 1.0, y: 0.0 }, Enemy)).id();
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(late), Some(&pos(0.5)));
    assert_eq!(world.get::<Position>(mover), Some(&Position { x: 3.0, y: -6.0 }));
    world.check_invariants();
}

#[test]
fn query_get_and_get_mut_in_a_system() {
    let mut world = World::new();
    let a = world.spawn((A(1), Marker(10))).id();
    let no_marker = world.spawn(A(2)).id();
    let dead = world.spawn((A(3), Marker(30))).id();
    world.despawn(dead);
    let out = world.run_system_once(move |mut q: Query<(&mut A, &Marker)>| {
        let read = q.get(a).map(|(a, m)| (a.0, m.0));
        {
            let (mut value, marker) = q.get_mut(a).expect("a matches");
            value.0 += marker.0;
        }
        let errors = (q.get(no_marker).err(), q.get(dead).err(), q.get_mut(no_marker).err(), q.get_mut(dead).err());
        (read, errors, q.contains(a), q.contains(no_marker))
    });
    assert_eq!(out.0, Ok((1, 10)));
    assert_eq!(
        out.1,
        (
            Some(QueryError::QueryDoesNotMatch(no_marker)),
            Some(QueryError::NoSuchEntity(dead)),
            Some(QueryError::QueryDoesNotMatch(no_marker)),
            Some(QueryError::NoSuchEntity(dead))
        )
    );
    assert_eq!((out.2, out.3), (true, false));
    assert_eq!(world.get::<A>(a), Some(&A(11)));
    assert_eq!(world.get::<A>(no_marker), Some(&A(2)));
    world.check_invariants();
}

#[test]
fn query_single_and_single_mut_report_no_entities_and_multiple_entities() {
    fn single_a(mut q: Query<&mut A>) -> (Result<u32, QuerySingleError>, Result<u32, QuerySingleError>, bool) {
        let read = q.single().map(|a| a.0);
        let written = q.single_mut().map(|mut a| {
            a.0 *= 10;
            a.0
        });
        (read, written, q.is_empty())
    }
    let mut world = World::new();
    let (read, written, empty) = world.run_system_once(single_a);
    assert!(matches!(read, Err(QuerySingleError::NoEntities(_))), "{read:?}");
    assert!(matches!(written, Err(QuerySingleError::NoEntities(_))), "{written:?}");
    assert!(empty);

    let e = world.spawn(A(4)).id();
    assert_eq!(world.run_system_once(single_a), (Ok(4), Ok(40), false));
    assert_eq!(world.get::<A>(e), Some(&A(40)));

    world.spawn(A(5));
    let (read, written, empty) = world.run_system_once(single_a);
    assert!(matches!(read, Err(QuerySingleError::MultipleEntities(_))), "{read:?}");
    assert!(matches!(written, Err(QuerySingleError::MultipleEntities(_))), "{written:?}");
    assert!(!empty);
    assert_eq!(world.get::<A>(e), Some(&A(40)), "a failed single_mut writes nothing");
    world.check_invariants();
}

// ----- resources, Local, &World ------------------------------------------------------

#[test]
fn res_reads_and_res_mut_writes() {
    fn add_dt(time: Res<Time>, mut score: ResMut<Score>) {
        score.0 += (time.dt * 10.0) as u32;
    }
    let mut world = World::new();
    world.insert_resource(Time { dt: 0.5 });
    world.insert_resource(Score(1));
    world.run_system_once(add_dt);
    assert_eq!(world.resource::<Score>(), &Score(6));
    let mut schedule = Schedule::new();
    schedule.add_systems(add_dt);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(16));
    assert_eq!(world.run_system_once(|score: Res<Score>| score.0), 16);
    assert_eq!(world.resource::<Time>(), &Time { dt: 0.5 }, "Res does not write");
}

#[test]
fn option_res_is_none_when_missing_and_some_when_present() {
    fn peek(score: Option<Res<Score>>, time: Option<ResMut<Time>>) -> (Option<u32>, Option<f32>) {
        let dt = time.map(|mut time| {
            time.dt *= 2.0;
            time.dt
        });
        (score.map(|score| score.0), dt)
    }
    let mut world = World::new();
    assert_eq!(world.run_system_once(peek), (None, None));
    world.insert_resource(Score(3));
    assert_eq!(world.run_system_once(peek), (Some(3), None));
    world.insert_resource(Time { dt: 1.5 });
    assert_eq!(world.run_system_once(peek), (Some(3), Some(3.0)));
    assert_eq!(world.resource::<Time>(), &Time { dt: 3.0 });
    world.remove_resource::<Score>();
    assert_eq!(world.run_system_once(peek), (None, Some(6.0)));
}

fn needs_missing(_missing: Res<Missing>) {}

fn needs_missing_mut(_missing: ResMut<Missing>) {}

#[test]
fn a_missing_res_panics_naming_the_system_and_the_resource() {
    let mut world = World::new();
    let message = panic_message(|| world.run_system_once(needs_missing));
    assert!(message.contains("needs_missing"), "{message}");
    assert!(message.contains("Missing"), "{message}");
    assert!(message.contains("does not exist"), "{message}");

    let message = panic_message(|| world.run_system_once(needs_missing_mut));
    assert!(message.contains("needs_missing_mut"), "{message}");
    assert!(message.contains("Missing"), "{message}");

    let mut schedule = Schedule::new();
    schedule.add_systems(needs_missing);
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("system `") && message.contains("needs_missing`"), "{message}");
    assert!(message.contains("Missing"), "{message}");

    world.insert_resource(Missing);
    schedule.run(&mut world);
    world.run_system_once(needs_missing_mut);
}

#[test]
#[should_panic(expected = "needs resource")]
fn a_missing_res_in_a_schedule_panics() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(needs_missing);
    schedule.run(&mut world);
}

fn count_runs(mut runs: Local<u32>, mut log: ResMut<Log>) {
    *runs += 1;
    log.0.push(format!("run {}", *runs));
}

#[test]
fn local_persists_across_runs_of_one_schedule_and_belongs_to_one_system() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::new();
    // The same function twice: two systems, two `Local`s.
    schedule.add_systems((count_runs, count_runs));
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["run 1", "run 1", "run 2", "run 2", "run 3", "run 3"]);

    // Another schedule (or a one-off run_system_once) starts from `Default` again.
    world.resource_mut::<Log>().0.clear();
    let mut other = Schedule::new();
    other.add_systems(count_runs);
    other.run(&mut world);
    world.run_system_once(count_runs);
    world.run_system_once(count_runs);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["run 1", "run 1", "run 1", "run 4", "run 4"]);
}

#[test]
fn local_through_system_run_counts_and_holds_any_default_type() {
    fn history(mut seen: Local<Vec<u32>>, score: Res<Score>) -> Vec<u32> {
        seen.push(score.0);
        seen.clone()
    }
    let mut world = World::new();
    world.insert_resource(Score(1));
    let mut system = initialized(&mut world, history);
    assert_eq!(system.run((), &mut world), [1]);
    world.insert_resource(Score(5));
    assert_eq!(system.run((), &mut world), [1, 5]);
    assert_eq!(system.run((), &mut world), [1, 5, 5]);
}

#[test]
fn world_param_reads_entities_components_and_resources() {
    fn census(world: &World, q: Query<&A>, score: Option<Res<Score>>) -> (usize, u32, Option<u32>, usize) {
        let sum = q.iter().map(|a| a.0).sum();
        (world.entity_count(), sum, world.get_resource::<Score>().map(|s| s.0), usize::from(score.is_some()))
    }
    let mut world = World::new();
    let e = world.spawn(A(2)).id();
    world.spawn((A(3), B));
    world.spawn_empty();
    assert_eq!(world.run_system_once(census), (3, 5, None, 0));
    world.insert_resource(Score(9));
    assert_eq!(world.run_system_once(census), (3, 5, Some(9), 1));
    let seen = world.run_system_once(move |world: &World| (world.is_alive(e), world.get::<A>(e).map(|a| a.0)));
    assert_eq!(seen, (true, Some(2)));
    let mut schedule = Schedule::new();
    schedule.add_systems(move |world: &World, mut commands: Commands| {
        let n = world.get::<A>(e).map_or(0, |a| a.0);
        commands.entity(e).insert(A(n + 1));
    });
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<A>(e), Some(&A(4)));
}

// ----- change detection --------------------------------------------------------------

fn changed_a(q: Query<Entity, Changed<A>>) -> BTreeSet<Entity> {
    q.iter().collect()
}

fn added_a(q: Query<Entity, Added<A>>) -> BTreeSet<Entity> {
    q.iter().collect()
}

#[test]
fn changed_and_added_are_relative_to_the_systems_previous_run() {
    let mut world = World::new();
    let e1 = world.spawn(A(1)).id();
    let e2 = world.spawn((A(2), B)).id();
    let mut changed = initialized(&mut world, changed_a);
    let mut added = initialized(&mut world, added_a);

    // First run: everything is added and changed.
    assert_eq!(changed.run((), &mut world), set([e1, e2]));
    assert_eq!(added.run((), &mut world), set([e1, e2]));
    // Nothing happened since.
    assert_eq!(changed.run((), &mut world), set([]));
    assert_eq!(added.run((), &mut world), set([]));

    // A write between runs is a change, not an add; a spawn is both.
    world.get_mut::<A>(e2).unwrap().0 = 20;
    let e3 = world.spawn(A(3)).id();
    assert_eq!(changed.run((), &mut world), set([e2, e3]));
    assert_eq!(added.run((), &mut world), set([e3]));
    assert_eq!(changed.run((), &mut world), set([]));
    assert_eq!(added.run((), &mut world), set([]));

    // Insert over an existing value is a change; removing and re-inserting is an add.
    world.insert(e1, A(10));
    world.remove::<A>(e3);
    world.insert(e3, A(30));
    assert_eq!(changed.run((), &mut world), set([e1, e3]));
    assert_eq!(added.run((), &mut world), set([e3]));

    // Moving between archetypes keeps the ticks.
    world.insert(e2, C);
    assert_eq!(changed.run((), &mut world), set([]));
    assert_eq!(added.run((), &mut world), set([]));
    world.check_invariants();
}

#[test]
fn each_system_has_its_own_last_run() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut early = initialized(&mut world, changed_a);
    assert_eq!(early.run((), &mut world), set([e]));
    world.get_mut::<A>(e).unwrap().0 = 2;
    // A system initialized late still sees everything on its first run.
    let mut late = initialized(&mut world, changed_a);
    assert_eq!(late.run((), &mut world), set([e]));
    assert_eq!(late.run((), &mut world), set([]));
    assert_eq!(early.run((), &mut world), set([e]), "the late system's runs do not hide the change from early");
}

fn bump_a(mut q: Query<&mut A>) {
    for mut a in q.iter_mut() {
        a.0 += 1;
    }
}

fn record_changed(q: Query<Entity, Changed<A>>, mut seen: ResMut<Seen>) {
    seen.0.push(q.iter().collect());
}

#[test]
fn changed_in_a_schedule_sees_writes_of_other_systems_made_since_its_previous_run() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn(A(0)).id();
    let quiet = world.spawn((A(100), B)).id();
    let mut schedule = Schedule::new();
    // `bump` only touches entities without B.
    schedule.add_systems((record_changed, |mut q: Query<&mut A, Without<B>>| {
        for mut a in q.iter_mut() {
            a.0 += 1;
        }
    }));
    schedule.run(&mut world); // record sees both (first run), then the bump writes e
    schedule.run(&mut world); // record sees the bump of run 1
    schedule.run(&mut world); // and of run 2
    world.get_mut::<A>(quiet).unwrap().0 = 101;
    schedule.run(&mut world); // a world write between runs, and the bump of run 3
    assert_eq!(world.resource::<Seen>().0, [set([e, quiet]), set([e]), set([e]), set([e, quiet])]);
    assert_eq!(world.get::<A>(e), Some(&A(4)));
}

#[test]
fn a_system_does_not_see_its_own_writes_on_its_next_run() {
    // Like a `QueryState` (see change_detection.rs), a system's writes in run N are
    // stamped with run N's tick, which is its `last_run` in run N + 1.
    fn bump_and_report(mut q: Query<(Entity, &mut A)>) -> BTreeSet<Entity> {
        let mut seen = BTreeSet::new();
        for (e, mut a) in q.iter_mut() {
            if a.is_changed() {
                seen.insert(e);
            }
            a.0 += 1;
        }
        seen
    }
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    let mut system = initialized(&mut world, bump_and_report);
    assert_eq!(system.run((), &mut world), set([e]), "first run");
    assert_eq!(system.run((), &mut world), set([]), "its own write of run 1");
    // But another system does see those writes.
    let mut observer = initialized(&mut world, changed_a);
    assert_eq!(observer.run((), &mut world), set([e]));
    system.run((), &mut world);
    assert_eq!(observer.run((), &mut world), set([e]), "the write of the system's third run");
    assert_eq!(world.get::<A>(e), Some(&A(3)));
    // Through a schedule: a system after the writer sees each run's write.
    let mut schedule = Schedule::new();
    world.init_resource::<Seen>();
    schedule.add_systems((bump_a, record_changed));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [set([e]), set([e])], "the recorder runs after the bump each time");
}

#[test]
fn mut_in_a_system_reports_is_changed_relative_to_the_previous_run() {
    fn report(mut q: Query<&mut A>) -> Vec<(bool, bool)> {
        q.iter_mut().map(|a| (a.is_added(), a.is_changed())).collect()
    }
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    let mut system = initialized(&mut world, report);
    assert_eq!(system.run((), &mut world), [(true, true)]);
    assert_eq!(system.run((), &mut world), [(false, false)]);
    world.get_mut::<A>(e).unwrap().0 = 5;
    assert_eq!(system.run((), &mut world), [(false, true)]);
    assert_eq!(system.run((), &mut world), [(false, false)], "reading through Mut does not mark it changed");
}

#[test]
fn res_is_changed_and_is_added_are_relative_to_the_systems_previous_run() {
    fn watch(score: Res<Score>) -> (bool, bool, u32) {
        (score.is_added(), score.is_changed(), score.0)
    }
    let mut world = World::new();
    world.insert_resource(Score(1));
    let mut system = initialized(&mut world, watch);
    assert_eq!(system.run((), &mut world), (true, true, 1), "first run");
    assert_eq!(system.run((), &mut world), (false, false, 1));
    world.resource_mut::<Score>().0 = 2;
    assert_eq!(system.run((), &mut world), (false, true, 2));
    assert_eq!(system.run((), &mut world), (false, false, 2));
    // Reading through resource_mut without writing marks nothing.
    let _ = world.resource_mut::<Score>().0;
    assert_eq!(system.run((), &mut world), (false, false, 2));
    world.insert_resource(Score(3)); // replacing counts as a fresh insert
    let (_, changed, value) = system.run((), &mut world);
    assert!(changed);
    assert_eq!(value, 3);
    assert_eq!(system.run((), &mut world), (false, false, 3));

    // Writes of a ResMut system in a schedule are seen by a later reader.
    let mut schedule = Schedule::new();
    schedule.add_systems((
        |mut score: ResMut<Score>, mut odd: Local<bool>| {
            *odd = !*odd;
            if *odd {
                score.0 += 1;
            }
        },
        |score: Res<Score>, mut log: ResMut<Log>| log.0.push(format!("{} {}", score.0, score.is_changed())),
    ));
    world.init_resource::<Log>();
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Log>().0, ["4 true", "4 false", "5 true", "5 false"]);
}

#[test]
fn res_mut_is_changed_is_relative_to_the_systems_previous_run() {
    fn watch(mut score: ResMut<Score>, mut runs: Local<u32>) -> (bool, bool) {
        *runs += 1;
        let before = (score.is_added(), score.is_changed());
        if *runs == 2 {
            score.0 += 1;
        }
        before
    }
    let mut world = World::new();
    world.insert_resource(Score(0));
    let mut system = initialized(&mut world, watch);
    assert_eq!(system.run((), &mut world), (true, true));
    assert_eq!(system.run((), &mut world), (false, false));
    assert_eq!(system.run((), &mut world), (false, false), "its own write of run 2");
    world.resource_mut::<Score>().0 = 7;
    assert_eq!(system.run((), &mut world), (false, true));
    assert_eq!(world.resource::<Score>(), &Score(7));
}

#[test]
fn what_commands_spawn_and_insert_is_added_on_the_next_run() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.init_resource::<Spawned>();
    let mut schedule = Schedule::new();
    schedule.add_systems((
        |q: Query<Entity, Added<A>>, mut seen: ResMut<Seen>| seen.0.push(q.iter().collect()),
        |mut commands: Commands, mut spawned: ResMut<Spawned>, mut runs: Local<u32>| {
            *runs += 1;
            if *runs == 1 {
                spawned.0 = Some(commands.spawn(A(1)).id());
            }
        },
    ));
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    let e = world.resource::<Spawned>().0.unwrap();
    assert_eq!(world.resource::<Seen>().0, [set([]), set([e]), set([])]);
}

#[test]
fn a_resource_inserted_by_commands_is_added_on_the_next_run() {
    let mut world = World::new();
    let mut system = initialized(&mut world, |score: Option<Res<Score>>, mut commands: Commands| {
        let out = score.as_ref().map(|s| (s.0, s.is_added()));
        if score.is_none() {
            commands.insert_resource(Score(5));
        }
        out
    });
    assert_eq!(system.run((), &mut world), None);
    assert_eq!(system.run((), &mut world), Some((5, true)));
    assert_eq!(system.run((), &mut world), Some((5, false)));
}

// ----- commands ----------------------------------------------------------------------

#[test]
fn commands_spawn_returns_an_id_usable_in_the_same_system() {
    let mut world = World::new();
    let before = world.entity_count();
    let (e, f) = world.run_system_once(|mut commands: Commands| {
        let e = commands.spawn((pos(1.0), Velocity::default())).id();
        commands.entity(e).insert(Enemy).insert(Stunned(2));
        let mut spawned = commands.spawn_empty();
        spawned.insert(A(7));
        let f = spawned.id();
        commands.entity(f).insert(Marker(e.index()));
        (e, f)
    });
    assert_ne!(e, f);
    assert_eq!(world.entity_count(), before + 2);
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert!(world.has::<Velocity>(e));
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    assert_eq!(world.get::<A>(f), Some(&A(7)));
    assert_eq!(world.get::<Marker>(f), Some(&Marker(e.index())));
    world.check_invariants();
}

#[test]
fn spawn_empty_through_commands_makes_an_alive_empty_entity() {
    let mut world = World::new();
    let e = world.run_system_once(|mut commands: Commands| commands.spawn_empty().id());
    assert!(world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
    assert!(!world.has::<A>(e));
    world.check_invariants();
}

#[test]
fn entity_commands_insert_remove_and_despawn() {
    let mut world = World::new();
    let e = world.spawn((A(1), B, Stunned(1))).id();
    let gone = world.spawn((A(2), C)).id();
    let keep = world.spawn(A(3)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert((Marker(1), C)).remove::<(B, Stunned)>().insert(A(10));
        commands.entity(gone).despawn();
    });
    assert_eq!(world.get::<A>(e), Some(&A(10)));
    assert_eq!(world.get::<Marker>(e), Some(&Marker(1)));
    assert!(world.has::<C>(e));
    assert!(!world.has::<B>(e));
    assert!(!world.has::<Stunned>(e));
    assert!(!world.is_alive(gone));
    assert_eq!(world.get::<A>(keep), Some(&A(3)));
    assert_eq!(world.entity_count(), 2);

    // Despawning a dead entity and removing absent components are no-ops.
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(gone).despawn();
        commands.entity(keep).remove::<(B, Marker)>();
    });
    assert_eq!(world.get::<A>(keep), Some(&A(3)));
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
}

#[test]
fn commands_insert_and_remove_resources() {
    let mut world = World::new();
    world.insert_resource(Time { dt: 1.0 });
    world.run_system_once(|mut commands: Commands| {
        commands.insert_resource(Score(1));
        commands.insert_resource(Score(2)); // replaces
        commands.remove_resource::<Time>();
        commands.remove_resource::<Missing>(); // absent: nothing happens
    });
    assert_eq!(world.get_resource::<Score>(), Some(&Score(2)));
    assert!(!world.contains_resource::<Time>());
    world.run_system_once(|mut commands: Commands| {
        commands.remove_resource::<Score>();
        commands.insert_resource(Score(3)); // after the removal: present again
    });
    assert_eq!(world.get_resource::<Score>(), Some(&Score(3)));
}

#[test]
fn commands_queue_closures_get_the_world_in_order() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(A(1)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("first".into()));
        commands.entity(e).insert(A(2)).queue(|world: &mut World, entity: Entity| {
            let value = world.get::<A>(entity).unwrap().0;
            world.resource_mut::<Log>().0.push(format!("entity sees {value}"));
            world.despawn(entity);
        });
        commands.queue(|world: &mut World| {
            let n = world.entity_count();
            world.resource_mut::<Log>().0.push(format!("{n} left"));
        });
    });
    assert_eq!(world.resource::<Log>().0, ["first", "entity sees 2", "0 left"]);
    assert!(!world.is_alive(e));
}

fn insert_score(score: u32) -> impl FnMut(Commands) + Send + Sync + 'static {
    move |mut commands: Commands| commands.insert_resource(Score(score))
}

#[test]
fn commands_apply_at_the_end_of_the_run_in_system_order() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let first = move |mut commands: Commands| {
        commands.insert_resource(Score(1));
        commands.entity(e).insert(Marker(1));
    };
    let second = move |score: Option<Res<Score>>, mut commands: Commands| {
        assert!(score.is_none(), "the first system's commands are not applied yet");
        commands.insert_resource(Score(2));
        commands.entity(e).insert(Marker(2));
    };
    let mut schedule = Schedule::new();
    schedule.add_systems((first, second));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(2));
    assert_eq!(world.get::<Marker>(e), Some(&Marker(2)));

    // Swapped: the other one wins.
    let mut world = World::new();
    let e2 = world.spawn_empty().id();
    assert_eq!(e, e2, "a fresh world hands out the same first id");
    let mut schedule = Schedule::new();
    schedule.add_systems((second, first));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(1));
    assert_eq!(world.get::<Marker>(e), Some(&Marker(1)));

    // Three systems, applied in order; insertion order of the schedule, not of the closures.
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((insert_score(3), insert_score(1))).add_systems(insert_score(2));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(2));
}

#[test]
fn commands_are_not_visible_to_later_systems_in_the_same_run() {
    #[derive(Resource, Default, Debug, PartialEq)]
    struct Observed(Vec<(usize, bool)>);
    fn spawner(mut commands: Commands, mut spawned: ResMut<Spawned>) {
        let e = commands.spawn(Marker(1)).id();
        spawned.0 = Some(e);
    }
    fn observer(q: Query<Entity, With<Marker>>, spawned: Res<Spawned>, mut observed: ResMut<Observed>) {
        let e = spawned.0.expect("the spawner ran first");
        observed.0.push((q.iter().count(), q.contains(e)));
    }
    let mut world = World::new();
    world.init_resource::<Spawned>();
    world.init_resource::<Observed>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, observer));
    schedule.run(&mut world);
    let first = world.resource::<Spawned>().0.unwrap();
    assert!(world.is_alive(first), "applied at the end of the run");
    schedule.run(&mut world);
    // Run 1: nothing yet. Run 2: the first spawn, not the second.
    assert_eq!(world.resource::<Observed>().0, [(0, false), (1, false)]);
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 2);
    world.check_invariants();
}

#[test]
fn a_reserved_entity_is_not_alive_in_the_system_that_reserved_it() {
    let mut world = World::new();
    let (e, alive, matched) = world.run_system_once(|mut commands: Commands, world: &World, q: Query<Entity>| {
        let e = commands.spawn(A(1)).id();
        (e, world.is_alive(e), q.get(e).is_ok())
    });
    assert!(!alive);
    assert!(!matched);
    assert!(world.is_alive(e));
    world.check_invariants();
}

#[test]
fn insert_on_an_entity_despawned_before_apply_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((
        move |mut commands: Commands| commands.entity(e).despawn(),
        move |mut commands: Commands| {
            commands.entity(e).insert(Marker(1));
        },
    ));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains(&format!("entity {e:?}:")), "{message}");
    assert!(message.contains("not alive"), "{message}");
    assert!(message.contains("Marker"), "{message}");
    assert!(!world.is_alive(e));

    // The same with a queue applied by hand, the entity despawned by the world.
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert(B);
    assert_eq!(queue.len(), 1);
    world.despawn(e);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains(&format!("entity {e:?}:")), "{message}");
    world.check_invariants();
}

#[test]
fn try_insert_on_a_dead_entity_does_nothing() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let alive = world.spawn(A(2)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).despawn();
        commands.entity(e).try_insert(Marker(1));
        commands.entity(alive).try_insert(Marker(2));
    });
    assert!(!world.is_alive(e));
    assert_eq!(world.get::<Marker>(alive), Some(&Marker(2)));
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1);
    world.check_invariants();
}

#[test]
fn reserved_ids_never_collide_with_ids_spawned_before_apply() {
    let mut world = World::new();
    // Leave dead slots behind, so reservations recycle some ids and mint others.
    let doomed: Vec<Entity> = (0..3).map(|i| world.spawn(A(i)).id()).collect();
    for &e in &doomed {
        world.despawn(e);
    }
    let mut queue = CommandQueue::default();
    let reserved: Vec<Entity> = {
        let mut commands = Commands::new(&mut queue, &world);
        (0..5).map(|i| commands.spawn(Marker(i)).id()).collect()
    };
    for e in &reserved {
        assert!(!world.is_alive(*e));
        assert!(!doomed.contains(e), "a stale handle is never handed out again");
    }
    let spawned: Vec<Entity> = (0..5).map(|i| world.spawn(A(100 + i)).id()).collect();
    let all: BTreeSet<Entity> = reserved.iter().chain(&spawned).copied().collect();
    assert_eq!(all.len(), 10, "reserved {reserved:?} and spawned {spawned:?} overlap");
    for e in &reserved {
        assert!(world.is_alive(*e), "spawn flushes reservations first");
        assert!(!world.has::<Marker>(*e), "but their commands did not run yet");
    }
    queue.apply(&mut world);
    assert!(queue.is_empty());
    for (i, e) in reserved.iter().enumerate() {
        assert_eq!(world.get::<Marker>(*e), Some(&Marker(i as u32)));
        assert!(!world.has::<A>(*e));
    }
    for (i, e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<A>(*e), Some(&A(100 + i as u32)));
        assert!(!world.has::<Marker>(*e));
    }
    assert_eq!(world.entity_count(), 10);
    world.check_invariants();
}

#[test]
fn reservations_of_several_systems_and_a_despawn_in_between_stay_distinct() {
    let mut world = World::new();
    let victim = world.spawn(A(0)).id();
    let mut first = CommandQueue::default();
    let mut second = CommandQueue::default();
    let a = Commands::new(&mut first, &world).spawn(Marker(1)).id();
    let b = Commands::new(&mut second, &world).spawn(Marker(2)).id();
    assert_ne!(a, b);
    world.despawn(victim); // flushes both reservations first
    let c = world.spawn(Marker(3)).id();
    assert_eq!(BTreeSet::from([a, b, c, victim]).len(), 4);
    second.apply(&mut world);
    first.apply(&mut world);
    assert_eq!(world.get::<Marker>(a), Some(&Marker(1)));
    assert_eq!(world.get::<Marker>(b), Some(&Marker(2)));
    assert_eq!(world.get::<Marker>(c), Some(&Marker(3)));
    assert_eq!(world.entity_count(), 3);
    world.check_invariants();
}

#[test]
fn run_system_applies_its_commands_before_returning() {
    let mut world = World::new();
    let e = world.run_system_once(|mut commands: Commands| {
        commands.insert_resource(Score(4));
        commands.spawn(A(4)).id()
    });
    assert_eq!(world.resource::<Score>(), &Score(4));
    assert_eq!(world.get::<A>(e), Some(&A(4)));
    // A system run by hand applies too (System::run).
    let mut system = initialized(&mut world, |mut commands: Commands| {
        commands.spawn(A(5));
    });
    system.run((), &mut world);
    system.run((), &mut world);
    assert_eq!(world.query::<&A>().iter(&world).count(), 3);
    world.check_invariants();
}

// ----- drops -------------------------------------------------------------------------

#[test]
fn components_inserted_and_despawned_by_commands_drop_exactly_once() {
    let log = DropLog::new();
    let tags_before = tag_drops();
    let mut world = World::new();
    world.init_resource::<Spawned>();
    let l1 = log.clone();
    let mut schedule = Schedule::new();
    schedule.add_systems(move |mut commands: Commands, mut spawned: ResMut<Spawned>, mut runs: Local<u32>| {
        *runs += 1;
        match *runs {
            1 => {
                let e = commands.spawn((l1.table(1), l1.sparse(2))).id();
                commands.entity(e).insert(DropTag).insert(l1.table(3)); // replaces 1
                spawned.0 = Some(e);
            }
            2 => {
                let e = spawned.0.unwrap();
                commands.entity(e).insert(l1.sparse(4)); // replaces 2
                commands.entity(e).remove::<DropTable>(); // drops 3
            }
            3 => {
                let e = spawned.0.unwrap();
                commands.entity(e).despawn(); // drops 4 and the tag
                let f = commands.spawn(l1.table(5)).id();
                commands.entity(f).despawn(); // spawned and despawned in one apply
            }
            _ => {}
        }
    });
    schedule.run(&mut world);
    log.assert_dropped_once([1]);
    schedule.run(&mut world);
    log.assert_dropped_once([1, 2, 3]);
    assert_eq!(tag_drops(), tags_before);
    schedule.run(&mut world);
    log.assert_dropped_once([1, 2, 3, 4, 5]);
    assert_eq!(tag_drops(), tags_before + 1);
    schedule.run(&mut world);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
    drop(schedule);
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 5]);
    assert_eq!(tag_drops(), tags_before + 1);
}

#[test]
fn unapplied_commands_drop_their_bundles_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = world.spawn_empty().id();
    {
        let mut queue = CommandQueue::default();
        let mut commands = Commands::new(&mut queue, &world);
        commands.spawn(log.table(1));
        commands.entity(e).insert(log.sparse(2));
        commands.insert_resource(Wrapper(log.table(3)));
        assert_eq!(queue.len(), 3);
    }
    log.assert_dropped_once([1, 2, 3]);
    assert!(!world.has::<DropSparse>(e));
    world.flush_entities(); // the reserved entity becomes alive, empty
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
}

#[test]
fn a_panicking_command_drops_the_rest_of_the_queue_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.spawn(log.table(1));
        commands.entity(dead).insert(log.table(2)); // panics when applied
        commands.spawn(log.table(3)); // never runs
        commands.entity(dead).try_insert(log.sparse(4)); // never runs
    }
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains(&format!("entity {dead:?}:")), "{message}");
    log.assert_dropped_once([2, 3, 4]);
    assert!(queue.is_empty());
    assert_eq!(world.query::<&DropTable>().iter(&world).map(|t| t.id).collect::<Vec<_>>(), [1]);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4]);
}

#[test]
fn try_insert_on_a_dead_entity_drops_the_bundle_once() {
    let log = DropLog::new();
    let mut world = World::new();
    let e = world.spawn(log.table(1)).id();
    let mut table = Some(log.table(2));
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).despawn();
        commands.entity(e).try_insert(table.take().expect("runs once"));
    });
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

// ----- the runtime access check ------------------------------------------------------

#[derive(Resource, Debug, PartialEq)]
struct Count(u32);

/// `Or<(With<B>, With<C>)>`, named for clippy's `type_complexity`.
type BOrC = Or<(With<B>, With<C>)>;

fn or_overlaps_unfiltered(_a: Query<&mut A, BOrC>, _b: Query<&mut A>) {}

fn or_overlaps_without_b(_a: Query<&mut A, BOrC>, _b: Query<&mut A, Without<B>>) {}

fn or_disjoint(mut a: Query<&mut A, BOrC>, mut b: Query<&mut A, (Without<B>, Without<C>)>) {
    for mut v in a.iter_mut() {
        v.0 += 100;
    }
    for mut v in b.iter_mut() {
        v.0 += 1;
    }
}

#[test]
fn an_or_filter_overlap_panics_at_initialization_naming_the_system_both_params_and_the_component() {
    let mut world = World::new();
    let e = world.spawn((A(1), B)).id();
    let message = panic_message(|| world.run_system_once(or_overlaps_unfiltered));
    assert!(message.contains("or_overlaps_unfiltered"), "{message}");
    assert!(message.contains("#0") && message.contains("#1"), "{message}");
    assert!(message.contains("conflict on A"), "{message}");
    assert!(
        message.ends_with(
            "Query<&mut A, Or<(With<B>, With<C>)>> vs Query<&mut A>; \
             make them disjoint with With<T>/Without<T> or merge them into one query"
        ),
        "{message}"
    );
    assert_eq!(world.get::<A>(e), Some(&A(1)));

    // Without<B> alone leaves the With<C> branch overlapping.
    let message = panic_message(|| world.run_system_once(or_overlaps_without_b));
    assert!(message.contains("or_overlaps_without_b"), "{message}");
    assert!(message.contains("#0") && message.contains("#1") && message.contains(" A"), "{message}");

    // Initializing by hand panics the same way.
    let message = panic_message(|| initialized(&mut world, or_overlaps_unfiltered));
    assert!(message.contains("or_overlaps_unfiltered"), "{message}");
}

#[test]
fn a_runtime_conflict_in_a_schedule_panics_before_any_system_runs() {
    let mut world = World::new();
    world.insert_resource(Count(0));
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut count: ResMut<Count>| count.0 += 1, or_overlaps_unfiltered));
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("or_overlaps_unfiltered") && message.contains("#0"), "{message}");
    assert_eq!(world.resource::<Count>(), &Count(0), "systems are all initialized before any runs");
}

#[test]
fn or_filters_disjoint_from_without_both_run() {
    let mut world = World::new();
    let b = world.spawn((A(1), B)).id();
    let c = world.spawn((A(2), C)).id();
    let bc = world.spawn((A(3), B, C)).id();
    let plain = world.spawn(A(4)).id();
    let other = world.spawn((A(5), Marker(0))).id();
    world.run_system_once(or_disjoint);
    let mut schedule = Schedule::new();
    schedule.add_systems(or_disjoint);
    schedule.run(&mut world);
    let values: Vec<u32> = [b, c, bc, plain, other].iter().map(|&e| world.get::<A>(e).unwrap().0).collect();
    assert_eq!(values, [201, 202, 203, 6, 7]);
    let mut system = initialized(&mut world, or_disjoint);
    assert_eq!(system.access().units().len(), 2);
    assert!(system.access().first_conflict().is_none());
    system.run((), &mut world);
    assert_eq!(world.get::<A>(bc), Some(&A(303)));
}

#[test]
fn generic_resources_are_checked_at_initialization() {
    fn alias(_a: ResMut<Wrapper<u32>>, _b: Res<Wrapper<u32>>) {}
    fn distinct(mut a: ResMut<Wrapper<u32>>, b: Res<Wrapper<u64>>) {
        a.0 += b.0 as u32;
    }
    let mut world = World::new();
    world.insert_resource(Wrapper(1_u32));
    world.insert_resource(Wrapper(10_u64));
    let message = panic_message(|| world.run_system_once(alias));
    assert!(message.contains("alias"), "{message}");
    assert!(message.contains("#0") && message.contains("#1"), "{message}");
    assert!(message.contains("resource"), "{message}");
    assert!(message.contains("Wrapper"), "{message}");
    world.run_system_once(distinct);
    assert_eq!(world.resource::<Wrapper<u32>>(), &Wrapper(11));
}

#[test]
fn system_access_compatibility() {
    fn read_a(_q: Query<&A>) {}
    fn read_a_too(_q: Query<(Entity, &A)>) {}
    fn write_a(_q: Query<&mut A>) {}
    fn write_a_with_b(_q: Query<&mut A, With<B>>) {}
    fn write_a_without_b(_q: Query<&mut A, Without<B>>) {}
    fn write_a_or(_q: Query<&mut A, BOrC>) {}
    fn write_a_neither(_q: Query<&mut A, (Without<B>, Without<C>)>) {}
    fn read_b(_q: Query<&B>) {}
    fn score_mut(_s: ResMut<Score>) {}
    fn score(_s: Res<Score>) {}
    fn score_too(_s: Res<Score>) {}
    fn time_mut(_t: ResMut<Time>) {}
    fn world_reader(_w: &World) {}
    fn only_commands(_c: Commands, _l: Local<u32>) {}

    let mut world = World::new();
    let read_a = initialized(&mut world, read_a);
    let read_a_too = initialized(&mut world, read_a_too);
    let write_a = initialized(&mut world, write_a);
    let write_a_with_b = initialized(&mut world, write_a_with_b);
    let write_a_without_b = initialized(&mut world, write_a_without_b);
    let write_a_or = initialized(&mut world, write_a_or);
    let write_a_neither = initialized(&mut world, write_a_neither);
    let read_b = initialized(&mut world, read_b);
    let score_mut = initialized(&mut world, score_mut);
    let score = initialized(&mut world, score);
    let score_too = initialized(&mut world, score_too);
    let time_mut = initialized(&mut world, time_mut);
    let world_reader = initialized(&mut world, world_reader);
    let only_commands = initialized(&mut world, only_commands);

    let compatible = |a: &dyn System<In = (), Out = ()>, b: &dyn System<In = (), Out = ()>| {
        let forward = a.access().is_compatible(b.access());
        assert_eq!(forward, b.access().is_compatible(a.access()), "{} vs {}", a.name(), b.name());
        forward
    };
    assert!(compatible(&read_a, &read_a_too), "reader / reader");
    assert!(!compatible(&write_a, &read_a), "writer / reader of A");
    assert!(!compatible(&write_a, &write_a), "writer / writer of A");
    assert!(compatible(&write_a, &read_b), "writer of A / reader of B");
    assert!(compatible(&write_a_with_b, &write_a_without_b), "With<B> / Without<B> writers");
    assert!(!compatible(&write_a_with_b, &write_a), "With<B> writer / unfiltered writer");
    assert!(compatible(&write_a_or, &write_a_neither), "Or / neither");
    assert!(!compatible(&write_a_or, &write_a_without_b), "Or overlaps Without<B> through C");
    assert!(!compatible(&score_mut, &score), "ResMut / Res");
    assert!(compatible(&score, &score_too), "Res / Res");
    assert!(compatible(&score_mut, &time_mut), "different resources");
    assert!(compatible(&score_mut, &write_a), "a resource and a component");
    assert!(compatible(&world_reader, &read_a), "&World / reader");
    assert!(!compatible(&world_reader, &write_a), "&World / component writer");
    assert!(!compatible(&world_reader, &score_mut), "&World / resource writer");
    assert!(compatible(&only_commands, &write_a), "Commands and Local borrow no data");
    assert!(compatible(&only_commands, &world_reader));
    assert!(!compatible(&only_commands, &only_commands), "two systems reserving entity ids are ordered");
    assert_eq!(only_commands.access().units().len(), 1, "the entity reservation unit");
    assert!(!only_commands.access().writes_anything());
    assert!(write_a.access().writes_anything());
    assert!(score_mut.access().writes_anything());
    assert!(!world_reader.access().writes_anything());
    assert!(!read_a.access().writes_anything());
}

#[test]
fn runtime_units_are_numbered_and_labelled_by_parameter() {
    fn params(_c: Commands, _q: Query<&mut A, With<B>>, _s: Res<Score>, _l: Local<u8>, _w: Option<ResMut<Time>>) {}
    let mut world = World::new();
    let system = initialized(&mut world, params);
    let units: Vec<usize> = system.access().units().iter().map(|u| u.param).collect();
    // `Commands` declares its entity reservations (ordered between systems).
    assert_eq!(units, [0, 1, 2, 4]);
    let labels: Vec<&str> = system.access().units().iter().map(|u| u.label.as_str()).collect();
    assert_eq!(labels[..2], ["Commands", "Query<&mut A, With<B>>"]);
    assert_eq!(labels[2..], ["Res<Score>", "ResMut<Time>"]);
    assert!(system.name().ends_with("params"), "{}", system.name());
}

#[test]
fn runtime_labels_of_queries_have_no_lifetimes() {
    fn params(_q: Query<&mut A, With<B>>, _r: Query<&A, Without<B>>) {}
    let mut world = World::new();
    let system = initialized(&mut world, params);
    let labels: Vec<&str> = system.access().units().iter().map(|u| u.label.as_str()).collect();
    assert_eq!(labels, ["Query<&mut A, With<B>>", "Query<&A, Without<B>>"]);
    let message = panic_message(|| world.run_system_once(or_overlaps_unfiltered));
    assert!(message.contains(": Query<&mut A, Or<(With<B>, With<C>)>> vs Query<&mut A>;"), "{message}");
}

#[test]
fn a_system_initialized_on_one_world_panics_when_run_on_another() {
    let mut first = World::new();
    let mut second = World::new();
    let e = second.spawn(A(0)).id();
    let mut system = initialized(&mut first, bump_a);
    let message = panic_message(|| system.run((), &mut second));
    assert!(message.contains("used with a world other than the one it was built for"), "{message}");
    assert_eq!(second.get::<A>(e), Some(&A(0)));
}

#[test]
fn initializing_a_system_twice_is_harmless() {
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    let mut system = initialized(&mut world, bump_a);
    assert_eq!(system.access().units().len(), 1);
    system.initialize(&mut world);
    assert_eq!(system.access().units().len(), 1);
    system.run((), &mut world);
    assert_eq!(world.get::<A>(e), Some(&A(1)));
}

// ----- disjoint combinations from the API contract ----------------------------------

#[test]
fn with_and_without_writers_move_both_sets() {
    fn ok(mut a: Query<&mut Position, With<Enemy>>, mut b: Query<&mut Position, Without<Enemy>>) {
        for mut p in a.iter_mut() {
            p.x += 1.0;
        }
        for mut p in b.iter_mut() {
            p.y -= 1.0;
        }
    }
    let mut world = World::new();
    let enemies: Vec<Entity> = (0..3).map(|i| world.spawn((pos(i as f32), Enemy)).id()).collect();
    let others: Vec<Entity> = (0..2).map(|i| world.spawn((pos(10.0 + i as f32), Velocity::default())).id()).collect();
    let sparse_enemy = world.spawn((pos(50.0), Enemy, Stunned(1))).id();
    world.run_system_once(ok);
    let mut schedule = Schedule::new();
    schedule.add_systems(ok);
    schedule.run(&mut world);
    for (i, &e) in enemies.iter().enumerate() {
        assert_eq!(world.get::<Position>(e), Some(&Position { x: i as f32 + 2.0, y: 0.0 }));
    }
    for (i, &e) in others.iter().enumerate() {
        assert_eq!(world.get::<Position>(e), Some(&Position { x: 10.0 + i as f32, y: -2.0 }));
    }
    assert_eq!(world.get::<Position>(sparse_enemy), Some(&Position { x: 52.0, y: 0.0 }));
    world.check_invariants();
}

#[test]
fn two_readers_of_one_component() {
    fn readers(a: Query<&Position>, b: Query<(Entity, &Position), With<Enemy>>) -> (f32, usize) {
        (a.iter().map(|p| p.x).sum(), b.iter().count())
    }
    let mut world = World::new();
    world.spawn((pos(1.0), Enemy));
    world.spawn(pos(2.0));
    assert_eq!(world.run_system_once(readers), (3.0, 1));
}

#[test]
fn a_writer_of_one_component_and_a_reader_of_another() {
    fn copy_b(mut a: Query<(&mut A, &Marker)>, b: Query<&Marker>) {
        let total: u32 = b.iter().map(|m| m.0).sum();
        for (mut a, m) in a.iter_mut() {
            a.0 = m.0 + total;
        }
    }
    let mut world = World::new();
    let e = world.spawn((A(0), Marker(1))).id();
    let f = world.spawn((A(0), Marker(2))).id();
    world.spawn(Marker(10));
    world.run_system_once(copy_b);
    assert_eq!(world.get::<A>(e), Some(&A(14)));
    assert_eq!(world.get::<A>(f), Some(&A(15)));
    // And the plain form from the brief: Query<&mut A> + Query<&B>.
    world.insert(e, B);
    let n = world.run_system_once(|mut a: Query<&mut A>, b: Query<&B>| {
        for mut a in a.iter_mut() {
            a.0 += 1;
        }
        b.iter().count()
    });
    assert_eq!(n, 1);
    assert_eq!(world.get::<A>(f), Some(&A(16)));
}

#[test]
fn two_res_readers_of_one_resource() {
    fn both(a: Res<Score>, b: Res<Score>, c: Option<Res<Score>>) -> u32 {
        a.0 + b.0 + c.map_or(0, |c| c.0)
    }
    let mut world = World::new();
    world.insert_resource(Score(2));
    assert_eq!(world.run_system_once(both), 6);
    let mut schedule = Schedule::new();
    schedule.add_systems((|a: Res<Score>, b: Res<Score>| assert_eq!(a.0, b.0), |mut s: ResMut<Score>| s.0 += 1));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(4));
}
