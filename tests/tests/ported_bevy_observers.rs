//! bevy_ecs's observer and component-hook unit tests, restated against this
//! crate's API (API.md, "Observers and events"; `ecs::observer`; `world::hooks`).
//!
//! Sources: `observer::tests` (Bevy 0.16, whose names `Trigger`, `OnAdd`,
//! `OnReplace`, `trigger_targets` are ours, plus the tests newer Bevy added),
//! `bundle::tests` (hook order), `world::entity_ref::tests` (hooks and
//! observers seen through `EntityWorldMut`). Bevy registers hooks at run time
//! (`register_component_hooks`); here hooks come from `#[component(on_add =
//! ..)]`, so each Bevy hook set becomes its own component type.
//!
//! Adapted to documented differences of ours (each test says so):
//! * observers of one event run in registration order (`world::observers`),
//!   where Bevy runs global observers before entity-scoped ones;
//! * an observer of several components fires when the entity has all of them
//!   (`ecs::observer`, Flecs semantics), where Bevy fires on any of them;
//! * observer entities are internal (not counted by `entity_count`).
//!
//! Observers and hooks record what they see in the [`Order`] resource.

use ecs::observer::ObserverMarker;
use ecs::prelude::*;

// ----- fixtures -------------------------------------------------------------------------

#[derive(Component, Debug)]
struct A;

#[derive(Component, Debug)]
struct B;

#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct S;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct TestComponent(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct TestComponent2(u32);

/// A global user event.
#[derive(Event, Debug)]
struct EventA;

/// Bevy's `EventPropagating` (`auto_propagate` along `ChildOf`): ours
/// propagate unless an observer stops them.
#[derive(Event, Debug)]
#[event(propagate = ChildOf)]
struct EventPropagating;

/// What observers and hooks saw, in order (Bevy's `Order`).
#[derive(Resource, Default, Debug)]
struct Order(Vec<&'static str>);

impl Order {
    fn observed(&mut self, name: &'static str) {
        self.0.push(name);
    }
}

/// Bevy's `R`: hooks assert they run as the `n`-th call.
#[derive(Resource, Default, Debug)]
struct R(usize);

impl R {
    #[track_caller]
    fn assert_order(&mut self, count: usize) {
        assert_eq!(count, self.0);
        self.0 += 1;
    }
}

fn order_world() -> World {
    let mut world = World::new();
    world.init_resource::<Order>();
    world
}

fn order(world: &World) -> Vec<&'static str> {
    world.resource::<Order>().0.clone()
}

/// The observer entities of `world` (they are internal: only a query naming
/// `ObserverMarker` sees them).
fn observer_entities(world: &mut World) -> Vec<Entity> {
    world.query_filtered::<Entity, With<ObserverMarker>>().iter(world).collect()
}

// ----- observer order -------------------------------------------------------------------

/// Ports `observer::tests::observer_order_insert_remove_sparse`.
#[test]
fn observer_order_insert_remove_sparse() {
    let mut world = order_world();
    world.add_observer(|_: Trigger<OnAdd, S>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: Trigger<OnInsert, S>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: Trigger<OnReplace, S>, mut res: ResMut<Order>| res.observed("replace"));
    world.add_observer(|_: Trigger<OnRemove, S>, mut res: ResMut<Order>| res.observed("remove"));

    let mut entity = world.spawn_empty();
    entity.insert(S);
    entity.remove::<S>();
    assert_eq!(vec!["add", "insert", "replace", "remove"], order(&world));
}

/// Ports `observer::tests::observer_order_replace` for a sparse component
/// (the table version is in `api_relations_observers.rs`).
#[test]
fn observer_order_replace_sparse() {
    let mut world = order_world();
    let entity = world.spawn(S).id();
    world.add_observer(|_: Trigger<OnAdd, S>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: Trigger<OnInsert, S>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: Trigger<OnReplace, S>, mut res: ResMut<Order>| res.observed("replace"));
    world.add_observer(|_: Trigger<OnRemove, S>, mut res: ResMut<Order>| res.observed("remove"));

    world.entity_mut(entity).insert(S);
    assert_eq!(vec!["replace", "insert"], order(&world));
}

