//! Toggleable components (`#[component(toggle)]`): disabling and enabling a
//! value per entity without a move, the enabled bit travelling with the value
//! through table moves and swap-removes, and every query term (typed, runtime,
//! DSL) treating a disabled value as absent. A proptest compares queries with
//! a naive model after random operations; drop counts show every value is
//! dropped exactly once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::system::CommandQueue;
use proptest::prelude::*;

/// Toggleable, with data.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(toggle)]
struct Thrust(u32);

/// Not toggleable.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Mass(u32);

/// Not toggleable, used to move entities between tables.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Extra(u32);

/// A toggleable tag without change detection: it gets a column only for its bits.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(toggle, change_detection = false)]
struct Shielded;

/// A toggleable value that counts its drops.
#[derive(Component, Debug)]
#[component(toggle)]
struct Fuel {
    amount: u32,
    drops: Arc<AtomicUsize>,
}

impl Drop for Fuel {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

/// The entities of `query`'s rows, sorted.
fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}

fn thrusting(world: &mut World) -> Vec<Entity> {
    sorted(world.query::<(Entity, &Thrust)>().iter(world).map(|(entity, _)| entity).collect())
}

fn without_thrust(world: &mut World) -> Vec<Entity> {
    sorted(world.query_filtered::<Entity, Without<Thrust>>().iter(world).collect())
}

#[test]
fn disable_enable_and_is_enabled() {
    let mut world = World::new();
    let a = world.spawn((Thrust(1), Mass(10))).id();
    let b = world.spawn((Thrust(2), Mass(20))).id();
    let archetype = world.entity(a).archetype();
    assert!(world.is_enabled::<Thrust>(a));

    world.entity_mut(a).disable::<Thrust>();
    assert!(!world.is_enabled::<Thrust>(a));
    assert!(world.is_enabled::<Thrust>(b));
    // No move: same archetype, same row.
    assert_eq!(world.entity(a).archetype(), archetype);
    // The value is still stored, readable and writable.
    assert_eq!(world.get::<Thrust>(a), Some(&Thrust(1)));
    world.get_mut::<Thrust>(a).unwrap().0 = 5;
    assert_eq!(world.get::<Thrust>(a), Some(&Thrust(5)));
    assert!(world.has::<Thrust>(a));
    assert_eq!(thrusting(&mut world), vec![b]);

    // Disabling twice, enabling twice: idempotent; chaining returns the view.
    world.entity_mut(a).disable::<Thrust>().disable::<Thrust>();
    assert!(!world.is_enabled::<Thrust>(a));
    world.entity_mut(a).enable::<Thrust>().enable::<Thrust>();
    assert!(world.is_enabled::<Thrust>(a));
    assert_eq!(thrusting(&mut world), sorted(vec![a, b]));
    world.check_invariants();
}

#[test]
fn missing_component_dead_entity_and_non_toggle_components() {
    let mut world = World::new();
    let bare = world.spawn(Mass(1)).id();
    // Lacking `Thrust`: disable and enable do nothing, is_enabled is false.
    world.entity_mut(bare).disable::<Thrust>().enable::<Thrust>();
    assert!(!world.is_enabled::<Thrust>(bare));
    assert_eq!(world.query::<&Mass>().iter(&world).count(), 1);
    // A component that is not toggleable: is_enabled is "has it".
    assert!(world.is_enabled::<Mass>(bare));
    assert!(!world.is_enabled::<Extra>(bare));
    let gone = world.spawn(Thrust(1)).id();
    world.despawn(gone);
    assert!(!world.is_enabled::<Thrust>(gone));
    world.check_invariants();
}

#[test]
#[should_panic(expected = "cannot disable Thrust on entity")]
fn disabling_on_a_view_of_a_despawned_entity_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1)).id();
    let mut view = world.entity_mut(e);
    let id = view.id();
    view.world_mut().despawn(id);
    view.disable::<Thrust>();
}

