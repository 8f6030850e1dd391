//! Adversarial review of two recent library changes:
//!
//! - d251696: a `!` term written with an access (`[out] !T`, `[inout] !T`,
//!   `[in] !T`) builds and accesses nothing (before: an error)
//!   (`ecs/src/query/dynamic/compile.rs`, `DataAccess::None` for `Not`);
//! - 866e32e: a bundle holding both `ChildOf` and `IsA` pairs adds its
//!   `ChildOf` pairs first, then the rest in bundle order
//!   (`BundlePairs::parents_first`, `ecs/src/world/bundle_pairs.rs`), and
//!   `up IsA` terms skip `dont_inherit` ids per or-chain alternative and
//!   before `_` takes its one id (`self_hits`/`pattern_hits` with `along`,
//!   `ecs/src/query/dynamic/eval.rs`).
//!
//! Pinned here: the declared access (`DynQuery::update_access`) of `!` terms
//! with every access, `to_dsl` round trips, or-chain refusals, builder
//! equivalents, `RuntimeQuery` systems (conflict check and schedule
//! ambiguities), `iter_mut`, cached and uncached queries; for bundles the
//! observer order, prefab children under the new parent, sibling names,
//! several bases, exclusive and union relationships, commands, `insert_if_new`,
//! refusals that change nothing and drops; for `up IsA`: `_`, `*`, `(R, _)`,
//! `(_, t)`, variables, three-alternative or-chains, `!`/`?` and a cached
//! query following its base.
//!
//! Findings (3): the first and third are fixed (the tests pass: a bundle
//! without a `Name` is refused for a sibling clash under its final parent
//! before anything lands; bases are checked against the final parent only);
//! the second is left (ignored), as `World::insert` documents that a refused
//! named insert takes back the name and the parent only:
//! - `a_refused_named_insert_with_static_values_changes_nothing`: inserting
//!   `(Pos, IsA.pair(b), ChildOf.pair(dock))` into an entity named "x" while
//!   `dock` has a child "x" panics (right), but `Pos` stays: the static part
//!   lands first (`insert_bundle_registered`) and the sibling clash is only
//!   found when `add_to_by_policy` adds the `ChildOf` pair; `refuse_invalid`
//!   calls `check_pair` with `names = false`, and without a `Name` in the
//!   bundle there is no `NameInsertUndo`.
//! - `a_refused_insert_of_a_name_with_a_base_and_a_parent_changes_nothing`:
//!   inserting `(Name("x"), IsA.pair(b), ChildOf.pair(dock))` into an unnamed
//!   root refused for the same clash takes back the name and the parent
//!   (`refuse_inserted_name_clash`) but keeps `(IsA, b)`, the inherited values
//!   and the instantiated prefab child: `NameInsertUndo` restores only name,
//!   parent and `Prefab`.
//! - `a_base_on_the_line_of_a_replaced_parent_only_is_accepted`: a spawn of
//!   `(IsA.pair(b), ChildOf.pair(under_b), ChildOf.pair(p2))` is refused with
//!   `AncestorInstance`, though `ChildOf` is exclusive (the entity ends under
//!   `p2`, as the control shows) and `parents_first` adds `(IsA, b)` after both
//!   parents: `refuse_invalid` checks the base against every `ChildOf` pair of
//!   the bundle, not the last (effective) one.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::{DynQuery, QueryAccess, TermAccess};
use ecs::system::{CommandQueue, RuntimeQuery, RuntimeQuerySpec};
use ecs_tests::{DropLog, DropTable, panic_message};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Vel(f32);

#[derive(Component)]
struct Tag;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Local(u32);

