//! Acceptance tests for API.md "Systems and schedules", "The game loop: messages,
//! sync points, one-shot systems, conveniences" and the runtime side of
//! "Compile-time safety": every claim of those sections, spelled with exactly the
//! names API.md shows, plus a handful of bevy_ecs tests ported onto those names.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use ecs::prelude::*;

// ---------------------------------------------------------------------------
// The types API.md uses
// ---------------------------------------------------------------------------

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
struct Enemy;
#[derive(Component)]
struct Player;
#[derive(Component, Debug, PartialEq)]
struct Health(f32);
#[derive(Component)]
struct Ship;
#[derive(Component)]
struct Turret;

#[derive(Resource, Default)]
struct Time {
    dt: f32,
}
#[derive(Resource, Default, Debug, PartialEq)]
struct Total(u32);
#[derive(Resource, Default)]
struct Config;
#[derive(Resource, Default)]
struct Paused(bool);
#[derive(Resource, Default, Debug)]
struct Log(Vec<&'static str>);
#[derive(Resource, Default, Debug)]
struct Counter(u32);

#[derive(Message, Debug, Clone, PartialEq)]
struct Scored {
    points: u32,
}

#[derive(Event)]
struct Explode {
    radius: f32,
}

#[derive(Relationship)]
struct Likes;

/// A log shared without a `ResMut`, so that systems writing it do not conflict
/// (ordering between them then comes only from the schedule's constraints).
#[derive(Resource, Default, Clone)]
struct Trace(Arc<Mutex<Vec<&'static str>>>);

impl Trace {
    fn push(&self, name: &'static str) {
        self.0.lock().unwrap().push(name);
    }
    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn log(world: &mut World) -> Vec<&'static str> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

// ---------------------------------------------------------------------------
// Systems and schedules
// ---------------------------------------------------------------------------

fn movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
    for (mut p, v) in q.iter_mut() {
        p.x += v.x * time.dt;
    }
}

fn spawner(mut commands: Commands) {
    let e = commands.spawn((Position::default(),)).id();
    commands.entity(e).insert(Enemy);
}

fn world_with_time(dt: f32) -> World {
    let mut world = World::new();
    world.insert_resource(Time { dt });
    world
}

#[test]
fn movement_system_reads_res_and_writes_through_query_iter_mut() {
    let mut world = world_with_time(0.5);
    let e = world.spawn((Position::default(), Velocity { x: 2.0, y: 0.0 })).id();
    let still = world.spawn((Position { x: 7.0, y: 0.0 },)).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(movement);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 2.0, y: 0.0 }));
    assert_eq!(world.get::<Position>(still), Some(&Position { x: 7.0, y: 0.0 }));
}

#[test]
fn spawner_commands_spawn_id_then_entity_insert_apply_by_the_end_of_run() {
    let mut world = world_with_time(1.0);
    let mut schedule = Schedule::new();
    schedule.add_systems(spawner);
    schedule.run(&mut world);
    let mut q = world.query_filtered::<&Position, With<Enemy>>();
    assert_eq!(q.iter(&world).count(), 1, "spawn and the later insert through commands.entity(id) both applied");
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn spawner_after_movement_spawns_after_movement_ran() {
    let mut world = world_with_time(1.0);
    world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 }));
    let mut schedule = Schedule::new();
    schedule.add_systems((movement, spawner.after(movement)));
    schedule.run(&mut world);
    // The new enemy has no Velocity, so movement never moves it; the mover moved once.
    let mut movers = world.query_filtered::<&Position, With<Velocity>>();
    assert_eq!(movers.iter(&world).map(|p| p.x).collect::<Vec<_>>(), [1.0]);
    let mut enemies = world.query_filtered::<&Position, With<Enemy>>();
    assert_eq!(enemies.iter(&world).count(), 1);
    schedule.run(&mut world);
    assert_eq!(enemies.iter(&world).count(), 2);
    assert_eq!(movers.iter(&world).map(|p| p.x).collect::<Vec<_>>(), [2.0]);
}

#[test]
fn a_system_added_after_another_sees_its_spawned_entities_in_the_same_run() {
    // spawner.after(movement) is reversed here: a counter after the spawner.
    fn counter(q: Query<&Enemy>, mut total: ResMut<Total>) {
        total.0 = q.iter().count() as u32;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((counter.after(spawner), spawner));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1, "auto sync before a system ordered after a command system");
}

fn trace_a(trace: Res<Trace>) {
    trace.push("a");
}
fn trace_b(trace: Res<Trace>) {
    trace.push("b");
}
fn trace_c(trace: Res<Trace>) {
    trace.push("c");
}

#[test]
fn chain_runs_non_conflicting_systems_in_tuple_order() {
    let mut world = World::new();
    let trace = Trace::default();
    world.insert_resource(trace.clone());
    let mut schedule = Schedule::new();
    schedule.add_systems((trace_c, trace_a, trace_b).chain());
    for _ in 0..20 {
        schedule.run(&mut world);
        assert_eq!(trace.take(), ["c", "a", "b"]);
    }
}

#[test]
fn before_and_after_between_non_conflicting_systems_are_respected() {
    let mut world = World::new();
    let trace = Trace::default();
    world.insert_resource(trace.clone());
    let mut schedule = Schedule::new();
    schedule.add_systems((trace_a.after(trace_b), trace_b.after(trace_c), trace_c));
    for _ in 0..20 {
        schedule.run(&mut world);
        assert_eq!(trace.take(), ["c", "b", "a"]);
    }
    let mut schedule = Schedule::new();
    schedule.add_systems((trace_a, trace_b.before(trace_a), trace_c.before(trace_b)));
    schedule.run(&mut world);
    assert_eq!(trace.take(), ["c", "b", "a"]);
}

#[test]
fn add_systems_can_be_called_repeatedly_and_every_system_runs_each_run() {
    let mut world = World::new();
    let trace = Trace::default();
    world.insert_resource(trace.clone());
    let mut schedule = Schedule::new();
    schedule.add_systems(trace_a);
    schedule.add_systems((trace_b, trace_c).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    let mut seen = trace.take();
    seen.sort_unstable();
    assert_eq!(seen, ["a", "a", "b", "b", "c", "c"]);
}

#[test]
fn commands_of_unordered_systems_apply_at_the_end_of_the_run_in_system_order() {
    fn first(mut commands: Commands) {
        commands.insert_resource(Total(1));
    }
    fn second(mut commands: Commands) {
        commands.insert_resource(Total(2));
    }
    fn third(mut commands: Commands, mut seen: ResMut<Counter>, total: Option<Res<Total>>) {
        // Unordered: none of the others' commands are visible during the run.
        if total.is_some() {
            seen.0 += 1;
        }
        commands.insert_resource(Total(3));
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((second, third, first));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
    // Applied in system (insertion) order: second, third, first -> first's value wins.
    assert_eq!(world.resource::<Total>(), &Total(1));
}

#[test]
fn local_state_is_per_system_and_persists_between_runs() {
    fn tick(mut n: Local<u32>, mut total: ResMut<Total>) {
        *n += 1;
        total.0 = total.0 * 10 + *n;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems(tick);
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 123);
}

#[test]
fn world_param_reads_the_world_in_a_schedule() {
    fn census(world: &World, mut commands: Commands) {
        let n = world.entity_count() as u32;
        let dt = world.resource::<Time>().dt;
        commands.insert_resource(Total(n * 100 + dt as u32));
    }
    let mut world = world_with_time(3.0);
    world.spawn(Enemy);
    world.spawn(Enemy);
    let mut schedule = Schedule::new();
    schedule.add_systems(census);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 203);
}

#[test]
fn world_param_system_runs_after_an_ordered_writer_and_sees_its_writes() {
    fn write(mut q: Query<&mut Position>) {
        for mut p in q.iter_mut() {
            p.x += 1.0;
        }
    }
    fn read(world: &World, target: Res<Target>, mut commands: Commands) {
        let x = world.get::<Position>(target.0).map_or(0, |p| p.x as u32);
        commands.insert_resource(Total(x));
    }
    #[derive(Resource, Clone, Copy)]
    struct Target(Entity);
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    world.insert_resource(Target(e));
    let mut schedule = Schedule::new();
    schedule.add_systems((write, read).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2);
}

#[test]
fn query_get_get_mut_and_single_in_a_system() {
    #[derive(Resource)]
    struct Target(Entity);
    fn sys(mut q: Query<&mut Position>, player: Query<Entity, With<Player>>, target: Res<Target>) -> (bool, bool) {
        let before = q.get(target.0).map(|p| p.x).unwrap_or(-1.0);
        if let Ok(mut p) = q.get_mut(target.0) {
            p.x = before + 10.0;
        }
        let single_ok = player.single().is_ok();
        let missing = q.get(Entity::WILDCARD).is_err();
        (single_ok, missing)
    }
    let mut world = World::new();
    let e = world.spawn((Position { x: 1.0, y: 0.0 }, Player)).id();
    world.insert_resource(Target(e));
    assert_eq!(world.run_system_once(sys), (true, true));
    assert_eq!(world.get::<Position>(e).unwrap().x, 11.0);
    world.spawn((Position::default(), Player));
    assert_eq!(world.run_system_once(sys), (false, true), "single() with two matches is an Err");
}

#[test]
fn single_in_a_system_errs_on_none() {
    let mut world = World::new();
    let none = world.run_system_once(|q: Query<&Position>| q.single().is_err());
    assert!(none);
    world.spawn(Position { x: 4.0, y: 0.0 });
    let one = world.run_system_once(|q: Query<&Position>| q.single().map(|p| p.x));
    assert_eq!(one.ok(), Some(4.0));
}

#[test]
fn par_iter_mut_for_each_writes_every_row() {
    fn double(mut q: Query<&mut Position>) {
        q.par_iter_mut().for_each(|mut p| p.x *= 2.0);
    }
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..500).map(|i| (Position { x: i as f32, y: 0.0 },))).collect();
    let mut schedule = Schedule::new();
    schedule.add_systems(double);
    schedule.run(&mut world);
    for (i, e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Position>(*e).unwrap().x, 2.0 * i as f32);
    }
}

