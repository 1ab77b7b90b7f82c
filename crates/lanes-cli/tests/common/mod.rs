//! Helpers shared by the CLI tests that build and link native code with clang-19: test
//! data paths, a per-process scratch directory, running a command that must succeed,
//! CPU feature checks and `nm` symbol lists.

// Each test crate includes this module and uses a different subset of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file of `tests/data`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A scratch directory for this test process, named after `tag`.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanes-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Runs `cmd`, failing the test with its output if it does not succeed.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("program runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The clang-19 lanes itself uses.
pub fn clang() -> Command {
    Command::new(lanes_llvm::clang::clang_program())
}

/// Does the host CPU have feature `flag` (as `/proc/cpuinfo` spells it)?
pub fn cpu_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|t| t.contains(&format!(" {flag}")))
}

/// The symbol names `nm nm_flags obj` lists, sorted.
pub fn symbols(obj: &Path, nm_flags: &[&str]) -> Vec<String> {
    let out = run(Command::new("nm").args(nm_flags).arg(s(obj)));
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(String::from))
        .collect();
    names.sort();
    names
}
