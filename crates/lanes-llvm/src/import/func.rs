//! Import of one function body.
//!
//! Blocks are translated in reverse postorder, so an instruction's operands (other than
//! φ operands) are translated before it; φs are created empty and filled at the end.
//! Integer flags (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`) are kept ([`lanes_ir::flags`]).
//! Constant operands become `iconst`/`fconst`/`global_addr` instructions right before their
//! use (for φ operands: at the end of the entry block, which dominates every block).
//! `getelementptr` becomes `ptradd` by a byte offset ([`super::gep`]), `freeze` a `copy`
//! (lanes has no poison), calls to intrinsics and math libraries lanes intrinsics
//! ([`super::calls`]).

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

use lanes_ir::graph::{depth_first, Adjacency};
use lanes_ir::{
    AtomicOp, BinaryOp, Block, CastOp, FloatCC, Function, Inst, InstData, IntCC, IntFlags,
    Intrinsic, Type, UnaryOp, Value,
};

use super::types::{lanes_type, odd_width};
use super::ModuleCx;
use crate::error::ImportError;
use crate::llvm::print_value;

/// Translation state of one function.
pub(super) struct FnCx<'a> {
    pub mcx: &'a ModuleCx,
    pub name: String,
    pub func: Function,
    blocks: HashMap<LLVMBasicBlockRef, Block>,
    values: HashMap<LLVMValueRef, Value>,
    /// The block instructions are appended to.
    pub cur: Block,
    /// Where constants for φ operands go: before the entry block's terminator.
    phi_consts: bool,
    phis: Vec<(LLVMValueRef, Inst)>,
    /// The LLVM instruction being translated (for errors).
    pub at: LLVMValueRef,
    /// Latches with `!llvm.loop` metadata.
    loops: Vec<(Block, Vec<lanes_ir::LoopHint>)>,
    /// The lanes block holding the end (terminator) of each LLVM block.
    tails: HashMap<LLVMBasicBlockRef, Block>,
    /// Two-field results `extractvalue` reads: `cmpxchg`'s `{old, success}` and the
    /// overflow intrinsics' `{result, overflow}`.
    pub(super) pairs: HashMap<LLVMValueRef, (Value, Value)>,
    /// The source file of the function's line tables, if it has them.
    file: Option<Vec<u8>>,
    /// The source line of `at` when it lies in `file` (0 otherwise): every instruction
    /// made for it gets the line ([`Function::source_lines`]).
    line: u32,
}

/// The file name of the debug location of `v` (an instruction or a function), if any.
unsafe fn debug_file(v: LLVMValueRef) -> Option<Vec<u8>> {
    let mut len = 0;
    let p = LLVMGetDebugLocFilename(v, &mut len);
    (!p.is_null() && len > 0)
        .then(|| std::slice::from_raw_parts(p.cast::<u8>(), len as usize).to_vec())
}

/// Successor blocks of an LLVM terminator.
unsafe fn successors(term: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    if term.is_null() {
        return Vec::new();
    }
    (0..LLVMGetNumSuccessors(term))
        .map(|i| LLVMGetSuccessor(term, i))
        .collect()
}

/// Reverse postorder of the LLVM function's blocks from its entry, from the shared engine
/// ([`lanes_ir::graph::depth_first`]) with each block's successors visited in branch order.
unsafe fn rpo(f: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut blocks = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        blocks.push(bb);
        bb = LLVMGetNextBasicBlock(bb);
    }
    let node: HashMap<LLVMBasicBlockRef, u32> = blocks
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i as u32))
        .collect();
    let mut backwards = Adjacency::new();
    for &b in &blocks {
        let succs = successors(LLVMGetBasicBlockTerminator(b));
        backwards.push_node(succs.iter().rev().filter_map(|s| node.get(s).copied()));
    }
    if blocks.is_empty() {
        return blocks;
    }
    depth_first(0, &backwards)
        .reverse_postorder()
        .into_iter()
        .map(|n| blocks[n as usize])
        .collect()
}

