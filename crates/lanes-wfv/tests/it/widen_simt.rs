//! Differential test of widening for kernels whose result depends on the width by design:
//! kernels that use `lane_id`, `num_lanes`, `lane_extract`
//! or `lane_broadcast` (`include/lanes.h`'s lane intrinsics) cannot be compared with the
//! scalar function run once per lane (there, every instance is alone, lane 0 of 1), so
//! their reference is the SIMT interpreter of `lanes-simt`: W lanes in lock-step, where a
//! scalar `lane_id` is the thread index, `num_lanes` is W and the cross-lane intrinsics read
//! the other threads' values. The widened function, run once in the interpreter's vector
//! semantics at W = 4, 8 and 16 after partial linearization and after full
//! if-conversion, must return in every lane what that lane returned in the SIMT run and
//! leave every argument buffer as the SIMT run did. All lanes are active at entry (a lane
//! inactive from the start never computed the values another lane may read; `lanes.h`
//! leaves such reads unspecified).

use crate::common;

use lanes_interp::{ExecContext, Interpreter, Memory, RtValue, WorkItemContext};
use lanes_ir::{FuncId, Function, InstData, Intrinsic, Module, ScalarType, Shape};
use lanes_simt::{LaneInput, LaneOutcome, Simt};
use lanes_wfv::{prepare, widen_into, Mode};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const WIDTHS: [u16; 3] = [4, 8, 16];
const BUF_BYTES: usize = 4096;

