//! Command buffers in the model test: an `Op::Commands` fills one
//! `CommandQueue` through `Commands` (spawn, insert / try_insert, remove,
//! despawn, add_pair / insert_pair, remove_pair), checks that nothing happened
//! yet (spawned ids are reserved, not alive), applies it, and replays the same
//! commands on the model in order.
//!
//! The model follows the documented rules of each command when it applies:
//! every reserved entity becomes alive (empty) first; `try_insert`, `remove`,
//! `despawn`, `add_pair` and `remove_pair` on a dead entity do nothing, while
//! `insert` on one panics; `add_pair` / `insert_pair` on a dead *target* applies
//! the relationship's `on_delete_target` policy to the entity (nothing, despawn,
//! or panic); `add_pair::<Owes>` (no value) and a `ChildOf` cycle panic; a
//! despawn refused by an `Anchored` pair panics. A command that panics ends the
//! application: the commands after it are dropped unrun (with their values, which
//! the live counters see). Commands name entities of the case, entities spawned
//! earlier in the same buffer, and stale handles, so a buffer often acts on an
//! entity that one of its own earlier commands despawned.

use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::world::PairError;
use proptest::prelude::*;

use super::panics::catch_quiet;
use super::typed::*;
use super::types::*;
use super::{Harness, Op, Target, kinds, spawn_set};

/// An entity named by a command.
#[derive(Clone, Copy, Debug)]
pub(super) enum CmdTarget {
    /// An entity of the case, resolved when the command is recorded.
    World(Target),
    /// The `i`-th entity spawned earlier in the same buffer (modulo their
    /// number); an alive entity of the case if there is none yet.
    Spawned(usize),
}

/// One command of a buffer.
#[derive(Clone, Debug)]
pub(super) enum Cmd {
    /// `Commands::spawn` of the values (`spawn_empty` for none).
    Spawn {
        values: Vec<Val>,
        reverse: bool,
    },
    /// `EntityCommands::insert` (`checked`, panics on a dead entity) or `try_insert`.
    Insert {
        target: CmdTarget,
        values: Vec<Val>,
        checked: bool,
    },
    /// `EntityCommands::remove` of one component or a 2-component bundle.
    Remove {
        target: CmdTarget,
        kinds: Vec<Kind>,
    },
    Despawn {
        target: CmdTarget,
    },
    /// `add_pair::<rel>` (`amount == None`) or `insert_pair`.
    AddPair {
        rel: Rel,
        source: CmdTarget,
        target: CmdTarget,
        amount: Option<u32>,
    },
    RemovePair {
        rel: Rel,
        source: CmdTarget,
        target: CmdTarget,
    },
}

/// A recorded command, its entities resolved.
#[derive(Clone, Debug)]
enum Recorded {
    Spawn(Entity, Vec<Val>),
    Insert(Entity, Vec<Val>, bool),
    Remove(Entity, Vec<Kind>),
    Despawn(Entity),
    AddPair(Rel, Entity, Entity, Option<u32>),
    RemovePair(Rel, Entity, Entity),
}

fn insert1<A: Comp>(commands: &mut Commands, entity: Entity, a: Val, checked: bool) {
    let value = A::make(a);
    match checked {
        true => commands.entity(entity).insert(value),
        false => commands.entity(entity).try_insert(value),
    };
}

fn insert2<A: Comp, B: Comp>(commands: &mut Commands, entity: Entity, a: Val, b: Val, checked: bool) {
    let value = (A::make(a), B::make(b));
    match checked {
        true => commands.entity(entity).insert(value),
        false => commands.entity(entity).try_insert(value),
    };
}

fn remove1<A: Comp>(commands: &mut Commands, entity: Entity) {
    commands.entity(entity).remove::<A>();
}

fn remove2<A: Comp, B: Comp>(commands: &mut Commands, entity: Entity) {
    commands.entity(entity).remove::<(A, B)>();
}

fn add_pair<R: RelType>(commands: &mut Commands, entity: Entity, target: Entity, amount: Option<u32>) {
    match amount {
        None => commands.entity(entity).add_pair::<R>(target),
        Some(amount) => commands.entity(entity).insert_pair(R::make(amount), target),
    };
}

fn remove_pair<R: RelType>(commands: &mut Commands, entity: Entity, target: Entity) {
    commands.entity(entity).remove_pair::<R>(target);
}

impl Harness {
    fn resolve_cmd(&self, target: CmdTarget, spawned: &[Entity]) -> Option<Entity> {
        match target {
            CmdTarget::World(target) => self.resolve(target),
            CmdTarget::Spawned(i) if spawned.is_empty() => self.resolve(Target::Alive(i)),
            CmdTarget::Spawned(i) => Some(spawned[i % spawned.len()]),
        }
    }

