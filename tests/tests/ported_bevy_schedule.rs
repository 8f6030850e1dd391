//! Tests ported from bevy_ecs's own suites for schedules (ordering, sets, run
//! conditions, build errors, ambiguity detection, automatic sync points, the two
//! executors), system parameters, one-shot systems, piping and buffered messages,
//! translated to this crate's API (API.md) with Bevy's meanings. Every test runs
//! where it makes sense on both executors, which must give the same results.
//!
//! Bevy's runtime access-conflict panics are not ported: here such conflicts are
//! compile errors.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::schedule::{ExecutorKind, ScheduleBuildError};
use ecs_tests::panic_message;

// ----- shared fixtures (bevy_ecs schedule::tests) --------------------------------------

#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
enum TestSystems {
    A,
    B,
    C,
    D,
    X,
}

#[derive(Resource, Default)]
struct SystemOrder(Vec<u32>);

#[derive(Resource, Default)]
struct RunConditionBool(bool);

#[derive(Resource, Default)]
struct Counter(AtomicU32);

impl Counter {
    fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Both executors: every schedule test that runs systems runs on each.
const EXECUTORS: [ExecutorKind; 2] = [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded];

fn schedule_with(kind: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(kind);
    schedule
}

fn make_exclusive_system(tag: u32) -> impl FnMut(&mut World) + Send + Sync + 'static {
    move |world: &mut World| world.resource_mut::<SystemOrder>().0.push(tag)
}

fn make_function_system(tag: u32) -> impl FnMut(ResMut<SystemOrder>) + Send + Sync + 'static {
    move |mut order: ResMut<SystemOrder>| order.0.push(tag)
}

fn named_system(mut order: ResMut<SystemOrder>) {
    order.0.push(u32::MAX);
}

fn named_exclusive_system(world: &mut World) {
    world.resource_mut::<SystemOrder>().0.push(u32::MAX);
}

fn counting_system(counter: Res<Counter>) {
    counter.0.fetch_add(1, Ordering::Relaxed);
}

fn order_of(world: &World) -> Vec<u32> {
    world.resource::<SystemOrder>().0.clone()
}

// ===== system execution ===================================================================

// ===== system ordering ====================================================================

/// Ports bevy_ecs `schedule::tests::system_ordering::order_systems` (also constraints added after a run).
#[test]
fn order_systems() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SystemOrder>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems((
            named_system,
            make_function_system(1).before(named_system),
            make_function_system(0).after(named_system).in_set(TestSystems::A),
        ));
        schedule.run(&mut world);
        assert_eq!(order_of(&world), vec![1, u32::MAX, 0], "{kind:?}");

        world.insert_resource(SystemOrder::default());
        assert_eq!(order_of(&world), Vec::<u32>::new());

        schedule.configure_sets(TestSystems::A.after(named_system));
        schedule.add_systems((
            make_function_system(3).before(TestSystems::A).after(named_system),
            make_function_system(4).after(TestSystems::A),
        ));
        schedule.run(&mut world);
        assert_eq!(order_of(&world), vec![1, u32::MAX, 3, 0, 4], "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::tests::system_ordering::order_exclusive_systems`.
#[test]
fn order_exclusive_systems() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SystemOrder>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems((
            named_exclusive_system,
            make_exclusive_system(1).before(named_exclusive_system),
            make_exclusive_system(0).after(named_exclusive_system),
        ));
        schedule.run(&mut world);
        assert_eq!(order_of(&world), vec![1, u32::MAX, 0], "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::tests::system_ordering::add_systems_correct_order`.
#[test]
fn add_systems_correct_order() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SystemOrder>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            (make_function_system(0), make_function_system(1), make_exclusive_system(2), make_function_system(3))
                .chain(),
        );
        schedule.run(&mut world);
        assert_eq!(order_of(&world), vec![0, 1, 2, 3], "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::tests::system_ordering::add_systems_correct_order_nested`.
#[test]
fn add_systems_correct_order_nested() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SystemOrder>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            (
                (make_function_system(0), make_function_system(1)).chain(),
                make_function_system(2),
                (make_function_system(3), make_function_system(4)).chain(),
                (make_function_system(5), (make_function_system(6), make_function_system(7))),
                ((make_function_system(8), make_function_system(9)).chain(), make_function_system(10)),
            )
                .chain(),
        );
        schedule.run(&mut world);
        let order = order_of(&world);
        assert_eq!(order.len(), 11, "{kind:?}: exactly 11 entries");
        assert_eq!(&order[0..5], &[0, 1, 2, 3, 4], "{kind:?}: the first five are exactly ordered");
        let unordered = &order[5..8];
        assert!(
            unordered.contains(&5) && unordered.contains(&6) && unordered.contains(&7),
            "{kind:?}: 5, 6 and 7 in any order, got {order:?}"
        );
        let partially_ordered = &order[8..11];
        assert!(
            partially_ordered == [8, 9, 10] || partially_ordered == [10, 8, 9],
            "{kind:?}: [8, 9, 10] or [10, 8, 9], got {order:?}"
        );
    }
}

/// Ports bevy_ecs `schedule::tests::remove_a_set_and_still_ordered`: edges through an empty set still order.
#[test]
fn remove_a_set_and_still_ordered() {
    #[derive(Resource, Default)]
    struct Trace(Vec<u32>);
    #[derive(SystemSet, Hash, PartialEq, Eq, Clone, Debug)]
    struct B;
    fn system_1(mut trace: ResMut<Trace>) {
        trace.0.push(1);
    }
    fn system_2() {}
    fn system_3(mut trace: ResMut<Trace>) {
        trace.0.push(3);
    }

    let mut world = World::new();
    world.init_resource::<Trace>();
    let mut schedule = Schedule::new();
    schedule.add_systems((system_1.before(B), system_2, system_3.after(B)));
    assert!(schedule.initialize(&mut world).is_ok());
    assert!(schedule.ambiguities().is_empty(), "ordered through B: {:?}", schedule.ambiguities());

    for kind in EXECUTORS {
        // Insertion order against the constraint: only the constraint can put system_1 first.
        let mut schedule = schedule_with(kind);
        schedule.add_systems((system_3.after(B), system_2, system_1.before(B)));
        world.resource_mut::<Trace>().0.clear();
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, vec![1, 3], "{kind:?}");
    }
}

// ===== run conditions =====================================================================

/// Ports bevy_ecs `schedule::tests::conditions::system_with_condition_bool`.
#[test]
fn system_with_condition_bool() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<RunConditionBool>();
        world.init_resource::<SystemOrder>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(make_function_system(0).run_if(|condition: Res<RunConditionBool>| condition.0));

        schedule.run(&mut world);
        assert_eq!(order_of(&world), Vec::<u32>::new(), "{kind:?}");

        world.resource_mut::<RunConditionBool>().0 = true;
        schedule.run(&mut world);
        assert_eq!(order_of(&world), vec![0], "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::tests::conditions::multiple_conditions_on_system`.
#[test]
fn multiple_conditions_on_system() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Counter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems((
            counting_system.run_if(|| false).run_if(|| false),
            counting_system.run_if(|| true).run_if(|| false),
            counting_system.run_if(|| false).run_if(|| true),
            counting_system.run_if(|| true).run_if(|| true),
        ));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Counter>().get(), 1, "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::tests::conditions::systems_nested_in_system_sets`.
#[test]
fn systems_nested_in_system_sets() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<Counter>();
        let mut schedule = schedule_with(kind);
        schedule.configure_sets(TestSystems::A.run_if(|| false));
        schedule.add_systems(counting_system.in_set(TestSystems::A).run_if(|| false));
        schedule.configure_sets(TestSystems::B.run_if(|| true));
        schedule.add_systems(counting_system.in_set(TestSystems::B).run_if(|| false));
        schedule.configure_sets(TestSystems::C.run_if(|| false));
        schedule.add_systems(counting_system.in_set(TestSystems::C).run_if(|| true));
        schedule.configure_sets(TestSystems::D.run_if(|| true));
        schedule.add_systems(counting_system.in_set(TestSystems::D).run_if(|| true));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Counter>().get(), 1, "{kind:?}");
    }
}

