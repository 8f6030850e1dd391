//! Shared workload definitions for the criterion benches in `benches/benches/`.
