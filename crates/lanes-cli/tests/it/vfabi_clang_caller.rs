//! clang-19's loop vectorizer calls lanes' `declare simd` variants.
//!
//! LLVM 19's loop vectorizer calls a vector variant of a function only through the
//! `vector-function-abi-variant` call-site attribute (VFABI names, each with a declaration
//! of the variant in the module). clang-19 does not emit it for `#pragma omp declare
//! simd`: it only attaches the GCC-style `"_ZGV…"` names to the declaration, which the
//! vectorizer ignores, so a clang-19 build never calls the variants by itself. This test
//! adds what clang leaves out, and nothing else: it takes clang-19's IR of
//! `vfabi_linear_caller.c` (`-O2 -fopenmp-simd -march=native`, preferring the checked
//! vector width, before LLVM's passes), gives each call of a `declare simd` function the
//! attribute listing the host ISA's names clang announced, declares those variants
//! (their types follow the VFABI letters: `v` vector, `u` and `l…` scalar), keeps the
//! declarations in `llvm.compiler.used` (as LLVM's own `InjectTLIMappings` does), and
//! compiles it with clang-19 `-O2`: LLVM's loop
//! vectorizer must then call the four variants, which lanes defines in
//! `vfabi_linear_callee.c` (uniform, linear with steps 1, 2, 4 bytes and -1, aligned), and
//! the linked program must equal the scalar build on 68 lengths.

use crate::common;

use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir, symbols};

/// The LLVM type of a scalar parameter or result as the declaration spells it
/// (`float noundef` → `float`).
fn llvm_type(decl_param: &str) -> &str {
    decl_param.split_whitespace().next().unwrap_or("")
}

/// The VFABI parameter letters of `mangled` (`_ZGVdN8ua32lv_f` → `["u", "l", "v"]`,
/// alignment dropped).
fn letters(mangled: &str, name: &str) -> Vec<String> {
    let body = mangled
        .strip_suffix(&format!("_{name}"))
        .expect("the variant names the function");
    // `_ZGV` + ISA + mask + lanes.
    let digits = body[6..]
        .find(|c: char| !c.is_ascii_digit())
        .expect("parameters");
    let params = &body[6 + digits..];
    let mut out = Vec::new();
    let mut chars = params.chars().peekable();
    while let Some(c) = chars.next() {
        // The step or alignment after a letter: `l4`, `ln1`, `a32`.
        let skip = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == 'n')
            {
                chars.next();
            }
        };
        match c {
            'a' => skip(&mut chars),
            _ => {
                out.push(c.to_string());
                skip(&mut chars);
            }
        }
    }
    out
}

