//! Integers of widths lanes has no type for (`i2` … `i48`), as LLVM's middle end makes them,
//! are imported into wider lanes integers with the same meaning: every operation lanes
//! promotes, at several widths, and random pairs of them (so that the unspecified high bits
//! one leaves reach the next), run by the interpreter and by the JIT against a model of
//! N-bit arithmetic written here, including stores and loads of exactly their bytes.
//! A volatile access is split into the pieces LLVM's code generator makes of it.

use crate::common::tmp;

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, ScalarType};
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;
use lanes_llvm::jit::Jit;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::Context;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const WIDTHS: [u32; 7] = [2, 4, 7, 12, 24, 33, 48];

const BINARY: [&str; 13] = [
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "urem", "sdiv", "srem",
];

const PREDICATES: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];

/// `x` as an N-bit two's-complement number (sign-extended).
fn signed(x: i128, n: u32) -> i128 {
    let m = 1i128 << n;
    let u = x.rem_euclid(m);
    if u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// `x` as an N-bit unsigned number.
fn unsigned(x: i128, n: u32) -> i128 {
    x.rem_euclid(1i128 << n)
}

/// `a op b` in N bits (as a signed number), or `None` where LLVM leaves it undefined.
fn binary(op: &str, a: i128, b: i128, n: u32) -> Option<i128> {
    let (sa, sb, ua, ub) = (signed(a, n), signed(b, n), unsigned(a, n), unsigned(b, n));
    let r = match op {
        "add" => sa + sb,
        "sub" => sa - sb,
        "mul" => sa * sb,
        "and" => sa & sb,
        "or" => sa | sb,
        "xor" => sa ^ sb,
        "shl" if ub < i128::from(n) => sa << ub,
        "lshr" if ub < i128::from(n) => ua >> ub,
        "ashr" if ub < i128::from(n) => sa >> ub,
        "udiv" if ub != 0 => ua / ub,
        "urem" if ub != 0 => ua % ub,
        "sdiv" | "srem" if sb != 0 && !(sa == -(1i128 << (n - 1)) && sb == -1) => {
            if op == "sdiv" {
                sa / sb
            } else {
                sa % sb
            }
        }
        _ => return None,
    };
    Some(signed(r, n))
}

fn compare(pred: &str, a: i128, b: i128, n: u32) -> bool {
    let (sa, sb, ua, ub) = (signed(a, n), signed(b, n), unsigned(a, n), unsigned(b, n));
    match pred {
        "eq" => ua == ub,
        "ne" => ua != ub,
        "ugt" => ua > ub,
        "uge" => ua >= ub,
        "ult" => ua < ub,
        "ule" => ua <= ub,
        "sgt" => sa > sb,
        "sge" => sa >= sb,
        "slt" => sa < sb,
        _ => sa <= sb,
    }
}

/// One test function: its name, its LLVM IR, and its result for `(a, b)` (`None`:
/// undefined there, not run).
struct Case {
    name: String,
    ir: String,
    model: Box<dyn Fn(i128, i128) -> Option<i128>>,
}

/// The case `name` of width `n`: `body` in [`define`], computing what `model` says.
fn case(
    name: String,
    n: u32,
    body: &str,
    model: impl Fn(i128, i128) -> Option<i128> + 'static,
) -> Case {
    Case {
        ir: define(&name, n, body),
        name,
        model: Box::new(model),
    }
}

/// `define i64 @name(i64 %a, i64 %b)` with `%x`, `%y` the arguments truncated to `iN`.
fn define(name: &str, n: u32, body: &str) -> String {
    format!(
        "define i64 @{name}(i64 %a, i64 %b) {{\n  %x = trunc i64 %a to i{n}\n  %y = trunc i64 %b to i{n}\n{body}}}\n"
    )
}

fn cases(rng: &mut SmallRng) -> Vec<Case> {
    let mut cases = Vec::new();
    for n in WIDTHS {
        for op in BINARY {
            for (ext, sign) in [("sext", true), ("zext", false)] {
                let name = format!("{op}_{n}_{ext}");
                let body =
                    format!("  %r = {op} i{n} %x, %y\n  %z = {ext} i{n} %r to i64\n  ret i64 %z\n");
                cases.push(case(name, n, &body, move |a, b| {
                    let r = binary(op, a, b, n)?;
                    Some(if sign { r } else { unsigned(r, n) })
                }));
            }
        }
        for pred in PREDICATES {
            let name = format!("icmp_{pred}_{n}");
            let body =
                format!("  %c = icmp {pred} i{n} %x, %y\n  %z = zext i1 %c to i64\n  ret i64 %z\n");
            cases.push(case(name, n, &body, move |a, b| {
                Some(i128::from(compare(pred, a, b, n)))
            }));
        }
        // Pairs: the high bits the first leaves reach the second (here as its left
        // operand, and as the right one through a `select`).
        for k in 0..24 {
            let (op1, op2) = (
                BINARY[rng.gen_range(0..BINARY.len())],
                BINARY[rng.gen_range(0..BINARY.len())],
            );
            let name = format!("pair{k}_{op1}_{op2}_{n}");
            let body = format!(
                "  %r = {op1} i{n} %x, %y\n  %c = icmp ult i{n} %r, %x\n  %s = select i1 %c, i{n} %r, i{n} %y\n  %t = {op2} i{n} %r, %s\n  %z = sext i{n} %t to i64\n  ret i64 %z\n"
            );
            cases.push(case(name, n, &body, move |a, b| {
                let r = binary(op1, a, b, n)?;
                let s = if compare("ult", r, a, n) { r } else { b };
                binary(op2, r, s, n)
            }));
        }
        // Casts: to a wider odd width and back, to a narrower one, through `double`.
        let wider = n * 2 - 1;
        if wider < 64 {
            let name = format!("widen_{n}");
            let body = format!(
                "  %u = zext i{n} %x to i{wider}\n  %s = sext i{n} %y to i{wider}\n  %m = mul i{wider} %u, %s\n  %z = sext i{wider} %m to i64\n  ret i64 %z\n"
            );
            cases.push(case(name, n, &body, move |a, b| {
                Some(signed(unsigned(a, n) * signed(b, n), wider))
            }));
        }
        if n > 2 {
            let narrow = n / 2 + 1;
            let name = format!("narrow_{n}");
            let body = format!(
                "  %t = trunc i{n} %x to i{narrow}\n  %u = udiv i{narrow} %t, 3\n  %z = zext i{narrow} %u to i64\n  ret i64 %z\n"
            );
            cases.push(case(name, n, &body, move |a, _| {
                Some(unsigned(a, narrow) / 3)
            }));
        }
        for (conv, sign) in [("sitofp", true), ("uitofp", false)] {
            let name = format!("{conv}_{n}");
            let body = format!(
                "  %f = {conv} i{n} %x to double\n  %z = fptosi double %f to i64\n  ret i64 %z\n"
            );
            cases.push(case(name, n, &body, move |a, _| {
                Some(if sign { signed(a, n) } else { unsigned(a, n) })
            }));
        }
        let name = format!("fptosi_{n}");
        let body = format!(
            "  %f = sitofp i64 %a to double\n  %r = fptosi double %f to i{n}\n  %s = add i{n} %r, %y\n  %z = sext i{n} %s to i64\n  ret i64 %z\n"
        );
        cases.push(case(name, n, &body, move |a, b| {
            (signed(a, n) == a).then(|| signed(a + b, n))
        }));
        // Memory: exactly ⌈N/8⌉ bytes written over a word of ones (the bits of the last
        // byte above N are unspecified, so masked off), and read back at an offset.
        let bytes = n.div_ceil(8);
        let unspecified = ((1u64 << (8 * bytes - n)) - 1) << n;
        let keep = !unspecified as i64;
        let name = format!("store_{n}");
        let body = format!(
            "  %p = alloca [2 x i64], align 8\n  store i64 -1, ptr %p, align 8\n  %q = getelementptr i8, ptr %p, i64 8\n  store i64 -1, ptr %q, align 8\n  %r = add i{n} %x, %y\n  store i{n} %r, ptr %p, align 8\n  %w = load i64, ptr %p, align 8\n  %z = and i64 %w, {keep}\n  ret i64 %z\n"
        );
        cases.push(case(name, n, &body, move |a, b| {
            let low = unsigned(signed(a + b, n), n);
            let ones = if bytes == 8 { 0 } else { -1i128 << (8 * bytes) };
            Some(signed((ones | low) & i128::from(keep), 64))
        }));
        let name = format!("load_{n}");
        let body = format!(
            "  %p = alloca [2 x i64], align 8\n  store i64 %a, ptr %p, align 8\n  %q = getelementptr i8, ptr %p, i64 8\n  store i64 %b, ptr %q, align 8\n  %o = getelementptr i8, ptr %p, i64 3\n  %v = load i{n}, ptr %o, align 1\n  %z = sext i{n} %v to i64\n  ret i64 %z\n"
        );
        cases.push(case(name, n, &body, move |a, b| {
            // Bytes 3.. of a, then b's, little-endian.
            let word = (unsigned(a, 64) >> 24) | (unsigned(b, 64) << 40);
            Some(signed(word, n))
        }));
        let name = format!("switch_{n}");
        let body = format!(
            "  switch i{n} %x, label %other [\n    i{n} -1, label %minus\n    i{n} 1, label %plus\n  ]\nminus:\n  ret i64 10\nplus:\n  ret i64 20\nother:\n  ret i64 30\n"
        );
        cases.push(case(name, n, &body, move |a, _| {
            Some(match signed(a, n) {
                -1 => 10,
                1 => 20,
                _ => 30,
            })
        }));
    }
    cases
}

/// Arguments that reach every corner of every width: small numbers of both signs, the
/// edges of each width, and random 64-bit patterns (whose high bits the truncation drops).
fn argument(rng: &mut SmallRng) -> i64 {
    match rng.gen_range(0..4) {
        0 => rng.gen_range(-9..=9),
        1 => {
            let n = WIDTHS[rng.gen_range(0..WIDTHS.len())];
            let edge = 1i64 << (n - 1);
            [edge - 1, -edge, edge, 2 * edge - 1][rng.gen_range(0..4)] + rng.gen_range(-1..=1)
        }
        _ => rng.gen(),
    }
}

#[test]
fn odd_width_integers_compute_as_in_llvm() {
    let mut rng = SmallRng::seed_from_u64(0x0dd);
    let cases = cases(&mut rng);
    let ir: String = cases.iter().map(|c| c.ir.as_str()).collect();
    let m = import_file(&tmp("odd_widths.ll", &ir), &ClangOptions::default())
        .unwrap_or_else(|e| panic!("import: {e}"));
    lanes_ir::verifier::verify_module(&m).expect("verifies");
    let interp = Interpreter::new(&m);
    let ctx = Context::create();
    let jit = Jit::new(&ctx, &m, &PipelineOptions::default()).expect("jit");
    let mut runs = 0;
    for case in &cases {
        for _ in 0..96 {
            let (a, b) = (argument(&mut rng), argument(&mut rng));
            let Some(want) = (case.model)(i128::from(a), i128::from(b)) else {
                continue;
            };
            let want = want as i64;
            let args = [
                RtValue::int(ScalarType::I64, a),
                RtValue::int(ScalarType::I64, b),
            ];
            let got = interp
                .call_by_name(&case.name, &args, &mut Memory::new())
                .unwrap_or_else(|e| panic!("{}({a}, {b}): {e}", case.name))
                .and_then(|v| v.as_i64());
            assert_eq!(
                got,
                Some(want),
                "interpreter: {}({a}, {b})\n{}",
                case.name,
                case.ir
            );
            let bytes = [a.to_le_bytes().to_vec(), b.to_le_bytes().to_vec()];
            // SAFETY: every case takes two i64s, returns an i64 and touches no memory.
            let native = unsafe { jit.call(&case.name, &bytes) }
                .expect("call")
                .expect("result");
            let native = i64::from_le_bytes(native[..8].try_into().expect("8 bytes"));
            assert_eq!(native, want, "JIT: {}({a}, {b})\n{}", case.name, case.ir);
            runs += 1;
        }
    }
    eprintln!("{} functions, {runs} calls agree", cases.len());
    assert!(runs > cases.len() * 48, "too few defined calls: {runs}");
}

#[test]
fn volatile_accesses_split_as_llvm_splits_them() {
    // LLVM's x86-64 code generator makes a volatile i24 store a 2-byte and a 1-byte store
    // (`movw`, then `movb` at offset 2); lanes' import makes the same two accesses.
    let ir = "define void @st(ptr %p, i64 %a) {\n  %x = trunc i64 %a to i24\n  store volatile i24 %x, ptr %p, align 4\n  ret void\n}\n";
    let m = import_file(&tmp("odd_store.ll", ir), &ClangOptions::default()).expect("import");
    let text = lanes_ir::write::module_to_string(&m);
    let stores: Vec<&str> = text.lines().filter(|l| l.contains("store")).collect();
    assert_eq!(stores.len(), 2, "{text}");
    assert!(stores.iter().all(|l| l.contains("volatile")), "{text}");
    let interp = Interpreter::new(&m);
    let mut mem = Memory::new();
    let buf = mem.alloc(8, 8, AddrSpace(0)).expect("alloc");
    mem.write_bytes(buf, &[0xee; 8]).expect("fill");
    interp
        .call_by_name(
            "st",
            &[
                RtValue::ptr(buf),
                RtValue::int(ScalarType::I64, 0x0a_0b0c0d),
            ],
            &mut mem,
        )
        .expect("runs");
    let bytes = mem.read_bytes(buf, 8).expect("read");
    assert_eq!(bytes, [0x0d, 0x0c, 0x0b, 0xee, 0xee, 0xee, 0xee, 0xee]);
}
