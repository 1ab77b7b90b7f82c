//! Errors of the pipeline: the LLVM bridge's, the target's, and the vectorizer's with the
//! function they concern.

use lanes_llvm::c_params::CParamError;
use lanes_llvm::target::TargetError;
use lanes_llvm::LlvmError;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error(transparent)]
    Llvm(#[from] LlvmError),
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A function lanes-wfv declined or failed to vectorize.
    #[error("@{function}: {message}")]
    Vectorize { function: String, message: String },
    /// The request names a function the input does not define, or none.
    #[error("{0}")]
    Function(String),
    /// `--shapes` does not fit the function.
    #[error("bad --shapes: {0}")]
    Shapes(String),
    /// The C parameters behind the function's LLVM parameters could not be read.
    #[error("--shapes by C parameter: {0}")]
    CParams(#[from] CParamError),
    /// A variant name clang announced that contradicts its function.
    #[error("{0}")]
    Variant(String),
    /// The training run of a profile-guided build failed (bad arguments, a fault).
    #[error("@{function}: the profile run failed: {message}")]
    Profile { function: String, message: String },
    /// lanes produced IR that does not verify: a bug of lanes, not of the input.
    #[error("internal error: {0}")]
    Internal(String),
}
