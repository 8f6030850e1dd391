//! More tests ported from Flecs' `test/core/src/Entity.c`: the `ecs_entity_init`
//! tests that map onto `spawn` (ids, adds, names, parents, `.set` values, hooks and
//! observers, deferred variants), `entity_w_parent*`, `toggle_component*`,
//! `commit_w_*`, and `init_w_core_name`; plus stale-handle checks that follow
//! `is_recycled_valid`, `get_alive_after_delete` and `ecs_clear` through every
//! entity-taking API (a stale handle must never reach the entity that recycled its
//! index).
//!
//! Mapping: `ecs_entity_init(world, &{0})` is `spawn_empty`; `.add = ids` and
//! `.set = values` are a bundle given to `spawn`; `.id = e` (an existing entity) is
//! `entity_mut(e).insert(..)`; `.name` is `Name::new`; `.parent` and
//! `ecs_set_scope` are `ChildOf.pair(parent)` in the bundle; `ecs_get_path` is
//! `World::path` (separator `::`); `ecs_get_type` is `World::ids_of`; Flecs `on_set`
//! hooks/observers are `on_insert`/`OnInsert`; `ecs_defer_begin/end` is a
//! `CommandQueue` applied with `apply`; `ecs_commit` with an added/removed type is
//! one `insert`/`remove` of a bundle; `ecs_enable_id` is `enable`/`disable` of a
//! `#[component(toggle)]` type; `ecs_clear` is `remove_id(e, *)`.
//!
//! NOT ported, and why:
//! - `init_id_path`, `init_id_path_w_scope`, `init_id_fullpath_w_scope*`,
//!   `init_id_path_w_sep`, `entity_init_w_empty_sep*`, `entity_init_existing_no_sep`:
//!   no entity creation from a path and no custom separators (`sep`/`root_sep`).
//! - `find_id_*`, `new_entity_twice`, `new_entity_scoped_twice`, `*name_twice*`,
//!   `entity_init_w_scope_twice`, `entity_init_w_childof_twice`: Flecs'
//!   get-or-create by name; here a sibling name clash is refused (API.md).
//! - `init_w_with*`: no `ecs_set_with`.
//! - `*symbol*`, `override_inherited_symbol`: no symbols.
//! - `entity_init_w_childof_and_scope*`, `set_scope_w_entity_init_from_stage`,
//!   `deferred_entity_init_w_childof_and_scope*`: no scope separate from `ChildOf`.
//! - `entity_init_w_set_1_comp_suspend_defer`: no defer suspend/resume.
//! - `insert_1_comp`, `insert_2_comp`, `insert_1_comp_1_tag`: `ecs_insert` is `spawn`
//!   of a bundle, the same code path as the `entity_init_w_set_*` tests here.
//! - `use_low_id_for_component`, `set_version_*`, `record_find*`, `*_staged`,
//!   `*_n_stages`, `make_alive_from_stage`: no low-id components, no
//!   `ecs_set_version`, no records or stages.
//! - `entity_w_short_notation`, `entity_w_*_double_dot`, `entity_w_large_id_name`,
//!   `entity_*digit*`, `set_name_w_*ptr`, `defer_set_name_w_overlapping_ptr`: `#id`
//!   name syntax and C pointer aliasing have no counterpart.
//! - Already ported elsewhere: `is_*valid*`, `get_alive*`, `make_alive_*`,
//!   `get_depth*`, `get_version_after_reuse`, `init_id_exceed_32_bits`
//!   (`ported_flecs_entity.rs`); `entity_w_parent_w_name`,
//!   `entity_init_w_childof_and_no_name`, `entity_init_w_empty_string_name`,
//!   `init_w_name_deferred`, `entity_w_digit_name` (`ported_flecs_names.rs`).
//!
//! Findings: `init_w_core_name_lookup_finds_the_user_entity` (fixed since) and
//! `init_w_component_name_round_trips` (left) — a root entity may be named like a
//! component (builtin `Prefab`, or a registered `Position`), but `lookup` of its
//! path returned the component, so `lookup(path(e)) != e`. Now a root named like a
//! built-in is found first (the built-ins live apart, as in `flecs.core`); one named
//! like a registered component is still shadowed by it: refusing the name would
//! break the ports that name entities like components (`ported_flecs_parser.rs`
//! `expr_w_symbol`, the `match_query_expr_from_scope` ports).
//!
//! Adapted: `toggle_component_before_add` — Flecs remembers a `disable` issued before
//! the component exists (the value is added disabled); here `disable` of an absent
//! component is documented as a no-op and new values start enabled.
//! `entity_init_w_set_1_comp_w_name_defer` — Flecs names a deferred entity at once;
//! here the name arrives with the queued spawn.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::SpawnError;
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::world::{NameError, PairError};

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

