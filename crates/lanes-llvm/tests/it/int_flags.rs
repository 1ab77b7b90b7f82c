//! Integer flags (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`) survive import → lanes IR →
//! export: shape analysis needs `nsw` to keep an `int` index contiguous through its `sext`
//! (PLDI'18 §2.3), and LLVM's own optimizations need all of them back.

use crate::common;

use common::{exported, tmp};

use lanes_ir::write::module_to_string;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;

/// Every flag on every instruction that takes it, scalar and vector.
const LL: &str = r#"
define i64 @every(i32 %a, i32 %b, <4 x i32> %v) {
  %s = add nuw nsw i32 %a, %b
  %d = sub nsw i32 %s, %b
  %m = mul nuw i32 %d, %a
  %k = and i32 %b, 7
  %l = shl nsw i32 %m, %k
  %q = sdiv exact i32 %l, %b
  %u = udiv exact i32 %q, %b
  %r = lshr exact i32 %u, %k
  %t = ashr exact i32 %r, %k
  %o = or disjoint i32 %t, 1
  %z = zext nneg i32 %o to i64
  %w = add nsw <4 x i32> %v, %v
  %wz = zext nneg <4 x i32> %w to <4 x i64>
  %e = extractelement <4 x i64> %wz, i64 0
  %p = add nuw i64 %z, %e
  ret i64 %p
}
"#;

#[test]
fn every_flag_survives_import_and_export() {
    let m = import_file(&tmp("every.ll", LL), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    for want in [
        "add nuw nsw v",
        "sub nsw v",
        "mul nuw v",
        "shl nsw v",
        "sdiv exact v",
        "udiv exact v",
        "lshr exact v",
        "ashr exact v",
        "or disjoint v",
        "i64 = zext nneg v",
        "<4 x i32> = add nsw v",
        "<4 x i64> = zext nneg v",
        "i64 = add nuw v",
    ] {
        assert!(text.contains(want), "lanes IR lacks `{want}`:\n{text}");
    }
    let ll = exported(&m);
    for want in [
        "add nuw nsw i32",
        "sub nsw i32",
        "mul nuw i32",
        "shl nsw i32",
        "sdiv exact i32",
        "udiv exact i32",
        "lshr exact i32",
        "ashr exact i32",
        "or disjoint i32",
        "zext nneg i32",
        "add nsw <4 x i32>",
        "zext nneg <4 x i32>",
        "add nuw i64",
    ] {
        assert!(ll.contains(want), "exported LLVM lacks `{want}`:\n{ll}");
    }
}

/// What clang-19 -O2 makes of C `int` arithmetic: signed `+`, `*` and `<<` are `nsw`, the
/// index is sign-extended; lanes keeps both, and an unsigned sum stays flagless.
#[test]
fn clang_int_index_arithmetic_keeps_nsw() {
    let c = "void f(float *a, int i, int k, unsigned u, unsigned w) {\n\
             a[i + k] = 1.0f;\n\
             a[2 * i] = 2.0f;\n\
             a[u + w] = 3.0f;\n\
             }\n";
    let m = import_file(&tmp("index.c", c), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    assert!(text.contains("i32 = add nsw v"), "{text}");
    assert!(
        text.contains("i32 = shl nsw v") || text.contains("i32 = mul nsw v"),
        "{text}"
    );
    assert!(text.contains("i64 = sext v"), "{text}");
    assert!(text.contains("i32 = add v"), "the unsigned sum: {text}");
    let ll = exported(&m);
    assert!(ll.contains("add nsw i32"), "{ll}");
    assert!(ll.contains("add i32"), "{ll}");
}
