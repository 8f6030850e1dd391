//! Review session 26: wide entities, whose index exceeds
//! `Entity::MAX_RELATIONSHIP_INDEX` (31 bits: such an entity can be a plain id,
//! a pair's target or a source, never a pair's relationship), everywhere a
//! Bevy or Flecs user reaches them after `set_entity_range(3e9..4e9)` or a
//! `spawn_at` of a high id. Not repeated here: what d5595c6/bc0226c and
//! `ported_flecs_validator.rs`, `review_session25.rs` and `entity_ranges.rs`
//! cover (runtime queries refusing wide written relationships, `($r, *)`
//! with `$r` bound wide, component ids under a high range, range basics).
//!
//! Covered: component and relationship ids registered lazily under a wide
//! range or after `spawn_at` of high / top ids stay 31-bit; the runtime pair
//! API (`add_pair_id`, `has_pair_id`, `remove_pair_id`, commands'
//! `add_pair_id`) with a wide relationship; `set_relationship_traits` on a
//! wide entity, and its traits not outliving it; `spawn_at` at `u32::MAX - 1`,
//! `u32::MAX`, `PLACEHOLDER` and both sides of the 31-bit border; `ChildOf`
//! hierarchies through wide parents (names, paths, `lookup` round trips,
//! renames, reparenting, name clashes, `with_children` from the world and
//! from commands, recursive despawn, typed `Up<ChildOf, &T>`, runtime
//! `Position(up ChildOf)` / `self|up`, `cascade`); wide prefabs with prefab
//! children (inherited and override values, `(IsA, Fighter)`, deleting the
//! prefab), ancestor-instance refusal; unions, exclusive, transitive and
//! acyclic (typed and run-time) relationships with wide targets; sparse
//! components on wide entities; observers of `Pair<R>`, raw `(*, t)`,
//! `(R, t)` and wide plain-id observers, entity observers and event
//! propagation through wide parents, `OnDespawn`; `id_name`, `ids_of`,
//! `inspect` (text and JSON), `inspect_world`, the archetype graph;
//! `on_delete_target` remove / delete / panic with wide targets; variables
//! bound to wide entities as targets, sources, whole-term ids, `up` sources
//! and in chains, cached and uncached, with `to_dsl()` parsing back;
//! `to_dsl()` of builder queries naming unnamed and recycled wide entities
//! (`#bits`); never-allocated and stale wide handles through every world
//! method; wildcard forms (`(*, t)`, `(_, t)`, `remove_id` of `(*, t)` and
//! `(R, *)`, `sources`, `with_pair`); a whole program (schedule, commands,
//! messages, observers, one-shot systems, `Relations`) under a wide range;
//! and a random model (40 seeds x 150 steps, xorshift) mixing low and wide
//! entities under churn (spawns in both ranges, despawns with `ChildOf`
//! cascades, `Likes`, valued `Eats`, `ChildOf`, plain ids, a union, run-time
//! relationships including an exclusive one and a wide one that must be
//! refused, `Drop` values inserted, replaced and removed), compared to the
//! model after every step through the typed and runtime APIs, with
//! `check_invariants` and every `Drop` value dropped exactly once.
//!
//! Findings (all fixed in the library since; the tests run):
//! - `has_and_remove_pair_id_with_a_wide_relationship_answer_false`:
//!   `World::has_pair_id(e, wide, t)` and `remove_pair_id` panic inside
//!   `Id::pair` ("relationship index exceeds 31 bits") instead of answering
//!   `false` (no such pair can exist).
//! - `add_pair_id_with_a_wide_relationship_panics_naming_it_and_changes_nothing`:
//!   `World::add_pair_id` / `EntityWorldMut::add_pair_id` with a wide
//!   relationship panic with `Id::pair`'s assertion, which names neither the
//!   entity nor the relationship, and is not in their `# Panics` docs (the
//!   world is left unchanged).
//! - `a_command_adding_a_wide_relationship_panics_naming_it`: the same
//!   through `EntityCommands::add_pair_id`, when the queue is applied: the
//!   panic names no command, entity or relationship.
//! - `a_command_adding_a_wide_relationship_that_died_applies_no_policy`: a
//!   queued `add_pair_id(wide, t)` whose wide "relationship" has
//!   `on_delete = delete` and is despawned before the queue is applied
//!   despawns the entity ("as if the pair had existed"), though no pair of
//!   it could ever exist (alive, the same command is refused).

use std::any::TypeId;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::{Entity, Id, SpawnError};
use ecs::prelude::*;
use ecs::query::DynQuery;
use ecs::world::{ObserverRunner, PairError, TriggerInfo};
use ecs_tests::{DropLog, DropTable, panic_message};

const WIDE: std::ops::Range<u32> = 3_000_000_000..4_000_000_000;
const LOW: std::ops::Range<u32> = 100_000..200_000;

#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
struct Position(i32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "sparse")]
struct Stun(u32);

#[derive(Relationship, Debug)]
struct Likes;

#[derive(Relationship, Debug, Clone, PartialEq)]
struct Eats(u32);

#[derive(Relationship, Debug)]
#[relationship(exclusive, on_delete_target = "delete")]
struct Docked;

#[derive(Relationship, Debug)]
#[relationship(on_delete_target = "panic")]
struct Anchored;

#[derive(Relationship, Debug)]
#[relationship(transitive, acyclic, traversable)]
struct LocatedIn;

#[derive(Relationship, Debug)]
#[relationship(union)]
struct Movement;

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Hp(u32);

fn is_wide(entity: Entity) -> bool {
    entity.index() > Entity::MAX_RELATIONSHIP_INDEX
}

/// Spawns `bundle` with an id from the wide range, then returns to the low one.
fn spawn_wide<B: Bundle>(world: &mut World, bundle: B) -> Entity {
    let before = world.entity_range();
    world.set_entity_range(WIDE);
    let e = world.spawn(bundle).id();
    world.set_entity_range(before);
    assert!(is_wide(e), "{e:?}");
    e
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort();
    v
}

fn rows(world: &World, q: &mut DynQuery) -> Vec<Entity> {
    sorted(q.iter(world).map(|row| row.entity()).collect())
}

/// Runs `f` and returns its panic message, if it panicked.
fn panics<R>(f: impl FnOnce() -> R) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => None,
        Err(payload) => Some(
            payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default(),
        ),
    }
}

// ===== registration and low ids =======================================================

#[test]
fn relationships_first_used_in_a_wide_range_get_low_ids_and_work() {
    let mut world = World::new();
    world.set_entity_range(WIDE);
    // Every type is registered lazily, while the wide range is active.
    let a = world.spawn(Position(1)).id();
    let b = world.spawn(Position(2)).id();
    assert!(is_wide(a) && is_wide(b));
    world.add_observer(|_: Trigger<OnAdd, Pair<Eats>>| {});
    world.entity_mut(a).add_pair::<Likes>(b);
    world.entity_mut(a).insert_pair(Eats(3), b);
    world.entity_mut(b).add_pair::<LocatedIn>(a);
    world.entity_mut(b).add_pair::<Movement>(a);
    let c = world.spawn((ChildOf.pair(a), Docked.pair(b))).id();
    for id in [
        world.component_id::<Likes>(),
        world.component_id::<Eats>(),
        world.component_id::<LocatedIn>(),
        world.component_id::<Movement>(),
        world.component_id::<Docked>(),
        world.component_id::<Position>(),
        world.component_id::<ChildOf>(),
    ] {
        let id = id.expect("registered");
        assert!(!is_wide(id), "a component id must fit a pair's relationship: {id:?}");
    }
    assert!(world.has_pair::<Likes>(a, b));
    assert_eq!(world.get_pair::<Eats>(a, b), Some(&Eats(3)));
    assert_eq!(world.target::<ChildOf>(c), Some(a));
    assert_eq!(world.target::<Docked>(c), Some(b));
    assert_eq!(world.target::<Movement>(b), Some(a));
    let mut q = world.query_dsl("(Likes, *), (Eats, *)").unwrap();
    assert_eq!(rows(&world, &mut q), vec![a]);
    world.check_invariants();
    world.despawn(a);
    assert!(!world.is_alive(c));
    assert!(!world.has_pair::<LocatedIn>(b, a) && world.target::<Movement>(b).is_none());
    world.check_invariants();
}

