//! Review session 3: adversarial tests for the commits 10ebaf0 and 97dfd0f
//! (exclusivity changes of runtime relationships, `Local<T: Send>`,
//! `SystemReadOnly` pipes and maps as run conditions, `PipeSystem::run`
//! applying both halves' commands after both ran, stale plain ids in the
//! component index, `clear_entities` ignoring `panic` policies, and the
//! `ParamSet` relabel of `#[derive(SystemParam)]`).
//!
//! Its finding, fixed: `clear_entities` despawning an `on_delete = panic`
//! relationship before an entity holding its pairs ran a cleanup plan that
//! neither removed nor deleted the holders (the refusal was skipped), then
//! deleted their non-empty archetypes. Without refusals, `panic` now plans
//! as `remove`.

#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs::component::{CleanupPolicy, RelationshipTraits};
use ecs::prelude::*;
use ecs::system::{FunctionSystem, SystemReadOnly};

fn quiet<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Pos(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
struct Tag;

#[derive(Resource, Default, Debug, PartialEq)]
struct Counter(u32);

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<u32>);

// ------------------------------------------ (1) exclusivity trait changes

fn empties<const N: usize>(world: &mut World) -> [Entity; N] {
    core::array::from_fn(|_| world.spawn_empty().id())
}

#[test]
fn exclusive_change_after_use_through_other_components_edges() {
    // The cached edge `[Pos] + (rel, a)` leads to an archetype of the
    // relationship's pairs: it goes with that archetype.
    let mut world = World::new();
    let [rel, a, b] = empties(&mut world);
    let e = world.spawn(Pos(1.0)).id();
    world.add_pair_id(e, rel, a);
    world.add_pair_id(e, rel, b);
    assert!(world.has_pair_id(e, rel, a) && world.has_pair_id(e, rel, b));
    world.remove_pair_id(e, rel, a);
    world.remove_pair_id(e, rel, b);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    world.check_invariants();
    let f = world.spawn(Pos(2.0)).id();
    world.add_pair_id(f, rel, a);
    world.add_pair_id(f, rel, b);
    assert!(!world.has_pair_id(f, rel, a), "an exclusive relationship kept two targets");
    assert!(world.has_pair_id(f, rel, b));
    world.add_pair_id(e, rel, a);
    world.add_pair_id(e, rel, b);
    assert!(!world.has_pair_id(e, rel, a));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0)));
    world.check_invariants();
    // Back to non-exclusive once nobody holds the pairs.
    world.remove_pair_id(e, rel, b);
    world.remove_pair_id(f, rel, b);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT);
    world.add_pair_id(e, rel, a);
    world.add_pair_id(e, rel, b);
    assert!(world.has_pair_id(e, rel, a) && world.has_pair_id(e, rel, b));
    world.check_invariants();
}

#[test]
fn exclusive_change_while_held_panics_and_changes_nothing() {
    let mut world = World::new();
    let [rel, a, b] = empties(&mut world);
    let e = world.spawn(Pos(1.0)).id();
    world.add_pair_id(e, rel, a);
    assert!(quiet(|| world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive())).is_err());
    world.check_invariants();
    // Still non-exclusive, the holder untouched.
    world.add_pair_id(e, rel, b);
    assert!(world.has_pair_id(e, rel, a) && world.has_pair_id(e, rel, b));
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0)));
}

#[test]
fn exclusive_change_held_by_a_prefab_or_disabled_entity_panics() {
    let mut world = World::new();
    let [rel, a] = empties(&mut world);
    let prefab = world.spawn((Prefab, Pos(0.0))).id();
    world.add_pair_id(prefab, rel, a);
    assert!(quiet(|| world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive())).is_err());
    world.check_invariants();
    assert!(world.has_pair_id(prefab, rel, a));
}

#[test]
fn exclusive_change_keeps_cached_queries_consistent() {
    let mut world = World::new();
    let [rel, a, b] = empties(&mut world);
    let mut positions = world.query::<(Entity, &Pos)>();
    let e = world.spawn(Pos(1.0)).id();
    world.add_pair_id(e, rel, a);
    world.add_pair_id(e, rel, b);
    assert_eq!(positions.iter(&world).count(), 1);
    world.remove_pair_id(e, rel, a);
    world.remove_pair_id(e, rel, b);
    // `e` now sits in `[Pos]`; the pair archetypes are empty.
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    assert_eq!(positions.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![e]);
    world.add_pair_id(e, rel, a);
    world.add_pair_id(e, rel, b);
    assert_eq!(positions.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), vec![e]);
    let mut dynamic = world.query_builder().pair(rel, b).build().expect("query builds");
    let rows: Vec<Entity> = dynamic.iter(&world).map(|r| r.entity()).collect();
    assert_eq!(rows, vec![e]);
    world.check_invariants();
}

