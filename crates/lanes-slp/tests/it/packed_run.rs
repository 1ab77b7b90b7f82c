//! The differential step the generated-program tests share: a C file imported by
//! clang-19 -O2 (vectorizers off), its function `f` SuperVectorized and verified, and
//! run against the scalar `f` — same result, same memory, the same bytes read and
//! written (a masked-off lane touches nothing).

use std::path::Path;

use lanes_interp::differential::{compare_runs_checking, small_arguments, TraceCheck};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::verifier::verify_function;
use lanes_ir::write::function_to_string;
use lanes_slp::{supervectorize, SlpError, SlpOptions, SlpReport};

/// Writes `src` to `path`, packs its `f` for `bits`-bit registers and compares `runs`
/// runs (arguments from `seed`, at most `fuel` steps each). The report and how many runs
/// were compared (`None` where clang's output has integers of odd widths, which lanes
/// does not import yet); the error where SuperVectorization declined.
pub fn pack_and_compare(
    path: &Path,
    src: &str,
    seed: u64,
    bits: u32,
    runs: u64,
    fuel: u64,
) -> Result<Option<(SlpReport, u64)>, SlpError> {
    std::fs::write(path, src).expect("scratch");
    let m = match lanes_llvm::driver::import_file(path, &Default::default()) {
        Ok(m) => m,
        Err(e) if e.to_string().contains("has no lanes equivalent") => return Ok(None),
        Err(e) => panic!("seed {seed}: {e}\n{src}"),
    };
    let id = m.func_by_name("f").expect("f");
    let f = m.function(id).expect("body");
    let (v, report) = supervectorize(
        f,
        &SlpOptions {
            register_bits: bits,
        },
    )?;
    if let Err(e) = verify_function(&m, &v) {
        panic!("seed {seed}: {e}\n{src}\n{}", function_to_string(&m, &v));
    }
    let mut t = m.clone();
    *t.function_mut(id).expect("defined") = v;
    let mut compared = 0;
    for run in 0..runs {
        let alloc = |mem: &mut Memory| small_arguments(f, 512, seed * 31 + run, mem);
        let item = WorkItemContext::one_dim(0, 0, 1, 1);
        let what = format!("seed {seed} run {run} ({bits}-bit registers)\n{src}");
        if compare_runs_checking(
            &m,
            &t,
            id,
            &alloc,
            &item,
            fuel,
            TraceCheck::Footprint,
            &what,
        ) {
            compared += 1;
        }
    }
    Ok(Some((report, compared)))
}
