//! Component hooks during structural changes, and the commands they issue.
//!
//! Order, per structural change (Bevy's, 0.15+): when values are replaced or
//! removed, the `OnReplace` observers, every `on_replace` hook, the `OnRemove`
//! observers, then every `on_remove` hook run while the old values are still
//! readable (a despawn starts with the `OnDespawn` observers); when values are
//! added or inserted, every `on_add` hook (components the entity did not
//! have), the `OnAdd` observers, every `on_insert` hook (all of the bundle's),
//! then the `OnInsert` observers run after the new values are written. Hooks get a
//! [`DeferredWorld`]: they read and write values, and queue structural changes
//! as commands, which the world applies before the triggering call returns
//! (commands whose effects run hooks that queue more commands nest, up to
//! [`MAX_DEFERRED_DEPTH`] levels).
//!
//! Cost when unused: bundle edges and archetypes carry a `hooks` flag computed
//! once, so a structural change touching no hooked component only tests it.
//!
//! Panics (of a hook or observer): one that runs before the change
//! (`on_replace`/`on_remove` of an insert or remove) stops it, and nothing
//! changes; one that runs after it (`on_add`, `on_insert`) leaves the change
//! done, and the hooks after it do not run. A despawn always completes: the
//! events that did not run are skipped and the panic continues once the entity
//! (and its cleanup) is gone. The commands the panicking hook or observer queued
//! are dropped; those of the hooks before it stay queued and apply at the next
//! structural change that applies commands. A panicking observer stays
//! registered and runs for later events.

use core::cell::Cell;

use smallvec::SmallVec;

use core::any::TypeId;

use super::observers::{OnAdd, OnInsert, OnRemove, OnReplace};
use super::{DeferredWorld, World};
use crate::archetype::{ArchetypeFlags, ArchetypeId};
use crate::bundle::BundleId;
use crate::component::{ComponentHooks, Hook, HookContext};
use crate::entity::{Entity, EntityFlags, Id};

/// How deeply the application of hook/observer commands may nest before it is
/// treated as endless recursion.
pub const MAX_DEFERRED_DEPTH: u32 = 64;

thread_local! {
    /// Nesting depth of `apply_deferred_slow` on this thread.
    static DEFERRED_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Decrements the nesting depth when dropped (also when a command panics).
struct DepthGuard;

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEFERRED_DEPTH.with(|depth| depth.set(depth.get() - 1));
    }
}

/// Which hook slot (and lifecycle event) to run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HookKind {
    Add,
    Insert,
    Replace,
    Remove,
}

impl HookKind {
    /// Whether the event's observers run before its hooks: for values that
    /// are replaced or removed (observers see them first, then the hooks that
    /// may tear down what the observers read), as in Bevy 0.15+. Added and
    /// inserted values reach the hooks first.
    #[inline]
    pub(crate) fn observers_first(self) -> bool {
        matches!(self, HookKind::Replace | HookKind::Remove)
    }

    fn slot(self, hooks: &ComponentHooks) -> Option<Hook> {
        match self {
            HookKind::Add => hooks.on_add,
            HookKind::Insert => hooks.on_insert,
            HookKind::Replace => hooks.on_replace,
            HookKind::Remove => hooks.on_remove,
        }
    }

    /// The lifecycle event observers see.
    fn event(self) -> TypeId {
        match self {
            HookKind::Add => TypeId::of::<OnAdd>(),
            HookKind::Insert => TypeId::of::<OnInsert>(),
            HookKind::Replace => TypeId::of::<OnReplace>(),
            HookKind::Remove => TypeId::of::<OnRemove>(),
        }
    }
}

impl World {
    /// Applies the commands that hooks and observers queued, if any.
    /// Also makes the entities their commands reserved alive.
    #[inline]
    pub(crate) fn flush_deferred(&mut self) {
        self.flush_entities();
        if !self.pending_inherited.is_empty() {
            self.flush_inherited_events();
        }
        if !self.deferred.is_empty() {
            self.apply_deferred_slow();
        }
    }