#[derive(Resource, Default)]
struct Bool2(bool);

fn change_detection_world() -> World {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<RunConditionBool>();
    world.init_resource::<Bool2>();
    world
}

/// The six runs of Bevy's `*_conditions_and_change_detection` tests: the system runs only
/// when both resources changed since the conditions' previous evaluation, and every
/// condition is evaluated on every run (so each one "consumes" its change).
fn check_change_detection_conditions(world: &mut World, schedule: &mut Schedule, kind: ExecutorKind) {
    let count = |world: &World| world.resource::<Counter>().get();
    // Both resources were just added.
    schedule.run(world);
    assert_eq!(count(world), 1, "{kind:?}: both just added");
    // Nothing has changed.
    schedule.run(world);
    assert_eq!(count(world), 1, "{kind:?}: nothing changed");
    // RunConditionBool changed, Bool2 did not.
    world.get_resource_mut::<RunConditionBool>().unwrap().0 = false;
    schedule.run(world);
    assert_eq!(count(world), 1, "{kind:?}: only RunConditionBool changed");
    // The first condition saw its change on the previous run already.
    world.get_resource_mut::<Bool2>().unwrap().0 = false;
    schedule.run(world);
    assert_eq!(count(world), 1, "{kind:?}: only Bool2 changed");
    // The second condition saw its change on the previous run already.
    world.get_resource_mut::<RunConditionBool>().unwrap().0 = false;
    schedule.run(world);
    assert_eq!(count(world), 1, "{kind:?}: only RunConditionBool changed again");
    // Both changed before the same run.
    world.get_resource_mut::<Bool2>().unwrap().0 = false;
    world.get_resource_mut::<RunConditionBool>().unwrap().0 = false;
    schedule.run(world);
    assert_eq!(count(world), 2, "{kind:?}: both changed");
}

/// Ports bevy_ecs `schedule::tests::conditions::system_conditions_and_change_detection`.
#[test]
fn system_conditions_and_change_detection() {
    for kind in EXECUTORS {
        let mut world = change_detection_world();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            counting_system
                .run_if(|res1: Res<RunConditionBool>| res1.is_changed())
                .run_if(|res2: Res<Bool2>| res2.is_changed()),
        );
        check_change_detection_conditions(&mut world, &mut schedule, kind);
    }
}

/// Ports bevy_ecs `schedule::tests::conditions::system_set_conditions_and_change_detection`.
#[test]
fn system_set_conditions_and_change_detection() {
    for kind in EXECUTORS {
        let mut world = change_detection_world();
        let mut schedule = schedule_with(kind);
        schedule.configure_sets(
            TestSystems::A
                .run_if(|res1: Res<RunConditionBool>| res1.is_changed())
                .run_if(|res2: Res<Bool2>| res2.is_changed()),
        );
        schedule.add_systems(counting_system.in_set(TestSystems::A));
        check_change_detection_conditions(&mut world, &mut schedule, kind);
    }
}

/// Ports bevy_ecs `schedule::tests::conditions::mixed_conditions_and_change_detection`.
#[test]
fn mixed_conditions_and_change_detection() {
    for kind in EXECUTORS {
        let mut world = change_detection_world();
        let mut schedule = schedule_with(kind);
        schedule.configure_sets(TestSystems::A.run_if(|res1: Res<RunConditionBool>| res1.is_changed()));
        schedule.add_systems(counting_system.run_if(|res2: Res<Bool2>| res2.is_changed()).in_set(TestSystems::A));
        check_change_detection_conditions(&mut world, &mut schedule, kind);
    }
}

#[derive(Resource, Default)]
struct PlainCounter(usize);

fn increment_counter(mut counter: ResMut<PlainCounter>) {
    counter.0 += 1;
}

fn double_counter(mut counter: ResMut<PlainCounter>) {
    counter.0 *= 2;
}

fn every_other_time(mut has_ran: Local<bool>) -> bool {
    *has_ran = !*has_ran;
    *has_ran
}

/// Ports bevy_ecs `schedule::condition::tests::run_condition` (a stateful condition, then `not` of it).
#[test]
fn run_condition() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<PlainCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(increment_counter.run_if(every_other_time));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 1, "{kind:?}");
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 2, "{kind:?}");

        // Every other run, opposite to the first one (its own Local).
        schedule.add_systems(increment_counter.run_if(not(every_other_time)));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 4, "{kind:?}");
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 6, "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::condition::tests::run_condition_combinators` (`and`, `or`, `not` only).
#[test]
fn run_condition_combinators() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<PlainCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            (
                increment_counter.run_if(every_other_time.and(|| true)), // every odd run
                increment_counter.run_if(not(every_other_time.and(|| false))), // always
                double_counter.run_if(not(every_other_time.or(|| false))), // every even run
                increment_counter.run_if(every_other_time.or(|| true)),  // always
            )
                .chain(),
        );
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 3, "{kind:?}: 0 +1 +1 +1");
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 9, "{kind:?}: 3 +1 *2 +1");
    }
}

/// Ports bevy_ecs `schedule::condition::tests::multiple_run_conditions`.
#[test]
fn multiple_run_conditions() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<PlainCounter>();
        let mut schedule = schedule_with(kind);
        // Every other run.
        schedule.add_systems(increment_counter.run_if(every_other_time).run_if(|| true));
        // Never.
        schedule.add_systems(increment_counter.run_if(every_other_time).run_if(|| false));
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 1, "{kind:?}");
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 1, "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::condition::tests::multiple_run_conditions_is_and_operation`.
#[test]
fn multiple_run_conditions_is_and_operation() {
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<PlainCounter>();
        let mut schedule = schedule_with(kind);
        // Never runs; an OR of the conditions would run it every time.
        schedule.add_systems(increment_counter.run_if(every_other_time).run_if(not(every_other_time)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 0, "{kind:?}");
        schedule.run(&mut world);
        assert_eq!(world.resource::<PlainCounter>().0, 0, "{kind:?}");
    }
}

