//! Tests ported from bevy_ecs (bevy main, commit 4805ca792c3e) for one-shot
//! systems (`system/system_registry.rs`) and buffered messages
//! (`message/*.rs`, whose unit tests live in `event/mod.rs`). Each test names
//! the Bevy file and the test or doc example it ports; doc examples are run and
//! their effect asserted (Bevy prints or only compiles them).
//!
//! Already ported elsewhere (not repeated): system_registry.rs `change_detection`
//! (ported_bevy_more.rs `registry_change_detection`), `local_variables`,
//! `input_values`, `output_values`, `fallible_system`, `exclusive_system`,
//! `nested_systems`, `nested_systems_with_inputs`, `run_system_invalid_params`,
//! `run_system_recursive`, `cached_system_adapters`, `run_system_exclusive_adapters`
//! (ported_bevy_schedule.rs / ported_bevy_more.rs); event/mod.rs `test_events*`,
//! `test_event_cursor_*` (but `_len_current`), `test_event_reader_iter_*`,
//! `test_event_mutator_iter_*`; messages.rs `iter_current_update_messages_*`.
//!
//! Not ported:
//! - system_registry.rs `cached_system`, `cached_fallible_system`,
//!   `cached_system_commands`, `cached_fallible_system_commands*`,
//!   `cached_system_into_same_system_type` (no `register_system_cached` /
//!   `run_system_cached`), `system_with_input_ref`/`_mut` (no `InRef`/`InMut`),
//!   `wrong_system_type` (ids are typed; no `SystemId::from_entity`),
//!   `despawn_unused`, `system_handle_template`,
//!   `run_system_with_owned_system_handle` (no tracked handles / templates).
//!   Bevy's "systems are not allowed to remove themselves" (`SelfRemove`): here a
//!   system unregistered while running is dropped when it returns (documented on
//!   `World::unregister_system`).
//! - event/mod.rs `test_events_drain_and_read`, `test_events_update_drain` (no
//!   `drain`), `test_write_events_ids` and messages.rs `write_batch_iter_size_hint`
//!   (writes return no ids), `ensure_reader_readonly` (no `ReadOnlySystem` check),
//!   `test_derive_entity_event` (events, not messages);
//!   `test_event_registry_can_add_and_remove_events_to_world` is ported with
//!   `add_message` / `remove_resource` (no `MessageRegistry::deregister_messages`),
//!   `test_event_cursor_len_current` with `MessageCursor::clear` (no
//!   `get_cursor_current`).
//!
//! No findings in this file: every ported test passes.
//! - message_reader.rs `test_populated_message_reader` (no `PopulatedMessageReader`);
//!   the `MessageMutator` usage doc (no `MessageMutator::write`); the `par_read`
//!   docs are ported with `read()` (no `par_read`).

use ecs::prelude::*;

#[derive(Message, Clone, Copy, Debug, PartialEq)]
struct TestMessage {
    i: usize,
}

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<usize>);

// ===== system/system_registry.rs ========================================================

// bevy_ecs system/system_registry.rs, doc of `World::run_system` ("Running a system":
// two registrations of one function keep separate state)
#[test]
fn run_system_doc_running_a_system() {
    fn increment(mut counter: Local<u8>) -> u8 {
        *counter += 1;
        *counter
    }
    let mut world = World::new();
    let counter_one = world.register_system(increment);
    let counter_two = world.register_system(increment);
    assert_ne!(counter_one, counter_two);
    assert_eq!(world.run_system(counter_one), Ok(1));
    assert_eq!(world.run_system(counter_one), Ok(2));
    assert_eq!(world.run_system(counter_two), Ok(1));
}