#[derive(Component)]
#[component(on_instantiate = "dont_inherit")]
struct LocalTag;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct MaxSpeed(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Over(u32);

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
struct Weight {
    w: u32,
}

#[derive(Relationship)]
#[relationship(exclusive)]
struct Docked;

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

/// A pair value carrying a drop-logged value.
#[derive(Relationship)]
struct Owes(#[allow(dead_code)] DropTable);

#[derive(Resource, Default)]
struct Log(Vec<String>);

fn register(world: &mut World) {
    world.register_component::<Pos>();
    world.register_component::<Vel>();
    world.register_component::<Tag>();
    world.register_component::<Local>();
    world.register_component::<LocalTag>();
    world.register_component::<MaxSpeed>();
    world.register_component::<Likes>();
    world.register_component::<Weight>();
    world.register_component::<Movement>();
    world.register_component::<ChildOf>();
    world.register_component::<IsA>();
}

fn access_of(q: &DynQuery) -> QueryAccess {
    let mut access = QueryAccess::default();
    q.update_access(&mut access);
    access
}

fn build(world: &World, dsl: &str, cached: bool) -> DynQuery {
    let q = if cached { world.query_dsl(dsl) } else { world.query_dsl_uncached(dsl) };
    q.unwrap_or_else(|error| panic!("{dsl}: {error}"))
}

/// `(row entity, source of term 0)` of every row of `dsl`, cached and
/// uncached (asserted equal).
fn dsl_rows(world: &World, dsl: &str) -> Vec<(Entity, Entity)> {
    let mut got = [true, false].map(|cached| {
        let mut q = build(world, dsl, cached);
        let mut rows: Vec<(Entity, Entity)> = q.iter(world).map(|r| (r.entity(), r.source(0))).collect();
        rows.sort();
        rows
    });
    assert_eq!(got[0], got[1], "{dsl}: cached and uncached differ");
    core::mem::take(&mut got[0])
}

/// Logs OnAdd of `ChildOf` and `IsA` pairs (with the parent the entity has
/// when its `IsA` pair lands), of `Tag` and of (inherited) `MaxSpeed`.
fn log_world() -> World {
    let mut world = World::new();
    register(&mut world);
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<OnAdd, Pair<ChildOf>>, mut log: ResMut<Log>| {
        log.0.push(format!("childof {:?}", t.pair_target().unwrap()));
    });
    world.add_observer(|t: Trigger<OnAdd, Pair<IsA>>, h: Relations<ChildOf>, mut log: ResMut<Log>| {
        log.0.push(format!("isa {:?} under {:?}", t.pair_target().unwrap(), h.target(t.entity())));
    });
    world.add_observer(|_: Trigger<OnAdd, Tag>, mut log: ResMut<Log>| log.0.push("tag".to_owned()));
    world.add_observer(|_: Trigger<OnAdd, MaxSpeed>, mut log: ResMut<Log>| log.0.push("maxspeed".to_owned()));
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    core::mem::take(&mut world.resource_mut::<Log>().0)
}

// ----- `!` terms written with an access -----------------------------------------------------

#[test]
fn a_not_term_with_any_access_declares_no_borrow_and_only_excludes() {
    let mut world = World::new();
    register(&mut world);
    let (pos, vel) = (world.component_id::<Pos>().unwrap(), world.component_id::<Vel>().unwrap());
    let plain = world.spawn(Pos(1.0)).id();
    world.spawn((Pos(2.0), Vel(1.0)));
    for access in ["", "[in] ", "[out] ", "[inout] ", "[none] "] {
        let dsl = format!("[inout] Pos, {access}!Vel");
        for cached in [true, false] {
            let mut q = build(&world, &dsl, cached);
            let declared = access_of(&q);
            assert_eq!(declared.writes(), &[pos], "{dsl}");
            assert!(declared.reads().is_empty(), "{dsl}: reads {:?}", declared.reads());
            assert!(!declared.reads_all() && declared.reads_other().is_empty(), "{dsl}");
            assert_eq!(declared.conflict(), None, "{dsl}");
            assert_eq!(declared.filter().len(), 1, "{dsl}");
            assert_eq!(declared.filter()[0].with.as_slice(), &[pos], "{dsl}");
            assert_eq!(declared.filter()[0].without.as_slice(), &[vel], "{dsl}");
            let rows: Vec<(Entity, bool, Option<Vel>)> =
                q.iter(&world).map(|r| (r.entity(), r.is_set(1), r.get::<Vel>(1).copied())).collect();
            assert_eq!(rows, vec![(plain, false, None)], "{dsl} cached {cached}");
        }
    }
}

#[test]
fn iter_mut_writes_the_write_term_and_hands_out_nothing_for_an_out_not_term() {
    let mut world = World::new();
    register(&mut world);
    let plain = world.spawn(Pos(1.0)).id();
    let moving = world.spawn((Pos(2.0), Vel(1.0))).id();
    for cached in [true, false] {
        let mut q = build(&world, "[out] Pos, [out] !Vel", cached);
        let mut seen = Vec::new();
        q.iter_mut(&mut world).for_each(|mut row| {
            seen.push((row.entity(), row.get_mut::<Vel>(1).is_none(), row.is_set(1)));
            row.get_mut::<Pos>(0).unwrap().0 += 10.0;
        });
        assert_eq!(seen, vec![(plain, true, false)], "cached {cached}");
    }
    assert_eq!(world.get::<Pos>(plain), Some(&Pos(21.0)));
    assert_eq!(world.get::<Pos>(moving), Some(&Pos(2.0)));
    assert_eq!(world.get::<Vel>(moving), Some(&Vel(1.0)));
}

#[test]
fn a_write_and_an_out_not_of_the_same_component_build_without_conflict_and_match_nothing() {
    let mut world = World::new();
    register(&mut world);
    world.spawn(Pos(1.0));
    world.spawn((Pos(1.0), Vel(1.0)));
    let pos = world.component_id::<Pos>().unwrap();
    for dsl in ["[inout] Pos, [out] !Pos", "[out] !Pos, [inout] Pos", "[inout] Pos, [in] !Pos"] {
        for cached in [true, false] {
            let mut q = build(&world, dsl, cached);
            let declared = access_of(&q);
            assert_eq!(
                (declared.writes(), declared.reads(), declared.conflict()),
                (&[pos][..], &[][..], None),
                "{dsl}"
            );
            let mut count = 0;
            q.iter_mut(&mut world).for_each(|_| count += 1);
            assert_eq!(count, 0, "{dsl} cached {cached}");
        }
    }
}

#[test]
fn to_dsl_keeps_the_written_access_of_a_not_term_and_parses_back_to_the_same_terms() {
    let mut world = World::new();
    register(&mut world);
    for dsl in [
        "Pos, [out] !Vel",
        "[in] !Vel, Pos",
        "[inout] Pos, [inout] !Vel",
        "Pos, [out] !Vel(up ChildOf)",
        "Pos, [out] !(Likes, *)",
        "Pos, [inout] !Likes(self|up ChildOf, *)",
        "Pos, (Likes, $x), [out] !Pos($x)",
        "Pos, [out] !Vel, [out] ?Tag",
    ] {
        for cached in [true, false] {
            let q = build(&world, dsl, cached);
            assert_eq!(q.to_dsl(), dsl);
            let again = build(&world, &q.to_dsl(), cached);
            assert_eq!(again.terms(), q.terms(), "{dsl}");
            assert_eq!(again.to_dsl(), dsl);
        }
    }
}

#[test]
fn out_not_terms_off_this_or_on_wildcards_build_and_match_as_plain_not_terms() {
    let mut world = World::new();
    register(&mut world);
    let vel = world.component_id::<Vel>().unwrap();
    let fast = world.spawn(Vel(1.0)).id();
    let slow = world.spawn_empty().id();
    let a = world.spawn((Pos(1.0), Likes.pair(fast))).id();
    let b = world.spawn((Pos(2.0), Likes.pair(slow))).id();
    let c = world.spawn(Pos(3.0)).id();
    let under_fast = world.spawn((Pos(4.0), ChildOf.pair(fast))).id();
    for (written, plain) in [
        ("Pos, (Likes, $x), [out] !Vel($x)", "Pos, (Likes, $x), !Vel($x)"),
        ("Pos, [inout] !(Likes, *)", "Pos, !(Likes, *)"),
        ("Pos, [out] !Vel(up ChildOf)", "Pos, !Vel(up ChildOf)"),
    ] {
        let mut expected = dsl_rows(&world, plain);
        expected.sort();
        assert_eq!(dsl_rows(&world, written), expected, "{written}");
        let declared = access_of(&build(&world, written, true));
        assert!(declared.writes().is_empty(), "{written}: writes {:?}", declared.writes());
        assert!(!declared.reads().contains(&vel) && !declared.reads_other().contains(&vel), "{written}");
        assert!(!declared.reads_all(), "{written}");
    }
    let rows: Vec<Entity> = dsl_rows(&world, "Pos, (Likes, $x), [out] !Vel($x)").into_iter().map(|r| r.0).collect();
    assert_eq!(rows, vec![b]);
    let rows: Vec<Entity> = dsl_rows(&world, "Pos, [inout] !(Likes, *)").into_iter().map(|r| r.0).collect();
    let mut expected = vec![c, under_fast];
    expected.sort();
    assert_eq!(rows, expected);
    let rows: Vec<Entity> = dsl_rows(&world, "Pos, [out] !Vel(up ChildOf)").into_iter().map(|r| r.0).collect();
    let mut expected = vec![a, b, c];
    expected.sort();
    assert_eq!(rows, expected);
}

#[test]
fn not_inside_or_before_an_or_chain_stays_an_error_with_its_offset_whatever_the_access() {
    let mut world = World::new();
    register(&mut world);
    let error = world.query_dsl("[out] !Pos || Vel").unwrap_err();
    assert_eq!(error.offset, 6, "{error}");
    assert!(error.message.contains("cannot prefix an or-chain"), "{error}");
    let error = world.query_dsl("[inout] Pos || !Vel").unwrap_err();
    assert_eq!(error.offset, 15, "{error}");
    assert!(error.message.contains("inside an or-chain"), "{error}");
    let error = world.query_dsl_uncached("Tag, [in] ?Pos || Vel").unwrap_err();
    assert_eq!(error.offset, 10, "{error}");
    // A written or-chain is still refused; the `!` next to it does not matter.
    assert!(world.query_dsl("[out] !Tag, [out] Pos || Vel").is_err());
    // Read or-chains next to an `[out] !` term are fine.
    let e = world.spawn(Vel(1.0)).id();
    world.spawn((Vel(1.0), Tag));
    assert_eq!(dsl_rows(&world, "[in] Pos || Vel, [out] !Tag"), vec![(e, e)]);
}

#[test]
fn a_builder_not_or_chain_declares_the_same_access_with_or_without_a_written_access() {
    let mut world = World::new();
    register(&mut world);
    let (pos, vel, tag) = (
        world.component_id::<Pos>().unwrap(),
        world.component_id::<Vel>().unwrap(),
        world.component_id::<Tag>().unwrap(),
    );
    world.spawn((Tag, Pos(1.0)));
    world.spawn((Tag, Vel(1.0)));
    world.spawn(Tag);
    let plain = world.query_builder().with(tag).without(pos).or(vel).build_in(&world).unwrap();
    let written = world.query_builder().with(tag).without(pos).or(vel).access(TermAccess::Out).build_in(&world);
    let mut written = written.expect("a `!` chain accesses nothing, whatever its written access");
    let (a, b) = (access_of(&plain), access_of(&written));
    assert!(b.writes().is_empty() && b.reads().is_empty() && !b.reads_all());
    assert_eq!(a.filter(), b.filter());
    let mut plain = plain;
    let rows = |q: &mut DynQuery, world: &World| q.iter(world).map(|r| r.entity()).collect::<Vec<_>>();
    assert_eq!(rows(&mut plain, &world), rows(&mut written, &world));
}

#[test]
fn builder_equivalents_of_out_not_terms_give_the_dsls_terms() {
    let mut world = World::new();
    register(&mut world);
    let (pos, vel, child_of) = (
        world.component_id::<Pos>().unwrap(),
        world.component_id::<Vel>().unwrap(),
        world.component_id::<ChildOf>().unwrap(),
    );
    let q = world.query_builder().write(pos).without(vel).access(TermAccess::Out).build_in(&world).unwrap();
    assert_eq!(q.to_dsl(), "[inout] Pos, [out] !Vel");
    assert_eq!(q.terms(), world.query_dsl("[inout] Pos, [out] !Vel").unwrap().terms());
    let q = world.query_builder().read(pos).write(vel).negate_last().build_in(&world).unwrap();
    assert_eq!(q.to_dsl(), "[in] Pos, [inout] !Vel");
    assert_eq!(access_of(&q).writes(), &[] as &[Entity]);
    assert_eq!(access_of(&q).reads(), &[pos]);
    // Off `$this`: a write there is refused, a `!` written [inout] there is not.
    let q = world.query_builder().read(pos).write(vel).negate_last().up(child_of).build_in(&world).unwrap();
    assert_eq!(q.to_dsl(), "[in] Pos, [inout] !Vel(up ChildOf)");
    assert!(world.query_builder().read(pos).write(vel).up(child_of).build().is_err());
    // A `!` term with a value-less `None` access and with `In` give the same rows.
    let p = world.spawn(Pos(1.0)).id();
    world.spawn((Pos(1.0), Vel(1.0)));
    for access in [TermAccess::None, TermAccess::In, TermAccess::Out, TermAccess::InOut, TermAccess::Default] {
        let mut q = world.query_builder().read(pos).without(vel).access(access).build_uncached().unwrap();
        assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![p], "{access:?}");
    }
}

