//! Step 3 of the reconverging transform: the OpenTree (the reconverging-CFG paper's
//! "OpenTree structure", Fig. 4).
//!
//! Blocks are visited in the step-2 order. The tree holds the visited blocks that still
//! have *open* edges (an edge is open until both of its ends are visited); a block hangs
//! under the common part of the paths to its visited predecessors, so a subtree is a
//! region entered through its root. A divergent block becomes *armed* once one of its
//! edges is closed: from then on, threads that took that edge wait at its other end for
//! the rest of the wave. Before visiting a block `B`, the subtrees of its armed
//! predecessors are checked: if they still have open edges to blocks other than `B`,
//! those threads could never rejoin at `B`, so all these open edges are rerouted through
//! a new **flow block** — it receives them, and φs on the incoming edges carry which
//! original target each thread was heading to, so that the flow block's branch (one more
//! divergent branch, handled like any other) sends it there. A backward edge closes like
//! a forward one; if the subtrees it reaches then have open edges to more than one block,
//! they are rerouted the same way, so that every cycle is left through one place. A
//! divergent block whose two edges both go backward is split into a uniform jump to a
//! *virtual* node carrying the branch, visited before every other block.
//!
//! A flow block's outgoing edges become a terminator when the block leaves the tree
//! (all its edges closed): a `jump`, or a `brif` on the φ of its first target. At most
//! two targets remain by then, because a third open edge would have been rerouted.

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use lanes_ir::{Block, FuncCursor, Function, InstData, Type, UnaryOp, Value};

use crate::cfg_edit::bool_const;
use crate::WfvError;

type NodeId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Root,
    Block,
    /// The branch of a block both of whose edges go backward.
    Virtual,
    Flow,
}

#[derive(Clone, Debug)]
struct Node {
    block: Block,
    kind: Kind,
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    /// For a block node whose branch is a virtual node.
    virtual_node: Option<NodeId>,
    visited: bool,
    armed: bool,
    uniform: bool,
    open_in: u32,
    open_out: u32,
    /// Edges from flow blocks that have no terminator yet.
    flow_incoming: Vec<NodeId>,
    /// A flow block's edges and their conditions, until it gets its terminator.
    flow_outgoing: Vec<(NodeId, Value)>,
    /// A flow block's first closed edge.
    flow_first: Option<NodeId>,
}

impl Node {
    fn new(block: Block, kind: Kind) -> Node {
        Node {
            block,
            kind,
            parent: None,
            children: Vec::new(),
            virtual_node: None,
            visited: false,
            armed: false,
            uniform: false,
            open_in: 0,
            open_out: 0,
            flow_incoming: Vec::new(),
            flow_outgoing: Vec::new(),
            flow_first: None,
        }
    }

    fn closed(&self) -> bool {
        self.open_in == 0 && self.open_out == 0
    }
}

/// The union of some subtrees of the open tree, in a deterministic order.
#[derive(Default)]
struct Subtrees {
    nodes: Vec<NodeId>,
    roots: Vec<NodeId>,
}

impl Subtrees {
    fn add(&mut self, tree: &OpenTree, root: NodeId) {
        if self.nodes.contains(&root) {
            return;
        }
        self.roots.push(root);
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            self.nodes.push(n);
            for &c in &tree.nodes[n].children {
                if self.nodes.contains(&c) || stack.contains(&c) {
                    self.roots.retain(|&r| r != c);
                } else {
                    stack.push(c);
                }
            }
        }
    }
}

/// What the transform did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenTreeStats {
    pub flow_blocks: usize,
}

pub(super) struct OpenTree<'f> {
    func: &'f mut Function,
    nodes: Vec<Node>,
    node_of: HashMap<Block, NodeId>,
    /// Current predecessors of each block (edges from blocks with terminators).
    preds: SecondaryMap<Block, Vec<Block>>,
    /// Blocks whose predecessors changed: their φs are rebuilt afterwards.
    pub rerouted: Vec<Block>,
    pub flow_blocks: Vec<Block>,
}

const ROOT: NodeId = 0;

