//! The interpreter's driver and evaluator through the public API: masked memory
//! operations never touch inactive lanes' memory (checked with the access trace over
//! random masks), error locations and call stacks, argument checking, fuel accounting,
//! the execution context, globals per memory, errors on malformed IR, deep recursion, and
//! reuse of `eval_inst` by another driver.

use std::collections::HashMap;

use lanes_interp::{
    eval_inst, AccessKind, Effect, ErrorKind, EvalCtx, ExecContext, Interpreter, Memory, Operands,
    RtValue, WorkItemContext,
};
use lanes_ir::{parse_module, AddrSpace, EntityRef, Module, ScalarType, Type, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn module(src: &str) -> Module {
    parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

const MASKED: &str = "
function @mload(v0: ptr, v1: <8 x i1>) -> <8 x i32> {
block0:
    v2: <8 x i32> = iconst -1
    v3: <8 x i32> = masked_load v0, v1, v2 align 4
    ret v3
}

function @mstore(v0: ptr, v1: <8 x i32>, v2: <8 x i1>) {
block0:
    masked_store v1, v0, v2 align 4
    ret
}

function @gather(v0: <8 x ptr>, v1: <8 x i1>) -> <8 x i32> {
block0:
    v2: <8 x i32> = iconst -1
    v3: <8 x i32> = gather v0, v1, v2 align 4
    ret v3
}

function @scatter(v0: <8 x ptr>, v1: <8 x i32>, v2: <8 x i1>) {
block0:
    scatter v1, v0, v2 align 4
    ret
}
";

/// Over random masks, with every inactive lane's address out of bounds, null or freed
/// memory: the calls succeed, the trace holds exactly one access per active lane (at its
/// address), and memory changes only where active lanes store.
#[test]
fn inactive_lanes_never_touch_memory() {
    let m = module(MASKED);
    let interp = Interpreter::new(&m);
    let ptr8 = Type::vector(8, ScalarType::Ptr(AddrSpace::PRIVATE));
    for seed in 0..300u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mask: Vec<bool> = (0..8).map(|_| rng.gen_bool(0.5)).collect();
        let active: Vec<u32> = (0..8).filter(|&i| mask[i as usize]).collect();
        let mut mem = Memory::new();
        // A buffer just long enough for the active lanes of a contiguous access.
        let len = active.last().map_or(0, |&l| l + 1);
        let init: Vec<RtValue> = (0..len as i32).map(RtValue::i32).collect();
        let buf = mem.alloc_values(&init, 16, AddrSpace::PRIVATE).unwrap();
        let bad = |rng: &mut SmallRng| match rng.gen_range(0..3) {
            0 => 0,
            1 => buf + 4 * u64::from(len) + rng.gen_range(0..100),
            _ => buf.wrapping_sub(rng.gen_range(1..100)),
        };
        let addrs: Vec<u64> = (0..8)
            .map(|i| {
                if mask[i] {
                    buf + 4 * rng.gen_range(0..u64::from(len))
                } else {
                    bad(&mut rng)
                }
            })
            .collect();
        let maskv = RtValue::mask(&mask);
        let vals = RtValue::i32s(&(0..8).map(|i| 100 + i).collect::<Vec<_>>());
        let ptrs = RtValue::from_lanes(ptr8, addrs.clone()).unwrap();
        let base = RtValue::ptr(buf);
        mem.enable_trace();
        let calls: [(&str, Vec<RtValue>); 4] = [
            ("mload", vec![base.clone(), maskv.clone()]),
            ("mstore", vec![base.clone(), vals.clone(), maskv.clone()]),
            ("gather", vec![ptrs.clone(), maskv.clone()]),
            ("scatter", vec![ptrs.clone(), vals.clone(), maskv.clone()]),
        ];
        for (name, args) in calls {
            let result = interp.call_by_name(name, &args, &mut mem);
            let result = result.unwrap_or_else(|e| panic!("seed {seed} @{name}: {e}"));
            let trace = mem.take_trace();
            let lanes: Vec<u32> = trace
                .iter()
                .map(|a| a.lane.expect("per-lane access"))
                .collect();
            assert_eq!(lanes, active, "seed {seed} @{name}: accessing lanes");
            for a in &trace {
                let i = a.lane.unwrap_or(0) as usize;
                let expect = if name.starts_with('m') {
                    buf + 4 * i as u64
                } else {
                    addrs[i]
                };
                assert_eq!(a.ptr, expect, "seed {seed} @{name}: address of lane {i}");
                let kind = if name.ends_with("store") || name == "scatter" {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                };
                assert_eq!(a.kind, kind);
            }
            if let Some(v) = result {
                for (i, &on) in mask.iter().enumerate() {
                    if !on {
                        assert_eq!(v.lane(i), Some(RtValue::i32(-1)), "passthru in lane {i}");
                    }
                }
            }
        }
    }
}

#[test]
fn errors_name_the_instruction_and_the_call_stack() {
    let m = module(
        "
function @inner(v0: ptr) -> i32 {
block0:
    br block1
block1:
    v1: i32 = load v0 align 4
    ret v1
}

function @outer(v0: ptr) -> i32 {
block0:
    v1: i32 = call @inner(v0)
    ret v1
}
",
    );
    let mut mem = Memory::new();
    let p = mem.alloc(2, 4, AddrSpace::PRIVATE).unwrap();
    let e = Interpreter::new(&m)
        .call_by_name("outer", &[RtValue::ptr(p)], &mut mem)
        .unwrap_err();
    assert_eq!(e.code(), "out-of-bounds");
    let loc = e.location.as_ref().expect("located");
    assert_eq!(
        (loc.func.as_str(), loc.block.map(|b| b.index())),
        ("inner", Some(1))
    );
    assert_eq!(e.callers.len(), 1);
    assert_eq!(e.callers[0].func, "outer");
    assert_eq!(
        e.to_string(),
        "in @inner, block1: v1: i32 = load v0 align 4: out-of-bounds read of 4 bytes at offset 0 \
         of a 2-byte allocation\n  called in @outer, block0: v1: i32 = call @inner(v0)"
    );
}

#[test]
fn arguments_are_checked() {
    let m = module("function @f(v0: i32, v1: f32) -> i32 {\nblock0:\n    ret v0\n}\n");
    let interp = Interpreter::new(&m);
    let mut mem = Memory::new();
    let code = |args: &[RtValue], mem: &mut Memory| {
        interp.call_by_name("f", args, mem).map_err(|e| e.code())
    };
    assert_eq!(
        code(&[RtValue::i32(3), RtValue::f32(1.0)], &mut mem),
        Ok(Some(RtValue::i32(3)))
    );
    assert_eq!(code(&[RtValue::i32(3)], &mut mem), Err("bad argument"));
    assert_eq!(
        code(&[RtValue::i64(3), RtValue::f32(1.0)], &mut mem),
        Err("bad argument")
    );
    assert_eq!(
        code(&[RtValue::f32(1.0), RtValue::i32(3)], &mut mem),
        Err("bad argument")
    );
    let e = interp.call_by_name("g", &[], &mut mem).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NoSuchFunction("g".into()));
}

