//! The block index of partial linearization (PLDI'18 §3.1).
//!
//! A block index is a topological order of the CFG without its back edges that is
//! *compact* for every loop (the blocks of a loop form one interval, header first, latch
//! last — §3.3 re-inserts the back edge at the latch, Fig. 8 bottom shows what goes wrong
//! otherwise) and for every dominance region (the blocks a block dominates form one
//! interval — Theorem 4.5 needs it, Fig. 8 top).
//!
//! Both compactness constraints cannot hold literally for the flat CFG: a loop's exit
//! block dominated by a block inside the loop would have to sit both next to its
//! dominator and after the whole loop. The index is therefore built hierarchically, as
//! the loop nesting forest suggests: at each level (the function, or the body of one
//! loop) every child loop is collapsed into one node; edges leaving the level are
//! ignored. The level's nodes are ordered by emitting the dominator tree of that node
//! graph in preorder, with the children of each node ordered topologically by the edges
//! between their subtrees (an edge entering a subtree enters at its root, so this order
//! exists). A collapsed loop expands in place to the index of its body. The result is
//! loop-compact, topological, and dominance-compact within every level.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use cranelift_entity::SecondaryMap;
use lanes_analysis::{ControlFlowGraph, Loop, LoopForest};
use lanes_ir::graph::{Adjacency, DomTreeCore, NONE};
use lanes_ir::Block;

/// A dominance- and loop-compact topological block order.
#[derive(Clone, Debug, Default)]
pub struct BlockIndex {
    order: Vec<Block>,
    /// The position of each block in `order` (none for unreachable blocks).
    pos: SecondaryMap<Block, Option<usize>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Block(Block),
    Loop(Loop),
}

impl BlockIndex {
    /// Computes the index of the reachable blocks. The CFG must be reducible.
    pub fn compute(cfg: &ControlFlowGraph, loops: &LoopForest) -> BlockIndex {
        let mut order = Vec::new();
        if let Some(entry) = cfg.entry() {
            order_level(cfg, loops, None, entry, &mut order);
        }
        let pos = order
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, Some(i)))
            .collect();
        BlockIndex { order, pos }
    }

    /// The blocks in index order.
    pub fn order(&self) -> &[Block] {
        &self.order
    }

    /// The index of `b` (None if unreachable).
    pub fn pos(&self, b: Block) -> Option<usize> {
        self.pos[b]
    }

    /// Successors of `b` without back edges, in branch order, deduplicated.
    pub fn dag_succs(cfg: &ControlFlowGraph, loops: &LoopForest, b: Block) -> Vec<Block> {
        cfg.succs(b)
            .iter()
            .copied()
            .filter(|&s| !loops.is_back_edge(b, s))
            .collect()
    }
}

/// The node representing `b` at the level of loop `level` (None: the function).
fn node_of(loops: &LoopForest, level: Option<Loop>, b: Block) -> Option<Node> {
    let mut l = loops.innermost_loop(b);
    if l == level {
        return Some(Node::Block(b));
    }
    while let Some(x) = l {
        let parent = loops.parent(x);
        if parent == level {
            return Some(Node::Loop(x));
        }
        l = parent;
    }
    None
}

fn order_level(
    cfg: &ControlFlowGraph,
    loops: &LoopForest,
    level: Option<Loop>,
    entry: Block,
    out: &mut Vec<Block>,
) {
    // Nodes of this level in RPO of their first block.
    let members: Vec<Block> = match level {
        None => cfg.rpo().to_vec(),
        Some(l) => {
            let mut v: Vec<Block> = loops.blocks(l).to_vec();
            v.sort_by_key(|&b| cfg.rpo_number(b));
            v
        }
    };
    let mut nodes: Vec<Node> = Vec::new();
    // The number of each node of this level: few of the function's blocks and loops, and
    // one level per loop, so a map over all of them would cost more than the level.
    let mut idx: HashMap<Node, usize> = HashMap::new();
    for &b in &members {
        if let Some(n) = node_of(loops, level, b) {
            idx.entry(n).or_insert_with(|| {
                nodes.push(n);
                nodes.len() - 1
            });
        }
    }
    let n = nodes.len();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &b in &members {
        let Some(u) = node_of(loops, level, b).and_then(|x| idx.get(&x).copied()) else {
            continue;
        };
        for s in BlockIndex::dag_succs(cfg, loops, b) {
            let Some(v) = node_of(loops, level, s).and_then(|x| idx.get(&x).copied()) else {
                continue;
            };
            if u != v && !succs[u].contains(&v) {
                succs[u].push(v);
                preds[v].push(u);
            }
        }
    }
    let Some(&root) = node_of(loops, level, entry).and_then(|x| idx.get(&x)) else {
        return;
    };
    // Topological order (Kahn, ties by RPO position = node number).
    let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| indeg[i] == 0).map(Reverse).collect();
    let mut topo = Vec::with_capacity(n);
    while let Some(Reverse(u)) = ready.pop() {
        topo.push(u);
        for &v in &succs[u] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                ready.push(Reverse(v));
            }
        }
    }
    let mut tpos = vec![usize::MAX; n];
    for (i, &u) in topo.iter().enumerate() {
        tpos[u] = i;
    }
    // The dominator tree of the node DAG from the shared engine; children in topological
    // order.
    let mut succ_adj = Adjacency::new();
    let mut pred_adj = Adjacency::new();
    for u in 0..n {
        succ_adj.push_node(succs[u].iter().map(|&v| v as u32));
        pred_adj.push_node(preds[u].iter().map(|&v| v as u32));
    }
    let tree = DomTreeCore::compute(root as u32, &succ_adj, &pred_adj);
    let mut idom = vec![usize::MAX; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &v in &topo {
        let d = tree.idom(v as u32);
        if v != root && d != NONE {
            idom[v] = d as usize;
            children[d as usize].push(v);
        }
    }
    // Ordering constraints between siblings: an edge u → v with idom(v) ≠ u orders the
    // child of idom(v) that contains u before v.
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 0..n {
        for &u in &preds[v] {
            let iv = idom[v];
            if iv == usize::MAX || u == iv {
                continue;
            }
            let mut c = u;
            while idom[c] != iv && idom[c] != usize::MAX {
                c = idom[c];
            }
            if idom[c] == iv && c != v && !before[v].contains(&c) {
                before[v].push(c);
            }
        }
    }
    let mut stack = vec![root];
    while let Some(u) = stack.pop() {
        match nodes[u] {
            Node::Block(b) => out.push(b),
            Node::Loop(l) => order_level(cfg, loops, Some(l), loops.header(l), out),
        }
        // Children in a topological order of the sibling constraints; pushed reversed.
        let kids = &children[u];
        let mut placed: Vec<usize> = Vec::new();
        let mut left: Vec<usize> = kids.clone();
        while !left.is_empty() {
            let pick = left
                .iter()
                .copied()
                .filter(|&k| before[k].iter().all(|c| !left.contains(c)))
                .min_by_key(|&k| tpos[k])
                .unwrap_or(left[0]);
            left.retain(|&k| k != pick);
            placed.push(pick);
        }
        // Each child subtree is emitted whole before the next: a DFS stack does that.
        for &k in placed.iter().rev() {
            stack.push(k);
        }
    }
}