// ----- systems -----------------------------------------------------------------------------

struct PosNotVel;
impl RuntimeQuerySpec for PosNotVel {
    fn build(world: &mut World) -> DynQuery {
        world.register_component::<Vel>();
        world.query_dsl("[inout] Pos, [out] !Vel").unwrap()
    }
}

struct PosMaybeVel;
impl RuntimeQuerySpec for PosMaybeVel {
    fn build(world: &mut World) -> DynQuery {
        world.register_component::<Vel>();
        world.query_dsl("[inout] Pos, [out] ?Vel").unwrap()
    }
}

struct LikedWithoutVel;
impl RuntimeQuerySpec for LikedWithoutVel {
    fn build(world: &mut World) -> DynQuery {
        register(world);
        world.query_dsl("[in] Pos, (Likes, $x), [out] !Vel($x)").unwrap()
    }
}

struct LikedWithVel;
impl RuntimeQuerySpec for LikedWithVel {
    fn build(world: &mut World) -> DynQuery {
        register(world);
        world.query_dsl("[in] Pos, (Likes, $x), [in] Vel($x)").unwrap()
    }
}

fn writes_both(mut runtime: RuntimeQuery<PosNotVel>, mut typed: Query<&mut Pos, With<Vel>>) {
    runtime.iter_mut().for_each(|mut row| row.get_mut::<Pos>(0).unwrap().0 = 10.0);
    for mut pos in typed.iter_mut() {
        pos.0 = 20.0;
    }
}

