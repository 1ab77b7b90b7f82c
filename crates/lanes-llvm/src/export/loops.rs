//! Loop metadata on export: `llvm.loop` hints back on the latches' branches, and for
//! `llvm.loop.parallel_accesses` a fresh access group on every memory access of the loop
//! body (the natural loop of the latch's back edge).

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;

use lanes_ir::Block;

use super::func::{reverse_postorder, FuncCx};

impl FuncCx<'_> {
    /// Attaches `llvm.loop` metadata recorded at import to the latches' branches; for
    /// `parallel_accesses`, a fresh access group on every memory access of the loop.
    pub(super) unsafe fn export_loop_md(&mut self) {
        for md in &self.func.abi.loops {
            let Some(&bb) = self.blocks.get(&md.latch) else {
                continue;
            };
            let term = LLVMGetBasicBlockTerminator(bb);
            if term.is_null() {
                continue;
            }
            let parallel = md.hints.iter().any(|h| h.name == crate::loopmd::PARALLEL);
            let group = if parallel {
                crate::loopmd::access_group(self.t.ctx)
            } else {
                None
            };
            if let Some(g) = group {
                for b in self.loop_body(md.latch) {
                    let mut i = LLVMGetFirstInstruction(self.blocks[&b]);
                    while !i.is_null() {
                        if !LLVMIsALoadInst(i).is_null()
                            || !LLVMIsAStoreInst(i).is_null()
                            || (!LLVMIsACallInst(i).is_null()
                                && crate::llvm::value_name(LLVMGetCalledValue(i))
                                    .starts_with("llvm.masked."))
                        {
                            crate::loopmd::add_to_group(self.t.ctx, i, g);
                        }
                        i = LLVMGetNextInstruction(i);
                    }
                }
            }
            crate::loopmd::attach(self.t.ctx, term, &md.hints, group);
        }
    }

    /// The natural loop of the back edge leaving `latch`: its header is the successor of
    /// `latch` that comes first in reverse postorder (a back edge goes to a dominator), the
    /// body every block that reaches `latch` without passing the header.
    fn loop_body(&self, latch: Block) -> Vec<Block> {
        let rpo = reverse_postorder(self.func);
        let pos = |b: Block| rpo.iter().position(|&x| x == b);
        let Some(lp) = pos(latch) else {
            return Vec::new();
        };
        let Some(header) = self
            .func
            .successors(latch)
            .into_iter()
            .filter(|&s| pos(s).is_some_and(|p| p <= lp))
            .min_by_key(|&s| pos(s))
        else {
            return Vec::new();
        };
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &rpo {
            for s in self.func.successors(b) {
                preds.entry(s).or_default().push(b);
            }
        }
        let mut body = vec![header];
        let mut stack = vec![latch];
        while let Some(b) = stack.pop() {
            if body.contains(&b) {
                continue;
            }
            body.push(b);
            stack.extend(preds.get(&b).into_iter().flatten().copied());
        }
        body
    }
}
