//! Value pairs of an `inherit` relationship (the default policy) are read
//! from prefabs through `IsA`, as `inherit` components are: `get_pair`,
//! `has_pair`, `has_id`, typed `Pair<R>`/`Pair<&R>`/`WithPair<R>` terms and
//! runtime `(R, t)`/`(R, *)`/`(R, $x)` terms see the prefab's value on an
//! instance that does not own the pair; `owns_pair` and `Pair<&mut R>` see
//! only the instance's own pairs; a query that may match prefabs and writes
//! such pairs is refused. Tag pairs and `override` pairs are copied into each
//! instance instead, `dont_inherit` ones are neither. Values are
//! drop-counted: each is dropped exactly once.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::entity::Id;
use ecs::prelude::*;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

fn live() -> i64 {
    LIVE.with(Cell::get)
}

/// An `inherit` relationship carrying a drop-counted value.
#[derive(Relationship, Debug, PartialEq)]
struct Eats(u32, Counted);

fn eats(amount: u32) -> Eats {
    Eats(amount, Counted::new())
}

#[derive(Debug, PartialEq)]
struct Counted;

impl Counted {
    fn new() -> Counted {
        LIVE.with(|live| live.set(live.get() + 1));
        Counted
    }
}

impl Clone for Counted {
    fn clone(&self) -> Counted {
        Counted::new()
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.with(|live| live.set(live.get() - 1));
    }
}

/// An `override` relationship: copied into each instance.
#[derive(Relationship, Debug, PartialEq, Clone)]
#[component(on_instantiate = "override")]
struct Owes(u32, Counted);

/// A `dont_inherit` relationship: neither copied nor inherited.
#[derive(Relationship, Debug, PartialEq)]
#[component(on_instantiate = "dont_inherit")]
struct Secret(u32);

/// An exclusive `inherit` relationship with a value.
#[derive(Relationship, Debug, PartialEq)]
#[relationship(exclusive)]
struct DockedAt(u32);

/// A tag relationship: copied into each instance.
#[derive(Relationship)]
struct Likes;

fn amount(value: Option<&Eats>) -> Option<u32> {
    value.map(|e| e.0)
}

fn setup() -> (World, Entity, Entity, Entity) {
    let mut world = World::new();
    let apples = world.spawn(Name::new("apples")).id();
    let prefab = world.spawn(Prefab).id();
    world.insert_pair(prefab, eats(3), apples);
    let instance = world.instantiate(prefab);
    (world, apples, prefab, instance)
}

/// The instance reads the prefab's value: the same value, not a copy.
#[test]
fn instance_reads_the_prefabs_value_pair() {
    let (mut world, apples, prefab, instance) = setup();
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(3));
    assert!(std::ptr::eq(
        world.get_pair::<Eats>(instance, apples).unwrap(),
        world.get_pair::<Eats>(prefab, apples).unwrap()
    ));
    assert!(world.has_pair::<Eats>(instance, apples));
    assert!(!world.owns_pair::<Eats>(instance, apples));
    let id = Id::pair(world.component_id::<Eats>().unwrap(), apples);
    assert!(world.has_id(instance, id));
    assert_eq!(live(), 1);
    // A change of the prefab's value is seen at once.
    world.get_pair_mut::<Eats>(prefab, apples).unwrap().0 = 7;
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(7));
    drop(world);
    assert_eq!(live(), 0);
}

/// An inherited pair is never handed out mutably; the instance's own pair overrides it.
#[test]
fn own_pair_overrides_and_removing_it_uncovers_the_prefabs() {
    let (mut world, apples, _prefab, instance) = setup();
    assert!(world.get_pair_mut::<Eats>(instance, apples).is_none());
    world.insert_pair(instance, eats(10), apples);
    assert!(world.owns_pair::<Eats>(instance, apples));
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(10));
    world.get_pair_mut::<Eats>(instance, apples).unwrap().0 = 11;
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(11));
    assert_eq!(live(), 2);
    assert!(world.remove_pair::<Eats>(instance, apples));
    assert_eq!(live(), 1);
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(3));
    assert!(world.has_pair::<Eats>(instance, apples));
    // Removing what it only inherits changes nothing.
    assert!(!world.remove_pair::<Eats>(instance, apples));
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(3));
    drop(world);
    assert_eq!(live(), 0);
}

