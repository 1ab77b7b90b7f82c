//! SSA liveness: the values live on entry to and on exit from each block.
//!
//! A value `v` is *live-in* at block `b` iff some path from the top of `b` reaches a use of
//! `v` without passing the definition of `v` (Cytron et al., the definition PACT'11 §III
//! uses for sync dependence). It is *live-out* at `b` iff it is live-in at a successor of
//! `b` or used by a φ of a successor on the edge from `b`. Positions follow SSA
//! conventions:
//!
//! - a function parameter is defined at the top of the entry block, a φ at the top of its
//!   block, any other instruction at its place in its block;
//! - an ordinary use is at the place of its instruction; a φ's use of the value flowing in
//!   from predecessor `p` is at the *end of `p`*, so it makes the value live-out at `p`
//!   (and live-in at `p` unless `p` defines it), not live-in at the φ's block.
//!
//! The sets are computed by per-variable path exploration (Brandner et al., "Computing
//! Liveness Sets for SSA-Form Programs", Algorithm 4/5): from every use, walk backwards
//! over predecessors marking blocks live-in (and their predecessors live-out) until the
//! defining block or an already marked block stops the walk. Each (value, block) pair is
//! marked at most once, so the cost is linear in the size of the result. Values are
//! processed in increasing order, so every set comes out sorted. Walks follow all CFG
//! predecessors, including blocks unreachable from the entry; a φ operand naming a block
//! outside the layout is ignored.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};
use lanes_ir::{Block, Function, InstData, Value, ValueDef};

use crate::cfg::ControlFlowGraph;

/// Where a value's definition sits: its block and the index of its instruction there
/// (`-1` for the top of the block, i.e. parameters).
#[derive(Clone, Copy)]
struct DefSite {
    block: Option<Block>,
    pos: i64,
}

/// A use: ordinary (`Some(index)` in `block`) or at the end of `block` (φ operands).
#[derive(Clone, Copy)]
struct UseSite {
    block: Block,
    pos: Option<usize>,
}

/// Live-in and live-out value sets of every block.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    live_in: SecondaryMap<Block, Vec<Value>>,
    live_out: SecondaryMap<Block, Vec<Value>>,
    valid: bool,
}

impl Liveness {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes liveness of `func` from its valid `cfg`.
    pub fn with_function(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let mut liveness = Self::new();
        liveness.compute(func, cfg);
        liveness
    }

    /// Recomputes everything. `cfg` must be valid and computed for `func`.
    pub fn compute(&mut self, func: &Function, cfg: &ControlFlowGraph) {
        debug_assert!(cfg.is_valid());
        self.clear();
        let num_values = func.dfg.num_values();
        // Uses grouped by value (counting sort into one array).
        let mut uses: Vec<(Value, UseSite)> = Vec::new();
        for &block in cfg.blocks() {
            for (pos, &inst) in func.layout.block_insts(block).iter().enumerate() {
                match func.dfg.inst(inst) {
                    InstData::Phi { incoming } => {
                        for &(pred, v) in incoming {
                            if func.dfg.is_valid_block(pred) && cfg.contains(pred) {
                                uses.push((
                                    v,
                                    UseSite {
                                        block: pred,
                                        pos: None,
                                    },
                                ));
                            }
                        }
                    }
                    data => data.for_each_arg(|v| {
                        uses.push((
                            v,
                            UseSite {
                                block,
                                pos: Some(pos),
                            },
                        ));
                    }),
                }
            }
        }
        uses.retain(|(v, _)| v.index() < num_values);
        uses.sort_by_key(|(v, _)| *v);

        let mut last_in: SecondaryMap<Block, PackedOption<Value>> = SecondaryMap::new();
        let mut last_out: SecondaryMap<Block, PackedOption<Value>> = SecondaryMap::new();
        let mut stack: Vec<Block> = Vec::new();
        let mut i = 0;
        while i < uses.len() {
            let v = uses[i].0;
            let def = def_site(func, cfg, v);
            while i < uses.len() && uses[i].0 == v {
                let site = uses[i].1;
                i += 1;
                match site.pos {
                    Some(pos) => {
                        if def.block == Some(site.block) && def.pos < pos as i64 {
                            continue;
                        }
                        stack.push(site.block);
                    }
                    None => {
                        self.mark_out(&mut last_out, site.block, v);
                        if def.block != Some(site.block) {
                            stack.push(site.block);
                        }
                    }
                }
                // Every block on the stack is live-in unless already marked.
                while let Some(b) = stack.pop() {
                    if last_in[b].expand() == Some(v) {
                        continue;
                    }
                    last_in[b] = v.into();
                    self.live_in[b].push(v);
                    for &p in cfg.preds(b) {
                        self.mark_out(&mut last_out, p, v);
                        if def.block != Some(p) {
                            stack.push(p);
                        }
                    }
                }
            }
        }
        self.valid = true;
    }