#[test]
fn exclusive_change_drops_bundle_destinations() {
    // A bundle spawn that lands in an archetype with a pair caches its
    // destination; the archetype goes with the trait change.
    let mut world = World::new();
    let [rel, a, b] = empties(&mut world);
    let first = world.spawn((Pos(1.0), Tag)).id();
    world.add_pair_id(first, rel, a);
    world.add_pair_id(first, rel, b);
    world.despawn(first);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive());
    for i in 0..3 {
        let e = world.spawn((Pos(i as f32), Tag)).id();
        world.add_pair_id(e, rel, a);
        world.add_pair_id(e, rel, b);
        assert!(!world.has_pair_id(e, rel, a));
        assert!(world.has_pair_id(e, rel, b));
    }
    world.check_invariants();
}

#[test]
fn other_trait_changes_keep_held_pairs() {
    // Changing only the cleanup policy is allowed while the pairs are held.
    let mut world = World::new();
    let [rel, a] = empties(&mut world);
    let e = world.spawn(Pos(1.0)).id();
    world.add_pair_id(e, rel, a);
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Delete));
    assert!(world.has_pair_id(e, rel, a));
    world.check_invariants();
}

// ------------------------------------------------------ (2) Local<T: Send>

#[test]
fn local_of_non_sync_values_counts_per_system() {
    fn bump(cell: Local<Cell<u32>>, text: Local<RefCell<String>>, mut seen: ResMut<Seen>) {
        cell.set(cell.get() + 1);
        text.borrow_mut().push('x');
        seen.0.push(cell.get() * 10 + text.borrow().len() as u32);
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems((bump, bump));
    schedule.run(&mut world);
    schedule.run(&mut world);
    let mut seen = world.resource::<Seen>().0.clone();
    seen.sort();
    assert_eq!(seen, vec![11, 11, 22, 22], "each system has its own local");
}

#[test]
fn a_system_with_a_non_sync_local_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>(_: &T) {}
    fn with_cell(cell: Local<Cell<u8>>) {
        cell.set(1);
    }
    let system = IntoSystem::into_system(with_cell);
    assert_send_sync(&system);
    // Its state, shared between threads, gives no access to the value: only
    // `&mut` reaches it (a system runs through `&mut self`).
    let shared: &FunctionSystem<_, _> = &system;
    std::thread::scope(|scope| {
        scope.spawn(|| shared.name().len());
        scope.spawn(|| shared.name().len());
    });
}

#[test]
fn local_in_derived_param_with_non_sync_value() {
    #[derive(SystemParam)]
    struct Bumper<'w, 's> {
        local: Local<'s, Cell<u32>>,
        counter: ResMut<'w, Counter>,
    }
    fn run(mut bumper: Bumper) {
        bumper.local.set(bumper.local.get() + 1);
        bumper.counter.0 = bumper.local.get();
    }
    let mut world = World::new();
    world.init_resource::<Counter>();
    let id = world.register_system(run);
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Counter>().0, 2);
}

// ---------------------------------------------- (3) SystemReadOnly / conditions

fn is_read_only<M, S: IntoSystem<M>>(system: S) -> bool
where
    S::System: SystemReadOnly,
{
    let _ = system;
    <S::System as SystemReadOnly>::READ_ONLY
}

fn reads(counter: Res<Counter>) -> u32 {
    counter.0
}

fn writes(mut counter: ResMut<Counter>) -> u32 {
    counter.0 += 1;
    counter.0
}

fn gate(In(n): In<u32>) -> bool {
    n > 0
}

fn gate_writing(In(n): In<u32>, mut counter: ResMut<Counter>) -> bool {
    counter.0 += 100;
    n > 0
}

fn writes_component(mut q: Query<&mut Pos>) -> u32 {
    for mut p in q.iter_mut() {
        p.0 += 1.0;
    }
    0
}

