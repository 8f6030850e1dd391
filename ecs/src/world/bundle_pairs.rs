//! Pairs inside bundles (`(Position(0.0), ChildOf.pair(parent))`): their
//! targets are known only at run time, so a bundle's static part is written in
//! one move as usual, then each pair is added with the same checks as
//! `insert_pair` (a dead or wildcard target, an acyclic relationship's cycle;
//! exclusive relationships replace their old pair). Bundles without pairs
//! (`Bundle::HAS_PAIRS` is false, known at compile time) pay nothing.

use smallvec::SmallVec;

use super::{PairError, World};
use crate::bundle::{Bundle, PairSink};
use crate::component::Component;
use crate::entity::{Entity, Id};

/// One pair taken out of a bundle, to add to an entity.
type PendingPair = Box<dyn FnOnce(&mut World, Entity) -> Result<(), (String, PairError)> + Send + Sync>;

/// The pairs of one bundle, in bundle order.
#[derive(Default)]
pub(super) struct BundlePairs(SmallVec<[PendingPair; 1]>);

impl PairSink for BundlePairs {
    fn pair<C: Component>(&mut self, value: C, target: Entity) {
        self.0.push(Box::new(move |world: &mut World, entity: Entity| {
            let describe = |error| (format!("({}, {target:?})", C::NAME), error);
            if !world.is_alive(target) {
                return Err(describe(PairError::NotAlive(target)));
            }
            let relationship = world.register_component::<C>();
            world.insert_id_value(entity, Id::pair(relationship, target), value).map_err(describe)
        }));
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
            if let Err((pair, error)) = pair(world, entity) {
                panic!("cannot add the pair {pair} of a bundle to {entity:?}: {error}");
            }
        }
    }
}
