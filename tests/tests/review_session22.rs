//! Review of commits 1e03cd5 and 7839ff7: `*`/`$c` alone match sparse ids,
//! a plain base owning a pair of an exclusive inherit relationship blocks
//! every pair of it beyond, a shadowed built-in's path is its type path, and
//! `Components::hook_owner`'s flag for pairs (context: 8beab02 and 21d5f46,
//! reviewed by `review_session20.rs`/`review_session21.rs`).
//!
//! Covered: `*`, `$c` and `_` alone over `$this` and fixed sources with
//! sparse components in tables that hold them for some rows only, in the empty
//! table (entities holding only sparse ids, and entities holding nothing,
//! which must not match `*`), on internal entities, prefabs and disabled
//! entities (hidden unless named); sparse components a row inherits from a
//! prefab, compared with inherited table components and with a fixed source;
//! `$c` bound by an earlier or a later term; `!*`, `?*`, `?$c`, or-chains
//! with `*`; `[inout] *` refused, `[in] *` beside a written sparse term;
//! `DynRow::get` on sparse hits, `to_dsl` round trips, `count`; cached
//! (built before and after), fresh and uncached builds under a seeded random
//! churn of sparse and table components (sets emptied and refilled, new
//! archetypes); an exhaustive model of an exclusive inherit relationship over
//! a diamond of plain and prefab bases (every plain/prefab choice and target
//! per node); a plain base changing its exclusive pair or its `Prefab`;
//! `path`/`lookup` round trips of every built-in, shadowed or not, after the
//! shadowing root is renamed or despawned, of the wildcards, of a root named
//! like a built-in's type path, and of children of built-ins; relationship
//! hooks when the first hooked component registers after unhooked pairs
//! exist, and hooked components first registered by commands.
//!
//! Each test runs on its own thread; drop tracking is thread-local, and every
//! value is dropped exactly once.
//!
//! Note on 7839ff7: the built-in `ObserverMarker` registers with an
//! `on_remove` hook in `World::new`, so `registered_hooks` is set in every
//! world before any user code runs and the one-flag shortcut for pairs is
//! never taken; the hook tests here pass either way.
//!
//! Findings (all fixed since but the one marked left: `*`/`$c` on `$this` now
//! run row by row while sparse sets hold entities, seeing each row's own
//! sparse ids; `path` of a component whose short name is taken starts with
//! its type path; `lookup` resolves `*`, `_` and a component as a path's root):
//! - `star_does_not_list_sparse_components_a_row_only_inherits`: on `$this`,
//!   `*` and `$c` list a sparse component an instance only inherits from its
//!   prefab (source: the prefab), although `*` asks for owned ids: an
//!   inherited table component is not listed, and `$c(inst)` on a fixed
//!   source lists only the instance's own sparse ids.
//! - `cached_star_sees_sparse_ids_of_sets_filled_after_matching` (and
//!   `random_churn_star_views_agree_when_sets_empty_and_refill`): a cached
//!   `*`/`$c` query keeps, per matched table, only the sparse sets that were
//!   non-empty when it matched the table: sparse components first given
//!   later (to rows of known tables or of the empty table) are never listed;
//!   the uncached build lists them.
//! - `not_star_matches_entities_owning_nothing`: `!*` matches an entity that
//!   owns no id while exactly one sparse set is non-empty, and nothing at all
//!   (not even entities owning nothing) once two sparse sets are non-empty.
//! - `optional_star_gives_rows_only_for_held_sparse_ids`: `?*`/`?$c` give one
//!   unset row per non-empty sparse set the row does not hold (an entity
//!   owning nothing gets one per set instead of one; an entity with matches
//!   gets extra unset rows), and `?$c` binds `$c` to a component the row does
//!   not have.
//! - `builtin_path_round_trips_with_a_root_named_like_its_type_path`: with
//!   user roots named `Prefab` and `ecs::component::builtin::Prefab`,
//!   `path(Prefab)` is the type path, which `lookup` resolves to the user's
//!   root.
//! - `children_of_a_shadowed_builtin_round_trip`: a child of the built-in
//!   `IsA` has the path `IsA::kid`; once a user root is named `IsA`, `lookup`
//!   of it is `None`.
//! - `user_component_named_like_a_builtin_round_trips`: `path` of a user
//!   component whose short name is a built-in's (`user::Disabled`) is
//!   `"Disabled"`, which `lookup` resolves to the built-in (the type-path
//!   fallback covers only built-ins shadowed by user roots).
//! - `star_up_lists_the_parents_sparse_ids`: `*(self|up)` no longer climbs
//!   for a row that owns no id (here only a `ChildOf` pair) once sparse sets
//!   are in use: the table-level sparse hits stop the climb, and then fail
//!   per row, so the row gets nothing (before 1e03cd5 it got the parent's
//!   ids). `*(up)` is right.
//! - `wildcard_paths_round_trip`: `path(*)` is `"*"` (`"_"` for `_`), but
//!   `lookup("*")` is `None` (and a user root named `*` once there is one);
//!   Flecs looks the wildcards up by these names. (Older than these commits.)

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

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

// ----- components ----------------------------------------------------------------------------

/// A sparse value component (inherited by default).
#[derive(Component, Debug)]
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

/// A table tag.
#[derive(Component, Debug)]
struct Tag;

fn stun(v: u32) -> Stun {
    Stun(v, Token::new())
}

fn mark(v: u32) -> Mark {
    Mark(v, Token::new())
}

fn pos(v: u32) -> Pos {
    Pos(v, Token::new())
}

/// An exclusive `inherit` value relationship.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct Slot(u32, Token);

/// An unhooked value relationship.
#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32, Token);

/// An unhooked tag relationship.
#[derive(Relationship)]
struct Likes;

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
fuel_hook!(fuel_remove, "remove");

/// A hooked value relationship, registered late in the hook tests.
#[derive(Relationship, Debug, PartialEq)]
#[component(on_add = fuel_add, on_remove = fuel_remove)]
struct Fuel(u32, Token);

