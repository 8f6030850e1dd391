//! Compile-time safety: every aliasing rule is a compile error that names the
//! component (`ui/fail/*.rs`, with `.stderr` snapshots), and the disjoint and
//! read-only combinations compile and run (`ui/pass/*.rs`). Keeping pass cases
//! in the same `TestCases` makes trybuild build (not only check) every case, so
//! the post-monomorphization errors of generic entry points are exercised too.
//!
//! Refresh the snapshots after an intended message change with
//! `TRYBUILD=overwrite cargo test -p ecs-tests --test ui`, then review the diff.

#[test]
fn compile_time_safety() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
    cases.pass("ui/pass/*.rs");
}
