//! Fixtures shared by the integration tests of every lanes crate.
//!
//! The tests of several crates need the same small things: deterministic random bytes
//! for a generated case, the soak multiplier, the project's kernel corpus and data
//! directories, scratch files that parallel tests cannot clobber, commands that must
//! succeed, and whether the host CPU has a feature. Written once here, a fix (say, to
//! scratch-file naming when tests share one binary) reaches every suite.
//!
//! This crate is only ever a `[dev-dependencies]` entry: nothing in it reaches the
//! `lanes` binary. It depends on no lanes crate, so that every lanes crate, down to
//! `lanes-ir`, can use it without a dependency cycle.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// `len` bytes drawn from `SmallRng::seed_from_u64(seed)`: the input of generated case
/// `seed` (fed to `arbitrary::Unstructured`), the same on every machine and run.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut bytes = vec![0; len];
    SmallRng::seed_from_u64(seed).fill_bytes(&mut bytes);
    bytes
}

/// 10 when `LANES_SOAK` is set (soak mode runs ten times more generated programs), else 1.
pub fn soak() -> u64 {
    if std::env::var_os("LANES_SOAK").is_some() {
        10
    } else {
        1
    }
}

/// The root of the workspace (where `kernels/`, `corpus/`, `examples/` and `include/` are).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The project's kernel corpus, `kernels/` at the root, shared by the divergence
/// analysis, the SIMT profiler, the vectorizer and the CLI.
pub fn kernels_dir() -> PathBuf {
    workspace_root().join("kernels")
}

/// The text of `kernels/<name>`.
pub fn kernel_text(name: &str) -> String {
    let path = kernels_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `.lir` files of the directories `dirs`, sorted by file name (a kernel lives in
/// exactly one directory, so names do not repeat).
pub fn lir_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.expect("a readable directory entry").path())
        })
        .filter(|p| p.extension().is_some_and(|x| x == "lir"))
        .collect();
    files.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    files
}

/// A scratch directory of its own for each call (under the temp directory, named after
/// the process and `tag`): the tests of one binary run in parallel threads, and two of
/// them writing `out.o` into one directory would read each other's files.
pub fn scratch_dir(tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("lanes-test-{}/{tag}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Writes `text` to a new scratch file `name` (in a [`scratch_dir`] of its own).
pub fn scratch_file(name: &str, text: &str) -> PathBuf {
    let path = scratch_dir("file").join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// The path as `&str`; the scratch and data paths of the tests are UTF-8.
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// Runs `cmd`, failing the test with its standard output and error unless it succeeds.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} does not start: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Does the host CPU have feature `flag` (as `/proc/cpuinfo` spells it, e.g. `avx512f`)?
/// Tests that run code for a feature skip with a message when it is missing.
pub fn cpu_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .is_ok_and(|t| t.split_whitespace().any(|word| word == flag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_bytes_are_deterministic_and_differ_by_seed() {
        assert_eq!(seeded_bytes(7, 64), seeded_bytes(7, 64));
        assert_ne!(seeded_bytes(7, 64), seeded_bytes(8, 64));
        assert_eq!(seeded_bytes(7, 64)[..16], seeded_bytes(7, 16)[..]);
    }

    #[test]
    fn scratch_dirs_are_distinct_per_call() {
        let a = scratch_dir("t");
        let b = scratch_dir("t");
        assert_ne!(a, b);
        assert!(a.is_dir() && b.is_dir());
        let f = scratch_file("x.txt", "hello");
        assert_eq!(std::fs::read_to_string(f).unwrap(), "hello");
    }

    #[test]
    fn the_kernel_corpus_is_found() {
        let files = lir_files(&[kernels_dir()]);
        assert!(files.len() > 10, "kernels/ holds the corpus: {files:?}");
        let names: Vec<_> = files.iter().map(|p| p.file_name().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(kernel_text("pldi18_fig9_mandelbrot.lir").contains("function"));
    }
}