/// Ports bevy_ecs `system::tests::test_combinator_clone`: one `or` condition guarding a tuple.
#[test]
fn test_combinator_clone() {
    #[derive(Resource)]
    struct A;
    #[derive(Resource)]
    struct B;
    #[derive(Resource, PartialEq, Eq, Debug)]
    struct C(i32);
    for kind in EXECUTORS {
        let mut world = World::new();
        world.insert_resource(A);
        world.insert_resource(C(0));
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            (|mut res: ResMut<C>| res.0 += 1, |mut res: ResMut<C>| res.0 += 2)
                .run_if(resource_exists::<A>.or(resource_exists::<B>)),
        );
        schedule.initialize(&mut world).unwrap();
        schedule.run(&mut world);
        assert_eq!(world.get_resource::<C>(), Some(&C(3)), "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::condition::tests::distributive_run_if_compiles` (built-ins on a tuple).
#[test]
fn distributive_run_if_compiles() {
    #[derive(Component)]
    struct TestComponent;
    #[derive(Message)]
    struct TestMessage;
    #[derive(Resource)]
    struct TestResource;
    fn test_system() {}

    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(
        (test_system, test_system)
            .run_if(run_once)
            .run_if(resource_exists::<TestResource>)
            .run_if(resource_added::<TestResource>)
            .run_if(resource_changed::<TestResource>)
            .run_if(on_message::<TestMessage>)
            .run_if(any_with_component::<TestComponent>)
            .run_if(not(run_once)),
    );
    assert!(schedule.initialize(&mut world).is_ok());
    schedule.run(&mut world);
}

// ===== schedule build errors ==============================================================

/// Ports bevy_ecs `schedule::tests::schedule_build_errors::dependency_loop`.
#[test]
fn dependency_loop() {
    let mut schedule = Schedule::new();
    schedule.configure_sets(TestSystems::X.after(TestSystems::X));
    let mut world = World::new();
    let result = schedule.initialize(&mut world);
    assert!(matches!(result, Err(ScheduleBuildError::SetCycle(_))), "{result:?}");
}

/// Ports bevy_ecs `schedule::tests::schedule_build_errors::dependency_loop_from_chain`.
#[test]
fn dependency_loop_from_chain() {
    let mut schedule = Schedule::new();
    schedule.configure_sets((TestSystems::X, TestSystems::X).chain());
    let mut world = World::new();
    let result = schedule.initialize(&mut world);
    assert!(matches!(result, Err(ScheduleBuildError::SetCycle(_))), "{result:?}");
}

// ===== ambiguity detection ================================================================

mod system_ambiguity {
    use super::*;

    #[derive(Resource)]
    struct R;

    #[derive(Component)]
    struct A;

    #[derive(Component)]
    struct B;

    #[derive(Message)]
    struct E;

    fn empty_system() {}
    fn res_system(_res: Res<R>) {}
    fn resmut_system(_res: ResMut<R>) {}
    fn read_component_system(_query: Query<&A>) {}
    fn write_component_system(_query: Query<&mut A>) {}
    fn message_reader_system(_reader: MessageReader<E>) {}
    fn message_writer_system(_writer: MessageWriter<E>) {}
    fn message_resource_system(_messages: ResMut<Messages<E>>) {}
    fn read_world_system(_world: &World) {}
    fn write_world_system(_world: &mut World) {}

    fn world() -> World {
        let mut world = World::new();
        world.insert_resource(R);
        world.spawn((A, B));
        world.add_message::<E>();
        world
    }

    fn ambiguity_count(schedule: &mut Schedule, world: &mut World) -> usize {
        schedule.initialize(world).unwrap();
        schedule.ambiguities().len()
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::one_of_everything`.
    #[test]
    fn one_of_everything() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((resmut_system, write_component_system, message_writer_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 0);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::read_only`.
    #[test]
    fn read_only() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((
            empty_system,
            empty_system,
            res_system,
            res_system,
            read_component_system,
            read_component_system,
            message_reader_system,
            message_reader_system,
            read_world_system,
            read_world_system,
        ));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 0);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::read_world`.
    #[test]
    fn read_world() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((resmut_system, write_component_system, message_writer_system, read_world_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 3);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::resources`.
    #[test]
    fn resources() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((resmut_system, res_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 1);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::components`.
    #[test]
    fn components() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((read_component_system, write_component_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 1);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::events` (reader, writer, `Messages` all clash).
    #[test]
    fn events() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((message_reader_system, message_writer_system, message_resource_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 3);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::exclusive`.
    #[test]
    fn exclusive() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((write_world_system, write_world_system, res_system));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 3);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::before_and_after` (resolved transitively).
    #[test]
    fn before_and_after() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((
            message_reader_system.before(message_writer_system),
            message_writer_system,
            message_resource_system.after(message_writer_system),
        ));
        assert_eq!(ambiguity_count(&mut schedule, &mut world), 0);
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::correct_ambiguities` (no `ambiguous_with`).
    #[test]
    fn correct_ambiguities() {
        fn system_a(_res: ResMut<R>) {}
        fn system_b(_res: ResMut<R>) {}
        fn system_c(_res: ResMut<R>) {}
        fn system_d(_res: ResMut<R>) {}
        fn system_e(_res: ResMut<R>) {}

        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((system_a, system_b, system_c, system_d, system_e.after(system_a)));
        schedule.initialize(&mut world).unwrap();
        let ambiguities = schedule.ambiguities();
        assert_eq!(ambiguities.len(), 9, "{ambiguities:?}");
        let is = |name: &str, suffix: &str| name.ends_with(suffix);
        assert!(
            !ambiguities.iter().any(|a| (is(&a.first, "system_a") && is(&a.second, "system_e"))
                || (is(&a.first, "system_e") && is(&a.second, "system_a"))),
            "system_a and system_e are ordered: {ambiguities:?}"
        );
        for ambiguity in ambiguities {
            assert!(ambiguity.conflicts.iter().any(|c| c.contains("ResMut<R>")), "names the resource: {ambiguity:?}");
        }
    }

    /// Ports bevy_ecs `schedule::tests::system_ambiguity::anonymous_set_name` (one ambiguity).
    #[test]
    fn anonymous_set_name() {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems((resmut_system, resmut_system).run_if(|| true));
        schedule.initialize(&mut world).unwrap();
        let ambiguities = schedule.ambiguities();
        assert_eq!(ambiguities.len(), 1, "{ambiguities:?}");
        assert!(ambiguities[0].first.ends_with("resmut_system"));
        assert!(ambiguities[0].second.ends_with("resmut_system"));
    }
}

// ===== automatic sync points ==============================================================

#[derive(Resource)]
struct Resource1;

#[derive(Resource)]
struct Resource2;

/// Ports bevy_ecs `schedule::schedule::tests::inserts_a_sync_point`.
#[test]
fn inserts_a_sync_point() {
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        schedule.add_systems(
            (|mut commands: Commands| commands.insert_resource(Resource1), |_: Res<Resource1>| {}).chain(),
        );
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");
        assert_eq!(schedule.len(), 2);
    }
}

/// Ports bevy_ecs `schedule::schedule::tests::conditional_explicit_sync_point_not_used_as_auto_sync_point`.
#[test]
fn conditional_explicit_sync_point_not_used_as_auto_sync_point() {
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        schedule.add_systems(
            (|mut commands: Commands| commands.insert_resource(Resource1), |_: Res<Resource1>| {}).chain(),
        );
        schedule.add_systems((|| {}, ApplyDeferred.run_if(|| false), || {}).chain());
        schedule.run(&mut world);
        assert!(world.contains_resource::<Resource1>());
    }
}

/// Ports bevy_ecs `conditional_explicit_sync_point_not_used_as_auto_sync_point_condition_on_chain`.
#[test]
fn conditional_explicit_sync_point_not_used_as_auto_sync_point_condition_on_chain() {
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        schedule.add_systems(
            (|mut commands: Commands| commands.insert_resource(Resource1), |_: Res<Resource1>| {}).chain(),
        );
        schedule.add_systems((|| {}, ApplyDeferred, || {}).chain().run_if(|| false));
        schedule.run(&mut world);
        assert!(world.contains_resource::<Resource1>());
    }
}

/// Ports bevy_ecs `conditional_explicit_sync_point_not_used_as_auto_sync_point_condition_on_system_set`.
#[test]
fn conditional_explicit_sync_point_not_used_as_auto_sync_point_condition_on_system_set() {
    #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
    struct Set;
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        schedule.configure_sets(Set.run_if(|| false));
        schedule.add_systems(
            (|mut commands: Commands| commands.insert_resource(Resource1), |_: Res<Resource1>| {}).chain(),
        );
        schedule.add_systems((|| {}, ApplyDeferred.in_set(Set), || {}).chain());
        schedule.run(&mut world);
        assert!(world.contains_resource::<Resource1>());
    }
}

/// Ports bevy_ecs `schedule::schedule::tests::merges_sync_points_into_one` (also on rebuild).
#[test]
fn merges_sync_points_into_one() {
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        // Two unordered command systems before one reader: one sync point.
        schedule.add_systems(
            (
                (
                    |mut commands: Commands| commands.insert_resource(Resource1),
                    |mut commands: Commands| commands.insert_resource(Resource2),
                ),
                |_: Res<Resource1>, _: Res<Resource2>| {},
            )
                .chain(),
        );
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}");

        schedule.add_systems(((
            (
                |mut commands: Commands| commands.insert_resource(Resource1),
                |mut commands: Commands| commands.insert_resource(Resource2),
            ),
            |_: Res<Resource1>, _: Res<Resource2>| {},
        )
            .chain(),));
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 1, "{kind:?}: merged on rebuild");
        assert_eq!(schedule.len(), 6);
    }
}

/// Ports bevy_ecs `schedule::schedule::tests::adds_multiple_consecutive_syncs`.
#[test]
fn adds_multiple_consecutive_syncs() {
    for kind in EXECUTORS {
        let mut schedule = schedule_with(kind);
        let mut world = World::new();
        schedule.add_systems(
            (
                |mut commands: Commands| commands.insert_resource(Resource1),
                |mut commands: Commands| commands.insert_resource(Resource2),
                |_: Res<Resource1>, _: Res<Resource2>| {},
            )
                .chain(),
        );
        schedule.run(&mut world);
        assert_eq!(schedule.auto_sync_points(), 2, "{kind:?}");
    }
}

mod no_sync_chain {
    use super::*;

    #[derive(Resource)]
    struct Ra;

    #[derive(Resource)]
    struct Rb;

    #[derive(Resource)]
    struct Rc;

    /// Builds with `add_systems`, runs on both executors (fresh world each), and checks
    /// how many automatic sync points the build inserted.
    fn run_schedule(expected_auto_syncs: usize, add_systems: impl Fn(&mut Schedule)) {
        for kind in EXECUTORS {
            let mut schedule = schedule_with(kind);
            let mut world = World::new();
            add_systems(&mut schedule);
            schedule.run(&mut world);
            assert_eq!(schedule.auto_sync_points(), expected_auto_syncs, "{kind:?}");
            assert!(world.contains_resource::<Ra>() && world.contains_resource::<Rb>());
        }
    }

    /// Ports bevy_ecs `schedule::schedule::tests::no_sync_chain::only_chain_outside` (the `chain()` half).
    #[test]
    fn only_chain_outside() {
        run_schedule(1, |schedule| {
            schedule.add_systems(
                (
                    (
                        |mut commands: Commands| commands.insert_resource(Ra),
                        |mut commands: Commands| commands.insert_resource(Rb),
                    ),
                    (
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                    ),
                )
                    .chain(),
            );
        });
    }

    /// Ports bevy_ecs `schedule::schedule::tests::no_sync_chain::chain_first` (the `chain()` half).
    #[test]
    fn chain_first() {
        run_schedule(2, |schedule| {
            schedule.add_systems(
                (
                    (
                        |mut commands: Commands| commands.insert_resource(Ra),
                        |mut commands: Commands, res_a: Option<Res<Ra>>| {
                            commands.insert_resource(Rb);
                            assert!(res_a.is_some());
                        },
                    )
                        .chain(),
                    (
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                    ),
                )
                    .chain(),
            );
        });
    }

    /// Ports bevy_ecs `schedule::schedule::tests::no_sync_chain::chain_second` (the `chain()` half).
    #[test]
    fn chain_second() {
        run_schedule(2, |schedule| {
            schedule.add_systems(
                (
                    (
                        |mut commands: Commands| commands.insert_resource(Ra),
                        |mut commands: Commands| commands.insert_resource(Rb),
                    ),
                    (
                        |mut commands: Commands, res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            commands.insert_resource(Rc);
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>, res_c: Option<Res<Rc>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                            assert!(res_c.is_some());
                        },
                    )
                        .chain(),
                )
                    .chain(),
            );
        });
    }

    /// Ports bevy_ecs `schedule::schedule::tests::no_sync_chain::chain_all` (the `chain()` half).
    #[test]
    fn chain_all() {
        run_schedule(3, |schedule| {
            schedule.add_systems(
                (
                    (
                        |mut commands: Commands| commands.insert_resource(Ra),
                        |mut commands: Commands, res_a: Option<Res<Ra>>| {
                            commands.insert_resource(Rb);
                            assert!(res_a.is_some());
                        },
                    )
                        .chain(),
                    (
                        |mut commands: Commands, res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>| {
                            commands.insert_resource(Rc);
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                        },
                        |res_a: Option<Res<Ra>>, res_b: Option<Res<Rb>>, res_c: Option<Res<Rc>>| {
                            assert!(res_a.is_some());
                            assert!(res_b.is_some());
                            assert!(res_c.is_some());
                        },
                    )
                        .chain(),
                )
                    .chain(),
            );
        });
    }
}

// ===== executors ==========================================================================

#[derive(Component)]
struct TestComponent;

#[derive(Resource, Default)]
struct TestState {
    single_ran: bool,
}

#[derive(Resource, Default)]
struct SmallCounter(u8);

/// Ports bevy_ecs `schedule::executor::tests::single_and_populated_skipped_and_run_*` (`Single` only).
#[test]
fn single_and_populated_skipped_and_run() {
    fn set_single_state(_single: Single<&TestComponent>, mut state: ResMut<TestState>) {
        state.single_ran = true;
    }
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<TestState>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(set_single_state);
        schedule.run(&mut world);
        assert!(!world.resource::<TestState>().single_ran, "{kind:?}: skipped with no match");

        world.spawn(TestComponent);
        schedule.run(&mut world);
        assert!(world.resource::<TestState>().single_ran, "{kind:?}: runs with one match");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::missing_resource_panics_{single,multi}_threaded`.
#[test]
fn missing_resource_panics() {
    fn look_for_missing_resource(_res: Res<TestState>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(look_for_missing_resource);
        let message = panic_message(|| schedule.run(&mut world));
        assert!(message.contains("TestState"), "{kind:?}: {message}");
    }
}

/// Ports bevy_ecs `system::tests::panic_inside_system`: a system's panic leaves `run`.
#[test]
fn panic_inside_system() {
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(|| panic!("this system panics"));
        let message = panic_message(|| schedule.run(&mut world));
        assert!(message.contains("this system panics"), "{kind:?}: {message}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_systems_first_system_skipped`.
#[test]
fn piped_systems_first_system_skipped() {
    fn pipe_out(_single: Single<&TestComponent>) -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>, mut counter: ResMut<SmallCounter>) {
        counter.0 += 1;
    }
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SmallCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        schedule.run(&mut world);
        assert_eq!(world.resource::<SmallCounter>().0, 0, "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_second_system_skipped`.
#[test]
fn piped_system_second_system_skipped() {
    fn pipe_out(mut counter: ResMut<SmallCounter>) -> u8 {
        counter.0 += 1;
        42
    }
    fn pipe_in(_input: In<u8>, _single: Single<&TestComponent>, mut counter: ResMut<SmallCounter>) {
        counter.0 += 1;
    }
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SmallCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        schedule.run(&mut world);
        assert_eq!(world.resource::<SmallCounter>().0, 1, "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_first_system_panics`.
#[test]
fn piped_system_first_system_panics() {
    fn pipe_out(_res: Res<TestState>) -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
        assert!(result.is_err(), "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_second_system_panics`.
#[test]
fn piped_system_second_system_panics() {
    fn pipe_out() -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>, _res: Res<TestState>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
        assert!(result.is_err(), "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_skip_and_panic`.
#[test]
fn piped_system_skip_and_panic() {
    fn pipe_out(_single: Single<&TestComponent>) -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>, _res: Res<TestState>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        schedule.run(&mut world);
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_panic_and_skip`.
#[test]
fn piped_system_panic_and_skip() {
    fn pipe_out(_res: Res<TestState>) -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>, _single: Single<&TestComponent>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
        assert!(result.is_err(), "{kind:?}: expected the first half's panic");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_panic_and_panic`.
#[test]
fn piped_system_panic_and_panic() {
    fn pipe_out(_res: Res<TestState>) -> u8 {
        42
    }
    fn pipe_in(_input: In<u8>, _res: Res<TestState>) {}
    for kind in EXECUTORS {
        let mut world = World::new();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
        assert!(result.is_err(), "{kind:?}");
    }
}

/// Ports bevy_ecs `schedule::executor::tests::piped_system_skip_and_skip`.
#[test]
fn piped_system_skip_and_skip() {
    fn pipe_out(_single: Single<&TestComponent>, mut counter: ResMut<SmallCounter>) -> u8 {
        counter.0 += 1;
        42
    }
    fn pipe_in(_input: In<u8>, _single: Single<&TestComponent>, mut counter: ResMut<SmallCounter>) {
        counter.0 += 1;
    }
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SmallCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(pipe_out.pipe(pipe_in));
        schedule.run(&mut world);
        assert_eq!(world.resource::<SmallCounter>().0, 0, "{kind:?}");
    }
}

/// Ports bevy_ecs `system::combinator::tests::exclusive_system_piping_is_possible`.
#[test]
fn exclusive_system_piping_is_possible() {
    fn my_exclusive_system(_world: &mut World) -> u32 {
        1
    }
    fn out_pipe(input: In<u32>, mut counter: ResMut<SmallCounter>) {
        assert!(input.0 == 1);
        counter.0 += 1;
    }
    for kind in EXECUTORS {
        let mut world = World::new();
        world.init_resource::<SmallCounter>();
        let mut schedule = schedule_with(kind);
        schedule.add_systems(my_exclusive_system.pipe(out_pipe));
        schedule.run(&mut world);
        assert_eq!(world.resource::<SmallCounter>().0, 1, "{kind:?}");
    }
}

// ===== system params ======================================================================

#[derive(Component, Debug)]
struct A;

#[derive(Component, Debug)]
struct B;

#[derive(Component, Debug)]
struct C;

#[derive(Component, Debug)]
struct D;

#[derive(Component, Debug)]
struct E;

#[derive(Component, Debug)]
struct F;

#[derive(Component, Debug)]
struct Wu(usize);

#[derive(Resource, PartialEq, Eq, Debug)]
enum SystemRan {
    Yes,
    No,
}

/// Ports bevy_ecs `system::tests::get_many_is_ordered` (`get_many` and `get_many_mut`).
#[test]
fn get_many_is_ordered() {
    const ENTITIES_COUNT: usize = 1000;

    #[derive(Resource)]
    struct EntitiesArray(Vec<Entity>);

    fn query_system(mut ran: ResMut<SystemRan>, entities_array: Res<EntitiesArray>, q: Query<&Wu>) {
        let entities_array: [Entity; ENTITIES_COUNT] = entities_array.0.clone().try_into().unwrap();
        for (i, w) in (0..ENTITIES_COUNT).zip(q.get_many(entities_array).unwrap()) {
            assert_eq!(i, w.0);
        }
        *ran = SystemRan::Yes;
    }

    fn query_system_mut(mut ran: ResMut<SystemRan>, entities_array: Res<EntitiesArray>, mut q: Query<&mut Wu>) {
        let entities_array: [Entity; ENTITIES_COUNT] = entities_array.0.clone().try_into().unwrap();
        for (i, w) in (0..ENTITIES_COUNT).zip(q.get_many_mut(entities_array).unwrap()) {
            assert_eq!(i, w.0);
        }
        *ran = SystemRan::Yes;
    }

    let mut world = World::new();
    world.insert_resource(SystemRan::No);
    let entity_ids = (0..ENTITIES_COUNT).map(|i| world.spawn(Wu(i)).id()).collect();
    world.insert_resource(EntitiesArray(entity_ids));

    let mut schedule = Schedule::new();
    schedule.add_systems(query_system);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);

    world.insert_resource(SystemRan::No);
    let mut schedule = Schedule::new();
    schedule.add_systems(query_system_mut);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);
}

/// Ports bevy_ecs `system::tests::or_param_set_system`: `Or` change filters in `ParamSet` members.
#[test]
fn or_param_set_system() {
    #[allow(clippy::type_complexity)]
    fn query_system(
        mut ran: ResMut<SystemRan>,
        mut set: ParamSet<(Query<(), Or<(Changed<A>, Changed<B>)>>, Query<(), Or<(Added<A>, Added<B>)>>)>,
    ) {
        let changed = set.p0().iter().count();
        let added = set.p1().iter().count();
        assert_eq!(changed, 1);
        assert_eq!(added, 1);
        *ran = SystemRan::Yes;
    }

    let mut world = World::new();
    world.insert_resource(SystemRan::No);
    world.spawn((A, B));
    let mut schedule = Schedule::new();
    schedule.add_systems(query_system);
    schedule.run(&mut world);
    assert_eq!(*world.resource::<SystemRan>(), SystemRan::Yes);
}

/// Ports bevy_ecs `system::tests::query_is_empty` (with and without filters).
#[test]
fn query_is_empty() {
    fn without_filter(not_empty: Query<&A>, empty: Query<&B>) {
        assert!(!not_empty.is_empty());
        assert!(empty.is_empty());
    }
    fn with_filter(not_empty: Query<&A, With<C>>, empty: Query<&A, With<D>>) {
        assert!(!not_empty.is_empty());
        assert!(empty.is_empty());
    }

    let mut world = World::new();
    world.spawn(A).insert(C);

    let mut without_filter = IntoSystem::into_system(without_filter);
    without_filter.initialize(&mut world);
    without_filter.run((), &mut world);

    let mut with_filter = IntoSystem::into_system(with_filter);
    with_filter.initialize(&mut world);
    with_filter.run((), &mut world);
}

/// Ports bevy_ecs `system::tests::can_have_16_parameters` (flat and as one tuple).
#[test]
fn can_have_16_parameters() {
    #[derive(Resource)]
    struct ResA;
    #[derive(Resource)]
    struct ResB;
    #[derive(Resource)]
    struct ResC;
    #[derive(Resource)]
    struct ResD;
    #[derive(Resource)]
    struct ResE;
    #[derive(Resource)]
    struct ResF;

    #[allow(clippy::too_many_arguments)]
    fn sys_x(
        _: Res<ResA>,
        _: Res<ResB>,
        _: Res<ResC>,
        _: Res<ResD>,
        _: Res<ResE>,
        _: Res<ResF>,
        _: Query<&A>,
        _: Query<&B>,
        _: Query<&C>,
        _: Query<&D>,
        _: Query<&E>,
        _: Query<&F>,
        _: Query<(&A, &B)>,
        _: Query<(&C, &D)>,
        _: Query<(&E, &F)>,
    ) {
    }
    #[allow(clippy::type_complexity)]
    fn sys_y(
        _: (
            Res<ResA>,
            Res<ResB>,
            Res<ResC>,
            Res<ResD>,
            Res<ResE>,
            Res<ResF>,
            Query<&A>,
            Query<&B>,
            Query<&C>,
            Query<&D>,
            Query<&E>,
            Query<&F>,
            Query<(&A, &B)>,
            Query<(&C, &D)>,
            Query<(&E, &F)>,
        ),
    ) {
    }
    let mut world = World::new();
    let mut x = IntoSystem::into_system(sys_x);
    let mut y = IntoSystem::into_system(sys_y);
    x.initialize(&mut world);
    y.initialize(&mut world);
    assert!(x.is_initialized() && y.is_initialized());
}

/// Ports bevy_ecs `system::tests::pipe_change_detection`: each pipe half has its own change view.
#[test]
fn pipe_change_detection() {
    #[derive(Resource, Default)]
    struct Flag;

    #[derive(Default)]
    struct Info {
        do_first: bool,
        do_second: bool,
        first_flag: bool,
        second_flag: bool,
    }

    fn first(In(mut info): In<Info>, mut flag: ResMut<Flag>) -> Info {
        if flag.is_changed() {
            info.first_flag = true;
        }
        if info.do_first {
            *flag = Flag;
        }
        info
    }

    fn second(In(mut info): In<Info>, mut flag: ResMut<Flag>) -> Info {
        if flag.is_changed() {
            info.second_flag = true;
        }
        if info.do_second {
            *flag = Flag;
        }
        info
    }

    let mut world = World::new();
    world.init_resource::<Flag>();
    let mut sys = IntoSystem::into_system(first.pipe(second));
    sys.initialize(&mut world);

    sys.run(Info::default(), &mut world);

    // The second system observes a change made by the first.
    let info = sys.run(Info { do_first: true, ..Info::default() }, &mut world);
    assert!(!info.first_flag);
    assert!(info.second_flag);

    // A change made by the second is seen by the first on the next run.
    let info1 = sys.run(Info { do_second: true, ..Info::default() }, &mut world);
    let info2 = sys.run(Info::default(), &mut world);
    assert!(!info1.first_flag);
    assert!(!info1.second_flag);
    assert!(info2.first_flag);
    assert!(!info2.second_flag);
}

/// Ports bevy_ecs `system::tests::assert_systems` (`map` of `map`, pipe into `In<bool>`).
#[test]
fn assert_systems() {
    fn returning_str() -> &'static str {
        "42"
    }
    fn returning_option() -> Option<()> {
        Some(())
    }
    fn returning_bool() -> bool {
        true
    }
    fn invert(In(val): In<bool>) -> bool {
        !val
    }
    let mut world = World::new();
    let parsed = world.run_system_once(returning_str.map(str::parse::<u64>).map(Result::unwrap));
    assert_eq!(parsed, 42);
    world.run_system_once(returning_option.map(drop));
    assert!(!world.run_system_once(returning_bool.pipe(invert)));
}

// ===== one-shot systems ===================================================================

#[derive(Resource, Default, PartialEq, Debug)]
struct ByteCounter(u8);

/// Ports bevy_ecs `system::system::tests::run_system_once` (with an input and commands).
#[test]
fn run_system_once_with_input() {
    #[derive(Resource)]
    struct T(usize);
    fn system(In(n): In<usize>, mut commands: Commands) -> usize {
        commands.insert_resource(T(n));
        n + 1
    }
    let mut world = World::new();
    let n = world.run_system_once_with(system, 1);
    assert_eq!(n, 2);
    assert_eq!(world.resource::<T>().0, 1);
}

/// Ports bevy_ecs `system::system_registry::tests::local_variables`.
#[test]
fn local_variables() {
    #[derive(Default)]
    struct Last(u8);
    fn doubling(mut last_counter: Local<Last>, mut counter: ResMut<ByteCounter>) {
        counter.0 += last_counter.0;
        last_counter.0 = counter.0;
    }
    let mut world = World::new();
    world.insert_resource(ByteCounter(1));
    let id = world.register_system(doubling);
    world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(1));
    world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(2));
    world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(4));
    world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(8));
}

/// Ports bevy_ecs `system::system_registry::tests::input_values` (a non-`Copy` input).
#[test]
fn input_values() {
    struct NonCopy(u8);
    fn increment_sys(In(NonCopy(increment_by)): In<NonCopy>, mut counter: ResMut<ByteCounter>) {
        counter.0 += increment_by;
    }
    let mut world = World::new();
    let id = world.register_system(increment_sys);
    world.insert_resource(ByteCounter(1));
    world.run_system_with(id, NonCopy(1)).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(2));
    world.run_system_with(id, NonCopy(1)).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(3));
    world.run_system_with(id, NonCopy(20)).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(23));
    world.run_system_with(id, NonCopy(1)).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(24));
}

/// Ports bevy_ecs `system::system_registry::tests::output_values` (a non-`Copy` output).
#[test]
fn output_values() {
    #[derive(Eq, PartialEq, Debug)]
    struct NonCopy(u8);
    fn increment_sys(mut counter: ResMut<ByteCounter>) -> NonCopy {
        counter.0 += 1;
        NonCopy(counter.0)
    }
    let mut world = World::new();
    let id = world.register_system(increment_sys);
    world.insert_resource(ByteCounter(1));
    let output = world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(2));
    assert_eq!(output, NonCopy(2));
    let output = world.run_system(id).expect("system runs successfully");
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(3));
    assert_eq!(output, NonCopy(3));
}

/// Ports bevy_ecs `system::system_registry::tests::nested_systems` (ids in components, run by commands).
#[test]
fn nested_systems() {
    #[derive(Component)]
    struct Callback(SystemId);
    fn nested(query: Query<&Callback>, mut commands: Commands) {
        for callback in query.iter() {
            commands.run_system(callback.0);
        }
    }
    let mut world = World::new();
    world.insert_resource(ByteCounter(0));
    let increment_two = world.register_system(|mut counter: ResMut<ByteCounter>| counter.0 += 2);
    let increment_three = world.register_system(|mut counter: ResMut<ByteCounter>| counter.0 += 3);
    let nested_id = world.register_system(nested);
    world.spawn(Callback(increment_two));
    world.spawn(Callback(increment_three));
    world.run_system(nested_id).unwrap();
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(5));
}