#[test]
fn read_only_flags_of_pipes_maps_and_exclusives() {
    assert!(is_read_only(reads.pipe(gate)));
    assert!(is_read_only(reads.map(|n| n > 0)));
    assert!(is_read_only(reads.pipe(gate).map(|b| !b)));
    assert!(is_read_only(reads.map(|n| n + 1).pipe(gate)));
    assert!(!is_read_only(writes.pipe(gate)));
    assert!(!is_read_only(reads.pipe(gate_writing)));
    assert!(!is_read_only(writes.map(|n| n > 0)));
    assert!(!is_read_only(writes_component.map(|n| n > 0)));
    assert!(!is_read_only(reads.pipe(gate).pipe(|In(b): In<bool>, mut c: ResMut<Counter>| {
        c.0 += 1;
        b
    })));
    assert!(!is_read_only(reads.map(|n| n).pipe(gate_writing).map(|b| b)));
    // Exclusive halves.
    let exclusive = |world: &mut World| world.resource::<Counter>().0;
    assert!(!is_read_only(exclusive.pipe(gate)));
    assert!(!is_read_only(exclusive.map(|n| n > 0)));
    assert!(!is_read_only((|| ()).pipe(|world: &mut World| world.resource::<Counter>().0 > 0)));
    // `Commands`, `Local`, `Query<&T>` are read-only.
    assert!(is_read_only(
        (|_c: Commands, l: Local<Cell<u32>>, q: Query<&Pos>| q.iter().count() as u32 + l.get()).pipe(gate)
    ));
}

#[test]
fn pipes_and_maps_run_as_conditions() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems((
        (|mut seen: ResMut<Seen>| seen.0.push(1)).run_if(reads.pipe(gate)),
        (|mut seen: ResMut<Seen>| seen.0.push(2)).run_if(reads.map(|n| n == 0)),
        (|mut seen: ResMut<Seen>| seen.0.push(3)).run_if(reads.pipe(gate).map(|b| !b).and(reads.map(|n| n < 5))),
    ));
    schedule.run(&mut world);
    let mut seen = world.resource::<Seen>().0.clone();
    seen.sort();
    assert_eq!(seen, vec![2, 3]);
    world.resource_mut::<Counter>().0 = 3;
    world.resource_mut::<Seen>().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, vec![1]);
    assert_eq!(world.resource::<Counter>().0, 3, "a condition wrote");
}

#[test]
fn condition_pipe_with_commands_in_both_halves() {
    // Commands are read-only params: both halves' commands apply at the end
    // of the run, once.
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(
        (|| ()).run_if(
            (|mut c: Commands| {
                c.spawn(Tag);
                1u32
            })
            .pipe(|In(n): In<u32>, mut c: Commands| {
                c.spawn(Tag);
                n > 0
            }),
        ),
    );
    schedule.run(&mut world);
    let count = world.query::<&Tag>().iter(&world).count();
    assert!(count == 2 || count == 0, "a half's commands applied alone: {count}");
    schedule.run(&mut world);
    let second = world.query::<&Tag>().iter(&world).count();
    assert_eq!(second, count * 2, "commands applied twice or lost");
}

// ------------------------------------------------------ (4) PipeSystem::run

#[test]
fn pipe_run_second_half_does_not_see_first_half_commands() {
    let mut world = World::new();
    let seen = world.run_system_once(
        (|mut c: Commands| {
            c.spawn(Tag);
        })
        .pipe(|_: In<()>, q: Query<&Tag>| q.iter().count()),
    );
    assert_eq!(seen, 0);
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 1);
}

#[test]
fn pipe_run_panic_in_second_half_discards_both_halves_commands() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        (|mut c: Commands| {
            c.spawn(Tag);
        })
        .pipe(|_: In<()>, mut c: Commands, counter: Option<Res<Counter>>| {
            c.spawn(Tag);
            if counter.is_none() {
                panic!("second half panics");
            }
        }),
    );
    assert!(quiet(|| system.run((), &mut world)).is_err());
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 0, "a panicking pipe applied commands");
    world.init_resource::<Counter>();
    system.run((), &mut world);
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 2, "commands lost or applied twice");
    world.check_invariants();
}

#[test]
fn pipe_run_panic_in_first_half_discards_commands() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        (|mut c: Commands, counter: Option<Res<Counter>>| {
            c.spawn(Tag);
            if counter.is_none() {
                panic!("first half panics");
            }
        })
        .pipe(|_: In<()>, mut c: Commands| {
            c.spawn(Tag);
        }),
    );
    assert!(quiet(|| system.run((), &mut world)).is_err());
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 0);
    world.init_resource::<Counter>();
    system.run((), &mut world);
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 2);
}