#[test]
fn for_loops_over_ref_and_mut_ref_of_a_system_query() {
    fn bump(mut q: Query<&mut Position>) {
        for mut p in &mut q {
            p.y += 1.0;
        }
    }
    fn sum(q: Query<&Position>) -> f32 {
        let mut s = 0.0;
        for p in &q {
            s += p.y;
        }
        s
    }
    let mut world = World::new();
    world.spawn(Position::default());
    world.spawn(Position::default());
    world.spawn(Velocity::default());
    world.run_system_once(bump);
    world.run_system_once(bump);
    assert_eq!(world.run_system_once(sum), 4.0);
}

#[test]
fn to_dot_names_each_system_and_the_ordering_edge() {
    fn dot_alpha() {}
    fn dot_beta() {}
    fn dot_gamma() {}
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(((dot_alpha, dot_beta).chain(), dot_gamma));
    schedule.run(&mut world);
    let dot = schedule.to_dot();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    for name in ["dot_alpha", "dot_beta", "dot_gamma"] {
        assert!(dot.contains(name), "{name} missing from {dot}");
    }
    assert!(dot.contains("->"), "the chain's edge is drawn: {dot}");
    // dot_gamma is unordered and conflicts with nothing: no edge touches it.
    let gamma_node =
        dot.lines().find(|l| l.contains("dot_gamma")).and_then(|l| l.split_whitespace().next()).unwrap().to_owned();
    let edges_with_gamma =
        dot.lines().filter(|l| l.contains("->") && l.split(['-', '>', ' ', ';', '[']).any(|t| t == gamma_node)).count();
    assert_eq!(edges_with_gamma, 0, "{dot}");
}

#[test]
fn to_dot_before_any_run_is_still_a_graph() {
    fn lonely() {}
    let mut schedule = Schedule::new();
    schedule.add_systems(lonely);
    let dot = schedule.to_dot();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.contains("lonely"), "{dot}");
}

// ---------------------------------------------------------------------------
// System sets (bevy_ecs schedule::tests, ported)
// ---------------------------------------------------------------------------

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
enum Phase {
    Early,
    Late,
}

#[test]
fn bevy_configure_sets_chain_orders_members_of_sets() {
    let mut world = World::new();
    let trace = Trace::default();
    world.insert_resource(trace.clone());
    let mut schedule = Schedule::new();
    schedule.configure_sets((Phase::Early, Phase::Late).chain());
    schedule.add_systems((trace_a.in_set(Phase::Late), trace_b.in_set(Phase::Early)));
    for _ in 0..10 {
        schedule.run(&mut world);
        assert_eq!(trace.take(), ["b", "a"]);
    }
}

#[test]
fn bevy_run_if_on_a_set_guards_every_member() {
    let mut world = World::new();
    world.insert_resource(Paused(true));
    let trace = Trace::default();
    world.insert_resource(trace.clone());
    let mut schedule = Schedule::new();
    schedule.configure_sets(Phase::Early.run_if(not(paused)));
    schedule.add_systems(((trace_a, trace_b).in_set(Phase::Early), trace_c));
    schedule.run(&mut world);
    assert_eq!(trace.take(), ["c"]);
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world);
    let mut seen = trace.take();
    seen.sort_unstable();
    assert_eq!(seen, ["a", "b", "c"]);
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

fn score(mut w: MessageWriter<Scored>) {
    w.write(Scored { points: 1 });
}

fn tally(mut r: MessageReader<Scored>, mut t: ResMut<Total>) {
    for m in r.read() {
        t.0 += m.points;
    }
}

fn message_world() -> World {
    let mut world = World::new();
    world.add_message::<Scored>();
    world.init_resource::<Total>();
    world
}

#[test]
fn add_message_registers_the_messages_resource() {
    let mut world = World::new();
    assert!(world.get_resource::<Messages<Scored>>().is_none());
    world.add_message::<Scored>();
    assert!(world.get_resource::<Messages<Scored>>().is_some());
    assert!(world.resource::<Messages<Scored>>().is_empty());
}

#[test]
fn add_message_is_idempotent_and_keeps_queued_messages() {
    let mut world = World::new();
    world.add_message::<Scored>();
    assert!(world.write_message(Scored { points: 2 }));
    world.add_message::<Scored>();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1, "a second add_message must not reset the buffer");
    // And update_messages still ages it exactly once per call (not twice).
    world.update_messages();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    world.update_messages();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 0);
}

#[test]
fn write_message_returns_false_until_the_type_is_added() {
    let mut world = World::new();
    assert!(!world.write_message(Scored { points: 2 }));
    assert!(world.get_resource::<Messages<Scored>>().is_none(), "a refused write adds nothing");
    world.add_message::<Scored>();
    assert!(world.write_message(Scored { points: 2 }));
    let total: u32 = world.resource::<Messages<Scored>>().iter().map(|m| m.points).sum();
    assert_eq!(total, 2);
}

#[test]
fn score_and_tally_chained_sum_the_messages() {
    let mut world = message_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((score, tally).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
    world.update_messages();
    schedule.run(&mut world);
    world.update_messages();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 3, "each message counted once although each lives two updates");
}

#[test]
fn world_written_messages_reach_a_reader_system() {
    let mut world = message_world();
    world.write_message(Scored { points: 2 });
    world.write_message(Scored { points: 5 });
    let mut schedule = Schedule::new();
    schedule.add_systems(tally);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 7);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 7, "a reader sees each message once");
}

#[test]
fn a_message_lives_for_two_updates_exactly() {
    let mut world = message_world();
    world.write_message(Scored { points: 1 });
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    world.update_messages();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1, "still readable after one update");
    // A reader created now (after one update) still gets it.
    let id = world.register_system(tally);
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Total>().0, 1);
    world.update_messages();
    assert_eq!(world.resource::<Messages<Scored>>().len(), 0, "dropped after the second update");
    let late = world.run_system_once(|mut r: MessageReader<Scored>| r.read().count());
    assert_eq!(late, 0);
}

#[test]
fn reader_running_every_frame_sees_each_message_once_whatever_the_frame_it_was_written() {
    let mut world = message_world();
    let mut schedule = Schedule::new();
    // Reader before the writer: it sees a frame's messages on the next frame.
    schedule.add_systems((tally, score.after(tally)));
    let mut totals = Vec::new();
    for _ in 0..5 {
        schedule.run(&mut world);
        world.update_messages();
        totals.push(world.resource::<Total>().0);
    }
    assert_eq!(totals, [0, 1, 2, 3, 4]);
}