#[test]
fn new_values_start_enabled_and_reinsert_keeps_the_bit() {
    let mut world = World::new();
    let e = world.spawn(Mass(1)).id();
    world.entity_mut(e).insert(Thrust(1));
    assert!(world.is_enabled::<Thrust>(e));
    world.entity_mut(e).disable::<Thrust>();
    // Replacing the value keeps it disabled (documented choice).
    world.entity_mut(e).insert(Thrust(2));
    assert!(!world.is_enabled::<Thrust>(e));
    assert_eq!(world.get::<Thrust>(e), Some(&Thrust(2)));
    // Replacing it together with a new component (a move) keeps it disabled too.
    world.entity_mut(e).insert((Thrust(3), Extra(0)));
    assert!(!world.is_enabled::<Thrust>(e));
    // Removing forgets the bit: a value added later starts enabled.
    world.entity_mut(e).remove::<Thrust>();
    world.entity_mut(e).insert(Thrust(4));
    assert!(world.is_enabled::<Thrust>(e));
    world.check_invariants();
}

#[test]
fn moves_between_tables_keep_the_bit() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..70).map(|i| world.spawn((Thrust(i), Mass(i))).id()).collect();
    // Disable every third one, then move every other one to other tables.
    for &e in entities.iter().step_by(3) {
        world.entity_mut(e).disable::<Thrust>();
    }
    for (i, &e) in entities.iter().enumerate() {
        if i % 2 == 0 {
            world.entity_mut(e).insert(Extra(0));
        }
        if i % 5 == 0 {
            world.entity_mut(e).remove::<Mass>();
        }
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.is_enabled::<Thrust>(e), i % 3 != 0, "entity {i}");
        assert_eq!(world.get::<Thrust>(e), Some(&Thrust(i as u32)));
    }
    // And back again.
    for &e in &entities {
        world.entity_mut(e).remove::<Extra>().insert(Mass(0));
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.is_enabled::<Thrust>(e), i % 3 != 0, "entity {i}");
    }
    let expected: Vec<Entity> = entities.iter().enumerate().filter(|(i, _)| i % 3 != 0).map(|(_, &e)| e).collect();
    assert_eq!(thrusting(&mut world), sorted(expected));
    world.check_invariants();
}

#[test]
fn despawn_swap_remove_keeps_the_other_rows_bits() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..130).map(|i| world.spawn(Thrust(i)).id()).collect();
    // Disable the last row and a few others; despawning earlier rows moves
    // the last rows into their places.
    for &i in &[129_usize, 128, 64, 63, 1] {
        world.entity_mut(entities[i]).disable::<Thrust>();
    }
    for &i in &[0_usize, 2, 63, 100] {
        world.despawn(entities[i]);
    }
    world.check_invariants();
    for (i, &e) in entities.iter().enumerate() {
        if [0, 2, 63, 100].contains(&i) {
            assert!(!world.is_alive(e));
            continue;
        }
        assert_eq!(world.is_enabled::<Thrust>(e), ![129, 128, 64, 1].contains(&i), "entity {i}");
    }
    // Despawning the last row itself clears its bit (checked by the invariant check).
    let last = *world.archetypes()[world.entity(entities[1]).archetype()].entities().last().unwrap();
    world.entity_mut(last).disable::<Thrust>();
    world.despawn(last);
    world.check_invariants();
    // A new entity in the freed row starts enabled.
    let fresh = world.spawn(Thrust(1000)).id();
    assert!(world.is_enabled::<Thrust>(fresh));
    world.check_invariants();
}

#[test]
fn clearing_and_garbage_collection_forget_the_bits() {
    let mut world = World::new();
    let a = world.spawn((Thrust(1), Extra(1))).id();
    world.entity_mut(a).disable::<Thrust>();
    world.clear_entities();
    world.check_invariants();
    let b = world.spawn((Thrust(2), Extra(2))).id();
    assert!(world.is_enabled::<Thrust>(b));
    world.despawn(b);
    for _ in 0..4 {
        world.collect_garbage(ecs::world::GcConfig { empty_for: 1, max_time: None });
    }
    let c = world.spawn((Thrust(3), Extra(3))).id();
    assert!(world.is_enabled::<Thrust>(c));
    world.check_invariants();
}

