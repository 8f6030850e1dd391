//! Procedural macros of the `ecs` crate.
//!
//! This crate only turns tokens into tokens; it has no runtime code and no
//! `unsafe` of its own. The `ecs` crate re-exports every macro, and its docs carry
//! the runnable examples: doctests here cannot depend on `ecs`.
//!
//! Each entry point below is a thin wrapper: it parses its input, calls the module
//! that builds the expansion (one module per macro), and turns an error into a
//! `compile_error!` that points at the user's offending tokens.
//!
//! Generated code names every item by an absolute path (`::ecs::...`,
//! `::core::...`), so it also compiles under `#![no_implicit_prelude]`.

use proc_macro::TokenStream;
use syn::{DeriveInput, ItemFn, parse_macro_input};

mod bundle;
mod component;
mod event;
mod fields;
mod query_data;
mod relationship;
mod resource;
mod system;
mod system_param;
mod system_set;
mod tuples;

/// Derives `::ecs::component::Component` for a struct or an enum.
///
/// The generated impl sets `NAME` to the type's name and `ID` to
/// `::ecs::util::component_type_id(::core::module_path!(), NAME)`, and
/// `FIELDLESS` to `true` for a struct without fields (its id may then be added
/// without a value, `World::add_id`). An optional `#[component(...)]` attribute takes these keys, each at most once:
///
/// * `storage = "table"` or `storage = "sparse"`: sets `STORAGE` (default: table);
/// * `change_detection = false`: sets `CHANGE_DETECTION` to `false` (default:
///   `true`): values carry no `added`/`changed` ticks, which saves 8 bytes per
///   table row and the tick stores of every move and write, and makes
///   `Added<T>`/`Changed<T>` a compile error;
/// * `on_add = path`, `on_insert = path`, `on_replace = path`, `on_remove = path`:
///   set `HOOKS`; each path names a
///   `fn(::ecs::world::DeferredWorld<'_>, ::ecs::component::HookContext)`;
/// * `toggle` (no value): sets `TOGGLE` to `true` and implements
///   `::ecs::component::Toggleable`: values can be disabled per entity without
///   a move; not allowed with `storage = "sparse"`.
///
/// Unions and generic types (type, lifetime or const parameters) are rejected:
/// `Component::ID` is one constant per type.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(Component)]
/// #[component(storage = "sparse", on_add = announce)]
/// struct Stunned;
///
/// #[derive(Component)]
/// #[component(change_detection = false)]
/// struct Velocity { x: f32, y: f32 }
///
/// fn announce(_world: DeferredWorld<'_>, ctx: HookContext) {
///     println!("{:?} is stunned", ctx.entity);
/// }
/// ```
#[proc_macro_derive(Component, attributes(component))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    component::derive_component(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::relation::Relationship` (and `Component`, and
/// `::ecs::relation::PairTerm` so that `Pair<R>` is a query term).
///
/// `#[relationship(...)]` takes the flags `exclusive`, `traversable`, `acyclic`,
/// `transitive` (runtime query terms on a pair match along chains) and the policies `on_delete = "..."`, `on_delete_target = "..."` (`"remove"`,
/// the default, `"delete"` or `"panic"`). `#[component(...)]` hook keys are
/// accepted; `storage` is not. Generic types and unions are rejected.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(Relationship)]
/// #[relationship(exclusive, on_delete_target = "delete")]
/// struct DockedTo;
/// ```
#[proc_macro_derive(Relationship, attributes(relationship, component))]
pub fn derive_relationship(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    relationship::derive_relationship(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::observer::Event`; `#[event(propagate = R)]` makes targeted
/// events travel up the traversable relationship `R`.
///
/// # Examples
/// ```ignore
/// #[derive(Event)]
/// #[event(propagate = ChildOf)]
/// struct Damage(u32);
/// ```
#[proc_macro_derive(Event, attributes(event))]
pub fn derive_event(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    event::derive_event(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::world::Message`: a type systems exchange as buffered
/// messages (`MessageWriter<M>`, `MessageReader<M>`). Non-generic types get a
/// compile-time name and id for the access checks, as `#[derive(Resource)]` does.
///
/// # Examples
/// ```ignore
/// #[derive(Message)]
/// struct Scored { points: u32 }
/// ```
#[proc_macro_derive(Message)]
pub fn derive_message(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    resource::derive_message(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::bundle::Bundle` for a struct whose fields are all bundles.
///
/// Every field must implement `::ecs::bundle::Bundle`: a component, a tuple of
/// bundles, or another derived bundle (nesting flattens). Fields are visited in
/// declaration order. Generic structs are supported: the impl copies the generics
/// and adds a `FieldType: ::ecs::bundle::Bundle` predicate for every field. A unit
/// struct is an empty bundle. Enums and unions are rejected.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(Bundle)]
/// struct Body { position: Position, velocity: Velocity }
///
/// #[derive(Bundle)]
/// struct Player(Body, Health, Name);
///
/// let mut world = World::new();
/// let e = world.spawn(Player(Body { position, velocity }, Health(10), Name("p1")));
/// ```
#[proc_macro_derive(Bundle)]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    bundle::derive_bundle(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives the marker trait `::ecs::world::Resource`.
///
/// Works on structs, enums and unions, generic or not; the impl copies the type's
/// generics and where clause unchanged (the trait's supertraits, such as `Send`,
/// `Sync` and `'static`, are then checked by the compiler as usual).
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(Resource, Default)]
/// struct Time { elapsed: f64 }
///
/// let mut world = World::new();
/// world.insert_resource(Time::default());
/// ```
#[proc_macro_derive(Resource)]
pub fn derive_resource(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    resource::derive_resource(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `SystemSet`: a label for a group of systems in a schedule, which
/// takes ordering constraints and run conditions like a system does. The type
/// must also derive `Debug`, `Clone`, `PartialEq` and `Eq`.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
/// struct Physics;
///
/// let mut schedule = Schedule::new();
/// schedule.configure_sets(Physics.run_if(|| true));
/// ```
#[proc_macro_derive(SystemSet)]
pub fn derive_system_set(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    system_set::derive_system_set(input).into()
}

/// Calls a `macro_rules!` macro once per tuple arity, for tuple trait impls.
///
/// `all_tuples!(macro_name, START, END, Ident, ...)` expands to one
/// `macro_name!(...);` invocation for each `n` in `START..=END`. With one ident
/// `P`, invocation `n` receives `P0, P1, ..., P{n-1}`; with several idents `P, p`,
/// it receives the groups `(P0, p0), (P1, p1), ...`. Arity 0 is `macro_name!();`.
/// `START` and `END` are integer literals with `START <= END`.
///
/// # Examples
/// ```text
/// all_tuples!(impl_bundle, 0, 2, B);
/// // expands to
/// impl_bundle!();
/// impl_bundle!(B0);
/// impl_bundle!(B0, B1);
///
/// all_tuples!(impl_fetch, 1, 2, F, f);
/// // expands to
/// impl_fetch!((F0, f0));
/// impl_fetch!((F0, f0), (F1, f1));
/// ```
#[proc_macro]
pub fn all_tuples(input: TokenStream) -> TokenStream {
    tuples::all_tuples(input.into()).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Marks a function as a system: the function is unchanged, and a free `const`
/// item evaluates the compile-time access check of its parameters, so aliasing
/// parameters are reported by `cargo check` (and editors), naming the component.
/// Generic functions are checked when they are instantiated instead.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[system]
/// fn movement(mut q: Query<(&mut Position, &Velocity)>) { /* .. */ }
///
/// #[system] // error: system `bad`: params #0 and #1 conflict on Position: ...
/// fn bad(a: Query<&mut Position>, b: Query<&Position>) {}
/// ```
#[proc_macro_attribute]
pub fn system(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    system::system(attribute.into(), function).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::system::SystemParam` for a struct of system parameters.
///
/// The struct (named fields, a tuple struct or a unit struct) may have the
/// lifetimes `'w` and `'s` and no other generics; a `pub` one may hold
/// parameters of private types. Its fields' accesses are checked against
/// each other at compile time, and against the other parameters of every
/// system that takes it.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(SystemParam)]
/// struct Movement<'w, 's> {
///     movers: Query<'w, 's, (&'static mut Position, &'static Velocity)>,
///     time: Res<'w, Time>,
/// }
/// fn movement(mut m: Movement) { /* .. */ }
/// ```
#[proc_macro_derive(SystemParam)]
pub fn derive_system_param(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    system_param::derive_system_param(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::query::QueryData` for a struct of query terms (named
/// fields; a tuple struct, whose item is a tuple struct; or a unit struct),
/// and an item struct `{Name}Item<'w>`. Add `#[query_data(mutable)]` when a field
/// writes (`&'w mut T`); it also generates `{Name}ReadOnly` for read-only
/// iteration. Conflicting fields (`&mut A` with `&A`) are a compile error.
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(QueryData)]
/// #[query_data(mutable)]
/// struct Mover<'w> { entity: Entity, position: &'w mut Position, velocity: &'w Velocity }
///
/// for mover in world.query::<Mover>().iter_mut(&mut world) {
///     mover.position.x += mover.velocity.x; // `mover` is a `MoverItem`
/// }
///
/// #[derive(QueryData)]
/// struct Placed<'w>(Entity, &'w Position); // item: `PlacedItem(entity, position)`
/// ```
#[proc_macro_derive(QueryData, attributes(query_data))]
pub fn derive_query_data(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    query_data::derive_query_data(input).unwrap_or_else(|err| err.to_compile_error()).into()
}

/// Derives `::ecs::query::QueryFilter` for a struct of filters (named or
/// tuple fields).
///
/// # Examples
/// ```ignore
/// use ecs::prelude::*;
///
/// #[derive(QueryFilter)]
/// struct LiveEnemies { enemy: With<Enemy>, alive: Without<Dead> }
///
/// let mut q = world.query_filtered::<&Position, LiveEnemies>();
/// ```
#[proc_macro_derive(QueryFilter)]
pub fn derive_query_filter(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    query_data::derive_query_filter(input).unwrap_or_else(|err| err.to_compile_error()).into()
}
