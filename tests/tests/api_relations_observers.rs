//! Acceptance tests for API.md "Relationships", "Observers and events" and
//! "Inspecting a world", written claim by claim against the names and shapes
//! API.md shows, plus a few Flecs (Pairs, OnDelete, Observer, Hierarchies) and
//! bevy_ecs (`observer::tests`) tests mapped onto those names.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::prelude::*;

// ----- types, as API.md spells them ---------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug)]
struct Enemy;

#[derive(Component, Debug, PartialEq)]
struct Health(f32);

#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Relationship, Debug)] // tag relationship: pairs carry no data
struct Likes;

#[derive(Relationship, Debug, PartialEq)] // pairs carry an Eats value
struct Eats {
    amount: u32,
}

#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

#[derive(Relationship, Debug)]
#[relationship(exclusive, traversable, acyclic, on_delete = "panic", on_delete_target = "remove")]
struct Orbits;

#[derive(Relationship, Debug)]
#[relationship(on_delete = "delete")]
struct MemberOf;

#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Anchored;

#[derive(Relationship, Debug)]
#[relationship(acyclic)]
struct DependsOn;

#[derive(Relationship, Debug)]
#[relationship(traversable)]
struct Inside;

#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct Holds;

#[derive(Event)]
struct Explode {
    radius: f32,
}

#[derive(Event)]
struct Ping;

#[derive(Resource, Default)]
struct Log(Vec<String>);

#[derive(Resource, Default)]
struct Seen(Vec<Entity>);

#[derive(Resource, Default)]
struct Count(u32);

#[derive(Resource, Default)]
struct Radii(Vec<f32>);

// ----- helpers ---------------------------------------------------------------------------

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Seen>();
    world.init_resource::<Count>();
    world.init_resource::<Radii>();
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn set<I: IntoIterator<Item = Entity>>(items: I) -> BTreeSet<Entity> {
    items.into_iter().collect()
}

fn spawn_n<const N: usize>(world: &mut World) -> [Entity; N] {
    core::array::from_fn(|_| world.spawn_empty().id())
}

// =========================================================================================
// Relationships
// =========================================================================================

#[test]
fn tag_relationship_pair_adds_no_column() {
    let mut world = World::new();
    let [alice, bob] = spawn_n(&mut world);
    world.entity_mut(alice).insert(Position::default()).add_pair::<Likes>(bob);
    assert!(world.has_pair::<Likes>(alice, bob));
    let report = world.inspect_world();
    let archetype = report
        .archetypes
        .iter()
        .find(|a| a.entities == 1 && a.components.iter().any(|c| c.starts_with("(Likes")))
        .expect("the archetype holding (Likes, bob)");
    // Position has a column; the tag pair has none.
    assert_eq!(archetype.columns, 1, "{archetype:?}");
}

#[test]
fn data_relationship_pair_carries_its_value() {
    let mut world = World::new();
    let [alice, apples, pears] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 2 }, apples);
    world.entity_mut(alice).insert_pair(Eats { amount: 5 }, pears);
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 2 }));
    assert_eq!(world.get_pair::<Eats>(alice, pears), Some(&Eats { amount: 5 }));
    assert!(world.has_pair::<Eats>(alice, apples));
}

#[test]
fn get_pair_is_none_for_missing_pairs_and_other_relationships() {
    let mut world = World::new();
    let [alice, apples, pears] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 2 }, apples);
    let missing: Option<&Eats> = world.get_pair::<Eats>(alice, pears);
    assert!(missing.is_none());
    assert!(world.get_pair::<Eats>(apples, alice).is_none());
    assert!(!world.has_pair::<Likes>(alice, apples));
}

#[test]
fn has_pair_is_specific_to_relationship_and_target() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob);
    let yes: bool = world.has_pair::<Likes>(alice, bob);
    assert!(yes);
    assert!(!world.has_pair::<Likes>(alice, carol));
    assert!(!world.has_pair::<Likes>(bob, alice), "pairs are directed");
    assert!(!world.has_pair::<DependsOn>(alice, bob));
}

#[test]
fn add_pair_and_insert_pair_chain_on_entity_mut() {
    let mut world = World::new();
    let [alice, bob, carol, apples] = spawn_n(&mut world);
    world
        .entity_mut(alice)
        .add_pair::<Likes>(bob)
        .add_pair::<Likes>(carol)
        .insert_pair(Eats { amount: 3 }, apples)
        .insert(Position { x: 1.0, y: 0.0 });
    assert_eq!(set(world.targets::<Likes>(alice)), set([bob, carol]));
    assert_eq!(world.get_pair::<Eats>(alice, apples).map(|e| e.amount), Some(3));
    assert_eq!(world.get::<Position>(alice), Some(&Position { x: 1.0, y: 0.0 }));
}

#[test]
fn remove_pair_removes_only_that_pair() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    world.entity_mut(alice).remove_pair::<Likes>(bob);
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(world.has_pair::<Likes>(alice, carol));
    assert!(world.is_alive(bob), "removing a pair does not touch its target");
}

#[test]
fn remove_pair_of_a_data_relationship_drops_the_value() {
    let mut world = World::new();
    let [alice, apples] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 1 }, apples);
    world.entity_mut(alice).remove_pair::<Eats>(apples);
    assert!(world.get_pair::<Eats>(alice, apples).is_none());
    assert!(!world.has_pair::<Eats>(alice, apples));
}

#[test]
fn targets_iterates_every_target_and_is_empty_without_pairs() {
    let mut world = World::new();
    let [alice, bob, carol, dave] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).add_pair::<Likes>(dave);
    let targets: Vec<Entity> = world.targets::<Likes>(alice).collect();
    assert_eq!(targets.len(), 3);
    assert_eq!(set(targets), set([bob, carol, dave]));
    assert_eq!(world.targets::<Likes>(bob).count(), 0);
    assert_eq!(world.targets::<Eats>(alice).count(), 0);
}

#[test]
fn target_returns_the_only_target_of_child_of() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    let target: Option<Entity> = world.target::<ChildOf>(child);
    assert_eq!(target, Some(parent));
    assert_eq!(world.target::<ChildOf>(parent), None);
}

#[test]
fn target_of_a_non_exclusive_relationship_is_one_of_its_targets() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    let first = world.target::<Likes>(alice).expect("a target");
    assert!(first == bob || first == carol);
    assert_eq!(Some(first), world.targets::<Likes>(alice).next(), "target is the first of targets");
}

#[test]
fn spawn_bundle_with_pairs_adds_components_and_pairs() {
    let mut world = World::new();
    let [parent, apples] = spawn_n(&mut world);
    let e = world.spawn((Position::default(), ChildOf.pair(parent), Eats { amount: 2 }.pair(apples))).id();
    assert_eq!(world.get::<Position>(e), Some(&Position::default()));
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.get_pair::<Eats>(e, apples), Some(&Eats { amount: 2 }));
    assert_eq!(world.target::<ChildOf>(e), Some(parent));
}

