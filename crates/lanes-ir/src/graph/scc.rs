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
    let mut index = vec![NONE; n];
    let mut lowlink = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut scc_stack: Vec<u32> = Vec::new();
    let mut components = Vec::new();
    let mut next_index = 0u32;
    let mut call: Vec<(u32, usize)> = Vec::new();
    for start in 0..n as u32 {
        if !include(start) || index[start as usize] != NONE {
            continue;
        }
        index[start as usize] = next_index;
        lowlink[start as usize] = next_index;
        next_index += 1;
        scc_stack.push(start);
        on_stack[start as usize] = true;
        call.push((start, 0));
        while let Some(top) = call.last_mut() {
            let (v, next) = *top;
            let out = succs.get(v);
            if next < out.len() {
                top.1 += 1;
                let w = out[next];
                if !include(w) {
                    continue;
                }
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    lowlink[w as usize] = next_index;
                    next_index += 1;
                    scc_stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    lowlink[v as usize] = lowlink[v as usize].min(index[w as usize]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                lowlink[parent as usize] = lowlink[parent as usize].min(lowlink[v as usize]);
            }
            if lowlink[v as usize] == index[v as usize] {
                let pos = scc_stack
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("the root of a component is on the stack");
                let component: Vec<u32> = scc_stack.drain(pos..).collect();
                for &x in &component {
                    on_stack[x as usize] = false;
                }
                components.push(component);
            }
        }
    }
    components
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
