//! Adversarial review of 3248adf: `Ref<T>` query terms read values inherited
//! from prefabs through `IsA` (table and sparse, with the base's ticks, and
//! toggles disabled on the base); runtime or-chains on `$this` are evaluated
//! per row where a table has toggle bits for an alternative; observers of a
//! pair naming an entity in either half are despawned with it, `_` in an
//! observed pair is heard as `*`, and a despawned holder's union pair is
//! reported as its concrete pair.
//!
//! Every runtime query is checked cached and uncached (they must agree) and
//! through its `to_dsl()` text (which must read back to the same rows).
//! Every typed `Ref<T>` result is compared with the `&T` rows of the same
//! world.
//!
//! Findings (all fixed since; the tests pass):
//! - `added_filter_agrees_with_ref_is_added_for_inherited_values` and
//!   `changed_filter_agrees_with_ref_is_changed_after_a_base_edit`:
//!   `Added<T>`/`Changed<T>` never matched an instance that only inherits `T`,
//!   while `Ref<T>::is_added`/`is_changed` (now) report the base's ticks for
//!   it: Bevy documents the filter as `Ref::is_added`/`is_changed` applied to
//!   every row, so the two disagree.
//! - `or_chain_skips_an_alternative_inherited_disabled_from_a_base`: an
//!   or-chain `Thrust || Velocity` drops an instance whose `Thrust` is
//!   inherited from a base that disabled it, although the instance owns
//!   `Velocity` (only the instance's own toggle columns make a table be
//!   evaluated per row).
//! - `or_chain_of_union_pairs_follows_target_changes_without_moves` and
//!   `or_chain_of_a_union_pair_then_a_plain_component`: an or-chain whose first
//!   alternative is a union pair (`(Movement, Walking) || (Movement, Running)`,
//!   `(Movement, Walking) || Velocity`) is still decided per table: rows whose
//!   union target is another one are dropped instead of matching the next
//!   alternative.
//! - `or_chain_with_a_sparse_first_alternative_falls_through_per_row`:
//!   `Sparse || Velocity` drops the rows of a table that lack the sparse value
//!   although they have `Velocity` (the typed `Or` matches them).

use core::any::TypeId;
use std::fmt::Debug;
use std::sync::Mutex;

use ecs::prelude::*;
use ecs::query::{DynQuery, DynRow};
use ecs::world::{ObserverRunner, TriggerInfo};

// ===== fixtures ================================================================================

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Position(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Velocity(u32);

#[derive(Component, Debug)]
struct Tag;

/// A zero-sized component instances inherit (with ticks).
#[derive(Component, Debug)]
struct Mark;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[component(storage = "sparse")]
struct Sparse(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[component(toggle)]
struct Thrust(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[component(toggle)]
struct Shield(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[component(on_instantiate = "override")]
struct Hp(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[component(on_instantiate = "dont_inherit")]
struct Local(u32);

#[derive(Relationship, Debug)]
#[relationship(union)]
struct Movement;

#[derive(Relationship, Debug)]
struct Likes;

#[derive(Relationship, Debug)]
struct Rel;

#[derive(Relationship, Clone, Copy, Debug, PartialEq)]
struct Eats {
    amount: u32,
}

fn world() -> World {
    let mut world = World::new();
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    world.register_component::<Tag>();
    world.register_component::<Mark>();
    world.register_component::<Sparse>();
    world.register_component::<Thrust>();
    world.register_component::<Shield>();
    world.register_component::<Hp>();
    world.register_component::<Movement>();
    world.register_component::<Likes>();
    world.register_component::<Eats>();
    world.register_component::<Rel>();
    world.init_resource::<Log>();
    world
}

fn cid<T: Component>(world: &World) -> Entity {
    world.component_id::<T>().expect("registered")
}

fn sorted<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    items.sort();
    items
}

// ----- typed helpers ---------------------------------------------------------------------------

/// `(entity, value, is_added, is_changed)` of every `Ref<T>` row, sorted.
fn ref_rows<T: Component + Copy + Ord>(
    q: &mut QueryState<(Entity, Ref<'static, T>)>,
    world: &World,
) -> Vec<(Entity, T, bool, bool)> {
    sorted(q.iter(world).map(|(e, r)| (e, *r, r.is_added(), r.is_changed())))
}

/// `(entity, value)` of every `&T` row, sorted.
fn read_rows<T: Component + Copy + Ord>(world: &mut World) -> Vec<(Entity, T)> {
    let mut q = world.query::<(Entity, &T)>();
    sorted(q.iter(world).map(|(e, v)| (e, *v)))
}

/// The `(entity, value)` part of [`ref_rows`], which must equal `&T`'s rows.
#[track_caller]
fn values_agree<T: Component + Copy + Ord + Debug>(
    q: &mut QueryState<(Entity, Ref<'static, T>)>,
    world: &mut World,
) -> Vec<(Entity, T, bool, bool)> {
    let got = ref_rows(q, world);
    let plain: Vec<(Entity, T)> = got.iter().map(|&(e, v, ..)| (e, v)).collect();
    assert_eq!(plain, read_rows::<T>(world), "Ref<T> rows vs &T rows");
    got
}

// ----- runtime query helpers ------------------------------------------------------------------

fn both(world: &World, text: &str) -> [DynQuery; 2] {
    let cached = world.query_dsl(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let uncached = world.query_dsl_uncached(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert!(cached.is_cached() && !uncached.is_cached());
    [cached, uncached]
}

/// The rows of already built queries `qs` (all must agree).
#[track_caller]
fn rows_of<T: Ord + Debug>(qs: &mut [DynQuery], world: &World, f: impl Fn(&DynRow<'_>) -> T) -> Vec<T> {
    let first = sorted(qs[0].iter(world).map(|row| f(&row)));
    for (i, q) in qs.iter_mut().enumerate().skip(1) {
        let other = sorted(q.iter(world).map(|row| f(&row)));
        assert_eq!(first, other, "query {i} vs query 0 of {:?}", qs[0].to_dsl());
    }
    first
}

/// The rows of `text` mapped by `f`: cached, uncached and the printed text
/// read back must all agree.
#[track_caller]
fn rows<T: Ord + Debug>(world: &World, text: &str, f: impl Fn(&DynRow<'_>) -> T) -> Vec<T> {
    let mut qs = both(world, text);
    let got = rows_of(&mut qs, world, &f);
    let printed = qs[0].to_dsl();
    let mut again = both(world, &printed);
    assert_eq!(again[0].to_dsl(), printed, "{text:?} printed {printed:?} does not print back the same");
    assert_eq!(rows_of(&mut again, world, &f), got, "{text:?} printed as {printed:?} matches other rows");
    got
}

#[track_caller]
fn ents(world: &World, text: &str) -> Vec<Entity> {
    rows(world, text, |row| row.entity())
}

fn ent_id(term: usize) -> impl Fn(&DynRow<'_>) -> (Entity, Id) {
    move |row| (row.entity(), row.id(term))
}

/// A prefab `Base` with Position(1), Velocity(2), Sparse(3), Mark; an
/// instance `Inst` (with Tag) and an owner `Own` with Position(5), Tag.
struct Scene {
    base: Entity,
    inst: Entity,
    owner: Entity,
}

fn scene(world: &mut World) -> Scene {
    let base = world.spawn((Prefab, Position(1), Velocity(2), Sparse(3), Mark, Name::new("Base"))).id();
    let inst = world.instantiate(base);
    world.entity_mut(inst).insert(Tag);
    let owner = world.spawn((Position(5), Tag)).id();
    Scene { base, inst, owner }
}

// ===== Ref<T>: inherited table values ==========================================================

#[test]
fn ref_reads_inherited_values_like_a_shared_reference() {
    let mut world = world();
    let s = scene(&mut world);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got, sorted([(s.inst, Position(1), true, true), (s.owner, Position(5), true, true)]));
    // The second run: nothing new.
    assert_eq!(
        ref_rows(&mut q, &world),
        sorted([(s.inst, Position(1), false, false), (s.owner, Position(5), false, false)])
    );
    assert!(!got.iter().any(|row| row.0 == s.base), "the prefab itself is hidden");
}

#[test]
fn ref_of_an_inherited_value_sees_a_base_edit_made_after_instantiate() {
    let mut world = world();
    let s = scene(&mut world);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    ref_rows(&mut q, &world);
    world.get_mut::<Position>(s.base).unwrap().0 = 9;
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got, sorted([(s.inst, Position(9), false, true), (s.owner, Position(5), false, false)]));
    assert_eq!(
        ref_rows(&mut q, &world),
        sorted([(s.inst, Position(9), false, false), (s.owner, Position(5), false, false)])
    );
    // Insert over the base's value: changed, not added.
    world.insert(s.base, Position(11));
    assert_eq!(
        ref_rows(&mut q, &world),
        sorted([(s.inst, Position(11), false, true), (s.owner, Position(5), false, false)])
    );
}

#[test]
fn many_instances_in_one_table_all_read_the_one_base_value_and_ticks() {
    let mut world = world();
    let base = world.spawn((Prefab, Position(7))).id();
    let insts: Vec<Entity> = (0..150).map(|_| world.instantiate(base)).collect();
    let mut q = world.query::<(Entity, Ref<Position>)>();
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got, sorted(insts.iter().map(|&e| (e, Position(7), true, true))));
    world.get_mut::<Position>(base).unwrap().0 = 8;
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got, sorted(insts.iter().map(|&e| (e, Position(8), false, true))));
}

#[test]
fn ref_of_an_override_then_its_removal_uncovers_the_base_with_the_base_ticks() {
    let mut world = world();
    let s = scene(&mut world);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    ref_rows(&mut q, &world);
    world.insert(s.inst, Position(7));
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Position(7), true, true), (s.owner, Position(5), false, false)])
    );
    assert_eq!(
        ref_rows(&mut q, &world),
        sorted([(s.inst, Position(7), false, false), (s.owner, Position(5), false, false)])
    );
    assert_eq!(world.remove::<Position>(s.inst), Some(Position(7)));
    // The inherited value is back, with the base's (old) ticks.
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Position(1), false, false), (s.owner, Position(5), false, false)])
    );
    world.get_mut::<Position>(s.base).unwrap().0 = 2;
    assert_eq!(
        ref_rows(&mut q, &world),
        sorted([(s.inst, Position(2), false, true), (s.owner, Position(5), false, false)])
    );
}

