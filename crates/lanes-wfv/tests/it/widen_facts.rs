//! What widening makes of specific kernels — the quality of the vector code, checked on
//! the instructions of the widened function:
//!
//! - contiguous accesses become vector loads and stores, not gathers (saxpy);
//! - accesses under a varying mask are masked (guarded load);
//! - a uniform address under a varying mask is loaded once, behind `any` (PLDI'18 Fig. 2
//!   style `varying_and_uniform`);
//! - the loop counter of Mandelbrot (PLDI'18 Fig. 9), which only feeds the uniform limit
//!   test and the tracked live-out, stays a scalar φ (CC'12 §3.3, "Optimizing Loop
//!   Induction Variables");
//! - varying arguments become vectors, uniform ones stay scalar.

use crate::common;

use lanes_ir::{Function, InstData, Intrinsic, Module, Type};
use lanes_wfv::{prepare, widen, Mode};

fn widened(file: &str, func: &str, mode: Mode) -> Function {
    let path = common::kernel_path(file);
    let module: Module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let id = module.func_by_name(func).unwrap();
    let p = prepare(&module, id, &[], mode, &mut |_, _| {}).unwrap();
    let f = widen(&module, &p, &[], 8).unwrap();
    lanes_ir::verifier::verify_function(&module, &f).unwrap();
    f
}

fn count(f: &Function, pred: impl Fn(&Function, &InstData, Option<Type>) -> bool) -> usize {
    f.layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).to_vec())
        .filter(|&i| {
            let ty = f.dfg.inst_result(i).map(|r| f.dfg.value_type(r));
            pred(f, f.dfg.inst(i), ty)
        })
        .count()
}

#[test]
fn contiguous_accesses_are_vector_loads_and_stores() {
    let f = widened("saxpy.lir", "saxpy", Mode::PARTIAL);
    let gathers = count(&f, |_, d, _| {
        matches!(d, InstData::Gather { .. } | InstData::Scatter { .. })
    });
    let vloads = count(&f, |_, d, t| {
        matches!(d, InstData::Load { .. }) && t.is_some_and(|t| t.is_vector())
    });
    let vstores = count(&f, |f, d, _| match d {
        InstData::Store { value, .. } => f.dfg.value_type(*value).is_vector(),
        _ => false,
    });
    assert_eq!(gathers, 0);
    assert_eq!(vloads, 2);
    assert_eq!(vstores, 1);
    // The uniform scalar argument stays scalar.
    assert_eq!(f.dfg.value_type(f.params[0].value), Type::F32);
}

#[test]
fn loads_under_varying_masks_are_masked() {
    let f = widened("wfv_diamonds.lir", "guarded_load", Mode::PARTIAL);
    let unmasked = count(&f, |_, d, t| {
        matches!(d, InstData::Load { .. }) && t.is_some_and(|t| t.is_vector())
    });
    let masked = count(&f, |_, d, _| {
        matches!(d, InstData::MaskedLoad { .. } | InstData::Gather { .. })
    });
    assert_eq!(unmasked, 0);
    assert_eq!(masked, 1);
}

#[test]
fn uniform_address_under_varying_mask_is_loaded_once_if_any_lane_is_active() {
    let f = widened("wfv_diamonds.lir", "varying_and_uniform", Mode::PARTIAL);
    let scalar_loads = count(&f, |_, d, t| {
        matches!(d, InstData::Load { .. }) && t.is_some_and(|t| !t.is_vector())
    });
    let anys = count(&f, |_, d, _| {
        matches!(
            d,
            InstData::Intrinsic {
                id: Intrinsic::Any,
                ..
            }
        )
    });
    assert_eq!(scalar_loads, 1);
    assert!(anys >= 1);
    assert_eq!(count(&f, |_, d, _| matches!(d, InstData::Gather { .. })), 0);
}

#[test]
fn mandelbrot_counter_stays_scalar() {
    for mode in [Mode::PARTIAL, Mode::FULL] {
        let f = widened("pldi18_fig9_mandelbrot.lir", "mandel", mode);
        let scalar_i32_phis = count(&f, |_, d, t| d.is_phi() && t == Some(Type::I32));
        assert!(
            scalar_i32_phis >= 1,
            "{mode:?}: the counter became a vector"
        );
        // The escape test is varying: the loop exits through `any` of the live mask.
        let anys = count(&f, |_, d, _| {
            matches!(
                d,
                InstData::Intrinsic {
                    id: Intrinsic::Any,
                    ..
                }
            )
        });
        assert!(anys >= 1);
        // Varying arguments are vectors.
        assert_eq!(
            f.dfg.value_type(f.params[0].value),
            Type::vector(8, lanes_ir::ScalarType::F32)
        );
        assert_eq!(f.dfg.value_type(f.params[2].value), Type::I32);
    }
}

