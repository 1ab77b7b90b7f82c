//! From a CFG in SSA form to Predicated SSA (SuperVectorization, PLDI'22 §3.1, Fig. 8).
//!
//! The function is first put into the canonical form the paper assumes, by lanes-wfv's
//! normalization: one return block, every loop with a preheader, one latch and dedicated
//! exits, loop live-outs through exit φs, no `switch`, reducible control flow.
//!
//! Then every loop level is converted on its own, innermost first. A *region* is the
//! body of one loop (or the function) with each directly nested loop collapsed to one
//! node whose successors are that loop's exits, and with back edges and exits leading to
//! a virtual sink: an acyclic graph. The control predicate of a node `b` is, after Fig. 8,
//!
//! ```text
//! cp(b) = true                                      if PDF(b) is empty
//!       = ∨_{b' ∈ PDF(b)} cp(b') ∧ cond(b' → s)    with s the successor b post-dominates
//! ```
//!
//! so a join that post-dominates a branch gets the branch's predicate directly, not
//! `c ∨ ¬c`. The condition of the edge from a collapsed loop to one of its exits is the
//! loop's *exit predicate*: the disjunction, over the exiting edges to that exit, of the
//! exiting block's predicate (relative to the loop's last iteration) and the branch
//! condition — the paper's conjunction of preheader predicate, exiting block predicate
//! and branch condition, with the preheader part supplied by the enclosing region.
//! Loop-header φs become μ-nodes, other φs gated φs whose gates are the predicates of
//! their incoming edges, and a loop's continue predicate is `cp(latch) ∧ cond(latch →
//! header)`.

use std::collections::HashMap;

use cranelift_entity::{PrimaryMap, SecondaryMap};
use lanes_analysis::{AnalysisSet, FunctionAnalyses, Loop, LoopForest};
use lanes_ir::graph::{Adjacency, DomTreeCore, NONE};
use lanes_ir::{Block, Function, Inst, InstData, Value};
use lanes_wfv::normalize;

use crate::predicate::{Pred, PredPool};
use crate::pssa::{Item, LoopData, LoopId, Mu, Pssa};
use crate::SlpError;

/// A node of a region: a block directly in it or a directly nested loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Block(Block),
    Loop(Loop),
}

/// Converts `func` (verified, with a body) to Predicated SSA.
pub fn to_pssa(func: &Function) -> Result<Pssa, SlpError> {
    let mut f = func.clone();
    if f.entry_block().is_none() {
        return Err(SlpError::NoBody(f.name.clone()));
    }
    let mut analyses = FunctionAnalyses::new();
    let switches = normalize::switch_blocks(&f);
    normalize(&mut f, &mut analyses, &switches)?;
    analyses.compute(&f, AnalysisSet::LOOPS);
    if let Some(region) = analyses.loops().irreducible_regions().first() {
        return Err(SlpError::Normalize(lanes_wfv::WfvError::Irreducible {
            func: f.name.clone(),
            entries: region.entries.clone(),
            lines: Vec::new(),
        }));
    }
    let loops = analyses.loops().clone();
    let mut conv = Converter {
        f: &f,
        loops: &loops,
        preds: PredPool::new(),
        pssa_loops: PrimaryMap::new(),
        inst_pred: SecondaryMap::with_default(Pred::from_u32(0)),
        gates: HashMap::new(),
        exit_edges: HashMap::new(),
    };
    let items = conv.region(None)?;
    let Converter {
        preds,
        pssa_loops,
        inst_pred,
        gates,
        ..
    } = conv;
    let mut out = f.clone();
    // Only the tables speak for φs from now on.
    for inst in gates.keys().copied().chain(
        pssa_loops
            .values()
            .flat_map(|l| l.mus.iter().map(|m| m.inst)),
    ) {
        if let InstData::Phi { incoming } = out.dfg.inst_mut(inst) {
            incoming.clear();
        }
    }
    let blocks: Vec<Block> = out.layout.blocks().collect();
    for b in blocks {
        out.layout.remove_block(b);
    }
    let mut pssa = Pssa {
        func: out,
        preds,
        items,
        loops: pssa_loops,
        inst_pred,
        gates,
    };
    forward_single_phis(&mut pssa);
    hoist_constants(&mut pssa);
    crate::verify::check_predicate_sizes(&pssa, crate::verify::MAX_PREDICATE_TERMS)?;
    Ok(pssa)
}

