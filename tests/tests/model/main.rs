//! Model-based test: random sequences of structural operations, component reads
//! and writes, relationship pairs, command buffers and queries are run against a
//! [`World`] (with or without observers) and
//! against a naive model (`HashMap<Entity, [Option<Val>; KINDS]>` for components,
//! `BTreeMap<(Rel, Entity), Option<u32>>` per entity for pairs); after every step
//! the whole world is compared with the model and `World::check_invariants` runs.
//!
//! Every component type counts its live values in a thread-local counter (bumped
//! by its constructor, lowered by its `Drop`), so a value dropped twice or never is
//! noticed: after every step each counter equals the number of model entities
//! holding that component, and after the world is dropped every counter is zero.
//! The data relationship `Owes` is counted the same way (one value per pair).
//!
//! The component types cover: a zero-sized table tag with a `Drop` impl (`Tag`), an
//! over-aligned table value (`Pos`), heap data in a table (`Text`), heap data in a
//! sparse set (`Spr`) and a zero-sized sparse tag (`SprTag`).
//!
//! The relationships cover: a tag relationship with no traits (`Likes`:
//! `on_delete_target = remove`), a data relationship with no traits (`Owes`), an
//! exclusive one whose holders die with their target (`DockedTo`, not acyclic, so
//! it may form cycles), one whose targets cannot die while a holder survives
//! (`Anchored`: `on_delete_target = panic`) and the built-in `ChildOf`
//! (exclusive, acyclic, holders die with their target).
//!
//! Operations: spawn (any subset, as a nested-tuple bundle in either component
//! order), insert and remove (one component or a 2-component bundle), despawn,
//! `get_mut` writes, queries (cached `QueryState`s and fresh ones: rows, filtered
//! rows, `iter_mut` writes, `QueryState::get`/`get_mut`). Targets are alive
//! entities, stale handles, alive indices with a later generation, or an index
//! never allocated. One case in 32 first spawns about a thousand empty
//! entities, so the entities under test straddle the sparse sets' first page.
//!
//! Pair operations: `add_pair` / `insert_pair` of every relationship (through
//! `World::try_*`, the `bool` forms and `EntityWorldMut`), with the errors
//! modelled (`NotAlive` for a dead target or source, `NeedsValue` for `Owes`
//! without a value, `Cycle` for `ChildOf`), exclusivity (a new `DockedTo` /
//! `ChildOf` target replaces the old one), `remove_pair`, `get_pair_mut` writes,
//! `Pair<&mut Owes>` writes, and despawn (`despawn`, `try_despawn`,
//! `EntityWorldMut::despawn`) with cleanup: holders of `(Likes, x)` / `(Owes, x)`
//! lose the pair, holders of `(DockedTo, x)` / `(ChildOf, x)` are despawned,
//! recursively (the model walks a worklist with a visited set), and a surviving
//! holder of `(Anchored, x)` for any dying `x` refuses the whole despawn
//! (`try_despawn` returns the `CleanupError`, the panicking forms panic; nothing
//! changes). After every step
//! every entity's pairs are compared through `targets`, `target`, `parent`,
//! `has_pair` (also with the wildcard, stale handles and later generations of
//! the targets' indices), `get_pair`, `sources` and `children`, and the cached
//! `Pair<Likes>`, `Pair<&Owes>`, `Pair<DockedTo>` and `Pair<ChildOf>` queries
//! (one row per pair) are compared; pair query operations also compare
//! cartesian products of two pair terms, `Option<Pair<_>>`, pairs with
//! components and filters, `WithPair`, `with_pair` runtime targets (one kept for
//! the rest of the case, so its target's death is seen) and `cascade` order.
//! The pair query states are created at a case's first pair operation, so the
//! relationships are registered by `add_pair` / `insert_pair` themselves while
//! entities exist (and `targets`, `has_pair`, ... run on unregistered ones first).
//!
//!
//! Command buffers (`commands`): 1 to 9 commands (spawn, insert, try_insert,
//! remove, despawn, add_pair, insert_pair, remove_pair) recorded through
//! `Commands`, then applied; the model replays them in order, with the cleanup
//! policies and panics of each command. Observers (`observers`, in half of the
//! pair and command cases): `OnAdd`/`OnRemove`/`OnInsert`/`OnDespawn` observers
//! that count into a resource and insert or remove components through their own
//! commands; the model mirrors every effect.
//!
//! Case counts (debug, CI): `world_matches_model` 4,000 cases of 1 to 39
//! component operations; `world_matches_pair_model` 2,500 cases of 2 to 6 spawns
//! then 1 to 39 mixed pair and component operations; `world_matches_command_model`
//! 2,500 cases of 2 to 6 spawns then 1 to 29 command buffers and pair operations.
//! `MODEL_CASES=N` sets every one of them to N cases, for long runs:
//! `MODEL_CASES=100000 cargo test --release -p ecs-tests --test model`.
//! No failure-persistence files are written.

#[macro_use]
mod types;
mod commands;
mod observers;
mod panics;
mod typed;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::world::{CleanupError, PairError};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use commands::{Cmd, CmdTarget};
use ecs::component::CleanupPolicy;
use observers::{Observed, Observers};
use panics::catch_quiet;
use typed::*;
use types::*;

// ----- operations -------------------------------------------------------------------

/// Which entity an operation targets, resolved against the model at run time.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// An alive entity (index modulo the alive count); skipped if there is none.
    Alive(usize),
    /// A despawned handle (the never-allocated one if there is none).
    Stale(usize),
    /// An alive entity's index with the next generation (not alive).
    Future(usize),
    /// An index that was never allocated.
    Never,
}

#[derive(Clone, Copy, Debug)]
enum Query {
    /// `Entity`: every user entity.
    All,
    /// `(Entity, &Pos)`
    Pos,
    /// `(Entity, &Text)`
    Text,
    /// `(Entity, &Spr)`
    Spr,
    /// `(Entity, Option<&Pos>, Option<&Spr>, Has<Tag>, Has<SprTag>)`
    Optional,
    /// `(Entity, &Text, &Spr)`
    TextSpr,
    /// `Entity` with `(With<Tag>, Without<Pos>)`
    TagNoPos,
    /// `Entity` with `(With<SprTag>, Without<Text>)`
    SprTagNoText,
    /// `Entity` with `Or<(With<Pos>, With<SprTag>)>`
    PosOrSprTag,
}

const QUERIES: [Query; 9] = [
    Query::All,
    Query::Pos,
    Query::Text,
    Query::Spr,
    Query::Optional,
    Query::TextSpr,
    Query::TagNoPos,
    Query::SprTagNoText,
    Query::PosOrSprTag,
];

#[derive(Clone, Debug)]
enum Op {
    /// Spawns the kinds present, as one nested-tuple bundle (reversed or not);
    /// an empty set uses `spawn_empty`.
    Spawn {
        values: Vec<Val>,
        reverse: bool,
    },
    /// Inserts one component or a 2-component bundle.
    Insert {
        target: Target,
        values: Vec<Val>,
    },
    /// Removes one component or a 2-component bundle.
    Remove {
        target: Target,
        kinds: Vec<Kind>,
    },
    Despawn {
        target: Target,
    },
    /// `get_mut` and a write through the `Mut`.
    Mutate {
        target: Target,
        kind: Kind,
        seed: u32,
    },
    /// Runs a query (a cached state or a fresh one) and compares its rows.
    Query {
        query: Query,
        fresh: bool,
    },
    /// `(Entity, &mut Pos)` (`spr == false`) or `(Entity, &mut Spr)` with
    /// `Without<Tag>` (`spr == true`) through `iter_mut`, writing every row.
    QueryMut {
        spr: bool,
        seed: u32,
        fresh: bool,
    },
    /// `QueryState::get` of `(Entity, &Pos)` or, with `filtered`, of
    /// `Entity, (With<Tag>, Without<Pos>)`.
    QueryGet {
        target: Target,
        filtered: bool,
    },
    /// `QueryState::get_mut` of `(Entity, &mut Pos)` and a write.
    QueryGetMut {
        target: Target,
        seed: u32,
    },
    /// `try_despawn`, or `EntityWorldMut::despawn` (with `entity_mut`, where the
    /// entity is alive).
    TryDespawn {
        target: Target,
        entity_mut: bool,
    },
    /// `add_pair::<rel>(source, target)` (`amount == None`) or
    /// `insert_pair(source, rel value, target)`.
    AddPair {
        rel: Rel,
        source: Target,
        target: Target,
        existing: Option<Existing>,
        amount: Option<u32>,
        how: How,
    },
    /// `remove_pair::<rel>(source, target)`.
    RemovePair {
        rel: Rel,
        source: Target,
        target: Target,
        existing: Option<Existing>,
        entity_mut: bool,
    },
    /// `get_pair_mut::<rel>(source, target)` and a write (`None` for tags).
    MutatePair {
        rel: Rel,
        source: Target,
        target: Target,
        existing: Option<Existing>,
        seed: u32,
    },
    /// Runs a pair query (a cached state or a fresh one) and compares its rows.
    PairQuery {
        query: PairQuery,
        fresh: bool,
    },
    /// `(Entity, Pair<&mut Owes>)` through `iter_mut`, writing every row.
    PairQueryMut {
        seed: u32,
        fresh: bool,
    },
    /// `QueryState::get` of a pair query.
    PairQueryGet {
        target: Target,
        query: PairGet,
    },
    /// A fresh `Entity` query `with_pair::<Likes>(target)`; with `keep`, the first
    /// one of a case is kept and compared after every later step.
    WithPair {
        target: Target,
        keep: bool,
    },
    /// Fills a `CommandQueue` through `Commands`, then applies it (see `commands`).
    Commands(Vec<Cmd>),
}

/// Makes a pair operation name the holder (and, with `keep_target`, the target)
/// of an existing model pair of its relationship (the `index`-th, modulo their
/// number) instead of `source` (and `target`); ignored if there is none.
#[derive(Clone, Copy, Debug)]
struct Existing {
    index: usize,
    keep_target: bool,
}