/// Ports bevy_ecs `system::system_registry::tests::nested_systems_with_inputs`.
#[test]
fn nested_systems_with_inputs() {
    #[derive(Component)]
    struct Callback(SystemId<u8>, u8);
    fn nested(query: Query<&Callback>, mut commands: Commands) {
        for callback in query.iter() {
            commands.run_system_with(callback.0, callback.1);
        }
    }
    let mut world = World::new();
    world.insert_resource(ByteCounter(0));
    let increment_by = world.register_system(|In(amt): In<u8>, mut counter: ResMut<ByteCounter>| counter.0 += amt);
    let nested_id = world.register_system(nested);
    world.spawn(Callback(increment_by, 2));
    world.spawn(Callback(increment_by, 3));
    world.run_system(nested_id).unwrap();
    assert_eq!(*world.resource::<ByteCounter>(), ByteCounter(5));
}

/// Ports bevy_ecs `system::system_registry::tests::run_system_recursive` (self re-run via commands).
#[test]
fn run_system_recursive() {
    std::thread_local! {
        static INVOCATIONS_LEFT: std::cell::Cell<i32> = const { std::cell::Cell::new(3) };
        static SYSTEM_ID: std::cell::Cell<Option<SystemId>> = const { std::cell::Cell::new(None) };
    }
    fn system(mut commands: Commands) {
        let count = INVOCATIONS_LEFT.get() - 1;
        INVOCATIONS_LEFT.set(count);
        if count > 0 {
            commands.run_system(SYSTEM_ID.get().unwrap());
        }
    }
    let mut world = World::new();
    let id = world.register_system(system);
    SYSTEM_ID.set(Some(id));
    world.run_system(id).unwrap();
    assert_eq!(INVOCATIONS_LEFT.get(), 0);
}

