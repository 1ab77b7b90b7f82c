//! End-to-end test of `-fveclib=libmvec` (calls become vector variants,
//! math part): the `#pragma omp simd` loops of `tests/data/veclib_kernels.c` call `sinf`,
//! `cosf`, `expf`, `logf`, `tanf`, `powf`, `atan2f`, `sin`, `cos`, `exp`, `log` and `pow`.
//! `lanes compile -fopenmp-simd -fveclib=libmvec -fno-math-errno -march=native` must call
//! glibc's libmvec variants for the host's ISA — `nm -u` lists exactly the expected
//! `_ZGV<isa>N<lanes>v…` names and no scalar libm function — at 4, 8 and the default
//! lanes; `expf` and `logf` are the exception on a CPU with FMA, where lanes computes them
//! inline (`inline_exp_and_log_are_within_an_ulp…`); without the flag no `_ZGV` symbol
//! appears. The objects, linked with `-lmvec -lm`
//! into `tests/data/veclib_driver.c` (clang-19), must agree with scalar libm within 4 ulp
//! (9 ulp for a product of two calls) on random and special inputs and trip counts 0…67
//! and 65536. `lanes vectorize -fveclib=libmvec` calls libmvec too.

use crate::common;

use std::process::Command;

use common::{clang, cpu_has, run, s, scratch_dir, symbols};

/// The libm functions the kernels call, with their element width in bits and arity.
const FUNCS: [(&str, u32, usize); 12] = [
    ("sinf", 32, 1),
    ("cosf", 32, 1),
    ("expf", 32, 1),
    ("logf", 32, 1),
    ("tanf", 32, 1),
    ("powf", 32, 2),
    ("atan2f", 32, 2),
    ("sin", 64, 1),
    ("cos", 64, 1),
    ("exp", 64, 1),
    ("log", 64, 1),
    ("pow", 64, 2),
];

/// The host's widest vector register in bits.
fn max_bits() -> u32 {
    if cpu_has("avx512f") {
        512
    } else if cpu_has("avx") {
        256
    } else {
        128
    }
}

/// The libmvec name the x86 vector-function ABI gives `f` on `lanes` lanes of `elem_bits`
/// bits: pieces as wide as the host's registers allow.
fn expected_name(f: &str, elem_bits: u32, arity: usize, lanes: u32) -> String {
    let bits = lanes * elem_bits;
    let piece = [512, 256, 128]
        .into_iter()
        .find(|&p| p <= max_bits() && p <= bits && bits.is_multiple_of(p))
        .expect("a piece width");
    let isa = match piece {
        128 => 'b',
        256 if cpu_has("avx2") => 'd',
        256 => 'c',
        _ => 'e',
    };
    format!("_ZGV{isa}N{}{}_{f}", piece / elem_bits, "v".repeat(arity))
}

fn compile(src: &std::path::Path, obj: &std::path::Path, extra: &[&str]) -> Vec<String> {
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["compile", "-fopenmp-simd", "-O2", "-march=native"])
        .args(extra)
        .args(["-c", s(src), "-o", s(obj)]));
    symbols(obj, &["-u"])
}

