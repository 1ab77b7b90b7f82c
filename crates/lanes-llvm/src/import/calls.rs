//! Calls: LLVM intrinsics, libm and OpenCL builtins → lanes intrinsics; other calls.
//!
//! The intrinsics clang emits for scalar kernels and loops map one to
//! one onto lanes operations (`llvm.fabs` → `fabs`, `llvm.smin` → `smin`, `llvm.minnum` →
//! `fmin`, `llvm.vector.reduce.*` → reductions, `llvm.masked.*` → masked memory ops);
//! `llvm.fmuladd` (and OpenCL's `mad`) stays `fmuladd`, which the export gives back to
//! LLVM, so that it fuses exactly where clang's own code would for the target (`fma` and
//! `fmaf` are always fused `fma`); markers without semantics (`llvm.lifetime.*`,
//! `llvm.assume`, `llvm.dbg.*`, `llvm.experimental.noalias.scope.decl`) are dropped;
//! `llvm.memcpy`/`memmove`/`memset` of constant length up to 4 KiB are expanded into loads
//! and stores (all loads before all stores, so overlap is fine), of variable length (what
//! loop-idiom recognition makes of copy and fill loops) or longer into byte loops
//! ([`super::memloop`]), volatile ones with volatile accesses; integer intrinsics without a lanes operation (funnel shifts,
//! saturating and overflow-checking arithmetic, `bswap`, `bitreverse`) and float ones
//! (`minimum`/`maximum`, `powi` of a constant exponent, `lrint`/`lround`) are spelled out
//! exactly ([`super::int_idioms`], [`super::float_idioms`]). Calls to libm functions (`sinf`,
//! `pow`, …) and to OpenCL C builtins (Itanium-mangled: `_Z4sqrtDv4_f`, `_Z13get_global_idj`)
//! become lanes intrinsics and work-item queries — libm calls whether or not clang ran with
//! `-fno-math-errno` (at `-O2` clang keeps `call @sinf` under C's default `-fmath-errno`
//! and emits `llvm.sin` only without `errno`): lanes IR has no `errno`, so a kernel that
//! reads `errno` after a math call is outside what lanes compiles faithfully, and neither
//! LLVM's vector intrinsics nor libmvec (`-fveclib=libmvec`) set it; `include/lanes.h`'s `__lanes_any`,
//! `__lanes_all`, `__lanes_popcount`, `__lanes_ballot`, `__lanes_lane_id` and
//! `__lanes_num_lanes` become the lanes intrinsics of the same name, `__lanes_extract` and
//! `__lanes_broadcast` (and their typed forms, `__lanes_extract_f32` …) become
//! `lane_extract` and `lane_broadcast` of the call's type. Anything else that is a direct call to a
//! function of the module stays a call — to a variadic function too (`printf`), with the
//! arguments past its parameters as clang promoted them — and a call through a function
//! pointer is `call_indirect`. Inline assembly is an error (the function stays LLVM IR).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMAttributeFunctionIndex;

use lanes_ir::{BinaryOp, CastOp, InstData, IntFlags, Intrinsic, Type, Value, WorkItemQuery};

use super::func::FnCx;
use crate::error::ImportError;
use crate::llvm::{attr_kind, value_name};

/// What a math function name means.
#[derive(Clone, Copy)]
enum Math {
    Intr(Intrinsic),
    Bin(BinaryOp),
}

/// Math by base name (LLVM intrinsic without `llvm.` and overload suffix, or a libm /
/// OpenCL name without the `f` suffix).
fn math(base: &str) -> Option<Math> {
    use Intrinsic as I;
    Some(match base {
        "sqrt" | "native_sqrt" | "half_sqrt" => Math::Intr(I::Sqrt),
        "fabs" => Math::Intr(I::Fabs),
        "floor" => Math::Intr(I::Floor),
        "ceil" => Math::Intr(I::Ceil),
        "trunc" => Math::Intr(I::Trunc),
        "round" => Math::Intr(I::Round),
        "rint" | "nearbyint" | "roundeven" => Math::Intr(I::Rint),
        "exp" | "native_exp" => Math::Intr(I::Exp),
        "exp2" | "native_exp2" => Math::Intr(I::Exp2),
        "log" | "native_log" => Math::Intr(I::Log),
        "log2" | "native_log2" => Math::Intr(I::Log2),
        "log10" | "native_log10" => Math::Intr(I::Log10),
        "sin" | "native_sin" => Math::Intr(I::Sin),
        "cos" | "native_cos" => Math::Intr(I::Cos),
        "tan" | "native_tan" => Math::Intr(I::Tan),
        "asin" => Math::Intr(I::Asin),
        "acos" => Math::Intr(I::Acos),
        "atan" => Math::Intr(I::Atan),
        "sinh" => Math::Intr(I::Sinh),
        "cosh" => Math::Intr(I::Cosh),
        "tanh" => Math::Intr(I::Tanh),
        "pow" | "powr" | "native_powr" => Math::Intr(I::Pow),
        "atan2" => Math::Intr(I::Atan2),
        "fmod" => Math::Intr(I::Fmod),
        "copysign" => Math::Intr(I::Copysign),
        "fma" => Math::Intr(I::Fma),
        "fmuladd" | "mad" => Math::Intr(I::FMulAdd),
        "fmin" | "minnum" => Math::Bin(BinaryOp::FMin),
        "fmax" | "maxnum" => Math::Bin(BinaryOp::FMax),
        _ => return None,
    })
}

