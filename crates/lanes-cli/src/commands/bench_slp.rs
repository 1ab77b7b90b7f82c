//! `lanes bench slp`: SuperVectorization against clang-19 -O3 -march=native (LLVM's
//! vectorizers) and the same without vectorizers, on the kernels of `bench/slp/` (the
//! pipeline is `lanes_driver::bench_slp`), with a progress bar, a table of medians,
//! speedups and geometric means per suite, and optionally JSON records and an SVG plot.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use lanes_driver::bench_slp::{run_slp_bench, SlpBenchReport, SlpBenchRequest, Suite};
use lanes_llvm::target::{Target, TargetRequest};

use super::bench_plot::plot_bars;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes bench slp --json slp.json --plot slp.svg\n  lanes bench slp --kernels tsvc_s271,poly_gemm --runs 9"
)]
pub struct SlpArgs {
    /// Write the records (one per kernel and build) as JSON here
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Plot the speedups over clang -O3 as SVG here
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Timed runs per build; the median is reported (1 to 16)
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(1..=16))]
    pub runs: u32,
    /// Only these kernels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Elements relative to each kernel's default (0.05 for a quick check)
    #[arg(long, default_value = "1.0")]
    pub scale: f64,
    /// The kernels' directory (bench/slp of the lanes sources)
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
}

pub fn run(args: &SlpArgs) -> Result<()> {
    let sources = args
        .sources
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/slp"));
    if !sources.join("driver.c").is_file() {
        bail!(
            "{}: no benchmark sources (pass --sources bench/slp from the lanes sources)",
            sources.display()
        );
    }
    if !(args.scale > 0.0 && args.scale.is_finite()) {
        bail!("--scale must be a positive number, not {}", args.scale);
    }
    let work_dir = std::env::temp_dir().join(format!("lanes-bench-slp-{}", std::process::id()));
    let req = SlpBenchRequest {
        sources,
        work_dir: work_dir.clone(),
        kernels: args.kernels.clone(),
        runs: args.runs,
        scale: args.scale,
    };
    let target = Target::resolve(&TargetRequest {
        cpu: Some("native".into()),
        ..TargetRequest::default()
    })?;
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = run_slp_bench(&req, &mut |step, steps, kernel| {
        bar.set_length(steps as u64);
        bar.set_position(step as u64);
        bar.set_message(kernel.to_string());
    })?;
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work_dir);
    let machine = format!(
        "machine: {}; target {} ({}-bit vectors); median of {} runs",
        lanes_driver::bench_wfv::machine(),
        target.cpu.as_deref().unwrap_or("host"),
        target.vector_bits(),
        report.runs
    );
    print!("{machine}\n{}", table(&report));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "machine": machine,
            "report": report,
        }))?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        let names: Vec<String> = report.kernels.iter().map(|k| k.kernel.clone()).collect();
        let series: Vec<(String, Vec<Option<f64>>)> =
            ["clang -O3 scalar", "lanes --slp", "lanes --slp alone"]
                .iter()
                .map(|c| {
                    let bars = report
                        .kernels
                        .iter()
                        .map(|k| {
                            k.records
                                .iter()
                                .find(|r| r.config == *c)
                                .map(|r| r.speedup_vs_clang)
                        })
                        .collect();
                    (c.to_string(), bars)
                })
                .collect();
        plot_bars(
            path,
            "speedup over clang-19 -O3 -march=native (LLVM's vectorizers)",
            &names,
            &series,
        )?;
    }
    Ok(())
}

/// The report as a text table: per kernel its medians and speedups, then per suite the
/// geometric means against the paper's targets.
fn table(report: &SlpBenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:<10} {:>8} {:>11} {:>11} {:>11} {:>8} {:>11} {:>8} {:>6} {:>8}",
        "kernel",
        "suite",
        "size",
        "clang -O3",
        "scalar",
        "lanes",
        "lanes ×",
        "lanes alone",
        "alone ×",
        "packs",
        "unrolled"
    );
    for k in &report.kernels {
        let ms = |c: &str| {
            k.records
                .iter()
                .find(|r| r.config == c)
                .map_or("-".to_string(), |r| {
                    format!("{:.3} ms", r.median_seconds * 1e3)
                })
        };
        let speedup = |c: &str| {
            k.records
                .iter()
                .find(|r| r.config == c)
                .map_or("-".to_string(), |r| format!("{:.2}", r.speedup_vs_clang))
        };
        let suite = k.records.first().map_or("", |r| r.suite.name());
        let _ = writeln!(
            out,
            "{:<18} {:<10} {:>8} {:>11} {:>11} {:>11} {:>8} {:>11} {:>8} {:>6} {:>8}",
            k.kernel,
            suite,
            k.size,
            ms("clang -O3"),
            ms("clang -O3 scalar"),
            ms("lanes --slp"),
            speedup("lanes --slp"),
            ms("lanes --slp alone"),
            speedup("lanes --slp alone"),
            k.packs,
            k.unrolled
        );
        for f in &k.failures {
            let _ = writeln!(out, "  {}: {f}", k.kernel);
        }
    }
    let _ = writeln!(
        out,
        "geometric mean of the speedup over clang -O3 (target):"
    );
    for suite in Suite::ALL {
        let lanes = report.geomean(suite, "lanes --slp");
        let alone = report.geomean(suite, "lanes --slp alone");
        let scalar = report.geomean(suite, "clang -O3 scalar");
        let fmt = |g: Option<f64>| g.map_or("-".to_string(), |s| format!("{s:.2}×"));
        if let Some(g) = lanes {
            let _ = writeln!(
                out,
                "  {:<10} lanes --slp {g:.2}× (target {:.2}×), lanes --slp alone {}, clang -O3 scalar {}",
                suite.name(),
                suite.target(),
                fmt(alone),
                fmt(scalar)
            );
        }
    }
    out
}
