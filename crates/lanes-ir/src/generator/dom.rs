//! Dominator tree of a planned CFG, for emitting instructions in dominance order.
//!
//! The generator cannot use `lanes-analysis` (which depends on this crate), and needs
//! dominators of a skeleton before any IR exists, so it has its own small engine: the
//! iterative algorithm of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm"
//! (2001), over reverse postorder. It handles irreducible CFGs; on the skeletons the
//! generator plans (mostly short forward edges) it converges in two or three passes.

/// Children of each block in the dominator tree rooted at block 0, ascending. Blocks
/// unreachable from block 0 appear nowhere.
pub(super) fn dominator_children(succs: &[Vec<usize>], preds: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut children = vec![vec![]; n];
    if n == 0 {
        return children;
    }
    let rpo = reverse_postorder(succs);
    const UNDEF: usize = usize::MAX;
    let mut rpo_index = vec![UNDEF; n];
    for (k, &b) in rpo.iter().enumerate() {
        rpo_index[b] = k;
    }
    // `idom` in RPO indices.
    let mut idom = vec![UNDEF; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for (k, &b) in rpo.iter().enumerate().skip(1) {
            let mut new_idom = UNDEF;
            for &p in &preds[b] {
                let pk = rpo_index[p];
                if pk == UNDEF || idom[pk] == UNDEF {
                    continue;
                }
                new_idom = if new_idom == UNDEF {
                    pk
                } else {
                    intersect(&idom, pk, new_idom)
                };
            }
            if new_idom != idom[k] {
                idom[k] = new_idom;
                changed = true;
            }
        }
    }
    for (k, &b) in rpo.iter().enumerate().skip(1) {
        if idom[k] != UNDEF {
            children[rpo[idom[k]]].push(b);
        }
    }
    for c in &mut children {
        c.sort_unstable();
    }
    children
}

/// Is the CFG irreducible? A flow graph is reducible iff every retreating edge of a
/// depth-first search from the entry goes to a block that dominates its source (Hecht and
/// Ullman, 1974); `children` is the dominator tree.
pub(super) fn is_irreducible(succs: &[Vec<usize>], children: &[Vec<usize>]) -> bool {
    let n = succs.len();
    if n == 0 {
        return false;
    }
    // Dominance queries by preorder intervals of the dominator tree.
    let (mut pre, mut post) = (vec![0usize; n], vec![0usize; n]);
    let mut clock = 0;
    let mut stack = vec![(0usize, 0usize)];
    pre[0] = clock;
    while let Some(top) = stack.last_mut() {
        let (b, k) = *top;
        if let Some(&c) = children[b].get(k) {
            top.1 += 1;
            clock += 1;
            pre[c] = clock;
            stack.push((c, 0));
        } else {
            post[b] = clock;
            stack.pop();
        }
    }
    let dominates = |a: usize, b: usize| pre[a] <= pre[b] && post[b] <= post[a];
    // Depth-first search; state 1 = on the stack, 2 = finished.
    let mut state = vec![0u8; n];
    let mut stack = vec![(0usize, 0usize)];
    state[0] = 1;
    while let Some(top) = stack.last_mut() {
        let (b, k) = *top;
        if let Some(&s) = succs[b].get(k) {
            top.1 += 1;
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 if !dominates(s, b) => return true,
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    false
}

fn intersect(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a];
        }
        while b > a {
            b = idom[b];
        }
    }
    a
}

/// Blocks reachable from block 0 in reverse postorder (iterative DFS, successors in order).
fn reverse_postorder(succs: &[Vec<usize>]) -> Vec<usize> {
    let n = succs.len();
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if let Some(&s) = succs[b].get(next) {
            top.1 += 1;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preds_of(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let mut preds = vec![vec![]; succs.len()];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        preds
    }

    #[test]
    fn diamond_with_loop() {
        // A diamond 0 -> {1, 2} -> 3, then a loop 3 -> 4 -> 3 with exit 4 -> 5.
        let succs = vec![vec![1, 2], vec![3], vec![3], vec![4], vec![3, 5], vec![]];
        let children = dominator_children(&succs, &preds_of(&succs));
        assert_eq!(children[0], vec![1, 2, 3]);
        assert_eq!(children[3], vec![4]);
        assert_eq!(children[4], vec![5]);
    }

    #[test]
    fn irreducible_cycle_entries_are_dominated_by_the_fork() {
        // 0 -> 1, 2; 1 <-> 2; both -> 3.
        let succs = vec![vec![1, 2], vec![2, 3], vec![1, 3], vec![]];
        let children = dominator_children(&succs, &preds_of(&succs));
        assert_eq!(children[0], vec![1, 2, 3]);
        assert!(children[1].is_empty() && children[2].is_empty());
        assert!(is_irreducible(&succs, &children));
    }

    #[test]
    fn natural_loops_are_reducible() {
        // 0 -> 1; 1 -> 2, 4; 2 -> 3, 1; 3 -> 2, 4; 4: a loop {1, 2, 3} with an inner {2, 3}.
        let succs = vec![vec![1], vec![2, 4], vec![1, 3], vec![2, 4], vec![]];
        let children = dominator_children(&succs, &preds_of(&succs));
        assert!(!is_irreducible(&succs, &children));
    }
}
