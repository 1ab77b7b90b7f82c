//! `lanes verify`: parse and verify a `.lir` file, listing every error.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::input::read_verified_module;

/// Parse and verify a .lir file (SSA dominance, types, φs, terminators)
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The .lir file (`-` for standard input)
    pub file: PathBuf,
    /// Print nothing on success
    #[arg(short, long)]
    pub quiet: bool,
}

pub fn run(args: &VerifyArgs) -> Result<()> {
    let module = read_verified_module(&args.file)?;
    if !args.quiet {
        let n = module.functions().count();
        println!(
            "{}: ok ({n} function{})",
            args.file.display(),
            if n == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