// bevy_ecs system/system_registry.rs, doc of `World::run_system` ("Getting system output")
#[test]
fn run_system_doc_getting_system_output() {
    #[derive(Resource)]
    struct PlayerScore(i32);
    #[derive(Resource)]
    struct OpponentScore(i32);
    fn get_player_score(player_score: Res<PlayerScore>) -> i32 {
        player_score.0
    }
    fn get_opponent_score(opponent_score: Res<OpponentScore>) -> i32 {
        opponent_score.0
    }
    let mut world = World::new();
    world.insert_resource(PlayerScore(3));
    world.insert_resource(OpponentScore(2));
    let scoring_systems =
        [("player", world.register_system(get_player_score)), ("opponent", world.register_system(get_opponent_score))];
    let scores: Vec<(&str, i32)> = scoring_systems
        .into_iter()
        .map(|(label, system)| (label, world.run_system(system).expect("system succeeded")))
        .collect();
    assert_eq!(scores, [("player", 3), ("opponent", 2)]);
}

// bevy_ecs system/system_registry.rs, doc of `World::run_system_with`
#[test]
fn run_system_with_doc() {
    fn increment(In(increment_by): In<u8>, mut counter: Local<u8>) -> u8 {
        *counter += increment_by;
        *counter
    }
    let mut world = World::new();
    let counter_one = world.register_system(increment);
    let counter_two = world.register_system(increment);
    assert_eq!(world.run_system_with(counter_one, 1).unwrap(), 1);
    assert_eq!(world.run_system_with(counter_one, 20).unwrap(), 21);
    assert_eq!(world.run_system_with(counter_two, 30).unwrap(), 30);
}

// bevy_ecs system/system_registry.rs, doc of `World::unregister_system` ("After
// removing a system, the SystemId becomes invalid ... Re-adding the removed system
// will register it on a new SystemId"; "If no system corresponds to the given
// SystemId, this method returns an error")
#[test]
fn unregister_system_doc() {
    #[derive(Resource, Default)]
    struct Runs(u32);
    fn run(mut runs: ResMut<Runs>, mut local: Local<u32>) -> u32 {
        runs.0 += 1;
        *local += 1;
        *local
    }
    let mut world = World::new();
    world.init_resource::<Runs>();
    let old = world.register_system(run);
    assert_eq!(world.run_system(old), Ok(1));
    assert!(world.unregister_system(old));
    assert!(!world.unregister_system(old), "a second unregister finds nothing");
    assert!(matches!(world.run_system(old), Err(RunSystemError::NotRegistered { .. })));
    let new = world.register_system(run);
    assert_ne!(old, new, "re-adding gives a new SystemId");
    assert!(matches!(world.run_system(old), Err(RunSystemError::NotRegistered { .. })));
    assert_eq!(world.run_system(new), Ok(1), "fresh state for the new registration");
    assert_eq!(world.resource::<Runs>().0, 2);
}

// bevy_ecs system/system_registry.rs `run_system_recursive`, with the nested run done
// directly by an exclusive system (`World::run_system` inside a one-shot system):
// another system runs, the running system itself is refused.
#[test]
fn run_system_nested_from_an_exclusive_system() {
    #[derive(Resource, Default)]
    struct Ids(Option<SystemId<(), u32>>, Option<SystemId>);
    let mut world = World::new();
    world.init_resource::<Ids>();
    world.init_resource::<Seen>();
    let inner = world.register_system(|mut seen: ResMut<Seen>| -> u32 {
        seen.0.push(1);
        7
    });
    let outer = world.register_system(|world: &mut World| {
        let (inner, me) = {
            let ids = world.resource::<Ids>();
            (ids.0.unwrap(), ids.1.unwrap())
        };
        assert_eq!(world.run_system(inner), Ok(7));
        assert!(matches!(world.run_system(me), Err(RunSystemError::Recursive { .. })));
        world.resource_mut::<Seen>().0.push(2);
    });
    world.insert_resource(Ids(Some(inner), Some(outer)));
    world.run_system(outer).unwrap();
    assert_eq!(world.resource::<Seen>().0, [1, 2]);
    // and it can run again afterwards
    world.run_system(outer).unwrap();
    assert_eq!(world.resource::<Seen>().0, [1, 2, 1, 2]);
}

