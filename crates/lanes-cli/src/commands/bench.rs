//! `lanes bench wfv`: lanes against clang-19 -O3 on the kernels of `bench/wfv/` (PLDI'18
//! §7's comparison; the pipeline is `lanes_driver::bench_wfv`), with a progress bar, a
//! table of medians and speedups, and optionally JSON records and an SVG plot.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use lanes_driver::bench_wfv::{run_bench, BenchReport, BenchRequest, Config};

use super::bench_plot::plot_speedups;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub suite: Suite,
}

#[derive(Subcommand, Debug)]
pub enum Suite {
    /// Whole-function vectorization against clang-19 -O3 -march=native on divergent kernels
    /// (tree search, XSBench, kd-tree point correlation and nearest neighbour, Mandelbrot,
    /// N-body, Black-Scholes, an if-cascade, ray/sphere, a branch with similar sides, an
    /// int-indexed stencil, binomial options in a private array, a postfix evaluator with a
    /// private stack, ambient occlusion, noise, a 3-D stencil, volume rendering, a BVH ray
    /// tracer), with ISPC's build of the kernels' `.ispc` twins as a peer
    Wfv(WfvArgs),
    /// Control flow the reconverging transform adds per block order, against partial
    /// linearization and LLVM's structurizecfg, per function of the C corpus, the benchmark
    /// kernels and a fixed set of generated functions
    Reconverge(super::bench_reconverge::ReconvergeArgs),
    /// OpenCL kernels on lanes (scalar, naive, uniform values, uniform control flow,
    /// BOSCC; CC'12's configurations) against pocl with the same sizes and threads
    Cl(super::bench_cl::ClBenchArgs),
    /// SuperVectorization (lanes compile --slp) against clang-19 -O3 -march=native with
    /// and without LLVM's vectorizers, on TSVC-, PolyBench- and ispc-style kernels
    Slp(super::bench_slp::SlpArgs),
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes bench wfv --json wfv.json --plot wfv.svg\n  lanes bench wfv --kernels mandelbrot,tree_search --runs 9"
)]
pub struct WfvArgs {
    /// Write one JSON record per kernel and configuration here
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Plot the speedups over clang as SVG here
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Timed runs per build; the median is reported (1 to 16)
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(1..=16))]
    pub runs: u32,
    /// Run each kernel's timing program this many times, as separate processes, and
    /// report the median of their medians (a shared machine's slow or fast processes
    /// average out)
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(1..=99))]
    pub repeat: u32,
    /// Only these kernels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Only these builds (comma-separated): full, partial, partial+boscc,
    /// partial+boscc+fusion, per-lane-arrays, reconverge, reconverge+skip-off,
    /// reconverge+profile, partial+boscc+fusion+libmvec, ispc (default: all)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub configs: Vec<String>,
    /// Instances per sweep relative to each kernel's default (0.01 for a quick check)
    #[arg(long, default_value = "1.0")]
    pub scale: f64,
    /// The kernels' directory (bench/wfv of the lanes sources)
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// The `ispc` binary for the ISPC column (kernels with an `.ispc` twin, at the same
    /// widths); default: `ispc` on PATH, else `~/.local/lanes-ispc/bin/ispc` (what
    /// `scripts/build-ispc` installs)
    #[arg(long, value_name = "PATH")]
    pub ispc: Option<PathBuf>,
    /// Build at these widths (comma-separated, 1 to 64; default: the natural width and 8)
    #[arg(long, value_delimiter = ',', value_name = "W",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub widths: Vec<u16>,
    /// The CPU to build for, as `-march=` takes it (every lanes, clang and ISPC build; ISPC
    /// at its AVX-512 targets only if the CPU has AVX-512): `haswell` measures AVX2 code
    /// on an AVX-512 machine
    #[arg(
        long = "target-cpu",
        visible_alias = "march",
        default_value = "native",
        value_name = "CPU"
    )]
    pub target_cpu: String,
}

