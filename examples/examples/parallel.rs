//! The parallel schedule on a small particle simulation, step by step:
//!
//! 1. **Building.** Systems go into six sets chained one after another
//!    (`Spawn -> Forces -> Integrate -> Sync -> Report -> Cleanup`); the two
//!    physics sets share a run condition, `not(resource_exists::<Paused>)`.
//!    `gravity` and `drag` both write `Velocity` and nothing orders them, so
//!    the build reports that one ambiguity (and runs them in insertion order:
//!    `gravity` first). Everything else is either ordered or compatible, so
//!    `cool` and `spin` (disjoint components) can run at the same time, and so
//!    can `movement` and `orient` (both only read `Velocity`). The schedule is
//!    printed as text (`describe`), as Graphviz (`to_dot`, paste it into any
//!    DOT viewer) and as its list of ambiguities.
//! 2. **Running.** A few frames, printing what each one did. `spawn_particles`
//!    queues its spawns with `Commands`; `count_before_sync`, in the same set,
//!    does not see them yet; the `ApplyDeferred` sync point applies them, so
//!    `stats` counts them; the exclusive system `recycle` (`fn(&mut World)`)
//!    then despawns the particles that fell through the floor. One frame runs
//!    with `Paused`: the physics sets are skipped, nothing moves, but
//!    spawning, stats and recycling still happen.
//! 3. **Measuring.** The same workload (two fresh, identical worlds) is timed
//!    under `ExecutorKind::SingleThreaded` and `ExecutorKind::MultiThreaded`,
//!    and the heavy `orient` closure (a 4x4 matrix inverse loop per entity) is
//!    timed through `par_iter_mut` and through a sequential `iter_mut`. The two
//!    contenders take turns frame by frame, so a busy machine skews both
//!    alike; the median and the best time of each are printed (on a shared
//!    machine the best shows what the cores can do, the median what you got). Note that
//!    `par_iter_mut` splits rows over the rayon pool under *both* executors:
//!    the executor speed-up comes from running whole systems side by side
//!    (`cool` next to `spin`, `orient` next to `movement`), the `par_iter_mut`
//!    speed-up from splitting one system's rows. On one core both are about
//!    1.0x; the example asserts no threshold, since machines differ, but it
//!    asserts that both executors (and both iteration modes) produce bit-for-bit
//!    the same world.
//!
//! Run it with `cargo run --release --example parallel`. The key facts are
//! asserted too, so the example fails loudly if the behaviour changes.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ecs::prelude::*;
use ecs::schedule::ExecutorKind;

/// Particles alive at the start.
const INITIAL_PARTICLES: usize = 10_000;
/// Particles `spawn_particles` queues every frame.
const SPAWN_PER_FRAME: usize = 100;
/// Substeps of the two sequential "medium" systems, `cool` and `spin`.
const SUBSTEPS: usize = 48;
/// Matrix inversions per entity in `orient`.
const INVERSIONS: usize = 12;
/// Frames timed per executor (after `WARM_UP` untimed ones).
const TIMED_FRAMES: usize = 20;
const WARM_UP: usize = 3;
/// Repetitions of the `orient` closure alone, per iteration mode.
const ORIENT_REPS: usize = 20;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Mass(f32);

/// Cools towards `AMBIENT` in `cool`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Temperature(f32);

/// A damped pendulum per particle, stepped in `spin`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Spin {
    angle: f32,
    rate: f32,
}

/// A 4x4 transform (row-major) that `orient` derives from the velocity.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Orientation([[f32; 4]; 4]);

/// The time step, in seconds.
#[derive(Resource)]
struct Time {
    dt: f32,
}

/// The frame number, advanced by `recycle`.
#[derive(Resource, Default)]
struct Frame(u64);

/// While present, the `Forces` and `Integrate` sets are skipped.
#[derive(Resource)]
struct Paused;

/// Entity counts around the sync point, written by three systems.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
struct Census {
    /// What `count_before_sync` saw (before the spawns are applied).
    before_sync: usize,
    /// What `stats` saw (after the sync point).
    after_sync: usize,
    /// What `recycle` despawned.
    despawned: usize,
}

/// Totals computed by `stats` after the sync point.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
struct Stats {
    mean_height: f32,
    kinetic_energy: f32,
    mean_temperature: f32,
    mean_swing: f32,
}

