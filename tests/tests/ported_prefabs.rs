//! Ported acceptance tests: prefabs, toggles, unions, names, entity ranges (ported from
//! Flecs Prefab.c / Union / Toggle tests and bevy hierarchy/despawn tests).

use std::collections::BTreeSet;

use ecs::prelude::*;
use ecs::world::NameError;
use ecs_tests::panic_message;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct MaxSpeed(f32);
#[derive(Component, Debug, PartialEq, Clone)]
#[component(on_instantiate = "override")]
struct Hull(u32);
#[derive(Component, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Blueprint(u32);
#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Position(f32);
#[derive(Component, Debug)]
struct Tag;
#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(f32);
#[derive(Component, Debug, PartialEq, Clone)]
#[component(toggle, on_instantiate = "override")]
struct Firing(u32);
#[derive(Relationship)]
#[relationship(union)]
struct Movement;
#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32);

fn sorted(v: impl IntoIterator<Item = Entity>) -> Vec<Entity> {
    let mut v: Vec<Entity> = v.into_iter().collect();
    v.sort();
    v
}

// ---------------------------------------------------------------- instantiate / inherit

#[test]
fn instantiate_is_add_pair_is_a() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, MaxSpeed(1.0), Hull(2))).id();
    let a = world.instantiate(prefab);
    let b = world.spawn_empty().add_pair::<IsA>(prefab).id();
    for e in [a, b] {
        assert!(world.has_pair::<IsA>(e, prefab));
        assert_eq!(world.get::<MaxSpeed>(e), Some(&MaxSpeed(1.0)));
        assert_eq!(world.get::<Hull>(e), Some(&Hull(2)));
        assert!(world.owns::<Hull>(e) && !world.owns::<MaxSpeed>(e));
        assert!(!world.has::<Prefab>(e));
    }
    assert_eq!(world.entity(a).archetype(), world.entity(b).archetype());
    assert_eq!(world.target::<IsA>(a), Some(prefab));
}

#[test]
fn inherited_value_is_shared_and_tracks_prefab_edits() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let insts: Vec<Entity> = (0..5).map(|_| world.instantiate(prefab)).collect();
    world.get_mut::<MaxSpeed>(prefab).unwrap().0 = 9.0;
    for &i in &insts {
        assert_eq!(world.get::<MaxSpeed>(i), Some(&MaxSpeed(9.0)));
        assert!(std::ptr::eq(world.get::<MaxSpeed>(i).unwrap(), world.get::<MaxSpeed>(prefab).unwrap()));
    }
    // insert on the prefab replaces the shared value too
    world.entity_mut(prefab).insert(MaxSpeed(3.0));
    assert!(insts.iter().all(|&i| world.get::<MaxSpeed>(i) == Some(&MaxSpeed(3.0))));
}

#[test]
fn component_added_to_prefab_later_is_inherited() {
    // Flecs: adding a component to a base is visible on instances
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Tag)).id();
    let inst = world.instantiate(prefab);
    assert!(world.get::<MaxSpeed>(inst).is_none());
    let mut q = world.query::<(Entity, &MaxSpeed)>();
    assert_eq!(q.iter(&world).count(), 0);
    world.entity_mut(prefab).insert(MaxSpeed(4.0));
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(4.0)));
    assert_eq!(q.iter(&world).map(|(e, s)| (e, s.0)).collect::<Vec<_>>(), vec![(inst, 4.0)]);
    world.entity_mut(prefab).remove::<MaxSpeed>();
    assert!(world.get::<MaxSpeed>(inst).is_none());
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn remove_of_non_owned_inherited_is_noop() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let inst = world.instantiate(prefab);
    assert_eq!(world.remove::<MaxSpeed>(inst), None, "nothing owned to remove");
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(1.0)));
    assert_eq!(world.get::<MaxSpeed>(prefab), Some(&MaxSpeed(1.0)));
}

#[test]
fn insert_overrides_remove_uncovers() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let inst = world.instantiate(prefab);
    world.insert(inst, MaxSpeed(2.0));
    assert!(world.owns::<MaxSpeed>(inst));
    world.get_mut::<MaxSpeed>(inst).unwrap().0 = 5.0;
    assert_eq!(world.get::<MaxSpeed>(prefab), Some(&MaxSpeed(1.0)));
    assert_eq!(world.remove::<MaxSpeed>(inst), Some(MaxSpeed(5.0)));
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(1.0)));
    assert!(world.get_mut::<MaxSpeed>(inst).is_none());
}

