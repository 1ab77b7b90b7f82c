//! OpenCL C on CPUs (Karrenberg & Hack, CC'12): a kernel compiler that vectorizes
//! kernels across work-items, barriers by continuations, and an executor that runs
//! work-groups on all cores, with a Rust host API.
//!
//! - [`compile`]: OpenCL C through clang-19 and the builtin library ([`builtins`],
//!   [`lanes_llvm::opencl`]) to lanes IR; per kernel the work-item function
//!   ([`work_items`], [`local_memory`]), its continuations ([`continuations`]), their
//!   vector variants by lanes' whole-function vectorizer, and the compiled work-item
//!   loops ([`work_item_loops`]); barriers divergent control flow may skip are warned
//!   about ([`barrier_check`]); atomics on `__local` memory, which one thread owns, are
//!   plain read-modify-writes ([`local_atomics`]);
//! - [`executor`]: work-groups over a rayon pool, continuations in turn, barrier
//!   divergence reported; [`checked`]: the same on the interpreter, every access
//!   checked;
//! - [`arg_spec`]: arguments written as text (`lanes cl run`); [`mod@bench`]: lanes against
//!   pocl;
//! - [`host`]: [`Context`], [`Program`], [`Kernel`], [`Buffer`], [`Arg`], [`NdRange`].

pub mod aligned;
pub mod arg_spec;
pub mod barrier_check;
pub mod bench;
pub mod builtins;
pub mod checked;
pub mod compile;
pub mod continuations;
mod error;
pub mod executor;
pub mod group_context;
pub mod host;
pub mod local_atomics;
pub mod local_memory;
pub mod range;
pub mod thread_pool;
pub mod work_item_loops;
pub mod work_items;

pub use compile::{compile_program, BuildOptions, CompiledProgram, KernelInfo};
pub use error::ClError;
pub use host::{Arg, Buffer, Context, Element, Kernel, NdRange, Program};
pub use thread_pool::Affinity;