/// Ports `observer::tests::observer_order_recursive`: observers that add and
/// remove components through commands, each reacting to the previous one.
#[test]
fn observer_order_recursive() {
    let mut world = order_world();
    world.add_observer(|trigger: Trigger<OnAdd, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("add_a");
        commands.entity(trigger.entity()).insert(B);
    });
    world.add_observer(|trigger: Trigger<OnRemove, A>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("remove_a");
        commands.entity(trigger.entity()).remove::<B>();
    });
    world.add_observer(|trigger: Trigger<OnAdd, B>, mut res: ResMut<Order>, mut commands: Commands| {
        res.observed("add_b");
        commands.entity(trigger.entity()).remove::<A>();
    });
    world.add_observer(|_: Trigger<OnRemove, B>, mut res: ResMut<Order>| res.observed("remove_b"));

    let entity = world.spawn(A).id();
    let entity = world.get_entity(entity).unwrap();
    assert!(!entity.contains::<A>());
    assert!(!entity.contains::<B>());
    assert_eq!(vec!["add_a", "add_b", "remove_a", "remove_b"], order(&world));
}

/// Ports `observer::tests::observer_multiple_listeners` (Bevy 0.16: both
/// fire, in registration order). Adapted: Bevy counts 3 entities (the `A`
/// entity and two observers); our observers are internal entities, so
/// `entity_count` is 1 and a query naming `ObserverMarker` finds the two.
#[test]
fn observer_multiple_listeners() {
    let mut world = order_world();
    world.add_observer(|_: Trigger<OnAdd, A>, mut res: ResMut<Order>| res.observed("add_1"));
    world.add_observer(|_: Trigger<OnAdd, A>, mut res: ResMut<Order>| res.observed("add_2"));

    world.spawn(A);
    assert_eq!(vec!["add_1", "add_2"], order(&world));
    assert_eq!(world.query::<&A>().iter(&world).count(), 1);
    assert_eq!(observer_entities(&mut world).len(), 2);
    assert_eq!(world.entity_count(), 1);
}

/// Ports `observer::tests::observer_multiple_components`. Adapted to our
/// documented multi-component semantics (`ecs::observer`: the observer fires
/// when the entity has *all* of `(A, B)`): Bevy fires on each of the two adds
/// (`["add_ab", "add_ab"]`), we fire once, when `B` completes the set.
#[test]
fn observer_multiple_components() {
    let mut world = order_world();
    world.register_component::<A>();
    world.register_component::<B>();
    world.add_observer(|_: Trigger<OnAdd, (A, B)>, mut res: ResMut<Order>| res.observed("add_ab"));

    let entity = world.spawn(A).id();
    assert!(order(&world).is_empty(), "only A: not all of (A, B) yet");
    world.entity_mut(entity).insert(B);
    assert_eq!(vec!["add_ab"], order(&world));
}

/// Ports `observer::tests::observer_multiple_matches`: a bundle holding both
/// watched components fires the observer once.
#[test]
fn observer_multiple_matches() {
    let mut world = order_world();
    world.add_observer(|_: Trigger<OnAdd, (A, B)>, mut res: ResMut<Order>| res.observed("add_ab"));

    world.spawn((A, B));
    assert_eq!(vec!["add_ab"], order(&world));
}

/// Ports `observer::tests::observer_despawn_archetype_flags` (Bevy issue
/// 14961): despawning the only `OnRemove, B` observer must not leave the
/// archetype believing `B` is still observed, nor stop `OnRemove, A`.
#[test]
fn observer_despawn_archetype_flags() {
    let mut world = order_world();
    let entity = world.spawn((A, B)).id();
    world.add_observer(|_: Trigger<OnRemove, A>, mut res: ResMut<Order>| res.observed("remove_a"));
    let system: fn(Trigger<OnRemove, B>) = |_| panic!("Observer triggered after being despawned.");
    let observer = world.add_observer(system).id();
    world.despawn(observer);

    world.despawn(entity);
    assert_eq!(vec!["remove_a"], order(&world));
}

/// Ports `observer::tests::observer_entity_routing`: a targeted event reaches
/// the global observer and the target's own observer, not another entity's.
/// Adapted: Bevy runs the global observer first (`["a_2", "a_1"]`); ours run in
/// registration order (documented in `world::observers`), and the entity
/// observer was registered first.
#[test]
fn observer_entity_routing() {
    let mut world = order_world();
    let system: fn(Trigger<EventA>) = |_| panic!("Trigger routed to non-targeted entity.");
    world.spawn_empty().observe(system);
    let entity = world.spawn_empty().observe(|_: Trigger<EventA>, mut res: ResMut<Order>| res.observed("a_1")).id();
    world.add_observer(move |trigger: Trigger<EventA>, mut res: ResMut<Order>| {
        assert_eq!(trigger.entity(), entity);
        res.observed("a_2");
    });

    world.trigger_targets(EventA, entity);
    assert_eq!(vec!["a_1", "a_2"], order(&world));
}

