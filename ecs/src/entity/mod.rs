//! Entities and ids: the 64-bit handles everything else is keyed by.
//!
//! * [`Entity`]: low 32 bits index (0 is never used, so `Option<Entity>` is 8
//!   bytes), bits 32..63 generation (31 bits), bit 63 the pair flag, always 0 here.
//! * [`Id`]: what an archetype's type lists. Either an entity (a component, since
//!   components are entities) or a pair `(R, T)` encoded as
//!   `PAIR | R.index << 32 | T.index`; generations are dropped inside pairs, and
//!   the relationship's index must fit 31 bits.
//! * [`EntityIndex`]: where every entity lives: a paged sparse array of records
//!   indexed by entity index, plus a dense array split into alive | dead with an
//!   `alive_count`. Invariants: every dense slot's record points back at it; an
//!   entity is alive iff its record's dense slot is below `alive_count` and holds
//!   the same generation; index 0 is never handed out. Allocation and freeing
//!   are O(1). New indices come from an active range; [`EntityIndex::alloc_at`]
//!   makes a given id alive ([`SpawnError`] says why not).
//! * [`RemoteEntities`]: reserves fresh ids from other threads, lock-free,
//!   through a counter shared with the index; the index makes them alive at its
//!   next flush.

mod id;
mod index;
mod remote;

pub use id::{ArchetypeId, Entity, EntityLocation, Id};
pub use index::{EntityFlags, EntityIndex, EntityRecord, SpawnError};
pub use remote::RemoteEntities;
