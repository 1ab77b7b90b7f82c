//! The C corpus (`corpus/c`), checked three ways.
//!
//! Every corpus function carries a `//@ name(args) -> result` line saying how to call it.
//! From it this test draws inputs (edge values such as `INT_MIN`, NaN, ±∞, −0 mixed with
//! random ones, buffers of random bytes) and
//! 1. writes a C driver with the inputs as literals, printing each result and every buffer
//!    after the call; the driver is built with the corpus by clang-19 -O2 for generic
//!    x86-64, and by clang-19 -O3 -march=native;
//! 2. builds the same driver, with clang-19, against objects that `lanes compile` (the
//!    library's `compile_module`; -O2 for generic x86-64, and again -O3 for the host CPU
//!    with LLVM's vectorizers) made from the corpus — so linking a lanes object into a
//!    clang program is exercised for every function;
//! 3. imports the corpus into lanes IR (from clang -O2, and from clang -O0) and runs each
//!    function in the interpreter.
//!
//! All must agree bit for bit (a NaN equals any NaN in float results and buffers), each
//! lanes object with clang's build for the same target: clang emits `llvm.fmuladd` for
//! `a * b + c` (`-ffp-contract=on`), which lanes keeps, and the backend fuses it on a CPU
//! with FMA and not on generic x86-64. The interpreter fuses `fmuladd`, so it is compared
//! with the host build when the host has FMA; without FMA, with the generic build, except
//! for functions that reach an `fmuladd` (counted and reported).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, Module, ScalarType, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::{compile_module, import_file, CompileOptions};
use lanes_llvm::emit::{EmitKind, TargetOptions};
use lanes_llvm::pipeline::PipelineOptions;
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

/// Calls per function.
const CALLS: usize = 12;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Sc {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Sc {
    fn parse(s: &str) -> Sc {
        match s {
            "i8" => Sc::I8,
            "u8" => Sc::U8,
            "i16" => Sc::I16,
            "u16" => Sc::U16,
            "i32" => Sc::I32,
            "u32" => Sc::U32,
            "i64" => Sc::I64,
            "u64" => Sc::U64,
            "f32" => Sc::F32,
            "f64" => Sc::F64,
            _ => panic!("unknown scalar kind {s}"),
        }
    }
    fn c(self) -> &'static str {
        match self {
            Sc::I8 => "signed char",
            Sc::U8 => "unsigned char",
            Sc::I16 => "short",
            Sc::U16 => "unsigned short",
            Sc::I32 => "int",
            Sc::U32 => "unsigned",
            Sc::I64 => "long long",
            Sc::U64 => "unsigned long long",
            Sc::F32 => "float",
            Sc::F64 => "double",
        }
    }
    fn bytes(self) -> usize {
        match self {
            Sc::I8 | Sc::U8 => 1,
            Sc::I16 | Sc::U16 => 2,
            Sc::I32 | Sc::U32 | Sc::F32 => 4,
            _ => 8,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Sc::F32 | Sc::F64)
    }
    fn signed(self) -> bool {
        matches!(self, Sc::I8 | Sc::I16 | Sc::I32 | Sc::I64)
    }
}

#[derive(Clone, Debug)]
enum Arg {
    Scalar(Sc),
    Range(Sc, i64, i64),
    FRange(Sc, f64, f64),
    Buf(Sc, usize),
    Byval(String, usize),
}

#[derive(Clone, Debug)]
enum Ret {
    Void,
    Scalar(Sc),
    Sret(String, usize),
}

#[derive(Clone, Debug)]
struct Spec {
    name: String,
    args: Vec<Arg>,
    ret: Ret,
}