#[test]
fn nested_pipe_run_panic_in_last_half_discards_all() {
    let mut world = World::new();
    let spawn = |mut c: Commands| {
        c.spawn(Tag);
    };
    let spawn_in = |_: In<()>, mut c: Commands| {
        c.spawn(Tag);
    };
    let mut system = IntoSystem::into_system(spawn.pipe(spawn_in).pipe(
        |_: In<()>, mut c: Commands, counter: Option<Res<Counter>>| {
            c.spawn(Tag);
            assert!(counter.is_some(), "third half panics");
        },
    ));
    assert!(quiet(|| system.run((), &mut world)).is_err());
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 0);
    world.init_resource::<Counter>();
    system.run((), &mut world);
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 3);
}

#[test]
fn pipe_run_change_detection_between_halves() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut system = IntoSystem::into_system(
        (|mut counter: ResMut<Counter>, flag: Local<Cell<u32>>| {
            flag.set(flag.get() + 1);
            if flag.get() == 2 {
                counter.0 += 1;
            }
        })
        .pipe(|_: In<()>, counter: Res<Counter>| counter.is_changed()),
    );
    // First run: the resource is new to the second half.
    assert!(system.run((), &mut world));
    // Second run: the first half writes.
    assert!(system.run((), &mut world), "the second half missed the first half's write");
    // Third run: nobody writes.
    assert!(!system.run((), &mut world), "a change seen twice");
}

#[test]
fn pipe_run_component_change_seen_by_second_half_query() {
    let mut world = World::new();
    world.spawn(Pos(0.0));
    let mut system = IntoSystem::into_system(
        (|mut q: Query<&mut Pos>, flag: Local<Cell<u32>>| {
            flag.set(flag.get() + 1);
            if flag.get() >= 2 {
                for mut p in q.iter_mut() {
                    p.0 += 1.0;
                }
            }
        })
        .pipe(|_: In<()>, q: Query<&Pos, Changed<Pos>>| q.iter().count()),
    );
    assert_eq!(system.run((), &mut world), 1);
    assert_eq!(system.run((), &mut world), 1);
    assert_eq!(system.run((), &mut world), 1);
    let mut untouched =
        IntoSystem::into_system((|| ()).pipe(|_: In<()>, q: Query<&Pos, Changed<Pos>>| q.iter().count()));
    assert_eq!(untouched.run((), &mut world), 1);
    assert_eq!(untouched.run((), &mut world), 0);
}

#[test]
fn pipe_run_single_skip_applies_first_half_commands_once() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        (|mut c: Commands| {
            c.spawn(Pos(0.0));
        })
        .pipe(|_: In<()>, _single: Single<&Tag>| {}),
    );
    // Unit output: the second half is skipped, no panic.
    system.run((), &mut world);
    assert!(system.skipped_last_run());
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 1);
    world.spawn(Tag);
    system.run((), &mut world);
    assert!(!system.skipped_last_run());
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 2);
}

#[test]
fn pipe_run_single_skip_with_output_panics_without_applying() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        (|mut c: Commands| {
            c.spawn(Pos(0.0));
            5u32
        })
        .pipe(|In(n): In<u32>, _single: Single<&Tag>| n),
    );
    assert!(quiet(|| system.run((), &mut world)).is_err());
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 0, "a refused pipe ran its first half");
    world.spawn(Tag);
    assert_eq!(system.run((), &mut world), 5);
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 1, "commands of the refused run leaked");
}

#[test]
fn pipe_run_with_exclusive_first_half() {
    let mut world = World::new();
    let n = world.run_system_once(
        (|world: &mut World| {
            world.spawn(Tag);
            1usize
        })
        .pipe(|In(n): In<usize>, q: Query<&Tag>, mut c: Commands| {
            c.spawn(Tag);
            n + q.iter().count()
        }),
    );
    assert_eq!(n, 2, "the exclusive half's spawn is visible at once");
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 2);
}

#[test]
fn pipe_run_with_exclusive_second_half_sees_first_half_commands() {
    let mut world = World::new();
    let n = world.run_system_once(
        (|mut c: Commands| {
            c.spawn(Tag);
        })
        .pipe(|world: &mut World| world.query::<&Tag>().iter(world).count()),
    );
    // The first half ran with its own `run`, which applied its commands.
    assert_eq!(n, 1);
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 1);
}

