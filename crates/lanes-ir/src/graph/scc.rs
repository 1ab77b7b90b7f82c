//! Strongly connected components (Tarjan 1972), iteratively.
//!
//! Two analyses need SCCs of a derived graph: the post-dominator tree connects one block of
//! every exit-free terminal SCC (an infinite loop) to its virtual exit, and the loop forest
//! reports the SCCs of the CFG without its dominator back edges as irreducible regions.
//! The search keeps its own stack of (node, next successor) instead of recursing, so that
//! long chains cannot overflow the call stack.

use super::{Adjacency, NONE};

/// The strongly connected components of the graph `succs` restricted to the nodes for
/// which `include` holds (edges to excluded nodes are ignored). Components are returned in
/// reverse topological order (every edge between components goes from a later to an
/// earlier one, so sinks come first); nodes of a component in discovery order. Searches
/// start from included nodes in increasing index order.
pub fn strongly_connected_components(
    succs: &Adjacency,
    include: impl Fn(u32) -> bool,
) -> Vec<Vec<u32>> {
    let n = succs.len();
    let mut t = Tarjan {
        index: vec![NONE; n],
        lowlink: vec![0; n],
        on_stack: vec![false; n],
        scc_stack: Vec::new(),
        call: Vec::new(),
        next_index: 0,
    };
    let mut components = Vec::new();
    for start in 0..n as u32 {
        if !include(start) || t.index[start as usize] != NONE {
            continue;
        }
        t.enter(start);
        while let Some(top) = t.call.last_mut() {
            let (v, next) = *top;
            let out = succs.get(v);
            if next < out.len() {
                top.1 += 1;
                let w = out[next];
                if !include(w) {
                    continue;
                }
                if t.index[w as usize] == NONE {
                    t.enter(w);
                } else if t.on_stack[w as usize] {
                    t.lowlink[v as usize] = t.lowlink[v as usize].min(t.index[w as usize]);
                }
                continue;
            }
            t.call.pop();
            if let Some(&(parent, _)) = t.call.last() {
                t.lowlink[parent as usize] = t.lowlink[parent as usize].min(t.lowlink[v as usize]);
            }
            if t.lowlink[v as usize] == t.index[v as usize] {
                let pos = t
                    .scc_stack
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("the root of a component is on the stack");
                let component: Vec<u32> = t.scc_stack.drain(pos..).collect();
                for &x in &component {
                    t.on_stack[x as usize] = false;
                }
                components.push(component);
            }
        }
    }
    components
}

/// The state of the search: DFS numbers, low links, the component stack and the explicit
/// call stack of (node, next successor).
struct Tarjan {
    index: Vec<u32>,
    lowlink: Vec<u32>,
    on_stack: Vec<bool>,
    scc_stack: Vec<u32>,
    call: Vec<(u32, usize)>,
    next_index: u32,
}

impl Tarjan {
    /// Numbers `v`, pushes it on the component stack and starts visiting its successors.
    fn enter(&mut self, v: u32) {
        self.index[v as usize] = self.next_index;
        self.lowlink[v as usize] = self.next_index;
        self.next_index += 1;
        self.scc_stack.push(v);
        self.on_stack[v as usize] = true;
        self.call.push((v, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adjacency(n: usize, edges: &[(u32, u32)]) -> Adjacency {
        let mut s = Adjacency::new();
        for v in 0..n as u32 {
            s.push_node(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
        }
        s
    }

    #[test]
    fn components_come_sinks_first() {
        // 0 -> {1 <-> 2} -> 3 (self-loop), 4 excluded but would join 3 and 0.
        let g = adjacency(5, &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 3), (3, 4), (4, 0)]);
        let mut sccs = strongly_connected_components(&g, |v| v != 4);
        for c in &mut sccs {
            c.sort();
        }
        assert_eq!(sccs, vec![vec![3], vec![1, 2], vec![0]]);
        let all = strongly_connected_components(&g, |_| true);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].len(), 5);
    }

    #[test]
    fn long_chain_is_iterative() {
        let n = 100_000u32;
        let mut s = Adjacency::new();
        for v in 0..n {
            s.push_node((v + 1 < n).then_some(v + 1));
        }
        let sccs = strongly_connected_components(&s, |_| true);
        assert_eq!(sccs.len(), n as usize);
        assert_eq!(sccs[0], vec![n - 1]);
    }
}
