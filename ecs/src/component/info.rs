//! The [`Component`] trait and the per-component metadata ([`ComponentInfo`]).

use core::alloc::Layout;
use core::any::TypeId;
use core::fmt;
use std::borrow::Cow;

use super::relationship::RelationshipTraits;
use crate::entity::Entity;

/// Where a component's values live.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::StorageKind;
/// #[derive(Component)]
/// #[component(storage = "sparse")]
/// struct Stunned(u32);
/// assert_eq!(<Stunned as Component>::STORAGE, StorageKind::Sparse);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum StorageKind {
    /// In a column of the entity's archetype table (fast iteration; adding or
    /// removing it moves the entity to another archetype).
    #[default]
    Table,
    /// In a paged sparse set outside the tables: adding or removing it never moves
    /// the entity's other data, and its address is stable while it stays. It does
    /// not fragment archetypes (like Flecs' `DontFragment`).
    Sparse,
}

/// What instances of a prefab get of a component (Flecs' `OnInstantiate`
/// trait), chosen with `#[component(on_instantiate = "...")]`.
///
/// The default, [`OnInstantiate::Inherit`], needs no bound on the type: an
/// instance reads the prefab's value until it gets its own.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::OnInstantiate;
/// #[derive(Component, Clone, Debug, PartialEq)]
/// #[component(on_instantiate = "override")]
/// struct Health(u32);
/// #[derive(Component)]
/// struct MaxSpeed(f32);
/// assert_eq!(<Health as Component>::ON_INSTANTIATE, OnInstantiate::Override);
/// assert_eq!(<MaxSpeed as Component>::ON_INSTANTIATE, OnInstantiate::Inherit);
/// let mut world = World::new();
/// let prefab = world.spawn((Prefab, Health(10), MaxSpeed(3.0))).id();
/// let instance = world.instantiate(prefab);
/// world.get_mut::<Health>(instance).unwrap().0 = 5; // its own copy
/// assert_eq!(world.get::<Health>(prefab), Some(&Health(10)));
/// assert_eq!(world.get::<MaxSpeed>(instance).map(|s| s.0), Some(3.0)); // shared
/// assert!(world.get_mut::<MaxSpeed>(instance).is_none()); // never handed out mutably
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum OnInstantiate {
    /// `"override"`: the prefab's value is cloned into each new instance
    /// (needs `Clone`); later edits of the prefab do not reach the copies.
    Override,
    /// `"inherit"` (the default): instances share the prefab's value, read
    /// through `IsA` by `get` and by `&T`, `Has<T>`, `With<T>` and
    /// `Without<T>` query terms; inserting a value gives an instance its own.
    #[default]
    Inherit,
    /// `"dont_inherit"`: instances get nothing.
    DontInherit,
}

/// Clones the value at a type-erased pointer into uninitialized memory (the
/// `override` policy's copy).
///
/// # Safety
/// The first pointer points to a valid value of the component's type, the
/// second to memory for one value of it, suitably aligned and not initialized.
pub type CloneFn = unsafe fn(*const u8, *mut u8);

/// The [`CloneFn`] of `T`: what `#[component(on_instantiate = "override")]`
/// puts in [`Component::CLONE`] (so a type without `Clone` does not compile).
///
/// # Safety
/// `source` points to a valid `T`; `destination` to uninitialized memory for
/// one `T`, suitably aligned.
///
/// # Examples
/// ```
/// let source = 7u32;
/// let mut destination = core::mem::MaybeUninit::<u32>::uninit();
/// // SAFETY: a valid `u32` and room for one.
/// unsafe { ecs::component::clone_value::<u32>(&source as *const u32 as *const u8, destination.as_mut_ptr().cast()) };
/// assert_eq!(unsafe { destination.assume_init() }, 7);
/// ```
pub unsafe fn clone_value<T: Clone>(source: *const u8, destination: *mut u8) {
    // SAFETY: guaranteed by the caller.
    unsafe { destination.cast::<T>().write((*source.cast::<T>()).clone()) }
}

