//! [`Propagate`]: transform propagation as a system parameter.
//!
//! `Propagate<R, T, D, F>` is a cached query `Query<D, F>` that can only be
//! walked parents first along the relationship `R`, each row with its own item
//! and its nearest ancestor's `&T` (see `QueryState::propagate`).
//!
//! Borrows: `D` and `F` on the rows (as `Query<D, F>`), plus a read of `T` on
//! any entity (the ancestors), declared as `AccessKind::ReadOtherInTurn` (const)
//! and `QueryAccess::add_read_other_in_turn` (runtime). So a `Propagate` whose
//! `D` writes `T` compiles (the walk never holds both borrows of one value at
//! once), while any other parameter or system that writes `T` conflicts with
//! it whatever the filters: it could hold a row's `Mut<T>` the walk reads.

use core::any::type_name;
use core::marker::PhantomData;

use super::access::{ParamAccess, UnitAccess, short_type_name};
use super::param::{SystemMeta, SystemParam};
use crate::component::Component;
use crate::query::{AccessKind, AccessSet, AccessTerm, Label, QueryAccess, QueryData, QueryFilter, QueryState};
use crate::relation::Relationship;
use crate::storage::Tick;
use crate::world::World;

/// Walks the rows of `Query<D, F>` parents before children along the
/// relationship `R`, handing each its item and the `T` of its nearest ancestor
/// along `R` that has one, already updated when that ancestor is a row too.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component)]
/// struct Local(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Global(f32);
/// fn propagate_globals(mut transforms: Propagate<ChildOf, Global, (&Local, &mut Global)>) {
///     transforms.for_each(|(local, mut global), parent| {
///         global.0 = parent.map_or(0.0, |parent| parent.0) + local.0;
///     });
/// }
/// let mut world = World::new();
/// let root = world.spawn((Local(1.0), Global(0.0))).id();
/// let child = world.spawn((Local(2.0), Global(0.0))).add_pair::<ChildOf>(root).id();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(propagate_globals);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Global>(child), Some(&Global(3.0)));
/// ```
pub struct Propagate<'w, 's, R: Relationship, T: Component, D: QueryData, F: QueryFilter = ()> {
    world: &'w World,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
    _relationship: PhantomData<fn() -> (R, T)>,
}

impl<R: Relationship, T: Component, D: QueryData, F: QueryFilter> Propagate<'_, '_, R, T, D, F> {
    /// Runs `f` on every row, parents before children, with the row's item and
    /// its nearest ancestor's `T` (`None` for roots and rows without such an
    /// ancestor). Both live for one call of `f` only.
    pub fn for_each(&mut self, f: impl for<'a> FnMut(D::Item<'a>, Option<&'a T>)) {
        // SAFETY: the system declared `D`'s and `F`'s access and an in-turn read
        // of `T` on every entity; `&mut self` makes this the only walk, and the
        // state was updated for this run in `get_param`.
        unsafe { self.state.propagate_unchecked_manual::<R, T>(self.world, self.last_run, self.this_run, f) }
    }
}

impl<R: Relationship, T: Component, D: QueryData, F: QueryFilter> core::fmt::Debug for Propagate<'_, '_, R, T, D, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Propagate").field("query", &type_name::<(R, T, D, F)>()).finish()
    }
}

/// `Propagate<R, T, D, F>`'s const access: `D`, `F`, and `T` read in turn on
/// other entities.
const fn propagate_access<R: Relationship, T: Component>(data: &AccessSet, filter: &AccessSet) -> AccessSet {
    let mut label =
        Label::new().with("Propagate<").with(R::NAME).with(", ").with(T::NAME).with(", ").with(data.label().as_str());
    if !filter.label().is_empty() && !matches!(filter.label().as_str().as_bytes(), b"()") {
        label.push(", ");
        label.push(filter.label().as_str());
    }
    label.push(">");
    let mut set = AccessSet::labelled(label.as_str());
    set.extend(data);
    set.extend(filter);
    set.push(AccessTerm { id: T::ID, name: T::NAME, kind: AccessKind::ReadOtherInTurn, resource: false });
    set
}

// SAFETY: declares `D`'s and `F`'s access and the read of `T` on other entities
// (const and runtime); the item only walks with that access.
unsafe impl<R, T, D, F> SystemParam for Propagate<'_, '_, R, T, D, F>
where
    R: Relationship,
    T: Component,
    D: QueryData + 'static,
    F: QueryFilter + 'static,
{
    type State = QueryState<D, F>;
    type Item<'w, 's> = Propagate<'w, 's, R, T, D, F>;
    const ACCESS: ParamAccess = ParamAccess::unit(propagate_access::<R, T>(&D::ACCESS, &F::ACCESS));

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let state = QueryState::new(world);
        let component = world.register_component::<T>();
        let mut access = QueryAccess::default();
        state.update_access(&mut access);
        access.add_read_other_in_turn(component);
        let label = short_type_name(type_name::<Propagate<'static, 'static, R, T, D, F>>());
        meta.access.add(label, UnitAccess::Query(access));
        state
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> Propagate<'w, 's, R, T, D, F> {
        state.update_archetypes(world);
        Propagate { world, state, last_run: meta.last_run, this_run, _relationship: PhantomData }
    }
}
