//! Model-based test: random sequences of structural operations, component reads
//! and writes and queries are run against a [`World`] and against a naive model
//! (`HashMap<Entity, [Option<Val>; KINDS]>`); after every step the whole world is
//! compared with the model and `World::check_invariants` runs.
//!
//! Every component type counts its live values in a thread-local counter (bumped
//! by its constructor, lowered by its `Drop`), so a value dropped twice or never is
//! noticed: after every step each counter equals the number of model entities
//! holding that component, and after the world is dropped every counter is zero.
//!
//! The component types cover: a zero-sized table tag with a `Drop` impl (`Tag`), an
//! over-aligned table value (`Pos`), heap data in a table (`Text`), heap data in a
//! sparse set (`Spr`) and a zero-sized sparse tag (`SprTag`).
//!
//! Operations: spawn (any subset, as a nested-tuple bundle in either component
//! order), insert and remove (one component or a 2-component bundle), despawn,
//! `get_mut` writes, queries (cached `QueryState`s and fresh ones: rows, filtered
//! rows, `iter_mut` writes, `QueryState::get`/`get_mut`). Targets are alive
//! entities, stale handles, alive indices with a later generation, or an index
//! never allocated. One case in 32 first spawns about a thousand empty
//! entities, so the entities under test straddle the sparse sets' first page.
//!
//! 10,000 cases of 1 to 39 operations; no failure-persistence files are written.

use std::cell::Cell;
use std::collections::HashMap;

use ecs::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

// ----- live-value counters ----------------------------------------------------------

const KINDS: usize = 5;

thread_local! {
    /// Live values per kind, on this thread only (test threads run in parallel).
    static LIVE: [Cell<i64>; KINDS] = const { [const { Cell::new(0) }; KINDS] };
}

fn created(kind: Kind) {
    LIVE.with(|live| live[kind as usize].set(live[kind as usize].get() + 1));
}

fn dropped(kind: Kind) {
    LIVE.with(|live| live[kind as usize].set(live[kind as usize].get() - 1));
}

fn live(kind: Kind) -> i64 {
    LIVE.with(|live| live[kind as usize].get())
}

fn reset_live() {
    LIVE.with(|live| live.iter().for_each(|cell| cell.set(0)));
}

// ----- components -------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Tag = 0,
    Pos = 1,
    Text = 2,
    Spr = 3,
    SprTag = 4,
}

impl Kind {
    const ALL: [Kind; KINDS] = [Kind::Tag, Kind::Pos, Kind::Text, Kind::Spr, Kind::SprTag];
}

/// A component value as the model stores it.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Tag,
    Pos(i64),
    Text(String),
    Spr(Vec<u32>),
    SprTag,
}

impl Val {
    /// A value of `kind` derived from `seed`.
    fn new(kind: Kind, seed: u64) -> Val {
        match kind {
            Kind::Tag => Val::Tag,
            Kind::Pos => Val::Pos(seed as i64 - 50),
            Kind::Text => Val::Text(format!("t{seed}")),
            Kind::Spr => Val::Spr((0..(seed % 4) as u32).map(|i| i.wrapping_add(seed as u32)).collect()),
            Kind::SprTag => Val::SprTag,
        }
    }

    fn kind(&self) -> Kind {
        match self {
            Val::Tag => Kind::Tag,
            Val::Pos(_) => Kind::Pos,
            Val::Text(_) => Kind::Text,
            Val::Spr(_) => Kind::Spr,
            Val::SprTag => Kind::SprTag,
        }
    }

    /// The model's mirror of [`Comp::mutate`].
    fn mutate(&mut self, seed: u32) {
        match self {
            Val::Tag | Val::SprTag => {}
            Val::Pos(n) => *n = mix(*n, seed),
            Val::Text(s) => s.push(letter(seed)),
            Val::Spr(v) => v.push(seed),
        }
    }
}

fn mix(n: i64, seed: u32) -> i64 {
    n.wrapping_mul(31).wrapping_add(i64::from(seed))
}

fn letter(seed: u32) -> char {
    char::from(b'a' + (seed % 26) as u8)
}

