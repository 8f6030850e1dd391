//! The game-loop parameters and query data: `Single` (skipping), `ParamSet`
//! (aliasing members used in turn, still checked against other params),
//! `RemovedComponents` (remove and despawn, read once per system), `Ref`,
//! `Mut::set_if_neq`, `get_many`/`get_many_mut` errors, `iter_combinations`
//! and `for x in &query` / `for x in &mut query`.

use std::collections::BTreeSet;

use ecs::query::QueryError;
use ecs::system::RunSystemError;
use ecs_tests::{Enemy, Position, Velocity};

use ecs::prelude::*;

#[derive(Component)]
struct Player;

#[derive(Resource, Default, Debug)]
struct Log(Vec<String>);

fn move_player(mut player: Single<&mut Position, With<Player>>, mut log: ResMut<Log>) {
    player.x += 1.0;
    log.0.push(format!("moved to {}", player.x));
}

#[test]
fn single_skips_the_system_unless_exactly_one_entity_matches() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::new();
    schedule.add_systems(move_player);
    schedule.run(&mut world);
    assert!(world.resource::<Log>().0.is_empty(), "no player: skipped");
    let player = world.spawn((Player, Position::default())).id();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["moved to 1"]);
    world.spawn((Player, Position::default()));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0.len(), 1, "two players: skipped");
    assert_eq!(world.get::<Position>(player).unwrap().x, 1.0);

    // As a one-shot system: an error, not a panic.
    let id = world.register_system(move_player);
    let error = world.run_system(id).unwrap_err();
    assert_eq!(error, RunSystemError::Skipped { index: id.index(), generation: id.generation() });
    assert!(error.to_string().contains("skipped"));
}

#[test]
fn option_single_always_runs() {
    fn count(player: Option<Single<&Position, With<Player>>>, mut log: ResMut<Log>) {
        log.0.push(player.map_or("none".to_owned(), |p| p.x.to_string()));
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count);
    schedule.run(&mut world);
    world.spawn((Player, Position { x: 3.0, y: 0.0 }));
    schedule.run(&mut world);
    world.spawn((Player, Position::default()));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["none", "3", "none"]);
}

#[test]
fn a_single_in_a_run_system_once_panics_with_a_clear_message() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let message = ecs_tests::panic_message(|| world.run_system_once(move_player));
    assert!(message.contains("cannot run") && message.contains("Single"), "{message}");
}

#[test]
fn param_set_members_alias_and_are_used_in_turn() {
    #[allow(clippy::type_complexity)] // four members, as users write them
    fn both(mut set: ParamSet<(Query<&mut Position>, Query<&Position, With<Enemy>>, ResMut<Log>, Res<Log>)>) {
        let enemies: f32 = set.p1().iter().map(|p| p.x).sum();
        for mut position in set.p0().iter_mut() {
            position.y = enemies;
        }
        set.p2().0.push("written".to_owned());
        assert_eq!(set.p3().0.len(), 1);
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    world.spawn((Position { x: 2.0, y: 0.0 }, Enemy));
    let friend = world.spawn(Position::default()).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(both);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(friend).unwrap().y, 2.0);
}

#[test]
fn param_set_members_still_conflict_with_other_systems() {
    fn set_system(mut set: ParamSet<(Query<&mut Position>, Query<&Velocity>)>) {
        set.p0().iter_mut().for_each(|mut p| p.x += 1.0);
    }
    fn reader(q: Query<&Position>) {
        q.iter().for_each(|p| assert!(p.x.is_finite()));
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((set_system, reader));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1);
}