fn parse_spec(line: &str) -> Spec {
    let line = line.trim_start_matches("//@").trim();
    let (head, ret) = line.split_once("->").expect("`->` in spec");
    let (name, args) = head.trim().split_once('(').expect("`(` in spec");
    let args = args.trim().trim_end_matches(')');
    let args = args
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(|a| {
            let w: Vec<&str> = a.split_whitespace().collect();
            match w[0] {
                "range" => Arg::Range(
                    Sc::parse(w[1]),
                    w[2].parse().unwrap(),
                    w[3].parse().unwrap(),
                ),
                "frange" => Arg::FRange(
                    Sc::parse(w[1]),
                    w[2].parse().unwrap(),
                    w[3].parse().unwrap(),
                ),
                "buf" => Arg::Buf(Sc::parse(w[1]), w[2].parse().unwrap()),
                "byval" => Arg::Byval(w[1].to_string(), w[2].parse().unwrap()),
                s => Arg::Scalar(Sc::parse(s)),
            }
        })
        .collect();
    let w: Vec<&str> = ret.split_whitespace().collect();
    let ret = match w[0] {
        "void" => Ret::Void,
        "sret" => Ret::Sret(w[1].to_string(), w[2].parse().unwrap()),
        s => Ret::Scalar(Sc::parse(s)),
    };
    Spec {
        name: name.trim().to_string(),
        args,
        ret,
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/c")
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus/c exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

/// Raw bits of a random scalar of kind `sc`, edge values included.
fn scalar_bits(rng: &mut SmallRng, sc: Sc) -> u64 {
    let bits = sc.bytes() as u32 * 8;
    if sc.is_float() {
        let x: f64 = match rng.gen_range(0..5) {
            0 => [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e30,
                -1e-30,
            ][rng.gen_range(0..7)],
            1 => rng.gen_range(-4.0..4.0),
            2 => rng.gen_range(-1e6..1e6),
            _ => rng.gen_range(-100.0..100.0),
        };
        return if sc == Sc::F32 {
            u64::from((x as f32).to_bits())
        } else {
            x.to_bits()
        };
    }
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let x: u64 = match rng.gen_range(0..4) {
        0 => {
            let min = if sc.signed() { 1u64 << (bits - 1) } else { 0 };
            [0, 1, mask, min, min.wrapping_sub(1) & mask, 2][rng.gen_range(0..6)]
        }
        1 => rng.gen_range(-20i64..20) as u64,
        _ => rng.gen(),
    };
    x & mask
}

#[derive(Clone, Debug)]
enum Val {
    Bits(Sc, u64),
    Bytes(Vec<u8>),
}

fn draw(rng: &mut SmallRng, arg: &Arg) -> Val {
    match arg {
        Arg::Scalar(sc) => Val::Bits(*sc, scalar_bits(rng, *sc)),
        Arg::Range(sc, lo, hi) => {
            let x = rng.gen_range(*lo..=*hi) as u64;
            let m = if sc.bytes() == 8 {
                u64::MAX
            } else {
                (1u64 << (sc.bytes() * 8)) - 1
            };
            Val::Bits(*sc, x & m)
        }
        Arg::FRange(sc, lo, hi) => {
            let x = rng.gen_range(*lo..*hi);
            Val::Bits(
                *sc,
                if *sc == Sc::F32 {
                    u64::from((x as f32).to_bits())
                } else {
                    x.to_bits()
                },
            )
        }
        Arg::Buf(sc, n) => {
            let mut out = Vec::new();
            for _ in 0..*n {
                let b = if rng.gen_range(0..3) == 0 {
                    rng.next_u64()
                } else {
                    scalar_bits(rng, *sc)
                };
                out.extend_from_slice(&b.to_le_bytes()[..sc.bytes()]);
            }
            Val::Bytes(out)
        }
        Arg::Byval(_, size) => {
            let mut out = vec![0; *size];
            for chunk in out.chunks_mut(8) {
                let kind = if rng.gen() { Sc::F64 } else { Sc::I64 };
                let b = scalar_bits(rng, kind).to_le_bytes();
                chunk.copy_from_slice(&b[..chunk.len()]);
            }
            Val::Bytes(out)
        }
    }
}

fn bytes_lit(b: &[u8]) -> String {
    let mut s = String::from("{");
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{x}");
    }
    s.push('}');
    s
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The C driver calling every function on `inputs`.
fn driver(specs: &[Spec], inputs: &[Vec<Vec<Val>>]) -> String {
    let mut c = String::from(
        "#include <stdio.h>\n#include <string.h>\n#include \"corpus.h\"\n\
         static void hex(const void *p, int n) { const unsigned char *b = p; for (int i = 0; i < n; i++) printf(\"%02x\", b[i]); }\n\
         static float f32b(unsigned u) { float f; memcpy(&f, &u, 4); return f; }\n\
         static double f64b(unsigned long long u) { double f; memcpy(&f, &u, 8); return f; }\n",
    );
    for s in specs {
        let ret = match &s.ret {
            Ret::Void => "void".to_string(),
            Ret::Scalar(sc) => sc.c().to_string(),
            Ret::Sret(name, _) => format!("struct {name}"),
        };
        let args: Vec<String> = s
            .args
            .iter()
            .map(|a| match a {
                Arg::Scalar(sc) | Arg::Range(sc, ..) | Arg::FRange(sc, ..) => sc.c().to_string(),
                Arg::Buf(..) => "void *".to_string(),
                Arg::Byval(name, _) => format!("struct {name}"),
            })
            .collect();
        let _ = writeln!(c, "{ret} {}({});", s.name, args.join(", "));
    }
    c.push_str("int main(void) {\n");
    for (s, calls) in specs.iter().zip(inputs) {
        for (k, vals) in calls.iter().enumerate() {
            c.push_str("  {\n");
            let mut args = Vec::new();
            let mut bufs = Vec::new();
            for (i, (a, v)) in s.args.iter().zip(vals).enumerate() {
                match (a, v) {
                    (_, Val::Bits(sc, bits)) => args.push(match sc {
                        Sc::F32 => format!("f32b({bits:#x}u)"),
                        Sc::F64 => format!("f64b({bits:#x}ull)"),
                        _ => format!("({})({bits:#x}ull)", sc.c()),
                    }),
                    (Arg::Byval(name, size), Val::Bytes(b)) => {
                        let _ = writeln!(
                            c,
                            "    struct {name} a{i}; static const unsigned char i{i}[] = {}; memcpy(&a{i}, i{i}, {size});",
                            bytes_lit(b)
                        );
                        args.push(format!("a{i}"));
                    }
                    (_, Val::Bytes(b)) => {
                        let _ = writeln!(
                            c,
                            "    static _Alignas(16) unsigned char a{i}[{}] = {};",
                            b.len(),
                            bytes_lit(b)
                        );
                        args.push(format!("a{i}"));
                        bufs.push((i, b.len()));
                    }
                }
            }
            let call = format!("{}({})", s.name, args.join(", "));
            let _ = writeln!(c, "    printf(\"{} {k} \");", s.name);
            match &s.ret {
                Ret::Void => {
                    let _ = writeln!(c, "    {call}; printf(\"-\");");
                }
                Ret::Scalar(sc) => {
                    let _ = writeln!(c, "    {} r = {call}; hex(&r, sizeof r);", sc.c());
                }
                Ret::Sret(name, _) => {
                    let _ = writeln!(c, "    struct {name} r = {call}; hex(&r, sizeof r);");
                }
            }
            for (i, n) in bufs {
                let _ = writeln!(c, "    printf(\" \"); hex(a{i}, {n});");
            }
            c.push_str("    printf(\"\\n\");\n  }\n");
        }
    }
    c.push_str("  return 0;\n}\n");
    c
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The interpreter's output line for call `k` of `s`, in the driver's format.
fn interp_line(module: &Module, s: &Spec, k: usize, vals: &[Val]) -> String {
    let id = module
        .func_by_name(&s.name)
        .unwrap_or_else(|| panic!("@{} not imported", s.name));
    let func = module.function(id).expect("defined");
    let params: Vec<Type> = func.signature().params;
    let interp = Interpreter::new(module).fuel(50_000_000);
    let mut mem = Memory::new();
    interp.init_globals(&mut mem).expect("globals");
    let ptr_ty = ScalarType::Ptr(AddrSpace::PRIVATE);
    let mut args = Vec::new();
    let mut sret = None;
    if let Ret::Sret(_, size) = &s.ret {
        let p = mem
            .alloc(*size as u64, 16, AddrSpace::PRIVATE)
            .expect("alloc");
        sret = Some((p, *size));
        args.push(RtValue::ptr_of(ptr_ty, p));
    }
    let mut bufs = Vec::new();
    for v in vals {
        match v {
            Val::Bits(_, bits) => {
                let ty = params[args.len()];
                args.push(RtValue::from_bits(ty.elem(), *bits));
            }
            Val::Bytes(b) => {
                let p = mem
                    .alloc_init(b, 16, AddrSpace::PRIVATE, false)
                    .expect("alloc");
                args.push(RtValue::ptr_of(ptr_ty, p));
                bufs.push((p, b.len()));
            }
        }
    }
    assert_eq!(
        args.len(),
        params.len(),
        "@{}: lanes signature {:?} vs spec",
        s.name,
        params
    );
    let r = interp
        .call(id, &args, &mut mem)
        .unwrap_or_else(|e| panic!("@{} call {k}: {e}", s.name));
    let mut line = format!("{} {k} ", s.name);
    match (&s.ret, r) {
        (Ret::Void, _) => line.push('-'),
        (Ret::Sret(..), _) => {
            let (p, n) = sret.expect("sret buffer");
            line.push_str(&hex(&mem.read_bytes(p, n as u64).expect("sret")));
        }
        (Ret::Scalar(sc), Some(v)) => {
            let mut b = v.to_le_bytes();
            b.resize(sc.bytes(), 0);
            line.push_str(&hex(&b));
        }
        (Ret::Scalar(_), None) => panic!("@{} returned nothing", s.name),
    }
    // Buffers that are byval copies are not printed by the driver.
    let printed: Vec<usize> = s
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a, Arg::Buf(..)))
        .map(|(i, _)| i)
        .collect();
    let mut bi = 0;
    for (i, v) in vals.iter().enumerate() {
        if let Val::Bytes(_) = v {
            let (p, n) = bufs[bi];
            bi += 1;
            if printed.contains(&i) {
                line.push(' ');
                line.push_str(&hex(&mem.read_bytes(p, n as u64).expect("buffer")));
            }
        }
    }
    line
}

/// Does the host CPU fuse `llvm.fmuladd` (has FMA)?
fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma")
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// Does function `name` of `module`, or a function it calls, contain an `fmuladd`?
fn reaches_fmuladd(module: &Module, name: &str) -> bool {
    let mut todo: Vec<lanes_ir::FuncId> = module.func_by_name(name).into_iter().collect();
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(f) = module.function(id) else {
            continue;
        };
        for i in f.dfg.insts() {
            match f.dfg.inst(i) {
                lanes_ir::InstData::Intrinsic {
                    id: lanes_ir::Intrinsic::FMulAdd,
                    ..
                } => return true,
                lanes_ir::InstData::Call { func, .. } => todo.push(*func),
                _ => {}
            }
        }
    }
    false
}