#[test]
fn ref_through_a_three_level_prefab_chain_reads_the_nearest_holder() {
    let mut world = world();
    let root = world.spawn((Prefab, Position(1), Velocity(2))).id();
    let mid = world.spawn((Prefab, IsA.pair(root), Velocity(20))).id();
    let leaf = world.instantiate(mid);
    let mut qp = world.query::<(Entity, Ref<Position>)>();
    let mut qv = world.query::<(Entity, Ref<Velocity>)>();
    assert_eq!(values_agree(&mut qp, &mut world), vec![(leaf, Position(1), true, true)]);
    assert_eq!(values_agree(&mut qv, &mut world), vec![(leaf, Velocity(20), true, true)]);
    // The root's Velocity is covered by mid's: editing it changes nothing.
    world.get_mut::<Velocity>(root).unwrap().0 = 99;
    world.get_mut::<Position>(root).unwrap().0 = 3;
    assert_eq!(values_agree(&mut qp, &mut world), vec![(leaf, Position(3), false, true)]);
    assert_eq!(values_agree(&mut qv, &mut world), vec![(leaf, Velocity(20), false, false)]);
    world.get_mut::<Velocity>(mid).unwrap().0 = 21;
    assert_eq!(values_agree(&mut qv, &mut world), vec![(leaf, Velocity(21), false, true)]);
    // Mid loses its own Velocity: the root's is read, with the root's ticks.
    world.remove::<Velocity>(mid);
    assert_eq!(values_agree(&mut qv, &mut world), vec![(leaf, Velocity(99), false, false)]);
}

#[test]
fn ref_with_two_bases_reads_the_first_added_and_its_ticks_only() {
    let mut world = world();
    let a = world.spawn((Prefab, Position(1))).id();
    let b = world.spawn((Prefab, Position(2))).id();
    let inst = world.spawn((IsA.pair(a), Tag)).id();
    world.entity_mut(inst).add_pair::<IsA>(b);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Position(1), true, true)]);
    world.get_mut::<Position>(b).unwrap().0 = 20;
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Position(1), false, false)], "b's edit is covered by a");
    world.get_mut::<Position>(a).unwrap().0 = 10;
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Position(10), false, true)]);
}

#[test]
fn ref_of_an_inherited_zero_sized_component() {
    let mut world = world();
    let s = scene(&mut world);
    let own = world.spawn(Mark).id();
    let mut q = world.query::<(Entity, Ref<Mark>)>();
    let got = sorted(q.iter(&world).map(|(e, r)| (e, r.is_added())));
    assert_eq!(got, sorted([(s.inst, true), (own, true)]));
    let mut plain = world.query_filtered::<Entity, With<Mark>>();
    assert_eq!(sorted(plain.iter(&world)), sorted([s.inst, own]));
    let got = sorted(q.iter(&world).map(|(e, r)| (e, r.is_added())));
    assert_eq!(got, sorted([(s.inst, false), (own, false)]));
}

#[test]
fn ref_of_an_override_component_reads_the_copy_and_ignores_base_edits() {
    let mut world = world();
    let base = world.spawn((Prefab, Hp(10))).id();
    let inst = world.instantiate(base);
    let mut q = world.query::<(Entity, Ref<Hp>)>();
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Hp(10), true, true)]);
    world.get_mut::<Hp>(base).unwrap().0 = 50;
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Hp(10), false, false)]);
}

#[test]
fn ref_query_follows_the_base_losing_the_component_and_being_despawned() {
    let mut world = world();
    let s = scene(&mut world);
    let other = world.spawn((Prefab, Position(40))).id();
    let inst2 = world.instantiate(other);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    assert_eq!(values_agree(&mut q, &mut world).len(), 3);
    // The base moves to another table (a new component): still read.
    world.insert(s.base, Shield(1));
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([
            (s.inst, Position(1), false, false),
            (s.owner, Position(5), false, false),
            (inst2, Position(40), false, false)
        ])
    );
    world.remove::<Position>(s.base);
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.owner, Position(5), false, false), (inst2, Position(40), false, false)])
    );
    assert!(world.despawn(other));
    assert_eq!(values_agree(&mut q, &mut world), vec![(s.owner, Position(5), false, false)]);
    assert!(world.is_alive(inst2));
}

#[test]
fn ref_of_an_inherited_value_built_before_the_prefab_exists() {
    let mut world = world();
    let mut q = world.query::<(Entity, Ref<Position>)>();
    assert!(ref_rows(&mut q, &world).is_empty());
    let s = scene(&mut world);
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Position(1), true, true), (s.owner, Position(5), true, true)])
    );
}

#[test]
fn added_filter_agrees_with_ref_is_added_for_inherited_values() {
    let mut world = world();
    let s = scene(&mut world);
    let mut by_ref = world.query::<(Entity, Ref<Position>)>();
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    let from_ref = sorted(by_ref.iter(&world).filter(|(_, r)| r.is_added()).map(|(e, _)| e));
    assert_eq!(from_ref, sorted([s.inst, s.owner]));
    assert_eq!(sorted(added.iter(&world)), from_ref);
}

#[test]
fn changed_filter_agrees_with_ref_is_changed_after_a_base_edit() {
    let mut world = world();
    let s = scene(&mut world);
    let mut by_ref = world.query::<(Entity, Ref<Position>)>();
    let mut changed = world.query_filtered::<Entity, Changed<Position>>();
    by_ref.iter(&world).count();
    changed.iter(&world).count();
    world.get_mut::<Position>(s.base).unwrap().0 = 4;
    let from_ref = sorted(by_ref.iter(&world).filter(|(_, r)| r.is_changed()).map(|(e, _)| e));
    assert_eq!(from_ref, vec![s.inst]);
    assert_eq!(sorted(changed.iter(&world)), from_ref);
}

#[test]
fn ref_in_a_system_sees_the_base_edit_once() {
    fn changed(q: Query<(Entity, Ref<Position>)>) -> Vec<(Entity, u32)> {
        sorted(q.iter().filter(|(_, r)| r.is_changed()).map(|(e, r)| (e, r.0)))
    }
    let mut world = world();
    let s = scene(&mut world);
    let id = world.register_system(changed);
    assert_eq!(world.run_system(id).unwrap(), sorted([(s.inst, 1), (s.owner, 5)]));
    assert_eq!(world.run_system(id).unwrap(), vec![]);
    world.get_mut::<Position>(s.base).unwrap().0 = 6;
    assert_eq!(world.run_system(id).unwrap(), vec![(s.inst, 6)]);
    assert_eq!(world.run_system(id).unwrap(), vec![]);
}

#[test]
fn option_ref_is_some_for_inherited_and_none_without() {
    let mut world = world();
    let s = scene(&mut world);
    let bare = world.spawn(Tag).id();
    let mut q = world.query_filtered::<(Entity, Option<Ref<Position>>), With<Tag>>();
    let got = sorted(q.iter(&world).map(|(e, r)| (e, r.map(|r| (*r, r.is_added())))));
    assert_eq!(got, sorted([(s.inst, Some((Position(1), true))), (s.owner, Some((Position(5), true))), (bare, None)]));
    let mut plain = world.query_filtered::<(Entity, Option<&Position>), With<Tag>>();
    let plain = sorted(plain.iter(&world).map(|(e, p)| (e, p.copied())));
    assert_eq!(plain, sorted(got.iter().map(|&(e, r)| (e, r.map(|r| r.0)))));
    world.get_mut::<Position>(s.base).unwrap().0 = 3;
    let got = sorted(q.iter(&world).map(|(e, r)| (e, r.map(|r| (*r, r.is_changed())))));
    assert_eq!(got, sorted([(s.inst, Some((Position(3), true))), (s.owner, Some((Position(5), false))), (bare, None)]));
}