#[test]
fn fuel_counts_every_instruction_including_phis() {
    let m = module(
        "
function @f(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 1
    br block1
block1:
    v2: i32 = phi [block0: v0]
    v3: i32 = phi [block0: v1]
    v4: i32 = add v2, v3
    ret v4
}
",
    );
    let f = m.func_by_name("f").unwrap();
    let args = [RtValue::i32(41)];
    let (r, stats) = Interpreter::new(&m).call_with_stats(f, &args, &mut Memory::new());
    assert_eq!(r, Ok(Some(RtValue::i32(42))));
    assert_eq!((stats.insts, stats.calls, stats.max_depth), (6, 1, 1));
    assert!(Interpreter::new(&m)
        .fuel(6)
        .call(f, &args, &mut Memory::new())
        .is_ok());
    for fuel in 0..6 {
        let e = Interpreter::new(&m)
            .fuel(fuel)
            .call(f, &args, &mut Memory::new())
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfFuel(fuel));
    }
}

#[test]
fn the_execution_context_answers_queries() {
    let m = module(
        "
function @ids() -> i64 {
block0:
    v0: i64 = global_id 0
    v1: i64 = local_id 0
    v2: i64 = iconst 1000
    v3: i64 = mul v0, v2
    v4: i64 = add v3, v1
    ret v4
}

function @lane() -> i32 {
block0:
    v0: i32 = lane_id
    v1: i32 = num_lanes
    v2: i32 = iconst 100
    v3: i32 = mul v1, v2
    v4: i32 = add v3, v0
    ret v4
}
",
    );
    let interp = Interpreter::new(&m).work_item(WorkItemContext::one_dim(3, 5, 8, 4));
    let r = interp.call_by_name("ids", &[], &mut Memory::new()).unwrap();
    assert_eq!(r, Some(RtValue::i64(29 * 1000 + 5)));
    let simt = Interpreter::new(&m).exec_context(ExecContext {
        lane: 6,
        num_lanes: 8,
        ..ExecContext::default()
    });
    assert_eq!(
        simt.call_by_name("lane", &[], &mut Memory::new()).unwrap(),
        Some(RtValue::i32(806))
    );
    let alone = Interpreter::new(&m);
    assert_eq!(
        alone.call_by_name("lane", &[], &mut Memory::new()).unwrap(),
        Some(RtValue::i32(100))
    );
}