#[test]
fn spawn_bundle_with_pairs_is_one_move_observers_see_every_pair() {
    // "pairs in a bundle: one move": when the OnAdd observers of the bundle's
    // component run, the entity already has every pair of the bundle, and no
    // archetype other than the final one ever held the entity.
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnAdd, Position>,
         likes: Query<Pair<Likes>>,
         eats: Query<Pair<&Eats>>,
         parent: Query<Pair<ChildOf>>,
         mut log: ResMut<Log>| {
            let e = t.entity();
            log.0.push(format!(
                "likes={} eats={:?} parent={}",
                likes.get(e).is_ok(),
                eats.get(e).ok().map(|(_, v)| v.amount),
                parent.get(e).is_ok()
            ));
        },
    );
    let [parent, bob, apples] = spawn_n(&mut world);
    let e =
        world.spawn((Position::default(), ChildOf.pair(parent), Likes.pair(bob), Eats { amount: 2 }.pair(apples))).id();
    assert_eq!(take_log(&mut world), vec!["likes=true eats=Some(2) parent=true".to_owned()]);
    assert!(world.has_pair::<Likes>(e, bob) && world.has_pair::<ChildOf>(e, parent));
    let mut added = world.query_filtered::<Entity, Added<Position>>();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    let populated = world
        .inspect_world()
        .archetypes
        .iter()
        .filter(|a| a.components.iter().any(|c| c == "Position") && a.entities > 0)
        .count();
    assert_eq!(populated, 1);
}

#[test]
fn spawn_bundle_with_pair_fires_on_add_with_the_whole_bundle() {
    let mut world = log_world();
    world.add_observer(
        |trigger: Trigger<OnAdd, Position>, world_q: Query<(), WithPair<ChildOf>>, mut seen: ResMut<Seen>| {
            if world_q.get(trigger.entity()).is_ok() {
                seen.0.push(trigger.entity());
            }
        },
    );
    let parent = world.spawn_empty().id();
    let e = world.spawn((Position::default(), ChildOf.pair(parent))).id();
    assert_eq!(world.resource::<Seen>().0, vec![e], "the OnAdd observer sees the pair already there");
}

#[test]
fn exclusive_add_pair_replaces_the_previous_parent() {
    let mut world = World::new();
    let [p1, p2] = spawn_n(&mut world);
    let child = world.spawn(ChildOf.pair(p1)).id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    assert!(!world.has_pair::<ChildOf>(child, p1));
    assert!(world.has_pair::<ChildOf>(child, p2));
    assert_eq!(world.targets::<ChildOf>(child).collect::<Vec<_>>(), vec![p2]);
    assert_eq!(world.children(p1).count(), 0);
    assert_eq!(world.children(p2).collect::<Vec<_>>(), vec![child]);
}

#[test]
fn exclusive_replacement_is_one_move_without_passing_through_an_archetype_without_the_pair() {
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<OnRemove, Pair<Holds>>, q: Query<&Position>, mut log: ResMut<Log>| {
        // during the replacement, the entity still has its components
        log.0.push(format!("remove pos={}", q.get(trigger.entity()).is_ok()));
    });
    let [a, b] = spawn_n(&mut world);
    let e = world.spawn((Position::default(), Holds.pair(a))).id();
    let archetypes = world.stats().archetypes;
    world.entity_mut(e).add_pair::<Holds>(b);
    assert_eq!(world.targets::<Holds>(e).collect::<Vec<_>>(), vec![b]);
    assert_eq!(take_log(&mut world), vec!["remove pos=true".to_owned()]);
    // one new archetype: {Position, (Holds, b)}; no {Position} detour is created
    assert_eq!(world.stats().archetypes, archetypes + 1, "{}", world.archetype_graph_dot());
}

#[test]
fn exclusive_custom_relationship_has_at_most_one_target() {
    let mut world = World::new();
    let [ship, s1, s2, s3] = spawn_n(&mut world);
    world.entity_mut(ship).add_pair::<DockedTo>(s1);
    world.entity_mut(ship).add_pair::<DockedTo>(s2);
    world.entity_mut(ship).add_pair::<DockedTo>(s3);
    assert_eq!(world.targets::<DockedTo>(ship).collect::<Vec<_>>(), vec![s3]);
    assert_eq!(world.target::<DockedTo>(ship), Some(s3));
}

#[test]
fn non_exclusive_relationship_keeps_every_target() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Inside>(b);
    world.entity_mut(a).add_pair::<Inside>(c);
    assert_eq!(world.targets::<Inside>(a).count(), 2);
}

#[test]
fn despawn_parent_despawns_children_recursively() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    let grandchild = world.spawn(ChildOf.pair(child)).id();
    let other = world.spawn(Position::default()).id();
    assert!(world.despawn(parent));
    assert!(!world.is_alive(parent));
    assert!(!world.is_alive(child));
    assert!(!world.is_alive(grandchild));
    assert!(world.is_alive(other));
    assert_eq!(world.entity_count(), 1);
}

#[test]
fn despawn_target_removes_pairs_by_default_and_keeps_holders() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).insert(Position::default());
    world.despawn(bob);
    assert!(world.is_alive(alice));
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), vec![carol]);
    assert!(world.has::<Position>(alice));
}

#[test]
fn despawn_target_removes_data_pairs_by_default() {
    let mut world = World::new();
    let [alice, apples] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 4 }, apples);
    world.despawn(apples);
    assert!(world.is_alive(alice));
    assert_eq!(world.targets::<Eats>(alice).count(), 0);
}

#[test]
fn on_delete_target_delete_on_a_custom_relationship_despawns_holders() {
    let mut world = World::new();
    let station = world.spawn_empty().id();
    let ship = world.spawn_empty().add_pair::<DockedTo>(station).id();
    let crew = world.spawn(ChildOf.pair(ship)).id();
    let bystander = world.spawn_empty().add_pair::<Likes>(station).id();
    world.despawn(station);
    assert!(!world.is_alive(ship), "DockedTo: on_delete_target = delete");
    assert!(!world.is_alive(crew), "and the holder's children with it");
    assert!(world.is_alive(bystander), "Likes: default remove");
    assert_eq!(world.targets::<Likes>(bystander).count(), 0);
}

#[test]
fn on_delete_target_remove_on_an_exclusive_traversable_relationship_keeps_the_holder() {
    let mut world = World::new();
    let sun = world.spawn_empty().id();
    let planet = world.spawn_empty().add_pair::<Orbits>(sun).id();
    world.despawn(sun);
    assert!(world.is_alive(planet));
    assert_eq!(world.target::<Orbits>(planet), None);
}

#[test]
fn on_delete_target_panic_refuses_before_anything_changes() {
    let mut world = World::new();
    let rock = world.spawn(Position::default()).id();
    let boat = world.spawn_empty().add_pair::<Anchored>(rock).id();
    let fan = world.spawn_empty().add_pair::<Likes>(rock).id();
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(rock)));
    assert!(result.is_err(), "despawning a target of an on_delete_target = panic pair panics");
    assert!(world.is_alive(rock));
    assert!(world.has::<Position>(rock));
    assert!(world.has_pair::<Anchored>(boat, rock));
    assert!(world.has_pair::<Likes>(fan, rock), "nothing changed, not even other pairs");
}

#[test]
fn component_id_of_a_relationship_is_an_entity() {
    let mut world = World::new();
    let [alice, bob] = spawn_n(&mut world);
    assert_eq!(world.component_id::<Likes>(), None, "not yet registered");
    world.entity_mut(alice).add_pair::<Likes>(bob);
    let likes: Entity = world.component_id::<Likes>().unwrap();
    assert!(world.is_alive(likes));
    assert_ne!(likes, alice);
    assert_ne!(likes, bob);
}

