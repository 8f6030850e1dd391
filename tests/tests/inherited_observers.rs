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
fn a_plain_base_that_gives_up_its_value_uncovers_its_prefab() {
    // A base that is no prefab passes its own bases' values on, except the
    // ones it owns itself (`IsA`'s rustdoc).
    let mut world = world();
    let prefab = world.spawn((Prefab, Speed(2))).id();
    let plain = world.spawn(Speed(8)).add_pair::<IsA>(prefab).id();
    let ship = world.spawn_empty().add_pair::<IsA>(plain).id();
    assert!(!world.has::<Speed>(ship), "blocked by the plain base's own value");
    take(&mut world);
    world.entity_mut(plain).remove::<Speed>();
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![remove(plain, 8), add(plain, 2), insert(plain), add(ship, 2), insert(ship)];
    expected.sort();
    assert_eq!(log, expected, "the plain base's own value uncovered the prefab's");
}

#[test]
fn overwriting_a_prefab_value_reaches_the_instances_that_read_it() {
    let mut world = world();
    world.add_observer(|t: Trigger<OnReplace, Speed>, q: Query<&Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("replace {:?} {:?}", t.entity(), q.get(t.entity()).ok().map(|s| s.0)));
    });
    let prefab = world.spawn((Prefab, Speed(1))).id();
    let (a, owner) = (world.instantiate(prefab), world.instantiate(prefab));
    world.entity_mut(owner).insert(Speed(5));
    take(&mut world);
    world.entity_mut(prefab).insert(Speed(2));
    // The old value is readable in OnReplace, the new one after; the owner's own value hides the prefab's.
    assert_eq!(take(&mut world), vec![format!("replace {a:?} Some(1)"), insert(a)]);
    assert_eq!(world.get::<Speed>(a), Some(&Speed(2)));
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

// ===== model check: every entity hears once per gain and once per loss ====

/// Counts `OnAdd` minus `OnRemove` of `Speed` per entity.
#[derive(Resource, Default)]
struct Balance(std::collections::HashMap<Entity, i32>);

