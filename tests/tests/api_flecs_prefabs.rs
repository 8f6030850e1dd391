//! Acceptance tests ported from Flecs' core test suites (Prefab.c, IsA /
//! inheritance, OnInstantiate overrides, Toggle, Union / DontFragment,
//! Hierarchies.c and Names / paths, entity ranges, OnDelete of prefabs) to
//! this library's API (API.md, "Prefabs, toggles, unions, names" and
//! "Relationships"). Cases already covered by `ported_prefabs.rs`,
//! `api_prefabs.rs`, `prefab.rs`, `toggle.rs`, `union.rs`, `names.rs`,
//! `disabled.rs` and `entity_ranges.rs` are not repeated.

use std::collections::BTreeSet;

use ecs::prelude::*;
use ecs::world::NameError;
use ecs_tests::panic_message;

#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Position(f32);
#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Velocity(f32);
#[derive(Component, Debug, PartialEq, Clone)]
#[component(on_instantiate = "override")]
struct Hull(u32);
#[derive(Component, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Blueprint(u32);
#[derive(Component, Debug)]
struct Tag;
#[derive(Component, Debug)]
struct Other;
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(f32);
#[derive(Component, Debug, PartialEq, Clone)]
#[component(toggle, on_instantiate = "override")]
struct Firing(u32);
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Relationship)]
#[relationship(union)]
struct Movement;
#[derive(Relationship)]
#[relationship(union)]
struct Direction;
#[derive(Relationship)]
#[relationship(union, on_delete = "delete")]
struct Carries;
#[derive(Relationship)]
struct Likes;

fn sorted(v: impl IntoIterator<Item = Entity>) -> Vec<Entity> {
    let mut v: Vec<Entity> = v.into_iter().collect();
    v.sort();
    v
}

fn rows_of<F: ecs::query::QueryFilter>(world: &mut World) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, F>().iter(world))
}

// ======================================================================== Prefab.c

/// Prefab.c `empty_prefab`: an instance of an empty prefab holds only the pair.
#[test]
fn empty_prefab_instance_holds_only_the_is_a_pair() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    let inst = world.instantiate(prefab);
    assert!(world.has_pair::<IsA>(inst, prefab));
    assert!(!world.has::<Prefab>(inst));
    assert_eq!(world.children(inst).count(), 0);
    assert_eq!(world.entity_count(), 2);
    assert_eq!(world.query::<Entity>().iter(&world).collect::<Vec<_>>(), vec![inst]);
}

/// Prefab.c `dont_match_prefab` / `match_prefab`: prefabs appear only in
/// queries that name `Prefab`; `Has<Prefab>` tells them apart.
#[test]
fn queries_naming_prefab_see_the_prefab_beside_its_instances() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let inst = world.instantiate(prefab);
    let rows: BTreeSet<(Entity, bool)> =
        world.query::<(Entity, &Position, Has<Prefab>)>().iter(&world).map(|(e, _, p)| (e, p)).collect();
    assert_eq!(rows, [(prefab, true), (inst, false)].into());
    assert_eq!(rows_of::<With<Prefab>>(&mut world), vec![prefab]);
    let mut dsl = world.query_dsl("Position, Prefab").unwrap();
    assert_eq!(dsl.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![prefab]);
}

/// Prefab.c `new_w_count_prefab`: a batch of instances, all reading one value.
#[test]
fn spawn_batch_of_instances_shares_inherited_and_copies_overrides() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(3.0), Hull(7))).id();
    let ids: Vec<Entity> = world.spawn_batch((0..100).map(|_| (IsA.pair(prefab),))).collect();
    assert_eq!(ids.len(), 100);
    for &e in &ids {
        assert_eq!(world.get::<Position>(e), Some(&Position(3.0)));
        assert!(!world.owns::<Position>(e));
        assert!(world.owns::<Hull>(e));
    }
    world.get_mut::<Hull>(ids[5]).unwrap().0 = 1;
    assert_eq!(world.get::<Hull>(ids[6]), Some(&Hull(7)));
    world.get_mut::<Position>(prefab).unwrap().0 = 4.0;
    let sum: f32 = world.query::<&Position>().iter(&world).map(|p| p.0).sum();
    assert_eq!(sum, 400.0);
}

/// Prefab.c `override_2_of_3_components_1_self`: an instance spawned with one
/// of its own values owns that one and the override copies, and inherits the rest.
#[test]
fn instance_owns_its_own_values_and_override_copies_inherits_the_rest() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0), Velocity(2.0), Hull(3))).id();
    let inst = world.spawn((Velocity(20.0), IsA.pair(prefab))).id();
    assert!(world.owns::<Velocity>(inst) && world.owns::<Hull>(inst));
    assert!(!world.owns::<Position>(inst) && world.has::<Position>(inst));
    assert_eq!(world.get::<Velocity>(inst), Some(&Velocity(20.0)));
    assert_eq!(world.get::<Position>(inst), Some(&Position(1.0)));
    let mut q = world.query::<(Entity, &mut Velocity, &mut Hull)>();
    assert_eq!(q.iter_mut(&mut world).map(|(e, _, _)| e).collect::<Vec<_>>(), vec![inst]);
    assert_eq!(world.query::<&mut Position>().iter_mut(&mut world).count(), 0);
}

/// Override after inherit, the prefab changes meanwhile, then remove: the
/// instance sees the prefab's current value, not the one it shadowed.
#[test]
fn remove_after_override_uncovers_the_prefabs_current_value() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let inst = world.instantiate(prefab);
    world.insert(inst, Position(5.0));
    world.get_mut::<Position>(prefab).unwrap().0 = 9.0;
    assert_eq!(world.get::<Position>(inst), Some(&Position(5.0)));
    assert_eq!(world.remove::<Position>(inst), Some(Position(5.0)));
    assert_eq!(world.get::<Position>(inst), Some(&Position(9.0)));
    assert!(world.has::<Position>(inst) && !world.owns::<Position>(inst));
    let rows: Vec<(Entity, f32)> = world.query::<(Entity, &Position)>().iter(&world).map(|(e, p)| (e, p.0)).collect();
    assert_eq!(rows, vec![(inst, 9.0)]);
}

/// A prefab edit reaches inheriting instances, never overriding ones.
#[test]
fn prefab_edit_reaches_inheriting_instances_but_not_overridden_ones() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0), Hull(1))).id();
    let inheriting = world.instantiate(prefab);
    let overriding = world.instantiate(prefab);
    world.insert(overriding, Position(2.0));
    world.entity_mut(prefab).insert((Position(10.0), Hull(10)));
    assert_eq!(world.get::<Position>(inheriting), Some(&Position(10.0)));
    assert_eq!(world.get::<Position>(overriding), Some(&Position(2.0)));
    // Hull is "override": copied at instantiate time in both.
    assert_eq!(world.get::<Hull>(inheriting), Some(&Hull(1)));
    assert_eq!(world.get::<Hull>(overriding), Some(&Hull(1)));
    let rows: BTreeSet<(Entity, u32)> =
        world.query::<(Entity, &Position)>().iter(&world).map(|(e, p)| (e, p.0 as u32)).collect();
    assert_eq!(rows, [(inheriting, 10), (overriding, 2)].into());
}

/// A typed `QueryState` made before the override sees the instance move from
/// the shared value to its own.
#[test]
fn cached_query_follows_override_and_uncover() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let inst = world.instantiate(prefab);
    let mut q = world.query::<(Entity, &Position)>();
    let mut mutq = world.query::<(Entity, &mut Position)>();
    assert_eq!(q.iter(&world).map(|(_, p)| p.0).collect::<Vec<_>>(), vec![1.0]);
    assert_eq!(mutq.iter_mut(&mut world).count(), 0);
    world.insert(inst, Position(7.0));
    assert_eq!(q.iter(&world).map(|(_, p)| p.0).collect::<Vec<_>>(), vec![7.0]);
    for (_, mut p) in mutq.iter_mut(&mut world) {
        p.0 += 1.0;
    }
    assert_eq!(world.get::<Position>(inst), Some(&Position(8.0)));
    world.remove::<Position>(inst);
    assert_eq!(q.iter(&world).map(|(e, p)| (e, p.0)).collect::<Vec<_>>(), vec![(inst, 1.0)]);
    assert_eq!(mutq.iter_mut(&mut world).count(), 0);
}

