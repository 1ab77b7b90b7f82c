//! Atomics on `__global` and `__local` memory.
//!
//! A vectorized atomic must apply every active lane's operation in turn: lanes of one
//! vector often hit the same address (here: always, for the counters), which is exactly
//! where merging lanes or dropping all but one would go wrong. The inputs make such
//! collisions the common case.
//!
//! - `global_atomics.cl` `counters`: `atomic_add/sub/min/max/or/and/xor/inc/dec` on a few
//!   global words, with `atomic_inc`'s returned old value used as an append slot (every
//!   work-item must get a distinct one); an early return leaves the padding work-items
//!   out.
//! - `global_atomics.cl` `claim`: `atomic_cmpxchg` ownership of buckets and `atomic_xchg`;
//!   the winners are unspecified, so the test checks the invariants.
//! - `local_atomics.cl`: stream compaction through a `__local` counter and list, one
//!   `__global` `atomic_add` per group to reserve room, and `atomic_max` on `__local`
//!   memory; the output order is unspecified, so it is compared as a multiset.

use lanes_cl::{Arg, Buffer, NdRange, Program};

use super::{assert_same, build, run, source, Rng, WIDTHS};

/// `counters`: every read-modify-write atomic on a few shared words.
fn global_atomic_counters(p: &Program, width: Option<u16>) {
    // (n, global, local)
    for (n, global, local) in [
        (300usize, 300u64, 12u64),
        (1000, 1024, 256),
        (250, 300, 100),
        (100, 120, 24),
        (5, 7, 7),
    ] {
        let what = format!("counters width {width:?} n {n} global {global} local {local}");
        let mut rng = Rng::new(n as u64 * 17 + local);
        let input = rng.ints(n, -1000, 1000);
        let init = [0, 0, i32::MAX, i32::MIN, 0, 0];
        let (ib, cb, bb, pb) = (
            Buffer::from_slice(&input),
            Buffer::from_slice(&init),
            Buffer::from_slice(&[0u32, !0, 0]),
            Buffer::from_slice(&vec![-1i32; n]),
        );
        run(
            p,
            "counters",
            &[
                Arg::Buffer(&ib),
                Arg::i32(n as i32),
                Arg::Buffer(&cb),
                Arg::Buffer(&bb),
                Arg::Buffer(&pb),
            ],
            &NdRange::new(&[global], &[local]),
            &what,
        );
        let positives: Vec<i32> = (0..n as i32).filter(|&i| input[i as usize] > 0).collect();
        let sum: i32 = input.iter().sum();
        let want = [
            sum,
            -sum,
            *input.iter().min().unwrap(),
            *input.iter().max().unwrap(),
            positives.len() as i32,
            -((n - positives.len()) as i32),
        ];
        assert_same(&cb.to_vec::<i32>(), &want, &format!("{what} (counters)"));
        let (mut or, mut xor) = (0u32, 0u32);
        for &v in &input {
            or |= 1 << (v & 31);
            xor ^= 1 << (v & 31);
        }
        assert_same(
            &bb.to_vec::<u32>(),
            &[or, !or, xor],
            &format!("{what} (bits)"),
        );
        // Appended indices: each positive input's index exactly once, in any order.
        let mut got = pb.to_vec::<i32>();
        let (appended, rest) = got.split_at_mut(positives.len());
        appended.sort_unstable();
        assert_same(appended, &positives, &format!("{what} (appended indices)"));
        assert!(
            rest.iter().all(|&v| v == -1),
            "{what}: slots past the count were written: {rest:?}"
        );
    }
}

