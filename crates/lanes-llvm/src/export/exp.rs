//! `exp(x)` on `float` vectors, computed inline when a vector math library is chosen and the
//! target has fused multiply-add.
//!
//! **Why.** With `-fveclib=libmvec` every vector `expf` is a call into libmvec: an ABI
//! boundary that makes the caller spill every live vector register, around a routine that
//! on AMD Zen 4 is slower per element at 16 lanes than at 8 (13.1 million elements: 12.5
//! against 10.4 ms, `_ZGVeN16v_expf` against `_ZGVdN8v_expf`). Black-Scholes takes five
//! `expf` per option, and ISPC, which inlines its own, ran it 1.7× faster than lanes at
//! 16 lanes. Inline, the exponential is a dozen vector instructions that LLVM schedules
//! with the kernel's own.
//!
//! **How.** The classic reduction `x = n·ln 2 + r`, `|r| ≤ ln 2 / 2`:
//! - `n = round(x / ln 2)` by adding and subtracting `1.5·2^23` (the sum's low mantissa
//!   bits are `n`, also read as an integer from its bits);
//! - `r = x − n·ln2_hi − n·ln2_lo` with fused multiply-adds, `ln2_hi` the `float` nearest
//!   `ln 2` and `ln2_lo` the rest, so that `r` is exact to far below an ulp for the
//!   `|n| ≤ 150` that matter;
//! - `e^r = 1 + r + r²·q(r)` with `q` of degree 4 fitted for the least maximum relative
//!   error over `|r| ≤ ln 2 / 2` (coefficients rounded to `float`: `4.8·10^-9`, 0.04 ulp);
//! - `2^n·e^r` as `fma(p, s, s)` with `s = 2^n` built in the exponent field, one rounding.
//!
//! The arguments are clamped to `[-104, 89]` first (`e^89` overflows `float` and `e^-104`
//! is below half the least subnormal, so the results are unchanged: `+∞` and `+0`), which
//! keeps `x / ln 2` where the rounding trick works. When some lane's `|n|` exceeds 126 —
//! a result that overflows or is subnormal — `2^n` is applied as two halves,
//! `(p·s₁ + s₁)·s₂`, whose product is rounded once. A NaN stays NaN (the clamp does not
//! catch it and it reaches the result through `r`); `±∞` give `+∞` and `+0`; `±0` gives 1.
//! The test `veclib::inline_exp_and_log_are_within_an_ulp…` measures the error against
//! the exact exponential over every 61st `float` of the range: at most 1 ulp (and over
//! every `float` of it, 4.48·10^9 values masked and unmasked, checked once by hand).
//!
//! The code lives in an `internal alwaysinline` function per vector type
//! (`lanes.exp.vNf32`), as `lanes.powi` does.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMIntPredicate::{LLVMIntSLT, LLVMIntUGT};
use inkwell::llvm_sys::LLVMRealPredicate::{LLVMRealOGT, LLVMRealOLT};

use lanes_ir::Type;

use super::func::FuncCx;
use super::inline_math::Splats;
use crate::error::ExportError;
use crate::llvm::noname;

/// `q(r)`'s coefficients, constant term first (module docs), as `float` bit patterns:
/// `0x1.fffffcp-2`, `0x1.55548ap-3`, `0x1.555916p-5`, `0x1.123fc6p-7`, `0x1.6a1a6ep-10`.
const Q: [u32; 5] = [
    0x3eff_fffe,
    0x3e2a_aa45,
    0x3d2a_ac8b,
    0x3c09_1fe3,
    0x3ab5_0d37,
];
/// `1 / ln 2`.
const INV_LN2: f32 = std::f32::consts::LOG2_E;
/// The `float` nearest `ln 2`, and `ln 2` minus it.
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;
/// `1.5 · 2^23`: adding it rounds to an integer held in the low mantissa bits.
const SHIFT: f32 = 12_582_912.0;
/// The clamp of the argument (module docs).
const LOWEST: f32 = -104.0;
const HIGHEST: f32 = 89.0;

