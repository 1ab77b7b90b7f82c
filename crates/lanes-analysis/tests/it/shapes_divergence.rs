//! Control divergence: divergent branches, join divergence by sync
//! dependence (CC'12 Definition 1 cases 1–2, PACT'11 gated φ), divergent loops and
//! temporal divergence (case 3), divergent vs. uniform exits, irreducible regions.

use lanes_analysis::shapes::{ShapeAnalysis, ShapeInfo};
use lanes_ir::{Block, EntityRef, Module, Value};

fn analyze(text: &str) -> (Module, ShapeInfo) {
    let module = lanes_ir::parse_module(text).expect("parses");
    lanes_ir::verifier::verify_module(&module).expect("verifies");
    let (id, _) = module.functions().next().expect("a function");
    let info = ShapeAnalysis::new(&module)
        .analyze(id, &[])
        .expect("analysis");
    (module, info)
}

fn b(n: usize) -> Block {
    Block::new(n)
}

fn v(n: usize) -> Value {
    Value::new(n)
}

#[test]
fn diamond_join_and_gated_phi() {
    // block0 branches on the lane id; block3 joins: its φ of two different values is
    // varying, its φ of one value defined before the branch stays uniform (gated φ).
    let (_, info) = analyze(
        "function @f(v0: i32 uniform) -> i32 {
block0:
    v1: i32 = lane_id
    v2: i32 = iconst 0
    v3: i1 = icmp eq v1, v2
    v4: i1 = icmp eq v0, v2
    brif v3, block1, block2
block1:
    br block3
block2:
    br block3
block3:
    v5: i32 = phi [block1: v0], [block2: v2]
    v6: i32 = phi [block1: v0], [block2: v0]
    v7: i32 = phi [block1: v2], [block2: v2]
    brif v4, block4, block5
block4:
    ret v5
block5:
    ret v6
}",
    );
    assert!(info.is_divergent_branch(b(0)));
    assert!(
        !info.is_divergent_branch(b(3)),
        "branch on a uniform argument"
    );
    assert!(info.is_join_divergent(b(3)));
    assert_eq!(info.join_causes(b(3)), &[b(0)]);
    assert!(info.shape(v(5)).is_divergent());
    assert!(
        info.shape(v(6)).is_uniform(),
        "gated φ: one value from before the branch"
    );
    assert!(info.shape(v(7)).is_uniform(), "gated φ: equal constants");
}

#[test]
fn disjoint_paths_not_post_dominator_cc12_case_2() {
    // PLDI'18 Fig. 3-like: block4 is reached from both edges of the divergent branch in
    // block1 over disjoint paths although it does not post-dominate block1 (block2 can
    // leave to block5): join-divergent without being a reconvergence point.
    let (_, info) = analyze(
        "function @f(v0: i1 varying, v1: i1 uniform) -> i32 {
block0:
    v2: i32 = iconst 1
    v3: i32 = iconst 2
    brif v1, block1, block5
block1:
    brif v0, block2, block3
block2:
    brif v1, block4, block5
block3:
    br block4
block4:
    v4: i32 = phi [block2: v2], [block3: v3]
    ret v4
block5:
    ret v2
}",
    );
    assert!(!info.is_divergent_branch(b(0)));
    assert!(info.is_divergent_branch(b(1)));
    assert!(!info.is_divergent_branch(b(2)));
    assert!(info.is_join_divergent(b(4)));
    assert!(info.shape(v(4)).is_divergent());
    assert!(!info.is_join_divergent(b(3)));
}

#[test]
fn uniform_branch_under_divergent_control_has_no_join() {
    // The inner branch on a uniform value joins in block4 with lanes that all took the
    // same way: not join-divergent, the φ stays uniform. block5 joins the outer one.
    let (_, info) = analyze(
        "function @f(v0: i1 uniform) -> i32 {
block0:
    v1: i32 = lane_id
    v2: i32 = iconst 3
    v3: i1 = icmp slt v1, v2
    v4: i32 = iconst 7
    v5: i32 = iconst 9
    brif v3, block1, block5
block1:
    brif v0, block2, block3
block2:
    br block4
block3:
    br block4
block4:
    v6: i32 = phi [block2: v4], [block3: v5]
    br block5
block5:
    v7: i32 = phi [block0: v4], [block4: v6]
    ret v7
}",
    );
    assert!(info.is_divergent_branch(b(0)));
    assert!(!info.is_divergent_branch(b(1)));
    assert!(!info.is_join_divergent(b(4)));
    assert!(info.shape(v(6)).is_uniform());
    assert!(info.is_join_divergent(b(5)));
    assert!(info.shape(v(7)).is_divergent());
}

