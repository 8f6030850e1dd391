//! Flecs' observer tests, restated against this crate's API (API.md,
//! "Observers and events" and "Relationships"; `ecs::observer`).
//!
//! Sources (Flecs 4, `test/core/src`): `Observer.c`, `Trigger.c`,
//! `TriggerOnAdd.c`, `TriggerOnRemove.c`, `TriggerOnSet.c`, `ObserverOnSet.c`,
//! and `test/cpp/src/Observer.cpp`. Each test names the Flecs test it ports.
//!
//! Name mapping: a Flecs observer with terms `A, B` is `Trigger<E, (A, B)>`
//! (fires once the entity has all of them); `(Rel, *)` is `Pair<Rel>`; a
//! single-entity observer (`src = e`) is `entity_mut(e).observe(..)`; Flecs
//! `OnSet` is our `OnInsert`; `ecs_delete(observer)` is despawning the
//! observer entity; `ecs_delete(e)` is `despawn`; changes made inside a Flecs
//! observer (which runs deferred) are our observer `Commands`, applied before
//! the triggering call returns.
//!
//! Adapted to documented differences of ours (each test says so):
//! * observers still fire for `Disabled` entities (`Disabled`'s rustdoc);
//! * an observer hears about prefabs only when it watches `Prefab` itself, as
//!   a required component (we have no optional observer terms);
//! * a data component cannot be added without a value, so Flecs' "add, then
//!   set" is one `insert` here;
//! * `OnInsert` fires for tags too (it is "inserted, new or overwriting");
//!   Flecs turns an `OnSet` observer of a tag into an `OnAdd` one;
//! * one observer watches one event, so a Flecs observer of two events is two
//!   observers here.
//!
//! Not ported (no equivalent here): yield_existing, optional / not / or terms
//! (`?B`, `!B`, `A || B`), up / self|up traversal terms and fixed sources,
//! observer queries with variables, custom run callbacks, ctx / binding ctx,
//! field sizes and `is_set`, `ecs_clear`, tables created ahead of time,
//! `(*, Tgt)` and `(*, *)` observers, modules, singletons, names.

use ecs::observer::ObserverMarker;
use ecs::prelude::*;
use ecs_tests::DropLog;

// ----- fixtures -------------------------------------------------------------------------

#[derive(Component, Debug)]
struct TagA;

#[derive(Component, Debug)]
struct TagB;

#[derive(Component, Debug)]
struct Bar;

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

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Mass(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Rotation(u64);

/// Flecs' `TagA` with `(OnInstantiate, Inherit)`: instances share the base's.
#[derive(Component, Debug)]
#[component(on_instantiate = "inherit")]
struct InheritedTag;

/// Flecs' `TagB` with `(OnInstantiate, Inherit)`.
#[derive(Component, Debug)]
#[component(on_instantiate = "inherit")]
struct InheritedTagB;

/// Flecs' `Position` with `(OnInstantiate, Inherit)`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_instantiate = "inherit")]
struct InheritedPos {
    x: f32,
    y: f32,
}

#[derive(Relationship, Debug)]
struct Rel;

#[derive(Relationship, Debug)]
struct OtherRel;

#[derive(Relationship, Debug)]
#[relationship(exclusive)]
struct ExclusiveRel;

/// What observers saw, in firing order.
#[derive(Resource, Default, Debug)]
struct Log(Vec<String>);

fn log_world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

/// The log since the last call (and clears it).
fn take(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

fn entry(what: &str, e: Entity) -> String {
    format!("{what} {e:?}")
}

macro_rules! tags {
    ($($name:ident),*) => { $( #[derive(Component, Debug)] struct $name; )* };
}

tags!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15);

/// Flecs C++ `Observer_10_terms`' terms.
type Tags10 = (T0, T1, T2, T3, T4, T5, T6, T7, T8, T9);
/// Flecs C++ `Observer_16_terms`' terms.
type Tags16 = (T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15);

// ===== Observer.c: one term, before and after the archetype edge exists ==================

/// Flecs `Observer_on_add_before_edge`: the observer exists before any entity
/// has the tag; adding it fires once, for that entity, with that component,
/// and `observer()` is the observer entity.
#[test]
fn on_add_before_edge() {
    let mut world = log_world();
    let tag_a = world.register_component::<TagA>();
    let o = world
        .add_observer(move |t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| {
            assert_eq!(t.components(), &[tag_a]);
            log.0.push(format!("{} {:?} {:?}", "add", t.entity(), t.observer()));
        })
        .id();
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![format!("add {e:?} {o:?}")]);
}

/// Flecs `Observer_on_add_after_edge`: the archetype (and the edge to it)
/// exist before the observer is created; it still fires.
#[test]
fn on_add_after_edge() {
    let mut world = log_world();
    let e1 = world.spawn_empty().id();
    world.entity_mut(e1).insert(TagA);
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e2 = world.spawn_empty().id();
    world.entity_mut(e2).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("add", e2)]);
}

/// Flecs `Observer_on_add_wildcard_before_edge`: an observer of `*` (ours: a
/// lifecycle trigger watching nothing, a global one) hears the add with the
/// added component.
#[test]
fn on_add_wildcard_before_edge() {
    let mut world = log_world();
    let tag_a = world.register_component::<TagA>();
    let e = world.spawn_empty().id();
    world.add_observer(move |t: Trigger<OnAdd>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), t.components() == [tag_a]));
    });
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![format!("{e:?} true")]);
}

/// Flecs `Observer_on_add_wildcard_after_edge`: as above with the archetype
/// created first.
#[test]
fn on_add_wildcard_after_edge() {
    let mut world = log_world();
    let tag_a = world.register_component::<TagA>();
    world.spawn(TagA);
    let e = world.spawn_empty().id();
    world.add_observer(move |t: Trigger<OnAdd>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), t.components() == [tag_a]));
    });
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![format!("{e:?} true")]);
}

/// Flecs `Observer_on_add_any_before_edge`: an observer of any id hears each
/// pair added, once, with the pair's target.
#[test]
fn on_add_any_before_edge() {
    let mut world = log_world();
    world.register_component::<Rel>();
    world.register_component::<OtherRel>();
    let tgt = world.spawn_empty().id();
    let e = world.spawn_empty().id();
    world.add_observer(|t: Trigger<OnAdd>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {:?}", t.entity(), t.pair_target()));
    });
    world.add_pair::<Rel>(e, tgt);
    assert_eq!(take(&mut world), vec![format!("{e:?} Some({tgt:?})")]);
    world.add_pair::<OtherRel>(e, tgt);
    assert_eq!(take(&mut world), vec![format!("{e:?} Some({tgt:?})")]);
}

