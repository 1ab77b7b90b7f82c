//! Very large SPMD functions, made so that LLVM compiles them in linear time: on targets
//! with mask registers the unmasked variant calls the masked body with every lane on
//! instead of being a second copy (`lanes_wfv::outer_loop::unmasked_through_masked`), and
//! each vector body is split into `noinline` pieces of bounded size (`lanes_wfv::chunks`).
//! `lanes compile` splits large scalar functions the same way. The tests check where
//! each applies (AVX-512 and AVX2 above the size threshold, `lanes compile`) and where
//! not (small functions), that the exported variant keeps its name and ABI, and that the
//! launcher and the split scalar function compute what clang's scalar function computes,
//! for counts that are and are not multiples of the width.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{clang, cpu_has, run, s, scratch_dir};

const NOTE: &str = "runs the masked body with every lane on";
const SPLIT: &str = "pieces of about";

/// An SPMD function `big(i, a, b, c, u)` of `n` statements, mostly as the compile-time
/// benchmark writes them (bench/vectorize_scaling.rs): divergent if/else on a varying
/// value, integer mixing, a float select, a branch on a uniform table entry; and now and
/// then a uniform loop and a divergent one, which no piece boundary may cut. `x` is
/// unsigned so that its overflows are defined.
fn big_source(n: usize) -> String {
    let mut src = String::from(
        "void big(long i, int *a, float *b, const int *c, int u) {\n  unsigned x = a[i]; float y = b[i];\n",
    );
    for k in 0..n {
        if k % 50 == 49 {
            src.push_str(&format!(
                "  for (int j = 0; j < u % 4 + {}; j++) x += c[j + {k}] ^ j;\n",
                k % 3
            ));
        }
        if k % 97 == 96 {
            src.push_str("  while (x > 1000) x = x / 3 + 7;\n");
        }
        src.push_str(&match k % 4 {
            0 => format!(
                "  if (x > {}) x = (x * {} + u) ^ (x >> 3); else y = y * 0.5f + {};\n",
                k % 97,
                k % 7 + 1,
                k % 13
            ),
            1 => format!("  x ^= (x >> {}) + {k};\n", k % 5 + 1),
            2 => format!("  y = y > {}.0f ? y - 1.0f : y + (float)x;\n", k % 11),
            _ => format!("  if (c[{k}] > {}) {{ x += {}; }}\n", k % 50, k % 3),
        });
    }
    src.push_str("  a[i] = x; b[i] = y;\n}\n");
    src
}

/// Vectorizes `big` of `src` with `flags`; the object and lanes' standard error.
fn vectorize(d: &Path, src: &Path, tag: &str, flags: &[&str]) -> (PathBuf, String) {
    let obj = d.join(format!("{tag}.o"));
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "vectorize",
            s(src),
            "--function",
            "big",
            "--shapes",
            "c,u,u,u,u",
        ])
        .args(["--clang-arg=-ffp-contract=off"])
        .args(flags)
        .args(["-o", s(&obj)]));
    (obj, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The size in bytes of `symbol` in `obj` (`nm -S`).
fn symbol_size(obj: &Path, symbol: &str) -> u64 {
    let out = run(Command::new("nm").args(["-S", "--defined-only", s(obj)]));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4 && f[3] == symbol).then(|| u64::from_str_radix(f[1], 16).unwrap())
        })
        .unwrap_or_else(|| panic!("{symbol} not in {}", obj.display()))
}

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void big_spmd(long n, int *a, float *b, const int *c, int u);
void ref_big(long i, int *a, float *b, const int *c, int u);
void split_big(long i, int *a, float *b, const int *c, int u);
int main(int argc, char **argv) {
  long n = atol(argv[1]), cap = 200;
  int a[200], ra[200], sa[200]; float b[200], rb[200], sb[200]; static int c[4000];
  for (int k = 0; k < 4000; k++) c[k] = (k * 7919) % 100;
  for (long i = 0; i < cap; i++) {
    a[i] = ra[i] = sa[i] = (int)(i * 2654435761u % 200);
    b[i] = rb[i] = sb[i] = i % 17;
  }
  big_spmd(n, a, b, c, 3);
  for (long i = 0; i < n; i++) ref_big(i, ra, rb, c, 3);
  for (long i = 0; i < n; i++) split_big(i, sa, sb, c, 3);
  if (memcmp(a, ra, sizeof a) || memcmp(b, rb, sizeof b)) { printf("differ\n"); return 1; }
  if (memcmp(sa, ra, sizeof a) || memcmp(sb, rb, sizeof b)) { printf("split differs\n"); return 1; }
  printf("ok %ld\n", n);
  return 0;
}
"#;

