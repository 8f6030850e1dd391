//! Review session 27: the built-in fragmenting hierarchy `ChildOf` against a
//! non-fragmenting one, a user union relationship `ParentLink`
//! (`#[relationship(union, traversable, on_delete_target = "delete")]`), and
//! the same pair with `on_delete_target = "remove"` (`FragLinkR`, a
//! fragmenting exclusive relationship, against the union `ParentLinkR`).
//!
//! The model-based part runs the same random hierarchy operations (many seeds,
//! a small xorshift PRNG in this file) on two worlds at once and compares each
//! world with a naive reference model (parent -> children maps) after every
//! step: spawns with and without a parent (`spawn(..).add_pair`, `R.pair(p)`
//! bundles, commands), reparenting, unlinking, despawns of parents (recursive
//! delete, or the remove policy making children roots) and leaves, `target`,
//! `targets`, `has_pair`, `sources`, `children`/`parent` (`ChildOf`),
//! `ancestors_of`/`descendants_of` and the `Relations<R>` system parameter,
//! typed `Up<R, &Position>` queries (a cached state kept across steps and a
//! fresh one), runtime queries `Position(up R)`, `Position(self|up R)`,
//! `(R, $p), Position($p)` and `(R, *)` (cached across steps and uncached),
//! `OnAdd`/`OnRemove` observers of `Pair<R>` (both storages must report the
//! events the model predicts), relationship hooks, drop counts of a tracked
//! component and `entity_count`.
//!
//! Then targeted tests of the edges: cycle attempts (`ChildOf` is acyclic;
//! `ParentLink` does not declare `acyclic`, so it does not promise to refuse
//! a cycle, and walks must still end; an acyclic union refuses), a depth-50
//! chain despawned from its root, a parent with 1000 children, both
//! relationships on one entity, a union relationship type with `Drop`,
//! commands queued for a parent despawned earlier in the queue, and observer
//! commands run during a cascade.
//! Names and paths follow `ChildOf` only (documented), and table layouts
//! differ by design: neither is compared.
//!
//! Observed, not findings: `ParentLink` (no `acyclic`) accepts a loop and a
//! self-loop; walks, `up` terms and the delete cascade still end, each node
//! once. `ChildOf` and an acyclic union refuse both.
//!
//! Findings (fixed in the library since; the test runs):
//! * `union_on_remove_observers_still_list_the_child_among_the_dying_parents_sources`:
//!   while a union parent is despawned, the `OnRemove` observer of a child's
//!   `Pair<ParentLink>` sees `target(child) == parent` but `sources(parent)`
//!   without the child (cleanup forgets the target's holder list before it
//!   removes the pairs), where `ChildOf` and a fragmenting twin still list it.
//!   A direct `remove_pair`, a retarget or the child's own despawn are
//!   consistent. The model tests tolerate only this symptom (despawn steps).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ecs::prelude::*;
use ecs::query::DynQuery;
use ecs::system::CommandQueue;
use ecs::world::PairError;

// ---------------------------------------------------------------------------
// Types

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

/// Counts its drops in a shared counter.
#[derive(Component)]
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// One hook call: (relationship, added?, entity, pair target).
type HookCall = (Entity, bool, Entity, Option<Entity>);

thread_local! {
    static HOOK_CALLS: RefCell<Vec<HookCall>> = const { RefCell::new(Vec::new()) };
}

fn hook_added(world: DeferredWorld, ctx: HookContext) {
    let target = world.pair_target();
    HOOK_CALLS.with(|calls| calls.borrow_mut().push((ctx.component_id, true, ctx.entity, target)));
}

fn hook_removed(world: DeferredWorld, ctx: HookContext) {
    let target = world.pair_target();
    HOOK_CALLS.with(|calls| calls.borrow_mut().push((ctx.component_id, false, ctx.entity, target)));
}

/// The non-fragmenting hierarchy: every child in one table, the parent per row.
#[derive(Relationship)]
#[relationship(union, traversable, on_delete_target = "delete")]
#[component(on_add = hook_added, on_remove = hook_removed)]
struct ParentLink;

/// The union hierarchy whose children become roots when the parent goes.
#[derive(Relationship)]
#[relationship(union, traversable, on_delete_target = "remove")]
#[component(on_add = hook_added, on_remove = hook_removed)]
struct ParentLinkR;

/// Its fragmenting twin (`ChildOf` has the delete policy, fixed).
#[derive(Relationship)]
#[relationship(exclusive, traversable, acyclic, on_delete_target = "remove")]
#[component(on_add = hook_added, on_remove = hook_removed)]
struct FragLinkR;

/// A union hierarchy that does promise acyclicity.
#[derive(Relationship)]
#[relationship(union, traversable, acyclic, on_delete_target = "delete")]
struct AcyclicLink;

/// The relationships the model drives.
trait Link: Relationship + Sized {
    /// A value for `R.pair(target)`.
    fn make() -> Self;
    /// Whether `R` has the recording hooks.
    const HOOKED: bool;
}

impl Link for ChildOf {
    fn make() -> Self {
        ChildOf
    }
    const HOOKED: bool = false;
}

impl Link for ParentLink {
    fn make() -> Self {
        ParentLink
    }
    const HOOKED: bool = true;
}

impl Link for ParentLinkR {
    fn make() -> Self {
        ParentLinkR
    }
    const HOOKED: bool = true;
}

impl Link for FragLinkR {
    fn make() -> Self {
        FragLinkR
    }
    const HOOKED: bool = true;
}

// ---------------------------------------------------------------------------
// PRNG

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn pick(&mut self, items: &[usize]) -> Option<usize> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }
}

// ---------------------------------------------------------------------------
// The reference model: logical node ids, parent -> children.

#[derive(Default, Debug)]
struct Model {
    delete: bool,
    alive: BTreeSet<usize>,
    parent: HashMap<usize, usize>,
    children: HashMap<usize, BTreeSet<usize>>,
    position: HashMap<usize, f32>,
    next: usize,
}

/// An observer or hook event in logical ids: (added?, child, parent).
type Event = (bool, usize, usize);

/// Observer events as they came: (added?, entity, pair target).
type RawEvents = Arc<Mutex<Vec<(bool, Entity, Option<Entity>)>>>;

impl Model {
    fn alive_vec(&self) -> Vec<usize> {
        self.alive.iter().copied().collect()
    }

    fn children_of(&self, p: usize) -> Vec<usize> {
        self.children.get(&p).map(|c| c.iter().copied().collect()).unwrap_or_default()
    }

    fn ancestors(&self, e: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = e;
        while let Some(&p) = self.parent.get(&cur) {
            out.push(p);
            cur = p;
        }
        out
    }

    fn subtree(&self, e: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        let mut stack = self.children_of(e);
        while let Some(c) = stack.pop() {
            if out.insert(c) {
                stack.extend(self.children_of(c));
            }
        }
        out
    }

    fn link(&mut self, c: usize, p: usize, events: &mut Vec<Event>) {
        if self.parent.get(&c) == Some(&p) {
            return;
        }
        self.unlink(c, events);
        self.parent.insert(c, p);
        self.children.entry(p).or_default().insert(c);
        events.push((true, c, p));
    }

    fn unlink(&mut self, c: usize, events: &mut Vec<Event>) {
        if let Some(p) = self.parent.remove(&c) {
            self.children.get_mut(&p).unwrap().remove(&c);
            events.push((false, c, p));
        }
    }

