//! Panic safety: a panic in user code that the world calls (a value's `Drop`, a
//! hook, an observer, a system, a command, a query closure) leaves the world
//! consistent and usable, and every value is dropped exactly once, none leaked,
//! none twice, also once the world itself is dropped.
//!
//! * A value whose `Drop` panics: despawn, remove, replace (insert over an
//!   existing value, exclusive pair replacement) and world drop still complete
//!   (as `Vec`'s and hashbrown's drops do) and the panic continues afterwards.
//!   Table, sparse and zero-sized components and data relationship pairs.
//! * A hook or observer that panics: before a change (`on_replace`/`on_remove`
//!   of insert and remove) the change does not happen; after it (`on_add`,
//!   `on_insert`) the change stays; a despawn always completes. Commands a
//!   panicking hook, observer or system queued are dropped, never applied later,
//!   and an observer that panicked still runs for later events.
//! * Systems under the multi-threaded executor, held systems, panicking
//!   commands, and panics inside `for_each`/`par_iter_mut` closures.
//!
//! Each test lets at most one value panic per operation (a second panic while
//! the first unwinds would abort the process), except
//! `several_panicking_values_in_one_operation_do_not_abort`, which checks that
//! the world catches every `Drop` it runs and so never gets there.
//!
//! Drops are recorded in one process-wide log by unique id ([`Ledger`]), so tests
//! running in parallel never see each other's values.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use ecs::prelude::*;
use ecs::schedule::ExecutorKind;
use ecs::system::{IntoSystem, System};
use ecs_tests::panic_message;

// ----- drop accounting ------------------------------------------------------------------

static DROPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

fn record_drop(id: u32) {
    DROPS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(id);
}

fn drops_of(id: u32) -> usize {
    DROPS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).iter().filter(|&&dropped| dropped == id).count()
}

/// A value with an id whose drop is recorded; an armed one panics in its drop.
trait Tracked {
    fn make(id: u32, armed: bool) -> Self;
    fn id(&self) -> u32;
}

macro_rules! tracked {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug)]
        struct $name {
            id: u32,
            armed: bool,
        }

        impl Tracked for $name {
            fn make(id: u32, armed: bool) -> Self {
                $name { id, armed }
            }
            fn id(&self) -> u32 {
                self.id
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                record_drop(self.id);
                if self.armed {
                    panic!("{} {} exploded in its drop", stringify!($name), self.id);
                }
            }
        }
    };
}

tracked!(
    #[derive(Component)]
    Bomb
);
tracked!(
    #[derive(Component)]
    Val
);
tracked!(
    #[derive(Component)]
    Val2
);
tracked!(
    #[derive(Component)]
    Absent
);
tracked!(
    #[derive(Component)]
    #[component(storage = "sparse")]
    SparseBomb
);
tracked!(
    #[derive(Component)]
    #[component(storage = "sparse")]
    SparseVal
);
tracked!(
    #[derive(Relationship)]
    Owes
);
tracked!(
    #[derive(Relationship)]
    #[relationship(exclusive)]
    DockedAt
);
tracked!(
    #[derive(Resource)]
    ResBomb
);
tracked!(
    #[derive(Resource)]
    ResVal
);
tracked!(
    #[derive(Component)]
    #[component(on_add = add_hook, on_insert = insert_hook, on_replace = replace_hook, on_remove = remove_hook)]
    Hooked
);

/// The values one test creates.
#[derive(Default)]
struct Ledger {
    ids: RefCell<Vec<u32>>,
}

impl Ledger {
    fn value<T: Tracked>(&self, armed: bool) -> T {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        self.ids.borrow_mut().push(id);
        T::make(id, armed)
    }

    fn safe<T: Tracked>(&self) -> T {
        self.value(false)
    }

    fn armed<T: Tracked>(&self) -> T {
        self.value(true)
    }

    /// Asserts that exactly the values `dropped` were dropped so far, once each.
    #[track_caller]
    fn assert_dropped(&self, dropped: &[u32]) {
        let counts: BTreeMap<u32, usize> = self.ids.borrow().iter().map(|&id| (id, drops_of(id))).collect();
        let expected: BTreeMap<u32, usize> =
            self.ids.borrow().iter().map(|&id| (id, usize::from(dropped.contains(&id)))).collect();
        assert_eq!(counts, expected, "drops per value id (expected {dropped:?} once each, the others never)");
    }

    /// Asserts that every value was dropped exactly once.
    #[track_caller]
    fn assert_all_dropped_once(&self) {
        let all = self.ids.borrow().clone();
        self.assert_dropped(&all);
    }
}

