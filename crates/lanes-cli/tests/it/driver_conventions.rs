//! `lanes compile`, `import` and `vectorize` follow a compiler driver's conventions: `-`
//! reads standard input and `-o -` writes standard output, the output kind follows
//! `-c`/`-S`/`-emit-llvm`, a suffix naming another kind is an error, and a translation unit
//! with constructs lanes IR lacks (inline assembly, `va_arg`, `long double`) still compiles,
//! those functions reported by `--remarks`/`--remarks-json` with their source line, and
//! function attributes (`noreturn`, `returns_twice`, `cold`, …) reach the output.

use crate::common;

use std::io::Write as _;
use std::process::{Command, Stdio};

use common::{clang, run, s, scratch_dir, scratch_file};

fn lanes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
}

const PROGRAM: &str = r#"#include <stdio.h>
static int g = 7;
static int *p = &g;
volatile int flag = 1;
extern int external_value;
int external_value = 35;
int twice(int x) { return 2 * x; }
__attribute__((noinline)) int spin(void) { while (!flag) {} return flag; }
__attribute__((noinline)) int asmf(int x) { __asm__ volatile("" : "+r"(x)); return x; }
int main(void) {
    printf("%d %d %d\n", twice(*p), spin(), asmf(external_value));
    return 0;
}
"#;

#[test]
fn stdin_in_stdout_out_and_kinds_by_flag() {
    let d = scratch_dir("driver-conventions");
    // `-` in (C by default), `-o -` out: an object on standard output.
    let mut child = lanes()
        .args(["compile", "-O2", "-c", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lanes runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(PROGRAM.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("lanes finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&out.stdout[..4], b"\x7fELF", "an ELF object on stdout");
    let obj = d.join("prog.o");
    std::fs::write(&obj, &out.stdout).expect("write object");
    let exe = d.join("prog");
    run(clang().arg(&obj).arg("-o").arg(&exe));
    let printed = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&printed.stdout), "14 1 35\n");

    let src = d.join("prog.c");
    std::fs::write(&src, PROGRAM).expect("write source");
    // -S -emit-llvm: text; -c -emit-llvm: bitcode.
    let ll = d.join("prog.ll");
    run(lanes().args(["compile", "-S", "-emit-llvm", s(&src), "-o", s(&ll)]));
    let text = std::fs::read_to_string(&ll).expect("read .ll");
    assert!(text.contains("define"), "{text}");
    assert!(text.contains("load volatile"), "volatile kept:\n{text}");
    let bc = d.join("prog.bc");
    run(lanes().args(["compile", "-c", "-emit-llvm", s(&src), "-o", s(&bc)]));
    assert_eq!(&std::fs::read(&bc).expect("read .bc")[..2], b"BC");
    // A suffix naming another kind, or none lanes writes, is refused.
    for (flags, out) in [(vec!["-c"], "prog.docx"), (vec!["-S"], "other.o")] {
        let o = d.join(out);
        let r = lanes()
            .arg("compile")
            .args(&flags)
            .args([s(&src), "-o", s(&o)])
            .output()
            .expect("lanes runs");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{err}");
        assert!(err.contains(out), "{err}");
        assert!(!o.exists(), "{out} written anyway");
    }
}

#[test]
fn functions_lanes_cannot_express_stay_llvm_and_are_reported() {
    let d = scratch_dir("driver-remarks");
    let src = d.join("prog.c");
    std::fs::write(&src, PROGRAM).expect("write source");
    let obj = d.join("prog.o");
    let json = d.join("remarks.json");
    let out = run(lanes()
        .args(["compile", "-O2", "-c", s(&src), "-o", s(&obj), "--remarks"])
        .args(["--remarks-json", s(&json)]));
    let err = String::from_utf8_lossy(&out.stderr);
    // `asmf` (inline assembly) at line 9; `spin` (a volatile loop) and `main` (a variadic
    // `printf`) are lanes IR.
    assert!(
        err.contains("prog.c:9: remark: @asmf: function left as LLVM IR: inline assembly"),
        "{err}"
    );
    let remarks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    let kept: Vec<&str> = remarks
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["name"] == "KeptAsLLVM")
        .map(|r| r["function"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kept, ["asmf"]);
    let exe = d.join("prog");
    run(clang().arg(&obj).arg("-o").arg(&exe));
    let printed = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&printed.stdout), "14 1 35\n");
}