impl<'a> FnCx<'a> {
    pub(super) fn new(mcx: &'a ModuleCx, name: String, func: Function) -> Self {
        FnCx {
            mcx,
            name,
            func,
            blocks: HashMap::new(),
            values: HashMap::new(),
            cur: Block::from_u32(0),
            phi_consts: false,
            phis: Vec::new(),
            at: std::ptr::null_mut(),
            loops: Vec::new(),
            pairs: HashMap::new(),
            tails: HashMap::new(),
            file: None,
            line: 0,
        }
    }

    /// An error at the current instruction.
    pub fn err(&self, message: impl Into<String>) -> ImportError {
        // SAFETY: `at` is null or a live instruction.
        let (inst, file, line) = unsafe {
            if self.at.is_null() {
                (String::new(), None, 0)
            } else {
                let line = if LLVMIsAInstruction(self.at).is_null() {
                    0
                } else {
                    LLVMGetDebugLocLine(self.at)
                };
                let file = if line == 0 {
                    None
                } else {
                    let mut len = 0;
                    let p = LLVMGetDebugLocFilename(self.at, &mut len);
                    (!p.is_null()).then(|| {
                        String::from_utf8_lossy(std::slice::from_raw_parts(
                            p.cast::<u8>(),
                            len as usize,
                        ))
                        .into_owned()
                    })
                };
                (print_value(self.at), file, line)
            }
        };
        ImportError {
            func: Some(self.name.clone()),
            inst,
            file,
            line,
            message: message.into(),
        }
    }

    /// Appends an instruction to the current block (or, while φ constants are made, before
    /// the entry block's terminator).
    pub fn emit(&mut self, data: InstData, ty: Option<Type>) -> Option<Value> {
        let inst = self.func.dfg.make_inst(data, ty);
        if self.line != 0 {
            self.func.source_lines[inst] = self.line;
        }
        if self.phi_consts {
            let entry = self.func.entry_block().unwrap_or(self.cur);
            match self.func.layout.last_inst(entry) {
                Some(t) => self.func.layout.insert_inst_before(inst, t),
                None => self.func.layout.append_inst(inst, entry),
            }
        } else {
            self.func.layout.append_inst(inst, self.cur);
        }
        self.func.dfg.inst_result(inst)
    }

    /// Appends an instruction with a result.
    pub fn emit_v(&mut self, data: InstData, ty: Type) -> Value {
        // An instruction made with a result type always has a result value.
        self.emit(data, Some(ty)).unwrap_or(Value::from_u32(0))
    }

