//! Golden filetests of the shape and divergence analysis: every `.lir` file under
//! `filetests-shapes/` (a directory of its own, so the analysis filetests of
//! `filetests/` and these never read each other's expectations) is parsed, each defined
//! function analysed with its parameter attributes, and the text report
//! (`lanes_analysis::shapes::report::text`, the output of `lanes analyze`) compared with
//! the file's `; expect:` section. `LANES_BLESS=1` rewrites the sections; review the diff.

use std::path::Path;

use lanes_analysis::shapes::{report, ShapeAnalysis};
use lanes_ir::filetest::{run_golden, FileTest};

fn produce(test: &FileTest) -> Result<String, String> {
    let module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
    lanes_ir::verifier::verify_module(&module).map_err(|e| format!("{e:?}"))?;
    let analysis = ShapeAnalysis::new(&module);
    let mut out = String::new();
    for (id, func) in module.functions() {
        let info = analysis.analyze(id, &[]).map_err(|e| e.to_string())?;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&report::text(func, &info));
    }
    if out.is_empty() {
        return Err("no function in the file".to_string());
    }
    Ok(out)
}

#[test]
fn shape_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests-shapes");
    run_golden(&dir, produce).assert_ok();
}
