//! Generated C with a loop per element (SuperVectorization, PLDI'22 §3.3 and Fig. 11):
//! an outer loop whose body runs an inner loop over an accumulator — a fixed or a
//! parameter trip count, sometimes an exit that depends on the data, sometimes a guard
//! around the whole inner loop — and stores what it found. Unrolling the outer loop makes
//! copies of the inner loop, which are fused (same iterations) or co-iterated (not), and
//! their μ-nodes packed as vector μ-nodes. Each program is compiled by clang-19 -O2
//! (vectorizers off), packed at three register widths and run against the scalar
//! function: same result, same memory, the same bytes read and written.

use lanes_slp::{SlpError, SlpReport};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::packed_run::pack_and_compare;

/// An expression over the accumulator, the element's inputs and the inner counter.
fn expr(rng: &mut SmallRng, ty: &str, depth: u32) -> String {
    if depth == 0 || rng.gen_bool(0.3) {
        return match rng.gen_range(0..7) {
            0 | 1 => "acc".to_string(),
            2 => "A1[i]".to_string(),
            3 => "A2[i + k]".to_string(),
            4 => "s".to_string(),
            5 => format!("({ty})k"),
            _ => format!("({ty})({})", rng.gen_range(1..5)),
        };
    }
    let (a, b) = (expr(rng, ty, depth - 1), expr(rng, ty, depth - 1));
    match rng.gen_range(0..5) {
        0 => format!("({a} + {b})"),
        1 => format!("({a} - {b})"),
        2 => format!("({a} * {b})"),
        3 => format!("MIN({a}, {b})"),
        _ => format!("MAX({a}, {b})"),
    }
}

/// A loop folding one value per element into an integer accumulator (a reduction seed,
/// §3.2): unrolled, it is split into one accumulator per copy.
fn reduction(rng: &mut SmallRng) -> String {
    let op = ["+", "*", "&", "|", "^"][rng.gen_range(0..5)];
    let value = expr(rng, "unsigned", 2).replace("acc", "A2[i]");
    let value = value
        .replace("A2[i + k]", "A1[i + 1]")
        // (not `(unsigned)i`: clang folds sums of powers of `i` into a closed form with
        // odd-width integers, which lanes does not import yet)
        .replace("(unsigned)k", "A1[i + 2]");
    let init = ["0", "s", "A1[0]"][rng.gen_range(0..3)];
    format!(
        "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
         void f(unsigned *restrict A0, unsigned *restrict A1, unsigned *restrict A2, unsigned t, unsigned s, int n) {{\n\
         \x20 unsigned acc = {init};\n  for (int i = 0; i < n; i++) acc = acc {op} {value};\n  A0[0] = acc + t;\n}}\n"
    )
}

fn program(rng: &mut SmallRng, ty: &str) -> String {
    if ty == "unsigned" && rng.gen_bool(0.4) {
        return reduction(rng);
    }
    let bound = match rng.gen_range(0..3) {
        0 => format!("{}", rng.gen_range(1..12)),
        1 => "n".to_string(),
        _ => "(n % 5)".to_string(),
    };
    let exit = match rng.gen_range(0..4) {
        0 | 1 => String::new(),
        2 => format!(
            "      if (acc > t + ({ty}){}) break;\n",
            rng.gen_range(0..4)
        ),
        _ => "      if (A2[i + k] > t) break;\n".to_string(),
    };
    let update = expr(rng, ty, 3);
    // Keep floats bounded (no infinities or NaN, whose payloads may differ).
    let update = if ty == "unsigned" {
        update
    } else {
        format!("MIN(MAX({update}, ({ty})-64), ({ty})64)")
    };
    let init = ["A1[i]", "s", "0"][rng.gen_range(0..3)];
    let inner = format!(
        "    {ty} acc = {init};\n    int k = 0;\n    for (; k < {bound}; k++) {{\n{exit}      acc = {update};\n    }}\n    A0[i] = acc + ({ty})k;\n"
    );
    let body = if rng.gen_bool(0.25) {
        format!("    if (A1[i] > s) {{\n{inner}    }}\n")
    } else {
        inner
    };
    format!(
        "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
         void f({ty} *restrict A0, {ty} *restrict A1, {ty} *restrict A2, {ty} t, {ty} s, int n) {{\n\
         \x20 for (int i = 0; i < n; i++) {{\n{body}  }}\n}}\n"
    )
}

#[test]
fn generated_loops_per_element_keep_their_meaning_when_merged_and_packed() {
    let dir = lanes_test_support::scratch_dir("slp-generated-nested");
    let programs = 90 * lanes_test_support::soak();
    let mut total = SlpReport::default();
    let mut compared = 0u64;
    let mut declined = 0u64;
    let mut odd_widths = 0u64;
    let (mut reductions, mut reductions_packed) = (0u64, 0u64);
    for seed in 0..programs {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
        let ty = ["float", "unsigned", "double"][rng.gen_range(0..3)];
        let src = program(&mut rng, ty);
        let path = dir.join(format!("p{seed}.c"));
        let bits = [128, 256, 512][(seed % 3) as usize];
        match pack_and_compare(&path, &src, seed, bits, 6, 4_000_000) {
            // Clang folded a sum over the counter into odd-width integers.
            Ok(None) => odd_widths += 1,
            Ok(Some((report, runs))) => {
                let folds = src.contains("acc = acc ");
                reductions += u64::from(folds);
                reductions_packed += u64::from(folds && report.mu_packs > 0);
                total += &report;
                compared += runs;
            }
            // Joins clang made of nested MIN/MAX whose predicates are too large.
            Err(SlpError::TooComplex { .. }) => declined += 1,
            Err(e) => panic!("seed {seed}: {e}\n{src}"),
        }
    }
    eprintln!(
        "{programs} programs ({declined} declined as too complex, {odd_widths} not imported), {compared} runs compared; {} loops unrolled, {} fused and {} co-iterated groups, {} vector μ-nodes, {} packs",
        total.unrolled.len(),
        total.fused,
        total.coiterated,
        total.mu_packs,
        total.packs,
    );
    eprintln!("{reductions_packed} of {reductions} reductions packed as vector accumulators");
    assert!(total.unrolled.len() as u64 >= programs / 3, "{total:?}");
    assert!(
        reductions > 0 && reductions_packed * 2 >= reductions,
        "{reductions_packed} of {reductions}"
    );
    assert!(compared >= programs * 4, "{compared}");
    assert!(declined * 20 <= programs, "{declined} declined");
    assert!(odd_widths * 20 <= programs, "{odd_widths} not imported");
    assert!(total.fused as u64 >= programs / 10, "{total:?}");
    assert!(total.coiterated as u64 >= programs / 10, "{total:?}");
    assert!(total.mu_packs as u64 >= programs / 4, "{total:?}");
}