fn writes_both_maybe(mut runtime: RuntimeQuery<PosMaybeVel>, typed: Query<&mut Pos, With<Vel>>) {
    runtime.iter_mut().for_each(|_| {});
    assert_eq!(typed.iter().count(), 0);
}

fn liked_without_vel(mut runtime: RuntimeQuery<LikedWithoutVel>) {
    runtime.iter().for_each(|_| {});
}

fn liked_with_vel(mut runtime: RuntimeQuery<LikedWithVel>) {
    runtime.iter().for_each(|_| {});
}

fn vel_writer(mut q: Query<&mut Vel>) {
    for mut vel in q.iter_mut() {
        vel.0 += 1.0;
    }
}

#[test]
fn a_runtime_query_with_an_out_not_term_is_disjoint_from_a_typed_writer_in_one_system() {
    let mut world = World::new();
    let plain = world.spawn(Pos(1.0)).id();
    let moving = world.spawn((Pos(1.0), Vel(1.0))).id();
    world.run_system_once(writes_both);
    assert_eq!(world.get::<Pos>(plain), Some(&Pos(10.0)));
    assert_eq!(world.get::<Pos>(moving), Some(&Pos(20.0)));
    // Control: an optional Vel is not disjoint from the typed writer.
    let message = panic_message(|| world.run_system_once(writes_both_maybe));
    assert!(message.contains("Pos"), "{message}");
}

#[test]
fn schedule_sees_no_ambiguity_between_an_out_not_of_another_entity_and_its_writer() {
    let mut world = World::new();
    register(&mut world);
    let fast = world.spawn(Vel(1.0)).id();
    world.spawn((Pos(1.0), Likes.pair(fast)));
    let mut schedule = Schedule::new();
    schedule.add_systems((liked_without_vel, vel_writer));
    schedule.initialize(&mut world).unwrap();
    assert!(
        schedule.ambiguities().is_empty(),
        "{:?}",
        schedule.ambiguities().iter().map(|a| a.to_string()).collect::<Vec<_>>()
    );
    schedule.run(&mut world);
    assert_eq!(world.get::<Vel>(fast), Some(&Vel(2.0)));
    // Control: reading Vel on `$x` conflicts with the writer.
    let mut schedule = Schedule::new();
    schedule.add_systems((liked_with_vel, vel_writer));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1);
}

// ----- bundles with ChildOf and IsA pairs --------------------------------------------------

#[test]
fn spawn_and_insert_add_childof_before_isa_and_the_static_part_first() {
    let mut world = log_world();
    let base = world.spawn((Prefab, MaxSpeed(3))).id();
    let parent = world.spawn_empty().id();
    take_log(&mut world);
    let e = world.spawn((Tag, IsA.pair(base), ChildOf.pair(parent))).id();
    let log = take_log(&mut world);
    assert_eq!(
        log,
        vec![
            "tag".to_owned(),
            format!("childof {parent:?}"),
            format!("isa {base:?} under Some({parent:?})"),
            "maxspeed".to_owned()
        ]
    );
    assert_eq!(world.get::<MaxSpeed>(e), Some(&MaxSpeed(3)));
    // Insert on an entity under another parent: the new parent first too.
    let other = world.spawn_empty().id();
    let f = world.spawn(ChildOf.pair(other)).id();
    take_log(&mut world);
    world.entity_mut(f).insert((IsA.pair(base), Tag, ChildOf.pair(parent)));
    assert_eq!(
        take_log(&mut world),
        vec![
            "tag".to_owned(),
            format!("childof {parent:?}"),
            format!("isa {base:?} under Some({parent:?})"),
            "maxspeed".to_owned()
        ]
    );
    world.check_invariants();
}

#[test]
fn a_bundle_without_childof_keeps_its_order_and_isa_without_childof_is_untouched() {
    let mut world = log_world();
    let b1 = world.spawn((Prefab, MaxSpeed(1))).id();
    let b2 = world.spawn((Prefab, MaxSpeed(2))).id();
    take_log(&mut world);
    let e = world.spawn((IsA.pair(b2), IsA.pair(b1))).id();
    assert_eq!(world.get::<MaxSpeed>(e), Some(&MaxSpeed(2)), "the first base added wins");
    let log = take_log(&mut world);
    assert_eq!(log[0], format!("isa {b2:?} under None"));
    assert_eq!(log.iter().filter(|l| l.starts_with("isa")).count(), 2);
}

#[test]
fn prefab_children_are_instantiated_under_the_instance_placed_under_the_new_parent() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Name::new("ship"))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base), MaxSpeed(5)));
    let dock = world.spawn(Name::new("dock")).id();
    let spawned = world.spawn((Name::new("one"), IsA.pair(base), ChildOf.pair(dock))).id();
    let turret = world.lookup("dock::one::turret").expect("the prefab child under the instance");
    assert_eq!(world.target::<ChildOf>(turret), Some(spawned));
    assert!(!world.has::<Prefab>(turret));
    // An entity that was a child of the base itself, moved out by the same bundle.
    let moved = world.spawn((Name::new("two"), ChildOf.pair(base))).id();
    world.entity_mut(moved).insert((Pos(1.0), IsA.pair(base), ChildOf.pair(dock)));
    assert_eq!(world.path(moved).as_deref(), Some("dock::two"));
    let turret = world.lookup("dock::two::turret").expect("the prefab child under the moved instance");
    assert_eq!(world.target::<ChildOf>(turret), Some(moved));
    assert_eq!(world.get::<MaxSpeed>(turret), Some(&MaxSpeed(5)));
    let base_children: Vec<Entity> = world.children(base).collect();
    assert_eq!(base_children.len(), 1, "only the prefab's own turret: {base_children:?}");
    world.check_invariants();
}

