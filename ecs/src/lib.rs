//! A statically typed, macro-driven archetype ECS.
//!
//! Entities are 64-bit handles; components are plain Rust types deriving
//! [`Component`](component::Component); entities with the same set of components
//! share an archetype whose table stores each component in its own column.
//! Queries are typed tuples, cached per [`QueryState`](query::QueryState).
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
//! struct Velocity { x: f32, y: f32 }
//!
//! let mut world = World::new();
//! let e = world.spawn((Position::default(), Velocity { x: 1.0, y: 0.5 })).id();
//! let mut movement = world.query::<(&mut Position, &Velocity)>();
//! for (mut position, velocity) in movement.iter_mut(&mut world) {
//!     position.x += velocity.x;
//!     position.y += velocity.y;
//! }
//! assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 0.5 }));
//! ```
//!
//! Layers (each module uses only the ones below it): `ptr`/`util` (0), `entity`
//! and `component` (1), `storage` (2), `archetype` and `bundle` (3), `world` (4),
//! `query` and `relation` (5; `relation` builds query terms, so it sits above
//! `query`), `system` (6), `observer` (above `system`: observer parameters are
//! system parameters; the registry itself is world data), `schedule` (7),
//! `inspect` (8: reports of entities and worlds, stats, the archetype graph).

// The derives emit `::ecs::...` paths; this lets the crate use them on itself.
extern crate self as ecs;

pub mod archetype;
pub mod bundle;
pub mod component;
pub mod entity;
pub mod inspect;
pub mod observer;
pub mod ptr;
pub mod query;
pub mod relation;
pub mod schedule;
pub mod storage;
pub mod system;
pub mod util;
pub mod world;

pub use ecs_macros::{
    Bundle, Component, Event, Message, QueryData, QueryFilter, Relationship, Resource, SystemParam, SystemSet, system,
};

/// The README's code blocks, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Everything a typical program needs: `use ecs::prelude::*;`.
pub mod prelude {
    pub use crate::bundle::Bundle;
    pub use crate::component::{Component, Disabled, HookContext, Name, Prefab};
    pub use crate::entity::{Entity, Id, RemoteEntities, SpawnError};
    pub use crate::inspect::{EntityReport, WorldReport, WorldStats};
    pub use crate::observer::{Event, OnAdd, OnDespawn, OnInsert, OnRemove, OnReplace, RemovedComponents, Trigger};
    pub use crate::query::{
        Added, Changed, DslError, DynQuery, DynRow, DynRowMut, Has, Or, QueryBuildError, QueryBuilder, QueryData,
        QueryError, QueryFilter, QuerySingleError, QueryState, With, Without,
    };
    pub use crate::relation::{ChildOf, Fixed, IsA, Pair, Relationship, Up, WithPair};
    pub use crate::schedule::{
        ApplyDeferred, Condition, IntoCondition, IntoSystemConfigs, IntoSystemSetConfigs, Schedule, SystemSet,
        any_with_component, not, on_message, resource_added, resource_changed, resource_exists, run_once,
    };
    pub use crate::system::{
        Commands, EntityCommands, In, IntoSystem, Local, MessageMutator, MessageReader, MessageWriter, ParamSet,
        Propagate, Query, Relations, Res, ResMut, RunSystemError, Single, System, SystemId, SystemParam,
    };
    pub use crate::world::{
        DeferredWorld, EntityRef, EntityWorldMut, GcConfig, Message, MessageCursor, Messages, Mut, Ref, Resource, World,
    };
    pub use ecs_macros::{
        Bundle, Component, Event, Message, QueryData, QueryFilter, Relationship, Resource, SystemParam, SystemSet,
        system,
    };
}
