//! Prints issue 7's performance table from criterion's saved results: one row
//! per workload, the median time per iteration of `hand_written`, `ecs`,
//! `ecs_untracked` (`ecs` on copies of the components declared
//! `#[component(change_detection = false)]`, where the workload writes or moves
//! components), `bevy_ecs`, `hecs` and `shipyard`, the issue's target for `ecs`,
//! and whether `ecs` and `ecs_untracked` meet it.
//!
//! Fill the results, then print the table (from the workspace root):
//!
//! ```text
//! cargo bench -p ecs-benches -- --noplot
//! cargo run --release -p ecs-benches --example perf_table
//! ```
//!
//! It reads `<target>/criterion/<group>/<function>/new/estimates.json` (the
//! latest run of each bench function), where `<target>` is `$CARGO_TARGET_DIR`
//! if set, else the workspace's `target/`. Times are medians in µs with 3
//! significant digits (so `fragmented_iter`'s, well under 1 µs, read e.g.
//! `0.0543`); a result that was never saved prints `-`.
//!
//! The `hand_written` column is each bench's `hand_written` entry, except for
//! `heavy_compute` where it is `hand_written_rayon` (the parallel baseline the
//! issue's target is relative to).

use std::path::{Path, PathBuf};

/// The ECS columns, in table order: each is the bench function of that name.
const PEERS: [&str; 5] = ["ecs", "ecs_untracked", "bevy_ecs", "hecs", "shipyard"];

/// What issue 7 asks of `ecs`'s median on one workload.
#[derive(Clone, Copy)]
enum Target {
    /// At most this many µs.
    AtMostMicros(f64),
    /// At most this multiple of the `hand_written` column.
    AtMostTimesHandWritten(f64),
}

/// One row of the table: a workload of issue 7.
struct Workload {
    /// The criterion group (and bench file) name.
    group: &'static str,
    /// The bench function of the `hand_written` column.
    hand_written: &'static str,
    /// Issue 7's target for `ecs`.
    target: Target,
}

/// Issue 7's workloads, in the issue's order.
const WORKLOADS: [Workload; 9] = [
    Workload { group: "simple_insert", hand_written: "hand_written", target: Target::AtMostMicros(200.0) },
    Workload { group: "simple_iter", hand_written: "hand_written", target: Target::AtMostMicros(8.0) },
    Workload { group: "fragmented_iter", hand_written: "hand_written", target: Target::AtMostMicros(0.06) },
    Workload {
        group: "heavy_compute",
        hand_written: "hand_written_rayon",
        target: Target::AtMostTimesHandWritten(1.02),
    },
    Workload { group: "add_remove", hand_written: "hand_written", target: Target::AtMostMicros(300.0) },
    Workload { group: "schedule", hand_written: "hand_written", target: Target::AtMostMicros(12.0) },
    Workload { group: "spawn_despawn", hand_written: "hand_written", target: Target::AtMostMicros(300.0) },
    Workload { group: "many_archetypes_iter", hand_written: "hand_written", target: Target::AtMostMicros(1.0) },
    Workload { group: "hierarchy", hand_written: "hand_written", target: Target::AtMostMicros(600.0) },
];

/// Cargo's target directory: `$CARGO_TARGET_DIR` if set, else the workspace's
/// `target/` (this package sits one level below the workspace root).
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("target"),
    }
}

/// The `median.point_estimate` (ns) of a criterion `estimates.json`, parsed by
/// hand: the first `"point_estimate"` after `"median"` is the median's own (its
/// `confidence_interval` holds none). `None` if the text does not have it.
///
/// ```text
/// {"mean":{..,"point_estimate":12.5,..},"median":{"confidence_interval":{..},"point_estimate":12.0,..},..}
/// ```
fn median_ns(json: &str) -> Option<f64> {
    let median = &json[json.find("\"median\"")?..];
    let value = &median[median.find("\"point_estimate\"")? + "\"point_estimate\"".len()..];
    let value = value.trim_start().strip_prefix(':')?.trim_start();
    let end = value.find([',', '}']).unwrap_or(value.len());
    value[..end].trim().parse().ok()
}

