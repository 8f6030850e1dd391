//! Typed query caches keep the archetypes whose tables have rows apart from
//! the empty ones (`QueryState::archetypes_with_rows`), updated from the
//! world's emptiness log: a long-lived query must agree with a fresh one after
//! any sequence of moves, and never list an empty table.

use ecs::prelude::*;
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct C;
#[derive(Relationship)]
struct Likes;

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8),
    Insert(usize, u8),
    Remove(usize, u8),
    Like(usize, usize),
    Despawn(usize),
    Collect,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..8).prop_map(Op::Spawn),
        (0usize..64, 0u8..3).prop_map(|(e, c)| Op::Insert(e, c)),
        (0usize..64, 0u8..3).prop_map(|(e, c)| Op::Remove(e, c)),
        (0usize..64, 0usize..64).prop_map(|(e, t)| Op::Like(e, t)),
        (0usize..64).prop_map(Op::Despawn),
        Just(Op::Collect),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn long_lived_queries_agree_with_fresh_ones(ops in proptest::collection::vec(op(), 1..80)) {
        let mut world = World::new();
        let mut entities: Vec<Entity> = Vec::new();
        let mut with_a = world.query::<(Entity, &A)>();
        let mut with_b_not_c = world.query_filtered::<(Entity, &B), Without<C>>();
        let mut likes = world.query::<(Entity, Pair<Likes>)>();
        for op in ops {
            match op {
                Op::Spawn(mask) => {
                    let mut e = world.spawn_empty();
                    if mask & 1 != 0 { e.insert(A(1)); }
                    if mask & 2 != 0 { e.insert(B(2)); }
                    if mask & 4 != 0 { e.insert(C); }
                    entities.push(e.id());
                }
                Op::Insert(i, c) | Op::Remove(i, c) if entities.is_empty() => { let _ = (i, c); }
                Op::Insert(i, c) => {
                    let e = entities[i % entities.len()];
                    if world.is_alive(e) {
                        match c { 0 => { world.entity_mut(e).insert(A(3)); } 1 => { world.entity_mut(e).insert(B(3)); } _ => { world.entity_mut(e).insert(C); } }
                    }
                }
                Op::Remove(i, c) => {
                    let e = entities[i % entities.len()];
                    if world.is_alive(e) {
                        match c { 0 => { world.entity_mut(e).remove::<A>(); } 1 => { world.entity_mut(e).remove::<B>(); } _ => { world.entity_mut(e).remove::<C>(); } }
                    }
                }
                Op::Like(i, t) => {
                    if !entities.is_empty() {
                        let (e, t) = (entities[i % entities.len()], entities[t % entities.len()]);
                        if world.is_alive(e) && world.is_alive(t) { world.entity_mut(e).add_pair::<Likes>(t); }
                    }
                }
                Op::Despawn(i) => {
                    if !entities.is_empty() { world.despawn(entities[i % entities.len()]); }
                }
                Op::Collect => { world.collect_garbage(GcConfig { empty_for: 1, max_time: None }); }
            }
            let mut got: Vec<Entity> = with_a.iter(&world).map(|(e, _)| e).collect();
            let mut want: Vec<Entity> = world.query::<(Entity, &A)>().iter(&world).map(|(e, _)| e).collect();
            got.sort(); want.sort();
            prop_assert_eq!(got, want);
            let mut got: Vec<Entity> = with_b_not_c.iter(&world).map(|(e, _)| e).collect();
            let mut want: Vec<Entity> =
                world.query_filtered::<(Entity, &B), Without<C>>().iter(&world).map(|(e, _)| e).collect();
            got.sort(); want.sort();
            prop_assert_eq!(got, want);
            let mut got: Vec<(Entity, Entity)> = likes.iter(&world).collect();
            let mut want: Vec<(Entity, Entity)> = world.query::<(Entity, Pair<Likes>)>().iter(&world).collect();
            got.sort(); want.sort();
            prop_assert_eq!(got, want);
            for archetype in with_a.archetypes_with_rows().chain(likes.archetypes_with_rows()) {
                prop_assert!(!world.archetypes()[archetype].is_empty(), "an empty table is listed for iteration");
            }
            let listed = with_a.archetypes_with_rows().count();
            let non_empty = with_a.matched_archetypes().filter(|&a| !world.archetypes()[a].is_empty()).count();
            prop_assert_eq!(listed, non_empty);
        }
    }
}