fn alarm_add(world: DeferredWorld, ctx: HookContext) {
    log(format!("alarm {}", name_of(world.world(), ctx.entity)));
}

/// A hooked plain component.
#[derive(Component)]
#[component(on_add = alarm_add)]
struct Alarm;

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

/// `(row entity, matched id)` of term 0, for the entities in `keep`.
fn id_rows(world: &World, text: &str, keep: &[Entity]) -> Vec<(Entity, Id)> {
    let mut qs = both(world, text);
    let mut got = rows(world, &mut qs, |r| (r.entity(), r.id(0)));
    got.retain(|(e, _)| keep.contains(e));
    // The DSL round trip gives the same rows.
    let again = qs[0].to_dsl();
    let mut round = both(world, &again);
    let mut got_again = rows(world, &mut round, |r| (r.entity(), r.id(0)));
    got_again.retain(|(e, _)| keep.contains(e));
    assert_eq!(got, got_again, "{text:?} vs its to_dsl {again:?}");
    got
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

// ===================================================================== `*` and `$c` alone

/// `*`, `$c` and `_` over `$this`: a table whose rows hold sparse ids in part,
/// the empty table with sparse-only and id-less entities; values read through
/// `DynRow::get`; an entity owning nothing (or only pairs) is no match of `*`.
#[test]
fn star_and_var_alone_list_own_sparse_ids_per_row() {
    let mut world = World::new();
    let (stun_c, mark_c, frozen_c, pos_c) =
        (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Frozen>(&mut world), cid::<Pos>(&mut world));
    let target = world.spawn_empty().id();
    let a = world.spawn((pos(1), stun(10))).id();
    let b = world.spawn(pos(2)).id();
    let c = world.spawn((pos(3), mark(30), Frozen)).id();
    let only_sparse = world.spawn(stun(40)).id();
    let nothing = world.spawn_empty().id();
    let only_pair = world.spawn_empty().id();
    world.entity_mut(only_pair).add_pair::<Likes>(target);
    let pair_and_sparse = world.spawn((Tag, mark(50))).id();
    world.entity_mut(pair_and_sparse).remove::<Tag>().add_pair::<Likes>(target);
    let keep = [target, a, b, c, only_sparse, nothing, only_pair, pair_and_sparse];
    let expected = sorted([
        (a, pos_c.id()),
        (a, stun_c.id()),
        (b, pos_c.id()),
        (c, pos_c.id()),
        (c, mark_c.id()),
        (c, frozen_c.id()),
        (only_sparse, stun_c.id()),
        (pair_and_sparse, mark_c.id()),
    ]);
    assert_eq!(id_rows(&world, "*", &keep), expected);
    assert_eq!(id_rows(&world, "$c", &keep), expected);
    // `$c` binds the component matched.
    let mut qs = both(&world, "$c");
    let bound = rows(&world, &mut qs, |r| (r.entity(), r.var("c").map(Entity::id)));
    for (e, id) in &expected {
        assert!(bound.contains(&(*e, Some(*id))), "{e:?} {id:?}");
    }
    // `_` matches each entity once, id-less ones too.
    let any: Vec<Entity> = id_rows(&world, "_", &keep).into_iter().map(|(e, _)| e).collect();
    assert_eq!(any, sorted(keep));
    // Values of sparse hits, read from the row's own set.
    let mut qs = both(&world, "*");
    let values = rows(&world, &mut qs, |r| {
        (r.entity(), r.get::<Stun>(0).map(|s| s.0), r.get::<Mark>(0).map(|m| m.0), r.get::<Pos>(0).map(|p| p.0))
    });
    let values: Vec<_> = values.into_iter().filter(|(_, s, m, p)| s.is_some() || m.is_some() || p.is_some()).collect();
    assert_eq!(
        values,
        sorted([
            (a, None, None, Some(1)),
            (a, Some(10), None, None),
            (b, None, None, Some(2)),
            (c, None, None, Some(3)),
            (c, None, Some(30), None),
            (only_sparse, Some(40), None, None),
            (pair_and_sparse, None, Some(50), None),
        ])
    );
    // Every row's source is the row itself.
    let sources = rows(&world, &mut qs, |r| r.source(0) == r.entity());
    assert!(sources.iter().all(|&same| same));
    drop(qs);
    drop(world);
    assert_eq!(live(), 0);
}

/// `*`, `$c` and `_` on a fixed source: its own sparse ids beside its table
/// ids, values readable; one holding only sparse ids; one holding nothing.
#[test]
fn fixed_source_star_lists_own_sparse_ids() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c, name_c) =
        (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world), cid::<Name>(&mut world));
    world.spawn(mark(99)); // another holder of Mark
    world.spawn((Name::new("holder"), pos(1), stun(2)));
    world.spawn((Name::new("sparse_only"), mark(3)));
    world.spawn(Name::new("bare"));
    let check = |text: &str, expected: Vec<Id>| {
        let mut qs = both(&world, text);
        let got = rows(&world, &mut qs, |r| r.id(0));
        assert_eq!(got, sorted(expected), "{text}");
    };
    check("*(holder)", vec![name_c.id(), pos_c.id(), stun_c.id()]);
    check("$c(holder)", vec![name_c.id(), pos_c.id(), stun_c.id()]);
    check("*(sparse_only)", vec![name_c.id(), mark_c.id()]);
    check("$c(bare)", vec![name_c.id()]);
    let mut qs = both(&world, "$c(holder)");
    let got = rows(&world, &mut qs, |r| (r.var("c"), r.get::<Stun>(0).map(|s| s.0), r.get::<Pos>(0).map(|p| p.0)));
    assert_eq!(got, sorted([(Some(name_c), None, None), (Some(pos_c), None, Some(1)), (Some(stun_c), Some(2), None)]));
    let mut qs = both(&world, "_(sparse_only)");
    assert_eq!(rows(&world, &mut qs, |r| r.is_set(0)), vec![true]);
    drop(qs);
    drop(world);
    assert_eq!(live(), 0);
}

