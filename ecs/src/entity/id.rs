//! The id types: [`Entity`], [`Id`] (entity or pair), [`ArchetypeId`] and
//! [`EntityLocation`].
//!
//! Invariants: an `Entity`'s index is never 0 and its bit 63 is 0; an `Id` with
//! bit 63 set is a pair whose halves are entity indices.

use core::fmt;
use core::num::NonZeroU64;

const INDEX_MASK: u64 = 0xFFFF_FFFF;
const GENERATION_MASK: u32 = 0x7FFF_FFFF;
const PAIR_FLAG: u64 = 1 << 63;

/// A handle to an entity: a 32-bit index plus a 31-bit generation.
///
/// A handle stays valid until its entity is despawned; after that the index may
/// be reused with a higher generation, and the old handle is *stale*: every
/// world method treats it as dead (`None`, `false` or an `Err`).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let mut world = World::new();
/// let e = world.spawn_empty().id();
/// assert!(world.is_alive(e));
/// world.despawn(e);
/// assert!(!world.is_alive(e));
/// let reused = world.spawn_empty().id();
/// assert_eq!(reused.index(), e.index());
/// assert_ne!(reused, e);
/// assert_eq!(core::mem::size_of::<Option<Entity>>(), 8);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Entity(NonZeroU64);

impl Entity {
    /// The wildcard `*`: in a pair, matches any relationship or target
    /// (`(Likes, *)`); alone, any id. Reserved: index 1 in every world.
    pub const WILDCARD: Entity = Entity::from_raw(1, 0);
    /// The wildcard `_` ("any", matched at most once per entity). Reserved: index 2.
    pub const ANY: Entity = Entity::from_raw(2, 0);
    /// The marker `*union*` of union relationships: an entity holding a pair
    /// of the union relationship `R` has the one id `(R, UNION)` in its
    /// archetype whatever its target, and the target in that id's column.
    /// Reserved: index 3 in every world; never a target of its own (adding a
    /// pair with it is refused).
    ///
    /// # Examples
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::entity::Id;
    /// #[derive(Relationship)]
    /// #[relationship(union)]
    /// struct Movement;
    /// let mut world = World::new();
    /// let (walking, e) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// world.add_pair::<Movement>(e, walking);
    /// let movement = world.component_id::<Movement>().unwrap();
    /// assert_eq!(world.ids_of(e), Some(&[Id::pair(movement, Entity::UNION)][..]));
    /// assert!(world.is_alive(Entity::UNION));
    /// ```
    pub const UNION: Entity = Entity::from_raw(3, 0);

    /// The highest index a pair's relationship may have (31 bits; a target
    /// may have any index): an entity above it can be a target or a plain id,
    /// never a relationship.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, Id};
    /// assert_eq!(Entity::MAX_RELATIONSHIP_INDEX, 0x7FFF_FFFF);
    /// let high = Entity::from_raw(3_000_000_000, 0);
    /// let id = Id::pair(Entity::from_raw(5, 0), high); // fine as a target
    /// assert_eq!(id.second_index(), 3_000_000_000);
    /// ```
    pub const MAX_RELATIONSHIP_INDEX: u32 = GENERATION_MASK;
    /// A handle that is never alive (the last index with the last generation):
    /// "no entity", e.g. the target of a global event.
    pub const PLACEHOLDER: Entity = Entity::from_raw(u32::MAX, GENERATION_MASK);

    /// Builds a handle from an index (not 0) and a generation (31 bits).
    ///
    /// # Panics
    /// Panics if `index` is 0 or `generation` does not fit 31 bits.
    ///
    /// # Examples
    /// ```
    /// let e = ecs::entity::Entity::from_raw(5, 2);
    /// assert_eq!((e.index(), e.generation()), (5, 2));
    /// ```
    #[inline]
    pub const fn from_raw(index: u32, generation: u32) -> Entity {
        assert!(index != 0, "entity index 0 is reserved");
        assert!(generation <= GENERATION_MASK, "entity generation exceeds 31 bits");
        match NonZeroU64::new(((generation as u64) << 32) | index as u64) {
            Some(bits) => Entity(bits),
            None => unreachable!(),
        }
    }