#[test]
fn every_typed_term_treats_a_disabled_value_as_absent() {
    let mut world = World::new();
    let on = world.spawn((Thrust(1), Mass(1))).id();
    let off = world.spawn((Thrust(2), Mass(2))).id();
    let none = world.spawn(Mass(3)).id();
    world.entity_mut(off).disable::<Thrust>();

    assert_eq!(thrusting(&mut world), vec![on]);
    let mut writes = world.query::<(Entity, &mut Thrust)>();
    let written: Vec<Entity> = writes.iter_mut(&mut world).map(|(e, _)| e).collect();
    assert_eq!(written, vec![on]);
    let mut refs = world.query::<(Entity, Ref<Thrust>)>();
    assert_eq!(refs.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![on]);

    let mut optional = world.query::<(Entity, Option<&Thrust>)>();
    let mut rows: Vec<(Entity, Option<u32>)> = optional.iter(&world).map(|(e, t)| (e, t.map(|t| t.0))).collect();
    rows.sort();
    assert_eq!(rows, sorted_pairs(vec![(on, Some(1)), (off, None), (none, None)]));

    let mut has = world.query::<(Entity, Has<Thrust>)>();
    let mut rows: Vec<(Entity, bool)> = has.iter(&world).collect();
    rows.sort();
    assert_eq!(rows, sorted_pairs(vec![(on, true), (off, false), (none, false)]));

    let mut with = world.query_filtered::<Entity, With<Thrust>>();
    assert_eq!(with.iter(&world).collect::<Vec<_>>(), vec![on]);
    assert_eq!(without_thrust(&mut world), sorted(vec![off, none]));

    let mut or = world.query_filtered::<Entity, (With<Mass>, Or<(With<Thrust>, With<Extra>)>)>();
    assert_eq!(or.iter(&world).collect::<Vec<_>>(), vec![on]);
    let mut or_without = world.query_filtered::<Entity, Or<(Without<Thrust>, With<Extra>)>>();
    assert_eq!(
        sorted(or_without.iter(&world).filter(|e| [on, off, none].contains(e)).collect()),
        sorted(vec![off, none])
    );

    // Without<Thrust> combined with a read of Thrust's neighbour.
    let mut masses = world.query_filtered::<&Mass, Without<Thrust>>();
    let mut values: Vec<u32> = masses.iter(&world).map(|m| m.0).collect();
    values.sort();
    assert_eq!(values, vec![2, 3]);

    // for_each (fold) and next agree.
    let mut count = 0;
    world.query::<&Thrust>().iter(&world).for_each(|_| count += 1);
    assert_eq!(count, 1);
    assert_eq!(world.query::<&Thrust>().iter(&world).size_hint().0, 0);
}

#[test]
fn tables_whose_values_are_all_enabled_take_the_check_free_loop_correctly() {
    let mut world = World::new();
    // One table with every value enabled (rows past 64, so several words),
    // one with a single disabled value.
    let all_on: Vec<Entity> = (0..100).map(|i| world.spawn((Thrust(i), Mass(i))).id()).collect();
    let mixed: Vec<Entity> = (0..100).map(|i| world.spawn((Thrust(i), Mass(i), Extra(i))).id()).collect();
    world.entity_mut(mixed[99]).disable::<Thrust>();
    let mut expected = all_on.clone();
    expected.extend(&mixed[..99]);
    for _ in 0..2 {
        assert_eq!(thrusting(&mut world), sorted(expected.clone()));
        let mut count = 0;
        world.query::<&Thrust>().iter(&world).for_each(|_| count += 1);
        assert_eq!(count, 199);
        let mut with = world.query_filtered::<Entity, With<Thrust>>();
        assert_eq!(sorted(with.iter(&world).collect()), sorted(expected.clone()));
        assert_eq!(without_thrust(&mut world), vec![mixed[99]]);
        let mut or = world.query_filtered::<Entity, Or<(Without<Thrust>, With<Extra>)>>();
        assert_eq!(sorted(or.iter(&world).collect()), sorted(mixed.clone()));
        let mut or = world.query_filtered::<Entity, Or<(With<Thrust>, With<Extra>)>>();
        assert_eq!(or.iter(&world).count(), 200);
        // Enabling the last one makes both tables all-enabled.
        world.entity_mut(mixed[99]).enable::<Thrust>();
        expected.push(mixed[99]);
        assert_eq!(without_thrust(&mut world), Vec::<Entity>::new());
        world.entity_mut(mixed[99]).disable::<Thrust>();
        expected.pop();
    }
}

fn sorted_pairs<T: Ord>(mut rows: Vec<T>) -> Vec<T> {
    rows.sort();
    rows
}