#[test]
fn ref_of_inherited_with_a_mut_of_an_owned_component_in_one_query() {
    let mut world = world();
    let base = world.spawn((Prefab, Position(1))).id();
    let a = world.spawn((IsA.pair(base), Velocity(10))).id();
    let b = world.spawn((Position(2), Velocity(20))).id();
    let mut q = world.query::<(Entity, Ref<Position>, &mut Velocity)>();
    let mut seen = Vec::new();
    for (e, p, mut v) in q.iter_mut(&mut world) {
        v.0 += p.0;
        seen.push((e, *p, p.is_added()));
    }
    assert_eq!(sorted(seen), sorted([(a, Position(1), true), (b, Position(2), true)]));
    assert_eq!(world.get::<Velocity>(a), Some(&Velocity(11)));
    assert_eq!(world.get::<Velocity>(b), Some(&Velocity(22)));
    // Velocity only inherited: `&mut Velocity` does not match the instance.
    let vbase = world.spawn((Prefab, Velocity(5))).id();
    let c = world.spawn((Position(3), IsA.pair(vbase))).id();
    let got = sorted(q.iter_mut(&mut world).map(|(e, p, _)| (e, *p)));
    assert_eq!(got, sorted([(a, Position(1)), (b, Position(2))]));
    assert_eq!(world.get::<Velocity>(c), Some(&Velocity(5)));
}

#[test]
fn ref_par_iter_agrees_with_iter_over_inherited_rows() {
    let mut world = world();
    let bases: Vec<Entity> = (0..3).map(|i| world.spawn((Prefab, Position(100 + i))).id()).collect();
    let mut expected = Vec::new();
    for i in 0..300u32 {
        let e = if i % 4 == 0 { world.spawn(Position(i)).id() } else { world.instantiate(bases[(i % 3) as usize]) };
        expected.push(e);
    }
    let mut q = world.query::<(Entity, Ref<Position>)>();
    let seen = Mutex::new(Vec::new());
    q.par_iter(&world).for_each(|(e, r)| seen.lock().unwrap().push((e, *r, r.is_added())));
    let seen = sorted(seen.into_inner().unwrap());
    let plain: Vec<(Entity, Position, bool)> =
        read_rows::<Position>(&mut world).into_iter().map(|(e, p)| (e, p, true)).collect();
    assert_eq!(seen, plain);
    assert_eq!(seen.len(), 300);
    world.get_mut::<Position>(bases[1]).unwrap().0 = 7;
    let seen = Mutex::new(Vec::new());
    q.par_iter(&world).for_each(|(e, r)| {
        if r.is_changed() {
            seen.lock().unwrap().push((e, r.0));
        }
    });
    let insts_of_1: Vec<(Entity, u32)> =
        (0..300u32).filter(|i| i % 4 != 0 && i % 3 == 1).map(|i| (expected[i as usize], 7)).collect();
    assert_eq!(sorted(seen.into_inner().unwrap()), sorted(insts_of_1));
}

#[test]
fn ref_of_a_dont_inherit_component_skips_instances() {
    let mut world = world();
    let base = world.spawn((Prefab, Local(1), Position(1))).id();
    let inst = world.instantiate(base);
    let owner = world.spawn(Local(2)).id();
    let mut q = world.query::<(Entity, Ref<Local>)>();
    assert_eq!(values_agree(&mut q, &mut world), vec![(owner, Local(2), true, true)]);
    assert_eq!(world.get::<Local>(inst), None);
}

#[test]
fn ref_on_prefabs_reads_what_each_prefab_owns_or_inherits() {
    let mut world = world();
    let root = world.spawn((Prefab, Position(1))).id();
    let mid = world.spawn((Prefab, IsA.pair(root), Velocity(2))).id();
    let mut q = world.query_filtered::<(Entity, Ref<Position>), With<Prefab>>();
    let got = sorted(q.iter(&world).map(|(e, r)| (e, *r, r.is_added())));
    assert_eq!(got, sorted([(root, Position(1), true), (mid, Position(1), true)]));
    world.get_mut::<Position>(root).unwrap().0 = 5;
    let got = sorted(q.iter(&world).map(|(e, r)| (e, *r, r.is_added(), r.is_changed())));
    assert_eq!(got, sorted([(root, Position(5), false, true), (mid, Position(5), false, true)]));
}

#[test]
fn ref_get_and_get_many_of_inherited_values() {
    let mut world = world();
    let s = scene(&mut world);
    let base_t = world.spawn((Prefab, Thrust(4))).id();
    let inst_t = world.instantiate(base_t);
    world.entity_mut(base_t).disable::<Thrust>();
    let mut q = world.query::<Ref<Position>>();
    let r = q.get(&world, s.inst).unwrap();
    assert_eq!((*r, r.is_added()), (Position(1), true));
    let [a, b] = q.get_many(&world, [s.inst, s.owner]).unwrap();
    assert_eq!((*a, *b), (Position(1), Position(5)));
    assert!(q.get(&world, s.base).is_err(), "the prefab is hidden");
    let mut qs = world.query::<Ref<Sparse>>();
    assert_eq!(*qs.get(&world, s.inst).unwrap(), Sparse(3));
    assert!(qs.get(&world, s.owner).is_err());
    let mut qt = world.query::<Ref<Thrust>>();
    assert!(qt.get(&world, inst_t).is_err(), "inherited from a base that disabled it");
    world.entity_mut(base_t).enable::<Thrust>();
    assert_eq!(*qt.get(&world, inst_t).unwrap(), Thrust(4));
}

#[test]
fn ref_query_picks_up_a_value_given_to_the_base_after_instantiate() {
    let mut world = world();
    let base = world.spawn((Prefab, Velocity(1))).id();
    let inst = world.instantiate(base);
    let mut q = world.query::<(Entity, Ref<Position>)>();
    let mut qs = world.query::<(Entity, Ref<Sparse>)>();
    assert!(ref_rows(&mut q, &world).is_empty() && ref_rows(&mut qs, &world).is_empty());
    world.insert(base, Position(3));
    world.insert(base, Sparse(4));
    assert_eq!(values_agree(&mut q, &mut world), vec![(inst, Position(3), true, true)]);
    assert_eq!(values_agree(&mut qs, &mut world), vec![(inst, Sparse(4), true, true)]);
}

// ===== Ref<T>: sparse inherited ================================================================

#[test]
fn ref_of_sparse_inherited_reads_the_base_value_and_ticks() {
    let mut world = world();
    let s = scene(&mut world);
    let owner = world.spawn(Sparse(8)).id();
    let mut q = world.query::<(Entity, Ref<Sparse>)>();
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Sparse(3), true, true), (owner, Sparse(8), true, true)])
    );
    world.get_mut::<Sparse>(s.base).unwrap().0 = 4;
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Sparse(4), false, true), (owner, Sparse(8), false, false)])
    );
    world.insert(s.inst, Sparse(30));
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Sparse(30), true, true), (owner, Sparse(8), false, false)])
    );
    assert_eq!(world.remove::<Sparse>(s.inst), Some(Sparse(30)));
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(s.inst, Sparse(4), false, false), (owner, Sparse(8), false, false)])
    );
}

#[test]
fn ref_of_sparse_through_a_prefab_chain_and_mixed_rows_of_one_table() {
    let mut world = world();
    let root = world.spawn((Prefab, Sparse(1))).id();
    let mid = world.spawn((Prefab, IsA.pair(root))).id();
    // Same table (IsA mid, Tag), one row with its own sparse value.
    let a = world.spawn((IsA.pair(mid), Tag)).id();
    let b = world.spawn((IsA.pair(mid), Tag)).id();
    world.insert(b, Sparse(2));
    let mut q = world.query::<(Entity, Ref<Sparse>)>();
    assert_eq!(values_agree(&mut q, &mut world), sorted([(a, Sparse(1), true, true), (b, Sparse(2), true, true)]));
    world.get_mut::<Sparse>(root).unwrap().0 = 5;
    assert_eq!(values_agree(&mut q, &mut world), sorted([(a, Sparse(5), false, true), (b, Sparse(2), false, false)]));
    world.insert(mid, Sparse(9));
    assert_eq!(values_agree(&mut q, &mut world), sorted([(a, Sparse(9), true, true), (b, Sparse(2), false, false)]));
    world.remove::<Sparse>(root);
    world.remove::<Sparse>(mid);
    assert_eq!(values_agree(&mut q, &mut world), vec![(b, Sparse(2), false, false)]);
}

