//! Names written in place (`Mut<Name>`) and the name index: the loops a
//! review found quadratic (each `Mut<Name>` hand-out made the next structural
//! change rebuild the whole index; each lookup after a `Query<&mut Name>` pass
//! scanned every name).
//!
//! * `get_mut_then_insert`: 2,000 steps over 20,000 named entities, each a
//!   `get_mut::<Name>` (read only) then an insert or remove of a tag; beside
//!   it, the same loop through `get_mut::<Hp>`.
//! * `lookups_after_a_query_pass`: one `Query<&mut Name>` pass over 20,000
//!   names, then 500 lookups; beside it, 500 lookups with a clean index.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs::prelude::*;

#[derive(Component)]
struct Hp(u32);

#[derive(Component)]
struct Tag;

/// How many named entities each world holds.
const NAMED: usize = 20_000;

fn named_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = (0..NAMED).map(|i| world.spawn((Name::new(format!("n{i}")), Hp(0))).id()).collect();
    (world, entities)
}

fn churn(world: &mut World, entities: &[Entity], through_name: bool) {
    for (step, &e) in entities.iter().take(2_000).enumerate() {
        if through_name {
            black_box(world.get_mut::<Name>(e).unwrap().as_str().len());
        } else {
            world.get_mut::<Hp>(e).unwrap().0 += 1;
        }
        if step % 2 == 0 {
            world.insert(e, Tag);
        } else {
            world.remove::<Tag>(e);
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("names");
    let (mut world, entities) = named_world();
    group.bench_function("get_mut_then_insert/name", |b| b.iter(|| churn(&mut world, &entities, true)));
    group.bench_function("get_mut_then_insert/hp", |b| b.iter(|| churn(&mut world, &entities, false)));
    let (mut world, _) = named_world();
    group.bench_function("lookups/clean", |b| {
        b.iter(|| (0..500).filter(|i| world.lookup(&format!("n{i}")).is_some()).count())
    });
    let mut names = world.query::<&mut Name>();
    group.bench_function("lookups/after_a_query_pass", |b| {
        b.iter(|| {
            black_box(names.iter_mut(&mut world).count());
            (0..500).filter(|i| world.lookup(&format!("n{i}")).is_some()).count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
