//! The LLVM 19 bridge of lanes: the only crate that links LLVM (ARCHITECTURE.md, "Layers").
//!
//! - [`clang`]: runs clang-19 on C, C++ and OpenCL C sources;
//! - [`c_params`]: which LLVM parameters carry each C parameter (clang's ABI lowering);
//! - [`import`]: LLVM IR (from clang, `.ll` or `.bc`) → verified lanes IR;
//! - [`export`]: lanes IR → LLVM IR, scalar and vector;
//! - [`pipeline`]: the new pass manager's `default<On>` with LLVM's vectorizers on or off,
//!   after which each gather and scatter gets its address computation in its own block
//!   (module `gather_addresses`), so that instruction selection sees 32-bit indices;
//! - [`emit`]: target machines and object / assembly / LLVM text output;
//! - [`jit`]: runs exported functions by name from Rust;
//! - [`target`]: the target (triple, CPU, features, natural vector width) every stage asks;
//! - [`driver`]: the `lanes import` and `lanes compile` flows on files.
//!
//! Everything below this crate (IR, analyses, interpreter, vectorizers) builds and tests
//! without LLVM. The tests prove the bridge against the interpreter: export + JIT on
//! generated programs (`tests/it/jit_vs_interp.rs`), export → import round trips
//! (`tests/it/export_import.rs`), and the C corpus `corpus/c` checked three ways — clang-19
//! native, `lanes compile` objects, interpreter (`tests/it/corpus.rs`).

mod atomics;
pub mod branch_alignment;
pub mod c_params;
pub mod clang;
pub mod code_cost;
pub mod driver;
pub mod emit;
pub mod error;
pub mod export;
mod fast_math;
mod gather_addresses;
pub mod import;
pub mod jit;
mod llvm;
pub mod loopmd;
pub mod opencl;
pub mod pipeline;
pub mod target;

pub use error::{ExportError, ImportError, LlvmError};
pub use export::{export_module, export_module_with, ExportOptions};
pub use import::import_module;
pub use inkwell;
pub use inkwell::context::Context;
