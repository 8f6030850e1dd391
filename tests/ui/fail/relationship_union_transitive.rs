#![allow(unused)]
use ecs::prelude::*;

#[derive(Relationship)]
#[relationship(union, transitive)]
struct LocatedIn;

fn main() {}
