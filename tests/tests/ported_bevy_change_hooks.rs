//! Tests ported from bevy_ecs (bevy main, commit 4805ca792c3e) for change
//! detection and component lifecycle hooks: `change_detection/mod.rs` (unit
//! tests), `lifecycle.rs` and `component/mod.rs` (no unit tests: their doc
//! examples and the rules their module docs state), and `bundle/tests.rs`
//! `insert_if_new` (its hook side, which the earlier port does not check).
//! Each test names the Bevy file and what it ports; doc examples, which Bevy
//! mostly only compiles, are run here and their effect asserted, and drops are
//! counted where values are dropped (every value exactly once).
//!
//! Names: Bevy's `Discard` lifecycle event / `on_discard` hook is our
//! `OnReplace` / `on_replace`; `Add`/`Insert`/`Remove`/`Despawn` are our
//! `OnAdd`/`OnInsert`/`OnRemove`/`OnDespawn`. Bevy registers hooks at run time
//! (`register_component_hooks`); here they come from `#[component(on_add = ..)]`.
//!
//! Already ported elsewhere (not repeated): change_detection/mod.rs
//! `change_expiration`, `change_tick_wraparound`, `change_tick_scan`
//! (ported_bevy_queries.rs, ported_bevy_query_more.rs), `set_if_neq` on a
//! resource (ported_bevy_world.rs `resource_set_if_neq_after_clear_trackers`;
//! the port here does the same through `EntityWorldMut::get_mut`);
//! bundle/tests.rs `component_hook_order_*` (ported_bevy_observers.rs, hooks.rs).
//!
//! Extensions: the ticks seen from hooks through `DeferredWorld::get_mut`, the
//! ticks of values `insert_if_new` keeps, the hook/observer order of overwrite,
//! remove, take and `insert_if_new` through `EntityWorldMut`, and observers
//! writing a value that is being removed. No findings: every test passes.
//!
//! Documented difference (adapted, not a finding): `insert_if_new` of several new
//! values runs `L2.add, L2.insert, L3.add, L3.insert` here (each new value
//! "inserted as `insert` would", rustdoc of `World::insert_if_new`), where Bevy's
//! single move runs `L2.add, L3.add, L2.insert, L3.insert`; the port compares the
//! set of hooks only.
//!
//! Not ported:
//! - change_detection/mod.rs `mut_from_res_mut`, `mut_new`, `mut_from_non_send_mut`,
//!   `map_mut`, `as_deref_mut`, `mut_untyped_to_reflect`, `mut_untyped_from_mut`
//!   (no public `Mut::new`/`ResMut`→`Mut`/`NonSendMut`, no `Mut::map_unchanged`,
//!   `as_deref_mut`, `MutUntyped`, reflection);
//! - component/required.rs (all 30 tests) and the `#[require(..)]` doc examples of
//!   component/mod.rs (no required components);
//! - component/mod.rs docs of `#[component(on_add)]` without a value (the
//!   derive takes `on_add = path` only; the port names `DoubleOnSpawn::on_add`),
//!   of hook-generating expressions `on_add = my_msg_hook("hello")` (API.md:
//!   hooks are `fn(DeferredWorld, HookContext)` paths), `on_despawn` hooks
//!   (despawn is seen through the `OnDespawn` observer event here),
//!   `clone_behavior`, `immutable`, `summary_tick`, `#[entities]`/`map_entities`,
//!   `ComponentIdFor`, `SyncCell`; lifecycle.rs `register_component_hooks`
//!   (attribute hooks instead), tick.rs `CheckChangeTicks` (no such event) and
//!   `ComponentTicks::set_changed` (no such method).

use std::collections::HashSet;

use ecs::prelude::*;
use ecs_tests::{DropLog, DropTable};

/// What hooks and observers saw, in order.
#[derive(Resource, Default, Debug)]
struct Log(Vec<String>);