/// Ports `observer::tests::observer_new_old_archetypes` without the archetype
/// ids (`Trigger` does not expose the old and new archetype): the sequence of
/// lifecycle events for `A` across spawn, bundle remove, insert, overwrite
/// and despawn.
#[test]
fn observer_new_old_archetypes() {
    let mut world = order_world();
    world.spawn(());
    world.spawn(A);
    world.spawn((A, B));
    world.add_observer(|_: Trigger<OnAdd, A>, mut res: ResMut<Order>| res.observed("add"));
    world.add_observer(|_: Trigger<OnInsert, A>, mut res: ResMut<Order>| res.observed("insert"));
    world.add_observer(|_: Trigger<OnReplace, A>, mut res: ResMut<Order>| res.observed("replace"));
    world.add_observer(|_: Trigger<OnRemove, A>, mut res: ResMut<Order>| res.observed("remove"));
    world.add_observer(|_: Trigger<OnDespawn, A>, mut res: ResMut<Order>| res.observed("despawn"));

    let mut entity = world.spawn((A, B));
    entity.remove::<(A, B)>();
    entity.insert(A);
    entity.insert(A);
    entity.despawn();

    assert_eq!(
        order(&world),
        vec![
            "add", "insert", // spawn (A, B)
            "replace", "remove", // remove (A, B)
            "add", "insert", // insert A
            "replace", "insert", // insert A over A
            "despawn", "replace", "remove", // despawn
        ]
    );
}

/// The counter of `observer_multiple_targets`.
#[derive(Resource, Default)]
struct Hits(i32);

/// Ports the entity-only parts of `observer::tests::observer_multiple_targets`
/// (Bevy 0.16; its component targets have no equivalent: our `trigger_targets`
/// takes entities only). Observers of `EventA` scoped to an entity *and* a
/// component, to any entity, and to components only; an event targeting
/// entities without naming components reaches only the observer that
/// requires no component, once per target.
#[test]
fn observer_multiple_targets() {
    let mut world = World::new();
    world.register_component::<A>();
    world.register_component::<B>();
    world.init_resource::<Hits>();
    // targets (entity_1, A)
    let entity_1 = world.spawn_empty().observe(|_: Trigger<EventA, A>, mut res: ResMut<Hits>| res.0 += 1).id();
    // targets (entity_2, B)
    let entity_2 = world.spawn_empty().observe(|_: Trigger<EventA, B>, mut res: ResMut<Hits>| res.0 += 10).id();
    // any entity or component
    world.add_observer(|_: Trigger<EventA>, mut res: ResMut<Hits>| res.0 += 100);
    // any entity, and components A or B
    world.add_observer(|_: Trigger<EventA, (A, B)>, mut res: ResMut<Hits>| res.0 += 1000);

    // trigger for both entities, but no components: once per entity target,
    // only the observer that does not require components
    world.trigger_targets(EventA, [entity_1, entity_2]);
    assert_eq!(200, world.resource::<Hits>().0);
    world.resource_mut::<Hits>().0 = 0;

    world.trigger_targets(EventA, entity_1);
    assert_eq!(100, world.resource::<Hits>().0);
}

/// Ports the "no entities" part of `observer::tests::observer_multiple_targets`
/// (Bevy 0.16 `trigger_targets_dynamic_ref`: when the targets hold no entity,
/// the event is triggered once, untargeted): `trigger_targets` with an empty
/// list reaches the global observers once, with the placeholder entity.
#[test]
fn observer_multiple_targets_without_entities_triggers_once() {
    let mut world = World::new();
    world.init_resource::<Hits>();
    world.add_observer(|trigger: Trigger<EventA>, mut res: ResMut<Hits>| {
        assert_eq!(trigger.entity(), Entity::PLACEHOLDER);
        res.0 += 100;
    });
    world.trigger_targets(EventA, Vec::<Entity>::new());
    assert_eq!(100, world.resource::<Hits>().0);
    world.trigger_targets(EventA, &[][..]);
    assert_eq!(200, world.resource::<Hits>().0);
}

// ----- propagation ----------------------------------------------------------------------

/// Ports `observer::tests::observer_propagating`: the child's observer, then
/// the parent's, each seeing its own entity as the target. (Bevy's newer
/// version also checks `original_event_target()`, which we do not have.)
#[test]
fn observer_propagating() {
    let mut world = order_world();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    world.entity_mut(parent).observe(move |trigger: Trigger<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("parent");
        assert_eq!(trigger.entity(), parent);
    });
    world.entity_mut(child).observe(move |trigger: Trigger<EventPropagating>, mut res: ResMut<Order>| {
        res.observed("child");
        assert_eq!(trigger.entity(), child);
    });

    world.trigger_targets(EventPropagating, child);
    assert_eq!(vec!["child", "parent"], order(&world));
}

