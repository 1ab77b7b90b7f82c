//! Stencils over 2-D and 3-D NDRanges, and a 2-D kernel over the rows of an image.
//!
//! Multi-dimensional ranges are where lanes keeps dimensions 1 and 2 uniform in a vector
//! and only dimension 0 varying; local sizes like (12, 4), (8, 3, 5) and (7, 1) put
//! partial vectors at the end of every row of a group.
//!
//! - `stencil2d.cl`: a 5-point Jacobi step with copied boundaries (an early return),
//!   ping-ponged over five launches. Inputs are small integers and the weights powers of
//!   two, so every value stays exactly representable and the comparison is exact.
//! - `stencil3d.cl`: a 7-point integer Laplacian with `clamp`ed coordinates on a 3-D
//!   NDRange.
//! - `box_sum_local.cl`: a 3x3 box sum through a `__local` tile with a halo, loaded
//!   cooperatively by a loop whose trip count differs between work-items, then a barrier;
//!   exact.
//! - `image_rows.cl`: `uchar4` pixels, `convert_int4`, a helper function, clamped row
//!   neighbours and a row pitch larger than the width whose padding must stay untouched.

use lanes_cl::{Arg, Buffer, NdRange};

use super::{assert_same, build, run, source, Rng, WIDTHS};

#[test]
fn stencil_5_point_jacobi_steps() {
    const STEPS: usize = 5;
    let (c0, c1) = (0.5f32, 0.125f32);
    for width in WIDTHS {
        let p = build("stencil2d", source!("stencil2d"), width);
        for (w, h, local) in [
            (60usize, 36usize, [12u64, 4u64]),
            (60, 36, [20, 3]),
            (64, 32, [16, 16]),
            (60, 36, [60, 1]),
            (36, 60, [6, 6]),
            (7, 5, [7, 5]),
        ] {
            let what = format!("stencil5 width {width:?} global [{w}, {h}] local {local:?}");
            let mut rng = Rng::new((w * h) as u64 + local[0] * 3 + local[1]);
            let input: Vec<f32> = rng.ints(w * h, 0, 64).iter().map(|&v| v as f32).collect();
            let (a, b) = (Buffer::from_slice(&input), Buffer::zeroed(w * h * 4));
            for step in 0..STEPS {
                let (src, dst) = if step % 2 == 0 { (&a, &b) } else { (&b, &a) };
                run(
                    &p,
                    "stencil5",
                    &[
                        Arg::Buffer(src),
                        Arg::Buffer(dst),
                        Arg::f32(c0),
                        Arg::f32(c1),
                    ],
                    &NdRange::new(&[w as u64, h as u64], &local),
                    &what,
                );
            }
            let mut grid: Vec<f64> = input.iter().map(|&v| f64::from(v)).collect();
            for _ in 0..STEPS {
                let mut next = grid.clone();
                for y in 1..h.saturating_sub(1) {
                    for x in 1..w - 1 {
                        let i = y * w + x;
                        let sum = grid[i - 1] + grid[i + 1] + grid[i - w] + grid[i + w];
                        next[i] = 0.5 * grid[i] + 0.125 * sum;
                    }
                }
                grid = next;
            }
            let result = if STEPS % 2 == 1 { &b } else { &a };
            let want: Vec<f32> = grid.iter().map(|&v| v as f32).collect();
            assert_same(&result.to_vec::<f32>(), &want, &what);
        }
    }
}

#[test]
fn stencil_7_point_on_a_3d_range() {
    for width in WIDTHS {
        let p = build("stencil3d", source!("stencil3d"), width);
        for (dims, local) in [
            ([24usize, 12usize, 10usize], [12u64, 2u64, 2u64]),
            ([24, 12, 10], [8, 3, 5]),
            ([24, 12, 10], [24, 1, 1]),
            ([32, 8, 4], [16, 4, 2]),
            ([21, 6, 5], [7, 6, 1]),
            ([5, 5, 5], [5, 5, 5]),
        ] {
            let [nx, ny, nz] = dims;
            let what = format!("laplace7 width {width:?} global {dims:?} local {local:?}");
            let mut rng = Rng::new((nx * ny * nz) as u64 + local[0] * 7 + local[2]);
            let input = rng.ints(nx * ny * nz, -100, 100);
            let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(input.len() * 4));
            run(
                &p,
                "laplace7",
                &[Arg::Buffer(&ib), Arg::Buffer(&ob)],
                &NdRange::new(&[nx as u64, ny as u64, nz as u64], &local),
                &what,
            );
            let at = |x: isize, y: isize, z: isize| {
                let c = |v: isize, n: usize| v.clamp(0, n as isize - 1) as usize;
                input[(c(z, nz) * ny + c(y, ny)) * nx + c(x, nx)]
            };
            let mut want = Vec::with_capacity(input.len());
            for z in 0..nz as isize {
                for y in 0..ny as isize {
                    for x in 0..nx as isize {
                        let sum = at(x - 1, y, z)
                            + at(x + 1, y, z)
                            + at(x, y - 1, z)
                            + at(x, y + 1, z)
                            + at(x, y, z - 1)
                            + at(x, y, z + 1);
                        want.push(6 * at(x, y, z) - sum);
                    }
                }
            }
            assert_same(&ob.to_vec::<i32>(), &want, &what);
        }
    }
}