fn log(world: &mut DeferredWorld, line: String) {
    world.resource_mut::<Log>().0.push(line);
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

// ----- lifecycle.rs ------------------------------------------------------------------

#[derive(Component)]
#[component(on_add = track_add, on_remove = track_remove)]
struct MyTrackedComponent;

#[derive(Resource, Default)]
struct TrackedEntities(HashSet<Entity>);

fn track_add(mut world: DeferredWorld, context: HookContext) {
    let mut tracked_entities = world.resource_mut::<TrackedEntities>();
    assert!(tracked_entities.0.insert(context.entity), "on_add ran twice for {:?}", context.entity);
}

fn track_remove(mut world: DeferredWorld, context: HookContext) {
    let mut tracked_entities = world.resource_mut::<TrackedEntities>();
    assert!(tracked_entities.0.remove(&context.entity), "on_remove without on_add for {:?}", context.entity);
}

// Bevy: crates/bevy_ecs/src/lifecycle.rs (doc example of `ComponentHooks`)
#[test]
fn component_hooks_doc() {
    let mut world = World::new();
    world.init_resource::<TrackedEntities>();

    let mut tracked_component_query = world.query::<&MyTrackedComponent>();
    assert!(tracked_component_query.iter(&world).next().is_none());

    let entity = world.spawn(MyTrackedComponent).id();
    assert!(world.resource::<TrackedEntities>().0.contains(&entity));

    world.despawn(entity);
    assert!(!world.resource::<TrackedEntities>().0.contains(&entity));

    // the same through EntityWorldMut: overwrite, take, re-insert, remove
    let e = world.spawn_empty().id();
    let mut view = world.entity_mut(e);
    view.insert(MyTrackedComponent);
    view.insert(MyTrackedComponent);
    assert!(view.world().resource::<TrackedEntities>().0.contains(&e));
    assert!(view.take::<MyTrackedComponent>().is_some());
    assert!(!view.world().resource::<TrackedEntities>().0.contains(&e));
    view.insert(MyTrackedComponent);
    view.remove::<MyTrackedComponent>();
    view.remove::<MyTrackedComponent>();
    assert!(world.resource::<TrackedEntities>().0.is_empty());
}

/// Logs every hook slot as `"{name}.{hook}"`.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = hook::<1, 0>, on_insert = hook::<1, 1>, on_replace = hook::<1, 2>, on_remove = hook::<1, 3>)]
struct L1(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
#[component(on_add = hook::<2, 0>, on_insert = hook::<2, 1>, on_replace = hook::<2, 2>, on_remove = hook::<2, 3>)]
struct L2(u32);

#[derive(Component, Debug, PartialEq)]
#[component(on_add = hook::<3, 0>, on_insert = hook::<3, 1>, on_replace = hook::<3, 2>, on_remove = hook::<3, 3>)]
struct L3(u32);

fn hook<const C: u8, const H: u8>(mut world: DeferredWorld, _: HookContext) {
    let hook = ["add", "insert", "replace", "remove"][H as usize];
    log(&mut world, format!("L{C}.{hook}"));
}

fn lines(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

// Bevy: crates/bevy_ecs/src/lifecycle.rs (module doc, "Types of lifecycle events":
// Add hooks before Insert hooks; Discard before Remove; on despawn, Despawn first,
// then Discard, then Remove)
#[test]
fn lifecycle_event_order_doc() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|_: Trigger<OnDespawn, L1>, mut log: ResMut<Log>| log.0.push("L1.despawn".to_owned()));
    world.add_observer(|_: Trigger<OnDespawn, L2>, mut log: ResMut<Log>| log.0.push("L2.despawn".to_owned()));

    let e = world.spawn((L1(0), L2(0))).id();
    assert_eq!(take_log(&mut world), lines(&["L1.add", "L2.add", "L1.insert", "L2.insert"]));

    world.entity_mut(e).insert(L1(1));
    assert_eq!(take_log(&mut world), lines(&["L1.replace", "L1.insert"]), "overwrite: no add");

    world.entity_mut(e).remove::<L2>();
    assert_eq!(take_log(&mut world), lines(&["L2.replace", "L2.remove"]));

    world.entity_mut(e).insert((L2(1), L3(1)));
    assert_eq!(take_log(&mut world), lines(&["L2.add", "L3.add", "L2.insert", "L3.insert"]));

    world.entity_mut(e).despawn();
    let seen = take_log(&mut world);
    assert_eq!(seen.len(), 8, "{seen:?}");
    let (despawn, rest) = seen.split_at(2);
    let mut despawn = despawn.to_vec();
    despawn.sort();
    assert_eq!(despawn, lines(&["L1.despawn", "L2.despawn"]), "despawn events first: {seen:?}");
    let (replace, remove) = rest.split_at(3);
    let (mut replace, mut remove) = (replace.to_vec(), remove.to_vec());
    replace.sort();
    remove.sort();
    assert_eq!(replace, lines(&["L1.replace", "L2.replace", "L3.replace"]), "then every discard: {seen:?}");
    assert_eq!(remove, lines(&["L1.remove", "L2.remove", "L3.remove"]), "then every remove: {seen:?}");
}

/// Counts of each lifecycle hook of `Counted`.
#[derive(Resource, Default, Debug, PartialEq, Clone, Copy)]
struct Counts {
    add: u32,
    insert: u32,
    replace: u32,
    remove: u32,
}

#[derive(Component, Debug)]
#[component(on_add = count_add, on_insert = count_insert, on_replace = count_replace, on_remove = count_remove)]
struct Counted(DropTable);

fn count_add(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Counts>().add += 1;
}
fn count_insert(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Counts>().insert += 1;
}
fn count_replace(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Counts>().replace += 1;
}
fn count_remove(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Counts>().remove += 1;
}

#[track_caller]
fn assert_counts(world: &World, add: u32, insert: u32, replace: u32, remove: u32) {
    assert_eq!(*world.resource::<Counts>(), Counts { add, insert, replace, remove });
}

// Bevy: crates/bevy_ecs/src/lifecycle.rs (module doc: Add and Remove are
// counterparts, triggered only when presence changes; Insert and Discard are
// counterparts, triggered on every add or overwrite)
#[test]
fn lifecycle_counterparts_doc() {
    let drops = DropLog::new();
    let mut world = World::new();
    world.init_resource::<Counts>();

    let e = world.spawn(Counted(drops.table(1))).id();
    assert_counts(&world, 1, 1, 0, 0);
    world.entity_mut(e).insert(Counted(drops.table(2)));
    assert_counts(&world, 1, 2, 1, 0);
    drops.assert_dropped_once([1]);
    world.insert(e, Counted(drops.table(3)));
    assert_counts(&world, 1, 3, 2, 0);
    drops.assert_dropped_once([1, 2]);

    let taken = world.entity_mut(e).take::<Counted>().expect("has it");
    assert_counts(&world, 1, 3, 3, 1);
    assert_eq!(taken.0.id, 3);
    drops.assert_dropped_once([1, 2]);
    drop(taken);

    // removing what is absent runs nothing
    world.entity_mut(e).remove::<Counted>();
    assert!(world.entity_mut(e).take::<Counted>().is_none());
    assert_counts(&world, 1, 3, 3, 1);

    world.entity_mut(e).insert(Counted(drops.table(4)));
    assert_counts(&world, 2, 4, 3, 1);
    world.despawn(e);
    assert_counts(&world, 2, 4, 4, 2);
    drops.assert_dropped_once([1, 2, 3, 4]);
}

// Bevy: crates/bevy_ecs/src/bundle/tests.rs `insert_if_new`, with hooks: Bevy's
// `InsertMode::Keep` runs no Discard/Insert for the kept value, and Add then
// Insert for the new ones; the value not inserted is dropped.
#[test]
fn insert_if_new_runs_hooks_only_for_new_values() {
    let drops = DropLog::new();
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Counts>();
    let id = world.spawn((L1(1), Counted(drops.table(1)))).id();
    take_log(&mut world);
    assert_counts(&world, 1, 1, 0, 0);

    let mut entity = world.entity_mut(id);
    entity.insert_if_new((L1(2), Counted(drops.table(2))));
    assert_eq!(entity.get::<L1>(), Some(&L1(1)));
    assert_eq!(entity.get::<Counted>().map(|c| c.0.id), Some(1));
    drops.assert_dropped_once([2]);
    assert_counts(entity.world(), 1, 1, 0, 0);
    assert_eq!(take_log(entity.world_mut()), Vec::<String>::new(), "kept values run no hooks");

    entity.insert_if_new((L1(3), L2(3), L3(3)));
    assert_eq!(entity.get::<L1>(), Some(&L1(1)));
    assert_eq!(entity.get::<L2>(), Some(&L2(3)));
    assert_eq!(entity.get::<L3>(), Some(&L3(3)));
    // Bevy runs L2.add, L3.add, L2.insert, L3.insert (one move); ours inserts each
    // new value as `insert` would, one after the other (documented on
    // `World::insert_if_new`), so only the set of hooks is compared.
    let mut seen = take_log(entity.world_mut());
    seen.sort();
    assert_eq!(seen, lines(&["L2.add", "L2.insert", "L3.add", "L3.insert"]));
    let l2 = seen.iter().position(|s| s == "L2.add").unwrap();
    assert!(l2 < seen.iter().position(|s| s == "L2.insert").unwrap());
    drop(world);
    drops.assert_dropped_once([1, 2]);
}

#[derive(Component)]
struct MyComponent;

#[derive(Resource, Default)]
struct Removed(Vec<Entity>);

fn react_on_removal(mut removed: RemovedComponents<MyComponent>, mut out: ResMut<Removed>) {
    out.0.extend(removed.read());
}

// Bevy: crates/bevy_ecs/src/lifecycle.rs (doc example of `RemovedComponents`)
#[test]
fn removed_components_doc() {
    let mut world = World::new();
    world.init_resource::<Removed>();
    let mut schedule = Schedule::new();
    schedule.add_systems(react_on_removal);
    schedule.run(&mut world);

    let a = world.spawn(MyComponent).id();
    let b = world.spawn(MyComponent).id();
    let c = world.spawn(MyComponent).id();
    world.entity_mut(a).remove::<MyComponent>();
    assert!(world.entity_mut(b).take::<MyComponent>().is_some());
    world.entity_mut(c).despawn();
    schedule.run(&mut world);
    let mut seen = std::mem::take(&mut world.resource_mut::<Removed>().0);
    seen.sort();
    let mut expected = vec![a, b, c];
    expected.sort();
    assert_eq!(seen, expected);

    schedule.run(&mut world);
    assert!(world.resource::<Removed>().0.is_empty(), "each removal is read once");
}

// ----- component/mod.rs ----------------------------------------------------------------

#[derive(Component, Debug, PartialEq)]
struct LicensePlate(String);

#[derive(Component, Debug, PartialEq)]
struct Car;

#[derive(Component, Debug, PartialEq)]
struct VehiclePerformance {
    acceleration: f32,
    top_speed: f32,
    handling: f32,
}

#[derive(Component, Debug, PartialEq)]
enum WheelCount {
    Two,
    Three,
    Four,
}

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct ComponentA;

// Bevy: crates/bevy_ecs/src/component/mod.rs (doc examples of `Component`: data,
// markers, named fields, enums; `storage = "SparseSet"`)
#[test]
fn component_kinds_doc() {
    let mut world = World::new();
    let perf = VehiclePerformance { acceleration: 1.0, top_speed: 2.0, handling: 3.0 };
    let car = world.spawn((LicensePlate("ECS 1".into()), Car, perf, WheelCount::Four, ComponentA)).id();
    let bike = world.spawn((LicensePlate("ECS 2".into()), WheelCount::Two)).id();
    let trike = world.spawn(WheelCount::Three).id();

    let mut q = world.query::<(Entity, &WheelCount, Option<&LicensePlate>, Has<Car>, Has<ComponentA>)>();
    let mut rows: Vec<_> =
        q.iter(&world).map(|(e, w, p, car, a)| (e, format!("{w:?}"), p.map(|p| p.0.clone()), car, a)).collect();
    rows.sort();
    let mut expected = vec![
        (car, "Four".to_owned(), Some("ECS 1".to_owned()), true, true),
        (bike, "Two".to_owned(), Some("ECS 2".to_owned()), false, false),
        (trike, "Three".to_owned(), None, false, false),
    ];
    expected.sort();
    assert_eq!(rows, expected);
    assert_eq!(world.get::<VehiclePerformance>(car).map(|p| p.top_speed), Some(2.0));
    assert_eq!(world.get::<VehiclePerformance>(car).map(|p| p.acceleration + p.handling), Some(4.0));

    // a sparse component never moves the entity between archetypes
    let before = world.entity(car).archetype();
    world.entity_mut(car).remove::<ComponentA>();
    assert_eq!(world.entity(car).archetype(), before);
    world.entity_mut(car).insert(ComponentA);
    assert_eq!(world.entity(car).archetype(), before);
    assert!(world.entity(car).contains::<ComponentA>());
}

#[derive(Component, Debug)]
#[component(on_add = DoubleOnSpawn::on_add)]
struct DoubleOnSpawn(usize);

impl DoubleOnSpawn {
    fn on_add(mut world: DeferredWorld, context: HookContext) {
        let mut entity = world.get_mut::<Self>(context.entity).unwrap();
        entity.0 *= 2;
    }
}

// Bevy: crates/bevy_ecs/src/component/mod.rs (doc example `DoubleOnSpawn`: an
// on_add hook writes the new value)
#[test]
fn component_on_add_hook_mutates_doc() {
    let mut world = World::new();
    let entity = world.spawn(DoubleOnSpawn(2));
    assert_eq!(entity.get::<DoubleOnSpawn>().unwrap().0, 4);
    let id = entity.id();

    // overwriting runs no on_add
    world.entity_mut(id).insert(DoubleOnSpawn(5));
    assert_eq!(world.get::<DoubleOnSpawn>(id).unwrap().0, 5);
    // a new value after a remove does
    world.entity_mut(id).remove::<DoubleOnSpawn>();
    world.entity_mut(id).insert(DoubleOnSpawn(5));
    assert_eq!(world.get::<DoubleOnSpawn>(id).unwrap().0, 10);

    // the hook's write is part of the add: a query sees it added and changed
    let mut q = world.query::<Ref<DoubleOnSpawn>>();
    let r = q.single(&world).unwrap();
    assert!(r.is_added() && r.is_changed());
    assert_eq!(r.0, 10);
}

#[derive(Component)]
#[component(on_add = my_on_add_hook)]
#[component(on_insert = my_on_insert_hook)]
struct HookedA;

fn my_on_add_hook(mut world: DeferredWorld, context: HookContext) {
    let name = if world.world().component_id::<HookedA>() == Some(context.component_id) { "HookedA" } else { "?" };
    log(&mut world, format!("add {name}"));
}

fn my_on_insert_hook(mut world: DeferredWorld, HookContext { entity, .. }: HookContext) {
    assert!(world.get::<HookedA>(entity).is_some());
    log(&mut world, "insert".to_owned());
}

// Bevy: crates/bevy_ecs/src/component/mod.rs (doc example: hooks configured by
// two `#[component]` attributes, the context destructured in the signature)
#[test]
fn component_hook_attributes_doc() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(HookedA).id();
    world.entity_mut(e).insert(HookedA);
    assert_eq!(take_log(&mut world), lines(&["add HookedA", "insert", "insert"]));
}

