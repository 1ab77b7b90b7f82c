//! Benchmark: array-of-structures kernels vectorized by `lanes vectorize` with interleaved
//! access groups (one wide access and shuffles per group; `lanes-wfv` `widen/interleave.rs`)
//! against their gather versions and against clang-19 -O3 -march=native, side by side in
//! one run.
//!
//! `bench/interleaved/kernels.c` holds `norm3` (the length of 3-float points: one load
//! group of three) and `cmul` (complex products of interleaved pairs: two load groups and
//! a store group), each next to a gather version that computes the same with the stride
//! passed at run time, which hides the groups (one gather or scatter per field, what
//! every array-of-structures access cost before). The interleaved builds' LLVM IR must
//! hold no gather or scatter and the gather builds' must. All four are vectorized into
//! `F_spmd` launchers; `reference.c` runs the kernels as loops built by `clang-19 -O3
//! -march=native` (whose loop vectorizer has interleaved groups of its own). One driver
//! (clang-19 -O2) runs the six, taking turns, 9 runs each, three rounds; reported: the
//! median of the rounds, the speedup of the interleaved build over its gather version and
//! over clang. Checksums of a kernel's three builds must agree. Results go to
//! `bench/results/interleaved.txt` and `.json`. The benchmark fails if an interleaved
//! build is not faster than its gather version.
//!
//! Run: `cargo bench -p lanes-cli --bench interleaved`.

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

/// (kernel, `--shapes`, whether its IR must hold gathers or scatters).
const KERNELS: [(&str, &str, bool); 4] = [
    ("norm3", "c,u,u", false),
    ("norm3_gather", "c,u,u,u", true),
    ("cmul", "c,u,u,u", false),
    ("cmul_gather", "c,u,u,u,u", true),
];

fn main() {
    let bench = SpmdBench::new("interleaved");
    let objects: Vec<PathBuf> = KERNELS
        .iter()
        .map(|(f, shapes, gathers)| {
            let (obj, text) = bench.vectorize(f, shapes, true, &[]);
            let text = text.unwrap_or_default();
            let has = text.contains("llvm.masked.gather") || text.contains("llvm.masked.scatter");
            assert_eq!(has, *gathers, "{f}: gathers or scatters: {has}\n{text}");
            obj
        })
        .collect();
    let exe = bench.link(objects, &["-lm"]);
    let mut out = header("interleaved access groups vs gathers: lanes vectorize and clang-19");
    let (n, reps) = (1u32 << 15, 400u32);
    let rounds = Rounds::run(&exe, &[n.to_string(), reps.to_string()], 3);
    let ms = |k: &str| rounds.median(k);
    let _ = writeln!(
        out,
        "\n{n} elements, {reps} sweeps per run\n{:<7} {:>12} {:>13} {:>12} {:>14} {:>13}",
        "kernel", "interleaved", "gathers", "clang -O3", "vs gathers", "vs clang"
    );
    let mut records = Vec::new();
    let mut ok = true;
    for k in ["norm3", "cmul"] {
        let (li, lg, c) = (
            ms(&format!("{k}/lanes")),
            ms(&format!("{k}/lanes-gather")),
            ms(&format!("{k}/clang")),
        );
        ok &= li < lg;
        let _ = writeln!(
            out,
            "{k:<7} {li:>10.3}ms {lg:>11.3}ms {c:>10.3}ms {:>13.2}x {:>12.2}x",
            lg / li,
            c / li
        );
        let (a, b, r) = (
            rounds.sum(&format!("{k}/lanes")),
            rounds.sum(&format!("{k}/lanes-gather")),
            rounds.sum(&format!("{k}/clang")),
        );
        assert!(
            (a - b).abs() <= 1e-6 * a.abs().max(1.0) && (a - r).abs() <= 1e-4 * r.abs().max(1.0),
            "{k}: checksums differ: {a} {b} {r}"
        );
        for (config, t) in [
            ("lanes interleaved", li),
            ("lanes gathers", lg),
            ("clang", c),
        ] {
            records.push(serde_json::json!({
                "kernel": k,
                "config": config,
                "median_ms": t,
                "speedup_vs_clang": c / t,
            }));
        }
    }
    let _ = writeln!(out, "\nvs gathers / vs clang: time of the other build over the interleaved one (> 1: interleaved faster)");
    let size = serde_json::json!({ "elements": n, "sweeps": reps });
    write_results("interleaved", &out, size, records);
    bench.clean();
    assert!(
        ok,
        "an interleaved build is not faster than its gather version"
    );
}
