//! Archetypes through `world.archetypes()`: types, the graph's add/remove edges,
//! the component index (with the `*` wildcard), internal archetypes and the
//! hashed paths for high component ids.

use std::collections::HashSet;

use ecs::archetype::{ArchetypeFlags, ArchetypeId};
use ecs::entity::{Entity, Id};
use ecs::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct A(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct B(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct C(u32);

/// A tag with change detection: a column of ticks, no values.
#[derive(Component, Debug)]
struct Tag;

/// A tag without change detection: no column at all.
#[derive(Component, Debug)]
#[component(change_detection = false)]
struct Marker;

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Sparse(u32);

fn archetype_of(world: &World, e: Entity) -> ArchetypeId {
    world.entities().location(e).expect("alive").archetype
}

fn id<T: Component>(world: &World) -> Id {
    world.component_id::<T>().expect("registered").id()
}

fn sorted(mut ids: Vec<Id>) -> Vec<Id> {
    ids.sort();
    ids
}

#[test]
fn the_empty_archetype_is_archetype_zero() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert_eq!(archetype_of(&world, e), ArchetypeId::EMPTY);
    let empty = &world.archetypes()[ArchetypeId::EMPTY];
    assert_eq!(empty.id(), ArchetypeId::EMPTY);
    assert!(empty.ids().is_empty());
    assert_eq!(empty.entities(), &[e]);
    assert_eq!(world.archetypes().find(&[]), Some(ArchetypeId::EMPTY));
    assert!(!world.archetypes().is_empty());
    world.check_invariants();
}

#[test]
fn same_component_set_shares_an_archetype_regardless_of_order() {
    let mut world = World::new();
    let a = world.spawn((A(1), B(1))).id();
    let count = world.archetypes().len();
    let b = world.spawn((B(2), A(2))).id();
    assert_eq!(world.archetypes().len(), count, "no new archetype for an existing type");
    let c = world.spawn_empty().insert(B(3)).insert(A(3)).id();
    // only the intermediate {B} is new
    assert_eq!(world.archetypes().len(), count + 1);
    assert_eq!(archetype_of(&world, a), archetype_of(&world, b));
    assert_eq!(archetype_of(&world, a), archetype_of(&world, c));
    let archetype = &world.archetypes()[archetype_of(&world, a)];
    assert_eq!(archetype.ids(), sorted(vec![id::<A>(&world), id::<B>(&world)]).as_slice());
    assert_eq!(archetype.len(), 3);
    assert_eq!(world.get::<A>(b), Some(&A(2)));
    assert_eq!(world.get::<B>(c), Some(&B(3)));
    world.check_invariants();
}

#[test]
fn archetype_types_are_sorted_and_describe_their_columns() {
    let mut world = World::new();
    let e = world.spawn((C(0), Tag, A(0), Marker, B(0))).id();
    let archetype = &world.archetypes()[archetype_of(&world, e)];
    let ids = archetype.ids();
    assert_eq!(ids.len(), 5);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(world.archetypes().find(ids), Some(archetype.id()));
    for (position, &component) in ids.iter().enumerate() {
        assert_eq!(archetype.position_of(component), Some(position));
        assert!(archetype.contains(component));
    }
    assert_eq!(archetype.column_of(id::<Marker>(&world)), None);
    let columns: HashSet<usize> = [id::<A>(&world), id::<B>(&world), id::<C>(&world), id::<Tag>(&world)]
        .iter()
        .map(|&c| archetype.column_of(c).unwrap())
        .collect();
    assert_eq!(columns, HashSet::from([0, 1, 2, 3]));
    assert_eq!(archetype.column_map().iter().filter(|&&c| c < 0).count(), 1);
    assert!(!archetype.contains(Entity::WILDCARD.id()));
    world.check_invariants();
}

#[test]
fn insert_and_remove_create_edges_in_both_directions() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let only_a = archetype_of(&world, e);
    let (a, b) = (id::<A>(&world), world.register_component::<B>().id());

    // spawning from the empty archetype went through the edge EMPTY -[+A]-> {A}
    assert_eq!(world.archetypes()[ArchetypeId::EMPTY].edges().add(a), Some(only_a));
    assert_eq!(world.archetypes()[only_a].edges().remove(a), Some(ArchetypeId::EMPTY));
    assert_eq!(world.archetypes()[only_a].edges().add(b), None, "no edge before the first insert");

    world.insert(e, B(1));
    let ab = archetype_of(&world, e);
    assert_ne!(ab, only_a);
    assert_eq!(world.archetypes()[only_a].edges().add(b), Some(ab));
    assert_eq!(world.archetypes()[ab].edges().remove(b), Some(only_a));

    // removing A from {A, B} creates {B} and both edges between them
    world.remove::<A>(e);
    let only_b = archetype_of(&world, e);
    assert_eq!(world.archetypes()[only_b].ids(), &[b]);
    assert_eq!(world.archetypes()[ab].edges().remove(a), Some(only_b));
    assert_eq!(world.archetypes()[only_b].edges().add(a), Some(ab));

    // following the edges again creates nothing new
    let count = world.archetypes().len();
    world.insert(e, A(2));
    assert_eq!(archetype_of(&world, e), ab);
    world.remove::<B>(e);
    assert_eq!(archetype_of(&world, e), only_a);
    world.remove::<A>(e);
    assert_eq!(archetype_of(&world, e), ArchetypeId::EMPTY);
    assert_eq!(world.archetypes().len(), count);
    world.check_invariants();
}

