//! Review session: adversarial tests for the commits 97a6cba..415ba28
//! ($this bound by ids, runtime `up` through unions evaluated per parent,
//! `TagA($x)` over inherited ids, `Option<&Disabled>`, `has_id` with
//! inheritance, IsA/ChildOf cycles, skipped pipes, sets ordered but
//! intersecting, `#[derive(SystemParam)]` variants). Its findings are fixed:
//! an optional union pair with a variable target yielded each row once per
//! target of its table; `has_id` missed inherited sparse components; a pipe
//! after a skipped pipe ran; `Likes(ent, $this)` yielded disabled and prefab
//! entities.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::DynQuery;
use ecs::schedule::ScheduleBuildError;
use ecs::world::PairError;

// ----------------------------------------------------------------- types

#[derive(Relationship)]
#[relationship(union, traversable, acyclic)]
struct Parent;

#[derive(Relationship)]
#[relationship(exclusive, traversable, acyclic)]
struct FragParent;

#[derive(Relationship)]
#[relationship(union)]
struct Kind;

#[derive(Relationship)]
#[relationship(exclusive)]
struct FragKind;

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
struct Hates;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Sparse(f32);

/// A sparse component nobody has: `?Nope(self|up Parent)` forces row-by-row
/// evaluation without changing the results.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Nope;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(toggle)]
struct Toggled(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Marker;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct U;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct F;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct TagA;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct NoInherit;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Over(u32);

struct Rng(u64);

impl Rng {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

fn register_all(world: &mut World) {
    world.register_component::<Parent>();
    world.register_component::<FragParent>();
    world.register_component::<Kind>();
    world.register_component::<FragKind>();
    world.register_component::<Likes>();
    world.register_component::<Hates>();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Sparse>();
    world.register_component::<Nope>();
    world.register_component::<Toggled>();
    world.register_component::<Marker>();
    world.register_component::<U>();
    world.register_component::<F>();
    world.register_component::<TagA>();
    world.register_component::<NoInherit>();
    world.register_component::<Over>();
}

// ------------------------------------------------------------ twin worlds

/// Each node exists twice: with the union `Parent`/`Kind` (tag `U`) and with
/// the fragmenting `FragParent`/`FragKind` (tag `F`).
struct Twin {
    world: World,
    u: Vec<Entity>,
    f: Vec<Entity>,
    kinds: Vec<Entity>,
    map: HashMap<Entity, i64>,
    rng: Rng,
}

impl Twin {
    fn new(seed: u64, n: usize) -> Twin {
        let mut world = World::new();
        register_all(&mut world);
        let kinds: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
        let mut twin = Twin { world, u: vec![], f: vec![], kinds, map: HashMap::new(), rng: Rng(seed) };
        for (k, &e) in twin.kinds.clone().iter().enumerate() {
            twin.map.insert(e, 1000 + k as i64);
        }
        for i in 0..n {
            let u = twin.world.spawn(U).id();
            let f = twin.world.spawn(F).id();
            twin.map.insert(u, i as i64);
            twin.map.insert(f, i as i64);
            twin.u.push(u);
            twin.f.push(f);
            twin.decorate(i);
            if i >= 4 {
                let parent = twin.rng.next(i as u64) as usize;
                twin.set_parent(i, parent);
            }
            let kind = twin.rng.next(4) as usize;
            if kind < 3 {
                twin.set_kind(i, kind);
            }
        }
        twin
    }

    fn decorate(&mut self, i: usize) {
        let v = i as f32;
        let pos = self.rng.next(3) == 0;
        let vel = self.rng.next(3) == 0;
        let sparse = self.rng.next(2) == 0;
        let toggled = self.rng.next(3);
        let marker = self.rng.next(3) != 0;
        for e in [self.u[i], self.f[i]] {
            let mut em = self.world.entity_mut(e);
            if pos {
                em.insert(Position(v));
            }
            if vel {
                em.insert(Velocity(v + 0.5));
            }
            if sparse {
                em.insert(Sparse(v + 0.25));
            }
            if toggled > 0 {
                em.insert(Toggled(v + 0.75));
                if toggled == 2 {
                    em.disable::<Toggled>();
                }
            }
            if marker {
                em.insert(Marker);
            }
        }
    }

    fn set_parent(&mut self, child: usize, parent: usize) {
        self.world.add_pair::<Parent>(self.u[child], self.u[parent]);
        self.world.add_pair::<FragParent>(self.f[child], self.f[parent]);
    }

    fn set_kind(&mut self, i: usize, kind: usize) {
        self.world.add_pair::<Kind>(self.u[i], self.kinds[kind]);
        self.world.add_pair::<FragKind>(self.f[i], self.kinds[kind]);
    }

    fn m(&self, e: Entity) -> i64 {
        self.map.get(&e).copied().unwrap_or(-1)
    }

    /// Random changes applied to both twins alike.
    fn mutate(&mut self, steps: usize) {
        let n = self.u.len();
        for _ in 0..steps {
            let i = self.rng.next(n as u64) as usize;
            match self.rng.next(7) {
                0 if i >= 1 => {
                    let parent = self.rng.next(i as u64) as usize;
                    self.set_parent(i, parent);
                }
                1 => {
                    let kind = self.rng.next(3) as usize;
                    self.set_kind(i, kind);
                }
                2 => {
                    for e in [self.u[i], self.f[i]] {
                        if self.world.get::<Sparse>(e).is_some() {
                            self.world.entity_mut(e).remove::<Sparse>();
                        } else {
                            self.world.entity_mut(e).insert(Sparse(i as f32 + 100.0));
                        }
                    }
                }
                3 => {
                    for e in [self.u[i], self.f[i]] {
                        if self.world.get::<Position>(e).is_some() {
                            self.world.entity_mut(e).remove::<Position>();
                        } else {
                            self.world.entity_mut(e).insert(Position(i as f32 + 200.0));
                        }
                    }
                }
                4 => {
                    let flip = self.rng.next(2) == 0;
                    for e in [self.u[i], self.f[i]] {
                        if self.world.get::<Toggled>(e).is_some() || self.world.entity(e).contains::<Toggled>() {
                            if flip {
                                self.world.entity_mut(e).disable::<Toggled>();
                            } else {
                                self.world.entity_mut(e).enable::<Toggled>();
                            }
                        }
                    }
                }
                5 => {
                    for e in [self.u[i], self.f[i]] {
                        if self.world.get::<Marker>(e).is_some() {
                            self.world.entity_mut(e).remove::<Marker>();
                        } else {
                            self.world.entity_mut(e).insert(Marker);
                        }
                    }
                }
                _ => {
                    // A new leaf under a random node.
                    let parent = self.rng.next(n as u64) as usize;
                    let index = self.u.len();
                    let u = self.world.spawn(U).id();
                    let f = self.world.spawn(F).id();
                    self.map.insert(u, index as i64);
                    self.map.insert(f, index as i64);
                    self.u.push(u);
                    self.f.push(f);
                    self.decorate(index);
                    self.set_parent(index, parent);
                }
            }
        }
    }
}

type Sig = (i64, Vec<(bool, i64, i64, Option<u32>)>, Vec<i64>);

macro_rules! row_sig {
    ($twin:expr, $row:expr, $n:expr, $vars:expr) => {{
        let row = &$row;
        let mut terms = Vec::new();
        for i in 0..$n {
            let set = row.is_set(i);
            let (source, target, value) = if set {
                let value = row
                    .get::<Position>(i)
                    .map(|v| v.0)
                    .or_else(|| row.get::<Velocity>(i).map(|v| v.0))
                    .or_else(|| row.get::<Sparse>(i).map(|v| v.0))
                    .or_else(|| row.get::<Toggled>(i).map(|v| v.0))
                    .map(f32::to_bits);
                ($twin.m(row.source(i)), row.try_pair_target(i).map_or(-2, |t| $twin.m(t)), value)
            } else {
                (-3, -3, None)
            };
            terms.push((set, source, target, value));
        }
        let vars: Vec<i64> = $vars.iter().map(|v: &&str| row.var(v).map_or(-4, |e| $twin.m(e))).collect();
        ($twin.m(row.entity()), terms, vars)
    }};
}

fn sigs(twin: &Twin, q: &mut DynQuery, n: usize, vars: &[&str]) -> Vec<Sig> {
    let mut out: Vec<Sig> = q.iter(&twin.world).map(|row| row_sig!(twin, row, n, vars)).collect();
    out.sort();
    out
}

fn sigs_mut(twin: &mut Twin, q: &mut DynQuery, n: usize, vars: &[&str]) -> Vec<Sig> {
    let map = twin.map.clone();
    let view = MapView(map);
    let mut out = Vec::new();
    let mut it = q.iter_mut(&mut twin.world);
    while let Some(row) = it.fetch_next() {
        out.push(row_sig!(view, row, n, vars));
    }
    out.sort();
    out
}

struct MapView(HashMap<Entity, i64>);
impl MapView {
    fn m(&self, e: Entity) -> i64 {
        self.0.get(&e).copied().unwrap_or(-1)
    }
}

fn side(text: &str, union: bool) -> String {
    if union {
        text.replace("REL", "Parent").replace("KIND", "Kind").replace("SIDE", "U")
    } else {
        text.replace("REL", "FragParent").replace("KIND", "FragKind").replace("SIDE", "F")
    }
}

const TWIN_QUERIES: &[(&str, &[&str])] = &[
    ("SIDE, Marker, Position(up REL)", &[]),
    ("SIDE, Marker, Sparse, Position(up REL)", &[]),
    ("SIDE, Marker, ?Sparse, Position(up REL)", &[]),
    ("SIDE, Marker, !Sparse, Position(up REL)", &[]),
    ("SIDE, Toggled, Position(up REL)", &[]),
    ("SIDE, ?Toggled, Position(up REL)", &[]),
    ("SIDE, !Toggled, Position(up REL)", &[]),
    ("SIDE, (KIND, *), Position(up REL)", &[]),
    ("SIDE, (KIND, $k), Velocity(up REL)", &["k"]),
    ("SIDE, !(KIND, *), Position(up REL)", &[]),
    ("SIDE, (REL, *), Position(up REL)", &[]),
    ("SIDE, (REL, $p), Position(up REL)", &["p"]),
    ("SIDE, (REL, $p), Position($p), Velocity(up REL)", &["p"]),
    ("SIDE, Marker, ?Position(up REL)", &[]),
    ("SIDE, Marker, !Position(up REL)", &[]),
    ("SIDE, Position(up REL), Velocity(up REL)", &[]),
    ("SIDE, Position(self|up REL)", &[]),
    ("SIDE, Sparse(up REL), Marker", &[]),
    ("SIDE, Toggled(up REL)", &[]),
    ("SIDE, Position(up REL) || Velocity(up REL)", &[]),
    ("SIDE, Position(up REL), Sparse, Toggled, (KIND, $k)", &["k"]),
    ("SIDE, Position(up REL), Marker($k), (KIND, $k)", &["k"]),
    ("SIDE, Position(up REL), ?Sparse(up REL)", &[]),
    ("SIDE, Velocity(up REL), !Sparse(up REL), ?Marker", &[]),
];

/// Runs every twin query on both sides (cached, uncached, row-by-row forced,
/// `iter_mut`, `count`, `iter_tables`) and returns the mismatches.
fn compare_twin(twin: &mut Twin, cached: &mut [(DynQuery, DynQuery)], label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (index, &(text, vars)) in TWIN_QUERIES.iter().enumerate() {
        let ut = side(text, true);
        let ft = side(text, false);
        let n = ut.matches(',').count() + 1 - ut.matches("||").count();
        let n = {
            // Count terms via the query itself.
            let q = twin.world.query_dsl(&ut).unwrap();
            let _ = n;
            q.terms().len()
        };
        let mut fq = twin.world.query_dsl_uncached(&ft).unwrap_or_else(|e| panic!("{ft}: {e}"));
        let oracle = sigs(twin, &mut fq, n, vars);
        let mut uq = twin.world.query_dsl_uncached(&ut).unwrap_or_else(|e| panic!("{ut}: {e}"));
        let fresh_uncached = sigs(twin, &mut uq, n, vars);
        let mut uc = twin.world.query_dsl(&ut).unwrap();
        let fresh_cached = sigs(twin, &mut uc, n, vars);
        let forced_text = format!("{ut}, ?Nope(self|up Parent)");
        let mut forced = twin.world.query_dsl_uncached(&forced_text).unwrap_or_else(|e| panic!("{forced_text}: {e}"));
        let forced_rows = sigs(twin, &mut forced, n, vars);
        let (kept_u, kept_f) = &mut cached[index];
        let kept_cached = sigs(twin, kept_u, n, vars);
        let kept_f_rows = sigs(twin, kept_f, n, vars);
        let mutable = sigs_mut(twin, &mut uq, n, vars);
        let count = uc.count(&twin.world);
        let tables: usize =
            uc.iter_tables(&twin.world).map(|t| (0..t.len()).filter(|&r| t.row_matches(r)).count()).sum();
        let checks = [
            ("union uncached", &fresh_uncached),
            ("union cached (fresh)", &fresh_cached),
            ("union row-by-row forced", &forced_rows),
            ("union cached (kept across mutations)", &kept_cached),
            ("frag cached (kept)", &kept_f_rows),
            ("union iter_mut", &mutable),
        ];
        for (what, got) in checks {
            if *got != oracle {
                let missing: Vec<_> = oracle.iter().filter(|s| !got.contains(s)).take(3).collect();
                let extra: Vec<_> = got.iter().filter(|s| !oracle.contains(s)).take(3).collect();
                problems.push(format!(
                    "[{label}] {ut:?}: {what}: {} rows vs fragmenting twin {}; missing e.g. {missing:?}; extra e.g. \
                     {extra:?}",
                    got.len(),
                    oracle.len()
                ));
            }
        }
        if count != oracle.len() || tables != oracle.len() {
            problems.push(format!(
                "[{label}] {ut:?}: count {count}, iter_tables rows {tables}, twin rows {}",
                oracle.len()
            ));
        }
    }
    problems
}

fn kept_queries(twin: &Twin) -> Vec<(DynQuery, DynQuery)> {
    TWIN_QUERIES
        .iter()
        .map(|(text, _)| {
            (twin.world.query_dsl(&side(text, true)).unwrap(), twin.world.query_dsl(&side(text, false)).unwrap())
        })
        .collect()
}

#[test]
fn union_up_each_parent_matches_fragmenting_twin_random() {
    let mut all = Vec::new();
    for seed in [1u64, 7, 42, 1234, 99991] {
        let mut twin = Twin::new(seed, 40);
        let mut kept = kept_queries(&twin);
        for round in 0..4 {
            all.extend(compare_twin(&mut twin, &mut kept, &format!("seed {seed} round {round}")));
            twin.mutate(15);
        }
    }
    assert!(all.is_empty(), "{} mismatches:\n{}", all.len(), all.join("\n"));
}

/// Siblings under one parent with different per-row state: each row gets its
/// own values, none is duplicated.
#[test]
fn union_up_each_parent_siblings_keep_their_own_row_values() {
    let mut world = World::new();
    register_all(&mut world);
    let root = world.spawn(Position(1.0)).id();
    let parent = world.spawn(Velocity(9.0)).add_pair::<Parent>(root).id();
    let kinds: Vec<Entity> = (0..2).map(|_| world.spawn_empty().id()).collect();
    let mut children = Vec::new();
    for i in 0..6 {
        let mut em = world.spawn(Marker);
        if i % 2 == 0 {
            em.insert(Sparse(i as f32));
        }
        em.insert(Toggled(i as f32));
        let c = em.add_pair::<Parent>(parent).id();
        if i % 3 == 0 {
            world.entity_mut(c).disable::<Toggled>();
        }
        world.add_pair::<Kind>(c, kinds[i % 2]);
        children.push(c);
    }
    let cases: Vec<(&str, BTreeSet<Entity>)> = vec![
        ("Marker, Sparse, Position(up Parent)", children.iter().copied().step_by(2).collect()),
        ("Marker, !Sparse, Position(up Parent)", children.iter().copied().skip(1).step_by(2).collect()),
        (
            "Marker, Toggled, Position(up Parent)",
            children.iter().enumerate().filter(|(i, _)| i % 3 != 0).map(|(_, &c)| c).collect(),
        ),
        ("Marker, (Kind, *), Position(up Parent)", children.iter().copied().collect()),
    ];
    for (text, expected) in cases {
        for mut q in [world.query_dsl(text).unwrap(), world.query_dsl_uncached(text).unwrap()] {
            let rows: Vec<Entity> = q.iter(&world).map(|r| r.entity()).collect();
            let set: BTreeSet<Entity> = rows.iter().copied().collect();
            assert_eq!(rows.len(), set.len(), "{text}: duplicated rows {rows:?}");
            assert_eq!(set, expected, "{text}");
        }
    }
    // Each row's Sparse and Kind target are its own.
    let mut q = world.query_dsl("Marker, ?Sparse, (Kind, $k), Position(up Parent)").unwrap();
    let got: BTreeMap<Entity, (Option<f32>, Option<Entity>, f32)> = q
        .iter(&world)
        .map(|r| (r.entity(), (r.get::<Sparse>(1).map(|s| s.0), r.var("k"), r.get::<Position>(3).unwrap().0)))
        .collect();
    for (i, &c) in children.iter().enumerate() {
        let sparse = (i % 2 == 0).then_some(i as f32);
        assert_eq!(got.get(&c), Some(&(sparse, Some(kinds[i % 2]), 1.0)), "child {i}");
    }
}

/// Retargeting a union pair between iterations of a kept cached query.
#[test]
fn union_up_cached_query_follows_retargets_and_new_rows() {
    let mut world = World::new();
    register_all(&mut world);
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn(Position(2.0)).id();
    let c = world.spawn_empty().id();
    let kids: Vec<Entity> = (0..5).map(|_| world.spawn((Marker, Sparse(0.0))).add_pair::<Parent>(a).id()).collect();
    let mut q = world.query_dsl("Marker, Sparse, Position(up Parent)").unwrap();
    let read = |q: &mut DynQuery, world: &World| -> BTreeMap<Entity, f32> {
        let rows: Vec<(Entity, f32)> = q.iter(world).map(|r| (r.entity(), r.get::<Position>(2).unwrap().0)).collect();
        let map: BTreeMap<Entity, f32> = rows.iter().copied().collect();
        assert_eq!(map.len(), rows.len(), "duplicate rows {rows:?}");
        map
    };
    assert_eq!(read(&mut q, &world).len(), 5);
    world.add_pair::<Parent>(kids[1], b);
    world.add_pair::<Parent>(kids[3], c);
    let got = read(&mut q, &world);
    assert_eq!(got.get(&kids[1]), Some(&2.0));
    assert!(!got.contains_key(&kids[3]));
    assert_eq!(got.len(), 4);
    world.entity_mut(c).insert(Position(3.0));
    world.entity_mut(kids[0]).remove::<Sparse>();
    let got = read(&mut q, &world);
    assert_eq!(got.get(&kids[3]), Some(&3.0));
    assert!(!got.contains_key(&kids[0]));
    let late = world.spawn((Marker, Sparse(1.0))).add_pair::<Parent>(c).id();
    let got = read(&mut q, &world);
    assert_eq!(got.get(&late), Some(&3.0));
    assert_eq!(got.len(), 5);
}

// ------------------------------------------------ $this bound by the ids

struct Social {
    world: World,
    ents: Vec<Entity>,
}

fn social(seed: u64) -> Social {
    let mut world = World::new();
    register_all(&mut world);
    let mut rng = Rng(seed);
    let ent = world.spawn(Name::new("ent")).id();
    let mut ents = vec![ent];
    for _ in 0..14 {
        ents.push(world.spawn_empty().id());
    }
    for &e in &ents {
        if rng.next(2) == 0 {
            world.entity_mut(e).insert(TagA);
        }
        if rng.next(3) == 0 {
            world.entity_mut(e).insert(Position(1.0));
        }
    }
    for &a in &ents {
        for &b in &ents {
            if rng.next(4) == 0 {
                world.add_pair::<Likes>(a, b);
            }
            if rng.next(6) == 0 {
                world.add_pair::<Hates>(a, b);
            }
        }
    }
    Social { world, ents }
}

/// `Q($this)` with `$this` only in ids against the same query with a plain
/// variable `$t`: the rows' entities are `$t`'s bindings.
#[test]
fn this_bound_by_ids_matches_plain_variable_oracle() {
    let queries: &[(&str, &[&str])] = &[
        ("Likes(ent, $this)", &[]),
        ("Likes($x, $this)", &["x"]),
        ("Likes($x, $this), TagA($x)", &["x"]),
        ("Likes(ent, $this), !Hates(ent, $this)", &[]),
        ("Likes(ent, $this), Hates(ent, $this)", &[]),
        ("Likes(ent, $this), ?Hates(ent, $this)", &[]),
        ("Likes(ent, $this), Likes($x, $this)", &["x"]),
        ("Likes(ent, $this), Hates($x, $this), !TagA($x)", &["x"]),
        ("Likes(ent, $this) || Hates(ent, $this)", &[]),
        ("Likes(ent, $x), Likes($x, $this)", &["x"]),
        ("Likes($this, $this)", &[]),
        ("Likes(ent, $this), Likes($this, ent)", &[]),
        ("Likes(ent, $this), TagA($this)", &[]),
        ("Likes(ent, $this), !TagA($this)", &[]),
        ("Likes(ent, $this), ?Position($this)", &[]),
        ("*(ent, $this)", &[]),
        ("Likes(ent, $this), Hates($this, $y)", &["y"]),
    ];
    let mut problems = Vec::new();
    for seed in [3u64, 17, 555] {
        let mut s = social(seed);
        for round in 0..2 {
            for &(text, vars) in queries {
                let oracle_text = text.replace("$this", "$t");
                // Row-bound queries (a term on $this) hide nothing here (no prefabs, no disabled).
                let mut oracle_q = match s.world.query_dsl_uncached(&oracle_text) {
                    Ok(q) => q,
                    Err(e) => panic!("{oracle_text}: {e}"),
                };
                let mut expected: Vec<(Entity, Vec<Option<Entity>>)> = oracle_q
                    .iter(&s.world)
                    .map(|r| (r.var("t").unwrap(), vars.iter().map(|v| r.var(v)).collect()))
                    .collect();
                expected.sort();
                // Flecs dedups nothing: `$this` rows are one per solution.
                for cached in [true, false] {
                    let built = if cached { s.world.query_dsl(text) } else { s.world.query_dsl_uncached(text) };
                    let mut q = match built {
                        Ok(q) => q,
                        Err(e) => {
                            problems.push(format!("{text}: refused: {e}"));
                            continue;
                        }
                    };
                    let mut got: Vec<(Entity, Vec<Option<Entity>>)> =
                        q.iter(&s.world).map(|r| (r.entity(), vars.iter().map(|v| r.var(v)).collect())).collect();
                    got.sort();
                    if got != expected {
                        problems.push(format!(
                            "seed {seed} round {round} {text:?} cached={cached}: {} rows, oracle {} rows",
                            got.len(),
                            expected.len()
                        ));
                    }
                    let count = q.count(&s.world);
                    let tables: usize =
                        q.iter_tables(&s.world).map(|t| (0..t.len()).filter(|&r| t.row_matches(r)).count()).sum();
                    let mut muts = 0;
                    {
                        let mut it = q.iter_mut(&mut s.world);
                        while it.fetch_next().is_some() {
                            muts += 1;
                        }
                    }
                    let mut each = 0;
                    q.iter_mut(&mut s.world).for_each(|_| each += 1);
                    if [count, tables, muts, each] != [expected.len(); 4] {
                        problems.push(format!(
                            "seed {seed} {text:?} cached={cached}: count {count} tables {tables} iter_mut {muts} \
                             for_each {each}, oracle {}",
                            expected.len()
                        ));
                    }
                }
            }
            // Change the pairs and go again (kept nothing: fresh queries).
            let ents = s.ents.clone();
            for (i, &a) in ents.iter().enumerate() {
                let b = ents[(i * 7 + 1) % ents.len()];
                if i % 3 == 0 && s.world.is_alive(a) && s.world.is_alive(b) {
                    s.world.add_pair::<Likes>(a, b);
                }
                if i % 4 == 0 && s.world.is_alive(ents[(i + 5) % ents.len()]) && (i + 5) % ents.len() != 0 {
                    s.world.despawn(ents[(i + 5) % ents.len()]);
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// A kept cached `$this`-bound-by-ids query follows pair changes.
#[test]
fn this_bound_by_ids_cached_follows_changes() {
    let mut world = World::new();
    register_all(&mut world);
    let ent = world.spawn(Name::new("ent")).id();
    let a = world.spawn(Position(1.0)).id();
    let b = world.spawn_empty().id();
    let mut q = world.query_dsl("Likes(ent, $this)").unwrap();
    assert_eq!(q.count(&world), 0);
    world.add_pair::<Likes>(ent, a);
    let rows: Vec<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, vec![a]);
    world.add_pair::<Likes>(ent, b);
    world.add_pair::<Likes>(ent, ent);
    let rows: BTreeSet<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, [a, b, ent].into());
    world.despawn(a);
    let rows: BTreeSet<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, [b, ent].into());
    // A moved entity (new table) keeps its row.
    world.entity_mut(b).insert(Velocity(1.0));
    let rows: BTreeSet<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, [b, ent].into());
}

/// The error: only optional / not terms name `$this`.
#[test]
fn this_in_id_only_in_optional_or_not_terms_is_refused() {
    let mut world = World::new();
    register_all(&mut world);
    world.spawn(Name::new("ent"));
    for text in ["TagA($x), ?Likes($x, $this)", "TagA($x), !Likes($x, $this)", "?Likes(ent, $this)"] {
        assert!(world.query_dsl(text).is_err(), "{text}");
        assert!(world.query_dsl_uncached(text).is_err(), "{text}");
    }
}

/// A query with `$this` only in ids that is a write can't be (writes are on
/// `$this`); reading `$this`-bound rows in a system through `iter` is fine.
/// Disabled and prefab targets: a row-bound query hides them; the
/// id-bound form is compared with the same query plus a `$this` term that
/// matches everything (`?Position`).
#[test]
fn this_bound_by_ids_and_hidden_entities() {
    let mut world = World::new();
    register_all(&mut world);
    let ent = world.spawn(Name::new("ent")).id();
    let plain = world.spawn_empty().id();
    let disabled = world.spawn(Disabled).id();
    let prefab = world.spawn(Prefab).id();
    for t in [plain, disabled, prefab] {
        world.add_pair::<Likes>(ent, t);
    }
    let mut bound = world.query_dsl("Likes(ent, $this)").unwrap();
    let got: BTreeSet<Entity> = bound.iter(&world).map(|r| r.entity()).collect();
    let mut row_bound = world.query_dsl("Likes(ent, $this), ?Position").unwrap();
    let expected: BTreeSet<Entity> = row_bound.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(expected, [plain].into(), "the row-bound form hides disabled entities and prefabs");
    assert_eq!(got, expected, "the id-bound form should hide the same entities as the row-bound form");
}

// ----------------------------------------- TagA($x) over inherited ids

#[test]
fn unbound_variable_source_sees_inherited_like_this_queries() {
    let mut world = World::new();
    register_all(&mut world);
    let prefab = world.spawn((Prefab, TagA, NoInherit, Over(1), Position(1.0))).id();
    let base2 = world.spawn((Prefab, TagA)).id();
    let plain_base = world.spawn((TagA, Velocity(1.0))).id();
    let i1 = world.spawn_empty().add_pair::<IsA>(prefab).id();
    let i2 = world.spawn(TagA).add_pair::<IsA>(prefab).id();
    let i3 = world.spawn_empty().add_pair::<IsA>(prefab).add_pair::<IsA>(base2).id();
    let i4 = world.spawn_empty().add_pair::<IsA>(plain_base).id();
    let sub = world.spawn(Prefab).add_pair::<IsA>(prefab).id();
    let i5 = world.spawn_empty().add_pair::<IsA>(sub).id();
    let disabled_instance = world.spawn(Disabled).add_pair::<IsA>(prefab).id();
    let _ = (i1, i2, i3, i4, i5, disabled_instance);
    for comp in ["TagA", "NoInherit", "Over", "Position", "Velocity"] {
        let mut this_q = world.query_dsl_uncached(comp).unwrap();
        let mut this_rows: Vec<Entity> = this_q.iter(&world).map(|r| r.entity()).collect();
        this_rows.sort();
        for cached in [false, true] {
            let text = format!("{comp}($x)");
            let mut var_q = if cached { world.query_dsl(&text) } else { world.query_dsl_uncached(&text) }.unwrap();
            let mut var_rows: Vec<Entity> = var_q.iter(&world).map(|r| r.var("x").unwrap()).collect();
            var_rows.sort();
            assert_eq!(var_rows, this_rows, "{text} (cached {cached}) vs {comp}");
        }
        // And has_id agrees with the $this query for every entity.
        let id = match comp {
            "TagA" => world.component_id::<TagA>(),
            "NoInherit" => world.component_id::<NoInherit>(),
            "Over" => world.component_id::<Over>(),
            "Position" => world.component_id::<Position>(),
            _ => world.component_id::<Velocity>(),
        }
        .unwrap();
        for e in [i1, i2, i3, i4, i5] {
            assert_eq!(world.has_id(e, id.id()), this_rows.contains(&e), "has_id({e:?}, {comp})");
        }
    }
}

// ---------------------------------------------------- Option<&Disabled>

#[test]
fn option_disabled_hides_but_with_disabled_shows() {
    let mut world = World::new();
    register_all(&mut world);
    let live = world.spawn(Marker).id();
    let off = world.spawn((Marker, Disabled)).id();
    let prefab = world.spawn((Marker, Prefab)).id();
    let mut q = world.query::<(Entity, Option<&Disabled>)>();
    let seen: BTreeSet<Entity> = q.iter(&world).map(|(e, _)| e).filter(|e| [live, off, prefab].contains(e)).collect();
    assert_eq!(seen, [live].into());
    let mut q = world.query_filtered::<(Entity, Option<&Disabled>), With<Disabled>>();
    let seen: Vec<(Entity, bool)> = q.iter(&world).map(|(e, d)| (e, d.is_some())).collect();
    assert_eq!(seen, vec![(off, true)]);
    let mut q = world.query::<(Entity, Has<Disabled>)>();
    let seen: BTreeSet<(Entity, bool)> = q.iter(&world).filter(|(e, _)| [live, off, prefab].contains(e)).collect();
    assert_eq!(seen, [(live, false), (off, true)].into());
    // Option of Has: the Has inside still names Disabled? Option names nothing.
    let mut q = world.query::<(Entity, Option<&Prefab>, Option<&Disabled>)>();
    let seen: BTreeSet<Entity> =
        q.iter(&world).map(|(e, _, _)| e).filter(|e| [live, off, prefab].contains(e)).collect();
    assert_eq!(seen, [live].into());
    // Runtime ?Disabled still sees them.
    let mut rq = world.query_dsl("Marker, ?Disabled").unwrap();
    let seen: BTreeSet<Entity> = rq.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(seen, [live, off].into());
}

// ------------------------------------------------------------- has_id

#[test]
fn has_id_matches_has_and_queries_for_inherited_ids() {
    let mut world = World::new();
    register_all(&mut world);
    let runtime_tag = world.spawn_empty().id();
    let rel = world.spawn_empty().id();
    let tgt = world.spawn_empty().id();
    let prefab = world.spawn((Prefab, TagA, NoInherit, Over(2), Sparse(1.0), Toggled(1.0))).id();
    world.add_id(prefab, runtime_tag.id());
    world.add_id(prefab, Id::pair(rel, tgt));
    world.add_pair::<Likes>(prefab, tgt);
    let inst = world.spawn_empty().add_pair::<IsA>(prefab).id();
    let id = |_w: &World, e: Option<Entity>| e.unwrap().id();
    assert!(world.has_id(inst, id(&world, world.component_id::<TagA>())));
    assert!(!world.has_id(inst, id(&world, world.component_id::<NoInherit>())));
    assert!(world.has_id(inst, id(&world, world.component_id::<Over>())));
    assert!(world.has_id(inst, runtime_tag.id()), "plain tag inherited");
    // Tag pairs are copied into the instance (Flecs 4's default), not inherited.
    assert!(world.has_id(inst, Id::pair(rel, tgt)), "tag pairs copied");
    assert!(world.has_pair::<Likes>(inst, tgt));
    assert!(!world.has_id(inst, id(&world, world.component_id::<Prefab>())), "Prefab not inherited");
    // Sparse and toggle: has_id agrees with has::<T> and with a query.
    let sparse = id(&world, world.component_id::<Sparse>());
    let mut q = world.query_dsl("Sparse").unwrap();
    let queried = q.iter(&world).any(|r| r.entity() == inst);
    let typed = world.query::<(Entity, &Sparse)>().iter(&world).any(|(e, _)| e == inst);
    assert_eq!(
        (
            world.has_id(inst, sparse),
            world.entity(inst).contains::<Sparse>(),
            world.get::<Sparse>(inst).is_some(),
            queried,
            typed
        ),
        (true, true, true, true, true),
        "inherited sparse component: (has_id, contains, get, runtime query, typed query)"
    );
    world.entity_mut(prefab).disable::<Toggled>();
    let toggled = id(&world, world.component_id::<Toggled>());
    let mut q = world.query_dsl("Toggled").unwrap();
    let queried = q.iter(&world).any(|r| r.entity() == inst);
    assert_eq!(world.has_id(inst, toggled), world.entity(inst).contains::<Toggled>(), "toggle: has_id vs contains");
    let _ = queried;
    // Query by the runtime tag sees the instance too.
    let mut q = world.query_builder().with(runtime_tag).build().unwrap();
    let queried = q.iter(&world).any(|r| r.entity() == inst);
    assert!(queried, "a query on the plain tag sees the instance that inherits it");
    // Removing the tag from the prefab: gone on the instance.
    world.remove_id(prefab, runtime_tag.id());
    assert!(!world.has_id(inst, runtime_tag.id()));
    // Adding it to the instance itself (owned) works although it was inherited.
    world.add_id(prefab, runtime_tag.id());
    assert!(world.add_id(inst, runtime_tag.id()) || world.has_id(inst, runtime_tag.id()));
    world.remove_id(prefab, runtime_tag.id());
    assert!(world.has_id(inst, runtime_tag.id()), "an owned copy survives its removal from the prefab");
}

/// Adding an id the entity only inherits still adds it (own copy).
#[test]
fn add_id_of_an_inherited_tag_gives_an_own_copy() {
    let mut world = World::new();
    register_all(&mut world);
    let tag = world.spawn_empty().id();
    let prefab = world.spawn(Prefab).id();
    world.add_id(prefab, tag.id());
    let inst = world.spawn_empty().add_pair::<IsA>(prefab).id();
    assert!(world.has_id(inst, tag.id()));
    world.add_id(inst, tag.id());
    world.remove_pair::<IsA>(inst, prefab);
    assert!(world.has_id(inst, tag.id()), "add_id on an inheriting entity must own the id");
    let inst2 = world.spawn_empty().add_pair::<IsA>(prefab).id();
    world.entity_mut(inst2).insert(TagA);
    world.add_id(prefab, world.component_id::<TagA>().unwrap().id());
    world.remove_pair::<IsA>(inst2, prefab);
    assert!(world.entity(inst2).contains::<TagA>());
}

/// Plain base (not a prefab): has_id sees nothing inherited (values are read
/// from prefabs only) and agrees with queries.
#[test]
fn has_id_plain_base_agrees_with_queries() {
    let mut world = World::new();
    register_all(&mut world);
    let tag = world.spawn(Name::new("RtTag")).id();
    let base = world.spawn(TagA).id();
    world.add_id(base, tag.id());
    let inst = world.spawn_empty().add_pair::<IsA>(base).id();
    for (text, id) in [("TagA", world.component_id::<TagA>().unwrap().id()), ("RtTag", tag.id())] {
        let mut q = world.query_dsl(text).unwrap();
        let queried = q.iter(&world).any(|r| r.entity() == inst);
        assert_eq!(world.has_id(inst, id), queried, "{text}: has_id vs query (plain base)");
    }
    // The base becomes a prefab afterwards.
    world.entity_mut(base).insert(Prefab);
    for (text, id) in [("TagA", world.component_id::<TagA>().unwrap().id()), ("RtTag", tag.id())] {
        let mut q = world.query_dsl(text).unwrap();
        let queried = q.iter(&world).any(|r| r.entity() == inst);
        assert_eq!(world.has_id(inst, id), queried, "{text}: has_id vs query (prefab base)");
    }
}

/// Relationship entities and internal entities as plain ids on prefabs.
#[test]
fn is_inherited_id_internal_and_relationship_entities() {
    let mut world = World::new();
    register_all(&mut world);
    let prefab = world.spawn(Prefab).id();
    let inst = world.spawn_empty().add_pair::<IsA>(prefab).id();
    // A relationship type used as a plain tag.
    let likes = world.component_id::<Likes>().unwrap();
    world.add_id(prefab, likes.id());
    let mut q = world.query_dsl("Likes").unwrap();
    let queried = q.iter(&world).any(|r| r.entity() == inst);
    assert_eq!(world.has_id(inst, likes.id()), queried, "relationship as tag: has_id vs query");
    // Built-in marker components never pass on.
    assert!(!world.has_id(inst, world.component_id::<Prefab>().unwrap().id()));
    world.entity_mut(prefab).insert(Disabled);
    assert!(!world.has_id(inst, world.component_id::<Disabled>().unwrap().id()), "Disabled inherited");
    let mut q = world.query::<Entity>();
    assert!(q.iter(&world).any(|e| e == inst), "an instance of a disabled prefab is not disabled");
}

// ------------------------------------------------ IsA / ChildOf cycles

#[test]
fn isa_of_a_childof_ancestor_is_a_cycle_at_any_depth() {
    let mut world = World::new();
    let mut chain = vec![world.spawn(Prefab).id()];
    for _ in 0..20 {
        let parent = *chain.last().unwrap();
        chain.push(world.spawn_empty().add_pair::<ChildOf>(parent).id());
    }
    let leaf = *chain.last().unwrap();
    for &ancestor in &chain[..chain.len() - 1] {
        let result = world.try_add_pair::<IsA>(leaf, ancestor);
        assert!(
            matches!(result, Err(PairError::AncestorInstance { source, base, .. }) if source == leaf && base == ancestor),
            "{result:?}"
        );
    }
    // A sibling subtree's node is fine.
    let other = world.spawn(Prefab).id();
    assert!(world.try_add_pair::<IsA>(leaf, other).is_ok());
    // Not an ancestor: a descendant as base (Flecs allows it).
    let root_instance_base = chain[5];
    let _ = world.try_add_pair::<IsA>(chain[0], root_instance_base);
}

/// ChildOf added after IsA: the instance becomes a child of its own base;
/// whatever is decided, instantiating the prefab again terminates.
#[test]
fn childof_after_isa_is_refused_or_harmless() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, TagA)).id();
    let _kid = world.spawn(Position(1.0)).add_pair::<ChildOf>(prefab).id();
    let inst = world.spawn_empty().add_pair::<IsA>(prefab).id();
    let _ = world.try_add_pair::<ChildOf>(inst, prefab);
    // Whatever was decided, instantiating the prefab again must terminate.
    let again = world.instantiate(prefab);
    let again2 = world.spawn_empty().add_pair::<IsA>(prefab).id();
    assert!(world.is_alive(again) && world.is_alive(again2));
    world.check_invariants();
}

