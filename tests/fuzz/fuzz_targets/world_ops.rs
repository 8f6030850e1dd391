//! The `world_ops` fuzz target: arbitrary bytes decoded into world operations,
//! checked after each one (see `ecs_fuzz::run`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ecs_fuzz::run(data));
