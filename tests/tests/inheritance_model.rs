//! Model-based test of prefabs and `IsA` inheritance: random sequences of
//! operations on a pool of up to eight entities (spawn with or without
//! `Prefab`, `instantiate`, add and remove `(IsA, b)`, insert and remove
//! components, disable and enable a toggleable component, despawn, add and
//! remove `Prefab`) are run against a [`World`] and against a naive model of
//! the documented rules (the rustdoc of `IsA`, the module docs of
//! `archetype/inheritance.rs`, `world/instantiate.rs` and `world/toggle.rs`,
//! and the "Prefabs, toggles, unions, names" section of the API notes):
//!
//! * values are read from prefabs only: an entity with `(IsA, b)` pairs reads,
//!   for each `inherit` component it does not own, the value of the first
//!   prefab found in a depth-first walk over its bases (direct bases in the
//!   order they were added, whatever their ids: the first added wins a
//!   conflict; each base's own ids first, then that base's own bases; a base
//!   is visited once);
//! * a base that is not a prefab gives none of its own values, but its own
//!   bases are walked; a component it owns is blocked for what lies beyond it
//!   (its own bases), not for its siblings;
//! * an entity's own value wins; removing it uncovers the inherited one;
//! * `override` components are copied into the instance when `(IsA, b)` is
//!   added (from `b`'s own value, else from what `b` inherits), unless the
//!   instance owns one already; they are never read through `IsA`, and later
//!   edits of the base do not reach the copies;
//! * `dont_inherit` components are neither inherited nor copied, nor is
//!   `Prefab`;
//! * `IsA` is acyclic: a pair that would close a cycle is refused with
//!   `PairError::Cycle` and nothing changes;
//! * despawning a base removes `(IsA, base)` from its instances (they keep
//!   owned values, including override copies);
//! * a sparse component (`S`) is inherited with the same rules as the table
//!   ones (a prefab holding one gives it, a plain base holding one hides what
//!   lies beyond it, depth-first in the order bases were added);
//! * a toggleable component (`T`) is inherited like the others, and an
//!   inherited value is as enabled as on the base that holds it (a disabled
//!   value on the nearest holder is not skipped for a farther one);
//!   `disable`/`enable` set an entity's own value's bit; an entity that only
//!   inherits one is unchanged when the inherited value already is as asked,
//!   and otherwise gets its own copy first (a clone of the holder's value,
//!   then set as asked; `world/toggle.rs`); a disabled value is still read by
//!   `get` and counted by `has`, but every query term treats it as absent;
//!   inserting over a disabled value keeps it disabled, removing it forgets
//!   the bit (a later value starts enabled);
//! * `&mut T` terms and `get_mut` see only an entity's own values.
//!
//! After every step, for every alive entity and every component: `get`,
//! `get_mut`, `owns`, `has`, `is_enabled` and `has_pair::<IsA>` match the
//! model, and for every component each query form below (a fresh query and
//! one cached for the whole case) yields exactly the non-prefab entities of
//! the case the model gives, where a query "sees" a value the model gives
//! (own or inherited) only while it is enabled: the typed `(Entity, &T)`,
//! `(Entity, Option<&T>)`, `(Entity, Has<T>)`, `Entity` filtered `With<T>` and
//! `Without<T>`, and `(Entity, &mut T)` (own values only), and the DSL queries
//! `"T"`, `"!T"`, `"?T"` and `"[inout] T"` (own values only);
//! `World::check_invariants` holds. (Rows of entities outside the case, such
//! as the component entities that `!T` also matches, are ignored.)
//!
//! The model walks the bases as documented (every path: a base reached first
//! through a plain base that blocks a component still gives it along another
//! path, `a_blocking_instance_base_does_not_hide_a_direct_prefab_base`).
//!
//! Case count: 192 cases of 1 to 40 operations by default; the environment
//! variable `INHERITANCE_MODEL_CASES=N` (or `MODEL_CASES=N`, as for the `model`
//! test) sets it to N, for long runs:
//! `INHERITANCE_MODEL_CASES=20000 cargo test --release -p ecs-tests --test inheritance_model`.

