//! One module per subcommand.

pub mod analyze;
pub mod cfg;
pub mod fmt;
pub mod interp;
pub mod verify;
