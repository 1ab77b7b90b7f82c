//! Widening of the two intrinsics with which a parallel loop's exit test is run ahead for
//! the lanes after the first (PLDI'18 §7 with early exits; module
//! `crate::outer_loop::probe`).
//!
//! Speculating a load for a lane whose iteration the scalar loop may never run must not
//! fault. Memory is protected by 4 KiB pages, so a read cannot fault when its bytes lie on
//! a page that the program itself reads. Lane 0 runs an iteration the scalar loop runs
//! too; where it is active, its access is one the program makes:
//!
//! - `page_probe ptr, size` becomes, per lane, "lane 0 is active here and this lane's
//!   `size` bytes at `ptr` lie on the page of lane 0's": `(p >> 12) == (p0 >> 12) &&
//!   ((p + size - 1) >> 12) == (p0 >> 12) && mask[0]`. Of a uniform `ptr` it is `mask[0]`.
//! - `speculative_load ptr, true` under the block's mask (which the probe has narrowed to
//!   lanes on lane 0's page) becomes a `speculative_load` of the vector: contiguous from
//!   lane 0's address for a contiguous `ptr`, of the address vector otherwise. A uniform
//!   address is lane 0's own access: an ordinary load, once if some lane is active.

use lanes_ir::{BinaryOp, Block, CastOp, InstData, IntCC, IntFlags, Intrinsic, Type, Value};

use super::{vec_of, Widener};

/// The page size speculation may read within (x86-64's smallest).
const PAGE_BITS: i64 = 12;
const PAGE: i64 = 1 << PAGE_BITS;