/// Prefab.c `override_tag`: a tag of the prefab is inherited; adding it to the
/// instance makes it owned, removing uncovers the inherited one.
#[test]
fn inherited_tag_can_be_owned_and_uncovered() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Tag)).id();
    let inst = world.instantiate(prefab);
    assert!(world.has::<Tag>(inst) && !world.owns::<Tag>(inst));
    world.entity_mut(inst).insert(Tag);
    assert!(world.owns::<Tag>(inst));
    world.entity_mut(inst).remove::<Tag>();
    assert!(world.has::<Tag>(inst) && !world.owns::<Tag>(inst));
    assert_eq!(rows_of::<With<Tag>>(&mut world), vec![inst]);
    let mut q = world.query_dsl("Tag").unwrap();
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![inst]);
    world.entity_mut(prefab).remove::<Tag>();
    assert!(!world.has::<Tag>(inst));
    assert_eq!(rows_of::<With<Tag>>(&mut world), Vec::<Entity>::new());
}

/// Prefab.c `get_component_from_1st_base` / `_2nd_base`: with two bases each
/// giving other components, the instance reads both.
#[test]
fn two_bases_each_contribute_their_components() {
    let mut world = World::new();
    let a = world.spawn((Prefab, Position(1.0))).id();
    let b = world.spawn((Prefab, Velocity(2.0), Hull(3))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(a).add_pair::<IsA>(b).id();
    assert_eq!(world.get::<Position>(inst), Some(&Position(1.0)));
    assert_eq!(world.get::<Velocity>(inst), Some(&Velocity(2.0)));
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(3)));
    assert!(world.owns::<Hull>(inst));
    let rows: Vec<(f32, f32)> = world.query::<(&Position, &Velocity)>().iter(&world).map(|(p, v)| (p.0, v.0)).collect();
    assert_eq!(rows, vec![(1.0, 2.0)]);
}

/// Removing one of two bases drops only what it gave.
#[test]
fn removing_one_base_drops_only_its_inherited_values() {
    let mut world = World::new();
    let a = world.spawn((Prefab, Position(1.0))).id();
    let b = world.spawn((Prefab, Velocity(2.0), Hull(3))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(a).add_pair::<IsA>(b).id();
    world.entity_mut(inst).remove_pair::<IsA>(b);
    assert!(!world.has_pair::<IsA>(inst, b) && world.has_pair::<IsA>(inst, a));
    assert_eq!(world.get::<Velocity>(inst), None);
    assert_eq!(world.get::<Position>(inst), Some(&Position(1.0)));
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(3)), "an override copy is the instance's own");
    assert_eq!(rows_of::<With<Velocity>>(&mut world), Vec::<Entity>::new());
    assert_eq!(rows_of::<With<Position>>(&mut world), vec![inst]);
}

/// Removing the only `(IsA, p)` turns an instance into a plain entity: owned
/// copies and instantiated children stay, inherited values go.
#[test]
fn removing_the_is_a_pair_keeps_copies_and_children() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0), Hull(2))).id();
    world.spawn((Name::new("gun"), ChildOf.pair(prefab)));
    let inst = world.instantiate(prefab);
    let gun = world.lookup_child(inst, "gun").unwrap();
    world.entity_mut(inst).remove_pair::<IsA>(prefab);
    assert_eq!(world.get::<Position>(inst), None);
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(2)));
    assert_eq!(world.lookup_child(inst, "gun"), Some(gun));
    assert!(world.is_alive(gun));
    assert_eq!(rows_of::<With<Position>>(&mut world), Vec::<Entity>::new());
}

/// Adding `(IsA, p)` to an entity that already has values keeps them and
/// fills in what it lacks.
#[test]
fn adding_is_a_later_keeps_existing_values() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0), Velocity(1.0), Hull(1))).id();
    let e = world.spawn((Position(5.0), Hull(5))).id();
    world.entity_mut(e).add_pair::<IsA>(prefab);
    assert_eq!(world.get::<Position>(e), Some(&Position(5.0)));
    assert_eq!(world.get::<Hull>(e), Some(&Hull(5)), "an owned value is never overwritten by the copy");
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(1.0)));
    assert!(!world.owns::<Velocity>(e));
}

/// Adding the same `(IsA, p)` twice instantiates the children once.
#[test]
fn adding_the_same_is_a_twice_does_not_duplicate_children() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    world.spawn((Name::new("gun"), Tag, ChildOf.pair(prefab)));
    let inst = world.instantiate(prefab);
    world.entity_mut(inst).add_pair::<IsA>(prefab);
    assert_eq!(world.children(inst).count(), 1);
    assert_eq!(rows_of::<With<Tag>>(&mut world).len(), 1);
}

/// Flecs refuses `IsA` cycles (it is acyclic): to itself, or through a chain.
#[test]
fn is_a_cycles_are_refused() {
    let mut world = World::new();
    let a = world.spawn((Prefab, Position(1.0))).id();
    let b = world.spawn((Prefab, IsA.pair(a))).id();
    assert!(world.try_add_pair::<IsA>(a, a).is_err());
    assert!(world.try_add_pair::<IsA>(a, b).is_err());
    assert!(!world.has_pair::<IsA>(a, b) && !world.has_pair::<IsA>(a, a));
    assert_eq!(world.get::<Position>(b), Some(&Position(1.0)));
    world.check_invariants();
}

/// `instantiate` of a dead prefab panics naming it and leaves nothing behind.
#[test]
fn instantiate_of_a_dead_prefab_panics_naming_it() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    world.despawn(prefab);
    let before = world.entity_count();
    let msg = panic_message(|| world.instantiate(prefab));
    assert!(msg.contains(&format!("{prefab:?}")), "{msg}");
    assert_eq!(world.entity_count(), before);
}

// ======================================================================== variants and chains

/// A variant (a prefab that IsA a prefab) overrides a base value; instances of
/// the base still read the base's.
#[test]
fn variant_prefab_overrides_a_base_value() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Position(1.0), Velocity(1.0))).id();
    let variant = world.spawn((Prefab, IsA.pair(base), Position(2.0))).id();
    let of_base = world.instantiate(base);
    let of_variant = world.instantiate(variant);
    assert_eq!(world.get::<Position>(of_base), Some(&Position(1.0)));
    assert_eq!(world.get::<Position>(of_variant), Some(&Position(2.0)));
    assert_eq!(world.get::<Velocity>(of_variant), Some(&Velocity(1.0)));
    world.get_mut::<Velocity>(base).unwrap().0 = 5.0;
    world.get_mut::<Position>(base).unwrap().0 = 6.0;
    assert_eq!(world.get::<Velocity>(of_variant), Some(&Velocity(5.0)));
    assert_eq!(world.get::<Position>(of_variant), Some(&Position(2.0)), "the variant's own value shadows");
    let rows: BTreeSet<(Entity, u32)> =
        world.query::<(Entity, &Position)>().iter(&world).map(|(e, p)| (e, p.0 as u32)).collect();
    assert_eq!(rows, [(of_base, 6), (of_variant, 2)].into());
}

/// A variant adds a component its base lacks: only its instances have it.
#[test]
fn variant_adds_a_component_the_base_lacks() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Position(1.0))).id();
    let variant = world.spawn((Prefab, IsA.pair(base), Tag)).id();
    let of_base = world.instantiate(base);
    let of_variant = world.instantiate(variant);
    assert!(world.has::<Tag>(of_variant) && !world.has::<Tag>(of_base));
    assert_eq!(rows_of::<(With<Position>, Without<Tag>)>(&mut world), vec![of_base]);
    assert_eq!(rows_of::<(With<Position>, With<Tag>)>(&mut world), vec![of_variant]);
}