/// Moves every constant (and global or function address) to the top of the function
/// under `true`. They read nothing and cost nothing, so the predicate and loop clang
/// happened to put them under mean nothing; hoisted, a vector of them is a splat at any
/// place (PLDI'22 §3.4 builds operand vectors where the pack runs) instead of values that
/// exist only under some lane's predicate.
fn hoist_constants(pssa: &mut Pssa) {
    let f = &pssa.func;
    let is_constant = |item: &Item| match *item {
        Item::Inst(i) => matches!(
            f.dfg.inst(i),
            InstData::Iconst { .. }
                | InstData::Fconst { .. }
                | InstData::GlobalAddr { .. }
                | InstData::FuncAddr { .. }
        ),
        Item::Loop(_) => false,
    };
    let mut hoisted: Vec<Item> = Vec::new();
    hoisted.extend(pssa.items.iter().filter(|i| is_constant(i)).copied());
    for l in pssa.loops.values() {
        hoisted.extend(l.items.iter().filter(|i| is_constant(i)).copied());
    }
    if hoisted.is_empty() {
        return;
    }
    pssa.items.retain(|i| !is_constant(i));
    for l in pssa.loops.values_mut() {
        l.items.retain(|i| !is_constant(i));
    }
    let always = pssa.preds.always();
    for &item in &hoisted {
        if let Item::Inst(i) = item {
            pssa.inst_pred[i] = always;
        }
    }
    // One item per distinct constant: copies read the first.
    let mut first: HashMap<String, Value> = HashMap::new();
    let mut subst: HashMap<Value, Value> = HashMap::new();
    hoisted.retain(|&item| {
        let Item::Inst(i) = item else { return true };
        let Some(v) = pssa.func.dfg.inst_result(i) else {
            return true;
        };
        let key = format!(
            "{:?} {}",
            pssa.func.dfg.inst(i),
            pssa.func.dfg.value_type(v)
        );
        match first.get(&key) {
            Some(&f) => {
                subst.insert(v, f);
                false
            }
            None => {
                first.insert(key, v);
                true
            }
        }
    });
    hoisted.append(&mut pssa.items);
    pssa.items = hoisted;
    crate::substitute::substitute(pssa, &subst);
}

/// Replaces every gated φ with one incoming value by that value: when the φ runs, its
/// only gate holds. These are the exit φs of loop-closed SSA and φs of blocks with one
/// predecessor; without them, a value of a loop's last iteration is read after the loop
/// directly, as Predicated SSA allows, and code after a loop does not read the loop's
/// exit condition.
fn forward_single_phis(pssa: &mut Pssa) {
    let single: Vec<(Inst, Value)> = pssa
        .gates
        .iter()
        .filter(|(_, g)| g.len() == 1)
        .map(|(&i, g)| (i, g[0].1))
        .collect();
    if single.is_empty() {
        return;
    }
    let mut subst: HashMap<Value, Value> = HashMap::new();
    for &(inst, v) in &single {
        let x = pssa.func.dfg.inst_result(inst).expect("a φ has a result");
        subst.insert(x, v);
    }
    // Chains of such φs resolve to the first value that is not one.
    let keys: Vec<Value> = subst.keys().copied().collect();
    for k in keys {
        let mut v = subst[&k];
        let mut steps = 0;
        while let Some(&n) = subst.get(&v) {
            v = n;
            steps += 1;
            if steps > subst.len() {
                break;
            }
        }
        subst.insert(k, v);
    }
    let dropped: std::collections::HashSet<Item> =
        single.iter().map(|&(i, _)| Item::Inst(i)).collect();
    pssa.items.retain(|i| !dropped.contains(i));
    for l in pssa.loops.values_mut() {
        l.items.retain(|i| !dropped.contains(i));
    }
    for &(inst, _) in &single {
        pssa.gates.remove(&inst);
    }
    crate::substitute::substitute(pssa, &subst);
}

/// Predicates of CFG edges `(from, to)`.
type EdgePreds = HashMap<(Block, Block), Pred>;

struct Converter<'a> {
    f: &'a Function,
    loops: &'a LoopForest,
    preds: PredPool,
    pssa_loops: PrimaryMap<LoopId, LoopData>,
    inst_pred: SecondaryMap<Inst, Pred>,
    gates: HashMap<Inst, Vec<(Pred, Value)>>,
    /// For each converted loop, the predicate (relative to its last iteration) of every
    /// CFG edge leaving it, from blocks at any depth.
    exit_edges: HashMap<Loop, (LoopId, EdgePreds)>,
}

/// The acyclic graph of one loop level.
struct Region {
    nodes: Vec<Node>,
    index: HashMap<Node, u32>,
    /// Per node: (target node or the sink, condition of going there).
    succs: Vec<Vec<(u32, Pred)>>,
    entry: u32,
}

