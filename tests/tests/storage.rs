//! Storage through the world API: table columns (growth, swap-remove, alignment,
//! tags without columns) and sparse sets (no archetype moves, stable addresses,
//! paging, zero-sized values).

use ecs::entity::{ArchetypeId, EntityLocation};
use ecs::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Position(i64, i64);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Velocity(i32);

#[derive(Component, Debug, PartialEq, Clone)]
struct Label(String);

#[derive(Component, Debug)]
struct Enemy;

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u64);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Frozen;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[repr(align(64))]
struct Aligned(u8);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
#[repr(align(32))]
struct SparseAligned(u16);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[repr(align(128))]
struct AlignedTag;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(change_detection = false)]
struct Untracked(u16);

fn address<T>(value: &T) -> usize {
    value as *const T as usize
}

fn location(world: &World, e: Entity) -> EntityLocation {
    world.entities().location(e).expect("alive")
}

#[test]
fn table_values_survive_column_growth() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..10_000).map(|i| world.spawn((Position(i, -i), Label(format!("e{i}")))).id()).collect();
    for (i, &e) in ids.iter().enumerate() {
        let i = i as i64;
        assert_eq!(world.get::<Position>(e), Some(&Position(i, -i)));
        assert_eq!(world.get::<Label>(e).map(|l| l.0.as_str()), Some(format!("e{i}").as_str()));
    }
    let archetype = &world.archetypes()[location(&world, ids[0]).archetype];
    assert_eq!(archetype.len(), 10_000);
    assert_eq!(archetype.table().columns().len(), 2);
    assert_eq!(archetype.table().len(), 10_000);
    assert!(archetype.table().capacity() >= 10_000);
    world.check_invariants();
}

#[test]
fn despawn_swap_removes_and_updates_the_moved_entity() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..5).map(|i| world.spawn((Position(i, i), Label(i.to_string()))).id()).collect();
    let archetype = location(&world, ids[0]).archetype;
    assert_eq!(world.archetypes()[archetype].entities(), ids.as_slice());

    // removing row 1 moves the last row (ids[4]) into it
    assert!(world.despawn(ids[1]));
    assert_eq!(location(&world, ids[4]), EntityLocation { archetype, row: 1 });
    assert_eq!(world.archetypes()[archetype].entities(), &[ids[0], ids[4], ids[2], ids[3]]);
    for &i in &[0, 2, 3, 4] {
        assert_eq!(world.get::<Position>(ids[i]), Some(&Position(i as i64, i as i64)));
        assert_eq!(world.get::<Label>(ids[i]), Some(&Label(i.to_string())));
    }
    // removing the last row moves nothing
    assert!(world.despawn(ids[3]));
    assert_eq!(world.archetypes()[archetype].entities(), &[ids[0], ids[4], ids[2]]);
    assert_eq!(location(&world, ids[2]), EntityLocation { archetype, row: 2 });
    world.check_invariants();
}

#[test]
fn moving_an_entity_keeps_the_values_of_the_rows_left_behind() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..4).map(|i| world.spawn((Position(i, 0), Velocity(i as i32))).id()).collect();
    world.insert(ids[0], Label("moved".into()));
    world.remove::<Velocity>(ids[1]);
    assert_eq!(world.get::<Position>(ids[0]), Some(&Position(0, 0)));
    assert_eq!(world.get::<Velocity>(ids[0]), Some(&Velocity(0)));
    assert_eq!(world.get::<Label>(ids[0]), Some(&Label("moved".into())));
    assert_eq!(world.get::<Position>(ids[1]), Some(&Position(1, 0)));
    assert_eq!(world.get::<Velocity>(ids[1]), None);
    for (i, &e) in ids.iter().enumerate().skip(2) {
        assert_eq!(world.get::<Position>(e), Some(&Position(i as i64, 0)));
        assert_eq!(world.get::<Velocity>(e), Some(&Velocity(i as i32)));
    }
    world.check_invariants();
}