#[test]
fn overwriting_or_removing_a_missing_component_does_not_move() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(1))).id();
    let before = world.entities().location(e).unwrap();
    let count = world.archetypes().len();
    world.insert(e, A(2));
    assert_eq!(world.entities().location(e), Some(before));
    assert_eq!(world.remove::<C>(e), None);
    assert_eq!(world.entities().location(e), Some(before));
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    // registering C for the remove created no archetype
    assert_eq!(world.archetypes().len(), count);
    world.check_invariants();
}

#[test]
fn archetypes_are_never_removed_and_empty_ones_stay_matched() {
    let mut world = World::new();
    let e = world.spawn((A(1), C(1))).id();
    let archetype = archetype_of(&world, e);
    let count = world.archetypes().len();
    world.despawn(e);
    assert_eq!(world.archetypes().len(), count);
    assert!(world.archetypes()[archetype].is_empty());
    assert_eq!(world.archetypes().find(world.archetypes()[archetype].ids()), Some(archetype));
    let f = world.spawn((C(2), A(2))).id();
    assert_eq!(archetype_of(&world, f), archetype);
    world.check_invariants();
}

#[test]
fn component_index_lists_exactly_the_archetypes_containing_an_id() {
    let mut world = World::new();
    let e1 = world.spawn(A(1)).id();
    let e2 = world.spawn((A(1), B(1))).id();
    let e3 = world.spawn((B(1), Marker)).id();
    let e4 = world.spawn(C(1)).id();
    let (a, b, tag) = (id::<A>(&world), id::<B>(&world), id::<Marker>(&world));
    let index = world.archetypes().component_index();

    let with_a: HashSet<ArchetypeId> =
        index.get(a).unwrap().archetypes().iter().map(|record| record.archetype).collect();
    let expected_a: HashSet<ArchetypeId> =
        world.archetypes().iter().filter(|arch| arch.contains(a)).map(|arch| arch.id()).collect();
    assert_eq!(with_a, expected_a);
    assert!(with_a.contains(&archetype_of(&world, e1)) && with_a.contains(&archetype_of(&world, e2)));
    assert!(!with_a.contains(&archetype_of(&world, e3)) && !with_a.contains(&archetype_of(&world, e4)));

    for component in [a, b, tag] {
        let record = index.get(component).unwrap();
        assert_eq!(record.id(), Some(component));
        for entry in record.archetypes() {
            let archetype = &world.archetypes()[entry.archetype];
            let position = archetype.position_of(component).unwrap();
            assert_eq!(entry.position as usize, position);
            assert_eq!(entry.count, 1);
            assert_eq!(entry.column, archetype.column_map()[position]);
            assert_eq!(record.get(entry.archetype), Some(entry));
        }
    }
    let tag_record = index.get(tag).unwrap();
    assert!(tag_record.archetypes().iter().all(|entry| entry.column == -1));
    assert!(index.get(tag).unwrap().get(archetype_of(&world, e1)).is_none());
    world.check_invariants();
}

