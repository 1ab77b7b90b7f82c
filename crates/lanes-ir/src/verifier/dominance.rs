//! Block dominance for the verifier's SSA check.
//!
//! `lanes-ir` cannot use `lanes-analysis` (which depends on it), so the verifier carries
//! this compact version of the iterative algorithm of Cooper, Harvey and Kennedy ("A
//! Simple, Fast Dominance Algorithm", 2001) over reverse postorder. `lanes-analysis` has
//! the full dominator tree with its queries; this one answers only "does a dominate b", in
//! constant time from the pre- and postorder numbers of the dominator tree (a walk up the
//! tree per use would make the check quadratic on long chains of blocks).

use cranelift_entity::SecondaryMap;

use crate::entities::Block;
use crate::function::Function;

pub(super) struct BlockDominance {
    /// Reverse-postorder number of each reachable block (0 = entry); `u32::MAX` otherwise.
    rpo_number: SecondaryMap<Block, u32>,
    /// Preorder and postorder numbers in the dominator tree.
    pre: SecondaryMap<Block, u32>,
    post: SecondaryMap<Block, u32>,
}

impl BlockDominance {
    pub(super) fn compute(func: &Function) -> Self {
        let mut rpo_number = SecondaryMap::with_default(u32::MAX);
        let mut idom: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        let Some(entry) = func.entry_block() else {
            return BlockDominance {
                rpo_number,
                pre: SecondaryMap::new(),
                post: SecondaryMap::new(),
            };
        };
        // Iterative DFS postorder (no recursion: functions can be very large).
        let mut post = Vec::new();
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![(entry, func.successors(entry), 0usize)];
        visited[entry] = true;
        while let Some((block, succs, next)) = stack.last_mut() {
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if func.layout.is_block_inserted(s) && !visited[s] {
                    visited[s] = true;
                    let ss = func.successors(s);
                    stack.push((s, ss, 0));
                }
            } else {
                post.push(*block);
                stack.pop();
            }
        }
        let rpo: Vec<Block> = post.into_iter().rev().collect();
        for (i, &b) in rpo.iter().enumerate() {
            rpo_number[b] = i as u32;
        }
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &rpo {
            for s in func.successors(b) {
                if rpo_number[s] != u32::MAX && !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        idom[entry] = Some(entry);
        let intersect = |idom: &SecondaryMap<Block, Option<Block>>, mut a: Block, mut b: Block| {
            while a != b {
                while rpo_number[a] > rpo_number[b] {
                    a = idom[a].expect("processed block has an idom");
                }
                while rpo_number[b] > rpo_number[a] {
                    b = idom[b].expect("processed block has an idom");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new_idom = None;
                for &p in &preds[b] {
                    if idom[p].is_some() {
                        new_idom = Some(match new_idom {
                            None => p,
                            Some(cur) => intersect(&idom, p, cur),
                        });
                    }
                }
                if new_idom.is_some() && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        // Number the dominator tree in pre- and postorder (iteratively).
        let mut children: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in rpo.iter().skip(1) {
            if let Some(p) = idom[b] {
                children[p].push(b);
            }
        }
        let mut pre = SecondaryMap::new();
        let mut post = SecondaryMap::new();
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        let mut stack = vec![(entry, 0usize)];
        pre[entry] = pre_n;
        pre_n += 1;
        while let Some((b, next)) = stack.last_mut() {
            if let Some(&c) = children[*b].get(*next) {
                *next += 1;
                pre[c] = pre_n;
                pre_n += 1;
                stack.push((c, 0));
            } else {
                post[*b] = post_n;
                post_n += 1;
                stack.pop();
            }
        }
        BlockDominance {
            rpo_number,
            pre,
            post,
        }
    }

    pub(super) fn is_reachable(&self, b: Block) -> bool {
        self.rpo_number[b] != u32::MAX
    }

    /// Does `a` dominate `b` (reflexive)? Both must be reachable.
    pub(super) fn dominates(&self, a: Block, b: Block) -> bool {
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}