/// Override policy on a chain: the variant's own copy wins over the root's for
/// the instance (nearest holder), and edits of the root never reach it.
#[test]
fn override_copies_come_from_the_nearest_holder_in_the_chain() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Hull(1))).id();
    let variant = world.spawn((Prefab, IsA.pair(root))).id();
    assert_eq!(world.get::<Hull>(variant), Some(&Hull(1)), "a variant gets its own copy too");
    assert!(world.owns::<Hull>(variant));
    world.get_mut::<Hull>(variant).unwrap().0 = 2;
    world.get_mut::<Hull>(root).unwrap().0 = 3;
    let inst = world.instantiate(variant);
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(2)));
    let inst_root = world.instantiate(root);
    assert_eq!(world.get::<Hull>(inst_root), Some(&Hull(3)));
}

/// Three-level chain: an edit of the root reaches instances of the leaf; a
/// value inserted on the middle shadows it, removed uncovers it again.
#[test]
fn three_level_chain_root_edits_and_middle_shadowing() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0))).id();
    let mid = world.spawn((Prefab, IsA.pair(root))).id();
    let leaf = world.spawn((Prefab, IsA.pair(mid))).id();
    let inst = world.instantiate(leaf);
    let mut q = world.query::<(Entity, &Position)>();
    world.get_mut::<Position>(root).unwrap().0 = 2.0;
    assert_eq!(world.get::<Position>(inst), Some(&Position(2.0)));
    world.entity_mut(mid).insert(Position(3.0));
    assert_eq!(world.get::<Position>(inst), Some(&Position(3.0)));
    assert_eq!(q.iter(&world).map(|(e, p)| (e, p.0)).collect::<Vec<_>>(), vec![(inst, 3.0)]);
    world.entity_mut(mid).remove::<Position>();
    assert_eq!(world.get::<Position>(inst), Some(&Position(2.0)));
    assert_eq!(q.iter(&world).map(|(e, p)| (e, p.0)).collect::<Vec<_>>(), vec![(inst, 2.0)]);
}

/// `(IsA, X)` is transitive and reflexive: naming `Prefab` shows the chain.
#[test]
fn dsl_is_a_term_is_transitive_and_reflexive_over_a_chain() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Name::new("Root"))).id();
    let mid = world.spawn((Prefab, Name::new("Mid"), IsA.pair(root))).id();
    let leaf = world.spawn((Prefab, Name::new("Leaf"), IsA.pair(mid))).id();
    let inst = world.instantiate(leaf);
    let other = world.spawn((Prefab, Name::new("Other"))).id();
    world.instantiate(other);
    let mut q = world.query_dsl("(IsA, Root)").unwrap();
    assert_eq!(sorted(q.iter(&world).map(|r| r.entity())), vec![inst]);
    let mut q = world.query_dsl("(IsA, Mid), Prefab").unwrap();
    assert_eq!(sorted(q.iter(&world).map(|r| r.entity())), sorted([mid, leaf]));
    let mut q = world.query_dsl("(IsA, Root), ?Prefab").unwrap();
    assert_eq!(sorted(q.iter(&world).map(|r| r.entity())), sorted([root, mid, leaf, inst]));
    let is_a = world.component_id::<IsA>().unwrap();
    let mut built = world.query_builder().pair(is_a, root).build().unwrap();
    assert_eq!(sorted(built.iter(&world).map(|r| r.entity())), vec![inst]);
}

/// API.md: `(IsA, B)` matches whatever inherits from B, through a chain; the
/// typed builder `with_pair::<IsA>(b)` is such a term.
#[test]
fn typed_with_pair_is_a_is_transitive() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0))).id();
    let mid = world.spawn((Prefab, IsA.pair(root))).id();
    let direct = world.instantiate(root);
    let indirect = world.instantiate(mid);
    let mut q = world.query::<Entity>().with_pair::<IsA>(root);
    assert_eq!(sorted(q.iter(&world)), sorted([direct, indirect]));
    let mut q = world.query::<(Entity, &Position)>().with_pair::<IsA>(root);
    assert_eq!(q.iter(&world).count(), 2);
}

/// `self|up IsA` reports where the value came from: the entity itself or the
/// prefab that holds it.
#[test]
fn dsl_self_up_is_a_source_is_the_holder() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0))).id();
    let inherits = world.instantiate(root);
    let owns = world.spawn((IsA.pair(root), Position(2.0))).id();
    let mut q = world.query_dsl("Position(self|up IsA)").unwrap();
    let rows: BTreeSet<(Entity, Entity, u32)> =
        q.iter(&world).map(|r| (r.entity(), r.source(0), r.get::<Position>(0).unwrap().0 as u32)).collect();
    assert_eq!(rows, [(inherits, root, 1), (owns, owns, 2)].into());
    let mut up = world.query_dsl("Position(up IsA)").unwrap();
    let rows: BTreeSet<(Entity, Entity)> = up.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
    assert_eq!(rows, [(inherits, root), (owns, root)].into());
}

/// `up IsA` through a variant reaches the root prefab that holds the value.
#[test]
fn dsl_up_is_a_through_a_variant_reaches_the_root() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0))).id();
    let variant = world.spawn((Prefab, IsA.pair(root))).id();
    let inherits = world.instantiate(variant);
    let mut self_up = world.query_dsl("Position(self|up IsA)").unwrap();
    let rows: Vec<(Entity, Entity)> = self_up.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
    assert_eq!(rows, vec![(inherits, root)]);
    let mut up = world.query_dsl("Position(up IsA)").unwrap();
    let rows: Vec<(Entity, Entity, f32)> =
        up.iter(&world).map(|r| (r.entity(), r.source(0), r.get::<Position>(0).unwrap().0)).collect();
    assert_eq!(rows, vec![(inherits, root, 1.0)]);
}

/// `Position(up ChildOf)` where the parent only inherits Position: Flecs'
/// up traversal sees the parent's inherited value.
#[test]
fn dsl_up_child_of_reads_an_inherited_value_of_the_parent() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(4.0))).id();
    let inst = world.instantiate(prefab);
    let child = world.spawn((Velocity(1.0), ChildOf.pair(inst))).id();
    let mut q = world.query_dsl("Velocity, Position(up ChildOf)").unwrap();
    let rows: Vec<(Entity, f32)> = q.iter(&world).map(|r| (r.entity(), r.get::<Position>(1).unwrap().0)).collect();
    assert_eq!(rows, vec![(child, 4.0)]);
}

/// Flecs: an instance used as a base passes its base's values on (IsA is
/// transitive: inst2 IsA inst1 IsA prefab reads the prefab's value).
#[test]
fn instance_of_an_instance_reads_through_the_chain() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let first = world.instantiate(prefab);
    let second = world.instantiate(first);
    let is_a = world.component_id::<IsA>().unwrap();
    let mut q = world.query_builder().pair(is_a, prefab).build().unwrap();
    assert_eq!(sorted(q.iter(&world).map(|r| r.entity())), sorted([first, second]), "IsA is transitive");
    assert_eq!(world.get::<Position>(second), Some(&Position(1.0)));
}

/// Deleting the base in the middle of a chain: the leaf prefab keeps its own
/// values, instances stop matching the deleted base's ancestors.
#[test]
fn deleting_the_middle_base_cuts_the_chain_for_queries() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0), Name::new("Root"))).id();
    let mid = world.spawn((Prefab, IsA.pair(root), Velocity(2.0))).id();
    let leaf = world.spawn((Prefab, IsA.pair(mid), Tag)).id();
    let inst = world.instantiate(leaf);
    let mut by_root = world.query_dsl("(IsA, Root)").unwrap();
    assert_eq!(by_root.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![inst]);
    world.despawn(mid);
    assert!(!world.has_pair::<IsA>(leaf, mid));
    assert!(world.has::<Tag>(inst), "the leaf's own tag is still inherited");
    assert!(!world.has::<Velocity>(inst) && !world.has::<Position>(inst));
    assert_eq!(by_root.iter(&world).count(), 0);
    let mut fresh = world.query_dsl("Tag").unwrap();
    assert_eq!(fresh.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![inst]);
    world.check_invariants();
}

