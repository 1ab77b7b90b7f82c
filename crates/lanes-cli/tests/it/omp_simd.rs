//! End-to-end test of `#pragma omp simd` / `vectorize(assume_safety)` loops in `lanes
//! compile` (PLDI'18 §7): the loops of
//! `corpus/omp_simd/loops.c` — divergent inner loops, early-exit `while`s, binary
//! searches, reductions, last values, reversed and strided loops, loops left by `break`
//! and `return` — are compiled by
//! `lanes compile -fopenmp-simd -march=native` at 4, 8 and the target's default lanes,
//! linked with `tests/data/omp_simd_driver.c` (clang-19), which compares every function
//! with the same source compiled by clang-19 on random inputs for trip counts 0…2047 and
//! must print zero mismatches; the early-exit loops also run on data that ends right
//! before an inaccessible page (reading ahead there would fault). lanes must report the
//! 24 parallel loops it takes (`--remarks`) and warn about the two it leaves to LLVM,
//! naming file and line.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{clang, run, s, scratch_dir};

#[test]
fn omp_simd_loops_are_outer_loop_vectorized_and_equal_clang() {
    let d = scratch_dir("omp-simd");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/omp_simd");
    let src = corpus.join("loops.c");
    let text = std::fs::read_to_string(&src).expect("loops.c");
    // The line of the first `for` of function `f` (where clang puts the loop).
    let loop_line = |f: &str| {
        let start = text.find(&format!(" {f}(")).expect("function");
        let at = start + text[start..].find("for (").expect("loop");
        text[..at].lines().count()
    };
    for width in [None, Some(4), Some(8)] {
        let tag = width.map_or_else(|| "default".to_string(), |w| w.to_string());
        let obj = d.join(format!("loops-{tag}.o"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lanes"));
        cmd.args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "-march=native",
            "-ffp-contract=off",
            "--remarks",
        ]);
        if let Some(w) = width {
            cmd.arg(format!("--simd-width={w}"));
        }
        let out = run(cmd.args(["-c", s(&src), "-o", s(&obj)]));
        let notes = String::from_utf8_lossy(&out.stderr);
        let taken = notes
            .matches("vectorized by lanes as an outer loop")
            .count();
        assert_eq!(taken, 24, "{notes}");
        if let Some(w) = width {
            assert_eq!(notes.matches(&format!("width {w},")).count(), 24, "{notes}");
        }
        assert!(
            notes.contains(&format!(
                "loops.c:{}: remark: @halve_until: parallel loop vectorized by lanes as an outer loop",
                loop_line("halve_until")
            ))
                && notes.contains("1 inner loop(s)"),
            "{notes}"
        );
        assert!(
            notes.contains(&format!(
                "loops.c:{}: warning: @copy_through_negative_aliased: parallel loop not vectorized by lanes: the loop is left from the body and its exit test cannot be run ahead",
                loop_line("copy_through_negative_aliased")
            )),
            "{notes}"
        );
        assert!(
            notes.contains("@carried_scan: parallel loop not vectorized by lanes: a value"),
            "{notes}"
        );

        // The `declare simd` function keeps its vector variants.
        let defined = common::symbols(&obj, &["-g", "--defined-only"]);
        assert!(
            defined
                .iter()
                .any(|n| n.starts_with("_ZGV") && n.ends_with("_row_sum")),
            "{defined:?}"
        );
        let exe = d.join(format!("omp-simd-{tag}"));
        run(clang()
            .args([
                "-O2",
                "-march=native",
                "-ffp-contract=off",
                "-fno-vectorize",
            ])
            .arg(format!("-I{}", s(&corpus)))
            .arg(s(&common::data("omp_simd_driver.c")))
            .arg(s(&obj))
            .args(["-o", s(&exe)]));
        let out = run(&mut Command::new(&exe));
        let text = String::from_utf8_lossy(&out.stdout);
        println!("W={tag}: {text}");
        assert!(
            text.contains("omp simd loops: 1539 calls, 0 mismatches")
                && text.contains("early exits before a guard page: 0 misses"),
            "W={tag}: {text}"
        );
    }
}