/// Internal entities (a component entity holding a sparse value), prefabs and
/// disabled entities holding sparse ids stay out of `*` and `$c` unless the
/// query names `Prefab`/`Disabled`.
#[test]
fn internal_prefab_and_disabled_sparse_holders_stay_hidden() {
    let mut world = World::new();
    let (mark_c, pos_c) = (cid::<Mark>(&mut world), cid::<Pos>(&mut world));
    let (prefab_c, disabled_c) = (cid::<Prefab>(&mut world), cid::<Disabled>(&mut world));
    world.entity_mut(pos_c).insert(stun(1));
    let prefab = world.spawn((Prefab, mark(2))).id();
    let disabled = world.spawn((Disabled, mark(3))).id();
    let user = world.spawn(stun(4)).id();
    for text in ["*", "$c", "_"] {
        let mut qs = both(&world, text);
        let got = rows(&world, &mut qs, |r| r.entity());
        assert_eq!(got, vec![user], "{text}");
    }
    assert_eq!(id_rows(&world, "*, Prefab", &[prefab]), vec![(prefab, prefab_c.id()), (prefab, mark_c.id())]);
    assert_eq!(
        id_rows(&world, "$c, Disabled", &[disabled]),
        vec![(disabled, disabled_c.id()), (disabled, mark_c.id())]
    );
    // Naming the sparse component itself: the same holders.
    let mut qs = both(&world, "Stun");
    assert_eq!(rows(&world, &mut qs, |r| r.entity()), vec![user]);
    drop(qs);
    drop(world);
    assert_eq!(live(), 0);
}

/// `$c, Trait($c)` and `Trait($c), $c` give the same solutions, sparse
/// components with the trait included; the same on a fixed source.
#[test]
fn var_bound_by_an_earlier_or_a_later_term() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c) = (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world));
    let trait_ = world.spawn(Name::new("Trait")).id();
    world.add_id(stun_c, trait_.id());
    world.add_id(pos_c, trait_.id());
    let a = world.spawn((Name::new("a"), pos(1), stun(2), mark(3))).id();
    let b = world.spawn(mark(4)).id();
    let c = world.spawn(stun(5)).id();
    let pairs = |text: &str| {
        let mut qs = both(&world, text);
        rows(&world, &mut qs, |r| (r.this(), r.var("c")))
    };
    let expected = sorted([(Some(a), Some(pos_c)), (Some(a), Some(stun_c)), (Some(c), Some(stun_c))]);
    assert_eq!(pairs("$c, Trait($c)"), expected);
    assert_eq!(pairs("Trait($c), $c"), expected);
    let fixed = sorted([(None, Some(pos_c)), (None, Some(stun_c))]);
    assert_eq!(pairs("$c(a), Trait($c)"), fixed);
    assert_eq!(pairs("Trait($c), $c(a)"), fixed);
    // Without the trait: Name, Mark.
    let without = pairs("$c, !Trait($c)");
    assert!(without.contains(&(Some(a), Some(mark_c))) && without.contains(&(Some(b), Some(mark_c))));
    assert!(!without.iter().any(|&(_, c)| c == Some(stun_c) || c == Some(pos_c)));
    drop(world);
    assert_eq!(live(), 0);
}

/// A sparse component an instance only inherits from its prefab: `*` asks
/// for owned ids, as it does for an inherited table component, and `$this`
/// agrees with a fixed source. (A concrete term still reads the inherited
/// value.)
#[test]
fn star_does_not_list_sparse_components_a_row_only_inherits() {
    let mut world = World::new();
    let (tag_c, name_c) = (cid::<Tag>(&mut world), cid::<Name>(&mut world));
    let prefab = world.spawn((Prefab, stun(1), pos(2))).id();
    let inst = world.instantiate(prefab);
    world.entity_mut(inst).insert((Tag, Name::new("inst")));
    // The concrete term reads the prefab's value.
    let mut qs = both(&world, "Stun");
    assert_eq!(
        rows(&world, &mut qs, |r| (r.entity(), r.get::<Stun>(0).map(|s| s.0), r.source(0))),
        vec![(inst, Some(1), prefab)]
    );
    let owned = sorted([(inst, name_c.id()), (inst, tag_c.id())]);
    let mut fixed = both(&world, "$c(inst)");
    let fixed_rows: Vec<(Entity, Id)> = rows(&world, &mut fixed, |r| (inst, r.id(0)));
    assert_eq!(fixed_rows, owned, "fixed source");
    assert_eq!(id_rows(&world, "*", &[inst]), owned, "* on $this");
    assert_eq!(id_rows(&world, "$c", &[inst]), owned, "$c on $this");
    drop(qs);
    drop(fixed);
    drop(world);
    assert_eq!(live(), 0);
}

/// Cached `*`/`$c` built while no sparse set had entities: sparse ids given
/// afterwards (to rows of a matched table and to an entity of the empty
/// table) are listed as the uncached build lists them.
#[test]
fn cached_star_sees_sparse_ids_of_sets_filled_after_matching() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c) = (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world));
    let a = world.spawn(pos(1)).id();
    let empty = world.spawn_empty().id();
    let mut star = world.query_dsl("*").unwrap();
    let mut var = world.query_dsl("$c").unwrap();
    assert_eq!(star.count(&world), 1);
    assert_eq!(var.count(&world), 1);
    world.entity_mut(a).insert(stun(2));
    world.entity_mut(empty).insert(mark(3));
    let expected = sorted([(a, pos_c.id()), (a, stun_c.id()), (empty, mark_c.id())]);
    assert_eq!(sorted(world.query_dsl_uncached("*").unwrap().iter(&world).map(|r| (r.entity(), r.id(0)))), expected);
    assert_eq!(sorted(star.iter(&world).map(|r| (r.entity(), r.id(0)))), expected, "cached *");
    assert_eq!(sorted(var.iter(&world).map(|r| (r.entity(), r.id(0)))), expected, "cached $c");
    drop((star, var));
    drop(world);
    assert_eq!(live(), 0);
}

