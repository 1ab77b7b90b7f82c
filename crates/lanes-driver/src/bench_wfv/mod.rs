//! `lanes bench wfv`: the comparison of PLDI'18 §7 on this machine. Each kernel of
//! `bench/wfv/` (binary-tree search, XSBench lookup, kd-tree point correlation with one
//! and four radii, kd-tree nearest-neighbour search, Mandelbrot, N-body, Black-Scholes, an nab-like if-cascade, an
//! aobench-like ray/sphere kernel, a branch with two similar sides, an `int`-indexed
//! stencil, binomial option pricing in a private array, a postfix-program evaluator with a
//! private stack, and the ISPC-style kernels: aobench-style ambient occlusion, Perlin-style
//! noise, a 3-D stencil, volume rendering with early exits, a ray tracer over a BVH with a
//! per-instance stack) is built as clang-19 -O3 -march=native compiles the plain loop over its
//! instances (LLVM's vectorizers on) and as lanes vectorizes its SPMD function — full
//! if-conversion, partial linearization, partial + BOSCC (§6.1), partial + BOSCC + branch
//! fusion (PACT'11 §IV-A), and for kernels with private arrays the last with those laid out
//! one copy per lane instead of element-major — at the host's natural width and at 8 lanes. One program per
//! kernel runs every build once and compares its result with the reference's (a build that
//! computes something else fails the kernel), then times the builds taking turns; the
//! figures are medians of the runs, and speedups are over clang's build in the same run.
//! With `repeat` above 1 the program runs that many times, as separate processes, and a
//! build's figure is the median of its medians: on a shared machine a whole process can
//! run slow or fast (placement, clock, other tenants), which medians within one process
//! cannot see — identical code measured 0.95–1.2× itself across single runs here.
//! Records keep the fastest and slowest process's median, and a comparison names the
//! kernels where a build was slower in every process than the other in any: with five
//! processes each, two builds of the same speed are apart so only with probability
//! 2/252, so a ratio below 1 with overlapping ranges is not a measured slowdown.
//! Beside them, the SIMD utilization of the kernel on its data at each width (module
//! `utilization`, lanes' SIMT interpreter).
//!
//! A kernel some build cannot be made for is reported with the reason, and the others
//! still run: one failure loses no other figure.

pub(crate) mod build;
mod error;
mod kernels;
pub(crate) mod measure;
mod utilization;

pub use build::Build;
pub use error::BenchError;
pub use kernels::{Config, Kernel, KERNELS};
pub use utilization::GROUPS as UTILIZATION_GROUPS;

use std::collections::BTreeMap;
use std::path::PathBuf;

use lanes_ir::BranchProfile;
use lanes_llvm::target::Target;
use serde::Serialize;

use build::{
    cpu_target, ispc_build, ispc_source, link_driver, vectorize_build, vectorize_request, REFERENCE,
};
use measure::run_driver;
use utilization::{simt_branch_profile, simt_utilization};

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchRequest {
    /// `bench/wfv/`: the kernels, `wfv.h` and `driver.c`.
    pub sources: PathBuf,
    /// Where the objects and programs go.
    pub work_dir: PathBuf,
    /// The kernels by name; every kernel if empty.
    pub kernels: Vec<String>,
    /// Timed sweeps per build (the median is reported); 1 to 16.
    pub runs: u32,
    /// Runs of each kernel's timing program (separate processes); a build's figure is
    /// the median of their medians. At least 1.
    pub repeat: u32,
    /// Instances per sweep relative to each kernel's default (`0.01` for a quick check).
    pub scale: f64,
    pub configs: Vec<Config>,
    /// The `ispc` binary of the ISPC column ([`Config::Ispc`]); none: no ISPC builds.
    pub ispc: Option<PathBuf>,
    /// The widths to build; empty: the natural width and 8.
    pub widths: Vec<u16>,
    /// The CPU every build is for, as `-march=` takes it (`native`: this machine). An
    /// older CPU than the host's (`haswell` on an AVX-512 machine) measures that ISA here.
    pub cpu: String,
}

impl BenchRequest {
    /// Every kernel in every configuration, 5 runs, full size.
    pub fn new(sources: PathBuf, work_dir: PathBuf) -> BenchRequest {
        BenchRequest {
            sources,
            work_dir,
            kernels: Vec::new(),
            runs: 5,
            repeat: 1,
            scale: 1.0,
            configs: Config::ALL.to_vec(),
            ispc: None,
            widths: Vec::new(),
            cpu: "native".into(),
        }
    }
}