impl Region {
    fn sink(&self) -> u32 {
        self.nodes.len() as u32
    }
}

impl Converter<'_> {
    fn name(&self) -> String {
        self.f.name.clone()
    }

    /// The distinct successors of block `b`, each with the condition of taking it.
    fn block_edges(&mut self, b: Block) -> Vec<(Block, Pred)> {
        let Some(term) = self.f.terminator(b) else {
            return Vec::new();
        };
        match *self.f.dfg.inst(term) {
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } if then_dest != else_dest => vec![
                (then_dest, self.preds.lit(cond, false)),
                (else_dest, self.preds.lit(cond, true)),
            ],
            ref d => {
                let mut out: Vec<(Block, Pred)> = Vec::new();
                for s in d.branch_targets() {
                    if !out.iter().any(|e| e.0 == s) {
                        out.push((s, self.preds.always()));
                    }
                }
                out
            }
        }
    }

    /// The node of region `r` that control reaches by going to block `s` (`None`: the
    /// sink, for a back edge to `r`'s header or an exit from `r`).
    fn node_of(&self, r: Option<Loop>, s: Block) -> Option<Node> {
        if let Some(l) = r {
            if s == self.loops.header(l) || !self.loops.contains(l, s) {
                return None;
            }
        }
        Some(self.containing_node(r, s))
    }

    /// The node of region `r` holding block `s` of `r`.
    fn containing_node(&self, r: Option<Loop>, s: Block) -> Node {
        let mut inner = self.loops.innermost_loop(s);
        if inner == r {
            return Node::Block(s);
        }
        while let Some(c) = inner {
            if self.loops.parent(c) == r {
                return Node::Loop(c);
            }
            inner = self.loops.parent(c);
        }
        unreachable!("block {s} is in region {r:?}, so in one of its loops")
    }

    /// The items of region `r` (the function's, or loop `r`'s body, whose [`LoopData`]
    /// this also fills in except for its predicate and parent).
    fn region(&mut self, r: Option<Loop>) -> Result<Vec<Item>, SlpError> {
        if let Some(l) = r {
            let always = self.preds.always();
            let latches = self.loops.latches(l);
            let hints = self
                .f
                .abi
                .loops
                .iter()
                .filter(|md| latches.contains(&md.latch))
                .flat_map(|md| md.hints.iter().cloned())
                .collect();
            let id = self.pssa_loops.push(LoopData {
                parent: None,
                pred: always,
                mus: Vec::new(),
                items: Vec::new(),
                cont: always,
                hints,
                dead: false,
                columns: Vec::new(),
            });
            self.exit_edges.insert(l, (id, HashMap::new()));
        }
        let children: Vec<Loop> = match r {
            Some(l) => self.loops.children(l).to_vec(),
            None => self.loops.top_level_loops().collect(),
        };
        let mut child_ids = HashMap::new();
        for &c in &children {
            let items = self.region(Some(c))?;
            let id = self.exit_edges[&c].0;
            self.pssa_loops[id].items = items;
            child_ids.insert(c, id);
        }
        let region = self.graph(r, &children)?;
        let cp = self.predicates(&region)?;
        // Items in a topological order of the region.
        let order = lanes_ir::graph::depth_first(region.entry, &adjacency(&region).0);
        let mut items = Vec::new();
        for &n in order.postorder.iter().rev() {
            if n == region.sink() {
                continue;
            }
            let p = cp[n as usize];
            match region.nodes[n as usize] {
                Node::Loop(c) => {
                    let id = child_ids[&c];
                    self.pssa_loops[id].pred = p;
                    self.pssa_loops[id].parent = r.map(|l| self.exit_edges[&l].0);
                    items.push(Item::Loop(id));
                }
                Node::Block(b) => self.block_items(r, &region, &cp, b, p, &mut items)?,
            }
        }
        if let Some(l) = r {
            self.finish_loop(l, &region, &cp)?;
        }
        Ok(items)
    }

    /// Region `r`'s acyclic graph.
    fn graph(&mut self, r: Option<Loop>, children: &[Loop]) -> Result<Region, SlpError> {
        let mut nodes: Vec<Node> = Vec::new();
        let blocks: Vec<Block> = match r {
            Some(l) => self.loops.blocks(l).to_vec(),
            None => self.f.layout.blocks().collect(),
        };
        for b in blocks {
            if self.loops.innermost_loop(b) == r {
                nodes.push(Node::Block(b));
            }
        }
        nodes.extend(children.iter().map(|&c| Node::Loop(c)));
        let index: HashMap<Node, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i as u32))
            .collect();
        let sink = nodes.len() as u32;
        let mut succs = Vec::with_capacity(nodes.len());
        for &n in &nodes {
            let edges: Vec<(Block, Pred)> = match n {
                Node::Block(b) => self.block_edges(b),
                Node::Loop(c) => {
                    let exits = self.loops.exit_blocks(c).to_vec();
                    exits
                        .into_iter()
                        .map(|s| (s, self.exit_pred(c, s)))
                        .collect()
                }
            };
            let mut out: Vec<(u32, Vec<Pred>)> = Vec::new();
            for (s, cond) in edges {
                let t = self.node_of(r, s).map_or(sink, |n| index[&n]);
                match out.iter_mut().find(|e| e.0 == t) {
                    Some(e) => e.1.push(cond),
                    None => out.push((t, vec![cond])),
                }
            }
            if out.is_empty() {
                match n {
                    // The return block.
                    Node::Block(_) => out.push((sink, vec![self.preds.always()])),
                    // A loop without exit: nothing after it runs.
                    Node::Loop(c) => {
                        return Err(SlpError::NeverReturns {
                            func: self.name(),
                            block: self.loops.header(c),
                        })
                    }
                }
            }
            succs.push(
                out.into_iter()
                    .map(|(t, conds)| (t, self.preds.or(&conds)))
                    .collect(),
            );
        }
        let entry_block = match r {
            Some(l) => self.loops.header(l),
            None => self.f.entry_block().expect("checked by to_pssa"),
        };
        Ok(Region {
            entry: index[&Node::Block(entry_block)],
            nodes,
            index,
            succs,
        })
    }

    /// The exit predicate of converted loop `c` towards its exit block `s`.
    fn exit_pred(&mut self, c: Loop, s: Block) -> Pred {
        let ps: Vec<Pred> = self.exit_edges[&c]
            .1
            .iter()
            .filter(|((_, to), _)| *to == s)
            .map(|(_, &p)| p)
            .collect();
        self.preds.or(&ps)
    }

    /// The control predicate of every node of `region`, from its post-dominance
    /// frontier (Fig. 8).
    fn predicates(&mut self, region: &Region) -> Result<Vec<Pred>, SlpError> {
        let (succs, preds) = adjacency(region);
        let sink = region.sink();
        let pdt = DomTreeCore::compute(sink, &preds, &succs);
        for (i, n) in region.nodes.iter().enumerate() {
            if !pdt.contains(i as u32) {
                let block = match *n {
                    Node::Block(b) => b,
                    Node::Loop(l) => self.loops.header(l),
                };
                return Err(SlpError::NeverReturns {
                    func: self.name(),
                    block,
                });
            }
        }
        // frontier[n]: (branching node x, conditions of x's edges towards n).
        let mut frontier: Vec<Vec<(u32, Vec<Pred>)>> = vec![Vec::new(); region.nodes.len()];
        for (x, out) in region.succs.iter().enumerate() {
            if out.len() < 2 {
                continue;
            }
            let stop = pdt.idom(x as u32);
            for &(t, cond) in out {
                let mut runner = t;
                while runner != stop && runner != NONE {
                    if runner != sink {
                        let f = &mut frontier[runner as usize];
                        match f.iter_mut().find(|e| e.0 == x as u32) {
                            Some(e) => e.1.push(cond),
                            None => f.push((x as u32, vec![cond])),
                        }
                    }
                    runner = pdt.idom(runner);
                }
            }
        }
        let mut cp = vec![self.preds.always(); region.nodes.len()];
        let order = lanes_ir::graph::depth_first(region.entry, &succs);
        for &n in order.postorder.iter().rev() {
            if n == sink || frontier[n as usize].is_empty() {
                continue;
            }
            let mut terms = Vec::new();
            for (x, conds) in frontier[n as usize].clone() {
                let c = self.preds.or(&conds);
                terms.push(self.preds.and2(cp[x as usize], c));
            }
            cp[n as usize] = self.preds.or(&terms);
        }
        Ok(cp)
    }

    /// The predicate of the CFG edge `p → b` in region `r`, `b` a block of `r`.
    fn edge_pred(
        &mut self,
        r: Option<Loop>,
        region: &Region,
        cp: &[Pred],
        p: Block,
        b: Block,
    ) -> Pred {
        match self.containing_node(r, p) {
            Node::Block(pb) => {
                let cond = self
                    .block_edges(pb)
                    .into_iter()
                    .find(|e| e.0 == b)
                    .map_or(self.preds.never(), |e| e.1);
                self.preds
                    .and2(cp[region.index[&Node::Block(pb)] as usize], cond)
            }
            Node::Loop(c) => {
                let inner = self.exit_edges[&c].1.get(&(p, b)).copied();
                let inner = inner.unwrap_or(self.preds.never());
                self.preds
                    .and2(cp[region.index[&Node::Loop(c)] as usize], inner)
            }
        }
    }

    /// The items of block `b` (predicate `p`) of region `r`.
    fn block_items(
        &mut self,
        r: Option<Loop>,
        region: &Region,
        cp: &[Pred],
        b: Block,
        p: Pred,
        items: &mut Vec<Item>,
    ) -> Result<(), SlpError> {
        let is_header = r.is_some_and(|l| self.loops.header(l) == b);
        for &inst in self.f.layout.block_insts(b) {
            match self.f.dfg.inst(inst) {
                InstData::Phi { .. } if is_header => {} // μ-nodes: see finish_loop
                InstData::Phi { incoming } => {
                    let incoming = incoming.clone();
                    let gates = incoming
                        .into_iter()
                        .map(|(from, v)| (self.edge_pred(r, region, cp, from, b), v))
                        .collect();
                    self.gates.insert(inst, gates);
                    self.inst_pred[inst] = p;
                    items.push(Item::Inst(inst));
                }
                InstData::Jump { .. } | InstData::Brif { .. } => {}
                InstData::Return { .. } => {
                    self.inst_pred[inst] = p;
                    items.push(Item::Inst(inst));
                }
                d if d.is_terminator() => {
                    return Err(SlpError::Unsupported {
                        func: self.name(),
                        block: b,
                        what: format!("`{}`", d.opcode_name()),
                    })
                }
                _ => {
                    self.inst_pred[inst] = p;
                    items.push(Item::Inst(inst));
                }
            }
        }
        Ok(())
    }

    /// Loop `l`'s μ-nodes, continue predicate and exit edges, once its region is done.
    fn finish_loop(&mut self, l: Loop, region: &Region, cp: &[Pred]) -> Result<(), SlpError> {
        let header = self.loops.header(l);
        let id = self.exit_edges[&l].0;
        let latches = self.loops.latches(l).to_vec();
        let [latch] = latches[..] else {
            return Err(SlpError::Unsupported {
                func: self.name(),
                block: header,
                what: format!("a loop with {} latches", latches.len()),
            });
        };
        let mut mus = Vec::new();
        for &inst in self.f.layout.block_insts(header) {
            let InstData::Phi { incoming } = self.f.dfg.inst(inst) else {
                continue;
            };
            let value = self.f.dfg.inst_result(inst).expect("a φ has a result");
            let init = incoming.iter().find(|e| !self.loops.contains(l, e.0));
            let rec = incoming.iter().find(|e| e.0 == latch);
            let (Some(&(_, init)), Some(&(_, rec)), 2) = (init, rec, incoming.len()) else {
                return Err(SlpError::Unsupported {
                    func: self.name(),
                    block: header,
                    what: "a loop-header φ without one preheader and one latch value".into(),
                });
            };
            mus.push(Mu {
                inst,
                value,
                init,
                rec,
            });
        }
        let cont = self.edge_pred(Some(l), region, cp, latch, header);
        // Edges leaving `l`: from its own blocks, and those leaving nested loops that
        // also leave `l`.
        let mut exits: EdgePreds = HashMap::new();
        for (i, &n) in region.nodes.iter().enumerate() {
            match n {
                Node::Block(b) => {
                    for (s, cond) in self.block_edges(b) {
                        if !self.loops.contains(l, s) {
                            exits.insert((b, s), self.preds.and2(cp[i], cond));
                        }
                    }
                }
                Node::Loop(c) => {
                    let inner: Vec<((Block, Block), Pred)> = self.exit_edges[&c]
                        .1
                        .iter()
                        .map(|(&e, &p)| (e, p))
                        .collect();
                    for ((e, s), p) in inner {
                        if !self.loops.contains(l, s) {
                            exits.insert((e, s), self.preds.and2(cp[i], p));
                        }
                    }
                }
            }
        }
        let data = &mut self.pssa_loops[id];
        data.mus = mus;
        data.cont = cont;
        self.exit_edges.get_mut(&l).expect("allocated").1 = exits;
        Ok(())
    }
}

/// Successor and predecessor lists of `region` (the sink last, without successors).
fn adjacency(region: &Region) -> (Adjacency, Adjacency) {
    let mut succs = Adjacency::new();
    for out in &region.succs {
        succs.push_node(out.iter().map(|e| e.0));
    }
    succs.push_node([]);
    let preds = succs.reversed();
    (succs, preds)
}
