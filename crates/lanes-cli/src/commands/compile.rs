//! `lanes compile`: a drop-in for `clang-19 -c`.
//!
//! Imports the input (through clang-19 for sources; `.lir` is read directly) function by
//! function — what lanes IR cannot express stays LLVM IR, reported by `--remarks` — writes
//! lanes' functions back into clang's module, runs the new pass manager's `default<On>`
//! with LLVM's loop and SLP vectorizers on or off, and writes an object, assembly (`-S`),
//! LLVM IR (`-S -emit-llvm`) or bitcode (`-c -emit-llvm`). Under `-fopenmp-simd` or
//! `-fopenmp`, the functions declared `#pragma omp declare simd` also get the vector
//! variants clang announces, made by lanes-wfv.
//!
//! Loops marked parallel — `#pragma omp simd` (under `-fopenmp-simd`/`-fopenmp`) and
//! `#pragma clang loop vectorize(assume_safety)` — are vectorized by lanes as outer loops
//! before LLVM runs (PLDI'18 §7, [`lanes_wfv::outer_loop`]): the body becomes an SPMD
//! region, divergent inner loops and branches included, at the target's width (16 lanes
//! with AVX-512, 8 with AVX, else 4; `--simd-width` or `simdlen(N)` override). A marked
//! loop lanes cannot take is named in a warning and left to LLVM's loop vectorizer.
//!
//! `-fveclib=libmvec` (`--veclib`) makes the vector math of lanes' vector code call glibc's
//! libmvec (`_ZGVeN16v_sinf`, …; [`lanes_llvm::export::VecLib`]) for the target's ISA, and
//! is handed on to clang as well. `--slp` vectorizes with lanes' SuperVectorization
//! (PLDI'22) in place of LLVM's SLP vectorizer, LLVM's loop vectorizer taking the loops
//! it left (or none, with `--no-vectorize`); `--stats` prints what it did.
//! The pipeline is [`lanes_driver::compile()`]; this file only parses the command line and prints. Calls to libm (`sinf`, `pow`, …) are
//! imported as lanes math intrinsics with or without `-fno-math-errno`: lanes IR has no
//! `errno`, and neither libmvec nor lanes' vector code sets it.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use lanes_driver::{compile, CompileRequest, RemarkKind};
use lanes_llvm::emit::EmitKind;

use super::import::ClangArgs;
use super::target_args::TargetArgs;
use crate::output::{check_output_name, input_file, write_bytes, OutputKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    Obj,
    Asm,
    Llvm,
}

