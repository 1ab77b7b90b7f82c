//! `lanes compile`: a drop-in for `clang-19 -c` on supported code.
//!
//! Imports the input (through clang-19 for sources; `.lir` is read directly), exports it
//! back to LLVM IR with the original ABI attributes, runs the new pass manager's
//! `default<On>` with LLVM's loop and SLP vectorizers on or off, and writes an object,
//! assembly (`--emit asm` or `-S`) or LLVM IR (`--emit llvm`).

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use lanes_llvm::driver::{compile_file, CompileOptions};
use lanes_llvm::emit::{EmitKind, TargetOptions};
use lanes_llvm::pipeline::PipelineOptions;

use super::import::ClangArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    Obj,
    Asm,
    Llvm,
}

/// Compile C, C++, OpenCL C, .ll, .bc or .lir to an object file through lanes and LLVM 19
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The input file
    pub file: PathBuf,
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
    /// Target triple (default: the host)
    #[arg(long)]
    pub target: Option<String>,
    /// Target CPU (`native` for the host CPU; default generic)
    #[arg(long)]
    pub target_cpu: Option<String>,
    /// Target features (`+avx2,+fma`)
    #[arg(long)]
    pub target_features: Option<String>,
    #[command(flatten)]
    pub clang: ClangArgs,
}

pub fn run(args: &CompileArgs) -> Result<()> {
    let emit = if args.asm { Emit::Asm } else { args.emit };
    let opt = args.opt.min(3);
    let mut clang = args.clang.options(Some(opt.to_string()));
    if let Some(triple) = &args.target {
        // The front end must lower the C ABI for the same target.
        clang.extra.push(format!("--target={triple}"));
    }
    let opts = CompileOptions {
        clang,
        pipeline: PipelineOptions {
            opt_level: opt,
            loop_vectorize: opt >= 2 && !args.no_vectorize,
            slp_vectorize: opt >= 2 && !args.no_slp_vectorize,
            verify_each: false,
        },
        target: TargetOptions {
            triple: args.target.clone(),
            cpu: args.target_cpu.clone(),
            features: args.target_features.clone(),
            opt_level: opt,
        },
        emit: match emit {
            Emit::Obj => EmitKind::Object,
            Emit::Asm => EmitKind::Asm,
            Emit::Llvm => EmitKind::Llvm,
        },
    };
    let bytes = compile_file(&args.file, &opts)
        .with_context(|| format!("{}: compilation failed", args.file.display()))?;
    let output = args.output.clone().unwrap_or_else(|| {
        let ext = match emit {
            Emit::Obj => "o",
            Emit::Asm => "s",
            Emit::Llvm => "ll",
        };
        PathBuf::from(args.file.file_name().unwrap_or_default()).with_extension(ext)
    });
    if output.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout().write_all(&bytes)?;
    } else {
        std::fs::write(&output, bytes)
            .with_context(|| format!("cannot write {}", output.display()))?;
    }
    Ok(())
}
