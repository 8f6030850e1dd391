//! Automatic sync points: a system's commands are applied before any system
//! ordered after it runs (exclusive systems included), with one sync point per
//! distance level shared by every edge that needs one, nothing inserted for
//! systems without deferred parameters or next to an explicit `ApplyDeferred`,
//! unordered systems still running in parallel, the same entity ids on every
//! run of both executors, `set_auto_sync(false)` restoring explicit-only sync
//! points, and the inserted points shown in the DOT export.

use std::sync::{Arc, Barrier};

use ecs::schedule::ExecutorKind;
use ecs_tests::{Enemy, Position, parallel_pool, within_timeout};

use ecs::prelude::*;

const EXECUTORS: [ExecutorKind; 2] = [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded];

#[derive(Resource, Default, Debug)]
struct Seen(Vec<usize>);

#[derive(Component)]
struct Marker;

fn spawn_enemy(mut commands: Commands) {
    commands.spawn(Enemy);
}

fn spawn_marker(mut commands: Commands) {
    commands.spawn(Marker);
}

fn count_enemies(enemies: Query<&Enemy>, mut seen: ResMut<Seen>) {
    seen.0.push(enemies.iter().count());
}

fn count_markers(markers: Query<&Marker>, mut seen: ResMut<Seen>) {
    seen.0.push(markers.iter().count());
}

fn mark_enemies(enemies: Query<Entity, (With<Enemy>, Without<Marker>)>, mut commands: Commands) {
    for enemy in &enemies.iter().collect::<Vec<_>>() {
        commands.entity(*enemy).insert(Marker);
    }
}

fn read_positions(positions: Query<&Position>) {
    assert!(positions.iter().all(|p| p.x.is_finite()));
}

fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world
}

#[test]
fn a_chained_spawner_and_counter_see_the_entity_in_the_same_run() {
    for executor in EXECUTORS {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((spawn_enemy, count_enemies).chain());
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [1, 2], "{executor:?}");
        assert_eq!(schedule.auto_sync_points(), 1);
        assert_eq!(schedule.len(), 2, "automatic sync points are not counted as added systems");
        world.check_invariants();
    }
}

#[test]
fn with_auto_sync_off_the_counter_sees_the_entity_one_run_later() {
    for executor in EXECUTORS {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((spawn_enemy, count_enemies).chain());
        schedule.set_auto_sync(false);
        assert!(!schedule.auto_sync());
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [0, 1], "{executor:?}");
        assert_eq!(schedule.auto_sync_points(), 0);
        // And back on.
        schedule.set_auto_sync(true);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [0, 1, 3], "{executor:?}");
    }
}

#[test]
fn an_exclusive_system_after_a_command_system_sees_its_commands() {
    fn count_exclusively(world: &mut World) {
        let enemies = world.query::<&Enemy>().iter(world).count();
        world.resource_mut::<Seen>().0.push(enemies);
    }
    for executor in EXECUTORS {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((spawn_enemy, count_exclusively).chain());
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [1], "{executor:?}");
    }
}

#[test]
fn one_sync_point_per_distance_level_is_shared_by_every_edge_that_needs_one() {
    let mut world = world();
    let mut schedule = Schedule::new();
    // Two spawners before two counters: one sync point between the layers.
    schedule.add_systems((
        spawn_enemy,
        spawn_marker,
        (count_enemies, count_markers).after(spawn_enemy).after(spawn_marker),
    ));
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 1);
    let mut seen = world.resource::<Seen>().0.clone();
    seen.sort_unstable();
    assert_eq!(seen, [1, 1]);

    // A chain of command systems needs one sync point per step.
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_enemy, mark_enemies, count_markers).chain());
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 2);
    assert_eq!(world.resource::<Seen>().0, [1], "marked in the same run, after the spawn was applied");
}

#[test]
fn no_sync_point_without_deferred_parameters_or_next_to_an_explicit_one() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((read_positions, count_enemies).chain());
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 0, "no system has commands");

    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_enemy, ApplyDeferred, count_enemies).chain());
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 0, "the explicit sync point already applies the commands");
    assert_eq!(world.resource::<Seen>().0, [0, 1]);

    // Unordered command systems: their commands apply at the end of the run.
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_enemy, count_enemies));
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 0);
}

#[test]
fn unordered_systems_still_run_in_parallel_with_the_first_layer() {
    if !parallel_pool() {
        return;
    }
    #[derive(Resource, Clone)]
    struct Meet(Arc<Barrier>);
    fn spawn_and_meet(mut commands: Commands, meet: Res<Meet>) {
        commands.spawn(Enemy);
        meet.0.wait();
    }
    fn meet_too(meet: Res<Meet>) {
        meet.0.wait();
    }
    within_timeout(|| {
        let mut world = world();
        world.insert_resource(Meet(Arc::new(Barrier::new(2))));
        let mut schedule = Schedule::new();
        // `meet_too` is added last and relates to nothing: it must not wait
        // for the sync point (the barrier needs both systems at once).
        schedule.add_systems(((spawn_and_meet, count_enemies).chain(), meet_too));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Seen>().0, [1]);
    });
}

#[test]
fn entity_ids_and_results_are_the_same_on_every_run_and_executor() {
    fn snapshot(executor: ExecutorKind) -> (Vec<Entity>, Vec<usize>) {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.set_executor_kind(executor);
        schedule.add_systems((
            (spawn_enemy, mark_enemies, count_markers).chain(),
            (spawn_marker, count_enemies).chain(),
            read_positions,
        ));
        for _ in 0..5 {
            schedule.run(&mut world);
        }
        let mut entities: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
        entities.sort_unstable();
        (entities, world.resource::<Seen>().0.clone())
    }
    let expected = snapshot(ExecutorKind::SingleThreaded);
    for _ in 0..20 {
        assert_eq!(snapshot(ExecutorKind::MultiThreaded), expected);
    }
}

#[test]
fn the_dot_export_shows_the_inserted_sync_points() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_enemy, count_enemies).chain());
    schedule.initialize(&mut world).expect("builds");
    let dot = schedule.to_dot();
    assert!(dot.contains("s2 [label=\"auto_sync\", shape=diamond, style=dashed, color=blue];"), "{dot}");
    assert!(dot.contains("s0 -> s2;") && dot.contains("s2 -> s1;"), "{dot}");
    assert!(schedule.execution_order().contains(&"auto_sync"));
    // Adding a system drops the planned points; the next build plans them again.
    schedule.add_systems(read_positions);
    assert_eq!(schedule.auto_sync_points(), 0);
    assert_eq!(schedule.len(), 3);
    schedule.run(&mut world);
    assert_eq!(schedule.auto_sync_points(), 1);
}