#[test]
fn counter_feeding_only_a_varying_exit_stays_scalar() {
    // linear_search: `for (i = 0; i < n; i++) if (a[i] == key) break;` with a varying key:
    // the loop is divergent, `i` stays uniform inside it (the address a + 4i too).
    let f = widened("wfv_numeric.lir", "linear_search", Mode::PARTIAL);
    let scalar_i32_phis = count(&f, |_, d, t| d.is_phi() && t == Some(Type::I32));
    assert!(scalar_i32_phis >= 1, "the counter became a vector");
    // a[i] with uniform i is one scalar load under the live mask, not a gather.
    assert_eq!(count(&f, |_, d, _| matches!(d, InstData::Gather { .. })), 0);
}

fn prepared(file: &str, func: &str, mode: Mode) -> lanes_wfv::Prepared {
    let path = common::kernel_path(file);
    let module: Module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let id = module.func_by_name(func).unwrap();
    prepare(&module, id, &[], mode, &mut |_, _| {}).unwrap()
}

#[test]
fn loops_with_uniform_exits_are_left_untouched() {
    // PLDI'18 §5: only divergent loops need the live mask; in partial mode uniform ones
    // keep their control flow.
    assert_eq!(
        prepared("wfv_loops.lir", "uniform_loop_uniform_break", Mode::PARTIAL)
            .transformed
            .len(),
        0
    );
    assert_eq!(
        prepared("saxpy.lir", "saxpy", Mode::PARTIAL)
            .transformed
            .len(),
        0
    );
    // A uniform inner loop in a divergent outer loop: only the outer one.
    assert_eq!(
        prepared(
            "wfv_loops.lir",
            "outer_varying_inner_uniform",
            Mode::PARTIAL
        )
        .transformed
        .len(),
        1
    );
    assert_eq!(
        prepared(
            "wfv_loops.lir",
            "outer_uniform_inner_varying",
            Mode::PARTIAL
        )
        .transformed
        .len(),
        1
    );
    // Mandelbrot's loop is divergent (the escape test).
    assert_eq!(
        prepared("pldi18_fig9_mandelbrot.lir", "mandel", Mode::PARTIAL)
            .transformed
            .len(),
        1
    );
    // Full if-conversion transforms every loop.
    assert_eq!(
        prepared("wfv_loops.lir", "outer_varying_inner_uniform", Mode::FULL)
            .transformed
            .len(),
        2
    );
}

/// Work-item queries and a cycle of three helpers: widening walks the call graph and ends
/// on the cycle (it used to recurse around a cycle below a querying function until the
/// stack overflowed); a query inside the cycle is reported as unsupported.
#[test]
fn a_work_item_query_behind_a_cycle_of_helpers_is_an_error_not_a_stack_overflow() {
    let path = common::kernel_path("helper_cycle.lir");
    let text = std::fs::read_to_string(path).unwrap();
    // `peng` also reads its work item.
    let text = text.replace(
        "    v6: i32 = xor v1, v0\n    v7: i32 = call @ping(v5, v6)",
        "    v8: i64 = global_id 0\n    v9: i32 = trunc v8\n    v6: i32 = xor v1, v9\n    v7: i32 = call @ping(v5, v6)",
    );
    let mut module: Module = lanes_ir::parse_module(&text).unwrap();
    lanes_ir::verifier::verify_module(&module).unwrap();
    let id = module.func_by_name("helper_cycle").unwrap();
    let p = prepare(&module, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
    let err = lanes_wfv::widen_into(&mut module, &p, &[], 8).expect_err("unsupported");
    assert!(err.to_string().contains("queries its work item"), "{err}");
    // Without it, the same cycle widens: `start` (which queries its item directly) is
    // vectorized with the kernel (its lane k is the kernel's lane k), and its call into
    // the cycle runs once per lane, with a note saying why
    // (`kernels_widened_equal_lanes_run_one_by_one` compares the results).
    let mut module: Module = lanes_ir::parse_module(
        &std::fs::read_to_string(common::kernel_path("helper_cycle.lir")).unwrap(),
    )
    .unwrap();
    let p = prepare(&module, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
    let mut report = lanes_wfv::WidenReport::default();
    lanes_wfv::widen_into_noting(&mut module, &p, &[], 8, &mut report).expect("widens");
    let notes = report.notes;
    assert!(module.func_by_name("start.w8.v").is_some());
    assert!(module.func_by_name("start.lane_item").is_none());
    let text: Vec<String> = notes.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        text,
        ["@start: the call of @ping runs once per active lane: it is part of a cycle of calls"],
    );
}

#[test]
fn masked_variant_tests_its_entry_mask_once_not_per_uniform_load() {
    // Three loads from uniform addresses under the entry mask only: the masked variant
    // returns at once when no lane is active, then loads each address unguarded.
    let text = "function @uniform_table(v0: i32 varying, v1: ptr.global uniform align 16) -> i32 {
block0:
    v2: i32 = load v1 align 4
    v3: i64 = iconst 4
    v4: ptr.global = ptradd v1, v3
    v5: i32 = load v4 align 4
    v6: i64 = iconst 8
    v7: ptr.global = ptradd v1, v6
    v8: i32 = load v7 align 4
    v9: i32 = add v2, v5
    v10: i32 = add v9, v8
    v11: i32 = add v10, v0
    ret v11
}
";
    let mut module: Module = lanes_ir::parse_module(text).unwrap();
    let id = module.func_by_name("uniform_table").unwrap();
    let wid =
        lanes_wfv::define_variant(&mut module, id, &[None, None], Mode::PARTIAL, 8, true, "m")
            .unwrap();
    lanes_ir::verifier::verify_module(&module).unwrap();
    let f = module.function(wid).unwrap();
    let anys = count(f, |_, d, _| {
        matches!(
            d,
            InstData::Intrinsic {
                id: Intrinsic::Any,
                ..
            }
        )
    });
    let scalar_loads = count(f, |_, d, t| {
        matches!(d, InstData::Load { .. }) && t.is_some_and(|t| !t.is_vector())
    });
    assert_eq!(
        (anys, scalar_loads),
        (1, 3),
        "{}",
        lanes_ir::write::function_to_string(&module, f)
    );
    let entry = f.entry_block().unwrap();
    assert!(
        f.layout.block_insts(entry).iter().any(|&i| matches!(
            f.dfg.inst(i),
            InstData::Intrinsic {
                id: Intrinsic::Any,
                ..
            }
        )),
        "the all-off test is in the entry block"
    );
}

