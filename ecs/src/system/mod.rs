//! Systems: plain functions whose parameters ([`SystemParam`]) the world builds
//! on every run, with their borrows checked **at compile time**.
//!
//! * [`Query`], [`Res`], [`ResMut`], [`Commands`], [`Local`], `&World`, `Option<Res<T>>`,
//!   tuples, and `#[derive(SystemParam)]` structs are parameters.
//! * Every parameter has a const [`ParamAccess`]; converting a function into a
//!   system (`IntoSystem`, `Schedule::add_systems`, `World::run_system_once`) evaluates
//!   [`ParamAccess::check`], so aliasing parameters are a compile error that names
//!   the component; `#[system]` also emits the check as a free `const` item so
//!   `cargo check` and editors report it.
//! * The same rules run on runtime ids when a system is initialized
//!   ([`SystemAccess`]), which also decides what the const check leaves open.
//! * [`Propagate`] walks a query parents first along a relationship, each row
//!   with its ancestor's already-updated value (transform propagation).
//! * [`Commands`] defer structural changes to the next sync point.
//! * Functions of `&mut World` are exclusive systems ([`ExclusiveFunctionSystem`]).

mod access;
mod combinator;
mod commands;
mod dyn_query;
mod exclusive;
mod function;
mod hierarchy;
mod message;
mod param;
mod param_set;
mod propagate;
mod query;
mod registry;
mod single;

pub use access::{
    Conflict, MAX_PARAM_UNITS, ParamAccess, ParamUnit, RuntimeUnit, SystemAccess, SystemCheck, UnitAccess,
    check_observer, check_system, short_type_name,
};
pub use combinator::{IsCombinedSystem, MapSystem, PipeSystem};
pub use commands::{CommandQueue, Commands, EntityCommands};
pub use dyn_query::{RuntimeQuery, RuntimeQuerySpec};
pub use exclusive::{ExclusiveFunctionSystem, IsExclusiveFunctionSystem};
pub use function::{
    BoxedSystem, FunctionSystem, HasSystemInput, In, IntoSystem, IsFunctionSystem, System, SystemParamFunction,
    SystemReadOnly, check_params,
};
pub use hierarchy::{ChildSpawnerCommands, Relations};
pub use message::{MessageMutator, MessageReader, MessageWriter};
pub use param::{Local, Res, ResMut, SystemMeta, SystemParam, SystemParamItem};
pub use param_set::{__FieldItem, __RelabelOther, __RelabelParamSet, ParamSet, ParamSetMember};
pub use propagate::Propagate;
pub use query::Query;
pub use registry::{RunSystemError, SystemId};
pub use single::Single;
