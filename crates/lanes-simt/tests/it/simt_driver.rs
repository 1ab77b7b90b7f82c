//! The SIMT driver: μ-SIMD lock-step execution with a sync stack
//! (PACT'11 §II), reconvergence at immediate post-dominators, its profile (diverged
//! branches, values that differed, utilization), per-lane faults, inactive lanes that
//! never execute, and agreement with the scalar interpreter lane by lane.

use arbitrary::Unstructured;
use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam};
use lanes_ir::{Block, EntityRef, Module, Shape, Value};
use lanes_simt::inputs::{lane_exec, lane_inputs};
use lanes_simt::{LaneInput, LaneOutcome, Simt, SimtOutcome};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn module(text: &str) -> Module {
    let m = lanes_ir::parse_module(text).expect("parses");
    lanes_ir::verifier::verify_module(&m).expect("verifies");
    m
}

fn run(m: &Module, args: &[Vec<RtValue>], mem: &mut Memory) -> SimtOutcome {
    let w = args.len();
    let lanes: Vec<LaneInput> = args
        .iter()
        .enumerate()
        .map(|(i, a)| LaneInput {
            args: a.clone(),
            exec: lane_exec(0, i, w),
        })
        .collect();
    let (id, _) = m.functions().next().unwrap();
    Simt::new(m).run(id, &lanes, mem).expect("runs")
}

fn returned(o: &LaneOutcome) -> i64 {
    match o {
        LaneOutcome::Returned(Some(v)) => v.as_i64().unwrap(),
        other => panic!("lane did not return a value: {other:?}"),
    }
}

const DIAMOND: &str = "
function @diamond(v0: i32) -> i32 {
block0:
    v1: i32 = lane_id
    v2: i32 = iconst 2
    v3: i1 = icmp slt v1, v2
    brif v3, block1, block2
block1:
    v4: i32 = add v0, v1
    br block3
block2:
    v5: i32 = mul v0, v1
    br block3
block3:
    v6: i32 = phi [block1: v4], [block2: v5]
    v7: i32 = add v0, v0
    ret v6
}";

#[test]
fn divergent_diamond_reconverges_at_the_post_dominator() {
    let m = module(DIAMOND);
    let out = run(&m, &vec![vec![RtValue::i32(10)]; 4], &mut Memory::new());
    let got: Vec<i64> = out.lanes.iter().map(returned).collect();
    assert_eq!(got, [10, 11, 20, 30]);
    let p = &out.profile;
    assert_eq!(p.branches[&Block::new(0)].executions, 1);
    assert_eq!(p.branches[&Block::new(0)].diverged, 1);
    // block0 (4 lanes), block1 (2), block2 (2), block3 once with all 4: reconverged.
    assert_eq!(p.block_executions, 4);
    assert_eq!(p.active_lane_sum, 12);
    assert!((p.utilization() - 0.75).abs() < 1e-9);
    assert!(p.divergent_values.contains(&Value::new(6)), "the φ differs");
    assert!(
        p.divergent_values.contains(&Value::new(1)),
        "lane_id differs"
    );
    assert!(
        !p.divergent_values.contains(&Value::new(7)),
        "v0 + v0 is uniform"
    );
    // Uniform inputs that take one side: no divergence, full utilization.
    let out = run(&m, &vec![vec![RtValue::i32(10)]; 2], &mut Memory::new());
    assert_eq!(out.profile.branches[&Block::new(0)].diverged, 0);
    assert!((out.profile.utilization() - 1.0).abs() < 1e-9);
}

const LOOP: &str = "
function @count(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 0
    v2: i32 = iconst 1
    br block1
block1:
    v3: i32 = phi [block0: v1], [block2: v4]
    v5: i1 = icmp slt v3, v0
    brif v5, block2, block3
block2:
    v4: i32 = add v3, v2
    br block1
block3:
    ret v3
}";

