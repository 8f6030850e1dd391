//! Observers of inheritable components hear about entities that gain or lose
//! them through `IsA` (Flecs' default `self|up IsA` observer terms):
//! instantiating, a prefab gaining or losing the component, an `IsA` pair
//! removed, an instance or its prefab despawned. `OnRemove` runs while the
//! inherited value is readable; entities that own the component, or still
//! inherit it from another base, hear nothing.

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Speed(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Armor(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Copied(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Kept(u32);

#[derive(Resource, Default)]
struct Log(Vec<String>);

/// A world whose observers log `OnAdd`, `OnInsert` and `OnRemove` of `Speed`
/// (with the value the entity reads) and `OnAdd` of `Copied` and `Kept`.
fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<OnAdd, Speed>, q: Query<&Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("add {:?} {:?}", t.entity(), q.get(t.entity()).ok().map(|s| s.0)));
    });
    world.add_observer(|t: Trigger<OnInsert, Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("insert {:?}", t.entity()));
    });
    world.add_observer(|t: Trigger<OnRemove, Speed>, q: Query<&Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?} {:?}", t.entity(), q.get(t.entity()).ok().map(|s| s.0)));
    });
    world
        .add_observer(|t: Trigger<OnAdd, Copied>, mut log: ResMut<Log>| log.0.push(format!("copied {:?}", t.entity())));
    world.add_observer(|t: Trigger<OnAdd, Kept>, mut log: ResMut<Log>| log.0.push(format!("kept {:?}", t.entity())));
    world
}

