//! Comparisons of each analysis with its brute-force oracle on one function. Each check
//! returns `Err(message)` at the first disagreement; [`run_cases`] prints the function.

use std::collections::BTreeSet;

use lanes_analysis::{
    CfgEdge, ControlDependence, ControlFlowGraph, DominatorTree, Liveness, LoopForest,
    PostDominatorTree,
};
use lanes_ir::{Block, Function, Module, Value};

use super::oracle::{self, Graph};

/// Fails with `msg` unless `cond`.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Runs `check` on `func`; on failure panics with the case name, message and function.
pub fn expect_ok(name: &str, func: &Function, result: Result<(), String>) {
    if let Err(msg) = result {
        let text = lanes_ir::write::function_to_string(&Module::new(), func);
        panic!("{name}: {msg}\n{text}");
    }
}

fn blocks_of(g: &Graph, xs: impl IntoIterator<Item = usize>) -> Vec<Block> {
    xs.into_iter().map(|x| g.blocks[x]).collect()
}

/// CFG: successors, predecessors, targets, exits, RPO and postorder, reachability.
pub fn check_cfg(func: &Function) -> Result<(), String> {
    let g = Graph::of(func);
    let cfg = ControlFlowGraph::with_function(func);
    ensure!(cfg.blocks() == g.blocks.as_slice(), "layout blocks differ");
    for (x, &b) in g.blocks.iter().enumerate() {
        ensure!(
            cfg.succs(b) == blocks_of(&g, g.succ[x].clone()),
            "succs of {b}"
        );
        ensure!(
            cfg.preds(b) == blocks_of(&g, g.pred[x].clone()),
            "preds of {b}"
        );
        ensure!(
            cfg.branch_targets(b) == func.successors(b),
            "branch targets of {b}"
        );
        ensure!(cfg.is_exit(b) == g.is_exit(x), "is_exit({b})");
    }
    ensure!(cfg.num_edges() == g.edges().len(), "edge count");
    let edges: Vec<CfgEdge> = g
        .edges()
        .into_iter()
        .map(|(a, b)| CfgEdge::new(g.blocks[a], g.blocks[b]))
        .collect();
    ensure!(cfg.edges().collect::<Vec<_>>() == edges, "edge list");
    let rpo = blocks_of(&g, oracle::rpo(&g));
    ensure!(cfg.rpo() == rpo, "rpo {:?} expected {:?}", cfg.rpo(), rpo);
    let mut post = rpo.clone();
    post.reverse();
    ensure!(cfg.postorder() == post, "postorder");
    let reachable = g.reachable();
    let dom = oracle::dominance(&g);
    for (x, &b) in g.blocks.iter().enumerate() {
        ensure!(cfg.is_reachable(b) == reachable[x], "reachability of {b}");
        if let Some(i) = cfg.rpo_number(b) {
            ensure!(rpo[i as usize] == b, "rpo number of {b}");
            for a in 0..g.n() {
                if a != x && dom[a][x] {
                    ensure!(
                        cfg.rpo_number(g.blocks[a]) < Some(i),
                        "dominator after {b} in RPO"
                    );
                }
            }
        }
    }
    Ok(())
}

