//! Benchmark: early-exit loops, two kinds, each against clang-19 -O3 -march=native side by
//! side in one run (LLVM 19's vectorizers leave loops with data-dependent exits scalar).
//!
//! **Each instance's own loop leaves early** — find-first in a row, strlen, a search in a
//! sorted table — vectorized by `lanes vectorize` (the divergent loop transform of
//! PLDI'18 §5: lanes that left are masked off, so no lane reads past where its scalar
//! loop stops) against the plain loops over the instances.
//!
//! `bench/early_exit/kernels.c` holds the three kernels; each is vectorized into its
//! `F_spmd` launcher; `reference.c` is clang's build. The driver (clang-19 -O2) allocates
//! the strings' text and the rows to exactly their bytes, runs the six builds taking
//! turns, 9 runs each, three rounds; reported: the median of the rounds and lanes'
//! speedup over clang, whose checksums must be equal. Results go to
//! `bench/results/early_exit.txt` and `.json`.
//!
//! **The parallel loop itself leaves early** — find the first element above a bound, a
//! strlen bounded far past every string, a search in an unsorted array with `return` —
//! written as plain C loops with `vectorize(assume_safety)` in `loops.c`, compiled by
//! `lanes compile -fopenmp-simd -O3 -march=native` (each vector step probes the exit test
//! ahead, reading only within pages the loop reads, then commits the iterations before
//! the exit) and by clang-19 with the same flags; `loops_driver.c` times both builds
//! (Q = 64 calls per sweep, exits spread over 0..N, the text allocated to exactly its
//! bytes), 9 runs each, three rounds.
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
use std::process::Command;

use cmd::{run, s};

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
        .map(|(f, shapes, _)| bench.vectorize(f, shapes, false, &[]).0)
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
    let names: Vec<&str> = KERNELS.iter().map(|&(_, _, k)| k).collect();
    let mut records = rows(&rounds, &names, "instance loops", &mut out);
    let (len, sweeps) = (1u32 << 16, 10u32);
    records.extend(parallel_loops(&bench, len, sweeps, &mut out));
    let _ = writeln!(
        out,
        "\nlanes/clang: clang's time over lanes' (> 1: lanes faster)"
    );
    let size = serde_json::json!({
        "instances": n,
        "sweeps": reps,
        "parallel_loop_length": len,
        "parallel_loop_sweeps": sweeps,
    });
    write_results("early_exit", &out, size, records);
    bench.clean();
}

/// The parallel loops of `loops.c` left early: lanes compile against clang, `len`
/// elements, `sweeps` sweeps of 64 calls per run; appends the table to `out` and returns
/// the records.
fn parallel_loops(
    bench: &SpmdBench,
    len: u32,
    sweeps: u32,
    out: &mut String,
) -> Vec<serde_json::Value> {
    let clang = lanes_llvm::clang::clang_program();
    let src = bench.root.join("loops.c");
    let flags = ["-O3", "-march=native", "-fopenmp-simd"];
    let lanes_obj = bench.dir.join("loops-lanes.o");
    let clang_obj = bench.dir.join("loops-clang.o");
    let remarks = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .arg("compile")
        .args(flags)
        .args(["--remarks", "-c", s(&src), "-o", s(&lanes_obj)])
        .output()
        .expect("lanes compile");
    assert!(remarks.status.success(), "lanes compile loops.c");
    let notes = String::from_utf8_lossy(&remarks.stderr);
    assert_eq!(
        notes
            .matches("vectorized by lanes as an outer loop")
            .count(),
        3,
        "{notes}"
    );
    run(Command::new(&clang)
        .args(flags)
        .args(["-DNAME(f)=ref_##f", "-Wno-pass-failed", "-c", s(&src), "-o"])
        .arg(&clang_obj));
    let exe = bench.dir.join("loops-bench");
    run(Command::new(&clang)
        .args(["-O2", s(&bench.root.join("loops_driver.c"))])
        .args([&lanes_obj, &clang_obj])
        .arg("-o")
        .arg(&exe));
    let rounds = Rounds::run(&exe, &[len.to_string(), sweeps.to_string()], 3);
    let _ = writeln!(
        out,
        "\nparallel loops left early (lanes compile {} vs clang-19 the same): {len} \
         elements, {sweeps} sweeps of 64 calls per run\n{:<14} {:>10} {:>12} {:>13}",
        flags.join(" "),
        "kernel",
        "lanes",
        "clang -O3",
        "lanes/clang"
    );
    rows(
        &rounds,
        &["find_above", "strlen", "search"],
        "parallel loops",
        out,
    )
}

/// One table row per kernel of `rounds` (lanes' and clang's medians, their ratio) into
/// `out`; the JSON records, tagged with `part`. lanes and clang must agree on each
/// checksum.
fn rows(rounds: &Rounds, kernels: &[&str], part: &str, out: &mut String) -> Vec<serde_json::Value> {
    let mut records = Vec::new();
    for k in kernels {
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
                "part": part,
                "kernel": k,
                "config": config,
                "median_ms": t,
                "speedup_vs_clang": c / t,
            }));
        }
    }
    records
}
