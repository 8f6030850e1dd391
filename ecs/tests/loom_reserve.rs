//! Loom model test of the entity reservation protocol: `RemoteEntities` handles
//! claim fresh indices on other threads while the entity index allocates,
//! frees, jumps ahead (`alloc_at`), switches ranges and flushes. Loom runs every
//! interleaving of the shared counter's atomics and checks that no id is handed
//! out twice and that every reserved id is alive after the final flush.
//!
//! Compiled only under `cfg(loom)` (the counter then uses loom's atomics, which
//! work only inside `loom::model`). Run it in its own target directory, so that
//! the normal build is not invalidated:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ecs --release --test loom_reserve
//! ```
//!
//! Each model bounds preemptions at [`PREEMPTIONS`] (loom's advice: bugs need
//! few preemptions; the three models then take about 20 s in release, while an
//! unbounded search of three threads did not finish in minutes). A racy claim
//! (load, then store) fails all three models at once.
#![cfg(loom)]

use std::collections::HashSet;

use ecs::entity::{Entity, EntityIndex, EntityLocation, SpawnError};
use loom::thread;

/// The preemption bound of every model.
const PREEMPTIONS: usize = 4;

/// Runs `model` under loom with the preemption bound.
fn check(model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(PREEMPTIONS);
    builder.check(model);
}

/// Placement is irrelevant to the protocol.
fn nowhere(_: Entity) -> EntityLocation {
    EntityLocation::INVALID
}

/// Every id in `ids` is distinct by index and alive in `index`, whose
/// invariants hold.
fn check_all_alive_and_unique(index: &EntityIndex, ids: &[Entity]) {
    let unique: HashSet<u32> = ids.iter().map(|entity| entity.index()).collect();
    assert_eq!(unique.len(), ids.len(), "an index was handed out twice: {ids:?}");
    for &entity in ids {
        assert!(index.is_alive(entity), "{entity:?} is not alive after the flush");
    }
    index.check_invariants();
}

#[test]
fn remote_reservations_race_allocation_free_and_flush() {
    check(|| {
        let mut index = EntityIndex::default();
        let first = index.remote();
        let second = first.clone();
        let a = thread::spawn(move || [first.reserve(), first.reserve()]);
        let b = thread::spawn(move || second.reserve());
        let own = index.alloc();
        index.flush(nowhere);
        let kept = index.alloc();
        assert!(index.free(own).is_some());
        let recycled = index.alloc();
        let mut ids = a.join().unwrap().to_vec();
        ids.push(b.join().unwrap());
        index.flush(nowhere);
        ids.extend([kept, recycled]);
        check_all_alive_and_unique(&index, &ids);
    });
}

#[test]
fn remote_reservations_race_a_range_switch() {
    check(|| {
        let mut index = EntityIndex::default();
        index.set_range(100..110, nowhere);
        let remote = index.remote();
        let other = remote.clone();
        let a = thread::spawn(move || [remote.reserve(), remote.reserve()]);
        let b = thread::spawn(move || other.reserve());
        let before = index.alloc();
        // The new range overlaps the old one: it must start after whatever the
        // threads claimed in the old window, flushed or not.
        index.set_range(100..120, nowhere);
        let after = index.alloc();
        let mut ids = a.join().unwrap().to_vec();
        ids.push(b.join().unwrap());
        index.flush(nowhere);
        ids.extend([before, after]);
        check_all_alive_and_unique(&index, &ids);
    });
}

#[test]
fn remote_reservations_race_alloc_at() {
    check(|| {
        let mut index = EntityIndex::default();
        index.set_range(100..110, nowhere);
        let remote = index.remote();
        let a = thread::spawn(move || [remote.reserve(), remote.reserve()]);
        let wanted = Entity::from_raw(101, 5);
        // Either the thread claimed 101 first (`Reserved`), or `alloc_at` jumps
        // the counter past it and the thread gets later indices.
        let placed = index.alloc_at(wanted, nowhere);
        let mut ids = a.join().unwrap().to_vec();
        index.flush(nowhere);
        match placed {
            Ok(()) => ids.push(wanted),
            Err(SpawnError::Reserved { reserved, .. }) => assert!(ids.contains(&reserved), "{reserved:?}"),
            Err(error) => panic!("unexpected {error}"),
        }
        check_all_alive_and_unique(&index, &ids);
    });
}
