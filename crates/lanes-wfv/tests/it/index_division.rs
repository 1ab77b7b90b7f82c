//! The index-division rewrite (lanes-wfv `index_division`) fires on
//! `tests/kernels/index_division.lir` — one group per dividend, divisor and signedness —
//! and not under full if-conversion. Its meaning is checked where every kernel's is: at
//! width 1 (`kernels`), and widened at 4, 8 and 16 lanes against the lanes run one by one
//! (`widen`, which also runs generated programs dividing `global_id`). Natively, lanes-cli's
//! `vectorize` tests run Mandelbrot's `i % 7` and `i / 7` at 4 lanes (the rewritten path)
//! and at 8 to 64 (the original one) against clang-19's scalar build. A quotient divided
//! again (`tests/kernels/index_division_chained.lir`) joins its group's fast side, checked
//! on 64 argument seeds at each width.

use crate::common;

use lanes_ir::{BinaryOp, Function, InstData, Intrinsic, Module};
use lanes_wfv::Mode;

/// The first function of kernel file `name`, its module and its argument shapes.
fn first_kernel(
    name: &str,
) -> (
    Module,
    lanes_ir::FuncId,
    Vec<Option<(lanes_ir::Shape, u32)>>,
) {
    let path = common::kernel_path(name);
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (id, _) = module.functions().next().unwrap();
    let shapes = crate::widen::kernel_gens(&module, id).1;
    (module, id, shapes)
}

/// The instructions of `f`'s blocks that `keep` accepts.
fn count_insts(f: &Function, keep: impl Fn(&InstData) -> bool) -> usize {
    f.layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).iter())
        .filter(|&&i| keep(f.dfg.inst(i)))
        .count()
}

/// The `num_lanes` queries of `f`: one per group's test.
fn lane_count_tests(f: &Function) -> usize {
    count_insts(f, |d| {
        matches!(
            d,
            InstData::Intrinsic {
                id: Intrinsic::NumLanes,
                ..
            }
        )
    })
}

fn passes_run(mode: Mode) -> Vec<String> {
    let (module, id, shapes) = first_kernel("index_division.lir");
    let mut passes = Vec::new();
    let mut check = |pass: &str, f: &Function| {
        common::verify(&module, f, pass);
        passes.push(pass.to_string());
    };
    lanes_wfv::prepare(&module, id, &shapes, mode, &mut check).unwrap();
    passes
}

#[test]
fn divisions_of_the_index_are_rewritten_under_partial_linearization_only() {
    assert!(passes_run(Mode::PARTIAL)
        .iter()
        .any(|p| p == "index_division"));
    assert!(!passes_run(Mode::FULL).iter().any(|p| p == "index_division"));
}

#[test]
fn each_group_gets_one_uniform_test() {
    let (module, id, shapes) = first_kernel("index_division.lir");
    let (p, _) = common::prepared_module(&module, id, &shapes, Mode::PARTIAL, "index_division");
    // Four groups (i32 signed, i32 unsigned, i64 signed, i64 unsigned), each behind a
    // `num_lanes` test that partial linearization keeps.
    let text = lanes_ir::write::function_to_string(&module, &p.func);
    assert_eq!(lane_count_tests(&p.func), 4, "{text}");
    assert_eq!(p.stats.lost, 0);
}

/// `(i / w) % h` and `(i / w) / h` are computed from lane 0's quotient with the group's
/// own: after the rewrite, the only division left whose dividend is the group's quotient
/// (the φ joining its fast and slow sides) is the remainder that follows a store.
#[test]
fn a_quotient_divided_again_joins_its_group_unless_a_store_intervenes() {
    let (module, id, shapes) = first_kernel("index_division_chained.lir");
    let (p, _) = common::prepared_module(&module, id, &shapes, Mode::PARTIAL, "chained");
    let f = &p.func;
    let divides_a_phi = |d: &InstData| match d {
        InstData::Binary { op, args, .. } => {
            matches!(
                op,
                BinaryOp::SDiv | BinaryOp::SRem | BinaryOp::UDiv | BinaryOp::URem
            ) && f
                .dfg
                .def_inst(args[0])
                .is_some_and(|d| matches!(f.dfg.inst(d), InstData::Phi { .. }))
        }
        _ => false,
    };
    let text = lanes_ir::write::function_to_string(&module, f);
    assert_eq!(count_insts(f, divides_a_phi), 1, "{text}");
    // Two groups (signed and unsigned), each behind one test.
    assert_eq!(lane_count_tests(f), 2, "{text}");
}

/// The chained kernel on 64 argument seeds at 4, 8 and 16 lanes (the fast side runs where
/// the first divisor is at least the lanes and the second positive, about half of them),
/// against the lanes run one by one.
#[test]
fn chained_divisions_widened_equal_lanes_run_one_by_one() {
    let (module, id, _) = first_kernel("index_division_chained.lir");
    let (gens, shapes) = crate::widen::kernel_gens(&module, id);
    let mut tally = crate::widen::Tally::default();
    for w in [4, 8, 16] {
        for seed in 0..64 {
            let what = format!("index_division_chained W={w} seed {seed}");
            crate::widen::differential(
                &module,
                id,
                &shapes,
                &gens,
                Mode::PARTIAL,
                w,
                seed,
                None,
                &mut tally,
                &what,
            );
        }
    }
    eprintln!("{tally:?}");
    // A zero second divisor traps (an eighth of the seeds); the rest compare.
    assert!(tally.compared > 120, "{tally:?}");
}
