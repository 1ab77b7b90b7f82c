//! `lanes bench slp`: SuperVectorization (PLDI'22 §5) against LLVM's vectorizers on this
//! machine. Each kernel of `bench/slp/` is built three ways from the same source — clang-19
//! -O3 -march=native (LLVM's loop and SLP vectorizers, the reference), the same without
//! vectorizers (`-fno-vectorize -fno-slp-vectorize`), and `lanes compile -O3
//! -march=native --slp` (lanes' vectorizer in place of LLVM's, as in the paper's
//! evaluation) — and linked into one program that checks every build's result against
//! the reference's, then times the builds taking turns. Figures are medians of the runs;
//! speedups are over clang -O3 in the same run, with geometric means per suite.
//!
//! A kernel some build cannot be made for is reported with the reason, and the others
//! still run.

mod kernels;

pub use kernels::{SlpKernel, Suite, SLP_KERNELS};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use lanes_llvm::clang::ClangOptions;
use lanes_llvm::emit::EmitKind;
use serde::Serialize;

use crate::bench_wfv::build::{clang, native_target, REFERENCE};
use crate::bench_wfv::measure::run_driver;
use crate::bench_wfv::BenchError;
use crate::{compile, CompileRequest};

/// The builds, in the driver's order (the reference first), and their names in records.
pub const BUILDS: [(&str, &str); 4] = [
    (REFERENCE, "clang -O3"),
    ("clang-scalar", "clang -O3 scalar"),
    ("lanes-slp", "lanes --slp"),
    ("lanes-slp-only", "lanes --slp alone"),
];

/// What to run.
#[derive(Clone, Debug)]
pub struct SlpBenchRequest {
    /// `bench/slp/`: the kernels, `slp.h` and `driver.c` (and `../common/timing.h`).
    pub sources: PathBuf,
    pub work_dir: PathBuf,
    /// The kernels by name; every kernel if empty.
    pub kernels: Vec<String>,
    /// Timed sweeps per build (the median is reported); 1 to 16.
    pub runs: u32,
    /// Elements relative to each kernel's default (`0.05` for a quick check).
    pub scale: f64,
}

/// One build's figure (a JSON record of `lanes bench slp --json`). `lanes --slp` is
/// `lanes compile -O3 -march=native --slp` (LLVM's loop vectorizer takes the loops lanes
/// left); `lanes --slp alone` adds `--no-vectorize` (the paper's setup).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlpRecord {
    pub kernel: String,
    pub suite: Suite,
    /// `clang -O3`, `clang -O3 scalar`, `lanes --slp` or `lanes --slp alone`.
    pub config: String,
    pub median_seconds: f64,
    /// clang -O3's median over this build's (above 1: this build is faster).
    pub speedup_vs_clang: f64,
}

/// One kernel's figures, or why it has none, and what SuperVectorization did to it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SlpKernelOutcome {
    pub kernel: String,
    pub size: u64,
    pub records: Vec<SlpRecord>,
    /// Packs and unrolled loops of lanes' build.
    pub packs: usize,
    pub unrolled: usize,
    pub failures: Vec<String>,
}

/// Everything one run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SlpBenchReport {
    pub runs: u32,
    pub kernels: Vec<SlpKernelOutcome>,
}

impl SlpBenchReport {
    /// The geometric mean of `config`'s speedups over clang -O3 on the kernels of
    /// `suite` that ran (`None` if none did).
    pub fn geomean(&self, suite: Suite, config: &str) -> Option<f64> {
        let speedups: Vec<f64> = self
            .kernels
            .iter()
            .flat_map(|k| &k.records)
            .filter(|r| r.suite == suite && r.config == config)
            .map(|r| r.speedup_vs_clang)
            .collect();
        (!speedups.is_empty())
            .then(|| (speedups.iter().map(|s| s.ln()).sum::<f64>() / speedups.len() as f64).exp())
    }
}

/// The kernels `names` asks for (all if empty).
pub fn select_slp_kernels(names: &[String]) -> Result<Vec<SlpKernel>, BenchError> {
    if names.is_empty() {
        return Ok(SLP_KERNELS.to_vec());
    }
    names
        .iter()
        .map(|n| {
            SLP_KERNELS
                .iter()
                .find(|k| k.name == n)
                .copied()
                .ok_or_else(|| {
                    let all: Vec<&str> = SLP_KERNELS.iter().map(|k| k.name).collect();
                    BenchError::UnknownKernel(n.clone(), all.join(", "))
                })
        })
        .collect()
}