/// Flecs `Observer_on_remove_before_edge`: adding does not fire an `OnRemove`
/// observer; removing fires it once.
#[test]
fn on_remove_before_edge() {
    let mut world = log_world();
    let o = world
        .add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| {
            log.0.push(format!("remove {:?} {:?}", t.entity(), t.observer()));
        })
        .id();
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![format!("remove {e:?} {o:?}")]);
}

/// Flecs `Observer_on_remove_after_edge`.
#[test]
fn on_remove_after_edge() {
    let mut world = log_world();
    let e1 = world.spawn(TagA).id();
    world.entity_mut(e1).remove::<TagA>();
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e2 = world.spawn(TagA).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e2).remove::<TagA>();
    assert_eq!(take(&mut world), vec![entry("remove", e2)]);
}

/// Flecs `Observer_on_remove_wildcard_before_edge`: a global `OnRemove`
/// observer hears the removed component.
#[test]
fn on_remove_wildcard_before_edge() {
    let mut world = log_world();
    let tag_a = world.register_component::<TagA>();
    let e = world.spawn_empty().id();
    world.add_observer(move |t: Trigger<OnRemove>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), t.components() == [tag_a]));
    });
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![format!("{e:?} true")]);
}

// ===== Observer.c: two terms ===========================================================

/// Flecs `Observer_2_terms_w_on_add`: `TagA, TagB` fires when the first term
/// arrives second.
#[test]
fn two_terms_w_on_add() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, (TagA, TagB)>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagB);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

/// Flecs `Observer_2_terms_w_on_add_2nd`: the second term arrives second.
#[test]
fn two_terms_w_on_add_2nd() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, (TagA, TagB)>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).insert(TagB);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

/// Flecs `Observer_2_terms_w_on_remove`: removing the first term while both
/// are present fires once.
#[test]
fn two_terms_w_on_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, (TagA, TagB)>, mut log: ResMut<Log>| {
        log.0.push(entry("remove", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    world.entity_mut(e).insert(TagB);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
    // Once one term is gone, removing the other no longer matches.
    world.entity_mut(e).remove::<TagB>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Observer_2_terms_w_on_remove_2nd`.
#[test]
fn two_terms_w_on_remove_2nd() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, (TagA, TagB)>, mut log: ResMut<Log>| {
        log.0.push(entry("remove", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    world.entity_mut(e).insert(TagB);
    world.entity_mut(e).remove::<TagB>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `Observer_2_terms_on_remove_on_delete`: deleting an entity with both
/// terms fires the two-term `OnRemove` observer once.
#[test]
fn two_terms_on_remove_on_delete() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, (TagA, TagB)>, mut log: ResMut<Log>| {
        log.0.push(entry("remove", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    world.entity_mut(e).insert(TagB);
    assert!(take(&mut world).is_empty());
    world.despawn(e);
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `Observer_2_terms_w_on_remove_value`: removing one of two watched
/// components fires once, and both values are still readable.
#[test]
fn two_terms_w_on_remove_value() {
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnRemove, (Position, Velocity)>, q: Query<(&Position, &Velocity)>, mut log: ResMut<Log>| {
            let (p, v) = q.get(t.entity()).unwrap();
            log.0.push(format!("{} {} {} {}", p.x, p.y, v.x, v.y));
        },
    );
    let e = world.spawn_empty().id();
    world.insert(e, Velocity { x: 1.0, y: 2.0 });
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec!["10 20 1 2".to_string()]);
}

/// Flecs `Observer_2_terms_w_on_set_value`: an `OnSet` (ours: `OnInsert`)
/// observer of two components fires when the second is set and reads both.
#[test]
fn two_terms_w_on_set_value() {
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnInsert, (Position, Velocity)>, q: Query<(&Position, &Velocity)>, mut log: ResMut<Log>| {
            let (p, v) = q.get(t.entity()).unwrap();
            log.0.push(format!("{} {} {} {}", p.x, p.y, v.x, v.y));
        },
    );
    let e = world.spawn_empty().id();
    world.insert(e, Velocity { x: 1.0, y: 2.0 });
    assert!(take(&mut world).is_empty());
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec!["10 20 1 2".to_string()]);
}

/// Flecs C++ `Observer_2_terms_on_set`: an `OnSet` (ours: `OnInsert`) observer
/// of two components fires when the second is set, and reads both values.
#[test]
fn cpp_two_terms_on_set() {
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnInsert, (Position, Velocity)>, q: Query<(&Position, &Velocity)>, mut log: ResMut<Log>| {
            let (p, v) = q.get(t.entity()).unwrap();
            log.0.push(format!("{} {} {} {}", p.x, p.y, v.x, v.y));
        },
    );
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(Position { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).insert(Velocity { x: 1.0, y: 2.0 });
    assert_eq!(take(&mut world), vec!["10 20 1 2".to_string()]);
}

/// Flecs C++ `Observer_10_terms`: an observer of ten tags fires once, when
/// the tenth is added.
#[test]
fn cpp_10_terms() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Tags10>, mut log: ResMut<Log>| {
        log.0.push(entry("add", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(T0).insert(T1).insert(T2).insert(T3).insert(T4);
    world.entity_mut(e).insert(T5).insert(T6).insert(T7).insert(T8);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).insert(T9);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

/// Flecs C++ `Observer_16_terms`: sixteen tags, added one at a time.
#[test]
fn cpp_16_terms() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Tags16>, mut log: ResMut<Log>| {
        log.0.push(entry("add", t.entity()));
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(T0).insert(T1).insert(T2).insert(T3).insert(T4).insert(T5).insert(T6);
    world.entity_mut(e).insert(T7).insert(T8).insert(T9).insert(T10).insert(T11).insert(T12).insert(T13);
    world.entity_mut(e).insert(T14);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).insert(T15);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

// ===== Observer.c: deleting observers ==================================================

/// Flecs `Observer_add_after_delete_observer`: a deleted observer no longer
/// fires (and deleting it fires nothing).
#[test]
fn add_after_delete_observer() {
    let mut world = log_world();
    let o = world
        .add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())))
        .id();
    let e1 = world.spawn(Position::default()).id();
    assert!(world.has::<Position>(e1));
    assert_eq!(take(&mut world), vec![entry("add", e1)]);
    world.despawn(o);
    assert!(take(&mut world).is_empty());
    let e2 = world.spawn(Position::default()).id();
    assert!(world.has::<Position>(e2));
    assert!(take(&mut world).is_empty());
}

/// Flecs `Observer_remove_after_delete_observer`.
#[test]
fn remove_after_delete_observer() {
    let mut world = log_world();
    let o = world
        .add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())))
        .id();
    let e1 = world.spawn(Position::default()).id();
    world.entity_mut(e1).remove::<Position>();
    assert_eq!(take(&mut world), vec![entry("remove", e1)]);
    world.despawn(o);
    let e2 = world.spawn(Position::default()).id();
    world.entity_mut(e2).remove::<Position>();
    assert!(!world.has::<Position>(e2));
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_add_after_delete_wildcard_id_trigger`: the same for
/// an observer of every id (ours: a global lifecycle observer).
#[test]
fn add_after_delete_wildcard_id_trigger() {
    let mut world = log_world();
    world.register_component::<Position>();
    let o = world.add_observer(|t: Trigger<OnAdd>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity()))).id();
    let e1 = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![entry("add", e1)]);
    world.despawn(o);
    assert!(take(&mut world).is_empty());
    world.spawn(Position::default());
    assert!(take(&mut world).is_empty());
}