// ===== runtime pair APIs with a wide relationship =====================================

#[test]
fn has_and_remove_pair_id_with_a_wide_relationship_answer_false() {
    let mut world = World::new();
    let e = world.spawn(Position(0)).id();
    let t = world.spawn_empty().id();
    let wide = spawn_wide(&mut world, Name::new("WideRel"));
    assert_eq!(panics(|| world.has_pair_id(e, wide, t)), None, "has_pair_id panicked");
    assert!(!world.has_pair_id(e, wide, t));
    assert!(!world.has_pair_id(e, wide, Entity::WILDCARD));
    assert_eq!(panics(|| world.remove_pair_id(e, wide, t)), None, "remove_pair_id panicked");
    assert!(!world.remove_pair_id(e, wide, Entity::WILDCARD));
    world.check_invariants();
}

#[test]

fn add_pair_id_with_a_wide_relationship_panics_naming_it_and_changes_nothing() {
    let mut world = World::new();
    let e = world.spawn(Position(0)).id();
    let t = world.spawn_empty().id();
    let wide = spawn_wide(&mut world, Name::new("WideRel"));
    let before = world.ids_of(e).unwrap().to_vec();
    let message = panics(|| world.add_pair_id(e, wide, t)).expect("add_pair_id must refuse a wide relationship");
    assert!(message.contains(&format!("{wide:?}")), "the panic must name the relationship: {message}");
    let message = panics(|| {
        world.entity_mut(e).add_pair_id(wide, t);
    })
    .expect("EntityWorldMut::add_pair_id must refuse a wide relationship");
    assert!(message.contains(&format!("{wide:?}")), "the panic must name the relationship: {message}");
    assert_eq!(world.ids_of(e).unwrap(), &before[..]);
    world.check_invariants();
}

#[test]

fn a_command_adding_a_wide_relationship_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn(Position(0)).id();
    let t = world.spawn_empty().id();
    let wide = spawn_wide(&mut world, Name::new("WideRel"));
    let mut queue = ecs::system::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).add_pair_id(wide, t);
    let message = panics(|| queue.apply(&mut world)).expect("the command must refuse a wide relationship");
    assert!(message.contains(&format!("{wide:?}")), "the panic must name the relationship: {message}");
    assert_eq!(world.get::<Position>(e), Some(&Position(0)));
    world.check_invariants();
}

#[test]

fn a_command_adding_a_wide_relationship_that_died_applies_no_policy() {
    // The pair could never have existed: the on_delete policy of a dead wide
    // "relationship" must not despawn the entity.
    let mut world = World::new();
    let e = world.spawn(Position(0)).id();
    let t = world.spawn_empty().id();
    let wide = spawn_wide(&mut world, ());
    world.set_relationship_traits(wide, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    let mut queue = ecs::system::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).add_pair_id(wide, t);
    world.despawn(wide);
    let _ = panics(|| queue.apply(&mut world));
    assert!(world.is_alive(e), "no pair of a wide relationship existed; the entity must survive");
    world.check_invariants();
}

#[test]
fn set_relationship_traits_on_a_wide_entity_is_harmless() {
    let mut world = World::new();
    let wide = spawn_wide(&mut world, Name::new("WideRel"));
    let t = world.spawn(Position(1)).id();
    let e = world.spawn_empty().id();
    for traits in [
        RelationshipTraits::DEFAULT.exclusive(),
        RelationshipTraits::DEFAULT.union().exclusive(),
        RelationshipTraits::DEFAULT.traversable().acyclic(),
        RelationshipTraits::DEFAULT.transitive(),
        RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic),
        RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete),
    ] {
        if let Some(message) = panics(|| world.set_relationship_traits(wide, traits)) {
            assert!(message.contains(&format!("{wide:?}")), "a refusal must name the entity: {message}");
        }
        world.check_invariants();
    }
    // It is still an ordinary entity: a plain id, a target and a source.
    world.add_id(e, wide.id());
    world.add_pair::<Likes>(e, wide);
    world.add_pair::<Likes>(wide, t);
    assert!(world.has_id(e, wide.id()) && world.has_pair::<Likes>(e, wide));
    let mut q = world.query_dsl("(Likes, WideRel)").unwrap();
    assert_eq!(rows(&world, &mut q), vec![e]);
    assert_eq!(panics(|| world.despawn(wide)), None, "despawning it panicked");
    assert!(!world.is_alive(wide) && world.is_alive(e) && world.is_alive(t));
    assert!(!world.has_pair::<Likes>(e, wide) && world.ids_of(e) == Some(&[][..]));
    world.check_invariants();
}

// ===== spawn_at near the borders =========================================================

#[test]
fn spawn_at_near_the_top_and_the_31_bit_border() {
    let mut world = World::new();
    world.set_entity_range(1..u32::MAX);
    let top = Entity::from_raw(u32::MAX - 1, 0);
    let border = Entity::from_raw(Entity::MAX_RELATIONSHIP_INDEX, 0);
    let over = Entity::from_raw(Entity::MAX_RELATIONSHIP_INDEX + 1, 7);
    for e in [top, border, over] {
        world.spawn_at(e).unwrap().insert(Position(e.index() as i32));
        assert!(world.is_alive(e));
    }
    assert!(matches!(world.spawn_at(Entity::from_raw(u32::MAX, 0)), Err(SpawnError::OutOfRange { .. })));
    assert!(world.spawn_at(Entity::PLACEHOLDER).is_err());
    assert!(!world.is_alive(Entity::PLACEHOLDER));
    // The border entity is a relationship; the others are targets.
    world.set_relationship_traits(border, RelationshipTraits::DEFAULT.traversable());
    world.add_pair_id(top, border, over);
    world.add_pair_id(over, border, top);
    world.add_pair::<Likes>(top, over);
    assert!(world.has_pair_id(top, border, over) && world.has_pair_id(over, border, top));
    assert_eq!(world.id_name(Id::pair(border, top)), format!("({border:?}, {top:?})"));
    let mut q = world.query_builder().pair(border, Entity::WILDCARD).build().unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![top, over]));
    let mut q = world.query_dsl(&q.to_dsl()).unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![top, over]));
    // Fresh spawns after spawn_at at the top: the range is spent.
    world.set_entity_range(u32::MAX - 2..u32::MAX);
    let last = world.spawn_empty().id();
    assert_eq!(last.index(), u32::MAX - 2);
    let message = panic_message(|| world.spawn_empty().id());
    assert!(message.contains("range"), "{message}");
    world.check_invariants();
    world.despawn(top);
    assert!(world.is_alive(over) && !world.has_id(over, Id::pair(border, Entity::WILDCARD)));
    assert!(!world.has_pair::<Likes>(over, top));
    world.check_invariants();
    // Reuse of the top index with a higher generation.
    let again = world.spawn_empty().id();
    assert_eq!(again.index(), u32::MAX - 1);
    assert_eq!(again.generation(), 1);
    world.check_invariants();
}

// ===== hierarchies, names and paths through wide parents =================================

/// `station` (wide) > `dock` (low) > `crane` (wide) > `hook` (low), named.
fn wide_hierarchy(world: &mut World) -> [Entity; 4] {
    world.set_entity_range(LOW);
    let station = spawn_wide(world, (Name::new("station"), Position(1)));
    let dock = world.spawn((Name::new("dock"), ChildOf.pair(station))).id();
    let crane = spawn_wide(world, (Name::new("crane"), ChildOf.pair(dock), Position(3)));
    let hook = world.spawn((Name::new("hook"), ChildOf.pair(crane))).id();
    [station, dock, crane, hook]
}

