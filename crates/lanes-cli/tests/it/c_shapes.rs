//! `--shapes` counts the parameters as written in C, whatever clang's ABI lowering makes
//! of them (x86-64 SysV here): a struct coerced into pieces gets its shape on every
//! piece, a returned struct's hidden `sret` pointer is varying, `name=shape` entries name
//! C parameters (and IR parameters of `.ll` and `.lir` input), and mistakes are errors
//! that list the C parameters. The mapping's premise — clang's `-O0` function has the
//! LLVM parameters of the optimized one when it is externally visible — is checked for
//! the host, Haswell and AArch64. Skipped with a message without clang-19.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{clang, cpu_has, run, s, scratch_dir, symbols};
use lanes_llvm::c_params::c_signature;
use lanes_llvm::clang::{load_module, ClangOptions};
use lanes_llvm::Context;

const SOURCE: &str = r#"struct pt { float x, y; };
struct pd { double x; long k; };
struct big { long a[8]; };
void f(struct pt p, float *out, long n) { out[n] = p.x * (float)n + p.y; }
void f2(struct pd p, double *out, long n) { out[n] = p.x * (double)n + (double)p.k; }
struct big g(long i, long k) {
    struct big b;
    for (int j = 0; j < 8; j++) b.a[j] = i * k + j;
    return b;
}
long h(struct big b, long i) { return b.a[i & 7] + i; }
"#;

fn lanes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
}

fn no_clang() -> bool {
    let missing = clang().arg("--version").output().is_err();
    if missing {
        eprintln!("clang-19 not installed: skipped");
    }
    missing
}