    /// Rebuilds a handle from [`Entity::to_bits`]; `None` for bits that are no
    /// entity (index 0 or the pair flag set).
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// let e = Entity::from_raw(9, 1);
    /// assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    /// assert_eq!(Entity::from_bits(0), None);
    /// ```
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Entity> {
        if bits & INDEX_MASK == 0 || bits & PAIR_FLAG != 0 {
            return None;
        }
        match NonZeroU64::new(bits) {
            Some(bits) => Some(Entity(bits)),
            None => None,
        }
    }

    /// The 64 bits of this handle.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(ecs::entity::Entity::from_raw(1, 1).to_bits(), (1 << 32) | 1);
    /// ```
    #[inline]
    pub const fn to_bits(self) -> u64 {
        self.0.get()
    }

    /// The index: the slot in the entity index, reused after despawn.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(ecs::entity::Entity::from_raw(3, 0).index(), 3);
    /// ```
    #[inline]
    pub const fn index(self) -> u32 {
        self.0.get() as u32
    }

    /// Whether the entity can be a pair's relationship: its index fits the
    /// 31 bits a pair id gives its relationship
    /// ([`Entity::MAX_RELATIONSHIP_INDEX`]). Any entity can be a target or a
    /// plain id.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::Entity;
    /// assert!(Entity::from_raw(5, 0).fits_relationship());
    /// assert!(!Entity::from_raw(3_000_000_000, 0).fits_relationship());
    /// ```
    #[inline]
    pub const fn fits_relationship(self) -> bool {
        self.index() <= Entity::MAX_RELATIONSHIP_INDEX
    }

    /// The generation: how many times the index was recycled before this handle.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(ecs::entity::Entity::from_raw(3, 4).generation(), 4);
    /// ```
    #[inline]
    pub const fn generation(self) -> u32 {
        (self.0.get() >> 32) as u32
    }

    /// This entity as an [`Id`] (for use in an archetype's type).
    ///
    /// # Examples
    /// ```
    /// let e = ecs::entity::Entity::from_raw(3, 4);
    /// assert_eq!(e.id().entity(), Some(e));
    /// ```
    #[inline]
    pub const fn id(self) -> Id {
        Id(self.0.get())
    }

    /// The same index with the next generation (wrapping within 31 bits).
    pub(crate) const fn next_generation(self) -> Entity {
        Entity::from_raw(self.index(), (self.generation() + 1) & GENERATION_MASK)
    }
}

/// `{index}v{generation}`, or `PLACEHOLDER` for [`Entity::PLACEHOLDER`] (as Bevy).
///
/// # Examples
/// ```
/// use ecs::entity::Entity;
/// assert_eq!(format!("{:?}", Entity::from_raw(42, 1)), "42v1");
/// assert_eq!(format!("{:?}", Entity::PLACEHOLDER), "PLACEHOLDER");
/// ```
impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Entity::PLACEHOLDER {
            f.write_str("PLACEHOLDER")
        } else {
            write!(f, "{}v{}", self.index(), self.generation())
        }
    }
}

/// As [`Debug`](fmt::Debug), honouring width and alignment (`{e:>6}`).
///
/// # Examples
/// ```
/// use ecs::entity::Entity;
/// assert_eq!(format!("{:>6}|", Entity::from_raw(42, 0)), "  42v0|");
/// ```
impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Entity::PLACEHOLDER {
            return f.pad("PLACEHOLDER");
        }
        // `u32::MAX` and a 31-bit generation: at most 21 bytes.
        let mut buffer = [0u8; 24];
        let mut cursor = std::io::Cursor::new(&mut buffer[..]);
        std::io::Write::write_fmt(&mut cursor, format_args!("{}v{}", self.index(), self.generation()))
            .map_err(|_| fmt::Error)?;
        let written = cursor.position() as usize;
        f.pad(core::str::from_utf8(&buffer[..written]).map_err(|_| fmt::Error)?)
    }
}