#[test]
fn blur_luma_over_image_rows() {
    for width in WIDTHS {
        let p = build("image_rows", source!("image_rows"), width);
        // (w, h, pitch, local)
        for (w, h, pitch, local) in [
            (60usize, 20usize, 64usize, [12u64, 2u64]),
            (60, 20, 60, [20, 5]),
            (64, 16, 70, [16, 4]),
            (48, 10, 50, [24, 1]),
            (33, 9, 40, [11, 3]),
            (1, 4, 3, [1, 4]),
        ] {
            let what = format!(
                "blur_luma_rows width {width:?} global [{w}, {h}] local {local:?} pitch {pitch}"
            );
            let mut rng = Rng::new((w * h + pitch) as u64 + local[0]);
            let rgba: Vec<u8> = (0..pitch * h * 4).map(|_| rng.next_u32() as u8).collect();
            let (ib, ob) = (
                Buffer::from_slice(&rgba),
                Buffer::from_slice(&vec![0xa5u8; pitch * h]),
            );
            run(
                &p,
                "blur_luma_rows",
                &[Arg::Buffer(&ib), Arg::Buffer(&ob), Arg::i32(pitch as i32)],
                &NdRange::new(&[w as u64, h as u64], &local),
                &what,
            );
            let luma = |y: usize, x: usize| {
                let px = &rgba[(y * pitch + x) * 4..][..3];
                (77 * i32::from(px[0]) + 150 * i32::from(px[1]) + 29 * i32::from(px[2]) + 128) >> 8
            };
            let mut want = vec![0xa5u8; pitch * h];
            for y in 0..h {
                for x in 0..w {
                    let (l, r) = (x.saturating_sub(1), (x + 1).min(w - 1));
                    want[y * pitch + x] =
                        ((luma(y, l) + 2 * luma(y, x) + luma(y, r) + 2) >> 2) as u8;
                }
            }
            assert_same(&ob.to_vec::<u8>(), &want, &what);
        }
    }
}

#[test]
fn box_sum_through_a_local_tile_with_halo() {
    for width in WIDTHS {
        let p = build("box_sum_local", source!("box_sum_local"), width);
        for (w, h, local) in [
            (60usize, 36usize, [12u64, 4u64]),
            (60, 36, [20, 3]),
            (64, 32, [16, 16]),
            (60, 36, [60, 1]),
            (36, 60, [6, 12]),
            (5, 7, [1, 7]),
        ] {
            let what = format!("box_sum3x3 width {width:?} global [{w}, {h}] local {local:?}");
            let mut rng = Rng::new((w * h) as u64 * 3 + local[0] + local[1] * 11);
            let input = rng.ints(w * h, -500, 500);
            let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(w * h * 4));
            let tile = (local[0] as usize + 2) * (local[1] as usize + 2) * 4;
            run(
                &p,
                "box_sum3x3",
                &[Arg::Buffer(&ib), Arg::Buffer(&ob), Arg::Local(tile)],
                &NdRange::new(&[w as u64, h as u64], &local),
                &what,
            );
            let at = |x: isize, y: isize| {
                let (x, y) = (x.clamp(0, w as isize - 1), y.clamp(0, h as isize - 1));
                input[y as usize * w + x as usize]
            };
            let mut want = Vec::with_capacity(w * h);
            for y in 0..h as isize {
                for x in 0..w as isize {
                    let mut sum = 0;
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            sum += at(x + dx, y + dy);
                        }
                    }
                    want.push(sum);
                }
            }
            assert_same(&ob.to_vec::<i32>(), &want, &what);
        }
    }
}