#[test]
fn wildcard_record_lists_every_non_empty_type() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(1), Tag)).id();
    let index = world.archetypes().component_index();
    let wildcard = index.get(Entity::WILDCARD.id()).unwrap();
    let listed: HashSet<ArchetypeId> = wildcard.archetypes().iter().map(|record| record.archetype).collect();
    let expected: HashSet<ArchetypeId> =
        world.archetypes().iter().filter(|arch| !arch.ids().is_empty()).map(|arch| arch.id()).collect();
    assert_eq!(listed, expected);
    assert!(!listed.contains(&ArchetypeId::EMPTY));
    let record = wildcard.get(archetype_of(&world, e)).unwrap();
    assert_eq!(record.count, 3);
    assert_eq!(record.position, 0);
    world.check_invariants();
}

#[test]
fn unused_components_have_no_index_record() {
    let mut world = World::new();
    let c = world.register_component::<C>();
    assert!(world.archetypes().component_index().get(c.id()).is_none());
    world.spawn(Sparse(1));
    let sparse = world.component_id::<Sparse>().unwrap();
    assert!(world.archetypes().component_index().get(sparse.id()).is_none());
}

#[test]
fn internal_archetypes_are_flagged() {
    let mut world = World::new();
    let component = world.register_component::<A>();
    let e = world.spawn(A(1)).id();
    let internal = archetype_of(&world, component);
    assert!(world.archetypes()[internal].flags().contains(ArchetypeFlags::INTERNAL));
    assert!(world.archetypes()[archetype_of(&world, Entity::WILDCARD)].flags().contains(ArchetypeFlags::INTERNAL));
    assert!(!world.archetypes()[archetype_of(&world, e)].flags().contains(ArchetypeFlags::INTERNAL));
    assert!(!world.archetypes()[ArchetypeId::EMPTY].flags().contains(ArchetypeFlags::INTERNAL));
    let builtin = world.builtin_ids();
    assert!(world.archetypes().internal_markers().contains(&builtin.internal.id()));
    world.check_invariants();
}

#[test]
fn every_combination_of_five_components_gets_its_own_archetype() {
    #[derive(Component)]
    struct T0;
    #[derive(Component)]
    struct T1;
    #[derive(Component, Debug, PartialEq)]
    struct D2(u8);
    #[derive(Component, Debug, PartialEq)]
    struct D3(u16);
    #[derive(Component, Debug, PartialEq)]
    struct D4(u64);

    let mut world = World::new();
    let mut entities = Vec::new();
    for mask in 0u32..32 {
        let mut view = world.spawn_empty();
        if mask & 1 != 0 {
            view.insert(T0);
        }
        if mask & 2 != 0 {
            view.insert(T1);
        }
        if mask & 4 != 0 {
            view.insert(D2(mask as u8));
        }
        if mask & 8 != 0 {
            view.insert(D3(mask as u16));
        }
        if mask & 16 != 0 {
            view.insert(D4(u64::from(mask)));
        }
        entities.push((view.id(), mask));
    }
    let archetypes: HashSet<ArchetypeId> = entities.iter().map(|&(e, _)| archetype_of(&world, e)).collect();
    assert_eq!(archetypes.len(), 32);
    for &(e, mask) in &entities {
        assert_eq!(world.archetypes()[archetype_of(&world, e)].ids().len(), mask.count_ones() as usize);
        assert_eq!(world.has::<T0>(e), mask & 1 != 0);
        assert_eq!(world.has::<T1>(e), mask & 2 != 0);
        assert_eq!(world.get::<D2>(e), (mask & 4 != 0).then_some(&D2(mask as u8)));
        assert_eq!(world.get::<D3>(e), (mask & 8 != 0).then_some(&D3(mask as u16)));
        assert_eq!(world.get::<D4>(e), (mask & 16 != 0).then_some(&D4(u64::from(mask))));
    }
    world.check_invariants();
}