#[test]
fn toggleable_tag_without_change_detection() {
    let mut world = World::new();
    let a = world.spawn((Shielded, Mass(1))).id();
    let b = world.spawn((Shielded, Mass(2))).id();
    world.entity_mut(a).disable::<Shielded>();
    assert!(!world.is_enabled::<Shielded>(a));
    assert!(world.get::<Shielded>(a).is_some());
    let mut q = world.query_filtered::<Entity, With<Shielded>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![b]);
    let mut q = world.query::<(Entity, &Shielded)>();
    assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![b]);
    let mut q = world.query_filtered::<Entity, Without<Shielded>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![a]);
    world.entity_mut(b).insert(Extra(0));
    world.entity_mut(a).insert(Extra(0));
    assert!(!world.is_enabled::<Shielded>(a));
    assert!(world.is_enabled::<Shielded>(b));
    world.check_invariants();
}

#[test]
fn a_toggleable_tag_added_by_id_starts_enabled() {
    let mut world = World::new();
    let shielded = world.register_component::<Shielded>();
    let e = world.spawn(Mass(1)).id();
    assert!(world.add_id(e, shielded.id()));
    assert!(world.is_enabled::<Shielded>(e));
    world.entity_mut(e).disable::<Shielded>();
    assert!(!world.is_enabled::<Shielded>(e));
    assert_eq!(world.query_filtered::<Entity, Without<Shielded>>().iter(&world).collect::<Vec<_>>(), vec![e]);
    world.check_invariants();
}

#[test]
fn query_get_agrees_with_iteration() {
    let mut world = World::new();
    let on = world.spawn((Thrust(1), Mass(1))).id();
    let off = world.spawn((Thrust(2), Mass(2))).id();
    world.entity_mut(off).disable::<Thrust>();
    let mut reads = world.query::<&Thrust>();
    assert_eq!(reads.get(&world, on).map(|t| t.0), Ok(1));
    assert_eq!(reads.get(&world, off).map(|t| t.0), Err(QueryError::QueryDoesNotMatch(off)));
    let mut writes = world.query::<&mut Thrust>();
    assert!(writes.get_mut(&mut world, off).is_err());
    assert!(writes.get_mut(&mut world, on).is_ok());
    let mut without = world.query_filtered::<&Mass, Without<Thrust>>();
    assert_eq!(without.get(&world, off).map(|m| m.0), Ok(2));
    assert!(without.get(&world, on).is_err());
    let mut has = world.query::<Has<Thrust>>();
    assert_eq!((has.get(&world, on), has.get(&world, off)), (Ok(true), Ok(false)));
}

#[test]
fn par_iter_agrees() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..1000).map(|i| world.spawn((Thrust(i), Mass(0))).id()).collect();
    for &e in entities.iter().filter(|e| e.index() % 7 == 0) {
        world.entity_mut(e).disable::<Thrust>();
    }
    let expected = entities.iter().filter(|e| e.index() % 7 != 0).count();
    let count = AtomicUsize::new(0);
    world.query::<&Thrust>().par_iter(&world).for_each(|_| {
        count.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), expected);
    let mut q = world.query::<(&Thrust, &mut Mass)>();
    q.par_iter_mut(&mut world).batch_size(16).for_each(|(_, mut mass)| mass.0 += 1);
    for &e in &entities {
        assert_eq!(world.get::<Mass>(e).unwrap().0, u32::from(e.index() % 7 != 0));
    }
    let without = AtomicUsize::new(0);
    world.query_filtered::<&Mass, Without<Thrust>>().par_iter(&world).batch_size(16).for_each(|_| {
        without.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(without.into_inner(), entities.len() - expected);
}

#[test]
fn change_ticks_are_untouched_by_toggling_and_filters_skip_disabled_values() {
    let mut world = World::new();
    let a = world.spawn(Thrust(1)).id();
    let b = world.spawn(Thrust(2)).id();
    let mut added = world.query_filtered::<Entity, Added<Thrust>>();
    let mut changed = world.query_filtered::<Entity, Changed<Thrust>>();
    world.entity_mut(b).disable::<Thrust>();
    // Both were added, but b's value is disabled.
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![a]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![a]);
    // Toggling is not a change.
    world.entity_mut(b).enable::<Thrust>();
    world.entity_mut(a).disable::<Thrust>();
    assert_eq!(changed.iter(&world).count(), 0);
    // A write to a disabled value is a change, seen once it is enabled again.
    world.get_mut::<Thrust>(a).unwrap().0 = 10;
    world.get_mut::<Thrust>(b).unwrap().0 = 20;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![b]);
    world.get_mut::<Thrust>(a).unwrap().0 = 11;
    world.entity_mut(a).enable::<Thrust>();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![a]);
}

