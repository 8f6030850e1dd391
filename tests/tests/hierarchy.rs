//! Hierarchy and relationship helpers: `with_children` (world and commands,
//! nested), `ancestors` / `descendants` (breadth-first, cycles end), the
//! `Relations<R>` parameter and its declared access, `Commands::spawn_batch`
//! and `EntityCommands::observe`.

use ecs_tests::Enemy;

use ecs::prelude::*;

#[derive(Component)]
struct Ship;
#[derive(Component)]
struct Turret(u32);

/// Cycles allowed.
#[derive(Relationship)]
struct Follows;

#[derive(Relationship)]
struct Owes {
    amount: u32,
}

#[test]
fn with_children_nests_and_links_each_child_to_its_parent() {
    let mut world = World::new();
    let mut barrel = Entity::PLACEHOLDER;
    let ship = world
        .spawn(Ship)
        .with_children(|parent| {
            parent.spawn(Turret(1));
            barrel = parent
                .spawn(Turret(2))
                .with_children(|turret| {
                    turret.spawn_empty();
                })
                .id();
        })
        .id();
    assert_eq!(world.children(ship).count(), 2);
    assert_eq!(world.parent(barrel), Some(ship));
    let grandchild = world.children(barrel).next().unwrap();
    assert_eq!(world.ancestors(grandchild).collect::<Vec<_>>(), vec![barrel, ship]);
    world.despawn(ship);
    assert!(!world.is_alive(grandchild), "ChildOf's cleanup reaches the grandchild");
    world.check_invariants();
}

#[test]
fn commands_build_hierarchies_and_spawn_batches() {
    let mut world = World::new();
    let ship = world.run_system_once(|mut commands: Commands| {
        commands.spawn_batch((0..5).map(|_| (Enemy,)));
        let mut ship = commands.spawn(Ship);
        ship.with_children(|parent| {
            parent.spawn(Turret(1)).with_children(|turret| {
                turret.spawn(Turret(2));
            });
        });
        ship.id()
    });
    assert_eq!(world.query::<&Enemy>().iter(&world).count(), 5);
    let turrets: Vec<u32> = world.descendants(ship).map(|e| world.get::<Turret>(e).unwrap().0).collect();
    assert_eq!(turrets, vec![1, 2]);
}

#[test]
fn descendants_are_breadth_first_and_walks_end_on_cycles() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let a = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let a1 = world.spawn_empty().add_pair::<ChildOf>(a).id();
    let b = world.spawn_empty().add_pair::<ChildOf>(root).id();
    let b1 = world.spawn_empty().add_pair::<ChildOf>(b).id();
    let a2 = world.spawn_empty().add_pair::<ChildOf>(a1).id();
    let order: Vec<Entity> = world.descendants(root).collect();
    let depth = |e: Entity| world.ancestors(e).count();
    assert_eq!(order.len(), 5);
    assert!(order.windows(2).all(|w| depth(w[0]) <= depth(w[1])), "breadth-first");
    assert_eq!(order.iter().map(|&e| depth(e)).collect::<Vec<_>>(), vec![1, 1, 2, 2, 3]);
    assert!(order.contains(&b1) && order.last() == Some(&a2));
    assert_eq!(world.descendants(a2).count(), 0);
    assert_eq!(world.ancestors(root).count(), 0);

    // x -> y -> z -> x
    let (x, y, z) = (world.spawn_empty().id(), world.spawn_empty().id(), world.spawn_empty().id());
    world.add_pair::<Follows>(x, y);
    world.add_pair::<Follows>(y, z);
    world.add_pair::<Follows>(z, x);
    assert_eq!(world.ancestors_of::<Follows>(x).collect::<Vec<_>>(), vec![y, z]);
    assert_eq!(world.descendants_of::<Follows>(x).collect::<Vec<_>>(), vec![z, y]);
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    assert_eq!(world.ancestors(dead).count() + world.descendants(dead).count(), 0);
}