/// Flecs `Observer_tag_w_on_set_and_on_add`: an observer of `OnAdd` and
/// `OnSet` on a tag fires once when the tag is added (Flecs never sends
/// `OnSet` for a tag); after deleting it, nothing fires. Adapted: one event
/// per observer here, so two observers; and our `OnInsert` does fire for a tag
/// (documented: "inserted, new or overwriting"), so each fires once.
#[test]
fn tag_w_on_set_and_on_add() {
    let mut world = log_world();
    let e1 = world.spawn_empty().id();
    let o_add =
        world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity()))).id();
    let o_set = world
        .add_observer(|t: Trigger<OnInsert, TagA>, mut log: ResMut<Log>| log.0.push(entry("set", t.entity())))
        .id();
    world.entity_mut(e1).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("add", e1), entry("set", e1)]);
    world.despawn(o_add);
    world.despawn(o_set);
    let e2 = world.spawn_empty().id();
    world.entity_mut(e2).insert(TagA);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_set_w_tag`: an `OnSet` observer of a tag fires once when
/// the tag is added. Adapted: Flecs reports the event as `OnAdd` (it turns an
/// `OnSet` tag observer into an `OnAdd` one); ours is an `OnInsert` observer,
/// and `OnInsert` fires for tags.
#[test]
fn on_set_w_tag() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, TagA>, mut log: ResMut<Log>| log.0.push(entry("set", t.entity())));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("set", e)]);
}

/// Flecs `Observer_disable_observer`: `ecs_enable(o, false)` stops the
/// observer, `ecs_enable(o, true)` resumes it. Ours: the built-in `Disabled`
/// tag on the observer entity (what `ecs_enable` adds in Flecs).
#[test]
fn disable_observer() {
    let mut world = log_world();
    let o = world
        .add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())))
        .id();
    let e1 = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![entry("add", e1)]);
    world.entity_mut(o).insert(Disabled);
    world.spawn(Position::default());
    assert!(take(&mut world).is_empty(), "a disabled observer must not fire");
    world.entity_mut(o).remove::<Disabled>();
    let e3 = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![entry("add", e3)]);
}

// ===== Observer.c: prefabs and disabled entities =======================================

/// Flecs `Observer_trigger_on_prefab`: a plain observer does not fire for
/// prefabs; one that names `Prefab` does. Adapted: Flecs names it as an
/// optional term (`?Prefab`, so it fires for ordinary entities too); we have
/// no optional observer terms, so ours requires it (`(TagA, Prefab)`) and
/// does not fire for the ordinary entity. Also adapted: Flecs skips
/// `Disabled` entities in both observers; ours documents that observers still
/// see disabled entities (`Disabled`'s rustdoc).
#[test]
fn trigger_on_prefab() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("plain", t.entity())));
    world.add_observer(|t: Trigger<OnAdd, (TagA, Prefab)>, mut log: ResMut<Log>| {
        log.0.push(entry("prefab", t.entity()))
    });
    let e0 = world.spawn(TagA).id();
    assert_eq!(take(&mut world), vec![entry("plain", e0)]);

    let p = world.spawn(Prefab).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(p).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("prefab", p)]);

    let d = world.spawn(Disabled).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(d).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("plain", d)], "adapted: observers still see disabled entities");
}

/// Flecs `Observer_trigger_on_disabled`: an observer naming `Disabled` fires
/// for a disabled entity, not for a prefab. Adapted: ours requires `Disabled`
/// (no optional terms); the plain observer fires for the disabled entity
/// (documented), not for the prefab.
#[test]
fn trigger_on_disabled() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("plain", t.entity())));
    world.add_observer(|t: Trigger<OnAdd, (TagA, Disabled)>, mut log: ResMut<Log>| {
        log.0.push(entry("disabled", t.entity()))
    });
    let p = world.spawn(Prefab).id();
    world.entity_mut(p).insert(TagA);
    assert!(take(&mut world).is_empty());
    let d = world.spawn(Disabled).id();
    world.entity_mut(d).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("plain", d), entry("disabled", d)]);
}

/// Flecs `ObserverOnSet_on_set_prefab`: setting a component on a prefab does
/// not fire an `OnSet` (ours: `OnInsert`) observer.
#[test]
fn on_set_prefab() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push(entry("set", t.entity())));
    let p = world.spawn(Prefab).id();
    world.entity_mut(p).insert(Position { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
}

// ===== inherited components (IsA) ======================================================

/// Flecs `Observer_notify_propagated_twice`: adding an inheritable tag to a
/// base notifies the base and every instance (Flecs' default `self|up IsA`
/// for inheritable components): three invocations. Adapted: our instances
/// read values from prefab bases only (`IsA`'s rustdoc), so the base is a
/// prefab here, and a prefab is not notified (Flecs skips prefabs too): the
/// two instances are.
#[test]
fn notify_propagated_twice() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, InheritedTag>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let base = world.spawn(Prefab).id();
    let inst_a = world.spawn_empty().add_pair::<IsA>(base).id();
    world.entity_mut(inst_a).insert(TagB);
    let inst_b = world.spawn_empty().add_pair::<IsA>(base).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(base).insert(InheritedTag);
    assert!(world.has::<InheritedTag>(inst_a) && world.has::<InheritedTag>(inst_b), "instances inherit the tag");
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![entry("add", inst_a), entry("add", inst_b)];
    expected.sort();
    assert_eq!(log, expected);
}

/// Flecs `Trigger_on_add_base`: an observer of an inheritable tag hears an
/// instance gain it when its prefab base gets it; adding it again, or another
/// tag, fires nothing.
#[test]
fn on_add_base() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, InheritedTag>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let base = world.spawn(Prefab).id();
    let e = world.instantiate(base);
    assert!(take(&mut world).is_empty());
    world.entity_mut(base).insert(InheritedTag);
    assert!(world.has::<InheritedTag>(e));
    assert_eq!(take(&mut world), vec![entry("add", e)]);
    world.entity_mut(base).insert(InheritedTag).insert(InheritedTagB);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_remove_base`: removing an inheritable tag from a prefab
