//! The derive's `ParamSet` relabel re-types a set's members: calling it from
//! safe code (to turn a declared read into an undeclared write) is refused.
use ecs::prelude::*;
use ecs::system::{__FieldItem, __RelabelParamSet};

#[derive(Resource)]
struct Score(u32);
#[derive(Resource)]
struct Other(u32);

fn sneaky(set: ParamSet<(Res<Score>,)>) {
    let mut other: ParamSet<(ResMut<Other>,)> = __FieldItem::new(set).__relabel();
    other.p0().0 = 99;
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    world.insert_resource(Other(0));
    world.run_system_once(sneaky);
}
