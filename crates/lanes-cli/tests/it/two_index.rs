//! Gathers and scatters at `base + a[i] + b[i]` with two `int` indices: one 32-bit-index
//! gather of the full width where no active lane's `a + b` overflows, the 64-bit address
//! otherwise (`lanes-llvm` `export/two_index.rs`). Checked in the disassembly, and at run
//! time against the same accesses done one by one, with sums past `INT_MAX` into a
//! buffer of more than 2 GiB, inactive lanes whose indices point nowhere, and tails.

use crate::common;

use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir, scratch_file};

/// The builds: `(name, -march, width)`; Haswell's too where the host runs it under
/// AVX-512.
fn builds() -> Vec<(&'static str, &'static str, &'static str)> {
    let mut b = vec![
        ("w4", "-march=native", "--simd-width=4"),
        ("w8", "-march=native", "--simd-width=8"),
        ("w16", "-march=native", "--simd-width=16"),
    ];
    if cpu_has("avx512f") {
        b.push(("haswell", "-march=haswell", "--simd-width=8"));
    }
    b
}

#[test]
fn two_int_indices_are_one_32_bit_gather_and_keep_their_meaning_past_2_gib() {
    let d = scratch_dir("two-index");
    let kernels = data("two_index_kernels.c");
    for (name, march, width) in builds() {
        let obj = d.join(format!("{name}.o"));
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["compile", "-fopenmp-simd", "-O2", march, width])
            .args(["-c", s(&kernels), "-o", s(&obj)]));
        let exe = d.join(name);
        run(clang()
            .args(["-O2", "-fno-vectorize", "-fno-slp-vectorize"])
            .arg(s(&data("two_index_driver.c")))
            .arg(s(&obj))
            .args(["-o", s(&exe)]));
        let out = run(&mut Command::new(&exe));
        let text = String::from_utf8_lossy(&out.stdout);
        println!("{name}: {text}");
        assert!(
            text.contains("two_index: 0 mismatches") || text.contains("skipped"),
            "{name}: {text}"
        );
    }
}

#[test]
fn a_row_then_a_column_gathers_with_32_bit_indices() {
    let src = scratch_file(
        "rows.c",
        "void rows(long i, const float *grid, const int *row, const int *col, float *out) {\n\
         \x20 const float *r = grid + row[i];\n\
         \x20 out[i] = r[col[i]] + 2.0f * r[col[i] + 1];\n}\n",
    );
    let d = scratch_dir("two-index-asm");
    for (march, reg) in [
        ("-march=haswell", "%ymm"),
        ("-march=skylake-avx512", "%zmm"),
    ] {
        let asm = d.join("rows.s");
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(&src), "--function", "rows"])
            .args(["--shapes", "c,u,u,u,u", march, "-O3", "-o", s(&asm)]));
        let text = std::fs::read_to_string(&asm).expect("assembly");
        // The narrow path: 32-bit indices scaled by 4, a full register wide, one per
        // access; the wide path keeps 64-bit ones.
        let narrow = text
            .lines()
            .filter(|l| l.contains("vgatherdps") && l.contains(reg) && l.contains(",4)"))
            .count();
        assert!(narrow >= 2, "{march}: {narrow} narrow gathers\n{text}");
        assert!(text.contains("vgatherqps"), "{march}: no wide path\n{text}");
    }
}

/// `lanes compile` asks for hardware gathers in the functions it vectorized, as `lanes
/// vectorize` does: on Haswell, whose LLVM tuning would otherwise turn each gather into
/// eight branches and scalar loads, an `omp simd` loop's row-and-column lookup is
/// `vgatherdps` on `ymm`.
#[test]
fn omp_simd_loops_get_hardware_gathers_on_avx2() {
    let d = scratch_dir("two-index-compile");
    let asm = d.join("k.s");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["compile", "-fopenmp-simd", "-O2", "-march=haswell", "-S"])
        .args([s(&data("two_index_kernels.c")), "-o", s(&asm)]));
    let text = std::fs::read_to_string(&asm).expect("assembly");
    let narrow = text
        .lines()
        .filter(|l| l.contains("vgatherdps") && l.contains("%ymm") && l.contains(",4)"))
        .count();
    assert!(narrow >= 2, "{narrow} hardware gathers\n{text}");
}