#[test]
fn override_copy_is_independent_per_instance() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hull(10))).id();
    let a = world.instantiate(prefab);
    let b = world.instantiate(prefab);
    world.get_mut::<Hull>(a).unwrap().0 = 1;
    assert_eq!(world.get::<Hull>(b), Some(&Hull(10)));
    assert_eq!(world.get::<Hull>(prefab), Some(&Hull(10)));
    world.get_mut::<Hull>(prefab).unwrap().0 = 99;
    assert_eq!(world.get::<Hull>(b), Some(&Hull(10)));
    let c = world.instantiate(prefab);
    assert_eq!(world.get::<Hull>(c), Some(&Hull(99)), "copied at instantiate time");
}

#[test]
fn override_removed_from_instance_is_gone() {
    // Flecs 4: flecs_get_base_component only follows IsA for (OnInstantiate, Inherit)
    // components, so removing an override copy leaves nothing
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hull(10))).id();
    let inst = world.instantiate(prefab);
    world.get_mut::<Hull>(inst).unwrap().0 = 3;
    assert_eq!(world.remove::<Hull>(inst), Some(Hull(3)));
    assert_eq!(world.get::<Hull>(inst), None);
}

#[test]
fn override_value_given_in_same_spawn_wins() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hull(10), MaxSpeed(1.0))).id();
    let b = world.spawn((IsA.pair(prefab), Hull(5), MaxSpeed(7.0))).id();
    assert_eq!(world.get::<Hull>(b), Some(&Hull(5)));
    assert_eq!(world.get::<MaxSpeed>(b), Some(&MaxSpeed(7.0)));
    assert!(world.owns::<MaxSpeed>(b));
    // order in the bundle does not matter
    let c = world.spawn((Hull(6), IsA.pair(prefab))).id();
    assert_eq!(world.get::<Hull>(c), Some(&Hull(6)));
}

#[test]
fn dont_inherit_is_invisible_everywhere() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Blueprint(1), Tag)).id();
    let inst = world.instantiate(prefab);
    assert!(!world.has::<Blueprint>(inst));
    assert!(world.get::<Blueprint>(inst).is_none());
    assert_eq!(world.query_filtered::<Entity, With<Blueprint>>().iter(&world).count(), 0);
    assert_eq!(
        world.query_filtered::<Entity, (With<Tag>, Without<Blueprint>)>().iter(&world).collect::<Vec<_>>(),
        vec![inst]
    );
    assert!(world.query::<Has<Blueprint>>().iter(&world).all(|h| !h));
    let bp = world.component_id::<Blueprint>().unwrap();
    let mut q = world.query_builder().with(bp).build().unwrap();
    assert_eq!(q.count(&world), 0);
}

#[test]
fn typed_queries_on_inherited_values() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let inst = world.spawn((IsA.pair(prefab), Position(0.0))).id();
    let own = world.spawn((MaxSpeed(2.0), Position(0.0))).id();
    let rows: BTreeSet<_> = world.query::<(Entity, &MaxSpeed)>().iter(&world).map(|(e, s)| (e, s.0 as i32)).collect();
    assert_eq!(rows, [(inst, 1), (own, 2)].into());
    let rows: Vec<_> = world
        .query::<(Entity, Option<&MaxSpeed>)>()
        .iter(&world)
        .filter(|(e, _)| *e == inst)
        .map(|(_, s)| s.copied())
        .collect();
    assert_eq!(rows, vec![Some(MaxSpeed(1.0))]);
    let rows: Vec<Entity> = world.query::<(Entity, &mut MaxSpeed)>().iter_mut(&mut world).map(|(e, _)| e).collect();
    assert_eq!(rows, vec![own]);
    let rows: Vec<Entity> =
        world.query_filtered::<Entity, (With<Position>, Without<MaxSpeed>)>().iter(&world).collect();
    assert!(rows.is_empty());
    // &mut of another component alongside an inherited read
    for (mut p, s) in world.query::<(&mut Position, &MaxSpeed)>().iter_mut(&mut world) {
        p.0 += s.0;
    }
    assert_eq!(world.get::<Position>(inst), Some(&Position(1.0)));
    assert_eq!(world.get::<Position>(own), Some(&Position(2.0)));
    assert_eq!(world.query::<&MaxSpeed>().get(&world, inst).ok(), Some(&MaxSpeed(1.0)));
    assert!(world.query::<&mut MaxSpeed>().get_mut(&mut world, inst).is_err());
}

/// A value pair of an `inherit` relationship stays on the prefab: the
/// instance reads it through `IsA` (as an `inherit` component) and owns only
/// `(IsA, prefab)`.
#[test]
fn pairs_of_a_prefab_stay_on_the_prefab() {
    let mut world = World::new();
    let apples = world.spawn_empty().id();
    let prefab = world.spawn((Prefab, Eats(3).pair(apples))).id();
    let inst = world.instantiate(prefab);
    assert!(!world.owns_pair::<Eats>(inst, apples));
    assert!(world.has_pair::<Eats>(inst, apples));
    assert_eq!(world.get_pair::<Eats>(inst, apples), Some(&Eats(3)));
    assert!(world.has_pair::<Eats>(prefab, apples));
}

