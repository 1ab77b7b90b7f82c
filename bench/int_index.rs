//! Benchmark: a saxpy indexed by a C `int` against the same saxpy indexed by a `long`,
//! both vectorized by `lanes vectorize` (PLDI'18 §2.3: an `int` index sign-extended to a
//! 64-bit offset stays contiguous when it cannot wrap; `lanes_analysis::shapes::no_wrap`).
//!
//! `bench/int_index/kernels.c` holds `saxpy_long(long i, …)`, `saxpy_int(int i, …)` and
//! `saxpy_int_off(int i, int k, …)` (`y[i + k]`: an `add nsw`). Each is vectorized with
//! `lanes vectorize -O3 -march=native` (the host's natural width) into its `F_spmd(n, …)`
//! launcher; their `.ll` must hold no gather or scatter. For reference, `saxpy_int_off` is
//! vectorized once more from `clang -fwrapv` output, where `i + k` may wrap and its
//! extension is varying: gathers and scatters, which is what every `int` index cost
//! before. One timing driver (`bench/int_index/driver.c`, clang-19 -O2) runs the four
//! launchers taking turns in rotating order, 12 runs, each run REPS sweeps over N floats:
//! N = 16,384 (x and y in L2, 2,000 sweeps) and N = 8,388,608 (64 MiB, from memory, 4
//! sweeps). Per kernel it prints the median run and a checksum of y (the same arithmetic:
//! equal sums). Three rounds; reported: the median of the rounds, the ratio to `long`,
//! whether it is within 5%. Results go to `bench/results/int_index.txt`.
//!
//! The launcher runs the unmasked variant for the full groups, a counted loop up to
//! `n - n mod W`, and the masked one once for what is left; contiguous accesses take lane
//! 0's address from scalar arithmetic (`lanes-wfv` `widen/lane0.rs`), so with an `int`
//! index LLVM widens the group counter to the 64-bit offset and the loops of all three
//! kernels are the same machine code. The benchmark fails if an `int` kernel is more than
//! 5% slower than `long`, or if the checksums differ.
//!
//! Run: `cargo bench -p lanes-cli --bench int_index`.

#[path = "common/cmd.rs"]
mod cmd;
#[path = "common/machine.rs"]
mod machine;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cmd::{run, s};
use machine::machine;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The vector-function-ABI variant `lanes vectorize` defined: `(ISA letter, lanes)`.
fn variant(obj: &Path) -> (char, u32) {
    let syms = run(Command::new("nm").args(["-g", "--defined-only", s(obj)]));
    syms.lines()
        .filter_map(|l| l.split_whitespace().last())
        .find_map(|name| {
            let rest = name.strip_prefix("_ZGV")?;
            let isa = rest.chars().next()?;
            let digits: String = rest[2..].chars().take_while(char::is_ascii_digit).collect();
            Some((isa, digits.parse().ok()?))
        })
        .expect("a _ZGV symbol")
}

