//! Review of commit 4f136fb (`*`/`$c` on `$this` are never table-level and
//! run row by row while any sparse set holds entities; `World::path` of
//! components whose short name is taken, `World::lookup` of `*`, `_` and of
//! components as a path's root), aimed at what `review_session21.rs` and
//! `review_session22.rs` leave out.
//!
//! Covered: a battery of `*`/`$c` forms (`*`, `$c`, `[none] *`, `!*`, `?*`,
//! `?$c`, `* || Tag`, `Tag || *`, `Thrust || *`, `$c, !$c`, `*, Tag`,
//! `Tag, *`) compared after each phase with a model of each entity's own
//! enabled ids while sparse sets are empty, in use, and empty again (cached
//! queries built before, fresh cached and uncached builds, `count`), over
//! rows with toggled components, pairs only, nothing, inherited values,
//! hidden prefab/disabled holders; `*(up)`, `*(self|up)` and
//! `$c(self|up IsA)` over the phases; `$c` bound by `*`-like terms as the
//! source of later terms, and `Trait($c), $c` against `$c, Trait($c)` with
//! inherited sparse and table components; rows of union-pair tables climbed
//! by `up` through a union relationship beside `*` (each row's own values
//! and toggles); `DynRow` accessors (`get`, `id`, `source`, `is_set`,
//! `pair_target`, `var`); `iter_tables` views of row-by-row evaluation and
//! their structure (one view per table and id while sets are empty, one per
//! row and id while they are in use, unchanged for queries without a
//! whole-id wildcard); `iter_mut` and `iter_tables_mut` with a write term
//! next to `*`; cached `*` queries built before any sparse component was
//! registered. Paths: children of components shadowed by user roots, user
//! components with colliding short names registered in both orders, user
//! hierarchies spelled like a component's type path, escaped `::` under
//! components, `*`/`_` as roots and inside paths, and
//! renames/despawns of the shadowing roots.
//!
//! Each test runs on its own thread; drop tracking is thread-local, and every
//! value is dropped exactly once.
//!
//! Findings (the first three fixed since: `*`/`$c` tables run row by row also
//! where a table has toggle bits or an `up` climbs a union, and a row's own
//! hits are reported as a table's; the last three left, with reasons, ignored):
//! - `union_group_rows_keep_their_own_values_beside_star`: while no sparse
//!   set is in use, a table holding union pairs of the relationship an `up`
//!   term climbs runs one parent at a time, and the `*`/`$c` term's place is
//!   then the group's first row (4f136fb's `Place`): every row of the group
//!   gets that row's `*` hits (source, values, toggles): `*, Pos(up
//!   Movement)` gives b a's `Vel` value and source and drops b's enabled
//!   `Thrust`. Row by row (a sparse set in use) it is right.
//! - `table_views_of_star_read_columns_in_both_modes`: while a sparse set is
//!   in use, `iter_tables` views of `*` carry the row as the source of its
//!   table ids (`source(0) == Some(row)`) and give no `field` slice (only
//!   `shared`); with the sets empty the same views give column slices and
//!   `source(0) == None`: one query's table view changes with unrelated
//!   sparse values elsewhere.
//! - `optional_star_skips_a_disabled_toggle_in_every_phase`: while no sparse
//!   set is in use, `?*`/`?$c` give a row with a disabled toggle an extra
//!   unset row (and `?$c` binds `$c` to the disabled component there); row
//!   by row (a sparse set in use) they do not.
//! - `children_of_a_component_shadowing_a_user_root_round_trip`: with a user
//!   root named `Pos` beside the component `Pos` (which keeps the name in
//!   `lookup`), `path(kid of Pos)` is `"Pos::kid"`, but `lookup` of a
//!   multi-segment path starts at the user root (`None`, or the root's own
//!   `kid`).
//! - `user_hierarchy_spelled_like_a_type_path_round_trips`: a user hierarchy
//!   `review_session23` → `Pos` (as a game's `game` → `Player`) has the path
//!   `"review_session23::Pos"`, which `lookup` resolves to the component
//!   `Pos` by its type path (the whole string is tried as a component name
//!   before it is split).
//! - `wildcard_names_as_roots_and_inside_paths` (contrived): a user root
//!   named `*` (or `_`) has the path `"*"`, which `lookup` now resolves to the
//!   wildcard; its children still round trip.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

use ecs::entity::Id;
use ecs::prelude::*;

// ----- drop tracking ---------------------------------------------------------------------