/// One build's figure (the JSON record of `lanes bench wfv --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    pub kernel: String,
    /// `clang -O3` or a lanes configuration ([`Config::name`]).
    pub config: String,
    /// Lanes of a lanes build; none for clang's.
    pub width: Option<u16>,
    pub median_seconds: f64,
    /// The fastest and the slowest process's median (with `repeat` above 1; else the
    /// median twice): how far the figure moves from process to process.
    pub range_seconds: [f64; 2],
    /// clang's median over this build's (above 1: this build is faster).
    pub speedup_vs_clang: f64,
    /// Active lanes per executed block over the lanes, for the kernel at this width on
    /// its data (SIMT interpreter); none for clang's build or where it could not be run.
    pub simd_utilization: Option<f64>,
}

/// One kernel's figures, or why it has none.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelOutcome {
    pub kernel: String,
    pub instances: u64,
    pub records: Vec<Record>,
    /// Builds that could not be made, or why the kernel did not run.
    pub failures: Vec<String>,
}

/// Everything one run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BenchReport {
    /// The natural width of 32-bit lanes on the target, and the widths built.
    pub natural_width: u16,
    /// The target's CPU (`-march=`) and whether it has AVX-512 (else AVX2 or less).
    pub cpu: String,
    pub isa: String,
    pub widths: Vec<u16>,
    pub runs: u32,
    pub repeat: u32,
    pub kernels: Vec<KernelOutcome>,
}

/// One build against another over the kernels both ran: the geometric mean of the other's
/// time over this one's (above 1: this build is faster) and the kernel where it is slowest.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub kernels: usize,
    pub geomean: f64,
    pub worst: f64,
    pub worst_kernel: String,
    /// The kernels where every process timed this build slower than every process timed
    /// the other (the ranges of their medians are apart): differences the measurement
    /// resolves, not ones the spread between processes can make.
    pub resolved_slower: Vec<String>,
}

impl Comparison {
    /// What the ratios below 1 mean, for the summary line: nothing when the build is not
    /// slower anywhere or one process ran (no spread to compare with); else the kernels
    /// every process saw slower, or that the processes' medians overlap on all of them.
    pub fn worst_note(&self, repeat: u32) -> String {
        if self.worst >= 1.0 || repeat < 2 {
            String::new()
        } else if self.resolved_slower.is_empty() {
            "; where slower, within the spread of the processes' medians".into()
        } else {
            format!(
                "; slower in every process on {}",
                self.resolved_slower.join(", ")
            )
        }
    }
}

impl BenchReport {
    /// `build` (configuration and width) against `base`; none if no kernel has both.
    pub fn compare(&self, build: (Config, u16), base: (Config, u16)) -> Option<Comparison> {
        fn record(k: &KernelOutcome, (c, w): (Config, u16)) -> Option<&Record> {
            k.records
                .iter()
                .find(|r| r.config == c.name() && r.width == Some(w))
        }
        // (ratio, kernel, resolved): resolved if the build's fastest process was slower
        // than the base's slowest.
        let ratios: Vec<(f64, &str, bool)> = self
            .kernels
            .iter()
            .filter_map(|k| {
                let (b, t) = (record(k, base)?, record(k, build)?);
                let resolved = t.range_seconds[0] > b.range_seconds[1];
                Some((
                    b.median_seconds / t.median_seconds,
                    k.kernel.as_str(),
                    resolved,
                ))
            })
            .collect();
        let &(worst, worst_kernel, _) = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
        let geomean = (ratios.iter().map(|r| r.0.ln()).sum::<f64>() / ratios.len() as f64).exp();
        Some(Comparison {
            kernels: ratios.len(),
            geomean,
            worst,
            worst_kernel: worst_kernel.to_string(),
            resolved_slower: ratios
                .iter()
                .filter(|r| r.2)
                .map(|r| r.1.to_string())
                .collect(),
        })
    }
}

/// Progress, for a progress bar: `step` of `steps` is starting, on `kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress<'a> {
    pub step: usize,
    pub steps: usize,
    pub kernel: &'a str,
    pub what: String,
}

/// The kernels `names` asks for (all if empty).
pub fn select_kernels(names: &[String]) -> Result<Vec<Kernel>, BenchError> {
    if names.is_empty() {
        return Ok(KERNELS.to_vec());
    }
    names
        .iter()
        .map(|n| {
            KERNELS
                .iter()
                .find(|k| k.name == n)
                .copied()
                .ok_or_else(|| {
                    let all: Vec<&str> = KERNELS.iter().map(|k| k.name).collect();
                    BenchError::UnknownKernel(n.clone(), all.join(", "))
                })
        })
        .collect()
}