/// Only prefabs pass values on (see `IsA`'s docs): a plain base gives the
/// pair and `override` copies, no shared values.
#[test]
fn a_plain_entity_as_a_base_gives_the_pair_and_copies_only() {
    let mut world = World::new();
    let base = world.spawn((MaxSpeed(1.0), Hull(4))).id(); // not a prefab
    let a = world.instantiate(base);
    assert!(world.has_pair::<IsA>(a, base));
    assert_eq!(world.get::<MaxSpeed>(a), None);
    assert_eq!(world.get::<Hull>(a), Some(&Hull(4)));
    assert!(world.owns::<Hull>(a));
    let rows = sorted(world.query::<(Entity, &MaxSpeed)>().iter(&world).map(|(e, _)| e));
    assert_eq!(rows, sorted([base]));
    // Through the pair, `up IsA` still reads the base (a read of another entity).
    let mut q = world.query_dsl("MaxSpeed(up IsA)").unwrap();
    assert_eq!(q.iter(&world).map(|row| (row.entity(), row.source(0))).collect::<Vec<_>>(), vec![(a, base)]);
}

/// Prefab variants (a prefab based on a prefab) inherit transitively; an
/// instance used as a base passes on what its prefabs give, never a value of
/// its own (one it owns blocks the prefabs' value of that component).
#[test]
fn prefab_variants_inherit_transitively_instances_pass_on_only_prefab_values() {
    let mut world = World::new();
    let p = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let variant = world.spawn((Prefab, Position(5.0))).add_pair::<IsA>(p).id();
    let a = world.instantiate(variant);
    assert_eq!(world.get::<MaxSpeed>(a), Some(&MaxSpeed(1.0)));
    assert_eq!(world.get::<Position>(a), Some(&Position(5.0)));
    let b = world.instantiate(a);
    assert!(world.has_pair::<IsA>(b, a));
    assert_eq!(world.get::<MaxSpeed>(b), Some(&MaxSpeed(1.0)), "through a, from p");
    let rows = sorted(world.query::<(Entity, &MaxSpeed)>().iter(&world).map(|(e, _)| e));
    assert_eq!(rows, sorted([a, b]));
    // a's own value is never read through it: b then inherits no MaxSpeed.
    world.entity_mut(a).insert(MaxSpeed(9.0));
    assert_eq!(world.get::<MaxSpeed>(b), None);
    assert_eq!(world.get::<Position>(b), Some(&Position(5.0)));
    let rows = sorted(world.query::<(Entity, &MaxSpeed)>().iter(&world).map(|(e, _)| e));
    assert_eq!(rows, sorted([a]));
}

/// With several bases, the first added wins a conflict (API.md), also when
/// it has the higher id.
#[test]
fn with_several_bases_the_first_added_wins_whatever_the_base_ids() {
    let mut world = World::new();
    let a = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let b = world.spawn((Prefab, MaxSpeed(2.0), Position(2.0))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(b).add_pair::<IsA>(a).id();
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(2.0)));
    assert_eq!(world.get::<Position>(inst), Some(&Position(2.0)));
    let rows: Vec<f32> = world.query::<&MaxSpeed>().iter(&world).map(|s| s.0).collect();
    assert_eq!(rows, vec![2.0], "one row, not one per base");
}

// ---------------------------------------------------------------- prefab children

#[test]
fn every_instance_gets_its_own_children() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Ship"))).id();
    let turret = world.spawn((Name::new("turret"), Hull(1), MaxSpeed(3.0), ChildOf.pair(ship))).id();
    world.spawn((Name::new("engine"), ChildOf.pair(ship)));
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    let ca: Vec<Entity> = world.children(a).collect();
    let cb: Vec<Entity> = world.children(b).collect();
    assert_eq!(ca.len(), 2);
    assert_eq!(cb.len(), 2);
    assert!(ca.iter().all(|c| !cb.contains(c)));
    let ta = world.lookup_child(a, "turret").unwrap();
    assert_eq!(world.parent(ta), Some(a));
    assert!(world.has_pair::<IsA>(ta, turret));
    assert!(world.owns::<Hull>(ta) && !world.owns::<MaxSpeed>(ta));
    assert_eq!(world.get::<MaxSpeed>(ta), Some(&MaxSpeed(3.0)));
    assert!(world.lookup_child(b, "engine").is_some());
    // only instance children visible to queries
    assert_eq!(world.query_filtered::<Entity, With<Hull>>().iter(&world).count(), 2);
    assert_eq!(world.query_filtered::<Entity, With<ChildOf>>().iter(&world).count(), 0);
}

