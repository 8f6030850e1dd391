//! Memory per entity: peak resident memory for 1,000,000 entities with two
//! components (`Position`, `Velocity`: 12 bytes each, 24 bytes of payload),
//! for `ecs`, `ecs_untracked` (`ecs` with the two components declared
//! `#[component(change_detection = false)]`: no tick columns), `bevy_ecs` and
//! `hecs` (issue 7's memory target: no more than either peer).
//!
//! Each ECS is measured in a fresh child process (so one allocator's peak
//! does not hide another's): the child reads its resident set (`VmRSS`)
//! before building the world, spawns the entities with `spawn_batch`, touches
//! every component through a query (so every page is resident), then reads its
//! peak resident set (`VmHWM`). Bytes per entity = (peak - before) / count. The
//! peak includes transient copies made while storage grows, which is what a
//! program pays.
//!
//! Run: `cargo run --release -p ecs-benches --example memory` (Linux: it reads
//! `/proc/self/status`).

use std::process::Command;

use ecs_benches::{Position, Vec3, Velocity};

const COUNT: usize = 1_000_000;

/// A `/proc/self/status` field in KiB (`VmRSS`, `VmHWM`).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status is readable (Linux)");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

fn bundle(i: usize) -> (Position, Velocity) {
    (Position(Vec3::new(i as f32, 0.0, 0.0)), Velocity(Vec3::new(1.0, 0.0, 0.0)))
}

/// Builds the world for `side`, checks it, and returns a value derived from it
/// (so nothing is optimized away) while the world is still alive.
fn build(side: &str) -> f32 {
    match side {
        "ecs" => {
            let mut world = ecs::world::World::new();
            world.spawn_batch((0..COUNT).map(bundle)).for_each(|_| ());
            let mut query = world.query::<(&mut Position, &Velocity)>();
            query.iter_mut(&mut world).for_each(|(mut p, v)| p.0 += v.0);
            query.iter(&world).map(|(p, _)| p.0.0[0]).sum()
        }
        "ecs_untracked" => {
            use ecs_benches::untracked::{Position, Velocity};
            let mut world = ecs::world::World::new();
            world
                .spawn_batch((0..COUNT).map(|i| {
                    let (position, velocity) = bundle(i);
                    (Position(position.0), Velocity(velocity.0))
                }))
                .for_each(|_| ());
            let mut query = world.query::<(&mut Position, &Velocity)>();
            query.iter_mut(&mut world).for_each(|(mut p, v)| p.0 += v.0);
            query.iter(&world).map(|(p, _)| p.0.0[0]).sum()
        }
        "hecs" => {
            let mut world = hecs::World::new();
            world.spawn_batch((0..COUNT).map(bundle)).for_each(|_| ());
            world.query_mut::<(&mut Position, &Velocity)>().into_iter().for_each(|(p, v)| p.0 += v.0);
            world.query_mut::<&Position>().into_iter().map(|p| p.0.0[0]).sum()
        }
        "bevy_ecs" => bevy_side::build(),
        other => panic!("unknown side `{other}`: ecs, ecs_untracked, bevy_ecs or hecs"),
    }
}

mod bevy_side {
    use bevy_ecs::prelude::*;

    use super::COUNT;

    #[derive(Component)]
    struct Position([f32; 3]);
    #[derive(Component)]
    struct Velocity([f32; 3]);

    pub fn build() -> f32 {
        let mut world = World::new();
        world.spawn_batch((0..COUNT).map(|i| (Position([i as f32, 0.0, 0.0]), Velocity([1.0, 0.0, 0.0]))));
        let mut query = world.query::<(&mut Position, &Velocity)>();
        query.iter_mut(&mut world).for_each(|(mut p, v)| p.0[0] += v.0[0]);
        world.query::<&Position>().iter(&world).map(|p| p.0[0]).sum()
    }
}

fn main() {
    if let Some(side) = std::env::args().nth(1) {
        let before = status_kib("VmRSS");
        let checksum = build(&side);
        let peak = status_kib("VmHWM");
        assert!(checksum > 0.0);
        println!("{side} {before} {peak}");
        return;
    }
    let exe = std::env::current_exe().expect("the example knows its path");
    println!("peak resident memory, {COUNT} entities x (Position, Velocity) = 24 bytes of payload each");
    println!("{:<10} {:>12} {:>16}", "ECS", "peak MiB", "bytes/entity");
    for side in ["ecs", "ecs_untracked", "bevy_ecs", "hecs"] {
        let output = Command::new(&exe).arg(side).output().expect("the child runs");
        assert!(output.status.success(), "{side}: {}", String::from_utf8_lossy(&output.stderr));
        let line = String::from_utf8(output.stdout).expect("utf-8");
        let fields: Vec<u64> = line.split_whitespace().skip(1).map(|n| n.parse().expect("a number")).collect();
        let grown = (fields[1] - fields[0]) * 1024;
        println!("{side:<10} {:>12.1} {:>16.1}", grown as f64 / (1024.0 * 1024.0), grown as f64 / COUNT as f64);
    }
}
