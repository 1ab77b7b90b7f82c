//! Why `lanes bench wfv`, or one kernel of it, could not run: each error names the kernel
//! and build it concerns, so that one failure is reported without losing the others.

use std::path::PathBuf;

use lanes_llvm::target::TargetError;

/// Why the benchmark, or one kernel of it, could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}")]
    Tool(String),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("{kernel} ({build}): lanes could not vectorize it: {message}")]
    Vectorize {
        kernel: String,
        build: String,
        message: String,
    },
    #[error("{kernel} ({build}): ISPC could not compile its twin: {message}")]
    Ispc {
        kernel: String,
        build: String,
        message: String,
    },
    #[error("{kernel}: {message}")]
    Run { kernel: String, message: String },
    #[error("{kernel}: build {build} computed checksum {got}, the scalar reference {want}")]
    Checksum {
        kernel: String,
        build: String,
        got: f64,
        want: f64,
    },
    #[error("no kernel `{0}` (the kernels are {1})")]
    UnknownKernel(String, String),
}
