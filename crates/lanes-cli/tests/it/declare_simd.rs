//! End-to-end test of `#pragma omp declare simd` in `lanes compile -fopenmp-simd`:
//! `tests/data/declare_simd_kernels.c`
//! has a function with a divergent branch (`branchy`, one uniform parameter), one with a
//! divergent loop (`collatz`), one that stores through a uniform pointer
//! (`store_scaled`) and one with a linear parameter (`offset`). The object must define
//! the scalar functions and every `_ZGV` variant clang announces whose ISA the host has,
//! masked and unmasked (`offset`'s take the linear index as lane 0's value; GCC's
//! vectorizer calls them in `gcc_vectorized_loops_call_lanes_variants`). A driver compiled by clang-19 `-fopenmp-simd -O3
//! -march=native` calls them in an `omp simd` loop and calls the SSE, AVX2 and AVX-512
//! variants directly through their vector types over 192 lanes each, comparing with the
//! reference scalar functions (same source by clang-19); its object must reference the
//! `_ZGV` symbols (`nm -u`). A second driver (`declare_simd_masked_driver.c`) calls the
//! masked variants with partial masks in the ABI's mask types and checks the active lanes
//! against the scalar functions and that masked-off lanes did not store.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir, symbols};

#[test]
fn declare_simd_variants_are_defined_and_equal_the_scalar_functions() {
    let d = scratch_dir("declare-simd");
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

    let mut want: Vec<String> = ["branchy", "collatz", "offset", "store_scaled"]
        .map(String::from)
        .to_vec();
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
        // Variants of the host's ISAs are all made (an AVX2 host notes only the `e` ones).
        for v in ["vu_branchy", "lu_offset"] {
            let missing = format!("_ZGV{isa}N{w}{v} not emitted");
            assert!(!notes.contains(&missing), "{notes}");
        }
    }
    for (isa, w) in &isas {
        for m in ['M', 'N'] {
            want.push(format!("_ZGV{isa}{m}{w}vu_branchy"));
            want.push(format!("_ZGV{isa}{m}{w}v_collatz"));
            want.push(format!("_ZGV{isa}{m}{w}uvv_store_scaled"));
            want.push(format!("_ZGV{isa}{m}{w}lu_offset"));
        }
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
            "-Dstore_scaled=ref_store_scaled",
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

    // Masked variants through vector types with partial masks (SSE always; AVX2 and
    // AVX-512 as far as the host has them), `offset`'s with its linear index as a scalar.
    let exe = d.join("masked_driver");
    run(clang()
        .args(["-O2", "-march=native", "-ffp-contract=off", "-o", s(&exe)])
        .arg(data("declare_simd_masked_driver.c"))
        .args([s(&obj), s(&reference)]));
    let out = run(&mut Command::new(&exe));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut checks = 0;
    for round in 0..3 {
        let on = |w: i32| (0..w).filter(|k| (k * 5 + round) % 3 != 0).count();
        checks += 4 * on(4) + 1;
        if cpu_has("avx2") {
            checks += 2 * on(8) + 1;
        }
        if cpu_has("avx512f") {
            checks += 2 * on(16) + 1;
        }
    }
    assert_eq!(text, format!("mismatches 0 of {checks}\n"));
}

#[test]
fn without_openmp_no_variants_are_made() {
    let d = scratch_dir("declare-simd");
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
        ["branchy", "collatz", "offset", "store_scaled"]
    );
}