thread_local! {
    static NEXT: Cell<u32> = const { Cell::new(0) };
    static DROPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
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

// ----- components ----------------------------------------------------------------------------

/// A sparse value component (inherited by default).
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stun(u32, Token);

/// A second sparse value component.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Mark(u32, Token);

/// A sparse tag.
#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct Frozen;

/// A table value component.
#[derive(Component, Debug, PartialEq)]
struct Pos(u32, Token);

/// A second table value component.
#[derive(Component, Debug, PartialEq)]
struct Vel(u32, Token);

/// A table tag.
#[derive(Component, Debug)]
struct Tag;

/// A toggleable table value.
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(u32, Token);

/// A non-fragmenting, traversable relationship.
#[derive(Relationship, Debug)]
#[relationship(union, traversable)]
struct Movement;

/// A plain tag relationship.
#[derive(Relationship)]
struct Likes;

fn stun(v: u32) -> Stun {
    Stun(v, Token::new())
}

fn mark(v: u32) -> Mark {
    Mark(v, Token::new())
}

fn pos(v: u32) -> Pos {
    Pos(v, Token::new())
}

fn vel(v: u32) -> Vel {
    Vel(v, Token::new())
}

fn thrust(v: u32) -> Thrust {
    Thrust(v, Token::new())
}

// ----- helpers -------------------------------------------------------------------------------

fn cid<T: Component>(world: &mut World) -> Entity {
    world.register_component::<T>()
}

/// The cached and the uncached build of one DSL text.
fn both(world: &World, text: &str) -> [DynQuery; 2] {
    let cached = world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let uncached = world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    [cached, uncached]
}

/// The rows of both builds (sorted, asked to agree, and to agree with
/// `count`), mapped by `f`.
fn rows<T: Ord + std::fmt::Debug>(world: &World, qs: &mut [DynQuery; 2], f: impl Fn(&DynRow<'_>) -> T) -> Vec<T> {
    let [cached, uncached] = qs;
    let mut a: Vec<T> = cached.iter(world).map(|row| f(&row)).collect();
    let mut b: Vec<T> = uncached.iter(world).map(|row| f(&row)).collect();
    assert_eq!(cached.count(world), a.len(), "cached count");
    assert_eq!(uncached.count(world), b.len(), "uncached count");
    a.sort();
    b.sort();
    assert_eq!(a, b, "cached and uncached builds differ");
    a
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

/// Whether any sparse component has a value somewhere (what decides the
/// row-by-row evaluation of `*`).
fn sparse_in_use(world: &World) -> bool {
    let stun = world.component_id::<Stun>();
    let mark = world.component_id::<Mark>();
    let frozen = world.component_id::<Frozen>();
    [stun, mark, frozen].into_iter().flatten().any(|c| {
        let mut q = world.query_builder().with(c).build_uncached().unwrap();
        // Hidden holders count too.
        let mut hidden = world.query_dsl_uncached(&format!("{}, Prefab", world.path(c).unwrap())).unwrap();
        let mut disabled = world.query_dsl_uncached(&format!("{}, Disabled", world.path(c).unwrap())).unwrap();
        q.count(world) + hidden.count(world) + disabled.count(world) > 0
    })
}

// ===================================================================== the battery

/// What the model knows per entity: its own enabled plain ids.
type Model = BTreeMap<Entity, BTreeSet<Id>>;

/// The expected rows of each battery query, from the model.
fn expected(text: &str, model: &Model, tag: Id, thrust: Id) -> Vec<(Entity, Option<Id>, &'static str)> {
    let mut out = Vec::new();
    for (&e, own) in model {
        let all = || own.iter().map(move |&id| (e, Some(id)));
        match text {
            "*" | "$c" | "[none] *" | "[none] $c" | "* || Tag" => out.extend(all()),
            "!*" if own.is_empty() => out.push((e, None)),
            "!*" => {}
            "?*" | "?$c" if own.is_empty() => out.push((e, None)),
            "?*" | "?$c" => out.extend(all()),
            "Tag || *" if own.contains(&tag) => out.push((e, Some(tag))),
            "Tag || *" => out.extend(all()),
            "Thrust || *" if own.contains(&thrust) => out.push((e, Some(thrust))),
            "Thrust || *" => out.extend(all()),
            "$c, !$c" => {}
            "*, Tag" | "Tag, *" if own.contains(&tag) => out.extend(all()),
            "*, Tag" | "Tag, *" => {}
            _ => unreachable!("{text}"),
        }
    }
    sorted(out.into_iter().map(|(e, id)| (e, id, "")))
}

const BATTERY: [&str; 13] = [
    "*",
    "$c",
    "[none] *",
    "!*",
    "?*",
    "?$c",
    "* || Tag",
    "Tag || *",
    "Thrust || *",
    "$c, !$c",
    "*, Tag",
    "Tag, *",
    "[none] $c",
];

/// The term of `text` whose id the battery reads (`Tag, *`: term 1).
fn star_term(text: &str) -> usize {
    usize::from(text.starts_with("Tag, "))
}

/// A row of a battery query: entity, the `*` term's id where set, and
/// what is wrong with the row's other accessors (empty: nothing).
fn battery_row(text: &str, r: &DynRow<'_>) -> (Entity, Option<Id>, &'static str) {
    let term = star_term(text);
    let id = r.is_set(term).then(|| r.id(term));
    // `$c` is bound exactly where the term matched, to the id it matched.
    if text.contains("$c") && !text.contains('!') && r.var("c").map(Entity::id) != id {
        return (r.entity(), id, "$c differs from the id");
    }
    // The `*` term's source is the row itself.
    if r.is_set(term) && r.source(term) != r.entity() {
        return (r.entity(), id, "source is not the row");
    }
    (r.entity(), id, "")
}

/// Checks every battery query (early cached ones, fresh cached, uncached)
/// against the model.
fn check_battery(world: &World, early: &mut [DynQuery], model: &Model, ids: (Id, Id), phase: &str) {
    let keep: BTreeSet<Entity> = model.keys().copied().collect();
    // `?*`/`?$c` on rows with a disabled toggle: see
    // `optional_star_skips_a_disabled_toggle_in_every_phase`.
    let toggled_off: BTreeSet<Entity> =
        keep.iter().copied().filter(|&e| world.has::<Thrust>(e) && !world.is_enabled::<Thrust>(e)).collect();
    let mut wrong = Vec::new();
    for (text, early) in BATTERY.iter().zip(early.iter_mut()) {
        let keep: BTreeSet<Entity> = if text.starts_with('?') { &keep - &toggled_off } else { keep.clone() };
        let model: Model = model.iter().filter(|(e, _)| keep.contains(e)).map(|(e, ids)| (*e, ids.clone())).collect();
        let want = expected(text, &model, ids.0, ids.1);
        let mut qs = both(world, text);
        let mut got = rows(world, &mut qs, |r| battery_row(text, r));
        got.retain(|(e, _, _)| keep.contains(e));
        if got != want {
            wrong.push(format!("{text} ({phase}):\n  got  {got:?}\n  want {want:?}"));
        }
        let mut early_rows: Vec<_> = early.iter(world).map(|r| battery_row(text, &r)).collect();
        early_rows.retain(|(e, _, _)| keep.contains(e));
        if sorted(early_rows.clone()) != want {
            wrong.push(format!("{text} built before ({phase}):\n  got  {:?}\n  want {want:?}", sorted(early_rows)));
        }
        // The builder's `*` (cached and not) and a typed filter.
        if *text == "*" {
            for cached in [true, false] {
                let builder = world.query_builder().with(Entity::WILDCARD);
                let mut q = if cached { builder.build().unwrap() } else { builder.build_uncached().unwrap() };
                let mut got: Vec<_> = q.iter(world).map(|r| battery_row(text, &r)).collect();
                got.retain(|(e, _, _)| keep.contains(e));
                if sorted(got.clone()) != want {
                    wrong.push(format!("builder * cached {cached} ({phase}): {got:?}"));
                }
            }
        }
        // `[none] *` reads nothing; `*` reads the row's own values.
        if *text == "[none] *" {
            assert!(qs[0].iter(world).all(|r| r.get::<Pos>(0).is_none() && r.get::<Stun>(0).is_none()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The typed `With<Tag>` agrees with the model's Tag holders, and the typed
/// `(Entity, &Pos)` with the `*` rows that read a `Pos`.
fn typed_cross_check(world: &mut World, model: &Model, tag: Id) {
    let typed: BTreeSet<Entity> =
        world.query_filtered::<Entity, With<Tag>>().iter(world).filter(|e| model.contains_key(e)).collect();
    let want: BTreeSet<Entity> = model.iter().filter(|(_, ids)| ids.contains(&tag)).map(|(e, _)| *e).collect();
    assert_eq!(typed, want, "typed With<Tag>");
    let typed: Vec<(Entity, u32)> = sorted(
        world.query::<(Entity, &Pos)>().iter(world).filter(|(e, _)| model.contains_key(e)).map(|(e, p)| (e, p.0)),
    );
    let mut star = world.query_dsl("*").unwrap();
    let dynamic: Vec<(Entity, u32)> = sorted(
        star.iter(world)
            .filter(|r| model.contains_key(&r.entity()))
            .filter_map(|r| r.get::<Pos>(0).map(|p| (r.entity(), p.0))),
    );
    // Owned values only for `*`: the instance's inherited Pos is typed-only.
    let owned: Vec<(Entity, u32)> = typed.into_iter().filter(|(e, _)| !model[e].is_empty()).collect();
    assert_eq!(dynamic, owned, "typed (Entity, &Pos) vs * reading Pos");
}

/// Every battery form while sparse sets are empty, in use (toggles flipped
/// meanwhile, hidden holders too), and empty again.
#[test]
fn star_battery_follows_sparse_sets_empty_in_use_empty() {
    let mut world = World::new();
    let (stun_c, mark_c, frozen_c) = (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Frozen>(&mut world));
    let (pos_c, tag_c, thrust_c) = (cid::<Pos>(&mut world), cid::<Tag>(&mut world), cid::<Thrust>(&mut world));
    let (pos_id, tag, thr) = (pos_c.id(), tag_c.id(), thrust_c.id());
    let prefab = world.spawn((Prefab, pos(100))).id();
    let a = world.spawn((pos(1), Tag)).id();
    let b = world.spawn((pos(2), thrust(2))).id();
    let c = world.spawn((pos(3), thrust(3))).id();
    world.entity_mut(c).disable::<Thrust>();
    let d = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<Likes>(a);
    let f = world.spawn(Tag).id();
    let g = world.spawn_empty().id();
    let inst = world.instantiate(prefab);
    let hidden = world.spawn((Disabled, pos(7))).id();
    let mut model: Model = BTreeMap::new();
    model.insert(a, BTreeSet::from([pos_id, tag]));
    model.insert(b, BTreeSet::from([pos_id, thr]));
    model.insert(c, BTreeSet::from([pos_id]));
    for x in [d, e, g, inst] {
        model.insert(x, BTreeSet::new());
    }
    model.insert(f, BTreeSet::from([tag]));
    let mut early: Vec<DynQuery> = BATTERY.iter().map(|t| world.query_dsl(t).unwrap()).collect();
    assert!(!sparse_in_use(&world));
    check_battery(&world, &mut early, &model, (tag, thr), "sets empty");
    typed_cross_check(&mut world, &model, tag);

    // Sets in use: own sparse ids of rows; hidden holders; a prefab's sparse
    // value the instance only inherits.
    world.entity_mut(a).insert(stun(10));
    world.entity_mut(c).insert(stun(30));
    world.entity_mut(d).insert(mark(40));
    world.entity_mut(f).insert(Frozen);
    world.entity_mut(prefab).insert(mark(100));
    world.entity_mut(hidden).insert(stun(70));
    model.get_mut(&a).unwrap().insert(stun_c.id());
    model.get_mut(&c).unwrap().insert(stun_c.id());
    model.get_mut(&d).unwrap().insert(mark_c.id());
    model.get_mut(&f).unwrap().insert(frozen_c.id());
    assert!(sparse_in_use(&world));
    check_battery(&world, &mut early, &model, (tag, thr), "sets in use");
    typed_cross_check(&mut world, &model, tag);
    // Toggles flipped while rows run one by one.
    world.entity_mut(b).disable::<Thrust>();
    world.entity_mut(c).enable::<Thrust>();
    model.get_mut(&b).unwrap().remove(&thr);
    model.get_mut(&c).unwrap().insert(thr);
    check_battery(&world, &mut early, &model, (tag, thr), "toggles flipped");
    typed_cross_check(&mut world, &model, tag);
    // Only hidden holders left: still row by row.
    world.entity_mut(a).remove::<Stun>();
    world.entity_mut(c).remove::<Stun>();
    world.entity_mut(d).remove::<Mark>();
    world.entity_mut(f).remove::<Frozen>();
    model.get_mut(&a).unwrap().remove(&stun_c.id());
    model.get_mut(&c).unwrap().remove(&stun_c.id());
    model.get_mut(&d).unwrap().remove(&mark_c.id());
    model.get_mut(&f).unwrap().remove(&frozen_c.id());
    check_battery(&world, &mut early, &model, (tag, thr), "hidden holders only");
    typed_cross_check(&mut world, &model, tag);
    // Empty again.
    world.entity_mut(prefab).remove::<Mark>();
    world.entity_mut(hidden).remove::<Stun>();
    assert!(!sparse_in_use(&world));
    check_battery(&world, &mut early, &model, (tag, thr), "sets empty again");
    typed_cross_check(&mut world, &model, tag);
    // In use once more, on an entity of a new table.
    let h = world.spawn((Tag, pos(8), stun(80))).id();
    model.insert(h, BTreeSet::from([tag, pos_id, stun_c.id()]));
    world.entity_mut(g).insert(Frozen);
    model.get_mut(&g).unwrap().insert(frozen_c.id());
    check_battery(&world, &mut early, &model, (tag, thr), "in use again");
    typed_cross_check(&mut world, &model, tag);
    let mut star = world.query_dsl("*").unwrap();
    let values: Vec<u32> =
        star.iter(&world).filter(|r| r.entity() == h).filter_map(|r| r.get::<Stun>(0).map(|s| s.0)).collect();
    assert_eq!(values, vec![80], "the row's own sparse value");
    drop(star);
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

/// `?*` and `?$c` on a row whose only other id is a disabled toggle: one
/// row per own enabled id (the disabled one counts as absent), `$c` bound
/// to it, whether the rows run one by one or not.
#[test]
fn optional_star_skips_a_disabled_toggle_in_every_phase() {
    let mut world = World::new();
    let (pos_c, stun_c) = (cid::<Pos>(&mut world), cid::<Stun>(&mut world));
    let c = world.spawn((pos(1), thrust(2))).id();
    world.entity_mut(c).disable::<Thrust>();
    let lone = world.spawn(thrust(3)).id();
    world.entity_mut(lone).disable::<Thrust>();
    let mut early = [world.query_dsl("?*").unwrap(), world.query_dsl("?$c").unwrap()];
    for phase in ["sets empty", "in use", "empty again"] {
        let s = (phase == "in use").then(|| world.spawn(stun(4)).id());
        let mut want = vec![(c, true, Some(pos_c)), (lone, false, None)];
        if let Some(s) = s {
            want.push((s, true, Some(stun_c)));
        }
        let want = sorted(want);
        for (i, text) in ["?*", "?$c"].into_iter().enumerate() {
            let read = |r: &DynRow<'_>| {
                let bound = if i == 1 { r.var("c") } else { r.is_set(0).then(|| r.id(0).entity().unwrap()) };
                (r.entity(), r.is_set(0), bound)
            };
            let mut qs = both(&world, text);
            assert_eq!(rows(&world, &mut qs, read), want, "{text} {phase}");
            assert_eq!(sorted(early[i].iter(&world).map(|r| read(&r))), want, "{text} built before, {phase}");
        }
        if let Some(s) = s {
            world.despawn(s);
        }
    }
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

/// Cached `*`, `$c`, `!*` and `?*` built before any sparse component was
/// even registered: entities holding only sparse ids, given later, are
/// listed (they live in the empty table).
#[test]
fn cached_star_built_before_any_sparse_component_registered() {
    let mut world = World::new();
    let pos_c = cid::<Pos>(&mut world);
    let a = world.spawn(pos(1)).id();
    let d = world.spawn_empty().id();
    let mut qs: Vec<DynQuery> = ["*", "$c", "!*", "?*"].iter().map(|t| world.query_dsl(t).unwrap()).collect();
    for q in &mut qs {
        q.count(&world);
    }
    let s = world.spawn(stun(2)).id();
    world.entity_mut(d).insert(Frozen);
    let (stun_c, frozen_c) = (world.component_id::<Stun>().unwrap(), world.component_id::<Frozen>().unwrap());
    let keep = [a, d, s];
    let star = sorted([(a, Some(pos_c.id())), (s, Some(stun_c.id())), (d, Some(frozen_c.id()))]);
    let got = |q: &mut DynQuery, world: &World| {
        let mut got: Vec<(Entity, Option<Id>)> =
            q.iter(world).map(|r| (r.entity(), r.is_set(0).then(|| r.id(0)))).collect();
        got.retain(|(e, _)| keep.contains(e));
        sorted(got)
    };
    assert_eq!(got(&mut qs[0], &world), star, "*");
    assert_eq!(got(&mut qs[1], &world), star, "$c");
    assert_eq!(got(&mut qs[2], &world), vec![], "!*");
    assert_eq!(got(&mut qs[3], &world), star, "?*");
    world.despawn(s);
    world.entity_mut(d).remove::<Frozen>();
    assert_eq!(got(&mut qs[0], &world), vec![(a, Some(pos_c.id()))], "* after");
    assert_eq!(got(&mut qs[2], &world), vec![(d, None)], "!* after");
    drop(qs);
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= up, self|up

/// `*(up)`, `*(self|up)` and `$c(self|up IsA)` while sparse sets are empty,
/// in use, and empty again: a row owning nothing climbs, one owning only a
/// sparse id stops, and the climb lists the ancestor's own sparse ids.
#[test]
fn star_up_and_self_up_follow_the_phases() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c, name_c) =
        (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world), cid::<Name>(&mut world));
    let parent = world.spawn((Name::new("p"), pos(1))).id();
    let bare = world.spawn(ChildOf.pair(parent)).id();
    let kid = world.spawn(ChildOf.pair(parent)).id();
    let base = world.spawn((Prefab, pos(9))).id();
    let inst = world.instantiate(base);
    let keep = [parent, bare, kid, inst];
    let ids = |world: &World, text: &str| -> Vec<(Entity, Id, Entity)> {
        let mut qs = both(world, text);
        let mut got = rows(world, &mut qs, |r| (r.entity(), r.id(0), r.source(0)));
        got.retain(|(e, _, _)| keep.contains(e));
        got
    };
    let phase = |world: &World, kid_own: Option<Id>, parent_sparse: Option<Id>, inst_own: Option<Id>, label: &str| {
        let mut parent_ids = vec![name_c.id(), pos_c.id()];
        parent_ids.extend(parent_sparse);
        let up: Vec<_> = sorted(
            [bare, kid].into_iter().flat_map(|e| parent_ids.iter().map(move |&id| (e, id, parent))).collect::<Vec<_>>(),
        );
        assert_eq!(ids(world, "*(up)"), up, "*(up) {label}");
        let mut self_up: Vec<_> = parent_ids.iter().map(|&id| (bare, id, parent)).collect();
        match kid_own {
            Some(id) => self_up.push((kid, id, kid)),
            None => self_up.extend(parent_ids.iter().map(|&id| (kid, id, parent))),
        }
        // The parent has no parent: its own ids; the instance owns nothing
        // of its own but what it is given, else nothing (no ChildOf parent).
        self_up.extend(parent_ids.iter().map(|&id| (parent, id, parent)));
        if let Some(id) = inst_own {
            self_up.push((inst, id, inst));
        }
        assert_eq!(ids(world, "*(self|up)"), sorted(self_up), "*(self|up) {label}");
        // Along IsA: the instance's own, else the base's inheritable ids.
        let isa: Vec<_> = match inst_own {
            Some(id) => vec![(inst, id, inst)],
            None => vec![(inst, pos_c.id(), base)],
        };
        let mut got = ids(world, "$c(self|up IsA)");
        got.retain(|(e, _, _)| *e == inst);
        assert_eq!(got, isa, "$c(self|up IsA) {label}");
    };
    phase(&world, None, None, None, "sets empty");
    world.entity_mut(kid).insert(mark(2));
    phase(&world, Some(mark_c.id()), None, None, "kid owns a sparse id");
    world.entity_mut(parent).insert(stun(3));
    world.entity_mut(inst).insert(stun(4));
    phase(&world, Some(mark_c.id()), Some(stun_c.id()), Some(stun_c.id()), "parent and instance too");
    // The base's own sparse value: the instance's own still stops the climb.
    world.entity_mut(base).insert(mark(5));
    phase(&world, Some(mark_c.id()), Some(stun_c.id()), Some(stun_c.id()), "base holds a sparse value");
    world.entity_mut(base).remove::<Mark>();
    world.entity_mut(kid).remove::<Mark>();
    world.entity_mut(parent).remove::<Stun>();
    world.entity_mut(inst).remove::<Stun>();
    phase(&world, None, None, None, "sets empty again");
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= variables bound by `$c`

/// `$c` as the source of later terms: `$c, Trait($c)` and `Trait($c), $c`
/// agree whatever sparse sets hold, and neither lists an id the row only
/// inherits (a sparse one or a table one alike).
#[test]
fn var_bound_first_or_later_agree_on_inherited_ids() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c, vel_c) =
        (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world), cid::<Vel>(&mut world));
    let trait_ = world.spawn(Name::new("Trait")).id();
    for c in [stun_c, mark_c, pos_c, vel_c] {
        world.add_id(c, trait_.id());
    }
    let base = world.spawn((Prefab, pos(1), stun(2))).id();
    let inst = world.instantiate(base);
    world.entity_mut(inst).insert((vel(3), mark(4)));
    let plain = world.spawn((pos(5), stun(6))).id();
    // The instance does inherit both (a concrete term reads them).
    assert_eq!(world.get::<Stun>(inst).map(|s| s.0), Some(2));
    assert_eq!(world.get::<Pos>(inst).map(|p| p.0), Some(1));
    let mut concrete = both(&world, "Stun, Pos");
    let got = rows(&world, &mut concrete, |r| (r.entity(), r.source(0), r.source(1)));
    assert!(got.contains(&(inst, base, base)), "{got:?}");
    let pairs = |world: &World, text: &str| {
        let mut qs = both(world, text);
        let mut got = rows(world, &mut qs, |r| {
            let term = if text.starts_with('$') { 0 } else { 1 };
            (r.entity(), r.var("c"), r.source(term))
        });
        got.retain(|(e, _, _)| [inst, plain].contains(e));
        got
    };
    let want = sorted([
        (inst, Some(vel_c), inst),
        (inst, Some(mark_c), inst),
        (plain, Some(pos_c), plain),
        (plain, Some(stun_c), plain),
    ]);
    assert_eq!(pairs(&world, "$c, Trait($c)"), want, "$c first");
    assert_eq!(pairs(&world, "Trait($c), $c"), want, "Trait first");
    drop(world);
    assert_eq!(live(), 0);
}

/// `$c, Trait($c)` and `Trait($c), $c` (own ids only here) while sparse sets
/// empty and refill: the same solutions, with the component entity as the
/// second term's source.
#[test]
fn var_as_source_across_phases() {
    let mut world = World::new();
    let (stun_c, pos_c, vel_c) = (cid::<Stun>(&mut world), cid::<Pos>(&mut world), cid::<Vel>(&mut world));
    let trait_ = world.spawn(Name::new("Trait")).id();
    world.add_id(stun_c, trait_.id());
    world.add_id(pos_c, trait_.id());
    let a = world.spawn((pos(1), vel(2))).id();
    let b = world.spawn(vel(3)).id();
    let mut early = [world.query_dsl("$c, Trait($c)").unwrap(), world.query_dsl("Trait($c), $c").unwrap()];
    let check = |world: &World, early: &mut [DynQuery; 2], want: Vec<(Entity, Option<Entity>)>, label: &str| {
        for (i, text) in ["$c, Trait($c)", "Trait($c), $c"].into_iter().enumerate() {
            let mut qs = both(world, text);
            let (this_term, var_term) = if i == 0 { (0, 1) } else { (1, 0) };
            let got = rows(world, &mut qs, |r| {
                assert_eq!(r.source(var_term), r.var("c").unwrap(), "{text}: Trait($c)'s source is $c");
                assert_eq!(r.id(this_term), r.var("c").unwrap().id());
                (r.entity(), r.var("c"))
            });
            assert_eq!(got, want, "{text} {label}");
            let got = sorted(early[i].iter(world).map(|r| (r.entity(), r.var("c"))));
            assert_eq!(got, want, "{text} built before, {label}");
        }
    };
    check(&world, &mut early, vec![(a, Some(pos_c))], "sets empty");
    world.entity_mut(b).insert(stun(4));
    check(&world, &mut early, sorted([(a, Some(pos_c)), (b, Some(stun_c))]), "in use");
    world.entity_mut(b).remove::<Stun>();
    check(&world, &mut early, vec![(a, Some(pos_c))], "empty again");
    let _ = vel_c;
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= union groups

/// Rows of one table holding union pairs of the relationship an `up` term
/// climbs (evaluated one parent at a time while sparse sets are empty)
/// beside `*`: each row reads its own values and its own toggles, and its
/// own entity is the `*` term's source, whatever the sparse sets hold.
#[test]
fn union_group_rows_keep_their_own_values_beside_star() {
    let mut world = World::new();
    let (vel_c, thrust_c) = (cid::<Vel>(&mut world), cid::<Thrust>(&mut world));
    cid::<Stun>(&mut world);
    let p = world.spawn(pos(100)).id();
    let q = world.spawn(pos(200)).id();
    let a = world.spawn((vel(1), thrust(1))).id();
    let b = world.spawn((vel(2), thrust(2))).id();
    let c = world.spawn((vel(3), thrust(3))).id();
    world.entity_mut(a).add_pair::<Movement>(p).disable::<Thrust>();
    world.entity_mut(b).add_pair::<Movement>(p);
    world.entity_mut(c).add_pair::<Movement>(q);
    let mut early = world.query_dsl("*, Pos(up Movement)").unwrap();
    let want = sorted([
        (a, vel_c.id(), a, Some(1), None, 100),
        (b, vel_c.id(), b, Some(2), None, 100),
        (b, thrust_c.id(), b, None, Some(2), 100),
        (c, vel_c.id(), c, Some(3), None, 200),
        (c, thrust_c.id(), c, None, Some(3), 200),
    ]);
    let read = |r: &DynRow<'_>| {
        (
            r.entity(),
            r.id(0),
            r.source(0),
            r.get::<Vel>(0).map(|v| v.0),
            r.get::<Thrust>(0).map(|t| t.0),
            r.get::<Pos>(1).unwrap().0,
        )
    };
    for phase in ["sets empty", "in use", "empty again"] {
        let s = (phase == "in use").then(|| world.spawn(stun(9)).id());
        for text in ["*, Pos(up Movement)", "$c, Pos(up Movement)"] {
            let mut qs = both(&world, text);
            assert_eq!(rows(&world, &mut qs, read), want, "{text} {phase}");
        }
        assert_eq!(sorted(early.iter(&world).map(|r| read(&r))), want, "built before, {phase}");
        // Typed cross-check of the values.
        let typed = sorted(world.query::<(Entity, &Vel)>().iter(&world).map(|(e, v)| (e, v.0)));
        assert_eq!(typed, vec![(a, 1), (b, 2), (c, 3)]);
        if let Some(s) = s {
            world.despawn(s);
        }
    }
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

/// `*` beside `(Movement, $t)` on rows with union targets, and beside
/// `(Movement, *)`: `pair_target`, `var` and the `*` ids per row, with and
/// without sparse sets in use.
#[test]
fn star_beside_union_pairs_per_row() {
    let mut world = World::new();
    let (vel_c, stun_c) = (cid::<Vel>(&mut world), cid::<Stun>(&mut world));
    let (p, q) = (world.spawn(Name::new("p")).id(), world.spawn(Name::new("q")).id());
    let a = world.spawn(vel(1)).id();
    let b = world.spawn(vel(2)).id();
    world.entity_mut(a).add_pair::<Movement>(p);
    world.entity_mut(b).add_pair::<Movement>(q);
    let keep = [a, b];
    let mut early = world.query_dsl("*, (Movement, $t)").unwrap();
    for phase in 0..3 {
        let in_use = phase == 1;
        if in_use {
            world.entity_mut(a).insert(stun(5));
        } else if phase == 2 {
            world.entity_mut(a).remove::<Stun>();
        }
        let mut want = vec![(a, vel_c.id(), p), (b, vel_c.id(), q)];
        if in_use {
            want.push((a, stun_c.id(), p));
        }
        let want = sorted(want);
        for text in ["*, (Movement, $t)", "(Movement, $t), *"] {
            let star = usize::from(text.starts_with('('));
            let mut qs = both(&world, text);
            let mut got = rows(&world, &mut qs, |r| {
                assert_eq!(r.pair_target(1 - star), r.var("t").unwrap());
                (r.entity(), r.id(star), r.var("t").unwrap())
            });
            got.retain(|(e, _, _)| keep.contains(e));
            assert_eq!(got, want, "{text} phase {phase}");
        }
        let mut qs = both(&world, "*, (Movement, *)");
        let mut got = rows(&world, &mut qs, |r| (r.entity(), r.id(0), r.pair_target(1)));
        got.retain(|(e, _, _)| keep.contains(e));
        assert_eq!(got, want, "(Movement, *) phase {phase}");
        let mut got: Vec<_> = early.iter(&world).map(|r| (r.entity(), r.id(0), r.var("t").unwrap())).collect();
        got.retain(|(e, _, _)| keep.contains(e));
        assert_eq!(sorted(got), want, "built before, phase {phase}");
    }
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= iter_tables

/// The `(entity, id)` of every matching row of every table view.
fn table_rows(world: &World, q: &mut DynQuery, term: usize) -> (Vec<(Entity, Id)>, usize) {
    let mut out = Vec::new();
    let mut views = 0;
    for table in q.iter_tables(world) {
        views += 1;
        for (row, &e) in table.entities().iter().enumerate() {
            if table.row_matches(row) {
                out.push((e, table.id(term).unwrap()));
            }
        }
    }
    (sorted(out), views)
}

/// `iter_tables` of `*` agrees with `iter` in every phase; its structure:
/// one view per table and id while sparse sets are empty, one per row and
/// id while they are in use; queries without a whole-id wildcard keep one
/// view per table throughout.
#[test]
fn iter_tables_of_star_agree_with_rows_and_keep_their_structure() {
    let mut world = World::new();
    let (pos_c, tag_c) = (cid::<Pos>(&mut world), cid::<Tag>(&mut world));
    cid::<Stun>(&mut world);
    let likes_target = world.spawn(Name::new("target")).id();
    let many: Vec<Entity> = (0..40).map(|i| world.spawn((pos(i), Tag)).id()).collect();
    for &e in &many {
        world.entity_mut(e).add_pair::<Likes>(likes_target);
    }
    let holder = world.spawn((Name::new("holder"), pos(99))).id();
    let keep: BTreeSet<Entity> = many.iter().copied().chain([holder]).collect();
    let texts = ["*", "$c", "*, Tag", "?*"];
    let mut early: Vec<DynQuery> = texts.iter().map(|t| world.query_dsl(t).unwrap()).collect();
    for phase in 0..3 {
        let in_use = phase == 1;
        let sentinel = in_use.then(|| world.spawn((Name::new("sentinel"), stun(1))).id());
        for (text, early) in texts.iter().zip(early.iter_mut()) {
            for q in [world.query_dsl(text).unwrap(), world.query_dsl_uncached(text).unwrap()].iter_mut().chain([early])
            {
                let by_rows: Vec<(Entity, Id)> =
                    sorted(q.iter(&world).filter(|r| keep.contains(&r.entity())).map(|r| (r.entity(), r.id(0))));
                let (mut by_tables, _) = table_rows(&world, q, 0);
                by_tables.retain(|(e, _)| keep.contains(e));
                assert_eq!(by_tables, by_rows, "{text} phase {phase}");
                assert_eq!(by_rows.iter().filter(|r| r.0 == many[0]).count(), 2, "{text}: Pos and Tag");
            }
        }
        // Structure: views over the 40-row table of `*`.
        let mut star = world.query_dsl_uncached("*, Tag").unwrap();
        let (_, views) = table_rows(&world, &mut star, 0);
        let want = if in_use { 80 } else { 2 };
        assert_eq!(views, want, "views of `*, Tag` phase {phase}");
        // No whole-id wildcard: one view of the table whatever the sets hold.
        for text in ["Pos, Tag", "_, Tag", "(Likes, *), Tag", "(*, *), Tag", "*(holder), Tag"] {
            let mut q = world.query_dsl(text).unwrap();
            let views: Vec<usize> = q.iter_tables(&world).map(|t| t.len()).collect();
            let per_id = match text {
                "Pos, Tag" | "_, Tag" | "(Likes, *), Tag" => 1,
                "(*, *), Tag" => 1,
                _ => 2, // holder's Name and Pos
            };
            assert_eq!(views, vec![40; per_id], "{text} phase {phase}");
        }
        let _ = (pos_c, tag_c);
        if let Some(s) = sentinel {
            world.despawn(s);
        }
    }
    drop(early);
    drop(world);
    assert_eq!(live(), 0);
}

/// A table view of `*` shows the row's own column values whether its rows
/// run one by one or not: `field` gives the row's slice and `source` says
/// the values are the rows' own.
#[test]
fn table_views_of_star_read_columns_in_both_modes() {
    let mut world = World::new();
    let pos_c = cid::<Pos>(&mut world);
    cid::<Stun>(&mut world);
    let a = world.spawn(pos(1)).id();
    let b = world.spawn(pos(2)).id();
    for phase in ["sets empty", "in use"] {
        let s = (phase == "in use").then(|| world.spawn(stun(3)).id());
        let mut q = world.query_dsl("*").unwrap();
        let mut seen = Vec::new();
        for table in q.iter_tables(&world) {
            if table.id(0) != Some(pos_c.id()) {
                continue;
            }
            assert_eq!(table.source(0), None, "{phase}: the rows' own values");
            let field = table.field::<Pos>(0).unwrap_or_else(|| panic!("{phase}: no field"));
            assert_eq!(field.len(), table.len());
            for (row, &e) in table.entities().iter().enumerate() {
                if table.row_matches(row) {
                    seen.push((e, field[row].0));
                }
            }
        }
        assert_eq!(sorted(seen), vec![(a, 1), (b, 2)], "{phase}");
        if let Some(s) = s {
            world.despawn(s);
        }
    }
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= writes beside `*`

/// `*, [inout] Pos` through `iter_mut` and `iter_tables_mut`: each row of
/// `*` writes once (a row with k ids k times), in every phase; replaced
/// tokens are dropped once.
#[test]
fn writes_beside_star_in_every_phase() {
    let mut world = World::new();
    cid::<Stun>(&mut world);
    let a = world.spawn((pos(0), Tag)).id();
    let b = world.spawn(pos(0)).id();
    let c = world.spawn((pos(0), thrust(0))).id();
    world.entity_mut(c).disable::<Thrust>();
    let mut q = world.query_dsl("*, [inout] Pos").unwrap();
    let mut tq = world.query_dsl("*, [inout] Pos").unwrap();
    let mut expect = BTreeMap::from([(a, 0u32), (b, 0), (c, 0)]);
    for phase in 0..3 {
        if phase == 1 {
            world.entity_mut(b).insert(stun(1));
        } else if phase == 2 {
            world.entity_mut(b).remove::<Stun>();
        }
        // a: Pos, Tag; b: Pos (+ Stun in phase 1); c: Pos (Thrust disabled).
        let per_row = BTreeMap::from([(a, 2), (b, if phase == 1 { 2 } else { 1 }), (c, 1)]);
        q.iter_mut(&mut world).for_each(|mut row| {
            assert!(row.get::<Pos>(0).is_none(), "`*` beside a writer reads nothing");
            let mut p = row.get_mut::<Pos>(1).unwrap();
            p.0 += 1;
            p.1 = Token::new();
        });
        for (e, n) in &per_row {
            *expect.get_mut(e).unwrap() += n;
        }
        let mut tables = tq.iter_tables_mut(&mut world);
        while let Some(table) = tables.fetch_next() {
            let rows: Vec<bool> = (0..table.len()).map(|row| table.row_matches(row)).collect();
            let slice = table.field_mut::<Pos>(1).unwrap();
            for (p, matches) in slice.iter_mut().zip(rows) {
                if matches {
                    p.0 += 10;
                }
            }
        }
        for (e, n) in &per_row {
            *expect.get_mut(e).unwrap() += 10 * n;
        }
        let got: BTreeMap<Entity, u32> = [a, b, c].iter().map(|&e| (e, world.get::<Pos>(e).unwrap().0)).collect();
        assert_eq!(got, expect, "phase {phase}");
    }
    assert_eq!(live(), 4, "three Pos, one Thrust");
    drop((q, tq));
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= paths and lookup

fn round_trips(world: &World, entity: Entity) -> bool {
    world.path(entity).and_then(|path| world.lookup(&path)) == Some(entity)
}

/// A user component with children and grandchildren, shadowed by a user
/// root of its short name (the component keeps the name in `lookup`): every
/// child's path looks it up again, before, while and after the root exists.
#[test]
#[ignore = "finding (left, by design: a root named like a user component is shadowed by it): with a user root named Pos, path(child of component Pos) is \"Pos::kid\", but lookup(\"Pos::kid\") starts at the user root (None, or the root's own kid) while lookup(\"Pos\") gives the component"]
fn children_of_a_component_shadowing_a_user_root_round_trip() {
    let mut world = World::new();
    let pos_c = cid::<Pos>(&mut world);
    let kid = world.spawn((Name::new("kid"), ChildOf.pair(pos_c))).id();
    let grand = world.spawn((Name::new("a::b"), ChildOf.pair(kid))).id();
    for e in [pos_c, kid, grand] {
        assert!(round_trips(&world, e), "unshadowed {:?}", world.path(e));
    }
    assert_eq!(world.path(grand).as_deref(), Some("Pos::kid::a\\:\\:b"));
    let root = world.spawn(Name::new("Pos")).id();
    assert_eq!(world.lookup("Pos"), Some(pos_c), "the component keeps its name");
    for e in [pos_c, kid, grand] {
        assert!(round_trips(&world, e), "shadowing root: {:?}", world.path(e));
    }
    // The root has a kid of the same name: still the component's.
    let root_kid = world.spawn((Name::new("kid"), ChildOf.pair(root))).id();
    for e in [pos_c, kid, grand] {
        assert!(round_trips(&world, e), "root with a kid: {:?}", world.path(e));
    }
    assert_ne!(world.lookup(&world.path(kid).unwrap()), Some(root_kid));
    world.entity_mut(root).insert(Name::new("Renamed"));
    for e in [pos_c, kid, grand, root, root_kid] {
        assert!(round_trips(&world, e), "renamed: {:?}", world.path(e));
    }
    world.despawn(root);
    for e in [pos_c, kid, grand] {
        assert!(round_trips(&world, e), "despawned: {:?}", world.path(e));
    }
    drop(world);
    assert_eq!(live(), 0);
}

mod first {
    use ecs::prelude::*;

    #[derive(Component)]
    pub struct Thing;
}

mod second {
    use ecs::prelude::*;

    #[derive(Component)]
    pub struct Thing;
}

/// Two user components with one short name, registered in both orders,
/// each with nested children (one named with `::`): every path looks its
/// entity up again; the second registered goes by its type path.
#[test]
fn colliding_short_names_in_both_orders_round_trip() {
    for order in 0..2 {
        let mut world = World::new();
        let (one, two) = if order == 0 {
            (world.register_component::<first::Thing>(), world.register_component::<second::Thing>())
        } else {
            let two = world.register_component::<second::Thing>();
            (world.register_component::<first::Thing>(), two)
        };
        let earlier = if order == 0 { one } else { two };
        let later = if order == 0 { two } else { one };
        assert_eq!(world.lookup("Thing"), Some(earlier), "order {order}");
        assert_eq!(world.path(earlier).as_deref(), Some("Thing"));
        assert_eq!(world.path(later).as_deref(), world.component_info(later).map(|i| i.type_name()));
        let mut all = vec![one, two];
        for (k, &comp) in [one, two].iter().enumerate() {
            let kid = world.spawn((Name::new(format!("kid{k}")), ChildOf.pair(comp))).id();
            let grand = world.spawn((Name::new("x::y"), ChildOf.pair(kid))).id();
            let same = world.spawn((Name::new("kid"), ChildOf.pair(comp))).id();
            all.extend([kid, grand, same]);
        }
        for &e in &all {
            assert!(round_trips(&world, e), "order {order}: {:?}", world.path(e));
        }
        // `Thing::kid` is the earlier one's kid.
        let earlier_kid = world.lookup("Thing::kid").unwrap();
        assert_eq!(world.path(earlier_kid).as_deref(), Some("Thing::kid"));
        // The later one's kids, by its escaped type path.
        let later_kid = world.path(later).unwrap().replace("::", "\\:\\:") + "::kid";
        assert!(world.lookup(&later_kid).is_some(), "{later_kid}");
        assert_ne!(world.lookup(&later_kid), Some(earlier_kid));
    }
}

/// A user hierarchy spelled like a component's type path
/// (`review_session23` → `Pos`, as a game's `game` → `Player`): its path
/// looks it up again, and the component's type path still gives the
/// component.
#[test]
#[ignore = "finding (left: lookup tries a whole string as a component type path first): a user child whose path equals a component's type path (root review_session23, child Pos) does not round trip: lookup(path) gives the component Pos"]
fn user_hierarchy_spelled_like_a_type_path_round_trips() {
    let mut world = World::new();
    let pos_c = cid::<Pos>(&mut world);
    let type_path = world.component_info(pos_c).unwrap().type_name().to_owned();
    let segments: Vec<&str> = type_path.split("::").collect();
    assert!(segments.len() >= 2, "{type_path}");
    let mut parent: Option<Entity> = None;
    let mut made = Vec::new();
    for segment in &segments {
        let e = match parent {
            None => world.spawn(Name::new(segment.to_string())).id(),
            Some(p) => world.spawn((Name::new(segment.to_string()), ChildOf.pair(p))).id(),
        };
        made.push(e);
        parent = Some(e);
    }
    let leaf = *made.last().unwrap();
    assert!(round_trips(&world, pos_c), "{:?}", world.path(pos_c));
    for &e in &made {
        assert!(round_trips(&world, e), "{:?} -> {:?}", world.path(e), world.path(e).and_then(|p| world.lookup(&p)));
    }
    assert_eq!(world.path(leaf).as_deref(), Some(type_path.as_str()));
}

/// `*` and `_` look the wildcards up, also as the only segment; inside a
/// path they are plain names (a child named `*`); a user root named `*`
/// or `_` still has a path that looks it up.
#[test]
#[ignore = "finding (left: `*` and `_` are reserved names): a user root named \"*\" (or \"_\") has the path \"*\", which lookup resolves to the wildcard: its path no longer looks it up (path's doc promises it always does)"]
fn wildcard_names_as_roots_and_inside_paths() {
    let mut world = World::new();
    assert_eq!(world.lookup("*"), Some(Entity::WILDCARD));
    assert_eq!(world.lookup("_"), Some(Entity::ANY));
    let a = world.spawn(Name::new("a")).id();
    assert_eq!(world.lookup("a::*"), None, "no child named *");
    let star_kid = world.spawn((Name::new("*"), ChildOf.pair(a))).id();
    let any_kid = world.spawn((Name::new("_"), ChildOf.pair(a))).id();
    assert_eq!(world.lookup("a::*"), Some(star_kid));
    assert_eq!(world.lookup("a::_"), Some(any_kid));
    assert!(round_trips(&world, star_kid) && round_trips(&world, any_kid));
    assert_eq!(world.lookup("*::a"), None);
    // The wildcards keep their names.
    assert!(round_trips(&world, Entity::WILDCARD) && round_trips(&world, Entity::ANY));
    let star_root = world.spawn(Name::new("*")).id();
    let under = world.spawn((Name::new("k"), ChildOf.pair(star_root))).id();
    assert_eq!(world.lookup("*"), Some(Entity::WILDCARD), "the wildcard keeps `*`");
    assert!(round_trips(&world, under), "{:?}", world.path(under));
    assert!(round_trips(&world, star_root), "{:?}", world.path(star_root));
}

/// The wildcard parts that do round trip (no root named `*`): children named
/// `*`/`_`, paths through them, and component roots beside them.
#[test]
fn wildcard_names_inside_paths_round_trip() {
    let mut world = World::new();
    let pos_c = cid::<Pos>(&mut world);
    let a = world.spawn(Name::new("a")).id();
    let star_kid = world.spawn((Name::new("*"), ChildOf.pair(a))).id();
    let deeper = world.spawn((Name::new("_"), ChildOf.pair(star_kid))).id();
    let comp_star = world.spawn((Name::new("*"), ChildOf.pair(pos_c))).id();
    assert_eq!(world.path(deeper).as_deref(), Some("a::*::_"));
    assert_eq!(world.lookup("a::*::_"), Some(deeper));
    assert_eq!(world.lookup("Pos::*"), Some(comp_star));
    for e in [a, star_kid, deeper, comp_star, Entity::WILDCARD, Entity::ANY] {
        assert!(round_trips(&world, e), "{:?}", world.path(e));
    }
}

/// A built-in shadowed by a user root, with nested children (one named
/// with `::`), the root with a kid of the same name, the root renamed:
/// every path looks its entity up again.
#[test]
fn shadowed_builtin_with_nested_children_and_a_renamed_root() {
    let mut world = World::new();
    let mut all = Vec::new();
    let prefab = world.builtin_ids().prefab;
    let kid = world.spawn((Name::new("kid"), ChildOf.pair(prefab))).id();
    let grand = world.spawn((Name::new("q::r"), ChildOf.pair(kid))).id();
    all.extend([prefab, kid, grand]);
    for e in &all {
        assert!(round_trips(&world, *e), "{:?}", world.path(*e));
    }
    let root = world.spawn(Name::new("Prefab")).id();
    let root_kid = world.spawn((Name::new("kid"), ChildOf.pair(root))).id();
    all.extend([root, root_kid]);
    for e in &all {
        assert!(round_trips(&world, *e), "shadowed: {:?}", world.path(*e));
    }
    assert_eq!(world.lookup("Prefab::kid"), Some(root_kid));
    world.entity_mut(root).insert(Name::new("Other"));
    for e in &all {
        assert!(round_trips(&world, *e), "renamed: {:?}", world.path(*e));
    }
    assert_eq!(world.lookup("Prefab::kid"), Some(kid));
}