#[test]
fn names_and_paths_round_trip_through_wide_parents() {
    let mut world = World::new();
    world.set_entity_range(LOW);
    let [station, dock, crane, hook] = wide_hierarchy(&mut world);
    assert_eq!(world.path(hook).as_deref(), Some("station::dock::crane::hook"));
    for e in [station, dock, crane, hook] {
        let path = world.path(e).unwrap();
        assert_eq!(world.lookup(&path), Some(e), "{path}");
    }
    assert_eq!(world.lookup_child(crane, "hook"), Some(hook));
    assert_eq!(world.lookup_child(station, "dock"), Some(dock));
    assert_eq!(world.parent(crane), Some(dock));
    assert_eq!(sorted(world.children(station).collect()), vec![dock]);
    assert_eq!(world.ancestors(hook).collect::<Vec<_>>(), vec![crane, dock, station]);
    assert_eq!(world.descendants(station).collect::<Vec<_>>(), vec![dock, crane, hook]);
    // A sibling with a clashing name under a wide parent is refused.
    let clash = world.spawn(Name::new("hook")).id();
    let refused = panics(|| {
        world.entity_mut(clash).add_pair::<ChildOf>(crane);
    });
    assert!(refused.as_ref().is_some_and(|m| m.contains(&format!("{hook:?}"))), "{refused:?}");
    assert!(!world.has_pair::<ChildOf>(clash, crane));
    assert_eq!(world.children(crane).filter(|&c| world.get::<Name>(c).unwrap().as_str() == "hook").count(), 1);
    // Renaming a wide entity updates the paths below it.
    world.set_name(crane, "arm").unwrap();
    assert_eq!(world.path(hook).as_deref(), Some("station::dock::arm::hook"));
    assert_eq!(world.lookup("station::dock::arm::hook"), Some(hook));
    assert_eq!(world.lookup("station::dock::crane::hook"), None);
    // Reparenting a wide child under a low parent and back.
    world.entity_mut(crane).add_pair::<ChildOf>(station);
    assert_eq!(world.path(hook).as_deref(), Some("station::arm::hook"));
    assert_eq!(world.lookup("station::arm"), Some(crane));
    world.check_invariants();
    // Despawning the wide root despawns the whole tree.
    world.despawn(station);
    for e in [station, dock, crane, hook] {
        assert!(!world.is_alive(e), "{e:?}");
    }
    assert_eq!(world.lookup("station"), None);
    assert_eq!(world.lookup("station::arm"), None);
    world.check_invariants();
}

#[test]
fn with_children_and_commands_under_a_wide_parent() {
    let mut world = World::new();
    let log = DropLog::new();
    world.set_entity_range(WIDE);
    let mut children = Vec::new();
    let ship = world
        .spawn((Name::new("ship"), log.table(1)))
        .with_children(|p| {
            children.push(p.spawn((Name::new("gun"), log.table(2))).id());
            children.push(p.spawn((Name::new("engine"), log.table(3))).id());
        })
        .id();
    world.set_entity_range(LOW);
    assert!(children.iter().all(|&c| is_wide(c)));
    assert_eq!(world.lookup("ship::gun"), Some(children[0]));
    // Commands under the wide parent, from a low range.
    let mut queue = ecs::system::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let extra = commands.spawn((Name::new("radar"), ChildOf.pair(ship), log.table(4))).id();
    commands.entity(children[0]).insert(Position(9));
    commands.entity(ship).with_children(|p| {
        p.spawn((Name::new("shield"), log.table(5)));
    });
    queue.apply(&mut world);
    assert_eq!(world.lookup("ship::radar"), Some(extra));
    assert!(world.lookup("ship::shield").is_some());
    assert_eq!(world.get::<Position>(children[0]), Some(&Position(9)));
    assert_eq!(world.children(ship).count(), 4);
    world.check_invariants();
    let mut queue = ecs::system::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(ship).despawn();
    queue.apply(&mut world);
    log.assert_dropped_once([1, 2, 3, 4, 5]);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

#[test]
fn up_traversal_through_wide_parents_typed_and_runtime() {
    let mut world = World::new();
    let [station, dock, crane, hook] = wide_hierarchy(&mut world);
    // Typed `Up<ChildOf, &Position>`: nearest ancestor with a Position.
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let mut got: Vec<(Entity, Position)> = q.iter(&world).map(|(e, p)| (e, *p)).collect();
    got.sort_by_key(|(e, _)| *e);
    let mut expected = vec![(dock, Position(1)), (crane, Position(1)), (hook, Position(3))];
    expected.sort_by_key(|(e, _)| *e);
    assert_eq!(got, expected);
    // Runtime `Position(up ChildOf)` and `self|up`.
    let mut q = world.query_dsl("Position(up ChildOf)").unwrap();
    let mut got: Vec<(Entity, Entity)> = q.iter(&world).map(|row| (row.entity(), row.source(0))).collect();
    got.sort();
    let mut expected = vec![(dock, station), (crane, station), (hook, crane)];
    expected.sort();
    assert_eq!(got, expected);
    let mut q = world.query_dsl("Position(self|up ChildOf)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![station, dock, crane, hook]));
    let mut q = world
        .query_builder()
        .read(world.component_id::<Position>().unwrap())
        .up(world.component_id::<ChildOf>().unwrap())
        .build()
        .unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![dock, crane, hook]));
    // Cascade orders by depth.
    let mut q = world.query::<(Entity, Option<&Name>)>().with_pair::<ChildOf>(Entity::WILDCARD);
    let _ = q.iter(&world).count();
    // Moving the Position: the wide crane loses it, hook reads the station's.
    world.entity_mut(crane).remove::<Position>();
    let mut q = world.query::<(Entity, Up<ChildOf, &Position>)>();
    let got: Vec<(Entity, Position)> = q.iter(&world).filter(|(e, _)| *e == hook).map(|(e, p)| (e, *p)).collect();
    assert_eq!(got, vec![(hook, Position(1))]);
    world.check_invariants();
}

// ===== prefabs, unions, exclusive, transitive and acyclic relationships ===================

#[test]
fn wide_prefabs_pass_values_and_children_on() {
    let mut world = World::new();
    let log = DropLog::new();
    let prefab = spawn_wide(&mut world, (Prefab, Name::new("Fighter"), Position(5), Hp(10)));
    let child = spawn_wide(&mut world, (Name::new("gun"), ChildOf.pair(prefab), Position(6)));
    let base = world.spawn((Prefab, Position(1))).id();
    world.entity_mut(prefab).add_pair::<IsA>(base);
    world.entity_mut(prefab).add_pair::<Likes>(child);
    world.set_entity_range(WIDE);
    let inst = world.instantiate(prefab);
    let owned = world.spawn((IsA.pair(prefab), log.table(1))).id();
    world.set_entity_range(LOW);
    let low_inst = world.instantiate(prefab);
    for i in [inst, owned, low_inst] {
        assert_eq!(world.get::<Position>(i), Some(&Position(5)), "{i:?}");
        assert_eq!(world.get::<Hp>(i), Some(&Hp(10)));
        assert!(world.has_pair::<IsA>(i, prefab));
        let kids: Vec<Entity> = world.children(i).collect();
        assert_eq!(kids.len(), 1, "{i:?}");
        assert!(world.has_pair::<IsA>(kids[0], child), "an instance child is an (IsA, prefab child)");
        // A prefab's children are prefabs: the instance child reads gun's value.
        assert_eq!(world.get::<Position>(kids[0]), Some(&Position(6)));
        assert_eq!(world.get::<Name>(kids[0]).map(Name::as_str), Some("gun"));
    }
    // Runtime queries: `(IsA, Fighter)` matches the prefab? (reflexive) and instances.
    let mut q = world.query_dsl("(IsA, Fighter)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![inst, owned, low_inst]));
    let mut q = world.query_dsl("Position, ?Prefab").unwrap();
    let got = rows(&world, &mut q);
    for e in [prefab, child, base, inst, owned, low_inst] {
        assert!(got.contains(&e), "{e:?} in {got:?}");
    }
    world.check_invariants();
    // Deleting the wide prefab: instances keep owned values, lose inherited ones.
    world.despawn(prefab);
    assert!(!world.is_alive(child));
    for i in [inst, owned, low_inst] {
        assert!(world.is_alive(i));
        assert_eq!(world.get::<Position>(i), None, "{i:?}");
        assert_eq!(world.get::<Hp>(i), Some(&Hp(10)), "override copies stay");
    }
    world.despawn(owned);
    log.assert_dropped_once([1]);
    world.check_invariants();
}

#[test]
fn union_targets_may_be_wide() {
    let mut world = World::new();
    let walking = spawn_wide(&mut world, Name::new("Walking"));
    let running = spawn_wide(&mut world, Name::new("Running"));
    let idle = world.spawn(Name::new("Idle")).id();
    let a = spawn_wide(&mut world, Position(1));
    let b = world.spawn(Position(2)).id();
    world.entity_mut(a).add_pair::<Movement>(walking);
    world.entity_mut(b).add_pair::<Movement>(running);
    let arch = world.entities().location(a).unwrap().archetype;
    world.entity_mut(a).add_pair::<Movement>(idle);
    assert_eq!(world.entities().location(a).unwrap().archetype, arch, "a union never moves");
    world.entity_mut(a).add_pair::<Movement>(running);
    assert_eq!(world.target::<Movement>(a), Some(running));
    let mut q = world.query_dsl("(Movement, Running)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![a, b]));
    let mut q = world.query_dsl("(Movement, $m)").unwrap();
    let mut got: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.entity(), r.var("m").unwrap())).collect();
    got.sort();
    assert_eq!(got, sorted_pairs(vec![(a, running), (b, running)]));
    let mut q = world.query::<(Entity, Pair<Movement>)>();
    let got: Vec<(Entity, Entity)> = q.iter(&world).collect();
    assert_eq!(sorted_pairs(got), sorted_pairs(vec![(a, running), (b, running)]));
    let name = world.id_name(world.inspect(a).components.iter().find(|c| c.is_pair()).unwrap().id);
    assert_eq!(name, "(Movement, Running)");
    world.despawn(running);
    assert_eq!(world.target::<Movement>(a), None);
    assert_eq!(world.target::<Movement>(b), None);
    world.entity_mut(b).add_pair::<Movement>(walking);
    let mut q = world.query_dsl("(Movement, *)").unwrap();
    assert_eq!(rows(&world, &mut q), vec![b]);
    world.check_invariants();
}