use std::collections::{BTreeMap, BTreeSet};

use ecs::prelude::*;
use ecs::world::PairError;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

// ----- components -------------------------------------------------------------------

/// Inherited (the default policy).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);

/// Inherited (the default policy).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u32);

/// Inherited (the policy spelled out).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "inherit")]
struct C(u32);

/// Copied into instances when `(IsA, b)` is added.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct O(u32);

/// Neither inherited nor copied.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct D(u32);

/// Toggleable and inherited (the default policy): an inherited value is as
/// enabled as on the base that holds it.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(toggle)]
struct T(u32);

/// Sparse and inherited (the default policy), with the rules of table components.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct S(u32);

/// The number of component kinds.
const KINDS: usize = 7;
/// The kinds, by index.
const NAMES: [&str; KINDS] = ["A", "B", "C", "O", "D", "T", "S"];
const KIND_O: usize = 3;
const KIND_T: usize = 5;
/// Whether each kind is read through `IsA` (`inherit`).
const INHERITED: [bool; KINDS] = [true, true, true, false, false, true, true];
/// The pool size.
const POOL: usize = 8;

// ----- operations -------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    /// Spawns into the first free slot (skipped if the pool is full).
    Spawn {
        prefab: bool,
        values: [Option<u32>; KINDS],
    },
    /// `World::instantiate(base)` into the first free slot.
    Instantiate {
        base: usize,
    },
    /// Spawns `(IsA.pair(base), ..)` with an optional `O` and `A` in the same
    /// bundle (a value given in the same spawn wins over the override copy).
    SpawnInstance {
        base: usize,
        o: Option<u32>,
        a: Option<u32>,
    },
    /// `try_add_pair::<IsA>(entity, base)`; a cycle must be refused.
    AddIsA {
        entity: usize,
        base: usize,
    },
    /// Removes one of the entity's `(IsA, _)` pairs.
    RemoveIsA {
        entity: usize,
        which: usize,
    },
    /// Inserts (or overwrites) a value.
    Insert {
        entity: usize,
        kind: usize,
        value: u32,
    },
    /// Removes a value (a no-op where the entity owns none).
    Remove {
        entity: usize,
        kind: usize,
    },
    /// Disables or enables `T` (see [`Model::toggle`]).
    Toggle {
        entity: usize,
        enabled: bool,
    },
    Despawn {
        entity: usize,
    },
    /// Inserts or removes `Prefab`.
    SetPrefab {
        entity: usize,
        prefab: bool,
    },
}

fn values() -> impl Strategy<Value = [Option<u32>; KINDS]> {
    proptest::array::uniform7(proptest::option::weighted(0.4, 0u32..100))
}

fn op() -> impl Strategy<Value = Op> {
    let e = || 0usize..POOL;
    prop_oneof![
        3 => (any::<bool>(), values()).prop_map(|(prefab, values)| Op::Spawn { prefab, values }),
        1 => e().prop_map(|base| Op::Instantiate { base }),
        1 => (e(), proptest::option::of(200u32..300), proptest::option::of(200u32..300))
            .prop_map(|(base, o, a)| Op::SpawnInstance { base, o, a }),
        5 => (e(), e()).prop_map(|(entity, base)| Op::AddIsA { entity, base }),
        1 => (e(), 0usize..4).prop_map(|(entity, which)| Op::RemoveIsA { entity, which }),
        4 => (e(), 0..KINDS, 100u32..200).prop_map(|(entity, kind, value)| Op::Insert { entity, kind, value }),
        2 => (e(), 0..KINDS).prop_map(|(entity, kind)| Op::Remove { entity, kind }),
        2 => (e(), any::<bool>()).prop_map(|(entity, enabled)| Op::Toggle { entity, enabled }),
        1 => e().prop_map(|entity| Op::Despawn { entity }),
        1 => (e(), any::<bool>()).prop_map(|(entity, prefab)| Op::SetPrefab { entity, prefab }),
    ]
}

