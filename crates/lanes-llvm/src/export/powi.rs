//! `pow(x, y)` on `float` vectors, when every lane's exponent is a small integer: computed
//! inline by binary powering in double precision, when a vector math library is chosen.
//!
//! **Why.** An integer power of a varying base is a common idiom (`powf(up, 2 * j - n)` in
//! binomial option pricing, compound interest, polynomial terms), and with a vector math
//! library each such call is a call into libmvec's general `powf`, whose logarithm and
//! exponential cost far more than the handful of multiplications an integer exponent needs.
//! ISPC computes every `pow` inline (as `exp(y · log x)` in single precision, of lower
//! accuracy); lanes does it only where it is more accurate than the library.
//!
//! **Which calls.** Every `pow` on `<N x f32>` with a vector library (`-fveclib=libmvec`)
//! tests its exponents first: when every lane's `y` is an integer with `|y| ≤ 2^24` the
//! inline power runs, otherwise the library's `powf` for the whole vector. The test is
//! made at run time because the exponent is often out of sight at export: a loop body
//! vectorized by lanes receives `(float)n` as a parameter. It costs a rounding, two
//! compares and a branch, next to a library call of some forty instructions. Without a
//! vector library lanes calls scalar libm per lane and promises libm's results bit for bit,
//! so nothing changes there.
//!
//! **How, and how exact.** The base is widened to `double` — for a negative `y`, its
//! reciprocal — and raised by square-and-multiply over the bits of `|y|` (the first eight
//! straight-line, the others in a loop while any lane has bits left); the result is rounded
//! to `float` once. The reciprocal is of the base, not of the power, so that it depends on
//! `x` alone: LLVM hoists it out of a loop whose base is invariant (`powf(up, 2 * j - n)`
//! divides once, not once per `j`). Its one rounding (2^-53 relative) grows by a factor
//! `|y|` in the powering; each squaring at most doubles the relative error and adds one
//! rounding of 2^-53. For `|y| < 2^16` the double result is then within 2^-35 relative, and
//! the returned value is the correctly rounded power except where the exact power lies
//! within 2^-11 ulp of a rounding boundary, never more than 0.501 ulp away (libmvec promises
//! 4 ulp, glibc's scalar `powf` 0.82); up to `|y| = 2^24` the bound is 2^-26 relative, 0.75
//! ulp. The range of `double` keeps every
//! intermediate that matters finite: a power that overflows or underflows `double`
//! overflows or underflows `float` too, with the sign of the odd powers of a negative
//! base. IEEE's special cases for integer exponents follow from the arithmetic:
//! `pow(x, ±0) = 1` even for NaN, `pow(±0, -k) = ±∞` by parity, `pow(±∞, k)`, `pow(-1, k)`;
//! a NaN or infinite exponent is not an integer of that size and goes to the library.
//!
//! The code lives in an `internal alwaysinline` function per vector type
//! (`lanes.powi.vNf32`), so the export stays instruction by instruction and LLVM inlines
//! it at the call.
//!
//! **A uniform exponent.** In the common case the exponent is the same in every lane
//! (`powf(up, 2 * j - n)` with `j` a uniform loop counter, or a constant), and lanes passes
//! it as a splat. The body first tests that (bit for bit, so that after inlining the test
//! of a splat folds away) and then runs the powering with scalar control: one scalar test
//! of the exponent, and a loop that runs once per bit of `|n|`, multiplying by `p` or by
//! 1.0 (exact) so that the products, and the result, are bit for bit those of the
//! varying path. ISPC's `pow` is cheap in its `options` example because `log x` leaves
//! the loop; this path makes lanes' as cheap without giving up accuracy (binomial option
//! pricing went from 0.86 of ISPC's speed to 0.95–1.0, `bench/results/wfv_ispc_*.txt`).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMIntPredicate::{LLVMIntEQ, LLVMIntNE, LLVMIntSLT};
use inkwell::llvm_sys::LLVMRealPredicate::{LLVMRealOEQ, LLVMRealOLE};

