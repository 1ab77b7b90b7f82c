//! `lanes bench reconverge`: the control flow the reconverging transform adds per block
//! order, against partial linearization and LLVM's structurization, on the C corpus, the
//! benchmark kernels and the fixed generated functions (`lanes_driver::bench_reconverge`):
//! a table per function, totals, and optionally JSON; with `--run-time`, also the run time
//! of the benchmark kernels built with full if-conversion, partial linearization and the
//! reconverging transform (`lanes bench wfv` with those three builds).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use lanes_driver::bench_reconverge::{run_reconverge_bench, FunctionCounts};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes bench reconverge --json reconverge.json\n  lanes bench reconverge --run-time --runs 9 --run-time-json run_time.json"
)]
pub struct ReconvergeArgs {
    /// Write one JSON record per function here
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also time the benchmark kernels (bench/wfv) built with full if-conversion, partial
    /// linearization and the reconverging transform, against clang -O3
    #[arg(long)]
    pub run_time: bool,
    /// Timed runs per build with --run-time; the median is reported (1 to 16)
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(1..=16))]
    pub runs: u32,
    /// With --run-time, run each kernel's timing program this many times (separate
    /// processes) and report the median of their medians
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(1..=99))]
    pub repeat: u32,
    /// Write the --run-time records as JSON here
    #[arg(long, value_name = "FILE")]
    pub run_time_json: Option<PathBuf>,
    /// With --run-time, only these kernels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// With --run-time, instances per sweep relative to each kernel's default
    #[arg(long, default_value = "1.0")]
    pub scale: f64,
    /// Inputs (C or lanes IR files; default: corpus/c, bench/wfv and bench/reconverge of
    /// the lanes sources)
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
}

