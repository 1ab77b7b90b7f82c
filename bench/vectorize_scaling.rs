//! Benchmark of compile time: `lanes vectorize` and `lanes compile -O2` on one generated
//! function of N statements, beside `clang-19 -O2 -c` on the same source, for N doubling
//! from 2,500. A compiler must scale with the code it is given; each doubling should cost
//! about twice the time, and lanes should stay within a small factor of clang.
//!
//! The function is an SPMD kernel body `big(long i, int *a, float *b, int u)` whose
//! statements cycle through a divergent if/else on a varying value, integer mixing, a
//! float select and a uniform branch, so that shape analysis, partial linearization and
//! widening all have work proportional to N.
//!
//! Run: `cargo bench -p lanes-cli --bench vectorize_scaling -- [--sizes 2500,5000,10000]
//! [--runs 3]`. Prints the machine, the medians and the growth per doubling, and writes
//! `bench/results/vectorize_scaling.json`.

#[path = "common/machine.rs"]
mod machine;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use machine::machine;
use serde::Serialize;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The C source of a function of `n` statements.
fn source(n: usize) -> String {
    let mut s = String::from(
        "void big(long i, int *a, float *b, int u) {\n  int x = a[i]; float y = b[i];\n",
    );
    for k in 0..n {
        let line = match k % 4 {
            0 => format!(
                "  if (x > {}) x = x * {} + u; else y = y * 0.5f + {};\n",
                k % 97,
                k % 7 + 1,
                k % 13
            ),
            1 => format!("  x ^= (x >> {}) + {k};\n", k % 5 + 1),
            2 => format!("  y = y > {}.0f ? y - 1.0f : y + (float)x;\n", k % 11),
            _ => format!("  if (u > {}) {{ x += {}; }}\n", k % 50, k % 3),
        };
        s.push_str(&line);
    }
    s.push_str("  a[i] = x; b[i] = y;\n}\n");
    s
}

/// Runs `cmd` `runs` times; the median wall time.
fn time(cmd: &mut Command, runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
            assert!(
                out.status.success(),
                "{cmd:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

#[derive(Serialize)]
struct Row {
    statements: usize,
    lanes_vectorize_s: f64,
    lanes_compile_s: f64,
    clang_s: f64,
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn main() {
    let sizes: Vec<usize> = arg("--sizes")
        .unwrap_or_else(|| "2500,5000,10000".into())
        .split(',')
        .filter_map(|v| v.parse().ok())
        .collect();
    let runs: usize = arg("--runs").and_then(|v| v.parse().ok()).unwrap_or(3);
    let lanes = PathBuf::from(env!("CARGO_BIN_EXE_lanes"));
    let dir = std::env::temp_dir().join(format!("lanes-vscale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("work dir");
    println!("vectorize_scaling: {}", machine());
    println!("settings: median of {runs} runs; lanes vectorize --shapes c,u,u,u -O2 (host target); lanes compile -O2 -c; clang-19 -O2 -c");
    println!(
        "{:>10} {:>14} {:>14} {:>10} {:>12} {:>12}",
        "statements", "vectorize s", "compile s", "clang s", "vec/clang", "comp/clang"
    );
    let mut rows: Vec<Row> = Vec::new();
    for &n in &sizes {
        let src = dir.join(format!("big{n}.c"));
        std::fs::write(&src, source(n)).expect("write source");
        let obj = dir.join("out.o");
        let v = time(
            Command::new(&lanes)
                .args([
                    "vectorize",
                    s(&src),
                    "--function",
                    "big",
                    "--shapes",
                    "c,u,u,u",
                ])
                .args(["-O2", "-o", s(&obj)]),
            runs,
        );
        let c = time(
            Command::new(&lanes).args(["compile", "-O2", "-c", s(&src), "-o", s(&obj)]),
            runs,
        );
        let k = time(
            Command::new("clang-19").args(["-O2", "-c", s(&src), "-o", s(&obj)]),
            runs,
        );
        let row = Row {
            statements: n,
            lanes_vectorize_s: v.as_secs_f64(),
            lanes_compile_s: c.as_secs_f64(),
            clang_s: k.as_secs_f64(),
        };
        println!(
            "{:>10} {:>14.2} {:>14.2} {:>10.2} {:>12.2} {:>12.2}",
            n,
            row.lanes_vectorize_s,
            row.lanes_compile_s,
            row.clang_s,
            row.lanes_vectorize_s / row.clang_s,
            row.lanes_compile_s / row.clang_s
        );
        rows.push(row);
    }
    for w in rows.windows(2) {
        println!(
            "{} -> {}: vectorize x{:.2}, compile x{:.2}, clang x{:.2}",
            w[0].statements,
            w[1].statements,
            w[1].lanes_vectorize_s / w[0].lanes_vectorize_s,
            w[1].lanes_compile_s / w[0].lanes_compile_s,
            w[1].clang_s / w[0].clang_s
        );
    }
    let out =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results/vectorize_scaling.json");
    let json = serde_json::json!({ "machine": machine(), "runs": runs, "rows": rows });
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&json).expect("json") + "\n",
    )
    .expect("write results");
    println!("wrote {}", out.display());
    let _ = std::fs::remove_dir_all(&dir);
}