#[derive(Component)]
struct TagA;

#[derive(Component)]
struct TagB;

#[derive(Component, Debug, PartialEq)]
#[component(toggle)]
struct Foo;

#[derive(Relationship)]
struct Likes;

#[derive(Resource, Default)]
struct Counts {
    add: usize,
    set: usize,
    remove: usize,
    saw_b_inside: Vec<bool>,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(on_add = hooked_added, on_insert = hooked_inserted)]
struct Hooked {
    x: f32,
    y: f32,
}

fn hooked_added(mut world: DeferredWorld, _ctx: HookContext) {
    world.resource_mut::<Counts>().add += 1;
}

fn hooked_inserted(mut world: DeferredWorld, _ctx: HookContext) {
    world.resource_mut::<Counts>().set += 1;
}

const P: Position = Position { x: 10.0, y: 20.0 };
const V: Velocity = Velocity { x: 1.0, y: 2.0 };

fn name_of(world: &World, e: Entity) -> Option<&str> {
    world.get::<Name>(e).map(|n| n.as_str())
}

/// An entity `e` despawned, and a new entity (with `Position`) at its index.
fn recycled(world: &mut World) -> (Entity, Entity) {
    // Registering a component takes an entity index: do it before recycling.
    world.register_component::<Position>();
    world.register_component::<Velocity>();
    let stale = world.spawn(Velocity::default()).id();
    assert!(world.despawn(stale));
    let fresh = world.spawn(P).id();
    assert_eq!(fresh.index(), stale.index(), "the index is recycled");
    assert_ne!(fresh, stale);
    (stale, fresh)
}

fn defer(world: &mut World, f: impl FnOnce(&mut Commands) -> Entity) -> Entity {
    let mut queue = CommandQueue::default();
    let e = f(&mut Commands::new(&mut queue, world));
    queue.apply(world);
    e
}

// ===== Entity.c: ecs_entity_init ==========================================================

#[test]
// Flecs: Entity.c, Entity_init_id
fn init_id() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert!(world.is_alive(e));
    assert_eq!(world.ids_of(e), Some(&[][..]));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_init_id_add_1_comp
fn init_id_add_1_comp() {
    let mut world = World::new();
    let e = world.spawn(TagA).id();
    assert!(world.has::<TagA>(e));
    assert_eq!(world.ids_of(e).map(<[_]>::len), Some(1));
}

#[test]
// Flecs: Entity.c, Entity_init_id_add_2_comp
fn init_id_add_2_comp() {
    let mut world = World::new();
    let e = world.spawn((TagA, TagB)).id();
    assert!(world.has::<TagA>(e));
    assert!(world.has::<TagB>(e));
    assert_eq!(world.ids_of(e).map(<[_]>::len), Some(2));
}

#[test]
// Flecs: Entity.c, Entity_init_id_name
fn init_id_name() {
    let mut world = World::new();
    let e = world.spawn(Name::new("foo")).id();
    assert_eq!(name_of(&world, e), Some("foo"));
    assert_eq!(world.path(e).as_deref(), Some("foo"));
    assert_eq!(world.lookup("foo"), Some(e));
}

#[test]
// Flecs: Entity.c, Entity_init_id_name_1_comp
fn init_id_name_1_comp() {
    let mut world = World::new();
    let e = world.spawn((Name::new("foo"), TagA)).id();
    assert!(world.has::<TagA>(e));
    assert_eq!(name_of(&world, e), Some("foo"));
    assert_eq!(world.path(e).as_deref(), Some("foo"));
}

#[test]
// Flecs: Entity.c, Entity_init_id_name_2_comp
fn init_id_name_2_comp() {
    let mut world = World::new();
    let e = world.spawn((Name::new("foo"), TagA, TagB)).id();
    assert!(world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(name_of(&world, e), Some("foo"));
    assert_eq!(world.path(e).as_deref(), Some("foo"));
    assert_eq!(world.lookup("foo"), Some(e));
}

#[test]
// Flecs: Entity.c, Entity_init_id_w_scope
fn init_id_w_scope() {
    let mut world = World::new();
    let scope = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(scope)).id();
    assert!(world.has_pair::<ChildOf>(e, scope));
    assert_eq!(world.target::<ChildOf>(e), Some(scope));
    assert_eq!(world.children(scope).collect::<Vec<_>>(), vec![e]);
}

