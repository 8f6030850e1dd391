//! Components: registration, ids as entities, `ComponentInfo`, names and lookup,
//! and despawning a component's entity (holders lose it, the type is registered
//! afresh on its next use, stale query states and batches stay sound).

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

    // a component is an entity: alive, internal, not counted; despawning it
    // unregisters it (see the tests at the end of this file)
    assert!(world.is_alive(id));
    assert_eq!(world.entity_count(), 0);
    assert!(world.despawn(id));
    assert!(!world.is_alive(id));
    assert_eq!(world.component_id::<Position>(), None);
    assert_eq!(world.components().len(), components_before);
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

// ----- despawning a component's entity -------------------------------------------------

/// A table tag whose `on_remove` hook counts its calls in [`Removed`].
#[derive(Component, Debug)]
#[component(on_remove = count_removal)]
struct Counted;

#[derive(Resource, Default, Debug)]
struct Removed(u32);

fn count_removal(mut world: DeferredWorld, _: HookContext) {
    if let Some(mut removed) = world.get_resource_mut::<Removed>() {
        removed.0 += 1;
    }
}

/// Components are entities (API.md, Flecs): despawning one removes it from
/// every holder (the default policy of plain components), table, tag and
/// sparse alike, dropping each value once and running `on_remove`; then the
/// registration is gone (typed access is `None`), its index is never reused, and
/// the type is registered afresh, under a new id, on its next use.
#[test]
fn despawning_a_component_entity_removes_it_from_every_holder_and_unregisters_it() {
    use ecs_tests::{DropLog, DropSparse, DropTable};
    let mut world = World::new();
    world.init_resource::<Removed>();
    let log = DropLog::new();
    let a = world.spawn((log.table(1), Position { x: 1.0, y: 0.0 }, Counted)).id();
    let b = world.spawn((log.table(2), log.sparse(20), Counted)).id();
    let c = world.spawn((Position::default(), log.sparse(30))).id();
    let table = world.component_id::<DropTable>().unwrap();
    let sparse = world.component_id::<DropSparse>().unwrap();
    let counted = world.component_id::<Counted>().unwrap();
    let mut stale = world.query::<(Entity, &DropTable)>();
    let mut stale_without = world.query_filtered::<Entity, Without<DropTable>>();
    assert_eq!(stale.iter(&world).count(), 2);
    let internal = world.entities().alive_count() - world.entity_count();

    assert!(world.despawn(table));
    log.assert_dropped_once([1, 2]);
    assert!(!world.is_alive(table) && world.component_info(table).is_none());
    assert_eq!((world.component_id::<DropTable>(), world.lookup("DropTable")), (None, None));
    assert!(world.get::<DropTable>(a).is_none() && !world.has::<DropTable>(b));
    assert_eq!(world.get::<Position>(a), Some(&Position { x: 1.0, y: 0.0 }), "other values stay");
    assert!(world.is_alive(a) && world.is_alive(b) && world.is_alive(c));
    assert_eq!(world.entities().alive_count() - world.entity_count(), internal - 1);
    world.check_invariants();

    // Query states built before see nobody holding the old id: no stale reads.
    assert_eq!(stale.iter(&world).count(), 0);
    assert_eq!(stale_without.iter(&world).count(), 3);

    assert!(world.despawn(sparse));
    log.assert_dropped_once([1, 2, 20, 30]);
    assert!(!world.has::<DropSparse>(b) && world.get::<DropSparse>(c).is_none());
    assert!(world.despawn(counted));
    assert_eq!(world.resource::<Removed>().0, 2, "on_remove ran once per holder");
    assert!(!world.has::<Counted>(a));
    world.check_invariants();

    // The type is registered again, under a fresh id, and works as new.
    let new_entity = world.spawn_empty().id();
    assert_ne!(new_entity.index(), table.index(), "a component's index is never recycled");
    world.insert(a, log.table(3));
    let fresh = world.component_id::<DropTable>().unwrap();
    assert_ne!(fresh, table);
    assert_eq!(world.lookup("DropTable"), Some(fresh));
    assert_eq!(world.get::<DropTable>(a).map(|value| value.id), Some(3));
    assert_eq!(world.query::<&DropTable>().iter(&world).count(), 1);
    assert_eq!(stale.iter(&world).count(), 0, "documented: a stale state keeps the dead id; build it again");
    world.spawn((log.table(4), log.sparse(40)));
    assert_eq!(world.query::<(&DropTable, &DropSparse)>().iter(&world).count(), 1);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4, 20, 30, 40]);
}