// bevy_ecs system/system_registry.rs, doc of `World::run_system` ("Also runs any
// queued-up commands"): a one-shot system's commands are applied before
// `run_system` returns, and `Added` in it is relative to its own previous run.
#[test]
fn run_system_applies_commands_and_tracks_its_last_run() {
    #[derive(Component)]
    struct Marker;
    let mut world = World::new();
    let spawn = world.register_system(|mut commands: Commands| commands.spawn(Marker).id());
    let count_added = world.register_system(|q: Query<Entity, Added<Marker>>| q.iter().count());
    let e = world.run_system(spawn).unwrap();
    assert!(world.has::<Marker>(e), "commands applied before run_system returns");
    assert_eq!(world.run_system(count_added), Ok(1));
    assert_eq!(world.run_system(count_added), Ok(0));
    world.run_system(spawn).unwrap();
    world.run_system(spawn).unwrap();
    assert_eq!(world.run_system(count_added), Ok(2));
}

// ===== message/*.rs and event/mod.rs ====================================================

// bevy_ecs event/mod.rs `test_event_registry_can_add_and_remove_events_to_world`
// (registration by `add_message`, removal by removing the `Messages` resource), and
// re-adding it later: `update_messages` still updates it once per call.
#[test]
fn test_event_registry_can_add_and_remove_events_to_world() {
    let mut world = World::new();
    world.add_message::<TestMessage>();
    assert!(world.get_resource::<Messages<TestMessage>>().is_some(), "Should have the messages resource");
    assert!(world.remove_resource::<Messages<TestMessage>>().is_some());
    assert!(world.get_resource::<Messages<TestMessage>>().is_none(), "Should not have the messages resource");
    assert!(!world.write_message(TestMessage { i: 0 }));
    world.update_messages(); // harmless without the resource

    world.add_message::<TestMessage>();
    assert!(world.write_message(TestMessage { i: 1 }));
    world.update_messages();
    assert_eq!(world.resource::<Messages<TestMessage>>().len(), 1, "kept for one more update");
    world.update_messages();
    assert!(world.resource::<Messages<TestMessage>>().is_empty());
}

// bevy_ecs message/messages.rs, doc of `Messages`
#[test]
fn messages_doc() {
    #[derive(Message)]
    struct MyMessage {
        value: usize,
    }
    let mut messages = Messages::<MyMessage>::default();
    let mut cursor = MessageCursor::<MyMessage>::default();
    // run this once per update/frame
    messages.update();
    // somewhere else: write a message
    messages.write(MyMessage { value: 1 });
    // somewhere else: read the messages
    let mut read = 0;
    for message in cursor.read(&messages) {
        assert_eq!(message.value, 1);
        read += 1;
    }
    assert_eq!(read, 1);
    // messages are only processed once per reader
    assert_eq!(cursor.read(&messages).count(), 0);
}

// bevy_ecs message/messages.rs, doc of `Messages` ("Details"): a reader that reads at
// least once per update never drops messages; one that reads after two updates drops
// everything written before them.
#[test]
fn messages_doc_details() {
    let mut messages = Messages::<TestMessage>::default();
    let mut every_update = MessageCursor::<TestMessage>::default();
    let mut every_other = MessageCursor::<TestMessage>::default();
    let mut late = MessageCursor::<TestMessage>::default();
    let mut got_every = Vec::new();
    let mut got_other = Vec::new();
    for i in 0..6 {
        messages.write(TestMessage { i });
        got_every.extend(every_update.read(&messages).map(|m| m.i));
        if i % 2 == 1 {
            got_other.extend(every_other.read(&messages).map(|m| m.i));
        }
        messages.update();
    }
    assert_eq!(got_every, [0, 1, 2, 3, 4, 5]);
    assert_eq!(got_other, [0, 1, 2, 3, 4, 5]);
    // two more updates: everything above is gone for a reader that never read
    messages.update();
    assert_eq!(late.read(&messages).count(), 0);
}

