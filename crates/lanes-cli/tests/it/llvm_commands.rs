//! End-to-end tests of `lanes import` and `lanes compile`: the
//! binary imports C into verified `.lir`, and compiles C and `.lir` into objects that link
//! into a clang-19 program, into assembly and into LLVM IR; failures exit with status 1 and
//! a message naming the function, never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lanes(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(args)
        .output()
        .expect("lanes runs")
}

fn dir() -> PathBuf {
    lanes_test_support::scratch_dir("llvm-commands")
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).expect("write");
    p
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const LIB: &str = "struct big { long a, b, c, d; };\n\
    signed char clampc(int x) { return x > 127 ? 127 : x < -128 ? -128 : (signed char)x; }\n\
    long total(struct big b) { return b.a + b.b + b.c + b.d; }\n\
    struct big twice(struct big b) { struct big r = {2 * b.a, 2 * b.b, 2 * b.c, 2 * b.d}; return r; }\n\
    int scale(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * SCALE; return s; }\n";

const MAIN: &str = "#include <stdio.h>\n\
    struct big { long a, b, c, d; };\n\
    signed char clampc(int); long total(struct big); struct big twice(struct big); int scale(const int *, int);\n\
    int main(void) { struct big b = {1, 2, 3, 4}; struct big t = twice(b); int a[4] = {1, 2, 3, 4};\n\
    printf(\"%d %d %ld %ld %ld %d\\n\", clampc(1000), clampc(-7), total(b), t.d, total(t), scale(a, 4)); return 0; }\n";

#[test]
fn import_writes_verified_lir() {
    let lib = write("lib.c", LIB);
    let out = dir().join("lib.lir");
    let r = lanes(&[
        "import",
        s(&lib),
        "-o",
        s(&out),
        "-D",
        "SCALE=3",
        "-O",
        "1",
        "--std",
        "c11",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).expect("lir");
    assert!(
        text.contains("function @total(v0: ptr align 8 byval(32))"),
        "{text}"
    );
    assert!(text.contains("-> i8 signext"), "{text}");
    assert!(text.contains("sret(32)"), "{text}");
    let v = lanes(&["verify", s(&out)]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
}

#[test]
fn compiled_objects_link_into_clang_programs() {
    let lib = write("lib2.c", LIB);
    let obj = dir().join("lib2.o");
    let r = lanes(&[
        "compile",
        s(&lib),
        "-c",
        "-o",
        s(&obj),
        "-D",
        "SCALE=5",
        "-O",
        "2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let main = write("main.c", MAIN);
    let exe = dir().join("prog");
    let st = Command::new("clang-19")
        .arg(&main)
        .arg(&obj)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(st.success());
    let run = Command::new(&exe).output().expect("program runs");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "127 -7 10 8 20 50\n");

    // clang's own spelling of the options works too.
    let obj2 = dir().join("lib2b.o");
    let r = lanes(&[
        "compile",
        "-std=c11",
        "-march=x86-64-v2",
        "-g",
        "-Wall",
        "-fPIC",
        "-DSCALE=5",
        "-O2",
        "-c",
        s(&lib),
        "-o",
        s(&obj2),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));

    // Assembly and LLVM IR, for the host and for a named CPU.
    let asm = dir().join("lib2.s");
    let r = lanes(&[
        "compile",
        s(&lib),
        "-S",
        "-o",
        s(&asm),
        "-D",
        "SCALE=5",
        "--target-cpu",
        "skylake",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::read_to_string(&asm)
        .expect("asm")
        .contains("total:"));
    let ll = dir().join("lib2.ll");
    let r = lanes(&[
        "compile",
        s(&lib),
        "--emit",
        "llvm",
        "-o",
        s(&ll),
        "-D",
        "SCALE=5",
        "--no-vectorize",
        "--no-slp-vectorize",
        "--target-features",
        "+avx2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&ll).expect("ll");
    assert!(
        // clang's own module is kept: its byval type, not lanes' byte array.
        text.contains("byval(%struct.big)") && text.contains("signext"),
        "{text}"
    );

    // A .lir file compiles too (the path vector IR takes to LLVM).
    let lir = dir().join("lib3.lir");
    let r = lanes(&["import", s(&lib), "-o", s(&lir), "-D", "SCALE=5"]);
    assert!(r.status.success());
    let obj3 = dir().join("lib3.o");
    let r = lanes(&["compile", s(&lir), "-c", "-o", s(&obj3)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn unsupported_code_is_located_in_import_and_kept_by_compile() {
    let bad = write(
        "bad.c",
        "#include <stdio.h>\nint shout(int x) {\n  __asm__ volatile(\"\" : \"+r\"(x));\n  return x;\n}\n",
    );
    // `lanes import` must express every function in .lir: an error at the source line.
    let r = lanes(&["import", s(&bad), "-o", s(&dir().join("bad.lir"))]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("@shout") && err.contains("bad.c:3") && err.contains("inline assembly"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // `lanes compile` keeps the function as LLVM IR and says so at the same line.
    let r = lanes(&[
        "compile",
        s(&bad),
        "-c",
        "-o",
        s(&dir().join("bad.o")),
        "--remarks",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(
        err.contains("bad.c:3: remark: @shout: function left as LLVM IR")
            && err.contains("inline assembly"),
        "{err}"
    );
    let r = lanes(&["import", s(&write("x.rs", "fn main() {}"))]);
    assert_eq!(r.status.code(), Some(1));
}
