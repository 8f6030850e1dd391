//! Tests ported from bevy_ecs (bevy main, commit 4805ca792c3e) for commands:
//! `world/command_queue.rs` (unit tests), `system/commands/mod.rs` (the doc
//! examples of `Commands` and `EntityCommands`; its unit tests were ported
//! earlier, see below) and `system/commands/entity_command.rs` /
//! `command.rs` (no tests of their own). Each test names the Bevy file and the
//! test or doc example it ports; doc examples, which Bevy only compiles
//! (`assert_is_system`), are run here and their effect asserted.
//!
//! Already ported elsewhere (not repeated): commands/mod.rs `commands`,
//! `insert_components`, `remove_components`, `remove_resources`,
//! `test_commands_are_send_and_sync` (ported_bevy_more.rs), `append`
//! (ported_bevy_world.rs `command_queue_append_keeps_both_in_order`);
//! command_queue.rs `test_command_queue_inner_drop`, `_drop_early`,
//! `test_command_queue_inner`, `_panic_safe_panic` (ported_bevy_more.rs).
//!
//! Not ported:
//! - command_queue.rs `*_panic_safe_handled` (no `FallbackErrorHandler`),
//!   `test_uninit_bytes` (our queue holds boxed closures, no raw bytes).
//!   `test_command_queue_inner_nested_panic_safe_panic` is ported with a nested
//!   `CommandQueue` applied inside a command (no `World::commands` /
//!   `flush_commands`).
//! - commands/mod.rs `entity_commands_entry` and the `entry` docs (no
//!   `EntityCommands::entry`), `insert_*_if_not_equal*` (no `insert_if_neq`),
//!   `*_tracks_caller`, `remove_components_by_id`,
//!   `remove_component_with_required_components`,
//!   `unregister_system_cached_commands`, `track_spawn_ticks` (no such API);
//!   docs of `reborrow`, `get_entity`, `get_spawned_entity`, `queue_handled`,
//!   `init_resource`, `register_system`/`register_boxed_system` (no
//!   `Commands::register_system`), `run_schedule`, `insert_if`, `retain`,
//!   `clone_*`, `move_components`, `EntityCommands::trigger` (no such methods).
//! - `Commands::run_system` of an unregistered id: Bevy logs a warning, ours
//!   panics when applied (documented under `# Panics` on
//!   `Commands::run_system`).
//!
//! Found and fixed: `Commands::run_system` also panicked when the
//! one-shot system was skipped (a `Single` with no match: `RunSystemError::Skipped`)
//! or its parameters failed validation (a missing `Res`: `InvalidParam`); Bevy
//! handles every `RegisteredSystemError` of this command with `warn` (and treats
//! a skip as no error), and our `# Panics` section names only an unregistered or
//! running id. See `commands_run_system_of_a_skipped_system_does_not_panic` and
//! `commands_run_system_with_invalid_params_does_not_panic`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::world::CommandQueue;

#[derive(Resource, Default, Debug, PartialEq)]
struct Order(Vec<usize>);

#[derive(Component, Debug, PartialEq)]
struct Label(&'static str);
#[derive(Component, Debug, PartialEq)]
struct Strength(u32);
#[derive(Component, Debug, PartialEq)]
struct Agility(u32);
#[derive(Component, Debug, PartialEq)]
struct Health(u32);
#[derive(Component, Debug, PartialEq)]
struct Defense(u32);

#[derive(Bundle)]
struct CombatBundle {
    health: Health,
    strength: Strength,
}

#[derive(Resource)]
struct PlayerEntity {
    entity: Entity,
}

fn add_index(index: usize) -> impl FnOnce(&mut World) + Send + Sync + 'static {
    move |world: &mut World| world.resource_mut::<Order>().0.push(index)
}

// ===== world/command_queue.rs ==========================================================