/// The world is consistent and usable: invariants hold, and spawn, query,
/// insert, remove and despawn work.
#[track_caller]
fn assert_usable(world: &mut World, ledger: &Ledger) {
    world.check_invariants();
    let before = world.query::<&Val>().iter(world).count();
    let e = world.spawn((ledger.safe::<Val>(), ledger.safe::<SparseVal>())).id();
    world.insert(e, ledger.safe::<Val2>());
    assert_eq!(world.query::<&Val>().iter(world).count(), before + 1);
    world.entity_mut(e).remove::<Val2>();
    assert!(world.despawn(e));
    assert_eq!(world.query::<&Val>().iter(world).count(), before);
    world.check_invariants();
}

/// Drops the world and checks that every value of the ledger was dropped once.
#[track_caller]
fn assert_world_drops_the_rest(world: World, ledger: &Ledger) {
    drop(world);
    ledger.assert_all_dropped_once();
}

#[track_caller]
fn assert_exploded(message: &str) {
    assert!(message.contains("exploded"), "unexpected panic: {message}");
}

// ----- Drop panics: despawn ----------------------------------------------------------------

/// Spawns `(Val, Bomb, Val2)` rows around the entity under test, so that its
/// row is in the middle of its table (a despawn moves the last row into it).
fn neighbours(world: &mut World, ledger: &Ledger) -> [Entity; 2] {
    [0, 1].map(|_| world.spawn((ledger.safe::<Val>(), ledger.safe::<Bomb>(), ledger.safe::<Val2>())).id())
}

#[track_caller]
fn assert_neighbours_intact(world: &World, neighbours: [Entity; 2]) {
    for e in neighbours {
        let (val, bomb, val2) = (world.get::<Val>(e), world.get::<Bomb>(e), world.get::<Val2>(e));
        assert!(val.is_some() && bomb.is_some() && val2.is_some(), "{e:?} lost a value");
        let ids = [val.unwrap().id, bomb.unwrap().id, val2.unwrap().id];
        assert!(ids.iter().all(|&id| drops_of(id) == 0), "{e:?} holds a dropped value");
    }
}

#[test]
fn despawn_whose_table_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let [first, _] = neighbours(&mut world, &ledger);
    let (val, bomb, val2) = (ledger.safe::<Val>(), ledger.armed::<Bomb>(), ledger.safe::<Val2>());
    let ids = [val.id, bomb.id, val2.id];
    let e = world.spawn((val, bomb, val2)).id();
    let [_, last] = neighbours(&mut world, &ledger);
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e), "the despawn completed");
    ledger.assert_dropped(&ids);
    assert_neighbours_intact(&world, [first, last]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn despawn_with_sparse_values_whose_table_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let [first, _] = neighbours(&mut world, &ledger);
    let values = (ledger.safe::<Val>(), ledger.armed::<Bomb>(), ledger.safe::<Val2>(), ledger.safe::<SparseVal>());
    let ids = [values.0.id, values.1.id, values.2.id, values.3.id];
    let e = world.spawn(values).id();
    let [_, last] = neighbours(&mut world, &ledger);
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e));
    ledger.assert_dropped(&ids);
    assert_neighbours_intact(&world, [first, last]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn despawn_whose_sparse_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    // The bomb's set comes first, so the other sparse value is removed after it.
    world.register_component::<SparseBomb>();
    let [first, _] = neighbours(&mut world, &ledger);
    let values = (ledger.safe::<Val>(), ledger.armed::<SparseBomb>(), ledger.safe::<SparseVal>());
    let ids = [values.0.id, values.1.id, values.2.id];
    let e = world.spawn(values).id();
    let [_, last] = neighbours(&mut world, &ledger);
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e));
    ledger.assert_dropped(&ids);
    assert_neighbours_intact(&world, [first, last]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

thread_local! {
    /// Armed zero-sized [`TagBomb`]s panic in their drop (once).
    static TAG_BOMB_ARMED: Cell<bool> = const { Cell::new(false) };
    static TAG_BOMB_DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A zero-sized table component (no column) whose drop panics when armed.
#[derive(Component, Debug)]
struct TagBomb;

impl Drop for TagBomb {
    fn drop(&mut self) {
        TAG_BOMB_DROPS.set(TAG_BOMB_DROPS.get() + 1);
        if TAG_BOMB_ARMED.replace(false) {
            panic!("TagBomb exploded in its drop");
        }
    }
}

#[test]
fn despawn_whose_zero_sized_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let values = (ledger.safe::<Val>(), TagBomb, ledger.safe::<Val2>());
    let ids = [values.0.id, values.2.id];
    let e = world.spawn(values).id();
    let other = world.spawn((ledger.safe::<Val>(), TagBomb, ledger.safe::<Val2>())).id();
    let tag_drops = TAG_BOMB_DROPS.get();
    TAG_BOMB_ARMED.set(true);
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e));
    assert_eq!(TAG_BOMB_DROPS.get(), tag_drops + 1);
    ledger.assert_dropped(&ids);
    assert!(world.get::<Val>(other).is_some());
    assert_usable(&mut world, &ledger);
    drop(world);
    assert_eq!(TAG_BOMB_DROPS.get(), tag_drops + 2);
    ledger.assert_all_dropped_once();
}