/// A vectorizing compiler's loops call lanes' variants: `declare simd` functions with
/// linear parameters (step 1, a pointer's step of 4 bytes, step 2, step -1) and a uniform
/// `aligned(a:32)` pointer (tests/data/vfabi_linear_callee.c) are compiled by lanes; GCC
/// `-O3 -fopenmp-simd -march=native` vectorizes the loops calling them
/// (vfabi_linear_caller.c) into calls of the `_ZGV` names of the host's widest ISA, which
/// must be exactly the ones lanes defines (linear arguments as lane 0's value); linked
/// together they equal the scalar build for 68 lengths. (clang-19 does not emit the
/// `vector-function-abi-variant` call attributes LLVM's loop vectorizer reads; with them
/// added, clang's vectorizer is the caller in `vfabi_clang_caller.rs`.)
#[test]
fn gcc_vectorized_loops_call_lanes_variants() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!(
            "note: gcc not found (Debian package gcc); the cross-compiler VFABI test is skipped"
        );
        return;
    }
    let d = scratch_dir("vfabi-linear");
    let callee = data("vfabi_linear_callee.c");
    let caller = data("vfabi_linear_caller.c");
    let obj = d.join("callee.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["compile", "-fopenmp-simd", "-O2", "-march=native"])
        .args(["-ffp-contract=off", "-c", s(&callee), "-o", s(&obj)]));
    let (isa, w) = if cpu_has("avx512f") {
        ('e', 16)
    } else if cpu_has("avx2") {
        ('d', 8)
    } else {
        eprintln!("note: the host has no AVX2; GCC's variant calls are not checked");
        return;
    };
    let caller_obj = d.join("caller.o");
    // Intel's server CPUs are tuned for 256-bit vectors: ask for the width whose variants
    // are checked.
    // Without vectorized epilogues: GCC would also call 4-lane AVX variants of the integer
    // functions, which it names `_ZGVcN4…` where clang (and so lanes) names them
    // `_ZGVcN8…`, a known difference of the two compilers for AVX integer variants.
    run(Command::new("gcc")
        .args(["-O3", "-fopenmp-simd", "-march=native", "-ffp-contract=off"])
        .arg(format!("-mprefer-vector-width={}", 32 * w))
        .args(["--param", "vect-epilogues-nomask=0"])
        .args(["-c", s(&caller), "-o", s(&caller_obj)]));
    let wanted = [
        format!("_ZGV{isa}N{w}ua32lv_lin_load"),
        format!("_ZGV{isa}N{w}l4_lin_ptr"),
        format!("_ZGV{isa}N{w}l2u_lin_step2"),
        format!("_ZGV{isa}N{w}ln1v_lin_down"),
    ];
    let undefined = symbols(&caller_obj, &["-u"]);
    let defined = symbols(&obj, &["-g", "--defined-only"]);
    for v in &wanted {
        assert!(
            undefined.contains(v),
            "GCC does not call {v}: {undefined:?}"
        );
        assert!(
            defined.contains(v),
            "lanes does not define {v}: {defined:?}"
        );
    }
    run_against_scalar_build(&d, &caller_obj, &obj);
}

/// Links `caller_obj` (a vectorized build of `vfabi_linear_caller.c`) and `callee_obj`
/// (lanes' build of `vfabi_linear_callee.c`) with clang-19's scalar build of both under
/// `ref_` names and `vfabi_linear_driver.c`, in scratch directory `d`; the program must
/// find no difference on its 68 lengths.
pub(crate) fn run_against_scalar_build(d: &Path, caller_obj: &Path, callee_obj: &Path) {
    let renames = [
        "-Dlin_load=ref_lin_load",
        "-Dlin_ptr=ref_lin_ptr",
        "-Dlin_step2=ref_lin_step2",
        "-Dlin_down=ref_lin_down",
        "-Dloops=ref_loops",
    ];
    let reference = d.join("reference.o");
    let ref_caller = d.join("ref_caller.o");
    let sources = [data("vfabi_linear_callee.c"), data("vfabi_linear_caller.c")];
    for (src, out) in sources.iter().zip([&reference, &ref_caller]) {
        run(clang()
            .args(["-O1", "-fno-vectorize", "-ffp-contract=off", "-c"])
            .args(renames)
            .args([s(src), "-o", s(out)]));
    }
    let exe = d.join("vfabi-linear");
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data("vfabi_linear_driver.c"))
        .args([s(caller_obj), s(callee_obj), s(&reference), s(&ref_caller)]));
    let out = run(&mut Command::new(&exe));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "68 runs, 0 mismatches\n"
    );
}
