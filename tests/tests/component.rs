//! Components: registration, ids as entities, `ComponentInfo`, names and lookup.

use std::alloc::Layout;
use std::any::{TypeId, type_name};
use std::collections::BTreeSet;

use ecs::component::{ComponentInfo, Internal, StorageKind};
use ecs::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy, Default)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, PartialEq)]
struct Label(String);

#[derive(Component, Debug)]
struct Enemy;

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
enum Team {
    Red,
    Blue,
}

mod other {
    use ecs::prelude::*;

    /// Same short name as `super::Position`, different type.
    #[derive(Component, Debug, PartialEq)]
    pub struct Position(pub u8);
}

#[test]
fn registration_is_idempotent_and_ids_are_internal_entities() {
    let mut world = World::new();
    assert_eq!(world.component_id::<Position>(), None);
    let components_before = world.components().len();
    let id = world.register_component::<Position>();
    assert_eq!(world.register_component::<Position>(), id);
    assert_eq!(world.component_id::<Position>(), Some(id));
    assert_eq!(world.components().len(), components_before + 1);

    // a component is an entity: alive, internal, not counted, not despawnable
    assert!(world.is_alive(id));
    assert_eq!(world.entity_count(), 0);
    assert!(!world.despawn(id));
    assert!(world.is_alive(id));
    world.check_invariants();
}

#[test]
fn spawning_and_querying_register_components_on_first_use() {
    let mut world = World::new();
    world.spawn(Position::default());
    assert!(world.component_id::<Position>().is_some());
    assert_eq!(world.component_id::<Label>(), None);
    let _ = world.query::<&Label>();
    assert!(world.component_id::<Label>().is_some());
    assert_eq!(world.component_id::<Enemy>(), None);
    let _ = world.query_filtered::<Entity, Without<Enemy>>();
    assert!(world.component_id::<Enemy>().is_some());
    world.check_invariants();
}

#[test]
fn distinct_types_get_distinct_ids() {
    let mut world = World::new();
    let ids = [
        world.register_component::<Position>(),
        world.register_component::<Label>(),
        world.register_component::<Enemy>(),
        world.register_component::<Stunned>(),
        world.register_component::<Team>(),
        world.register_component::<other::Position>(),
    ];
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            assert_ne!(a, b);
        }
    }
    world.check_invariants();
}

#[test]
fn component_info_describes_the_type() {
    let mut world = World::new();
    let id = world.register_component::<Position>();
    let info = world.component_info(id).unwrap();
    assert_eq!(info.id(), id);
    assert_eq!(info.name(), "Position");
    assert_eq!(info.type_name(), type_name::<Position>());
    assert_eq!(info.type_id(), Some(TypeId::of::<Position>()));
    assert_eq!(info.type_hash(), <Position as Component>::ID);
    assert_eq!(info.layout(), Layout::new::<Position>());
    assert_eq!(info.storage(), StorageKind::Table);
    assert!(!info.is_tag());
    assert!(info.drop_fn().is_none(), "f32 fields need no drop");
    assert!(!info.hooks().any());

    let label = world.register_component::<Label>();
    assert!(world.component_info(label).unwrap().drop_fn().is_some(), "a String needs dropping");

    let enemy = world.register_component::<Enemy>();
    let info = world.component_info(enemy).unwrap();
    assert!(info.is_tag());
    assert_eq!(info.layout().size(), 0);

    let stunned = world.register_component::<Stunned>();
    assert_eq!(world.component_info(stunned).unwrap().storage(), StorageKind::Sparse);
}

#[test]
fn component_entities_carry_their_info_and_name() {
    let mut world = World::new();
    let id = world.register_component::<Position>();
    assert_eq!(world.get::<ComponentInfo>(id).map(ComponentInfo::name), Some("Position"));
    assert_eq!(world.get::<Name>(id).map(Name::as_str), Some("Position"));
    assert!(world.has::<Internal>(id));
    let view = world.entity(id);
    assert!(view.contains::<ComponentInfo>());
    assert_eq!(view.get::<ComponentInfo>().map(ComponentInfo::id), Some(id));
    world.check_invariants();
}