#[test]
fn divergent_loop_temporal_divergence_case_3() {
    // Mandelbrot: the escape test (block2) is a varying exit; the iteration limit
    // (block1) a uniform one. The counter v9 is uniform inside the loop but varying at
    // `ret v9` after it (temporal divergence).
    let (module, info) = analyze(&lanes_test_support::kernel_text(
        "pldi18_fig9_mandelbrot.lir",
    ));
    let func = module.functions().next().unwrap().1;
    let l = info.loops().loop_of_header(b(1)).unwrap();
    assert!(info.is_divergent_loop(l));
    assert!(info.is_divergent_branch(b(2)));
    assert!(!info.is_divergent_branch(b(1)));
    assert!(info.is_divergent_exit(l, b(2)));
    assert!(
        !info.is_divergent_exit(l, b(1)),
        "all lanes still in the loop leave together"
    );
    assert!(info.shape(v(9)).is_uniform());
    assert!(info.is_temporally_divergent(v(9)));
    let ret = func.terminator(b(4)).unwrap();
    assert!(info.use_shape(func, v(9), ret).is_divergent());
    assert!(info.is_join_divergent(b(4)));
}

#[test]
fn uniform_loop_stays_uniform() {
    let (_, info) = analyze(
        "function @f(v0: i32 uniform, v1: i32 varying) -> i32 {
block0:
    v2: i32 = iconst 0
    v3: i32 = iconst 1
    br block1
block1:
    v4: i32 = phi [block0: v2], [block2: v6]
    v5: i32 = phi [block0: v1], [block2: v7]
    v8: i1 = icmp slt v4, v0
    brif v8, block2, block3
block2:
    v6: i32 = add v4, v3
    v7: i32 = add v5, v4
    br block1
block3:
    ret v4
}",
    );
    let l = info.loops().loop_of_header(b(1)).unwrap();
    assert!(!info.is_divergent_loop(l));
    assert!(!info.is_temporally_divergent(v(4)));
    assert!(info.shape(v(4)).is_uniform() && info.shape(v(5)).is_divergent());
}

#[test]
fn divergent_continue_makes_the_header_a_join() {
    // Two latches: the divergent branch in block2 sends some lanes back through block3,
    // others through block4; the header φ receives both and is varying.
    let (_, info) = analyze(
        "function @f(v0: i32 uniform) -> i32 {
block0:
    v1: i32 = iconst 0
    v2: i32 = iconst 1
    v3: i32 = lane_id
    br block1
block1:
    v4: i32 = phi [block0: v1], [block3: v5], [block4: v6]
    v7: i1 = icmp slt v4, v0
    brif v7, block2, block5
block2:
    v8: i1 = icmp eq v3, v4
    v5: i32 = add v4, v2
    v6: i32 = add v4, v4
    brif v8, block3, block4
block3:
    br block1
block4:
    br block1
block5:
    ret v4
}",
    );
    assert!(info.is_divergent_branch(b(2)));
    assert!(info.is_join_divergent(b(1)));
    assert!(info.shape(v(4)).is_divergent());
    assert!(
        info.is_divergent_branch(b(1)),
        "the loop test reads the varying φ"
    );
}

#[test]
fn irreducible_regions_are_analysed_conservatively() {
    // block1 and block2 form a cycle with two entries; a divergent branch enters it.
    let (_, info) = analyze(
        "function @f(v0: i32 uniform) -> i32 {
block0:
    v1: i32 = lane_id
    v2: i32 = iconst 2
    v3: i1 = icmp slt v1, v2
    v4: i32 = iconst 1
    brif v3, block1, block2
block1:
    v5: i32 = phi [block0: v4], [block2: v7]
    v6: i32 = add v5, v4
    br block2
block2:
    v7: i32 = phi [block0: v4], [block1: v6]
    v8: i1 = icmp slt v7, v0
    brif v8, block1, block3
block3:
    ret v7
}",
    );
    assert!(!info.loops().is_reducible());
    assert!(info.is_divergent_branch(b(0)));
    assert!(info.is_join_divergent(b(1)) && info.is_join_divergent(b(2)));
    assert!(info.shape(v(7)).is_divergent());
    assert!(info.is_divergent_branch(b(2)));
}