#[test]
fn map_over_pipe_run_and_schedule_agree() {
    fn build() -> impl IntoSystem<IsCombinedSystemMarker, System: System<In = (), Out = ()>> {
        (|mut c: Commands| {
            c.spawn(Tag);
            1u32
        })
        .pipe(|In(n): In<u32>, q: Query<&Tag>, mut seen: ResMut<Seen>| {
            seen.0.push(n + q.iter().count() as u32);
        })
        .map(|()| ())
    }
    type IsCombinedSystemMarker = ecs::system::IsCombinedSystem;
    let mut once = World::new();
    once.init_resource::<Seen>();
    once.run_system_once(build());
    once.run_system_once(build());
    let mut scheduled = World::new();
    scheduled.init_resource::<Seen>();
    let mut schedule = Schedule::new();
    schedule.add_systems(build());
    schedule.run(&mut scheduled);
    schedule.run(&mut scheduled);
    assert_eq!(once.resource::<Seen>().0, scheduled.resource::<Seen>().0);
    assert_eq!(once.resource::<Seen>().0, vec![1, 2]);
}

#[test]
fn registered_pipe_applies_both_halves_commands() {
    let mut world = World::new();
    let id = world.register_system(
        (|mut c: Commands| {
            c.spawn(Tag);
        })
        .pipe(|_: In<()>, mut c: Commands, q: Query<&Tag>| {
            assert_eq!(q.iter().count(), 0);
            c.spawn(Tag);
        }),
    );
    world.run_system(id).unwrap();
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 2);
}

// ------------------------------------------------------- (5) stale plain ids

#[test]
fn recycled_tag_entity_is_found_again_after_stale_archetypes() {
    // `old` used as a tag leaves archetypes naming it; `new` recycles its
    // index and is used as a tag in turn.
    let mut world = World::new();
    let old = world.spawn_empty().id();
    let holder = world.spawn(Pos(1.0)).id();
    world.add_id(holder, old.id());
    let bare = world.spawn_empty().id();
    world.add_id(bare, old.id());
    world.despawn(old);
    assert!(world.get::<Pos>(holder).is_some());
    world.check_invariants();
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index());
    let other = world.spawn(Pos(2.0)).id();
    world.add_id(other, new.id());
    world.add_id(holder, new.id());
    assert!(world.has_id(other, new.id()));
    let mut q = world.query_builder().with(new).build().expect("query builds");
    let mut rows: Vec<Entity> = q.iter(&world).map(|r| r.entity()).collect();
    rows.sort();
    let mut expected = vec![holder, other];
    expected.sort();
    assert_eq!(rows, expected);
    world.check_invariants();
    // Despawning the new tag entity cleans its holders.
    world.despawn(new);
    assert!(!world.has_id(other, new.id()));
    assert!(world.get::<Pos>(other).is_some());
    world.check_invariants();
}

#[test]
fn recycled_relationship_entity_pairs_are_found() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    let target = world.spawn_empty().id();
    let e = world.spawn(Pos(0.0)).id();
    world.add_pair_id(e, old, target);
    world.despawn(old);
    assert!(world.get::<Pos>(e).is_some());
    let new = world.spawn_empty().id();
    assert_eq!(new.index(), old.index());
    world.add_pair_id(e, new, target);
    assert!(world.has_pair_id(e, new, target));
    let mut q = world.query_builder().pair(new, target).build().expect("query builds");
    assert_eq!(q.iter(&world).map(|r| r.entity()).collect::<Vec<_>>(), vec![e]);
    world.despawn(new);
    assert!(!world.has_pair_id(e, new, target));
    world.check_invariants();
}

#[test]
fn stale_id_queries_do_not_reach_a_recycled_component_entity() {
    let mut world = World::new();
    let old = world.spawn_empty().id();
    world.despawn(old);
    let new = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    world.add_id(holder, new.id());
    assert!(!world.has_id(holder, old.id()));
    let built = world.query_builder().with(old).build();
    if let Ok(mut q) = built {
        assert_eq!(q.iter(&world).count(), 0);
    }
    // Deliberate (documented in `DynQuery`): a query naming a dead entity,
    // even in a `without` term, matches nothing.
    let built = world.query_builder().without(old).with(new).build();
    if let Ok(mut q) = built {
        assert_eq!(q.iter(&world).count(), 0);
    }
}

// ------------------------------------------------------ (6) clear_entities