// ----- the model --------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Ent {
    handle: Entity,
    prefab: bool,
    /// Owned values.
    values: [Option<u32>; KINDS],
    /// Whether the owned `T` is disabled (`false` where it owns none).
    disabled: bool,
    /// Direct bases, as slots, in the order they were added.
    bases: Vec<usize>,
}

struct Model {
    slots: [Option<Ent>; POOL],
    /// Every entity spawned in the case, alive or not (queries' rows of other
    /// entities are ignored).
    case: BTreeSet<Entity>,
}

impl Model {
    fn ent(&self, slot: usize) -> &Ent {
        self.slots[slot].as_ref().expect("a live slot")
    }

    fn alive(&self) -> Vec<usize> {
        (0..POOL).filter(|&s| self.slots[s].is_some()).collect()
    }

    /// The live slot picked by `n` (modulo the live count), if any.
    fn pick(&self, n: usize) -> Option<usize> {
        let alive = self.alive();
        (!alive.is_empty()).then(|| alive[n % alive.len()])
    }

    fn free(&self) -> Option<usize> {
        (0..POOL).find(|&s| self.slots[s].is_none())
    }

    /// `slot`'s direct bases in the order they were added (API.md: "with
    /// several bases, the first added wins a conflict").
    fn bases_in_order(&self, slot: usize) -> Vec<usize> {
        self.ent(slot).bases.clone()
    }

    /// Whether `from` reaches `to` along `IsA` (reflexive).
    fn reaches(&self, from: usize, to: usize) -> bool {
        from == to || self.ent(from).bases.iter().any(|&b| self.reaches(b, to))
    }

    /// The base (a prefab) whose value of `kind` `slot` inherits through its
    /// bases (ignoring what it owns): the depth-first walk of the module docs.
    /// It walks every path (the pool is small and `IsA` acyclic), so a base
    /// first reached through a plain base that blocks a component still gives
    /// it along another path ("other bases of the instance may still give it").
    fn holder(&self, slot: usize, kind: usize) -> Option<usize> {
        self.bases_in_order(slot).into_iter().find_map(|b| self.visit(b, kind, false))
    }

    fn visit(&self, slot: usize, kind: usize, blocked: bool) -> Option<usize> {
        let ent = self.ent(slot);
        let mut blocked = blocked;
        if ent.values[kind].is_some() {
            if !ent.prefab {
                blocked = true;
            } else if !blocked {
                return Some(slot);
            }
        }
        self.bases_in_order(slot).into_iter().find_map(|b| self.visit(b, kind, blocked))
    }

    /// The value of `kind` that `slot` inherits (see [`Model::holder`]).
    fn inherited(&self, slot: usize, kind: usize) -> Option<u32> {
        self.holder(slot, kind).and_then(|h| self.ent(h).values[kind])
    }

    /// What `get` reads: the own value, else (for `inherit` kinds) the inherited one.
    fn get(&self, slot: usize, kind: usize) -> Option<u32> {
        self.ent(slot).values[kind].or_else(|| if INHERITED[kind] { self.inherited(slot, kind) } else { None })
    }

    /// What `is_enabled` says: whether the value `get` reads is enabled, that
    /// is, for `T`, the own value's bit, else the bit of the base holding the
    /// inherited one (the nearest holder decides, even when disabled); for
    /// the other kinds, whether there is a value.
    fn enabled(&self, slot: usize, kind: usize) -> bool {
        let ent = self.ent(slot);
        let holder = if ent.values[kind].is_some() {
            Some(slot)
        } else if INHERITED[kind] {
            self.holder(slot, kind)
        } else {
            None
        };
        holder.is_some_and(|h| kind != KIND_T || !self.ent(h).disabled)
    }

    /// What query read terms see: the value `get` reads, while it is enabled.
    fn seen(&self, slot: usize, kind: usize) -> Option<u32> {
        self.get(slot, kind).filter(|_| self.enabled(slot, kind))
    }