#[test]
fn tracked_tags_have_a_column_of_ticks_and_untracked_ones_none() {
    #[derive(Component)]
    #[component(change_detection = false)]
    struct Quiet;
    let mut world = World::new();
    let e = world.spawn((Position(1, 1), Enemy, Quiet)).id();
    let archetype = &world.archetypes()[location(&world, e).archetype];
    let enemy = world.component_id::<Enemy>().unwrap();
    let quiet = world.component_id::<Quiet>().unwrap();
    let position = world.component_id::<Position>().unwrap();
    assert_eq!(archetype.ids().len(), 3);
    assert_eq!(archetype.table().columns().len(), 2, "Position's values, Enemy's ticks");
    assert_eq!(archetype.column_of(quiet.id()), None);
    assert!(archetype.column_of(enemy.id()).is_some());
    assert!(archetype.column_of(position.id()).is_some());
    let quiet_position = archetype.position_of(quiet.id()).unwrap();
    assert_eq!(archetype.column_map()[quiet_position], -1);
    assert!(world.has::<Enemy>(e) && world.has::<Quiet>(e));
    assert!(world.get::<Enemy>(e).is_some() && world.get::<Quiet>(e).is_some());
    // A tracked tag keeps ticks; an untracked one has none to give.
    assert!(world.component_ticks::<Enemy>(e).is_some());
    assert_eq!(world.component_ticks::<Quiet>(e), None);
    assert!(world.component_ticks::<Position>(e).is_some());
    world.check_invariants();
}

#[test]
fn over_aligned_values_stay_aligned_in_tables_and_sparse_sets() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..300u16)
        .map(|i| world.spawn((Aligned(i as u8), SparseAligned(i), AlignedTag, Velocity(i as i32))).id())
        .collect();
    for (i, &e) in ids.iter().enumerate() {
        let aligned = world.get::<Aligned>(e).unwrap();
        assert_eq!(address(aligned) % 64, 0);
        assert_eq!(aligned.0, i as u8);
        let sparse = world.get::<SparseAligned>(e).unwrap();
        assert_eq!(address(sparse) % 32, 0);
        assert_eq!(sparse.0, i as u16);
        assert_eq!(address(world.get::<AlignedTag>(e).unwrap()) % 128, 0);
    }
    // moving rows around keeps alignment
    for &e in ids.iter().step_by(2) {
        world.remove::<Velocity>(e);
    }
    for &e in &ids {
        assert_eq!(address(world.get::<Aligned>(e).unwrap()) % 64, 0);
    }
    let mut q = world.query::<(&Aligned, &SparseAligned)>();
    assert_eq!(q.iter(&world).filter(|(a, s)| address(*a) % 64 == 0 && address(*s) % 32 == 0).count(), 300);
    world.check_invariants();
}

#[test]
fn sparse_components_never_move_the_entity() {
    let mut world = World::new();
    let e = world.spawn(Position(1, 2)).id();
    let before = location(&world, e);
    let archetypes_before = world.archetypes().len();

    world.insert(e, Stunned(3));
    assert_eq!(location(&world, e), before);
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(3)));
    world.insert(e, Frozen);
    assert_eq!(location(&world, e), before);
    assert_eq!(world.remove::<Stunned>(e), Some(Stunned(3)));
    assert_eq!(location(&world, e), before);
    assert_eq!(world.archetypes().len(), archetypes_before, "sparse components do not fragment archetypes");

    let stunned = world.component_id::<Stunned>().unwrap();
    assert!(world.archetypes().iter().all(|archetype| !archetype.contains(stunned.id())));
    assert!(world.archetypes().component_index().get(stunned.id()).is_none());
    world.check_invariants();
}

#[test]
fn sparse_only_entities_live_in_the_empty_archetype() {
    let mut world = World::new();
    let e = world.spawn((Stunned(1), Frozen)).id();
    assert_eq!(location(&world, e).archetype, ArchetypeId::EMPTY);
    assert!(world.has::<Stunned>(e) && world.has::<Frozen>(e));
    world.check_invariants();
}

