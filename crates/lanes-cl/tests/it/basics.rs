//! Work-item functions, masking of partial vectors, `__local` memory, barriers (in loops
//! and uniform conditionals), several dimensions, and the errors a host can make.

use lanes_cl::{Arg, Buffer, BuildOptions, ClError, Context, NdRange, Program};

fn build(src: &str, width: Option<u16>) -> Program {
    build_with(src, width, true)
}

/// `specialize`: compile again per launch's local size (the default) or run the generic
/// code, which reads the local size from the group context.
fn build_with(src: &str, width: Option<u16>, specialize: bool) -> Program {
    let opts = BuildOptions {
        width,
        specialize_local_size: specialize,
        ..BuildOptions::default()
    };
    Context::with_threads(2)
        .unwrap()
        .build_source(src, &opts)
        .unwrap_or_else(|e| panic!("build failed: {e}"))
}

/// Widths to test: scalar, 4, and the target's own.
const WIDTHS: [Option<u16>; 3] = [Some(1), Some(4), None];

const SAXPY: &str = r#"
__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[test]
fn saxpy_matches_rust_at_every_width_and_odd_sizes() {
    for (width, specialize) in WIDTHS.into_iter().flat_map(|w| [(w, true), (w, false)]) {
        let p = build_with(SAXPY, width, specialize);
        for (global, local) in [(1000u64, 8u64), (999, 27), (64, 64), (13, 1), (1024, 256)] {
            let n = global as usize;
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let y0: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
            let (xb, yb) = (Buffer::from_slice(&x), Buffer::from_slice(&y0));
            p.kernel("saxpy")
                .unwrap()
                .enqueue(
                    &[
                        Arg::Buffer(&yb),
                        Arg::Buffer(&xb),
                        Arg::f32(3.0),
                        Arg::i32(n as i32 - 3),
                    ],
                    &NdRange::new(&[global], &[local]),
                )
                .unwrap();
            let want: Vec<f32> = (0..n)
                .map(|i| {
                    if i < n - 3 {
                        3.0f32.mul_add(x[i], y0[i])
                    } else {
                        y0[i]
                    }
                })
                .collect();
            let got = yb.to_vec::<f32>();
            for i in 0..n {
                assert!(
                    (got[i] - want[i]).abs() <= 1e-5 * want[i].abs().max(1.0),
                    "width {width:?} {global}/{local}: y[{i}] = {} want {}",
                    got[i],
                    want[i]
                );
            }
        }
    }
}

const REVERSE: &str = r#"
__kernel void reverse(__global int *out, __global const int *in) {
  __local int tile[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[n - 1 - l] * 10 + (int)get_group_id(0);
}
"#;

#[test]
fn local_memory_is_per_group_and_barriers_order_it() {
    for width in WIDTHS {
        let p = build(REVERSE, width);
        for (global, local) in [(1024u64, 256u64), (300, 100), (96, 3)] {
            let input: Vec<i32> = (0..global as i32).map(|i| i * 7 - 100).collect();
            let (ib, ob) = (
                Buffer::from_slice(&input),
                Buffer::zeroed(global as usize * 4),
            );
            p.kernel("reverse")
                .unwrap()
                .enqueue(
                    &[Arg::Buffer(&ob), Arg::Buffer(&ib)],
                    &NdRange::new(&[global], &[local]),
                )
                .unwrap();
            let got = ob.to_vec::<i32>();
            for (g, &v) in got.iter().enumerate() {
                let (grp, l) = (g as u64 / local, g as u64 % local);
                let src = (grp * local + local - 1 - l) as usize;
                assert_eq!(
                    v,
                    input[src] * 10 + grp as i32,
                    "width {width:?} {global}/{local} at {g}"
                );
            }
        }
    }
}

const REDUCE: &str = r#"
__kernel void reduce(__global const float *in, __global float *sums, __local float *scratch) {
  size_t l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) sums[get_group_id(0)] = scratch[0];
}
"#;