/// Deleting the root of a chain: the middle keeps its own values for the
/// leaf's instances.
#[test]
fn deleting_the_root_keeps_the_middles_values() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Position(1.0), Hull(1))).id();
    let mid = world.spawn((Prefab, IsA.pair(root), Velocity(2.0))).id();
    let leaf = world.spawn((Prefab, IsA.pair(mid))).id();
    let inst = world.instantiate(leaf);
    world.despawn(root);
    assert!(world.is_alive(mid) && world.is_alive(leaf) && world.is_alive(inst));
    assert_eq!(world.get::<Velocity>(inst), Some(&Velocity(2.0)));
    assert_eq!(world.get::<Position>(inst), None);
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(1)), "copies are owned");
    assert_eq!(world.get::<Hull>(mid), Some(&Hull(1)));
    assert_eq!(rows_of::<With<Velocity>>(&mut world), vec![inst]);
}

/// Deleting a prefab with instances in several tables updates them all.
#[test]
fn deleting_a_prefab_updates_instances_in_every_table() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let plain = world.instantiate(prefab);
    let tagged = world.spawn((Tag, IsA.pair(prefab))).id();
    let owning = world.spawn((Position(3.0), Other, IsA.pair(prefab))).id();
    let mut q = world.query::<(Entity, &Position)>();
    assert_eq!(q.iter(&world).count(), 3);
    world.despawn(prefab);
    assert_eq!(q.iter(&world).map(|(e, p)| (e, p.0)).collect::<Vec<_>>(), vec![(owning, 3.0)]);
    for e in [plain, tagged, owning] {
        assert!(world.is_alive(e));
        assert!(world.targets::<IsA>(e).next().is_none());
    }
    assert!(world.has::<Tag>(tagged));
    world.check_invariants();
}

// ======================================================================== prefab hierarchies

fn ship_prefab(world: &mut World) -> (Entity, Entity, Entity) {
    let ship = world.spawn((Prefab, Name::new("Ship"), Position(0.0))).id();
    let turret = world.spawn((Name::new("turret"), Position(1.0), Hull(1), ChildOf.pair(ship))).id();
    let barrel = world.spawn((Name::new("barrel"), Position(2.0), Tag, ChildOf.pair(turret))).id();
    (ship, turret, barrel)
}

/// Prefab.c `prefab_w_grandchild`: nested prefab hierarchy, names and paths
/// on the instance.
#[test]
fn nested_prefab_hierarchy_instantiates_names_and_paths() {
    let mut world = World::new();
    let (ship, turret, barrel) = ship_prefab(&mut world);
    assert!(world.has::<Prefab>(turret) && world.has::<Prefab>(barrel));
    assert_eq!(world.path(barrel).as_deref(), Some("Ship::turret::barrel"));
    assert_eq!(world.lookup("Ship::turret::barrel"), Some(barrel));
    let inst = world.instantiate(ship);
    world.set_name(inst, "alpha").unwrap();
    let t = world.lookup("alpha::turret").expect("instance child");
    let b = world.lookup("alpha::turret::barrel").expect("instance grandchild");
    assert_eq!(world.path(b).as_deref(), Some("alpha::turret::barrel"));
    assert_eq!(world.parent(b), Some(t));
    assert_eq!(world.parent(t), Some(inst));
    assert!(world.has_pair::<IsA>(t, turret) && world.has_pair::<IsA>(b, barrel));
    assert!(!world.has::<Prefab>(t) && !world.has::<Prefab>(b));
    assert_eq!(world.get::<Position>(b), Some(&Position(2.0)));
    assert_eq!(world.lookup("Ship::turret::barrel"), Some(barrel), "prefab paths unchanged");
    assert_eq!(rows_of::<With<Tag>>(&mut world), vec![b]);
}

/// An unnamed instance has no path, so neither have its named children; a
/// name given later makes them reachable.
#[test]
fn instance_children_paths_need_a_named_instance() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    let b = world.lookup_child(t, "barrel").unwrap();
    assert_eq!(world.path(b), None);
    assert_eq!(world.lookup_child(inst, "barrel"), None, "lookup_child is not recursive");
    world.set_name(inst, "beta").unwrap();
    assert_eq!(world.path(b).as_deref(), Some("beta::turret::barrel"));
    world.set_name(inst, "gamma").unwrap();
    assert_eq!(world.lookup("beta::turret::barrel"), None);
    assert_eq!(world.lookup("gamma::turret::barrel"), Some(b));
}

/// Edits of a prefab child reach the instance children that inherit from it;
/// its override components are copies.
#[test]
fn prefab_child_edits_reach_instance_children_but_not_copies() {
    let mut world = World::new();
    let (ship, turret, barrel) = ship_prefab(&mut world);
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    world.get_mut::<Position>(turret).unwrap().0 = 10.0;
    world.get_mut::<Position>(barrel).unwrap().0 = 20.0;
    world.get_mut::<Hull>(turret).unwrap().0 = 99;
    for inst in [a, b] {
        let t = world.lookup_child(inst, "turret").unwrap();
        let br = world.lookup_child(t, "barrel").unwrap();
        assert_eq!(world.get::<Position>(t), Some(&Position(10.0)));
        assert_eq!(world.get::<Position>(br), Some(&Position(20.0)));
        assert_eq!(world.get::<Hull>(t), Some(&Hull(1)));
    }
    let ta = world.lookup_child(a, "turret").unwrap();
    world.get_mut::<Hull>(ta).unwrap().0 = 5;
    let tb = world.lookup_child(b, "turret").unwrap();
    assert_eq!(world.get::<Hull>(tb), Some(&Hull(1)));
}

/// `Up<ChildOf, &T>` on an instance's child reads the instance's inherited
/// value (API.md: `&T` sees inherited values; Flecs' up traversal does too).
#[test]
fn up_child_of_reads_the_instances_inherited_value() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    world.get_mut::<Position>(ship).unwrap().0 = 4.0;
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    let mut q = world.query::<(Entity, &Position, Up<ChildOf, &Position>)>();
    let rows: BTreeSet<(Entity, u32, u32)> =
        q.iter(&world).map(|(e, own, up)| (e, own.0 as u32, up.0 as u32)).collect();
    let b = world.lookup_child(t, "barrel").unwrap();
    assert_eq!(rows, [(t, 1, 4), (b, 2, 1)].into());
}

/// Prefab.c `prefab_w_child_w_base`: a prefab child that is itself an
/// instance of another prefab (a nested prefab) brings that prefab's values
/// and children into every instance, once.
#[test]
fn nested_prefab_child_is_an_instance_of_another_prefab() {
    let mut world = World::new();
    let turret = world.spawn((Prefab, Name::new("Turret"), Velocity(3.0))).id();
    world.spawn((Name::new("barrel"), Tag, ChildOf.pair(turret)));
    let ship = world.spawn((Prefab, Name::new("Ship"))).id();
    let slot = world.spawn((Name::new("turret"), ChildOf.pair(ship), IsA.pair(turret))).id();
    assert!(world.has::<Prefab>(slot));
    assert!(world.lookup_child(slot, "barrel").is_some(), "the nested prefab got its base's children");
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    assert_eq!(world.get::<Velocity>(t), Some(&Velocity(3.0)));
    let barrels: Vec<Entity> = world.children(t).collect();
    assert_eq!(barrels.len(), 1, "one barrel, not one per level of the chain");
    assert!(world.has::<Tag>(barrels[0]));
    assert_eq!(rows_of::<With<Tag>>(&mut world), barrels);
    let is_a = world.component_id::<IsA>().unwrap();
    let mut q = world.query_builder().pair(is_a, turret).build().unwrap();
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![t]);
}

