//! Vector math library calls: vector math intrinsics → glibc's libmvec (`-fveclib=libmvec`).
//!
//! Without a vector library, a vector math intrinsic exports as LLVM's vector intrinsic
//! (`llvm.sin.v16f32`), which the x86 backend scalarizes into one `sinf` call per lane:
//! vectorized code that calls transcendental math runs at scalar speed. With
//! [`VecLib::Libmvec`], such an intrinsic becomes a call to glibc's libmvec variant under the x86 vector-function ABI (Intel's "Vector
//! Function ABI"; the names clang's `-fveclib=libmvec` uses): `_ZGV`, the ISA, `N`
//! (unmasked), the lanes, one `v` per argument, `_` and the libm name, e.g.
//! `_ZGVeN16v_sinf`, `_ZGVdN4vv_pow`. The ISA letter follows the vector's bit width and
//! the target's features ([`X86VectorIsa`]; `lanes compile` passes the host's under
//! `-march=native`, else the x86-64 baseline): 128 bits → `b` (SSE2), 256 → `d` (AVX2) or
//! `c` (AVX without AVX2), 512 → `e` (AVX-512F) — the caller must have the registers the
//! variant takes its arguments in, or the calling conventions disagree. A vector wider than the target's widest register is split into register-sized pieces
//! (a `<16 x float>` on AVX2 is two `_ZGVdN8v_sinf` calls); vectors narrower than 128 bits,
//! piece counts that are not powers of two and functions libmvec lacks keep the LLVM
//! intrinsic. Covered: `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`,
//! `cosh`, `tanh`, `exp`, `exp2`, `log`, `log2`, `log10`, `pow` in `f32` and `f64` — all of
//! which glibc ≥ 2.35 exports in the four ISAs (`nm -D libmvec.so.1`). Programs link with
//! `-lmvec -lm`.
//!
//! Scalar math calls (`llvm.sin.f32`, `tanf`) in the exported code get the call-site
//! attribute `vector-function-abi-variant` listing their libmvec variants (`_ZGV_LLVM_N16v_
//! llvm.sin.f32(_ZGVeN16v_sinf)`, one per register width of the target) — the form LLVM's
//! `inject-tli-mappings` pass gives them under `-vector-library` — so that LLVM's loop
//! vectorizer, on loops lanes leaves to it, calls libmvec as well, as clang's
//! `-fveclib=libmvec` does; the variants are declared and kept alive until it runs by
//! `llvm.compiler.used` ([`keep_variant_declarations`]), and unused declarations emit
//! nothing.
//!
//! **Why an explicit mapping, not LLVM's.** LLVM's own route is TargetLibraryInfo with a
//! vector library (`-vector-library=LIBMVEC-X86`), read by the loop vectorizer and by the
//! code generator's `replace-with-veclib` pass. LLVM 19's C API, and so inkwell, reaches
//! neither: `LLVMRunPasses` builds its own TargetLibraryInfo from the triple, and the code
//! generator's is made inside `LLVMTargetMachineEmitToMemoryBuffer`; the only switch is the
//! process-wide command-line option (`LLVMParseCommandLineOptions`, a global that can be
//! set once per process), which would leak one compilation's choice into every other one
//! (tests run many in one process). The mapping is therefore made here, from
//! [`super::ExportOptions`], per export: directly for the vectors lanes makes, and through
//! the call-site attributes above for the loops LLVM's loop vectorizer takes.
//!
//! **Precision.** libmvec is not correctly rounded: glibc documents its vector functions as
//! accurate to 4 ulp (`crates/lanes-cli/tests/it/veclib.rs` measures at most 3 ulp against scalar libm on its
//! inputs), where scalar libm is within 1 ulp for these functions; special values (NaN, ±∞, ±0) follow C's Annex F. Results can therefore
//! differ in the last bits from the scalar loop — the same contract as clang's
//! `-fveclib=libmvec`. Neither libmvec nor lanes sets `errno`: the import already reads
//! libm calls (`sinf`, `pow`, …) as the pure lanes math intrinsics whether or not clang ran
//! with `-fno-math-errno` (lanes IR has no `errno`; see [`crate::import`]).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{Intrinsic, ScalarType, Type};