    fn kill(&mut self, e: usize, events: &mut Vec<Event>) {
        self.unlink(e, events);
        self.alive.remove(&e);
        self.position.remove(&e);
        for c in self.children_of(e) {
            if self.delete {
                self.kill(c, events);
            } else {
                self.unlink(c, events);
            }
        }
        self.children.remove(&e);
    }

    /// The nearest proper ancestor with a `Position`: (ancestor, value).
    fn up(&self, e: usize) -> Option<(usize, f32)> {
        self.ancestors(e).into_iter().find_map(|a| self.position.get(&a).map(|&v| (a, v)))
    }

    fn self_up(&self, e: usize) -> Option<(usize, f32)> {
        self.position.get(&e).map(|&v| (e, v)).or_else(|| self.up(e))
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    SpawnRoot { pos: bool, via: usize },
    SpawnChild { parent: usize, pos: bool, via: usize },
    Reparent { child: usize, parent: usize, via: usize },
    Relink { child: usize },
    Unlink { child: usize, via: usize },
    WrongUnlink { child: usize, other: usize },
    Despawn { node: usize, via: usize },
    SetPosition { node: usize, on: bool },
}

fn random_op(rng: &mut Rng, model: &Model) -> Op {
    let alive = model.alive_vec();
    let linked: Vec<usize> = alive.iter().copied().filter(|e| model.parent.contains_key(e)).collect();
    let with_children: Vec<usize> = alive.iter().copied().filter(|e| !model.children_of(*e).is_empty()).collect();
    loop {
        let op = match rng.below(20) {
            0 | 1 if alive.len() < 60 => Op::SpawnRoot { pos: rng.below(3) != 0, via: rng.below(2) },
            2..=6 if alive.len() < 60 => match rng.pick(&alive) {
                Some(parent) => Op::SpawnChild { parent, pos: rng.below(3) != 0, via: rng.below(5) },
                None => continue,
            },
            7..=9 => {
                let Some(child) = rng.pick(&alive) else { continue };
                let forbidden = model.subtree(child);
                let allowed: Vec<usize> =
                    alive.iter().copied().filter(|p| *p != child && !forbidden.contains(p)).collect();
                let Some(parent) = rng.pick(&allowed) else { continue };
                Op::Reparent { child, parent, via: rng.below(4) }
            }
            10 => match rng.pick(&linked) {
                Some(child) => Op::Relink { child },
                None => continue,
            },
            11 => match rng.pick(&linked) {
                Some(child) => Op::Unlink { child, via: rng.below(3) },
                None => continue,
            },
            12 => match (rng.pick(&alive), rng.pick(&alive)) {
                (Some(child), Some(other)) if model.parent.get(&child) != Some(&other) => {
                    Op::WrongUnlink { child, other }
                }
                _ => continue,
            },
            13 | 14 => match rng.pick(&with_children) {
                Some(node) => Op::Despawn { node, via: rng.below(2) },
                None => continue,
            },
            15 => match rng.pick(&alive) {
                Some(node) => Op::Despawn { node, via: rng.below(2) },
                None => continue,
            },
            16..=19 => match rng.pick(&alive) {
                Some(node) => Op::SetPosition { node, on: rng.below(2) == 0 },
                None => continue,
            },
            _ => match rng.pick(&alive) {
                Some(node) => Op::SetPosition { node, on: rng.below(2) == 0 },
                None => Op::SpawnRoot { pos: true, via: 0 },
            },
        };
        return op;
    }
}

/// A name for what `op` did (to check every kind was exercised).
fn op_kind(op: &Op, events: &[Event]) -> &'static str {
    match op {
        Op::SpawnRoot { .. } => "spawn root",
        Op::SpawnChild { .. } => "spawn child",
        Op::Reparent { .. } if events.len() == 2 => "reparent",
        Op::Reparent { .. } if events.is_empty() => "reparent to the same parent",
        Op::Reparent { .. } => "link a root",
        Op::Relink { .. } => "relink",
        Op::Unlink { .. } => "unlink",
        Op::WrongUnlink { .. } => "unlink a pair that is not there",
        Op::Despawn { .. } if events.iter().filter(|e| !e.0).count() > 2 => "despawn a parent (cascade)",
        Op::Despawn { .. } => "despawn",
        Op::SetPosition { .. } => "position",
    }
}

/// Applies `op` to the model; returns the events it predicts.
fn apply_model(model: &mut Model, op: Op) -> Vec<Event> {
    let mut events = Vec::new();
    match op {
        Op::SpawnRoot { pos, .. } | Op::SpawnChild { pos, .. } => {
            let id = model.next;
            model.next += 1;
            model.alive.insert(id);
            if pos {
                model.position.insert(id, value_of(id));
            }
            if let Op::SpawnChild { parent, .. } = op {
                model.link(id, parent, &mut events);
            }
        }
        Op::Reparent { child, parent, .. } => model.link(child, parent, &mut events),
        Op::Relink { .. } | Op::WrongUnlink { .. } => {}
        Op::Unlink { child, .. } => model.unlink(child, &mut events),
        Op::Despawn { node, .. } => model.kill(node, &mut events),
        Op::SetPosition { node, on } => {
            if on {
                model.position.insert(node, value_of(node) + 1000.0);
            } else {
                model.position.remove(&node);
            }
        }
    }
    events.sort_unstable();
    events
}

fn value_of(id: usize) -> f32 {
    id as f32 + 0.5
}

// ---------------------------------------------------------------------------
// One world driven by the model.

type UpState<R> = QueryState<(Entity, &'static Position, Up<R, &'static Position>)>;
type UpOnlyState<R> = QueryState<(Entity, Up<R, &'static Position>)>;

struct Side<R: Link> {
    world: World,
    /// Logical id -> entity (dead ones kept).
    ents: Vec<Entity>,
    back: HashMap<Entity, usize>,
    drops: Arc<AtomicUsize>,
    created: usize,
    events: RawEvents,
    /// What observers saw that disagreed with their event.
    views: Arc<Mutex<Vec<String>>>,
    cached_up: UpState<R>,
    dsl_up: DynQuery,
    dsl_self_up: DynQuery,
    dsl_var: DynQuery,
    dsl_any: DynQuery,
    relationship: Entity,
    _r: PhantomData<R>,
}

fn apply_commands(world: &mut World, build: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, world);
        build(&mut commands);
    }
    queue.apply(world);
}

