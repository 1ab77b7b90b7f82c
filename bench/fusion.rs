//! Benchmark: branch fusion (PACT'11 §IV-A) on divergent arithmetic whose two sides run
//! the same sequence on different operands, taken about half the time each, so that after
//! linearization both sides run for almost every vector of lanes. `bench/fusion/kernels.c`
//! holds two copies of the kernel, vectorized by `lanes vectorize -O3 -march=native` with
//! `--branch-fusion off` and `auto` (the default); `reference.c` is the plain loop built
//! by clang-19 -O3 -march=native. The driver (clang-19 -O2) runs the three builds taking
//! turns, 9 runs each, three rounds; reported: the median of the rounds, each build's
//! speedup over clang and over `--branch-fusion off`, the pairs fusion merged (from
//! `--stats-json`), with checksums that must agree. Results go to
//! `bench/results/fusion.txt` and `.json`.
//!
//! Run: `cargo bench -p lanes-cli --bench fusion`.

#[path = "common/cmd.rs"]
mod cmd;
#[path = "common/machine.rs"]
mod machine;
#[path = "common/results.rs"]
mod results;
#[path = "common/rounds.rs"]
mod rounds;
#[path = "common/spmd.rs"]
mod spmd;

use std::fmt::Write as _;
use std::path::PathBuf;

use results::write_results;
use rounds::Rounds;
use spmd::{header, SpmdBench};

const SETTINGS: [&str; 2] = ["off", "auto"];

fn main() {
    let bench = SpmdBench::new("fusion");
    let mut fused = Vec::new();
    let objects: Vec<PathBuf> = SETTINGS
        .iter()
        .map(|s| {
            let f = format!("twin_{s}");
            let stats = bench.dir.join(format!("{f}.json"));
            let stats_arg = stats.display().to_string();
            let extra = ["--branch-fusion", s, "--stats-json", &stats_arg];
            let object = bench.vectorize(&f, "c,u,u,u", false, &extra).0;
            fused.push(fused_pairs(&stats));
            object
        })
        .collect();
    let exe = bench.link(objects, &["-lm"]);
    let mut out = header(
        "Branch fusion on twin-sided arithmetic: lanes vectorize --branch-fusion and clang-19",
    );
    let (n, reps) = (1u32 << 20, 4u32);
    let rounds = Rounds::run(&exe, &[n.to_string(), reps.to_string()], 3);
    let _ = writeln!(
        out,
        "\n{n} instances, {reps} sweeps per run; pairs fused: off {}, auto {}\n{:<14} {:>10} {:>12} {:>12}",
        fused[0], fused[1], "build", "median", "vs clang", "vs off"
    );
    let clang = rounds.median("twin/clang");
    let off = rounds.median("twin/off");
    let want = rounds.sum("twin/clang");
    let mut records = Vec::new();
    for (k, config) in ["off", "auto", "clang"].into_iter().enumerate() {
        let name = format!("twin/{config}");
        let t = rounds.median(&name);
        let sum = rounds.sum(&name);
        assert!(sum == want, "{name}: checksum {sum}, clang's {want}");
        let _ = writeln!(
            out,
            "{name:<14} {t:>8.3}ms {:>11.2}x {:>11.2}x",
            clang / t,
            off / t
        );
        records.push(serde_json::json!({
            "kernel": "twin",
            "config": if config == "clang" { "clang -O3".to_string() } else { format!("lanes --branch-fusion {config}") },
            "median_ms": t,
            "speedup_vs_clang": clang / t,
            "speedup_vs_fusion_off": off / t,
            "fused_pairs": fused.get(k),
        }));
    }
    let _ = writeln!(
        out,
        "\nvs clang / vs off: that build's time over this one's (> 1: this is faster)"
    );
    let size = serde_json::json!({ "instances": n, "sweeps": reps });
    write_results("fusion", &out, size, records);
    bench.clean();
}

/// The pairs branch fusion merged, summed over the functions of a `--stats-json` file.
fn fused_pairs(path: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows = json.as_array().cloned().unwrap_or_default();
    rows.iter()
        .filter_map(|r| r["fused_instructions"].as_u64())
        .sum()
}
