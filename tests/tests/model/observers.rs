//! Observers of the model test and the model's mirror of their side effects.
//!
//! When a case registers them (before its first entity), these observers run on
//! every structural change of the world:
//!
//! * `OnAdd<Tag>` counts the adds into the [`Counts`] resource and inserts a
//!   [`Mark`] holding that count, through `Commands`; `OnRemove<Tag>` counts and
//!   removes the `Mark` (a no-op when the entity is being despawned). So an entity
//!   has a `Mark` exactly while it has a `Tag`, numbered by the order of the adds.
//! * `OnAdd<SprTag>` inserts a `Tag` (so the `Tag` observer runs in turn, from
//!   the commands of an observer: a two-level chain).
//! * `OnAdd<(Pos, Spr)>` / `OnRemove<(Pos, Spr)>`: multi-term observers, which
//!   fire only when the entity has both at event time (one table and one sparse
//!   component).
//! * `OnInsert<Text>` counts inserts (new values and overwrites).
//! * `OnAdd` / `OnRemove` of `Pair<Likes>` and `Pair<DockedTo>` count the pairs
//!   the event names (an event may carry several: a despawned holder's pairs),
//!   including the old `DockedTo` pair an exclusive add replaces and the pairs
//!   that lose a despawned target.
//! * With `global`, an `OnDespawn` observer that watches nothing counts every
//!   despawned entity (every structural change then takes the observed path).
//!
//! The model mirrors each effect ([`Harness::observe_insert`] and friends) and
//! the harness compares the resource and every entity's `Mark` after each step.
//! The observer entities are internal: the harness leaves them out of query rows
//! and counts (whether the library counts them or not, see `Harness::check`).

use std::cell::Cell;
use std::collections::HashMap;

use ecs::entity::Id;
use ecs::prelude::*;

use super::types::*;
use super::{Harness, ModelEntity};

thread_local! {
    /// Live `Mark` values, on this thread only.
    static MARK_LIVE: Cell<i64> = const { Cell::new(0) };
}

pub(super) fn mark_live() -> i64 {
    MARK_LIVE.with(Cell::get)
}

pub(super) fn reset_mark_live() {
    MARK_LIVE.with(|live| live.set(0));
}

/// Inserted by the `OnAdd<Tag>` observer: the value of `Counts::tag_added` then.
#[derive(Component, Debug)]
pub(super) struct Mark(pub(super) u32);

impl Mark {
    fn new(n: u32) -> Mark {
        MARK_LIVE.with(|live| live.set(live.get() + 1));
        Mark(n)
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        MARK_LIVE.with(|live| live.set(live.get() - 1));
    }
}

/// What the observers counted (a resource), and the model's expectation of it.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) tag_added: u32,
    pub(super) tag_removed: u32,
    pub(super) pos_spr_added: u32,
    pub(super) pos_spr_removed: u32,
    pub(super) text_inserted: u32,
    pub(super) likes_added: u32,
    pub(super) likes_removed: u32,
    pub(super) docked_added: u32,
    pub(super) docked_removed: u32,
    pub(super) despawned: u32,
}

/// Which observers a case registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Observers {
    None,
    /// Every observer above but the global `OnDespawn` one.
    Components,
    /// Every observer above.
    All,
}

/// The model's side of the observers.
#[derive(Debug)]
pub(super) struct Observed {
    /// The global `OnDespawn` observer is registered.
    global: bool,
    /// The observer entities (internal: never in the model).
    pub(super) entities: Vec<Entity>,
    /// The expected `Counts` resource.
    pub(super) counts: Counts,
    /// The expected `Mark` of each model entity that has one.
    pub(super) marks: HashMap<Entity, u32>,
}

/// How many of `ids` are `(relationship, *)` pairs.
fn pairs_of(ids: &[Id], relationship: Entity) -> u32 {
    ids.iter().filter(|id| id.is_pair() && id.first_index() == relationship.index()).count() as u32
}

/// Registers the observers on `world` (with the `Counts` resource) and returns
/// the model's side, or `None` for [`Observers::None`].
pub(super) fn register(world: &mut World, which: Observers) -> Option<Observed> {
    if which == Observers::None {
        return None;
    }
    world.insert_resource(Counts::default());
    let likes = world.register_component::<Likes>();
    let docked = world.register_component::<DockedTo>();
    let mut entities = vec![
        world
            .add_observer(|trigger: Trigger<OnAdd, Tag>, mut counts: ResMut<Counts>, mut commands: Commands| {
                counts.tag_added += 1;
                commands.entity(trigger.entity()).insert(Mark::new(counts.tag_added));
            })
            .id(),
        world
            .add_observer(|trigger: Trigger<OnRemove, Tag>, mut counts: ResMut<Counts>, mut commands: Commands| {
                counts.tag_removed += 1;
                commands.entity(trigger.entity()).remove::<Mark>();
            })
            .id(),
        world
            .add_observer(|trigger: Trigger<OnAdd, SprTag>, mut commands: Commands| {
                commands.entity(trigger.entity()).insert(Tag::make(Val::Tag));
            })
            .id(),
        world.add_observer(|_: Trigger<OnAdd, (Pos, Spr)>, mut counts: ResMut<Counts>| counts.pos_spr_added += 1).id(),
        world
            .add_observer(|_: Trigger<OnRemove, (Pos, Spr)>, mut counts: ResMut<Counts>| counts.pos_spr_removed += 1)
            .id(),
        world.add_observer(|_: Trigger<OnInsert, Text>, mut counts: ResMut<Counts>| counts.text_inserted += 1).id(),
        world
            .add_observer(move |trigger: Trigger<OnAdd, Pair<Likes>>, mut counts: ResMut<Counts>| {
                counts.likes_added += pairs_of(trigger.ids(), likes);
            })
            .id(),
        world
            .add_observer(move |trigger: Trigger<OnRemove, Pair<Likes>>, mut counts: ResMut<Counts>| {
                counts.likes_removed += pairs_of(trigger.ids(), likes);
            })
            .id(),
        world
            .add_observer(move |trigger: Trigger<OnAdd, Pair<DockedTo>>, mut counts: ResMut<Counts>| {
                counts.docked_added += pairs_of(trigger.ids(), docked);
            })
            .id(),
        world
            .add_observer(move |trigger: Trigger<OnRemove, Pair<DockedTo>>, mut counts: ResMut<Counts>| {
                counts.docked_removed += pairs_of(trigger.ids(), docked);
            })
            .id(),
    ];
    let global = which == Observers::All;
    if global {
        entities
            .push(world.add_observer(|_: Trigger<OnDespawn>, mut counts: ResMut<Counts>| counts.despawned += 1).id());
    }
    Some(Observed { global, entities, counts: Counts::default(), marks: HashMap::new() })
}

