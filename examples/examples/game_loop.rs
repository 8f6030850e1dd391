//! The game loop a Bevy user writes in the first hour, as a tiny space game
//! that prints one line per frame:
//!
//! * a ship with two turrets, spawned with `with_children`;
//! * a spawner system that creates an asteroid every frame with `Commands`,
//!   chained before the turrets, so the automatic sync point between them makes
//!   the new asteroid a target in the same frame;
//! * turrets that destroy asteroids and report each kill as a `Destroyed`
//!   message (`MessageWriter`), a scorer that reads them (`MessageReader`);
//! * a run condition (`on_message::<Destroyed>`) on the kill log;
//! * a one-shot `reset` system, registered with `register_system` and run from
//!   a system through `Commands::run_system` when the score passes a threshold;
//! * `world.update_messages()` once per frame.
//!
//! Run it with `cargo run --release --example game_loop`. It asserts the final
//! score, so it fails loudly if the behaviour changes.

use ecs::prelude::*;

#[derive(Component)]
struct Ship;

#[derive(Component)]
struct Turret {
    damage: u32,
}

#[derive(Component)]
struct Asteroid {
    hp: u32,
}

#[derive(Message)]
struct Destroyed {
    points: u32,
}

#[derive(Resource, Default)]
struct Frame(u32);

#[derive(Resource, Default)]
struct Score {
    points: u32,
    resets: u32,
}

/// The one-shot reset system's id, so a regular system can run it.
#[derive(Resource)]
struct ResetSystem(SystemId);

/// Every frame, one asteroid with a little more armour than the last.
fn spawn_asteroid(mut commands: Commands, frame: Res<Frame>) {
    commands.spawn(Asteroid { hp: 1 + frame.0 % 4 });
}

/// Each turret hits the asteroid with the least hp left; destroyed asteroids
/// are despawned and reported.
fn fire(
    turrets: Query<&Turret>,
    mut asteroids: Query<(Entity, &mut Asteroid)>,
    mut destroyed: MessageWriter<Destroyed>,
    mut commands: Commands,
) {
    for turret in &turrets {
        let target = asteroids.iter_mut().filter(|(_, asteroid)| asteroid.hp > 0).min_by_key(|(_, a)| a.hp);
        let Some((entity, mut asteroid)) = target else { return };
        asteroid.hp = asteroid.hp.saturating_sub(turret.damage);
        if asteroid.hp == 0 {
            destroyed.write(Destroyed { points: 10 });
            commands.entity(entity).despawn();
        }
    }
}

/// Adds up the kills of this frame.
fn tally(mut destroyed: MessageReader<Destroyed>, mut score: ResMut<Score>) {
    for kill in destroyed.read() {
        score.points += kill.points;
    }
}

/// Runs only in frames with kills (`on_message`).
fn log_kills(frame: Res<Frame>) {
    println!("  frame {:>2}: asteroid destroyed", frame.0);
}

/// Past 50 points, the one-shot reset runs (through commands).
fn maybe_reset(score: Res<Score>, reset: Res<ResetSystem>, mut commands: Commands) {
    if score.points >= 50 {
        commands.run_system(reset.0);
    }
}

/// The one-shot system: clears the field and banks a reset.
fn reset(mut score: ResMut<Score>, asteroids: Query<Entity, With<Asteroid>>, mut commands: Commands) {
    score.points = 0;
    score.resets += 1;
    for asteroid in &asteroids {
        commands.entity(asteroid).despawn();
    }
}

fn report(frame: Res<Frame>, score: Res<Score>, asteroids: Query<&Asteroid>) {
    println!(
        "frame {:>2}: score {:>3}, resets {}, asteroids left {}",
        frame.0,
        score.points,
        score.resets,
        asteroids.iter().count()
    );
}

fn main() {
    let mut world = World::new();
    world.init_resource::<Frame>();
    world.init_resource::<Score>();
    world.add_message::<Destroyed>();
    let reset = world.register_system(reset);
    world.insert_resource(ResetSystem(reset));

    let ship = world
        .spawn(Ship)
        .with_children(|ship| {
            ship.spawn(Turret { damage: 1 });
            ship.spawn(Turret { damage: 2 });
        })
        .id();
    println!("A ship with {} turrets; an asteroid arrives every frame.", world.children(ship).count());

    let mut schedule = Schedule::new();
    schedule.add_systems((
        (spawn_asteroid, fire, tally, maybe_reset, report).chain(),
        log_kills.after(fire).before(tally).run_if(on_message::<Destroyed>),
    ));

    for _ in 0..20 {
        schedule.run(&mut world);
        world.update_messages();
        world.resource_mut::<Frame>().0 += 1;
    }

    let score = world.resource::<Score>();
    println!("\nfinal: {} points after {} resets", score.points, score.resets);
    assert_eq!((score.points, score.resets), (40, 3), "the game is deterministic");
}
