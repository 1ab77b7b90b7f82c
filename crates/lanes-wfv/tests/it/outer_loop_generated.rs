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
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated};
use lanes_ir::{FuncBuilder, FuncId, InstData, IntCC, LoopHint, LoopMd, Module, Type};
use lanes_wfv::outer_loop::{vectorize_parallel_loops, OuterLoopOptions, PARALLEL_HINT};
use lanes_wfv::Mode;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

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
/// With `early`, `g`'s first `return` leaves the loop with its value (a `return` from
/// the loop) while the others continue it; `None` if `g` has fewer than two returns.
fn wrap(g: &Generated, p: usize, early: bool) -> Option<Module> {
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
    if early && rets.len() < 2 {
        return None;
    }
    // The returns that leave the loop, and those that go on to the latch.
    let (leaving, going_on) = rets.split_at(usize::from(early));
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
    for &(blk, _, _) in going_on {
        b.switch_to_block(blk);
        b.jump(latch);
    }
    for &(blk, _, _) in leaving {
        b.switch_to_block(blk);
        b.jump(exit);
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
        let incoming = going_on
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
        let mut incoming = vec![(entry, rzero.expect("zero")), (latch, rv.expect("value"))];
        incoming.extend(
            leaving
                .iter()
                .map(|&(blk, _, v)| (blk, v.expect("typed return"))),
        );
        b.phi(t, incoming)
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
    Some(module)
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
            GenParam::Buffer { .. } => common::random_buffer(param, &mut rng, mem),
        })
        .collect()
}

/// What a run did.
struct Outcome {
    result: Option<RtValue>,
    buffers: Vec<Vec<u8>>,
    /// Bytes read and written in buffers.
    read: HashSet<u64>,
    written: HashSet<u64>,
    /// The 4 KiB pages of every access the program made (anywhere).
    pages: HashSet<u64>,
    /// Addresses read ahead of an early exit (anywhere).
    speculated: HashSet<u64>,
}

