//! Where the widened function's values come from and where its code goes.
//!
//! Old values map to new ones (scalars for uniform values, vectors for the others), looked
//! up through [`Widener::mapped`]; a uniform value needed as a vector is broadcast once,
//! right after its definition, and lane ids sit at the top of the entry block. Code of the
//! block being widened is appended to the new block that holds its end. Every insertion
//! goes through lanes-ir's [`FuncCursor`].

use lanes_ir::{Block, FuncCursor, Inst, InstData, Intrinsic, Type, Value, ValueDef};

use super::{vec_of, Widener};

impl Widener<'_> {
    pub(super) fn is_uniform(&self, v: Value) -> bool {
        self.uni[v]
    }

    /// A cursor at the end of the block being filled.
    pub(super) fn at_end(&mut self) -> FuncCursor<'_> {
        let mut cur = FuncCursor::new(&mut self.new);
        cur.goto_bottom(self.cur);
        cur
    }

    /// Appends an instruction to the current block; its result.
    pub(super) fn emit(&mut self, data: InstData, ty: Option<Type>) -> Option<Value> {
        let inst = self.at_end().insert_inst(data, ty);
        self.new.dfg.inst_result(inst)
    }

    /// Appends an instruction with a result of type `ty` to the current block; its result.
    pub(super) fn emit_v(&mut self, data: InstData, ty: Type) -> Value {
        self.at_end().insert_value(data, ty)
    }

    /// The new value of old value `v` (scalar for uniform values, else vector). Values
    /// are widened before their uses: parameters first, then the blocks in reverse
    /// postorder (definitions dominate their uses), φ operands last.
    pub(super) fn mapped(&self, v: Value) -> Value {
        self.map[v]
            .expand()
            .expect("widening maps every old value before its uses")
    }

    /// The new block where the code of old block `b` starts.
    pub(super) fn new_block_of(&self, b: Block) -> Block {
        self.block_map[b]
            .expand()
            .expect("every block of the old layout, which branches target, has a new block")
    }

    pub(super) fn scalar(&self, v: Value) -> Value {
        self.mapped(v)
    }

    /// `v` as a vector (broadcast if uniform).
    pub(super) fn vector(&mut self, v: Value) -> Value {
        let nv = self.mapped(v);
        if !self.is_uniform(v) {
            return nv;
        }
        self.broadcast(nv)
    }

    /// Broadcast of the new scalar `nv`, placed right after its definition.
    pub(super) fn broadcast(&mut self, nv: Value) -> Value {
        if let Some(b) = self.bcast[nv].expand() {
            return b;
        }
        let ty = vec_of(self.new.dfg.value_type(nv), self.width);
        let data = InstData::Intrinsic {
            id: Intrinsic::Broadcast,
            args: vec![nv],
        };
        let b = self.after_def(nv).insert_value(data, ty);
        self.bcast[nv] = b.into();
        b
    }

    /// A cursor right after the definition of the new value `nv` (after the φs if a φ
    /// defines it, at the top of the entry for a parameter).
    pub(super) fn after_def(&mut self, nv: Value) -> FuncCursor<'_> {
        let entry = self.entry;
        let mut cur = FuncCursor::new(&mut self.new);
        match cur.func.dfg.value_def(nv) {
            ValueDef::Param(_) => {
                cur.goto_top(entry);
            }
            ValueDef::Result(d) if cur.func.dfg.inst(d).is_phi() => {
                let b = cur.func.layout.inst_block(d).expect(
                    "the widener places every instruction it makes and removes none until it is done",
                );
                cur.goto_first_non_phi(b);
            }
            ValueDef::Result(d) => {
                cur.goto_after_inst(d);
            }
        }
        cur
    }

    /// `<0, 1, …, W-1>` of integer type `elem`, in the entry block.
    pub(super) fn lane_id(&mut self, ty: Type) -> Value {
        let vty = vec_of(ty, self.width);
        if let Some(&v) = self.lane_ids.get(&vty) {
            return v;
        }
        let data = InstData::Intrinsic {
            id: Intrinsic::LaneId,
            args: vec![],
        };
        let v = FuncCursor::new(&mut self.new)
            .goto_top(self.entry)
            .insert_value(data, vty);
        self.lane_ids.insert(vty, v);
        v
    }

    /// `<base, base + stride, …>` from a linear parameter's scalar `base` (lane 0), at the
    /// top of the entry block: integers step by `stride`, pointers by `stride` bytes.
    pub(super) fn linear_vector(&mut self, base: Value, stride: i64) -> Value {
        let ty = self.new.dfg.value_type(base);
        let step_ty = if ty.is_ptr() { Type::I64 } else { ty };
        let vty = vec_of(ty, self.width);
        let step_vty = vec_of(step_ty, self.width);
        // Both go to the top of the entry (the splat above the lane ids); the arithmetic
        // goes right after the lane ids.
        let lanes = self.lane_id(step_ty);
        let splat = self.broadcast(base);
        let mut cur = self.after_def(lanes);
        let offsets = if stride == 1 {
            lanes
        } else {
            let n = cur.insert_value(InstData::Iconst { imm: stride }, step_vty);
            cur.insert_value(
                InstData::Binary {
                    op: lanes_ir::BinaryOp::Mul,
                    args: [lanes, n],
                    flags: lanes_ir::IntFlags::NONE,
                },
                step_vty,
            )
        };
        let data = if ty.is_ptr() {
            InstData::PtrAdd {
                args: [splat, offsets],
                flags: lanes_ir::IntFlags::NONE,
            }
        } else {
            InstData::Binary {
                op: lanes_ir::BinaryOp::Add,
                args: [splat, offsets],
                flags: lanes_ir::IntFlags::NONE,
            }
        };
        cur.insert_value(data, vty)
    }

    /// The `<W x i1>` mask of old block `b`, or None when all lanes are active; inside an
    /// unmasked region, the entry mask (module `unmasked`).
    pub(super) fn mask_of(&mut self, b: Block) -> Option<Value> {
        if self.unmasked.is_some() {
            return self.entry_active;
        }
        let p = self.prepared.predication.mask(b)?;
        Some(self.vector(p))
    }

    pub(super) fn all_true(&mut self) -> Value {
        self.emit_v(InstData::Iconst { imm: 1 }, Type::mask(self.width))
    }

    pub(super) fn zero_vec(&mut self, ty: Type) -> Value {
        self.zeros(ty, self.width)
    }

    /// A vector of `lanes` zeros of `ty`'s element type.
    pub(super) fn zeros(&mut self, ty: Type, lanes: u16) -> Value {
        let vt = vec_of(ty, lanes);
        let data = if ty.is_float() {
            InstData::Fconst { bits: 0 }
        } else {
            InstData::Iconst { imm: 0 }
        };
        self.emit_v(data, vt)
    }

    pub(super) fn guard_mask(&mut self, b: Block, inst: Inst) -> Option<Value> {
        if self.guarded.contains(inst) {
            self.mask_of(b)
        } else {
            None
        }
    }
}
