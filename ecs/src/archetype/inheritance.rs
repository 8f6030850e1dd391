//! Inheritance (`IsA`) as the archetype store sees it: which components the
//! entities of an archetype read from their bases.
//!
//! An archetype whose type holds `(IsA, base)` pairs inherits every plain
//! (non-pair) id of those of its bases that are prefabs (carry `Prefab`), found
//! depth-first along `IsA` through any base: a base's own ids first, then its
//! bases', the bases of one archetype taken in type order (by target id), so a
//! nearer base wins over a farther one and an earlier base over a later one. A
//! base that is not a prefab passes its own bases' ids on but none of its own
//! (an id it owns is not inherited from its own bases; other bases of the
//! instance may still give it). Whether an inherited id is *seen* is the component's
//! business (its `OnInstantiate` policy), checked where it is read.
//!
//! The world registers every entity used as a base (and the `IsA`
//! relationship itself); the store tracks each base's archetype, because the
//! ids a base holds decide what its instances inherit.
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
}

impl Inheritance {
    /// Sets the `IsA` relationship.
    pub(super) fn set_relationship(&mut self, relationship: Entity) {
        self.relationship = Some(relationship.index());
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

    /// The bases named by the `(IsA, _)` pairs of `ids`, in type order.
    fn direct_bases<'a>(&'a self, ids: &'a [Id]) -> impl Iterator<Item = u32> + 'a {
        ids.iter().filter(|&&id| self.is_isa_pair(id)).map(|id| id.second_index())
    }

    /// The inherited ids of an archetype of type `ids`, each with the base
    /// holding it (see the module docs for the order), sorted by id.
    ///
    /// `prefab_ids` gives the type of an archetype and whether it holds
    /// prefabs (only prefabs' values are read, see the module docs).
    pub(super) fn compute<'a>(
        &self,
        ids: &[Id],
        prefab_ids: impl Fn(ArchetypeId) -> (&'a [Id], bool),
    ) -> Vec<(Id, Entity)> {
        let mut walk =
            Walk { prefab_ids: &prefab_ids, found: Vec::new(), visited: SmallVec::new(), blocked: Vec::new() };
        let bases: SmallVec<[u32; 8]> = self.direct_bases(ids).collect();
        for base in bases {
            self.visit(base, &mut walk);
        }
        // Per id, the first base found wins.
        let mut found = walk.found;
        found.sort_unstable_by_key(|&(id, order, _)| (id, order));
        found.dedup_by_key(|&mut (id, _, _)| id);
        found.into_iter().map(|(id, _, base)| (id, base)).collect()
    }

    /// Visits the base of entity index `index` and then its own bases
    /// (depth-first, in type order), recording the ids its prefabs give. Only
    /// prefabs' values are read: a query that may write a value (`&mut T`)
    /// never matches them unless it names `Prefab`, and such queries are
    /// refused where they could alias inherited reads. A plain base passes on
    /// what its own bases give, but not its own values: an id it owns is
    /// blocked for what lies beyond it (its own bases), not for its siblings.
    fn visit<'a, P: Fn(ArchetypeId) -> (&'a [Id], bool)>(&self, index: u32, walk: &mut Walk<'_, 'a, P>) {
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
        let Some(&(base, archetype)) = self.bases.get(&index) else { return };
        let (base_ids, is_prefab) = (walk.prefab_ids)(archetype);
        let mark = walk.blocked.len();
        for &id in base_ids.iter().filter(|id| !id.is_pair()) {
            if !is_prefab {
                walk.blocked.push(id);
            } else if !walk.blocked.contains(&id) {
                let order = walk.found.len();
                walk.found.push((id, order, base));
            }
        }
        let bases: SmallVec<[u32; 8]> = self.direct_bases(base_ids).collect();
        for next in bases {
            self.visit(next, walk);
        }
        walk.blocked.truncate(mark);
    }
}

/// The state of one [`Inheritance::compute`] walk.
struct Walk<'p, 'a, P: Fn(ArchetypeId) -> (&'a [Id], bool)> {
    prefab_ids: &'p P,
    /// `(id, order found, holder)`.
    found: Vec<(Id, usize, Entity)>,
    /// The bases visited, each with the ids blocked on the path it was
    /// reached by.
    visited: SmallVec<[(u32, SmallVec<[Id; 4]>); 8]>,
    /// Ids a plain base on the current path owns (nothing beyond it gives them).
    blocked: Vec<Id>,
}
