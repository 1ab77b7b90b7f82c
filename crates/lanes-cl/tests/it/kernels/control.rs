//! Divergent control flow inside one work-item's code: what whole-function vectorization
//! must linearize or keep as branches (CC'12 §3 and the partial linearization lanes uses).
//!
//! - `divergent_loops.cl`: a Collatz loop with a data-dependent exit.
//! - `nested_loops.cl`: nested loops with per-work-item trip counts, `continue` and
//!   `break`.
//! - `early_return.cl`: returns at three points, one inside a loop, and a fallthrough;
//!   the padding work-items must write nothing.
//! - `sorting_network.cl`: a fixed 19-comparator network on a private array, and
//!   insertion sort over private memory with divergent inner `while` loops.
//! - `binary_search.cl`: lower bound by bisection with per-key trip counts, then a
//!   counting loop only on hits.

use lanes_cl::{Arg, Buffer, NdRange, Program};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// (global, local) sizes for one-element-per-work-item kernels.
const SIZES: [(u64, u64); 6] = [
    (300, 12),
    (512, 256),
    (300, 100),
    (240, 24),
    (35, 7),
    (1, 1),
];

#[test]
fn collatz_trip_counts() {
    for width in WIDTHS {
        let p = build("divergent_loops", source!("divergent_loops"), width);
        for (global, local) in SIZES {
            for (start, cap) in [(1u32, 1000), (27, 50)] {
                let what = format!(
                    "collatz width {width:?} global {global} local {local} start {start} cap {cap}"
                );
                let sb = Buffer::zeroed(global as usize * 4);
                run(
                    &p,
                    "collatz",
                    &[Arg::Buffer(&sb), Arg::u32(start), Arg::i32(cap)],
                    &NdRange::new(&[global], &[local]),
                    &what,
                );
                let want: Vec<i32> = (0..global as u32)
                    .map(|g| {
                        let (mut n, mut s) = (u64::from(start + g), 0);
                        while n != 1 && s < cap {
                            n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
                            s += 1;
                        }
                        s
                    })
                    .collect();
                assert_same(&sb.to_vec::<i32>(), &want, &what);
            }
        }
    }
}

