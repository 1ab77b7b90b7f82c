//! `lanes vectorize --profile`: a training run in the SIMT interpreter decides the
//! empty-mask skips of `--linearize reconverge`. A test around a region every wave of
//! the training run enters (all points hit) goes; generated inputs keep the static
//! rule's; misuse, bad training arguments and a training run whose lanes fault get an
//! error naming what is wrong.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{run, s, scratch_dir};

const KERNEL: &str = "
void count_hits(long i, const float *xs, const float *table, int *out, int n, float r) {
  float x = xs[i];
  int hits = 0;
  for (int k = 0; k < n; k++) {
    float d = table[k] - x;
    if (d * d < r * r) {
      hits += 1;
      out[i * 4 + (hits & 3)] = k;
    }
  }
  out[i * 4] = hits;
}
";

/// `lanes vectorize`.
fn lanes() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lanes"));
    c.arg("vectorize");
    c
}

/// `--profile` with one `--profile-arg` per element of `args`.
fn training(args: &[&str]) -> Vec<String> {
    let mut out = vec!["--profile".to_string()];
    for a in args {
        out.extend(["--profile-arg".to_string(), a.to_string()]);
    }
    out
}

/// The empty-mask tests of the unmasked variant, from `--stats-json`.
fn skips(src: &Path, out: &Path, extra: &[String]) -> u64 {
    let o = run(lanes()
        .arg(src)
        .args(["--function", "count_hits", "--shapes", "c,u,u,u,u,u"])
        .args([
            "--linearize",
            "reconverge",
            "--width",
            "8",
            "--stats-json",
            "-",
        ])
        .args(extra)
        .args(["-o", s(out)]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stats json");
    v[0]["boscc_gadgets"].as_u64().expect("boscc_gadgets")
}

#[test]
fn a_training_run_where_every_wave_hits_drops_the_test_of_the_hit() {
    let d = scratch_dir("profile_guided");
    let src = d.join("count_hits.c");
    std::fs::write(&src, KERNEL).expect("write");
    let out = d.join("out.s");
    let unprofiled = skips(&src, &out, &[]);
    assert!(
        unprofiled >= 1,
        "the static rule tests the hit: {unprofiled}"
    );
    // Generated inputs: points far apart, rarely hit; the test stays.
    assert_eq!(skips(&src, &out, &training(&[])), unprofiled);
    // Every point within r = 100 of every query: no wave ever finds the hit empty. The
    // table comes from a file, as real training data would.
    let table = d.join("table.bin");
    let points: Vec<u8> = [0.1f32, 0.5, 0.9, 2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&table, points).expect("write");
    let table_arg = format!("buf[f32 @ {}]", table.display());
    let all_hit = training(&[
        "0",
        "buf[f32 x 64]",
        &table_arg,
        "buf[i32 x 256]",
        "4",
        "100.0",
    ]);
    assert_eq!(skips(&src, &out, &all_hit), unprofiled - 1);
}

#[test]
fn profile_misuse_and_bad_training_arguments_are_named() {
    let d = scratch_dir("profile_guided_errors");
    let src = d.join("count_hits.c");
    std::fs::write(&src, KERNEL).expect("write");
    let fails = |extra: &[String]| {
        let o = lanes()
            .arg(&src)
            .args(["--function", "count_hits", "--shapes", "c,u,u,u,u,u"])
            .args(extra)
            .args(["-o", s(&d.join("x.o"))])
            .output()
            .expect("runs");
        assert!(!o.status.success(), "{extra:?} should fail");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let reconverge = |args: &[&str]| {
        let mut all = vec!["--linearize".to_string(), "reconverge".to_string()];
        all.extend(training(args));
        all
    };
    let partial = fails(&training(&[]));
    assert!(partial.contains("--linearize reconverge"), "{partial}");
    let without = fails(&["--linearize", "reconverge", "--profile-arg", "0"].map(String::from));
    assert!(without.contains("add --profile"), "{without}");
    let short = fails(&reconverge(&["0"]));
    assert!(
        short.contains("profile run failed") && short.contains("6 arguments, 1 given"),
        "{short}"
    );
    // A table of one element read as four: the lanes fault, and a run cut short is no
    // profile to trust.
    let faulted = fails(&reconverge(&[
        "0",
        "buf[f32 x 64]",
        "buf[f32: 0.5]",
        "buf[i32 x 256]",
        "4",
        "1.0",
    ]));
    assert!(
        faulted.contains("lane(s) faulted") && faulted.contains("--profile-arg"),
        "{faulted}"
    );
}