#[test]
// Flecs: Entity.c, Entity_init_id_name_w_scope
fn init_id_name_w_scope() {
    let mut world = World::new();
    let scope = world.spawn(Name::new("parent")).id();
    assert_eq!(name_of(&world, scope), Some("parent"));
    let e = world.spawn((Name::new("child"), ChildOf.pair(scope))).id();
    assert!(world.has_pair::<ChildOf>(e, scope));
    assert_eq!(name_of(&world, e), Some("child"));
    assert_eq!(world.path(e).as_deref(), Some("parent::child"));
    assert_eq!(world.lookup("parent::child"), Some(e));
    assert_eq!(world.lookup_child(scope, "child"), Some(e));
}

#[test]
// Flecs: Entity.c, Entity_init_id_name_2_comp_w_scope
fn init_id_name_2_comp_w_scope() {
    let mut world = World::new();
    let scope = world.spawn(Name::new("parent")).id();
    let e = world.spawn((Name::new("child"), ChildOf.pair(scope), TagA, TagB)).id();
    assert!(world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(name_of(&world, e), Some("child"));
    assert_eq!(world.path(e).as_deref(), Some("parent::child"));
}

#[test]
// Flecs: Entity.c, Entity_id_add_1_comp
fn id_add_1_comp() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let r = world.entity_mut(e).insert(TagA).id();
    assert_eq!(r, e);
    assert!(world.has::<TagA>(e));
}

#[test]
// Flecs: Entity.c, Entity_id_add_2_comp
fn id_add_2_comp() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let r = world.entity_mut(e).insert((TagA, TagB)).id();
    assert_eq!(r, e);
    assert!(world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_init_w_scope_name
fn init_w_scope_name() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("parent")).id();
    let foo = world.spawn((Name::new("foo"), ChildOf.pair(parent))).id();
    let child = world.spawn((Name::new("foo"), ChildOf.pair(foo))).id();
    assert_ne!(child, foo);
    assert_eq!(name_of(&world, child), Some("foo"));
    assert_eq!(world.path(child).as_deref(), Some("parent::foo::foo"));
    assert_eq!(world.lookup("parent::foo"), Some(foo));
    assert_eq!(world.lookup("parent::foo::foo"), Some(child));
}

#[test]
// Flecs: Entity.c, Entity_init_w_core_name
fn init_w_core_name() {
    let mut world = World::new();
    let e = world.spawn(Name::new("Prefab")).id();
    assert!(world.is_alive(e));
    assert_ne!(Some(e), world.component_id::<Prefab>());
    assert!(!world.has::<Prefab>(e));
    assert_eq!(name_of(&world, e), Some("Prefab"));
}

#[test]
// Flecs: Entity.c, Entity_init_w_core_name (extended with a lookup of the new entity)
fn init_w_core_name_lookup_finds_the_user_entity() {
    let mut world = World::new();
    let e = world.spawn(Name::new("Prefab")).id();
    assert_eq!(world.lookup("Prefab"), Some(e));
    assert_eq!(world.path(e).as_deref(), Some("Prefab"));
}

#[test]
#[ignore = "finding (left, by design: ports name entities like components to emulate scopes): spawn(Name::new(\"Position\")) with Position registered makes a second root whose path resolves to the component (lookup(path(e)) != e); Flecs returns the component entity"]
// Flecs: Entity.c, Entity_init_w_core_name / Entity_init_id_name (a user component's name)
fn init_w_component_name_round_trips() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let spawned = catch_unwind(AssertUnwindSafe(|| world.spawn(Name::new("Position")).id()));
    if let Ok(e) = spawned {
        let path = world.path(e).expect("a named root has a path");
        assert_eq!(world.lookup(&path), Some(e), "lookup(path(e)) must be e");
    }
    assert_eq!(world.lookup("Position"), Some(position));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_add_childof_no_name
fn entity_init_w_add_childof_no_name() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(name_of(&world, e), None);
    assert_eq!(world.path(e), None);
}