#[test]
fn sparse_values_have_stable_addresses() {
    let mut world = World::new();
    let e = world.spawn((Position(0, 0), Stunned(42))).id();
    let before = address(world.get::<Stunned>(e).unwrap());

    // lots of other sparse values, table moves of `e`, despawns of others
    let others: Vec<Entity> = (0..3000).map(|i| world.spawn((Stunned(i), Velocity(i as i32))).id()).collect();
    world.insert(e, Velocity(1));
    world.insert(e, Label("x".into()));
    world.remove::<Position>(e);
    for &other in others.iter().step_by(3) {
        world.despawn(other);
    }
    for &other in others.iter().skip(1).step_by(3) {
        world.remove::<Stunned>(other);
    }
    world.insert(e, Stunned(43)); // overwrite in place
    assert_eq!(address(world.get::<Stunned>(e).unwrap()), before);
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(43)));
    world.check_invariants();
}

#[test]
fn sparse_sets_track_their_entities() {
    let mut world = World::new();
    let a = world.spawn(Stunned(1)).id();
    let b = world.spawn((Position(0, 0), Stunned(2))).id();
    let c = world.spawn(Position(1, 1)).id();
    let id = world.component_id::<Stunned>().unwrap();
    let set = world.sparse_sets().of(id).unwrap();
    assert_eq!(set.len(), 2);
    assert!(set.contains(a) && set.contains(b) && !set.contains(c));

    world.insert(c, Stunned(3));
    world.insert(a, Stunned(10)); // overwrite: no new entry
    assert_eq!(world.sparse_sets().of(id).unwrap().len(), 3);
    world.remove::<Stunned>(b);
    world.despawn(a);
    let set = world.sparse_sets().of(id).unwrap();
    assert_eq!(set.entities(), &[c]);
    assert_eq!(world.get::<Stunned>(c), Some(&Stunned(3)));
    world.check_invariants();
}

#[test]
fn sparse_values_across_many_pages() {
    let mut world = World::new();
    // indices well past one sparse page (1024) and one entity-index page (4096)
    let ids: Vec<Entity> = (0..9000u64).map(|i| world.spawn(Position(i as i64, 0)).id()).collect();
    for (i, &e) in ids.iter().enumerate().filter(|(i, _)| i % 7 == 0) {
        world.insert(e, Stunned(i as u64));
    }
    for (i, &e) in ids.iter().enumerate() {
        let expected = (i % 7 == 0).then_some(Stunned(i as u64));
        assert_eq!(world.get::<Stunned>(e), expected.as_ref(), "entity {i}");
        assert_eq!(world.has::<Stunned>(e), i % 7 == 0);
    }
    let count = world.query::<&Stunned>().iter(&world).count();
    assert_eq!(count, 9000usize.div_ceil(7));
    world.check_invariants();
}

#[test]
fn recycled_index_does_not_inherit_sparse_values() {
    let mut world = World::new();
    // Registered up front, so that spawning `Position` below cannot take the
    // recycled index for its component entity.
    world.register_component::<Position>();
    let old = world.spawn((Stunned(5), Frozen)).id();
    world.despawn(old);
    let new = world.spawn(Position(0, 0)).id();
    assert_eq!(new.index(), old.index());
    assert!(!world.has::<Stunned>(new));
    assert!(!world.has::<Frozen>(new));
    assert_eq!(world.get::<Stunned>(new), None);
    world.insert(new, Stunned(6));
    assert_eq!(world.get::<Stunned>(new), Some(&Stunned(6)));
    world.check_invariants();
}

