//! End-to-end tests of `lanes vectorize` and of
//! `include/lanes.h`: four SPMD kernels of one C file (`tests/data/
//! vectorize_kernels.c`: saxpy, a divergent if/else, Mandelbrot's divergent escape loop,
//! a `lanes_any` guard) are vectorized at W = 4, 8 and 16 into one object each; every
//! object defines exactly the vector-ABI variant and the `F_spmd` launcher; the four
//! objects of one width link together with a clang-19 driver that compares each
//! `F_spmd(n, …)` with the scalar kernel (compiled by clang-19 from the same source,
//! renamed `ref_F`) run for `i` in `0..n`, over whole arrays (so writes past `n` count),
//! for n = 37, 0, 1, 64 and 100 — none a multiple of 16 but 0 and 64.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir, symbols};

const KERNELS: [(&str, &str, &str); 4] = [
    ("saxpy", "c,u,u,u", "luuu"),
    ("branchy", "c,u,u", "luu"),
    ("mandel", "c,u,u,u,u,u,u", "luuuuuu"),
    ("guarded", "c,u,u", "luu"),
];

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include")
}

/// The clang-19 reference object of the four kernels (renamed `ref_F`), in `d`.
fn reference_object(d: &Path, src: &Path) -> PathBuf {
    let reference = d.join("ref.o");
    let mut cc = clang();
    cc.args(["-O1", "-ffp-contract=off", "-c", "-o", s(&reference)])
        .arg(format!("-I{}", s(&include_dir())));
    for (f, _, _) in KERNELS {
        cc.arg(format!("-D{f}=ref_{f}"));
    }
    run(cc.arg(src));
    reference
}

/// Vectorizes the four kernels at width `w` (checking each object's symbols with
/// `check(f, defined)`), links them with the driver and the reference, and runs the
/// driver for n = 37, 0, 1, 64 and 100.
fn launchers_equal_reference(
    d: &Path,
    src: &Path,
    reference: &Path,
    w: u16,
    check: &dyn Fn(&str, &str, &[String]),
    extra: &[&str],
) {
    let mut objects = Vec::new();
    for (f, shapes, letters) in KERNELS {
        let obj = d.join(format!("{f}{w}.o"));
        // Without contraction, as the reference: lanes keeps clang's `llvm.fmuladd`,
        // which the host fuses (tests/it/fp_contract.rs compares with contraction on).
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(src), "--function", f, "--shapes", shapes])
            .args(["--width", &w.to_string(), "--clang-arg=-ffp-contract=off"])
            .args(extra)
            .args(["-o", s(&obj)]));
        check(f, letters, &symbols(&obj, &["-g", "--defined-only"]));
        objects.push(obj);
    }
    // Four objects from four functions of one source file, one program.
    let exe = d.join(format!("driver{w}"));
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data("vectorize_driver.c"))
        .arg(reference)
        .args(&objects));
    for n in [37, 0, 1, 64, 100] {
        let out = run(Command::new(&exe).arg(n.to_string()));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("ok {n}\n"),
            "W={w}"
        );
    }
}

#[test]
fn spmd_launchers_equal_the_scalar_kernels_at_every_width() {
    let d = scratch_dir("vectorize");
    let src = data("vectorize_kernels.c");
    let reference = reference_object(&d, &src);
    let mut widths = vec![4u16, 8];
    if cpu_has("avx512f") {
        widths.push(16);
    } else {
        eprintln!("note: the host has no AVX-512; W = 16 is not run");
    }
    for w in widths {
        let isa = match w {
            4 => 'b',
            8 => 'd',
            _ => 'e',
        };
        let check = |f: &str, letters: &str, defined: &[String]| {
            let want = vec![format!("_ZGV{isa}N{w}{letters}_{f}"), format!("{f}_spmd")];
            assert_eq!(defined, want, "{f} W={w}");
        };
        launchers_equal_reference(&d, &src, &reference, w, &check, &[]);
    }
}

