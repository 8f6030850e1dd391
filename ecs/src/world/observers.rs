//! The observer registry: type-erased observers keyed by event type, by the
//! components they watch and by the entities they watch, and the dispatch that
//! runs them. The typed API (`Event`, `Trigger`, `add_observer`, `trigger`)
//! lives in the `observer` layer, which registers runners here; the world calls
//! [`World::run_observers`] from its structural changes for the built-in
//! lifecycle events and from `trigger` for user events.
//!
//! Matching (Flecs semantics for several components): an observer fires for an
//! event of its type when
//! * it watches no component and no entity (a global observer), or
//! * it watches entities and the event targets one of them, or
//! * it watches components, one of the event's components is among them, and
//!   the target has *all* of them at that moment (after the values are written
//!   for `OnAdd`/`OnInsert`, before they are removed for `OnReplace`/`OnRemove`).
//!
//! Each observer runs at most once per event and target, in registration order.
//!
//! Observers are internal entities: each carries [`ObserverMarker`] and
//! `Internal` and is flagged `INTERNAL`, so `World::entity_count` does not count
//! it and only queries naming `ObserverMarker` (an internal marker, like
//! `Internal`) match it. Despawning one (or removing its marker) unregisters it.
//! An observer watching one entity (`EntityWorldMut::observe`) is despawned
//! with that entity, and so is one watching a pair that names an entity in
//! either half (`(R, e)`, `(*, e)`, `(e, *)`): a pair id holds no
//! generation, so it would hear about the next entity given `e`'s index
//! (Flecs refuses deleting `e`).
//! A pair is heard under `(R, T)`, `(R, *)`, `(*, T)` and `(*, *)`.
//!
//! Invariant: `by_event` lists exactly the observers in `observers`.

use core::any::TypeId;
use core::cell::Cell;
use core::ptr::NonNull;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use smallvec::SmallVec;

use super::{DeferredWorld, World};
use crate::component::{Component, ComponentHooks, Hook, HookContext};
use crate::entity::{Entity, EntityFlags, Id};
use crate::util::FxHashMap;

/// The event of a component being added to an entity that did not have it
/// (after the value is written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnAdd;

/// The event of a component being inserted, new or overwriting (after the
/// value is written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnInsert;

/// The event of a component value about to be overwritten or removed (the old
/// value is still readable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnReplace;

/// The event of a component about to be removed, by `remove` or `despawn` (the
/// value is still readable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnRemove;

/// The event of an entity about to be despawned (its components are still
/// readable; `OnRemove` follows for each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnDespawn;

/// The component that makes an entity an observer; removing it (or despawning
/// the entity) unregisters the observer. Registered with every world as an
/// internal marker: queries match observer entities only when they name it.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::observer::ObserverMarker;
/// #[derive(Event)]
/// struct Ping;
/// let mut world = World::new();
/// let observer = world.add_observer(|_: Trigger<Ping>| {}).id();
/// assert_eq!(world.entity_count(), 0); // observers are internal entities
/// assert_eq!(world.query::<Entity>().iter(&world).count(), 0);
/// let mut observers = world.query_filtered::<Entity, With<ObserverMarker>>();
/// assert_eq!(observers.iter(&world).collect::<Vec<_>>(), vec![observer]);
/// ```
#[derive(Debug)]
pub struct ObserverMarker;

impl Component for ObserverMarker {
    const NAME: &'static str = "Observer";
    const ID: u64 = crate::util::component_type_id("ecs::observer", "Observer");
    const HOOKS: ComponentHooks =
        ComponentHooks { on_remove: Some(Hook::new(unregister_observer)), ..ComponentHooks::NONE };
    const ON_INSTANTIATE: crate::component::OnInstantiate = crate::component::OnInstantiate::DontInherit;
}

/// `ObserverMarker`'s `on_remove` hook.
fn unregister_observer(mut world: DeferredWorld<'_>, context: HookContext) {
    world.world_mut_unchecked().unregister_observer(context.entity);
}