#[test]
fn runtime_queries_and_the_dsl_agree() {
    let mut world = World::new();
    let on = world.spawn((Thrust(1), Mass(1))).id();
    let off = world.spawn((Thrust(2), Mass(2))).id();
    let none = world.spawn(Mass(3)).id();
    world.entity_mut(off).disable::<Thrust>();
    let thrust = world.register_component::<Thrust>();
    let mass = world.register_component::<Mass>();

    let rows = |q: &mut ecs::query::DynQuery, world: &World| sorted(q.iter(world).map(|row| row.entity()).collect());
    for cached in [true, false] {
        let builder = || world.query_builder();
        let build = |b: ecs::query::QueryBuilder| if cached { b.build().unwrap() } else { b.build_uncached().unwrap() };
        assert_eq!(rows(&mut build(builder().read(thrust)), &world), vec![on]);
        assert_eq!(rows(&mut build(builder().read(mass).without(thrust)), &world), sorted(vec![off, none]));
        assert_eq!(rows(&mut build(builder().read(mass).with(thrust)), &world), vec![on]);
        let mut optional = build(builder().read(mass).optional(thrust));
        let mut seen: Vec<(Entity, Option<u32>, bool)> =
            optional.iter(&world).map(|row| (row.entity(), row.get::<Thrust>(1).map(|t| t.0), row.is_set(1))).collect();
        seen.sort();
        assert_eq!(seen, sorted_pairs(vec![(on, Some(1), true), (off, None, false), (none, None, false)]));
    }
    let mut q = world.query_dsl("Thrust").unwrap();
    assert_eq!(rows(&mut q, &world), vec![on]);
    let mut q = world.query_dsl("Mass, !Thrust").unwrap();
    assert_eq!(rows(&mut q, &world), sorted(vec![off, none]));
    let mut q = world.query_dsl("Mass, ?Thrust").unwrap();
    assert_eq!(q.count(&world), 3);
    assert_eq!(q.iter(&world).filter(|row| row.get::<Thrust>(1).is_some()).count(), 1);

    // Table-at-a-time: the table is not dense; row_matches tells the rows apart.
    let mut q = world.query_builder().read(thrust).build().unwrap();
    let mut matching = Vec::new();
    for table in q.iter_tables(&world) {
        assert!(!table.is_dense());
        for row in 0..table.len() {
            if table.row_matches(row) {
                matching.push(table.entities()[row]);
            }
        }
    }
    assert_eq!(matching, vec![on]);

    // Writes through a runtime query skip disabled values.
    let mut q = world.query_builder().write(thrust).build().unwrap();
    q.iter_mut(&mut world).for_each(|mut row| row.get_mut::<Thrust>(0).unwrap().0 += 100);
    assert_eq!((world.get::<Thrust>(on).unwrap().0, world.get::<Thrust>(off).unwrap().0), (101, 2));
}

#[test]
fn a_disabled_value_on_another_entity_counts_as_absent() {
    let mut world = World::new();
    let root = world.spawn(Thrust(1)).id();
    let middle = world.spawn(Thrust(2)).id();
    let leaf = world.spawn(Mass(0)).id();
    world.add_pair::<ChildOf>(middle, root);
    world.add_pair::<ChildOf>(leaf, middle);
    world.entity_mut(middle).disable::<Thrust>();
    // `up` skips the disabled value of the parent and finds the root's.
    let mut up = world.query::<(Entity, Up<ChildOf, &Thrust>)>();
    let mut rows: Vec<(Entity, u32)> = up.iter(&world).map(|(e, t)| (e, t.0)).collect();
    rows.sort();
    assert_eq!(rows, sorted_pairs(vec![(middle, 1), (leaf, 1)]));
    let childof = world.register_component::<ChildOf>();
    let thrust = world.register_component::<Thrust>();
    let mut q =
        world.query_builder().read(world.register_component::<Mass>()).read(thrust).up(childof).build().unwrap();
    let found: Vec<(Entity, u32)> = q.iter(&world).map(|row| (row.entity(), row.get::<Thrust>(1).unwrap().0)).collect();
    assert_eq!(found, vec![(leaf, 1)]);
    // A fixed source whose value is disabled does not match.
    let mut fixed = world.query_builder().read(thrust).source(middle).build().unwrap();
    assert_eq!(fixed.count(&world), 0);
    world.entity_mut(middle).enable::<Thrust>();
    assert_eq!(fixed.count(&world), 1);
}