/// `!*`: an entity owning no id (pairs aside) matches, however many sparse
/// sets have entities; one owning a sparse or table id does not.
#[test]
fn not_star_matches_entities_owning_nothing() {
    let mut world = World::new();
    cid::<Stun>(&mut world);
    cid::<Mark>(&mut world);
    let nothing = world.spawn_empty().id();
    let with_stun = world.spawn(stun(1)).id();
    let with_tag = world.spawn(Tag).id();
    let keep = [nothing, with_stun, with_tag];
    let matches = |world: &World| -> Vec<Entity> {
        let mut qs = both(world, "!*");
        let mut got = rows(world, &mut qs, |r| r.entity());
        got.retain(|e| keep.contains(e));
        got
    };
    assert_eq!(matches(&world), vec![nothing], "one sparse set in use");
    let with_mark = world.spawn(mark(2)).id();
    assert_eq!(matches(&world), vec![nothing], "two sparse sets in use");
    world.despawn(with_mark);
    world.despawn(with_stun);
    assert_eq!(matches(&world), vec![nothing], "none in use");
    drop(world);
    assert_eq!(live(), 0);
}

/// `?*`/`?$c`: a row per id the entity owns, or one unset row where it owns
/// none; `$c` never bound to a component the row does not hold.
#[test]
fn optional_star_gives_rows_only_for_held_sparse_ids() {
    let mut world = World::new();
    let (stun_c, mark_c, pos_c) = (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Pos>(&mut world));
    let nothing = world.spawn_empty().id();
    let with_stun = world.spawn(stun(1)).id();
    let mixed = world.spawn((pos(2), mark(3))).id();
    let keep = [nothing, with_stun, mixed];
    let expected = sorted([
        (nothing, false, None),
        (with_stun, true, Some(stun_c)),
        (mixed, true, Some(pos_c)),
        (mixed, true, Some(mark_c)),
    ]);
    for text in ["?*", "?$c"] {
        let mut qs = both(&world, text);
        let mut got = rows(&world, &mut qs, |r| {
            (
                r.entity(),
                r.is_set(0),
                if text == "?$c" { r.var("c") } else { r.is_set(0).then(|| r.id(0).entity().unwrap()) },
            )
        });
        got.retain(|(e, _, _)| keep.contains(e));
        let got: Vec<_> = got.into_iter().map(|(e, set, c)| (e, set, if set { c } else { None })).collect();
        assert_eq!(got, expected, "{text}");
        // `$c` is bound only where the term matched.
        if text == "?$c" {
            let mut bound = rows(&world, &mut qs, |r| (r.entity(), r.is_set(0), r.var("c")));
            bound.retain(|(e, _, _)| keep.contains(e));
            assert!(bound.iter().all(|&(_, set, c)| set || c.is_none()), "{bound:?}");
        }
    }
    drop(world);
    assert_eq!(live(), 0);
}

/// Or-chains with `*`: the first alternative that holds for the row wins,
/// sparse ids held per row included; an entity owning nothing is no match.
#[test]
fn or_chains_with_star() {
    let mut world = World::new();
    let (stun_c, tag_c, pos_c) = (cid::<Stun>(&mut world), cid::<Tag>(&mut world), cid::<Pos>(&mut world));
    let tagged = world.spawn((Tag, stun(1))).id();
    let sparse_only = world.spawn(stun(2)).id();
    let table_only = world.spawn(pos(3)).id();
    let nothing = world.spawn_empty().id();
    let keep = [tagged, sparse_only, table_only, nothing];
    assert_eq!(
        id_rows(&world, "Tag || *", &keep),
        sorted([(tagged, tag_c.id()), (sparse_only, stun_c.id()), (table_only, pos_c.id())])
    );
    let star_first = id_rows(&world, "* || Tag", &keep);
    assert_eq!(
        star_first,
        sorted([(tagged, tag_c.id()), (tagged, stun_c.id()), (sparse_only, stun_c.id()), (table_only, pos_c.id())])
    );
    drop(world);
    assert_eq!(live(), 0);
}

/// `[inout] *` and `[out] $c` are refused (a wildcard cannot be written),
/// and so is `[in] *` beside a writer of what `*` may match; `*` beside a
/// written sparse term writes through `iter_mut`, and every value is
/// dropped once.
#[test]
fn writing_star_is_refused_and_reading_it_beside_a_writer_is_safe() {
    let mut world = World::new();
    let stun_c = cid::<Stun>(&mut world);
    for text in ["[inout] *", "[out] $c", "[inout] *(self)"] {
        assert!(world.query_dsl(text).is_err(), "{text}");
        assert!(world.query_dsl_uncached(text).is_err(), "{text}");
    }
    assert!(world.query_builder().write(Entity::WILDCARD).build().is_err());
    let a = world.spawn((pos(1), stun(10))).id();
    let b = world.spawn(stun(20)).id();
    // Reading `*`/`$c` beside a writer of an id they may match would alias.
    for text in ["[in] *, [inout] Stun", "[in] $c, [inout] Pos", "[in] *(self|up), [inout] Stun"] {
        assert!(world.query_dsl(text).is_err(), "{text}");
        assert!(world.query_dsl_uncached(text).is_err(), "{text}");
    }
    // Without an access modifier, `*` beside a writer is a filter.
    let mut q = world.query_dsl("*, [inout] Stun").unwrap();
    let mut seen = Vec::new();
    q.iter_mut(&mut world).for_each(|mut row| {
        let id = row.id(0);
        let entity = row.entity();
        // Beside a writer the unmodified `*` reads nothing (as `[none]`).
        assert!(row.get::<Stun>(0).is_none() && row.get::<Pos>(0).is_none(), "{entity:?} {id:?}");
        if let Some(mut s) = row.get_mut::<Stun>(1) {
            s.0 += 1;
            s.1 = Token::new();
        }
        seen.push((entity, id));
    });
    seen.sort();
    let pos_c = world.component_id::<Pos>().unwrap();
    assert_eq!(seen, sorted([(a, pos_c.id()), (a, stun_c.id()), (b, stun_c.id())]));
    // Each row of `*` wrote once: a's Stun twice (two rows: Pos, Stun), b's once.
    assert_eq!(world.get::<Stun>(a).map(|s| s.0), Some(12));
    assert_eq!(world.get::<Stun>(b).map(|s| s.0), Some(21));
    assert_eq!(live(), 3);
    drop(q);
    drop(world);
    assert_eq!(live(), 0);
}