/// A pair added to or removed from the prefab later reaches its instances.
#[test]
fn later_changes_of_the_prefab_reach_instances() {
    let (mut world, apples, prefab, instance) = setup();
    let pears = world.spawn_empty().id();
    world.insert_pair(prefab, eats(5), pears);
    assert_eq!(amount(world.get_pair::<Eats>(instance, pears)), Some(5));
    assert!(world.remove_pair::<Eats>(prefab, apples));
    assert!(world.get_pair::<Eats>(instance, apples).is_none());
    assert!(!world.has_pair::<Eats>(instance, apples));
    assert_eq!(live(), 1);
    drop(world);
    assert_eq!(live(), 0);
}

/// Through a chain of prefabs; a nearer prefab's value wins.
#[test]
fn chain_of_prefabs_nearest_wins() {
    let mut world = World::new();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let root = world.spawn(Prefab).id();
    world.insert_pair(root, eats(1), apples);
    world.insert_pair(root, eats(2), pears);
    let middle = world.spawn((Prefab, IsA.pair(root))).id();
    world.insert_pair(middle, eats(20), pears);
    let leaf = world.spawn((Prefab, IsA.pair(middle))).id();
    let instance = world.instantiate(leaf);
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(1));
    assert_eq!(amount(world.get_pair::<Eats>(instance, pears)), Some(20));
    assert_eq!(live(), 3);
    drop(world);
    assert_eq!(live(), 0);
}

/// Only prefab bases pass values on (as for components).
#[test]
fn plain_base_passes_no_pair() {
    let mut world = World::new();
    let apples = world.spawn_empty().id();
    let base = world.spawn_empty().id();
    world.insert_pair(base, eats(3), apples);
    let instance = world.spawn(IsA.pair(base)).id();
    assert!(world.get_pair::<Eats>(instance, apples).is_none());
    assert!(!world.has_pair::<Eats>(instance, apples));
}

/// `override` pairs are copied; `dont_inherit` ones are neither copied nor inherited; tags are copied.
#[test]
fn other_policies_are_unchanged() {
    let mut world = World::new();
    let target = world.spawn_empty().id();
    let prefab = world.spawn(Prefab).id();
    world.insert_pair(prefab, Owes(4, Counted::new()), target);
    world.insert_pair(prefab, Secret(9), target);
    world.add_pair::<Likes>(prefab, target);
    let instance = world.instantiate(prefab);
    assert!(world.owns_pair::<Owes>(instance, target));
    assert_eq!(world.get_pair::<Owes>(instance, target).map(|o| o.0), Some(4));
    assert!(!std::ptr::eq(
        world.get_pair::<Owes>(instance, target).unwrap(),
        world.get_pair::<Owes>(prefab, target).unwrap()
    ));
    assert!(!world.has_pair::<Secret>(instance, target));
    assert!(world.get_pair::<Secret>(instance, target).is_none());
    assert!(world.owns_pair::<Likes>(instance, target));
    assert_eq!(live(), 2);
    drop(world);
    assert_eq!(live(), 0);
}

/// When the target dies, the prefab's pair goes (cleanup) and instances no longer see it.
#[test]
fn target_cleanup_reaches_instances() {
    let (mut world, apples, _prefab, instance) = setup();
    assert!(world.despawn(apples));
    assert_eq!(live(), 0);
    let id = Id::pair(world.component_id::<Eats>().unwrap(), apples);
    assert!(!world.has_id(instance, id));
    let mut query = world.query::<Pair<&Eats>>();
    assert_eq!(query.iter(&world).count(), 0);
}

/// Despawning the prefab: instances lose the pair; every value dropped once.
#[test]
fn prefab_despawn_drops_once() {
    let (mut world, apples, prefab, instance) = setup();
    assert!(world.despawn(prefab));
    assert!(world.get_pair::<Eats>(instance, apples).is_none());
    assert_eq!(live(), 0);
}