#[test]
fn a_reader_that_skips_one_frame_misses_nothing_two_frames_loses_the_oldest() {
    let mut world = message_world();
    let reader = world.register_system(tally);
    world.write_message(Scored { points: 1 });
    world.update_messages();
    world.write_message(Scored { points: 10 });
    world.run_system(reader).unwrap();
    assert_eq!(world.resource::<Total>().0, 11);

    world.write_message(Scored { points: 100 });
    world.update_messages();
    world.write_message(Scored { points: 1000 });
    world.update_messages();
    world.update_messages();
    world.run_system(reader).unwrap();
    assert_eq!(world.resource::<Total>().0, 11, "both dropped after two updates each");
}

#[test]
fn bevy_a_new_reader_reads_messages_written_before_it_existed() {
    let mut world = message_world();
    world.write_message(Scored { points: 3 });
    world.write_message(Scored { points: 4 });
    let seen = world.run_system_once(|mut r: MessageReader<Scored>| r.read().map(|m| m.points).collect::<Vec<_>>());
    assert_eq!(seen, [3, 4], "in write order");
}

#[test]
fn message_writer_write_adds_in_order() {
    let mut world = message_world();
    world.run_system_once(|mut w: MessageWriter<Scored>| {
        w.write(Scored { points: 1 });
        w.write(Scored { points: 2 });
        w.write(Scored { points: 3 });
    });
    let points: Vec<u32> = world.resource::<Messages<Scored>>().iter().map(|m| m.points).collect();
    assert_eq!(points, [1, 2, 3]);
}

#[test]
fn two_independent_readers_each_see_each_message() {
    #[derive(Resource, Default)]
    struct Other(u32);
    fn other(mut r: MessageReader<Scored>, mut o: ResMut<Other>) {
        o.0 += r.read().map(|m| m.points).sum::<u32>();
    }
    let mut world = message_world();
    world.init_resource::<Other>();
    let mut schedule = Schedule::new();
    schedule.add_systems((score, (tally, other).after(score)));
    for _ in 0..3 {
        schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Total>().0, 3);
    assert_eq!(world.resource::<Other>().0, 3);
}

#[test]
fn message_mutator_reads_with_mut_and_later_readers_see_the_change() {
    fn doubler(mut m: MessageMutator<Scored>) {
        for s in m.read() {
            s.points *= 2;
        }
    }
    let mut world = message_world();
    world.write_message(Scored { points: 4 });
    let mut schedule = Schedule::new();
    schedule.add_systems((doubler, tally).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 8);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 8, "the mutator too sees each message once");
}

#[test]
fn a_system_with_message_params_adds_the_message_type() {
    #[derive(Message)]
    struct Unadded(u8);
    let mut world = World::new();
    world.run_system_once(|mut w: MessageWriter<Unadded>| w.write(Unadded(1)));
    assert_eq!(world.resource::<Messages<Unadded>>().iter().map(|m| m.0).collect::<Vec<_>>(), [1]);
    assert!(world.write_message(Unadded(2)));
}

#[test]
fn commands_write_message_applies_at_the_sync_point() {
    fn send(mut commands: Commands) {
        commands.write_message(Scored { points: 9 });
    }
    let mut world = message_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((send, tally).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 9);
}

#[test]
fn bevy_message_reader_len_and_is_empty() {
    let mut world = message_world();
    world.write_message(Scored { points: 1 });
    world.write_message(Scored { points: 2 });
    let reader = world.register_system(|mut r: MessageReader<Scored>| {
        let before = (r.len(), r.is_empty());
        let read = r.read().count();
        (before, read, r.len(), r.is_empty())
    });
    assert_eq!(world.run_system(reader), Ok(((2, false), 2, 0, true)));
    assert_eq!(world.run_system(reader), Ok(((0, true), 0, 0, true)));
}

#[test]
fn bevy_message_reader_clear_marks_all_read() {
    let mut world = message_world();
    world.write_message(Scored { points: 1 });
    let reader = world.register_system(|mut r: MessageReader<Scored>, mut calls: Local<u32>| {
        *calls += 1;
        if *calls == 1 {
            r.clear();
            0
        } else {
            r.read().count()
        }
    });
    assert_eq!(world.run_system(reader), Ok(0));
    world.write_message(Scored { points: 2 });
    assert_eq!(world.run_system(reader), Ok(1), "only the message written after clear");
}

// ---------------------------------------------------------------------------
// Sync points
// ---------------------------------------------------------------------------

fn counter(q: Query<&Enemy>, mut total: ResMut<Total>) {
    total.0 = q.iter().count() as u32;
}

#[test]
fn spawner_counter_chain_sees_the_spawn_in_the_same_run() {
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2);
}

#[test]
fn auto_sync_also_applies_before_an_exclusive_system_ordered_after() {
    fn exclusive_counter(world: &mut World) {
        let n = world.query::<&Enemy>().iter(world).count() as u32;
        world.resource_mut::<Total>().0 = n;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, exclusive_counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[test]
fn auto_sync_reaches_a_system_ordered_after_transitively() {
    fn middle(trace: Res<Trace>) {
        trace.push("middle");
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    world.insert_resource(Trace::default());
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, middle, counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[test]
fn unordered_systems_commands_are_applied_at_the_end_of_the_run_only() {
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, counter));
    schedule.run(&mut world);
    // The counter was not ordered after the spawner: whatever it saw, the
    // entity exists once the run is over.
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 1);
    schedule.run(&mut world);
    assert!(world.resource::<Total>().0 >= 1);
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 2);
}