/// Ports `observer::tests::observer_propagating_redundant_dispatch_same_entity`.
#[test]
fn observer_propagating_redundant_dispatch_same_entity() {
    let mut world = order_world();
    let parent =
        world.spawn_empty().observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent")).id();
    let child = world
        .spawn(ChildOf.pair(parent))
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("child"))
        .id();

    world.trigger_targets(EventPropagating, child);
    world.trigger_targets(EventPropagating, child);
    assert_eq!(vec!["child", "parent", "child", "parent"], order(&world));
}

/// Ports `observer::tests::observer_propagating_redundant_dispatch_parent_child`.
#[test]
fn observer_propagating_redundant_dispatch_parent_child() {
    let mut world = order_world();
    let parent =
        world.spawn_empty().observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent")).id();
    let child = world
        .spawn(ChildOf.pair(parent))
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("child"))
        .id();

    world.trigger_targets(EventPropagating, child);
    world.trigger_targets(EventPropagating, parent);
    assert_eq!(vec!["child", "parent", "parent"], order(&world));
}

/// Ports `observer::tests::observer_propagating_halt`.
#[test]
fn observer_propagating_halt() {
    let mut world = order_world();
    let parent =
        world.spawn_empty().observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent")).id();
    let child = world
        .spawn(ChildOf.pair(parent))
        .observe(|mut trigger: Trigger<EventPropagating>, mut res: ResMut<Order>| {
            res.observed("child");
            trigger.propagate(false);
        })
        .id();

    world.trigger_targets(EventPropagating, child);
    assert_eq!(vec!["child"], order(&world));
}

/// Ports `observer::tests::observer_propagating_join`: two children of one
/// parent, each event reaches the parent once.
#[test]
fn observer_propagating_join() {
    let mut world = order_world();
    let parent =
        world.spawn_empty().observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent")).id();
    let child_a = world
        .spawn(ChildOf.pair(parent))
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("child_a"))
        .id();
    let child_b = world
        .spawn(ChildOf.pair(parent))
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("child_b"))
        .id();

    world.trigger_targets(EventPropagating, child_a);
    world.trigger_targets(EventPropagating, child_b);
    assert_eq!(vec!["child_a", "parent", "child_b", "parent"], order(&world));
}

/// Ports `observer::tests::observer_propagating_no_next`: a propagating event
/// on an entity without a parent stops there.
#[test]
fn observer_propagating_no_next() {
    let mut world = order_world();
    let entity =
        world.spawn_empty().observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("event")).id();

    world.trigger_targets(EventPropagating, entity);
    assert_eq!(vec!["event"], order(&world));
}

/// Ports `observer::tests::observer_propagating_parallel_propagation`:
/// stopping one hierarchy's propagation does not affect another's.
#[test]
fn observer_propagating_parallel_propagation() {
    let mut world = order_world();
    let parent_a = world
        .spawn_empty()
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent_a"))
        .id();
    let child_a = world
        .spawn(ChildOf.pair(parent_a))
        .observe(|mut trigger: Trigger<EventPropagating>, mut res: ResMut<Order>| {
            res.observed("child_a");
            trigger.propagate(false);
        })
        .id();
    let parent_b = world
        .spawn_empty()
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("parent_b"))
        .id();
    let child_b = world
        .spawn(ChildOf.pair(parent_b))
        .observe(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("child_b"))
        .id();

    world.trigger_targets(EventPropagating, child_a);
    world.trigger_targets(EventPropagating, child_b);
    assert_eq!(vec!["child_a", "child_b", "parent_b"], order(&world));
}

/// Ports `observer::tests::observer_propagating_world`: a global observer of a
/// propagating event fires once per level.
#[test]
fn observer_propagating_world() {
    let mut world = order_world();
    world.add_observer(|_: Trigger<EventPropagating>, mut res: ResMut<Order>| res.observed("event"));
    let grandparent = world.spawn_empty().id();
    let parent = world.spawn(ChildOf.pair(grandparent)).id();
    let child = world.spawn(ChildOf.pair(parent)).id();

    world.trigger_targets(EventPropagating, child);
    assert_eq!(vec!["event", "event", "event"], order(&world));
}

/// Ports `observer::tests::observer_propagating_world_skipping`: the global
/// observer sees each level as the target and can filter on it.
#[test]
fn observer_propagating_world_skipping() {
    let mut world = order_world();
    world.add_observer(|trigger: Trigger<EventPropagating>, query: Query<&A>, mut res: ResMut<Order>| {
        if query.get(trigger.entity()).is_ok() {
            res.observed("event");
        }
    });
    let grandparent = world.spawn(A).id();
    let parent = world.spawn(ChildOf.pair(grandparent)).id();
    let child = world.spawn((A, ChildOf.pair(parent))).id();

    world.trigger_targets(EventPropagating, child);
    assert_eq!(vec!["event", "event"], order(&world));
}

