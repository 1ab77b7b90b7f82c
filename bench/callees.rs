//! Benchmark: SPMD kernels that call a helper, vectorized by `lanes vectorize`, against the
//! same kernels with the helper inlined by hand, and against clang-19 -O3 -march=native on
//! the plain loops, side by side in one run.
//!
//! `bench/callees/kernels.c` holds three pairs: a Collatz step count (the helper holds a
//! divergent loop), a polynomial called under a divergent branch (the helper's masked
//! variant), and an axpy through pointers to the element (contiguous pointer arguments:
//! the variant's accesses are vector loads and stores). The helpers are `noinline`, so the
//! calls reach lanes, which vectorizes each helper for the argument shapes at its call site
//! (`lanes-wfv` `widen/callees.rs`). Each `_call` build's LLVM IR must hold no scalar call of
//! its helper (no per-lane calls) and no gather or scatter.
//!
//! The six kernels are vectorized with `lanes vectorize -O3 -march=native` into their
//! `F_spmd(n, …)` launchers; `bench/callees/reference.c` runs the same kernels as loops
//! compiled by `clang-19 -O3 -march=native` (one translation unit, so clang may inline
//! and vectorize what it can). One driver (`bench/callees/driver.c`, clang-19 -O2) runs all
//! twelve, taking turns in rotating order, 9 runs each; three rounds. Reported per kernel:
//! the median over the rounds; per pair, lanes' call/inline ratio (the target: within
//! 10%) and the speedup of lanes over clang on the same source. Checksums of a pair must be
//! equal (both lanes builds compute the same arithmetic). Results go to
//! `bench/results/callees.txt` and `bench/results/callees.json`.
//!
//! Run: `cargo bench -p lanes-cli --bench callees`.

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

/// (kernel, `--shapes`, the helper it calls: none in the scalar call of an `_call` build).
const KERNELS: [(&str, &str, &str); 6] = [
    ("steps_call", "c,u,u", "collatz_steps"),
    ("steps_inline", "c,u,u", ""),
    ("shade_call", "c,u,u,u", "shade"),
    ("shade_inline", "c,u,u,u", ""),
    ("axpy_call", "c,u,u,u", "axpy_at"),
    ("axpy_inline", "c,u,u,u", ""),
];

/// Vectorizes `f`, checking its `.ll`: no gather or scatter, and no scalar call of
/// `helper` (a call of its vector variant is inlined by LLVM or takes vectors).
fn vectorize(bench: &SpmdBench, f: &str, shapes: &str, helper: &str) -> PathBuf {
    let (obj, text) = bench.vectorize(f, shapes, true, &[]);
    let text = text.unwrap_or_default();
    assert!(
        !text.contains("llvm.masked.gather") && !text.contains("llvm.masked.scatter"),
        "{f}: gathers or scatters\n{text}"
    );
    if !helper.is_empty() {
        let scalar_call = text
            .lines()
            .filter(|l| l.contains(" call ") && l.contains(&format!("@{helper}(")))
            .find(|l| !l.contains("<"));
        assert!(
            scalar_call.is_none(),
            "{f}: @{helper} is called per lane: {scalar_call:?}"
        );
    }
    obj
}

fn main() {
    let bench = SpmdBench::new("callees");
    let objects: Vec<PathBuf> = KERNELS
        .iter()
        .map(|(f, shapes, helper)| vectorize(&bench, f, shapes, helper))
        .collect();
    let exe = bench.link(objects, &[]);
    let mut out = header("helper calls vs helpers inlined by hand: lanes vectorize and clang-19");
    let (n, reps) = (1u32 << 16, 400u32);
    let rounds = Rounds::run(&exe, &[n.to_string(), reps.to_string()], 3);
    let ms = |k: &str| rounds.median(k);
    let _ = writeln!(
        out,
        "\n{n} elements, {reps} sweeps per run (Collatz: {} sweeps)\n\
         {:<7} {:>11} {:>13} {:>10} {:>12} {:>13} {:>12} {:>12}",
        reps.div_ceil(100),
        "kernel",
        "lanes call",
        "lanes inline",
        "call/inl",
        "within 10%",
        "clang call",
        "clang inline",
        "lanes/clang"
    );
    let mut records = Vec::new();
    let mut ok = true;
    for pair in ["steps", "shade", "axpy"] {
        let (call, inline) = (format!("{pair}_call"), format!("{pair}_inline"));
        let lc = ms(&format!("{call}/lanes"));
        let li = ms(&format!("{inline}/lanes"));
        let cc = ms(&format!("{call}/clang"));
        let ci = ms(&format!("{inline}/clang"));
        let ratio = lc / li;
        let within = ratio <= 1.10;
        ok &= within;
        // lanes calling the helper against clang's best build of the same computation.
        let speedup = cc.min(ci) / lc;
        let _ = writeln!(
            out,
            "{pair:<7} {lc:>9.3}ms {li:>11.3}ms {ratio:>9.3}x {:>12} {cc:>11.3}ms {ci:>10.3}ms {speedup:>11.2}x",
            if within { "yes" } else { "no" },
        );
        let (a, b) = (
            rounds.sum(&format!("{call}/lanes")),
            rounds.sum(&format!("{inline}/lanes")),
        );
        assert!(
            a == b,
            "{pair}: the lanes builds compute different results: {a} vs {b}"
        );
        let c = rounds.sum(&format!("{inline}/clang"));
        assert!(
            (a - c).abs() <= 1e-4 * c.abs().max(1.0),
            "{pair}: lanes and clang disagree: {a} vs {c}"
        );
        for (config, t) in [
            ("lanes call", lc),
            ("lanes inline", li),
            ("clang call", cc),
            ("clang inline", ci),
        ] {
            records.push(serde_json::json!({
                "kernel": pair,
                "config": config,
                "median_ms": t,
                "speedup_vs_clang": cc.min(ci) / t,
            }));
        }
    }
    let _ = writeln!(
        out,
        "\nlanes/clang: clang's faster build of the pair over lanes' call build (> 1: lanes faster)"
    );
    let size = serde_json::json!({ "elements": n, "sweeps": reps });
    write_results("callees", &out, size, records);
    bench.clean();
    assert!(
        ok,
        "a kernel calling its helper is more than 10% slower than with it inlined"
    );
}