/// An id in an archetype's type: a plain entity (a component) or a pair `(R, T)`.
///
/// Pairs keep only the indices of their halves (31 bits for the relationship,
/// 32 for the target); generations are dropped, and cleanup guarantees that no
/// pair outlives either half.
///
/// # Examples
/// ```
/// use ecs::entity::{Entity, Id};
/// let likes = Entity::from_raw(10, 0);
/// let bob = Entity::from_raw(20, 3);
/// let pair = Id::pair(likes, bob);
/// assert!(pair.is_pair());
/// assert_eq!((pair.first_index(), pair.second_index()), (10, 20));
/// assert!(!likes.id().is_pair());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Id(u64);

impl Id {
    /// The pair `(relationship, target)`.
    ///
    /// # Panics
    /// Panics if `relationship`'s index does not fit 31 bits.
    #[inline]
    pub const fn pair(relationship: Entity, target: Entity) -> Id {
        Id::pair_from_indices(relationship.index(), target.index())
    }

    /// The pair of two entity indices.
    ///
    /// # Panics
    /// Panics if `relationship` does not fit 31 bits.
    ///
    /// # Examples
    /// ```
    /// let id = ecs::entity::Id::pair_from_indices(1, 2);
    /// assert_eq!((id.first_index(), id.second_index()), (1, 2));
    /// ```
    #[inline]
    pub const fn pair_from_indices(relationship: u32, target: u32) -> Id {
        assert!(relationship <= GENERATION_MASK, "relationship index exceeds 31 bits");
        Id(PAIR_FLAG | ((relationship as u64) << 32) | target as u64)
    }

    /// Whether this id is a pair.
    #[inline]
    pub const fn is_pair(self) -> bool {
        self.0 & PAIR_FLAG != 0
    }

    /// The entity, if this id is a plain entity.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, Id};
    /// assert_eq!(Id::pair_from_indices(1, 2).entity(), None);
    /// ```
    #[inline]
    pub const fn entity(self) -> Option<Entity> {
        Entity::from_bits(self.0)
    }

    /// For a pair, the relationship's index; for an entity, its index.
    #[inline]
    pub const fn first_index(self) -> u32 {
        if self.is_pair() { ((self.0 >> 32) as u32) & GENERATION_MASK } else { self.0 as u32 }
    }

    /// For a pair, the target's index; for an entity, 0.
    #[inline]
    pub const fn second_index(self) -> u32 {
        if self.is_pair() { self.0 as u32 } else { 0 }
    }