impl<R: Link> Side<R> {
    fn new() -> Self {
        let mut world = World::new();
        let relationship = world.register_component::<R>();
        world.register_component::<Position>();
        let events: RawEvents = Arc::default();
        let views: Arc<Mutex<Vec<String>>> = Arc::default();
        let (log, bad) = (events.clone(), views.clone());
        world.add_observer(move |trigger: Trigger<OnAdd, Pair<R>>, relations: Relations<R>| {
            let (e, target) = (trigger.entity(), trigger.pair_target());
            log.lock().unwrap().push((true, e, target));
            // OnAdd runs once the pair is in: every view shows it.
            if relations.target(e) != target {
                bad.lock().unwrap().push(format!("OnAdd {e:?} -> {target:?}: target() = {:?}", relations.target(e)));
            }
            if !target.is_some_and(|t| relations.sources(t).any(|s| s == e)) {
                bad.lock().unwrap().push(format!("sources: OnAdd {e:?} -> {target:?} not among the target's sources"));
            }
        });
        let (log, bad) = (events.clone(), views.clone());
        world.add_observer(move |trigger: Trigger<OnRemove, Pair<R>>, relations: Relations<R>| {
            let (e, target) = (trigger.entity(), trigger.pair_target());
            log.lock().unwrap().push((false, e, target));
            // OnRemove runs before the pair goes: every view still shows it.
            if relations.target(e) != target {
                bad.lock().unwrap().push(format!("OnRemove {e:?} -> {target:?}: target() = {:?}", relations.target(e)));
            }
            if !target.is_some_and(|t| relations.sources(t).any(|s| s == e)) {
                bad.lock()
                    .unwrap()
                    .push(format!("sources: OnRemove {e:?} -> {target:?} not among the target's sources"));
            }
        });
        let cached_up = world.query::<(Entity, &Position, Up<R, &Position>)>();
        let dsl_up = world.query_dsl(&format!("Position(up {})", R::NAME)).unwrap();
        let dsl_self_up = world.query_dsl(&format!("Position(self|up {})", R::NAME)).unwrap();
        let dsl_var = world.query_dsl(&format!("({}, $p), Position($p)", R::NAME)).unwrap();
        let dsl_any = world.query_dsl(&format!("({}, *)", R::NAME)).unwrap();
        Side {
            world,
            ents: Vec::new(),
            back: HashMap::new(),
            drops: Arc::default(),
            created: 0,
            events,
            views,
            cached_up,
            dsl_up,
            dsl_self_up,
            dsl_var,
            dsl_any,
            relationship,
            _r: PhantomData,
        }
    }

    fn e(&self, id: usize) -> Entity {
        self.ents[id]
    }

    fn logical(&self, e: Entity) -> usize {
        *self.back.get(&e).unwrap_or_else(|| panic!("{e:?} is not a model entity"))
    }

    fn register(&mut self, id: usize, e: Entity) {
        assert_eq!(self.ents.len(), id, "logical ids in order");
        self.ents.push(e);
        self.back.insert(e, id);
        self.created += 1;
    }

    fn tracked(&self) -> Tracked {
        Tracked(self.drops.clone())
    }

    /// Applies `op` (the model before the op is `before`).
    fn apply(&mut self, op: Op, before: &Model, tag: &str) {
        match op {
            Op::SpawnRoot { pos, via } => {
                let id = before.next;
                let tracked = self.tracked();
                let e = match (via, pos) {
                    (0, true) => self.world.spawn((tracked, Position(value_of(id)))).id(),
                    (0, false) => self.world.spawn(tracked).id(),
                    (_, pos) => {
                        let mut spawned = None;
                        apply_commands(&mut self.world, |commands| {
                            let mut entity = commands.spawn(tracked);
                            if pos {
                                entity.insert(Position(value_of(id)));
                            }
                            spawned = Some(entity.id());
                        });
                        spawned.unwrap()
                    }
                };
                self.register(id, e);
            }
            Op::SpawnChild { parent, pos, via } => {
                let id = before.next;
                let p = self.e(parent);
                let tracked = self.tracked();
                let value = Position(value_of(id));
                let e = match via {
                    0 => {
                        let mut entity = self.world.spawn(tracked);
                        if pos {
                            entity.insert(value);
                        }
                        entity.add_pair::<R>(p).id()
                    }
                    1 if pos => self.world.spawn((tracked, value, R::make().pair(p))).id(),
                    1 => self.world.spawn((tracked, R::make().pair(p))).id(),
                    2 => {
                        let mut spawned = None;
                        apply_commands(&mut self.world, |commands| {
                            spawned = Some(if pos {
                                commands.spawn((tracked, value, R::make().pair(p))).id()
                            } else {
                                commands.spawn((R::make().pair(p), tracked)).id()
                            });
                        });
                        spawned.unwrap()
                    }
                    3 => {
                        let mut spawned = None;
                        apply_commands(&mut self.world, |commands| {
                            let mut entity = commands.spawn(tracked);
                            entity.add_pair::<R>(p);
                            if pos {
                                entity.insert(value);
                            }
                            spawned = Some(entity.id());
                        });
                        spawned.unwrap()
                    }
                    _ => {
                        let e = self.world.spawn_empty().id();
                        let mut entity = self.world.entity_mut(e);
                        entity.insert(tracked).insert(R::make().pair(p));
                        if pos {
                            entity.insert(value);
                        }
                        e
                    }
                };
                self.register(id, e);
            }
            Op::Reparent { child, parent, via } => {
                let (c, p) = (self.e(child), self.e(parent));
                match via {
                    0 => assert!(self.world.add_pair::<R>(c, p), "{tag}"),
                    1 => {
                        self.world.entity_mut(c).add_pair::<R>(p);
                    }
                    2 => apply_commands(&mut self.world, |commands| {
                        commands.entity(c).add_pair::<R>(p);
                    }),
                    _ => {
                        self.world.entity_mut(c).insert(R::make().pair(p));
                    }
                }
            }
            Op::Relink { child } => {
                let (c, p) = (self.e(child), self.e(before.parent[&child]));
                assert!(self.world.add_pair::<R>(c, p), "{tag}");
            }
            Op::Unlink { child, via } => {
                let (c, p) = (self.e(child), self.e(before.parent[&child]));
                match via {
                    0 => assert!(self.world.remove_pair::<R>(c, p), "{tag}: remove_pair said it was absent"),
                    1 => assert!(self.world.remove_pair::<R>(c, Entity::WILDCARD), "{tag}: wildcard remove_pair"),
                    _ => apply_commands(&mut self.world, |commands| {
                        commands.entity(c).remove_pair::<R>(p);
                    }),
                }
            }
            Op::WrongUnlink { child, other } => {
                let (c, o) = (self.e(child), self.e(other));
                assert!(!self.world.remove_pair::<R>(c, o), "{tag}: removed a pair that is not there");
            }
            Op::Despawn { node, via } => {
                let e = self.e(node);
                match via {
                    0 => assert!(self.world.despawn(e), "{tag}"),
                    _ => apply_commands(&mut self.world, |commands| commands.entity(e).despawn()),
                }
            }
            Op::SetPosition { node, on } => {
                let e = self.e(node);
                if on {
                    self.world.entity_mut(e).insert(Position(value_of(node) + 1000.0));
                } else {
                    self.world.entity_mut(e).remove::<Position>();
                }
            }
        }
    }

    /// The observer events since the last call, in logical ids, in order.
    /// `despawn`: a despawn ran (the finding of
    /// `union_on_remove_observers_still_list_the_child_among_the_dying_parents_sources`,
    /// once tolerated here, is fixed: every view is compared).
    fn take_events(&self, tag: &str, despawn: bool) -> Vec<Event> {
        let _ = despawn;
        let views = std::mem::take(&mut *self.views.lock().unwrap());
        assert!(views.is_empty(), "{tag}: observers saw inconsistent views: {views:?}");
        let raw = std::mem::take(&mut *self.events.lock().unwrap());
        let out: Vec<Event> = raw
            .into_iter()
            .map(|(added, e, target)| {
                let target = target.unwrap_or_else(|| panic!("{tag}: observer without a pair target for {e:?}"));
                (added, self.logical(e), self.logical(target))
            })
            .collect();
        out
    }

