//! Review of commits 8beab02 and 21d5f46 (relationship hooks for pairs,
//! value pairs of `inherit` relationships read through `IsA`, built-in names
//! in `lookup`), aimed at what `review_session20.rs`, `inherited_pairs.rs` and
//! `relationship_hooks.rs` leave out.
//!
//! Covered: a hand-rolled random model (seeded, many seeds) of "own pairs +
//! pairs of prefab bases, depth-first, nearest/first added wins, a plain base
//! blocks what it owns beyond it, exclusive: own hides all, else first found"
//! over random `insert_pair`/`remove_pair` (also wildcard) on prefabs, plain
//! bases and instances, adding/removing `IsA`, adding/removing `Prefab`,
//! despawning targets and bases, and `instantiate`, compared after every step
//! with `get_pair`/`has_pair`/`has_id`/`owns_pair`, typed `Pair<&R>`/`Pair<R>`/
//! `WithPair<R>`/`Option<Pair<&R>>`/`Or<(WithPair, WithPair)>` queries (built
//! before the churn and fresh), runtime `(R, *)`/`(R, $x)` queries (cached,
//! built before, and uncached), with every value drop-counted (live values ==
//! the model's own pairs after each step, 0 after the world drops); exclusive
//! relationships with a plain base in the chain; runtime `up`/`self|up` pair
//! terms beside the implicit inheritance (no duplicate rows); `Option<Pair<&R>>`
//! and `Or` filters; lookup of paths under a user root named like a built-in
//! and `path` round trips; relationship hooks with `insert_if_new`,
//! `spawn_batch`, commands `insert_pair`/`add_pair_id`, `remove_id` of `(*, t)`,
//! `add_pair_id` of an exclusive relationship by its entity, and the despawn of
//! a value relationship's own entity; instance children reading the pairs of
//! prefab children.
//!
//! Each test runs on its own thread; drop tracking is thread-local.
//!
//! Findings (both fixed since):
//! - `exclusive_plain_base_owning_another_target_blocks_what_lies_beyond` (and
//!   the strict random model `random_churn_exclusive_plain_base_blocks_all`):
//!   a plain (non-prefab) base that owns `(Slot, x)` of an exclusive inherit
//!   relationship blocks only `(Slot, x)` for what lies beyond it, so its
//!   instance reads the prefab's `(Slot, y)` that the plain base itself has
//!   overridden (the base reads `x`, its instance `y`); the base's own pair
//!   should hide every `(Slot, *)` beyond it, as it does for the base itself.
//! - `builtin_path_round_trips_with_a_user_root_of_its_name`: `path` of the
//!   built-in `Prefab` is `"Prefab"`, but once a user root is named `Prefab`
//!   `lookup("Prefab")` gives the user's root: `path` no longer looks the
//!   built-in up again (its doc promises it always does).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use ecs::entity::Id;
use ecs::prelude::*;

// ----- drop tracking ---------------------------------------------------------------------

thread_local! {
    static NEXT: Cell<u32> = const { Cell::new(0) };
    static DROPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A value whose drop is recorded by its serial number.
#[derive(Debug, PartialEq)]
struct Token(u32);

impl Token {
    fn new() -> Token {
        NEXT.with(|next| {
            let id = next.get();
            next.set(id + 1);
            Token(id)
        })
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        DROPS.with(|drops| drops.borrow_mut().push(self.0));
    }
}

/// Values made and not yet dropped; panics on a double drop.
fn live() -> usize {
    let made = NEXT.with(Cell::get) as usize;
    let drops = DROPS.with(|d| d.borrow().clone());
    let mut sorted = drops.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), drops.len(), "a value was dropped twice: {drops:?}");
    made - drops.len()
}

fn log(line: String) {
    LOG.with(|l| l.borrow_mut().push(line));
}

fn take() -> Vec<String> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

fn name_of(world: &World, entity: Entity) -> String {
    world.get::<Name>(entity).map_or_else(|| format!("{entity:?}"), |n| n.as_str().to_string())
}

// ----- relationships and components --------------------------------------------------------

/// A non-exclusive `inherit` value relationship.
#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32, Token);

/// An exclusive `inherit` value relationship.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct Slot(u32, Token);

/// Marks the model's holders (owned by each, never only inherited).
#[derive(Component)]
struct Holder;

#[derive(Component)]
struct Marker;

macro_rules! fuel_hook {
    ($name:ident, $label:literal) => {
        fn $name(world: DeferredWorld, ctx: HookContext) {
            let target = world.pair_target().expect("a pair hook has a target");
            let value = world.world().get_pair::<Fuel>(ctx.entity, target).map(|f| f.0);
            log(format!(
                "{} {}:{} {value:?}",
                $label,
                name_of(world.world(), ctx.entity),
                name_of(world.world(), target)
            ));
        }
    };
}
fuel_hook!(fuel_add, "add");
fuel_hook!(fuel_insert, "insert");
fuel_hook!(fuel_replace, "replace");
fuel_hook!(fuel_remove, "remove");

/// A hooked `inherit` value relationship.
#[derive(Relationship, Debug, PartialEq)]
#[component(on_add = fuel_add, on_insert = fuel_insert, on_replace = fuel_replace, on_remove = fuel_remove)]
struct Fuel(u32, Token);

fn fuel(amount: u32) -> Fuel {
    Fuel(amount, Token::new())
}

macro_rules! tag_hook {
    ($name:ident, $label:literal) => {
        fn $name(world: DeferredWorld, ctx: HookContext) {
            let target = world.pair_target().expect("a pair hook has a target");
            let relationship = world.world().component_info(ctx.component_id).map_or("?", |info| info.name());
            log(format!(
                "{} {relationship} {}:{}",
                $label,
                name_of(world.world(), ctx.entity),
                name_of(world.world(), target)
            ));
        }
    };
}
tag_hook!(tag_add, "add");
tag_hook!(tag_insert, "insert");
tag_hook!(tag_replace, "replace");
tag_hook!(tag_remove, "remove");

/// A hooked tag relationship.
#[derive(Relationship)]
#[component(on_add = tag_add, on_insert = tag_insert, on_replace = tag_replace, on_remove = tag_remove)]
struct Likes;

