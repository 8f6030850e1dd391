//! [`SystemSet`]: user-defined labels that group systems, so a group can be
//! ordered and guarded by run conditions as one.
//!
//! Sets are compared by value (`Physics` equals `Physics`; `Stage::A` is not
//! `Stage::B`), across types by `TypeId`. A schedule interns every set it sees
//! into a dense index on first use.

use core::any::Any;
use core::fmt::Debug;

/// A label for a group of systems (derive it with `#[derive(SystemSet)]`,
/// together with `Debug`, `Clone`, `PartialEq` and `Eq`).
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
/// enum Stage { Input, Simulate }
/// #[derive(Resource, Default)]
/// struct Log(Vec<&'static str>);
/// fn read_input(mut log: ResMut<Log>) { log.0.push("input"); }
/// fn simulate(mut log: ResMut<Log>) { log.0.push("simulate"); }
/// let mut world = World::new();
/// world.insert_resource(Log::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(simulate.in_set(Stage::Simulate));
/// schedule.add_systems(read_input.in_set(Stage::Input));
/// schedule.configure_sets((Stage::Input, Stage::Simulate).chain());
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["input", "simulate"]);
/// ```
pub trait SystemSet: Debug + Clone + PartialEq + Eq + Send + Sync + 'static {}

/// A set with its type erased (what schedules and constraints store).
pub(crate) struct InternedSet(Box<dyn DynSystemSet>);

impl InternedSet {
    pub(crate) fn new<S: SystemSet>(set: S) -> InternedSet {
        InternedSet(Box::new(set))
    }

    /// The set as written (`Debug`), e.g. `Stage::Input` prints `Input`.
    pub(crate) fn name(&self) -> String {
        self.0.name()
    }
}

impl Clone for InternedSet {
    fn clone(&self) -> InternedSet {
        InternedSet(self.0.clone_box())
    }
}

impl PartialEq for InternedSet {
    fn eq(&self, other: &InternedSet) -> bool {
        self.0.dyn_eq(other.0.as_ref())
    }
}

impl Debug for InternedSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Object-safe face of [`SystemSet`].
trait DynSystemSet: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn dyn_eq(&self, other: &dyn DynSystemSet) -> bool;
    fn clone_box(&self) -> Box<dyn DynSystemSet>;
    fn name(&self) -> String;
}

impl<S: SystemSet> DynSystemSet for S {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn dyn_eq(&self, other: &dyn DynSystemSet) -> bool {
        other.as_any().downcast_ref::<S>() == Some(self)
    }

    fn clone_box(&self) -> Box<dyn DynSystemSet> {
        Box::new(self.clone())
    }

    fn name(&self) -> String {
        format!("{self:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Stage {
        A,
        B,
    }
    impl SystemSet for Stage {}

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct A;
    impl SystemSet for A {}

    #[test]
    fn sets_compare_by_type_and_value() {
        assert_eq!(InternedSet::new(Stage::A), InternedSet::new(Stage::A));
        assert_ne!(InternedSet::new(Stage::A), InternedSet::new(Stage::B));
        assert_ne!(InternedSet::new(Stage::A), InternedSet::new(A));
        assert_eq!(InternedSet::new(Stage::B).clone().name(), "B");
    }
}
