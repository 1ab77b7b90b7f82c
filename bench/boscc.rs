//! Benchmark: BOSCC gadgets (PLDI'18 §6.1) on a nab-like if-cascade, whose heavy region
//! (a few transcendental calls, run once per lane) usually has an all-false mask after
//! partial linearization. `bench/boscc/kernels.c` holds three copies of the kernel, each
//! vectorized by `lanes vectorize -O3 -march=native` with `--boscc off`, `auto` (the
//! default) and `all`; `reference.c` is the plain loop built by clang-19 -O3
//! -march=native. The driver (clang-19 -O2) runs the four builds taking turns, 9 runs
//! each, three rounds; reported: the median of the rounds, each build's speedup over
//! clang and over `--boscc off`, with checksums that must agree. Results go to
//! `bench/results/boscc.txt` and `.json`.
//!
//! Run: `cargo bench -p lanes-cli --bench boscc`.

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

const SETTINGS: [&str; 3] = ["off", "auto", "all"];

fn main() {
    let bench = SpmdBench::new("boscc");
    let objects: Vec<PathBuf> = SETTINGS
        .iter()
        .map(|b| {
            let f = format!("cascade_{b}");
            bench.vectorize(&f, "c,u,u,u,u", false, &["--boscc", b]).0
        })
        .collect();
    let exe = bench.link(objects, &["-lm"]);
    let mut out = header("BOSCC gadgets on an if-cascade: lanes vectorize --boscc and clang-19");
    let (n, reps) = (1u32 << 20, 4u32);
    let rounds = Rounds::run(&exe, &[n.to_string(), reps.to_string()], 3);
    let _ = writeln!(
        out,
        "\n{n} instances, {reps} sweeps per run\n{:<16} {:>10} {:>12} {:>12}",
        "build", "median", "vs clang", "vs off"
    );
    let clang = rounds.median("cascade/clang");
    let off = rounds.median("cascade/off");
    let want = rounds.sum("cascade/clang");
    let mut records = Vec::new();
    for config in ["off", "auto", "all", "clang"] {
        let name = format!("cascade/{config}");
        let t = rounds.median(&name);
        let sum = rounds.sum(&name);
        assert!(sum == want, "{name}: checksum {sum}, clang's {want}");
        let _ = writeln!(
            out,
            "{name:<16} {t:>8.3}ms {:>11.2}x {:>11.2}x",
            clang / t,
            off / t
        );
        records.push(serde_json::json!({
            "kernel": "cascade",
            "config": if config == "clang" { "clang -O3".to_string() } else { format!("lanes --boscc {config}") },
            "median_ms": t,
            "speedup_vs_clang": clang / t,
            "speedup_vs_boscc_off": off / t,
        }));
    }
    let _ = writeln!(
        out,
        "\nvs clang / vs off: that build's time over this one's (> 1: this is faster)"
    );
    let size = serde_json::json!({ "instances": n, "sweeps": reps });
    write_results("boscc", &out, size, records);
    bench.clean();
}