use super::func::FuncCx;
use crate::llvm::{attr_kind, noname};

/// The vector registers an x86-64 target has, as far as the vector-function ABI cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct X86VectorIsa {
    pub avx: bool,
    pub avx2: bool,
    pub avx512f: bool,
    /// Fused multiply-add (the inline `expf` needs it; module `exp`).
    pub fma: bool,
}

impl X86VectorIsa {
    /// The ISA of an LLVM feature string (`+avx2,+fma,-avx512f,…`); the last mention of a
    /// feature wins, as in LLVM.
    pub fn from_features(features: &str) -> Self {
        let mut isa = X86VectorIsa::default();
        for f in features.split(',') {
            let (on, name) = if let Some(name) = f.strip_prefix('+') {
                (true, name)
            } else if let Some(name) = f.strip_prefix('-') {
                (false, name)
            } else {
                continue;
            };
            match name {
                "avx" => isa.avx = on,
                "avx2" => isa.avx2 = on,
                "avx512f" => isa.avx512f = on,
                "fma" => isa.fma = on,
                _ => {}
            }
        }
        isa
    }

    /// The widest vector register in bits.
    fn max_bits(self) -> u32 {
        if self.avx512f {
            512
        } else if self.avx || self.avx2 {
            256
        } else {
            128
        }
    }

    /// The vector-function ABI letter for `bits`-wide vectors, if the target has them.
    fn letter(self, bits: u32) -> Option<char> {
        match bits {
            128 => Some('b'),
            256 if self.avx2 => Some('d'),
            256 if self.avx => Some('c'),
            512 if self.avx512f => Some('e'),
            _ => None,
        }
    }
}

/// A vector math library the export can call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VecLib {
    /// glibc's libmvec on x86-64, for a target with these registers.
    Libmvec(X86VectorIsa),
}

/// Why a `-fveclib=` name is not used by lanes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VecLibError {
    #[error("vector library {0:?} is not supported by lanes (supported: libmvec, none)")]
    Unsupported(String),
    #[error("libmvec needs an x86-64 target, not {0}")]
    NotX86(String),
}

impl VecLib {
    /// The library clang's `-fveclib=<name>` names, for `triple` (host if `None`) with LLVM
    /// feature string `features`; `Ok(None)` for `none`.
    pub fn from_clang_name(
        name: &str,
        triple: Option<&str>,
        features: &str,
    ) -> Result<Option<VecLib>, VecLibError> {
        match name {
            "none" => Ok(None),
            "libmvec" | "LIBMVEC" | "LIBMVEC-X86" => {
                let x86 = triple.map_or(cfg!(target_arch = "x86_64"), |t| t.starts_with("x86_64"));
                if !x86 {
                    return Err(VecLibError::NotX86(triple.unwrap_or("this host").into()));
                }
                Ok(Some(VecLib::Libmvec(X86VectorIsa::from_features(features))))
            }
            other => Err(VecLibError::Unsupported(other.to_string())),
        }
    }
}

/// libmvec's base name (double version) of a lanes math intrinsic, and its arity.
fn libmvec_base(id: Intrinsic) -> Option<(&'static str, usize)> {
    use Intrinsic::*;
    Some(match id {
        Sin => ("sin", 1),
        Cos => ("cos", 1),
        Tan => ("tan", 1),
        Asin => ("asin", 1),
        Acos => ("acos", 1),
        Atan => ("atan", 1),
        Sinh => ("sinh", 1),
        Cosh => ("cosh", 1),
        Tanh => ("tanh", 1),
        Exp => ("exp", 1),
        Exp2 => ("exp2", 1),
        Log => ("log", 1),
        Log2 => ("log2", 1),
        Log10 => ("log10", 1),
        Pow => ("pow", 2),
        Atan2 => ("atan2", 2),
        _ => return None,
    })
}

