//! Typed operations of the model test: each function runs one world operation
//! with the component or relationship types named by its generic parameters
//! (the harness picks them with `with_kind!` / `with_rel!`), and the per-type
//! comparisons of an entity's components and pairs with the model.

use ecs::prelude::*;
use ecs::world::PairError;

use super::types::*;

/// How a pair operation reaches the world.
#[derive(Clone, Copy, Debug)]
pub(super) enum How {
    /// `World::try_add_pair` / `World::try_insert_pair`.
    Try,
    /// `World::add_pair` / `World::insert_pair` (`bool`), where the model says
    /// they do not panic; otherwise as `Try`.
    Plain,
    /// Through `World::entity_mut`, where the source is alive (and, for
    /// `insert_pair`, the model says it does not panic); otherwise as `Try`.
    EntityMut,
}

/// Adds (`amount == None`) or inserts `(R, target)` into `entity` the way `how`
/// says; `expected` is the model's result, used only to avoid the panicking forms.
pub(super) fn add_pair_typed<R: RelType>(
    world: &mut World,
    entity: Entity,
    target: Entity,
    amount: Option<u32>,
    how: How,
    expected: &Result<(), PairError>,
) -> Result<(), PairError> {
    let plain_ok = expected.is_ok() || *expected == Err(PairError::NotAlive(entity));
    let from_bool = |added: bool| if added { Ok(()) } else { Err(PairError::NotAlive(entity)) };
    match (amount, how) {
        (None, How::Plain) if plain_ok => from_bool(world.add_pair::<R>(entity, target)),
        (None, How::EntityMut) if world.is_alive(entity) => {
            world.entity_mut(entity).try_add_pair::<R>(target).map(|_| ())
        }
        (None, _) => world.try_add_pair::<R>(entity, target),
        (Some(amount), How::Plain) if plain_ok => from_bool(world.insert_pair(entity, R::make(amount), target)),
        (Some(amount), How::EntityMut) if expected.is_ok() => {
            let mut entity_mut = world.entity_mut(entity);
            entity_mut.insert_pair(R::make(amount), target);
            assert!(entity_mut.has_pair::<R>(target), "EntityWorldMut::has_pair after insert_pair");
            Ok(())
        }
        (Some(amount), _) => world.try_insert_pair(entity, R::make(amount), target),
    }
}

/// Removes `(R, target)` from `entity` (through `EntityWorldMut` if asked and
/// `entity` is alive); whether it was there.
pub(super) fn remove_pair_typed<R: RelType>(
    world: &mut World,
    entity: Entity,
    target: Entity,
    entity_mut: bool,
) -> bool {
    if entity_mut && world.is_alive(entity) {
        let mut entity_mut = world.entity_mut(entity);
        let had = entity_mut.has_pair::<R>(target);
        assert_eq!(entity_mut.get_pair::<R>(target).is_some(), had, "EntityWorldMut::get_pair::<{}>", R::NAME);
        entity_mut.remove_pair::<R>(target);
        assert!(!entity_mut.has_pair::<R>(target), "EntityWorldMut::has_pair::<{}> after remove_pair", R::NAME);
        had
    } else {
        world.remove_pair::<R>(entity, target)
    }
}

/// `get_pair_mut` and a write through the `Mut`; the value after it.
pub(super) fn mutate_pair<R: RelType>(
    world: &mut World,
    entity: Entity,
    target: Entity,
    seed: u32,
) -> Option<Option<u32>> {
    world.get_pair_mut::<R>(entity, target).map(|mut value| {
        value.mutate(seed);
        value.value()
    })
}

/// Compares `entity`'s `(R, *)` pairs in the world with the model's `pairs`;
/// `probes` are entities it must not have a pair with unless the model says so.
pub(super) fn check_pairs_of<R: RelType>(world: &World, entity: Entity, pairs: &PairSet, probes: &[Entity]) {
    let mut expected: Vec<(Entity, Option<u32>)> =
        pairs.iter().filter(|((rel, _), _)| *rel == R::REL).map(|((_, t), v)| (*t, *v)).collect();
    expected.sort_by_key(|(t, _)| t.index());
    let targets: Vec<Entity> = world.targets::<R>(entity).collect();
    let expected_targets: Vec<Entity> = expected.iter().map(|(t, _)| *t).collect();
    assert_eq!(targets, expected_targets, "targets::<{}>({entity:?}) (in index order)", R::NAME);
    assert_eq!(world.target::<R>(entity), expected_targets.first().copied(), "target::<{}>({entity:?})", R::NAME);
    assert_eq!(
        world.has_pair::<R>(entity, Entity::WILDCARD),
        !expected.is_empty(),
        "has_pair::<{}>({entity:?}, *)",
        R::NAME
    );
    for &(target, value) in &expected {
        assert!(world.has_pair::<R>(entity, target), "has_pair::<{}>({entity:?}, {target:?})", R::NAME);
        let got = world.get_pair::<R>(entity, target).map(R::value);
        assert_eq!(got, Some(value), "get_pair::<{}>({entity:?}, {target:?})", R::NAME);
        let later = Entity::from_raw(target.index(), target.generation() + 1);
        assert!(!world.has_pair::<R>(entity, later), "has_pair::<{}>({entity:?}, {later:?})", R::NAME);
        assert!(world.get_pair::<R>(entity, later).is_none(), "get_pair::<{}>({entity:?}, {later:?})", R::NAME);
    }
    for &probe in probes {
        if !expected_targets.contains(&probe) {
            assert!(!world.has_pair::<R>(entity, probe), "has_pair::<{}>({entity:?}, {probe:?})", R::NAME);
            assert!(world.get_pair::<R>(entity, probe).is_none(), "get_pair::<{}>({entity:?}, {probe:?})", R::NAME);
        }
    }
}

