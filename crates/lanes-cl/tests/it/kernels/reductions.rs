//! Reductions, scans and a tiled matrix multiply: `__local` memory shared through
//! barriers that sit in loops, with per-work-item inner loops between them.
//!
//! - `reduce.cl`: an integer sum and a float min/max, each over a strided slice per
//!   work-item and then a `__local` tree whose step count depends on the local size (not
//!   only powers of two). Both results are exact whatever the order.
//! - `prefix_sum.cl`: a Blelloch scan per group, padded to a power of two in `__local`
//!   memory, plus a second kernel adding the segments' offsets: together a full exclusive
//!   scan, compared exactly.
//! - `matmul_tiled.cl`: square `__local` tiles of up to 16 x 16, including 12 x 12 and
//!   6 x 6 groups; integer-valued inputs keep every float product and sum exact, so
//!   contraction into fma cannot change the result and the comparison is exact.

use lanes_cl::{Arg, Buffer, NdRange, Program};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// `reduce_sum`: an exact integer sum per group.
fn reduce_sum_with_a_local_tree(p: &Program, width: Option<u16>) {
    // (n, global, local)
    for (n, global, local) in [
        (10_000usize, 300u64, 12u64),
        (4096, 1024, 256),
        (1000, 300, 100),
        (777, 240, 24),
        (50, 100, 100),
        (13, 7, 7),
    ] {
        let what = format!("reduce_sum width {width:?} n {n} global {global} local {local}");
        let mut rng = Rng::new(n as u64 + local);
        let input = rng.ints(n, -1000, 1000);
        let groups = (global / local) as usize;
        let (ib, sb) = (Buffer::from_slice(&input), Buffer::zeroed(groups * 4));
        run(
            p,
            "reduce_sum",
            &[
                Arg::Buffer(&ib),
                Arg::u32(n as u32),
                Arg::Buffer(&sb),
                Arg::Local(local as usize * 4),
            ],
            &NdRange::new(&[global], &[local]),
            &what,
        );
        // Element i belongs to work-item i % global, of group (i % global) / local.
        let mut want = vec![0i32; groups];
        for (i, &v) in input.iter().enumerate() {
            want[(i % global as usize) / local as usize] += v;
        }
        assert_same(&sb.to_vec::<i32>(), &want, &what);
    }
}

/// `reduce_min_max`: float minimum and maximum per group.
fn reduce_min_max_with_two_local_arrays(p: &Program, width: Option<u16>) {
    for (n, global, local) in [
        (5000usize, 300u64, 12u64),
        (2048, 512, 64),
        (999, 200, 100),
        (100, 120, 24),
        (7, 9, 9),
    ] {
        let what = format!("reduce_min_max width {width:?} n {n} global {global} local {local}");
        let mut rng = Rng::new(n as u64 * 5 + local);
        let input = rng.floats(n, -1e4, 1e4);
        let groups = (global / local) as usize;
        let (ib, mb) = (Buffer::from_slice(&input), Buffer::zeroed(groups * 8));
        run(
            p,
            "reduce_min_max",
            &[
                Arg::Buffer(&ib),
                Arg::u32(n as u32),
                Arg::Buffer(&mb),
                Arg::Local(local as usize * 4),
                Arg::Local(local as usize * 4),
            ],
            &NdRange::new(&[global], &[local]),
            &what,
        );
        let mut want = [f32::INFINITY, f32::NEG_INFINITY].repeat(groups);
        for (i, &v) in input.iter().enumerate() {
            let g = (i % global as usize) / local as usize;
            want[2 * g] = want[2 * g].min(v);
            want[2 * g + 1] = want[2 * g + 1].max(v);
        }
        assert_same(&mb.to_vec::<f32>(), &want, &what);
    }
}

/// Both kernels of `reduce.cl`, from one build per width.
#[test]
fn reductions() {
    for width in WIDTHS {
        let p = build("reduce", source!("reduce"), width);
        reduce_sum_with_a_local_tree(&p, width);
        reduce_min_max_with_two_local_arrays(&p, width);
    }
}