/// Ports bevy_ecs `system::system_registry::tests::run_system_invalid_params` (an error, no panic).
#[test]
fn run_system_invalid_params() {
    #[derive(Resource)]
    struct T;
    fn system(_: Res<T>) {}
    let mut world = World::new();
    let id = world.register_system(system);
    let result = catch_unwind(AssertUnwindSafe(|| world.run_system(id)));
    let result = result.expect("run_system must not panic on a missing resource");
    assert!(result.is_err());
}

/// Ports bevy_ecs `system::system_registry::tests::cached_system_adapters` (registered, not cached).
#[test]
fn cached_system_adapters() {
    fn four() -> i32 {
        4
    }
    fn double(In(i): In<i32>) -> i32 {
        i * 2
    }
    let mut world = World::new();
    let piped = world.register_system(four.pipe(double));
    assert_eq!(world.run_system(piped), Ok(8));
    let mapped = world.register_system(four.map(|i| i * 2));
    assert_eq!(world.run_system(mapped), Ok(8));
}

/// Ports bevy_ecs `system::system_registry::tests::run_system_exclusive_adapters`.
#[test]
fn run_system_exclusive_adapters() {
    fn system(world: &mut World) {
        world.spawn_empty();
    }
    let mut world = World::new();
    let plain = world.register_system(system);
    world.run_system(plain).unwrap();
    let piped = world.register_system(system.pipe(system));
    world.run_system(piped).unwrap();
    let mapped = world.register_system(system.map(|()| {}));
    world.run_system(mapped).unwrap();
    assert_eq!(world.entity_count(), 4);
}