/// Compares the holders of `(R, target)` with the model's `expected` (sorted).
pub(super) fn check_sources<R: RelType>(world: &World, target: Entity, expected: &[Entity]) {
    let mut got: Vec<Entity> = world.sources::<R>(target).collect();
    got.sort();
    assert_eq!(got, expected, "sources::<{}>({target:?})", R::NAME);
}

// ----- typed operations ---------------------------------------------------------------

/// How two bundles are nested into one: `(B, C)` or `(C, B)`, so that spawn
/// bundles list their components in both orders.
pub(super) trait Join {
    type Out<B: Bundle, C: Bundle>: Bundle;
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> Self::Out<B, C>;
}

pub(super) struct Forward;
pub(super) struct Reverse;

impl Join for Forward {
    type Out<B: Bundle, C: Bundle> = (B, C);
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> (B, C) {
        (b, c)
    }
}

impl Join for Reverse {
    type Out<B: Bundle, C: Bundle> = (C, B);
    fn join<B: Bundle, C: Bundle>(b: B, c: C) -> (C, B) {
        (c, b)
    }
}

pub(super) type Slots = [Option<Val>; KINDS];

/// Where a spawn goes: the world, or a command buffer (`Commands::spawn`).
pub(super) trait Spawner {
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B) -> Entity;
}

impl Spawner for World {
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.spawn(bundle).id()
    }
}

impl Spawner for Commands<'_, '_> {
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.spawn(bundle).id()
    }
}

/// `spawn_<kind>` adds that kind's slot (if any) to the bundle built so far and
/// goes on with the next kind; `spawn_done` spawns the (nested tuple) bundle.
macro_rules! spawn_level {
    ($name:ident, $c:ty, $next:ident) => {
        pub(super) fn $name<J: Join, S: Spawner, B: Bundle>(to: &mut S, bundle: B, slots: &mut Slots) -> Entity {
            match slots[<$c as Comp>::KIND as usize].take() {
                Some(value) => $next::<J, S, _>(to, J::join(bundle, <$c as Comp>::make(value)), slots),
                None => $next::<J, S, _>(to, bundle, slots),
            }
        }
    };
}

spawn_level!(spawn_tag, Tag, spawn_pos);
spawn_level!(spawn_pos, Pos, spawn_text);
spawn_level!(spawn_text, Text, spawn_spr);
spawn_level!(spawn_spr, Spr, spawn_sprtag);
spawn_level!(spawn_sprtag, SprTag, spawn_done);

pub(super) fn spawn_done<J: Join, S: Spawner, B: Bundle>(to: &mut S, bundle: B, _: &mut Slots) -> Entity {
    to.spawn_bundle(bundle)
}

/// Spawns `values` (a nested-tuple bundle, in reverse order with `reverse`)
/// into `to`; `None` for no values (the caller uses `spawn_empty`).
pub(super) fn spawn_values<S: Spawner>(to: &mut S, values: &[Val], reverse: bool) -> Option<Entity> {
    let mut slots: Slots = Default::default();
    for value in values {
        slots[value.kind() as usize] = Some(value.clone());
    }
    match (values.is_empty(), reverse) {
        (true, _) => None,
        (false, false) => Some(spawn_tag::<Forward, S, _>(to, (), &mut slots)),
        (false, true) => Some(spawn_tag::<Reverse, S, _>(to, (), &mut slots)),
    }
}

pub(super) fn insert1<A: Comp>(world: &mut World, entity: Entity, a: Val) -> bool {
    world.insert(entity, A::make(a))
}

pub(super) fn insert2<A: Comp, B: Comp>(world: &mut World, entity: Entity, a: Val, b: Val) -> bool {
    world.insert(entity, (A::make(a), B::make(b)))
}

pub(super) fn remove1<A: Comp>(world: &mut World, entity: Entity) -> Option<Vec<Val>> {
    world.remove::<A>(entity).map(|a| vec![a.val()])
}

pub(super) fn remove2<A: Comp, B: Comp>(world: &mut World, entity: Entity) -> Option<Vec<Val>> {
    world.remove::<(A, B)>(entity).map(|(a, b)| vec![a.val(), b.val()])
}

pub(super) fn mutate<A: Comp>(world: &mut World, entity: Entity, seed: u32) -> bool {
    match world.get_mut::<A>(entity) {
        Some(mut value) => {
            value.mutate(seed);
            true
        }
        None => false,
    }
}

/// Compares `entity`'s `A` in the world with the model's `expected`.
pub(super) fn check_component<A: Comp>(world: &World, entity: Entity, expected: Option<&Val>) {
    let got = world.get::<A>(entity).map(Comp::val);
    assert_eq!(got.as_ref(), expected, "get::<{}>({entity:?})", A::NAME);
    assert_eq!(world.has::<A>(entity), expected.is_some(), "has::<{}>({entity:?})", A::NAME);
    let via_ref = world.get_entity(entity).map(|e| (e.contains::<A>(), e.get::<A>().map(Comp::val)));
    match via_ref {
        Some((contains, value)) => {
            assert_eq!(contains, expected.is_some(), "EntityRef::contains::<{}>({entity:?})", A::NAME);
            assert_eq!(value.as_ref(), expected, "EntityRef::get::<{}>({entity:?})", A::NAME);
        }
        None => assert!(expected.is_none(), "get_entity({entity:?}) is None for a model entity"),
    }
}