#[derive(Clone, Copy, Debug)]
enum PairQuery {
    /// `(Entity, Pair<Likes>)`
    Likes,
    /// `(Entity, Pair<&Owes>)`
    Owes,
    /// `(Entity, Pair<DockedTo>)`
    DockedTo,
    /// `(Entity, Pair<ChildOf>)`
    ChildOf,
    /// `(Entity, Pair<Likes>, Pair<&Owes>)`: one row per combination.
    LikesOwes,
    /// `(Entity, Option<Pair<Likes>>)`: one row per pair, or one `None` row.
    OptLikes,
    /// `(Entity, &Pos, Pair<DockedTo>)`
    PosDocked,
    /// `(Entity, Pair<Likes>)` with `Without<Tag>`
    LikesNoTag,
    /// `Entity` with `WithPair<ChildOf>`
    WithChildOf,
    /// `Entity` with `cascade::<ChildOf>()`: every entity, in non-decreasing depth.
    Cascade,
}

const PAIR_QUERIES: [PairQuery; 10] = [
    PairQuery::Likes,
    PairQuery::Owes,
    PairQuery::DockedTo,
    PairQuery::ChildOf,
    PairQuery::LikesOwes,
    PairQuery::OptLikes,
    PairQuery::PosDocked,
    PairQuery::LikesNoTag,
    PairQuery::WithChildOf,
    PairQuery::Cascade,
];

#[derive(Clone, Copy, Debug)]
enum PairGet {
    /// `(Entity, Pair<DockedTo>)`
    DockedTo,
    /// `(Entity, Pair<ChildOf>)`
    ChildOf,
    /// `Entity` with `WithPair<Likes>`
    WithLikes,
}

// ----- harness ----------------------------------------------------------------------

type ModelEntity = [Option<Val>; KINDS];
type Row = (Entity, Vec<Option<Val>>);

type OptionalData = (Entity, Option<&'static Pos>, Option<&'static Spr>, Has<Tag>, Has<SprTag>);
type PosOrSprTag = Or<(With<Pos>, With<SprTag>)>;

