//! `lanes import`: C, C++, OpenCL C (through clang-19), `.ll` or `.bc` → verified `.lir`.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use crate::output::{check_output_name, write_bytes, OutputKind};
use clap::Args;

use lanes_llvm::clang::ClangOptions;

/// Options handed to clang-19, shared by `import` and `compile`.
#[derive(Args, Debug, Clone, Default)]
pub struct ClangArgs {
    /// Add a directory to the include path
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE)
    #[arg(short = 'D', value_name = "MACRO")]
    pub define: Vec<String>,
    /// Undefine a macro
    #[arg(short = 'U', value_name = "MACRO")]
    pub undefine: Vec<String>,
    /// Language standard (c11, c++17, CL2.0, ...)
    #[arg(long = "std", value_name = "STD")]
    pub std: Option<String>,
    /// Extra argument passed to clang verbatim (repeatable)
    #[arg(long = "clang-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub clang_arg: Vec<String>,
}

impl ClangArgs {
    pub fn options(&self, opt: Option<String>) -> ClangOptions {
        ClangOptions {
            includes: self.include.clone(),
            defines: self.define.clone(),
            std: self.std.clone(),
            opt,
            extra: self
                .undefine
                .iter()
                .map(|m| format!("-U{m}"))
                .chain(self.clang_arg.iter().cloned())
                .collect(),
        }
    }
}

/// Import C, C++, OpenCL C (via clang-19), LLVM text (.ll) or bitcode (.bc) into lanes IR
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The input file
    pub file: PathBuf,
    /// Output .lir file (standard output if absent or `-`)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Optimization level clang runs before the import (0, 1, 2, 3, s, z)
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: String,
    #[command(flatten)]
    pub clang: ClangArgs,
}

pub fn run(args: &ImportArgs) -> Result<()> {
    let module =
        lanes_llvm::driver::import_file(&args.file, &args.clang.options(Some(args.opt.clone())))
            .with_context(|| format!("{}: import failed", args.file.display()))?;
    let text = lanes_ir::write::module_to_string(&module);
    match &args.output {
        Some(path) => {
            check_output_name(path, OutputKind::Lir)?;
            write_bytes(path, text.as_bytes())
        }
        None => write_bytes(std::path::Path::new("-"), text.as_bytes()),
    }
}
