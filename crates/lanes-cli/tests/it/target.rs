//! The target as clang takes it: `-march=`, `-m<feature>`, `--target-cpu`. A kernel
//! vectorized for Haswell gets Haswell's width and vector-function-ABI letter, contains no
//! AVX-512 instruction (read from the disassembly, whatever the host), and runs correctly
//! here; unknown CPUs and features are errors naming them (exit 1), never an LLVM abort.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir, scratch_file, symbols};

/// AVX-512 shows in AT&T disassembly as zmm registers or opmask registers `%k1`…`%k7`.
fn avx512_lines(disassembly: &str) -> Vec<&str> {
    disassembly
        .lines()
        .filter(|l| l.contains("%zmm") || (1..8).any(|k| l.contains(&format!("%k{k}"))))
        .collect()
}

fn lanes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanes"))
}

#[test]
fn haswell_kernels_use_no_avx512_and_run() {
    let d = scratch_dir("target-haswell");
    let src = data("vectorize_kernels.c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include");
    let kernels = [
        ("saxpy", "c,u,u,u", "luuu"),
        ("branchy", "c,u,u", "luu"),
        ("mandel", "c,u,u,u,u,u,u", "luuuuuu"),
        ("guarded", "c,u,u", "luu"),
    ];
    let mut objects = Vec::new();
    for (f, shapes, letters) in kernels {
        let obj = d.join(format!("{f}.o"));
        run(lanes()
            .args(["vectorize", s(&src), "--function", f, "--shapes", shapes])
            .args(["-march=haswell", "-o", s(&obj)]));
        // Haswell: AVX2, 8 lanes of 32 bits, ISA letter `d`.
        let want = vec![format!("_ZGVdN8{letters}_{f}"), format!("{f}_spmd")];
        assert_eq!(symbols(&obj, &["-g", "--defined-only"]), want, "{f}");
        let dis = run(Command::new("llvm-objdump-19").args(["-d", s(&obj)]));
        let text = String::from_utf8_lossy(&dis.stdout);
        assert!(text.contains("%ymm"), "{f}: no AVX2 code:\n{text}");
        let bad = avx512_lines(&text);
        assert!(
            bad.is_empty(),
            "{f}: AVX-512 in Haswell code:\n{}",
            bad.join("\n")
        );
        objects.push(obj);
    }
    if !cpu_has("avx2") {
        eprintln!("note: the host has no AVX2; the Haswell kernels are not run");
        return;
    }
    let reference = d.join("ref.o");
    let mut cc = clang();
    cc.args(["-O1", "-ffp-contract=off", "-c", "-o", s(&reference)])
        .arg(format!("-I{}", s(&include)));
    for (f, _, _) in kernels {
        cc.arg(format!("-D{f}=ref_{f}"));
    }
    run(cc.arg(&src));
    let exe = d.join("driver");
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data("vectorize_driver.c"))
        .arg(&reference)
        .args(&objects));
    for n in [37, 0, 100] {
        let out = run(Command::new(&exe).arg(n.to_string()));
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("ok {n}\n"));
    }
}

#[test]
fn feature_flags_narrow_the_width() {
    let d = scratch_dir("target-flags");
    let src = data("vectorize_kernels.c");
    let obj = d.join("saxpy.o");
    run(lanes()
        .args([
            "vectorize",
            s(&src),
            "--function",
            "saxpy",
            "--shapes",
            "c,u,u,u",
        ])
        .args(["-march=skylake-avx512", "-mno-avx512f", "-o", s(&obj)]));
    assert_eq!(
        symbols(&obj, &["-g", "--defined-only"]),
        ["_ZGVdN8luuu_saxpy", "saxpy_spmd"]
    );
    run(lanes()
        .args([
            "vectorize",
            s(&src),
            "--function",
            "saxpy",
            "--shapes",
            "c,u,u,u",
        ])
        .args([
            "-march=skylake-avx512",
            "-mprefer-vector-width=128",
            "-o",
            s(&obj),
        ]));
    assert_eq!(
        symbols(&obj, &["-g", "--defined-only"]),
        ["_ZGVbN4luuu_saxpy", "saxpy_spmd"]
    );
}