fn default_inputs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for (dir, ext) in [
        ("corpus/c", "c"),
        ("bench/wfv", "c"),
        ("bench/reconverge", "lir"),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .filter(|p| !p.ends_with("driver.c"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

pub fn run(args: &ReconvergeArgs) -> Result<()> {
    let inputs = if args.inputs.is_empty() {
        default_inputs()
    } else {
        args.inputs.clone()
    };
    let work = std::env::temp_dir().join(format!("lanes-bench-reconverge-{}", std::process::id()));
    let bar = ProgressBar::new(inputs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let rows = run_reconverge_bench(&inputs, &work, &mut |i, _, file: &Path| {
        bar.set_position(i as u64);
        bar.set_message(file.display().to_string());
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work);
    let rows = rows?;
    print!("{}", table(&rows));
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "machine": lanes_driver::bench_wfv::machine(),
            "structurize": format!("opt-19 {}", lanes_driver::bench_reconverge::STRUCTURIZE),
            "functions": rows,
        });
        std::fs::write(path, serde_json::to_string_pretty(&json)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.run_time {
        println!("\nrun time of the benchmark kernels:");
        let report = super::bench::run_wfv(&super::bench::WfvArgs {
            json: args.run_time_json.clone(),
            plot: None,
            runs: args.runs,
            repeat: args.repeat,
            kernels: args.kernels.clone(),
            configs: [
                "full",
                "partial",
                "reconverge",
                "reconverge+skip-off",
                "reconverge+profile",
            ]
            .map(String::from)
            .to_vec(),
            scale: args.scale,
            sources: None,
            ispc: None,
            widths: Vec::new(),
            target_cpu: "native".into(),
        })?;
        print!("{}", run_time_summary(&report));
    }
    Ok(())
}

/// Per width, the reconverging build's speed over full if-conversion's, partial
/// linearization's and its own without the empty-mask skips it can drop (what they buy),
/// and the same for the build whose skips a profile decided: geometric mean over the
/// kernels and the slowest kernel.
fn run_time_summary(report: &lanes_driver::bench_wfv::BenchReport) -> String {
    use lanes_driver::bench_wfv::Config;
    let mut out = String::new();
    for &w in &report.widths {
        for (build, base) in [
            (Config::Reconverge, Config::Full),
            (Config::Reconverge, Config::Partial),
            (Config::Reconverge, Config::ReconvergeNoSkip),
            (Config::ReconvergeProfile, Config::Full),
            (Config::ReconvergeProfile, Config::Partial),
            (Config::ReconvergeProfile, Config::ReconvergeNoSkip),
        ] {
            let Some(cmp) = report.compare((build, w), (base, w)) else {
                continue;
            };
            let _ = writeln!(
                out,
                "{}/{w} over {}/{w}: geometric mean {:.2}x over {} kernels, slowest {} {:.2}x{}",
                build.name(),
                base.name(),
                cmp.geomean,
                cmp.kernels,
                cmp.worst_kernel,
                cmp.worst,
                cmp.worst_note(report.repeat)
            );
        }
    }
    out
}

fn cell(v: Option<impl std::fmt::Display>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn table(rows: &[FunctionCounts]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<44} {:>6} {:>4} {:>4} {:>5} {:>5} {:>5} {:>5} {:>7} {:>7}",
        "function (flow blocks per order)",
        "blocks",
        "div",
        "uni",
        "df",
        "dfpd",
        "bf",
        "rpot",
        "partial",
        "struct"
    );
    for r in rows {
        let name = format!(
            "{}:{}{}",
            Path::new(&r.source)
                .file_name()
                .map_or(r.source.clone(), |f| f.to_string_lossy().into_owned()),
            r.function,
            if r.irreducible { " (irr)" } else { "" }
        );
        let _ = write!(
            out,
            "{:<44} {:>6} {:>4} {:>4}",
            name, r.blocks, r.divergent_branches, r.uniform_branches
        );
        for o in &r.orders {
            let _ = write!(out, " {:>5}", cell(o.flow_blocks));
        }
        let _ = writeln!(
            out,
            " {:>7} {:>7}",
            cell(r.partial_blocks_added),
            cell(r.structurize_blocks_added)
        );
    }
    let _ = writeln!(
        out,
        "\ntotals over {} functions with a divergent branch (struct: opt-19 {}; - where it \
         failed or declined):",
        rows.len(),
        lanes_driver::bench_reconverge::STRUCTURIZE
    );
    let uniform: usize = rows.iter().map(|r| r.uniform_branches).sum();
    let structurize: i64 = rows.iter().filter_map(|r| r.structurize_blocks_added).sum();
    for (k, name) in ["df", "dfpd", "bf", "rpot"].iter().enumerate() {
        let done: Vec<&FunctionCounts> = rows
            .iter()
            .filter(|r| r.orders.get(k).is_some_and(|o| o.flow_blocks.is_some()))
            .collect();
        let flow: usize = done.iter().filter_map(|r| r.orders[k].flow_blocks).sum();
        let kept: usize = done.iter().filter_map(|r| r.orders[k].uniform_kept).sum();
        let differ: Vec<(usize, i64)> = done
            .iter()
            .filter_map(|r| Some((r.orders[k].flow_blocks?, r.structurize_blocks_added?)))
            .filter(|&(f, s)| f as i64 != s)
            .collect();
        let fewer = differ.iter().filter(|&&(f, s)| (f as i64) < s).count();
        let _ = writeln!(
            out,
            "  {name:<5} {flow:>6} flow blocks, {kept}/{uniform} uniform branches kept, {} declined; \
             fewer blocks than structurizecfg on {fewer} of the {} functions where they differ",
            rows.len() - done.len(),
            differ.len()
        );
    }
    let partial: i64 = rows.iter().filter_map(|r| r.partial_blocks_added).sum();
    let partial_kept: usize = rows.iter().filter_map(|r| r.partial_uniform_kept).sum();
    let _ = writeln!(
        out,
        "  partial linearization: {partial:+} blocks, {partial_kept}/{uniform} uniform branches kept \
         ({} irreducible declined)\n  structurizecfg: {structurize:+} blocks",
        rows.iter().filter(|r| r.partial_blocks_added.is_none()).count()
    );
    out
}
