//! Review session 2: adversarial tests for the commits b7b88ee..6b0c4a1
//! (union pairs and sparse overrides copied into instances, the `on_delete =
//! "panic"` refusal, `Commands::run_system` skipping, escaped paths,
//! `Commands::spawn` name clashes, dead plain ids, 31-bit relationship
//! indices, user events reaching component observers).
//!
//! Its findings, all fixed: a hook that panicked in a `Commands::spawn` left the
//! spawn's name-clash flag set, and a commands spawn applied inside another
//! reset it; `clear_entities` stopped halfway at a `panic`-policy entity; a
//! runtime query on a stale plain id reached the live entity of its index; a
//! user event missed observers of sparse and inherited components and
//! entity observers of components; sparse overrides a base inherits were not
//! copied; an instance despawned by a hook left an orphan copy of a prefab
//! child. Deliberate: a user event reaches an observer of `(R, *)` once per
//! target, not once per pair.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::entity::Id;
use ecs::prelude::*;
use ecs::world::{CommandQueue, PairError};

// ----------------------------------------------------------------- types

#[derive(Relationship)]
#[relationship(union)]
struct Kind;

#[derive(Relationship)]
struct Likes;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Marker;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Other;

#[derive(Resource, Default)]
struct Log(Vec<(&'static str, Entity)>);

#[derive(Event)]
struct Ping;

#[derive(Event)]
#[event(propagate = ChildOf)]
struct Bubble;

fn quiet<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

// ------------------------------------------------------- (1) union pairs

#[test]
fn union_pair_targeting_the_prefab_itself_is_copied() {
    let mut world = World::new();
    let prefab = world.spawn(Prefab).id();
    world.entity_mut(prefab).add_pair::<Kind>(prefab);
    let inst = world.instantiate(prefab);
    assert!(world.has_pair::<Kind>(inst, prefab));
    assert_eq!(world.target::<Kind>(inst), Some(prefab));
    world.check_invariants();
    // Deleting the prefab removes (Kind, prefab) from the instance, too.
    world.despawn(prefab);
    assert!(world.is_alive(inst));
    assert_eq!(world.target::<Kind>(inst), None);
    world.check_invariants();
}

#[test]
fn union_pair_given_in_the_same_spawn_wins_over_the_copy() {
    let mut world = World::new();
    let (walk, run) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn((Prefab, Kind.pair(walk))).id();
    let a = world.spawn((IsA.pair(prefab), Kind.pair(run))).id();
    assert_eq!(world.target::<Kind>(a), Some(run));
    let b = world.spawn((Kind.pair(run), IsA.pair(prefab))).id();
    assert_eq!(world.target::<Kind>(b), Some(run));
    world.check_invariants();
}

#[test]
fn union_pair_copy_runs_on_add_observers_of_the_pair() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let walk = world.spawn_empty().id();
    let prefab = world.spawn((Prefab, Kind.pair(walk))).id();
    world.add_observer(|t: Trigger<OnAdd, Pair<Kind>>, mut log: ResMut<Log>| {
        log.0.push(("add", t.entity()));
        assert!(t.pair_target().is_some());
    });
    let inst = world.instantiate(prefab);
    assert_eq!(world.resource::<Log>().0, vec![("add", inst)]);
}

#[test]
fn union_target_despawned_after_instantiation_leaves_both_consistent() {
    let mut world = World::new();
    let walk = world.spawn_empty().id();
    let prefab = world.spawn((Prefab, Kind.pair(walk))).id();
    let insts: Vec<Entity> = (0..4).map(|_| world.instantiate(prefab)).collect();
    world.despawn(walk);
    for &inst in &insts {
        assert_eq!(world.target::<Kind>(inst), None);
    }
    assert_eq!(world.target::<Kind>(prefab), None);
    world.check_invariants();
    // A new instance of the emptied prefab has no pair either.
    let late = world.instantiate(prefab);
    assert_eq!(world.target::<Kind>(late), None);
    world.check_invariants();
}

#[test]
fn union_pair_later_change_of_base_does_not_reach_copies() {
    let mut world = World::new();
    let (walk, run) = (world.spawn_empty().id(), world.spawn_empty().id());
    let prefab = world.spawn((Prefab, Kind.pair(walk))).id();
    let inst = world.instantiate(prefab);
    world.entity_mut(prefab).add_pair::<Kind>(run);
    assert_eq!(world.target::<Kind>(inst), Some(walk));
    let mut q = world.query::<(Entity, Pair<Kind>)>();
    let rows: Vec<(Entity, Entity)> = q.iter(&world).collect();
    assert_eq!(rows, vec![(inst, walk)]);
}

// -------------------------------------------------- (2) sparse overrides

static SPARSE_LIVE: AtomicUsize = AtomicUsize::new(0);
static SPARSE_DROPS: AtomicUsize = AtomicUsize::new(0);
static CLONE_PANICS: AtomicBool = AtomicBool::new(false);

#[derive(Component, Debug)]
#[component(storage = "sparse", on_instantiate = "override")]
struct Counted(u32);

impl Counted {
    fn new(v: u32) -> Counted {
        SPARSE_LIVE.fetch_add(1, Ordering::SeqCst);
        Counted(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Counted {
        if CLONE_PANICS.load(Ordering::SeqCst) {
            panic!("Counted::clone");
        }
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        SPARSE_LIVE.fetch_sub(1, Ordering::SeqCst);
        SPARSE_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

/// A second counted sparse override, cloned fine.
#[derive(Component, Debug)]
#[component(storage = "sparse", on_instantiate = "override")]
struct Counted2(u32);

impl Counted2 {
    fn new(v: u32) -> Counted2 {
        SPARSE_LIVE.fetch_add(1, Ordering::SeqCst);
        Counted2(v)
    }
}

impl Clone for Counted2 {
    fn clone(&self) -> Counted2 {
        Counted2::new(self.0)
    }
}

impl Drop for Counted2 {
    fn drop(&mut self) {
        SPARSE_LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The counters are global: the tests using them run one at a time.
static COUNTED_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn sparse_override_panicking_clone_leaks_and_double_drops_nothing() {
    let _guard = COUNTED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    SPARSE_LIVE.store(0, Ordering::SeqCst);
    {
        let mut world = World::new();
        let prefab = world.spawn((Prefab, Counted2::new(2), Counted::new(1))).id();
        assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 2);
        CLONE_PANICS.store(true, Ordering::SeqCst);
        let result = quiet(|| world.instantiate(prefab));
        CLONE_PANICS.store(false, Ordering::SeqCst);
        assert!(result.is_err());
        world.check_invariants();
        // Every value is cloned before any is inserted: the panic left the
        // instance nothing (the clone made before it was dropped).
        assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 2);
        let inst = world.instantiate(prefab);
        assert_eq!(world.get::<Counted>(inst).map(|c| c.0), Some(1));
        assert_eq!(world.get::<Counted2>(inst).map(|c| c.0), Some(2));
        world.check_invariants();
    }
    assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 0, "every value dropped exactly once");
}

#[test]
fn sparse_override_own_value_in_same_spawn_wins_and_drops_once() {
    let _guard = COUNTED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    SPARSE_LIVE.store(0, Ordering::SeqCst);
    {
        let mut world = World::new();
        let prefab = world.spawn((Prefab, Counted::new(1))).id();
        let a = world.spawn((IsA.pair(prefab), Counted::new(5))).id();
        assert_eq!(world.get::<Counted>(a).map(|c| c.0), Some(5));
        let b = world.spawn((Counted::new(6), IsA.pair(prefab))).id();
        assert_eq!(world.get::<Counted>(b).map(|c| c.0), Some(6));
        // An existing entity with its own value keeps it.
        let c = world.spawn(Counted::new(7)).id();
        world.entity_mut(c).add_pair::<IsA>(prefab);
        assert_eq!(world.get::<Counted>(c).map(|c| c.0), Some(7));
        assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 4);
        world.check_invariants();
    }
    assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 0);
}

#[test]
fn sparse_override_copy_is_owned_and_independent() {
    let _guard = COUNTED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    SPARSE_LIVE.store(0, Ordering::SeqCst);
    {
        let mut world = World::new();
        let prefab = world.spawn((Prefab, Counted::new(1))).id();
        let inst = world.instantiate(prefab);
        world.get_mut::<Counted>(inst).unwrap().0 = 9;
        assert_eq!(world.get::<Counted>(prefab).map(|c| c.0), Some(1));
        world.despawn(prefab);
        assert_eq!(world.get::<Counted>(inst).map(|c| c.0), Some(9));
        assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 1);
        world.check_invariants();
    }
    assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 0);
}