    pub fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        self.emit_v(InstData::Iconst { imm }, ty)
    }

    pub fn ty_of(&self, v: Value) -> Type {
        self.func.value_type(v)
    }

    /// The lanes type of LLVM value `v`, or an error naming it.
    pub fn llty(&self, v: LLVMValueRef) -> Result<Type, ImportError> {
        // SAFETY: live value.
        let t = unsafe { LLVMTypeOf(v) };
        // Odd-width integers reach here only from instructions `odd_ints` accepted.
        lanes_type(t)
            .or_else(|| odd_width(t).map(|(_, m)| Type::Scalar(m)))
            .ok_or_else(|| {
                self.err(format!(
                    "type {} has no lanes equivalent",
                    crate::llvm::print_type(t)
                ))
            })
    }

    /// The lanes value of LLVM operand `v`, materializing constants.
    pub fn op(&mut self, v: LLVMValueRef) -> Result<Value, ImportError> {
        if let Some(&x) = self.values.get(&v) {
            return Ok(x);
        }
        // SAFETY: live value; accessors chosen by value kind.
        unsafe { self.constant(v) }
    }

    /// Translates the body of LLVM function `f`.
    pub(super) unsafe fn body(&mut self, f: LLVMValueRef) -> Result<(), ImportError> {
        for (i, v) in self
            .func
            .param_values()
            .collect::<Vec<_>>()
            .into_iter()
            .enumerate()
        {
            self.values.insert(LLVMGetParam(f, i as u32), v);
        }
        let order = rpo(f);
        self.file = debug_file(f);
        for &bb in &order {
            let b = self.func.append_new_block();
            self.blocks.insert(bb, b);
        }
        for &bb in &order {
            self.cur = self.blocks[&bb];
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                self.at = inst;
                // Code inlined from another file (a header) keeps no line: the remark
                // would name the wrong file.
                self.line = match &self.file {
                    Some(file) if debug_file(inst).as_ref() == Some(file) => {
                        LLVMGetDebugLocLine(inst)
                    }
                    _ => 0,
                };
                let before = self.func.dfg.num_insts();
                if let Some(v) = self.inst(inst)? {
                    self.values.insert(inst, v);
                    self.keep_fast_math(inst, v, before);
                }
                inst = LLVMGetNextInstruction(inst);
            }
            // Expansions (byte loops) may have moved the block's end to a new block.
            self.tails.insert(bb, self.cur);
            let term = LLVMGetBasicBlockTerminator(bb);
            if !term.is_null() {
                if let Some(hints) = crate::loopmd::read(self.mcx.ctx, term) {
                    self.loops.push((self.cur, hints));
                }
            }
        }
        // φ operands, with constants placed in the entry block.
        self.line = 0;
        self.phi_consts = true;
        for (phi, inst) in std::mem::take(&mut self.phis) {
            self.at = phi;
            let mut incoming = Vec::new();
            for i in 0..LLVMCountIncoming(phi) {
                let pred = LLVMGetIncomingBlock(phi, i);
                let Some(&pb) = self.tails.get(&pred) else {
                    continue;
                };
                if incoming.iter().any(|&(b, _)| b == pb) {
                    continue; // one entry per predecessor block
                }
                let v = self.op(LLVMGetIncomingValue(phi, i))?;
                incoming.push((pb, v));
            }
            *self.func.dfg.inst_mut(inst) = InstData::Phi { incoming };
        }
        self.phi_consts = false;
        self.func.abi.loops = std::mem::take(&mut self.loops)
            .into_iter()
            .map(|(latch, hints)| lanes_ir::LoopMd { latch, hints })
            .collect();
        Ok(())
    }

    /// Translates `switch` instruction `i` as a switch on `arg` (its condition, translated),
    /// with the case values sign-extended.
    pub(super) unsafe fn switch_on(
        &mut self,
        i: LLVMValueRef,
        arg: Value,
    ) -> Result<(), ImportError> {
        let default = self.block(LLVMGetSwitchDefaultDest(i))?;
        let n = LLVMGetNumOperands(i) as u32;
        let mut cases = Vec::new();
        let mut k = 2;
        while k + 1 < n {
            let c = LLVMGetOperand(i, k);
            let dest = self.block(LLVMValueAsBasicBlock(LLVMGetOperand(i, k + 1)))?;
            cases.push((LLVMConstIntGetSExtValue(c), dest));
            k += 2;
        }
        self.emit(
            InstData::Switch {
                arg,
                cases,
                default,
            },
            None,
        );
        Ok(())
    }

    fn block(&self, bb: LLVMBasicBlockRef) -> Result<Block, ImportError> {
        self.blocks
            .get(&bb)
            .copied()
            .ok_or_else(|| self.err("branch to an unknown block"))
    }

    /// Gives the fast-math flags of LLVM instruction `i` to the lanes instruction that
    /// defines `v`, if this translation created it (instructions numbered from `before`).
    unsafe fn keep_fast_math(&mut self, i: LLVMValueRef, v: Value, before: usize) {
        if LLVMCanValueUseFastMathFlags(i) == 0 {
            return;
        }
        let flags = crate::fast_math::from_llvm(LLVMGetFastMathFlags(i));
        if flags.is_empty() {
            return;
        }
        if let lanes_ir::ValueDef::Result(def) = self.func.dfg.value_def(v) {
            if lanes_ir::EntityRef::index(def) >= before {
                self.func.dfg.set_fast_math(def, flags);
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, i: LLVMValueRef, ty: Type) -> Result<Value, ImportError> {
        // SAFETY: binary instructions have two operands.
        let (a, b) = unsafe { (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1)) };
        let args = [self.op(a)?, self.op(b)?];
        // SAFETY: `i` is a live binary instruction of opcode `op`.
        let flags = unsafe { super::int_idioms::binary_flags(op, i) };
        Ok(self.emit_v(InstData::Binary { op, args, flags }, ty))
    }

    fn cast(&mut self, op: CastOp, i: LLVMValueRef, ty: Type) -> Result<Value, ImportError> {
        // SAFETY: casts have one operand.
        let arg = self.op(unsafe { LLVMGetOperand(i, 0) })?;
        // SAFETY: `i` is a live cast; only `zext` is asked for `nneg`.
        let nneg = op == CastOp::Zext && unsafe { LLVMGetNNeg(i) } != 0;
        let flags = match op {
            _ if nneg => IntFlags::NNEG,
            // LLVM's plain conversion is poison out of range (C: undefined behaviour).
            CastOp::FpToSi | CastOp::FpToUi => IntFlags::INRANGE,
            _ => IntFlags::NONE,
        };
        Ok(self.emit_v(InstData::Cast { op, arg, flags }, ty))
    }

    /// Translates one instruction; its lanes value if it has one.
    unsafe fn inst(&mut self, i: LLVMValueRef) -> Result<Option<Value>, ImportError> {
        use LLVMOpcode::*;
        let opcode = LLVMGetInstructionOpcode(i);
        if let Some(translated) = self.odd_width_inst(i, opcode) {
            return translated;
        }
        let has_value =
            LLVMGetTypeKind(LLVMTypeOf(i)) != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind;
        let ty = if has_value && !matches!(opcode, LLVMCall | LLVMAtomicCmpXchg) {
            Some(self.llty(i)?)
        } else {
            None
        };
        let t = || ty.unwrap_or(Type::I32);
        let v = match opcode {
            LLVMAdd => self.binary(BinaryOp::Add, i, t())?,
            LLVMSub => self.binary(BinaryOp::Sub, i, t())?,
            LLVMMul => self.binary(BinaryOp::Mul, i, t())?,
            LLVMSDiv => self.binary(BinaryOp::SDiv, i, t())?,
            LLVMUDiv => self.binary(BinaryOp::UDiv, i, t())?,
            LLVMSRem => self.binary(BinaryOp::SRem, i, t())?,
            LLVMURem => self.binary(BinaryOp::URem, i, t())?,
            LLVMAnd => self.binary(BinaryOp::And, i, t())?,
            LLVMOr => self.binary(BinaryOp::Or, i, t())?,
            LLVMXor => self.binary(BinaryOp::Xor, i, t())?,
            LLVMShl => self.binary(BinaryOp::Shl, i, t())?,
            LLVMLShr => self.binary(BinaryOp::LShr, i, t())?,
            LLVMAShr => self.binary(BinaryOp::AShr, i, t())?,
            LLVMFAdd => self.binary(BinaryOp::FAdd, i, t())?,
            LLVMFSub => self.binary(BinaryOp::FSub, i, t())?,
            LLVMFMul => self.binary(BinaryOp::FMul, i, t())?,
            LLVMFDiv => self.binary(BinaryOp::FDiv, i, t())?,
            LLVMFRem => self.binary(BinaryOp::FRem, i, t())?,
            LLVMFNeg => {
                let arg = self.op(LLVMGetOperand(i, 0))?;
                self.emit_v(
                    InstData::Unary {
                        op: UnaryOp::Fneg,
                        arg,
                    },
                    t(),
                )
            }
            LLVMFreeze => {
                let arg = self.op(LLVMGetOperand(i, 0))?;
                self.emit_v(
                    InstData::Unary {
                        op: UnaryOp::Copy,
                        arg,
                    },
                    t(),
                )
            }
            LLVMICmp => {
                let cond = int_cc(LLVMGetICmpPredicate(i));
                let args = [
                    self.op(LLVMGetOperand(i, 0))?,
                    self.op(LLVMGetOperand(i, 1))?,
                ];
                self.emit_v(InstData::Icmp { cond, args }, t())
            }
            LLVMFCmp => {
                let args = [
                    self.op(LLVMGetOperand(i, 0))?,
                    self.op(LLVMGetOperand(i, 1))?,
                ];
                match float_cc(LLVMGetFCmpPredicate(i)) {
                    Some(cond) => self.emit_v(InstData::Fcmp { cond, args }, t()),
                    None => {
                        let truth =
                            LLVMGetFCmpPredicate(i) == LLVMRealPredicate::LLVMRealPredicateTrue;
                        self.iconst(t(), i64::from(truth))
                    }
                }
            }
            LLVMSelect => {
                let args = [
                    self.op(LLVMGetOperand(i, 0))?,
                    self.op(LLVMGetOperand(i, 1))?,
                    self.op(LLVMGetOperand(i, 2))?,
                ];
                self.emit_v(InstData::Select { args }, t())
            }
            LLVMTrunc => self.cast(CastOp::Trunc, i, t())?,
            LLVMZExt => self.cast(CastOp::Zext, i, t())?,
            LLVMSExt => self.cast(CastOp::Sext, i, t())?,
            LLVMFPTrunc => self.cast(CastOp::FpTrunc, i, t())?,
            LLVMFPExt => self.cast(CastOp::FpExt, i, t())?,
            LLVMFPToSI => self.cast(CastOp::FpToSi, i, t())?,
            LLVMFPToUI => self.cast(CastOp::FpToUi, i, t())?,
            LLVMSIToFP => self.cast(CastOp::SiToFp, i, t())?,
            LLVMUIToFP => self.cast(CastOp::UiToFp, i, t())?,
            LLVMPtrToInt => self.cast(CastOp::PtrToInt, i, t())?,
            LLVMIntToPtr => self.cast(CastOp::IntToPtr, i, t())?,
            LLVMAddrSpaceCast => self.cast(CastOp::AddrSpaceCast, i, t())?,
            LLVMBitCast => {
                let arg = self.op(LLVMGetOperand(i, 0))?;
                if self.ty_of(arg) == t() {
                    arg
                } else {
                    self.emit_v(
                        InstData::Cast {
                            op: CastOp::Bitcast,
                            arg,
                            flags: IntFlags::NONE,
                        },
                        t(),
                    )
                }
            }
            LLVMPHI => {
                let inst = self.func.dfg.make_inst(
                    InstData::Phi {
                        incoming: Vec::new(),
                    },
                    Some(t()),
                );
                self.func.layout.append_inst(inst, self.cur);
                self.phis.push((i, inst));
                self.func
                    .dfg
                    .inst_result(inst)
                    .ok_or_else(|| self.err("φ without result"))?
            }
            LLVMGetElementPtr => self.gep(i)?,
            LLVMAlloca => {
                let count = LLVMGetOperand(i, 0);
                if LLVMIsAConstantInt(count).is_null() {
                    return Err(self.err("alloca of a variable size"));
                }
                let n = LLVMConstIntGetZExtValue(count);
                let size = self
                    .mcx
                    .layout
                    .alloc_size(LLVMGetAllocatedType(i))
                    .saturating_mul(n);
                let size = u32::try_from(size).map_err(|_| self.err("alloca larger than 4 GiB"))?;
                let align = LLVMGetAlignment(i);
                self.emit_v(InstData::Alloca { size, align }, t())
            }
            LLVMLoad => {
                let ptr = self.op(LLVMGetOperand(i, 0))?;
                let align = LLVMGetAlignment(i);
                let access = crate::atomics::access_of(i);
                self.emit_v(InstData::Load { ptr, align, access }, t())
            }
            LLVMStore => {
                let value = self.op(LLVMGetOperand(i, 0))?;
                let ptr = self.op(LLVMGetOperand(i, 1))?;
                let align = LLVMGetAlignment(i);
                let access = crate::atomics::access_of(i);
                self.emit(
                    InstData::Store {
                        value,
                        ptr,
                        align,
                        access,
                    },
                    None,
                );
                return Ok(None);
            }
            LLVMFence => {
                let ordering = crate::atomics::from_llvm(LLVMGetOrdering(i))
                    .ok_or_else(|| self.err("fence without an ordering"))?;
                let scope = crate::atomics::scope_of(i);
                self.emit(InstData::Fence { ordering, scope }, None);
                return Ok(None);
            }
            LLVMCall => return self.call(i),
            LLVMAtomicRMW => {
                use inkwell::llvm_sys::LLVMAtomicRMWBinOp::*;
                let op = match LLVMGetAtomicRMWBinOp(i) {
                    LLVMAtomicRMWBinOpXchg => AtomicOp::Xchg,
                    LLVMAtomicRMWBinOpAdd => AtomicOp::Add,
                    LLVMAtomicRMWBinOpSub => AtomicOp::Sub,
                    LLVMAtomicRMWBinOpAnd => AtomicOp::And,
                    LLVMAtomicRMWBinOpOr => AtomicOp::Or,
                    LLVMAtomicRMWBinOpXor => AtomicOp::Xor,
                    LLVMAtomicRMWBinOpMin => AtomicOp::SMin,
                    LLVMAtomicRMWBinOpMax => AtomicOp::SMax,
                    LLVMAtomicRMWBinOpUMin => AtomicOp::UMin,
                    LLVMAtomicRMWBinOpUMax => AtomicOp::UMax,
                    _ => return Err(self.err("unsupported atomicrmw operation")),
                };
                let ptr = self.op(LLVMGetOperand(i, 0))?;
                let value = self.op(LLVMGetOperand(i, 1))?;
                let access = crate::atomics::access_of(i);
                self.emit_v(
                    InstData::AtomicRmw {
                        op,
                        ptr,
                        value,
                        access,
                    },
                    t(),
                )
            }
            LLVMAtomicCmpXchg => {
                // `{old, success}`: only `extractvalue` may use it (below).
                let ptr = self.op(LLVMGetOperand(i, 0))?;
                let expected = self.op(LLVMGetOperand(i, 1))?;
                let replacement = self.op(LLVMGetOperand(i, 2))?;
                let ty = self.ty_of(expected);
                // A `weak` compare-and-swap may fail spuriously; the strong one lanes has
                // behaves as one of its permitted executions.
                let access = crate::atomics::access_of(i);
                let failure = crate::atomics::from_llvm(LLVMGetCmpXchgFailureOrdering(i))
                    .ok_or_else(|| self.err("cmpxchg without a failure ordering"))?;
                let old = self.emit_v(
                    InstData::AtomicCas {
                        ptr,
                        expected,
                        replacement,
                        access,
                        failure,
                    },
                    ty,
                );
                let success = self.emit_v(
                    InstData::Icmp {
                        cond: IntCC::Eq,
                        args: [old, expected],
                    },
                    Type::I1,
                );
                self.pairs.insert(i, (old, success));
                return Ok(None);
            }
            LLVMExtractValue => {
                let agg = LLVMGetOperand(i, 0);
                let idx = if LLVMGetNumIndices(i) == 1 {
                    *LLVMGetIndices(i)
                } else {
                    u32::MAX
                };
                let Some(&(first, second)) = self.pairs.get(&agg) else {
                    return Err(self.err(
                        "extractvalue of an aggregate other than the result of cmpxchg or an \
                         overflow intrinsic",
                    ));
                };
                match idx {
                    0 => first,
                    1 => second,
                    _ => return Err(self.err("extractvalue index")),
                }
            }
            LLVMExtractElement => {
                let args = vec![
                    self.op(LLVMGetOperand(i, 0))?,
                    self.op(LLVMGetOperand(i, 1))?,
                ];
                self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args,
                    },
                    t(),
                )
            }
            LLVMInsertElement => {
                let args = vec![
                    self.op(LLVMGetOperand(i, 0))?,
                    self.op(LLVMGetOperand(i, 1))?,
                    self.op(LLVMGetOperand(i, 2))?,
                ];
                self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Insert,
                        args,
                    },
                    t(),
                )
            }
            LLVMShuffleVector => {
                let a = self.op(LLVMGetOperand(i, 0))?;
                let b = self.op(LLVMGetOperand(i, 1))?;
                let n = LLVMGetNumMaskElements(i);
                let mask = (0..n)
                    .map(|k| u32::try_from(LLVMGetMaskValue(i, k)).unwrap_or(0))
                    .collect();
                self.emit_v(InstData::Shuffle { args: [a, b], mask }, t())
            }
            LLVMBr => {
                if LLVMIsConditional(i) != 0 {
                    let cond = self.op(LLVMGetCondition(i))?;
                    let then_dest = self.block(LLVMGetSuccessor(i, 0))?;
                    let else_dest = self.block(LLVMGetSuccessor(i, 1))?;
                    self.emit(
                        InstData::Brif {
                            cond,
                            then_dest,
                            else_dest,
                        },
                        None,
                    );
                } else {
                    let dest = self.block(LLVMGetSuccessor(i, 0))?;
                    self.emit(InstData::Jump { dest }, None);
                }
                return Ok(None);
            }
            LLVMSwitch => {
                let arg = self.op(LLVMGetOperand(i, 0))?;
                self.switch_on(i, arg)?;
                return Ok(None);
            }
            LLVMRet => {
                let value = if LLVMGetNumOperands(i) > 0 {
                    Some(self.op(LLVMGetOperand(i, 0))?)
                } else {
                    None
                };
                self.emit(InstData::Return { value }, None);
                return Ok(None);
            }
            LLVMUnreachable => {
                self.emit(InstData::Unreachable, None);
                return Ok(None);
            }
            other => {
                let name = format!("{other:?}");
                return Err(self.err(format!(
                    "unsupported instruction ({})",
                    name.trim_start_matches("LLVM")
                )));
            }
        };
        Ok(Some(v))
    }
}

