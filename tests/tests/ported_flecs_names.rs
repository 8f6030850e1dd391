//! Tests ported from Flecs' name and path tests: `test/core/src/Lookup.c`, and the
//! name parts of `Entity.c` and `Hierarchies.c` not already in
//! `ported_flecs_hierarchies.rs`, rewritten against API.md's `Name`, `World::lookup`,
//! `World::lookup_child`, `World::path` and `World::set_name`.
//!
//! Translation: Flecs' `.` path separator is `::` here; `ecs_entity(world, { .name })`
//! and `ecs_set_name(world, 0, ..)` become `spawn(Name::new(..))`; `ecs_set_name(e, ..)`
//! becomes `World::set_name`; `ecs_set_name(e, NULL)` removes `Name`; `ecs_get_name`
//! reads `Name`; `ecs_lookup_from(parent, "a.b")` becomes a chain of `lookup_child`;
//! deferred Flecs calls become `Commands` in `run_system_once`.
//!
//! Found and fixed: `path_escaped_sep` (a name containing `::` yielded a
//! `path()` that `lookup()` resolved to another entity; Flecs escapes separators in
//! names, and `path` now escapes colons as `\:`), `init_w_childof_name_twice_deferred`
//! (a name clash refused while applying commands left the refused, spawned entity
//! alive; an immediate `World::spawn` clash despawns it, and now so does
//! `Commands::spawn`).
//!
//! Deliberate differences (documented; the Flecs assertions are adapted or dropped):
//! * `lookup("Child")` of an entity that has a parent: Flecs finds nothing (a bare
//!   name is a root's); `World::lookup` falls back to "the oldest entity with that
//!   name anywhere" (its doc comment). Affects `lookup_number_path`,
//!   `lookup_after_clear_from_parent`, `lookup_after_delete_from_parent`.
//! * Sibling names are unique here (API.md: a clash is refused, never two siblings
//!   with one name); Flecs 4 lets the newest entity take the name. Dropped:
//!   `set_duplicate_name`, `set_duplicate_name_in_scope`, `_three_entities`,
//!   `_then_delete_owner`, `_then_rename_owner`, `_then_rename_displaced`,
//!   `_then_delete_displaced`, `_via_explicit_id`, `_then_reparent_owner`,
//!   `_resets_to_self`; `Entity_set_name_w_0_twice`,
//!   `Entity_init_w_childof_name_twice_deferred`,
//!   `Entity_entity_init_w_childof_nested_name_twice` (Flecs' get-or-create by name).
//! * `path(e)` is `None` unless e and every ancestor are named (API.md); Flecs prints
//!   `#id` for unnamed ones. Dropped: `lookup_path_anonymous_parent`,
//!   `Hierarchies_path_w_entity_id`, `Hierarchies_recreated_parent_w_named_children`.
//!
//! Not ported (no such API): `#id` lookups (`lookup_by_id`, `lookup_path_*_id*`,
//! `lookup_recycled_by_id`, `lookup_number` by id, `lookup_*_invalid_digit` by id,
//! `Hierarchies_lookup_entity_id`), symbols and aliases (`lookup_symbol_*`,
//! `lookup_alias*`, `define_duplicate_alias`, `resolve_builtin_symbols`), builtin
//! names (`lookup_this`, `lookup_wildcard`, `lookup_any`, `lookup_variable`,
//! `lookup_path_this*`, `lookup_path_wildcard*`, `lookup_core*`, `path_core*`,
//! `fullpath_for_core`), scopes and search paths (`lookup_*_scope*`,
//! `lookup_custom_search_path*`, `scope_*`, `lookup_from_scope_staged`), custom
//! separators and prefixes (`path_custom_*`, `lookup_custom_*`, `path_prefix_*`),
//! relative paths (`rel_path_*`), escaped separators other than `path_escaped_sep`,
//! entity creation from a path (`Entity_init_id_path*`, `new_from_path_*`,
//! `add_path_*`), stages, and `ecs_entity_init`'s id/name mismatch checks
//! (`find_id_*`).

use ecs::prelude::*;
use ecs_tests::panic_message;

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Position {
    x: f32,
    y: f32,
}