/// A hooked exclusive tag relationship.
#[derive(Relationship)]
#[relationship(exclusive)]
#[component(on_add = tag_add, on_insert = tag_insert, on_replace = tag_replace, on_remove = tag_remove)]
struct Docked;

fn named(world: &mut World, name: &'static str) -> Entity {
    world.spawn(Name::new(name)).id()
}

// ----- the random model --------------------------------------------------------------------

const TARGETS: usize = 3;
const BASES: usize = 4;
const INSTANCES: usize = 4;
const HOLDERS: usize = BASES + INSTANCES;
/// In a model's blocked list: every pair of the relationship.
const ALL: usize = usize::MAX;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One holder: bases `0..BASES`, instances after. A base `i` only ever has
/// bases `j < i` (no cycles); an instance any base.
#[derive(Clone)]
struct Node {
    entity: Entity,
    prefab: bool,
    /// Base holder indices, in the order added.
    bases: Vec<usize>,
    /// Own pairs per relationship (0: Eats, 1: Slot): target slot -> value.
    own: [BTreeMap<usize, u32>; 2],
}

struct Model {
    nodes: Vec<Node>,
    targets: Vec<Entity>,
}

impl Model {
    /// What holder `h` reads of relationship `rel` (target slot -> value):
    /// `strict` makes a plain base owning a pair of the exclusive `Slot`
    /// block every `(Slot, *)` beyond it, else only the pair it owns.
    fn visible(&self, h: usize, rel: usize, strict: bool) -> BTreeMap<usize, u32> {
        let mut found: Vec<(usize, u32)> = Vec::new();
        let mut blocked: Vec<usize> = Vec::new();
        for &base in &self.nodes[h].bases {
            self.visit(base, rel, strict, &mut blocked, &mut found);
        }
        let own = &self.nodes[h].own[rel];
        let mut seen: BTreeMap<usize, u32> = BTreeMap::new();
        // The first found of all (depth-first order) is the exclusive one.
        let first = found.first().copied();
        for (target, value) in found {
            seen.entry(target).or_insert(value);
        }
        if rel == 1 {
            // Exclusive: the own pair hides every inherited one, else the first found.
            if !own.is_empty() {
                return own.clone();
            }
            return first.into_iter().collect();
        }
        for (&target, &value) in own {
            seen.insert(target, value);
        }
        seen
    }

    fn visit(&self, b: usize, rel: usize, strict: bool, blocked: &mut Vec<usize>, found: &mut Vec<(usize, u32)>) {
        let node = &self.nodes[b];
        let mark = blocked.len();
        for (&target, &value) in &node.own[rel] {
            if !node.prefab {
                blocked.push(target);
            } else if !blocked.contains(&target) && !blocked.contains(&ALL) {
                found.push((target, value));
            }
        }
        if strict && rel == 1 && !node.prefab && !node.own[rel].is_empty() {
            blocked.push(ALL);
        }
        for &next in &node.bases {
            self.visit(next, rel, strict, blocked, found);
        }
        blocked.truncate(mark);
    }

    fn own_count(&self) -> usize {
        self.nodes.iter().map(|n| n.own[0].len() + n.own[1].len()).sum()
    }

    /// Per non-prefab holder entity, the sorted `(target, value)` it reads of `rel`.
    fn rows(&self, rel: usize, strict: bool) -> BTreeMap<Entity, Vec<(Entity, u32)>> {
        let mut rows = BTreeMap::new();
        for (h, node) in self.nodes.iter().enumerate() {
            if node.prefab {
                continue;
            }
            let mut seen: Vec<(Entity, u32)> =
                self.visible(h, rel, strict).into_iter().map(|(t, v)| (self.targets[t], v)).collect();
            seen.sort();
            if !seen.is_empty() {
                rows.insert(node.entity, seen);
            }
        }
        rows
    }
}

fn group(rows: impl IntoIterator<Item = (Entity, Entity, u32)>) -> BTreeMap<Entity, Vec<(Entity, u32)>> {
    let mut grouped: BTreeMap<Entity, Vec<(Entity, u32)>> = BTreeMap::new();
    for (e, t, v) in rows {
        grouped.entry(e).or_default().push((t, v));
    }
    for rows in grouped.values_mut() {
        rows.sort();
    }
    grouped
}

/// `actual` agrees with the strict model, or (unless `strict`) with the lenient one, entity by entity.
fn agree(
    what: &str,
    actual: &BTreeMap<Entity, Vec<(Entity, u32)>>,
    strict_rows: &BTreeMap<Entity, Vec<(Entity, u32)>>,
    lenient_rows: &BTreeMap<Entity, Vec<(Entity, u32)>>,
    strict: bool,
    context: &str,
) {
    let mut keys: Vec<Entity> = actual.keys().chain(strict_rows.keys()).chain(lenient_rows.keys()).copied().collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let got = actual.get(&key).cloned().unwrap_or_default();
        let want_strict = strict_rows.get(&key).cloned().unwrap_or_default();
        let want_lenient = lenient_rows.get(&key).cloned().unwrap_or_default();
        assert!(
            got == want_strict || (!strict && got == want_lenient),
            "{what} of {key:?}: got {got:?}, model {want_strict:?} (lenient {want_lenient:?})\n{context}"
        );
    }
}

/// `Or<(WithPair<Eats>, WithPair<Slot>)>`.
type EitherPair = Or<(WithPair<Eats>, WithPair<Slot>)>;