/// Typed terms: `Pair<R>`, `Pair<&R>` and `WithPair<R>` see the inherited pair, `Pair<&mut R>` does not.
#[test]
fn typed_queries_match_inherited_pairs() {
    let (mut world, apples, prefab, instance) = setup();
    let mut targets = world.query::<(Entity, Pair<Eats>)>();
    assert_eq!(targets.iter(&world).collect::<Vec<_>>(), [(instance, apples)]);
    let mut values = world.query::<(Entity, Pair<&Eats>)>();
    let rows: Vec<(Entity, Entity, u32)> = values.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    assert_eq!(rows, [(instance, apples, 3)]);
    let mut with = world.query_filtered::<Entity, WithPair<Eats>>();
    assert_eq!(with.iter(&world).collect::<Vec<_>>(), [instance]);
    let mut writes = world.query::<(Entity, Pair<&mut Eats>)>();
    assert_eq!(writes.iter_mut(&mut world).count(), 0);
    // With its own pair to another target too: one row per pair, own first.
    let pears = world.spawn_empty().id();
    world.insert_pair(instance, eats(8), pears);
    let rows: Vec<(Entity, Entity, u32)> = values.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    assert_eq!(rows, [(instance, pears, 8), (instance, apples, 3)]);
    let rows: Vec<(Entity, Entity)> = writes.iter_mut(&mut world).map(|(e, (t, _))| (e, t)).collect();
    assert_eq!(rows, [(instance, pears)]);
    // Naming `Prefab`, the prefab's own row is there too.
    let mut with_prefabs = world.query_filtered::<(Entity, Pair<&Eats>), With<Prefab>>();
    assert_eq!(with_prefabs.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [prefab]);
    drop(world);
    assert_eq!(live(), 0);
}

/// Many instances in one table all read the one prefab value.
#[test]
fn many_instances_share_the_value() {
    let (mut world, apples, prefab, first) = setup();
    let mut instances = vec![first];
    for _ in 0..99 {
        instances.push(world.instantiate(prefab));
    }
    let mut values = world.query::<(Entity, Pair<&Eats>)>();
    let base = world.get_pair::<Eats>(prefab, apples).unwrap() as *const Eats;
    let mut seen: Vec<Entity> = Vec::new();
    for (entity, (target, value)) in values.iter(&world) {
        assert_eq!(target, apples);
        assert!(std::ptr::eq(value, base));
        seen.push(entity);
    }
    seen.sort();
    instances.sort();
    assert_eq!(seen, instances);
    assert_eq!(live(), 1);
}

/// A query naming `Prefab` that writes pairs of an inheriting relationship is refused.
#[test]
fn prefab_query_writing_inherited_pairs_is_refused() {
    let mut world = World::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.query_filtered::<Pair<&mut Eats>, With<Prefab>>();
    }));
    let message = result.expect_err("refused").downcast::<String>().map(|s| *s).unwrap_or_default();
    assert!(message.contains("Eats") && message.contains("prefabs"), "{message}");
    // An `override` relationship's pairs are copied: writing them on prefabs is fine.
    world.query_filtered::<Pair<&mut Owes>, With<Prefab>>();
}

/// Runtime terms: `(Eats, apples)`, `(Eats, *)`, `(Eats, $x)` and `(Eats, _)` match the instance.
#[test]
fn runtime_queries_match_inherited_pairs() {
    let (mut world, apples, _prefab, instance) = setup();
    let rows = |world: &World, dsl: &str| -> Vec<(Entity, Entity)> {
        let mut query = world.query_dsl(dsl).unwrap();
        query.iter(world).map(|row| (row.entity(), row.pair_target(0))).collect()
    };
    assert_eq!(rows(&world, "(Eats, apples)"), [(instance, apples)]);
    assert_eq!(rows(&world, "(Eats, *)"), [(instance, apples)]);
    assert_eq!(rows(&world, "(Eats, _)"), [(instance, apples)]);
    let mut query = world.query_dsl("(Eats, $food)").unwrap();
    let found: Vec<(Entity, Option<Entity>)> = query.iter(&world).map(|row| (row.entity(), row.var("food"))).collect();
    assert_eq!(found, [(instance, Some(apples))]);
    // The value and its source: the prefab.
    let eats_id = world.component_id::<Eats>().unwrap();
    let mut query = world.query_builder().pair(eats_id, apples).build().unwrap();
    let prefab = world.query_filtered::<Entity, With<Prefab>>().iter(&world).next().unwrap();
    let read: Vec<(Entity, Option<u32>, Entity)> =
        query.iter(&world).map(|row| (row.entity(), row.get::<Eats>(0).map(|e| e.0), row.source(0))).collect();
    assert_eq!(read, [(instance, Some(3), prefab)]);
    // Not owned: an `owned`-only term (`self`) does not match.
    assert!(rows(&world, "Eats(self, apples)").is_empty());
    // Writing the pair on the instance is never through the base.
    let mut writer = world.query_builder().pair(eats_id, apples).access(ecs::query::TermAccess::InOut).build().unwrap();
    let mut written = 0;
    writer.iter_mut(&mut world).for_each(|_| written += 1);
    assert_eq!(written, 0);
}