#[derive(SystemSet, Debug, Clone, PartialEq, Eq)]
enum Step {
    Spawn,
    Forces,
    Integrate,
    Sync,
    Report,
    Cleanup,
}

const GRAVITY: f32 = 9.81;
const AMBIENT: f32 = 20.0;

/// A deterministic pseudo-random number in `[0, 1)` from `seed`.
fn unit(seed: u64) -> f32 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0xD1B5_4A32_D192_ED03);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 32;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

/// Particle number `n`, at a height in `low..low + 100`.
fn particle(n: u64, low: f32) -> (Position, Velocity, Mass, Temperature, Spin, Orientation) {
    let r = |k: u64| unit(n * 8 + k);
    (
        Position { x: r(0) * 200.0 - 100.0, y: low + r(1) * 100.0 },
        Velocity { x: r(2) * 20.0 - 10.0, y: r(3) * 20.0 - 10.0 },
        Mass(0.5 + r(4) * 4.5),
        Temperature(100.0 + r(5) * 900.0),
        Spin { angle: r(6) * 3.0 - 1.5, rate: 0.0 },
        Orientation(IDENTITY),
    )
}

// ---------------------------------------------------------------- systems

/// `Step::Spawn`: queues `SPAWN_PER_FRAME` particles high up (applied at the sync point).
fn spawn_particles(mut commands: Commands, frame: Res<Frame>) {
    for i in 0..SPAWN_PER_FRAME as u64 {
        commands.spawn(particle(1_000_000 + frame.0 * SPAWN_PER_FRAME as u64 + i, 50.0));
    }
}

/// `Step::Spawn`: counts the particles; this frame's spawns are still queued.
fn count_before_sync(particles: Query<&Mass>, mut census: ResMut<Census>) {
    census.before_sync = particles.iter().count();
}

/// `Step::Forces`: pulls every particle down.
fn gravity(mut velocities: Query<&mut Velocity>, time: Res<Time>) {
    for mut velocity in velocities.iter_mut() {
        velocity.y -= GRAVITY * time.dt;
    }
}

/// `Step::Forces`: air drag, weaker on heavy particles. Writes `Velocity` like
/// `gravity` and is not ordered against it: the reported ambiguity.
fn drag(mut particles: Query<(&mut Velocity, &Mass)>, time: Res<Time>) {
    for (mut velocity, mass) in particles.iter_mut() {
        let keep = 1.0 - 0.5 * time.dt / mass.0;
        velocity.x *= keep;
        velocity.y *= keep;
    }
}

/// `Step::Forces`: Newton cooling with a temperature-dependent rate, in
/// `SUBSTEPS` steps per frame (sequential `iter_mut`: real work for one thread).
fn cool(mut particles: Query<(&mut Temperature, &Mass)>, time: Res<Time>) {
    let h = time.dt / SUBSTEPS as f32;
    for (mut temperature, mass) in particles.iter_mut() {
        let mut t = temperature.0;
        for _ in 0..SUBSTEPS {
            let rate = 0.8 + 0.2 * (t * 0.01).sin();
            t += h * rate * (AMBIENT - t) / mass.0;
        }
        temperature.0 = t;
    }
}

/// `Step::Forces`: a damped pendulum per particle, `SUBSTEPS` steps per frame
/// (sequential `iter_mut`; disjoint from `cool`, so the two can run together).
fn spin(mut spins: Query<&mut Spin>, time: Res<Time>) {
    let h = time.dt / SUBSTEPS as f32;
    for mut spin in spins.iter_mut() {
        let (mut angle, mut rate) = (spin.angle, spin.rate);
        for _ in 0..SUBSTEPS {
            rate -= h * (40.0 * angle.sin() + 0.3 * rate);
            angle += h * rate;
        }
        *spin = Spin { angle, rate };
    }
}

/// `Step::Integrate`: moves every particle.
fn movement(mut particles: Query<(&mut Position, &Velocity)>, time: Res<Time>) {
    for (mut position, velocity) in particles.iter_mut() {
        position.x += velocity.x * time.dt;
        position.y += velocity.y * time.dt;
    }
}

/// `Step::Integrate`: the heavy one, rows split over the rayon pool.
fn orient(mut particles: Query<(&mut Orientation, &Velocity)>) {
    particles.par_iter_mut().for_each(orient_one);
}