#[test]
fn import_and_vectorize_write_standard_output() {
    let d = scratch_dir("driver-stdout");
    let src = d.join("k.c");
    std::fs::write(&src, "void k(long i, float *x) { x[i] += 1.0f; }\n").expect("write");
    let out = run(lanes().args(["import", s(&src), "-o", "-"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("function @k("));
    let out = run(lanes().args([
        "vectorize",
        s(&src),
        "--function",
        "k",
        "--shapes",
        "c,u",
        "-o",
        "-",
    ]));
    assert_eq!(&out.stdout[..4], b"\x7fELF");
    assert!(!std::path::Path::new("-").exists(), "no file named '-'");
    let bad = lanes()
        .args([
            "vectorize",
            s(&src),
            "--function",
            "k",
            "-o",
            s(&d.join("k.docx")),
        ])
        .output()
        .expect("lanes runs");
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn module_level_import_errors_have_a_line() {
    let d = scratch_dir("driver-module-errors");
    let src = d.join("glob.c");
    std::fs::write(
        &src,
        "int g = 3;\nint *p = &g;\nint get(void) {\n  return *p;\n}\n",
    )
    .expect("write");
    let r = lanes()
        .args(["import", s(&src), "-o", s(&d.join("glob.lir"))])
        .output()
        .expect("lanes runs");
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("glob.c:4"), "{err}");
    assert!(err.contains("@p = "), "{err}");
    // lanes compile takes the same file: the global stays with clang's module.
    let obj = d.join("glob.o");
    run(lanes().args(["compile", "-c", s(&src), "-o", s(&obj)]));
}

/// `_Thread_local`, an external global, a function pointer in a global, a 12-byte struct
/// returned by value, a 24-bit bitfield, `long double`, `__int128`, `_Complex`, a VLA,
/// `_Atomic`, inline asm, computed goto, varargs and setjmp/longjmp in one file: lanes
/// compiles it at -O0, -O2 and -O3 -march=native, and it prints what clang's build prints.
#[test]
fn every_construct_clang_takes_compiles_and_runs_the_same() {
    let d = scratch_dir("driver-constructs");
    let src = common::data("constructs.c");
    for (tag, flags) in [
        ("O0", vec!["-O0"]),
        ("O2", vec!["-O2"]),
        ("O3", vec!["-O3", "-march=native"]),
    ] {
        let reference = d.join(format!("ref{tag}"));
        run(clang()
            .args(&flags)
            .args(["-w", s(&src), "-lm", "-o", s(&reference)]));
        let obj = d.join(format!("lanes{tag}.o"));
        let out = run(lanes().arg("compile").args(&flags).args([
            "-w",
            "-c",
            s(&src),
            "-o",
            s(&obj),
            "--remarks",
        ]));
        let remarks = String::from_utf8_lossy(&out.stderr);
        // The function without any such construct went through lanes.
        assert!(!remarks.contains("@sq:"), "{remarks}");
        assert!(
            remarks.contains("@asmf: function left as LLVM IR"),
            "{remarks}"
        );
        let exe = d.join(format!("lanes{tag}"));
        run(clang().arg(&obj).args(["-lm", "-o", s(&exe)]));
        let want = run(&mut Command::new(&reference)).stdout;
        let got = run(&mut Command::new(&exe)).stdout;
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{tag}"
        );
    }
}

/// Function and parameter attributes clang put on the functions, kept through lanes: the
/// LLVM functions are clang's own, with lanes' bodies written into them.
#[test]
fn function_attributes_reach_the_output() {
    let d = scratch_dir("driver-attributes");
    let src = d.join("attrs.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\n\
         _Noreturn void die(int code) { exit(code); }\n\
         __attribute__((returns_twice)) int again(void);\n\
         __attribute__((cold, noinline)) int rare(int x) { return x * 3; }\n\
         int use(int *restrict a, const int *restrict b) { if (*a < 0) die(1); return *a + *b + rare(*b); }\n\
         int jumpy(void) { return again(); }\n",
    )
    .expect("write source");
    let ll = d.join("attrs.ll");
    let out = run(lanes().args([
        "compile",
        "-O2",
        "-S",
        "-emit-llvm",
        s(&src),
        "-o",
        s(&ll),
        "--remarks",
    ]));
    // Only the caller of the returns-twice function stays LLVM IR.
    let remarks = String::from_utf8_lossy(&out.stderr);
    assert!(
        remarks.contains("@jumpy: function left as LLVM IR"),
        "{remarks}"
    );
    for f in ["@die:", "@rare:", "@use:"] {
        assert!(!remarks.contains(f), "{remarks}");
    }
    let text = std::fs::read_to_string(&ll).expect("LLVM text");
    let attrs_of = |f: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with("define") && l.contains(&format!("@{f}(")))
            .unwrap_or_else(|| panic!("no @{f}:\n{text}"));
        let group = line
            .rsplit('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("");
        let groups: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&format!("attributes #{group} ")))
            .collect();
        format!("{line} {}", groups.join(" "))
    };
    assert!(attrs_of("die").contains("noreturn"), "{text}");
    assert!(
        attrs_of("rare").contains("cold") && attrs_of("rare").contains("noinline"),
        "{text}"
    );
    let uses = attrs_of("use");
    assert!(uses.contains("noalias"), "{uses}");
    let decl = text
        .lines()
        .find(|l| l.starts_with("declare") && l.contains("@again("))
        .expect("again declared");
    let group = decl.rsplit('#').next().unwrap_or("").trim();
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("attributes #{group} ")) && l.contains("returns_twice")),
        "{text}"
    );
}