/// Writes the value at a type-erased pointer with its type's `Debug` impl
/// (what `World::inspect` shows). Stored per component as
/// [`Component::DEBUG`] / [`ComponentInfo::debug_fn`].
///
/// # Safety
/// The pointer points to a valid, aligned value of the component's type that
/// stays unchanged during the call.
pub type DebugFn = unsafe fn(*const u8, &mut core::fmt::Formatter<'_>) -> core::fmt::Result;

/// The [`DebugFn`] of `T`: what `#[derive(Component)]` puts in
/// [`Component::DEBUG`] when the type implements `Debug`.
///
/// # Safety
/// `value` points to a valid, aligned `T` that stays unchanged during the call.
///
/// # Examples
/// ```
/// struct Show(u32);
/// impl core::fmt::Display for Show {
///     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
///         let value = (self.0, "seven");
///         // SAFETY: a valid `(u32, &str)` that lives through the call.
///         unsafe { ecs::component::debug_value::<(u32, &str)>(&value as *const (u32, &str) as *const u8, f) }
///     }
/// }
/// assert_eq!(Show(7).to_string(), "(7, \"seven\")");
/// ```
pub unsafe fn debug_value<T: core::fmt::Debug>(
    value: *const u8,
    f: &mut core::fmt::Formatter<'_>,
) -> core::fmt::Result {
    // SAFETY: the caller guarantees a valid, aligned `T` that outlives the call.
    let value = unsafe { &*value.cast::<T>() };
    core::fmt::Debug::fmt(value, f)
}

/// Picks a type's [`DebugFn`] at compile time without a `Debug` bound: what
/// the derives use for [`Component::DEBUG`].
///
/// `DebugProbe::<T>::DEBUG` names the inherent constant when `T: Debug`
/// (`Some(debug_value::<T>)`); otherwise the inherent impl does not apply
/// and the path falls back to [`NoDebug::DEBUG`] (`None`), provided
/// `NoDebug` is in scope. This works for concrete types only: inside a
/// generic impl the bound is unknown and the fallback would always win, so
/// generic components (which the derive rejects anyway) get no debug fn.
///
/// # Examples
/// ```
/// use ecs::component::{DebugProbe, NoDebug as _};
/// struct Opaque;
/// assert!(DebugProbe::<u32>::DEBUG.is_some());
/// assert!(DebugProbe::<Opaque>::DEBUG.is_none());
/// ```
#[doc(hidden)]
pub struct DebugProbe<T: ?Sized>(core::marker::PhantomData<T>);

impl<T: core::fmt::Debug> DebugProbe<T> {
    /// `T`'s debug fn (the type implements `Debug`).
    pub const DEBUG: Option<DebugFn> = Some(debug_value::<T>);
}

/// The fallback of [`DebugProbe`]: no debug fn for types without `Debug`.
#[doc(hidden)]
pub trait NoDebug {
    /// No debug fn.
    const DEBUG: Option<DebugFn> = None;
}

/// Picks a type's [`CloneFn`] at compile time without a `Clone` bound, as
/// [`DebugProbe`] does for `Debug`: what the derive puts in
/// [`Component::CLONE`] for toggleable components (an instance that disables
/// or enables a value it inherits gets its own copy first).
///
/// # Examples
/// ```
/// use ecs::component::{CloneProbe, NoClone as _};
/// struct Opaque;
/// assert!(CloneProbe::<u32>::CLONE.is_some());
/// assert!(CloneProbe::<Opaque>::CLONE.is_none());
/// ```
#[doc(hidden)]
pub struct CloneProbe<T: ?Sized>(core::marker::PhantomData<T>);

impl<T: Clone> CloneProbe<T> {
    /// `T`'s clone fn (the type implements `Clone`).
    pub const CLONE: Option<CloneFn> = Some(clone_value::<T>);
}

/// The fallback of [`CloneProbe`]: no clone fn for types without `Clone`.
#[doc(hidden)]
pub trait NoClone {
    /// No clone fn.
    const CLONE: Option<CloneFn> = None;
}

impl<T: ?Sized> NoClone for CloneProbe<T> {}

/// A component type's identity at an address of its own: see
/// [`Component::TYPE_KEY`]. A key holds its type's `TypeId` (the only way to
/// make one is [`TypeKey::new`], for its own `T`, and the key is invariant in
/// `T`, so no subtyping turns a key of one type into a key of another), so
/// two keys at one address hold one `TypeId`: equal addresses mean equal
/// types, whoever wrote the `static` (and a key merged with another's by the
/// compiler has the same bytes, so the same type too).
///
/// # Examples
/// ```
/// use ecs::component::TypeKey;
/// struct Mine;
/// static KEY: TypeKey<Mine> = TypeKey::new();
/// assert_eq!(KEY.type_id(), std::any::TypeId::of::<Mine>());
/// ```
pub struct TypeKey<T: ?Sized + 'static> {
    type_id: TypeId,
    /// Invariant in `T` (and `Send + Sync` for a `static`): a covariant key
    /// would let `&TypeKey<S<for<'a> fn(&'a u32)>>` coerce to
    /// `&TypeKey<S<fn(&'static u32)>>`, a key of another type (the two have
    /// distinct `TypeId`s).
    _type: core::marker::PhantomData<fn(&T) -> &T>,
}

