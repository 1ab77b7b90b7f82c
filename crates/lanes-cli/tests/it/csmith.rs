//! csmith against clang-19: 50 seeds per run, each built by clang-19 and by `lanes compile`
//! at -O0, -O2 and -O3 -march=native, and run; every seed whose reference finishes must
//! compile through lanes, never crash it, and print the same checksum. Skipped with a
//! message when csmith is missing (Debian: `apt-get install csmith libcsmith-dev`).
//! `LANES_CSMITH_SEEDS=N` and `LANES_CSMITH_FIRST=S` change the seeds;
//! `cargo bench -p lanes-cli --bench csmith` runs any number with a summary.

#[path = "../../../../bench/csmith/harness.rs"]
#[allow(dead_code)] // `label` is for the bench
mod harness;

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use harness::{check, csmith_available, generate, Outcome, CONFIGS};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn csmith_programs_print_the_same_checksum_through_lanes() {
    if !csmith_available() {
        eprintln!("skipped: csmith is not installed (apt-get install csmith libcsmith-dev)");
        return;
    }
    let first = env_u64("LANES_CSMITH_FIRST", 1);
    let count = env_u64("LANES_CSMITH_SEEDS", 50);
    let dir = lanes_test_support::scratch_dir("csmith");
    let lanes = Path::new(env!("CARGO_BIN_EXE_lanes"));
    // One seed per job, its configurations in turn: they share the generated source.
    let total = count;
    let queue = Mutex::new(first..first + count);
    let results = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let Some(seed) = queue.lock().expect("queue").next() else {
                    break;
                };
                let src = generate(seed, &dir);
                for (c, config) in CONFIGS.iter().enumerate() {
                    let outcome = match &src {
                        Ok(src) => check(lanes, src, config, Duration::from_secs(5)),
                        Err(e) => Outcome::Skipped(e.clone()),
                    };
                    results.lock().expect("results").push((seed, c, outcome));
                }
            });
        }
    });
    let results = results.into_inner().expect("results");
    let mut failures = Vec::new();
    let (mut same, mut uncompared, mut skipped) = (0, 0, 0);
    for (seed, c, outcome) in &results {
        match outcome {
            Outcome::Same => same += 1,
            Outcome::Uncompared => uncompared += 1,
            Outcome::Skipped(_) => skipped += 1,
            other => failures.push(format!("seed {seed} {}: {other:?}", CONFIGS[*c].name)),
        }
    }
    eprintln!(
        "csmith: {} seeds x {} configurations: {same} same, {uncompared} compiled but not compared (reference did not finish), {skipped} skipped (no reference), {} failed",
        total,
        CONFIGS.len(),
        failures.len()
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "programs kept in {}:\n{}",
        dir.display(),
        failures.join("\n")
    );
    assert!(same > 0, "no seed ran to the end");
}
