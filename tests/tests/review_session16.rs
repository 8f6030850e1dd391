//! Adversarial review of three recent library changes:
//!
//! - `World::found_up` (ecs/src/world/ids.rs): an `up IsA` walk never finds an
//!   id whose component or relationship is `dont_inherit` (`Name`, `Prefab`,
//!   `(ChildOf, _)`, `(IsA, _)`, user `dont_inherit` components and pairs),
//!   in the runtime evaluator (`eval.rs`, `term_hits`) and the typed
//!   `Up<R, &T>` (`relation/query.rs`, `find_up_with_source`);
//! - `PairError::AncestorInstance` for an entity made an instance of one of its
//!   own `ChildOf` ancestors (`check_pair`, bundles' `refuse_invalid`);
//! - the `inherited_cells`/`stale_base` helper behind `Ref<T>`, `Added<T>` and
//!   `Changed<T>` on values inherited from a prefab.
//!
//! Pinned here: plain (non-`Prefab`) bases, several bases, multi-level chains,
//! sparse components, wildcard and union pairs, a `dont_inherit` runtime
//! relationship, cached and uncached runtime queries against the typed terms,
//! an observer reading `Up<IsA, _>`, inherited tags' ticks, queries reused
//! after a base lost or regained its value, and every `AncestorInstance`
//! refusal path (try_add_pair, try_add_id, add_pair, spawn and insert
//! bundles, commands, deep lines, prefab children) with the state unchanged.
//!
//! Findings: the first four are fixed (the tests pass); the last is left
//! (ignored): an inherited value carries its base's ticks, by design.
//! - `or_chain_up_isa_tries_the_next_alternative_on_a_base_after_a_dont_inherit_one`:
//!   `Local(up IsA) || Pos(up IsA)` yields no row for an instance whose prefab
//!   holds both, while `Pos(up IsA) || Local(up IsA)` does: `term_hits`
//!   filters `dont_inherit` hits only after `self_hits` stopped at the first
//!   alternative that matched the base.
//! - `any_up_isa_finds_an_inheritable_id_behind_a_dont_inherit_one`: `_` and
//!   `(_, t)` with `up IsA` yield nothing where `*` / `(*, t)` yield a row:
//!   `pattern_hits` returns only the first id for `_` (`once`), which is the
//!   base's `Prefab` or `(ChildOf, t)`, then `found_up` drops it.
//! - `insert_bundle_with_isa_before_the_new_childof_is_accepted_as_in_the_other_order`:
//!   inserting `(Pos, IsA.pair(b), ChildOf.pair(elsewhere))` on a child of `b`
//!   passes `refuse_invalid` (the IsA is checked against the new parent), then
//!   `add_to_by_policy` adds `(IsA, b)` while the old parent is still in place
//!   and panics with `AncestorInstance`, after `Pos` already landed; the
//!   reverse pair order is accepted.
//! - `spawn_bundle_refusal_message_names_no_placeholder`: the refusal of a
//!   spawned bundle says "would make PLACEHOLDER an instance ... a copy of
//!   PLACEHOLDER under PLACEHOLDER" (`source` is `Entity::PLACEHOLDER`).
//! - `changed_reports_an_instance_whose_own_value_was_removed_uncovering_the_base`:
//!   after an instance's own value is removed, `get` reads the prefab's other
//!   value, but `Changed<T>` and `Ref::is_changed` say unchanged (the base's
//!   old ticks), though observers hear the uncovering as `OnAdd`/`OnInsert`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::Id;
use ecs::prelude::*;
use ecs::query::DynQuery;
use ecs::system::CommandQueue;
use ecs::world::PairError;
use ecs_tests::panic_message;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Local(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse", on_instantiate = "dont_inherit")]
struct SparseLocal(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparsePos(u32);

#[derive(Component)]
#[component(on_instantiate = "dont_inherit")]
struct LocalTag;

#[derive(Component)]
struct Tag;

#[derive(Relationship)]
struct Weight {
    w: u32,
}

#[derive(Relationship)]
#[relationship(union, traversable)]
struct Movement;

#[derive(Resource, Default)]
struct Seen(Vec<(Entity, bool, Option<Pos>)>);

/// `(row entity, source of term 0)` of every row.
fn rows(q: &mut DynQuery, world: &World) -> Vec<(Entity, Entity)> {
    q.iter(world).map(|r| (r.entity(), r.source(0))).collect()
}

/// The rows of `dsl`, cached and uncached (asserted equal).
fn dsl_rows(world: &World, dsl: &str) -> Vec<(Entity, Entity)> {
    let cached = rows(&mut world.query_dsl(dsl).unwrap(), world);
    let uncached = rows(&mut world.query_dsl_uncached(dsl).unwrap(), world);
    assert_eq!(cached, uncached, "{dsl}: cached and uncached differ");
    cached
}

fn register(world: &mut World) {
    world.register_component::<Pos>();
    world.register_component::<Local>();
    world.register_component::<SparseLocal>();
    world.register_component::<SparsePos>();
    world.register_component::<Tag>();
    world.register_component::<Weight>();
    world.register_component::<Movement>();
}

// ----- dont_inherit along up IsA ------------------------------------------------------------

#[test]
fn a_plain_base_gives_its_inheritable_values_up_isa_but_never_its_dont_inherit_ones() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Local(1), Pos(2.0))).id(); // not a prefab
    let instance = world.spawn(IsA.pair(base)).id();
    assert_eq!(world.get::<Local>(instance), None);
    let typed: Vec<Entity> = world.query::<(Entity, Up<IsA, &Local>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(typed.is_empty(), "{typed:?}");
    assert!(dsl_rows(&world, "Local(up IsA)").is_empty());
    assert!(dsl_rows(&world, "Local(self|up IsA)").iter().all(|&(e, _)| e != instance));
    // Explicit traversal reads a plain base's own inheritable value, typed and runtime alike.
    let typed: Vec<(Entity, Pos)> =
        world.query::<(Entity, Up<IsA, &Pos>)>().iter(&world).map(|(e, p)| (e, *p)).collect();
    assert_eq!(typed, vec![(instance, Pos(2.0))]);
    assert_eq!(dsl_rows(&world, "Pos(up IsA)"), vec![(instance, base)]);
}

