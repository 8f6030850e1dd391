//! Review session 7: today's changes to prefab pair copies
//! (`World::collect_pair_copies`, `copy_overrides`), the entity index's `gaps`
//! and `alloc_low`, `_`/`*` alone in runtime queries, and `#bits` / `to_dsl`
//! with the name epoch.
//!
//! Checked (passing): observers on a copied pair that despawn the instance
//! (no orphan prefab children) or another copy's target (no dangling pair, in
//! queries either); an exclusive relationship from two bases (one target, the
//! first base's); a prefab diamond copies once; `on_delete_target = "delete"`
//! reaches copies; copies outlive the prefab and are cleaned up with their
//! target; `Commands`-spawned instances get pair, union and override copies;
//! cached queries built before see copies; a copy closing a two-step acyclic
//! cycle is skipped; a panicking pair `Clone` drops every value exactly once;
//! a proptest of `EntityIndex` (alloc, alloc_low, alloc_at, free, stale free,
//! overlapping ranges, local and remote reservations) against a model: no
//! shared index, no stale handle revived, `check_invariants` after each step;
//! `_` alone (cached and uncached) lists each entity once, empty, pair-only
//! and union-only ones included, never prefabs or disabled ones; `!_` matches
//! nothing; `*`/`!*` see plain ids only; `_` with fixed and variable sources;
//! `#bits` of dead or stale entities is an error at the token, wildcards are
//! accepted, overflow is an error; `to_dsl` under renames, a parent inserted
//! as a bundle, a component registered under an entity's name, and for a
//! query built without a world.
//!
//! Findings (fixed since; the tests pass):
//! * `a_pair_added_to_a_prefabs_base_later_reaches_new_instances_like_an_override`:
//!   pair copies read only the base's own ids, so a pair added to a prefab's
//!   base after the prefab was made never reaches new instances, while an
//!   `override` component added at the same time does.
//! * `components_do_not_take_the_indices_spawn_at_skipped`: `alloc_low` hands
//!   the active range's gaps (indices `spawn_at` skipped) to components, and
//!   the range is exhausted although the spawned ids were never used.

use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::system::CommandQueue;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Hp(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_instantiate = "override")]
struct Armor(u32);

#[derive(Relationship)]
struct Likes;

#[derive(Relationship)]
#[relationship(exclusive)]
struct Eats;

#[derive(Relationship)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

#[derive(Relationship)]
#[relationship(acyclic)]
struct Follows;

#[derive(Relationship)]
#[relationship(union)]
struct Movement;

fn sorted(entities: impl IntoIterator<Item = Entity>) -> Vec<Entity> {
    let mut entities: Vec<Entity> = entities.into_iter().collect();
    entities.sort();
    entities
}

// ----- 1. pair copies -------------------------------------------------------------

#[test]
fn an_observer_despawning_the_instance_on_a_copied_pair_leaves_no_orphans() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let ship = world.spawn((Prefab, Likes.pair(bob))).id();
    world.spawn((Prefab, Hp(1), Name::new("turret"), ChildOf.pair(ship)));
    world.add_observer(|trigger: Trigger<OnAdd, Likes>, mut commands: Commands| {
        commands.entity(trigger.entity()).despawn();
    });
    let before = world.entity_count();
    let inst = world.instantiate(ship);
    world.flush();
    world.check_invariants();
    assert!(!world.is_alive(inst));
    assert_eq!(world.entity_count(), before, "no orphan children of the despawned instance");
}

#[test]
fn a_target_despawned_by_an_observer_of_the_copy_leaves_no_dangling_pair() {
    let mut world = World::new();
    let (bob, carol) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, Likes.pair(bob), Likes.pair(carol))).id();
    world.add_observer(move |trigger: Trigger<OnAdd, Likes>, mut commands: Commands| {
        let _ = trigger;
        commands.entity(carol).despawn();
    });
    let inst = world.instantiate(ship);
    world.flush();
    world.check_invariants();
    assert!(!world.is_alive(carol));
    assert_eq!(sorted(world.targets::<Likes>(inst)), vec![bob]);
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    let rows: Vec<(Entity, Entity)> = q.iter(&world).collect();
    assert_eq!(rows, vec![(inst, bob)]);
}

