//! A terminal explorer for the query DSL: builds a small universe (planets,
//! factions, ships docked at planets, places located in places) and answers
//! one query per line read from standard input, printing the rows as a table:
//! the row's entity, each variable, and the id each term matched (with the
//! entity it was found on when that is not the row's, and the value when it is
//! a `Health`).
//!
//! ```text
//! cargo run --release --example query_language
//! > SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction)
//! > (LocatedIn, Earth)
//! > Health, Health(up ChildOf)
//! ```
//!
//! With `--demo` it answers a fixed list of queries (and checks their row
//! counts) instead of reading input; an empty line or end of input quits.

use std::io::{BufRead, Write};

use ecs::prelude::*;
use ecs::query::DynQuery;

#[derive(Component, Debug)]
struct SpaceShip;
#[derive(Component, Debug)]
struct Planet;
#[derive(Component, Debug)]
struct Health(u32);
#[derive(Relationship)]
#[relationship(exclusive)]
struct DockedTo;
#[derive(Relationship)]
#[relationship(exclusive)]
struct RuledBy;
#[derive(Relationship)]
struct AlliedWith;
#[derive(Relationship)]
#[relationship(transitive)]
struct LocatedIn;

/// The universe the queries explore.
fn universe() -> World {
    let mut world = World::new();
    for register in [
        World::register_component::<SpaceShip>,
        World::register_component::<Planet>,
        World::register_component::<Health>,
        World::register_component::<DockedTo>,
        World::register_component::<RuledBy>,
        World::register_component::<AlliedWith>,
        World::register_component::<LocatedIn>,
    ] {
        register(&mut world);
    }
    let empire = world.spawn(Name::new("Empire")).id();
    let rebels = world.spawn(Name::new("Rebels")).id();
    world.spawn(Name::new("Traders")).add_pair::<AlliedWith>(empire);
    world.spawn(Name::new("Smugglers")).add_pair::<AlliedWith>(rebels);
    let earth = world.spawn((Planet, Name::new("Earth"))).add_pair::<RuledBy>(empire).id();
    let mars = world.spawn((Planet, Name::new("Mars"))).add_pair::<RuledBy>(rebels).id();
    let moon = world.spawn(Name::new("Moon")).add_pair::<LocatedIn>(earth).id();
    let europe = world.spawn(Name::new("Europe")).add_pair::<LocatedIn>(earth).id();
    let paris = world.spawn(Name::new("Paris")).add_pair::<LocatedIn>(europe).id();
    world.spawn(Name::new("Louvre")).add_pair::<LocatedIn>(paris);
    world.spawn(Name::new("Tranquility")).add_pair::<LocatedIn>(moon);
    for (name, planet, health) in [("Falcon", earth, 80), ("Raven", earth, 60), ("Comet", mars, 95)] {
        let ship = world.spawn((SpaceShip, Name::new(name), Health(health))).add_pair::<DockedTo>(planet).id();
        world.spawn((Name::new(format!("{name} turret")), Health(10), ChildOf.pair(ship)));
    }
    world.spawn((SpaceShip, Name::new("Drifter"), Health(5)));
    world
}

/// How an entity prints: its name, else its id.
fn label(world: &World, entity: Entity) -> String {
    world.get::<Name>(entity).map_or_else(|| format!("{entity:?}"), |name| name.as_str().to_owned())
}

/// The rows of `query` as a text table.
fn table(world: &World, query: &mut DynQuery) -> (String, usize) {
    let variables: Vec<String> = query.variables().to_vec();
    let terms = query.terms().len();
    let mut header: Vec<String> = Vec::new();
    if query.has_this() {
        header.push("$this".into());
    }
    header.extend(variables.iter().map(|name| format!("${name}")));
    header.extend((0..terms).map(|term| format!("term {term}")));
    let mut rows: Vec<Vec<String>> = Vec::new();
    for row in query.iter(world) {
        let mut cells = Vec::new();
        if let Some(entity) = row.this() {
            cells.push(label(world, entity));
        }
        for name in &variables {
            cells.push(row.var(name).map_or_else(|| "-".into(), |entity| label(world, entity)));
        }
        for term in 0..terms {
            if !row.is_set(term) {
                cells.push("-".into());
                continue;
            }
            let mut cell = world.id_name(row.id(term));
            // Values are typed at run time: a term holding a Health shows it.
            if let Some(health) = row.get::<Health>(term) {
                cell.push_str(&format!(" = {}", health.0));
            }
            let source = row.source(term);
            if row.this() != Some(source) {
                cell.push_str(&format!(" on {}", label(world, source)));
            }
            cells.push(cell);
        }
        rows.push(cells);
    }
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut text = line(&header);
    text.push_str(&format!("|{}|\n", widths.iter().map(|width| "-".repeat(width + 2)).collect::<Vec<_>>().join("|")));
    for row in &rows {
        text.push_str(&line(row));
    }
    text.push_str(&format!("{} row(s)\n", rows.len()));
    (text, rows.len())
}

/// Answers one line: a table, or the error with a caret under its offset.
fn answer(world: &World, line: &str) -> (String, Option<usize>) {
    match world.query_dsl(line) {
        Ok(mut query) => {
            let (text, rows) = table(world, &mut query);
            (format!("{}\n{text}", query.to_dsl()), Some(rows))
        }
        Err(error) => {
            let caret = " ".repeat(line[..error.offset.min(line.len())].chars().count());
            (format!("{line}\n{caret}^ {}\n", error.message), None)
        }
    }
}

fn main() {
    let world = universe();
    if std::env::args().any(|arg| arg == "--demo") {
        let demo: [(&str, Option<usize>); 7] = [
            ("SpaceShip, (DockedTo, $planet), Planet($planet), RuledBy($planet, $faction)", Some(3)),
            ("SpaceShip, (DockedTo, $planet), RuledBy($planet, $faction), AlliedWith($ally, $faction)", Some(3)),
            ("(LocatedIn, Earth)", Some(5)),
            ("Health, Health(up ChildOf)", Some(3)),
            ("SpaceShip, !(DockedTo, *)", Some(1)),
            ("SpaceShip, ?(DockedTo, Mars)", Some(4)),
            ("SpaceShip, (DockedTo, Pluto)", None),
        ];
        for (line, expected) in demo {
            let (text, rows) = answer(&world, line);
            println!("> {line}\n{text}");
            assert_eq!(rows, expected, "{line}");
        }
        return;
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    println!("Type a query (e.g. `SpaceShip, (DockedTo, $planet), Planet($planet)`); an empty line quits.");
    loop {
        print!("> ");
        let _ = stdout.flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        print!("{}", answer(&world, line.trim_end()).0);
    }
}