#[test]
fn option_ref_of_sparse_inherited() {
    let mut world = world();
    let s = scene(&mut world);
    let mut q = world.query_filtered::<(Entity, Option<Ref<Sparse>>), With<Tag>>();
    let got = sorted(q.iter(&world).map(|(e, r)| (e, r.map(|r| *r))));
    assert_eq!(got, sorted([(s.inst, Some(Sparse(3))), (s.owner, None)]));
}

// ===== Ref<T>: toggles =========================================================================

#[test]
fn ref_of_a_toggle_disabled_on_the_base_follows_the_base() {
    let mut world = world();
    let base = world.spawn((Prefab, Thrust(4))).id();
    let inst = world.instantiate(base);
    let owner = world.spawn(Thrust(9)).id();
    world.entity_mut(base).disable::<Thrust>();
    let mut q = world.query::<(Entity, Ref<Thrust>)>();
    assert_eq!(values_agree(&mut q, &mut world), vec![(owner, Thrust(9), true, true)]);
    let mut opt = world.query::<(Entity, Option<Ref<Thrust>>)>();
    let got: Vec<(Entity, Option<Thrust>)> = sorted(opt.iter(&world).map(|(e, r)| (e, r.map(|r| *r))));
    assert!(got.contains(&(inst, None)), "{got:?}");
    world.entity_mut(base).enable::<Thrust>();
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(inst, Thrust(4), false, false), (owner, Thrust(9), false, false)])
    );
    // An owned, enabled value over the disabled base.
    world.entity_mut(base).disable::<Thrust>();
    world.insert(inst, Thrust(5));
    assert_eq!(
        values_agree(&mut q, &mut world),
        sorted([(inst, Thrust(5), true, true), (owner, Thrust(9), false, false)])
    );
    // Its own value disabled: absent, the base is not read in its place.
    world.entity_mut(base).enable::<Thrust>();
    world.entity_mut(inst).disable::<Thrust>();
    assert_eq!(values_agree(&mut q, &mut world), vec![(owner, Thrust(9), false, false)]);
}

#[test]
fn ref_of_an_inherited_toggle_across_many_instances_and_owners() {
    let mut world = world();
    let base = world.spawn((Prefab, Thrust(1))).id();
    let insts: Vec<Entity> = (0..70).map(|_| world.instantiate(base)).collect();
    let owners: Vec<Entity> = (0..130).map(|i| world.spawn(Thrust(i)).id()).collect();
    for (i, &o) in owners.iter().enumerate() {
        if [0, 63, 64, 127, 128].contains(&i) {
            world.entity_mut(o).disable::<Thrust>();
        }
    }
    let mut q = world.query::<(Entity, Ref<Thrust>)>();
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got.len(), 70 + 125);
    world.entity_mut(base).disable::<Thrust>();
    let got = values_agree(&mut q, &mut world);
    assert_eq!(got.len(), 125);
    assert!(got.iter().all(|row| !insts.contains(&row.0)));
}

// ===== or-chains with toggles ==================================================================

/// `n` entities with `(Thrust(i), Velocity(i))`, `Thrust` disabled on the
/// rows `off` names; then `n` with `(Thrust(i), Tag)` likewise.
fn toggled_tables(world: &mut World, n: u32, off: &[u32]) -> (Vec<Entity>, Vec<Entity>) {
    let with_velocity: Vec<Entity> = (0..n).map(|i| world.spawn((Thrust(i), Velocity(i))).id()).collect();
    let with_tag: Vec<Entity> = (0..n).map(|i| world.spawn((Thrust(i), Tag)).id()).collect();
    for &i in off {
        world.entity_mut(with_velocity[i as usize]).disable::<Thrust>();
        world.entity_mut(with_tag[i as usize]).disable::<Thrust>();
    }
    (with_velocity, with_tag)
}

const OFF: [u32; 7] = [0, 1, 63, 64, 65, 127, 149];

#[test]
fn or_chain_over_rows_in_several_toggle_words_takes_the_next_alternative() {
    let mut world = world();
    let (wv, wt) = toggled_tables(&mut world, 150, &OFF);
    let (thrust, velocity) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let mut expected: Vec<(Entity, Id)> = Vec::new();
    for i in 0..150u32 {
        let off = OFF.contains(&i);
        expected.push((wv[i as usize], if off { velocity } else { thrust }));
        if !off {
            expected.push((wt[i as usize], thrust));
        }
    }
    assert_eq!(rows(&world, "Thrust || Velocity", ent_id(0)), sorted(expected.clone()));
    let mut typed = world.query_filtered::<Entity, Or<(With<Thrust>, With<Velocity>)>>();
    assert_eq!(sorted(typed.iter(&world)), sorted(expected.iter().map(|r| r.0)));
    // Flip: enable the disabled ones, disable row 64 only.
    for &i in &OFF {
        world.entity_mut(wv[i as usize]).enable::<Thrust>();
        world.entity_mut(wt[i as usize]).enable::<Thrust>();
    }
    world.entity_mut(wv[64]).disable::<Thrust>();
    world.entity_mut(wt[64]).disable::<Thrust>();
    let got = rows(&world, "Thrust || Velocity", ent_id(0));
    assert_eq!(got.len(), 299);
    assert!(got.contains(&(wv[64], velocity)) && !got.iter().any(|r| r.0 == wt[64]));
}

#[test]
fn or_chain_reads_the_value_of_the_alternative_each_row_took() {
    let mut world = world();
    let es: Vec<Entity> = (0..130u32).map(|i| world.spawn((Thrust(i), Shield(1000 + i))).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Thrust>();
        }
        if i % 5 == 0 {
            world.entity_mut(e).disable::<Shield>();
        }
    }
    let f = |row: &DynRow<'_>| (row.entity(), row.get::<Thrust>(0).copied(), row.get::<Shield>(0).copied());
    let expected: Vec<(Entity, Option<Thrust>, Option<Shield>)> = (0..130u32)
        .filter(|i| i % 3 != 0 || i % 5 != 0)
        .map(|i| {
            let e = es[i as usize];
            if i % 3 != 0 { (e, Some(Thrust(i)), None) } else { (e, None, Some(Shield(1000 + i))) }
        })
        .collect();
    assert_eq!(rows(&world, "Thrust || Shield", f), sorted(expected.clone()));
    let (thrust, shield) = (cid::<Thrust>(&world), cid::<Shield>(&world));
    let mut built = [
        world.query_builder().read(thrust).or(shield).build().unwrap(),
        world.query_builder().read(thrust).or(shield).build_uncached().unwrap(),
    ];
    assert_eq!(rows_of(&mut built, &world, f), sorted(expected));
}

#[test]
fn or_chain_of_three_toggled_alternatives() {
    let mut world = world();
    let e0 = world.spawn((Thrust(0), Shield(0), Tag)).id();
    let e1 = world.spawn((Thrust(1), Shield(1), Tag)).id();
    let e2 = world.spawn((Thrust(2), Shield(2), Tag)).id();
    let e3 = world.spawn((Thrust(3), Shield(3), Tag)).id();
    world.entity_mut(e1).disable::<Thrust>();
    world.entity_mut(e2).disable::<Thrust>().disable::<Shield>();
    world.entity_mut(e3).disable::<Shield>();
    let (t, s, tag) = (cid::<Thrust>(&world).id(), cid::<Shield>(&world).id(), cid::<Tag>(&world).id());
    assert_eq!(rows(&world, "Thrust || Shield || Tag", ent_id(0)), sorted([(e0, t), (e1, s), (e2, tag), (e3, t)]));
    assert_eq!(rows(&world, "Shield || Thrust || Tag", ent_id(0)), sorted([(e0, s), (e1, s), (e2, tag), (e3, t)]));
}

#[test]
fn or_chain_with_a_not_term_on_a_toggle() {
    let mut world = world();
    let a = world.spawn((Thrust(0), Velocity(0), Shield(0))).id();
    let b = world.spawn((Thrust(0), Velocity(0), Shield(0))).id();
    let c = world.spawn((Thrust(0), Velocity(0), Shield(0))).id();
    let d = world.spawn((Thrust(0), Velocity(0), Shield(0))).id();
    world.entity_mut(b).disable::<Shield>();
    world.entity_mut(c).disable::<Shield>().disable::<Thrust>();
    world.entity_mut(d).disable::<Thrust>();
    let velocity = cid::<Velocity>(&world).id();
    // !Shield: a disabled Shield counts as absent.
    assert_eq!(
        rows(&world, "Thrust || Velocity, !Shield", ent_id(0)),
        sorted([(b, cid::<Thrust>(&world).id()), (c, velocity)])
    );
    assert_eq!(ents(&world, "Thrust || Velocity, Shield"), sorted([a, d]));
    // Not on the first alternative's component.
    assert_eq!(ents(&world, "Thrust || Velocity, !Thrust"), sorted([c, d]));
}

