//! Tags (zero-sized components) keep per-row change ticks unless declared
//! `change_detection = false`: `Added`/`Changed`/`Ref` on them, across moves,
//! overwrites, `add_id`, sparse tags and systems; untracked tags store nothing.

use ecs::prelude::*;

#[derive(Component)]
struct Enemy;

#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned;

#[derive(Component)]
#[component(change_detection = false)]
struct Marker;

#[derive(Component)]
struct Position(f32);

#[test]
fn added_and_changed_follow_tags_through_moves_and_overwrites() {
    let mut world = World::new();
    let mut added = world.query_filtered::<Entity, Added<Enemy>>();
    let mut changed = world.query_filtered::<Entity, Changed<Enemy>>();
    let a = world.spawn(Enemy).id();
    let b = world.spawn((Enemy, Position(0.0))).id();
    assert_eq!(added.iter(&world).count(), 2);
    assert_eq!(changed.iter(&world).count(), 2);
    // A move (insert of another component) keeps the tag's ticks.
    world.entity_mut(a).insert(Position(1.0));
    world.entity_mut(b).remove::<Position>();
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    // Overwriting is a change; writing through Mut too.
    world.entity_mut(a).insert(Enemy);
    *world.get_mut::<Enemy>(b).unwrap() = Enemy;
    assert_eq!(added.iter(&world).count(), 0);
    let mut rows = changed.iter(&world).collect::<Vec<_>>();
    rows.sort();
    assert_eq!(rows, vec![a, b]);
    world.check_invariants();
}

#[test]
fn a_tag_added_by_id_is_stamped_as_the_typed_insert_stamps_it() {
    let mut world = World::new();
    let enemy = world.register_component::<Enemy>();
    let mut added = world.query_filtered::<Entity, Added<Enemy>>();
    let _ = added.iter(&world).count();
    let e = world.spawn(Position(0.0)).id();
    assert!(world.add_id(e, enemy.id()));
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    let mut changed = world.query_filtered::<Entity, Changed<Enemy>>();
    let _ = changed.iter(&world).count();
    assert!(world.add_id(e, enemy.id()));
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e], "adding it again is a change");
    assert_eq!(world.get::<Position>(e).map(|p| p.0), Some(0.0));
    assert_eq!(added.iter(&world).count(), 0);
    world.check_invariants();
}

#[test]
fn sparse_tags_and_ref_work_too_and_systems_see_tags_added_since_their_last_run() {
    #[derive(Resource, Default)]
    struct Seen(Vec<usize>);
    fn newly_stunned(q: Query<Entity, Added<Stunned>>, refs: Query<Ref<Enemy>>, mut seen: ResMut<Seen>) {
        seen.0.push(q.iter().count() * 10 + refs.iter().filter(|r| r.is_added()).count());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems(newly_stunned);
    world.spawn((Stunned, Enemy));
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.spawn(Stunned);
    world.spawn(Enemy);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, vec![11, 0, 11]);
}

#[test]
fn untracked_tags_store_no_column() {
    let mut world = World::new();
    let e = world.spawn((Marker, Enemy)).id();
    let marker = world.component_id::<Marker>().unwrap().id();
    let enemy = world.component_id::<Enemy>().unwrap().id();
    let archetype = &world.archetypes()[world.entities().location(e).unwrap().archetype];
    assert_eq!(archetype.column_of(marker), None);
    assert!(archetype.column_of(enemy).is_some(), "a tracked tag has a column of ticks");
    let mut q = world.query::<&mut Marker>();
    for marker in q.iter_mut(&mut world) {
        assert!(!marker.is_changed() && !marker.is_added());
    }
}