/// A sparse override whose `on_add` hook despawns the entity it lands on.
#[derive(Component, Clone, Debug)]
#[component(storage = "sparse", on_instantiate = "override", on_add = despawn_on_add)]
struct Suicidal;

fn despawn_on_add(mut world: DeferredWorld, ctx: HookContext) {
    if !world.world().has::<Prefab>(ctx.entity) {
        world.commands().entity(ctx.entity).despawn();
    }
}

#[test]
fn sparse_override_hook_despawning_the_instance_leaves_no_orphan_child() {
    let _guard = COUNTED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    SPARSE_LIVE.store(0, Ordering::SeqCst);
    {
        let mut world = World::new();
        let prefab = world.spawn((Prefab, Suicidal, Counted::new(3))).id();
        let child = world.spawn((Name::new("turret"), ChildOf.pair(prefab))).id();
        let before = world.entity_count();
        let inst = world.instantiate(prefab);
        assert!(!world.is_alive(inst));
        world.check_invariants();
        let copies: Vec<Entity> =
            world.query::<Entity>().iter(&world).filter(|&e| e != child && world.has_pair::<IsA>(e, child)).collect();
        assert_eq!(copies, vec![], "no instance of the prefab child outlives the despawned instance");
        assert_eq!(world.entity_count(), before);
        assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 1);
    }
    assert_eq!(SPARSE_LIVE.load(Ordering::SeqCst), 0);
}