    /// What `&mut` terms see: the own value, while it is enabled.
    fn seen_own(&self, slot: usize, kind: usize) -> Option<u32> {
        let ent = self.ent(slot);
        ent.values[kind].filter(|_| kind != KIND_T || !ent.disabled)
    }

    /// Adds `(IsA, base)` to `slot` (no cycle): copies the override value first.
    fn add_isa(&mut self, slot: usize, base: usize) {
        if self.ent(slot).bases.contains(&base) {
            return; // not new: nothing is instantiated again
        }
        if self.ent(slot).values[KIND_O].is_none() {
            let copy = self.ent(base).values[KIND_O].or_else(|| self.inherited(base, KIND_O));
            self.slots[slot].as_mut().unwrap().values[KIND_O] = copy;
        }
        self.slots[slot].as_mut().unwrap().bases.push(base);
    }

    /// `disable` (`enabled == false`) or `enable` of `T` on `slot`: sets the
    /// bit of its own value; where it only inherits one that is not as asked,
    /// it gets its own copy first (a clone of the holder's value).
    fn toggle(&mut self, slot: usize, enabled: bool) {
        if self.ent(slot).values[KIND_T].is_none() {
            let Some(holder) = self.holder(slot, KIND_T) else { return };
            if self.ent(holder).disabled != enabled {
                return; // already as asked: no copy
            }
            let copy = self.ent(holder).values[KIND_T];
            self.slots[slot].as_mut().unwrap().values[KIND_T] = copy;
        }
        self.slots[slot].as_mut().unwrap().disabled = !enabled;
    }

    /// Fills the free slot `slot` with a new entity.
    fn spawn(&mut self, slot: usize, handle: Entity, prefab: bool, values: [Option<u32>; KINDS]) {
        self.case.insert(handle);
        self.slots[slot] = Some(Ent { handle, prefab, values, disabled: false, bases: Vec::new() });
    }

    fn despawn(&mut self, slot: usize) {
        self.slots[slot] = None;
        for ent in self.slots.iter_mut().flatten() {
            ent.bases.retain(|&b| b != slot);
        }
    }
}

// ----- the world side ---------------------------------------------------------------

fn insert(world: &mut World, e: Entity, kind: usize, value: u32) {
    let mut entity = world.entity_mut(e);
    match kind {
        0 => entity.insert(A(value)),
        1 => entity.insert(B(value)),
        2 => entity.insert(C(value)),
        3 => entity.insert(O(value)),
        4 => entity.insert(D(value)),
        5 => entity.insert(T(value)),
        _ => entity.insert(S(value)),
    };
}

fn remove(world: &mut World, e: Entity, kind: usize) {
    let mut entity = world.entity_mut(e);
    match kind {
        0 => entity.remove::<A>(),
        1 => entity.remove::<B>(),
        2 => entity.remove::<C>(),
        3 => entity.remove::<O>(),
        4 => entity.remove::<D>(),
        5 => entity.remove::<T>(),
        _ => entity.remove::<S>(),
    };
}

/// A component of the model: one `u32`.
trait Kind: Component + Copy {
    fn value(self) -> u32;
}

macro_rules! kinds {
    ($($kind:ident),*) => {$(
        impl Kind for $kind {
            fn value(self) -> u32 {
                self.0
            }
        }
    )*};
}

kinds!(A, B, C, O, D, T, S);

/// Runs `$body` with `$K` the component type of kind `$kind`.
macro_rules! with_kind {
    ($kind:expr, $K:ident => $body:expr) => {
        match $kind {
            0 => {
                type $K = A;
                $body
            }
            1 => {
                type $K = B;
                $body
            }
            2 => {
                type $K = C;
                $body
            }
            3 => {
                type $K = O;
                $body
            }
            4 => {
                type $K = D;
                $body
            }
            5 => {
                type $K = T;
                $body
            }
            _ => {
                type $K = S;
                $body
            }
        }
    };
}