// ----- helpers ---------------------------------------------------------------------------

fn named(world: &mut World, name: &str) -> Entity {
    world.spawn(Name::new(name.to_owned())).id()
}

fn named_child(world: &mut World, name: &str, parent: Entity) -> Entity {
    world.spawn((Name::new(name.to_owned()), ChildOf.pair(parent))).id()
}

fn name_of(world: &World, e: Entity) -> Option<&str> {
    world.get::<Name>(e).map(|n| n.as_str())
}

const NAME_63: &str = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij";
const NAME_64: &str = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk";
const NAME_65: &str = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl";

// ===== Lookup.c ================================================================================

/// Lookup.c: Lookup_lookup
#[test]
fn lookup() {
    let mut world = World::new();
    let e = named(&mut world, "MyEntity");
    assert_eq!(world.lookup("MyEntity"), Some(e));
}

/// Lookup.c: Lookup_lookup_after_name_reset
#[test]
fn lookup_after_name_reset() {
    let mut world = World::new();
    let e = named(&mut world, "foo");
    assert_eq!(world.lookup("foo"), Some(e));
    world.remove::<Name>(e);
    assert_eq!(world.lookup("foo"), None);
    world.set_name(e, "foo").unwrap();
    assert_eq!(world.lookup("foo"), Some(e));
    world.check_invariants();
}

/// Lookup.c: Lookup_lookup_component
#[test]
fn lookup_component() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    assert_eq!(world.lookup("Position"), Some(position));
}

/// Lookup.c: Lookup_lookup_not_found
#[test]
fn lookup_not_found() {
    let world = World::new();
    assert_eq!(world.lookup("foo"), None);
}

/// Lookup.c: Lookup_lookup_child
#[test]
fn lookup_child() {
    let mut world = World::new();
    let parent1 = named(&mut world, "Parent1");
    let parent2 = named(&mut world, "Parent2");
    let e1 = world.spawn(ChildOf.pair(parent1)).id();
    world.set_name(e1, "Child").unwrap();
    let e2 = world.spawn(ChildOf.pair(parent2)).id();
    world.set_name(e2, "Child").unwrap();
    // Re-adding the same parent changes nothing.
    world.entity_mut(e1).add_pair::<ChildOf>(parent1);
    world.entity_mut(e2).add_pair::<ChildOf>(parent2);
    assert_eq!(world.lookup_child(parent1, "Child"), Some(e1));
    assert_eq!(world.lookup_child(parent2, "Child"), Some(e2));
    assert_eq!(world.lookup("Parent1::Child"), Some(e1));
    assert_eq!(world.lookup("Parent2::Child"), Some(e2));
    world.check_invariants();
}

/// Lookup.c: Lookup_get_name
#[test]
fn get_name() {
    let mut world = World::new();
    let e = named(&mut world, "Entity");
    assert_eq!(name_of(&world, e), Some("Entity"));
}

/// Lookup.c: Lookup_get_name_no_name
#[test]
fn get_name_no_name() {
    let mut world = World::new();
    let e = world.spawn(Position::default()).id();
    assert_eq!(name_of(&world, e), None);
    assert_eq!(world.path(e), None);
}

/// Lookup.c: Lookup_get_name_from_empty
#[test]
fn get_name_from_empty() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert_eq!(name_of(&world, e), None);
    assert_eq!(world.path(e), None);
}

/// Lookup.c: Lookup_lookup_name_w_digit
#[test]
fn lookup_name_w_digit() {
    let mut world = World::new();
    let e = named(&mut world, "10_id");
    assert_eq!(world.lookup("10_id"), Some(e));
}

/// Lookup.c: Lookup_lookup_path_w_digit
#[test]
fn lookup_path_w_digit() {
    let mut world = World::new();
    let parent = named(&mut world, "parent");
    let e1 = named(&mut world, "10_id");
    world.entity_mut(e1).add_pair::<ChildOf>(parent);
    assert_eq!(world.lookup("parent::10_id"), Some(e1));
    assert_eq!(world.path(e1).as_deref(), Some("parent::10_id"));
}