/// Do two output lines agree, NaN-tolerantly for float fields?
fn agree(s: &Spec, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (fa, fb): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    if fa.len() != fb.len() {
        return false;
    }
    let float_eq = |sc: Sc, x: &str, y: &str| {
        let w = sc.bytes() * 2;
        x.len() == y.len()
            && x.as_bytes()
                .chunks(w)
                .zip(y.as_bytes().chunks(w))
                .all(|(p, q)| {
                    let parse = |h: &[u8]| {
                        let s = std::str::from_utf8(h).unwrap_or("");
                        let le = u64::from_str_radix(s, 16).unwrap_or(0);
                        let bits = le.swap_bytes() >> (64 - 4 * w as u32);
                        if sc == Sc::F32 {
                            f32::from_bits(bits as u32).is_nan()
                        } else {
                            f64::from_bits(bits).is_nan()
                        }
                    };
                    p == q || (parse(p) && parse(q))
                })
    };
    let mut kinds: Vec<Option<Sc>> = vec![None, None];
    kinds.push(match &s.ret {
        Ret::Scalar(sc) if sc.is_float() => Some(*sc),
        Ret::Sret(name, _) if name == "triple" => Some(Sc::F64),
        _ => None,
    });
    for a in &s.args {
        if let Arg::Buf(sc, _) = a {
            kinds.push(sc.is_float().then_some(*sc));
        }
    }
    fa.iter()
        .zip(&fb)
        .zip(kinds)
        .all(|((x, y), k)| x == y || k.is_some_and(|sc| float_eq(sc, x, y)))
}

