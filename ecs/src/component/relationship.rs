//! Relationship traits as plain data: what a relationship entity promises
//! (exclusive, traversable, acyclic) and what happens to pairs when one of their
//! halves is despawned ([`CleanupPolicy`]).
//!
//! This is layer-1 data so that the world (layer 4) can run cleanup and keep
//! exclusive relationships exclusive without naming the `relation` layer, which
//! builds the typed API on top. A typed relationship carries its traits in
//! `Component::RELATIONSHIP` (set by `#[derive(Relationship)]`); a relationship
//! created at run time gets them from `World::set_relationship_traits`.

/// What happens to the pairs `(R, T)` of an entity when `R` (for
/// [`RelationshipTraits::on_delete`]) or `T` (for
/// [`RelationshipTraits::on_delete_target`]) is despawned.
///
/// # Examples
/// ```
/// use ecs::component::CleanupPolicy;
/// assert_eq!(CleanupPolicy::default(), CleanupPolicy::Remove);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum CleanupPolicy {
    /// Remove the pair from the entities that have it (the default).
    #[default]
    Remove,
    /// Despawn the entities that have the pair (recursively: their own
    /// dependents are cleaned up too).
    Delete,
    /// Refuse the despawn: `despawn` panics and `try_despawn` returns an error,
    /// before anything is changed.
    Panic,
}

impl CleanupPolicy {
    /// The policy's name as written in `#[relationship(...)]`.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(ecs::component::CleanupPolicy::Delete.name(), "delete");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            CleanupPolicy::Remove => "remove",
            CleanupPolicy::Delete => "delete",
            CleanupPolicy::Panic => "panic",
        }
    }
}

/// The traits of a relationship.
///
/// # Examples
/// ```
/// use ecs::component::{CleanupPolicy, RelationshipTraits};
/// let traits = RelationshipTraits::DEFAULT.exclusive().on_delete_target(CleanupPolicy::Delete);
/// assert!(traits.exclusive && !traits.traversable);
/// assert_eq!(traits.on_delete, CleanupPolicy::Remove);
/// assert_eq!(traits.on_delete_target, CleanupPolicy::Delete);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct RelationshipTraits {
    /// An entity has at most one target: adding `(R, b)` replaces `(R, a)` in one
    /// archetype move.
    pub exclusive: bool,
    /// Queries may walk the relationship upwards (`Up<R, &T>`, cascade) and
    /// events may propagate along it.
    pub traversable: bool,
    /// Adding a pair that would close a cycle is an error.
    pub acyclic: bool,
    /// `(R, c)` implies `(R, t)` for every `t` that `c` reaches along `R`: a
    /// runtime query term `(LocatedIn, Earth)` matches an entity located in a
    /// city located in a country located on Earth (Flecs' `Transitive`).
    pub transitive: bool,
    /// When the relationship entity `R` itself is despawned.
    pub on_delete: CleanupPolicy,
    /// When a target `T` is despawned.
    pub on_delete_target: CleanupPolicy,
}

impl Default for RelationshipTraits {
    fn default() -> Self {
        RelationshipTraits::DEFAULT
    }
}

impl RelationshipTraits {
    /// No traits; both policies `Remove`.
    pub const DEFAULT: RelationshipTraits = RelationshipTraits {
        exclusive: false,
        traversable: false,
        acyclic: false,
        transitive: false,
        on_delete: CleanupPolicy::Remove,
        on_delete_target: CleanupPolicy::Remove,
    };

    /// The traits of the built-in `ChildOf`: exclusive, traversable, acyclic,
    /// children deleted with their parent.
    pub const CHILD_OF: RelationshipTraits =
        RelationshipTraits::DEFAULT.exclusive().traversable().acyclic().on_delete_target(CleanupPolicy::Delete);

    /// The traits of the built-in `IsA`: transitive, traversable, acyclic
    /// (and not exclusive: an entity may have several bases).
    pub const IS_A: RelationshipTraits = RelationshipTraits::DEFAULT.transitive().traversable().acyclic();

    /// With `exclusive` set.
    pub const fn exclusive(mut self) -> Self {
        self.exclusive = true;
        self
    }

    /// With `traversable` set.
    pub const fn traversable(mut self) -> Self {
        self.traversable = true;
        self
    }

    /// With `acyclic` set.
    pub const fn acyclic(mut self) -> Self {
        self.acyclic = true;
        self
    }

    /// With `transitive` set.
    ///
    /// # Examples
    /// ```
    /// use ecs::component::RelationshipTraits;
    /// assert!(RelationshipTraits::DEFAULT.transitive().transitive);
    /// ```
    pub const fn transitive(mut self) -> Self {
        self.transitive = true;
        self
    }

    /// With `on_delete` set to `policy`.
    pub const fn on_delete(mut self, policy: CleanupPolicy) -> Self {
        self.on_delete = policy;
        self
    }

    /// With `on_delete_target` set to `policy`.
    pub const fn on_delete_target(mut self, policy: CleanupPolicy) -> Self {
        self.on_delete_target = policy;
        self
    }
}
