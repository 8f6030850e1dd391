//! Buffered messages (`ecs::world::Messages`, `MessageWriter`, `MessageReader`,
//! `MessageMutator`, `on_message`): every reader sees every message once, a
//! message lives for two updates, readers that skip frames miss nothing as long
//! as they run every other update, and the parameters' borrows are a
//! resource's (writers and readers of one type are ordered, readers share).

use ecs::prelude::*;

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Scored {
    points: u32,
}

#[derive(Message, Debug, PartialEq)]
struct Damage(u32);

#[derive(Resource, Default, Debug)]
struct Frame(u32);

#[derive(Resource, Default, Debug)]
struct SeenA(Vec<u32>);

#[derive(Resource, Default, Debug)]
struct SeenB(Vec<u32>);

fn write_frame(frame: Res<Frame>, mut scored: MessageWriter<Scored>) {
    scored.write(Scored { points: frame.0 * 10 });
    scored.write(Scored { points: frame.0 * 10 + 1 });
}

fn read_a(mut scored: MessageReader<Scored>, mut seen: ResMut<SeenA>) {
    seen.0.extend(scored.read().map(|message| message.points));
}

fn read_b(mut scored: MessageReader<Scored>, mut seen: ResMut<SeenB>) {
    seen.0.extend(scored.read().map(|message| message.points));
}

fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Frame>();
    world.init_resource::<SeenA>();
    world.init_resource::<SeenB>();
    world.add_message::<Scored>();
    world
}

/// One frame: run the schedule, end the update, count the frame.
fn frame(world: &mut World, schedule: &mut Schedule) {
    schedule.run(world);
    world.update_messages();
    world.resource_mut::<Frame>().0 += 1;
}

#[test]
fn two_readers_each_see_every_message_once() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((write_frame, (read_a, read_b).after(write_frame)));
    for _ in 0..3 {
        frame(&mut world, &mut schedule);
    }
    let expected = vec![0, 1, 10, 11, 20, 21];
    assert_eq!(world.resource::<SeenA>().0, expected);
    assert_eq!(world.resource::<SeenB>().0, expected);
}

#[test]
fn a_reader_that_runs_every_other_frame_misses_nothing() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let odd_frames = |frame: Res<Frame>| frame.0 % 2 == 1;
    schedule.add_systems((write_frame, read_a.after(write_frame).run_if(odd_frames)));
    for _ in 0..6 {
        frame(&mut world, &mut schedule);
    }
    assert_eq!(world.resource::<SeenA>().0, vec![0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51]);
}

#[test]
fn a_message_lives_for_two_updates() {
    let mut world = world();
    assert!(world.write_message(Scored { points: 1 }));
    world.update_messages();
    assert!(world.write_message(Scored { points: 2 }));
    let stored = |world: &World| world.resource::<Messages<Scored>>().iter().map(|m| m.points).collect::<Vec<_>>();
    assert_eq!(stored(&world), vec![1, 2]);
    world.update_messages();
    assert_eq!(stored(&world), vec![2]);
    world.update_messages();
    assert_eq!(stored(&world), Vec::<u32>::new());
    // A reader that starts late sees what is still stored, once.
    world.write_message(Scored { points: 3 });
    let mut schedule = Schedule::new();
    schedule.add_systems(read_a);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![3]);
}

#[test]
fn a_reader_that_falls_two_updates_behind_loses_only_the_dropped_messages() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(read_a);
    schedule.run(&mut world);
    for points in 0..3 {
        world.update_messages();
        world.write_message(Scored { points });
    }
    // 0 was written two updates ago and is gone; 1 and 2 are still stored.
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![1, 2]);
}

#[test]
fn writing_a_message_of_a_type_never_added_is_refused() {
    let mut world = World::new();
    assert!(!world.write_message(Damage(1)));
    assert!(!world.contains_resource::<Messages<Damage>>());
    world.add_message::<Damage>();
    world.add_message::<Damage>();
    assert!(world.write_message(Damage(1)));
    assert_eq!(world.resource::<Messages<Damage>>().len(), 1, "adding again keeps the stored messages");
}

fn queue_damage(mut commands: Commands) {
    commands.write_message(Damage(4));
}

fn read_damage(mut damage: MessageReader<Damage>, mut seen: ResMut<SeenA>) {
    seen.0.extend(damage.read().map(|damage| damage.0));
}

#[test]
fn systems_add_their_message_types_and_commands_write_messages() {
    let mut world = World::new();
    world.init_resource::<SeenA>();
    let mut schedule = Schedule::new();
    schedule.add_systems((queue_damage, read_damage).chain());
    schedule.run(&mut world);
    assert!(world.contains_resource::<Messages<Damage>>(), "the reader added the type");
    // The chain puts a sync point after `queue_damage`: the reader sees the message in the same run.
    assert_eq!(world.resource::<SeenA>().0, vec![4]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![4, 4]);
}

