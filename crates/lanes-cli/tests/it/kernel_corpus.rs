//! The kernel corpus (`corpus/kernels/kernels.c`: 54 `omp simd` loops — straight-line
//! code (clamped and butterfly indices among it), divergent branches and loops,
//! reductions, calls of helpers, gathers and strided accesses, early exits of inner loops (with and without stores before the exit, a
//! `while`), intrinsics clang emits (byte and bit reversal, checked arithmetic, `powi`),
//! private arrays, and early exits of the parallel loop itself) compiled by `lanes compile -fopenmp-simd -march=native` at 4, 8
//! and 16 lanes and at the target's own width, each build linked with a generated driver
//! that runs every kernel beside clang-19's scalar build of the same source on 17 lengths
//! (0 to 1000; seeded inputs; 8 lanes also with `--boscc all`) and compares all outputs
//! byte for byte, including the
//! elements past `n`. lanes must vectorize every loop, the two that the parallel loop
//! itself leaves early (`first_above`, `copy_until`) included.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use common::{clang, run, s, scratch_dir};

const LENGTHS: [u32; 17] = [
    0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 255, 1000,
];

/// The kernels' names, in order (`KERNEL(name)` at the start of a line).
fn kernel_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("KERNEL(")?.split(')').next())
        .map(str::to_string)
        .collect()
}

/// A C driver running each kernel and its `ref_` twin on the same inputs.
fn driver(names: &[String]) -> String {
    let mut c = String::from(
        "#include <stdio.h>\n#include <string.h>\n#define SIG (int, const float *, const float *, float *, const int *, int *)\n",
    );
    for f in names {
        let _ = writeln!(c, "void {f} SIG; void ref_{f} SIG;");
    }
    let lengths: Vec<String> = LENGTHS.iter().map(u32::to_string).collect();
    let _ = write!(
        c,
        r#"typedef void (*kernel) SIG;
static const char *names[] = {{{names}}};
static kernel lanes_k[] = {{{lanes}}};
static kernel ref_k[] = {{{refs}}};
static const int lengths[] = {{{lengths}}};
enum {{ MAX = 1000 + 64 }};
static float a[MAX], b[MAX], o1[MAX], o2[MAX];
static int idx[MAX], i1[MAX], i2[MAX];
int main(void) {{
  int calls = 0, bad = 0;
  unsigned seed = 2024;
  for (unsigned k = 0; k < sizeof names / sizeof *names; k++)
    for (unsigned l = 0; l < sizeof lengths / sizeof *lengths; l++) {{
      int n = lengths[l];
      for (int i = 0; i < n + 64; i++) {{
        seed = seed * 1103515245u + 12345u;
        a[i] = (float)((int)(seed >> 9) % 8000 - 4000) * 0.001f;
        seed = seed * 1103515245u + 12345u;
        b[i] = (float)((int)(seed >> 9) % 8000 - 4000) * 0.001f;
        seed = seed * 1103515245u + 12345u;
        idx[i] = (int)((seed >> 8) % (unsigned)(n + 64));
        o1[i] = o2[i] = (float)i;
        i1[i] = i2[i] = -i;
      }}
      lanes_k[k](n, a, b, o1, idx, i1);
      ref_k[k](n, a, b, o2, idx, i2);
      calls++;
      if (memcmp(o1, o2, sizeof(float) * (n + 64)) || memcmp(i1, i2, sizeof(int) * (n + 64))) {{
        bad++;
        printf("%s n=%d differs\n", names[k], n);
      }}
    }}
  printf("%d calls, %d mismatches\n", calls, bad);
  return bad != 0;
}}
"#,
        names = names
            .iter()
            .map(|f| format!("\"{f}\""))
            .collect::<Vec<_>>()
            .join(", "),
        lanes = names.join(", "),
        refs = names
            .iter()
            .map(|f| format!("ref_{f}"))
            .collect::<Vec<_>>()
            .join(", "),
        lengths = lengths.join(", "),
    );
    c
}

#[test]
fn kernel_corpus_equals_clang_at_every_width() {
    let d = scratch_dir("kernel-corpus");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/kernels/kernels.c");
    let names = kernel_names(&std::fs::read_to_string(&src).expect("kernels.c"));
    assert!(names.len() >= 40, "{names:?}");
    let reference = d.join("reference.o");
    run(clang()
        .args([
            "-O1",
            "-fno-vectorize",
            "-ffp-contract=off",
            "-DNAME(f)=ref_##f",
            "-c",
        ])
        .args([s(&src), "-o", s(&reference)]));
    let driver_c = d.join("driver.c");
    std::fs::write(&driver_c, driver(&names)).expect("write driver");
    // Each width with the default BOSCC setting (`auto`), and 8 lanes with a gadget at
    // every divergent branch that can have one.
    let builds = [
        (Some(4), "auto"),
        (Some(8), "auto"),
        (Some(16), "auto"),
        (None, "auto"),
        (Some(8), "all"),
    ];
    for (width, boscc) in builds {
        let tag = width.map_or_else(|| "native".to_string(), |w: u16| w.to_string());
        let tag = format!("{tag}-boscc-{boscc}");
        let obj = d.join(format!("kernels-{tag}.o"));
        let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args([
                "compile",
                "-fopenmp-simd",
                "-O2",
                "-march=native",
                "-ffp-contract=off",
            ])
            .arg("--remarks")
            .args(["--boscc", boscc])
            .args(width.map(|w| format!("--simd-width={w}")))
            .args(["-c", s(&src), "-o", s(&obj)]));
        let remarks = String::from_utf8_lossy(&out.stderr);
        for f in &names {
            let taken = remarks.contains(&format!(
                "@{f}: parallel loop vectorized by lanes as an outer loop"
            ));
            let declined =
                remarks.contains(&format!("@{f}: parallel loop not vectorized by lanes"));
            assert!(taken && !declined, "W={tag} {f} not vectorized: {remarks}");
        }
        let exe = d.join(format!("corpus-{tag}"));
        run(clang().args(["-O1", "-o", s(&exe)]).args([
            s(&driver_c),
            s(&obj),
            s(&reference),
            "-lm",
        ]));
        let out = run(&mut Command::new(&exe));
        let text = String::from_utf8_lossy(&out.stdout);
        println!("W={tag}: {text}");
        assert_eq!(
            text,
            format!("{} calls, 0 mismatches\n", names.len() * LENGTHS.len()),
            "W={tag}"
        );
    }
}
