//! [`Schedule`]: an ordered list of systems run on a world.
//!
//! This first version runs systems one after another in insertion order and
//! applies their commands at the end of the run, in system order (the parallel
//! executor comes with the scheduler). Adding a system forces its compile-time
//! access check; the first run initializes it, which runs the runtime check.

use crate::system::{BoxedSystem, IntoSystem, System};
use crate::world::World;

/// Things [`Schedule::add_systems`] accepts: a system, or a tuple of them.
pub trait IntoSystemConfigs<Marker> {
    /// The compile-time access checks of every system.
    const CHECK: ();
    /// Appends the systems to `systems`, in order.
    fn into_configs(self, systems: &mut Vec<BoxedSystem>);
}

/// Marks the single-system impl of [`IntoSystemConfigs`].
pub struct IsSingleSystem;

impl<Marker, S> IntoSystemConfigs<(IsSingleSystem, Marker)> for S
where
    S: IntoSystem<Marker>,
    S::System: System<Out = ()>,
{
    const CHECK: () = S::CHECK;
    fn into_configs(self, systems: &mut Vec<BoxedSystem>) {
        systems.push(Box::new(self.into_system()));
    }
}

/// Marks the tuple impls of [`IntoSystemConfigs`].
pub struct IsSystemTuple;

macro_rules! impl_into_system_configs_tuple {
    ($(($config:ident, $marker:ident)),*) => {
        #[allow(non_snake_case)]
        impl<$($config: IntoSystemConfigs<$marker>, $marker),*> IntoSystemConfigs<(IsSystemTuple, $($marker,)*)>
            for ($($config,)*)
        {
            const CHECK: () = { $(let () = $config::CHECK;)* };
            fn into_configs(self, systems: &mut Vec<BoxedSystem>) {
                let ($($config,)*) = self;
                $($config.into_configs(systems);)*
            }
        }
    };
}

ecs_macros::all_tuples!(impl_into_system_configs_tuple, 1, 16, S, M);

/// Systems run in order on a world.
///
/// # Examples
/// ```
/// use ecs::prelude::*;
/// #[derive(Component, Default)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
/// #[derive(Resource)]
/// struct Time { dt: f32 }
/// fn movement(mut q: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
///     for (mut p, v) in q.iter_mut() { p.0 += v.0 * time.dt; }
/// }
/// fn spawner(mut commands: Commands) {
///     commands.spawn((Position::default(), Velocity(1.0)));
/// }
/// let mut world = World::new();
/// world.insert_resource(Time { dt: 0.5 });
/// let mut schedule = Schedule::new();
/// schedule.add_systems((movement, spawner));
/// schedule.run(&mut world); // spawns one mover (at the end of the run)
/// schedule.run(&mut world); // moves it, spawns another
/// let mut positions: Vec<f32> = world.query::<&Position>().iter(&world).map(|p| p.0).collect();
/// positions.sort_by(f32::total_cmp);
/// assert_eq!(positions, vec![0.0, 0.5]);
/// ```
#[derive(Default)]
pub struct Schedule {
    systems: Vec<BoxedSystem>,
}

impl Schedule {
    /// An empty schedule.
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// Appends systems (a system or a tuple of systems), checking each one's
    /// parameters at compile time.
    #[track_caller]
    pub fn add_systems<Marker, S: IntoSystemConfigs<Marker>>(&mut self, systems: S) -> &mut Self {
        let () = S::CHECK;
        systems.into_configs(&mut self.systems);
        self
    }

    /// The number of systems.
    pub fn len(&self) -> usize {
        self.systems.len()
    }

    /// Whether the schedule has no systems.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty()
    }

    /// The systems' names, in order.
    pub fn system_names(&self) -> impl Iterator<Item = &str> {
        self.systems.iter().map(|system| system.name())
    }

    /// Runs every system once, in order, then applies their commands in order.
    ///
    /// # Panics
    /// Panics if a system panics (its own message) or fails its runtime access
    /// check on first run.
    pub fn run(&mut self, world: &mut World) {
        for system in &mut self.systems {
            if !system.is_initialized() {
                system.initialize(world);
            }
        }
        for system in &mut self.systems {
            // SAFETY: systems run one at a time with the world borrowed mutably, so
            // nothing else borrows what a system declared.
            unsafe { system.run_unsafe(world) };
        }
        for system in &mut self.systems {
            system.apply_deferred(world);
        }
    }
}

impl core::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.system_names()).finish()
    }
}
