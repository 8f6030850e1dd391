//! The `dsl_parse` fuzz target: arbitrary text through the query DSL's parser
//! and printer (see `ecs_fuzz::dsl::run_dsl`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ecs_fuzz::dsl::run_dsl(data));