#[test]
fn sparse_override_observer_sees_the_copied_value() {
    #[derive(Resource, Default)]
    struct Seen(Vec<(Entity, u32)>);
    let _guard = COUNTED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|t: Trigger<OnInsert, Counted>, q: Query<&Counted>, mut seen: ResMut<Seen>| {
        seen.0.push((t.entity(), q.get(t.entity()).map(|c| c.0).unwrap_or(u32::MAX)));
    });
    let prefab = world.spawn((Prefab, Counted::new(4))).id();
    let inst = world.instantiate(prefab);
    // Observers skip prefabs (Flecs): only the instance's copy is heard.
    assert_eq!(world.resource::<Seen>().0, vec![(inst, 4)]);
    let _ = prefab;
}

#[test]
fn sparse_override_inherited_through_a_chain_of_bases_is_copied_like_a_table_one() {
    #[derive(Component, Clone, Debug, PartialEq)]
    #[component(on_instantiate = "override")]
    struct TableOv(u32);
    #[derive(Component, Clone, Debug, PartialEq)]
    #[component(storage = "sparse", on_instantiate = "override")]
    struct SparseOv(u32);
    let mut world = World::new();
    let base = world.spawn(Prefab).id();
    let mid = world.spawn((Prefab, IsA.pair(base))).id();
    // Added to the root base after `mid` was made: `mid` inherits both.
    world.insert(base, (TableOv(1), SparseOv(2)));
    let inst = world.instantiate(mid);
    let mut owned_table = world.query::<(Entity, &mut TableOv)>();
    let table_owned = owned_table.iter_mut(&mut world).any(|(e, _)| e == inst);
    let mut owned_sparse = world.query::<(Entity, &mut SparseOv)>();
    let sparse_owned = owned_sparse.iter_mut(&mut world).any(|(e, _)| e == inst);
    assert_eq!(table_owned, sparse_owned, "a sparse override is copied from the base chain as a table one is");
}

// ----------------------------------------------------- (3) panic refusal

fn panic_relationship(world: &mut World) -> Entity {
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic));
    rel
}

#[test]
fn panic_relationship_as_child_refuses_the_parent_cascade_and_changes_nothing() {
    let mut world = World::new();
    let parent = world.spawn(Position(1.0)).id();
    let rel = panic_relationship(&mut world);
    world.entity_mut(rel).add_pair::<ChildOf>(parent);
    let sibling = world.spawn((Position(2.0), ChildOf.pair(parent))).id();
    let grandchild = world.spawn(ChildOf.pair(sibling)).id();
    let error = world.try_despawn(parent).unwrap_err();
    assert_eq!(error.despawned, rel);
    for e in [parent, rel, sibling, grandchild] {
        assert!(world.is_alive(e));
    }
    assert_eq!(world.target::<ChildOf>(grandchild), Some(sibling));
    world.check_invariants();
    // The refused despawn left no DELETING mark: the sibling alone goes.
    assert!(world.despawn(sibling));
    assert!(!world.is_alive(grandchild));
    assert!(quiet(|| world.despawn(parent)).is_err());
    assert!(world.is_alive(parent) && world.is_alive(rel));
    world.check_invariants();
    // Lifting the policy lets the cascade through.
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT);
    assert!(world.despawn(parent));
    assert!(!world.is_alive(rel));
    world.check_invariants();
}

