//! `any(m)` folds to `true` exactly where some lane of `m` is proven active
//! (`lanes_wfv::nonempty_masks`): in a loop that goes round only while `any` lane is
//! live, and past a branch on `any` of a mask inside `m`; not where `m` may be empty.

use lanes_ir::{Function, InstData, Intrinsic};

/// The function `name` of `text`, after the pass; and how many `any`s it folded.
fn folded(text: &str, name: &str) -> (Function, usize) {
    let module = lanes_ir::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let id = module
        .func_by_name(name)
        .unwrap_or_else(|| panic!("no @{name}"));
    let mut func = module.function(id).expect("a body").clone();
    let n = lanes_wfv::nonempty_masks::fold_any_of_nonempty_masks(&mut func);
    lanes_ir::verifier::verify_function(&module, &func).unwrap_or_else(|e| panic!("{e}"));
    (func, n)
}

fn anys_left(func: &Function) -> usize {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&&i| {
            matches!(
                func.dfg.inst(i),
                InstData::Intrinsic {
                    id: Intrinsic::Any,
                    ..
                }
            )
        })
        .count()
}

/// A divergent loop as the divergent loop transform leaves it, after widening: the
/// header's mask starts all-true and goes round only if `any` of a mask inside it is
/// set. The uniform load in the body is guarded by `any` of the header's mask.
const LOOP: &str = "
function @search(v0: ptr, v1: <4 x f32>, v2: i64) -> <4 x i1> {
block0:
    v3: i1 = iconst 1
    v4: <4 x i1> = broadcast v3
    v5: i64 = iconst 0
    v6: i64 = iconst 4
    v7: f32 = fconst 0.0
    br block1
block1:
    v10: i64 = phi [block0: v5], [block3: v20]
    v11: <4 x i1> = phi [block0: v4], [block3: v19]
    v12: i64 = mul v10, v6
    v13: ptr = ptradd v0, v12
    v14: i1 = any v11
    brif v14, block2, block3
block2:
    v15: f32 = load v13 align 4
    br block3
block3:
    v16: f32 = phi [block1: v7], [block2: v15]
    v17: <4 x f32> = broadcast v16
    v18: <4 x i1> = fcmp olt v17, v1
    v19: <4 x i1> = and v11, v18
    v20: i64 = add v10, v6
    v21: i1 = any v19
    brif v21, block1, block4
block4:
    ret v11
}
";

#[test]
fn a_divergent_loops_body_has_an_active_lane_and_its_exit_test_stays() {
    let (func, n) = folded(LOOP, "search");
    assert_eq!(n, 1, "the body's guard folds");
    assert_eq!(anys_left(&func), 1, "the loop's own exit test stays");
}

#[test]
fn a_loop_that_goes_round_without_a_test_of_its_mask_keeps_the_guard() {
    // The back edge is taken on a uniform count: the mask may have emptied.
    let text = LOOP.replace(
        "    v21: i1 = any v19\n    brif v21, block1, block4",
        "    v21: i1 = icmp slt v20, v2\n    brif v21, block1, block4",
    );
    let (func, n) = folded(&text, "search");
    assert_eq!(n, 0);
    assert_eq!(anys_left(&func), 1);
}

#[test]
fn a_loop_entered_with_a_mask_nobody_tested_keeps_the_guard() {
    let text = LOOP
        .replace("v2: i64) ->", "v2: i64, v30: <4 x i1>) ->")
        .replace(
            "[block0: v4], [block3: v19]",
            "[block0: v30], [block3: v19]",
        );
    let (func, n) = folded(&text, "search");
    assert_eq!(n, 0, "{text}");
    assert_eq!(anys_left(&func), 2);
}

/// Past `brif any(and(m, c))`, both `m` and `c` have an active lane; on the other side,
/// neither is known to.
#[test]
fn a_branch_on_any_of_a_conjunction_proves_each_side_of_it() {
    let text = "
function @sides(v0: <4 x i1>, v1: <4 x i1>) -> i32 {
block0:
    v2: <4 x i1> = and v0, v1
    v3: i1 = any v2
    brif v3, block1, block2
block1:
    v4: i1 = any v0
    v5: <4 x i1> = copy v1
    v6: i1 = any v5
    v7: i1 = and v4, v6
    v8: i32 = zext v7
    ret v8
block2:
    v9: i1 = any v0
    v10: i32 = zext v9
    ret v10
}
";
    let (func, n) = folded(text, "sides");
    assert_eq!(n, 2, "any(v0) and any(copy v1) in block1");
    assert_eq!(anys_left(&func), 2, "the branch's own test and block2's");
}