/// The base name of an Itanium-mangled OpenCL builtin (`_Z4sqrtf` → `sqrt`).
fn demangle_ocl(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

fn work_item(base: &str) -> Option<WorkItemQuery> {
    Some(match base {
        "get_global_id" => WorkItemQuery::GlobalId,
        "get_local_id" => WorkItemQuery::LocalId,
        "get_group_id" => WorkItemQuery::GroupId,
        "get_global_size" => WorkItemQuery::GlobalSize,
        "get_local_size" => WorkItemQuery::LocalSize,
        "get_num_groups" => WorkItemQuery::NumGroups,
        "get_global_offset" => WorkItemQuery::GlobalOffset,
        _ => return None,
    })
}

impl FnCx<'_> {
    /// Work-item query `q` of dimension `dim` as `ty`: past dimension 2, OpenCL's
    /// defaults (1 for sizes, 0 for ids and offsets).
    fn work_item_in(&mut self, q: WorkItemQuery, dim: u64, ty: Type) -> Value {
        match u8::try_from(dim) {
            Ok(dim) if dim <= 2 => self.emit_v(InstData::WorkItem { query: q, dim }, ty),
            _ => {
                let one = matches!(
                    q,
                    WorkItemQuery::GlobalSize | WorkItemQuery::LocalSize | WorkItemQuery::NumGroups
                );
                self.iconst(ty, i64::from(one))
            }
        }
    }
}

/// How many of the call-site attributes at `idx` only state facts lanes may drop
/// (`noundef`, `nonnull`, `dereferenceable`, `align`, `noalias`, `nocapture`, `readonly`).
unsafe fn call_site_harmless_attrs(i: LLVMValueRef, idx: u32) -> u32 {
    [
        "noundef",
        "nonnull",
        "dereferenceable",
        "align",
        "noalias",
        "nocapture",
        "readonly",
        "writeonly",
    ]
    .iter()
    .filter(|name| !LLVMGetCallSiteEnumAttribute(i, idx, attr_kind(name)).is_null())
    .count() as u32
}

fn reduction(base: &str) -> Option<Intrinsic> {
    use Intrinsic as I;
    Some(match base {
        "add" => I::ReduceAdd,
        "mul" => I::ReduceMul,
        "and" => I::ReduceAnd,
        "or" => I::ReduceOr,
        "xor" => I::ReduceXor,
        "smin" => I::ReduceSMin,
        "smax" => I::ReduceSMax,
        "umin" => I::ReduceUMin,
        "umax" => I::ReduceUMax,
        "fmin" => I::ReduceFMin,
        "fmax" => I::ReduceFMax,
        _ => return None,
    })
}