#[test]
fn set_auto_sync_false_defers_commands_to_the_end_of_the_run() {
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.set_auto_sync(false);
    schedule.add_systems((spawner, counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 0, "no sync point between them");
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 1, "still applied at the end of run");
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[test]
fn explicit_apply_deferred_syncs_with_auto_sync_off() {
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.set_auto_sync(false);
    schedule.add_systems((spawner, ApplyDeferred, counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[test]
fn set_auto_sync_false_also_skips_the_sync_before_exclusive_systems() {
    fn exclusive_counter(world: &mut World) {
        let n = world.query::<&Enemy>().iter(world).count() as u32;
        world.resource_mut::<Total>().0 = n;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.set_auto_sync(false);
    schedule.add_systems((spawner, exclusive_counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 0, "only explicit ApplyDeferred syncs");
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 1);
}

#[test]
fn bevy_commands_of_several_systems_apply_in_system_order_at_a_sync_point() {
    fn first(mut commands: Commands) {
        commands.queue(|w: &mut World| w.resource_mut::<Log>().0.push("first"));
    }
    fn second(mut commands: Commands) {
        commands.queue(|w: &mut World| w.resource_mut::<Log>().0.push("second"));
    }
    fn check(log: Res<Log>, mut total: ResMut<Total>) {
        total.0 = log.0.len() as u32;
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((first, second, check.after(first).after(second)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2);
    assert_eq!(log(&mut world), ["first", "second"]);
}

// ---------------------------------------------------------------------------
// One-shot systems
// ---------------------------------------------------------------------------

fn my_system(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

#[test]
fn register_system_returns_a_system_id_and_run_system_runs_it() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id: SystemId = world.register_system(my_system);
    assert_eq!(world.run_system(id), Ok(()));
    assert_eq!(world.run_system(id), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn run_system_works_with_the_question_mark_operator() {
    fn frame(world: &mut World, id: SystemId) -> Result<u32, RunSystemError> {
        world.run_system(id)?;
        Ok(world.resource::<Counter>().0)
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id: SystemId = world.register_system(my_system);
    assert_eq!(frame(&mut world, id), Ok(1));
    assert!(world.unregister_system(id));
    assert!(matches!(frame(&mut world, id), Err(RunSystemError::NotRegistered { .. })));
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn system_id_with_input_and_output_types() {
    let mut world = World::new();
    let double: SystemId<u32, u64> = world.register_system(|In(x): In<u32>| u64::from(x) * 2);
    assert_eq!(world.run_system_with(double, 21), Ok(42));
    let output_only: SystemId<(), u32> = world.register_system(|q: Query<&Position>| q.iter().count() as u32);
    world.spawn(Position::default());
    assert_eq!(world.run_system(output_only), Ok(1));
}

#[test]
fn run_system_error_on_an_id_from_another_world_or_unregistered() {
    let mut world = World::new();
    let id = world.register_system(|| 5u8);
    let mut other = World::new();
    assert!(other.run_system(id).is_err(), "an id registered in another world names nothing here");
    assert!(world.unregister_system(id));
    let err = world.run_system(id).unwrap_err();
    assert!(matches!(err, RunSystemError::NotRegistered { .. }), "{err:?}");
    assert!(!err.to_string().is_empty(), "RunSystemError is Display");
}

#[test]
fn run_system_error_implements_std_error() {
    fn as_error(e: RunSystemError) -> Box<dyn std::error::Error> {
        Box::new(e)
    }
    let mut world = World::new();
    let id = world.register_system(|| ());
    world.unregister_system(id);
    let err = as_error(world.run_system(id).unwrap_err());
    assert!(!err.to_string().is_empty());
}

#[test]
fn commands_run_system_runs_it_when_commands_apply() {
    #[derive(Resource)]
    struct Id(SystemId);
    fn trigger(mut commands: Commands, id: Res<Id>, counter: Res<Counter>, mut log: ResMut<Log>) {
        log.0.push(if counter.0 == 0 { "not yet" } else { "already" });
        commands.run_system(id.0);
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Log>();
    let id = world.register_system(my_system);
    world.insert_resource(Id(id));
    let mut schedule = Schedule::new();
    schedule.add_systems(trigger);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_eq!(log(&mut world), ["not yet"]);
}

#[test]
fn commands_run_system_with_passes_the_input() {
    #[derive(Resource)]
    struct Id(SystemId<u32>);
    let mut world = World::new();
    world.init_resource::<Total>();
    let id = world.register_system(|In(x): In<u32>, mut t: ResMut<Total>| t.0 += x);
    world.insert_resource(Id(id));
    world.run_system_once(|mut commands: Commands, id: Res<Id>| {
        commands.run_system_with(id.0, 7);
        commands.run_system_with(id.0, 3);
    });
    assert_eq!(world.resource::<Total>().0, 10);
}

#[test]
fn run_system_once_returns_the_output_directly() {
    let mut world = World::new();
    world.spawn(Position::default());
    world.spawn(Position::default());
    world.spawn(Velocity::default());
    let n: usize = world.run_system_once(|q: Query<&Position>| q.iter().count());
    assert_eq!(n, 2);
}

#[test]
fn run_system_once_applies_commands_before_returning() {
    let mut world = World::new();
    world.run_system_once(spawner);
    assert_eq!(world.query_filtered::<&Position, With<Enemy>>().iter(&world).count(), 1);
}

#[test]
fn run_system_once_builds_fresh_state_every_call() {
    fn count(mut n: Local<u32>) -> u32 {
        *n += 1;
        *n
    }
    let mut world = World::new();
    assert_eq!(world.run_system_once(count), 1);
    assert_eq!(world.run_system_once(count), 1, "dropped after one run");
    let id = world.register_system(count);
    assert_eq!(world.run_system(id), Ok(1));
    assert_eq!(world.run_system(id), Ok(2), "a registered system keeps its Local");
}

#[test]
fn bevy_registered_system_change_detection_on_resources() {
    #[derive(Resource, Default)]
    struct Detector(u32);
    let mut world = World::new();
    world.init_resource::<Detector>();
    let id = world.register_system(|d: Res<Detector>| d.is_changed());
    assert_eq!(world.run_system(id), Ok(true), "first run sees it as changed");
    assert_eq!(world.run_system(id), Ok(false));
    world.resource_mut::<Detector>().0 += 1;
    assert_eq!(world.run_system(id), Ok(true));
    assert_eq!(world.run_system(id), Ok(false));
}

#[test]
fn bevy_nested_run_system_from_an_exclusive_one_shot() {
    #[derive(Resource)]
    struct Inner(SystemId<u32, u32>);
    let mut world = World::new();
    let inner = world.register_system(|In(x): In<u32>| x + 1);
    world.insert_resource(Inner(inner));
    let outer = world.register_system(|world: &mut World| {
        let id = world.resource::<Inner>().0;
        world.run_system_with(id, 41).unwrap()
    });
    assert_eq!(world.run_system(outer), Ok(42));
}

// ---------------------------------------------------------------------------
// pipe / map
// ---------------------------------------------------------------------------

fn parse(text: Res<Text>) -> u32 {
    text.0.parse().unwrap_or(0)
}
fn handle(In(x): In<u32>, mut t: ResMut<Total>) {
    t.0 += x;
}
#[derive(Resource)]
struct Text(&'static str);

#[test]
fn pipe_hands_output_to_in_param() {
    let mut world = World::new();
    world.init_resource::<Total>();
    world.insert_resource(Text("17"));
    let mut schedule = Schedule::new();
    schedule.add_systems(parse.pipe(handle));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 34);
}

#[test]
fn map_transforms_a_systems_output() {
    let mut world = World::new();
    world.insert_resource(Text("5"));
    let out = world.run_system_once(parse.map(|x: u32| x * 3));
    assert_eq!(out, 15);
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    // .map(drop) turns an output into () for a schedule.
    schedule.add_systems(
        parse
            .pipe(|In(x): In<u32>, mut t: ResMut<Total>| {
                t.0 += x;
                x
            })
            .map(drop),
    );
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 5);
}

#[test]
fn a_piped_system_can_be_registered_and_run_as_one_shot() {
    let mut world = World::new();
    world.insert_resource(Text("8"));
    let id = world.register_system(parse.pipe(|In(x): In<u32>| x + 1));
    assert_eq!(world.run_system(id), Ok(9));
}

// ---------------------------------------------------------------------------
// Run conditions
// ---------------------------------------------------------------------------

fn paused(p: Res<Paused>) -> bool {
    p.0
}

fn work(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

fn work_schedule() -> Schedule {
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(resource_exists::<Config>.and(not(paused)).or(run_once)));
    schedule
}

#[test]
fn api_condition_without_config_runs_only_once_through_run_once() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(false));
    let mut schedule = work_schedule();
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn api_condition_with_config_and_not_paused_runs_every_time() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(false));
    world.insert_resource(Config);
    let mut schedule = work_schedule();
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counter>().0, 4);
}

#[test]
fn api_condition_or_short_circuits_so_run_once_only_ticks_when_reached() {
    // `and(not(paused))` needs Paused to exist only when resource_exists::<Config>
    // is true: && short-circuits. run_once is reached only once the left side is false.
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Config);
    world.insert_resource(Paused(false));
    let mut schedule = work_schedule();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2);
    world.resource_mut::<Paused>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 3, "run_once had not been evaluated yet, so it is true now");
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 3);
}

#[test]
fn and_short_circuits_so_the_right_side_need_not_be_runnable() {
    // Without Config, `not(paused)` is never evaluated, so a missing Paused is fine.
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(resource_exists::<Config>.and(not(paused))));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
}

#[test]
fn every_run_if_of_a_system_is_evaluated_each_run_so_run_once_ticks_behind_a_false_one() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(true));
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(not(paused)).run_if(run_once));
    schedule.run(&mut world); // not(paused) is false, run_once still evaluated (and used up)
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
}

#[test]
fn every_run_if_must_be_true_for_the_system_to_run() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(false));
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(not(paused)).run_if(resource_exists::<Config>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0);
    world.insert_resource(Config);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    world.resource_mut::<Paused>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn resource_exists_follows_insert_and_remove() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(resource_exists::<Config>));
    schedule.run(&mut world);
    world.insert_resource(Config);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.remove_resource::<Config>();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn resource_added_is_true_once_per_insertion() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(resource_added::<Config>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0, "absent: false");
    world.insert_resource(Config);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    world.remove_resource::<Config>();
    schedule.run(&mut world);
    world.insert_resource(Config);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2, "re-inserted: added again");
}