impl<T: ?Sized + 'static> TypeKey<T> {
    /// The key of `T` (to be stored in a `static`).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> TypeKey<T> {
        TypeKey { type_id: TypeId::of::<T>(), _type: core::marker::PhantomData }
    }

    /// The type the key names: `T`.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }
}

impl<T: ?Sized + 'static> fmt::Debug for TypeKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypeKey").field(&core::any::type_name::<T>()).finish()
    }
}

/// The address of component `T`'s [`TypeKey`], 0 if it has none: a constant
/// (see [`Component::TYPE_KEY`]).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::type_key_address;
/// #[derive(Component)]
/// struct A;
/// #[derive(Component)]
/// struct B;
/// assert_ne!(type_key_address::<A>(), 0);
/// assert_ne!(type_key_address::<A>(), type_key_address::<B>());
/// ```
#[inline(always)]
pub fn type_key_address<T: Component>() -> usize {
    T::TYPE_KEY.map_or(0, |key| key as *const TypeKey<T> as usize)
}

impl<T: ?Sized> NoDebug for DebugProbe<T> {}

/// Whether `T` is a sparse component read through `IsA` from a base (its
/// policy is [`OnInstantiate::Inherit`]): sparse values are in no archetype's
/// type, so the base is found by walking the bases when a value is read
/// (`World::sparse_base_of`).
#[inline]
pub(crate) const fn is_inherited_sparse<T: Component>() -> bool {
    matches!(T::ON_INSTANTIATE, OnInstantiate::Inherit) && matches!(T::STORAGE, StorageKind::Sparse)
}

/// Whether `T` is read through `IsA` from a base: its policy is
/// [`OnInstantiate::Inherit`] and its values live in tables. An inherited
/// toggleable value is enabled or disabled as it is on the base that holds
/// it. (Sparse components with that policy are inherited too, found by a walk
/// of the bases when read: see [`is_inherited_sparse`].)
#[inline]
pub(crate) const fn is_inherited<T: Component>() -> bool {
    matches!(T::ON_INSTANTIATE, OnInstantiate::Inherit) && matches!(T::STORAGE, StorageKind::Table)
}

/// A type-erased hook function pointer. Built by `Hook::new` (in the `world`
/// module, which owns the hook signature `fn(DeferredWorld, HookContext)`).
#[derive(Clone, Copy, Debug)]
pub struct Hook(pub(crate) fn());