    #[cold]
    #[track_caller]
    fn apply_deferred_slow(&mut self) {
        let depth = DEFERRED_DEPTH.with(|depth| {
            depth.set(depth.get() + 1);
            depth.get()
        });
        let _guard = DepthGuard;
        if depth > MAX_DEFERRED_DEPTH {
            // Drop the runaway commands, so that the next structural change does
            // not pick them up again.
            self.deferred = super::CommandQueue::default();
            panic!(
                "commands issued by hooks or observers nested more than {MAX_DEFERRED_DEPTH} levels deep: \
                 a hook or observer probably triggers itself endlessly"
            );
        }
        self.drain_deferred();
    }

    /// Applies the deferred queue until it stays empty (commands may queue
    /// more).
    fn drain_deferred(&mut self) {
        while !self.deferred.is_empty() {
            let mut queue = core::mem::take(&mut self.deferred);
            queue.apply(self);
        }
    }

    /// Applies the deferred queue as a one-shot system's commands: no hook
    /// nesting counted (a chain of systems running the next through
    /// commands is as deep as its user makes it, as in Bevy).
    pub(crate) fn apply_system_commands(&mut self) {
        self.flush_entities();
        self.drain_deferred();
    }

    /// Moves `queue`'s commands to the world's deferred queue (applied before the
    /// current structural change returns, or at the next one).
    pub(crate) fn defer_commands(&mut self, queue: &mut crate::world::CommandQueue) {
        self.deferred.append(queue);
    }

    /// Runs the `kind` hook of each of `components` (that has one) for `entity`
    /// and the observers of the matching lifecycle event: hooks first for
    /// `Add`/`Insert`, observers first for `Replace`/`Remove`
    /// ([`HookKind::observers_first`]).
    pub(crate) fn run_hooks(&mut self, kind: HookKind, entity: Entity, components: &[Entity]) {
        let observed = self.observers.has_lifecycle_observers() && !components.is_empty();
        let run_observers = |world: &mut World| {
            let ids: SmallVec<[Id; 4]> = components.iter().map(|component| component.id()).collect();
            world.run_lifecycle_observers(kind, entity, &ids);
        };
        if observed && kind.observers_first() {
            run_observers(self);
        }
        self.run_hook_fns(kind, entity, components);
        if observed && !kind.observers_first() {
            run_observers(self);
        }
    }

    /// Runs the `kind` hook of each of `components` (that has one) for `entity`,
    /// without the observers.
    pub(crate) fn run_hook_fns(&mut self, kind: HookKind, entity: Entity, components: &[Entity]) {
        for &component in components {
            self.run_hook_fn(kind, entity, component, None);
        }
    }

    /// Runs the `kind` hook of each of `ids` that has one for `entity`: a
    /// component's own, and a relationship's for each of its pairs (the hook
    /// reads the target with [`DeferredWorld::pair_target`]), without the
    /// observers.
    pub(crate) fn run_id_hook_fns(&mut self, kind: HookKind, entity: Entity, ids: &[Id]) {
        for &id in ids {
            if let Some(component) = self.components.hook_owner(id).map(|info| info.id()) {
                self.run_hook_fn(kind, entity, component, id.is_pair().then_some(id));
            }
        }
    }

    /// Runs `component`'s `kind` hook, if it has one, for `entity` (for the
    /// relationship's pair `pair`, when it is one).
    fn run_hook_fn(&mut self, kind: HookKind, entity: Entity, component: Entity, pair: Option<Id>) {
        let hook = self.components.info(component).and_then(|info| kind.slot(info.hooks()));
        if let Some(hook) = hook {
            let world = DeferredWorld::for_hook(&mut *self).with_hook_pair(pair);
            hook.call(world, HookContext { entity, component_id: component });
        }
    }