use lanes_ir::{Intrinsic, Type};

use super::func::FuncCx;
use super::inline_math::Splats;
use crate::error::ExportError;
use crate::llvm::noname;

/// The largest `|y|` the inline power takes (see the module docs for the error bound).
const MAX_EXPONENT: f32 = 16_777_216.0;

/// The bits of `|n|` handled without a loop: exponents below 2^8 take none.
const UNROLLED: usize = 8;

impl FuncCx<'_> {
    /// The body of `lanes.powi`: `(x, y) → x^y` for integer-valued `y` (module docs).
    pub(crate) unsafe fn build_powi_body(
        &self,
        f: LLVMValueRef,
        ty: Type,
        lanes: u32,
    ) -> Result<(), ExportError> {
        let (b, n, ctx) = (self.b, noname(), self.t.ctx);
        let vf = self.t.ty(ty);
        let [entry, varying, slow, power, step, done] = self.body_blocks(
            f,
            [c"entry", c"varying", c"library", c"power", c"step", c"done"],
        );
        let (x, y) = (LLVMGetParam(f, 0), LLVMGetParam(f, 1));
        let vf64 = LLVMVectorType(LLVMDoubleTypeInContext(ctx), lanes);
        let splats = Splats::new(ctx, lanes);
        let (vi1, vi32) = splats.mask_and_int_types();
        let (i32s, f32s, f64s) = (|v| splats.i32(v), |v| splats.f32(v), |v| splats.f64(v));
        let reduce = |name: &str, m: LLVMValueRef| self.call_intrinsic(name, &[vi1], &[m]);

        // entry: whether every lane has the same exponent (bit for bit, so that a splat
        // folds to `true` once inlined, NaN included).
        LLVMPositionBuilderAtEnd(b, entry);
        let first = LLVMBuildShuffleVector(b, y, LLVMGetUndef(vf), splats.zeros(), n);
        let same = LLVMBuildICmp(
            b,
            LLVMIntEQ,
            LLVMBuildBitCast(b, y, vi32, n),
            LLVMBuildBitCast(b, first, vi32, n),
            n,
        );
        let uniform = self.build_uniform_powi(f, x, y, slow, lanes)?;
        LLVMPositionBuilderAtEnd(b, entry);
        LLVMBuildCondBr(b, reduce("llvm.vector.reduce.and", same)?, uniform, varying);

        // varying: whether every lane's exponent is an integer with |y| ≤ 2^24 (NaN and ±∞
        // are not); then n = fptosi y (exact), its sign and |n|.
        LLVMPositionBuilderAtEnd(b, varying);
        let whole = self.call_intrinsic("llvm.trunc", &[vf], &[y])?;
        let integral = LLVMBuildFCmp(b, LLVMRealOEQ, y, whole, n);
        let size = self.call_intrinsic("llvm.fabs", &[vf], &[y])?;
        let small = LLVMBuildFCmp(b, LLVMRealOLE, size, f32s(MAX_EXPONENT), n);
        let inline = LLVMBuildAnd(b, integral, small, n);
        LLVMBuildCondBr(b, reduce("llvm.vector.reduce.and", inline)?, power, slow);
        let any = |m: LLVMValueRef| reduce("llvm.vector.reduce.or", m);

        // library: the vector library's powf (or LLVM's, lane by lane, if it has none).
        LLVMPositionBuilderAtEnd(b, slow);
        let general = match self.veclib_call(Intrinsic::Pow, &[(x, ty), (y, ty)]) {
            Some(v) => v,
            None => self.call_intrinsic("llvm.pow", &[vf], &[x, y])?,
        };
        LLVMBuildRet(b, general);

        // power: the first UNROLLED bits straight-line, so that small exponents (the common
        // case) take no loop and no mispredicted exit.
        LLVMPositionBuilderAtEnd(b, power);
        let (magnitude, base) = self.magnitude_and_base(x, y, vi32, i32s(0), f64s(1.0));
        // One step: r *= p where the low bit of m is set; p *= p; m >>= 1.
        let step_once = |(r, p, m): (LLVMValueRef, LLVMValueRef, LLVMValueRef)| {
            let bit = LLVMBuildTrunc(b, m, vi1, n);
            let times = LLVMBuildFMul(b, r, p, n);
            (
                LLVMBuildSelect(b, bit, times, r, n),
                LLVMBuildFMul(b, p, p, n),
                LLVMBuildLShr(b, m, i32s(1), n),
            )
        };
        let mut state = (f64s(1.0), base, magnitude);
        for _ in 0..UNROLLED {
            state = step_once(state);
        }
        let (r_unrolled, p_unrolled, m_unrolled) = state;
        let left = LLVMBuildICmp(b, LLVMIntNE, m_unrolled, i32s(0), n);
        LLVMBuildCondBr(b, any(left)?, step, done);

        // step (loop): the remaining bits, while any lane has some.
        LLVMPositionBuilderAtEnd(b, step);
        let r = LLVMBuildPhi(b, vf64, n);
        let p = LLVMBuildPhi(b, vf64, n);
        let m = LLVMBuildPhi(b, vi32, n);
        let (r_next, p_next, m_next) = step_once((r, p, m));
        let left = LLVMBuildICmp(b, LLVMIntNE, m_next, i32s(0), n);
        LLVMBuildCondBr(b, any(left)?, step, done);
        let mut from = [power, step];
        for (phi, mut incoming) in [
            (r, [r_unrolled, r_next]),
            (p, [p_unrolled, p_next]),
            (m, [m_unrolled, m_next]),
        ] {
            LLVMAddIncoming(phi, incoming.as_mut_ptr(), from.as_mut_ptr(), 2);
        }

        // done: rounded to float once.
        LLVMPositionBuilderAtEnd(b, done);
        let raised = LLVMBuildPhi(b, vf64, n);
        let mut incoming = [r_unrolled, r_next];
        LLVMAddIncoming(raised, incoming.as_mut_ptr(), from.as_mut_ptr(), 2);
        LLVMBuildRet(b, LLVMBuildFPTrunc(b, raised, vf, n));
        Ok(())
    }

    /// `|n|` for `n = fptosi y` (of integer type `int_ty`, whose 0 is `zero`), and the base
    /// to raise to it: `x` widened to `double`, or its reciprocal where `n < 0` (`one` is
    /// 1.0 in `x`'s lanes). `y` is a vector like `x`, or a scalar for all lanes.
    unsafe fn magnitude_and_base(
        &self,
        x: LLVMValueRef,
        y: LLVMValueRef,
        int_ty: LLVMTypeRef,
        zero: LLVMValueRef,
        one: LLVMValueRef,
    ) -> (LLVMValueRef, LLVMValueRef) {
        let (b, n) = (self.b, noname());
        let exp = LLVMBuildFPToSI(b, y, int_ty, n);
        let negative = LLVMBuildICmp(b, LLVMIntSLT, exp, zero, n);
        let minus = LLVMBuildSub(b, zero, exp, n);
        let magnitude = LLVMBuildSelect(b, negative, minus, exp, n);
        let wide = LLVMBuildFPExt(b, x, LLVMTypeOf(one), n);
        let reciprocal = LLVMBuildFDiv(b, one, wide, n);
        (magnitude, LLVMBuildSelect(b, negative, reciprocal, wide, n))
    }

    /// The blocks of `lanes.powi` for an exponent the same in every lane (the common case:
    /// `powf(x, (float)k)` with `k` uniform), entered at the returned block: the tests and
    /// the loop over the bits of `|n|` are scalar, so the loop runs exactly as many times
    /// as `|n|` has bits and the bit tests cost no mask work. The products are those of
    /// the varying path in the same order (`r · 1.0 = r` exactly, `1.0 · p = p`), so both
    /// give the same bits. A non-integer or too large exponent jumps to `slow`.
    unsafe fn build_uniform_powi(
        &self,
        f: LLVMValueRef,
        x: LLVMValueRef,
        y: LLVMValueRef,
        slow: LLVMBasicBlockRef,
        lanes: u32,
    ) -> Result<LLVMBasicBlockRef, ExportError> {
        let (b, n, ctx) = (self.b, noname(), self.t.ctx);
        let [test, power, step, done] = self.body_blocks(
            f,
            [
                c"uniform",
                c"uniform.power",
                c"uniform.step",
                c"uniform.done",
            ],
        );
        let (f32t, f64t, i32t) = (
            LLVMFloatTypeInContext(ctx),
            LLVMDoubleTypeInContext(ctx),
            LLVMInt32TypeInContext(ctx),
        );
        let vf = LLVMVectorType(f32t, lanes);
        let vf64 = LLVMVectorType(f64t, lanes);
        let splats = Splats::new(ctx, lanes);
        let int = |v: u64| LLVMConstInt(i32t, v, 0);

        // uniform: the exponent as a scalar; whether it is an integer with |y| ≤ 2^24.
        LLVMPositionBuilderAtEnd(b, test);
        let s = LLVMBuildExtractElement(b, y, int(0), n);
        let whole = self.call_intrinsic("llvm.trunc", &[f32t], &[s])?;
        let integral = LLVMBuildFCmp(b, LLVMRealOEQ, s, whole, n);
        let size = self.call_intrinsic("llvm.fabs", &[f32t], &[s])?;
        let bound = LLVMConstReal(f32t, f64::from(MAX_EXPONENT));
        let small = LLVMBuildFCmp(b, LLVMRealOLE, size, bound, n);
        LLVMBuildCondBr(b, LLVMBuildAnd(b, integral, small, n), power, slow);

        // uniform.power: the base (x, or 1/x for a negative exponent) in double.
        LLVMPositionBuilderAtEnd(b, power);
        let (magnitude, base) = self.magnitude_and_base(x, s, i32t, int(0), splats.f64(1.0));
        let zero = LLVMBuildICmp(b, LLVMIntEQ, magnitude, int(0), n);
        LLVMBuildCondBr(b, zero, done, step);

        // uniform.step (loop): r *= (low bit of m ? p : 1); p *= p; m >>= 1; while m ≠ 0.
        LLVMPositionBuilderAtEnd(b, step);
        let r = LLVMBuildPhi(b, vf64, n);
        let p = LLVMBuildPhi(b, vf64, n);
        let m = LLVMBuildPhi(b, i32t, n);
        let bit = LLVMBuildTrunc(b, m, LLVMInt1TypeInContext(ctx), n);
        let factor = LLVMBuildSelect(b, bit, p, splats.f64(1.0), n);
        let r_next = LLVMBuildFMul(b, r, factor, n);
        let p_next = LLVMBuildFMul(b, p, p, n);
        let m_next = LLVMBuildLShr(b, m, int(1), n);
        let left = LLVMBuildICmp(b, LLVMIntNE, m_next, int(0), n);
        LLVMBuildCondBr(b, left, step, done);
        let mut from = [power, step];
        for (phi, mut incoming) in [
            (r, [splats.f64(1.0), r_next]),
            (p, [base, p_next]),
            (m, [magnitude, m_next]),
        ] {
            LLVMAddIncoming(phi, incoming.as_mut_ptr(), from.as_mut_ptr(), 2);
        }

        // uniform.done: rounded to float once.
        LLVMPositionBuilderAtEnd(b, done);
        let raised = LLVMBuildPhi(b, vf64, n);
        let mut incoming = [splats.f64(1.0), r_next];
        LLVMAddIncoming(raised, incoming.as_mut_ptr(), from.as_mut_ptr(), 2);
        LLVMBuildRet(b, LLVMBuildFPTrunc(b, raised, vf, n));
        Ok(test)
    }
}