/// The saved median (µs) of `function` in `group`, if criterion saved one.
fn median_micros(criterion: &Path, group: &str, function: &str) -> Option<f64> {
    let path = criterion.join(group).join(function).join("new").join("estimates.json");
    let json = std::fs::read_to_string(path).ok()?;
    median_ns(&json).map(|ns| ns / 1_000.0)
}

/// `value` with 3 significant digits (never fewer integer digits than it
/// has): `1433.2 -> "1433"`, `8.123 -> "8.12"`, `0.05432 -> "0.0543"`.
fn three_digits(value: f64) -> String {
    if value <= 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let decimals = (2 - value.log10().floor() as i32).max(0) as usize;
    format!("{value:.decimals$}")
}

/// A table cell: the time with 3 significant digits, or `-` if missing.
fn cell(micros: Option<f64>) -> String {
    micros.map_or_else(|| "-".to_owned(), three_digits)
}

/// The target's text and `ecs`'s verdict (`yes`, `no (1.23x target)` or `-`
/// when a needed result is missing).
fn verdict(target: Target, ecs: Option<f64>, hand_written: Option<f64>) -> (String, String) {
    let (text, limit) = match target {
        Target::AtMostMicros(limit) => (format!("<= {limit} µs"), Some(limit)),
        Target::AtMostTimesHandWritten(factor) => {
            (format!("<= {factor}x hand-written"), hand_written.map(|hand_written| factor * hand_written))
        }
    };
    let meets = match (ecs, limit) {
        (Some(ecs), Some(limit)) if ecs <= limit => "yes".to_owned(),
        (Some(ecs), Some(limit)) => format!("no ({:.2}x target)", ecs / limit),
        _ => "-".to_owned(),
    };
    (text, meets)
}

/// Prints the table as Markdown.
fn main() {
    let criterion = target_dir().join("criterion");
    let criterion = std::fs::canonicalize(&criterion).unwrap_or(criterion);
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!("Medians per iteration in µs, from `{}` (this machine: {cores} cores).", criterion.display());
    println!();
    println!("| workload | hand_written | {} | target | ecs meets it | ecs_untracked meets it |", PEERS.join(" | "));
    println!("|---|---:|{}---|---|---|", "---:|".repeat(PEERS.len()));
    for workload in &WORKLOADS {
        let hand_written = median_micros(&criterion, workload.group, workload.hand_written);
        let peers = PEERS.map(|peer| median_micros(&criterion, workload.group, peer));
        let (target, meets) = verdict(workload.target, peers[0], hand_written);
        let (_, untracked_meets) = verdict(workload.target, peers[1], hand_written);
        let columns: Vec<String> = peers.into_iter().map(cell).collect();
        println!(
            "| {} | {} | {} | {target} | {meets} | {untracked_meets} |",
            workload.group,
            cell(hand_written),
            columns.join(" | ")
        );
    }
}

/// The parsing and formatting helpers.
#[cfg(test)]
mod tests {
    use super::*;

    /// The median's point estimate is found past the mean's and the median's
    /// confidence interval.
    #[test]
    fn parses_the_median_not_the_mean() {
        let json = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":3.0},"point_estimate":2.0,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":4.0,"upper_bound":6.0},"point_estimate":5.5e3,"standard_error":0.1}}"#;
        assert_eq!(median_ns(json), Some(5500.0));
        assert_eq!(median_ns("{}"), None);
    }

    /// Three significant digits, but never a rounded integer part.
    #[test]
    fn three_significant_digits() {
        assert_eq!(three_digits(1433.2), "1433");
        assert_eq!(three_digits(287.4), "287");
        assert_eq!(three_digits(8.123), "8.12");
        assert_eq!(three_digits(0.05432), "0.0543");
    }

    /// Relative targets use the hand-written time; missing results give `-`.
    #[test]
    fn verdicts() {
        let hand_written = Target::AtMostTimesHandWritten(1.02);
        assert_eq!(verdict(hand_written, Some(100.0), Some(100.0)).1, "yes");
        assert_eq!(verdict(hand_written, Some(204.0), Some(100.0)).1, "no (2.00x target)");
        assert_eq!(verdict(Target::AtMostMicros(8.0), None, None), ("<= 8 µs".to_owned(), "-".to_owned()));
    }
}