#[test]
fn zero_sized_sparse_values() {
    let mut world = World::new();
    let a = world.spawn(Frozen).id();
    let b = world.spawn_empty().id();
    assert!(world.has::<Frozen>(a));
    assert!(!world.has::<Frozen>(b));
    assert_eq!(world.get::<Frozen>(a), Some(&Frozen));
    assert_eq!(world.get::<Frozen>(b), None);
    // sparse zero-sized values do have ticks
    assert!(world.component_ticks::<Frozen>(a).is_some());
    assert_eq!(world.remove::<Frozen>(a), Some(Frozen));
    assert!(!world.has::<Frozen>(a));
    assert_eq!(world.remove::<Frozen>(a), None);
    world.check_invariants();
}

#[test]
fn mixed_table_and_sparse_bundles_split_correctly() {
    let mut world = World::new();
    let e = world.spawn((Position(1, 1), Stunned(1), Velocity(1), Frozen)).id();
    let archetype = &world.archetypes()[location(&world, e).archetype];
    assert_eq!(archetype.ids().len(), 2, "only the table components are in the type");

    assert_eq!(world.remove::<Position>(e), Some(Position(1, 1)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(1)));
    assert_eq!(world.remove::<(Stunned, Velocity)>(e), Some((Stunned(1), Velocity(1))));
    assert!(world.has::<Frozen>(e));
    assert_eq!(location(&world, e).archetype, ArchetypeId::EMPTY);
    world.check_invariants();
}

#[test]
fn get_mut_writes_persist_in_both_storages() {
    let mut world = World::new();
    let e = world.spawn((Position(0, 0), Stunned(0))).id();
    world.get_mut::<Position>(e).unwrap().0 = 10;
    world.get_mut::<Stunned>(e).unwrap().0 = 20;
    {
        let mut view = world.entity_mut(e);
        view.get_mut::<Position>().unwrap().1 = 11;
    }
    assert_eq!(world.get::<Position>(e), Some(&Position(10, 11)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(20)));
    world.check_invariants();
}

#[test]
fn values_are_kept_per_entity_under_random_structural_churn() {
    // A small deterministic LCG drives inserts, removes and despawns; a plain Vec
    // model says what each entity must hold afterwards.
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |bound: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % bound
    };
    type Model = (Entity, Option<i64>, Option<u64>, Option<String>);
    let mut world = World::new();
    let mut model: Vec<Model> = Vec::new();
    for step in 0..4000u64 {
        match next(6) {
            0 | 1 => {
                let e = world.spawn(Position(step as i64, 0)).id();
                model.push((e, Some(step as i64), None, None));
            }
            2 if !model.is_empty() => {
                let i = next(model.len() as u64) as usize;
                world.insert(model[i].0, Stunned(step));
                model[i].2 = Some(step);
            }
            3 if !model.is_empty() => {
                let i = next(model.len() as u64) as usize;
                world.insert(model[i].0, Label(step.to_string()));
                model[i].3 = Some(step.to_string());
            }
            4 if !model.is_empty() => {
                let i = next(model.len() as u64) as usize;
                let removed = world.remove::<Position>(model[i].0);
                assert_eq!(removed.map(|p| p.0), model[i].1.take());
            }
            5 if !model.is_empty() => {
                let i = next(model.len() as u64) as usize;
                let (e, ..) = model.swap_remove(i);
                assert!(world.despawn(e));
            }
            _ => {}
        }
    }
    assert_eq!(world.entity_count(), model.len());
    for (e, position, stunned, label) in &model {
        assert_eq!(world.get::<Position>(*e).map(|p| p.0), *position);
        assert_eq!(world.get::<Stunned>(*e).map(|s| s.0), *stunned);
        assert_eq!(world.get::<Label>(*e).map(|l| l.0.clone()), *label);
    }
    world.check_invariants();
}