#[test]
fn or_chain_with_an_optional_toggle() {
    let mut world = world();
    let a = world.spawn((Thrust(1), Velocity(1), Shield(7))).id();
    let b = world.spawn((Thrust(2), Velocity(2), Shield(8))).id();
    let c = world.spawn((Velocity(3), Tag)).id();
    world.entity_mut(a).disable::<Thrust>();
    world.entity_mut(b).disable::<Shield>();
    let f = |row: &DynRow<'_>| (row.entity(), row.id(0), row.is_set(1), row.get::<Shield>(1).copied());
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    assert_eq!(
        rows(&world, "Thrust || Velocity, ?Shield", f),
        sorted([(a, v, true, Some(Shield(7))), (b, t, false, None), (c, v, false, None)])
    );
}

#[test]
fn or_chain_with_an_up_term() {
    let mut world = world();
    let parent = world.spawn(Position(50)).id();
    let bare = world.spawn_empty().id();
    let kids: Vec<Entity> = (0..70).map(|i| world.spawn((Thrust(i), Velocity(i), ChildOf.pair(parent))).id()).collect();
    let orphan = world.spawn((Thrust(0), Velocity(0), ChildOf.pair(bare))).id();
    for &i in &[5usize, 63, 64] {
        world.entity_mut(kids[i]).disable::<Thrust>();
    }
    world.entity_mut(orphan).disable::<Thrust>();
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(0), row.source(1));
    let expected =
        sorted(kids.iter().enumerate().map(|(i, &k)| (k, if [5, 63, 64].contains(&i) { v } else { t }, parent)));
    assert_eq!(rows(&world, "Thrust || Velocity, Position(up ChildOf)", f), expected);
}

#[test]
fn or_chain_skips_an_alternative_inherited_disabled_from_a_base() {
    let mut world = world();
    let base = world.spawn((Prefab, Thrust(1))).id();
    let inst = world.spawn((IsA.pair(base), Velocity(2))).id();
    let tagged = world.spawn((IsA.pair(base), Tag)).id();
    world.entity_mut(base).disable::<Thrust>();
    let mut typed = world.query_filtered::<Entity, Or<(With<Thrust>, With<Velocity>)>>();
    assert_eq!(sorted(typed.iter(&world)), vec![inst]);
    let v = cid::<Velocity>(&world).id();
    assert_eq!(rows(&world, "Thrust || Velocity", ent_id(0)), vec![(inst, v)]);
    assert_eq!(rows(&world, "Thrust || Tag", ent_id(0)), vec![(tagged, cid::<Tag>(&world).id())]);
}

#[test]
fn or_chain_over_an_enabled_inherited_toggle_reports_the_base_as_source() {
    let mut world = world();
    let base = world.spawn((Prefab, Thrust(1))).id();
    let inst = world.spawn((IsA.pair(base), Velocity(2))).id();
    let owner = world.spawn((Thrust(3), Velocity(4))).id();
    world.entity_mut(owner).disable::<Thrust>();
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(0), row.source(0), row.get::<Thrust>(0).copied());
    assert_eq!(
        rows(&world, "Thrust || Velocity", f),
        sorted([(inst, t, base, Some(Thrust(1))), (owner, v, owner, None)])
    );
}

#[test]
fn cached_or_chain_built_before_the_tables_exist() {
    let mut world = world();
    let (thrust, velocity) = (cid::<Thrust>(&world), cid::<Velocity>(&world));
    let mut qs = vec![
        world.query_dsl("Thrust || Velocity").unwrap(),
        world.query_dsl_uncached("Thrust || Velocity").unwrap(),
        world.query_builder().with(thrust).or(velocity).build().unwrap(),
        world.query_builder().with(thrust).or(velocity).build_uncached().unwrap(),
    ];
    assert!(rows_of(&mut qs, &world, ent_id(0)).is_empty());
    let (wv, wt) = toggled_tables(&mut world, 70, &[3, 64]);
    let got = rows_of(&mut qs, &world, ent_id(0));
    assert_eq!(got.len(), 140 - 1 - 1);
    assert!(got.contains(&(wv[64], velocity.id())) && got.contains(&(wv[3], velocity.id())));
    assert!(!got.iter().any(|r| r.0 == wt[64] || r.0 == wt[3]));
    world.entity_mut(wt[64]).enable::<Thrust>();
    world.entity_mut(wv[3]).enable::<Thrust>();
    let got = rows_of(&mut qs, &world, ent_id(0));
    assert!(got.contains(&(wt[64], thrust.id())) && got.contains(&(wv[3], thrust.id())));
    assert_eq!(got.len(), 139);
    // The builder's text reads back to its own terms.
    let printed = qs[2].to_dsl();
    assert_eq!(world.query_dsl(&printed).unwrap().terms(), qs[2].terms(), "{printed}");
}

#[test]
fn or_chain_after_collect_garbage_deleted_its_tables() {
    let mut world = world();
    let mut cached = world.query_dsl("Thrust || Velocity").unwrap();
    let (wv, wt) = toggled_tables(&mut world, 10, &[1]);
    assert_eq!(cached.iter(&world).count(), 19);
    for e in wv.iter().chain(&wt) {
        world.despawn(*e);
    }
    assert_eq!(cached.iter(&world).count(), 0);
    let mut deleted = 0;
    for _ in 0..4 {
        deleted += world.collect_garbage(GcConfig { empty_for: 1, max_time: None });
    }
    assert!(deleted >= 2, "the two tables are deleted: {deleted}");
    let (wv, wt) = toggled_tables(&mut world, 70, &[1, 64]);
    let v = cid::<Velocity>(&world).id();
    let got = sorted(cached.iter(&world).map(|row| (row.entity(), row.id(0))));
    assert_eq!(got.len(), 138);
    assert!(got.contains(&(wv[64], v)) && got.contains(&(wv[1], v)));
    assert!(!got.iter().any(|r| r.0 == wt[1] || r.0 == wt[64]));
    assert_eq!(got, rows(&world, "Thrust || Velocity", ent_id(0)));
    world.check_invariants();
}

#[test]
fn or_chain_builder_and_dsl_print_the_same_and_round_trip() {
    let mut world = world();
    toggled_tables(&mut world, 3, &[1]);
    let (thrust, velocity, tag) = (cid::<Thrust>(&world), cid::<Velocity>(&world), cid::<Tag>(&world));
    let built = world.query_builder().read(thrust).or(velocity).or(tag).without(cid::<Shield>(&world)).build().unwrap();
    let text = built.to_dsl();
    assert_eq!(text.matches(" || ").count(), 2, "{text}");
    assert!(text.starts_with("[in] ") && text.contains(", !"), "{text}");
    let again = world.query_dsl(&text).unwrap();
    assert_eq!(again.terms(), built.terms());
    // Read back from the world, it prints names; those read back the same.
    assert_eq!(again.to_dsl(), "[in] Thrust || Velocity || Tag, !Shield");
    assert_eq!(world.query_dsl(&again.to_dsl()).unwrap().terms(), built.terms());
    assert_eq!(ents(&world, &text).len(), 6);
}

#[test]
fn or_chain_with_a_sparse_first_alternative_falls_through_per_row() {
    let mut world = world();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn((Tag, Velocity(i))).id()).collect();
    for &e in &es[..3] {
        world.insert(e, Sparse(1));
    }
    let (sparse, velocity) = (cid::<Sparse>(&world).id(), cid::<Velocity>(&world).id());
    let expected = sorted(es.iter().enumerate().map(|(i, &e)| (e, if i < 3 { sparse } else { velocity })));
    let mut typed = world.query_filtered::<Entity, (With<Tag>, Or<(With<Sparse>, With<Velocity>)>)>();
    assert_eq!(sorted(typed.iter(&world)), sorted(es.clone()));
    assert_eq!(rows(&world, "Tag, Sparse || Velocity", ent_id(1)), expected);
}

#[test]
fn or_chain_with_a_sparse_second_alternative_matches_only_its_holders() {
    let mut world = world();
    let es: Vec<Entity> = (0..6).map(|_| world.spawn(Tag).id()).collect();
    for &e in &es[..2] {
        world.insert(e, Sparse(1));
    }
    let v = world.spawn((Tag, Velocity(0))).id();
    let (sparse, velocity) = (cid::<Sparse>(&world).id(), cid::<Velocity>(&world).id());
    assert_eq!(
        rows(&world, "Tag, Velocity || Sparse", ent_id(1)),
        sorted([(es[0], sparse), (es[1], sparse), (v, velocity)])
    );
}

// ===== or-chains with variables, unions, prefabs ===============================================

