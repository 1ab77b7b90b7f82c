//! The layout: which blocks a function has, in which order, and which instructions each
//! block holds, in which order.
//!
//! Separating layout from the data-flow graph (Cranelift `ir/layout.rs`) lets CFG rewrites
//! such as partial linearization (PLDI'18 §3) reorder blocks and retarget branches, and
//! code motion such as BOSCC (§6) or SLP scheduling move instructions, without rebuilding
//! them. Blocks keep their instructions in a vector; the first block is the entry.
//!
//! Each placed instruction knows its index in its block, so that [`Layout::inst_index`]
//! (and insertion before, or removal of, a placed instruction) does not search the block:
//! widening a function of one 100,000-instruction block places a broadcast after each
//! definition it needs, and a search per placement made that quadratic. Appending keeps
//! the indices at O(1); inserting or removing at index `i` renumbers the instructions
//! after `i`, which costs what moving them in the vector already costs. Many removals
//! from one block go through [`Layout::retain_insts`], one pass for all.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

use crate::entities::{Block, Inst};

#[derive(Clone, Debug, Default)]
pub struct Layout {
    order: Vec<Block>,
    in_layout: SecondaryMap<Block, bool>,
    block_insts: SecondaryMap<Block, Vec<Inst>>,
    inst_block: SecondaryMap<Inst, PackedOption<Block>>,
    /// The index of each placed instruction in its block.
    inst_pos: SecondaryMap<Inst, u32>,
}

impl Layout {
    pub fn new() -> Self {
        Self::default()
    }

    /// The entry block: the first in layout order.
    pub fn entry_block(&self) -> Option<Block> {
        self.order.first().copied()
    }

    /// Blocks in layout order.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator + '_ {
        self.order.iter().copied()
    }

    pub fn num_blocks(&self) -> usize {
        self.order.len()
    }

    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.in_layout[block]
    }

    /// Appends `block` at the end of the layout.
    pub fn append_block(&mut self, block: Block) {
        assert!(!self.in_layout[block], "{block} is already in the layout");
        self.in_layout[block] = true;
        self.order.push(block);
    }

    /// Inserts `block` right after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        assert!(!self.in_layout[block], "{block} is already in the layout");
        let pos = self.position(after) + 1;
        self.in_layout[block] = true;
        self.order.insert(pos, block);
    }

    /// Removes `block` and its instructions from the layout.
    pub fn remove_block(&mut self, block: Block) {
        let pos = self.position(block);
        self.order.remove(pos);
        self.in_layout[block] = false;
        for inst in std::mem::take(&mut self.block_insts[block]) {
            self.inst_block[inst] = None.into();
        }
    }

    /// Removes from the layout, with their instructions, the blocks for which `keep` is
    /// false: one pass for all, where [`Layout::remove_block`] searches the order each time.
    pub fn retain_blocks(&mut self, mut keep: impl FnMut(Block) -> bool) {
        let mut order = std::mem::take(&mut self.order);
        order.retain(|&b| {
            let kept = keep(b);
            if !kept {
                self.in_layout[b] = false;
                for inst in std::mem::take(&mut self.block_insts[b]) {
                    self.inst_block[inst] = None.into();
                }
            }
            kept
        });
        self.order = order;
    }

    /// Reorders the blocks; `order` must be a permutation of the current blocks.
    pub fn set_block_order(&mut self, order: Vec<Block>) {
        assert_eq!(
            order.len(),
            self.order.len(),
            "block order must be a permutation"
        );
        assert!(
            order.iter().all(|&b| self.in_layout[b]),
            "block order must be a permutation"
        );
        self.order = order;
    }

    fn position(&self, block: Block) -> usize {
        self.order
            .iter()
            .position(|&b| b == block)
            .unwrap_or_else(|| panic!("{block} is not in the layout"))
    }

    /// Instructions of `block` in order.
    pub fn block_insts(&self, block: Block) -> &[Inst] {
        &self.block_insts[block]
    }

    /// The block holding `inst`, if it is placed.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.inst_block[inst].expand()
    }

    /// The last instruction of `block`, if any.
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.block_insts[block].last().copied()
    }

    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.block_insts[block].first().copied()
    }

    /// Appends `inst` to `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(self.in_layout[block], "{block} is not in the layout");
        assert!(self.inst_block[inst].is_none(), "{inst} is already placed");
        self.inst_pos[inst] = self.block_insts[block].len() as u32;
        self.block_insts[block].push(inst);
        self.inst_block[inst] = block.into();
    }

    /// Inserts `inst` at `index` within `block` (0 is the top).
    pub fn insert_inst_at(&mut self, inst: Inst, block: Block, index: usize) {
        assert!(self.in_layout[block], "{block} is not in the layout");
        assert!(self.inst_block[inst].is_none(), "{inst} is already placed");
        self.block_insts[block].insert(index, inst);
        self.inst_block[inst] = block.into();
        self.renumber_from(block, index);
    }

    /// Sets the indices of the instructions of `block` from `index` on.
    fn renumber_from(&mut self, block: Block, index: usize) {
        for (k, &i) in self.block_insts[block].iter().enumerate().skip(index) {
            self.inst_pos[i] = k as u32;
        }
    }

    /// Inserts `inst` right before the placed instruction `before`.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        let block = self
            .inst_block(before)
            .expect("insertion point is not placed");
        let index = self.inst_index(before);
        self.insert_inst_at(inst, block, index);
    }

    /// Position of a placed instruction within its block.
    pub fn inst_index(&self, inst: Inst) -> usize {
        let block = self.inst_block(inst).expect("instruction is not placed");
        let index = self.inst_pos[inst] as usize;
        debug_assert_eq!(
            self.block_insts[block].get(index),
            Some(&inst),
            "layout tables disagree"
        );
        index
    }

    /// Keeps the instructions of `block` for which `keep` holds, in order, and unplaces
    /// the others: one pass, where removing them one by one moves the rest each time.
    pub fn retain_insts(&mut self, block: Block, mut keep: impl FnMut(Inst) -> bool) {
        let mut insts = std::mem::take(&mut self.block_insts[block]);
        insts.retain(|&i| {
            let k = keep(i);
            if !k {
                self.inst_block[i] = None.into();
            }
            k
        });
        self.block_insts[block] = insts;
        self.renumber_from(block, 0);
    }

    /// Removes a placed instruction from its block.
    pub fn remove_inst(&mut self, inst: Inst) {
        let block = self.inst_block(inst).expect("instruction is not placed");
        let index = self.inst_index(inst);
        self.block_insts[block].remove(index);
        self.inst_block[inst] = None.into();
        self.renumber_from(block, index);
    }
}