#[test]
fn panic_relationship_reached_by_on_delete_target_delete_refuses() {
    let mut world = World::new();
    let owner = world.spawn_empty().id();
    let rel = panic_relationship(&mut world);
    let holder = world.spawn_empty().id();
    world.add_id(holder, Id::pair(rel, owner));
    // `rel` itself is a holder of a (ChildOf, owner) pair.
    world.entity_mut(rel).add_pair::<ChildOf>(owner);
    assert!(world.try_despawn(owner).is_err());
    assert!(world.has_id(holder, Id::pair(rel, owner)));
    world.check_invariants();
}

#[test]
fn clear_entities_with_a_panic_relationship_does_not_panic_midway() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0)).id();
    let _rel = panic_relationship(&mut world);
    let b = world.spawn(Position(2.0)).id();
    let result = quiet(|| world.clear_entities());
    assert!(result.is_ok(), "clear_entities panicked on a panic-policy relationship entity");
    assert!(!world.is_alive(a) && !world.is_alive(b));
}

#[test]
fn dropping_a_world_with_a_panic_relationship_is_fine() {
    let mut world = World::new();
    let rel = panic_relationship(&mut world);
    let holder = world.spawn_empty().id();
    world.add_id(holder, Id::pair(rel, holder));
    assert!(quiet(move || drop(world)).is_ok());
}

#[test]
fn panic_relationship_refusal_from_commands_despawn() {
    let mut world = World::new();
    let rel = panic_relationship(&mut world);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(rel).despawn();
    let result = quiet(|| queue.apply(&mut world));
    // Whether it panics or is ignored, the relationship lives and the world is sound.
    let _ = result;
    assert!(world.is_alive(rel));
    world.check_invariants();
}

// ---------------------------------------------------- (4) run_system skip

#[test]
fn commands_run_system_skipped_keeps_applying_the_rest_of_the_queue() {
    #[derive(Resource, Default)]
    struct Ran(u32);
    let mut world = World::new();
    world.init_resource::<Ran>();
    let skipped = world.register_system(|_single: Single<&Position>, mut ran: ResMut<Ran>| ran.0 += 100);
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands.run_system(skipped);
        commands.spawn(Marker);
    }
    queue.apply(&mut world);
    assert_eq!(world.resource::<Ran>().0, 0);
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 1);
}

// ------------------------------------------------------------ (5) names

fn names_from(seed: u64, len: usize) -> String {
    const ALPHABET: [char; 6] = ['a', ':', '\\', 'é', '🦀', ' '];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ALPHABET[(state >> 33) as usize % ALPHABET.len()]
        })
        .collect()
}

#[test]
fn path_round_trips_for_odd_names() {
    let mut world = World::new();
    let mut checked = 0;
    for seed in 0..400u64 {
        let len = 1 + (seed as usize % 6);
        let (n1, n2, n3) = (names_from(seed, len), names_from(seed + 10_000, len), names_from(seed + 20_000, 3));
        // Roots must be unique: skip names that clash.
        if world.lookup(&n1).is_some() {
            continue;
        }
        let Ok(root) = quiet(|| world.spawn(Name::new(n1.clone())).id()) else { continue };
        let Ok(mid) = quiet(|| world.spawn((Name::new(n2.clone()), ChildOf.pair(root))).id()) else { continue };
        let Ok(leaf) = quiet(|| world.spawn((Name::new(n3.clone()), ChildOf.pair(mid))).id()) else { continue };
        for e in [root, mid, leaf] {
            let path = world.path(e).unwrap();
            assert_eq!(world.lookup(&path), Some(e), "path {path:?} of {:?}", world.get::<Name>(e));
        }
        checked += 1;
        world.despawn(root);
    }
    assert!(checked > 100);
}

#[test]
fn lookup_of_malformed_escapes_does_not_panic() {
    let mut world = World::new();
    let root = world.spawn(Name::new("a")).id();
    let _child = world.spawn((Name::new("b"), ChildOf.pair(root))).id();
    for path in ["\\", "a\\", "a::\\", "\\:", "::", ":::", "a::", "::a", "a\\::b", "\\\\::b", "a:\\:b", "é\\", "🦀\\:"]
    {
        let _ = quiet(|| world.lookup(path)).unwrap_or_else(|_| panic!("lookup({path:?}) panicked"));
    }
    assert_eq!(world.lookup("a::b"), Some(_child));
    // `a\:` + `:b` reads as the single name `a::b`: no such entity.
    assert_eq!(world.lookup("a\\::b"), None);
}