#[test]
fn with_several_bases_a_dont_inherit_value_on_each_is_skipped_and_the_second_gives_pos() {
    let mut world = World::new();
    register(&mut world);
    let first = world.spawn((Prefab, Local(1))).id();
    let second = world.spawn((Prefab, Local(2), Pos(3.0))).id();
    let instance = world.spawn((IsA.pair(first), IsA.pair(second))).id();
    let typed: Vec<Entity> = world.query::<(Entity, Up<IsA, &Local>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(typed.is_empty(), "{typed:?}");
    assert!(dsl_rows(&world, "Local(up IsA)").is_empty());
    assert!(dsl_rows(&world, "Local(self|up IsA)").is_empty());
    assert_eq!(dsl_rows(&world, "Pos(up IsA)"), vec![(instance, second)]);
    let typed: Vec<(Entity, Pos)> =
        world.query::<(Entity, Up<IsA, &Pos>)>().iter(&world).map(|(e, p)| (e, *p)).collect();
    assert_eq!(typed, vec![(instance, Pos(3.0))]);
    assert!(!world.has::<Local>(instance));
    assert!(world.query::<(Entity, Has<Local>)>().iter(&world).all(|(e, has)| e != instance || !has));
}

#[test]
fn a_middle_prefab_owning_a_dont_inherit_value_does_not_give_it_while_the_grand_base_gives_pos() {
    let mut world = World::new();
    register(&mut world);
    let grand = world.spawn((Prefab, Pos(1.0), Local(1))).id();
    let middle = world.spawn((Prefab, Local(2), IsA.pair(grand))).id();
    let instance = world.instantiate(middle);
    assert!(dsl_rows(&world, "Local(up IsA)").is_empty());
    let typed: Vec<Entity> = world.query::<(Entity, Up<IsA, &Local>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(typed.is_empty(), "{typed:?}");
    // The middle prefab inherits Pos: found on it (or the grand base) from the instance.
    let found = dsl_rows(&world, "Pos(up IsA)");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, instance);
    assert!(found[0].1 == middle || found[0].1 == grand, "{found:?}");
    assert_eq!(world.get::<Pos>(instance), Some(&Pos(1.0)));
}

#[test]
fn sparse_dont_inherit_is_never_found_up_isa_while_a_sparse_inheritable_one_is() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, SparseLocal(1), SparsePos(2))).id();
    let instance = world.instantiate(base);
    assert_eq!(world.get::<SparseLocal>(instance), None);
    assert_eq!(world.get::<SparsePos>(instance), Some(&SparsePos(2)));
    for dsl in ["SparseLocal(up IsA)", "SparseLocal(self|up IsA)", "SparseLocal"] {
        assert!(dsl_rows(&world, dsl).is_empty(), "{dsl}");
    }
    for dsl in ["SparsePos(up IsA)", "SparsePos(self|up IsA)", "SparsePos"] {
        assert_eq!(dsl_rows(&world, dsl), vec![(instance, base)], "{dsl}");
    }
    let typed: Vec<Entity> = world.query::<(Entity, Up<IsA, &SparseLocal>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(typed.is_empty(), "{typed:?}");
    let typed: Vec<(Entity, SparsePos)> =
        world.query::<(Entity, Up<IsA, &SparsePos>)>().iter(&world).map(|(e, v)| (e, *v)).collect();
    assert_eq!(typed, vec![(instance, SparsePos(2))]);
}