/// Runs the benchmark `req` asks for, telling `progress` (step, steps, kernel) what starts.
pub fn run_slp_bench(
    req: &SlpBenchRequest,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<SlpBenchReport, BenchError> {
    let kernels = select_slp_kernels(&req.kernels)?;
    std::fs::create_dir_all(&req.work_dir).map_err(|e| BenchError::Io(req.work_dir.clone(), e))?;
    let runs = req.runs.clamp(1, 16);
    let mut report = SlpBenchReport {
        runs,
        kernels: Vec::new(),
    };
    for (step, kernel) in kernels.iter().enumerate() {
        progress(step + 1, kernels.len(), kernel.name);
        let size = if kernel.fixed {
            kernel.size
        } else {
            ((kernel.size as f64 * req.scale) as u64).max(256)
        };
        let mut outcome = SlpKernelOutcome {
            kernel: kernel.name.to_string(),
            size,
            ..SlpKernelOutcome::default()
        };
        match build_kernel(req, kernel, &mut outcome) {
            Ok(exe) => match run_driver(kernel.name, &exe, size, runs) {
                Ok(timings) => {
                    let median = |b: &str| {
                        timings
                            .iter()
                            .find(|t| t.build == b)
                            .map(|t| t.median_ms / 1e3)
                    };
                    if let Some(reference) = median(REFERENCE) {
                        for (build, config) in BUILDS {
                            if let Some(t) = median(build) {
                                outcome.records.push(SlpRecord {
                                    kernel: kernel.name.to_string(),
                                    suite: kernel.suite,
                                    config: config.to_string(),
                                    median_seconds: t,
                                    speedup_vs_clang: reference / t,
                                });
                            }
                        }
                    }
                }
                Err(e) => outcome.failures.push(e.to_string()),
            },
            Err(e) => outcome.failures.push(e.to_string()),
        }
        report.kernels.push(outcome);
    }
    Ok(report)
}

/// Builds the three objects of `kernel` and links its timing program.
fn build_kernel(
    req: &SlpBenchRequest,
    kernel: &SlpKernel,
    outcome: &mut SlpKernelOutcome,
) -> Result<PathBuf, BenchError> {
    let src = req.sources.join(format!("{}.c", kernel.name));
    let dir = &req.work_dir;
    let include = format!("-I{}", req.sources.display());
    let obj = |tag: &str| dir.join(format!("{}_{tag}.o", kernel.name));
    let sym = |tag: &str| format!("-DKERNEL={}_{tag}", kernel.name);
    let p = |x: &Path| x.display().to_string();
    clang(&[
        "-O3",
        "-march=native",
        &sym("clang"),
        &include,
        "-c",
        &p(&src),
        "-o",
        &p(&obj("clang")),
    ])?;
    clang(&[
        "-O3",
        "-march=native",
        "-fno-vectorize",
        "-fno-slp-vectorize",
        &sym("scalar"),
        &include,
        "-c",
        &p(&src),
        "-o",
        &p(&obj("scalar")),
    ])?;
    clang(&[
        "-O2",
        "-DSLP_DRIVER",
        &sym("data"),
        &include,
        "-c",
        &p(&src),
        "-o",
        &p(&obj("data")),
    ])?;
    // lanes: the library pipeline `lanes compile -O3 -march=native --slp` runs, with
    // LLVM's loop vectorizer after it, and without.
    for (tag, llvm_vectorizers) in [("slp", true), ("slponly", false)] {
        let mut creq = CompileRequest::new(&src);
        creq.clang = ClangOptions {
            includes: vec![req.sources.clone()],
            defines: vec![format!("KERNEL={}_{tag}", kernel.name)],
            opt: Some("3".into()),
            ..ClangOptions::default()
        };
        creq.target = native_target();
        creq.opt_level = 3;
        creq.emit = EmitKind::Object;
        creq.slp = true;
        creq.loop_vectorize = llvm_vectorizers;
        creq.slp_vectorize = llvm_vectorizers;
        let compiled = compile(&creq).map_err(|e| BenchError::Vectorize {
            kernel: kernel.name.to_string(),
            build: format!("lanes --slp ({tag})"),
            message: e.to_string(),
        })?;
        if llvm_vectorizers {
            for (_, r) in &compiled.slp {
                outcome.packs += r.packs;
                outcome.unrolled += r.unrolled.len();
            }
        }
        let o = obj(tag);
        std::fs::write(&o, &compiled.bytes).map_err(|e| BenchError::Io(o.clone(), e))?;
    }
    let table = dir.join(format!("{}_builds.c", kernel.name));
    let mut c = String::from("/* Generated by lanes bench slp. */\n");
    let tags = ["clang", "scalar", "slp", "slponly"];
    for t in tags {
        let _ = writeln!(c, "void {}_{t}(void);", kernel.name);
    }
    let _ = writeln!(c, "const int slp_count = {};", tags.len());
    let names: Vec<String> = BUILDS.iter().map(|b| format!("\"{}\"", b.0)).collect();
    let _ = writeln!(
        c,
        "const char *const slp_names[] = {{{}}};",
        names.join(", ")
    );
    let fns: Vec<String> = tags
        .iter()
        .map(|t| format!("(void *){}_{t}", kernel.name))
        .collect();
    let _ = writeln!(c, "void *const slp_fns[] = {{{}}};", fns.join(", "));
    std::fs::write(&table, c).map_err(|e| BenchError::Io(table.clone(), e))?;
    let exe = dir.join(format!("{}_bench", kernel.name));
    let mut args: Vec<String> = vec!["-O2".into(), p(&req.sources.join("driver.c")), p(&table)];
    args.extend(
        ["clang", "scalar", "data", "slp", "slponly"]
            .iter()
            .map(|t| p(&obj(t))),
    );
    args.extend(["-lm".into(), "-o".into(), p(&exe)]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    clang(&args)?;
    Ok(exe)
}
