//! End-to-end tests of the `lanes` binary: every subcommand on good input, its `--help`,
//! and a non-zero exit with a one-line `lanes: error: FILE:LINE:COL: …` on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lanes(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("the lanes binary runs")
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

use lanes_test_support::scratch_file as temp_file;

const MANDEL: &str = "examples/mandelbrot.lir";

#[test]
fn every_subcommand_has_help() {
    for sub in ["fmt", "verify", "interp", "cfg"] {
        let o = lanes(&[sub, "--help"]);
        assert!(o.status.success(), "{sub} --help failed: {}", stderr(&o));
        assert!(
            stdout(&o).contains("Usage: lanes"),
            "{sub} --help: {}",
            stdout(&o)
        );
    }
    let o = lanes(&["--help"]);
    for sub in ["fmt", "verify", "interp", "cfg"] {
        assert!(stdout(&o).contains(sub), "top-level help lists {sub}");
    }
}

#[test]
fn verify_accepts_the_example() {
    let o = lanes(&["verify", MANDEL]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{MANDEL}: ok (1 function)\n"));
}

#[test]
fn verify_reports_every_error_with_file_and_entity() {
    let path = temp_file(
        "bad_types.lir",
        "function @f(v0: i32, v1: f32) -> i32 {\nblock0:\n    v2: i32 = add v0, v1\n    v3: i1 = icmp eq v0, v1\n    ret v3\n}\n",
    );
    let o = lanes(&["verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let p = path.display();
    assert!(err.starts_with(&format!("lanes: error: {p}: @f: block0: inst0 `v2: i32 = add v0, v1`: first operand has type i32, but second operand is f32\n")), "{err}");
    assert!(err.contains("inst1 `v3: i1 = icmp eq v0, v1`"), "{err}");
    assert!(
        err.contains("inst2 `ret v3`: returned value has type i1"),
        "{err}"
    );
    assert!(err.contains("3 verifier errors"), "{err}");
}

#[test]
fn parse_errors_are_one_line_with_position() {
    let path = temp_file("syntax.lir", "function @f() {\nblock0:\n    ret 5\n}\n");
    let o = lanes(&["fmt", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("lanes: error: {}:3:", path.display())),
        "{err}"
    );
    let o = lanes(&["verify", "no/such/file.lir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("lanes: error: cannot read no/such/file.lir"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fmt_is_canonical_and_keeps_the_header() {
    let o = lanes(&["fmt", MANDEL]);
    assert!(o.status.success(), "{}", stderr(&o));
    let original = std::fs::read_to_string(workspace_root().join(MANDEL)).unwrap();
    assert_eq!(
        stdout(&o),
        original,
        "the bundled example is in canonical form"
    );
    let o = lanes(&["fmt", "--check", MANDEL]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A comment inside a function would be lost: --in-place refuses, and says why.
    let path = temp_file(
        "inner_comment.lir",
        "function @f() {\nblock0: ; the entry\n    ret\n}\n",
    );
    let o = lanes(&["fmt", "-i", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("would be lost"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("the entry"));
}

#[test]
fn cfg_prints_dot_with_analyses() {
    let o = lanes(&[
        "cfg",
        MANDEL,
        "--function",
        "mandel",
        "--dom-tree",
        "--postdom-tree",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dot = stdout(&o);
    assert!(dot.starts_with("digraph \"mandel\" {"), "{dot}");
    assert!(
        dot.contains("subgraph cluster_loop0"),
        "loop cluster: {dot}"
    );
    assert!(
        dot.contains("loop0: header block1, latches block3, exits block4"),
        "{dot}"
    );
    assert!(
        dot.contains("block3 -> block1 [color=blue, penwidth=2]"),
        "back edge: {dot}"
    );
    assert!(
        dot.contains("block2 -> block4 [label=\"T\", color=red]"),
        "loop exit: {dot}"
    );
    assert!(
        dot.contains("idom block1  ipdom block4  depth 1"),
        "block2's annotations: {dot}"
    );
    // block1 (the header) is control dependent on the loop-continue edge block2->block3.
    assert!(
        dot.contains(
            "block1 (loop header)\\lidom block0  ipdom block4  depth 1\\lcdep block2->block3\\l"
        ),
        "{dot}"
    );
    assert!(
        dot.contains("block0 -> block1 [style=dashed, color=darkgreen"),
        "dom tree: {dot}"
    );
    assert!(
        dot.contains("block4 -> block2 [style=dashed, color=purple"),
        "postdom tree: {dot}"
    );
    assert!(dot.contains("exit [label=\"virtual exit\""), "{dot}");
    let o = lanes(&["cfg", MANDEL, "--function", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no function @nope; the file defines @mandel"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn interp_runs_the_example() {
    let o = lanes(&[
        "interp",
        MANDEL,
        "--function",
        "mandel",
        "--",
        "-1.0",
        "0.0",
        "100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "100", "(-1, 0) is in the set");
    let o = lanes(&[
        "interp",
        MANDEL,
        "--function",
        "mandel",
        "2.0",
        "2.0",
        "100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "1", "(2, 2) escapes after one step");
}

#[test]
fn interp_reports_faults_and_bad_arguments() {
    let path = temp_file(
        "div.lir",
        "function @d(v0: i32, v1: i32) -> i32 {\nblock0:\n    v2: i32 = sdiv v0, v1\n    ret v2\n}\n",
    );
    let p = path.to_str().unwrap();
    let o = lanes(&["interp", p, "7", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "3");
    let o = lanes(&["interp", p, "7", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("v2: i32 = sdiv v0, v1"),
        "names the instruction: {}",
        stderr(&o)
    );
    let o = lanes(&["interp", p, "7"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("lanes: error: "), "{}", stderr(&o));
}

#[test]
fn irreducible_control_flow_is_declined_with_the_cycle_entries() {
    let out = lanes_test_support::scratch_dir("irreducible").join("g.o");
    let vectorize = |linearize: &str| {
        lanes(&[
            "vectorize",
            "crates/lanes-cli/tests/data/goto_into_loop.c",
            "--shapes",
            "c,u,u,u",
            "-O0",
            "--linearize",
            linearize,
            "-o",
            out.to_str().expect("utf-8 path"),
        ])
    };
    // Partial linearization and full if-conversion decline; the reconverging transform
    // takes it (tests/it/vectorize.rs runs the result).
    for linearize in ["partial", "full"] {
        let o = vectorize(linearize);
        assert!(!o.status.success());
        let err = stderr(&o);
        // The loop's test (line 6) and the label's statement (line 9) enter the cycle.
        assert!(
            err.contains("@goto_into_loop has irreducible control flow")
                && err.contains("source lines 6, 9"),
            "{linearize}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let o = vectorize("reconverge");
    assert!(o.status.success(), "{}", stderr(&o));
}
