//! CC'12's floating-point benchmarks: BlackScholes, DCT, Mandelbrot and NBody.
//!
//! - `black_scholes.cl`: straight-line math (exp, log, sqrt) behind an early return, and a
//!   helper function; compared with the same formulas in `f64` within 1e-4 relative
//!   (absolute below 1), well above float rounding of prices up to ~100.
//! - `dct8x8.cl`: the 8x8 block DCT, once per coefficient from global memory (any group
//!   shape) and once separably through two `__local` pointer arguments and two barriers
//!   (groups of whole blocks); compared with the DCT-II definition in `f64` within 1e-4 of
//!   the block's magnitude.
//! - `mandelbrot.cl`: per-work-item trip counts in a 2-D NDRange; written with explicit
//!   `fma`, and mirrored with `mul_add` in Rust, so the escape counts must match exactly.
//! - `nbody.cl`: `__local` tiles of `float4` with barriers in a loop, `float3` swizzles,
//!   `dot` and `rsqrt`; each body's acceleration is compared with an `f64` sum within 1e-4
//!   of the sum of the magnitudes of its terms (cancellation makes a plain relative bound
//!   meaningless).

use lanes_cl::{Arg, Buffer, NdRange};

use super::{assert_close, assert_same, build, run, source, Rng, WIDTHS};

