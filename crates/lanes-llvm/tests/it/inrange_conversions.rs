//! `fptosi inrange` / `fptoui inrange`: C's float-to-integer conversions, undefined out of
//! range, import with the flag (so do `llvm.lrint`/`llvm.lround`), LLVM's saturating
//! `llvm.fpto[su]i.sat` without it. With the flag the exporter emits the target's own
//! conversion, one `vcvttps2dq` for eight lanes on AVX2, where lanes' saturating semantics
//! cost a clamp, a compare and blend for the upper bound and one for NaN; in range both
//! agree with the interpreter.

use crate::common::{compiled_asm, exported, tmp, VectorConversion};

use lanes_ir::write::module_to_string;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;
use lanes_llvm::Context;

#[test]
fn c_conversions_import_inrange_and_saturating_intrinsics_do_not() {
    let c = "int to_int(float x) { return (int)x; }\n\
             unsigned to_unsigned(double x) { return (unsigned)x; }\n";
    let m = import_file(&tmp("conv.c", c), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    assert!(text.contains("i32 = fptosi inrange v"), "{text}");
    assert!(text.contains("i32 = fptoui inrange v"), "{text}");
    let ll = exported(&m);
    assert!(ll.contains("freeze i32"), "{ll}");
    assert!(!ll.contains("fptosi.sat"), "{ll}");

    let ll = "define i32 @sat(float %x) {\n\
              %r = call i32 @llvm.fptosi.sat.i32.f32(float %x)\n\
              ret i32 %r\n}\n\
              define i64 @rounded(double %x) {\n\
              %r = call i64 @llvm.lrint.i64.f64(double %x)\n\
              ret i64 %r\n}\n\
              declare i32 @llvm.fptosi.sat.i32.f32(float)\n\
              declare i64 @llvm.lrint.i64.f64(double)\n";
    let m = import_file(&tmp("sat.ll", ll), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    assert!(text.contains("i32 = fptosi v"), "saturating: {text}");
    assert!(text.contains("i64 = fptosi inrange v"), "lrint: {text}");
    assert!(exported(&m).contains("llvm.fptosi.sat"));
}

/// The AVX2 code of an eight-lane `f32` → `i32` conversion, with or without `inrange`.
fn haswell_conversion(flag: &str) -> String {
    let text = format!(
        "function @conv(v0: <8 x f32>, v1: ptr) {{\nblock0:\n    v2: <8 x i32> = fptosi{flag} v0\n    store v2, v1 align 4\n    ret\n}}\n"
    );
    let m = lanes_ir::parse_module(&text).expect("parses");
    let asm = compiled_asm(&m, "conv", Some("haswell"));
    // The body, without directives and comments.
    asm.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.') && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn inrange_vector_conversion_is_one_instruction_on_avx2() {
    let fast = haswell_conversion(" inrange");
    assert_eq!(fast.matches("vcvttps2dq").count(), 1, "{fast}");
    for absent in ["vcmp", "vblendv", "vmaxps", "vandps"] {
        assert!(!fast.contains(absent), "`{absent}` in:\n{fast}");
    }
    // Without the flag the conversion saturates: compares and blends around it.
    let saturating = haswell_conversion("");
    assert!(saturating.contains("vcvttps2dq"), "{saturating}");
    assert!(saturating.contains("vcmp"), "{saturating}");
    assert!(
        saturating.lines().count() > fast.lines().count() + 3,
        "{saturating}\nagainst\n{fast}"
    );
}

/// In range (and away from NaN) the flagged conversions compute what the interpreter does,
/// for `f32` and `f64` to signed and unsigned integers of 8 to 64 bits, eight lanes.
#[test]
fn inrange_conversions_agree_with_the_interpreter_in_range() {
    let ctx = Context::create();
    for from in ["f32", "f64"] {
        for (to, bits) in [("i8", 8), ("i16", 16), ("i32", 32), ("i64", 64)] {
            for op in ["fptosi", "fptoui"] {
                let signed = op == "fptosi";
                // The largest magnitudes exact in f32 below each bound, and values near 0.
                let top =
                    2f64.powi(if signed { bits - 1 } else { bits }) * (1.0 - 1.0 / 16_777_216.0);
                let bottom = if signed { -2f64.powi(bits - 1) } else { 0.0 };
                let values = [
                    0.0,
                    -0.0,
                    0.5,
                    0.99,
                    1.0,
                    3.7,
                    top,
                    bottom,
                    top / 3.0,
                    bottom / 3.0 - 0.5,
                ];
                let values: Vec<f64> = values
                    .into_iter()
                    .filter(|&v| (signed || v > -1.0) && v < top + 1.0 && v >= bottom)
                    .chain(std::iter::repeat(1.0))
                    .take(8)
                    .collect();
                let op = format!("{op} inrange");
                let (want, got) = VectorConversion::new(&ctx, &op, from, to).run(&values);
                assert_eq!(
                    want, got,
                    "{op} inrange <8 x {from}> to <8 x {to}> of {values:?}"
                );
            }
        }
    }
}