/// The forms an observer may watch `id` under: the id, for a pair `(R, T)`
/// also `(R, *)`, `(*, T)` and `(*, *)`, for a plain id `*` (Flecs: `*`
/// alone matches every plain id, no pair), and `_` for both (Flecs: `_`
/// alone matches every id).
fn id_forms(id: Id) -> SmallVec<[Id; 5]> {
    if id.is_pair() {
        let wildcard = Entity::WILDCARD.index();
        SmallVec::from_slice(&[
            id,
            Id::pair_from_indices(id.first_index(), wildcard),
            Id::pair_from_indices(wildcard, id.second_index()),
            Id::pair_from_indices(wildcard, wildcard),
            Entity::ANY.id(),
        ])
    } else {
        SmallVec::from_slice(&[id, Entity::WILDCARD.id(), Entity::ANY.id()])
    }
}

/// Whether `event` is one of the lifecycle events.
fn is_lifecycle(event: TypeId) -> bool {
    [
        TypeId::of::<OnAdd>(),
        TypeId::of::<OnInsert>(),
        TypeId::of::<OnReplace>(),
        TypeId::of::<OnRemove>(),
        TypeId::of::<OnDespawn>(),
    ]
    .contains(&event)
}

/// What an observer is told about the event being delivered.
#[derive(Debug)]
pub struct TriggerInfo {
    /// The targeted entity, or [`Entity::PLACEHOLDER`] for a global event.
    pub entity: Entity,
    /// The components involved (for lifecycle events: those added, inserted,
    /// replaced or removed).
    pub components: SmallVec<[Entity; 2]>,
    /// Every id involved, pairs included.
    pub ids: SmallVec<[Id; 2]>,
    /// The target of the first pair involved, if any.
    pub pair_target: Option<Entity>,
    /// The observer being run.
    pub observer: Entity,
    /// Cleared by an observer to stop the event's propagation.
    pub propagate: Cell<bool>,
}

/// A type-erased observer: gets the world, the trigger info and the event.
pub type ObserverRunner = Box<dyn FnMut(&mut World, &TriggerInfo, NonNull<u8>) + Send + Sync>;

/// One registered observer.
struct ObserverEntry {
    /// Registration order.
    rank: u64,
    /// Whether it watches one entity.
    entity_scoped: bool,
    /// Whether it hears about prefabs although it does not watch `Prefab`
    /// (the world's own trackers, such as `RemovedComponents`).
    sees_prefabs: bool,
    event: TypeId,
    /// The watched ids: components, or wildcard pairs such as `(Likes, *)`.
    components: SmallVec<[Id; 2]>,
    /// Whether it is counted in [`Observers::inheritable`].
    hears_inherited: bool,
    /// `None` while it runs.
    runner: Option<ObserverRunner>,
}

/// The observers of one event type.
#[derive(Default)]
struct EventObservers {
    global: Vec<Entity>,
    by_component: FxHashMap<Id, Vec<Entity>>,
    by_entity: FxHashMap<Entity, Vec<Entity>>,
}

/// Every observer of a world.
#[derive(Default)]
pub struct Observers {
    observers: FxHashMap<Entity, ObserverEntry>,
    by_event: FxHashMap<TypeId, EventObservers>,
    /// Observers of the built-in lifecycle events: while there are none,
    /// structural changes skip observer dispatch entirely.
    lifecycle: usize,
    /// Lifecycle observers that watch every component (no component, no entity).
    global_lifecycle: usize,
    /// Lifecycle observers that watch one entity (flagged `OBSERVED`).
    entity_lifecycle: usize,
    /// How many lifecycle observers watch each id (components, wildcard pairs):
    /// a structural change touching none of them skips dispatch.
    observed_ids: FxHashMap<Id, usize>,
    /// Lifecycle observers that hear about inherited components: those
    /// watching every component, or an inheritable one (see
    /// `world::inherited_events`). While there are none, moves skip them.
    inheritable: usize,
    /// The rank of the next observer registered.
    next_rank: u64,
}

