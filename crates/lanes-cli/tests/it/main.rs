//! The integration tests of `lanes-cli`, one test binary (modules below, one per concern):
//! the `lanes` command line: every subcommand run as a user would, on C, OpenCL C, LLVM IR and lanes IR, linked and run natively where it makes code.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-cli --test it <module>::`.

mod common;

mod analyze;
mod bench_reconverge;
mod bench_slp;
mod bench_wfv;
mod branch_alignment;
mod c_shapes;
mod cli;
mod csmith;
mod declare_simd;
mod driver_conventions;
mod fp_contract;
mod kernel_corpus;
mod large_functions;
mod llvm_commands;
mod omp_simd;
mod opencl;
mod profile_guided;
mod slp;
mod table1;
mod target;
mod two_index;
mod veclib;
mod vectorize;
mod vfabi_clang_caller;