#[test]
fn lanes_leave_a_loop_at_different_times_and_wait() {
    let m = module(LOOP);
    let args: Vec<Vec<RtValue>> = [3, 0, 5, 1]
        .iter()
        .map(|&n| vec![RtValue::i32(n)])
        .collect();
    let out = run(&m, &args, &mut Memory::new());
    let got: Vec<i64> = out.lanes.iter().map(returned).collect();
    assert_eq!(got, [3, 0, 5, 1]);
    let p = &out.profile;
    // The loop test ran 6 times (iterations 0..=5 of the longest lane) and diverged in
    // the iterations where some but not all remaining lanes left: 0, 1, 3 (5: the last
    // lane leaves alone, all active lanes agree).
    assert_eq!(p.branches[&Block::new(1)].executions, 6);
    assert_eq!(p.branches[&Block::new(1)].diverged, 3);
    // Of the other three, in 2 and 4 no lane left (no thread on the `else` side) and in
    // 5 none stayed (none on the `then` side): what a vector wave would find empty.
    assert_eq!(p.branches[&Block::new(1)].none_to_then, 1);
    assert_eq!(p.branches[&Block::new(1)].none_to_else, 2);
    // The counter never differs among the lanes still in the loop, but the exit block
    // runs once, with every lane, after the last one has left: there `ret v3` reads four
    // different values (temporal divergence).
    assert!(!p.divergent_values.contains(&Value::new(3)));
    let (_, f) = m.functions().next().unwrap();
    let ret = f.terminator(Block::new(3)).unwrap();
    assert!(p.divergent_uses.contains(&(ret, Value::new(3))));
    assert!(p.utilization() < 0.8);
    // The vectorizer's view: the counts by `brif`, for this function and width only.
    let profile = p.branch_profile(&m, f);
    assert_eq!(profile.width, 4);
    assert_eq!(
        profile.fingerprint,
        lanes_ir::branch_profile::fingerprint(&m, f)
    );
    let test = f.terminator(Block::new(1)).unwrap();
    let counts = profile.at(test).expect("the loop test's counts");
    assert_eq!(counts.empty_rate(true), Some(1.0 / 6.0));
    assert_eq!(counts.empty_rate(false), Some(2.0 / 6.0));
    assert_eq!(profile.branches.len(), 1);
    // Another function (here: one more instruction) has another fingerprint.
    let other = module(&LOOP.replace("ret v3", "v9: i32 = add v3, v3\n    ret v9"));
    let (_, g) = other.functions().next().unwrap();
    assert_ne!(
        lanes_ir::branch_profile::fingerprint(&other, g),
        profile.fingerprint
    );
}

const FAULT: &str = "
function @div(v0: i32, v1: ptr) -> i32 {
block0:
    v2: i32 = lane_id
    v3: i32 = sdiv v0, v2
    v4: i32 = iconst 1
    v5: i1 = icmp sgt v2, v4
    brif v5, block1, block2
block1:
    store v3, v1 align 4
    br block2
block2:
    ret v3
}";

#[test]
fn a_faulting_lane_is_reported_and_inactive_lanes_never_touch_memory() {
    let m = module(FAULT);
    let mut mem = Memory::new();
    let buf = mem
        .alloc(16, 16, lanes_ir::AddrSpace::PRIVATE)
        .expect("alloc");
    mem.enable_trace();
    let args = vec![vec![RtValue::i32(12), RtValue::ptr(buf)]; 4];
    let out = run(&m, &args, &mut mem);
    assert!(
        matches!(&out.lanes[0], LaneOutcome::Faulted(e) if e.to_string().contains("division")),
        "{:?}",
        out.lanes[0]
    );
    assert_eq!(returned(&out.lanes[1]), 12);
    assert_eq!(returned(&out.lanes[2]), 6);
    assert_eq!(returned(&out.lanes[3]), 4);
    let trace = mem.take_trace();
    let lanes: Vec<Option<u32>> = trace.iter().map(|a| a.lane).collect();
    assert_eq!(
        lanes,
        [Some(2), Some(3)],
        "only the active lanes 2 and 3 store"
    );
}

