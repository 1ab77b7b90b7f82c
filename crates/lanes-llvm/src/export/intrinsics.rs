//! Export of lanes intrinsics: math, integer bit operations, lane and mask queries,
//! reductions and element operations.
//!
//! Vector math calls the vector library's variants when one is chosen (`-fveclib=libmvec`,
//! [`super::veclib`]); with one, `pow` of a small integer exponent is computed inline
//! instead ([`super::powi`]). Otherwise math with an LLVM intrinsic (`llvm.sqrt`, `llvm.sin`, …)
//! uses it, on scalars and vectors alike; LLVM's backend then calls libm per lane. Math LLVM 19 has no
//! intrinsic for in every backend (`tan`, `asin`, …, `atan2`) calls libm directly, lane by
//! lane for vectors. Reductions follow the interpreter's order: `reduce_fadd`/`reduce_fmul`
//! are ordered (LLVM's non-`reassoc` `llvm.vector.reduce.fadd` with start value −0.0 / 1.0,
//! the identities), `reduce_fmin`/`fmax` use minNum/maxNum like `fmin`/`fmax`.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{Intrinsic, ScalarType, Type};

use super::func::FuncCx;
use crate::error::ExportError;
use crate::llvm::noname;

/// The LLVM intrinsic implementing a lanes float math intrinsic, if there is one.
fn llvm_math(id: Intrinsic) -> Option<&'static str> {
    use Intrinsic::*;
    Some(match id {
        Sqrt => "llvm.sqrt",
        Fabs => "llvm.fabs",
        Floor => "llvm.floor",
        Ceil => "llvm.ceil",
        Trunc => "llvm.trunc",
        Round => "llvm.round",
        Rint => "llvm.rint",
        Exp => "llvm.exp",
        Exp2 => "llvm.exp2",
        Log => "llvm.log",
        Log2 => "llvm.log2",
        Log10 => "llvm.log10",
        Sin => "llvm.sin",
        Cos => "llvm.cos",
        Pow => "llvm.pow",
        Copysign => "llvm.copysign",
        Fma => "llvm.fma",
        FMulAdd => "llvm.fmuladd",
        _ => return None,
    })
}

/// The libm function (double version) of a lanes math intrinsic without LLVM intrinsic.
fn libm_name(id: Intrinsic) -> Option<&'static str> {
    use Intrinsic::*;
    Some(match id {
        Tan => "tan",
        Asin => "asin",
        Acos => "acos",
        Atan => "atan",
        Sinh => "sinh",
        Cosh => "cosh",
        Tanh => "tanh",
        Atan2 => "atan2",
        _ => return None,
    })
}

fn reduce_name(id: Intrinsic) -> Option<&'static str> {
    use Intrinsic::*;
    Some(match id {
        ReduceAdd => "llvm.vector.reduce.add",
        ReduceMul => "llvm.vector.reduce.mul",
        ReduceAnd => "llvm.vector.reduce.and",
        ReduceOr => "llvm.vector.reduce.or",
        ReduceXor => "llvm.vector.reduce.xor",
        ReduceSMin => "llvm.vector.reduce.smin",
        ReduceSMax => "llvm.vector.reduce.smax",
        ReduceUMin => "llvm.vector.reduce.umin",
        ReduceUMax => "llvm.vector.reduce.umax",
        ReduceFMin => "llvm.vector.reduce.fmin",
        ReduceFMax => "llvm.vector.reduce.fmax",
        _ => return None,
    })
}