#[test]
fn or_chain_of_pairs_binding_one_variable() {
    let mut world = world();
    let bob = world.spawn(Name::new("Bob")).id();
    let apples = world.spawn(Name::new("Apples")).id();
    let a = world.spawn(Tag).id();
    world.entity_mut(a).add_pair::<Likes>(bob);
    let c = world.spawn(Tag).id();
    world.entity_mut(c).insert_pair(Eats { amount: 1 }, apples);
    let d = world.spawn(Tag).id();
    world.entity_mut(d).add_pair::<Likes>(bob).insert_pair(Eats { amount: 2 }, apples);
    let none = world.spawn(Tag).id();
    let (likes, eats) = (cid::<Likes>(&world), cid::<Eats>(&world));
    let f = |row: &DynRow<'_>| (row.entity(), row.var("x"), row.id(1));
    assert_eq!(
        rows(&world, "Tag, (Likes, $x) || (Eats, $x)", f),
        sorted([
            (a, Some(bob), Id::pair(likes, bob)),
            (c, Some(apples), Id::pair(eats, apples)),
            (d, Some(bob), Id::pair(likes, bob))
        ])
    );
    assert!(!ents(&world, "Tag, (Likes, $x) || (Eats, $x)").contains(&none));
}

#[test]
fn or_chain_of_pairs_with_a_variable_joined_to_a_toggle_on_the_variable() {
    let mut world = world();
    let bob = world.spawn((Name::new("Bob"), Thrust(1))).id();
    let carol = world.spawn((Name::new("Carol"), Thrust(2))).id();
    let a = world.spawn(Tag).id();
    world.entity_mut(a).add_pair::<Likes>(bob);
    let b = world.spawn(Tag).id();
    world.entity_mut(b).insert_pair(Eats { amount: 1 }, carol);
    world.entity_mut(carol).disable::<Thrust>();
    let f = |row: &DynRow<'_>| (row.entity(), row.var("x"));
    assert_eq!(rows(&world, "Tag, (Likes, $x) || (Eats, $x), Thrust($x)", f), vec![(a, Some(bob))]);
    assert_eq!(rows(&world, "Tag, (Likes, $x) || (Eats, $x), Thrust($x) || Tag($x)", f), vec![(a, Some(bob))]);
    world.entity_mut(carol).insert(Velocity(0));
    assert_eq!(
        rows(&world, "Tag, (Likes, $x) || (Eats, $x), Thrust($x) || Velocity($x)", f),
        sorted([(a, Some(bob)), (b, Some(carol))])
    );
}

#[test]
fn or_chain_of_union_pairs_follows_target_changes_without_moves() {
    let mut world = world();
    let walking = world.spawn(Name::new("Walking")).id();
    let running = world.spawn(Name::new("Running")).id();
    let sitting = world.spawn(Name::new("Sitting")).id();
    let es: Vec<Entity> = (0..5).map(|_| world.spawn((Tag, Thrust(0))).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        world.entity_mut(e).add_pair::<Movement>([walking, running, sitting][i % 3]);
    }
    let movement = cid::<Movement>(&world);
    let text = "Tag, (Movement, Walking) || (Movement, Running)";
    let mut qs = both(&world, text);
    let f = |row: &DynRow<'_>| (row.entity(), row.id(1));
    assert_eq!(
        rows_of(&mut qs, &world, f),
        sorted([
            (es[0], Id::pair(movement, walking)),
            (es[1], Id::pair(movement, running)),
            (es[3], Id::pair(movement, walking)),
            (es[4], Id::pair(movement, running))
        ])
    );
    world.entity_mut(es[2]).add_pair::<Movement>(running);
    world.entity_mut(es[0]).add_pair::<Movement>(sitting);
    assert_eq!(
        rows_of(&mut qs, &world, f),
        sorted([
            (es[1], Id::pair(movement, running)),
            (es[2], Id::pair(movement, running)),
            (es[3], Id::pair(movement, walking)),
            (es[4], Id::pair(movement, running))
        ])
    );
    assert_eq!(rows(&world, text, f).len(), 4);
}

#[test]
fn or_chain_of_a_union_pair_then_a_plain_component() {
    let mut world = world();
    let walking = world.spawn(Name::new("Walking")).id();
    let running = world.spawn(Name::new("Running")).id();
    let es: Vec<Entity> = (0..4).map(|i| world.spawn((Tag, Velocity(i))).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        world.entity_mut(e).add_pair::<Movement>(if i % 2 == 0 { walking } else { running });
    }
    let (movement, velocity) = (cid::<Movement>(&world), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(1));
    let walk = Id::pair(movement, walking);
    assert_eq!(
        rows(&world, "Tag, (Movement, Walking) || Velocity", f),
        sorted([(es[0], walk), (es[1], velocity), (es[2], walk), (es[3], velocity)])
    );
}

#[test]
fn or_chain_on_a_fixed_source_with_a_disabled_first_alternative() {
    let mut world = world();
    let ship = world.spawn((Name::new("Ship"), Thrust(1), Velocity(2))).id();
    let a = world.spawn(Tag).id();
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(1), row.source(1));
    assert_eq!(rows(&world, "Tag, Thrust(Ship) || Velocity(Ship)", f), vec![(a, t, ship)]);
    world.entity_mut(ship).disable::<Thrust>();
    assert_eq!(rows(&world, "Tag, Thrust(Ship) || Velocity(Ship)", f), vec![(a, v, ship)]);
    world.remove::<Velocity>(ship);
    assert!(rows(&world, "Tag, Thrust(Ship) || Velocity(Ship)", f).is_empty());
}

#[test]
fn or_chain_up_childof_with_a_disabled_first_alternative_on_the_parent() {
    let mut world = world();
    let p1 = world.spawn((Thrust(1), Velocity(1))).id();
    let p2 = world.spawn((Thrust(2), Velocity(2))).id();
    let k1 = world.spawn((Tag, ChildOf.pair(p1))).id();
    let k2 = world.spawn((Tag, ChildOf.pair(p2))).id();
    world.entity_mut(p2).disable::<Thrust>();
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(1), row.source(1));
    assert_eq!(rows(&world, "Tag, Thrust(up ChildOf) || Velocity(up ChildOf)", f), sorted([(k1, t, p1), (k2, v, p2)]));
}

#[test]
fn or_chain_mixing_a_toggle_and_a_union_pair_in_one_table() {
    let mut world = world();
    let walking = world.spawn(Name::new("Walking")).id();
    let running = world.spawn(Name::new("Running")).id();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn((Tag, Thrust(i))).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        world.entity_mut(e).add_pair::<Movement>(if i % 2 == 0 { walking } else { running });
        if i < 3 {
            world.entity_mut(e).disable::<Thrust>();
        }
    }
    let (movement, thrust) = (cid::<Movement>(&world), cid::<Thrust>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(1));
    assert_eq!(
        rows(&world, "Tag, Thrust || (Movement, Walking)", f),
        sorted([
            (es[0], Id::pair(movement, walking)),
            (es[2], Id::pair(movement, walking)),
            (es[3], thrust),
            (es[4], thrust),
            (es[5], thrust)
        ])
    );
}

#[test]
fn or_chain_on_prefab_instances_with_self_owned_toggles() {
    let mut world = world();
    let base = world.spawn((Prefab, Velocity(1))).id();
    let insts: Vec<Entity> = (0..70).map(|i| world.spawn((IsA.pair(base), Thrust(i))).id()).collect();
    for &i in &[0usize, 64, 69] {
        world.entity_mut(insts[i]).disable::<Thrust>();
    }
    let (t, v) = (cid::<Thrust>(&world).id(), cid::<Velocity>(&world).id());
    let f = |row: &DynRow<'_>| (row.entity(), row.id(0), row.source(0));
    let expected =
        sorted(insts.iter().enumerate().map(|(i, &e)| if [0, 64, 69].contains(&i) { (e, v, base) } else { (e, t, e) }));
    assert_eq!(rows(&world, "Thrust || Velocity", f), expected);
}

// ===== observers: pairs naming despawned entities ==============================================

/// What observers saw, in firing order.
#[derive(Resource, Default, Debug)]
struct Log(Vec<String>);