#[test]
fn commands_disable_and_enable() {
    let mut world = World::new();
    let e = world.spawn(Thrust(1)).id();
    let dead = world.spawn(Thrust(2)).id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).disable::<Thrust>();
    commands.entity(dead).despawn();
    commands.entity(dead).disable::<Thrust>();
    queue.apply(&mut world);
    assert!(!world.is_enabled::<Thrust>(e));
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).enable::<Thrust>();
    queue.apply(&mut world);
    assert!(world.is_enabled::<Thrust>(e));
}

#[test]
fn systems_see_only_enabled_values() {
    #[derive(Resource, Default)]
    struct Seen(usize, usize);
    fn count(thrust: Query<&Thrust>, idle: Query<Entity, Without<Thrust>>, mut seen: ResMut<Seen>) {
        seen.0 = thrust.iter().count();
        seen.1 = idle.iter().count();
    }
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let a = world.spawn(Thrust(1)).id();
    world.spawn(Thrust(2));
    world.entity_mut(a).disable::<Thrust>();
    let mut schedule = Schedule::default();
    schedule.add_systems(count);
    schedule.run(&mut world);
    assert_eq!((world.resource::<Seen>().0, world.resource::<Seen>().1), (1, 1));
}

#[test]
fn every_value_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let fuel = |amount| Fuel { amount, drops: Arc::clone(&drops) };
    let mut world = World::new();
    let entities: Vec<Entity> = (0..100).map(|i| world.spawn((fuel(i), Mass(i))).id()).collect();
    for &e in entities.iter().step_by(2) {
        world.entity_mut(e).disable::<Fuel>();
    }
    // Moves (the value travels), replacements (the old value dropped), removals, despawns.
    for &e in entities.iter().step_by(3) {
        world.entity_mut(e).insert(Extra(0));
    }
    assert_eq!(drops.load(Ordering::Relaxed), 0);
    for &e in entities.iter().take(10) {
        world.entity_mut(e).insert(fuel(1000));
    }
    assert_eq!(drops.load(Ordering::Relaxed), 10);
    for &e in entities.iter().skip(10).take(10) {
        world.entity_mut(e).remove::<Fuel>();
    }
    assert_eq!(drops.load(Ordering::Relaxed), 20);
    for &e in entities.iter().skip(20).take(10) {
        let taken = world.entity_mut(e).take::<Fuel>().expect("has fuel");
        assert_eq!(taken.amount, e.index() - entities[0].index());
    }
    assert_eq!(drops.load(Ordering::Relaxed), 30);
    for &e in entities.iter().skip(30).take(10) {
        world.despawn(e);
    }
    assert_eq!(drops.load(Ordering::Relaxed), 40);
    let enabled = world.query::<&Fuel>().iter(&world).count();
    assert_eq!(enabled, (40..100).filter(|i| i % 2 == 1).count() + (0..10).filter(|i| i % 2 == 1).count());
    world.check_invariants();
    drop(world);
    assert_eq!(drops.load(Ordering::Relaxed), 110);
}

/// One random operation of the model test.
#[derive(Clone, Debug)]
enum Op {
    Spawn { thrust: Option<u32>, extra: bool },
    Insert(usize, u32),
    Remove(usize),
    InsertExtra(usize),
    RemoveExtra(usize),
    Disable(usize),
    Enable(usize),
    Despawn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (proptest::option::of(0..1000_u32), any::<bool>()).prop_map(|(thrust, extra)| Op::Spawn { thrust, extra }),
        2 => (any::<usize>(), 0..1000_u32).prop_map(|(i, v)| Op::Insert(i, v)),
        1 => any::<usize>().prop_map(Op::Remove),
        1 => any::<usize>().prop_map(Op::InsertExtra),
        1 => any::<usize>().prop_map(Op::RemoveExtra),
        3 => any::<usize>().prop_map(Op::Disable),
        2 => any::<usize>().prop_map(Op::Enable),
        1 => any::<usize>().prop_map(Op::Despawn),
    ]
}