// ----- observers and commands -----------------------------------------------------------

/// Ports `observer::tests::observer_modifies_relationship` (Bevy issue 18452):
/// an `OnAdd` observer that spawns a child of the entity through commands.
#[test]
fn observer_modifies_relationship() {
    fn on_add(trigger: Trigger<OnAdd, A>, mut commands: Commands) {
        commands.entity(trigger.entity()).with_children(|children| {
            children.spawn_empty();
        });
    }
    let mut world = World::new();
    world.add_observer(on_add);
    let parent = world.spawn(A).id();
    assert_eq!(world.children(parent).count(), 1);
}

/// Ports `observer::tests::observer_on_remove_during_despawn_spawn_empty`
/// (Bevy issue 14467): an `OnRemove` observer that spawns during a despawn.
#[test]
fn observer_on_remove_during_despawn_spawn_empty() {
    let mut world = World::new();
    world.add_observer(|_: Trigger<OnRemove, A>, mut commands: Commands| {
        commands.spawn_empty();
    });
    let entity = world.spawn(A).id();
    assert!(world.despawn(entity));
    assert!(!world.is_alive(entity));
    assert_eq!(world.entity_count(), 1, "the entity the observer spawned");
    world.check_invariants();
}

/// Ports `observer::tests::observer_invalid_params`: an observer whose `Res`
/// is missing panics when it runs.
#[test]
#[should_panic(expected = "which does not exist")]
fn observer_invalid_params() {
    #[derive(Resource)]
    struct ResA;
    #[derive(Resource)]
    struct ResB;
    let mut world = World::new();
    world.add_observer(|_: Trigger<EventA>, _: Res<ResA>, mut commands: Commands| {
        commands.insert_resource(ResB);
    });
    world.trigger(EventA);
}

// ----- unregistering --------------------------------------------------------------------

/// Ports `observer::tests::observer_despawn`: a despawned observer never runs.
#[test]
fn observer_despawn() {
    let mut world = World::new();
    let system: fn(Trigger<OnAdd, A>) = |_| panic!("Observer triggered after being despawned.");
    let observer = world.add_observer(system).id();
    world.despawn(observer);
    world.spawn(A);
}

/// Ports `observer::tests::unregister_global_observer`: removing the observer
/// component (ours: `ObserverMarker`, Bevy's `Observer`) unregisters it.
#[test]
fn unregister_global_observer() {
    let mut world = World::new();
    let system: fn(Trigger<EventA>) = |_| panic!("unregistered observer ran");
    let mut observer = world.add_observer(system);
    observer.remove::<ObserverMarker>();
    assert!(world.observers().is_empty());
    world.trigger(EventA);
}

/// Ports `observer::tests::unregister_entity_observer`.
#[test]
fn unregister_entity_observer() {
    let mut world = World::new();
    let system: fn(Trigger<EventA>) = |_| panic!("unregistered observer ran");
    let entity = world.spawn_empty().observe(system).id();
    let observers = observer_entities(&mut world);
    assert_eq!(observers.len(), 1);
    world.entity_mut(observers[0]).remove::<ObserverMarker>();
    assert!(world.observers().is_empty());
    world.trigger_targets(EventA, entity);
    assert!(world.despawn(entity));
}

/// Ports `observer::tests::unregister_component_observer` (an `EventA`
/// observer watching component `A`).
#[test]
fn unregister_component_observer() {
    let mut world = World::new();
    world.register_component::<A>();
    let mut observer = world.add_observer(|_: Trigger<EventA, A>| {});
    observer.remove::<ObserverMarker>();
    assert!(world.observers().is_empty());
}

/// Ports `observer::tests::despawning_observer_removes_observed_by`. Adapted:
/// we have no `ObservedBy` component; despawning the entity-scoped observer
/// unregisters it and leaves its target alive, unobserved, and despawnable.
#[test]
fn despawning_observer_removes_observed_by() {
    let mut world = World::new();
    let system: fn(Trigger<EventA>) = |_| panic!("despawned observer ran");
    let target = world.spawn_empty().observe(system).id();
    let observers = observer_entities(&mut world);
    assert_eq!(observers.len(), 1);

    world.entity_mut(observers[0]).despawn();
    assert!(world.observers().is_empty());
    assert!(world.is_alive(target));
    world.trigger_targets(EventA, target);
    assert!(world.despawn(target));
    world.check_invariants();
}