#[test]
fn resource_changed_is_true_after_a_write_and_false_without_one() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(resource_changed::<Total>));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "the first run sees the resource as changed");
    world.resource_mut::<Total>().0 = 4;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn resource_changed_sees_a_write_by_an_earlier_system_of_the_same_schedule() {
    fn bump(mut t: ResMut<Total>, mut n: Local<u32>) {
        *n += 1;
        if n.is_multiple_of(2) {
            t.0 += 1;
        }
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((bump, work.run_if(resource_changed::<Total>)).chain());
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    // run 1: changed (first run); runs 2 and 4 write.
    assert_eq!(world.resource::<Counter>().0, 3);
}

#[test]
fn any_with_component_tracks_entities() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(any_with_component::<Enemy>));
    schedule.run(&mut world);
    let e = world.spawn(Enemy).id();
    schedule.run(&mut world);
    world.despawn(e);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn on_message_runs_when_there_are_unread_messages() {
    let mut world = message_world();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(on_message::<Scored>));
    schedule.run(&mut world);
    world.write_message(Scored { points: 1 });
    world.write_message(Scored { points: 1 });
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "a batch of messages triggers one run, read once");
    world.update_messages();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "aged messages already seen do not trigger it again");
    world.write_message(Scored { points: 1 });
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn run_once_runs_the_first_time_only() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(run_once));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn closures_and_not_work_as_conditions() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(true));
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(not(|p: Res<Paused>| p.0)));
    schedule.run(&mut world);
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn bevy_run_if_on_an_exclusive_system() {
    fn exclusive(world: &mut World) {
        world.resource_mut::<Counter>().0 += 1;
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(true));
    let mut schedule = Schedule::new();
    schedule.add_systems(exclusive.run_if(not(paused)));
    schedule.run(&mut world);
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn bevy_a_skipped_system_does_not_block_systems_after_it() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Total>();
    world.insert_resource(Paused(true));
    fn after(mut t: ResMut<Total>) {
        t.0 += 1;
    }
    let mut schedule = Schedule::new();
    schedule.add_systems((work.run_if(not(paused)), after).chain());
    schedule.run(&mut world);
    assert_eq!((world.resource::<Counter>().0, world.resource::<Total>().0), (0, 1));
}

// ---------------------------------------------------------------------------
// Single, ParamSet, RemovedComponents, Ref, set_if_neq
// ---------------------------------------------------------------------------

fn player(mut p: Single<&mut Position, With<Player>>, mut counter: ResMut<Counter>) {
    p.x += 1.0;
    counter.0 += 1;
}

#[test]
fn single_runs_only_when_exactly_one_entity_matches() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems(player);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0, "none: skipped, not a panic");
    let a = world.spawn((Position::default(), Player)).id();
    world.spawn(Position::default()); // not a Player
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_eq!(world.get::<Position>(a).unwrap().x, 1.0);
    world.spawn((Position::default(), Player));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "two: skipped");
    assert_eq!(world.get::<Position>(a).unwrap().x, 1.0);
}

#[test]
fn option_single_runs_always() {
    fn maybe(p: Option<Single<&Position, With<Player>>>, mut log: ResMut<Log>) {
        log.0.push(if p.is_some() { "some" } else { "none" });
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::new();
    schedule.add_systems(maybe);
    schedule.run(&mut world);
    world.spawn((Position::default(), Player));
    schedule.run(&mut world);
    world.spawn((Position::default(), Player));
    schedule.run(&mut world);
    assert_eq!(log(&mut world), ["none", "some", "none"]);
}

#[test]
fn a_registered_system_with_an_unmatched_single_is_not_run() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(player);
    assert!(world.run_system(id).is_err(), "skipped is reported as an Err");
    assert_eq!(world.resource::<Counter>().0, 0);
    world.spawn((Position::default(), Player));
    assert_eq!(world.run_system(id), Ok(()));
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn param_set_gives_aliasing_params_one_at_a_time() {
    #[allow(clippy::type_complexity)] // the shape API.md shows
    fn both(mut set: ParamSet<(Query<&mut Position>, Query<&Position, With<Enemy>>)>) {
        let enemy_x: f32 = set.p1().iter().map(|p| p.x).sum();
        for mut p in set.p0().iter_mut() {
            p.y = enemy_x;
        }
    }
    let mut world = World::new();
    let a = world.spawn((Position { x: 2.0, y: 0.0 }, Enemy)).id();
    let b = world.spawn(Position { x: 5.0, y: 0.0 }).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(both);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(a).unwrap().y, 2.0);
    assert_eq!(world.get::<Position>(b).unwrap().y, 2.0);
}

#[test]
fn removed_components_reports_removal_and_despawn_since_last_run() {
    fn gone(mut removed: RemovedComponents<Health>, mut seen: Local<Vec<Entity>>) -> Vec<Entity> {
        seen.clear();
        for e in removed.read() {
            seen.push(e);
        }
        seen.clone()
    }
    let mut world = World::new();
    let a = world.spawn(Health(1.0)).id();
    let b = world.spawn(Health(2.0)).id();
    let c = world.spawn(Health(3.0)).id();
    let id = world.register_system(gone);
    assert_eq!(world.run_system(id), Ok(vec![]));
    world.remove::<Health>(a);
    world.despawn(b);
    let got: BTreeSet<Entity> = world.run_system(id).unwrap().into_iter().collect();
    assert_eq!(got, BTreeSet::from([a, b]));
    assert_eq!(world.run_system(id), Ok(vec![]), "each removal reported once");
    world.despawn(c);
    assert_eq!(world.run_system(id), Ok(vec![c]));
}

#[test]
fn removed_components_in_a_schedule_sees_removals_by_commands_of_an_earlier_system() {
    fn strip(mut commands: Commands, q: Query<Entity, With<Health>>) {
        for e in q.iter() {
            commands.entity(e).remove::<Health>();
        }
    }
    fn gone(mut removed: RemovedComponents<Health>, mut t: ResMut<Total>) {
        t.0 += removed.read().count() as u32;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    world.spawn(Health(1.0));
    world.spawn(Health(1.0));
    let mut schedule = Schedule::new();
    schedule.add_systems((strip, gone).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2);
}

#[test]
fn ref_is_added_and_is_changed_relative_to_the_systems_last_run() {
    fn seen(q: Query<Ref<Position>>) -> (usize, usize) {
        let mut added = 0;
        let mut changed = 0;
        for p in &q {
            added += usize::from(p.is_added());
            changed += usize::from(p.is_changed());
        }
        (added, changed)
    }
    let mut world = World::new();
    let a = world.spawn(Position::default()).id();
    let id = world.register_system(seen);
    assert_eq!(world.run_system(id), Ok((1, 1)));
    assert_eq!(world.run_system(id), Ok((0, 0)));
    world.get_mut::<Position>(a).unwrap().x = 3.0;
    world.spawn(Position::default());
    assert_eq!(world.run_system(id), Ok((1, 2)));
    world.insert(a, Position::default());
    assert_eq!(world.run_system(id), Ok((0, 1)), "insert over an existing value: changed, not added");
}

#[test]
fn set_if_neq_marks_changed_only_when_the_value_differs() {
    fn set(mut q: Query<&mut Position>) {
        for mut pos in q.iter_mut() {
            pos.set_if_neq(Position { x: 1.0, y: 0.0 });
        }
    }
    let mut world = World::new();
    let e = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let f = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    assert_eq!(changed.iter(&world).count(), 2);
    world.run_system_once(set);
    let now: Vec<Entity> = changed.iter(&world).collect();
    assert_eq!(now, [f], "equal value left unmarked");
    assert_eq!(world.get::<Position>(f), Some(&Position { x: 1.0, y: 0.0 }));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 0.0 }));
}

#[test]
fn set_if_neq_on_world_get_mut() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    let _ = changed.iter(&world).count();
    {
        let mut pos = world.get_mut::<Position>(e).unwrap();
        pos.set_if_neq(Position::default());
    }
    assert_eq!(changed.iter(&world).count(), 0);
    {
        let mut pos = world.get_mut::<Position>(e).unwrap();
        pos.set_if_neq(Position { x: 1.0, y: 0.0 });
    }
    assert_eq!(changed.iter(&world).count(), 1);
}

// ---------------------------------------------------------------------------
// get_many, combinations, Added on tags
// ---------------------------------------------------------------------------