#[test]
fn despawn_whose_pair_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let target = world.spawn(ledger.safe::<Val>()).id();
    let (val, owes) = (ledger.safe::<Val>(), ledger.armed::<Owes>());
    let ids = [val.id, owes.id];
    let e = world.spawn(val).id();
    world.insert_pair(e, owes, target);
    let other = world.spawn(ledger.safe::<Val>()).id();
    world.insert_pair(other, ledger.safe::<Owes>(), target);
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e));
    ledger.assert_dropped(&ids);
    assert!(world.get_pair::<Owes>(other, target).is_some());
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn despawning_a_target_whose_pair_value_panics_completes_the_cleanup() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let target = world.spawn(ledger.safe::<Val>()).id();
    let target_val = world.get::<Val>(target).unwrap().id;
    let holders: Vec<Entity> = (0..3).map(|_| world.spawn(ledger.safe::<Val>()).id()).collect();
    let owes: Vec<Owes> = vec![ledger.safe(), ledger.armed(), ledger.safe()];
    let owes_ids: Vec<u32> = owes.iter().map(Owes::id).collect();
    for (&holder, owes) in holders.iter().zip(owes) {
        world.insert_pair(holder, owes, target);
    }
    // The pairs' policy on the target's despawn is `remove`: holders lose them.
    assert_exploded(&panic_message(|| world.despawn(target)));
    assert!(!world.is_alive(target));
    let mut expected = owes_ids;
    expected.push(target_val);
    ledger.assert_dropped(&expected);
    for &holder in &holders {
        assert!(world.is_alive(holder) && world.get::<Val>(holder).is_some());
        assert!(!world.has_pair::<Owes>(holder, Entity::WILDCARD), "{holder:?} kept a pair of a dead target");
    }
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn despawning_a_hierarchy_whose_child_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let parent = world.spawn(ledger.safe::<Val>()).id();
    let bomb_child = world.spawn(ledger.armed::<Bomb>()).add_pair::<ChildOf>(parent).id();
    let children: Vec<Entity> =
        (0..3).map(|_| world.spawn(ledger.safe::<Val>()).add_pair::<ChildOf>(parent).id()).collect();
    let grandchild = world.spawn(ledger.safe::<Val>()).add_pair::<ChildOf>(bomb_child).id();
    let bystander = world.spawn(ledger.safe::<Val>()).id();
    let bystander_val = world.get::<Val>(bystander).unwrap().id;
    assert_exploded(&panic_message(|| world.despawn(parent)));
    for e in [parent, bomb_child, grandchild].into_iter().chain(children) {
        assert!(!world.is_alive(e), "{e:?} survived the despawn of its ancestor");
    }
    let all = ledger.ids.borrow().clone();
    let gone: Vec<u32> = all.into_iter().filter(|&id| id != bystander_val).collect();
    ledger.assert_dropped(&gone);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- Drop panics: remove ---------------------------------------------------------------

