//! Import of every input kind, errors for unsupported input, ABI and loop metadata kept
//! through import and export, emission kinds and LLVM's vectorizer flags, and the LLVM
//! lowering of lanes vector IR.

use std::path::Path;
use std::process::Command;

use arbitrary::Unstructured;
use lanes_ir::generator::{generate, GenConfig};
use lanes_ir::{InstData, Module, WorkItemQuery};
use lanes_llvm::clang::{clang_program, ClangOptions};
use lanes_llvm::driver::{compile_file, compile_module, import_file, CompileOptions};
use lanes_llvm::emit::{EmitKind, TargetOptions};
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::{Context, LlvmError};

use lanes_test_support::scratch_file as tmp;

fn import(p: &Path) -> Module {
    import_file(p, &ClangOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn roundtrips(m: &Module) {
    let text = lanes_ir::write::module_to_string(m);
    let back = lanes_ir::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(lanes_ir::write::module_to_string(&back), text);
}

fn has_inst(m: &Module, f: impl Fn(&InstData) -> bool) -> bool {
    m.functions().any(|(_, func)| {
        func.layout
            .blocks()
            .any(|b| func.layout.block_insts(b).iter().any(|&i| f(func.inst(i))))
    })
}

const LL: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
%pair = type { i32, [3 x i16], double }
@tbl = internal constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16

define i32 @walk(ptr noalias %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %loop ]
  %f = getelementptr inbounds %pair, ptr %p, i32 %i, i32 1, i32 2
  %v = load i16, ptr %f, align 2
  %w = sext i16 %v to i32
  %k = and i32 %i, 3
  %t = getelementptr [4 x i32], ptr @tbl, i64 0, i32 %k
  %tv = load i32, ptr %t, align 4
  %m = call i32 @llvm.smax.i32(i32 %w, i32 %tv)
  %fr = freeze i32 %m
  %acc1 = add i32 %acc, %fr
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit, !llvm.loop !0
exit:
  switch i32 %acc1, label %d [ i32 0, label %z
                               i32 7, label %z ]
z:
  ret i32 -1
d:
  %s = select i1 %c, i32 %acc1, i32 0
  ret i32 %s
}
declare i32 @llvm.smax.i32(i32, i32)
!0 = distinct !{!0, !1, !2, !3}
!1 = !{!"llvm.loop.mustprogress"}
!2 = !{!"llvm.loop.unroll.count", i32 4}
!3 = !{!"llvm.loop.parallel_accesses", !4}
!4 = distinct !{}
"#;

#[test]
fn imports_every_input_kind() {
    // LLVM text: struct/array GEPs, a constant table, intrinsics, freeze, switch, loop hints.
    let m = import(&tmp("walk.ll", LL));
    roundtrips(&m);
    let walk = m
        .function(m.func_by_name("walk").expect("walk"))
        .expect("body");
    assert!(walk.abi.param(0).noalias);
    let hints = &walk.abi.loops;
    assert_eq!(hints.len(), 1);
    let names: Vec<_> = hints[0]
        .hints
        .iter()
        .map(|h| (h.name.as_str(), h.value))
        .collect();
    assert_eq!(
        names,
        [
            ("llvm.loop.mustprogress", None),
            ("llvm.loop.unroll.count", Some(4)),
            ("llvm.loop.parallel_accesses", None)
        ]
    );
    assert_eq!(m.globals.values().next().map(|g| g.size), Some(16));
    assert!(has_inst(&m, |d| matches!(d, InstData::PtrAdd { .. })));
    assert!(has_inst(&m, |d| matches!(d, InstData::Switch { .. })));
    // The loop hints come back out of the export.
    let ctx = Context::create();
    let llm = lanes_llvm::export_module(&ctx, &m, "walk").expect("export");
    let text = llm.print_to_string().to_string();
    assert!(text.contains("llvm.loop.unroll.count"), "{text}");
    assert!(text.contains("llvm.loop.parallel_accesses"), "{text}");
    assert!(text.contains("!llvm.access.group"), "{text}");
    llm.verify().expect("valid access groups");
    assert!(text.contains("noalias"), "{text}");

    // Bitcode from clang.
    let c = tmp("k.c", "int k(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s ^= a[i] << (i & 7); return s; }\n");
    let bc = c.with_extension("bc");
    let st = Command::new(clang_program())
        .args(["-O2", "-c", "-emit-llvm", "-o"])
        .arg(&bc)
        .arg(&c)
        .status()
        .expect("clang-19 runs");
    assert!(st.success());
    let from_bc = import(&bc);
    let from_c = import(&c);
    assert!(from_bc.func_by_name("k").is_some() && from_c.func_by_name("k").is_some());

    // C++ with a template and references.
    let cpp = tmp(
        "t.cpp",
        "template <typename T> static T sq(const T &x) { return x * x; }\n\
         extern \"C\" double norm2(const double *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += sq(v[i]); return s; }\n",
    );
    assert!(import(&cpp).func_by_name("norm2").is_some());

    // OpenCL C: work-item queries and builtins mapped.
    let cl = tmp(
        "v.cl",
        "kernel void v(global float *a, global const float *b) { size_t i = get_global_id(0); a[i] = sqrt(b[i]) + fmax(a[i], 0.5f); }\n",
    );
    let m = import(&cl);
    assert!(has_inst(&m, |d| matches!(
        d,
        InstData::WorkItem {
            query: WorkItemQuery::GlobalId,
            dim: 0
        }
    )));
    assert!(has_inst(&m, |d| matches!(
        d,
        InstData::Intrinsic {
            id: lanes_ir::Intrinsic::Sqrt,
            ..
        }
    )));

    // -D and -I pass through to clang.
    let inc = tmp("inc.h", "#define SCALE 3\n");
    let src = tmp(
        "d.c",
        "#include \"inc.h\"\nint d(int x) { return x * SCALE + OFFSET; }\n",
    );
    let opts = ClangOptions {
        includes: vec![inc.parent().expect("dir").to_path_buf()],
        defines: vec!["OFFSET=11".into()],
        std: Some("c11".into()),
        opt: Some("1".into()),
        extra: vec!["-fno-strict-aliasing".into()],
    };
    let m = import_file(&src, &opts).expect("import with -I/-D");
    let interp = lanes_interp::Interpreter::new(&m);
    let r = interp
        .call_by_name(
            "d",
            &[lanes_interp::RtValue::i32(5)],
            &mut lanes_interp::Memory::new(),
        )
        .expect("runs");
    assert_eq!(r, Some(lanes_interp::RtValue::i32(26)));
}

#[test]
fn unsupported_input_is_an_error_naming_function_instruction_and_line() {
    let src = tmp(
        "bad.c",
        "#include <stdio.h>\nint ok(int x) { return x + 1; }\n\nint chatty(int x) {\n  __asm__ volatile(\"\" : : \"r\"(x));\n  return x;\n}\n",
    );
    match import_file(&src, &ClangOptions::default()) {
        Err(LlvmError::Import(e)) => {
            assert_eq!(e.func.as_deref(), Some("chatty"));
            assert!(
                e.inst.contains("call") && e.inst.contains("asm"),
                "{}",
                e.inst
            );
            assert!(e.message.contains("inline assembly"), "{e}");
            assert_eq!(e.line, 5, "{e}");
            assert!(e.to_string().contains("bad.c:5"), "{e}");
        }
        other => panic!("expected an import error, got {other:?}"),
    }
    let agg = tmp("agg.c", "struct s { long a; double b; };\nstruct s mk(long a) { struct s r = {a, 1.0}; return r; }\n");
    match import_file(&agg, &ClangOptions::default()) {
        Err(LlvmError::Import(e)) => {
            assert_eq!(e.func.as_deref(), Some("mk"));
            assert!(e.message.contains("no lanes equivalent"), "{e}");
        }
        other => panic!("expected an import error, got {other:?}"),
    }
    let wide = tmp("wide.ll", "define i128 @w(i128 %x) {\n  ret i128 %x\n}\n");
    assert!(matches!(
        import_file(&wide, &ClangOptions::default()),
        Err(LlvmError::Import(_))
    ));
    let va = tmp(
        "va.ll",
        "define i32 @a(i32 %n, ...) {\n  %l = alloca [24 x i8]\n  call void @llvm.va_start.p0(ptr %l)\n  %v = va_arg ptr %l, i32\n  ret i32 %v\n}\n",
    );
    match import_file(&va, &ClangOptions::default()) {
        Err(LlvmError::Import(e)) => {
            assert_eq!(e.func.as_deref(), Some("a"));
            assert!(e.message.contains("variadic function definition"), "{e}");
        }
        other => panic!("expected an import error, got {other:?}"),
    }
    // A libm name with the wrong arity is an error, not an out-of-bounds panic.
    let knr = tmp(
        "knr.ll",
        "declare i32 @abs()\ndeclare float @sqrtf()\ndefine i32 @k() {\n  %a = call i32 @abs()\n  %b = call float @sqrtf()\n  ret i32 %a\n}\n",
    );
    match import_file(&knr, &ClangOptions::default()) {
        Err(LlvmError::Import(e)) => assert_eq!(e.func.as_deref(), Some("k"), "{e}"),
        other => panic!("expected an import error, got {other:?}"),
    }
    // Malformed inputs are errors too, never panics.
    for (name, text) in [
        ("junk.ll", "this is not llvm"),
        ("junk.bc", "BC\u{c0}\u{de}garbage"),
        ("junk.c", "int f( {"),
        ("junk.txt", "int f;"),
    ] {
        assert!(
            import_file(&tmp(name, text), &ClangOptions::default()).is_err(),
            "{name}"
        );
    }
}

fn compile_opts(opt: u8, vectorize: bool, emit: EmitKind) -> CompileOptions {
    CompileOptions {
        clang: ClangOptions::default(),
        pipeline: PipelineOptions {
            opt_level: opt,
            loop_vectorize: vectorize,
            slp_vectorize: vectorize,
            verify_each: false,
        },
        target: TargetOptions {
            cpu: Some("x86-64".into()),
            features: Some("+avx2".into()),
            opt_level: opt,
            ..TargetOptions::default()
        },
        emit,
        export: lanes_llvm::ExportOptions::default(),
    }
}

#[test]
fn abi_attributes_survive_import_and_export() {
    let src = tmp(
        "abi.c",
        "struct big { long a, b, c, d; };\n\
         signed char sc(signed char x, unsigned short y) { return x + y; }\n\
         long bsum(struct big b) { return b.a + b.d; }\n\
         struct big mk(long x) { struct big b = {x, x, x, x}; return b; }\n",
    );
    let m = import(&src);
    roundtrips(&m);
    let f = |n: &str| {
        m.function(m.func_by_name(n).expect("function"))
            .expect("body")
    };
    assert!(
        f("sc").abi.param(0).signext && f("sc").abi.param(1).zeroext && f("sc").abi.ret.signext
    );
    assert_eq!(f("bsum").abi.param(0).byval, Some(32));
    assert_eq!(f("mk").abi.param(0).sret, Some(32));
    let ll = compile_module(&m, "abi", &compile_opts(0, false, EmitKind::Llvm)).expect("compiles");
    let ll = String::from_utf8_lossy(&ll);
    for needle in [
        "signext i8 @sc(i8 signext",
        "zeroext",
        "byval([32 x i8])",
        "sret([32 x i8])",
    ] {
        assert!(ll.contains(needle), "missing {needle} in\n{ll}");
    }
}

#[test]
fn emission_kinds_targets_and_vectorizer_flags() {
    let src = tmp(
        "vec.c",
        "void add(float *restrict a, const float *restrict b, int n) { for (int i = 0; i < n; i++) a[i] += b[i] * 2.0f; }\n",
    );
    let obj = compile_file(&src, &compile_opts(2, true, EmitKind::Object)).expect("object");
    assert_eq!(&obj[..4], b"\x7fELF");
    let on = compile_file(&src, &compile_opts(3, true, EmitKind::Asm)).expect("asm");
    let on = String::from_utf8_lossy(&on);
    assert!(
        on.contains("ymm"),
        "LLVM's loop vectorizer with AVX2 should use ymm:\n{on}"
    );
    let off = compile_file(&src, &compile_opts(3, false, EmitKind::Asm)).expect("asm");
    let off = String::from_utf8_lossy(&off);
    assert!(!off.contains("ymm"), "vectorizers off:\n{off}");
    let ll = compile_file(&src, &compile_opts(1, false, EmitKind::Llvm)).expect("llvm");
    assert!(String::from_utf8_lossy(&ll).contains("define"));
    // Cross compilation for AArch64.
    let mut cross = compile_opts(2, true, EmitKind::Asm);
    cross.target = TargetOptions {
        triple: Some("aarch64-linux-gnu".into()),
        opt_level: 2,
        ..TargetOptions::default()
    };
    cross.clang.extra.push("--target=aarch64-linux-gnu".into());
    let asm = compile_file(&src, &cross).expect("aarch64 asm");
    let asm = String::from_utf8_lossy(&asm);
    // `a[i] += b[i] * 2.0f` is `llvm.fmuladd`, which AArch64 fuses as clang does.
    assert!(
        asm.contains("ret") && asm.contains("fmadd") && !asm.contains("%rsp"),
        "{asm}"
    );
}

#[test]
fn vector_ir_lowers_to_llvm_vector_intrinsics() {
    let mut seen = std::collections::BTreeSet::new();
    let wanted = [
        "llvm.masked.load",
        "llvm.masked.store",
        "llvm.masked.gather",
        "llvm.masked.scatter",
        "llvm.vector.reduce.add",
        "llvm.vector.reduce.or",
        "llvm.fptosi.sat",
        "llvm.minnum",
        "shufflevector",
    ];
    let ctx = Context::create();
    for seed in 0..80u64 {
        let bytes = lanes_test_support::seeded_bytes(seed, 8192);
        let cfg = GenConfig {
            vector_width: Some(8),
            ..GenConfig::default()
        };
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generates");
        let llm = lanes_llvm::export_module(&ctx, &g.module, "v").expect("exports");
        llm.verify().expect("valid LLVM");
        let text = llm.print_to_string().to_string();
        for w in wanted {
            if text.contains(w) {
                seen.insert(w);
            }
        }
    }
    let missing: Vec<_> = wanted.iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "never exported: {missing:?}");
}