// ----- change_detection/mod.rs -----------------------------------------------------------

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct R2(u8);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct R2Sparse(u8);

// Bevy: crates/bevy_ecs/src/change_detection/mod.rs `set_if_neq` (on a component
// through `EntityWorldMut::get_mut`, table and sparse)
#[test]
fn set_if_neq_through_entity_world_mut() {
    let mut world = World::new();

    let e = world.spawn((R2(0), R2Sparse(0))).id();
    // Components are changed when first added
    world.increment_change_tick();
    // This is required to update world::last_change_tick
    world.clear_trackers();
    let before = world.component_ticks::<R2>(e).unwrap();

    let mut entity = world.entity_mut(e);
    {
        let mut r = entity.get_mut::<R2>().unwrap();
        assert!(!r.is_changed(), "Component must begin unchanged.");
        assert!(!r.set_if_neq(R2(0)));
        assert!(!r.is_changed(), "Component must not be changed after setting to the same value.");
        assert!(r.set_if_neq(R2(3)));
        assert!(r.is_changed(), "Component must be changed after setting to a different value.");
        assert!(!r.is_added());
    }
    {
        let mut s = entity.get_mut::<R2Sparse>().unwrap();
        assert!(!s.is_changed());
        assert!(!s.set_if_neq(R2Sparse(0)));
        assert!(!s.is_changed());
        assert!(s.set_if_neq(R2Sparse(3)));
        assert!(s.is_changed());
    }
    assert_eq!(entity.get::<R2>(), Some(&R2(3)));
    let after = world.component_ticks::<R2>(e).unwrap();
    assert_eq!(after.added, before.added);
    assert_ne!(after.changed, before.changed);

    // the ticks survive a move of the entity between archetypes
    world.entity_mut(e).insert(DoubleOnSpawn(1));
    assert_eq!(world.component_ticks::<R2>(e), Some(after));
    assert!(world.get_mut::<R2>(e).unwrap().is_changed());
    world.clear_trackers();
    assert!(!world.get_mut::<R2>(e).unwrap().is_changed());
}