/// `claim`: `atomic_cmpxchg` ownership and `atomic_xchg`.
fn compare_exchange_claims_and_exchange(p: &Program, width: Option<u16>) {
    // (global, local, buckets)
    for (global, local, buckets) in [
        (300usize, 12u64, 40usize),
        (512, 64, 3),
        (300, 100, 1000),
        (96, 24, 1),
        (9, 3, 5),
    ] {
        let what = format!("claim width {width:?} global {global} local {local} buckets {buckets}");
        let mut rng = Rng::new(global as u64 * 19 + buckets as u64);
        let keys = rng.ints(global, 0, buckets as i32);
        let (kb, ob, wb, lb) = (
            Buffer::from_slice(&keys),
            Buffer::from_slice(&vec![-1i32; buckets]),
            Buffer::zeroed(4),
            Buffer::from_slice(&[-1i32]),
        );
        run(
            p,
            "claim",
            &[
                Arg::Buffer(&kb),
                Arg::Buffer(&ob),
                Arg::Buffer(&wb),
                Arg::Buffer(&lb),
            ],
            &NdRange::new(&[global as u64], &[local]),
            &what,
        );
        let owners = ob.to_vec::<i32>();
        let mut used = 0;
        for (b, &o) in owners.iter().enumerate() {
            if keys.contains(&(b as i32)) {
                used += 1;
                assert!(
                    o >= 0 && (o as usize) < global && keys[o as usize] == b as i32,
                    "{what}: bucket {b} owned by {o}, whose key is not {b}"
                );
            } else {
                assert_eq!(o, -1, "{what}: unused bucket {b} has owner {o}");
            }
        }
        assert_eq!(wb.to_vec::<i32>()[0], used, "{what}: winners");
        let last = lb.to_vec::<i32>()[0];
        assert!(
            (0..global as i32).contains(&last),
            "{what}: atomic_xchg left {last}"
        );
    }
}

/// Both kernels of `global_atomics.cl`, from one build per width.
#[test]
fn global_atomics() {
    for width in WIDTHS {
        let p = build("global_atomics", source!("global_atomics"), width);
        global_atomic_counters(&p, width);
        compare_exchange_claims_and_exchange(&p, width);
    }
}

#[test]
fn stream_compaction_with_local_atomics() {
    for width in WIDTHS {
        let p = build("local_atomics", source!("local_atomics"), width);
        // (global, local, threshold)
        for (global, local, threshold) in [
            (300usize, 12u64, 0i32),
            (1024, 256, 50),
            (300, 100, -90),
            (240, 24, 99),
            (35, 5, 10),
        ] {
            let what = format!(
                "compact width {width:?} global {global} local {local} threshold {threshold}"
            );
            let mut rng = Rng::new(global as u64 * 23 + local);
            let input = rng.ints(global, -100, 100);
            let groups = global / local as usize;
            let (ib, ob, tb, cb, mb) = (
                Buffer::from_slice(&input),
                Buffer::from_slice(&vec![i32::MIN; global]),
                Buffer::zeroed(4),
                Buffer::zeroed(groups * 4),
                Buffer::zeroed(groups * 4),
            );
            run(
                &p,
                "compact",
                &[
                    Arg::Buffer(&ib),
                    Arg::i32(threshold),
                    Arg::Buffer(&ob),
                    Arg::Buffer(&tb),
                    Arg::Buffer(&cb),
                    Arg::Buffer(&mb),
                    Arg::Local(local as usize * 4),
                ],
                &NdRange::new(&[global as u64], &[local]),
                &what,
            );
            let chunks = input.chunks(local as usize);
            let counts: Vec<i32> = chunks
                .clone()
                .map(|c| c.iter().filter(|&&v| v > threshold).count() as i32)
                .collect();
            let maxima: Vec<i32> = chunks.map(|c| *c.iter().max().unwrap()).collect();
            assert_same(
                &cb.to_vec::<i32>(),
                &counts,
                &format!("{what} (group counts)"),
            );
            assert_same(
                &mb.to_vec::<i32>(),
                &maxima,
                &format!("{what} (group maxima)"),
            );
            let mut kept: Vec<i32> = input.iter().copied().filter(|&v| v > threshold).collect();
            assert_same(
                &tb.to_vec::<i32>(),
                &[kept.len() as i32],
                &format!("{what} (total)"),
            );
            let mut got = ob.to_vec::<i32>();
            let (compacted, rest) = got.split_at_mut(kept.len());
            compacted.sort_unstable();
            kept.sort_unstable();
            assert_same(compacted, &kept, &format!("{what} (compacted, sorted)"));
            assert!(
                rest.iter().all(|&v| v == i32::MIN),
                "{what}: output written past the total"
            );
        }
    }
}
