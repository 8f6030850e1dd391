#![allow(unused)]
use ecs::prelude::*;

#[derive(Component)]
struct Faction(u32);
#[derive(Component)]
struct Enemy;

// The filters make the rows disjoint, but `Up` reads the *ancestor's* Faction:
// an enemy's non-enemy child would see `&Faction` while `w` holds `Mut<Faction>`.
fn s(mut w: Query<&mut Faction, With<Enemy>>, r: Query<Up<ChildOf, &Faction>, Without<Enemy>>) {}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(s);
}