/// `*(up)` and `*(self|up)` with sparse ids on the parent: the parent's own
/// ids, sparse ones included; `self|up` stops at the row's own ids, and a row
/// owning none climbs (as it did before sparse ids were matched).
#[test]
fn star_up_lists_the_parents_sparse_ids() {
    let mut world = World::new();
    let (stun_c, mark_c, name_c, pos_c) =
        (cid::<Stun>(&mut world), cid::<Mark>(&mut world), cid::<Name>(&mut world), cid::<Pos>(&mut world));
    let parent = world.spawn((Name::new("p"), stun(1))).id();
    let a = world.spawn((ChildOf.pair(parent), mark(2))).id();
    let b = world.spawn((ChildOf.pair(parent), pos(3))).id();
    let bare = world.spawn(ChildOf.pair(parent)).id();
    let keep = [parent, a, b, bare];
    let up = id_rows(&world, "*(up)", &keep);
    let expected: Vec<(Entity, Id)> =
        sorted([a, b, bare].into_iter().flat_map(|e| [(e, name_c.id()), (e, stun_c.id())]));
    assert_eq!(up, expected);
    let mut qs = both(&world, "*(up)");
    let values = rows(&world, &mut qs, |r| (r.entity(), r.source(0), r.get::<Stun>(0).map(|s| s.0)));
    assert!(values.iter().all(|&(_, src, _)| src == parent));
    assert_eq!(values.iter().filter(|v| v.2 == Some(1)).count(), 3);
    let self_up = id_rows(&world, "*(self|up)", &keep);
    assert_eq!(
        self_up,
        sorted([
            (parent, name_c.id()),
            (parent, stun_c.id()),
            (a, mark_c.id()),
            (b, pos_c.id()),
            (bare, name_c.id()),
            (bare, stun_c.id()),
        ])
    );
    drop(qs);
    drop(world);
    assert_eq!(live(), 0);
}

// ----- random churn of `*` ------------------------------------------------------------------

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

/// Component slots of the churn: 0 Stun, 1 Mark, 2 Frozen (sparse), 3 Pos,
/// 4 Tag (table).
const KINDS: usize = 5;

fn churn_insert(world: &mut World, e: Entity, kind: usize, v: u32) {
    let mut entity = world.entity_mut(e);
    match kind {
        0 => entity.insert(stun(v)),
        1 => entity.insert(mark(v)),
        2 => entity.insert(Frozen),
        3 => entity.insert(pos(v)),
        _ => entity.insert(Tag),
    };
}

fn churn_remove(world: &mut World, e: Entity, kind: usize) {
    let mut entity = world.entity_mut(e);
    match kind {
        0 => entity.remove::<Stun>(),
        1 => entity.remove::<Mark>(),
        2 => entity.remove::<Frozen>(),
        3 => entity.remove::<Pos>(),
        _ => entity.remove::<Tag>(),
    };
}

/// Random inserts/removes/spawns/despawns; after each step the cached `*`
/// and `$c` built at the start, fresh cached and uncached builds, and
/// `count` agree with the model (each entity's own ids); values live ==
/// values held. `sentinels` keeps every sparse set non-empty throughout.
fn run_star_churn(seed: u64, steps: usize, sentinels: bool) {
    let mut world = World::new();
    let ids: Vec<Id> = vec![
        cid::<Stun>(&mut world).id(),
        cid::<Mark>(&mut world).id(),
        cid::<Frozen>(&mut world).id(),
        cid::<Pos>(&mut world).id(),
        cid::<Tag>(&mut world).id(),
    ];
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut model: BTreeMap<Entity, BTreeSet<usize>> = BTreeMap::new();
    if sentinels {
        let e = world.spawn((stun(0), mark(0), Frozen)).id();
        model.insert(e, BTreeSet::from([0, 1, 2]));
    }
    let mut early_star = world.query_dsl("*").unwrap();
    let mut early_var = world.query_dsl("$c").unwrap();
    let _ = (early_star.count(&world), early_var.count(&world));
    let mut history = Vec::new();
    for step in 0..steps {
        let op = rng.below(10);
        let alive: Vec<Entity> = model.keys().copied().skip(usize::from(sentinels)).collect();
        let line = if op == 0 || alive.is_empty() {
            let e = world.spawn_empty().id();
            model.insert(e, BTreeSet::new());
            format!("spawn {e:?}")
        } else {
            let e = alive[rng.below(alive.len())];
            let kind = rng.below(KINDS);
            match op {
                1 => {
                    world.despawn(e);
                    model.remove(&e);
                    format!("despawn {e:?}")
                }
                2..=5 => {
                    churn_insert(&mut world, e, kind, step as u32);
                    model.get_mut(&e).unwrap().insert(kind);
                    format!("insert {kind} on {e:?}")
                }
                _ => {
                    churn_remove(&mut world, e, kind);
                    model.get_mut(&e).unwrap().remove(&kind);
                    format!("remove {kind} from {e:?}")
                }
            }
        };
        history.push(line);
        let expected: Vec<(Entity, Id)> =
            model.iter().flat_map(|(&e, kinds)| kinds.iter().map(move |&k| (e, k))).map(|(e, k)| (e, ids[k])).collect();
        let expected = sorted(expected);
        let context = || format!("seed {seed} steps:\n{}", history.join("\n"));
        for (label, q) in [("early *", &mut early_star), ("early $c", &mut early_var)] {
            let got = sorted(q.iter(&world).map(|r| (r.entity(), r.id(0))));
            assert_eq!(got, expected, "{label}\n{}", context());
            assert_eq!(q.count(&world), expected.len(), "{label} count\n{}", context());
        }
        for text in ["*", "$c"] {
            let mut qs = both(&world, text);
            let got = rows(&world, &mut qs, |r| (r.entity(), r.id(0)));
            assert_eq!(got, expected, "{text}\n{}", context());
        }
        let values = model.values().map(|k| k.iter().filter(|&&k| k == 0 || k == 1 || k == 3).count()).sum::<usize>();
        assert_eq!(live(), values, "{}", context());
    }
    drop((early_star, early_var));
    drop(world);
    assert_eq!(live(), 0);
}

