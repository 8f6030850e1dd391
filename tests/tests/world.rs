//! The `World` API: spawn, spawn_batch, insert, remove, despawn, `EntityRef`,
//! `EntityWorldMut`, resources, and the errors and panics for bad input.

use ecs::entity::ArchetypeId;
use ecs::prelude::*;
use ecs_tests::panic_message;
use ecs_tests::{Enemy, Position, Velocity};

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Debug, PartialEq)]
struct Health(f32);

#[derive(Bundle)]
struct Mover {
    pos: Position,
    vel: Velocity,
}

#[derive(Resource, Default, Debug, PartialEq)]
struct Time {
    dt: f32,
}

#[derive(Resource, Debug, PartialEq)]
struct Score(u64);

#[derive(Resource)]
struct Missing;

fn pos(x: f32) -> Position {
    Position { x, y: 0.0 }
}

// ----- spawn -------------------------------------------------------------------------

#[test]
fn spawn_places_every_component_of_the_bundle() {
    let mut world = World::new();
    let e = world.spawn((Position { x: 1.0, y: 2.0 }, Velocity { x: 3.0, y: 4.0 }, Enemy, Stunned(5))).id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity { x: 3.0, y: 4.0 }));
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(5)));
    assert!(!world.has::<Health>(e));
    assert_eq!(world.get::<Health>(e), None);
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn spawn_returns_a_view_of_the_new_entity() {
    let mut world = World::new();
    let mut view = world.spawn(pos(1.0));
    let e = view.id();
    assert_eq!(view.get::<Position>(), Some(&pos(1.0)));
    view.insert(Enemy).insert(Health(2.0));
    assert!(view.contains::<Enemy>());
    assert_eq!(view.location(), view.world().entities().location(e).unwrap());
    assert_eq!(world.get::<Health>(e), Some(&Health(2.0)));
    world.check_invariants();
}

#[test]
fn spawn_derived_and_nested_bundles() {
    let mut world = World::new();
    let m = world.spawn(Mover { pos: pos(1.0), vel: Velocity { x: 2.0, y: 0.0 } }).id();
    let n = world.spawn(((pos(3.0), (Enemy,)), ((), Stunned(1)))).id();
    assert_eq!(world.get::<Position>(m), Some(&pos(1.0)));
    assert_eq!(world.get::<Velocity>(m), Some(&Velocity { x: 2.0, y: 0.0 }));
    assert_eq!(world.get::<Position>(n), Some(&pos(3.0)));
    assert!(world.has::<Enemy>(n) && world.has::<Stunned>(n));
    world.check_invariants();
}

#[test]
fn spawn_empty_and_unit_bundles_live_in_the_empty_archetype() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(()).id();
    for e in [a, b] {
        assert!(world.is_alive(e));
        assert_eq!(world.entity(e).archetype(), ArchetypeId::EMPTY);
    }
    assert_eq!(world.entity_count(), 2);
    world.check_invariants();
}

#[test]
#[should_panic(expected = "contains component Position more than once")]
fn a_bundle_with_a_duplicate_component_panics_naming_it() {
    let mut world = World::new();
    world.spawn((pos(1.0), Velocity::default(), pos(2.0)));
}

#[test]
#[should_panic(expected = "contains component Position more than once")]
fn a_nested_duplicate_component_panics_too() {
    let mut world = World::new();
    world.spawn(Mover { pos: pos(1.0), vel: Velocity::default() }).insert((pos(2.0), Mover::default_mover()));
}