fn take(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn add(e: Entity, value: u32) -> String {
    format!("add {e:?} Some({value})")
}

fn insert(e: Entity) -> String {
    format!("insert {e:?}")
}

fn remove(e: Entity, value: u32) -> String {
    format!("remove {e:?} Some({value})")
}

#[test]
fn instantiating_reports_the_inherited_value_once() {
    let mut world = world();
    let prefab = world.spawn((Prefab, Speed(3), Copied(1), Kept(2))).id();
    assert!(take(&mut world).is_empty(), "prefabs are not observed");
    let ship = world.instantiate(prefab);
    let mut log = take(&mut world);
    log.sort();
    // `Copied` is an owned copy (its own event); `Kept` is not inherited.
    let mut expected = vec![add(ship, 3), insert(ship), format!("copied {ship:?}")];
    expected.sort();
    assert_eq!(log, expected);
    // Through commands too.
    world.run_system_once(move |mut commands: Commands| {
        commands.spawn_empty().add_pair::<IsA>(prefab);
    });
    let log = take(&mut world);
    assert_eq!(log.len(), 3, "{log:?}");
}

#[test]
fn a_prefab_gaining_or_losing_a_component_reports_its_instances() {
    let mut world = world();
    let prefab = world.spawn(Prefab).id();
    let (a, b) = (world.instantiate(prefab), world.instantiate(prefab));
    let owner = world.instantiate(prefab);
    world.entity_mut(owner).insert(Speed(9));
    take(&mut world);
    world.entity_mut(prefab).insert(Speed(5));
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![add(a, 5), insert(a), add(b, 5), insert(b)];
    expected.sort();
    assert_eq!(log, expected, "the owner's own value hides the prefab's");
    world.entity_mut(prefab).remove::<Speed>();
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![remove(a, 5), remove(b, 5)];
    expected.sort();
    assert_eq!(log, expected, "reported while the inherited value is readable");
    assert!(!world.has::<Speed>(a));
    assert_eq!(world.get::<Speed>(owner), Some(&Speed(9)));
}

#[test]
fn removing_the_isa_pair_or_despawning_reports_the_loss() {
    let mut world = world();
    let prefab = world.spawn((Prefab, Speed(4))).id();
    let (a, b) = (world.instantiate(prefab), world.instantiate(prefab));
    take(&mut world);
    world.entity_mut(a).remove_pair::<IsA>(prefab);
    assert_eq!(take(&mut world), vec![remove(a, 4)]);
    world.despawn(b);
    assert_eq!(take(&mut world), vec![remove(b, 4)]);
    // Despawning the prefab removes `(IsA, prefab)` from its instances: they
    // lose what they inherited, once each.
    let (c, d) = (world.instantiate(prefab), world.instantiate(prefab));
    world.entity_mut(d).insert(Armor(1));
    take(&mut world);
    world.despawn(prefab);
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![remove(c, 4), remove(d, 4)];
    expected.sort();
    assert_eq!(log, expected);
    assert!(world.is_alive(c) && world.is_alive(d) && !world.has::<Speed>(c));
}

#[test]
fn a_prefab_chain_reports_the_instance_not_the_prefabs() {
    let mut world = world();
    let root = world.spawn(Prefab).id();
    let variant = world.spawn(Prefab).add_pair::<IsA>(root).id();
    let ship = world.instantiate(variant);
    take(&mut world);
    world.entity_mut(root).insert(Speed(7));
    assert_eq!(take(&mut world), vec![add(ship, 7), insert(ship)]);
    // The variant overriding it changes the value the ship reads, not whether it has one.
    world.entity_mut(variant).insert(Speed(8));
    assert!(take(&mut world).is_empty());
    assert_eq!(world.get::<Speed>(ship), Some(&Speed(8)));
    world.entity_mut(variant).remove::<Speed>();
    assert!(take(&mut world).is_empty(), "still inherited from the root");
    world.entity_mut(root).remove::<Speed>();
    assert_eq!(take(&mut world), vec![remove(ship, 7)]);
}

#[test]
fn a_second_base_keeps_the_component() {
    let mut world = world();
    let first = world.spawn((Prefab, Speed(1))).id();
    let second = world.spawn((Prefab, Speed(2))).id();
    let ship = world.instantiate(first);
    world.entity_mut(ship).add_pair::<IsA>(second);
    assert_eq!(take(&mut world), vec![add(ship, 1), insert(ship)], "the second base adds nothing new");
    world.entity_mut(first).remove::<Speed>();
    assert!(take(&mut world).is_empty(), "the second base still gives it");
    assert_eq!(world.get::<Speed>(ship), Some(&Speed(2)));
    world.entity_mut(ship).remove_pair::<IsA>(second);
    assert_eq!(take(&mut world), vec![remove(ship, 2)]);
}

#[test]
fn a_base_that_stops_being_a_prefab_takes_its_values_away() {
    // Only prefabs' values are inherited (`IsA`'s rustdoc).
    let mut world = world();
    let base = world.spawn((Prefab, Speed(6))).id();
    let ship = world.instantiate(base);
    take(&mut world);
    world.entity_mut(base).remove::<Prefab>();
    // The base gained nothing (it had its value all along).
    assert_eq!(take(&mut world), vec![remove(ship, 6)]);
    world.entity_mut(base).insert(Prefab);
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![add(ship, 6), insert(ship)];
    expected.sort();
    assert_eq!(log, expected);
}

#[test]
fn a_multi_component_observer_counts_inherited_components() {
    let mut world = world();
    world.add_observer(|t: Trigger<OnAdd, (Speed, Armor)>, mut log: ResMut<Log>| {
        log.0.push(format!("both {:?}", t.entity()));
    });
    let prefab = world.spawn((Prefab, Speed(1))).id();
    let ship = world.instantiate(prefab);
    take(&mut world);
    world.entity_mut(ship).insert(Armor(2));
    assert_eq!(take(&mut world), vec![format!("both {ship:?}")]);
}

#[test]
fn no_observer_no_cost_and_no_event_for_owned_values() {
    // Without observers of inheritable components nothing is reported (and
    // nothing computed); an entity that owns the value hears its own events only.
    let mut world = World::new();
    world.init_resource::<Log>();
    world
        .add_observer(|t: Trigger<OnAdd, Copied>, mut log: ResMut<Log>| log.0.push(format!("copied {:?}", t.entity())));
    let prefab = world.spawn((Prefab, Speed(1), Copied(1))).id();
    let ship = world.instantiate(prefab);
    assert_eq!(take(&mut world), vec![format!("copied {ship:?}")]);
    world.despawn(prefab);
    assert!(take(&mut world).is_empty());
}

#[test]
fn observers_registered_later_hear_later_changes() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let prefab = world.spawn((Prefab, Speed(1))).id();
    let ship = world.instantiate(prefab);
    world.add_observer(|t: Trigger<OnRemove, Speed>, mut log: ResMut<Log>| log.0.push(format!("{:?}", t.entity())));
    world.despawn(ship);
    assert_eq!(take(&mut world), vec![format!("{ship:?}")]);
}