/// With every sparse set non-empty throughout, cached (built before the
/// churn), fresh and uncached `*`/`$c` agree with the model.
#[test]
fn random_churn_star_views_agree_with_sets_in_use() {
    for seed in 1..=25 {
        run_star_churn(seed, 120, true);
    }
}

/// The same churn from a world with no sparse value yet: sets empty and
/// refill, and the cached queries must follow.
#[test]
fn random_churn_star_views_agree_when_sets_empty_and_refill() {
    for seed in 1..=25 {
        run_star_churn(seed, 120, false);
    }
}

// ================================================================= exclusive inheritance

/// The diamond `inst -> [A, B]`, `A -> [C]`, `B -> [C]`, `C -> [D]`.
const NODES: usize = 4;
const BASES_OF: [&[usize]; NODES] = [&[2], &[2], &[3], &[]];

/// The naive model: own pair first; else, depth-first over the bases in
/// order, the first pair a prefab owns that no plain base on the path
/// (owning any `(Slot, *)`) blocks.
fn model_slot(prefab: &[bool; NODES], own: &[Option<usize>; NODES], node: usize) -> Option<(usize, usize)> {
    if let Some(t) = own[node] {
        return Some((node, t));
    }
    BASES_OF[node].iter().find_map(|&b| visit_slot(prefab, own, b, false))
}

fn visit_slot(
    prefab: &[bool; NODES],
    own: &[Option<usize>; NODES],
    node: usize,
    blocked: bool,
) -> Option<(usize, usize)> {
    if prefab[node]
        && !blocked
        && let Some(t) = own[node]
    {
        return Some((node, t));
    }
    let blocked = blocked || (!prefab[node] && own[node].is_some());
    BASES_OF[node].iter().find_map(|&b| visit_slot(prefab, own, b, blocked))
}

/// Every plain/prefab choice and every target (or none) of each base of
/// the diamond, and the instance owning one or not: `get_pair`, `has_pair`,
/// the typed `Pair<&Slot>` and runtime `(Slot, *)` agree with the model for
/// the instance and every plain base.
#[test]
fn exclusive_diamond_of_plain_and_prefab_bases_exhaustive() {
    let value = |node: usize, t: usize| (node * 10 + t) as u32;
    for prefab_bits in 0..(1u32 << NODES) {
        for own_code in 0..3usize.pow(NODES as u32) {
            for inst_own in [None, Some(1usize)] {
                let prefab: [bool; NODES] = std::array::from_fn(|i| prefab_bits & (1 << i) != 0);
                let own: [Option<usize>; NODES] =
                    std::array::from_fn(|i| match (own_code / 3usize.pow(i as u32)) % 3 {
                        0 => None,
                        k => Some(k - 1),
                    });
                let mut world = World::new();
                let targets = [world.spawn_empty().id(), world.spawn_empty().id()];
                let mut nodes = [Entity::WILDCARD; NODES];
                for i in (0..NODES).rev() {
                    let e = if prefab[i] { world.spawn(Prefab).id() } else { world.spawn_empty().id() };
                    if let Some(t) = own[i] {
                        world.insert_pair(e, Slot(value(i, t), Token::new()), targets[t]);
                    }
                    for &b in BASES_OF[i] {
                        world.add_pair::<IsA>(e, nodes[b]);
                    }
                    nodes[i] = e;
                }
                let inst = world.spawn_empty().id();
                world.add_pair::<IsA>(inst, nodes[0]);
                world.add_pair::<IsA>(inst, nodes[1]);
                if let Some(t) = inst_own {
                    world.insert_pair(inst, Slot(99, Token::new()), targets[t]);
                }
                let context = format!("prefab {prefab:?} own {own:?} inst {inst_own:?}");
                // The expected reading per holder (the instance: own, else A then B).
                let inst_reads = match inst_own {
                    Some(t) => Some((t, 99)),
                    None => {
                        [0, 1].iter().find_map(|&b| visit_slot(&prefab, &own, b, false)).map(|(n, t)| (t, value(n, t)))
                    }
                };
                let mut holders: Vec<(Entity, Option<(usize, u32)>)> = vec![(inst, inst_reads)];
                for (i, &node) in nodes.iter().enumerate() {
                    holders.push((node, model_slot(&prefab, &own, i).map(|(n, t)| (t, value(n, t)))));
                }
                let mut expected_rows = Vec::new();
                for (i, &(e, reads)) in holders.iter().enumerate() {
                    for (t, &target) in targets.iter().enumerate() {
                        let want = reads.filter(|&(rt, _)| rt == t).map(|(_, v)| v);
                        assert_eq!(
                            world.get_pair::<Slot>(e, target).map(|s| s.0),
                            want,
                            "holder {i} target {t}: {context}"
                        );
                        assert_eq!(world.has_pair::<Slot>(e, target), want.is_some(), "has {i} {t}: {context}");
                    }
                    let is_prefab = i > 0 && prefab[i - 1];
                    if let (false, Some((t, v))) = (is_prefab, reads) {
                        expected_rows.push((e, targets[t], v));
                    }
                }
                let expected_rows = sorted(expected_rows);
                let typed = sorted(world.query::<(Entity, Pair<&Slot>)>().iter(&world).map(|(e, (t, s))| (e, t, s.0)));
                assert_eq!(typed, expected_rows, "typed: {context}");
                let runtime = sorted(
                    world
                        .query_dsl_uncached("(Slot, *)")
                        .unwrap()
                        .iter(&world)
                        .map(|r| (r.entity(), r.pair_target(0), r.get::<Slot>(0).unwrap().0)),
                );
                assert_eq!(runtime, expected_rows, "runtime: {context}");
                drop(world);
                assert_eq!(live(), 0, "{context}");
            }
        }
    }
}

