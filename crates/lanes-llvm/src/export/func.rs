//! Export of one function body.
//!
//! Blocks are translated in reverse postorder of the CFG so that every definition is
//! translated before its uses (a definition dominates its uses, and dominators come first
//! in RPO); blocks unreachable from the entry are dropped. An extra LLVM entry block holds
//! the `alloca`s (LLVM's entry block may have no predecessors, lanes' may) and falls
//! through to the lanes entry. φs are created empty and filled once every block exists,
//! with one incoming pair per CFG edge (LLVM counts a `brif` to the same block twice).

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::graph::{depth_first, Adjacency, BlockGraph};
use lanes_ir::{
    AtomicOp, Block, Function, Inst, InstData, Module, ScalarType, SyncScope, Type, UnaryOp, Value,
};

use super::opcode_map::{int_pred, real_pred, rmw_op, set_flags};
use crate::error::ExportError;
use crate::llvm::{cstr, noname, Types};

/// Per-function translation state.
pub(crate) struct FuncCx<'a> {
    pub t: Types,
    pub m: LLVMModuleRef,
    pub b: LLVMBuilderRef,
    pub module: &'a Module,
    pub func: &'a Function,
    pub funcs: &'a [(LLVMValueRef, LLVMTypeRef)],
    pub globals: &'a [LLVMValueRef],
    pub opts: &'a super::ExportOptions,
    pub(super) values: HashMap<Value, LLVMValueRef>,
    pub(super) blocks: HashMap<Block, LLVMBasicBlockRef>,
    pub(super) alloca_block: LLVMBasicBlockRef,
    pub(super) phis: Vec<(Inst, LLVMValueRef, LLVMBasicBlockRef)>,
    /// The instruction being translated, for error messages.
    pub inst: Option<Inst>,
}

/// Reverse postorder of the blocks reachable from the entry, from the shared engine
/// ([`lanes_ir::graph::depth_first`]) with each block's successors visited in branch order,
/// so that the last successor of a branch is emitted first (the order LLVM's own
/// `ReversePostOrderTraversal` gives, which keeps the exported layout what it always was).
pub(crate) fn reverse_postorder(func: &Function) -> Vec<Block> {
    let graph = BlockGraph::new(func);
    if func.entry_block().is_none() {
        return Vec::new();
    }
    let mut backwards = Adjacency::new();
    for n in 0..graph.succs().len() as u32 {
        backwards.push_node(graph.succs().get(n).iter().rev().copied());
    }
    depth_first(0, &backwards)
        .reverse_postorder()
        .into_iter()
        .map(|n| graph.block(n))
        .collect()
}

// The module-wide tables the function's context borrows, passed apart.
#[allow(clippy::too_many_arguments)]
pub(crate) fn export_function(
    t: &Types,
    m: LLVMModuleRef,
    module: &Module,
    func: &Function,
    f: LLVMValueRef,
    funcs: &[(LLVMValueRef, LLVMTypeRef)],
    globals: &[LLVMValueRef],
    opts: &super::ExportOptions,
) -> Result<(), ExportError> {
    // SAFETY: `f` is a function of module `m` in context `t.ctx`; the builder is disposed
    // at the end of this function and every reference it produces stays in `m`.
    unsafe {
        let b = LLVMCreateBuilderInContext(t.ctx);
        let alloca_block = LLVMAppendBasicBlockInContext(t.ctx, f, c"entry".as_ptr());
        let mut cx = FuncCx {
            t: *t,
            m,
            b,
            module,
            func,
            funcs,
            globals,
            opts,
            values: HashMap::new(),
            blocks: HashMap::new(),
            alloca_block,
            phis: Vec::new(),
            inst: None,
        };
        for (i, v) in func.param_values().enumerate() {
            cx.values.insert(v, LLVMGetParam(f, i as u32));
        }
        let order = reverse_postorder(func);
        for &block in &order {
            let name = cstr(&block.to_string());
            let bb = LLVMAppendBasicBlockInContext(t.ctx, f, name.as_ptr());
            cx.blocks.insert(block, bb);
        }
        let result = cx.body(&order);
        LLVMDisposeBuilder(b);
        result
    }
}