#[test]
fn a_rejected_insert_leaves_the_world_unchanged() {
    let mut world = World::new();
    world.register_component::<Health>();
    let e = world.spawn(pos(1.0)).id();
    let message = panic_message(|| world.insert(e, (Health(1.0), Health(2.0))));
    assert!(message.contains("contains component Health more than once"), "{message}");
    assert!(!world.has::<Health>(e));
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn a_rejected_bundle_with_new_components_leaves_the_world_unchanged() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    let message = panic_message(|| world.insert(e, (Health(1.0), Health(2.0))));
    assert!(message.contains("contains component Health more than once"), "{message}");
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn a_rejected_spawn_leaves_the_world_unchanged() {
    let mut world = World::new();
    world.register_component::<Health>();
    let e = world.spawn(pos(1.0)).id();
    let message = panic_message(|| world.spawn((Health(1.0), Health(2.0))).id());
    assert!(message.contains("contains component Health more than once"), "{message}");
    world.spawn(Velocity::default()); // any later registration
    assert_eq!(world.entity_count(), 2);
    assert_eq!(world.query::<Entity>().iter(&world).count(), 2);
    assert!(world.is_alive(e));
    world.check_invariants();
}

impl Mover {
    fn default_mover() -> Mover {
        Mover { pos: Position::default(), vel: Velocity::default() }
    }
}

// ----- spawn_batch -------------------------------------------------------------------

#[test]
fn spawn_batch_spawns_every_bundle_in_one_archetype() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..1000).map(|i| (pos(i as f32), Stunned(i)))).collect();
    assert_eq!(ids.len(), 1000);
    assert_eq!(world.entity_count(), 1000);
    let archetype = world.entity(ids[0]).archetype();
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Position>(e), Some(&pos(i as f32)));
        assert_eq!(world.get::<Stunned>(e), Some(&Stunned(i as u32)));
        assert_eq!(world.entity(e).archetype(), archetype);
    }
    assert_eq!(world.archetypes()[archetype].len(), 1000);
    world.check_invariants();
}

#[test]
fn dropping_a_spawn_batch_early_spawns_the_rest() {
    let mut world = World::new();
    let mut batch = world.spawn_batch((0..10).map(|i| Health(i as f32)));
    assert_eq!(batch.len(), 10);
    let first = batch.next().unwrap();
    assert_eq!(batch.len(), 9);
    drop(batch);
    assert_eq!(world.entity_count(), 10);
    assert_eq!(world.get::<Health>(first), Some(&Health(0.0)));
    let mut values: Vec<f32> = world.query::<&Health>().iter(&world).map(|h| h.0).collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, (0..10).map(|i| i as f32).collect::<Vec<_>>());

    // taking some ids still spawns every bundle
    let some: Vec<Entity> = world.spawn_batch((0..5).map(|_| Enemy)).take(2).collect();
    assert_eq!(some.len(), 2);
    assert_eq!(world.entity_count(), 15);
    assert_eq!(world.query_filtered::<Entity, With<Enemy>>().iter(&world).count(), 5);
    world.check_invariants();
}

#[test]
fn spawn_batch_of_nothing_spawns_nothing() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch(std::iter::empty::<(Position,)>()).collect();
    assert!(ids.is_empty());
    assert_eq!(world.entity_count(), 0);
    // an iterator without a useful size hint works too
    let ids: Vec<Entity> = world.spawn_batch((0..50).filter(|i| i % 2 == 0).map(|i| pos(i as f32))).collect();
    assert_eq!(ids.len(), 25);
    assert_eq!(world.get::<Position>(ids[24]), Some(&pos(48.0)));
    world.check_invariants();
}

#[test]
fn spawn_batch_reuses_despawned_indices() {
    let mut world = World::new();
    let first: Vec<Entity> = world.spawn_batch((0..10).map(|_| Enemy)).collect();
    for &e in &first {
        world.despawn(e);
    }
    let second: Vec<Entity> = world.spawn_batch((0..10).map(|_| Enemy)).collect();
    assert!(second.iter().all(|e| e.generation() == 1));
    assert!(first.iter().all(|&e| !world.is_alive(e)));
    assert!(second.iter().all(|&e| world.is_alive(e)));
    world.check_invariants();
}

// ----- insert ------------------------------------------------------------------------