/// Widths that no register has — odd ones, non-powers of two, wider than AVX-512 — up to
/// the limit of 64 lanes: the same four kernels, linked with the same driver and the
/// clang-19 reference, give the same results (LLVM splits or pads the vectors; the code is
/// for the host whatever the width). Widths past 64 are refused, naming the limit.
#[test]
fn any_width_up_to_64_runs_natively() {
    let d = scratch_dir("vectorize");
    let src = data("vectorize_kernels.c");
    let reference = reference_object(&d, &src);
    for w in [2u16, 3, 5, 7, 12, 24, 33, 48, 64] {
        let check = |f: &str, letters: &str, defined: &[String]| {
            let variant = format!("N{w}{letters}_{f}");
            assert!(
                defined.len() == 2
                    && defined[0].starts_with("_ZGV")
                    && defined[0].ends_with(&variant)
                    && defined[1] == format!("{f}_spmd"),
                "{f} W={w}: {defined:?}"
            );
        };
        launchers_equal_reference(&d, &src, &reference, w, &check, &[]);
    }
    let refused = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&src),
            "--function",
            "saxpy",
            "--shapes",
            "c,u,u,u",
        ])
        .args(["--width", "65", "-o"])
        .arg(d.join("w65.o"))
        .output()
        .expect("lanes runs");
    assert_eq!(refused.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("65") && err.contains("1..=64"), "{err}");
}

/// BOSCC gadgets around every divergent branch that can have one (`--boscc all`) and
/// where they pay (`auto`): the same four kernels equal the clang-19 reference at 4 and 8
/// lanes.
#[test]
fn boscc_launchers_equal_the_scalar_kernels() {
    let d = scratch_dir("vectorize");
    let src = data("vectorize_kernels.c");
    let reference = reference_object(&d, &src);
    for boscc in ["all", "auto"] {
        for w in [4u16, 8] {
            let check = |_: &str, _: &str, _: &[String]| {};
            launchers_equal_reference(&d, &src, &reference, w, &check, &["--boscc", boscc]);
        }
    }
}

/// The reconverging transform (flow blocks, each block order) before partial
/// linearization: the four kernels equal the clang-19 reference at 8 lanes.
#[test]
fn reconverged_launchers_equal_the_scalar_kernels() {
    let d = scratch_dir("vectorize");
    let src = data("vectorize_kernels.c");
    let reference = reference_object(&d, &src);
    for order in ["df", "dfpd", "bf", "rpot"] {
        let check = |_: &str, _: &str, _: &[String]| {};
        let extra = ["--linearize", "reconverge", "--order", order];
        launchers_equal_reference(&d, &src, &reference, 8, &check, &extra);
    }
}

/// A `goto` into a loop body (tests/data/goto_into_loop.c, an irreducible cycle that
/// partial linearization declines): through the reconverging transform and its lowering
/// to masks under every block order, the launcher equals the scalar function compiled by
/// clang-19 at 4, 8 and 16 lanes, for counts that leave the last group partial.
#[test]
fn irreducible_c_vectorizes_through_the_reconverging_transform() {
    let d = scratch_dir("vectorize");
    for order in ["df", "dfpd", "bf", "rpot"] {
        for w in [4u16, 8, 16] {
            let obj = d.join(format!("goto_into_loop_{order}{w}.o"));
            run(Command::new(env!("CARGO_BIN_EXE_lanes"))
                .args(["vectorize", s(&data("goto_into_loop.c"))])
                .args(["--shapes", "c,u,u,u", "--width", &w.to_string()])
                .args(["--linearize", "reconverge", "--order", order])
                .args(["-o", s(&obj)]));
            let exe = d.join(format!("goto_into_loop_{order}{w}"));
            run(clang()
                .args(["-O1", "-o", s(&exe)])
                .arg(format!("-I{}", s(&data(""))))
                .arg(data("goto_into_loop_driver.c"))
                .arg(&obj));
            for n in [37, 0, 1, 64, 100] {
                let out = run(Command::new(&exe).arg(n.to_string()));
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    format!("ok {n}\n"),
                    "{order} W={w}"
                );
            }
        }
    }
}

