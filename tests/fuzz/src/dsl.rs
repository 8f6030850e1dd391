//! The `dsl_parse` fuzz target's harness: arbitrary text through the query DSL.
//!
//! [`run_dsl`] parses the input (bytes as lossy UTF-8) with
//! [`ecs::query::parse_query`] against a small world: components `Position`,
//! `Velocity`, `Enemy`, the tag relationship `Likes` (not traversable), the
//! traversable `LocatedIn` and the built-in `ChildOf`. Checks: parsing never
//! panics; an error's offset lies in the input at a char boundary; a success
//! prints ([`ecs::query::print_query`]) to text that parses back to the same
//! terms and prints the same again.

use ecs::prelude::*;
use ecs::query::{parse_query, print_query};

/// A position (the DSL only needs its name).
#[derive(Component)]
pub struct Position;

/// A velocity.
#[derive(Component)]
pub struct Velocity;

/// A marker.
#[derive(Component)]
pub struct Enemy;

/// A tag relationship: `up Likes` is an error.
#[derive(Relationship)]
pub struct Likes;

/// A traversable relationship besides `ChildOf`.
#[derive(Relationship)]
#[relationship(traversable)]
pub struct LocatedIn;

thread_local! {
    /// The world whose names the inputs use (parsing only reads it).
    static WORLD: World = {
        let mut world = World::new();
        world.register_component::<Position>();
        world.register_component::<Velocity>();
        world.register_component::<Enemy>();
        world.register_component::<Likes>();
        world.register_component::<LocatedIn>();
        world.register_component::<ChildOf>();
        world
    };
}

/// Runs one input through the parser and printer with the checks of the
/// module docs. Panics on a finding.
pub fn run_dsl(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    WORLD.with(|world| check_text(world, &text));
}

fn check_text(world: &World, text: &str) {
    match parse_query(text, world) {
        Ok(terms) => {
            let printed = print_query(&terms, world);
            let reparsed = parse_query(&printed, world);
            assert_eq!(reparsed.as_ref(), Ok(&terms), "{text:?} printed as {printed:?}");
            assert_eq!(print_query(&terms, world), printed, "printing is not deterministic");
        }
        Err(error) => {
            assert!(
                error.offset <= text.len() && text.is_char_boundary(error.offset),
                "{text:?}: offset {} outside the text or inside a character",
                error.offset
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// Pseudo-random token soups and bytes (xorshift), so that `cargo test`
    /// runs the harness without libFuzzer.
    #[test]
    fn pseudo_random_inputs() {
        const PIECES: &[&str] = &[
            "Position", "Velocity", "Likes", "LocatedIn", "ChildOf", "Enemy", "up", "self", "$x", "$this", "*", "_",
            "#1", "(", ")", "[in]", "!", "?", "||", "|", ",", " ", "é",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for len in 0..2000 {
            let soup: String = (0..len % 24).map(|_| PIECES[next() as usize % PIECES.len()]).collect();
            super::run_dsl(soup.as_bytes());
            let bytes: Vec<u8> = (0..len % 40).map(|_| (next() >> 24) as u8).collect();
            super::run_dsl(&bytes);
        }
    }
}
