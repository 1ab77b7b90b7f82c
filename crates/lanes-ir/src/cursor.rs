//! A cursor for editing a function in place: one position in the layout, and every
//! insertion, removal and CFG edit made from it.
//!
//! The model is Cranelift's `cranelift/codegen/src/cursor.rs` (`FuncCursor`). A pass
//! positions the cursor — at the top of a block, before an instruction, before a block's
//! terminator or at its end — and inserts there. Each insertion leaves the cursor after
//! the new instruction, so that a sequence of insertions lands in program order. Making an
//! instruction in the data-flow graph and placing it in the layout are one step, so no
//! instruction is made and left unplaced by accident, and [`FuncCursor::insert_value`]
//! returns the result, so callers need not look it up again.
//!
//! φs have their own insertion point, after a block's last φ ([`FuncCursor::insert_phi`]),
//! so that they stay at the top of their block whatever else the pass inserts there.
//!
//! The edits of the control-flow graph that keep φs consistent with predecessor lists
//! ([`FuncCursor::retarget`], [`FuncCursor::split_preds`], [`FuncCursor::split_block_before`],
//! [`FuncCursor::remove_unreachable`]) and the queries they rest on ([`preds`], [`phis`])
//! are in the submodule `cfg`. [`FuncBuilder`](crate::FuncBuilder) stays the builder that
//! appends to new blocks; edits of existing blocks go through the cursor.

mod cfg;

pub use cfg::{phis, preds};

use crate::entities::{Block, Inst, Value};
use crate::function::Function;
use crate::instructions::InstData;
use crate::types::Type;

/// Where a [`FuncCursor`] inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorPosition {
    /// In no block: nothing can be inserted.
    Nowhere,
    /// Before the first instruction of the block, φs included.
    Top(Block),
    /// Right before this placed instruction.
    Before(Inst),
    /// After the block's last instruction that is not its terminator: right before the
    /// terminator, or at the end while the block has none. Looked up at each insertion.
    BeforeTerminator(Block),
    /// After the last instruction of the block.
    End(Block),
}

/// A position in a function and the edits made at it.
pub struct FuncCursor<'f> {
    pos: CursorPosition,
    pub func: &'f mut Function,
}

impl<'f> FuncCursor<'f> {
    /// A cursor on `func` that points nowhere yet.
    pub fn new(func: &'f mut Function) -> Self {
        FuncCursor {
            pos: CursorPosition::Nowhere,
            func,
        }
    }

    pub fn position(&self) -> CursorPosition {
        self.pos
    }