/// Lookup.c: Lookup_lookup_name_w_spaces
#[test]
fn lookup_name_w_spaces() {
    let mut world = World::new();
    let e1 = named(&mut world, "hello world");
    let e2 = named(&mut world, "hello mars");
    assert_ne!(e1, e2);
    assert_eq!(name_of(&world, e1), Some("hello world"));
    assert_eq!(name_of(&world, e2), Some("hello mars"));
    assert_eq!(world.lookup("hello world"), Some(e1));
    assert_eq!(world.lookup("hello mars"), Some(e2));
}

/// Lookup.c: Lookup_lookup_path_w_spaces
#[test]
fn lookup_path_w_spaces() {
    let mut world = World::new();
    let e1 = named(&mut world, "hello world");
    let e2 = named(&mut world, "hello mars");
    world.entity_mut(e2).add_pair::<ChildOf>(e1);
    assert_eq!(name_of(&world, e1), Some("hello world"));
    assert_eq!(name_of(&world, e2), Some("hello mars"));
    assert_eq!(world.lookup("hello world::hello mars"), Some(e2));
    assert_eq!(world.path(e2).as_deref(), Some("hello world::hello mars"));
}

/// Lookup.c: Lookup_lookup_number
#[test]
fn lookup_number() {
    let mut world = World::new();
    let e = named(&mut world, "10");
    assert_eq!(name_of(&world, e), Some("10"));
    assert_eq!(world.lookup("10"), Some(e));
}

/// Lookup.c: Lookup_lookup_number_path
#[test]
fn lookup_number_path() {
    let mut world = World::new();
    let p = named(&mut world, "10");
    let e = named(&mut world, "20");
    world.entity_mut(e).add_pair::<ChildOf>(p);
    assert_eq!(name_of(&world, p), Some("10"));
    assert_eq!(name_of(&world, e), Some("20"));
    // Flecs: lookup("20") finds nothing; ours falls back to any entity named "20".
    assert_eq!(world.lookup("20"), Some(e));
    assert_eq!(world.lookup("10"), Some(p));
    assert_eq!(world.lookup("10::20"), Some(e));
}

/// Lookup.c: Lookup_lookup_number_0
#[test]
fn lookup_number_0() {
    let mut world = World::new();
    let e = named(&mut world, "0");
    assert_eq!(name_of(&world, e), Some("0"));
    assert_eq!(world.lookup("0"), Some(e));
}

/// Lookup.c: Lookup_set_name_of_existing
#[test]
fn set_name_of_existing() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert_eq!(name_of(&world, e), None);
    world.set_name(e, "Foo").unwrap();
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.lookup("Foo"), Some(e));
}

/// Lookup.c: Lookup_change_name_of_existing
#[test]
fn change_name_of_existing() {
    let mut world = World::new();
    let e = named(&mut world, "Foo");
    assert_eq!(name_of(&world, e), Some("Foo"));
    world.set_name(e, "Bar").unwrap();
    assert_eq!(name_of(&world, e), Some("Bar"));
    assert_eq!(world.lookup("Bar"), Some(e));
    assert_eq!(world.lookup("Foo"), None, "the old name is gone");
    // The old name is free again.
    let other = named(&mut world, "Foo");
    assert_eq!(world.lookup("Foo"), Some(other));
    world.check_invariants();
}

/// Lookup.c: Lookup_lookup_null
#[test]
fn lookup_null() {
    let mut world = World::new();
    named(&mut world, "foo");
    assert_eq!(world.lookup(""), None);
}

/// Lookup.c: Lookup_set_same_name
#[test]
fn set_same_name() {
    let mut world = World::new();
    let e = named(&mut world, "MyName");
    assert_eq!(world.lookup("MyName"), Some(e));
    assert_eq!(world.set_name(e, "MyName"), Ok(()), "an entity is not its own sibling");
    assert_eq!(name_of(&world, e), Some("MyName"));
    assert_eq!(world.lookup("MyName"), Some(e));
    world.check_invariants();
}