#[test]
fn unknown_cpus_and_features_are_errors() {
    let src = data("vectorize_kernels.c");
    let d = scratch_dir("target-errors");
    let obj = d.join("x.o");
    for args in [
        vec![
            "vectorize",
            s(&src),
            "--function",
            "saxpy",
            "-march=nosuchcpu",
            "-o",
            s(&obj),
        ],
        vec![
            "compile",
            "--target-cpu",
            "nosuchcpu",
            "-c",
            s(&src),
            "-o",
            s(&obj),
        ],
        vec![
            "compile",
            "--target-features",
            "+nosuchfeature",
            "-c",
            s(&src),
            "-o",
            s(&obj),
        ],
    ] {
        let out = lanes().args(&args).output().expect("lanes runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("nosuch"), "{args:?}: {err}");
        assert!(err.starts_with("lanes: error: "), "{err}");
    }
}

/// The assembly of function `name` in `asm` (from its label to the next `.size`).
fn function_asm<'a>(asm: &'a str, name: &str) -> &'a str {
    let start = asm
        .find(&format!("\n{name}:"))
        .unwrap_or_else(|| panic!("no {name} in the assembly"));
    let body = &asm[start..];
    &body[..body.find("\t.size").unwrap_or(body.len())]
}

/// Without mask registers (Haswell's AVX2) the masks of a divergent loop are lane-width
/// integer vectors: no `<W x i1>` φ in the lanes IR, and in the vector function's code no
/// packing of masks into words or bytes and back (`vpackssdw`, `vpacksswb`, `vpmovzxwd`,
/// `vpslld $31`), the loop's `any` a `vptest`/`vtestps`/`vmovmskps`; with AVX-512's mask
/// registers masks stay `<W x i1>`.
#[test]
fn masks_are_lane_width_integers_without_mask_registers() {
    let d = scratch_dir("target-masks");
    let src = data("vectorize_kernels.c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include");
    let vectorize = |march: &str, width: u16, out: &Path| {
        run(lanes()
            .args(["vectorize", s(&src), "--function", "mandel"])
            .args(["--shapes", "c,u,u,u,u,u,u", "-I", s(&include)])
            .args([march, "--width", &width.to_string(), "-O3", "-o", s(out)]));
        std::fs::read_to_string(out).expect("output")
    };
    for width in [8u16, 16] {
        let lir = vectorize("-march=haswell", width, &d.join(format!("m{width}.lir")));
        let i1_phis: Vec<&str> = lir
            .lines()
            .filter(|l| l.contains(&format!("<{width} x i1> = phi")))
            .collect();
        assert!(i1_phis.is_empty(), "W={width}: {}", i1_phis.join("\n"));
        assert!(
            lir.contains(&format!("<{width} x i32> = phi")),
            "W={width}:\n{lir}"
        );
        let asm = vectorize("-march=haswell", width, &d.join(format!("m{width}.s")));
        let body = function_asm(&asm, &format!("_ZGVdN{width}luuuuuu_mandel"));
        let packing: Vec<&str> = body
            .lines()
            .filter(|l| {
                // (Widening constants from memory, `vpmovsxbd .LCPI…`, is not mask work.)
                ["vpackss", "vpmovzxwd\t%", "vpmovzxbd\t%", "vpslld\t$31"]
                    .iter()
                    .any(|p| l.contains(p))
            })
            .collect();
        assert!(
            packing.is_empty(),
            "W={width}: {}\n{body}",
            packing.join("\n")
        );
        assert!(
            ["vptest", "vtestps", "vmovmskps"]
                .iter()
                .any(|t| body.contains(t)),
            "W={width}: no mask test:\n{body}"
        );
    }
    let lir = vectorize("-march=skylake-avx512", 16, &d.join("m16_avx512.lir"));
    assert!(lir.contains("<16 x i1> = phi"), "{lir}");
    // A loop with two divergent exits (binary-tree search) at 16 lanes, two registers per
    // mask: the exits' combined compares stay lane-width too.
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/wfv");
    let asm = d.join("tree16.s");
    run(lanes()
        .args([
            "vectorize",
            s(&bench.join("tree_search.c")),
            "--function",
            "ts",
        ])
        .args(["-DKERNEL=ts", "-I", s(&bench), "--shapes", "c,u,u,u,u"])
        .args(["-march=haswell", "--width", "16", "-O3", "-o", s(&asm)]));
    let text = std::fs::read_to_string(&asm).expect("assembly");
    let body = function_asm(&text, "_ZGVdN16luuuu_ts");
    assert!(
        !body
            .lines()
            .any(|l| l.contains("vpackss") || l.contains("vpslld\t$31")),
        "{body}"
    );
}