#[test]
fn a_wildcard_relationship_up_isa_skips_the_bases_childof_and_keeps_its_data_pair() {
    let mut world = World::new();
    register(&mut world);
    let target = world.spawn_empty().id();
    let base = world.spawn((Prefab, Weight { w: 4 }.pair(target), ChildOf.pair(target))).id();
    let instance = world.instantiate(base);
    assert_eq!(world.get_pair::<Weight>(base, target).map(|weight| weight.w), Some(4));
    let (weight, is_a, child_of) = (
        world.register_component::<Weight>(),
        world.register_component::<IsA>(),
        world.register_component::<ChildOf>(),
    );
    for cached in [true, false] {
        let builder = world.query_builder().pair(Entity::WILDCARD, target).up(is_a);
        let mut q = if cached { builder.build() } else { builder.build_uncached() }.unwrap();
        let got: Vec<(Entity, Id, Entity)> = q.iter(&world).map(|r| (r.entity(), r.id(0), r.source(0))).collect();
        assert_eq!(got, vec![(instance, Id::pair(weight, target), base)], "cached: {cached}");
    }
    assert_eq!(dsl_rows(&world, "Weight(up IsA, *)"), vec![(instance, base)]);
    assert!(dsl_rows(&world, "ChildOf(up IsA, *)").is_empty());
    let mut q = world.query_builder().pair(child_of, Entity::WILDCARD).up(is_a).build().unwrap();
    assert!(rows(&mut q, &world).is_empty());
    assert!(dsl_rows(&world, "IsA(up IsA, *)").is_empty());
}

#[test]
fn a_runtime_pair_of_a_dont_inherit_relationship_is_not_found_up_isa() {
    let mut world = World::new();
    register(&mut world);
    let target = world.spawn_empty().id();
    let base = world.spawn((Prefab, Weight { w: 1 }.pair(target))).id();
    let local_tag = world.register_component::<LocalTag>();
    world.try_add_id(base, Id::pair(local_tag, target)).unwrap();
    let instance = world.instantiate(base);
    assert!(!world.has_id(instance, Id::pair(local_tag, target)));
    assert!(dsl_rows(&world, "LocalTag(up IsA, *)").is_empty());
    assert!(dsl_rows(&world, "LocalTag(self|up IsA, *)").is_empty());
    assert_eq!(dsl_rows(&world, "Weight(up IsA, *)"), vec![(instance, base)]);
}

