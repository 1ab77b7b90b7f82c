//! Soundness of the divergence analysis against the SIMT interpreter.
//!
//! For 2,400 generated programs (`lanes_ir::generator` with work-item queries as data,
//! some with vectors, some irreducible) and random argument shapes, the program runs in
//! the μ-SIMD interpreter with 2 to 8 lanes on random inputs that respect the shapes.
//! Nothing the interpreter observes as divergent may be classified uniform by
//! `lanes_analysis::shapes`: a branch whose active lanes went different ways must be a
//! divergent branch, a value whose active lanes computed different results must not be
//! uniform, and an operand read with different values by the active lanes must not be
//! uniform at that use. A single false negative fails the test. Beyond uniformity, every
//! stride and alignment the analysis claims for an integer or pointer value (lane `i`
//! holds `base + i·s`, `base` a multiple of `a`) is checked at every execution of its
//! definition.

use arbitrary::Unstructured;
use std::collections::BTreeMap;

use lanes_analysis::shapes::{ShapeAnalysis, ShapeInfo, VShape};
use lanes_interp::{Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{AddrSpace, ScalarType, Shape, Type, Value};
use lanes_simt::affine::Claim;
use lanes_simt::inputs::lane_inputs;
use lanes_simt::{LaneOutcome, Simt};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

fn scalar(rng: &mut SmallRng, ty: Type) -> RtValue {
    if ty.is_float() {
        let x: f64 = if rng.gen_bool(0.5) {
            rng.gen_range(-4.0..4.0)
        } else {
            f64::from(rng.gen_range(-3i32..3))
        };
        return if ty.elem() == ScalarType::F32 {
            RtValue::f32(x as f32)
        } else {
            RtValue::f64(x)
        };
    }
    let x: i64 = match rng.gen_range(0..3) {
        0 => rng.gen_range(-3..=3),
        1 => rng.gen_range(-100..=100),
        _ => rng.gen(),
    };
    RtValue::int(ty.elem(), x)
}

/// Counters over the whole run.
#[derive(Default)]
struct Tally {
    programs: u64,
    diverged_branches: u64,
    divergent_values: u64,
    faults: u64,
    claims: u64,
    /// Label-propagation walks summarized (a third of the programs run with a budget of
    /// one step per walk, so that the summaries are checked too).
    summarized: u64,
}

/// The strides and alignments the analysis claims for integer and pointer values: each
/// is checked by the SIMT run at every execution of the definition.
fn claims(func: &lanes_ir::Function, info: &ShapeInfo) -> BTreeMap<Value, Claim> {
    let mut out = BTreeMap::new();
    for v in func.dfg.values() {
        let ty = func.dfg.value_type(v);
        if !(ty.is_int() || ty.is_ptr()) {
            continue;
        }
        let claim = match info.shape(v) {
            VShape::Strided { stride, align } => Claim {
                stride: Some(stride),
                align,
            },
            VShape::Varying { align } if align > 1 => Claim {
                stride: None,
                align,
            },
            _ => continue,
        };
        out.insert(v, claim);
    }
    out
}

fn check_program(seed: u64, cfg: &GenConfig, tally: &mut Tally) {
    let g = generated(seed, cfg);
    let func = g.function();
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let width = rng.gen_range(2..=8usize);
    let shapes: Vec<Option<Shape>> = g
        .params
        .iter()
        .map(|p| {
            Some(match (p, rng.gen_range(0..4)) {
                (_, 0) => Shape::Uniform,
                (GenParam::Int(_), 1) => Shape::Contiguous,
                _ => Shape::Varying,
            })
        })
        .collect();
    let mut mem = Memory::new();
    let base: Vec<RtValue> = g
        .params
        .iter()
        .map(|p| match p {
            GenParam::Int(t) | GenParam::Float(t) => scalar(&mut rng, *t),
            GenParam::Buffer { .. } => {
                let mut bytes = vec![0; p.buffer_bytes() as usize];
                rng.fill_bytes(&mut bytes);
                let ptr = mem
                    .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                    .expect("buffer fits");
                RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
            }
        })
        .collect();
    let mut vary_rng = SmallRng::seed_from_u64(seed ^ 0xdead);
    let mut vary = |_lane: usize, _p: usize, b: &RtValue| {
        if vary_rng.gen_bool(0.1) {
            b.clone()
        } else {
            scalar(&mut vary_rng, b.ty())
        }
    };
    let group = rng.gen_range(0..4u64);
    let lanes = lane_inputs(&base, &shapes, width, group, &mut mem, &mut vary).expect("inputs");
    let arg_shapes: Vec<Option<(Shape, u32)>> = shapes
        .iter()
        .zip(&g.params)
        .map(|(s, p)| {
            let align = if matches!(p, GenParam::Buffer { .. }) {
                BUFFER_ALIGN
            } else {
                0
            };
            s.map(|s| (s, align))
        })
        .collect();
    let budget = if seed % 3 == 1 {
        Some(1)
    } else {
        Some(lanes_analysis::shapes::propagate::DEFAULT_WALK_BUDGET)
    };
    let info = ShapeAnalysis::new(&g.module)
        .with_walk_budget(budget)
        .analyze(g.func, &arg_shapes)
        .expect("analysis runs");
    tally.summarized += info.summarized_walks();
    let outcome = Simt::new(&g.module)
        .fuel(2_000_000)
        .claims(claims(func, &info))
        .run(g.func, &lanes, &mut mem)
        .expect("run starts");
    let text = || lanes_ir::write::module_to_string(&g.module);
    for b in outcome.profile.diverged_branches() {
        assert!(
            info.is_divergent_branch(b),
            "seed {seed}: branch at the end of {b} diverged in the SIMT run (width {width}, \
             shapes {shapes:?}) but is classified uniform\n{}",
            text()
        );
        tally.diverged_branches += 1;
    }
    for &v in &outcome.profile.divergent_values {
        assert!(
            info.shape(v).is_divergent(),
            "seed {seed}: {v} differed between active lanes but is {} (width {width}, \
             shapes {shapes:?})\n{}",
            info.shape(v),
            text()
        );
        tally.divergent_values += 1;
    }
    for &(inst, v) in &outcome.profile.divergent_uses {
        let s = info.use_shape(func, v, inst);
        assert!(
            s.is_divergent(),
            "seed {seed}: {v} differed between active lanes at its use in {inst} ({}) but is \
             {s} there (width {width}, shapes {shapes:?})\n{}",
            lanes_ir::write::inst_to_string(&g.module, func, inst),
            text()
        );
    }
    if let Some(&v) = outcome.profile.refuted_claims.first() {
        panic!(
            "seed {seed}: {v} is claimed {} but the lanes refute it (width {width}, shapes \
             {shapes:?})\n{}",
            info.shape(v),
            text()
        );
    }
    tally.claims += outcome.profile.refuted_claims.len() as u64;
    tally.faults += outcome
        .lanes
        .iter()
        .filter(|o| matches!(o, LaneOutcome::Faulted(_)))
        .count() as u64;
    tally.programs += 1;
}

fn run(name: &str, cfg: &GenConfig, seeds: std::ops::Range<u64>) -> Tally {
    let mut tally = Tally::default();
    for seed in seeds {
        check_program(seed, cfg, &mut tally);
    }
    eprintln!(
        "{name}: {} programs, {} dynamically diverged branch sites, {} divergent values, \
         {} lane faults, {} summarized walks; zero false negatives",
        tally.programs,
        tally.diverged_branches,
        tally.divergent_values,
        tally.faults,
        tally.summarized
    );
    tally
}

#[test]
fn no_false_negatives_on_generated_programs() {
    let base = GenConfig {
        work_items: true,
        ..GenConfig::default()
    };
    let t = run("scalar", &base, 0..1200);
    assert!(t.diverged_branches > 500, "too little divergence exercised");
    assert!(t.summarized > 100, "walk summaries not exercised");
    run(
        "vector",
        &GenConfig {
            vector_width: Some(4),
            ..base.clone()
        },
        10_000..10_600,
    );
    run(
        "irreducible",
        &GenConfig {
            irreducible: true,
            ..base
        },
        20_000..20_600,
    );
}

/// Checks every observation of one SIMT run of `text`'s first function against the
/// analysis, with the given argument shapes.
fn check_text(
    text: &str,
    shapes: &[Shape],
    args: Vec<RtValue>,
    width: usize,
    mem: &mut Memory,
) -> usize {
    let module = lanes_ir::parse_module(text).expect("parses");
    lanes_ir::verifier::verify_module(&module).expect("verifies");
    let (id, func) = module.functions().next().expect("a function");
    let opt: Vec<Option<Shape>> = shapes.iter().copied().map(Some).collect();
    let mut vary = |lane: usize, _p: usize, b: &RtValue| {
        RtValue::int(b.elem(), b.as_i64().unwrap_or(0) + 3 * lane as i64)
    };
    let lanes = lane_inputs(&args, &opt, width, 0, mem, &mut vary).unwrap();
    let out = Simt::new(&module).run(id, &lanes, mem).unwrap();
    assert!(out
        .lanes
        .iter()
        .all(|o| matches!(o, LaneOutcome::Returned(_))));
    let with_align: Vec<Option<(Shape, u32)>> = opt.iter().map(|s| s.map(|s| (s, 0))).collect();
    let info = ShapeAnalysis::new(&module)
        .analyze(id, &with_align)
        .unwrap();
    for b in out.profile.diverged_branches() {
        assert!(info.is_divergent_branch(b), "{b} diverged");
    }
    for &v in &out.profile.divergent_values {
        assert!(info.shape(v).is_divergent(), "{v} differed");
    }
    for &(inst, v) in &out.profile.divergent_uses {
        assert!(
            info.use_shape(func, v, inst).is_divergent(),
            "{v} differed at its use in {}",
            lanes_ir::write::inst_to_string(&module, func, inst)
        );
    }
    out.profile.divergent_uses.len()
}

/// A divergent `continue` whose lanes reconverge inside the loop (at block3) after running
/// different numbers of iterations: the load through a uniform address (uniform where it
/// is computed) reads memory that changed between iterations, so at block3 the lanes hold
/// different values of it. Only the loop-level reconvergence taint catches this.
#[test]
fn reconvergence_inside_a_loop_after_different_iteration_counts() {
    let text = "
function @rerun(v0: ptr uniform, v1: i32 uniform) -> i32 {
block0:
    v2: i32 = lane_id
    v3: i32 = iconst 0
    v4: i32 = iconst 1
    br block1
block1:
    v5: i32 = phi [block0: v3], [block2: v7], [block3: v7]
    v6: i32 = load v0 align 4
    v7: i32 = add v5, v4
    v8: i32 = add v6, v4
    store v8, v0 align 4
    v9: i1 = icmp slt v5, v2
    brif v9, block2, block3
block2:
    br block1
block3:
    v10: i32 = add v6, v6
    v11: i1 = icmp slt v7, v1
    brif v11, block1, block4
block4:
    ret v10
}";
    let mut mem = Memory::new();
    let buf = mem
        .alloc(4, 16, lanes_ir::AddrSpace::PRIVATE)
        .expect("alloc");
    let args = vec![RtValue::ptr(buf), RtValue::i32(3)];
    let uses = check_text(text, &[Shape::Uniform, Shape::Uniform], args, 4, &mut mem);
    assert!(uses > 0);
}