/// Prefab.c `prefab_child_override`: a variant changes the child it got from
/// its base; instances of the variant see the change, instances of the base
/// do not.
#[test]
fn variant_overrides_a_child_it_got_from_its_base() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    let heavy = world.spawn((Prefab, Name::new("Heavy"), IsA.pair(ship))).id();
    let heavy_turret = world.lookup_child(heavy, "turret").expect("the variant has the base's child");
    assert!(world.has::<Prefab>(heavy_turret));
    world.entity_mut(heavy_turret).insert(Position(50.0));
    assert!(world.lookup_child(heavy_turret, "barrel").is_some());
    let h = world.instantiate(heavy);
    let s = world.instantiate(ship);
    let ht = world.lookup_child(h, "turret").unwrap();
    let st = world.lookup_child(s, "turret").unwrap();
    assert_eq!(world.get::<Position>(ht), Some(&Position(50.0)));
    assert_eq!(world.get::<Position>(st), Some(&Position(1.0)));
    assert_eq!(world.children(h).count(), 1);
}

/// A child added to a prefab after instances exist reaches new instances only
/// (children are instantiated at instantiate time).
#[test]
fn child_added_to_prefab_later_reaches_only_new_instances() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Ship"))).id();
    let old = world.instantiate(ship);
    world.spawn((Name::new("radar"), Tag, ChildOf.pair(ship)));
    let new = world.instantiate(ship);
    assert_eq!(world.lookup_child(old, "radar"), None);
    assert!(world.lookup_child(new, "radar").is_some());
    assert_eq!(rows_of::<With<Tag>>(&mut world).len(), 1);
}

/// Despawning an instance's child leaves the prefab child and the other
/// instances alone.
#[test]
fn despawning_an_instance_child_leaves_prefab_and_siblings() {
    let mut world = World::new();
    let (ship, turret, barrel) = ship_prefab(&mut world);
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    let ta = world.lookup_child(a, "turret").unwrap();
    let bar_a = world.lookup_child(ta, "barrel").unwrap();
    world.despawn(ta);
    assert!(!world.is_alive(bar_a));
    assert!(world.is_alive(turret) && world.is_alive(barrel));
    let tb = world.lookup_child(b, "turret").unwrap();
    assert!(world.lookup_child(tb, "barrel").is_some());
    assert_eq!(world.children(a).count(), 0);
    // The name is free again under `a`.
    let fresh = world.spawn((Name::new("turret"), ChildOf.pair(a))).id();
    assert_eq!(world.lookup_child(a, "turret"), Some(fresh));
}

/// Deleting a prefab deletes its whole subtree of prefab children; instance
/// children stay, lose their `IsA` pairs and inherited values, keep copies.
#[test]
fn deleting_a_prefab_with_grandchildren() {
    let mut world = World::new();
    let (ship, turret, barrel) = ship_prefab(&mut world);
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    let b = world.lookup_child(t, "barrel").unwrap();
    world.despawn(ship);
    assert!(!world.is_alive(turret) && !world.is_alive(barrel));
    assert!(world.is_alive(t) && world.is_alive(b));
    assert!(world.targets::<IsA>(t).next().is_none() && world.targets::<IsA>(b).next().is_none());
    assert_eq!(world.get::<Position>(b), None);
    assert!(!world.has::<Tag>(b));
    assert_eq!(world.get::<Hull>(t), Some(&Hull(1)));
    assert_eq!(world.get::<Name>(b).map(Name::as_str), Some("barrel"));
    assert_eq!(world.lookup("Ship"), None);
    world.check_invariants();
}

/// Disabled on a prefab child: the instance's child starts disabled.
#[test]
fn disabled_nested_prefab_child_is_copied_to_instances() {
    let mut world = World::new();
    let (ship, turret, _) = ship_prefab(&mut world);
    world.entity_mut(turret).insert(Disabled);
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    let b = world.lookup_child(t, "barrel").unwrap();
    assert!(world.has::<Disabled>(t));
    assert!(!world.has::<Disabled>(b));
    assert_eq!(rows_of::<With<Hull>>(&mut world), Vec::<Entity>::new());
    assert_eq!(rows_of::<(With<Hull>, With<Disabled>)>(&mut world), vec![t]);
    assert_eq!(rows_of::<With<Tag>>(&mut world), vec![b]);
}

/// Dont-inherit components of prefab children stay on the prefab children.
#[test]
fn dont_inherit_on_a_prefab_child_stays_there() {
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    let gun = world.spawn((Name::new("gun"), Blueprint(1), ChildOf.pair(ship))).id();
    let inst = world.instantiate(ship);
    let g = world.lookup_child(inst, "gun").unwrap();
    assert!(world.has::<Blueprint>(gun));
    assert!(!world.has::<Blueprint>(g));
    assert_eq!(world.get::<Blueprint>(g), None);
}

// ======================================================================== sparse / toggle inheritance

/// API.md: the default policy is "inherit" for every component; Flecs
/// inherits sparse components too.
#[test]
fn sparse_component_on_a_prefab_is_inherited() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Stunned(3))).id();
    let inst = world.instantiate(prefab);
    assert!(world.has::<Stunned>(inst));
    assert_eq!(world.get::<Stunned>(inst), Some(&Stunned(3)));
    assert_eq!(world.query::<(Entity, &Stunned)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![inst]);
}

/// API.md: the default policy is "inherit"; Flecs (CanToggle) inherits a
/// toggleable component like any other.
#[test]
fn toggle_component_on_a_prefab_is_inherited() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Thrust(2.0))).id();
    let inst = world.instantiate(prefab);
    assert!(world.has::<Thrust>(inst));
    assert_eq!(world.get::<Thrust>(inst), Some(&Thrust(2.0)));
    assert!(world.is_enabled::<Thrust>(inst));
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
}

/// `is_enabled` of a non-toggle inherited component: the entity has it
/// (Flecs `ecs_is_enabled_id` falls back to `ecs_has_id`, which sees bases).
#[test]
fn is_enabled_of_an_inherited_component_agrees_with_has() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let inst = world.instantiate(prefab);
    assert!(world.has::<Position>(inst));
    assert!(world.is_enabled::<Position>(inst));
    assert!(!world.is_enabled::<Velocity>(inst));
}

/// Toggle + override: disabling the instance's copy leaves the prefab and the
/// other instances enabled.
#[test]
fn toggle_on_one_instance_copy_leaves_the_rest() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Firing(1))).id();
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    world.entity_mut(a).disable::<Firing>();
    assert!(!world.is_enabled::<Firing>(a));
    assert!(world.is_enabled::<Firing>(b) && world.is_enabled::<Firing>(prefab));
    assert_eq!(world.query::<(Entity, &Firing)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    let c = world.instantiate(prefab);
    assert!(world.is_enabled::<Firing>(c), "new copies take the prefab's bit, not an instance's");
    assert_eq!(world.entity(a).archetype(), world.entity(b).archetype(), "no move");
}

/// Disabling a component an instance only inherits changes nothing about the
/// prefab, and never panics.
#[test]
fn disable_of_an_inherited_non_owned_value_leaves_the_prefab_alone() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Firing(1))).id();
    let inst = world.instantiate(prefab);
    world.entity_mut(prefab).disable::<Firing>();
    assert!(world.is_enabled::<Firing>(inst), "the copy has its own bit");
    world.entity_mut(inst).disable::<Firing>();
    world.entity_mut(prefab).enable::<Firing>();
    assert!(!world.is_enabled::<Firing>(inst));
    assert!(world.is_enabled::<Firing>(prefab));
}

/// Toggle.c: two toggleable components on one entity have independent bits.
#[test]
fn two_toggle_components_have_independent_bits() {
    let mut world = World::new();
    let e = world.spawn((Thrust(1.0), Firing(2))).id();
    let f = world.spawn((Thrust(3.0), Firing(4))).id();
    world.entity_mut(e).disable::<Thrust>();
    world.entity_mut(f).disable::<Firing>();
    assert!(!world.is_enabled::<Thrust>(e) && world.is_enabled::<Firing>(e));
    assert!(world.is_enabled::<Thrust>(f) && !world.is_enabled::<Firing>(f));
    assert_eq!(world.query::<(&Thrust, &Firing)>().iter(&world).count(), 0);
    let rows: BTreeSet<(Entity, bool, bool)> = world
        .query::<(Entity, Option<&Thrust>, Option<&Firing>)>()
        .iter(&world)
        .map(|(e, t, f)| (e, t.is_some(), f.is_some()))
        .collect();
    assert_eq!(rows, [(e, false, true), (f, true, false)].into());
    let mut dsl = world.query_dsl("Thrust, !Firing").unwrap();
    assert_eq!(dsl.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![f]);
}