/// The Abramowitz-Stegun cumulative normal the kernel uses, in `f64`.
fn cnd(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let poly = k
        * (0.319_381_53
            + k * (-0.356_563_782
                + k * (1.781_477_937 + k * (-1.821_255_978 + k * 1.330_274_429))));
    let c = (-0.5 * d * d).exp() * poly / (2.0 * std::f64::consts::PI).sqrt();
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

#[test]
fn black_scholes() {
    let (rate, vol) = (0.02f32, 0.30f32);
    for width in WIDTHS {
        let p = build("black_scholes", source!("black_scholes"), width);
        // (options, global, local): global sizes at least the option count.
        for (n, global, local) in [
            (300usize, 300u64, 12u64),
            (1000, 1024, 256),
            (250, 300, 100),
            (100, 120, 24),
            (37, 37, 37),
        ] {
            let what = format!("black_scholes width {width:?} n {n} global {global} local {local}");
            let mut rng = Rng::new(n as u64 * 3 + local);
            let spot = rng.floats(n, 5.0, 30.0);
            let strike = rng.floats(n, 1.0, 100.0);
            let years = rng.floats(n, 0.25, 10.0);
            let (sb, kb, tb) = (
                Buffer::from_slice(&spot),
                Buffer::from_slice(&strike),
                Buffer::from_slice(&years),
            );
            // One element more than the options: the early return must leave it alone.
            let (cb, pb) = (
                Buffer::from_slice(&vec![-1.0f32; n + 1]),
                Buffer::from_slice(&vec![-1.0f32; n + 1]),
            );
            run(
                &p,
                "black_scholes",
                &[
                    Arg::Buffer(&sb),
                    Arg::Buffer(&kb),
                    Arg::Buffer(&tb),
                    Arg::f32(rate),
                    Arg::f32(vol),
                    Arg::Buffer(&cb),
                    Arg::Buffer(&pb),
                    Arg::i32(n as i32),
                ],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let (r, v) = (f64::from(rate), f64::from(vol));
            let mut calls = Vec::with_capacity(n + 1);
            let mut puts = Vec::with_capacity(n + 1);
            for i in 0..n {
                let (s, k, t) = (
                    f64::from(spot[i]),
                    f64::from(strike[i]),
                    f64::from(years[i]),
                );
                let d1 = ((s / k).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
                let d2 = d1 - v * t.sqrt();
                let disc = k * (-r * t).exp();
                calls.push(s * cnd(d1) - disc * cnd(d2));
                puts.push(disc * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)));
            }
            calls.push(-1.0);
            puts.push(-1.0);
            assert_close(
                &cb.to_vec::<f32>(),
                &calls,
                1e-4,
                1.0,
                &format!("{what} (call)"),
            );
            assert_close(
                &pb.to_vec::<f32>(),
                &puts,
                1e-4,
                1.0,
                &format!("{what} (put)"),
            );
        }
    }
}

/// The orthonormal DCT-II matrix: `D[u][x] = c(u) cos((2x + 1) u pi / 16)`.
fn dct_matrix() -> Vec<f64> {
    (0..64)
        .map(|i| {
            let (u, x) = ((i / 8) as f64, (i % 8) as f64);
            let c = if u == 0.0 { (1.0f64 / 8.0).sqrt() } else { 0.5 };
            c * ((2.0 * x + 1.0) * u * std::f64::consts::PI / 16.0).cos()
        })
        .collect()
}

/// The 8x8 block DCT of a `w`-wide image, by the 2-D definition.
fn dct_blocks(img: &[f32], w: usize, h: usize) -> Vec<f64> {
    let d = dct_matrix();
    let mut out = vec![0.0; w * h];
    for gy in 0..h {
        for gx in 0..w {
            let (u, v, bx, by) = (gx % 8, gy % 8, gx - gx % 8, gy - gy % 8);
            let mut acc = 0.0;
            for y in 0..8 {
                for x in 0..8 {
                    acc += d[v * 8 + y] * d[u * 8 + x] * f64::from(img[(by + y) * w + bx + x]);
                }
            }
            out[gy * w + gx] = acc;
        }
    }
    out
}

#[test]
fn dct_8x8_blocks() {
    let matrix: Vec<f32> = dct_matrix().iter().map(|&v| v as f32).collect();
    for width in WIDTHS {
        let p = build("dct8x8", source!("dct8x8"), width);
        // (kernel, w, h, local)
        for (kernel, w, h, local) in [
            ("dct_direct", 48usize, 48usize, [12u64, 4u64]),
            ("dct_direct", 48, 48, [6, 6]),
            ("dct_direct", 48, 24, [48, 1]),
            ("dct_direct", 16, 8, [16, 8]),
            ("dct_local", 48, 48, [8, 8]),
            ("dct_local", 48, 48, [24, 8]),
            ("dct_local", 48, 48, [16, 16]),
            ("dct_local", 48, 16, [48, 8]),
        ] {
            let what = format!("{kernel} width {width:?} global [{w}, {h}] local {local:?}");
            let mut rng = Rng::new((w * h) as u64 + local[0] * 5 + local[1]);
            let img = rng.floats(w * h, 0.0, 255.0);
            let (ib, ob, mb) = (
                Buffer::from_slice(&img),
                Buffer::zeroed(w * h * 4),
                Buffer::from_slice(&matrix),
            );
            let mut args = vec![
                Arg::Buffer(&ib),
                Arg::Buffer(&ob),
                Arg::Buffer(&mb),
                Arg::i32(w as i32),
            ];
            if kernel == "dct_local" {
                let bytes = (local[0] * local[1] * 4) as usize;
                args.extend([Arg::Local(bytes), Arg::Local(bytes)]);
            }
            run(
                &p,
                kernel,
                &args,
                &NdRange::new(&[w as u64, h as u64], &local),
                &what,
            );
            // Coefficients are at most 8 * 255 = 2040: 1e-4 of that is ~0.2, far above
            // float rounding of 64-term sums and far below any indexing mistake.
            assert_close(
                &ob.to_vec::<f32>(),
                &dct_blocks(&img, w, h),
                1e-4,
                2040.0,
                &what,
            );
        }
    }
}

#[test]
fn mandelbrot_escape_counts() {
    for width in WIDTHS {
        let p = build("mandelbrot", source!("mandelbrot"), width);
        // (w, h, local, max_iter)
        for (w, h, local, max_iter) in [
            (60usize, 40usize, [12u64, 4u64], 200),
            (64, 32, [16, 2], 100),
            (60, 40, [20, 5], 64),
            (30, 30, [30, 1], 500),
            (9, 7, [3, 7], 50),
        ] {
            let what = format!(
                "mandelbrot width {width:?} global [{w}, {h}] local {local:?} max_iter {max_iter}"
            );
            let (x0, y0) = (-2.1f32, -1.2f32);
            let step = 2.4f32 / h as f32;
            let ib = Buffer::zeroed(w * h * 4);
            run(
                &p,
                "mandelbrot",
                &[
                    Arg::Buffer(&ib),
                    Arg::f32(x0),
                    Arg::f32(y0),
                    Arg::f32(step),
                    Arg::i32(max_iter),
                ],
                &NdRange::new(&[w as u64, h as u64], &local),
                &what,
            );
            let mut want = vec![0i32; w * h];
            for py in 0..h {
                for px in 0..w {
                    let cx = (px as f32).mul_add(step, x0);
                    let cy = (py as f32).mul_add(step, y0);
                    let (mut x, mut y, mut i) = (0.0f32, 0.0f32, 0);
                    while i < max_iter {
                        if x.mul_add(x, y * y) > 4.0 {
                            break;
                        }
                        let nx = x.mul_add(x, (-y).mul_add(y, cx));
                        y = (x + x).mul_add(y, cy);
                        x = nx;
                        i += 1;
                    }
                    want[py * w + px] = i;
                }
            }
            assert_same(&ib.to_vec::<i32>(), &want, &what);
        }
    }
}

#[test]
fn nbody_step_with_local_tiles() {
    let (dt, eps2) = (0.01f32, 0.05f32);
    for width in WIDTHS {
        let p = build("nbody", source!("nbody"), width);
        for (n, local) in [
            (300usize, 12u64),
            (300, 100),
            (96, 24),
            (128, 128),
            (60, 60),
            (35, 7),
        ] {
            let what = format!("nbody_step width {width:?} global {n} local {local}");
            let mut rng = Rng::new(n as u64 * 11 + local);
            let mut pos = Vec::with_capacity(4 * n);
            let mut vel = Vec::with_capacity(4 * n);
            for _ in 0..n {
                pos.extend([
                    rng.float(-5.0, 5.0),
                    rng.float(-5.0, 5.0),
                    rng.float(-5.0, 5.0),
                    rng.float(0.5, 2.0),
                ]);
                vel.extend([
                    rng.float(-1.0, 1.0),
                    rng.float(-1.0, 1.0),
                    rng.float(-1.0, 1.0),
                    0.0,
                ]);
            }
            let (pb, vb) = (Buffer::from_slice(&pos), Buffer::from_slice(&vel));
            let (npb, nvb) = (Buffer::zeroed(16 * n), Buffer::zeroed(16 * n));
            run(
                &p,
                "nbody_step",
                &[
                    Arg::Buffer(&pb),
                    Arg::Buffer(&vb),
                    Arg::Buffer(&npb),
                    Arg::Buffer(&nvb),
                    Arg::Local(16 * local as usize),
                    Arg::i32(n as i32),
                    Arg::f32(dt),
                    Arg::f32(eps2),
                ],
                &NdRange::new(&[n as u64], &[local]),
                &what,
            );
            let (got_p, got_v) = (npb.to_vec::<f32>(), nvb.to_vec::<f32>());
            let f = |i: usize| f64::from(pos[i]);
            for i in 0..n {
                let mut acc = [0.0f64; 3];
                let mut scale = 0.0f64;
                for j in 0..n {
                    let d = [
                        f(4 * j) - f(4 * i),
                        f(4 * j + 1) - f(4 * i + 1),
                        f(4 * j + 2) - f(4 * i + 2),
                    ];
                    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(eps2);
                    let s = f(4 * j + 3) / (r2 * r2.sqrt());
                    for c in 0..3 {
                        acc[c] += s * d[c];
                    }
                    scale += s * r2.sqrt();
                }
                let dt = f64::from(dt);
                for c in 0..3 {
                    let v = f64::from(vel[4 * i + c]) + acc[c] * dt;
                    let x = f(4 * i + c) + v * dt;
                    let tol_v = 1e-4 * (scale * dt + v.abs()).max(1e-3);
                    let tol_x = 1e-4 * (x.abs() + tol_v).max(1e-3) + tol_v * dt;
                    let (gv, gx) = (f64::from(got_v[4 * i + c]), f64::from(got_p[4 * i + c]));
                    assert!(
                        (gv - v).abs() <= tol_v,
                        "{what}: velocity of body {i}, component {c}: got {gv}, want {v}"
                    );
                    assert!(
                        (gx - x).abs() <= tol_x,
                        "{what}: position of body {i}, component {c}: got {gx}, want {x}"
                    );
                }
                assert_eq!(got_p[4 * i + 3], pos[4 * i + 3], "{what}: mass of body {i}");
                assert_eq!(got_v[4 * i + 3], 0.0, "{what}: velocity.w of body {i}");
            }
        }
    }
}
