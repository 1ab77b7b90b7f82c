//! The one dominator engine: the dominator and post-dominator trees of `lanes-analysis`,
//! the verifier's SSA dominance check, the generator's skeletons and the vectorizer's
//! block orders all run it.
//!
//! Post-dominance is dominance in the reversed graph rooted at an exit (PLDI'18 §2.1, after
//! Cytron et al. [9]: "symmetrically"), so both trees are computed by the same code over a
//! graph *view*: dense node indices, successor and predecessor lists ([`Adjacency`]) and a
//! root. [`DomTreeCore::compute`] implements the Semi-NCA algorithm (Georgiadis' variant of
//! Lengauer–Tarjan, the one LLVM's `GenericDomTreeConstruction.h` uses):
//!
//! 1. a depth-first search from the root numbers the reached nodes in preorder;
//! 2. semidominators in reverse preorder, with `eval` over a path-compressed forest
//!    (`O(m log n)`);
//! 3. each immediate dominator is the nearest ancestor of the DFS parent, in the partially
//!    built tree, whose number is at most the semidominator's.
//!
//! The tree is then numbered by a second depth-first search (preorder entry and postorder
//! exit), so that "`a` dominates `b`" is the O(1) interval test of Cranelift's
//! `dominator_tree.rs`. Every traversal uses an explicit stack: functions with 100,000
//! blocks in a chain must not overflow the call stack. Nodes the root does not reach are
//! not in the tree; every query about them answers "no".

use super::{depth_first, Adjacency, NONE};

/// The dominator tree of a rooted graph view, over dense node indices.
#[derive(Clone, Debug, Default)]
pub struct DomTreeCore {
    idom: Vec<u32>,
    depth: Vec<u32>,
    /// Tree preorder number (entry time) and postorder number (exit time), `NONE` if the
    /// node is not reached.
    pre: Vec<u32>,
    post: Vec<u32>,
    children: Adjacency,
    /// Reached nodes in reverse postorder of the graph search.
    rpo: Vec<u32>,
}

impl DomTreeCore {
    /// The dominator tree of the graph (`succs`, `preds`) rooted at `root`. The two lists
    /// must describe the same edges; successors are visited from the back of each list.
    pub fn compute(root: u32, succs: &Adjacency, preds: &Adjacency) -> Self {
        let n = succs.len();
        debug_assert_eq!(n, preds.len());
        // Step 0: DFS preorder numbers 1..=m (0 = not reached) and DFS-tree parents.
        let dfs = depth_first(root, succs);
        let num: Vec<u32> = dfs.number.iter().map(|&k| k.wrapping_add(1)).collect();
        let vertex: Vec<u32> = std::iter::once(NONE)
            .chain(dfs.preorder.iter().copied())
            .collect();
        let parent: Vec<u32> = std::iter::once(0)
            .chain(dfs.parent.iter().map(|&p| p.wrapping_add(1)))
            .collect();
        let postorder = dfs.postorder;
        let m = vertex.len() - 1;

        // Step 1: semidominators, by DFS number.
        let mut semi: Vec<u32> = (0..=m as u32).collect();
        let mut label: Vec<u32> = (0..=m as u32).collect();
        let mut ancestor = parent.clone();
        let mut eval_stack = Vec::new();
        for w in (2..=m).rev() {
            let mut s = parent[w];
            for &p in preds.get(vertex[w]) {
                let pn = num[p as usize];
                if pn == 0 {
                    continue;
                }
                let u = eval(
                    pn,
                    w as u32 + 1,
                    &mut ancestor,
                    &mut label,
                    &semi,
                    &mut eval_stack,
                );
                s = s.min(semi[u as usize]);
            }
            semi[w] = s;
        }

        // Step 2: immediate dominators (nearest common ancestor of parent and semi).
        let mut idom_num = parent;
        for w in 2..=m {
            let mut x = idom_num[w];
            while x > semi[w] {
                x = idom_num[x as usize];
            }
            idom_num[w] = x;
        }

        let mut idom = vec![NONE; n];
        for w in 2..=m {
            idom[vertex[w] as usize] = vertex[idom_num[w] as usize];
        }
        let rpo: Vec<u32> = postorder.into_iter().rev().collect();
        let children = children_in_order(n, &idom, &rpo);
        let mut core = DomTreeCore {
            idom,
            depth: vec![0; n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
            children,
            rpo,
        };
        core.number_tree(root);
        core
    }

    /// Preorder/postorder numbers and depths by a DFS of the tree with an explicit stack.
    fn number_tree(&mut self, root: u32) {
        let (mut pre, mut post) = (0u32, 0u32);
        self.pre[root as usize] = pre;
        pre += 1;
        let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            let kids = self.children.get(v);
            if next == kids.len() {
                self.post[v as usize] = post;
                post += 1;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let c = kids[next];
            self.pre[c as usize] = pre;
            pre += 1;
            self.depth[c as usize] = self.depth[v as usize] + 1;
            stack.push((c, 0));
        }
    }

    /// Is `node` in the tree (reached from the root)?
    pub fn contains(&self, node: u32) -> bool {
        self.pre.get(node as usize).is_some_and(|&p| p != NONE)
    }

    /// The immediate dominator, `NONE` for the root and unreached nodes.
    pub fn idom(&self, node: u32) -> u32 {
        self.idom.get(node as usize).copied().unwrap_or(NONE)
    }

    /// Does `a` dominate `b` (reflexively)? False if either is not in the tree.
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.contains(a)
            && self.contains(b)
            && self.pre[a as usize] <= self.pre[b as usize]
            && self.post[b as usize] <= self.post[a as usize]
    }

