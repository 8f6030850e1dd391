//! Components: the [`Component`] trait, [`ComponentInfo`] and the id registry.
//!
//! Components are entities: registering a type allocates an entity (flagged
//! `IS_COMPONENT | INTERNAL`) whose id is the component id, and records its
//! [`ComponentInfo`] (name, layout, drop fn, hook slots, storage kind). The world
//! later places that entity in an internal archetype carrying `ComponentInfo` and
//! `Name` values, so the metadata is also readable with ordinary `get` calls.
//! Despawning that entity (Flecs semantics) applies the component's `on_delete`
//! policy to its holders, then unregisters it; its index is retired, never
//! recycled, so a stale component id never names another entity.
//!
//! Invariants of [`Components`]:
//! * `infos[id.index()]` is `Some` iff `id` is a registered component;
//! * `by_type` and `by_name` only point at registered ids;
//! * a type is registered at most once at a time (after its component entity is
//!   despawned it may be registered again, under a fresh id).
//!
//! Hook slots hold type-erased fn pointers ([`Hook`]); the `world` layer, which
//! owns the hook signature, is the only one that builds and calls them.

mod builtin;
mod info;
mod registry;
mod relationship;

pub use builtin::{ChildOf, Disabled, Internal, IsA, Name, Prefab};
pub use info::{
    CloneFn, Component, ComponentDescriptor, ComponentHooks, ComponentInfo, DebugFn, Hook, HookContext, OnInstantiate,
    StorageKind, Toggleable, TypeKey, clone_value, debug_value, type_key_address,
};
#[doc(hidden)]
pub use info::{CloneProbe, DebugProbe, NoClone, NoDebug};
pub(crate) use info::{is_inherited, is_inherited_sparse};
pub use registry::{ComponentRegistrar, Components};
pub use relationship::{CleanupPolicy, RelationshipTraits};
