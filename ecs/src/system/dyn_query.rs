//! [`RuntimeQuery<S>`]: a runtime query ([`DynQuery`]) as a system parameter.
//!
//! A function parameter's type is fixed at compile time, so the query is
//! named by a type `S` implementing [`RuntimeQuerySpec`], whose `build`
//! makes the query when the system is initialized (from a builder or the
//! DSL). Its borrows are only known then: the compile-time check of a system's
//! parameters cannot see them, so the system's initialization checks them
//! against the other parameters (a conflict panics, naming both), and the
//! scheduler orders the system against every other by the same runtime
//! access, reads of other entities (fixed and variable sources, `up`)
//! included.

use super::access::{ParamAccess, UnitAccess, short_type_name};
use super::param::{SystemMeta, SystemParam};
use crate::query::{DynIter, DynIterMut, DynQuery, QueryAccess};
use crate::storage::Tick;
use crate::world::World;

/// Names a runtime query for [`RuntimeQuery<S>`].
///
/// # Examples
/// See [`RuntimeQuery`].
pub trait RuntimeQuerySpec: Send + Sync + 'static {
    /// Builds the query (once, when the system is initialized).
    fn build(world: &mut World) -> DynQuery;
}

/// A runtime query as a system parameter: `S::build` makes the query when the
/// system is initialized; its borrows are checked then against the other
/// parameters (a conflict panics, naming both) and order the system in a
/// schedule like any query's.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// use ecs::query::DynQuery;
/// use ecs::system::{RuntimeQuery, RuntimeQuerySpec};
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(u32);
/// struct Wounded;
/// impl RuntimeQuerySpec for Wounded {
///     fn build(world: &mut World) -> DynQuery {
///         let health = world.register_component::<Health>();
///         world.query_builder().write(health).build().expect("a valid query")
///     }
/// }
/// fn heal(mut wounded: RuntimeQuery<Wounded>) {
///     wounded.iter_mut().for_each(|mut row| row.get_mut::<Health>(0).unwrap().0 += 1);
/// }
/// let mut world = World::new();
/// let e = world.spawn(Health(1)).id();
/// world.run_system_once(heal);
/// assert_eq!(world.get::<Health>(e), Some(&Health(2)));
/// ```
pub struct RuntimeQuery<'w, 's, S: RuntimeQuerySpec> {
    world: &'w World,
    query: &'s mut DynQuery,
    last_run: Tick,
    this_run: Tick,
    _spec: core::marker::PhantomData<fn() -> S>,
}

impl<'w, 's, S: RuntimeQuerySpec> RuntimeQuery<'w, 's, S> {
    /// The rows, read-only.
    pub fn iter(&mut self) -> DynIter<'_> {
        self.query.iter(self.world)
    }

    /// The rows, with `get_mut` on write terms.
    pub fn iter_mut(&mut self) -> DynIterMut<'_> {
        // SAFETY: the system declared the query's access at initialization
        // and the scheduler runs it only when that access is its own.
        unsafe { self.query.iter_mut_shared(self.world, self.last_run, self.this_run) }
    }

    /// The query itself (terms, `to_dsl`).
    pub fn query(&self) -> &DynQuery {
        self.query
    }
}

// SAFETY: `init_state` declares the query's runtime access (the compile-time
// `ACCESS` is empty: it cannot be known then); `iter` reads and `iter_mut`
// writes only what it declares.
unsafe impl<S: RuntimeQuerySpec> SystemParam for RuntimeQuery<'_, '_, S> {
    type State = DynQuery;
    type Item<'w, 's> = RuntimeQuery<'w, 's, S>;
    const ACCESS: ParamAccess = ParamAccess::NONE;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> DynQuery {
        let mut query = S::build(world);
        query.prepare(world);
        let mut access = QueryAccess::default();
        query.update_access(&mut access);
        meta.access.add(
            format!("{} ({})", short_type_name(core::any::type_name::<S>()), query.to_dsl()),
            UnitAccess::Query(access),
        );
        query
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut DynQuery,
        meta: &SystemMeta,
        world: &'w World,
        this_run: Tick,
    ) -> RuntimeQuery<'w, 's, S> {
        RuntimeQuery { world, query: state, last_run: meta.last_run, this_run, _spec: core::marker::PhantomData }
    }
}
