//! Step 2 of the reconverging transform: the order in which the OpenTree visits the
//! blocks ("Input orderings" of the reconverging-CFG paper). The order decides where
//! edges are found crossing and rerouted, so how many flow blocks are inserted and how
//! many uniform branches survive.
//!
//! Every order is topological for the forward edges: a block comes after all of its
//! predecessors except along the back edges of a depth-first search from the entry
//! (which break every cycle, reducible or not). The OpenTree relies on it: a join must be
//! visited after all of its forward predecessors, or an armed region closing there goes
//! unnoticed (the paper's Fig. 4 visits A, C, B, D; a preorder A, B, D, C would close
//! the edge C → D as if it were a loop's back edge). The four orders differ in which ready
//! block comes next:
//!
//! - **DF**: depth-first — the last block that became ready (its first successor first);
//! - **DFPD**: depth-first obeying post-dominance — as DF, but a ready block that
//!   post-dominates another ready one waits for it, so the code of a region comes before
//!   the block where it joins;
//! - **BF**: breadth-first — the block that has been ready longest;
//! - **RPOT**: reverse post-order of the depth-first search.
//!
//! In all four the sink comes last: visited while a cycle is still open, it closes the
//! cycle's exits before the cycle is reconverged, and the OpenTree then leaves a flow
//! block of an irreducible cycle without a primary successor (seen on generated
//! functions before this rule).

use std::collections::VecDeque;

use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_analysis::{ControlFlowGraph, PostDominatorTree};
use lanes_ir::{Block, Function};

/// How the transform orders the blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlockOrder {
    /// Depth-first.
    DepthFirst,
    /// Depth-first, post-dominators after the regions they close.
    #[default]
    DepthFirstPostDom,
    /// Breadth-first.
    BreadthFirst,
    /// Reverse post-order.
    ReversePostOrder,
}

impl BlockOrder {
    pub const ALL: [BlockOrder; 4] = [
        BlockOrder::DepthFirst,
        BlockOrder::DepthFirstPostDom,
        BlockOrder::BreadthFirst,
        BlockOrder::ReversePostOrder,
    ];

    /// The short name the paper and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            BlockOrder::DepthFirst => "df",
            BlockOrder::DepthFirstPostDom => "dfpd",
            BlockOrder::BreadthFirst => "bf",
            BlockOrder::ReversePostOrder => "rpot",
        }
    }
}

/// The reachable blocks of `func` in `order`, entry first.
pub fn block_order(
    func: &Function,
    cfg: &ControlFlowGraph,
    pdt: &PostDominatorTree,
    order: BlockOrder,
) -> Vec<Block> {
    let Some(entry) = func.layout.entry_block() else {
        return Vec::new();
    };
    let search = DepthFirst::run(cfg, entry);
    if order == BlockOrder::ReversePostOrder {
        let mut rpo = search.post_order.clone();
        rpo.reverse();
        // The sink last, as below (it has no successors, so the order stays topological).
        let (mut body, sinks): (Vec<Block>, Vec<Block>) =
            rpo.into_iter().partition(|&b| !cfg.succs(b).is_empty());
        body.extend(sinks);
        return body;
    }
    // Forward predecessors not yet visited, per block.
    let mut waiting: SecondaryMap<Block, usize> = SecondaryMap::new();
    for &b in &search.post_order {
        for &s in cfg.succs(b) {
            if !search.is_back_edge(b, s) {
                waiting[s] += 1;
            }
        }
    }
    let mut ready: VecDeque<Block> = VecDeque::from([entry]);
    let mut out = Vec::with_capacity(search.post_order.len());
    while !ready.is_empty() {
        // The sink comes last: visiting it while cycles are still open would close their
        // exits before the cycles themselves are reconverged.
        let sink_last = |at: usize| {
            if cfg.succs(ready[at]).is_empty() {
                (0..ready.len())
                    .rev()
                    .find(|&i| !cfg.succs(ready[i]).is_empty())
                    .unwrap_or(at)
            } else {
                at
            }
        };
        let at = match order {
            BlockOrder::BreadthFirst => 0,
            BlockOrder::DepthFirstPostDom => {
                // The latest ready block that post-dominates no other ready block.
                let joins = |b: Block| {
                    ready
                        .iter()
                        .any(|&o| o != b && pdt.contains(o) && pdt.post_dominates(b, o))
                };
                (0..ready.len())
                    .rev()
                    .find(|&i| !joins(ready[i]))
                    .unwrap_or(ready.len() - 1)
            }
            _ => ready.len() - 1,
        };
        let at = sink_last(at);
        let Some(b) = ready.remove(at) else {
            break;
        };
        out.push(b);
        let succs = cfg.succs(b);
        // Depth-first orders take the first successor next: push it last.
        let pushed: Vec<Block> = if order == BlockOrder::BreadthFirst {
            succs.to_vec()
        } else {
            succs.iter().rev().copied().collect()
        };
        for s in pushed {
            if search.is_back_edge(b, s) || waiting[s] == 0 {
                continue;
            }
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push_back(s);
            }
        }
    }
    out
}

/// A depth-first search from the entry: its post-order and its back edges (to a block
/// still on the search's stack).
struct DepthFirst {
    post_order: Vec<Block>,
    back_edges: Vec<(Block, Block)>,
}

impl DepthFirst {
    fn run(cfg: &ControlFlowGraph, entry: Block) -> DepthFirst {
        let mut seen = EntitySet::new();
        let mut on_stack = EntitySet::new();
        let mut post_order = Vec::new();
        let mut back_edges = Vec::new();
        // (block, index of the next successor to visit)
        let mut stack = vec![(entry, 0usize)];
        seen.insert(entry);
        on_stack.insert(entry);
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = cfg.succs(b);
            if *next < succs.len() {
                let s = succs[*next];
                *next += 1;
                if on_stack.contains(s) {
                    back_edges.push((b, s));
                } else if seen.insert(s) {
                    on_stack.insert(s);
                    stack.push((s, 0));
                }
            } else {
                post_order.push(b);
                on_stack.remove(b);
                stack.pop();
            }
        }
        DepthFirst {
            post_order,
            back_edges,
        }
    }

    fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.back_edges.contains(&(from, to))
    }
}