#[test]
fn several_bases_keep_their_bundle_order_after_the_parent() {
    let mut world = log_world();
    let b1 = world.spawn((Prefab, MaxSpeed(1))).id();
    let b2 = world.spawn((Prefab, MaxSpeed(2))).id();
    let parent = world.spawn_empty().id();
    take_log(&mut world);
    let e = world.spawn((IsA.pair(b1), ChildOf.pair(parent), IsA.pair(b2))).id();
    assert_eq!(world.get::<MaxSpeed>(e), Some(&MaxSpeed(1)));
    let log: Vec<String> = take_log(&mut world).into_iter().filter(|l| l != "maxspeed").collect();
    assert_eq!(
        log,
        vec![
            format!("childof {parent:?}"),
            format!("isa {b1:?} under Some({parent:?})"),
            format!("isa {b2:?} under Some({parent:?})")
        ]
    );
    let f = world.spawn((ChildOf.pair(parent), IsA.pair(b2), Tag, IsA.pair(b1))).id();
    assert_eq!(world.get::<MaxSpeed>(f), Some(&MaxSpeed(2)));
    assert!(world.has_pair::<IsA>(f, b1) && world.has_pair::<IsA>(f, b2));
}

#[test]
fn an_override_value_given_in_the_bundle_wins_over_the_copy() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Over(1), MaxSpeed(1))).id();
    let parent = world.spawn_empty().id();
    let e = world.spawn((Over(9), IsA.pair(base), ChildOf.pair(parent))).id();
    assert_eq!(world.get::<Over>(e), Some(&Over(9)));
    let f = world.spawn(ChildOf.pair(base)).id();
    world.entity_mut(f).insert((IsA.pair(base), Over(7), ChildOf.pair(parent)));
    assert_eq!(world.get::<Over>(f), Some(&Over(7)));
    assert_eq!(world.target::<ChildOf>(f), Some(parent));
}

#[test]
fn exclusive_relationships_keep_their_last_target_in_a_reordered_bundle() {
    let mut world = log_world();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    let [p1, p2, a, c] = [(); 4].map(|_| world.spawn_empty().id());
    take_log(&mut world);
    let e = world.spawn((Docked.pair(a), ChildOf.pair(p1), IsA.pair(base), ChildOf.pair(p2), Docked.pair(c))).id();
    assert_eq!(world.target::<ChildOf>(e), Some(p2));
    assert_eq!(world.targets::<Docked>(e).collect::<Vec<_>>(), vec![c]);
    assert!(world.has_pair::<IsA>(e, base));
    let log = take_log(&mut world);
    let isa = log.iter().find(|l| l.starts_with("isa")).unwrap();
    assert_eq!(isa, &format!("isa {base:?} under Some({p2:?})"), "{log:?}");
    world.check_invariants();
}

#[test]
fn a_base_on_the_line_of_the_last_of_two_parents_is_refused_and_nothing_is_left() {
    let mut world = World::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let under_base = world.spawn(ChildOf.pair(base)).id();
    let elsewhere = world.spawn_empty().id();
    let count = world.entity_count();
    let message = panic_message(|| {
        world.spawn((IsA.pair(base), ChildOf.pair(elsewhere), ChildOf.pair(under_base)));
    });
    assert!(message.contains(&format!("an instance (IsA) of {base:?}")), "{message}");
    assert_eq!(world.entity_count(), count);
    // Control: two parents in one bundle end under the last.
    let e = world.spawn((Tag, ChildOf.pair(under_base), ChildOf.pair(elsewhere))).id();
    assert_eq!(world.target::<ChildOf>(e), Some(elsewhere));
}

#[test]
fn a_base_on_the_line_of_a_replaced_parent_only_is_accepted() {
    let mut world = World::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    let under_base = world.spawn(ChildOf.pair(base)).id();
    let elsewhere = world.spawn_empty().id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.spawn((IsA.pair(base), ChildOf.pair(under_base), ChildOf.pair(elsewhere))).id()
    }));
    let e = result.expect("the bundle's effective parent is `elsewhere`, off the base's line");
    assert_eq!(world.target::<ChildOf>(e), Some(elsewhere));
    assert!(world.has_pair::<IsA>(e, base));
}

#[test]
fn a_commands_insert_whose_new_parent_died_despawns_before_instantiating() {
    let mut world = World::new();
    let log = DropLog::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let doomed = world.spawn_empty().id();
    let target = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert((
        log.table(1),
        IsA.pair(base),
        ChildOf.pair(doomed),
        Owes(log.table(2)).pair(target),
    ));
    world.despawn(doomed);
    let count = world.entity_count();
    queue.apply(&mut world);
    assert!(!world.is_alive(e), "ChildOf deletes with its target");
    assert_eq!(world.entity_count(), count - 1, "no instantiated prefab child is left");
    log.assert_dropped_once([1, 2]);
    world.check_invariants();
}

