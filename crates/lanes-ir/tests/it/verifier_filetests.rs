//! Golden verifier filetests: `filetests/verifier/*.lir` hold IR with the verifier's
//! complete report as the expected section (`LANES_BLESS=1` rewrites it).

use std::path::Path;

use lanes_ir::filetest::run_golden;
use lanes_ir::verifier::verify_module;

#[test]
fn verifier_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests/verifier");
    run_golden(&dir, |test| {
        let module = match lanes_ir::parse_module(&test.source) {
            Ok(m) => m,
            Err(e) => return Ok(format!("parse error: {e}")),
        };
        Ok(match verify_module(&module) {
            Ok(()) => "ok".to_string(),
            Err(errors) => errors.to_string(),
        })
    })
    .assert_ok();
}