/// clang -O2 gives internal functions the `fast` calling convention; a call lanes rebuilds
/// keeps the callee's convention (a mismatch is undefined behaviour, and LLVM deleted the
/// rest of csmith's `main` after such a call).
#[test]
fn calls_keep_the_callees_calling_convention() {
    let d = scratch_dir("driver-callconv");
    let src = d.join("fcc.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n\
         static unsigned crc;\n\
         __attribute__((noinline)) static void mix(unsigned long v, const char *name, int flag) {\n\
           crc = crc * 31 + (unsigned)v; if (flag) printf(\"%s\\n\", name); }\n\
         int main(int argc, char **argv) {\n\
           for (int i = 0; i < 10; i++) mix(i, \"x\", argc > 5);\n\
           printf(\"checksum = %X\\n\", crc); return 0; }\n",
    )
    .expect("write source");
    let ll = d.join("fcc.ll");
    run(lanes().args(["compile", "-O2", "-S", "-emit-llvm", s(&src), "-o", s(&ll)]));
    let text = std::fs::read_to_string(&ll).expect("LLVM text");
    assert!(
        text.lines().any(|l| l.contains("call fastcc void @mix(")),
        "{text}"
    );
    let obj = d.join("fcc.o");
    run(lanes().args(["compile", "-O2", "-c", s(&src), "-o", s(&obj)]));
    let exe = d.join("fcc");
    run(clang().arg(&obj).arg("-o").arg(&exe));
    let reference = d.join("fcc-ref");
    run(clang().args(["-O2", s(&src), "-o", s(&reference)]));
    let want = run(&mut Command::new(&reference)).stdout;
    let got = run(&mut Command::new(&exe)).stdout;
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    assert!(String::from_utf8_lossy(&got).starts_with("checksum = "));
}

#[test]
fn the_last_march_wins_as_with_clang() {
    // Build systems append flags: `-march=native ... -march=haswell` compiles for Haswell.
    let src = scratch_file(
        "scale.c",
        "void scale(int n, float *x) {\n#pragma omp simd\n  for (int i = 0; i < n; i++) x[i] *= 2.0f;\n}\n",
    );
    let d = scratch_dir("march-twice");
    let zmm = |first: &str, last: &str| {
        let out = d.join(format!("{first}-{last}.s"));
        run(lanes()
            .args(["compile", "-fopenmp-simd", "-O2", "-S"])
            .args([format!("-march={first}"), format!("-march={last}")])
            .args([s(&src), "-o", s(&out)]));
        std::fs::read_to_string(&out)
            .expect("read assembly")
            .contains("zmm")
    };
    assert!(
        zmm("haswell", "skylake-avx512"),
        "skylake-avx512 last: 512-bit code"
    );
    assert!(!zmm("skylake-avx512", "haswell"), "haswell last: no zmm");
}