    /// Runs the observers of `kind`'s lifecycle event for `ids` (components or
    /// pairs) of `entity`: one event for the plain ids together, and one per
    /// pair when there are several (as in Flecs, an observer on `(R, *)` runs
    /// once per matching pair, so `pair_target` names each; removing
    /// `(R, *)` or despawning a holder reports every pair).
    pub(crate) fn run_lifecycle_observers(&mut self, kind: HookKind, entity: Entity, ids: &[Id]) {
        if !self.observers.has_lifecycle_observers() || ids.is_empty() {
            return;
        }
        // The lifecycle events are unit structs: any aligned address holds one.
        let event = core::ptr::NonNull::<OnAdd>::dangling().cast();
        if ids.iter().filter(|id| id.is_pair()).nth(1).is_none() {
            self.run_observers(kind.event(), entity, ids, event);
            return;
        }
        let plain: SmallVec<[Id; 4]> = ids.iter().copied().filter(|id| !id.is_pair()).collect();
        if !plain.is_empty() {
            self.run_observers(kind.event(), entity, &plain, event);
        }
        for &pair in ids.iter().filter(|id| id.is_pair()) {
            self.run_observers(kind.event(), entity, &[pair], event);
        }
    }

    /// Whether inserting or removing bundle `bundle` on `entity` must take the
    /// slow path that runs hooks and observers: a component of it has hooks, or
    /// a lifecycle observer may watch it (one flag test when no observer exists).
    #[inline(always)]
    pub(crate) fn bundle_lifecycle(&self, bundle: BundleId, entity: Entity) -> bool {
        self.bundles.info(bundle).has_hooks()
            || (self.observers.has_lifecycle_observers() && self.bundle_observed(bundle, entity))
    }

    /// Whether a lifecycle observer may watch bundle `bundle` on `entity`.
    #[cold]
    #[inline(never)]
    fn bundle_observed(&self, bundle: BundleId, entity: Entity) -> bool {
        let flags = self.entities.get(entity).map(|record| record.flags).unwrap_or_default();
        let components = self.bundles.info(bundle).components().iter().map(|component| component.id());
        self.observers.may_observe(components, flags)
    }

    /// Whether despawning an entity (with `flags`) of `archetype` must run hooks
    /// or observers.
    #[inline(always)]
    pub(crate) fn archetype_lifecycle(&self, archetype: ArchetypeId, flags: EntityFlags) -> bool {
        self.archetypes[archetype].flags().contains(ArchetypeFlags::HAS_HOOKS)
            || (self.observers.has_lifecycle_observers() && self.archetype_observed(archetype, flags))
    }

    /// Whether a lifecycle observer may watch the ids of `archetype` (or the
    /// entity, by its `flags`).
    #[cold]
    #[inline(never)]
    fn archetype_observed(&self, archetype: ArchetypeId, flags: EntityFlags) -> bool {
        self.observers.may_observe(self.archetypes[archetype].ids().iter().copied(), flags)
            || (self.inherited_events_on() && self.inherits_reported(archetype))
    }

    /// The components `entity` has that a despawn must report: those with hooks,
    /// or all of them while lifecycle observers exist (table ids of its
    /// archetype, and sparse values).
    pub(crate) fn hooked_components(&self, entity: Entity) -> SmallVec<[Entity; 4]> {
        let mut hooked = SmallVec::new();
        let Some(location) = self.entities.location(entity) else {
            return hooked;
        };
        let all = self.observers.has_lifecycle_observers();
        let reported =
            |component: Entity| all || self.components.info(component).is_some_and(|info| info.hooks().any());
        for &id in self.archetypes[location.archetype].ids() {
            if let Some(component) = id.entity()
                && reported(component)
            {
                hooked.push(component);
            }
        }
        for (component, set) in self.sparse_sets.iter() {
            if set.contains(entity) && reported(component) {
                hooked.push(component);
            }
        }
        hooked
    }
}