#[test]
fn name_with_backslash_is_found_by_its_plain_name() {
    let mut world = World::new();
    let dir = world.spawn(Name::new("C:\\dir")).id();
    assert_eq!(world.lookup("C:\\dir"), Some(dir));
    let path = world.path(dir).unwrap();
    assert_eq!(world.lookup(&path), Some(dir));
    let tail = world.spawn(Name::new("x\\")).id();
    assert_eq!(world.lookup(&world.path(tail).unwrap()), Some(tail));
}

#[test]
fn name_that_is_only_colons_round_trips() {
    let mut world = World::new();
    let colons = world.spawn(Name::new("::")).id();
    let child = world.spawn((Name::new(":"), ChildOf.pair(colons))).id();
    let path = world.path(child).unwrap();
    assert_eq!(world.lookup(&path), Some(child), "{path}");
    assert_eq!(world.lookup(&world.path(colons).unwrap()), Some(colons));
}

// ------------------------------------------ (6) spawned_by_command leftovers

#[derive(Component, Clone, Copy, Debug)]
#[component(on_add = panic_on_add)]
struct Exploding;

fn panic_on_add(_world: DeferredWorld, _ctx: HookContext) {
    panic!("Exploding::on_add");
}

#[test]
fn commands_spawn_panicking_hook_then_plain_name_clash_keeps_the_entity() {
    let mut world = World::new();
    let _taken = world.spawn(Name::new("taken")).id();
    let mut queue = CommandQueue::default();
    let spawned = Commands::new(&mut queue, &world).spawn((Exploding, Position(1.0))).id();
    assert!(quiet(|| queue.apply(&mut world)).is_err());
    assert!(world.is_alive(spawned));
    // A later plain insert of a clashing name is refused, restoring the old
    // state: the entity lives (only a spawn despawns on a clash).
    assert!(quiet(|| world.insert(spawned, Name::new("taken"))).is_err());
    assert!(world.is_alive(spawned), "a plain insert's name clash despawned the entity");
    world.check_invariants();
}

#[test]
fn commands_spawn_with_clashing_name_despawns_and_queue_goes_on() {
    let mut world = World::new();
    let taken = world.spawn(Name::new("taken")).id();
    let mut queue = CommandQueue::default();
    let dup = Commands::new(&mut queue, &world).spawn((Name::new("taken"), Position(1.0))).id();
    assert!(quiet(|| queue.apply(&mut world)).is_err());
    assert!(!world.is_alive(dup));
    assert_eq!(world.lookup("taken"), Some(taken));
    world.check_invariants();
}

#[test]
fn commands_spawn_with_name_and_clashing_child_of() {
    let mut world = World::new();
    let parent = world.spawn(Name::new("p")).id();
    let first = world.spawn((Name::new("kid"), ChildOf.pair(parent))).id();
    let mut queue = CommandQueue::default();
    let dup = Commands::new(&mut queue, &world).spawn((Name::new("kid"), ChildOf.pair(parent))).id();
    assert!(quiet(|| queue.apply(&mut world)).is_err());
    assert!(!world.is_alive(dup));
    assert_eq!(world.lookup("p::kid"), Some(first));
    world.check_invariants();
}

#[test]
fn commands_spawn_whose_observer_spawns_more_still_despawns_on_clash() {
    let mut world = World::new();
    let taken = world.spawn(Name::new("taken")).id();
    world.add_observer(|_t: Trigger<OnAdd, Other>, mut commands: Commands| {
        commands.spawn(Marker);
    });
    let mut queue = CommandQueue::default();
    let dup = Commands::new(&mut queue, &world).spawn((Other, Name::new("taken"))).id();
    let result = quiet(|| queue.apply(&mut world));
    assert!(result.is_err());
    assert!(!world.is_alive(dup), "the clashing commands-spawned entity outlived its refusal");
    assert_eq!(world.lookup("taken"), Some(taken));
    world.check_invariants();
}

// ------------------------------------------------ (7) dead / stale ids

#[test]
fn stale_plain_ids_reach_nothing() {
    let mut world = World::new();
    let holder = world.spawn_empty().id();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index());
    world.add_id(holder, new.id());
    assert!(matches!(world.try_add_id(holder, old.id()), Err(PairError::NotAlive(_))));
    assert!(!world.remove_id(holder, old.id()));
    assert!(world.has_id(holder, new.id()));
    assert!(!world.has_id(holder, old.id()), "has_id of a stale id reaches the live entity of its index");
}

#[test]
fn stale_target_through_typed_add_pair_is_refused() {
    let mut world = World::new();
    let holder = world.spawn_empty().id();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index());
    let _ = quiet(|| {
        world.entity_mut(holder).add_pair::<Likes>(old);
    });
    assert!(!world.has_pair::<Likes>(holder, new), "add_pair with a stale target paired with the new entity");
}