#[test]
fn relations_reads_any_entity_and_conflicts_with_pair_writers() {
    #[derive(Resource, Default)]
    struct Debts(u32);
    fn sum_owed(relations: Relations<Owes>, q: Query<Entity>, mut debts: ResMut<Debts>) {
        debts.0 = q.iter().map(|e| relations.targets(e).count() as u32).sum();
    }
    fn grow_debts(mut q: Query<Pair<&mut Owes>, Without<Enemy>>) {
        for (_, mut owes) in q.iter_mut() {
            owes.amount += 1;
        }
    }
    let mut world = World::new();
    world.init_resource::<Debts>();
    let bank = world.spawn(Enemy).id();
    world.spawn_empty().insert_pair(Owes { amount: 1 }, bank);
    let mut schedule = Schedule::new();
    schedule.add_systems((sum_owed, grow_debts));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.ambiguities().len(), 1, "Relations<Owes> reads Owes pairs of any entity");
    schedule.run(&mut world);
    assert_eq!(world.resource::<Debts>().0, 1);
}

#[test]
fn entity_commands_observe_registers_an_entity_scoped_observer() {
    #[derive(Event)]
    struct Hit(u32);
    #[derive(Resource, Default)]
    struct Damage(u32);
    let mut world = World::new();
    world.init_resource::<Damage>();
    let (target, other) = world.run_system_once(|mut commands: Commands| {
        let target = commands
            .spawn(Ship)
            .observe(|hit: Trigger<Hit>, mut damage: ResMut<Damage>| damage.0 += hit.event().0)
            .id();
        (target, commands.spawn(Ship).id())
    });
    world.trigger_targets(Hit(3), [target, other]);
    assert_eq!(world.resource::<Damage>().0, 3);
    world.despawn(target);
    world.trigger_targets(Hit(3), other);
    assert_eq!(world.resource::<Damage>().0, 3);
}

#[test]
fn the_any_pair_wildcard_agrees_with_id_matches_in_every_entry_point() {
    use ecs::entity::Id;
    let mut world = World::new();
    let (alice, bob) = (world.spawn_empty().id(), world.spawn_empty().id());
    let loner = world.spawn(Ship).id();
    world.add_pair::<Follows>(alice, bob);
    let any_pair = Id::pair(Entity::WILDCARD, Entity::WILDCARD);
    let follows = world.component_id::<Follows>().unwrap();
    assert!(any_pair.matches(Id::pair(follows, bob)));
    assert!(world.has_id(alice, any_pair), "(*, *) matches alice's (Follows, bob)");
    assert!(!world.has_id(loner, any_pair), "a plain component is no pair");
    assert!(!world.has_id(bob, any_pair), "being a target is not having a pair");
    assert!(world.has_id(alice, Id::pair(follows, Entity::WILDCARD)));
    assert!(world.has_id(alice, Id::pair(Entity::WILDCARD, bob)));
    assert!(world.has_id(alice, Id::pair(Entity::ANY, Entity::ANY)), "`_` reads as `*`");
    // Removing every pair of alice through (*, *).
    assert!(world.remove_id(alice, any_pair));
    assert!(!world.has_pair::<Follows>(alice, bob));
    world.check_invariants();
}

#[test]
fn clear_entities_despawns_every_user_entity_and_keeps_internal_ones_and_resources() {
    use ecs_tests::DropLog;
    #[derive(Resource, Default)]
    struct Despawns(u32);
    let log = DropLog::new();
    let mut world = World::new();
    world.init_resource::<Despawns>();
    world.add_observer(|_: Trigger<OnDespawn>, mut despawns: ResMut<Despawns>| despawns.0 += 1);
    let ship = world
        .spawn((Ship, log.table(1)))
        .with_children(|p| {
            p.spawn(Turret(1));
        })
        .id();
    world.spawn(log.sparse(2));
    let observers_before = world.observers().len();
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert!(!world.is_alive(ship));
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.resource::<Despawns>().0, 3, "observers saw every despawn");
    assert_eq!(world.observers().len(), observers_before, "observers are internal: kept");
    world.spawn(Ship);
    assert_eq!(world.resource::<Despawns>().0, 3);
    assert_eq!(world.query::<&Ship>().iter(&world).count(), 1);
    world.check_invariants();
}