#[test]
fn lane_inputs_follow_the_shapes() {
    let mut mem = Memory::new();
    let base = [
        RtValue::i32(7),
        RtValue::i32(100),
        RtValue::i64(5),
        RtValue::i32(1),
    ];
    let shapes = [
        Some(Shape::Uniform),
        Some(Shape::Contiguous),
        Some(Shape::Strided(-3)),
        Some(Shape::Varying),
    ];
    let mut vary = |lane: usize, _p: usize, _b: &RtValue| RtValue::i32(lane as i32 * 11);
    let lanes = lane_inputs(&base, &shapes, 3, 2, &mut mem, &mut vary).unwrap();
    let col =
        |p: usize| -> Vec<i64> { lanes.iter().map(|l| l.args[p].as_i64().unwrap()).collect() };
    assert_eq!(col(0), [7, 7, 7]);
    assert_eq!(col(1), [100, 101, 102]);
    assert_eq!(col(2), [5, 2, -1]);
    assert_eq!(col(3), [1, 11, 22]);
    let gids: Vec<u64> = lanes
        .iter()
        .map(|l| l.exec.work_item.global_id[0])
        .collect();
    assert_eq!(gids, [6, 7, 8], "group 2 of width 3");
    let lids: Vec<u64> = lanes.iter().map(|l| l.exec.work_item.local_id[0]).collect();
    assert_eq!(lids, [0, 1, 2]);
}

/// Without memory, lanes cannot interact: each lane of a SIMT run must compute exactly
/// what the scalar interpreter computes for that instance, whatever the divergence.
#[test]
fn simt_lanes_agree_with_the_scalar_interpreter() {
    let cfg = GenConfig {
        memory: false,
        work_items: true,
        ..GenConfig::default()
    };
    let mut diverged = 0;
    for seed in 0..300u64 {
        let bytes = lanes_test_support::seeded_bytes(seed, 8192);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).unwrap();
        let mut rng = SmallRng::seed_from_u64(seed);
        let w = rng.gen_range(1..=6usize);
        let lanes: Vec<LaneInput> = (0..w)
            .map(|i| LaneInput {
                args: g
                    .params
                    .iter()
                    .map(|p| match p {
                        GenParam::Int(t) => RtValue::int(t.elem(), rng.gen_range(-20..20)),
                        GenParam::Float(t) if t.elem() == lanes_ir::ScalarType::F32 => {
                            RtValue::f32(rng.gen_range(-3.0..3.0))
                        }
                        GenParam::Float(_) => RtValue::f64(rng.gen_range(-3.0..3.0)),
                        GenParam::Buffer { .. } => unreachable!("memory is off"),
                    })
                    .collect(),
                exec: lane_exec(1, i, w),
            })
            .collect();
        let out = Simt::new(&g.module)
            .run(g.func, &lanes, &mut Memory::new())
            .unwrap();
        for (i, lane) in lanes.iter().enumerate() {
            let scalar = Interpreter::new(&g.module)
                .exec_context(lane.exec.clone())
                .call(g.func, &lane.args, &mut Memory::new());
            match (&out.lanes[i], scalar) {
                (LaneOutcome::Returned(a), Ok(b)) => {
                    assert!(
                        a.as_ref().zip(b.as_ref()).is_none_or(|(a, b)| a.same_as(b)),
                        "seed {seed} lane {i}: SIMT {a:?}, scalar {b:?}"
                    );
                }
                (a, b) => panic!("seed {seed} lane {i}: SIMT {a:?}, scalar {b:?}"),
            }
        }
        diverged += out.profile.diverged_branches().count();
    }
    assert!(diverged > 50, "only {diverged} diverged branches");
}