#[test]
fn get_many_and_get_many_mut_return_arrays_and_err_on_duplicate_or_missing() {
    #[derive(Resource)]
    struct Pair(Entity, Entity, Entity);
    fn sys(mut q: Query<&mut Position>, ids: Res<Pair>) -> (Option<[f32; 2]>, bool, bool, bool) {
        let read = q.get_many([ids.0, ids.1]).ok().map(|[a, b]| [a.x, b.x]);
        if let Ok([mut a, mut b]) = q.get_many_mut([ids.0, ids.1]) {
            std::mem::swap(&mut a.x, &mut b.x);
        }
        let dup = q.get_many([ids.0, ids.0]).is_err();
        let dup_mut = q.get_many_mut([ids.1, ids.1]).is_err();
        let missing = q.get_many([ids.0, ids.2]).is_err();
        (read, dup, dup_mut, missing)
    }
    let mut world = World::new();
    let a = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let b = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    let no_pos = world.spawn(Velocity::default()).id();
    world.insert_resource(Pair(a, b, no_pos));
    assert_eq!(world.run_system_once(sys), (Some([1.0, 2.0]), true, true, true));
    assert_eq!(world.get::<Position>(a).unwrap().x, 2.0);
    assert_eq!(world.get::<Position>(b).unwrap().x, 1.0);
}

#[test]
fn iter_combinations_yields_every_unordered_pair_once() {
    let mut world = World::new();
    for i in 0..5 {
        world.spawn(Position { x: i as f32, y: 0.0 });
    }
    let pairs = world.run_system_once(|q: Query<&Position>| {
        q.iter_combinations::<2>().map(|[a, b]| (a.x.min(b.x) as u32, a.x.max(b.x) as u32)).collect::<BTreeSet<_>>()
    });
    let count = world.run_system_once(|q: Query<&Position>| q.iter_combinations::<2>().count());
    assert_eq!(count, 10);
    assert_eq!(pairs.len(), 10, "no pair repeated, none with itself");
    assert!(pairs.iter().all(|(a, b)| a < b));
}

#[test]
fn iter_combinations_mut_fetch_next_writes_each_pair() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..4).map(|_| world.spawn(Position::default()).id()).collect();
    world.run_system_once(|mut q: Query<&mut Position>| {
        let mut combos = q.iter_combinations_mut::<2>();
        while let Some([mut a, mut b]) = combos.fetch_next() {
            a.x += 1.0;
            b.x += 1.0;
        }
    });
    for e in ids {
        assert_eq!(world.get::<Position>(e).unwrap().x, 3.0, "each entity in 3 of the 6 pairs");
    }
}

#[test]
fn added_works_on_tags() {
    let mut world = World::new();
    let mut q = world.query_filtered::<Entity, Added<Enemy>>();
    let a = world.spawn(Enemy).id();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(q.iter(&world).count(), 0);
    let b = world.spawn(Position::default()).id();
    world.entity_mut(b).insert(Enemy);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), [b]);
}

#[test]
fn changed_works_on_tags_when_reinserted() {
    let mut world = World::new();
    let a = world.spawn(Enemy).id();
    let mut changed = world.query_filtered::<Entity, Changed<Enemy>>();
    let mut added = world.query_filtered::<Entity, Added<Enemy>>();
    assert_eq!(changed.iter(&world).count(), 1);
    assert_eq!(added.iter(&world).count(), 1);
    world.entity_mut(a).insert(Enemy);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn added_tag_in_a_system_after_commands_insert() {
    fn tag_all(mut commands: Commands, q: Query<Entity, With<Position>>) {
        for e in q.iter() {
            commands.entity(e).insert(Enemy);
        }
    }
    fn count_added(q: Query<Entity, Added<Enemy>>, mut t: ResMut<Total>) {
        t.0 += q.iter().count() as u32;
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    world.spawn(Position::default());
    world.spawn(Position::default());
    let mut schedule = Schedule::new();
    schedule.add_systems((tag_all, count_added).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 2, "re-inserting a tag on the second run is not an add");
}

// ---------------------------------------------------------------------------
// Hierarchy conveniences
// ---------------------------------------------------------------------------

#[test]
fn world_spawn_with_children_adds_child_of_pairs() {
    let mut world = World::new();
    let ship = world
        .spawn(Ship)
        .with_children(|p| {
            p.spawn(Turret);
            p.spawn(Turret);
        })
        .id();
    let kids: Vec<Entity> = world.children(ship).collect();
    assert_eq!(kids.len(), 2);
    for k in kids {
        assert!(world.has::<Turret>(k));
        assert!(world.has_pair::<ChildOf>(k, ship));
        assert_eq!(world.target::<ChildOf>(k), Some(ship));
    }
}

#[test]
fn entity_commands_with_children_adds_child_of_pairs() {
    let mut world = World::new();
    world.run_system_once(|mut commands: Commands| {
        commands.spawn(Ship).with_children(|p| {
            p.spawn(Turret);
        });
    });
    let ship = world.query_filtered::<Entity, With<Ship>>().single(&world).unwrap();
    let turret = world.query_filtered::<Entity, With<Turret>>().single(&world).unwrap();
    assert_eq!(world.children(ship).collect::<Vec<_>>(), [turret]);
    assert_eq!(world.target::<ChildOf>(turret), Some(ship));
}

#[test]
fn children_ancestors_and_descendants_breadth_first() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn(ChildOf.pair(root)).id();
    let b = world.spawn(ChildOf.pair(root)).id();
    let a1 = world.spawn(ChildOf.pair(a)).id();
    world.spawn(ChildOf.pair(b));
    let a11 = world.spawn(ChildOf.pair(a1)).id();
    assert_eq!(world.children(root).collect::<BTreeSet<_>>(), BTreeSet::from([a, b]));
    assert_eq!(world.ancestors(a11).collect::<Vec<_>>(), [a1, a, root]);
    assert_eq!(world.ancestors(root).count(), 0);
    let desc: Vec<Entity> = world.descendants(root).collect();
    assert_eq!(desc.len(), 5);
    let depth = |e: Entity| world.ancestors(e).count();
    let depths: Vec<usize> = desc.iter().map(|&e| depth(e)).collect();
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "breadth-first: {depths:?}");
    assert_eq!(desc.last(), Some(&a11));
}

#[test]
fn relations_param_walks_the_hierarchy_in_a_system() {
    #[derive(Resource)]
    struct Ids(Entity, Entity);
    type Walked = (Vec<Entity>, Option<Entity>, Vec<Entity>, usize);
    fn walk(h: Relations<ChildOf>, ids: Res<Ids>) -> Walked {
        let (root, leaf) = (ids.0, ids.1);
        (h.sources(root).collect(), h.target(leaf), h.ancestors(leaf).collect(), h.descendants(root).count())
    }
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mid = world.spawn(ChildOf.pair(root)).id();
    let leaf = world.spawn(ChildOf.pair(mid)).id();
    world.insert_resource(Ids(root, leaf));
    let (sources, target, ancestors, descendants) = world.run_system_once(walk);
    assert_eq!(sources, [mid]);
    assert_eq!(target, Some(mid));
    assert_eq!(ancestors, [mid, root]);
    assert_eq!(descendants, 2);
}

#[test]
fn remove_pair_wildcard_removes_every_pair_of_the_relationship() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let carol = world.spawn_empty().id();
    let alice = world.spawn_empty().id();
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).add_pair::<ChildOf>(bob);
    assert_eq!(world.targets::<Likes>(alice).count(), 2);
    world.entity_mut(alice).remove_pair::<Likes>(Entity::WILDCARD);
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.has_pair::<ChildOf>(alice, bob), "other relationships untouched");
}

// ---------------------------------------------------------------------------
// Commands conveniences: observe, spawn_batch, trigger; clear_entities
// ---------------------------------------------------------------------------

#[test]
fn commands_entity_observe_adds_an_entity_scoped_observer() {
    #[derive(Resource, Default)]
    struct Booms(Vec<(Entity, f32)>);
    let mut world = World::new();
    world.init_resource::<Booms>();
    let target = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    world.insert_resource(TargetRes(target));
    #[derive(Resource)]
    struct TargetRes(Entity);
    world.run_system_once(|mut commands: Commands, t: Res<TargetRes>| {
        commands.entity(t.0).observe(|t: Trigger<Explode>, mut b: ResMut<Booms>| {
            b.0.push((t.entity(), t.event().radius));
        });
    });
    world.trigger_targets(Explode { radius: 2.0 }, other);
    assert!(world.resource::<Booms>().0.is_empty(), "scoped to its entity");
    world.trigger_targets(Explode { radius: 3.0 }, target);
    assert_eq!(world.resource::<Booms>().0, [(target, 3.0)]);
}