#[test]
fn an_exclusive_relationship_with_two_bases_gives_one_target() {
    let mut world = World::new();
    let (apples, pears) = (world.spawn_empty().id(), world.spawn_empty().id());
    let a = world.spawn((Prefab, Eats.pair(apples))).id();
    let b = world.spawn((Prefab, Eats.pair(pears))).id();
    let inst = world.spawn((IsA.pair(a), IsA.pair(b))).id();
    world.check_invariants();
    assert_eq!(world.targets::<Eats>(inst).count(), 1, "exclusive: one target");
    let inst2 = world.instantiate(a);
    world.add_pair::<IsA>(inst2, b);
    assert_eq!(sorted(world.targets::<Eats>(inst2)), vec![apples], "the first base wins");
}

#[test]
fn a_prefab_diamond_copies_a_pair_once() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let root = world.spawn((Prefab, Likes.pair(bob))).id();
    let left = world.spawn((Prefab, IsA.pair(root))).id();
    let right = world.spawn((Prefab, IsA.pair(root))).id();
    let bottom = world.spawn((Prefab, IsA.pair(left), IsA.pair(right))).id();
    let inst = world.instantiate(bottom);
    assert_eq!(sorted(world.targets::<Likes>(inst)), vec![bob]);
    let mut q = world.query::<(Entity, Pair<Likes>)>();
    assert_eq!(q.iter(&world).count(), 1);
}

#[test]
fn on_delete_target_delete_reaches_copied_pairs() {
    let mut world = World::new();
    let station = world.spawn_empty().id();
    let ship = world.spawn((Prefab, DockedTo.pair(station))).id();
    let inst = world.instantiate(ship);
    assert!(world.has_pair::<DockedTo>(inst, station));
    world.despawn(station);
    world.check_invariants();
    assert!(!world.is_alive(inst), "the copy's policy deletes the instance");
    assert!(!world.is_alive(ship));
}

#[test]
fn copies_outlive_the_prefab_and_are_cleaned_up_with_their_target() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let ship = world.spawn((Prefab, Likes.pair(bob))).id();
    let inst = world.instantiate(ship);
    world.despawn(ship);
    world.check_invariants();
    assert!(world.is_alive(inst) && world.has_pair::<Likes>(inst, bob));
    assert!(!world.has_pair::<IsA>(inst, ship));
    world.despawn(bob);
    assert_eq!(world.targets::<Likes>(inst).count(), 0);
    world.check_invariants();
}

#[test]
fn a_commands_spawned_instance_gets_pair_union_and_override_copies() {
    let mut world = World::new();
    let (bob, walk) = (world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn((Prefab, Likes.pair(bob), Movement.pair(walk), Armor(3))).id();
    let mut queue = CommandQueue::default();
    let inst = Commands::new(&mut queue, &world).spawn((IsA.pair(ship), Hp(1))).id();
    queue.apply(&mut world);
    world.check_invariants();
    assert!(world.has_pair::<Likes>(inst, bob));
    assert!(world.has_pair::<Movement>(inst, walk));
    assert_eq!(world.get::<Armor>(inst), Some(&Armor(3)));
}

#[test]
fn a_cached_query_built_before_sees_copied_pairs() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let ship = world.spawn((Prefab, Likes.pair(bob))).id();
    let mut dq = world.query_dsl("(Likes, *)").unwrap();
    assert_eq!(dq.iter(&world).count(), 0);
    let inst = world.instantiate(ship);
    let rows: Vec<(Entity, Entity)> = dq.iter(&world).map(|row| (row.entity(), row.pair_target(0))).collect();
    assert_eq!(rows, vec![(inst, bob)]);
}

#[test]
fn a_copy_closing_a_longer_acyclic_cycle_is_skipped() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let a = world.spawn_empty().id();
    world.add_pair::<Follows>(a, e);
    let leader = world.spawn(Prefab).id();
    world.add_pair::<Follows>(leader, a);
    world.entity_mut(e).add_pair::<IsA>(leader);
    world.check_invariants();
    assert!(!world.has_pair::<Follows>(e, a), "e -> a -> e would be a cycle");
}

