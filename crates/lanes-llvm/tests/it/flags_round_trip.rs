//! Facts clang states about operations and parameters survive import → lanes IR → export:
//! fast-math flags on every kind of instruction that takes them, `inbounds`/`nuw` on
//! address arithmetic, alignment of accesses and pointer parameters, and `noalias`.
//! (Integer flags: `int_flags.rs`; volatile and atomics: `memory_model.rs`.)

use crate::common;

use common::{exported, tmp};

use lanes_ir::write::module_to_string;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;

fn round_trip(name: &str, ll: &str, lanes: &[&str], llvm: &[&str]) {
    let m = import_file(&tmp(name, ll), &ClangOptions::default()).expect("import");
    lanes_ir::verifier::verify_module(&m).expect("verifies");
    let text = module_to_string(&m);
    for want in lanes {
        assert!(text.contains(want), "lanes IR lacks `{want}`:\n{text}");
    }
    let again = lanes_ir::parse_module(&text).expect("parses");
    assert_eq!(module_to_string(&again), text, "text round trip");
    let out = exported(&m);
    for want in llvm {
        assert!(out.contains(want), "exported LLVM lacks `{want}`:\n{out}");
    }
}

const FAST_MATH: &str = r#"
declare float @llvm.sqrt.f32(float)
declare float @sinf(float)

define float @fm(float %a, float %b, <4 x float> %v, i1 %c) {
entry:
  %s = fadd fast float %a, %b
  %m = fmul reassoc nsz float %s, %a
  %d = fdiv arcp float %m, %b
  %r = frem nnan ninf float %d, %a
  %n = fneg nsz float %r
  %q = call afn float @llvm.sqrt.f32(float %n)
  %t = call contract float @sinf(float %q)
  %k = fcmp nnan olt float %t, %a
  %e = select nnan i1 %k, float %t, float %a
  %w = fsub fast <4 x float> %v, %v
  %x = extractelement <4 x float> %w, i32 0
  br i1 %c, label %one, label %two
one:
  br label %join
two:
  br label %join
join:
  %p = phi ninf float [ %e, %one ], [ %x, %two ]
  %z = fadd float %p, %e
  ret float %z
}
"#;

#[test]
fn fast_math_flags_round_trip() {
    round_trip(
        "fm.ll",
        FAST_MATH,
        &[
            "f32 = fadd fast v",
            "f32 = fmul reassoc nsz v",
            "f32 = fdiv arcp v",
            "f32 = frem nnan ninf v",
            "f32 = fneg nsz v",
            "f32 = sqrt afn v",
            "f32 = sin contract v",
            "i1 = fcmp nnan olt v",
            "f32 = select nnan v",
            "<4 x f32> = fsub fast v",
            "f32 = phi ninf [",
            "f32 = fadd v",
        ],
        &[
            "fadd fast float",
            "fmul reassoc nsz float",
            "fdiv arcp float",
            "frem nnan ninf float",
            "fneg nsz float",
            "call afn float @llvm.sqrt.f32",
            "contract float @",
            "fcmp nnan olt float",
            "select nnan i1",
            "fsub fast <4 x float>",
            "phi ninf float",
        ],
    );
}

/// What clang-19 -O2 -ffast-math makes of C: every float operation `fast`, kept.
#[test]
fn clang_fast_math_is_kept() {
    let c = "float dot(const float *a, const float *b, int n) {\n\
             float s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }\n";
    let opts = ClangOptions {
        extra: vec!["-ffast-math".into()],
        ..ClangOptions::default()
    };
    let m = import_file(&tmp("dot.c", c), &opts).expect("import");
    let text = module_to_string(&m);
    assert!(
        text.contains("fadd fast") || text.contains("fadd reassoc"),
        "{text}"
    );
    let out = exported(&m);
    assert!(
        out.contains("fadd fast") || out.contains("fadd reassoc"),
        "{out}"
    );
}

#[test]
fn a_flag_on_an_integer_operation_is_rejected() {
    let bad =
        "function @f(v0: i32) -> i32 {\nblock0:\n    v1: i32 = add fast v0, v0\n    ret v1\n}\n";
    let m = lanes_ir::parse_module(bad).expect("parses");
    let err = lanes_ir::verifier::verify_module(&m).expect_err("integer add with fast-math");
    assert!(err.to_string().contains("fast-math"), "{err}");
}

const ADDRESSES: &str = r#"
%pair = type { i32, float }

define float @addr(ptr noalias align 16 %a, ptr noalias nocapture %b, i64 %i) {
  %p = getelementptr inbounds %pair, ptr %a, i64 %i, i32 1
  %q = getelementptr inbounds nuw float, ptr %b, i64 %i
  %r = getelementptr float, ptr %b, i64 3
  %x = load float, ptr %p, align 4
  %y = load float, ptr %q, align 16
  store float %x, ptr %r, align 8
  %s = fadd float %x, %y
  ret float %s
}
"#;

#[test]
fn address_facts_alignment_and_noalias_round_trip() {
    round_trip(
        "addr.ll",
        ADDRESSES,
        &[
            "v0: ptr align 16 noalias",
            "v1: ptr noalias",
            "ptr = ptradd inbounds v",
            "ptr = ptradd inbounds nuw v",
            "ptr = ptradd v",
            "load v",
            "align 16",
            "align 8",
        ],
        &[
            "ptr noalias align 16 %0",
            "ptr noalias %1",
            "getelementptr inbounds i8",
            "getelementptr inbounds nuw i8",
            "getelementptr i8, ptr %1, i64 12",
            "load float, ptr %",
            ", align 16",
            "store float %",
            ", align 8",
        ],
    );
}