/// `SOURCE` written to a scratch directory named after `tag`.
fn source(tag: &str) -> (PathBuf, PathBuf) {
    let d = scratch_dir(tag);
    let src = d.join("structs.c");
    std::fs::write(&src, SOURCE).expect("write source");
    (d, src)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `lanes vectorize` for Haswell (AVX2, 8 lanes by default) to an object; the symbols
/// it defines.
fn vectorize(src: &Path, f: &str, shapes: &str, extra: &[&str], obj: &Path) -> Vec<String> {
    run(lanes()
        .args(["vectorize", s(src), "--function", f, "--shapes", shapes])
        .args(["-march=haswell", "-o", s(obj)])
        .args(extra));
    symbols(obj, &["-g", "--defined-only"])
}

/// The standard error of a `lanes` run that must fail with status 1.
fn failure(args: &[&str]) -> String {
    let o = lanes().args(args).output().expect("lanes runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    err
}

#[test]
fn struct_pieces_take_the_c_parameter_shape() {
    if no_clang() {
        return;
    }
    let (d, src) = source("c-shapes-struct");
    // `struct pt` is one `<2 x float>`: three shapes for three C parameters, and the
    // analysis sees the struct uniform or varying as asked.
    let args = |shapes: &str| {
        stdout(&run(lanes().args([
            "analyze",
            s(&src),
            "--function",
            "f",
            "--shapes",
            shapes,
        ])))
    };
    let out = args("u,u,c");
    assert!(
        out.contains("args: v0 uniform, v1 uniform, v2 contiguous"),
        "{out}"
    );
    let out = args("v,u,c");
    assert!(
        out.contains("args: v0 varying, v1 uniform, v2 contiguous"),
        "{out}"
    );
    // `struct pd` is a double and an i64: two letters of the same shape, and with a
    // uniform struct the launcher exists and equals the scalar function.
    let obj = d.join("f2.o");
    assert_eq!(
        vectorize(&src, "f2", "u,u,c", &[], &obj),
        ["_ZGVdN8uuul_f2", "f2_spmd"]
    );
    let varying = d.join("f2v.o");
    assert_eq!(
        vectorize(&src, "f2", "v,u,c", &[], &varying),
        ["_ZGVdN8vvul_f2"]
    );
    if !cpu_has("avx2") {
        eprintln!("note: the host has no AVX2; f2_spmd is not run");
        return;
    }
    let reference = d.join("ref.o");
    run(clang()
        .args([
            "-O1",
            "-Df2=ref_f2",
            "-Dg=ref_g",
            "-Df=ref_f",
            "-Dh=ref_h",
            "-c",
        ])
        .args([s(&src), "-o", s(&reference)]));
    let main = d.join("main.c");
    std::fs::write(
        &main,
        r#"#include <stdio.h>
struct pd { double x; long k; };
void ref_f2(struct pd, double *, long);
void f2_spmd(struct pd, double *, long);
int main(void) {
    double want[37], got[37];
    struct pd p = { 0.5, 3 };
    for (long i = 0; i < 37; i++) { want[i] = got[i] = -1; ref_f2(p, want, i); }
    f2_spmd(p, got, 37);
    for (long i = 0; i < 37; i++)
        if (want[i] != got[i]) { printf("lane %ld: %g, not %g\n", i, got[i], want[i]); return 1; }
    printf("ok\n");
    return 0;
}
"#,
    )
    .expect("write driver");
    let exe = d.join("f2");
    run(clang().args(["-O1", "-o", s(&exe), s(&main), s(&reference), s(&obj)]));
    assert_eq!(stdout(&run(&mut Command::new(&exe))), "ok\n");
}

#[test]
fn a_returned_struct_gets_a_varying_result_pointer() {
    if no_clang() {
        return;
    }
    let (d, src) = source("c-shapes-sret");
    // Two C parameters; the hidden first pointer is varying: one result per lane. (Four
    // lanes of 32 bits name the SSE variant, `b`; compiled for Haswell it takes its
    // 256-bit vectors in ymm registers.)
    let obj = d.join("g.o");
    assert_eq!(
        vectorize(&src, "g", "c,u", &["--width", "4"], &obj),
        ["_ZGVbN4vlu_g"]
    );
    if !cpu_has("avx2") {
        eprintln!("note: the host has no AVX2; _ZGVbN4vlu_g is not run");
        return;
    }
    let reference = d.join("ref.o");
    run(clang()
        .args([
            "-O1",
            "-Df2=ref_f2",
            "-Dg=ref_g",
            "-Df=ref_f",
            "-Dh=ref_h",
            "-c",
        ])
        .args([s(&src), "-o", s(&reference)]));
    let main = d.join("main.c");
    // Four result pointers in a ymm register; the contiguous index is linear (lane 0's
    // value) and `k` uniform, both in general registers: `<4 x ptr>`, `i64`, `i64`.
    std::fs::write(
        &main,
        r#"#include <stdio.h>
struct big { long a[8]; };
struct big ref_g(long i, long k);
typedef long v4l __attribute__((vector_size(32)));
void _ZGVbN4vlu_g(v4l result, long i, long k);
int main(void) {
    struct big got[4];
    v4l result = { (long)&got[0], (long)&got[1], (long)&got[2], (long)&got[3] };
    _ZGVbN4vlu_g(result, -2, 5);
    for (int l = 0; l < 4; l++) {
        struct big want = ref_g(-2 + l, 5);
        for (int j = 0; j < 8; j++)
            if (got[l].a[j] != want.a[j]) { printf("lane %d a[%d]\n", l, j); return 1; }
    }
    printf("ok\n");
    return 0;
}
"#,
    )
    .expect("write driver");
    let exe = d.join("g");
    run(clang().args([
        "-O1",
        "-mavx2",
        "-o",
        s(&exe),
        s(&main),
        s(&reference),
        s(&obj),
    ]));
    assert_eq!(stdout(&run(&mut Command::new(&exe))), "ok\n");
}

#[test]
fn named_shapes_for_c_llvm_and_lanes_ir() {
    if no_clang() {
        return;
    }
    let (d, src) = source("c-shapes-named");
    let obj = d.join("named.o");
    // Any order; the same variant and launcher as `u,u,c`.
    assert_eq!(
        vectorize(&src, "f2", "n=c,out=u,p=u", &[], &obj),
        ["_ZGVdN8uuul_f2", "f2_spmd"]
    );
    // Positional first; `out`, left out, is varying.
    assert_eq!(
        vectorize(&src, "f2", "u,n=c", &[], &obj),
        ["_ZGVdN8uuvl_f2"]
    );
    // LLVM text: the IR parameters, by their names.
    let ll = d.join("k.ll");
    std::fs::write(
        &ll,
        "define void @k(ptr %out, i64 %n) {\n  %p = getelementptr float, ptr %out, i64 %n\n  \
         store float 1.0, ptr %p\n  ret void\n}\n",
    )
    .expect("write .ll");
    assert_eq!(
        vectorize(&ll, "k", "n=c,%out=u", &[], &obj),
        ["_ZGVdN8ul_k", "k_spmd"]
    );
    let err = failure(&["vectorize", s(&ll), "--shapes", "m=u", "-o", s(&obj)]);
    assert!(
        err.contains("no parameter `m`: @k has 2 parameters (out, n)"),
        "{err}"
    );
    // lanes IR: the parameters' value names.
    let lir = d.join("saxpy.lir");
    std::fs::write(
        &lir,
        "function @saxpy(v0: f32, v1: ptr, v2: i64) {\nblock0:\n    v3: i64 = iconst 2\n    \
         v4: i64 = shl v2, v3\n    v5: ptr = ptradd v1, v4\n    v6: f32 = load v5 align 4\n    \
         v7: f32 = fmul v0, v6\n    store v7, v5 align 4\n    ret\n}\n",
    )
    .expect("write .lir");
    assert_eq!(
        vectorize(&lir, "saxpy", "v2=c,v0=u,v1=u", &[], &obj),
        ["_ZGVdN8uul_saxpy", "saxpy_spmd"]
    );
}

#[test]
fn mistakes_are_errors_that_list_the_c_parameters() {
    if no_clang() {
        return;
    }
    let d = scratch_dir("c-shapes-errors");
    let src = d.join("e.c");
    std::fs::write(
        &src,
        "struct s { double x, y; };\n\
         void f(float a, struct s s, long n, float *out) { out[n] = a + s.x * s.y; }\n\
         __attribute__((noinline)) static void q(long unused, float *out, long n) { out[n] = n; }\n\
         void use(float *o) { q(0, o, 1); q(0, o, 2); }\n",
    )
    .expect("write source");
    let obj = d.join("e.o");
    let err = |f: &str, shapes: &str| {
        failure(&[
            "vectorize",
            s(&src),
            "--function",
            f,
            "--shapes",
            shapes,
            "-o",
            s(&obj),
        ])
    };
    let cases = [
        (
            "u,v",
            "bad --shapes: @f has 4 parameters in C (a, s, n, out); 2 shapes given",
        ),
        (
            "u,v,c,u,u",
            "@f has 4 parameters in C (a, s, n, out); 5 shapes given",
        ),
        (
            "m=u",
            "no parameter `m`: @f has 4 parameters in C (a, s, n, out)",
        ),
        ("a=u,a=v", "parameter `a` is given two shapes"),
        (
            "n=c,u",
            "follows a named shape; positional shapes come first",
        ),
        (
            "u,c,c,u",
            "parameter `s` of @f is a struct, union, array or complex value",
        ),
        ("c,u,c,u", "parameter `a` of @f is a floating-point value"),
        ("u,u,c,ua3", "alignment 3 is not a power of two"),
    ];
    for (shapes, want) in cases {
        let e = err("f", shapes);
        assert!(e.contains(want), "--shapes {shapes}: {e}");
    }
    // A static function whose parameters the optimizer changed.
    let e = err("q", "u,u,c");
    assert!(e.contains("make it externally visible"), "{e}");
}

#[test]
fn o0_parameters_are_the_optimized_ones_for_external_functions() {
    if no_clang() {
        return;
    }
    let d = scratch_dir("c-shapes-abi");
    let src = d.join("abi.c");
    std::fs::write(
        &src,
        format!(
            "{SOURCE}struct three {{ float x, y, z; }};\n\
             struct mix {{ char c; double d; }};\n\
             double k(struct three t, _Complex double z, _Bool b, int, struct mix m) {{\n\
                 return t.z + __real__ z + b + m.d;\n\
             }}\n\
             _Complex float cf(_Complex float a, long n) {{ return a * n; }}\n"
        ),
    )
    .expect("write source");
    let targets: [&[&str]; 3] = [&[], &["-march=haswell"], &["--target=aarch64-linux-gnu"]];
    for target in targets {
        let opts = ClangOptions {
            opt: Some("2".into()),
            extra: target.iter().map(|a| a.to_string()).collect(),
            ..ClangOptions::default()
        };
        let ctx = Context::create();
        let optimized = load_module(&ctx, &src, &opts).expect("clang -O2");
        for f in ["f", "f2", "g", "h", "k", "cf"] {
            let sig = c_signature(&src, &opts, f).expect("C parameters");
            let types: Vec<String> = optimized
                .get_function(f)
                .expect("defined")
                .get_params()
                .iter()
                .map(|p| p.get_type().print_to_string().to_string())
                .collect();
            assert_eq!(sig.llvm_types, types, "{target:?} @{f}");
            // Every LLVM parameter carries a C parameter or the result.
            let carried: usize = sig.params.iter().map(|p| p.llvm_params.len()).sum();
            assert_eq!(carried + usize::from(sig.sret.is_some()), types.len());
        }
    }
}
