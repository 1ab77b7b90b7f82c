//! `lanes bench reconverge` end to end on the fixed reducible generated functions: one
//! JSON record per function with a divergent branch, every block order reconverging it
//! (no reducible function is declined), structurization counted where opt-19 is
//! installed, and the totals printed. No figure is asserted beyond what must hold.

use crate::common;

use std::process::Command;

use common::{run, s, scratch_dir};

#[test]
fn bench_reconverge_counts_every_order_and_the_peers() {
    let d = scratch_dir("bench_reconverge");
    let json = d.join("reconverge.json");
    let input = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/reconverge/reducible.lir");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["bench", "reconverge", "--json", s(&json)])
        .arg(&input));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("totals over") && table.contains("rpot"),
        "{table}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let rows = v["functions"].as_array().expect("functions");
    assert!(rows.len() >= 10, "{}", rows.len());
    for r in rows {
        let orders = r["orders"].as_array().expect("orders");
        assert_eq!(orders.len(), 4, "{r}");
        assert!(
            orders.iter().all(|o| o["flow_blocks"].is_u64()),
            "declined: {r}"
        );
        assert!(r["partial_blocks_added"].is_i64(), "{r}");
    }
}

/// `--run-time`: the benchmark kernels (here one, tiny) built with full if-conversion,
/// partial linearization and the reconverging transform, each checked against clang's
/// scalar build by the harness, one JSON record per build.
#[test]
fn bench_reconverge_times_the_kernels_under_each_lowering() {
    let d = scratch_dir("bench_reconverge_run_time");
    let json = d.join("run_time.json");
    let input = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/reconverge/reducible.lir");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "bench",
            "reconverge",
            "--run-time",
            "--kernels",
            "mandelbrot",
        ])
        .args([
            "--scale",
            "0.002",
            "--runs",
            "1",
            "--repeat",
            "3",
            "--run-time-json",
            s(&json),
        ])
        .arg(&input));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("run time of the benchmark kernels"),
        "{table}"
    );
    assert!(table.contains("median over 3 processes"), "{table}");
    for build in ["reconverge", "reconverge+profile"] {
        for base in ["full", "partial", "reconverge+skip-off"] {
            let line = format!("{build}/");
            let over = format!("over {base}/");
            let summary = table
                .lines()
                .find(|l| l.starts_with(&line) && l.contains(&over))
                .unwrap_or("");
            assert!(
                summary.contains("over 1 kernels, slowest mandelbrot"),
                "{build} over {base}: {table}"
            );
        }
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let configs: Vec<&str> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["config"].as_str())
        .collect();
    for c in [
        "clang -O3",
        "full",
        "partial",
        "reconverge",
        "reconverge+skip-off",
        "reconverge+profile",
    ] {
        assert!(configs.contains(&c), "{c} missing: {configs:?}");
    }
    assert!(!configs.contains(&"ispc"), "{configs:?}");
    assert_eq!(v["repeat"], 3);
}
