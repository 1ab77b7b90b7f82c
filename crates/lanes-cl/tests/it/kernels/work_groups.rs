//! Work-item functions and the work-group machinery: what the context record, the
//! continuations at barriers and the `__local` memory layout must get right.
//!
//! - `work_item_queries.cl`: every work-item function (`get_work_dim`,
//!   `get_global_offset`, `get_num_groups`, ...) for dimensions 0 to 2, for 1-, 2- and 3-D
//!   launches with and without a global offset, and with the local size left to lanes.
//! - `work_item_variable.cl`: the same at a dimension index passed as a kernel argument,
//!   in range or past it (where OpenCL defines defaults).
//! - `work_item_defaults.cl`: the defaults at the constant dimension index 3.
//! - `uniform_barrier.cl`: barriers inside an `if` and a loop whose conditions are uniform
//!   within a group but differ between groups.
//! - `local_args.cl`: two `__local` pointer arguments of different sizes and types next
//!   to a `__local` array declared in the kernel.

use lanes_cl::range::default_local_size;
use lanes_cl::{Arg, Buffer, NdRange};

use super::{assert_same, build, range_at, run, source, Rng, WIDTHS};

/// What `queries` writes, in launch order, for `global` work-items in groups of `local`
/// at `offset` (all three-dimensional, `dims` of them used).
fn queries_reference(dims: u32, global: [u64; 3], local: [u64; 3], offset: [u64; 3]) -> Vec<u32> {
    let mut out = Vec::new();
    for z in 0..global[2] {
        for y in 0..global[1] {
            for x in 0..global[0] {
                let id = [x, y, z];
                out.push(dims);
                for d in 0..3 {
                    let words = [
                        offset[d],
                        global[d] / local[d],
                        id[d] / local[d],
                        id[d] % local[d],
                        id[d] + offset[d],
                        global[d],
                        local[d],
                    ];
                    out.extend(words.map(|w| w as u32));
                }
                out.extend([0xdead; 2]);
            }
        }
    }
    out
}

/// The work-item functions in the order the kernels write them.
const QUERIES: [&str; 7] = [
    "get_global_offset",
    "get_num_groups",
    "get_group_id",
    "get_local_id",
    "get_global_id",
    "get_global_size",
    "get_local_size",
];

/// A launch's global sizes, local sizes (`None`: lanes' choice) and global offset.
type Case = (
    &'static [u64],
    Option<&'static [u64]>,
    Option<&'static [u64]>,
);

#[test]
fn work_item_functions_in_every_dimension() {
    for width in WIDTHS {
        let p = build("work_item_queries", source!("work_item_queries"), width);
        // (global, local, offset); a `None` local size is lanes' choice.
        let cases: [Case; 8] = [
            (&[300], Some(&[12]), Some(&[5])),
            (&[300], Some(&[100]), None),
            (&[240], None, Some(&[1000])),
            (&[24, 10], Some(&[12, 5]), Some(&[3, 100])),
            (&[20, 6], Some(&[20, 1]), None),
            (&[12, 6, 4], Some(&[4, 3, 2]), Some(&[1, 2, 3])),
            (&[7, 3, 5], Some(&[7, 1, 5]), Some(&[0, 0, 9])),
            (&[1], Some(&[1]), None),
        ];
        for (global, local, offset) in cases {
            let what = format!(
                "queries width {width:?} global {global:?} local {local:?} offset {offset:?}"
            );
            let three = |v: &[u64], fill: u64| -> [u64; 3] {
                std::array::from_fn(|k| v.get(k).copied().unwrap_or(fill))
            };
            let g3 = three(global, 1);
            let l3 = match local {
                Some(l) => three(l, 1),
                None => [default_local_size(g3[0], p.width()), 1, 1],
            };
            let o3 = three(offset.unwrap_or(&[]), 0);
            let items = g3.iter().product::<u64>() as usize;
            let range = match (local, offset) {
                (Some(l), Some(o)) => range_at(global, l, o),
                (Some(l), None) => NdRange::new(global, l),
                (None, o) => NdRange {
                    global: global.to_vec(),
                    local: None,
                    offset: o.map(<[u64]>::to_vec),
                },
            };
            let ob = Buffer::zeroed(items * 24 * 4);
            run(&p, "queries", &[Arg::Buffer(&ob)], &range, &what);
            let want = queries_reference(global.len() as u32, g3, l3, o3);
            let got = ob.to_vec::<u32>();
            if let Some(j) = (0..want.len()).find(|&j| got[j] != want[j]) {
                let name = match j % 24 {
                    0 => "get_work_dim()".to_string(),
                    slot @ 1..=21 => format!("{}({})", QUERIES[(slot - 1) % 7], (slot - 1) / 7),
                    _ => "padding".to_string(),
                };
                panic!(
                    "{what}: {name} of work-item {} (index {j}): got {}, want {}",
                    j / 24,
                    got[j],
                    want[j]
                );
            }
        }
    }
}