/// Records, from inside its hooks, what `DeferredWorld::get_mut` reports.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = flags_on_add, on_insert = flags_on_insert, on_replace = flags_on_replace)]
struct Flagged(u32);

fn flags(world: &mut DeferredWorld, entity: Entity, hook: &str) {
    let (added, changed, value) = {
        let m = world.get_mut::<Flagged>(entity).unwrap();
        (m.is_added(), m.is_changed(), m.0)
    };
    log(world, format!("{hook}({value}) added={added} changed={changed}"));
}
fn flags_on_add(mut world: DeferredWorld, ctx: HookContext) {
    flags(&mut world, ctx.entity, "add");
}
fn flags_on_insert(mut world: DeferredWorld, ctx: HookContext) {
    flags(&mut world, ctx.entity, "insert");
}
fn flags_on_replace(mut world: DeferredWorld, ctx: HookContext) {
    flags(&mut world, ctx.entity, "replace");
}

// Bevy: crates/bevy_ecs/src/change_detection/mod.rs (ticks as seen from hooks:
// `DeferredWorld::get_mut` compares against the world's last change tick, like
// `World::get_mut`; a value added or overwritten now reads as added / changed)
#[test]
fn change_ticks_seen_from_hooks() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.increment_change_tick();
    world.clear_trackers();

    let e = world.spawn(Flagged(1)).id();
    assert_eq!(take_log(&mut world), lines(&["add(1) added=true changed=true", "insert(1) added=true changed=true"]));

    world.increment_change_tick();
    world.clear_trackers();
    world.entity_mut(e).insert(Flagged(2));
    assert_eq!(
        take_log(&mut world),
        lines(&["replace(1) added=false changed=false", "insert(2) added=false changed=true"])
    );
    let ticks = world.component_ticks::<Flagged>(e).unwrap();
    assert_eq!(ticks.changed, world.change_tick());
    assert_ne!(ticks.added, ticks.changed);
}

