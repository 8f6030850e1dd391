//! Prefabs and inheritance (`IsA`): instantiate, the three `on_instantiate`
//! policies, inherited reads in `get` and queries, prefab children, chains,
//! diamonds, cleanup, and the interactions with `Disabled` and names.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct MaxSpeed(f32);

#[derive(Component, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Secret(u32);

#[derive(Component, Debug, PartialEq)]
struct Turret;

#[derive(Component, Debug, PartialEq, Default)]
struct Position(f32);

#[derive(Component, Debug)]
struct Enemy;

#[test]
fn instantiate_inherits_by_default_and_owns_overrides() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Health(100), MaxSpeed(10.0), Secret(7), Name::new("Fighter"))).id();
    let inst = world.instantiate(ship);
    assert!(world.has_pair::<IsA>(inst, ship));
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(10.0)));
    assert!(world.has::<MaxSpeed>(inst) && !world.owns::<MaxSpeed>(inst));
    assert!(world.get_mut::<MaxSpeed>(inst).is_none(), "an inherited value is never handed out mutably");
    assert_eq!(world.get::<Health>(inst), Some(&Health(100)));
    assert!(world.owns::<Health>(inst));
    assert_eq!(world.get::<Secret>(inst), None);
    assert!(!world.has::<Secret>(inst));
    assert_eq!(world.get::<Name>(inst), None, "Name is never inherited");
    assert!(!world.has::<Prefab>(inst), "Prefab is never inherited");
    // A later edit of the prefab reaches inherited values, not copies.
    world.get_mut::<MaxSpeed>(ship).unwrap().0 = 12.0;
    world.get_mut::<Health>(ship).unwrap().0 = 1;
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(12.0)));
    assert_eq!(world.get::<Health>(inst), Some(&Health(100)));
    world.check_invariants();
}

#[test]
fn add_pair_is_a_is_instantiate_and_a_value_given_in_the_spawn_wins() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Health(100), MaxSpeed(10.0))).id();
    let a = world.spawn_empty().add_pair::<IsA>(ship).id();
    assert_eq!(world.get::<Health>(a), Some(&Health(100)));
    let b = world.spawn((Health(5), IsA.pair(ship))).id();
    assert_eq!(world.get::<Health>(b), Some(&Health(5)));
    let c = world.spawn((MaxSpeed(1.0), IsA.pair(ship))).id();
    assert_eq!(world.get::<MaxSpeed>(c), Some(&MaxSpeed(1.0)));
}

#[test]
fn insert_overrides_and_remove_uncovers_the_inherited_value() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    let inst = world.instantiate(ship);
    world.entity_mut(inst).insert(MaxSpeed(3.0));
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(3.0)));
    world.get_mut::<MaxSpeed>(inst).unwrap().0 = 4.0;
    assert_eq!(world.get::<MaxSpeed>(ship), Some(&MaxSpeed(10.0)));
    world.entity_mut(inst).remove::<MaxSpeed>();
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(10.0)));
}

#[test]
fn queries_read_inherited_values_but_never_write_them() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    let insts: Vec<Entity> = (0..3).map(|_| world.instantiate(ship)).collect();
    for &inst in &insts {
        world.entity_mut(inst).insert(Position(0.0));
    }
    let own = world.spawn((MaxSpeed(2.0), Position(0.0))).id();
    let mut read = world.query::<(Entity, &MaxSpeed)>();
    let mut rows: Vec<(Entity, f32)> = read.iter(&world).map(|(e, s)| (e, s.0)).collect();
    rows.sort_by_key(|row| row.0);
    let mut expected: Vec<(Entity, f32)> = insts.iter().map(|&e| (e, 10.0)).collect();
    expected.push((own, 2.0));
    expected.sort_by_key(|row| row.0);
    assert_eq!(rows, expected);
    // A `&mut` term sees only owned values.
    let mut write = world.query::<(Entity, &mut MaxSpeed)>();
    let written: Vec<Entity> = write.iter_mut(&mut world).map(|(e, _)| e).collect();
    assert_eq!(written, vec![own]);
    // Systems: positions move by the inherited speed.
    let mut movement = world.query::<(&mut Position, &MaxSpeed)>();
    for (mut position, speed) in movement.iter_mut(&mut world) {
        position.0 += speed.0;
    }
    for &inst in &insts {
        assert_eq!(world.get::<Position>(inst), Some(&Position(10.0)));
    }
    assert_eq!(world.get::<Position>(own), Some(&Position(2.0)));
    // Has, With, Without and Option see inherited values.
    assert_eq!(world.query_filtered::<Entity, With<MaxSpeed>>().iter(&world).count(), 4);
    assert_eq!(world.query_filtered::<Entity, (With<Position>, Without<MaxSpeed>)>().iter(&world).count(), 0);
    let has: Vec<bool> = world.query::<(&Position, Has<MaxSpeed>)>().iter(&world).map(|(_, has)| has).collect();
    assert_eq!(has, vec![true; 4]);
    let options = world.query::<(&Position, Option<&MaxSpeed>)>().iter(&world).filter(|(_, s)| s.is_some()).count();
    assert_eq!(options, 4);
    // query.get agrees.
    assert_eq!(read.get(&world, insts[0]).map(|(_, s)| s.0), Ok(10.0));
}

#[test]
fn a_query_cached_before_the_prefab_changes_sees_the_change() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    let inst = world.instantiate(ship);
    let mut speeds = world.query::<&MaxSpeed>();
    let mut enemies = world.query_filtered::<Entity, With<Enemy>>();
    assert_eq!(speeds.iter(&world).count(), 1);
    assert_eq!(enemies.iter(&world).count(), 0);
    // The prefab gains a component: the instance inherits it, without moving.
    world.entity_mut(ship).insert(Enemy);
    assert_eq!(enemies.iter(&world).collect::<Vec<_>>(), vec![inst]);
    // It loses one: the instance stops matching.
    world.entity_mut(ship).remove::<MaxSpeed>();
    assert_eq!(speeds.iter(&world).count(), 0);
    assert_eq!(world.get::<MaxSpeed>(inst), None);
    world.check_invariants();
}

#[test]
fn rows_of_one_table_read_their_base_after_the_base_moves_within_its_table() {
    let mut world = World::new();
    let first = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let second = world.spawn((Prefab, MaxSpeed(2.0))).id();
    let inst = world.instantiate(second);
    let mut speeds = world.query::<&MaxSpeed>();
    assert_eq!(speeds.iter(&world).map(|s| s.0).collect::<Vec<_>>(), vec![2.0]);
    // Despawning `first` swaps `second` into its row.
    world.despawn(first);
    assert_eq!(speeds.iter(&world).map(|s| s.0).collect::<Vec<_>>(), vec![2.0]);
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(2.0)));
}

