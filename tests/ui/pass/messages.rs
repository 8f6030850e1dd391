#![allow(unused)]
use ecs::prelude::*;

#[derive(Message)]
struct Scored(u32);
#[derive(Message)]
struct Damage(u32);

// Two readers of one type share it; a writer of another type is independent.
#[system]
fn relay(mut a: MessageReader<Scored>, mut b: MessageReader<Scored>, mut damage: MessageWriter<Damage>) {
    for scored in a.read() {
        damage.write(Damage(scored.0));
    }
    assert_eq!(b.read().count(), 1);
}

fn main() {
    let mut world = World::new();
    world.add_message::<Scored>();
    world.write_message(Scored(3));
    world.run_system_once(relay);
    assert_eq!(world.resource::<Messages<Damage>>().len(), 1);
}