/// Runs the benchmark `req` asks for, telling `progress` what it starts.
pub fn run_bench(
    req: &BenchRequest,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<BenchReport, BenchError> {
    let kernels = select_kernels(&req.kernels)?;
    let target = Target::resolve(&cpu_target(&req.cpu))?;
    let natural = target.natural_width(32);
    let mut widths = req.widths.clone();
    if widths.is_empty() {
        widths.push(natural);
        if natural != 8 {
            widths.push(8);
        }
    }
    std::fs::create_dir_all(&req.work_dir).map_err(|e| BenchError::Io(req.work_dir.clone(), e))?;
    let runs = req.runs.clamp(1, 16);
    let builds_here = |kernel: &Kernel| -> Vec<Config> {
        req.configs
            .iter()
            .copied()
            .filter(|c| c.applies_to(kernel))
            .filter(|&c| {
                c != Config::Ispc
                    || (req.ispc.is_some() && ispc_source(&req.sources, kernel).is_some())
            })
            .collect()
    };
    let builds_of = |kernel: &Kernel| builds_here(kernel).len() * widths.len() + 1;
    let steps = kernels.iter().map(builds_of).sum();
    let mut report = BenchReport {
        natural_width: natural,
        cpu: req.cpu.clone(),
        isa: isa_name(&target).into(),
        widths: widths.clone(),
        runs,
        repeat: req.repeat.max(1),
        kernels: Vec::new(),
    };
    for (k, kernel) in kernels.iter().enumerate() {
        let instances = ((kernel.instances as f64 * req.scale) as u64).max(64);
        let mut outcome = KernelOutcome {
            kernel: kernel.name.to_string(),
            instances,
            ..KernelOutcome::default()
        };
        let mut builds = Vec::new();
        let mut step: usize = kernels[..k].iter().map(builds_of).sum();
        let profiles = if builds_here(kernel).iter().any(|c| c.profiled()) {
            progress(Progress {
                step,
                steps,
                kernel: kernel.name,
                what: "profile the branches (SIMT runs on the kernel's data)".into(),
            });
            branch_profiles(req, kernel, instances, &widths, &mut outcome.failures)
        } else {
            BTreeMap::new()
        };
        for config in builds_here(kernel) {
            for &width in &widths {
                let build = Build { config, width };
                step += 1;
                progress(Progress {
                    step,
                    steps,
                    kernel: kernel.name,
                    what: format!("vectorize {}", build.label()),
                });
                let made = match (&req.ispc, config) {
                    (Some(ispc), Config::Ispc) => {
                        ispc_build(ispc, &req.sources, &req.work_dir, kernel, build, &target)
                    }
                    _ if config.profiled() => match profiles.get(&width) {
                        Some(profile) => vectorize_build(
                            &req.sources,
                            &req.work_dir,
                            kernel,
                            build,
                            &req.cpu,
                            Some(profile.clone()),
                        ),
                        None => continue,
                    },
                    _ => {
                        vectorize_build(&req.sources, &req.work_dir, kernel, build, &req.cpu, None)
                    }
                };
                match made {
                    Ok(_) => builds.push(build),
                    Err(e) => outcome.failures.push(e.to_string()),
                }
            }
        }
        progress(Progress {
            step: step + 1,
            steps,
            kernel: kernel.name,
            what: format!(
                "run {} builds × {runs}, {} time(s)",
                builds.len() + 1,
                report.repeat
            ),
        });
        let exe = match link_driver(&req.sources, &req.work_dir, kernel, &builds, &req.cpu) {
            Ok(exe) => exe,
            Err(e) => {
                outcome.failures.push(e.to_string());
                report.kernels.push(outcome);
                continue;
            }
        };
        let timings: Result<Vec<Vec<measure::Timing>>, BenchError> = (0..report.repeat)
            .map(|_| run_driver(kernel.name, &exe, instances, runs))
            .collect();
        match timings {
            Ok(timings) => {
                outcome.records = records(kernel.name, &builds, &measure::median_of(&timings))
            }
            Err(e) => outcome.failures.push(e.to_string()),
        }
        for &width in &widths {
            progress(Progress {
                step: step + 1,
                steps,
                kernel: kernel.name,
                what: format!("SIMD utilization at {width} lanes"),
            });
            let dir = &req.work_dir;
            match simt_utilization(&req.sources, dir, kernel, &exe, instances, width) {
                Ok(u) => outcome
                    .records
                    .iter_mut()
                    .filter(|r| r.width == Some(width))
                    .for_each(|r| r.simd_utilization = Some(u)),
                Err(e) => outcome.failures.push(e.to_string()),
            }
        }
        report.kernels.push(outcome);
    }
    Ok(report)
}

/// The branch profile of `kernel`'s profiled build at each of `widths` (a width whose
/// profile fails is left out, its failure recorded): SIMT runs on the arguments that a
/// timing program with the reference build alone writes.
fn branch_profiles(
    req: &BenchRequest,
    kernel: &Kernel,
    instances: u64,
    widths: &[u16],
    failures: &mut Vec<String>,
) -> BTreeMap<u16, BranchProfile> {
    let mut out = BTreeMap::new();
    let exe = match link_driver(&req.sources, &req.work_dir, kernel, &[], &req.cpu) {
        Ok(exe) => exe,
        Err(e) => {
            failures.push(e.to_string());
            return out;
        }
    };
    for &width in widths {
        let build = Build {
            config: Config::ReconvergeProfile,
            width,
        };
        let Some(vreq) = vectorize_request(&req.sources, kernel, build, &req.cpu) else {
            continue;
        };
        match simt_branch_profile(&req.work_dir, kernel, &exe, instances, width, &vreq) {
            Ok(profile) => {
                out.insert(width, profile);
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    out
}

/// The records of one kernel's timings (clang's first).
fn records(kernel: &str, builds: &[Build], timings: &[measure::Timing]) -> Vec<Record> {
    // (median, range) in seconds.
    let timing = |label: &str| {
        timings
            .iter()
            .find(|t| t.build == label)
            .map(|t| (t.median_ms / 1e3, t.range_ms.map(|ms| ms / 1e3)))
    };
    let Some((clang, clang_range)) = timing(REFERENCE) else {
        return Vec::new();
    };
    let mut out = vec![Record {
        kernel: kernel.to_string(),
        config: "clang -O3".into(),
        width: None,
        median_seconds: clang,
        range_seconds: clang_range,
        speedup_vs_clang: 1.0,
        simd_utilization: None,
    }];
    for b in builds {
        if let Some((t, range)) = timing(&b.label()) {
            out.push(Record {
                kernel: kernel.to_string(),
                config: b.config.name().to_string(),
                width: Some(b.width),
                median_seconds: t,
                range_seconds: range,
                speedup_vs_clang: clang / t,
                simd_utilization: None,
            });
        }
    }
    out
}

/// `CPU model, N hardware threads, OS`, printed with the figures (they compare only
/// within one run on one machine).
pub fn machine() -> String {
    lanes_llvm::target::host_machine()
}

/// The widest x86 vector ISA of `target`, for the report.
pub fn isa_name(target: &Target) -> &'static str {
    if target.has("avx512f") {
        "AVX-512"
    } else if target.has("avx2") {
        "AVX2"
    } else if target.has("avx") {
        "AVX"
    } else {
        "SSE"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kernel: &str, config: Config, seconds: f64) -> Record {
        Record {
            kernel: kernel.into(),
            config: config.name().into(),
            width: Some(8),
            median_seconds: seconds,
            range_seconds: [seconds * 0.99, seconds * 1.01],
            speedup_vs_clang: 1.0,
            simd_utilization: None,
        }
    }

    #[test]
    fn builds_compare_by_geometric_mean_and_slowest_kernel() {
        let kernel = |name: &str, full: f64, reconverge: f64| KernelOutcome {
            kernel: name.into(),
            records: vec![
                record(name, Config::Full, full),
                record(name, Config::Reconverge, reconverge),
            ],
            ..KernelOutcome::default()
        };
        let report = BenchReport {
            kernels: vec![
                kernel("a", 4.0, 1.0),
                kernel("b", 1.0, 4.0),
                kernel("c", 2.0, 1.0),
            ],
            ..BenchReport::default()
        };
        let c = report
            .compare((Config::Reconverge, 8), (Config::Full, 8))
            .expect("three kernels");
        assert_eq!(
            (c.kernels, c.worst, c.worst_kernel.as_str()),
            (3, 0.25, "b")
        );
        assert!((c.geomean - 2f64.powf(1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(c.resolved_slower, ["b"], "4x slower, beyond a 1% spread");
        // 0.5% slower is within the processes' 1% spread: not resolved.
        let close = BenchReport {
            kernels: vec![kernel("a", 1.0, 1.005), kernel("b", 2.0, 1.0)],
            ..BenchReport::default()
        };
        let c = close
            .compare((Config::Reconverge, 8), (Config::Full, 8))
            .expect("two kernels");
        assert_eq!(c.worst_kernel, "a");
        assert!(c.worst < 1.0 && c.resolved_slower.is_empty());
        assert_eq!(c.worst_note(1), "");
        assert_eq!(
            c.worst_note(5),
            "; where slower, within the spread of the processes' medians"
        );
        assert!(report
            .compare((Config::Reconverge, 16), (Config::Full, 8))
            .is_none());
    }
}
