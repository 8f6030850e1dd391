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

// ----- sibling names are unique ----------------------------------------------------

use ecs::system::CommandQueue;
use ecs::world::{NameError, PairError};
use ecs_tests::panic_message;

/// The expected clash message.
fn clash(entity: Entity, name: &str, sibling: Entity) -> String {
    NameError::Taken { entity, name: name.to_owned(), sibling }.to_string()
}

#[test]
fn set_name_refuses_a_name_a_sibling_has() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let other = world.spawn(ChildOf.pair(station)).id();
    let error = world.set_name(other, "dock").unwrap_err();
    assert_eq!(error, NameError::Taken { entity: other, name: "dock".into(), sibling: dock });
    let message = error.to_string();
    assert!(message.contains(&format!("{other:?}")) && message.contains(&format!("{dock:?}")), "{message}");
    assert!(world.get::<Name>(other).is_none(), "nothing changes on an error");
    // Among roots too.
    let root = world.spawn_empty().id();
    assert_eq!(world.set_name(root, "station").unwrap_err().to_string(), clash(root, "station", station));
    // Free names, renames and the same name elsewhere are fine.
    world.set_name(other, "crane").unwrap();
    world.set_name(other, "crane").unwrap();
    world.set_name(dock, "pier").unwrap();
    world.set_name(root, "dock").unwrap();
    assert_eq!(world.lookup("station::crane"), Some(other));
    world.despawn(root);
    assert_eq!(world.set_name(root, "x"), Err(NameError::NotAlive(root)));
    world.check_invariants();
}

#[test]
fn inserting_a_clashing_name_panics_and_keeps_the_old_one() {
    let mut world = World::new();
    let a = world.spawn(Name::new("tank")).id();
    let b = world.spawn(Name::new("pump")).id();
    let message = panic_message(|| world.entity_mut(b).insert(Name::new("tank")).id());
    assert_eq!(message, clash(b, "tank", a));
    assert_eq!(world.get::<Name>(b), Some(&Name::new("pump")));
    let unnamed = world.spawn(Fuel(1)).id();
    let message = panic_message(|| world.insert(unnamed, (Name::new("tank"), Fuel(2))));
    assert_eq!(message, clash(unnamed, "tank", a));
    assert_eq!(world.get::<Name>(unnamed), None);
    assert_eq!(world.get::<Fuel>(unnamed), Some(&Fuel(2)), "the rest of the bundle stays");
    assert_eq!(world.lookup("tank"), Some(a));
    world.check_invariants();
}

#[test]
fn a_bundle_bringing_a_clashing_name_and_parent_is_undone_whole() {
    let mut world = World::new();
    let (a, b) = (world.spawn(Name::new("a")).id(), world.spawn(Name::new("b")).id());
    let moved = world.spawn((Name::new("x"), ChildOf.pair(a))).id();
    let taken = world.spawn((Name::new("y"), ChildOf.pair(b))).id();
    let message = panic_message(|| world.insert(moved, (Name::new("y"), ChildOf.pair(b))));
    assert_eq!(message, clash(moved, "y", taken));
    assert_eq!(world.get::<Name>(moved), Some(&Name::new("x")));
    assert_eq!(world.parent(moved), Some(a));
    // The same bundle with a free name moves it in one go.
    world.insert(moved, (Name::new("z"), ChildOf.pair(b)));
    assert_eq!(world.lookup("b::z"), Some(moved));
    world.check_invariants();
}

#[test]
fn spawning_a_clashing_sibling_panics_and_spawns_nothing() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let count = world.entity_count();
    let message = panic_message(|| world.spawn((Name::new("dock"), ChildOf.pair(station))).id());
    assert!(message.contains(&format!("cannot be named \"dock\": its sibling {dock:?}")), "{message}");
    assert_eq!(world.entity_count(), count);
    let message = panic_message(|| world.spawn(Name::new("station")).id());
    assert!(message.contains(&format!("its sibling {station:?}")), "{message}");
    let message = panic_message(|| world.spawn_batch([(Name::new("a"),), (Name::new("a"),)]).count());
    assert!(message.contains("\"a\""), "{message}");
    assert_eq!(world.entity_count(), count + 1, "the first of the batch stays");
    // A root named like a child, or like a component, is fine (a registered
    // component comes first in `lookup`; the built-ins, such as `Prefab`,
    // live apart: a root of the user's named like one comes first).
    world.spawn(Name::new("dock"));
    let fuel = world.register_component::<Fuel>();
    world.spawn(Name::new("Fuel"));
    assert_eq!(world.lookup("Fuel"), Some(fuel));
    let prefab = world.spawn(Name::new("Prefab")).id();
    assert_eq!(world.lookup("Prefab"), Some(prefab));
    world.check_invariants();
}

#[test]
fn adding_or_removing_a_parent_that_would_clash_is_refused() {
    let mut world = World::new();
    let station = world.spawn(Name::new("station")).id();
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let loose = world.spawn(Name::new("dock")).id();
    let error = world.try_add_pair::<ChildOf>(loose, station).unwrap_err();
    assert_eq!(error, PairError::NameTaken(NameError::Taken { entity: loose, name: "dock".into(), sibling: dock }));
    let message = panic_message(|| world.entity_mut(loose).add_pair::<ChildOf>(station).id());
    assert!(message.contains(&clash(loose, "dock", dock)), "{message}");
    assert_eq!(world.parent(loose), None);
    // Leaving the parent would make `dock` a second root "dock".
    let message = panic_message(|| world.entity_mut(dock).remove_pair::<ChildOf>(station).id());
    assert!(message.contains(&clash(dock, "dock", loose)), "{message}");
    assert_eq!(world.parent(dock), Some(station));
    // Once the name is free, both work.
    world.set_name(loose, "spare").unwrap();
    world.entity_mut(loose).add_pair::<ChildOf>(station);
    assert_eq!(world.lookup("station::spare"), Some(loose));
    world.entity_mut(dock).remove_pair::<ChildOf>(station);
    assert_eq!(world.lookup("dock"), Some(dock));
    world.check_invariants();
}

