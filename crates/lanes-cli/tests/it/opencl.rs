//! `lanes cl run` and `lanes cl build` end to end: a kernel run on all cores with its
//! buffers' checksums equal to the scalar build's and to a checked run on the
//! interpreter, `--dump` writing the buffers, and every kind of bad input answered by an
//! error that names what is wrong (exit status 1, never a panic).

use std::process::Command;

use crate::common;
use common::{run, s, scratch_dir};

fn lanes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
}

fn saxpy() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/opencl/saxpy.cl")
}

const ARGS: [&str; 6] = [
    "--arg",
    "float[1000]=rand:1",
    "--arg",
    "float[1000]=rand:2",
    "--arg",
    "float:2.5",
];

/// The checksum lines of a run.
fn checksums(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("checksum"))
        .map(str::to_string)
        .collect()
}

#[test]
fn vector_scalar_and_checked_runs_agree_and_dump_the_buffers() {
    let d = scratch_dir("cl_run");
    let file = saxpy();
    let base = ["cl", "run", s(&file), "-k", "saxpy", "--global", "1000"];
    let vector = run(lanes()
        .args(base)
        .args(["--local", "40", "--dump", s(&d)])
        .args(ARGS));
    let text = String::from_utf8_lossy(&vector.stdout);
    assert!(
        text.contains("kernel saxpy on") && text.contains(" ms"),
        "{text}"
    );
    let scalar = run(lanes()
        .args(base)
        .args(["--width", "1", "--threads", "1"])
        .args(ARGS));
    let checked = run(lanes().args(base).args(["--check"]).args(ARGS));
    assert_eq!(checksums(&vector).len(), 2, "{text}");
    assert_eq!(checksums(&vector), checksums(&scalar));
    assert_eq!(checksums(&vector), checksums(&checked));
    let y = std::fs::read(d.join("arg0.bin")).expect("dumped");
    assert_eq!(y.len(), 4000);
    let build = run(lanes().args(["cl", "build", s(&saxpy()), "-o", s(&d.join("saxpy.lir"))]));
    assert!(String::from_utf8_lossy(&build.stdout).contains("kernel saxpy(global float* y"));
    let generic = std::fs::read_to_string(d.join("saxpy.lir")).unwrap();
    assert!(generic.contains("saxpy.group0"));
    // For one local size, as a launch compiles it: the size is a constant of the loops.
    let out = d.join("saxpy48.lir");
    run(lanes()
        .args(["cl", "build", s(&saxpy()), "-k", "saxpy", "--local", "48"])
        .args(["-o", s(&out)]));
    let specialized = std::fs::read_to_string(&out).unwrap();
    assert!(specialized.contains("saxpy.group0"), "{specialized}");
    assert!(specialized.contains("iconst 48"), "{specialized}");
    assert!(!generic.contains("iconst 48"), "{generic}");
    let bad = lanes()
        .args(["cl", "build", s(&saxpy()), "-k", "nope", "--local", "48"])
        .output()
        .expect("lanes runs");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(err.contains("no kernel `nope` (kernels: saxpy)"), "{err}");
}