/// What the world says of one entity and one component.
#[derive(Debug, PartialEq)]
struct Point {
    get: Option<u32>,
    get_mut: Option<u32>,
    owns: bool,
    has: bool,
    is_enabled: bool,
}

fn point<K: Kind>(world: &mut World, e: Entity) -> Point {
    Point {
        get: world.get::<K>(e).map(|v| v.value()),
        get_mut: world.get_mut::<K>(e).map(|v| v.value()),
        owns: world.owns::<K>(e),
        has: world.has::<K>(e),
        is_enabled: world.is_enabled::<K>(e),
    }
}

/// One query form's rows: entity and value (`None` where an optional term
/// did not match, `Some(0)` for forms without data), restricted to the
/// entities of the case and checked for duplicates.
type Rows = BTreeMap<Entity, Option<u32>>;

fn rows(form: &str, case: &BTreeSet<Entity>, rows: impl IntoIterator<Item = (Entity, Option<u32>)>) -> Rows {
    let rows: Vec<(Entity, Option<u32>)> = rows.into_iter().filter(|(e, _)| case.contains(e)).collect();
    let map: Rows = rows.iter().copied().collect();
    assert_eq!(map.len(), rows.len(), "{form}: one row per entity: {rows:?}");
    map
}

/// The query forms checked, in the order of [`Probes::observe`]'s rows.
const FORMS: [&str; 10] = [
    "(Entity, &{})",
    "(Entity, Option<&{}>)",
    "(Entity, Has<{}>)",
    "Entity, With<{}>",
    "Entity, Without<{}>",
    "(Entity, &mut {})",
    "DSL \"{}\"",
    "DSL \"!{}\"",
    "DSL \"?{}\"",
    "DSL \"[inout] {}\"",
];

