//! Helpers shared by the round-trip tests: a scratch file and the exporter's text.

use std::path::PathBuf;

use lanes_llvm::{export_module, Context};

/// Writes `text` to a scratch file `name` (one directory per test binary and process).
pub fn tmp(name: &str, text: &str) -> PathBuf {
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("lanes-llvm-{bin}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// The module's exported LLVM text (unoptimized), verified.
pub fn exported(m: &lanes_ir::Module) -> String {
    let ctx = Context::create();
    let llm = export_module(&ctx, m, "round-trip").expect("export");
    llm.verify().expect("valid LLVM");
    llm.print_to_string().to_string()
}
