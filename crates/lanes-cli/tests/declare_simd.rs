//! End-to-end test of `#pragma omp declare simd` in `lanes compile -fopenmp-simd` (issue
//! 5, point 7, second entry point, functions part): `tests/data/declare_simd_kernels.c`
//! has a function with a divergent branch (`branchy`, one uniform parameter), one with a
//! divergent loop (`collatz`) and one with a linear parameter (`offset`). The object must
//! define the scalar functions and every unmasked `_ZGV` variant clang announces whose
//! ISA the host has, for `branchy` and `collatz`, and nothing for `offset` but the scalar
//! function (a note says why). A driver compiled by clang-19 `-fopenmp-simd -O3
//! -march=native` calls them in an `omp simd` loop and calls the SSE, AVX2 and AVX-512
//! variants directly through their vector types over 192 lanes each, comparing with the
//! reference scalar functions (same source by clang-19); its object must reference the
//! `_ZGV` symbols (`nm -u`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanes-cli-declare-simd-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("program runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn clang() -> Command {
    Command::new(lanes_llvm::clang::clang_program())
}

fn cpu_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|t| t.contains(&format!(" {flag}")))
}

/// `nm` symbols of `obj` with `nm_flags`, names only, sorted.
fn symbols(obj: &Path, nm_flags: &[&str]) -> Vec<String> {
    let out = run(Command::new("nm").args(nm_flags).arg(s(obj)));
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(String::from))
        .collect();
    names.sort();
    names
}

#[test]
fn declare_simd_variants_are_defined_and_equal_the_scalar_functions() {
    let d = dir();
    let src = data("declare_simd_kernels.c");
    let obj = d.join("kernels.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "-march=native",
            "-ffp-contract=off",
        ])
        .args(["-c", s(&src), "-o", s(&obj)]));
    let notes = String::from_utf8_lossy(&out.stderr);
    assert!(
        notes.contains("_ZGVbN4lu_offset not emitted: linear parameters"),
        "{notes}"
    );
    assert!(
        notes.contains("_ZGVbM4vu_branchy not emitted: masked"),
        "{notes}"
    );

    let mut want: Vec<String> = ["branchy", "collatz", "offset"].map(String::from).to_vec();
    let mut isas = vec![('b', 4)];
    if cpu_has("avx") {
        isas.push(('c', 8));
    }
    if cpu_has("avx2") {
        isas.push(('d', 8));
    }
    if cpu_has("avx512f") {
        isas.push(('e', 16));
    }
    for (isa, w) in &isas {
        want.push(format!("_ZGV{isa}N{w}vu_branchy"));
        want.push(format!("_ZGV{isa}N{w}v_collatz"));
    }
    want.sort();
    assert_eq!(symbols(&obj, &["-g", "--defined-only"]), want);

    let reference = d.join("ref.o");
    run(clang()
        .args(["-O1", "-ffp-contract=off", "-c", "-o", s(&reference)])
        .args([
            "-Dbranchy=ref_branchy",
            "-Dcollatz=ref_collatz",
            "-Doffset=ref_offset",
        ])
        .arg(&src));
    let driver = d.join("driver.o");
    run(clang()
        .args(["-fopenmp-simd", "-O3", "-march=native", "-ffp-contract=off"])
        .args(["-c", "-o", s(&driver)])
        .arg(data("declare_simd_driver.c")));
    let undefined = symbols(&driver, &["-u"]);
    for (isa, w) in &isas {
        if *isa == 'c' {
            continue; // the driver calls AVX2's 8-lane variants, not AVX's
        }
        for v in [
            format!("_ZGV{isa}N{w}vu_branchy"),
            format!("_ZGV{isa}N{w}v_collatz"),
        ] {
            assert!(undefined.contains(&v), "{v} not in {undefined:?}");
        }
    }
    let exe = d.join("driver");
    run(clang().args(["-o", s(&exe), s(&driver), s(&obj), s(&reference)]));
    let out = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "mismatches 0\n");
}

#[test]
fn without_openmp_no_variants_are_made() {
    let d = dir();
    let obj = d.join("plain.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-O2",
            "-c",
            s(&data("declare_simd_kernels.c")),
            "-o",
        ])
        .arg(&obj));
    assert_eq!(
        symbols(&obj, &["-g", "--defined-only"]),
        ["branchy", "collatz", "offset"]
    );
}