/// Toggle.c `query_w_*_entities`: bits across 64-bit word boundaries, two
/// components with different patterns.
#[test]
fn toggle_patterns_across_word_boundaries() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..200).map(|i| world.spawn((Thrust(i as f32), Firing(i))).id()).collect();
    for (i, &e) in ids.iter().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(e).disable::<Thrust>();
        }
        if i % 5 == 0 || (60..70).contains(&i) {
            world.entity_mut(e).disable::<Firing>();
        }
    }
    let expected: Vec<u32> = (0..200u32).filter(|i| i % 3 != 0 && i % 5 != 0 && !(60..70).contains(i)).collect();
    let mut got: Vec<u32> = world.query::<(&Thrust, &Firing)>().iter(&world).map(|(_, f)| f.0).collect();
    got.sort();
    assert_eq!(got, expected);
    let mut q = world.query_filtered::<&Firing, Without<Thrust>>();
    let expected = (0..200).filter(|i| i % 3 == 0 && i % 5 != 0 && !(60..70).contains(i)).count();
    assert_eq!(q.iter(&world).count(), expected);
}

/// Disabling before the component exists is a no-op: the value added later
/// starts enabled.
#[test]
fn disable_before_insert_is_a_no_op() {
    let mut world = World::new();
    let e = world.spawn(Tag).id();
    world.entity_mut(e).disable::<Thrust>();
    assert!(!world.is_enabled::<Thrust>(e));
    world.entity_mut(e).insert(Thrust(1.0));
    assert!(world.is_enabled::<Thrust>(e));
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
}

/// A value edited through `get_mut` while disabled is what queries see once enabled.
#[test]
fn edit_while_disabled_then_enable() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1.0)).id();
    world.entity_mut(e).disable::<Thrust>();
    world.get_mut::<Thrust>(e).unwrap().0 = 8.0;
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 0);
    world.entity_mut(e).enable::<Thrust>();
    assert_eq!(world.query::<&Thrust>().iter(&world).map(|t| t.0).collect::<Vec<_>>(), vec![8.0]);
}

/// A `Disabled` entity with a disabled toggle: hidden unless `Disabled` is
/// named, and then its toggle still counts as absent.
#[test]
fn disabled_entity_and_disabled_toggle_combine() {
    let mut world = World::new();
    let e = world.spawn((Thrust(1.0), Tag, Disabled)).id();
    world.entity_mut(e).disable::<Thrust>();
    assert_eq!(world.query_filtered::<&Thrust, With<Disabled>>().iter(&world).count(), 0);
    let rows: Vec<(Entity, bool)> = world
        .query_filtered::<(Entity, Option<&Thrust>), With<Disabled>>()
        .iter(&world)
        .map(|(e, t)| (e, t.is_some()))
        .collect();
    assert_eq!(rows, vec![(e, false)]);
    assert_eq!(rows_of::<With<Tag>>(&mut world), Vec::<Entity>::new());
    world.entity_mut(e).remove::<Disabled>();
    assert_eq!(rows_of::<(With<Tag>, Without<Thrust>)>(&mut world), vec![e]);
}

/// A disabled override on a nested prefab child is copied disabled to the
/// instance's child.
#[test]
fn disabled_toggle_on_a_prefab_child_is_copied_disabled() {
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    let gun = world.spawn((Name::new("gun"), Firing(3), ChildOf.pair(ship))).id();
    world.entity_mut(gun).disable::<Firing>();
    let inst = world.instantiate(ship);
    let g = world.lookup_child(inst, "gun").unwrap();
    assert!(world.owns::<Firing>(g));
    assert!(!world.is_enabled::<Firing>(g));
    assert_eq!(world.get::<Firing>(g), Some(&Firing(3)));
    assert_eq!(world.query::<&Firing>().iter(&world).count(), 0);
}

/// Toggling through commands in a system, seen by the next query.
#[test]
fn toggle_through_commands_in_a_system() {
    let mut world = World::new();
    let a = world.spawn(Thrust(1.0)).id();
    let b = world.spawn(Thrust(2.0)).id();
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(a).disable::<Thrust>();
    });
    assert!(!world.is_enabled::<Thrust>(a));
    assert_eq!(world.query::<(Entity, &Thrust)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
}

// ======================================================================== unions

/// A `QueryState` filtered by a union target follows retargeting.
#[test]
fn union_target_change_under_a_query_filtered_by_target() {
    let mut world = World::new();
    let walking = world.spawn(Name::new("Walking")).id();
    let running = world.spawn(Name::new("Running")).id();
    let a = world.spawn(Position(1.0)).add_pair::<Movement>(walking).id();
    let b = world.spawn(Position(2.0)).add_pair::<Movement>(walking).id();
    let mut walkers = world.query::<Entity>().with_pair::<Movement>(walking);
    let mut runners = world.query_dsl("Position, (Movement, Running)").unwrap();
    assert_eq!(sorted(walkers.iter(&world)), sorted([a, b]));
    assert_eq!(runners.iter(&world).count(), 0);
    world.entity_mut(a).add_pair::<Movement>(running);
    assert_eq!(walkers.iter(&world).collect::<Vec<_>>(), vec![b]);
    assert_eq!(runners.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![a]);
    world.entity_mut(b).add_pair::<Movement>(running);
    assert_eq!(walkers.iter(&world).count(), 0);
    assert_eq!(sorted(runners.iter(&world).map(|r| r.entity())), sorted([a, b]));
}

/// `Pair<R>` on a union yields each row's current target.
#[test]
fn union_pair_term_yields_the_current_target() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Tag).add_pair::<Movement>(walking).id();
    let mut q = world.query::<(Entity, Pair<Movement>)>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(a, walking)]);
    world.entity_mut(a).add_pair::<Movement>(running);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(a, running)]);
    assert!(!world.has_pair::<Movement>(a, walking));
    assert_eq!(world.targets::<Movement>(a).collect::<Vec<_>>(), vec![running]);
}

/// Union target in a DSL variable joined with a component of the target
/// (the same query over a fragmenting relationship works).
#[test]
fn union_target_variable_joins_a_component_of_the_target() {
    let mut world = World::new();
    let walking = world.spawn(Velocity(1.0)).id();
    let running = world.spawn(Velocity(5.0)).id();
    let idle = world.spawn_empty().id();
    let a = world.spawn(Position(0.0)).add_pair::<Movement>(walking).id();
    let b = world.spawn(Position(0.0)).add_pair::<Movement>(running).id();
    world.spawn(Position(0.0)).add_pair::<Movement>(idle);
    let c = world.spawn(Position(0.0)).add_pair::<Likes>(running).id();
    let mut control = world.query_dsl("Position, (Likes, $m), Velocity($m)").unwrap();
    let rows: Vec<(Entity, Option<Entity>)> = control.iter(&world).map(|r| (r.entity(), r.var("m"))).collect();
    assert_eq!(rows, vec![(c, Some(running))]);
    let mut q = world.query_dsl("Position, (Movement, $m), Velocity($m)").unwrap();
    let rows: BTreeSet<(Entity, Entity, u32)> = q
        .iter(&world)
        .map(|r| {
            let m = r.var("m").unwrap();
            (r.entity(), m, world.get::<Velocity>(m).unwrap().0 as u32)
        })
        .collect();
    assert_eq!(rows, [(a, walking, 1), (b, running, 5)].into());
}