    pub fn set_position(&mut self, pos: CursorPosition) {
        self.pos = pos;
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            CursorPosition::Nowhere => None,
            CursorPosition::Before(inst) => self.func.layout.inst_block(inst),
            CursorPosition::Top(b)
            | CursorPosition::BeforeTerminator(b)
            | CursorPosition::End(b) => Some(b),
        }
    }

    /// The instruction an insertion would go in front of (none at the end of a block).
    pub fn current_inst(&self) -> Option<Inst> {
        match self.pos {
            CursorPosition::Nowhere | CursorPosition::End(_) => None,
            CursorPosition::Top(b) => self.func.layout.first_inst(b),
            CursorPosition::Before(inst) => Some(inst),
            CursorPosition::BeforeTerminator(b) => self.func.terminator(b),
        }
    }

    /// Before the first instruction of `block`, φs included.
    pub fn goto_top(&mut self, block: Block) -> &mut Self {
        self.pos = CursorPosition::Top(block);
        self
    }

    /// After the φs of `block`: where its other code starts.
    pub fn goto_first_non_phi(&mut self, block: Block) -> &mut Self {
        let first = self
            .func
            .layout
            .block_insts(block)
            .iter()
            .copied()
            .find(|&i| !self.func.dfg.inst(i).is_phi());
        self.pos = match first {
            Some(inst) => CursorPosition::Before(inst),
            None => CursorPosition::End(block),
        };
        self
    }

    /// Before the terminator of `block` (at its end while it has none).
    pub fn goto_before_terminator(&mut self, block: Block) -> &mut Self {
        self.pos = CursorPosition::BeforeTerminator(block);
        self
    }

    /// After the last instruction of `block`.
    pub fn goto_bottom(&mut self, block: Block) -> &mut Self {
        self.pos = CursorPosition::End(block);
        self
    }

    /// Right before `inst`, which must be placed.
    pub fn goto_inst(&mut self, inst: Inst) -> &mut Self {
        assert!(
            self.func.layout.inst_block(inst).is_some(),
            "the cursor can only stand before a placed instruction, and {inst} is not placed"
        );
        self.pos = CursorPosition::Before(inst);
        self
    }

    /// Right after `inst`, which must be placed.
    pub fn goto_after_inst(&mut self, inst: Inst) -> &mut Self {
        let Some(block) = self.func.layout.inst_block(inst) else {
            panic!(
                "the cursor can only stand after a placed instruction, and {inst} is not placed"
            );
        };
        let next = self.func.layout.inst_index(inst) + 1;
        self.pos = match self.func.layout.block_insts(block).get(next) {
            Some(&after) => CursorPosition::Before(after),
            None => CursorPosition::End(block),
        };
        self
    }

    /// Moves past the instruction at the cursor; returns the one now at the cursor.
    pub fn next_inst(&mut self) -> Option<Inst> {
        if let Some(inst) = self.current_inst() {
            self.goto_after_inst(inst);
        }
        self.current_inst()
    }

    /// Makes an instruction with a result of type `ty` (or none) and inserts it at the
    /// cursor, which then stands after it.
    pub fn insert_inst(&mut self, data: InstData, ty: Option<Type>) -> Inst {
        let inst = self.func.dfg.make_inst(data, ty);
        self.place(inst);
        inst
    }

    /// Like [`insert_inst`](Self::insert_inst) with a result; returns the result.
    pub fn insert_value(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.insert_inst(data, Some(ty));
        self.func
            .dfg
            .inst_result(inst)
            .expect("make_inst gives an instruction made with a result type its result")
    }

    /// Makes a φ of type `ty` after the last φ of the cursor's block; returns its result.
    /// The cursor then stands right after the new φ, where the block's other code starts.
    pub fn insert_phi(&mut self, ty: Type, incoming: Vec<(Block, Value)>) -> Value {
        let Some(block) = self.current_block() else {
            panic!("insert_phi needs the cursor in a block");
        };
        self.goto_first_non_phi(block);
        self.insert_value(InstData::Phi { incoming }, ty)
    }

    /// Places `inst`, taken from wherever it is, at the cursor (which then stands after it).
    pub fn move_inst(&mut self, inst: Inst) {
        assert!(
            self.pos != CursorPosition::Before(inst),
            "{inst} cannot move in front of itself"
        );
        if self.func.layout.inst_block(inst).is_some() {
            self.func.layout.remove_inst(inst);
        }
        self.place(inst);
    }

    /// Removes the instruction at the cursor from the layout and returns it; the cursor
    /// then stands where the instruction was.
    pub fn remove_inst(&mut self) -> Inst {
        let Some(inst) = self.current_inst() else {
            panic!(
                "remove_inst needs the cursor at an instruction ({:?})",
                self.pos
            );
        };
        if let CursorPosition::Before(_) = self.pos {
            self.goto_after_inst(inst);
        }
        self.func.layout.remove_inst(inst);
        inst
    }

    /// Keeps the instructions of `block` for which `keep` holds and removes the others,
    /// in one pass over the block.
    /// The cursor points nowhere afterwards if its instruction was removed.
    pub fn retain_insts(&mut self, block: Block, keep: impl FnMut(Inst) -> bool) {
        self.func.layout.retain_insts(block, keep);
        if let CursorPosition::Before(inst) = self.pos {
            if self.func.layout.inst_block(inst).is_none() {
                self.pos = CursorPosition::Nowhere;
            }
        }
    }

    /// Makes a block and places it right after `after`.
    pub fn create_block_after(&mut self, after: Block) -> Block {
        let block = self.func.dfg.make_block();
        self.func.layout.insert_block_after(block, after);
        block
    }

    /// Makes a block and places it right before `before`.
    pub fn create_block_before(&mut self, before: Block) -> Block {
        let block = self.func.dfg.make_block();
        self.insert_block_before(block, before);
        block
    }

    /// Makes a block and places it first: the function's new entry.
    pub fn create_entry_block(&mut self) -> Block {
        match self.func.entry_block() {
            Some(entry) => self.create_block_before(entry),
            None => self.func.append_new_block(),
        }
    }

    /// Places `block` (not yet in the layout) right before `before`, or last if `before`
    /// is not in the layout.
    pub fn insert_block_before(&mut self, block: Block, before: Block) {
        let order: Vec<Block> = self.func.layout.blocks().collect();
        match order.iter().position(|&b| b == before) {
            Some(0) => {
                self.func.layout.append_block(block);
                let mut first = vec![block];
                first.extend(order);
                self.func.layout.set_block_order(first);
            }
            Some(i) => self.func.layout.insert_block_after(block, order[i - 1]),
            None => self.func.layout.append_block(block),
        }
    }

    /// Removes `block` and its instructions from the layout.
    pub fn remove_block(&mut self, block: Block) {
        if self.current_block() == Some(block) {
            self.pos = CursorPosition::Nowhere;
        }
        self.func.layout.remove_block(block);
    }

    /// Places the unplaced `inst` at the cursor and steps past it.
    fn place(&mut self, inst: Inst) {
        match self.pos {
            CursorPosition::Nowhere => panic!("the cursor points nowhere: position it first"),
            CursorPosition::Top(block) => {
                self.func.layout.insert_inst_at(inst, block, 0);
                self.goto_after_inst(inst);
            }
            CursorPosition::Before(at) => self.func.layout.insert_inst_before(inst, at),
            CursorPosition::BeforeTerminator(block) => match self.func.terminator(block) {
                Some(t) => self.func.layout.insert_inst_before(inst, t),
                None => self.func.layout.append_inst(inst, block),
            },
            CursorPosition::End(block) => self.func.layout.append_inst(inst, block),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Module;
    use crate::parser::parse_function;
    use crate::verifier::verify_function;
    use crate::write::function_to_string;

    fn parse(src: &str) -> (Module, Function) {
        let (module, id) = parse_function(src).expect("the test function parses");
        let func = module.function(id).expect("defined").clone();
        (module, func)
    }

    fn block(func: &Function, n: usize) -> Block {
        func.layout
            .blocks()
            .nth(n)
            .expect("the test function has this block")
    }

    fn iconst(imm: i64) -> InstData {
        InstData::Iconst { imm }
    }

    /// The function printed without its first line, after the edits of `edit`.
    fn edited(src: &str, edit: impl FnOnce(&mut FuncCursor)) -> String {
        let (module, mut func) = parse(src);
        edit(&mut FuncCursor::new(&mut func));
        if let Err(e) = verify_function(&module, &func) {
            panic!("{e}\n{}", function_to_string(&module, &func));
        }
        function_to_string(&module, &func)
    }

    const STRAIGHT: &str = "\
function @f(v0: i32) -> i32 {
block0:
    v1: i32 = add v0, v0
    ret v1
}
";

    #[test]
    fn insertions_land_in_program_order() {
        let mut made = Vec::new();
        let text = edited(STRAIGHT, |cur| {
            let entry = block(cur.func, 0);
            cur.goto_top(entry);
            made.push(cur.insert_value(iconst(1), Type::I32));
            made.push(cur.insert_value(iconst(2), Type::I32));
            let add = cur.current_inst().expect("the add follows the constants");
            cur.goto_after_inst(add);
            made.push(cur.insert_value(iconst(3), Type::I32));
            assert_eq!(cur.current_inst(), cur.func.terminator(entry));
        });
        assert_eq!(made.len(), 3);
        assert_eq!(
            text,
            "\
function @f(v0: i32) -> i32 {
block0:
    v2: i32 = iconst 1
    v3: i32 = iconst 2
    v1: i32 = add v0, v0
    v4: i32 = iconst 3
    ret v1
}
"
        );
    }

    #[test]
    fn insertion_before_the_terminator_follows_the_block_until_it_has_one() {
        let (_, mut func) = parse(STRAIGHT);
        let mut cur = FuncCursor::new(&mut func);
        let b = cur.func.append_new_block();
        cur.goto_before_terminator(b);
        let x = cur.insert_inst(iconst(7), Some(Type::I32));
        let ret = cur.insert_inst(InstData::Return { value: None }, None);
        let y = cur.insert_inst(iconst(8), Some(Type::I32));
        assert_eq!(cur.func.layout.block_insts(b), [x, y, ret]);
        assert_eq!(cur.current_inst(), Some(ret));
        assert_eq!(cur.current_block(), Some(b));
    }

    const JOIN: &str = "\
function @f(v0: i1, v1: i32) -> i32 {
block0:
    brif v0, block1, block2