impl FuncCx<'_> {
    /// The body of `lanes.exp`: `x → e^x` (module docs).
    pub(crate) unsafe fn build_exp_body(
        &self,
        f: LLVMValueRef,
        ty: Type,
        lanes: u32,
    ) -> Result<(), ExportError> {
        let (b, n, ctx) = (self.b, noname(), self.t.ctx);
        let vf = self.t.ty(ty);
        let [entry, wide, done] = self.body_blocks(f, [c"entry", c"wide", c"done"]);
        let x = LLVMGetParam(f, 0);
        let splats = Splats::new(ctx, lanes);
        let (vi1, vi32) = splats.mask_and_int_types();
        let (i32s, f32s) = (|v| splats.i32(v), |v| splats.f32(v));
        let fma = |a, m, c| self.call_intrinsic("llvm.fma", &[vf], &[a, m, c]);
        let as_int = |v| LLVMBuildBitCast(b, v, vi32, n);
        let as_float = |v| LLVMBuildBitCast(b, v, vf, n);
        // 2^k for integers k in [-126, 127], built in the exponent field.
        let power_of_two = |k| {
            let biased = LLVMBuildAdd(b, k, i32s(127), n);
            as_float(LLVMBuildShl(b, biased, i32s(23), n))
        };

        LLVMPositionBuilderAtEnd(b, entry);
        // Clamp (a NaN fails both compares and stays).
        let high = LLVMBuildFCmp(b, LLVMRealOGT, x, f32s(HIGHEST), n);
        let x = LLVMBuildSelect(b, high, f32s(HIGHEST), x, n);
        let low = LLVMBuildFCmp(b, LLVMRealOLT, x, f32s(LOWEST), n);
        let x = LLVMBuildSelect(b, low, f32s(LOWEST), x, n);
        // n = round(x / ln 2), as a float and as an integer.
        let z = fma(x, f32s(INV_LN2), f32s(SHIFT))?;
        let nf = LLVMBuildFSub(b, z, f32s(SHIFT), n);
        let ni = LLVMBuildSub(b, as_int(z), as_int(f32s(SHIFT)), n);
        // r = x - n·ln 2 in two pieces.
        let r = fma(nf, f32s(-LN2_HI), x)?;
        let r = fma(nf, f32s(-LN2_LO), r)?;
        // p = e^r - 1 = r + r²·q(r).
        let r2 = LLVMBuildFMul(b, r, r, n);
        let mut q = f32s(f32::from_bits(Q[4]));
        for &c in Q[..4].iter().rev() {
            q = fma(q, r, f32s(f32::from_bits(c)))?;
        }
        let p = fma(r2, q, r)?;
        // 2^n·(1 + p) in one rounding while 2^n is a normal float.
        let s = power_of_two(ni);
        let result = fma(p, s, s)?;
        let magnitude = LLVMBuildSelect(
            b,
            LLVMBuildICmp(b, LLVMIntSLT, ni, i32s(0), n),
            LLVMBuildSub(b, i32s(0), ni, n),
            ni,
            n,
        );
        let out_of_range = LLVMBuildICmp(b, LLVMIntUGT, magnitude, i32s(126), n);
        let any = self.call_intrinsic("llvm.vector.reduce.or", &[vi1], &[out_of_range])?;
        LLVMBuildCondBr(b, any, wide, done);

        // wide: 2^n as two halves, 2^(n - n/2) · 2^(n/2), each a normal float for
        // |n| ≤ 150; the second product rounds once (to +∞ or a subnormal).
        LLVMPositionBuilderAtEnd(b, wide);
        let half = LLVMBuildAShr(b, ni, i32s(1), n);
        let rest = LLVMBuildSub(b, ni, half, n);
        let (s1, s2) = (power_of_two(half), power_of_two(rest));
        let scaled = fma(p, s1, s1)?;
        let split = LLVMBuildFMul(b, scaled, s2, n);
        let wide_result = LLVMBuildSelect(b, out_of_range, split, result, n);
        LLVMBuildBr(b, done);

        self.return_merged(done, vf, [(result, entry), (wide_result, wide)]);
        Ok(())
    }
}
