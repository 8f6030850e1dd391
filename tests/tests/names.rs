//! Entity names and paths: `World::lookup` of names and `a::b::c` paths along
//! `ChildOf`, `World::path`, and paths in the query DSL.

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Fuel(u32);

#[test]
fn lookup_follows_paths_from_roots() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let crane = world.spawn((Name::new("crane"), ChildOf.pair(dock))).id();
    // Another `dock`, under another root: paths tell them apart.
    let outpost = world.spawn(Name::new("outpost")).id();
    let other_dock = world.spawn((Name::new("dock"), ChildOf.pair(outpost))).id();
    assert_eq!(world.lookup("station::dock"), Some(dock));
    assert_eq!(world.lookup("outpost::dock"), Some(other_dock));
    assert_eq!(world.lookup("station::dock::crane"), Some(crane));
    assert_eq!(world.lookup("outpost::dock::crane"), None);
    assert_eq!(world.lookup("station::crane"), None, "a path names every level");
    assert_eq!(world.lookup("dock::crane"), None, "a path starts at a root");
    // A single name: roots first, else the oldest entity with that name.
    assert_eq!(world.lookup("crane"), Some(crane));
    assert_eq!(world.lookup("dock"), Some(dock));
    let root_dock = world.spawn(Name::new("dock")).id();
    assert_eq!(world.lookup("dock"), Some(root_dock));
    // Paths back.
    assert_eq!(world.path(crane).as_deref(), Some("station::dock::crane"));
    assert_eq!(world.path(other_dock).as_deref(), Some("outpost::dock"));
    // A renamed or despawned ancestor changes the answer.
    world.entity_mut(dock).insert(Name::new("pier"));
    assert_eq!(world.lookup("station::pier::crane"), Some(crane));
    assert_eq!(world.path(crane).as_deref(), Some("station::pier::crane"));
    world.despawn(station);
    assert_eq!(world.lookup("station::pier::crane"), None);
    assert!(!world.is_alive(crane), "children go with their parent");
}

#[test]
fn path_needs_every_ancestor_named() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let child = world.spawn((Name::new("child"), ChildOf.pair(root))).id();
    assert_eq!(world.path(child), None);
    world.entity_mut(root).insert(Name::new("root"));
    assert_eq!(world.path(child).as_deref(), Some("root::child"));
    world.despawn(child);
    assert_eq!(world.path(child), None, "dead entities have no path");
}

#[test]
fn the_dsl_resolves_and_prints_paths() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let tank = world.spawn((Name::new("tank"), Fuel(40), ChildOf.pair(station))).id();
    world.spawn(Fuel(1));
    world.register_component::<Fuel>();
    let mut q = world.query_dsl("Fuel(station::tank)").unwrap();
    let rows: Vec<_> = q.iter(&world).map(|row| (row.source(0), row.get::<Fuel>(0).map(|f| f.0))).collect();
    assert_eq!(rows, [(tank, Some(40))]);
    assert_eq!(q.to_dsl(), "Fuel(station::tank)");
}
