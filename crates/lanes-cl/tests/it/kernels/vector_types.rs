//! OpenCL vector types: the front end scalarizes them after inlining the builtin library,
//! and the vectorizer then widens each scalar across work-items, so every component
//! operation, swizzle and conversion below ends up as its own lane-wise instruction.
//!
//! - `float4_ops.cl`: `float4` arithmetic with swizzles (`.wzyx`, `.lo/.hi`,
//!   `.even/.odd`, `.s3210`), swizzled stores, scalar widening, `normalize`, `cross`, `dot`,
//!   `length`, `distance`, `fmin`/`fmax`; the data-movement results must match exactly, the
//!   geometric ones within 1e-5 relative (absolute below the size of the products involved,
//!   where cancellation makes relative error meaningless).
//! - `int4_ops.cl`: `int4` arithmetic, shifts, division, comparison masks (-1 for true),
//!   `select`, the vector `?:`, `abs_diff`, `as_int4`, `any` and `all`; exact.
//! - `vector_load_store.cl`: `vload4`/`vstore4` at addresses that are not 16-byte
//!   aligned, `vload3`/`vstore3` and `vload2`/`vstore2`, `convert_int4_sat` (toward zero,
//!   saturating, NaN to 0), `convert_int4_sat_rte`, `convert_uchar4_sat`, `convert_float2`;
//!   exact.

use lanes_cl::{Arg, Buffer, NdRange};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// (global, local) sizes for one-vector-per-work-item kernels.
const SIZES: [(u64, u64); 5] = [(300, 12), (256, 256), (300, 100), (120, 24), (7, 7)];

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What `float4_ops` writes for `x` and `y`, and the magnitude below which each of its
/// eight vectors' errors are judged absolutely.
fn float4_reference(x: [f32; 4], y: [f32; 4]) -> ([[f64; 4]; 8], [f64; 8]) {
    let xd = x.map(f64::from);
    let yd = y.map(f64::from);
    let swz: [f64; 4] = std::array::from_fn(|c| {
        let [w, z, yy, xx] = [x[3], x[2], x[1], x[0]];
        let rev = [w, z, yy, xx][c];
        f64::from(rev * 2.0 + y[[0, 0, 1, 1][c]] - (c + 1) as f32)
    });
    let len = dot(&xd, &xd).sqrt();
    let cross = [
        xd[1] * yd[2] - xd[2] * yd[1],
        xd[2] * yd[0] - xd[0] * yd[2],
        xd[0] * yd[1] - xd[1] * yd[0],
    ];
    let diff: Vec<f64> = (0..4).map(|c| xd[c] - yd[c]).collect();
    let fm: [f64; 4] =
        std::array::from_fn(|c| f64::from(x[c].max(y[c]) - x[c].min(y[3 - c]) * 0.5));
    let out = [
        swz,
        [xd[0], xd[1], yd[2], yd[3]],
        [xd[0], xd[2], yd[1], yd[3]],
        [xd[2], xd[3], yd[1], yd[0] + 1.0],
        xd.map(|v| v / len),
        [cross[0], cross[1], cross[2], dot(&xd, &yd)],
        fm,
        [
            len,
            dot(&diff, &diff).sqrt(),
            xd[0] * yd[2] + xd[1] * yd[3],
            dot(&xd[..3], &xd[..3]).sqrt(),
        ],
    ];
    (out, [1.0, 1.0, 1.0, 1.0, 1.0, 400.0, 1.0, 200.0])
}