#[test]
fn despawning_a_relationship_entity_removes_its_pairs_by_default() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).insert(Position::default());
    world.entity_mut(carol).add_pair::<Likes>(alice);
    assert!(world.despawn(world.component_id::<Likes>().unwrap()));
    assert!(world.is_alive(alice) && world.is_alive(bob) && world.is_alive(carol));
    assert!(!world.has_pair::<Likes>(alice, bob));
    assert!(!world.has_pair::<Likes>(carol, alice));
    assert!(world.has::<Position>(alice));
    assert_eq!(world.entity_count(), 3);
}

#[test]
fn despawning_an_on_delete_delete_relationship_despawns_every_holder() {
    let mut world = World::new();
    let guild = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<MemberOf>(guild).id();
    let b = world.spawn(Position::default()).add_pair::<MemberOf>(guild).id();
    let member_of = world.component_id::<MemberOf>().unwrap();
    world.despawn(member_of);
    assert!(!world.is_alive(a));
    assert!(!world.is_alive(b));
    assert!(world.is_alive(guild), "the target is not a holder");
}

#[test]
fn despawning_an_on_delete_panic_relationship_panics_before_anything_changes() {
    let mut world = World::new();
    let sun = world.spawn_empty().id();
    let planet = world.spawn_empty().add_pair::<Orbits>(sun).id();
    let orbits = world.component_id::<Orbits>().unwrap();
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(orbits)));
    assert!(result.is_err());
    assert!(world.is_alive(orbits));
    assert!(world.has_pair::<Orbits>(planet, sun));
}

#[test]
fn despawning_an_unused_panic_relationship_is_refused() {
    // Flecs (`flecs_simple_delete`, OnDelete.c `id_throw_no_instances`):
    // an entity with `(OnDelete, Panic)` is never deleted, held or not.
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Orbits>(b);
    world.entity_mut(a).remove_pair::<Orbits>(b);
    let orbits = world.component_id::<Orbits>().unwrap();
    let error = world.try_despawn(orbits).unwrap_err();
    assert_eq!((error.despawned, error.holders.clone()), (orbits, vec![]));
    assert!(error.to_string().contains("on_delete = \"panic\""), "{error}");
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(orbits)));
    assert!(result.is_err());
    assert!(world.is_alive(orbits));
    world.entity_mut(a).add_pair::<Orbits>(b);
    assert!(world.has_pair::<Orbits>(a, b), "the relationship still works");
}

#[test]
fn relationship_entities_are_not_counted_as_user_entities() {
    let mut world = World::new();
    let [alice, bob] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).insert_pair(Eats { amount: 1 }, bob);
    assert_eq!(world.entity_count(), 2);
    let all: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
    assert_eq!(set(all), set([alice, bob]));
}

#[test]
fn acyclic_relationship_refuses_a_cycle() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<DependsOn>(b);
    world.entity_mut(b).add_pair::<DependsOn>(c);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(c).add_pair::<DependsOn>(a);
    }));
    assert!(result.is_err(), "closing a cycle of an acyclic relationship is refused");
    assert!(!world.has_pair::<DependsOn>(c, a));
    assert!(world.has_pair::<DependsOn>(a, b) && world.has_pair::<DependsOn>(b, c));
}

#[test]
fn non_acyclic_relationship_allows_a_cycle() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b);
    world.entity_mut(b).add_pair::<Likes>(a);
    assert!(world.has_pair::<Likes>(a, b) && world.has_pair::<Likes>(b, a));
    world.despawn(a);
    assert_eq!(world.targets::<Likes>(b).count(), 0);
}

// ----- query terms ----------------------------------------------------------------------

#[test]
fn pair_term_yields_target_per_pair() {
    let mut world = World::new();
    let [alice, bob, carol] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol);
    world.entity_mut(bob).add_pair::<Likes>(carol);
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    let rows: BTreeSet<(Entity, Entity)> = q.iter(&world).collect();
    assert_eq!(rows, BTreeSet::from([(alice, bob), (alice, carol), (bob, carol)]));
    assert_eq!(q.iter(&world).count(), 3);
}

#[test]
fn pair_ref_term_yields_target_and_value() {
    let mut world = World::new();
    let [alice, apples, pears] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 2 }, apples).insert_pair(Eats { amount: 7 }, pears);
    let mut q = world.query::<Pair<&Eats>>();
    let mut rows: Vec<(Entity, u32)> = q.iter(&world).map(|(target, eats)| (target, eats.amount)).collect();
    rows.sort();
    let mut expected = vec![(apples, 2), (pears, 7)];
    expected.sort();
    assert_eq!(rows, expected);
}

#[test]
fn pair_mut_term_yields_mut_and_writes() {
    let mut world = World::new();
    let [alice, apples, pears] = spawn_n(&mut world);
    world.entity_mut(alice).insert_pair(Eats { amount: 2 }, apples).insert_pair(Eats { amount: 7 }, pears);
    let mut q = world.query::<Pair<&mut Eats>>();
    for (target, mut eats) in q.iter_mut(&mut world) {
        let eats: &mut Mut<Eats> = &mut eats;
        if target == apples {
            eats.amount += 10;
        }
    }
    assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 12 }));
    assert_eq!(world.get_pair::<Eats>(alice, pears), Some(&Eats { amount: 7 }));
}

#[test]
fn with_pair_filter_matches_entities_with_any_pair_once() {
    let mut world = World::new();
    let [bob, carol] = spawn_n(&mut world);
    let a = world.spawn(Position { x: 1.0, y: 0.0 }).add_pair::<Likes>(bob).add_pair::<Likes>(carol).id();
    let _b = world.spawn(Position { x: 2.0, y: 0.0 }).id();
    let c = world.spawn(Position { x: 3.0, y: 0.0 }).add_pair::<Likes>(bob).id();
    let mut q = world.query_filtered::<Entity, WithPair<Likes>>();
    let mut rows: Vec<Entity> = q.iter(&world).collect();
    rows.sort();
    let mut expected = vec![a, c];
    expected.sort();
    assert_eq!(rows, expected, "one row per entity, not per pair");
}

#[test]
fn up_term_reads_nearest_ancestor_excluding_self() {
    let mut world = World::new();
    let root = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let mid = world.spawn(ChildOf.pair(root)).id(); // no Position
    let leaf = world.spawn((Position { x: 3.0, y: 0.0 }, ChildOf.pair(mid))).id();
    let mid2 = world.spawn((Position { x: 2.0, y: 0.0 }, ChildOf.pair(root))).id();
    let leaf2 = world.spawn((Position { x: 4.0, y: 0.0 }, ChildOf.pair(mid2))).id();
    let mut q = world.query_filtered::<(&Position, Up<ChildOf, &Position>), WithPair<ChildOf>>();
    let mut rows: Vec<(f32, f32)> = q.iter(&world).map(|(own, up)| (own.x, up.x)).collect();
    rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
    // leaf: own 3, nearest ancestor with Position is root (1); mid2: 2 from root; leaf2: 4 from mid2
    assert_eq!(rows, vec![(2.0, 1.0), (3.0, 1.0), (4.0, 2.0)]);
    let _ = (leaf, leaf2);
}

#[test]
fn up_term_does_not_match_roots_even_with_the_component() {
    let mut world = World::new();
    let root = world.spawn(Position { x: 1.0, y: 0.0 }).id();
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
    assert_eq!(q.iter(&world).count(), 0, "the entity itself is excluded");
    let child = world.spawn(ChildOf.pair(root)).id();
    let rows: Vec<(Entity, f32)> = q.iter(&world).map(|(e, p)| (e, p.x)).collect();
    assert_eq!(rows, vec![(child, 1.0)]);
}