/// Lookup.c: Lookup_set_same_name_after_reparenting
#[test]
fn set_same_name_after_reparenting() {
    let mut world = World::new();
    let parent = named(&mut world, "parent");
    let e = named(&mut world, "MyName");
    assert_eq!(world.lookup("MyName"), Some(e));
    world.entity_mut(e).add_pair::<ChildOf>(parent);
    assert_eq!(name_of(&world, e), Some("MyName"));
    assert_eq!(world.lookup("parent::MyName"), Some(e));
    assert_eq!(world.set_name(e, "MyName"), Ok(()));
    assert_eq!(name_of(&world, e), Some("MyName"));
    assert_eq!(world.lookup("parent::MyName"), Some(e));
    world.check_invariants();
}

/// Lookup.c: Lookup_defer_set_name
#[test]
fn defer_set_name() {
    let mut world = World::new();
    let e = named(&mut world, "Foo");
    assert_eq!(world.lookup("Foo"), Some(e));
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert(Name::new("Bar"));
    });
    assert_eq!(name_of(&world, e), Some("Bar"));
    assert_eq!(world.lookup("Bar"), Some(e));
    assert_eq!(world.lookup("Foo"), None);
    world.check_invariants();
}

/// Lookup.c: Lookup_defer_set_same_name
#[test]
fn defer_set_same_name() {
    let mut world = World::new();
    let e = named(&mut world, "MyName");
    world.run_system_once(move |mut commands: Commands| {
        commands.entity(e).insert(Name::new("MyName"));
    });
    assert_eq!(name_of(&world, e), Some("MyName"));
    assert_eq!(world.lookup("MyName"), Some(e));
    world.check_invariants();
}

/// Lookup.c: Lookup_lookup_child_invalid_digit
#[test]
fn lookup_child_invalid_digit() {
    let mut world = World::new();
    let parent = named(&mut world, "p");
    assert_eq!(world.lookup_child(parent, "111111111111"), None);
    assert_eq!(world.lookup("p::111111111111"), None);
}

/// Lookup.c: Lookup_lookup_name_63_chars
#[test]
fn lookup_name_63_chars() {
    let mut world = World::new();
    let e = named(&mut world, NAME_63);
    assert_eq!(world.lookup(NAME_63), Some(e));
}

/// Lookup.c: Lookup_lookup_name_64_chars
#[test]
fn lookup_name_64_chars() {
    let mut world = World::new();
    let e = named(&mut world, NAME_64);
    assert_eq!(world.lookup(NAME_64), Some(e));
}

/// Lookup.c: Lookup_lookup_name_65_chars
#[test]
fn lookup_name_65_chars() {
    let mut world = World::new();
    let e = named(&mut world, NAME_65);
    assert_eq!(world.lookup(NAME_65), Some(e));
}

fn lookup_path_n_chars(child_name: &str) {
    let mut world = World::new();
    let parent_name = format!("A{}", &child_name[1..]);
    let p = named(&mut world, &parent_name);
    let e = named(&mut world, child_name);
    world.entity_mut(e).add_pair::<ChildOf>(p);
    let path = format!("{parent_name}::{child_name}");
    assert_eq!(world.lookup(&path), Some(e));
    assert_eq!(world.path(e), Some(path));
}

/// Lookup.c: Lookup_lookup_path_63_chars
#[test]
fn lookup_path_63_chars() {
    lookup_path_n_chars(NAME_63);
}

/// Lookup.c: Lookup_lookup_path_64_chars
#[test]
fn lookup_path_64_chars() {
    lookup_path_n_chars(NAME_64);
}

/// Lookup.c: Lookup_lookup_path_65_chars
#[test]
fn lookup_path_65_chars() {
    lookup_path_n_chars(NAME_65);
}

/// Lookup.c: Lookup_lookup_malformed
#[test]
fn lookup_malformed() {
    let mut world = World::new();
    named(&mut world, "f");
    let malformed = format!("''<'''. =!f'''!'''g '''{}'''''''", "\\".repeat(600));
    assert_eq!(world.lookup(&malformed), None);
    for text in ["::", "f::", "::f", "f::::", ":::", "f:::", "\0", "f\0"] {
        assert_eq!(world.lookup(text), None, "{text:?}");
    }
}