fn run(module: &Module, id: FuncId, args: &[RtValue], mut mem: Memory) -> Option<Outcome> {
    let buffers: Vec<(u64, u64)> = mem
        .allocations()
        .map(|a| (a.base(), a.bytes().len() as u64))
        .collect();
    mem.enable_trace();
    let interp = Interpreter::new(module).fuel(common::FUEL);
    let result = match interp.call(id, args, &mut mem) {
        Ok(r) => r,
        Err(e) => {
            // A faulting scalar run is skipped; a faulting vector run fails the test. Set
            // LANES_DEBUG to see the interpreter's error of either.
            if std::env::var("LANES_DEBUG").is_ok() {
                eprintln!("run: {e}");
            }
            return None;
        }
    };
    let inside = |a: u64| buffers.iter().any(|&(p, l)| a >= p && a < p + l);
    let (mut read, mut written) = (HashSet::new(), HashSet::new());
    let (mut pages, mut speculated) = (HashSet::new(), HashSet::new());
    for acc in mem.take_trace() {
        for a in acc.ptr..acc.ptr + acc.size {
            if acc.kind == AccessKind::Speculative {
                speculated.insert(a);
                continue;
            }
            pages.insert(a >> 12);
            if inside(a) {
                match acc.kind {
                    AccessKind::Write => written.insert(a),
                    _ => read.insert(a),
                };
            }
        }
    }
    let contents = buffers
        .iter()
        .map(|&(p, _)| mem.allocation(p).expect("buffer").bytes().to_vec())
        .collect();
    Some(Outcome {
        result,
        buffers: contents,
        read,
        written,
        pages,
        speculated,
    })
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

/// Tallies of one generated suite.
#[derive(Default)]
struct Tally {
    programs: usize,
    declined: usize,
    compared: usize,
    racy_runs: usize,
    speculated: usize,
    reasons: std::collections::BTreeMap<String, usize>,
}

/// Generates programs from seeds `0..count`, wraps each (`early`: with a `return` from the
/// loop) and compares the outer-loop-vectorized loop with the scalar one on trip counts
/// around the width: result, final buffers and written bytes equal, no byte read that the
/// scalar loop does not read, and reads ahead of an early exit only on pages the scalar
/// loop accesses.
fn run_suite(count: u64, early: bool) -> Tally {
    let mut t = Tally::default();
    for seed in 0..count {
        // Exit tests that depend on an inner loop are declined: with early exits, half
        // the programs have no loops of their own.
        let cfg = GenConfig {
            max_loop_depth: if early && (seed / 2) % 2 == 0 { 0 } else { 2 },
            ..config()
        };
        let bytes = lanes_test_support::seeded_bytes(seed, 4096);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generates");
        let Some(p) = g
            .params
            .iter()
            .position(|q| matches!(q, GenParam::Int(t) if *t == Type::I32 || *t == Type::I64))
        else {
            continue;
        };
        let Some(scalar) = wrap(&g, p, early) else {
            continue;
        };
        t.programs += 1;
        let width = [4u16, 8, 16][(seed % 3) as usize];
        let mode = match seed % 4 {
            0 => Mode::PARTIAL,
            1 | 3 => Mode::FULL,
            _ => Mode::boscc(lanes_wfv::BosccPolicy::All),
        };
        let mut vector = scalar.clone();
        let reports = vectorize_parallel_loops(&mut vector, &OuterLoopOptions { width, mode });
        assert_eq!(reports.len(), 1, "seed {seed}: one parallel loop");
        if let Err(e) = &reports[0].outcome {
            t.declined += 1;
            // The reason without the value or line it names.
            let why = e.to_string();
            let key = why.split(" (").next().unwrap_or(&why).to_string();
            *t.reasons.entry(key).or_default() += 1;
            continue;
        }
        let w = i64::from(width);
        for (round, n) in [1, w - 1, w + 1, 2 * w + 3].into_iter().enumerate() {
            let aseed = seed * 31 + round as u64;
            if racy(&g, p, n, aseed) {
                t.racy_runs += 1;
                continue;
            }
            let mut mem = Memory::new();
            let args = arguments(&g, p, n, aseed, &mut mem);
            let Some(want) = run(&scalar, g.func, &args, mem) else {
                t.racy_runs += 1;
                continue;
            };
            let mut mem = Memory::new();
            let args = arguments(&g, p, n, aseed, &mut mem);
            let what = format!("seed {seed} W={width} {mode:?} n={n} early={early}");
            let got = run(&vector, g.func, &args, mem).unwrap_or_else(|| {
                panic!(
                    "{what}: the vector loop faults\n{}",
                    lanes_ir::write::module_to_string(&vector)
                )
            });
            assert_eq!(got.result, want.result, "{what}: result");
            assert!(got.buffers == want.buffers, "{what}: buffers differ");
            assert!(got.written == want.written, "{what}: written bytes differ");
            assert!(
                got.read.is_subset(&want.read),
                "{what}: reads bytes the loop does not"
            );
            assert!(
                got.speculated
                    .iter()
                    .all(|a| want.pages.contains(&(a >> 12))),
                "{what}: reads ahead off the pages the loop accesses"
            );
            t.speculated += got.speculated.len();
            t.compared += 1;
        }
    }
    t
}

#[test]
fn generated_loop_bodies_vectorize_as_outer_loops() {
    let t = run_suite(2000 * common::soak(), false);
    eprintln!(
        "outer loops over generated bodies: {} programs, {} declined {:?}, {} runs compared, {} racy or faulting runs not compared",
        t.programs, t.declined, t.reasons, t.compared, t.racy_runs
    );
    assert!(t.programs >= 1000, "{}", t.programs);
    assert!(
        t.declined * 20 < t.programs,
        "more than 5% declined: {:?}",
        t.reasons
    );
    assert!(
        t.compared >= 2 * t.programs,
        "too few comparable runs: {}",
        t.compared
    );
}

/// The same bodies with a `return` from the loop: the loops the early-exit transform takes
/// (those whose exit test needs no store, call, trapping division or inner loop) must
/// equal the scalar loop, and reads ahead stay on the loop's pages.
#[test]
fn generated_loops_with_early_exits_vectorize_and_equal_the_scalar_loop() {
    let t = run_suite(6000 * common::soak(), true);
    eprintln!(
        "early-exit outer loops over generated bodies: {} programs, {} declined {:?}, {} runs compared, {} racy or faulting runs not compared, {} bytes read ahead",
        t.programs, t.declined, t.reasons, t.compared, t.racy_runs, t.speculated
    );
    assert!(t.programs >= 1000, "{}", t.programs);
    let taken = t.programs - t.declined;
    assert!(
        taken * 5 >= t.programs,
        "fewer than 20% taken: {:?}",
        t.reasons
    );
    assert!(
        t.compared >= taken,
        "too few comparable runs: {}",
        t.compared
    );
    assert!(t.speculated > 0, "nothing was read ahead");
}