/// The hook slots of a component: functions meant to run inline when a value of
/// it is added, inserted, replaced or removed. Declared with
/// `#[component(on_add = path, ...)]` and stored with the component's info.
///
/// The world runs them during `spawn`, `spawn_batch`, `insert`, `remove` and
/// `despawn` (see the `world::hooks` module for the order); their structural
/// changes go through `DeferredWorld::commands` and are applied before the call
/// returns. Hooks are part of a component's registration: set them before the
/// component is first used (bundles cache whether they have hooked components).
/// A relationship's hooks also run for each of its pairs `(R, target)`
/// (as Flecs runs a pair's type hooks): `HookContext::component_id` names the
/// relationship, `DeferredWorld::pair_target` the pair's target.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// fn on_add(_world: DeferredWorld, _ctx: HookContext) {}
/// #[derive(Component)]
/// #[component(on_add = on_add)]
/// struct Health(f32);
/// assert!(<Health as Component>::HOOKS.on_add.is_some());
/// assert!(<Health as Component>::HOOKS.on_remove.is_none());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ComponentHooks {
    /// For when the component is added to an entity that did not have it.
    pub on_add: Option<Hook>,
    /// For every insert, including overwrites.
    pub on_insert: Option<Hook>,
    /// For before a value is overwritten or removed (the old value is readable).
    pub on_replace: Option<Hook>,
    /// For before the component is removed (the value is readable).
    pub on_remove: Option<Hook>,
}

impl ComponentHooks {
    /// No hooks.
    pub const NONE: ComponentHooks =
        ComponentHooks { on_add: None, on_insert: None, on_replace: None, on_remove: None };

    /// Whether any slot is set.
    pub const fn any(&self) -> bool {
        self.on_add.is_some() || self.on_insert.is_some() || self.on_replace.is_some() || self.on_remove.is_some()
    }
}

/// What a hook is told: which entity and which component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookContext {
    /// The entity whose component changed.
    pub entity: Entity,
    /// The component (its id entity).
    pub component_id: Entity,
}

/// A data type that can be attached to entities. Derive it:
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct Position { x: f32, y: f32 }
/// assert_eq!(Position::NAME, "Position");
/// let mut world = World::new();
/// let e = world.spawn(Position { x: 1.0, y: 2.0 }).id();
/// assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
/// ```
///
/// The derive rejects generic types: `ID` must be one constant per type.
pub trait Component: Send + Sync + 'static {
    /// The type's name (without its module path), registered for `World::lookup`.
    const NAME: &'static str;
    /// FNV-1a of `module_path!()`, `"::"` and `NAME`: a stable id usable in
    /// `const` context (compile-time access checks compare these).
    const ID: u64;
    /// Where values live.
    const STORAGE: StorageKind = StorageKind::Table;
    /// Hook slots declared by the derive.
    const HOOKS: ComponentHooks = ComponentHooks::NONE;
    /// Whether values carry `added`/`changed` ticks (the default). With
    /// `#[component(change_detection = false)]` they carry none: moves, spawns
    /// and writes skip the tick stores and the table saves 8 bytes per row, but
    /// `Added<T>`/`Changed<T>` do not compile for the type and its [`Mut`] reports
    /// neither added nor changed.
    ///
    /// [`Mut`]: crate::world::Mut
    const CHANGE_DETECTION: bool = true;
    /// The relationship traits, for types deriving `Relationship` (which also
    /// derives this trait); `None` for plain components, which used as the
    /// first half of a pair behave as [`RelationshipTraits::DEFAULT`].
    const RELATIONSHIP: Option<RelationshipTraits> = None;
    /// Whether the type is a struct without fields (`struct Enemy;`): its only
    /// value can be made from nothing, so its id may be added without a value
    /// (`World::add_id`, and `World::add_pair` for a relationship). The derive
    /// sets it; the default, `false`, makes those calls ask for a value (a
    /// zero-sized type may have no value at all, like `enum Never {}`, or one
    /// that only its module may make).
    const FIELDLESS: bool = false;
    /// What instances of a prefab get ([`OnInstantiate`]); the derive sets it
    /// from `#[component(on_instantiate = "...")]`.
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::Inherit;
    /// How to clone a value, for [`OnInstantiate::Override`] (the derive
    /// fills it in with [`clone_value`], which needs `Clone`).
    const CLONE: Option<CloneFn> = None;
    /// Whether values can be disabled per entity without a move
    /// (`#[component(toggle)]`, which also implements [`Toggleable`]): every
    /// table column of the component carries one enabled bit per row, and a
    /// disabled value counts as absent for every query term. Only table
    /// components can be toggleable.
    const TOGGLE: bool = false;
    /// How to show a value with `Debug`, for `World::inspect`. The derive
    /// fills it in with [`debug_value`] when the type implements `Debug` (no
    /// `Debug` bound is needed: types without it keep `None`, and inspection
    /// shows `<no Debug>`). Hand-written impls may set it themselves.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug)]
    /// struct Shown(u32);
    /// #[derive(Component)]
    /// struct Hidden(u32);
    /// assert!(<Shown as Component>::DEBUG.is_some());
    /// assert!(<Hidden as Component>::DEBUG.is_none());
    /// ```
    const DEBUG: Option<DebugFn> = None;
    /// A static unique to this type, which lets runtime queries check a
    /// value's type with one pointer comparison instead of a `TypeId`
    /// comparison (`DynRow::get`). The derive fills it in; `None` (the
    /// default, also right for hand-written impls) makes them compare
    /// `TypeId`s. A key can only name `Self` (see [`TypeKey`]), so keys at
    /// one address are keys of one type.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Keyed;
    /// assert!(<Keyed as Component>::TYPE_KEY.is_some());
    /// ```
    const TYPE_KEY: Option<&'static TypeKey<Self>> = None;
}