impl Observers {
    /// Whether any observer watches a lifecycle event.
    #[inline]
    pub fn has_lifecycle_observers(&self) -> bool {
        self.lifecycle > 0
    }

    /// Whether a lifecycle observer may hear about an inherited component.
    #[inline]
    pub(crate) fn hears_inherited(&self) -> bool {
        self.inheritable > 0
    }

    /// How many observers are registered.
    pub fn len(&self) -> usize {
        self.observers.len()
    }

    /// Whether none is registered.
    pub fn is_empty(&self) -> bool {
        self.observers.is_empty()
    }

    /// Every observer, in registration order: its entity, its event type,
    /// the ids it watches and whether it watches entities (for
    /// `World::inspect_world`).
    pub(crate) fn entries(&self) -> Vec<(Entity, TypeId, &[Id], bool)> {
        let mut entries: Vec<_> = self.observers.iter().collect();
        entries.sort_by_key(|(_, entry)| entry.rank);
        entries
            .into_iter()
            .map(|(&observer, entry)| (observer, entry.event, &entry.components[..], entry.entity_scoped))
            .collect()
    }

    fn insert(
        &mut self,
        observer: Entity,
        event: TypeId,
        components: SmallVec<[Id; 2]>,
        entities: SmallVec<[Entity; 1]>,
        runner: ObserverRunner,
        hears_inherited: bool,
    ) {
        let lists = self.by_event.entry(event).or_default();
        if entities.is_empty() && components.is_empty() {
            lists.global.push(observer);
        }
        for &entity in &entities {
            lists.by_entity.entry(entity).or_default().push(observer);
        }
        if entities.is_empty() {
            for &component in &components {
                lists.by_component.entry(component).or_default().push(observer);
            }
        }
        let entity_scoped = !entities.is_empty();
        let hears_inherited = hears_inherited && is_lifecycle(event);
        if is_lifecycle(event) {
            self.lifecycle += 1;
            self.count_lifecycle(entity_scoped, &components, true);
        }
        self.inheritable += usize::from(hears_inherited);
        let rank = self.next_rank;
        self.next_rank += 1;
        self.observers.insert(
            observer,
            ObserverEntry {
                rank,
                entity_scoped,
                sees_prefabs: false,
                hears_inherited,
                event,
                components,
                runner: Some(runner),
            },
        );
    }

    /// Lets `observer` hear about prefabs as about any entity (see
    /// `World::run_observers`); for the world's own trackers.
    pub(crate) fn see_prefabs(&mut self, observer: Entity) {
        if let Some(entry) = self.observers.get_mut(&observer) {
            entry.sees_prefabs = true;
        }
    }

    /// Updates the lifecycle counts for an observer being added (`add`) or removed.
    fn count_lifecycle(&mut self, entity_scoped: bool, components: &[Id], add: bool) {
        let bump = |count: &mut usize| if add { *count += 1 } else { *count -= 1 };
        if entity_scoped {
            bump(&mut self.entity_lifecycle);
        } else if components.is_empty() {
            bump(&mut self.global_lifecycle);
        } else {
            for &id in components {
                let count = self.observed_ids.entry(id).or_default();
                bump(count);
                if *count == 0 {
                    self.observed_ids.remove(&id);
                }
            }
        }
    }

    /// Whether a lifecycle event about `ids` of an entity with `flags` may reach
    /// an observer (false for sure when no lifecycle observer watches any of
    /// them: the structural change then skips dispatch).
    #[inline]
    pub(crate) fn may_observe(&self, ids: impl IntoIterator<Item = Id>, flags: crate::entity::EntityFlags) -> bool {
        if self.lifecycle == 0 {
            return false;
        }
        if self.global_lifecycle > 0
            || (self.entity_lifecycle > 0 && flags.contains(crate::entity::EntityFlags::OBSERVED))
        {
            return true;
        }
        ids.into_iter().any(|id| {
            id_forms(id).iter().any(|form| self.observed_ids.contains_key(form))
                // A union pair `(R, *union*)` is heard as its row's concrete
                // pair `(R, t)`: any watched pair of `R` (or of `*`) may match.
                || (crate::archetype::is_union_id(id)
                    && self.observed_ids.keys().any(|watched| {
                        watched.is_pair()
                            && (watched.first_index() == id.first_index()
                                || watched.first_index() == Entity::WILDCARD.index())
                    }))
        })
    }