#[test]
fn insert_adds_and_overwrites() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    assert!(world.insert(e, Health(5.0)));
    assert_eq!(world.get::<Health>(e), Some(&Health(5.0)));
    assert!(world.insert(e, Health(6.0)));
    assert_eq!(world.get::<Health>(e), Some(&Health(6.0)));
    assert!(world.insert(e, (pos(2.0), Stunned(1), Enemy)));
    assert_eq!(world.get::<Position>(e), Some(&pos(2.0)));
    assert!(world.insert(e, Stunned(2)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    assert!(world.insert(e, ()));
    assert_eq!(world.get::<Health>(e), Some(&Health(6.0)));
    world.check_invariants();
}

#[test]
fn insert_into_a_dead_entity_returns_false() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    world.despawn(e);
    assert!(!world.insert(e, Health(1.0)));
    assert!(!world.insert(e, Stunned(1)));
    let reused = world.spawn_empty().id();
    assert!(!world.insert(e, Health(1.0)));
    assert!(!world.has::<Health>(reused));
    world.check_invariants();
}

// ----- remove ------------------------------------------------------------------------

#[test]
fn remove_returns_the_value() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Health(2.0), Stunned(3), Enemy)).id();
    assert_eq!(world.remove::<Health>(e), Some(Health(2.0)));
    assert_eq!(world.remove::<Health>(e), None);
    assert_eq!(world.remove::<Stunned>(e), Some(Stunned(3)));
    assert_eq!(world.remove::<Stunned>(e), None);
    assert!(world.remove::<Enemy>(e).is_some());
    assert!(world.remove::<Enemy>(e).is_none());
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert_eq!(world.remove::<Position>(e), Some(pos(1.0)));
    assert_eq!(world.entity(e).archetype(), ArchetypeId::EMPTY);
    assert!(world.is_alive(e));
    world.check_invariants();
}

#[test]
fn remove_a_bundle() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Velocity { x: 2.0, y: 0.0 }, Health(3.0))).id();
    let mover: Mover = world.remove::<Mover>(e).unwrap();
    assert_eq!((mover.pos, mover.vel), (pos(1.0), Velocity { x: 2.0, y: 0.0 }));
    assert!(!world.has::<Position>(e) && !world.has::<Velocity>(e));
    assert_eq!(world.get::<Health>(e), Some(&Health(3.0)));
    world.check_invariants();
}

#[test]
fn removing_a_partly_present_bundle_changes_nothing_while_entity_remove_takes_what_is_there() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1))).id();
    // World::remove (and take) is all-or-nothing, as hecs' remove and Bevy's take.
    assert!(world.remove::<(Position, Health)>(e).is_none());
    assert_eq!(world.get::<Position>(e), Some(&pos(1.0)));
    assert!(world.remove::<(Stunned, Velocity)>(e).is_none());
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(1)));
    assert!(world.entity_mut(e).take::<(Stunned, Velocity)>().is_none());
    assert!(world.has::<Stunned>(e));
    // EntityWorldMut::remove removes the part that is there.
    world.entity_mut(e).remove::<(Position, Health)>();
    assert!(!world.has::<Position>(e));
    assert!(world.has::<Stunned>(e));
    world.entity_mut(e).remove::<(Stunned, Velocity)>();
    assert!(!world.has::<Stunned>(e));
    let f = world.spawn((pos(1.0), Health(1.0))).id();
    // table components all present, sparse one missing
    assert!(world.remove::<(Position, Stunned)>(f).is_none());
    assert!(world.has::<Position>(f));
    world.entity_mut(f).remove::<(Position, Stunned)>();
    assert!(!world.has::<Position>(f));
    assert_eq!(world.get::<Health>(f), Some(&Health(1.0)));
    world.check_invariants();
}