#[test]
fn a_union_pair_of_a_base_is_found_up_isa_cached_and_uncached() {
    let mut world = World::new();
    register(&mut world);
    let walking = world.spawn_empty().id();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    world.entity_mut(base).add_pair::<Movement>(walking);
    let instance = world.instantiate(base);
    assert_eq!(dsl_rows(&world, "Movement(up IsA, *)"), vec![(instance, base)]);
    let mut q = world.query_dsl("Movement(up IsA, *)").unwrap();
    assert_eq!(q.iter(&world).map(|r| r.pair_target(0)).collect::<Vec<_>>(), vec![walking]);
}

#[test]
fn plain_wildcard_up_isa_finds_the_inheritable_ids_and_not_prefab() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Pos(1.0), Tag)).id();
    let instance = world.instantiate(base);
    let mut q = world.query_dsl("*(up IsA)").unwrap();
    let ids: Vec<(Entity, Id)> = q.iter(&world).map(|r| (r.entity(), r.id(0))).collect();
    let (pos, tag) = (world.component_id::<Pos>().unwrap(), world.component_id::<Tag>().unwrap());
    let mut expected = vec![(instance, pos.id()), (instance, tag.id())];
    let mut got = ids.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
}

#[test]
fn an_observer_reading_up_isa_sees_pos_and_no_dont_inherit_value_of_the_new_instance() {
    let mut world = World::new();
    register(&mut world);
    world.init_resource::<Seen>();
    world.add_observer(
        |t: Trigger<OnAdd, Pos>, local: Query<Up<IsA, &Local>>, pos: Query<Up<IsA, &Pos>>, mut seen: ResMut<Seen>| {
            let e = t.entity();
            seen.0.push((e, local.get(e).is_ok(), pos.get(e).ok().copied()));
        },
    );
    let base = world.spawn((Prefab, Local(1), Pos(2.0))).id();
    let instance = world.instantiate(base);
    assert_eq!(world.resource::<Seen>().0, vec![(instance, false, Some(Pos(2.0)))]);
}

#[test]
fn or_chain_up_isa_tries_the_next_alternative_on_a_base_after_a_dont_inherit_one() {
    let mut world = World::new();
    register(&mut world);
    let base = world.spawn((Prefab, Local(1), Pos(2.0))).id();
    let instance = world.instantiate(base);
    // Control: the other order matches through Pos.
    assert_eq!(dsl_rows(&world, "Pos(up IsA) || Local(up IsA)"), vec![(instance, base)]);
    assert_eq!(dsl_rows(&world, "Local(up IsA) || Pos(up IsA)"), vec![(instance, base)]);
    assert_eq!(dsl_rows(&world, "Local(self|up IsA) || Pos(self|up IsA)"), vec![(instance, base)]);
    let (local, pos, is_a) = (
        world.component_id::<Local>().unwrap(),
        world.component_id::<Pos>().unwrap(),
        world.register_component::<IsA>(),
    );
    let mut q = world.query_builder().read(local).or(pos).up(is_a).build().unwrap();
    assert_eq!(rows(&mut q, &world), vec![(instance, base)]);
}

#[test]
fn any_up_isa_finds_an_inheritable_id_behind_a_dont_inherit_one() {
    let mut world = World::new();
    register(&mut world);
    let target = world.spawn_empty().id();
    let base = world.spawn((Prefab, Weight { w: 3 }.pair(target), ChildOf.pair(target))).id();
    let instance = world.instantiate(base);
    let is_a = world.register_component::<IsA>();
    let mut wildcard = world.query_builder().pair(Entity::WILDCARD, target).up(is_a).build().unwrap();
    assert_eq!(rows(&mut wildcard, &world), vec![(instance, base)]);
    let mut any = world.query_builder().pair(Entity::ANY, target).up(is_a).build().unwrap();
    assert_eq!(rows(&mut any, &world), vec![(instance, base)], "`_` must match where `*` does, once");
    // A plain `_`: the base holds Prefab (dont_inherit) and Pos.
    let plain_base = world.spawn((Prefab, Pos(1.0))).id();
    let plain_instance = world.instantiate(plain_base);
    let star: Vec<Entity> = dsl_rows(&world, "*(up IsA)").into_iter().map(|(e, _)| e).collect();
    assert!(star.contains(&plain_instance), "{star:?}");
    let any: Vec<Entity> = dsl_rows(&world, "_(up IsA)").into_iter().map(|(e, _)| e).collect();
    assert!(any.contains(&plain_instance), "{any:?}");
}

