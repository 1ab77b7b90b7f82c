//! `lanes vectorize`: one SPMD function of a file → its vector variant and a launcher.
//!
//! The function is imported (C, OpenCL C, `.ll`, `.bc`, `.lir`), control-flow vectorized
//! by `lanes-wfv` (partial linearization, PLDI'18 §3–5, or `--linearize full`) and widened
//! to `W` lanes (CC'12 §3.3). The result is named by the x86 vector-function ABI
//! (Intel's "Vector Function ABI", as GCC and clang mangle `#pragma omp declare simd`):
//! `_ZGV` + ISA (`b` SSE, `c` AVX, `d` AVX2, `e` AVX-512) + `N` (unmasked) + `W` + one
//! letter per parameter (`u` uniform, passed as a scalar; `v` anything else, passed as a
//! vector) + `_` + the name, e.g. `_ZGVeN16vu_F`. `--shapes` counts the parameters as
//! written in C for C, C++ and OpenCL C input and accepts `name=shape` entries
//! ([`lanes_driver::param_shapes`]); the letters of the name are per LLVM parameter, so a
//! struct passed in two pieces has two letters and a returned struct's hidden pointer one.
//!
//! When exactly one parameter is contiguous (the instance index) and the others are
//! uniform, a launcher `F_spmd` with `F`'s signature is defined too, where the index is a
//! count: `F_spmd(…, n, …)` runs `F(…, i, …)` for `i` in `0..n`, `W` instances at a time,
//! the lanes past `n` masked off by [`lanes_wfv::with_entry_mask`]. Every other function
//! of the module is internalized, so objects made for several functions of one source
//! file link into one program. With `-fveclib=libmvec` (`--veclib`), vector math calls
//! glibc's libmvec for the target's ISA, as in `lanes compile`. The pipeline is
//! [`lanes_driver::vectorize()`]; this file only parses the command line and prints.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Args, ValueEnum};

use lanes_driver::{vectorize, Output, TrainingRun, VectorizeRequest};
use lanes_interp::runline::parse_args;
use lanes_llvm::emit::EmitKind;
use lanes_wfv::reconverge::{BlockOrder, SkipEmpty};
use lanes_wfv::{BosccPolicy, FusionPolicy, Mode, PrivateLayout};

use super::import::ClangArgs;
use super::target_args::TargetArgs;
use crate::output::{write_bytes, OutputKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Linearize {
    Partial,
    Full,
    Reconverge,
}

/// The block order of the reconverging transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Order {
    Df,
    Dfpd,
    Bf,
    Rpot,
}

impl Order {
    fn block_order(self) -> BlockOrder {
        match self {
            Order::Df => BlockOrder::DepthFirst,
            Order::Dfpd => BlockOrder::DepthFirstPostDom,
            Order::Bf => BlockOrder::BreadthFirst,
            Order::Rpot => BlockOrder::ReversePostOrder,
        }
    }
}

/// Empty-mask skips of the reconverging lowering (the paper's step-4 option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SkipEmptyArg {
    Auto,
    All,
    Off,
}

impl SkipEmptyArg {
    pub fn policy(self) -> SkipEmpty {
        match self {
            SkipEmptyArg::Auto => SkipEmpty::Auto,
            SkipEmptyArg::All => SkipEmpty::All,
            SkipEmptyArg::Off => SkipEmpty::Off,
        }
    }
}

/// BOSCC gadgets (PLDI'18 §6.1) with partial linearization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Boscc {
    Off,
    Auto,
    All,
}

impl Boscc {
    /// Partial linearization with these gadgets.
    pub fn partial(self) -> Mode {
        match self {
            Boscc::Off => Mode::PARTIAL,
            Boscc::Auto => Mode::boscc(BosccPolicy::Auto),
            Boscc::All => Mode::boscc(BosccPolicy::All),
        }
    }
}

/// Branch fusion (PACT'11 §IV-A) of divergent if-then-elses with similar sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BranchFusion {
    Off,
    Auto,
    All,
}

impl BranchFusion {
    pub fn policy(self) -> FusionPolicy {
        match self {
            BranchFusion::Off => FusionPolicy::Off,
            BranchFusion::Auto => FusionPolicy::Auto,
            BranchFusion::All => FusionPolicy::All,
        }
    }
}

/// Layout of private (stack) arrays across lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrivateLayoutArg {
    Interleaved,
    PerLane,
}

impl PrivateLayoutArg {
    pub fn layout(self) -> PrivateLayout {
        match self {
            PrivateLayoutArg::Interleaved => PrivateLayout::Interleaved,
            PrivateLayoutArg::PerLane => PrivateLayout::PerLane,
        }
    }
}