/// Vectorizes `f` of `kernels` to an object (and `.ll`, checked for gathers/scatters:
/// `gathers` says whether there must be some); the variant's `(ISA letter, lanes)`.
fn vectorize(
    kernels: &Path,
    dir: &Path,
    f: &str,
    shapes: &str,
    extra: &[&str],
    gathers: bool,
) -> (PathBuf, (char, u32)) {
    let obj = dir.join(format!("{f}.o"));
    let ll = dir.join(format!("{f}.ll"));
    for out in [&obj, &ll] {
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(kernels), "--function", f, "--shapes", shapes])
            .args(["-O3", "-march=native"])
            .args(extra)
            .args(["-o", s(out)]));
    }
    let text = std::fs::read_to_string(&ll).expect("ll");
    let has = text.contains("llvm.masked.gather") || text.contains("llvm.masked.scatter");
    assert_eq!(
        has, gathers,
        "{f} {extra:?}: gathers or scatters {has}\n{text}"
    );
    let isa = variant(&obj);
    (obj, isa)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/int_index");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("lanes-bench-int-index-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let kernels = root.join("kernels.c");
    let wrapv = ["-Dsaxpy_int_off=saxpy_int_off_wrapv", "--clang-arg=-fwrapv"];
    let builds: [(&str, &str, &[&str], bool); 4] = [
        ("saxpy_long", "c,u,u,u", &[], false),
        ("saxpy_int", "c,u,u,u", &[], false),
        ("saxpy_int_off", "c,u,u,u,u", &[], false),
        ("saxpy_int_off_wrapv", "c,u,u,u,u", &wrapv, true),
    ];
    let mut objects = Vec::new();
    let mut isa = (' ', 0);
    for (f, shapes, extra, gathers) in builds {
        let (obj, v) = vectorize(&kernels, &dir, f, shapes, extra, gathers);
        isa = v;
        objects.push(obj);
    }
    let clang = lanes_llvm::clang::clang_program();
    let exe = dir.join("int_index");
    run(Command::new(&clang)
        .args(["-O2", s(&root.join("driver.c"))])
        .args(&objects)
        .args(["-o", s(&exe)]));
    let isa_name = match isa.0 {
        'b' => "SSE4",
        'c' => "AVX",
        'd' => "AVX2",
        'e' => "AVX-512",
        _ => "?",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "int vs long index: saxpy vectorized by lanes vectorize"
    );
    let _ = writeln!(out, "machine: {}", machine());
    // Other processes share the cores; the ratios, measured in turns, are what compares.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();
    let _ = writeln!(out, "load average (1 min) at start: {load}");
    let _ = writeln!(
        out,
        "ISA: {isa_name} ('{}'), {} lanes; lanes vectorize -O3 -march=native; driver clang-19 -O2; \
         median of 12 runs (kernels taking turns in rotating order), median of 3 rounds; int+k_wrapv: the same kernel from \
         clang -fwrapv (i + k may wrap: gathers and scatters, as every int index before)",
        isa.0, isa.1
    );
    let mut ok = true;
    for (label, n, reps) in [("L2", 1u32 << 14, 2000u32), ("memory", 1 << 23, 4)] {
        let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut sums: BTreeMap<String, String> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        for _round in 0..3 {
            let text = run(Command::new(&exe).args([n.to_string(), reps.to_string()]));
            for line in text.lines() {
                let w: Vec<&str> = line.split_whitespace().collect();
                if let ["kernel", name, ms, sum] = w[..] {
                    if !order.iter().any(|x| x == name) {
                        order.push(name.to_string());
                    }
                    let ms: f64 = ms.parse().expect("ms");
                    times.entry(name.to_string()).or_default().push(ms);
                    sums.insert(name.to_string(), sum.to_string());
                }
            }
        }
        let _ = writeln!(
            out,
            "\n{label}: {reps} x {n} floats per run\n{:<12} {:>10} {:>9}  {:<10} checksum",
            "index", "ms", "vs long", "within 5%"
        );
        let long = median(times["long"].clone());
        for name in &order {
            let ms = median(times[name].clone());
            let ratio = ms / long;
            let within = (ratio - 1.0).abs() <= 0.05;
            if !name.ends_with("wrapv") {
                ok &= ratio <= 1.05;
            }
            let _ = writeln!(
                out,
                "{name:<12} {ms:>10.3} {ratio:>8.3}x  {:<10} {}",
                if within { "yes" } else { "no" },
                sums[name]
            );
        }
        let same = sums.values().all(|x| Some(x) == sums.get("long"));
        assert!(
            same,
            "{label}: the kernels compute different results: {sums:?}"
        );
    }
    let _ = writeln!(
        out,
        "\nchecksums equal; no gather or scatter in long, int, int+k"
    );
    print!("{out}");
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results/int_index.txt");
    std::fs::write(&results, &out).expect("write results");
    println!("written to bench/results/int_index.txt");
    assert!(
        ok,
        "an int-indexed saxpy is more than 5% slower than the long-indexed one"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