// Finding: a pair added to the base of a prefab after the prefab was made
// never reaches the prefab's new instances. Expected (Flecs 4: instantiating
// walks the base's own `IsA` bases, `flecs_add_overrides_for_base` recursing,
// and pairs are `(OnInstantiate, Override)` like components; here the
// `override` component `Armor` added at the same time does reach the
// instance, read through `Archetype::inherited`): `inst` gets `(Likes, bob)`.
// Actual: `Armor(7)` is copied, `(Likes, bob)` is not:
// `World::collect_pair_copies` reads only `base`'s own archetype ids, never
// what the base inherits, so pair copies are a snapshot of the prefab chain
// at the time each prefab was made.
#[test]
fn a_pair_added_to_a_prefabs_base_later_reaches_new_instances_like_an_override() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let root = world.spawn(Prefab).id();
    let middle = world.spawn((Prefab, IsA.pair(root))).id();
    world.insert(root, Armor(7));
    world.add_pair::<Likes>(root, bob);
    let inst = world.instantiate(middle);
    assert_eq!(world.get::<Armor>(inst), Some(&Armor(7)));
    assert!(world.has_pair::<Likes>(inst, bob));
}

// ----- 3. `_` and `*` ---------------------------------------------------------------

fn dsl_rows(world: &World, text: &str, cached: bool) -> Vec<Entity> {
    let mut q = if cached { world.query_dsl(text) } else { world.query_dsl_uncached(text) }
        .unwrap_or_else(|error| panic!("{text}: {error}"));
    sorted(q.iter(world).map(|row| row.entity()))
}

#[test]
fn any_alone_matches_every_listed_entity_and_star_plain_ids_only() {
    let mut world = World::new();
    let bob = world.spawn_empty().id();
    let e_empty = world.spawn_empty().id();
    let e_pair = world.spawn(Likes.pair(bob)).id();
    let e_hp = world.spawn((Hp(1), Likes.pair(bob))).id();
    let walk = world.spawn_empty().id();
    let e_union = world.spawn_empty().id();
    world.add_pair::<Movement>(e_union, walk);
    let prefab = world.spawn((Prefab, Hp(2))).id();
    let disabled = world.spawn((Disabled, Hp(3))).id();
    let inst = world.instantiate(prefab);
    let mut all: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
    all.sort();
    for cached in [false, true] {
        assert_eq!(dsl_rows(&world, "_", cached), all, "cached {cached}");
        assert_eq!(dsl_rows(&world, "!_", cached), vec![], "cached {cached}");
        assert_eq!(dsl_rows(&world, "?_", cached), all, "cached {cached}");
        assert_eq!(dsl_rows(&world, "Hp, _", cached), sorted([e_hp, inst]), "cached {cached}");
        let star = dsl_rows(&world, "*", cached);
        assert!(star.contains(&e_hp) && !star.contains(&e_pair) && !star.contains(&e_empty));
        assert!(!star.contains(&prefab) && !star.contains(&disabled));
    }
    let _ = (e_union, e_empty);
}

// ----- pair value clones ---------------------------------------------------------

static CLONES: AtomicUsize = AtomicUsize::new(0);
static DROPS: AtomicUsize = AtomicUsize::new(0);
static PANIC_AT: AtomicUsize = AtomicUsize::new(usize::MAX);

#[derive(Relationship, Debug)]
#[component(on_instantiate = "override")]
struct Debt(u32);

impl Clone for Debt {
    fn clone(&self) -> Debt {
        let n = CLONES.fetch_add(1, Ordering::SeqCst);
        if n == PANIC_AT.load(Ordering::SeqCst) {
            panic!("clone {n} fails");
        }
        Debt(self.0)
    }
}

impl Drop for Debt {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panicking_pair_clone_drops_each_value_once() {
    let mut world = World::new();
    let (a, b, c) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let ship = world.spawn(Prefab).id();
    world.insert_pair(ship, Debt(1), a);
    world.insert_pair(ship, Debt(2), b);
    world.insert_pair(ship, Debt(3), c);
    let inst = world.instantiate(ship);
    assert_eq!(world.get_pair::<Debt>(inst, b).map(|d| d.0), Some(2));
    PANIC_AT.store(CLONES.load(Ordering::SeqCst) + 1, Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.instantiate(ship)));
    assert!(result.is_err());
    PANIC_AT.store(usize::MAX, Ordering::SeqCst);
    world.check_invariants();
    drop(world);
    assert_eq!(CLONES.load(Ordering::SeqCst) - 1 + 3, DROPS.load(Ordering::SeqCst), "each value dropped once");
}