/// fires `OnRemove` for its instance.
#[test]
fn on_remove_base() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, InheritedTag>, mut log: ResMut<Log>| {
        log.0.push(entry("remove", t.entity()))
    });
    let base = world.spawn(Prefab).id();
    let e = world.instantiate(base);
    world.entity_mut(base).insert(InheritedTag).insert(InheritedTagB);
    assert!(take(&mut world).is_empty());
    world.entity_mut(base).remove::<InheritedTag>();
    assert!(!world.has::<InheritedTag>(e));
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
    world.entity_mut(base).remove::<InheritedTag>().remove::<InheritedTagB>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_add_self_trigger_with_add_isa`: an observer restricted
/// to `self` fires for the base that gets the tag, and not when an entity
/// inherits it through a new `IsA` pair. Adapted: ours has no `self`-only
/// observer; an observer of an inheritable component is Flecs' default
/// (`self|up IsA`), so the entity that inherits the tag through the new pair
/// is heard once, as in `Trigger_on_add_base`. Values are inherited from
/// prefab bases only here (`IsA`'s rustdoc), so the base is a prefab, and an
/// observer does not hear about prefabs (`Prefab`'s rustdoc): the base's add
/// is silent.
#[test]
fn on_add_self_trigger_with_add_isa() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, InheritedTag>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let base = world.spawn(Prefab).id();
    world.entity_mut(base).insert(InheritedTag);
    assert!(take(&mut world).is_empty(), "adapted: prefabs are not observed");
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<IsA>(base);
    assert!(world.has::<InheritedTag>(e), "inherited");
    assert_eq!(take(&mut world), vec![entry("add", e)], "adapted: heard through IsA");
    // The `self` part: its own value, on an ordinary entity.
    world.entity_mut(e).insert(InheritedTag);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

/// Flecs C++ `Observer_on_add_inherited`: instantiating a prefab that has an
/// inheritable component fires `OnAdd` for the instance, which reads the
/// prefab's value.
#[test]
fn cpp_on_add_inherited() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, InheritedPos>, q: Query<&InheritedPos>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("add {:?} {} {}", t.entity(), p.x, p.y));
    });
    let p = world.spawn((Prefab, InheritedPos { x: 10.0, y: 20.0 })).id();
    assert!(take(&mut world).is_empty());
    let i = world.instantiate(p);
    assert_eq!(take(&mut world), vec![format!("add {i:?} 10 20")]);
}

/// Flecs `Observer_on_add_multi_observers_w_prefab_instance`: creating an
/// instance of a prefab fires the instance's `OnAdd` for a component copied
/// from the prefab (Flecs' default is a copy; ours `on_instantiate =
/// "override"`) once, not for the prefab; the prefab's child is instantiated
/// as a named child of the instance with its components, and an observer of
/// those two components fires for the new child.
#[test]
fn on_add_multi_observers_w_prefab_instance() {
    #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
    #[component(on_instantiate = "override")]
    struct OPos(f32);
    #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
    #[component(on_instantiate = "override")]
    struct OVel(f32);
    #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
    #[component(on_instantiate = "override")]
    struct OMass(f32);

    let mut world = log_world();
    let prefab = world.spawn((Prefab, OPos(1.0))).id();
    world.add_observer(|t: Trigger<OnAdd, (OMass, OVel)>, mut log: ResMut<Log>| log.0.push(entry("child", t.entity())));
    world.add_observer(|t: Trigger<OnAdd, OPos>, mut log: ResMut<Log>| log.0.push(entry("pos", t.entity())));
    let child = world.spawn(ChildOf.pair(prefab)).id();
    world.entity_mut(child).insert(OVel(2.0)).insert(OMass(3.0)).insert(Name::new("child"));
    assert!(take(&mut world).is_empty(), "prefabs (and their children, which are prefabs) are not observed");

    let inst = world.instantiate(prefab);
    assert!(world.owns::<OPos>(inst));
    let inst_child = world.children(inst).next().expect("the prefab's child is instantiated");
    assert_eq!(world.lookup_child(inst, "child"), Some(inst_child));
    assert!(world.has::<OVel>(inst_child) && world.has::<OMass>(inst_child));
    let mut log = take(&mut world);
    log.sort();
    let mut expected = vec![entry("pos", inst), entry("child", inst_child)];
    expected.sort();
    assert_eq!(log, expected);
}

// ===== pairs ===========================================================================

/// Flecs `Observer_on_add_2_pairs_w_uni_observer`: an observer of `(Rel, *)`
/// fires once per pair added, each time with that pair's target.
#[test]
fn on_add_2_pairs_w_uni_observer() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {:?}", t.entity(), t.pair_target().unwrap()));
    });
    let [tgt_a, tgt_b, tgt_c] = [(); 3].map(|()| world.spawn_empty().id());
    let e = world.spawn(TagA).id();
    for tgt in [tgt_a, tgt_b, tgt_c] {
        world.entity_mut(e).add_pair::<Rel>(tgt);
        assert_eq!(take(&mut world), vec![format!("{e:?} {tgt:?}")]);
    }
}