// Bevy: crates/bevy_ecs/src/bundle/tests.rs `insert_if_new` (change detection side:
// `InsertMode::Keep` leaves a kept value's ticks as they were)
#[test]
fn insert_if_new_keeps_the_ticks_of_kept_values() {
    let mut world = World::new();
    let e = world.spawn((R2(1), R2Sparse(1))).id();
    world.increment_change_tick();
    world.clear_trackers();
    let dense = world.component_ticks::<R2>(e).unwrap();
    let sparse = world.component_ticks::<R2Sparse>(e).unwrap();

    let mut changed = world.query_filtered::<Entity, Or<(Changed<R2>, Changed<R2Sparse>)>>();
    assert_eq!(changed.iter(&world).count(), 1, "first run sees everything");
    assert_eq!(changed.iter(&world).count(), 0);

    world.entity_mut(e).insert_if_new((R2(2), R2Sparse(2), Car));
    assert_eq!(world.get::<R2>(e), Some(&R2(1)));
    assert_eq!(world.get::<R2Sparse>(e), Some(&R2Sparse(1)));
    assert_eq!(world.component_ticks::<R2>(e), Some(dense));
    assert_eq!(world.component_ticks::<R2Sparse>(e), Some(sparse));
    assert_eq!(changed.iter(&world).count(), 0, "kept values are not changed");
    assert!(!world.get_mut::<R2>(e).unwrap().is_changed());

    // `insert` over them is a change, not an add
    world.entity_mut(e).insert((R2(3), R2Sparse(3)));
    assert_eq!(changed.iter(&world).count(), 1);
    assert_eq!(world.component_ticks::<R2>(e).unwrap().added, dense.added);
    assert_eq!(world.component_ticks::<R2Sparse>(e).unwrap().added, sparse.added);
}