#[test]
fn three_level_chain() {
    let mut world = World::new();
    let root = world.spawn((Prefab, MaxSpeed(1.0), Health(10), Position(5.0))).id();
    let middle = world.spawn((Prefab, MaxSpeed(2.0), IsA.pair(root))).id();
    let leaf = world.spawn((Prefab, IsA.pair(middle))).id();
    let inst = world.instantiate(leaf);
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(2.0)), "the nearer base wins");
    assert_eq!(world.get::<Position>(inst), Some(&Position(5.0)), "from the root, two levels up");
    assert_eq!(world.get::<Health>(inst), Some(&Health(10)), "overrides are copied from the whole chain");
    assert!(world.owns::<Health>(inst));
    let rows: Vec<(f32, f32)> = world.query::<(&MaxSpeed, &Position)>().iter(&world).map(|(s, p)| (s.0, p.0)).collect();
    assert_eq!(rows, vec![(2.0, 5.0)]);
    // The runtime query language sees IsA as transitive.
    let mut q = world.query_builder().pair(world.component_id::<IsA>().unwrap(), root).build_uncached().unwrap();
    let mut found: Vec<Entity> = q.iter(&world).filter_map(|row| row.this()).collect();
    found.sort();
    let mut expected = vec![inst];
    expected.sort();
    assert_eq!(found, expected, "prefabs are hidden; the instance matches (IsA, root) through the chain");
}

#[test]
fn diamond_inheritance() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Position(1.0), MaxSpeed(1.0))).id();
    let left = world.spawn((Prefab, IsA.pair(base), MaxSpeed(2.0))).id();
    let right = world.spawn((Prefab, IsA.pair(base), MaxSpeed(3.0))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(left).add_pair::<IsA>(right).id();
    assert_eq!(world.get::<Position>(inst), Some(&Position(1.0)));
    let speed = world.get::<MaxSpeed>(inst).unwrap().0;
    assert_eq!(speed, 2.0, "with several bases the first added wins");
    assert_eq!(world.query::<(&Position, &MaxSpeed)>().iter(&world).count(), 1);
    world.check_invariants();
}

#[test]
fn prefab_children_are_instantiated_as_children_of_the_instance() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Fighter"))).id();
    let turret = world.spawn((Turret, Health(3), Name::new("turret"), ChildOf.pair(ship))).id();
    assert!(world.has::<Prefab>(turret), "children of a prefab are prefabs");
    let barrel = world.spawn((Position(1.0), Name::new("barrel"), ChildOf.pair(turret))).id();
    assert!(world.has::<Prefab>(barrel));
    let inst = world.instantiate(ship);
    let children: Vec<Entity> = world.children(inst).collect();
    assert_eq!(children.len(), 1);
    let copy = children[0];
    assert!(world.has_pair::<IsA>(copy, turret));
    assert_eq!(world.get::<Name>(copy).map(Name::as_str), Some("turret"));
    assert!(!world.has::<Prefab>(copy));
    assert!(world.has::<Turret>(copy) && world.owns::<Health>(copy));
    let grandchildren: Vec<Entity> = world.children(copy).collect();
    assert_eq!(grandchildren.len(), 1);
    assert_eq!(world.get::<Position>(grandchildren[0]), Some(&Position(1.0)));
    assert_eq!(world.query::<&Turret>().iter(&world).count(), 1, "only the instance's turret is visible");
    // Despawning the instance despawns its children (ChildOf cleanup).
    world.despawn(inst);
    assert!(!world.is_alive(copy) && !world.is_alive(grandchildren[0]));
    assert!(world.is_alive(turret));
    world.check_invariants();
}

#[test]
fn deleting_a_prefab_keeps_owned_values_and_drops_inherited_ones() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Health(100), MaxSpeed(10.0))).id();
    let turret = world.spawn((Turret, ChildOf.pair(ship))).id();
    let inst = world.instantiate(ship);
    world.despawn(ship);
    assert!(world.is_alive(inst));
    assert!(!world.is_alive(turret), "the prefab's children go with it");
    assert_eq!(world.get::<Health>(inst), Some(&Health(100)));
    assert_eq!(world.get::<MaxSpeed>(inst), None);
    assert!(!world.has_pair::<IsA>(inst, ship));
    assert_eq!(world.query::<&MaxSpeed>().iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn disabled_prefabs_make_disabled_instances() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Disabled, MaxSpeed(10.0))).id();
    let inst = world.instantiate(ship);
    assert!(world.has::<Disabled>(inst));
    assert_eq!(world.query::<&MaxSpeed>().iter(&world).count(), 0);
    assert_eq!(world.query_filtered::<&MaxSpeed, With<Disabled>>().iter(&world).count(), 1);
    world.entity_mut(inst).remove::<Disabled>();
    assert_eq!(world.query::<&MaxSpeed>().iter(&world).map(|s| s.0).collect::<Vec<_>>(), vec![10.0]);
    // A disabled instance of an enabled prefab: still inherits, hidden from queries.
    let ship2 = world.spawn((Prefab, MaxSpeed(2.0))).id();
    let inst2 = world.instantiate(ship2);
    world.entity_mut(inst2).insert(Disabled);
    assert_eq!(world.get::<MaxSpeed>(inst2), Some(&MaxSpeed(2.0)));
    assert_eq!(world.query::<&MaxSpeed>().iter(&world).count(), 1);
}

#[test]
fn names_on_instances_and_lookup() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Name::new("Fighter"))).id();
    world.spawn((Name::new("turret"), ChildOf.pair(ship)));
    assert_eq!(world.lookup("Fighter"), Some(ship));
    let inst = world.instantiate(ship);
    world.entity_mut(inst).insert(Name::new("alpha"));
    assert_eq!(world.lookup("alpha"), Some(inst));
    let turret = world.lookup("alpha::turret").expect("the instance's child keeps the prefab child's name");
    assert_eq!(world.parent(turret), Some(inst));
    assert_eq!(world.path(turret).as_deref(), Some("alpha::turret"));
}

#[test]
fn a_query_that_writes_an_inherited_component_on_prefabs_is_refused() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.query_filtered::<&mut MaxSpeed, With<Prefab>>();
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("writes MaxSpeed and may match prefabs"), "{message}");
    // Sparse components are inherited too: the same refusal (a review found
    // a system reading an instance's inherited value while another query of
    // it wrote the prefab's).
    let message = ecs_tests::panic_message(|| {
        world.query_filtered::<&mut Shield, With<Prefab>>();
    });
    assert!(message.contains("writes Shield and may match prefabs"), "{message}");
    let prefab = world.spawn((Prefab, Shield(1))).id();
    world.instantiate(prefab);
    let message = ecs_tests::panic_message(|| {
        world.run_system_once(
            |read: Query<(Entity, &Shield), Without<Prefab>>, mut write: Query<&mut Shield, With<Prefab>>| {
                for _ in &read {
                    for mut shield in &mut write {
                        shield.0 += 100;
                    }
                }
            },
        );
    });
    assert!(message.contains("writes Shield and may match prefabs"), "{message}");
    assert_eq!(world.get::<Shield>(prefab), Some(&Shield(1)));
    // Override components are never shared: editing them on prefabs is fine.
    let ship = world.spawn((Prefab, Health(1))).id();
    for mut health in world.query_filtered::<&mut Health, With<Prefab>>().iter_mut(&mut world) {
        health.0 = 2;
    }
    assert_eq!(world.get::<Health>(ship), Some(&Health(2)));
}

