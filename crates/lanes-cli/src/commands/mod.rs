//! One module per subcommand.

pub mod analyze;
pub mod cfg;
pub mod compile;
pub mod declare_simd;
pub mod fmt;
pub mod import;
pub mod interp;
pub mod masked_variant;
pub mod remarks;
pub mod target_args;
pub mod vectorize;
pub mod verify;
