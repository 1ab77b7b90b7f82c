//! The LLVM 19 bridge of lanes: the only crate that links LLVM (ARCHITECTURE.md, "Layers").
//!
//! - [`clang`]: runs clang-19 on C, C++ and OpenCL C sources;
//! - [`import`]: LLVM IR (from clang, `.ll` or `.bc`) → verified lanes IR;
//! - [`export`]: lanes IR → LLVM IR, scalar and vector;
//! - [`pipeline`]: the new pass manager's `default<On>` with LLVM's vectorizers on or off;
//! - [`emit`]: target machines and object / assembly / LLVM text output;
//! - [`jit`]: runs exported functions by name from Rust.

pub mod clang;
pub mod driver;
pub mod emit;
pub mod error;
pub mod export;
pub mod import;
pub mod jit;
mod llvm;
mod loopmd;
pub mod pipeline;

pub use error::{ExportError, ImportError, LlvmError};
pub use export::export_module;
pub use import::import_module;
pub use inkwell;
pub use inkwell::context::Context;