/// Vectorizes the lookup `out[i] = t[idx[i]]` (an `int` index) for `march` at `opt`
/// into `out` (its suffix says what to write).
fn vectorize_lookup(march: &str, opt: &str, out: &Path) {
    let src = scratch_file(
        "lookup.c",
        "void look(long i, const int *t, const int *idx, int *out) { out[i] = t[idx[i]]; }\n",
    );
    run(lanes()
        .args([
            "vectorize",
            s(&src),
            "--function",
            "look",
            "--shapes",
            "c,u,u,u",
        ])
        .args([march, opt, "-o", s(out)]));
}

/// A lookup `t[idx[i]]` with an `int` index is one hardware gather with 32-bit indices
/// scaled by the element size: `vpgatherdd (base,%ymm,4)` for Haswell (whose LLVM tuning
/// would otherwise make it eight branches and scalar loads) and on `zmm` for AVX-512.
#[test]
fn int_indexed_lookups_are_hardware_gathers_with_32_bit_indices() {
    let d = scratch_dir("target-gathers");
    for (march, reg) in [
        ("-march=haswell", "%ymm"),
        ("-march=skylake-avx512", "%zmm"),
    ] {
        let asm = d.join("lookup.s");
        vectorize_lookup(march, "-O3", &asm);
        let text = std::fs::read_to_string(&asm).expect("assembly");
        let gathers: Vec<&str> = text.lines().filter(|l| l.contains("gather")).collect();
        assert!(
            gathers
                .iter()
                .any(|l| l.contains("vpgatherdd") && l.contains(reg) && l.contains(",4)")),
            "{march}: {}\n{text}",
            gathers.join("\n")
        );
        assert!(!text.contains("vpinsrd"), "{march}: scalar loads:\n{text}");
    }
}

/// A private stack indexed by a varying stack pointer (point correlation's kd-tree walk)
/// is gathered and scattered with 32-bit offsets from the frame: one `vpgatherdd` or
/// `vpscatterdd` per vector, where 64-bit pointers would take two `…qd` instructions of
/// half the width each.
#[test]
fn private_stack_gathers_take_32_bit_offsets_from_the_frame() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/wfv");
    let d = scratch_dir("target-private-stack");
    for (march, width, name) in [
        ("-march=haswell", "8", "_ZGVdN8luuuuuuu_pc"),
        ("-march=skylake-avx512", "16", "_ZGVeN16luuuuuuu_pc"),
    ] {
        let asm = d.join("pc.s");
        run(lanes()
            .args([
                "vectorize",
                s(&bench.join("point_correlation.c")),
                "--function",
                "pc",
            ])
            .args([
                "-DKERNEL=pc",
                "-I",
                s(&bench),
                "--shapes",
                "c,u,u,u,u,u,u,u",
            ])
            .args([march, "--width", width, "-O3", "-o", s(&asm)]));
        let text = std::fs::read_to_string(&asm).expect("assembly");
        let body = function_asm(&text, name);
        let wide: Vec<&str> = body
            .lines()
            .filter(|l| l.contains("gather") || l.contains("scatter"))
            .collect();
        // Two stack pops and the two coordinates of the popped node, at least.
        assert!(wide.len() >= 4, "{march}:\n{body}");
        assert!(
            wide.iter()
                .all(|l| !l.contains("gatherq") && !l.contains("scatterq")),
            "{march}: 64-bit addresses:\n{}",
            wide.join("\n")
        );
    }
}

/// The `attributes #N = { … }` line of the function whose `define` line is `define` in
/// LLVM text `text`.
fn function_attributes<'t>(text: &'t str, define: &str) -> &'t str {
    let group = define
        .rsplit('#')
        .next()
        .and_then(|g| g.split_whitespace().next())
        .unwrap_or_else(|| panic!("no attribute group: {define}"));
    text.lines()
        .find(|l| l.starts_with(&format!("attributes #{group} ")))
        .unwrap_or_else(|| panic!("no attributes #{group}"))
}