// ===== messages ===========================================================================

#[derive(Message, Copy, Clone, PartialEq, Eq, Debug)]
struct TestMessage {
    i: usize,
}

#[derive(Message, Clone, PartialEq, Debug, Default)]
struct EmptyTestMessage;

fn get_messages<M: Message + Clone>(messages: &Messages<M>, cursor: &mut MessageCursor<M>) -> Vec<M> {
    cursor.read(messages).cloned().collect()
}

/// Ports bevy_ecs `event::tests::test_events` (messages): independent cursors over the double buffer.
#[test]
fn test_events() {
    let mut messages = Messages::<TestMessage>::default();
    let message_0 = TestMessage { i: 0 };
    let message_1 = TestMessage { i: 1 };
    let message_2 = TestMessage { i: 2 };

    // Misses message_0 and message_1: it does not read them over two updates.
    let mut reader_missed = MessageCursor::<TestMessage>::default();
    let mut reader_a = MessageCursor::<TestMessage>::default();

    messages.write(message_0);
    assert_eq!(get_messages(&messages, &mut reader_a), vec![message_0], "reader_a created before the message");
    assert_eq!(get_messages(&messages, &mut reader_a), vec![], "reader_a's second read is empty");

    let mut reader_b = MessageCursor::<TestMessage>::default();
    assert_eq!(get_messages(&messages, &mut reader_b), vec![message_0], "reader_b created after the message");
    assert_eq!(get_messages(&messages, &mut reader_b), vec![], "reader_b's second read is empty");

    messages.write(message_1);
    let mut reader_c = MessageCursor::<TestMessage>::default();
    assert_eq!(get_messages(&messages, &mut reader_c), vec![message_0, message_1], "reader_c gets both");
    assert_eq!(get_messages(&messages, &mut reader_c), vec![], "reader_c's second read is empty");
    assert_eq!(get_messages(&messages, &mut reader_a), vec![message_1], "reader_a gets the next unread one");

    messages.update();

    let mut reader_d = MessageCursor::<TestMessage>::default();
    messages.write(message_2);
    assert_eq!(get_messages(&messages, &mut reader_a), vec![message_2], "reader_a after the update");
    assert_eq!(get_messages(&messages, &mut reader_b), vec![message_1, message_2], "reader_b across the update");
    assert_eq!(
        get_messages(&messages, &mut reader_d),
        vec![message_0, message_1, message_2],
        "reader_d gets everything before and after the update"
    );

    messages.update();
    assert_eq!(
        get_messages(&messages, &mut reader_missed),
        vec![message_2],
        "reader_missed lost what it did not read within two updates"
    );
}