// Bevy: crates/bevy_ecs/src/world/entity_access/mod.rs `command_ordering_is_correct`
// (extended from spawn/despawn to overwrite, remove, take and insert_if_new through
// `EntityWorldMut`: Add/Insert run the hook, then observers; Discard/Remove run
// observers, then the hook; Despawn observers come first)
#[test]
fn hook_and_observer_order_through_entity_world_mut() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|_: Trigger<OnAdd, L1>, mut log: ResMut<Log>| log.0.push("obs.add".to_owned()));
    world.add_observer(|_: Trigger<OnInsert, L1>, mut log: ResMut<Log>| log.0.push("obs.insert".to_owned()));
    world.add_observer(|_: Trigger<OnReplace, L1>, mut log: ResMut<Log>| log.0.push("obs.replace".to_owned()));
    world.add_observer(|_: Trigger<OnRemove, L1>, mut log: ResMut<Log>| log.0.push("obs.remove".to_owned()));
    world.add_observer(|_: Trigger<OnDespawn, L1>, mut log: ResMut<Log>| log.0.push("obs.despawn".to_owned()));

    let e = world.spawn(L1(0)).id();
    assert_eq!(take_log(&mut world), lines(&["L1.add", "obs.add", "L1.insert", "obs.insert"]));
    let mut view = world.entity_mut(e);
    view.insert(L1(1));
    assert_eq!(take_log(view.world_mut()), lines(&["obs.replace", "L1.replace", "L1.insert", "obs.insert"]));
    view.remove::<L1>();
    assert_eq!(take_log(view.world_mut()), lines(&["obs.replace", "L1.replace", "obs.remove", "L1.remove"]));
    view.remove::<L1>();
    assert_eq!(take_log(view.world_mut()), Vec::<String>::new());
    view.insert(L1(2));
    take_log(view.world_mut());
    assert_eq!(view.take::<L1>(), Some(L1(2)));
    assert_eq!(take_log(view.world_mut()), lines(&["obs.replace", "L1.replace", "obs.remove", "L1.remove"]));
    view.insert(L1(3));
    take_log(view.world_mut());
    view.insert_if_new(L1(4));
    assert_eq!(take_log(view.world_mut()), Vec::<String>::new());
    assert_eq!(view.get::<L1>(), Some(&L1(3)));
    view.despawn();
    assert_eq!(take_log(&mut world), lines(&["obs.despawn", "obs.replace", "L1.replace", "obs.remove", "L1.remove"]));
}

