//! The builtin library: math, common and integer builtins, and `__constant` data.
//!
//! - `math_builtins.cl`: sixteen math and common builtins per work-item. Each result is
//!   held to OpenCL 1.2's accuracy bound for the function (§7.4, table 7.1, in ulp of the
//!   exact result, computed in `f64`): sin, cos 4; exp, log, exp2, log2 3; pow 16; sqrt 3;
//!   rsqrt 2; atan2 6; fma, clamp, floor, fmod, fabs, fmin exact. `mix` and `smoothstep`
//!   have implementation-defined accuracy; they are held to 1e-5 of their operands'
//!   magnitude (mix's weight comes from the kernel's own `sin`).
//! - `integer_builtins.cl`: sixteen integer builtins on signed, unsigned and narrow
//!   types, with the inputs' edge cases (0, 1, -1, `INT_MIN`, `INT_MAX`) mixed in; exact.
//! - `constant_tables.cl`: program-scope `__constant` arrays (scalar `uint` and `float`,
//!   and `int2`) indexed by data, a `__constant` pointer argument, and a per-work-item word
//!   loop; the CRC is checked against a bitwise CRC-32, the filter exactly (dyadic taps
//!   and integer-valued inputs keep the sums exact).

use lanes_cl::{Arg, Buffer, NdRange};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// (global, local) sizes for one-element-per-work-item kernels.
const SIZES: [(u64, u64); 5] = [(300, 12), (512, 128), (300, 100), (96, 24), (9, 3)];

/// The spacing of floats at `w`'s magnitude.
fn ulp(w: f64) -> f64 {
    let f = (w as f32).abs();
    if f == 0.0 {
        f64::from(f32::from_bits(1))
    } else {
        f64::from(f32::from_bits(f.to_bits() + 1) - f)
    }
}