#[test]
fn runtime_target_with_pair_builder_on_query_state() {
    let mut world = World::new();
    let [bob, carol] = spawn_n(&mut world);
    let a = world.spawn(Position { x: 1.0, y: 0.0 }).add_pair::<Likes>(bob).id();
    let _b = world.spawn(Position { x: 2.0, y: 0.0 }).add_pair::<Likes>(carol).id();
    let _c = world.spawn(Position { x: 3.0, y: 0.0 }).id();
    let mut q = world.query::<&Position>().with_pair::<Likes>(bob);
    let xs: Vec<f32> = q.iter(&world).map(|p| p.x).collect();
    assert_eq!(xs, vec![1.0]);
    world.entity_mut(a).remove_pair::<Likes>(bob);
    assert_eq!(q.iter(&world).count(), 0);
}

#[test]
fn remove_pair_wildcard_removes_every_pair_of_the_relationship() {
    let mut world = World::new();
    let [alice, bob, carol, apples] = spawn_n(&mut world);
    world.entity_mut(alice).add_pair::<Likes>(bob).add_pair::<Likes>(carol).insert_pair(Eats { amount: 1 }, apples);
    world.entity_mut(alice).remove_pair::<Likes>(Entity::WILDCARD);
    assert_eq!(world.targets::<Likes>(alice).count(), 0);
    assert!(world.has_pair::<Eats>(alice, apples), "other relationships stay");
}

// ----- hierarchy helpers ---------------------------------------------------------------

#[test]
fn with_children_spawns_children_of_the_entity() {
    let mut world = World::new();
    let mut kids = Vec::new();
    let ship = world
        .spawn(Position::default())
        .with_children(|p| {
            kids.push(p.spawn(Enemy).id());
            kids.push(p.spawn(Velocity::default()).id());
        })
        .id();
    for &k in &kids {
        assert!(world.has_pair::<ChildOf>(k, ship));
    }
    assert_eq!(set(world.children(ship)), set(kids.iter().copied()));
}

#[test]
fn ancestors_walk_up_nearest_first() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(ChildOf.pair(a)).id();
    let c = world.spawn(ChildOf.pair(b)).id();
    assert_eq!(world.ancestors(c).collect::<Vec<_>>(), vec![b, a]);
    assert_eq!(world.ancestors(a).count(), 0);
}

#[test]
fn descendants_are_breadth_first() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let c1 = world.spawn(ChildOf.pair(root)).id();
    let g1 = world.spawn(ChildOf.pair(c1)).id();
    let c2 = world.spawn(ChildOf.pair(root)).id();
    let g2 = world.spawn(ChildOf.pair(c2)).id();
    let d: Vec<Entity> = world.descendants(root).collect();
    assert_eq!(d.len(), 4);
    assert_eq!(set(d[..2].iter().copied()), set([c1, c2]), "children before grandchildren: {d:?}");
    assert_eq!(set(d[2..].iter().copied()), set([g1, g2]));
}

#[test]
fn relations_param_reads_sources_target_ancestors_descendants() {
    #[derive(Resource, Default)]
    struct Out(Vec<usize>, Option<Entity>);
    let mut world = World::new();
    world.init_resource::<Out>();
    let root = world.spawn(Enemy).id();
    let child = world.spawn(ChildOf.pair(root)).id();
    let grand = world.spawn(ChildOf.pair(child)).id();
    world.run_system_once(move |h: Relations<ChildOf>, mut out: ResMut<Out>| {
        out.0 = vec![h.sources(root).count(), h.ancestors(grand).count(), h.descendants(root).count()];
        out.1 = h.target(grand);
    });
    let out = world.resource::<Out>();
    assert_eq!(out.0, vec![1, 2, 2]);
    assert_eq!(out.1, Some(child));
}

#[test]
fn commands_with_children_creates_child_of_pairs() {
    let mut world = World::new();
    let ship = world.run_system_once(|mut commands: Commands| {
        commands
            .spawn(Position::default())
            .with_children(|p| {
                p.spawn(Enemy);
                p.spawn(Enemy);
            })
            .id()
    });
    assert_eq!(world.children(ship).count(), 2);
    for child in world.children(ship).collect::<Vec<_>>() {
        assert!(world.has::<Enemy>(child));
        assert_eq!(world.target::<ChildOf>(child), Some(ship));
    }
}

// ----- ported Flecs tests ---------------------------------------------------------------

/// Flecs Pairs: add the same pair twice; it is there once.
#[test]
fn flecs_pairs_add_pair_twice_is_idempotent() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b).add_pair::<Likes>(b);
    assert_eq!(world.targets::<Likes>(a).count(), 1);
    let mut q = world.query::<Pair<Likes>>();
    assert_eq!(q.iter(&world).count(), 1);
}

/// Flecs Pairs: a relationship can have the same entity as both source and target
/// of different pairs; each pair is independent.
#[test]
fn flecs_pairs_entity_is_both_source_and_target() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b);
    world.entity_mut(b).add_pair::<Likes>(c);
    world.despawn(b);
    assert!(!world.has_pair::<Likes>(a, b));
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    assert!(world.is_alive(c));
}

/// Flecs OnDelete: deleting a parent with nested children and sibling
/// components deletes the whole subtree but no other tree.
#[test]
fn flecs_on_delete_target_delete_only_deletes_its_subtree() {
    let mut world = World::new();
    let r1 = world.spawn_empty().id();
    let r2 = world.spawn_empty().id();
    let c1 = world.spawn((Position::default(), ChildOf.pair(r1))).id();
    let c2 = world.spawn((Position::default(), ChildOf.pair(r2))).id();
    let g1 = world.spawn((Velocity::default(), ChildOf.pair(c1))).id();
    world.despawn(r1);
    assert!(!world.is_alive(c1) && !world.is_alive(g1));
    assert!(world.is_alive(r2) && world.is_alive(c2));
    assert_eq!(world.query::<&Position>().iter(&world).count(), 1);
}

/// Flecs OnDelete: a holder that is deleted as target cleanup and also holds
/// pairs to other entities leaves them intact.
#[test]
fn flecs_on_delete_deleted_holder_leaves_its_targets() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let friend = world.spawn(Position::default()).id();
    let child = world.spawn(ChildOf.pair(parent)).add_pair::<Likes>(friend).id();
    world.despawn(parent);
    assert!(!world.is_alive(child));
    assert!(world.is_alive(friend));
    assert!(world.has::<Position>(friend));
}

/// Flecs Hierarchies: reparent keeps the child's components.
#[test]
fn flecs_hierarchies_reparent_keeps_components() {
    let mut world = World::new();
    let [p1, p2] = spawn_n(&mut world);
    let child = world.spawn((Position { x: 5.0, y: 6.0 }, ChildOf.pair(p1))).id();
    world.entity_mut(child).add_pair::<ChildOf>(p2);
    assert_eq!(world.get::<Position>(child), Some(&Position { x: 5.0, y: 6.0 }));
    world.despawn(p1);
    assert!(world.is_alive(child), "no longer a child of p1");
    world.despawn(p2);
    assert!(!world.is_alive(child));
}

/// Flecs Hierarchies: remove ChildOf makes the child a root that survives the
/// old parent's deletion.
#[test]
fn flecs_hierarchies_remove_child_of_detaches() {
    let mut world = World::new();
    let p = world.spawn_empty().id();
    let c = world.spawn(ChildOf.pair(p)).id();
    world.entity_mut(c).remove_pair::<ChildOf>(p);
    assert_eq!(world.target::<ChildOf>(c), None);
    assert_eq!(world.children(p).count(), 0);
    world.despawn(p);
    assert!(world.is_alive(c));
}

