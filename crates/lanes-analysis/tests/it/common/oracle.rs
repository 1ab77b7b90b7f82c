//! Brute-force oracles, written from the definitions and independent of the analyses:
//! they read the function through `lanes-ir` only and answer every question by searching
//! the graph (reachability with a block removed, path enumeration, mutual reachability).
//! They are quadratic or worse, which is fine for graphs of at most a few dozen blocks.

use std::collections::{BTreeSet, HashMap};

use lanes_ir::{Block, Function, InstData, Value, ValueDef};

/// The CFG of a function as positions `0..n` in layout order (0 is the entry), with
/// distinct successors in branch order.
pub struct Graph {
    pub blocks: Vec<Block>,
    pub pos: HashMap<Block, usize>,
    pub succ: Vec<Vec<usize>>,
    pub pred: Vec<Vec<usize>>,
}

impl Graph {
    pub fn of(func: &Function) -> Graph {
        let blocks: Vec<Block> = func.layout.blocks().collect();
        let pos: HashMap<Block, usize> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut succ = vec![Vec::new(); blocks.len()];
        let mut pred = vec![Vec::new(); blocks.len()];
        for (i, &b) in blocks.iter().enumerate() {
            for t in func.successors(b) {
                if let Some(&j) = pos.get(&t) {
                    if !succ[i].contains(&j) {
                        succ[i].push(j);
                        pred[j].push(i);
                    }
                }
            }
        }
        Graph {
            blocks,
            pos,
            succ,
            pred,
        }
    }