#[test]
fn full_linearization_and_lir_output() {
    let d = scratch_dir("vectorize");
    let src = data("vectorize_kernels.c");
    let out = d.join("mandel_full.lir");
    let r = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["vectorize", s(&src), "--function", "mandel"])
        .args(["--shapes", "c,u,u,u,u,u,u", "--width", "8"])
        .args(["--linearize", "full", "-o", s(&out)])
        .output()
        .expect("lanes runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).expect("lir");
    assert!(text.contains("@_ZGVdN8luuuuuu_mandel("), "{text}");
    assert!(text.contains("@mandel_spmd("), "{text}");
    let v = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["verify", s(&out)])
        .output()
        .expect("lanes runs");
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
}

#[test]
fn bad_shapes_are_an_error_not_a_panic() {
    let r = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["vectorize", s(&data("vectorize_kernels.c"))])
        .args(["--function", "saxpy", "--shapes", "c,u", "-o"])
        .arg(scratch_dir("vectorize").join("bad.o"))
        .output()
        .expect("lanes runs");
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("4 parameters"), "{err}");
}

/// `lanes_extract` with a varying lane index and `lanes_broadcast`:
/// `rotate` (tests/data/vectorize_cross_lane.c) reads the next lane's and the first lane's
/// input; its launcher, linked with a clang-19 driver, is checked lane by lane at
/// W = 4, 8 and 16 for n = 37, 5, 64 and 0, where the last group is partial.
#[test]
fn cross_lane_intrinsics_read_the_other_lanes() {
    let d = scratch_dir("vectorize");
    // Any width runs on any host (`any_width_up_to_64_runs_natively`); 16 as well.
    for w in [4u16, 8, 16] {
        let kernel = ("vectorize_cross_lane.c", "rotate", "c,u,u");
        let driver = "vectorize_cross_lane_driver.c";
        launcher_checked_by_driver(&d, kernel, driver, w, &[37, 5, 64, 0]);
    }
}

/// Without lanes, `lanes.h` gives every intrinsic its width-1 meaning.
#[test]
fn lanes_h_without_lanes_means_width_one() {
    let d = scratch_dir("vectorize");
    let src = d.join("width1.c");
    std::fs::write(
        &src,
        "#include <lanes.h>\n#include <stdio.h>\n\
         int main(void) {\n\
           int ok = lanes_any(3) == 1 && lanes_any(0) == 0 && lanes_all(-1) == 1\n\
             && lanes_all(0) == 0 && lanes_popcount(7) == 1 && lanes_popcount(0) == 0\n\
             && lanes_ballot(1) == 1u && lanes_ballot(0) == 0u && lanes_lane_id() == 0u\n\
             && lanes_num_lanes() == 1u && lanes_extract(42, 0) == 42 && lanes_broadcast(-5) == -5\n\
             && lanes_extract(2.5f, 3) == 2.5f && lanes_broadcast(1e300) == 1e300\n\
             && lanes_extract((1LL << 40) + 1, 1) == (1LL << 40) + 1\n\
             && lanes_reduce_add(5) == 5 && lanes_reduce_min(-2.5) == -2.5 && lanes_reduce_max(7u) == 7u\n\
             && lanes_reduce_and(6) == 6 && lanes_reduce_or(9LL) == 9LL && lanes_shuffle(3.5f, 2) == 3.5f\n\
             && lanes_exclusive_scan_add(2.5f) == 0.0f && lanes_exclusive_scan_add(4) == 0;\n\
           printf(\"%s\\n\", ok ? \"width 1\" : \"wrong\"); return !ok; }\n",
    )
    .expect("write");
    let exe = d.join("width1");
    run(clang()
        .args(["-O0", "-Wall", "-Werror", "-o", s(&exe)])
        .arg(format!("-I{}", s(&include_dir())))
        .arg(&src));
    let out = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "width 1\n");
}

