//! Differential testing of `lanes compile` against clang-19 on csmith programs.
//!
//! csmith writes random, UB-free C programs that print a checksum of their globals. Each
//! seed's program is built twice with the same flags — by `clang-19 $FLAGS` and by
//! `lanes compile $FLAGS` (then linked by clang) — and both are run. The reference run
//! decides whether a seed counts: a program whose clang build does not finish within the
//! time limit is still compiled by lanes (which must succeed and not crash) but its output
//! is not compared (csmith programs may loop for very long; that is never blamed on
//! lanes). For the others, lanes must compile (exit 0), must not crash (a clean error
//! exits 1; a panic or a signal is a crash), and must print the same checksum.
//!
//! Shared by the CI test (`crates/lanes-cli/tests/it/csmith.rs`, 50 seeds) and the benchmark
//! `bench/csmith.rs` (any number of seeds, a JSON summary, failing programs kept).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One set of flags both compilers get.
#[derive(Clone, Debug)]
pub struct Config {
    pub name: &'static str,
    pub flags: &'static [&'static str],
    /// Flags for `lanes compile` only (clang's reference build does not take them).
    pub lanes_flags: &'static [&'static str],
}

/// The configurations of the differential test: unoptimized, optimized, and optimized for
/// this machine's vector ISA (where lanes' outer-loop and declare-simd paths and LLVM's
/// vectorizers are active), and that again with lanes' SuperVectorization in place of
/// LLVM's vectorizers (`--slp`).
pub const CONFIGS: [Config; 4] = [
    Config {
        name: "O0",
        flags: &["-O0"],
        lanes_flags: &[],
    },
    Config {
        name: "O2",
        flags: &["-O2"],
        lanes_flags: &[],
    },
    Config {
        name: "O3-native",
        flags: &["-O3", "-march=native"],
        lanes_flags: &[],
    },
    Config {
        name: "O3-native-slp",
        flags: &["-O3", "-march=native"],
        lanes_flags: &["--slp"],
    },
];

/// What happened to one seed in one configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Same checksum.
    Same,
    /// The reference did not finish within the limit; lanes compiled the program, whose
    /// output is therefore not compared.
    Uncompared,
    /// No reference (clang-19 or csmith failed, the reference exited with an error): the
    /// seed does not count.
    Skipped(String),
    /// `lanes compile` refused the program with a clean error.
    CompileError(String),
    /// `lanes compile` crashed (panic, signal, LLVM abort).
    Crash(String),
    /// The lanes build failed to link or run, or ran out of time.
    RunError(String),
    /// Different output: a miscompile.
    Different { clang: String, lanes: String },
}

impl Outcome {
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Same => "same",
            Outcome::Uncompared => "uncompared",
            Outcome::Skipped(_) => "skipped",
            Outcome::CompileError(_) => "compile-error",
            Outcome::Crash(_) => "crash",
            Outcome::RunError(_) => "run-error",
            Outcome::Different { .. } => "different",
        }
    }
}

/// The csmith runtime headers (Debian's libcsmith-dev installs them here).
pub fn csmith_include() -> Option<PathBuf> {
    ["/usr/include/csmith", "/usr/local/include/csmith"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.join("csmith.h").exists())
}

/// Whether `csmith` and its headers are installed.
pub fn csmith_available() -> bool {
    Command::new("csmith")
        .arg("--version")
        .current_dir(std::env::temp_dir()) // csmith writes `platform.info` where it runs
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && csmith_include().is_some()
}

/// Runs `cmd`, killing it after `limit`; `None` on timeout. On Linux the child also dies
/// with the harness: a benchmark stopped with a signal leaves no generated program
/// running (one once ran on for an hour and a half, taking a core from later runs).
fn run_with_limit(cmd: &mut Command, limit: Duration) -> std::io::Result<Option<Output>> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // `prctl`, which is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let start = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            return child.wait_with_output().map(Some);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_string()
}