#[test]
fn tree_reduction_with_a_barrier_in_a_loop() {
    for (width, specialize) in WIDTHS.into_iter().flat_map(|w| [(w, true), (w, false)]) {
        let p = build_with(REDUCE, width, specialize);
        // `l < s` decides the addition, not the barrier: no warning.
        assert!(p.kernel("reduce").unwrap().info().warnings.is_empty());
        for (global, local) in [(4096u64, 256u64), (512, 64), (64, 2), (16, 16)] {
            let input: Vec<f32> = (0..global).map(|i| (i % 17) as f32 - 3.0).collect();
            let groups = (global / local) as usize;
            let (ib, sb) = (Buffer::from_slice(&input), Buffer::zeroed(groups * 4));
            p.kernel("reduce")
                .unwrap()
                .enqueue(
                    &[
                        Arg::Buffer(&ib),
                        Arg::Buffer(&sb),
                        Arg::Local(local as usize * 4),
                    ],
                    &NdRange::new(&[global], &[local]),
                )
                .unwrap();
            let got = sb.to_vec::<f32>();
            for g in 0..groups {
                let want: f32 = input[g * local as usize..(g + 1) * local as usize]
                    .iter()
                    .sum();
                assert_eq!(got[g], want, "width {width:?} {global}/{local} group {g}");
            }
        }
    }
}

const TRANSPOSE: &str = r#"
__kernel void transpose(__global float *out, __global const float *in, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  out[x * h + y] = in[y * w + x] + get_local_id(1) * 1000.0f + get_work_dim() * 100000.0f;
}
"#;

#[test]
fn two_dimensions_keep_dimension_one_uniform() {
    for width in WIDTHS {
        let p = build(TRANSPOSE, width);
        let (w, h) = (40usize, 12usize);
        let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let (ib, ob) = (Buffer::from_slice(&input), Buffer::zeroed(w * h * 4));
        p.kernel("transpose")
            .unwrap()
            .enqueue(
                &[
                    Arg::Buffer(&ob),
                    Arg::Buffer(&ib),
                    Arg::i32(w as i32),
                    Arg::i32(h as i32),
                ],
                &NdRange::new(&[w as u64, h as u64], &[20, 3]),
            )
            .unwrap();
        let got = ob.to_vec::<f32>();
        for y in 0..h {
            for x in 0..w {
                let want = input[y * w + x] + (y % 3) as f32 * 1000.0 + 200000.0;
                assert_eq!(got[x * h + y], want, "width {width:?} at ({x}, {y})");
            }
        }
    }
}

