//! Helpers of the CLI tests that build and link native code with clang-19: test data
//! paths, clang, `nm` symbol lists, and the shared fixtures of `lanes-test-support`.

// Each test crate includes this module and uses a different subset of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A file of `tests/data`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub use lanes_test_support::{cpu_has, path_str as s, run_ok as run, scratch_dir, scratch_file};

/// The clang-19 lanes itself uses.
pub fn clang() -> Command {
    Command::new(lanes_llvm::clang::clang_program())
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