#[test]
fn archetypes_with_more_than_eight_ids_find_their_components() {
    macro_rules! wide {
        ($($name:ident),*) => {
            $(#[derive(Component, Debug, PartialEq)] struct $name(u32);)*
        };
    }
    wide!(W0, W1, W2, W3, W4, W5, W6, W7, W8, W9, W10, W11);
    let mut world = World::new();
    let e = world.spawn((W0(0), W1(1), W2(2), W3(3), W4(4), W5(5), W6(6), W7(7), W8(8), W9(9), W10(10), W11(11))).id();
    let archetype = &world.archetypes()[archetype_of(&world, e)];
    assert_eq!(archetype.ids().len(), 12);
    for (position, &component) in archetype.ids().iter().enumerate() {
        assert_eq!(archetype.position_of(component), Some(position));
    }
    assert_eq!(world.get::<W0>(e), Some(&W0(0)));
    assert_eq!(world.get::<W7>(e), Some(&W7(7)));
    assert_eq!(world.get::<W11>(e), Some(&W11(11)));
    assert_eq!(world.remove::<W5>(e), Some(W5(5)));
    assert_eq!(world.get::<W6>(e), Some(&W6(6)));
    assert_eq!(world.get::<W10>(e), Some(&W10(10)));
    assert!(!world.has::<W5>(e));
    let mut q = world.query::<(&W0, &W11, Option<&W5>)>();
    assert_eq!(q.single(&world), Ok((&W0(0), &W11(11), None)));
    world.check_invariants();
}

#[test]
fn components_registered_after_many_entities_use_the_hashed_paths() {
    #[derive(Component, Debug, PartialEq)]
    struct Late(u32);
    #[derive(Component, Debug, PartialEq)]
    struct Later(u32);

    let mut world = World::new();
    let ids: Vec<Entity> = (0..5000).map(|i| world.spawn(A(i)).id()).collect();
    let late = world.register_component::<Late>();
    assert!(late.index() > 4096, "past the flat edge and index limits");
    for &e in ids.iter().take(10) {
        world.insert(e, Late(e.index()));
    }
    world.insert(ids[0], Later(1));
    let with_late = archetype_of(&world, ids[0]);
    let a_late = archetype_of(&world, ids[1]);
    let only_a = archetype_of(&world, ids[20]);
    assert_eq!(world.archetypes()[only_a].edges().add(late.id()), Some(a_late));
    assert_eq!(world.archetypes()[a_late].edges().remove(late.id()), Some(only_a));
    assert!(world.archetypes()[with_late].contains(late.id()));
    let record = world.archetypes().component_index().get(late.id()).unwrap();
    assert_eq!(record.archetypes().len(), 2);

    let mut q = world.query::<(Entity, &Late)>();
    let mut found: Vec<u32> = q.iter(&world).map(|(e, late)| e.index() - late.0).collect();
    found.dedup();
    assert_eq!(found, [0]);
    assert_eq!(q.iter(&world).count(), 10);
    assert_eq!(world.remove::<Late>(ids[1]), Some(Late(ids[1].index())));
    assert_eq!(archetype_of(&world, ids[1]), only_a);
    world.check_invariants();
}
