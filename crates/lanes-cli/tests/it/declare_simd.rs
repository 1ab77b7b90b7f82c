//! End-to-end test of `#pragma omp declare simd` in `lanes compile -fopenmp-simd`:
//! `tests/data/declare_simd_kernels.c`
//! has a function with a divergent branch (`branchy`, one uniform parameter), one with a
//! divergent loop (`collatz`), one that stores through a uniform pointer
//! (`store_scaled`) and one with a linear parameter (`offset`). The object must define
//! the scalar functions and every `_ZGV` variant clang announces whose ISA the host has,
//! masked and unmasked, for all but `offset`, and nothing for `offset` but the scalar
//! function (a note says why). A driver compiled by clang-19 `-fopenmp-simd -O3
//! -march=native` calls them in an `omp simd` loop and calls the SSE, AVX2 and AVX-512
//! variants directly through their vector types over 192 lanes each, comparing with the
//! reference scalar functions (same source by clang-19); its object must reference the
//! `_ZGV` symbols (`nm -u`). A second driver (`declare_simd_masked_driver.c`) calls the
//! masked variants with partial masks in the ABI's mask types and checks the active lanes
//! against the scalar functions and that masked-off lanes did not store.

use crate::common;

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
    assert!(
        notes.contains("_ZGVbN4lu_offset not emitted: linear parameters"),
        "{notes}"
    );

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
        let branchy = format!("_ZGV{isa}N{w}vu_branchy not emitted");
        assert!(!notes.contains(&branchy), "{notes}");
    }
    for (isa, w) in &isas {
        for m in ['M', 'N'] {
            want.push(format!("_ZGV{isa}{m}{w}vu_branchy"));
            want.push(format!("_ZGV{isa}{m}{w}v_collatz"));
            want.push(format!("_ZGV{isa}{m}{w}uvv_store_scaled"));
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
    // AVX-512 as far as the host has them): 4·3 + 8 + 32 checks per round of three.
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
        checks += 3 * on(4) + 1;
        if cpu_has("avx2") {
            checks += on(8) + 1;
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