/// Vectorizes `function` of `kernel` (test data) at width `w` with `shapes`, links its
/// launcher with the clang-19 driver `driver`, and runs the driver as `driver W n` for each
/// `n`, which must print `ok n`.
fn launcher_checked_by_driver(
    d: &Path,
    (kernel, function, shapes): (&str, &str, &str),
    driver: &str,
    w: u16,
    ns: &[u32],
) {
    let obj = d.join(format!("{function}{w}.o"));
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&data(kernel)),
            "--function",
            function,
            "--shapes",
            shapes,
        ])
        .args(["--width", &w.to_string(), "-o", s(&obj)]));
    let exe = d.join(format!("{function}_driver{w}"));
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data(driver))
        .arg(&obj));
    for n in ns {
        let out = run(Command::new(&exe).args([w.to_string(), n.to_string()]));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("ok {n}\n"),
            "W={w}"
        );
    }
}

/// `lanes_broadcast`/`lanes_extract` of a float, a double and a long long
/// (tests/data/vectorize_cross_lane_types.c) keep their type: at W = 3, 4, 8 and 16 the
/// launcher's results equal the other lanes' inputs exactly (1e300 and 2^40 + k would not
/// survive an int), checked lane by lane by a clang-19 driver.
#[test]
fn cross_lane_intrinsics_keep_every_element_type() {
    let d = scratch_dir("vectorize");
    for w in [3u16, 4, 8, 16] {
        let kernel = ("vectorize_cross_lane_types.c", "spread", "c,u,u,u,u,u,u");
        let driver = "vectorize_cross_lane_types_driver.c";
        launcher_checked_by_driver(&d, kernel, driver, w, &[37, 5, 64, 0]);
    }
    // The header works from C++ too (C linkage, `bool`), with the same typed intrinsics.
    let cpp = d.join("typed.cpp");
    std::fs::write(
        &cpp,
        "#include <lanes.h>\n\
         extern \"C\" double k(double x, int c) { return lanes_any(c) ? lanes_broadcast(x) : 0.0; }\n",
    )
    .expect("write");
    let lir = d.join("typed.lir");
    run(Command::new(env!("CARGO_BIN_EXE_lanes")).args(["import", s(&cpp), "-o", s(&lir)]));
    let text = std::fs::read_to_string(&lir).expect("lir");
    assert!(
        text.contains("f64 = lane_broadcast") && text.contains("= any "),
        "{text}"
    );
}

/// `lanes_reduce_{add,min,max,and,or}` and `lanes_exclusive_scan_add`
/// (tests/data/vectorize_reductions.c): over all active lanes and inside a divergent
/// branch, for int, float and unsigned long long, at W = 3, 8, 16 and 64, every lane's
/// result equals the fold of its group's active lanes in lane order (computed by a
/// clang-19 driver; the float sum is compared exactly).
#[test]
fn reductions_and_scans_fold_the_active_lanes() {
    let d = scratch_dir("vectorize");
    for w in [3u16, 8, 16, 64] {
        let kernel = ("vectorize_reductions.c", "reduce", "c,u,u,u,u,u,u");
        let driver = "vectorize_reductions_driver.c";
        launcher_checked_by_driver(&d, kernel, driver, w, &[37, 5, 64, 0, 200]);
    }
}

/// An `int` instance index keeps `out[i]` contiguous (PLDI'18 §2.3; shapes through
/// `sext` of a declared contiguous `i32`, `lanes_analysis::shapes::no_wrap`): the bundled
/// Mandelbrot kernel (the demo's command) and the `int`-indexed saxpy store with vector
/// stores — plain in the unmasked variant, `llvm.masked.store` in the launcher's masked
/// one — and saxpy loads with vector loads: never a gather or scatter.
#[test]
fn int_indexed_stores_are_vector_stores_not_scatters() {
    let d = scratch_dir("vectorize");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cases = [
        (root.join("examples/mandelbrot.c"), "mandel", "u,c,u,u,u", 0),
        (data("vectorize_kernels.c"), "saxpy", "c,u,u,u", 2),
    ];
    for (src, f, shapes, loads) in cases {
        let ll = d.join(format!("{f}_int_index.ll"));
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(&src), "--function", f, "--shapes", shapes])
            .args([
                "--width",
                "8",
                "--clang-arg=-ffp-contract=off",
                "-o",
                s(&ll),
            ]));
        let text = std::fs::read_to_string(&ll).expect("ll");
        assert!(
            !text.contains("llvm.masked.scatter"),
            "{f}: a scatter\n{text}"
        );
        assert!(
            !text.contains("llvm.masked.gather"),
            "{f}: a gather\n{text}"
        );
        assert!(
            text.contains("store <8 x i32>") || text.contains("store <8 x float>"),
            "{f}: no vector store\n{text}"
        );
        assert!(
            text.contains("call void @llvm.masked.store.v8"),
            "{f}: no masked store\n{text}"
        );
        let vloads = text.matches("load <8 x float>").count()
            + text.matches("@llvm.masked.load.v8f32").count();
        assert!(vloads >= loads, "{f}: {vloads} vector loads\n{text}");
    }
}