/// Flecs Hierarchies: ChildOf is acyclic (a parent cannot become a child of its descendant).
#[test]
fn flecs_hierarchies_child_of_refuses_cycles() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(ChildOf.pair(a)).id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(a).add_pair::<ChildOf>(b);
    }));
    assert!(result.is_err());
    assert_eq!(world.target::<ChildOf>(a), None);
    assert_eq!(world.target::<ChildOf>(b), Some(a));
}

/// Flecs Pairs: a pair whose target is dead cannot be added.
#[test]
fn flecs_pairs_add_pair_to_dead_target_panics() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.despawn(b);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(a).add_pair::<Likes>(b);
    }));
    assert!(result.is_err());
    assert!(!world.has_pair::<Likes>(a, b));
}

// =========================================================================================
// Observers and events
// =========================================================================================

#[test]
fn on_add_observer_gets_entity_and_can_query_mutably() {
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<OnAdd, Health>, mut q: Query<&mut Health>| {
        let e: Entity = trigger.entity();
        q.get_mut(e).unwrap().0 *= 2.0;
    });
    let e = world.spawn(Health(5.0)).id();
    assert_eq!(world.get::<Health>(e), Some(&Health(10.0)));
}

#[test]
fn on_add_fires_only_for_new_components_not_overwrites() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1);
    let e = world.spawn(Health(1.0)).id();
    world.insert(e, Health(2.0));
    world.entity_mut(e).insert(Health(3.0));
    assert_eq!(world.resource::<Count>().0, 1);
}

#[test]
fn on_insert_fires_on_every_insert() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, Health>, q: Query<&Health>, mut r: ResMut<Radii>| {
        r.0.push(q.get(t.entity()).unwrap().0);
    });
    let e = world.spawn(Health(1.0)).id();
    world.insert(e, Health(2.0));
    assert_eq!(world.resource::<Radii>().0, vec![1.0, 2.0], "OnInsert sees the new value");
}

#[test]
fn on_remove_fires_on_remove_and_sees_the_value() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Health>, q: Query<&Health>, mut r: ResMut<Radii>| {
        r.0.push(q.get(t.entity()).map(|h| h.0).unwrap_or(-1.0));
    });
    let e = world.spawn(Health(7.0)).id();
    let removed = world.remove::<Health>(e);
    assert_eq!(removed, Some(Health(7.0)));
    assert_eq!(world.resource::<Radii>().0, vec![7.0]);
}

#[test]
fn on_remove_fires_on_despawn() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Health>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let e = world.spawn((Health(1.0), Position::default())).id();
    world.despawn(e);
    assert_eq!(world.resource::<Seen>().0, vec![e]);
}

#[test]
fn on_despawn_fires_once_per_despawned_entity() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnDespawn, Position>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let a = world.spawn(Position::default()).id();
    let b = world.spawn((Position::default(), Velocity::default())).id();
    world.spawn(Velocity::default());
    world.remove::<Position>(a);
    assert!(world.resource::<Seen>().0.is_empty(), "OnDespawn is not sent by remove");
    world.entity_mut(a).insert(Position::default());
    world.despawn(a);
    world.despawn(b);
    assert_eq!(world.resource::<Seen>().0, vec![a, b]);
}

#[test]
fn on_despawn_fires_for_children_despawned_by_the_parent() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnDespawn, Enemy>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let parent = world.spawn(Enemy).id();
    let child = world.spawn((Enemy, ChildOf.pair(parent))).id();
    world.despawn(parent);
    assert_eq!(set(world.resource::<Seen>().0.iter().copied()), set([parent, child]));
    assert_eq!(world.resource::<Seen>().0.len(), 2);
}

#[test]
fn user_event_global_trigger_reaches_observer_with_event_data() {
    let mut world = log_world();
    world.add_observer(|trigger: Trigger<Explode>, mut r: ResMut<Radii>| {
        let radius: &f32 = &trigger.event().radius;
        r.0.push(*radius);
    });
    world.trigger(Explode { radius: 2.0 });
    world.trigger(Explode { radius: 3.5 });
    assert_eq!(world.resource::<Radii>().0, vec![2.0, 3.5]);
}

#[test]
fn global_trigger_entity_is_placeholder() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Explode>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    world.trigger(Explode { radius: 2.0 });
    assert_eq!(world.resource::<Seen>().0, vec![Entity::PLACEHOLDER]);
}

#[test]
fn trigger_targets_observers_see_the_target_entity() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Explode>, mut s: ResMut<Seen>, mut r: ResMut<Radii>| {
        s.0.push(t.entity());
        r.0.push(t.event().radius);
    });
    let e = world.spawn(Position::default()).id();
    world.trigger_targets(Explode { radius: 2.0 }, e);
    assert_eq!(world.resource::<Seen>().0, vec![e]);
    assert_eq!(world.resource::<Radii>().0, vec![2.0]);
}

#[test]
fn trigger_targets_several_targets_once_each_in_order() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Ping>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let [a, b, c] = spawn_n(&mut world);
    world.trigger_targets(Ping, [c, a, b]);
    assert_eq!(world.resource::<Seen>().0, vec![c, a, b]);
    world.resource_mut::<Seen>().0.clear();
    world.trigger_targets(Ping, vec![b, a]);
    assert_eq!(world.resource::<Seen>().0, vec![b, a]);
}

#[test]
fn user_event_observers_ignore_other_event_types() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<Ping>, mut c: ResMut<Count>| c.0 += 1);
    world.trigger(Explode { radius: 1.0 });
    world.spawn(Health(1.0));
    assert_eq!(world.resource::<Count>().0, 0);
    world.trigger(Ping);
    assert_eq!(world.resource::<Count>().0, 1);
}

#[test]
fn lifecycle_observer_ignores_other_components() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1);
    let e = world.spawn(Position::default()).id();
    world.entity_mut(e).insert(Velocity::default()).remove::<Velocity>();
    world.despawn(e);
    assert_eq!(world.resource::<Count>().0, 0);
}

#[test]
fn lifecycle_observers_fire_for_tags_and_sparse_components() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Enemy>, mut log: ResMut<Log>| log.0.push(format!("enemy {:?}", t.entity())));
    world.add_observer(|t: Trigger<OnAdd, Stunned>, mut log: ResMut<Log>| {
        log.0.push(format!("stunned {:?}", t.entity()))
    });
    world.add_observer(|t: Trigger<OnRemove, Stunned>, q: Query<&Stunned>, mut log: ResMut<Log>| {
        log.0.push(format!("unstunned {}", q.get(t.entity()).map(|s| s.0).unwrap_or(0)));
    });
    let e = world.spawn((Enemy, Stunned(3))).id();
    world.remove::<Stunned>(e);
    let log = take_log(&mut world);
    assert!(log.contains(&format!("enemy {e:?}")), "{log:?}");
    assert!(log.contains(&format!("stunned {e:?}")), "{log:?}");
    assert!(log.contains(&"unstunned 3".to_owned()), "{log:?}");
    assert_eq!(log.len(), 3);
}