// ----- 4. `#bits` and to_dsl ------------------------------------------------------

#[test]
fn bits_of_dead_and_stale_entities_are_errors_and_wildcards_are_not() {
    let mut world = World::new();
    world.register_component::<Hp>();
    world.register_component::<Likes>();
    let alive = world.spawn_empty().id();
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let recycled = world.spawn_empty().id();
    assert_eq!(recycled.index(), dead.index());
    assert!(world.query_dsl(&format!("Hp(#{})", alive.to_bits())).is_ok());
    assert!(world.query_dsl(&format!("(Likes, #{})", recycled.to_bits())).is_ok());
    let error = world.query_dsl(&format!("Hp(#{})", dead.to_bits())).expect_err("a stale handle is refused");
    assert_eq!(error.offset, 3);
    let error = world.query_dsl(&format!("Hp, (Likes, #{})", dead.to_bits())).expect_err("refused as a target");
    assert_eq!(error.offset, 12);
    assert!(world.query_dsl(&format!("(Hp, #{})", Entity::WILDCARD.to_bits())).is_ok());
    assert!(world.query_dsl(&format!("(Hp, #{})", Entity::ANY.to_bits())).is_ok());
    assert!(world.query_dsl("Hp(#0)").is_err());
    assert!(world.query_dsl("Hp(#18446744073709551615)").is_err());
    assert!(world.query_dsl("Hp(#99999999999999999999999)").is_err(), "overflow is an error, not a panic");
}

#[test]
fn to_dsl_after_a_component_takes_an_entitys_name_names_the_entity() {
    let mut world = World::new();
    world.register_component::<Likes>();
    let target = world.spawn(Name::new("Hp")).id();
    let mut q = world.query_dsl("(Likes, Hp)").unwrap();
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(q.to_dsl(), "(Likes, Hp)");
    let hp = world.register_component::<Hp>();
    assert_eq!(world.lookup("Hp"), Some(hp), "the component's name wins");
    assert_ne!(hp, target);
    let printed = q.to_dsl();
    let reparsed = world.query_dsl(&printed).unwrap();
    assert_eq!(reparsed.terms(), q.terms(), "{printed} names another entity");
}

#[test]
fn to_dsl_after_a_parent_inserted_as_a_bundle_parses_back() {
    let mut world = World::new();
    world.register_component::<Likes>();
    let street = world.spawn(Name::new("street")).id();
    let avenue = world.spawn(Name::new("avenue")).id();
    let home = world.spawn((Name::new("home"), ChildOf.pair(street))).id();
    let mut q = world.query_dsl("(Likes, street::home)").unwrap();
    assert_eq!(q.iter(&world).count(), 0);
    assert_eq!(q.to_dsl(), "(Likes, street::home)");
    world.entity_mut(home).insert(ChildOf.pair(avenue));
    assert_eq!(world.path(home).as_deref(), Some("avenue::home"));
    let printed = q.to_dsl();
    let reparsed = world.query_dsl(&printed).unwrap_or_else(|error| panic!("{printed}: {error}"));
    assert_eq!(reparsed.terms(), q.terms(), "{printed}");
}

#[test]
fn to_dsl_of_a_query_built_without_a_world_prints_bits() {
    let mut world = World::new();
    let likes = world.register_component::<Likes>();
    let bob = world.spawn(Name::new("bob")).id();
    let built = world.query_dsl("(Likes, bob)").unwrap();
    let q = DynQuery::new(built.terms().to_vec(), true).unwrap();
    assert_eq!(q.to_dsl(), format!("(#{}, #{})", likes.to_bits(), bob.to_bits()));
    let reparsed = world.query_dsl(&q.to_dsl()).unwrap();
    assert_eq!(reparsed.terms(), q.terms());
}

// ----- 2. the entity index: a model --------------------------------------------------

mod index_model {
    use std::collections::{HashMap, HashSet};