// bevy_ecs message/message_cursor.rs, doc of `MessageCursor` (a `Local` cursor with
// `ResMut<Messages>`: a system that both reads and writes one message type)
#[test]
fn message_cursor_doc() {
    #[derive(Message, Clone, Debug)]
    struct MyMessage;
    #[derive(Resource, Default)]
    struct Resent(usize);
    fn send_and_receive_messages(
        mut local_message_reader: Local<MessageCursor<MyMessage>>,
        mut messages: ResMut<Messages<MyMessage>>,
        mut resent: ResMut<Resent>,
    ) {
        let mut messages_to_resend = Vec::new();
        for message in local_message_reader.read(&messages) {
            messages_to_resend.push(message.clone());
        }
        for _message in messages_to_resend {
            messages.write(MyMessage);
            resent.0 += 1;
        }
    }
    let mut world = World::new();
    world.add_message::<MyMessage>();
    world.init_resource::<Resent>();
    world.write_message(MyMessage);
    world.write_message(MyMessage);
    let mut schedule = Schedule::new();
    schedule.add_systems(send_and_receive_messages);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Resent>().0, 2, "reads the two written before");
    schedule.run(&mut world);
    assert_eq!(world.resource::<Resent>().0, 4, "then the two it wrote itself");
    assert_eq!(world.resource::<Messages<MyMessage>>().len(), 6);
}

// bevy_ecs message/message_reader.rs, doc of `MessageReader::par_read` (with `read`;
// `Messages` added by `init_resource`, written by `World::write_message`)
#[test]
fn message_reader_par_read_doc() {
    #[derive(Message)]
    struct MyMessage {
        value: usize,
    }
    #[derive(Resource, Default)]
    struct Counter(usize);
    let mut world = World::new();
    world.init_resource::<Messages<MyMessage>>();
    world.insert_resource(Counter::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut messages: MessageReader<MyMessage>, mut counter: ResMut<Counter>| {
        for MyMessage { value } in messages.read() {
            counter.0 += *value;
        }
    });
    for value in 0..100 {
        assert!(world.write_message(MyMessage { value }));
    }
    schedule.run(&mut world);
    let Counter(counter) = world.remove_resource::<Counter>().unwrap();
    // all messages were processed
    assert_eq!(counter, 4950);
}

// bevy_ecs message/message_mutator.rs, doc of `MessageMutator::par_read` (with `read`)
#[test]
fn message_mutator_par_read_doc() {
    #[derive(Message)]
    struct MyMessage {
        value: usize,
    }
    #[derive(Resource, Default)]
    struct Counter(usize);
    let mut world = World::new();
    world.init_resource::<Messages<MyMessage>>();
    world.insert_resource(Counter::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut messages: MessageMutator<MyMessage>, mut counter: ResMut<Counter>| {
        for MyMessage { value } in messages.read() {
            counter.0 += *value;
            *value = 0;
        }
    });
    for value in 0..100 {
        world.write_message(MyMessage { value });
    }
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 4950);
    assert!(world.resource::<Messages<MyMessage>>().iter().all(|m| m.value == 0), "the mutator wrote back");
}