struct Views {
    typed_ref: QueryState<(Entity, Pair<&'static Eats>)>,
    typed_slot: QueryState<(Entity, Pair<&'static Slot>)>,
    typed_targets: QueryState<(Entity, Pair<Slot>)>,
    with_eats: QueryState<Entity, WithPair<Eats>>,
    or_filter: QueryState<Entity, EitherPair>,
    optional: QueryState<(Entity, Option<Pair<&'static Eats>>), With<Holder>>,
    runtime_eats: DynQuery,
    runtime_slot_var: DynQuery,
}

fn runtime_rows<R: Relationship>(
    world: &World,
    query: &mut DynQuery,
    var: Option<&str>,
    value: impl Fn(&R) -> u32,
) -> Vec<(Entity, Entity, u32)> {
    query
        .iter(world)
        .map(|row| {
            let target = match var {
                Some(var) => row.var(var).expect("bound"),
                None => row.pair_target(0),
            };
            (row.entity(), target, row.get::<R>(0).map(&value).expect("a value"))
        })
        .collect()
}

fn check(world: &mut World, model: &Model, views: &mut Views, strict: bool, context: &str) {
    let eats = world.component_id::<Eats>().unwrap();
    let slot = world.component_id::<Slot>().unwrap();
    // Point views.
    for (h, node) in model.nodes.iter().enumerate() {
        let e = node.entity;
        for (rel, rid) in [(0, eats), (1, slot)] {
            let want_strict = model.visible(h, rel, true);
            let want_lenient = model.visible(h, rel, false);
            let mut got: BTreeMap<usize, u32> = BTreeMap::new();
            for (k, &t) in model.targets.iter().enumerate() {
                let value = if rel == 0 {
                    world.get_pair::<Eats>(e, t).map(|v| v.0)
                } else {
                    world.get_pair::<Slot>(e, t).map(|v| v.0)
                };
                let has = if rel == 0 { world.has_pair::<Eats>(e, t) } else { world.has_pair::<Slot>(e, t) };
                let owns = if rel == 0 { world.owns_pair::<Eats>(e, t) } else { world.owns_pair::<Slot>(e, t) };
                assert_eq!(has, value.is_some(), "has_pair vs get_pair {h} rel {rel} target {k}\n{context}");
                assert_eq!(world.has_id(e, Id::pair(rid, t)), has, "has_id {h} rel {rel} target {k}\n{context}");
                assert_eq!(owns, node.own[rel].contains_key(&k), "owns_pair {h} rel {rel} target {k}\n{context}");
                if let Some(value) = value {
                    got.insert(k, value);
                }
            }
            assert!(
                got == want_strict || (!strict && got == want_lenient),
                "get_pair of holder {h} rel {rel}: got {got:?}, model {want_strict:?} (lenient {want_lenient:?})\n{context}"
            );
            // Wildcard targets: owned pairs only.
            let owns_any = if rel == 0 {
                world.has_pair::<Eats>(e, Entity::WILDCARD)
            } else {
                world.has_pair::<Slot>(e, Entity::WILDCARD)
            };
            assert_eq!(owns_any, !node.own[rel].is_empty(), "has_pair(*) {h} rel {rel}\n{context}");
        }
    }
    // Query views.
    let (eats_strict, eats_lenient) = (model.rows(0, true), model.rows(0, false));
    let (slot_strict, slot_lenient) = (model.rows(1, true), model.rows(1, false));
    let typed = group(views.typed_ref.iter(world).map(|(e, (t, v))| (e, t, v.0)));
    agree("cached Pair<&Eats>", &typed, &eats_strict, &eats_lenient, strict, context);
    let fresh = group(world.query::<(Entity, Pair<&Eats>)>().iter(world).map(|(e, (t, v))| (e, t, v.0)));
    agree("fresh Pair<&Eats>", &fresh, &eats_strict, &eats_lenient, strict, context);
    let typed = group(views.typed_slot.iter(world).map(|(e, (t, v))| (e, t, v.0)));
    agree("cached Pair<&Slot>", &typed, &slot_strict, &slot_lenient, strict, context);
    // Targets only: compare with the values dropped.
    let targets: Vec<(Entity, Entity)> = views.typed_targets.iter(world).collect();
    let mut from_values: Vec<(Entity, Entity)> =
        views.typed_slot.iter(world).map(|(e, (t, _))| (e, t)).collect::<Vec<_>>();
    let mut sorted_targets = targets.clone();
    sorted_targets.sort();
    from_values.sort();
    assert_eq!(sorted_targets, from_values, "Pair<Slot> vs Pair<&Slot>\n{context}");
    // Filters.
    let mut with: Vec<Entity> = views.with_eats.iter(world).collect();
    with.sort();
    let with_strict: Vec<Entity> = eats_strict.keys().copied().collect();
    assert_eq!(with, with_strict, "WithPair<Eats>\n{context}");
    let mut or: Vec<Entity> = views.or_filter.iter(world).collect();
    or.sort();
    let mut or_expected: Vec<Entity> = typed.keys().chain(with.iter()).copied().collect();
    or_expected.sort();
    or_expected.dedup();
    assert_eq!(or, or_expected, "Or<(WithPair<Eats>, WithPair<Slot>)>\n{context}");
    // Optional: one row per pair, or one `None` row per non-prefab holder.
    let optional: Vec<(Entity, Option<(Entity, u32)>)> =
        views.optional.iter(world).map(|(e, pair)| (e, pair.map(|(t, v)| (t, v.0)))).collect();
    let with_value = group(optional.iter().filter_map(|&(e, pair)| pair.map(|(t, v)| (e, t, v))));
    agree("Option<Pair<&Eats>>", &with_value, &eats_strict, &eats_lenient, strict, context);
    for node in model.nodes.iter().filter(|n| !n.prefab) {
        let rows: Vec<_> = optional.iter().filter(|(e, _)| *e == node.entity).collect();
        let nones = rows.iter().filter(|(_, pair)| pair.is_none()).count();
        assert!(!rows.is_empty(), "Option<Pair<&Eats>> lost holder {:?}\n{context}", node.entity);
        assert!(nones == 0 || rows.len() == 1, "Option<Pair<&Eats>> rows {rows:?}\n{context}");
    }
    // Runtime: cached (built before), uncached.
    let runtime = group(runtime_rows::<Eats>(world, &mut views.runtime_eats, None, |v| v.0));
    agree("cached (Eats, *)", &runtime, &eats_strict, &eats_lenient, strict, context);
    let mut uncached = world.query_builder().pair(eats, Entity::WILDCARD).build_uncached().unwrap();
    let runtime = group(runtime_rows::<Eats>(world, &mut uncached, None, |v| v.0));
    agree("uncached (Eats, *)", &runtime, &eats_strict, &eats_lenient, strict, context);
    let runtime = group(runtime_rows::<Slot>(world, &mut views.runtime_slot_var, Some("x"), |v| v.0));
    agree("cached (Slot, $x)", &runtime, &slot_strict, &slot_lenient, strict, context);
    // Values: own only, each alive once.
    assert_eq!(live(), model.own_count(), "live values vs own pairs\n{context}");
}

fn spawn_base(world: &mut World) -> Entity {
    world.spawn((Prefab, Holder)).id()
}

fn run_model(seed: u64, steps: usize, strict: bool) {
    let mut world = World::new();
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let targets: Vec<Entity> = (0..TARGETS).map(|_| world.spawn_empty().id()).collect();
    let mut nodes: Vec<Node> = Vec::new();
    for _ in 0..BASES {
        let entity = spawn_base(&mut world);
        nodes.push(Node { entity, prefab: true, bases: Vec::new(), own: Default::default() });
    }
    for i in 0..INSTANCES {
        let base = i % BASES;
        let entity = world.instantiate(nodes[base].entity);
        world.entity_mut(entity).insert(Holder);
        nodes.push(Node { entity, prefab: false, bases: vec![base], own: Default::default() });
    }
    let mut model = Model { nodes, targets };
    let mut views = Views {
        typed_ref: world.query::<(Entity, Pair<&Eats>)>(),
        typed_slot: world.query::<(Entity, Pair<&Slot>)>(),
        typed_targets: world.query::<(Entity, Pair<Slot>)>(),
        with_eats: world.query_filtered::<Entity, WithPair<Eats>>(),
        or_filter: world.query_filtered::<Entity, Or<(WithPair<Eats>, WithPair<Slot>)>>(),
        optional: world.query_filtered::<(Entity, Option<Pair<&Eats>>), With<Holder>>(),
        runtime_eats: world.query_dsl("(Eats, *)").unwrap(),
        runtime_slot_var: world.query_dsl("(Slot, $x)").unwrap(),
    };
    let mut value = 0u32;
    let mut history: Vec<String> = Vec::new();
    check(&mut world, &model, &mut views, strict, "initial");
    for step in 0..steps {
        let h = rng.below(HOLDERS);
        let k = rng.below(TARGETS);
        let e = model.nodes[h].entity;
        let t = model.targets[k];
        let op = rng.below(16);
        value += 1;
        let line = match op {
            0..=2 => {
                world.insert_pair(e, Eats(value, Token::new()), t);
                model.nodes[h].own[0].insert(k, value);
                format!("insert Eats {h} -> t{k} = {value}")
            }
            3 | 4 => {
                world.insert_pair(e, Slot(value, Token::new()), t);
                model.nodes[h].own[1] = BTreeMap::from([(k, value)]);
                format!("insert Slot {h} -> t{k} = {value}")
            }
            5 => {
                let removed = world.remove_pair::<Eats>(e, t);
                assert_eq!(removed, model.nodes[h].own[0].remove(&k).is_some(), "remove Eats");
                format!("remove Eats {h} -> t{k}")
            }
            6 => {
                let removed = world.remove_pair::<Slot>(e, t);
                assert_eq!(removed, model.nodes[h].own[1].remove(&k).is_some(), "remove Slot");
                format!("remove Slot {h} -> t{k}")
            }
            7..=9 => {
                // Add an IsA: an instance to any base, a base `i` to a base `j < i`.
                let limit = if h < BASES { h } else { BASES };
                if limit == 0 {
                    continue;
                }
                let b = rng.below(limit);
                world.add_pair::<IsA>(e, model.nodes[b].entity);
                if !model.nodes[h].bases.contains(&b) {
                    model.nodes[h].bases.push(b);
                }
                format!("add IsA {h} -> {b}")
            }
            10 => {
                let Some(&b) = model.nodes[h].bases.get(rng.below(model.nodes[h].bases.len().max(1))) else {
                    continue;
                };
                assert!(world.remove_pair::<IsA>(e, model.nodes[b].entity));
                model.nodes[h].bases.retain(|&x| x != b);
                format!("remove IsA {h} -> {b}")
            }
            11 => {
                let b = rng.below(BASES);
                let base = model.nodes[b].entity;
                if model.nodes[b].prefab {
                    world.entity_mut(base).remove::<Prefab>();
                } else {
                    world.entity_mut(base).insert(Prefab);
                }
                model.nodes[b].prefab = !model.nodes[b].prefab;
                format!("toggle Prefab {b} -> {}", model.nodes[b].prefab)
            }
            12 => {
                assert!(world.despawn(t));
                for node in &mut model.nodes {
                    node.own[0].remove(&k);
                    node.own[1].remove(&k);
                }
                model.targets[k] = world.spawn_empty().id();
                format!("despawn target {k}")
            }
            13 => {
                let b = rng.below(BASES);
                assert!(world.despawn(model.nodes[b].entity));
                for node in &mut model.nodes {
                    node.bases.retain(|&x| x != b);
                }
                let entity = spawn_base(&mut world);
                model.nodes[b] = Node { entity, prefab: true, bases: Vec::new(), own: Default::default() };
                format!("despawn base {b}")
            }
            14 => {
                let i = BASES + rng.below(INSTANCES);
                let b = rng.below(BASES);
                assert!(world.despawn(model.nodes[i].entity));
                let entity = world.instantiate(model.nodes[b].entity);
                world.entity_mut(entity).insert(Holder);
                model.nodes[i] = Node { entity, prefab: false, bases: vec![b], own: Default::default() };
                format!("instantiate {i} from {b}")
            }
            _ => {
                let rel = rng.below(2);
                let removed = if rel == 0 {
                    world.remove_pair::<Eats>(e, Entity::WILDCARD)
                } else {
                    world.remove_pair::<Slot>(e, Entity::WILDCARD)
                };
                assert_eq!(removed, !model.nodes[h].own[rel].is_empty(), "remove (R, *)");
                model.nodes[h].own[rel].clear();
                format!("remove ({rel}, *) of {h}")
            }
        };
        history.push(format!("{step}: {line}"));
        let context = format!("seed {seed}, steps:\n{}", history.join("\n"));
        check(&mut world, &model, &mut views, strict, &context);
    }
    drop(views);
    drop(world);
    assert_eq!(live(), 0, "seed {seed}: values left after the world dropped");
}

/// Random churn over prefabs, plain bases and instances: every view agrees
/// with the model after every step (an exclusive pair beyond a plain base
/// that owns another target may read either way here; the strict test pins
/// it), every value is dropped exactly once.
#[test]
fn random_churn_views_agree_with_model() {
    for seed in 1..=60 {
        run_model(seed, 150, false);
    }
}

/// The same churn, asking that a plain base's own pair of an exclusive
/// relationship hides every pair of it beyond that base.
#[test]
fn random_churn_exclusive_plain_base_blocks_all() {
    for seed in 1..=60 {
        run_model(seed, 150, true);
    }
}

// ----- exclusive relationships through a plain base ----------------------------------------

/// A plain base that owns `(Slot, x)` reads `x` only (its own pair hides the
/// prefab's `(Slot, y)`); its instance must not read `y` through it either.
#[test]
fn exclusive_plain_base_owning_another_target_blocks_what_lies_beyond() {
    let mut world = World::new();
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    let root = world.spawn(Prefab).id();
    world.insert_pair(root, Slot(1, Token::new()), y);
    let plain = world.spawn(IsA.pair(root)).id();
    world.insert_pair(plain, Slot(2, Token::new()), x);
    let instance = world.spawn(IsA.pair(plain)).id();
    // The plain base itself: only its own.
    assert_eq!(world.get_pair::<Slot>(plain, x).map(|s| s.0), Some(2));
    assert_eq!(world.get_pair::<Slot>(plain, y), None);
    // Its instance: nothing (a plain base passes none of its own values, and
    // its own exclusive pair hides what lies beyond it).
    assert_eq!(world.get_pair::<Slot>(instance, x), None);
    assert_eq!(world.get_pair::<Slot>(instance, y).map(|s| s.0), None);
    assert!(!world.has_pair::<Slot>(instance, y));
    let mut typed = world.query::<(Entity, Pair<Slot>)>();
    assert_eq!(typed.iter(&world).collect::<Vec<_>>(), [(plain, x)]);
    let mut runtime = world.query_dsl("(Slot, *)").unwrap();
    assert_eq!(runtime.iter(&world).map(|row| (row.entity(), row.pair_target(0))).collect::<Vec<_>>(), [(plain, x)]);
    drop(runtime);
    drop(world);
    assert_eq!(live(), 0);
}

/// Controls: a plain base without the exclusive relationship passes the
/// prefab's pair beyond it on, and with two bases the depth-first first found
/// wins; a plain base's block does not reach a sibling base's pair.
#[test]
fn exclusive_through_plain_bases_first_found_wins() {
    let mut world = World::new();
    let (y, z) = (world.spawn_empty().id(), world.spawn_empty().id());
    let root = world.spawn(Prefab).id();
    world.insert_pair(root, Slot(1, Token::new()), y);
    let plain = world.spawn(IsA.pair(root)).id();
    let other = world.spawn(Prefab).id();
    world.insert_pair(other, Slot(3, Token::new()), z);
    let instance = world.spawn((IsA.pair(plain), IsA.pair(other))).id();
    assert_eq!(world.get_pair::<Slot>(instance, y).map(|s| s.0), Some(1));
    assert_eq!(world.get_pair::<Slot>(instance, z), None);
    let mut typed = world.query::<(Entity, Pair<&Slot>)>();
    let rows: Vec<(Entity, Entity, u32)> = typed.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    assert!(rows.contains(&(instance, y, 1)) && rows.iter().filter(|r| r.0 == instance).count() == 1, "{rows:?}");
    // The plain base now owns `(Slot, y)`: blocked beyond it; the sibling's `z` shows.
    world.insert_pair(plain, Slot(2, Token::new()), y);
    assert_eq!(world.get_pair::<Slot>(instance, y), None);
    assert_eq!(world.get_pair::<Slot>(instance, z).map(|s| s.0), Some(3));
    let rows: Vec<(Entity, Entity, u32)> = typed.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    assert_eq!(rows.iter().filter(|r| r.0 == instance).collect::<Vec<_>>(), [&(instance, z, 3)]);
    let mut runtime = world.query_dsl("(Slot, $x)").unwrap();
    let found: Vec<(Entity, Option<Entity>)> =
        runtime.iter(&world).filter(|row| row.entity() == instance).map(|row| (row.entity(), row.var("x"))).collect();
    assert_eq!(found, [(instance, Some(z))]);
    drop(runtime);
    drop(world);
    assert_eq!(live(), 0);
}

// ----- up / self|up pair terms beside the implicit inheritance ----------------------------

/// `Eats(self|up IsA, *)`, `Eats(up IsA, *)` and `(Eats, *)` over an instance
/// that owns one pair and inherits others through a chain: no duplicate rows,
/// every row's value is what its source holds, fixed targets give one row.
#[test]
fn up_and_self_up_pair_terms_give_each_pair_once() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    let b = named(&mut world, "b");
    let c = named(&mut world, "c");
    let root = world.spawn(Prefab).id();
    world.insert_pair(root, Eats(1, Token::new()), a);
    world.insert_pair(root, Eats(2, Token::new()), c);
    let middle = world.spawn((Prefab, IsA.pair(root))).id();
    world.insert_pair(middle, Eats(10, Token::new()), a);
    world.insert_pair(middle, Eats(11, Token::new()), b);
    let instance = world.instantiate(middle);
    world.insert_pair(instance, Eats(100, Token::new()), b);
    let rows = |world: &World, dsl: &str| -> Vec<(Entity, Entity, Entity, u32)> {
        let mut query = world.query_dsl(dsl).unwrap();
        let mut rows: Vec<_> = query
            .iter(world)
            .map(|row| (row.entity(), row.pair_target(0), row.source(0), row.get::<Eats>(0).unwrap().0))
            .collect();
        rows.sort();
        rows
    };
    for dsl in ["(Eats, *)", "Eats(self|up IsA, *)", "Eats(up IsA, *)", "(Eats, $x)", "Eats(self|up IsA, $x)"] {
        let found = rows(&world, dsl);
        let mut keys: Vec<(Entity, Entity)> = found.iter().map(|r| (r.0, r.1)).collect();
        keys.dedup();
        assert_eq!(keys.len(), found.len(), "{dsl}: duplicate rows {found:?}");
        for &(entity, target, source, value) in &found {
            assert_eq!(entity, instance, "{dsl}: {found:?}");
            assert_eq!(world.get_pair::<Eats>(source, target).map(|e| e.0), Some(value), "{dsl}: {found:?}");
        }
    }
    // The implicit inheritance: own b, a from the middle, c from the root.
    assert_eq!(
        rows(&world, "(Eats, *)"),
        [(instance, a, middle, 10), (instance, b, instance, 100), (instance, c, root, 2)]
    );
    // `self|up` gives at least the own pair, never the middle's (Eats, b) beside it.
    let self_up = rows(&world, "Eats(self|up IsA, *)");
    assert!(self_up.contains(&(instance, b, instance, 100)), "{self_up:?}");
    assert!(!self_up.iter().any(|r| r.1 == b && r.3 == 11), "{self_up:?}");
    // Fixed targets: one row each, the nearest holder's value.
    assert_eq!(rows(&world, "Eats(self|up IsA, a)"), [(instance, a, middle, 10)]);
    assert_eq!(rows(&world, "Eats(self|up IsA, b)"), [(instance, b, instance, 100)]);
    assert_eq!(rows(&world, "Eats(up IsA, a)"), [(instance, a, middle, 10)]);
    assert_eq!(rows(&world, "(Eats, c)"), [(instance, c, root, 2)]);
    drop(world);
    assert_eq!(live(), 0);
}

// ----- Option and Or over inherited pairs --------------------------------------------------

/// `Option<Pair<&Eats>>` yields one row per pair read (own or inherited) or
/// one `None` row; `Or` filters with `WithPair` see inherited pairs; a cached
/// query follows the prefab losing its pairs.
#[test]
fn optional_and_or_terms_over_inherited_pairs() {
    let mut world = World::new();
    let (a, b, d) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn((Prefab, Holder)).id();
    world.insert_pair(prefab, Eats(1, Token::new()), a);
    world.insert_pair(prefab, Eats(2, Token::new()), b);
    world.insert_pair(prefab, Slot(5, Token::new()), a);
    let instance = world.instantiate(prefab);
    let bare = world.spawn(Holder).id();
    let marked = world.spawn((Holder, Marker)).id();
    let mut optional = world.query::<(Entity, Option<Pair<&Eats>>)>();
    let mut optional_slot = world.query_filtered::<(Entity, Option<Pair<Slot>>), With<Holder>>();
    let mut or = world.query_filtered::<Entity, Or<(WithPair<Eats>, With<Marker>)>>();
    let mut or_pairs = world.query_filtered::<Entity, (With<Holder>, Or<(WithPair<Slot>, WithPair<Eats>)>)>();
    let read = |world: &World, q: &mut QueryState<(Entity, Option<Pair<&Eats>>)>| {
        let mut rows: Vec<(Entity, Option<(Entity, u32)>)> = q
            .iter(world)
            .map(|(e, p)| (e, p.map(|(t, v)| (t, v.0))))
            .filter(|(e, _)| [instance, bare, marked].contains(e))
            .collect();
        rows.sort();
        rows
    };
    let mut expected = vec![(instance, Some((a, 1))), (instance, Some((b, 2))), (bare, None), (marked, None)];
    expected.sort();
    assert_eq!(read(&world, &mut optional), expected);
    let mut slots: Vec<_> = optional_slot.iter(&world).collect();
    slots.sort();
    let mut want = vec![(instance, Some(a)), (bare, None), (marked, None)];
    want.sort();
    assert_eq!(slots, want);
    let mut found: Vec<Entity> = or.iter(&world).collect();
    found.sort();
    let mut want = vec![instance, marked];
    want.sort();
    assert_eq!(found, want);
    assert_eq!(or_pairs.iter(&world).collect::<Vec<_>>(), [instance]);
    // The instance owns another Slot: the inherited one is hidden, one row.
    world.insert_pair(instance, Slot(6, Token::new()), d);
    let rows: Vec<_> = optional_slot.iter(&world).filter(|(e, _)| *e == instance).collect();
    assert_eq!(rows, [(instance, Some(d))]);
    // The prefab loses its Eats pairs: the cached queries follow.
    assert!(world.remove_pair::<Eats>(prefab, Entity::WILDCARD));
    let mut expected = vec![(instance, None), (bare, None), (marked, None)];
    expected.sort();
    assert_eq!(read(&world, &mut optional), expected);
    assert_eq!(or.iter(&world).collect::<Vec<_>>(), [marked]);
    assert_eq!(or_pairs.iter(&world).collect::<Vec<_>>(), [instance]);
    assert!(world.remove_pair::<Slot>(instance, d));
    let rows: Vec<_> = optional_slot.iter(&world).filter(|(e, _)| *e == instance).collect();
    assert_eq!(rows, [(instance, Some(a))]);
    drop(world);
    assert_eq!(live(), 0);
}

// ----- lookup and paths ----------------------------------------------------------------------

/// Under a user root named like a built-in, paths resolve to the user's
/// entities and round trip through `path`; a non-root entity of that name
/// does not shadow the built-in; despawning the root gives the name back.
#[test]
fn paths_under_a_user_root_named_like_a_builtin() {
    let mut world = World::new();
    for builtin in ["Prefab", "ChildOf", "IsA", "Name", "Disabled"] {
        let id = world.lookup(builtin).expect("a built-in");
        let root = world.spawn(Name::new(builtin)).id();
        let child = world.spawn((Name::new("child"), ChildOf.pair(root))).id();
        let grandchild = world.spawn((Name::new(builtin), ChildOf.pair(child))).id();
        assert_eq!(world.lookup(builtin), Some(root), "{builtin}");
        let path = format!("{builtin}::child");
        assert_eq!(world.lookup(&path), Some(child), "{path}");
        assert_eq!(world.path(child).as_deref(), Some(path.as_str()));
        let deep = format!("{builtin}::child::{builtin}");
        assert_eq!(world.path(grandchild).as_deref(), Some(deep.as_str()));
        assert_eq!(world.lookup(&deep), Some(grandchild), "{deep}");
        for entity in [root, child, grandchild] {
            let path = world.path(entity).unwrap();
            assert_eq!(world.lookup(&path), Some(entity), "{path}");
        }
        assert!(world.lookup(&format!("{builtin}::nothing")).is_none());
        // Despawning the root (and so its children) gives the name back to the built-in.
        assert!(world.despawn(root));
        assert!(!world.is_alive(grandchild));
        assert_eq!(world.lookup(builtin), Some(id), "{builtin}");
        // A non-root entity of that name does not shadow it.
        let parent = named(&mut world, "parent");
        let nested = world.spawn((Name::new(builtin), ChildOf.pair(parent))).id();
        assert_eq!(world.lookup(builtin), Some(id), "{builtin}");
        assert_eq!(world.lookup(&format!("parent::{builtin}")), Some(nested));
        assert!(world.despawn(parent));
    }
    // A user root named `Prefab` that is itself a prefab is still found.
    let root = world.spawn((Name::new("Prefab"), Prefab)).id();
    assert_eq!(world.lookup("Prefab"), Some(root));
    // Renaming it away gives the name back.
    world.set_name(root, "Other").unwrap();
    assert_eq!(world.lookup("Prefab"), world.component_id::<Prefab>());
    assert_eq!(world.lookup("Other"), Some(root));
}

/// `path` of the built-in `Prefab` looks it up again, also once a user root
/// has its name.
#[test]
fn builtin_path_round_trips_with_a_user_root_of_its_name() {
    let mut world = World::new();
    let builtin = world.component_id::<Prefab>().unwrap();
    let path = world.path(builtin).expect("the built-in is named");
    assert_eq!(world.lookup(&path), Some(builtin));
    let user = world.spawn(Name::new("Prefab")).id();
    assert_eq!(world.lookup("Prefab"), Some(user));
    let path = world.path(builtin).expect("the built-in is named");
    assert_eq!(world.lookup(&path), Some(builtin), "path {path:?} of the built-in names the user's root");
}

// ----- relationship hooks ----------------------------------------------------------------------

/// `insert_if_new` of a pair the entity owns runs no hook and drops the new
/// value once; of a new target it runs add/insert; over an inherited pair it
/// adds an own pair (as for an inherited component), with hooks on the instance.
#[test]
fn insert_if_new_of_pairs_runs_hooks_only_for_new_pairs() {
    let mut world = World::new();
    let (a, b) = (named(&mut world, "a"), named(&mut world, "b"));
    let e = named(&mut world, "e");
    world.insert_pair(e, fuel(1), a);
    take();
    assert!(world.insert_if_new(e, Fuel::pair(fuel(2), a)));
    assert!(take().is_empty());
    assert_eq!(world.get_pair::<Fuel>(e, a).map(|f| f.0), Some(1));
    assert_eq!(live(), 1, "the refused value is dropped");
    assert!(world.insert_if_new(e, (Fuel::pair(fuel(3), a), Fuel::pair(fuel(4), b))));
    assert_eq!(take(), ["add e:b Some(4)", "insert e:b Some(4)"]);
    assert_eq!(world.get_pair::<Fuel>(e, a).map(|f| f.0), Some(1));
    assert_eq!(live(), 2);
    // Over an inherited pair.
    let prefab = world.spawn((Prefab, Name::new("prefab"))).id();
    world.insert_pair(prefab, fuel(5), a);
    let instance = world.instantiate(prefab);
    world.entity_mut(instance).insert(Name::new("instance"));
    take();
    world.entity_mut(instance).insert_if_new(Fuel::pair(fuel(6), a));
    assert_eq!(take(), ["add instance:a Some(6)", "insert instance:a Some(6)"]);
    assert!(world.owns_pair::<Fuel>(instance, a));
    assert_eq!(world.get_pair::<Fuel>(prefab, a).map(|f| f.0), Some(5));
    assert_eq!(live(), 4);
    // Removing the own one uncovers the prefab's: hooks on the instance only.
    assert!(world.remove_pair::<Fuel>(instance, a));
    assert_eq!(take(), ["replace instance:a Some(6)", "remove instance:a Some(6)"]);
    assert_eq!(world.get_pair::<Fuel>(instance, a).map(|f| f.0), Some(5));
    drop(world);
    assert_eq!(live(), 0);
}

/// `spawn_batch` of value pairs: each entity's hooks read its own value; the
/// target's despawn runs each holder's remove hook once; values dropped once.
#[test]
fn spawn_batch_of_value_pairs_runs_hooks_with_values() {
    let mut world = World::new();
    let a = named(&mut world, "a");
    take();
    let spawned: Vec<Entity> = world.spawn_batch((0..3u32).map(|i| (Marker, Fuel::pair(fuel(10 + i), a)))).collect();
    let seen = take();
    for (i, &entity) in spawned.iter().enumerate() {
        let name = format!("{entity:?}");
        let value = 10 + i as u32;
        assert_eq!(seen.iter().filter(|l| **l == format!("add {name}:a Some({value})")).count(), 1, "{seen:?}");
        assert_eq!(seen.iter().filter(|l| **l == format!("insert {name}:a Some({value})")).count(), 1, "{seen:?}");
        assert_eq!(world.get_pair::<Fuel>(entity, a).map(|f| f.0), Some(value));
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert_eq!(live(), 3);
    assert!(world.despawn(a));
    let seen = take();
    assert_eq!(seen.iter().filter(|l| l.starts_with("remove ")).count(), 3, "{seen:?}");
    assert_eq!(seen.iter().filter(|l| l.starts_with("replace ")).count(), 3, "{seen:?}");
    assert!(seen.iter().all(|l| !l.ends_with("None")), "hooks read the value: {seen:?}");
    assert_eq!(live(), 0);
    for entity in spawned {
        assert!(world.is_alive(entity));
        assert!(!world.has_pair::<Fuel>(entity, Entity::WILDCARD));
    }
}

/// Commands `insert_pair` and `add_pair_id` run the hooks when applied;
/// an overwrite through commands runs replace (old value) then insert (new).
#[test]
fn command_pairs_run_hooks_when_applied() {
    let mut world = World::new();
    let (a, e) = (named(&mut world, "a"), named(&mut world, "e"));
    let likes = world.register_component::<Likes>();
    take();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert_pair(fuel(7), a).add_pair_id(likes, a);
    });
    assert_eq!(take(), ["add e:a Some(7)", "insert e:a Some(7)", "add Likes e:a", "insert Likes e:a"]);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert_pair(fuel(8), a);
    });
    assert_eq!(take(), ["replace e:a Some(7)", "insert e:a Some(8)"]);
    assert_eq!(live(), 1);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).remove_pair::<Fuel>(a).remove_pair::<Likes>(a);
    });
    assert_eq!(take(), ["replace e:a Some(8)", "remove e:a Some(8)", "replace Likes e:a", "remove Likes e:a"]);
    assert_eq!(live(), 0);
}

