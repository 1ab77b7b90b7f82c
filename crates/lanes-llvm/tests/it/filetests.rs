//! Golden filetests of the export (`filetests/export/*.lir`): each file's lanes IR and,
//! after `; expect:`, the LLVM IR the exporter makes of it (unoptimized). They pin down how
//! lanes semantics are spelled in LLVM: masked shift amounts, saturating conversions,
//! minNum/maxNum, `i1` memory as bytes, vector intrinsics, φ edges, loop hints, ABI
//! attributes. `LANES_BLESS=1` rewrites the expected sections after a deliberate change.

use std::path::Path;

use lanes_ir::filetest::{run_golden, FileTest};
use lanes_llvm::{export_module, Context};

fn export_text(test: &FileTest) -> Result<String, String> {
    let module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
    lanes_ir::verifier::verify_module(&module).map_err(|e| e.to_string())?;
    let ctx = Context::create();
    let llm = export_module(&ctx, &module, "filetest").map_err(|e| e.to_string())?;
    llm.verify().map_err(|e| e.to_string())?;
    // The function definitions and metadata; intrinsic declarations and attribute groups
    // are implied by the calls.
    let text = llm.print_to_string().to_string();
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        inside |= line.starts_with("define ");
        if inside || line.starts_with('!') || line.starts_with("@") {
            out.push(line);
        }
        if line == "}" {
            inside = false;
            out.push("");
        }
    }
    Ok(out.join("\n").trim().to_string())
}

#[test]
fn export_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests/export");
    run_golden(&dir, export_text).assert_ok();
}
