//! Benchmark of robustness: `lanes compile` against clang-19 on any number of csmith
//! programs, at -O0, -O2 and -O3 -march=native (see `csmith/harness.rs` for what is
//! compared and what counts).
//!
//! Run: `cargo bench -p lanes-cli --bench csmith -- [--seeds N] [--first S] [--jobs J]
//! [--configs O0,O2,O3-native] [--keep DIR] [--lanes PATH]`. Prints the counts per configuration (attempted, compiled, compared,
//! same checksum, different, crashes, skipped seeds) and writes them to
//! `bench/results/csmith.json`; the sources of failing seeds are copied to `--keep`
//! (default `target/csmith-failures`) for reduction with cvise.

#[path = "csmith/harness.rs"]
mod harness;

#[path = "common/machine.rs"]
mod machine;

use std::collections::BTreeMap;

use machine::machine;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use harness::{check, csmith_available, generate, Config, Outcome, CONFIGS};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

#[derive(Default, Serialize)]
struct Counts {
    seeds: u64,
    /// Seeds with a reference: compiled by lanes, or refused or crashed.
    attempted: u64,
    /// Of those, the ones lanes compiled.
    compiled: u64,
    /// Compiled seeds whose output was compared with the reference's.
    compared: u64,
    /// Compiled seeds whose reference ran out of time (not compared).
    uncompared: u64,
    same: u64,
    different: u64,
    crashes: u64,
    compile_errors: u64,
    run_errors: u64,
    skipped: u64,
    failing_seeds: Vec<String>,
}

#[derive(Serialize)]
struct Summary {
    machine: String,
    first_seed: u64,
    seeds: u64,
    seconds: f64,
    configs: BTreeMap<String, Counts>,
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    if !csmith_available() {
        eprintln!(
            "csmith bench skipped: csmith is not installed (apt-get install csmith libcsmith-dev)"
        );
        return;
    }
    let seeds: u64 = arg("--seeds").and_then(|v| v.parse().ok()).unwrap_or(100);
    let first: u64 = arg("--first").and_then(|v| v.parse().ok()).unwrap_or(1);
    let jobs: usize = arg("--jobs")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let wanted = arg("--configs").unwrap_or_else(|| "O0,O2,O3-native".into());
    let configs: Vec<Config> = CONFIGS
        .iter()
        .filter(|c| wanted.split(',').any(|w| w == c.name))
        .cloned()
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let keep = arg("--keep").map_or_else(|| root.join("target/csmith-failures"), PathBuf::from);
    let work = std::env::temp_dir().join(format!("lanes-csmith-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("work dir");
    // `--lanes PATH`: a copy of the binary, so that rebuilding during a long run does not
    // change the compiler under test.
    let lanes =
        arg("--lanes").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lanes")), PathBuf::from);
    println!("csmith bench: {}", machine());
    println!(
        "seeds {first}..{}, configurations {wanted}, {jobs} jobs, lanes {}",
        first + seeds - 1,
        lanes.display()
    );
    let bar = ProgressBar::new(seeds * configs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // One seed per job, its configurations in turn: they share the generated source.
    let queue = Mutex::new(first..first + seeds);
    let results = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let Some(seed) = queue.lock().expect("queue").next() else {
                    break;
                };
                let src = generate(seed, &work);
                for (c, config) in configs.iter().enumerate() {
                    let outcome = match &src {
                        Ok(src) => check(&lanes, src, config, Duration::from_secs(5)),
                        Err(e) => Outcome::Skipped(e.clone()),
                    };
                    if !matches!(
                        outcome,
                        Outcome::Same | Outcome::Skipped(_) | Outcome::Uncompared
                    ) {
                        let line = format!("seed {seed} {}: {outcome:?}", config.name);
                        if bar.is_hidden() {
                            eprintln!("{line}");
                        } else {
                            bar.println(line);
                        }
                        let _ = std::fs::create_dir_all(&keep);
                        let name = format!("{seed}.c");
                        let _ = std::fs::copy(work.join(&name), keep.join(&name));
                    }
                    bar.inc(1);
                    results.lock().expect("results").push((seed, c, outcome));
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut summary = Summary {
        machine: machine(),
        first_seed: first,
        seeds,
        seconds: start.elapsed().as_secs_f64(),
        configs: BTreeMap::new(),
    };
    for (seed, c, outcome) in results.into_inner().expect("results") {
        let counts = summary
            .configs
            .entry(configs[c].name.to_string())
            .or_default();
        counts.seeds += 1;
        if !matches!(outcome, Outcome::Skipped(_)) {
            counts.attempted += 1;
        }
        if matches!(
            outcome,
            Outcome::Same | Outcome::Different { .. } | Outcome::RunError(_)
        ) {
            counts.compared += 1;
        }
        match &outcome {
            Outcome::Uncompared => {
                counts.compiled += 1;
                counts.uncompared += 1;
            }
            Outcome::Same => {
                counts.compiled += 1;
                counts.same += 1;
            }
            Outcome::Different { .. } => {
                counts.compiled += 1;
                counts.different += 1;
            }
            Outcome::RunError(_) => {
                counts.compiled += 1;
                counts.run_errors += 1;
            }
            Outcome::CompileError(_) => counts.compile_errors += 1,
            Outcome::Crash(_) => counts.crashes += 1,
            Outcome::Skipped(_) => counts.skipped += 1,
        }
        if !matches!(
            outcome,
            Outcome::Same | Outcome::Skipped(_) | Outcome::Uncompared
        ) {
            counts
                .failing_seeds
                .push(format!("{seed}: {}", outcome.label()));
        }
    }
    println!(
        "{:<10} {:>6} {:>9} {:>9} {:>8} {:>6} {:>9} {:>7} {:>9} {:>10} {:>7}",
        "config",
        "seeds",
        "attempted",
        "compiled",
        "compared",
        "same",
        "different",
        "crashes",
        "run-error",
        "uncompared",
        "skipped"
    );
    for (name, c) in &summary.configs {
        println!(
            "{:<10} {:>6} {:>9} {:>8.2}% {:>8} {:>6} {:>9} {:>7} {:>9} {:>10} {:>7}",
            name,
            c.seeds,
            c.attempted,
            100.0 * c.compiled as f64 / c.attempted.max(1) as f64,
            c.compared,
            c.same,
            c.different,
            c.crashes,
            c.run_errors,
            c.uncompared,
            c.skipped
        );
    }
    println!("{:.0} s", summary.seconds);
    let out = root.join("bench/results/csmith.json");
    let json = serde_json::to_string_pretty(&summary).expect("summary serializes") + "\n";
    std::fs::write(&out, json).expect("write bench/results/csmith.json");
    println!("wrote {}", out.display());
    let _ = std::fs::remove_dir_all(&work);
}