    fn mark_out(
        &mut self,
        last_out: &mut SecondaryMap<Block, PackedOption<Value>>,
        b: Block,
        v: Value,
    ) {
        if last_out[b].expand() != Some(v) {
            last_out[b] = v.into();
            self.live_out[b].push(v);
        }
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.live_in.clear();
        self.live_out.clear();
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The values live on entry to `b`, sorted.
    pub fn live_in(&self, b: Block) -> &[Value] {
        &self.live_in[b]
    }

    /// The values live on exit from `b` (including φ operands for successors), sorted.
    pub fn live_out(&self, b: Block) -> &[Value] {
        &self.live_out[b]
    }

    /// Is `v` live on entry to `b`?
    pub fn is_live_in(&self, v: Value, b: Block) -> bool {
        self.live_in[b].binary_search(&v).is_ok()
    }

    /// Is `v` live on exit from `b`?
    pub fn is_live_out(&self, v: Value, b: Block) -> bool {
        self.live_out[b].binary_search(&v).is_ok()
    }
}

/// The definition site of `v`; instructions outside the layout define nowhere.
fn def_site(func: &Function, cfg: &ControlFlowGraph, v: Value) -> DefSite {
    match func.dfg.value_def(v) {
        ValueDef::Param(_) => DefSite {
            block: cfg.entry(),
            pos: -1,
        },
        ValueDef::Result(inst) => match func.layout.inst_block(inst) {
            Some(block) => DefSite {
                block: Some(block),
                pos: func.layout.inst_index(inst) as i64,
            },
            None => DefSite {
                block: None,
                pos: -1,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{BinaryOp, FuncBuilder, Type};

    /// A counting loop: `block0: v2 = iconst 0; br block1`,
    /// `block1: v3 = phi [block0: v2], [block2: v4]; brif v0, block2, block3`,
    /// `block2: v4 = add v3, v1; br block1`, `block3: ret v3`.
    #[test]
    fn loop_carried_phi() {
        let mut func = Function::new("count", &[Type::I1, Type::I32], Some(Type::I32));
        let (c, step) = (func.params[0].value, func.params[1].value);
        let mut fb = FuncBuilder::new(&mut func);
        let bl: Vec<Block> = (0..4).map(|_| fb.create_block()).collect();
        fb.switch_to_block(bl[0]);
        let zero = fb.iconst(Type::I32, 0);
        fb.jump(bl[1]);
        fb.switch_to_block(bl[1]);
        let phi = fb.phi(Type::I32, vec![]);
        fb.brif(c, bl[2], bl[3]);
        fb.switch_to_block(bl[2]);
        let next = fb.binary(BinaryOp::Add, phi, step);
        fb.jump(bl[1]);
        fb.switch_to_block(bl[3]);
        fb.ret(Some(phi));
        let phi_inst = match fb.func.dfg.value_def(phi) {
            ValueDef::Result(i) => i,
            ValueDef::Param(_) => unreachable!(),
        };
        *fb.func.dfg.inst_mut(phi_inst) = InstData::Phi {
            incoming: vec![(bl[0], zero), (bl[2], next)],
        };
        let cfg = ControlFlowGraph::with_function(&func);
        let live = Liveness::with_function(&func, &cfg);
        assert!(live.live_in(bl[0]).is_empty());
        assert_eq!(live.live_out(bl[0]), &[c, step, zero]);
        assert_eq!(live.live_in(bl[1]), &[c, step]);
        assert_eq!(live.live_out(bl[1]), &[c, step, phi]);
        assert_eq!(live.live_in(bl[2]), &[c, step, phi]);
        assert_eq!(live.live_out(bl[2]), &[c, step, next]);
        assert_eq!(live.live_in(bl[3]), &[phi]);
        assert!(live.live_out(bl[3]).is_empty());
        assert!(live.is_live_in(phi, bl[3]) && !live.is_live_in(phi, bl[1]));
        assert!(live.is_live_out(next, bl[2]) && !live.is_live_in(next, bl[1]));
    }
}