    /// Depth in the tree (the root has depth 0); meaningful only for contained nodes.
    pub fn depth(&self, node: u32) -> u32 {
        self.depth[node as usize]
    }

    /// Tree children in reverse postorder of the graph search.
    pub fn children(&self, node: u32) -> &[u32] {
        self.children.get(node)
    }

    /// Reached nodes in reverse postorder of the graph search from the root.
    pub fn rpo(&self) -> &[u32] {
        &self.rpo
    }

    /// The tree preorder number of a contained node (the root is 0).
    pub fn preorder_number(&self, node: u32) -> u32 {
        self.pre[node as usize]
    }

    /// The nearest common dominator of two contained nodes.
    pub fn common_dominator(&self, mut a: u32, mut b: u32) -> u32 {
        while self.depth(a) > self.depth(b) {
            a = self.idom[a as usize];
        }
        while self.depth(b) > self.depth(a) {
            b = self.idom[b as usize];
        }
        while a != b {
            a = self.idom[a as usize];
            b = self.idom[b as usize];
        }
        a
    }
}

/// `eval` of Lengauer–Tarjan with path compression, iteratively (LLVM's formulation): the
/// DFS number of the node with minimal semidominator on the forest path from `v` up to, but
/// excluding, its forest root. Nodes numbered `last_linked` and above are linked.
fn eval(
    v: u32,
    last_linked: u32,
    ancestor: &mut [u32],
    label: &mut [u32],
    semi: &[u32],
    stack: &mut Vec<u32>,
) -> u32 {
    if ancestor[v as usize] < last_linked {
        return label[v as usize];
    }
    stack.clear();
    let mut x = v;
    loop {
        stack.push(x);
        x = ancestor[x as usize];
        if ancestor[x as usize] < last_linked {
            break;
        }
    }
    let mut p = x;
    let mut p_label = label[p as usize];
    while let Some(y) = stack.pop() {
        ancestor[y as usize] = ancestor[p as usize];
        let y_label = label[y as usize];
        if semi[p_label as usize] < semi[y_label as usize] {
            label[y as usize] = p_label;
        } else {
            p_label = y_label;
        }
        p = y;
    }
    label[v as usize]
}

/// The children lists of the tree given by `idom`, each ordered by position in `rpo`.
fn children_in_order(n: usize, idom: &[u32], rpo: &[u32]) -> Adjacency {
    let mut count = vec![0u32; n];
    for &v in rpo {
        if idom[v as usize] != NONE {
            count[idom[v as usize] as usize] += 1;
        }
    }
    let mut start = vec![0u32; n + 1];
    for i in 0..n {
        start[i + 1] = start[i] + count[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; start[n] as usize];
    for &v in rpo {
        let d = idom[v as usize];
        if d != NONE {
            items[fill[d as usize] as usize] = v;
            fill[d as usize] += 1;
        }
    }
    Adjacency::from_parts(start, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32)]) -> (Adjacency, Adjacency) {
        let mut s = Adjacency::new();
        let mut p = Adjacency::new();
        for v in 0..n as u32 {
            s.push_node(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
            p.push_node(edges.iter().filter(|e| e.1 == v).map(|e| e.0));
        }
        (s, p)
    }

    #[test]
    fn lengauer_tarjan_paper_example() {
        // The flow graph of Lengauer & Tarjan (1979), Fig. 1, with R..L renamed 0..12.
        let (r, a, b, c, d, e, f, g, h, i, j, k, l) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        let edges = [
            (r, a),
            (r, b),
            (r, c),
            (a, d),
            (b, a),
            (b, d),
            (b, e),
            (c, f),
            (c, g),
            (d, l),
            (e, h),
            (f, i),
            (g, i),
            (g, j),
            (h, e),
            (h, k),
            (i, k),
            (j, i),
            (k, r),
            (k, i),
            (l, h),
        ];
        let (s, p) = graph(13, &edges);
        let t = DomTreeCore::compute(r, &s, &p);
        let expect = [
            (a, r),
            (b, r),
            (c, r),
            (d, r),
            (e, r),
            (f, c),
            (g, c),
            (h, r),
            (i, r),
            (j, g),
            (k, r),
            (l, d),
        ];
        for (v, d) in expect {
            assert_eq!(t.idom(v), d, "idom of node {v}");
        }
        assert_eq!(t.idom(r), NONE);
        assert!(t.dominates(c, j) && t.dominates(r, l) && !t.dominates(b, e));
        assert_eq!(t.common_dominator(j, f), c);
        assert_eq!(t.depth(j), 3);
    }

    #[test]
    fn long_chain_does_not_overflow_the_stack() {
        let n = 200_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|v| (v, v + 1)).collect();
        let mut s = Adjacency::new();
        let mut p = Adjacency::new();
        for v in 0..n {
            s.push_node((v + 1 < n).then_some(v + 1));
            p.push_node((v > 0).then(|| v - 1));
        }
        assert_eq!(edges.len() as u32, n - 1);
        let t = DomTreeCore::compute(0, &s, &p);
        assert_eq!(t.idom(n - 1), n - 2);
        assert_eq!(t.depth(n - 1), n - 1);
        assert!(t.dominates(1, n - 1) && !t.dominates(n - 1, 1));
    }

    #[test]
    fn unreached_nodes_are_outside_the_tree() {
        let (s, p) = graph(3, &[(0, 1), (2, 1)]);
        let t = DomTreeCore::compute(0, &s, &p);
        assert!(!t.contains(2));
        assert_eq!(t.idom(2), NONE);
        assert_eq!(t.idom(1), 0);
        assert!(!t.dominates(2, 2) && !t.dominates(0, 2));
        assert_eq!(t.rpo(), &[0, 1]);
    }
}
