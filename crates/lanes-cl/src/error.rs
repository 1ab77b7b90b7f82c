//! What can go wrong building and running OpenCL programs, as the user should read it.

use std::path::PathBuf;

/// Errors of lanes-cl.
#[derive(Debug, thiserror::Error)]
pub enum ClError {
    /// clang rejected the program (its diagnostics carry file:line:column).
    #[error(transparent)]
    Compile(#[from] lanes_llvm::LlvmError),
    #[error("cannot read {path}: {message}")]
    Io { path: PathBuf, message: String },
    /// A builtin the program calls that lanes does not implement.
    #[error("{file}:{line}: kernel `{kernel}` calls the OpenCL builtin `{builtin}`, which lanes does not implement")]
    MissingBuiltin {
        file: String,
        line: u32,
        kernel: String,
        builtin: String,
    },
    #[error("no kernel named `{name}` in the program (its kernels: {available})")]
    UnknownKernel { name: String, available: String },
    #[error("kernel `{kernel}` takes {expected} arguments, {given} were given")]
    ArgumentCount {
        kernel: String,
        expected: usize,
        given: usize,
    },
    #[error("argument {index} (`{name}`) of kernel `{kernel}`: {message}")]
    Argument {
        kernel: String,
        index: usize,
        name: String,
        message: String,
    },
    /// An argument written as text that does not parse ([`crate::arg_spec`]).
    #[error("argument `{text}`: {message}")]
    ArgSpec { text: String, message: String },
    /// An NDRange that OpenCL 1.2 rejects (`clEnqueueNDRangeKernel`'s error cases).
    #[error("bad NDRange for kernel `{kernel}`: {message}")]
    Range { kernel: String, message: String },
    /// Work-items of one group reached different barriers (or some a barrier and
    /// others the end): OpenCL leaves this undefined, pocl hangs, lanes stops.
    #[error("kernel `{kernel}`: the work-items of work-group {group:?} did not all reach the same barrier {after}; every work-item of a group must execute each barrier (OpenCL 1.2 §6.12.8)")]
    BarrierDivergence {
        kernel: String,
        group: [u64; 3],
        after: String,
    },
    /// A checked launch found the kernel doing something undefined (an access outside
    /// every buffer, say).
    #[error("{at}: kernel `{kernel}`: {message}")]
    Checked {
        kernel: String,
        at: String,
        message: String,
    },
    /// The vectorizer declined a continuation (it names the reason).
    #[error("kernel `{kernel}`: {message}")]
    Vectorize { kernel: String, message: String },
    /// A kernel lanes cannot run (a by-value struct argument, say).
    #[error("kernel `{kernel}`: {message}")]
    Unsupported { kernel: String, message: String },
    /// The thread pool could not be started.
    #[error("cannot start {threads} threads: {message}")]
    Threads { threads: usize, message: String },
    /// A failure inside lanes (a bug): the message says where.
    #[error("internal error: {0}")]
    Internal(String),
}
