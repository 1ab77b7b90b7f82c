//! The widened functions natively: exported to LLVM 19, optimized at O2 for the host and
//! run by MCJIT, they must compute what the interpreter computes for them (which
//! `tests/it/widen.rs` checks against the scalar function run once per lane), on at least
//! 300 generated programs at W = 4, 8 and 16, both linearization modes (a quarter of them
//! with typed stack arrays, laid out element-major across lanes).

use arbitrary::Unstructured;
use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, BUFFER_ALIGN};
use lanes_ir::{AddrSpace, ScalarType, Shape, Type};
use lanes_llvm::jit::Jit;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::Context;
use lanes_wfv::{prepare, widen_into, Mode};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

const PROGRAMS: u64 = 360;

/// Bytes equal, or equal as values of `ty` (any NaN equals any NaN).
fn same(ty: Type, a: &[u8], b: &[u8]) -> bool {
    a == b
        || match (RtValue::from_le_bytes(ty, a), RtValue::from_le_bytes(ty, b)) {
            (Some(x), Some(y)) => x.same_as(&y),
            _ => false,
        }
}

fn same_floats_in(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && (0..a.len()).step_by(4).all(|i| {
            let j = (i + 4).min(a.len());
            if a[i..j] == b[i..j] {
                return true;
            }
            let nan32 =
                |x: &[u8]| x.len() == 4 && f32::from_le_bytes([x[0], x[1], x[2], x[3]]).is_nan();
            let k = i & !7;
            let nan64 = |x: &[u8]| {
                let mut w = [0u8; 8];
                w.copy_from_slice(x);
                f64::from_le_bytes(w).is_nan()
            };
            (nan32(&a[i..j]) && nan32(&b[i..j]))
                || (k + 8 <= a.len() && nan64(&a[k..k + 8]) && nan64(&b[k..k + 8]))
        })
}