    use ecs::entity::{Entity, EntityIndex, EntityLocation, SpawnError};
    use proptest::prelude::*;

    const RANGES: [std::ops::Range<u32>; 4] = [1..400, 300..700, 1000..1400, 6000..u32::MAX];

    #[derive(Debug, Clone)]
    pub enum Op {
        Alloc,
        AllocLow,
        AllocAt(u32),
        Free(usize),
        FreeStale(usize),
        SetRange(usize),
        ReserveLocal(u8),
        ReserveRemote(u8),
        Flush,
    }

    pub fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Alloc),
            2 => Just(Op::AllocLow),
            3 => (0u32..400).prop_map(Op::AllocAt),
            3 => any::<usize>().prop_map(Op::Free),
            1 => any::<usize>().prop_map(Op::FreeStale),
            1 => (0usize..RANGES.len()).prop_map(Op::SetRange),
            1 => (1u8..4).prop_map(Op::ReserveLocal),
            1 => (1u8..4).prop_map(Op::ReserveRemote),
            1 => Just(Op::Flush),
        ]
    }

    #[derive(Default)]
    pub struct Model {
        alive: HashMap<u32, Entity>,
        history: HashSet<Entity>,
        max_generation: HashMap<u32, u32>,
        pending: HashSet<Entity>,
        range: std::ops::Range<u32>,
    }

    impl Model {
        fn born(&mut self, entity: Entity, what: &str) {
            assert!(!self.alive.contains_key(&entity.index()), "{what}: {entity:?} shares an alive index");
            assert!(self.history.insert(entity), "{what}: {entity:?} was alive before (a stale handle revived)");
            let generation = self.max_generation.entry(entity.index()).or_insert(0);
            *generation = (*generation).max(entity.generation());
            self.alive.insert(entity.index(), entity);
        }

        fn placed(&mut self, placed: Vec<Entity>, what: &str) {
            for entity in placed {
                self.pending.remove(&entity);
                self.born(entity, what);
            }
        }
    }

    pub fn run(ops: &[Op]) {
        let mut index = EntityIndex::default();
        let mut model = Model { range: EntityIndex::FULL_RANGE, ..Model::default() };
        let remote = index.remote();
        for op in ops {
            let mut placed = Vec::new();
            match *op {
                Op::Alloc => {
                    // Overlapping ranges may leave no fresh index (documented).
                    let Ok(entity) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| index.alloc())) else {
                        continue;
                    };
                    assert!(model.range.contains(&entity.index()), "{entity:?} outside {:?}", model.range);
                    model.born(entity, "alloc");
                }
                Op::AllocLow => {
                    let entity = index.alloc_low();
                    model.born(entity, "alloc_low");
                }
                Op::AllocAt(offset) => {
                    let index_at = model.range.start + offset % (model.range.end - model.range.start).min(200);
                    let generation = model.max_generation.get(&index_at).map_or(0, |generation| generation + 1);
                    let wanted = Entity::from_raw(index_at, generation);
                    let result = index.alloc_at(wanted, |entity| {
                        placed.push(entity);
                        EntityLocation::INVALID
                    });
                    model.placed(std::mem::take(&mut placed), "alloc_at's sweep");
                    match result {
                        Ok(()) => model.born(wanted, "alloc_at"),
                        Err(SpawnError::Alive { .. }) => {
                            assert!(model.alive.contains_key(&index_at), "{wanted:?} refused as alive")
                        }
                        Err(SpawnError::Reserved { .. }) => {
                            assert!(!model.pending.is_empty(), "{wanted:?} refused as reserved")
                        }
                        Err(error) => panic!("alloc_at({wanted:?}): {error:?}"),
                    }
                }
                Op::Free(k) | Op::FreeStale(k) => {
                    if index.has_reserved() {
                        index.flush(|entity| {
                            placed.push(entity);
                            EntityLocation::INVALID
                        });
                        model.placed(std::mem::take(&mut placed), "flush");
                    }
                    let stale = matches!(op, Op::FreeStale(_));
                    let mut candidates: Vec<Entity> = if stale {
                        model.history.iter().copied().filter(|e| model.alive.get(&e.index()) != Some(e)).collect()
                    } else {
                        model.alive.values().copied().collect()
                    };
                    candidates.sort();
                    if let Some(&entity) = candidates.get(k % candidates.len().max(1)) {
                        let freed = index.free(entity).is_some();
                        assert_eq!(freed, !stale, "free({entity:?})");
                        if !stale {
                            model.alive.remove(&entity.index());
                        }
                    }
                }
                Op::SetRange(which) => {
                    if index.has_reserved() {
                        index.flush(|entity| {
                            placed.push(entity);
                            EntityLocation::INVALID
                        });
                        model.placed(std::mem::take(&mut placed), "flush");
                    }
                    index.set_range(RANGES[which].clone(), |entity| {
                        placed.push(entity);
                        EntityLocation::INVALID
                    });
                    model.placed(std::mem::take(&mut placed), "set_range");
                    model.range = RANGES[which].clone();
                }
                Op::ReserveLocal(n) | Op::ReserveRemote(n) => {
                    for _ in 0..n {
                        let reserved = if matches!(op, Op::ReserveLocal(_)) {
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| index.reserve_entity())).ok()
                        } else {
                            remote.try_reserve()
                        };
                        let Some(entity) = reserved else {
                            if matches!(op, Op::ReserveLocal(_)) {
                                return; // the local count is off: the case ends
                            }
                            break;
                        };
                        assert!(!index.is_alive(entity), "reserved {entity:?} is alive");
                        assert!(model.pending.insert(entity), "{entity:?} reserved twice");
                    }
                    if matches!(op, Op::ReserveLocal(_)) {
                        index.flush(|entity| {
                            placed.push(entity);
                            EntityLocation::INVALID
                        });
                        model.placed(std::mem::take(&mut placed), "flush");
                    }
                }
                Op::Flush => {
                    index.flush(|entity| {
                        placed.push(entity);
                        EntityLocation::INVALID
                    });
                    model.placed(std::mem::take(&mut placed), "flush");
                    assert!(model.pending.is_empty(), "flush left {:?} pending", model.pending);
                }
            }
            index.check_invariants();
            assert_eq!(index.alive_count(), model.alive.len(), "after {op:?}");
            for entity in &model.history {
                let alive = model.alive.get(&entity.index()) == Some(entity);
                assert_eq!(index.is_alive(*entity), alive, "{entity:?} after {op:?}");
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..proptest::prelude::ProptestConfig::default() })]
    #[test]
    fn entity_index_agrees_with_a_model(ops in proptest::collection::vec(index_model::op(), 1..120)) {
        index_model::run(&ops);
    }
}