/// Zero-sized table tag with a `Drop` impl.
#[derive(Component, Debug, PartialEq)]
struct Tag;

/// Over-aligned table component.
#[derive(Component, Debug, PartialEq)]
#[repr(align(16))]
struct Pos(i64);

/// Table component with heap data.
#[derive(Component, Debug, PartialEq)]
struct Text(String);

/// Sparse component with heap data.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Spr(Vec<u32>);

/// Zero-sized sparse tag with a `Drop` impl.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SprTag;

/// What the test needs of each component type. Values are only built through
/// [`Comp::make`], which counts them.
trait Comp: Component + Sized + core::fmt::Debug {
    const KIND: Kind;
    fn make(value: Val) -> Self;
    fn val(&self) -> Val;
    fn mutate(&mut self, seed: u32);
}

impl Comp for Tag {
    const KIND: Kind = Kind::Tag;
    fn make(value: Val) -> Self {
        assert_eq!(value, Val::Tag);
        created(Self::KIND);
        Tag
    }
    fn val(&self) -> Val {
        Val::Tag
    }
    fn mutate(&mut self, _: u32) {}
}

impl Comp for Pos {
    const KIND: Kind = Kind::Pos;
    fn make(value: Val) -> Self {
        let Val::Pos(n) = value else { panic!("{value:?} is no Pos") };
        created(Self::KIND);
        Pos(n)
    }
    fn val(&self) -> Val {
        Val::Pos(self.0)
    }
    fn mutate(&mut self, seed: u32) {
        self.0 = mix(self.0, seed);
    }
}

impl Comp for Text {
    const KIND: Kind = Kind::Text;
    fn make(value: Val) -> Self {
        let Val::Text(s) = value else { panic!("{value:?} is no Text") };
        created(Self::KIND);
        Text(s)
    }
    fn val(&self) -> Val {
        Val::Text(self.0.clone())
    }
    fn mutate(&mut self, seed: u32) {
        self.0.push(letter(seed));
    }
}

impl Comp for Spr {
    const KIND: Kind = Kind::Spr;
    fn make(value: Val) -> Self {
        let Val::Spr(v) = value else { panic!("{value:?} is no Spr") };
        created(Self::KIND);
        Spr(v)
    }
    fn val(&self) -> Val {
        Val::Spr(self.0.clone())
    }
    fn mutate(&mut self, seed: u32) {
        self.0.push(seed);
    }
}

impl Comp for SprTag {
    const KIND: Kind = Kind::SprTag;
    fn make(value: Val) -> Self {
        assert_eq!(value, Val::SprTag);
        created(Self::KIND);
        SprTag
    }
    fn val(&self) -> Val {
        Val::SprTag
    }
    fn mutate(&mut self, _: u32) {}
}

macro_rules! impl_counted_drop {
    ($($t:ty),*) => {$(
        impl Drop for $t {
            fn drop(&mut self) {
                dropped(<$t as Comp>::KIND);
            }
        }
    )*};
}

impl_counted_drop!(Tag, Pos, Text, Spr, SprTag);

/// Runs `$body` with the type alias `$t` naming the component type of `$kind`.
macro_rules! with_kind {
    ($kind:expr, $t:ident => $body:expr) => {
        match $kind {
            Kind::Tag => {
                type $t = Tag;
                $body
            }
            Kind::Pos => {
                type $t = Pos;
                $body
            }
            Kind::Text => {
                type $t = Text;
                $body
            }
            Kind::Spr => {
                type $t = Spr;
                $body
            }
            Kind::SprTag => {
                type $t = SprTag;
                $body
            }
        }
    };
}

// ----- typed operations ---------------------------------------------------------------

/// How two bundles are nested into one: `(B, C)` or `(C, B)`, so that spawn
/// bundles list their components in both orders.
trait Join {
    type Out<B: Bundle, C: Bundle>: Bundle;
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> Self::Out<B, C>;
}

struct Forward;
struct Reverse;

impl Join for Forward {
    type Out<B: Bundle, C: Bundle> = (B, C);
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> (B, C) {
        (b, c)
    }
}

impl Join for Reverse {
    type Out<B: Bundle, C: Bundle> = (C, B);
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> (C, B) {
        (c, b)
    }
}