    /// Whether this id, used as a pattern, matches the concrete `id`: equal ids
    /// match, `*` alone matches every id, and `(R, *)`, `(*, T)` and `(*, *)`
    /// match the pairs of that form. `_` matches what `*` matches (it differs
    /// only in how many rows a query yields, which is not this method's concern).
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, Id};
    /// let likes_any = Id::pair_from_indices(10, Entity::WILDCARD.index());
    /// assert!(likes_any.matches(Id::pair_from_indices(10, 20)));
    /// assert!(!likes_any.matches(Id::pair_from_indices(11, 20)));
    /// assert!(Id::pair(Entity::from_raw(10, 0), Entity::ANY).matches(Id::pair_from_indices(10, 20)));
    /// assert!(Entity::WILDCARD.id().matches(Entity::from_raw(5, 0).id()));
    /// ```
    pub fn matches(self, id: Id) -> bool {
        let pattern = self.any_as_wildcard();
        let wildcard = Entity::WILDCARD.index();
        if pattern == id || pattern == Entity::WILDCARD.id() {
            return true;
        }
        pattern.is_pair()
            && id.is_pair()
            && (pattern.first_index() == wildcard || pattern.first_index() == id.first_index())
            && (pattern.second_index() == wildcard || pattern.second_index() == id.second_index())
    }

    /// Whether this id is a wildcard pattern: `*` or `_` alone, or a pair with
    /// `*` or `_` as either half. Patterns match ids ([`Id::matches`]); they are
    /// never stored in an archetype.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, Id};
    /// let likes = Entity::from_raw(10, 0);
    /// assert!(Id::pair(likes, Entity::WILDCARD).is_wildcard());
    /// assert!(Id::pair(Entity::ANY, likes).is_wildcard());
    /// assert!(Entity::WILDCARD.id().is_wildcard());
    /// assert!(!Id::pair(likes, likes).is_wildcard() && !likes.id().is_wildcard());
    /// ```
    #[inline]
    pub const fn is_wildcard(self) -> bool {
        if self.is_pair() {
            is_wildcard_index(self.first_index()) || is_wildcard_index(self.second_index())
        } else {
            self.0 == Entity::WILDCARD.id().0 || self.0 == Entity::ANY.id().0
        }
    }

    /// This id with every `_` written as `*` (the same set of matches); other
    /// ids are returned unchanged.
    ///
    /// # Examples
    /// ```
    /// use ecs::entity::{Entity, Id};
    /// let likes = Entity::from_raw(10, 0);
    /// assert_eq!(Id::pair(likes, Entity::ANY).any_as_wildcard(), Id::pair(likes, Entity::WILDCARD));
    /// assert_eq!(Entity::ANY.id().any_as_wildcard(), Entity::WILDCARD.id());
    /// assert_eq!(likes.id().any_as_wildcard(), likes.id());
    /// ```
    #[inline]
    pub const fn any_as_wildcard(self) -> Id {
        if self.is_pair() {
            Id::pair_from_indices(any_as_wildcard_index(self.first_index()), any_as_wildcard_index(self.second_index()))
        } else if self.0 == Entity::ANY.id().0 {
            Entity::WILDCARD.id()
        } else {
            self
        }
    }

    /// The raw 64 bits.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        self.0
    }

    /// Rebuilds an id from [`Id::to_bits`]; `None` for 0.
    ///
    /// # Examples
    /// ```
    /// let id = ecs::entity::Id::pair_from_indices(4, 5);
    /// assert_eq!(ecs::entity::Id::from_bits(id.to_bits()), Some(id));
    /// ```
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Id> {
        if bits & INDEX_MASK == 0 && bits & PAIR_FLAG == 0 { None } else { Some(Id(bits)) }
    }
}

/// Whether `index` is the index of `*` or `_`.
const fn is_wildcard_index(index: u32) -> bool {
    index == Entity::WILDCARD.index() || index == Entity::ANY.index()
}

/// `index`, with `_`'s index replaced by `*`'s.
const fn any_as_wildcard_index(index: u32) -> u32 {
    if index == Entity::ANY.index() { Entity::WILDCARD.index() } else { index }
}

impl From<Entity> for Id {
    fn from(entity: Entity) -> Id {
        entity.id()
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pair() {
            write!(f, "({}, {})", self.first_index(), self.second_index())
        } else {
            write!(f, "{}v{}", self.first_index(), self.0 >> 32)
        }
    }
}

/// The index of an archetype (and of its table) in the world.
///
/// Valid for the world that issued it; archetype 0 is the empty archetype.
///
/// # Examples
/// ```
/// use ecs::entity::ArchetypeId;
/// assert_eq!(ArchetypeId::EMPTY.index(), 0);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(transparent)]
pub struct ArchetypeId(u32);

impl ArchetypeId {
    /// The archetype with no ids, where `spawn_empty` puts entities.
    pub const EMPTY: ArchetypeId = ArchetypeId(0);
    /// A placeholder for "not placed in any archetype yet".
    pub const INVALID: ArchetypeId = ArchetypeId(u32::MAX);

    /// Wraps an index.
    #[inline]
    pub const fn new(index: usize) -> ArchetypeId {
        ArchetypeId(index as u32)
    }

    /// The index in the world's archetype list.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an entity's data lives: its archetype and its row in that archetype's table.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// let mut world = World::new();
/// let e = world.spawn_empty().id();
/// let location = world.entities().location(e).unwrap();
/// assert_eq!(location.archetype, ecs::entity::ArchetypeId::EMPTY);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EntityLocation {
    /// The archetype (and table) holding the entity.
    pub archetype: ArchetypeId,
    /// The row in that archetype's table.
    pub row: u32,
}

impl EntityLocation {
    /// The location of an entity that is allocated but not placed in a table.
    pub const INVALID: EntityLocation = EntityLocation { archetype: ArchetypeId::INVALID, row: u32::MAX };
}