/// A value observers edit while it is being removed.
#[derive(Component, Debug, PartialEq)]
struct Edited(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct EditedSparse(u32);

// Bevy: crates/bevy_ecs/src/lifecycle.rs (module doc: `Discard` and `Remove` run
// "before the component is removed"): what observers write then is what `take`
// hands back and what is dropped.
#[test]
fn remove_observers_write_before_the_value_leaves() {
    let drops = DropLog::new();
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnReplace, Edited>, mut q: Query<&mut Edited>| {
        q.get_mut(t.entity()).unwrap().0 += 100;
    });
    world.add_observer(|t: Trigger<OnRemove, EditedSparse>, mut q: Query<&mut EditedSparse>| {
        q.get_mut(t.entity()).unwrap().0 += 1000;
    });
    let e = world.spawn((Edited(1), EditedSparse(2), drops.table(1))).id();
    let taken = world.entity_mut(e).take::<(Edited, EditedSparse)>();
    assert_eq!(taken, Some((Edited(101), EditedSparse(1002))));
    world.entity_mut(e).insert((Edited(5), EditedSparse(6)));
    world.entity_mut(e).insert(Edited(7));
    assert_eq!(world.get::<Edited>(e), Some(&Edited(7)), "the overwrite wins over the edit of the old value");
    assert_eq!(world.remove::<Edited>(e), Some(Edited(107)));
    assert_eq!(drops.count(), 0);
    world.despawn(e);
    drops.assert_dropped_once([1]);
}
