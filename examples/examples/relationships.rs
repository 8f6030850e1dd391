//! Relationships told as a small space game, printing each step and why it
//! happens: factions allied with factions (a tag relationship, several pairs
//! per entity), ships docked at stations (exclusive, `on_delete_target =
//! "delete"`), a `ChildOf` fleet tree three levels deep (flagship, escorts,
//! drones), cargo holds as pairs that carry data, queries over pairs
//! (`Pair<R>`, `Pair<&R>`), over ancestors (`Up<ChildOf, &T>`) and in
//! hierarchy order (`cascade`), a re-docking in one move, a despawn refused by a
//! `panic` policy, and finally a station destroyed with everything that goes
//! with it.
//!
//! Run it with `cargo run --release --example relationships`. The key facts are
//! asserted too, so the example fails loudly if the behaviour changes.

use std::collections::{BTreeMap, BTreeSet};

use ecs::prelude::*;

/// `(AlliedWith, other)`: a faction is allied with another. A plain tag
/// relationship: any number of pairs, and despawning the other faction just
/// removes the pair (the default `on_delete_target = "remove"`).
#[derive(Relationship)]
struct AlliedWith;

/// `(DockedTo, station)`: exclusive, since a ship sits at one station at most
/// (docking elsewhere replaces the pair). When the station is destroyed,
/// the ships docked there are destroyed with it (`on_delete_target =
/// "delete"`); `"remove"` would instead leave them floating, undocked.
#[derive(Relationship)]
#[relationship(exclusive, on_delete_target = "delete")]
struct DockedTo;

/// `(BoundFor, station)`: a ship's destination. Default policy: if the station
/// goes, the ship merely loses its destination.
#[derive(Relationship)]
struct BoundFor;

/// `(LeasedFrom, station)`: a ship leases a berth from a station. A station
/// with open leases cannot be scrapped (`on_delete_target = "panic"`): the
/// despawn is refused and nothing changes.
#[derive(Relationship)]
#[relationship(on_delete_target = "panic")]
struct LeasedFrom;

/// `(Cargo, goods)`: how many tons of some goods a ship carries. A data
/// relationship: each pair stores its own `Cargo` value.
#[derive(Relationship, Debug, PartialEq)]
struct Cargo {
    tons: u32,
}

/// The faction an entity flies for. Only flagships, stations and independent
/// ships carry it; escorts and drones find it on their flagship.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Faction(Entity);

/// Marks the ships of the war fleet (for the hierarchy queries).
#[derive(Component)]
struct Warship;

/// The entity's name, or `"?"`.
fn name(world: &World, entity: Entity) -> &str {
    world.get::<Name>(entity).map_or("?", Name::as_str)
}

/// The names of `entities`, comma-separated.
fn names(world: &World, entities: impl IntoIterator<Item = Entity>) -> String {
    entities.into_iter().map(|entity| name(world, entity)).collect::<Vec<_>>().join(", ")
}

/// Every named entity that is alive, with its name.
fn alive(world: &mut World) -> BTreeMap<Entity, String> {
    world.query::<(Entity, &Name)>().iter(world).map(|(entity, name)| (entity, name.as_str().to_owned())).collect()
}

/// Prints the war fleet in `cascade::<ChildOf>()` order (parents before
/// children) and checks that order; returns the names in that order.
fn print_fleet(world: &mut World) -> Vec<String> {
    let mut fleet = world.query_filtered::<(Entity, &Name), With<Warship>>().cascade::<ChildOf>();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for (ship, ship_name) in fleet.iter(world) {
        let parent = world.parent(ship);
        assert!(parent.is_none_or(|parent| seen.contains(&parent)), "cascade yielded {ship_name:?} before its parent");
        seen.insert(ship);
        let depth = std::iter::successors(parent, |&p| world.parent(p)).count();
        let under = parent.map_or(String::from("fleet root"), |parent| format!("under {}", name(world, parent)));
        println!("  {}{} ({under})", "  ".repeat(depth), ship_name.as_str());
        order.push(ship_name.as_str().to_owned());
    }
    order
}