#[test]
fn corpus_three_ways() {
    let files = corpus_files();
    let mut specs = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("corpus file");
        specs.extend(
            text.lines()
                .filter(|l| l.starts_with("//@"))
                .map(parse_spec),
        );
    }
    assert!(specs.len() >= 40, "only {} corpus functions", specs.len());
    let inputs: Vec<Vec<Vec<Val>>> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut rng = SmallRng::seed_from_u64(0x1a7e5 + i as u64);
            (0..CALLS)
                .map(|_| s.args.iter().map(|a| draw(&mut rng, a)).collect())
                .collect()
        })
        .collect();
    let dir = lanes_test_support::scratch_dir("corpus");
    let drv = dir.join("driver.c");
    std::fs::write(&drv, driver(&specs, &inputs)).expect("write driver");
    let inc = format!("-I{}", corpus_dir().display());
    let clang = lanes_llvm::clang::clang_program();

    // 1. clang-19 -O2, natively.
    let native = dir.join("native");
    run(Command::new(&clang)
        .args(["-O2", &inc])
        .arg(&drv)
        .args(&files)
        .args(["-lm", "-o"])
        .arg(&native));
    let native_out = run(&mut Command::new(&native));

    // 1b. clang-19 -O3 -march=native: the reference for objects made for the host CPU.
    let native_host = dir.join("native_host");
    run(Command::new(&clang)
        .args(["-O3", "-march=native", &inc])
        .arg(&drv)
        .args(&files)
        .args(["-lm", "-o"])
        .arg(&native_host));
    let host_out = run(&mut Command::new(&native_host));

    // 2. lanes compile objects linked into the clang-built driver; 3. the interpreter.
    let opts = CompileOptions {
        clang: ClangOptions::default(),
        pipeline: PipelineOptions {
            opt_level: 2,
            ..PipelineOptions::default()
        },
        target: TargetOptions {
            opt_level: 2,
            ..TargetOptions::default()
        },
        emit: EmitKind::Object,
        export: lanes_llvm::ExportOptions::default(),
    };
    let mut modules = Vec::new();
    let mut modules_o0 = Vec::new();
    let o0 = ClangOptions {
        opt: Some("0".into()),
        ..ClangOptions::default()
    };
    for f in &files {
        let module = import_file(f, &opts.clang);
        modules.push(module.unwrap_or_else(|e| panic!("{}: {e}", f.display())));
        // clang -O0 output (allocas, loads and stores everywhere) imports too.
        let module = import_file(f, &o0);
        modules_o0.push(module.unwrap_or_else(|e| panic!("{} -O0: {e}", f.display())));
    }
    // The same objects at -O2 for generic x86-64 (as clang -c does) and at -O3 for the host
    // CPU with LLVM's vectorizers.
    let o3_native = CompileOptions {
        pipeline: PipelineOptions {
            opt_level: 3,
            ..PipelineOptions::default()
        },
        target: TargetOptions {
            cpu: Some("native".into()),
            opt_level: 3,
            ..TargetOptions::default()
        },
        ..opts.clone()
    };
    let mut outputs = Vec::new();
    for (tag, o) in [("o2", &opts), ("o3native", &o3_native)] {
        let mut objects = Vec::new();
        for (f, module) in files.iter().zip(&modules) {
            let obj = compile_module(module, "corpus", o)
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let stem = f.file_stem().expect("name").to_string_lossy();
            let path = dir.join(format!("{stem}.{tag}.o"));
            std::fs::write(&path, obj).expect("write object");
            objects.push(path);
        }
        let via = dir.join(format!("via_lanes_{tag}"));
        run(Command::new(&clang)
            .args(["-O2", &inc])
            .arg(&drv)
            .args(&objects)
            .args(["-lm", "-o"])
            .arg(&via));
        outputs.push(run(&mut Command::new(&via)));
    }
    let lanes_out = outputs[0].clone();
    let lanes_o3 = outputs[1].clone();

    let lines = |out: &str| -> HashMap<String, String> {
        out.lines()
            .map(|l| {
                let mut w = l.splitn(3, ' ');
                let key = format!("{} {}", w.next().unwrap_or(""), w.next().unwrap_or(""));
                (key, l.to_string())
            })
            .collect()
    };
    let (n_out, l_out, l3_out) = (lines(&native_out), lines(&lanes_out), lines(&lanes_o3));
    let h_out = lines(&host_out);
    let fma = host_has_fma();
    let (mut checked, mut unfused_skipped) = (0, 0);
    for (s, calls) in specs.iter().zip(&inputs) {
        let find = |ms: &[Module]| -> usize {
            ms.iter()
                .position(|m| {
                    m.func_by_name(&s.name)
                        .is_some_and(|id| m.function(id).is_some())
                })
                .unwrap_or_else(|| panic!("@{} in no imported module", s.name))
        };
        let module = &modules[find(&modules)];
        let module_o0 = &modules_o0[find(&modules_o0)];
        for (k, vals) in calls.iter().enumerate() {
            let key = format!("{} {k}", s.name);
            let n = n_out
                .get(&key)
                .unwrap_or_else(|| panic!("native printed no {key}"));
            let l = l_out
                .get(&key)
                .unwrap_or_else(|| panic!("lanes object printed no {key}"));
            assert!(agree(s, n, l), "native vs lanes compile:\n  {n}\n  {l}");
            let h = h_out
                .get(&key)
                .unwrap_or_else(|| panic!("native -march=native printed no {key}"));
            let l3 = l3_out
                .get(&key)
                .unwrap_or_else(|| panic!("lanes -O3 printed no {key}"));
            assert!(
                agree(s, h, l3),
                "native -O3 -march=native vs lanes compile -O3 native:\n  {h}\n  {l3}"
            );
            // The interpreter fuses fmuladd: the host build is its match if the host fuses.
            let reference = if fma {
                h
            } else if reaches_fmuladd(module, &s.name) || reaches_fmuladd(module_o0, &s.name) {
                unfused_skipped += 1;
                checked += 1;
                continue;
            } else {
                n
            };
            let i = interp_line(module, s, k, vals);
            assert!(
                agree(s, reference, &i),
                "native vs interpreter:\n  {reference}\n  {i}"
            );
            let i0 = interp_line(module_o0, s, k, vals);
            assert!(
                agree(s, reference, &i0),
                "native vs interpreter (-O0 import):\n  {reference}\n  {i0}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, specs.len() * CALLS);
    if unfused_skipped > 0 {
        eprintln!(
            "note: the host has no FMA; {unfused_skipped} calls of functions with fmuladd \
             were not compared with the interpreter, which fuses it"
        );
    }
    let distinct: std::collections::HashSet<&String> = n_out.values().collect();
    eprintln!(
        "corpus: {} functions x {CALLS} calls = {checked} calls agree three ways ({} distinct outputs)",
        specs.len(),
        distinct.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
