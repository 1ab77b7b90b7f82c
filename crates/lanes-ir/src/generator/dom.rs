//! Dominator tree of a planned CFG, for emitting instructions in dominance order.
//!
//! The generator needs dominators of a skeleton before any IR exists, so it runs the shared
//! engine ([`crate::graph`]) on the skeleton's successor lists directly.

use crate::graph::{depth_first, Adjacency, DomTreeCore, NONE};

/// The dominator tree of a skeleton rooted at block 0.
pub(super) struct SkeletonDominance {
    succs: Adjacency,
    tree: DomTreeCore,
}

impl SkeletonDominance {
    pub(super) fn new(succs: &[Vec<usize>]) -> Self {
        let mut adjacency = Adjacency::new();
        for ss in succs {
            adjacency.push_node(ss.iter().map(|&s| s as u32));
        }
        let tree = if succs.is_empty() {
            DomTreeCore::default()
        } else {
            DomTreeCore::compute(0, &adjacency, &adjacency.reversed())
        };
        SkeletonDominance {
            succs: adjacency,
            tree,
        }
    }

    /// Children of each block in the dominator tree, ascending. Blocks unreachable from
    /// block 0 appear nowhere.
    pub(super) fn children(&self) -> Vec<Vec<usize>> {
        (0..self.succs.len() as u32)
            .map(|b| {
                let mut c: Vec<usize> = if self.tree.contains(b) {
                    self.tree.children(b).iter().map(|&c| c as usize).collect()
                } else {
                    Vec::new()
                };
                c.sort_unstable();
                c
            })
            .collect()
    }

    /// Is the CFG irreducible? A flow graph is reducible iff every retreating edge of a
    /// depth-first search from the entry goes to a block that dominates its source (Hecht
    /// and Ullman, 1974).
    pub(super) fn is_irreducible(&self) -> bool {
        if self.succs.is_empty() {
            return false;
        }
        let dfs = depth_first(0, &self.succs);
        let mut post = vec![NONE; self.succs.len()];
        for (k, &v) in dfs.postorder.iter().enumerate() {
            post[v as usize] = k as u32;
        }
        // `w` is a DFS ancestor of `v` (or `v` itself): entered before and left after it.
        let ancestor = |w: u32, v: u32| {
            dfs.number[w as usize] <= dfs.number[v as usize] && post[v as usize] <= post[w as usize]
        };
        dfs.preorder.iter().any(|&v| {
            self.succs
                .get(v)
                .iter()
                .any(|&w| ancestor(w, v) && !self.tree.dominates(w, v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_with_loop() {
        // A diamond 0 -> {1, 2} -> 3, then a loop 3 -> 4 -> 3 with exit 4 -> 5.
        let succs = vec![vec![1, 2], vec![3], vec![3], vec![4], vec![3, 5], vec![]];
        let d = SkeletonDominance::new(&succs);
        let children = d.children();
        assert_eq!(children[0], vec![1, 2, 3]);
        assert_eq!(children[3], vec![4]);
        assert_eq!(children[4], vec![5]);
        assert!(!d.is_irreducible());
    }

    #[test]
    fn irreducible_cycle_entries_are_dominated_by_the_fork() {
        // 0 -> 1, 2; 1 <-> 2; both -> 3.
        let succs = vec![vec![1, 2], vec![2, 3], vec![1, 3], vec![]];
        let d = SkeletonDominance::new(&succs);
        let children = d.children();
        assert_eq!(children[0], vec![1, 2, 3]);
        assert!(children[1].is_empty() && children[2].is_empty());
        assert!(d.is_irreducible());
    }

    #[test]
    fn natural_loops_are_reducible() {
        // 0 -> 1; 1 -> 2, 4; 2 -> 3, 1; 3 -> 2, 4; 4: a loop {1, 2, 3} with an inner {2, 3}.
        let succs = vec![vec![1], vec![2, 4], vec![1, 3], vec![2, 4], vec![]];
        assert!(!SkeletonDominance::new(&succs).is_irreducible());
    }
}
