//! Runnable examples of the `ecs` crate live in `examples/examples/`; run one with
//! `cargo run --release --example NAME`.
