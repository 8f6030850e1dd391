#![allow(unused)]
use ecs::prelude::*;

#[derive(Message)]
struct Scored(u32);

// A writer borrows Messages<Scored> mutably, a reader shares it: as ResMut + Res.
fn s(mut w: MessageWriter<Scored>, mut r: MessageReader<Scored>) {}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(s);
}
