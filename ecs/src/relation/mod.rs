//! Relationships: typed pairs `(R, T)` between entities, Flecs-style.
//!
//! A relationship is a component type used as the first half of a pair; the
//! pair `(R, T)` is one id in the entity's archetype (pairs fragment), so
//! entities with the same pairs share a table and queries match pairs like
//! components. Tag relationships (zero-sized `R`) add no column; data
//! relationships store one `R` value per pair.
//!
//! * [`Relationship`] (derived) carries the traits: exclusive, traversable,
//!   acyclic and the cleanup policies (see
//!   [`RelationshipTraits`]). [`ChildOf`]
//!   is built in.
//! * The typed API on [`World`](crate::world::World) and
//!   [`EntityWorldMut`](crate::world::EntityWorldMut): `add_pair`,
//!   `insert_pair`, `remove_pair`, `has_pair`, `get_pair`, `get_pair_mut`,
//!   `targets`, `target`, `children`, `parent`, and `add_pair_id` for
//!   relationships created at run time.
//! * Query terms: [`Pair<R>`] (one row per matching pair), [`Pair<&R>`],
//!   [`Pair<&mut R>`], the filter [`WithPair<R>`], [`Up<R, &T>`] (a component of
//!   the nearest ancestor) and [`Fixed<&T>`] (a component of one fixed entity);
//!   `QueryState::with_pair` (a runtime target) and `QueryState::cascade`
//!   (parents before children).
//! * Hierarchy walks and building (module `hierarchy`): `ancestors`,
//!   `descendants` (breadth-first), `with_children`.
//! * `QueryState::propagate` (module `propagate`): parents before children, each
//!   row with its own item and its ancestor's already-updated value (transform
//!   propagation without aliasing borrows).
//!
//! Invariants come from the world layer (`world::ids`, `world::cleanup`): a pair's
//! halves are alive while it exists, and despawning either runs the cleanup
//! policy. This module sits above `query` in layer 5: it implements query terms.

mod hierarchy;
mod propagate;
mod query;
mod world_api;

pub use hierarchy::ChildSpawner;
pub use query::{Fixed, Pair, PairMut, PairRef, PairTarget, PairTerm, Up, WithPair};
pub(crate) use query::{pair_access_id, pair_access_key};
pub(crate) use world_api::too_wide;

use crate::bundle::{Bundle, ComponentReader, ComponentWriter, PairSink};
pub use crate::component::{ChildOf, IsA};
use crate::component::{Component, ComponentRegistrar, RelationshipTraits};
use crate::entity::Entity;

/// A component type usable as the relationship of a pair. Derive it (the derive
/// also implements [`Component`] with `RELATIONSHIP` set, and [`PairTerm`] so
/// that `Pair<R>` is a query term):
///
/// ```
/// use ecs::prelude::*;
/// #[derive(Relationship)]
/// struct Likes;
/// #[derive(Relationship)]
/// #[relationship(exclusive, on_delete_target = "delete")]
/// struct DockedTo;
/// #[derive(Relationship, Debug, PartialEq)]
/// struct Eats { amount: u32 }
///
/// let mut world = World::new();
/// let (alice, bob, apples) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
/// world.entity_mut(alice).add_pair::<Likes>(bob).insert_pair(Eats { amount: 2 }, apples);
/// assert!(world.has_pair::<Likes>(alice, bob));
/// assert_eq!(world.get_pair::<Eats>(alice, apples), Some(&Eats { amount: 2 }));
/// assert!(<DockedTo as Relationship>::TRAITS.exclusive);
/// ```
pub trait Relationship: Component {
    /// The relationship's traits (also in `Component::RELATIONSHIP`).
    const TRAITS: RelationshipTraits;

    /// The pair `(Self, target)` with this value, as a bundle: spawned or
    /// inserted with the bundle's other components, with `insert_pair`'s
    /// checks. A spawn whose pairs are all tags of plain relationships (as
    /// `ChildOf`) places the entity once, with its components and pairs, and
    /// its hooks and observers then see the whole bundle; other pairs (with a
    /// value, of a union relationship or `IsA`) are added right after the
    /// components, as an insert adds them.
    ///
    /// # Panics
    /// Spawning or inserting the bundle panics if the pair is refused (its
    /// target is dead or a wildcard, or it would close a cycle of an acyclic
    /// relationship), naming the entity and the pair.
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// #[derive(Component)]
    /// struct Turret;
    /// #[derive(Relationship, Debug, PartialEq)]
    /// struct Carries { tons: u32 }
    /// let mut world = World::new();
    /// let (ship, ore) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let turret = world.spawn((Turret, ChildOf.pair(ship), Carries { tons: 3 }.pair(ore))).id();
    /// assert_eq!(world.parent(turret), Some(ship));
    /// assert_eq!(world.get_pair::<Carries>(turret, ore), Some(&Carries { tons: 3 }));
    /// ```
    fn pair(self, target: Entity) -> PairBundle<Self>
    where
        Self: Sized,
    {
        PairBundle { value: Some(self), target }
    }
}

/// The bundle of [`Relationship::pair`]: one pair `(R, target)` with its value.
/// It has no components of its own; its pair is added after the bundle's
/// components. It cannot be removed as a bundle (`remove_pair` does that).
pub struct PairBundle<R> {
    value: Option<R>,
    target: Entity,
}

impl<R> core::fmt::Debug for PairBundle<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PairBundle")
            .field("relationship", &core::any::type_name::<R>())
            .field("target", &self.target)
            .finish()
    }
}

// SAFETY: no components: `component_ids`, `write_components` and
// `read_components` visit none (the pair travels through `take_pairs`).
unsafe impl<R: Relationship> Bundle for PairBundle<R> {
    const HAS_PAIRS: bool = true;

    fn take_pairs(&mut self, sink: &mut impl PairSink) {
        if let Some(value) = self.value.take() {
            sink.pair(value, self.target);
        }
    }

    fn component_ids(_registrar: &mut ComponentRegistrar<'_>, _ids: &mut impl FnMut(Entity)) {}

    fn write_components(self, _writer: &mut impl ComponentWriter) {
        debug_assert!(self.value.is_none(), "the world takes a bundle's pairs before writing it");
    }

    fn read_components(_reader: &mut impl ComponentReader) -> Self {
        unreachable!("bundles with pairs are never removed as bundles (refused at compile time)")
    }
}

impl Relationship for ChildOf {
    const TRAITS: RelationshipTraits = RelationshipTraits::CHILD_OF;
}

impl PairTerm for ChildOf {
    type Term = PairTarget<ChildOf>;
    type ReadOnly = ChildOf;
}

impl Relationship for IsA {
    const TRAITS: RelationshipTraits = RelationshipTraits::IS_A;
}

impl PairTerm for IsA {
    type Term = PairTarget<IsA>;
    type ReadOnly = IsA;
}
