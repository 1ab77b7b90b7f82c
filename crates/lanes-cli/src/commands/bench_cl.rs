//! `lanes bench cl`: OpenCL kernels on lanes (CC'12's configurations) and on pocl, side by
//! side in one run (`lanes_cl::bench`), with a progress bar, a table of medians and
//! speedups over pocl, and optionally JSON records and an SVG plot.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use lanes_cl::bench::{run_bench, BenchReport, BenchRequest, Config};

use super::bench_plot::plot_bars;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes bench cl --json cl.json --plot cl.svg\n  lanes bench cl --kernels mandelbrot,nbody --runs 9 --threads 1"
)]
pub struct ClBenchArgs {
    /// The kernels' manifest (bench/cl/suite.json of the lanes sources)
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Write one JSON record per kernel and build here
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Plot the speedups over pocl as SVG here
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Timed runs per build; the median is reported (at least 5 for the published figures)
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub runs: u32,
    /// Threads for lanes and pocl (default: one per core)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Only these kernels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Only these builds (comma-separated): scalar, naive, uniform-values, uniform-cf,
    /// boscc, boscc-1t, pocl (default: all)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub configs: Vec<String>,
}

pub fn run(args: &ClBenchArgs) -> Result<()> {
    let manifest = args.manifest.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/cl/suite.json")
    });
    if !manifest.is_file() {
        bail!(
            "{}: no benchmark manifest (pass --manifest bench/cl/suite.json from the lanes sources)",
            manifest.display()
        );
    }
    let configs = if args.configs.is_empty() {
        Config::ALL.to_vec()
    } else {
        args.configs
            .iter()
            .map(|c| {
                Config::parse(c).with_context(|| {
                    format!("unknown build `{c}` (scalar, naive, uniform-values, uniform-cf, boscc, boscc-1t, pocl)")
                })
            })
            .collect::<Result<_>>()?
    };
    let req = BenchRequest {
        manifest,
        runs: args.runs,
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        kernels: args.kernels.clone(),
        configs,
    };
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = run_bench(&req, &mut |done, total, what| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_string());
    })?;
    bar.finish_and_clear();
    print!("{}", table(&report));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        let mut names: Vec<String> = Vec::new();
        for r in &report.records {
            if !names.contains(&r.kernel) {
                names.push(r.kernel.clone());
            }
        }
        let series: Vec<(String, Vec<Option<f64>>)> = req
            .configs
            .iter()
            .filter(|&&c| c != Config::Pocl)
            .map(|&c| {
                let bars = names
                    .iter()
                    .map(|n| {
                        report
                            .records
                            .iter()
                            .find(|r| &r.kernel == n && r.config == c)
                            .and_then(|r| r.speedup_vs_pocl)
                    })
                    .collect();
                (c.name().to_string(), bars)
            })
            .collect();
        plot_bars(
            path,
            "lanes speedup over pocl (same threads, same sizes)",
            &names,
            &series,
        )?;
    }
    Ok(())
}

/// The report as a text table: machine, then per kernel one line per build.
fn table(report: &BenchReport) -> String {
    let m = &report.machine;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "machine: {} ({}, natural width {}), {} threads{}, median of {} runs; pocl: {}",
        m.cpu,
        m.isa,
        m.natural_width,
        m.threads,
        if m.bound { " bound to CPUs" } else { "" },
        m.runs,
        m.pocl.as_deref().unwrap_or("not measured")
    );
    let _ = writeln!(
        out,
        "{:<18} {:<15} {:>7} {:>6} {:>11} {:>9} {:>7}",
        "kernel", "build", "threads", "width", "median ms", "vs pocl", "agrees"
    );
    for r in &report.records {
        let _ = writeln!(
            out,
            "{:<18} {:<15} {:>7} {:>6} {:>11} {:>9} {:>7}",
            r.kernel,
            r.config.name(),
            r.threads,
            r.width.map_or("-".into(), |w| w.to_string()),
            r.median_ms.map_or("-".into(), |t| format!("{t:.3}")),
            r.speedup_vs_pocl.map_or("-".into(), |s| format!("{s:.2}x")),
            match (r.agrees, &r.error) {
                (_, Some(_)) => "error",
                (Some(true), _) => "yes",
                (Some(false), _) => "NO",
                (None, _) => "-",
            }
        );
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "    {}: {}",
                r.config.name(),
                e.lines().next().unwrap_or("")
            );
        }
    }
    let lanes: Vec<f64> = report
        .records
        .iter()
        .filter(|r| r.config == Config::Boscc)
        .filter_map(|r| r.speedup_vs_pocl)
        .collect();
    if !lanes.is_empty() {
        let geo = (lanes.iter().map(|s| s.ln()).sum::<f64>() / lanes.len() as f64).exp();
        let _ = writeln!(
            out,
            "lanes (boscc) over pocl: geometric mean {geo:.2}x over {} kernels, slowest {:.2}x",
            lanes.len(),
            lanes.iter().copied().fold(f64::INFINITY, f64::min)
        );
    }
    let scaling = thread_scaling(report);
    if !scaling.is_empty() {
        let _ = writeln!(
            out,
            "boscc, {} threads over one: {}",
            report.machine.threads,
            scaling
                .iter()
                .map(|(k, s)| format!("{k} {s:.2}x"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for n in &report.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// Per kernel, the one-thread boscc build's median over the boscc build's (how the
/// kernel scales to the machine's threads), in the report's order.
fn thread_scaling(report: &BenchReport) -> Vec<(&str, f64)> {
    let median = |kernel: &str, config: Config| {
        report
            .records
            .iter()
            .find(|r| r.kernel == kernel && r.config == config)
            .and_then(|r| r.median_ms)
    };
    let mut out: Vec<(&str, f64)> = Vec::new();
    if report.machine.threads < 2 {
        return out;
    }
    for r in &report.records {
        if r.config != Config::Boscc {
            continue;
        }
        if let (Some(one), Some(all)) = (median(&r.kernel, Config::BosccOneThread), r.median_ms) {
            out.push((&r.kernel, one / all));
        }
    }
    out
}