/// Both orders: IsA then ChildOf on a deeper descendant.
#[test]
fn childof_after_isa_deep_is_refused_or_harmless() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    let mid = world.spawn_empty().add_pair::<ChildOf>(prefab).id();
    let inst = world.spawn_empty().add_pair::<IsA>(prefab).id();
    let _ = world.try_add_pair::<ChildOf>(inst, mid);
    let again = world.instantiate(prefab);
    assert!(world.is_alive(again));
    world.check_invariants();
}

/// Only prefab bases instantiate children; a base that becomes a prefab later.
#[test]
fn only_prefab_bases_instantiate_children() {
    let mut world = World::new();
    let base = world.spawn_empty().id();
    world.spawn(Position(1.0)).add_pair::<ChildOf>(base);
    let i1 = world.spawn_empty().add_pair::<IsA>(base).id();
    assert_eq!(world.children(i1).count(), 0);
    world.entity_mut(base).insert(Prefab);
    let i2 = world.spawn_empty().add_pair::<IsA>(base).id();
    let kids: Vec<Entity> = world.children(i2).collect();
    assert_eq!(kids.len(), 1, "a prefab base's child is instantiated");
}

// ------------------------------------------ SetsHaveOrderButIntersect

#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
enum Sets {
    A,
    B,
    C,
    P,
    Q,
}