/// A component whose values can be disabled and enabled per entity without a
/// move (`EntityWorldMut::disable`, `EntityWorldMut::enable`,
/// `World::is_enabled`). Implemented by `#[derive(Component)]` with
/// `#[component(toggle)]`, which also sets [`Component::TOGGLE`]; a hand-written
/// impl must set `TOGGLE = true` and table storage as well (`disable`/`enable`
/// do not compile otherwise).
///
/// A disabled value stays stored, readable and writable through
/// `World::get`/`World::get_mut`; queries treat it as absent (`&T` skips the
/// row, `Option<&T>` is `None`, `Has<T>` is `false`, `Without<T>` matches).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::Toggleable;
/// #[derive(Component)]
/// #[component(toggle)]
/// struct Thrust(f32);
/// fn is_toggleable<T: Toggleable>() -> bool {
///     T::TOGGLE
/// }
/// assert!(is_toggleable::<Thrust>());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toggleable component",
    label = "not declared `#[component(toggle)]`",
    note = "declare it with `#[derive(Component)] #[component(toggle)]` to disable and enable it per entity"
)]
pub trait Toggleable: Component {}

/// Everything needed to register a component, with or without a Rust type.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::ComponentDescriptor;
/// #[derive(Component)]
/// struct Mass(f32);
/// let descriptor = ComponentDescriptor::new::<Mass>();
/// assert_eq!(descriptor.name, "Mass");
/// assert_eq!(descriptor.layout.size(), 4);
/// ```
#[derive(Clone, Debug)]
pub struct ComponentDescriptor {
    /// Short name, for `lookup`.
    pub name: Cow<'static, str>,
    /// Full type path (`core::any::type_name`), also registered for `lookup`.
    pub type_name: Cow<'static, str>,
    /// The Rust type, if there is one.
    pub type_id: Option<TypeId>,
    /// `Component::ID` (0 for components without a Rust type).
    pub type_hash: u64,
    /// Size and alignment of one value.
    pub layout: Layout,
    /// Drops one value in place, if the type needs dropping.
    pub drop: Option<unsafe fn(*mut u8)>,
    /// Table or sparse.
    pub storage: StorageKind,
    /// Hook slots.
    pub hooks: ComponentHooks,
    /// Relationship traits, if the component is a relationship.
    pub relationship: Option<RelationshipTraits>,
    /// Whether table values carry `added`/`changed` ticks
    /// ([`Component::CHANGE_DETECTION`]).
    pub change_detection: bool,
    /// Whether the Rust type is a struct without fields
    /// ([`Component::FIELDLESS`]); ignored without a Rust type.
    pub fieldless: bool,
    /// What instances of a prefab get ([`Component::ON_INSTANTIATE`]).
    pub on_instantiate: OnInstantiate,
    /// How to clone a value ([`Component::CLONE`]); an `Override` component
    /// without one is copied only when it is a tag.
    pub clone: Option<CloneFn>,
    /// Whether table columns of the component carry an enabled bit per row
    /// ([`Component::TOGGLE`]); ignored for sparse components.
    pub toggle: bool,
    /// How to show a value with `Debug` ([`Component::DEBUG`]), if the type
    /// implements it.
    pub debug: Option<DebugFn>,
}