#[test]
fn float4_arithmetic_swizzles_and_geometry() {
    for width in WIDTHS {
        let p = build("float4_ops", source!("float4_ops"), width);
        for (global, local) in SIZES {
            let what = format!("float4_ops width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 29 + local);
            let (a, b) = (
                rng.floats(4 * n, -10.0, 10.0),
                rng.floats(4 * n, -10.0, 10.0),
            );
            let (ab, bb, ob) = (
                Buffer::from_slice(&a),
                Buffer::from_slice(&b),
                Buffer::zeroed(n * 8 * 16),
            );
            run(
                &p,
                "float4_ops",
                &[Arg::Buffer(&ab), Arg::Buffer(&bb), Arg::Buffer(&ob)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let got = ob.to_vec::<f32>();
            for i in 0..n {
                let x: [f32; 4] = a[4 * i..4 * i + 4].try_into().unwrap();
                let y: [f32; 4] = b[4 * i..4 * i + 4].try_into().unwrap();
                let (want, floors) = float4_reference(x, y);
                for (slot, vector) in want.iter().enumerate() {
                    for (c, &w) in vector.iter().enumerate() {
                        let g = f64::from(got[32 * i + 4 * slot + c]);
                        let tol = if (1..=3).contains(&slot) {
                            0.0
                        } else {
                            1e-5 * w.abs().max(floors[slot])
                        };
                        assert!(
                            (g - w).abs() <= tol,
                            "{what}: work-item {i}, result {slot}, component {c} (index {}): got {g}, want {w}",
                            32 * i + 4 * slot + c
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn int4_operators_select_any_all() {
    for width in WIDTHS {
        let p = build("int4_ops", source!("int4_ops"), width);
        for (global, local) in SIZES {
            let what = format!("int4_ops width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 31 + local);
            // Small ranges so that equal components (for `==`) occur.
            let (a, b) = (rng.ints(4 * n, -100, 100), rng.ints(4 * n, -100, 100));
            let (ab, bb, ob, fb) = (
                Buffer::from_slice(&a),
                Buffer::from_slice(&b),
                Buffer::zeroed(n * 8 * 16),
                Buffer::zeroed(n * 4),
            );
            run(
                &p,
                "int4_ops",
                &[
                    Arg::Buffer(&ab),
                    Arg::Buffer(&bb),
                    Arg::Buffer(&ob),
                    Arg::Buffer(&fb),
                ],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let mut want = Vec::with_capacity(32 * n);
            let mut flags = Vec::with_capacity(n);
            for i in 0..n {
                let x = &a[4 * i..4 * i + 4];
                let y = &b[4 * i..4 * i + 4];
                let lanes = |f: &dyn Fn(usize) -> i32| -> [i32; 4] { std::array::from_fn(f) };
                let results = [
                    lanes(&|c| x[c] + y[c] * 3 - (x[c] >> 2)),
                    lanes(&|c| (x[c] & y[c]) | (x[c] ^ (c as i32 + 1))),
                    lanes(&|c| x[c] << (y[c] & 7)),
                    lanes(&|c| x[c] / (y[c] | 1)),
                    lanes(&|c| x[c] % (y[c] | 1)),
                    lanes(&|c| -i32::from(x[c] < y[c])),
                    lanes(&|c| x[c].min(y[c])),
                    lanes(&|c| {
                        if x[c] > y[c] {
                            x[3 - c]
                        } else {
                            x[c].abs_diff(y[c]) as i32
                        }
                    }),
                ];
                want.extend(results.iter().flatten());
                let any_gt = (0..4).any(|c| x[c] > y[c]);
                let all_gt = x.iter().all(|&v| v > -50);
                let any_eq = (0..2).any(|c| x[c] == y[c]);
                let all_nz = x[..2].iter().all(|&v| v != 0);
                flags.push(
                    i32::from(any_gt)
                        | i32::from(all_gt) << 1
                        | i32::from(any_eq) << 2
                        | i32::from(all_nz) << 3,
                );
            }
            assert_same(&ob.to_vec::<i32>(), &want, &format!("{what} (vectors)"));
            assert_same(
                &fb.to_vec::<i32>(),
                &flags,
                &format!("{what} (any/all flags)"),
            );
        }
    }
}

#[test]
fn vload_vstore_and_saturating_conversions() {
    for width in WIDTHS {
        let p = build("vector_load_store", source!("vector_load_store"), width);
        for (global, local) in SIZES {
            let what = format!("vload_convert width {width:?} global {global} local {local}");
            let n = global as usize;
            let mut rng = Rng::new(global * 37 + local);
            // Floats beyond the int range, halves (for round-to-even), NaN and infinities.
            let mut src: Vec<f32> = (0..4 * n + 1)
                .map(|i| match i % 7 {
                    0 => rng.float(-3e9, 3e9),
                    1 => rng.int(-300, 300) as f32 + 0.5,
                    2 => rng.float(-300.0, 300.0),
                    _ => rng.float(-2.0, 260.0),
                })
                .collect();
            // (Every size has at least 29 floats.)
            src[5] = f32::NAN;
            src[11] = f32::INFINITY;
            src[17] = f32::NEG_INFINITY;
            let ints_in = rng.ints(2 * n, -20_000_000, 20_000_000);
            let sb = Buffer::from_slice(&src);
            let ib = Buffer::from_slice(&ints_in);
            let outs = [
                Buffer::from_slice(&vec![7i32; 4 * n + 2]),
                Buffer::from_slice(&vec![7i32; 4 * n + 1]),
                Buffer::zeroed(4 * n),
                Buffer::zeroed(3 * n * 4),
                Buffer::zeroed(2 * n * 4),
            ];
            run(
                &p,
                "vload_convert",
                &[
                    Arg::Buffer(&sb),
                    Arg::Buffer(&ib),
                    Arg::Buffer(&outs[0]),
                    Arg::Buffer(&outs[1]),
                    Arg::Buffer(&outs[2]),
                    Arg::Buffer(&outs[3]),
                    Arg::Buffer(&outs[4]),
                ],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let v = &src[1..];
            let trunc: Vec<i32> = v.iter().map(|&f| f as i32).collect();
            let mut want_ints = vec![7, 7];
            want_ints.extend(&trunc);
            let mut want_rounded = vec![7];
            want_rounded.extend(v.iter().map(|&f| f.round_ties_even() as i32));
            let want_bytes: Vec<u8> = trunc.iter().map(|&t| t.clamp(0, 255) as u8).collect();
            let want_threes: Vec<f32> = src[..3 * n]
                .chunks(3)
                .flat_map(|t| [t[2] * 2.0, t[1] * 2.0, t[0] * 2.0])
                .collect();
            let want_pairs: Vec<f32> = ints_in.iter().map(|&i| i as f32).collect();
            assert_same(
                &outs[0].to_vec::<i32>(),
                &want_ints,
                &format!("{what} (convert_int4_sat)"),
            );
            assert_same(
                &outs[1].to_vec::<i32>(),
                &want_rounded,
                &format!("{what} (convert_int4_sat_rte)"),
            );
            assert_same(
                &outs[2].to_vec::<u8>(),
                &want_bytes,
                &format!("{what} (convert_uchar4_sat)"),
            );
            // Compared by bits, any NaN matching any NaN.
            let bits = |v: &[f32]| -> Vec<Option<u32>> {
                v.iter()
                    .map(|f| (!f.is_nan()).then(|| f.to_bits()))
                    .collect()
            };
            assert_same(
                &bits(&outs[3].to_vec::<f32>()),
                &bits(&want_threes),
                &format!("{what} (vload3/vstore3)"),
            );
            assert_same(
                &outs[4].to_vec::<f32>(),
                &want_pairs,
                &format!("{what} (vload2/convert_float2)"),
            );
        }
    }
}