#[test]
fn commands_spawn_batch_spawns_every_bundle() {
    let mut world = World::new();
    world.run_system_once(|mut commands: Commands| {
        commands.spawn_batch((0..10).map(|i| (Position { x: i as f32, y: 0.0 }, Enemy)));
    });
    let mut xs: Vec<f32> = world.query_filtered::<&Position, With<Enemy>>().iter(&world).map(|p| p.x).collect();
    xs.sort_by(f32::total_cmp);
    assert_eq!(xs, (0..10).map(|i| i as f32).collect::<Vec<_>>());
}

#[test]
fn commands_trigger_runs_global_observers_when_applied() {
    let mut world = World::new();
    world.init_resource::<Total>();
    world.add_observer(|t: Trigger<Explode>, mut total: ResMut<Total>| total.0 += t.event().radius as u32);
    let mut schedule = Schedule::new();
    fn boom(mut commands: Commands, total: Res<Total>, mut log: ResMut<Log>) {
        log.0.push(if total.0 == 0 { "deferred" } else { "immediate" });
        commands.trigger(Explode { radius: 4.0 });
    }
    world.init_resource::<Log>();
    schedule.add_systems(boom);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 4);
    assert_eq!(log(&mut world), ["deferred"]);
}

#[test]
fn clear_entities_despawns_users_entities_and_keeps_resources() {
    let mut world = world_with_time(0.5);
    world.add_message::<Scored>();
    let parent = world.spawn(Ship).id();
    world.spawn((Turret, ChildOf.pair(parent)));
    world.spawn_batch((0..10).map(|_| (Position::default(),))).for_each(drop);
    assert_eq!(world.entity_count(), 12);
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert!(!world.is_alive(parent));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 0);
    assert_eq!(world.resource::<Time>().dt, 0.5);
    assert!(world.write_message(Scored { points: 1 }), "message resources stay");
    // The world still works: components and relationships are still registered.
    let p = world.spawn(Ship).id();
    let c = world.spawn((Turret, ChildOf.pair(p))).id();
    assert_eq!(world.target::<ChildOf>(c), Some(p));
    assert_eq!(world.entity_count(), 2);
}

#[test]
fn clear_entities_keeps_systems_working() {
    let mut world = world_with_time(1.0);
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, counter).chain());
    schedule.run(&mut world);
    world.clear_entities();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

// ---------------------------------------------------------------------------
// Compile-time safety: what must compile and run
// ---------------------------------------------------------------------------

#[system]
fn ok(mut a: Query<&mut Position, With<Enemy>>, mut b: Query<&mut Position, Without<Enemy>>) {
    for mut p in a.iter_mut() {
        p.x += 1.0;
    }
    for mut p in b.iter_mut() {
        p.x -= 1.0;
    }
}

#[test]
fn system_attribute_disjoint_with_without_queries_compile_and_run() {
    let mut world = World::new();
    let enemy = world.spawn((Position::default(), Enemy)).id();
    let friend = world.spawn(Position::default()).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(ok);
    schedule.run(&mut world);
    world.run_system_once(ok);
    assert_eq!(world.get::<Position>(enemy).unwrap().x, 2.0);
    assert_eq!(world.get::<Position>(friend).unwrap().x, -2.0);
}

#[system]
fn annotated_movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>, mut commands: Commands) {
    for (mut p, v) in q.iter_mut() {
        p.x += v.x * time.dt;
    }
    commands.insert_resource(Total(1));
}

#[test]
fn system_attribute_keeps_a_normal_system_usable_everywhere() {
    let mut world = world_with_time(2.0);
    let e = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 })).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(annotated_movement);
    schedule.run(&mut world);
    let id = world.register_system(annotated_movement);
    world.run_system(id).unwrap();
    world.run_system_once(annotated_movement);
    assert_eq!(world.get::<Position>(e).unwrap().x, 6.0);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[allow(clippy::type_complexity)]
#[system]
fn annotated_param_set(mut set: ParamSet<(Query<&mut Position>, Query<&Position, With<Enemy>>)>) -> f32 {
    let enemies: f32 = set.p1().iter().map(|p| p.x).sum();
    for mut p in set.p0().iter_mut() {
        p.y = enemies;
    }
    enemies
}

#[test]
fn system_attribute_accepts_param_set_aliasing() {
    let mut world = World::new();
    world.spawn((Position { x: 3.0, y: 0.0 }, Enemy));
    let f = world.spawn(Position::default()).id();
    assert_eq!(world.run_system_once(annotated_param_set), 3.0);
    assert_eq!(world.get::<Position>(f).unwrap().y, 3.0);
}

#[test]
fn disjoint_filters_in_a_plain_schedule_run_without_panic_and_in_parallel_schedules() {
    fn enemies(mut q: Query<&mut Position, With<Enemy>>) {
        for mut p in &mut q {
            p.y += 1.0;
        }
    }
    fn friends(mut q: Query<&mut Position, Without<Enemy>>) {
        for mut p in &mut q {
            p.y -= 1.0;
        }
    }
    let mut world = World::new();
    let e = world.spawn((Position::default(), Enemy)).id();
    let f = world.spawn(Position::default()).id();
    let mut schedule = Schedule::new();
    schedule.add_systems((enemies, friends));
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(e).unwrap().y, 1.0);
    assert_eq!(world.get::<Position>(f).unwrap().y, -1.0);
}

// ---------------------------------------------------------------------------
// More sync-point, one-shot and condition claims
// ---------------------------------------------------------------------------

fn spawn_other_enemy(mut commands: Commands) {
    commands.spawn(Enemy);
}

#[test]
fn an_unordered_systems_commands_wait_for_the_end_of_the_run_not_the_auto_sync_point() {
    use ecs::schedule::ExecutorKind;
    for kind in [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded] {
        for _ in 0..10 {
            let mut world = World::new();
            world.init_resource::<Total>();
            let mut schedule = Schedule::new();
            schedule.set_executor_kind(kind);
            schedule.add_systems((spawn_other_enemy, (spawner, counter).chain()));
            schedule.run(&mut world);
            assert_eq!(world.resource::<Total>().0, 1, "{kind:?}: only the ordered spawner's commands at the sync");
            assert_eq!(world.query::<&Enemy>().iter(&world).count(), 2);
        }
    }
}