#[test]
fn globals_live_in_memory_and_stack_slots_die_with_their_frame() {
    let m = module(
        "
global @n size 4 align 4 init x\"01000000\"

function @bump() -> i32 {
block0:
    v0: ptr = global_addr @n
    v1: i32 = load v0 align 4
    v2: i32 = add v1, v1
    store v2, v0 align 4
    v3: ptr = alloca 1024
    store v2, v3
    ret v2
}
",
    );
    let interp = Interpreter::new(&m);
    let mut mem = Memory::new();
    let values: Vec<_> = (0..3)
        .map(|_| interp.call_by_name("bump", &[], &mut mem).unwrap())
        .collect();
    assert_eq!(values, [2, 4, 8].map(|x| Some(RtValue::i32(x))));
    assert_eq!(mem.live_bytes(), 4, "only the global stays allocated");
    let fresh = interp
        .call_by_name("bump", &[], &mut Memory::new())
        .unwrap();
    assert_eq!(fresh, Some(RtValue::i32(2)));
    let g = interp.global_ptr(&mem, "n").unwrap();
    assert_eq!(mem.read_value(g, Type::I32).unwrap(), RtValue::i32(8));
    // A memory prepared for another module (with no globals) is refused.
    let other = module("function @f() {\nblock0:\n    ret\n}\n");
    let mut foreign = Memory::new();
    Interpreter::new(&other)
        .call_by_name("f", &[], &mut foreign)
        .unwrap();
    assert_eq!(
        interp
            .call_by_name("bump", &[], &mut foreign)
            .unwrap_err()
            .code(),
        "bad allocation"
    );
}

/// Malformed IR (which the verifier would reject) gives errors, never a panic.
#[test]
fn malformed_ir_is_an_error() {
    let m = module(
        "
function @undef(v0: i1) -> i32 {
block0:
    brif v0, block1, block2
block1:
    v1: i32 = iconst 1
    br block2
block2:
    ret v1
}

function @no_terminator() -> i32 {
block0:
    v0: i32 = iconst 1
}

function @mismatch(v0: i32) -> i64 {
block0:
    v1: i64 = add v0, v0
    ret v1
}

function @phi(v0: i1) -> i32 {
block0:
    v1: i32 = iconst 1
    brif v0, block1, block2
block1:
    br block2
block2:
    v2: i32 = phi [block1: v1]
    ret v2
}

function @bad_ret() -> i32 {
block0:
    v0: i64 = iconst 1
    ret v0
}

function @bad_call(v0: i64) -> i32 {
block0:
    v1: i32 = call @mismatch(v0)
    ret v1
}
",
    );
    let interp = Interpreter::new(&m);
    let run = |name: &str, args: &[RtValue]| interp.call_by_name(name, args, &mut Memory::new());
    assert_eq!(
        run("undef", &[RtValue::bool(true)]),
        Ok(Some(RtValue::i32(1)))
    );
    let e = run("undef", &[RtValue::bool(false)]).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::UndefinedValue(v) if v == Value::new(1)),
        "{e}"
    );
    for (name, args) in [
        ("no_terminator", vec![]),
        ("mismatch", vec![RtValue::i32(1)]),
        ("phi", vec![RtValue::bool(false)]),
        ("bad_ret", vec![]),
        ("bad_call", vec![RtValue::i64(1)]),
    ] {
        let e = run(name, &args).unwrap_err();
        assert_eq!(e.code(), "malformed", "@{name}: {e}");
        assert!(!e.kind.is_trap());
    }
}