    /// The hook calls since the last call for `R`, in logical ids, sorted.
    fn take_hooks(&self, tag: &str) -> Vec<Event> {
        let raw = HOOK_CALLS.with(|calls| std::mem::take(&mut *calls.borrow_mut()));
        let mut out: Vec<Event> = raw
            .into_iter()
            .filter(|call| call.0 == self.relationship)
            .map(|(_, added, e, target)| {
                let target = target.unwrap_or_else(|| panic!("{tag}: hook without a pair target for {e:?}"));
                (added, self.logical(e), self.logical(target))
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// Compares everything with the model.
    fn check(&mut self, model: &Model, tag: &str) {
        // What needs `&mut World` first: `Relations<R>` through a system and
        // fresh typed states.
        let alive: Vec<Entity> = model.alive.iter().map(|&id| self.ents[id]).collect();
        let through_param = self.world.run_system_once(move |relations: Relations<R>| {
            alive
                .iter()
                .map(|&e| {
                    let mut sources: Vec<Entity> = relations.sources(e).collect();
                    sources.sort();
                    let mut descendants: Vec<Entity> = relations.descendants(e).collect();
                    descendants.sort();
                    (e, relations.target(e), sources, relations.ancestors(e).collect::<Vec<_>>(), descendants)
                })
                .collect::<Vec<_>>()
        });
        let mut fresh: UpState<R> = self.world.query();
        let mut only: UpOnlyState<R> = self.world.query();

        let world = &self.world;
        let back = &self.back;
        let ents = &self.ents;
        let logical = |e: Entity| *back.get(&e).unwrap_or_else(|| panic!("{tag}: {e:?} is not a model entity"));
        let ent = |id: usize| ents[id];
        let sorted = |mut v: Vec<Entity>| {
            v.sort();
            v
        };
        world.check_invariants();
        assert_eq!(world.entity_count(), model.alive.len(), "{tag}: entity_count");
        assert_eq!(
            self.drops.load(Ordering::Relaxed),
            self.created - model.alive.len(),
            "{tag}: every despawned entity's Tracked dropped once, no other"
        );
        for (id, &e) in ents.iter().enumerate() {
            assert_eq!(world.is_alive(e), model.alive.contains(&id), "{tag}: is_alive({id})");
        }
        for &id in &model.alive {
            let e = ent(id);
            let parent = model.parent.get(&id).map(|&p| ent(p));
            assert_eq!(world.target::<R>(e), parent, "{tag}: target of {id}");
            assert_eq!(world.targets::<R>(e).collect::<Vec<_>>(), parent.into_iter().collect::<Vec<_>>(), "{tag}");
            assert_eq!(world.has_pair::<R>(e, Entity::WILDCARD), parent.is_some(), "{tag}: has (R, *) {id}");
            if let Some(p) = parent {
                assert!(world.has_pair::<R>(e, p), "{tag}: has_pair {id}");
            }
            let children: Vec<Entity> = model.children_of(id).into_iter().map(ent).collect();
            assert_eq!(sorted(world.sources::<R>(e).collect()), sorted(children.clone()), "{tag}: sources of {id}");
            let ancestors: Vec<Entity> = model.ancestors(id).into_iter().map(ent).collect();
            assert_eq!(world.ancestors_of::<R>(e).collect::<Vec<_>>(), ancestors, "{tag}: ancestors of {id}");
            let descendants: Vec<Entity> = world.descendants_of::<R>(e).collect();
            let expected: Vec<Entity> = model.subtree(id).into_iter().map(ent).collect();
            assert_eq!(sorted(descendants.clone()), sorted(expected), "{tag}: descendants of {id}");
            let depths: Vec<usize> = descendants.iter().map(|&d| model.ancestors(logical(d)).len()).collect();
            assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{tag}: descendants not breadth-first: {depths:?}");
            if R::NAME == "ChildOf" {
                assert_eq!(world.parent(e), parent, "{tag}: parent of {id}");
                assert_eq!(sorted(world.children(e).collect()), sorted(children), "{tag}: children of {id}");
                assert_eq!(world.ancestors(e).collect::<Vec<_>>(), ancestors, "{tag}");
                assert_eq!(world.descendants(e).collect::<Vec<_>>(), descendants, "{tag}");
            }
        }
        for (e, target, sources, ancestors, descendants) in through_param {
            assert_eq!(target, world.target::<R>(e), "{tag}: Relations::target");
            assert_eq!(sources, sorted(world.sources::<R>(e).collect()), "{tag}: Relations::sources");
            assert_eq!(ancestors, world.ancestors_of::<R>(e).collect::<Vec<_>>(), "{tag}: Relations::ancestors");
            assert_eq!(descendants, sorted(world.descendants_of::<R>(e).collect()), "{tag}: Relations::descendants");
        }

        // Typed `Up` queries: the cached state and fresh ones.
        let mut expected_up: Vec<(usize, usize, f32)> =
            model.alive.iter().filter_map(|&id| model.up(id).map(|(a, v)| (id, a, v))).collect();
        expected_up.sort_by_key(|row| row.0);
        let expected_typed: Vec<(usize, f32, f32)> =
            expected_up.iter().filter_map(|&(id, _, v)| model.position.get(&id).map(|&own| (id, own, v))).collect();
        let typed_rows = |q: &mut UpState<R>| {
            let mut rows: Vec<(usize, f32, f32)> =
                q.iter(world).map(|(e, own, up)| (logical(e), own.0, up.0)).collect();
            rows.sort_by_key(|row| row.0);
            rows
        };
        assert_eq!(
            typed_rows(&mut self.cached_up),
            expected_typed,
            "{tag}: cached (Entity, &Position, Up<R, &Position>)"
        );
        assert_eq!(typed_rows(&mut fresh), expected_typed, "{tag}: fresh (Entity, &Position, Up<R, &Position>)");
        let mut rows: Vec<(usize, f32)> = only.iter(world).map(|(e, up)| (logical(e), up.0)).collect();
        rows.sort_by_key(|row| row.0);
        let expected: Vec<(usize, f32)> = expected_up.iter().map(|&(id, _, v)| (id, v)).collect();
        assert_eq!(rows, expected, "{tag}: (Entity, Up<R, &Position>)");
        for &id in &model.alive {
            let got = only.get(world, ent(id)).ok().map(|(_, up)| up.0);
            assert_eq!(got, model.up(id).map(|(_, v)| v), "{tag}: Up get({id})");
        }

        // Runtime queries, cached (kept across steps) and uncached.
        let mut expected_self: Vec<(usize, usize, f32)> =
            model.alive.iter().filter_map(|&id| model.self_up(id).map(|(a, v)| (id, a, v))).collect();
        expected_self.sort_by_key(|row| row.0);
        let mut expected_var: Vec<(usize, usize, f32)> =
            model.parent.iter().filter_map(|(&c, &p)| model.position.get(&p).map(|&v| (c, p, v))).collect();
        expected_var.sort_by_key(|row| row.0);
        let mut expected_any: Vec<(usize, usize)> = model.parent.iter().map(|(&c, &p)| (c, p)).collect();
        expected_any.sort();

        let up_rows = |q: &mut DynQuery| {
            let mut rows: Vec<(usize, usize, f32)> = q
                .iter(world)
                .map(|row| (logical(row.entity()), logical(row.source(0)), row.get::<Position>(0).unwrap().0))
                .collect();
            rows.sort_by_key(|row| row.0);
            rows
        };
        let var_rows = |q: &mut DynQuery| {
            let mut rows: Vec<(usize, usize, f32)> = q
                .iter(world)
                .map(|row| {
                    let p = row.var("p").expect("bound");
                    assert_eq!(row.pair_target(0), p, "{tag}: pair_target of (R, $p)");
                    (logical(row.entity()), logical(p), row.get::<Position>(1).unwrap().0)
                })
                .collect();
            rows.sort_by_key(|row| row.0);
            rows
        };
        let any_rows = |q: &mut DynQuery| {
            let mut rows: Vec<(usize, usize)> =
                q.iter(world).map(|row| (logical(row.entity()), logical(row.pair_target(0)))).collect();
            rows.sort();
            rows
        };
        let name = R::NAME;
        assert_eq!(up_rows(&mut self.dsl_up), expected_up, "{tag}: cached Position(up {name})");
        assert_eq!(up_rows(&mut self.dsl_self_up), expected_self, "{tag}: cached Position(self|up {name})");
        assert_eq!(var_rows(&mut self.dsl_var), expected_var, "{tag}: cached ({name}, $p), Position($p)");
        assert_eq!(any_rows(&mut self.dsl_any), expected_any, "{tag}: cached ({name}, *)");
        let mut q = world.query_dsl_uncached(&format!("Position(up {name})")).unwrap();
        assert_eq!(up_rows(&mut q), expected_up, "{tag}: uncached Position(up {name})");
        let mut q = world.query_dsl_uncached(&format!("Position(self|up {name})")).unwrap();
        assert_eq!(up_rows(&mut q), expected_self, "{tag}: uncached Position(self|up {name})");
        let mut q = world.query_dsl_uncached(&format!("({name}, $p), Position($p)")).unwrap();
        assert_eq!(var_rows(&mut q), expected_var, "{tag}: uncached ({name}, $p), Position($p)");
        let mut q = world.query_dsl_uncached(&format!("({name}, *)")).unwrap();
        assert_eq!(any_rows(&mut q), expected_any, "{tag}: uncached ({name}, *)");
        let position = world.component_id::<Position>().unwrap();
        let mut q = world.query_builder().read(position).up(self.relationship).build_uncached().unwrap();
        assert_eq!(up_rows(&mut q), expected_up, "{tag}: builder read(Position).up({name})");
    }
}

/// Runs `steps` random operations on an `A` world and a `B` world, checking
/// both against the model after every step.
fn run_model<A: Link, B: Link>(seed: u64, steps: usize, delete: bool, stats: &mut HashMap<&'static str, usize>) {
    let mut rng = Rng::new(seed);
    let mut model = Model { delete, ..Model::default() };
    let mut a: Side<A> = Side::new();
    let mut b: Side<B> = Side::new();
    HOOK_CALLS.with(|calls| calls.borrow_mut().clear());
    for step in 0..steps {
        let op = random_op(&mut rng, &model);
        let mut after = Model {
            delete: model.delete,
            alive: model.alive.clone(),
            parent: model.parent.clone(),
            children: model.children.clone(),
            position: model.position.clone(),
            next: model.next,
        };
        let expected = apply_model(&mut after, op);
        let tag_a = format!("seed {seed} step {step} {op:?} [{}]", A::NAME);
        let tag_b = format!("seed {seed} step {step} {op:?} [{}]", B::NAME);
        a.apply(op, &model, &tag_a);
        let hooks_a = a.take_hooks(&tag_a);
        b.apply(op, &model, &tag_b);
        let hooks_b = b.take_hooks(&tag_b);
        model = after;
        let despawn = matches!(op, Op::Despawn { .. });
        let (events_a, events_b) = (a.take_events(&tag_a, despawn), b.take_events(&tag_b, despawn));
        if matches!(op, Op::Reparent { .. } | Op::Unlink { .. } | Op::SpawnChild { .. }) {
            // One pair changes: the order is the exclusive replacement's
            // (the old pair's OnRemove, then the new pair's OnAdd), the same
            // for both storages.
            assert_eq!(events_a, events_b, "{tag_a}: the two storages' event order");
            let mut ordered = expected.clone();
            ordered.sort_by_key(|event| event.0);
            assert_eq!(events_a, ordered, "{tag_a}: OnRemove before OnAdd");
        }
        *stats.entry(op_kind(&op, &expected)).or_default() += 1;
        let sorted = |mut v: Vec<Event>| {
            v.sort_unstable();
            v
        };
        assert_eq!(sorted(events_a), expected, "{tag_a}: observer events");
        assert_eq!(sorted(events_b), expected, "{tag_b}: observer events");
        if A::HOOKED {
            assert_eq!(hooks_a, expected, "{tag_a}: hook calls");
        }
        if B::HOOKED {
            assert_eq!(hooks_b, expected, "{tag_b}: hook calls");
        }
        a.check(&model, &tag_a);
        b.check(&model, &tag_b);
    }
    // Half the seeds clear the worlds (`clear_entities`) before dropping them.
    if seed.is_multiple_of(2) {
        a.world.clear_entities();
        b.world.clear_entities();
        for (count, drops, created, name) in [
            (a.world.entity_count(), &a.drops, a.created, A::NAME),
            (b.world.entity_count(), &b.drops, b.created, B::NAME),
        ] {
            assert_eq!(count, 0, "seed {seed}: clear_entities left entities [{name}]");
            assert_eq!(drops.load(Ordering::Relaxed), created, "seed {seed}: drops after clear_entities [{name}]");
        }
        a.world.check_invariants();
        b.world.check_invariants();
        HOOK_CALLS.with(|calls| calls.borrow_mut().clear());
    }
    // Everything left is dropped once with the worlds.
    let (a_drops, a_created) = (a.drops.clone(), a.created);
    let (b_drops, b_created) = (b.drops.clone(), b.created);
    drop(a);
    drop(b);
    assert_eq!(a_drops.load(Ordering::Relaxed), a_created, "seed {seed}: drops after world drop [{}]", A::NAME);
    assert_eq!(b_drops.load(Ordering::Relaxed), b_created, "seed {seed}: drops after world drop [{}]", B::NAME);
}

// ---------------------------------------------------------------------------
// Model-based tests

fn assert_every_kind_ran(stats: &HashMap<&'static str, usize>) {
    for kind in [
        "spawn root",
        "spawn child",
        "reparent",
        "link a root",
        "relink",
        "unlink",
        "unlink a pair that is not there",
        "despawn a parent (cascade)",
        "despawn",
        "position",
    ] {
        assert!(stats.get(kind).copied().unwrap_or(0) >= 10, "{kind} ran too rarely: {stats:?}");
    }
}

#[test]
fn model_child_of_and_union_delete_policy_agree_with_the_model() {
    let mut stats = HashMap::new();
    for seed in 0..32 {
        run_model::<ChildOf, ParentLink>(seed, 120, true, &mut stats);
    }
    assert_every_kind_ran(&stats);
}

#[test]
fn model_fragmenting_and_union_remove_policy_agree_with_the_model() {
    let mut stats = HashMap::new();
    for seed in 100..132 {
        run_model::<FragLinkR, ParentLinkR>(seed, 120, false, &mut stats);
    }
    assert_every_kind_ran(&stats);
}

// ---------------------------------------------------------------------------
// Targeted tests

/// What `OnRemove` observers of `Pair<R>` saw: (entity, pair target, target(),
/// whether sources(pair target) listed the entity).
type Seen = Arc<Mutex<Vec<(Entity, Option<Entity>, Option<Entity>, bool)>>>;

fn watch_removals<R: Link>(world: &mut World) -> Seen {
    let seen: Seen = Arc::default();
    let log = seen.clone();
    world.add_observer(move |trigger: Trigger<OnRemove, Pair<R>>, relations: Relations<R>| {
        let (e, target) = (trigger.entity(), trigger.pair_target());
        let listed = target.is_some_and(|t| relations.sources(t).any(|s| s == e));
        log.lock().unwrap().push((e, target, relations.target(e), listed));
    });
    seen
}

/// Despawns a parent with one child; returns what the `OnRemove` observer saw
/// of the child's pair.
fn removal_view_on_parent_despawn<R: Link>() -> Vec<(Entity, Option<Entity>, Option<Entity>, bool)> {
    let mut world = World::new();
    let seen = watch_removals::<R>(&mut world);
    let parent = world.spawn(Position(1.0)).id();
    let child = world.spawn(Position(2.0)).add_pair::<R>(parent).id();
    world.despawn(parent);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{}: one OnRemove", R::NAME);
    assert_eq!((seen[0].0, seen[0].1), (child, Some(parent)), "{}", R::NAME);
    seen
}

#[test]

fn union_on_remove_observers_still_list_the_child_among_the_dying_parents_sources() {
    for (name, seen) in [
        ("ChildOf", removal_view_on_parent_despawn::<ChildOf>()),
        ("FragLinkR", removal_view_on_parent_despawn::<FragLinkR>()),
        ("ParentLink", removal_view_on_parent_despawn::<ParentLink>()),
        ("ParentLinkR", removal_view_on_parent_despawn::<ParentLinkR>()),
    ] {
        let (_, target, read_target, listed) = seen[0];
        assert_eq!(read_target, target, "{name}: OnRemove sees the pair's target");
        assert!(listed, "{name}: OnRemove runs before the pair goes: sources(parent) still lists the child");
    }
}

#[test]
fn on_remove_observers_see_the_pair_when_it_is_removed_or_retargeted_directly() {
    fn check<R: Link>() {
        let mut world = World::new();
        let seen = watch_removals::<R>(&mut world);
        let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
        let child = world.spawn_empty().add_pair::<R>(a).id();
        world.add_pair::<R>(child, b);
        world.remove_pair::<R>(child, b);
        let other = world.spawn_empty().add_pair::<R>(a).id();
        world.despawn(other);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![(child, Some(a), Some(a), true), (child, Some(b), Some(b), true), (other, Some(a), Some(a), true)],
            "{}",
            R::NAME
        );
    }
    check::<ChildOf>();
    check::<ParentLink>();
    check::<FragLinkR>();
    check::<ParentLinkR>();
}

/// A chain root <- n1 <- ... <- leaf of `len` links, each node with a `Tracked`.
fn chain<R: Link>(world: &mut World, len: usize, drops: &Arc<AtomicUsize>) -> Vec<Entity> {
    let mut nodes = vec![world.spawn((Tracked(drops.clone()), Position(0.0))).id()];
    for i in 1..=len {
        let parent = nodes[i - 1];
        nodes.push(world.spawn((Tracked(drops.clone()), R::make().pair(parent))).id());
    }
    nodes
}

#[test]
fn cycle_attempts_child_of_refuses_a_non_acyclic_union_allows_and_walks_end() {
    // ChildOf is acyclic: every way of closing a loop is refused, nothing changes.
    let mut world = World::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let nodes = chain::<ChildOf>(&mut world, 5, &drops);
    let (root, leaf) = (nodes[0], nodes[5]);
    assert!(matches!(world.try_add_pair::<ChildOf>(root, leaf), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<ChildOf>(root, root), Err(PairError::Cycle { .. })));
    let bundle = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(root).insert(ChildOf.pair(leaf));
    }));
    assert!(bundle.is_err(), "a ChildOf bundle closing a cycle panics");
    let command = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        apply_commands(&mut world, |commands| {
            commands.entity(root).add_pair::<ChildOf>(nodes[3]);
        });
    }));
    assert!(command.is_err(), "a ChildOf command closing a cycle panics when applied");
    assert_eq!(world.parent(root), None);
    assert_eq!(world.ancestors(leaf).count(), 5);
    world.check_invariants();

    // An acyclic union refuses the same way.
    let mut world = World::new();
    let nodes = chain::<ParentLink>(&mut world, 3, &drops);
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<AcyclicLink>(b, a);
    assert!(matches!(world.try_add_pair::<AcyclicLink>(a, b), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<AcyclicLink>(a, a), Err(PairError::Cycle { .. })));
    assert_eq!(world.target::<AcyclicLink>(a), None);

    // `ParentLink` does not declare `acyclic`: it does not promise to refuse
    // a cycle, and it does not (no cycle check without the trait, as for a
    // fragmenting relationship). Nothing may hang, panic or go inconsistent.
    let (root, leaf) = (nodes[0], nodes[3]);
    let closed = world.try_add_pair::<ParentLink>(root, leaf);
    assert!(closed.is_ok(), "a union without `acyclic` accepts the loop: {closed:?}");
    {
        assert_eq!(world.target::<ParentLink>(root), Some(leaf));
        let mut around: Vec<Entity> = world.ancestors_of::<ParentLink>(leaf).collect();
        around.sort();
        let mut others = nodes[..3].to_vec();
        others.sort();
        assert_eq!(around, others, "ancestors around a cycle end before the start");
        assert_eq!(world.descendants_of::<ParentLink>(root).count(), 3, "descendants around a cycle: each once");
        // `up` terms through the loop end (the root's Position is found by the others).
        let up = world.query::<Up<ParentLink, &Position>>().iter(&world).count();
        let dsl = world.query_dsl_uncached("Position(up ParentLink)").unwrap().count(&world);
        assert_eq!((up, dsl), (4, 4), "every node of the loop reaches the root's Position");
    }
    world.check_invariants();
    // Despawning a node of the loop (delete policy) takes the whole loop, once each.
    let before = drops.load(Ordering::Relaxed);
    world.despawn(nodes[1]);
    let gone = drops.load(Ordering::Relaxed) - before;
    assert_eq!(gone, 4, "the whole loop is deleted, each value dropped once");
    assert!(nodes.iter().all(|&n| !world.is_alive(n)));
    world.check_invariants();
    assert_eq!(world.entity_count(), 2);
}