fn sys_a() {}
fn sys_b() {}

#[test]
fn sets_order_intersect_via_chain() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(sys_a.in_set(Sets::A).in_set(Sets::B));
    schedule.configure_sets((Sets::A, Sets::B).chain());
    let result = schedule.initialize(&mut world);
    assert!(matches!(result, Err(ScheduleBuildError::SetsHaveOrderButIntersect { .. })), "{result:?}");
}

#[test]
fn sets_order_intersect_reverse_direction() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(sys_a.in_set(Sets::A).in_set(Sets::B));
    schedule.configure_sets(Sets::A.after(Sets::B));
    let result = schedule.initialize(&mut world);
    assert!(matches!(result, Err(ScheduleBuildError::SetsHaveOrderButIntersect { .. })), "{result:?}");
}

/// Ordered through a system: A before x, x before B.
#[test]
fn sets_order_intersect_through_a_system() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(sys_a.in_set(Sets::A).in_set(Sets::B));
    schedule.add_systems(sys_b.after(Sets::A).before(Sets::B));
    let result = schedule.initialize(&mut world);
    assert!(result.is_err(), "a system in A and B with A before x before B is contradictory: {result:?}");
}

// ------------------------------------------------------ skipped pipes

#[derive(Resource, Default)]
struct Ran(Vec<&'static str>);

#[derive(Component)]
struct Player;

fn first_u32(mut ran: ResMut<Ran>) -> u32 {
    ran.0.push("first");
    1
}
fn second_single(_input: In<u32>, _p: Single<&Player>, mut ran: ResMut<Ran>) {
    ran.0.push("second");
}
fn third_unit(_input: In<()>, mut ran: ResMut<Ran>) {
    ran.0.push("third");
}
fn second_single_unit_in(_input: In<()>, _p: Single<&Player>, mut ran: ResMut<Ran>) {
    ran.0.push("second");
}
fn first_unit(mut ran: ResMut<Ran>) {
    ran.0.push("first");
}

#[test]
fn nested_pipe_skip_in_inner_second_is_reported() {
    let mut world = World::new();
    world.init_resource::<Ran>();
    let id = world.register_system(first_unit.pipe(first_u32.pipe(second_single)));
    let result = world.run_system(id);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
    world.spawn(Player);
    let result = world.run_system(id);
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(world.resource::<Ran>().0, vec!["first", "first", "first", "first", "second"]);
}

/// A skipped inner pipe gives `()`: the stage after it should not run (Bevy
/// propagates the skip), and the run is reported skipped.
#[test]
fn pipe_after_a_skipped_pipe_does_not_run() {
    let mut world = World::new();
    world.init_resource::<Ran>();
    let id = world.register_system(first_u32.pipe(second_single).pipe(third_unit));
    let result = world.run_system(id);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
    assert_eq!(world.resource::<Ran>().0, vec!["first"], "the stage after a skipped half ran");
}

#[test]
fn skipped_flag_resets_on_next_successful_run() {
    let mut world = World::new();
    world.init_resource::<Ran>();
    let id = world.register_system(first_unit.pipe(second_single_unit_in).map(|()| 5u8));
    let result = world.run_system(id);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
    let player = world.spawn(Player).id();
    assert_eq!(world.run_system(id).ok(), Some(5));
    world.despawn(player);
    let result = world.run_system(id);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
}

/// The first half's commands still apply when the second half is skipped
/// (Bevy applies a pipe's deferred buffers whatever the result).
#[test]
fn skipped_second_half_keeps_first_half_commands() {
    #[derive(Component)]
    struct Spawned;
    fn spawner(mut commands: Commands) -> u32 {
        commands.spawn(Spawned);
        1
    }
    let mut world = World::new();
    world.init_resource::<Ran>();
    let id = world.register_system(spawner.pipe(second_single));
    let result = world.run_system(id);
    assert!(matches!(result, Err(RunSystemError::Skipped { .. })), "{result:?}");
    let count = world.query::<&Spawned>().iter(&world).count();
    assert_eq!(count, 1, "the first half's spawn command was dropped");
}

/// In a schedule the pipe's skipped half doesn't stop the rest.
#[test]
fn skipped_pipe_in_schedule() {
    let mut world = World::new();
    world.init_resource::<Ran>();
    let mut schedule = Schedule::new();
    schedule.add_systems((first_u32.pipe(second_single), third_unit.map(|_| ()).pipe(|| {})).chain());
    let _ = &mut schedule;
}

// ------------------------------------------------- SystemParam derive

#[derive(Resource, Default)]
struct R0(u32);
#[derive(Resource, Default)]
struct R1(u32);

mod private_params {
    use ecs::prelude::*;

    #[derive(Resource, Default)]
    struct Hidden(u32);

    #[derive(SystemParam)]
    pub struct Public<'w, 's> {
        hidden: ResMut<'w, Hidden>,
        local: Local<'s, u32>,
    }

    impl Public<'_, '_> {
        pub fn bump(&mut self) -> (u32, u32) {
            self.hidden.0 += 1;
            *self.local += 10;
            (self.hidden.0, *self.local)
        }
    }

    pub fn setup(world: &mut World) {
        world.init_resource::<Hidden>();
    }
}

#[derive(SystemParam)]
struct Empty {}

#[derive(SystemParam)]
struct Unit;

#[derive(SystemParam)]
struct TupleOne<'w>(Res<'w, R0>);