#[test]
fn prefab_children_via_with_children_are_prefabs() {
    let mut world = World::new();
    let mut child = None;
    let ship = world
        .spawn((Prefab, Name::new("Ship")))
        .with_children(|p| {
            child = Some(p.spawn((Name::new("gun"), Tag)).id());
        })
        .id();
    let child = child.unwrap();
    assert!(world.has::<Prefab>(child));
    assert_eq!(world.path(child).as_deref(), Some("Ship::gun"));
    let inst = world.instantiate(ship);
    world.set_name(inst, "alpha").unwrap();
    let gun = world.lookup("alpha::gun").expect("instance child keeps its name");
    assert!(world.has::<Tag>(gun) && !world.has::<Prefab>(gun));
}

#[test]
fn prefab_becomes_prefab_after_child_added_later() {
    // child added to prefab after creation also gets Prefab
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    let child = world.spawn(Tag).id();
    world.entity_mut(child).add_pair::<ChildOf>(ship);
    assert!(world.has::<Prefab>(child));
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).count(), 0);
}

#[test]
fn nested_prefab_children_three_levels() {
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    let l1 = world.spawn((Name::new("l1"), ChildOf.pair(ship))).id();
    let l2 = world.spawn((Name::new("l2"), ChildOf.pair(l1))).id();
    world.spawn((Name::new("l3"), Position(3.0), ChildOf.pair(l2)));
    let inst = world.instantiate(ship);
    let desc: Vec<Entity> = world.descendants(inst).collect();
    assert_eq!(desc.len(), 3);
    let leaf = desc[2];
    assert_eq!(world.get::<Name>(leaf).map(Name::as_str), Some("l3"));
    assert_eq!(world.get::<Position>(leaf), Some(&Position(3.0)));
    world.despawn(inst);
    assert!(desc.iter().all(|e| !world.is_alive(*e)));
    assert!(world.is_alive(l2));
}

#[test]
fn prefab_child_of_base_prefab_inherited_through_chain() {
    // Flecs: instantiating a prefab that IsA another prefab also creates the
    // base prefab's children
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    world.spawn((Name::new("turret"), Tag, ChildOf.pair(base)));
    let derived = world.spawn((Prefab, IsA.pair(base))).id();
    let inst = world.instantiate(derived);
    let children: Vec<Entity> = world.children(inst).collect();
    assert_eq!(children.len(), 1);
    assert!(world.has::<Tag>(children[0]));
}

#[test]
fn instance_children_despawned_with_instance_not_prefab() {
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    let pc = world.spawn((Tag, ChildOf.pair(ship))).id();
    let inst = world.instantiate(ship);
    let extra = world.spawn(ChildOf.pair(inst)).id();
    let c: Vec<Entity> = world.children(inst).collect();
    assert_eq!(c.len(), 2);
    world.despawn(inst);
    assert!(c.iter().all(|e| !world.is_alive(*e)));
    assert!(!world.is_alive(extra));
    assert!(world.is_alive(ship) && world.is_alive(pc));
}

// ---------------------------------------------------------------- names

#[test]
fn names_never_inherited_and_paths() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Fighter"))).id();
    let inst = world.instantiate(ship);
    assert!(world.get::<Name>(inst).is_none());
    assert_eq!(world.path(inst), None);
    assert_eq!(world.lookup("Fighter"), Some(ship));
    assert_eq!(world.query::<&Name>().iter(&world).count(), 0, "prefab name hidden, instance has none");
    let n = world.component_id::<Name>().unwrap();
    let mut q = world.query_builder().read(n).build().unwrap();
    assert_eq!(q.count(&world), 0);
}

#[test]
fn root_name_clash_refused() {
    let mut world = World::new();
    let a = world.spawn(Name::new("x")).id();
    let b = world.spawn_empty().id();
    let e = world.set_name(b, "x").unwrap_err();
    assert_eq!(e, NameError::Taken { entity: b, name: "x".into(), sibling: a });
    assert!(world.get::<Name>(b).is_none());
    // same name under different parents is fine
    let p = world.spawn_empty().id();
    let c = world.spawn((Name::new("x"), ChildOf.pair(p))).id();
    assert_eq!(world.lookup_child(p, "x"), Some(c));
    assert_eq!(world.lookup("x"), Some(a));
}

#[test]
fn instances_of_named_children_do_not_clash_with_each_other() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Ship"))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(ship)));
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    world.set_name(a, "a").unwrap();
    world.set_name(b, "b").unwrap();
    let ta = world.lookup("a::turret").unwrap();
    let tb = world.lookup("b::turret").unwrap();
    assert_ne!(ta, tb);
    assert_eq!(world.path(ta).as_deref(), Some("a::turret"));
    assert_eq!(world.path(tb).as_deref(), Some("b::turret"));
}