fn sorted_pairs(mut v: Vec<(Entity, Entity)>) -> Vec<(Entity, Entity)> {
    v.sort();
    v
}

#[test]
fn transitive_and_acyclic_chains_of_wide_entities() {
    let mut world = World::new();
    let earth = spawn_wide(&mut world, Name::new("Earth"));
    let europe = world.spawn(Name::new("Europe")).id();
    let france = spawn_wide(&mut world, Name::new("France"));
    let paris = world.spawn(Name::new("Paris")).id();
    world.add_pair::<LocatedIn>(europe, earth);
    world.add_pair::<LocatedIn>(france, europe);
    world.add_pair::<LocatedIn>(paris, france);
    let mut q = world.query_dsl("(LocatedIn, Earth)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![europe, france, paris]));
    let mut q = world.query_dsl("(LocatedIn, France)").unwrap();
    assert_eq!(rows(&world, &mut q), vec![paris]);
    let mut q = world.query_dsl("(LocatedIn, $place)").unwrap();
    let got: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.entity(), r.var("place").unwrap())).collect();
    assert_eq!(got.iter().filter(|(e, _)| *e == paris).count(), 3, "{got:?}");
    // Acyclic: closing the cycle through wide entities is refused.
    let error = world.try_add_pair::<LocatedIn>(earth, paris).unwrap_err();
    assert!(matches!(error, PairError::Cycle { .. }), "{error:?}");
    assert!(!world.has_pair::<LocatedIn>(earth, paris));
    // Exclusive with wide targets replaces in one move.
    let dock_a = spawn_wide(&mut world, ());
    let dock_b = spawn_wide(&mut world, ());
    let ship = world.spawn(Docked.pair(dock_a)).id();
    world.add_pair::<Docked>(ship, dock_b);
    assert_eq!(world.targets::<Docked>(ship).collect::<Vec<_>>(), vec![dock_b]);
    world.despawn(dock_a);
    assert!(world.is_alive(ship));
    world.despawn(dock_b);
    assert!(!world.is_alive(ship), "Docked deletes on target delete");
    world.check_invariants();
}

#[test]
fn sparse_components_on_wide_entities() {
    let mut world = World::new();
    let log = DropLog::new();
    let a = spawn_wide(&mut world, (Stun(1), log.sparse(1)));
    let b = world.spawn((Stun(2), log.sparse(2))).id();
    let c = spawn_wide(&mut world, Position(3));
    world.entity_mut(c).insert((Stun(3), log.sparse(3)));
    world.entity_mut(c).insert(log.sparse(4));
    let mut q = world.query::<(Entity, &Stun)>();
    let mut got: Vec<(Entity, u32)> = q.iter(&world).map(|(e, s)| (e, s.0)).collect();
    got.sort();
    let mut expected = vec![(a, 1), (b, 2), (c, 3)];
    expected.sort();
    assert_eq!(got, expected);
    let mut q = world.query_dsl("Stun").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![a, b, c]));
    world.despawn(a);
    world.remove::<Stun>(c);
    world.clear_entities();
    log.assert_dropped_once([1, 2, 3, 4]);
    world.check_invariants();
}

// ===== observers =========================================================================

#[derive(Resource, Default)]
struct Log(Vec<String>);

#[derive(Event)]
#[event(propagate = ChildOf)]
struct Ping;

/// A raw observer (`World::register_observer`) of `ids` for event `E`,
/// logging `what entity target`.
fn raw_observer<E: Event>(world: &mut World, what: &'static str, ids: &[Id]) {
    #[derive(Event)]
    struct Never;
    let o = world.add_observer(|_: Trigger<Never>| {}).id();
    assert!(world.unregister_observer(o));
    let runner: ObserverRunner = Box::new(move |world: &mut World, info: &TriggerInfo, _| {
        let line = format!("{what} {:?} {:?}", info.entity, info.pair_target);
        world.resource_mut::<Log>().0.push(line);
    });
    world.register_observer(o, TypeId::of::<E>(), ids.iter().copied().collect(), Default::default(), runner);
}

fn take_log(world: &mut World) -> Vec<String> {
    let mut log = std::mem::take(&mut world.resource_mut::<Log>().0);
    log.sort();
    log
}

#[test]
fn observers_of_pairs_with_wide_targets_and_of_wide_ids() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let likes = world.register_component::<Likes>();
    let wide = spawn_wide(&mut world, Name::new("Wide"));
    let other = spawn_wide(&mut world, ());
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("typed add {:?} {:?}", t.entity(), t.pair_target()));
    });
    world.add_observer(|t: Trigger<OnRemove, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(format!("typed remove {:?} {:?}", t.entity(), t.pair_target()));
    });
    raw_observer::<OnAdd>(&mut world, "any-to-wide add", &[Id::pair(Entity::WILDCARD, wide)]);
    raw_observer::<OnRemove>(&mut world, "any-to-wide remove", &[Id::pair(Entity::WILDCARD, wide)]);
    raw_observer::<OnAdd>(&mut world, "likes-wide add", &[Id::pair(likes, wide)]);
    raw_observer::<OnAdd>(&mut world, "wide-tag add", &[wide.id()]);
    raw_observer::<OnRemove>(&mut world, "wide-tag remove", &[wide.id()]);
    let e = world.spawn_empty().id();
    world.add_pair::<Likes>(e, wide);
    assert_eq!(
        take_log(&mut world),
        vec![
            format!("any-to-wide add {e:?} Some({wide:?})"),
            format!("likes-wide add {e:?} Some({wide:?})"),
            format!("typed add {e:?} Some({wide:?})"),
        ]
    );
    world.add_pair::<Likes>(e, other);
    assert_eq!(take_log(&mut world), vec![format!("typed add {e:?} Some({other:?})")]);
    world.add_id(other, wide.id());
    assert_eq!(take_log(&mut world), vec![format!("wide-tag add {other:?} None")]);
    // Despawning the wide entity removes both the pair and the tag.
    world.despawn(wide);
    assert_eq!(
        take_log(&mut world),
        vec![
            format!("any-to-wide remove {e:?} Some({wide:?})"),
            format!("typed remove {e:?} Some({wide:?})"),
            format!("wide-tag remove {other:?} None"),
        ]
    );
    assert!(world.is_alive(e) && world.is_alive(other));
    assert_eq!(world.targets::<Likes>(e).collect::<Vec<_>>(), vec![other]);
    world.check_invariants();
}

