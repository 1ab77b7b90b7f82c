//! 100,000-block functions: every analysis must run without recursion (no stack overflow
//! on deep trees and long chains) and in near-linear time. The expected facts are derived
//! by hand from the shapes.

use lanes_analysis::{
    CfgEdge, ControlDependence, ControlFlowGraph, DominatorTree, Liveness, LoopForest,
    PostDominatorTree,
};
use lanes_ir::{BinaryOp, Block, FuncBuilder, Function, Type};

const N: usize = 100_000;

/// `block0 → block1 → … → block(N-2)`, whose `brif` loops back to `block1` or leaves to
/// `block(N-1): ret v2`; `v2` is defined in the entry and used only at the end.
fn long_loop() -> (Function, Vec<Block>) {
    let mut func = Function::new("long_loop", &[Type::I1, Type::I32], Some(Type::I32));
    let (c, x) = (func.params[0].value, func.params[1].value);
    let mut fb = FuncBuilder::new(&mut func);
    let blocks: Vec<Block> = (0..N).map(|_| fb.create_block()).collect();
    fb.switch_to_block(blocks[0]);
    let v = fb.binary(BinaryOp::Add, x, x);
    fb.jump(blocks[1]);
    for i in 1..N - 2 {
        fb.switch_to_block(blocks[i]);
        fb.jump(blocks[i + 1]);
    }
    fb.switch_to_block(blocks[N - 2]);
    fb.brif(c, blocks[1], blocks[N - 1]);
    fb.switch_to_block(blocks[N - 1]);
    fb.ret(Some(v));
    (func, blocks)
}

#[test]
fn long_loop_chain() {
    let (func, b) = long_loop();
    let cfg = ControlFlowGraph::with_function(&func);
    assert_eq!(cfg.rpo().len(), N);
    let dt = DominatorTree::with_function(&func, &cfg);
    assert_eq!(dt.depth(b[N - 1]), Some(N as u32 - 1));
    assert!(dt.dominates(b[1], b[N - 2]));
    let pdt = PostDominatorTree::with_function(&func, &cfg);
    assert_eq!(pdt.depth(b[0]), Some(N as u32));
    assert_eq!(pdt.ipdom(b[N - 2]), Some(b[N - 1]));
    assert!(pdt.post_dominates(b[N - 2], b[1]));
    let cd = ControlDependence::with_cfg(&cfg, &pdt);
    // Every block of the loop body but the latch itself depends on the back edge.
    assert_eq!(cd.dependents(b[N - 2]).len(), N - 3);
    assert_eq!(cd.cdep(b[1]), &[CfgEdge::new(b[N - 2], b[1])]);
    let forest = LoopForest::with_cfg(&cfg, &dt);
    assert_eq!(forest.num_loops(), 1);
    let l = forest.loops().next().expect("one loop");
    assert_eq!(forest.blocks(l).len(), N - 2);
    assert_eq!(forest.exit_blocks(l), &[b[N - 1]]);
    let live = Liveness::with_function(&func, &cfg);
    let v = func.dfg.values().nth(2).expect("v2");
    assert!((1..N).all(|i| live.is_live_in(v, b[i])));
}

/// `N/2 - 1` nested loops: loop `i` is headed by `h_i`, which falls through to `h_{i+1}`
/// (the innermost to its latch); latch `t_i` branches back to `h_i` or out to the
/// enclosing loop's latch `t_{i-1}` (the outermost to the return block).
fn deep_nest() -> (Function, Vec<Block>, Vec<Block>) {
    let depth = N / 2 - 1;
    let mut func = Function::new("deep_nest", &[Type::I1], None);
    let c = func.params[0].value;
    let mut fb = FuncBuilder::new(&mut func);
    let entry = fb.create_block();
    let headers: Vec<Block> = (0..depth).map(|_| fb.create_block()).collect();
    let latches: Vec<Block> = (0..depth).map(|_| fb.create_block()).collect();
    let exit = fb.create_block();
    fb.switch_to_block(entry);
    fb.jump(headers[0]);
    for i in 0..depth {
        fb.switch_to_block(headers[i]);
        let next = if i + 1 < depth {
            headers[i + 1]
        } else {
            latches[i]
        };
        fb.jump(next);
        // Latch i: back to header i, or out to the enclosing loop's latch (or the exit).
        fb.switch_to_block(latches[i]);
        let out = if i > 0 { latches[i - 1] } else { exit };
        fb.brif(c, headers[i], out);
    }
    fb.switch_to_block(exit);
    fb.ret(None);
    (func, headers, latches)
}

/// Control dependence is left out here: its size is inherently quadratic in this shape
/// (every inner header depends on every outer latch), and it is computed in time linear
/// in its size.
#[test]
fn deeply_nested_loops() {
    let (func, h, t) = deep_nest();
    let depth = h.len();
    let cfg = ControlFlowGraph::with_function(&func);
    let dt = DominatorTree::with_function(&func, &cfg);
    assert_eq!(dt.idom(t[0]), Some(t[1]));
    let pdt = PostDominatorTree::with_function(&func, &cfg);
    assert_eq!(pdt.ipdom(h[0]), Some(h[1]));
    assert_eq!(pdt.ipdom(t[depth - 1]), Some(t[depth - 2]));
    let forest = LoopForest::with_cfg(&cfg, &dt);
    assert_eq!(forest.num_loops(), depth);
    let inner = forest.innermost_loop(t[depth - 1]).expect("in a loop");
    assert_eq!(forest.header(inner), h[depth - 1]);
    assert_eq!(forest.depth(inner), depth as u32);
    assert_eq!(forest.loop_depth(h[depth / 2]), depth as u32 / 2 + 1);
    assert!(forest.is_reducible());
    let live = Liveness::with_function(&func, &cfg);
    assert!(live.is_live_in(func.params[0].value, h[depth / 2]));
}