#[test]
fn stale_id_in_runtime_query_matches_nothing() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    world.add_id(holder, new.id());
    let built = world.query_builder().with(old).build();
    if let Ok(mut q) = built {
        let rows: Vec<Entity> = q.iter(&world).map(|r| r.entity()).collect();
        assert!(rows.is_empty(), "a query on a stale id matched {rows:?}");
    }
}

#[test]
fn dead_never_allocated_plain_id_is_refused() {
    let mut world = World::new();
    let holder = world.spawn_empty().id();
    let ghost = Entity::from_raw(12_345, 0);
    assert!(matches!(world.try_add_id(holder, ghost.id()), Err(PairError::NotAlive(_))));
    assert!(!world.remove_id(holder, ghost.id()));
    world.check_invariants();
}

#[test]
fn remove_id_of_a_wildcard_plain_still_works() {
    let mut world = World::new();
    let holder = world.spawn((Position(1.0), Marker)).id();
    // `*` as a plain id removes every plain id (or is refused); it must not be
    // mistaken for a dead entity and must leave the world sound.
    let _ = quiet(|| world.remove_id(holder, Entity::WILDCARD.id()));
    world.check_invariants();
}

// ------------------------------------------------ (8) 31-bit indices

#[test]
fn high_index_entity_as_plain_id_and_target_despawns_cleanly() {
    let mut world = World::new();
    let high = world.spawn_at(Entity::from_raw(3_000_000_000, 0)).unwrap().id();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    world.add_id(a, high.id());
    world.entity_mut(b).add_pair::<Likes>(high);
    assert!(world.has_id(a, high.id()));
    world.despawn(high);
    assert!(!world.has_id(a, high.id()));
    assert!(!world.has_pair::<Likes>(b, high));
    world.check_invariants();
}

#[test]
fn high_index_entity_as_relationship_is_refused_not_corrupting() {
    let mut world = World::new();
    let high = world.spawn_at(Entity::from_raw(0x8000_0001, 0)).unwrap().id();
    let a = world.spawn_empty().id();
    let result = quiet(|| Id::pair(high, a));
    assert!(result.is_err());
    world.despawn(high);
    world.check_invariants();
}

#[test]
fn entity_at_max_relationship_index_works_as_relationship() {
    let mut world = World::new();
    let rel = world.spawn_at(Entity::from_raw(Entity::MAX_RELATIONSHIP_INDEX, 0)).unwrap().id();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.add_id(a, Id::pair(rel, b));
    assert!(world.has_id(a, Id::pair(rel, b)));
    world.despawn(rel);
    assert!(!world.has_id(a, Id::pair(rel, b)));
    world.check_invariants();
}

// ---------------------------------------------- (9) user events on components

#[derive(Component, Clone, Copy, Debug)]
#[component(storage = "sparse")]
struct SparseTag;

#[test]
fn user_event_reaches_observer_of_a_sparse_component() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, SparseTag>, mut log: ResMut<Log>| log.0.push(("s", t.entity())));
    let e = world.spawn(SparseTag).id();
    world.trigger_targets(Ping, e);
    assert_eq!(world.resource::<Log>().0, vec![("s", e)]);
}

#[test]
fn user_event_reaches_observer_of_a_union_pair() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, Pair<Kind>>, mut log: ResMut<Log>| {
        log.0.push(("k", t.pair_target().unwrap_or(Entity::PLACEHOLDER)));
    });
    let walk = world.spawn_empty().id();
    let e = world.spawn(Kind.pair(walk)).id();
    world.trigger_targets(Ping, e);
    assert_eq!(world.resource::<Log>().0, vec![("k", walk)]);
}

#[test]
/// A user event is one event per target (Flecs emits it once for the
/// entity): an observer of `(Likes, *)` hears it once, the first pair's target
/// as `pair_target()`; `OnAdd` is one event per added pair, so it fires twice.
fn user_event_reaches_observer_of_a_pair_wildcard_once_per_target() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(("ping", t.pair_target().unwrap_or(Entity::PLACEHOLDER)))
    });
    world.add_observer(|t: Trigger<OnAdd, Pair<Likes>>, mut log: ResMut<Log>| {
        log.0.push(("add", t.pair_target().unwrap_or(Entity::PLACEHOLDER)))
    });
    let (x, y) = (world.spawn_empty().id(), world.spawn_empty().id());
    let e = world.spawn((Likes.pair(x), Likes.pair(y))).id();
    let adds = world.resource::<Log>().0.len();
    world.resource_mut::<Log>().0.clear();
    world.trigger_targets(Ping, e);
    assert_eq!(adds, 2);
    assert_eq!(world.resource::<Log>().0, vec![("ping", x)]);
}