// ----- AncestorInstance ----------------------------------------------------------------------

#[test]
fn childof_under_the_line_of_the_second_of_two_bases_names_that_base() {
    let mut world = World::new();
    let first = world.spawn(Prefab).id();
    let second = world.spawn(Prefab).id();
    let child = world.spawn(ChildOf.pair(second)).id();
    let grandchild = world.spawn(ChildOf.pair(child)).id();
    let instance = world.spawn((IsA.pair(first), IsA.pair(second))).id();
    let before = world.entity(instance).archetype();
    let error = world.try_add_pair::<ChildOf>(instance, grandchild).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance {
            relationship: "ChildOf".to_owned(),
            source: instance,
            target: grandchild,
            base: second
        }
    );
    let message = error.to_string();
    assert!(message.contains(&format!("{second:?}")) && message.contains("ChildOf ancestors"), "{message}");
    assert_eq!(world.entity(instance).archetype(), before);
    assert_eq!(world.target::<ChildOf>(instance), None);
    // Both bases on the line: the nearest is named.
    let nested = world.spawn((Prefab, ChildOf.pair(first))).id();
    let under = world.spawn(ChildOf.pair(nested)).id();
    let both = world.spawn((IsA.pair(first), IsA.pair(nested))).id();
    let error = world.try_add_pair::<ChildOf>(both, under).unwrap_err();
    assert!(matches!(error, PairError::AncestorInstance { base, .. } if base == nested), "{error:?}");
}

#[test]
fn deep_lines_are_refused_in_both_orders_naming_the_root() {
    let mut world = World::new();
    let root = world.spawn(Prefab).id();
    let mut leaf = root;
    for _ in 0..40 {
        leaf = world.spawn(ChildOf.pair(leaf)).id();
    }
    let error = world.try_add_pair::<IsA>(leaf, root).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance { relationship: "IsA".to_owned(), source: leaf, target: root, base: root }
    );
    assert!(!world.has_pair::<IsA>(leaf, root));
    let instance = world.instantiate(root);
    let error = world.try_add_pair::<ChildOf>(instance, leaf).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance { relationship: "ChildOf".to_owned(), source: instance, target: leaf, base: root }
    );
    assert_eq!(world.target::<ChildOf>(instance), None);
}

#[test]
fn a_prefab_child_is_refused_as_instance_of_its_prefab_and_an_instance_under_it() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    let child = world.spawn(ChildOf.pair(prefab)).id();
    assert!(world.has::<Prefab>(child));
    let is_a = world.register_component::<IsA>();
    let error = world.try_add_id(child, Id::pair(is_a, prefab)).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance { relationship: "IsA".to_owned(), source: child, target: prefab, base: prefab }
    );
    let instance = world.instantiate(prefab);
    let error = world.try_add_pair::<ChildOf>(instance, child).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance {
            relationship: "ChildOf".to_owned(),
            source: instance,
            target: child,
            base: prefab
        }
    );
    // The panicking form says the same.
    let message = panic_message(|| {
        world.entity_mut(child).add_pair::<IsA>(prefab);
    });
    assert!(message.contains("ChildOf ancestors") && !message.contains("already reaches"), "{message}");
    assert!(!world.has_pair::<IsA>(child, prefab));
}

#[test]
fn real_cycles_of_acyclic_relationships_stay_cycle() {
    let mut world = World::new();
    let a = world.spawn(Prefab).id();
    let b = world.spawn((Prefab, IsA.pair(a))).id();
    assert!(matches!(world.try_add_pair::<IsA>(a, b), Err(PairError::Cycle { .. })));
    assert!(matches!(world.try_add_pair::<IsA>(a, a), Err(PairError::Cycle { .. })));
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    let error = world.try_add_pair::<ChildOf>(parent, child).unwrap_err();
    assert!(matches!(error, PairError::Cycle { .. }), "{error:?}");
    assert!(error.to_string().contains("already reaches"), "{error}");
}