#[derive(SystemParam)]
struct TupleMut<'w, 's>(ResMut<'w, R0>, Local<'s, u32>, Query<'w, 's, &'static Position>);

#[derive(SystemParam)]
struct Nested<'w, 's> {
    inner: TupleMut<'w, 's>,
    other: Res<'w, R1>,
}

#[derive(SystemParam)]
struct WithSet<'w, 's>(
    ParamSet<'w, 's, (Query<'static, 'static, &'static mut Position>, Query<'static, 'static, &'static Position>)>,
);

#[derive(SystemParam)]
struct Sixteen<'w> {
    a0: Res<'w, R0>,
    a1: Res<'w, R1>,
    a2: Res<'w, R0>,
    a3: Res<'w, R1>,
    a4: Res<'w, R0>,
    a5: Res<'w, R1>,
    a6: Res<'w, R0>,
    a7: Res<'w, R1>,
    a8: Res<'w, R0>,
    a9: Res<'w, R1>,
    a10: Res<'w, R0>,
    a11: Res<'w, R1>,
    a12: Res<'w, R0>,
    a13: Res<'w, R1>,
    a14: Res<'w, R0>,
    a15: Res<'w, R1>,
}

#[test]
fn system_param_derive_variants_run() {
    let mut world = World::new();
    world.init_resource::<R0>();
    world.init_resource::<R1>();
    private_params::setup(&mut world);
    world.spawn(Position(1.0));
    fn sys(
        _e: Empty,
        _u: Unit,
        one: TupleOne,
        mut public: private_params::Public,
        sixteen: Sixteen,
        mut out: Local<Vec<(u32, u32, u32)>>,
    ) {
        let (h, l) = public.bump();
        out.push((one.0.0, h, l));
        assert_eq!(sixteen.a15.0 + sixteen.a0.0, one.0.0);
        assert_eq!(out.len() as u32, h);
    }
    fn sys_mut(mut t: TupleMut) {
        t.0.0 += 1;
        *t.1 += 1;
        assert_eq!(t.2.iter().count(), 1);
        assert_eq!(t.0.0, *t.1);
    }
    fn sys_nested(n: Nested) {
        let _ = n.inner.0.0 + n.other.0;
    }
    fn sys_set(mut set: WithSet) {
        for mut p in set.0.p0().iter_mut() {
            p.0 += 1.0;
        }
        assert_eq!(set.0.p1().iter().count(), 1);
    }
    let a = world.register_system(sys);
    let b = world.register_system(sys_mut);
    let c = world.register_system(sys_nested);
    let d = world.register_system(sys_set);
    for _ in 0..3 {
        world.run_system(a).unwrap();
        world.run_system(b).unwrap();
        world.run_system(c).unwrap();
        world.run_system(d).unwrap();
    }
    assert_eq!(world.resource::<R0>().0, 3);
    let p = world.query::<&Position>().iter(&world).next().unwrap().0;
    assert_eq!(p, 4.0);
}

