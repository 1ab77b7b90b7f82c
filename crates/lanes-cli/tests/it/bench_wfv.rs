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
        // Every lanes configuration that applies (per-lane-arrays needs private arrays);
        // the ISPC column has its own test.
        .args([
            "--configs",
            "full,partial,partial+boscc,partial+boscc+fusion,per-lane-arrays,reconverge,\
             reconverge+skip-off,reconverge+profile,partial+boscc+fusion+libmvec",
        ])
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
    // clang's build and eight lanes configurations per width, for each kernel.
    assert_eq!(records.len(), 2 * (1 + 8 * widths), "{text}");
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
        "reconverge",
        "reconverge+skip-off",
        "reconverge+profile",
        "partial+boscc+fusion+libmvec",
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

#[test]
fn bench_wfv_rejects_an_unknown_configuration_and_names_the_known_ones() {
    let out = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["bench", "wfv", "--configs", "partial,nosuch"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--configs nosuch") && err.contains("reconverge") && err.contains("ispc"),
        "{err}"
    );
}

/// The `ispc` binary `lanes bench wfv` would find, if any: on PATH or where
/// `scripts/build-ispc` installs it.
fn ispc() -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.join("ispc"));
    let built = std::env::var_os("HOME")
        .map(|h| std::path::PathBuf::from(h).join(".local/lanes-ispc/bin/ispc"));
    on_path.chain(built).find(|p| p.is_file())
}

/// With ISPC present, the kernels with an `.ispc` twin get an `ispc` record per width
/// whose result agreed with clang's (within the peer tolerance; the harness fails the
/// build otherwise); without it, the table says ISPC is absent.
#[test]
fn bench_wfv_runs_ispc_as_a_peer_where_it_is_installed() {
    let d = scratch_dir("bench_wfv_ispc");
    let json = d.join("wfv.json");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "bench",
            "wfv",
            "--kernels",
            "mandelbrot,rpn_eval,twin_sides",
        ])
        .args([
            "--configs",
            "partial,ispc",
            "--scale",
            "0.002",
            "--runs",
            "1",
        ])
        .args(["--json", s(&json)]));
    let table = String::from_utf8_lossy(&out.stdout);
    let Some(ispc) = ispc() else {
        assert!(table.contains("ISPC: absent"), "{table}");
        eprintln!("skipped: no ispc (scripts/build-ispc SRC builds ISPC v1.30.0 from its source)");
        return;
    };
    assert!(table.contains("ISPC: "), "{table}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    assert!(v["ispc"].is_string(), "{v}");
    let records = v["records"].as_array().expect("records");
    let ispc_kernels: Vec<&str> = records
        .iter()
        .filter(|r| r["config"] == "ispc")
        .filter_map(|r| r["kernel"].as_str())
        .collect();
    // twin_sides has no twin.
    assert!(
        ispc_kernels.contains(&"mandelbrot") && ispc_kernels.contains(&"rpn_eval"),
        "{} gave {ispc_kernels:?}",
        ispc.display()
    );
    assert!(!ispc_kernels.contains(&"twin_sides"), "{ispc_kernels:?}");
    assert!(
        v["failures"].as_array().is_some_and(|f| f.is_empty()),
        "{v}"
    );
}

/// `--widths` replaces the default widths (natural and 8) by the ones given.
#[test]
fn bench_wfv_builds_the_widths_asked_for() {
    let d = scratch_dir("bench_wfv_widths");
    let json = d.join("wfv.json");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "bench",
            "wfv",
            "--kernels",
            "twin_sides",
            "--configs",
            "partial",
        ])
        .args(["--widths", "4,16", "--scale", "0.002", "--runs", "1"])
        .args(["--json", s(&json)]));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    let mut widths: Vec<u64> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["width"].as_u64())
        .collect();
    widths.sort_unstable();
    assert_eq!(widths, [4, 16], "{v}");
}
