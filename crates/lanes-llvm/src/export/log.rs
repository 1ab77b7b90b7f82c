//! `log(x)` on `float` vectors, computed inline when a vector math library is chosen and the
//! target has fused multiply-add; the companion of module `exp`, for the same reason: a
//! libmvec call makes the caller spill every live vector around it, where ISPC inlines
//! its logarithm (Black-Scholes takes one per option).
//!
//! **How.** `x = 2^k·m` with `m` in `[√½, √2)`, read from the bits: subtracting the bits
//! of `√½` from `x`'s puts `k` in the exponent field, and subtracting `k` from the
//! exponent leaves `m` (a subnormal `x` is first scaled by `2^23`). With `f = m − 1`
//! (exact, `|f| < 0.42`), `log(m) = log1p(f) = f + f²·(−½ + f·P(f))`, `P` of degree 6
//! fitted for the least maximum relative error of `log1p` over that interval
//! (coefficients rounded to `float`: `3.4·10^-8`, 0.29 ulp); the form keeps the relative
//! accuracy near `x = 1`, where the result is small. Then
//! `log x = k·ln2_hi + (log1p(f) + k·ln2_lo)`, `ln2_hi` the `float` nearest `ln 2`.
//! Degree 7 was as fast as libmvec at 8 lanes only with the special cases moved out of
//! the common path; degree 6 with them out is as fast at 8 lanes and faster at 16
//! (Black-Scholes on Zen 4: 3.86 against 3.86 ms and 2.58 against 2.60–3.20 ms), and
//! still within 1 ulp of every positive `float` (checked exhaustively: 4.28·10^9 values,
//! masked and unmasked).
//!
//! Positive normal arguments take that path alone; a vector with any other lane
//! (subnormal, zero, negative, infinite, NaN) takes a second one, where subnormals are
//! first scaled by `2^23`.
//!
//! Special cases by IEEE: `log(±0) = −∞`, `log(x < 0) = NaN`, `log(+∞) = +∞`, NaN stays
//! NaN, `log(1) = +0`. The test `veclib::inline_exp_and_log_are_within_an_ulp…` measures
//! the error against the exact logarithm over every 61st positive `float`, subnormals
//! included (in CI): at most 1 ulp.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMIntPredicate::LLVMIntULT;
use inkwell::llvm_sys::LLVMRealPredicate::{LLVMRealOEQ, LLVMRealOLT, LLVMRealUNO};

use lanes_ir::Type;

use super::func::FuncCx;
use super::inline_math::Splats;
use crate::error::ExportError;
use crate::llvm::noname;

/// `P(f)`'s coefficients, constant term first (module docs), as `float` bit patterns.
const P: [u32; 7] = [
    0x3eaa_ab6c,
    0xbe80_01c1,
    0x3e4c_6bf9,
    0xbe29_c125,
    0x3e18_ba32,
    0xbe12_1958,
    0x3db2_2f1f,
];
/// The bits of `√½`: `x`'s bits minus these have `k` in the exponent field.
const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
/// The `float` nearest `ln 2`, and `ln 2` minus it.
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;
/// The least normal `float`, and `2^23` that lifts a subnormal above it.
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
const TWO_23: f32 = 8_388_608.0;

