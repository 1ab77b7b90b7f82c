//! `lanes`: the command-line driver.
//!
//! Subcommands: `fmt` (canonical .lir text), `verify` (the IR verifier), `interp` (run a
//! function in the reference interpreter), `cfg` (the CFG as Graphviz DOT with dominator,
//! post-dominator and loop information). Errors go to standard error as one line each
//! (`lanes: error: FILE:LINE:COL: what is wrong`) and the exit status is 1; `anyhow` lives
//! here, at the edge, and nowhere in the libraries.

mod commands;
mod input;
mod output;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "lanes", version, about = "SIMD vectorization of divergent data-parallel code", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Fmt(commands::fmt::FmtArgs),
    Verify(commands::verify::VerifyArgs),
    Interp(commands::interp::InterpArgs),
    Cfg(commands::cfg::CfgArgs),
    Analyze(commands::analyze::AnalyzeArgs),
    Import(commands::import::ImportArgs),
    Compile(commands::compile::CompileArgs),
    Vectorize(commands::vectorize::VectorizeArgs),
    Bench(commands::bench::BenchArgs),
    /// OpenCL C kernels compiled by lanes and run on all cores
    Cl(commands::cl::ClArgs),
}

fn main() {
    // Rust ignores SIGPIPE, so printing to a closed pipe (`lanes … | head`) panics;
    // with the default disposition the process ends quietly, as C tools do.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse_from(commands::compile::clang_style_args(std::env::args_os()));
    let result = match &cli.command {
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Interp(args) => commands::interp::run(args),
        Command::Cfg(args) => commands::cfg::run(args),
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Import(args) => commands::import::run(args),
        Command::Compile(args) => commands::compile::run(args),
        Command::Vectorize(args) => commands::vectorize::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Cl(args) => commands::cl::run(args),
    };
    if let Err(e) = result {
        let text = format!("{e:#}");
        let mut lines = text.lines();
        if let Some(first) = lines.next() {
            eprintln!("lanes: error: {first}");
        }
        for line in lines {
            eprintln!("{line}");
        }
        std::process::exit(1);
    }
}