#[test]
fn events_target_and_propagate_through_wide_entities() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let [station, dock, crane, hook] = wide_hierarchy(&mut world);
    assert!(!is_wide(dock) && !is_wide(hook));
    for e in [station, crane, hook] {
        world.entity_mut(e).observe(move |t: Trigger<Ping>, mut log: ResMut<Log>| {
            log.0.push(format!("ping at {e:?} for {:?}", t.entity()));
        });
    }
    world.add_observer(|t: Trigger<OnDespawn, Name>, mut log: ResMut<Log>| {
        log.0.push(format!("despawn {:?}", t.entity()));
    });
    world.trigger_targets(Ping, hook);
    let mut expected = vec![
        format!("ping at {hook:?} for {hook:?}"),
        format!("ping at {crane:?} for {crane:?}"),
        format!("ping at {station:?} for {station:?}"),
    ];
    expected.sort();
    assert_eq!(take_log(&mut world), expected);
    world.trigger_targets(Ping, crane);
    assert_eq!(take_log(&mut world).len(), 2);
    world.despawn(station);
    let mut expected: Vec<String> = [station, dock, crane, hook].iter().map(|e| format!("despawn {e:?}")).collect();
    expected.sort();
    assert_eq!(take_log(&mut world), expected);
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

// ===== names of ids, ids_of and inspection =================================================

#[test]
fn id_names_ids_of_and_reports_name_wide_entities() {
    let mut world = World::new();
    let likes = world.register_component::<Likes>();
    let eats = world.register_component::<Eats>();
    let named = spawn_wide(&mut world, Name::new("Pizza"));
    let unnamed = spawn_wide(&mut world, ());
    let e = spawn_wide(&mut world, (Name::new("Joe"), Position(1)));
    world.add_pair::<Likes>(e, named);
    world.insert_pair(e, Eats(7), unnamed);
    world.add_id(e, named.id());
    assert_eq!(world.id_name(Id::pair(likes, named)), "(Likes, Pizza)");
    assert_eq!(world.id_name(Id::pair(eats, unnamed)), format!("(Eats, {unnamed:?})"));
    assert_eq!(world.id_name(named.id()), "Pizza");
    assert_eq!(world.id_name(unnamed.id()), format!("{unnamed:?}"));
    assert_eq!(format!("{:?}", named.id()), format!("{named:?}"));
    let ids = world.ids_of(e).unwrap().to_vec();
    for id in [Id::pair(likes, named), Id::pair(eats, unnamed), named.id()] {
        assert!(ids.contains(&id), "{id:?} in {ids:?}");
    }
    let report = world.inspect(e);
    assert_eq!(report.entity, e);
    assert_eq!(report.path.as_deref(), Some("Joe"));
    let pair = report.component("(Likes, Pizza)").expect("(Likes, Pizza) listed");
    assert_eq!(pair.target, Some(named));
    assert_eq!(pair.relationship.as_deref(), Some("Likes"));
    let eaten = report.component(&format!("(Eats, {unnamed:?})")).expect("(Eats, wide) listed");
    assert_eq!(eaten.target, Some(unnamed));
    assert_eq!(eaten.value.as_deref(), Some("Eats(7)"));
    assert!(report.component("Pizza").is_some_and(|c| c.is_tag && c.target.is_none()));
    let text = report.to_string();
    assert!(text.contains(&format!("{e:?}")) && text.contains("(Likes, Pizza)"), "{text}");
    let json = report.to_json();
    assert!(json.contains(&e.to_bits().to_string()) || json.contains(&format!("{e:?}")), "{json}");
    let world_text = world.inspect_world().to_string();
    assert!(world_text.contains("(Likes, Pizza)"), "{world_text}");
    let _ = world.inspect_world().to_json();
    let dot = world.archetype_graph_dot();
    assert!(dot.contains("Pizza"), "{dot}");
    // Once dead, the pair is gone from every view.
    world.despawn(named);
    let report = world.inspect(e);
    assert!(report.component("(Likes, Pizza)").is_none() && report.component("Pizza").is_none());
    assert_eq!(world.ids_of(e).unwrap().len(), ids.len() - 2);
    world.check_invariants();
}

#[test]
fn relationship_traits_of_a_despawned_wide_entity_do_not_reach_its_successor() {
    for range in [WIDE, LOW] {
        let mut world = World::new();
        world.set_entity_range(range.clone());
        let rel = world.spawn_empty().id();
        world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Delete));
        world.despawn(rel);
        let again = world.spawn_empty().id();
        assert_eq!(again.index(), rel.index(), "{range:?}: the index is recycled");
        assert_eq!(
            world.components().relationship_traits(again.index()),
            RelationshipTraits::DEFAULT,
            "{range:?}: the traits were forgotten with the entity"
        );
        world.check_invariants();
    }
}

// ===== cleanup policies with wide targets ====================================================

#[test]
fn cleanup_policies_of_wide_targets() {
    let mut world = World::new();
    let log = DropLog::new();
    let target = spawn_wide(&mut world, Name::new("T"));
    let removed = world.spawn((Likes.pair(target), Eats(1).pair(target), log.table(1))).id();
    let deleted = spawn_wide(&mut world, (Docked.pair(target), log.table(2)));
    let child = world.spawn((ChildOf.pair(deleted), log.table(3))).id();
    let anchored = spawn_wide(&mut world, Anchored.pair(target));
    world.check_invariants();
    // `panic`: refused before anything changes, naming the target.
    let message = panic_message(|| world.despawn(target));
    assert!(message.contains(&format!("{target:?}")), "{message}");
    assert!(world.is_alive(target) && world.is_alive(deleted) && world.is_alive(child));
    assert!(world.has_pair::<Likes>(removed, target));
    world.check_invariants();
    world.entity_mut(anchored).remove_pair::<Anchored>(target);
    assert!(world.despawn(target));
    assert!(world.is_alive(removed) && !world.has_pair::<Likes>(removed, target));
    assert_eq!(world.get_pair::<Eats>(removed, target), None);
    assert!(!world.is_alive(deleted) && !world.is_alive(child));
    log.assert_dropped_once([2, 3]);
    // A pair targeting the dead wide entity cannot be added.
    assert!(matches!(world.try_add_pair::<Likes>(removed, target), Err(PairError::NotAlive(_))));
    world.despawn(removed);
    log.assert_dropped_once([1, 2, 3]);
    world.check_invariants();
}

// ===== runtime queries: variables bound to wide entities and to_dsl round trips =============

#[test]
fn variables_bound_to_wide_entities_in_every_position() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let likes = world.register_component::<Likes>();
    let a = world.spawn((Position(1), Name::new("A"))).id();
    let w1 = spawn_wide(&mut world, (Position(2), Name::new("W1")));
    let w2 = spawn_wide(&mut world, (Name::new("W2"), ChildOf.pair(w1)));
    world.add_pair::<Likes>(a, w1);
    world.add_pair::<Likes>(w1, w2);
    world.add_pair::<Likes>(w2, a);
    world.add_id(a, w2.id());
    let solutions = |world: &World, text: &str, var: &str| -> Vec<(Entity, Entity)> {
        let mut out = Vec::new();
        for cached in [true, false] {
            let mut q = if cached { world.query_dsl(text) } else { world.query_dsl_uncached(text) }
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            let got = catch_unwind(AssertUnwindSafe(|| {
                sorted_pairs(q.iter(world).map(|r| (r.entity(), r.var(var).unwrap())).collect())
            }))
            .unwrap_or_else(|_| panic!("{text} panicked"));
            let mut back = world.query_dsl(&q.to_dsl()).unwrap_or_else(|e| panic!("{}: {e}", q.to_dsl()));
            let again = sorted_pairs(back.iter(world).map(|r| (r.entity(), r.var(var).unwrap())).collect());
            assert_eq!(got, again, "{text} vs {}", q.to_dsl());
            out = got;
        }
        out
    };
    // As a target and then a source.
    assert_eq!(solutions(&world, "(Likes, $x), Position($x)", "x"), vec![(a, w1), (w2, a)]);
    // As a target of `(*, $x)`.
    assert_eq!(solutions(&world, "(Likes, $x), (*, $x)", "x"), sorted_pairs(vec![(a, w1), (w1, w2), (w2, a)]));
    // As a whole term's id (`$x($this)`): `a` holds the plain id w2.
    assert_eq!(solutions(&world, "$y($this), Likes($y, $x)", "y"), vec![(a, w2)]);
    assert_eq!(solutions(&world, "$y($this), Likes($y, $x)", "x"), vec![(a, a)]);
    // As a source with up traversal.
    assert_eq!(solutions(&world, "(Likes, $x), Position($x|up ChildOf)", "x"), vec![(w1, w2)]);
    // As the source of a pair term, and chained.
    assert_eq!(
        solutions(&world, "Likes($this, $x), Likes($x, $y), Likes($y, $this)", "x"),
        sorted_pairs(vec![(a, w1), (w1, w2), (w2, a)])
    );
    // No `$this`: one row per solution.
    let mut q = world.query_dsl("Likes($x, $y), Position($y)").unwrap();
    let mut got: Vec<(Entity, Entity)> = q.iter(&world).map(|r| (r.var("x").unwrap(), r.var("y").unwrap())).collect();
    got.sort();
    assert_eq!(got, sorted_pairs(vec![(a, w1), (w2, a)]));
    // The builder agrees.
    let mut q = world.query_builder().pair_var(likes, "x").read(position).source_var("x").build().unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![a, w2]));
    world.check_invariants();
}

