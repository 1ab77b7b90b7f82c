//! The setup the SPMD benchmarks share (`callees`, `interleaved`, `early_exit`): each
//! kernel of `bench/NAME/kernels.c` vectorized by `lanes vectorize -O3 -march=native` into
//! its `F_spmd` launcher, `bench/NAME/reference.c` built by clang-19 -O3 -march=native as
//! the peer, both linked with `bench/NAME/driver.c` (clang-19 -O2) in a scratch directory;
//! and the header every results table starts with.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{run, s};
use crate::machine::{machine, vector_isa};

/// One benchmark's sources and scratch directory.
pub struct SpmdBench {
    pub root: PathBuf,
    pub dir: PathBuf,
}

impl SpmdBench {
    /// `bench/name/` and a fresh scratch directory for it.
    pub fn new(name: &str) -> SpmdBench {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../bench")
            .join(name);
        let dir = std::env::temp_dir().join(format!(
            "lanes-bench-{}-{}",
            name.replace('_', "-"),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        SpmdBench { root, dir }
    }

    /// Vectorizes kernel `f` of `kernels.c` for `shapes` with `extra` arguments to `lanes
    /// vectorize` into an object; with `ll`, also returns the LLVM IR of the same build,
    /// for the caller's checks.
    pub fn vectorize(
        &self,
        f: &str,
        shapes: &str,
        ll: bool,
        extra: &[&str],
    ) -> (PathBuf, Option<String>) {
        let kernels = self.root.join("kernels.c");
        let obj = self.dir.join(format!("{f}.o"));
        let ll_path = self.dir.join(format!("{f}.ll"));
        let outs: &[&Path] = if ll { &[&obj, &ll_path] } else { &[&obj] };
        for out in outs {
            run(Command::new(env!("CARGO_BIN_EXE_lanes"))
                .args([
                    "vectorize",
                    s(&kernels),
                    "--function",
                    f,
                    "--shapes",
                    shapes,
                ])
                .args(extra)
                .args(["-O3", "-march=native", "-o", s(out)]));
        }
        let text = ll.then(|| std::fs::read_to_string(&ll_path).expect("ll"));
        (obj, text)
    }

    /// Links `objects` with clang's build of `reference.c` and `driver.c`; the program.
    pub fn link(&self, mut objects: Vec<PathBuf>, libs: &[&str]) -> PathBuf {
        let clang = lanes_llvm::clang::clang_program();
        let reference = self.dir.join("reference.o");
        run(Command::new(&clang)
            .args([
                "-O3",
                "-march=native",
                "-c",
                s(&self.root.join("reference.c")),
            ])
            .args(["-o", s(&reference)]));
        objects.push(reference);
        let exe = self.dir.join("bench");
        run(Command::new(&clang)
            .args(["-O2", s(&self.root.join("driver.c"))])
            .args(&objects)
            .args(libs)
            .args(["-o", s(&exe)]));
        exe
    }

    /// Removes the scratch directory.
    pub fn clean(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The first lines of a results table: `title`, the machine, the ISA, the builds and the
/// load average (other processes share the cores; only ratios within one run compare).
pub fn header(title: &str) -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "machine: {}", machine());
    let _ = writeln!(
        out,
        "ISA: {}; lanes vectorize -O3 -march=native; clang-19 -O3 -march=native (plain loops); \
         driver clang-19 -O2; median of 9 runs (rotating order), median of 3 rounds; load \
         average at start: {}",
        vector_isa(),
        load.split_whitespace().next().unwrap_or("?")
    );
    out
}