#[test]
fn a_non_acyclic_union_self_loop_is_harmless() {
    let mut world = World::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let e = world.spawn((Tracked(drops.clone()), Position(3.0))).id();
    let child = world.spawn(Tracked(drops.clone())).add_pair::<ParentLink>(e).id();
    // Without `acyclic` even a self-loop is accepted (an acyclic union refuses it).
    let looped = world.try_add_pair::<ParentLink>(e, e);
    assert!(looped.is_ok(), "{looped:?}");
    {
        assert_eq!(world.target::<ParentLink>(e), Some(e));
        assert_eq!(world.ancestors_of::<ParentLink>(e).count(), 0);
        let mut below: Vec<Entity> = world.descendants_of::<ParentLink>(e).collect();
        below.sort();
        assert_eq!(below, vec![child]);
        let _ = world.query::<Up<ParentLink, &Position>>().iter(&world).count();
    }
    world.despawn(e);
    assert!(!world.is_alive(child));
    assert_eq!(drops.load(Ordering::Relaxed), 2);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

/// Builds a depth-50 chain with `R` and despawns it from the root: under
/// `delete` everything goes (events and drops once), under `remove` only the
/// first link.
fn deep_chain_despawned_from_the_root<R: Link>(delete: bool) {
    let mut world = World::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let events: Seen = Arc::default();
    let log = events.clone();
    world.add_observer(move |trigger: Trigger<OnRemove, Pair<R>>| {
        log.lock().unwrap().push((trigger.entity(), trigger.pair_target(), None, false));
    });
    let nodes = chain::<R>(&mut world, 50, &drops);
    let leaf = nodes[50];
    assert_eq!(world.ancestors_of::<R>(leaf).count(), 50, "{}", R::NAME);
    assert_eq!(world.descendants_of::<R>(nodes[0]).count(), 50);
    let mut q = world.query_dsl(&format!("Position(up {})", R::NAME)).unwrap();
    let sources: Vec<Entity> = q.iter(&world).map(|row| row.source(0)).collect();
    assert_eq!(sources.len(), 50);
    assert!(sources.iter().all(|&s| s == nodes[0]), "every node climbs to the root");
    let mut typed = world.query::<(Entity, Up<R, &Position>)>();
    assert_eq!(typed.get(&world, leaf).map(|(_, p)| p.0), Ok(0.0));

    HOOK_CALLS.with(|calls| calls.borrow_mut().clear());
    assert!(world.despawn(nodes[0]));
    let mut removed = std::mem::take(&mut *events.lock().unwrap());
    removed.sort();
    world.check_invariants();
    if delete {
        assert!(nodes.iter().all(|&n| !world.is_alive(n)), "{}", R::NAME);
        assert_eq!(drops.load(Ordering::Relaxed), 51);
        assert_eq!(world.entity_count(), 0);
        let mut expected: Vec<(Entity, Option<Entity>, Option<Entity>, bool)> =
            (1..=50).map(|i| (nodes[i], Some(nodes[i - 1]), None, false)).collect();
        expected.sort();
        assert_eq!(removed, expected, "{}: one OnRemove per link", R::NAME);
        assert_eq!(q.count(&world), 0);
        assert_eq!(typed.iter(&world).count(), 0);
    } else {
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        assert_eq!(world.entity_count(), 50);
        assert_eq!(removed, vec![(nodes[1], Some(nodes[0]), None, false)], "{}", R::NAME);
        assert_eq!(world.target::<R>(nodes[1]), None);
        assert_eq!(world.ancestors_of::<R>(leaf).count(), 49);
        assert_eq!(q.count(&world), 0, "no Position left above anyone");
        world.entity_mut(nodes[1]).insert(Position(1.0));
        assert_eq!(q.count(&world), 49);
        assert_eq!(typed.get(&world, leaf).map(|(_, p)| p.0), Ok(1.0));
    }
    if R::HOOKED {
        let hooks = HOOK_CALLS.with(|calls| std::mem::take(&mut *calls.borrow_mut()));
        assert_eq!(hooks.len(), removed.len(), "{}: one on_remove hook per link: {hooks:?}", R::NAME);
    }
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 51);
}

