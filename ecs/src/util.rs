//! Small helpers shared by every layer: hashing and debug-checked unwraps.
//!
//! * [`fnv1a_64`] is the `const` hash the derives use for `Component::ID`; it must
//!   stay bit-for-bit stable because compile-time access checks compare these ids.
//! * [`TypeIdMap`] is a hash map keyed by [`TypeId`] that skips rehashing: a
//!   `TypeId` is already a high-quality hash, so its hasher passes the bits through.
//! * [`FxHashMap`] is the fast, non-cryptographic map used for internal indices.
//! * [`PanicSlot`] keeps the first panic of a run of drops that must all happen,
//!   so an operation finishes its bookkeeping before the panic continues.
//!
//! This module is a leaf: it uses nothing else in the crate.

use core::any::{Any, TypeId};
use core::hash::{BuildHasherDefault, Hasher};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

pub use rustc_hash::{FxHashMap, FxHashSet};

/// The 64-bit FNV-1a offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The 64-bit FNV-1a prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Continues an FNV-1a hash `state` over `bytes`; usable in `const` context.
///
/// # Examples
/// ```
/// use ecs::util::{fnv1a_64, fnv1a_continue, FNV_OFFSET};
/// assert_eq!(fnv1a_continue(FNV_OFFSET, b"ab"), fnv1a_64(b"ab"));
/// ```
pub const fn fnv1a_continue(state: u64, bytes: &[u8]) -> u64 {
    let mut hash = state;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// The 64-bit FNV-1a hash of `bytes`; usable in `const` context.
///
/// # Examples
/// ```
/// use ecs::util::fnv1a_64;
/// assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub const fn fnv1a_64(bytes: &[u8]) -> u64 {
    fnv1a_continue(FNV_OFFSET, bytes)
}

/// The id the `Component` derive gives a type: FNV-1a of `module_path`, `"::"`
/// and `name`. Two types with the same path and name (impossible in one crate
/// graph) would share it.
///
/// # Examples
/// ```
/// use ecs::util::{component_type_id, fnv1a_64};
/// assert_eq!(component_type_id("game", "Position"), fnv1a_64(b"game::Position"));
/// ```
pub const fn component_type_id(module_path: &str, name: &str) -> u64 {
    let hash = fnv1a_continue(FNV_OFFSET, module_path.as_bytes());
    let hash = fnv1a_continue(hash, b"::");
    fnv1a_continue(hash, name.as_bytes())
}

/// A [`Hasher`] for keys that are already hashes (such as [`TypeId`]): it keeps
/// the last `u64` written, folding in any other bytes FNV-style.
#[derive(Default, Clone, Copy)]
pub struct PassThroughHasher(u64);

impl Hasher for PassThroughHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a_continue(self.0 ^ FNV_OFFSET, bytes);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }

    fn write_u128(&mut self, value: u128) {
        self.0 ^= (value as u64) ^ ((value >> 64) as u64);
    }
}

/// A map keyed by [`TypeId`] that does not rehash its keys.
///
/// # Examples
/// ```
/// use core::any::TypeId;
/// let mut map = ecs::util::TypeIdMap::default();
/// map.insert(TypeId::of::<u32>(), "u32");
/// assert_eq!(map.get(&TypeId::of::<u32>()), Some(&"u32"));
/// ```
pub type TypeIdMap<V> = HashMap<TypeId, V, BuildHasherDefault<PassThroughHasher>>;

/// Unwraps `option`, which the caller has proven to be `Some`: a `debug_assert!`
/// in debug builds, `unreachable_unchecked` in release.
///
/// # Safety
/// `option` must be `Some`.
#[inline(always)]
pub unsafe fn debug_unwrap<T>(option: Option<T>) -> T {
    debug_assert!(option.is_some(), "debug_unwrap on None");
    match option {
        Some(value) => value,
        // SAFETY: the caller guarantees `option` is `Some`.
        None => unsafe { core::hint::unreachable_unchecked() },
    }
}

/// The first panic of a sequence of steps that must all run even if one panics
/// (the drops of user values inside a storage operation), kept until the
/// operation has restored its invariants: then [`PanicSlot::resume`] lets it
/// continue. Later panics are caught too and dropped, so several panicking
/// destructors never abort the process (unlike a panic while unwinding).
///
/// Catching costs nothing on the path that does not panic; callers only wrap
/// calls that can run user code (`Drop` of types that need it, hooks).
///
/// # Examples
/// ```
/// use ecs::util::PanicSlot;
/// let mut log = Vec::new();
/// let mut panics = PanicSlot::default();
/// for step in 0..3 {
///     panics.catch(|| {
///         log.push(step);
///         assert!(step != 1, "step 1 failed");
///     });
/// }
/// assert_eq!(log, [0, 1, 2]); // every step ran
/// assert!(panics.is_panicking());
/// let resumed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || panics.resume()));
/// assert!(resumed.is_err()); // the first panic continues at the end
/// ```
#[derive(Default)]
#[must_use = "a caught panic must be resumed"]
pub struct PanicSlot(Option<Box<dyn Any + Send + 'static>>);

impl PanicSlot {
    /// Runs `step`; if it panics, keeps the panic (the first one) and returns.
    #[inline]
    pub fn catch(&mut self, step: impl FnOnce()) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(step)) {
            self.keep(payload);
        }
    }

    /// Drops `value` like [`PanicSlot::catch`] runs a step (nothing to catch
    /// for types without drop glue).
    #[inline]
    pub fn drop_value<T>(&mut self, value: T) {
        if core::mem::needs_drop::<T>() {
            self.catch(move || drop(value));
        } else {
            core::mem::forget(value);
        }
    }

    /// Keeps `payload` unless a panic is already kept.
    pub fn keep(&mut self, payload: Box<dyn Any + Send + 'static>) {
        if self.0.is_none() {
            self.0 = Some(payload);
        }
    }

    /// Takes the panics kept by `other` (its first one, if this slot has none).
    pub fn merge(&mut self, other: PanicSlot) {
        if let Some(payload) = other.0 {
            self.keep(payload);
        }
    }

    /// Whether a panic is kept.
    pub fn is_panicking(&self) -> bool {
        self.0.is_some()
    }

    /// Continues the kept panic, if any; returns if there is none.
    #[inline]
    pub fn resume(self) {
        if let Some(payload) = self.0 {
            resume_unwind(payload);
        }
    }
}

impl core::fmt::Debug for PanicSlot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("PanicSlot").field(&self.is_panicking()).finish()
    }
}