#[derive(Relationship)]
#[relationship(union)]
struct Stance;

#[test]
fn any_gives_one_row_per_entity_with_unions_and_pairs() {
    let mut world = World::new();
    let (bob, carol, walk, crouch) =
        (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    let two_unions = world.spawn_empty().id();
    world.add_pair::<Movement>(two_unions, walk);
    world.add_pair::<Stance>(two_unions, crouch);
    let two_pairs = world.spawn((Likes.pair(bob), Likes.pair(carol))).id();
    let union_only = world.spawn_empty().id();
    world.add_pair::<Movement>(union_only, walk);
    let everything: Vec<Entity> = sorted(world.query::<Entity>().iter(&world));
    for cached in [false, true] {
        let mut q = if cached { world.query_dsl("_") } else { world.query_dsl_uncached("_") }.unwrap();
        let rows: Vec<(Entity, Id)> = q.iter(&world).map(|row| (row.entity(), row.id(0))).collect();
        let entities = sorted(rows.iter().map(|(e, _)| *e));
        assert_eq!(entities, everything, "cached {cached}: each entity once");
        for (entity, id) in &rows {
            if *entity == two_pairs {
                assert!(world.has_id(*entity, *id), "{id:?} is an id of {entity:?}");
            }
        }
        let star = dsl_rows(&world, "*", cached);
        assert!(!star.contains(&union_only) && !star.contains(&two_pairs));
        let not_star = dsl_rows(&world, "!*", cached);
        assert!(not_star.contains(&union_only) && not_star.contains(&two_unions));
        assert_eq!(dsl_rows(&world, "_, (Likes, *)", cached), vec![two_pairs, two_pairs]);
        assert_eq!(dsl_rows(&world, "(Movement, *), _", cached), sorted([two_unions, union_only]));
    }
}

#[test]
fn a_cached_any_query_sees_new_tables_and_empty_entities() {
    let mut world = World::new();
    let mut any = world.query_dsl("_").unwrap();
    let mut not_any = world.query_dsl("!_").unwrap();
    assert_eq!(any.iter(&world).count(), 0);
    let a = world.spawn_empty().id();
    assert_eq!(sorted(any.iter(&world).map(|row| row.entity())), vec![a]);
    let b = world.spawn(Hp(1)).id();
    let bob = world.spawn_empty().id();
    let c = world.spawn(Likes.pair(bob)).id();
    assert_eq!(sorted(any.iter(&world).map(|row| row.entity())), sorted([a, b, bob, c]));
    assert_eq!(not_any.iter(&world).count(), 0);
    world.despawn(b);
    world.collect_garbage(GcConfig { empty_for: 0, max_time: None });
    assert_eq!(sorted(any.iter(&world).map(|row| row.entity())), sorted([a, bob, c]));
    assert_eq!(not_any.iter(&world).count(), 0);
}

#[test]
fn any_on_fixed_and_variable_sources() {
    let mut world = World::new();
    let bob = world.spawn((Name::new("bob"), Hp(1))).id();
    let pairs_only = world.spawn((Name::new("pairsonly"),)).id();
    world.add_pair::<Likes>(pairs_only, bob);
    world.spawn(Hp(2));
    // `_(bob)`: a fact; bob has plain ids.
    let mut q = world.query_dsl("Hp, _(bob)").unwrap();
    assert_eq!(q.iter(&world).count(), 2);
    let mut q = world.query_dsl("Hp, !_(bob)").unwrap();
    assert_eq!(q.iter(&world).count(), 0);
    let mut q = world.query_dsl("(Likes, $x), _($x)").unwrap();
    let rows: Vec<Entity> = q.iter(&world).map(|row| row.entity()).collect();
    assert_eq!(rows, vec![pairs_only]);
}

macro_rules! markers {
    ($($name:ident),*) => { $(#[derive(Component)] struct $name(#[allow(dead_code)] u8);)* };
}
markers!(C0, C1, C2, C3, C4, C5, C6, C7);

// Finding: component registration takes the never-used indices `spawn_at`
// skipped in the active range (its `gaps`), and spawning then runs out.
// Expected (session 6's fixed finding `components_registered_under_a_low_range_do_not_take_its_ids`,
// and `EntityIndex::alloc_low`'s doc "a high range never gives a component one
// of its indices while a lower one is unused"): with `52..62` active and
// `spawn_at(61)`, the nine skipped indices stay spawnable and components take
// indices outside the range (62 and up are free). Actual: the eight
// components get 52..59, and the ninth `spawn` panics "the entity range
// 52..62 is exhausted". Cause: `EntityIndex::alloc_low` (ecs/src/entity/index.rs)
// only avoids `range ∩ [flushed, ..)`; the gaps below `flushed` belong to the
// range too and should be skipped (jump past the range, as for the window).
#[test]
fn components_do_not_take_the_indices_spawn_at_skipped() {
    let mut world = World::new();
    let used: Vec<Entity> = (0..40).map(|_| world.spawn_empty().id()).collect();
    let top = used.iter().map(|e| e.index()).max().unwrap() + 1;
    world.set_entity_range(top..top + 10);
    world.spawn_at(Entity::from_raw(top + 9, 0)).expect("in the range");
    let components = [
        world.register_component::<C0>(),
        world.register_component::<C1>(),
        world.register_component::<C2>(),
        world.register_component::<C3>(),
        world.register_component::<C4>(),
        world.register_component::<C5>(),
        world.register_component::<C6>(),
        world.register_component::<C7>(),
    ];
    assert!(components.iter().all(|c| !(top..top + 10).contains(&c.index())), "{components:?}");
    let spawned: Vec<Entity> = (0..9).map(|_| world.spawn_empty().id()).collect();
    world.check_invariants();
    assert!(spawned.iter().all(|e| (top..top + 9).contains(&e.index())));
}