/// Unordered intersecting sets are fine, with run conditions and a third set after both.
#[test]
fn sets_intersect_without_order_is_fine() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(sys_a.in_set(Sets::A).in_set(Sets::B));
    schedule.add_systems(sys_b.in_set(Sets::C));
    schedule.configure_sets(Sets::A.run_if(|| true));
    schedule.configure_sets(Sets::C.after(Sets::A).after(Sets::B));
    schedule.configure_sets(Sets::P.before(Sets::Q));
    let result = schedule.initialize(&mut world);
    assert!(result.is_ok(), "{result:?}");
    schedule.run(&mut world);
}

/// `?(Kind, $k)` on a union relationship (no `up` involved): each row should
/// appear once, with `$k` its own target (or unbound without a pair), as on
/// the fragmenting twin. Found by the twin comparison.
#[test]
fn union_optional_pair_variable_yields_each_row_once() {
    let mut world = World::new();
    register_all(&mut world);
    let (k0, k1) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Marker).id();
    let b = world.spawn(Marker).id();
    let c = world.spawn(Marker).id();
    world.add_pair::<Kind>(a, k0);
    world.add_pair::<Kind>(b, k1);
    for text in ["Marker, ?(Kind, $k)", "Marker, ?(Kind, *)"] {
        for mut q in [world.query_dsl(text).unwrap(), world.query_dsl_uncached(text).unwrap()] {
            let mut rows: Vec<(Entity, bool, Option<Entity>)> =
                q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.var("k"))).collect();
            rows.sort();
            let with_var = text.contains("$k");
            let mut expected =
                vec![(a, true, with_var.then_some(k0)), (b, true, with_var.then_some(k1)), (c, false, None)];
            expected.sort();
            assert_eq!(rows, expected, "{text}");
        }
    }
}