impl FnCx<'_> {
    /// Operand `i` of a call, or an error if the call has fewer (a malformed declaration
    /// such as a K&R `int abs();` called without arguments).
    pub(super) fn nth(&self, ops: &[LLVMValueRef], i: usize) -> Result<LLVMValueRef, ImportError> {
        ops.get(i).copied().ok_or_else(|| {
            self.err(format!(
                "call with {} operands, at least {} expected",
                ops.len(),
                i + 1
            ))
        })
    }

    /// Translates call instruction `i`.
    pub(super) unsafe fn call(&mut self, i: LLVMValueRef) -> Result<Option<Value>, ImportError> {
        let callee = LLVMGetCalledValue(i);
        if !LLVMIsAInlineAsm(callee).is_null() {
            return Err(self.err("inline assembly"));
        }
        if LLVMIsAFunction(callee).is_null() {
            return self.call_indirect(i, callee);
        }
        let name = value_name(callee);
        if !LLVMGetEnumAttributeAtIndex(
            callee,
            LLVMAttributeFunctionIndex,
            attr_kind("returns_twice"),
        )
        .is_null()
        {
            // `setjmp`: code after the call may run twice; lanes' passes assume it does not.
            return Err(self.err(format!("call to @{name}, which returns twice")));
        }
        let nargs = LLVMGetNumArgOperands(i);
        let ops: Vec<LLVMValueRef> = (0..nargs).map(|k| LLVMGetOperand(i, k)).collect();
        // `{result, overflow}`: only `extractvalue` may use it.
        if let Some(base) = name
            .strip_prefix("llvm.")
            .and_then(|intr| intr.split_once(".with.overflow."))
            .map(|(base, _)| base)
        {
            let pair = self.with_overflow(base, &ops)?;
            self.pairs.insert(i, pair);
            return Ok(None);
        }
        let fty = LLVMGetCalledFunctionType(i);
        let rt = LLVMGetReturnType(fty);
        let ret = if LLVMGetTypeKind(rt) == inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
            None
        } else {
            Some(self.llty(i)?)
        };
        if let Some(intr) = name.strip_prefix("llvm.") {
            return self.llvm_intrinsic(intr, &ops, ret);
        }
        let is_decl = LLVMIsDeclaration(callee) != 0;
        if is_decl {
            let ocl = demangle_ocl(&name);
            let base = ocl.unwrap_or(&name);
            if let (Some(q), Some(ty)) = (work_item(base), ret) {
                let d = *ops
                    .first()
                    .ok_or_else(|| self.err("work-item query without a dimension"))?;
                if !LLVMIsAConstantInt(d).is_null() {
                    let dim = LLVMConstIntGetZExtValue(d);
                    return Ok(Some(self.work_item_in(q, dim, ty)));
                }
                // A variable dimension: the three queries, and the default past them.
                let dim = self.op(d)?;
                let dty = self.llty(d)?;
                let mut v = self.work_item_in(q, 3, ty);
                for k in (0..3).rev() {
                    let kv = self.iconst(dty, k);
                    let is_k = self.emit_v(
                        InstData::Icmp {
                            cond: lanes_ir::IntCC::Eq,
                            args: [dim, kv],
                        },
                        Type::I1,
                    );
                    let qk = self.work_item_in(q, k as u64, ty);
                    v = self.emit_v(
                        InstData::Select {
                            args: [is_k, qk, v],
                        },
                        ty,
                    );
                }
                return Ok(Some(v));
            }
            if matches!(base, "barrier" | "work_group_barrier") {
                self.emit(
                    InstData::Intrinsic {
                        id: Intrinsic::Barrier,
                        args: vec![],
                    },
                    None,
                );
                return Ok(None);
            }
            if let Some(lane) = name.strip_prefix("__lanes_") {
                return self.lanes_h(lane, &ops, ret);
            }
            let libm_base = if ocl.is_some() {
                Some(base)
            } else if ret == Some(Type::F32) {
                base.strip_suffix('f')
            } else if ret == Some(Type::F64) {
                Some(base)
            } else {
                None
            };
            if let (Some(m), Some(ty)) = (libm_base.and_then(math), ret) {
                if ty.is_float() {
                    return self.math(m, &ops, ty).map(Some);
                }
            }
            if matches!(name.as_str(), "abs" | "labs" | "llabs") {
                if let Some(ty) = ret {
                    let x = self.op(self.nth(&ops, 0)?)?;
                    return Ok(Some(self.emit_v(
                        InstData::Intrinsic {
                            id: Intrinsic::Abs,
                            args: vec![x],
                        },
                        ty,
                    )));
                }
            }
        }
        self.check_variadic_args(i, fty)?;
        let func = *self
            .mcx
            .funcs
            .get(&callee)
            .ok_or_else(|| self.err(format!("call to @{name}, which could not be declared")))?;
        let args = ops
            .iter()
            .map(|&a| self.op(a))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.emit(InstData::Call { func, args }, ret))
    }

    /// A call through a function pointer: `call_indirect`, typed by the call's own
    /// function type.
    unsafe fn call_indirect(
        &mut self,
        i: LLVMValueRef,
        callee: LLVMValueRef,
    ) -> Result<Option<Value>, ImportError> {
        let fty = LLVMGetCalledFunctionType(i);
        self.check_variadic_args(i, fty)?;
        let nargs = LLVMGetNumArgOperands(i);
        let nparams = LLVMCountParamTypes(fty);
        for k in 0..nparams {
            // ABI attributes at the call site (`byval`, `sret`, `signext`, ...) would be lost.
            let attrs = LLVMGetCallSiteAttributeCount(i, k + 1);
            if attrs > call_site_harmless_attrs(i, k + 1) {
                return Err(self.err("indirect call with ABI attributes on an argument"));
            }
        }
        let rt = LLVMGetReturnType(fty);
        let ret = if LLVMGetTypeKind(rt) == inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
            None
        } else {
            Some(self.llty(i)?)
        };
        if LLVMGetCallSiteAttributeCount(i, 0) > call_site_harmless_attrs(i, 0) {
            return Err(self.err("indirect call with ABI attributes on the result"));
        }
        let target = self.op(callee)?;
        let args = (0..nargs)
            .map(|k| self.op(LLVMGetOperand(i, k)))
            .collect::<Result<Vec<_>, _>>()?;
        let variadic = (LLVMIsFunctionVarArg(fty) != 0).then_some(nparams);
        Ok(self.emit(
            InstData::CallIndirect {
                callee: target,
                args,
                variadic,
            },
            ret,
        ))
    }

    /// The arguments a variadic call passes past the callee's parameters must carry no
    /// ABI attribute (clang puts `byval` on a struct passed through `...`): lanes IR keeps
    /// ABI attributes per function, not per call.
    unsafe fn check_variadic_args(
        &self,
        i: LLVMValueRef,
        fty: inkwell::llvm_sys::prelude::LLVMTypeRef,
    ) -> Result<(), ImportError> {
        if LLVMIsFunctionVarArg(fty) == 0 {
            return Ok(());
        }
        let fixed = LLVMCountParamTypes(fty);
        for k in fixed..LLVMGetNumArgOperands(i) {
            if LLVMGetCallSiteAttributeCount(i, k + 1) > call_site_harmless_attrs(i, k + 1) {
                return Err(self.err(format!(
                    "variadic argument {k} passed with an ABI attribute (a struct by value?)"
                )));
            }
        }
        Ok(())
    }

    unsafe fn math(
        &mut self,
        m: Math,
        ops: &[LLVMValueRef],
        ty: Type,
    ) -> Result<Value, ImportError> {
        let args = ops
            .iter()
            .map(|&a| self.op(a))
            .collect::<Result<Vec<_>, _>>()?;
        let need = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.err(format!("expected {n} operands")))
            }
        };
        Ok(match m {
            Math::Intr(id) => {
                let n = match id.class() {
                    lanes_ir::IntrinsicClass::FloatMath(n) => n,
                    _ => 1,
                };
                need(n)?;
                self.emit_v(InstData::Intrinsic { id, args }, ty)
            }
            Math::Bin(op) => {
                need(2)?;
                self.emit_v(
                    InstData::Binary {
                        op,
                        args: [args[0], args[1]],
                        flags: IntFlags::NONE,
                    },
                    ty,
                )
            }
        })
    }

    /// `llvm.<intr>` (the name without `llvm.`).
    unsafe fn llvm_intrinsic(
        &mut self,
        intr: &str,
        ops: &[LLVMValueRef],
        ret: Option<Type>,
    ) -> Result<Option<Value>, ImportError> {
        const DROPPED: &[&str] = &[
            "lifetime.",
            "assume",
            "dbg.",
            "experimental.noalias.scope.decl",
            "donothing",
            "sideeffect",
            "var.annotation",
            "invariant.end",
            "prefetch",
        ];
        if DROPPED.iter().any(|p| intr.starts_with(p)) {
            return Ok(None);
        }
        let base = intr.split('.').next().unwrap_or(intr);
        let ty = match ret {
            Some(t) => t,
            None if matches!(base, "memcpy" | "memmove" | "memset" | "masked") => Type::I32,
            None => return Err(self.err("intrinsic without result")),
        };
        let ty = || -> Result<Type, ImportError> { Ok(ty) };
        let int_op = |b: &str| match b {
            "smin" => Some(BinaryOp::SMin),
            "smax" => Some(BinaryOp::SMax),
            "umin" => Some(BinaryOp::UMin),
            "umax" => Some(BinaryOp::UMax),
            _ => None,
        };
        if let Some(op) = int_op(base) {
            let args = [self.op(self.nth(ops, 0)?)?, self.op(self.nth(ops, 1)?)?];
            return Ok(Some(self.emit_v(
                InstData::Binary {
                    op,
                    args,
                    flags: IntFlags::NONE,
                },
                ty()?,
            )));
        }
        match base {
            "expect" => return self.op(self.nth(ops, 0)?).map(Some),
            "is" if intr.starts_with("is.fpclass") => return self.is_fpclass(ops).map(Some),
            "uadd" | "usub" | "sadd" | "ssub" if intr.contains(".sat.") => {
                return self.saturating(base, ops, ty()?).map(Some)
            }
            "abs" | "ctpop" | "ctlz" | "cttz" => {
                let id = match base {
                    "abs" => Intrinsic::Abs,
                    "ctpop" => Intrinsic::Ctpop,
                    "ctlz" => Intrinsic::Ctlz,
                    _ => Intrinsic::Cttz,
                };
                let x = self.op(self.nth(ops, 0)?)?;
                return Ok(Some(
                    self.emit_v(InstData::Intrinsic { id, args: vec![x] }, ty()?),
                ));
            }
            "fptosi" | "fptoui" if intr.contains(".sat.") => {
                let op = if base == "fptosi" {
                    CastOp::FpToSi
                } else {
                    CastOp::FpToUi
                };
                let arg = self.op(self.nth(ops, 0)?)?;
                return Ok(Some(self.emit_v(
                    InstData::Cast {
                        op,
                        arg,
                        flags: IntFlags::NONE,
                    },
                    ty()?,
                )));
            }
            "fshl" | "fshr" => return self.funnel_shift(base == "fshl", ops, ty()?).map(Some),
            "bswap" | "bitreverse" => return self.reverse(base == "bitreverse", ops).map(Some),
            "minimum" | "maximum" => return self.minimum_maximum(base == "minimum", ops).map(Some),
            "powi" => return self.powi(ops).map(Some),
            "lrint" | "llrint" | "lround" | "llround" => {
                return self
                    .round_to_int(base.ends_with("rint"), ops, ty()?)
                    .map(Some)
            }
            "memcpy" | "memmove" | "memset" => {
                let volatile = ops.get(3).is_some_and(|v| {
                    LLVMIsAConstantInt(*v).is_null() || LLVMConstIntGetZExtValue(*v) != 0
                });
                let access = if volatile {
                    lanes_ir::MemAccess::VOLATILE
                } else {
                    lanes_ir::MemAccess::PLAIN
                };
                if base == "memset" {
                    self.memset(ops, access)?;
                } else {
                    self.memcpy(ops, base == "memmove", access)?;
                }
                return Ok(None);
            }
            "masked" => return self.masked(intr, ops, ret),
            "vector" => {
                let r = intr.strip_prefix("vector.reduce.").unwrap_or("");
                let r = r.split('.').next().unwrap_or("");
                return self.reduce(r, ops, ty()?).map(Some);
            }
            _ => {}
        }
        if let Some(m) = math(base) {
            return self.math(m, ops, ty()?).map(Some);
        }
        Err(self.err(format!("unsupported intrinsic llvm.{intr}")))
    }

    /// A function of `include/lanes.h` under `__LANES__` (`__lanes_any` …) → its intrinsic.
    unsafe fn lanes_h(
        &mut self,
        lane: &str,
        ops: &[LLVMValueRef],
        ret: Option<Type>,
    ) -> Result<Option<Value>, ImportError> {
        // The bounds of `lanes_unmasked { … }`: no operands, no result.
        let bound = match lane {
            "unmasked_begin" => Some(Intrinsic::UnmaskedBegin),
            "unmasked_end" => Some(Intrinsic::UnmaskedEnd),
            _ => None,
        };
        if let Some(id) = bound {
            self.emit(InstData::Intrinsic { id, args: vec![] }, None);
            return Ok(None);
        }
        let id = match lane {
            "any" => Intrinsic::Any,
            "all" => Intrinsic::All,
            "popcount" => Intrinsic::Popcount,
            "ballot" | "ballot64" => Intrinsic::Ballot,
            "lane_id" => Intrinsic::LaneId,
            "num_lanes" => Intrinsic::NumLanes,
            // One function per element type (`__lanes_extract_f32` …); the intrinsic takes
            // its type from the call.
            l if l == "extract" || l.starts_with("extract_") => Intrinsic::LaneExtract,
            l if l == "broadcast" || l.starts_with("broadcast_") => Intrinsic::LaneBroadcast,
            _ => return Err(self.err(format!("lanes_{lane} is not supported yet"))),
        };
        let ty = ret.ok_or_else(|| self.err(format!("__lanes_{lane} returns nothing")))?;
        let args = ops
            .iter()
            .map(|&o| self.op(o))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(self.emit_v(InstData::Intrinsic { id, args }, ty)))
    }

    unsafe fn reduce(
        &mut self,
        r: &str,
        ops: &[LLVMValueRef],
        ty: Type,
    ) -> Result<Value, ImportError> {
        if let Some(id) = reduction(r) {
            let v = self.op(self.nth(ops, 0)?)?;
            return Ok(self.emit_v(InstData::Intrinsic { id, args: vec![v] }, ty));
        }
        let op = match r {
            "fadd" => BinaryOp::FAdd,
            "fmul" => BinaryOp::FMul,
            _ => return Err(self.err(format!("unsupported reduction {r}"))),
        };
        // Ordered: ((start op v0) op v1) …, exactly as LLVM defines it without reassoc.
        let mut acc = self.op(self.nth(ops, 0)?)?;
        let v = self.op(self.nth(ops, 1)?)?;
        for k in 0..self.ty_of(v).lane_count() {
            let idx = self.iconst(Type::I32, i64::from(k));
            let x = self.emit_v(
                InstData::Intrinsic {
                    id: Intrinsic::Extract,
                    args: vec![v, idx],
                },
                ty,
            );
            acc = self.emit_v(
                InstData::Binary {
                    op,
                    args: [acc, x],
                    flags: IntFlags::NONE,
                },
                ty,
            );
        }
        Ok(acc)
    }

    unsafe fn const_u32(&self, v: LLVMValueRef) -> u32 {
        if LLVMIsAConstantInt(v).is_null() {
            0
        } else {
            LLVMConstIntGetZExtValue(v) as u32
        }
    }

    unsafe fn masked(
        &mut self,
        intr: &str,
        ops: &[LLVMValueRef],
        ret: Option<Type>,
    ) -> Result<Option<Value>, ImportError> {
        let kind = intr
            .strip_prefix("masked.")
            .unwrap_or("")
            .split('.')
            .next()
            .unwrap_or("");
        match kind {
            "load" | "gather" => {
                let ty = ret.ok_or_else(|| self.err("masked load without result"))?;
                let ptr = self.op(self.nth(ops, 0)?)?;
                let align = self.const_u32(self.nth(ops, 1)?);
                let mask = self.op(self.nth(ops, 2)?)?;
                let passthru = self.op(self.nth(ops, 3)?)?;
                let data = if kind == "load" {
                    InstData::MaskedLoad {
                        ptr,
                        mask,
                        passthru,
                        align,
                    }
                } else {
                    InstData::Gather {
                        ptrs: ptr,
                        mask,
                        passthru,
                        align,
                    }
                };
                Ok(Some(self.emit_v(data, ty)))
            }
            "store" | "scatter" => {
                let value = self.op(self.nth(ops, 0)?)?;
                let ptr = self.op(self.nth(ops, 1)?)?;
                let align = self.const_u32(self.nth(ops, 2)?);
                let mask = self.op(self.nth(ops, 3)?)?;
                let data = if kind == "store" {
                    InstData::MaskedStore {
                        value,
                        ptr,
                        mask,
                        align,
                    }
                } else {
                    InstData::Scatter {
                        value,
                        ptrs: ptr,
                        mask,
                        align,
                    }
                };
                self.emit(data, None);
                Ok(None)
            }
            _ => Err(self.err(format!("unsupported intrinsic llvm.{intr}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencl_names_demangle() {
        assert_eq!(demangle_ocl("_Z4sqrtDv4_f"), Some("sqrt"));
        assert_eq!(demangle_ocl("_Z13get_global_idj"), Some("get_global_id"));
        assert_eq!(demangle_ocl("_Z99x"), None);
        assert_eq!(demangle_ocl("sqrtf"), None);
    }

    #[test]
    fn copies_are_chunked_widest_first() {
        let c = FnCx::chunks(15);
        let sizes: Vec<u32> = c.iter().map(|(_, t)| t.bytes()).collect();
        assert_eq!(sizes, vec![8, 4, 2, 1]);
        assert_eq!(c.last().map(|c| c.0), Some(14));
    }
}
