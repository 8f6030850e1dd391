//! Pairs inside bundles (`(Position(0.0), ChildOf.pair(parent))`): their
//! targets are known only at run time. A spawn whose pairs are all tags of
//! plain fragmenting relationships (no value, no union storage, not `IsA`)
//! places the entity once, in the archetype of its components and pairs (tag
//! pairs add no column, so the bundle's write plan serves it), then runs the
//! hooks and observers of everything with the whole bundle in place. Any
//! other bundle writes its static part in one move, then adds each pair with
//! the same checks as `insert_pair` (a dead or wildcard target, an acyclic
//! relationship's cycle; exclusive relationships replace their old pair).
//! Bundles without pairs (`Bundle::HAS_PAIRS` is false, known at compile time)
//! pay nothing.

use smallvec::SmallVec;

use super::{PairError, World};
use crate::bundle::{Bundle, PairSink};
use crate::component::Component;
use crate::entity::{Entity, Id};

/// Adds one pair taken out of a bundle to an entity.
type AddPair = Box<dyn FnOnce(&mut World, Entity) -> Result<(), (String, PairError)> + Send + Sync>;

/// One pair taken out of a bundle.
struct PendingPair {
    /// Its target.
    target: Entity,
    /// Registers its relationship (a component) and returns it.
    relationship: fn(&mut World) -> Entity,
    /// Whether its value is a tag with nothing to store or drop.
    tag: bool,
    /// Adds it (with its value) to an entity, as `insert_pair` does.
    add: AddPair,
}

/// The pairs of one bundle, in bundle order.
#[derive(Default)]
pub(super) struct BundlePairs(SmallVec<[PendingPair; 1]>);

impl PairSink for BundlePairs {
    fn pair<C: Component>(&mut self, value: C, target: Entity) {
        let add: AddPair = Box::new(move |world: &mut World, entity: Entity| {
            let describe = |error| (format!("({}, {target:?})", C::NAME), error);
            if !world.is_alive(target) {
                return Err(describe(PairError::NotAlive(target)));
            }
            let relationship = world.register_component::<C>();
            world.insert_id_value(entity, Id::pair(relationship, target), value).map_err(describe)
        });
        self.0.push(PendingPair {
            target,
            relationship: |world: &mut World| world.register_component::<C>(),
            tag: size_of::<C>() == 0 && !core::mem::needs_drop::<C>(),
            add,
        });
    }
}

impl BundlePairs {
    /// The pairs of `bundle`, taken out of it (empty without a call when `B`
    /// has none).
    #[inline]
    pub(super) fn take<B: Bundle>(bundle: &mut B) -> BundlePairs {
        let mut pairs = BundlePairs::default();
        if B::HAS_PAIRS {
            bundle.take_pairs(&mut pairs);
        }
        pairs
    }

    /// Adds the pairs to the alive `entity`, in order.
    ///
    /// # Panics
    /// If a pair is refused (its target is dead or a wildcard, or it would close
    /// a cycle of an acyclic relationship), naming the entity and the pair; the
    /// pairs before it stay added.
    #[track_caller]
    pub(super) fn add_to(self, world: &mut World, entity: Entity) {
        for pair in self.0 {
            if let Err((pair, error)) = (pair.add)(world, entity) {
                panic!("cannot add the pair {pair} of a bundle to {entity:?}: {error}");
            }
        }
    }

    /// The ids of the pairs if a new entity (allocated, not placed yet) can
    /// get them all with its spawn's one move: each a tag of a plain
    /// fragmenting relationship (not a union, not `IsA`, not sparse) with a
    /// live, concrete target. Their relationships and targets are flagged as
    /// `add_pair` flags them. `None`: take the pair-by-pair path.
    pub(super) fn one_move_ids(&self, world: &mut World) -> Option<SmallVec<[Id; 2]>> {
        let mut ids = SmallVec::new();
        for pair in &self.0 {
            if !pair.tag || !world.is_alive(pair.target) {
                return None;
            }
            let relationship = (pair.relationship)(world);
            let id = Id::pair(relationship, pair.target);
            if !world.is_plain_tag_pair(id) {
                return None;
            }
            ids.push(id);
        }
        for &id in &ids {
            // A new entity closes no cycle (nothing targets it) and its name is
            // checked once it is placed: only the flags of `add_pair` remain.
            if !world.flag_new_pair(id) {
                return None;
            }
        }
        Some(ids)
    }
}