/// Lookup.c: Lookup_duplicate_names_different_scopes
#[test]
fn duplicate_names_different_scopes() {
    let mut world = World::new();
    let p1 = named(&mut world, "p1");
    let p2 = named(&mut world, "p2");
    let a = named_child(&mut world, "Foo", p1);
    let b = named_child(&mut world, "Foo", p2);
    assert_ne!(a, b);
    assert_eq!(world.lookup("p1::Foo"), Some(a));
    assert_eq!(world.lookup("p2::Foo"), Some(b));
    assert_eq!(world.path(a).as_deref(), Some("p1::Foo"));
    assert_eq!(world.path(b).as_deref(), Some("p2::Foo"));
    world.check_invariants();
}

// ===== Entity.c ================================================================================

/// Entity.c: Entity_entity_w_digit_name
#[test]
fn entity_w_digit_name() {
    let mut world = World::new();
    let e = named(&mut world, "10000");
    assert!(world.is_alive(e));
    assert_eq!(name_of(&world, e), Some("10000"));
    assert_eq!(world.lookup("10000"), Some(e));
}

/// Entity.c: Entity_entity_w_parent_w_name
#[test]
fn entity_w_parent_w_name() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let e = named_child(&mut world, "Foo", parent);
    assert!(world.has_pair::<ChildOf>(e, parent));
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.lookup_child(parent, "Foo"), Some(e));
    assert_eq!(world.path(e), None, "the parent has no name");
}

/// Entity.c: Entity_entity_init_w_childof_and_no_name
#[test]
fn entity_init_w_childof_and_no_name() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf.pair(parent)).id();
    assert!(world.has_pair::<ChildOf>(child, parent));
    assert_eq!(name_of(&world, child), None);
}

/// Entity.c: Entity_init_w_name_deferred
#[test]
fn init_w_name_deferred() {
    let mut world = World::new();
    let e = world.run_system_once(|mut commands: Commands| commands.spawn(Name::new("Foo")).id());
    assert_eq!(name_of(&world, e), Some("Foo"));
    assert_eq!(world.lookup("Foo"), Some(e));
}

/// Entity.c: Entity_init_w_childof_name_twice_deferred
#[test]
fn init_w_childof_name_twice_deferred() {
    // Flecs returns the same entity twice (get-or-create by name); ours refuses the
    // clash (deliberate). What is checked: the refusal leaves nothing behind, as an
    // immediate `World::spawn` clash does.
    let mut world = World::new();
    let parent = named(&mut world, "Foo");
    let message = panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            commands.spawn((Name::new("Bar"), ChildOf.pair(parent)));
            commands.spawn((Name::new("Bar"), ChildOf.pair(parent)));
        });
    });
    assert!(message.contains("Bar"), "{message}");
    assert_eq!(world.lookup("Foo"), Some(parent));
    assert_eq!(world.children(parent).count(), 1);
    assert_eq!(world.entity_count(), 2, "the parent and one Bar; the refused spawn is undone");
    world.check_invariants();
}

/// Entity.c: Entity_entity_init_w_empty_string_name
#[test]
fn entity_init_w_empty_string_name() {
    // Flecs: an empty name sets no name. Ours stores it; it must at least not make
    // an empty path resolve to an entity nobody named.
    let mut world = World::new();
    let e = world.spawn_empty().id();
    assert_eq!(name_of(&world, e), None);
    assert_eq!(world.lookup(""), None);
}

// ===== Hierarchies.c ===========================================================================

/// Hierarchies.c: Hierarchies_path_w_number
#[test]
fn path_w_number() {
    let mut world = World::new();
    let p = named(&mut world, "1000");
    let e = world.spawn(ChildOf.pair(p)).id();
    world.set_name(e, "Foo").unwrap();
    assert_eq!(world.path(e).as_deref(), Some("1000::Foo"));
    assert_eq!(world.lookup("1000::Foo"), Some(e));
}

/// Hierarchies.c: Hierarchies_path_escaped_sep
#[test]
fn path_escaped_sep() {
    // Flecs: name "foo\.bar" is the root "foo.bar", its path "foo\.bar" looks it up.
    let mut world = World::new();
    let e = named(&mut world, "foo::bar");
    let foo = named(&mut world, "foo");
    let bar = named_child(&mut world, "bar", foo);
    assert!(world.target::<ChildOf>(e).is_none());
    let path = world.path(e).expect("named root");
    assert_eq!(world.lookup(&path), Some(e), "path {path:?} must look up the entity it names, not {bar:?}");
}