// ----- observers through EntityWorldMut (world::entity_ref::tests) ----------------------

/// Ports `entity_ref::tests::location_on_despawned_entity_panics`: an `OnAdd`
/// observer despawns the entity; the `EntityWorldMut` then panics on use.
#[test]
#[should_panic(expected = "is not alive")]
fn location_on_despawned_entity_panics() {
    let mut world = World::new();
    world.add_observer(|trigger: Trigger<OnAdd, TestComponent>, mut commands: Commands| {
        commands.entity(trigger.entity()).despawn();
    });
    let entity = world.spawn_empty().id();
    let mut a = world.entity_mut(entity);
    a.insert(TestComponent(0));
    a.location();
}

#[derive(Resource)]
struct TestFlush(usize);

fn count_flush(world: &mut World) {
    world.resource_mut::<TestFlush>().0 += 1;
}

/// Ports `entity_ref::tests::archetype_modifications_trigger_flush`: every
/// structural change through `EntityWorldMut` applies the commands its
/// observers queued before it returns. Adapted: Bevy also queues through
/// `World::commands` and uses `retain` / `clear`, which we do not have; the
/// counts cover insert, remove, take and despawn.
#[test]
fn archetype_modifications_trigger_flush() {
    let mut world = World::new();
    world.insert_resource(TestFlush(0));
    world.add_observer(|_: Trigger<OnAdd, TestComponent>, mut commands: Commands| commands.queue(count_flush));
    world.add_observer(|_: Trigger<OnRemove, TestComponent>, mut commands: Commands| commands.queue(count_flush));

    let entity = world.spawn_empty().id();
    assert_eq!(world.resource::<TestFlush>().0, 0);
    let mut a = world.entity_mut(entity);
    a.insert(TestComponent(0));
    assert_eq!(a.world().resource::<TestFlush>().0, 1);
    a.remove::<TestComponent>();
    assert_eq!(a.world().resource::<TestFlush>().0, 2);
    a.insert(TestComponent(0));
    assert_eq!(a.world().resource::<TestFlush>().0, 3);
    let _ = a.take::<TestComponent>();
    assert_eq!(a.world().resource::<TestFlush>().0, 4);
    a.insert(TestComponent(0));
    assert_eq!(a.world().resource::<TestFlush>().0, 5);
    a.despawn();
    assert_eq!(world.resource::<TestFlush>().0, 6);
}

/// Ports `entity_ref::tests::adding_observer_updates_location`: an observer
/// run through `world_mut` moves the entity; the view's location follows.
#[test]
fn adding_observer_updates_location() {
    #[derive(Event)]
    struct TestEvent;
    let mut world = World::new();
    let entity = world
        .spawn_empty()
        .observe(|trigger: Trigger<TestEvent>, mut commands: Commands| {
            commands.entity(trigger.entity()).insert(TestComponent(0));
        })
        .id();

    let mut a = world.entity_mut(entity);
    a.world_mut().trigger_targets(TestEvent, entity);
    a.observe(|_: Trigger<TestEvent>| {});
    let location = a.location();
    assert!(a.contains::<TestComponent>());
    assert_eq!(world.entities().location(entity), Some(location));
}

/// Ports `entity_ref::tests::bundle_remove_only_triggers_for_present_components`.
#[test]
fn bundle_remove_only_triggers_for_present_components() {
    #[derive(Resource, PartialEq, Eq, Debug)]
    struct Tracker {
        a: bool,
        b: bool,
    }
    let mut world = World::new();
    world.insert_resource(Tracker { a: false, b: false });
    let entity = world.spawn(A).id();
    world.add_observer(|_: Trigger<OnRemove, A>, mut tracker: ResMut<Tracker>| tracker.a = true);
    world.add_observer(|_: Trigger<OnRemove, B>, mut tracker: ResMut<Tracker>| tracker.b = true);

    world.entity_mut(entity).remove::<(A, B)>();
    assert_eq!(world.resource::<Tracker>(), &Tracker { a: true, b: false });
}

// ----- hooks and observers together: command ordering -----------------------------------

#[derive(Resource, Default)]
struct TestVec(Vec<&'static str>);

#[derive(Component)]
#[component(
    on_add = ord_a_hook_on_add,
    on_insert = ord_a_hook_on_insert,
    on_replace = ord_a_hook_on_replace,
    on_remove = ord_a_hook_on_remove
)]
struct OrdA;

fn ord_a_hook_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdA hook on_add");
    world.commands().entity(ctx.entity).insert(OrdB);
}

fn ord_a_hook_on_insert(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdA hook on_insert");
    world.commands().entity(ctx.entity).remove::<OrdA>();
    world.commands().entity(ctx.entity).remove::<OrdB>();
}