#[test]
fn to_dsl_of_queries_naming_unnamed_wide_entities_parses_back() {
    let mut world = World::new();
    let position = world.register_component::<Position>();
    let likes = world.register_component::<Likes>();
    let child_of = world.register_component::<ChildOf>();
    let wide = spawn_wide(&mut world, Position(1));
    // A recycled wide index: a generation above 0.
    world.set_entity_range(WIDE);
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let recycled = world.spawn(Position(2)).id();
    world.set_entity_range(LOW);
    assert!(recycled.generation() > 0 || recycled.index() != gone.index());
    let holder = world.spawn((Position(3), Likes.pair(wide), Likes.pair(recycled), ChildOf.pair(recycled))).id();
    world.add_id(holder, wide.id());
    let builders = [
        world.query_builder().pair(likes, wide),
        world.query_builder().pair(likes, recycled),
        world.query_builder().pair(Entity::WILDCARD, recycled),
        world.query_builder().with(wide),
        world.query_builder().read(position).source(recycled),
        world.query_builder().read(position).up(child_of),
        world.query_builder().pair(child_of, recycled).read(position).source(wide),
    ];
    for builder in builders {
        let mut q = builder.build().unwrap();
        let text = q.to_dsl();
        let expected: Vec<(Option<Entity>, Entity)> = {
            let mut v: Vec<_> = q.iter(&world).map(|r| (r.var("this"), r.source(0))).collect();
            v.sort();
            v
        };
        assert!(!expected.is_empty(), "{text} matches something");
        let mut back = world.query_dsl(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let named = back.to_dsl();
        let mut again = world.query_dsl(&named).unwrap_or_else(|e| panic!("{named}: {e}"));
        assert_eq!(again.to_dsl(), named);
        let mut got: Vec<_> = again.iter(&world).map(|r| (r.var("this"), r.source(0))).collect();
        got.sort();
        assert_eq!(got, expected, "{named}");
        let mut got: Vec<_> = back.iter(&world).map(|r| (r.var("this"), r.source(0))).collect();
        got.sort();
        assert_eq!(got, expected, "{text}");
    }
    // Explicit `#bits` of a wide entity with a generation.
    let text = format!("(Likes, #{})", recycled.to_bits());
    let mut q = world.query_dsl(&text).unwrap();
    assert_eq!(rows(&world, &mut q), vec![holder]);
    // A stale `#bits` (the dead generation) is an error, not a match on the successor.
    if gone.index() == recycled.index() {
        assert!(world.query_dsl(&format!("(Likes, #{})", gone.to_bits())).is_err());
    }
}

#[test]
fn component_ids_stay_relationship_sized_whatever_the_range_history() {
    type Setup = fn(&mut World);
    let setups: [(&str, Setup); 6] = [
        ("spawn_at 3e9", |w| {
            w.spawn_at(Entity::from_raw(3_000_000_000, 0)).unwrap();
        }),
        ("spawn_at the top", |w| {
            w.spawn_at(Entity::from_raw(u32::MAX - 1, 0)).unwrap();
        }),
        ("a wide range, then the default one", |w| {
            w.set_entity_range(WIDE);
            w.spawn_empty();
            w.set_entity_range(1..u32::MAX);
            w.spawn_empty();
        }),
        ("a low range spent", |w| {
            w.set_entity_range(1..3000);
            for _ in 0..2900 {
                w.spawn_empty();
            }
        }),
        ("the wide range's top taken", |w| {
            w.set_entity_range(u32::MAX - 3..u32::MAX);
            w.spawn_at(Entity::from_raw(u32::MAX - 1, 0)).unwrap();
            w.spawn_empty();
        }),
        ("a remote handle at the top", |w| {
            w.spawn_at(Entity::from_raw(u32::MAX - 1, 0)).unwrap();
            assert_eq!(w.remote_entities().try_reserve(), None);
        }),
    ];
    for (label, setup) in setups {
        let mut world = World::new();
        setup(&mut world);
        let likes = world.register_component::<Likes>();
        let position = world.register_component::<Position>();
        assert!(!is_wide(likes) && !is_wide(position), "{label}: {likes:?} {position:?}");
        let wide = spawn_wide(&mut world, Position(1));
        world.entity_mut(wide).add_pair::<Likes>(wide);
        assert!(world.has_pair::<Likes>(wide, wide), "{label}");
        world.check_invariants();
    }
}

// ===== a whole program under a wide range ===================================================

#[derive(Message)]
struct Hit(Entity);

#[derive(Resource, Default)]
struct Seen(Vec<Entity>);

fn spawner(mut commands: Commands, q: Query<Entity, With<Hp>>) {
    for e in &q {
        let child = commands.spawn((Position(0), ChildOf.pair(e))).id();
        commands.entity(child).add_pair::<Likes>(e);
        commands.entity(e).observe(|t: Trigger<Ping>, mut seen: ResMut<Seen>| seen.0.push(t.entity()));
    }
}

fn hitter(q: Query<(Entity, Up<ChildOf, &Hp>)>, mut out: MessageWriter<Hit>) {
    for (e, _) in &q {
        out.write(Hit(e));
    }
}

fn reader(mut hits: MessageReader<Hit>, mut seen: ResMut<Seen>, rel: Relations<ChildOf>) {
    for hit in hits.read() {
        if let Some(parent) = rel.target(hit.0) {
            seen.0.push(parent);
        }
    }
}

#[test]
fn a_whole_program_runs_under_a_wide_range() {
    let mut world = World::new();
    world.set_entity_range(WIDE);
    world.init_resource::<Seen>();
    world.add_message::<Hit>();
    let roots: Vec<Entity> = (0..3).map(|i| world.spawn((Hp(i), Name::new(format!("root{i}")))).id()).collect();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, hitter, reader).chain());
    schedule.run(&mut world);
    let mut seen = std::mem::take(&mut world.resource_mut::<Seen>().0);
    seen.sort();
    assert_eq!(seen, roots);
    for &r in &roots {
        assert_eq!(world.children(r).count(), 1);
        let child = world.children(r).next().unwrap();
        assert!(is_wide(child) && world.has_pair::<Likes>(child, r));
        world.trigger_targets(Ping, child);
    }
    let mut seen = std::mem::take(&mut world.resource_mut::<Seen>().0);
    seen.sort();
    assert_eq!(seen, roots, "Ping propagates to the observed wide parents");
    let id = world.register_system(|q: Query<&Position, WithPair<ChildOf>>| q.iter().count());
    assert_eq!(world.run_system(id).unwrap(), 3);
    assert_eq!(world.run_system_once(|q: Query<(), WithPair<Likes>>| q.iter().count()), 3);
    let mut q = world.query_dsl("Position, (Likes, $p), Hp($p), (ChildOf, $p)").unwrap();
    assert_eq!(q.iter(&world).count(), 3);
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    world.check_invariants();
}

// ===== a random model mixing low and wide entities ==========================================

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick(&mut self, v: &[Entity]) -> Option<Entity> {
        (!v.is_empty()).then(|| v[self.below(v.len())])
    }
}