// bevy_ecs message/message_reader.rs and message_mutator.rs, docs of `is_empty` /
// `clear` (behaviour triggered once per batch of new messages)
#[test]
fn message_reader_and_mutator_is_empty_clear_doc() {
    #[derive(Message)]
    struct Collision;
    #[derive(Resource, Default)]
    struct Sounds(u32, u32);
    fn play_collision_sound(mut messages: MessageReader<Collision>, mut sounds: ResMut<Sounds>) {
        if !messages.is_empty() {
            messages.clear();
            sounds.0 += 1;
        }
    }
    fn play_collision_sound_mut(mut messages: MessageMutator<Collision>, mut sounds: ResMut<Sounds>) {
        if !messages.is_empty() {
            messages.clear();
            assert!(messages.is_empty());
            sounds.1 += 1;
        }
    }
    let mut world = World::new();
    world.init_resource::<Sounds>();
    let mut schedule = Schedule::new();
    schedule.add_systems((play_collision_sound, play_collision_sound_mut).chain());
    schedule.run(&mut world); // adds the message type
    assert_eq!((world.resource::<Sounds>().0, world.resource::<Sounds>().1), (0, 0));
    world.write_message(Collision);
    world.write_message(Collision);
    schedule.run(&mut world);
    assert_eq!((world.resource::<Sounds>().0, world.resource::<Sounds>().1), (1, 1));
    world.update_messages();
    schedule.run(&mut world); // the same messages do not re-trigger
    assert_eq!((world.resource::<Sounds>().0, world.resource::<Sounds>().1), (1, 1));
    world.write_message(Collision);
    schedule.run(&mut world);
    assert_eq!((world.resource::<Sounds>().0, world.resource::<Sounds>().1), (2, 2));
}

// bevy_ecs message/mod.rs and message_writer.rs, docs of `Message` / `MessageWriter`
// (`write_hello` then `read_messages`, in one schedule and across frames)
#[test]
fn message_writer_and_reader_doc() {
    #[derive(Message)]
    struct Greeting(String);
    #[derive(Resource, Default)]
    struct Heard(Vec<String>);
    fn write_hello(mut writer: MessageWriter<Greeting>) {
        writer.write(Greeting("Hello!".to_string()));
    }
    fn read_messages(mut reader: MessageReader<Greeting>, mut heard: ResMut<Heard>) {
        for Greeting(greeting) in reader.read() {
            heard.0.push(greeting.clone());
        }
    }
    let mut world = World::new();
    world.init_resource::<Heard>();
    let mut schedule = Schedule::new();
    schedule.add_systems((write_hello, read_messages).chain());
    for _ in 0..3 {
        schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Heard>().0, ["Hello!", "Hello!", "Hello!"]);
    // a reader ordered before the writer sees each message one frame later, once
    let mut world = World::new();
    world.init_resource::<Heard>();
    let mut schedule = Schedule::new();
    schedule.add_systems((read_messages, write_hello).chain());
    for _ in 0..3 {
        schedule.run(&mut world);
        world.update_messages();
    }
    assert_eq!(world.resource::<Heard>().0.len(), 2);
}

// bevy_ecs message/message_writer.rs, `write_default` / `write_batch` on the param
#[test]
fn message_writer_write_default_and_batch() {
    #[derive(Message, Default, Debug, PartialEq, Clone, Copy)]
    struct Ping(u32);
    let mut world = World::new();
    world.run_system_once(|mut writer: MessageWriter<Ping>| {
        writer.write_default();
        writer.write_batch([Ping(1), Ping(2)]);
        writer.write(Ping(3));
    });
    let got: Vec<u32> = world.resource::<Messages<Ping>>().iter().map(|p| p.0).collect();
    assert_eq!(got, [0, 1, 2, 3]);
}

// bevy_ecs event/mod.rs `test_event_cursor_len_current` restated with a cursor that
// first reads everything (`clear`), then sees only what is written after
#[test]
fn test_event_cursor_len_current() {
    let mut messages = Messages::<TestMessage>::default();
    messages.write(TestMessage { i: 0 });
    let mut cursor = MessageCursor::<TestMessage>::default();
    cursor.clear(&messages);
    assert!(cursor.is_empty(&messages));
    messages.write(TestMessage { i: 1 });
    assert_eq!(cursor.len(&messages), 1);
    assert!(!cursor.is_empty(&messages));
    assert_eq!(cursor.read(&messages).map(|m| m.i).collect::<Vec<_>>(), [1]);
}