/// Two union relationships on one entity are independent, and every target
/// combination shares one archetype.
#[test]
fn two_union_relationships_share_one_archetype_for_all_targets() {
    let mut world = World::new();
    let targets: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    let mut entities = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            let e = world.spawn(Tag).add_pair::<Movement>(targets[i]).add_pair::<Direction>(targets[j]).id();
            entities.push((e, targets[i], targets[j]));
        }
    }
    let archetype = world.entity(entities[0].0).archetype();
    for &(e, m, d) in &entities {
        assert_eq!(world.entity(e).archetype(), archetype);
        assert_eq!(world.target::<Movement>(e), Some(m));
        assert_eq!(world.target::<Direction>(e), Some(d));
    }
    let mut q = world.query::<(Entity, Pair<Movement>, Pair<Direction>)>();
    let rows: BTreeSet<(Entity, Entity, Entity)> = q.iter(&world).collect();
    assert_eq!(rows, entities.iter().copied().collect());
    let (e, _, _) = entities[5];
    world.entity_mut(e).remove_pair::<Movement>(Entity::WILDCARD);
    assert_eq!(world.target::<Movement>(e), None);
    assert_eq!(world.target::<Direction>(e), Some(targets[1]));
    world.check_invariants();
}

/// `sources` lists the holders of each target, and follows retargeting.
#[test]
fn union_sources_follow_retargeting() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Tag).add_pair::<Movement>(walking).id();
    let b = world.spawn(Other).add_pair::<Movement>(walking).id();
    assert_eq!(sorted(world.sources::<Movement>(walking)), sorted([a, b]));
    world.entity_mut(b).add_pair::<Movement>(running);
    assert_eq!(sorted(world.sources::<Movement>(walking)), vec![a]);
    assert_eq!(sorted(world.sources::<Movement>(running)), vec![b]);
    world.despawn(a);
    assert_eq!(world.sources::<Movement>(walking).count(), 0);
}

/// `on_delete = "delete"` on a union relationship: despawning the relationship
/// despawns every holder, whatever its target.
#[test]
fn union_on_delete_delete_despawns_every_holder() {
    let mut world = World::new();
    let (box_a, box_b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let x = world.spawn(Tag).add_pair::<Carries>(box_a).id();
    let y = world.spawn(Position(1.0)).add_pair::<Carries>(box_b).id();
    let bystander = world.spawn(Tag).id();
    let carries = world.component_id::<Carries>().unwrap();
    world.despawn(carries);
    assert!(!world.is_alive(x) && !world.is_alive(y));
    assert!(world.is_alive(box_a) && world.is_alive(box_b) && world.is_alive(bystander));
    world.check_invariants();
}

/// Union targets that die with their parent (ChildOf cleanup) lose their
/// holders' pairs; the holders stay.
#[test]
fn union_targets_despawned_through_a_hierarchy_remove_pairs() {
    let mut world = World::new();
    let states = world.spawn(Name::new("states")).id();
    let walking = world.spawn((Name::new("walking"), ChildOf.pair(states))).id();
    let flying = world.spawn_empty().id();
    let a = world.spawn(Tag).add_pair::<Movement>(walking).id();
    let b = world.spawn(Tag).add_pair::<Movement>(flying).id();
    let mut q = world.query::<(Entity, Pair<Movement>)>();
    world.despawn(states);
    assert!(!world.is_alive(walking));
    assert!(world.is_alive(a));
    assert_eq!(world.target::<Movement>(a), None);
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![(b, flying)]);
    world.check_invariants();
}

/// Retargeting through commands in a system is seen after the run.
#[test]
fn union_retarget_through_commands() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ids: Vec<Entity> = (0..4).map(|_| world.spawn(Tag).add_pair::<Movement>(walking).id()).collect();
    world.run_system_once(move |q: Query<Entity, With<Tag>>, mut commands: Commands| {
        for e in q.iter() {
            commands.entity(e).add_pair::<Movement>(running);
        }
    });
    for &e in &ids {
        assert_eq!(world.target::<Movement>(e), Some(running));
    }
    assert_eq!(world.sources::<Movement>(walking).count(), 0);
}

/// An instance's own union pair coexists with inherited values and queries
/// filtered by target over instances.
#[test]
fn union_pairs_on_instances_filter_queries_over_inherited_values() {
    let mut world = World::new();
    let (walking, running) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn((Prefab, Velocity(2.0))).id();
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    world.entity_mut(a).add_pair::<Movement>(walking);
    world.entity_mut(b).add_pair::<Movement>(running);
    let mut q = world.query::<(Entity, &Velocity)>().with_pair::<Movement>(running);
    assert_eq!(q.iter(&world).map(|(e, v)| (e, v.0)).collect::<Vec<_>>(), vec![(b, 2.0)]);
    world.entity_mut(a).add_pair::<Movement>(running);
    assert_eq!(sorted(q.iter(&world).map(|(e, _)| e)), sorted([a, b]));
    world.get_mut::<Velocity>(prefab).unwrap().0 = 3.0;
    assert!(q.iter(&world).all(|(_, v)| v.0 == 3.0));
}

// ======================================================================== names and paths

/// Names.c: unicode names and paths.
#[test]
fn unicode_names_lookup_and_path() {
    let mut world = World::new();
    let ship = world.spawn(Name::new("Raumschiff")).id();
    let gun = world.spawn((Name::new("Geschütz"), ChildOf.pair(ship))).id();
    let core = world.spawn((Name::new("飞船核心"), ChildOf.pair(gun))).id();
    let star = world.spawn(Name::new("🚀 rocket")).id();
    assert_eq!(world.lookup("Raumschiff::Geschütz"), Some(gun));
    assert_eq!(world.lookup("Raumschiff::Geschütz::飞船核心"), Some(core));
    assert_eq!(world.path(core).as_deref(), Some("Raumschiff::Geschütz::飞船核心"));
    assert_eq!(world.lookup("🚀 rocket"), Some(star));
    assert_eq!(world.lookup("Raumschiff::Geschutz"), None);
    assert_eq!(world.lookup_child(gun, "飞船核心"), Some(core));
}

/// Names with spaces, dots and single colons are plain names.
#[test]
fn names_with_spaces_dots_and_single_colons() {
    let mut world = World::new();
    let a = world.spawn(Name::new("my ship.v2")).id();
    let b = world.spawn((Name::new("a:b"), ChildOf.pair(a))).id();
    assert_eq!(world.lookup("my ship.v2"), Some(a));
    assert_eq!(world.lookup("my ship.v2::a:b"), Some(b));
    assert_eq!(world.path(b).as_deref(), Some("my ship.v2::a:b"));
}

/// Hierarchies.c: names are unique among siblings across reparenting; once
/// the clash is gone, the move is allowed.
#[test]
fn names_unique_among_siblings_across_reparenting() {
    let mut world = World::new();
    let p1 = world.spawn(Name::new("p1")).id();
    let p2 = world.spawn(Name::new("p2")).id();
    let x1 = world.spawn((Name::new("x"), ChildOf.pair(p1))).id();
    let x2 = world.spawn((Name::new("x"), ChildOf.pair(p2))).id();
    let error = world.try_add_pair::<ChildOf>(x1, p2).unwrap_err();
    let text = error.to_string();
    assert!(text.contains(&format!("{x1:?}")) && text.contains(&format!("{x2:?}")), "{text}");
    assert_eq!(world.parent(x1), Some(p1));
    assert_eq!(world.lookup("p2::x"), Some(x2));
    world.set_name(x2, "y").unwrap();
    world.entity_mut(x1).add_pair::<ChildOf>(p2);
    assert_eq!(world.lookup("p2::x"), Some(x1));
    assert_eq!(world.lookup("p2::y"), Some(x2));
    assert_eq!(world.lookup("p1::x"), None);
    assert_eq!(world.children(p1).count(), 0);
}

/// A child moved away frees its name for a new sibling.
#[test]
fn moving_a_child_away_frees_its_name() {
    let mut world = World::new();
    let p1 = world.spawn(Name::new("p1")).id();
    let p2 = world.spawn(Name::new("p2")).id();
    let x = world.spawn((Name::new("x"), ChildOf.pair(p1))).id();
    let z = world.spawn(ChildOf.pair(p1)).id();
    assert!(matches!(world.set_name(z, "x"), Err(NameError::Taken { sibling, .. }) if sibling == x));
    world.entity_mut(x).add_pair::<ChildOf>(p2);
    let y = world.spawn(ChildOf.pair(p1)).id();
    world.set_name(y, "x").unwrap();
    assert_eq!(world.lookup("p1::x"), Some(y));
    assert_eq!(world.lookup("p2::x"), Some(x));
}

