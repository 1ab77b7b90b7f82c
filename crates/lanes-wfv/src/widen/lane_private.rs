//! What each lane has of its own in the widened function (CC'12 §3.3): a slice of every
//! stack allocation, its work-item id, and mask queries that count only the active lanes.
//!
//! - `alloca` becomes a `W` times larger allocation; lane `k` gets the slice at
//!   `k · stride`, the scalar size rounded up to the slot's alignment
//!   ([`lanes_ir::alloca_slice`], the stride shape analysis gives the alloca; its
//!   accesses keep their `align`); the allocation itself is cache-line aligned;
//! - `global_id 0`/`local_id 0` are the scalar query (the group's first item) plus
//!   `lane_id`;
//! - `any`, `all`, `popcount` and `ballot` look at the lanes the block runs for: `any`,
//!   `popcount` and `ballot` of `m ∧ mask`, `all` of `m ∨ ¬mask`.

use lanes_ir::{BinaryOp, Block, InstData, IntFlags, Intrinsic, Type, UnaryOp, Value};

use super::{vec_of, Widener};

/// The bytes of a cache line: the alignment of a widened stack array.
const CACHE_LINE: u32 = 64;

impl Widener<'_> {
    /// The widened `alloca` of `size` bytes aligned to `align`: a pointer vector of type
    /// `out_ty` to each lane's slice (`ptr_ty` is the scalar pointer type).
    pub(super) fn private_alloca(
        &mut self,
        size: u32,
        align: u32,
        ptr_ty: Type,
        out_ty: Type,
    ) -> Value {
        let stride = lanes_ir::alloca_slice(size, align);
        let total = stride.saturating_mul(u32::from(self.width));
        // Cache-line aligned: laid out element-major (module `private_memory`), the array
        // is read and written a vector of `W` elements at a time, at multiples of the vector
        // size from its start. With the scalar slot's alignment (16 bytes for a `float[64]`)
        // each 64-byte vector could straddle two cache lines, depending on where the stack
        // happens to be: the RPN evaluator at 16 lanes took 12 or 34 ms in the same binary,
        // by the length of its path (which moves the initial stack).
        let align = if total >= CACHE_LINE {
            align.max(CACHE_LINE)
        } else {
            align
        };
        let base = self.emit_v(InstData::Alloca { size: total, align }, ptr_ty);
        let lanes = self.lane_id(Type::I64);
        let i64s = vec_of(Type::I64, self.width);
        let sz = self.emit_v(
            InstData::Iconst {
                imm: i64::from(stride),
            },
            i64s,
        );
        let off = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Mul,
                args: [lanes, sz],
                flags: IntFlags::NONE,
            },
            i64s,
        );
        let bb = self.broadcast(base);
        self.emit_v(
            InstData::PtrAdd {
                args: [bb, off],
                flags: IntFlags::NONE,
            },
            out_ty,
        )
    }

    /// A work-item id query `query` of scalar type `ty`, per lane (`out_ty`).
    pub(super) fn item_per_lane(&mut self, query: &InstData, ty: Type, out_ty: Type) -> Value {
        let s = self.emit_v(query.clone(), ty);
        let sv = self.broadcast(s);
        let l = self.lane_id(ty);
        self.emit_v(
            InstData::Binary {
                op: BinaryOp::Add,
                args: [sv, l],
                flags: IntFlags::NONE,
            },
            out_ty,
        )
    }

    /// Mask query `id` of old value `arg` in old block `b`, over the block's active lanes.
    pub(super) fn mask_query(&mut self, b: Block, id: Intrinsic, arg: Value, ty: Type) -> Value {
        let m = self.vector(arg);
        let mask = self.mask_of(b);
        let mt = Type::mask(self.width);
        let m = match (mask, id) {
            (None, _) => m,
            (Some(k), Intrinsic::All) => {
                let nk = self.emit_v(
                    InstData::Unary {
                        op: UnaryOp::Not,
                        arg: k,
                    },
                    mt,
                );
                self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Or,
                        args: [m, nk],
                        flags: IntFlags::NONE,
                    },
                    mt,
                )
            }
            (Some(k), _) => self.emit_v(
                InstData::Binary {
                    op: BinaryOp::And,
                    args: [m, k],
                    flags: IntFlags::NONE,
                },
                mt,
            ),
        };
        self.emit_v(InstData::Intrinsic { id, args: vec![m] }, ty)
    }
}
