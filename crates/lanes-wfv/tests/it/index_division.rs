//! The index-division rewrite (lanes-wfv `index_division`) fires on
//! `tests/kernels/index_division.lir` — one group per dividend, divisor and signedness —
//! and not under full if-conversion. Its meaning is checked where every kernel's is: at
//! width 1 (`kernels`), and widened at 4, 8 and 16 lanes against the lanes run one by one
//! (`widen`, which also runs generated programs dividing `global_id`). Natively, lanes-cli's
//! `vectorize` tests run Mandelbrot's `i % 7` and `i / 7` at 4 lanes (the rewritten path)
//! and at 8 to 64 (the original one) against clang-19's scalar build.

use crate::common;

use lanes_wfv::Mode;

fn passes_run(mode: Mode) -> Vec<String> {
    let path = common::kernel_path("index_division.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (id, _) = module.functions().next().unwrap();
    let shapes = crate::widen::kernel_gens(&module, id).1;
    let mut passes = Vec::new();
    let mut check = |pass: &str, f: &lanes_ir::Function| {
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
    let path = common::kernel_path("index_division.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (id, _) = module.functions().next().unwrap();
    let shapes = crate::widen::kernel_gens(&module, id).1;
    let what = "index_division";
    let (p, _) = common::prepared_module(&module, id, &shapes, Mode::PARTIAL, what);
    // Four groups (i32 signed, i32 unsigned, i64 signed, i64 unsigned), each behind a
    // `num_lanes` test that partial linearization keeps.
    let tests = p
        .func
        .dfg
        .insts()
        .filter(|&i| p.func.layout.inst_block(i).is_some())
        .filter(|&i| {
            matches!(
                p.func.dfg.inst(i),
                lanes_ir::InstData::Intrinsic {
                    id: lanes_ir::Intrinsic::NumLanes,
                    ..
                }
            )
        })
        .count();
    assert_eq!(
        tests,
        4,
        "{}",
        lanes_ir::write::function_to_string(&module, &p.func)
    );
    assert_eq!(p.stats.lost, 0);
}

/// `(i / w) % h` and `(i / w) / h` are computed from lane 0's quotient with the group's
/// own: after the rewrite, the only division left whose dividend is the group's quotient
/// (the φ joining its fast and slow sides) is the remainder that follows a store.
#[test]
fn a_quotient_divided_again_joins_its_group_unless_a_store_intervenes() {
    let path = common::kernel_path("index_division_chained.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (id, _) = module.functions().next().unwrap();
    let shapes = crate::widen::kernel_gens(&module, id).1;
    let (p, _) = common::prepared_module(&module, id, &shapes, Mode::PARTIAL, "chained");
    let f = &p.func;
    let divisions_of_phis: Vec<_> = f
        .layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).iter().copied())
        .filter(|&i| match f.dfg.inst(i) {
            lanes_ir::InstData::Binary { op, args, .. } => {
                matches!(
                    op,
                    lanes_ir::BinaryOp::SDiv
                        | lanes_ir::BinaryOp::SRem
                        | lanes_ir::BinaryOp::UDiv
                        | lanes_ir::BinaryOp::URem
                ) && f
                    .dfg
                    .def_inst(args[0])
                    .is_some_and(|d| matches!(f.dfg.inst(d), lanes_ir::InstData::Phi { .. }))
            }
            _ => false,
        })
        .collect();
    let text = lanes_ir::write::function_to_string(&module, f);
    assert_eq!(divisions_of_phis.len(), 1, "{text}");
    // Two groups (signed and unsigned), each behind one test.
    let tests = f
        .layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).iter().copied())
        .filter(|&i| {
            matches!(
                f.dfg.inst(i),
                lanes_ir::InstData::Intrinsic {
                    id: lanes_ir::Intrinsic::NumLanes,
                    ..
                }
            )
        })
        .count();
    assert_eq!(tests, 2, "{text}");
}

/// The chained kernel on 64 argument seeds at 4, 8 and 16 lanes (the fast side runs where
/// the first divisor is at least the lanes and the second positive, about half of them),
/// against the lanes run one by one.
#[test]
fn chained_divisions_widened_equal_lanes_run_one_by_one() {
    let path = common::kernel_path("index_division_chained.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (id, _) = module.functions().next().unwrap();
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
    // A zero second divisor traps (an eighth of the seeds); the rest compare.
    eprintln!("{tally:?}");
    assert!(tally.compared > 120, "{tally:?}");
}