#[test]
fn user_event_to_entity_missing_one_of_two_watched_components_is_not_heard() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, (Position, Marker)>, mut log: ResMut<Log>| log.0.push(("both", t.entity())));
    let only = world.spawn(Position(1.0)).id();
    let both = world.spawn((Position(1.0), Marker)).id();
    world.trigger_targets(Ping, only);
    world.trigger_targets(Ping, both);
    assert_eq!(world.resource::<Log>().0, vec![("both", both)]);
}

#[test]
fn user_event_to_disabled_and_prefab_entities_matches_on_add_behaviour() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<OnAdd, Position>, mut log: ResMut<Log>| log.0.push(("add", t.entity())));
    world.add_observer(|t: Trigger<Ping, Position>, mut log: ResMut<Log>| log.0.push(("ping", t.entity())));
    let disabled = world.spawn((Disabled, Position(1.0))).id();
    let prefab = world.spawn((Prefab, Position(1.0))).id();
    let adds: Vec<Entity> = world.resource::<Log>().0.iter().map(|&(_, e)| e).collect();
    world.resource_mut::<Log>().0.clear();
    world.trigger_targets(Ping, [disabled, prefab]);
    let pings: Vec<Entity> = world.resource::<Log>().0.iter().map(|&(_, e)| e).collect();
    assert_eq!(pings, adds);
}

#[test]
fn user_event_propagates_to_parents_component_observers() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Bubble, Position>, mut log: ResMut<Log>| log.0.push(("pos", t.entity())));
    let root = world.spawn(Position(0.0)).id();
    let mid = world.spawn(ChildOf.pair(root)).id();
    let leaf = world.spawn((Position(1.0), ChildOf.pair(mid))).id();
    world.trigger_targets(Bubble, leaf);
    assert_eq!(world.resource::<Log>().0, vec![("pos", leaf), ("pos", root)]);
}

#[test]
fn user_event_observer_despawning_the_target_mid_delivery() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Bubble, Position>, mut commands: Commands, mut log: ResMut<Log>| {
        log.0.push(("first", t.entity()));
        commands.entity(t.entity()).despawn();
    });
    world.add_observer(|t: Trigger<Bubble, Position>, mut log: ResMut<Log>| log.0.push(("second", t.entity())));
    let root = world.spawn(Position(0.0)).id();
    let leaf = world.spawn((Position(1.0), ChildOf.pair(root))).id();
    world.trigger_targets(Bubble, leaf);
    world.check_invariants();
    assert!(!world.is_alive(leaf) || !world.is_alive(root));
    let log = &world.resource::<Log>().0;
    assert!(log.contains(&("first", leaf)) && log.contains(&("second", leaf)));
}

#[test]
fn user_event_to_instance_reaches_observer_of_an_inherited_component() {
    #[derive(Component, Clone, Copy, Debug)]
    #[component(on_instantiate = "inherit")]
    struct Shared;
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, Shared>, mut log: ResMut<Log>| log.0.push(("shared", t.entity())));
    let prefab = world.spawn((Prefab, Shared)).id();
    let inst = world.instantiate(prefab);
    assert!(world.get::<Shared>(inst).is_some());
    world.trigger_targets(Ping, inst);
    assert_eq!(world.resource::<Log>().0, vec![("shared", inst)]);
}

#[test]
fn user_event_to_dead_or_stale_target_reaches_no_component_observer() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, Position>, mut log: ResMut<Log>| log.0.push(("pos", t.entity())));
    let old = world.spawn(Position(1.0)).id();
    world.despawn(old);
    let new = world.spawn(Position(2.0)).id();
    assert_eq!(new.index(), old.index());
    world.trigger_targets(Ping, old);
    assert_eq!(world.resource::<Log>().0, vec![], "a stale target reached the new entity's component observer");
}

#[test]
fn entity_observer_and_component_observer_each_run_once() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn((Position(1.0), Marker)).id();
    world.add_observer(|t: Trigger<Ping, Position>, mut log: ResMut<Log>| log.0.push(("pos", t.entity())));
    world.add_observer(|t: Trigger<Ping, Marker>, mut log: ResMut<Log>| log.0.push(("marker", t.entity())));
    world.add_observer(|t: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("global", t.entity())));
    world.entity_mut(e).observe(|t: Trigger<Ping>, mut log: ResMut<Log>| log.0.push(("own", t.entity())));
    world.trigger_targets(Ping, e);
    let mut log = world.resource::<Log>().0.clone();
    log.sort();
    assert_eq!(log, vec![("global", e), ("marker", e), ("own", e), ("pos", e)]);
}