/// Flecs `Trigger_on_add_pair_obj_wildcard`: `(Pred, *)` fires for each
/// target of `Pred`, not for another relationship's pairs.
#[test]
fn on_add_pair_obj_wildcard() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {:?}", t.entity(), t.pair_target().unwrap()));
    });
    let [obj_a, obj_b] = [(); 2].map(|()| world.spawn_empty().id());
    let e = world.spawn_empty().id();
    world.add_pair::<Rel>(e, obj_a);
    assert_eq!(take(&mut world), vec![format!("{e:?} {obj_a:?}")]);
    world.add_pair::<Rel>(e, obj_b);
    assert_eq!(take(&mut world), vec![format!("{e:?} {obj_b:?}")]);
    world.add_pair::<OtherRel>(e, obj_a);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_remove_pair_obj_wildcard`.
#[test]
fn on_remove_pair_obj_wildcard() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Pair<Rel>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {:?}", t.entity(), t.pair_target().unwrap()));
    });
    let [obj_a, obj_b] = [(); 2].map(|()| world.spawn_empty().id());
    let e = world.spawn_empty().id();
    world.entity_mut(e).add_pair::<Rel>(obj_a).add_pair::<Rel>(obj_b).add_pair::<OtherRel>(obj_a);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove_pair::<Rel>(obj_a);
    assert_eq!(take(&mut world), vec![format!("{e:?} {obj_a:?}")]);
    world.entity_mut(e).remove_pair::<OtherRel>(obj_a);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove_pair::<Rel>(obj_b);
    assert_eq!(take(&mut world), vec![format!("{e:?} {obj_b:?}")]);
}

/// Flecs `Trigger_on_add_remove_after_exclusive_add`: replacing the target of
/// an exclusive relationship fires `OnAdd` for the new pair and `OnRemove`
/// for the old one, once each, with their targets.
#[test]
fn on_add_remove_after_exclusive_add() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<ExclusiveRel>>, mut log: ResMut<Log>| {
        log.0.push(format!("add {:?}", t.pair_target().unwrap()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<ExclusiveRel>>, mut log: ResMut<Log>| {
        log.0.push(format!("remove {:?}", t.pair_target().unwrap()));
    });
    let [obj_a, obj_b] = [(); 2].map(|()| world.spawn_empty().id());
    let e = world.spawn_empty().id();
    world.add_pair::<ExclusiveRel>(e, obj_a);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_a));
    assert_eq!(take(&mut world), vec![format!("add {obj_a:?}")]);
    world.add_pair::<ExclusiveRel>(e, obj_b);
    assert!(world.has_pair::<ExclusiveRel>(e, obj_b));
    assert!(!world.has_pair::<ExclusiveRel>(e, obj_a));
    let mut log = take(&mut world);
    log.sort();
    assert_eq!(log, vec![format!("add {obj_b:?}"), format!("remove {obj_a:?}")]);
}

/// Flecs C++ `Observer_other_table_w_pair_wildcard`: in an `OnAdd` observer of
/// a pair, the entity already has the pair (and what it had before).
#[test]
fn cpp_other_table_w_pair_wildcard() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Pair<Rel>>, q: Query<(Has<Position>, Pair<Rel>)>, mut log: ResMut<Log>| {
        let (has_pos, target) = q.get(t.entity()).unwrap();
        log.0.push(format!("{:?} {has_pos} {target:?}", t.entity()));
    });
    let apples = world.spawn_empty().id();
    let e = world.spawn(Position::default()).id();
    world.add_pair::<Rel>(e, apples);
    assert_eq!(take(&mut world), vec![format!("{e:?} true {apples:?}")]);
}

// ===== Trigger.c ========================================================================

/// Flecs `Trigger_on_add_component`: an `OnAdd` observer of a component reads
/// the value just set.
#[test]
fn on_add_component() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("{:?} {} {}", t.entity(), p.x, p.y));
    });
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    assert_eq!(take(&mut world), vec![format!("{e:?} 10 20")]);
}

/// Flecs `Trigger_on_remove_component`: an `OnRemove` observer still reads
/// the value being removed.
#[test]
fn on_remove_component() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("{:?} {} {}", t.entity(), p.x, p.y));
    });
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![format!("{e:?} 10 20")]);
}

/// Flecs `Trigger_on_set_component` (and `TriggerOnSet_set`): an `OnSet`
/// (ours: `OnInsert`) observer reads the new value on every set.
#[test]
fn on_set_component() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("{:?} {} {}", t.entity(), p.x, p.y));
    });
    let e = world.spawn_empty().id();
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![format!("{e:?} 10 20")]);
    world.insert(e, Position { x: 30.0, y: 40.0 });
    assert_eq!(take(&mut world), vec![format!("{e:?} 30 40")]);
}

/// Flecs `Trigger_on_add_remove`: one observer of `OnAdd` and `OnRemove`
/// (ours: one of each) fires for the add and for the remove.
#[test]
fn on_add_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec![entry("add", e)]);
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `Trigger_add_twice`: adding a tag the entity has fires nothing.
#[test]
fn add_twice() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn(TagA).id();
    assert_eq!(take(&mut world), vec![entry("add", e)]);
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_remove_twice`: removing a tag the entity lacks fires nothing.
#[test]
fn remove_twice() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e = world.spawn(TagA).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
    world.entity_mut(e).remove::<TagA>();
    assert!(take(&mut world).is_empty());
}

/// Flecs `Trigger_on_remove_w_delete` (and `TriggerOnRemove_delete`):
/// deleting the entity fires `OnRemove` for its tag.
#[test]
fn on_remove_w_delete() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e = world.spawn(TagA).id();
    assert!(take(&mut world).is_empty());
    world.despawn(e);
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `Trigger_add_in_trigger`: an observer that adds another tag to the
/// entity; the tag is there when the triggering call returns.
#[test]
fn add_in_trigger() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| {
        commands.entity(t.entity()).insert(TagB);
    });
    let e = world.spawn(TagA).id();
    assert!(world.has::<TagB>(e));
}