/// Drops the `T` at `ptr`.
///
/// # Safety
/// `ptr` must point to a valid, aligned `T` that is not used again.
unsafe fn drop_ptr<T>(ptr: *mut u8) {
    // SAFETY: guaranteed by the caller.
    unsafe { ptr.cast::<T>().drop_in_place() }
}

impl ComponentDescriptor {
    /// The descriptor of a Rust component type.
    pub fn new<T: Component>() -> Self {
        ComponentDescriptor {
            name: Cow::Borrowed(T::NAME),
            type_name: Cow::Borrowed(core::any::type_name::<T>()),
            type_id: Some(TypeId::of::<T>()),
            type_hash: T::ID,
            layout: Layout::new::<T>(),
            drop: core::mem::needs_drop::<T>().then_some(drop_ptr::<T> as unsafe fn(*mut u8)),
            storage: T::STORAGE,
            hooks: T::HOOKS,
            relationship: T::RELATIONSHIP,
            change_detection: T::CHANGE_DETECTION,
            fieldless: T::FIELDLESS,
            on_instantiate: T::ON_INSTANTIATE,
            clone: T::CLONE,
            toggle: T::TOGGLE,
            debug: T::DEBUG,
        }
    }
}

/// The registered metadata of one component. Also stored as a component on the
/// component's own entity.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
/// let mut world = World::new();
/// let id = world.register_component::<Position>();
/// let info = world.component_info(id).unwrap();
/// assert_eq!(info.name(), "Position");
/// assert_eq!(info.layout().size(), 8);
/// assert!(!info.is_tag());
/// // the component entity carries its info as a component too
/// assert_eq!(world.get::<ecs::component::ComponentInfo>(id).unwrap().name(), "Position");
/// ```
#[derive(Clone, Debug)]
pub struct ComponentInfo {
    pub(crate) id: Entity,
    pub(crate) descriptor: ComponentDescriptor,
    /// [`type_key_address`] of the Rust type, once registered by type; 0
    /// otherwise (then lookups compare `TypeId`s).
    pub(crate) type_key: usize,
}

impl ComponentInfo {
    /// The component's id (its entity).
    #[inline]
    pub fn id(&self) -> Entity {
        self.id
    }

    /// The short name.
    pub fn name(&self) -> &str {
        &self.descriptor.name
    }

    /// Whether its table values carry `added`/`changed` ticks
    /// ([`Component::CHANGE_DETECTION`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(change_detection = false)]
    /// struct Velocity(f32);
    /// let mut world = World::new();
    /// let id = world.register_component::<Velocity>();
    /// assert!(!world.component_info(id).unwrap().has_change_detection());
    /// let e = world.spawn(Velocity(1.0)).id();
    /// let mut velocity = world.get_mut::<Velocity>(e).unwrap();
    /// velocity.0 = 2.0; // written, but not tracked
    /// assert!(!velocity.is_changed());
    /// ```
    #[inline]
    pub fn has_change_detection(&self) -> bool {
        self.descriptor.change_detection
    }

    /// What instances of a prefab get of this component
    /// ([`Component::ON_INSTANTIATE`]).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::component::OnInstantiate;
    /// #[derive(Component)]
    /// struct MaxSpeed(f32);
    /// let mut world = World::new();
    /// let id = world.register_component::<MaxSpeed>();
    /// assert_eq!(world.component_info(id).unwrap().on_instantiate(), OnInstantiate::Inherit);
    /// let name = world.component_id::<Name>().unwrap();
    /// assert_eq!(world.component_info(name).unwrap().on_instantiate(), OnInstantiate::DontInherit);
    /// ```
    #[inline]
    pub fn on_instantiate(&self) -> OnInstantiate {
        self.descriptor.on_instantiate
    }