#[derive(Component)]
#[component(on_instantiate = "override")]
struct Counted(Arc<AtomicUsize>);

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted(self.0.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn every_copied_value_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    {
        let mut world = World::new();
        let ship = world.spawn((Prefab, Counted(drops.clone()))).id();
        let instances: Vec<Entity> = (0..10).map(|_| world.instantiate(ship)).collect();
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        for &inst in &instances[..5] {
            world.despawn(inst);
        }
        assert_eq!(drops.load(Ordering::SeqCst), 5);
    }
    assert_eq!(drops.load(Ordering::SeqCst), 11);
}

#[derive(Component, Debug)]
#[component(on_instantiate = "override")]
struct PanicsOnClone;

impl Clone for PanicsOnClone {
    fn clone(&self) -> Self {
        panic!("clone failed")
    }
}

#[test]
fn a_panicking_clone_leaves_the_instance_without_the_value() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let ship = world.spawn((Prefab, PanicsOnClone, Counted(drops.clone()), MaxSpeed(1.0))).id();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.instantiate(ship)));
    assert!(result.is_err());
    world.check_invariants();
    drop(world);
    // The prefab's value and at most the one copy made before the panic.
    assert!((1..=2).contains(&drops.load(Ordering::SeqCst)));
}

#[test]
fn runtime_queries_read_inherited_values_from_the_prefab() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
    let inst = world.instantiate(ship);
    world.entity_mut(inst).insert(Position(0.0));
    let own = world.spawn((MaxSpeed(2.0), Position(0.0))).id();
    for cached in [true, false] {
        let mut q = if cached {
            world.query_dsl("Position, MaxSpeed").unwrap()
        } else {
            world.query_dsl_uncached("Position, MaxSpeed").unwrap()
        };
        let mut rows: Vec<(Entity, f32, Entity)> =
            q.iter(&world).map(|row| (row.entity(), row.get::<MaxSpeed>(1).unwrap().0, row.source(1))).collect();
        rows.sort_by_key(|row| row.0);
        assert_eq!(rows, vec![(inst, 10.0, ship), (own, 2.0, own)]);
    }
    // A write term sees owned values only.
    let speed = world.component_id::<MaxSpeed>().unwrap();
    let mut q = world.query_builder().write(speed).build().unwrap();
    let mut written = Vec::new();
    q.iter_mut(&mut world).for_each(|row| written.push(row.entity()));
    assert_eq!(written, vec![own]);
    // The cached query follows a change of the prefab.
    let mut q = world.query_dsl("Position, MaxSpeed").unwrap();
    assert_eq!(q.iter(&world).count(), 2);
    world.entity_mut(ship).remove::<MaxSpeed>();
    assert_eq!(q.iter(&world).count(), 1);
    assert_eq!(world.query_dsl("Position, !MaxSpeed").unwrap().iter(&world).count(), 1);
}

#[test]
fn a_runtime_query_that_writes_an_inherited_component_on_prefabs_is_refused() {
    let mut world = World::new();
    world.register_component::<MaxSpeed>();
    world.register_component::<Health>();
    let error = world.query_dsl("[out] MaxSpeed, Prefab").unwrap_err();
    assert!(error.message.contains("writes MaxSpeed and the query may match prefabs"), "{}", error.message);
    assert_eq!(error.offset, 0);
    assert!(world.query_dsl("[out] Health, Prefab").is_ok(), "override components are never shared");
    assert!(world.query_dsl("[out] MaxSpeed").is_ok(), "prefabs are hidden from it");
    world.register_component::<Shield>();
    let error = world.query_dsl("[inout] Shield, Prefab").unwrap_err();
    assert!(error.message.contains("writes Shield and the query may match prefabs"), "{}", error.message);
}

#[derive(Component, Clone, Debug, PartialEq)]
#[component(toggle, on_instantiate = "override")]
struct Firing(u32);

#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Thrust(f32);

#[test]
fn toggled_components_on_prefabs() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Firing(3), Thrust(1.0))).id();
    world.entity_mut(ship).disable::<Firing>();
    let inst = world.instantiate(ship);
    // An override copy keeps the prefab's enabled bit; it is the instance's own.
    assert!(world.owns::<Firing>(inst));
    assert!(!world.is_enabled::<Firing>(inst));
    assert_eq!(world.query::<&Firing>().iter(&world).count(), 0);
    world.entity_mut(inst).enable::<Firing>();
    assert_eq!(world.query::<&Firing>().iter(&world).count(), 1);
    assert!(!world.is_enabled::<Firing>(ship), "enabling the copy leaves the prefab alone");
    // With the default policy a toggleable value is inherited, as enabled as
    // on the prefab.
    assert!(world.has::<Thrust>(inst) && !world.owns::<Thrust>(inst));
    assert_eq!(world.get::<Thrust>(inst), Some(&Thrust(1.0)));
    assert_eq!(world.query::<(Entity, &Thrust)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![inst]);
    world.entity_mut(inst).insert(Thrust(2.0)).disable::<Thrust>();
    assert_eq!(world.query_filtered::<Entity, Without<Thrust>>().iter(&world).count(), 1);
}