/// The queries of one component, in every form checked.
struct Probes<K: Kind> {
    read: QueryState<(Entity, &'static K)>,
    optional: QueryState<(Entity, Option<&'static K>)>,
    has: QueryState<(Entity, Has<K>)>,
    with: QueryState<Entity, With<K>>,
    without: QueryState<Entity, Without<K>>,
    write: QueryState<(Entity, &'static mut K)>,
    /// `"K"`, `"!K"`, `"?K"`, `"[inout] K"`.
    dsl: [ecs::query::DynQuery; 4],
}

impl<K: Kind> Probes<K> {
    fn new(world: &mut World, name: &str) -> Probes<K> {
        let dsl = [name.to_owned(), format!("!{name}"), format!("?{name}"), format!("[inout] {name}")]
            .map(|text| world.query_dsl(&text).expect("a component name"));
        Probes {
            read: world.query(),
            optional: world.query(),
            has: world.query(),
            with: world.query_filtered(),
            without: world.query_filtered(),
            write: world.query(),
            dsl,
        }
    }

    /// Every form's rows (see [`FORMS`]).
    fn observe(&mut self, world: &mut World, case: &BTreeSet<Entity>) -> Vec<Rows> {
        let form = |i: usize| FORMS[i].replace("{}", K::NAME);
        let mut out = vec![
            rows(&form(0), case, self.read.iter(world).map(|(e, v)| (e, Some(v.value())))),
            rows(&form(1), case, self.optional.iter(world).map(|(e, v)| (e, v.map(|v| v.value())))),
            rows(&form(2), case, self.has.iter(world).map(|(e, has)| (e, Some(u32::from(has))))),
            rows(&form(3), case, self.with.iter(world).map(|e| (e, Some(0)))),
            rows(&form(4), case, self.without.iter(world).map(|e| (e, Some(0)))),
            rows(&form(5), case, self.write.iter_mut(world).map(|(e, v)| (e, Some(v.value())))),
        ];
        let [read, not, optional, write] = &mut self.dsl;
        let value = |row: &ecs::query::DynRow<'_>| row.get::<K>(0).map(|v| v.value());
        let read = read.iter(world).map(|row| (row.entity(), Some(value(&row).expect("a matched term has a value"))));
        out.push(rows(&form(6), case, read));
        out.push(rows(&form(7), case, not.iter(world).map(|row| (row.entity(), Some(0)))));
        out.push(rows(&form(8), case, optional.iter(world).map(|row| (row.entity(), value(&row)))));
        let mut written = Vec::new();
        write.iter_mut(world).for_each(|mut row| {
            let value = row.get_mut::<K>(0).map(|v| v.value()).expect("a matched term has a value");
            written.push((row.entity(), Some(value)));
        });
        out.push(rows(&form(9), case, written));
        out
    }
}

/// [`Probes`] of any component.
trait Observe {
    fn observe(&mut self, world: &mut World, case: &BTreeSet<Entity>) -> Vec<Rows>;
}

impl<K: Kind> Observe for Probes<K> {
    fn observe(&mut self, world: &mut World, case: &BTreeSet<Entity>) -> Vec<Rows> {
        Probes::observe(self, world, case)
    }
}

fn probes(world: &mut World, kind: usize) -> Box<dyn Observe> {
    with_kind!(kind, K => Box::new(Probes::<K>::new(world, NAMES[kind])))
}

/// Queries kept for a whole case (their caches must follow every change), by kind.
struct Cached {
    probes: Vec<Box<dyn Observe>>,
}

impl Cached {
    fn new(world: &mut World) -> Cached {
        Cached { probes: (0..KINDS).map(|kind| probes(world, kind)).collect() }
    }
}

/// Compares the world with the model.
fn check(world: &mut World, model: &Model, cached: &mut Cached, step: &str) {
    world.check_invariants();
    let alive = model.alive();
    for &s in &alive {
        let ent = model.ent(s);
        let e = ent.handle;
        assert!(world.is_alive(e), "{step}: slot {s} ({e:?}) is alive");
        assert_eq!(world.has::<Prefab>(e), ent.prefab, "{step}: Prefab on {e:?}");
        for &t in &alive {
            let target = model.ent(t).handle;
            assert_eq!(world.has_pair::<IsA>(e, target), ent.bases.contains(&t), "{step}: (IsA, {target:?}) on {e:?}");
        }
        for (kind, name) in NAMES.iter().enumerate() {
            let get = model.get(s, kind);
            let expected = Point {
                get,
                get_mut: ent.values[kind],
                owns: ent.values[kind].is_some(),
                has: get.is_some(),
                is_enabled: model.enabled(s, kind),
            };
            let actual = with_kind!(kind, K => point::<K>(world, e));
            assert_eq!(actual, expected, "{step}: {name} on {e:?} (slot {s})");
        }
    }
    let instances: Vec<usize> = alive.iter().copied().filter(|&s| !model.ent(s).prefab).collect();
    for (kind, &name) in NAMES.iter().enumerate() {
        let seen = |s: usize| model.seen(s, kind);
        let seen_own = |s: usize| model.seen_own(s, kind);
        let matching = |f: &dyn Fn(usize) -> Option<Option<u32>>| -> Rows {
            instances.iter().filter_map(|&s| f(s).map(|v| (model.ent(s).handle, v))).collect()
        };
        let read = matching(&|s| seen(s).map(Some));
        let optional = matching(&|s| Some(seen(s)));
        let has = matching(&|s| Some(Some(u32::from(seen(s).is_some()))));
        let with = matching(&|s| seen(s).map(|_| Some(0)));
        let without = matching(&|s| seen(s).is_none().then_some(Some(0)));
        let write = matching(&|s| seen_own(s).map(Some));
        // In the order of `FORMS`: each DSL form expects what its typed counterpart does.
        let expected = [&read, &optional, &has, &with, &without, &write, &read, &without, &optional, &write];
        let mut fresh = probes(world, kind);
        for (which, probes) in [("fresh", &mut fresh), ("cached", &mut cached.probes[kind])] {
            let actual = probes.observe(world, &model.case);
            for (form, (actual, &expected)) in FORMS.iter().zip(actual.iter().zip(&expected)) {
                let form = form.replace("{}", name);
                assert_eq!(actual, expected, "{step}: {which} query {form}");
            }
        }
    }
}

fn spawn(world: &mut World, prefab: bool, values: &[Option<u32>; KINDS]) -> Entity {
    let e = if prefab { world.spawn(Prefab).id() } else { world.spawn_empty().id() };
    for (kind, value) in values.iter().enumerate() {
        if let Some(value) = *value {
            insert(world, e, kind, value);
        }
    }
    e
}

/// Runs `ops` against a world and the model, checking after every step.
fn run(ops: &[Op]) {
    let mut world = World::new();
    world.register_component::<A>();
    world.register_component::<B>();
    world.register_component::<C>();
    world.register_component::<O>();
    world.register_component::<D>();
    world.register_component::<T>();
    world.register_component::<S>();
    world.register_component::<IsA>();
    let mut cached = Cached::new(&mut world);
    let mut model = Model { slots: Default::default(), case: BTreeSet::new() };
    for (i, op) in ops.iter().enumerate() {
        let step = format!("step {i} {op:?}");
        match *op {
            Op::Spawn { prefab, ref values } => {
                let Some(slot) = model.free() else { continue };
                let handle = spawn(&mut world, prefab, values);
                model.spawn(slot, handle, prefab, *values);
            }
            Op::Instantiate { base } => {
                let (Some(slot), Some(base)) = (model.free(), model.pick(base)) else { continue };
                let handle = world.instantiate(model.ent(base).handle);
                model.spawn(slot, handle, false, [None; KINDS]);
                model.add_isa(slot, base);
            }
            Op::SpawnInstance { base, o, a } => {
                let (Some(slot), Some(base)) = (model.free(), model.pick(base)) else { continue };
                let pair = IsA.pair(model.ent(base).handle);
                let handle = match (o, a) {
                    (None, None) => world.spawn(pair).id(),
                    (Some(o), None) => world.spawn((pair, O(o))).id(),
                    (None, Some(a)) => world.spawn((A(a), pair)).id(),
                    (Some(o), Some(a)) => world.spawn((O(o), pair, A(a))).id(),
                };
                let mut values = [None; KINDS];
                values[0] = a;
                values[KIND_O] = o;
                model.spawn(slot, handle, false, values);
                model.add_isa(slot, base);
            }
            Op::AddIsA { entity, base } => {
                let (Some(s), Some(b)) = (model.pick(entity), model.pick(base)) else {
                    continue;
                };
                let (e, target) = (model.ent(s).handle, model.ent(b).handle);
                let result = world.try_add_pair::<IsA>(e, target);
                if model.reaches(b, s) {
                    assert!(
                        matches!(result, Err(PairError::Cycle { .. })),
                        "{step}: (IsA, {target:?}) on {e:?} closes a cycle: {result:?}"
                    );
                } else {
                    assert!(result.is_ok(), "{step}: (IsA, {target:?}) on {e:?}: {result:?}");
                    model.add_isa(s, b);
                }
            }
            Op::RemoveIsA { entity, which } => {
                let Some(s) = model.pick(entity) else { continue };
                let bases = model.ent(s).bases.clone();
                if bases.is_empty() {
                    continue;
                }
                let b = bases[which % bases.len()];
                assert!(world.remove_pair::<IsA>(model.ent(s).handle, model.ent(b).handle), "{step}");
                model.slots[s].as_mut().unwrap().bases.retain(|&x| x != b);
            }
            Op::Insert { entity, kind, value } => {
                let Some(s) = model.pick(entity) else { continue };
                insert(&mut world, model.ent(s).handle, kind, value);
                model.slots[s].as_mut().unwrap().values[kind] = Some(value);
            }
            Op::Remove { entity, kind } => {
                let Some(s) = model.pick(entity) else { continue };
                remove(&mut world, model.ent(s).handle, kind);
                let ent = model.slots[s].as_mut().unwrap();
                ent.values[kind] = None;
                if kind == KIND_T {
                    ent.disabled = false; // the bit is forgotten
                }
            }
            Op::Toggle { entity, enabled } => {
                let Some(s) = model.pick(entity) else { continue };
                let mut target = world.entity_mut(model.ent(s).handle);
                if enabled {
                    target.enable::<T>();
                } else {
                    target.disable::<T>();
                }
                model.toggle(s, enabled);
            }
            Op::Despawn { entity } => {
                let Some(s) = model.pick(entity) else { continue };
                assert!(world.despawn(model.ent(s).handle), "{step}");
                model.despawn(s);
            }
            Op::SetPrefab { entity, prefab } => {
                let Some(s) = model.pick(entity) else { continue };
                let e = model.ent(s).handle;
                if prefab {
                    world.entity_mut(e).insert(Prefab);
                } else {
                    world.entity_mut(e).remove::<Prefab>();
                }
                model.slots[s].as_mut().unwrap().prefab = prefab;
            }
        }
        check(&mut world, &model, &mut cached, &step);
    }
}

/// The number of cases: `default`, or `INHERITANCE_MODEL_CASES` / `MODEL_CASES`.
fn cases(default: u32) -> u32 {
    for var in ["INHERITANCE_MODEL_CASES", "MODEL_CASES"] {
        if let Ok(value) = std::env::var(var) {
            return value.trim().parse().unwrap_or_else(|_| panic!("{var}={value:?} is not a number"));
        }
    }
    default
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(192))]

    /// The documented rules.
    #[test]
    fn inheritance_matches_model(ops in proptest::collection::vec(op(), 1..40)) {
        run(&ops);
    }
}

/// Minimal case shrunk from `inheritance_matches_model`: `x` has two bases,
/// the instance `a` (lower id, owns its own `B`) and `a`'s prefab `p` (with
/// `B(0)`). `a` blocks `p`'s `B` for what `x` reads *through `a`*, but `p` is
/// also a direct base of `x`: by the module docs of `archetype/inheritance.rs`
/// ("an id it owns is not inherited from its own bases; other bases of the
/// instance may still give it") and the `IsA` rustdoc (the middle instance
/// blocks what is read through it), `x` reads `B(0)` from `p`. The walk
/// reaches `p` first beneath `a`, where `B` is blocked, and visits it again
/// for `x`'s own pair, where nothing is (it once skipped it as visited, and
/// `x` got no `B`).
#[test]
fn a_blocking_instance_base_does_not_hide_a_direct_prefab_base() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let p = world.spawn((Prefab, B(0))).id();
    world.add_pair::<IsA>(a, p);
    world.entity_mut(a).insert(B(100));
    let x = world.spawn_empty().add_pair::<IsA>(a).add_pair::<IsA>(p).id();
    assert!(a.index() < p.index(), "a comes first in x's type order, and was added first");
    assert_eq!(world.get::<B>(a), Some(&B(100)), "a owns its B");
    assert_eq!(world.get::<B>(x), Some(&B(0)), "x is a direct instance of the prefab p");
    let rows: Vec<(Entity, u32)> = world.query::<(Entity, &B)>().iter(&world).map(|(e, b)| (e, b.0)).collect();
    assert_eq!(rows.len(), 2, "a and x: {rows:?}");
}

/// The same shape with the ids swapped (the prefab before the instance): `x`
/// reads `B(0)` from `p` too: the order of the ids does not change the outcome.
#[test]
fn a_direct_prefab_base_before_a_blocking_instance_base_gives_its_value() {
    let mut world = World::new();
    let p = world.spawn((Prefab, B(0))).id();
    let a = world.spawn_empty().id();
    world.add_pair::<IsA>(a, p);
    world.entity_mut(a).insert(B(100));
    let x = world.spawn_empty().add_pair::<IsA>(a).add_pair::<IsA>(p).id();
    assert!(p.index() < a.index());
    assert_eq!(world.get::<B>(x), Some(&B(0)));
    world.check_invariants();
}