/// Writes csmith's program for `seed` to `dir/seed.c`.
pub fn generate(seed: u64, dir: &Path) -> Result<PathBuf, String> {
    let path = dir.join(format!("{seed}.c"));
    let out = Command::new("csmith")
        .args(["--seed", &seed.to_string(), "-o"])
        .arg(&path)
        .current_dir(dir) // csmith writes `platform.info` where it runs
        .output()
        .map_err(|e| format!("cannot run csmith: {e}"))?;
    if !out.status.success() {
        return Err(format!("csmith --seed {seed}: {}", text(&out.stderr)));
    }
    Ok(path)
}

/// Builds and runs `src` both ways under `config`; `run_limit` bounds each run.
pub fn check(lanes: &Path, src: &Path, config: &Config, run_limit: Duration) -> Outcome {
    let Some(inc) = csmith_include() else {
        return Outcome::Skipped("csmith.h not found".into());
    };
    let stem = src.with_extension("");
    let tag = format!("{}.{}", stem.display(), config.name);
    let reference = PathBuf::from(format!("{tag}.clang"));
    let object = PathBuf::from(format!("{tag}.lanes.o"));
    let program = PathBuf::from(format!("{tag}.lanes"));
    let common = |cmd: &mut Command| {
        cmd.args(config.flags)
            .arg("-w")
            .arg(format!("-I{}", inc.display()));
    };
    // Reference: clang-19 alone.
    let mut cc = Command::new("clang-19");
    common(&mut cc);
    cc.arg(src).arg("-o").arg(&reference);
    match cc.output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => return Outcome::Skipped(format!("clang-19 failed: {}", text(&o.stderr))),
        Err(e) => return Outcome::Skipped(format!("cannot run clang-19: {e}")),
    }
    // `None`: the reference ran out of time; lanes still has to compile the program.
    let expected = match run_with_limit(&mut Command::new(&reference), run_limit) {
        Ok(Some(o)) if o.status.success() => Some(text(&o.stdout)),
        Ok(Some(o)) => return Outcome::Skipped(format!("reference exited with {}", o.status)),
        Ok(None) => None,
        Err(e) => return Outcome::Skipped(format!("cannot run the reference: {e}")),
    };
    // lanes compile with the same flags, linked by clang.
    let mut lc = Command::new(lanes);
    lc.arg("compile");
    common(&mut lc);
    lc.args(config.lanes_flags);
    lc.arg("-c").arg(src).arg("-o").arg(&object);
    let out = match run_with_limit(&mut lc, Duration::from_secs(300)) {
        Ok(Some(o)) => o,
        Ok(None) => return Outcome::Crash("lanes compile took over 300 s".into()),
        Err(e) => return Outcome::Crash(format!("cannot run lanes: {e}")),
    };
    match out.status.code() {
        Some(0) => {}
        Some(1) => return Outcome::CompileError(text(&out.stderr)),
        _ => return Outcome::Crash(format!("{}: {}", out.status, text(&out.stderr))),
    }
    let Some(expected) = expected else {
        for p in [&reference, &object] {
            let _ = std::fs::remove_file(p);
        }
        return Outcome::Uncompared;
    };
    let mut link = Command::new("clang-19");
    link.arg(&object).arg("-o").arg(&program);
    match link.output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => return Outcome::RunError(format!("link failed: {}", text(&o.stderr))),
        Err(e) => return Outcome::RunError(format!("cannot link: {e}")),
    }
    // The lanes build gets more time: unoptimized parts may be slower, never different.
    let got = match run_with_limit(&mut Command::new(&program), run_limit * 4) {
        Ok(Some(o)) if o.status.success() => text(&o.stdout),
        Ok(Some(o)) => {
            return Outcome::RunError(format!("exited with {}: {}", o.status, text(&o.stderr)))
        }
        Ok(None) => return Outcome::RunError("timed out".into()),
        Err(e) => return Outcome::RunError(format!("cannot run: {e}")),
    };
    for p in [&reference, &object, &program] {
        let _ = std::fs::remove_file(p);
    }
    if got == expected {
        Outcome::Same
    } else {
        Outcome::Different {
            clang: expected,
            lanes: got,
        }
    }
}