#[test]
fn removed_components_reports_removals_and_despawns_once_per_system() {
    #[derive(Resource, Default)]
    struct SeenA(Vec<Entity>);
    #[derive(Resource, Default)]
    struct SeenB(Vec<Entity>);
    fn a(mut removed: RemovedComponents<Velocity>, mut seen: ResMut<SeenA>) {
        seen.0.extend(removed.read());
    }
    fn b(mut removed: RemovedComponents<Velocity>, mut seen: ResMut<SeenB>) {
        seen.0.extend(removed.read());
    }
    let mut world = World::new();
    world.init_resource::<SeenA>();
    world.init_resource::<SeenB>();
    let mut schedule = Schedule::new();
    schedule.add_systems((a, b));
    schedule.run(&mut world);
    let e1 = world.spawn((Position::default(), Velocity::default())).id();
    let e2 = world.spawn(Velocity::default()).id();
    let e3 = world.spawn(Velocity::default()).id();
    world.remove::<Velocity>(e1);
    world.despawn(e2);
    world.entity_mut(e3).insert(Position::default()); // a move keeps Velocity
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![e1, e2]);
    assert_eq!(world.resource::<SeenB>().0, vec![e1, e2]);
    // Kept however many updates pass until each reader ran (API.md: "since
    // this system last ran"), unlike a plain message's two updates.
    world.despawn(e3);
    world.update_messages();
    world.update_messages();
    world.update_messages();
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenA>().0, vec![e1, e2, e3], "the removal of e3 is kept until read");
    assert_eq!(world.resource::<SeenB>().0, vec![e1, e2, e3]);
}

#[test]
fn ref_reports_added_and_changed_since_the_last_run() {
    #[derive(Resource, Default)]
    struct Flags(Vec<(bool, bool)>);
    fn watch(q: Query<Ref<Position>>, mut flags: ResMut<Flags>) {
        for position in &q {
            flags.0.push((position.is_added(), position.is_changed()));
        }
    }
    let mut world = World::new();
    world.init_resource::<Flags>();
    let e = world.spawn(Position::default()).id();
    let mut schedule = Schedule::new();
    schedule.add_systems(watch);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<Position>(e).unwrap().x = 1.0;
    schedule.run(&mut world);
    assert!(!world.get_mut::<Position>(e).unwrap().set_if_neq(Position { x: 1.0, y: 0.0 }));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Flags>().0, vec![(true, true), (false, false), (false, true), (false, false)]);
}

#[test]
fn get_many_errors_name_the_entity() {
    let mut world = World::new();
    let a = world.spawn(Position::default()).id();
    let b = world.spawn(Position::default()).id();
    let tag_only = world.spawn(Enemy).id();
    let dead = world.spawn(Position::default()).id();
    world.despawn(dead);
    let mut q = world.query::<&mut Position>();
    assert!(q.get_many_mut(&mut world, [a, b]).is_ok());
    assert_eq!(q.get_many_mut(&mut world, [a, a]).err(), Some(QueryError::AliasedMutability(a)));
    assert_eq!(q.get_many_mut(&mut world, [a, dead]).err(), Some(QueryError::NoSuchEntity(dead)));
    assert_eq!(q.get_many(&world, [tag_only, a]).err(), Some(QueryError::QueryDoesNotMatch(tag_only)));
    assert_eq!(q.get_many(&world, [b, b]).err(), Some(QueryError::AliasedMutability(b)));
    assert!(QueryError::AliasedMutability(a).to_string().contains("more than once"));
}

#[test]
fn combinations_visit_every_unordered_tuple_once() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..6).map(|i| world.spawn(Position { x: i as f32, y: 0.0 }).id()).collect();
    world.spawn(Enemy); // not matched
    let mut q = world.query::<(Entity, &Position)>();
    let triples: BTreeSet<[u32; 3]> = q
        .iter_combinations::<3>(&world)
        .map(|items| {
            let mut ids = items.map(|(e, _)| e.index());
            ids.sort_unstable();
            ids
        })
        .collect();
    assert_eq!(triples.len(), 20, "6 choose 3");
    assert_eq!(q.iter_combinations::<7>(&world).count(), 0);
    assert_eq!(q.iter_combinations::<0>(&world).count(), 0);
    let mut q = world.query::<&mut Position>();
    let mut pairs = q.iter_combinations_mut::<2>(&mut world);
    while let Some([mut a, mut b]) = pairs.fetch_next() {
        a.y += 1.0;
        b.y += 1.0;
    }
    for e in entities {
        assert_eq!(world.get::<Position>(e).unwrap().y, 5.0);
    }
}

#[test]
fn for_loops_over_a_system_query() {
    fn double(mut q: Query<&mut Position>) {
        for mut position in &mut q {
            position.x *= 2.0;
        }
        let mut total = 0.0;
        for position in &q {
            total += position.x;
        }
        assert_eq!(total, 6.0);
    }
    let mut world = World::new();
    world.spawn(Position { x: 1.0, y: 0.0 });
    world.spawn(Position { x: 2.0, y: 0.0 });
    world.run_system_once(double);
}