/// `lanes cl run` with `extra` fails with a message containing `want`.
fn fails_with(file: &std::path::Path, extra: &[&str], want: &str) {
    let out = lanes()
        .args(["cl", "run", s(file)])
        .args(extra)
        .output()
        .expect("lanes runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
    assert!(
        err.contains("lanes: error:") && err.contains(want),
        "{extra:?}: want `{want}` in\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_gets_a_clear_error() {
    let d = scratch_dir("cl_errors");
    let k = saxpy();
    let g = ["-k", "saxpy", "--global", "16"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = g.to_vec();
        v.extend_from_slice(extra);
        v
    };
    fails_with(
        &k,
        &["-k", "nope", "--global", "16"],
        "no kernel named `nope`",
    );
    fails_with(&k, &with(&["--arg", "float[16]"]), "takes 3 arguments");
    fails_with(
        &k,
        &with(&["--arg", "int[16]", "--arg", "float[16]", "--arg", "float:1"]),
        "argument 0 (`y`)",
    );
    fails_with(
        &k,
        &with(&["--arg", "float[16]", "--arg", "float[16]", "--arg", "int:1"]),
        "argument 2 (`a`)",
    );
    fails_with(
        &k,
        &with(&[
            "--local",
            "5",
            "--arg",
            "float[16]",
            "--arg",
            "float[16]",
            "--arg",
            "float:1",
        ]),
        "does not divide its global size",
    );
    fails_with(
        &k,
        &with(&["--arg", "float[x]"]),
        "the count is not a number",
    );
    // Too small a buffer: a warning, and the checked run names the line.
    let out = lanes()
        .args(["cl", "run", s(&k)])
        .args(g)
        .args([
            "--arg",
            "float[16]",
            "--arg",
            "float[8]",
            "--arg",
            "float:1",
        ])
        .args(["--check"])
        .output()
        .expect("lanes runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("saxpy.cl:4: kernel `saxpy`") && err.contains("out-of-bounds"),
        "{err}"
    );
    // clang's diagnostics, with file and line.
    let bad = d.join("bad.cl");
    std::fs::write(
        &bad,
        "__kernel void k(__global int *x) {\n  x[0] = nope;\n}\n",
    )
    .unwrap();
    fails_with(
        &bad,
        &["-k", "k", "--global", "1", "--arg", "int[1]"],
        "bad.cl:2:10: error",
    );
    // A builtin lanes does not implement is named.
    let missing = d.join("missing.cl");
    std::fs::write(
        &missing,
        "__kernel void k(__global int *x) {\n  x[0] = work_group_reduce_add(x[1]);\n}\n",
    )
    .unwrap();
    fails_with(
        &missing,
        &[
            "-k", "k", "--global", "1", "--arg", "int[2]", "--cl-std", "CL2.0",
        ],
        "work_group_reduce_add",
    );
    fails_with(
        &d.join("absent.cl"),
        &["-k", "k", "--global", "1"],
        "no such file",
    );
}

/// `lanes bench cl` on one kernel: a table row per build, JSON records, the scaling from
/// one thread to all, and pocl either measured (its results equal lanes') or named as
/// missing with its Debian package.
#[test]
fn bench_cl_compares_with_pocl_or_says_it_is_missing() {
    let d = scratch_dir("bench_cl");
    let json = d.join("cl.json");
    let out = run(lanes().args([
        "bench",
        "cl",
        "--kernels",
        "stencil2d",
        "--configs",
        "scalar,boscc,boscc-1t,pocl",
        "--runs",
        "1",
        "--json",
        s(&json),
    ]));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("machine:") && table.contains("stencil2d"),
        "{table}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let records = v["records"].as_array().expect("records");
    let build = |name: &str| records.iter().find(|r| r["config"] == name);
    let lanes = build("boscc").expect("a boscc record");
    assert!(
        lanes["median_ms"].as_f64().is_some_and(|t| t > 0.0),
        "{lanes}"
    );
    assert_eq!(lanes["agrees"], true, "{lanes}");
    assert!(
        build("boscc-1t").is_some(),
        "the JSON names builds as the table does"
    );
    if v["machine"]["threads"].as_u64().is_some_and(|t| t >= 2) {
        assert!(table.contains("threads over one: stencil2d "), "{table}");
    }
    if v["machine"]["pocl"].is_null() {
        let notes = v["notes"].to_string();
        assert!(notes.contains("pocl-opencl-icd"), "{notes}");
    } else {
        let pocl = build("pocl").expect("a pocl record");
        assert_eq!(pocl["agrees"], true, "{pocl}");
        assert!(lanes["speedup_vs_pocl"].as_f64().is_some(), "{lanes}");
    }
}
