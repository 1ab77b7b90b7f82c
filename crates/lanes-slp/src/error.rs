//! Why a function could not be taken into Predicated SSA or brought back.

use lanes_ir::Block;
use lanes_wfv::WfvError;

/// Why a function could not be converted, verified or lowered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlpError {
    #[error("@{0} has no body")]
    NoBody(String),
    /// Normalization (one exit, loop simplify, LCSSA) refused the function; irreducible
    /// control flow is the usual reason.
    #[error("{0}")]
    Normalize(#[from] WfvError),
    #[error(
        "@{func}: the code from {block} never reaches the function's return (a loop \
         without exit); Predicated SSA needs every loop to be able to end"
    )]
    NeverReturns { func: String, block: Block },
    #[error("@{func}: {what} in {block} is not supported in Predicated SSA yet")]
    Unsupported {
        func: String,
        block: Block,
        what: String,
    },
    /// A control predicate, written out as a formula, would be too large to branch on:
    /// lowering tests predicates by short-circuit branches, which repeat the parts a
    /// predicate shares.
    #[error(
        "@{func}: its control flow gives a control predicate of more than {terms} terms; \
         Predicated SSA declines it (the function is compiled without SuperVectorization)"
    )]
    TooComplex { func: String, terms: u64 },
    /// The Predicated SSA verifier found a broken invariant.
    #[error("@{func}: invalid Predicated SSA: {message}")]
    Invalid { func: String, message: String },
}