/// bevy_ecs observer::tests::observer_order_spawn_despawn
#[test]
fn bevy_observer_order_spawn_despawn() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut l: ResMut<Log>| l.0.push("add".into()));
    world.add_observer(|_: Trigger<OnInsert, Health>, mut l: ResMut<Log>| l.0.push("insert".into()));
    world.add_observer(|_: Trigger<OnReplace, Health>, mut l: ResMut<Log>| l.0.push("replace".into()));
    world.add_observer(|_: Trigger<OnRemove, Health>, mut l: ResMut<Log>| l.0.push("remove".into()));
    let e = world.spawn(Health(1.0)).id();
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec!["add", "insert", "replace", "remove"]);
}

/// bevy_ecs observer::tests::observer_order_insert_remove
#[test]
fn bevy_observer_order_insert_remove() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut l: ResMut<Log>| l.0.push("add".into()));
    world.add_observer(|_: Trigger<OnInsert, Health>, mut l: ResMut<Log>| l.0.push("insert".into()));
    world.add_observer(|_: Trigger<OnReplace, Health>, mut l: ResMut<Log>| l.0.push("replace".into()));
    world.add_observer(|_: Trigger<OnRemove, Health>, mut l: ResMut<Log>| l.0.push("remove".into()));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(Health(1.0));
    world.entity_mut(e).remove::<Health>();
    assert_eq!(take_log(&mut world), vec!["add", "insert", "replace", "remove"]);
}

/// bevy_ecs observer::tests::observer_order_replace
#[test]
fn bevy_observer_order_replace() {
    let mut world = log_world();
    let e = world.spawn(Health(1.0)).id();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut l: ResMut<Log>| l.0.push("add".into()));
    world.add_observer(|_: Trigger<OnInsert, Health>, mut l: ResMut<Log>| l.0.push("insert".into()));
    world.add_observer(|_: Trigger<OnReplace, Health>, mut l: ResMut<Log>| l.0.push("replace".into()));
    world.add_observer(|_: Trigger<OnRemove, Health>, mut l: ResMut<Log>| l.0.push("remove".into()));
    world.entity_mut(e).insert(Health(2.0));
    assert_eq!(take_log(&mut world), vec!["replace", "insert"]);
}

/// bevy_ecs: OnDespawn comes before the per-component OnRemove.
#[test]
fn bevy_on_despawn_before_on_remove() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnRemove, Health>, mut l: ResMut<Log>| l.0.push("remove".into()));
    world.add_observer(|_: Trigger<OnDespawn, Health>, mut l: ResMut<Log>| l.0.push("despawn".into()));
    let e = world.spawn(Health(1.0)).id();
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec!["despawn", "remove"]);
}

/// bevy_ecs observer::tests::observer_multiple_listeners
#[test]
fn bevy_observer_multiple_listeners_all_fire() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1);
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 10);
    world.spawn(Health(1.0));
    assert_eq!(world.resource::<Count>().0, 11);
}

/// bevy_ecs observer::tests::observer_multiple_events (one observer per event
/// type, same component): each fires for its event only.
#[test]
fn bevy_observer_per_event_type() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1);
    world.add_observer(|_: Trigger<OnRemove, Health>, mut c: ResMut<Count>| c.0 += 100);
    let e = world.spawn(Health(1.0)).id();
    assert_eq!(world.resource::<Count>().0, 1);
    world.remove::<Health>(e);
    assert_eq!(world.resource::<Count>().0, 101);
}

/// bevy_ecs observer::tests::observer_despawn: an observer entity despawned stops firing.
#[test]
fn bevy_observer_despawned_stops_firing() {
    let mut world = log_world();
    let observer = world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1).id();
    world.spawn(Health(1.0));
    assert_eq!(world.resource::<Count>().0, 1);
    assert!(world.despawn(observer));
    world.spawn(Health(1.0));
    assert_eq!(world.resource::<Count>().0, 1);
}

/// bevy_ecs observer::tests::observer_entity_routing + entity-scoped observer
#[test]
fn bevy_entity_observer_only_fires_for_its_entity() {
    let mut world = log_world();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    world.entity_mut(a).observe(|t: Trigger<Ping>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    world.trigger_targets(Ping, [a, b, a]);
    world.trigger(Ping);
    assert_eq!(world.resource::<Seen>().0, vec![a, a]);
}

/// bevy_ecs: an entity-scoped observer is despawned with its entity.
#[test]
fn bevy_entity_observer_is_despawned_with_its_entity() {
    let mut world = log_world();
    let base = world.stats().observers;
    let a = world.spawn_empty().id();
    world.entity_mut(a).observe(|_: Trigger<Ping>, mut c: ResMut<Count>| c.0 += 1);
    assert_eq!(world.stats().observers, base + 1);
    world.despawn(a);
    assert_eq!(world.stats().observers, base);
    assert_eq!(world.entity_count(), 0, "the observer entity is internal and gone");
    world.trigger(Ping);
    assert_eq!(world.resource::<Count>().0, 0);
}

/// bevy_ecs: observers registered by commands (EntityCommands::observe) fire after apply.
#[test]
fn bevy_observer_added_by_commands() {
    let mut world = log_world();
    let e = world.run_system_once(|mut commands: Commands| {
        commands.spawn_empty().observe(|t: Trigger<Explode>, mut r: ResMut<Radii>| r.0.push(t.event().radius)).id()
    });
    world.trigger_targets(Explode { radius: 4.0 }, e);
    assert_eq!(world.resource::<Radii>().0, vec![4.0]);
}

/// bevy_ecs: commands.trigger from a system reaches observers.
#[test]
fn bevy_commands_trigger_reaches_observers() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Explode>, mut r: ResMut<Radii>| r.0.push(t.event().radius));
    world.run_system_once(|mut commands: Commands| commands.trigger(Explode { radius: 9.0 }));
    assert_eq!(world.resource::<Radii>().0, vec![9.0]);
}

/// bevy_ecs observer::tests::observer_no_target: a global trigger does not reach
/// entity-scoped observers.
#[test]
fn bevy_global_trigger_skips_entity_observers() {
    let mut world = log_world();
    let a = world.spawn_empty().id();
    world.entity_mut(a).observe(|_: Trigger<Ping>, mut c: ResMut<Count>| c.0 += 1);
    world.add_observer(|_: Trigger<Ping>, mut c: ResMut<Count>| c.0 += 10);
    world.trigger(Ping);
    assert_eq!(world.resource::<Count>().0, 10);
    world.trigger_targets(Ping, a);
    assert_eq!(world.resource::<Count>().0, 21);
}

/// bevy_ecs observer::tests::observer_recursive: observers can cause more events.
#[test]
fn bevy_observer_recursive_commands() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Health>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Enemy);
    });
    world.add_observer(|t: Trigger<OnAdd, Enemy>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let e = world.spawn(Health(1.0)).id();
    assert!(world.has::<Enemy>(e), "observer commands applied before spawn returns");
    assert_eq!(world.resource::<Seen>().0, vec![e]);
}

/// bevy_ecs observer::tests::observer_dynamic_component-ish: an observer spawns an
/// entity in response to a user event; the observer entity is not counted.
#[test]
fn observer_spawning_through_commands_on_user_event() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<Explode>, mut commands: Commands| {
        commands.spawn(Position { x: t.event().radius, y: 0.0 });
    });
    assert_eq!(world.entity_count(), 0);
    world.trigger(Explode { radius: 2.0 });
    assert_eq!(world.entity_count(), 1);
    let xs: Vec<f32> = world.query::<&Position>().iter(&world).map(|p| p.x).collect();
    assert_eq!(xs, vec![2.0]);
}