/// Emitted LLVM IR says what it was made for, as clang's does: every function lanes
/// defines carries the target's `"target-cpu"` and `"target-features"`, so `llc-19`
/// without `-mcpu` makes Haswell code of it (no AVX-512, hardware gathers), not code for
/// generic x86-64.
#[test]
fn emitted_llvm_ir_names_its_target() {
    let d = scratch_dir("target-attributes");
    let ll = d.join("look.ll");
    vectorize_lookup("-march=haswell", "-O2", &ll);
    let text = std::fs::read_to_string(&ll).expect("LLVM IR");
    let defined: Vec<&str> = text.lines().filter(|l| l.starts_with("define ")).collect();
    assert!(!defined.is_empty(), "{text}");
    for line in text.lines().filter(|l| l.starts_with("attributes #")) {
        if line.contains("target-cpu") {
            assert!(line.contains("\"target-cpu\"=\"haswell\""), "{line}");
        }
    }
    for f in &defined {
        let attrs = function_attributes(&text, f);
        assert!(attrs.contains("\"target-cpu\"=\"haswell\""), "{f}\n{attrs}");
    }
    if Command::new("llc-19").arg("--version").output().is_err() {
        eprintln!("skipped the llc-19 half: install llvm-19 (Debian package llvm-19)");
        return;
    }
    let asm = d.join("look_llc.s");
    run(Command::new("llc-19").args(["-O2", s(&ll), "-o", s(&asm)]));
    let asm = std::fs::read_to_string(&asm).expect("assembly");
    assert!(avx512_lines(&asm).is_empty(), "{asm}");
    assert!(asm.contains("vpgatherdd"), "no hardware gather:\n{asm}");
}

/// Fields of an element at a varying `int` index (`box[6 * n + 3]`, a BVH node's box),
/// the elements a varying `int` counter walks (a CSR row, `for (int k = a; k < b; k++)`,
/// whose counter clang widens to 64 bits) and the fields of the elements it walks (a BVH
/// leaf's spheres, `sph[4 * k + 3]`, an `int` product C promises does not overflow) and
/// an element at an index proven non-negative (`cx[hit]` after `hit >= 0`, which clang
/// zero-extends `nneg`) are gathered with 32-bit indices at 16 lanes: `vgatherdps` on
/// `zmm`, never the 64-bit-index `vgatherqps` of half the width.
#[test]
fn field_and_row_gathers_take_32_bit_indices_at_16_lanes() {
    let src = scratch_file(
        "rows.c",
        "void fields(long i, const int *node, const float *box, float *out) {\n\
         \x20 int n = node[i];\n\
         \x20 out[i] = box[6 * n] + box[6 * n + 3] * box[6 * n + 5];\n\
         }\n\
         void row(long i, const int *rowptr, const float *val, float *out) {\n\
         \x20 float s = 0.0f;\n\
         \x20 for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k];\n\
         \x20 out[i] = s;\n\
         }\n\
         void leaf(long i, const int *link, const float *sph, float *out) {\n\
         \x20 float s = 0.0f;\n\
         \x20 int first = link[2 * i], count = link[2 * i + 1];\n\
         \x20 for (int k = first; k < first + count; k++) s += sph[4 * k] * sph[4 * k + 3];\n\
         \x20 out[i] = s;\n\
         }\n\
         void nearest(long i, const float *x, const float *cx, float *out) {\n\
         \x20 int hit = -1;\n\
         \x20 float best = 1e30f;\n\
         \x20 for (int s = 0; s < 64; s++) {\n\
         \x20   float d = (x[i] - cx[s]) * (x[i] - cx[s]);\n\
         \x20   if (d < best) { best = d; hit = s; }\n\
         \x20 }\n\
         \x20 out[i] = hit >= 0 ? cx[hit] : 0.0f;\n\
         }\n",
    );
    let d = scratch_dir("target-narrow-gathers");
    for f in ["fields", "row", "leaf", "nearest"] {
        let text = skylake_16_lane_asm(&src, f, "c,u,u,u", &d.join(format!("{f}.s")));
        assert_32_bit_addresses(&text, "gather", "vgatherdps", f);
    }
}