#[test]
fn builtin_components_are_registered_in_every_world() {
    let world = World::new();
    let builtin = world.builtin_ids();
    assert_eq!(world.component_id::<ComponentInfo>(), Some(builtin.component_info));
    assert_eq!(world.component_id::<Name>(), Some(builtin.name));
    assert_eq!(world.component_id::<Internal>(), Some(builtin.internal));
    assert_eq!(world.lookup("Name"), Some(builtin.name));
    assert_eq!(world.lookup("ComponentInfo"), Some(builtin.component_info));
    assert_eq!(world.lookup("Internal"), Some(builtin.internal));
    assert!(world.components().len() >= 3);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn lookup_by_short_name_and_full_path() {
    let mut world = World::new();
    let id = world.register_component::<Position>();
    assert_eq!(world.lookup("Position"), Some(id));
    assert_eq!(world.lookup(type_name::<Position>()), Some(id));
    assert_eq!(world.lookup("Nope"), None);
    assert_eq!(world.lookup(""), None);
    assert_eq!(world.lookup("position"), None, "lookup is case-sensitive");
}

#[test]
fn same_short_name_keeps_the_first_registration_and_full_paths_disambiguate() {
    let mut world = World::new();
    let ours = world.register_component::<Position>();
    let theirs = world.register_component::<other::Position>();
    assert_ne!(ours, theirs);
    assert_eq!(world.lookup("Position"), Some(ours));
    assert_eq!(world.lookup(type_name::<Position>()), Some(ours));
    assert_eq!(world.lookup(type_name::<other::Position>()), Some(theirs));
    assert_eq!(world.component_info(theirs).unwrap().name(), "Position");
    assert_ne!(<Position as Component>::ID, <other::Position as Component>::ID);

    let e = world.spawn((Position { x: 1.0, y: 2.0 }, other::Position(7))).id();
    assert_eq!(world.get::<other::Position>(e), Some(&other::Position(7)));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
    world.check_invariants();
}

#[test]
fn component_info_of_non_components_is_none() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    assert!(world.component_info(e).is_none());
    assert!(world.component_info(Entity::WILDCARD).is_none());
    assert!(world.component_info(Entity::from_raw(100_000, 0)).is_none());
    // a component id with the wrong generation is not the component
    let id = world.component_id::<Position>().unwrap();
    let wrong = Entity::from_raw(id.index(), id.generation() + 1);
    assert!(world.component_info(wrong).is_none());
}

#[test]
fn name_is_an_ordinary_component_for_user_entities() {
    let mut world = World::new();
    let e = world.spawn(Name::new("player")).id();
    let f = world.spawn(Name::new(String::from("npc"))).id();
    assert_eq!(world.get::<Name>(e).unwrap().as_str(), "player");
    assert_eq!(world.get::<Name>(f).unwrap().as_str(), "npc");
    world.get_mut::<Name>(e).unwrap().0 = "hero".into();
    assert_eq!(world.get::<Name>(e), Some(&Name::new("hero")));
    // a user query on Name sees user entities only, not the named internal ones
    let mut names: Vec<String> = world.query::<&Name>().iter(&world).map(|n| n.as_str().to_owned()).collect();
    names.sort();
    assert_eq!(names, ["hero", "npc"]);
    world.check_invariants();
}

#[test]
fn enum_components_work() {
    let mut world = World::new();
    let a = world.spawn(Team::Red).id();
    let b = world.spawn(Team::Blue).id();
    assert_eq!(Team::NAME, "Team");
    assert_eq!(world.get::<Team>(a), Some(&Team::Red));
    *world.get_mut::<Team>(a).unwrap() = Team::Blue;
    let blues = world.query::<&Team>().iter(&world).filter(|&&t| t == Team::Blue).count();
    assert_eq!(blues, 2);
    assert_eq!(world.remove::<Team>(b), Some(Team::Blue));
    world.check_invariants();
}

#[test]
fn the_component_info_query_lists_registered_components() {
    fn names(world: &mut World) -> BTreeSet<String> {
        world.query::<&ComponentInfo>().iter(world).map(|info| info.name().to_owned()).collect()
    }
    let mut world = World::new();
    let builtin = names(&mut world);
    assert!(["ComponentInfo", "Internal", "Name"].iter().all(|&name| builtin.contains(name)), "{builtin:?}");
    world.register_component::<Position>();
    world.register_component::<Stunned>();
    let after = names(&mut world);
    let added: Vec<&String> = after.difference(&builtin).collect();
    assert_eq!(added, ["Position", "Stunned"]);
    assert_eq!(world.components().iter().count(), builtin.len() + 2);
    assert_eq!(world.components().len(), builtin.len() + 2);
}