fn take(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn rec(what: &str, e: Entity, ids: &[Id]) -> String {
    format!("{what} {e:?} {ids:?}")
}

/// A fresh observer entity, not yet registered.
fn observer_entity(world: &mut World) -> Entity {
    #[derive(Event)]
    struct Never;
    let o = world.add_observer(|_: Trigger<Never>| {}).id();
    assert!(world.unregister_observer(o));
    o
}

/// Registers `o` as an observer of the raw ids `ids` (`ids_of` may name `o`).
fn register<E: Event>(world: &mut World, o: Entity, what: &'static str, ids: &[Id]) {
    let runner: ObserverRunner = Box::new(move |world: &mut World, info: &TriggerInfo, _| {
        world.resource_mut::<Log>().0.push(rec(what, info.entity, &info.ids));
    });
    world.register_observer(o, TypeId::of::<E>(), ids.iter().copied().collect(), Default::default(), runner);
}

/// An observer of the raw ids `ids`.
fn raw<E: Event>(world: &mut World, what: &'static str, ids: &[Id]) -> Entity {
    let o = observer_entity(world);
    register::<E>(world, o, what, ids);
    o
}

/// Spawns empty entities until one gets `index` again.
#[track_caller]
fn recycle(world: &mut World, index: u32) -> Entity {
    for _ in 0..8 {
        let e = world.spawn_empty().id();
        if e.index() == index {
            return e;
        }
    }
    panic!("index {index} was not recycled")
}

fn wild() -> Entity {
    Entity::WILDCARD
}

#[test]
fn observer_of_a_plain_relationship_hears_holders_lose_it_then_goes() {
    let mut world = world();
    let rel = world.spawn_empty().id();
    let t = world.spawn_empty().id();
    let holder = world.spawn(Position(0)).id();
    assert!(world.add_id(holder, Id::pair(rel, t)));
    let o = raw::<OnRemove>(&mut world, "rel", &[Id::pair(rel, wild())]);
    let exact = raw::<OnRemove>(&mut world, "exact", &[Id::pair(rel, t)]);
    assert!(world.despawn(rel));
    let mut seen = take(&mut world);
    seen.sort();
    assert_eq!(seen, sorted([rec("exact", holder, &[Id::pair(rel, t)]), rec("rel", holder, &[Id::pair(rel, t)])]));
    assert!(!world.is_alive(o) && !world.is_alive(exact));
    assert!(world.is_alive(t) && world.is_alive(holder));
    assert!(!world.has_id(holder, Id::pair(rel, t)));
    let recycled = recycle(&mut world, rel.index());
    assert!(world.add_id(holder, Id::pair(recycled, t)));
    assert!(world.remove_id(holder, Id::pair(recycled, t)));
    assert!(take(&mut world).is_empty());
    world.check_invariants();
}

#[test]
fn observer_of_a_pair_survives_the_despawn_of_the_other_halfs_unrelated_entities() {
    let mut world = world();
    let rel = world.spawn_empty().id();
    let t = world.spawn_empty().id();
    let o = raw::<OnAdd>(&mut world, "pair", &[Id::pair(rel, t)]);
    // Unrelated: holders, other targets, other relationships.
    let other_rel = world.spawn_empty().id();
    let other_t = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    world.add_id(holder, Id::pair(rel, other_t));
    world.add_id(holder, Id::pair(other_rel, t));
    assert!(take(&mut world).is_empty());
    world.despawn(other_rel);
    world.despawn(other_t);
    world.despawn(holder);
    assert!(world.is_alive(o));
    let h2 = world.spawn_empty().id();
    world.add_id(h2, Id::pair(rel, t));
    assert_eq!(take(&mut world), vec![rec("pair", h2, &[Id::pair(rel, t)])]);
}

#[test]
fn observer_naming_itself_as_target_goes_with_itself() {
    let mut world = world();
    let rel = cid::<Rel>(&world);
    let keep = raw::<OnAdd>(&mut world, "keep", &[Id::pair(rel, wild())]);
    let o = observer_entity(&mut world);
    register::<OnAdd>(&mut world, o, "self", &[Id::pair(rel, o)]);
    let holder = world.spawn_empty().id();
    world.entity_mut(holder).add_pair::<Rel>(o);
    let mut seen = take(&mut world);
    seen.sort();
    assert_eq!(seen, sorted([rec("keep", holder, &[Id::pair(rel, o)]), rec("self", holder, &[Id::pair(rel, o)])]));
    let count = world.entity_count();
    assert!(world.despawn(o));
    assert!(!world.is_alive(o));
    assert!(!world.has_pair::<Rel>(holder, o));
    assert_eq!(world.entity_count(), count, "observers are internal");
    let recycled = recycle(&mut world, o.index());
    world.entity_mut(holder).add_pair::<Rel>(recycled);
    assert_eq!(take(&mut world), vec![rec("keep", holder, &[Id::pair(rel, recycled)])]);
    assert!(world.is_alive(keep) && world.is_alive(recycled));
    world.check_invariants();
}

#[test]
fn observer_naming_itself_as_relationship_goes_with_itself() {
    let mut world = world();
    let o = observer_entity(&mut world);
    register::<OnAdd>(&mut world, o, "self", &[Id::pair(o, wild())]);
    let t = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    assert!(world.add_id(holder, Id::pair(o, t)));
    assert_eq!(take(&mut world), vec![rec("self", holder, &[Id::pair(o, t)])]);
    assert!(world.despawn(o));
    assert!(!world.has_id(holder, Id::pair(o, t)));
    let recycled = recycle(&mut world, o.index());
    assert!(world.add_id(holder, Id::pair(recycled, t)));
    assert!(take(&mut world).is_empty());
    assert!(world.is_alive(recycled) && world.is_alive(holder));
    world.check_invariants();
}

#[test]
fn observers_of_component_pairs_survive_every_unrelated_despawn() {
    let mut world = world();
    let (likes, eats) = (cid::<Likes>(&world), cid::<Eats>(&world));
    let o_likes = raw::<OnAdd>(&mut world, "likes", &[Id::pair(likes, wild())]);
    let o_eats = raw::<OnRemove>(&mut world, "eats", &[Id::pair(eats, Entity::ANY)]);
    let o_pos = world.add_observer(|_: Trigger<OnAdd, Position>| {}).id();
    let o_any = raw::<OnAdd>(&mut world, "any", &[Id::pair(Entity::ANY, Entity::ANY)]);
    for _ in 0..3 {
        let t = world.spawn_empty().id();
        let h = world.spawn(Position(0)).id();
        world.entity_mut(h).add_pair::<Likes>(t).insert_pair(Eats { amount: 1 }, t);
        world.despawn(t);
        world.despawn(h);
    }
    world.clear_entities();
    take(&mut world);
    for o in [o_likes, o_eats, o_pos, o_any] {
        assert!(world.is_alive(o), "{o:?}");
    }
    let t = world.spawn_empty().id();
    let h = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Likes>(t);
    let mut seen = take(&mut world);
    seen.sort();
    assert_eq!(seen, sorted([rec("any", h, &[Id::pair(likes, t)]), rec("likes", h, &[Id::pair(likes, t)])]));
    world.entity_mut(h).insert_pair(Eats { amount: 1 }, t);
    take(&mut world);
    world.entity_mut(h).remove_pair::<Eats>(t);
    assert_eq!(take(&mut world), vec![rec("eats", h, &[Id::pair(eats, t)])]);
}

#[test]
fn any_target_observer_of_an_entity_hears_concrete_pairs_and_goes_with_it() {
    let mut world = world();
    let (likes, rel) = (cid::<Likes>(&world), cid::<Rel>(&world));
    let e = world.spawn_empty().id();
    let o = raw::<OnAdd>(&mut world, "any-e", &[Id::pair(Entity::ANY, e)]);
    let h = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Likes>(e);
    assert_eq!(take(&mut world), vec![rec("any-e", h, &[Id::pair(likes, e)])]);
    let other = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Rel>(other);
    assert!(take(&mut world).is_empty(), "(Rel, other) does not name e");
    world.entity_mut(h).add_pair::<Rel>(e);
    assert_eq!(take(&mut world), vec![rec("any-e", h, &[Id::pair(rel, e)])]);
    world.despawn(other);
    assert!(world.is_alive(o));
    world.despawn(e);
    assert!(!world.is_alive(o));
    let recycled = recycle(&mut world, e.index());
    world.entity_mut(h).add_pair::<Likes>(recycled);
    assert!(take(&mut world).is_empty());
}

#[test]
fn any_relationship_half_observer_of_an_entity_goes_with_it() {
    let mut world = world();
    let r = world.spawn_empty().id();
    let t = world.spawn_empty().id();
    let o = raw::<OnAdd>(&mut world, "r-any", &[Id::pair(r, Entity::ANY)]);
    let h = world.spawn_empty().id();
    world.add_id(h, Id::pair(r, t));
    assert_eq!(take(&mut world), vec![rec("r-any", h, &[Id::pair(r, t)])]);
    world.despawn(t);
    assert!(world.is_alive(o), "a target's despawn leaves (r, _) alone");
    world.despawn(r);
    assert!(!world.is_alive(o));
}

// ===== observers: union pairs of a despawned holder ============================================

struct UnionScene {
    movement: Entity,
    walking: Entity,
    holder: Entity,
}

fn union_scene(world: &mut World) -> UnionScene {
    let movement = cid::<Movement>(world);
    let walking = world.spawn_empty().id();
    let holder = world.spawn(Position(1)).id();
    world.entity_mut(holder).add_pair::<Movement>(walking);
    UnionScene { movement, walking, holder }
}

/// Observers of every form of the union pair, plus one of another target.
fn union_observers(world: &mut World, u: &UnionScene) -> Entity {
    let running = world.spawn_empty().id();
    raw::<OnRemove>(world, "rel", &[Id::pair(u.movement, wild())]);
    raw::<OnRemove>(world, "exact", &[Id::pair(u.movement, u.walking)]);
    raw::<OnRemove>(world, "tgt", &[Id::pair(wild(), u.walking)]);
    raw::<OnRemove>(world, "any", &[Id::pair(wild(), wild())]);
    raw::<OnRemove>(world, "other", &[Id::pair(u.movement, running)]);
    raw::<OnRemove>(world, "other-tgt", &[Id::pair(wild(), running)]);
    running
}

fn heard_by_the_four(u: &UnionScene, holder: Entity) -> Vec<String> {
    let id = [Id::pair(u.movement, u.walking)];
    sorted(["any", "exact", "rel", "tgt"].map(|what| rec(what, holder, &id)))
}

#[test]
fn despawned_union_holder_is_reported_with_its_exact_pair_to_every_form() {
    let mut world = world();
    let u = union_scene(&mut world);
    union_observers(&mut world, &u);
    world.despawn(u.holder);
    assert_eq!(sorted(take(&mut world)), heard_by_the_four(&u, u.holder));
}

#[test]
fn despawned_union_holder_among_others_reports_each_own_target() {
    let mut world = world();
    let u = union_scene(&mut world);
    let running = union_observers(&mut world, &u);
    let runner = world.spawn(Position(2)).id();
    world.entity_mut(runner).add_pair::<Movement>(running);
    take(&mut world);
    world.despawn(runner);
    let id = [Id::pair(u.movement, running)];
    assert_eq!(
        sorted(take(&mut world)),
        sorted(["any", "other", "other-tgt", "rel"].map(|what| rec(what, runner, &id)))
    );
    world.despawn(u.holder);
    assert_eq!(sorted(take(&mut world)), heard_by_the_four(&u, u.holder));
}

#[test]
fn union_holder_despawned_by_a_parent_cascade_reports_the_exact_pair() {
    let mut world = world();
    let u = union_scene(&mut world);
    let parent = world.spawn_empty().id();
    world.entity_mut(u.holder).add_pair::<ChildOf>(parent);
    union_observers(&mut world, &u);
    world.despawn(parent);
    assert!(!world.is_alive(u.holder));
    let seen: Vec<String> =
        take(&mut world).into_iter().filter(|line| line.contains(&format!("{:?}", u.holder))).collect();
    // The holder also loses (ChildOf, parent): only `any` hears that one.
    let child_of = Id::pair(cid::<ChildOf>(&world), parent);
    let mut expected = heard_by_the_four(&u, u.holder);
    expected.push(rec("any", u.holder, &[child_of]));
    assert_eq!(sorted(seen), sorted(expected));
}

#[test]
fn union_holder_despawned_by_a_command_reports_the_exact_pair() {
    let mut world = world();
    let u = union_scene(&mut world);
    union_observers(&mut world, &u);
    let holder = u.holder;
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(holder).despawn();
    });
    assert!(!world.is_alive(holder));
    assert_eq!(sorted(take(&mut world)), heard_by_the_four(&u, holder));
}

