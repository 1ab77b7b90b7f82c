//! Runs thousands of generated programs (`lanes_ir::generator`) in the interpreter.
//!
//! The generator promises programs that terminate on every input and never fault:
//! divisors are guarded, memory accesses are clamped into the buffers it declares, lane
//! indices into the vector width, and every loop is bounded by a counter. Differential
//! tests of every later transformation rely on that promise (a fault in the reference run
//! would hide the comparison), so this test checks it on the reference interpreter over
//! fixed seeds: with random arguments and random buffer contents, each program returns a
//! value of its return type, within a small instruction budget, and runs deterministically
//! (a second run on the same inputs gives the same result and the same memory).

use arbitrary::Unstructured;
use lanes_interp::{Interpreter, Memory, RtValue, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{AddrSpace, ScalarType, Type};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

/// The instruction budget of one run: far above what the generator's trip bounds allow.
const FUEL: u64 = 1_000_000;

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

/// An integer argument: small values, boundaries and random bits, to take many paths.
fn int_arg(rng: &mut SmallRng, ty: Type) -> RtValue {
    let x: i64 = match rng.gen_range(0..4) {
        0 => rng.gen_range(-8..=8),
        1 => *[i64::MIN, i64::MAX, i32::MIN.into(), i32::MAX.into(), -1, 0]
            .get(rng.gen_range(0..6))
            .unwrap_or(&0),
        2 => rng.gen_range(-1000..=1000),
        _ => rng.gen(),
    };
    RtValue::int(ty.elem(), x)
}

fn float_arg(rng: &mut SmallRng, ty: Type) -> RtValue {
    let x: f64 = match rng.gen_range(0..6) {
        0 => *[
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0e300,
        ]
        .get(rng.gen_range(0..6))
        .unwrap_or(&0.0),
        1 => rng.gen_range(-4.0..4.0),
        _ => rng.gen_range(-1.0e6..1.0e6),
    };
    if ty == Type::F32 {
        RtValue::f32(x as f32)
    } else {
        RtValue::f64(x)
    }
}

/// Arguments for `g`'s main function, with its buffers allocated in `mem`.
fn arguments(g: &Generated, rng: &mut SmallRng, mem: &mut Memory) -> Vec<RtValue> {
    g.params
        .iter()
        .map(|p| match p {
            GenParam::Int(t) => int_arg(rng, *t),
            GenParam::Float(t) => float_arg(rng, *t),
            GenParam::Buffer { .. } => {
                let mut bytes = vec![0; p.buffer_bytes() as usize];
                rng.fill_bytes(&mut bytes);
                let ptr = mem
                    .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                    .expect("buffers fit the memory limit");
                RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
            }
        })
        .collect()
}

/// Runs `count` programs of `cfg`, each on two argument sets and twice on each; returns
/// the largest and the total dynamic instruction count.
fn run_all(name: &str, cfg: &GenConfig, count: u64) {
    let (mut max_insts, mut total_insts, mut runs) = (0u64, 0u64, 0u64);
    for seed in 0..count {
        let g = generated(seed, cfg);
        let interp = Interpreter::new(&g.module).fuel(FUEL);
        let ret = g.function().ret;
        for round in 0..2u64 {
            let mut rng = SmallRng::seed_from_u64(seed * 2 + round);
            let (mut mem_a, mut mem_b) = (Memory::new(), Memory::new());
            let args_a = arguments(&g, &mut rng, &mut mem_a);
            let mut rng = SmallRng::seed_from_u64(seed * 2 + round);
            let args_b = arguments(&g, &mut rng, &mut mem_b);
            let (result, stats) = interp.call_with_stats(g.func, &args_a, &mut mem_a);
            let value = result.unwrap_or_else(|e| {
                panic!(
                    "{name} seed {seed} round {round}: {e}\nargs {args_a:?}\n{}",
                    lanes_ir::write::module_to_string(&g.module)
                )
            });
            let value = value.expect("the main function returns a value");
            assert_eq!(Some(value.ty()), ret, "{name} seed {seed}: result type");
            let again = interp
                .call(g.func, &args_b, &mut mem_b)
                .expect("second run")
                .expect("value");
            assert!(
                value.same_as(&again),
                "{name} seed {seed}: nondeterministic result"
            );
            for (a, b) in mem_a.allocations().zip(mem_b.allocations()) {
                assert_eq!(
                    a.bytes(),
                    b.bytes(),
                    "{name} seed {seed}: nondeterministic memory"
                );
            }
            max_insts = max_insts.max(stats.insts);
            total_insts += stats.insts;
            runs += 1;
        }
    }
    eprintln!(
        "{name}: {runs} runs of {count} programs, {:.0} instructions on average, at most {max_insts}",
        total_insts as f64 / runs as f64
    );
    assert!(
        max_insts < FUEL / 10,
        "{name}: a run took {max_insts} instructions"
    );
}

#[test]
fn default_programs_run_without_faults() {
    run_all("default", &GenConfig::default(), 1000);
}

#[test]
fn irreducible_programs_run_without_faults() {
    run_all(
        "irreducible",
        &GenConfig {
            irreducible: true,
            ..GenConfig::default()
        },
        500,
    );
}

#[test]
fn vector_programs_run_without_faults() {
    run_all(
        "vector width 4",
        &GenConfig {
            vector_width: Some(4),
            ..GenConfig::default()
        },
        500,
    );
    run_all(
        "vector width 8",
        &GenConfig {
            vector_width: Some(8),
            ..GenConfig::default()
        },
        300,
    );
    run_all(
        "vector width 3",
        &GenConfig {
            vector_width: Some(3),
            ..GenConfig::default()
        },
        200,
    );
    run_all(
        "vector width 16",
        &GenConfig {
            vector_width: Some(16),
            ..GenConfig::default()
        },
        100,
    );
}

#[test]
fn programs_with_transcendentals_run_without_faults() {
    let cfg = GenConfig {
        transcendental: true,
        vector_width: Some(2),
        ..GenConfig::default()
    };
    run_all("transcendental", &cfg, 200);
}

#[test]
fn work_item_programs_run_without_faults_and_depend_on_the_instance() {
    let cfg = GenConfig {
        work_items: true,
        ..GenConfig::default()
    };
    let (count, mut instance_dependent) = (300, 0);
    for seed in 0..count {
        let g = generated(seed, &cfg);
        let mut results = vec![];
        for local in 0..4 {
            let interp = Interpreter::new(&g.module)
                .fuel(FUEL)
                .work_item(WorkItemContext::one_dim(1, local, 4, 2));
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut mem = Memory::new();
            let args = arguments(&g, &mut rng, &mut mem);
            let value = interp
                .call(g.func, &args, &mut mem)
                .unwrap_or_else(|e| panic!("work items seed {seed} item {local}: {e}"))
                .expect("the main function returns a value");
            results.push(value);
        }
        instance_dependent += usize::from(results.iter().any(|r| !r.same_as(&results[0])));
    }
    eprintln!(
        "work items: {instance_dependent} of {count} programs return instance-dependent results"
    );
    assert!(
        instance_dependent * 10 >= count as usize,
        "work-item ids rarely reach the result"
    );
}