/// A loop's own width (`simdlen(N)`, `vectorize_width(N)`) that lanes cannot make — past
/// 64 lanes, or 1, which asks for no vectorization — leaves the loop to LLVM with a warning
/// that says why; a width lanes can make is used.
#[test]
fn loop_widths_lanes_cannot_make_are_declined_with_the_reason() {
    let d = scratch_dir("omp-simd-widths");
    let src = d.join("widths.c");
    std::fs::write(
        &src,
        "void wide(float *restrict a, int n) {\n\
         #pragma omp simd simdlen(128)\n\
           for (int i = 0; i < n; i++) a[i] = a[i] * 2.0f + 1.0f;\n\
         }\n\
         void one(float *restrict a, int n) {\n\
         #pragma clang loop vectorize(assume_safety) vectorize_width(1)\n\
           for (int i = 0; i < n; i++) a[i] = a[i] * 3.0f;\n\
         }\n\
         void twelve(float *restrict a, int n) {\n\
         #pragma omp simd simdlen(12)\n\
           for (int i = 0; i < n; i++) a[i] = a[i] - 1.0f;\n\
         }\n",
    )
    .expect("write");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "--remarks",
            "-c",
            s(&src),
            "-o",
        ])
        .arg(d.join("widths.o")));
    let notes = String::from_utf8_lossy(&out.stderr);
    for (f, lanes) in [("wide", 128), ("one", 1)] {
        assert!(
            notes.contains(&format!(
                "warning: @{f}: parallel loop not vectorized by lanes: the loop asks for {lanes} lanes (simdlen or vectorize_width); lanes makes 2 to 64"
            )),
            "{notes}"
        );
    }
    assert!(
        notes.contains("@twelve: parallel loop vectorized by lanes as an outer loop")
            && notes.contains("width 12,"),
        "{notes}"
    );
    // The same for `declare simd` variants: the one lanes cannot make is not emitted, with a
    // note; the file still compiles, and the others are defined.
    let ds = d.join("declare.c");
    std::fs::write(
        &ds,
        "#pragma omp declare simd simdlen(128) notinbranch\n\
         float wide(float x) { return x * 2.0f; }\n\
         #pragma omp declare simd simdlen(3) notinbranch\n\
         float three(float x) { return x + 1.0f; }\n",
    )
    .expect("write");
    let obj = d.join("declare.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "compile",
        "-fopenmp-simd",
        "-O2",
        "-c",
        s(&ds),
        "-o",
        s(&obj),
    ]));
    let notes = String::from_utf8_lossy(&out.stderr);
    assert!(
        notes.contains("@wide: _ZGVbN128v_wide not emitted: 128 lanes; lanes makes 1 to 64"),
        "{notes}"
    );
    let defined = common::symbols(&obj, &["-g", "--defined-only"]);
    assert!(
        defined.contains(&"_ZGVbN3v_three".to_string()),
        "{defined:?}"
    );
    assert!(!defined.iter().any(|n| n.contains("N128")), "{defined:?}");
}

/// `reduction(op: s)` for every OpenMP operator (tests/data/omp_simd_reductions.c): lanes
/// vectorizes all thirteen loops — `+ * min max & | ^ && ||` on int, `+ * min` on float,
/// `max` on double (min/max of floats through a compare and a select, `&&`/`||` through a
/// branch on the running value) — and every function equals clang-19's on 43 lengths,
/// with a NaN in the float minimum's input.
#[test]
fn every_reduction_operator_equals_clang() {
    let d = scratch_dir("omp-simd-reductions");
    let src = common::data("omp_simd_reductions.c");
    let obj = d.join("reductions.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "-march=native",
            "--remarks",
        ])
        .args(["-c", s(&src), "-o", s(&obj)]));
    let notes = String::from_utf8_lossy(&out.stderr);
    let taken = [
        "r_add", "r_mul", "r_min", "r_max", "r_and", "r_or", "r_xor", "r_land", "r_lor", "f_add",
        "f_mul", "f_min", "d_max",
    ];
    for f in taken {
        assert!(
            notes.contains(&format!(
                "@{f}: parallel loop vectorized by lanes as an outer loop"
            )) && notes.contains("1 reduction(s)"),
            "{f}: {notes}"
        );
    }
    assert!(!notes.contains("not vectorized by lanes"), "{notes}");
    let reference = d.join("reference.o");
    run(clang()
        .args(["-O2", "-fno-vectorize", "-DNAME(f)=ref_##f", "-c"])
        .arg(s(&src))
        .args(["-o", s(&reference)]));
    let exe = d.join("reductions");
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(common::data("omp_simd_reductions_driver.c"))
        .args([s(&reference), s(&obj), "-lm"]));
    let out = run(&mut Command::new(&exe));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "559 calls, 0 mismatches\n"
    );
}

