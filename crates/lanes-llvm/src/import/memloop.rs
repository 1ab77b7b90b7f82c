//! Memory intrinsics: `llvm.memcpy`/`memmove`/`memset` of a constant length up to 4 KiB as
//! loads and stores (all loads before all stores, so overlap is fine), and of a variable or
//! larger length as byte loops in lanes IR (a `memmove` loop runs backwards when the
//! destination lies above the source, so overlapping bytes are read before they are
//! overwritten). A volatile intrinsic's loads and stores are volatile (LLVM leaves the
//! access pattern of volatile `memcpy` unspecified beyond that).
//!
//! lanes has no memory-block operations, and LLVM's loop-idiom recognition turns ordinary
//! copy and fill loops into `llvm.memcpy`/`llvm.memset` calls of a variable length, so the
//! importer writes the loop back out:
//!
//! ```text
//! cur:    n = zext/copy len to i64; br head
//! head:   i = phi [cur: 0], [body: i + 1]; brif i <u n, body, exit
//! body:   store (load src+i | byte), dst+i; br head
//! exit:   … the rest of the LLVM block
//! ```
//!
//! The translation continues in `exit`; the importer records it as the block's tail so that
//! φs of successors name the right predecessor. LLVM recognizes the idiom again on export.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{
    BinaryOp, Block, CastOp, FuncCursor, InstData, IntCC, IntFlags, MemAccess, Type, Value,
    ValueDef,
};

use super::func::FnCx;
use crate::error::ImportError;

/// Largest `memcpy`/`memset` length expanded inline.
const MAX_INLINE_MEM: u64 = 4096;

/// What the loop stores at each byte.
pub(super) enum Fill {
    /// The byte at the same offset from this pointer.
    Copy(Value),
    /// This `i8`.
    Byte(Value),
}

/// The blocks of a loop the importer writes out: where the translation stood (`pre`), the
/// head with the φs and the test, the body, and the exit where the translation goes on.
pub(super) struct LoopBlocks {
    pub pre: Block,
    pub head: Block,
    pub body: Block,
    pub exit: Block,
}