block1:
    br block3
block2:
    br block3
block3:
    v2: i32 = phi [block1: v1], [block2: v1]
    v3: i32 = add v2, v2
    ret v3
}
";

    #[test]
    fn phis_stay_first() {
        let text = edited(JOIN, |cur| {
            let join = block(cur.func, 3);
            let ret = cur.func.terminator(join).expect("the join returns");
            let (b1, b2) = (block(cur.func, 1), block(cur.func, 2));
            // From anywhere in the block, a φ goes after the last φ ...
            cur.goto_inst(ret);
            let v1 = cur.func.params[1].value;
            let phi = cur.insert_phi(Type::I32, vec![(b1, v1), (b2, v1)]);
            // ... and what follows goes right after it, before the other code.
            let c = cur.insert_value(iconst(5), Type::I32);
            assert!(cur.func.dfg.is_valid_value(phi) && cur.func.dfg.is_valid_value(c));
            assert_eq!(phis(cur.func, join).len(), 2);
        });
        assert_eq!(
            text,
            "\
function @f(v0: i1, v1: i32) -> i32 {
block0:
    brif v0, block1, block2
block1:
    br block3
block2:
    br block3
block3:
    v2: i32 = phi [block1: v1], [block2: v1]
    v4: i32 = phi [block1: v1], [block2: v1]
    v5: i32 = iconst 5
    v3: i32 = add v2, v2
    ret v3
}
"
        );
    }

    #[test]
    fn removal_leaves_the_cursor_where_the_instruction_was() {
        let (_, mut func) = parse(STRAIGHT);
        let mut cur = FuncCursor::new(&mut func);
        let entry = block(cur.func, 0);
        let add = cur.func.layout.block_insts(entry)[0];
        let ret = cur.func.layout.block_insts(entry)[1];
        cur.goto_inst(add);
        assert_eq!(cur.remove_inst(), add);
        assert_eq!(cur.func.layout.inst_block(add), None);
        assert_eq!(cur.position(), CursorPosition::Before(ret));
        let c = cur.insert_inst(iconst(1), Some(Type::I32));
        assert_eq!(cur.func.layout.block_insts(entry), [c, ret]);
        // Moving an instruction takes it from its place to the cursor.
        cur.goto_bottom(entry);
        cur.move_inst(c);
        assert_eq!(cur.func.layout.block_insts(entry), [ret, c]);
    }

    const THREE_PREDS: &str = "\
function @f(v0: i32, v1: i32) -> i32 {
block0:
    switch v0, [1: block1, 2: block2], block3
