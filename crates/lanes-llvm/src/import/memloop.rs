//! Variable-length `memcpy`/`memset` as byte loops in lanes IR.
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

use lanes_ir::{BinaryOp, CastOp, InstData, IntCC, Type, Value};

use super::func::FnCx;

/// What the loop stores at each byte.
pub(super) enum Fill {
    /// The byte at the same offset from this pointer.
    Copy(Value),
    /// This `i8`.
    Byte(Value),
}

impl FnCx<'_> {
    /// Emits a loop storing `len` bytes at `dst`; continues in the loop's exit block.
    pub(super) fn byte_loop(&mut self, dst: Value, fill: Fill, len: Value) {
        let n = match self.ty_of(len) {
            Type::I64 => len,
            _ => self.emit_v(
                InstData::Cast {
                    op: CastOp::Zext,
                    arg: len,
                },
                Type::I64,
            ),
        };
        let zero = self.iconst(Type::I64, 0);
        let pre = self.cur;
        let head = self.func.append_new_block();
        let body = self.func.append_new_block();
        let exit = self.func.append_new_block();
        self.emit(InstData::Jump { dest: head }, None);

        self.cur = head;
        let phi = self.func.dfg.make_inst(
            InstData::Phi {
                incoming: Vec::new(),
            },
            Some(Type::I64),
        );
        self.func.layout.append_inst(phi, head);
        let i = self.func.dfg.inst_result(phi).unwrap_or(zero);
        let more = self.emit_v(
            InstData::Icmp {
                cond: IntCC::Ult,
                args: [i, n],
            },
            Type::I1,
        );
        self.emit(
            InstData::Brif {
                cond: more,
                then_dest: body,
                else_dest: exit,
            },
            None,
        );

        self.cur = body;
        let pty = self.ty_of(dst);
        let to = self.emit_v(InstData::PtrAdd { args: [dst, i] }, pty);
        let byte = match fill {
            Fill::Copy(src) => {
                let sty = self.ty_of(src);
                let from = self.emit_v(InstData::PtrAdd { args: [src, i] }, sty);
                self.emit_v(
                    InstData::Load {
                        ptr: from,
                        align: 1,
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
            },
            None,
        );
        let one = self.iconst(Type::I64, 1);
        let next = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Add,
                args: [i, one],
            },
            Type::I64,
        );
        self.emit(InstData::Jump { dest: head }, None);
        *self.func.dfg.inst_mut(phi) = InstData::Phi {
            incoming: vec![(pre, zero), (body, next)],
        };
        self.cur = exit;
    }
}
