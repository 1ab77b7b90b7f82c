//! The lanes compiler pipeline, as a library: what `lanes compile` and `lanes vectorize`
//! do, behind plain request types, so that the command line, the coming OpenCL runtime,
//! the benchmark harnesses and tests all run the same pipeline.
//!
//! - [`compile()`]: a translation unit (C, C++, OpenCL C, `.ll`, `.bc`, `.lir`) to an object,
//!   assembly, LLVM IR or bitcode, as a drop-in for `clang-19 -c`. Functions lanes IR
//!   expresses go through lanes — parallel loops vectorized as outer loops (PLDI'18 §7),
//!   `#pragma omp declare simd` variants defined by whole-function vectorization — and the
//!   others stay LLVM IR; [`Remark`]s say which and why.
//! - [`vectorize()`]: one SPMD function to its vector-function-ABI variant and, where it
//!   has an instance index, an `F_spmd` launcher (PLDI'18 §3–6, CC'12 §3.3); its
//!   `--shapes` count the parameters as written in C ([`param_shapes`]).
//!
//! Both resolve one [`lanes_llvm::target::Target`] from the request, which decides the
//! width, the variants' ISA letters and the code generator. Errors are [`DriverError`];
//! notes meant for the user (a variant not emitted, a vector library not available) come
//! back as strings in the result rather than being printed here.

pub mod bench_reconverge;
pub mod bench_slp;
pub mod bench_wfv;
pub mod compile;
mod declare_simd;
mod error;
pub mod param_shapes;
pub mod phases;
pub mod remarks;
pub mod table1;
pub mod vectorize;

pub use compile::{compile, CompileRequest, Compiled};
pub use error::DriverError;
pub use param_shapes::parameter_shapes;
pub use phases::PhaseTimes;
pub use remarks::{Remark, RemarkKind};
pub use table1::{table1_rows, table1_text, Table1Row};
pub use vectorize::{
    select_function, spmd_module, vectorize, Output, TrainingRun, VectorizeRequest, Vectorized,
};

use lanes_llvm::clang::ClangOptions;
use lanes_llvm::export::VecLib;
use lanes_llvm::target::{Target, TargetRequest};

/// What both pipelines settle first: the resolved target, clang's options for it (the
/// optimization level, the target's own arguments, `-fveclib=`), the vector library lanes'
/// export calls, and notes for the user.
struct Setup {
    target: Target,
    clang: ClangOptions,
    veclib: Option<VecLib>,
    notes: Vec<String>,
}

fn setup(
    clang: &ClangOptions,
    target: &TargetRequest,
    opt: u8,
    veclib: Option<&str>,
) -> Result<Setup, DriverError> {
    let resolved = Target::resolve(target)?;
    let mut clang = clang.clone();
    clang.opt.get_or_insert_with(|| opt.to_string());
    // The front end lowers the C ABI for the same target.
    clang.extra.extend(target.clang_args());
    let mut notes = Vec::new();
    let veclib = veclib.and_then(|lib| {
        // clang gets it too, as `clang -fveclib=` would.
        clang.extra.push(format!("-fveclib={lib}"));
        vector_library(lib, &resolved, &mut notes)
    });
    Ok(Setup {
        target: resolved,
        clang,
        veclib,
        notes,
    })
}

/// The vector library `-fveclib=<lib>` selects for lanes' export; a library lanes cannot
/// use for `target` is noted in `notes` and vector math stays LLVM intrinsics.
fn vector_library(lib: &str, target: &Target, notes: &mut Vec<String>) -> Option<VecLib> {
    VecLib::from_clang_name(lib, target.triple.as_deref(), &target.feature_string()).unwrap_or_else(
        |e| {
            notes.push(format!(
                "warning: -fveclib={lib}: {e}; vector math stays LLVM intrinsics"
            ));
            None
        },
    )
}