impl Harness {
    /// Mirrors the observers after `values` were inserted into the model entity
    /// `entity`, which held `before`.
    pub(super) fn observe_insert(&mut self, entity: Entity, before: &ModelEntity, values: &[Val]) {
        let Some(observed) = &mut self.observed else { return };
        let model = self.model.get_mut(&entity).expect("inserts go to model entities");
        let added = |model: &ModelEntity, kind: Kind| before[kind as usize].is_none() && model[kind as usize].is_some();
        let has = |model: &ModelEntity, kind: Kind| model[kind as usize].is_some();
        let counts = &mut observed.counts;
        // The observers run in registration order; their commands after all of them.
        if added(model, Kind::Tag) {
            counts.tag_added += 1;
            observed.marks.insert(entity, counts.tag_added);
        }
        let sprtag_added = added(model, Kind::SprTag);
        if (added(model, Kind::Pos) || added(model, Kind::Spr)) && has(model, Kind::Pos) && has(model, Kind::Spr) {
            counts.pos_spr_added += 1;
        }
        counts.text_inserted += values.iter().filter(|value| value.kind() == Kind::Text).count() as u32;
        // The `SprTag` observer's command inserts a `Tag`: an add (and a `Mark`)
        // only if the entity has none.
        if sprtag_added && !has(model, Kind::Tag) {
            model[Kind::Tag as usize] = Some(Val::Tag);
            counts.tag_added += 1;
            observed.marks.insert(entity, counts.tag_added);
        }
    }

    /// Mirrors the observers after components were removed from the model entity
    /// `entity` (by `remove`), which held `before`.
    pub(super) fn observe_remove(&mut self, entity: Entity, before: &ModelEntity) {
        let Some(observed) = &mut self.observed else { return };
        let model = &self.model[&entity];
        if before[Kind::Tag as usize].is_some() && model[Kind::Tag as usize].is_none() {
            observed.counts.tag_removed += 1;
            observed.marks.remove(&entity);
        }
        let both = |m: &ModelEntity| m[Kind::Pos as usize].is_some() && m[Kind::Spr as usize].is_some();
        if both(before) && !both(model) {
            observed.counts.pos_spr_removed += 1;
        }
    }

    /// Mirrors the pair observers: `added` new and `removed` old pairs of `rel`.
    pub(super) fn observe_pairs(&mut self, rel: Rel, added: usize, removed: usize) {
        let Some(observed) = &mut self.observed else { return };
        let (added, removed) = (added as u32, removed as u32);
        match rel {
            Rel::Likes => {
                observed.counts.likes_added += added;
                observed.counts.likes_removed += removed;
            }
            Rel::DockedTo => {
                observed.counts.docked_added += added;
                observed.counts.docked_removed += removed;
            }
            Rel::Owes | Rel::ChildOf | Rel::Anchored => {}
        }
    }

    /// Mirrors the observers for `entity`, about to be despawned with `model`
    /// (its components) and `pairs` (how many `Likes` and `DockedTo` pairs it
    /// holds).
    pub(super) fn observe_despawn(&mut self, entity: Entity, model: &ModelEntity, pairs: &PairSet) {
        let Some(observed) = &mut self.observed else { return };
        let counts = &mut observed.counts;
        if model[Kind::Tag as usize].is_some() {
            counts.tag_removed += 1;
        }
        if model[Kind::Pos as usize].is_some() && model[Kind::Spr as usize].is_some() {
            counts.pos_spr_removed += 1;
        }
        counts.likes_removed += pairs.keys().filter(|(rel, _)| *rel == Rel::Likes).count() as u32;
        counts.docked_removed += pairs.keys().filter(|(rel, _)| *rel == Rel::DockedTo).count() as u32;
        if observed.global {
            counts.despawned += 1;
        }
        observed.marks.remove(&entity);
    }

    /// Compares the `Counts` resource, every model entity's `Mark` and the live
    /// `Mark` values with the model.
    pub(super) fn check_observed(&self) {
        let Some(observed) = &self.observed else {
            assert_eq!(mark_live(), 0, "live Mark values without observers");
            return;
        };
        assert_eq!(self.world.resource::<Counts>(), &observed.counts, "the observers' Counts");
        for &entity in self.model.keys() {
            let got = self.world.get::<Mark>(entity).map(|mark| mark.0);
            assert_eq!(got, observed.marks.get(&entity).copied(), "Mark of {entity:?}");
        }
        assert_eq!(mark_live(), observed.marks.len() as i64, "live Mark values (model entities with a Mark)");
        for &observer in &observed.entities {
            assert!(self.world.is_alive(observer), "observer {observer:?} is alive");
        }
    }
}