/// clang's IR `ll` with the call-site mappings and the variant declarations for ISA
/// letter `isa`; the names mapped.
fn add_vector_variants(ll: &str, isa: char) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut mapped: Vec<String> = Vec::new();
    let mut decls = String::new();
    // function name → its mapping list
    let mut mappings: Vec<(String, String)> = Vec::new();
    for line in ll.lines() {
        let Some(rest) = line.strip_prefix("declare ") else {
            continue;
        };
        let Some(at) = rest.find(" @") else { continue };
        let ret = llvm_type(&rest[..at]).to_string();
        let after = &rest[at + 2..];
        let Some(open) = after.find('(') else {
            continue;
        };
        let name = &after[..open];
        let close = after.rfind(')').expect("parameter list");
        let params: Vec<&str> = after[open + 1..close]
            .split(", ")
            .filter(|p| !p.is_empty())
            .collect();
        let Some(group) = after[close..].split('#').nth(1) else {
            continue;
        };
        let group_line = format!("attributes #{} = {{", group.trim());
        let Some(attrs) = ll.lines().find(|l| l.starts_with(&group_line)) else {
            continue;
        };
        let prefix = format!("\"_ZGV{isa}N");
        let variants: Vec<String> = attrs
            .split_whitespace()
            .filter(|a| a.starts_with(&prefix) && a.ends_with(&format!("_{name}\"")))
            .map(|a| a.trim_matches('"').to_string())
            .collect();
        let mut list = Vec::new();
        for v in variants {
            let lanes: String = v[6..].chars().take_while(char::is_ascii_digit).collect();
            let vector = |t: &str| format!("<{lanes} x {t}>");
            let kinds = letters(&v, name);
            assert_eq!(kinds.len(), params.len(), "{v} for {line}");
            let args: Vec<String> = kinds
                .iter()
                .zip(&params)
                .map(|(k, p)| {
                    let t = llvm_type(p);
                    if k == "v" {
                        vector(t)
                    } else {
                        t.to_string()
                    }
                })
                .collect();
            decls.push_str(&format!(
                "declare {} @{v}({})\n",
                vector(&ret),
                args.join(", ")
            ));
            list.push(format!("{v}({v})"));
            mapped.push(v);
        }
        if !list.is_empty() {
            mappings.push((name.to_string(), list.join(",")));
        }
    }
    for line in ll.lines() {
        let mut line = line.to_string();
        for (name, list) in &mappings {
            let call = format!(" @{name}(");
            if line.contains(" call ") && line.contains(&call) {
                let start = line.find(&call).expect("call") + call.len();
                let close = start + line[start..].find(')').expect("arguments");
                line.insert_str(
                    close + 1,
                    &format!(" \"vector-function-abi-variant\"=\"{list}\""),
                );
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&decls);
    let used: Vec<String> = mapped.iter().map(|v| format!("ptr @{v}")).collect();
    out.push_str(&format!(
        "@llvm.compiler.used = appending global [{} x ptr] [{}], section \"llvm.metadata\"\n",
        used.len(),
        used.join(", ")
    ));
    (out, mapped)
}

#[test]
fn clang_vectorized_loops_call_lanes_variants() {
    let (isa, w) = if cpu_has("avx512f") {
        ('e', 16)
    } else if cpu_has("avx2") {
        ('d', 8)
    } else {
        eprintln!("note: the host has no AVX2; clang's variant calls are not checked");
        return;
    };
    let d = scratch_dir("vfabi-clang");
    let callee = data("vfabi_linear_callee.c");
    let caller = data("vfabi_linear_caller.c");
    let obj = d.join("callee.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["compile", "-fopenmp-simd", "-O2", "-march=native"])
        .args(["-ffp-contract=off", "-c", s(&callee), "-o", s(&obj)]));
    // Intel's server CPUs are tuned for 256-bit vectors (`prefer-256-bit`): ask for the
    // width whose variants are checked.
    let prefer = format!("-mprefer-vector-width={}", 32 * w);
    let flags = [
        "-O2",
        "-march=native",
        &prefer,
        "-fopenmp-simd",
        "-ffp-contract=off",
    ];
    let ll = d.join("caller.ll");
    run(clang()
        .args(flags)
        .args(["-emit-llvm", "-S", "-Xclang", "-disable-llvm-passes"])
        .args([s(&caller), "-o", s(&ll)]));
    let text = std::fs::read_to_string(&ll).expect("caller.ll");
    let (patched, mapped) = add_vector_variants(&text, isa);
    let wanted = [
        format!("_ZGV{isa}N{w}ua32lv_lin_load"),
        format!("_ZGV{isa}N{w}l4_lin_ptr"),
        format!("_ZGV{isa}N{w}l2u_lin_step2"),
        format!("_ZGV{isa}N{w}ln1v_lin_down"),
    ];
    assert_eq!(mapped, wanted, "the names clang announces");
    let patched_ll = d.join("caller-mapped.ll");
    std::fs::write(&patched_ll, patched).expect("write");
    let caller_obj = d.join("caller.o");
    run(clang()
        .args(flags)
        .args(["-c", s(&patched_ll), "-o", s(&caller_obj)]));
    let undefined = symbols(&caller_obj, &["-u"]);
    let defined = symbols(&obj, &["-g", "--defined-only"]);
    for v in &wanted {
        assert!(
            undefined.contains(v),
            "clang's loop vectorizer does not call {v}: {undefined:?}"
        );
        assert!(
            defined.contains(v),
            "lanes does not define {v}: {defined:?}"
        );
    }
    crate::declare_simd::run_against_scalar_build(&d, &caller_obj, &obj);
}