// ===== Entity.c: ecs_entity_init with .set ================================================

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp
fn entity_init_w_set_1_comp() {
    let mut world = World::new();
    let e = world.spawn(P).id();
    assert!(world.has::<Position>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_2_comp
fn entity_init_w_set_2_comp() {
    let mut world = World::new();
    let e = world.spawn((P, V)).id();
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(world.get::<Velocity>(e), Some(&V));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_1_tag
fn entity_init_w_set_1_comp_1_tag() {
    let mut world = World::new();
    let e = world.spawn((TagA, P)).id();
    assert!(world.has::<TagA>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_2_comp_2_tag
fn entity_init_w_set_2_comp_2_tag() {
    let mut world = World::new();
    let e = world.spawn((TagA, TagB, P, V)).id();
    assert!(world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(world.get::<Velocity>(e), Some(&V));
    assert_eq!(world.ids_of(e).map(<[_]>::len), Some(4));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_w_name
fn entity_init_w_set_1_comp_w_name() {
    let mut world = World::new();
    let e = world.spawn((Name::new("Foo"), P)).id();
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(world.lookup("Foo"), Some(e));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_existing
fn entity_init_w_set_1_comp_existing() {
    let mut world = World::new();
    let e1 = world.spawn(P).id();
    let e2 = world.entity_mut(e1).insert(V).id();
    assert_eq!(e1, e2);
    assert_eq!(world.get::<Position>(e1), Some(&P));
    assert_eq!(world.get::<Velocity>(e1), Some(&V));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_existing_empty
fn entity_init_w_set_1_comp_existing_empty() {
    let mut world = World::new();
    let e1 = world.spawn_empty().id();
    assert!(world.insert(e1, V));
    assert_eq!(world.get::<Velocity>(e1), Some(&V));
    assert!(!world.has::<Position>(e1));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_w_hook
fn entity_init_w_set_w_hook() {
    let mut world = World::new();
    world.insert_resource(Counts::default());
    let e = world.spawn(Hooked { x: 10.0, y: 20.0 }).id();
    assert!(world.has::<Hooked>(e));
    assert_eq!(world.resource::<Counts>().add, 1);
    assert_eq!(world.resource::<Counts>().set, 1);
    assert_eq!(world.get::<Hooked>(e), Some(&Hooked { x: 10.0, y: 20.0 }));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_w_observer
fn entity_init_w_set_w_observer() {
    let mut world = World::new();
    world.insert_resource(Counts::default());
    world.add_observer(|_: Trigger<OnAdd, Position>, mut c: ResMut<Counts>| c.add += 1);
    world.add_observer(|_: Trigger<OnInsert, Position>, mut c: ResMut<Counts>| c.set += 1);
    let e = world.spawn(P).id();
    assert_eq!(world.resource::<Counts>().add, 1);
    assert_eq!(world.resource::<Counts>().set, 1);
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_1_tag_w_set
fn entity_init_w_set_1_comp_1_tag_w_set() {
    let mut world = World::new();
    let e = world.spawn((P, TagA)).id();
    assert!(world.has::<TagA>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_defer
fn entity_init_w_set_1_comp_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn(P).id();
    assert!(!world.has::<Position>(e));
    queue.apply(&mut world);
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_2_comp_defer
fn entity_init_w_set_2_comp_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn((P, V)).id();
    assert!(!world.has::<Position>(e) && !world.has::<Velocity>(e));
    queue.apply(&mut world);
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(world.get::<Velocity>(e), Some(&V));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_1_tag_defer
fn entity_init_w_set_1_comp_1_tag_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn((TagA, P)).id();
    assert!(!world.has::<Position>(e) && !world.has::<TagA>(e));
    queue.apply(&mut world);
    assert!(world.has::<TagA>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_2_comp_2_tag_defer
fn entity_init_w_set_2_comp_2_tag_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn((TagA, TagB, P, V)).id();
    assert!(!world.has::<TagA>(e) && !world.has::<TagB>(e));
    assert!(!world.has::<Position>(e) && !world.has::<Velocity>(e));
    queue.apply(&mut world);
    assert!(world.has::<TagA>(e) && world.has::<TagB>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(world.get::<Velocity>(e), Some(&V));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_w_name_defer (adapted: the name
// arrives with the queued spawn)
fn entity_init_w_set_1_comp_w_name_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let e = Commands::new(&mut queue, &world).spawn((Name::new("Foo"), P)).id();
    assert!(!world.has::<Position>(e));
    assert_eq!(world.lookup("Foo"), None);
    queue.apply(&mut world);
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.lookup("Foo"), Some(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_existing_defer
fn entity_init_w_set_1_comp_existing_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let e1 = commands.spawn(P).id();
    let e2 = commands.entity(e1).insert(V).id();
    assert_eq!(e1, e2);
    assert!(!world.has::<Position>(e1) && !world.has::<Velocity>(e1));
    queue.apply(&mut world);
    assert_eq!(world.get::<Position>(e1), Some(&P));
    assert_eq!(world.get::<Velocity>(e1), Some(&V));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_existing_empty_defer
fn entity_init_w_set_1_comp_existing_empty_defer() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let e1 = commands.spawn_empty().id();
    let e2 = commands.entity(e1).insert(V).id();
    assert_eq!(e1, e2);
    assert!(!world.has::<Velocity>(e1));
    queue.apply(&mut world);
    assert_eq!(world.get::<Velocity>(e1), Some(&V));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_entity_init_w_set_1_comp_1_tag_w_set_defer
fn entity_init_w_set_1_comp_1_tag_w_set_defer() {
    let mut world = World::new();
    let e = defer(&mut world, |c| c.spawn((P, TagA)).id());
    assert!(world.has::<TagA>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

// ===== Entity.c: entity_w_parent* =========================================================

#[test]
// Flecs: Entity.c, Entity_entity_w_parent
fn entity_w_parent() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn(ChildOf.pair(parent)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.ancestors(e).collect::<Vec<_>>(), vec![parent]);
}

#[test]
// Flecs: Entity.c, Entity_entity_w_parent_w_add
fn entity_w_parent_w_add() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn((ChildOf.pair(parent), TagA)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert!(world.has::<TagA>(e));
}

#[test]
// Flecs: Entity.c, Entity_entity_w_parent_w_add_w_parent
fn entity_w_parent_w_add_w_parent() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn((ChildOf.pair(parent), Name::new("Foo"), TagA)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert!(world.has::<TagA>(e));
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.lookup_child(parent, "Foo"), Some(e));
}

#[test]
// Flecs: Entity.c, Entity_entity_w_parent_w_set
fn entity_w_parent_w_set() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn((ChildOf.pair(parent), P)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(world.get::<Position>(e), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_entity_w_parent_w_set_w_parent
fn entity_w_parent_w_set_w_parent() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = world.spawn((ChildOf.pair(parent), Name::new("Foo"), P, TagA)).id();
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert!(world.has::<TagA>(e));
    assert_eq!(world.get::<Position>(e), Some(&P));
    assert_eq!(name_of(&world, e), Some("Foo"));
}

// ===== Entity.c: toggles ==================================================================

#[test]
// Flecs: Entity.c, Entity_toggle_component
fn toggle_component() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(Foo);
    assert!(world.has::<Foo>(e));
    assert!(world.is_enabled::<Foo>(e));
    world.entity_mut(e).disable::<Foo>();
    assert!(world.has::<Foo>(e), "a disabled value is still stored");
    assert_eq!(world.get::<Foo>(e), Some(&Foo));
    assert!(!world.is_enabled::<Foo>(e));
    world.entity_mut(e).enable::<Foo>();
    assert!(world.has::<Foo>(e));
    assert!(world.is_enabled::<Foo>(e));
}

#[test]
// Flecs: Entity.c, Entity_toggle_component_before_add (adapted, see the header)
fn toggle_component_before_add() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert!(!world.has::<Foo>(e));
    assert!(!world.is_enabled::<Foo>(e));
    world.entity_mut(e).disable::<Foo>();
    assert!(!world.has::<Foo>(e), "disable adds nothing");
    assert!(!world.is_enabled::<Foo>(e));
    world.entity_mut(e).insert(Foo);
    assert!(world.has::<Foo>(e));
    assert!(world.is_enabled::<Foo>(e), "new values start enabled (documented)");
    world.entity_mut(e).disable::<Foo>();
    assert!(!world.is_enabled::<Foo>(e));
    world.entity_mut(e).enable::<Foo>();
    assert!(world.is_enabled::<Foo>(e));
}

// ===== Entity.c: commit ===================================================================

#[test]
// Flecs: Entity.c, Entity_commit_w_on_add
fn commit_w_on_add() {
    let mut world = World::new();
    world.insert_resource(Counts::default());
    world.add_observer(|_: Trigger<OnAdd, TagA>, mut c: ResMut<Counts>| c.add += 1);
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(world.has::<TagA>(e));
    assert_eq!(world.resource::<Counts>().add, 1);
}

#[test]
// Flecs: Entity.c, Entity_commit_w_on_remove
fn commit_w_on_remove() {
    let mut world = World::new();
    world.insert_resource(Counts::default());
    world.add_observer(|_: Trigger<OnRemove, TagA>, mut c: ResMut<Counts>| c.remove += 1);
    let e = world.spawn(TagA).id();
    world.entity_mut(e).insert(TagB);
    world.entity_mut(e).remove::<TagA>();
    assert!(!world.has::<TagA>(e));
    assert!(world.has::<TagB>(e));
    assert_eq!(world.resource::<Counts>().remove, 1);
}

#[test]
// Flecs: Entity.c, Entity_commit_w_cmd_in_observer
fn commit_w_cmd_in_observer() {
    let mut world = World::new();
    world.insert_resource(Counts::default());
    world.add_observer(
        |t: Trigger<OnAdd, TagA>, mut commands: Commands, q: Query<Has<TagB>>, mut c: ResMut<Counts>| {
            c.add += 1;
            commands.entity(t.entity()).insert(TagB);
            let has_b = q.get(t.entity()).unwrap();
            c.saw_b_inside.push(has_b);
        },
    );
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(TagA);
    assert!(world.has::<TagA>(e));
    assert!(world.has::<TagB>(e), "the observer's command applied after the operation");
    assert_eq!(world.resource::<Counts>().add, 1);
    assert_eq!(world.resource::<Counts>().saw_b_inside, vec![false], "deferred inside the observer");
}

// ===== Stale handles after recycling (is_recycled_valid, get_alive_after_delete) ==========

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (every read through the stale handle)
fn stale_handle_reads_nothing_of_the_recycled_entity() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert!(!world.is_alive(stale));
    assert!(world.is_alive(fresh));
    assert_eq!(world.get::<Position>(stale), None);
    assert!(world.get_mut::<Position>(stale).is_none());
    assert!(!world.has::<Position>(stale));
    assert!(world.get_entity(stale).is_none());
    assert!(world.get_entity_mut(stale).is_none());
    assert_eq!(world.get::<Position>(fresh), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_get_type of a stale id)
fn stale_handle_has_no_type() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert_eq!(world.ids_of(stale), None);
    assert_eq!(world.ids_of(fresh).map(<[_]>::len), Some(1));
    let pos = world.component_id::<Position>().unwrap();
    assert!(!world.has_id(stale, pos.id()));
    assert!(world.has_id(fresh, pos.id()));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (writes through the stale handle)
fn stale_insert_is_refused_and_misses_the_new_entity() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert!(!world.insert(stale, V));
    assert!(!world.has::<Velocity>(fresh));
    assert_eq!(world.ids_of(fresh).map(<[_]>::len), Some(1));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid
fn stale_remove_returns_none_and_keeps_the_new_entitys_value() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert_eq!(world.remove::<Position>(stale), None);
    assert_eq!(world.get::<Position>(fresh), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_delete of a stale id)
fn stale_despawn_returns_false_and_the_new_entity_lives() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert!(!world.despawn(stale));
    assert!(world.is_alive(fresh));
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.get::<Position>(fresh), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_add_id / ecs_remove_id)
fn stale_add_id_and_remove_id_are_refused() {
    let mut world = World::new();
    let tag = world.spawn_empty().id();
    let (stale, fresh) = recycled(&mut world);
    assert!(!world.add_id(stale, tag.id()));
    assert!(!world.has_id(fresh, tag.id()));
    let pos = world.component_id::<Position>().unwrap();
    assert!(!world.remove_id(stale, pos.id()));
    assert!(world.has::<Position>(fresh));
    assert!(!world.remove_id(stale, Entity::WILDCARD.id()), "ecs_clear of a stale id");
    assert_eq!(world.get::<Position>(fresh), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (a stale pair target)
fn stale_pair_target_is_refused() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let (stale, fresh) = recycled(&mut world);
    assert_eq!(world.try_add_pair::<Likes>(a, stale), Err(PairError::NotAlive(stale)));
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    assert!(!world.has_pair::<Likes>(a, fresh));
    assert_eq!(world.try_add_pair::<Likes>(stale, a), Err(PairError::NotAlive(stale)));
    assert_eq!(world.targets::<Likes>(fresh).count(), 0);
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ChildOf a stale parent in a spawn bundle)
fn stale_parent_in_a_spawn_bundle_never_adopts_into_the_new_entity() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    let before = world.entity_count();
    let spawned = catch_unwind(AssertUnwindSafe(|| world.spawn(ChildOf.pair(stale)).id()));
    if let Ok(child) = spawned
        && world.is_alive(child)
    {
        assert_ne!(world.target::<ChildOf>(child), Some(fresh));
    }
    assert_eq!(world.children(fresh).count(), 0, "the new entity got a child through a stale handle");
    assert!(world.entity_count() <= before + 1);
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (targets after the target was recycled)
fn targets_do_not_follow_a_recycled_target() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    world.add_pair::<Likes>(a, b);
    world.despawn(b);
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), b.index());
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    assert!(!world.has_pair::<Likes>(a, fresh));
    assert_eq!(world.ids_of(a), Some(&[][..]));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_set_name / ecs_get_path of a stale id)
fn stale_set_name_is_refused_and_path_is_none() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    world.set_name(fresh, "fresh").unwrap();
    assert_eq!(world.set_name(stale, "stale"), Err(NameError::NotAlive(stale)));
    assert_eq!(world.path(stale), None);
    assert_eq!(name_of(&world, stale), None);
    assert_eq!(name_of(&world, fresh), Some("fresh"));
    assert_eq!(world.lookup("stale"), None);
}

#[test]
// Flecs: Entity.c, Entity_get_alive_after_delete (a name does not outlive its entity)
fn lookup_does_not_find_a_recycled_index() {
    let mut world = World::new();
    let named = world.spawn(Name::new("foo")).id();
    world.despawn(named);
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), named.index());
    assert_eq!(world.lookup("foo"), None);
    assert_eq!(world.path(fresh), None);
    let again = world.spawn(Name::new("foo")).id();
    assert_eq!(world.lookup("foo"), Some(again));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_is_enabled_id of a stale id)
fn stale_is_enabled_is_false() {
    let mut world = World::new();
    let stale = world.spawn(Foo).id();
    world.despawn(stale);
    let fresh = world.spawn(Foo).id();
    assert_eq!(fresh.index(), stale.index());
    assert!(world.is_enabled::<Foo>(fresh));
    assert!(!world.is_enabled::<Foo>(stale));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (a query's get of a stale id)
fn stale_query_get_is_an_error() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    let mut q = world.query::<&Position>();
    assert!(q.get(&world, stale).is_err());
    assert_eq!(q.get(&world, fresh).ok(), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_get_alive_after_delete (ecs_get_alive of a recycled index)
fn entity_at_gives_the_new_generation() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert_eq!(world.entity_at(stale.index()), Some(fresh));
    world.despawn(fresh);
    assert_eq!(world.entity_at(stale.index()), None);
}

#[test]
// Flecs: Entity.c, Entity_make_alive_zero_gen_exists_alive (spawn_at of a stale id)
fn spawn_at_of_a_stale_id_is_refused_while_recycled() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert!(matches!(world.spawn_at(stale), Err(SpawnError::Alive { existing, .. }) if existing == fresh));
    assert_eq!(world.get::<Position>(fresh), Some(&P));
    assert!(!world.is_alive(stale));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (deferred edits through a stale handle)
fn stale_commands_skip_the_new_entity() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(stale).try_insert(V);
    commands.entity(stale).remove::<Position>();
    commands.entity(stale).despawn();
    queue.apply(&mut world);
    assert!(world.is_alive(fresh));
    assert!(!world.has::<Velocity>(fresh));
    assert_eq!(world.get::<Position>(fresh), Some(&P));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (a queued pair with a target recycled
// before the queue applies)
fn queued_pair_with_a_target_recycled_before_apply_is_not_added() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(a).add_pair::<Likes>(b);
    world.despawn(b);
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), b.index());
    queue.apply(&mut world);
    assert!(world.is_alive(a), "Likes' on_delete_target is remove");
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    assert!(!world.has_pair::<Likes>(a, fresh));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (a queued child of a parent recycled
// before the queue applies)
fn queued_child_of_a_recycled_parent_is_not_adopted() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    let child = Commands::new(&mut queue, &world).spawn((ChildOf.pair(parent), TagA)).id();
    world.despawn(parent);
    let fresh = world.spawn_empty().id();
    assert_eq!(fresh.index(), parent.index());
    queue.apply(&mut world);
    assert_eq!(world.children(fresh).count(), 0);
    assert!(!world.is_alive(child), "ChildOf's on_delete_target is delete");
}

// ===== Delete of an entity with children, and ecs_clear ===================================

#[test]
// Flecs: Entity.c, Entity_get_alive_after_delete (children of a deleted parent)
fn despawned_parent_takes_children_and_recycled_indices_start_empty() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("parent")).id();
    let c1 = world.spawn((ChildOf.pair(parent), Name::new("c1"), P)).id();
    let c2 = world.spawn((ChildOf.pair(parent), Name::new("c2"))).id();
    let gc = world.spawn(ChildOf.pair(c1)).id();
    assert!(world.despawn(parent));
    for e in [parent, c1, c2, gc] {
        assert!(!world.is_alive(e), "{e:?} should be dead");
        assert_eq!(world.ids_of(e), None);
    }
    assert_eq!(world.entity_count(), 0);
    let fresh: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    for &e in &fresh {
        assert_eq!(world.children(e).count(), 0);
        assert_eq!(world.ids_of(e), Some(&[][..]));
        assert_eq!(world.target::<ChildOf>(e), None);
    }
    assert_eq!(world.lookup("parent"), None);
    assert_eq!(world.lookup("parent::c1"), None);
}

#[test]
// Flecs: ecs_clear (Entity.c's stale-handle checks applied to a cleared parent)
fn clear_keeps_the_entity_and_its_children() {
    let mut world = World::new();
    let parent = world.spawn((Name::new("parent"), P, TagA)).id();
    let child = world.spawn((ChildOf.pair(parent), Name::new("child"))).id();
    assert!(world.remove_id(parent, Entity::WILDCARD.id()));
    assert!(world.is_alive(parent));
    assert_eq!(world.ids_of(parent), Some(&[][..]));
    assert!(!world.has::<Position>(parent) && !world.has::<TagA>(parent));
    assert_eq!(name_of(&world, parent), None);
    assert!(world.is_alive(child));
    assert_eq!(world.target::<ChildOf>(child), Some(parent));
    assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![child]);
    assert_eq!(world.path(child), None, "the parent lost its name");
    assert!(world.despawn(parent));
    assert!(!world.is_alive(child));
}

#[test]
// Flecs: ecs_clear, then recycle: a cleared entity's handle stays its own
fn clear_then_despawn_then_recycle() {
    let mut world = World::new();
    let e = world.spawn((P, V)).id();
    world.remove_id(e, Entity::WILDCARD.id());
    assert!(world.is_alive(e));
    world.despawn(e);
    let fresh = world.spawn(V).id();
    assert_eq!(fresh.index(), e.index());
    assert!(!world.is_alive(e));
    assert_eq!(world.get::<Velocity>(e), None);
    assert_eq!(world.get::<Velocity>(fresh), Some(&V));
    assert!(fresh.generation() > e.generation());
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid across many generations
fn every_old_generation_stays_dead_through_many_recycles() {
    let mut world = World::new();
    world.register_component::<Velocity>();
    let mut olds = Vec::new();
    let mut e = world.spawn(P).id();
    for _ in 0..20 {
        olds.push(e);
        world.despawn(e);
        e = world.spawn(V).id();
        assert_eq!(e.index(), olds[0].index());
    }
    for &old in &olds {
        assert!(!world.is_alive(old));
        assert!(!world.insert(old, P));
        assert!(!world.despawn(old));
    }
    assert!(world.is_alive(e));
    assert_eq!(world.get::<Velocity>(e), Some(&V));
    assert!(!world.has::<Position>(e));
    assert_eq!(world.entity_count(), 1);
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (ecs_delete through a fallible call)
fn stale_try_despawn_is_ok_false() {
    let mut world = World::new();
    let (stale, fresh) = recycled(&mut world);
    assert!(matches!(world.try_despawn(stale), Ok(false)));
    assert!(world.is_alive(fresh));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (relationship reads of a stale source)
fn stale_source_has_no_pairs_of_the_new_entity() {
    let mut world = World::new();
    world.register_component::<Position>();
    let x = world.spawn_empty().id();
    let parent = world.spawn_empty().id();
    let stale = world.spawn_empty().id();
    world.despawn(stale);
    let fresh = world.spawn(ChildOf.pair(parent)).id();
    world.add_pair::<Likes>(fresh, x);
    assert_eq!(fresh.index(), stale.index());
    assert_eq!(world.target::<ChildOf>(stale), None);
    assert_eq!(world.ancestors(stale).count(), 0);
    assert_eq!(world.targets::<Likes>(stale).count(), 0);
    assert!(!world.has_pair::<Likes>(stale, x));
    assert_eq!(world.target::<ChildOf>(fresh), Some(parent));
    assert!(world.has_pair::<Likes>(fresh, x));
}

#[test]
// Flecs: Entity.c, Entity_is_recycled_valid (a deferred pair on a stale source)
fn stale_commands_add_pair_skips_the_new_entity() {
    let mut world = World::new();
    let x = world.spawn_empty().id();
    let (stale, fresh) = recycled(&mut world);
    defer(&mut world, |c| c.entity(stale).add_pair::<Likes>(x).id());
    assert_eq!(world.targets::<Likes>(fresh).count(), 0);
    assert_eq!(world.ids_of(fresh).map(<[_]>::len), Some(1));
}

#[test]
// Flecs: ecs_delete of every entity (clear_entities), then recycle
fn handles_from_before_clear_entities_stay_dead() {
    let mut world = World::new();
    world.register_component::<Position>();
    let olds: Vec<Entity> = (0..5).map(|i| world.spawn(Position { x: i as f32, y: 0.0 }).id()).collect();
    world.clear_entities();
    let news: Vec<Entity> = (0..5).map(|_| world.spawn(V).id()).collect();
    for &old in &olds {
        assert!(!world.is_alive(old));
        assert_eq!(world.get::<Velocity>(old), None);
        assert!(!news.contains(&old));
    }
    let mut q = world.query::<&Position>();
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(world.entity_count(), 5);
}