/// `remove_id(e, (*, t))` removes every pair of any relationship to `t`:
/// each one's hooks run with its relationship and target; the other pairs stay.
#[test]
fn remove_id_of_wildcard_relationship_runs_each_pairs_hooks() {
    let mut world = World::new();
    let (t, u, e) = (named(&mut world, "t"), named(&mut world, "u"), named(&mut world, "e"));
    world.insert_pair(e, fuel(1), t);
    world.insert_pair(e, fuel(2), u);
    world.add_pair::<Likes>(e, t);
    world.add_pair::<Likes>(e, u);
    take();
    assert!(world.remove_id(e, Id::pair(Entity::WILDCARD, t)));
    let mut seen = take();
    seen.sort();
    assert_eq!(seen, ["remove Likes e:t", "remove e:t Some(1)", "replace Likes e:t", "replace e:t Some(1)"]);
    assert!(!world.has_pair::<Fuel>(e, t) && !world.has_pair::<Likes>(e, t));
    assert!(world.has_pair::<Fuel>(e, u) && world.has_pair::<Likes>(e, u));
    assert_eq!(live(), 1);
    // Nothing left to `t`: false, no hooks.
    assert!(!world.remove_id(e, Id::pair(Entity::WILDCARD, t)));
    assert!(take().is_empty());
    drop(world);
    assert_eq!(live(), 0);
}

