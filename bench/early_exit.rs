//! Benchmark: early-exit loops of each instance — find-first in a row, strlen, a search
//! in a sorted table — vectorized by `lanes vectorize` (the divergent loop transform of
//! PLDI'18 §5: lanes that left are masked off, so no lane reads past where its scalar
//! loop stops) against clang-19 -O3 -march=native on the plain loops over the instances
//! (LLVM's vectorizers leave loops with data-dependent exits scalar), side by side in
//! one run.
//!
//! `bench/early_exit/kernels.c` holds the three kernels; each is vectorized into its
//! `F_spmd` launcher; `reference.c` is clang's build. The driver (clang-19 -O2) allocates
//! the strings' text and the rows to exactly their bytes, runs the six builds taking
//! turns, 9 runs each, three rounds; reported: the median of the rounds and lanes'
//! speedup over clang, whose checksums must be equal. Results go to
//! `bench/results/early_exit.txt` and `.json`.
//!
//! Run: `cargo bench -p lanes-cli --bench early_exit`.

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

/// (kernel, `--shapes`, its name in the driver's table).
const KERNELS: [(&str, &str, &str); 3] = [
    ("find_first", "c,u,u,u,u", "find_first"),
    ("strlen_each", "c,u,u,u", "strlen"),
    ("search_sorted", "c,u,u,u,u", "search_sorted"),
];

fn main() {
    let bench = SpmdBench::new("early_exit");
    let objects: Vec<PathBuf> = KERNELS
        .iter()
        .map(|(f, shapes, _)| bench.vectorize(f, shapes, false).0)
        .collect();
    let exe = bench.link(objects, &[]);
    let mut out = header("early-exit loops of each instance: lanes vectorize and clang-19");
    let (n, reps) = (1u32 << 14, 40u32);
    let rounds = Rounds::run(&exe, &[n.to_string(), reps.to_string()], 3);
    let _ = writeln!(
        out,
        "\n{n} instances, {reps} sweeps per run (rows of 64 floats, strings of 0-47 bytes, a \
         table of 256 ints)\n{:<14} {:>10} {:>12} {:>13}",
        "kernel", "lanes", "clang -O3", "lanes/clang"
    );
    let mut records = Vec::new();
    for (_, _, k) in KERNELS {
        let (l, c) = (
            rounds.median(&format!("{k}/lanes")),
            rounds.median(&format!("{k}/clang")),
        );
        let _ = writeln!(out, "{k:<14} {l:>8.3}ms {c:>10.3}ms {:>12.2}x", c / l);
        let (a, b) = (
            rounds.sum(&format!("{k}/lanes")),
            rounds.sum(&format!("{k}/clang")),
        );
        assert!(a == b, "{k}: lanes and clang disagree: {a} vs {b}");
        for (config, t) in [("lanes", l), ("clang", c)] {
            records.push(serde_json::json!({
                "kernel": k,
                "config": config,
                "median_ms": t,
                "speedup_vs_clang": c / t,
            }));
        }
    }
    let _ = writeln!(
        out,
        "\nlanes/clang: clang's time over lanes' (> 1: lanes faster)"
    );
    let size = serde_json::json!({ "instances": n, "sweeps": reps });
    write_results("early_exit", &out, size, records);
    bench.clean();
}