/// A toggleable component inherited from a prefab: every term sees it as
/// enabled or disabled as the prefab's value is, decided per iteration (no
/// move when the prefab's bit flips), cached and fresh, typed and runtime;
/// an instance's own value decides for itself.
#[test]
fn inherited_toggles_follow_the_prefab() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Thrust(1.0))).id();
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    world.entity_mut(b).insert(Thrust(5.0));
    let plain = world.spawn_empty().id();
    let mut reads = world.query::<(Entity, &Thrust)>();
    let mut optional = world.query::<(Entity, Option<&Thrust>)>();
    let mut has = world.query::<(Entity, Has<Thrust>)>();
    let mut with = world.query_filtered::<Entity, With<Thrust>>();
    let mut without = world.query_filtered::<Entity, Without<Thrust>>();
    let mut runtime = world.query_dsl("Thrust").unwrap();
    let mut runtime_not = world.query_dsl("!Thrust").unwrap();
    let mut runtime_optional = world.query_dsl("?Thrust").unwrap();
    let sorted = |mut v: Vec<Entity>| {
        v.sort();
        v
    };
    let mut check = |world: &mut World, enabled_on_prefab: bool| {
        let expect_a: Vec<Entity> = if enabled_on_prefab { vec![a] } else { vec![] };
        assert_eq!(world.is_enabled::<Thrust>(a), enabled_on_prefab);
        assert!(world.has::<Thrust>(a), "still held, as a disabled own value is");
        assert_eq!(world.get::<Thrust>(a), Some(&Thrust(1.0)), "readable while disabled");
        assert_eq!(sorted(reads.iter(world).map(|(e, _)| e).collect()), sorted([expect_a.clone(), vec![b]].concat()));
        let a_value = optional.iter(world).find(|(e, _)| *e == a).unwrap().1.map(|t| t.0);
        assert_eq!(a_value, enabled_on_prefab.then_some(1.0));
        assert_eq!(has.iter(world).find(|(e, _)| *e == a).unwrap().1, enabled_on_prefab);
        assert!(has.iter(world).find(|(e, _)| *e == b).unwrap().1);
        assert_eq!(sorted(with.iter(world).collect()), sorted([expect_a.clone(), vec![b]].concat()));
        let not_a: Vec<Entity> = if enabled_on_prefab { vec![] } else { vec![a] };
        assert_eq!(sorted(without.iter(world).collect()), sorted([not_a.clone(), vec![plain]].concat()));
        for fresh in [false, true] {
            let mut new_query;
            let rows = if fresh {
                new_query = world.query_dsl("Thrust").unwrap();
                &mut new_query
            } else {
                &mut runtime
            };
            let mut got: Vec<(Entity, f32)> =
                rows.iter(world).map(|row| (row.entity(), row.get::<Thrust>(0).unwrap().0)).collect();
            got.sort_by_key(|(e, _)| *e);
            let mut expected: Vec<(Entity, f32)> = expect_a.iter().map(|&e| (e, 1.0)).chain([(b, 5.0)]).collect();
            expected.sort_by_key(|(e, _)| *e);
            assert_eq!(got, expected, "runtime query, fresh: {fresh}");
        }
        assert_eq!(
            sorted(runtime_not.iter(world).map(|row| row.entity()).collect()),
            sorted([not_a, vec![plain]].concat())
        );
        let row_a =
            runtime_optional.iter(world).find(|row| row.entity() == a).map(|row| row.get::<Thrust>(0).map(|t| t.0));
        assert_eq!(row_a, Some(enabled_on_prefab.then_some(1.0)));
    };
    check(&mut world, true);
    world.entity_mut(ship).disable::<Thrust>();
    check(&mut world, false);
    // Asking an instance for the state it already inherits changes nothing;
    // asking for the other one needs a copy, which a type without `Clone`
    // cannot give: a panic naming entity and component, nothing changed.
    world.entity_mut(a).disable::<Thrust>();
    check(&mut world, false);
    let message = ecs_tests::panic_message(|| {
        world.entity_mut(a).enable::<Thrust>();
    });
    assert!(message.contains("cannot enable") && message.contains("Thrust") && message.contains(&format!("{a:?}")));
    check(&mut world, false);
    world.entity_mut(ship).enable::<Thrust>();
    check(&mut world, true);
    world.entity_mut(b).disable::<Thrust>();
    assert!(!world.is_enabled::<Thrust>(b) && world.is_enabled::<Thrust>(a));
    assert_eq!(reads.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![a]);
}

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

#[test]
fn a_union_relationship_on_an_instance() {
    let mut world = World::new();
    let (walking, flying) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, MaxSpeed(3.0))).id();
    world.entity_mut(ship).add_pair::<Movement>(walking);
    let inst = world.instantiate(ship);
    assert_eq!(world.target::<Movement>(inst), Some(walking), "a union pair is copied (Flecs prefab_w_union)");
    let archetype = world.entity(inst).archetype();
    world.entity_mut(inst).add_pair::<Movement>(flying);
    assert_eq!(world.entity(inst).archetype(), archetype, "retargeting a union pair never moves");
    assert_eq!(world.target::<Movement>(inst), Some(flying));
    assert_eq!(world.target::<Movement>(ship), Some(walking), "the prefab keeps its own target");
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(3.0)), "inherited values survive the union table");
    let rows: Vec<(Entity, Entity, f32)> =
        world.query::<(Entity, Pair<Movement>, &MaxSpeed)>().iter(&world).map(|(e, t, s)| (e, t, s.0)).collect();
    assert_eq!(rows, vec![(inst, flying, 3.0)]);
    world.despawn(flying);
    assert_eq!(world.target::<Movement>(inst), None, "the default cleanup removes the pair");
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(3.0)));
    world.check_invariants();
}

/// Union pairs of a prefab are copied into instances and their children
/// (Flecs `prefab_w_union`, `prefab_child_w_union`,
/// `prefab_w_union_and_component`); a pair given in the same spawn wins; later
/// changes on either side stay on that side.
#[test]
fn union_pairs_of_a_prefab_are_copied_into_instances() {
    let mut world = World::new();
    let (walking, running, flying) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, MaxSpeed(10.0))).add_pair::<Movement>(walking).id();
    let turret = world.spawn((Turret, Name::new("turret"), ChildOf.pair(ship))).add_pair::<Movement>(running).id();
    let inst = world.instantiate(ship);
    assert!(world.has_pair::<Movement>(inst, walking));
    assert_eq!(world.get::<MaxSpeed>(inst), Some(&MaxSpeed(10.0)));
    let inst_turret = world.lookup_child(inst, "turret").unwrap();
    assert_ne!(inst_turret, turret);
    assert!(world.has_pair::<Movement>(inst_turret, running), "prefab children's union pairs are copied too");
    // A pair given in the same spawn wins.
    let own = world.spawn(IsA.pair(ship)).add_pair::<Movement>(flying).id();
    assert_eq!(world.target::<Movement>(own), Some(flying));
    let same_spawn = world.spawn((IsA.pair(ship), Movement.pair(flying))).id();
    assert_eq!(world.target::<Movement>(same_spawn), Some(flying), "a pair in the same spawn wins");
    // Copies are independent of the prefab.
    world.entity_mut(ship).add_pair::<Movement>(running);
    assert_eq!(world.target::<Movement>(inst), Some(walking));
    world.entity_mut(inst).add_pair::<Movement>(flying);
    assert_eq!(world.target::<Movement>(ship), Some(running));
    // Queries see the instance's own pair; the prefab stays hidden.
    let mut flyers = world.query::<(Entity, Pair<Movement>)>().with_pair::<Movement>(flying);
    let mut rows: Vec<Entity> = flyers.iter(&world).map(|(e, _)| e).collect();
    rows.sort();
    let mut expected = vec![inst, own, same_spawn];
    expected.sort();
    assert_eq!(rows, expected);
    // A dead target leaves nothing to copy.
    world.despawn(running);
    let late = world.instantiate(ship);
    assert_eq!(world.target::<Movement>(late), None);
    world.check_invariants();
}

/// A plain (non-prefab) base gives none of its own values, and does not hide
/// the value another base of the same instance (a prefab) gives.
#[test]
fn a_plain_base_does_not_hide_a_sibling_prefab_value() {
    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    let mut world = World::new();
    let plain = world.spawn(Hp(5)).id();
    let prefab = world.spawn((Prefab, Hp(2))).id();
    let instance = world.spawn_empty().id();
    world.entity_mut(instance).add_pair::<IsA>(plain);
    world.entity_mut(instance).add_pair::<IsA>(prefab);
    assert_eq!(world.get::<Hp>(instance), Some(&Hp(2)));
    let other = world.spawn_empty().add_pair::<IsA>(prefab).add_pair::<IsA>(plain).id();
    assert_eq!(world.get::<Hp>(other), Some(&Hp(2)));
}

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Shield(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(toggle)]
struct Beacon(u32);

