//! Inheritance (`IsA`) as the archetype store sees it: which components the
//! entities of an archetype read from their bases.
//!
//! An archetype whose type holds `(IsA, base)` pairs inherits every plain
//! (non-pair) id, and every pair of the relationships the world lists
//! ([`Inheritance::inherit_pairs_of`]: value pairs of `inherit`
//! relationships; of an exclusive one, only the first found, and none while
//! the archetype holds a pair of it), of those of its bases that are prefabs
//! (carry `Prefab`), found
//! depth-first along `IsA` through any base: a base's own ids first, then its
//! bases', the bases of one archetype taken in the order they were added, so a
//! nearer base wins over a farther one and the first added over a later one. A
//! base that is not a prefab passes its own bases' ids on but none of its own
//! (an id it owns is not inherited from its own bases; other bases of the
//! instance may still give it). Whether an inherited id is *seen* is the component's
//! business (its `OnInstantiate` policy), checked where it is read.
//!
//! The world registers every entity used as a base (and the `IsA`
//! relationship itself); the store tracks each base's archetype, because the
//! ids a base holds decide what its instances inherit.
//!
//! The order bases were added in is part of an archetype's identity: two
//! entities with the same bases added in different orders live in different
//! archetypes of one type, the one whose order is not the type order (the
//! bases' ids ascending) recording it ([`Archetype::base_order`](super::Archetype::base_order); empty for
//! the type order, the common case, so nothing changes for it). Edges carry
//! the order along ([`Inheritance::derived_order`]).
//!
//! Invariants:
//! * `bases` maps the index of every live entity used as a base to the entity
//!   and its current archetype (moves and removals of its row update it);
//! * `archetypes` lists exactly the live archetypes whose type holds an
//!   `(IsA, _)` pair, and each one's `inherited` list is what [`Inheritance::compute`]
//!   gives for the current `bases`;
//! * `epoch` grows whenever any `inherited` list may have changed for an
//!   archetype that already existed (a base moved, died or was registered
//!   late): caches of matches rebuild when they see it change.

use smallvec::SmallVec;

use crate::entity::{ArchetypeId, Entity, Id};
use crate::util::FxHashMap;

/// The store's view of inheritance (see the module docs).
#[derive(Default)]
pub(super) struct Inheritance {
    /// The index of the `IsA` relationship, once the world registered it.
    relationship: Option<u32>,
    /// Every base: its entity and current archetype, by entity index.
    pub(super) bases: FxHashMap<u32, (Entity, ArchetypeId)>,
    /// The live archetypes with `(IsA, _)` pairs.
    pub(super) archetypes: Vec<ArchetypeId>,
    /// Bumped when existing archetypes' inherited lists may have changed.
    pub(super) epoch: usize,
    /// The relationships (by entity index) whose pairs are inherited like
    /// plain ids, each with whether it is exclusive: value pairs of `inherit`
    /// relationships (the world decides, [`Inheritance::inherit_pairs_of`]).
    /// Other pairs are never inherited.
    pair_relationships: Vec<(u32, bool)>,
}

impl Inheritance {
    /// Sets the `IsA` relationship.
    pub(super) fn set_relationship(&mut self, relationship: Entity) {
        self.relationship = Some(relationship.index());
    }

    /// Makes the pairs of `relationship` inherited like plain ids. Called
    /// when it is registered, before any pair of it exists.
    pub(super) fn inherit_pairs_of(&mut self, relationship: Entity, exclusive: bool) {
        if !self.pair_relationships.iter().any(|&(listed, _)| listed == relationship.index()) {
            self.pair_relationships.push((relationship.index(), exclusive));
        }
    }

    /// Whether `id` is inherited from a prefab base that holds it: a plain
    /// id, or a pair of a relationship listed by [`Inheritance::inherit_pairs_of`].
    #[inline]
    fn inheritable(&self, id: Id) -> bool {
        !id.is_pair() || self.pair_relationships.iter().any(|&(listed, _)| listed == id.first_index())
    }

    /// Whether `id` is a pair of an exclusive relationship whose pairs are
    /// inherited.
    #[inline]
    fn is_exclusive_pair(&self, id: Id) -> bool {
        id.is_pair()
            && self.pair_relationships.iter().any(|&(listed, exclusive)| exclusive && listed == id.first_index())
    }

