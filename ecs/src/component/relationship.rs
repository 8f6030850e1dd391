//! Relationship traits as plain data: what a relationship entity promises
//! (exclusive, traversable, acyclic) and what happens to pairs when one of their
//! halves is despawned ([`CleanupPolicy`]).
//!
//! This is layer-1 data so that the world (layer 4) can run cleanup and keep
//! exclusive relationships exclusive without naming the `relation` layer, which
//! builds the typed API on top. A typed relationship carries its traits in
//! `Component::RELATIONSHIP` (set by `#[derive(Relationship)]`); a relationship
//! created at run time gets them from `World::set_relationship_traits`.
//!
//! A *union* relationship (`union`) is exclusive and does not fragment: every
//! entity holding one of its pairs sits in an archetype with the one id
//! `(R, Entity::UNION)`, whatever its target, and the target lives in that
//! id's column of the table (one `Entity` per row). Union relationships are
//! tags (their pairs carry no value) and are not transitive: transitive
//! matching reads one target per table, and a union's targets differ per row.
//! A traversable union is a non-fragmenting hierarchy: `up` terms (typed and
//! runtime) and `propagate` climb from each row's own target, row by row in
//! the tables that hold its pair.

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
    /// Non-fragmenting (implies `exclusive`): an entity's pair lives in its
    /// archetype as the one id `(R, Entity::UNION)` and its target in that
    /// id's column, so changing the target never moves the entity. Only for
    /// tag relationships that are neither traversable nor transitive.
    pub union: bool,
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
        union: false,
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

    /// With `union` set (and so `exclusive`): changing the target of a pair
    /// rewrites the row's target instead of moving the entity.
    ///
    /// # Examples
    /// ```
    /// use ecs::component::RelationshipTraits;
    /// let traits = RelationshipTraits::DEFAULT.union();
    /// assert!(traits.union && traits.exclusive);
    /// assert!(traits.is_valid_union());
    /// assert!(traits.traversable().is_valid_union());
    /// assert!(!traits.transitive().is_valid_union());
    /// ```
    pub const fn union(mut self) -> Self {
        self.union = true;
        self.exclusive = true;
        self
    }

    /// Whether these traits can be a union relationship's: `union` implies
    /// `exclusive`, and a transitive relationship cannot be a union
    /// (transitive matching reads one target per table). A traversable union
    /// is a non-fragmenting hierarchy: `up` terms climb from each row's own
    /// target. `true` when `union` is not set.
    ///
    /// # Examples
    /// ```
    /// use ecs::component::RelationshipTraits;
    /// assert!(RelationshipTraits::DEFAULT.is_valid_union());
    /// assert!(RelationshipTraits::DEFAULT.union().acyclic().is_valid_union());
    /// assert!(RelationshipTraits::DEFAULT.union().traversable().is_valid_union());
    /// assert!(!RelationshipTraits::DEFAULT.union().transitive().is_valid_union());
    /// ```
    pub const fn is_valid_union(&self) -> bool {
        !self.union || (self.exclusive && !self.transitive)
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
