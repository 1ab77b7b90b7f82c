//! Lane 0's address of a contiguous access, computed with scalar operations.
//!
//! A contiguous load or store (module `memory`) needs one address: lane 0's (CC'12 §3.3,
//! PLDI'18 §2.3). Taking element 0 of the widened address vector is correct but leaves
//! LLVM a chain of vector operations — broadcast the index, add `<0, 1, …>`, shift, a
//! vector `getelementptr` — that it does not scalarize through a sign extension built
//! from its leaves (module `extend`): the unmasked group of an `int`-indexed SPMD launcher
//! moved its index into a vector register, shifted it there and moved it back, every
//! group. So lane 0 of the address expression is recomputed on scalars:
//!
//! ```text
//! lane0(ptradd p, o)   = ptradd lane0(p), lane0(o)
//! lane0(a op b)        = lane0(a) op lane0(b)      op: add sub mul shl and or xor
//! lane0(trunc/ext x)   = trunc/ext lane0(x)
//! lane0(sext x)        = the scalar base of its exact form (module `extend`)
//! lane0(uniform v)     = v
//! lane0(other v)       = extract(v, 0)
//! ```
//!
//! Each rule is the widened instruction's own arithmetic restricted to lane 0 (widened
//! code carries no integer flags and these operations cannot trap), so the scalar equals
//! element 0 of the vector exactly. The scalars are emitted at the access, in its block,
//! and reused only within that block, so each one dominates its uses; the recursion stops
//! after a few levels, where `extract` takes over.

use lanes_ir::{BinaryOp, Block, CastOp, InstData, IntFlags, Intrinsic, Type, Value, ValueDef};

use super::Widener;

/// How many instructions deep the scalar recomputation goes before it falls back to
/// `extract`: an address expression is a handful of operations; a longer chain is
/// cheaper to extract from than to duplicate.
const MAX_DEPTH: u32 = 8;

impl Widener<'_> {
    /// Lane 0 of old value `v` as a new scalar, emitted in the current block.
    pub(super) fn lane0_of(&mut self, v: Value) -> Value {
        self.lane0_at_depth(v, 0)
    }

    fn lane0_at_depth(&mut self, v: Value, depth: u32) -> Value {
        if self.is_uniform(v) {
            return self.scalar(v);
        }
        if let Some(s) = self.lane0_exact[v].expand() {
            return s;
        }
        let key: (Block, Value) = (self.cur, v);
        if let Some(&s) = self.lane0_here.get(&key) {
            return s;
        }
        let ty = self.old.dfg.value_type(v);
        let data = match self.old.dfg.value_def(v) {
            ValueDef::Result(i) if depth < MAX_DEPTH => Some(self.old.dfg.inst(i).clone()),
            _ => None,
        };
        let s = match data {
            Some(InstData::PtrAdd { args: [p, o], .. }) => {
                let p = self.lane0_at_depth(p, depth + 1);
                let o = self.lane0_at_depth(o, depth + 1);
                self.emit_v(
                    InstData::PtrAdd {
                        args: [p, o],
                        flags: IntFlags::NONE,
                    },
                    ty,
                )
            }
            Some(InstData::Binary {
                op, args: [a, b], ..
            }) if scalarizable(op) => {
                let a = self.lane0_at_depth(a, depth + 1);
                let b = self.lane0_at_depth(b, depth + 1);
                self.emit_v(
                    InstData::Binary {
                        op,
                        args: [a, b],
                        flags: lanes_ir::IntFlags::NONE,
                    },
                    ty,
                )
            }
            Some(InstData::Cast {
                op: op @ (CastOp::Trunc | CastOp::Zext | CastOp::Sext),
                arg,
                ..
            }) => {
                let a = self.lane0_at_depth(arg, depth + 1);
                self.emit_v(
                    InstData::Cast {
                        op,
                        arg: a,
                        flags: lanes_ir::IntFlags::NONE,
                    },
                    ty,
                )
            }
            _ => self.extract0(self.mapped(v), ty),
        };
        self.lane0_here.insert(key, s);
        s
    }

    /// Element 0 of new vector `vec`, of scalar type `ty`.
    pub(super) fn extract0(&mut self, vec: Value, ty: Type) -> Value {
        let zero = self.emit_v(InstData::Iconst { imm: 0 }, Type::I32);
        self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Extract,
                args: vec![vec, zero],
            },
            ty,
        )
    }
}

/// Integer operations whose lane 0 is the same operation on lane 0 of the operands and
/// that cannot trap.
fn scalarizable(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Shl
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
    )
}