/// How a `<lanes x elem>` vector splits for `isa`: `(piece lanes, pieces, ISA letter)`.
/// The pieces are as wide as the target's widest register allows, at least 128 bits, and
/// there are a power of two of them.
pub(crate) fn split(isa: X86VectorIsa, lanes: u32, elem: ScalarType) -> Option<(u32, u32, char)> {
    let bits = lanes.checked_mul(elem.bits())?;
    let piece_bits = [512, 256, 128]
        .into_iter()
        .find(|&p| p <= isa.max_bits() && p <= bits && bits.is_multiple_of(p))?;
    let pieces = bits / piece_bits;
    if !pieces.is_power_of_two() {
        return None;
    }
    Some((piece_bits / elem.bits(), pieces, isa.letter(piece_bits)?))
}

/// The libmvec variant of intrinsic `id` on `<lanes x elem>`, as `(name, piece lanes,
/// pieces)`, if there is one for `isa`.
pub(crate) fn libmvec_variant(
    isa: X86VectorIsa,
    id: Intrinsic,
    lanes: u32,
    elem: ScalarType,
) -> Option<(String, u32, u32)> {
    let (base, arity) = libmvec_base(id)?;
    let suffix = match elem {
        ScalarType::F32 => "f",
        ScalarType::F64 => "",
        _ => return None,
    };
    let (piece, pieces, letter) = split(isa, lanes, elem)?;
    let params = "v".repeat(arity);
    Some((
        format!("_ZGV{letter}N{piece}{params}_{base}{suffix}"),
        piece,
        pieces,
    ))
}

