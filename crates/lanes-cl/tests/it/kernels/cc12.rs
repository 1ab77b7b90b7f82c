//! CC'12's integer-exact benchmarks: BitonicSort, FastWalshTransform, FloydWarshall,
//! Histogram and MatrixTranspose.
//!
//! - `bitonic_sort.cl`: the global network, one launch per pass with the host looping the
//!   stages (uniform scalar arguments, an early return for the padding work-items), and a
//!   local-memory variant sorting per group with barriers inside two nested loops around a
//!   divergent pair loop.
//! - `fast_walsh.cl`: one butterfly step per launch; integer-valued inputs keep every float
//!   sum exact, so the comparison is exact.
//! - `floyd_warshall.cl`: one launch per intermediate node over a 2-D NDRange whose
//!   dimension 1 is uniform in each row of work-items.
//! - `histogram.cl`: atomics on `__local` and on `__global` memory, with inputs that make
//!   many work-items of one vector hit the same bin (the case a vectorized atomic gets
//!   wrong if it merges lanes).
//! - `matrix_transpose.cl`: a `__local` tile with a barrier, for square and non-square
//!   groups.

use lanes_cl::{Arg, Buffer, NdRange, Program};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// The bitonic sort's pass kernel over `keys` (length a power of two), host-driven.
fn bitonic_global(p: &Program, keys: &Buffer, n: u32, global: u64, local: u64, what: &str) {
    let log = n.trailing_zeros();
    for stage in 1..=log {
        for pass in (0..stage).rev() {
            run(
                p,
                "bitonic_pass",
                &[
                    Arg::Buffer(keys),
                    Arg::u32(n),
                    Arg::u32(stage),
                    Arg::u32(pass),
                ],
                &NdRange::new(&[global], &[local]),
                what,
            );
        }
    }
}

/// The global network, one launch per pass.
fn bitonic_sort_one_pass_per_launch(p: &Program, width: Option<u16>) {
    // (keys, global, local): global sizes at least n / 2, padded to the local size.
    for (n, global, local) in [
        (512u32, 300u64, 12u64),
        (512, 256, 256),
        (256, 200, 100),
        (1024, 528, 24),
        (64, 35, 7),
    ] {
        let what = format!("bitonic_pass width {width:?} n {n} global {global} local {local}");
        let mut rng = Rng::new(u64::from(n) + global);
        let input: Vec<u32> = (0..n).map(|_| rng.next_u32() % 1000).collect();
        let keys = Buffer::from_slice(&input);
        bitonic_global(p, &keys, n, global, local, &what);
        let mut want = input.clone();
        want.sort_unstable();
        assert_same(&keys.to_vec::<u32>(), &want, &what);
    }
}

/// Per-group segments sorted in `__local` memory.
fn bitonic_sort_in_local_memory(p: &Program, width: Option<u16>) {
    // (segment log2, groups, local)
    for (seg_log, groups, local) in [
        (8u32, 3u64, 12u64),
        (8, 2, 128),
        (7, 4, 100),
        (9, 2, 24),
        (4, 5, 3),
    ] {
        let size = 1usize << seg_log;
        let what = format!(
            "bitonic_local width {width:?} segment {size} global {} local {local}",
            groups * local
        );
        let mut rng = Rng::new(u64::from(seg_log) * 31 + local);
        let input: Vec<u32> = (0..size * groups as usize)
            .map(|_| rng.next_u32())
            .collect();
        let keys = Buffer::from_slice(&input);
        run(
            p,
            "bitonic_local",
            &[Arg::Buffer(&keys), Arg::Local(size * 4), Arg::u32(seg_log)],
            &NdRange::new(&[groups * local], &[local]),
            &what,
        );
        let mut want = input.clone();
        for segment in want.chunks_mut(size) {
            segment.sort_unstable();
        }
        assert_same(&keys.to_vec::<u32>(), &want, &what);
    }
}

/// Both bitonic kernels, from one build per width.
#[test]
fn bitonic_sort() {
    for width in WIDTHS {
        let p = build("bitonic_sort", source!("bitonic_sort"), width);
        bitonic_sort_one_pass_per_launch(&p, width);
        bitonic_sort_in_local_memory(&p, width);
    }
}

/// The Walsh-Hadamard transform by its definition: `X[k] = sum_i (-1)^popcount(i & k) x[i]`.
fn walsh_hadamard(x: &[f32]) -> Vec<f32> {
    (0..x.len())
        .map(|k| {
            x.iter()
                .enumerate()
                .map(|(i, &v)| {
                    if (i & k).count_ones() % 2 == 0 {
                        f64::from(v)
                    } else {
                        -f64::from(v)
                    }
                })
                .sum::<f64>() as f32
        })
        .collect()
}

#[test]
fn fast_walsh_transform() {
    for width in WIDTHS {
        let p = build("fast_walsh", source!("fast_walsh"), width);
        for (n, global, local) in [
            (1024u32, 600u64, 12u64),
            (512, 256, 64),
            (256, 200, 100),
            (128, 72, 24),
            (16, 9, 9),
        ] {
            let what = format!("fwt_step width {width:?} n {n} global {global} local {local}");
            let mut rng = Rng::new(u64::from(n) ^ local);
            let input: Vec<f32> = rng
                .ints(n as usize, -8, 9)
                .iter()
                .map(|&v| v as f32)
                .collect();
            let x = Buffer::from_slice(&input);
            let mut h = 1;
            while h < n {
                run(
                    &p,
                    "fwt_step",
                    &[Arg::Buffer(&x), Arg::u32(n), Arg::u32(h)],
                    &NdRange::new(&[global], &[local]),
                    &what,
                );
                h *= 2;
            }
            assert_same(&x.to_vec::<f32>(), &walsh_hadamard(&input), &what);
        }
    }
}