    /// How to clone one value, if the component can be copied into instances
    /// ([`Component::CLONE`]).
    #[inline]
    pub fn clone_fn(&self) -> Option<CloneFn> {
        self.descriptor.clone
    }

    /// Whether instances read this component from their prefabs through
    /// `IsA`: the policy is [`OnInstantiate::Inherit`] and values live in
    /// tables (an inherited toggleable value is as enabled as on its base).
    /// The runtime form of what typed query terms decide at compile time.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct MaxSpeed(f32);
    /// #[derive(Component)]
    /// #[component(storage = "sparse")]
    /// struct Stunned;
    /// let mut world = World::new();
    /// let (speed, stunned) = (world.register_component::<MaxSpeed>(), world.register_component::<Stunned>());
    /// assert!(world.component_info(speed).unwrap().is_inherited());
    /// assert!(!world.component_info(stunned).unwrap().is_inherited());
    /// assert!(world.component_info(stunned).unwrap().is_inherited_sparse());
    /// ```
    #[inline]
    pub fn is_inherited(&self) -> bool {
        self.descriptor.on_instantiate == OnInstantiate::Inherit && self.descriptor.storage == StorageKind::Table
    }

    /// Whether instances read this relationship's pairs from their prefabs
    /// through `IsA`, as they read `inherit` components: a relationship whose
    /// pairs carry values, with the [`OnInstantiate::Inherit`] policy. (Tag
    /// pairs and pairs of `override` relationships are copied into each
    /// instance instead; `dont_inherit` ones are neither.)
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Eats(u32);
    /// #[derive(Relationship)]
    /// struct Likes;
    /// let mut world = World::new();
    /// let (eats, likes) = (world.register_component::<Eats>(), world.register_component::<Likes>());
    /// assert!(world.component_info(eats).unwrap().inherits_pairs());
    /// assert!(!world.component_info(likes).unwrap().inherits_pairs());
    /// let (prefab, apples) = (world.spawn(Prefab).id(), world.spawn_empty().id());
    /// world.insert_pair(prefab, Eats(3), apples);
    /// let instance = world.instantiate(prefab);
    /// assert_eq!(world.get_pair::<Eats>(instance, apples).map(|e| e.0), Some(3));
    /// ```
    #[inline]
    pub fn inherits_pairs(&self) -> bool {
        self.descriptor.relationship.is_some()
            && self.descriptor.on_instantiate == OnInstantiate::Inherit
            && self.pair_needs_value()
    }

    /// Whether instances read this sparse component from their prefabs
    /// through `IsA` (the policy is [`OnInstantiate::Inherit`]): found by a
    /// walk of the bases when read, since sparse values are in no type.
    #[inline]
    pub fn is_inherited_sparse(&self) -> bool {
        self.descriptor.on_instantiate == OnInstantiate::Inherit && self.descriptor.storage == StorageKind::Sparse
    }

    /// Whether values can be disabled per entity ([`Component::TOGGLE`]): its
    /// table columns carry an enabled bit per row. Always `false` for sparse
    /// components.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// #[component(toggle)]
    /// struct Thrust(f32);
    /// #[derive(Component)]
    /// struct Mass(f32);
    /// let mut world = World::new();
    /// let (thrust, mass) = (world.register_component::<Thrust>(), world.register_component::<Mass>());
    /// assert!(world.component_info(thrust).unwrap().is_toggle());
    /// assert!(!world.component_info(mass).unwrap().is_toggle());
    /// ```
    #[inline]
    pub fn is_toggle(&self) -> bool {
        self.descriptor.toggle && self.descriptor.storage == StorageKind::Table
    }

    /// How to show a value with `Debug` ([`Component::DEBUG`]); `None` if the
    /// type does not implement `Debug` (or has no Rust type).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component, Debug)]
    /// struct Shown(u32);
    /// #[derive(Component)]
    /// struct Hidden(u32);
    /// let mut world = World::new();
    /// let (shown, hidden) = (world.register_component::<Shown>(), world.register_component::<Hidden>());
    /// assert!(world.component_info(shown).unwrap().debug_fn().is_some());
    /// assert!(world.component_info(hidden).unwrap().debug_fn().is_none());
    /// ```
    #[inline]
    pub fn debug_fn(&self) -> Option<DebugFn> {
        self.descriptor.debug
    }