/// An instance disabling (or enabling) a toggleable value it inherits gets
/// its own copy first, a clone of the prefab's, as Flecs overrides what an
/// instance toggles: the prefab and the other instances keep reading the
/// prefab's value, enabled; asking for the inherited state copies nothing.
#[test]
fn toggling_an_inherited_value_gives_the_instance_its_own_copy() {
    let mut world = World::new();
    let ship = world.spawn((Prefab, Beacon(4))).id();
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    world.entity_mut(a).enable::<Beacon>();
    assert!(!world.owns::<Beacon>(a), "already enabled: no copy");
    world.entity_mut(a).disable::<Beacon>();
    assert!(world.owns::<Beacon>(a) && !world.is_enabled::<Beacon>(a));
    assert_eq!(world.get::<Beacon>(a), Some(&Beacon(4)));
    assert!(world.is_enabled::<Beacon>(ship) && world.is_enabled::<Beacon>(b) && !world.owns::<Beacon>(b));
    assert_eq!(world.query::<(Entity, &Beacon)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    // The prefab disables its value: b follows; a's own copy re-enabled is its own.
    world.entity_mut(ship).disable::<Beacon>();
    world.entity_mut(a).enable::<Beacon>();
    assert_eq!(world.query::<(Entity, &Beacon)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![a]);
    world.entity_mut(b).enable::<Beacon>();
    assert!(world.owns::<Beacon>(b) && world.is_enabled::<Beacon>(b) && !world.is_enabled::<Beacon>(ship));
}

/// A sparse component on a prefab is inherited as a table one is: `get`,
/// `has` and every query term (typed and runtime, cached and fresh) see the
/// prefab's value on instances without their own; an own value wins; a
/// prefab's prefab gives it through the chain; a plain base holding one
/// hides what lies beyond it; removing it from the prefab takes it from the
/// instances; `&mut` terms and `get_mut` see only own values.
#[test]
fn sparse_components_are_inherited() {
    let mut world = World::new();
    let root = world.spawn((Prefab, Shield(1))).id();
    let ship = world.spawn(Prefab).id();
    world.entity_mut(ship).add_pair::<IsA>(root);
    let a = world.instantiate(ship);
    let b = world.instantiate(ship);
    world.entity_mut(b).insert(Shield(7));
    let plain = world.spawn_empty().id();
    let sorted = |mut v: Vec<Entity>| {
        v.sort();
        v
    };
    assert_eq!(world.get::<Shield>(a), Some(&Shield(1)), "through a chain of two prefabs");
    assert!(world.has::<Shield>(a) && !world.owns::<Shield>(a));
    assert_eq!(world.get_mut::<Shield>(a).map(|s| s.0), None, "never handed out mutably");
    let mut reads = world.query::<(Entity, &Shield)>();
    let mut got: Vec<(Entity, u32)> = reads.iter(&world).map(|(e, s)| (e, s.0)).collect();
    got.sort();
    assert_eq!(got, sorted_pairs(vec![(a, 1), (b, 7)]));
    assert_eq!(
        world.query::<(Entity, &mut Shield)>().iter_mut(&mut world).map(|(e, _)| e).collect::<Vec<_>>(),
        vec![b]
    );
    let has: Vec<(Entity, bool)> = world.query::<(Entity, Has<Shield>)>().iter(&world).collect();
    assert!(has.contains(&(a, true)) && has.contains(&(b, true)) && has.contains(&(plain, false)));
    assert_eq!(sorted(world.query_filtered::<Entity, With<Shield>>().iter(&world).collect()), sorted(vec![a, b]));
    assert_eq!(world.query_filtered::<Entity, Without<Shield>>().iter(&world).collect::<Vec<_>>(), vec![plain]);
    let option: Vec<(Entity, Option<u32>)> =
        world.query::<(Entity, Option<&Shield>)>().iter(&world).map(|(e, s)| (e, s.map(|s| s.0))).collect();
    assert!(option.contains(&(a, Some(1))) && option.contains(&(plain, None)));
    let mut runtime = world.query_dsl("Shield").unwrap();
    for _ in 0..2 {
        let mut rows: Vec<(Entity, u32)> =
            runtime.iter(&world).map(|row| (row.entity(), row.get::<Shield>(0).unwrap().0)).collect();
        rows.sort();
        assert_eq!(rows, sorted_pairs(vec![(a, 1), (b, 7)]));
        let fresh: Vec<Entity> = world.query_dsl("Shield").unwrap().iter(&world).map(|row| row.entity()).collect();
        assert_eq!(sorted(fresh), sorted(vec![a, b]));
        let not: Vec<Entity> = world.query_dsl("!Shield").unwrap().iter(&world).map(|row| row.entity()).collect();
        assert_eq!(not, vec![plain]);
        let mut optional = world.query_dsl("?Shield").unwrap();
        let a_row = optional
            .iter(&world)
            .find(|row| row.entity() == a)
            .map(|row| (row.is_set(0), row.get::<Shield>(0).map(|s| s.0)));
        assert_eq!(a_row, Some((true, Some(1))));
    }
    // `Up` reads an ancestor's inherited sparse value as `&T` reads it.
    let child = world.spawn(ChildOf.pair(a)).id();
    let up: Vec<(Entity, u32)> =
        world.query::<(Entity, Up<ChildOf, &Shield>)>().iter(&world).map(|(e, s)| (e, s.0)).collect();
    assert_eq!(up, vec![(child, 1)]);
    let mut runtime_up = world.query_dsl("Shield(up ChildOf)").unwrap();
    let rows: Vec<(Entity, Entity, u32)> =
        runtime_up.iter(&world).map(|row| (row.entity(), row.source(0), row.get::<Shield>(0).unwrap().0)).collect();
    assert_eq!(rows, vec![(child, root, 1)], "the source is the prefab holding the value");
    let mut fixed = world.query_builder().read(world.component_id::<Shield>().unwrap()).source(a).build().unwrap();
    let rows: Vec<u32> = fixed.iter(&world).map(|row| row.get::<Shield>(0).unwrap().0).collect();
    assert_eq!(rows, vec![1]);
    world.despawn(child);
    // A plain base holding a value hides its own bases' values.
    let middle = world.spawn(Shield(5)).id();
    world.entity_mut(middle).add_pair::<IsA>(root);
    let c = world.spawn_empty().add_pair::<IsA>(middle).id();
    assert_eq!(world.get::<Shield>(c), None, "a plain base passes on no value of its own");
    world.entity_mut(middle).remove::<Shield>();
    assert_eq!(world.get::<Shield>(c), Some(&Shield(1)), "uncovered: the root prefab's");
    // Removing it from the root takes it from every instance without its own.
    world.entity_mut(root).remove::<Shield>();
    assert_eq!(world.get::<Shield>(a), None);
    assert!(!world.has::<Shield>(a));
    assert_eq!(reads.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    assert_eq!(runtime.iter(&world).map(|row| row.entity()).collect::<Vec<_>>(), vec![b]);
}

fn sorted_pairs(mut v: Vec<(Entity, u32)>) -> Vec<(Entity, u32)> {
    v.sort();
    v
}

/// The values each live entity with `MaxSpeed` reads through a query, by entity.
fn speeds(world: &mut World) -> Vec<(Entity, f32)> {
    let mut rows: Vec<(Entity, f32)> =
        world.query::<(Entity, &MaxSpeed)>().iter(world).map(|(entity, speed)| (entity, speed.0)).collect();
    rows.sort_by_key(|&(entity, _)| entity);
    rows
}

/// API.md: "with several bases, the first added wins a conflict", whatever
/// the bases' ids: for table and sparse values, `get` and queries (fresh and
/// cached), `up IsA` traversal, through variants, and as bases come and go.
#[test]
fn with_several_bases_the_first_added_wins() {
    let mut world = World::new();
    let slow = world.spawn((Prefab, MaxSpeed(1.0), Shield(1))).id();
    let fast = world.spawn((Prefab, MaxSpeed(2.0), Shield(2))).id();
    let third = world.spawn((Prefab, MaxSpeed(3.0), Shield(3))).id();
    let mut cached = world.query::<(Entity, &MaxSpeed)>();
    // In id order and against it: two archetypes of one type.
    let in_order = world.spawn_empty().add_pair::<IsA>(slow).add_pair::<IsA>(fast).id();
    let reversed = world.spawn_empty().add_pair::<IsA>(fast).add_pair::<IsA>(slow).id();
    assert_eq!(world.get::<MaxSpeed>(in_order), Some(&MaxSpeed(1.0)));
    assert_eq!(world.get::<MaxSpeed>(reversed), Some(&MaxSpeed(2.0)));
    assert_eq!(world.get::<Shield>(in_order), Some(&Shield(1)), "sparse values follow the same order");
    assert_eq!(world.get::<Shield>(reversed), Some(&Shield(2)));
    assert_eq!(world.ids_of(in_order), world.ids_of(reversed), "one type");
    assert_eq!(speeds(&mut world), vec![(in_order, 1.0), (reversed, 2.0)]);
    let mut cached_rows: Vec<(Entity, f32)> = cached.iter(&world).map(|(e, s)| (e, s.0)).collect();
    cached_rows.sort_by_key(|&(entity, _)| entity);
    assert_eq!(cached_rows, vec![(in_order, 1.0), (reversed, 2.0)]);
    let up: Vec<(Entity, f32)> = {
        let mut rows: Vec<(Entity, f32)> = world
            .query_filtered::<(Entity, Up<IsA, &MaxSpeed>), Without<Prefab>>()
            .iter(&world)
            .map(|(entity, speed)| (entity, speed.0))
            .collect();
        rows.sort_by_key(|&(entity, _)| entity);
        rows
    };
    assert_eq!(up, vec![(in_order, 1.0), (reversed, 2.0)], "up IsA searches the first added base first");
    // A third base added last changes nothing; the order survives inserts.
    world.entity_mut(reversed).add_pair::<IsA>(third).insert(Position(0.5));
    assert_eq!(world.get::<MaxSpeed>(reversed), Some(&MaxSpeed(2.0)));
    // Removing the first added base hands the conflict to the next added.
    world.entity_mut(reversed).remove_pair::<IsA>(fast);
    assert_eq!(world.get::<MaxSpeed>(reversed), Some(&MaxSpeed(1.0)));
    assert_eq!(world.get::<Shield>(reversed), Some(&Shield(1)));
    // Re-adding it puts it last.
    world.entity_mut(reversed).add_pair::<IsA>(fast);
    assert_eq!(world.get::<MaxSpeed>(reversed), Some(&MaxSpeed(1.0)));
    // So does removing and re-adding the first of bases added in id order.
    world.entity_mut(in_order).remove_pair::<IsA>(slow).add_pair::<IsA>(slow);
    assert_eq!(world.get::<MaxSpeed>(in_order), Some(&MaxSpeed(2.0)));
    assert_eq!(world.get::<Shield>(in_order), Some(&Shield(2)));
    let first_third = world.spawn_empty().add_pair::<IsA>(third).add_pair::<IsA>(slow).add_pair::<IsA>(fast).id();
    assert_eq!(world.get::<MaxSpeed>(first_third), Some(&MaxSpeed(3.0)));
    world.check_invariants();
    // A variant whose bases were added against id order passes its order on.
    let variant = world.spawn(Prefab).add_pair::<IsA>(fast).add_pair::<IsA>(slow).id();
    let of_variant = world.instantiate(variant);
    assert_eq!(world.get::<MaxSpeed>(of_variant), Some(&MaxSpeed(2.0)));
    assert_eq!(world.get::<Shield>(of_variant), Some(&Shield(2)));
    // A base that dies leaves the others in their order.
    world.despawn(fast);
    assert_eq!(world.get::<MaxSpeed>(first_third), Some(&MaxSpeed(3.0)));
    assert_eq!(world.get::<MaxSpeed>(of_variant), Some(&MaxSpeed(1.0)));
    world.despawn(third);
    assert_eq!(world.get::<MaxSpeed>(first_third), Some(&MaxSpeed(1.0)));
    assert_eq!(world.get::<MaxSpeed>(reversed), Some(&MaxSpeed(1.0)));
    world.check_invariants();
}

/// `override` copies: the first added base's copy is the one kept.
#[test]
fn with_several_bases_the_first_added_gives_the_override_copy() {
    let mut world = World::new();
    let weak = world.spawn((Prefab, Health(10))).id();
    let strong = world.spawn((Prefab, Health(20))).id();
    let inst = world.spawn_empty().add_pair::<IsA>(strong).add_pair::<IsA>(weak).id();
    assert_eq!(world.get::<Health>(inst), Some(&Health(20)));
    assert!(world.owns::<Health>(inst));
}

/// Two bases each with a child named "turret": the first added base's child
/// is the instance's (names are unique among siblings; the second is skipped,
/// not a panic that leaves the instance half built).
#[test]
fn prefab_children_of_two_bases_with_one_name() {
    let mut world = World::new();
    let a = world.spawn((Prefab, MaxSpeed(1.0))).id();
    let b = world.spawn((Prefab, MaxSpeed(2.0))).id();
    world.spawn((Position(10.0), Name::new("turret"), ChildOf.pair(a)));
    world.spawn((Position(20.0), Name::new("turret"), ChildOf.pair(b)));
    world.spawn((Position(30.0), Name::new("radar"), ChildOf.pair(a)));
    let inst = world.spawn_empty().add_pair::<IsA>(b).add_pair::<IsA>(a).id();
    let turret = world.lookup_child(inst, "turret").unwrap();
    assert_eq!(world.get::<Position>(turret), Some(&Position(20.0)));
    assert!(world.lookup_child(inst, "radar").is_some());
    assert_eq!(world.children(inst).count(), 2);
    world.check_invariants();
}

/// API.md: "`IsA` is transitive and reflexive in query terms (`(IsA, B)`
/// matches B and whatever inherits from B)": the typed `with_pair::<IsA>(b)`
/// too, as the runtime term does; only `B`'s row of its table (its
/// table-mates do not inherit from it), through `iter`, `get`, `par_iter`,
/// `single`, and a prefab only when the query names `Prefab`.
#[test]
fn typed_with_pair_is_a_is_reflexive() {
    let mut world = World::new();
    let base = world.spawn(MaxSpeed(1.0)).id();
    let mate = world.spawn(MaxSpeed(5.0)).id(); // same table as base, unrelated
    let inst = world.spawn(MaxSpeed(2.0)).add_pair::<IsA>(base).id();
    let deeper = world.spawn_empty().add_pair::<IsA>(inst).id();
    let mut q = world.query::<Entity>().with_pair::<IsA>(base);
    let mut rows: Vec<Entity> = q.iter(&world).collect();
    rows.sort();
    assert_eq!(rows, vec![base, inst, deeper]);
    assert!(q.get(&world, base).is_ok() && q.get(&world, mate).is_err());
    let mut speeds = world.query::<&MaxSpeed>().with_pair::<IsA>(base);
    let mut values: Vec<f32> = speeds.iter(&world).map(|s| s.0).collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, vec![1.0, 2.0], "deeper has no MaxSpeed of its own (base is no prefab)");
    let counted = std::sync::atomic::AtomicUsize::new(0);
    world.query::<&MaxSpeed>().with_pair::<IsA>(base).par_iter(&world).for_each(|_| {
        counted.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(counted.load(Ordering::Relaxed), 2);
    // The base moves to another table: the match follows it.
    world.entity_mut(base).insert(Position(3.0));
    let mut rows: Vec<Entity> = q.iter(&world).collect();
    rows.sort();
    assert_eq!(rows, vec![base, inst, deeper]);
    // Other transitive relationships are not reflexive; a hidden prefab is
    // matched only by a query that names Prefab.
    let prefab = world.spawn((Prefab, MaxSpeed(9.0))).id();
    let of_prefab = world.instantiate(prefab);
    assert_eq!(world.query::<Entity>().with_pair::<IsA>(prefab).iter(&world).collect::<Vec<_>>(), vec![of_prefab]);
    let mut named = world.query_filtered::<Entity, With<Prefab>>().with_pair::<IsA>(prefab);
    assert_eq!(named.single(&world).ok(), Some(prefab));
    world.check_invariants();
}

/// The same `with_pair::<IsA>(b)` twice still matches `b` (review finding).
#[test]
fn the_same_is_a_requirement_twice_keeps_the_base() {
    let mut world = World::new();
    let base = world.spawn(MaxSpeed(1.0)).id();
    let inst = world.spawn(MaxSpeed(2.0)).add_pair::<IsA>(base).id();
    let mut twice = world.query::<Entity>().with_pair::<IsA>(base).with_pair::<IsA>(base);
    let mut rows: Vec<Entity> = twice.iter(&world).collect();
    rows.sort();
    assert_eq!(rows, vec![base, inst]);
}

// ------------------------------------------------- pairs of a prefab (copied)

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
#[relationship(exclusive)]
struct Eats;

#[derive(Relationship, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Owes(u32);

#[derive(Relationship, Debug, PartialEq)]
struct Grudge(u32);

#[derive(Relationship)]
#[component(on_instantiate = "dont_inherit")]
struct Private;

#[derive(Relationship)]
#[relationship(acyclic)]
struct Follows;

/// Flecs 4 copies a prefab's pairs into instances by default (`auto_override_pair`):
/// a tag pair is the instance's own, and later edits of the prefab do not reach it.
#[test]
fn tag_pairs_of_a_prefab_are_copied_into_instances() {
    let mut world = World::new();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, Likes.pair(bob))).id();
    world.add_pair::<Likes>(ship, carol);
    let inst = world.instantiate(ship);
    assert!(world.has_pair::<Likes>(inst, bob) && world.has_pair::<Likes>(inst, carol));
    let mut liking: Vec<Entity> = world.query_filtered::<Entity, WithPair<Likes>>().iter(&world).collect();
    liking.sort();
    assert_eq!(liking, vec![inst], "the prefab is skipped, the instance matches on its own pairs");
    world.remove_pair::<Likes>(ship, bob);
    assert!(world.has_pair::<Likes>(inst, bob), "the copy is the instance's");
    world.remove_pair::<Likes>(inst, carol);
    assert!(world.has_pair::<Likes>(ship, carol) && !world.has_pair::<Likes>(inst, carol));
}

#[test]
fn an_exclusive_pair_given_in_the_spawn_wins_over_the_prefabs() {
    let mut world = World::new();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, Eats.pair(apples))).id();
    let own = world.spawn((Eats.pair(pears), IsA.pair(ship))).id();
    assert!(world.has_pair::<Eats>(own, pears) && !world.has_pair::<Eats>(own, apples));
    let copied = world.instantiate(ship);
    assert!(world.has_pair::<Eats>(copied, apples));
}