// bevy_ecs message/message_mutator.rs, doc of `MessageMutator` ("ideal for chains of
// systems that all want to modify the same messages"): a chained reader sees the
// mutated values, and each param reads each message once
#[test]
fn message_mutator_chain_doc() {
    fn double(mut mutator: MessageMutator<TestMessage>) {
        for message in mutator.read() {
            message.i *= 2;
        }
    }
    fn add_one(mut mutator: MessageMutator<TestMessage>) {
        for message in mutator.read() {
            message.i += 1;
        }
    }
    fn record(mut reader: MessageReader<TestMessage>, mut seen: ResMut<Seen>) {
        seen.0.extend(reader.read().map(|m| m.i));
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems((double, add_one, record).chain());
    schedule.run(&mut world);
    world.write_message(TestMessage { i: 1 });
    world.write_message(TestMessage { i: 5 });
    schedule.run(&mut world);
    world.update_messages();
    schedule.run(&mut world); // nothing new: no double mutation
    assert_eq!(world.resource::<Seen>().0, [3, 11]);
    let stored: Vec<usize> = world.resource::<Messages<TestMessage>>().iter().map(|m| m.i).collect();
    assert_eq!(stored, [3, 11]);
}

// bevy_ecs system/system_registry.rs, doc of `World::run_system` ("it keeps local state
// between calls"): a one-shot system's `MessageReader` keeps its cursor between runs,
// while each `run_system_once` starts a fresh reader
#[test]
fn registered_message_reader_keeps_its_cursor() {
    fn count(mut reader: MessageReader<TestMessage>) -> usize {
        reader.read().count()
    }
    let mut world = World::new();
    world.add_message::<TestMessage>();
    let id = world.register_system(count);
    world.write_message(TestMessage { i: 0 });
    world.write_message(TestMessage { i: 1 });
    assert_eq!(world.run_system(id), Ok(2));
    assert_eq!(world.run_system(id), Ok(0));
    world.write_message(TestMessage { i: 2 });
    assert_eq!(world.run_system(id), Ok(1));
    assert_eq!(world.run_system_once(count), 3, "a fresh reader sees every stored message");
}

// bevy_ecs system/system_registry.rs, doc of `SystemId` ("opaque identifiers, keyed to
// a specific World")
#[test]
fn system_id_doc_keyed_to_a_world() {
    let mut world_a = World::new();
    let mut world_b = World::new();
    let in_a = world_a.register_system(|| 1);
    let in_b = world_b.register_system(|| 2);
    assert_eq!(world_a.run_system(in_a), Ok(1));
    assert_eq!(world_b.run_system(in_b), Ok(2));
    assert!(matches!(world_b.run_system(in_a), Err(RunSystemError::NotRegistered { .. })));
    assert!(!world_b.unregister_system(in_a));
    assert_eq!(world_b.run_system(in_b), Ok(2));
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::unregister_system` (queued by the
// system itself: applied once it is back in the registry)
#[test]
fn unregister_system_from_its_own_commands() {
    #[derive(Resource, Default)]
    struct Me(Option<SystemId>);
    #[derive(Resource, Default)]
    struct Runs(u32);
    let mut world = World::new();
    world.init_resource::<Me>();
    world.init_resource::<Runs>();
    let id = world.register_system(|me: Res<Me>, mut runs: ResMut<Runs>, mut commands: Commands| {
        runs.0 += 1;
        let id = me.0.unwrap();
        commands.queue(move |world: &mut World| assert!(world.unregister_system(id)));
    });
    world.resource_mut::<Me>().0 = Some(id);
    assert_eq!(world.run_system(id), Ok(()));
    assert!(matches!(world.run_system(id), Err(RunSystemError::NotRegistered { .. })));
    assert_eq!(world.resource::<Runs>().0, 1);
}
