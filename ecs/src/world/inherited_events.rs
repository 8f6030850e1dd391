//! Lifecycle events for inherited components (Flecs semantics): an observer
//! of a component with the default `on_instantiate = "inherit"` policy hears
//! about entities that gain or lose it through `IsA` as about entities that
//! gain or lose their own value, since `Has<T>`, `&T` and `World::get` see
//! both.
//!
//! An entity gains an inherited component when it gets an `(IsA, base)` pair
//! (or a base of it gains the component, or becomes a prefab), and loses it
//! when the pair goes (also when it or the base is despawned) or the base
//! loses the component. For each such change `OnReplace` and `OnRemove` run
//! before the move that causes it (the inherited value is still readable),
//! `OnAdd` and `OnInsert` after the structural change completes (when the
//! world applies the commands of hooks and observers). Hooks do not run: they
//! belong to owned values. An entity's own value hides inherited ones: while
//! it has one it hears nothing about them, inserting one over an inherited
//! value reports the inherited one's loss before its own `OnAdd`, and
//! removing it reports the uncovered inherited value as a gain. So every
//! entity hears exactly one more `OnAdd` than `OnRemove` while `Has<T>` holds
//! for it, and as many otherwise. One that already inherited it from another
//! base hears nothing when the base it reads from changes. Losses of an entity
//! being despawned are part of the despawn's own `OnReplace`/`OnRemove` events
//! (an observer of several components runs once); a loss of a gain queued in
//! the same change cancels it (neither is heard). Overwriting a base's value (an insert over it) runs `OnReplace`
//! and `OnInsert` for the instances that read it, as for the base. Sparse
//! components, whose inherited values are found by a walk
//! when read, are not reported.
//!
//! Invariant: nothing is computed unless an observer that may hear such an
//! event exists ([`Observers::hears_inherited`](super::Observers)) and some
//! entity is a base; otherwise a move pays two flag tests.

use smallvec::SmallVec;

use super::World;
use super::hooks::HookKind;
use crate::archetype::{Archetype, ArchetypeId};
use crate::entity::{Entity, Id};
use crate::util::PanicSlot;

/// Inherited ids some entities gain or lose in one structural change.
#[derive(Default)]
struct InheritedChanges {
    /// `(entity, id)` lost: reported before the change.
    lost: SmallVec<[(Entity, Id); 4]>,
    /// `(entity, id)` gained: reported after it.
    gained: SmallVec<[(Entity, Id); 4]>,
}

/// Whether `id` is in the sorted `(id, base)` list `inherited`.
fn listed(inherited: &[(Id, Entity)], id: Id) -> bool {
    inherited.binary_search_by_key(&id, |&(listed, _)| listed).is_ok()
}

/// The type and inherited ids of `archetype`, or nothing for `None` (dead).
fn type_and_inherited(archetype: Option<&Archetype>) -> (&[Id], &[(Id, Entity)]) {
    archetype.map_or((&[], &[]), |archetype| (archetype.ids(), archetype.inherited()))
}

impl World {
    /// Whether structural changes must look for inherited components gained
    /// or lost (see the module docs): two flag tests.
    #[inline(always)]
    pub(crate) fn inherited_events_on(&self) -> bool {
        self.observers.hears_inherited() && self.archetypes.has_bases()
    }

    /// Whether an observer may hear about `id` inherited: a plain component
    /// with the inherit policy that some lifecycle observer watches.
    fn reports_inherited(&self, id: Id) -> bool {
        self.is_inherited_id(id)
            // An observer of one entity may watch it too (the flag stands for any).
            && self.observers.may_observe([id], crate::entity::EntityFlags::OBSERVED)
    }

    /// Whether the entities of `archetype` inherit a component an observer
    /// may hear about.
    pub(crate) fn inherits_reported(&self, archetype: ArchetypeId) -> bool {
        let archetype = &self.archetypes[archetype];
        archetype.inherited().iter().any(|&(id, _)| !archetype.contains(id) && self.reports_inherited(id))
    }

    /// Before `entity` moves from archetype `source` to `destination`
    /// (`None`: it dies): reports the inherited components it and its
    /// instances lose now, and queues those they gain for
    /// [`World::flush_inherited_events`]. Call it only when
    /// [`World::inherited_events_on`].
    #[cold]
    #[inline(never)]
    pub(crate) fn inherited_events_for_move(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        destination: Option<ArchetypeId>,
    ) {
        self.inherited_events_around(entity, source, destination, true);
    }

