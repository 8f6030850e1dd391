//! Every line of API.md's section "Prefabs, toggles, unions, names", with its
//! names and shapes, and the behaviour the paragraph under it states.

use ecs::prelude::*;
use ecs::world::NameError;

#[derive(Component, Clone)]
#[component(on_instantiate = "inherit")] // "override" (copy, needs Clone) | "inherit" (shared) | "dont_inherit"
struct MaxSpeed(f32);
#[derive(Component)]
#[component(toggle)] // can be disabled per entity without a move
struct Thrust(f32);
#[derive(Relationship)]
#[relationship(union)] // non-fragmenting, exclusive: changing target never moves
struct Movement;

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Hull(u32);
#[derive(Component, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Blueprint(u32);

#[test]
fn the_code_block_compiles_and_behaves_as_written() {
    let mut world = World::new();
    let walking = world.spawn_empty().id();
    let ship = world.spawn((Prefab, MaxSpeed(10.0), Name::new("Fighter"))).id();
    let inst: Entity = world.instantiate(ship); // Entity; same as spawn_empty().add_pair::<IsA>(ship)
    assert!(world.has_pair::<IsA>(inst, ship));
    let speed: Option<&MaxSpeed> = world.get::<MaxSpeed>(inst); // Some(&MaxSpeed(10.0)) — inherited
    assert_eq!(speed.map(|s| s.0), Some(10.0));
    world.entity_mut(inst).insert(Thrust(1.0));
    world.entity_mut(inst).disable::<Thrust>(); // enable::<T>(), world.is_enabled::<T>(e) -> bool
    let enabled: bool = world.is_enabled::<Thrust>(inst);
    assert!(!enabled);
    world.entity_mut(inst).enable::<Thrust>();
    assert!(world.is_enabled::<Thrust>(inst));
    world.entity_mut(inst).insert(Disabled); // skipped by queries that do not name Disabled
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<&Thrust, With<Disabled>>().iter(&world).count(), 1);
    let archetype = world.entity(inst).archetype();
    world.entity_mut(inst).add_pair::<Movement>(walking); // union: no archetype move (after the first add)
    let flying = world.spawn_empty().id();
    let with_movement = world.entity(inst).archetype();
    world.entity_mut(inst).add_pair::<Movement>(flying);
    assert_eq!(world.entity(inst).archetype(), with_movement);
    assert_ne!(archetype, with_movement);
    let found: Option<Entity> = world.lookup("Fighter"); // Option<Entity>; paths along ChildOf
    assert_eq!(found, Some(ship));
    let path: Option<String> = world.path(inst); // Option<String>
    assert_eq!(path, None, "an unnamed entity has no path");
    assert_eq!(world.path(ship).as_deref(), Some("Fighter"));
    world.set_entity_range(1_000_000..2_000_000); // new ids come from this range
    let e = world.spawn_empty().id();
    assert!((1_000_000..2_000_000).contains(&e.index()));
    let id = Entity::from_raw(1_500_000, 0);
    let spawned: Result<EntityWorldMut, SpawnError> = world.spawn_at(id);
    assert_eq!(spawned.map(|e| e.id()).ok(), Some(id));
    let remote = world.remote_entities(); // RemoteEntities: Send + Sync + Clone
    let e = std::thread::spawn(move || remote.reserve()).join().unwrap(); // from any thread
    assert!(!world.is_alive(e));
    world.flush(); // makes reserved ids alive now (spawn/insert also flush)
    assert_eq!(world.get::<Thrust>(inst).map(|t| t.0), Some(1.0));
    assert!(world.is_alive(e));
    // built in: IsA (transitive, traversable), Prefab, Disabled
    assert!(world.component_id::<IsA>().is_some() && world.component_id::<Prefab>().is_some());
    assert!(world.component_id::<Disabled>().is_some());
    fn send_sync_clone<T: Send + Sync + Clone>() {}
    send_sync_clone::<RemoteEntities>();
}

#[test]
fn inherit_is_the_default_and_read_only_terms_see_inherited_values() {
    #[derive(Component)]
    struct Plain(u32); // no bound needed: the default policy is "inherit"
    #[derive(Component)]
    struct Tag;
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Plain(1), Tag)).id();
    let inst = world.instantiate(prefab);
    assert_eq!(world.get::<Plain>(inst).map(|p| p.0), Some(1));
    assert_eq!(world.query::<(Entity, &Plain)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![inst]);
    assert_eq!(world.query::<(Entity, Has<Tag>)>().iter(&world).filter(|(e, _)| *e == inst).count(), 1);
    assert!(world.query::<Has<Tag>>().iter(&world).all(|has| has));
    assert_eq!(world.query_filtered::<Entity, With<Tag>>().iter(&world).count(), 1);
    assert_eq!(world.query_filtered::<Entity, Without<Plain>>().iter(&world).count(), 0);
    // `&mut T` terms and get_mut see only owned values.
    assert_eq!(world.query::<&mut Plain>().iter_mut(&mut world).count(), 0);
    assert!(world.get_mut::<Plain>(inst).is_none());
    // insert gives the instance its own value, remove uncovers the inherited one.
    world.entity_mut(inst).insert(Plain(5));
    assert_eq!(world.get::<Plain>(inst).map(|p| p.0), Some(5));
    world.get_mut::<Plain>(inst).unwrap().0 = 6;
    assert_eq!(world.get::<Plain>(prefab).map(|p| p.0), Some(1));
    world.entity_mut(inst).remove::<Plain>();
    assert_eq!(world.get::<Plain>(inst).map(|p| p.0), Some(1));
}

