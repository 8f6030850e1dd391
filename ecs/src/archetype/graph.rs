//! The archetype graph's edges: per archetype, `add[id]` and `remove[id]`.
//!
//! Low plain ids (entity index below [`FLAT_EDGE_LIMIT`]) live in flat arrays, so
//! the common case (components registered early) is an index, not a hash; pairs
//! and high ids use a hash map.

use crate::entity::{ArchetypeId, Id};
use crate::util::FxHashMap;

/// Ids with an entity index below this use the flat edge arrays.
pub const FLAT_EDGE_LIMIT: u32 = 1024;
const NO_EDGE: u32 = u32::MAX;

/// One direction of edges (add or remove).
#[derive(Default)]
struct EdgeMap {
    flat: Vec<u32>,
    hashed: FxHashMap<Id, ArchetypeId>,
}

impl EdgeMap {
    #[inline]
    fn get(&self, id: Id) -> Option<ArchetypeId> {
        if !id.is_pair() && id.first_index() < FLAT_EDGE_LIMIT {
            match self.flat.get(id.first_index() as usize) {
                Some(&target) if target != NO_EDGE => Some(ArchetypeId::new(target as usize)),
                _ => None,
            }
        } else {
            self.hashed.get(&id).copied()
        }
    }

    /// Forgets the edge of `id` if it leads to `target`.
    fn remove_if(&mut self, id: Id, target: ArchetypeId) {
        if self.get(id) != Some(target) {
            return;
        }
        if !id.is_pair() && id.first_index() < FLAT_EDGE_LIMIT {
            self.flat[id.first_index() as usize] = NO_EDGE;
        } else {
            self.hashed.remove(&id);
        }
    }

    /// Every cached edge.
    fn iter(&self) -> impl Iterator<Item = (Id, ArchetypeId)> + '_ {
        let flat = self.flat.iter().enumerate().filter(|(_, target)| **target != NO_EDGE).map(|(index, &target)| {
            (Id::from_bits(index as u64).expect("flat edges are non-zero ids"), ArchetypeId::new(target as usize))
        });
        flat.chain(self.hashed.iter().map(|(&id, &target)| (id, target)))
    }

    /// Forgets every edge, keeping the allocations.
    fn clear(&mut self) {
        self.flat.clear();
        self.hashed.clear();
    }

    fn set(&mut self, id: Id, target: ArchetypeId) {
        if !id.is_pair() && id.first_index() < FLAT_EDGE_LIMIT {
            let slot = id.first_index() as usize;
            if slot >= self.flat.len() {
                self.flat.resize(slot + 1, NO_EDGE);
            }
            self.flat[slot] = target.index() as u32;
        } else {
            self.hashed.insert(id, target);
        }
    }
}

/// The cached edges of one archetype.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct A;
/// let mut world = World::new();
/// let a = world.register_component::<A>();
/// let e = world.spawn(A).id();
/// let archetype = world.entities().location(e).unwrap().archetype;
/// // spawning with A from the empty archetype created the edge EMPTY -[+A]-> archetype
/// let empty = &world.archetypes()[ecs::entity::ArchetypeId::EMPTY];
/// assert_eq!(empty.edges().add(a.id()), Some(archetype));
/// assert_eq!(world.archetypes()[archetype].edges().remove(a.id()), Some(ecs::entity::ArchetypeId::EMPTY));
/// ```
#[derive(Default)]
pub struct Edges {
    add: EdgeMap,
    remove: EdgeMap,
}

impl Edges {
    /// The archetype reached by adding `id`, if the edge is cached.
    #[inline]
    pub fn add(&self, id: Id) -> Option<ArchetypeId> {
        self.add.get(id)
    }

    /// The archetype reached by removing `id`, if the edge is cached.
    #[inline]
    pub fn remove(&self, id: Id) -> Option<ArchetypeId> {
        self.remove.get(id)
    }

    pub(crate) fn set_add(&mut self, id: Id, target: ArchetypeId) {
        self.add.set(id, target);
    }

    pub(crate) fn set_remove(&mut self, id: Id, target: ArchetypeId) {
        self.remove.set(id, target);
    }

    /// Forgets every edge, keeping the allocations (for the next archetype
    /// of a recycled slot).
    pub(crate) fn clear(&mut self) {
        self.add.clear();
        self.remove.clear();
    }

    /// Forgets the add edge of `id` if it leads to `target`.
    pub(crate) fn forget_add(&mut self, id: Id, target: ArchetypeId) {
        self.add.remove_if(id, target);
    }

    /// Forgets the remove edge of `id` if it leads to `target`.
    pub(crate) fn forget_remove(&mut self, id: Id, target: ArchetypeId) {
        self.remove.remove_if(id, target);
    }

    /// Every cached add edge.
    pub fn adds(&self) -> impl Iterator<Item = (Id, ArchetypeId)> + '_ {
        self.add.iter()
    }

    /// Every cached remove edge.
    pub fn removes(&self) -> impl Iterator<Item = (Id, ArchetypeId)> + '_ {
        self.remove.iter()
    }
}