    /// The observers that watch `entity` alone.
    pub(crate) fn watchers_of(&self, entity: Entity) -> SmallVec<[Entity; 2]> {
        let mut watchers = SmallVec::new();
        for lists in self.by_event.values() {
            if let Some(list) = lists.by_entity.get(&entity) {
                watchers.extend(list.iter().copied());
            }
        }
        watchers
    }

    /// The observers watching a pair that names `entity` in either half
    /// (`(R, e)`, `(*, e)`, `(e, *)`).
    pub(crate) fn watching_pairs_of(&self, entity: Entity) -> SmallVec<[Entity; 2]> {
        let names =
            |id: &Id| id.is_pair() && (id.first_index() == entity.index() || id.second_index() == entity.index());
        let mut watchers: SmallVec<[(u64, Entity); 2]> = self
            .observers
            .iter()
            .filter(|(_, entry)| entry.components.iter().any(names))
            .map(|(&observer, entry)| (entry.rank, observer))
            .collect();
        // Registration order, not the map's.
        watchers.sort_unstable();
        watchers.into_iter().map(|(_, observer)| observer).collect()
    }

    /// Unregisters `observer`; `false` if it was none.
    pub(crate) fn remove(&mut self, observer: Entity) -> bool {
        let Some(entry) = self.observers.remove(&observer) else {
            return false;
        };
        if is_lifecycle(entry.event) {
            self.lifecycle -= 1;
            self.count_lifecycle(entry.entity_scoped, &entry.components, false);
        }
        self.inheritable -= usize::from(entry.hears_inherited);
        if let Some(lists) = self.by_event.get_mut(&entry.event) {
            lists.global.retain(|&o| o != observer);
            for list in lists.by_component.values_mut().chain(lists.by_entity.values_mut()) {
                list.retain(|&o| o != observer);
            }
            lists.by_component.retain(|_, list| !list.is_empty());
            lists.by_entity.retain(|_, list| !list.is_empty());
        }
        true
    }

    /// Whether some observer of `event` that may hear about `target` watches
    /// components (or pairs): one of every entity, or one of `target` alone.
    fn watches_components(&self, event: TypeId, target: Entity) -> bool {
        self.by_event.get(&event).is_some_and(|lists| {
            !lists.by_component.is_empty()
                || lists.by_entity.get(&target).is_some_and(|scoped| {
                    scoped.iter().any(|observer| self.observers.get(observer).is_some_and(|e| !e.components.is_empty()))
                })
        })
    }

    /// The ids of `ids` that observers of `event` watch (by any of the id's
    /// forms), those of every entity or those of `target` alone: what a user
    /// event sent to `target`, which holds `ids`, is about.
    fn watched_among(&self, event: TypeId, target: Entity, ids: &[Id]) -> SmallVec<[Id; 4]> {
        let Some(lists) = self.by_event.get(&event) else {
            return SmallVec::new();
        };
        let scoped: SmallVec<[Id; 4]> = lists
            .by_entity
            .get(&target)
            .into_iter()
            .flatten()
            .filter_map(|observer| self.observers.get(observer))
            .flat_map(|entry| entry.components.iter().copied())
            .collect();
        ids.iter()
            .copied()
            .filter(|&id| {
                id_forms(id).into_iter().any(|form| lists.by_component.contains_key(&form))
                    || scoped.iter().any(|pattern| pattern.matches(id))
            })
            .collect()
    }