#[test]
fn a_base_that_is_an_ancestor_through_the_new_parent_is_refused_and_nothing_changes() {
    let mut world = log_world();
    let log = DropLog::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    let under_base = world.spawn(ChildOf.pair(base)).id();
    let deep = world.spawn(ChildOf.pair(under_base)).id();
    let old_parent = world.spawn_empty().id();
    let e = world.spawn((Pos(1.0), ChildOf.pair(old_parent))).id();
    let before = world.entity(e).archetype();
    let count = world.entity_count();
    take_log(&mut world);
    for (id, parent) in [(1, under_base), (2, deep)] {
        let message = panic_message(|| {
            world.entity_mut(e).insert((log.table(id), Tag, IsA.pair(base), ChildOf.pair(parent)));
        });
        assert!(message.contains("ChildOf ancestors"), "{message}");
        assert!(message.contains(&format!("an instance (IsA) of {base:?}")), "{message}");
        assert!(message.contains(&format!("{e:?}")), "{message}");
        assert_eq!(world.entity(e).archetype(), before);
        assert_eq!(world.target::<ChildOf>(e), Some(old_parent));
        assert!(!world.has_pair::<IsA>(e, base) && !world.has::<Tag>(e));
        assert_eq!(world.entity_count(), count);
        assert!(take_log(&mut world).is_empty());
        assert_eq!(log.count_of(id), 1);
    }
    // Spawned: no entity is left, the message names a new entity.
    let message = panic_message(|| {
        world.spawn((log.table(3), IsA.pair(base), Owes(log.table(4)).pair(old_parent), ChildOf.pair(deep)));
    });
    assert!(message.contains("a new entity") && message.contains("ChildOf ancestors"), "{message}");
    assert_eq!(world.entity_count(), count);
    assert!(take_log(&mut world).is_empty());
    log.assert_dropped_once([1, 2, 3, 4]);
    world.check_invariants();
}

#[test]
fn commands_insert_and_spawn_add_the_parent_first() {
    let mut world = World::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let elsewhere = world.spawn(Name::new("elsewhere")).id();
    let child = world.spawn((Name::new("c"), ChildOf.pair(base))).id();
    let mut queue = CommandQueue::default();
    let spawned = {
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(child).insert((Pos(1.0), IsA.pair(base), ChildOf.pair(elsewhere)));
        commands.spawn((Name::new("s"), IsA.pair(base), ChildOf.pair(elsewhere))).id()
    };
    queue.apply(&mut world);
    assert!(world.has_pair::<IsA>(child, base));
    assert_eq!(world.target::<ChildOf>(child), Some(elsewhere));
    assert_eq!(world.get::<Pos>(child), Some(&Pos(1.0)));
    assert!(world.lookup("elsewhere::c::turret").is_some());
    assert_eq!(world.lookup("elsewhere::s"), Some(spawned));
    assert!(world.lookup("elsewhere::s::turret").is_some());
    // Refused through the new parent: nothing changes.
    let under_base = world.spawn(ChildOf.pair(base)).id();
    let loose = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(loose).insert((Pos(1.0), IsA.pair(base), ChildOf.pair(under_base)));
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains(&format!("an instance (IsA) of {base:?}")), "{message}");
    assert_eq!(world.get::<Pos>(loose), None);
    assert_eq!(world.target::<ChildOf>(loose), None);
    world.check_invariants();
}

#[test]
fn insert_if_new_adds_the_new_parent_before_the_base() {
    let mut world = log_world();
    // A plain base: a prefab's child would be a prefab, which observers skip.
    let base = world.spawn(MaxSpeed(1)).id();
    let elsewhere = world.spawn_empty().id();
    let child = world.spawn((Pos(5.0), ChildOf.pair(base))).id();
    take_log(&mut world);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert_if_new(child, (Pos(1.0), IsA.pair(base), ChildOf.pair(elsewhere)));
    }));
    assert!(result.is_ok(), "refused: {:?}", take_log(&mut world));
    assert_eq!(world.get::<Pos>(child), Some(&Pos(5.0)));
    assert!(world.has_pair::<IsA>(child, base));
    assert_eq!(world.target::<ChildOf>(child), Some(elsewhere));
    let log: Vec<String> = take_log(&mut world).into_iter().filter(|l| l != "maxspeed").collect();
    assert_eq!(log, vec![format!("childof {elsewhere:?}"), format!("isa {base:?} under Some({elsewhere:?})")]);
    // Through commands.
    let second = world.spawn(ChildOf.pair(base)).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(second).insert_if_new((IsA.pair(base), ChildOf.pair(elsewhere)));
    queue.apply(&mut world);
    assert!(world.has_pair::<IsA>(second, base));
    assert_eq!(world.target::<ChildOf>(second), Some(elsewhere));
    world.check_invariants();
}

#[test]
fn a_named_entity_refused_under_a_parent_with_a_sibling_of_its_name_keeps_everything() {
    let mut world = World::new();
    let log = DropLog::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let dock = world.spawn(Name::new("dock")).id();
    let taken = world.spawn((Name::new("x"), ChildOf.pair(dock))).id();
    let e = world.spawn(Name::new("x")).id();
    let before = world.entity(e).archetype();
    let count = world.entity_count();
    let message = panic_message(|| {
        world.entity_mut(e).insert((IsA.pair(base), ChildOf.pair(dock)));
    });
    assert!(message.contains(&format!("{taken:?}")), "{message}");
    assert_eq!(world.target::<ChildOf>(e), None);
    assert!(!world.has_pair::<IsA>(e, base));
    assert_eq!(world.children(e).count(), 0, "no prefab child was instantiated");
    assert_eq!(world.entity(e).archetype(), before);
    assert_eq!(world.entity_count(), count);
    // Spawned with its name: the entity is despawned, and its instantiated children with it.
    let message = panic_message(|| {
        world.spawn((Name::new("x"), log.table(1), IsA.pair(base), ChildOf.pair(dock)));
    });
    assert!(message.contains(&format!("{taken:?}")), "{message}");
    assert_eq!(world.entity_count(), count);
    log.assert_dropped_once([1]);
    assert_eq!(world.lookup("dock::x"), Some(taken));
    world.check_invariants();
}

#[test]
fn a_refused_named_insert_with_static_values_changes_nothing() {
    let mut world = World::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    let dock = world.spawn_empty().id();
    world.spawn((Name::new("x"), ChildOf.pair(dock)));
    let e = world.spawn(Name::new("x")).id();
    let message = panic_message(|| {
        world.entity_mut(e).insert((Pos(1.0), IsA.pair(base), ChildOf.pair(dock)));
    });
    assert!(message.contains("x"), "{message}");
    assert_eq!(world.target::<ChildOf>(e), None);
    assert!(!world.has_pair::<IsA>(e, base));
    assert_eq!(world.get::<Pos>(e), None, "Pos landed though the bundle was refused");
}