/// The `ispc` binary to run: `given`, else one on PATH, else `scripts/build-ispc`'s.
fn find_ispc(given: Option<&PathBuf>) -> Result<Option<PathBuf>> {
    if let Some(p) = given {
        if !p.is_file() {
            bail!("--ispc {}: no such file", p.display());
        }
        return Ok(Some(p.clone()));
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.join("ispc"))
        .find(|p| p.is_file());
    let built = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".local/lanes-ispc/bin/ispc"))
        .filter(|p| p.is_file());
    Ok(on_path.or(built))
}

/// `ispc --version`'s first line.
fn ispc_version(ispc: &std::path::Path) -> String {
    std::process::Command::new(ispc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "ispc (version unknown)".into())
}

pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.suite {
        Suite::Wfv(a) => run_wfv(a).map(|_| ()),
        Suite::Reconverge(a) => super::bench_reconverge::run(a),
        Suite::Cl(a) => super::bench_cl::run(a),
        Suite::Slp(a) => super::bench_slp::run(a),
    }
}

pub(super) fn run_wfv(args: &WfvArgs) -> Result<BenchReport> {
    let sources = args
        .sources
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/wfv"));
    if !sources.join("driver.c").is_file() {
        bail!(
            "{}: no benchmark kernels here (bench/wfv of the lanes sources); name the directory with --sources",
            sources.display()
        );
    }
    if !(args.scale > 0.0 && args.scale <= 100.0) {
        bail!(
            "--scale {}: give a factor above 0 and at most 100",
            args.scale
        );
    }
    let work = std::env::temp_dir().join(format!("lanes-bench-wfv-{}", std::process::id()));
    let mut req = BenchRequest::new(sources, work.clone());
    req.kernels = args.kernels.clone();
    req.ispc = find_ispc(args.ispc.as_ref())?;
    req.widths = args.widths.clone();
    req.cpu = args.target_cpu.clone();
    if !args.configs.is_empty() {
        req.configs = args
            .configs
            .iter()
            .map(|name| {
                Config::named(name).with_context(|| {
                    let names: Vec<&str> = Config::ALL.iter().map(|c| c.name()).collect();
                    format!(
                        "--configs {name}: not a build; give any of {}",
                        names.join(", ")
                    )
                })
            })
            .collect::<Result<_>>()?;
    }
    req.runs = args.runs;
    req.repeat = args.repeat;
    req.scale = args.scale;
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = run_bench(&req, &mut |p| {
        bar.set_length(p.steps as u64);
        bar.set_position(p.step as u64);
        bar.set_message(format!("{}: {}", p.kernel, p.what));
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work);
    let report = report?;
    match &req.ispc {
        Some(ispc) => println!("ISPC: {} ({})", ispc_version(ispc), ispc.display()),
        None if req.configs.contains(&Config::Ispc) => println!(
            "ISPC: absent (no ispc on PATH or in ~/.local/lanes-ispc; scripts/build-ispc builds \
             v1.30.0 from its source, or give --ispc PATH): no ISPC column"
        ),
        None => {}
    }
    print!("{}", table(&report));
    if let Some(path) = &args.json {
        let records: Vec<_> = report.kernels.iter().flat_map(|k| &k.records).collect();
        let json = serde_json::json!({
            "machine": lanes_driver::bench_wfv::machine(),
            "flags": flags(&report.cpu),
            "target_cpu": report.cpu,
            "isa": report.isa,
            "ispc": req.ispc.as_deref().map(ispc_version),
            "natural_width": report.natural_width,
            "runs": report.runs,
            "repeat": report.repeat,
            "records": records,
            "failures": report.kernels.iter().filter(|k| !k.failures.is_empty())
                .map(|k| serde_json::json!({"kernel": k.kernel, "failures": k.failures}))
                .collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&json)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        plot_speedups(&report, path).with_context(|| format!("plotting {}", path.display()))?;
    }
    if report.kernels.iter().any(|k| !k.failures.is_empty()) {
        bail!("some builds failed (above)");
    }
    Ok(report)
}

/// How every build is made, for the table's header and the JSON.
fn flags(cpu: &str) -> String {
    format!(
        "lanes vectorize -O3 -march={cpu}; clang-19 -O3 -march={cpu} (plain loop over the instances); ispc -O3 --target=avx2-i32xW (avx512skx-xW where the CPU has AVX-512) on the .ispc twins; driver clang-19 -O2"
    )
}

/// The results as text: machine and flags, then per kernel clang's median and each lanes
/// build's speedup over it.
fn table(report: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "machine: {}", lanes_driver::bench_wfv::machine());
    let _ = writeln!(
        out,
        "target {} ({}), natural width {} (32-bit lanes); {}; median of {} runs, builds taking turns{}",
        report.cpu,
        report.isa,
        report.natural_width,
        flags(&report.cpu),
        report.runs,
        if report.repeat > 1 {
            format!("; median over {} processes", report.repeat)
        } else {
            String::new()
        }
    );
    let built = |c: &Config| {
        let records = report.kernels.iter().flat_map(|k| &k.records);
        records.clone().any(|r| r.config == c.name())
    };
    let builds: Vec<(Config, u16)> = Config::ALL
        .iter()
        .filter(|c| built(c))
        .flat_map(|&c| report.widths.iter().map(move |&w| (c, w)))
        .collect();
    let _ = write!(
        out,
        "\n{:<18} {:>10} {:>12}",
        "kernel", "instances", "clang ms"
    );
    for (c, w) in &builds {
        let _ = write!(out, " {:>22}", format!("{}/{w}", c.name()));
    }
    for w in &report.widths {
        let _ = write!(out, " {:>8}", format!("util/{w}"));
    }
    out.push('\n');
    for k in &report.kernels {
        let clang = k.records.iter().find(|r| r.width.is_none());
        let _ = write!(
            out,
            "{:<18} {:>10} {:>12}",
            k.kernel,
            k.instances,
            clang.map_or("-".into(), |r| format!("{:.3}", r.median_seconds * 1e3))
        );
        for (c, w) in &builds {
            let r = k
                .records
                .iter()
                .find(|r| r.config == c.name() && r.width == Some(*w));
            let cell = r.map_or("-".into(), |r| format!("{:.2}x", r.speedup_vs_clang));
            let _ = write!(out, " {cell:>22}");
        }
        for w in &report.widths {
            let u = k
                .records
                .iter()
                .find(|r| r.width == Some(*w))
                .and_then(|r| r.simd_utilization);
            let _ = write!(
                out,
                " {:>8}",
                u.map_or("-".into(), |u| format!("{:.0}%", u * 100.0))
            );
        }
        out.push('\n');
        for f in &k.failures {
            let _ = writeln!(out, "  failed: {f}");
        }
    }
    let _ = writeln!(
        out,
        "\nspeedup: clang's median time over the build's (above 1: lanes is faster); util/W: \
         SIMD utilization at W lanes, active lanes per executed block over W (SIMT interpreter, \
         {} groups of the kernel's data)",
        lanes_driver::bench_wfv::UTILIZATION_GROUPS
    );
    out.push_str(&against_ispc(report, &builds));
    out
}

/// Each lanes build against ISPC's at the same width, over the kernels both ran: the
/// geometric mean of ISPC's time over lanes' (above 1: lanes is faster) and the kernel
/// where lanes is furthest behind.
fn against_ispc(report: &BenchReport, builds: &[(Config, u16)]) -> String {
    let mut out = String::new();
    for &(c, w) in builds.iter().filter(|(c, _)| *c != Config::Ispc) {
        let Some(cmp) = report.compare((c, w), (Config::Ispc, w)) else {
            continue;
        };
        if out.is_empty() {
            out.push_str("\nagainst ISPC at the same width (ISPC's time over lanes'):\n");
        }
        let _ = writeln!(
            out,
            "  {:<34} geomean {:.2} over {} kernels, worst {:.2} ({}{})",
            format!("{}/{w}", c.name()),
            cmp.geomean,
            cmp.kernels,
            cmp.worst,
            cmp.worst_kernel,
            cmp.worst_note(report.repeat)
        );
    }
    out
}
