//! A cursor-style builder that appends instructions to a block of a function.
//!
//! Result types are derived from operands where the IR's typing rules fix them (binary
//! operations take their operands' type, comparisons produce `i1`/masks, `ptradd` widens to
//! a pointer vector), so passes and generators state only what is not implied.

use crate::entities::{Block, FuncId, Inst, Value};
use crate::flags::IntFlags;
use crate::function::Function;
use crate::instructions::InstData;
use crate::memory_order::MemAccess;
use crate::opcodes::{BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, UnaryOp};
use crate::types::{ScalarType, Type};

/// Appends instructions at the end of the current block of `func`.
pub struct FuncBuilder<'f> {
    pub func: &'f mut Function,
    block: Option<Block>,
}

impl<'f> FuncBuilder<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        FuncBuilder { func, block: None }
    }

    /// Creates a block at the end of the layout (does not switch to it).
    pub fn create_block(&mut self) -> Block {
        self.func.append_new_block()
    }

    pub fn switch_to_block(&mut self, block: Block) {
        self.block = Some(block);
    }

    pub fn current_block(&self) -> Option<Block> {
        self.block
    }

    /// Appends an instruction with an optional result of type `result`.
    pub fn inst(&mut self, data: InstData, result: Option<Type>) -> Inst {
        let block = self.block.expect("builder has no current block");
        let inst = self.func.dfg.make_inst(data, result);
        self.func.layout.append_inst(inst, block);
        inst
    }

    /// Appends an instruction with a result and returns the result value.
    pub fn value(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.inst(data, Some(ty));
        self.func
            .dfg
            .inst_result(inst)
            .expect("instruction was given a result")
    }

    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    pub fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        self.value(InstData::Iconst { imm }, ty)
    }

    pub fn f32const(&mut self, x: f32) -> Value {
        self.value(
            InstData::Fconst {
                bits: u64::from(x.to_bits()),
            },
            Type::F32,
        )
    }

    pub fn f64const(&mut self, x: f64) -> Value {
        self.value(InstData::Fconst { bits: x.to_bits() }, Type::F64)
    }

    pub fn unary(&mut self, op: UnaryOp, arg: Value) -> Value {
        let ty = self.ty(arg);
        self.value(InstData::Unary { op, arg }, ty)
    }

    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.value(
            InstData::Binary {
                op,
                args: [a, b],
                flags: IntFlags::NONE,
            },
            ty,
        )
    }

    pub fn icmp(&mut self, cond: IntCC, a: Value, b: Value) -> Value {
        let ty = self.ty(a).as_bool();
        self.value(InstData::Icmp { cond, args: [a, b] }, ty)
    }

    pub fn fcmp(&mut self, cond: FloatCC, a: Value, b: Value) -> Value {
        let ty = self.ty(a).as_bool();
        self.value(InstData::Fcmp { cond, args: [a, b] }, ty)
    }

    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.value(InstData::Select { args: [cond, a, b] }, ty)
    }

    pub fn cast(&mut self, op: CastOp, arg: Value, to: Type) -> Value {
        self.value(
            InstData::Cast {
                op,
                arg,
                flags: IntFlags::NONE,
            },
            to,
        )
    }

    pub fn phi(&mut self, ty: Type, incoming: Vec<(Block, Value)>) -> Value {
        self.value(InstData::Phi { incoming }, ty)
    }

    /// `ptradd base, offset`; a vector offset on a scalar base gives a pointer vector.
    pub fn ptradd(&mut self, base: Value, offset: Value) -> Value {
        let (bt, ot) = (self.ty(base), self.ty(offset));
        let ty = match (bt, ot.lanes()) {
            (Type::Scalar(p), Some(n)) => Type::Vector(n, p),
            _ => bt,
        };
        self.value(
            InstData::PtrAdd {
                args: [base, offset],
                flags: IntFlags::NONE,
            },
            ty,
        )
    }

    pub fn alloca(&mut self, size: u32, align: u32) -> Value {
        self.value(InstData::Alloca { size, align }, Type::PTR)
    }

    pub fn load(&mut self, ty: Type, ptr: Value, align: u32) -> Value {
        self.value(
            InstData::Load {
                ptr,
                align,
                access: MemAccess::PLAIN,
            },
            ty,
        )
    }

    pub fn store(&mut self, value: Value, ptr: Value, align: u32) -> Inst {
        self.inst(
            InstData::Store {
                value,
                ptr,
                align,
                access: MemAccess::PLAIN,
            },
            None,
        )
    }

    pub fn call(&mut self, func: FuncId, args: Vec<Value>, ret: Option<Type>) -> Inst {
        self.inst(InstData::Call { func, args }, ret)
    }

    pub fn intrinsic(&mut self, id: Intrinsic, args: Vec<Value>, ret: Option<Type>) -> Inst {
        self.inst(InstData::Intrinsic { id, args }, ret)
    }

    /// `v` in every lane of vector type `ty`.
    pub fn broadcast(&mut self, v: Value, ty: Type) -> Value {
        self.value(
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args: vec![v],
            },
            ty,
        )
    }

    /// The lane numbers `<0, 1, …>` as integer type `ty` (a scalar is the lane's own).
    pub fn lane_id(&mut self, ty: Type) -> Value {
        self.value(
            InstData::Intrinsic {
                id: Intrinsic::LaneId,
                args: vec![],
            },
            ty,
        )
    }

    pub fn jump(&mut self, dest: Block) -> Inst {
        self.inst(InstData::Jump { dest }, None)
    }

    pub fn brif(&mut self, cond: Value, then_dest: Block, else_dest: Block) -> Inst {
        self.inst(
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            },
            None,
        )
    }

    pub fn switch(&mut self, arg: Value, cases: Vec<(i64, Block)>, default: Block) -> Inst {
        self.inst(
            InstData::Switch {
                arg,
                cases,
                default,
            },
            None,
        )
    }

    pub fn ret(&mut self, value: Option<Value>) -> Inst {
        self.inst(InstData::Return { value }, None)
    }

    pub fn unreachable(&mut self) -> Inst {
        self.inst(InstData::Unreachable, None)
    }

    /// The `i1`-typed or mask type matching `ty`'s lane count.
    pub fn bool_type_like(ty: Type) -> Type {
        ty.with_elem(ScalarType::I1)
    }
}