type Slots = [Option<Val>; KINDS];

/// `spawn_<kind>` adds that kind's slot (if any) to the bundle built so far and
/// goes on with the next kind; `spawn_done` spawns the (nested tuple) bundle.
macro_rules! spawn_level {
    ($name:ident, $c:ty, $next:ident) => {
        fn $name<J: Join, B: Bundle>(world: &mut World, bundle: B, slots: &mut Slots) -> Entity {
            match slots[<$c as Comp>::KIND as usize].take() {
                Some(value) => $next::<J, _>(world, J::join(bundle, <$c as Comp>::make(value)), slots),
                None => $next::<J, _>(world, bundle, slots),
            }
        }
    };
}

spawn_level!(spawn_tag, Tag, spawn_pos);
spawn_level!(spawn_pos, Pos, spawn_text);
spawn_level!(spawn_text, Text, spawn_spr);
spawn_level!(spawn_spr, Spr, spawn_sprtag);
spawn_level!(spawn_sprtag, SprTag, spawn_done);

fn spawn_done<J: Join, B: Bundle>(world: &mut World, bundle: B, _: &mut Slots) -> Entity {
    world.spawn(bundle).id()
}

fn insert1<A: Comp>(world: &mut World, entity: Entity, a: Val) -> bool {
    world.insert(entity, A::make(a))
}

fn insert2<A: Comp, B: Comp>(world: &mut World, entity: Entity, a: Val, b: Val) -> bool {
    world.insert(entity, (A::make(a), B::make(b)))
}

fn remove1<A: Comp>(world: &mut World, entity: Entity) -> Option<Vec<Val>> {
    world.remove::<A>(entity).map(|a| vec![a.val()])
}

fn remove2<A: Comp, B: Comp>(world: &mut World, entity: Entity) -> Option<Vec<Val>> {
    world.remove::<(A, B)>(entity).map(|(a, b)| vec![a.val(), b.val()])
}

fn mutate<A: Comp>(world: &mut World, entity: Entity, seed: u32) -> bool {
    match world.get_mut::<A>(entity) {
        Some(mut value) => {
            value.mutate(seed);
            true
        }
        None => false,
    }
}

/// Compares `entity`'s `A` in the world with the model's `expected`.
fn check_component<A: Comp>(world: &World, entity: Entity, expected: Option<&Val>) {
    let got = world.get::<A>(entity).map(Comp::val);
    assert_eq!(got.as_ref(), expected, "get::<{}>({entity:?})", A::NAME);
    assert_eq!(world.has::<A>(entity), expected.is_some(), "has::<{}>({entity:?})", A::NAME);
    let via_ref = world.get_entity(entity).map(|e| (e.contains::<A>(), e.get::<A>().map(Comp::val)));
    match via_ref {
        Some((contains, value)) => {
            assert_eq!(contains, expected.is_some(), "EntityRef::contains::<{}>({entity:?})", A::NAME);
            assert_eq!(value.as_ref(), expected, "EntityRef::get::<{}>({entity:?})", A::NAME);
        }
        None => assert!(expected.is_none(), "get_entity({entity:?}) is None for a model entity"),
    }
}

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

/// Collects a query's rows (sorted by entity) and checks its size hint.
macro_rules! rows {
    ($fresh:expr, $cached:expr, $world:expr, |$item:pat_param| $row:expr) => {{
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
        let mut rows: Vec<Row> = iter.map(|$item| $row).collect();
        assert!(low <= rows.len() && high.is_none_or(|high| high >= rows.len()), "size_hint ({low}, {high:?})");
        rows.sort_by_key(|row| row.0);
        rows
    }};
}

struct Harness {
    world: World,
    model: HashMap<Entity, ModelEntity>,
    /// The model's entities in spawn order (targets index into it).
    alive: Vec<Entity>,
    /// Every despawned handle.
    stale: Vec<Entity>,
    /// Component-less entities spawned first (with `spawn_batch`) so that later
    /// entities get indices past the first sparse-set page. They are never
    /// targeted, are not in `model`, and are checked once, at the end.
    padding: Vec<Entity>,
    queries: Queries,
}