/// The model of one alive entity: its `Thrust` (value, enabled), if any.
type Model = BTreeMap<Entity, Option<(u32, bool)>>;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn queries_match_a_naive_model(ops in proptest::collection::vec(op(), 1..120)) {
        let mut world = World::new();
        let mut model: Model = BTreeMap::new();
        let mut reads = world.query::<(Entity, &Thrust)>();
        let mut without = world.query_filtered::<Entity, (Without<Thrust>, With<Mass>)>();
        let mut has = world.query_filtered::<(Entity, Has<Thrust>), With<Mass>>();
        let pick = |model: &Model, i: usize| (!model.is_empty()).then(|| *model.keys().nth(i % model.len()).unwrap());
        for op in ops {
            match op {
                Op::Spawn { thrust, extra } => {
                    let e = world.spawn(Mass(0)).id();
                    if let Some(value) = thrust {
                        world.entity_mut(e).insert(Thrust(value));
                    }
                    if extra {
                        world.entity_mut(e).insert(Extra(0));
                    }
                    model.insert(e, thrust.map(|value| (value, true)));
                }
                Op::Insert(i, value) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).insert(Thrust(value));
                    let slot = model.get_mut(&e).unwrap();
                    *slot = Some((value, slot.is_none_or(|(_, enabled)| enabled)));
                },
                Op::Remove(i) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).remove::<Thrust>();
                    model.insert(e, None);
                },
                Op::InsertExtra(i) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).insert(Extra(1));
                },
                Op::RemoveExtra(i) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).remove::<Extra>();
                },
                Op::Disable(i) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).disable::<Thrust>();
                    if let Some((_, enabled)) = model.get_mut(&e).unwrap() {
                        *enabled = false;
                    }
                },
                Op::Enable(i) => if let Some(e) = pick(&model, i) {
                    world.entity_mut(e).enable::<Thrust>();
                    if let Some((_, enabled)) = model.get_mut(&e).unwrap() {
                        *enabled = true;
                    }
                },
                Op::Despawn(i) => if let Some(e) = pick(&model, i) {
                    world.despawn(e);
                    model.remove(&e);
                },
            }
        }
        world.check_invariants();
        let expected_reads: Vec<(Entity, u32)> = model
            .iter()
            .filter_map(|(&e, thrust)| thrust.filter(|(_, enabled)| *enabled).map(|(value, _)| (e, value)))
            .collect();
        let mut got: Vec<(Entity, u32)> = reads.iter(&world).map(|(e, t)| (e, t.0)).collect();
        got.sort();
        prop_assert_eq!(&got, &expected_reads);
        let expected_without: Vec<Entity> = model
            .iter()
            .filter(|(_, thrust)| !thrust.is_some_and(|(_, enabled)| enabled))
            .map(|(&e, _)| e)
            .collect();
        prop_assert_eq!(sorted(without.iter(&world).collect()), expected_without.clone());
        let mut has_rows: Vec<(Entity, bool)> = has.iter(&world).collect();
        has_rows.sort();
        let expected_has: Vec<(Entity, bool)> =
            model.iter().map(|(&e, thrust)| (e, thrust.is_some_and(|(_, enabled)| enabled))).collect();
        prop_assert_eq!(has_rows, expected_has);
        for (&e, thrust) in &model {
            prop_assert_eq!(world.is_enabled::<Thrust>(e), thrust.is_some_and(|(_, enabled)| enabled));
            prop_assert_eq!(world.get::<Thrust>(e).map(|t| t.0), thrust.map(|(value, _)| value));
            prop_assert_eq!(reads.get(&world, e).is_ok(), thrust.is_some_and(|(_, enabled)| enabled));
        }
        // The runtime query and the DSL agree with the model too.
        let mut dsl_reads = world.query_dsl("Thrust").unwrap();
        let got: Vec<Entity> = sorted(dsl_reads.iter(&world).map(|row| row.entity()).collect());
        prop_assert_eq!(got, expected_reads.iter().map(|(e, _)| *e).collect::<Vec<_>>());
        let mut dsl_without = world.query_dsl("Mass, !Thrust").unwrap();
        prop_assert_eq!(sorted(dsl_without.iter(&world).map(|row| row.entity()).collect()), expected_without);
    }
}