    /// The full type path.
    pub fn type_name(&self) -> &str {
        &self.descriptor.type_name
    }

    /// The Rust type, if any.
    #[inline]
    pub fn type_id(&self) -> Option<TypeId> {
        self.descriptor.type_id
    }

    /// The address of the Rust type's [`TypeKey`], 0 if none is known.
    #[inline]
    pub fn type_key(&self) -> usize {
        self.type_key
    }

    /// `Component::ID` of the type (0 without a Rust type).
    pub fn type_hash(&self) -> u64 {
        self.descriptor.type_hash
    }

    /// Size and alignment of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.descriptor.layout
    }

    /// The drop function, if values need dropping.
    #[inline]
    pub fn drop_fn(&self) -> Option<unsafe fn(*mut u8)> {
        self.descriptor.drop
    }

    /// Table or sparse.
    #[inline]
    pub fn storage(&self) -> StorageKind {
        self.descriptor.storage
    }

    /// The hook slots.
    #[inline]
    pub fn hooks(&self) -> &ComponentHooks {
        &self.descriptor.hooks
    }

    /// Mutable hook slots (for registering hooks at run time).
    pub fn hooks_mut(&mut self) -> &mut ComponentHooks {
        &mut self.descriptor.hooks
    }

    /// The relationship traits, if the component was registered as a relationship.
    #[inline]
    pub fn relationship(&self) -> Option<&RelationshipTraits> {
        self.descriptor.relationship.as_ref()
    }

    /// Whether values are zero-sized: such components store no values (a column of
    /// ticks only when they track changes; no column at all otherwise).
    #[inline]
    pub fn is_tag(&self) -> bool {
        self.descriptor.layout.size() == 0
    }

    /// Whether the component's id, added without a value, would have to make
    /// one up: its values have data or drop glue, or its Rust type is not a
    /// struct without fields ([`Component::FIELDLESS`]). Such ids are added with
    /// a value only (`insert`); `World::add_id` refuses them. For pairs with
    /// this component as their relationship, see
    /// [`ComponentInfo::pair_needs_value`] (drop glue does not count there).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Enemy;
    /// #[derive(Component)]
    /// struct Health(u32);
    /// let mut world = World::new();
    /// let (enemy, health) = (world.register_component::<Enemy>(), world.register_component::<Health>());
    /// assert!(!world.component_info(enemy).unwrap().needs_value());
    /// assert!(world.component_info(health).unwrap().needs_value());
    /// ```
    #[inline]
    pub fn needs_value(&self) -> bool {
        self.pair_needs_value() || self.descriptor.drop.is_some()
    }

    /// Whether a pair with this component as its relationship, added without a
    /// value, would have to make one up: its values have data, or its Rust type
    /// is not a struct without fields. (Drop glue does not count: pairs of a
    /// zero-sized relationship store no value, so none is ever dropped.)
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Relationship)]
    /// struct Likes;
    /// #[derive(Relationship)]
    /// struct Eats(u32);
    /// let mut world = World::new();
    /// let (likes, eats) = (world.register_component::<Likes>(), world.register_component::<Eats>());
    /// assert!(!world.component_info(likes).unwrap().pair_needs_value());
    /// assert!(world.component_info(eats).unwrap().pair_needs_value());
    /// ```
    #[inline]
    pub fn pair_needs_value(&self) -> bool {
        !self.is_tag() || (self.descriptor.type_id.is_some() && !self.descriptor.fieldless)
    }
}

impl Component for ComponentInfo {
    const NAME: &'static str = "ComponentInfo";
    const ID: u64 = crate::util::component_type_id("ecs::component", "ComponentInfo");
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
    const DEBUG: Option<DebugFn> = Some(debug_value::<ComponentInfo>);
}