#[test]
fn omp_simd_math_calls_libmvec_within_4_ulp() {
    let d = scratch_dir("veclib");
    let src = common::data("veclib_kernels.c");
    let default = if cpu_has("avx512f") {
        16
    } else if cpu_has("avx2") {
        8
    } else {
        4
    };
    for width in [default, 4, 8] {
        let obj = d.join(format!("veclib-{width}.o"));
        let simd_width = format!("--simd-width={width}");
        let undefined = compile(
            &src,
            &obj,
            &["-fveclib=libmvec", "-fno-math-errno", &simd_width],
        );
        // With FMA, `expf` and `logf` are inline (modules `exp` and `log` of lanes-llvm's
        // export).
        let mut expected: Vec<String> = FUNCS
            .iter()
            .filter(|&&(f, _, _)| !matches!(f, "expf" | "logf") || !cpu_has("fma"))
            .map(|&(f, bits, arity)| expected_name(f, bits, arity, width))
            .collect();
        expected.sort();
        let vector: Vec<String> = undefined
            .iter()
            .filter(|n| n.starts_with("_ZGV"))
            .cloned()
            .collect();
        assert_eq!(vector, expected, "W={width}: {undefined:?}");
        for (f, _, _) in FUNCS {
            assert!(!undefined.iter().any(|n| n == f), "W={width}: calls {f}");
        }

        let exe = d.join(format!("veclib-{width}"));
        run(clang()
            .args(["-O2", "-march=native", "-fno-vectorize"])
            .arg(s(&common::data("veclib_driver.c")))
            .arg(s(&obj))
            .args(["-lmvec", "-lm", "-o", s(&exe)]));
        let out = run(&mut Command::new(&exe));
        let text = String::from_utf8_lossy(&out.stdout);
        println!("W={width}:\n{text}");
        assert!(
            text.contains("veclib: 0 mismatches (tolerance 4 ulp, 9 for products)"),
            "W={width}: {text}"
        );
    }
    // Without the flag, vector math stays LLVM intrinsics (scalarized into libm calls).
    let undefined = compile(&src, &d.join("plain.o"), &["-fno-math-errno"]);
    assert!(
        !undefined.iter().any(|n| n.starts_with("_ZGV")),
        "{undefined:?}"
    );
    assert!(undefined.iter().any(|n| n == "sinf"), "{undefined:?}");
}

#[test]
fn llvm_loop_vectorizer_uses_libmvec_on_unmarked_loops() {
    // A loop without `omp simd` is LLVM's to vectorize; lanes announces libmvec's variants
    // of its math calls (`vector-function-abi-variant`), as clang's -fveclib does.
    let d = scratch_dir("veclib-llvm-lv");
    let src = d.join("plain.c");
    std::fs::write(
        &src,
        "#include <math.h>\n\
         void plain(int n, const float *restrict x, float *restrict y) {\n\
           for (int i = 0; i < n; i++) y[i] = expf(-x[i] * x[i]) * sinf(x[i]) + tanf(x[i]);\n\
         }\n",
    )
    .expect("write source");
    let obj = d.join("plain.o");
    let undefined = compile(&src, &obj, &["-fveclib=libmvec", "-fno-math-errno"]);
    for f in ["expf", "sinf", "tanf"] {
        assert!(
            undefined
                .iter()
                .any(|n| n.starts_with("_ZGV") && n.ends_with(&format!("v_{f}"))),
            "{f}: {undefined:?}"
        );
    }
}

#[test]
fn lanes_vectorize_takes_fveclib() {
    let d = scratch_dir("veclib-vectorize");
    let src = d.join("wave.c");
    std::fs::write(
        &src,
        "#include <math.h>\n\
         void wave(int i, const float *x, float *y) { y[i] = expf(-x[i] * x[i]) * sinf(x[i]); }\n",
    )
    .expect("write source");
    let obj = d.join("wave.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["vectorize", "-fveclib=libmvec", s(&src)])
        .args(["--shapes", "c,u,u", "--width", "8", "-o", s(&obj)]));
    let undefined = symbols(&obj, &["-u"]);
    let name = expected_name("sinf", 32, 1, 8);
    assert!(undefined.contains(&name), "{name}: {undefined:?}");
    // `expf` inline where the CPU has FMA, else libmvec's.
    let name = expected_name("expf", 32, 1, 8);
    assert_eq!(undefined.contains(&name), !cpu_has("fma"), "{undefined:?}");
}