    /// The pattern `(IsA, *)`, once the relationship is set.
    pub(super) fn isa_wildcard(&self) -> Option<Id> {
        self.relationship.map(|relationship| Id::pair_from_indices(relationship, Entity::WILDCARD.index()))
    }

    /// Whether `id` is an `(IsA, _)` pair.
    #[inline]
    pub(super) fn is_isa_pair(&self, id: Id) -> bool {
        id.is_pair() && Some(id.first_index()) == self.relationship
    }

    /// Whether the type `ids` holds an `(IsA, _)` pair.
    pub(super) fn holds_isa(&self, ids: &[Id]) -> bool {
        self.relationship.is_some() && ids.iter().any(|&id| self.is_isa_pair(id))
    }

    /// The bases named by the `(IsA, _)` pairs of `ids`, in the order they
    /// were added: `order` when the archetype records one (see
    /// [`Archetype::base_order`](super::Archetype::base_order)), else type order.
    fn direct_bases<'a>(&'a self, ids: &'a [Id], order: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
        let in_type_order: &[Id] = if order.is_empty() { ids } else { &[] };
        order
            .iter()
            .copied()
            .chain(in_type_order.iter().filter(|&&id| self.is_isa_pair(id)).map(|id| id.second_index()))
    }

    /// The order of the direct bases of the type `ids`, reached from an
    /// archetype whose bases were added in `source_order` (its
    /// [`Archetype::base_order`](super::Archetype::base_order), `source_ids`
    /// its type), with `added` the pair being added, if any: the bases kept
    /// stay in their order, new ones follow (`added` last). Empty when that is
    /// the type order (the bases' ids ascending), as every archetype records
    /// it.
    pub(super) fn derived_order(
        &self,
        source_ids: &[Id],
        source_order: &[u32],
        ids: &[Id],
        added: Option<Id>,
    ) -> SmallVec<[u32; 2]> {
        let adds_base = added.is_some_and(|id| self.is_isa_pair(id));
        // Dropping ids from a type-ordered list keeps it type-ordered; new
        // bases only arrive through an `IsA` pair being added.
        if source_order.is_empty() && !adds_base && !self.holds_isa(ids) {
            return SmallVec::new();
        }
        let holds = |base: u32| {
            self.relationship
                .is_some_and(|relationship| ids.binary_search(&Id::pair_from_indices(relationship, base)).is_ok())
        };
        let mut order: SmallVec<[u32; 2]> =
            self.direct_bases(source_ids, source_order).filter(|&base| holds(base)).collect();
        let added = added.filter(|&id| self.is_isa_pair(id)).map(|id| id.second_index());
        for base in self.direct_bases(ids, &[]) {
            if !order.contains(&base) && Some(base) != added {
                order.push(base);
            }
        }
        if let Some(base) = added
            && !order.contains(&base)
        {
            order.push(base);
        }
        if order.windows(2).all(|pair| pair[0] < pair[1]) {
            order.clear();
        }
        order
    }

    /// The inherited ids of an archetype of type `ids`, each with the base
    /// holding it (see the module docs for the order), sorted by id.
    ///
    /// `prefab_ids` gives the type of an archetype and whether it holds
    /// prefabs (only prefabs' values are read, see the module docs).
    pub(super) fn compute<'a>(
        &self,
        ids: &[Id],
        order: &[u32],
        prefab_ids: impl Fn(ArchetypeId) -> (&'a [Id], &'a [u32], bool),
    ) -> Vec<(Id, Entity)> {
        self.compute_if_moved(ids, order, prefab_ids, None)
    }

    /// [`Inheritance::compute`] as it would be if the base `moved.0` lived in
    /// archetype `moved.1` instead (`None`: if it were dead); `None` for the
    /// current state.
    pub(super) fn compute_if_moved<'a>(
        &self,
        ids: &[Id],
        order: &[u32],
        prefab_ids: impl Fn(ArchetypeId) -> (&'a [Id], &'a [u32], bool),
        moved: Option<(Entity, Option<ArchetypeId>)>,
    ) -> Vec<(Id, Entity)> {
        let mut walk =
            Walk { prefab_ids: &prefab_ids, moved, found: Vec::new(), visited: SmallVec::new(), blocked: Vec::new() };
        let bases: SmallVec<[u32; 8]> = self.direct_bases(ids, order).collect();
        for base in bases {
            self.visit(base, &mut walk);
        }
        // Per id, the first base found wins.
        let mut found = walk.found;
        found.sort_unstable_by_key(|&(id, order, _)| (id, order));
        found.dedup_by_key(|&mut (id, _, _)| id);
        // An exclusive relationship gives one target: the archetype's own pair
        // hides every inherited one, else the first found wins.
        for &(relationship, _) in self.pair_relationships.iter().filter(|&&(_, exclusive)| exclusive) {
            let of = |id: Id| id.is_pair() && id.first_index() == relationship;
            let first = if ids.iter().any(|&id| of(id)) {
                None
            } else {
                found.iter().filter(|&&(id, _, _)| of(id)).min_by_key(|&&(_, order, _)| order).map(|&(id, _, _)| id)
            };
            found.retain(|&(id, _, _)| !of(id) || Some(id) == first);
        }
        found.into_iter().map(|(id, _, base)| (id, base)).collect()
    }

    /// Visits the base of entity index `index` and then its own bases
    /// (depth-first, in type order), recording the ids its prefabs give. Only
    /// prefabs' values are read: a query that may write a value (`&mut T`)
    /// never matches them unless it names `Prefab`, and such queries are
    /// refused where they could alias inherited reads. A plain base passes on
    /// what its own bases give, but not its own values: an id it owns is
    /// blocked for what lies beyond it (its own bases), not for its siblings.
    fn visit<'a, P: Fn(ArchetypeId) -> (&'a [Id], &'a [u32], bool)>(&self, index: u32, walk: &mut Walk<'_, 'a, P>) {
        // Visited again only along a path that blocks less than an earlier
        // one did (a base reached both through a blocking plain base and
        // directly): a visit blocking as much or more finds nothing new.
        let blocked = &walk.blocked;
        if walk
            .visited
            .iter()
            .any(|(visited, earlier)| *visited == index && earlier.iter().all(|id| blocked.contains(id)))
        {
            return;
        }
        walk.visited.push((index, SmallVec::from_slice(&walk.blocked)));
        let Some(&(base, mut archetype)) = self.bases.get(&index) else { return };
        if let Some((moved, destination)) = walk.moved
            && moved == base
        {
            match destination {
                Some(destination) => archetype = destination,
                None => return,
            }
        }
        let (base_ids, base_order, is_prefab) = (walk.prefab_ids)(archetype);
        let mark = walk.blocked.len();
        for &id in base_ids.iter().filter(|&&id| self.inheritable(id)) {
            if !is_prefab {
                // A plain base's pair of an exclusive relationship is its one
                // target: it blocks every pair of the relationship.
                walk.blocked.push(if self.is_exclusive_pair(id) {
                    Id::pair_from_indices(id.first_index(), Entity::WILDCARD.index())
                } else {
                    id
                });
            } else if !is_blocked(&walk.blocked, id) {
                let order = walk.found.len();
                walk.found.push((id, order, base));
            }
        }
        let bases: SmallVec<[u32; 8]> = self.direct_bases(base_ids, base_order).collect();
        for next in bases {
            self.visit(next, walk);
        }
        walk.blocked.truncate(mark);
    }
}

/// Whether `blocked` (ids, and `(R, *)` for an exclusive relationship's
/// pairs) blocks `id`.
#[inline]
fn is_blocked(blocked: &[Id], id: Id) -> bool {
    blocked.iter().any(|&held| {
        held == id
            || (id.is_pair()
                && held.is_pair()
                && held.second_index() == Entity::WILDCARD.index()
                && held.first_index() == id.first_index())
    })
}

/// The state of one [`Inheritance::compute`] walk.
struct Walk<'p, 'a, P: Fn(ArchetypeId) -> (&'a [Id], &'a [u32], bool)> {
    prefab_ids: &'p P,
    /// A base taken to live in another archetype (or to be dead), for
    /// [`Inheritance::compute_if_moved`].
    moved: Option<(Entity, Option<ArchetypeId>)>,
    /// `(id, order found, holder)`.
    found: Vec<(Id, usize, Entity)>,
    /// The bases visited, each with the ids blocked on the path it was
    /// reached by.
    visited: SmallVec<[(u32, SmallVec<[Id; 4]>); 8]>,
    /// Ids a plain base on the current path owns (nothing beyond it gives them).
    blocked: Vec<Id>,
}