/// The world's own components and the wildcards stay: despawning them is refused.
#[test]
fn built_in_components_and_wildcards_cannot_be_despawned() {
    let mut world = World::new();
    let builtin = world.builtin_ids();
    for id in [builtin.component_info, builtin.name, builtin.internal, builtin.observer, Entity::WILDCARD, Entity::ANY]
    {
        assert!(!world.despawn(id), "{id:?}");
        assert!(world.is_alive(id));
    }
    assert!(world.component_info(builtin.name).is_some());
    world.check_invariants();
}

/// A hook despawns its own component's entity in the middle of a batch: the
/// batch goes on with the type registered afresh (no write into a deleted or
/// reused archetype), and every value is dropped once.
#[test]
fn a_hook_despawning_its_component_mid_batch_keeps_the_batch_sound() {
    use ecs_tests::DropLog;

    #[derive(Component)]
    #[component(on_add = despawn_own_component)]
    struct Fragile(ecs_tests::DropTable);

    #[derive(Resource)]
    struct Armed(bool);

    fn despawn_own_component(mut world: DeferredWorld, ctx: HookContext) {
        let armed = world.get_resource::<Armed>().is_some_and(|armed| armed.0);
        if armed {
            world.get_resource_mut::<Armed>().unwrap().0 = false;
            world.commands().queue(move |world: &mut World| {
                world.despawn(ctx.component_id);
            });
        }
    }

    let mut world = World::new();
    world.insert_resource(Armed(true));
    let log = DropLog::new();
    let first = world.register_component::<Fragile>();
    let ids: Vec<Entity> = world.spawn_batch((0..4).map(|i| (Fragile(log.table(i)), Position::default()))).collect();
    log.assert_dropped_once([0]);
    assert!(world.get::<Fragile>(ids[0]).is_none());
    assert_ne!(world.component_id::<Fragile>(), Some(first));
    for (i, &e) in ids.iter().enumerate().skip(1) {
        assert_eq!(world.get::<Fragile>(e).map(|f| f.0.id), Some(i as u32));
    }
    assert_eq!(world.query::<(&Fragile, &Position)>().iter(&world).count(), 3);
    world.check_invariants();
    drop(world);
    log.assert_dropped_once([0, 1, 2, 3]);
}

/// A sparse component whose `on_delete` is `delete` (only a hand-written impl
/// can give a sparse component a relationship policy).
struct Tether(u32);

impl Component for Tether {
    const NAME: &'static str = "Tether";
    const ID: u64 = ecs::util::component_type_id(module_path!(), "Tether");
    const STORAGE: StorageKind = StorageKind::Sparse;
    const RELATIONSHIP: Option<ecs::component::RelationshipTraits> =
        Some(ecs::component::RelationshipTraits::DEFAULT.on_delete(ecs::component::CleanupPolicy::Delete));
}

/// A sparse component whose `on_delete` is `panic`.
struct Anchor;

impl Component for Anchor {
    const NAME: &'static str = "Anchor";
    const ID: u64 = ecs::util::component_type_id(module_path!(), "Anchor");
    const STORAGE: StorageKind = StorageKind::Sparse;
    const RELATIONSHIP: Option<ecs::component::RelationshipTraits> =
        Some(ecs::component::RelationshipTraits::DEFAULT.on_delete(ecs::component::CleanupPolicy::Panic));
}

/// The holders of a sparse component are found through its set, and its
/// policy applies to them as to table holders: delete despawns them, panic
/// refuses before anything changes.
#[test]
fn a_sparse_components_delete_and_panic_policies_reach_its_holders() {
    let mut world = World::new();
    let tethered = world.spawn((Tether(1), Position::default())).id();
    let free = world.spawn(Position::default()).id();
    let anchored = world.spawn(Anchor).id();
    assert_eq!(world.get::<Tether>(tethered).map(|tether| tether.0), Some(1));
    let tether = world.component_id::<Tether>().unwrap();
    assert!(world.despawn(tether));
    assert!(!world.is_alive(tethered) && world.is_alive(free));
    world.check_invariants();

    let anchor = world.component_id::<Anchor>().unwrap();
    let error = world.try_despawn(anchor).unwrap_err();
    assert_eq!((error.relationship.as_str(), error.holders.as_slice()), ("Anchor", &[anchored][..]));
    assert!(world.is_alive(anchor) && world.has::<Anchor>(anchored));
    world.remove::<Anchor>(anchored);
    // Flecs: an entity whose own on_delete is panic is never deleted, held or not.
    let error = world.try_despawn(anchor).unwrap_err();
    assert!(error.holders.is_empty() && world.is_alive(anchor));
    world.check_invariants();
}
