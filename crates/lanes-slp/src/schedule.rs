//! Scheduling (SuperVectorization, PLDI'22 §3.4): a topological order of an item list's
//! dependence graph in which chosen groups of items — the lanes of a pack, or loops
//! being merged — run as one node, preferring the original order. Code motion in
//! Predicated SSA is exactly this reordering of a list.

use std::collections::HashMap;

use crate::dependence::ListDeps;
use crate::pack_tree::Node;
use crate::pssa::Item;

/// A topological order of the list with every pack of `trees` as one node, preferring
/// the original order; `None` if the packs make a cycle. Each entry is either an item's
/// position or a pack (tree index, node index), listed at the place it runs.
pub fn schedule(deps: &ListDeps, trees: &[&[Node]]) -> Option<Vec<Scheduled>> {
    let pos_of: HashMap<Item, usize> = deps
        .items
        .iter()
        .enumerate()
        .map(|(p, &i)| (i, p))
        .collect();
    let mut packs: Vec<(usize, usize)> = Vec::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (t, nodes) in trees.iter().enumerate() {
        for (k, node) in nodes.iter().enumerate() {
            // μ-nodes are not items: a vector μ-node is defined before the list runs.
            if node.insts().is_empty() || matches!(node, Node::Mu { .. }) {
                continue;
            }
            packs.push((t, k));
            groups.push(
                node.insts()
                    .iter()
                    .map(|i| pos_of[&Item::Inst(*i)])
                    .collect(),
            );
        }
    }
    let order = schedule_groups(deps, &groups)?;
    Some(
        order
            .into_iter()
            .map(|e| match e {
                Grouped::Item(p) => Scheduled::Item(p),
                Grouped::Group(g) => {
                    let (tree, node) = packs[g];
                    Scheduled::Pack { tree, node }
                }
            })
            .collect(),
    )
}

/// An entry of a [`schedule_groups`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Grouped {
    Item(usize),
    Group(usize),
}

/// A topological order of the list with each of `groups` (sets of positions) as one
/// node, preferring the original order; `None` if the groups make a cycle.
pub fn schedule_groups(deps: &ListDeps, groups: &[Vec<usize>]) -> Option<Vec<Grouped>> {
    let n = deps.items.len();
    let mut group: Vec<usize> = (0..n).collect();
    for (g, positions) in groups.iter().enumerate() {
        for &p in positions {
            group[p] = n + g;
        }
    }
    let total = n + groups.len();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut indegree = vec![0usize; total];
    let mut first_pos = vec![usize::MAX; total];
    for p in 0..n {
        let g = group[p];
        first_pos[g] = first_pos[g].min(p);
        for &a in &deps.preds[p] {
            let ga = group[a];
            if ga != g && !succs[ga].contains(&g) {
                succs[ga].push(g);
                indegree[g] += 1;
            }
        }
    }
    let live: Vec<usize> = (0..total).filter(|&g| first_pos[g] != usize::MAX).collect();
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> = live
        .iter()
        .filter(|&&g| indegree[g] == 0)
        .map(|&g| std::cmp::Reverse((first_pos[g], g)))
        .collect();
    let mut order = Vec::with_capacity(live.len());
    while let Some(std::cmp::Reverse((_, g))) = ready.pop() {
        order.push(if g < n {
            Grouped::Item(g)
        } else {
            Grouped::Group(g - n)
        });
        for &s in &succs[g] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                ready.push(std::cmp::Reverse((first_pos[s], s)));
            }
        }
    }
    (order.len() == live.len()).then_some(order)
}

/// An entry of a [`schedule`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scheduled {
    Item(usize),
    Pack { tree: usize, node: usize },
}