/// Dominator tree against reachability with a block removed, and, on small graphs, against
/// the enumeration of all simple paths.
pub fn check_dominators(func: &Function) -> Result<(), String> {
    let g = Graph::of(func);
    let cfg = ControlFlowGraph::with_function(func);
    let dt = DominatorTree::with_function(func, &cfg);
    let dom = oracle::dominance(&g);
    let n = g.n();
    for a in 0..n {
        for b in 0..n {
            let (ba, bb) = (g.blocks[a], g.blocks[b]);
            ensure!(dt.dominates(ba, bb) == dom[a][b], "dominates({ba}, {bb})");
        }
    }
    let reachable = g.reachable();
    for b in 0..n {
        let block = g.blocks[b];
        let idom = if reachable[b] {
            oracle::immediate(&dom, b)
        } else {
            None
        };
        ensure!(dt.idom(block) == idom.map(|d| g.blocks[d]), "idom({block})");
        let strict = (0..n).filter(|&a| a != b && dom[a][b]).count() as u32;
        ensure!(
            dt.depth(block) == reachable[b].then_some(strict),
            "depth({block})"
        );
        for c in dt.children(block) {
            ensure!(dt.idom(c) == Some(block), "child {c} of {block}");
        }
        for c in 0..n {
            let common = (0..n)
                .filter(|&a| dom[a][b] && dom[a][c])
                .max_by_key(|&a| (0..n).filter(|&x| dom[x][a]).count());
            let got = dt.common_dominator(block, g.blocks[c]);
            ensure!(
                got == common.map(|x| g.blocks[x]),
                "common_dominator({block}, {c})"
            );
        }
    }
    ensure!(
        dt.preorder().len() == reachable.iter().filter(|&&r| r).count(),
        "preorder size"
    );
    if n <= 10 {
        let by_paths = oracle::dominators_by_paths(&g);
        for b in 0..n {
            let expected: Option<BTreeSet<usize>> =
                reachable[b].then(|| (0..n).filter(|&a| dom[a][b]).collect());
            ensure!(by_paths[b] == expected, "path enumeration disagrees at {b}");
        }
    }
    Ok(())
}

/// Post-dominator tree against the brute-force relation on the CFG augmented by the
/// documented virtual-exit rule; the rule itself; tree shape; the plain definition where
/// it applies. Returns whether the function has blocks that reach no exit.
pub fn check_post_dominators(func: &Function) -> Result<bool, String> {
    let g = Graph::of(func);
    let n = g.n();
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let sources = oracle::virtual_exit_sources(&g);
    ensure!(
        pdt.virtual_exit_preds() == blocks_of(&g, sources.clone()),
        "virtual exit preds"
    );
    let loop_roots: Vec<usize> = sources.iter().copied().filter(|&x| !g.is_exit(x)).collect();
    ensure!(
        pdt.infinite_loop_roots() == blocks_of(&g, loop_roots.clone()),
        "loop roots"
    );
    let aug = oracle::augmented(&g, &sources);
    let pdom = oracle::post_dominance(&aug);
    for a in 0..n {
        for b in 0..n {
            let (ba, bb) = (g.blocks[a], g.blocks[b]);
            ensure!(
                pdt.post_dominates(ba, bb) == pdom[a][b],
                "post_dominates({ba}, {bb})"
            );
        }
    }
    // The tree: ipdom from the brute-force relation, depths, termination at the exit.
    for b in 0..n {
        let block = g.blocks[b];
        let ip = oracle::immediate(&pdom, b).expect("the virtual exit post-dominates all");
        let expected = (ip < n).then(|| g.blocks[ip]);
        ensure!(pdt.ipdom(block) == expected, "ipdom({block})");
        let mut steps = 0;
        let mut x = Some(block);
        while let Some(y) = x {
            x = pdt.ipdom(y);
            steps += 1;
            ensure!(
                steps <= n,
                "ipdom chain of {block} does not reach the virtual exit"
            );
        }
        let strict = (0..=n).filter(|&a| a != b && pdom[a][b]).count() as u32;
        ensure!(pdt.depth(block) == Some(strict), "depth({block})");
        for c in 0..n {
            let common = (0..=n)
                .filter(|&a| pdom[a][b] && pdom[a][c])
                .max_by_key(|&a| (0..=n).filter(|&x| pdom[x][a]).count())
                .expect("the virtual exit is common");
            let expected = (common < n).then(|| g.blocks[common]);
            let got = pdt.common_post_dominator(block, g.blocks[c]);
            ensure!(
                got == expected,
                "common_post_dominator({block}, {})",
                g.blocks[c]
            );
        }
        // Influence region: blocks on paths from b to ipdom(b) meeting it only at the end.
        let from_b = oracle::reach_in(&aug, &[b], Some(ip));
        let region: Vec<Block> = (0..n)
            .filter(|&x| from_b[x] && oracle::reach_in(&aug, &[x], None)[ip])
            .map(|x| g.blocks[x])
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        ensure!(
            pdt.influence_region(&cfg, block) == region,
            "influence_region({block})"
        );
    }
    let mut roots: Vec<Block> = pdt.roots().collect();
    roots.sort();
    let mut expected: Vec<Block> = (0..n)
        .filter(|&b| pdt.ipdom(g.blocks[b]).is_none())
        .map(|b| g.blocks[b])
        .collect();
    expected.sort();
    ensure!(roots == expected, "roots");
    // The plain definition: equal without infinite loops, implied for blocks reaching an
    // exit otherwise.
    let plain = oracle::plain_post_dominance(&g);
    let infinite = !oracle::all_reach_exits(&g);
    ensure!(
        infinite != loop_roots.is_empty(),
        "loop roots exist iff some block is doomed"
    );
    let exits: Vec<usize> = (0..n).filter(|&x| g.is_exit(x)).collect();
    for b in 0..n {
        let reaches_exit = exits.iter().any(|&e| g.reach(&[b], None)[e]);
        for a in 0..n {
            if !infinite {
                ensure!(plain[a][b] == pdom[a][b], "plain definition at ({a}, {b})");
            } else if reaches_exit && pdom[a][b] {
                ensure!(
                    plain[a][b],
                    "augmented relation not implied by plain at ({a}, {b})"
                );
            }
        }
    }
    Ok(infinite)
}