fn ord_a_hook_on_replace(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdA hook on_replace");
}

fn ord_a_hook_on_remove(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdA hook on_remove");
}

#[derive(Component)]
#[component(
    on_add = ord_b_hook_on_add,
    on_insert = ord_b_hook_on_insert,
    on_replace = ord_b_hook_on_replace,
    on_remove = ord_b_hook_on_remove
)]
struct OrdB;

fn ord_b_hook_on_add(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdB hook on_add");
    world.commands().queue(|world: &mut World| world.resource_mut::<TestVec>().0.push("OrdB command on_add"));
}

fn ord_b_hook_on_insert(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdB hook on_insert");
}

fn ord_b_hook_on_replace(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdB hook on_replace");
}

fn ord_b_hook_on_remove(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<TestVec>().0.push("OrdB hook on_remove");
}

/// Ports `entity_ref::tests::command_ordering_is_correct`: hooks and observers
/// of two components whose hooks queue structural commands; the commands a
/// nested change queues run before the outer change's remaining commands.
#[test]
fn command_ordering_is_correct() {
    let mut world = World::new();
    world.init_resource::<TestVec>();
    world.add_observer(|_: Trigger<OnAdd, OrdA>, mut res: ResMut<TestVec>| res.0.push("OrdA observer on_add"));
    world.add_observer(|_: Trigger<OnInsert, OrdA>, mut res: ResMut<TestVec>| res.0.push("OrdA observer on_insert"));
    world.add_observer(|_: Trigger<OnReplace, OrdA>, mut res: ResMut<TestVec>| res.0.push("OrdA observer on_replace"));
    world.add_observer(|_: Trigger<OnRemove, OrdA>, mut res: ResMut<TestVec>| res.0.push("OrdA observer on_remove"));
    world.add_observer(|_: Trigger<OnAdd, OrdB>, mut res: ResMut<TestVec>| res.0.push("OrdB observer on_add"));
    world.add_observer(|_: Trigger<OnInsert, OrdB>, mut res: ResMut<TestVec>| res.0.push("OrdB observer on_insert"));
    world.add_observer(|_: Trigger<OnReplace, OrdB>, mut res: ResMut<TestVec>| res.0.push("OrdB observer on_replace"));
    world.add_observer(|_: Trigger<OnRemove, OrdB>, mut res: ResMut<TestVec>| res.0.push("OrdB observer on_remove"));

    let entity = world.spawn(OrdA).id();
    let expected = [
        "OrdA hook on_add", // queues inserting OrdB
        "OrdA observer on_add",
        "OrdA hook on_insert", // queues removing OrdA, then OrdB
        "OrdA observer on_insert",
        "OrdB hook on_add", // queues a command that only logs
        "OrdB observer on_add",
        "OrdB hook on_insert",
        "OrdB observer on_insert",
        "OrdB command on_add", // runs before the removals queued earlier
        "OrdA observer on_replace",
        "OrdA hook on_replace",
        "OrdA observer on_remove",
        "OrdA hook on_remove",
        "OrdB observer on_replace",
        "OrdB hook on_replace",
        "OrdB observer on_remove",
        "OrdB hook on_remove",
    ];
    assert_eq!(world.resource::<TestVec>().0.as_slice(), &expected[..]);
    assert!(world.is_alive(entity));
    assert!(!world.has::<OrdA>(entity) && !world.has::<OrdB>(entity));
}

// ----- hooks (bundle::tests, world::entity_ref::tests) ----------------------------------

/// Bevy's `AMacroHooks`: each hook asserts its place in the sequence.
#[derive(Component)]
#[component(on_add = a_on_add, on_insert = a_on_insert, on_replace = a_on_replace, on_remove = a_on_remove)]
struct AMacroHooks;

fn a_on_add(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(0);
}

fn a_on_insert(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(1);
}

fn a_on_replace(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(2);
}

fn a_on_remove(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(3);
}

/// Ports `bundle::tests::component_hook_order_spawn_despawn_with_macro_hooks`
/// (and `component_hook_order_spawn_despawn`, the same hooks registered at
/// run time in Bevy).
#[test]
fn component_hook_order_spawn_despawn_with_macro_hooks() {
    let mut world = World::new();
    world.init_resource::<R>();
    let entity = world.spawn(AMacroHooks).id();
    world.despawn(entity);
    assert_eq!(4, world.resource::<R>().0);
}

/// Ports `bundle::tests::component_hook_order_insert_remove`.
#[test]
fn component_hook_order_insert_remove() {
    let mut world = World::new();
    world.init_resource::<R>();
    let mut entity = world.spawn_empty();
    entity.insert(AMacroHooks);
    entity.remove::<AMacroHooks>();
    assert_eq!(4, world.resource::<R>().0);
}

