//! `lanes bench slp` end to end on three kernels at a tiny size: all three builds are
//! made, their results agree with clang -O3's (the harness fails a kernel otherwise), the
//! table has per-suite geometric means, the JSON one record per kernel and build with the
//! promised fields, and the plot is an SVG. No figure is asserted: timings belong to
//! benchmark runs.

use crate::common;

use std::process::Command;

use common::{run, s, scratch_dir};

#[test]
fn bench_slp_builds_checks_and_reports_every_build() {
    let d = scratch_dir("bench_slp");
    let (json, svg) = (d.join("slp.json"), d.join("slp.svg"));
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "bench",
        "slp",
        "--kernels",
        "tsvc_s271,poly_gemm,ispc_options",
        "--scale",
        "0.05",
        "--runs",
        "1",
        "--json",
        s(&json),
        "--plot",
        s(&svg),
    ]));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("machine:") && table.contains("geometric mean"),
        "{table}"
    );
    for suite in ["TSVC", "PolyBench", "ispc"] {
        assert!(
            table.contains(&format!("  {suite:<10} lanes --slp")),
            "{table}"
        );
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let kernels = v["report"]["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 3, "{v}");
    for k in kernels {
        assert!(
            k["failures"].as_array().expect("failures").is_empty(),
            "{k}"
        );
        let records = k["records"].as_array().expect("records");
        let configs: Vec<&str> = records
            .iter()
            .filter_map(|r| r["config"].as_str())
            .collect();
        assert_eq!(
            configs,
            [
                "clang -O3",
                "clang -O3 scalar",
                "lanes --slp",
                "lanes --slp alone"
            ],
            "{k}"
        );
        for r in records {
            assert!(r["median_seconds"].as_f64().is_some_and(|t| t > 0.0), "{r}");
            assert!(r["speedup_vs_clang"].as_f64().is_some(), "{r}");
        }
    }
    // The conditional TSVC loop was unrolled and packed.
    let s271 = kernels
        .iter()
        .find(|k| k["kernel"] == "tsvc_s271")
        .expect("s271");
    assert!(
        s271["packs"].as_u64().is_some_and(|p| p > 0) && s271["unrolled"] == 1,
        "{s271}"
    );
    let svg_text = std::fs::read_to_string(&svg).expect("plot written");
    assert!(svg_text.starts_with("<svg"), "not an SVG");
}