#[test]
fn clash_via_reparent_of_named_instance_child() {
    let mut world = World::new();
    let ship = world.spawn(Prefab).id();
    world.spawn((Name::new("turret"), ChildOf.pair(ship)));
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    let tb = world.lookup_child(b, "turret").unwrap();
    let msg = panic_message(|| world.entity_mut(tb).add_pair::<ChildOf>(a).id());
    assert!(msg.contains("turret"), "{msg}");
    assert_eq!(world.parent(tb), Some(b), "refused: never two siblings with one name");
    assert_eq!(world.children(a).count(), 1);
}

#[test]
fn name_index_follows_despawn_and_rename() {
    let mut world = World::new();
    let a = world.spawn(Name::new("a")).id();
    world.despawn(a);
    assert_eq!(world.lookup("a"), None);
    let b = world.spawn(Name::new("a")).id();
    assert_eq!(world.lookup("a"), Some(b));
    world.set_name(b, "z").unwrap();
    assert_eq!(world.lookup("a"), None);
    assert_eq!(world.lookup("z"), Some(b));
    world.entity_mut(b).remove::<Name>();
    assert_eq!(world.lookup("z"), None);
}

#[test]
fn path_changes_when_reparented() {
    let mut world = World::new();
    let p1 = world.spawn(Name::new("p1")).id();
    let p2 = world.spawn(Name::new("p2")).id();
    let c = world.spawn((Name::new("c"), ChildOf.pair(p1))).id();
    assert_eq!(world.lookup("p1::c"), Some(c));
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    assert_eq!(world.lookup("p1::c"), None);
    assert_eq!(world.lookup("p2::c"), Some(c));
    assert_eq!(world.path(c).as_deref(), Some("p2::c"));
    world.entity_mut(c).remove_pair::<ChildOf>(p2);
    assert_eq!(world.path(c).as_deref(), Some("c"));
    assert_eq!(world.lookup("c"), Some(c));
}

#[test]
fn lookup_invalid_paths_return_none() {
    let mut world = World::new();
    world.spawn(Name::new("a"));
    for p in ["", "::a", "a::", "a::::b", "b", "a::b"] {
        assert_eq!(world.lookup(p), None, "{p:?}");
    }
}

// ---------------------------------------------------------------- Disabled

#[test]
fn disabled_prefab_copies_disabled_instance_owns_it() {
    let mut world = World::new();
    let p = world.spawn((Prefab, Disabled, Tag)).id();
    let i = world.instantiate(p);
    assert!(world.has::<Disabled>(i));
    assert!(world.owns::<Disabled>(i));
    world.entity_mut(i).remove::<Disabled>();
    assert!(!world.has::<Disabled>(i), "removing Disabled enables the instance (not inherited back)");
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).collect::<Vec<_>>(), vec![i]);
}

#[test]
fn disabling_prefab_later_does_not_disable_existing_instances() {
    let mut world = World::new();
    let p = world.spawn((Prefab, Tag)).id();
    let i = world.instantiate(p);
    world.entity_mut(p).insert(Disabled);
    assert!(!world.has::<Disabled>(i));
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).collect::<Vec<_>>(), vec![i]);
    let j = world.instantiate(p);
    assert!(world.has::<Disabled>(j));
}

#[test]
fn disabled_prefab_child_is_copied() {
    let mut world = World::new();
    let p = world.spawn(Prefab).id();
    world.spawn((Tag, Disabled, ChildOf.pair(p)));
    let i = world.instantiate(p);
    let c = world.children(i).next().unwrap();
    assert!(world.has::<Disabled>(c));
    assert!(!world.has::<Disabled>(i));
}

#[test]
fn typed_query_mentioning_disabled_matches_disabled() {
    // API.md: Disabled entities are skipped by queries that do not name Disabled
    let mut world = World::new();
    let a = world.spawn(Tag).id();
    let d = world.spawn((Tag, Disabled)).id();
    let rows = sorted(world.query_filtered::<Entity, (With<Tag>, With<Disabled>)>().iter(&world));
    assert_eq!(rows, vec![d]);
    let rows: BTreeSet<_> = world.query_filtered::<(Entity, Has<Disabled>), With<Tag>>().iter(&world).collect();
    assert_eq!(rows, [(a, false), (d, true)].into(), "Has<Disabled> names Disabled");
}

/// A typed optional read of `Disabled` does not name it (Bevy's
/// `multiple_disabling_components`); the runtime `?Disabled` does (Flecs).
#[test]
fn typed_query_option_disabled_leaves_disabled_hidden() {
    let mut world = World::new();
    let a = world.spawn(Tag).id();
    let d = world.spawn((Tag, Disabled)).id();
    let rows: BTreeSet<_> = world
        .query_filtered::<(Entity, Option<&Disabled>), With<Tag>>()
        .iter(&world)
        .map(|(e, o)| (e, o.is_some()))
        .collect();
    assert_eq!(rows, [(a, false)].into());
    let mut runtime = world.query_dsl("Tag, ?Disabled").unwrap();
    let rows: BTreeSet<_> = runtime.iter(&world).map(|row| (row.entity(), row.is_set(1))).collect();
    assert_eq!(rows, [(a, false), (d, true)].into());
}