impl<'f> OpenTree<'f> {
    /// Sets up the nodes of `order` (every reachable block); `divergent(b)`: the branch
    /// ending `b` is divergent.
    pub fn new(func: &'f mut Function, order: &[Block], divergent: &dyn Fn(Block) -> bool) -> Self {
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in order {
            for s in succs_of(func, b) {
                preds[s].push(b);
            }
        }
        let mut t = OpenTree {
            func,
            nodes: vec![Node::new(Block::from_u32(0), Kind::Root)],
            node_of: HashMap::new(),
            preds,
            rerouted: Vec::new(),
            flow_blocks: Vec::new(),
        };
        let pos: HashMap<Block, usize> = order.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        for (i, &b) in order.iter().enumerate() {
            let succs = succs_of(t.func, b);
            let mut n = Node::new(b, Kind::Block);
            n.open_in = t.preds[b].len() as u32;
            n.open_out = succs.len() as u32;
            n.uniform = succs.len() <= 1 || !divergent(b);
            let backward = succs
                .iter()
                .filter(|s| pos.get(s).is_some_and(|&p| p <= i))
                .count();
            let id = t.nodes.len();
            t.nodes.push(n);
            t.node_of.insert(b, id);
            if !t.nodes[id].uniform && backward == 2 {
                let mut v = Node::new(b, Kind::Virtual);
                v.open_in = 1;
                v.open_out = t.nodes[id].open_out;
                let vid = t.nodes.len();
                t.nodes.push(v);
                t.nodes[id].virtual_node = Some(vid);
                t.nodes[id].uniform = true;
                t.nodes[id].open_out = 1;
            }
        }
        t
    }

    /// Runs the transform over `order`.
    pub fn run(&mut self, order: &[Block]) -> Result<OpenTreeStats, WfvError> {
        let mut visit: Vec<NodeId> = Vec::new();
        // Virtual nodes first, then the blocks in order.
        for &b in order {
            if let Some(v) = self.nodes[self.node_of[&b]].virtual_node {
                visit.push(v);
            }
        }
        visit.extend(order.iter().map(|b| self.node_of[b]));
        for n in visit {
            self.process(n)?;
        }
        if !self.nodes[ROOT].children.is_empty() {
            return Err(WfvError::Internal(
                "reconverge: the open tree is not empty at the end".into(),
            ));
        }
        Ok(OpenTreeStats {
            flow_blocks: self.flow_blocks.len(),
        })
    }

