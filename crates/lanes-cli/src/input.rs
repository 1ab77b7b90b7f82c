//! Reading `.lir` input for the subcommands: one place that turns a path into a parsed
//! (and, where asked, verified) module, with errors that name the file, line and column.

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use lanes_ir::verifier::verify_module;
use lanes_ir::{FuncId, Module};

/// Reads and parses `path` (`-` reads standard input).
pub fn read_module(path: &Path) -> Result<Module> {
    let text = if path == Path::new("-") {
        std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    lanes_ir::parse_module(&text).map_err(|e| anyhow!("{}", e.with_file(path.display())))
}

/// Reads, parses and verifies `path`; verifier errors are listed one per line.
pub fn read_verified_module(path: &Path) -> Result<Module> {
    let module = read_module(path)?;
    if let Err(errors) = verify_module(&module) {
        let n = errors.0.len();
        let list: Vec<String> = errors
            .0
            .iter()
            .map(|e| format!("{}: {e}", path.display()))
            .collect();
        bail!(
            "{}\n{}: {n} verifier error{} (fix the IR, or run `lanes verify` for the list)",
            list.join("\n"),
            path.display(),
            if n == 1 { "" } else { "s" }
        );
    }
    Ok(module)
}

/// The function named `name` (with or without a leading `@`), or the only defined one;
/// errors name `path`.
pub fn select_function(module: &Module, name: Option<&str>, path: &Path) -> Result<FuncId> {
    lanes_driver::select_function(module, name).map_err(|e| anyhow!("{}: {e}", path.display()))
}