/// Flecs `Trigger_remove_in_trigger`: an entity created with `TagA, TagB`;
/// the `OnAdd TagA` observer removes `TagB`.
#[test]
fn remove_in_trigger() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| {
        commands.entity(t.entity()).remove::<TagB>();
    });
    let e = world.spawn((TagA, TagB)).id();
    assert!(world.has::<TagA>(e));
    assert!(!world.has::<TagB>(e));
}

/// Flecs `Trigger_delete_in_trigger`: the `OnAdd` observer deletes the entity
/// it was created with.
#[test]
fn delete_in_trigger() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| {
        commands.entity(t.entity()).despawn();
    });
    let e = world.spawn((TagA, TagB)).id();
    assert!(!world.is_alive(e));
}

/// Flecs `Trigger_on_remove_tree`: deleting a root deletes its ten
/// descendants, each firing the `OnRemove` observer of its `Self` component
/// (which holds its own id) once.
#[test]
fn on_remove_tree() {
    #[derive(Component, Clone, Copy, Debug)]
    struct SelfId(Entity);
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, SelfId>, q: Query<&SelfId>, mut log: ResMut<Log>| {
        let own = q.get(t.entity()).unwrap().0;
        assert_eq!(own, t.entity());
        log.0.push(entry("remove", own));
    });
    let root = world.spawn_empty().id();
    let child = |world: &mut World, parent: Entity| world.spawn(ChildOf.pair(parent)).id();
    let e1 = child(&mut world, root);
    let e2 = child(&mut world, e1);
    let e3 = child(&mut world, e1);
    let e4 = child(&mut world, e2);
    let e5 = child(&mut world, e2);
    let e6 = child(&mut world, root);
    let e7 = child(&mut world, e6);
    let e8 = child(&mut world, e6);
    let e9 = child(&mut world, e7);
    let e10 = child(&mut world, e7);
    let all = [e1, e2, e3, e4, e5, e6, e7, e8, e9, e10];
    for e in all {
        world.insert(e, SelfId(e));
    }
    world.despawn(root);
    let mut log = take(&mut world);
    log.sort();
    let mut expected: Vec<String> = all.iter().map(|&e| entry("remove", e)).collect();
    expected.sort();
    assert_eq!(log, expected);
    for e in all {
        assert!(!world.is_alive(e));
    }
}

/// Flecs `Trigger_create_triggers_in_trigger`: an observer that creates ten
/// observers; it runs once, and each new observer fires afterwards. Adapted:
/// Flecs gives each new observer its own new tag entity; ours all watch
/// `TagB` (we have no observers of runtime ids), so one add fires all ten.
#[test]
fn create_triggers_in_trigger() {
    let mut world = log_world();
    world.add_observer(|_: Trigger<OnAdd, TagA>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push("create".into());
        for _ in 0..10 {
            commands.queue(|world: &mut World| {
                world.add_observer(|_: Trigger<OnAdd, TagB>, mut log: ResMut<Log>| log.0.push("nested".into()));
            });
        }
    });
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert_eq!(take(&mut world), vec!["create".to_string()]);
    let t = world.spawn_empty().id();
    world.entity_mut(t).insert(TagB);
    assert_eq!(take(&mut world), vec!["nested".to_string(); 10]);
}

/// Flecs `Trigger_entity_source_1_trigger`: an observer of `Position` on one
/// entity (`src = subj`) ignores another entity's set and fires for its own.
#[test]
fn entity_source_1_trigger() {
    let mut world = log_world();
    let subj = world.spawn_empty().id();
    let dummy = world.spawn_empty().id();
    world
        .entity_mut(subj)
        .observe(|t: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push(entry("set", t.entity())));
    world.insert(dummy, Position { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    world.insert(subj, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![entry("set", subj)]);
}

/// Flecs `Trigger_entity_source_2_triggers`: two observers on two entities,
/// each fires for its own entity only.
#[test]
fn entity_source_2_triggers() {
    let mut world = log_world();
    let subj1 = world.spawn_empty().id();
    let subj2 = world.spawn_empty().id();
    world
        .entity_mut(subj1)
        .observe(|t: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push(entry("one", t.entity())));
    world
        .entity_mut(subj2)
        .observe(|t: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push(entry("two", t.entity())));
    world.insert(subj1, Position::default());
    assert_eq!(take(&mut world), vec![entry("one", subj1)]);
    world.insert(subj2, Position::default());
    assert_eq!(take(&mut world), vec![entry("two", subj2)]);
}

// ===== TriggerOnAdd.c ===================================================================

/// Flecs `TriggerOnAdd_new_match_1_of_2`: a `Position` observer fires once for
/// an entity created with `Position, Velocity`.
#[test]
fn new_match_1_of_2() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn((Position::default(), Velocity::default())).id();
    assert_eq!(take(&mut world), vec![entry("add", e)]);
}

/// Flecs `TriggerOnAdd_new_no_match_1`: creating an entity without the
/// component fires nothing.
#[test]
fn new_no_match_1() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    world.spawn(Velocity::default());
    world.spawn_empty();
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_set_match_1_of_1` and `set_again_1`: the first set
/// adds (fires), setting again does not add.
#[test]
fn set_match_and_set_again() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn_empty().id();
    world.insert(e, Position { x: 1.0, y: 2.0 });
    assert_eq!(take(&mut world), vec![entry("add", e)]);
    world.insert(e, Position { x: 3.0, y: 4.0 });
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_add_again_2`: adding `Position, Velocity` to an entity
/// that has `Position` does not fire the `Position` observer again.
#[test]
fn add_again_2() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(entry("add", t.entity())));
    let e = world.spawn(Position::default()).id();
    assert_eq!(take(&mut world), vec![entry("add", e)]);
    world.entity_mut(e).insert((Position::default(), Velocity::default()));
    assert!(take(&mut world).is_empty());
}

/// Flecs `TriggerOnAdd_on_add_in_on_add`: `OnAdd Position` adds `Velocity`,
/// whose `OnAdd` observer adds `Mass`; all three are there for each entity.
#[test]
fn on_add_in_on_add() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Velocity::default());
    });
    world.add_observer(|t: Trigger<OnAdd, Velocity>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Mass(1.0));
    });
    let es: Vec<Entity> = (0..3).map(|_| world.spawn(Position::default()).id()).collect();
    for e in es {
        assert!(world.has::<Position>(e));
        assert!(world.has::<Velocity>(e));
        assert!(world.has::<Mass>(e));
    }
}