/// Checks `variable_dim`'s or `defaults`' seven words per work-item against `want`'s.
fn check_seven(got: &[u32], want: &[u32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result length");
    if let Some(j) = (0..want.len()).find(|&j| got[j] != want[j]) {
        panic!(
            "{what}: {} of work-item {} (index {j}): got {}, want {}",
            QUERIES[j % 7],
            j / 7,
            got[j],
            want[j]
        );
    }
}

#[test]
fn work_item_functions_at_a_variable_dimension() {
    for width in WIDTHS {
        let p = build("work_item_variable", source!("work_item_variable"), width);
        for (global, local) in [(300u64, 12u64), (64, 64), (35, 7)] {
            for dim in [0u32, 1, 3, 100] {
                let what =
                    format!("variable_dim width {width:?} global {global} local {local} dim {dim}");
                // Work-item i writes at its global id, offset by 2.
                let ob = Buffer::zeroed((global as usize + 2) * 7 * 4);
                run(
                    &p,
                    "variable_dim",
                    &[Arg::Buffer(&ob), Arg::u32(dim)],
                    &range_at(&[global], &[local], &[2]),
                    &what,
                );
                let want: Vec<u32> = (0..global)
                    .flat_map(|i| {
                        if dim == 0 {
                            [
                                2,
                                global / local,
                                i / local,
                                i % local,
                                i + 2,
                                global,
                                local,
                            ]
                        } else {
                            [0, 1, 0, 0, 0, 1, 1]
                        }
                    })
                    .map(|w| w as u32)
                    .collect();
                check_seven(&ob.to_vec::<u32>()[14..], &want, &what);
            }
        }
    }
}

#[test]
fn work_item_functions_at_a_constant_dimension_past_the_range() {
    for width in WIDTHS {
        let p = build("work_item_defaults", source!("work_item_defaults"), width);
        for (global, local) in [(300u64, 12u64), (64, 64), (35, 7)] {
            let what = format!("defaults width {width:?} global {global} local {local}");
            let ob = Buffer::zeroed(global as usize * 7 * 4);
            run(
                &p,
                "defaults",
                &[Arg::Buffer(&ob)],
                &NdRange::new(&[global], &[local]),
                &what,
            );
            check_seven(
                &ob.to_vec::<u32>(),
                &[0u32, 1, 0, 0, 0, 1, 1].repeat(global as usize),
                &what,
            );
        }
    }
}

#[test]
fn barriers_under_uniform_conditions() {
    for width in WIDTHS {
        let p = build("uniform_barrier", source!("uniform_barrier"), width);
        for (global, local) in [
            (300usize, 12usize),
            (512, 256),
            (300, 100),
            (240, 24),
            (35, 7),
            (6, 1),
        ] {
            for (mode, rounds) in [(1, 2), (0, 1), (1, 0)] {
                let what = format!(
                    "uniform_barrier width {width:?} global {global} local {local} mode {mode} rounds {rounds}"
                );
                let mut rng = Rng::new((global * 73 + local) as u64);
                let input = rng.ints(global, -1000, 1000);
                let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(global * 4));
                run(
                    &p,
                    "uniform_barrier",
                    &[
                        Arg::Buffer(&ib),
                        Arg::Buffer(&ob),
                        Arg::Local(local * 4),
                        Arg::i32(mode),
                        Arg::i32(rounds),
                    ],
                    &NdRange::new(&[global as u64], &[local as u64]),
                    &what,
                );
                let mut want = Vec::with_capacity(global);
                for (g, chunk) in input.chunks(local).enumerate() {
                    let mut v: Vec<i32> = if mode != 0 && g % 2 == 0 {
                        (0..local)
                            .map(|l| chunk[local - 1 - l] - chunk[(l + 1) % local])
                            .collect()
                    } else {
                        chunk.iter().map(|&x| -x).collect()
                    };
                    for r in 0..rounds as usize + g % 3 {
                        let tile = v.clone();
                        for (l, x) in v.iter_mut().enumerate() {
                            *x += tile[(l + r + 1) % local];
                        }
                    }
                    want.extend(v);
                }
                assert_same(&ob.to_vec::<i32>(), &want, &what);
            }
        }
    }
}

#[test]
fn local_pointer_arguments_of_two_sizes() {
    for width in WIDTHS {
        let p = build("local_args", source!("local_args"), width);
        for (global, local) in [
            (300usize, 12usize),
            (512, 256),
            (300, 100),
            (240, 24),
            (35, 7),
            (10, 5),
        ] {
            let what = format!("local_args width {width:?} global {global} local {local}");
            let mut rng = Rng::new((global * 79 + local) as u64);
            let input = rng.ints(global, -1000, 1000);
            let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(global * 4));
            run(
                &p,
                "local_args",
                &[
                    Arg::Buffer(&ib),
                    Arg::Buffer(&ob),
                    Arg::Local(local * 4),
                    Arg::Local(local * 3 * 8),
                ],
                &NdRange::new(&[global as u64], &[local as u64]),
                &what,
            );
            let mut want = Vec::with_capacity(global);
            for (g, chunk) in input.chunks(local).enumerate() {
                for l in 0..local {
                    let pv = chunk[local - 1 - l];
                    let k = (l % 3) as i32;
                    let (bx, by) = (pv + k, -pv * k);
                    let f = l % local.min(8);
                    let fixed = (f * f + g) as i32;
                    want.push(chunk[(l + 1) % local] * 1000 + bx + by * 7 + fixed * 100_000);
                }
            }
            assert_same(&ob.to_vec::<i32>(), &want, &what);
        }
    }
}