#[test]
fn get_on_disabled_entity_still_works() {
    let mut world = World::new();
    let d = world.spawn((MaxSpeed(1.0), Disabled)).id();
    assert_eq!(world.get::<MaxSpeed>(d), Some(&MaxSpeed(1.0)));
    assert!(world.query::<&MaxSpeed>().get(&world, d).is_err());
}

// ---------------------------------------------------------------- prefab deletion

#[test]
fn deleting_prefab_updates_cached_queries() {
    let mut world = World::new();
    let p = world.spawn((Prefab, MaxSpeed(1.0), Hull(1))).id();
    let i = world.instantiate(p);
    let mut q = world.query::<(Entity, &MaxSpeed)>();
    assert_eq!(q.iter(&world).count(), 1);
    let ms = world.component_id::<MaxSpeed>().unwrap();
    let mut dq = world.query_builder().read(ms).build().unwrap();
    assert_eq!(dq.count(&world), 1);
    world.despawn(p);
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(dq.count(&world), 0);
    assert_eq!(world.get::<Hull>(i), Some(&Hull(1)));
    assert_eq!(world.targets::<IsA>(i).count(), 0);
    world.check_invariants();
}

#[test]
fn deleting_prefab_child_removes_is_a_from_instance_children() {
    let mut world = World::new();
    let p = world.spawn(Prefab).id();
    let pc = world.spawn((MaxSpeed(2.0), ChildOf.pair(p))).id();
    let i = world.instantiate(p);
    let ic = world.children(i).next().unwrap();
    assert_eq!(world.get::<MaxSpeed>(ic), Some(&MaxSpeed(2.0)));
    world.despawn(p);
    assert!(!world.is_alive(pc));
    assert!(world.is_alive(ic), "the instance's child survives");
    assert_eq!(world.parent(ic), Some(i));
    assert!(!world.has_pair::<IsA>(ic, pc));
    assert_eq!(world.get::<MaxSpeed>(ic), None);
}

#[test]
fn deleting_middle_of_chain() {
    let mut world = World::new();
    let root = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let mid = world.spawn((Prefab, IsA.pair(root), Position(2.0))).id();
    let leaf = world.spawn((Prefab, IsA.pair(mid))).id();
    let inst = world.instantiate(leaf);
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(1.0)));
    world.despawn(mid);
    assert!(world.is_alive(leaf) && world.is_alive(inst));
    assert_eq!(world.get::<MaxSpeed>(inst), None);
    assert_eq!(world.get::<Position>(inst), None);
    assert!(world.has_pair::<IsA>(inst, leaf));
}

#[test]
fn despawning_instance_leaves_prefab() {
    let mut world = World::new();
    let p = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let i = world.instantiate(p);
    world.despawn(i);
    assert_eq!(world.get::<MaxSpeed>(p), Some(&MaxSpeed(1.0)));
    assert!(world.has::<Prefab>(p));
}

// ---------------------------------------------------------------- toggles

#[test]
fn toggle_never_moves_and_reads() {
    let mut world = World::new();
    let e = world.spawn((Thrust(1.0), Position(0.0))).id();
    let arch = world.entity(e).archetype();
    world.entity_mut(e).disable::<Thrust>();
    assert_eq!(world.entity(e).archetype(), arch);
    assert!(!world.is_enabled::<Thrust>(e));
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 0);
    assert_eq!(world.query::<Option<&Thrust>>().iter(&world).filter(|o| o.is_some()).count(), 0);
    assert_eq!(world.query_filtered::<Entity, With<Thrust>>().iter(&world).count(), 0);
    assert_eq!(world.query::<&mut Thrust>().iter_mut(&mut world).count(), 0);
    world.entity_mut(e).enable::<Thrust>();
    assert_eq!(world.entity(e).archetype(), arch);
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
}

#[test]
fn toggle_per_entity_in_same_table() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..8).map(|i| world.spawn(Thrust(i as f32)).id()).collect();
    for e in es.iter().step_by(2) {
        world.entity_mut(*e).disable::<Thrust>();
    }
    let rows: Vec<f32> = world.query::<&Thrust>().iter(&world).map(|t| t.0).collect();
    assert_eq!(rows, vec![1.0, 3.0, 5.0, 7.0]);
    world.despawn(es[1]);
    let rows = sorted(world.query_filtered::<Entity, Without<Thrust>>().iter(&world));
    assert_eq!(rows, sorted([es[0], es[2], es[4], es[6]]), "enabled bits follow swap-remove");
}