fn main() {
    let mut world = World::new();

    println!("== 1. Factions: AlliedWith is a tag relationship, one pair per ally");
    let terran = world.spawn(Name::new("Terran League")).id();
    let traders = world.spawn(Name::new("Free Traders")).id();
    let miners = world.spawn(Name::new("Belt Miners")).id();
    world.entity_mut(terran).add_pair::<AlliedWith>(traders).add_pair::<AlliedWith>(miners);
    world.entity_mut(traders).add_pair::<AlliedWith>(terran);
    // `Pair<AlliedWith>` yields one row per pair: the Terran League shows up twice.
    let mut alliances: Vec<(Entity, Entity)> = world.query::<(Entity, Pair<AlliedWith>)>().iter(&world).collect();
    alliances.sort();
    for &(faction, ally) in &alliances {
        println!("  {} is allied with {}", name(&world, faction), name(&world, ally));
    }
    assert_eq!(alliances, vec![(terran, traders), (terran, miners), (traders, terran)]);

    println!("== 2. Stations and docking: DockedTo is exclusive, one station per ship");
    let ceres = world.spawn((Name::new("Ceres Station"), Faction(terran))).id();
    let vesta = world.spawn((Name::new("Vesta Depot"), Faction(traders))).id();
    let mule = world.spawn((Name::new("Freighter Mule"), Faction(traders))).add_pair::<DockedTo>(ceres).id();
    let swift = world.spawn((Name::new("Courier Swift"), Faction(terran))).add_pair::<DockedTo>(ceres).id();
    let ox = world.spawn((Name::new("Hauler Ox"), Faction(miners))).add_pair::<DockedTo>(vesta).id();
    world.add_pair::<BoundFor>(ox, ceres);
    world.add_pair::<LeasedFrom>(mule, ceres);
    println!("  Freighter Mule and Courier Swift dock at Ceres Station, Hauler Ox at Vesta Depot");
    println!("  Hauler Ox is BoundFor Ceres next; the Mule holds a lease (LeasedFrom) on a Ceres berth");

    println!("== 3. Cargo: pairs that carry data, one Cargo value per (Cargo, goods) pair");
    let ore = world.spawn(Name::new("iron ore")).id();
    let water = world.spawn(Name::new("water ice")).id();
    world.entity_mut(mule).insert_pair(Cargo { tons: 40 }, ore).insert_pair(Cargo { tons: 15 }, water);
    world.insert_pair(ox, Cargo { tons: 120 }, ore);
    let mut holds = world.query::<(&Name, Pair<&Cargo>)>();
    let mut lines: Vec<String> = holds
        .iter(&world)
        .map(|(ship, (goods, cargo))| format!("  {} holds {} t of {}", ship.as_str(), cargo.tons, name(&world, goods)))
        .collect();
    lines.sort();
    lines.iter().for_each(|line| println!("{line}"));
    assert_eq!(lines.len(), 3, "one row per cargo pair: the Mule has two, the Ox one");
    world.get_pair_mut::<Cargo>(mule, ore).expect("the Mule carries ore").tons -= 10;
    println!("  the Mule sells 10 t of ore at Ceres: now {} t", world.get_pair::<Cargo>(mule, ore).unwrap().tons);
    assert_eq!(world.get_pair::<Cargo>(mule, ore), Some(&Cargo { tons: 30 }));

    println!("== 4. The war fleet: a ChildOf tree, flagship -> escorts -> drones");
    let resolute = world.spawn((Name::new("TLS Resolute"), Faction(terran), Warship)).id();
    let kite = world.spawn((Name::new("Escort Kite"), Warship)).add_pair::<ChildOf>(resolute).id();
    let lance = world.spawn((Name::new("Escort Lance"), Warship)).add_pair::<ChildOf>(resolute).id();
    let k1 = world.spawn((Name::new("Drone K1"), Warship)).add_pair::<ChildOf>(kite).id();
    let k2 = world.spawn((Name::new("Drone K2"), Warship)).add_pair::<ChildOf>(kite).id();
    let l1 = world.spawn((Name::new("Drone L1"), Warship)).add_pair::<ChildOf>(lance).id();
    world.add_pair::<DockedTo>(lance, ceres);
    println!("  Escort Lance docks at Ceres for repairs. Fleet in cascade order (parents first):");
    let order = print_fleet(&mut world);
    assert_eq!(order[0], "TLS Resolute");
    assert_eq!(order.len(), 6);
    assert_eq!(world.children(kite).collect::<BTreeSet<_>>(), BTreeSet::from([k1, k2]));

    println!("  Escorts and drones have no Faction: Up<ChildOf, &Faction> finds the nearest ancestor's");
    let mut flags = world.query::<(Entity, &Name, Up<ChildOf, &Faction>)>();
    let mut rows: Vec<(Entity, String, Entity)> =
        flags.iter(&world).map(|(ship, ship_name, faction)| (ship, ship_name.as_str().to_owned(), faction.0)).collect();
    rows.sort();
    for (ship, ship_name, faction) in &rows {
        // The walk `Up` makes: parent, grandparent, ... up to the first one with a Faction.
        let mut walk = Vec::new();
        let mut ancestor = world.parent(*ship);
        while let Some(current) = ancestor {
            let found = world.get::<Faction>(current).is_some();
            walk.push(format!("{}{}", name(&world, current), if found { "" } else { " (no Faction)" }));
            ancestor = if found { None } else { world.parent(current) };
        }
        println!("    {ship_name}: {} => flies for {}", walk.join(" -> "), name(&world, *faction));
    }
    assert_eq!(rows.len(), 5, "the flagship itself is excluded: Up starts at the parent");
    assert!(rows.iter().all(|(_, _, faction)| *faction == terran));

    println!("  Pair<DockedTo>, one row per (DockedTo, station) pair:");
    let mut docked: Vec<(Entity, Entity)> = world.query::<(Entity, Pair<DockedTo>)>().iter(&world).collect();
    docked.sort_by_key(|&(ship, station)| (station, ship));
    for station in [ceres, vesta] {
        let ships = docked.iter().filter(|row| row.1 == station).map(|row| row.0);
        println!("    at {}: {}", name(&world, station), names(&world, ships));
    }
    assert_eq!(docked.len(), 4);

    println!("== 5. Re-docking: adding (DockedTo, Vesta) replaces (DockedTo, Ceres) in one move");
    println!("  Freighter Mule before: DockedTo -> [{}]", names(&world, world.targets::<DockedTo>(mule)));
    world.entity_mut(mule).add_pair::<DockedTo>(vesta);
    println!("  Freighter Mule after:  DockedTo -> [{}]", names(&world, world.targets::<DockedTo>(mule)));
    assert_eq!(world.targets::<DockedTo>(mule).collect::<Vec<_>>(), vec![vesta]);
    assert!(!world.has_pair::<DockedTo>(mule, ceres));

    println!("== 6. Scrapping Ceres: refused while the Mule still leases a berth (panic policy)");
    let before = alive(&mut world);
    let error = world.try_despawn(ceres).expect_err("the lease must block the despawn");
    println!("  try_despawn(Ceres) = Err: {error}");
    println!(
        "  ({:?} is Ceres Station, {:?} = {}); nothing changed",
        error.despawned,
        error.holders,
        names(&world, error.holders.iter().copied())
    );
    assert_eq!(error.relationship, "LeasedFrom");
    assert_eq!(error.holders, vec![mule]);
    assert!(world.is_alive(ceres));
    assert_eq!(alive(&mut world), before);

    println!("== 7. The Mule ends its lease; Ceres is destroyed");
    world.entity_mut(mule).remove_pair::<LeasedFrom>(ceres);
    let count_before = world.entity_count();
    assert!(world.despawn(ceres));
    let after = alive(&mut world);
    let count_after = world.entity_count();
    // The dead have no components left: take their names from the list made before.
    let gone: BTreeSet<Entity> = before.keys().filter(|entity| !after.contains_key(entity)).copied().collect();
    println!("  destroyed: {}", gone.iter().map(|entity| before[entity].as_str()).collect::<Vec<_>>().join(", "));
    println!("    Courier Swift and Escort Lance were docked there (DockedTo: delete),");
    println!("    Drone L1 went with its parent Escort Lance (ChildOf: delete)");
    assert_eq!(gone, BTreeSet::from([ceres, swift, lance, l1]));
    let destinations = world.targets::<BoundFor>(ox).count();
    println!("  Hauler Ox survives; its (BoundFor, Ceres) pair was removed (BoundFor: remove): {destinations} left");
    assert!(world.is_alive(ox) && destinations == 0);
    println!(
        "  Freighter Mule survives: it had moved to Vesta (docked at {})",
        name(&world, world.target::<DockedTo>(mule).unwrap())
    );
    assert_eq!(world.target::<DockedTo>(mule), Some(vesta));
    println!("  entities: {count_before} before, {count_after} after");
    assert_eq!(count_before - count_after, 4);
    println!("  the fleet now:");
    let order = print_fleet(&mut world);
    assert_eq!(order, ["TLS Resolute", "Escort Kite", "Drone K1", "Drone K2"]);
    world.check_invariants();
    println!("invariants hold");
}