    /// Records `cmds` into a queue, applies it, and replays them on the model.
    pub(super) fn apply_commands(&mut self, cmds: &[Cmd]) {
        let count = self.world.entity_count();
        let mut queue = CommandQueue::default();
        let mut spawned: Vec<Entity> = Vec::new();
        let mut recorded: Vec<Recorded> = Vec::new();
        let mut commands = Commands::new(&mut queue, &self.world);
        for cmd in cmds {
            let resolve = |target: CmdTarget| self.resolve_cmd(target, &spawned);
            let command = match cmd {
                Cmd::Spawn { values, reverse } => {
                    let entity = match spawn_values(&mut commands, values, *reverse) {
                        Some(entity) => entity,
                        None => commands.spawn_empty().id(),
                    };
                    spawned.push(entity);
                    Recorded::Spawn(entity, values.clone())
                }
                Cmd::Insert { target, values, checked } => {
                    let Some(entity) = resolve(*target) else { continue };
                    match values.as_slice() {
                        [a] => with_kind!(a.kind(), A => insert1::<A>(&mut commands, entity, a.clone(), *checked)),
                        [a, b] => with_kind!(a.kind(), A => with_kind!(b.kind(), B =>
                            insert2::<A, B>(&mut commands, entity, a.clone(), b.clone(), *checked))),
                        _ => unreachable!("inserts have 1 or 2 values"),
                    }
                    Recorded::Insert(entity, values.clone(), *checked)
                }
                Cmd::Remove { target, kinds } => {
                    let Some(entity) = resolve(*target) else { continue };
                    match kinds.as_slice() {
                        [a] => with_kind!(*a, A => remove1::<A>(&mut commands, entity)),
                        [a, b] => with_kind!(*a, A => with_kind!(*b, B => remove2::<A, B>(&mut commands, entity))),
                        _ => unreachable!("removes have 1 or 2 kinds"),
                    }
                    Recorded::Remove(entity, kinds.clone())
                }
                Cmd::Despawn { target } => {
                    let Some(entity) = resolve(*target) else { continue };
                    commands.entity(entity).despawn();
                    Recorded::Despawn(entity)
                }
                Cmd::AddPair { rel, source, target, amount } => {
                    let (Some(entity), Some(target)) = (resolve(*source), resolve(*target)) else { continue };
                    with_rel!(*rel, R => add_pair::<R>(&mut commands, entity, target, *amount));
                    Recorded::AddPair(*rel, entity, target, *amount)
                }
                Cmd::RemovePair { rel, source, target } => {
                    let (Some(entity), Some(target)) = (resolve(*source), resolve(*target)) else { continue };
                    with_rel!(*rel, R => remove_pair::<R>(&mut commands, entity, target));
                    Recorded::RemovePair(*rel, entity, target)
                }
            };
            recorded.push(command);
        }
        // Recording changed nothing: the spawned entities are only reserved (the
        // values live in the queue until it applies, so the counters are off now).
        for &entity in &spawned {
            assert!(!self.world.is_alive(entity), "{entity:?} is alive before its command buffer applies");
        }
        assert_eq!(self.world.entity_count(), count, "entity_count after recording commands");
        self.world.check_invariants();

        let applied = catch_quiet(|| queue.apply(&mut self.world));
        for &entity in &spawned {
            self.model_spawn(entity);
        }
        let mut expected_panic = None;
        for (index, command) in recorded.iter().enumerate() {
            if let Err(needle) = self.model_command(command) {
                expected_panic = Some((index, command, needle));
                break;
            }
        }
        match (applied, expected_panic) {
            (Ok(()), None) => {}
            (Err(message), Some((index, command, needle))) => assert!(
                message.contains(needle),
                "command #{index} {command:?} panicked with {message:?}; the model expects a mention of {needle:?} \
                 (buffer: {recorded:?})"
            ),
            (Ok(()), Some((index, command, needle))) => {
                panic!("command #{index} {command:?} did not panic ({needle:?} expected; buffer: {recorded:?})")
            }
            (Err(message), None) => panic!("the command buffer panicked: {message:?} (buffer: {recorded:?})"),
        }
    }

