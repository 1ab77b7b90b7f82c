//! Generated programs as bodies of parallel loops (PLDI'18 §7): each generated function
//! `g(…, p, …)` becomes `f(…, n, …) { for (k = 0; k < n; k++) g(…, k, …) }` in lanes IR
//! (the loop marked `llvm.loop.parallel_accesses`, `g`'s return value live out of the
//! loop), which the outer-loop vectorizer must take at W = 4, 8 or 16 in either
//! linearization mode. The vector form must equal the scalar loop: same result, same
//! final buffers, the same bytes written and no byte read that the scalar loop does not
//! read. Generated bodies are not race-free across iterations: where one iteration
//! writes a byte another touches, the loop is not parallel and the run is counted, not
//! asserted (the pragma would be a lie).

use crate::common;

use std::collections::HashSet;

use arbitrary::Unstructured;
use lanes_interp::{AccessKind, Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{
    AddrSpace, FuncBuilder, FuncId, InstData, IntCC, LoopHint, LoopMd, Module, ScalarType, Type,
};
use lanes_wfv::outer_loop::{vectorize_parallel_loops, OuterLoopOptions, PARALLEL_HINT};
use lanes_wfv::Mode;
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

fn config() -> GenConfig {
    GenConfig {
        max_blocks: 10,
        max_insts_per_block: 4,
        max_loop_depth: 2,
        calls: true,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    }
}

/// `g` wrapped in a parallel loop over its integer parameter `p` (now the trip count).
fn wrap(g: &Generated, p: usize) -> Module {
    let mut module = g.module.clone();
    let f = module.function_mut(g.func).expect("body");
    let ity = f.value_type(f.params[p].value);
    let n = f.params[p].value;
    let body_entry = f.entry_block().expect("entry");
    let old_blocks: Vec<_> = f.layout.blocks().collect();
    let rets: Vec<_> = old_blocks
        .iter()
        .filter_map(|&b| {
            let t = f.terminator(b)?;
            match f.dfg.inst(t) {
                InstData::Return { value } => Some((b, t, *value)),
                _ => None,
            }
        })
        .collect();
    let ret_ty = f.ret;
    let (entry, pre, header, latch, exit) = (
        f.dfg.make_block(),
        f.dfg.make_block(),
        f.dfg.make_block(),
        f.dfg.make_block(),
        f.dfg.make_block(),
    );
    let order: Vec<_> = [entry, pre, header]
        .into_iter()
        .chain(old_blocks.iter().copied())
        .chain([latch, exit])
        .collect();
    for &b in &[entry, pre, header, latch, exit] {
        f.layout.append_block(b);
    }
    f.layout.set_block_order(order);
    for &(_, t, _) in &rets {
        f.layout.remove_inst(t);
    }
    let mut b = FuncBuilder::new(f);
    for &(blk, _, _) in &rets {
        b.switch_to_block(blk);
        b.jump(latch);
    }
    b.switch_to_block(header);
    let k = b.phi(ity, vec![(pre, n)]);
    b.jump(body_entry);
    b.switch_to_block(entry);
    let zero = b.iconst(ity, 0);
    let some = b.icmp(IntCC::Sgt, n, zero);
    let rzero = ret_ty.map(|t| {
        if t.is_float() {
            b.value(InstData::Fconst { bits: 0 }, t)
        } else {
            b.iconst(t, 0)
        }
    });
    b.brif(some, pre, exit);
    b.switch_to_block(pre);
    b.jump(header);
    b.switch_to_block(latch);
    let rv = ret_ty.map(|t| {
        let incoming = rets
            .iter()
            .map(|&(blk, _, v)| (blk, v.expect("typed return")))
            .collect();
        b.phi(t, incoming)
    });
    let one = b.iconst(ity, 1);
    let k1 = b.binary(lanes_ir::BinaryOp::Add, k, one);
    let done = b.icmp(IntCC::Eq, k1, n);
    b.brif(done, exit, header);
    b.switch_to_block(exit);
    let result = ret_ty.map(|t| {
        b.phi(
            t,
            vec![(entry, rzero.expect("zero")), (latch, rv.expect("value"))],
        )
    });
    b.ret(result);
    // `p` inside the loop is the iteration number.
    for &blk in &old_blocks {
        for i in f.layout.block_insts(blk).to_vec() {
            f.dfg.inst_mut(i).for_each_arg_mut(|v| {
                if *v == n {
                    *v = k
                }
            });
        }
    }
    if let lanes_ir::ValueDef::Result(phi) = f.dfg.value_def(k) {
        if let InstData::Phi { incoming } = f.dfg.inst_mut(phi) {
            *incoming = vec![(pre, zero), (latch, k1)];
        }
    }
    f.abi.loops = vec![LoopMd {
        latch,
        hints: vec![LoopHint {
            name: PARALLEL_HINT.to_string(),
            value: None,
        }],
    }];
    lanes_ir::verifier::verify_module(&module).unwrap_or_else(|e| {
        panic!(
            "wrapped module: {e}\n{}",
            lanes_ir::write::module_to_string(&module)
        )
    });
    module
}

/// Arguments of `g`, with `n` for parameter `p`.
fn arguments(g: &Generated, p: usize, n: i64, seed: u64, mem: &mut Memory) -> Vec<RtValue> {
    let mut rng = SmallRng::seed_from_u64(seed);
    g.params
        .iter()
        .enumerate()
        .map(|(i, param)| match param {
            GenParam::Int(t) if i == p => RtValue::int(t.elem(), n),
            GenParam::Int(t) => RtValue::int(t.elem(), rng.gen_range(-8..=8)),
            GenParam::Float(t) if *t == Type::F32 => RtValue::f32(rng.gen_range(-4.0..4.0)),
            GenParam::Float(_) => RtValue::f64(rng.gen_range(-4.0..4.0)),
            GenParam::Buffer { .. } => {
                let mut bytes = vec![0; param.buffer_bytes() as usize];
                rng.fill_bytes(&mut bytes);
                let ptr = mem
                    .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                    .expect("fits");
                RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
            }
        })
        .collect()
}

/// Result, buffer contents, bytes read and written in buffers.
type Outcome = (Option<RtValue>, Vec<Vec<u8>>, HashSet<u64>, HashSet<u64>);

fn run(module: &Module, id: FuncId, args: &[RtValue], mut mem: Memory) -> Option<Outcome> {
    let buffers: Vec<(u64, u64)> = mem
        .allocations()
        .map(|a| (a.base(), a.bytes().len() as u64))
        .collect();
    mem.enable_trace();
    let interp = Interpreter::new(module).fuel(common::FUEL);
    let result = interp.call(id, args, &mut mem).ok()?;
    let inside = |a: u64| buffers.iter().any(|&(p, l)| a >= p && a < p + l);
    let (mut read, mut written) = (HashSet::new(), HashSet::new());
    for acc in mem.take_trace() {
        for a in (acc.ptr..acc.ptr + acc.size).filter(|&a| inside(a)) {
            match acc.kind {
                AccessKind::Read => read.insert(a),
                AccessKind::Write => written.insert(a),
                AccessKind::Speculative => false,
            };
        }
    }
    let contents = buffers
        .iter()
        .map(|&(p, _)| mem.allocation(p).expect("buffer").bytes().to_vec())
        .collect();
    Some((result, contents, read, written))
}

/// Does one iteration write a byte another iteration reads or writes (or fault)?
fn racy(g: &Generated, p: usize, n: i64, seed: u64) -> bool {
    let mut mem = Memory::new();
    let args = arguments(g, p, n, seed, &mut mem);
    let interp = Interpreter::new(&g.module).fuel(common::FUEL);
    let mut seen: Vec<(HashSet<u64>, HashSet<u64>)> = Vec::new();
    for k in 0..n {
        let mut a = args.clone();
        a[p] = RtValue::int(a[p].elem(), k);
        mem.enable_trace();
        if interp.call(g.func, &a, &mut mem).is_err() {
            return true;
        }
        let (mut r, mut w) = (HashSet::new(), HashSet::new());
        for acc in mem.take_trace() {
            let set = if acc.kind == AccessKind::Read {
                &mut r
            } else {
                &mut w
            };
            set.extend(acc.ptr..acc.ptr + acc.size);
        }
        if seen
            .iter()
            .any(|(r0, w0)| !w.is_disjoint(r0) || !w.is_disjoint(w0) || !r.is_disjoint(w0))
        {
            return true;
        }
        seen.push((r, w));
    }
    false
}

#[test]
fn generated_loop_bodies_vectorize_as_outer_loops() {
    let cfg = config();
    let (mut programs, mut compared, mut racy_runs, mut declined) = (0, 0, 0, 0);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in 0..2000 * common::soak() {
        let bytes = lanes_test_support::seeded_bytes(seed, 4096);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generates");
        let Some(p) = g
            .params
            .iter()
            .position(|q| matches!(q, GenParam::Int(t) if *t == Type::I32 || *t == Type::I64))
        else {
            continue;
        };
        programs += 1;
        let scalar = wrap(&g, p);
        let width = [4u16, 8, 16][(seed % 3) as usize];
        let mode = if seed % 2 == 0 {
            Mode::Partial
        } else {
            Mode::Full
        };
        let mut vector = scalar.clone();
        let reports = vectorize_parallel_loops(&mut vector, &OuterLoopOptions { width, mode });
        assert_eq!(reports.len(), 1, "seed {seed}: one parallel loop");
        if let Err(e) = &reports[0].outcome {
            declined += 1;
            *reasons.entry(e.to_string()).or_default() += 1;
            continue;
        }
        let w = i64::from(width);
        for (round, n) in [1, w - 1, w + 1, 2 * w + 3].into_iter().enumerate() {
            let aseed = seed * 31 + round as u64;
            if racy(&g, p, n, aseed) {
                racy_runs += 1;
                continue;
            }
            let mut mem = Memory::new();
            let args = arguments(&g, p, n, aseed, &mut mem);
            let Some(want) = run(&scalar, g.func, &args, mem) else {
                racy_runs += 1;
                continue;
            };
            let mut mem = Memory::new();
            let args = arguments(&g, p, n, aseed, &mut mem);
            let what = format!("seed {seed} W={width} {mode:?} n={n}");
            let got = run(&vector, g.func, &args, mem).unwrap_or_else(|| {
                panic!(
                    "{what}: the vector loop faults\n{}",
                    lanes_ir::write::module_to_string(&vector)
                )
            });
            assert_eq!(got.0, want.0, "{what}: result");
            assert!(got.1 == want.1, "{what}: buffers differ");
            assert!(got.3 == want.3, "{what}: written bytes differ");
            assert!(
                got.2.is_subset(&want.2),
                "{what}: reads bytes the loop does not"
            );
            compared += 1;
        }
    }
    eprintln!(
        "outer loops over generated bodies: {programs} programs, {declined} declined {reasons:?}, {compared} runs compared, {racy_runs} racy or faulting runs not compared"
    );
    assert!(programs >= 1000, "{programs}");
    assert!(
        declined * 20 < programs,
        "more than 5% declined: {reasons:?}"
    );
    assert!(
        compared >= 2 * programs,
        "too few comparable runs: {compared}"
    );
}