/// Vectorize one SPMD function: its x86 vector-ABI variant and an `F_spmd` launcher
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes vectorize saxpy.c --function saxpy --shapes c,u,u,u,u --width 16 -o saxpy.o\n  lanes vectorize saxpy.c --function saxpy --shapes i=c,a=u,x=u,y=u,n=u -o saxpy.o"
)]
pub struct VectorizeArgs {
    /// The input file (.c, .cl, .ll, .bc or .lir)
    pub file: PathBuf,
    /// The function to vectorize (optional if the file defines only one)
    #[arg(long)]
    pub function: Option<String>,
    // The doc comment is clap's help text, shown verbatim: `<n>` is not an HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    /// Parameter shapes: u, c, s<n>, v with optional a<n>, comma-separated, one per parameter
    /// as written in C (for C/C++/OpenCL input, whatever the ABI makes of it: a struct's
    /// pieces share its shape, a returned struct's hidden pointer is varying) or as in the
    /// IR (.ll/.bc/.lir); `name=shape` entries (after any positional ones) name parameters
    /// in any order, and those left out are v (default: all v)
    #[arg(long, value_name = "SHAPES")]
    pub shapes: Option<String>,
    /// Lanes (default: the target's natural width for 32-bit elements: 16 with AVX-512,
    /// 8 with AVX, else 4; the target is the host unless -march=, --target-cpu or -m… say)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub width: Option<u16>,
    /// Linearize divergent control flow only (partial) or all of it (full), or make the
    /// CFG reconverging instead (flow blocks give every divergent branch a post-dominating
    /// successor, then execution and re-join masks; the reconverging-CFG paper), which
    /// keeps uniform branches and takes irreducible control flow (a goto into a loop)
    #[arg(long, value_enum, default_value = "partial")]
    pub linearize: Linearize,
    /// Block order of `--linearize reconverge`: depth-first, depth-first with
    /// post-dominators last, breadth-first, or reverse post-order
    #[arg(long, value_enum, default_value = "dfpd")]
    pub order: Order,
    /// With `--linearize reconverge`, which divergent branches test whether any lane goes
    /// to their side and skip it if none does: `auto` where the side is heavy enough to
    /// repay the test (BOSCC's estimate; the default), `all` everywhere, `off` only where a
    /// loop needs it to end
    #[arg(long, value_enum)]
    pub skip_empty: Option<SkipEmptyArg>,
    /// With `--linearize reconverge` and `--skip-empty auto`, decide the skips from a
    /// training run: the function in lanes' SIMT interpreter at the vector width, counting
    /// how often a wave sends no thread to a side, on the arguments of --profile-arg (lane
    /// 0's; contiguous parameters step by one per lane) or on generated ones
    #[arg(long)]
    pub profile: bool,
    /// One argument of the --profile run, in parameter order (repeat it), as `lanes interp`
    /// takes them: 7, -1.5, 'buf[f32 x 1024]', 'buf[i32: 1, 2, 3]', 'buf[f32 @ points.bin]'
    /// (a file of little-endian elements: real data to train on)
    #[arg(long = "profile-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub profile_args: Vec<String>,
    /// Waves of the --profile run
    #[arg(long, default_value = "8", value_name = "N")]
    pub profile_groups: u64,
    /// With partial linearization, branch on "no lane takes this side" around the sides of
    /// divergent branches (PLDI'18 §6.1 BOSCC): `auto` where the side is heavy enough to
    /// repay the test (the default), `all` wherever possible, `off` never
    #[arg(long, value_enum, default_value = "auto")]
    pub boscc: Boscc,
    /// Merge the two sides of divergent if-then-elses that do similar work into one
    /// sequence with selects on the operands that differ (PACT'11 §IV-A branch fusion):
    /// `auto` where the cost model finds a profit (the default), `all` wherever two
    /// instructions can merge, `off` never
    #[arg(long, value_enum, default_value = "auto")]
    pub branch_fusion: BranchFusion,
    /// Layout of stack arrays whose addresses stay in the function: `interleaved` puts
    /// element `e` of all lanes side by side (as ISPC lays out varying arrays), so that a
    /// uniform index is one vector load or store (the default); `per-lane` gives each lane
    /// its own copy, where every access is a gather or scatter
    #[arg(long, value_enum, default_value = "interleaved")]
    pub private_layout: PrivateLayoutArg,
    /// Output: .o (object), .s (assembly), .ll (LLVM IR), .bc (bitcode) or .lir (lanes IR);
    /// `-` writes an object to standard output
    #[arg(short, long)]
    pub output: PathBuf,
    /// Optimization level (0-3)
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: u8,
    /// Vector math library for vectorized math (`libmvec` or `none`; clang's -fveclib=);
    /// link with `-lmvec -lm`
    #[arg(long, value_name = "LIB")]
    pub veclib: Option<String>,
    /// Print the wall time of each phase (front end, lanes' passes, LLVM) to standard
    /// error; `-ftime-report` says the same, as with clang
    #[arg(long)]
    pub time_report: bool,
    /// Print where the vector code has gathers, scatters or code run once per active lane
    /// (calls, atomics), with the source line and the reason, as clang's -Rpass-missed and
    /// ISPC's performance warnings do
    #[arg(long)]
    pub remarks: bool,
    /// Write the remarks as JSON to FILE (`-` for standard output)
    #[arg(long, value_name = "FILE")]
    pub remarks_json: Option<PathBuf>,
    /// Print PLDI'18 Table 1 for each vector function made (branches divergent, folded
    /// and preserved; uniform and divergent loops and exits; BOSCC gadgets; fused
    /// instructions; load/store masks and addresses) to standard error
    #[arg(long)]
    pub stats: bool,
    /// Write the same statistics as JSON to FILE (`-` for standard output)
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub clang: ClangArgs,
}

