//! A derived param may use `for<'w>`/`for<'s>` binders and higher-ranked
//! types in its fields: the derive renames only the struct's own lifetimes.
use std::marker::PhantomData;
use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

#[derive(Resource)]
struct Count(usize);

#[derive(SystemParam)]
struct BinderNamedW {
    marker: PhantomData<for<'w> fn(&'w u8) -> &'w u8>,
}

#[derive(SystemParam)]
struct BinderNamedS<'w> {
    count: Res<'w, Count>,
    marker: PhantomData<for<'s> fn(&'s Hp) -> &'s u32>,
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Count(1));
    world.run_system_once(|param: BinderNamedW| {
        let _ = param.marker;
    });
    let count = world.run_system_once(|param: BinderNamedS| param.count.0);
    assert_eq!(count, 1);
}