/// Compile C, C++, OpenCL C, .ll, .bc or .lir to an object file through lanes and LLVM 19
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The input file (`-`: standard input, in the language of `-x`)
    pub file: PathBuf,
    /// The language of standard input: c, c++, cl, ir or lir (clang's -x)
    #[arg(short = 'x', value_name = "LANG")]
    pub language: Option<String>,
    /// With -S, LLVM IR text (.ll); else LLVM bitcode (.bc)
    #[arg(long = "emit-llvm")]
    pub emit_llvm: bool,
    /// Compile only (accepted for compatibility with clang; always the case)
    #[arg(short = 'c')]
    pub compile_only: bool,
    /// Emit assembly (same as --emit asm)
    #[arg(short = 'S')]
    pub asm: bool,
    /// Output file (default: the input's name with .o, .s or .ll)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// What to write
    #[arg(long, value_enum, default_value = "obj")]
    pub emit: Emit,
    /// Optimization level (0-3), for clang's front end and LLVM's pipeline
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: u8,
    /// Turn LLVM's loop vectorizer off
    #[arg(long)]
    pub no_vectorize: bool,
    /// Turn LLVM's SLP vectorizer off
    #[arg(long)]
    pub no_slp_vectorize: bool,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Lanes for `#pragma omp simd` / `vectorize(assume_safety)` loops (default: from the target)
    #[arg(long, value_parser = clap::value_parser!(u16).range(2..=64))]
    pub simd_width: Option<u16>,
    /// Leave parallel loops to LLVM's loop vectorizer (no outer-loop vectorization by lanes)
    #[arg(long)]
    pub no_outer_loops: bool,
    /// BOSCC gadgets (PLDI'18 §6.1) in parallel loop bodies and `declare simd` variants:
    /// `auto` where the skipped side is heavy enough, `all`, or `off`
    #[arg(long, value_enum, default_value = "auto")]
    pub boscc: super::vectorize::Boscc,
    /// Branch fusion (PACT'11 §IV-A) of divergent if-then-elses with similar sides in the
    /// same code: `auto` where it pays, `all`, or `off`
    #[arg(long, value_enum, default_value = "auto")]
    pub branch_fusion: super::vectorize::BranchFusion,
    /// Layout of private arrays in the same code: `interleaved` (element-major across
    /// lanes, the default) or `per-lane`
    #[arg(long, value_enum, default_value = "interleaved")]
    pub private_layout: super::vectorize::PrivateLayoutArg,
    /// Report every parallel loop lanes vectorized and every function lanes left as LLVM IR,
    /// with the reason (as clang's -Rpass and -Rpass-missed do)
    #[arg(long)]
    pub remarks: bool,
    /// Write the remarks as JSON to FILE (`-` for standard output)
    #[arg(long, value_name = "FILE")]
    pub remarks_json: Option<PathBuf>,
    /// Vectorize with lanes' SuperVectorization (PLDI'22: SLP packing across blocks over
    /// Predicated SSA) in place of LLVM's SLP vectorizer (from -O2 on); LLVM's loop
    /// vectorizer takes only the loops it left (add --no-vectorize for it alone)
    #[arg(long)]
    pub slp: bool,
    /// With --slp, how packs are priced: `target` (LLVM's cost model of the target, as
    /// its own vectorizers ask it) or `registers` (one per instruction and per register
    /// a vector fills)
    #[arg(long, value_enum, default_value = "target", value_name = "MODEL")]
    pub slp_cost: SlpCostArg,
    /// With --slp, print what it did per function (packs, instructions packed, packs
    /// across predicates, seeds not packed) on standard error
    #[arg(long)]
    pub stats: bool,
    /// Vector math library for vectorized math (`libmvec` or `none`; clang's -fveclib=);
    /// link with `-lmvec -lm`
    #[arg(long, value_name = "LIB")]
    pub veclib: Option<String>,
    #[command(flatten)]
    pub clang: ClangArgs,
}

pub fn run(args: &CompileArgs) -> Result<()> {
    let kind = match (args.emit_llvm, args.asm, args.emit) {
        (true, true, _) | (false, false, Emit::Llvm) => OutputKind::LlvmText,
        (true, false, _) => OutputKind::Bitcode,
        (false, true, _) | (false, false, Emit::Asm) => OutputKind::Asm,
        (false, false, Emit::Obj) => OutputKind::Object,
    };
    let (file, _stdin) = input_file(&args.file, args.language.as_deref())?;
    let output = args.output.clone().unwrap_or_else(|| {
        if args.file.as_os_str() == "-" {
            PathBuf::from("-")
        } else {
            PathBuf::from(args.file.file_name().unwrap_or_default())
                .with_extension(kind.suffixes()[0])
        }
    });
    check_output_name(&output, kind)?;
    let opt = args.opt.min(3);
    let clang = args.clang.options(Some(opt.to_string()));
    let req = CompileRequest {
        input: file,
        target: args.target.request(&clang.extra, None),
        clang,
        opt_level: opt,
        loop_vectorize: !args.no_vectorize,
        slp_vectorize: !args.no_slp_vectorize,
        emit: match kind {
            OutputKind::Asm => EmitKind::Asm,
            OutputKind::LlvmText => EmitKind::Llvm,
            OutputKind::Bitcode => EmitKind::Bitcode,
            _ => EmitKind::Object,
        },
        veclib: args.veclib.clone(),
        outer_loops: !args.no_outer_loops,
        simd_width: args.simd_width,
        mode: args
            .boscc
            .partial()
            .with_fusion(args.branch_fusion.policy())
            .with_private_layout(args.private_layout.layout()),
        slp: args.slp,
        slp_cost: args.slp_cost.model(),
    };
    let compiled =
        compile(&req).with_context(|| format!("{}: compilation failed", args.file.display()))?;
    for note in &compiled.notes {
        eprintln!("lanes: {note}");
    }
    for r in &compiled.remarks {
        if args.remarks || r.kind == RemarkKind::Warning {
            eprintln!("{r}");
        }
    }
    if args.stats {
        if !args.slp {
            eprintln!("lanes: --stats reports SuperVectorization; add --slp");
        }
        for (name, r) in &compiled.slp {
            let factors: Vec<String> = r.unrolled.iter().map(|u| u.to_string()).collect();
            eprintln!(
                "slp: @{name}: {} trees, {} packs of {} instructions, {} packs across predicates, {} vector μ-nodes, {} seeds not packed, {} loops unrolled{}, {} fused and {} co-iterated loop groups",
                r.trees,
                r.packs,
                r.packed_insts,
                r.cross_predicate_packs,
                r.mu_packs,
                r.rejected.len(),
                r.unrolled.len(),
                if factors.is_empty() {
                    String::new()
                } else {
                    format!(" (by {})", factors.join(", "))
                },
                r.fused,
                r.coiterated
            );
        }
    }
    if let Some(path) = &args.remarks_json {
        let text = serde_json::to_string_pretty(&compiled.remarks)? + "\n";
        write_bytes(path, text.as_bytes())?;
    }
    write_bytes(&output, &compiled.bytes)
}