/// Flecs Observer: OnAdd for a pair observer fires with the pair target.
#[test]
fn flecs_observer_on_add_pair_reports_target() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut s: ResMut<Seen>| {
        s.0.push(t.entity());
        s.0.push(t.pair_target().unwrap());
    });
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b);
    assert_eq!(world.resource::<Seen>().0, vec![a, b]);
}

/// Flecs Observer: OnRemove fires for pairs removed because their target was deleted.
#[test]
fn flecs_observer_on_remove_pair_on_target_delete() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b);
    world.despawn(b);
    assert_eq!(world.resource::<Seen>().0, vec![a]);
    assert!(world.is_alive(a));
}

/// Flecs Observer: multi-component observer fires once when the entity has all of them.
#[test]
fn flecs_observer_multi_component_on_add_fires_once() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, (Position, Velocity)>, mut c: ResMut<Count>| c.0 += 1);
    let e = world.spawn(Position::default()).id();
    assert_eq!(world.resource::<Count>().0, 0);
    world.entity_mut(e).insert(Velocity::default());
    assert_eq!(world.resource::<Count>().0, 1);
    world.spawn((Position::default(), Velocity::default()));
    assert_eq!(world.resource::<Count>().0, 2);
}

#[test]
fn observers_fire_for_spawn_batch() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Position>, mut c: ResMut<Count>| c.0 += 1);
    let ids: Vec<Entity> = world.spawn_batch((0..5).map(|i| (Position { x: i as f32, y: 0.0 },))).collect();
    assert_eq!(ids.len(), 5);
    assert_eq!(world.resource::<Count>().0, 5);
}

#[test]
fn observer_entities_are_internal() {
    let mut world = log_world();
    let observer = world.add_observer(|_: Trigger<Ping>| {}).id();
    assert_eq!(world.entity_count(), 0);
    assert!(world.is_alive(observer));
    assert_eq!(world.query::<Entity>().iter(&world).count(), 0);
}

// =========================================================================================
// Inspecting a world
// =========================================================================================

#[test]
fn inspect_display_shows_name_and_debug_values() {
    let mut world = World::new();
    let e = world.spawn((Name::new("hero"), Position { x: 1.0, y: 2.0 }, Enemy)).id();
    let report: EntityReport = world.inspect(e);
    let text = report.to_string();
    assert!(text.contains("hero"), "{text}");
    assert!(text.contains("Position { x: 1.0, y: 2.0 }"), "{text}");
    assert!(text.contains("Enemy"), "{text}");
}

#[test]
fn inspect_lists_pairs_with_values() {
    let mut world = World::new();
    let apples = world.spawn(Name::new("apples")).id();
    let bob = world.spawn(Name::new("bob")).id();
    let e = world.spawn_empty().add_pair::<Likes>(bob).insert_pair(Eats { amount: 2 }, apples).id();
    let text = world.inspect(e).to_string();
    assert!(text.contains("Likes"), "{text}");
    assert!(text.contains("bob"), "{text}");
    assert!(text.contains("Eats { amount: 2 }"), "{text}");
}

#[test]
fn inspect_to_json_is_an_object_with_the_name() {
    let mut world = World::new();
    let e = world.spawn((Name::new("hero"), Health(3.0))).id();
    let json = world.inspect(e).to_json();
    assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
    assert!(json.contains("\"hero\""), "{json}");
    assert!(json.contains("Health"), "{json}");
}

#[test]
fn inspect_world_lists_archetypes_resources_observers() {
    let mut world = World::new();
    world.insert_resource(Count(1));
    world.spawn((Position::default(), Velocity::default()));
    world.add_observer(|_: Trigger<OnAdd, Health>| {});
    let report: WorldReport = world.inspect_world();
    assert!(report.archetypes.iter().any(|a| a.entities == 1 && a.components.len() == 2));
    assert!(report.resources.iter().any(|r| r.contains("Count")), "{:?}", report.resources);
    assert_eq!(report.observers.len(), 1);
    let text = report.to_string();
    assert!(text.contains("Position") && text.contains("Velocity"), "{text}");
    let json = report.to_json();
    assert!(json.starts_with('{') && json.contains("Count"), "{json}");
}

#[test]
fn archetype_graph_dot_is_a_graphviz_digraph() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    world.entity_mut(e).insert(Velocity::default());
    let dot: String = world.archetype_graph_dot();
    assert!(dot.trim_start().starts_with("digraph"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    assert!(dot.contains("->"), "an edge for the insert: {dot}");
    assert!(dot.contains("Velocity"), "{dot}");
}

#[test]
fn schedule_to_dot_is_a_graphviz_graph() {
    fn a() {}
    fn b() {}
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((a, b).chain());
    schedule.run(&mut world); // to_dot describes the built graph
    let dot: String = schedule.to_dot();
    assert!(dot.contains("digraph"), "{dot}");
    assert!(dot.contains("->"), "{dot}");
}

#[test]
fn stats_fields_follow_the_world() {
    let mut world = World::new();
    let before: WorldStats = world.stats();
    let e = world.spawn((Position::default(), Velocity::default())).id();
    let after = world.stats();
    assert_eq!(after.entities, before.entities + 1);
    assert_eq!(after.archetypes, before.archetypes + 1);
    assert!(after.tables > before.tables);
    assert!(after.bytes > before.bytes);
    world.despawn(e);
    let gone = world.stats();
    assert_eq!(gone.entities, before.entities);
    assert_eq!(gone.empty_archetypes, before.empty_archetypes + 1);
}

#[test]
fn stats_entities_match_entity_count_and_exclude_internal() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    world.entity_mut(a).add_pair::<Likes>(b);
    world.add_observer(|_: Trigger<Ping>| {});
    assert_eq!(world.stats().entities, world.entity_count());
    assert_eq!(world.stats().entities, 2);
}

#[test]
fn inspect_lists_components_without_debug_by_name() {
    #[derive(Component)]
    struct Opaque(#[allow(dead_code)] u8);
    let mut world = World::new();
    let e = world.spawn((Opaque(1), Position { x: 3.0, y: 0.0 })).id();
    let report = world.inspect(e);
    let opaque = report.components.iter().find(|c| c.name.contains("Opaque")).expect("listed by name");
    assert!(opaque.value.is_none(), "no Debug, no value");
    let text = report.to_string();
    assert!(text.contains("Opaque") && text.contains("Position { x: 3.0, y: 0.0 }"), "{text}");
}

#[test]
fn inspect_world_json_has_every_section() {
    let mut world = World::new();
    world.insert_resource(Count(0));
    world.spawn(Position::default());
    world.add_observer(|_: Trigger<OnRemove, Position>| {});
    let json = world.inspect_world().to_json();
    for key in ["\"archetypes\"", "\"resources\"", "\"queries\"", "\"observers\""] {
        assert!(json.contains(key), "{key} missing in {json}");
    }
    let report = world.inspect_world();
    assert_eq!(report.observers[0].event, "OnRemove");
    assert!(report.observers[0].watches.iter().any(|w| w == "Position"));
}

#[test]
fn up_along_an_exclusive_traversable_acyclic_custom_relationship() {
    let mut world = World::new();
    let sun = world.spawn(Position { x: 9.0, y: 0.0 }).id();
    let planet = world.spawn_empty().add_pair::<Orbits>(sun).id();
    let moon = world.spawn_empty().add_pair::<Orbits>(planet).id();
    let mut q = world.query::<(Entity, Up<Orbits, &Position>)>();
    let rows: BTreeSet<(Entity, u32)> = q.iter(&world).map(|(e, p)| (e, p.x as u32)).collect();
    assert_eq!(rows, BTreeSet::from([(planet, 9), (moon, 9)]));
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(sun).add_pair::<Orbits>(moon);
    }));
    assert!(result.is_err(), "acyclic");
    assert_eq!(world.target::<Orbits>(sun), None);
}