#[test]
fn override_copies_at_instantiate_time_and_a_value_in_the_same_spawn_wins() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Hull(100), Blueprint(7))).id();
    let a = world.instantiate(prefab);
    let b = world.spawn((Hull(5), IsA.pair(prefab))).id();
    assert_eq!(world.get::<Hull>(a), Some(&Hull(100)));
    assert_eq!(world.get::<Hull>(b), Some(&Hull(5)));
    world.get_mut::<Hull>(prefab).unwrap().0 = 1;
    assert_eq!(world.get::<Hull>(a), Some(&Hull(100)), "later edits of the prefab do not reach copies");
    assert_eq!(world.get::<Blueprint>(a), None, "dont_inherit");
}

#[test]
fn prefab_children_names_disabled_and_deletion() {
    let mut world = World::new();
    let prefab = world.spawn((Prefab, Disabled, Name::new("Fighter"), MaxSpeed(2.0), Hull(9))).id();
    let turret = world.spawn((Name::new("turret"), ChildOf.pair(prefab))).id();
    assert!(world.has::<Prefab>(turret), "children of a prefab get Prefab themselves");
    let inst = world.instantiate(prefab);
    assert!(world.has::<Disabled>(inst), "Disabled on a prefab is copied to new instances");
    assert!(world.get::<Name>(inst).is_none() && !world.has::<Prefab>(inst), "Name and Prefab are never inherited");
    let copy = world.children(inst).next().expect("prefab children are instantiated as children of the instance");
    assert_eq!(world.get::<Name>(copy).map(Name::as_str), Some("turret"));
    assert!(!world.has::<Prefab>(copy));
    world.despawn(prefab);
    assert!(!world.has_pair::<IsA>(inst, prefab));
    assert_eq!(world.get::<Hull>(inst), Some(&Hull(9)), "instances keep owned values");
    assert!(world.get::<MaxSpeed>(inst).is_none(), "and lose inherited ones");
    assert!(!world.is_alive(turret), "the prefab's children are deleted");
    assert!(world.is_alive(copy));
}

#[test]
fn is_a_is_transitive_and_reflexive_in_query_terms() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Name::new("Base"))).id();
    let middle = world.spawn((Prefab, IsA.pair(base))).id();
    let inst = world.instantiate(middle);
    let is_a = world.component_id::<IsA>().unwrap();
    let mut q = world.query_builder().pair(is_a, base).build().unwrap();
    let rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    assert_eq!(rows, vec![inst], "prefabs are hidden; the instance inherits from Base through Middle");
    let mut q = world.query_dsl("(IsA, Base), Prefab").unwrap();
    let mut rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    rows.sort();
    assert_eq!(rows, vec![base, middle], "(IsA, B) matches B itself and what inherits from B");
}

#[test]
fn with_several_bases_the_first_added_wins() {
    let mut world = World::new();
    let a = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let b = world.spawn((Prefab, MaxSpeed(2.0))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(a).add_pair::<IsA>(b).id();
    assert_eq!(world.get::<MaxSpeed>(inst).map(|s| s.0), Some(1.0));
}

#[test]
fn a_disabled_toggle_counts_as_absent_for_every_term() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1.0)).id();
    world.entity_mut(e).disable::<Thrust>();
    assert_eq!(world.query::<&Thrust>().iter(&world).count(), 0);
    assert_eq!(world.query::<Option<&Thrust>>().iter(&world).filter(Option::is_some).count(), 0);
    assert!(world.query::<Has<Thrust>>().iter(&world).all(|has| !has));
    assert_eq!(world.query_filtered::<Entity, Without<Thrust>>().iter(&world).collect::<Vec<_>>(), vec![e]);
}

#[test]
fn paths_and_sibling_names() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let crane = world.spawn((Name::new("crane"), ChildOf.pair(dock))).id();
    assert_eq!(world.lookup("station::dock::crane"), Some(crane));
    assert_eq!(world.path(crane).as_deref(), Some("station::dock::crane"));
    let unnamed = world.spawn(ChildOf.pair(station)).id();
    let leaf = world.spawn((Name::new("leaf"), ChildOf.pair(unnamed))).id();
    assert_eq!(world.path(leaf), None, "None unless e and its ancestors are all named");
    let other = world.spawn(ChildOf.pair(station)).id();
    let error = world.set_name(other, "dock").unwrap_err();
    assert_eq!(error, NameError::Taken { entity: other, name: "dock".into(), sibling: dock });
    let message = error.to_string();
    assert!(message.contains(&format!("{other:?}")) && message.contains(&format!("{dock:?}")), "{message}");
}

#[test]
fn entity_ranges_and_spawn_at() {
    let mut world = World::new();
    let before = world.spawn_empty().id();
    world.set_entity_range(500..502);
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    assert_eq!((a.index(), b.index()), (500, 501));
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn_empty();
    }))
    .unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("500..502"), "spawning past the end panics naming the range: {message}");
    assert!(world.is_alive(before), "entities from other ranges can still be looked up");
    let mut world = World::new();
    world.set_entity_range(1000..2000);
    let wanted = Entity::from_raw(1500, 3);
    assert_eq!(world.spawn_at(wanted).map(|e| e.id()).ok(), Some(wanted), "exactly that index and generation");
    assert!(world.spawn_at(Entity::from_raw(1500, 4)).is_err(), "an Err while an entity with that index is alive");
    assert!(world.spawn_at(Entity::from_raw(10, 0)).is_err(), "an Err outside the active range");
}