    /// The observers an event of type `event` with `components` on `target`
    /// may fire, in registration order, each once.
    fn candidates(&self, event: TypeId, target: Entity, ids: &[Id]) -> SmallVec<[Entity; 4]> {
        let mut found: SmallVec<[Entity; 4]> = SmallVec::new();
        let Some(lists) = self.by_event.get(&event) else {
            return found;
        };
        found.extend(lists.global.iter().copied());
        if target != Entity::PLACEHOLDER
            && !lists.by_entity.is_empty()
            && let Some(list) = lists.by_entity.get(&target)
        {
            found.extend(list.iter().copied());
        }
        for &id in ids {
            for form in id_forms(id) {
                if let Some(list) = lists.by_component.get(&form) {
                    found.extend(list.iter().copied());
                }
            }
        }
        if found.len() > 1 {
            found.sort_by_key(|observer| self.observers.get(observer).map_or(u64::MAX, |entry| entry.rank));
            found.dedup();
        }
        found
    }
}

impl World {
    /// The observer registry.
    #[inline]
    pub fn observers(&self) -> &Observers {
        &self.observers
    }

    /// The observer registry, mutably (crate-internal settings of observers).
    pub(crate) fn observers_mut(&mut self) -> &mut Observers {
        &mut self.observers
    }

    /// Registers an observer (the `observer` layer's `add_observer` builds the
    /// runner): it fires for events of type `event` as the module docs say.
    pub fn register_observer(
        &mut self,
        observer: Entity,
        event: TypeId,
        components: SmallVec<[Id; 2]>,
        entities: SmallVec<[Entity; 1]>,
        runner: ObserverRunner,
    ) {
        // Watching every component, or an inheritable one: it may hear about
        // components entities inherit (`world::inherited_events`).
        // `_` in a pair is heard as `*` (an observer runs once per event
        // whatever the number of ids it matches, as Flecs' `_` does); `_`
        // alone hears every id, pairs too (`id_forms`).
        let components: SmallVec<[Id; 2]> =
            components.into_iter().map(|id| if id.is_pair() { id.any_as_wildcard() } else { id }).collect();
        let hears_inherited = components.is_empty()
            || components.iter().any(|&id| {
                (id.is_wildcard() && !id.is_pair())
                    || self.is_inherited_id(id)
                    || (id.is_pair() && self.inherits_pairs_of(id.first_index()))
            });
        for &id in components.iter().filter(|id| id.is_pair()) {
            for index in [id.first_index(), id.second_index()] {
                if index > Entity::UNION.index()
                    && let Some(named) = self.entities.entity_at(index)
                {
                    self.flag(named, EntityFlags::PAIR_OBSERVED);
                }
            }
        }
        self.observers.insert(observer, event, components, entities, runner, hears_inherited);
    }

    /// Flags `entity` as watched by single-entity observers (despawned with it).
    pub(crate) fn mark_observed(&mut self, entity: Entity) {
        self.flag(entity, crate::entity::EntityFlags::OBSERVED);
    }

    /// Unregisters `observer` (done when its entity loses its observer marker).
    pub fn unregister_observer(&mut self, observer: Entity) -> bool {
        self.observers.remove(observer)
    }

    /// Whether `entity`'s archetype has `flag`.
    fn entity_has_flag(&self, entity: Entity, flag: crate::archetype::ArchetypeFlags) -> bool {
        self.entities
            .location(entity)
            .is_some_and(|location| self.archetypes[location.archetype].flags().contains(flag))
    }