const DIVERGENT_BARRIER: &str = r#"
__kernel void bad(__global int *out) {
  int l = get_local_id(0);
  if (l < 5) {
    out[l] = 1;
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  out[get_global_id(0)] += 1;
}
"#;

#[test]
fn a_barrier_only_some_work_items_reach_is_an_error_not_a_hang() {
    for width in WIDTHS {
        let p = build(DIVERGENT_BARRIER, width);
        // Found statically as a warning: the barrier (line 6) under `l < 5` (line 4).
        let warnings = p.kernel("bad").unwrap().info().warnings.clone();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains(":6: kernel `bad`") && warnings[0].contains("line 4"),
            "{warnings:?}"
        );
        let ob = Buffer::zeroed(64 * 4);
        let err = p
            .kernel("bad")
            .unwrap()
            .enqueue(&[Arg::Buffer(&ob)], &NdRange::new(&[64], &[16]))
            .unwrap_err();
        assert!(matches!(err, ClError::BarrierDivergence { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("did not all reach the same barrier"),
            "{err}"
        );
        // When every work-item takes the branch, the same kernel is fine.
        p.kernel("bad")
            .unwrap()
            .enqueue(&[Arg::Buffer(&ob)], &NdRange::new(&[5], &[5]))
            .unwrap();
    }
}

#[test]
fn host_errors_name_what_is_wrong() {
    let p = build(SAXPY, None);
    let x = Buffer::zeroed(64);
    let k = p.kernel("saxpy").unwrap();
    let e = k
        .enqueue(&[Arg::Buffer(&x)], &NdRange::linear(16))
        .unwrap_err();
    assert!(
        e.to_string().contains("takes 4 arguments, 1 were given"),
        "{e}"
    );
    let e = k
        .enqueue(
            &[Arg::Buffer(&x), Arg::f32(1.0), Arg::f32(1.0), Arg::i32(1)],
            &NdRange::linear(16),
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("argument 1 (`x`)")
            && e.to_string().contains("a pointer, not a value"),
        "{e}"
    );
    let e = k
        .enqueue(
            &[Arg::Buffer(&x), Arg::Buffer(&x), Arg::f64(1.0), Arg::i32(1)],
            &NdRange::linear(16),
        )
        .unwrap_err();
    assert!(e.to_string().contains("takes 4 bytes"), "{e}");
    let e = k
        .enqueue(
            &[Arg::Buffer(&x), Arg::Buffer(&x), Arg::f32(1.0), Arg::i32(1)],
            &NdRange::new(&[10], &[4]),
        )
        .unwrap_err();
    assert!(e.to_string().contains("does not divide"), "{e}");
    let e = p.kernel("sax").err().unwrap();
    assert!(
        e.to_string().contains("no kernel named `sax`") && e.to_string().contains("saxpy"),
        "{e}"
    );
}

#[test]
fn compile_errors_carry_file_and_line() {
    let ctx = Context::with_threads(1).unwrap();
    let e = ctx
        .build_source(
            "__kernel void k(__global int *x) {\n  x[0] = undefined_thing;\n}\n",
            &BuildOptions::default(),
        )
        .err()
        .unwrap();
    let text = e.to_string();
    assert!(
        text.contains(":2:") && text.contains("undefined_thing"),
        "{text}"
    );
}

const OFF_BY_ONE: &str = r#"
__kernel void shift(__global float *out, __global const float *in) {
  size_t i = get_global_id(0);
  out[i] = in[i + 1];
}
"#;

#[test]
fn checked_launches_find_out_of_bounds_accesses_and_name_the_line() {
    for width in WIDTHS {
        let p = build(OFF_BY_ONE, width);
        let k = p.kernel("shift").unwrap();
        let (inb, outb) = (Buffer::from_slice(&[1.0f32; 17]), Buffer::zeroed(16 * 4));
        // In bounds: the checked run gives the native run's result.
        k.enqueue_checked(
            &[Arg::Buffer(&outb), Arg::Buffer(&inb)],
            &NdRange::new(&[16], &[8]),
        )
        .unwrap();
        assert_eq!(outb.to_vec::<f32>(), vec![1.0; 16]);
        let small = Buffer::from_slice(&[1.0f32; 16]);
        let e = k
            .enqueue_checked(
                &[Arg::Buffer(&outb), Arg::Buffer(&small)],
                &NdRange::new(&[16], &[8]),
            )
            .unwrap_err();
        assert!(matches!(e, ClError::Checked { .. }), "{e}");
        assert!(
            e.to_string().contains(":4: kernel `shift`"),
            "width {width:?}: {e}"
        );
    }
}

/// CC'12's configurations (§5): naive (full linearization, every value varying), uniform
/// values, uniform control flow (partial linearization), + BOSCC; all give the same sums.
#[test]
fn cc12_configurations_compute_the_same() {
    use lanes_wfv::{BosccPolicy, Mode};
    let configs = [
        ("naive", Mode::FULL, true),
        ("uniform values", Mode::FULL, false),
        ("uniform control flow", Mode::PARTIAL, false),
        ("+ BOSCC", Mode::boscc(BosccPolicy::All), false),
    ];
    for (name, mode, all_varying) in configs {
        let opts = BuildOptions {
            mode,
            all_varying,
            width: Some(8),
            ..BuildOptions::default()
        };
        let p = Context::with_threads(2)
            .unwrap()
            .build_source(REDUCE, &opts)
            .unwrap();
        // A tree reduction needs a power-of-two group.
        let (global, local) = (512u64, 64u64);
        let input: Vec<f32> = (0..global).map(|i| (i % 13) as f32).collect();
        let (ib, sb) = (Buffer::from_slice(&input), Buffer::zeroed(8 * 4));
        p.kernel("reduce")
            .unwrap()
            .enqueue(
                &[
                    Arg::Buffer(&ib),
                    Arg::Buffer(&sb),
                    Arg::Local(local as usize * 4),
                ],
                &NdRange::new(&[global], &[local]),
            )
            .unwrap();
        let got = sb.to_vec::<f32>();
        for g in 0..8 {
            let want: f32 = input[g * 64..(g + 1) * 64].iter().sum();
            assert_eq!(got[g], want, "{name}: group {g}");
        }
    }
}
