//! `lanes bench cl`: OpenCL kernels on lanes and on pocl, side by side in one run
//! (CC'12 §5's comparison, with pocl as the driver to beat), plus CC'12's configurations
//! inside lanes:
//!
//! - `scalar`: one work-item per call, no vectorization;
//! - `naive`: full linearization with every value varying (WFV without the uniform
//!   analysis);
//! - `uniform-values`: full linearization with uniform values kept scalar;
//! - `uniform-cf`: partial linearization, uniform branches kept (CC'12 §3.3);
//! - `boscc`: and BOSCC gadgets around heavy divergent sides (PLDI'18 §6.1) — lanes'
//!   default, also measured on one thread (`boscc-1t`) for the scaling figure;
//! - `pocl`: the same source, sizes and inputs through the OpenCL API.
//!
//! The kernels are listed in a JSON manifest (`bench/cl/suite.json`): source file, kernel,
//! sizes and arguments written as `lanes cl run` takes them ([`crate::arg_spec`]). Every
//! build runs once untimed (pocl compiles its work-group functions on first launch), then
//! the builds take turns, run after run, and each kernel's median is reported; every
//! build's buffers are compared with pocl's (or lanes' scalar build's) after its runs.

pub mod pocl;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::arg_spec::{check_against, ArgSpec, ClType, HostArg};
use crate::{BuildOptions, ClError, Context, NdRange};

/// One kernel of the manifest.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct BenchKernel {
    pub name: String,
    /// Source file, relative to the manifest.
    pub file: PathBuf,
    pub kernel: String,
    pub global: Vec<u64>,
    #[serde(default)]
    pub local: Option<Vec<u64>>,
    /// Arguments as `lanes cl run --arg` takes them.
    pub args: Vec<String>,
    /// Preprocessor definitions.
    #[serde(default)]
    pub defines: Vec<String>,
    /// Relative tolerance when comparing float results with the reference.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
}

fn default_tolerance() -> f64 {
    1e-3
}

/// A build the benchmark measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Config {
    Scalar,
    Naive,
    UniformValues,
    UniformCf,
    Boscc,
    /// Named as on the command line and in the table.
    #[serde(rename = "boscc-1t")]
    BosccOneThread,
    Pocl,
}

impl Config {
    pub const ALL: [Config; 7] = [
        Config::Scalar,
        Config::Naive,
        Config::UniformValues,
        Config::UniformCf,
        Config::Boscc,
        Config::BosccOneThread,
        Config::Pocl,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Config::Scalar => "scalar",
            Config::Naive => "naive",
            Config::UniformValues => "uniform-values",
            Config::UniformCf => "uniform-cf",
            Config::Boscc => "boscc",
            Config::BosccOneThread => "boscc-1t",
            Config::Pocl => "pocl",
        }
    }

    pub fn parse(name: &str) -> Option<Config> {
        Config::ALL.into_iter().find(|c| c.name() == name)
    }

    /// lanes' build options for this configuration (`None` for pocl).
    fn options(self) -> Option<BuildOptions> {
        use lanes_wfv::{BosccPolicy, Mode};
        let base = BuildOptions::default();
        Some(match self {
            Config::Scalar => BuildOptions {
                width: Some(1),
                ..base
            },
            Config::Naive => BuildOptions {
                mode: Mode::FULL,
                all_varying: true,
                ..base
            },
            Config::UniformValues => BuildOptions {
                mode: Mode::FULL,
                ..base
            },
            Config::UniformCf => BuildOptions {
                mode: Mode::PARTIAL,
                ..base
            },
            Config::Boscc | Config::BosccOneThread => BuildOptions {
                mode: Mode::boscc(BosccPolicy::Auto),
                ..base
            },
            Config::Pocl => return None,
        })
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchRequest {
    pub manifest: PathBuf,
    pub runs: u32,
    pub threads: usize,
    /// Only these kernels (all if empty).
    pub kernels: Vec<String>,
    pub configs: Vec<Config>,
}

/// One build of one kernel, measured.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub kernel: String,
    pub config: Config,
    pub threads: usize,
    /// Work-items per vector (pocl: its own choice, not reported).
    pub width: Option<u16>,
    pub median_ms: Option<f64>,
    pub times_ms: Vec<f64>,
    /// pocl's median over this build's (above 1: faster than pocl).
    pub speedup_vs_pocl: Option<f64>,
    /// Whether the buffers equal the reference's (pocl's, else lanes' scalar build's).
    pub agrees: Option<bool>,
    /// Why the build did not run.
    pub error: Option<String>,
}

/// The machine and settings, printed with every result.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cpu: String,
    pub isa: String,
    pub natural_width: u16,
    pub threads: usize,
    /// Whether both systems' threads are bound to CPUs ([`crate::Affinity`]; pocl's
    /// `POCL_AFFINITY` is set to match).
    pub bound: bool,
    pub runs: u32,
    pub pocl: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub machine: Machine,
    pub records: Vec<Record>,
    /// Notes for the reader (pocl missing, a kernel that failed).
    pub notes: Vec<String>,
}

