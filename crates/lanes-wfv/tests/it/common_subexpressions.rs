//! Pure instructions that repeat a dominating one merge (`lanes_wfv::common_subexpressions`):
//! across stores and blocks the first dominates; not between sibling blocks, not for mask
//! queries (their lanes differ between blocks), not when types or fast-math flags differ.
//! Constants are compared by value but stay in place. Over generated programs, duplicates
//! planted at the top of a dominated block all merge and the function computes the same.

use crate::passes::{count, generated, same_semantics};

use lanes_analysis::{ControlFlowGraph, DominatorTree};
use lanes_ir::{Block, FuncCursor, Function, Inst, InstData, Intrinsic, Value};
use lanes_wfv::common_subexpressions::eliminate_common_subexpressions;

/// The function `name` of `text` after the pass, and how many instructions merged.
fn merged(text: &str, name: &str) -> (Function, usize) {
    let module = lanes_ir::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let id = module
        .func_by_name(name)
        .unwrap_or_else(|| panic!("no @{name}"));
    let mut func = module.function(id).expect("a body").clone();
    let n = eliminate_common_subexpressions(&mut func);
    lanes_ir::verifier::verify_function(&module, &func).unwrap_or_else(|e| panic!("{e}"));
    (func, n)
}

fn count_of(func: &Function, pick: impl Fn(&InstData) -> bool) -> usize {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&&i| pick(func.dfg.inst(i)))
        .count()
}

fn intrinsics(func: &Function, id: Intrinsic) -> usize {
    count_of(
        func,
        |d| matches!(d, InstData::Intrinsic { id: i, .. } if *i == id),
    )
}

/// Black-Scholes' shape: `exp` of one argument on both sides of a store (clang keeps both
/// calls of `expf` apart for `errno`), and what is computed from it.
const ACROSS_A_STORE: &str = "
function @cnd_twice(v0: ptr, v1: ptr, v2: f32) {
block0:
    v3: f32 = fmul v2, v2
    v4: f32 = exp v3
    v5: f32 = fadd v4, v2
    store v5, v0 align 4
    v6: f32 = fmul v2, v2
    v7: f32 = exp v6
    v8: f32 = fadd v7, v2
    store v8, v1 align 4
    ret
}
";

#[test]
fn math_on_both_sides_of_a_store_is_computed_once() {
    let (func, n) = merged(ACROSS_A_STORE, "cnd_twice");
    assert_eq!(n, 3, "the product, the exponential and the sum");
    assert_eq!(intrinsics(&func, Intrinsic::Exp), 1);
    let stores = count_of(&func, |d| matches!(d, InstData::Store { .. }));
    assert_eq!(stores, 2, "stores stay");
}

#[test]
fn different_fast_math_flags_keep_both() {
    let text = ACROSS_A_STORE.replace("v6: f32 = fmul v2, v2", "v6: f32 = fmul fast v2, v2");
    let (func, n) = merged(&text, "cnd_twice");
    assert_eq!(
        n, 0,
        "the products differ in flags, so all that follows differs too"
    );
    assert_eq!(intrinsics(&func, Intrinsic::Exp), 2);
}

/// An if-then-else on `v1` computing `v0 * v0` on both sides and after the join, where
/// the entry computed `v0 + v0`, repeated in the join.
const DIAMOND: &str = "
function @diamond(v0: i32, v1: i1, v2: ptr) -> i32 {
block0:
    v3: i32 = add v0, v0
    v20: i1 = any v1
    brif v1, block1, block2
block1:
    v4: i32 = mul v0, v0
    v21: i1 = any v1
    v23: i32 = select v21, v4, v0
    store v23, v2 align 4
    br block3
block2:
    v5: i32 = mul v0, v0
    v22: i1 = any v1
    v24: i32 = select v22, v5, v0
    store v24, v2 align 4
    br block3
block3:
    v6: i32 = mul v0, v0
    v7: i32 = add v0, v0
    v8: i32 = add v6, v7
    v9: i64 = iconst 7
    v10: i32 = iconst 7
    v11: i32 = add v8, v10
    v12: i64 = sext v11
    v13: i64 = add v12, v9
    v14: i32 = trunc v13
    v15: i32 = select v20, v14, v3
    ret v15
}
";

