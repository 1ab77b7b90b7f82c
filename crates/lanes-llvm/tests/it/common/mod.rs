//! Helpers shared by the round-trip tests: a scratch file and the exporter's text.

use lanes_llvm::{export_module, Context};

pub use lanes_test_support::scratch_file as tmp;

/// The module's exported LLVM text (unoptimized), verified.
pub fn exported(m: &lanes_ir::Module) -> String {
    let ctx = Context::create();
    let llm = export_module(&ctx, m, "round-trip").expect("export");
    llm.verify().expect("valid LLVM");
    llm.print_to_string().to_string()
}