#[test]
fn a_mutator_changes_messages_for_later_readers() {
    let mut world = world();
    world.write_message(Scored { points: 10 });
    let halve = |mut scored: MessageMutator<Scored>| {
        for message in scored.read() {
            message.points /= 2;
        }
    };
    let mut schedule = Schedule::new();
    schedule.add_systems((halve, read_a).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![5]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![5], "the mutator's cursor moved too: nothing is halved twice");
}

#[test]
fn on_message_runs_a_system_once_per_batch_of_messages() {
    #[derive(Resource, Default)]
    struct Runs(u32);
    let mut world = world();
    world.init_resource::<Runs>();
    let mut schedule = Schedule::new();
    schedule.add_systems((|mut runs: ResMut<Runs>| runs.0 += 1).run_if(on_message::<Scored>));
    schedule.run(&mut world);
    world.write_message(Scored { points: 1 });
    world.write_message(Scored { points: 2 });
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.update_messages();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
}

#[test]
fn writers_and_readers_of_one_type_are_ordered_and_readers_share() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((read_a, write_frame, read_b));
    schedule.initialize(&mut world).expect("builds");
    let pairs: Vec<(String, String)> =
        schedule.ambiguities().iter().map(|a| (a.first.clone(), a.second.clone())).collect();
    assert_eq!(
        pairs,
        [
            ("messages::read_a".to_owned(), "messages::write_frame".to_owned()),
            ("messages::write_frame".to_owned(), "messages::read_b".to_owned()),
        ]
    );
    // Insertion order: read_a before the writer, read_b after it.
    schedule.run(&mut world);
    assert!(world.resource::<SeenA>().0.is_empty());
    assert_eq!(world.resource::<SeenB>().0, vec![0, 1]);
}

/// `RemovedComponents` sees every removal since its system last ran, however
/// many `update_messages` calls passed; removals every live reader has read
/// are dropped at the next updates (a plain message update's two-update window
/// at least), and a dropped reader keeps nothing alive.
#[test]
fn removals_are_kept_until_every_reader_read_them() {
    #[derive(Component)]
    struct Health(#[allow(dead_code)] u32);
    #[derive(Resource, Default)]
    struct Seen(Vec<Entity>, Vec<Entity>);
    fn fast(mut removed: RemovedComponents<Health>, mut seen: ResMut<Seen>) {
        seen.0.extend(removed.read());
    }
    fn slow(mut removed: RemovedComponents<Health>, mut seen: ResMut<Seen>) {
        seen.1.extend(removed.read());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut fast_schedule = Schedule::new();
    fast_schedule.add_systems(fast);
    let mut slow_schedule = Schedule::new();
    slow_schedule.add_systems(slow);
    fast_schedule.run(&mut world);
    slow_schedule.run(&mut world);
    let stored = |world: &World| world.resource::<Messages<ecs::observer::RemovedComponent<Health>>>().len();

    let a = world.spawn(Health(1)).id();
    world.despawn(a);
    for _ in 0..4 {
        fast_schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Seen>().0, vec![a]);
    assert_eq!(stored(&world), 1, "the slow reader has not read it yet");
    slow_schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().1, vec![a]);
    world.update_messages();
    world.update_messages();
    assert_eq!(stored(&world), 0, "read by every reader: dropped");

    // A dropped reader keeps nothing alive.
    drop(slow_schedule);
    let b = world.spawn(Health(2)).id();
    world.despawn(b);
    fast_schedule.run(&mut world);
    world.update_messages();
    world.update_messages();
    assert_eq!(stored(&world), 0);
    assert_eq!(world.resource::<Seen>().0, vec![a, b]);
}

/// Removal tracking holds when the removal message type was added by hand
/// first (no panic, removals kept until read), and when its resource was
/// removed and tracked again (each removal written once).
#[test]
fn removal_tracking_survives_a_hand_added_or_removed_message_type() {
    #[derive(Component)]
    struct Hp(#[allow(dead_code)] u32);
    #[derive(Resource, Default)]
    struct Seen(usize);
    fn count(mut removed: RemovedComponents<Hp>, mut seen: ResMut<Seen>) {
        seen.0 += removed.read().len();
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_message::<ecs::observer::RemovedComponent<Hp>>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count);
    schedule.run(&mut world);
    let e = world.spawn(Hp(1)).id();
    world.despawn(e);
    for _ in 0..3 {
        world.update_messages();
    }
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1, "kept until read");

    world.remove_resource::<Messages<ecs::observer::RemovedComponent<Hp>>>();
    let mut again = Schedule::new();
    again.add_systems(count);
    again.initialize(&mut world).unwrap();
    let e = world.spawn(Hp(2)).id();
    world.despawn(e);
    assert_eq!(world.resource::<Messages<ecs::observer::RemovedComponent<Hp>>>().len(), 1, "written once");
}
