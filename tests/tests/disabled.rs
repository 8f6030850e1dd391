//! The built-in `Disabled` and `Prefab` tags hide entities from every query
//! (typed, runtime, in systems) that does not name them; observers still see
//! disabled entities, and `get` still reads them.

use std::collections::BTreeSet;

use ecs::archetype::ArchetypeFlags;

use ecs::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Poison;

#[derive(Resource, Default)]
struct Seen(Vec<Entity>);

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

#[test]
fn typed_queries_skip_disabled_and_prefab_entities_unless_they_name_them() {
    let mut world = World::new();
    let live = world.spawn(Health(1)).id();
    let disabled = world.spawn((Health(2), Disabled)).id();
    let prefab = world.spawn((Health(3), Prefab)).id();
    let both = world.spawn((Health(4), Prefab, Disabled)).id();
    assert_eq!(set(world.query_filtered::<Entity, With<Health>>().iter(&world)), set([live]));
    assert_eq!(set(world.query_filtered::<Entity, With<Disabled>>().iter(&world)), set([disabled]));
    assert_eq!(set(world.query_filtered::<Entity, With<Prefab>>().iter(&world)), set([prefab]));
    assert_eq!(set(world.query_filtered::<Entity, (With<Prefab>, With<Disabled>)>().iter(&world)), set([both]));
    assert_eq!(world.get::<Health>(disabled), Some(&Health(2)), "get still reads a disabled entity");
    // Enabling again: the entity moves back into a visible archetype.
    let mut q = world.query::<(Entity, &Health)>();
    assert_eq!(q.iter(&world).count(), 1);
    world.entity_mut(disabled).remove::<Disabled>();
    assert_eq!(set(q.iter(&world).map(|(e, _)| e)), set([live, disabled]));
    let flags = world.archetypes()[world.entities().location(both).unwrap().archetype].flags();
    assert!(flags.contains(ArchetypeFlags::DISABLED) && flags.contains(ArchetypeFlags::PREFAB));
}

#[test]
fn runtime_queries_skip_them_too() {
    let mut world = World::new();
    let live = world.spawn(Health(1)).id();
    let disabled = world.spawn((Health(2), Disabled)).id();
    world.spawn((Health(3), Prefab));
    for mut q in [world.query_dsl("Health").unwrap(), world.query_dsl_uncached("Health").unwrap()] {
        assert_eq!(set(q.iter(&world).map(|row| row.entity())), set([live]));
    }
    let mut q = world.query_dsl("Health, Disabled").unwrap();
    assert_eq!(set(q.iter(&world).map(|row| row.entity())), set([disabled]));
    // Naming it in any term matches them, as in Flecs (`?Disabled` is how a
    // query sees enabled and disabled entities alike); `!Disabled` names it
    // and excludes them.
    let mut q = world.query_dsl("Health, ?Disabled").unwrap();
    let rows: Vec<(Entity, bool)> = q.iter(&world).map(|row| (row.entity(), row.is_set(1))).collect();
    assert_eq!(set(rows), set([(live, false), (disabled, true)]));
    assert_eq!(world.query_dsl("Health, !Disabled").unwrap().count(&world), 1);
    let mut q = world.query_dsl("Health, ?Prefab").unwrap();
    assert_eq!(q.count(&world), 2);
}

#[test]
fn typed_queries_that_name_disabled_in_any_term_see_them() {
    let mut world = World::new();
    let live = world.spawn(Health(1)).id();
    let disabled = world.spawn((Health(2), Disabled)).id();
    let prefab = world.spawn((Health(3), Prefab)).id();
    // As in Bevy: `Has<Disabled>` names it; `Option<&Disabled>` (a read) does
    // not (bevy entity_disabling.rs `multiple_disabling_components`).
    let mut q = world.query::<(Entity, Has<Disabled>)>();
    assert_eq!(set(q.iter(&world)), set([(live, false), (disabled, true)]));
    let mut q = world.query_filtered::<(Entity, Option<&Disabled>), With<Health>>();
    assert_eq!(set(q.iter(&world).map(|(e, d)| (e, d.is_some()))), set([(live, false)]));
    let mut q = world.query_filtered::<Entity, Or<(With<Disabled>, With<Prefab>)>>();
    assert_eq!(set(q.iter(&world)), set([disabled, prefab]));
    let mut q = world.query::<(Entity, &Health, Has<Prefab>)>();
    assert_eq!(set(q.iter(&world).map(|(e, _, p)| (e, p))), set([(live, false), (prefab, true)]));
    // Not naming it: skipped.
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
}

#[test]
fn systems_skip_disabled_entities_and_observers_still_see_them() {
    fn hurt(mut healths: Query<&mut Health>) {
        for mut health in &mut healths {
            health.0 -= 1;
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|trigger: Trigger<OnAdd, Poison>, mut seen: ResMut<Seen>| seen.0.push(trigger.entity()));
    let live = world.spawn(Health(10)).id();
    let disabled = world.spawn((Health(10), Disabled)).id();
    let mut schedule = Schedule::default();
    schedule.add_systems(hurt);
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(live), Some(&Health(9)));
    assert_eq!(world.get::<Health>(disabled), Some(&Health(10)));
    world.entity_mut(disabled).insert(Poison);
    assert_eq!(world.resource::<Seen>().0, [disabled], "observers see disabled entities");
    let poisoned = world.run_system_once(|q: Query<Entity, With<Poison>>| q.iter().count());
    assert_eq!(poisoned, 0, "systems skip it");
}

/// Naming `Prefab` without requiring it matches prefabs, so writes of a
/// component instances inherit are refused there too: the `&mut` of a
/// prefab's value could alias an instance's shared read.
#[test]
fn naming_prefab_in_any_term_refuses_writes_of_inherited_components() {
    let mut world = World::new();
    world.spawn((Health(3), Prefab));
    let typed = ecs_tests::panic_message(|| {
        world.query::<(&mut Health, Has<Prefab>)>();
    });
    assert!(typed.contains("may match prefabs"), "{typed}");
    assert!(matches!(
        world.query_dsl("[inout] Health, ?Prefab"),
        Err(error) if error.message.contains("Health")
    ));
    // Not naming it: the prefab is hidden and the write allowed.
    assert_eq!(world.query::<&mut Health>().iter(&world).count(), 0);
}
