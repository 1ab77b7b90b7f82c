//! lanes-cl end to end: OpenCL C kernels built, run on the thread pool, and compared with
//! results computed independently in Rust.

mod basics;
mod kernels;