#[test]
fn remove_from_a_dead_entity_returns_none() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1))).id();
    world.despawn(e);
    world.spawn((pos(2.0), Stunned(2)));
    assert_eq!(world.remove::<Position>(e), None);
    assert_eq!(world.remove::<Stunned>(e), None);
    assert!(world.remove::<(Position, Stunned)>(e).is_none());
    world.check_invariants();
}

// ----- despawn -----------------------------------------------------------------------

#[test]
fn despawn_removes_everything_once() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(1), Enemy)).id();
    let other = world.spawn((pos(2.0), Stunned(2), Enemy)).id();
    assert!(world.despawn(e));
    assert!(!world.despawn(e));
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.get::<Position>(other), Some(&pos(2.0)));
    assert_eq!(world.get::<Stunned>(other), Some(&Stunned(2)));
    let stunned = world.component_id::<Stunned>().unwrap();
    assert_eq!(world.sparse_sets().of(stunned).unwrap().entities(), &[other]);
    world.check_invariants();
}

// ----- components by id ---------------------------------------------------------------

/// Sparse tag whose hooks log into [`ID_HOOKS`].
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse", on_add = log_add, on_insert = log_insert, on_remove = log_remove)]
struct Marked;

/// Table tag whose hooks log into [`ID_HOOKS`].
#[derive(Component, Debug, PartialEq)]
#[component(on_add = log_add, on_insert = log_insert, on_remove = log_remove)]
struct Flagged;

