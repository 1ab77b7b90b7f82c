//! Degenerate inputs: no blocks, a branch to a block outside the layout, an entry that
//! loops to itself, operands that name unplaced instructions or foreign blocks, and queries
//! about blocks the function does not have. Nothing may panic; answers are "none".

use lanes_analysis::{
    CfgEdge, ControlDependence, ControlFlowGraph, DominatorTree, Liveness, LoopForest,
    PostDominatorTree,
};
use lanes_ir::{Block, FuncBuilder, Function, InstData, Type};

struct All {
    cfg: ControlFlowGraph,
    dt: DominatorTree,
    pdt: PostDominatorTree,
    cd: ControlDependence,
    forest: LoopForest,
    live: Liveness,
}

fn analyze(func: &Function) -> All {
    let cfg = ControlFlowGraph::with_function(func);
    let dt = DominatorTree::with_function(func, &cfg);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let cd = ControlDependence::with_cfg(&cfg, &pdt);
    let forest = LoopForest::with_cfg(&cfg, &dt);
    let live = Liveness::with_function(func, &cfg);
    All {
        cfg,
        dt,
        pdt,
        cd,
        forest,
        live,
    }
}

fn assert_no_facts_about(a: &All, b: Block) {
    assert!(!a.cfg.contains(b) && a.cfg.succs(b).is_empty() && a.cfg.preds(b).is_empty());
    assert!(!a.dt.dominates(b, b) && a.dt.idom(b).is_none() && a.dt.depth(b).is_none());
    assert_eq!(a.dt.children(b).count(), 0);
    assert!(!a.pdt.post_dominates(b, b) && a.pdt.ipdom(b).is_none() && a.pdt.depth(b).is_none());
    assert!(a.pdt.influence_region(&a.cfg, b).is_empty());
    assert!(a.cd.cdep(b).is_empty() && a.cd.post_dominance_frontier(b).is_empty());
    assert!(a.forest.innermost_loop(b).is_none() && a.forest.loop_depth(b) == 0);
    assert!(a.live.live_in(b).is_empty() && a.live.live_out(b).is_empty());
}

#[test]
fn function_without_blocks() {
    let func = Function::new("empty", &[Type::I32], None);
    let a = analyze(&func);
    assert!(a.cfg.is_valid() && a.dt.is_valid() && a.pdt.is_valid());
    assert!(a.cd.is_valid() && a.forest.is_valid() && a.live.is_valid());
    assert!(a.cfg.rpo().is_empty() && a.dt.preorder().is_empty());
    assert_eq!(a.pdt.roots().count(), 0);
    assert_eq!(a.forest.num_loops(), 0);
    assert!(a.forest.is_reducible());
    assert_no_facts_about(&a, Block::from_u32(0));
}

#[test]
fn branch_to_a_block_outside_the_layout_is_no_edge() {
    let mut func = Function::new("f", &[Type::I1], None);
    let c = func.params[0].value;
    let mut fb = FuncBuilder::new(&mut func);
    let (b0, b1, b2) = (fb.create_block(), fb.create_block(), fb.create_block());
    fb.switch_to_block(b0);
    fb.brif(c, b1, b2);
    fb.switch_to_block(b1);
    fb.ret(None);
    fb.switch_to_block(b2);
    fb.ret(None);
    func.layout.remove_block(b2);
    let a = analyze(&func);
    assert_eq!(a.cfg.branch_targets(b0), &[b1]);
    assert_eq!(a.cfg.succs(b0), &[b1]);
    assert_eq!(a.pdt.ipdom(b0), Some(b1));
    assert!(a.cd.cdep(b1).is_empty());
    assert_no_facts_about(&a, b2);
    assert_no_facts_about(&a, Block::from_u32(1000));
}

#[test]
fn entry_that_loops_to_itself() {
    let mut func = Function::new("spin", &[], None);
    let mut fb = FuncBuilder::new(&mut func);
    let b0 = fb.create_block();
    fb.switch_to_block(b0);
    fb.jump(b0);
    let a = analyze(&func);
    assert_eq!(a.cfg.rpo(), &[b0]);
    assert!(a.cfg.exit_blocks().is_empty());
    assert_eq!(a.pdt.infinite_loop_roots(), &[b0]);
    assert_eq!(a.pdt.ipdom(b0), None);
    assert!(a.cd.cdep(b0).is_empty());
    assert_eq!(a.cd.post_dominance_frontier(b0), &[b0]);
    assert!(!a.cd.is_control_dependent(b0, CfgEdge::new(b0, b0)));
    let l = a.forest.loop_of_header(b0).expect("a self-loop is a loop");
    assert_eq!(a.forest.latches(l), &[b0]);
    assert!(a.forest.exit_blocks(l).is_empty() && a.forest.exiting_blocks(l).is_empty());
    assert!(a.forest.is_back_edge(b0, b0));
}

#[test]
fn operands_naming_unplaced_instructions_and_foreign_blocks() {
    let mut func = Function::new("odd", &[Type::I32], Some(Type::I32));
    let x = func.params[0].value;
    // An instruction that is created but never placed.
    let loose = func
        .dfg
        .make_inst(InstData::Iconst { imm: 7 }, Some(Type::I32));
    let loose_v = func.dfg.inst_result(loose).expect("has a result");
    let mut fb = FuncBuilder::new(&mut func);
    let (b0, b1) = (fb.create_block(), fb.create_block());
    let foreign = fb.func.dfg.make_block();
    fb.switch_to_block(b0);
    fb.jump(b1);
    fb.switch_to_block(b1);
    let phi = fb.phi(Type::I32, vec![(b0, x), (foreign, x)]);
    let sum = fb.binary(lanes_ir::BinaryOp::Add, phi, loose_v);
    fb.ret(Some(sum));
    let a = analyze(&func);
    // The unplaced value is live up to the entry (it is defined nowhere).
    assert!(a.live.is_live_in(loose_v, b1) && a.live.is_live_in(loose_v, b0));
    assert_eq!(a.live.live_out(b0), &[x, loose_v]);
    assert!(!a.live.is_live_in(phi, b1));
    assert_no_facts_about(&a, foreign);
}