/// Does `f` use a lane intrinsic the SIMT interpreter gives its group meaning, and no
/// mask query (which the SIMT interpreter evaluates per thread)?
fn lane_dependent(f: &Function) -> bool {
    let ids: Vec<Intrinsic> = f
        .dfg
        .insts()
        .filter_map(|i| match f.dfg.inst(i) {
            InstData::Intrinsic { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    let lanes = ids.iter().any(|id| {
        matches!(
            id,
            Intrinsic::LaneId
                | Intrinsic::NumLanes
                | Intrinsic::LaneExtract
                | Intrinsic::LaneBroadcast
        )
    });
    let masks = ids.iter().any(|id| {
        matches!(
            id,
            Intrinsic::Any | Intrinsic::All | Intrinsic::Popcount | Intrinsic::Ballot
        )
    });
    lanes && !masks
}

/// Buffers (one per pointer parameter, shared by all lanes) and scalars (uniform or one
/// per lane, as the parameter's shape says) in `mem`; the per-lane arguments and the
/// buffers' addresses.
fn inputs(f: &Function, w: u16, seed: u64, mem: &mut Memory) -> (Vec<Vec<RtValue>>, Vec<u64>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut lanes = vec![Vec::new(); usize::from(w)];
    let mut bufs = Vec::new();
    for p in &f.params {
        let ty = f.dfg.value_type(p.value);
        let uniform = p.attrs.shape.is_none_or(|s| s == Shape::Uniform);
        let mut shared = None;
        for lane in lanes.iter_mut() {
            let v = match (&shared, ty.elem()) {
                (Some(v), _) if uniform => Clone::clone(v),
                (_, ScalarType::Ptr(space)) => {
                    let bytes: Vec<u8> = (0..BUF_BYTES)
                        .map(|i| if i % 4 == 0 { rng.gen_range(0..32) } else { 0 })
                        .collect();
                    let ptr = mem.alloc_init(&bytes, 16, space, false).expect("fits");
                    bufs.push(ptr);
                    RtValue::ptr_of(ty.elem(), ptr)
                }
                (_, ScalarType::F32) => RtValue::f32(rng.gen_range(-2.0..2.0)),
                (_, ScalarType::F64) => RtValue::f64(rng.gen_range(-2.0..2.0)),
                (_, e) => RtValue::int(e, rng.gen_range(0..24)),
            };
            shared = Some(v.clone());
            lane.push(v);
        }
    }
    (lanes, bufs)
}

fn item(base: u64, k: u64) -> WorkItemContext {
    WorkItemContext::one_dim(0, base + k, 64, 1)
}

/// One comparison; the widened function's text on failure.
fn differential(module: &Module, id: FuncId, mode: Mode, w: u16, seed: u64, what: &str) {
    let f = module.function(id).expect("defined");
    let shapes: Vec<Option<(Shape, u32)>> = f
        .params
        .iter()
        .map(|p| Some((p.attrs.shape.unwrap_or(Shape::Uniform), p.attrs.align)))
        .collect();
    let mut check = |pass: &str, g: &Function| common::verify(module, g, &format!("{what} {pass}"));
    let p =
        prepare(module, id, &shapes, mode, &mut check).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut vm = module.clone();
    let wid = widen_into(&mut vm, &p, &shapes, w).unwrap_or_else(|e| panic!("{what}: {e}"));
    lanes_ir::verifier::verify_module(&vm).unwrap_or_else(|e| panic!("{what} widened: {e}"));
    let text = || lanes_ir::write::function_to_string(&vm, vm.function(wid).unwrap());
    let base = seed % 3 * 16;

    // Reference: W lanes in lock-step.
    let mut mem = Memory::new();
    let (lanes, bufs) = inputs(f, w, seed, &mut mem);
    let group: Vec<LaneInput> = lanes
        .iter()
        .enumerate()
        .map(|(k, args)| LaneInput {
            args: args.clone(),
            exec: ExecContext {
                work_item: item(base, k as u64),
                lane: k as u32,
                num_lanes: u32::from(w),
            },
        })
        .collect();
    let out = Simt::new(module)
        .fuel(common::FUEL)
        .run(id, &group, &mut mem)
        .unwrap_or_else(|e| panic!("{what}: SIMT: {e}"));
    let expect: Vec<Option<RtValue>> = out
        .lanes
        .into_iter()
        .map(|o| match o {
            LaneOutcome::Returned(r) => r,
            LaneOutcome::Faulted(e) => panic!("{what}: SIMT lane faulted: {e}"),
        })
        .collect();

    // The widened function, once.
    let mut vmem = Memory::new();
    let (vlanes, vbufs) = inputs(f, w, seed, &mut vmem);
    assert_eq!(bufs, vbufs);
    let vf = vm.function(wid).expect("defined");
    let vargs: Vec<RtValue> = vf
        .params
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let ty = vf.dfg.value_type(q.value);
            if ty.is_vector() {
                let bits = vlanes
                    .iter()
                    .map(|l| l[i].bits().expect("scalar"))
                    .collect();
                RtValue::from_lanes(ty, bits).expect("lanes")
            } else {
                vlanes[0][i].clone()
            }
        })
        .collect();
    let interp = Interpreter::new(&vm)
        .fuel(common::FUEL * 4)
        .work_item(item(base, 0));
    let got = interp
        .call(wid, &vargs, &mut vmem)
        .unwrap_or_else(|e| panic!("{what}: widened run failed: {e}\n{}", text()));
    if let Some(got) = &got {
        for (k, r) in expect.iter().enumerate() {
            let r = r.as_ref().expect("a result");
            assert!(
                got.lane(k).is_some_and(|g| g.same_as(r)),
                "{what}: lane {k}: {got:?} vs {r:?}\n{}",
                text()
            );
        }
    }
    for &b in &bufs {
        let want = mem.read_bytes(b, BUF_BYTES as u64).expect("buffer");
        let have = vmem.read_bytes(b, BUF_BYTES as u64).expect("buffer");
        assert!(want == have, "{what}: buffer {b:#x} differs\n{}", text());
    }
}

#[test]
fn lane_dependent_kernels_widened_equal_simt_groups() {
    let files = common::kernel_files();
    let (mut kernels, mut compared, mut cross) = (Vec::new(), 0, 0);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let module = lanes_ir::parse_module(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (id, f) in module.functions() {
            if f.layout.num_blocks() == 0 || !lane_dependent(f) {
                continue;
            }
            kernels.push(format!("{name}@{}", f.name));
            cross += usize::from(f.dfg.insts().any(|i| {
                matches!(
                    f.dfg.inst(i),
                    InstData::Intrinsic {
                        id: Intrinsic::LaneExtract | Intrinsic::LaneBroadcast,
                        ..
                    }
                )
            }));
            let boscc =
                Mode::boscc(lanes_wfv::BosccPolicy::All).with_fusion(lanes_wfv::FusionPolicy::All);
            for mode in [Mode::PARTIAL, Mode::FULL, boscc] {
                for w in WIDTHS {
                    for seed in 0..3 {
                        let what = format!("{name} @{} {mode:?} W={w} seed {seed}", f.name);
                        differential(&module, id, mode, w, seed, &what);
                        compared += 1;
                    }
                }
            }
        }
    }
    eprintln!("lane-dependent kernels: {kernels:?}, {compared} comparisons");
    assert!(cross >= 3, "{kernels:?}");
    assert_eq!(compared, kernels.len() * 3 * WIDTHS.len() * 3);
}

/// Volatile and atomic accesses, fences and indirect calls are observable, so the widened
/// code performs them once per active lane in lane order — the order of a SIMT group in
/// lock-step. Lanes race on purpose here (an atomic counter whose old values each lane
/// stores), which the one-lane-after-another reference of `widen.rs` cannot judge; the
/// SIMT group can, and any other order or an extra access by an inactive lane changes the
/// stored old values.
#[test]
fn observable_accesses_widened_equal_simt_groups() {
    let path = common::kernel_path("volatile_atomics.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let id = module.func_by_name("volatile_atomics").expect("kernel");
    for mode in [Mode::PARTIAL, Mode::FULL] {
        for w in WIDTHS {
            for seed in 0..4 {
                let what = format!("volatile_atomics {mode:?} W={w} seed {seed}");
                differential(&module, id, mode, w, seed, &what);
            }
        }
    }
}