#[derive(Component, Clone, Copy, Debug)]
#[component(toggle)]
struct Toggled;

#[test]
fn user_event_reaches_observer_of_a_disabled_toggle_component_as_has_does() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(|t: Trigger<Ping, Toggled>, mut log: ResMut<Log>| log.0.push(("t", t.entity())));
    let on = world.spawn(Toggled).id();
    let off = world.spawn(Toggled).id();
    world.entity_mut(off).disable::<Toggled>();
    world.trigger_targets(Ping, [on, off]);
    // `has` and OnInsert/OnRemove observers still see a disabled toggle
    // component: the user event does the same.
    assert!(world.has::<Toggled>(off));
    assert_eq!(world.resource::<Log>().0, vec![("t", on), ("t", off)]);
}

#[test]
fn entity_observer_of_a_component_hears_only_when_held_and_once() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(Position(1.0)).id();
    world.entity_mut(e).observe(|t: Trigger<Ping, Position>, mut log: ResMut<Log>| log.0.push(("pos", t.entity())));
    world.entity_mut(e).observe(|t: Trigger<Ping, Marker>, mut log: ResMut<Log>| log.0.push(("marker", t.entity())));
    world.trigger_targets(Ping, e);
    assert_eq!(world.resource::<Log>().0, vec![("pos", e)]);
}

#[test]
fn union_pair_copied_onto_an_existing_entity_targeting_itself() {
    let mut world = World::new();
    let e = world.spawn(Position(1.0)).id();
    let prefab = world.spawn(Prefab).id();
    world.entity_mut(prefab).add_pair::<Kind>(e);
    world.entity_mut(e).add_pair::<IsA>(prefab);
    assert_eq!(world.target::<Kind>(e), Some(e));
    world.check_invariants();
    world.despawn(e);
    assert_eq!(world.target::<Kind>(prefab), None);
    world.check_invariants();
}

#[test]
fn union_copy_with_commands_instantiation_and_hooks_despawning() {
    let mut world = World::new();
    let walk = world.spawn_empty().id();
    // `Suicidal` despawns the instance (its hook's command runs within the
    // instantiation); the union copy that follows must skip the dead instance.
    let prefab = world.spawn((Prefab, Suicidal, Kind.pair(walk))).id();
    let inst = world.instantiate(prefab);
    assert!(!world.is_alive(inst));
    world.check_invariants();
    let holders = world.query::<(Entity, Pair<Kind>)>().iter(&world).count();
    assert_eq!(holders, 0);
}

#[test]
fn add_id_of_a_stale_plain_id_is_ignored() {
    let mut world = World::new();
    let holder = world.spawn_empty().id();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index());
    let _ = quiet(|| world.add_id(holder, old.id()));
    assert!(!world.has_id(holder, new.id()));
    world.check_invariants();
}

#[derive(Relationship)]
#[relationship(on_delete = "panic")]
struct Pinned;

#[test]
fn derived_panic_relationship_is_never_despawned_but_clear_entities_works() {
    let mut world = World::new();
    let pinned = world.register_component::<Pinned>();
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.entity_mut(a).add_pair::<Pinned>(b);
    let error = world.try_despawn(pinned).unwrap_err();
    assert_eq!(error.holders, vec![a]);
    world.entity_mut(a).remove_pair::<Pinned>(b);
    let error = world.try_despawn(pinned).unwrap_err();
    assert!(error.holders.is_empty());
    assert!(!error.to_string().is_empty());
    assert!(world.is_alive(pinned));
    world.clear_entities();
    assert!(world.is_alive(pinned) && !world.is_alive(a));
    world.check_invariants();
}

#[test]
fn user_event_trigger_components_name_only_the_watched_ones() {
    #[derive(Resource, Default)]
    struct Seen(Vec<Vec<Entity>>);
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|t: Trigger<Ping, Position>, mut seen: ResMut<Seen>| seen.0.push(t.components().to_vec()));
    let e = world.spawn((Position(1.0), Marker, Other)).id();
    world.trigger_targets(Ping, e);
    let position = world.component_id::<Position>().unwrap();
    assert_eq!(world.resource::<Seen>().0, vec![vec![position]]);
}