/// `Step::Report`: runs after the sync point, so this frame's spawns count.
fn stats(
    particles: Query<(&Position, &Velocity, &Mass, &Temperature, &Spin)>,
    mut stats: ResMut<Stats>,
    mut census: ResMut<Census>,
) {
    let (mut count, mut height, mut energy, mut heat, mut swing) = (0usize, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (position, velocity, mass, temperature, spin) in particles.iter() {
        count += 1;
        height += f64::from(position.y);
        energy += 0.5 * f64::from(mass.0) * f64::from(velocity.x * velocity.x + velocity.y * velocity.y);
        heat += f64::from(temperature.0);
        swing += f64::from(spin.angle.abs());
    }
    let n = count.max(1) as f64;
    census.after_sync = count;
    *stats = Stats {
        mean_height: (height / n) as f32,
        kinetic_energy: energy as f32,
        mean_temperature: (heat / n) as f32,
        mean_swing: (swing / n) as f32,
    };
}

/// `Step::Cleanup`, exclusive: despawns the particles below the floor and
/// advances the frame. Nothing else runs while it does.
fn recycle(world: &mut World) {
    let fallen: Vec<Entity> = world
        .query::<(Entity, &Position)>()
        .iter(world)
        .filter(|(_, position)| position.y < 0.0)
        .map(|(entity, _)| entity)
        .collect();
    for &entity in &fallen {
        assert!(world.despawn(entity));
    }
    world.resource_mut::<Census>().despawned = fallen.len();
    world.resource_mut::<Frame>().0 += 1;
}

// ------------------------------------------------------- the heavy closure

const IDENTITY: [[f32; 4]; 4] =
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// A fixed small rotation about z.
const TWIST: [[f32; 4]; 4] =
    [[0.995, -0.0998, 0.0, 0.0], [0.0998, 0.995, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// The per-entity work of `orient`: builds a scaled rotation with translation
/// from the velocity, then `INVERSIONS` times replaces it by its inverse
/// times `TWIST` (a bounded similarity transform, so the numbers stay sane).
/// Used as is by `par_iter_mut` and by `iter_mut`.
fn orient_one((mut orientation, velocity): (Mut<'_, Orientation>, &Velocity)) {
    let speed = (velocity.x * velocity.x + velocity.y * velocity.y).sqrt();
    let (sin, cos) = velocity.y.atan2(velocity.x).sin_cos();
    let scale = 1.0 + speed * 0.01;
    let mut m = [
        [cos * scale, -sin * scale, 0.0, velocity.x * 0.1],
        [sin * scale, cos * scale, 0.0, velocity.y * 0.1],
        [0.0, 0.0, scale, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    for _ in 0..INVERSIONS {
        m = multiply(&invert(&m), &TWIST);
    }
    orientation.0 = m;
}

fn multiply(a: &[[f32; 4]; 4], b: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut out = [[0.0; 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// The inverse by cofactors (the matrix is never singular here: |det| = scale^3).
fn invert(m: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let [[a00, a01, a02, a03], [a10, a11, a12, a13], [a20, a21, a22, a23], [a30, a31, a32, a33]] = *m;
    let b00 = a00 * a11 - a01 * a10;
    let b01 = a00 * a12 - a02 * a10;
    let b02 = a00 * a13 - a03 * a10;
    let b03 = a01 * a12 - a02 * a11;
    let b04 = a01 * a13 - a03 * a11;
    let b05 = a02 * a13 - a03 * a12;
    let b06 = a20 * a31 - a21 * a30;
    let b07 = a20 * a32 - a22 * a30;
    let b08 = a20 * a33 - a23 * a30;
    let b09 = a21 * a32 - a22 * a31;
    let b10 = a21 * a33 - a23 * a31;
    let b11 = a22 * a33 - a23 * a32;
    let det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
    let inv = 1.0 / det;
    [
        [
            (a11 * b11 - a12 * b10 + a13 * b09) * inv,
            (a02 * b10 - a01 * b11 - a03 * b09) * inv,
            (a31 * b05 - a32 * b04 + a33 * b03) * inv,
            (a22 * b04 - a21 * b05 - a23 * b03) * inv,
        ],
        [
            (a12 * b08 - a10 * b11 - a13 * b07) * inv,
            (a00 * b11 - a02 * b08 + a03 * b07) * inv,
            (a32 * b02 - a30 * b05 - a33 * b01) * inv,
            (a20 * b05 - a22 * b02 + a23 * b01) * inv,
        ],
        [
            (a10 * b10 - a11 * b08 + a13 * b06) * inv,
            (a01 * b08 - a00 * b10 - a03 * b06) * inv,
            (a30 * b04 - a31 * b02 + a33 * b00) * inv,
            (a21 * b02 - a20 * b04 - a23 * b00) * inv,
        ],
        [
            (a11 * b07 - a10 * b09 - a12 * b06) * inv,
            (a00 * b09 - a01 * b07 + a02 * b06) * inv,
            (a31 * b01 - a30 * b03 - a32 * b00) * inv,
            (a20 * b03 - a21 * b01 + a22 * b00) * inv,
        ],
    ]
}

// ------------------------------------------------------------- the setup

/// A world with `INITIAL_PARTICLES` particles and the resources the systems use.
fn new_world() -> World {
    let mut world = World::new();
    world.insert_resource(Time { dt: 0.05 });
    world.init_resource::<Frame>();
    world.init_resource::<Census>();
    world.init_resource::<Stats>();
    world.spawn_batch((0..INITIAL_PARTICLES as u64).map(|n| particle(n, 0.0))).for_each(drop);
    world
}

/// The schedule, systems deliberately added out of order: the sets order them.
fn new_schedule(kind: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.set_executor_kind(kind);
    // The one sync point is the explicit `ApplyDeferred` of `Step::Sync`: no
    // automatic one after `spawn_particles` (whose spawns the forces then
    // meet a frame later, as the census below checks).
    schedule.set_auto_sync(false);
    schedule.add_systems((
        recycle.in_set(Step::Cleanup),
        stats.in_set(Step::Report),
        ApplyDeferred.in_set(Step::Sync),
        (movement, orient).in_set(Step::Integrate),
        (gravity, drag, cool, spin).in_set(Step::Forces),
        (spawn_particles, count_before_sync).in_set(Step::Spawn),
    ));
    schedule
        .configure_sets((Step::Spawn, Step::Forces, Step::Integrate, Step::Sync, Step::Report, Step::Cleanup).chain());
    schedule.configure_sets((Step::Forces, Step::Integrate).run_if(not(resource_exists::<Paused>)));
    schedule
}

/// The last path segment of a type name (`parallel::gravity` -> `gravity`).
fn short(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

/// The number of particles (entities with a `Mass`).
fn particle_count(world: &mut World) -> usize {
    world.query::<&Mass>().iter(world).count()
}

/// Every particle's components as raw bits, by entity: equal snapshots mean
/// bit-for-bit equal simulations.
fn snapshot(world: &mut World) -> BTreeMap<Entity, Vec<u32>> {
    world
        .query::<(Entity, &Position, &Velocity, &Mass, &Temperature, &Spin, &Orientation)>()
        .iter(world)
        .map(|(entity, p, v, m, t, s, o)| {
            let mut bits = vec![p.x, p.y, v.x, v.y, m.0, t.0, s.angle, s.rate];
            bits.extend(o.0.iter().flatten());
            (entity, bits.into_iter().map(f32::to_bits).collect())
        })
        .collect()
}

fn positions(world: &mut World) -> BTreeMap<Entity, Position> {
    world.query::<(Entity, &Position)>().iter(world).map(|(entity, position)| (entity, *position)).collect()
}

/// Runs one frame and prints (and checks) what it did.
fn frame(schedule: &mut Schedule, world: &mut World) {
    let frame = world.resource::<Frame>().0;
    let alive = particle_count(world);
    schedule.run(world);
    let census = world.resource::<Census>().clone();
    let stats = world.resource::<Stats>().clone();
    let after = particle_count(world);
    println!(
        "  frame {frame}: {alive} alive | count_before_sync saw {} | sync point +{SPAWN_PER_FRAME} | stats saw {} | \
         recycle despawned {} | {after} alive",
        census.before_sync, census.after_sync, census.despawned
    );
    println!(
        "           mean height {:.3} m, kinetic energy {:.1} J, mean temperature {:.2} C, mean swing {:.4} rad",
        stats.mean_height, stats.kinetic_energy, stats.mean_temperature, stats.mean_swing
    );
    assert_eq!(census.before_sync, alive, "queued spawns are invisible before the sync point");
    assert_eq!(census.after_sync, alive + SPAWN_PER_FRAME, "the sync point applied the spawns before stats");
    assert_eq!(after, census.after_sync - census.despawned);
    assert_eq!(world.resource::<Frame>().0, frame + 1);
}

/// The median and the best (smallest) of some timings.
#[derive(Clone, Copy)]
struct Timing {
    median: Duration,
    best: Duration,
}

impl Timing {
    fn of(mut times: Vec<Duration>) -> Timing {
        times.sort_unstable();
        Timing { median: times[times.len() / 2], best: times[0] }
    }
}

/// Prints two contenders' timings and the speed-up of the second over the first.
fn compare(what: &str, unit: &str, (first, a): (&str, Timing), (second, b): (&str, Timing)) {
    let ms = |duration: Duration| format!("{:.2} ms", duration.as_secs_f64() * 1e3);
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!("  {what}, median (best) per {unit}:");
    println!("    {first:<16} {} ({})", ms(a.median), ms(a.best));
    println!("    {second:<16} {} ({})", ms(b.median), ms(b.best));
    println!("    speed-up         {:.2}x ({:.2}x)", ratio(a.median, b.median), ratio(a.best, b.best));
}

/// Runs the same frames on two fresh worlds, one schedule per executor kind,
/// alternating frame by frame (so background load hits both alike): `WARM_UP`
/// untimed frames, then `TIMED_FRAMES` timed ones. Returns each kind's frame
/// timings and final world.
fn time_executors() -> [(Timing, World); 2] {
    let kinds = [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded];
    let mut worlds = kinds.map(|_| new_world());
    let mut schedules = kinds.map(new_schedule);
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for frame in 0..WARM_UP + TIMED_FRAMES {
        for ((schedule, world), times) in schedules.iter_mut().zip(&mut worlds).zip(&mut times) {
            let start = Instant::now();
            schedule.run(world);
            if frame >= WARM_UP {
                times.push(start.elapsed());
            }
        }
    }
    let [single_world, multi_world] = worlds;
    let [single_times, multi_times] = times;
    [(Timing::of(single_times), single_world), (Timing::of(multi_times), multi_world)]
}

/// Applies `orient_one` to every particle of two fresh worlds, through
/// `iter_mut` on one and `par_iter_mut` on the other, alternating pass by pass
/// (one untimed pass, then `ORIENT_REPS` timed ones). Returns each mode's
/// pass timings and final world.
fn time_orient() -> [(Timing, World); 2] {
    let mut worlds = [new_world(), new_world()];
    let mut queries = worlds.each_mut().map(|world| world.query::<(&mut Orientation, &Velocity)>());
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for pass in 0..=ORIENT_REPS {
        for (parallel, ((query, world), times)) in queries.iter_mut().zip(&mut worlds).zip(&mut times).enumerate() {
            let start = Instant::now();
            if parallel == 1 {
                query.par_iter_mut(world).for_each(orient_one);
            } else {
                query.iter_mut(world).for_each(orient_one);
            }
            if pass > 0 {
                times.push(start.elapsed());
            }
        }
    }
    let [sequential_world, parallel_world] = worlds;
    let [sequential_times, parallel_times] = times;
    [(Timing::of(sequential_times), sequential_world), (Timing::of(parallel_times), parallel_world)]
}

fn main() {
    println!("== 1. Building the schedule");
    let mut world = new_world();
    let mut schedule = new_schedule(ExecutorKind::MultiThreaded);
    schedule.initialize(&mut world).expect("the schedule builds");

    println!("-- describe(): systems in execution order, what each waits for, conditions, ambiguities");
    print!("{}", schedule.describe());
    println!("-- to_dot(): Graphviz (solid: constraints; dashed red: conflict edges; dotted: set membership)");
    print!("{}", schedule.to_dot());

    println!("-- ambiguities(): conflicting pairs that nothing orders (run in insertion order)");
    let ambiguities = schedule.ambiguities();
    for ambiguity in ambiguities {
        println!("  {ambiguity}");
    }
    assert_eq!(ambiguities.len(), 1, "only gravity and drag are left unordered");
    assert_eq!((short(&ambiguities[0].first), short(&ambiguities[0].second)), ("gravity", "drag"));
    assert!(ambiguities[0].conflicts.iter().all(|conflict| conflict.contains("Velocity")));

    let order: Vec<&str> = schedule.execution_order().into_iter().map(short).collect();
    println!("-- execution_order(): {}", order.join(" -> "));
    let at = |name: &str| order.iter().position(|&system| system == name).unwrap_or_else(|| panic!("{name} missing"));
    assert_eq!(order.len(), 11);
    for (earlier, later) in [
        ("spawn_particles", "apply_deferred"),
        ("count_before_sync", "gravity"),
        ("gravity", "drag"), // the ambiguity, decided by insertion order
        ("drag", "movement"),
        ("cool", "orient"),
        ("spin", "movement"),
        ("movement", "apply_deferred"),
        ("orient", "apply_deferred"),
        ("apply_deferred", "stats"),
        ("stats", "recycle"),
    ] {
        assert!(at(earlier) < at(later), "{earlier} should run before {later}");
    }
    assert_eq!(order.last(), Some(&"recycle"));
    let describe = schedule.describe();
    assert!(describe.contains("recycle <exclusive>"));
    assert!(describe.contains("if not(") && describe.contains("resource_exists"));
    let drag_line = describe.lines().find(|line| line.contains(" drag (")).expect("drag is described");
    assert!(drag_line.contains("gravity [conflict]"), "drag waits for gravity because of the conflict");

    println!();
    println!("== 2. Running frames (multi-threaded executor)");
    for _ in 0..3 {
        frame(&mut schedule, &mut world);
    }
    println!("  insert_resource(Paused): Forces and Integrate are skipped, so nothing moves");
    world.insert_resource(Paused);
    let before = positions(&mut world);
    let energy_before = world.resource::<Stats>().kinetic_energy;
    frame(&mut schedule, &mut world);
    let after = positions(&mut world);
    let unmoved = before.iter().filter(|(entity, position)| after.get(entity) == Some(position)).count();
    println!("  {unmoved} of {} particles kept their position; the {SPAWN_PER_FRAME} new ones joined", before.len());
    assert_eq!(unmoved, before.len());
    assert_eq!(world.resource::<Census>().despawned, 0, "nothing moved, so nothing fell");
    assert!(world.resource::<Stats>().kinetic_energy >= energy_before, "only spawns added energy");
    world.remove_resource::<Paused>();
    println!("  remove_resource::<Paused>(): moving again");
    frame(&mut schedule, &mut world);
    world.check_invariants();

    println!();
    println!("== 3. Measuring ({INITIAL_PARTICLES} particles, {TIMED_FRAMES} timed frames after {WARM_UP} warm-up)");
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("  available_parallelism: {cores}");
    println!("  (each pair of contenders takes turns on fresh, identical worlds)");
    let [(single, mut single_world), (multi, mut multi_world)] = time_executors();
    compare("whole schedule", "frame", ("SingleThreaded", single), ("MultiThreaded", multi));
    let (single_snapshot, multi_snapshot) = (snapshot(&mut single_world), snapshot(&mut multi_world));
    println!(
        "  same world after {} frames: {} particles each, bit-for-bit equal: {}",
        WARM_UP + TIMED_FRAMES,
        single_snapshot.len(),
        single_snapshot == multi_snapshot
    );
    assert_eq!(single_snapshot, multi_snapshot, "both executors must simulate the same thing");
    assert_eq!(single_world.resource::<Stats>(), multi_world.resource::<Stats>());
    assert_eq!(single_world.resource::<Census>(), multi_world.resource::<Census>());

    let [(sequential, mut sequential_world), (parallel, mut parallel_world)] = time_orient();
    compare("orient closure alone", "pass", ("iter_mut", sequential), ("par_iter_mut", parallel));
    let (sequential_snapshot, parallel_snapshot) = (snapshot(&mut sequential_world), snapshot(&mut parallel_world));
    assert_eq!(sequential_snapshot, parallel_snapshot, "par_iter_mut must visit every row exactly once");
    assert!(parallel_snapshot.values().all(|bits| bits.iter().all(|&bits| f32::from_bits(bits).is_finite())));
    println!("  iter_mut and par_iter_mut results bit-for-bit equal: true");
    println!("done");
}