    fn process(&mut self, n: NodeId) -> Result<(), WfvError> {
        if self.nodes[n].kind != Kind::Virtual {
            // Defuse armed predecessors whose subtrees lead elsewhere too.
            let mut armed = Subtrees::default();
            for p in self.predecessors(n) {
                if self.nodes[p].armed {
                    armed.add(self, p);
                }
            }
            let leaks = armed.nodes.iter().any(|&q| {
                self.successors(q)
                    .into_iter()
                    .any(|s| s != n && !self.nodes[s].visited)
            });
            if leaks {
                self.reroute(&armed)?;
            }
        }
        self.add_node(n)?;
        // Backward edges close like forward ones.
        let mut back = Subtrees::default();
        for s in self.successors(n) {
            if !self.nodes[s].visited {
                continue;
            }
            back.add(self, s);
            self.close_out(n)?;
            if self.nodes[n].closed() {
                self.remove_node(n)?;
            }
            self.close_in(s)?;
            if self.nodes[s].closed() {
                self.remove_node(s)?;
            }
        }
        if back.roots.len() > 1 {
            self.reroute(&back)?;
        } else {
            let mut first = None;
            let mut split = false;
            'scan: for &q in &back.nodes {
                for s in self.successors(q) {
                    if self.nodes[s].visited {
                        continue;
                    }
                    match first {
                        None => first = Some(s),
                        Some(f) if f != s => {
                            split = true;
                            break 'scan;
                        }
                        _ => {}
                    }
                }
            }
            if split {
                self.reroute(&back)?;
            }
        }
        Ok(())
    }

    /// The node's current predecessors: flow blocks without terminator, then the blocks
    /// branching to it (a block's virtual node stands for its branch).
    fn predecessors(&self, n: NodeId) -> Vec<NodeId> {
        let node = &self.nodes[n];
        if node.kind == Kind::Virtual {
            return vec![self.node_of[&node.block]];
        }
        let mut out = node.flow_incoming.clone();
        for p in &self.preds[node.block] {
            if let Some(&pn) = self.node_of.get(p) {
                out.push(self.nodes[pn].virtual_node.unwrap_or(pn));
            }
        }
        out
    }

    /// The node's current successors.
    fn successors(&self, n: NodeId) -> Vec<NodeId> {
        let node = &self.nodes[n];
        if node.kind == Kind::Flow && self.func.terminator(node.block).is_none() {
            return node.flow_outgoing.iter().map(|&(s, _)| s).collect();
        }
        if let Some(v) = node.virtual_node {
            return vec![v];
        }
        succs_of(self.func, node.block)
            .into_iter()
            .filter_map(|s| self.node_of.get(&s).copied())
            .collect()
    }

    /// Routes the open edges leaving `subtrees` through a new flow block.
    fn reroute(&mut self, subtrees: &Subtrees) -> Result<(), WfvError> {
        let Some(&last) = subtrees.nodes.last() else {
            return Ok(());
        };
        let after = self.nodes[last].block;
        let flow = FuncCursor::new(self.func).create_block_after(after);
        self.flow_blocks.push(flow);
        let f = self.nodes.len();
        self.nodes.push(Node::new(flow, Kind::Flow));
        self.node_of.insert(flow, f);
        let t = bool_const(self.func, true);
        // Targets in first-seen order, each with its condition per predecessor.
        let mut targets: Vec<(NodeId, Vec<(Block, Value)>)> = Vec::new();
        let add = |targets: &mut Vec<(NodeId, Vec<(Block, Value)>)>, to, from, cond| match targets
            .iter_mut()
            .find(|(x, _)| *x == to)
        {
            Some((_, conds)) => conds.push((from, cond)),
            None => targets.push((to, vec![(from, cond)])),
        };
        let mut pred_blocks: Vec<Block> = Vec::new();
        for &p in &subtrees.nodes {
            if self.nodes[p].open_out == 0 {
                continue;
            }
            let pb = self.nodes[p].block;
            pred_blocks.push(pb);
            self.nodes[f].open_in += 1;
            if self.nodes[p].kind == Kind::Flow {
                let first = self.nodes[p].flow_first;
                let mut first_cond = None;
                for (s, cond) in std::mem::take(&mut self.nodes[p].flow_outgoing) {
                    if Some(s) == first {
                        first_cond = Some(cond);
                    } else {
                        add(&mut targets, s, pb, cond);
                        self.nodes[s].flow_incoming.retain(|&x| x != p);
                        self.close_in(s)?;
                        self.close_out(p)?;
                    }
                }
                let rest = match first_cond {
                    Some(c) => self.insert_not(pb, c),
                    None => t,
                };
                if let (Some(fs), Some(c)) = (first, first_cond) {
                    self.nodes[p].flow_outgoing.push((fs, c));
                }
                self.nodes[p].flow_outgoing.push((f, rest));
                self.nodes[f].flow_incoming.push(p);
                self.nodes[p].open_out = 1;
            } else {
                let Some(term) = self.func.terminator(pb) else {
                    return Err(WfvError::Internal(format!(
                        "reconverge: {pb} has no terminator"
                    )));
                };
                match self.func.dfg.inst(term).clone() {
                    InstData::Jump { dest } => {
                        let d = self.node_of[&dest];
                        add(&mut targets, d, pb, t);
                        self.close_in(d)?;
                        self.retarget(pb, dest, flow);
                    }
                    InstData::Brif {
                        cond,
                        then_dest,
                        else_dest,
                    } => {
                        let both = self.nodes[p].open_out == 2;
                        let mut moved = 0;
                        let tn = self.node_of[&then_dest];
                        if !self.nodes[tn].visited {
                            add(&mut targets, tn, pb, if both { cond } else { t });
                            self.close_in(tn)?;
                            moved += 1;
                        }
                        let en = self.node_of[&else_dest];
                        if !self.nodes[en].visited {
                            let c = if both {
                                self.insert_not_before_term(pb, cond)
                            } else {
                                t
                            };
                            add(&mut targets, en, pb, c);
                            self.close_in(en)?;
                            moved += 1;
                        }
                        let new_then = if self.nodes[tn].visited {
                            then_dest
                        } else {
                            flow
                        };
                        let new_else = if self.nodes[en].visited {
                            else_dest
                        } else {
                            flow
                        };
                        if moved == 2 {
                            *self.func.dfg.inst_mut(term) = InstData::Jump { dest: flow };
                            self.nodes[p].open_out = 1;
                        } else {
                            *self.func.dfg.inst_mut(term) = InstData::Brif {
                                cond,
                                then_dest: new_then,
                                else_dest: new_else,
                            };
                        }
                        self.repoint_preds(pb, &[then_dest, else_dest]);
                    }
                    other => {
                        return Err(WfvError::Internal(format!(
                            "reconverge: {pb} ends in {other:?}, which has open edges"
                        )))
                    }
                }
            }
        }
        // The flow block's edges: per target, the φ of its conditions (false from
        // predecessors that were not heading there).
        let f_false = bool_const(self.func, false);
        for (to, conds) in targets {
            let incoming: Vec<(Block, Value)> = pred_blocks
                .iter()
                .map(|&pb| {
                    let c = conds
                        .iter()
                        .find(|(b, _)| *b == pb)
                        .map_or(f_false, |&(_, c)| c);
                    (pb, c)
                })
                .collect();
            let cond = if incoming.iter().all(|&(_, c)| c == incoming[0].1) {
                incoming[0].1
            } else {
                FuncCursor::new(self.func)
                    .goto_top(flow)
                    .insert_phi(Type::I1, incoming)
            };
            self.nodes[to].flow_incoming.push(f);
            self.nodes[to].open_in += 1;
            self.nodes[f].flow_outgoing.push((to, cond));
            self.nodes[f].open_out += 1;
            let tb = self.nodes[to].block;
            if !self.rerouted.contains(&tb) {
                self.rerouted.push(tb);
            }
        }
        self.add_node(f)
    }

    /// `not c` at the end of `b` (a flow block, which has no terminator yet).
    fn insert_not(&mut self, b: Block, c: Value) -> Value {
        FuncCursor::new(self.func).goto_bottom(b).insert_value(
            InstData::Unary {
                op: UnaryOp::Not,
                arg: c,
            },
            Type::I1,
        )
    }

    /// `not c` before the terminator of `b`.
    fn insert_not_before_term(&mut self, b: Block, c: Value) -> Value {
        FuncCursor::new(self.func)
            .goto_before_terminator(b)
            .insert_value(
                InstData::Unary {
                    op: UnaryOp::Not,
                    arg: c,
                },
                Type::I1,
            )
    }

    /// `from`'s edge to `old` now goes to `new`.
    fn retarget(&mut self, from: Block, old: Block, new: Block) {
        FuncCursor::new(self.func).retarget(from, old, new);
        self.repoint_preds(from, &[old]);
    }

    /// Recomputes `from`'s entries in the predecessor lists of `old_targets` and of its
    /// current successors.
    fn repoint_preds(&mut self, from: Block, old_targets: &[Block]) {
        for &o in old_targets {
            self.preds[o].retain(|&p| p != from);
        }
        for s in succs_of(self.func, from) {
            if !self.preds[s].contains(&from) {
                self.preds[s].push(from);
            }
        }
    }

    fn add_node(&mut self, n: NodeId) -> Result<(), WfvError> {
        let visited_preds: Vec<NodeId> = self
            .predecessors(n)
            .into_iter()
            .filter(|&p| self.nodes[p].visited)
            .collect();
        if visited_preds.is_empty() {
            self.nodes[ROOT].children.push(n);
            self.nodes[n].parent = Some(ROOT);
        } else {
            // Walk up from every visited predecessor in turn until one path remains: the
            // nodes passed make up the subtree to flatten.
            let mut heads = visited_preds.clone();
            let mut passed: Vec<NodeId> = Vec::new();
            let mut hit_root = false;
            let mut i = 0;
            while !heads.is_empty() && (heads.len() > 1 || hit_root) {
                if i >= heads.len() {
                    i = 0;
                }
                let h = heads[i];
                if passed.contains(&h) {
                    heads.remove(i);
                    continue;
                }
                passed.push(h);
                match self.nodes[h].parent {
                    None => {
                        hit_root = true;
                        heads.remove(i);
                    }
                    Some(parent) => {
                        heads[i] = parent;
                        i += 1;
                    }
                }
            }
            let mut head = if hit_root || heads.is_empty() {
                ROOT
            } else {
                heads[0]
            };
            // Flatten the passed nodes into one path below `head`, leaves last.
            let (mut branches, mut leaves): (Vec<NodeId>, Vec<NodeId>) = (Vec::new(), Vec::new());
            loop {
                let children = std::mem::take(&mut self.nodes[head].children);
                let (taken, kept): (Vec<NodeId>, Vec<NodeId>) =
                    children.into_iter().partition(|c| passed.contains(c));
                self.nodes[head].children = kept;
                for c in taken {
                    self.nodes[c].parent = None;
                    if self.nodes[c].children.is_empty() {
                        leaves.push(c);
                    } else {
                        branches.push(c);
                    }
                }
                let Some(next) = branches.pop().or_else(|| leaves.pop()) else {
                    break;
                };
                self.nodes[head].children.push(next);
                self.nodes[next].parent = Some(head);
                head = next;
            }
            self.nodes[head].children.push(n);
            self.nodes[n].parent = Some(head);
        }
        for &p in &visited_preds {
            if self.nodes[p].open_out == 0 || self.nodes[n].open_in == 0 {
                return Err(WfvError::Internal(format!(
                    "reconverge: edge {} → {} closed twice",
                    self.nodes[p].block, self.nodes[n].block
                )));
            }
            self.close_out(p)?;
            if !self.nodes[p].uniform {
                self.nodes[p].armed = true;
            }
            self.close_in(n)?;
            if self.nodes[p].kind == Kind::Flow && self.nodes[p].flow_first.is_none() {
                self.nodes[p].flow_first = Some(n);
            }
            if self.nodes[p].closed() {
                self.remove_node(p)?;
            }
        }
        if self.nodes[n].closed() {
            self.remove_node(n)?;
        }
        self.nodes[n].visited = true;
        Ok(())
    }

    /// One open edge into `n` less.
    fn close_in(&mut self, n: NodeId) -> Result<(), WfvError> {
        let node = &mut self.nodes[n];
        node.open_in = node.open_in.checked_sub(1).ok_or_else(|| {
            WfvError::Internal(format!("reconverge: {} has no open edge in", node.block))
        })?;
        Ok(())
    }

    /// One open edge out of `n` less.
    fn close_out(&mut self, n: NodeId) -> Result<(), WfvError> {
        let node = &mut self.nodes[n];
        node.open_out = node.open_out.checked_sub(1).ok_or_else(|| {
            WfvError::Internal(format!("reconverge: {} has no open edge out", node.block))
        })?;
        Ok(())
    }

    /// Takes closed node `n` out of the tree (its children move up to its parent); a flow
    /// block gets its terminator. Nothing if it is out already.
    fn remove_node(&mut self, n: NodeId) -> Result<(), WfvError> {
        let Some(parent) = self.nodes[n].parent else {
            return Ok(());
        };
        let parent = Some(parent);
        let children = std::mem::take(&mut self.nodes[n].children);
        for c in children {
            self.nodes[c].parent = parent;
            if let Some(p) = parent {
                self.nodes[p].children.push(c);
            }
        }
        if let Some(p) = parent {
            self.nodes[p].children.retain(|&c| c != n);
        }
        self.nodes[n].parent = None;
        if self.nodes[n].kind == Kind::Flow && self.func.terminator(self.nodes[n].block).is_none() {
            let out = std::mem::take(&mut self.nodes[n].flow_outgoing);
            let fb = self.nodes[n].block;
            let data = match out[..] {
                [(a, c), (b, _)] => InstData::Brif {
                    cond: c,
                    then_dest: self.nodes[a].block,
                    else_dest: self.nodes[b].block,
                },
                [(a, _)] => InstData::Jump {
                    dest: self.nodes[a].block,
                },
                _ => {
                    return Err(WfvError::Internal(format!(
                        "reconverge: flow block {fb} closes with {} targets",
                        out.len()
                    )))
                }
            };
            FuncCursor::new(self.func)
                .goto_bottom(fb)
                .insert_inst(data, None);
            for &(s, _) in &out {
                self.nodes[s].flow_incoming.retain(|&x| x != n);
                let sb = self.nodes[s].block;
                if !self.preds[sb].contains(&fb) {
                    self.preds[sb].push(fb);
                }
            }
        }
        Ok(())
    }
}

/// The successor blocks of `b`'s terminator (none without one), each once.
pub(super) fn succs_of(func: &Function, b: Block) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for s in func.successors(b) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}