std::thread_local! {
    static ID_HOOKS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn log_hook(what: &str, world: &DeferredWorld, ctx: HookContext) {
    let name = world.world().component_info(ctx.component_id).map_or("?", |info| info.name()).to_owned();
    ID_HOOKS.with(|log| log.borrow_mut().push(format!("{what} {name}")));
}
fn log_add(world: DeferredWorld, ctx: HookContext) {
    log_hook("add", &world, ctx);
}
fn log_insert(world: DeferredWorld, ctx: HookContext) {
    log_hook("insert", &world, ctx);
}
fn log_remove(world: DeferredWorld, ctx: HookContext) {
    log_hook("remove", &world, ctx);
}
fn take_id_hooks() -> Vec<String> {
    ID_HOOKS.with(|log| log.take())
}

/// A component's id added without a value: a data component (sparse or table)
/// or a zero-sized one with drop glue is refused with `NeedsValue` and nothing is
/// stored (no phantom tag: `has_id`, `has` and `get` agree); a value-less tag
/// (table or sparse) is added exactly as the typed insert would add it.
#[test]
fn adding_a_component_id_needs_a_value_unless_it_is_a_plain_tag() {
    use ecs::entity::Id;
    use ecs::world::PairError;
    use ecs_tests::{DropSparseTag, DropTag, sparse_tag_drops, tag_drops};
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    let stunned = world.register_component::<Stunned>().id();
    let health = world.register_component::<Health>().id();
    let drop_tag = world.register_component::<DropTag>().id();
    let drop_sparse_tag = world.register_component::<DropSparseTag>().id();
    let (tags, sparse_tags) = (tag_drops(), sparse_tag_drops());
    for (id, name) in
        [(stunned, "Stunned"), (health, "Health"), (drop_tag, "DropTag"), (drop_sparse_tag, "DropSparseTag")]
    {
        match world.try_add_id(e, id) {
            Err(PairError::NeedsValue { id: named, entity }) => assert_eq!((named.as_str(), entity), (name, e)),
            other => panic!("try_add_id({name}) = {other:?}"),
        }
        assert!(!world.has_id(e, id), "{name}: no phantom id");
        let message = panic_message(|| world.add_id(e, id));
        assert!(message.contains(name) && message.contains(&format!("{e:?}")), "{message}");
    }
    assert!(!world.has::<Stunned>(e) && world.get::<Stunned>(e).is_none());
    assert!(!world.has::<Health>(e) && !world.has::<DropTag>(e) && !world.has::<DropSparseTag>(e));
    assert_eq!(world.ids_of(e), Some(&[world.component_id::<Position>().unwrap().id()][..]));
    assert_eq!((tag_drops(), sparse_tag_drops()), (tags, sparse_tags), "no value was conjured nor dropped");
    world.check_invariants();

    // A sparse tag by id behaves like the typed insert: stored in its set,
    // hooks and all, and `has_id`, `has`, `get` and queries agree.
    take_id_hooks();
    let marked = world.register_component::<Marked>().id();
    assert!(world.add_id(e, marked));
    assert_eq!(take_id_hooks(), ["add Marked", "insert Marked"]);
    assert!(world.has_id(e, marked) && world.has::<Marked>(e));
    assert_eq!(world.get::<Marked>(e), Some(&Marked));
    assert_eq!(world.query::<(Entity, &Marked)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [e]);
    assert!(world.add_id(e, marked), "adding it again is an overwrite");
    assert_eq!(take_id_hooks(), ["insert Marked"]);
    assert!(world.remove_id(e, marked));
    assert_eq!(take_id_hooks(), ["remove Marked"]);
    assert!(!world.has_id(e, marked) && !world.has::<Marked>(e));
    assert!(!world.remove_id(e, marked));
    // A table tag by id runs its hooks too.
    let flagged = world.register_component::<Flagged>().id();
    assert!(world.add_id(e, flagged));
    assert!(world.has::<Flagged>(e) && world.has_id(e, flagged));
    assert!(world.remove_id(e, flagged));
    assert_eq!(take_id_hooks(), ["add Flagged", "insert Flagged", "remove Flagged"]);

    // Sparse values inserted by type are ids of the entity too: `has_id` sees
    // them and `remove_id` drops them (once).
    world.insert(e, Stunned(3));
    assert!(world.has_id(e, stunned));
    assert!(world.remove_id(e, stunned));
    assert!(!world.has::<Stunned>(e) && !world.has_id(e, stunned));
    let sparse_tags = sparse_tag_drops();
    world.insert(e, DropSparseTag);
    assert!(world.remove_id(e, drop_sparse_tag));
    assert_eq!(sparse_tag_drops(), sparse_tags + 1, "removed by id: dropped once");
    // A zero-sized type that is not a struct without fields may have no value at
    // all (or one only its module may make): its id is refused too, and so is a
    // value-less pair of such a relationship (`insert_pair` works).
    #[derive(Component)]
    enum Never {}
    #[derive(Relationship, Debug, PartialEq)]
    struct Sealed(());
    let never = world.register_component::<Never>().id();
    assert!(matches!(world.try_add_id(e, never), Err(PairError::NeedsValue { .. })));
    assert_eq!(world.query::<&Never>().iter(&world).count(), 0);
    let other = world.spawn_empty().id();
    assert!(matches!(world.try_add_pair::<Sealed>(e, other), Err(PairError::NeedsValue { .. })));
    assert!(world.insert_pair(e, Sealed(()), other));
    assert_eq!(world.get_pair::<Sealed>(e, other), Some(&Sealed(())));

    // A pair whose relationship is a data component needs a value too, whatever
    // the component's storage.
    let target = world.spawn_empty().id();
    for relationship in [stunned, health] {
        let pair = Id::pair(relationship.entity().unwrap(), target);
        assert!(matches!(world.try_add_id(e, pair), Err(PairError::NeedsValue { .. })), "{pair:?}");
        assert!(!world.has_id(e, pair));
    }
    world.check_invariants();
}

// ----- stale handles and panics ------------------------------------------------------

#[test]
fn stale_entities_are_rejected_by_every_method() {
    let mut world = World::new();
    let stale = world.spawn((pos(1.0), Stunned(1), Enemy)).id();
    world.despawn(stale);
    let fresh = world.spawn((pos(2.0), Stunned(2), Enemy)).id();
    assert_eq!(fresh.index(), stale.index(), "the index was recycled");

    assert!(!world.is_alive(stale));
    assert_eq!(world.get::<Position>(stale), None);
    assert_eq!(world.get::<Stunned>(stale), None);
    assert!(world.get::<Enemy>(stale).is_none());
    assert!(world.get_mut::<Position>(stale).is_none());
    assert!(world.get_mut::<Stunned>(stale).is_none());
    assert!(!world.has::<Position>(stale));
    assert!(!world.has::<Stunned>(stale));
    assert!(!world.has::<Enemy>(stale));
    assert!(!world.insert(stale, Health(1.0)));
    assert_eq!(world.remove::<Position>(stale), None);
    assert!(!world.despawn(stale));
    assert!(world.get_entity(stale).is_none());
    assert!(world.get_entity_mut(stale).is_none());
    assert_eq!(world.component_ticks::<Position>(stale), None);
    let mut q = world.query::<&Position>();
    assert_eq!(q.get(&world, stale), Err(QueryError::NoSuchEntity(stale)));
    let mut q = world.query::<&mut Position>();
    assert!(matches!(q.get_mut(&mut world, stale), Err(QueryError::NoSuchEntity(e)) if e == stale));

    // the fresh entity was not touched by any of the calls above
    assert_eq!(world.get::<Position>(fresh), Some(&pos(2.0)));
    assert_eq!(world.get::<Stunned>(fresh), Some(&Stunned(2)));
    assert!(!world.has::<Health>(fresh));
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

// In a fresh world indices 1..=11 are the wildcards, the union marker and the
// built-in component entities (ComponentInfo, Name, Internal, ObserverMarker,
// ChildOf, IsA, Disabled, Prefab), so the first user entity is 12v0 and its
// recycled successor 12v1.
#[test]
#[should_panic(expected = "entity 12v0 is not alive")]
fn entity_of_a_stale_handle_panics() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    let reused = world.spawn_empty().id();
    assert_eq!(format!("{reused:?}"), "12v1");
    world.entity(e);
}

#[test]
fn entity_panics_name_the_entity() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    world.despawn(e);
    world.spawn(pos(2.0));
    let expected = format!("entity {e:?} is not alive");
    assert_eq!(panic_message(|| world.entity(e).id()), expected);
    assert_eq!(panic_message(|| world.entity_mut(e).id()), expected);
    // never-allocated handles too
    let never = Entity::from_raw(77_777, 0);
    assert_eq!(panic_message(|| world.entity(never).id()), "entity 77777v0 is not alive");
}

