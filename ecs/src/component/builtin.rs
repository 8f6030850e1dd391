//! Built-in components every world registers at creation: [`Name`], [`Internal`],
//! [`ChildOf`], [`Disabled`], [`Prefab`], [`IsA`]
//! (plus [`ComponentInfo`](super::ComponentInfo), carried by component entities).

use std::borrow::Cow;

use super::info::{Component, OnInstantiate};
use crate::util::component_type_id;

/// A human-readable name. Component entities carry their type's short name.
///
/// Names are unique among siblings: inserting a clashing one (or
/// `World::set_name`) is refused. A name written in place (`Mut<Name>`,
/// `Query<&mut Name>`) is seen by `World::lookup` and `World::path` at once,
/// but runs no hook, so it is not checked against the siblings.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Position(f32);
/// let mut world = World::new();
/// let id = world.register_component::<Position>();
/// assert_eq!(world.get::<Name>(id).map(Name::as_str), Some("Position"));
/// let e = world.spawn(Name::new("player")).id();
/// assert_eq!(world.get::<Name>(e).unwrap().as_str(), "player");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name(pub Cow<'static, str>);

impl Name {
    /// A name from a static or owned string.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Name {
        Name(name.into())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Prints the name itself.
///
/// # Examples
/// ```
/// assert_eq!(ecs::component::Name::new("player").to_string(), "player");
/// ```
impl core::fmt::Display for Name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Component for Name {
    const NAME: &'static str = "Name";
    const ID: u64 = component_type_id("ecs::component", "Name");
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
    const DEBUG: Option<super::DebugFn> = Some(super::debug_value::<Name>);
}

/// Marks internal entities (components, wildcards, observers): they are not
/// counted by `World::entity_count` and queries skip them unless they ask for
/// `Internal`, `ComponentInfo` or `ObserverMarker` (the internal markers).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::component::{ComponentInfo, Internal};
/// let mut world = World::new();
/// assert_eq!(world.entity_count(), 0);
/// assert_eq!(world.query::<&Name>().iter(&world).count(), 0);
/// assert!(world.query::<&ComponentInfo>().iter(&world).count() >= 3);
/// assert!(world.query_filtered::<Entity, With<Internal>>().iter(&world).count() >= 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Internal;

impl Component for Internal {
    const NAME: &'static str = "Internal";
    const ID: u64 = component_type_id("ecs::component", "Internal");
    const FIELDLESS: bool = true;
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
}

/// The built-in hierarchy relationship: `(ChildOf, parent)`. Exclusive (one
/// parent), traversable (`Up<ChildOf, &T>`, cascade), acyclic, and children are
/// despawned with their parent. Every world registers it at creation, so the
/// query DSL knows `ChildOf` (and `up`) from the start; the relationship API
/// is in [`relation`](crate::relation).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let mut world = World::new();
/// let parent = world.spawn_empty().id();
/// let child = world.spawn_empty().id();
/// world.entity_mut(child).add_pair::<ChildOf>(parent);
/// assert_eq!(world.parent(child), Some(parent));
/// assert_eq!(world.children(parent).collect::<Vec<_>>(), vec![child]);
/// world.despawn(parent);
/// assert!(!world.is_alive(child));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ChildOf;

impl Component for ChildOf {
    const NAME: &'static str = "ChildOf";
    const ID: u64 = component_type_id("ecs::relation", "ChildOf");
    const RELATIONSHIP: Option<super::RelationshipTraits> = Some(super::RelationshipTraits::CHILD_OF);
    const FIELDLESS: bool = true;
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
}

/// The built-in tag of disabled entities: every query (typed or runtime) and
/// so every system skips them unless it names `Disabled` in any term
/// (`With<Disabled>`, `Without<Disabled>`, `&Disabled`, `Has<Disabled>`, a
/// DSL term `Disabled` or `?Disabled`; an optional read `Option<&Disabled>`
/// does not name it, as in Bevy); observers still see them, and `get` still
/// reads them.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn(Health(3)).id();
/// world.spawn(Health(4));
/// world.entity_mut(e).insert(Disabled);
/// assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
/// assert_eq!(world.query_filtered::<&Health, With<Disabled>>().iter(&world).count(), 1);
/// // Naming it without requiring it sees both.
/// assert_eq!(world.query::<(&Health, Has<Disabled>)>().iter(&world).count(), 2);
/// assert!(world.get::<Health>(e).is_some());
/// world.entity_mut(e).remove::<Disabled>();
/// assert_eq!(world.query::<&Health>().iter(&world).count(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Disabled;

impl Component for Disabled {
    const NAME: &'static str = "Disabled";
    const ID: u64 = component_type_id("ecs::component", "Disabled");
    const FIELDLESS: bool = true;
    // Copied to new instances: an instance of a disabled prefab starts disabled.
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::Override;
    const CLONE: Option<super::CloneFn> = Some(super::clone_value::<Disabled>);
}

/// The built-in tag of prefabs (templates for instances): queries skip
/// entities with `Prefab` unless a term names it (`With<Prefab>`,
/// `Has<Prefab>`, a DSL term `Prefab` or `?Prefab`; not `Option<&Prefab>`), and
/// observers of components (`Trigger<OnAdd, T>`) do not hear about prefabs
/// unless they watch `Prefab` too (Flecs); an observer of one entity
/// (`observe`) hears about its entity whatever it is, and component hooks
/// and `RemovedComponents` still see prefabs.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Speed(f32);
/// let mut world = World::new();
/// world.spawn((Prefab, Speed(10.0)));
/// world.spawn(Speed(1.0));
/// assert_eq!(world.query::<&Speed>().iter(&world).count(), 1);
/// assert_eq!(world.query_filtered::<&Speed, With<Prefab>>().iter(&world).count(), 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Prefab;

impl Component for Prefab {
    const NAME: &'static str = "Prefab";
    const ID: u64 = component_type_id("ecs::component", "Prefab");
    const FIELDLESS: bool = true;
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
}

/// The built-in inheritance relationship: `(IsA, base)` makes an entity an
/// instance of `base` (usually a [`Prefab`]). Transitive (an instance of an
/// instance of `base` is one of `base`), traversable, acyclic, not exclusive
/// (several bases: multiple inheritance). Adding it (or
/// `World::instantiate`) applies each component's
/// [`OnInstantiate`] policy, copies the base's pairs without a value (and
/// those of `override` relationships, cloned; Flecs 4 copies pairs) and, for
/// a [`Prefab`] base, instantiates its children; components with the default
/// policy are then read through the pair. An entity cannot be an instance of one of its own `ChildOf`
/// ancestors (`PairError::AncestorInstance`). An `up IsA` walk (typed
/// `Up<IsA, _>`, the DSL's `up IsA`/`self|up IsA`) never finds an id whose
/// component or relationship is `dont_inherit` (`Name`, `Prefab`,
/// `(ChildOf, _)`, `(IsA, _)`) on a base, as Flecs' search does not: such
/// ids are the base's alone.
///
/// Values are read from prefabs only. A base without [`Prefab`] (a plain
/// entity, or an instance used as a base) passes none of its own values on,
/// only what its own prefabs give (an instance of an instance reads the
/// prefab's value, unless the middle instance owns one, which then blocks
/// it): its pair still matches `(IsA, base)` terms and `up IsA` traversal,
/// and `override` components are still copied from it. This keeps borrows sound without
/// giving up `With`/`Without` disjointness: a prefab is hidden from every
/// query that does not name it, so a `Query<&mut T>` never hands out a value
/// that instances read through `&T` (Flecs reads through any base; make the
/// base a prefab instead). Prefab variants (a prefab with an `(IsA, prefab)`
/// pair) inherit transitively. With several bases, the first added wins a
/// conflict (for inherited values, `up IsA` traversal and `override` copies
/// alike): the order bases were added in is part of an archetype's identity
/// ([`Archetype::base_order`](crate::archetype::Archetype::base_order)), so
/// two instances of the same bases added in opposite orders live in two
/// archetypes.
///
/// Observers of an inherited component hear about instances as about owners
/// (Flecs' `self|up IsA`): an instance gaining it through a new pair, or
/// because its prefab gained it, gets `OnAdd` and `OnInsert`; one losing it
/// (the pair removed, the prefab losing it or despawned, the instance
/// despawned) gets `OnReplace` and `OnRemove` while the value is readable;
/// overwriting the prefab's value runs `OnReplace` and `OnInsert` for the
/// instances that read it. An own value covers an inherited one (inserting it
/// reports the inherited one's removal, removing it the inherited one's
/// addition), so an entity hears one more `OnAdd` than `OnRemove` exactly
/// while `Has<T>` holds. Hooks run for owned values only.
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct MaxSpeed(f32);
/// #[derive(Resource, Default)]
/// struct Heard(Vec<Entity>);
/// let mut world = World::new();
/// world.init_resource::<Heard>();
/// world.add_observer(|t: Trigger<OnAdd, MaxSpeed>, mut heard: ResMut<Heard>| heard.0.push(t.entity()));
/// let ship = world.spawn(Prefab).id();
/// let fighter = world.instantiate(ship);
/// world.entity_mut(ship).insert(MaxSpeed(10.0)); // the prefab is not observed, its instance is
/// assert_eq!(world.resource::<Heard>().0, vec![fighter]);
/// ```
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Debug, PartialEq)]
/// struct MaxSpeed(f32);
/// let mut world = World::new();
/// let ship = world.spawn((Prefab, MaxSpeed(10.0))).id();
/// let fighter = world.spawn_empty().add_pair::<IsA>(ship).id();
/// assert_eq!(world.get::<MaxSpeed>(fighter), Some(&MaxSpeed(10.0)));
/// assert_eq!(world.query::<&MaxSpeed>().iter(&world).count(), 1); // the prefab is hidden
/// // A variant: a prefab based on a prefab, read through both.
/// let heavy = world.spawn((Prefab, Name::new("heavy"))).add_pair::<IsA>(ship).id();
/// let tank = world.instantiate(heavy);
/// assert_eq!(world.get::<MaxSpeed>(tank), Some(&MaxSpeed(10.0)));
/// // A plain entity as a base: the pair, no values.
/// let plain = world.spawn(MaxSpeed(3.0)).id();
/// let copy = world.spawn_empty().add_pair::<IsA>(plain).id();
/// assert!(world.has_pair::<IsA>(copy, plain));
/// assert_eq!(world.get::<MaxSpeed>(copy), None);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct IsA;

impl Component for IsA {
    const NAME: &'static str = "IsA";
    const ID: u64 = component_type_id("ecs::component", "IsA");
    const RELATIONSHIP: Option<super::RelationshipTraits> = Some(super::RelationshipTraits::IS_A);
    const FIELDLESS: bool = true;
    const ON_INSTANTIATE: OnInstantiate = OnInstantiate::DontInherit;
}