#[test]
fn deep_recursion_uses_no_host_stack() {
    let m = module(
        "
function @depth(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 0
    v2: i1 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    ret v1
block2:
    v3: i32 = iconst 1
    v4: i32 = sub v0, v3
    v5: i32 = call @depth(v4)
    v6: i32 = add v5, v3
    ret v6
}
",
    );
    let interp = Interpreter::new(&m).max_depth(200_000);
    let f = m.func_by_name("depth").unwrap();
    let (r, stats) = interp.call_with_stats(f, &[RtValue::i32(100_000)], &mut Memory::new());
    assert_eq!(r, Ok(Some(RtValue::i32(100_000))));
    assert_eq!(stats.max_depth, 100_001);
    let e = Interpreter::new(&m)
        .call(f, &[RtValue::i32(100_000)], &mut Memory::new())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::StackOverflow(1000));
    assert_eq!(e.callers.len(), 999);
}

/// Another driver can evaluate instructions with its own operand store (here a map, as a
/// SIMT driver keeping one per thread would) and see branches as effects.
#[test]
fn eval_inst_serves_other_drivers() {
    struct Map(HashMap<Value, RtValue>);
    impl Operands for Map {
        fn operand(&self, v: Value) -> Option<&RtValue> {
            self.0.get(&v)
        }
    }
    let m = module(
        "
function @f(v0: i32, v1: i32) -> i32 {
block0:
    v2: i32 = sdiv v0, v1
    v3: i1 = icmp sgt v2, v0
    brif v3, block1, block2
block1:
    ret v2
block2:
    ret v0
}
",
    );
    let func = m.function(m.func_by_name("f").unwrap()).unwrap();
    let b0 = func.entry_block().unwrap();
    let insts = func.layout.block_insts(b0).to_vec();
    let exec = ExecContext::default();
    let mut mem = Memory::new();
    let mut allocas = Vec::new();
    for (thread, (a, b)) in [(-8, -2), (8, 2), (1, 0)].into_iter().enumerate() {
        let mut ops = Map(HashMap::from([
            (Value::new(0), RtValue::i32(a)),
            (Value::new(1), RtValue::i32(b)),
        ]));
        let mut cx = EvalCtx {
            module: &m,
            exec: &exec,
            mem: &mut mem,
            allocas: &mut allocas,
            lane: Some(thread as u32),
        };
        let div = eval_inst(&mut cx, func, insts[0], &ops);
        if b == 0 {
            assert_eq!(div, Err(ErrorKind::DivisionByZero));
            continue;
        }
        let Ok(Effect::Next(Some(q))) = div else {
            panic!("{div:?}")
        };
        ops.0.insert(Value::new(2), q);
        let Ok(Effect::Next(Some(c))) = eval_inst(&mut cx, func, insts[1], &ops) else {
            panic!()
        };
        ops.0.insert(Value::new(3), c);
        let Ok(Effect::Jump(dest)) = eval_inst(&mut cx, func, insts[2], &ops) else {
            panic!()
        };
        assert_eq!(
            dest.index(),
            if a / b > a { 1 } else { 2 },
            "thread {thread}"
        );
    }
}