/// Renaming an entity to its own name is not a clash.
#[test]
fn renaming_to_the_same_name_is_allowed() {
    let mut world = World::new();
    let p = world.spawn(Name::new("p")).id();
    let c = world.spawn((Name::new("c"), ChildOf.pair(p))).id();
    world.set_name(c, "c").unwrap();
    world.set_name(p, "p").unwrap();
    world.entity_mut(c).insert(Name::new("c"));
    assert_eq!(world.lookup("p::c"), Some(c));
}

/// Renaming an ancestor changes every descendant's path.
#[test]
fn renaming_an_ancestor_changes_descendant_paths() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    let b = world.spawn((Name::new("b"), ChildOf.pair(a))).id();
    let c = world.spawn((Name::new("c"), ChildOf.pair(b))).id();
    world.set_name(b, "bb").unwrap();
    assert_eq!(world.path(c).as_deref(), Some("a::bb::c"));
    assert_eq!(world.lookup("a::b::c"), None);
    assert_eq!(world.lookup("a::bb::c"), Some(c));
    world.entity_mut(b).remove::<Name>();
    assert_eq!(world.path(c), None);
    assert_eq!(world.lookup_child(b, "c"), Some(c));
}

/// A single name without `::` finds a root first, else a child anywhere.
#[test]
fn single_name_lookup_prefers_a_root() {
    let mut world = World::new();
    let p = world.spawn(Name::new("parent")).id();
    let child = world.spawn((Name::new("x"), ChildOf.pair(p))).id();
    assert_eq!(world.lookup("x"), Some(child));
    let root = world.spawn(Name::new("x")).id();
    assert_eq!(world.lookup("x"), Some(root));
    world.despawn(root);
    assert_eq!(world.lookup("x"), Some(child));
}

/// A component's name wins over an entity with the same name; the entity is
/// still reachable through its parent.
#[test]
fn component_names_win_over_entity_names() {
    let mut world = World::new();
    let id = world.register_component::<Position>();
    let root = world.spawn(Name::new("root")).id();
    let e = world.spawn((Name::new("Position"), ChildOf.pair(root))).id();
    assert_eq!(world.lookup("Position"), Some(id));
    assert_eq!(world.lookup("root::Position"), Some(e));
}

/// Prefab names are looked up like any other, instances never inherit them,
/// and an instance may take the prefab's name only elsewhere in the tree.
#[test]
fn prefab_names_and_instance_names() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Name::new("Fighter"))).id();
    let inst = world.instantiate(prefab);
    assert!(world.set_name(inst, "Fighter").is_err(), "two roots with one name");
    let fleet = world.spawn(Name::new("fleet")).id();
    world.entity_mut(inst).add_pair::<ChildOf>(fleet);
    world.set_name(inst, "Fighter").unwrap();
    assert_eq!(world.lookup("Fighter"), Some(prefab));
    assert_eq!(world.lookup("fleet::Fighter"), Some(inst));
}

/// Spawning a second named child into an instance that already has one with
/// that name (from the prefab) is refused.
#[test]
fn a_user_child_clashing_with_an_instantiated_child_is_refused() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    let inst = world.instantiate(ship);
    let t = world.lookup_child(inst, "turret").unwrap();
    let msg = panic_message(|| world.spawn((Name::new("turret"), ChildOf.pair(inst))).id());
    assert!(msg.contains(&format!("{t:?}")), "{msg}");
    assert_eq!(world.children(inst).collect::<Vec<_>>(), vec![t]);
}

/// The path DSL: a named prefab child is reachable as a fixed source.
#[test]
fn dsl_fixed_source_by_prefab_child_path() {
    let mut world = World::new();
    let (_, turret, _) = ship_prefab(&mut world);
    let e = world.spawn(Velocity(1.0)).id();
    let mut q = world.query_dsl("Velocity, Position(Ship::turret)").unwrap();
    let rows: Vec<(Entity, Entity, f32)> =
        q.iter(&world).map(|r| (r.entity(), r.source(1), r.get::<Position>(1).unwrap().0)).collect();
    assert_eq!(rows, vec![(e, turret, 1.0)]);
}

// ======================================================================== entity ranges

/// Instantiating inside a range: the instance and every instantiated child
/// get ids from the range, even when the prefab lives in another.
#[test]
fn instantiate_in_a_range_takes_every_new_id_from_it() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    world.set_entity_range(5_000..6_000);
    let inst = world.instantiate(ship);
    let all: Vec<Entity> = std::iter::once(inst).chain(world.descendants(inst)).collect();
    assert_eq!(all.len(), 3);
    assert!(all.iter().all(|e| (5_000..6_000).contains(&e.index())), "{all:?}");
    assert!(ship.index() < 5_000);
    assert_eq!(world.get::<Position>(inst), Some(&Position(0.0)));
}

/// Running out of ids while instantiating a prefab with children panics
/// naming the range.
#[test]
fn range_exhaustion_during_instantiate_panics_naming_the_range() {
    let mut world = World::new();
    let (ship, _, _) = ship_prefab(&mut world);
    world.set_entity_range(7_000..7_002);
    let msg = panic_message(|| world.instantiate(ship));
    assert!(msg.contains("7000..7002"), "{msg}");
}

/// Spawning past the end of a one-slot range names it; switching to a new
/// range spawns again.
#[test]
fn range_exhaustion_message_and_recovery() {
    let mut world = World::new();
    world.set_entity_range(300..301);
    let e = world.spawn(Tag).id();
    assert_eq!(e.index(), 300);
    let msg = panic_message(|| world.spawn(Tag).id());
    assert!(msg.contains("300..301"), "{msg}");
    world.set_entity_range(400..500);
    let f = world.spawn(Tag).id();
    assert_eq!(f.index(), 400);
    assert!(world.is_alive(e));
    assert_eq!(rows_of::<With<Tag>>(&mut world), sorted([e, f]));
}

/// A remote handle past the end of the range panics naming it; `try_reserve`
/// says `None`.
#[test]
fn remote_reserve_past_the_range_end() {
    let mut world = World::new();
    world.set_entity_range(900..901);
    let remote = world.remote_entities();
    let e = remote.reserve();
    assert_eq!(e.index(), 900);
    assert_eq!(remote.try_reserve(), None);
    let msg = panic_message(|| remote.reserve());
    assert!(msg.contains("900..901"), "{msg}");
    world.flush();
    assert!(world.is_alive(e));
}

/// `spawn_at` then `(IsA, p)`: an instance at exactly the id asked for.
#[test]
fn spawn_at_then_instantiate_in_place() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(2.0), Hull(3))).id();
    let id = Entity::from_raw(12_345, 2);
    let inst = world.spawn_at(id).unwrap().add_pair::<IsA>(prefab).id();
    assert_eq!(inst, id);
    assert_eq!(world.get::<Position>(id), Some(&Position(2.0)));
    assert_eq!(world.get::<Hull>(id), Some(&Hull(3)));
    assert!(world.spawn_at(Entity::from_raw(12_345, 7)).is_err(), "the index is alive");
}

/// Remote reservations become instances once flushed.
#[test]
fn remote_reserved_ids_can_become_instances() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    world.spawn((Name::new("gun"), ChildOf.pair(prefab)));
    let remote = world.remote_entities();
    let ids = std::thread::spawn(move || remote.reserve_many(3)).join().unwrap();
    world.flush();
    for &e in &ids {
        world.entity_mut(e).add_pair::<IsA>(prefab);
    }
    for &e in &ids {
        assert_eq!(world.get::<Position>(e), Some(&Position(1.0)));
        assert!(world.lookup_child(e, "gun").is_some());
    }
    assert_eq!(world.query::<&Position>().iter(&world).count(), 3);
}