impl FnCx<'_> {
    /// Ends the current block with a jump to a new loop head, which becomes current.
    pub(super) fn open_loop(&mut self) -> LoopBlocks {
        let l = LoopBlocks {
            pre: self.cur,
            head: self.func.append_new_block(),
            body: self.func.append_new_block(),
            exit: self.func.append_new_block(),
        };
        self.emit(InstData::Jump { dest: l.head }, None);
        self.cur = l.head;
        l
    }

    /// A φ of type `ty` at the top of the loop's head (its incomings come with
    /// [`Self::close_loop`]).
    pub(super) fn loop_phi(&mut self, l: &LoopBlocks, ty: Type) -> Value {
        let mut cur = FuncCursor::new(&mut self.func);
        cur.goto_top(l.head).insert_phi(ty, Vec::new())
    }

    /// Ends the head with `brif cond, body, exit`; the body becomes current.
    pub(super) fn loop_test(&mut self, l: &LoopBlocks, cond: Value) {
        self.emit(
            InstData::Brif {
                cond,
                then_dest: l.body,
                else_dest: l.exit,
            },
            None,
        );
        self.cur = l.body;
    }

    /// Ends the body with the back edge and gives each φ its value on entry and after an
    /// iteration; the exit becomes current.
    pub(super) fn close_loop(&mut self, l: &LoopBlocks, phis: &[(Value, Value, Value)]) {
        self.emit(InstData::Jump { dest: l.head }, None);
        for &(phi, start, next) in phis {
            if let ValueDef::Result(i) = self.func.dfg.value_def(phi) {
                debug_assert!(self.func.dfg.inst(i).is_phi(), "{phi} is no loop φ");
                *self.func.dfg.inst_mut(i) = InstData::Phi {
                    incoming: vec![(l.pre, start), (l.body, next)],
                };
            }
        }
        self.cur = l.exit;
    }

    /// Emits a loop storing `len` bytes at `dst`, from the last byte down where
    /// `backward` holds, with accesses of kind `access` (volatile for a volatile
    /// intrinsic); continues in the loop's exit block.
    pub(super) fn byte_loop(
        &mut self,
        dst: Value,
        fill: Fill,
        len: Value,
        backward: Option<Value>,
        access: MemAccess,
    ) {
        let n = match self.ty_of(len) {
            Type::I64 => len,
            _ => self.emit_v(
                InstData::Cast {
                    op: CastOp::Zext,
                    arg: len,
                    flags: IntFlags::NONE,
                },
                Type::I64,
            ),
        };
        let zero = self.iconst(Type::I64, 0);
        let one = self.iconst(Type::I64, 1);
        let last = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Sub,
                args: [n, one],
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        let l = self.open_loop();
        let i = self.loop_phi(&l, Type::I64);
        let more = self.emit_v(
            InstData::Icmp {
                cond: IntCC::Ult,
                args: [i, n],
            },
            Type::I1,
        );
        self.loop_test(&l, more);
        let i_up = i;
        let i = match backward {
            Some(down) => {
                let from_end = self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Sub,
                        args: [last, i_up],
                        flags: IntFlags::NONE,
                    },
                    Type::I64,
                );
                self.emit_v(
                    InstData::Select {
                        args: [down, from_end, i_up],
                    },
                    Type::I64,
                )
            }
            None => i_up,
        };
        let pty = self.ty_of(dst);
        let to = self.emit_v(
            InstData::PtrAdd {
                args: [dst, i],
                flags: IntFlags::NONE,
            },
            pty,
        );
        let byte = match fill {
            Fill::Copy(src) => {
                let sty = self.ty_of(src);
                let from = self.emit_v(
                    InstData::PtrAdd {
                        args: [src, i],
                        flags: IntFlags::NONE,
                    },
                    sty,
                );
                self.emit_v(
                    InstData::Load {
                        ptr: from,
                        align: 1,
                        access,
                    },
                    Type::I8,
                )
            }
            Fill::Byte(b) => b,
        };
        self.emit(
            InstData::Store {
                value: byte,
                ptr: to,
                align: 1,
                access,
            },
            None,
        );
        let next = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Add,
                args: [i_up, one],
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        self.close_loop(&l, &[(i_up, zero, next)]);
    }

    /// The length operand of a memory intrinsic if it is a constant small enough to
    /// expand inline (else the operation becomes a loop).
    unsafe fn inline_len(&self, len: LLVMValueRef) -> Option<u64> {
        if LLVMIsAConstantInt(len).is_null() {
            return None;
        }
        Some(LLVMConstIntGetZExtValue(len)).filter(|&n| n <= MAX_INLINE_MEM)
    }

    /// Chunks of a copy of `n` bytes: (offset, type).
    pub(super) fn chunks(n: u64) -> Vec<(u64, Type)> {
        let mut out = Vec::new();
        let mut off = 0;
        for (size, ty) in [
            (8, Type::I64),
            (4, Type::I32),
            (2, Type::I16),
            (1, Type::I8),
        ] {
            while n - off >= size {
                out.push((off, ty));
                off += size;
            }
        }
        out
    }

    fn addr(&mut self, base: Value, off: u64) -> Value {
        if off == 0 {
            return base;
        }
        let o = self.iconst(Type::I64, off as i64);
        let pty = self.ty_of(base);
        self.emit_v(
            InstData::PtrAdd {
                args: [base, o],
                flags: IntFlags::NONE,
            },
            pty,
        )
    }

    pub(super) unsafe fn memcpy(
        &mut self,
        ops: &[LLVMValueRef],
        overlap: bool,
        access: MemAccess,
    ) -> Result<(), ImportError> {
        let Some(n) = self.inline_len(self.nth(ops, 2)?) else {
            let (dst, src, len) = (
                self.op(self.nth(ops, 0)?)?,
                self.op(self.nth(ops, 1)?)?,
                self.op(self.nth(ops, 2)?)?,
            );
            let backward = overlap.then(|| {
                self.emit_v(
                    InstData::Icmp {
                        cond: IntCC::Ugt,
                        args: [dst, src],
                    },
                    Type::I1,
                )
            });
            self.byte_loop(dst, Fill::Copy(src), len, backward, access);
            return Ok(());
        };
        let dst = self.op(self.nth(ops, 0)?)?;
        let src = self.op(self.nth(ops, 1)?)?;
        let chunks = Self::chunks(n);
        let mut loaded = Vec::new();
        for &(off, ty) in &chunks {
            let p = self.addr(src, off);
            loaded.push(self.emit_v(
                InstData::Load {
                    ptr: p,
                    align: 1,
                    access,
                },
                ty,
            ));
        }
        for (&(off, _), value) in chunks.iter().zip(loaded) {
            let ptr = self.addr(dst, off);
            self.emit(
                InstData::Store {
                    value,
                    ptr,
                    align: 1,
                    access,
                },
                None,
            );
        }
        Ok(())
    }

    pub(super) unsafe fn memset(
        &mut self,
        ops: &[LLVMValueRef],
        access: MemAccess,
    ) -> Result<(), ImportError> {
        let Some(n) = self.inline_len(self.nth(ops, 2)?) else {
            let (dst, byte, len) = (
                self.op(self.nth(ops, 0)?)?,
                self.op(self.nth(ops, 1)?)?,
                self.op(self.nth(ops, 2)?)?,
            );
            self.byte_loop(dst, Fill::Byte(byte), len, None, access);
            return Ok(());
        };
        let dst = self.op(self.nth(ops, 0)?)?;
        let byte = self.op(self.nth(ops, 1)?)?;
        let wide = self.emit_v(
            InstData::Cast {
                op: CastOp::Zext,
                arg: byte,
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        let ones = self.iconst(Type::I64, 0x0101_0101_0101_0101);
        let pattern = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Mul,
                args: [wide, ones],
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        for (off, ty) in Self::chunks(n) {
            let value = if ty == Type::I64 {
                pattern
            } else {
                self.emit_v(
                    InstData::Cast {
                        op: CastOp::Trunc,
                        arg: pattern,
                        flags: IntFlags::NONE,
                    },
                    ty,
                )
            };
            let ptr = self.addr(dst, off);
            self.emit(
                InstData::Store {
                    value,
                    ptr,
                    align: 1,
                    access,
                },
                None,
            );
        }
        Ok(())
    }
}