/// `cdep`, `cdep_blocks`, `dependents` and `PDF` from their definitions over the
/// brute-force post-dominance relation.
pub fn check_control_dependence(func: &Function) -> Result<(), String> {
    let g = Graph::of(func);
    let n = g.n();
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let cd = ControlDependence::with_cfg(&cfg, &pdt);
    let aug = oracle::augmented(&g, &oracle::virtual_exit_sources(&g));
    let pdom = oracle::post_dominance(&aug);
    let edges = g.edges();
    for k in 0..n {
        let kb = g.blocks[k];
        let expected: Vec<CfgEdge> = edges
            .iter()
            .filter(|&&(a, b)| pdom[k][b] && !pdom[k][a])
            .map(|&(a, b)| CfgEdge::new(g.blocks[a], g.blocks[b]))
            .collect();
        ensure!(
            cd.cdep(kb) == expected,
            "cdep({kb}) = {:?}, expected {expected:?}",
            cd.cdep(kb)
        );
        let mut sources: Vec<Block> = Vec::new();
        for e in &expected {
            if !sources.contains(&e.from) {
                sources.push(e.from);
            }
        }
        ensure!(cd.cdep_blocks(kb) == sources, "cdep_blocks({kb})");
        let pdf: Vec<Block> = (0..n)
            .filter(|&a| g.succ[a].iter().any(|&s| pdom[k][s]) && !(a != k && pdom[k][a]))
            .map(|a| g.blocks[a])
            .collect();
        ensure!(cd.post_dominance_frontier(kb) == pdf, "PDF({kb})");
        let mut dependents: Vec<Block> = (0..n)
            .filter(|&j| {
                edges
                    .iter()
                    .any(|&(a, b)| a == k && pdom[j][b] && !pdom[j][a])
            })
            .map(|j| g.blocks[j])
            .collect();
        dependents.sort();
        ensure!(cd.dependents(kb) == dependents, "dependents({kb})");
    }
    Ok(())
}

/// What a loop check saw, for non-vacuity assertions.
#[derive(Default, Debug)]
pub struct LoopStats {
    pub loops: usize,
    pub nested: usize,
    pub irreducible: usize,
}

