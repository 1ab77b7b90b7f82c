//! One module per subcommand.

pub mod analyze;
pub mod bench;
pub mod bench_cl;
pub mod bench_plot;
pub mod bench_reconverge;
pub mod bench_slp;
pub mod cfg;
pub mod cl;
pub mod compile;
pub mod fmt;
pub mod import;
pub mod interp;
pub mod target_args;
pub mod vectorize;
pub mod verify;