#[test]
fn auto_sync_applies_between_systems_ordered_through_sets() {
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.configure_sets((Phase::Early, Phase::Late).chain());
    schedule.add_systems((counter.in_set(Phase::Late), spawner.in_set(Phase::Early)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1);
}

#[test]
fn auto_sync_applies_after_a_pipe_whose_halves_have_commands() {
    fn make(mut commands: Commands) -> u32 {
        commands.spawn(Enemy);
        2
    }
    fn more(In(n): In<u32>, mut commands: Commands) {
        for _ in 0..n {
            commands.spawn(Enemy);
        }
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((make.pipe(more), counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 3);
}

#[test]
fn commands_run_system_at_an_auto_sync_point_is_visible_to_the_next_system() {
    #[derive(Resource)]
    struct Id(SystemId);
    fn request(mut commands: Commands, id: Res<Id>) {
        commands.run_system(id.0);
    }
    let mut world = World::new();
    world.init_resource::<Total>();
    let id = world.register_system(spawner);
    world.insert_resource(Id(id));
    let mut schedule = Schedule::new();
    schedule.add_systems((request, counter).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 1, "the one-shot ran and its own commands were applied at the sync");
}

#[test]
fn resource_added_by_commands_is_seen_by_a_condition_after_the_sync_point() {
    fn add_config(mut commands: Commands) {
        commands.insert_resource(Config);
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::new();
    schedule.add_systems((add_config, work.run_if(resource_added::<Config>)).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn bevy_exclusive_systems_run_in_chain_order() {
    fn first(world: &mut World) {
        world.resource_mut::<Log>().0.push("first");
    }
    fn second(world: &mut World) {
        world.resource_mut::<Log>().0.push("second");
    }
    fn third(world: &mut World) {
        world.resource_mut::<Log>().0.push("third");
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::new();
    schedule.add_systems((third, first, second).chain());
    schedule.run(&mut world);
    assert_eq!(log(&mut world), ["third", "first", "second"]);
}

#[test]
fn stateful_custom_conditions_keep_ticking_behind_a_false_condition() {
    fn every_other(mut n: Local<u32>) -> bool {
        *n += 1;
        n.is_multiple_of(2)
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(true));
    let mut schedule = Schedule::new();
    schedule.add_systems(work.run_if(not(paused)).run_if(every_other));
    schedule.run(&mut world); // every_other -> false (1)
    schedule.run(&mut world); // every_other -> true (2), but paused
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world); // 3 -> false
    assert_eq!(world.resource::<Counter>().0, 0);
    schedule.run(&mut world); // 4 -> true
    assert_eq!(world.resource::<Counter>().0, 1);
}

#[test]
fn run_once_state_is_per_system() {
    fn other(mut t: ResMut<Total>) {
        t.0 += 1;
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Total>();
    let mut schedule = Schedule::new();
    schedule.add_systems((work.run_if(run_once), other.run_if(run_once)));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!((world.resource::<Counter>().0, world.resource::<Total>().0), (1, 1));
}

static LOCAL_DROPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(Default)]
struct DropCounted;
impl Drop for DropCounted {
    fn drop(&mut self) {
        LOCAL_DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn run_system_once_drops_the_system_after_running_it() {
    use std::sync::atomic::Ordering;
    let mut world = World::new();
    let before = LOCAL_DROPS.load(Ordering::SeqCst);
    let out = world.run_system_once(|_l: Local<DropCounted>| 5u8);
    assert_eq!(out, 5);
    assert_eq!(LOCAL_DROPS.load(Ordering::SeqCst) - before, 1, "the system (and its Local) is dropped");
    let id = world.register_system(|_l: Local<DropCounted>| ());
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(LOCAL_DROPS.load(Ordering::SeqCst) - before, 1, "a registered system is kept");
    assert!(world.unregister_system(id));
    assert_eq!(LOCAL_DROPS.load(Ordering::SeqCst) - before, 2);
}

#[test]
fn run_system_once_returns_an_entity_spawned_by_its_commands_alive() {
    let mut world = World::new();
    let e = world.run_system_once(|mut commands: Commands| commands.spawn(Enemy).id());
    assert!(world.is_alive(e));
    assert!(world.has::<Enemy>(e));
}

#[test]
fn run_system_once_runs_exclusive_systems() {
    let mut world = World::new();
    let n = world.run_system_once(|world: &mut World| {
        world.spawn(Enemy);
        world.spawn(Enemy);
        world.entity_count()
    });
    assert_eq!(n, 2);
}

#[test]
fn a_system_id_of_another_world_with_other_types_is_an_error_not_a_panic() {
    let mut a = World::new();
    let id_a: SystemId<(), u8> = a.register_system(|| 1u8);
    let mut b = World::new();
    let _id_b: SystemId<(), String> = b.register_system(|| String::from("b"));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.run_system(id_a)));
    match result {
        Ok(r) => assert!(r.is_err(), "a foreign id must not run b's system: {r:?}"),
        Err(_) => panic!("run_system panicked on a foreign id whose slot holds a system of other types"),
    }
}

#[test]
fn a_message_reader_adds_the_message_type_too() {
    #[derive(Message)]
    struct Ping;
    let mut world = World::new();
    assert_eq!(world.run_system_once(|mut r: MessageReader<Ping>| r.read().count()), 0);
    assert!(world.write_message(Ping));
}

#[test]
fn world_reader_and_writer_systems_conflict_but_two_readers_do_not() {
    fn reader(world: &World) -> usize {
        world.entity_count()
    }
    fn reader_too(world: &World) -> usize {
        world.entity_count()
    }
    fn writer(mut q: Query<&mut Position>) {
        for mut p in &mut q {
            p.x += 1.0;
        }
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((reader.map(drop), reader_too.map(drop)));
    schedule.initialize(&mut world).unwrap();
    assert!(schedule.ambiguities().is_empty(), "{:?}", schedule.ambiguities());
    let mut schedule = Schedule::new();
    schedule.add_systems((reader.map(drop), writer));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1, "&World is exclusive of writers");
}

#[test]
fn message_writer_conflicts_with_a_reader_two_readers_share() {
    fn writer(mut w: MessageWriter<Scored>) {
        w.write(Scored { points: 1 });
    }
    fn reader_a(mut r: MessageReader<Scored>) {
        r.read().for_each(drop);
    }
    fn reader_b(mut r: MessageReader<Scored>) {
        r.read().for_each(drop);
    }
    let mut world = message_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((reader_a, reader_b));
    schedule.initialize(&mut world).unwrap();
    assert!(schedule.ambiguities().is_empty(), "{:?}", schedule.ambiguities());
    let mut schedule = Schedule::new();
    schedule.add_systems((writer, reader_a));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1);
}

#[test]
fn disjoint_with_without_systems_are_not_ambiguous() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    fn enemies(mut q: Query<&mut Position, With<Enemy>>) {
        for mut p in &mut q {
            p.x += 1.0;
        }
    }
    fn friends(mut q: Query<&mut Position, Without<Enemy>>) {
        for mut p in &mut q {
            p.x += 1.0;
        }
    }
    schedule.add_systems((enemies, friends, ok));
    schedule.initialize(&mut world).unwrap();
    // ok touches both sets: it conflicts with each; enemies/friends do not conflict.
    let pairs: Vec<(String, String)> =
        schedule.ambiguities().iter().map(|a| (a.first.clone(), a.second.clone())).collect();
    assert!(
        !pairs.iter().any(|(a, b)| a.ends_with("enemies") && b.ends_with("friends")),
        "With/Without make them disjoint: {pairs:?}"
    );
    assert_eq!(pairs.len(), 2, "{pairs:?}");
}

#[test]
fn removed_components_are_kept_until_the_system_runs_however_many_updates_pass() {
    fn gone(mut removed: RemovedComponents<Health>) -> usize {
        removed.read().count()
    }
    let mut world = World::new();
    world.add_message::<Scored>();
    let e = world.spawn(Health(1.0)).id();
    let id = world.register_system(gone);
    assert_eq!(world.run_system(id), Ok(0));
    world.remove::<Health>(e);
    for _ in 0..4 {
        world.update_messages();
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(|| {});
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.run_system(id), Ok(1), "'since this system last ran'");
}

#[test]
fn bevy_multiple_conditions_on_system_sets_all_must_hold() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.insert_resource(Paused(true));
    let mut schedule = Schedule::new();
    schedule.configure_sets(Phase::Early.run_if(not(paused)));
    schedule.add_systems(work.in_set(Phase::Early).run_if(|| true));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 0, "the set's condition is false");
    world.resource_mut::<Paused>().0 = false;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    let mut schedule = Schedule::new();
    schedule.configure_sets(Phase::Late.run_if(not(paused)));
    schedule.add_systems(work.in_set(Phase::Late).run_if(|| false));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1, "the system's condition is false");
}

#[test]
fn message_mutator_and_messages_resource_params_conflict_like_res_mut() {
    fn mutator(mut m: MessageMutator<Scored>) {
        m.read().for_each(drop);
    }
    fn reader(mut r: MessageReader<Scored>) {
        r.read().for_each(drop);
    }
    fn raw(m: Res<Messages<Scored>>) {
        let _ = m.len();
    }
    fn writer(mut w: MessageWriter<Scored>) {
        w.write(Scored { points: 0 });
    }
    let mut world = message_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((mutator, reader));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1, "a mutator writes Messages<M>");
    let mut schedule = Schedule::new();
    schedule.add_systems((raw, reader));
    schedule.initialize(&mut world).unwrap();
    assert!(schedule.ambiguities().is_empty(), "a reader shares Messages<M> with Res");
    let mut schedule = Schedule::new();
    schedule.add_systems((raw, writer));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1, "a writer borrows Messages<M> mutably");
}

#[test]
fn systems_of_a_run_see_messages_written_earlier_in_the_same_run_and_not_after_two_updates() {
    fn late_reader(mut r: MessageReader<Scored>, mut log: ResMut<Log>) {
        for m in r.read() {
            log.0.push(if m.points == 1 { "one" } else { "other" });
        }
    }
    let mut world = message_world();
    world.init_resource::<Log>();
    let writer = world.register_system(score);
    world.run_system(writer).unwrap();
    world.update_messages();
    world.update_messages();
    let mut schedule = Schedule::new();
    schedule.add_systems(late_reader);
    schedule.run(&mut world);
    assert!(log(&mut world).is_empty(), "a reader created after two updates sees nothing");
    world.run_system(writer).unwrap();
    schedule.run(&mut world);
    assert_eq!(log(&mut world), ["one"]);
}