#[test]
fn override_pair_values_are_cloned_and_inherit_values_are_not_copied() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let ship = world.spawn(Prefab).id();
    world.insert_pair(ship, Owes(5), bob);
    world.insert_pair(ship, Grudge(9), bob);
    let inst = world.instantiate(ship);
    assert_eq!(world.get_pair::<Owes>(inst, bob), Some(&Owes(5)));
    world.get_pair_mut::<Owes>(inst, bob).unwrap().0 = 6;
    assert_eq!(world.get_pair::<Owes>(ship, bob), Some(&Owes(5)), "the prefab keeps its value");
    assert!(!world.owns_pair::<Grudge>(inst, bob), "an inherit relationship's value needs no Clone: not copied");
    // It is read from the prefab instead (the same value).
    assert!(world.has_pair::<Grudge>(inst, bob));
    assert!(std::ptr::eq(world.get_pair::<Grudge>(inst, bob).unwrap(), world.get_pair::<Grudge>(ship, bob).unwrap()));
}

#[test]
fn dont_inherit_child_of_and_is_a_pairs_are_not_copied() {
    let mut world = World::new();
    let (root, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    let base = world.spawn(Prefab).id();
    let ship = world.spawn((Prefab, Private.pair(bob), IsA.pair(base))).id();
    world.add_pair::<ChildOf>(ship, root);
    let inst = world.instantiate(ship);
    assert!(!world.has_pair::<Private>(inst, bob));
    assert_eq!(world.parent(inst), None, "an instance is not a child of the prefab's parent");
    assert!(world.has_pair::<IsA>(inst, ship) && !world.has_pair::<IsA>(inst, base));
}

#[test]
fn pairs_pass_down_a_prefab_chain_and_reach_instantiated_children() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let root = world.spawn((Prefab, Likes.pair(bob))).id();
    let middle = world.spawn((Prefab, IsA.pair(root))).id();
    let turret = world.spawn((Prefab, Turret, Likes.pair(bob))).id();
    world.add_pair::<ChildOf>(turret, middle);
    let inst = world.instantiate(middle);
    assert!(world.has_pair::<Likes>(middle, bob) && world.has_pair::<Likes>(inst, bob));
    let children: Vec<Entity> = world.children(inst).collect();
    assert_eq!(children.len(), 1);
    assert!(world.has_pair::<Likes>(children[0], bob));
}

