//! The LLVM 19 bridge.
pub use inkwell;