/// An exclusive hooked relationship used through `add_pair_id` by its entity:
/// the replacement runs the old pair's replace/remove and the new one's add/insert.
#[test]
fn exclusive_relationship_by_id_runs_replacement_hooks() {
    let mut world = World::new();
    let (a, b, e) = (named(&mut world, "a"), named(&mut world, "b"), named(&mut world, "e"));
    let docked = world.register_component::<Docked>();
    take();
    assert!(world.add_pair_id(e, docked, a));
    assert_eq!(take(), ["add Docked e:a", "insert Docked e:a"]);
    assert!(world.add_pair_id(e, docked, b));
    let seen = take();
    assert!(world.has_pair::<Docked>(e, b) && !world.has_pair::<Docked>(e, a));
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(sorted, ["add Docked e:b", "insert Docked e:b", "remove Docked e:a", "replace Docked e:a"], "{seen:?}");
    assert!(world.remove_id(e, Id::pair(docked, Entity::WILDCARD)));
    assert_eq!(take(), ["replace Docked e:b", "remove Docked e:b"]);
}

/// Despawning a value relationship's own entity removes its pairs from every
/// holder (prefabs included): instances stop reading them, a query built
/// before sees nothing, every value is dropped exactly once.
#[test]
fn despawning_a_value_relationship_drops_every_pair_once() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn(Prefab).id();
    world.insert_pair(prefab, Eats(1, Token::new()), a);
    let instance = world.instantiate(prefab);
    world.insert_pair(instance, Eats(2, Token::new()), b);
    let other = world.spawn_empty().id();
    world.insert_pair(other, Eats(3, Token::new()), a);
    let mut typed = world.query::<(Entity, Pair<&Eats>)>();
    let mut runtime = world.query_dsl("(Eats, *)").unwrap();
    assert_eq!(typed.iter(&world).count(), 3);
    assert_eq!(live(), 3);
    let eats = world.component_id::<Eats>().unwrap();
    assert!(world.despawn(eats));
    assert_eq!(live(), 0);
    assert_eq!(typed.iter(&world).count(), 0);
    assert_eq!(runtime.iter(&world).count(), 0);
    assert!(world.get_pair::<Eats>(instance, a).is_none());
    assert!(!world.has_id(instance, Id::pair(eats, a)));
    drop(runtime);
    drop(world);
    assert_eq!(live(), 0);
}

