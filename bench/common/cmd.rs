//! Running the compilers and programs a benchmark compares.

use std::path::Path;
use std::process::Command;

/// Runs `cmd`; its standard output. A failure stops the benchmark with the command and
/// its standard error: a benchmark of a broken build measures nothing.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A path as a `str` (the benchmarks' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