pub fn run(args: &VectorizeArgs) -> Result<()> {
    let opt = args.opt.min(3);
    let clang = args.clang.options(Some(opt.to_string()));
    let out = &args.output;
    let output = match out.extension().and_then(|e| e.to_str()) {
        _ if out.as_os_str() == "-" => Output::Llvm(EmitKind::Object),
        None => Output::Llvm(EmitKind::Object),
        Some(ext) => match OutputKind::of_suffix(ext) {
            Some(OutputKind::Lir) => Output::Lir,
            Some(OutputKind::LlvmText) => Output::Llvm(EmitKind::Llvm),
            Some(OutputKind::Bitcode) => Output::Llvm(EmitKind::Bitcode),
            Some(OutputKind::Asm) => Output::Llvm(EmitKind::Asm),
            Some(OutputKind::Object) => Output::Llvm(EmitKind::Object),
            None => bail!(
                "-o {}: lanes vectorize writes .o (object), .s (assembly), .ll (LLVM IR), .bc (bitcode) or .lir (lanes IR), not .{ext}",
                out.display()
            ),
        },
    };
    if args.skip_empty.is_some() && args.linearize != Linearize::Reconverge {
        bail!("--skip-empty is an option of --linearize reconverge (partial linearization has --boscc)");
    }
    if args.profile
        && (args.linearize != Linearize::Reconverge
            || args.skip_empty.is_some_and(|s| s != SkipEmptyArg::Auto))
    {
        bail!("--profile decides the empty-mask skips of --linearize reconverge --skip-empty auto");
    }
    if !args.profile_args.is_empty() && !args.profile {
        bail!("--profile-arg gives the arguments of the --profile run; add --profile");
    }
    let training_run = if args.profile {
        let specs = if args.profile_args.is_empty() {
            None
        } else {
            Some(parse_args(&args.profile_args).map_err(|e| anyhow!("bad --profile-arg: {e}"))?)
        };
        Some(TrainingRun {
            args: specs,
            groups: args.profile_groups,
            seed: 1,
        })
    } else {
        None
    };
    let req = VectorizeRequest {
        input: args.file.clone(),
        // Vector code is for this machine unless a target is named.
        target: args.target.request(&clang.extra, Some("native")),
        clang,
        function: args.function.clone(),
        shapes: args.shapes.clone(),
        width: args.width,
        mode: match (args.linearize, args.boscc) {
            // Full if-conversion folds every branch, gadgets' included.
            (Linearize::Full, Boscc::Off | Boscc::Auto) => Mode::FULL,
            (Linearize::Full, Boscc::All) => {
                bail!(
                    "--boscc all needs --linearize partial: full if-conversion folds its branches"
                )
            }
            (Linearize::Partial, boscc) => boscc.partial(),
            (Linearize::Reconverge, Boscc::Off | Boscc::Auto) => {
                Mode::reconverge(args.order.block_order())
                    .with_skip_empty(args.skip_empty.unwrap_or(SkipEmptyArg::Auto).policy())
            }
            (Linearize::Reconverge, Boscc::All) => {
                bail!("--boscc all needs --linearize partial")
            }
        }
        .with_fusion(args.branch_fusion.policy())
        .with_private_layout(args.private_layout.layout()),
        opt_level: opt,
        veclib: args.veclib.clone(),
        output,
        branch_profile: None,
        training_run,
    };
    let done = vectorize(&req)
        .with_context(|| format!("{}: vectorization failed", args.file.display()))?;
    for note in &done.notes {
        eprintln!("lanes: {note}");
    }
    if args.remarks {
        for r in &done.remarks {
            eprintln!("{r}");
        }
    }
    if let Some(path) = &args.remarks_json {
        let text = serde_json::to_string_pretty(&done.remarks)? + "\n";
        write_bytes(path, text.as_bytes())?;
    }
    if args.stats {
        eprint!("{}", lanes_driver::table1_text(&done.stats));
    }
    if let Some(path) = &args.stats_json {
        let rows = lanes_driver::table1_rows(&done.stats);
        let text = serde_json::to_string_pretty(&rows)? + "\n";
        write_bytes(path, text.as_bytes())?;
    }
    if args.time_report {
        eprint!("{}", done.times.report());
    }
    write_bytes(out, &done.bytes)
}