/// The functions of `lanes vectorize` carry the width they were vectorized for as
/// `"min-legal-vector-width"` (32·W bits), so that on a CPU whose tuning prefers 256-bit
/// vectors (Cascade Lake) 8-lane code, even its 8-lane `double` arithmetic, stays in
/// `ymm` registers: no 512-bit instruction to lower the core's clock. At 16 lanes the
/// floats are `zmm`.
#[test]
fn eight_lane_code_stays_in_ymm_where_the_cpu_prefers_256_bits() {
    let src = scratch_file(
        "widen_double.c",
        "void scale(long i, const float *x, float *out, float k) {\n\
         \x20 double d = (double)x[i] * (double)k;\n\
         \x20 out[i] = (float)(d * d + (double)x[i]);\n\
         }\n",
    );
    let d = scratch_dir("target-min-legal-width");
    for width in [8u32, 16] {
        let ll = d.join(format!("scale{width}.ll"));
        let asm = d.join(format!("scale{width}.s"));
        for out in [&ll, &asm] {
            run(lanes()
                .args(["vectorize", s(&src), "--function", "scale"])
                .args(["--shapes", "c,u,u,u", "-march=cascadelake", "-O3"])
                .args(["--width", &width.to_string(), "-o", s(out)]));
        }
        let text = std::fs::read_to_string(&ll).expect("LLVM IR");
        let attr = format!("\"min-legal-vector-width\"=\"{}\"", 32 * width);
        for line in text.lines().filter(|l| l.starts_with("define ")) {
            let attrs = function_attributes(&text, line);
            assert!(attrs.contains(&attr), "{line}\n{attrs}");
        }
        let code = std::fs::read_to_string(&asm).expect("assembly");
        let name = format!(
            "_ZGV{}N{width}luuu_scale",
            if width == 8 { 'd' } else { 'e' }
        );
        let body = function_asm(&code, &name);
        let zmm = body.lines().filter(|l| l.contains("%zmm")).count();
        if width == 8 {
            assert_eq!(zmm, 0, "512-bit code at 8 lanes:\n{body}");
            assert!(body.contains("%ymm") && body.contains("pd\t"), "{body}");
        } else {
            assert!(zmm > 0, "no 512-bit code at 16 lanes:\n{body}");
        }
    }
}

/// A private stack's push after a pop, in another block, writes where the pop read
/// (`stack[sp - 1]`); LLVM merges the two addresses, and the scatter still takes 32-bit
/// offsets from the frame at 16 lanes: `vpscatterdd`, never two `vpscatterqd` of 8 lanes.
#[test]
fn private_stack_pushes_after_pops_scatter_with_32_bit_offsets() {
    let src = scratch_file(
        "walk.c",
        "void walk(long i, int *out) {\n\
         \x20 int stack[32], sp = 0, sum = 0;\n\
         \x20 stack[sp++] = (int)(i & 63);\n\
         \x20 while (sp > 0) {\n\
         \x20   int n = stack[--sp];\n\
         \x20   sum += n;\n\
         \x20   if (n > 2) { stack[sp++] = n / 3; stack[sp++] = n / 2; }\n\
         \x20 }\n\
         \x20 out[i] = sum;\n\
         }\n",
    );
    let d = scratch_dir("target-stack-scatter");
    let text = skylake_16_lane_asm(&src, "walk", "c,u", &d.join("walk.s"));
    let body = function_asm(&text, "_ZGVeN16lu_walk");
    assert_32_bit_addresses(body, "scatter", "vpscatterdd", "walk");
}

/// `lanes vectorize` of `function` in `src` for Skylake-AVX512 at 16 lanes, `-O3`, as
/// assembly written to `asm`; its text.
fn skylake_16_lane_asm(src: &Path, function: &str, shapes: &str, asm: &Path) -> String {
    run(lanes()
        .args([
            "vectorize",
            s(src),
            "--function",
            function,
            "--shapes",
            shapes,
        ])
        .args([
            "-march=skylake-avx512",
            "--width",
            "16",
            "-O3",
            "-o",
            s(asm),
        ]));
    std::fs::read_to_string(asm).expect("assembly")
}

/// Among the lines of `code` naming `access` (`gather`, `scatter`), some use the 32-bit
/// index form `narrow` and none a 64-bit one (`gatherq…`, `scatterq…`).
fn assert_32_bit_addresses(code: &str, access: &str, narrow: &str, what: &str) {
    let lines: Vec<&str> = code.lines().filter(|l| l.contains(access)).collect();
    assert!(
        lines.iter().any(|l| l.contains(narrow)),
        "{what}: no {narrow}:\n{code}"
    );
    let wide = format!("{access}q");
    assert!(
        !lines.iter().any(|l| l.contains(&wide)),
        "{what}: 64-bit addresses: {}",
        lines.join("\n")
    );
}