    /// Runs the observers of the user event `event` sent to `target`: the
    /// global ones, `target`'s own, and those watching components: such an
    /// observer hears it when `target` holds every component it watches
    /// (Flecs' `ecs_emit` for an entity and its ids), with those ids as the
    /// trigger's components. What `target` holds: its type (a union pair as
    /// its row's concrete pair), its sparse values, and what it inherits
    /// from prefabs, as lifecycle observers see it. Returns whether the
    /// event goes on propagating.
    pub(crate) fn run_user_event_observers(&mut self, event: TypeId, target: Entity, event_ptr: NonNull<u8>) -> bool {
        let watched = match self.entities.get(target) {
            Some(record) if target != Entity::PLACEHOLDER && self.observers.watches_components(event, target) => {
                let archetype = &self.archetypes[record.location.archetype];
                let mut ids: SmallVec<[Id; 16]> =
                    archetype.ids().iter().map(|&id| self.concrete_pair(target, id)).collect();
                ids.extend(
                    archetype
                        .inherited()
                        .iter()
                        .map(|&(id, _)| id)
                        .filter(|&id| !archetype.contains(id) && self.is_inherited_id(id)),
                );
                if record.flags.contains(EntityFlags::HAS_SPARSE) {
                    ids.extend(
                        self.sparse_sets
                            .iter()
                            .filter(|(_, set)| set.contains(target))
                            .map(|(component, _)| component.id()),
                    );
                }
                self.observers.watched_among(event, target, &ids)
            }
            _ => SmallVec::new(),
        };
        self.run_observers(event, target, &watched, event_ptr)
    }

    /// Runs the observers of an event of type `event` (whose value is at
    /// `event_ptr`) targeting `target` ([`Entity::PLACEHOLDER`]: none) for
    /// `components`; returns whether propagation should continue. Their commands
    /// are deferred to the world's queue.
    pub fn run_observers(&mut self, event: TypeId, target: Entity, ids: &[Id], event_ptr: NonNull<u8>) -> bool {
        let candidates = self.observers.candidates(event, target, ids);
        if candidates.is_empty() {
            return true;
        }
        let mut info = TriggerInfo {
            entity: target,
            components: ids.iter().filter_map(|id| id.entity()).collect(),
            ids: SmallVec::from_slice(ids),
            pair_target: ids.iter().find(|id| id.is_pair()).and_then(|pair| self.entity_at(pair.second_index())),
            observer: Entity::PLACEHOLDER,
            propagate: Cell::new(true),
        };
        for observer in candidates {
            // A paused observer: its entity carries `Disabled` (Flecs' `ecs_enable(o, false)`).
            if self.entity_has_flag(observer, crate::archetype::ArchetypeFlags::DISABLED) {
                continue;
            }
            let Some(entry) = self.observers.observers.get_mut(&observer) else {
                continue;
            };
            // An observer of one entity hears about it whatever it is.
            let hears_prefabs = entry.entity_scoped || entry.sees_prefabs;
            let mut runner = if entry.components.is_empty() {
                entry.runner.take()
            } else {
                // The event is about a watched id, and every watched id is on the
                // target now (an entity observer is found by its entity, so the
                // first test matters for it).
                let watched = entry.components.clone();
                if !ids.iter().any(|&id| watched.iter().any(|pattern| pattern.matches(id)))
                    || !watched.iter().all(|&id| self.has_id_or_inherits(target, id))
                {
                    continue;
                }
                // Prefabs are templates: an observer of components hears
                // about them only when it watches `Prefab` itself (Flecs).
                let prefab = self.builtin.prefab.id();
                if !hears_prefabs && !watched.contains(&prefab) && self.is_prefab(target) {
                    continue;
                }
                self.observers.observers.get_mut(&observer).and_then(|entry| entry.runner.take())
            };
            // `None`: already running (an event delivered while its observer runs).
            let Some(run) = runner.as_mut() else {
                continue;
            };
            info.observer = observer;
            // A panicking observer is put back before its panic goes on, so it
            // runs for later events.
            let outcome = catch_unwind(AssertUnwindSafe(|| run(self, &info, event_ptr)));
            if let Some(entry) = self.observers.observers.get_mut(&observer) {
                entry.runner = runner;
            }
            if let Err(payload) = outcome {
                resume_unwind(payload);
            }
        }
        info.propagate.get()
    }
}