/// A plain base that gains, changes and loses its exclusive pair, and then
/// becomes a prefab: the instance's reading follows every step (queries
/// built before), and a non-exclusive pair of the same base blocks only
/// itself.
#[test]
fn plain_base_changing_its_exclusive_pair_is_followed() {
    let mut world = World::new();
    let (x, y, z) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let far = world.spawn(Prefab).id();
    world.insert_pair(far, Slot(1, Token::new()), y);
    world.insert_pair(far, Eats(1, Token::new()), y);
    world.insert_pair(far, Eats(2, Token::new()), z);
    let base = world.spawn_empty().id();
    world.add_pair::<IsA>(base, far);
    let inst = world.spawn_empty().id();
    world.add_pair::<IsA>(inst, base);
    let mut typed = world.query::<(Entity, Pair<&Slot>)>();
    let mut runtime = world.query_dsl("(Slot, $t)").unwrap();
    let mut eats = world.query_dsl("(Eats, *)").unwrap();
    let mut views = |world: &World, want: Option<(Entity, u32)>, context: &str| {
        let want: Vec<(Entity, Entity, u32)> = want.map(|(t, v)| (inst, t, v)).into_iter().collect();
        let mut got: Vec<_> = typed.iter(world).map(|(e, (t, s))| (e, t, s.0)).filter(|r| r.0 == inst).collect();
        got.sort();
        assert_eq!(got, want, "typed: {context}");
        let got: Vec<_> = runtime
            .iter(world)
            .map(|r| (r.entity(), r.var("t").unwrap(), r.get::<Slot>(0).unwrap().0))
            .filter(|r| r.0 == inst)
            .collect();
        assert_eq!(got, want, "runtime: {context}");
        for t in [x, y, z] {
            assert_eq!(
                world.get_pair::<Slot>(inst, t).map(|s| s.0),
                want.iter().find(|r| r.1 == t).map(|r| r.2),
                "get_pair: {context}"
            );
        }
    };
    views(&world, Some((y, 1)), "base owns nothing");
    world.insert_pair(base, Slot(5, Token::new()), x);
    views(&world, None, "base owns (Slot, x)");
    world.insert_pair(base, Slot(6, Token::new()), y);
    views(&world, None, "base owns (Slot, y) instead");
    assert_eq!(world.get_pair::<Slot>(base, y).map(|s| s.0), Some(6));
    world.entity_mut(base).insert(Prefab);
    views(&world, Some((y, 6)), "base became a prefab");
    world.entity_mut(base).remove::<Prefab>();
    world.remove_pair::<Slot>(base, y);
    views(&world, Some((y, 1)), "base owns nothing again");
    // A plain base's own (Eats, y) hides only (Eats, y) beyond it.
    world.insert_pair(base, Eats(7, Token::new()), y);
    let got = sorted(
        eats.iter(&world).filter(|r| r.entity() == inst).map(|r| (r.pair_target(0), r.get::<Eats>(0).unwrap().0)),
    );
    assert_eq!(got, vec![(z, 2)]);
    drop((typed, runtime, eats));
    drop(world);
    assert_eq!(live(), 0);
}

// ================================================================= paths and lookup

fn builtins(world: &World) -> Vec<Entity> {
    let ids = world.builtin_ids();
    vec![
        ids.prefab,
        ids.child_of,
        ids.is_a,
        world.component_id::<Name>().unwrap(),
        world.component_id::<Disabled>().unwrap(),
        world.component_id::<ecs::observer::ObserverMarker>().unwrap(),
        world.component_id::<ecs::component::Internal>().unwrap(),
        world.component_id::<ecs::component::ComponentInfo>().unwrap(),
    ]
}

fn round_trips(world: &World, entity: Entity) -> bool {
    world.path(entity).and_then(|path| world.lookup(&path)) == Some(entity)
}

/// Every built-in's path looks it up again: unshadowed (its short name),
/// shadowed by a user root (its type path, the root keeping the short name),
/// after the root is renamed, and after it is despawned.
#[test]
fn every_builtin_path_round_trips_shadowed_or_not() {
    let mut world = World::new();
    for builtin in builtins(&world) {
        let short = world.path(builtin).expect("a built-in has a name");
        assert!(!short.contains("::"), "{short}");
        assert!(round_trips(&world, builtin), "{short}");
        let root = world.spawn(Name::new(short.clone())).id();
        assert!(round_trips(&world, builtin), "{short} shadowed");
        assert!(round_trips(&world, root), "root {short}");
        assert_eq!(world.lookup(&short), Some(root));
        let full = world.path(builtin).unwrap();
        assert_eq!(Some(full.as_str()), world.component_info(builtin).map(|i| i.type_name()), "{short}");
        world.entity_mut(root).insert(Name::new(format!("{short}_renamed")));
        assert_eq!(world.path(builtin).as_deref(), Some(short.as_str()), "{short} after the rename");
        assert!(round_trips(&world, builtin), "{short} after the rename");
        world.entity_mut(root).insert(Name::new(short.clone()));
        assert!(round_trips(&world, builtin), "{short} shadowed again");
        assert!(world.despawn(root));
        assert_eq!(world.path(builtin).as_deref(), Some(short.as_str()), "{short} after the despawn");
        assert!(round_trips(&world, builtin), "{short} after the despawn");
    }
    // A user root under a root named like a built-in keeps its path.
    let user = world.spawn(Name::new("Prefab")).id();
    let child = world.spawn((Name::new("kid"), ChildOf.pair(user))).id();
    assert_eq!(world.path(child).as_deref(), Some("Prefab::kid"));
    assert!(round_trips(&world, child));
}