impl FuncCx<'_> {
    fn err(&self, message: impl Into<String>) -> ExportError {
        let inst = self.inst.map_or_else(String::new, |i| {
            let mut s = String::new();
            let _ = lanes_ir::write::write_inst(&mut s, self.module, self.func, i);
            s
        });
        ExportError {
            func: self.func.name.clone(),
            inst,
            message: message.into(),
        }
    }

    unsafe fn body(&mut self, order: &[Block]) -> Result<(), ExportError> {
        for &block in order {
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&block]);
            for &inst in self.func.layout.block_insts(block) {
                self.inst = Some(inst);
                let data = self.func.inst(inst);
                let result = self.func.dfg.inst_result(inst);
                if let Some(v) = self.inst_value(inst, data, result)? {
                    let fmf = self.func.dfg.fast_math(inst);
                    if !fmf.is_empty()
                        && !LLVMIsAInstruction(v).is_null()
                        && LLVMCanValueUseFastMathFlags(v) != 0
                    {
                        LLVMSetFastMathFlags(v, crate::fast_math::to_llvm(fmf));
                    }
                    if let Some(r) = result {
                        self.values.insert(r, v);
                    }
                }
            }
        }
        self.inst = None;
        // The allocas' block falls through to the lanes entry.
        LLVMPositionBuilderAtEnd(self.b, self.alloca_block);
        match order.first() {
            Some(entry) => LLVMBuildBr(self.b, self.blocks[entry]),
            None => LLVMBuildUnreachable(self.b),
        };
        let phis = std::mem::take(&mut self.phis);
        for (inst, phi, _) in phis {
            self.inst = Some(inst);
            let InstData::Phi { incoming } = self.func.inst(inst) else {
                continue;
            };
            let here = self.func.layout.inst_block(inst);
            for &(pred, v) in incoming {
                let Some(&bb) = self.blocks.get(&pred) else {
                    continue; // unreachable predecessor: not in the LLVM function
                };
                let edges = self
                    .func
                    .successors(pred)
                    .iter()
                    .filter(|&&s| Some(s) == here)
                    .count();
                let ty = self.func.value_type(v);
                let mut val = self.val(v, ty);
                for _ in 0..edges {
                    let mut bbv = bb;
                    LLVMAddIncoming(phi, &mut val, &mut bbv, 1);
                }
            }
        }
        self.export_loop_md();
        Ok(())
    }

    /// The LLVM value of lanes value `v` (of type `ty`); `undef` if its definition was not
    /// translated (it is in an unreachable block).
    pub(crate) fn val(&self, v: Value, ty: Type) -> LLVMValueRef {
        match self.values.get(&v) {
            Some(&x) => x,
            // SAFETY: the type is of this context.
            None => unsafe { LLVMGetUndef(self.t.ty(ty)) },
        }
    }

    pub(super) fn vt(&self, v: Value) -> Type {
        self.func.value_type(v)
    }

    pub(super) fn arg(&self, v: Value) -> LLVMValueRef {
        self.val(v, self.vt(v))
    }

    /// A constant of type `ty` (scalar or splat) from raw lane bits.
    pub(crate) unsafe fn const_bits(&self, ty: Type, bits: u64) -> LLVMValueRef {
        let elem = ty.elem();
        let scalar = match elem {
            ScalarType::F32 => LLVMConstBitCast(
                LLVMConstInt(self.t.i32(), bits & 0xffff_ffff, 0),
                self.t.scalar(elem),
            ),
            ScalarType::F64 => {
                LLVMConstBitCast(LLVMConstInt(self.t.i64(), bits, 0), self.t.scalar(elem))
            }
            ScalarType::Ptr(_) if bits == 0 => LLVMConstNull(self.t.scalar(elem)),
            ScalarType::Ptr(_) => {
                LLVMConstIntToPtr(LLVMConstInt(self.t.i64(), bits, 0), self.t.scalar(elem))
            }
            _ => LLVMConstInt(self.t.scalar(elem), bits, 0),
        };
        match ty {
            Type::Scalar(_) => scalar,
            Type::Vector(n, _) => {
                let mut lanes = vec![scalar; usize::from(n)];
                LLVMConstVector(lanes.as_mut_ptr(), u32::from(n))
            }
        }
    }

    /// Calls the overloaded LLVM intrinsic `name`.
    pub(crate) unsafe fn call_intrinsic(
        &self,
        name: &str,
        overloads: &[LLVMTypeRef],
        args: &[LLVMValueRef],
    ) -> Result<LLVMValueRef, ExportError> {
        let (f, fty) = crate::llvm::intrinsic(self.m, name, overloads)
            .ok_or_else(|| self.err(format!("LLVM has no intrinsic {name}")))?;
        Ok(self.call(f, fty, args))
    }

    pub(crate) unsafe fn call(
        &self,
        f: LLVMValueRef,
        fty: LLVMTypeRef,
        args: &[LLVMValueRef],
    ) -> LLVMValueRef {
        let mut args = args.to_vec();
        let call = LLVMBuildCall2(
            self.b,
            fty,
            f,
            args.as_mut_ptr(),
            args.len() as u32,
            noname(),
        );
        // The callee's calling convention: clang -O2 makes internal functions `fastcc`, and a
        // call with another convention is undefined behaviour LLVM deletes.
        if !LLVMIsAFunction(f).is_null() {
            LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(f));
        }
        call
    }

    /// Alignment of an access to `ty` with the IR's `align` (0: the element size).
    fn align_of(ty: Type, align: u32) -> u32 {
        if align != 0 {
            align
        } else {
            ty.elem().bytes().max(1)
        }
    }

    /// Converts a value of type `ty` to its memory form (`i1` lanes → `i8`).
    pub(crate) unsafe fn to_mem(&self, v: LLVMValueRef, ty: Type) -> LLVMValueRef {
        if ty.elem() == ScalarType::I1 {
            LLVMBuildZExt(self.b, v, self.t.mem_ty(ty), noname())
        } else {
            v
        }
    }

    pub(crate) unsafe fn mem_to_value(&self, v: LLVMValueRef, ty: Type) -> LLVMValueRef {
        if ty.elem() == ScalarType::I1 {
            LLVMBuildTrunc(self.b, v, self.t.ty(ty), noname())
        } else {
            v
        }
    }

    unsafe fn inst_value(
        &mut self,
        inst: Inst,
        data: &InstData,
        result: Option<Value>,
    ) -> Result<Option<LLVMValueRef>, ExportError> {
        let b = self.b;
        let rty = result.map(|r| self.vt(r));
        let need_ty = || rty.ok_or_else(|| self.err("instruction without a result type"));
        let v = match data {
            InstData::Iconst { imm } => self.const_bits(need_ty()?, *imm as u64),
            InstData::Fconst { bits } => self.const_bits(need_ty()?, *bits),
            InstData::Unary { op, arg } => {
                let x = self.arg(*arg);
                match op {
                    UnaryOp::Ineg => LLVMBuildNeg(b, x, noname()),
                    UnaryOp::Not => LLVMBuildNot(b, x, noname()),
                    UnaryOp::Fneg => LLVMBuildFNeg(b, x, noname()),
                    UnaryOp::Copy => x,
                    UnaryOp::Freeze => LLVMBuildFreeze(b, x, noname()),
                }
            }
            InstData::Binary { op, args, flags } => {
                set_flags(self.binary(*op, args[0], args[1])?, *flags)
            }
            InstData::Icmp { cond, args } => {
                let p = int_pred(*cond);
                LLVMBuildICmp(b, p, self.arg(args[0]), self.arg(args[1]), noname())
            }
            InstData::Fcmp { cond, args } => {
                let p = real_pred(*cond);
                LLVMBuildFCmp(b, p, self.arg(args[0]), self.arg(args[1]), noname())
            }
            InstData::Select { args } => LLVMBuildSelect(
                b,
                self.arg(args[0]),
                self.arg(args[1]),
                self.arg(args[2]),
                noname(),
            ),
            InstData::Cast { op, arg, flags } => {
                set_flags(self.cast(*op, *arg, *flags, need_ty()?)?, *flags)
            }
            InstData::Phi { .. } => {
                let phi = LLVMBuildPhi(b, self.t.ty(need_ty()?), noname());
                let bb = LLVMGetInsertBlock(b);
                self.phis.push((inst, phi, bb));
                phi
            }
            InstData::PtrAdd { args, flags } => {
                let inbounds = flags.contains(lanes_ir::IntFlags::INBOUNDS);
                if let Some(g) = self.scaled_vector_ptradd(args[0], args[1], inbounds) {
                    return Ok(Some(g));
                }
                let mut off = self.arg(args[1]);
                let g = LLVMBuildGEP2(b, self.t.i8(), self.arg(args[0]), &mut off, 1, noname());
                let mut nowrap = 0;
                if flags.contains(lanes_ir::IntFlags::INBOUNDS) {
                    nowrap |= inkwell::llvm_sys::LLVMGEPFlagInBounds;
                }
                if flags.nuw() {
                    nowrap |= inkwell::llvm_sys::LLVMGEPFlagNUW;
                }
                if nowrap != 0 && !LLVMIsAInstruction(g).is_null() {
                    LLVMGEPSetNoWrapFlags(g, nowrap);
                }
                g
            }
            InstData::Alloca { size, align } => {
                let here = LLVMGetInsertBlock(b);
                let first = LLVMGetFirstInstruction(self.alloca_block);
                if first.is_null() {
                    LLVMPositionBuilderAtEnd(b, self.alloca_block);
                } else {
                    LLVMPositionBuilderBefore(b, first);
                }
                let a = LLVMBuildAlloca(b, self.t.bytes(u64::from(*size).max(1)), noname());
                LLVMSetAlignment(a, (*align).max(1));
                LLVMPositionBuilderAtEnd(b, here);
                a
            }
            InstData::GlobalAddr { global } => *self
                .globals
                .get(global.as_u32() as usize)
                .ok_or_else(|| self.err("unknown global"))?,
            InstData::FuncAddr { func } => {
                self.funcs
                    .get(func.as_u32() as usize)
                    .ok_or_else(|| self.err("unknown function"))?
                    .0
            }
            InstData::Load { ptr, align, access } => {
                let ty = need_ty()?;
                let l = LLVMBuildLoad2(b, self.t.mem_ty(ty), self.arg(*ptr), noname());
                LLVMSetAlignment(l, Self::align_of(ty, *align));
                crate::atomics::set_access(l, *access);
                self.mem_to_value(l, ty)
            }
            InstData::Store {
                value,
                ptr,
                align,
                access,
            } => {
                let ty = self.vt(*value);
                let v = self.to_mem(self.arg(*value), ty);
                let s = LLVMBuildStore(b, v, self.arg(*ptr));
                LLVMSetAlignment(s, Self::align_of(ty, *align));
                crate::atomics::set_access(s, *access);
                return Ok(None);
            }
            InstData::Fence { ordering, scope } => {
                let single = i32::from(*scope == SyncScope::SingleThread);
                LLVMBuildFence(b, crate::atomics::to_llvm(*ordering), single, noname());
                return Ok(None);
            }
            InstData::MaskedLoad {
                ptr,
                mask,
                passthru,
                align,
            }
            | InstData::Gather {
                ptrs: ptr,
                mask,
                passthru,
                align,
            } => {
                let ty = need_ty()?;
                let mty = self.t.mem_ty(ty);
                let gather = matches!(data, InstData::Gather { .. });
                let stack = gather.then(|| self.stack_vector_address(*ptr)).flatten();
                let pass = self.to_mem(self.arg(*passthru), ty);
                if stack.is_none() && gather {
                    if let Some(addr) = self.two_index_address(*ptr) {
                        let align = Self::align_of(ty, *align);
                        let mask = self.arg(*mask);
                        let r = self.two_index_gather(&addr, mty, align, mask, pass)?;
                        return Ok(Some(self.mem_to_value(r, ty)));
                    }
                }
                let p = stack.unwrap_or_else(|| self.arg(*ptr));
                let al = self.t.i32c(Self::align_of(ty, *align));
                let name = if matches!(data, InstData::Gather { .. }) {
                    "llvm.masked.gather"
                } else {
                    "llvm.masked.load"
                };
                let r = self.call_intrinsic(
                    name,
                    &[mty, LLVMTypeOf(p)],
                    &[p, al, self.arg(*mask), pass],
                )?;
                self.mem_to_value(r, ty)
            }
            InstData::MaskedStore {
                value,
                ptr,
                mask,
                align,
            }
            | InstData::Scatter {
                value,
                ptrs: ptr,
                mask,
                align,
            } => {
                let ty = self.vt(*value);
                let v = self.to_mem(self.arg(*value), ty);
                let scatter = matches!(data, InstData::Scatter { .. });
                let stack = scatter.then(|| self.stack_vector_address(*ptr)).flatten();
                if stack.is_none() && scatter {
                    if let Some(addr) = self.two_index_address(*ptr) {
                        let (mty, align) = (self.t.mem_ty(ty), Self::align_of(ty, *align));
                        self.two_index_scatter(&addr, mty, align, v, self.arg(*mask))?;
                        return Ok(None);
                    }
                }
                let p = stack.unwrap_or_else(|| self.arg(*ptr));
                let al = self.t.i32c(Self::align_of(ty, *align));
                let name = if matches!(data, InstData::Scatter { .. }) {
                    "llvm.masked.scatter"
                } else {
                    "llvm.masked.store"
                };
                self.call_intrinsic(
                    name,
                    &[self.t.mem_ty(ty), LLVMTypeOf(p)],
                    &[v, p, al, self.arg(*mask)],
                )?;
                return Ok(None);
            }
            InstData::AtomicRmw {
                op,
                ptr,
                value,
                access,
            } => {
                let ty = self.vt(*value);
                if ty.elem() == ScalarType::I1
                    || ty.is_vector()
                    || (ty.is_float() && *op != AtomicOp::Xchg)
                {
                    return Err(self.err(format!("atomic {op} on {ty}")));
                }
                let atomic = access
                    .atomic
                    .ok_or_else(|| self.err("atomic_rmw without ordering"))?;
                let r = LLVMBuildAtomicRMW(
                    b,
                    rmw_op(*op),
                    self.arg(*ptr),
                    self.arg(*value),
                    crate::atomics::to_llvm(atomic.ordering),
                    i32::from(atomic.scope == SyncScope::SingleThread),
                );
                LLVMSetAlignment(r, ty.bytes());
                if access.volatile {
                    LLVMSetVolatile(r, 1);
                }
                r
            }
            InstData::AtomicCas {
                ptr,
                expected,
                replacement,
                access,
                failure,
            } => {
                let ty = self.vt(*expected);
                if ty.elem() == ScalarType::I1 || ty.is_vector() || ty.is_float() {
                    return Err(self.err(format!("compare-and-swap on {ty}")));
                }
                let atomic = access
                    .atomic
                    .ok_or_else(|| self.err("atomic_cas without ordering"))?;
                let r = LLVMBuildAtomicCmpXchg(
                    b,
                    self.arg(*ptr),
                    self.arg(*expected),
                    self.arg(*replacement),
                    crate::atomics::to_llvm(atomic.ordering),
                    crate::atomics::to_llvm(*failure),
                    i32::from(atomic.scope == SyncScope::SingleThread),
                );
                LLVMSetAlignment(r, ty.bytes());
                if access.volatile {
                    LLVMSetVolatile(r, 1);
                }
                LLVMBuildExtractValue(b, r, 0, noname())
            }
            InstData::Call { func, args } => {
                let &(f, fty) = self
                    .funcs
                    .get(func.as_u32() as usize)
                    .ok_or_else(|| self.err("unknown callee"))?;
                let args: Vec<_> = args.iter().map(|&a| self.arg(a)).collect();
                let call = self.call(f, fty, &args);
                if rty.is_none() {
                    return Ok(None);
                }
                call
            }
            InstData::CallIndirect {
                callee,
                args,
                variadic,
            } => {
                let fixed = variadic.map_or(args.len(), |n| n as usize);
                let mut params: Vec<_> = args[..fixed.min(args.len())]
                    .iter()
                    .map(|&a| self.t.ty(self.vt(a)))
                    .collect();
                let ret = rty.map_or_else(|| self.t.void(), |r| self.t.ty(r));
                let fty = LLVMFunctionType(
                    ret,
                    params.as_mut_ptr(),
                    params.len() as u32,
                    i32::from(variadic.is_some()),
                );
                let args: Vec<_> = args.iter().map(|&a| self.arg(a)).collect();
                let call = self.call(self.arg(*callee), fty, &args);
                if rty.is_none() {
                    return Ok(None);
                }
                call
            }
            InstData::Intrinsic { id, args } => {
                let args: Vec<(LLVMValueRef, Type)> =
                    args.iter().map(|&a| (self.arg(a), self.vt(a))).collect();
                match self.intrinsic(*id, &args, rty)? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            InstData::WorkItem { query, dim } => {
                let ty = need_ty()?;
                let i64t = self.t.i64();
                let mut p = [self.t.i32()];
                let fty = LLVMFunctionType(i64t, p.as_mut_ptr(), 1, 0);
                let f = crate::llvm::declare(self.m, &format!("__lanes_{}", query.name()), fty);
                let r = self.call(f, fty, &[self.t.i32c(u32::from(*dim))]);
                self.int_resize(r, ty)
            }
            InstData::Shuffle { args, mask } => {
                let mut lanes: Vec<_> = mask.iter().map(|&i| self.t.i32c(i)).collect();
                let m = LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32);
                LLVMBuildShuffleVector(b, self.arg(args[0]), self.arg(args[1]), m, noname())
            }
            InstData::Jump { dest } => {
                LLVMBuildBr(b, self.block(*dest)?);
                return Ok(None);
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let (t, e) = (self.block(*then_dest)?, self.block(*else_dest)?);
                LLVMBuildCondBr(b, self.arg(*cond), t, e);
                return Ok(None);
            }
            InstData::Switch {
                arg,
                cases,
                default,
            } => {
                let ty = self.vt(*arg);
                let x = self.arg(*arg);
                let sw = LLVMBuildSwitch(b, x, self.block(*default)?, cases.len() as u32);
                for &(c, dest) in cases {
                    LLVMAddCase(sw, self.const_bits(ty, c as u64), self.block(dest)?);
                }
                return Ok(None);
            }
            InstData::Return { value } => {
                match value {
                    Some(v) => LLVMBuildRet(b, self.arg(*v)),
                    None => LLVMBuildRetVoid(b),
                };
                return Ok(None);
            }
            InstData::Unreachable => {
                LLVMBuildUnreachable(b);
                return Ok(None);
            }
        };
        Ok(Some(v))
    }

    fn block(&self, b: Block) -> Result<LLVMBasicBlockRef, ExportError> {
        self.blocks
            .get(&b)
            .copied()
            .ok_or_else(|| self.err(format!("branch to {b}, which is not reachable")))
    }

    /// Zero-extends or truncates the `i64` `v` to the integer type `ty` (splatting it for
    /// a vector type).
    pub(crate) unsafe fn int_resize(&self, v: LLVMValueRef, ty: Type) -> LLVMValueRef {
        let s = self.t.scalar(ty.elem());
        let x = LLVMBuildZExtOrBitCast(
            self.b,
            LLVMBuildTrunc(
                self.b,
                v,
                LLVMIntTypeInContext(self.t.ctx, ty.elem().bits().min(64)),
                noname(),
            ),
            s,
            noname(),
        );
        self.splat(x, ty)
    }

    /// Broadcasts a scalar to `ty` if `ty` is a vector.
    pub(crate) unsafe fn splat(&self, x: LLVMValueRef, ty: Type) -> LLVMValueRef {
        match ty {
            Type::Scalar(_) => x,
            Type::Vector(n, _) => {
                let undef = LLVMGetUndef(self.t.ty(ty));
                let v = LLVMBuildInsertElement(self.b, undef, x, self.t.i32c(0), noname());
                let mut zeros = vec![self.t.i32c(0); usize::from(n)];
                let m = LLVMConstVector(zeros.as_mut_ptr(), u32::from(n));
                LLVMBuildShuffleVector(self.b, v, undef, m, noname())
            }
        }
    }
}