    /// Before `entity` of archetype `source` is despawned: the inherited ids
    /// it loses (reported by the despawn's own `OnReplace`/`OnRemove` events,
    /// so that an observer of several components runs once), after reporting
    /// what its instances lose.
    #[cold]
    #[inline(never)]
    pub(crate) fn inherited_lost_by_despawn(&mut self, entity: Entity, source: ArchetypeId) -> SmallVec<[Id; 4]> {
        self.inherited_events_around(entity, source, None, false);
        let archetype = &self.archetypes[source];
        let mut lost: SmallVec<[(Entity, Id); 4]> = archetype
            .inherited()
            .iter()
            .map(|&(id, _)| id)
            .filter(|&id| !archetype.contains(id) && self.reports_inherited(id))
            .map(|id| (entity, id))
            .collect();
        self.cancel_pending_gains(&mut lost);
        lost.into_iter().map(|(_, id)| id).collect()
    }

    /// Drops from `lost` the losses of gains still queued (from an earlier
    /// move of the same change), and those gains: neither was heard.
    fn cancel_pending_gains(&mut self, lost: &mut SmallVec<[(Entity, Id); 4]>) {
        if self.pending_inherited.is_empty() {
            return;
        }
        let pending = &mut self.pending_inherited;
        lost.retain(|lost| match pending.iter().position(|gained| gained == lost) {
            Some(position) => {
                pending.remove(position);
                false
            }
            None => true,
        });
    }

    /// [`World::inherited_events_for_move`], for the entity itself only if
    /// `with_self`.
    fn inherited_events_around(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        destination: Option<ArchetypeId>,
        with_self: bool,
    ) {
        if Some(source) == destination {
            return;
        }
        let mut changes = InheritedChanges::default();
        // The entity itself: its bases may change.
        if with_self {
            let (source_ids, source_inherited) = type_and_inherited(Some(&self.archetypes[source]));
            let (destination_ids, destination_inherited) =
                type_and_inherited(destination.map(|destination| &self.archetypes[destination]));
            // Inherited only: read from a base, not owned. Its own value
            // covering an inherited one is a loss of the inherited one (the
            // own value's `OnAdd` follows), and uncovering one a gain.
            for &(id, _) in source_inherited {
                if !source_ids.contains(&id)
                    && (destination_ids.contains(&id) || !listed(destination_inherited, id))
                    && self.reports_inherited(id)
                {
                    changes.lost.push((entity, id));
                }
            }
            for &(id, _) in destination_inherited {
                if !destination_ids.contains(&id)
                    && (source_ids.contains(&id) || !listed(source_inherited, id))
                    && self.reports_inherited(id)
                {
                    changes.gained.push((entity, id));
                }
            }
        }
        // Its instances, if it is a base: what it holds is what they inherit.
        if self.archetypes.is_base(entity) {
            let inheriting: SmallVec<[ArchetypeId; 8]> = SmallVec::from_slice(self.archetypes.inheriting_archetypes());
            for archetype_id in inheriting {
                let archetype = &self.archetypes[archetype_id];
                if archetype.is_empty() {
                    continue;
                }
                let after = self.archetypes.inherited_if_base_moved(archetype_id, entity, destination);
                let before = archetype.inherited();
                let lost = before.iter().map(|&(id, _)| id).filter(|&id| !listed(&after, id));
                let gained = after.iter().map(|&(id, _)| id).filter(|&id| !listed(before, id));
                let lost: SmallVec<[Id; 4]> =
                    lost.filter(|&id| !archetype.contains(id) && self.reports_inherited(id)).collect();
                let gained: SmallVec<[Id; 4]> =
                    gained.filter(|&id| !archetype.contains(id) && self.reports_inherited(id)).collect();
                // Instances dying in the same cleanup report their own loss.
                let reported = |instance: &&Entity| {
                    **instance != entity
                        && !self
                            .entities
                            .get(**instance)
                            .is_some_and(|record| record.flags.contains(crate::entity::EntityFlags::DELETING))
                };
                for &instance in archetype.entities().iter().filter(reported) {
                    changes.lost.extend(lost.iter().map(|&id| (instance, id)));
                    changes.gained.extend(gained.iter().map(|&id| (instance, id)));
                }
            }
        }
        self.cancel_pending_gains(&mut changes.lost);
        self.pending_inherited.extend(changes.gained);
        self.report_inherited(&changes.lost, &[HookKind::Replace, HookKind::Remove]);
    }