#[test]
fn commands_naming_a_clashing_sibling_panic_when_applied() {
    let mut world = World::new();
    let first = world.spawn(Name::new("probe")).id();
    let second = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(second).insert(Name::new("probe"));
    let message = panic_message(|| queue.apply(&mut world));
    assert_eq!(message, clash(second, "probe", first));
    assert_eq!(world.get::<Name>(second), None);
    world.check_invariants();
}

#[test]
fn the_name_index_follows_renames_removals_and_despawns() {
    let mut world = World::new();
    let e = world.spawn(Name::new("a")).id();
    assert_eq!(world.lookup("a"), Some(e));
    world.entity_mut(e).insert(Name::new("b"));
    assert_eq!(world.lookup("a"), None);
    assert_eq!(world.lookup("b"), Some(e));
    world.entity_mut(e).remove::<Name>();
    assert_eq!(world.lookup("b"), None);
    world.set_name(e, "c").unwrap();
    let other = world.spawn(Name::new("d")).id();
    assert_eq!(world.lookup("c"), Some(e));
    world.despawn(e);
    assert_eq!(world.lookup("c"), None);
    world.set_name(other, "c").unwrap();
    assert_eq!(world.lookup("c"), Some(other));
    assert_eq!(world.lookup("d"), None);
    // Many named roots: each check looks at the entities with one name.
    let many: Vec<Entity> = (0..2000).map(|i| world.spawn(Name::new(format!("ship{i}"))).id()).collect();
    assert_eq!(world.lookup("ship1234"), Some(many[1234]));
    let parent = world.spawn(Name::new("fleet")).id();
    let child = world.spawn((Name::new("ship7"), ChildOf.pair(parent))).id();
    assert_eq!(world.lookup("fleet::ship7"), Some(child));
    assert_eq!(world.lookup("ship7"), Some(many[7]), "a root first");
}

/// Names holding colons or backslashes: `path` escapes what could be read as
/// a separator, and `lookup` of the path finds the entity again, at the root
/// and under parents with such names.
#[test]
fn paths_of_names_with_colons_and_backslashes_look_their_entity_up() {
    let mut world = World::new();
    let tricky = ["a::b", "a:", ":b", "a:b", "a:::b", "back\\slash", "\\", ":", "::", "a\\:b", "end\\", "plain"];
    for (i, name) in tricky.iter().enumerate() {
        let root = world.spawn(Name::new(*name)).id();
        let path = world.path(root).unwrap();
        assert_eq!(world.lookup(&path), Some(root), "root {name:?} (path {path:?})");
        // A child and grandchild with the other tricky names.
        let child_name = tricky[(i + 3) % tricky.len()];
        let child = world.spawn((Name::new(child_name), ChildOf.pair(root))).id();
        let grandchild = world.spawn((Name::new(*name), ChildOf.pair(child))).id();
        for e in [child, grandchild] {
            let path = world.path(e).unwrap();
            assert_eq!(world.lookup(&path), Some(e), "{path:?}");
        }
    }
    assert_eq!(world.path(world.lookup("plain").unwrap()).as_deref(), Some("plain"));
    let a_b = world.lookup("a:b").unwrap();
    assert_eq!(world.path(a_b).as_deref(), Some("a:b"), "a lone colon is not escaped");
    let escaped = world.lookup("a\\:\\:b").unwrap();
    assert_eq!(world.get::<Name>(escaped).map(Name::as_str), Some("a::b"));
    assert_eq!(world.path(escaped).as_deref(), Some("a\\:\\:b"));
    let slash = world.lookup("back\\slash").unwrap();
    assert_eq!(world.path(slash).as_deref(), Some("back\\slash"), "a lone backslash is not escaped");
    world.check_invariants();
}

/// A name clash of a bundle spawned through `Commands` despawns the new
/// entity, as `World::spawn` does (Flecs' `init_w_childof_name_twice_deferred`).
#[test]
fn a_commands_spawn_refused_for_its_name_leaves_nothing_behind() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("fleet")).id();
    world.spawn((Name::new("ship"), ChildOf.pair(parent)));
    let message = panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            commands.spawn((Name::new("ship"), ChildOf.pair(parent)));
        });
    });
    assert!(message.contains("ship"), "{message}");
    assert_eq!(world.entity_count(), 2);
    // An insert through commands into an existing entity keeps it (its old
    // name comes back), as `World::insert` does.
    let other = world.spawn((Name::new("other"), ChildOf.pair(parent))).id();
    let message = panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            commands.entity(other).insert(Name::new("ship"));
        });
    });
    assert!(message.contains("ship"), "{message}");
    assert!(world.is_alive(other));
    assert_eq!(world.get::<Name>(other).map(Name::as_str), Some("other"));
    // The next spawn through commands works.
    let fine = world
        .run_system_once(move |mut commands: Commands| commands.spawn((Name::new("tug"), ChildOf.pair(parent))).id());
    assert_eq!(world.lookup("fleet::tug"), Some(fine));
    world.check_invariants();
}