#[test]
fn commands_in_a_param_set_apply_with_the_system() {
    #[derive(Component)]
    struct Level(u32);
    fn grow(mut set: ParamSet<(Commands, Query<&mut Level>)>) {
        for mut level in set.p1().iter_mut() {
            level.0 += 1;
        }
        set.p0().spawn(Level(10));
    }
    fn levels(world: &mut World) -> Vec<u32> {
        let mut levels: Vec<u32> = world.query::<&Level>().iter(world).map(|level| level.0).collect();
        levels.sort_unstable();
        levels
    }
    let mut world = World::new();
    world.spawn(Level(1));
    let mut schedule = Schedule::new();
    schedule.add_systems(grow);
    schedule.run(&mut world);
    assert_eq!(levels(&mut world), [2, 10]);
    world.run_system_once(grow);
    assert_eq!(levels(&mut world), [3, 10, 11]);
}

/// A derived parameter with a `ParamSet` field whose members name the
/// struct's lifetimes (`Query<'w, 's, ..>`, as Bevy users write them), in a
/// named and a tuple struct, beside another field.
#[test]
fn a_derived_param_holds_a_param_set_with_the_structs_lifetimes() {
    type Moved<'w, 's> = Query<'w, 's, &'static mut Position>;
    #[derive(SystemParam)]
    struct Movers<'w, 's> {
        set: ParamSet<'w, 's, (Moved<'w, 's>, Query<'w, 's, &'static Position, With<Enemy>>)>,
        log: ResMut<'w, Log>,
    }
    #[derive(SystemParam)]
    struct Pair<'w, 's>(ParamSet<'w, 's, (Query<'w, 's, &'static Velocity>, Query<'w, 's, &'static mut Velocity>)>);

    fn step(mut movers: Movers, mut pair: Pair) {
        let enemy_x: f32 = movers.set.p1().iter().map(|p| p.x).sum();
        for mut position in movers.set.p0().iter_mut() {
            position.x += enemy_x;
        }
        movers.log.0.push(format!("{enemy_x}"));
        let speed: f32 = pair.0.p0().iter().map(|v| v.x).sum();
        for mut velocity in pair.0.p1().iter_mut() {
            velocity.x += speed;
        }
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    world.spawn((Position { x: 2.0, y: 0.0 }, Enemy));
    let friend = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 1.0, y: 0.0 })).id();
    world.run_system_once(step);
    assert_eq!(world.get::<Position>(friend).unwrap().x, 2.0);
    assert_eq!(world.get::<Velocity>(friend).unwrap().x, 2.0);
    assert_eq!(world.resource::<Log>().0, ["2"]);
}

mod own {
    use super::*;
    /// A user's own derived parameter that happens to be named `ParamSet`.
    #[derive(SystemParam)]
    pub struct ParamSet<'w, 's> {
        pub velocities: Query<'w, 's, &'static Velocity>,
    }
}

/// An alias of `ParamSet` whose members name the struct's lifetimes (what
/// clippy's `type_complexity` suggests).
type Movers<'w, 's> = ParamSet<'w, 's, (Query<'w, 's, &'static mut Position>, Query<'w, 's, &'static Velocity>)>;

/// Which fields of a derived parameter are sets is decided by their types,
/// not their names: a user's own type named `ParamSet` passes through as it
/// is, an alias of the real one is relabelled.
#[test]
fn derived_params_tell_param_sets_by_type_not_by_name() {
    #[derive(SystemParam)]
    struct Outer<'w, 's> {
        mine: own::ParamSet<'w, 's>,
        set: Movers<'w, 's>,
    }
    fn step(mut outer: Outer) {
        let n = outer.mine.velocities.iter().count() as f32;
        let speed: f32 = outer.set.p1().iter().map(|v| v.x).sum();
        for mut position in outer.set.p0().iter_mut() {
            position.x += speed * n;
        }
    }
    let mut world = World::new();
    let e = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 2.0, y: 0.0 })).id();
    world.run_system_once(step);
    assert_eq!(world.get::<Position>(e).unwrap().x, 2.0);
}
