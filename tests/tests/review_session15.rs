//! Review of this session's changes: `dont_inherit` ids are never found on a
//! base through `up IsA` (typed `Up<IsA, _>`, the DSL's `up IsA` and
//! `self|up IsA`, the builder's traversal), while other relationships' `up`
//! walks and inheritable components are unchanged; and the refusal of an
//! instance of its own `ChildOf` ancestor is `PairError::AncestorInstance`,
//! whose message names the ancestor.

use ecs::prelude::*;
use ecs::world::PairError;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Local(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Copied(u32);

/// A prefab with `Local`, `Pos`, `Copied`, a parent and a name; one instance.
fn prefab_and_instance(world: &mut World) -> (Entity, Entity, Entity) {
    let parent = world.spawn_empty().id();
    let base = world.spawn((Prefab, Local(7), Pos(1.0), Copied(3), Name::new("base"))).id();
    world.entity_mut(base).add_pair::<ChildOf>(parent);
    let instance = world.instantiate(base);
    (parent, base, instance)
}

#[test]
fn typed_up_isa_never_reads_a_dont_inherit_value_of_the_base() {
    let mut world = World::new();
    let (_, _, instance) = prefab_and_instance(&mut world);
    assert_eq!(world.get::<Local>(instance), None);
    let rows: Vec<Entity> = world.query::<(Entity, Up<IsA, &Local>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(rows.is_empty(), "{rows:?}");
    // An inheritable one is still read through the base.
    let rows: Vec<(Entity, Pos)> =
        world.query::<(Entity, Up<IsA, &Pos>)>().iter(&world).map(|(e, p)| (e, *p)).collect();
    assert_eq!(rows, vec![(instance, Pos(1.0))]);
}

#[test]
fn dsl_up_isa_skips_dont_inherit_components_and_pairs_of_the_base() {
    let mut world = World::new();
    let (parent, _, instance) = prefab_and_instance(&mut world);
    world.register_component::<Local>();
    world.register_component::<Pos>();
    let local: Vec<Entity> = world.query_dsl("Local(up IsA)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert!(local.is_empty(), "{local:?}");
    let local: Vec<Entity> = world.query_dsl("Local(self|up IsA)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert!(local.is_empty(), "the base is a prefab, the instance owns none: {local:?}");
    let pos: Vec<Entity> = world.query_dsl("Pos(up IsA)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert_eq!(pos, vec![instance]);
    // The base's parent is not the instance's, through IsA or otherwise.
    let (child_of, is_a) = (world.register_component::<ChildOf>(), world.register_component::<IsA>());
    let mut q = world.query_builder().pair(child_of, Entity::WILDCARD).self_up(is_a).build().unwrap();
    let rows: Vec<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    assert!(!rows.contains(&instance), "{rows:?}");
    assert!(!world.has_pair::<ChildOf>(instance, parent));
    let dsl: Vec<Entity> =
        world.query_dsl("ChildOf(self|up IsA, *)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert_eq!(dsl, rows);
    // Names are never inherited.
    let named: Vec<Entity> = world.query_dsl("Name(up IsA)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert!(named.is_empty(), "{named:?}");
}

#[test]
fn builder_up_isa_with_a_fixed_source_finds_only_inheritable_ids() {
    let mut world = World::new();
    let (_, base, instance) = prefab_and_instance(&mut world);
    let (local, pos, is_a) =
        (world.register_component::<Local>(), world.register_component::<Pos>(), world.register_component::<IsA>());
    let found = |world: &mut World, id: Entity| -> Option<Entity> {
        let mut q = world.query_builder().read(id).source(instance).self_up(is_a).build().unwrap();
        q.iter(world).next().map(|row| row.source(0))
    };
    assert_eq!(found(&mut world, pos), Some(base));
    assert_eq!(found(&mut world, local), None);
    // An override component is the instance's own copy.
    let copied = world.register_component::<Copied>();
    assert_eq!(found(&mut world, copied), Some(instance));
}

#[test]
fn a_dont_inherit_value_the_instance_owns_is_still_matched_by_self_up() {
    let mut world = World::new();
    let (_, _, instance) = prefab_and_instance(&mut world);
    world.entity_mut(instance).insert(Local(9));
    world.register_component::<Local>();
    let mut q = world.query_dsl("Local(self|up IsA)").unwrap();
    let rows: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.entity(), r.source(0))).collect();
    assert_eq!(rows, vec![(instance, instance)]);
    assert_eq!(world.get::<Local>(instance), Some(&Local(9)));
}

#[test]
fn up_along_other_relationships_still_reads_dont_inherit_components() {
    let mut world = World::new();
    let parent = world.spawn(Local(5)).id();
    let child = world.spawn_empty().add_pair::<ChildOf>(parent).id();
    let rows: Vec<(Entity, Local)> =
        world.query::<(Entity, Up<ChildOf, &Local>)>().iter(&world).map(|(e, l)| (e, *l)).collect();
    assert_eq!(rows, vec![(child, Local(5))]);
    world.register_component::<Local>();
    let rows: Vec<Entity> = world.query_dsl("Local(up ChildOf)").unwrap().iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, vec![child]);
}

#[test]
fn a_dont_inherit_value_two_bases_up_is_not_found_either() {
    let mut world = World::new();
    let grand = world.spawn((Prefab, Local(1), Pos(2.0))).id();
    let middle = world.spawn(Prefab).add_pair::<IsA>(grand).id();
    let instance = world.instantiate(middle);
    let rows: Vec<Entity> = world.query::<(Entity, Up<IsA, &Local>)>().iter(&world).map(|(e, _)| e).collect();
    assert!(rows.is_empty(), "{rows:?}");
    let rows: Vec<(Entity, Pos)> =
        world.query::<(Entity, Up<IsA, &Pos>)>().iter(&world).map(|(e, p)| (e, *p)).collect();
    assert_eq!(rows, vec![(instance, Pos(2.0))]);
}

#[test]
fn an_instance_of_its_own_ancestor_is_refused_naming_the_ancestor() {
    let mut world = World::new();
    let root = world.spawn(Prefab).id();
    let middle = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let leaf = world.spawn_empty().add_pair::<ChildOf>(middle).id();
    let error = world.try_add_pair::<IsA>(leaf, root).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance { relationship: "IsA".to_owned(), source: leaf, target: root, base: root }
    );
    let message = error.to_string();
    assert!(message.contains("ChildOf ancestors") && !message.contains("already reaches"), "{message}");
    assert!(!world.has_pair::<IsA>(leaf, root));
    // The other order: an instance given a parent whose line holds its base.
    let base = world.spawn(Prefab).id();
    let under = world.spawn_empty().add_pair::<ChildOf>(base).id();
    let instance = world.spawn_empty().add_pair::<IsA>(base).id();
    let error = world.try_add_pair::<ChildOf>(instance, under).unwrap_err();
    assert_eq!(
        error,
        PairError::AncestorInstance { relationship: "ChildOf".to_owned(), source: instance, target: under, base }
    );
    assert!(!world.has_pair::<ChildOf>(instance, under));
}

#[test]
fn a_bundle_making_an_instance_of_its_parent_panics_naming_the_ancestor() {
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn((IsA.pair(base), ChildOf.pair(base)));
    }));
    let payload = result.expect_err("refused");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("ChildOf ancestors"), "{message}");
    // A real cycle keeps its own error.
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().add_pair::<ChildOf>(a).id();
    assert!(matches!(world.try_add_pair::<ChildOf>(a, b), Err(PairError::Cycle { .. })));
}