/// Hierarchies.c: Hierarchies_lookup_rel_0
#[test]
fn lookup_rel_0() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let child = named_child(&mut world, "Child", parent);
    assert_eq!(world.lookup_child(parent, "Child"), Some(child));
}

/// Hierarchies.c: Hierarchies_lookup_rel_1
#[test]
fn lookup_rel_1() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let child = named_child(&mut world, "Child", parent);
    let grand_child = named_child(&mut world, "GrandChild", child);
    let found = world.lookup_child(parent, "Child").and_then(|c| world.lookup_child(c, "GrandChild"));
    assert_eq!(found, Some(grand_child));
    assert_eq!(world.lookup("Parent::Child::GrandChild"), Some(grand_child));
}

/// Hierarchies.c: Hierarchies_lookup_rel_2
#[test]
fn lookup_rel_2() {
    let mut world = World::new();
    let parent = named(&mut world, "Parent");
    let child = named_child(&mut world, "Child", parent);
    let grand_child = named_child(&mut world, "GrandChild", child);
    let ggc = named_child(&mut world, "GrandGrandChild", grand_child);
    let mut current = Some(parent);
    for segment in ["Child", "GrandChild", "GrandGrandChild"] {
        current = current.and_then(|c| world.lookup_child(c, segment));
    }
    assert_eq!(current, Some(ggc));
    assert_eq!(world.lookup("Parent::Child::GrandChild::GrandGrandChild"), Some(ggc));
    assert_eq!(world.path(ggc).as_deref(), Some("Parent::Child::GrandChild::GrandGrandChild"));
}

/// Hierarchies.c: Hierarchies_lookup_after_clear_from_parent
#[test]
fn lookup_after_clear_from_parent() {
    let mut world = World::new();
    let p = named(&mut world, "Parent");
    let c = named_child(&mut world, "Child", p);
    assert_eq!(name_of(&world, p), Some("Parent"));
    assert_eq!(name_of(&world, c), Some("Child"));
    assert_eq!(world.lookup("Parent"), Some(p));
    // Flecs: lookup("Child") is 0 (not a root); ours falls back to any entity.
    assert_eq!(world.lookup("Child"), Some(c));
    assert_eq!(world.lookup("Parent::Child"), Some(c));
    assert_eq!(world.path(p).as_deref(), Some("Parent"));
    assert_eq!(world.path(c).as_deref(), Some("Parent::Child"));
    // ecs_clear
    world.remove_id(c, Entity::WILDCARD.id());
    assert_eq!(name_of(&world, c), None);
    assert_eq!(world.ids_of(c), Some(&[][..]));
    assert_eq!(world.lookup("Child"), None);
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.lookup_child(p, "Child"), None);
    world.check_invariants();
}

/// Hierarchies.c: Hierarchies_lookup_after_delete_from_parent
#[test]
fn lookup_after_delete_from_parent() {
    let mut world = World::new();
    let p = named(&mut world, "Parent");
    let c = named_child(&mut world, "Child", p);
    assert_eq!(world.lookup("Parent::Child"), Some(c));
    assert_eq!(world.path(c).as_deref(), Some("Parent::Child"));
    world.despawn(c);
    assert_eq!(world.lookup("Child"), None);
    assert_eq!(world.lookup("Parent::Child"), None);
    assert_eq!(world.lookup_child(p, "Child"), None);
    assert_eq!(world.path(c), None);
    world.check_invariants();
}

/// Hierarchies.c: Hierarchies_long_name_depth_2
#[test]
fn long_name_depth_2() {
    let mut world = World::new();
    let long = "a".repeat(300);
    let p = named(&mut world, &long);
    let c = named_child(&mut world, &long, p);
    let gc = named_child(&mut world, &long, c);
    let path = format!("{long}::{long}::{long}");
    assert_eq!(world.path(gc), Some(path.clone()));
    assert_eq!(world.lookup(&path), Some(gc));
    assert_eq!(world.lookup(&format!("{long}::{long}")), Some(c));
    assert_eq!(world.lookup(&long), Some(p));
}