#[test]
fn prefix_sum_work_efficient_scan() {
    for width in WIDTHS {
        let p = build("prefix_sum", source!("prefix_sum"), width);
        // (groups, local): segments of 2 * local elements.
        for (groups, local) in [
            (25usize, 12u64),
            (4, 128),
            (3, 100),
            (10, 24),
            (6, 5),
            (2, 1),
        ] {
            let seg = 2 * local as usize;
            let n = groups * seg;
            let padded = seg.next_power_of_two();
            let what = format!(
                "scan_groups/add_offsets width {width:?} global {} local {local}",
                groups as u64 * local
            );
            let mut rng = Rng::new(groups as u64 * 13 + local);
            let input = rng.ints(n, -50, 100);
            let (ib, ob, sb) = (
                Buffer::from_slice(&input),
                Buffer::zeroed(n * 4),
                Buffer::zeroed(groups * 4),
            );
            run(
                &p,
                "scan_groups",
                &[
                    Arg::Buffer(&ib),
                    Arg::Buffer(&ob),
                    Arg::Buffer(&sb),
                    Arg::Local(padded * 4),
                    Arg::u32(padded as u32),
                ],
                &NdRange::new(&[groups as u64 * local], &[local]),
                &what,
            );
            // Per segment: exclusive scan and total.
            let mut seg_scan = Vec::with_capacity(n);
            let mut totals = Vec::with_capacity(groups);
            for chunk in input.chunks(seg) {
                let mut acc = 0;
                for &v in chunk {
                    seg_scan.push(acc);
                    acc += v;
                }
                totals.push(acc);
            }
            assert_same(
                &ob.to_vec::<i32>(),
                &seg_scan,
                &format!("{what} (segments)"),
            );
            assert_same(&sb.to_vec::<i32>(), &totals, &format!("{what} (totals)"));
            // The segments' offsets, scanned on the host, then added by the second kernel
            // at another local size.
            let offsets: Vec<i32> = totals
                .iter()
                .scan(0, |acc, &t| {
                    let before = *acc;
                    *acc += t;
                    Some(before)
                })
                .collect();
            let offb = Buffer::from_slice(&offsets);
            let add_local = if n.is_multiple_of(12) { 12 } else { seg as u64 };
            run(
                &p,
                "add_offsets",
                &[Arg::Buffer(&ob), Arg::Buffer(&offb), Arg::u32(seg as u32)],
                &NdRange::new(&[n as u64], &[add_local]),
                &what,
            );
            let full: Vec<i32> = input
                .iter()
                .scan(0, |acc, &v| {
                    let before = *acc;
                    *acc += v;
                    Some(before)
                })
                .collect();
            assert_same(&ob.to_vec::<i32>(), &full, &format!("{what} (full scan)"));
        }
    }
}

#[test]
fn matmul_with_local_tiles() {
    for width in WIDTHS {
        let p = build("matmul_tiled", source!("matmul_tiled"), width);
        // (m, n, k, tile)
        for (m, n, k, t) in [
            (36usize, 48usize, 24usize, 12u64),
            (36, 48, 24, 6),
            (48, 32, 64, 16),
            (24, 40, 16, 8),
            (15, 9, 21, 3),
            (5, 5, 5, 5),
        ] {
            let what = format!(
                "matmul_tiled width {width:?} m {m} n {n} k {k} global [{n}, {m}] local [{t}, {t}]"
            );
            let mut rng = Rng::new((m * n * k) as u64 + t);
            let a: Vec<f32> = rng.ints(m * k, -4, 5).iter().map(|&v| v as f32).collect();
            let b: Vec<f32> = rng.ints(k * n, -4, 5).iter().map(|&v| v as f32).collect();
            let (ab, bb, cb) = (
                Buffer::from_slice(&a),
                Buffer::from_slice(&b),
                Buffer::zeroed(m * n * 4),
            );
            run(
                &p,
                "matmul_tiled",
                &[
                    Arg::Buffer(&ab),
                    Arg::Buffer(&bb),
                    Arg::Buffer(&cb),
                    Arg::i32(m as i32),
                    Arg::i32(n as i32),
                    Arg::i32(k as i32),
                ],
                &NdRange::new(&[n as u64, m as u64], &[t, t]),
                &what,
            );
            let mut want = vec![0.0f32; m * n];
            for r in 0..m {
                for c in 0..n {
                    want[r * n + c] = (0..k).map(|j| a[r * k + j] * b[j * n + c]).sum();
                }
            }
            assert_same(&cb.to_vec::<f32>(), &want, &what);
        }
    }
}