// bevy_ecs world/command_queue.rs
#[test]
fn test_command_queue_inner_nested_panic_safe_panic() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut queue = CommandQueue::default();
    queue.push(add_index(1));
    queue.push(|world: &mut World| {
        let mut inner = CommandQueue::default();
        inner.push(add_index(2));
        inner.push(|_: &mut World| panic!("I panic!"));
        // Everything after here will get skipped due to the panic
        inner.push(add_index(3));
        inner.apply(world);
    });
    queue.push(add_index(4));
    let result = catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world)));
    assert!(result.is_err());
    assert!(queue.is_empty());
    queue.push(add_index(5));
    queue.apply(&mut world);
    assert_eq!(world.resource::<Order>().0, [1, 2, 5]);
}

// bevy_ecs world/command_queue.rs
#[test]
fn test_command_is_send() {
    fn assert_is_send_impl(_: impl Send) {}
    #[derive(Component)]
    struct A;
    assert_is_send_impl(|world: &mut World| {
        world.spawn(A);
    });
    let mut queue = CommandQueue::default();
    queue.push(|world: &mut World| {
        world.spawn(A);
    });
    // the queue itself moves to another thread and is applied there
    let mut world = World::new();
    let queue = std::thread::spawn(move || queue).join().unwrap();
    let mut queue = queue;
    queue.apply(&mut world);
    assert_eq!(world.query::<&A>().iter(&world).count(), 1);
}

// ===== system/commands/mod.rs doc examples ============================================

