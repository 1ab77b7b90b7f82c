//! Differential test of widening: the scalar function run once per lane (lanes one after
//! the other, sharing memory) must equal the widened function run once in the
//! interpreter's vector semantics, at W = 4, 8 and 16, after partial linearization and
//! after full if-conversion: the same result in every lane, the same final contents of
//! every argument buffer and global, and no memory byte touched that no lane touched in
//! the scalar runs (inactive lanes never access memory). Inputs on which lanes conflict
//! in memory (a data race of the SPMD program) are not asserted, only counted.

use crate::common;

use std::collections::HashSet;

use lanes_analysis::shapes::ArgShapes;
use lanes_interp::{AccessKind, Interpreter, Memory, RtValue, WorkItemContext};
use lanes_ir::generator::BUFFER_ALIGN;
use lanes_ir::{AddrSpace, FuncId, Module, ScalarType, Shape, Type};
use lanes_wfv::{prepare, widen_into, with_entry_mask, Mode, WfvError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub(crate) const WIDTHS: [u16; 3] = [4, 8, 16];

/// How to make one parameter's value for lane `k`.
#[derive(Clone, Debug)]
pub(crate) enum ArgGen {
    Int(Type, bool),
    Float(Type, bool),
    /// A buffer of this many bytes, shared (uniform) or one per lane.
    Buf(ScalarType, usize, bool),
}

thread_local! {
    /// Calls of [`differential`] so far on this test's thread.
    static ALTERNATE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[derive(Default, Debug)]
pub(crate) struct Tally {
    pub(crate) compared: usize,
    /// Programs with an irreducible cycle.
    pub(crate) irreducible: usize,
    racy: usize,
    faulted: usize,
    unsupported: usize,
    /// Comparisons whose widened function calls a variant of the helper it calls.
    pub(crate) callee_variants: usize,
    /// Twin-sided diamonds made (`common::twins`), and instruction pairs fusion merged.
    pub(crate) twins: usize,
    pub(crate) fused: usize,
    /// Divergent `break`s sent through their loop's latch.
    pub(crate) latch_breaks: usize,
    /// Stack-array families laid out element-major across lanes.
    pub(crate) interleaved: usize,
    /// Comparisons run with masks as lane-width integers (`lanes_wfv::lane_masks`, the
    /// layout of targets without mask registers): every other one.
    pub(crate) lane_width_masks: usize,
    /// Comparisons whose widened function loads once per run of lanes (a gather
    /// narrower than the width: lanes-wfv `runs_at_run_time`).
    pub(crate) run_loads: usize,
    reasons: std::collections::BTreeMap<String, usize>,
}

/// Allocates the buffers (same order in every memory) and returns per-lane arguments and
/// the buffers' (ptr, len).
fn setup(
    gens: &[ArgGen],
    w: u16,
    seed: u64,
    mem: &mut Memory,
) -> (Vec<Vec<RtValue>>, Vec<(u64, usize)>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut lanes: Vec<Vec<RtValue>> = vec![Vec::new(); w as usize];
    let mut bufs = Vec::new();
    for g in gens {
        let mut shared: Option<RtValue> = None;
        for lane in lanes.iter_mut() {
            let uniform = match g {
                ArgGen::Int(_, u) | ArgGen::Float(_, u) | ArgGen::Buf(_, _, u) => *u,
            };
            if let (true, Some(v)) = (uniform, &shared) {
                lane.push(v.clone());
                continue;
            }
            let v = match g {
                ArgGen::Int(t, _) => RtValue::int(t.elem(), rng.gen_range(0..24)),
                ArgGen::Float(t, _) if *t == Type::F32 => RtValue::f32(rng.gen_range(-2.0..2.0)),
                ArgGen::Float(..) => RtValue::f64(rng.gen_range(-2.0..2.0)),
                ArgGen::Buf(elem, len, _) => {
                    let bytes: Vec<u8> = (0..*len)
                        .map(|i| if i % 4 == 0 { rng.gen_range(0..32) } else { 0 })
                        .collect();
                    let space = match elem {
                        ScalarType::Ptr(s) if *s != AddrSpace::PRIVATE => *s,
                        _ => AddrSpace::GLOBAL,
                    };
                    let ptr = mem
                        .alloc_init(&bytes, BUFFER_ALIGN, space, false)
                        .expect("fits");
                    bufs.push((ptr, *len));
                    RtValue::ptr_of(*elem, ptr)
                }
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

/// Observed memory: argument buffers and globals.
fn snapshot(
    mem: &Memory,
    interp: &Interpreter,
    module: &Module,
    bufs: &[(u64, usize)],
) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = bufs
        .iter()
        .map(|&(p, n)| mem.read_bytes(p, n as u64).expect("buffer"))
        .collect();
    for g in module.globals.values() {
        if let Some(p) = interp.global_ptr(mem, &g.name) {
            out.push(mem.read_bytes(p, g.size).expect("global"));
        }
    }
    out
}

fn in_observed(ptr: u64, bufs: &[(u64, usize)], globals: &[(u64, u64)]) -> bool {
    bufs.iter().any(|&(p, n)| ptr >= p && ptr < p + n as u64)
        || globals.iter().any(|&(p, n)| ptr >= p && ptr < p + n)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn differential(
    module: &Module,
    id: FuncId,
    shapes: &ArgShapes,
    gens: &[ArgGen],
    mode: Mode,
    w: u16,
    seed: u64,
    mask: Option<&[bool]>,
    tally: &mut Tally,
    what: &str,
) {
    // With an entry mask, the function gets the `active` parameter (varying).
    let (scalar_module, scalar_id) = (module, id);
    let mut masked = module.clone();
    let (module, id, shapes): (&Module, FuncId, Vec<Option<(Shape, u32)>>) = match mask {
        None => (module, id, shapes.to_vec()),
        Some(_) => {
            let mid = with_entry_mask(&mut masked, id).unwrap();
            let mut s = if shapes.is_empty() {
                vec![None; module.function(id).unwrap().params.len()]
            } else {
                shapes.to_vec()
            };
            s.push(Some((Shape::Varying, 0)));
            (&masked, mid, s)
        }
    };
    let shapes = &shapes[..];
    let mut check =
        |pass: &str, f: &lanes_ir::Function| common::verify(module, f, &format!("{what} {pass}"));
    let mut p =
        prepare(module, id, shapes, mode, &mut check).unwrap_or_else(|e| panic!("{what}: {e}"));
    if mask.is_some() {
        p.mark_entry_mask();
    }
    tally.fused += p.fused;
    tally.latch_breaks += p.latch_breaks;
    tally.interleaved += p.interleaved;
    let mut vm = module.clone();
    let wid = match widen_into(&mut vm, &p, shapes, w) {
        Ok(f) => f,
        Err(WfvError::Unsupported(why)) => {
            tally.unsupported += 1;
            let key: String = why
                .split(" in ")
                .next()
                .unwrap_or("")
                .chars()
                .take(40)
                .collect();
            *tally.reasons.entry(key).or_default() += 1;
            return;
        }
        Err(e) => panic!("{what}: {e}"),
    };
    // Every other comparison (in each test's own order) with lane-width masks.
    let lane_width = ALTERNATE.with(|n| {
        n.set(n.get() + 1);
        n.get() % 2 == 0
    });
    if lane_width {
        lanes_wfv::lane_masks::lane_width_masks_in(&mut vm, 256);
    }
    let what = &format!(
        "{what}{}",
        if lane_width { " lane-width masks" } else { "" }
    );
    if let Err(e) = lanes_ir::verifier::verify_module(&vm) {
        panic!(
            "{what} widened: verifier: {e}\n{}",
            lanes_ir::write::module_to_string(&vm)
        );
    }
    let variant = format!(".w{w}.");
    let calls_variant = vm.function(wid).is_some_and(|f| {
        f.dfg.insts().any(|i| match f.dfg.inst(i) {
            lanes_ir::InstData::Call { func, .. } => vm.funcs[*func].name().contains(&variant),
            _ => false,
        })
    });
    let loads_per_run = vm.functions().any(|(_, f)| {
        f.dfg.insts().any(|i| {
            matches!(f.dfg.inst(i), lanes_ir::InstData::Gather { .. })
                && f.dfg
                    .inst_result(i)
                    .is_some_and(|r| f.dfg.value_type(r).lane_count() < u32::from(w))
        })
    });
    // Reference: lanes one after the other.
    let mut mem = Memory::new();
    let (lanes, bufs) = setup(gens, w, seed, &mut mem);
    let interp = Interpreter::new(module).fuel(common::FUEL);
    mem.enable_trace();
    interp.init_globals(&mut mem).expect("globals");
    let mut results = Vec::new();
    let mut touched: Vec<(HashSet<u64>, HashSet<u64>)> = Vec::new();
    let base = seed % 3 * 16;
    for (k, args) in lanes.iter().enumerate() {
        if mask.is_some_and(|m| !m[k]) {
            // An inactive lane does nothing and returns zero.
            let ret = scalar_module.function(scalar_id).unwrap().ret;
            results.push(ret.map(|t| RtValue::splat(t, 0)));
            touched.push((HashSet::new(), HashSet::new()));
            continue;
        }
        let interp = Interpreter::new(scalar_module)
            .fuel(common::FUEL)
            .work_item(item(base, k as u64));
        match interp.call(scalar_id, args, &mut mem) {
            Ok(r) => results.push(r),
            Err(_) => {
                tally.faulted += 1;
                return;
            }
        }
        let (mut rd, mut wr) = (HashSet::new(), HashSet::new());
        for a in mem.take_trace() {
            for b in a.ptr..a.ptr + a.size {
                match a.kind {
                    AccessKind::Read => rd.insert(b),
                    AccessKind::Write => wr.insert(b),
                    // Only the probes of early exits speculate (outer_loop.rs checks them).
                    AccessKind::Speculative => false,
                };
            }
        }
        touched.push((rd, wr));
    }
    let globals: Vec<(u64, u64)> = module
        .globals
        .values()
        .filter_map(|g| interp.global_ptr(&mem, &g.name).map(|p| (p, g.size)))
        .collect();
    let racy = (0..touched.len()).any(|k| {
        (0..touched.len()).any(|j| {
            j != k
                && touched[k].1.iter().any(|b| {
                    in_observed(*b, &bufs, &globals)
                        && (touched[j].0.contains(b) || touched[j].1.contains(b))
                })
        })
    });
    let expect_mem = snapshot(&mem, &interp, module, &bufs);
    // The widened function, once.
    let mut vmem = Memory::new();
    let (vlanes, vbufs) = setup(gens, w, seed, &mut vmem);
    assert_eq!(bufs, vbufs);
    let vf = vm.function(wid).expect("defined");
    let vargs: Vec<RtValue> = vf
        .params
        .iter()
        .take(lanes.first().map_or(0, Vec::len))
        .enumerate()
        .map(|(i, p)| {
            let ty = vf.dfg.value_type(p.value);
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
    let mut vargs = vargs;
    if let Some(m) = mask {
        let bits = m.iter().map(|&b| u64::from(b)).collect();
        vargs.push(RtValue::from_lanes(Type::mask(w), bits).unwrap());
    }
    let vinterp = Interpreter::new(&vm)
        .fuel(common::FUEL * 4)
        .work_item(item(base, 0));
    vmem.enable_trace();
    let got = vinterp.call(wid, &vargs, &mut vmem).unwrap_or_else(|e| {
        panic!(
            "{what}: widened run failed: {e}\n{}",
            lanes_ir::write::function_to_string(&vm, vm.function(wid).unwrap())
        )
    });
    let got_mem = snapshot(&vmem, &vinterp, &vm, &vbufs);
    let mut same = got_mem == expect_mem;
    if let Some(got) = &got {
        for (k, r) in results.iter().enumerate() {
            let r = r.as_ref().expect("scalar result");
            same &= got.lane(k).is_some_and(|g| g.same_as(r));
        }
    }
    if racy {
        tally.racy += 1;
        return;
    }
    assert!(
        same,
        "{what}: widened result or memory differs: {got:?} vs {results:?}\n{}",
        lanes_ir::write::function_to_string(&vm, vm.function(wid).unwrap())
    );
    // No access outside what the lanes did.
    let all: HashSet<u64> = touched
        .iter()
        .flat_map(|(r, w)| r.iter().chain(w.iter()).copied())
        .collect();
    for a in vmem.take_trace() {
        for b in a.ptr..a.ptr + a.size {
            if in_observed(b, &bufs, &globals) {
                assert!(
                    all.contains(&b),
                    "{what}: byte {b:#x} accessed by an inactive lane\n{}\n{}",
                    lanes_ir::write::function_to_string(&vm, &p.func),
                    lanes_ir::write::function_to_string(&vm, vm.function(wid).unwrap())
                );
            }
        }
    }
    tally.compared += 1;
    tally.lane_width_masks += usize::from(lane_width);
    tally.callee_variants += usize::from(calls_variant);
    tally.run_loads += usize::from(loads_per_run);
}

pub(crate) fn kernel_gens(module: &Module, id: FuncId) -> (Vec<ArgGen>, Vec<Option<(Shape, u32)>>) {
    let f = module.function(id).expect("defined");
    let mut gens = Vec::new();
    let mut shapes = Vec::new();
    for p in &f.params {
        let ty = f.dfg.value_type(p.value);
        let uniform = match p.attrs.shape {
            Some(Shape::Uniform) => true,
            Some(_) => false,
            None => f.attrs.kernel,
        };
        shapes.push(Some((
            if uniform {
                Shape::Uniform
            } else {
                Shape::Varying
            },
            p.attrs.align,
        )));
        gens.push(match ty.elem() {
            ScalarType::F32 | ScalarType::F64 => ArgGen::Float(ty, uniform),
            ScalarType::Ptr(_) => ArgGen::Buf(ty.elem(), 8192, uniform),
            _ => ArgGen::Int(ty, uniform),
        });
    }
    (gens, shapes)
}

/// Kernels whose result depends on the width by design (lane queries, ballots, cross-lane
/// values); those without mask queries are compared with SIMT groups in `widen_simt.rs`.
pub(crate) fn width_dependent(f: &lanes_ir::Function) -> bool {
    f.dfg.insts().any(|i| {
        matches!(
            f.dfg.inst(i),
            lanes_ir::InstData::Intrinsic {
                id: lanes_ir::Intrinsic::Ballot
                    | lanes_ir::Intrinsic::Popcount
                    | lanes_ir::Intrinsic::LaneId
                    | lanes_ir::Intrinsic::NumLanes
                    | lanes_ir::Intrinsic::LaneExtract
                    | lanes_ir::Intrinsic::LaneBroadcast,
                ..
            }
        )
    })
}

/// Every hand-written kernel in each of `modes`, widened at 4, 8 and 16 lanes for input
/// seeds `0..seeds`, with and without an entry mask (remainder lanes off), against the
/// lanes run one by one.
fn kernels_widened(modes: &[Mode], seeds: u64) -> Tally {
    let mut tally = Tally::default();
    for path in common::kernel_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let module = lanes_ir::parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (id, f) in module.functions() {
            if f.layout.num_blocks() == 0 || width_dependent(f) {
                continue;
            }
            let (gens, shapes) = kernel_gens(&module, id);
            for &mode in modes {
                for w in WIDTHS {
                    for seed in 0..seeds {
                        let what = format!("{name} @{} {mode:?} W={w} seed {seed}", f.name);
                        let m = lane_mask(w, seed * 31 + u64::from(w));
                        for mask in [None, Some(&m[..])] {
                            let what = format!("{what} mask {mask:?}");
                            differential(
                                &module, id, &shapes, &gens, mode, w, seed, mask, &mut tally, &what,
                            );
                        }
                    }
                }
            }
        }
    }
    tally
}

/// The hand-written kernels under `--linearize reconverge` (each block order).
#[test]
fn reconverged_kernels_widened_equal_lanes_run_one_by_one() {
    let modes = lanes_wfv::reconverge::BlockOrder::ALL.map(Mode::reconverge);
    let tally = kernels_widened(&modes, 1);
    eprintln!("reconverged kernels: {tally:?}");
    assert!(tally.compared > 600, "{tally:?}");
}

#[test]
fn kernels_widened_equal_lanes_run_one_by_one() {
    let boscc = Mode::boscc(lanes_wfv::BosccPolicy::All).with_fusion(lanes_wfv::FusionPolicy::All);
    let tally = kernels_widened(&[Mode::PARTIAL, Mode::FULL, boscc], 2);
    eprintln!("kernels: {tally:?}");
    assert!(tally.compared > 300, "{tally:?}");
    assert!(tally.lane_width_masks > 100, "{tally:?}");
}

/// An entry mask: the first lanes on (a remainder), or a pseudo-random pattern, or none.
pub(crate) fn lane_mask(w: u16, seed: u64) -> Vec<bool> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x3a5c);
    match seed % 4 {
        0 => {
            let n = rng.gen_range(0..w);
            (0..w).map(|k| k < n).collect()
        }
        1 => vec![false; w as usize],
        _ => (0..w).map(|_| rng.gen_bool(0.6)).collect(),
    }
}