#[derive(Default, Clone, Debug)]
struct Model {
    likes: std::collections::BTreeSet<Entity>,
    eats: std::collections::BTreeMap<Entity, u32>,
    tags: std::collections::BTreeSet<Entity>,
    parent: Option<Entity>,
    movement: Option<Entity>,
    runtime: std::collections::BTreeSet<(Entity, Entity)>,
    value: Option<u32>,
}

struct Sim {
    world: World,
    model: std::collections::BTreeMap<Entity, Model>,
    log: DropLog,
    next_value: u32,
    made: Vec<u32>,
}

impl Sim {
    fn alive(&self) -> Vec<Entity> {
        self.model.keys().copied().collect()
    }

    /// Despawns `e` in the model: ChildOf children recursively, and every
    /// pair, tag or runtime pair naming it.
    fn model_despawn(&mut self, e: Entity) {
        let Some(gone) = self.model.remove(&e) else { return };
        let _ = gone;
        let children: Vec<Entity> = self.model.iter().filter(|(_, m)| m.parent == Some(e)).map(|(&c, _)| c).collect();
        for c in children {
            self.model_despawn(c);
        }
        for m in self.model.values_mut() {
            m.likes.remove(&e);
            m.eats.remove(&e);
            m.tags.remove(&e);
            if m.movement == Some(e) {
                m.movement = None;
            }
            m.runtime.retain(|&(r, t)| r != e && t != e);
        }
    }

    fn is_ancestor(&self, a: Entity, mut of: Entity) -> bool {
        loop {
            if of == a {
                return true;
            }
            match self.model.get(&of).and_then(|m| m.parent) {
                Some(p) => of = p,
                None => return false,
            }
        }
    }

    fn step(&mut self, rng: &mut Rng, rels: &[Entity]) {
        let alive = self.alive();
        match rng.below(12) {
            0 | 1 => {
                let range = if rng.below(2) == 0 { WIDE } else { LOW };
                self.world.set_entity_range(range);
                let e = if rng.below(2) == 0 {
                    self.next_value += 1;
                    self.made.push(self.next_value);
                    let mut m = Model { value: Some(self.next_value), ..Model::default() };
                    let e = self.world.spawn((Position(1), self.log.table(self.next_value))).id();
                    if let Some(t) = rng.pick(&alive) {
                        self.world.entity_mut(e).add_pair::<Likes>(t);
                        m.likes.insert(t);
                    }
                    self.model.insert(e, m);
                    e
                } else {
                    let e = self.world.spawn_empty().id();
                    self.model.insert(e, Model::default());
                    e
                };
                assert!(self.world.is_alive(e));
            }
            2 => {
                if let Some(e) = rng.pick(&alive) {
                    assert!(self.world.despawn(e));
                    self.model_despawn(e);
                }
            }
            3 => {
                if let (Some(s), Some(t)) = (rng.pick(&alive), rng.pick(&alive)) {
                    self.world.add_pair::<Likes>(s, t);
                    self.model.get_mut(&s).unwrap().likes.insert(t);
                }
            }
            4 => {
                if let Some(s) = rng.pick(&alive) {
                    let likes: Vec<Entity> = self.model[&s].likes.iter().copied().collect();
                    if let Some(t) = rng.pick(&likes) {
                        assert!(self.world.remove_pair::<Likes>(s, t));
                        self.model.get_mut(&s).unwrap().likes.remove(&t);
                    }
                }
            }
            5 => {
                if let (Some(s), Some(t)) = (rng.pick(&alive), rng.pick(&alive)) {
                    let v = rng.below(100) as u32;
                    self.world.insert_pair(s, Eats(v), t);
                    self.model.get_mut(&s).unwrap().eats.insert(t, v);
                }
            }
            6 => {
                if let (Some(c), Some(p)) = (rng.pick(&alive), rng.pick(&alive)) {
                    let result = self.world.try_add_pair::<ChildOf>(c, p);
                    if self.is_ancestor(c, p) {
                        assert!(result.is_err(), "{c:?} under its descendant {p:?}");
                    } else {
                        result.unwrap();
                        self.model.get_mut(&c).unwrap().parent = Some(p);
                    }
                }
            }
            7 => {
                if let (Some(s), Some(t)) = (rng.pick(&alive), rng.pick(&alive)) {
                    assert!(self.world.add_id(s, t.id()));
                    self.model.get_mut(&s).unwrap().tags.insert(t);
                }
            }
            8 => {
                if let (Some(s), Some(t)) = (rng.pick(&alive), rng.pick(&alive)) {
                    self.world.add_pair::<Movement>(s, t);
                    self.model.get_mut(&s).unwrap().movement = Some(t);
                }
            }
            9 => {
                if let (Some(s), Some(t), Some(&r)) =
                    (rng.pick(&alive), rng.pick(&alive), rels.get(rng.below(rels.len())))
                    && self.world.is_alive(r)
                {
                    if is_wide(r) {
                        // Refused (a panic, or `false`); nothing changes.
                        let before = self.world.ids_of(s).unwrap().to_vec();
                        let added = catch_unwind(AssertUnwindSafe(|| self.world.add_pair_id(s, r, t)));
                        assert!(!matches!(added, Ok(true)), "a wide relationship was accepted");
                        assert_eq!(self.world.ids_of(s).unwrap(), &before[..]);
                    } else {
                        assert!(self.world.add_pair_id(s, r, t));
                        let m = self.model.get_mut(&s).unwrap();
                        if self.world.components().relationship_traits(r.index()).exclusive {
                            m.runtime.retain(|&(x, _)| x != r);
                        }
                        m.runtime.insert((r, t));
                    }
                }
            }
            10 => {
                if let Some(e) = rng.pick(&alive) {
                    self.next_value += 1;
                    self.made.push(self.next_value);
                    self.world.insert(e, self.log.table(self.next_value));
                    self.model.get_mut(&e).unwrap().value = Some(self.next_value);
                }
            }
            _ => {
                if let Some(e) = rng.pick(&alive) {
                    let had = self.world.remove::<DropTable>(e).map(|v| v.id);
                    assert_eq!(had, self.model.get_mut(&e).unwrap().value.take());
                }
            }
        }
    }

    /// Compares world and model; `extra` alive entities are not modelled.
    /// `check_invariants` (slow in debug builds) runs when `invariants`.
    fn check(&mut self, seed: u64, step: usize, extra: usize, invariants: bool) {
        let at = format!("seed {seed} step {step}");
        if invariants {
            self.world.check_invariants();
        }
        let world = &self.world;
        assert_eq!(world.entity_count(), self.model.len() + extra, "{at}");
        for (&e, m) in &self.model {
            assert!(world.is_alive(e), "{at}: {e:?}");
            let likes: std::collections::BTreeSet<Entity> = world.targets::<Likes>(e).collect();
            assert_eq!(likes, m.likes, "{at}: likes of {e:?}");
            for (&t, &v) in &m.eats {
                assert_eq!(world.get_pair::<Eats>(e, t), Some(&Eats(v)), "{at}: eats {e:?} {t:?}");
            }
            assert_eq!(world.targets::<Eats>(e).count(), m.eats.len(), "{at}");
            assert_eq!(world.parent(e), m.parent, "{at}: parent of {e:?}");
            assert_eq!(world.target::<Movement>(e), m.movement, "{at}: movement of {e:?}");
            for &t in &m.tags {
                assert!(world.has_id(e, t.id()), "{at}: tag {t:?} on {e:?}");
            }
            for &(r, t) in &m.runtime {
                assert!(world.has_pair_id(e, r, t), "{at}: ({r:?}, {t:?}) on {e:?}");
            }
            assert_eq!(world.get::<DropTable>(e).map(|v| v.id), m.value, "{at}");
        }
        // Runtime queries agree with the model: `(Likes, *)` and `(*, t)`
        // (one row per matching pair).
        let mut q = world.query_dsl_uncached("(Likes, *)").unwrap();
        let expected: Vec<Entity> =
            self.model.iter().flat_map(|(&e, m)| std::iter::repeat_n(e, m.likes.len())).collect();
        assert_eq!(rows(world, &mut q), expected, "{at}: (Likes, *)");
        if let Some((&t, _)) = self.model.iter().nth(step % self.model.len().max(1)) {
            let mut q = world.query_builder().pair(Entity::WILDCARD, t).build_uncached().unwrap();
            let expected: Vec<Entity> = self
                .model
                .iter()
                .flat_map(|(&e, m)| {
                    let n = usize::from(m.likes.contains(&t))
                        + usize::from(m.eats.contains_key(&t))
                        + usize::from(m.parent == Some(t))
                        + usize::from(m.movement == Some(t))
                        + m.runtime.iter().filter(|&&(_, x)| x == t).count();
                    std::iter::repeat_n(e, n)
                })
                .collect();
            assert_eq!(rows(world, &mut q), expected, "{at}: (*, {t:?})");
            let mut q = world.query_dsl_uncached(&format!("(Likes, #{}), Position", t.to_bits())).unwrap();
            let expected: Vec<Entity> = self
                .model
                .iter()
                .filter(|(e, m)| m.likes.contains(&t) && world.has::<Position>(**e))
                .map(|(&e, _)| e)
                .collect();
            assert_eq!(rows(world, &mut q), expected, "{at}: (Likes, {t:?}), Position");
        }
        // Typed `Pair<Likes>`: one row per pair.
        let mut q = self.world.query::<(Entity, Pair<Likes>)>();
        let rows_typed = q.iter(&self.world).count();
        assert_eq!(rows_typed, self.model.values().map(|m| m.likes.len()).sum::<usize>(), "{at}");
    }
}