/// `-ftime-report` (as with clang) prints one line per phase to standard error: the front
/// end, the C signature read beside it for `--shapes`, each vector variant, LLVM, and a
/// total; the phases that ran one after the other add up to the total.
#[test]
fn time_report_lists_every_phase() {
    let d = scratch_dir("vectorize");
    let obj = d.join("saxpy_timed.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&data("vectorize_kernels.c")),
            "--function",
            "saxpy",
        ])
        .args([
            "--shapes",
            "c,u,u,u",
            "--width",
            "4",
            "-ftime-report",
            "-o",
            s(&obj),
        ])
        .arg(format!("-I{}", s(&include_dir()))));
    let report = String::from_utf8_lossy(&out.stderr);
    for phase in [
        "front end and import",
        "C parameter signature (clang -O0 -g) (concurrent)",
        "vectorize: the unmasked variant",
        "vectorize: the masked body",
        "LLVM: export, optimization, code generation",
        "100.0%  total",
    ] {
        assert!(report.contains(phase), "no `{phase}` in:\n{report}");
    }
    let seconds = |line: &str| -> f64 { line.split_whitespace().next().unwrap().parse().unwrap() };
    let lines: Vec<&str> = report.lines().filter(|l| l.contains('%')).collect();
    let (total, phases) = lines.split_last().expect("a total line");
    let sum: f64 = phases.iter().map(|l| seconds(l)).sum();
    assert!((sum - seconds(total)).abs() < 0.01, "{sum} vs {report}");
    assert!(std::fs::metadata(&obj).is_ok_and(|m| m.len() > 0));
}

/// `--remarks` and `--remarks-json` say where the vector code has gathers, scatters and
/// code run once per lane, at the source line and with the reason
/// (tests/data/remarks_kernels.c: one construct per line); `lanes compile` says the same
/// for the body of an `omp simd` loop. A function with none of them has no remarks.
#[test]
fn remarks_name_the_line_and_reason_of_gathers_scatters_and_per_lane_code() {
    let d = scratch_dir("vectorize-remarks");
    let src = data("remarks_kernels.c");
    let json = d.join("remarks.json");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&src),
            "--function",
            "k",
            "--shapes",
            "c,u,u,u,u",
        ])
        .args([
            "--remarks",
            "--remarks-json",
            s(&json),
            "-o",
            s(&d.join("k.o")),
        ]));
    let text = String::from_utf8_lossy(&out.stderr);
    let expect = [
        "remarks_kernels.c:6: remark: @k: a load is a gather: its address is not affine in the instance (an indirect or non-linear index)",
        "remarks_kernels.c:7: remark: @k: a store is a scatter: its address steps 8 bytes from lane to lane, not the 4 bytes of the access",
        "remarks_kernels.c:9: remark: @k: an atomic operation runs once per active lane, in lane order",
        "remarks_kernels.c:10: remark: @k: the call of @depth runs once per active lane: it is part of a cycle of calls",
        "remarks_kernels.c:10: remark: @k: a store is a scatter: its address steps 8 bytes from lane to lane, not the 4 bytes of the access",
    ];
    for e in expect {
        assert!(text.contains(e), "missing {e:?} in\n{text}");
    }
    let records: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
    let records = records.as_array().expect("an array");
    assert_eq!(records.len(), expect.len(), "{records:?}");
    let kinds: Vec<(&str, u64)> = records
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or(""),
                r["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("Gather", 6),
            ("Scatter", 7),
            ("PerLane", 9),
            ("PerLane", 10),
            ("Scatter", 10)
        ]
    );

    // The loop in `lanes compile`.
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "--remarks",
            "-c",
            s(&src),
        ])
        .args(["-o", s(&d.join("loop.o"))]));
    let text = String::from_utf8_lossy(&out.stderr);
    for e in [
        "remarks_kernels.c:17: remark: @loop: a load is a gather: its address is not affine",
        "remarks_kernels.c:17: remark: @loop: the call of @depth runs once per active lane: it is part of a cycle of calls",
    ] {
        assert!(text.contains(e), "missing {e:?} in\n{text}");
    }

    // Nothing to say about saxpy.
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&data("vectorize_kernels.c")),
            "--function",
            "saxpy",
        ])
        .args([
            "--shapes",
            "c,u,u,u",
            "--remarks",
            "-o",
            s(&d.join("saxpy.o")),
        ]));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("remark"), "{text}");
}