#[test]
fn deep_chains_despawned_from_the_root() {
    deep_chain_despawned_from_the_root::<ChildOf>(true);
    deep_chain_despawned_from_the_root::<ParentLink>(true);
    deep_chain_despawned_from_the_root::<FragLinkR>(false);
    deep_chain_despawned_from_the_root::<ParentLinkR>(false);
}

/// A parent with 1000 children: listed, moved one by one to another parent,
/// then despawned with it.
fn thousand_children<R: Link>(delete: bool) {
    let mut world = World::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let first = world.spawn((Tracked(drops.clone()), Position(1.0))).id();
    let second = world.spawn((Tracked(drops.clone()), Position(2.0))).id();
    let children: Vec<Entity> = (0..1000)
        .map(|i| {
            let mut child = world.spawn(Tracked(drops.clone()));
            if i % 2 == 0 {
                child.insert(Position(-1.0));
            }
            child.add_pair::<R>(first).id()
        })
        .collect();
    let mut sources: Vec<Entity> = world.sources::<R>(first).collect();
    sources.sort();
    assert_eq!(sources, children, "{}", R::NAME);
    let mut up = world.query::<(Entity, Up<R, &Position>)>();
    let mut dsl = world.query_dsl(&format!("({}, $p), Position($p)", R::NAME)).unwrap();
    assert_eq!(up.iter(&world).count(), 1000);
    assert_eq!(dsl.count(&world), 1000);
    // Every other child moves to `second`, from the back (swap-removes in the middle of tables).
    for &child in children.iter().rev().step_by(2) {
        world.add_pair::<R>(child, second);
    }
    assert_eq!(world.sources::<R>(first).count(), 500);
    assert_eq!(world.sources::<R>(second).count(), 500);
    let sum: f32 = up.iter(&world).map(|(_, p)| p.0).sum();
    assert_eq!(sum, 1500.0, "{}: 500 read 1.0 and 500 read 2.0", R::NAME);
    let bound: Vec<Entity> = dsl.iter(&world).map(|row| row.var("p").unwrap()).collect();
    assert_eq!(bound.iter().filter(|&&p| p == second).count(), 500);
    for (i, &child) in children.iter().enumerate() {
        let expected = if (999 - i) % 2 == 0 { second } else { first };
        assert_eq!(world.target::<R>(child), Some(expected), "{} child {i}", R::NAME);
    }
    world.check_invariants();
    assert!(world.despawn(first));
    let alive = children.iter().filter(|&&c| world.is_alive(c)).count();
    if delete {
        assert_eq!(alive, 500);
        assert_eq!(drops.load(Ordering::Relaxed), 501);
    } else {
        assert_eq!(alive, 1000);
        assert_eq!(world.query_dsl_uncached(&format!("({}, *)", R::NAME)).unwrap().count(&world), 500);
    }
    assert_eq!(up.iter(&world).count(), 500);
    assert!(world.despawn(second));
    world.check_invariants();
    assert_eq!(world.entity_count(), if delete { 0 } else { 1000 });
    assert_eq!(up.iter(&world).count(), 0);
    assert_eq!(dsl.count(&world), 0);
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 1002);
}