#[test]
fn a_refused_insert_bundle_changes_nothing_and_names_the_existing_base() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|t: Trigger<OnAdd, Pos>, mut seen: ResMut<Seen>| seen.0.push((t.entity(), true, None)));
    let old_base = world.spawn(Prefab).id();
    let new_base = world.spawn(Prefab).id();
    let under_old = world.spawn(ChildOf.pair(old_base)).id();
    let entity = world.spawn(IsA.pair(old_base)).id();
    let before = world.entity(entity).archetype();
    let message = panic_message(|| {
        world.entity_mut(entity).insert((Pos(1.0), IsA.pair(new_base), ChildOf.pair(under_old)));
    });
    assert!(message.contains("ChildOf ancestors"), "{message}");
    assert!(message.contains(&format!("an instance (IsA) of {old_base:?}")), "{message}");
    assert_eq!(world.entity(entity).archetype(), before);
    assert_eq!(world.get::<Pos>(entity), None);
    assert!(!world.has_pair::<IsA>(entity, new_base));
    assert_eq!(world.target::<ChildOf>(entity), None);
    assert!(world.resource::<Seen>().0.is_empty());
    // A spawn refused the same way leaves no entity.
    let count = world.entity_count();
    let message = panic_message(|| {
        world.spawn((Pos(1.0), ChildOf.pair(under_old), IsA.pair(old_base)));
    });
    assert!(message.contains("ChildOf ancestors") && message.contains("a new entity"), "{message}");
    assert_eq!(world.entity_count(), count);
    assert!(world.resource::<Seen>().0.is_empty());
}

#[test]
fn commands_refusals_name_the_ancestor_and_leave_nothing_behind() {
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    let child = world.spawn(ChildOf.pair(base)).id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(child).add_pair::<IsA>(base);
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains("ChildOf ancestors") && message.contains(&format!("{child:?}")), "{message}");
    assert!(!world.has_pair::<IsA>(child, base));
    let count = world.entity_count();
    let mut queue = CommandQueue::default();
    let spawned = Commands::new(&mut queue, &world).spawn((Pos(1.0), IsA.pair(base), ChildOf.pair(base))).id();
    let message = panic_message(|| queue.apply(&mut world));
    assert!(message.contains("ChildOf ancestors"), "{message}");
    assert!(!world.is_alive(spawned));
    assert_eq!(world.entity_count(), count);
}

#[test]
fn insert_bundle_with_isa_before_the_new_childof_is_accepted_as_in_the_other_order() {
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    let elsewhere = world.spawn_empty().id();
    // Control: the new parent first.
    let first = world.spawn(ChildOf.pair(base)).id();
    world.entity_mut(first).insert((Pos(1.0), ChildOf.pair(elsewhere), IsA.pair(base)));
    assert!(world.has_pair::<IsA>(first, base) && world.has_pair::<ChildOf>(first, elsewhere));
    // The same bundle, IsA first.
    let second = world.spawn(ChildOf.pair(base)).id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(second).insert((Pos(1.0), IsA.pair(base), ChildOf.pair(elsewhere)));
    }));
    let landed_pos = world.get::<Pos>(second).copied();
    assert!(result.is_ok(), "refused after Pos landed: {landed_pos:?}");
    assert!(world.has_pair::<IsA>(second, base) && world.has_pair::<ChildOf>(second, elsewhere));
}

#[test]
fn spawn_bundle_refusal_message_names_no_placeholder() {
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    let message = panic_message(|| {
        world.spawn((IsA.pair(base), ChildOf.pair(base)));
    });
    assert!(message.contains("ChildOf ancestors"), "{message}");
    assert!(!message.contains("PLACEHOLDER"), "{message}");
}

// ----- change detection on inherited values -------------------------------------------------