#[test]
fn a_copy_that_would_close_a_cycle_is_skipped() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let leader = world.spawn(Prefab).id();
    world.add_pair::<Follows>(leader, e);
    // `e` becoming an instance would follow itself.
    world.entity_mut(e).add_pair::<IsA>(leader);
    assert!(world.is_alive(e) && world.has_pair::<IsA>(e, leader));
    assert!(!world.has_pair::<Follows>(e, e));
}

#[test]
fn pairs_of_runtime_relationships_are_copied_and_observed() {
    let mut world = World::new();
    let (rel, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn(Prefab).id();
    world.add_id(ship, Id::pair(rel, bob));
    let added = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&added);
    world.add_observer(move |_: Trigger<OnAdd, Likes>| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    world.add_pair::<Likes>(ship, bob);
    assert_eq!(added.load(Ordering::Relaxed), 0, "observers skip prefabs");
    let inst = world.instantiate(ship);
    assert!(world.has_id(inst, Id::pair(rel, bob)) && world.has_pair::<Likes>(inst, bob));
    assert_eq!(added.load(Ordering::Relaxed), 1, "the copy is an add");
}

/// With two bases holding pairs of one exclusive relationship, the base
/// added first wins, whatever the bases' ids (as for inherited values).
#[test]
fn an_exclusive_pair_comes_from_the_first_added_base_of_a_prefab() {
    let mut world = World::new();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let low = world.spawn((Prefab, Eats.pair(apples))).id();
    let high = world.spawn((Prefab, Eats.pair(pears))).id();
    // `middle` holds no pair itself; its bases are added high first.
    let middle = world.spawn(Prefab).id();
    world.entity_mut(middle).add_pair::<IsA>(high);
    world.entity_mut(middle).add_pair::<IsA>(low);
    world.remove_pair::<Eats>(middle, pears);
    assert!(!world.has_pair::<Eats>(middle, apples) && !world.has_pair::<Eats>(middle, pears));
    let inst = world.instantiate(middle);
    assert!(world.has_pair::<Eats>(inst, pears), "the base added first gives it");
    assert!(!world.has_pair::<Eats>(inst, apples));
}

// ------------------------------------------------ explicit `self`: owned only

/// The ids of the rows of the DSL query `text`.
fn dsl_rows(world: &mut World, text: &str) -> Vec<Entity> {
    let mut query = world.query_dsl(text).unwrap_or_else(|error| panic!("{text}: {error}"));
    let mut rows: Vec<Entity> = query.iter(world).map(|row| row.entity()).collect();
    rows.sort();
    rows
}

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparseSpeed(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct OwnedTag;

/// Flecs: a term written `Name(self)` matches owned ids only; without it an
/// inheritable component is matched `self|up IsA`.
#[test]
fn explicit_self_matches_owned_values_only() {
    let mut world = World::new();
    let base = world.spawn((Prefab, Position(1.0), Name::new("Base"))).id();
    let instance = world.instantiate(base);
    let owner = world.spawn(Position(2.0)).id();
    let mut expected = vec![instance, owner];
    expected.sort();
    assert_eq!(dsl_rows(&mut world, "Position"), expected);
    assert_eq!(dsl_rows(&mut world, "Position(self)"), vec![owner]);
    assert_eq!(dsl_rows(&mut world, "Position($this|self)"), vec![owner]);
    assert_eq!(dsl_rows(&mut world, "Position(self|up IsA)"), expected);
    // Not: the instance does not own one.
    world.entity_mut(instance).insert(OwnedTag);
    world.entity_mut(owner).insert(OwnedTag);
    assert_eq!(dsl_rows(&mut world, "OwnedTag, !Position(self)"), vec![instance]);
    assert!(dsl_rows(&mut world, "OwnedTag, !Position").is_empty());
    // Optional: set where owned.
    let mut query = world.query_dsl("OwnedTag, ?Position(self)").unwrap();
    let mut sets: Vec<(Entity, bool, Option<f32>)> =
        query.iter(&world).map(|row| (row.entity(), row.is_set(1), row.get::<Position>(1).map(|p| p.0))).collect();
    sets.sort_by_key(|(entity, ..)| *entity);
    let mut want = vec![(instance, false, None), (owner, true, Some(2.0))];
    want.sort_by_key(|(entity, ..)| *entity);
    assert_eq!(sets, want);
    // An override makes it owned.
    world.entity_mut(instance).insert(Position(5.0));
    assert_eq!(dsl_rows(&mut world, "Position(self)"), expected);
    assert!(dsl_rows(&mut world, "OwnedTag, !Position(self)").is_empty());
}

#[test]
fn explicit_self_on_a_sparse_inherited_value_and_a_fixed_source() {
    let mut world = World::new();
    let base = world.spawn((Prefab, SparseSpeed(7), Name::new("Base"))).id();
    let instance = world.instantiate(base);
    let owner = world.spawn(SparseSpeed(1)).id();
    let mut both = vec![instance, owner];
    both.sort();
    assert_eq!(dsl_rows(&mut world, "SparseSpeed"), both);
    assert_eq!(dsl_rows(&mut world, "SparseSpeed(self)"), vec![owner]);
    world.entity_mut(instance).insert(Name::new("Inst"));
    // A fixed source written with `|self`: the instance owns none.
    let mut query = world.query_dsl("SparseSpeed(Inst|self)").unwrap();
    assert_eq!(query.iter(&world).count(), 0);
    let mut query = world.query_dsl("SparseSpeed(Inst)").unwrap();
    assert_eq!(query.iter(&world).count(), 1);
    world.entity_mut(instance).insert(SparseSpeed(9));
    let mut query = world.query_dsl("SparseSpeed(Inst|self)").unwrap();
    assert_eq!(
        query.iter(&world).map(|row| row.get::<SparseSpeed>(0).cloned()).collect::<Vec<_>>(),
        vec![Some(SparseSpeed(9))]
    );
}

#[test]
fn explicit_self_prints_and_parses_back() {
    let mut world = World::new();
    world.spawn((Position(0.0), Name::new("Thing")));
    for text in ["Position(self)", "Position($x|self), Position($x)", "Position(Thing|self)", "ChildOf(self, *)"] {
        let query = world.query_dsl(text).unwrap();
        let printed = query.to_dsl();
        let again = world.query_dsl(&printed).unwrap();
        assert_eq!(again.to_dsl(), printed, "{text}");
        assert!(printed.contains("self"), "{text} printed {printed}");
    }
    let position = world.register_component::<Position>();
    let query = world.query_builder().read(position).owned().build().unwrap();
    let printed = query.to_dsl();
    assert!(printed.ends_with("(self)"), "{printed}");
    assert!(world.query_dsl(&printed).unwrap().to_dsl().ends_with("(self)"));
}