#[derive(Clone, Debug)]
enum Op {
    SpawnPrefab(bool),
    Variant(usize),
    Instantiate(usize),
    AddBase(usize, usize),
    RemoveBase(usize, usize),
    Insert(usize, u32),
    Remove(usize),
    Despawn(usize),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        any::<bool>().prop_map(Op::SpawnPrefab),
        any::<usize>().prop_map(Op::Variant),
        any::<usize>().prop_map(Op::Instantiate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::AddBase(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::RemoveBase(a, b)),
        (any::<usize>(), 0..100u32).prop_map(|(a, v)| Op::Insert(a, v)),
        any::<usize>().prop_map(Op::Remove),
        any::<usize>().prop_map(Op::Despawn),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("INHERITED_OBSERVER_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Random prefab chains, instances with several bases, values added and
    /// removed on prefabs and instances, despawns: after every step, each
    /// ordinary entity heard one more `OnAdd` than `OnRemove` exactly when it
    /// has `Speed` (owned or inherited), and a despawned one as many.
    #[test]
    fn every_gain_and_loss_is_heard_once(ops in proptest::collection::vec(op(), 1..60)) {
        let mut world = World::new();
        world.init_resource::<Balance>();
        world.add_observer(|t: Trigger<OnAdd, Speed>, q: Query<&Speed>, mut b: ResMut<Balance>| {
            assert!(q.get(t.entity()).is_ok(), "OnAdd {:?}: the value is readable", t.entity());
            *b.0.entry(t.entity()).or_default() += 1;
        });
        world.add_observer(|t: Trigger<OnRemove, Speed>, q: Query<&Speed>, mut b: ResMut<Balance>| {
            assert!(q.get(t.entity()).is_ok(), "OnRemove {:?}: the value is readable", t.entity());
            *b.0.entry(t.entity()).or_default() -= 1;
        });
        let (mut prefabs, mut instances, mut dead): (Vec<Entity>, Vec<Entity>, Vec<Entity>) = Default::default();
        for op in ops {
            let pick = |list: &[Entity], i: usize| (!list.is_empty()).then(|| list[i % list.len()]);
            match op {
                Op::SpawnPrefab(with) => {
                    let p = world.spawn(Prefab).id();
                    if with {
                        world.entity_mut(p).insert(Speed(1));
                    }
                    prefabs.push(p);
                }
                Op::Variant(i) => {
                    if let Some(base) = pick(&prefabs, i) {
                        let v = world.spawn(Prefab).add_pair::<IsA>(base).id();
                        prefabs.push(v);
                    }
                }
                Op::Instantiate(i) => {
                    if let Some(base) = pick(&prefabs, i) {
                        instances.push(world.instantiate(base));
                    }
                }
                Op::AddBase(i, j) => {
                    if let (Some(e), Some(base)) = (pick(&instances, i), pick(&prefabs, j)) {
                        world.entity_mut(e).add_pair::<IsA>(base);
                    }
                }
                Op::RemoveBase(i, j) => {
                    if let (Some(e), Some(base)) = (pick(&instances, i), pick(&prefabs, j)) {
                        world.entity_mut(e).remove_pair::<IsA>(base);
                    }
                }
                Op::Insert(i, v) => {
                    let all: Vec<Entity> = prefabs.iter().chain(&instances).copied().collect();
                    if let Some(e) = pick(&all, i) {
                        world.entity_mut(e).insert(Speed(v));
                    }
                }
                Op::Remove(i) => {
                    let all: Vec<Entity> = prefabs.iter().chain(&instances).copied().collect();
                    if let Some(e) = pick(&all, i) {
                        world.entity_mut(e).remove::<Speed>();
                    }
                }
                Op::Despawn(i) => {
                    let all: Vec<Entity> = prefabs.iter().chain(&instances).copied().collect();
                    if let Some(e) = pick(&all, i) {
                        world.despawn(e);
                    }
                }
            }
            prefabs.retain(|&e| world.is_alive(e));
            dead.extend(instances.iter().copied().filter(|&e| !world.is_alive(e)));
            instances.retain(|&e| world.is_alive(e));
            let balance = &world.resource::<Balance>().0;
            for &e in &instances {
                let heard = balance.get(&e).copied().unwrap_or(0);
                proptest::prop_assert_eq!(heard, i32::from(world.has::<Speed>(e)), "{:?}", e);
            }
            for &e in &dead {
                proptest::prop_assert_eq!(balance.get(&e).copied().unwrap_or(0), 0, "dead {:?}", e);
            }
            for &p in &prefabs {
                proptest::prop_assert_eq!(balance.get(&p).copied().unwrap_or(0), 0, "prefab {:?}", p);
            }
        }
    }
}

#[test]
fn a_panicking_observer_of_an_inherited_loss_does_not_stop_the_change() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    #[derive(Component)]
    #[component(on_instantiate = "dont_inherit")]
    struct Tracked;
    impl Drop for Tracked {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnRemove, Speed>, world: &World| {
        if !world.owns::<Speed>(t.entity()) {
            panic!("inherited loss of {:?}", t.entity());
        }
    });
    let prefab = world.spawn((Prefab, Speed(1), Tracked)).id();
    let (a, b) = (world.instantiate(prefab), world.instantiate(prefab));
    world.entity_mut(a).insert(Tracked);
    // The cleanup completes for both instances, then the panic goes on.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(prefab)));
    assert!(result.is_err());
    assert!(!world.is_alive(prefab));
    for e in [a, b] {
        assert!(world.is_alive(e) && !world.has_pair::<IsA>(e, prefab) && !world.has::<Speed>(e));
    }
    assert_eq!(DROPS.load(Ordering::SeqCst), 1, "the prefab's value");
    // A removal of the pair: done, then the panic.
    let prefab = world.spawn((Prefab, Speed(2))).id();
    let c = world.instantiate(prefab);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(c).remove_pair::<IsA>(prefab);
    }));
    assert!(result.is_err());
    assert!(!world.has_pair::<IsA>(c, prefab) && !world.has::<Speed>(c));
    drop(world);
    assert_eq!(DROPS.load(Ordering::SeqCst), 2, "every value dropped once");
}

// ===== from a review: each failed before its fix ==========================

fn sorted(mut log: Vec<String>) -> Vec<String> {
    log.sort();
    log
}

#[test]
fn an_entity_observer_hears_its_entity_inherit() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let prefab = world.spawn(Prefab).id();
    let ship = world.instantiate(prefab);
    world
        .entity_mut(ship)
        .observe(|t: Trigger<OnAdd, Speed>, mut log: ResMut<Log>| log.0.push(format!("add {:?}", t.entity())));
    world
        .entity_mut(ship)
        .observe(|t: Trigger<OnRemove, Speed>, mut log: ResMut<Log>| log.0.push(format!("remove {:?}", t.entity())));
    world.entity_mut(prefab).insert(Speed(1));
    assert_eq!(take(&mut world), vec![format!("add {ship:?}")]);
    world.entity_mut(prefab).remove::<Speed>();
    assert_eq!(take(&mut world), vec![format!("remove {ship:?}")]);
}