pub(super) fn int_cc(p: LLVMIntPredicate) -> IntCC {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => IntCC::Eq,
        LLVMIntNE => IntCC::Ne,
        LLVMIntUGT => IntCC::Ugt,
        LLVMIntUGE => IntCC::Uge,
        LLVMIntULT => IntCC::Ult,
        LLVMIntULE => IntCC::Ule,
        LLVMIntSGT => IntCC::Sgt,
        LLVMIntSGE => IntCC::Sge,
        LLVMIntSLT => IntCC::Slt,
        LLVMIntSLE => IntCC::Sle,
    }
}

/// `None` for the constant predicates `false` and `true`.
fn float_cc(p: LLVMRealPredicate) -> Option<FloatCC> {
    use LLVMRealPredicate::*;
    Some(match p {
        LLVMRealOEQ => FloatCC::Oeq,
        LLVMRealOGT => FloatCC::Ogt,
        LLVMRealOGE => FloatCC::Oge,
        LLVMRealOLT => FloatCC::Olt,
        LLVMRealOLE => FloatCC::Ole,
        LLVMRealONE => FloatCC::One,
        LLVMRealORD => FloatCC::Ord,
        LLVMRealUNO => FloatCC::Uno,
        LLVMRealUEQ => FloatCC::Ueq,
        LLVMRealUGT => FloatCC::Ugt,
        LLVMRealUGE => FloatCC::Uge,
        LLVMRealULT => FloatCC::Ult,
        LLVMRealULE => FloatCC::Ule,
        LLVMRealUNE => FloatCC::Une,
        LLVMRealPredicateFalse | LLVMRealPredicateTrue => return None,
    })
}
