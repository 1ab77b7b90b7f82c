//! Floating point as clang does it: `lanes vectorize -O3 -march=native` computes bit for bit
//! what clang-19 computes with the same flags. Clang contracts `a * b + c` into
//! `llvm.fmuladd` under its default `-ffp-contract=on`; lanes keeps it (vector `fmuladd`
//! after widening) and LLVM fuses it for the host exactly where it fuses clang's scalar
//! code; `fmaf` is a fused `fma` on both sides.
//!
//! Kernels: the bundled Mandelbrot (`examples/mandelbrot.c`, PLDI'18 Fig. 9, whose escape
//! count amplifies any last-bit difference) over 320×240 pixels and a polynomial mixing
//! `fmaf` with `a * b + c` (`tests/data/fp_contract_kernel.c`) on 76,800 inputs. The
//! clang-built references with `-ffp-contract=off` must differ from the default ones, so
//! that the comparison can see a fusion choice. Skipped, with a note, without FMA.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{clang, cpu_has, data, run, s, scratch_dir};

#[test]
fn vectorized_kernels_equal_clang_with_the_same_flags_bit_for_bit() {
    if !cpu_has("fma") {
        eprintln!("note: the host has no FMA; fmuladd is not fused on either side, skipped");
        return;
    }
    let d = scratch_dir("fp_contract");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let kernels = [
        (root.join("examples/mandelbrot.c"), "mandel", "u,c,u,u,u"),
        (data("fp_contract_kernel.c"), "horner", "u,c,u"),
    ];
    let mut objects = Vec::new();
    for (src, f, shapes) in &kernels {
        let lanes = d.join(format!("{f}_lanes.o"));
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["vectorize", s(src), "--function", f, "--shapes", shapes])
            .args(["-O3", "-march=native", "-o", s(&lanes)]));
        objects.push(lanes);
        for (prefix, extra) in [("ref", None), ("off", Some("-ffp-contract=off"))] {
            let obj = d.join(format!("{f}_{prefix}.o"));
            let mut cc = clang();
            cc.args(["-O3", "-march=native", "-c"])
                .arg(format!("-D{f}={prefix}_{f}"));
            if let Some(flag) = extra {
                cc.arg(flag);
            }
            run(cc.arg(s(src)).arg("-o").arg(&obj));
            objects.push(obj);
        }
    }
    let exe = d.join("fp_contract");
    run(clang()
        .args(["-O1", "-o", s(&exe)])
        .arg(data("fp_contract_driver.c"))
        .args(&objects)
        .arg("-lm"));
    let out = run(&mut Command::new(&exe));
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    eprint!("{out}");
    for (_, f, _) in &kernels {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{f} ")))
            .unwrap_or_else(|| panic!("no {f} line in {out}"));
        let n: Vec<usize> = line
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().expect("count"))
            .collect();
        assert_eq!(
            n[0], 0,
            "{f}: lanes differs from clang-19 -O3 -march=native: {line}"
        );
        assert!(
            n[1] > 0,
            "{f}: fusion changes nothing here, the test is blind: {line}"
        );
    }
}