/// Bevy's `component_hook_order_replace` hooks: `on_replace` first, then
/// `on_insert` (which tolerates the resource being absent at spawn).
#[derive(Component)]
#[component(on_replace = replace_on_replace, on_insert = replace_on_insert)]
struct ReplaceHooks;

fn replace_on_replace(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(0);
}

fn replace_on_insert(mut world: DeferredWorld, _: HookContext) {
    if let Some(mut r) = world.get_resource_mut::<R>() {
        r.assert_order(1);
    }
}

/// Ports `bundle::tests::component_hook_order_replace` (without its
/// `insert_if_new` line: we have no `insert_if_new`).
#[test]
fn component_hook_order_replace() {
    let mut world = World::new();
    let entity = world.spawn(ReplaceHooks).id();
    world.init_resource::<R>();
    world.entity_mut(entity).insert(ReplaceHooks);
    assert_eq!(2, world.resource::<R>().0);
}

#[derive(Component)]
#[component(on_add = rec_a_on_add, on_remove = rec_a_on_remove)]
struct RecA;

#[derive(Component)]
#[component(on_add = rec_b_on_add, on_remove = rec_b_on_remove)]
struct RecB;

fn rec_a_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<R>().assert_order(0);
    world.commands().entity(ctx.entity).insert(RecB);
}

fn rec_a_on_remove(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<R>().assert_order(2);
    world.commands().entity(ctx.entity).remove::<RecB>();
}

fn rec_b_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<R>().assert_order(1);
    world.commands().entity(ctx.entity).remove::<RecA>();
}

fn rec_b_on_remove(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(3);
}

/// Ports `bundle::tests::component_hook_order_recursive`.
#[test]
fn component_hook_order_recursive() {
    let mut world = World::new();
    world.init_resource::<R>();
    let entity = world.spawn(RecA).id();
    let entity = world.get_entity(entity).unwrap();
    assert!(!entity.contains::<RecA>());
    assert!(!entity.contains::<RecB>());
    assert_eq!(4, world.resource::<R>().0);
}

#[derive(Component)]
#[component(on_add = multi_a_on_add)]
struct MultiA;

#[derive(Component)]
#[component(on_add = multi_b_on_add)]
struct MultiB;

#[derive(Component)]
#[component(on_add = multi_c_on_add)]
struct MultiC;

#[derive(Component)]
#[component(on_add = multi_d_on_add)]
struct MultiD;

fn multi_a_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<R>().assert_order(0);
    world.commands().entity(ctx.entity).insert(MultiB).insert(MultiC);
}

fn multi_b_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.resource_mut::<R>().assert_order(1);
    world.commands().entity(ctx.entity).insert(MultiD);
}

fn multi_c_on_add(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(3);
}

fn multi_d_on_add(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<R>().assert_order(2);
}

/// Ports `bundle::tests::component_hook_order_recursive_multiple`: the
/// commands queued by `MultiB`'s hook (insert `MultiD`) run before the
/// remaining command `MultiA`'s hook queued (insert `MultiC`).
#[test]
fn component_hook_order_recursive_multiple() {
    let mut world = World::new();
    world.init_resource::<R>();
    let entity = world.spawn(MultiA).id();
    assert_eq!(4, world.resource::<R>().0);
    let entity = world.entity(entity);
    assert!(entity.contains::<MultiB>() && entity.contains::<MultiC>() && entity.contains::<MultiD>());
}

/// Bevy's `DespawnOnAdd`: its `on_add` hook despawns the entity.
#[derive(Component)]
#[component(on_add = despawn_on_add)]
struct DespawnOnAdd;

fn despawn_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).despawn();
}

/// Ports `entity_ref::tests::command_despawns_dont_invalidate_entity_world_muts`.
/// Adapted: we have no `EntityWorldMut::is_despawned`; the view's world says
/// the entity is gone.
#[test]
fn command_despawns_dont_invalidate_entity_world_muts() {
    let mut world = World::new();
    let mut entity = world.spawn(TestComponent(1));
    entity.insert(DespawnOnAdd);
    let id = entity.id();
    assert!(!entity.world().is_alive(id));
    assert!(!world.is_alive(id));
}

/// Ports `entity_ref::tests::using_despawned_entity_world_mut_panics`.
#[test]
#[should_panic(expected = "is not alive")]
fn using_despawned_entity_world_mut_panics() {
    let mut world = World::new();
    let mut entity = world.spawn(TestComponent(1));
    entity.insert(DespawnOnAdd);
    entity.insert(TestComponent2(2));
}