#[test]
fn toggle_reinsert_after_remove_is_enabled() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1.0)).id();
    world.entity_mut(e).disable::<Thrust>();
    world.entity_mut(e).remove::<Thrust>();
    world.entity_mut(e).insert(Thrust(2.0));
    assert!(world.is_enabled::<Thrust>(e), "a freshly added component is enabled");
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 1);
}

#[test]
fn toggle_bit_survives_archetype_move() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1.0)).id();
    world.entity_mut(e).disable::<Thrust>();
    world.entity_mut(e).insert(Position(0.0));
    assert!(!world.is_enabled::<Thrust>(e));
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 0);
    world.entity_mut(e).remove::<Position>();
    assert!(!world.is_enabled::<Thrust>(e));
    assert_eq!(world.query_filtered::<Entity, Without<Thrust>>().iter(&world).count(), 1);
}

#[test]
fn toggle_insert_over_disabled_keeps_disabled() {
    // Flecs: ecs_set on a disabled component does not enable it
    let mut world = World::new();
    let e = world.spawn(Thrust(1.0)).id();
    world.entity_mut(e).disable::<Thrust>();
    world.entity_mut(e).insert(Thrust(5.0));
    assert!(!world.is_enabled::<Thrust>(e));
}

#[test]
fn toggle_override_copy_keeps_bit() {
    let mut world = World::new();
    let p = world.spawn((Prefab, Firing(1))).id();
    let i = world.instantiate(p);
    assert!(world.is_enabled::<Firing>(i));
    world.entity_mut(i).disable::<Firing>();
    assert!(world.is_enabled::<Firing>(p));
    let j = world.instantiate(p);
    assert!(world.is_enabled::<Firing>(j));
}

// ---------------------------------------------------------------- unions

#[test]
fn union_is_exclusive() {
    let mut world = World::new();
    let (walk, fly, swim) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn(Tag).add_pair::<Movement>(walk).id();
    let arch = world.entity(e).archetype();
    world.entity_mut(e).add_pair::<Movement>(fly);
    world.entity_mut(e).add_pair::<Movement>(swim);
    assert_eq!(world.entity(e).archetype(), arch);
    assert!(!world.has_pair::<Movement>(e, walk) && !world.has_pair::<Movement>(e, fly));
    assert!(world.has_pair::<Movement>(e, swim));
    assert_eq!(world.targets::<Movement>(e).collect::<Vec<_>>(), vec![swim]);
    assert_eq!(world.target::<Movement>(e), Some(swim));
}

#[test]
fn union_entities_with_different_targets_share_a_table() {
    let mut world = World::new();
    let (walk, fly) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Tag).add_pair::<Movement>(walk).id();
    let b = world.spawn(Tag).add_pair::<Movement>(fly).id();
    assert_eq!(world.entity(a).archetype(), world.entity(b).archetype());
    let rows: BTreeSet<_> = world.query::<(Entity, Pair<Movement>)>().iter(&world).collect();
    assert_eq!(rows, [(a, walk), (b, fly)].into());
    let rows: Vec<Entity> =
        world.query_filtered::<Entity, With<Tag>>().with_pair::<Movement>(walk).iter(&world).collect();
    assert_eq!(rows, vec![a]);
    let mv = world.component_id::<Movement>().unwrap();
    let mut q = world.query_builder().pair(mv, fly).build().unwrap();
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![b]);
    let mut q = world.query_builder().pair(mv, Entity::WILDCARD).build_uncached().unwrap();
    let rows: BTreeSet<_> = q.iter(&world).map(|r| (r.entity(), r.pair_target(0))).collect();
    assert_eq!(rows, [(a, walk), (b, fly)].into());
}

#[test]
fn union_dsl_and_removal() {
    let mut world = World::new();
    world.register_component::<Movement>();
    let walk = world.spawn(Name::new("Walking")).id();
    let fly = world.spawn(Name::new("Flying")).id();
    let a = world.spawn(Tag).add_pair::<Movement>(walk).id();
    let b = world.spawn(Tag).add_pair::<Movement>(fly).id();
    let mut q = world.query_dsl("(Movement, Walking)").unwrap();
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![a]);
    world.entity_mut(b).add_pair::<Movement>(walk);
    assert_eq!(sorted(q.iter(&world).map(|r| r.entity())), sorted([a, b]));
    let mut nq = world.query_dsl("Tag, !(Movement, Walking)").unwrap();
    assert_eq!(nq.count(&world), 0);
    world.entity_mut(a).remove_pair::<Movement>(fly); // wrong target: no-op
    assert!(world.has_pair::<Movement>(a, walk));
    world.entity_mut(a).remove_pair::<Movement>(walk);
    assert!(world.target::<Movement>(a).is_none());
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![b]);
    assert_eq!(nq.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![a]);
    world.entity_mut(b).remove_pair::<Movement>(Entity::WILDCARD);
    assert!(world.target::<Movement>(b).is_none());
}

