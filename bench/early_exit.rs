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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cmd::{run, s};
use machine::machine;
use results::write_results;
use rounds::Rounds;

/// (kernel, `--shapes`, its name in the driver's table).
const KERNELS: [(&str, &str, &str); 3] = [
    ("find_first", "c,u,u,u,u", "find_first"),
    ("strlen_each", "c,u,u,u", "strlen"),
    ("search_sorted", "c,u,u,u,u", "search_sorted"),
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/early_exit");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("lanes-bench-early-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let kernels = root.join("kernels.c");
    let mut objects: Vec<PathBuf> = KERNELS
        .iter()
        .map(|(f, shapes, _)| {
            let obj = dir.join(format!("{f}.o"));
            run(Command::new(env!("CARGO_BIN_EXE_lanes"))
                .args([
                    "vectorize",
                    s(&kernels),
                    "--function",
                    f,
                    "--shapes",
                    shapes,
                ])
                .args(["-O3", "-march=native", "-o", s(&obj)]));
            obj
        })
        .collect();
    let clang = lanes_llvm::clang::clang_program();
    let reference = dir.join("reference.o");
    run(Command::new(&clang)
        .args(["-O3", "-march=native", "-c", s(&root.join("reference.c"))])
        .args(["-o", s(&reference)]));
    objects.push(reference);
    let exe = dir.join("early_exit");
    run(Command::new(&clang)
        .args(["-O2", s(&root.join("driver.c"))])
        .args(&objects)
        .args(["-o", s(&exe)]));

    let isa = machine::vector_isa();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "early-exit loops of each instance: lanes vectorize and clang-19"
    );
    let _ = writeln!(out, "machine: {}", machine());
    let _ = writeln!(
        out,
        "ISA: {isa}; lanes vectorize -O3 -march=native; clang-19 -O3 -march=native (plain \
         loops); driver clang-19 -O2; median of 9 runs (rotating order), median of 3 rounds; \
         load average at start: {}",
        load.split_whitespace().next().unwrap_or("?")
    );
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
    let json = serde_json::json!({
        "machine": machine(),
        "isa": isa,
        "instances": n,
        "sweeps": reps,
        "records": records,
    });
    write_results("early_exit", &out, &json);
    let _ = std::fs::remove_dir_all(&dir);
}
