//! `lanes interp`: run one function of a `.lir` file in the reference interpreter.
//!
//! Arguments use the notation of the interpreter's `; run:` filetest directives
//! (`lanes_interp::runline`), so a failing filetest line can be replayed on the command
//! line as it is written: scalars (`7`, `-1.5`, `true`, `nan`), vectors (`'<1, 2, 3, 4>'`)
//! and buffers (`'buf[i32: 1, 2, 3]'`, `'buf[f32 x 16]'` zero-filled, `const buf[…]`
//! read-only). The result is printed on standard output; with `--dump-buffers` the final
//! contents of every buffer argument follow, one `bufN = [T: …]` line each.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use lanes_interp::harness::bind_args;
use lanes_interp::runline::parse_args;
use lanes_interp::{Interpreter, Memory, DEFAULT_FUEL};

use crate::input::{read_verified_module, select_function};

/// Run a function in the reference interpreter
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  lanes interp examples/mandelbrot.lir --function mandel 0.25 0.5 100\n  lanes interp sum.lir 'buf[i32: 1, 2, 3, 4]' 4 --dump-buffers\n  lanes interp f.lir -- -1 2   (use -- before negative numbers)"
)]
pub struct InterpArgs {
    /// The .lir file (`-` for standard input)
    pub file: PathBuf,
    /// Arguments, one per parameter: 7, -1.5, true, '<1, 2>', 'buf[i32: 1, 2]', 'buf[f32 x 8]',
    /// 'buf[f32 @ data.bin]' (a file of little-endian elements)
    pub args: Vec<String>,
    /// The function to run (default: the only one in the file)
    #[arg(short, long)]
    pub function: Option<String>,
    /// Instruction budget; running out is an error
    #[arg(long, default_value_t = DEFAULT_FUEL)]
    pub fuel: u64,
    /// Print the final contents of every buffer argument
    #[arg(long)]
    pub dump_buffers: bool,
    /// Print the number of instructions executed to standard error
    #[arg(long)]
    pub stats: bool,
}

pub fn run(args: &InterpArgs) -> Result<()> {
    let module = read_verified_module(&args.file)?;
    let id = select_function(&module, args.function.as_deref(), &args.file)?;
    let func = module
        .function(id)
        .context("selected function has no body")?;
    let specs = parse_args(&args.args).map_err(|e| anyhow!("bad argument: {e}"))?;
    let mut mem = Memory::new();
    let params = func.signature().params;
    let bound = bind_args(&func.name, &specs, &params, &mut mem).map_err(|e| anyhow!("{e}"))?;
    let interp = Interpreter::new(&module).fuel(args.fuel);
    let (result, stats) = interp.call_with_stats(id, &bound.values, &mut mem);
    let result = result.map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    let mut out = String::new();
    match result {
        Some(v) => writeln!(out, "{v}")?,
        None => writeln!(out, "(no result)")?,
    }
    if args.dump_buffers {
        for (i, buf) in bound.buffers.iter().enumerate() {
            let lanes = mem
                .read_array(buf.ptr, buf.elem, buf.len)
                .map_err(|e| anyhow!("cannot read back buffer {i}: {e}"))?;
            let items: Vec<String> = lanes.iter().map(ToString::to_string).collect();
            writeln!(out, "buf{i} = [{}: {}]", buf.elem, items.join(", "))?;
        }
    }
    print!("{out}");
    if args.stats {
        eprintln!(
            "{} instructions, {} calls, depth {}",
            stats.insts, stats.calls, stats.max_depth
        );
    }
    Ok(())
}