#[test]
fn random_churn_of_low_and_wide_entities_matches_a_model() {
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut sim = Sim {
            world: World::new(),
            model: Default::default(),
            log: DropLog::new(),
            next_value: 0,
            made: Vec::new(),
        };
        sim.world.register_component::<Likes>();
        sim.world.register_component::<Position>();
        // Runtime relationships: two low, one wide (refused), kept alive.
        sim.world.set_entity_range(LOW);
        let low_a = sim.world.spawn_empty().id();
        let low_b = sim.world.spawn_empty().id();
        sim.world.set_relationship_traits(low_b, RelationshipTraits::DEFAULT.exclusive());
        let wide_rel = spawn_wide(&mut sim.world, ());
        let rels = [low_a, low_b, wide_rel];
        // They are entities the model does not track (never picked).
        for step in 0..150 {
            sim.step(&mut rng, &rels);
            // Every step's invariants for the first seeds, every 8th after.
            sim.check(seed, step, rels.len(), seed <= 5 || step % 8 == 0);
        }
        sim.world.clear_entities();
        sim.log.assert_dropped_once(sim.made.clone());
        sim.world.check_invariants();
    }
}

// ===== dead, stale and never-allocated wide handles; wildcard forms ========================

#[test]
fn never_allocated_and_stale_wide_handles_are_dead_everywhere() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(Position(1)).id();
    let never = Entity::from_raw(u32::MAX - 1, 0);
    let wide = spawn_wide(&mut world, Name::new("W"));
    world.despawn(wide);
    let stale = wide;
    for dead in [never, stale, Entity::from_raw(stale.index(), stale.generation() + 1)] {
        assert!(!world.is_alive(dead));
        assert!(world.get_entity(dead).is_none());
        assert!(world.try_inspect(dead).is_none());
        assert!(!world.despawn(dead));
        assert!(!world.insert(dead, Position(2)));
        assert_eq!(world.remove::<Position>(dead), None);
        assert_eq!(world.path(dead), None);
        assert_eq!(world.children(dead).count(), 0);
        assert_eq!(world.lookup_child(dead, "x"), None);
        assert_eq!(world.sources::<Likes>(dead).count(), 0);
        assert!(!world.has_pair::<Likes>(e, dead));
        assert!(matches!(world.try_add_pair::<Likes>(e, dead), Err(PairError::NotAlive(d)) if d == dead));
        assert!(matches!(world.try_add_id(e, dead.id()), Err(PairError::NotAlive(_))));
        let likes = world.register_component::<Likes>();
        assert!(!world.add_id(dead, Id::pair(likes, e)));
        assert!(!world.has_id(e, dead.id()));
        assert!(!world.remove_id(e, dead.id()));
        world.trigger_targets(Ping, dead);
        let mut queue = ecs::system::CommandQueue::default();
        let mut commands = Commands::new(&mut queue, &world);
        commands.entity(dead).insert(Position(3));
        commands.entity(dead).despawn();
        let _ = panics(|| queue.apply(&mut world));
        assert!(!world.is_alive(dead));
        assert_eq!(world.entity_at(dead.index()), None);
    }
    assert_eq!(world.entity_at(u32::MAX), None);
    assert_eq!(world.entity_count(), 1);
    world.check_invariants();
}

#[test]
fn wildcard_forms_with_wide_targets() {
    let mut world = World::new();
    let likes = world.register_component::<Likes>();
    let t = spawn_wide(&mut world, Name::new("T"));
    let u = spawn_wide(&mut world, Name::new("U"));
    let a = world.spawn((Likes.pair(t), Likes.pair(u), Eats(1).pair(t), Position(1))).id();
    let b = spawn_wide(&mut world, (Likes.pair(t), Position(2)));
    assert!(world.has_id(a, Id::pair(Entity::WILDCARD, t)));
    assert!(world.has_id(b, Id::pair(likes, Entity::WILDCARD)));
    assert_eq!(sorted(world.sources::<Likes>(t).collect()), sorted(vec![a, b]));
    let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(t);
    assert_eq!(sorted(q.iter(&world).map(|(e, _)| e).collect()), sorted(vec![a, b]));
    let mut q = world.query::<(Entity, &Position)>().with_pair::<Likes>(u);
    assert_eq!(q.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![a]);
    let mut q = world.query_dsl("(*, T)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![a, a, b]));
    let mut q = world.query_dsl("(_, T)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![a, b]));
    // Removing `(*, t)` removes every pair to the wide target.
    assert!(world.remove_id(a, Id::pair(Entity::WILDCARD, t)));
    assert!(!world.has_pair::<Likes>(a, t) && world.get_pair::<Eats>(a, t).is_none());
    assert!(world.has_pair::<Likes>(a, u));
    assert!(world.remove_id(a, Id::pair(likes, Entity::WILDCARD)));
    assert_eq!(world.targets::<Likes>(a).count(), 0);
    world.entity_mut(b).remove_pair::<Likes>(Entity::WILDCARD);
    assert_eq!(world.sources::<Likes>(t).count(), 0);
    world.check_invariants();
}

#[test]
fn cascade_orders_wide_hierarchies_by_depth() {
    let mut world = World::new();
    let [station, dock, crane, hook] = wide_hierarchy(&mut world);
    let mut q = world.query::<Entity>().cascade::<ChildOf>();
    let order: Vec<Entity> = q.iter(&world).filter(|e| [station, dock, crane, hook].contains(e)).collect();
    assert_eq!(order, vec![station, dock, crane, hook]);
}

#[test]
fn runtime_acyclic_relationships_and_ancestor_instances_with_wide_entities() {
    let mut world = World::new();
    let rel = world.spawn(Name::new("Rel")).id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.acyclic().traversable());
    let a = spawn_wide(&mut world, Position(1));
    let b = world.spawn_empty().id();
    let c = spawn_wide(&mut world, ());
    world.add_pair_id(b, rel, a);
    world.add_pair_id(c, rel, b);
    let error = world.try_add_id(a, Id::pair(rel, c)).unwrap_err();
    assert!(matches!(error, PairError::Cycle { source, target, .. } if source == a && target == c), "{error:?}");
    assert!(!world.has_pair_id(a, rel, c));
    let mut q = world.query_dsl("Position(up Rel)").unwrap();
    assert_eq!(rows(&world, &mut q), sorted(vec![b, c]));
    // An entity cannot become an instance of its own wide ancestor.
    let root = spawn_wide(&mut world, (Prefab, Position(2)));
    let mid = world.spawn((Prefab, ChildOf.pair(root))).id();
    let leaf = spawn_wide(&mut world, ChildOf.pair(mid));
    let error = world.try_add_pair::<IsA>(leaf, root).unwrap_err();
    assert!(matches!(error, PairError::AncestorInstance { .. }), "{error:?}");
    assert!(!world.has_pair::<IsA>(leaf, root));
    world.check_invariants();
}