    /// Applies one recorded command to the model; `Err` with a word its panic
    /// message must contain if the world's command panics.
    fn model_command(&mut self, command: &Recorded) -> Result<(), &'static str> {
        match command {
            Recorded::Spawn(entity, values) => {
                assert!(self.model.contains_key(entity), "a spawned entity is alive when its command runs");
                self.model_insert(*entity, values);
            }
            Recorded::Insert(entity, values, checked) => {
                if self.model.contains_key(entity) {
                    self.model_insert(*entity, values);
                } else if *checked {
                    return Err("not alive");
                }
            }
            Recorded::Remove(entity, kinds) => {
                self.model_remove(*entity, kinds, false);
            }
            Recorded::Despawn(entity) => {
                self.despawn_model(*entity).map_err(|_| "Anchored")?;
            }
            Recorded::AddPair(rel, entity, target, amount) => {
                if !self.model.contains_key(entity) {
                    return Ok(());
                }
                if !self.model.contains_key(target) {
                    // The pair counts as added before the target died.
                    return match rel.on_delete_target() {
                        ecs::component::CleanupPolicy::Remove => Ok(()),
                        ecs::component::CleanupPolicy::Delete => {
                            self.despawn_model(*entity).map(|_| ()).map_err(|_| "Anchored")
                        }
                        ecs::component::CleanupPolicy::Panic => Err("Anchored"),
                    };
                }
                match self.expected_add(*rel, *entity, *target, amount.is_some()) {
                    Ok(()) => self.model_add_pair(*entity, *rel, *target, *amount),
                    Err(PairError::NeedsValue { .. }) => return Err("Owes"),
                    Err(PairError::Cycle { .. }) => return Err("cyclic"),
                    Err(
                        error @ (PairError::NotAlive(_)
                        | PairError::Wildcard { .. }
                        | PairError::NameTaken(_)
                        | PairError::UnionMarker { .. }
                        | PairError::AncestorInstance { .. }),
                    ) => {
                        unreachable!(
                            "both are alive, targets are never wildcards or *union*, nothing is named, no IsA, \
                             yet {error:?}"
                        )
                    }
                }
            }
            Recorded::RemovePair(rel, entity, target) => {
                self.model_remove_pair(*entity, *rel, *target);
            }
        }
        Ok(())
    }
}

/// An entity for a command: mostly one spawned by the same buffer or alive.
///
/// No `Target::Future`: resolved when the command is recorded, it may name the
/// next generation of an index that an earlier command of the buffer frees, and
/// a component registered by a later command (components are entities) takes
/// exactly that id; the model does not track component entities.
fn cmd_target() -> impl Strategy<Value = CmdTarget> {
    prop_oneof![
        4 => any::<usize>().prop_map(CmdTarget::Spawned),
        5 => any::<usize>().prop_map(|i| CmdTarget::World(Target::Alive(i))),
        1 => any::<usize>().prop_map(|i| CmdTarget::World(Target::Stale(i))),
        1 => Just(CmdTarget::World(Target::Never)),
    ]
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let rel = prop_oneof![
        3 => Just(Rel::Likes),
        2 => Just(Rel::DockedTo),
        3 => Just(Rel::ChildOf),
        2 => Just(Rel::Owes),
        1 => Just(Rel::Anchored),
    ];
    prop_oneof![
        3 => spawn_set().prop_map(|(values, reverse)| Cmd::Spawn { values, reverse }),
        3 => (cmd_target(), kinds(), 0..100u64, proptest::bool::weighted(0.25)).prop_map(
            |(target, kinds, seed, checked)| Cmd::Insert {
                target,
                values: kinds.iter().map(|&k| Val::new(k, seed)).collect(),
                checked
            }
        ),
        2 => (cmd_target(), kinds()).prop_map(|(target, kinds)| Cmd::Remove { target, kinds }),
        2 => cmd_target().prop_map(|target| Cmd::Despawn { target }),
        5 => (rel, cmd_target(), cmd_target(), 0..1000u32, proptest::bool::weighted(0.9)).prop_map(
            |(rel, source, target, amount, value)| Cmd::AddPair {
                rel,
                source,
                target,
                // `Owes` needs a value (without one the command panics); the
                // others take one now and then (`insert_pair` of a tag).
                amount: (value == (rel == Rel::Owes)).then_some(amount),
            }
        ),
        2 => (
            prop_oneof![Just(Rel::Likes), Just(Rel::Owes), Just(Rel::DockedTo), Just(Rel::ChildOf), Just(Rel::Anchored)],
            cmd_target(),
            cmd_target()
        )
            .prop_map(|(rel, source, target)| Cmd::RemovePair { rel, source, target }),
    ]
}

/// A command buffer of 1 to 9 commands.
pub(super) fn commands_op() -> impl Strategy<Value = Op> {
    proptest::collection::vec(cmd(), 1..10).prop_map(Op::Commands)
}