#[test]
fn clear_entities_with_panic_policies_everywhere() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(
        rel,
        RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic).on_delete_target(CleanupPolicy::Panic),
    );
    let target = world.spawn(Pos(1.0)).id();
    let holder = world.spawn(Pos(2.0)).id();
    world.add_pair_id(holder, rel, target);
    let tag = world.spawn_empty().id();
    world.add_id(holder, tag.id());
    let child = world.spawn(ChildOf.pair(holder)).id();
    assert!(quiet(|| world.despawn(target)).is_err());
    world.clear_entities();
    for e in [rel, target, holder, tag, child] {
        assert!(!world.is_alive(e), "{e:?} survived clear_entities");
    }
    world.check_invariants();
    // The world is usable, and the policy is gone with its entity.
    let again = world.spawn(Pos(3.0)).id();
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 1);
    assert!(world.despawn(again));
    world.check_invariants();
}

#[test]
fn try_despawn_still_refuses_after_clear_entities() {
    let mut world = World::new();
    world.clear_entities();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Panic));
    let target = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    world.add_pair_id(holder, rel, target);
    assert!(world.try_despawn(target).is_err());
    assert!(world.is_alive(target) && world.has_pair_id(holder, rel, target));
    world.check_invariants();
}

// ------------------------------------------------ (7) ParamSet in a derive

// Not a type alias: the derive recognises a `ParamSet` field by its last
// path segment only, and an alias's members naming the struct's lifetimes do
// not compile.
#[allow(clippy::type_complexity)]
#[derive(SystemParam)]
struct Movers<'w, 's> {
    set: ParamSet<'w, 's, (Query<'w, 's, &'static mut Pos>, Query<'w, 's, &'static Pos, With<Tag>>)>,
    qualified: ecs::system::ParamSet<'w, 's, (Res<'w, Counter>, ResMut<'w, Seen>)>,
    local: Local<'s, Cell<u32>>,
}

#[test]
fn derived_param_with_param_sets_naming_struct_lifetimes() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Seen>();
    world.spawn((Pos(1.0), Tag));
    let plain = world.spawn(Pos(0.0)).id();
    let id = world.register_system(|mut movers: Movers| {
        let tagged: f32 = movers.set.p1().iter().map(|p| p.0).sum();
        for mut p in movers.set.p0().iter_mut() {
            p.0 += tagged;
        }
        movers.local.set(movers.local.get() + 1);
        let n = movers.qualified.p0().0 + movers.local.get();
        movers.qualified.p1().0.push(n);
    });
    world.run_system(id).unwrap();
    world.run_system(id).unwrap();
    assert_eq!(world.get::<Pos>(plain), Some(&Pos(3.0)));
    assert_eq!(world.resource::<Seen>().0, vec![1, 2]);
}

#[test]
fn clear_entities_on_delete_panic_relationship_before_its_holder() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete(CleanupPolicy::Panic));
    let target = world.spawn_empty().id();
    let holder = world.spawn_empty().id();
    world.add_pair_id(holder, rel, target);
    world.clear_entities();
    assert!(!world.is_alive(holder) && !world.is_alive(rel));
    world.check_invariants();
}

#[test]
fn clear_entities_on_delete_target_panic_table_pair() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.on_delete_target(CleanupPolicy::Panic));
    let target = world.spawn(Pos(1.0)).id();
    let holder = world.spawn(Pos(2.0)).id();
    world.add_pair_id(holder, rel, target);
    world.clear_entities();
    assert!(!world.is_alive(holder) && !world.is_alive(target));
    world.check_invariants();
}

#[test]
fn clear_entities_on_delete_target_panic_union_pair() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(
        rel,
        RelationshipTraits::DEFAULT.exclusive().union().on_delete_target(CleanupPolicy::Panic),
    );
    let target = world.spawn(Pos(1.0)).id();
    let holder = world.spawn(Pos(2.0)).id();
    world.add_pair_id(holder, rel, target);
    world.clear_entities();
    assert!(!world.is_alive(holder) && !world.is_alive(target));
    world.check_invariants();
}

#[test]
fn clear_entities_on_delete_panic_union_relationship_before_holder() {
    let mut world = World::new();
    let rel = world.spawn_empty().id();
    world.set_relationship_traits(rel, RelationshipTraits::DEFAULT.exclusive().union().on_delete(CleanupPolicy::Panic));
    let target = world.spawn(Pos(1.0)).id();
    let holder = world.spawn(Pos(2.0)).id();
    world.add_pair_id(holder, rel, target);
    let result = quiet(|| world.clear_entities());
    assert!(result.is_ok(), "clear_entities panicked");
    assert!(!world.is_alive(holder) && !world.is_alive(rel));
    world.check_invariants();
}