impl FuncCx<'_> {
    /// The body of `lanes.log`: `x → ln x` (module docs).
    pub(crate) unsafe fn build_log_body(
        &self,
        f: LLVMValueRef,
        ty: Type,
        lanes: u32,
    ) -> Result<(), ExportError> {
        let (b, n, ctx) = (self.b, noname(), self.t.ctx);
        let vf = self.t.ty(ty);
        let [entry, rare, done] = self.body_blocks(f, [c"entry", c"rare", c"done"]);
        LLVMPositionBuilderAtEnd(b, entry);
        let x = LLVMGetParam(f, 0);
        let splats = Splats::new(ctx, lanes);
        let (vi1, vi32) = splats.mask_and_int_types();
        let (i32s, f32s) = (|v| splats.i32(v), |v| splats.f32(v));
        let fma = |a, m, c| self.call_intrinsic("llvm.fma", &[vf], &[a, m, c]);
        // ln x for x = 2^bias·xs, xs a positive normal float (module docs).
        let log_of = |xs: LLVMValueRef, bias: LLVMValueRef| -> Result<LLVMValueRef, ExportError> {
            let bits = LLVMBuildBitCast(b, xs, vi32, n);
            let shifted = LLVMBuildSub(b, bits, i32s(SQRT_HALF_BITS), n);
            let k = LLVMBuildAShr(b, shifted, i32s(23), n);
            let m_bits = LLVMBuildSub(b, bits, LLVMBuildShl(b, k, i32s(23), n), n);
            let m = LLVMBuildBitCast(b, m_bits, vf, n);
            let k = LLVMBuildAdd(b, k, bias, n);
            // log1p(f) = f + f²·(−½ + f·P(f)).
            let fr = LLVMBuildFSub(b, m, f32s(1.0), n);
            let mut p = f32s(f32::from_bits(P[P.len() - 1]));
            for &c in P[..P.len() - 1].iter().rev() {
                p = fma(p, fr, f32s(f32::from_bits(c)))?;
            }
            let inner = fma(fr, p, f32s(-0.5))?;
            let f2 = LLVMBuildFMul(b, fr, fr, n);
            let log1p = fma(f2, inner, fr)?;
            // k·ln 2 in two pieces.
            let kf = LLVMBuildSIToFP(b, k, vf, n);
            let low = fma(kf, f32s(LN2_LO), log1p)?;
            fma(kf, f32s(LN2_HI), low)
        };
        // Positive normal floats (bits 0x0080_0000..0x7f7f_ffff) take the common path;
        // any other lane sends the vector to `rare`.
        let x_bits = LLVMBuildBitCast(b, x, vi32, n);
        let above = LLVMBuildSub(b, x_bits, i32s(0x0080_0000), n);
        let normal = LLVMBuildICmp(b, LLVMIntULT, above, i32s(0x7f7f_ffff - 0x0080_0000 + 1), n);
        let result = log_of(x, i32s(0))?;
        let all = self.call_intrinsic("llvm.vector.reduce.and", &[vi1], &[normal])?;
        LLVMBuildCondBr(b, all, done, rare);

        // rare: subnormals scaled by 2^23 into the normal range (exponent corrected by
        // -23); x ≤ 0, +∞ and NaN by IEEE.
        LLVMPositionBuilderAtEnd(b, rare);
        let tiny = LLVMBuildFCmp(b, LLVMRealOLT, x, f32s(MIN_NORMAL), n);
        let lifted = LLVMBuildFMul(b, x, f32s(TWO_23), n);
        let xs = LLVMBuildSelect(b, tiny, lifted, x, n);
        let bias = LLVMBuildSelect(b, tiny, i32s(-23), i32s(0), n);
        let scaled = log_of(xs, bias)?;
        let less = LLVMBuildSub(b, x_bits, i32s(1), n);
        let finite_positive = LLVMBuildICmp(b, LLVMIntULT, less, i32s(0x7f7f_ffff), n);
        let zero = LLVMBuildFCmp(b, LLVMRealOEQ, x, f32s(0.0), n);
        let negative = LLVMBuildFCmp(b, LLVMRealOLT, x, f32s(0.0), n);
        let nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, n);
        // +∞ and NaN give x itself (quieted by adding it to itself).
        let itself = LLVMBuildFAdd(b, x, x, n);
        let special = LLVMBuildSelect(b, zero, f32s(f32::NEG_INFINITY), itself, n);
        let special = LLVMBuildSelect(b, negative, f32s(f32::NAN), special, n);
        let special = LLVMBuildSelect(b, nan, itself, special, n);
        let rare_result = LLVMBuildSelect(b, finite_positive, scaled, special, n);
        LLVMBuildBr(b, done);

        self.return_merged(done, vf, [(result, entry), (rare_result, rare)]);
        Ok(())
    }
}
