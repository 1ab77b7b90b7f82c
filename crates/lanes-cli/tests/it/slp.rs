//! `lanes compile --slp`: SuperVectorization in place of LLVM's vectorizers, on lanes-slp's
//! hand-written kernels, built for this machine, linked with a driver that runs each
//! kernel against clang-19's scalar build of the same source (-O3 for this CPU, its
//! vectorizers off) on 50 random inputs; and the
//! `--stats` and remarks a user sees.

use std::process::Command;

use crate::common::{clang, data, run, s, scratch_dir};

fn kernels() -> std::path::PathBuf {
    lanes_test_support::workspace_root().join("crates/lanes-slp/tests/data/slp_kernels.c")
}

const KERNELS: [&str; 21] = [
    "add4",
    "add4_alias",
    "cond_scale8",
    "branchy4",
    "swapped4",
    "saxpy_by4",
    "stencil_rows",
    "no_adjacent",
    "saxpy",
    "clamp_positive",
    "last_sum",
    "scale_tail",
    "outer_guarded",
    "lagged",
    "escape_counts",
    "row_sums",
    "int_dot",
    "div8",
    "column_sums",
    "float_sum",
    "float_sum_in_order",
];

#[test]
fn slp_kernels_built_by_lanes_match_clang() {
    let dir = scratch_dir("slp-native");
    let lanes_obj = dir.join("kernels.lanes.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "compile",
        "-O3",
        "-march=native",
        "--slp",
        "--stats",
        s(&kernels()),
        "-o",
        s(&lanes_obj),
    ]));
    let stats = String::from_utf8_lossy(&out.stderr).to_string();
    // Packs were made, under different predicates too.
    assert!(
        stats.contains("slp: @add4: 1 trees, 4 packs of 16 instructions"),
        "{stats}"
    );
    assert!(stats.contains("slp: @add4_alias: 0 trees"), "{stats}");
    // Priced by the target's cost model: x86 has no vector integer division.
    assert!(stats.contains("slp: @div8: 0 trees"), "{stats}");
    let cond = stats
        .lines()
        .find(|l| l.starts_with("slp: @cond_scale8"))
        .expect("stats line");
    assert!(!cond.contains(" 0 packs across predicates"), "{stats}");
    let ref_obj = dir.join("kernels.ref.o");
    let mut cc = clang();
    cc.args([
        "-O3",
        "-march=native",
        "-fno-vectorize",
        "-fno-slp-vectorize",
        "-c",
        s(&kernels()),
        "-o",
        s(&ref_obj),
    ]);
    for k in KERNELS {
        cc.arg(format!("-D{k}=ref_{k}"));
    }
    run(&mut cc);
    let exe = dir.join("slp_driver");
    run(clang().args([
        s(&data("slp_driver.c")),
        s(&lanes_obj),
        s(&ref_obj),
        "-o",
        s(&exe),
    ]));
    let out = run(&mut Command::new(&exe));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    for k in KERNELS {
        assert!(
            text.lines().any(|l| l == format!("{k} same")),
            "{k}:\n{text}"
        );
    }
    // Kernels that return a value say so when the values differ.
    assert!(!text.contains("DIFFERENT"), "{text}");
}

#[test]
fn slp_remarks_say_why_stores_were_not_packed() {
    let dir = scratch_dir("slp-remarks");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "compile",
        "-O2",
        "--slp",
        "--remarks",
        s(&kernels()),
        "-o",
        s(&dir.join("k.o")),
    ]));
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        text.lines().any(|l| l.contains(
            "slp_kernels.c:15: remark: @add4_alias: adjacent stores not packed: a dependence"
        )),
        "{text}"
    );
    assert!(
        text.contains("remark: @add4: 4 vector packs of 16 instructions"),
        "{text}"
    );
    // Without --slp, no SLP remark: LLVM's vectorizers did the work.
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "compile",
        "-O2",
        "--remarks",
        s(&kernels()),
        "-o",
        s(&dir.join("k2.o")),
    ]));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("vector packs"));
}