impl FuncCx<'_> {
    /// Translates intrinsic `id` on `args` (values with their lanes types); `None` for no
    /// result.
    pub(crate) unsafe fn intrinsic(
        &self,
        id: Intrinsic,
        args: &[(LLVMValueRef, Type)],
        ret: Option<Type>,
    ) -> Result<Option<LLVMValueRef>, ExportError> {
        let b = self.b;
        let n = noname();
        let vals: Vec<LLVMValueRef> = args.iter().map(|a| a.0).collect();
        let arg_ty = |i: usize| {
            args.get(i).map(|a| a.1).ok_or_else(|| ExportError {
                func: self.func.name.clone(),
                inst: id.name().to_string(),
                message: "missing operand".into(),
            })
        };
        let ret_ty = || {
            ret.ok_or_else(|| ExportError {
                func: self.func.name.clone(),
                inst: id.name().to_string(),
                message: "missing result type".into(),
            })
        };
        // lanes' own inline vector math, where it applies (modules `powi`, `exp`, `log`):
        // integer powers, and `exp` and `log` on targets with FMA.
        let inline = match id {
            Intrinsic::Pow => self.call_inline_math("powi", args, false, Self::build_powi_body)?,
            Intrinsic::Exp => self.call_inline_math("exp", args, true, Self::build_exp_body)?,
            Intrinsic::Log => self.call_inline_math("log", args, true, Self::build_log_body)?,
            _ => None,
        };
        if let Some(v) = inline {
            return Ok(Some(v));
        }
        if let Some(v) = self.veclib_call(id, args) {
            return Ok(Some(v));
        }
        if let Some(name) = llvm_math(id) {
            let lt = arg_ty(0)?;
            let call = self.call_intrinsic(name, &[self.t.ty(lt)], &vals)?;
            if let Type::Scalar(elem) = lt {
                self.announce_variants(id, elem, vals.len(), call);
            }
            return Ok(Some(call));
        }
        if let Some(name) = libm_name(id) {
            let call = self.libm_call(name, args)?;
            if let Type::Scalar(elem) = arg_ty(0)? {
                self.announce_variants(id, elem, vals.len(), call);
            }
            return Ok(Some(call));
        }
        let v = match id {
            Intrinsic::Fmod => LLVMBuildFRem(b, vals[0], vals[1], n),
            Intrinsic::Abs => {
                let ty = self.t.ty(arg_ty(0)?);
                self.call_intrinsic("llvm.abs", &[ty], &[vals[0], self.t.i1c(false)])?
            }
            Intrinsic::Ctpop => {
                let ty = self.t.ty(arg_ty(0)?);
                self.call_intrinsic("llvm.ctpop", &[ty], &[vals[0]])?
            }
            Intrinsic::Ctlz | Intrinsic::Cttz => {
                let ty = self.t.ty(arg_ty(0)?);
                let name = if id == Intrinsic::Ctlz {
                    "llvm.ctlz"
                } else {
                    "llvm.cttz"
                };
                self.call_intrinsic(name, &[ty], &[vals[0], self.t.i1c(false)])?
            }
            Intrinsic::LaneId | Intrinsic::NumLanes => {
                // Exported code is one SIMD instance: lane 0 of 1, or the lanes of a vector.
                let ty = ret_ty()?;
                match ty {
                    Type::Scalar(_) => self.const_bits(ty, u64::from(id == Intrinsic::NumLanes)),
                    Type::Vector(k, e) => {
                        let mut lanes: Vec<_> = (0..u64::from(k))
                            .map(|i| {
                                let x = if id == Intrinsic::LaneId {
                                    i
                                } else {
                                    u64::from(k)
                                };
                                self.const_bits(Type::Scalar(e), x)
                            })
                            .collect();
                        LLVMConstVector(lanes.as_mut_ptr(), u32::from(k))
                    }
                }
            }
            Intrinsic::Any | Intrinsic::All => {
                let mt = arg_ty(0)?;
                if mt.is_vector() {
                    let name = if id == Intrinsic::Any {
                        "llvm.vector.reduce.or"
                    } else {
                        "llvm.vector.reduce.and"
                    };
                    self.call_intrinsic(name, &[self.t.ty(mt)], &[vals[0]])?
                } else {
                    vals[0]
                }
            }
            Intrinsic::Popcount | Intrinsic::Ballot => {
                // Without bitcasts to odd integer widths (`<4 x i1>` → `i4`): popcount is
                // the sum of the zero-extended lanes; ballot ORs `1 << i` over the active
                // lanes below 64.
                let mt = arg_ty(0)?;
                let ty = ret_ty()?;
                let out = self.t.ty(ty);
                let (wide, acc) = match mt {
                    Type::Scalar(_) => (LLVMBuildZExt(b, vals[0], self.t.i64(), n), None),
                    Type::Vector(k, _) => {
                        let vt = self.t.ty(Type::Vector(k, ScalarType::I64));
                        let v = if id == Intrinsic::Popcount {
                            LLVMBuildZExt(b, vals[0], vt, n)
                        } else {
                            let mut bits: Vec<_> = (0..u32::from(k))
                                .map(|i| {
                                    let x = if i < 64 { 1u64 << i } else { 0 };
                                    self.t.const_int(self.t.i64(), x)
                                })
                                .collect();
                            let c = LLVMConstVector(bits.as_mut_ptr(), u32::from(k));
                            LLVMBuildSelect(b, vals[0], c, LLVMConstNull(vt), n)
                        };
                        let name = if id == Intrinsic::Popcount {
                            "llvm.vector.reduce.add"
                        } else {
                            "llvm.vector.reduce.or"
                        };
                        (v, Some((name, vt)))
                    }
                };
                let total = match acc {
                    Some((name, vt)) => self.call_intrinsic(name, &[vt], &[wide])?,
                    None => wide,
                };
                if ty.elem().bits() < 64 {
                    LLVMBuildTrunc(b, total, out, n)
                } else {
                    total
                }
            }
            Intrinsic::ReduceFAdd | Intrinsic::ReduceFMul => {
                let vt = arg_ty(0)?;
                let elem = Type::Scalar(vt.elem());
                let (name, start) = if id == Intrinsic::ReduceFAdd {
                    ("llvm.vector.reduce.fadd", neg_zero(vt.elem()))
                } else {
                    ("llvm.vector.reduce.fmul", one(vt.elem()))
                };
                let start = self.const_bits(elem, start);
                self.call_intrinsic(name, &[self.t.ty(vt)], &[start, vals[0]])?
            }
            // Exported code is one SIMD instance: the only lane's own value.
            Intrinsic::LaneExtract | Intrinsic::LaneBroadcast => vals[0],
            Intrinsic::Broadcast => self.splat(vals[0], ret_ty()?),
            Intrinsic::Extract => LLVMBuildExtractElement(b, vals[0], vals[1], n),
            Intrinsic::Insert => LLVMBuildInsertElement(b, vals[0], vals[1], vals[2], n),
            // Exported code is one SIMD instance: an unmasked region is its own code.
            Intrinsic::UnmaskedBegin | Intrinsic::UnmaskedEnd => return Ok(None),
            Intrinsic::Barrier => {
                let fty = LLVMFunctionType(self.t.void(), std::ptr::null_mut(), 0, 0);
                let f = crate::llvm::declare(self.m, "__lanes_barrier", fty);
                self.call(f, fty, &[]);
                return Ok(None);
            }
            // Exported code is one SIMD instance: lane 0, whose access is on its own page.
            Intrinsic::PageProbe => self.t.i1c(true),
            Intrinsic::SpeculativeLoad => self.speculative_load(args, ret_ty()?)?,
            other => {
                let name = reduce_name(other).ok_or_else(|| ExportError {
                    func: self.func.name.clone(),
                    inst: other.name().to_string(),
                    message: "no LLVM lowering".into(),
                })?;
                self.call_intrinsic(name, &[self.t.ty(arg_ty(0)?)], &[vals[0]])?
            }
        };
        Ok(Some(v))
    }

    /// `speculative_load ptr, mask` as `llvm.masked.load` (a scalar pointer; a scalar
    /// result as one lane) or `llvm.masked.gather` (a vector of pointers). Masked-off
    /// lanes never fault; the active ones lie on pages the program accesses, which the
    /// vectorizer guarantees (`page_probe`), so the machine load cannot fault either.
    unsafe fn speculative_load(
        &self,
        args: &[(LLVMValueRef, Type)],
        ty: Type,
    ) -> Result<LLVMValueRef, ExportError> {
        let n = noname();
        let (ptr, ptr_ty) = args[0];
        let (mut mask, _) = args[1];
        let vty = match ty {
            Type::Scalar(e) => Type::Vector(1, e),
            v => v,
        };
        if !ty.is_vector() {
            let one = LLVMGetUndef(self.t.ty(Type::Vector(1, ScalarType::I1)));
            mask = LLVMBuildInsertElement(self.b, one, mask, self.t.i32c(0), n);
        }
        let mty = self.t.mem_ty(vty);
        let name = if ptr_ty.is_vector() {
            "llvm.masked.gather"
        } else {
            "llvm.masked.load"
        };
        let align = self.t.i32c(ty.elem().bytes().max(1));
        let pass = LLVMConstNull(mty);
        let r = self.call_intrinsic(name, &[mty, LLVMTypeOf(ptr)], &[ptr, align, mask, pass])?;
        let r = self.mem_to_value(r, vty);
        Ok(if ty.is_vector() {
            r
        } else {
            LLVMBuildExtractElement(self.b, r, self.t.i32c(0), n)
        })
    }

    /// Calls the libm function `base` (`f`-suffixed for `f32`), lane by lane on vectors; the
    /// declaration reads and writes no memory.
    unsafe fn libm_call(
        &self,
        base: &str,
        args: &[(LLVMValueRef, Type)],
    ) -> Result<LLVMValueRef, ExportError> {
        let ty = args[0].1;
        let elem = ty.elem();
        let name = if elem == ScalarType::F32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        let et = self.t.scalar(elem);
        let mut ps = vec![et; args.len()];
        let fty = LLVMFunctionType(et, ps.as_mut_ptr(), ps.len() as u32, 0);
        let f = crate::llvm::declare(self.m, &name, fty);
        // lanes math has no `errno` (see `crate::import`): the call is pure, as clang marks
        // it under `-fno-math-errno`, which lets LLVM's loop vectorizer use vector variants.
        self.mark_pure(f);
        match ty {
            Type::Scalar(_) => Ok(self.call(f, fty, &args.iter().map(|a| a.0).collect::<Vec<_>>())),
            Type::Vector(k, _) => {
                let mut acc = LLVMGetUndef(self.t.ty(ty));
                for i in 0..u32::from(k) {
                    let idx = self.t.i32c(i);
                    let lanes: Vec<_> = args
                        .iter()
                        .map(|a| LLVMBuildExtractElement(self.b, a.0, idx, noname()))
                        .collect();
                    let r = self.call(f, fty, &lanes);
                    acc = LLVMBuildInsertElement(self.b, acc, r, idx, noname());
                }
                Ok(acc)
            }
        }
    }
}

fn neg_zero(e: ScalarType) -> u64 {
    if e == ScalarType::F32 {
        u64::from((-0.0f32).to_bits())
    } else {
        (-0.0f64).to_bits()
    }
}

fn one(e: ScalarType) -> u64 {
    if e == ScalarType::F32 {
        u64::from(1.0f32.to_bits())
    } else {
        1.0f64.to_bits()
    }
}
