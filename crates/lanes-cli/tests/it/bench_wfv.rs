//! `lanes bench wfv` end to end on two kernels at a tiny size: every build is made, its
//! result agrees with clang's scalar build (the harness fails the kernel otherwise), and
//! the JSON has one record per kernel and configuration with the promised fields (and
//! the SIMD utilization measured in the SIMT interpreter); the plot is an SVG. No figure is asserted: timings belong to `cargo bench`-style runs.

use crate::common;

use std::process::Command;

use common::{run, s, scratch_dir};

#[test]
fn bench_wfv_builds_checks_and_reports_every_configuration() {
    let d = scratch_dir("bench_wfv");
    let (json, svg) = (d.join("wfv.json"), d.join("wfv.svg"));
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["bench", "wfv", "--kernels", "twin_sides,tree_search"])
        .args([
            "--scale",
            "0.002",
            "--runs",
            "1",
            "--json",
            s(&json),
            "--plot",
            s(&svg),
        ]));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("machine:") && table.contains("partial+boscc+fusion"),
        "{table}"
    );
    let text = std::fs::read_to_string(&json).expect("json written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let records = v["records"].as_array().expect("records");
    let widths = v["natural_width"]
        .as_u64()
        .map_or(0, |w| if w == 8 { 1 } else { 2 });
    // clang's build and four lanes configurations per width, for each kernel.
    assert_eq!(records.len(), 2 * (1 + 4 * widths), "{text}");
    for r in records {
        for field in [
            "kernel",
            "config",
            "width",
            "median_seconds",
            "speedup_vs_clang",
        ] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
        assert!(r["median_seconds"].as_f64().is_some_and(|t| t > 0.0), "{r}");
        // SIMD utilization for lanes' builds, a fraction of the lanes.
        if r["width"].is_u64() {
            let u = r["simd_utilization"].as_f64();
            assert!(u.is_some_and(|u| u > 0.0 && u <= 1.0), "{r}");
        }
    }
    // The two sides of twin_sides go either way: some lanes idle on each.
    let twin = records
        .iter()
        .find(|r| r["kernel"] == "twin_sides" && r["width"].is_u64())
        .and_then(|r| r["simd_utilization"].as_f64());
    assert!(twin.is_some_and(|u| u < 0.95), "{twin:?}");
    let configs: Vec<&str> = records
        .iter()
        .filter_map(|r| r["config"].as_str())
        .collect();
    for c in [
        "clang -O3",
        "full",
        "partial",
        "partial+boscc",
        "partial+boscc+fusion",
    ] {
        assert!(configs.contains(&c), "{c} missing: {configs:?}");
    }
    assert!(
        v["failures"].as_array().is_some_and(|f| f.is_empty()),
        "{text}"
    );
    let plot = std::fs::read_to_string(&svg).expect("svg written");
    assert!(
        plot.starts_with("<svg") && plot.contains("twin_sides"),
        "{plot}"
    );
}

#[test]
fn bench_wfv_names_the_kernels_when_one_is_unknown() {
    let out = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["bench", "wfv", "--kernels", "nosuch"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no kernel `nosuch`") && err.contains("mandelbrot"),
        "{err}"
    );
}