/// Structures passed by value as uniform parameters: one in a vector register
/// (`struct { float x, y; }` is `<2 x float>`: its lanes' shared value stays one small
/// vector) and one in general registers; both launchers equal the scalar functions. A
/// varying vector parameter is refused with the reason and the fix.
#[test]
fn structs_by_value_are_uniform_parameters() {
    let d = scratch_dir("vectorize-structs");
    let src = data("struct_by_value.c");
    let mut objects = Vec::new();
    for (f, shapes) in [("affine", "c,u,u"), ("mixed_sum", "c,u,u")] {
        let obj = d.join(format!("{f}.o"));
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(&src), "--function", f, "--shapes", shapes])
            .args(["--clang-arg=-ffp-contract=off", "-o", s(&obj)]));
        objects.push(obj);
    }
    let reference = d.join("ref.o");
    run(clang()
        .args([
            "-O1",
            "-ffp-contract=off",
            "-Daffine=ref_affine",
            "-Dmixed_sum=ref_mixed_sum",
        ])
        .args(["-c", s(&src), "-o", s(&reference)]));
    let exe = d.join("structs");
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data("struct_by_value_driver.c"))
        .arg(&reference)
        .args(&objects));
    let out = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "mismatches 0\n");
    let failed = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&src),
            "--function",
            "affine",
            "--shapes",
            "c,v,u",
        ])
        .args(["-o", s(&d.join("bad.o"))])
        .output()
        .expect("lanes runs");
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        !failed.status.success() && err.contains("give it the shape u"),
        "{err}"
    );
}

/// One construct lanes IR cannot express does not fail the file
/// (tests/data/vectorize_mixed_file.c): the kernel next to it vectorizes; a function that
/// uses a global holding an address, one with inline assembly, and one calling it are
/// each refused with the construct (and its line when the source has one).
#[test]
fn a_kernel_vectorizes_beside_code_lanes_cannot_express() {
    let d = scratch_dir("vectorize-mixed");
    let src = data("vectorize_mixed_file.c");
    let obj = d.join("saxpy.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(&src),
            "--function",
            "saxpy",
            "--shapes",
            "c,u,u,u",
        ])
        .args(["-o", s(&obj)]));
    assert!(
        symbols(&obj, &["-g", "--defined-only"]).contains(&"saxpy_spmd".to_string()),
        "the launcher is defined"
    );
    for (f, want) in [
        (
            "use_gp",
            "@use_gp: it uses the global @gp, whose contents lanes IR cannot express",
        ),
        ("fenced", "vectorize_mixed_file.c:10): inline assembly"),
        (
            "calls_fenced",
            "@calls_fenced: it calls @fenced, which lanes IR cannot express",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(&src), "--function", f, "--shapes", "c"])
            .args(["-o", s(&d.join("x.o"))])
            .output()
            .expect("lanes runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{f}: {err}");
    }
}