#[test]
fn a_parent_with_a_thousand_children() {
    thousand_children::<ChildOf>(true);
    thousand_children::<ParentLink>(true);
    thousand_children::<FragLinkR>(false);
    thousand_children::<ParentLinkR>(false);
}

#[test]
fn both_relationships_on_one_entity() {
    let drops = Arc::new(AtomicUsize::new(0));
    let tracked = || Tracked(drops.clone());
    let mut world = World::new();
    let a = world.spawn((tracked(), Position(1.0))).id();
    let b = world.spawn((tracked(), Position(2.0))).id();
    // `e` is a ChildOf child of `a` and a ParentLink child of `b`, and the
    // ChildOf parent of `g`, itself a ParentLink parent of `h`.
    let e = world.spawn((tracked(), ChildOf.pair(a), ParentLink.pair(b))).id();
    let g = world.spawn((tracked(), Position(3.0))).add_pair::<ChildOf>(e).id();
    let h = world.spawn(tracked()).add_pair::<ParentLink>(g).id();
    assert_eq!(world.parent(e), Some(a));
    assert_eq!(world.target::<ParentLink>(e), Some(b));
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>, Up<ParentLink, &Position>)>();
    let rows: Vec<(Entity, f32, f32)> = q.iter(&world).map(|(x, c, p)| (x, c.0, p.0)).collect();
    assert_eq!(rows, vec![(e, 1.0, 2.0)]);
    let mut dsl = world.query_dsl("Position(up ChildOf), Position(up ParentLink)").unwrap();
    let rows: Vec<(Entity, Entity, Entity)> =
        dsl.iter(&world).map(|row| (row.entity(), row.source(0), row.source(1))).collect();
    assert_eq!(rows, vec![(e, a, b)]);
    assert_eq!(world.ancestors(h).count(), 0, "h has no ChildOf parent");
    assert_eq!(world.ancestors_of::<ParentLink>(h).collect::<Vec<_>>(), vec![g]);
    assert_eq!(world.descendants(a).collect::<Vec<_>>(), vec![e, g]);

    // Retargeting one relationship leaves the other alone.
    let c = world.spawn((tracked(), Position(4.0))).id();
    world.add_pair::<ParentLink>(e, c);
    world.add_pair::<ChildOf>(e, c);
    assert_eq!((world.parent(e), world.target::<ParentLink>(e)), (Some(c), Some(c)));
    world.add_pair::<ChildOf>(e, a);
    assert_eq!((world.parent(e), world.target::<ParentLink>(e)), (Some(a), Some(c)));
    world.check_invariants();

    // Despawning the union parent deletes `e`, its ChildOf subtree `g` and g's union child `h`.
    world.despawn(c);
    assert!(!world.is_alive(e) && !world.is_alive(g) && !world.is_alive(h));
    assert!(world.is_alive(a) && world.is_alive(b));
    assert_eq!(world.children(a).count(), 0, "a's ChildOf child went with the union cascade");
    assert_eq!(world.sources::<ParentLink>(b).count(), 0);
    assert_eq!(drops.load(Ordering::Relaxed), 4);
    world.check_invariants();

    // The other way round: the ChildOf parent's despawn removes a union child
    // that still points at a live parent, which forgets it.
    let e = world.spawn((tracked(), ChildOf.pair(a), ParentLink.pair(b))).id();
    let f = world.spawn(tracked()).add_pair::<ParentLink>(b).id();
    world.despawn(a);
    assert!(!world.is_alive(e) && world.is_alive(f));
    assert_eq!(world.sources::<ParentLink>(b).collect::<Vec<_>>(), vec![f]);
    assert_eq!(world.query::<Up<ParentLink, &Position>>().iter(&world).count(), 1);
    world.check_invariants();

    // Remove policy on the union side: the child becomes a union root and
    // keeps its ChildOf parent.
    let p = world.spawn((tracked(), Position(5.0))).id();
    let r = world.spawn((tracked(), ChildOf.pair(p), ParentLinkR.pair(b))).id();
    world.despawn(b);
    assert!(!world.is_alive(f), "ParentLink child of b deleted");
    assert!(world.is_alive(r));
    assert_eq!((world.parent(r), world.target::<ParentLinkR>(r)), (Some(p), None));
    world.check_invariants();
    assert_eq!(world.entity_count(), 2);
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 10);
}