impl Widener<'_> {
    /// `mask[0]` of old block `b` as an `i1` (true when every lane is active).
    fn lane0_active(&mut self, b: Block) -> Value {
        match self.mask_of(b) {
            None => self.emit_v(InstData::Iconst { imm: 1 }, Type::I1),
            Some(m) => {
                let zero = self.emit_v(InstData::Iconst { imm: 0 }, Type::I32);
                self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args: vec![m, zero],
                    },
                    Type::I1,
                )
            }
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, a: Value, b: Value, ty: Type) -> Value {
        self.emit_v(
            InstData::Binary {
                op,
                args: [a, b],
                flags: IntFlags::NONE,
            },
            ty,
        )
    }

    /// The widened `page_probe ptr, size` of old block `b`.
    pub(super) fn page_probe(&mut self, b: Block, ptr: Value, size: Value, uniform: bool) -> Value {
        let active0 = self.lane0_active(b);
        if self.is_uniform(ptr) {
            return if uniform {
                active0
            } else {
                self.broadcast(active0)
            };
        }
        let w = self.width;
        let bytes = match self.old.dfg.def_inst(size).map(|i| self.old.dfg.inst(i)) {
            Some(InstData::Iconst { imm }) if *imm > 0 => Some(*imm),
            _ => None,
        };
        if let Some(bytes) = bytes.filter(|&n| self.info.shape(ptr).stride() == Some(n)) {
            let ok = self.contiguous_on_page(ptr, bytes);
            let active0 = self.broadcast(active0);
            return self.binary(BinaryOp::And, ok, active0, Type::mask(w));
        }
        let vi = Type::vector(w, lanes_ir::ScalarType::I64);
        let ptrs = self.vector(ptr);
        let ints = self.emit_v(
            InstData::Cast {
                op: CastOp::PtrToInt,
                arg: ptrs,
                flags: IntFlags::NONE,
            },
            vi,
        );
        let zero = self.emit_v(InstData::Iconst { imm: 0 }, Type::I32);
        let first = self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Extract,
                args: vec![ints, zero],
            },
            Type::I64,
        );
        let shift = self.emit_v(InstData::Iconst { imm: PAGE_BITS }, Type::I64);
        let page0 = self.binary(BinaryOp::LShr, first, shift, Type::I64);
        let page0 = self.broadcast(page0);
        let shifts = self.broadcast(shift);
        let size = self.scalar(size);
        let size = match self.new.dfg.value_type(size) {
            Type::I64 => size,
            _ => self.emit_v(
                InstData::Cast {
                    op: CastOp::Zext,
                    arg: size,
                    flags: IntFlags::NONE,
                },
                Type::I64,
            ),
        };
        let one = self.emit_v(InstData::Iconst { imm: 1 }, Type::I64);
        let last = self.binary(BinaryOp::Sub, size, one, Type::I64);
        let last = self.broadcast(last);
        let ends = self.binary(BinaryOp::Add, ints, last, vi);
        let mut ok = self.emit_v(InstData::Iconst { imm: 1 }, Type::mask(w));
        for addr in [ints, ends] {
            let page = self.binary(BinaryOp::LShr, addr, shifts, vi);
            let same = self.emit_v(
                InstData::Icmp {
                    cond: IntCC::Eq,
                    args: [page, page0],
                },
                Type::mask(w),
            );
            ok = self.binary(BinaryOp::And, ok, same, Type::mask(w));
        }
        let active0 = self.broadcast(active0);
        self.binary(BinaryOp::And, ok, active0, Type::mask(w))
    }

    /// For a contiguous `ptr` of `bytes`-byte lanes: `lane < (4096 - (p0 mod 4096)) /
    /// bytes`, the lanes whose bytes end on lane 0's page.
    fn contiguous_on_page(&mut self, ptr: Value, bytes: i64) -> Value {
        let p0 = self.lane0_of(ptr);
        let int = self.emit_v(
            InstData::Cast {
                op: CastOp::PtrToInt,
                arg: p0,
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        let low = self.emit_v(InstData::Iconst { imm: PAGE - 1 }, Type::I64);
        let offset = self.binary(BinaryOp::And, int, low, Type::I64);
        let page = self.emit_v(InstData::Iconst { imm: PAGE }, Type::I64);
        let rest = self.binary(BinaryOp::Sub, page, offset, Type::I64);
        let size = self.emit_v(InstData::Iconst { imm: bytes }, Type::I64);
        let room = self.binary(BinaryOp::UDiv, rest, size, Type::I64);
        let room = self.emit_v(
            InstData::Cast {
                op: CastOp::Trunc,
                arg: room,
                flags: IntFlags::NONE,
            },
            Type::I32,
        );
        let room = self.broadcast(room);
        let lanes = self.lane_id(Type::I32);
        self.emit_v(
            InstData::Icmp {
                cond: IntCC::Ult,
                args: [lanes, room],
            },
            Type::mask(self.width),
        )
    }

    /// The widened `speculative_load ptr, _` of type `ty` in old block `b`, under the
    /// block's mask.
    pub(super) fn speculative_load(
        &mut self,
        b: Block,
        ptr: Value,
        ty: Type,
        uniform: bool,
    ) -> Value {
        let mask = self.mask_of(b);
        if self.is_uniform(ptr) {
            return self.load(ptr, 0, ty, uniform, mask);
        }
        let vt = vec_of(ty, self.width);
        let contiguous = self.info.shape(ptr).stride() == Some(i64::from(ty.bytes()));
        let base = if contiguous {
            self.lane0_of(ptr)
        } else {
            self.vector(ptr)
        };
        let Some(m) = mask else {
            let all = self.all_true();
            return self.speculative(base, all, vt);
        };
        if !contiguous {
            return self.speculative(base, m, vt);
        }
        // Usually all lanes are on the page: the load under a constant all-true mask,
        // which LLVM makes one plain vector load (a masked one is slow for bytes and words
        // without AVX-512).
        let all = self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::All,
                args: vec![m],
            },
            Type::I1,
        );
        let from = self.cur;
        let whole = self.new_block();
        self.cur = whole;
        let part = self.new_block();
        self.cur = part;
        let join = self.new_block();
        let mut b = lanes_ir::FuncBuilder::new(&mut self.new);
        b.switch_to_block(from);
        b.brif(all, whole, part);
        self.cur = whole;
        let every = self.all_true();
        let v_whole = self.speculative(base, every, vt);
        self.jump_to(join);
        self.cur = part;
        let v_part = self.speculative(base, m, vt);
        self.jump_to(join);
        self.cur = join;
        lanes_ir::FuncCursor::new(&mut self.new)
            .goto_bottom(join)
            .insert_phi(vt, vec![(whole, v_whole), (part, v_part)])
    }

    fn speculative(&mut self, base: Value, mask: Value, vt: Type) -> Value {
        self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::SpeculativeLoad,
                args: vec![base, mask],
            },
            vt,
        )
    }

    /// Ends the current block with a jump to `to`.
    fn jump_to(&mut self, to: Block) {
        let mut b = lanes_ir::FuncBuilder::new(&mut self.new);
        b.switch_to_block(self.cur);
        b.jump(to);
    }
}