    /// When the values of `components` on `base` are overwritten: runs the
    /// `kind` observers (`Replace` before the write, `Insert` after it) for
    /// every instance that reads one of them from `base`, as for the base
    /// itself (Flecs' `OnSet` reaches instances that inherit the value).
    pub(crate) fn report_inherited_overwrite(&mut self, kind: HookKind, base: Entity, components: &[Entity]) {
        if components.is_empty() || !self.inherited_events_on() || !self.archetypes.is_base(base) {
            return;
        }
        let ids: SmallVec<[Id; 4]> = components.iter().map(|component| component.id()).collect();
        self.report_inherited_overwrite_ids(kind, base, &ids);
    }

    /// [`World::report_inherited_overwrite`] for ids: components, or value
    /// pairs of `inherit` relationships.
    pub(crate) fn report_inherited_overwrite_ids(&mut self, kind: HookKind, base: Entity, ids: &[Id]) {
        if ids.is_empty() || !self.inherited_events_on() || !self.archetypes.is_base(base) {
            return;
        }
        let ids: SmallVec<[Id; 4]> = ids.iter().copied().filter(|&id| self.reports_inherited(id)).collect();
        if ids.is_empty() {
            return;
        }
        let mut readers: SmallVec<[(Entity, Id); 4]> = SmallVec::new();
        for &archetype_id in self.archetypes.inheriting_archetypes() {
            let archetype = &self.archetypes[archetype_id];
            for &id in &ids {
                if archetype.inherited_from(id) == Some(base) && !archetype.contains(id) {
                    readers.extend(archetype.entities().iter().map(|&instance| (instance, id)));
                }
            }
        }
        // Those gaining the value in this very change hear `OnAdd` and
        // `OnInsert` for it instead (queued).
        readers.retain(|reader| !self.pending_inherited.contains(reader));
        readers.sort_by_key(|&(instance, _)| instance);
        self.report_inherited(&readers, &[kind]);
    }

    /// Runs the observers of `kinds` (in order) for each entity's ids of
    /// `changes`, grouped by entity in the order they come.
    /// A panicking observer does not keep the other entities' observers from
    /// running: the first panic goes on once all ran.
    fn report_inherited(&mut self, changes: &[(Entity, Id)], kinds: &[HookKind]) {
        let mut panics = PanicSlot::default();
        let mut start = 0;
        while start < changes.len() {
            let entity = changes[start].0;
            let end = start + changes[start..].iter().take_while(|&&(other, _)| other == entity).count();
            let ids: SmallVec<[Id; 4]> =
                changes[start..end].iter().map(|&(_, id)| id).filter(|&id| self.inherits_id(entity, id)).collect();
            panics.catch(|| {
                for &kind in kinds {
                    self.run_lifecycle_observers(kind, entity, &ids);
                }
            });
            start = end;
        }
        panics.resume();
    }

    /// After a structural change that applies commands only when hooks or
    /// observers ran: reports the inherited components it gained, if any,
    /// and applies the commands of those observers (one length test
    /// otherwise).
    #[inline(always)]
    pub(crate) fn flush_inherited_gains(&mut self) {
        if !self.pending_inherited.is_empty() {
            self.flush_deferred();
        }
    }

    /// [`World::flush_inherited_gains`], keeping a panicking observer in
    /// `panics` (no unwind guard is set up while nothing is queued).
    #[inline(always)]
    pub(crate) fn flush_inherited_gains_catching(&mut self, panics: &mut PanicSlot) {
        if !self.pending_inherited.is_empty() {
            panics.catch(|| self.flush_deferred());
        }
    }

    /// Reports the inherited components gained by the structural changes
    /// just done (`OnAdd`, then `OnInsert`), for the entities that still
    /// inherit them.
    #[cold]
    #[inline(never)]
    pub(crate) fn flush_inherited_events(&mut self) {
        while !self.pending_inherited.is_empty() {
            let gained = core::mem::take(&mut self.pending_inherited);
            self.report_inherited(&gained, &[HookKind::Add, HookKind::Insert]);
        }
    }
}