/// The loop forest against natural loops from the definition, and irreducible regions
/// against mutual reachability without back edges and against T1/T2 reducibility.
pub fn check_loops(func: &Function, stats: &mut LoopStats) -> Result<(), String> {
    let g = Graph::of(func);
    let n = g.n();
    let cfg = ControlFlowGraph::with_function(func);
    let dt = DominatorTree::with_function(func, &cfg);
    let forest = LoopForest::with_cfg(&cfg, &dt);
    let dom = oracle::dominance(&g);
    let naturals = oracle::natural_loops(&g, &dom);
    ensure!(forest.num_loops() == naturals.len(), "number of loops");
    let rpo_key = |b: &Block| cfg.rpo_number(*b);
    let set = |xs: &[Block]| xs.iter().map(|b| g.pos[b]).collect::<BTreeSet<usize>>();
    let containing = |x: usize| naturals.iter().filter(move |l| l.blocks.contains(&x));
    for nat in &naturals {
        for other in &naturals {
            let disjoint = nat.blocks.is_disjoint(&other.blocks);
            ensure!(
                disjoint
                    || nat.blocks.is_subset(&other.blocks)
                    || other.blocks.is_subset(&nat.blocks),
                "natural loops overlap"
            );
        }
        let h = g.blocks[nat.header];
        let l = forest
            .loop_of_header(h)
            .ok_or(format!("{h} is not a header"))?;
        ensure!(forest.header(l) == h, "header of {l}");
        ensure!(set(forest.latches(l)) == nat.latches, "latches of {l}");
        ensure!(
            set(forest.blocks(l)) == nat.blocks,
            "blocks of {l} (header {h}): {:?}, expected {:?}",
            set(forest.blocks(l)),
            nat.blocks
        );
        // The documented arrangement: own blocks in RPO, then each child's blocks.
        let mut arranged: Vec<Block> = forest
            .blocks(l)
            .iter()
            .copied()
            .filter(|&b| forest.innermost_loop(b) == Some(l))
            .collect();
        ensure!(
            arranged.is_sorted_by_key(rpo_key),
            "own blocks of {l} in RPO"
        );
        for &c in forest.children(l) {
            arranged.extend_from_slice(forest.blocks(c));
        }
        ensure!(
            forest.blocks(l) == arranged,
            "arrangement of the blocks of {l}"
        );
        ensure!(forest.blocks(l)[0] == h, "header first in {l}");
        let exiting: BTreeSet<usize> = nat
            .blocks
            .iter()
            .copied()
            .filter(|&x| g.succ[x].iter().any(|s| !nat.blocks.contains(s)))
            .collect();
        let exits: BTreeSet<usize> = nat
            .blocks
            .iter()
            .flat_map(|&x| g.succ[x].iter().copied())
            .filter(|s| !nat.blocks.contains(s))
            .collect();
        ensure!(
            set(forest.exiting_blocks(l)) == exiting,
            "exiting blocks of {l}"
        );
        ensure!(
            forest.exiting_blocks(l).len() == exiting.len(),
            "duplicate exiting"
        );
        ensure!(set(forest.exit_blocks(l)) == exits, "exit blocks of {l}");
        ensure!(
            forest.exit_blocks(l).len() == exits.len(),
            "duplicate exits"
        );
        let parent = naturals
            .iter()
            .filter(|o| o.header != nat.header && nat.blocks.is_subset(&o.blocks))
            .min_by_key(|o| o.blocks.len())
            .map(|o| g.blocks[o.header]);
        ensure!(
            forest.parent(l).map(|p| forest.header(p)) == parent,
            "parent of {l}"
        );
        let depth = containing(nat.header).count() as u32;
        ensure!(forest.depth(l) == depth, "depth of {l}");
        for &c in forest.children(l) {
            ensure!(forest.parent(c) == Some(l), "child {c} of {l}");
        }
        for x in 0..n {
            ensure!(
                forest.contains(l, g.blocks[x]) == nat.blocks.contains(&x),
                "contains({l}, {x})"
            );
        }
        stats.loops += 1;
        stats.nested += usize::from(depth > 1);
    }
    for x in 0..n {
        let b = g.blocks[x];
        let innermost = containing(x)
            .min_by_key(|l| l.blocks.len())
            .map(|l| g.blocks[l.header]);
        ensure!(
            forest.innermost_loop(b).map(|l| forest.header(l)) == innermost,
            "innermost({b})"
        );
        ensure!(
            forest.loop_depth(b) == containing(x).count() as u32,
            "loop_depth({b})"
        );
        for &y in &g.succ[x] {
            let back = dom[y][x];
            ensure!(
                forest.is_back_edge(b, g.blocks[y]) == back,
                "is_back_edge({b}, {y})"
            );
        }
    }
    // Irreducible regions.
    let classes = oracle::irreducible_classes(&g, &dom);
    let reducible = oracle::reducible_by_t1_t2(&g);
    ensure!(
        reducible == classes.is_empty(),
        "T1/T2 and the back-edge criterion disagree"
    );
    ensure!(forest.is_reducible() == reducible, "is_reducible");
    let regions = forest.irreducible_regions();
    let got: BTreeSet<BTreeSet<usize>> = regions.iter().map(|r| set(&r.blocks)).collect();
    let expected: BTreeSet<BTreeSet<usize>> = classes.iter().cloned().collect();
    ensure!(
        got == expected,
        "irreducible regions {got:?}, expected {expected:?}"
    );
    let reachable = g.reachable();
    for r in regions {
        let members = set(&r.blocks);
        ensure!(r.blocks.is_sorted_by_key(rpo_key), "region blocks in RPO");
        let entries: BTreeSet<usize> = members
            .iter()
            .copied()
            .filter(|&x| {
                x == 0
                    || g.pred[x]
                        .iter()
                        .any(|p| reachable[*p] && !members.contains(p))
            })
            .collect();
        ensure!(set(&r.entries) == entries, "entries of region {members:?}");
        ensure!(entries.len() >= 2, "a region with fewer than two entries");
        for &d in &members {
            ensure!(
                !members.iter().all(|&x| dom[d][x]),
                "{d} dominates its region"
            );
        }
        let parent = naturals
            .iter()
            .filter(|l| members.is_subset(&l.blocks))
            .min_by_key(|l| l.blocks.len())
            .map(|l| g.blocks[l.header]);
        ensure!(
            r.parent.map(|l| forest.header(l)) == parent,
            "parent loop of region"
        );
        stats.irreducible += 1;
    }
    Ok(())
}

/// Live-in and live-out sets against the per-value path search.
pub fn check_liveness(func: &Function) -> Result<(), String> {
    let g = Graph::of(func);
    let cfg = ControlFlowGraph::with_function(func);
    let live = Liveness::with_function(func, &cfg);
    let (live_in, live_out) = oracle::liveness(func, &g);
    for (x, &b) in g.blocks.iter().enumerate() {
        let expected_in: Vec<Value> = live_in[x].iter().copied().collect();
        let expected_out: Vec<Value> = live_out[x].iter().copied().collect();
        ensure!(
            live.live_in(b) == expected_in,
            "live_in({b}) = {:?}, expected {expected_in:?}",
            live.live_in(b)
        );
        ensure!(
            live.live_out(b) == expected_out,
            "live_out({b}) = {:?}, expected {expected_out:?}",
            live.live_out(b)
        );
        for v in func.dfg.values() {
            ensure!(
                live.is_live_in(v, b) == live_in[x].contains(&v),
                "is_live_in({v}, {b})"
            );
            ensure!(
                live.is_live_out(v, b) == live_out[x].contains(&v),
                "is_live_out({v}, {b})"
            );
        }
    }
    Ok(())
}