#[test]
#[ignore = "finding (left, documented: a refused named insert takes back the name and parent only): a bundle giving Name+IsA+ChildOf refused for a sibling name keeps the IsA pair and its instantiated prefab children"]
fn a_refused_insert_of_a_name_with_a_base_and_a_parent_changes_nothing() {
    let mut world = World::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let dock = world.spawn_empty().id();
    world.spawn((Name::new("x"), ChildOf.pair(dock)));
    let e = world.spawn_empty().id();
    let count = world.entity_count();
    let message = panic_message(|| {
        world.entity_mut(e).insert((Name::new("x"), IsA.pair(base), ChildOf.pair(dock)));
    });
    assert!(message.contains("x"), "{message}");
    assert_eq!(world.get::<Name>(e), None);
    assert_eq!(world.target::<ChildOf>(e), None);
    assert!(!world.has_pair::<IsA>(e, base), "the IsA pair stayed");
    assert_eq!(world.get::<MaxSpeed>(e), None);
    assert_eq!(world.entity_count(), count, "an instantiated prefab child stayed");
}

#[test]
fn values_and_pair_values_are_dropped_once_when_an_observer_despawns_at_the_parent() {
    let mut world = World::new();
    let log = DropLog::new();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(base)));
    let doomed = world.spawn_empty().id();
    let target = world.spawn_empty().id();
    world.add_observer(move |t: Trigger<OnAdd, Pair<ChildOf>>, mut commands: Commands| {
        if t.pair_target() == Some(doomed) {
            commands.entity(t.entity()).despawn();
        }
    });
    let count = world.entity_count();
    let e = world.spawn((log.table(1), IsA.pair(base), Owes(log.table(2)).pair(target), ChildOf.pair(doomed))).id();
    world.flush();
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), count, "nothing of the instance is left");
    log.assert_dropped_once([1, 2]);
    // Accepted: each value dropped once at despawn.
    let parent = world.spawn_empty().id();
    let f = world.spawn((log.table(3), IsA.pair(base), Owes(log.table(4)).pair(target), ChildOf.pair(parent))).id();
    assert_eq!(log.count(), 2);
    world.despawn(parent);
    assert!(!world.is_alive(f));
    log.assert_dropped_once([1, 2, 3, 4]);
    world.check_invariants();
}

#[test]
fn a_union_pair_in_a_bundle_with_isa_and_childof_lands_with_its_last_target() {
    let mut world = log_world();
    let base = world.spawn((Prefab, MaxSpeed(1))).id();
    let parent = world.spawn_empty().id();
    let [walking, running] = [(); 2].map(|_| world.spawn_empty().id());
    take_log(&mut world);
    let e = world.spawn((Movement.pair(walking), IsA.pair(base), ChildOf.pair(parent), Movement.pair(running))).id();
    assert_eq!(world.targets::<Movement>(e).collect::<Vec<_>>(), vec![running]);
    assert_eq!(world.target::<ChildOf>(e), Some(parent));
    assert!(world.has_pair::<IsA>(e, base));
    let log: Vec<String> = take_log(&mut world).into_iter().filter(|l| l != "maxspeed").collect();
    assert_eq!(log, vec![format!("childof {parent:?}"), format!("isa {base:?} under Some({parent:?})")]);
    let mut q = world.query_dsl("(Movement, *), MaxSpeed").unwrap();
    assert_eq!(q.iter(&world).map(|r| (r.entity(), r.pair_target(0))).collect::<Vec<_>>(), vec![(e, running)]);
    world.check_invariants();
}

// ----- up IsA and dont_inherit --------------------------------------------------------------

#[test]
fn any_up_isa_takes_an_inheritable_id_behind_dont_inherit_ones_or_none() {
    let mut world = World::new();
    register(&mut world);
    let only_local = world.spawn((Prefab, Local(1), LocalTag)).id();
    let with_pos = world.spawn((Prefab, Local(1), LocalTag, Pos(2.0))).id();
    let a = world.instantiate(only_local);
    let b = world.instantiate(with_pos);
    assert_eq!(dsl_rows(&world, "_(up IsA)"), vec![(b, with_pos)]);
    let rows = dsl_rows(&world, "Tag(up IsA) || _(up IsA)");
    assert!(rows.contains(&(b, with_pos)) && !rows.iter().any(|r| r.0 == a), "{rows:?}");
    // Two levels: the middle base owns only dont_inherit values.
    let root = world.spawn((Prefab, Pos(3.0))).id();
    let middle = world.spawn((Prefab, Local(2), IsA.pair(root))).id();
    let c = world.instantiate(middle);
    let rows: Vec<(Entity, Entity)> = dsl_rows(&world, "_(up IsA)").into_iter().filter(|r| r.0 == c).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(world.get::<Pos>(c), Some(&Pos(3.0)));
}

#[test]
fn wildcard_and_variable_up_isa_bind_only_inheritable_ids() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Local(1), LocalTag, Pos(2.0), MaxSpeed(4))).id();
    let instance = world.instantiate(base);
    let (pos, max_speed) = (world.component_id::<Pos>().unwrap(), world.component_id::<MaxSpeed>().unwrap());
    let mut expected = vec![pos, max_speed];
    expected.sort();
    for cached in [true, false] {
        let mut q = build(&world, "*(up IsA)", cached);
        let mut got: Vec<Entity> =
            q.iter(&world).filter(|r| r.entity() == instance).map(|r| r.id(0).entity().unwrap()).collect();
        got.sort();
        assert_eq!(got, expected, "* cached {cached}");
        let mut q = build(&world, "$c(up IsA)", cached);
        let mut got: Vec<Entity> =
            q.iter(&world).filter(|r| r.entity() == instance).map(|r| r.var("c").unwrap()).collect();
        got.sort();
        assert_eq!(got, expected, "$c cached {cached}");
    }
    // A variable bound elsewhere to a dont_inherit id finds nothing up IsA.
    let local = world.component_id::<Local>().unwrap();
    world.spawn((Name::new("marker"), Likes.pair(local)));
    assert_eq!(dsl_rows(&world, "Likes(marker, $c), $c(up IsA)"), vec![]);
    // Control: bound to Pos, the same query finds the instance.
    world.spawn((Name::new("other"), Likes.pair(pos)));
    for cached in [true, false] {
        let mut q = build(&world, "Likes(other, $c), $c(up IsA)", cached);
        let got: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.entity(), r.source(1))).collect();
        assert_eq!(got, vec![(instance, base)], "cached {cached}");
    }
}