/// Builds `kernels` with `lanes compile -fopenmp-simd -fveclib=libmvec` at 4, 8 and 16
/// lanes for the host (and at 8 for Haswell, without mask registers, on an AVX-512 host),
/// links each with the C `driver` of tests/data and libmvec, and runs it: the build's name
/// and the driver's output, per build.
fn run_inline_math_driver(
    d: &std::path::Path,
    kernels: &std::path::Path,
    driver: &str,
) -> Vec<(&'static str, String)> {
    let mut builds = vec![
        ("w4", "--simd-width=4", "-march=native"),
        ("w8", "--simd-width=8", "-march=native"),
        ("w16", "--simd-width=16", "-march=native"),
    ];
    if cpu_has("avx512f") {
        builds.push(("haswell", "--simd-width=8", "-march=haswell"));
    }
    let stem = driver.trim_end_matches(".c");
    let mut outputs = Vec::new();
    for (name, width, march) in builds {
        let obj = d.join(format!("{stem}-{name}.o"));
        run(Command::new(env!("CARGO_BIN_EXE_lanes"))
            .args(["compile", "-fopenmp-simd", "-O2", march, width])
            .args(["-fveclib=libmvec", "-fno-math-errno"])
            .args(["-c", s(kernels), "-o", s(&obj)]));
        let exe = d.join(format!("{stem}-{name}"));
        run(clang()
            .args(["-O2", "-march=native", "-fno-vectorize"])
            .arg(s(&common::data(driver)))
            .arg(s(&obj))
            .args(["-Wl,--no-as-needed", "-lmvec", "-lm", "-o", s(&exe)]));
        let out = run(&mut Command::new(&exe));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        println!("{driver} {name}:\n{text}");
        outputs.push((name, text));
    }
    outputs
}

#[test]
fn inline_exp_and_log_are_within_an_ulp_of_the_exact_functions() {
    // `expf` and `logf` on float vectors with a vector library and FMA: lanes' inline
    // functions (the driver counts the calls that reach libmvec's variants: none), within
    // 1 ulp of the correctly rounded function over every 61st float of its domain, special
    // cases exact, masked lanes untouched (tests/data/exp_log_driver.c).
    let d = scratch_dir("exp-log");
    let src = common::data("exp_log_kernels.c");
    for (name, text) in run_inline_math_driver(&d, &src, "exp_log_driver.c") {
        for f in ["exp", "log"] {
            assert!(
                text.lines()
                    .any(|l| l.starts_with(&format!("{f}: ")) && l.ends_with(", 0 mismatches")),
                "{f} {name}: {text}"
            );
        }
        assert!(text.contains("library calls: 0"), "{name}: {text}");
    }
    // Without FMA (generic x86-64), libmvec's.
    let obj = d.join("generic.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args([
            "compile",
            "-fopenmp-simd",
            "-O2",
            "-march=x86-64",
            "--simd-width=4",
        ])
        .args(["-fveclib=libmvec", "-fno-math-errno"])
        .args(["-c", s(&src), "-o", s(&obj)]));
    let undefined = symbols(&obj, &["-u"]);
    for f in ["_ZGVbN4v_expf", "_ZGVbN4v_logf"] {
        assert!(undefined.iter().any(|n| n == f), "{f}: {undefined:?}");
    }
}

#[test]
fn integer_powers_are_inline_and_within_an_ulp_of_the_exact_power() {
    // `powf(x, (float)n)` with a vector library: every lane's exponent a small integer
    // takes lanes' inline binary powering (the driver counts the calls that reach
    // libmvec's `powf`: none), other exponents libmvec; results within 1 ulp of the
    // correctly rounded power, IEEE's special cases exact (tests/data/powi_driver.c).
    let d = scratch_dir("powi");
    let src = common::data("powi_kernels.c");
    for (name, text) in run_inline_math_driver(&d, &src, "powi_driver.c") {
        assert!(text.contains("powi: 0 mismatches"), "{name}: {text}");
        assert!(
            text.contains("library calls: 0 for integer exponents"),
            "{name}: {text}"
        );
    }
    // Without a vector library, scalar libm's powf per lane, as before.
    let undefined = compile(&src, &d.join("plain.o"), &["-fno-math-errno"]);
    assert!(undefined.iter().any(|n| n == "powf"), "{undefined:?}");
}