/// An observer of the pair hears the instance gain it through `IsA`.
#[test]
fn observers_hear_inherited_pair_gain() {
    let mut world = World::new();
    let apples = world.spawn_empty().id();
    let prefab = world.spawn(Prefab).id();
    world.insert_pair(prefab, eats(3), apples);
    world.init_resource::<Heard>();
    world.add_observer(|trigger: Trigger<OnAdd, Pair<Eats>>, mut heard: ResMut<Heard>| {
        heard.0.push(trigger.entity());
    });
    world.add_observer(|trigger: Trigger<OnRemove, Pair<Eats>>, mut heard: ResMut<Lost>| {
        heard.0.push((trigger.entity(), trigger.pair_target()));
    });
    world.init_resource::<Lost>();
    let instance = world.instantiate(prefab);
    assert_eq!(world.resource::<Heard>().0, [instance]);
    // The prefab loses the pair: the instance hears the loss too (the prefab
    // itself is a template, unheard).
    assert!(world.remove_pair::<Eats>(prefab, apples));
    assert_eq!(world.resource::<Lost>().0, [(instance, Some(apples))]);
}

#[derive(Resource, Default)]
struct Lost(Vec<(Entity, Option<Entity>)>);

#[derive(Resource, Default)]
struct Heard(Vec<Entity>);

/// An exclusive relationship gives one target: the instance's own pair hides
/// the prefab's (every view agrees), and removing it uncovers the prefab's.
#[test]
fn exclusive_own_pair_hides_the_inherited_one() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn(Prefab).id();
    world.insert_pair(prefab, DockedAt(1), b);
    let instance = world.instantiate(prefab);
    assert_eq!(world.get_pair::<DockedAt>(instance, b), Some(&DockedAt(1)));
    world.insert_pair(instance, DockedAt(2), a);
    assert_eq!(world.get_pair::<DockedAt>(instance, b), None);
    assert!(!world.has_pair::<DockedAt>(instance, b));
    let mut typed = world.query::<(Entity, Pair<DockedAt>)>();
    assert_eq!(typed.iter(&world).collect::<Vec<_>>(), [(instance, a)]);
    let mut runtime = world.query_dsl("(DockedAt, *)").unwrap();
    assert_eq!(runtime.iter(&world).map(|row| row.pair_target(0)).collect::<Vec<_>>(), [a]);
    assert!(world.remove_pair::<DockedAt>(instance, a));
    assert_eq!(world.get_pair::<DockedAt>(instance, b), Some(&DockedAt(1)));
    assert_eq!(typed.iter(&world).collect::<Vec<_>>(), [(instance, b)]);
}

/// Two prefab bases with different targets of an exclusive relationship: the
/// first added base wins (one target).
#[test]
fn exclusive_pairs_of_two_bases_first_added_wins() {
    let mut world = World::new();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    let first = world.spawn(Prefab).id();
    world.insert_pair(first, DockedAt(1), a);
    let second = world.spawn(Prefab).id();
    world.insert_pair(second, DockedAt(2), b);
    let instance = world.spawn((IsA.pair(second), IsA.pair(first))).id();
    let mut typed = world.query::<(Entity, Pair<&DockedAt>)>();
    let rows: Vec<(Entity, Entity, u32)> = typed.iter(&world).map(|(e, (t, v))| (e, t, v.0)).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (_, target, value) = rows[0];
    assert_eq!(world.get_pair::<DockedAt>(instance, target).map(|d| d.0), Some(value));
    let other = if target == a { b } else { a };
    assert_eq!(world.get_pair::<DockedAt>(instance, other), None);
    // The base added first gives it.
    assert_eq!((target, value), (b, 2));
}

/// An instance owning one pair of a non-exclusive relationship still reads
/// the prefab's other pairs, in every view.
#[test]
fn own_pair_beside_inherited_ones() {
    let (mut world, apples, _prefab, instance) = setup();
    let pears = world.spawn_empty().id();
    world.insert_pair(instance, eats(8), pears);
    let mut runtime = world.query_dsl("(Eats, $food)").unwrap();
    let mut found: Vec<Entity> = runtime.iter(&world).filter_map(|row| row.var("food")).collect();
    found.sort();
    let mut expected = vec![apples, pears];
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(amount(world.get_pair::<Eats>(instance, apples)), Some(3));
    assert_eq!(amount(world.get_pair::<Eats>(instance, pears)), Some(8));
    drop(runtime);
    drop(world);
    assert_eq!(live(), 0);
}
