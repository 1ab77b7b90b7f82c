//! One module per subcommand.

pub mod cfg;
pub mod fmt;
pub mod interp;
pub mod verify;