#[test]
fn insert_on_a_dead_entity_returns_false_and_fires_nothing() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Health>, mut c: ResMut<Count>| c.0 += 1);
    world.add_observer(|_: Trigger<OnInsert, Health>, mut c: ResMut<Count>| c.0 += 1);
    let e = world.spawn_empty().id();
    world.despawn(e);
    assert!(!world.insert(e, Health(1.0)));
    assert_eq!(world.resource::<Count>().0, 0);
    assert!(!world.despawn(e));
}

#[test]
fn observers_survive_clear_entities() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<Ping>, mut c: ResMut<Count>| c.0 += 1);
    world.spawn(Position::default());
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    world.trigger(Ping);
    assert_eq!(world.resource::<Count>().0, 1, "observers are internal entities");
}

#[test]
fn clear_entities_fires_on_despawn_for_user_entities() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnDespawn, Position>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let a = world.spawn(Position::default()).id();
    let b = world.spawn(Position::default()).id();
    world.clear_entities();
    assert_eq!(set(world.resource::<Seen>().0.iter().copied()), set([a, b]));
}

#[test]
fn exclusive_replacement_fires_on_remove_old_then_on_add_new() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<ChildOf>>, mut l: ResMut<Log>| {
        l.0.push(format!("add {:?}", t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<ChildOf>>, mut l: ResMut<Log>| {
        l.0.push(format!("remove {:?}", t.pair_target()));
    });
    let [p1, p2] = spawn_n(&mut world);
    let c = world.spawn(ChildOf.pair(p1)).id();
    take_log(&mut world);
    world.entity_mut(c).add_pair::<ChildOf>(p2);
    assert_eq!(take_log(&mut world), vec![format!("remove {:?}", Some(p1)), format!("add {:?}", Some(p2))]);
}

#[test]
fn on_despawn_without_components_fires_once_per_despawned_entity() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnDespawn>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let a = world.spawn((Position::default(), Velocity::default())).id();
    let b = world.spawn_empty().id();
    let c = world.spawn(Enemy).id();
    world.despawn(a);
    world.despawn(b);
    world.remove::<Enemy>(c);
    assert_eq!(world.resource::<Seen>().0, vec![a, b]);
}

#[test]
fn on_despawn_observer_reads_the_entitys_components() {
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnDespawn, Position>, q: Query<(&Position, Option<&Velocity>)>, mut r: ResMut<Radii>| {
            let (p, v) = q.get(t.entity()).expect("still readable while despawning");
            r.0.push(p.x + v.map_or(0.0, |v| v.x));
        },
    );
    let e = world.spawn((Position { x: 2.0, y: 0.0 }, Velocity { x: 0.5, y: 0.0 })).id();
    world.despawn(e);
    assert_eq!(world.resource::<Radii>().0, vec![2.5]);
}

#[test]
fn entity_observer_sees_on_remove_of_its_own_despawn() {
    let mut world = log_world();
    let e = world.spawn(Health(1.0)).id();
    world.entity_mut(e).observe(|t: Trigger<OnRemove, Health>, mut s: ResMut<Seen>| s.0.push(t.entity()));
    let other = world.spawn(Health(1.0)).id();
    world.despawn(other);
    assert!(world.resource::<Seen>().0.is_empty(), "scoped to e");
    world.despawn(e);
    assert_eq!(world.resource::<Seen>().0, vec![e]);
}

#[test]
fn on_add_pair_observer_fires_for_child_of_from_with_children() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<ChildOf>>, mut s: ResMut<Seen>| {
        s.0.push(t.pair_target().unwrap());
    });
    let ship = world
        .spawn_empty()
        .with_children(|p| {
            p.spawn_empty();
            p.spawn_empty();
        })
        .id();
    assert_eq!(world.resource::<Seen>().0, vec![ship, ship]);
}

// ----- hooks and observers together (bevy_ecs order) --------------------------------------

#[derive(Component)]
#[component(on_add = hooked_added, on_insert = hooked_inserted, on_replace = hooked_replaced, on_remove = hooked_removed)]
struct Hooked(#[allow(dead_code)] u8);

fn hook_log(world: &mut DeferredWorld, entry: &str) {
    world.get_resource_mut::<Log>().unwrap().0.push(entry.into());
}

fn hooked_added(mut world: DeferredWorld, _ctx: HookContext) {
    hook_log(&mut world, "hook add");
}

fn hooked_inserted(mut world: DeferredWorld, _ctx: HookContext) {
    hook_log(&mut world, "hook insert");
}

fn hooked_replaced(mut world: DeferredWorld, _ctx: HookContext) {
    hook_log(&mut world, "hook replace");
}

fn hooked_removed(mut world: DeferredWorld, _ctx: HookContext) {
    hook_log(&mut world, "hook remove");
}

fn hooked_world() -> World {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, Hooked>, mut l: ResMut<Log>| l.0.push("observer add".into()));
    world.add_observer(|_: Trigger<OnInsert, Hooked>, mut l: ResMut<Log>| l.0.push("observer insert".into()));
    world.add_observer(|_: Trigger<OnReplace, Hooked>, mut l: ResMut<Log>| l.0.push("observer replace".into()));
    world.add_observer(|_: Trigger<OnRemove, Hooked>, mut l: ResMut<Log>| l.0.push("observer remove".into()));
    world
}

/// bevy_ecs: when a component arrives, its hook runs before the observers
/// (on_add hook, OnAdd observers, on_insert hook, OnInsert observers).
#[test]
fn bevy_hooks_run_before_observers_when_a_component_arrives() {
    let mut world = hooked_world();
    world.spawn(Hooked(0));
    assert_eq!(take_log(&mut world), vec!["hook add", "observer add", "hook insert", "observer insert"]);
}

/// bevy_ecs 0.15+ (API.md follows bevy_ecs 0.17+): when a component leaves,
/// observers run before its hook (OnReplace observers, on_replace hook,
/// OnRemove observers, on_remove hook), so observers still see the value the
/// hook is about to clean up.
#[test]
fn bevy_observers_run_before_hooks_when_a_component_leaves() {
    let mut world = hooked_world();
    let e = world.spawn(Hooked(0)).id();
    take_log(&mut world);
    world.despawn(e);
    assert_eq!(take_log(&mut world), vec!["observer replace", "hook replace", "observer remove", "hook remove"]);
}

/// The library's own order on removal, whichever it is, is the same for
/// `remove` and `despawn`.
#[test]
fn hook_and_observer_order_on_removal_is_the_same_for_remove_and_despawn() {
    let mut world = hooked_world();
    let a = world.spawn(Hooked(0)).id();
    let b = world.spawn(Hooked(0)).id();
    take_log(&mut world);
    world.remove::<Hooked>(a);
    let by_remove = take_log(&mut world);
    world.despawn(b);
    let by_despawn = take_log(&mut world);
    assert_eq!(by_remove.len(), 4, "{by_remove:?}");
    assert_eq!(by_remove, by_despawn);
}