impl FuncCx<'_> {
    /// Calls the vector library's variant of math intrinsic `id` on vector `args`, piece by
    /// piece; `None` when there is no vector library or no variant (the caller then emits
    /// the LLVM intrinsic).
    pub(crate) unsafe fn veclib_call(
        &self,
        id: Intrinsic,
        args: &[(LLVMValueRef, Type)],
    ) -> Option<LLVMValueRef> {
        let Some(VecLib::Libmvec(isa)) = self.opts.veclib else {
            return None;
        };
        let Type::Vector(k, elem) = args.first()?.1 else {
            return None;
        };
        if args.iter().any(|a| a.1 != args[0].1) {
            return None;
        }
        let (name, piece, pieces) = libmvec_variant(isa, id, u32::from(k), elem)?;
        let piece_ty = self.t.ty(Type::Vector(u16::try_from(piece).ok()?, elem));
        let mut params = vec![piece_ty; args.len()];
        let fty = LLVMFunctionType(piece_ty, params.as_mut_ptr(), params.len() as u32, 0);
        let f = crate::llvm::declare(self.m, &name, fty);
        self.mark_pure(f);
        let mut results = Vec::with_capacity(pieces as usize);
        for p in 0..pieces {
            let ops: Vec<LLVMValueRef> = if pieces == 1 {
                args.iter().map(|a| a.0).collect()
            } else {
                args.iter()
                    .map(|a| self.lanes_of(a.0, p * piece, piece))
                    .collect()
            };
            results.push(self.call(f, fty, &ops));
        }
        // Concatenate pairwise: the count is a power of two.
        let mut width = piece;
        while results.len() > 1 {
            results = results
                .chunks(2)
                .map(|pair| self.concat(pair[0], pair[1], width))
                .collect();
            width *= 2;
        }
        results.pop()
    }

    /// Tells LLVM's loop vectorizer about the vector library's variants of `call`, a scalar
    /// call of math intrinsic `id` on `elem` (see the module docs).
    pub(crate) unsafe fn announce_variants(
        &self,
        id: Intrinsic,
        elem: ScalarType,
        arity: usize,
        call: LLVMValueRef,
    ) {
        let Some(VecLib::Libmvec(isa)) = self.opts.veclib else {
            return;
        };
        let scalar = crate::llvm::value_name(LLVMGetCalledValue(call));
        let mut variants = Vec::new();
        for bits in [128, 256, 512] {
            if bits > isa.max_bits() {
                continue;
            }
            let lanes = bits / elem.bits();
            let Some((name, piece, 1)) = libmvec_variant(isa, id, lanes, elem) else {
                continue;
            };
            let Ok(piece) = u16::try_from(piece) else {
                continue;
            };
            let vt = self.t.ty(Type::Vector(piece, elem));
            let mut params = vec![vt; arity];
            let fty = LLVMFunctionType(vt, params.as_mut_ptr(), arity as u32, 0);
            let f = crate::llvm::declare(self.m, &name, fty);
            self.mark_pure(f);
            let params = "v".repeat(arity);
            variants.push(format!("_ZGV_LLVM_N{lanes}{params}_{scalar}({name})"));
        }
        if variants.is_empty() {
            return;
        }
        let key = "vector-function-abi-variant";
        let value = variants.join(",");
        let a = LLVMCreateStringAttribute(
            self.t.ctx,
            key.as_ptr().cast(),
            key.len() as u32,
            value.as_ptr().cast(),
            value.len() as u32,
        );
        LLVMAddCallSiteAttribute(call, u32::MAX, a);
    }

    /// Lanes `first..first + n` of vector `v`.
    unsafe fn lanes_of(&self, v: LLVMValueRef, first: u32, n: u32) -> LLVMValueRef {
        let mut mask: Vec<_> = (first..first + n).map(|i| self.t.i32c(i)).collect();
        let mask = LLVMConstVector(mask.as_mut_ptr(), n);
        LLVMBuildShuffleVector(self.b, v, LLVMGetPoison(LLVMTypeOf(v)), mask, noname())
    }

    /// `a ++ b` for two vectors of `n` lanes.
    unsafe fn concat(&self, a: LLVMValueRef, b: LLVMValueRef, n: u32) -> LLVMValueRef {
        let mut mask: Vec<_> = (0..2 * n).map(|i| self.t.i32c(i)).collect();
        let mask = LLVMConstVector(mask.as_mut_ptr(), 2 * n);
        LLVMBuildShuffleVector(self.b, a, b, mask, noname())
    }

    /// Marks math function `f` as reading no memory but its own constant tables, writing
    /// none (no `errno`: libmvec sets none, and lanes math has none), not unwinding and
    /// returning.
    pub(crate) unsafe fn mark_pure(&self, f: LLVMValueRef) {
        let fn_index = u32::MAX; // LLVMAttributeFunctionIndex
        for (name, value) in [("nounwind", 0), ("willreturn", 0), ("memory", 0)] {
            let a = LLVMCreateEnumAttribute(self.t.ctx, attr_kind(name), value);
            LLVMAddAttributeAtIndex(f, fn_index, a);
        }
    }
}