/// Drops of the union relationship type's own values.
static UNION_VALUE_DROPS: AtomicUsize = AtomicUsize::new(0);
static FRAG_VALUE_DROPS: AtomicUsize = AtomicUsize::new(0);

/// A union relationship whose (zero-sized) values have a `Drop`.
#[derive(Relationship)]
#[relationship(union, traversable, on_delete_target = "delete")]
struct DropLink;

impl Drop for DropLink {
    fn drop(&mut self) {
        UNION_VALUE_DROPS.fetch_add(1, Ordering::Relaxed);
    }
}

/// Its fragmenting twin.
#[derive(Relationship)]
#[relationship(exclusive, traversable, on_delete_target = "delete")]
struct FragDropLink;

impl Drop for FragDropLink {
    fn drop(&mut self) {
        FRAG_VALUE_DROPS.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn relationship_values_with_drop_are_dropped_exactly_once() {
    fn run<R: Relationship>(make: fn() -> R, counter: &AtomicUsize) {
        let mut world = World::new();
        let mut made = 0;
        let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
        let x = world.spawn(make().pair(a)).id();
        made += 1;
        let y = world.spawn((Position(1.0), make().pair(a))).id();
        made += 1;
        world.entity_mut(x).insert(make().pair(b)); // retarget through a bundle
        made += 1;
        world.entity_mut(y).insert(make().pair(a)); // same target again
        made += 1;
        world.insert_pair(x, make(), b); // same target again, through insert_pair
        made += 1;
        let z = world.spawn(make().pair(x)).id();
        made += 1;
        world.remove_pair::<R>(y, a);
        world.despawn(a); // x moved to a already; y has no pair: nothing cascades
        assert!(world.is_alive(x) && world.is_alive(y) && world.is_alive(z));
        world.despawn(x); // z goes with it
        assert!(!world.is_alive(z));
        let w = world.spawn(make().pair(b)).id();
        made += 1;
        world.check_invariants();
        drop(world);
        let _ = w;
        assert_eq!(counter.load(Ordering::Relaxed), made, "{}: each value dropped exactly once", R::NAME);
    }
    run(|| FragDropLink, &FRAG_VALUE_DROPS);
    run(|| DropLink, &UNION_VALUE_DROPS);
}

#[test]
fn commands_spawning_under_a_parent_despawned_earlier_in_the_queue_follow_the_policy() {
    fn run<R: Link>(delete: bool) {
        let mut world = World::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let parent = world.spawn(Tracked(drops.clone())).id();
        let keep = world.spawn(Tracked(drops.clone())).id();
        let (t1, t2) = (Tracked(drops.clone()), Tracked(drops.clone()));
        let mut spawned = Vec::new();
        apply_commands(&mut world, |commands| {
            commands.entity(parent).despawn();
            spawned.push(commands.spawn((t1, R::make().pair(parent))).id());
            let mut late = commands.spawn(t2);
            late.add_pair::<R>(parent);
            spawned.push(late.id());
        });
        world.check_invariants();
        for &e in &spawned {
            assert_eq!(world.is_alive(e), !delete, "{}", R::NAME);
            if !delete {
                assert_eq!(world.target::<R>(e), None, "{}", R::NAME);
            }
        }
        assert_eq!(drops.load(Ordering::Relaxed), if delete { 3 } else { 1 }, "{}", R::NAME);
        assert_eq!(world.entity_count(), if delete { 1 } else { 3 });
        assert!(world.is_alive(keep));
        assert_eq!(world.sources::<R>(parent).count(), 0);
        drop(world);
        assert_eq!(drops.load(Ordering::Relaxed), 4, "{}", R::NAME);
    }
    run::<ChildOf>(true);
    run::<ParentLink>(true);
    run::<FragLinkR>(false);
    run::<ParentLinkR>(false);
}

#[test]
fn observer_commands_during_a_cascade_agree_between_storages() {
    /// (alive children, grandchild alive, entity_count, drops).
    fn run<R: Link>() -> (usize, bool, usize, usize) {
        let mut world = World::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let d = drops.clone();
        world.add_observer(move |trigger: Trigger<OnRemove, Pair<R>>, mut commands: Commands| {
            commands.entity(trigger.entity()).try_insert(Tracked(d.clone()));
            commands.spawn(Tracked(d.clone()));
        });
        let p = world.spawn(Position(1.0)).id();
        let kids: Vec<Entity> = (0..5).map(|_| world.spawn(Position(2.0)).add_pair::<R>(p).id()).collect();
        let grand = world.spawn(Position(3.0)).add_pair::<R>(kids[2]).id();
        world.despawn(p);
        world.check_invariants();
        let alive = kids.iter().filter(|&&k| world.is_alive(k)).count();
        (alive, world.is_alive(grand), world.entity_count(), drops.load(Ordering::Relaxed))
    }
    // Delete: six OnRemove (five children, the grandchild), six spawns, six
    // values dropped by `try_insert` on dead entities.
    assert_eq!(run::<ChildOf>(), (0, false, 6, 6));
    assert_eq!(run::<ParentLink>(), (0, false, 6, 6));
    // Remove: five OnRemove, the children keep the inserted values.
    assert_eq!(run::<FragLinkR>(), (5, true, 11, 0));
    assert_eq!(run::<ParentLinkR>(), (5, true, 11, 0));
}
