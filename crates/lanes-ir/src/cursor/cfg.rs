//! Edits of the control-flow graph that keep φs consistent with the predecessor lists, in
//! the manner of LLVM's `SplitBlockPredecessors`:
//!
//! - [`FuncCursor::split_preds`] moves some predecessors of a block onto a new block that
//!   jumps to it, merging their φ entries into φs of the new block (this also splits
//!   edges);
//! - [`FuncCursor::retarget`] redirects the edges of one branch;
//! - [`FuncCursor::split_block_before`] moves an instruction and the rest of its block to a
//!   new block, which the successors' φs then name;
//! - [`FuncCursor::remove_unreachable`] deletes the blocks the entry cannot reach, and
//!   their φ entries in the others.
//!
//! Normalization (loop simplify, dedicated exits, one exit block) and the divergent loop
//! transform of the vectorizer are built from these.

use cranelift_entity::EntitySet;

use super::FuncCursor;
use crate::entities::{Block, Inst};
use crate::function::Function;
use crate::graph::BlockGraph;
use crate::instructions::InstData;

/// The predecessors of `block`, deduplicated, in layout order of the branching blocks.
pub fn preds(func: &Function, block: Block) -> Vec<Block> {
    let mut out = Vec::new();
    for b in func.layout.blocks() {
        if func.successors(b).contains(&block) && !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// The φ instructions at the top of `block`.
pub fn phis(func: &Function, block: Block) -> Vec<Inst> {
    func.layout
        .block_insts(block)
        .iter()
        .copied()
        .take_while(|&i| func.dfg.inst(i).is_phi())
        .collect()
}

impl FuncCursor<'_> {
    /// Redirects every edge `from → old` to `from → new`. φs are left alone.
    pub fn retarget(&mut self, from: Block, old: Block, new: Block) {
        if let Some(t) = self.func.terminator(from) {
            self.func.dfg.inst_mut(t).for_each_target_mut(|d| {
                if *d == old {
                    *d = new
                }
            });
        }
    }

    /// Moves `inst` and every instruction after it in its block (the terminator included)
    /// to a new block placed after it, and renames that block in its successors' φs;
    /// returns the new block, or `None` if `inst` is not placed. The old block is left
    /// without a terminator, for the caller to end.
    pub fn split_block_before(&mut self, inst: Inst) -> Option<Block> {
        let block = self.func.layout.inst_block(inst)?;
        let new = self.create_block_after(block);
        let insts = self.func.layout.block_insts(block).to_vec();
        let at = self.func.layout.inst_index(inst);
        for &i in &insts[at..] {
            self.func.layout.remove_inst(i);
            self.func.layout.append_inst(i, new);
        }
        for s in self.func.successors(new) {
            for phi in phis(self.func, s) {
                if let InstData::Phi { incoming } = self.func.dfg.inst_mut(phi) {
                    for (p, _) in incoming.iter_mut().filter(|(p, _)| *p == block) {
                        *p = new;
                    }
                }
            }
        }
        Some(new)
    }

    /// Makes a block that receives the edges from `moved` into `block` and jumps to
    /// `block`, placed right before `block`; returns it. The φ entries of the moved
    /// predecessors become φs of the new block, or are renamed when only one moves. The
    /// cursor stands at the end of the new block afterwards.
    pub fn split_preds(&mut self, block: Block, moved: &[Block]) -> Block {
        let new = self.create_block_before(block);
        for &p in moved {
            self.retarget(p, block, new);
        }
        self.goto_bottom(new);
        for phi in phis(self.func, block) {
            let InstData::Phi { incoming } = self.func.dfg.inst(phi).clone() else {
                continue;
            };
            let (mine, rest): (Vec<_>, Vec<_>) =
                incoming.into_iter().partition(|(p, _)| moved.contains(p));
            let merged = match mine[..] {
                [] => continue,
                [(_, v)] => v,
                [(_, first), ..] => {
                    // A φ's incoming values have its type.
                    let ty = self.func.dfg.value_type(first);
                    self.insert_phi(ty, mine)
                }
            };
            let mut incoming = rest;
            incoming.push((new, merged));
            *self.func.dfg.inst_mut(phi) = InstData::Phi { incoming };
        }
        self.goto_bottom(new);
        self.insert_inst(InstData::Jump { dest: block }, None);
        new
    }

    /// Removes the blocks the entry cannot reach, and their entries in the φs of the
    /// others; whether there were any. The cursor points nowhere afterwards.
    pub fn remove_unreachable(&mut self) -> bool {
        let mut reachable = EntitySet::new();
        for b in BlockGraph::new(self.func).reverse_postorder() {
            reachable.insert(b);
        }
        let mut dead = EntitySet::new();
        for b in self.func.layout.blocks() {
            if !reachable.contains(b) {
                dead.insert(b);
            }
        }
        if dead.is_empty() {
            return false;
        }
        self.set_position(super::CursorPosition::Nowhere);
        for b in dead.iter() {
            self.remove_block(b);
        }
        let live: Vec<Block> = self.func.layout.blocks().collect();
        for b in live {
            for phi in phis(self.func, b) {
                if let InstData::Phi { incoming } = self.func.dfg.inst_mut(phi) {
                    incoming.retain(|&(p, _)| !dead.contains(p));
                }
            }
        }
        true
    }
}
