//! Errors of the LLVM bridge, one enum per direction plus the driver's.
//!
//! The contract is that anything lanes cannot translate is an error naming the function,
//! the instruction as printed, and the source line when debug information exists — never
//! a panic. [`ImportError`] carries exactly those fields.

use std::path::PathBuf;

/// Something lanes IR cannot represent, found while reading LLVM IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}\n    {inst}", func_part(func), line_part(.file, *.line))]
pub struct ImportError {
    /// The LLVM function, if the problem is inside one.
    pub func: Option<String>,
    /// The offending LLVM instruction (or global, or type), printed as LLVM assembly.
    pub inst: String,
    /// Source file of the debug location, if any.
    pub file: Option<String>,
    /// Source line from debug info, 0 if unknown.
    pub line: u32,
    pub message: String,
}

fn func_part(func: &Option<String>) -> String {
    match func {
        Some(f) => format!("in function @{f}"),
        None => "at module level".to_string(),
    }
}

fn line_part(file: &Option<String>, line: u32) -> String {
    match (file, line) {
        (_, 0) => String::new(),
        (Some(f), l) => format!(" ({f}:{l})"),
        (None, l) => format!(" (line {l})"),
    }
}

/// A lanes IR construct the exporter cannot express in LLVM IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("export of @{func}: {message} (in `{inst}`)")]
pub struct ExportError {
    pub func: String,
    pub inst: String,
    pub message: String,
}

/// Errors of the whole bridge: driver, import, export, optimization, emission, JIT.
#[derive(Debug, thiserror::Error)]
pub enum LlvmError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error("the imported module does not verify:\n{0}")]
    Verify(String),
    #[error("clang-19 failed on {path}:\n{stderr}")]
    Clang { path: PathBuf, stderr: String },
    #[error("cannot run {program}: {message}")]
    Spawn { program: String, message: String },
    #[error("unsupported input file {0} (expected .c, .cpp, .cc, .cxx, .cl, .ll or .bc)")]
    UnknownInput(PathBuf),
    #[error("cannot read {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("LLVM: {0}")]
    Llvm(String),
    #[error(transparent)]
    Target(#[from] crate::target::TargetError),
    #[error("JIT: no function @{0}")]
    NoSuchFunction(String),
    #[error("JIT: {0}")]
    Jit(String),
}