#[test]
fn removing_a_partly_present_bundle_whose_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let [first, _] = neighbours(&mut world, &ledger);
    let (val, bomb, val2) = (ledger.safe::<Val>(), ledger.armed::<Bomb>(), ledger.safe::<Val2>());
    let (val_id, bomb_id, val2_id) = (val.id, bomb.id, val2.id);
    let e = world.spawn((val, bomb, val2)).id();
    let [_, last] = neighbours(&mut world, &ledger);
    // `Absent` is missing, so the present values are dropped inside the world.
    assert_exploded(&panic_message(|| {
        world.entity_mut(e).remove::<(Bomb, Absent)>();
    }));
    assert!(world.is_alive(e));
    assert!(!world.has::<Bomb>(e), "the remove completed");
    assert_eq!((world.get::<Val>(e).unwrap().id, world.get::<Val2>(e).unwrap().id), (val_id, val2_id));
    ledger.assert_dropped(&[bomb_id]);
    assert_neighbours_intact(&world, [first, last]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn removing_sparse_values_whose_first_panics_removes_them_all() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.register_component::<SparseBomb>();
    let values =
        (ledger.safe::<Val>(), ledger.armed::<SparseBomb>(), ledger.safe::<SparseVal>(), ledger.safe::<Bomb>());
    let ids = [values.1.id, values.2.id, values.3.id];
    let e = world.spawn(values).id();
    assert_exploded(&panic_message(|| {
        world.entity_mut(e).remove::<(SparseBomb, SparseVal, Bomb, Absent)>();
    }));
    assert!(world.is_alive(e) && world.has::<Val>(e));
    assert!(!world.has::<SparseBomb>(e) && !world.has::<SparseVal>(e) && !world.has::<Bomb>(e));
    ledger.assert_dropped(&ids);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn removing_a_pair_whose_value_panics_completes() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let target = world.spawn(ledger.safe::<Val>()).id();
    let others: Vec<Entity> = (0..2).map(|_| world.spawn(ledger.safe::<Val>()).id()).collect();
    let e = world.spawn(ledger.safe::<Val>()).id();
    let owes = ledger.armed::<Owes>();
    let owes_id = owes.id;
    world.insert_pair(e, owes, target);
    for &other in &others {
        world.insert_pair(other, ledger.safe::<Owes>(), target);
    }
    assert_exploded(&panic_message(|| world.remove_pair::<Owes>(e, target)));
    assert!(world.is_alive(e) && world.get::<Val>(e).is_some());
    assert!(!world.has_pair::<Owes>(e, target));
    ledger.assert_dropped(&[owes_id]);
    for &other in &others {
        assert!(world.get_pair::<Owes>(other, target).is_some());
    }
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- Drop panics: replace --------------------------------------------------------------

#[test]
fn replacing_a_table_value_whose_drop_panics_completes_the_insert() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let [first, _] = neighbours(&mut world, &ledger);
    let old = ledger.armed::<Bomb>();
    let old_id = old.id;
    let e = world.spawn((ledger.safe::<Val>(), old)).id();
    let mut changed = world.query_filtered::<Entity, Changed<Bomb>>();
    changed.iter(&world).count();
    let (new, sparse, val2) = (ledger.safe::<Bomb>(), ledger.safe::<SparseVal>(), ledger.safe::<Val2>());
    let (new_id, sparse_id, val2_id) = (new.id, sparse.id, val2.id);
    // The insert moves the entity to a table with a `Val2` column and writes
    // every value of the bundle, whichever order they come in.
    assert_exploded(&panic_message(|| world.insert(e, (new, sparse, val2))));
    assert_eq!(world.get::<Bomb>(e).map(|bomb| bomb.id), Some(new_id));
    assert_eq!(world.get::<SparseVal>(e).map(|value| value.id), Some(sparse_id));
    assert_eq!(world.get::<Val2>(e).map(|value| value.id), Some(val2_id));
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e], "the new value is stamped changed");
    ledger.assert_dropped(&[old_id]);
    assert!(world.get::<Bomb>(first).is_some());
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn replacing_a_sparse_value_whose_drop_panics_completes_the_insert() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let old = ledger.armed::<SparseBomb>();
    let old_id = old.id;
    let e = world.spawn((ledger.safe::<Val>(), old)).id();
    let (new, val2) = (ledger.safe::<SparseBomb>(), ledger.safe::<Val2>());
    let (new_id, val2_id) = (new.id, val2.id);
    assert_exploded(&panic_message(|| world.insert(e, (new, val2))));
    assert_eq!(world.get::<SparseBomb>(e).map(|bomb| bomb.id), Some(new_id));
    assert_eq!(world.get::<Val2>(e).map(|value| value.id), Some(val2_id));
    ledger.assert_dropped(&[old_id]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn replacing_a_pair_value_whose_drop_panics_completes_the_insert() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let target = world.spawn(ledger.safe::<Val>()).id();
    let e = world.spawn(ledger.safe::<Val>()).id();
    let old = ledger.armed::<Owes>();
    let old_id = old.id;
    world.insert_pair(e, old, target);
    let new = ledger.safe::<Owes>();
    let new_id = new.id;
    assert_exploded(&panic_message(|| world.insert_pair(e, new, target)));
    assert_eq!(world.get_pair::<Owes>(e, target).map(|owes| owes.id), Some(new_id));
    ledger.assert_dropped(&[old_id]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn replacing_an_exclusive_pair_whose_value_panics_completes_the_insert() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let (dock_a, dock_b) = (world.spawn(ledger.safe::<Val>()).id(), world.spawn(ledger.safe::<Val>()).id());
    let ships: Vec<Entity> = (0..3).map(|_| world.spawn(ledger.safe::<Val>()).id()).collect();
    let old = ledger.armed::<DockedAt>();
    let old_id = old.id;
    world.insert_pair(ships[1], old, dock_a);
    for &ship in [ships[0], ships[2]].iter() {
        world.insert_pair(ship, ledger.safe::<DockedAt>(), dock_a);
    }
    let new = ledger.safe::<DockedAt>();
    let new_id = new.id;
    // Exclusive: the (DockedAt, dock_a) pair and its value go in the same move.
    assert_exploded(&panic_message(|| world.insert_pair(ships[1], new, dock_b)));
    assert!(!world.has_pair::<DockedAt>(ships[1], dock_a));
    assert_eq!(world.get_pair::<DockedAt>(ships[1], dock_b).map(|docked| docked.id), Some(new_id));
    ledger.assert_dropped(&[old_id]);
    for ship in [ships[0], ships[2]] {
        assert!(world.get_pair::<DockedAt>(ship, dock_a).is_some());
    }
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- Drop panics: dropping the world ---------------------------------------------------

/// A world with values in several tables, sparse sets, pairs and resources.
fn populated(ledger: &Ledger) -> World {
    let mut world = World::new();
    let target = world.spawn(ledger.safe::<Val>()).id();
    for _ in 0..5 {
        world.spawn((ledger.safe::<Val>(), ledger.safe::<Bomb>(), ledger.safe::<SparseVal>()));
        world.spawn((ledger.safe::<Val2>(), ledger.safe::<SparseBomb>()));
        let holder = world.spawn(ledger.safe::<Val>()).id();
        world.insert_pair(holder, ledger.safe::<Owes>(), target);
    }
    world.insert_resource(ledger.safe::<ResVal>());
    world
}

#[test]
fn dropping_a_world_whose_table_value_panics_drops_every_other_value() {
    let ledger = Ledger::default();
    let mut world = populated(&ledger);
    world.spawn((ledger.safe::<Val>(), ledger.armed::<Bomb>(), ledger.safe::<SparseVal>()));
    world.spawn((ledger.safe::<Val>(), ledger.safe::<Bomb>(), ledger.safe::<SparseVal>()));
    assert_exploded(&panic_message(move || drop(world)));
    ledger.assert_all_dropped_once();
}

#[test]
fn dropping_a_world_whose_sparse_value_panics_drops_every_other_value() {
    let ledger = Ledger::default();
    let mut world = populated(&ledger);
    world.spawn((ledger.safe::<Val2>(), ledger.armed::<SparseBomb>()));
    world.spawn((ledger.safe::<Val2>(), ledger.safe::<SparseBomb>()));
    assert_exploded(&panic_message(move || drop(world)));
    ledger.assert_all_dropped_once();
}

#[test]
fn dropping_a_world_whose_pair_value_panics_drops_every_other_value() {
    let ledger = Ledger::default();
    let mut world = populated(&ledger);
    let target = world.spawn(ledger.safe::<Val>()).id();
    for armed in [false, true, false] {
        let holder = world.spawn(ledger.safe::<Val>()).id();
        world.insert_pair(holder, ledger.value::<Owes>(armed), target);
    }
    assert_exploded(&panic_message(move || drop(world)));
    ledger.assert_all_dropped_once();
}

#[test]
fn dropping_a_world_whose_resource_panics_drops_every_other_value() {
    let ledger = Ledger::default();
    let mut world = populated(&ledger);
    world.insert_resource(ledger.armed::<ResBomb>());
    assert_exploded(&panic_message(move || drop(world)));
    ledger.assert_all_dropped_once();
}

#[test]
fn several_panicking_values_in_one_operation_do_not_abort() {
    // Beyond the one-panic rule: the world catches every `Drop` it runs, so a
    // second panicking value is dropped (and its panic discarded) instead of
    // panicking while the first panic unwinds, which would abort.
    let ledger = Ledger::default();
    let mut world = World::new();
    let values = (ledger.armed::<Bomb>(), ledger.armed::<SparseBomb>(), ledger.safe::<Val>());
    let ids = [values.0.id, values.1.id, values.2.id];
    let e = world.spawn(values).id();
    assert_exploded(&panic_message(|| world.despawn(e)));
    ledger.assert_dropped(&ids);
    assert_usable(&mut world, &ledger);
    world.spawn((ledger.armed::<Bomb>(), ledger.armed::<SparseBomb>()));
    world.spawn(ledger.armed::<Val>());
    world.insert_resource(ledger.armed::<ResBomb>());
    assert_exploded(&panic_message(move || drop(world)));
    ledger.assert_all_dropped_once();
}

// ----- hooks -----------------------------------------------------------------------------

thread_local! {
    /// The hook that panics next (`"on_add"`...) and how many more times.
    static HOOK_FUSE: Cell<(&'static str, u32)> = const { Cell::new(("", 0)) };
}

/// A value that commands of a panicking hook, observer or system spawn: it must
/// never appear (those commands are dropped).
#[derive(Component, Debug)]
struct Leftover;

fn arm_hook(kind: &'static str, times: u32) {
    HOOK_FUSE.set((kind, times));
}

fn hook(mut world: DeferredWorld, _ctx: HookContext, kind: &'static str) {
    let (armed, times) = HOOK_FUSE.get();
    if armed == kind && times > 0 {
        HOOK_FUSE.set((armed, times - 1));
        world.commands().spawn(Leftover);
        panic!("{kind} hook exploded");
    }
}

fn add_hook(world: DeferredWorld, ctx: HookContext) {
    hook(world, ctx, "on_add");
}

fn insert_hook(world: DeferredWorld, ctx: HookContext) {
    hook(world, ctx, "on_insert");
}

fn replace_hook(world: DeferredWorld, ctx: HookContext) {
    hook(world, ctx, "on_replace");
}

fn remove_hook(world: DeferredWorld, ctx: HookContext) {
    hook(world, ctx, "on_remove");
}

/// No `Leftover` exists, also after a structural change that applies hook
/// commands (a hooked spawn and despawn).
#[track_caller]
fn assert_no_leftover(world: &mut World, ledger: &Ledger) {
    let e = world.spawn(ledger.safe::<Hooked>()).id();
    world.despawn(e);
    assert_eq!(world.query::<&Leftover>().iter(world).count(), 0, "commands of a panicking hook were applied");
}

#[test]
fn a_panicking_on_add_hook_leaves_the_spawn_done() {
    let ledger = Ledger::default();
    let mut world = World::new();
    arm_hook("on_add", 1);
    let values = (ledger.safe::<Hooked>(), ledger.safe::<Val>());
    let ids = (values.0.id, values.1.id);
    assert_exploded(&panic_message(|| world.spawn(values)));
    let spawned: Vec<(u32, u32)> = world.query::<(&Hooked, &Val)>().iter(&world).map(|(h, v)| (h.id, v.id)).collect();
    assert_eq!(spawned, [ids]);
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_on_insert_hook_leaves_the_insert_done() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let e = world.spawn(ledger.safe::<Val>()).id();
    arm_hook("on_insert", 1);
    let hooked = ledger.safe::<Hooked>();
    let id = hooked.id;
    assert_exploded(&panic_message(|| world.insert(e, hooked)));
    assert_eq!(world.get::<Hooked>(e).map(|h| h.id), Some(id));
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_on_replace_hook_stops_the_insert() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let old = ledger.safe::<Hooked>();
    let old_id = old.id;
    let e = world.spawn((old, ledger.safe::<Val>())).id();
    arm_hook("on_replace", 1);
    let (new, val2) = (ledger.safe::<Hooked>(), ledger.safe::<Val2>());
    let dropped = [new.id, val2.id];
    assert_exploded(&panic_message(|| world.insert(e, (new, val2))));
    assert_eq!(world.get::<Hooked>(e).map(|h| h.id), Some(old_id), "the old value stays");
    assert!(!world.has::<Val2>(e));
    ledger.assert_dropped(&dropped);
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_on_remove_hook_stops_the_remove() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let hooked = ledger.safe::<Hooked>();
    let id = hooked.id;
    let e = world.spawn((hooked, ledger.safe::<Val>())).id();
    arm_hook("on_remove", 1);
    assert_exploded(&panic_message(|| {
        world.entity_mut(e).remove::<Hooked>();
    }));
    assert_eq!(world.get::<Hooked>(e).map(|h| h.id), Some(id));
    ledger.assert_dropped(&[]);
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_on_remove_hook_does_not_stop_a_despawn() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let parent = world.spawn((ledger.safe::<Hooked>(), ledger.safe::<Val>())).id();
    let child = world.spawn(ledger.safe::<Hooked>()).add_pair::<ChildOf>(parent).id();
    let bystander = world.spawn(ledger.safe::<Val>()).id();
    let kept = world.get::<Val>(bystander).unwrap().id;
    arm_hook("on_remove", 1);
    assert_exploded(&panic_message(|| world.despawn(parent)));
    assert!(!world.is_alive(parent) && !world.is_alive(child));
    let all = ledger.ids.borrow().clone();
    ledger.assert_dropped(&all.into_iter().filter(|&id| id != kept).collect::<Vec<_>>());
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn spawn_batch_stops_spawning_when_a_hook_panics() {
    let ledger = Ledger::default();
    let mut world = World::new();
    // Every on_add panics: spawning the rest of the batch while the first panic
    // unwinds would panic again (and abort).
    arm_hook("on_add", 10);
    let values: Vec<Hooked> = (0..3).map(|_| ledger.safe()).collect();
    let first = values[0].id;
    assert_exploded(&panic_message(|| world.spawn_batch(values).count()));
    arm_hook("", 0);
    let spawned: Vec<u32> = world.query::<&Hooked>().iter(&world).map(|h| h.id).collect();
    assert_eq!(spawned, [first]);
    let all = ledger.ids.borrow().clone();
    ledger.assert_dropped(&all.into_iter().filter(|&id| id != first).collect::<Vec<_>>());
    assert_no_leftover(&mut world, &ledger);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- observers -------------------------------------------------------------------------

#[derive(Resource, Default)]
struct Fuse(bool);

#[derive(Resource, Default)]
struct Runs(u32);

#[derive(Event)]
struct Ping;

#[test]
fn a_panicking_observer_keeps_running_for_later_events_and_its_commands_are_dropped() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    world.init_resource::<Runs>();
    world.add_observer(
        |_: Trigger<OnAdd, Val>, mut fuse: ResMut<Fuse>, mut runs: ResMut<Runs>, mut commands: Commands| {
            runs.0 += 1;
            if core::mem::take(&mut fuse.0) {
                commands.spawn(Leftover);
                panic!("observer exploded");
            }
        },
    );
    let val = ledger.safe::<Val>();
    let id = val.id;
    assert_exploded(&panic_message(|| world.spawn(val)));
    assert_eq!(world.query::<&Val>().iter(&world).map(|v| v.id).collect::<Vec<_>>(), [id], "the spawn stays");
    world.spawn(ledger.safe::<Val>());
    assert_eq!(world.resource::<Runs>().0, 2, "the observer ran again");
    assert_eq!(world.query::<&Leftover>().iter(&world).count(), 0, "its commands were dropped");
    assert_usable(&mut world, &ledger);
    assert_eq!(world.resource::<Runs>().0, 3);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_observer_of_a_user_event_runs_again() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    world.init_resource::<Runs>();
    world.add_observer(|_: Trigger<Ping>, mut fuse: ResMut<Fuse>, mut runs: ResMut<Runs>, mut commands: Commands| {
        runs.0 += 1;
        if core::mem::take(&mut fuse.0) {
            commands.spawn(Leftover);
            panic!("observer exploded");
        }
    });
    assert_exploded(&panic_message(|| world.trigger(Ping)));
    world.trigger(Ping);
    assert_eq!(world.resource::<Runs>().0, 2);
    assert_eq!(world.query::<&Leftover>().iter(&world).count(), 0);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_on_remove_observer_does_not_stop_a_despawn() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    world.add_observer(|_: Trigger<OnRemove, Val>, mut fuse: ResMut<Fuse>| {
        if core::mem::take(&mut fuse.0) {
            panic!("observer exploded");
        }
    });
    let values = (ledger.safe::<Val>(), ledger.safe::<SparseVal>());
    let ids = [values.0.id, values.1.id];
    let e = world.spawn(values).id();
    assert_exploded(&panic_message(|| world.despawn(e)));
    assert!(!world.is_alive(e));
    ledger.assert_dropped(&ids);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- systems and commands --------------------------------------------------------------

fn exploding_system(fuse: Res<Fuse>, mut commands: Commands) {
    if fuse.0 {
        commands.spawn(Leftover);
        panic!("system exploded");
    }
}

/// Ids for the `Val`s [`spawn_tracked`] spawns, one per run.
#[derive(Resource)]
struct Spawned(Vec<u32>);

fn spawn_tracked(mut commands: Commands, mut spawned: ResMut<Spawned>) {
    if let Some(id) = spawned.0.pop() {
        commands.spawn(Val { id, armed: false });
    }
}

fn write_vals(mut q: Query<&mut Val>) {
    q.iter_mut().for_each(|mut val| val.armed = false);
}

#[test]
fn a_panicking_system_under_the_multi_threaded_executor_leaves_the_world_usable() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    for _ in 0..20 {
        world.spawn(ledger.safe::<Val>());
    }
    let ids: Vec<u32> = (0..3).map(|_| ledger.safe::<Val>()).map(|val| core::mem::ManuallyDrop::new(val).id).collect();
    world.insert_resource(Spawned(ids));
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(ExecutorKind::MultiThreaded);
    // `write_vals` runs in parallel with the others; `spawn_tracked` completes
    // before the panic, so its commands are applied.
    schedule.add_systems((exploding_system, write_vals, spawn_tracked.before(exploding_system)));
    assert_exploded(&panic_message(|| schedule.run(&mut world)));
    world.check_invariants();
    assert_eq!(world.query::<&Leftover>().iter(&world).count(), 0);
    assert_eq!(world.query::<&Val>().iter(&world).count(), 21);
    world.resource_mut::<Fuse>().0 = false;
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.query::<&Leftover>().iter(&world).count(), 0, "the panicking run's commands stay dropped");
    assert_eq!(world.query::<&Val>().iter(&world).count(), 23);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_held_system_that_panicked_does_not_apply_its_commands_later() {
    let ledger = Ledger::default();
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    let mut system = IntoSystem::into_system(exploding_system);
    system.initialize(&mut world);
    assert_exploded(&panic_message(|| system.run((), &mut world)));
    world.resource_mut::<Fuse>().0 = false;
    system.run((), &mut world);
    assert_eq!(world.query::<&Leftover>().iter(&world).count(), 0);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panicking_command_drops_the_commands_after_it_once() {
    let ledger = Ledger::default();
    let mut world = World::new();
    let (before, after) = (ledger.safe::<Val>(), ledger.safe::<Val>());
    let before_id = before.id;
    let mut values = Some((before, after));
    let message = panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            let (before, after) = values.take().expect("runs once");
            commands.spawn(before);
            commands.queue(|_: &mut World| panic!("command exploded"));
            commands.spawn(after);
        })
    });
    assert_exploded(&message);
    assert_eq!(world.query::<&Val>().iter(&world).map(|v| v.id).collect::<Vec<_>>(), [before_id]);
    let all = ledger.ids.borrow().clone();
    ledger.assert_dropped(&all.into_iter().filter(|&id| id != before_id).collect::<Vec<_>>());
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

// ----- query closures --------------------------------------------------------------------

#[test]
fn a_panic_in_a_for_each_closure_leaves_the_world_usable() {
    let ledger = Ledger::default();
    let mut world = World::new();
    for _ in 0..10 {
        world.spawn((ledger.safe::<Val>(), ledger.safe::<SparseVal>()));
    }
    let mut query = world.query::<(&mut Val, &SparseVal)>();
    let mut changed = world.query_filtered::<Entity, Changed<Val>>();
    changed.iter(&world).count();
    let mut seen = 0;
    let message = panic_message(|| {
        query.iter_mut(&mut world).for_each(|(mut val, _)| {
            seen += 1;
            if seen == 4 {
                panic!("closure exploded");
            }
            val.armed = false;
        })
    });
    assert_exploded(&message);
    assert_eq!(changed.iter(&world).count(), 3, "the rows written before the panic");
    assert_eq!(query.iter_mut(&mut world).count(), 10);
    ledger.assert_dropped(&[]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}

#[test]
fn a_panic_in_a_par_iter_mut_closure_leaves_the_world_usable() {
    let ledger = Ledger::default();
    let mut world = World::new();
    for i in 0..200 {
        if i % 3 == 0 {
            world.spawn((ledger.safe::<Val>(), ledger.safe::<Val2>()));
        } else {
            world.spawn((ledger.safe::<Val>(), ledger.safe::<SparseVal>()));
        }
    }
    let mut query = world.query::<&mut Val>();
    let target = world.query::<&Val>().iter(&world).nth(77).unwrap().id;
    let message = panic_message(|| {
        query.par_iter_mut(&mut world).batch_size(3).for_each(|mut val| {
            if val.id == target {
                panic!("closure exploded");
            }
            val.armed = false;
        })
    });
    assert_exploded(&message);
    assert_eq!(query.iter_mut(&mut world).count(), 200);
    query.par_iter_mut(&mut world).for_each(|mut val| val.armed = false);
    ledger.assert_dropped(&[]);
    assert_usable(&mut world, &ledger);
    assert_world_drops_the_rest(world, &ledger);
}