#[test]
#[should_panic(expected = "entity 12v0 is not alive")]
fn entity_mut_of_a_stale_handle_panics() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.despawn(e);
    world.entity_mut(e);
}

// `EntityWorldMut::world_mut` documents: "The entity may be despawned through it;
// later calls on this view then panic."
#[test]
fn entity_world_mut_panics_after_its_entity_is_despawned_through_it() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    let message = panic_message(|| {
        let mut view = world.entity_mut(e);
        view.world_mut().despawn(e);
        view.insert(Health(1.0));
    });
    assert!(message.contains("alive"), "{message}");
    let message = panic_message(|| {
        let f = world.spawn(pos(2.0)).id();
        let mut view = world.entity_mut(f);
        view.world_mut().despawn(f);
        view.remove::<Position>();
    });
    assert!(message.contains("alive"), "{message}");
}

#[test]
fn entity_world_mut_on_a_despawned_entity_never_resurrects_it() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    // Whether the late calls panic (documented) or not, the entity stays dead and
    // the world stays consistent.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut view = world.entity_mut(e);
        view.world_mut().despawn(e);
        view.insert(Health(1.0));
    }));
    assert!(!world.is_alive(e));
    assert!(!world.has::<Health>(e));
    assert_eq!(world.entity_count(), 0);
    assert_eq!(world.query::<&Health>().iter(&world).count(), 0);
    world.check_invariants();
}

// ----- EntityRef / EntityWorldMut ------------------------------------------------------