/// Ports bevy_ecs `event::tests::test_events_clear_and_read`.
#[test]
fn test_events_clear_and_read() {
    let mut messages = Messages::<TestMessage>::default();
    let mut reader = MessageCursor::<TestMessage>::default();
    assert!(reader.read(&messages).next().is_none());

    messages.write(TestMessage { i: 0 });
    assert_eq!(*reader.read(&messages).next().unwrap(), TestMessage { i: 0 });
    assert_eq!(reader.read(&messages).next(), None);

    messages.write(TestMessage { i: 1 });
    messages.clear();
    assert!(reader.read(&messages).next().is_none());

    messages.write(TestMessage { i: 2 });
    messages.update();
    messages.write(TestMessage { i: 3 });
    assert!(reader.read(&messages).eq([TestMessage { i: 2 }, TestMessage { i: 3 }].iter()));
}

/// Ports bevy_ecs `event::tests::test_events_write_default` (through `MessageWriter`).
#[test]
fn test_events_write_default() {
    let mut world = World::new();
    world.add_message::<EmptyTestMessage>();
    world.run_system_once(|mut writer: MessageWriter<EmptyTestMessage>| writer.write_default());
    let mut reader = MessageCursor::<EmptyTestMessage>::default();
    let messages = world.resource::<Messages<EmptyTestMessage>>();
    assert_eq!(get_messages(messages, &mut reader), vec![EmptyTestMessage]);
}

/// Ports bevy_ecs `event::tests::test_event_cursor_read`.
#[test]
fn test_event_cursor_read() {
    let mut messages = Messages::<TestMessage>::default();
    let mut cursor = MessageCursor::<TestMessage>::default();
    assert!(cursor.read(&messages).next().is_none());

    messages.write(TestMessage { i: 0 });
    let sent = cursor.read(&messages).next().unwrap();
    assert_eq!(sent, &TestMessage { i: 0 });
    assert!(cursor.read(&messages).next().is_none());

    messages.write(TestMessage { i: 2 });
    let sent = cursor.read(&messages).next().unwrap();
    assert_eq!(sent, &TestMessage { i: 2 });
    assert!(cursor.read(&messages).next().is_none());

    messages.clear();
    assert!(cursor.read(&messages).next().is_none());
}

/// Ports bevy_ecs `event::tests::test_event_cursor_read_mut`: edits seen by another cursor.
#[test]
fn test_event_cursor_read_mut() {
    let mut messages = Messages::<TestMessage>::default();
    let mut write_cursor = MessageCursor::<TestMessage>::default();
    let mut read_cursor = MessageCursor::<TestMessage>::default();
    assert!(write_cursor.read_mut(&mut messages).next().is_none());
    assert!(read_cursor.read(&messages).next().is_none());

    messages.write(TestMessage { i: 0 });
    let sent = write_cursor.read_mut(&mut messages).next().unwrap();
    assert_eq!(sent, &mut TestMessage { i: 0 });
    *sent = TestMessage { i: 1 };
    assert_eq!(read_cursor.read(&messages).next().unwrap(), &TestMessage { i: 1 });
    assert!(read_cursor.read(&messages).next().is_none());

    messages.write(TestMessage { i: 2 });
    let sent = write_cursor.read_mut(&mut messages).next().unwrap();
    assert_eq!(sent, &mut TestMessage { i: 2 });
    sent.i = 3;
    assert_eq!(read_cursor.read(&messages).next().unwrap(), &TestMessage { i: 3 });
    assert!(read_cursor.read(&messages).next().is_none());

    messages.clear();
    assert!(write_cursor.read(&messages).next().is_none());
    assert!(read_cursor.read(&messages).next().is_none());
}