/// Query states kept for the whole case, so archetypes created after them are
/// matched incrementally.
struct Queries {
    all: QueryState<Entity>,
    pos: QueryState<(Entity, &'static Pos)>,
    text: QueryState<(Entity, &'static Text)>,
    spr: QueryState<(Entity, &'static Spr)>,
    optional: QueryState<OptionalData>,
    text_spr: QueryState<(Entity, &'static Text, &'static Spr)>,
    tag_no_pos: QueryState<Entity, (With<Tag>, Without<Pos>)>,
    sprtag_no_text: QueryState<Entity, (With<SprTag>, Without<Text>)>,
    pos_or_sprtag: QueryState<Entity, PosOrSprTag>,
    pos_mut: QueryState<(Entity, &'static mut Pos)>,
    spr_mut: QueryState<(Entity, &'static mut Spr), Without<Tag>>,
}

impl Queries {
    fn new(world: &mut World) -> Queries {
        Queries {
            all: world.query(),
            pos: world.query(),
            text: world.query(),
            spr: world.query(),
            optional: world.query(),
            text_spr: world.query(),
            tag_no_pos: world.query_filtered(),
            sprtag_no_text: world.query_filtered(),
            pos_or_sprtag: world.query_filtered(),
            pos_mut: world.query(),
            spr_mut: world.query_filtered(),
        }
    }
}

/// Collects a query's rows as `$row_type` (from a fresh state when `$fresh`,
/// else from `$cached`) and checks its size hint; unsorted.
macro_rules! collect_rows {
    ($fresh:expr, $cached:expr, $world:expr, $row_type:ty, |$item:pat_param| $row:expr) => {{
        let mut fresh_state;
        let state = match $fresh {
            true => {
                fresh_state = $world.query_filtered();
                &mut fresh_state
            }
            false => &mut $cached,
        };
        let iter = state.iter(&$world);
        let (low, high) = iter.size_hint();
        let rows: Vec<$row_type> = iter.map(|$item| $row).collect();
        assert!(low <= rows.len() && high.is_none_or(|high| high >= rows.len()), "size_hint ({low}, {high:?})");
        rows
    }};
}

/// Collects a query's rows (sorted by entity) and checks its size hint.
macro_rules! rows {
    ($fresh:expr, $cached:expr, $world:expr, |$item:pat_param| $row:expr) => {{
        let mut rows = collect_rows!($fresh, $cached, $world, Row, |$item| $row);
        rows.sort_by_key(|row| row.0);
        rows
    }};
}

/// A pair query row: the entity, the targets its pair terms yield, and a value
/// (an `Owes` amount or a `Pos`).
type PairRow = (Entity, Vec<Option<Entity>>, Option<i64>);

/// Pair query states, created at the first pair operation of a case (so that the
/// relationships are registered by the pair operations themselves, while
/// entities exist) and kept for the rest of it.
struct PairQueries {
    likes: QueryState<(Entity, Pair<Likes>)>,
    owes: QueryState<(Entity, Pair<&'static Owes>)>,
    docked: QueryState<(Entity, Pair<DockedTo>)>,
    child_of: QueryState<(Entity, Pair<ChildOf>)>,
    likes_owes: QueryState<(Entity, Pair<Likes>, Pair<&'static Owes>)>,
    opt_likes: QueryState<(Entity, Option<Pair<Likes>>)>,
    pos_docked: QueryState<(Entity, &'static Pos, Pair<DockedTo>)>,
    likes_no_tag: QueryState<(Entity, Pair<Likes>), Without<Tag>>,
    with_child_of: QueryState<Entity, WithPair<ChildOf>>,
    with_likes: QueryState<Entity, WithPair<Likes>>,
    cascade: QueryState<Entity>,
    owes_mut: QueryState<(Entity, Pair<&'static mut Owes>)>,
}

impl PairQueries {
    fn new(world: &mut World) -> PairQueries {
        PairQueries {
            likes: world.query(),
            owes: world.query(),
            docked: world.query(),
            child_of: world.query(),
            likes_owes: world.query(),
            opt_likes: world.query(),
            pos_docked: world.query(),
            likes_no_tag: world.query_filtered(),
            with_child_of: world.query_filtered(),
            with_likes: world.query_filtered(),
            cascade: world.query().cascade::<ChildOf>(),
            owes_mut: world.query(),
        }
    }
}

/// Collects a pair query's rows (fully sorted) and checks its size hint.
macro_rules! pair_rows {
    ($fresh:expr, $cached:expr, $world:expr, |$item:pat_param| $row:expr) => {{
        let mut rows = collect_rows!($fresh, $cached, $world, PairRow, |$item| $row);
        rows.sort();
        rows
    }};
}

/// Why the model refuses a despawn: `(target, holder)` of every `(Anchored,
/// target)` pair whose target the despawn would delete and whose holder it
/// would not (`on_delete_target = "panic"`).
#[derive(Debug)]
struct Refusal {
    anchored: Vec<(Entity, Entity)>,
}

impl Refusal {
    /// Checks `try_despawn`'s error against the model's reason.
    #[track_caller]
    fn check_error(&self, error: &CleanupError) {
        assert_eq!(error.relationship, "Anchored", "{error:?}; the model refuses for {self:?}");
        assert!(error.as_target, "{error:?}: refused as the target");
        assert!(!error.holders.is_empty(), "{error:?} names no holder");
        for &holder in &error.holders {
            assert!(self.anchored.contains(&(error.despawned, holder)), "{error:?}; the model refuses for {self:?}");
        }
    }

    /// Checks that a panicking despawn (`what`) panicked, naming `Anchored`.
    #[track_caller]
    fn check_panic<R: core::fmt::Debug>(&self, result: Result<R, String>, what: &str) {
        match result {
            Ok(returned) => panic!("{what} returned {returned:?}; the model refuses it for {self:?}"),
            Err(message) => assert!(
                message.contains("Anchored") && message.contains("on_delete_target"),
                "{what} panicked with {message:?}; the model refuses it for {self:?}"
            ),
        }
    }
}

struct Harness {
    world: World,
    model: HashMap<Entity, ModelEntity>,
    /// The pairs of every model entity (the same keys as `model`).
    pairs: BTreeMap<Entity, PairSet>,
    /// Created at the first pair operation.
    pair_queries: Option<PairQueries>,
    /// The first `with_pair::<Likes>(target)` query kept by a `WithPair` op.
    kept: Option<(Entity, QueryState<Entity>)>,
    /// The model's entities in spawn order (targets index into it).
    alive: Vec<Entity>,
    /// Every despawned handle.
    stale: Vec<Entity>,
    /// Component-less entities spawned first (with `spawn_batch`) so that later
    /// entities get indices past the first sparse-set page. They are never
    /// targeted, are not in `model`, and are checked once, at the end.
    padding: Vec<Entity>,
    queries: Queries,
    /// The observers' model side, if the case registered them.
    observed: Option<Observed>,
    /// `entity_count` before the first entity: the observer entities, if the
    /// library counts them (API.md says it does not; either way passes here).
    base_count: usize,
}

const NEVER: Entity = Entity::from_raw(999_999, 0);

impl Harness {
    fn new(padding: usize, observers: Observers) -> Harness {
        let mut world = World::new();
        let queries = Queries::new(&mut world);
        let observed = observers::register(&mut world, observers);
        let base_count = world.entity_count();
        let padding = world.spawn_batch((0..padding).map(|_| ())).collect();
        Harness {
            world,
            model: HashMap::new(),
            pairs: BTreeMap::new(),
            pair_queries: None,
            kept: None,
            alive: Vec::new(),
            stale: Vec::new(),
            padding,
            queries,
            observed,
            base_count,
        }
    }

    /// Whether `entity` is one of the world's entities that the model leaves out
    /// (the observers).
    fn is_internal(&self, entity: Entity) -> bool {
        self.observed.as_ref().is_some_and(|observed| observed.entities.contains(&entity))
    }

    fn resolve(&self, target: Target) -> Option<Entity> {
        match target {
            Target::Alive(i) => (!self.alive.is_empty()).then(|| self.alive[i % self.alive.len()]),
            Target::Stale(i) => Some(if self.stale.is_empty() { NEVER } else { self.stale[i % self.stale.len()] }),
            Target::Future(i) => (!self.alive.is_empty()).then(|| {
                let e = self.alive[i % self.alive.len()];
                Entity::from_raw(e.index(), e.generation() + 1)
            }),
            Target::Never => Some(NEVER),
        }
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Spawn { values, reverse } => self.spawn(values, *reverse),
            Op::Insert { target, values } => {
                let Some(entity) = self.resolve(*target) else { return };
                let inserted = match values.as_slice() {
                    [a] => with_kind!(a.kind(), A => insert1::<A>(&mut self.world, entity, a.clone())),
                    [a, b] => with_kind!(a.kind(), A => with_kind!(b.kind(), B =>
                        insert2::<A, B>(&mut self.world, entity, a.clone(), b.clone()))),
                    _ => unreachable!("inserts have 1 or 2 values"),
                };
                assert_eq!(inserted, self.model.contains_key(&entity), "insert({entity:?}, {values:?})");
                if inserted {
                    self.model_insert(entity, values);
                }
            }
            Op::Remove { target, kinds } => {
                let Some(entity) = self.resolve(*target) else { return };
                let removed = match kinds.as_slice() {
                    [a] => with_kind!(*a, A => remove1::<A>(&mut self.world, entity)),
                    [a, b] => with_kind!(*a, A => with_kind!(*b, B => remove2::<A, B>(&mut self.world, entity))),
                    _ => unreachable!("removes have 1 or 2 kinds"),
                };
                let expected = self.model_remove(entity, kinds, true);
                assert_eq!(removed, expected, "remove::<{kinds:?}>({entity:?})");
            }
            Op::Despawn { target } => {
                let Some(entity) = self.resolve(*target) else { return };
                match self.despawn_model(entity) {
                    Ok(expected) => assert_eq!(self.world.despawn(entity), expected, "despawn({entity:?})"),
                    Err(refusal) => {
                        let panicked = catch_quiet(|| self.world.despawn(entity));
                        refusal.check_panic(panicked, "despawn");
                    }
                }
            }
            Op::TryDespawn { target, entity_mut } => {
                let Some(entity) = self.resolve(*target) else { return };
                let expected = self.despawn_model(entity);
                if *entity_mut && self.world.is_alive(entity) {
                    let panicked = catch_quiet(|| self.world.entity_mut(entity).despawn());
                    match expected {
                        Ok(_) => {
                            assert!(panicked.is_ok(), "EntityWorldMut::despawn({entity:?}) panicked: {panicked:?}")
                        }
                        Err(refusal) => refusal.check_panic(panicked, "EntityWorldMut::despawn"),
                    }
                } else {
                    match (self.world.try_despawn(entity), expected) {
                        (Ok(got), Ok(expected)) => assert_eq!(got, expected, "try_despawn({entity:?})"),
                        (Err(error), Err(refusal)) => refusal.check_error(&error),
                        (got, expected) => panic!("try_despawn({entity:?}) is {got:?}, the model says {expected:?}"),
                    }
                }
            }
            Op::Commands(cmds) => {
                self.apply_commands(cmds);
                self.pair_queries();
            }
            Op::AddPair { rel, source, target, existing, amount, how } => {
                if let Some((entity, target)) = self.resolve_pair(*rel, *source, *target, *existing) {
                    self.add_pair(*rel, entity, target, *amount, *how);
                }
                self.pair_queries();
            }
            Op::RemovePair { rel, source, target, existing, entity_mut } => {
                let Some((entity, target)) = self.resolve_pair(*rel, *source, *target, *existing) else { return };
                let removed =
                    with_rel!(*rel, R => remove_pair_typed::<R>(&mut self.world, entity, target, *entity_mut));
                let expected = self.model_remove_pair(entity, *rel, target);
                assert_eq!(removed, expected, "remove_pair::<{rel:?}>({entity:?}, {target:?})");
                self.pair_queries();
            }
            Op::MutatePair { rel, source, target, existing, seed } => {
                let Some((entity, target)) = self.resolve_pair(*rel, *source, *target, *existing) else { return };
                let got = with_rel!(*rel, R => mutate_pair::<R>(&mut self.world, entity, target, *seed));
                // Tag relationships have no value to write.
                let model = self.pairs.get_mut(&entity).and_then(|pairs| pairs.get_mut(&(*rel, target)));
                let expected = match model {
                    Some(Some(amount)) => {
                        *amount = mix_amount(*amount, *seed);
                        Some(Some(*amount))
                    }
                    Some(None) | None => None,
                };
                assert_eq!(got, expected, "get_pair_mut::<{rel:?}>({entity:?}, {target:?})");
            }
            Op::PairQuery { query, fresh } => self.check_pair_query(*query, *fresh),
            Op::PairQueryMut { seed, fresh } => self.pair_query_mut(*seed, *fresh),
            Op::PairQueryGet { target, query } => {
                let Some(entity) = self.resolve(*target) else { return };
                self.pair_query_get(entity, *query);
            }
            Op::WithPair { target, keep } => {
                let Some(target) = self.resolve(*target) else { return };
                let mut state = self.world.query::<Entity>().with_pair::<Likes>(target);
                let got = sorted(state.iter(&self.world));
                assert_eq!(got, self.holders(Rel::Likes, target), "query with_pair::<Likes>({target:?})");
                if *keep && self.kept.is_none() {
                    self.kept = Some((target, state));
                }
            }
            Op::Mutate { target, kind, seed } => {
                let Some(entity) = self.resolve(*target) else { return };
                let mutated = with_kind!(*kind, A => mutate::<A>(&mut self.world, entity, *seed));
                let model = self.model.get_mut(&entity).and_then(|model| model[*kind as usize].as_mut());
                assert_eq!(mutated, model.is_some(), "get_mut::<{kind:?}>({entity:?})");
                if let Some(value) = model {
                    value.mutate(*seed);
                }
            }
            Op::Query { query, fresh } => self.check_query(*query, *fresh),
            Op::QueryMut { spr, seed, fresh } => self.query_mut(*spr, *seed, *fresh),
            Op::QueryGet { target, filtered } => {
                let Some(entity) = self.resolve(*target) else { return };
                let model = self.model.get(&entity);
                if *filtered {
                    let got = self.queries.tag_no_pos.get(&self.world, entity);
                    let expected = match model {
                        None => Err(QueryError::NoSuchEntity(entity)),
                        Some(m) if m[Kind::Tag as usize].is_some() && m[Kind::Pos as usize].is_none() => Ok(entity),
                        Some(_) => Err(QueryError::QueryDoesNotMatch(entity)),
                    };
                    assert_eq!(got, expected, "tag_no_pos.get({entity:?})");
                } else {
                    let got = self.queries.pos.get(&self.world, entity).map(|(e, pos)| (e, pos.val()));
                    let expected = match model.map(|m| m[Kind::Pos as usize].clone()) {
                        None => Err(QueryError::NoSuchEntity(entity)),
                        Some(Some(value)) => Ok((entity, value)),
                        Some(None) => Err(QueryError::QueryDoesNotMatch(entity)),
                    };
                    assert_eq!(got, expected, "pos.get({entity:?})");
                }
            }
            Op::QueryGetMut { target, seed } => {
                let Some(entity) = self.resolve(*target) else { return };
                let got = self.queries.pos_mut.get_mut(&mut self.world, entity).map(|(e, mut pos)| {
                    pos.mutate(*seed);
                    e
                });
                let expected = match self.model.get_mut(&entity) {
                    None => Err(QueryError::NoSuchEntity(entity)),
                    Some(m) => match &mut m[Kind::Pos as usize] {
                        Some(value) => {
                            value.mutate(*seed);
                            Ok(entity)
                        }
                        None => Err(QueryError::QueryDoesNotMatch(entity)),
                    },
                };
                assert_eq!(got, expected, "pos_mut.get_mut({entity:?})");
            }
        }
    }

    fn spawn(&mut self, values: &[Val], reverse: bool) {
        let entity = match spawn_values(&mut self.world, values, reverse) {
            Some(entity) => entity,
            None => self.world.spawn_empty().id(),
        };
        self.model_spawn(entity);
        self.model_insert(entity, values);
    }

    /// Adds the new `entity` to the model, empty.
    fn model_spawn(&mut self, entity: Entity) {
        assert!(!self.model.contains_key(&entity), "spawn returned the alive {entity:?}");
        assert!(!self.stale.contains(&entity), "spawn returned the stale handle {entity:?}");
        assert!(!self.is_internal(entity), "spawn returned the observer {entity:?}");
        self.model.insert(entity, ModelEntity::default());
        self.pairs.insert(entity, PairSet::new());
        self.alive.push(entity);
    }

    /// Writes `values` into the model entity `entity` (inserted, or spawned:
    /// the same events) and mirrors the observers.
    fn model_insert(&mut self, entity: Entity, values: &[Val]) {
        if values.is_empty() {
            return;
        }
        let model = self.model.get_mut(&entity).expect("inserts go to model entities");
        let before = model.clone();
        for value in values {
            model[value.kind() as usize] = Some(value.clone());
        }
        self.observe_insert(entity, &before, values);
    }

    /// Takes `kinds` out of `entity` in the model, mirroring the observers:
    /// with `whole` (as `World::remove`) only if it has every one, else (as
    /// `EntityWorldMut::remove` and the command) whatever part it has; the
    /// values if it had every one (what `World::remove` returns).
    fn model_remove(&mut self, entity: Entity, kinds: &[Kind], whole: bool) -> Option<Vec<Val>> {
        let model = self.model.get_mut(&entity)?;
        if whole && kinds.iter().any(|&k| model[k as usize].is_none()) {
            return None;
        }
        let before = model.clone();
        let values: Vec<Option<Val>> = kinds.iter().map(|&k| model[k as usize].take()).collect();
        self.observe_remove(entity, &before);
        values.into_iter().collect()
    }

    /// Adds `(rel, target)` to `entity` in the model (an exclusive `rel` drops
    /// the entity's other target), mirroring the observers.
    fn model_add_pair(&mut self, entity: Entity, rel: Rel, target: Entity, amount: Option<u32>) {
        let pairs = self.pairs.get_mut(&entity).expect("the source is a model entity");
        let before = pairs.len();
        if rel.exclusive() {
            pairs.retain(|&(r, t), _| r != rel || t == target);
        }
        let dropped = before - pairs.len();
        let added = pairs.insert((rel, target), if rel.carries_value() { amount } else { None }).is_none();
        self.observe_pairs(rel, usize::from(added), dropped);
    }

    /// Removes `(rel, target)` from `entity` in the model; whether it was there.
    fn model_remove_pair(&mut self, entity: Entity, rel: Rel, target: Entity) -> bool {
        let removed = self.pairs.get_mut(&entity).and_then(|pairs| pairs.remove(&(rel, target))).is_some();
        self.observe_pairs(rel, 0, usize::from(removed));
        removed
    }

    /// The pair query states, created on first use.
    fn pair_queries(&mut self) -> &mut PairQueries {
        self.pair_queries.get_or_insert_with(|| PairQueries::new(&mut self.world))
    }

    /// Whether `from` reaches `to` along `rel` in the model (`from == to` counts).
    fn model_reaches(&self, rel: Rel, from: Entity, to: Entity) -> bool {
        let mut stack = vec![from];
        let mut seen = BTreeSet::new();
        while let Some(entity) = stack.pop() {
            if entity == to {
                return true;
            }
            if seen.insert(entity) {
                let pairs = self.pairs.get(&entity).into_iter().flatten();
                stack.extend(pairs.filter(|((r, _), _)| *r == rel).map(|((_, t), _)| *t));
            }
        }
        false
    }

    /// The model's result of adding (or, with `insert`, inserting) `(rel, target)`
    /// to `entity`, in the order the world checks: the target, the value, the
    /// entity, the cycle.
    fn expected_add(&self, rel: Rel, entity: Entity, target: Entity, insert: bool) -> Result<(), PairError> {
        if !self.model.contains_key(&target) {
            return Err(PairError::NotAlive(target));
        }
        if rel.carries_value() && !insert {
            // The world names the id; `add_pair` blanks it before comparing.
            return Err(PairError::NeedsValue { id: String::new(), entity });
        }
        if !self.model.contains_key(&entity) {
            return Err(PairError::NotAlive(entity));
        }
        if rel.acyclic() && self.model_reaches(rel, target, entity) {
            return Err(PairError::Cycle { relationship: "ChildOf".to_owned(), source: entity, target });
        }
        Ok(())
    }

    /// The source and target of a pair operation.
    fn resolve_pair(
        &self,
        rel: Rel,
        source: Target,
        target: Target,
        existing: Option<Existing>,
    ) -> Option<(Entity, Entity)> {
        let pairs = self.model_pairs(rel);
        match existing {
            Some(Existing { index, keep_target }) if !pairs.is_empty() => {
                let (holder, old_target, _) = pairs[index % pairs.len()];
                Some((holder, if keep_target { old_target } else { self.resolve(target)? }))
            }
            _ => Some((self.resolve(source)?, self.resolve(target)?)),
        }
    }

    fn add_pair(&mut self, rel: Rel, entity: Entity, target: Entity, amount: Option<u32>, how: How) {
        let expected = self.expected_add(rel, entity, target, amount.is_some());
        let mut got = with_rel!(rel, R => add_pair_typed::<R>(&mut self.world, entity, target, amount, how, &expected));
        if let Err(PairError::NeedsValue { id, .. }) = &mut got {
            assert!(id.contains("Owes"), "NeedsValue names {id:?}");
            id.clear();
        }
        let op = if amount.is_some() { "insert_pair" } else { "add_pair" };
        assert_eq!(got, expected, "{op}::<{rel:?}>({entity:?}, {target:?}) (asked via {how:?})");
        if got.is_ok() {
            self.model_add_pair(entity, rel, target, amount);
        }
    }

    /// Despawns `root` in the model with cleanup: every holder of a
    /// `(DockedTo | ChildOf, x)` pair dies with `x` (a worklist with a visited
    /// set, so cycles end), and the survivors lose their pairs on dead targets.
    /// Returns whether `root` was alive, or, with nothing changed, the
    /// `(Anchored, x)` pairs of survivors on dying entities that refuse it.
    fn despawn_model(&mut self, root: Entity) -> Result<bool, Refusal> {
        if !self.model.contains_key(&root) {
            return Ok(false);
        }
        let mut dying = vec![root];
        let mut visited = BTreeSet::from([root]);
        let mut next = 0;
        while let Some(&dead) = dying.get(next) {
            next += 1;
            for (&holder, pairs) in &self.pairs {
                if !visited.contains(&holder) && pairs.keys().any(|&(rel, t)| t == dead && rel.deletes_holders()) {
                    visited.insert(holder);
                    dying.push(holder);
                }
            }
        }
        let anchored: Vec<(Entity, Entity)> = self
            .pairs
            .iter()
            .filter(|(holder, _)| !visited.contains(holder))
            .flat_map(|(&holder, pairs)| pairs.keys().map(move |&(rel, t)| (holder, rel, t)))
            .filter(|&(_, rel, t)| rel.on_delete_target() == CleanupPolicy::Panic && visited.contains(&t))
            .map(|(holder, _, t)| (t, holder))
            .collect();
        if !anchored.is_empty() {
            return Err(Refusal { anchored });
        }
        for dead in &dying {
            let model = self.model.remove(dead).expect("dying entities are model entities");
            let pairs = self.pairs.remove(dead).expect("dying entities have pairs");
            self.observe_despawn(*dead, &model, &pairs);
            self.stale.push(*dead);
        }
        self.alive.retain(|e| !visited.contains(e));
        let mut lost = Vec::new();
        for pairs in self.pairs.values_mut() {
            pairs.retain(|&(rel, t), _| {
                let keep = !visited.contains(&t);
                if !keep {
                    lost.push(rel);
                }
                keep
            });
        }
        for rel in lost {
            self.observe_pairs(rel, 0, 1);
        }
        Ok(true)
    }

    /// `(holder, target, value)` of every model pair of `rel`, sorted.
    fn model_pairs(&self, rel: Rel) -> Vec<(Entity, Entity, Option<u32>)> {
        let mut pairs: Vec<_> = self
            .pairs
            .iter()
            .flat_map(|(&e, pairs)| pairs.iter().filter(|((r, _), _)| *r == rel).map(move |(&(_, t), &v)| (e, t, v)))
            .collect();
        pairs.sort();
        pairs
    }

    /// The model entities holding `(rel, target)`, sorted.
    fn holders(&self, rel: Rel, target: Entity) -> Vec<Entity> {
        let mut holders: Vec<Entity> =
            self.pairs.iter().filter(|(_, pairs)| pairs.contains_key(&(rel, target))).map(|(&e, _)| e).collect();
        holders.sort();
        holders
    }

    /// The number of `ChildOf` ancestors of `entity` in the model.
    fn depth(&self, entity: Entity) -> usize {
        let mut depth = 0;
        let mut current = entity;
        while let Some(parent) = self.pairs.get(&current).and_then(|p| p.keys().find(|(r, _)| *r == Rel::ChildOf)) {
            current = parent.1;
            depth += 1;
            assert!(depth <= self.pairs.len(), "the model's ChildOf has a cycle");
        }
        depth
    }

    fn check_pair_query(&mut self, query: PairQuery, fresh: bool) {
        self.pair_queries();
        let q = self.pair_queries.as_mut().expect("created above");
        let single = |rel: Rel, this: &Harness| -> Vec<PairRow> {
            this.model_pairs(rel).into_iter().map(|(e, t, v)| (e, vec![Some(t)], v.map(i64::from))).collect()
        };
        let (mut got, expected) = match query {
            PairQuery::Likes => {
                (pair_rows!(fresh, q.likes, self.world, |(e, t)| (e, vec![Some(t)], None)), single(Rel::Likes, self))
            }
            PairQuery::Owes => (
                pair_rows!(fresh, q.owes, self.world, |(e, (t, owes))| (
                    e,
                    vec![Some(t)],
                    Some(i64::from(owes.amount))
                )),
                single(Rel::Owes, self),
            ),
            PairQuery::DockedTo => (
                pair_rows!(fresh, q.docked, self.world, |(e, t)| (e, vec![Some(t)], None)),
                single(Rel::DockedTo, self),
            ),
            PairQuery::ChildOf => (
                pair_rows!(fresh, q.child_of, self.world, |(e, t)| (e, vec![Some(t)], None)),
                single(Rel::ChildOf, self),
            ),
            PairQuery::LikesOwes => {
                let got = pair_rows!(fresh, q.likes_owes, self.world, |(e, liked, (owed, owes))| (
                    e,
                    vec![Some(liked), Some(owed)],
                    Some(i64::from(owes.amount))
                ));
                let (likes, owes) = (self.model_pairs(Rel::Likes), self.model_pairs(Rel::Owes));
                let mut expected: Vec<PairRow> = likes
                    .iter()
                    .flat_map(|&(e, liked, _)| {
                        owes.iter()
                            .filter(move |o| o.0 == e)
                            .map(move |&(_, owed, v)| (e, vec![Some(liked), Some(owed)], v.map(i64::from)))
                    })
                    .collect();
                expected.sort();
                (got, expected)
            }
            PairQuery::OptLikes => {
                let got = pair_rows!(fresh, q.opt_likes, self.world, |(e, t)| (e, vec![t], None));
                let likes = self.model_pairs(Rel::Likes);
                let mut expected: Vec<PairRow> = likes.iter().map(|&(e, t, _)| (e, vec![Some(t)], None)).collect();
                let without = self.model.keys().chain(&self.padding).filter(|e| !likes.iter().any(|l| l.0 == **e));
                expected.extend(without.map(|&e| (e, vec![None], None)));
                expected.sort();
                (got, expected)
            }
            PairQuery::PosDocked => {
                let got = pair_rows!(fresh, q.pos_docked, self.world, |(e, pos, t)| (e, vec![Some(t)], Some(pos.0)));
                let mut expected: Vec<PairRow> = self
                    .model_pairs(Rel::DockedTo)
                    .into_iter()
                    .filter_map(|(e, t, _)| match &self.model[&e][Kind::Pos as usize] {
                        Some(Val::Pos(pos)) => Some((e, vec![Some(t)], Some(*pos))),
                        _ => None,
                    })
                    .collect();
                expected.sort();
                (got, expected)
            }
            PairQuery::LikesNoTag => {
                let got = pair_rows!(fresh, q.likes_no_tag, self.world, |(e, t)| (e, vec![Some(t)], None));
                let mut expected = single(Rel::Likes, self);
                expected.retain(|row| self.model[&row.0][Kind::Tag as usize].is_none());
                (got, expected)
            }
            PairQuery::WithChildOf => {
                let got = pair_rows!(fresh, q.with_child_of, self.world, |e| (e, vec![], None));
                let mut expected: Vec<PairRow> =
                    self.model_pairs(Rel::ChildOf).into_iter().map(|(e, _, _)| (e, vec![], None)).collect();
                expected.dedup();
                (got, expected)
            }
            PairQuery::Cascade => {
                let mut fresh_state;
                let state = if fresh {
                    fresh_state = self.world.query::<Entity>().cascade::<ChildOf>();
                    &mut fresh_state
                } else {
                    &mut q.cascade
                };
                let order: Vec<Entity> = state.iter(&self.world).collect();
                let depths: Vec<usize> = order.iter().map(|&e| self.depth(e)).collect();
                assert!(
                    depths.is_sorted(),
                    "cascade::<ChildOf> order (fresh: {fresh}) is not by depth: {:?}",
                    order.iter().zip(&depths).collect::<Vec<_>>()
                );
                let got = sorted(order).into_iter().map(|e| (e, vec![], None)).collect();
                let expected = sorted(self.model.keys().chain(&self.padding).copied());
                (got, expected.into_iter().map(|e| (e, vec![], None)).collect())
            }
        };
        got.retain(|row| !self.is_internal(row.0));
        assert_eq!(got.len(), expected.len(), "row count of pair query {query:?} (fresh: {fresh})");
        assert_eq!(got, expected, "rows of pair query {query:?} (fresh: {fresh})");
    }

    fn pair_query_mut(&mut self, seed: u32, fresh: bool) {
        self.pair_queries();
        let mut fresh_state;
        let state = if fresh {
            fresh_state = self.world.query::<(Entity, Pair<&mut Owes>)>();
            &mut fresh_state
        } else {
            &mut self.pair_queries.as_mut().expect("created above").owes_mut
        };
        let mut visited: Vec<(Entity, Entity)> = Vec::new();
        for (e, (t, mut owes)) in state.iter_mut(&mut self.world) {
            owes.mutate(seed);
            visited.push((e, t));
        }
        visited.sort();
        let expected: Vec<(Entity, Entity)> = self.model_pairs(Rel::Owes).into_iter().map(|(e, t, _)| (e, t)).collect();
        assert_eq!(visited, expected, "pairs visited by the Pair<&mut Owes> iter_mut (fresh: {fresh})");
        for (e, t) in expected {
            if let Some(Some(amount)) = self.pairs.get_mut(&e).and_then(|pairs| pairs.get_mut(&(Rel::Owes, t))) {
                *amount = mix_amount(*amount, seed);
            }
        }
    }

    fn pair_query_get(&mut self, entity: Entity, query: PairGet) {
        self.pair_queries();
        let q = self.pair_queries.as_mut().expect("created above");
        let (got, rel) = match query {
            PairGet::DockedTo => (q.docked.get(&self.world, entity).map(|(e, t)| (e, Some(t))), Rel::DockedTo),
            PairGet::ChildOf => (q.child_of.get(&self.world, entity).map(|(e, t)| (e, Some(t))), Rel::ChildOf),
            PairGet::WithLikes => (q.with_likes.get(&self.world, entity).map(|e| (e, None)), Rel::Likes),
        };
        let expected = match self.pairs.get(&entity) {
            None => Err(QueryError::NoSuchEntity(entity)),
            Some(pairs) => match pairs.keys().find(|(r, _)| *r == rel) {
                None => Err(QueryError::QueryDoesNotMatch(entity)),
                Some(&(_, t)) => Ok((entity, (rel != Rel::Likes).then_some(t))),
            },
        };
        assert_eq!(got, expected, "{query:?} query get({entity:?})");
    }

    /// Compares every entity's pairs, the holders of every target, the stale
    /// handles' (absent) pairs and the per-step pair queries with the model.
    fn check_pairs(&mut self) {
        assert!(self.pairs.keys().eq(sorted(self.model.keys().copied()).iter()), "pairs are kept for model entities");
        assert_eq!(owes_live(), self.model_pairs(Rel::Owes).len() as i64, "live Owes values (model Owes pairs)");
        if self.pair_queries.is_none() {
            // No pair operation yet (always so in `world_matches_model`): a cheap
            // check that the component operations made no pairs.
            assert!(self.pairs.values().all(PairSet::is_empty), "pairs without a pair operation");
            for &entity in self.pairs.keys() {
                for rel in Rel::ALL {
                    with_rel!(rel, R => assert_eq!(self.world.targets::<R>(entity).count(), 0, "targets::<{}>({entity:?})", R::NAME));
                }
            }
            return;
        }
        let mut probes: Vec<Entity> = self.stale.iter().rev().take(2).copied().collect();
        probes.push(NEVER);
        for (&entity, pairs) in &self.pairs {
            probes.push(entity);
            for rel in Rel::ALL {
                with_rel!(rel, R => check_pairs_of::<R>(&self.world, entity, pairs, &probes));
            }
            probes.pop();
            let parent = pairs.keys().find(|(r, _)| *r == Rel::ChildOf).map(|&(_, t)| t);
            assert_eq!(self.world.parent(entity), parent, "parent({entity:?})");
        }
        let mut holders: BTreeMap<(Rel, Entity), Vec<Entity>> = BTreeMap::new();
        for (&entity, pairs) in &self.pairs {
            for &key in pairs.keys() {
                holders.entry(key).or_default().push(entity);
            }
        }
        let none = Vec::new();
        for &target in self.pairs.keys() {
            for rel in Rel::ALL {
                let mut expected = holders.get(&(rel, target)).unwrap_or(&none).clone();
                expected.sort();
                with_rel!(rel, R => check_sources::<R>(&self.world, target, &expected));
            }
            let children = sorted(self.world.children(target));
            assert_eq!(&children, holders.get(&(Rel::ChildOf, target)).unwrap_or(&none), "children({target:?})");
        }
        for &entity in self.stale.iter().chain([NEVER].iter()) {
            for rel in Rel::ALL {
                with_rel!(rel, R => {
                    assert_eq!(self.world.targets::<R>(entity).count(), 0, "targets::<{}>({entity:?})", R::NAME);
                    assert!(!self.world.has_pair::<R>(entity, Entity::WILDCARD), "has_pair::<{}>({entity:?}, *)", R::NAME);
                    check_sources::<R>(&self.world, entity, &[]);
                });
            }
        }
        for query in [PairQuery::Likes, PairQuery::Owes, PairQuery::DockedTo, PairQuery::ChildOf] {
            self.check_pair_query(query, false);
        }
        if let Some((target, state)) = &mut self.kept {
            let target = *target;
            let got = sorted(state.iter(&self.world));
            let expected = if self.model.contains_key(&target) { self.holders(Rel::Likes, target) } else { vec![] };
            assert_eq!(got, expected, "kept query with_pair::<Likes>({target:?})");
        }
    }

    /// The model's rows of entities that have all of `with`, none of `without`
    /// and (if `any` is not empty) one of `any`, fetching `fetch`.
    fn expected_rows(&self, with: &[Kind], without: &[Kind], any: &[Kind], fetch: &[Kind]) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .model
            .iter()
            .filter(|(_, m)| {
                with.iter().all(|&k| m[k as usize].is_some())
                    && without.iter().all(|&k| m[k as usize].is_none())
                    && (any.is_empty() || any.iter().any(|&k| m[k as usize].is_some()))
            })
            .map(|(&e, m)| (e, fetch.iter().map(|&k| m[k as usize].clone()).collect()))
            .collect();
        if with.is_empty() && any.is_empty() {
            rows.extend(self.padding.iter().map(|&e| (e, vec![None; fetch.len()])));
        }
        rows.sort_by_key(|row| row.0);
        rows
    }

    fn check_query(&mut self, query: Query, fresh: bool) {
        let q = &mut self.queries;
        let (mut got, expected) = match query {
            Query::All => (rows!(fresh, q.all, self.world, |e| (e, vec![])), self.expected_rows(&[], &[], &[], &[])),
            Query::Pos => (
                rows!(fresh, q.pos, self.world, |(e, p)| (e, vec![Some(p.val())])),
                self.expected_rows(&[Kind::Pos], &[], &[], &[Kind::Pos]),
            ),
            Query::Text => (
                rows!(fresh, q.text, self.world, |(e, t)| (e, vec![Some(t.val())])),
                self.expected_rows(&[Kind::Text], &[], &[], &[Kind::Text]),
            ),
            Query::Spr => (
                rows!(fresh, q.spr, self.world, |(e, s)| (e, vec![Some(s.val())])),
                self.expected_rows(&[Kind::Spr], &[], &[], &[Kind::Spr]),
            ),
            Query::Optional => (
                rows!(fresh, q.optional, self.world, |(e, p, s, tag, sprtag)| (
                    e,
                    vec![p.map(Comp::val), s.map(Comp::val), tag.then_some(Val::Tag), sprtag.then_some(Val::SprTag)]
                )),
                self.expected_rows(&[], &[], &[], &[Kind::Pos, Kind::Spr, Kind::Tag, Kind::SprTag]),
            ),
            Query::TextSpr => (
                rows!(fresh, q.text_spr, self.world, |(e, t, s)| (e, vec![Some(t.val()), Some(s.val())])),
                self.expected_rows(&[Kind::Text, Kind::Spr], &[], &[], &[Kind::Text, Kind::Spr]),
            ),
            Query::TagNoPos => (
                rows!(fresh, q.tag_no_pos, self.world, |e| (e, vec![])),
                self.expected_rows(&[Kind::Tag], &[Kind::Pos], &[], &[]),
            ),
            Query::SprTagNoText => (
                rows!(fresh, q.sprtag_no_text, self.world, |e| (e, vec![])),
                self.expected_rows(&[Kind::SprTag], &[Kind::Text], &[], &[]),
            ),
            Query::PosOrSprTag => (
                rows!(fresh, q.pos_or_sprtag, self.world, |e| (e, vec![])),
                self.expected_rows(&[], &[], &[Kind::Pos, Kind::SprTag], &[]),
            ),
        };
        got.retain(|row| !self.is_internal(row.0));
        assert_eq!(got.len(), expected.len(), "row count of query {query:?} (fresh: {fresh})");
        assert_eq!(got, expected, "rows of query {query:?} (fresh: {fresh})");
    }

    fn query_mut(&mut self, spr: bool, seed: u32, fresh: bool) {
        let mut visited: Vec<Entity> = Vec::new();
        let kind = if spr { Kind::Spr } else { Kind::Pos };
        if spr {
            let mut fresh_state;
            let state = if fresh {
                fresh_state = self.world.query_filtered::<(Entity, &mut Spr), Without<Tag>>();
                &mut fresh_state
            } else {
                &mut self.queries.spr_mut
            };
            for (e, mut s) in state.iter_mut(&mut self.world) {
                s.mutate(seed);
                visited.push(e);
            }
        } else {
            let mut fresh_state;
            let state = if fresh {
                fresh_state = self.world.query::<(Entity, &mut Pos)>();
                &mut fresh_state
            } else {
                &mut self.queries.pos_mut
            };
            for (e, mut p) in state.iter_mut(&mut self.world) {
                p.mutate(seed);
                visited.push(e);
            }
        }
        let without: &[Kind] = if spr { &[Kind::Tag] } else { &[] };
        let expected: Vec<Entity> = self.expected_rows(&[kind], without, &[], &[]).into_iter().map(|r| r.0).collect();
        visited.sort();
        assert_eq!(visited, expected, "entities visited by the {kind:?} iter_mut (fresh: {fresh})");
        for e in expected {
            if let Some(value) = self.model.get_mut(&e).and_then(|m| m[kind as usize].as_mut()) {
                value.mutate(seed);
            }
        }
    }

    /// Compares the whole world with the model.
    fn check(&mut self) {
        self.world.check_invariants();
        let expected_count = self.base_count + self.model.len() + self.padding.len();
        assert_eq!(self.world.entity_count(), expected_count, "entity_count");
        for (&entity, model) in &self.model {
            assert!(self.world.is_alive(entity), "model entity {entity:?} is not alive");
            for kind in Kind::ALL {
                with_kind!(kind, A => check_component::<A>(&self.world, entity, model[kind as usize].as_ref()));
            }
        }
        for &entity in self.stale.iter().chain([NEVER].iter()) {
            assert!(!self.world.is_alive(entity), "stale {entity:?} is alive");
            assert!(self.world.get_entity(entity).is_none(), "stale {entity:?} has an EntityRef");
            for kind in Kind::ALL {
                with_kind!(kind, A => check_component::<A>(&self.world, entity, None));
            }
        }
        if self.padding.is_empty() {
            // Padded cases (a thousand rows) check this only at `Query` ops and at the end.
            self.check_query(Query::All, false);
        }
        for kind in Kind::ALL {
            let holders = self.model.values().filter(|m| m[kind as usize].is_some()).count() as i64;
            assert_eq!(live(kind), holders, "live {kind:?} values (model entities holding one)");
        }
        self.check_pairs();
        self.check_observed();
    }
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// Runs `ops` on a fresh world (with `observers`, after `padding` empty entities), checking after every step,
/// then drops the world and checks that every value was dropped exactly once.
fn run(padding: usize, observers: Observers, ops: &[Op]) {
    reset_live();
    observers::reset_mark_live();
    let mut harness = Harness::new(padding, observers);
    harness.check();
    for op in ops {
        harness.apply(op);
        harness.check();
    }
    for query in QUERIES {
        harness.check_query(query, false);
        harness.check_query(query, true);
    }
    for query in PAIR_QUERIES {
        harness.check_pair_query(query, false);
        harness.check_pair_query(query, true);
    }
    for &entity in &harness.padding {
        assert!(harness.world.is_alive(entity), "padding {entity:?} is not alive");
        for kind in Kind::ALL {
            with_kind!(kind, A => check_component::<A>(&harness.world, entity, None));
        }
    }
    drop(harness);
    for kind in Kind::ALL {
        assert_eq!(live(kind), 0, "live {kind:?} values after the world is dropped");
    }
    assert_eq!(owes_live(), 0, "live Owes values after the world is dropped");
    assert_eq!(observers::mark_live(), 0, "live Mark values after the world is dropped");
}

// ----- strategies -------------------------------------------------------------------

/// Usually none; sometimes enough that the entities spawned by the operations
/// straddle the sparse sets' first page boundary (index 1024).
fn padding() -> impl Strategy<Value = usize> {
    prop_oneof![31 => Just(0usize), 1 => 1000..1020usize]
}

fn kind() -> impl Strategy<Value = Kind> {
    (0..KINDS).prop_map(|i| Kind::ALL[i])
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        8 => any::<usize>().prop_map(Target::Alive),
        2 => any::<usize>().prop_map(Target::Stale),
        1 => any::<usize>().prop_map(Target::Future),
        1 => Just(Target::Never),
    ]
}

/// One kind, or two distinct kinds in either order.
fn kinds() -> impl Strategy<Value = Vec<Kind>> {
    (kind(), kind(), any::<bool>()).prop_map(|(a, b, pair)| if pair && a != b { vec![a, b] } else { vec![a] })
}

/// Values of any subset of the kinds, and whether to list them in reverse.
fn spawn_set() -> impl Strategy<Value = (Vec<Val>, bool)> {
    (proptest::collection::vec(any::<bool>(), KINDS), 0..100u64, any::<bool>()).prop_map(|(present, seed, reverse)| {
        let values = Kind::ALL
            .iter()
            .zip(present)
            .filter(|(_, present)| *present)
            .map(|(&k, _)| Val::new(k, seed + k as u64))
            .collect();
        (values, reverse)
    })
}

/// A spawn of any subset of the kinds.
fn spawn_op() -> impl Strategy<Value = Op> {
    spawn_set().prop_map(|(values, reverse)| Op::Spawn { values, reverse })
}

fn op() -> impl Strategy<Value = Op> {
    let seed = 0..100u64;
    prop_oneof![
        4 => spawn_op(),
        5 => (target(), kinds(), seed).prop_map(|(target, kinds, seed)| Op::Insert {
            target,
            values: kinds.iter().map(|&k| Val::new(k, seed)).collect()
        }),
        4 => (target(), kinds()).prop_map(|(target, kinds)| Op::Remove { target, kinds }),
        2 => target().prop_map(|target| Op::Despawn { target }),
        2 => (target(), kind(), any::<u32>()).prop_map(|(target, kind, seed)| Op::Mutate { target, kind, seed }),
        2 => ((0..QUERIES.len()).prop_map(|i| QUERIES[i]), any::<bool>())
            .prop_map(|(query, fresh)| Op::Query { query, fresh }),
        1 => (any::<bool>(), any::<u32>(), any::<bool>()).prop_map(|(spr, seed, fresh)| Op::QueryMut {
            spr,
            seed,
            fresh
        }),
        1 => (target(), any::<bool>()).prop_map(|(target, filtered)| Op::QueryGet { target, filtered }),
        1 => (target(), any::<u32>()).prop_map(|(target, seed)| Op::QueryGetMut { target, seed }),
    ]
}

fn rel() -> impl Strategy<Value = Rel> {
    (0..Rel::ALL.len()).prop_map(|i| Rel::ALL[i])
}

fn how() -> impl Strategy<Value = How> {
    prop_oneof![2 => Just(How::Try), 1 => Just(How::Plain), 1 => Just(How::EntityMut)]
}

/// A pair's source or target: mostly alive, sometimes dead.
fn pair_target() -> impl Strategy<Value = Target> {
    prop_oneof![
        20 => any::<usize>().prop_map(Target::Alive),
        2 => any::<usize>().prop_map(Target::Stale),
        1 => any::<usize>().prop_map(Target::Future),
        1 => Just(Target::Never),
    ]
}

/// With probability `p`, an existing pair's holder (and target).
fn existing(p: f64) -> impl Strategy<Value = Option<Existing>> {
    proptest::option::weighted(
        p,
        (any::<usize>(), any::<bool>()).prop_map(|(index, keep_target)| Existing { index, keep_target }),
    )
}

/// Pair operations, mixed with every component operation.
fn pair_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => spawn_op(),
        8 => (
            prop_oneof![
                3 => Just(Rel::Likes),
                3 => Just(Rel::DockedTo),
                3 => Just(Rel::ChildOf),
                1 => Just(Rel::Owes),
                1 => Just(Rel::Anchored)
            ],
            pair_target(),
            pair_target(),
            existing(0.3),
            how()
        ).prop_map(|(rel, source, target, existing, how)| {
            Op::AddPair { rel, source, target, existing, amount: None, how }
        }),
        4 => (prop_oneof![3 => Just(Rel::Owes), 1 => rel()], pair_target(), pair_target(), existing(0.3), 0..1000u32, how())
            .prop_map(|(rel, source, target, existing, amount, how)| Op::AddPair {
                rel,
                source,
                target,
                existing,
                amount: Some(amount),
                how
            }),
        3 => (rel(), pair_target(), pair_target(), existing(0.6), any::<bool>()).prop_map(
            |(rel, source, target, existing, entity_mut)| Op::RemovePair { rel, source, target, existing, entity_mut }
        ),
        2 => target().prop_map(|target| Op::Despawn { target }),
        1 => (target(), any::<bool>()).prop_map(|(target, entity_mut)| Op::TryDespawn { target, entity_mut }),
        1 => (prop_oneof![3 => Just(Rel::Owes), 1 => rel()], pair_target(), pair_target(), existing(0.6), any::<u32>())
            .prop_map(|(rel, source, target, existing, seed)| Op::MutatePair { rel, source, target, existing, seed }),
        3 => prop_oneof![
            1 => (0..PAIR_QUERIES.len()).prop_map(|i| Op::PairQuery { query: PAIR_QUERIES[i], fresh: false }),
            1 => (0..PAIR_QUERIES.len()).prop_map(|i| Op::PairQuery { query: PAIR_QUERIES[i], fresh: true }),
            1 => (any::<u32>(), any::<bool>()).prop_map(|(seed, fresh)| Op::PairQueryMut { seed, fresh }),
            1 => (target(), 0..3usize).prop_map(|(target, i)| Op::PairQueryGet {
                target,
                query: [PairGet::DockedTo, PairGet::ChildOf, PairGet::WithLikes][i]
            }),
            1 => (pair_target(), any::<bool>()).prop_map(|(target, keep)| Op::WithPair { target, keep }),
        ],
        4 => op(),
    ]
}

/// Which observers a case registers: none in half of the cases.
fn observers() -> impl Strategy<Value = Observers> {
    prop_oneof![2 => Just(Observers::None), 1 => Just(Observers::Components), 1 => Just(Observers::All)]
}

/// Pair and component operations mixed with command buffers.
fn command_case_op() -> impl Strategy<Value = Op> {
    prop_oneof![3 => commands::commands_op(), 2 => pair_op()]
}

/// The number of cases of a proptest: `default`, or the `MODEL_CASES`
/// environment variable (for long runs: `MODEL_CASES=100000 cargo test
/// --release -p ecs-tests --test model`).
fn cases(default: u32) -> u32 {
    match std::env::var("MODEL_CASES") {
        Ok(value) => value.trim().parse().unwrap_or_else(|_| panic!("MODEL_CASES={value:?} is not a number")),
        Err(_) => default,
    }
}

/// The proptest configuration of `cases(default)` cases.
fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(4_000))]

    #[test]
    fn world_matches_model(padding in padding(), ops in proptest::collection::vec(op(), 1..40)) {
        run(padding, Observers::None, &ops);
    }
}

proptest! {
    #![proptest_config(config(2_500))]

    #[test]
    fn world_matches_pair_model(
        padding in padding(),
        observers in observers(),
        spawns in proptest::collection::vec(spawn_op(), 2..7),
        ops in proptest::collection::vec(pair_op(), 1..40),
    ) {
        let ops: Vec<Op> = spawns.into_iter().chain(ops).collect();
        run(padding, observers, &ops);
    }
}

proptest! {
    #![proptest_config(config(2_500))]

    #[test]
    fn world_matches_command_model(
        padding in padding(),
        observers in observers(),
        spawns in proptest::collection::vec(spawn_op(), 2..7),
        ops in proptest::collection::vec(command_case_op(), 1..30),
    ) {
        let ops: Vec<Op> = spawns.into_iter().chain(ops).collect();
        run(padding, observers, &ops);
    }
}

// ----- fixed sequences ------------------------------------------------------------------

/// Recycled indices, replaced sparse and tag values, partial bundle removal.
#[test]
fn fixed_sequence() {
    use Target::*;
    run(
        0,
        Observers::None,
        &[
            Op::Spawn { values: vec![Val::Tag, Val::Pos(1), Val::Spr(vec![1, 2]), Val::SprTag], reverse: false },
            Op::Spawn { values: vec![Val::Text("a".into()), Val::Spr(vec![3])], reverse: true },
            Op::Insert { target: Alive(0), values: vec![Val::Spr(vec![9]), Val::Tag] },
            Op::Remove { target: Alive(1), kinds: vec![Kind::Spr, Kind::Pos] },
            Op::Remove { target: Alive(0), kinds: vec![Kind::SprTag, Kind::Tag] },
            Op::Despawn { target: Alive(0) },
            Op::Spawn { values: vec![Val::SprTag], reverse: false },
            Op::Insert { target: Stale(0), values: vec![Val::Pos(5)] },
            Op::Remove { target: Stale(0), kinds: vec![Kind::SprTag] },
            Op::Mutate { target: Alive(0), kind: Kind::Text, seed: 3 },
            Op::QueryMut { spr: true, seed: 4, fresh: false },
            Op::QueryGet { target: Future(1), filtered: false },
            Op::QueryGetMut { target: Alive(0), seed: 1 },
            Op::Despawn { target: Never },
        ],
    );
}

/// Sparse values of entities on both sides of the first page boundary.
#[test]
fn fixed_sequence_across_sparse_pages() {
    let mut ops: Vec<Op> =
        (0..24).map(|i| Op::Spawn { values: vec![Val::Spr(vec![i]), Val::SprTag], reverse: i % 2 == 0 }).collect();
    ops.extend((0..12).map(|i| Op::Despawn { target: Target::Alive(i * 3) }));
    ops.extend((0..8).map(|i| Op::Remove { target: Target::Alive(i), kinds: vec![Kind::SprTag, Kind::Spr] }));
    ops.push(Op::QueryMut { spr: true, seed: 7, fresh: true });
    ops.extend((0..8).map(|i| Op::Insert { target: Target::Alive(i * 2), values: vec![Val::Spr(vec![i as u32])] }));
    ops.push(Op::Query { query: Query::Spr, fresh: false });
    run(1010, Observers::None, &ops);
}

fn add(rel: Rel, source: usize, target: Target, amount: Option<u32>, how: How) -> Op {
    Op::AddPair { rel, source: Target::Alive(source), target, existing: None, amount, how }
}

fn remove(rel: Rel, source: usize, target: Target, entity_mut: bool) -> Op {
    Op::RemovePair { rel, source: Target::Alive(source), target, existing: None, entity_mut }
}

/// The model's traits are the relationships' declared ones.
#[test]
fn relationship_traits_match_model() {
    for rel in Rel::ALL {
        let traits = with_rel!(rel, R => <R as Relationship>::TRAITS);
        assert_eq!(traits.exclusive, rel.exclusive(), "{rel:?} exclusive");
        assert_eq!(traits.acyclic, rel.acyclic(), "{rel:?} acyclic");
        assert_eq!(traits.on_delete_target, rel.on_delete_target(), "{rel:?} on_delete_target");
        assert_eq!(traits.on_delete, CleanupPolicy::Remove, "{rel:?} on_delete");
    }
}

/// The behaviours the pair model encodes, asserted directly on a world (so that
/// the model itself is checked): exclusivity, the errors, and cleanup through a
/// `DockedTo` cycle and a `ChildOf` child, with `Likes`/`Owes` holders surviving.
#[test]
fn pair_semantics_without_the_model() {
    reset_live();
    let mut world = World::new();
    let [a, b, c, d, e] = [(); 5].map(|()| world.spawn_empty().id());
    world.add_pair::<DockedTo>(a, b);
    world.add_pair::<DockedTo>(a, c);
    assert_eq!(world.targets::<DockedTo>(a).collect::<Vec<_>>(), vec![c], "exclusive: c replaced b");
    world.add_pair::<DockedTo>(c, a);
    world.add_pair::<ChildOf>(b, a);
    assert!(matches!(world.try_add_pair::<ChildOf>(a, b), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<ChildOf>(d, d), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<Owes>(d, a), Err(PairError::NeedsValue { .. })));
    world.add_pair::<Likes>(d, c);
    world.add_pair::<Likes>(d, e);
    world.insert_pair(d, Owes::make(3), a);
    world.insert_pair(d, Owes::make(4), a);
    world.insert_pair(e, Owes::make(5), d);
    assert_eq!(owes_live(), 2, "the replaced Owes value was dropped");
    assert_eq!(world.get_pair::<Owes>(d, a).map(|owes| owes.amount), Some(4));
    assert!(world.despawn(c));
    // c -> a (docked to c) -> c (visited) and b (child of a).
    for dead in [a, b, c] {
        assert!(!world.is_alive(dead), "{dead:?} died in the cleanup");
    }
    assert!(world.is_alive(d) && world.is_alive(e));
    assert_eq!(world.targets::<Likes>(d).collect::<Vec<_>>(), vec![e]);
    assert_eq!(world.targets::<Owes>(d).count(), 0);
    assert_eq!(world.get_pair::<Owes>(e, d).map(|owes| owes.amount), Some(5));
    assert_eq!(owes_live(), 1);
    assert_eq!(world.try_add_pair::<Likes>(d, c), Err(PairError::NotAlive(c)));
    assert_eq!(world.try_add_pair::<Likes>(c, d), Err(PairError::NotAlive(c)));
    world.check_invariants();
    drop(world);
    assert_eq!(owes_live(), 0);
}

/// The observer and command behaviours the model encodes, asserted directly on
/// a world: the `Mark` chain (also from `SprTag`), multi-term observers, pair
/// counts of an exclusive replacement and of a despawned holder, and a command
/// buffer cut short by a panic (its reserved entities alive, its values dropped).
#[test]
fn observer_and_command_semantics_without_the_model() {
    reset_live();
    observers::reset_mark_live();
    let mut world = World::new();
    let _ = observers::register(&mut world, Observers::All);
    let counts = |world: &World| world.resource::<observers::Counts>().clone();
    let a = world.spawn(Tag::make(Val::Tag)).id();
    let b = world.spawn(SprTag::make(Val::SprTag)).id();
    assert_eq!(world.get::<observers::Mark>(a).map(|m| m.0), Some(1));
    assert!(world.has::<Tag>(b), "the SprTag observer inserted a Tag");
    assert_eq!(world.get::<observers::Mark>(b).map(|m| m.0), Some(2), "and the Tag observer a Mark");
    world.insert(a, Pos::make(Val::Pos(1)));
    assert_eq!(counts(&world).pos_spr_added, 0, "(Pos, Spr) needs both");
    world.insert(a, Spr::make(Val::Spr(vec![])));
    assert_eq!(counts(&world).pos_spr_added, 1);
    world.remove::<Tag>(a);
    assert!(!world.has::<observers::Mark>(a));
    world.add_pair::<DockedTo>(a, b);
    world.add_pair::<DockedTo>(a, a);
    assert_eq!((counts(&world).docked_added, counts(&world).docked_removed), (2, 1), "exclusive replacement");
    world.add_pair::<Likes>(b, a);
    world.add_pair::<Likes>(b, b);
    world.despawn(b);
    let after = counts(&world);
    assert_eq!((after.likes_added, after.likes_removed), (2, 2), "a despawned holder's pairs");
    assert_eq!((after.tag_removed, after.despawned), (2, 1));

    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(b).insert(Pos::make(Val::Pos(2)));
    let reserved = commands.spawn(Text::make(Val::Text("t".into()))).id();
    assert_eq!(live(Kind::Text), 1, "the queued value");
    let message = catch_quiet(|| queue.apply(&mut world)).expect_err("insert into a dead entity panics");
    assert!(message.contains("not alive"), "{message}");
    assert!(world.is_alive(reserved) && !world.has::<Text>(reserved), "reserved, alive, empty");
    assert_eq!(live(Kind::Text), 0, "the dropped command's value was dropped");
    assert_eq!(live(Kind::Pos), 1);
    world.check_invariants();
    drop(world);
    assert_eq!(observers::mark_live(), 0);
    assert_eq!(live(Kind::Tag), 0);
}

/// Every pair operation and error once, exclusivity, a `DockedTo` cycle and a
/// `ChildOf` chain deleted by one despawn, survivors losing their `Likes` and
/// `Owes` pairs, and a kept `with_pair` query whose target dies and whose index
/// is reused.
#[test]
fn pair_fixed_sequence() {
    use How::*;
    use Target::*;
    let empty = || Op::Spawn { values: vec![], reverse: false };
    let ops = [
        empty(),
        Op::Spawn { values: vec![Val::Pos(1), Val::Spr(vec![1])], reverse: false },
        empty(),
        Op::Spawn { values: vec![Val::Tag, Val::Pos(2)], reverse: true },
        empty(),
        // alive: a b c d e
        add(Rel::Likes, 0, Alive(1), None, Try),
        add(Rel::Likes, 0, Alive(2), None, Plain),
        Op::WithPair { target: Alive(1), keep: true },
        add(Rel::Owes, 0, Alive(1), Some(5), Plain),
        add(Rel::Owes, 0, Alive(2), Some(7), EntityMut),
        add(Rel::Owes, 0, Alive(1), Some(9), Try),
        add(Rel::Owes, 0, Alive(1), None, Try),
        add(Rel::DockedTo, 2, Alive(3), None, EntityMut),
        add(Rel::DockedTo, 2, Alive(0), None, Try),
        add(Rel::DockedTo, 0, Alive(2), None, Plain),
        add(Rel::DockedTo, 3, Alive(3), None, Try),
        add(Rel::ChildOf, 1, Alive(0), None, Try),
        add(Rel::ChildOf, 4, Alive(1), None, Plain),
        add(Rel::ChildOf, 0, Alive(4), None, Try),
        add(Rel::ChildOf, 3, Alive(3), None, EntityMut),
        add(Rel::Likes, 0, Never, None, Try),
        add(Rel::Likes, 3, Alive(4), Some(0), Try),
        add(Rel::Owes, 3, Alive(4), Some(1), Plain),
        add(Rel::Owes, 4, Alive(3), Some(2), Try),
        Op::PairQueryMut { seed: 3, fresh: false },
        Op::MutatePair { rel: Rel::Owes, source: Alive(0), target: Alive(2), existing: None, seed: 4 },
        Op::MutatePair { rel: Rel::Likes, source: Alive(0), target: Alive(2), existing: None, seed: 4 },
        Op::PairQuery { query: PairQuery::Cascade, fresh: true },
        Op::PairQuery { query: PairQuery::LikesOwes, fresh: false },
        Op::PairQuery { query: PairQuery::PosDocked, fresh: true },
        Op::PairQueryGet { target: Alive(2), query: PairGet::DockedTo },
        Op::PairQueryGet { target: Alive(4), query: PairGet::ChildOf },
        remove(Rel::Likes, 0, Alive(2), true),
        remove(Rel::Likes, 0, Alive(2), false),
        Op::Insert { target: Alive(0), values: vec![Val::Text("x".into())] },
        Op::Remove { target: Alive(1), kinds: vec![Kind::Pos] },
        // c: a (docked to c), then b (a child of a) and e (a child of b) die
        // with it; d (docked to itself) survives and loses its Likes and Owes
        // pairs on e.
        Op::Despawn { target: Alive(2) },
        // The new entities reuse the dead ones' indices; the pairs on them must
        // not show through the stale handles nor in the kept `with_pair`.
        Op::Spawn { values: vec![Val::SprTag], reverse: false },
        Op::Spawn { values: vec![], reverse: false },
        Op::Spawn { values: vec![Val::Text("y".into())], reverse: false },
        Op::Spawn { values: vec![Val::Pos(3)], reverse: false },
        add(Rel::Likes, 0, Alive(1), None, Try),
        add(Rel::Likes, 0, Alive(2), None, Try),
        add(Rel::Likes, 0, Alive(3), None, Try),
        add(Rel::Likes, 0, Alive(4), None, Try),
        add(Rel::Owes, 1, Alive(2), Some(8), Try),
        add(Rel::Owes, 2, Alive(3), Some(9), Try),
        add(Rel::Owes, 3, Alive(4), Some(10), Try),
        Op::PairQuery { query: PairQuery::OptLikes, fresh: true },
        add(Rel::Likes, 1, Stale(0), None, Try),
        add(Rel::Likes, 1, Future(0), None, Plain),
        add(Rel::ChildOf, 1, Alive(0), None, Try),
        add(Rel::ChildOf, 2, Alive(1), None, Try),
        Op::TryDespawn { target: Alive(0), entity_mut: true },
        Op::TryDespawn { target: Stale(0), entity_mut: false },
    ];
    for observers in [Observers::None, Observers::All] {
        run(0, observers, &ops);
    }
}

/// `Anchored` refusals: a despawn refused through every entry point (nothing
/// changes), a holder that dies in the same cleanup (no refusal), and the
/// despawn allowed once the pair is removed.
#[test]
fn anchored_fixed_sequence() {
    use How::*;
    use Target::*;
    let empty = || Op::Spawn { values: vec![], reverse: false };
    let ops = [
        empty(),
        Op::Spawn { values: vec![Val::Tag, Val::Spr(vec![1])], reverse: false },
        empty(),
        empty(),
        // alive: a b c d; b is anchored to a, c is a child of a and anchored to
        // it too (it dies with a, so it does not refuse), d is docked to b.
        add(Rel::Anchored, 1, Alive(0), None, Try),
        add(Rel::ChildOf, 2, Alive(0), None, Try),
        add(Rel::Anchored, 2, Alive(0), None, Plain),
        add(Rel::DockedTo, 3, Alive(1), None, EntityMut),
        Op::Despawn { target: Alive(0) },
        Op::TryDespawn { target: Alive(0), entity_mut: false },
        Op::TryDespawn { target: Alive(0), entity_mut: true },
        // Despawning b deletes d; nothing is anchored to either.
        Op::Despawn { target: Alive(1) },
        add(Rel::Anchored, 1, Alive(0), None, Try),
        remove(Rel::Anchored, 1, Alive(0), false),
        Op::TryDespawn { target: Alive(0), entity_mut: false },
    ];
    for observers in [Observers::None, Observers::All] {
        run(0, observers, &ops);
    }
}

/// Command buffers: spawns used by later commands of the same buffer, pairs
/// on entities the buffer despawned earlier (the target's policy applies),
/// `try_insert` on a dead entity, and a buffer cut short by a panicking
/// `insert` (its later spawn's entity is alive, empty; its values are dropped).
#[test]
fn commands_fixed_sequence() {
    use CmdTarget::*;
    use Target::Alive;
    let spawn = |values: Vec<Val>| Cmd::Spawn { values, reverse: false };
    let pair = |rel: Rel, source: CmdTarget, target: CmdTarget, amount: Option<u32>| Cmd::AddPair {
        rel,
        source,
        target,
        amount,
    };
    let ops = [
        Op::Spawn { values: vec![Val::Pos(1)], reverse: false },
        Op::Spawn { values: vec![Val::Tag], reverse: true },
        Op::Commands(vec![
            spawn(vec![Val::Tag, Val::Spr(vec![2])]),
            spawn(vec![]),
            pair(Rel::ChildOf, Spawned(1), Spawned(0), None),
            pair(Rel::Likes, World(Alive(0)), Spawned(1), None),
            pair(Rel::Owes, World(Alive(1)), Spawned(0), Some(4)),
            Cmd::Insert { target: Spawned(1), values: vec![Val::Pos(7), Val::SprTag], checked: true },
            // The parent dies, and its child with it; then pairs on the dead ones.
            Cmd::Despawn { target: Spawned(0) },
            pair(Rel::DockedTo, World(Alive(0)), Spawned(0), None),
            pair(Rel::Owes, World(Alive(1)), Spawned(0), Some(5)),
            pair(Rel::Likes, Spawned(1), World(Alive(1)), None),
            Cmd::Insert { target: Spawned(1), values: vec![Val::Text("dead".into())], checked: false },
            Cmd::Remove { target: Spawned(1), kinds: vec![Kind::Pos] },
        ]),
        Op::Spawn { values: vec![Val::SprTag, Val::Text("a".into())], reverse: false },
        Op::Commands(vec![
            Cmd::Despawn { target: World(Alive(0)) },
            spawn(vec![Val::Pos(3)]),
            Cmd::Insert { target: World(Alive(0)), values: vec![Val::Spr(vec![9])], checked: true },
            spawn(vec![Val::Text("never".into())]),
            pair(Rel::Likes, Spawned(1), World(Alive(1)), None),
        ]),
        Op::Commands(vec![
            spawn(vec![Val::Tag]),
            pair(Rel::Anchored, World(Alive(0)), Spawned(0), None),
            Cmd::Despawn { target: Spawned(0) },
            Cmd::RemovePair { rel: Rel::Anchored, source: World(Alive(0)), target: Spawned(0) },
        ]),
    ];
    for observers in [Observers::None, Observers::Components, Observers::All] {
        run(0, observers, &ops);
    }
}