#[test]
fn entity_ref_reads_components() {
    let mut world = World::new();
    let e = world.spawn((pos(1.0), Stunned(2), Enemy)).id();
    let view = world.entity(e);
    assert_eq!(view.id(), e);
    assert_eq!(view.get::<Position>(), Some(&pos(1.0)));
    assert_eq!(view.get::<Stunned>(), Some(&Stunned(2)));
    assert_eq!(view.get::<Velocity>(), None);
    assert!(view.contains::<Enemy>() && view.contains::<Stunned>() && !view.contains::<Health>());
    assert_eq!(view.location(), world.entities().location(e).unwrap());
    let copy = view;
    assert_eq!(copy.id(), view.id());
    assert_eq!(format!("{view:?}"), format!("EntityRef({e:?})"));
    assert_eq!(world.get_entity(e).map(|v| v.id()), Some(e));
}

#[test]
fn entity_world_mut_chains_structural_changes() {
    let mut world = World::new();
    let e = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.0 })).id();
    world.entity_mut(e).insert(Enemy).insert((Health(10.0), Stunned(2))).remove::<Velocity>();
    assert!(world.has::<Enemy>(e));
    assert_eq!(world.get::<Health>(e), Some(&Health(10.0)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    assert!(!world.has::<Velocity>(e));

    let mut view = world.entity_mut(e);
    view.get_mut::<Health>().unwrap().0 = 11.0;
    assert_eq!(view.get::<Health>(), Some(&Health(11.0)));
    assert_eq!(view.take::<Health>(), Some(Health(11.0)));
    assert_eq!(view.take::<Health>(), None);
    view.remove::<(Stunned, Enemy)>();
    assert!(!view.contains::<Stunned>() && !view.contains::<Enemy>());
    view.remove::<Health>(); // absent: nothing happens
    assert_eq!(format!("{view:?}"), format!("EntityWorldMut({e:?})"));
    let world_again = view.into_world_mut();
    assert_eq!(world_again.get::<Position>(e), Some(&Position::default()));

    world.entity_mut(e).despawn();
    assert!(!world.is_alive(e));
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn get_entity_mut_gives_a_view_of_alive_entities() {
    let mut world = World::new();
    let e = world.spawn(pos(1.0)).id();
    world.get_entity_mut(e).unwrap().insert(Health(1.0));
    assert!(world.has::<Health>(e));
    world.check_invariants();
}

// ----- world identity ------------------------------------------------------------------

#[test]
fn worlds_have_distinct_ids_and_a_debug_summary() {
    let mut a = World::new();
    let b = World::default();
    assert_ne!(a.id(), b.id());
    a.spawn(pos(1.0));
    a.insert_resource(Score(1));
    let debug = format!("{a:?}");
    assert!(debug.starts_with("World"), "{debug}");
    assert!(debug.contains("entities: 1"), "{debug}");
    assert!(debug.contains("resources: 1"), "{debug}");
}

// ----- resources ---------------------------------------------------------------------

#[test]
fn resources_insert_read_write_remove() {
    let mut world = World::new();
    assert!(!world.contains_resource::<Time>());
    assert_eq!(world.get_resource::<Time>(), None);
    world.insert_resource(Time { dt: 0.016 });
    assert!(world.contains_resource::<Time>());
    assert_eq!(world.resource::<Time>(), &Time { dt: 0.016 });
    world.resource_mut::<Time>().dt = 0.02;
    assert_eq!(world.get_resource::<Time>(), Some(&Time { dt: 0.02 }));
    world.get_resource_mut::<Time>().unwrap().dt = 0.03;
    assert_eq!(world.resource::<Time>().dt, 0.03);
    assert_eq!(world.resources().len(), 1);
    assert_eq!(world.remove_resource::<Time>(), Some(Time { dt: 0.03 }));
    assert_eq!(world.remove_resource::<Time>(), None);
    assert!(world.get_resource_mut::<Time>().is_none());
    assert!(world.resources().is_empty());
}

#[test]
fn insert_resource_replaces_and_init_resource_does_not() {
    let mut world = World::new();
    world.init_resource::<Time>();
    assert_eq!(world.resource::<Time>(), &Time::default());
    world.insert_resource(Time { dt: 1.0 });
    assert_eq!(world.resource::<Time>().dt, 1.0);
    world.init_resource::<Time>();
    assert_eq!(world.resource::<Time>().dt, 1.0, "init_resource keeps the present value");
    world.insert_resource(Score(5));
    assert_eq!(world.resource::<Score>(), &Score(5));
    assert_eq!(world.resource::<Time>().dt, 1.0);
    assert_eq!(world.resources().len(), 2);
}

#[test]
#[should_panic(expected = "Missing does not exist")]
fn missing_resource_panics_naming_the_type() {
    let world = World::new();
    world.resource::<Missing>();
}

#[test]
#[should_panic(expected = "Missing does not exist")]
fn missing_resource_mut_panics_naming_the_type() {
    let mut world = World::new();
    world.resource_mut::<Missing>();
}

#[test]
fn missing_resource_message_has_the_full_type_path() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    let message = panic_message(|| world.resource::<Time>().dt);
    assert!(message.contains(std::any::type_name::<Time>()), "{message}");
    assert!(message.contains("does not exist"), "{message}");
    assert!(world.get_resource::<Missing>().is_none());
}

#[test]
fn resources_are_per_world() {
    let mut a = World::new();
    let b = World::new();
    a.insert_resource(Score(1));
    assert!(b.get_resource::<Score>().is_none());
    assert_eq!(a.get_resource::<Score>(), Some(&Score(1)));
}

/// Bevy's `insert_if_new`: only the values the entity does not own are
/// inserted (table and sparse), the others dropped unseen; a pair is added
/// only if missing; hooks and observers hear only the new values; a dead
/// entity is `false`; the command form does the same when applied.
#[test]
fn insert_if_new_keeps_what_the_entity_has() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static ADDED: AtomicUsize = AtomicUsize::new(0);
    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    #[derive(Component, Debug, PartialEq)]
    #[component(storage = "sparse")]
    struct Stun(u32);
    #[derive(Component, Debug, PartialEq)]
    #[component(on_add = count_add)]
    struct Armor(u32);
    fn count_add(_: DeferredWorld, _: HookContext) {
        ADDED.fetch_add(1, Ordering::Relaxed);
    }
    let mut world = World::new();
    let (p1, p2) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((Hp(5), Stun(1), ChildOf.pair(p1))).id();
    assert!(world.insert_if_new(e, (Hp(100), Stun(9), Armor(2), ChildOf.pair(p1))));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(5)));
    assert_eq!(world.get::<Stun>(e), Some(&Stun(1)));
    assert_eq!(world.get::<Armor>(e), Some(&Armor(2)));
    assert_eq!(ADDED.load(Ordering::Relaxed), 1);
    assert!(world.insert_if_new(e, Armor(7)));
    assert_eq!(world.get::<Armor>(e), Some(&Armor(2)));
    assert_eq!(ADDED.load(Ordering::Relaxed), 1, "no hook for a value kept");
    // A missing pair is added (ChildOf is exclusive: it replaces p1).
    world.entity_mut(e).insert_if_new(ChildOf.pair(p2));
    assert!(world.has_pair::<ChildOf>(e, p2));
    let mut queue = ecs::system::CommandQueue::default();
    Commands::new(&mut queue, &world).entity(e).insert_if_new((Hp(1), Stun(3)));
    queue.apply(&mut world);
    assert_eq!(world.get::<Hp>(e), Some(&Hp(5)));
    assert_eq!(world.get::<Stun>(e), Some(&Stun(1)));
    world.despawn(e);
    assert!(!world.insert_if_new(e, Hp(1)));
    world.check_invariants();
}