/// Ports bevy_ecs `event::tests::test_event_cursor_len_update`.
#[test]
fn test_event_cursor_len_update() {
    let mut messages = Messages::<TestMessage>::default();
    messages.write(TestMessage { i: 0 });
    messages.write(TestMessage { i: 0 });
    let reader = MessageCursor::<TestMessage>::default();
    assert_eq!(reader.len(&messages), 2);
    messages.update();
    messages.write(TestMessage { i: 0 });
    assert_eq!(reader.len(&messages), 3);
    messages.update();
    assert_eq!(reader.len(&messages), 1);
    messages.update();
    assert!(reader.is_empty(&messages));
}

/// Ports bevy_ecs `event::tests::test_event_cursor_iter_len_updated`.
#[test]
fn test_event_cursor_iter_len_updated() {
    let mut messages = Messages::<TestMessage>::default();
    messages.write(TestMessage { i: 0 });
    messages.write(TestMessage { i: 1 });
    messages.write(TestMessage { i: 2 });
    let mut reader = MessageCursor::<TestMessage>::default();
    let mut iter = reader.read(&messages);
    assert_eq!(iter.len(), 3);
    iter.next();
    assert_eq!(iter.len(), 2);
    iter.next();
    assert_eq!(iter.len(), 1);
    iter.next();
    assert_eq!(iter.len(), 0);
}

/// Ports bevy_ecs `event::tests::test_event_cursor_par_read` (sequential read via a `Local` cursor).
#[test]
fn test_event_cursor_par_read() {
    #[derive(Resource)]
    struct Total(AtomicUsize);
    for kind in EXECUTORS {
        let mut world = World::new();
        world.add_message::<TestMessage>();
        for _ in 0..100 {
            world.write_message(TestMessage { i: 1 });
        }
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            |mut cursor: Local<MessageCursor<TestMessage>>, messages: Res<Messages<TestMessage>>, total: Res<Total>| {
                for message in cursor.read(&messages) {
                    total.0.fetch_add(message.i, Ordering::Relaxed);
                }
            },
        );
        world.insert_resource(Total(AtomicUsize::new(0)));
        schedule.run(&mut world);
        assert_eq!(world.remove_resource::<Total>().unwrap().0.into_inner(), 100, "{kind:?}");
        world.insert_resource(Total(AtomicUsize::new(0)));
        schedule.run(&mut world);
        assert_eq!(world.remove_resource::<Total>().unwrap().0.into_inner(), 0, "{kind:?}: consumed");
    }
}

/// Ports bevy_ecs `event::tests::test_event_cursor_par_read_mut` (sequential `read_mut`).
#[test]
fn test_event_cursor_par_read_mut() {
    #[derive(Resource)]
    struct Total(AtomicUsize);
    for kind in EXECUTORS {
        let mut world = World::new();
        world.add_message::<TestMessage>();
        for _ in 0..100 {
            world.write_message(TestMessage { i: 1 });
        }
        let mut schedule = schedule_with(kind);
        schedule.add_systems(
            |mut cursor: Local<MessageCursor<TestMessage>>,
             mut messages: ResMut<Messages<TestMessage>>,
             total: Res<Total>| {
                for message in cursor.read_mut(&mut messages) {
                    message.i += 1;
                    total.0.fetch_add(message.i, Ordering::Relaxed);
                }
            },
        );
        world.insert_resource(Total(AtomicUsize::new(0)));
        schedule.run(&mut world);
        assert_eq!(world.remove_resource::<Total>().unwrap().0.into_inner(), 200, "{kind:?}");
        world.insert_resource(Total(AtomicUsize::new(0)));
        schedule.run(&mut world);
        assert_eq!(world.remove_resource::<Total>().unwrap().0.into_inner(), 0, "{kind:?}: consumed");
    }
}

/// Ports bevy_ecs `event::tests::test_event_reader_iter_last`.
#[test]
fn test_event_reader_iter_last() {
    let mut world = World::new();
    world.add_message::<TestMessage>();
    let mut reader = IntoSystem::into_system(|mut messages: MessageReader<TestMessage>| -> Option<TestMessage> {
        messages.read().last().copied()
    });
    reader.initialize(&mut world);

    assert!(reader.run((), &mut world).is_none(), "empty at first");
    world.write_message(TestMessage { i: 0 });
    assert_eq!(reader.run((), &mut world), Some(TestMessage { i: 0 }));
    world.write_message(TestMessage { i: 1 });
    world.write_message(TestMessage { i: 2 });
    world.write_message(TestMessage { i: 3 });
    assert_eq!(reader.run((), &mut world), Some(TestMessage { i: 3 }));
    assert!(reader.run((), &mut world).is_none(), "everything read");
}

/// Ports bevy_ecs `event::tests::test_event_mutator_iter_last`.
#[test]
fn test_event_mutator_iter_last() {
    let mut world = World::new();
    world.add_message::<TestMessage>();
    let mut mutator = IntoSystem::into_system(|mut messages: MessageMutator<TestMessage>| -> Option<TestMessage> {
        messages.read().last().copied()
    });
    mutator.initialize(&mut world);

    assert!(mutator.run((), &mut world).is_none(), "empty at first");
    world.write_message(TestMessage { i: 0 });
    assert_eq!(mutator.run((), &mut world), Some(TestMessage { i: 0 }));
    world.write_message(TestMessage { i: 1 });
    world.write_message(TestMessage { i: 2 });
    world.write_message(TestMessage { i: 3 });
    assert_eq!(mutator.run((), &mut world), Some(TestMessage { i: 3 }));
    assert!(mutator.run((), &mut world).is_none(), "everything read");
}

/// Ports bevy_ecs `event::tests::test_event_reader_iter_nth` (`test_event_mutator_iter_nth` is the same).
#[test]
fn test_event_reader_iter_nth() {
    let mut world = World::new();
    world.add_message::<TestMessage>();
    for i in 0..5 {
        world.write_message(TestMessage { i });
    }
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let mut schedule = Schedule::new();
    let flag = ran.clone();
    schedule.add_systems(move |mut messages: MessageReader<TestMessage>| {
        let mut iter = messages.read();
        assert_eq!(iter.next(), Some(&TestMessage { i: 0 }));
        assert_eq!(iter.nth(2), Some(&TestMessage { i: 3 }));
        assert_eq!(iter.nth(1), None);
        assert!(messages.is_empty());
        flag.store(true, Ordering::SeqCst);
    });
    schedule.run(&mut world);
    assert!(ran.load(Ordering::SeqCst));
}

/// Ports bevy_ecs `event::tests::test_event_reader_iter_nth` (the cursor advances per message consumed).
#[test]
fn message_reader_partially_consumed_keeps_the_rest_unread() {
    let mut world = World::new();
    world.add_message::<TestMessage>();
    for i in 0..5 {
        world.write_message(TestMessage { i });
    }
    let reader = world.register_system(|mut messages: MessageReader<TestMessage>| {
        let first = messages.read().next().copied();
        let left = messages.len();
        let rest: Vec<usize> = messages.read().map(|m| m.i).collect();
        (first, left, rest)
    });
    assert_eq!(world.run_system(reader), Ok((Some(TestMessage { i: 0 }), 4, vec![1, 2, 3, 4])));
}