/// A call whose callee already has a vector-ABI variant for the call's letters (a
/// `declare simd` variant lanes compile defined) calls that one; another call of the same
/// callee with other shapes gets a variant made for it, and the two call sites that need
/// the same variant share it.
#[test]
fn calls_use_existing_declare_simd_variants_and_share_made_ones() {
    let text = "function @sq(v0: i32) -> i32 {
block0:
    v1: i32 = mul v0, v0
    ret v1
}

function @_ZGVdN4v_sq(v0: <4 x i32>) -> <4 x i32> {
block0:
    v1: <4 x i32> = mul v0, v0
    ret v1
}

function @cube(v0: i32) -> i32 {
block0:
    v1: i32 = mul v0, v0
    v2: i32 = mul v1, v0
    ret v2
}

function @twice(v0: ptr.global uniform align 16, v1: i32 uniform) -> i32 kernel {
block0:
    v2: i64 = global_id 0
    v3: i32 = trunc v2
    v4: i32 = call @sq(v3)
    v5: i64 = iconst 4
    v6: i64 = mul v2, v5
    v7: ptr.global = ptradd v0, v6
    v8: i32 = load v7 align 4
    v9: i32 = call @cube(v8)
    v10: i32 = call @cube(v8)
    v11: i32 = add v4, v9
    v12: i32 = add v11, v10
    v13: i32 = call @cube(v3)
    v14: i32 = add v12, v13
    ret v14
}
";
    let mut module: Module = lanes_ir::parse_module(text).unwrap();
    let id = module.func_by_name("twice").unwrap();
    let p = prepare(&module, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
    let wid = lanes_wfv::widen_into(&mut module, &p, &[], 4).unwrap();
    let f = module.function(wid).unwrap();
    let callees: Vec<&str> = f
        .dfg
        .insts()
        .filter_map(|i| match f.dfg.inst(i) {
            lanes_ir::InstData::Call { func, .. } => Some(module.funcs[*func].name()),
            _ => None,
        })
        .collect();
    // `sq` has a `v` variant: the contiguous id (any non-uniform value matches `v`) goes
    // to it. `cube` has none: the two calls with a varying argument share one variant lanes
    // makes, the call with the contiguous id gets another, which takes the id linear (lane
    // 0's scalar).
    assert_eq!(
        callees,
        ["_ZGVdN4v_sq", "cube.w4.v", "cube.w4.v", "cube.w4.l"]
    );
    let linear = module.func_by_name("cube.w4.l").unwrap();
    assert_eq!(
        module.function(linear).unwrap().signature().params,
        [lanes_ir::Type::I32]
    );
}