/// Flecs `TriggerOnAdd_on_remove_in_on_add`: `OnAdd Position` removes
/// `Velocity` from entities created with both; the `OnRemove Velocity`
/// observer runs.
#[test]
fn on_remove_in_on_add() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut commands: Commands| {
        commands.entity(t.entity()).remove::<Velocity>();
    });
    world.add_observer(|t: Trigger<OnRemove, Velocity>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let es: Vec<Entity> = (0..3).map(|_| world.spawn((Position::default(), Velocity::default())).id()).collect();
    for &e in &es {
        assert!(world.has::<Position>(e));
        assert!(!world.has::<Velocity>(e));
    }
    assert_eq!(take(&mut world), es.iter().map(|&e| entry("remove", e)).collect::<Vec<_>>());
}

/// Flecs `TriggerOnAdd_on_set_in_on_add`: `OnAdd Position` sets `Rotation`
/// (to 10 + the entity's id), whose `OnSet` (ours: `OnInsert`) observer adds
/// `Mass`.
#[test]
fn on_set_in_on_add() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut commands: Commands| {
        let e = t.entity();
        commands.entity(e).insert(Rotation(10 + u64::from(e.index())));
    });
    world.add_observer(|t: Trigger<OnInsert, Rotation>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Mass(1.0));
    });
    let es: Vec<Entity> = (0..3).map(|_| world.spawn(Position::default()).id()).collect();
    for e in es {
        assert!(world.has::<Position>(e));
        assert!(world.has::<Mass>(e));
        assert_eq!(world.get::<Rotation>(e), Some(&Rotation(10 + u64::from(e.index()))));
    }
}

/// Flecs C++ `Observer_trigger_on_set_in_on_add_implicit_registration`: an
/// `OnAdd Tag` observer sets `Position` (registering it), whose `OnSet`
/// observer sets `Velocity`; both values are there afterwards.
#[test]
fn cpp_trigger_on_set_in_on_add_implicit_registration() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnAdd, TagA>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Position { x: 10.0, y: 20.0 });
    });
    world.add_observer(|t: Trigger<OnInsert, Position>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Velocity { x: 1.0, y: 2.0 });
    });
    let e = world.spawn(TagA).id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 10.0, y: 20.0 }));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity { x: 1.0, y: 2.0 }));
}

/// Flecs `Observer_on_add_after_new_w_table`: creating an entity directly in
/// the `Position, Bar` archetype fires the `Position` observer once, with
/// both already there.
#[test]
fn on_add_after_new_w_table() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnAdd, Position>, q: Query<Has<Bar>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), q.get(t.entity()).unwrap()));
    });
    let e = world.spawn((Position::default(), Bar)).id();
    assert!(world.has::<Position>(e) && world.has::<Bar>(e));
    assert_eq!(take(&mut world), vec![format!("{e:?} true")]);
}

/// Flecs C++ `Observer_other_table`: in `OnAdd Velocity` the entity already
/// has `Velocity` and still has `Position`.
#[test]
fn cpp_other_table() {
    let mut world = log_world();
    world.add_observer(
        |t: Trigger<OnAdd, Velocity>, q: Query<(Has<Position>, Has<Velocity>)>, mut log: ResMut<Log>| {
            let (p, v) = q.get(t.entity()).unwrap();
            log.0.push(format!("{:?} {p} {v}", t.entity()));
        },
    );
    let e = world.spawn(Position::default()).id();
    world.entity_mut(e).insert(Velocity::default());
    assert_eq!(take(&mut world), vec![format!("{e:?} true true")]);
}

// ===== TriggerOnRemove.c ================================================================

/// Flecs `TriggerOnRemove_remove_watched`: an entity with a child (watched,
/// in Flecs' terms) loses `Position`; the observer reads the old value.
#[test]
fn remove_watched() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("{} {}", p.x, p.y));
    });
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    world.spawn(ChildOf.pair(e));
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec!["10 20".to_string()]);
}

/// Flecs `TriggerOnRemove_delete_watched`: the same through deleting the
/// parent (its child goes with it).
#[test]
fn delete_watched() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, q: Query<&Position>, mut log: ResMut<Log>| {
        let p = q.get(t.entity()).unwrap();
        log.0.push(format!("{} {}", p.x, p.y));
    });
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    let child = world.spawn(ChildOf.pair(e)).id();
    world.despawn(e);
    assert!(!world.is_alive(child));
    assert_eq!(take(&mut world), vec!["10 20".to_string()]);
}

/// Flecs `TriggerOnRemove_valid_entity_after_delete`: with an `OnRemove`
/// observer, deleting still drops the value once and the entity is dead.
#[test]
fn valid_entity_after_delete() {
    let drops = DropLog::new();
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, ecs_tests::DropTable>, mut log: ResMut<Log>| {
        log.0.push(entry("remove", t.entity()))
    });
    let e = world.spawn(drops.table(1)).id();
    world.despawn(e);
    assert!(!world.is_alive(e));
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
    drops.assert_dropped_once([1]);
}

/// Flecs `TriggerOnRemove_has_removed_tag_trigger_1_tag`: inside `OnRemove`
/// the entity still has the tag.
#[test]
fn has_removed_tag_trigger_1_tag() {
    let mut world = log_world();
    let e = world.spawn(TagA).id();
    world.add_observer(|t: Trigger<OnRemove, TagA>, q: Query<Has<TagA>>, mut log: ResMut<Log>| {
        log.0.push(format!("{:?} {}", t.entity(), q.get(t.entity()).unwrap()));
    });
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![format!("{e:?} true")]);
    assert!(!world.has::<TagA>(e));
}

/// Flecs `TriggerOnRemove_has_removed_tag_trigger_2_tags`: the same with
/// another tag on the entity.
#[test]
fn has_removed_tag_trigger_2_tags() {
    let mut world = log_world();
    let e = world.spawn(TagA).id();
    world.entity_mut(e).insert(TagB);
    world.add_observer(|t: Trigger<OnRemove, TagA>, q: Query<(Has<TagA>, Has<TagB>)>, mut log: ResMut<Log>| {
        let (a, b) = q.get(t.entity()).unwrap();
        log.0.push(format!("{:?} {a} {b}", t.entity()));
    });
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![format!("{e:?} true true")]);
    assert!(!world.has::<TagA>(e) && world.has::<TagB>(e));
}