// bevy_ecs system/commands/mod.rs, doc of `Commands::spawn_empty`
#[test]
fn spawn_empty_doc() {
    fn example_system(mut commands: Commands) {
        // Create a new empty entity.
        commands.spawn_empty();
        // Create another empty entity.
        commands
            .spawn_empty()
            // Add a new component bundle to the entity.
            .insert((Strength(1), Agility(2)))
            // Add a single component to the entity.
            .insert(Label("hello world"));
    }
    let mut world = World::new();
    world.run_system_once(example_system);
    assert_eq!(world.entity_count(), 2);
    let rows: Vec<_> =
        world.query::<(&Strength, &Agility, &Label)>().iter(&world).map(|(s, a, l)| (s.0, a.0, l.0)).collect();
    assert_eq!(rows, [(1, 2, "hello world")]);
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::spawn`
#[test]
fn spawn_doc() {
    #[derive(Component)]
    struct ComponentA(u32);
    #[derive(Component)]
    struct ComponentB(u32);
    #[derive(Bundle)]
    struct ExampleBundle {
        a: ComponentA,
        b: ComponentB,
    }
    fn example_system(mut commands: Commands) {
        // Create a new entity with a single component.
        commands.spawn(ComponentA(1));
        // Create a new entity with two components using a "tuple bundle".
        commands.spawn((ComponentA(2), ComponentB(1)));
        // Create a new entity with a component bundle.
        commands.spawn(ExampleBundle { a: ComponentA(3), b: ComponentB(2) });
    }
    let mut world = World::new();
    world.run_system_once(example_system);
    let mut a: Vec<u32> = world.query::<&ComponentA>().iter(&world).map(|a| a.0).collect();
    a.sort();
    assert_eq!(a, [1, 2, 3]);
    let mut ab: Vec<(u32, u32)> =
        world.query::<(&ComponentA, &ComponentB)>().iter(&world).map(|(a, b)| (a.0, b.0)).collect();
    ab.sort();
    assert_eq!(ab, [(2, 1), (3, 2)]);
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::entity`
#[test]
fn entity_doc() {
    fn example_system(mut commands: Commands, player: Res<PlayerEntity>) {
        // Get the entity and add a component.
        commands.entity(player.entity).insert(Label("hello world"));
    }
    let mut world = World::new();
    let player = world.spawn_empty().id();
    world.insert_resource(PlayerEntity { entity: player });
    world.run_system_once(example_system);
    assert_eq!(world.get::<Label>(player), Some(&Label("hello world")));
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::spawn_batch`
#[test]
fn spawn_batch_doc() {
    #[derive(Component)]
    struct Score(u32);
    fn example_system(mut commands: Commands) {
        commands.spawn_batch([(Name::new("Alice"), Score(0)), (Name::new("Bob"), Score(0))]);
    }
    let mut world = World::new();
    world.run_system_once(example_system);
    assert_eq!(world.query::<&Score>().iter(&world).count(), 2);
    let alice = world.lookup("Alice").expect("Alice was spawned");
    let bob = world.lookup("Bob").expect("Bob was spawned");
    assert_ne!(alice, bob);
    assert_eq!(world.get::<Score>(alice).map(|s| s.0), Some(0));
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::queue` (the `Command` struct
// written as a closure; `get_resource_or_insert_with` written out)
#[test]
fn queue_doc() {
    #[derive(Resource, Default)]
    struct Counter(u64);
    fn add(world: &mut World, amount: &str) -> Result<(), std::num::ParseIntError> {
        if !world.contains_resource::<Counter>() {
            world.insert_resource(Counter::default());
        }
        let amount: u64 = amount.parse()?;
        world.resource_mut::<Counter>().0 += amount;
        Ok(())
    }
    fn add_three_to_counter_system(mut commands: Commands) {
        commands.queue(|world: &mut World| add(world, "3").unwrap());
    }
    fn add_twenty_five_to_counter_system(mut commands: Commands) {
        commands.queue(|world: &mut World| {
            if !world.contains_resource::<Counter>() {
                world.insert_resource(Counter::default());
            }
            world.resource_mut::<Counter>().0 += 25;
        });
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((add_three_to_counter_system, add_twenty_five_to_counter_system));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 28);
    // a command whose work fails leaves the world as it was
    let mut world = World::new();
    assert!(add(&mut world, "three").is_err());
    assert_eq!(world.resource::<Counter>().0, 0);
}

// bevy_ecs system/commands/mod.rs, docs of `Commands::insert_resource` and
// `Commands::remove_resource` ("This will overwrite any previous value")
#[test]
fn insert_resource_and_remove_resource_doc() {
    #[derive(Resource, Debug, PartialEq)]
    struct Scoreboard {
        current_score: u32,
        high_score: u32,
    }
    fn insert(mut commands: Commands) {
        commands.insert_resource(Scoreboard { current_score: 0, high_score: 0 });
    }
    fn remove(mut commands: Commands) {
        commands.remove_resource::<Scoreboard>();
    }
    let mut world = World::new();
    world.insert_resource(Scoreboard { current_score: 3, high_score: 7 });
    world.run_system_once(insert);
    assert_eq!(world.resource::<Scoreboard>(), &Scoreboard { current_score: 0, high_score: 0 });
    world.run_system_once(remove);
    assert!(!world.contains_resource::<Scoreboard>());
    // removing a missing resource is harmless
    world.run_system_once(remove);
    assert!(!world.contains_resource::<Scoreboard>());
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::insert`
#[test]
fn entity_commands_insert_doc() {
    fn add_combat_stats_system(mut commands: Commands, player: Res<PlayerEntity>) {
        commands
            .entity(player.entity)
            // You can insert individual components:
            .insert(Defense(10))
            // You can also insert pre-defined bundles of components:
            .insert(CombatBundle { health: Health(100), strength: Strength(40) })
            // You can also insert tuples of components and bundles.
            // This is equivalent to the calls above:
            .insert((Defense(11), CombatBundle { health: Health(101), strength: Strength(41) }));
    }
    let mut world = World::new();
    let player = world.spawn_empty().id();
    world.insert_resource(PlayerEntity { entity: player });
    world.run_system_once(add_combat_stats_system);
    assert_eq!(world.get::<Defense>(player), Some(&Defense(11)));
    assert_eq!(world.get::<Health>(player), Some(&Health(101)));
    assert_eq!(world.get::<Strength>(player), Some(&Strength(41)));
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::insert_if_new`
// ("in case of duplicate components will leave the old values")
#[test]
fn entity_commands_insert_if_new_doc() {
    let mut world = World::new();
    let player = world.spawn(Health(5)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(player).insert_if_new((Health(100), Strength(40)));
    });
    assert_eq!(world.get::<Health>(player), Some(&Health(5)));
    assert_eq!(world.get::<Strength>(player), Some(&Strength(40)));
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::try_insert`
#[test]
fn entity_commands_try_insert_doc() {
    fn add_combat_stats_system(mut commands: Commands, player: Res<PlayerEntity>) {
        commands
            .entity(player.entity)
            // You can insert individual components:
            .try_insert(Defense(10))
            // You can also insert tuples of components:
            .try_insert(CombatBundle { health: Health(100), strength: Strength(40) });
        // Suppose this occurs in a parallel adjacent system or process.
        commands.entity(player.entity).despawn();
        // This will not panic nor will it add the component.
        commands.entity(player.entity).try_insert(Defense(5));
    }
    let mut world = World::new();
    let player = world.spawn_empty().id();
    world.insert_resource(PlayerEntity { entity: player });
    world.run_system_once(add_combat_stats_system);
    assert!(!world.is_alive(player));
    assert_eq!(world.query::<&Defense>().iter(&world).count(), 0);
    assert_eq!(world.entity_count(), 0);
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::remove`
#[test]
fn entity_commands_remove_doc() {
    fn remove_combat_stats_system(mut commands: Commands, player: Res<PlayerEntity>) {
        commands
            .entity(player.entity)
            // You can remove individual components:
            .remove::<Defense>()
            // You can also remove pre-defined bundles of components:
            .remove::<CombatBundle>()
            // You can also remove tuples of components and bundles.
            // This is equivalent to the calls above:
            .remove::<(Defense, CombatBundle)>();
    }
    let mut world = World::new();
    let player = world.spawn((Defense(1), Health(2), Strength(3), Label("kept"))).id();
    let other = world.spawn((Health(2), Label("partial"))).id();
    world.insert_resource(PlayerEntity { entity: player });
    world.run_system_once(remove_combat_stats_system);
    assert!(!world.has::<Defense>(player) && !world.has::<Health>(player) && !world.has::<Strength>(player));
    assert_eq!(world.get::<Label>(player), Some(&Label("kept")));
    // "the entity does not need to have all the components in the bundle"
    world.insert_resource(PlayerEntity { entity: other });
    world.run_system_once(remove_combat_stats_system);
    assert!(!world.has::<Health>(other));
    assert_eq!(world.get::<Label>(other), Some(&Label("partial")));
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::remove` ("This will emit a
// warning if the entity does not exist": no panic) and of `EntityCommands::despawn`
#[test]
fn entity_commands_remove_and_despawn_of_a_dead_entity_do_not_panic() {
    #[derive(Resource)]
    struct CharacterToRemove {
        entity: Entity,
    }
    fn remove_character_system(mut commands: Commands, character_to_remove: Res<CharacterToRemove>) {
        commands.entity(character_to_remove.entity).despawn();
        commands.entity(character_to_remove.entity).remove::<Health>();
        commands.entity(character_to_remove.entity).despawn();
    }
    let mut world = World::new();
    let character = world.spawn(Health(1)).id();
    let bystander = world.spawn(Health(2)).id();
    world.insert_resource(CharacterToRemove { entity: character });
    world.run_system_once(remove_character_system);
    assert!(!world.is_alive(character));
    assert_eq!(world.get::<Health>(bystander), Some(&Health(2)));
}

// bevy_ecs system/commands/mod.rs, doc of `EntityCommands::queue` (an entity command
// for an entity spawned in the same queue runs once it exists)
#[test]
fn entity_commands_queue_doc() {
    #[derive(Resource, Default)]
    struct Executed(Vec<Entity>);
    let mut world = World::new();
    world.init_resource::<Executed>();
    let spawned = world.run_system_once(|mut commands: Commands| {
        commands
            .spawn_empty()
            .queue(|world: &mut World, entity: Entity| {
                assert!(world.is_alive(entity));
                world.resource_mut::<Executed>().0.push(entity);
            })
            .id()
    });
    assert_eq!(world.resource::<Executed>().0, [spawned]);
}

// bevy_ecs message/message_writer.rs, doc "Untyped messages" (a message written by a
// queued command is not there until the commands are applied), also
// `Commands::write_message` (system/commands/mod.rs)
#[test]
fn write_untyped_doc() {
    #[derive(Message)]
    struct MyMessage;
    let mut world = World::new();
    world.add_message::<MyMessage>();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.queue(|w: &mut World| {
            w.write_message(MyMessage);
        });
        commands.write_message(MyMessage);
    }
    assert!(world.resource::<Messages<MyMessage>>().is_empty());
    queue.apply(&mut world);
    assert_eq!(world.resource::<Messages<MyMessage>>().len(), 2);
}

// bevy_ecs system/commands/mod.rs, `Commands::run_system` "Fallible": a system that
// cannot run is reported (Bevy: a `RegisteredSystemError` logged at `warn`), not a
// panic. Skipped systems (a `Single` without a match) are "not considered an
// error" (`RegisteredSystemError::Skipped`).
#[test]
fn commands_run_system_of_a_skipped_system_does_not_panic() {
    #[derive(Component)]
    struct Player;
    #[derive(Resource, Default)]
    struct Runs(u32);
    let mut world = World::new();
    world.init_resource::<Runs>();
    let id = world.register_system(|_player: Single<&Player>, mut runs: ResMut<Runs>| runs.0 += 1);
    assert!(matches!(world.run_system(id), Err(RunSystemError::Skipped { .. })));
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.run_system_once(move |mut commands: Commands| commands.run_system(id));
    }));
    assert!(result.is_ok(), "a skipped one-shot system run through Commands must not panic");
    assert_eq!(world.resource::<Runs>().0, 0);
}

// bevy_ecs system/commands/mod.rs, `Commands::run_system` "Fallible" with
// system_registry.rs `run_system_invalid_params` (a missing resource is a
// `RegisteredSystemError::Failed`, logged at `warn` by the command)
#[test]
fn commands_run_system_with_invalid_params_does_not_panic() {
    #[derive(Resource)]
    struct T;
    let mut world = World::new();
    let id = world.register_system(|_: Res<T>| {});
    assert!(matches!(world.run_system(id), Err(RunSystemError::InvalidParam { .. })));
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.run_system_once(move |mut commands: Commands| commands.run_system(id));
    }));
    assert!(result.is_ok(), "a one-shot system whose params fail validation must not panic through Commands");
}

// bevy_ecs system/commands/mod.rs, `Commands::run_system_with` (commands of the
// one-shot system are applied too, in order with the caller's)
#[test]
fn commands_run_system_with_input_and_nested_commands() {
    let mut world = World::new();
    world.init_resource::<Order>();
    let push = world.register_system(|In(i): In<usize>, mut commands: Commands| {
        commands.queue(add_index(i * 10));
    });
    world.run_system_once(move |mut commands: Commands| {
        commands.queue(add_index(1));
        commands.run_system_with(push, 2);
        commands.queue(add_index(3));
    });
    assert_eq!(world.resource::<Order>().0, [1, 20, 3]);
}

// bevy_ecs system/commands/mod.rs, doc of `Commands::trigger` / `EntityCommands::observe`
#[test]
fn commands_trigger_and_observe() {
    #[derive(Event)]
    struct Explode(usize);
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|trigger: Trigger<Explode>, mut order: ResMut<Order>| order.0.push(trigger.event().0));
    let mine = world.run_system_once(|mut commands: Commands| {
        let mine = commands
            .spawn_empty()
            .observe(|trigger: Trigger<Explode>, mut order: ResMut<Order>| order.0.push(100 + trigger.event().0))
            .id();
        commands.trigger(Explode(1));
        commands.trigger_targets(Explode(2), mine);
        mine
    });
    let mut seen = world.resource::<Order>().0.clone();
    seen.sort();
    assert_eq!(seen, [1, 2, 102]);
    assert!(world.is_alive(mine));
}

// bevy_ecs system/commands/mod.rs `remove_components`' drop check, for commands
// that are never applied (a cleared queue drops the values it owns once)
#[test]
fn cleared_queue_drops_owned_values_once() {
    #[derive(Component)]
    struct DropCk(Arc<AtomicUsize>);
    impl Drop for DropCk {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.spawn(DropCk(drops.clone()));
        commands.insert_resource(Order::default());
    }
    assert_eq!(queue.len(), 2);
    queue.clear();
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    queue.apply(&mut world);
    assert!(!world.contains_resource::<Order>());
    assert_eq!(world.query::<&DropCk>().iter(&world).count(), 0);
}

// bevy_ecs world/command_queue.rs (`CommandQueue::apply` flushes the world's own
// queue after each command): commands that a hook or observer queues while one
// command applies run before the next command of the queue
#[test]
fn observer_commands_apply_before_the_next_queued_command() {
    #[derive(Component)]
    struct Spawned;
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: Trigger<OnAdd, Spawned>, mut commands: Commands| {
        commands.queue(add_index(2));
    });
    world.run_system_once(|mut commands: Commands| {
        commands.queue(add_index(1));
        commands.spawn(Spawned);
        commands.queue(add_index(3));
    });
    assert_eq!(world.resource::<Order>().0, [1, 2, 3]);
}

// bevy_ecs world/command_queue.rs `test_command_queue_inner_panic_safe_panic`, for a
// system's own queue in a schedule: after a command of the first run panics, the
// system's later runs queue and apply normally (nothing of the failed run replays)
#[test]
fn system_queue_after_a_panicking_command() {
    fn system(mut commands: Commands, mut runs: Local<usize>) {
        *runs += 1;
        let run = *runs;
        commands.queue(add_index(run * 10));
        if run == 1 {
            commands.queue(|_: &mut World| panic!("command is panicking"));
        }
        commands.queue(add_index(run * 10 + 1));
    }
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut schedule = Schedule::new();
    schedule.add_systems(system);
    let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(result.is_err());
    assert_eq!(world.resource::<Order>().0, [10]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Order>().0, [10, 20, 21]);
}

// bevy_ecs system/commands/mod.rs `commands` and doc of `Commands::spawn` (ids are
// reserved when `spawn` is called): two queues that reserve ids and are applied in
// the other order, with a direct spawn in between, give distinct, alive entities
#[test]
fn reserved_ids_from_two_queues_applied_out_of_order() {
    let mut world = World::new();
    let mut queue_1 = CommandQueue::default();
    let mut queue_2 = CommandQueue::default();
    let a = Commands::new(&mut queue_1, &world).spawn(Strength(1)).id();
    let b = Commands::new(&mut queue_2, &world).spawn(Strength(2)).id();
    let c = Commands::new(&mut queue_1, &world).spawn_empty().id();
    let direct = world.spawn(Strength(3)).id();
    queue_2.apply(&mut world);
    queue_1.apply(&mut world);
    let ids = [a, b, c, direct];
    for (i, x) in ids.iter().enumerate() {
        assert!(world.is_alive(*x));
        for y in &ids[i + 1..] {
            assert_ne!(x, y);
        }
    }
    assert_eq!(world.get::<Strength>(a), Some(&Strength(1)));
    assert_eq!(world.get::<Strength>(b), Some(&Strength(2)));
    assert_eq!(world.get::<Strength>(direct), Some(&Strength(3)));
    assert!(!world.has::<Strength>(c));
    assert_eq!(world.entity_count(), 4);
}