#[test]
fn a_base_becoming_a_prefab_with_an_overwrite_reports_the_gain_once() {
    let mut world = world();
    let base = world.spawn(Speed(1)).id();
    let ship = world.spawn_empty().add_pair::<IsA>(base).id();
    take(&mut world);
    world.entity_mut(base).insert((Prefab, Speed(2)));
    let log: Vec<String> = take(&mut world).into_iter().filter(|line| line.contains(&format!("{ship:?}"))).collect();
    assert_eq!(log, vec![add(ship, 2), insert(ship)]);
}

#[test]
fn a_panicking_observer_does_not_hide_other_instances_events() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let prefab = world.spawn((Prefab, Speed(1))).id();
    let (a, b) = (world.instantiate(prefab), world.instantiate(prefab));
    world.add_observer(move |t: Trigger<OnRemove, Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?}", t.entity()));
        assert_ne!(t.entity(), a, "boom");
    });
    world.add_observer(move |t: Trigger<OnAdd, Speed>, mut log: ResMut<Log>| {
        log.0.push(format!("add {:?}", t.entity()));
        assert_ne!(t.entity(), a, "boom");
    });
    let removal = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(prefab).remove::<Speed>();
    }));
    assert!(removal.is_err() && !world.has::<Speed>(b));
    assert_eq!(sorted(take(&mut world)), sorted(vec![format!("remove {a:?}"), format!("remove {b:?}")]));
    let insertion = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(prefab).insert(Speed(2));
    }));
    assert!(insertion.is_err() && world.has::<Speed>(b));
    assert_eq!(sorted(take(&mut world)), sorted(vec![format!("add {a:?}"), format!("add {b:?}")]));
}

#[test]
fn a_despawn_runs_a_multi_component_observer_once() {
    #[derive(Resource, Default)]
    struct Count(u32);
    let mut world = World::new();
    world.init_resource::<Count>();
    world.add_observer(|_: Trigger<OnRemove, (Speed, Armor)>, mut count: ResMut<Count>| count.0 += 1);
    let prefab = world.spawn((Prefab, Speed(1))).id();
    let owner = world.spawn((Speed(1), Armor(1))).id();
    world.despawn(owner);
    assert_eq!(world.resource::<Count>().0, 1);
    let ship = world.spawn((Armor(1), IsA.pair(prefab))).id();
    world.despawn(ship);
    assert_eq!(world.resource::<Count>().0, 2);
}

#[test]
fn despawning_the_component_reports_no_loss_never_gained() {
    let mut world = world();
    let prefab = world.spawn((Prefab, Speed(2))).id();
    let plain = world.spawn(Speed(8)).add_pair::<IsA>(prefab).id();
    let ship = world.spawn_empty().add_pair::<IsA>(plain).id();
    assert!(!world.has::<Speed>(ship), "blocked by the plain base");
    take(&mut world);
    world.despawn(world.component_id::<Speed>().unwrap());
    let log = take(&mut world);
    assert!(log.iter().all(|line| !line.contains(&format!("{ship:?}"))), "{log:?}");
}

#[test]
fn own_values_cover_and_uncover_inherited_ones_balanced() {
    let mut world = world();
    let prefab = world.spawn((Prefab, Speed(2))).id();
    // Own first, then a base: the inherited value stays covered.
    let e = world.spawn(Speed(8)).add_pair::<IsA>(prefab).id();
    assert_eq!(take(&mut world), vec![add(e, 8), insert(e)]);
    // Removing the own value uncovers the inherited one.
    world.entity_mut(e).remove::<Speed>();
    assert_eq!(take(&mut world), vec![remove(e, 8), add(e, 2), insert(e)]);
    // Covering it again: the inherited value's loss, then the own value's add.
    world.entity_mut(e).insert(Speed(9));
    assert_eq!(take(&mut world), vec![remove(e, 2), add(e, 9), insert(e)]);
    world.entity_mut(e).remove::<Speed>();
    take(&mut world);
    world.entity_mut(prefab).remove::<Speed>();
    assert_eq!(take(&mut world), vec![remove(e, 2)]);
    assert!(!world.has::<Speed>(e));
}
