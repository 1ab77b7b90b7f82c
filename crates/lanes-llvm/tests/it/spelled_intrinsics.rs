//! Intrinsics the importer spells out with lanes operations (`import::int_idioms`,
//! `import::float_idioms`), on LLVM IR written here and run in the interpreter against
//! Rust's own definitions, over edge values: `llvm.minimum`/`maximum` (NaN in, NaN out;
//! −0 below +0), and the overflow-checking arithmetic of every kind at 8 and 64 bits.
//! C reaches the others (`corpus/c/intrinsics.c`, compared with clang's build).

use std::path::Path;

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::Module;
use lanes_llvm::clang::ClangOptions;

fn import(name: &str, text: &str) -> Module {
    let p = lanes_test_support::scratch_file(name, text);
    lanes_llvm::driver::import_file(Path::new(&p), &ClangOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

const MIN_MAX: &str = "
define double @minimum(double %a, double %b) {
  %r = call double @llvm.minimum.f64(double %a, double %b)
  ret double %r
}
define double @maximum(double %a, double %b) {
  %r = call double @llvm.maximum.f64(double %a, double %b)
  ret double %r
}
declare double @llvm.minimum.f64(double, double)
declare double @llvm.maximum.f64(double, double)
";

#[test]
fn minimum_and_maximum_propagate_nan_and_order_zeros() {
    let m = import("minmax.ll", MIN_MAX);
    let interp = Interpreter::new(&m);
    let values = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
    ];
    let mut checked = 0;
    for a in values {
        for b in values {
            for (f, min) in [("minimum", true), ("maximum", false)] {
                let args = [RtValue::f64(a), RtValue::f64(b)];
                let got = interp
                    .call_by_name(f, &args, &mut Memory::new())
                    .expect("runs")
                    .expect("a result");
                let want = if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else if a == b {
                    // ±0: the minimum is −0 if either is, the maximum +0 if either is.
                    let neg = if min {
                        a.is_sign_negative() || b.is_sign_negative()
                    } else {
                        a.is_sign_negative() && b.is_sign_negative()
                    };
                    if neg {
                        -a.abs()
                    } else {
                        a.abs()
                    }
                } else if (a < b) == min {
                    a
                } else {
                    b
                };
                assert!(
                    got.same_as(&RtValue::f64(want)),
                    "{f}({a}, {b}) = {got:?}, want {want}"
                );
                if want == 0.0 {
                    let bits = got.to_le_bytes();
                    assert_eq!(
                        bits[7] >> 7,
                        u8::from(want.is_sign_negative()),
                        "{f}({a}, {b})"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 128);
}

/// `@<op><bits>_r(a, b)`: the result; `@<op><bits>_o(a, b)`: the overflow flag.
fn overflow_ll() -> String {
    let mut s = String::new();
    for bits in [8, 64] {
        for op in ["sadd", "uadd", "ssub", "usub", "smul", "umul"] {
            let ty = format!("i{bits}");
            let call = format!(
                "  %p = call {{ {ty}, i1 }} @llvm.{op}.with.overflow.{ty}({ty} %a, {ty} %b)\n"
            );
            s += &format!(
                "define {ty} @{op}{bits}_r({ty} %a, {ty} %b) {{\n{call}\
                 \x20 %r = extractvalue {{ {ty}, i1 }} %p, 0\n  ret {ty} %r\n}}\n\
                 define i1 @{op}{bits}_o({ty} %a, {ty} %b) {{\n{call}\
                 \x20 %o = extractvalue {{ {ty}, i1 }} %p, 1\n  ret i1 %o\n}}\n\
                 declare {{ {ty}, i1 }} @llvm.{op}.with.overflow.{ty}({ty}, {ty})\n"
            );
        }
    }
    s
}

/// Rust's checked arithmetic on `a`, `b` taken as `bits`-bit values: (wrapped result,
/// overflowed).
fn rust_overflow(op: &str, bits: u32, a: i64, b: i64) -> (u64, bool) {
    if bits == 8 {
        let (sa, sb, ua, ub) = (a as i8, b as i8, a as u8, b as u8);
        let (r, o) = match op {
            "sadd" => {
                let (r, o) = sa.overflowing_add(sb);
                (r as u8, o)
            }
            "uadd" => ua.overflowing_add(ub),
            "ssub" => {
                let (r, o) = sa.overflowing_sub(sb);
                (r as u8, o)
            }
            "usub" => ua.overflowing_sub(ub),
            "smul" => {
                let (r, o) = sa.overflowing_mul(sb);
                (r as u8, o)
            }
            _ => ua.overflowing_mul(ub),
        };
        return (u64::from(r), o);
    }
    let (ua, ub) = (a as u64, b as u64);
    let (r, o) = match op {
        "sadd" => {
            let (r, o) = a.overflowing_add(b);
            (r as u64, o)
        }
        "uadd" => ua.overflowing_add(ub),
        "ssub" => {
            let (r, o) = a.overflowing_sub(b);
            (r as u64, o)
        }
        "usub" => ua.overflowing_sub(ub),
        "smul" => {
            let (r, o) = a.overflowing_mul(b);
            (r as u64, o)
        }
        _ => ua.overflowing_mul(ub),
    };
    (r, o)
}

#[test]
fn overflow_arithmetic_matches_rust_at_the_edges() {
    let m = import("overflow.ll", &overflow_ll());
    let interp = Interpreter::new(&m);
    let edges: Vec<i64> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        7,
        127,
        -128,
        255,
        1 << 31,
        -(1 << 31),
        (1 << 32) + 1,
        i64::MAX,
        i64::MIN,
        i64::MAX - 1,
        i64::MIN + 1,
        3_037_000_499,
        3_037_000_500,
        -3_037_000_500,
        0x5555_5555_5555_5555,
    ];
    let mut checked = 0;
    for bits in [8u32, 64] {
        for op in ["sadd", "uadd", "ssub", "usub", "smul", "umul"] {
            for &a in &edges {
                for &b in &edges {
                    let args = if bits == 8 {
                        [RtValue::i8(a as i8), RtValue::i8(b as i8)]
                    } else {
                        [RtValue::i64(a), RtValue::i64(b)]
                    };
                    let call = |f: String| {
                        interp
                            .call_by_name(&f, &args, &mut Memory::new())
                            .unwrap_or_else(|e| panic!("{f}: {e}"))
                            .expect("a result")
                    };
                    let (r, o) = rust_overflow(op, bits, a, b);
                    let want_r = if bits == 8 {
                        RtValue::i8(r as i8)
                    } else {
                        RtValue::i64(r as i64)
                    };
                    assert_eq!(
                        call(format!("{op}{bits}_r")),
                        want_r,
                        "{op}{bits}({a}, {b})"
                    );
                    let want_o = RtValue::int(lanes_ir::ScalarType::I1, i64::from(o));
                    assert_eq!(
                        call(format!("{op}{bits}_o")),
                        want_o,
                        "{op}{bits} flag ({a}, {b})"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * 6 * 21 * 21);
}