#[test]
fn only_a_dominating_copy_is_reused_and_mask_queries_never_are() {
    let (func, n) = merged(DIAMOND, "diamond");
    assert_eq!(n, 1, "the join's `add v0, v0` reuses the entry's");
    let muls = count_of(&func, |d| {
        matches!(
            d,
            InstData::Binary {
                op: lanes_ir::BinaryOp::Mul,
                ..
            }
        )
    });
    assert_eq!(muls, 3, "siblings do not dominate each other or the join");
    assert_eq!(
        intrinsics(&func, Intrinsic::Any),
        3,
        "`any` sees the lanes active where it runs"
    );
    let consts = count_of(&func, |d| matches!(d, InstData::Iconst { imm: 7 }));
    assert_eq!(consts, 2, "an i64 and an i32 7 are different values");
}

#[test]
fn unmasked_regions_are_left_alone() {
    let text = ACROSS_A_STORE.replace(
        "    v3: f32 = fmul",
        "    unmasked_begin\n    unmasked_end\n    v3: f32 = fmul",
    );
    let (_, n) = merged(&text, "cnd_twice");
    assert_eq!(n, 0);
}

/// A copy of pure `inst` (of block `b`) at the top of `d`, which `b` strictly dominates,
/// with every use that `d` dominates redirected to it; returns the copy.
fn plant_copy(func: &mut Function, domtree: &DominatorTree, inst: Inst, d: Block) -> Inst {
    let data = func.dfg.inst(inst).clone();
    let old = func.dfg.inst_result(inst).expect("a result");
    let ty = func.dfg.value_type(old);
    let fast_math = func.dfg.fast_math(inst);
    let new: Value = FuncCursor::new(func)
        .goto_first_non_phi(d)
        .insert_value(data, ty);
    let copy = func.dfg.def_inst(new).expect("an instruction's result");
    func.dfg.set_fast_math(copy, fast_math);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for blk in blocks {
        for i in func.layout.block_insts(blk).to_vec() {
            if i == copy {
                continue;
            }
            let is_phi = func.dfg.inst(i).is_phi();
            if !is_phi && !domtree.dominates(d, blk) {
                continue;
            }
            match func.dfg.inst_mut(i) {
                InstData::Phi { incoming } => {
                    for (pred, v) in incoming.iter_mut() {
                        if *v == old && domtree.dominates(d, *pred) {
                            *v = new;
                        }
                    }
                }
                data => data.for_each_arg_mut(|v| {
                    if *v == old {
                        *v = new
                    }
                }),
            }
        }
    }
    copy
}

#[test]
fn planted_duplicates_in_generated_programs_all_merge_and_keep_semantics() {
    let mut planted_total = 0;
    for seed in 0..count() {
        let g = generated(seed);
        let mut func = g.module.function(g.func).expect("defined").clone();
        let cfg = ControlFlowGraph::with_function(&func);
        let domtree = DominatorTree::with_function(&func, &cfg);
        // One pure instruction per block with a strictly dominated block, copied there
        // (not a constant: constants stay where they are).
        let mut planted = Vec::new();
        for b in domtree.preorder() {
            let Some(d) = domtree.children(b).next() else {
                continue;
            };
            let pure = func.layout.block_insts(b).iter().copied().find(|&i| {
                let data = func.dfg.inst(i);
                data.is_speculatable()
                    && func.dfg.inst_result(i).is_some()
                    && !matches!(
                        data,
                        InstData::Phi { .. }
                            | InstData::Alloca { .. }
                            | InstData::Iconst { .. }
                            | InstData::Fconst { .. }
                    )
            });
            if let Some(i) = pure {
                planted.push(plant_copy(&mut func, &domtree, i, d));
            }
        }
        let what = format!("seed {seed}");
        same_semantics(&g, &func, seed, &format!("{what} with planted copies"));
        let n = eliminate_common_subexpressions(&mut func);
        assert!(
            n >= planted.len(),
            "{what}: {n} merged, {} planted",
            planted.len()
        );
        for copy in &planted {
            assert!(
                func.layout.inst_block(*copy).is_none(),
                "{what}: planted copy {copy} stayed"
            );
        }
        same_semantics(&g, &func, seed, &format!("{what} after the pass"));
        planted_total += planted.len();
    }
    assert!(
        planted_total > count() as usize,
        "{planted_total} copies planted in all"
    );
}