#[test]
fn saturating_arithmetic_and_expect_import_exactly() {
    let ll = tmp(
        "sat.ll",
        "define i8 @sat(i8 %a, i8 %b, i32 %k) {\n\
         \x20 %e = call i32 @llvm.expect.i32(i32 %k, i32 0)\n\
         \x20 switch i32 %e, label %d [ i32 0, label %ua\n i32 1, label %us\n i32 2, label %sa ]\n\
         ua:\n  %x = call i8 @llvm.uadd.sat.i8(i8 %a, i8 %b)\n  ret i8 %x\n\
         us:\n  %y = call i8 @llvm.usub.sat.i8(i8 %a, i8 %b)\n  ret i8 %y\n\
         sa:\n  %z = call i8 @llvm.sadd.sat.i8(i8 %a, i8 %b)\n  ret i8 %z\n\
         d:\n  %w = call i8 @llvm.ssub.sat.i8(i8 %a, i8 %b)\n  ret i8 %w\n}\n\
         declare i32 @llvm.expect.i32(i32, i32)\ndeclare i8 @llvm.uadd.sat.i8(i8, i8)\n\
         declare i8 @llvm.usub.sat.i8(i8, i8)\ndeclare i8 @llvm.sadd.sat.i8(i8, i8)\n\
         declare i8 @llvm.ssub.sat.i8(i8, i8)\n",
    );
    let m = import(&ll);
    let interp = lanes_interp::Interpreter::new(&m);
    let mut checked = 0;
    for a in (-128i32..128).step_by(7).chain([127, -128, 0, -1]) {
        for b in (-128i32..128).step_by(11).chain([127, -128, 0, 1]) {
            let (ua, ub) = (a as u8, b as u8);
            let (sa, sb) = (a as i8, b as i8);
            let want = [
                ua.saturating_add(ub) as i8,
                ua.saturating_sub(ub) as i8,
                sa.saturating_add(sb),
                sa.saturating_sub(sb),
            ];
            for (k, w) in want.into_iter().enumerate() {
                let args = [
                    lanes_interp::RtValue::i8(sa),
                    lanes_interp::RtValue::i8(sb),
                    lanes_interp::RtValue::i32(k as i32),
                ];
                let r = interp
                    .call_by_name("sat", &args, &mut lanes_interp::Memory::new())
                    .expect("runs");
                assert_eq!(r, Some(lanes_interp::RtValue::i8(w)), "op {k} on {a}, {b}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn globals_keep_their_contents_and_mutability() {
    let src = tmp(
        "glob.c",
        "static int counter;\nint hist[4] = {1, 2, 3, 4};\nstatic const short tbl[3] = {-5, 6, 7};\n\
         int bump(int x) { counter += x + tbl[x & 1]; hist[x & 3]++; return counter + hist[x & 3]; }\n",
    );
    let m = import(&src);
    roundtrips(&m);
    let g = |name: &str| {
        m.globals
            .values()
            .find(|g| g.name.contains(name))
            .unwrap_or_else(|| panic!("global {name}"))
    };
    assert!(!g("counter").constant && g("counter").init.is_none());
    assert_eq!(
        g("hist").init.as_deref(),
        Some(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0][..])
    );
    assert!(g("tbl").constant);
    let interp = lanes_interp::Interpreter::new(&m);
    let mut mem = lanes_interp::Memory::new();
    interp.init_globals(&mut mem).expect("globals");
    let call = |mem: &mut lanes_interp::Memory, x: i32| {
        interp
            .call_by_name("bump", &[lanes_interp::RtValue::i32(x)], mem)
            .expect("runs")
    };
    // counter = 2 + tbl[0] = -3, hist[2] = 4 → 1; then counter = -3 + 3 + 6 = 6, hist[3] = 5 → 11.
    assert_eq!(call(&mut mem, 2), Some(lanes_interp::RtValue::i32(1)));
    assert_eq!(call(&mut mem, 3), Some(lanes_interp::RtValue::i32(11)));
    // The export defines them again: writable ones external, constant tables internal.
    let ll = compile_module(&m, "glob", &compile_opts(0, false, EmitKind::Llvm)).expect("compiles");
    let ll = String::from_utf8_lossy(&ll);
    assert!(ll.contains("@hist = global [16 x i8]"), "{ll}");
    assert!(
        ll.contains("internal unnamed_addr constant [6 x i8]"),
        "{ll}"
    );
}

/// The `llvm.*` intrinsics clang emits for scalar code, each checked by running the import.
const INTRINSICS_LL: &str = r#"
define float @fl(float %a, float %b, float %c) {
  %m = call float @llvm.fmuladd.f32(float %a, float %b, float %c)
  %f = call float @llvm.fabs.f32(float %m)
  %s = call float @llvm.sqrt.f32(float %f)
  %n = call float @llvm.minnum.f32(float %s, float 1.0e3)
  %x = call float @llvm.maxnum.f32(float %n, float %c)
  ret float %x
}
define i32 @in(i32 %a, i32 %b) {
  %p = icmp sgt i32 %b, -100
  call void @llvm.assume(i1 true)
  %abs = call i32 @llvm.abs.i32(i32 %a, i1 false)
  %u = call i32 @llvm.umin.i32(i32 %abs, i32 %b)
  %s = call i32 @llvm.smax.i32(i32 %u, i32 -7)
  %c = call i32 @llvm.ctpop.i32(i32 %s)
  %r = add i32 %s, %c
  ret i32 %r
}
define i32 @mem(i32 %v) {
  %a = alloca [16 x i8], align 4
  %b = alloca [16 x i8], align 4
  call void @llvm.lifetime.start.p0(i64 16, ptr %a)
  %t = trunc i32 %v to i8
  call void @llvm.memset.p0.i64(ptr %a, i8 %t, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 16, i1 false)
  %q = getelementptr inbounds i8, ptr %b, i64 12
  %w = load i32, ptr %q, align 4
  call void @llvm.lifetime.end.p0(i64 16, ptr %a)
  ret i32 %w
}
define i32 @un(i32 %x) {
  %c = icmp eq i32 %x, 0
  br i1 %c, label %a, label %b
a:
  unreachable
b:
  ret i32 %x
}
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare void @llvm.assume(i1)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.ctpop.i32(i32)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"#;

#[test]
fn clang_intrinsics_import_with_their_meaning() {
    use lanes_interp::{Interpreter, Memory, RtValue};
    let m = import(&tmp("intr.ll", INTRINSICS_LL));
    roundtrips(&m);
    assert!(has_inst(&m, |d| matches!(d, InstData::Unreachable)));
    let interp = Interpreter::new(&m);
    let run = |f: &str, args: &[RtValue]| {
        interp
            .call_by_name(f, args, &mut Memory::new())
            .unwrap_or_else(|e| panic!("@{f}: {e}"))
            .expect("a result")
    };
    for (a, b, c) in [
        (3.0f32, -4.0, 2.5),
        (1e20, 1e20, 0.0),
        (-2.0, 8.0, f32::NAN),
        (0.5, 0.5, -1.0),
    ] {
        // `llvm.fmuladd` stays `fmuladd`, which the interpreter fuses.
        let want = (a.mul_add(b, c).abs().sqrt().min(1e3)).max(c);
        let want = if c.is_nan() {
            a.mul_add(b, c).abs().sqrt().min(1e3)
        } else {
            want
        };
        let got = run("fl", &[RtValue::f32(a), RtValue::f32(b), RtValue::f32(c)]);
        assert!(
            got.same_as(&RtValue::f32(want)),
            "fl({a}, {b}, {c}) = {got:?}, want {want}"
        );
    }
    for (a, b) in [(-5i32, 3i32), (i32::MIN, -1), (17, 100), (-1000, -2000)] {
        let s = (a.unsigned_abs().min(b as u32) as i32).max(-7);
        let want = s + s.count_ones() as i32;
        assert_eq!(
            run("in", &[RtValue::i32(a), RtValue::i32(b)]),
            RtValue::i32(want),
            "in({a}, {b})"
        );
    }
    assert_eq!(
        run("mem", &[RtValue::i32(0x1ab)]),
        RtValue::i32(0xabababab_u32 as i32)
    );
    assert_eq!(run("un", &[RtValue::i32(5)]), RtValue::i32(5));
}