/// Loops calling helpers (tests/data/omp_simd_calls.c): every loop is vectorized and each
/// helper with it — a divergent loop in the helper, a store through a pointer to the
/// element under a branch (the masked variant), a helper calling a helper — while the
/// recursive helpers run once per lane, each named in a remark that says why; all four
/// loops equal clang-19's at 4, 8 and the target's lanes for 100 lengths.
#[test]
fn helpers_called_from_loops_are_vectorized_with_them() {
    let d = scratch_dir("omp-simd-calls");
    let src = common::data("omp_simd_calls.c");
    let reference = d.join("reference.o");
    run(clang()
        .args([
            "-O2",
            "-fno-vectorize",
            "-ffp-contract=off",
            "-DNAME(f)=ref_##f",
            "-c",
        ])
        .arg(s(&src))
        .args(["-o", s(&reference)]));
    for width in [None, Some(4), Some(8)] {
        let tag = width.map_or_else(|| "default".to_string(), |w| w.to_string());
        let obj = d.join(format!("calls-{tag}.o"));
        let ll = d.join(format!("calls-{tag}.ll"));
        let mut notes = String::new();
        for out in [&obj, &ll] {
            let emit: &[&str] = if out == &ll {
                &["-S", "-emit-llvm"]
            } else {
                &["-c"]
            };
            let done = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
                .args(["compile", "-fopenmp-simd", "-O2", "-march=native"])
                .args(["-ffp-contract=off", "--remarks"])
                .args(width.map(|w| format!("--simd-width={w}")))
                .args(emit)
                .args([s(&src), "-o", s(out)]));
            notes = String::from_utf8_lossy(&done.stderr).into_owned();
        }
        for f in ["call_steps", "call_bump", "call_shade", "call_recursive"] {
            assert!(
                notes.contains(&format!(
                    "@{f}: parallel loop vectorized by lanes as an outer loop"
                )),
                "W={tag} {f}: {notes}"
            );
        }
        // Only the recursive helpers run per lane, and the remark says why.
        for callee in ["depth", "even"] {
            assert!(
                notes.contains(&format!(
                    "the call of @{callee} runs once per active lane: it is part of a cycle of calls"
                )),
                "W={tag} {callee}: {notes}"
            );
        }
        assert_eq!(
            notes.matches("runs once per active lane").count(),
            2,
            "{notes}"
        );
        // No helper but the recursive ones is called with scalar arguments.
        let text = std::fs::read_to_string(&ll).expect("ll");
        for helper in ["steps", "bump", "shade", "poly"] {
            let scalar_call = text
                .lines()
                .find(|l| l.contains(" call ") && l.contains(&format!("@{helper}(")));
            assert!(scalar_call.is_none(), "W={tag}: {scalar_call:?}");
        }
        let exe = d.join(format!("calls-{tag}"));
        run(clang()
            .args(["-O1", "-o", s(&exe)])
            .arg(common::data("omp_simd_calls_driver.c"))
            .args([s(&reference), s(&obj)]));
        let out = run(&mut Command::new(&exe));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "400 calls, 0 mismatches\n",
            "W={tag}"
        );
    }
}