const NEVER: Entity = Entity::from_raw(999_999, 0);

impl Harness {
    fn new(padding: usize) -> Harness {
        let mut world = World::new();
        let queries = Queries::new(&mut world);
        let padding = world.spawn_batch((0..padding).map(|_| ())).collect();
        Harness { world, model: HashMap::new(), alive: Vec::new(), stale: Vec::new(), padding, queries }
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
                let model = self.model.get_mut(&entity);
                assert_eq!(inserted, model.is_some(), "insert({entity:?}, {values:?})");
                if let Some(model) = model {
                    for value in values {
                        model[value.kind() as usize] = Some(value.clone());
                    }
                }
            }
            Op::Remove { target, kinds } => {
                let Some(entity) = self.resolve(*target) else { return };
                let removed = match kinds.as_slice() {
                    [a] => with_kind!(*a, A => remove1::<A>(&mut self.world, entity)),
                    [a, b] => with_kind!(*a, A => with_kind!(*b, B => remove2::<A, B>(&mut self.world, entity))),
                    _ => unreachable!("removes have 1 or 2 kinds"),
                };
                let expected = self.model.get_mut(&entity).and_then(|model| {
                    let values: Vec<Option<Val>> = kinds.iter().map(|&k| model[k as usize].take()).collect();
                    values.into_iter().collect::<Option<Vec<Val>>>()
                });
                assert_eq!(removed, expected, "remove::<{kinds:?}>({entity:?})");
            }
            Op::Despawn { target } => {
                let Some(entity) = self.resolve(*target) else { return };
                let despawned = self.world.despawn(entity);
                let expected = self.model.remove(&entity).is_some();
                assert_eq!(despawned, expected, "despawn({entity:?})");
                if expected {
                    self.alive.retain(|&e| e != entity);
                    self.stale.push(entity);
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
        let mut slots: Slots = Default::default();
        for value in values {
            slots[value.kind() as usize] = Some(value.clone());
        }
        let model = slots.clone();
        let entity = match (values.is_empty(), reverse) {
            (true, _) => self.world.spawn_empty().id(),
            (false, false) => spawn_tag::<Forward, _>(&mut self.world, (), &mut slots),
            (false, true) => spawn_tag::<Reverse, _>(&mut self.world, (), &mut slots),
        };
        assert!(!self.model.contains_key(&entity), "spawn returned the alive {entity:?}");
        assert!(!self.stale.contains(&entity), "spawn returned the stale handle {entity:?}");
        self.model.insert(entity, model);
        self.alive.push(entity);
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
        let (got, expected) = match query {
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
        assert_eq!(self.world.entity_count(), self.model.len() + self.padding.len(), "entity_count");
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
    }
}

/// Runs `ops` on a fresh world (after `padding` empty entities), checking after every step, then drops the world
/// and checks that every value was dropped exactly once.
fn run(padding: usize, ops: &[Op]) {
    reset_live();
    let mut harness = Harness::new(padding);
    harness.check();
    for op in ops {
        harness.apply(op);
        harness.check();
    }
    for query in QUERIES {
        harness.check_query(query, false);
        harness.check_query(query, true);
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

fn op() -> impl Strategy<Value = Op> {
    let seed = 0..100u64;
    prop_oneof![
        4 => (proptest::collection::vec(any::<bool>(), KINDS), seed.clone(), any::<bool>()).prop_map(
            |(present, seed, reverse)| {
                let values = Kind::ALL
                    .iter()
                    .zip(present)
                    .filter(|(_, present)| *present)
                    .map(|(&k, _)| Val::new(k, seed + k as u64))
                    .collect();
                Op::Spawn { values, reverse }
            }
        ),
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

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn world_matches_model(padding in padding(), ops in proptest::collection::vec(op(), 1..40)) {
        run(padding, &ops);
    }
}

// ----- fixed sequences ------------------------------------------------------------------

/// Recycled indices, replaced sparse and tag values, partial bundle removal.
#[test]
fn fixed_sequence() {
    use Target::*;
    run(
        0,
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
    run(1010, &ops);
}