/// A prefab child's value pair is read by the instance's child (an
/// `(IsA, prefab_child)` instance): later edits reach it, an own pair of the
/// child hides it, and despawning the prefab (and so its children) takes it
/// away; every value dropped once.
#[test]
fn instance_children_read_the_prefab_childs_pairs() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn(Prefab).id();
    let child = world.spawn((Prefab, ChildOf.pair(prefab), Name::new("kid"))).id();
    world.insert_pair(child, Eats(4, Token::new()), a);
    world.insert_pair(child, Slot(5, Token::new()), a);
    let instance = world.instantiate(prefab);
    let kid = world.children(instance).next().expect("the instance's child");
    assert!(world.has_pair::<IsA>(kid, child));
    assert_eq!(world.get_pair::<Eats>(kid, a).map(|e| e.0), Some(4));
    assert!(!world.owns_pair::<Eats>(kid, a));
    let mut typed = world.query::<(Entity, Pair<&Eats>)>();
    assert_eq!(typed.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect::<Vec<_>>(), [(kid, a, 4)]);
    world.insert_pair(child, Eats(6, Token::new()), b);
    world.get_pair_mut::<Eats>(child, a).unwrap().0 = 7;
    let mut rows: Vec<_> = typed.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    rows.sort();
    let mut want = vec![(kid, a, 7), (kid, b, 6)];
    want.sort();
    assert_eq!(rows, want);
    // The kid's own Slot hides the prefab child's.
    world.insert_pair(kid, Slot(8, Token::new()), b);
    assert_eq!(world.get_pair::<Slot>(kid, a), None);
    assert_eq!(world.get_pair::<Slot>(kid, b).map(|s| s.0), Some(8));
    assert_eq!(live(), 4);
    assert!(world.despawn(prefab));
    assert!(!world.is_alive(child));
    assert!(world.is_alive(kid));
    assert_eq!(world.get_pair::<Eats>(kid, a), None);
    assert_eq!(typed.iter(&world).count(), 0);
    assert_eq!(world.get_pair::<Slot>(kid, b).map(|s| s.0), Some(8));
    assert_eq!(live(), 1);
    drop(world);
    assert_eq!(live(), 0);
}