/// Shortest path lengths by Bellman-Ford from every source (an algorithm other than the
/// kernel's), with `INF` for no path.
fn all_pairs_bellman_ford(dist: &[i32], n: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(n * n);
    for s in 0..n {
        let mut d: Vec<i32> = dist[s * n..(s + 1) * n].to_vec();
        for _ in 0..n {
            let mut changed = false;
            for u in 0..n {
                for v in 0..n {
                    let via = d[u] + dist[u * n + v];
                    if via < d[v] {
                        d[v] = via;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        out.extend(d);
    }
    out
}

const INF: i32 = 1 << 20;

#[test]
fn floyd_warshall() {
    for width in WIDTHS {
        let p = build("floyd_warshall", source!("floyd_warshall"), width);
        for (n, local) in [
            (30usize, [10u64, 3u64]),
            (30, [15, 2]),
            (24, [12, 4]),
            (24, [24, 1]),
            (13, [13, 13]),
        ] {
            let what =
                format!("floyd_warshall_pass width {width:?} global [{n}, {n}] local {local:?}");
            let mut rng = Rng::new(n as u64 * 7 + local[0]);
            let dist: Vec<i32> = (0..n * n)
                .map(|i| {
                    if i % (n + 1) == 0 {
                        0
                    } else if rng.int(0, 4) == 0 {
                        rng.int(1, 100)
                    } else {
                        INF
                    }
                })
                .collect();
            let (db, hb) = (
                Buffer::from_slice(&dist),
                Buffer::from_slice(&vec![-1i32; n * n]),
            );
            for k in 0..n {
                run(
                    &p,
                    "floyd_warshall_pass",
                    &[
                        Arg::Buffer(&db),
                        Arg::Buffer(&hb),
                        Arg::i32(n as i32),
                        Arg::i32(k as i32),
                    ],
                    &NdRange::new(&[n as u64, n as u64], &local),
                    &what,
                );
            }
            let want: Vec<i32> = all_pairs_bellman_ford(&dist, n)
                .into_iter()
                .map(|d| d.min(INF))
                .collect();
            let got: Vec<i32> = db.to_vec::<i32>().into_iter().map(|d| d.min(INF)).collect();
            assert_same(&got, &want, &what);
            // A recorded hop splits the path: dist[y][x] = dist[y][k] + dist[k][x].
            let hops = hb.to_vec::<i32>();
            for (i, &k) in hops.iter().enumerate() {
                if k >= 0 {
                    let (y, x, k) = (i / n, i % n, k as usize);
                    assert_eq!(
                        got[i],
                        got[y * n + k] + got[k * n + x],
                        "{what}: hop {k} of pair ({y}, {x}), index {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn histogram_with_local_and_global_atomics() {
    for width in WIDTHS {
        let p = build("histogram", source!("histogram"), width);
        // (bytes, per_item, global, local)
        for (n, per_item, global, local) in [
            (10_000usize, 16u32, 636u64, 12u64),
            (4096, 8, 512, 256),
            (3000, 10, 300, 100),
            (777, 1, 792, 24),
            (5000, 40, 125, 5),
        ] {
            let what = format!(
                "histogram256 width {width:?} n {n} per_item {per_item} global {global} local {local}"
            );
            let mut rng = Rng::new(n as u64 + local);
            // Half the bytes from a few hot bins: lanes of one vector collide.
            let data: Vec<u8> = (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        (rng.next_u32() % 3) as u8
                    } else {
                        rng.next_u32() as u8
                    }
                })
                .collect();
            let (db, hb) = (Buffer::from_slice(&data), Buffer::zeroed(256 * 4));
            run(
                &p,
                "histogram256",
                &[
                    Arg::Buffer(&db),
                    Arg::u32(n as u32),
                    Arg::u32(per_item),
                    Arg::Buffer(&hb),
                ],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let mut want = vec![0u32; 256];
            let counted = (global as usize * per_item as usize).min(n);
            for &b in &data[..counted] {
                want[b as usize] += 1;
            }
            assert_same(&hb.to_vec::<u32>(), &want, &what);
        }
    }
}

#[test]
fn matrix_transpose_through_a_local_tile() {
    for width in WIDTHS {
        let p = build("matrix_transpose", source!("matrix_transpose"), width);
        // (w, h, local)
        for (w, h, local) in [
            (48usize, 36usize, [12u64, 12u64]),
            (48, 36, [16, 4]),
            (48, 36, [6, 9]),
            (64, 32, [16, 16]),
            (30, 20, [10, 5]),
            (7, 5, [7, 1]),
        ] {
            let what = format!("transpose_tiled width {width:?} global [{w}, {h}] local {local:?}");
            let input: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5 - 3.0).collect();
            let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(w * h * 4));
            run(
                &p,
                "transpose_tiled",
                &[
                    Arg::Buffer(&ob),
                    Arg::Buffer(&ib),
                    Arg::i32(w as i32),
                    Arg::i32(h as i32),
                ],
                &NdRange::new(&[w as u64, h as u64], &local),
                &what,
            );
            let want: Vec<f32> = (0..w * h).map(|i| input[(i % h) * w + i / h]).collect();
            assert_same(&ob.to_vec::<f32>(), &want, &what);
        }
    }
}
