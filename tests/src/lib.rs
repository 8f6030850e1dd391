//! Shared helpers for the integration tests in `tests/tests/`.
//!
//! The main helper is drop accounting, used by `drops.rs` and a few other files:
//!
//! * [`DropLog`] records the id of every [`DropTable`] / [`DropSparse`] value that
//!   is dropped. Each test makes its own log (an `Arc`), so tests running in
//!   parallel never see each other's drops, and a test can assert that every value
//!   it created was dropped exactly once ([`DropLog::assert_dropped_once`]).
//! * Zero-sized components cannot carry a log, so [`DropTag`] and
//!   [`DropSparseTag`] count their drops in thread-local counters
//!   ([`tag_drops`], [`sparse_tag_drops`]). A test runs on one thread, so the
//!   counters are private to it; compare deltas (the thread may be reused).
//!
//! ```
//! use ecs::prelude::*;
//! use ecs_tests::DropLog;
//! let log = DropLog::new();
//! let mut world = World::new();
//! let e = world.spawn(log.table(1)).id();
//! assert_eq!(log.count(), 0);
//! world.despawn(e);
//! log.assert_dropped_once([1]);
//! ```

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard};

use ecs::prelude::*;

/// A shared, thread-safe record of the ids of dropped tracked values, in drop order.
///
/// Cloning a log shares it.
#[derive(Clone, Default, Debug)]
pub struct DropLog(Arc<Mutex<Vec<u32>>>);

impl DropLog {
    /// A new, empty log.
    pub fn new() -> DropLog {
        DropLog::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<u32>> {
        // A test that panicked while holding the lock poisons it; the data is still fine.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, id: u32) {
        self.lock().push(id);
    }

    /// A table component with id `id` that records its drop in this log.
    pub fn table(&self, id: u32) -> DropTable {
        DropTable { id, log: self.clone() }
    }

    /// A second table component type with id `id` that records its drop in this log.
    pub fn table2(&self, id: u32) -> DropTable2 {
        DropTable2 { id, log: self.clone() }
    }

    /// A sparse component with id `id` that records its drop in this log.
    pub fn sparse(&self, id: u32) -> DropSparse {
        DropSparse { id, log: self.clone() }
    }

    /// How many tracked values were dropped so far.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    /// How many times the value with id `id` was dropped.
    pub fn count_of(&self, id: u32) -> usize {
        self.lock().iter().filter(|&&dropped| dropped == id).count()
    }

    /// The ids dropped so far, sorted.
    pub fn dropped(&self) -> Vec<u32> {
        let mut ids = self.lock().clone();
        ids.sort_unstable();
        ids
    }

    /// Asserts that exactly the values `ids` were dropped, each exactly once (no
    /// other value dropped, none dropped twice).
    ///
    /// # Panics
    /// Panics listing the expected and actual drops if they differ.
    #[track_caller]
    pub fn assert_dropped_once(&self, ids: impl IntoIterator<Item = u32>) {
        let mut expected: Vec<u32> = ids.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(self.dropped(), expected, "dropped ids (sorted) differ from the expected ones");
    }
}

/// A table component that records its drop in a [`DropLog`]. Build it with
/// [`DropLog::table`].
#[derive(Component, Debug)]
pub struct DropTable {
    /// The value's id, recorded on drop.
    pub id: u32,
    log: DropLog,
}

impl Drop for DropTable {
    fn drop(&mut self) {
        self.log.record(self.id);
    }
}

/// A second table component type like [`DropTable`] (to move entities between
/// archetypes). Build it with [`DropLog::table2`].
#[derive(Component, Debug)]
pub struct DropTable2 {
    /// The value's id, recorded on drop.
    pub id: u32,
    log: DropLog,
}

impl Drop for DropTable2 {
    fn drop(&mut self) {
        self.log.record(self.id);
    }
}

/// A sparse component that records its drop in a [`DropLog`]. Build it with
/// [`DropLog::sparse`].
#[derive(Component, Debug)]
#[component(storage = "sparse")]
pub struct DropSparse {
    /// The value's id, recorded on drop.
    pub id: u32,
    log: DropLog,
}

impl Drop for DropSparse {
    fn drop(&mut self) {
        self.log.record(self.id);
    }
}

thread_local! {
    static TAG_DROPS: Cell<usize> = const { Cell::new(0) };
    static SPARSE_TAG_DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A zero-sized table component (a tag, stored as no column) whose drops are
/// counted by [`tag_drops`].
#[derive(Component, Debug)]
pub struct DropTag;

impl Drop for DropTag {
    fn drop(&mut self) {
        TAG_DROPS.with(|count| count.set(count.get() + 1));
    }
}

/// A zero-sized sparse component whose drops are counted by [`sparse_tag_drops`].
#[derive(Component, Debug)]
#[component(storage = "sparse")]
pub struct DropSparseTag;

impl Drop for DropSparseTag {
    fn drop(&mut self) {
        SPARSE_TAG_DROPS.with(|count| count.set(count.get() + 1));
    }
}

/// How many [`DropTag`] values this thread has dropped so far.
pub fn tag_drops() -> usize {
    TAG_DROPS.with(Cell::get)
}

/// How many [`DropSparseTag`] values this thread has dropped so far.
pub fn sparse_tag_drops() -> usize {
    SPARSE_TAG_DROPS.with(Cell::get)
}

/// Runs `f`, expecting it to panic, and returns the panic message.
///
/// # Panics
/// Panics if `f` returns normally, or if the payload is neither a `&str` nor a
/// `String`.
#[track_caller]
pub fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    let payload = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic, but the closure returned normally"),
        Err(payload) => payload,
    };
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        panic!("panic payload is not a string")
    }
}

/// A 2D position shared by the integration tests.
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
pub struct Position {
    /// Horizontal coordinate.
    pub x: f32,
    /// Vertical coordinate.
    pub y: f32,
}

/// A 2D velocity shared by the integration tests.
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
pub struct Velocity {
    /// Horizontal speed.
    pub x: f32,
    /// Vertical speed.
    pub y: f32,
}

/// A marker component shared by the integration tests.
#[derive(Component, Debug)]
pub struct Enemy;

// ----- threads -----------------------------------------------------------------------

/// Whether the rayon pool (which the ecs crate sizes by default) has at least
/// two threads.
///
/// ```
/// let _maybe = ecs_tests::parallel_pool();
/// ```
pub fn parallel_pool() -> bool {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let forced_single = std::env::var("RAYON_NUM_THREADS").is_ok_and(|value| value.trim() == "1");
    threads >= 2 && !forced_single
}

/// Runs `f` on a new thread and returns what it returns; fails the test if it
/// takes more than 20 s (a deadlock), and re-raises its panic if it panics.
///
/// ```
/// assert_eq!(ecs_tests::within_timeout(|| 1 + 1), 2);
/// ```
pub fn within_timeout<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    use std::sync::mpsc::{self, RecvTimeoutError};
    let (sender, receiver) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = sender.send(f());
    });
    match receiver.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => panic!("timed out after 20 s"),
        Err(RecvTimeoutError::Disconnected) => match handle.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
    }
}