/// Reads the manifest.
pub fn read_manifest(path: &Path) -> Result<Vec<BenchKernel>, ClError> {
    let text = std::fs::read_to_string(path).map_err(|e| ClError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    serde_json::from_str(&text).map_err(|e| ClError::Io {
        path: path.to_path_buf(),
        message: format!("not a benchmark manifest: {e}"),
    })
}

/// A build ready to run.
enum Built {
    Lanes(Box<crate::Program>, Context),
    Pocl(pocl::PoclKernel),
    Failed(String),
}

/// Runs the benchmark; `progress(done, total, what)` after each step.
pub fn run_bench(
    req: &BenchRequest,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<BenchReport, ClError> {
    let manifest = read_manifest(&req.manifest)?;
    let dir = req.manifest.parent().unwrap_or(Path::new("."));
    let kernels: Vec<&BenchKernel> = manifest
        .iter()
        .filter(|k| req.kernels.is_empty() || req.kernels.contains(&k.name))
        .collect();
    let mut notes = Vec::new();
    let want_pocl = req.configs.contains(&Config::Pocl);
    let bound = crate::Affinity::Auto.binds(req.threads);
    let pocl = if want_pocl {
        match pocl::Pocl::open(req.threads, bound) {
            Ok(p) => Some(p),
            Err(why) => {
                notes.push(format!("pocl is not measured: {why}"));
                None
            }
        }
    } else {
        None
    };
    let target = crate::compile::host_target()?;
    let machine = Machine {
        cpu: lanes_llvm::inkwell::targets::TargetMachine::get_host_cpu_name()
            .to_string_lossy()
            .into_owned(),
        isa: if target.has("avx512f") {
            "AVX-512".into()
        } else if target.has("avx2") {
            "AVX2".into()
        } else {
            "SSE".into()
        },
        natural_width: target.default_width(),
        threads: req.threads,
        bound,
        runs: req.runs,
        pocl: pocl.as_ref().map(|p| p.device.clone()),
    };
    let total = kernels.len() * (req.runs as usize + 2);
    let mut done = 0;
    let mut records = Vec::new();
    for bk in kernels {
        progress(done, total, &format!("{}: building", bk.name));
        match bench_kernel(bk, dir, req, pocl.as_ref(), &mut |what| {
            done += 1;
            progress(done, total, &format!("{}: {what}", bk.name));
        }) {
            Ok(mut r) => records.append(&mut r),
            Err(e) => notes.push(format!("{}: {e}", bk.name)),
        }
    }
    Ok(BenchReport {
        machine,
        records,
        notes,
    })
}

fn bench_kernel(
    bk: &BenchKernel,
    dir: &Path,
    req: &BenchRequest,
    pocl: Option<&pocl::Pocl>,
    step: &mut dyn FnMut(&str),
) -> Result<Vec<Record>, ClError> {
    let path = dir.join(&bk.file);
    let source = std::fs::read_to_string(&path).map_err(|e| ClError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let specs = bk
        .args
        .iter()
        .map(|a| ArgSpec::parse(a))
        .collect::<Result<Vec<_>, _>>()?;
    let range = NdRange {
        global: bk.global.clone(),
        local: bk.local.clone(),
        offset: None,
    };
    let defines: Vec<String> = bk.defines.iter().map(|d| format!("-D{d}")).collect();
    let builds: Vec<(Config, Built)> = req
        .configs
        .iter()
        .map(|&c| {
            let built = match c.options() {
                Some(opts) => {
                    let threads = if c == Config::BosccOneThread {
                        1
                    } else {
                        req.threads
                    };
                    let opts = BuildOptions {
                        clang_args: defines.clone(),
                        ..opts
                    };
                    match Context::with_threads(threads)
                        .and_then(|ctx| Ok((ctx.build_file(&path, &opts)?, ctx)))
                    {
                        Ok((p, ctx)) => Built::Lanes(Box::new(p), ctx),
                        Err(e) => Built::Failed(e.to_string()),
                    }
                }
                None => match pocl {
                    Some(p) => {
                        let options = format!("-cl-std=CL1.2 {}", defines.join(" "));
                        match p.build(&source, &options, &bk.kernel) {
                            Ok(k) => Built::Pocl(k),
                            Err(e) => Built::Failed(e),
                        }
                    }
                    None => Built::Failed("pocl is not available".into()),
                },
            };
            (c, built)
        })
        .collect();
    // The argument types, from the first lanes build.
    for (_, b) in &builds {
        if let Built::Lanes(p, _) = b {
            let k = p.kernel(&bk.kernel)?;
            let decls = &k.info().signature.args;
            if decls.len() != specs.len() {
                return Err(ClError::ArgumentCount {
                    kernel: bk.kernel.clone(),
                    expected: decls.len(),
                    given: specs.len(),
                });
            }
            for (i, (s, d)) in specs.iter().zip(decls).enumerate() {
                check_against(s, d, i, &bk.kernel)?;
            }
            break;
        }
    }
    step("built");
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); builds.len()];
    let mut outputs: Vec<Option<Vec<Option<Vec<u8>>>>> = vec![None; builds.len()];
    let mut errors: Vec<Option<String>> = builds
        .iter()
        .map(|(_, b)| match b {
            Built::Failed(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    // Run 0 warms up (untimed); then every build once per run, in turn.
    for run in 0..=req.runs {
        for (i, (_, built)) in builds.iter().enumerate() {
            if errors[i].is_some() {
                continue;
            }
            let args = specs
                .iter()
                .map(HostArg::new)
                .collect::<Result<Vec<_>, _>>()?;
            let result = match built {
                Built::Lanes(p, _) => p.kernel(&bk.kernel).and_then(|k| {
                    let a: Vec<_> = args.iter().map(HostArg::arg).collect();
                    let t = k.enqueue(&a, &range)?;
                    Ok((t, buffer_contents(&args)))
                }),
                Built::Pocl(k) => pocl
                    .ok_or_else(|| "pocl is not available".to_string())
                    .and_then(|p| p.run(k, &args, &range))
                    .map_err(ClError::Internal),
                Built::Failed(_) => unreachable!("skipped"),
            };
            match result {
                Ok((t, out)) => {
                    if run > 0 {
                        times[i].push(t);
                    }
                    outputs[i] = Some(out);
                }
                Err(e) => errors[i] = Some(e.to_string()),
            }
        }
        step(if run == 0 { "warm-up" } else { "timed run" });
    }
    let reference = builds
        .iter()
        .position(|(c, _)| *c == Config::Pocl)
        .filter(|&i| outputs[i].is_some())
        .or_else(|| builds.iter().position(|(c, _)| *c == Config::Scalar));
    let median = |t: &[Duration]| -> Option<f64> {
        let mut ms: Vec<f64> = t.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        ms.get(ms.len() / 2).copied()
    };
    let pocl_median = builds
        .iter()
        .position(|(c, _)| *c == Config::Pocl)
        .and_then(|i| median(&times[i]));
    let types: Vec<Option<ClType>> = specs
        .iter()
        .map(|s| match s {
            ArgSpec::Buffer { ty, .. } => Some(*ty),
            _ => None,
        })
        .collect();
    Ok(builds
        .iter()
        .enumerate()
        .map(|(i, (config, built))| {
            let m = median(&times[i]);
            let agrees = match (
                reference.and_then(|r| outputs[r].as_ref()),
                outputs[i].as_ref(),
            ) {
                (Some(want), Some(got)) => Some(same_outputs(want, got, &types, bk.tolerance)),
                _ => None,
            };
            Record {
                kernel: bk.name.clone(),
                config: *config,
                threads: match (config, built) {
                    (_, Built::Lanes(_, ctx)) => ctx.threads,
                    _ => req.threads,
                },
                width: match built {
                    Built::Lanes(p, _) => Some(p.width()),
                    _ => None,
                },
                median_ms: m,
                times_ms: times[i].iter().map(|d| d.as_secs_f64() * 1e3).collect(),
                speedup_vs_pocl: pocl_median.zip(m).map(|(p, m)| p / m),
                agrees,
                error: errors[i].clone(),
            }
        })
        .collect())
}

/// Every buffer argument's bytes (`None` for the others).
fn buffer_contents(args: &[HostArg]) -> Vec<Option<Vec<u8>>> {
    args.iter()
        .map(|a| match a {
            HostArg::Buffer { buffer, .. } => Some(buffer.bytes()),
            _ => None,
        })
        .collect()
}

/// Whether two runs' buffers agree: integers exactly, floats within `tolerance`
/// (relative, absolute below 1).
fn same_outputs(
    want: &[Option<Vec<u8>>],
    got: &[Option<Vec<u8>>],
    types: &[Option<ClType>],
    tolerance: f64,
) -> bool {
    want.iter()
        .zip(got)
        .zip(types)
        .all(|((w, g), ty)| match (w, g, ty) {
            (Some(w), Some(g), Some(ty)) if ty.elem.is_float() => {
                let close = |a: f64, b: f64| {
                    (a.is_nan() && b.is_nan()) || (a - b).abs() <= tolerance * a.abs().max(1.0)
                };
                if ty.elem.bytes() == 4 {
                    w.chunks_exact(4).zip(g.chunks_exact(4)).all(|(a, b)| {
                        let f = |c: &[u8]| {
                            f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes")))
                        };
                        close(f(a), f(b))
                    })
                } else {
                    w.chunks_exact(8).zip(g.chunks_exact(8)).all(|(a, b)| {
                        let f = |c: &[u8]| f64::from_le_bytes(c.try_into().expect("8 bytes"));
                        close(f(a), f(b))
                    })
                }
            }
            (w, g, _) => w == g,
        })
}