    pub fn n(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_exit(&self, x: usize) -> bool {
        self.succ[x].is_empty()
    }

    /// Blocks reachable from `starts` (included) along successor edges, never entering
    /// `removed`.
    pub fn reach(&self, starts: &[usize], removed: Option<usize>) -> Vec<bool> {
        reach_in(&self.succ, starts, removed)
    }

    /// Reachable from the entry.
    pub fn reachable(&self) -> Vec<bool> {
        if self.n() == 0 {
            return Vec::new();
        }
        self.reach(&[0], None)
    }

    pub fn edges(&self) -> Vec<(usize, usize)> {
        (0..self.n())
            .flat_map(|a| self.succ[a].iter().map(move |&b| (a, b)))
            .collect()
    }
}

/// Reachability in an adjacency list, from `starts`, avoiding `removed`.
pub fn reach_in(succ: &[Vec<usize>], starts: &[usize], removed: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut stack = Vec::new();
    for &s in starts {
        if Some(s) != removed && !seen[s] {
            seen[s] = true;
            stack.push(s);
        }
    }
    while let Some(x) = stack.pop() {
        for &y in &succ[x] {
            if Some(y) != removed && !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    seen
}

/// `dom[a][b]`: every path from the entry to `b` contains `a`, for `b` reachable; `false`
/// for unreachable `b` (the analysis' convention).
pub fn dominance(g: &Graph) -> Vec<Vec<bool>> {
    let n = g.n();
    let reachable = g.reachable();
    let mut dom = vec![vec![false; n]; n];
    for a in 0..n {
        let without = g.reach(&[0], Some(a));
        for b in 0..n {
            dom[a][b] = reachable[b] && (a == b || !without[b]);
        }
    }
    dom
}

/// Dominators of every block by enumerating all simple paths from the entry (exponential;
/// for small graphs): the intersection of the blocks of the paths reaching `b`.
pub fn dominators_by_paths(g: &Graph) -> Vec<Option<BTreeSet<usize>>> {
    let n = g.n();
    let mut doms: Vec<Option<BTreeSet<usize>>> = vec![None; n];
    let mut path = vec![0usize];
    let mut on_path = vec![false; n];
    on_path[0] = true;
    fn walk(
        g: &Graph,
        path: &mut Vec<usize>,
        on_path: &mut Vec<bool>,
        doms: &mut Vec<Option<BTreeSet<usize>>>,
    ) {
        let last = *path.last().expect("paths are not empty");
        let here: BTreeSet<usize> = path.iter().copied().collect();
        doms[last] = Some(match doms[last].take() {
            None => here,
            Some(d) => d.intersection(&here).copied().collect(),
        });
        for &s in &g.succ[last] {
            if !on_path[s] {
                on_path[s] = true;
                path.push(s);
                walk(g, path, on_path, doms);
                path.pop();
                on_path[s] = false;
            }
        }
    }
    if n > 0 {
        walk(g, &mut path, &mut on_path, &mut doms);
    }
    doms
}

/// Reverse postorder of a recursive depth-first search from the entry that visits
/// successors in reverse branch order (the order `ControlFlowGraph` documents).
pub fn rpo(g: &Graph) -> Vec<usize> {
    fn dfs(g: &Graph, x: usize, seen: &mut Vec<bool>, post: &mut Vec<usize>) {
        seen[x] = true;
        for &s in g.succ[x].iter().rev() {
            if !seen[s] {
                dfs(g, s, seen, post);
            }
        }
        post.push(x);
    }
    let mut post = Vec::new();
    if g.n() > 0 {
        dfs(g, 0, &mut vec![false; g.n()], &mut post);
    }
    post.reverse();
    post
}

/// The blocks the documented virtual-exit rule connects to the virtual exit: every exit
/// block, and for each set of blocks that reach no exit and all reach each other and
/// nothing else (a terminal strongly connected component without exits), its first block
/// in RPO, or in layout order if none is reachable from the entry. Sorted by position.
pub fn virtual_exit_sources(g: &Graph) -> Vec<usize> {
    let n = g.n();
    let exits: Vec<usize> = (0..n).filter(|&x| g.is_exit(x)).collect();
    let reach_from: Vec<Vec<bool>> = (0..n).map(|x| g.reach(&[x], None)).collect();
    let doomed: Vec<bool> = (0..n)
        .map(|x| !exits.iter().any(|&e| reach_from[x][e]))
        .collect();
    let order = rpo(g);
    let key = |x: usize| match order.iter().position(|&y| y == x) {
        Some(i) => (0, i),
        None => (1, x),
    };
    let mut sources = exits.clone();
    for s in 0..n {
        if !doomed[s] {
            continue;
        }
        // s is in a terminal SCC iff everything it reaches reaches it back.
        let terminal = (0..n).all(|t| !reach_from[s][t] || reach_from[t][s]);
        if !terminal {
            continue;
        }
        let component: Vec<usize> = (0..n).filter(|&t| reach_from[s][t]).collect();
        let rep = *component
            .iter()
            .min_by_key(|&&t| key(t))
            .expect("s is in it");
        if rep == s {
            sources.push(s);
        }
    }
    sources.sort();
    sources
}

/// The CFG with the virtual exit as node `n` and an edge to it from every `sources` block.
pub fn augmented(g: &Graph, sources: &[usize]) -> Vec<Vec<usize>> {
    let mut succ = g.succ.clone();
    for &s in sources {
        succ[s].push(g.n());
    }
    succ.push(Vec::new());
    succ
}

/// `pdom[a][b]` for `a, b < n`, or `a = n` (the virtual exit): every path from `b` to the
/// virtual exit in `aug` contains `a`.
pub fn post_dominance(aug: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let m = aug.len();
    let exit = m - 1;
    let mut pdom = vec![vec![false; m]; m];
    for a in 0..m {
        for b in 0..m {
            pdom[a][b] = a == b || !reach_in(aug, &[b], Some(a))[exit];
        }
    }
    pdom
}

/// Post-dominance by the plain definition for graphs where every block reaches an exit:
/// every complete path from `b` (ending at a block without successors) contains `a`.
pub fn plain_post_dominance(g: &Graph) -> Vec<Vec<bool>> {
    let n = g.n();
    let exits: Vec<usize> = (0..n).filter(|&x| g.is_exit(x)).collect();
    let mut pdom = vec![vec![false; n]; n];
    for a in 0..n {
        for b in 0..n {
            let r = g.reach(&[b], Some(a));
            pdom[a][b] = a == b || !exits.iter().any(|&e| r[e]);
        }
    }
    pdom
}

/// Does every block reach an exit block?
pub fn all_reach_exits(g: &Graph) -> bool {
    let exits: Vec<usize> = (0..g.n()).filter(|&x| g.is_exit(x)).collect();
    (0..g.n()).all(|x| {
        let r = g.reach(&[x], None);
        exits.iter().any(|&e| r[e])
    })
}

/// The immediate (post-)dominator of `b` in a brute-force relation `rel[a][b]`: the strict
/// one that all the others (post-)dominate.
pub fn immediate(rel: &[Vec<bool>], b: usize) -> Option<usize> {
    let strict: Vec<usize> = (0..rel.len()).filter(|&a| a != b && rel[a][b]).collect();
    let imm: Vec<usize> = strict
        .iter()
        .copied()
        .filter(|&d| strict.iter().all(|&o| rel[o][d]))
        .collect();
    assert!(
        imm.len() <= 1,
        "a (post-)dominance relation has one immediate element"
    );
    imm.first().copied()
}

/// Is the reachable part of the CFG reducible? Decided by the T1/T2 transformations of
/// Hecht & Ullman: remove self-loops (T1) and merge a non-entry node with a unique
/// predecessor into it (T2) until nothing changes; reducible iff one node remains.
pub fn reducible_by_t1_t2(g: &Graph) -> bool {
    let n = g.n();
    if n == 0 {
        return true;
    }
    let reachable = g.reachable();
    let mut alive: Vec<bool> = reachable.clone();
    let mut succ: Vec<BTreeSet<usize>> = (0..n)
        .map(|x| {
            g.succ[x]
                .iter()
                .copied()
                .filter(|&y| reachable[y])
                .collect()
        })
        .collect();
    loop {
        let mut changed = false;
        for (x, s) in succ.iter_mut().enumerate() {
            if alive[x] {
                changed |= s.remove(&x);
            }
        }
        for x in 1..n {
            if !alive[x] {
                continue;
            }
            let preds: Vec<usize> = (0..n)
                .filter(|&p| alive[p] && succ[p].contains(&x))
                .collect();
            if preds.len() == 1 {
                let p = preds[0];
                let moved: Vec<usize> = succ[x].iter().copied().collect();
                succ[p].remove(&x);
                succ[p].extend(moved);
                succ[x].clear();
                alive[x] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    alive.iter().filter(|&&a| a).count() == 1
}

/// A natural loop per header, from the definition: `h` plus every block reaching a latch
/// `t` (with `h` dominating `t`) without passing `h`. Only blocks reachable from the entry
/// belong to the flow graph, so only they are counted.
pub struct NaturalLoop {
    pub header: usize,
    pub latches: BTreeSet<usize>,
    pub blocks: BTreeSet<usize>,
}

pub fn natural_loops(g: &Graph, dom: &[Vec<bool>]) -> Vec<NaturalLoop> {
    let n = g.n();
    let reachable = g.reachable();
    let mut loops = Vec::new();
    for h in 0..n {
        let latches: BTreeSet<usize> = g.pred[h].iter().copied().filter(|&t| dom[h][t]).collect();
        if latches.is_empty() {
            continue;
        }
        let mut blocks = BTreeSet::from([h]);
        for &t in &latches {
            for x in 0..n {
                if x != h && reachable[x] && g.reach(&[x], Some(h))[t] {
                    blocks.insert(x);
                }
            }
        }
        loops.push(NaturalLoop {
            header: h,
            latches,
            blocks,
        });
    }
    loops
}

/// The blocks lying on a cycle of the reachable CFG without back edges, grouped into
/// classes of mutual reachability (the irreducible regions, from the definition).
pub fn irreducible_classes(g: &Graph, dom: &[Vec<bool>]) -> Vec<BTreeSet<usize>> {
    let n = g.n();
    let reachable = g.reachable();
    let forward: Vec<Vec<usize>> = (0..n)
        .map(|x| {
            if !reachable[x] {
                return Vec::new();
            }
            g.succ[x].iter().copied().filter(|&y| !dom[y][x]).collect()
        })
        .collect();
    // r[x][y]: a non-empty path x →+ y.
    let r: Vec<Vec<bool>> = (0..n)
        .map(|x| reach_in(&forward, &forward[x], None))
        .collect();
    let mut classes: Vec<BTreeSet<usize>> = Vec::new();
    for x in (0..n).filter(|&x| reachable[x] && r[x][x]) {
        if classes.iter().any(|c| c.contains(&x)) {
            continue;
        }
        let class: BTreeSet<usize> = (0..n).filter(|&y| y == x || (r[x][y] && r[y][x])).collect();
        classes.push(class);
    }
    classes
}

/// Definition site of a value: (block position, index), index -1 for parameters.
fn def_site(func: &Function, g: &Graph, v: Value) -> Option<(usize, i64)> {
    match func.dfg.value_def(v) {
        ValueDef::Param(_) => (g.n() > 0).then_some((0, -1)),
        ValueDef::Result(inst) => {
            let b = func.layout.inst_block(inst)?;
            Some((g.pos[&b], func.layout.inst_index(inst) as i64))
        }
    }
}

/// Live-in and live-out sets by path search per value: `v` is live-in at `b` iff a path
/// from the top of `b` reaches a use of `v` without passing its definition; φ operands are
/// used at the end of their predecessor. Live-out at `b`: a φ operand at the end of `b`, or
/// live-in at a successor.
pub fn liveness(func: &Function, g: &Graph) -> (Vec<BTreeSet<Value>>, Vec<BTreeSet<Value>>) {
    let n = g.n();
    // uses[v] = (block, position; None = end of block).
    let mut uses: HashMap<Value, Vec<(usize, Option<usize>)>> = HashMap::new();
    for (b, &block) in g.blocks.iter().enumerate() {
        for (i, &inst) in func.layout.block_insts(block).iter().enumerate() {
            match func.dfg.inst(inst) {
                InstData::Phi { incoming } => {
                    for (p, v) in incoming {
                        if let Some(&pp) = g.pos.get(p) {
                            uses.entry(*v).or_default().push((pp, None));
                        }
                    }
                }
                data => data.for_each_arg(|v| uses.entry(v).or_default().push((b, Some(i)))),
            }
        }
    }
    let mut live_in = vec![BTreeSet::new(); n];
    let mut live_out = vec![BTreeSet::new(); n];
    for (&v, sites) in &uses {
        let def = def_site(func, g, v);
        let def_block = def.map(|d| d.0);
        // Blocks containing a use reachable from their top without passing the def.
        let mut has_use = vec![false; n];
        for &(b, pos) in sites {
            let before_def = match (def, pos) {
                (Some((d, dpos)), Some(p)) => d == b && dpos < p as i64,
                (Some((d, _)), None) => d == b,
                (None, _) => false,
            };
            if !before_def {
                has_use[b] = true;
            }
        }
        // Paths may traverse any block but the def block entirely.
        let through: Vec<Vec<usize>> = (0..n)
            .map(|x| {
                if Some(x) == def_block {
                    Vec::new()
                } else {
                    g.succ[x].clone()
                }
            })
            .collect();
        for b in 0..n {
            let r = reach_in(&through, &through[b], None);
            if has_use[b] || (0..n).any(|x| r[x] && has_use[x]) {
                live_in[b].insert(v);
            }
        }
        for &(b, pos) in sites {
            if pos.is_none() {
                live_out[b].insert(v);
            }
        }
    }
    for b in 0..n {
        let from_succs: Vec<Value> = g.succ[b]
            .iter()
            .flat_map(|&s| live_in[s].iter().copied())
            .collect();
        live_out[b].extend(from_succs);
    }
    (live_in, live_out)
}
