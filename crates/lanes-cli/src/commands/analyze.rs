//! `lanes analyze`: vector shapes and divergence of one function, and their precision.
//!
//! Prints, per conditional branch, whether it is divergent and where it reconverges, the
//! join-divergent blocks, loops with divergent or uniform exits, and the shape of every
//! value (`lanes_analysis::shapes`), as text, `--format json`, or `--format svg` (the CFG
//! with divergent branches and join-divergent blocks marked). Argument shapes come from
//! `--shapes` (`u`, `c`, `s<n>`, `v`, each optionally followed by `a<n>` for the
//! alignment, comma-separated, one per parameter or `name=shape`; counted per C parameter
//! for C input, as `lanes vectorize` counts them: [`lanes_driver::param_shapes`]), else
//! from the parameters' attributes.
//!
//! With `--profile`, the function also runs in the SIMT interpreter (W lanes in lock-step,
//! PACT'11 §II) on the given arguments (in `lanes interp` notation; varying arguments are
//! perturbed per lane) or on generated inputs, and the report compares static and dynamic
//! divergence per branch and in total, with the false-positive rate (PACT'11 §V). Lanes
//! that fault are listed, not fatal.
//!
//! Input is `.lir`, or C / C++ / OpenCL C / LLVM IR, imported through the LLVM bridge
//! (`lanes_llvm::driver::import_file`, as `lanes import` does; `-O`, `-I`, `-D`, `--std`
//! are handed to clang-19). OpenCL kernels keep their `kernel` attribute, so their
//! arguments default to uniform and `get_global_id(0)` is contiguous.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::{Args, ValueEnum};
use lanes_analysis::shapes::summary::DEFAULT_WALK_BUDGET;
use lanes_analysis::shapes::{report, svg, ShapeAnalysis};
use lanes_interp::runline::parse_args;
use lanes_ir::Shape;
use lanes_simt::precision::{profile_function, PrecisionReport, ProfileConfig};

use crate::commands::import::ClangArgs;
use crate::input::{read_verified_module, select_function};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Svg,
}

/// Shape and divergence analysis of a function (optionally compared with a SIMT run)
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes analyze kernels/mandelbrot.lir --shapes v,v,u\n  lanes analyze kernels/saxpy.lir --format svg > saxpy.svg\n  lanes analyze kernels/mandelbrot.lir --profile -- 0.25 0.5 100"
)]
pub struct AnalyzeArgs {
    /// The .lir file (`-` for standard input)
    pub file: PathBuf,
    /// Arguments for --profile, one per parameter, as for `lanes interp` (lane 0's values)
    pub args: Vec<String>,
    /// The function (default: the only one in the file)
    #[arg(short, long)]
    pub function: Option<String>,
    // The doc comment is clap's help text, shown verbatim: `<n>` is not an HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    /// Argument shapes: u, c, s<n>, v with optional a<n>, comma-separated (e.g. `u,ca16,v`),
    /// one per parameter as written in C for C input, or `name=shape` (as for vectorize)
    #[arg(long)]
    pub shapes: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Run the SIMT interpreter and compare static with dynamic divergence
    #[arg(long)]
    pub profile: bool,
    /// Run every label-propagation walk to its end (by default a walk stops after 64
    /// steps and the rest is over-approximated, which keeps the analysis linear)
    #[arg(long)]
    pub exact_divergence: bool,
    /// SIMT width (lanes per group) for --profile
    #[arg(long, default_value_t = 8)]
    pub width: usize,
    /// Work-groups to run for --profile
    #[arg(long, default_value_t = 8)]
    pub groups: u64,
    /// Seed of generated inputs for --profile
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Optimization level clang runs before importing C or OpenCL input (0, 1, 2, 3, s, z)
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: String,
    #[command(flatten)]
    pub clang: ClangArgs,
}

/// Reads `.lir` (or standard input) directly, anything else through the LLVM bridge.
fn read_input(args: &AnalyzeArgs) -> Result<lanes_ir::Module> {
    let path = &args.file;
    if path == std::path::Path::new("-") || path.extension().is_some_and(|e| e == "lir") {
        return read_verified_module(path);
    }
    lanes_llvm::driver::import_file(path, &args.clang.options(Some(args.opt.clone())))
        .with_context(|| format!("{}: import failed", path.display()))
}

pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let module = read_input(args)?;
    let id = select_function(&module, args.function.as_deref(), &args.file)?;
    let func = module
        .function(id)
        .context("selected function has no body")?;
    let shapes: Vec<Option<(Shape, u32)>> = match &args.shapes {
        Some(text) => {
            let clang = args.clang.options(Some(args.opt.clone()));
            lanes_driver::parameter_shapes(&args.file, &clang, func, text)
                .map_err(|e| anyhow!("{}: {e}", args.file.display()))?
        }
        None => Vec::new(),
    };
    let budget = (!args.exact_divergence).then_some(DEFAULT_WALK_BUDGET);
    let info = ShapeAnalysis::new(&module)
        .with_walk_budget(budget)
        .analyze(id, &shapes)
        .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    if info.summarized_walks() > 0 {
        eprintln!(
            "{}: note: @{}: {} divergence walks stopped after {DEFAULT_WALK_BUDGET} steps; their \
             joins are over-approximated (--exact-divergence computes them exactly)",
            args.file.display(),
            func.name,
            info.summarized_walks()
        );
    }
    let precision = if args.profile {
        let specs = if args.args.is_empty() {
            None
        } else {
            Some(parse_args(&args.args).map_err(|e| anyhow!("bad argument: {e}"))?)
        };
        let cfg = ProfileConfig {
            width: args.width,
            groups: args.groups,
            seed: args.seed,
            ..ProfileConfig::default()
        };
        let plain: Vec<Option<Shape>> = shapes.iter().map(|s| s.map(|(s, _)| s)).collect();
        Some(
            profile_function(&module, id, &info, &plain, specs.as_deref(), &cfg)
                .map_err(|e| anyhow!("{}: {e}", args.file.display()))?,
        )
    } else {
        if !args.args.is_empty() {
            return Err(anyhow!("arguments are only used with --profile"));
        }
        None
    };
    let out = match args.format {
        Format::Text => {
            let mut s = report::text(func, &info);
            if let Some(p) = &precision {
                s.push_str(&precision_text(p, args.width));
            }
            s
        }
        Format::Json => {
            let mut s = report::json(func, &info);
            if let Some(p) = &precision {
                s.pop();
                s.push_str(",\"profile\":");
                s.push_str(&precision_json(p));
                s.push('}');
            }
            s.push('\n');
            s
        }
        Format::Svg => svg::svg(func, &info),
    };
    print!("{out}");
    Ok(())
}

/// The `--profile` part of the text report.
pub fn precision_text(p: &PrecisionReport, width: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "profile (SIMT, {width} lanes):");
    for b in &p.branches {
        let verdict = match (b.static_divergent, b.stats.diverged > 0) {
            (true, true) => "divergent, diverged",
            (true, false) => "divergent, never diverged (false positive)",
            (false, false) => "uniform, never diverged",
            (false, true) => "uniform, DIVERGED (false negative)",
        };
        let _ = writeln!(
            s,
            "  branch {}: {verdict}; diverged {} of {} executions",
            b.block, b.stats.diverged, b.stats.executions
        );
    }
    for b in &p.unexecuted {
        let _ = writeln!(s, "  branch {b}: never executed");
    }
    for (g, lane, msg) in &p.faults {
        let _ = writeln!(s, "  fault: group {g} lane {lane}: {msg}");
    }
    let _ = writeln!(
        s,
        "total: {} executed branches, {} static divergent, {} dynamic divergent, {} false \
         positives, {} false negatives; false-positive rate {:.1}%; SIMD utilization {:.1}%",
        p.branches.len(),
        p.static_divergent(),
        p.dynamic_divergent(),
        p.false_positives(),
        p.false_negatives(),
        100.0 * p.false_positive_rate(),
        100.0 * p.utilization
    );
    s
}

fn precision_json(p: &PrecisionReport) -> String {
    let branches: Vec<String> = p
        .branches
        .iter()
        .map(|b| {
            format!(
                "{{\"block\":\"{}\",\"static_divergent\":{},\"executions\":{},\"diverged\":{}}}",
                b.block, b.static_divergent, b.stats.executions, b.stats.diverged
            )
        })
        .collect();
    let unexecuted: Vec<String> = p.unexecuted.iter().map(|b| format!("\"{b}\"")).collect();
    format!(
        "{{\"branches\":[{}],\"unexecuted\":[{}],\"faults\":{},\"static_divergent\":{},\
         \"dynamic_divergent\":{},\"false_positives\":{},\"false_negatives\":{},\
         \"false_positive_rate\":{:.4},\"utilization\":{:.4}}}",
        branches.join(","),
        unexecuted.join(","),
        p.faults.len(),
        p.static_divergent(),
        p.dynamic_divergent(),
        p.false_positives(),
        p.false_negatives(),
        p.false_positive_rate(),
        p.utilization
    )
}
