//! Graph algorithms over dense node indices: the one engine for depth-first orders,
//! dominator trees and strongly connected components.
//!
//! Every control-flow fact in lanes comes from here. The dominator and post-dominator trees
//! of `lanes-analysis` (PLDI'18 §2.1), its loop forest and call graph, the verifier's SSA
//! dominance check, the random generator's skeletons, the vectorizer's block orders and
//! control dependence, and the LLVM bridge's block orders all build a graph view
//! ([`Adjacency`] lists over `0..n`) and run the same code, so that each algorithm is
//! written, tested against brute-force definitions, and made fast once. It lives at the
//! bottom of the crate graph because the IR's own verifier needs it.
//!
//! - [`depth_first`]: preorder, DFS-tree parents and postorder from a root;
//! - [`DomTreeCore`]: Semi-NCA dominator trees with O(1) dominance queries;
//! - [`strongly_connected_components`]: Tarjan's algorithm;
//! - [`BlockGraph`]: a function's CFG as such a view.
//!
//! Every traversal keeps an explicit stack: a chain of 100,000 blocks must not overflow the
//! call stack.

mod block_graph;
mod dom_tree;
mod scc;

pub use block_graph::BlockGraph;
pub use dom_tree::DomTreeCore;
pub use scc::strongly_connected_components;

/// Marks a missing node (no immediate dominator, not reached).
pub const NONE: u32 = u32::MAX;

/// Adjacency lists of nodes `0..len()` in compressed form.
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Adjacency {
    /// An empty graph; nodes are added in order by [`push_node`](Self::push_node).
    pub fn new() -> Self {
        Adjacency {
            start: vec![0],
            items: Vec::new(),
        }
    }

    /// The graph with `n` nodes whose lists are `items[start[i]..start[i + 1]]`.
    pub(crate) fn from_parts(start: Vec<u32>, items: Vec<u32>) -> Self {
        debug_assert!(start.first() == Some(&0) && start.last() == Some(&(items.len() as u32)));
        Adjacency { start, items }
    }

    /// Adds the next node with neighbours `items`.
    pub fn push_node(&mut self, items: impl IntoIterator<Item = u32>) {
        self.items.extend(items);
        self.start.push(self.items.len() as u32);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Does the graph have no node?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours of `node`.
    pub fn get(&self, node: u32) -> &[u32] {
        let n = node as usize;
        &self.items[self.start[n] as usize..self.start[n + 1] as usize]
    }

    /// The same nodes with every edge reversed; each node's list is in increasing order of
    /// the other end, then of position.
    pub fn reversed(&self) -> Adjacency {
        let n = self.len();
        let mut count = vec![0u32; n + 1];
        for &w in &self.items {
            count[w as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut items = vec![0u32; self.items.len()];
        for v in 0..n as u32 {
            for &w in self.get(v) {
                items[fill[w as usize] as usize] = v;
                fill[w as usize] += 1;
            }
        }
        Adjacency::from_parts(count, items)
    }
}

/// The result of a depth-first search from one root.
#[derive(Clone, Debug, Default)]
pub struct DepthFirst {
    /// Reached nodes in preorder (the root first).
    pub preorder: Vec<u32>,
    /// Preorder number of each node (the root has 0), `NONE` if not reached.
    pub number: Vec<u32>,
    /// Parent in the DFS tree, by preorder number (`NONE` for the root).
    pub parent: Vec<u32>,
    /// Reached nodes in postorder.
    pub postorder: Vec<u32>,
}

impl DepthFirst {
    /// Reached nodes in reverse postorder: every node after its dominators, and, along
    /// edges that are not back edges, after its predecessors.
    pub fn reverse_postorder(&self) -> Vec<u32> {
        self.postorder.iter().rev().copied().collect()
    }
}

/// A depth-first search of `succs` from `root` that visits each node's successors from the
/// back of its list, so that of two independent successors the first in list order comes
/// first in reverse postorder (a diamond `0 → 1, 2 → 3` gives `0 1 2 3`).
pub fn depth_first(root: u32, succs: &Adjacency) -> DepthFirst {
    let n = succs.len();
    let mut dfs = DepthFirst {
        number: vec![NONE; n],
        ..DepthFirst::default()
    };
    if root as usize >= n {
        return dfs;
    }
    dfs.number[root as usize] = 0;
    dfs.preorder.push(root);
    dfs.parent.push(NONE);
    let mut stack: Vec<(u32, usize)> = vec![(root, succs.get(root).len())];
    while let Some(top) = stack.last_mut() {
        let (v, remaining) = *top;
        if remaining == 0 {
            dfs.postorder.push(v);
            stack.pop();
            continue;
        }
        top.1 -= 1;
        let w = succs.get(v)[remaining - 1];
        if dfs.number[w as usize] == NONE {
            dfs.number[w as usize] = dfs.preorder.len() as u32;
            dfs.parent.push(dfs.number[v as usize]);
            dfs.preorder.push(w);
            stack.push((w, succs.get(w).len()));
        }
    }
    dfs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_orders_follow_list_order() {
        let mut s = Adjacency::new();
        for list in [&[1u32, 2][..], &[3], &[3], &[]] {
            s.push_node(list.iter().copied());
        }
        let dfs = depth_first(0, &s);
        assert_eq!(dfs.reverse_postorder(), vec![0, 1, 2, 3]);
        assert_eq!(dfs.preorder, vec![0, 2, 3, 1]);
        assert_eq!(dfs.parent, vec![NONE, 0, 1, 0]);
        let r = s.reversed();
        assert_eq!(r.get(3), &[1, 2]);
        assert_eq!(r.get(0), &[] as &[u32]);
    }
}
