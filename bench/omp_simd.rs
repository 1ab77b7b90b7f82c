//! Benchmark: `lanes compile` on `#pragma omp simd` loops against
//! clang-19 `-O3 -march=native -fopenmp-simd` on the same source, side by side in one run.
//!
//! `bench/omp_simd/kernels.c` holds seven loops: three LLVM's loop vectorizer handles
//! (saxpy, a dot product, a counting reduction) and four with a divergent inner loop
//! (halving until below a bound, Mandelbrot's escape loop, a binary search per query,
//! Collatz steps), which LLVM leaves scalar and lanes vectorizes as outer loops (PLDI'18
//! §7), and two that call transcendental math (`expf(-x*x) * sinf(x)`, `log(1 + x*x) *
//! cos(x)`). The kernels are compiled once by each compiler with the
//! same flags (`-ffp-contract=off` on both sides, so the float results agree;
//! `-fveclib=libmvec -fno-math-errno` on both sides, so both call glibc's libmvec vector
//! functions), and once more by lanes without `-fveclib` (its vector math then goes
//! through LLVM's vector intrinsics, which the backend scalarizes into libm calls — the
//! cost the vector library removes). Each object is linked with the same timing driver
//! (`bench/omp_simd/driver.c`, clang-19 -O2, `-lmvec -lm`), and the programs run
//! alternately three times; each prints the median of 7 runs per kernel and a checksum.
//! Reported: the median over the three rounds, the ratio clang/lanes (> 1: lanes is
//! faster), and whether the checksums agree (exactly for integer results, to 1e-5 relative
//! for float reductions, which both compilers reassociate, and for the math kernels, whose
//! checksums are sums of magnitudes: libmvec is accurate to 4 ulp, not correctly rounded,
//! and the two compilers may call different ISA variants). Results go to
//! `bench/results/omp_simd.txt`.
//!
//! Run: `cargo bench -p lanes-cli --bench omp_simd`.

#[path = "common/cmd.rs"]
mod cmd;
#[path = "common/machine.rs"]
mod machine;

use std::collections::BTreeMap;

use cmd::{run, s};
use machine::machine;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `kernel NAME MS CHECKSUM` lines → (name, ms, checksum), in order.
fn parse(text: &str) -> Vec<(String, f64, f64)> {
    text.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == "kernel").then_some(())?;
            Some((
                w.next()?.to_string(),
                w.next()?.parse().ok()?,
                w.next()?.parse().ok()?,
            ))
        })
        .collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/omp_simd");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("lanes-bench-omp-simd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let kernels = root.join("kernels.c");
    let driver = root.join("driver.c");
    let flags = [
        "-O3",
        "-march=native",
        "-fopenmp-simd",
        "-ffp-contract=off",
        "-fno-math-errno",
        "-fveclib=libmvec",
    ];
    let no_veclib = &flags[..flags.len() - 1];
    let clang = lanes_llvm::clang::clang_program();
    let lanes_obj = dir.join("lanes.o");
    let clang_obj = dir.join("clang.o");
    let plain_obj = dir.join("lanes-no-veclib.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .arg("compile")
        .args(flags)
        .args(["--remarks", "-c", s(&kernels), "-o", s(&lanes_obj)]));
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .arg("compile")
        .args(no_veclib)
        .args(["-c", s(&kernels), "-o", s(&plain_obj)]));
    run(Command::new(&clang)
        .args(flags)
        .args(["-c", s(&kernels), "-o", s(&clang_obj)]));
    let mut exes = Vec::new();
    for (tag, obj) in [
        ("clang", &clang_obj),
        ("lanes", &lanes_obj),
        ("plain", &plain_obj),
    ] {
        let exe = dir.join(tag);
        run(Command::new(&clang).args(["-O2", s(&driver), s(obj), "-lmvec", "-lm", "-o", s(&exe)]));
        exes.push((tag, exe));
    }
    let mut times: BTreeMap<(String, &str), Vec<f64>> = BTreeMap::new();
    let mut sums: BTreeMap<(String, &str), f64> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for _round in 0..3 {
        for (tag, exe) in &exes {
            for (name, ms, sum) in parse(&run(&mut Command::new(exe))) {
                if !order.contains(&name) {
                    order.push(name.clone());
                }
                times.entry((name.clone(), tag)).or_default().push(ms);
                sums.insert((name, tag), sum);
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "omp simd loops: lanes compile vs clang-19, same source"
    );
    let _ = writeln!(out, "machine: {}", machine());
    let _ = writeln!(
        out,
        "settings: both {} (lanes: outer-loop vectorization, default width for the host); lanes w/o veclib: the same without -fveclib; driver clang-19 -O2 -lmvec -lm; median of 7 runs per kernel, median of 3 alternating rounds",
        flags.join(" ")
    );
    let _ = writeln!(
        out,
        "{:<14} {:>11} {:>11} {:>9} {:>19}  checksums",
        "kernel", "clang ms", "lanes ms", "speedup", "lanes w/o veclib ms"
    );
    let mut all_agree = true;
    for name in &order {
        let c = median(times[&(name.clone(), "clang")].clone());
        let l = median(times[&(name.clone(), "lanes")].clone());
        let p = median(times[&(name.clone(), "plain")].clone());
        let close = |a: f64, b: f64| a == b || ((a - b) / a.abs().max(1.0)).abs() < 1e-5;
        let sc = sums[&(name.clone(), "clang")];
        let agree =
            close(sc, sums[&(name.clone(), "lanes")]) && close(sc, sums[&(name.clone(), "plain")]);
        all_agree &= agree;
        let _ = writeln!(
            out,
            "{name:<14} {c:>11.3} {l:>11.3} {:>8.2}x {p:>19.3}  {}",
            c / l,
            if agree { "agree" } else { "DIFFER" }
        );
    }
    print!("{out}");
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results/omp_simd.txt");
    std::fs::write(&results, &out).expect("write results");
    println!("written to bench/results/omp_simd.txt");
    assert!(all_agree, "lanes and clang disagree on a kernel's result");
    let _ = std::fs::remove_dir_all(&dir);
}