#[test]
fn union_target_despawn_removes_pair_only_for_that_target() {
    let mut world = World::new();
    let (walk, fly) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn(Tag).add_pair::<Movement>(walk).id();
    let b = world.spawn(Tag).add_pair::<Movement>(fly).id();
    world.despawn(walk);
    assert!(world.is_alive(a));
    assert_eq!(world.target::<Movement>(a), None);
    assert_eq!(world.target::<Movement>(b), Some(fly));
    assert_eq!(world.query::<Pair<Movement>>().iter(&world).collect::<Vec<_>>(), vec![fly]);
    world.check_invariants();
}

#[test]
fn union_in_spawn_bundle() {
    let mut world = World::new();
    let walk = world.spawn_empty().id();
    let a = world.spawn((Tag, Movement.pair(walk))).id();
    assert_eq!(world.target::<Movement>(a), Some(walk));
}

// ---------------------------------------------------------------- ranges / spawn_at / remote

#[test]
fn range_is_half_open_and_panics_naming_it() {
    let mut world = World::new();
    world.set_entity_range(5000..5002);
    let a = world.spawn_empty().id();
    let b = world.spawn(Tag).id();
    assert_eq!((a.index(), b.index()), (5000, 5001));
    let msg = panic_message(|| world.spawn(Tag).id());
    assert!(msg.contains("5000..5002"), "{msg}");
    world.despawn(a);
    let c = world.spawn_empty().id();
    assert_eq!(c.index(), 5000, "dead slots of the range are recycled");
    assert_ne!(c, a);
}

#[test]
fn spawn_at_exact_and_errors() {
    let mut world = World::new();
    world.set_entity_range(5100..5200);
    let want = Entity::from_raw(5150, 7);
    let e = world.spawn_at(want).unwrap().insert(Tag).id();
    assert_eq!(e, want);
    assert!(world.is_alive(want));
    assert!(world.has::<Tag>(want));
    assert!(world.spawn_at(want).is_err());
    assert!(world.spawn_at(Entity::from_raw(5150, 8)).is_err());
    assert!(world.spawn_at(Entity::from_raw(5200, 0)).is_err(), "end excluded");
    assert!(world.spawn_at(Entity::from_raw(5099, 0)).is_err());
    assert!(world.spawn_at(Entity::from_raw(5100, 0)).is_ok(), "start included");
    // normal spawns skip the taken indices
    let mut seen = BTreeSet::new();
    for _ in 0..40 {
        let x = world.spawn_empty().id();
        assert!(x.index() != 5150 && x.index() != 5100, "{x:?}");
        assert!(seen.insert(x.index()));
    }
    world.despawn(want);
    assert!(!world.is_alive(want));
    let again = Entity::from_raw(5150, 9);
    assert_eq!(world.spawn_at(again).map(|e| e.id()).ok(), Some(again));
    assert!(!world.is_alive(want));
}

#[test]
fn remote_reserve_then_flush() {
    let mut world = World::new();
    world.set_entity_range(5000..6000);
    let remote = world.remote_entities();
    let r2 = remote.clone();
    let ids: Vec<Entity> = std::thread::scope(|s| {
        let h1 = s.spawn(|| (0..10).map(|_| remote.reserve()).collect::<Vec<_>>());
        let h2 = s.spawn(|| (0..10).map(|_| r2.reserve()).collect::<Vec<_>>());
        let mut v = h1.join().unwrap();
        v.extend(h2.join().unwrap());
        v
    });
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 20);
    assert!(ids.iter().all(|e| (5000..6000).contains(&e.index())), "{ids:?}");
    assert!(ids.iter().all(|e| !world.is_alive(*e)));
    world.flush();
    assert!(ids.iter().all(|e| world.is_alive(*e)));
    assert_eq!(world.entity_count(), 20);
    world.flush();
    assert_eq!(world.entity_count(), 20);
    // a spawn also flushes
    let late = world.remote_entities().reserve();
    let s = world.spawn(Tag).id();
    assert_ne!(s, late);
    assert!(world.is_alive(late));
    world.entity_mut(late).insert(Tag);
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).count(), 2);
}

#[test]
fn remote_reserve_then_insert_flushes() {
    let mut world = World::new();
    let target = world.spawn_empty().id();
    let late = world.remote_entities().reserve();
    world.insert(target, Tag);
    assert!(world.is_alive(late), "insert also flushes");
}

#[test]
fn spawn_at_flushes_reservations_and_refuses_reserved_index() {
    let mut world = World::new();
    world.set_entity_range(300..400);
    let r = world.remote_entities().reserve();
    assert!(world.spawn_at(r).is_err(), "the reserved id becomes alive first");
    assert!(world.is_alive(r));
}