/// Adds the libmvec declarations nothing calls yet to `llvm.compiler.used`, so that they
/// survive until LLVM's loop vectorizer, which only uses variants that are declared.
pub(crate) fn keep_variant_declarations(t: &crate::llvm::Types, m: LLVMModuleRef) {
    // SAFETY: `m` is a live module of context `t.ctx`; the array's elements are functions
    // of `m`, which are pointers.
    unsafe {
        let mut keep = Vec::new();
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            let name = crate::llvm::value_name(f);
            if name.starts_with("_ZGV") && LLVMIsDeclaration(f) != 0 && LLVMGetFirstUse(f).is_null()
            {
                keep.push(f);
            }
            f = LLVMGetNextFunction(f);
        }
        if keep.is_empty() {
            return;
        }
        let init = LLVMConstArray2(t.ptr(), keep.as_mut_ptr(), keep.len() as u64);
        let g = LLVMAddGlobal(m, LLVMTypeOf(init), c"llvm.compiler.used".as_ptr());
        LLVMSetInitializer(g, init);
        LLVMSetLinkage(g, inkwell::llvm_sys::LLVMLinkage::LLVMAppendingLinkage);
        LLVMSetSection(g, c"llvm.metadata".as_ptr());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AVX512: X86VectorIsa = X86VectorIsa {
        avx: true,
        avx2: true,
        avx512f: true,
        fma: true,
    };
    const AVX2: X86VectorIsa = X86VectorIsa {
        avx: true,
        avx2: true,
        avx512f: false,
        fma: true,
    };
    const SSE: X86VectorIsa = X86VectorIsa {
        avx: false,
        avx2: false,
        avx512f: false,
        fma: false,
    };

    fn name(isa: X86VectorIsa, id: Intrinsic, lanes: u32, elem: ScalarType) -> Option<String> {
        libmvec_variant(isa, id, lanes, elem).map(|(n, _, pieces)| format!("{n} x{pieces}"))
    }

    #[test]
    fn names_follow_the_vector_function_abi() {
        use Intrinsic::*;
        use ScalarType::{F32, F64, I32};
        assert_eq!(
            name(AVX512, Sin, 16, F32).as_deref(),
            Some("_ZGVeN16v_sinf x1")
        );
        assert_eq!(
            name(AVX512, Sin, 8, F64).as_deref(),
            Some("_ZGVeN8v_sin x1")
        );
        assert_eq!(
            name(AVX512, Pow, 16, F32).as_deref(),
            Some("_ZGVeN16vv_powf x1")
        );
        assert_eq!(
            name(AVX512, Exp, 4, F32).as_deref(),
            Some("_ZGVbN4v_expf x1")
        );
        assert_eq!(
            name(AVX512, Log, 16, F64).as_deref(),
            Some("_ZGVeN8v_log x2")
        );
        assert_eq!(
            name(AVX2, Cos, 16, F32).as_deref(),
            Some("_ZGVdN8v_cosf x2")
        );
        assert_eq!(
            name(AVX2, Atan2, 4, F64).as_deref(),
            Some("_ZGVdN4vv_atan2 x1")
        );
        assert_eq!(name(SSE, Exp, 8, F64).as_deref(), Some("_ZGVbN2v_exp x4"));
        let avx = X86VectorIsa { avx: true, ..SSE };
        assert_eq!(name(avx, Sin, 8, F32).as_deref(), Some("_ZGVcN8v_sinf x1"));
        // No variant: too narrow, odd piece counts, no libmvec function, not a float.
        assert_eq!(name(AVX512, Sin, 2, F32), None);
        assert_eq!(name(AVX2, Sin, 24, F32), None);
        assert_eq!(name(AVX512, Sqrt, 16, F32), None);
        assert_eq!(name(AVX512, Sin, 16, I32), None);
    }

    #[test]
    fn features_and_names_parse() {
        let isa = X86VectorIsa::from_features("+sse2,+avx,+avx2,-avx512f,+fma");
        assert_eq!(isa, AVX2);
        assert!(!X86VectorIsa::from_features("+avx2,+fma,-fma").fma);
        assert_eq!(
            X86VectorIsa::from_features("+avx512f,+avx2,+avx").max_bits(),
            512
        );
        assert_eq!(
            VecLib::from_clang_name("libmvec", Some("x86_64-pc-linux-gnu"), "+avx2,+avx,+fma"),
            Ok(Some(VecLib::Libmvec(AVX2)))
        );
        assert_eq!(VecLib::from_clang_name("none", None, ""), Ok(None));
        assert!(matches!(
            VecLib::from_clang_name("SVML", None, ""),
            Err(VecLibError::Unsupported(_))
        ));
        assert!(matches!(
            VecLib::from_clang_name("libmvec", Some("aarch64-linux-gnu"), ""),
            Err(VecLibError::NotX86(_))
        ));
    }
}
