//! The interpreter never panics: not on verified programs with hostile inputs, and not on
//! IR the verifier would reject.
//!
//! A fault in the program under test must be an error the caller can report, never a
//! panic that takes the test driver (or a fuzzer, or the CLI) down with it. Generated
//! programs (`lanes_ir::generator`) are mutated at random — an operand replaced by any
//! value of the function (of any type), a constant replaced by an extreme value (divisors
//! and shift amounts of 0, -1, MIN), a branch retargeted (possibly to a block that does
//! not exist), an alignment changed, an instruction dropped (leaving uses undefined), a
//! callee, global, lane index, dimension or intrinsic replaced — and run on random
//! arguments, sometimes of the wrong types. Every run must end in a value or an error
//! whose message names where it happened. The seeds are fixed, so every run tests the
//! same cases.

use arbitrary::Unstructured;
use lanes_interp::{ErrorKind, Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{
    AddrSpace, Block, EntityRef, FuncId, GlobalId, Inst, InstData, Intrinsic, ScalarType, Type,
    Value,
};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

const FUEL: u64 = 20_000;

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

const EXTREMES: [i64; 8] = [0, -1, 1, i64::MIN, i64::MAX, 63, 64, 1 << 40];

/// Applies one random mutation to the main function of `g`.
fn mutate(g: &mut Generated, rng: &mut SmallRng) {
    let nfuncs = g.module.funcs.len();
    let nglobals = g.module.globals.len();
    let Some(f) = g.module.function_mut(g.func) else {
        return;
    };
    let values: Vec<Value> = f.dfg.values().collect();
    let insts: Vec<Inst> = f
        .layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).to_vec())
        .collect();
    let nblocks = f.dfg.num_blocks();
    if insts.is_empty() || values.is_empty() {
        return;
    }
    let inst = insts[rng.gen_range(0..insts.len())];
    match rng.gen_range(0..6) {
        0 => {
            let pick = values[rng.gen_range(0..values.len())];
            let n = f.dfg.inst(inst).args().len();
            if n > 0 {
                let k = rng.gen_range(0..n);
                let mut i = 0;
                f.dfg.inst_mut(inst).for_each_arg_mut(|v| {
                    if i == k {
                        *v = pick;
                    }
                    i += 1;
                });
            }
        }
        1 => {
            let x = EXTREMES[rng.gen_range(0..EXTREMES.len())];
            if let InstData::Iconst { imm } = f.dfg.inst_mut(inst) {
                *imm = x;
            }
        }
        2 => {
            let target = Block::new(rng.gen_range(0..nblocks + 2));
            f.dfg.inst_mut(inst).for_each_target_mut(|b| *b = target);
        }
        3 => {
            let a = [0, 1, 2, 3, 4, 8, 16, 1 << 31][rng.gen_range(0..8)];
            match f.dfg.inst_mut(inst) {
                InstData::Load { align, .. }
                | InstData::Store { align, .. }
                | InstData::MaskedLoad { align, .. }
                | InstData::MaskedStore { align, .. }
                | InstData::Gather { align, .. }
                | InstData::Scatter { align, .. }
                | InstData::Alloca { align, .. } => *align = a,
                _ => {}
            }
        }
        4 => f.layout.remove_inst(inst),
        _ => match f.dfg.inst_mut(inst) {
            InstData::Call { func, .. } => *func = FuncId::new(rng.gen_range(0..nfuncs + 1)),
            InstData::GlobalAddr { global } => {
                *global = GlobalId::new(rng.gen_range(0..nglobals + 1))
            }
            InstData::Shuffle { mask, .. } => {
                mask.iter_mut().for_each(|m| *m = rng.gen_range(0..20))
            }
            InstData::WorkItem { dim, .. } => *dim = rng.gen(),
            InstData::Intrinsic { id, .. } => {
                *id = Intrinsic::ALL[rng.gen_range(0..Intrinsic::ALL.len())]
            }
            InstData::Alloca { size, .. } => *size = u32::MAX,
            _ => {}
        },
    }
}

/// A random value of type `ty`.
fn value(rng: &mut SmallRng, ty: Type) -> RtValue {
    let lanes = (0..ty.lane_count()).map(|_| {
        if rng.gen_bool(0.3) {
            EXTREMES[rng.gen_range(0..8)] as u64
        } else {
            rng.gen()
        }
    });
    RtValue::from_lanes(ty, lanes.collect()).expect("lane count matches")
}

fn arguments(g: &Generated, rng: &mut SmallRng, mem: &mut Memory) -> Vec<RtValue> {
    let mut args: Vec<RtValue> = g
        .params
        .iter()
        .map(|p| match p {
            GenParam::Int(t) | GenParam::Float(t) => value(rng, *t),
            GenParam::Buffer { .. } => {
                let mut bytes = vec![0; p.buffer_bytes() as usize];
                rng.fill_bytes(&mut bytes);
                let ptr = mem
                    .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                    .expect("fits");
                RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
            }
        })
        .collect();
    if rng.gen_bool(0.1) {
        // Wrong types or a wrong count.
        match rng.gen_range(0..3) {
            0 => args.push(RtValue::i8(1)),
            1 => {
                args.pop();
            }
            _ => args
                .iter_mut()
                .for_each(|a| *a = value(rng, Type::vector(3, ScalarType::F64))),
        }
    }
    args
}

fn run_mutants(name: &str, cfg: &GenConfig, programs: u64) {
    let (mut ok, mut malformed, mut traps, mut bad_args) = (0, 0, 0, 0);
    for seed in 0..programs {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
        let mut g = generated(seed, cfg);
        for _ in 0..rng.gen_range(1..4) {
            mutate(&mut g, &mut rng);
        }
        let interp = Interpreter::new(&g.module).fuel(FUEL);
        for _ in 0..2 {
            let mut mem = Memory::new();
            let args = arguments(&g, &mut rng, &mut mem);
            match interp.call(g.func, &args, &mut mem) {
                Ok(_) => ok += 1,
                Err(e) => {
                    let text = e.to_string();
                    assert!(!text.is_empty(), "{name} seed {seed}: empty message");
                    match e.kind {
                        ErrorKind::BadArgument(_) => bad_args += 1,
                        k if k.is_trap() => traps += 1,
                        _ => malformed += 1,
                    }
                    if e.location.is_some() {
                        assert!(text.starts_with("in @"), "{name} seed {seed}: {text}");
                    }
                }
            }
        }
    }
    eprintln!("{name}: {ok} ran, {traps} trapped, {malformed} malformed, {bad_args} bad arguments");
    assert!(
        ok > 0 && traps > 0 && malformed > 0 && bad_args > 0,
        "{name}: the mutations did not cover every outcome"
    );
}

#[test]
fn mutated_scalar_programs_never_panic() {
    let cfg = GenConfig {
        calls: true,
        memory: true,
        ..GenConfig::default()
    };
    run_mutants("scalar", &cfg, 3000);
}

#[test]
fn mutated_vector_programs_never_panic() {
    let cfg = GenConfig {
        vector_width: Some(4),
        memory: true,
        ..GenConfig::default()
    };
    run_mutants("vector", &cfg, 2000);
}

#[test]
fn mutated_irreducible_programs_never_panic() {
    let cfg = GenConfig {
        irreducible: true,
        transcendental: true,
        work_items: true,
        ..GenConfig::default()
    };
    run_mutants("irreducible", &cfg, 1000);
}