#[test]
fn multi_component_bundles_move_between_every_pair_of_archetypes() {
    let mut world = World::new();
    let mut entities = Vec::new();
    for mask in 0u32..16 {
        let mut view = world.spawn(Stunned(u64::from(mask)));
        if mask & 1 != 0 {
            view.insert(Position(mask.into(), 1));
        }
        if mask & 2 != 0 {
            view.insert(Velocity(mask as i32));
        }
        if mask & 4 != 0 {
            view.insert(Label(format!("old{mask}")));
        }
        if mask & 8 != 0 {
            view.insert(Enemy);
        }
        entities.push((view.id(), mask));
    }
    for &(e, mask) in &entities {
        world.insert(e, (Velocity(100 + mask as i32), Label(format!("new{mask}")), Enemy));
    }
    for &(e, mask) in &entities {
        let position = (mask & 1 != 0).then_some(Position(mask.into(), 1));
        assert_eq!(world.get::<Position>(e), position.as_ref(), "mask {mask}");
        assert_eq!(world.get::<Velocity>(e), Some(&Velocity(100 + mask as i32)));
        assert_eq!(world.get::<Label>(e), Some(&Label(format!("new{mask}"))));
        assert!(world.has::<Enemy>(e));
        assert_eq!(world.get::<Stunned>(e), Some(&Stunned(mask.into())));
    }
    world.check_invariants();
    for &(e, mask) in &entities {
        let removed = world.remove::<(Position, Label, Enemy)>(e);
        if mask & 1 != 0 {
            assert_eq!(removed.map(|(p, l, _)| (p, l)), Some((Position(mask.into(), 1), Label(format!("new{mask}")))));
        } else {
            assert!(removed.is_none(), "Position was missing");
            assert!(world.has::<Label>(e), "all or nothing");
            world.entity_mut(e).remove::<(Position, Label, Enemy)>();
        }
        assert!(!world.has::<Position>(e) && !world.has::<Label>(e) && !world.has::<Enemy>(e));
        assert_eq!(world.get::<Velocity>(e), Some(&Velocity(100 + mask as i32)));
        assert_eq!(world.get::<Stunned>(e), Some(&Stunned(mask.into())));
    }
    let velocity_only = location(&world, entities[0].0).archetype;
    assert!(entities.iter().all(|&(e, _)| location(&world, e).archetype == velocity_only));
    assert_eq!(world.archetypes()[velocity_only].len(), 16);
    world.check_invariants();
}

#[test]
fn one_table_allocation_keeps_values_ticks_and_alignment_across_growth() {
    // A table keeps every column (values and ticks, tracked or not, of any
    // alignment) in one allocation and moves them all to a new one as it grows.
    let mut world = World::new();
    let mut changed = world.query_filtered::<Entity, Changed<Velocity>>();
    let spawn = |world: &mut World, i: i32| world.spawn((Velocity(i), Untracked(i as u16), Aligned(i as u8))).id();
    let first: Vec<Entity> = (0..100).map(|i| spawn(&mut world, i)).collect();
    assert_eq!(changed.iter(&world).count(), 100, "new rows count as changed");
    assert_eq!(changed.iter(&world).count(), 0);
    world.get_mut::<Velocity>(first[7]).expect("alive").0 = -7;
    let later: Vec<Entity> = (100..5_000).map(|i| spawn(&mut world, i)).collect();
    let seen: Vec<Entity> = changed.iter(&world).collect();
    assert_eq!(seen.len(), 1 + later.len(), "the write before the growth is still seen");
    assert!(seen.contains(&first[7]));
    for (i, &entity) in first.iter().chain(&later).enumerate() {
        let velocity = if i == 7 { -7 } else { i as i32 };
        assert_eq!(world.get::<Velocity>(entity), Some(&Velocity(velocity)));
        assert_eq!(world.get::<Untracked>(entity), Some(&Untracked(i as u16)));
        let aligned = world.get::<Aligned>(entity).expect("alive");
        assert_eq!((aligned.0, address(aligned) % 64), (i as u8, 0));
    }
    let table = world.archetypes()[location(&world, first[0]).archetype].table();
    assert_eq!(table.columns().len(), 3);
    assert!(table.capacity() >= 5_000);
    world.check_invariants();
}