#[test]
fn pairs_in_bundles_are_added_with_the_bundle() {
    use ecs_tests::{DropLog, panic_message};
    #[derive(Relationship)]
    #[relationship(exclusive)]
    struct DockedTo;
    #[derive(Relationship)]
    struct Holds {
        _token: ecs_tests::DropTable,
    }
    #[derive(Bundle)]
    struct Gunner {
        turret: Turret,
        parent: ecs::relation::PairBundle<ChildOf>,
    }
    let log = DropLog::new();
    let mut world = World::new();
    let (ship, station, other_station) = (world.spawn(Ship).id(), world.spawn_empty().id(), world.spawn_empty().id());
    // Tuples, derived bundles, spawn_batch, insert and commands.
    let turret = world.spawn((Turret(1), ChildOf.pair(ship), DockedTo.pair(station))).id();
    assert_eq!(world.parent(turret), Some(ship));
    assert!(world.has_pair::<DockedTo>(turret, station));
    let gunner = world.spawn(Gunner { turret: Turret(2), parent: ChildOf.pair(turret) }).id();
    assert_eq!(world.ancestors(gunner).collect::<Vec<_>>(), vec![turret, ship]);
    let batch: Vec<Entity> = world.spawn_batch((0..3).map(|i| (Turret(10 + i), ChildOf.pair(ship)))).collect();
    assert!(batch.iter().all(|&e| world.parent(e) == Some(ship)));
    world.entity_mut(turret).insert((Turret(5), DockedTo.pair(other_station)));
    assert!(world.has_pair::<DockedTo>(turret, other_station) && !world.has_pair::<DockedTo>(turret, station));
    let ore = world.spawn_empty().id();
    let hauler = world.run_system_once(move |mut commands: Commands| {
        commands.spawn((Ship, ChildOf.pair(ship))).insert(Owes { amount: 4 }.pair(ore)).id()
    });
    assert_eq!(world.parent(hauler), Some(ship));
    assert_eq!(world.get_pair::<Owes>(hauler, ore).map(|owes| owes.amount), Some(4));
    // A dead target: the bundle's components are in, the pair is refused by a panic naming it.
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let message = panic_message(|| {
        world.spawn((Turret(3), Holds { _token: log.table(7) }.pair(dead)));
    });
    assert!(message.contains("Holds") && message.contains("not alive"), "{message}");
    log.assert_dropped_once([7]);
    world.check_invariants();
}

#[derive(Relationship)]
#[relationship(on_delete_target = "panic")]
struct MustOutlive;

/// Counts its drops.
#[derive(Component)]
struct Counted(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A bundle with pairs applied by a command after their target was
/// despawned gets each relationship's `on_delete_target` policy, as
/// `EntityCommands::add_pair` does (a system spawning a child of an entity
/// another system despawned must not crash the app): `ChildOf` deletes the
/// new entity, a default (`remove`) relationship leaves the pair out, a
/// `panic` one panics. Every value is dropped once.
#[test]
fn command_bundles_with_pairs_to_despawned_targets_follow_the_cleanup_policy() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let drops = Arc::new(AtomicU32::new(0));
    let mut world = World::new();
    let (ship, friend) = (world.spawn_empty().id(), world.spawn_empty().id());
    let counter = drops.clone();
    let (child, follower, inserted) = world.run_system_once(move |mut commands: Commands| {
        commands.entity(ship).despawn();
        commands.entity(friend).despawn();
        let child = commands.spawn((Counted(counter.clone()), ChildOf.pair(ship))).id();
        let follower = commands.spawn((Enemy, Follows.pair(friend), Owes { amount: 3 }.pair(friend))).id();
        let inserted = commands.spawn(Enemy).id();
        commands.entity(inserted).insert(ChildOf.pair(ship));
        (child, follower, inserted)
    });
    assert!(!world.is_alive(child), "ChildOf: the child of a despawned parent goes");
    assert_eq!(drops.load(Ordering::Relaxed), 1, "its value is dropped once");
    assert!(world.is_alive(follower) && world.has::<Enemy>(follower), "remove: spawned without the pairs");
    assert_eq!(world.targets::<Follows>(follower).count(), 0);
    assert_eq!(world.targets::<Owes>(follower).count(), 0);
    assert!(!world.is_alive(inserted), "EntityCommands::insert of ChildOf to a dead parent: deleted");
    // A panic policy panics, naming the relationship.
    let anchor = world.spawn_empty().id();
    let message = ecs_tests::panic_message(|| {
        world.run_system_once(move |mut commands: Commands| {
            commands.entity(anchor).despawn();
            commands.spawn((Enemy, MustOutlive.pair(anchor)));
        });
    });
    assert!(message.contains("MustOutlive") && message.contains("panic"), "{message}");
    // A live target still works, and World::spawn keeps panicking on a dead one.
    let parent = world.spawn_empty().id();
    let kid = world.run_system_once(move |mut commands: Commands| commands.spawn(ChildOf.pair(parent)).id());
    assert_eq!(world.target::<ChildOf>(kid), Some(parent));
    world.check_invariants();
}
