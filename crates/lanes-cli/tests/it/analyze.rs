//! End-to-end tests of `lanes analyze`: the text report, JSON,
//! SVG, `--shapes`, and `--profile` on given and on generated inputs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lanes(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("lanes runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const MANDEL: &str = "kernels/pldi18_fig9_mandelbrot.lir";

#[test]
fn text_report_classifies_branches_and_values() {
    let o = lanes(&["analyze", MANDEL]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.contains("branch block1: uniform (v10 uniform)"),
        "{out}"
    );
    assert!(out.contains("branch block2: divergent (v14 varying), reconverges at block4"));
    assert!(out.contains("join block4: by block2"));
    assert!(out.contains("exit block1 -> block4 uniform, block2 -> block4 divergent"));
    assert!(out.contains("v9: uniform, temporally divergent"));
}

#[test]
fn shapes_option_overrides_attributes() {
    // With every argument uniform, nothing diverges.
    let out = stdout(&lanes(&["analyze", MANDEL, "--shapes", "u,u,u"]));
    assert!(out.contains("branch block2: uniform"), "{out}");
    assert!(!out.contains("join"));
    let o = lanes(&["analyze", MANDEL, "--shapes", "u,q,u"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad --shapes"));
    let o = lanes(&["analyze", MANDEL, "--shapes", "u,u"]);
    assert!(!o.status.success(), "arity is checked");
}

#[test]
fn json_report() {
    let out = stdout(&lanes(&[
        "analyze",
        MANDEL,
        "--format",
        "json",
        "--profile",
    ]));
    assert!(out.starts_with("{\"function\":\"mandel\""), "{out}");
    assert!(out.contains("{\"block\":\"block2\",\"condition\":\"v14\",\"condition_shape\":\"varying\",\"divergent\":true,\"reconverges_at\":\"block4\"}"));
    assert!(out.contains("\"profile\":{\"branches\":["));
    assert!(out.contains("\"false_negatives\":0"));
    let opens = out.matches(['{', '[']).count();
    let closes = out.matches(['}', ']']).count();
    assert_eq!(opens, closes, "balanced JSON");
}

#[test]
fn svg_marks_divergent_branches_and_joins() {
    let out = stdout(&lanes(&[
        "analyze",
        "kernels/pldi18_fig3.lir",
        "--format",
        "svg",
    ]));
    assert!(out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(out.trim_end().ends_with("</svg>"));
    assert_eq!(
        out.matches("<g class=\"block\"").count(),
        8,
        "one box per block"
    );
    // block0, block1, block3 end in divergent branches; block4, block6, block7 are joins.
    assert_eq!(
        out.matches(">divergent branch</text>").count(),
        3 + 1,
        "3 + legend"
    );
    assert_eq!(out.matches(">join-divergent</text>").count(), 3);
    assert_eq!(out.matches("<g").count(), out.matches("</g>").count());
}

#[test]
fn profile_on_given_and_generated_inputs() {
    let o = lanes(&["analyze", MANDEL, "--profile", "--", "0.25", "0.5", "100"]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(out.contains("profile (SIMT, 8 lanes):"), "{out}");
    assert!(out.contains("branch block2: divergent, diverged;"));
    assert!(out.contains("false-positive rate 0.0%"));
    let out = stdout(&lanes(&[
        "analyze",
        "kernels/stencil1d.lir",
        "--profile",
        "--groups",
        "4",
    ]));
    assert!(out.contains("0 false negatives"), "{out}");
    assert!(out.contains("SIMD utilization"));
    // A kernel whose lanes fault on generated inputs: reported, not fatal.
    let f = lanes_test_support::scratch_dir("analyze-fault").join("fault.lir");
    std::fs::write(
        &f,
        "function @f(v0: i32 varying) -> i32 {\nblock0:\n    v1: i32 = lane_id\n    v2: i32 = sdiv v0, v1\n    ret v2\n}\n",
    )
    .unwrap();
    let o = lanes(&["analyze", f.to_str().unwrap(), "--profile", "--groups", "1"]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        stdout(&o).contains("fault: group 0 lane 0:"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn opencl_input_through_the_llvm_bridge() {
    if Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("clang-19 not installed: skipped");
        return;
    }
    let f = lanes_test_support::scratch_dir("analyze-kernel").join("kernel.cl");
    std::fs::write(
        &f,
        "__kernel void k(__global float* x, float a, int n) {\n    int i = get_global_id(0);\n    if (i < n) x[i] = x[i] * a;\n    if (n > 4) x[0] = a;\n}\n",
    )
    .unwrap();
    let o = lanes(&["analyze", f.to_str().unwrap(), "--profile", "--groups", "4"]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(out.contains("args: v0 uniform"), "{out}");
    assert!(
        out.contains(": divergent ("),
        "the bounds check is divergent: {out}"
    );
    assert!(
        out.contains(": uniform ("),
        "the test on n is uniform: {out}"
    );
    assert!(out.contains("0 false negatives"));
}

/// A divergent branch whose two label streams stay apart for 200 blocks (a ladder: both
/// rails meet at a returning block on every rung): its walk passes the step budget, the
/// report says so on stderr, and `--exact-divergence` runs it to the end with the same
/// or fewer join-divergent blocks.
#[test]
fn long_walks_are_summarized_with_a_note_unless_exact() {
    let rungs = 100;
    let mut text = String::from("function @ladder(v0: i1 varying, v1: i1 uniform) {\nblock0:\n");
    text.push_str("    brif v0, block1, block2\n");
    for i in 0..rungs {
        let (a, b, c) = (1 + 3 * i, 2 + 3 * i, 3 + 3 * i);
        let (na, nb) = (a + 3, b + 3);
        let last = i + 1 == rungs;
        let (na, nb) = if last { (c, c) } else { (na, nb) };
        text.push_str(&format!("block{a}:\n    brif v1, block{na}, block{c}\n"));
        text.push_str(&format!("block{b}:\n    brif v1, block{nb}, block{c}\n"));
        text.push_str(&format!("block{c}:\n    ret\n"));
    }
    text.push_str("}\n");
    let path = lanes_test_support::scratch_dir("analyze-ladder").join("ladder.lir");
    std::fs::write(&path, &text).expect("writes");
    let p = path.to_str().expect("utf-8 path");
    let joins = |o: &Output| stdout(o).lines().filter(|l| l.starts_with("join ")).count();
    let cut = lanes(&["analyze", p]);
    assert!(cut.status.success(), "{cut:?}");
    let note = String::from_utf8_lossy(&cut.stderr).into_owned();
    assert!(
        note.contains("divergence walks stopped after 64 steps"),
        "{note}"
    );
    let exact = lanes(&["analyze", p, "--exact-divergence"]);
    assert!(exact.status.success(), "{exact:?}");
    assert!(exact.stderr.is_empty(), "{exact:?}");
    assert!(joins(&exact) >= rungs, "{}", stdout(&exact));
    assert!(joins(&cut) >= joins(&exact));
    let _ = std::fs::remove_file(&path);
}