/// A user root named like a built-in's full type path (besides one taking
/// its short name): the built-in's path still looks it up.
#[test]
#[ignore = "finding (left: a root named exactly like a type path is contrived): with roots named Prefab and ecs::component::builtin::Prefab, lookup(path(Prefab)) gives the user's root"]
fn builtin_path_round_trips_with_a_root_named_like_its_type_path() {
    let mut world = World::new();
    let prefab = world.builtin_ids().prefab;
    let type_path = world.component_info(prefab).unwrap().type_name().to_owned();
    let literal = world.spawn(Name::new(type_path)).id();
    assert!(round_trips(&world, prefab), "only the type-path root");
    assert!(round_trips(&world, literal));
    let short = world.spawn(Name::new("Prefab")).id();
    assert!(round_trips(&world, short));
    assert!(round_trips(&world, literal));
    assert!(round_trips(&world, prefab), "both roots");
}

/// Children of a built-in: their paths look them up, also once a user root
/// has the built-in's name.
#[test]
fn children_of_a_shadowed_builtin_round_trip() {
    let mut world = World::new();
    let is_a = world.builtin_ids().is_a;
    let kid = world.spawn((Name::new("kid"), ChildOf.pair(is_a))).id();
    assert!(round_trips(&world, kid), "unshadowed: {:?}", world.path(kid));
    world.spawn(Name::new("IsA"));
    assert!(round_trips(&world, kid), "shadowed: {:?}", world.path(kid));
}

/// User components whose short names are those of built-ins.
mod user {
    use ecs::prelude::*;

    #[derive(Component)]
    pub struct Disabled;

    #[derive(Component)]
    pub struct Prefab;
}

/// A user component named like a built-in (`user::Disabled`): its path looks
/// it up again, and the built-in's still looks the built-in up.
#[test]
fn user_component_named_like_a_builtin_round_trips() {
    let mut world = World::new();
    let mine = world.register_component::<user::Disabled>();
    let other = world.register_component::<user::Prefab>();
    let builtin = world.component_id::<Disabled>().unwrap();
    assert_ne!(mine, builtin);
    assert!(round_trips(&world, mine), "{:?}", world.path(mine));
    assert!(round_trips(&world, other), "{:?}", world.path(other));
    assert!(round_trips(&world, builtin), "{:?}", world.path(builtin));
    world.spawn(Name::new("Disabled"));
    assert!(round_trips(&world, mine), "shadowed: {:?}", world.path(mine));
    assert!(round_trips(&world, builtin), "shadowed: {:?}", world.path(builtin));
}

/// The wildcards' names look them up again (Flecs: `*` and `_`).
#[test]
fn wildcard_paths_round_trip() {
    let mut world = World::new();
    for wildcard in [Entity::WILDCARD, Entity::ANY] {
        assert!(round_trips(&world, wildcard), "{:?}", world.path(wildcard));
    }
    world.spawn(Name::new("*"));
    assert!(round_trips(&world, Entity::WILDCARD), "shadowed");
}

// ================================================================= relationship hooks

/// Pairs of unhooked relationships exist before any component with hooks is
/// registered; then a hooked relationship registers: its pairs run hooks
/// (with values), the unhooked ones still run none, and every value is
/// dropped once.
#[test]
fn first_hooked_relationship_registered_after_unhooked_pairs() {
    let mut world = World::new();
    let t = world.spawn(Name::new("t")).id();
    let e = world.spawn(Name::new("e")).id();
    world.insert_pair(e, Eats(1, Token::new()), t);
    world.entity_mut(e).add_pair::<Likes>(t);
    assert!(take().is_empty());
    world.insert_pair(e, Fuel(2, Token::new()), t);
    assert_eq!(take(), ["add e:t Some(2)"]);
    world.insert_pair(e, Eats(3, Token::new()), t);
    world.entity_mut(e).remove_pair::<Likes>(t).add_pair::<Likes>(e);
    assert!(take().is_empty());
    assert!(world.remove_pair::<Fuel>(e, t));
    assert_eq!(take(), ["remove e:t Some(2)"]);
    world.insert_pair(e, Fuel(4, Token::new()), e);
    assert_eq!(take(), ["add e:e Some(4)"]);
    world.despawn(t);
    let log = take();
    assert!(log.is_empty(), "despawning t touches no Fuel pair: {log:?}");
    assert_eq!(live(), 1);
    world.despawn(e);
    assert_eq!(take(), ["remove e:e Some(4)"]);
    assert_eq!(live(), 0);
}

/// A hooked relationship and a hooked component first registered by
/// commands in a system: their hooks run when the commands apply.
#[test]
fn hooked_components_first_registered_through_commands() {
    let mut world = World::new();
    let t = world.spawn(Name::new("t")).id();
    let e = world.spawn(Name::new("e")).id();
    world.insert_pair(e, Eats(1, Token::new()), t);
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert_pair(Fuel(5, Token::new()), t);
        commands.spawn((Name::new("n"), Alarm, Fuel(6, Token::new()).pair(t)));
    });
    // One command's hooks, then the spawn's (its bundle's order aside).
    let log = take();
    assert_eq!(log.first().map(String::as_str), Some("add e:t Some(5)"), "{log:?}");
    assert_eq!(sorted(log[1..].iter().cloned()), ["add n:t Some(6)", "alarm n"], "{log:?}");
    let mut schedule = Schedule::new();
    schedule.add_systems(move |mut commands: Commands| {
        commands.entity(e).remove_pair::<Fuel>(t);
    });
    schedule.run(&mut world);
    assert_eq!(take(), ["remove e:t Some(5)"]);
    drop(schedule);
    drop(world);
    assert!(take().is_empty(), "world drop runs no hooks");
    assert_eq!(live(), 0);
}