/// Rewrites clang-style options after `lanes import` / `lanes compile` into lanes' own, so
/// that the commands take the command lines `clang-19 -c` takes: `-std=c11` → `--std=c11`,
/// `-march=X`/`-mcpu=X` → `--target-cpu=X`, `-fno-vectorize`/`-fno-slp-vectorize` → lanes'
/// flags, `-fveclib=X` → `--veclib=X` (which hands `-fveclib=X` on to clang as well),
/// `-Os`/`-Oz` → `-O2`, `-Ofast` → `-O3`, and other `-f…`, `-m…`, `-g…`, `-W…`, `-w`,
/// `-pedantic`, `-pipe` → `--clang-arg=…` (passed to clang). `lanes vectorize` is rewritten
/// as `import` is, with `-fveclib=X` → `--veclib=X`. Other subcommands are untouched.
pub fn clang_style_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let compile = sub == "compile";
    let vectorize = sub == "vectorize";
    if !compile && !vectorize && sub != "import" {
        return args;
    }
    let mut after_dashdash = false;
    let mut out: Vec<OsString> = args.drain(..2.min(args.len())).collect();
    let mut rest = args.into_iter();
    while let Some(a) = rest.next() {
        let Some(s) = a.to_str().map(String::from) else {
            out.push(a);
            continue;
        };
        if after_dashdash || !s.starts_with('-') || s.starts_with("--") || s == "-" {
            after_dashdash |= s == "--";
            out.push(a);
            if [
                "--clang-arg",
                "--output",
                "--target",
                "--target-cpu",
                "--target-features",
            ]
            .contains(&s.as_str())
            {
                // The value is lanes', whatever it starts with.
                out.extend(rest.next());
            }
            continue;
        }
        if s == "-o" {
            out.push(a);
            out.extend(rest.next());
            continue;
        }
        if ["-include", "-imacros", "-isystem", "-iquote", "-idirafter"].contains(&s.as_str()) {
            // clang options with a separate value: both go to clang.
            out.push(OsString::from(format!("--clang-arg={s}")));
            if let Some(v) = rest.next() {
                let mut arg = OsString::from("--clang-arg=");
                arg.push(v);
                out.push(arg);
            }
            continue;
        }
        let new = if let Some(v) = s.strip_prefix("-std=") {
            format!("--std={v}")
        } else if let Some(v) = s
            .strip_prefix("-march=")
            .or_else(|| s.strip_prefix("-mcpu="))
        {
            if compile || vectorize {
                format!("--target-cpu={v}")
            } else {
                format!("--clang-arg={s}")
            }
        } else if let Some(v) = s.strip_prefix("-fveclib=").filter(|_| compile || vectorize) {
            format!("--veclib={v}")
        } else if compile && s == "-emit-llvm" {
            "--emit-llvm".to_string()
        } else if vectorize && s == "-ftime-report" {
            "--time-report".to_string()
        } else if compile && s == "-fno-vectorize" {
            "--no-vectorize".to_string()
        } else if compile && s == "-fno-slp-vectorize" {
            "--no-slp-vectorize".to_string()
        } else if s == "-Os" || s == "-Oz" {
            "-O2".to_string()
        } else if s == "-Ofast" {
            "-O3".to_string()
        } else if s == "-w"
            || s == "-pedantic"
            || s == "-pipe"
            || ["-f", "-m", "-g", "-W"].iter().any(|p| s.starts_with(p))
        {
            format!("--clang-arg={s}")
        } else {
            out.push(a);
            continue;
        };
        out.push(OsString::from(new));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(line: &str) -> Vec<String> {
        clang_style_args(line.split(' ').map(OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap_or_default())
            .collect()
    }

    #[test]
    fn clang_options_become_lanes_options() {
        assert_eq!(
            rewrite("lanes compile -std=c11 -march=native -g -Wall -fPIC -fno-vectorize -Os -c x.c -o x.o"),
            [
                "lanes", "compile", "--std=c11", "--target-cpu=native", "--clang-arg=-g",
                "--clang-arg=-Wall", "--clang-arg=-fPIC", "--no-vectorize", "-O2", "-c", "x.c", "-o",
                "x.o"
            ]
        );
        assert_eq!(
            rewrite("lanes import -march=x86-64 k.cl -o k.lir"),
            [
                "lanes",
                "import",
                "--clang-arg=-march=x86-64",
                "k.cl",
                "-o",
                "k.lir"
            ]
        );
        assert_eq!(
            rewrite("lanes compile -fveclib=libmvec -fno-math-errno k.c"),
            [
                "lanes",
                "compile",
                "--veclib=libmvec",
                "--clang-arg=-fno-math-errno",
                "k.c"
            ]
        );
        assert_eq!(
            rewrite("lanes vectorize -ftime-report k.c -o k.o"),
            ["lanes", "vectorize", "--time-report", "k.c", "-o", "k.o"]
        );
        assert_eq!(
            rewrite("lanes vectorize -fveclib=libmvec -ffast-math k.c -o k.o"),
            [
                "lanes",
                "vectorize",
                "--veclib=libmvec",
                "--clang-arg=-ffast-math",
                "k.c",
                "-o",
                "k.o"
            ]
        );
        assert_eq!(
            rewrite("lanes import -fveclib=libmvec k.c"),
            ["lanes", "import", "--clang-arg=-fveclib=libmvec", "k.c"]
        );
        assert_eq!(rewrite("lanes fmt -std=x"), ["lanes", "fmt", "-std=x"]);
        // A lanes option's value is never rewritten; clang's two-word options go to clang.
        assert_eq!(
            rewrite("lanes compile --clang-arg -g -include pre.h -o - -march=haswell k.c"),
            [
                "lanes",
                "compile",
                "--clang-arg",
                "-g",
                "--clang-arg=-include",
                "--clang-arg=pre.h",
                "-o",
                "-",
                "--target-cpu=haswell",
                "k.c"
            ]
        );
        assert_eq!(
            rewrite("lanes vectorize -march=haswell -mno-avx512f k.c"),
            [
                "lanes",
                "vectorize",
                "--target-cpu=haswell",
                "--clang-arg=-mno-avx512f",
                "k.c"
            ]
        );
    }
}

/// `--slp-cost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SlpCostArg {
    Target,
    Registers,
}

impl SlpCostArg {
    fn model(self) -> lanes_driver::compile::SlpCost {
        match self {
            SlpCostArg::Target => lanes_driver::compile::SlpCost::Target,
            SlpCostArg::Registers => lanes_driver::compile::SlpCost::Registers,
        }
    }
}