#[test]
fn union_holder_with_other_pairs_never_reports_the_placeholder() {
    let mut world = world();
    let u = union_scene(&mut world);
    let likes = cid::<Likes>(&world);
    let bob = world.spawn_empty().id();
    world.entity_mut(u.holder).add_pair::<Likes>(bob);
    raw::<OnRemove>(&mut world, "any", &[Id::pair(wild(), wild())]);
    raw::<OnRemove>(&mut world, "likes", &[Id::pair(likes, wild())]);
    let pos = cid::<Position>(&world).id();
    raw::<OnRemove>(&mut world, "pos", &[pos]);
    world.despawn(u.holder);
    let id = Id::pair(u.movement, u.walking);
    let lb = Id::pair(likes, bob);
    assert_eq!(
        sorted(take(&mut world)),
        sorted([
            rec("any", u.holder, &[id]),
            rec("any", u.holder, &[lb]),
            rec("likes", u.holder, &[lb]),
            rec("pos", u.holder, &[pos])
        ])
    );
}

#[test]
fn any_forms_hear_a_despawned_union_holder_like_wildcards() {
    let mut world = world();
    let u = union_scene(&mut world);
    raw::<OnRemove>(&mut world, "rel_", &[Id::pair(u.movement, Entity::ANY)]);
    raw::<OnRemove>(&mut world, "_tgt", &[Id::pair(Entity::ANY, u.walking)]);
    raw::<OnRemove>(&mut world, "__", &[Id::pair(Entity::ANY, Entity::ANY)]);
    world.despawn(u.holder);
    let id = [Id::pair(u.movement, u.walking)];
    assert_eq!(sorted(take(&mut world)), sorted(["__", "_tgt", "rel_"].map(|w| rec(w, u.holder, &id))));
}

#[test]
fn union_holder_losing_its_target_then_despawned_reports_nothing_more() {
    let mut world = world();
    let u = union_scene(&mut world);
    let rel = raw::<OnRemove>(&mut world, "rel", &[Id::pair(u.movement, wild())]);
    world.entity_mut(u.holder).remove_pair::<Movement>(u.walking);
    assert_eq!(take(&mut world), vec![rec("rel", u.holder, &[Id::pair(u.movement, u.walking)])]);
    world.despawn(u.holder);
    assert!(take(&mut world).is_empty(), "no union pair left to report");
    assert!(world.is_alive(rel));
}

#[test]
fn clear_entities_reports_union_pairs_concretely() {
    let mut world = world();
    let u = union_scene(&mut world);
    let o = raw::<OnRemove>(&mut world, "rel", &[Id::pair(u.movement, wild())]);
    world.clear_entities();
    // The pair goes once: with the holder or with its target, as (Movement, walking).
    assert_eq!(take(&mut world), vec![rec("rel", u.holder, &[Id::pair(u.movement, u.walking)])]);
    assert!(world.is_alive(o));
}

#[test]
fn observer_of_a_self_pair_of_one_entity_goes_once() {
    let mut world = world();
    let e = world.spawn_empty().id();
    let o = raw::<OnAdd>(&mut world, "ee", &[Id::pair(e, e)]);
    let keep = raw::<OnAdd>(&mut world, "keep", &[Id::pair(wild(), wild())]);
    let h = world.spawn_empty().id();
    assert!(world.add_id(h, Id::pair(e, e)));
    assert_eq!(sorted(take(&mut world)), sorted([rec("ee", h, &[Id::pair(e, e)]), rec("keep", h, &[Id::pair(e, e)])]));
    let count = world.entity_count();
    assert!(world.despawn(e));
    assert!(!world.is_alive(o) && world.is_alive(keep) && world.is_alive(h));
    assert_eq!(world.entity_count(), count - 1);
    world.check_invariants();
}

#[test]
fn observer_of_a_pair_naming_a_holder_of_it_hears_its_despawn_once() {
    let mut world = world();
    let rel = cid::<Rel>(&world);
    let h = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Rel>(h);
    let o = raw::<OnRemove>(&mut world, "self", &[Id::pair(rel, h)]);
    let any = raw::<OnRemove>(&mut world, "any", &[Id::pair(wild(), wild())]);
    assert!(world.despawn(h));
    assert_eq!(
        sorted(take(&mut world)),
        sorted([rec("any", h, &[Id::pair(rel, h)]), rec("self", h, &[Id::pair(rel, h)])])
    );
    assert!(!world.is_alive(o) && world.is_alive(any));
    world.check_invariants();
}

#[test]
fn union_holder_targeting_itself_is_reported_once_with_its_exact_pair() {
    let mut world = world();
    let movement = cid::<Movement>(&world);
    let h = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Movement>(h);
    let exact = raw::<OnRemove>(&mut world, "exact", &[Id::pair(movement, h)]);
    let rel = raw::<OnRemove>(&mut world, "rel", &[Id::pair(movement, wild())]);
    assert!(world.despawn(h));
    let id = [Id::pair(movement, h)];
    assert_eq!(sorted(take(&mut world)), sorted([rec("exact", h, &id), rec("rel", h, &id)]));
    assert!(!world.is_alive(exact) && world.is_alive(rel));
    world.check_invariants();
}

#[test]
fn observer_of_two_pairs_goes_when_either_named_entity_goes() {
    let mut world = world();
    let rel = cid::<Rel>(&world);
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let o = raw::<OnAdd>(&mut world, "ab", &[Id::pair(rel, a), Id::pair(rel, b)]);
    let ob = raw::<OnAdd>(&mut world, "b", &[Id::pair(rel, b)]);
    world.despawn(a);
    assert!(!world.is_alive(o));
    assert!(world.is_alive(ob));
    let h = world.spawn_empty().id();
    world.entity_mut(h).add_pair::<Rel>(b);
    assert_eq!(take(&mut world), vec![rec("b", h, &[Id::pair(rel, b)])]);
}