// ===== TriggerOnSet.c / ObserverOnSet.c =================================================

/// Flecs `TriggerOnSet_set_again`: setting twice fires `OnSet` (ours:
/// `OnInsert`) twice.
#[test]
fn set_again() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, Position>, mut log: ResMut<Log>| log.0.push(entry("set", t.entity())));
    let e = world.spawn(Position { x: 10.0, y: 20.0 }).id();
    assert_eq!(take(&mut world), vec![entry("set", e)]);
    world.insert(e, Position { x: 30.0, y: 40.0 });
    assert_eq!(take(&mut world), vec![entry("set", e)]);
}

/// Flecs `TriggerOnSet_un_set_tag_w_remove`: an `OnRemove` observer of a tag
/// fires on remove, not on add.
#[test]
fn un_set_tag_w_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, TagA>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<TagA>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `ObserverOnSet_set_1_of_2`: an `OnSet` (ours: `OnInsert`) observer
/// of `Position, Velocity` fires when the second is set, then on every set
/// of either. Adapted: Flecs adds `Velocity` without a value first (no
/// `OnSet`); a data component always comes with a value here.
#[test]
fn set_1_of_2() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, (Position, Velocity)>, mut log: ResMut<Log>| {
        log.0.push(entry("set", t.entity()))
    });
    let e = world.spawn(Position::default()).id();
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert!(take(&mut world).is_empty());
    world.insert(e, Velocity { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![entry("set", e)]);
    world.insert(e, Position { x: 10.0, y: 20.0 });
    assert_eq!(take(&mut world), vec![entry("set", e)]);
}

/// Flecs `ObserverOnSet_set_1_of_3`: three components, the last one set fires.
#[test]
fn set_1_of_3() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnInsert, (Position, Velocity, Mass)>, mut log: ResMut<Log>| {
        log.0.push(entry("set", t.entity()))
    });
    let e = world.spawn(Position::default()).id();
    world.insert(e, Velocity::default());
    assert!(take(&mut world).is_empty());
    world.insert(e, Mass(1.0));
    assert_eq!(take(&mut world), vec![entry("set", e)]);
}

/// Flecs `ObserverOnSet_un_set_after_remove`: the `OnRemove` observer of a
/// component fires on remove only.
#[test]
fn un_set_after_remove() {
    let mut world = log_world();
    world.add_observer(|t: Trigger<OnRemove, Position>, mut log: ResMut<Log>| log.0.push(entry("remove", t.entity())));
    let e = world.spawn(Position::default()).id();
    assert!(take(&mut world).is_empty());
    world.entity_mut(e).remove::<Position>();
    assert_eq!(take(&mut world), vec![entry("remove", e)]);
}

/// Flecs `ObserverOnSet_add_to_current_in_on_set`: `OnSet Position` adds
/// `Velocity`; values are untouched.
#[test]
fn add_to_current_in_on_set() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnInsert, Position>, mut commands: Commands| {
        commands.entity(t.entity()).insert(Velocity::default());
    });
    let values = [(10.0, 20.0), (11.0, 21.0), (12.0, 22.0)];
    let es: Vec<Entity> = values.iter().map(|&(x, y)| world.spawn(Position { x, y }).id()).collect();
    for (e, (x, y)) in es.into_iter().zip(values) {
        assert!(world.has::<Velocity>(e));
        assert_eq!(world.get::<Position>(e), Some(&Position { x, y }));
    }
}

/// Flecs `ObserverOnSet_remove_set_component_in_on_set`: `OnSet Position`
/// removes `Position` itself; the entities keep `Velocity`.
#[test]
fn remove_set_component_in_on_set() {
    let mut world = World::new();
    world.add_observer(|t: Trigger<OnInsert, Position>, mut commands: Commands| {
        commands.entity(t.entity()).remove::<Position>();
    });
    let es: Vec<Entity> = (0..3).map(|_| world.spawn(Velocity::default()).id()).collect();
    for (i, &e) in es.iter().enumerate() {
        world.insert(e, Position { x: 10.0 + i as f32, y: 20.0 });
    }
    for e in es {
        assert!(!world.has::<Position>(e));
        assert!(world.has::<Velocity>(e));
    }
}

// ===== observers are entities ==========================================================

/// Flecs `Observer_add_after_delete_observer`, seen from the observer
/// entity: it is an (internal) entity, matched by a query naming
/// `ObserverMarker`, and gone once deleted.
#[test]
fn observer_is_an_entity_until_deleted() {
    let mut world = World::new();
    let o = world.add_observer(|_: Trigger<OnAdd, Position>| {}).id();
    assert!(world.is_alive(o));
    let mut q = world.query_filtered::<Entity, With<ObserverMarker>>();
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![o]);
    world.despawn(o);
    assert!(!world.is_alive(o));
    assert!(world.observers().is_empty());
    assert_eq!(q.iter(&world).count(), 0);
}

// ===== Review findings on the prefab rules ===============================================

/// An observer scoped to a prefab hears about that prefab's components (the
/// prefab rule is for observers of every entity).
#[test]
fn an_entity_observer_on_a_prefab_hears_its_components() {
    let mut world = log_world();
    let prefab = world.spawn(Prefab).id();
    world.entity_mut(prefab).observe(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| {
        log.0.push(entry("add", t.entity()));
    });
    world.entity_mut(prefab).insert(Position::default());
    assert_eq!(take(&mut world), vec![entry("add", prefab)]);
}

/// `RemovedComponents<T>` reports prefabs losing `T` too ("the entities that
/// lost a `T`"), though plain observers do not hear about prefabs.
#[test]
fn removed_components_reports_a_prefab_losing_its_component() {
    #[derive(Resource, Default)]
    struct Lost(usize);
    let mut world = World::new();
    world.init_resource::<Lost>();
    let id = world.register_system(|mut removed: RemovedComponents<Position>, mut lost: ResMut<Lost>| {
        lost.0 += removed.read().count();
    });
    world.run_system(id).unwrap();
    let prefab = world.spawn((Prefab, Position::default())).id();
    let plain = world.spawn(Position::default()).id();
    world.entity_mut(prefab).remove::<Position>();
    world.entity_mut(plain).remove::<Position>();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Lost>().0, 2);
}