block1:
    br block4
block2:
    br block4
block3:
    br block4
block4:
    v2: i32 = phi [block1: v0], [block2: v1], [block3: v0]
    v3: i32 = phi [block1: v1], [block2: v1], [block3: v1]
    ret v2
}
";

    #[test]
    fn split_preds_merges_the_moved_phi_entries() {
        let text = edited(THREE_PREDS, |cur| {
            let [b1, b2, b3, join] = [1, 2, 3, 4].map(|n| block(cur.func, n));
            let new = cur.split_preds(join, &[b1, b2]);
            assert_eq!(preds(cur.func, new), [b1, b2]);
            assert_eq!(preds(cur.func, join), [b3, new]);
        });
        assert_eq!(
            text,
            "\
function @f(v0: i32, v1: i32) -> i32 {
block0:
    switch v0, [1: block1, 2: block2], block3
block1:
    br block5
block2:
    br block5
block3:
    br block4
block5:
    v4: i32 = phi [block1: v0], [block2: v1]
    v5: i32 = phi [block1: v1], [block2: v1]
    br block4
block4:
    v2: i32 = phi [block3: v0], [block5: v4]
    v3: i32 = phi [block3: v1], [block5: v5]
    ret v2
}
"
        );
    }

    #[test]
    fn split_preds_of_one_predecessor_renames_its_entries() {
        let text = edited(THREE_PREDS, |cur| {
            let [b3, join] = [3, 4].map(|n| block(cur.func, n));
            let new = cur.split_preds(join, &[b3]);
            assert!(phis(cur.func, new).is_empty());
        });
        assert!(text.contains("block3:\n    br block5\nblock5:\n    br block4\n"));
        assert!(text.contains("v2: i32 = phi [block1: v0], [block2: v1], [block5: v0]"));
    }

    #[test]
    fn split_block_before_moves_the_rest_and_renames_it_in_successor_phis() {
        let text = edited(THREE_PREDS, |cur| {
            let b3 = block(cur.func, 3);
            let jump = cur.func.layout.block_insts(b3)[0];
            let new = cur.split_block_before(jump).expect("placed");
            assert!(cur.func.layout.block_insts(b3).is_empty());
            assert_eq!(cur.func.layout.block_insts(new), [jump]);
            cur.goto_bottom(b3)
                .insert_inst(InstData::Jump { dest: new }, None);
        });
        assert!(
            text.contains("block3:\n    br block5\nblock5:\n    br block4\n"),
            "{text}"
        );
        assert!(text.contains("v2: i32 = phi [block1: v0], [block2: v1], [block5: v0]"));
    }

    #[test]
    fn unreachable_blocks_go_with_their_phi_entries() {
        let text = edited(JOIN, |cur| {
            let [b0, b1, b2] = [0, 1, 2].map(|n| block(cur.func, n));
            // block2 is left unreachable.
            cur.retarget(b0, b2, b1);
            cur.remove_unreachable();
            assert_eq!(cur.func.layout.num_blocks(), 3);
            assert!(!cur.func.layout.is_block_inserted(b2));
        });
        assert!(text.contains("brif v0, block1, block1"));
        assert!(text.contains("v2: i32 = phi [block1: v1]\n"));
        assert!(!text.contains("block2"));
    }
}