#[test]
fn math_builtins_within_their_ulp_bounds() {
    for width in WIDTHS {
        let p = build("math_builtins", source!("math_builtins"), width);
        for (global, local) in SIZES {
            let what = format!("math_builtins width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 41 + local);
            let xs = rng.floats(n, -10.0, 10.0);
            let ys = rng.floats(n, -3.0, 3.0);
            let zs = rng.floats(n, -100.0, 100.0);
            let (xb, yb, zb, ob) = (
                Buffer::from_slice(&xs),
                Buffer::from_slice(&ys),
                Buffer::from_slice(&zs),
                Buffer::zeroed(16 * 4 * n),
            );
            run(
                &p,
                "math_builtins",
                &[
                    Arg::Buffer(&xb),
                    Arg::Buffer(&yb),
                    Arg::Buffer(&zb),
                    Arg::Buffer(&ob),
                ],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let got = ob.to_vec::<f32>();
            for i in 0..n {
                let (x, y, z) = (xs[i], ys[i], zs[i]);
                let (xd, yd, zd) = (f64::from(x), f64::from(y), f64::from(z));
                let t = f64::from(x.abs() + 0.5);
                let a = zd.sin().abs();
                let s = ((xd + 1.0) / 3.0).clamp(0.0, 1.0);
                // (name, reference, tolerance)
                let checks: [(&str, f64, f64); 16] = [
                    ("sin", xd.sin(), 4.0),
                    ("cos", xd.cos(), 4.0),
                    ("exp", (xd / 2.0).exp(), 3.0),
                    ("log", t.ln(), 3.0),
                    ("pow", t.powf(yd), 16.0),
                    ("sqrt", xd.abs().sqrt(), 3.0),
                    ("rsqrt", 1.0 / f64::from(x.abs() + 0.25).sqrt(), 2.0),
                    ("fma", f64::from(x.mul_add(y, z)), 0.0),
                    ("clamp", f64::from(x.clamp(-2.0, 3.0)), 0.0),
                    (
                        "mix",
                        xd + (yd - xd) * a,
                        -1e-5 * (xd.abs() + yd.abs() + 1e-3),
                    ),
                    ("smoothstep", s * s * (3.0 - 2.0 * s), -1e-5),
                    ("floor", f64::from((x * 3.5).floor()), 0.0),
                    ("fmod", f64::from(x % 1.75), 0.0),
                    ("atan2", yd.atan2(xd), 6.0),
                    ("fabs/fmin", f64::from(z.abs() - x.min(y)), 0.0),
                    (
                        "exp2*log2",
                        yd.exp2() * f64::from(z.abs() + 1.0).log2(),
                        8.0,
                    ),
                ];
                for (k, &(name, want, tol)) in checks.iter().enumerate() {
                    // Positive: ulps of the result; negative: an absolute bound.
                    let bound = if tol >= 0.0 { tol * ulp(want) } else { -tol };
                    let g = f64::from(got[16 * i + k]);
                    assert!(
                        (g - want).abs() <= bound,
                        "{what}: {name} at work-item {i} (index {}), x {x} y {y} z {z}: got {g}, want {want} (bound {bound:e})",
                        16 * i + k
                    );
                }
            }
        }
    }
}

/// What `integer_builtins` writes for `a` and `b`.
fn integer_reference(a: u32, b: u32) -> [u32; 16] {
    let (sa, sb) = (a as i32, b as i32);
    let s24 = |v: u32| ((v << 8) as i32) >> 8;
    let mad = i64::from(sa) * i64::from(sb) + i64::from((a ^ b) as i32);
    [
        ((i64::from(sa) * i64::from(sb)) >> 32) as u32,
        ((u64::from(a) * u64::from(b)) >> 32) as u32,
        a.rotate_left(b % 32),
        u32::from((a as u8).rotate_left(u32::from(b as u8) % 8)),
        a.leading_zeros(),
        a.count_ones(),
        sa.saturating_add(sb) as u32,
        u32::from((a as u8).saturating_add(b as u8)),
        sa.saturating_sub(sb) as u32,
        sa.abs_diff(sb),
        sa.unsigned_abs(),
        ((i64::from(sa) + i64::from(sb)) >> 1) as u32,
        ((u64::from(a) + u64::from(b) + 1) >> 1) as u32,
        s24(a).wrapping_mul(s24(b)) as u32,
        (u32::from((a >> 16) as u16) << 16) | u32::from(b as u16),
        mad.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32,
    ]
}

#[test]
fn integer_builtins_exact() {
    const EDGES: [u32; 7] = [0, 1, !0, 0x8000_0000, 0x7fff_ffff, 0xff, 0x8000];
    for width in WIDTHS {
        let p = build("integer_builtins", source!("integer_builtins"), width);
        for (global, local) in SIZES {
            let what = format!("integer_builtins width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 43 + local);
            let mut word = |i: usize| match i % 3 {
                0 => EDGES[rng.next_u32() as usize % EDGES.len()],
                1 => rng.next_u32() >> (rng.next_u32() % 32),
                _ => rng.next_u32(),
            };
            let a: Vec<u32> = (0..n).map(&mut word).collect();
            let b: Vec<u32> = (0..n).map(|i| word(i + 1)).collect();
            let (ab, bb, ob) = (
                Buffer::from_slice(&a),
                Buffer::from_slice(&b),
                Buffer::zeroed(16 * 4 * n),
            );
            run(
                &p,
                "integer_builtins",
                &[Arg::Buffer(&ab), Arg::Buffer(&bb), Arg::Buffer(&ob)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let want: Vec<u32> = (0..n).flat_map(|i| integer_reference(a[i], b[i])).collect();
            let got = ob.to_vec::<u32>();
            if let Some(j) = (0..16 * n).find(|&j| got[j] != want[j]) {
                panic!(
                    "{what}: builtin {} of work-item {} (index {j}), a {:#x} b {:#x}: got {:#x}, want {:#x}",
                    j % 16,
                    j / 16,
                    a[j / 16],
                    b[j / 16],
                    got[j],
                    want[j]
                );
            }
        }
    }
}

/// CRC-32 (IEEE, reflected), a bit at a time.
fn crc32(bytes: impl Iterator<Item = u8>) -> u32 {
    let mut c = !0u32;
    for byte in bytes {
        c ^= u32::from(byte);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn program_scope_constant_tables() {
    // The check value of CRC-32: "123456789" (one byte short of whole words, so not via
    // the kernel) confirms the reference itself.
    assert_eq!(crc32(b"123456789".iter().copied()), 0xcbf4_3926);
    for width in WIDTHS {
        let p = build("constant_tables", source!("constant_tables"), width);
        for (global, local) in SIZES {
            let what = format!("crc32_words width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 47 + local);
            let mut starts = vec![0i32];
            for i in 0..n {
                let len = (i * 7 + rng.int(0, 5) as usize) % 13;
                starts.push(starts[i] + len as i32);
            }
            let words: Vec<u32> = (0..starts[n]).map(|_| rng.next_u32()).collect();
            let (wb, sb, cb) = (
                Buffer::from_slice(&words),
                Buffer::from_slice(&starts),
                Buffer::zeroed(4 * n),
            );
            run(
                &p,
                "crc32_words",
                &[Arg::Buffer(&wb), Arg::Buffer(&sb), Arg::Buffer(&cb)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    let run = &words[starts[i] as usize..starts[i + 1] as usize];
                    crc32(run.iter().flat_map(|w| w.to_le_bytes()))
                })
                .collect();
            assert_same(&cb.to_vec::<u32>(), &want, &what);

            // The filter over n - 3 elements (the rest of the range returns early).
            let m = n.saturating_sub(3).max(1);
            let input: Vec<f32> = rng.ints(m, -100, 100).iter().map(|&v| v as f32).collect();
            let bias: Vec<f32> = (0..8).map(|k| k as f32 * 10.0).collect();
            for which in 0..2 {
                let what = format!(
                    "fir5 width {width:?} global {global} local {local} n {m} which {which}"
                );
                let (ib, ob, bb) = (
                    Buffer::from_slice(&input),
                    Buffer::from_slice(&vec![0.5f32; n]),
                    Buffer::from_slice(&bias),
                );
                run(
                    &p,
                    "fir5",
                    &[
                        Arg::Buffer(&ib),
                        Arg::Buffer(&ob),
                        Arg::Buffer(&bb),
                        Arg::i32(m as i32),
                        Arg::i32(which),
                    ],
                    &NdRange::new(&[global], &[local]),
                    &what,
                );
                let taps = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
                let (modulus, shift) = [(4, 0), (3, 4)][which as usize];
                let want: Vec<f32> = (0..n)
                    .map(|i| {
                        if i >= m {
                            return 0.5;
                        }
                        let acc: f32 = (0..5)
                            .map(|k| taps[k] * input[(i + k).saturating_sub(2).min(m - 1)])
                            .sum();
                        acc + bias[i % modulus + shift]
                    })
                    .collect();
                assert_same(&ob.to_vec::<f32>(), &want, &what);
            }
        }
    }
}