#[test]
fn widened_functions_run_natively_as_in_the_interpreter() {
    let ctx = Context::create();
    let opts = PipelineOptions {
        opt_level: 2,
        ..PipelineOptions::default()
    };
    let plain = GenConfig {
        max_blocks: 10,
        max_insts_per_block: 4,
        max_loop_depth: 2,
        // Native code has no work-item runtime here.
        work_items: false,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    };
    // Every fourth program with typed stack arrays, laid out across lanes.
    let typed = GenConfig {
        typed_stack: true,
        ..plain.clone()
    };
    // Every sixteenth program may jump into loop bodies (irreducible cycles), and goes
    // through the reconverging transform.
    let irreducible = GenConfig {
        irreducible: true,
        max_blocks: 14,
        ..plain.clone()
    };
    let mut compared = 0;
    let (mut twins, mut fused, mut interleaved) = (0, 0, 0);
    let mut reconverged = 0;
    let mut lane_width_masks = 0;
    for seed in 0..PROGRAMS {
        let mut bytes = vec![0; 4096];
        SmallRng::seed_from_u64(seed + 90_000).fill_bytes(&mut bytes);
        let cfg = match seed {
            _ if seed % 16 == 14 => &irreducible,
            _ if seed % 4 == 3 => &typed,
            _ => &plain,
        };
        let mut g = generate(&mut Unstructured::new(&bytes), cfg).unwrap();
        let mut rng = SmallRng::seed_from_u64(seed);
        let shapes: Vec<Option<(Shape, u32)>> = g
            .params
            .iter()
            .map(|_| {
                Some(if rng.gen_bool(0.5) {
                    (Shape::Uniform, 0)
                } else {
                    (Shape::Varying, 0)
                })
            })
            .collect();
        let orders = lanes_wfv::reconverge::BlockOrder::ALL;
        let skips = lanes_wfv::reconverge::SkipEmpty::ALL;
        let mode = match seed % 4 {
            // Every fourth partial program through the reconverging transform instead,
            // each order and empty-mask skip policy in turn.
            2 if seed % 8 == 6 => Mode::reconverge(orders[(seed / 8 % 4) as usize])
                .with_skip_empty(skips[(seed / 32 % 3) as usize]),
            0 | 2 => Mode::PARTIAL,
            1 => Mode::FULL,
            _ => Mode::boscc(lanes_wfv::BosccPolicy::All),
        };
        // Every third program gets twin-sided diamonds branching on a varying integer
        // parameter, and branch fusion.
        let instance = (seed % 3 == 2)
            .then(|| {
                let f = g.function();
                (0..g.params.len()).find_map(|i| {
                    let varying = shapes[i].is_some_and(|(s, _)| s == Shape::Varying);
                    let int = matches!(g.params[i], GenParam::Int(_));
                    (varying && int).then(|| f.params[i].value)
                })
            })
            .flatten();
        let mode = match instance {
            Some(v) => {
                let f = g
                    .module
                    .function_mut(g.func)
                    .expect("generated with a body");
                twins += crate::common::twins::twin_sides(f, Some(v), &mut rng);
                mode.with_fusion(lanes_wfv::FusionPolicy::All)
            }
            None => mode,
        };
        let w = [4u16, 8, 16][(seed % 3) as usize];
        let what = format!("seed {seed} {mode:?} W={w}");
        let p = match prepare(&g.module, g.func, &shapes, mode, &mut |_, _| {}) {
            Ok(p) => p,
            Err(e) => panic!("{what}: {e}"),
        };
        reconverged += usize::from(matches!(
            mode.linearization,
            lanes_wfv::Linearization::Reconverge(_)
        ));
        fused += p.fused;
        interleaved += p.interleaved;
        let mut m = g.module.clone();
        let wid = widen_into(&mut m, &p, &shapes, w).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Half the programs with masks as lane-width integers (targets without mask
        // registers), whatever this machine has.
        if (seed / 3) % 2 == 1 {
            lane_width_masks +=
                usize::from(lanes_wfv::lane_masks::lane_width_masks_in(&mut m, 256) > 0);
            lanes_ir::verifier::verify_module(&m).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        let wf = m.function(wid).unwrap().clone();
        let jit = Jit::new(&ctx, &m, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Arguments: interpreter values and native bytes; buffers per lane or shared.
        let mut mem = Memory::new();
        let mut args = Vec::new();
        let mut native_args = Vec::new();
        let mut buffers: Vec<(u64, usize, Vec<u128>)> = Vec::new();
        for (i, gp) in g.params.iter().enumerate() {
            let ty = wf.dfg.value_type(wf.params[i].value);
            let lanes = ty.lane_count() as usize;
            match gp {
                GenParam::Int(_) | GenParam::Float(_) => {
                    let bits: Vec<u64> = (0..lanes)
                        .map(|_| {
                            if ty.is_float() {
                                let x: f64 = rng.gen_range(-4.0..4.0);
                                if ty.elem() == ScalarType::F32 {
                                    u64::from((x as f32).to_bits())
                                } else {
                                    x.to_bits()
                                }
                            } else {
                                lanes_interp::value::normalize(
                                    ty.elem(),
                                    rng.gen_range(-50i64..50) as u64,
                                )
                            }
                        })
                        .collect();
                    let v = RtValue::from_lanes(ty, bits).unwrap();
                    native_args.push(v.to_le_bytes());
                    args.push(v);
                }
                GenParam::Buffer { .. } => {
                    let n = gp.buffer_bytes() as usize;
                    let (mut sim, mut nat) = (Vec::new(), Vec::new());
                    for _ in 0..lanes {
                        let mut b = vec![0u8; n];
                        rng.fill_bytes(&mut b);
                        let ptr = mem
                            .alloc_init(&b, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                            .unwrap();
                        let mut buf = vec![0u128; n.div_ceil(16)];
                        // SAFETY: `buf` has at least `n` bytes.
                        unsafe {
                            std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), n)
                                .copy_from_slice(&b)
                        };
                        sim.push(ptr);
                        nat.push(buf.as_ptr() as u64);
                        buffers.push((ptr, n, buf));
                    }
                    let v = RtValue::from_lanes(ty, sim).unwrap();
                    args.push(v);
                    native_args.push(nat.iter().flat_map(|p| p.to_le_bytes()).collect());
                }
            }
        }
        let interp = Interpreter::new(&m).fuel(8_000_000);
        let Ok(expected) = interp.call(wid, &args, &mut mem) else {
            continue;
        };
        // SAFETY: the buffers outlive the call and hold every byte the code may access
        // (the generator clamps addresses into them).
        let got =
            unsafe { jit.call(&wf.name, &native_args) }.unwrap_or_else(|e| panic!("{what}: {e}"));
        let ty = wf.ret.unwrap();
        let want = expected.unwrap().to_le_bytes();
        let got = got.unwrap();
        assert!(
            same(ty, &want, &got),
            "{what}: interpreter {want:?}, native {got:?}"
        );
        for (ptr, n, buf) in &buffers {
            let want = mem.read_bytes(*ptr, *n as u64).unwrap();
            // SAFETY: `buf` has at least `n` bytes.
            let got = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), *n) };
            assert!(same_floats_in(&want, got), "{what}: buffer differs");
        }
        compared += 1;
    }
    eprintln!("native: {compared} of {PROGRAMS} programs compared; {twins} twin-sided diamonds, {fused} pairs fused; {interleaved} stack-array families interleaved; {reconverged} reconverged; {lane_width_masks} with lane-width masks");
    assert!(compared >= 300, "only {compared} programs compared");
    assert!(
        fused > twins,
        "fusion merged too little: {fused} pairs in {twins} diamonds"
    );
    assert!(
        lane_width_masks > 100,
        "{lane_width_masks} programs with lane-width masks"
    );
    assert!(
        interleaved > 40,
        "{interleaved} stack-array families interleaved"
    );
}