#[test]
fn nested_loops_with_break_and_continue() {
    for width in WIDTHS {
        let p = build("nested_loops", source!("nested_loops"), width);
        for (global, local) in SIZES {
            let what = format!("nested width {width:?} global {global} local {local}");
            let mut rng = Rng::new(global * 53 + local);
            let input = rng.ints(global as usize, 0, 1000);
            let limit = 60;
            let (ib, ob) = (
                Buffer::from_slice(&input),
                Buffer::zeroed(global as usize * 4),
            );
            run(
                &p,
                "nested",
                &[Arg::Buffer(&ib), Arg::Buffer(&ob), Arg::i32(limit)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let want: Vec<i32> = (0..global as i32)
                .map(|gid| {
                    let v = input[gid as usize];
                    let mut total = 0;
                    for i in 0..gid % 7 + 1 {
                        for j in 0..(v + i) & 15 {
                            if (j + v) & 1 != 0 {
                                continue;
                            }
                            total += j * (i + 1);
                            if total > limit {
                                break;
                            }
                        }
                        total ^= i;
                    }
                    total
                })
                .collect();
            assert_same(&ob.to_vec::<i32>(), &want, &what);
        }
    }
}

#[test]
fn early_returns() {
    for width in WIDTHS {
        let p = build("early_return", source!("early_return"), width);
        for (global, local) in SIZES {
            // n below the global size: the last work-items return at once.
            let n = (global as usize * 9).div_ceil(10);
            let what = format!("early_return width {width:?} global {global} local {local} n {n}");
            let mut rng = Rng::new(global * 59 + local);
            let input = rng.ints(n, -300, 2000);
            let (ib, ob) = (
                Buffer::from_slice(&input),
                Buffer::from_slice(&vec![7777i32; global as usize]),
            );
            run(
                &p,
                "early_return",
                &[Arg::Buffer(&ib), Arg::Buffer(&ob), Arg::i32(n as i32)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            let want: Vec<i32> = (0..global as usize)
                .map(|i| {
                    if i >= n {
                        return 7777;
                    }
                    let v = input[i];
                    if v < 0 {
                        return -1;
                    }
                    (1..64)
                        .find(|k| k * k % 97 == v % 97)
                        .map_or(-2, |k| 1000 + k)
                })
                .collect();
            assert_same(&ob.to_vec::<i32>(), &want, &what);
        }
    }
}

/// `sort8_network`: 8 ints per work-item by a fixed network.
fn sorting_network_of_eight(p: &Program, width: Option<u16>) {
    for (global, local) in SIZES {
        let what = format!("sort8_network width {width:?} global {global} local {local}");
        let n = global as usize;
        let mut rng = Rng::new(global * 61 + local);
        // Work-item i < 256 gets the 0-1 pattern of i's bits (the 0-1 principle: a
        // network sorting all of them sorts everything); the rest random ints.
        let input: Vec<i32> = (0..8 * n)
            .map(|j| {
                let i = j / 8;
                if i < 256 {
                    (i >> (j % 8)) as i32 & 1
                } else {
                    rng.int(-50, 50)
                }
            })
            .collect();
        let db = Buffer::from_slice(&input);
        run(
            p,
            "sort8_network",
            &[Arg::Buffer(&db)],
            &NdRange::new(&[global], &[local]),
            &what,
        );
        let mut want = input.clone();
        for chunk in want.chunks_mut(8) {
            chunk.sort_unstable();
        }
        assert_same(&db.to_vec::<i32>(), &want, &what);
    }
}

/// `insertion_sort`: runs of up to 16 ints by insertion.
fn insertion_sort_in_private_arrays(p: &Program, width: Option<u16>) {
    for (global, local) in SIZES {
        let what = format!("insertion_sort width {width:?} global {global} local {local}");
        let n = global as usize;
        let mut rng = Rng::new(global * 67 + local);
        let lens: Vec<i32> = (0..n).map(|i| ((i * 5 + 3) % 17) as i32).collect();
        let input = rng.ints(16 * n, -1000, 1000);
        let (db, lb) = (Buffer::from_slice(&input), Buffer::from_slice(&lens));
        run(
            p,
            "insertion_sort",
            &[Arg::Buffer(&db), Arg::Buffer(&lb)],
            &NdRange::new(&[global], &[local]),
            &what,
        );
        let mut want = input.clone();
        for (i, chunk) in want.chunks_mut(16).enumerate() {
            chunk[..lens[i] as usize].sort_unstable();
        }
        assert_same(&db.to_vec::<i32>(), &want, &what);
    }
}

/// Both kernels of `sorting_network.cl`, from one build per width.
#[test]
fn private_array_sorts() {
    for width in WIDTHS {
        let p = build("sorting_network", source!("sorting_network"), width);
        sorting_network_of_eight(&p, width);
        insertion_sort_in_private_arrays(&p, width);
    }
}

#[test]
fn binary_search_lower_bound() {
    for width in WIDTHS {
        let p = build("binary_search", source!("binary_search"), width);
        for (global, local) in SIZES {
            for table_len in [1000usize, 37, 1] {
                let what = format!(
                    "lower_bound width {width:?} global {global} local {local} table {table_len}"
                );
                let mut rng = Rng::new(global * 71 + local + table_len as u64);
                let mut table = rng.ints(table_len, 0, 500);
                table.sort_unstable();
                let keys = rng.ints(global as usize, -10, 510);
                let (tb, kb, rb) = (
                    Buffer::from_slice(&table),
                    Buffer::from_slice(&keys),
                    Buffer::zeroed(global as usize * 8),
                );
                run(
                    &p,
                    "lower_bound",
                    &[
                        Arg::Buffer(&tb),
                        Arg::i32(table_len as i32),
                        Arg::Buffer(&kb),
                        Arg::Buffer(&rb),
                    ],
                    &NdRange::new(&[global], &[local]),
                    &what,
                );
                let want: Vec<i32> = keys
                    .iter()
                    .flat_map(|&k| {
                        let lo = table.partition_point(|&t| t < k);
                        let count = table[lo..].iter().take_while(|&&t| t == k).count();
                        [lo as i32, count as i32]
                    })
                    .collect();
                assert_same(&rb.to_vec::<i32>(), &want, &what);
            }
        }
    }
}