#[test]
fn inherited_tags_report_ticks_through_ref_and_added_without_panicking() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Tag)).id();
    let instance = world.instantiate(base);
    let mut added = world.query_filtered::<Entity, Added<Tag>>();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![instance]);
    assert!(added.iter(&world).next().is_none());
    let mut by_ref = world.query::<(Entity, Ref<Tag>)>();
    let got: Vec<(Entity, bool)> = by_ref.iter(&world).map(|(e, r)| (e, r.is_added())).collect();
    assert_eq!(got, vec![(instance, true)]);
}

#[test]
fn changes_reach_instances_through_a_chain_until_a_middle_prefab_overrides() {
    let mut world = World::new();
    let grand = world.spawn((Prefab, Pos(1.0))).id();
    let middle = world.spawn((Prefab, IsA.pair(grand))).id();
    let instance = world.instantiate(middle);
    let mut by_ref = world.query::<(Entity, Ref<Pos>)>();
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut snapshot = |world: &World| {
        let by_ref: Vec<(Entity, Pos, bool)> = by_ref.iter(world).map(|(e, r)| (e, *r, r.is_changed())).collect();
        (by_ref, changed.iter(world).collect::<Vec<_>>())
    };
    assert_eq!(snapshot(&world), (vec![(instance, Pos(1.0), true)], vec![instance]));
    assert_eq!(snapshot(&world), (vec![(instance, Pos(1.0), false)], vec![]));
    world.get_mut::<Pos>(grand).unwrap().0 = 2.0;
    assert_eq!(snapshot(&world), (vec![(instance, Pos(2.0), true)], vec![instance]));
    world.entity_mut(middle).insert(Pos(5.0));
    assert_eq!(snapshot(&world), (vec![(instance, Pos(5.0), true)], vec![instance]));
    world.get_mut::<Pos>(grand).unwrap().0 = 3.0;
    assert_eq!(snapshot(&world), (vec![(instance, Pos(5.0), false)], vec![]));
}

#[test]
fn reused_queries_follow_a_base_that_loses_regains_or_dies_without_panicking() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    let instance = world.instantiate(base);
    let mut by_ref = world.query::<(Entity, Ref<Pos>)>();
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut added = world.query_filtered::<Entity, Added<Pos>>();
    let mut snapshot = |world: &World| {
        let by_ref: Vec<(Entity, Pos)> = by_ref.iter(world).map(|(e, r)| (e, *r)).collect();
        (by_ref, changed.iter(world).collect::<Vec<_>>(), added.iter(world).collect::<Vec<_>>())
    };
    assert_eq!(snapshot(&world), (vec![(instance, Pos(1.0))], vec![instance], vec![instance]));
    world.entity_mut(base).remove::<Pos>();
    assert_eq!(snapshot(&world), (vec![], vec![], vec![]));
    world.entity_mut(base).insert(Pos(7.0));
    assert_eq!(snapshot(&world), (vec![(instance, Pos(7.0))], vec![instance], vec![instance]));
    world.despawn(base);
    assert_eq!(snapshot(&world), (vec![], vec![], vec![]));
}

#[test]
#[ignore = "finding (left, by design: an inherited value carries its base's ticks): removing an instance's own value uncovers the prefab's (get changes 9.0 -> 1.0) but Changed<T>/Ref::is_changed report no change"]
fn changed_reports_an_instance_whose_own_value_was_removed_uncovering_the_base() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Pos(1.0))).id();
    let instance = world.instantiate(base);
    world.entity_mut(instance).insert(Pos(9.0));
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut by_ref = world.query::<(Entity, Ref<Pos>)>();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![instance]);
    assert_eq!(by_ref.iter(&world).map(|(e, r)| (e, *r)).collect::<Vec<_>>(), vec![(instance, Pos(9.0))]);
    world.entity_mut(instance).remove::<Pos>();
    assert_eq!(world.get::<Pos>(instance), Some(&Pos(1.0)));
    let got: Vec<(Entity, Pos, bool)> = by_ref.iter(&world).map(|(e, r)| (e, *r, r.is_changed())).collect();
    assert_eq!(got, vec![(instance, Pos(1.0), true)], "the value the row reads changed");
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![instance]);
}