#[test]
fn pair_wildcards_and_variables_up_isa_skip_dont_inherit_relationships() {
    let mut world = World::new();
    register(&mut world);
    let [t1, t2] = [(); 2].map(|_| world.spawn_empty().id());
    let base = world.spawn((Prefab, ChildOf.pair(t1), Weight { w: 1 }.pair(t1), Weight { w: 2 }.pair(t2))).id();
    let local_tag = world.component_id::<LocalTag>().unwrap();
    world.try_add_id(base, Id::pair(local_tag, t1)).unwrap();
    let instance = world.instantiate(base);
    let weight = world.component_id::<Weight>().unwrap();
    assert_eq!(world.get_pair::<Weight>(base, t2).map(|weight| weight.w), Some(2));
    assert_eq!(dsl_rows(&world, "Weight(up IsA, _)"), vec![(instance, base)]);
    assert!(dsl_rows(&world, "ChildOf(up IsA, _)").is_empty());
    assert!(dsl_rows(&world, "LocalTag(up IsA, _)").is_empty());
    for cached in [true, false] {
        let mut q = build(&world, &format!("_(up IsA, #{})", t1.to_bits()), cached);
        let got: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
        assert_eq!(got, vec![(instance, base)], "(_, t1) cached {cached}");
        let mut q = build(&world, &format!("$r(up IsA, #{})", t1.to_bits()), cached);
        let got: Vec<Entity> = q.iter(&world).map(|r| r.var("r").unwrap()).collect();
        assert_eq!(got, vec![weight], "($r, t1) cached {cached}");
        let mut q = build(&world, "Weight(up IsA, $t)", cached);
        let mut got: Vec<Entity> = q.iter(&world).map(|r| r.var("t").unwrap()).collect();
        got.sort();
        let mut expected = vec![t1, t2];
        expected.sort();
        assert_eq!(got, expected, "(Weight, $t) cached {cached}");
    }
}

#[test]
fn three_alternative_or_chains_up_isa_go_past_every_dont_inherit_alternative() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Local(1), LocalTag, Pos(2.0))).id();
    let instance = world.instantiate(base);
    let only_local = world.spawn((Prefab, Local(1), LocalTag)).id();
    world.instantiate(only_local);
    let pos = world.component_id::<Pos>().unwrap();
    for dsl in [
        "Local(up IsA) || LocalTag(up IsA) || Pos(up IsA)",
        "LocalTag(up IsA) || Local(up IsA) || Pos(up IsA)",
        "Local(up IsA) || Pos(up IsA) || LocalTag(up IsA)",
        "Pos(up IsA) || Local(up IsA) || LocalTag(up IsA)",
        "Local(self|up IsA) || LocalTag(self|up IsA) || Pos(self|up IsA)",
    ] {
        assert_eq!(dsl_rows(&world, dsl), vec![(instance, base)], "{dsl}");
        let mut q = build(&world, dsl, true);
        assert_eq!(q.iter(&world).map(|r| r.id(0)).collect::<Vec<_>>(), vec![pos.id()], "{dsl}");
    }
    assert!(dsl_rows(&world, "Local(up IsA) || LocalTag(up IsA) || Prefab(up IsA)").is_empty());
}

#[test]
fn not_and_optional_dont_inherit_terms_up_isa_see_them_absent() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Local(1), Pos(2.0))).id();
    let instance = world.instantiate(base);
    assert_eq!(dsl_rows(&world, "Pos, !Local(up IsA)").iter().map(|r| r.0).collect::<Vec<_>>(), vec![instance]);
    assert!(dsl_rows(&world, "Pos, !Pos(up IsA)").is_empty());
    for cached in [true, false] {
        let mut q = build(&world, "Pos, ?Local(up IsA), [out] !LocalTag(up IsA)", cached);
        let got: Vec<(Entity, bool)> = q.iter(&world).map(|r| (r.entity(), r.is_set(1))).collect();
        assert_eq!(got, vec![(instance, false)], "cached {cached}");
    }
}

#[test]
fn a_cached_any_up_isa_query_follows_its_base_gaining_and_losing_an_inheritable_value() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Local(1))).id();
    let instance = world.instantiate(base);
    let mut cached = world.query_dsl("_(up IsA)").unwrap();
    let mut star = world.query_dsl("*(up IsA)").unwrap();
    let mut chain = world.query_dsl("Local(up IsA) || Pos(up IsA)").unwrap();
    let rows = |q: &mut DynQuery, world: &World| q.iter(world).map(|r| (r.entity(), r.source(0))).collect::<Vec<_>>();
    assert!(rows(&mut cached, &world).is_empty());
    assert!(rows(&mut star, &world).is_empty());
    assert!(rows(&mut chain, &world).is_empty());
    world.entity_mut(base).insert(Pos(1.0));
    assert_eq!(rows(&mut cached, &world), vec![(instance, base)]);
    assert_eq!(rows(&mut star, &world), vec![(instance, base)]);
    assert_eq!(rows(&mut chain, &world), vec![(instance, base)]);
    world.entity_mut(base).remove::<Pos>();
    assert!(rows(&mut cached, &world).is_empty());
    assert!(rows(&mut star, &world).is_empty());
    assert!(rows(&mut chain, &world).is_empty());
}