#[test]
fn large_functions_share_one_body_and_are_split_into_pieces() {
    let d = scratch_dir("large_functions");
    let src = d.join("big.c");
    std::fs::write(&src, big_source(1200)).unwrap();
    let local = |obj: &Path| common::symbols(obj, &["--defined-only"]);
    // AVX-512: one body, in pieces; the exported unmasked variant is a call of it.
    let (obj, stderr) = vectorize(&d, &src, "avx512", &["-march=znver4"]);
    assert!(stderr.contains(NOTE) && stderr.contains(SPLIT), "{stderr}");
    let variant = symbol_size(&obj, "_ZGVeN16luuuu_big");
    assert!(variant < 256, "the unmasked variant is {variant} bytes");
    let syms = local(&obj);
    assert!(
        syms.contains(&"big.masked.w16.chunk2".to_string()),
        "{syms:?}"
    );
    assert!(
        !syms
            .iter()
            .any(|s| s.starts_with("_ZGVeN16luuuu_big.chunk")),
        "{syms:?}"
    );
    // AVX2: masks are vectors there, an entry mask costs a vector `and` per branch;
    // two bodies, each in pieces.
    let (obj2, stderr2) = vectorize(&d, &src, "avx2", &["-march=haswell"]);
    assert!(
        !stderr2.contains(NOTE) && stderr2.contains(SPLIT),
        "{stderr2}"
    );
    let syms = local(&obj2);
    for piece in ["_ZGVdN8luuuu_big.chunk2", "big.masked.w8.chunk2"] {
        assert!(syms.contains(&piece.to_string()), "{piece}: {syms:?}");
    }
    // A small function keeps its two copies, whole.
    let small = d.join("small.c");
    std::fs::write(&small, big_source(40)).unwrap();
    let (_, stderr3) = vectorize(&d, &small, "small", &["-march=znver4"]);
    assert!(
        !stderr3.contains(NOTE) && !stderr3.contains(SPLIT),
        "{stderr3}"
    );

    // The launchers equal the scalar function (clang-19).
    let mut objects = vec![obj2];
    if cpu_has("avx512f") {
        objects.push(obj);
    } else {
        eprintln!("note: the host has no AVX-512; only the AVX2 objects are run");
    }
    let reference = d.join("ref.o");
    run(clang()
        .args([
            "-O1",
            "-ffp-contract=off",
            "-Dbig=ref_big",
            "-c",
            "-o",
            s(&reference),
        ])
        .arg(&src));
    // `lanes compile` splits the scalar function too.
    let split = d.join("split.o");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-O2",
            "-c",
            "-Dbig=split_big",
            "-ffp-contract=off",
        ])
        .args(["-o", s(&split), s(&src)]));
    let stderr4 = String::from_utf8_lossy(&out.stderr);
    assert!(stderr4.contains(SPLIT), "{stderr4}");
    // Not at -O0: a debugger sees the function as written.
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes")).args([
        "compile",
        "-O0",
        "-c",
        "-o",
        s(&d.join("o0.o")),
        s(&src),
    ]));
    let stderr5 = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr5.contains(SPLIT), "{stderr5}");
    let driver = d.join("driver.c");
    std::fs::write(&driver, DRIVER).unwrap();
    for (k, obj) in objects.iter().enumerate() {
        let exe = d.join(format!("driver{k}"));
        run(clang()
            .args(["-O1", "-o", s(&exe)])
            .args([&driver, &reference, &split, obj]));
        for n in [0, 1, 15, 16, 37, 64, 200] {
            let out = run(Command::new(&exe).arg(n.to_string()));
            assert_eq!(String::from_utf8_lossy(&out.stdout), format!("ok {n}\n"));
        }
    }
}
