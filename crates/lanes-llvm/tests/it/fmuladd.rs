//! `llvm.fmuladd` stays its own operation (`fmuladd`) through import and export, so that
//! LLVM fuses it exactly where clang's own code would: on a CPU with FMA, and not for
//! generic x86-64; `fma`/`fmaf` stay a fused `fma` everywhere. The interpreter fuses
//! `fmuladd`, which is what the JIT (host CPU) computes on a host with FMA.

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::write::module_to_string;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;
use lanes_llvm::jit::Jit;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::Context;

use lanes_test_support::scratch_file as tmp;

/// `a * b + c` under clang's default `-ffp-contract=on`, the same with `fmaf`, and a loop
/// LLVM vectorizes.
const C: &str = "#include <math.h>\n\
    float mad(float a, float b, float c) { return a * b + c; }\n\
    float fused(float a, float b, float c) { return fmaf(a, b, c); }\n\
    void axpy(float *restrict y, const float *restrict x, float a, int n) {\n\
        for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];\n\
    }\n";

fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[test]
fn fmuladd_is_kept_and_fused_where_the_target_fuses() {
    let m = import_file(&tmp("mad.c", C), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    assert!(text.contains("f32 = fmuladd v"), "{text}");
    assert!(text.contains("f32 = fma v"), "fmaf is a fused fma: {text}");
    assert!(!text.contains(" fmul "), "no unfused product left: {text}");
    let asm = |cpu: Option<&str>| crate::common::compiled_asm(&m, "mad", cpu);
    // Generic x86-64 has no FMA: fmuladd is a multiply and an add, fma a libm call.
    let generic = asm(None);
    assert!(
        generic.contains("mulss") && generic.contains("addss"),
        "{generic}"
    );
    assert!(generic.contains("fmaf"), "{generic}");
    // Haswell has: both fuse, scalar and in the vectorized loop.
    let haswell = asm(Some("haswell"));
    assert!(haswell.contains("vfmadd"), "{haswell}");
    assert!(haswell.contains("ymm"), "the loop is vectorized: {haswell}");
    assert!(!haswell.contains("vmulss"), "{haswell}");
}

#[test]
fn jit_on_the_host_and_interpreter_agree_on_fmuladd() {
    let m = import_file(&tmp("jit.c", C), &ClangOptions::default()).expect("import");
    let ctx = Context::create();
    let jit = Jit::new(&ctx, &m, &PipelineOptions::default()).expect("jit");
    let interp = Interpreter::new(&m);
    let e = f32::EPSILON;
    // (1 + ε)² - round((1 + ε)²): fused it is the ε² the rounded product lost, unfused 0.
    let (a, b) = (1.0 + e, 1.0 + e);
    let c = -(a * b);
    assert_ne!(a.mul_add(b, c), a * b + c);
    let args = [a, b, c].map(|x| x.to_le_bytes().to_vec());
    // SAFETY: `mad` takes three floats and touches no memory.
    let got = unsafe { jit.call("mad", &args) }
        .expect("call")
        .expect("result");
    let got = f32::from_le_bytes(got[..4].try_into().expect("4 bytes"));
    let want = if host_has_fma() {
        a.mul_add(b, c)
    } else {
        a * b + c
    };
    assert_eq!(got.to_bits(), want.to_bits(), "JIT on the host");
    let i = interp
        .call_by_name(
            "mad",
            &[RtValue::f32(a), RtValue::f32(b), RtValue::f32(c)],
            &mut Memory::new(),
        )
        .expect("runs")
        .expect("result");
    assert!(
        i.same_as(&RtValue::f32(a.mul_add(b, c))),
        "interpreter fuses: {i:?}"
    );
    if host_has_fma() {
        assert!(i.same_as(&RtValue::f32(got)), "JIT and interpreter");
    } else {
        eprintln!("note: the host has no FMA; the JIT computes fmuladd unfused");
    }
}
