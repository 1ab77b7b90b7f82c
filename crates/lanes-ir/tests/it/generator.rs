//! Properties of the random function generator (`lanes_ir::generator`), over fixed seeds.
//!
//! The generator promises well-formed, terminating, fault-free functions with a variety of
//! control flow (nested and multi-exit loops, unstructured forward branches, switches,
//! irreducible cycles on request). These tests check the structural promises directly on
//! the generated IR, with oracles written from the definitions and independent of the
//! generator's own bookkeeping: terminators and φ placement, φ/predecessor agreement,
//! reachability, SSA validity through the verifier, irreducibility by the classic
//! characterization (a retreating DFS edge whose target does not dominate its source), and
//! loop-nesting statistics from the natural loops of back edges. Every test loops over a
//! fixed number of seeds, so every run tests the same cases.

use std::collections::{BTreeSet, HashMap};

use arbitrary::Unstructured;
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated};
use lanes_ir::verifier::verify_function;
use lanes_ir::write::module_to_string;
use lanes_ir::{Block, Function, InstData, Type};

use lanes_test_support::seeded_bytes;

fn gen(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

fn irreducible_cfg() -> GenConfig {
    GenConfig {
        irreducible: true,
        ..GenConfig::default()
    }
}

fn vector_cfg() -> GenConfig {
    GenConfig {
        vector_width: Some(4),
        ..GenConfig::default()
    }
}

fn width(w: u16) -> GenConfig {
    GenConfig {
        vector_width: Some(w),
        ..GenConfig::default()
    }
}

/// The CFG of a function, by layout position: successors (distinct) and predecessors.
struct Cfg {
    blocks: Vec<Block>,
    succs: Vec<Vec<usize>>,
    preds: Vec<BTreeSet<usize>>,
}

impl Cfg {
    fn new(func: &Function) -> Cfg {
        let blocks: Vec<Block> = func.layout.blocks().collect();
        let index: HashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut succs = vec![vec![]; blocks.len()];
        let mut preds = vec![BTreeSet::new(); blocks.len()];
        for (i, &b) in blocks.iter().enumerate() {
            let mut ss: Vec<usize> = func.successors(b).iter().map(|s| index[s]).collect();
            ss.sort_unstable();
            ss.dedup();
            for &s in &ss {
                preds[s].insert(i);
            }
            succs[i] = ss;
        }
        Cfg {
            blocks,
            succs,
            preds,
        }
    }

    fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Blocks reachable from the entry without passing `removed`.
    fn reachable_without(&self, removed: Option<usize>) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        if removed == Some(0) {
            return seen;
        }
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(b) = stack.pop() {
            for &s in &self.succs[b] {
                if !seen[s] && Some(s) != removed {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        seen
    }

    /// Does `a` dominate `b`? By definition: `b` is unreachable once `a` is removed.
    fn dominates(&self, a: usize, b: usize) -> bool {
        a == b || !self.reachable_without(Some(a))[b]
    }

    /// Retreating edges of a DFS from the entry: edges to a block still on the DFS stack.
    fn retreating_edges(&self) -> Vec<(usize, usize)> {
        let n = self.len();
        let (mut state, mut out) = (vec![0u8; n], vec![]);
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            if let Some(&s) = self.succs[b].get(k) {
                top.1 += 1;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => out.push((b, s)),
                    _ => {}
                }
            } else {
                state[b] = 2;
                stack.pop();
            }
        }
        out
    }

    /// A CFG is reducible iff every retreating edge of a DFS goes to a block dominating its
    /// source (Hecht and Ullman 1974).
    fn is_irreducible(&self) -> bool {
        self.retreating_edges()
            .into_iter()
            .any(|(s, h)| !self.dominates(h, s))
    }

    /// Natural loops of the back edges (Aho et al. §9.6.6), merged per header: header ->
    /// blocks of the loop.
    fn natural_loops(&self) -> Vec<(usize, BTreeSet<usize>)> {
        let mut loops: Vec<(usize, BTreeSet<usize>)> = vec![];
        for (s, h) in self.retreating_edges() {
            if !self.dominates(h, s) {
                continue;
            }
            let mut body: BTreeSet<usize> = [h, s].into_iter().collect();
            let mut work = vec![s];
            while let Some(b) = work.pop() {
                if b == h {
                    continue;
                }
                for &p in &self.preds[b] {
                    if body.insert(p) {
                        work.push(p);
                    }
                }
            }
            match loops.iter_mut().find(|(hh, _)| *hh == h) {
                Some((_, blocks)) => blocks.extend(body),
                None => loops.push((h, body)),
            }
        }
        loops
    }
}

/// Facts about the loops of a function, from its natural loops.
#[derive(Default)]
struct LoopStats {
    /// Deepest nesting.
    depth: usize,
    /// Most exit edges of one loop.
    exits: usize,
    /// An edge from an inner loop to a block outside an enclosing loop (`break outer`).
    break_outer: bool,
    /// An exit edge of a loop to a returning block (an early return from inside the loop;
    /// the returning block itself is never part of the natural loop).
    return_in_loop: bool,
    /// A loop with several latches.
    several_latches: bool,
}

fn loop_stats(func: &Function, cfg: &Cfg) -> LoopStats {
    let loops = cfg.natural_loops();
    let mut st = LoopStats::default();
    let is_ret = |b: usize| {
        matches!(
            func.inst(func.terminator(cfg.blocks[b]).unwrap()),
            InstData::Return { .. }
        )
    };
    for (h, body) in &loops {
        let depth = loops.iter().filter(|(_, other)| other.contains(h)).count();
        st.depth = st.depth.max(depth);
        let exits = body
            .iter()
            .flat_map(|&b| cfg.succs[b].iter())
            .filter(|s| !body.contains(s))
            .count();
        st.exits = st.exits.max(exits);
        st.return_in_loop |= body.iter().any(|&b| {
            cfg.succs[b]
                .iter()
                .any(|&s| !body.contains(&s) && is_ret(s))
        });
        st.several_latches |= cfg.preds[*h].iter().filter(|p| body.contains(p)).count() >= 2;
        for (oh, outer) in &loops {
            if oh != h && outer.contains(h) {
                st.break_outer |= body
                    .iter()
                    .any(|&b| cfg.succs[b].iter().any(|s| !outer.contains(s)));
            }
        }
    }
    st
}

/// Every block ends in exactly one terminator, φs stand at the top and list exactly the
/// distinct predecessor blocks, the entry has no predecessors, every block is reachable.
fn check_structure(func: &Function) {
    let cfg = Cfg::new(func);
    assert!(cfg.len() >= 1);
    assert!(
        cfg.preds[0].is_empty(),
        "{}: the entry has predecessors",
        func.name
    );
    assert!(
        cfg.reachable_without(None).iter().all(|&r| r),
        "unreachable block"
    );
    for (i, &b) in cfg.blocks.iter().enumerate() {
        let insts = func.layout.block_insts(b);
        let (last, body) = insts.split_last().expect("blocks are non-empty");
        assert!(
            func.inst(*last).is_terminator(),
            "{b} does not end in a terminator"
        );
        let mut phis_done = false;
        for &inst in body {
            let data = func.inst(inst);
            assert!(!data.is_terminator(), "terminator in the middle of {b}");
            match data {
                InstData::Phi { incoming } => {
                    assert!(!phis_done, "φ below a non-φ in {b}");
                    let listed: Vec<usize> = incoming
                        .iter()
                        .map(|(p, _)| {
                            cfg.blocks
                                .iter()
                                .position(|x| x == p)
                                .expect("φ names a block")
                        })
                        .collect();
                    let expect: Vec<usize> = cfg.preds[i].iter().copied().collect();
                    let mut sorted = listed.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, expect, "φ of {b} does not list the distinct preds");
                    assert_eq!(sorted.len(), listed.len(), "φ of {b} lists a pred twice");
                }
                _ => phis_done = true,
            }
        }
    }
}

#[test]
fn generated_functions_verify() {
    let configs = [
        ("default", GenConfig::default(), 1000),
        ("irreducible", irreducible_cfg(), 600),
        ("vector", vector_cfg(), 600),
        (
            "no floats or memory",
            GenConfig {
                floats: false,
                memory: false,
                ..GenConfig::default()
            },
            200,
        ),
        (
            "work items",
            GenConfig {
                work_items: true,
                ..GenConfig::default()
            },
            100,
        ),
        ("vector width 1", width(1), 100),
        ("vector width 3", width(3), 100),
        ("vector width 16", width(16), 100),
        ("vector width 64", width(64), 30),
    ];
    for (name, cfg, count) in configs {
        for seed in 0..count {
            let g = gen(seed, &cfg);
            for (_, func) in g.module.functions() {
                if let Err(errs) = verify_function(&g.module, func) {
                    panic!(
                        "{name} seed {seed}: {}\n{}",
                        errs.0
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        module_to_string(&g.module)
                    );
                }
                check_structure(func);
            }
        }
    }
}

#[test]
fn control_flow_is_varied() {
    let cfg = GenConfig::default();
    let n = 1000;
    let mut counts: [(&str, usize, usize); 10] = [
        ("loops nested >= 2 deep", 0, 20),
        ("a loop with >= 2 exit edges", 0, 25),
        ("a break out of an outer loop", 0, 5),
        ("a return from inside a loop", 0, 10),
        ("a loop with several latches", 0, 10),
        ("a switch", 0, 25),
        ("a switch with cases sharing a target", 0, 10),
        ("several returns", 0, 25),
        ("a join of >= 3 predecessors", 0, 25),
        ("a φ", 0, 50),
    ];
    let (mut blocks, mut insts) = (0, 0);
    for seed in 0..n {
        let g = gen(seed, &cfg);
        let func = g.function();
        let c = Cfg::new(func);
        assert!(
            !c.is_irreducible(),
            "seed {seed}: irreducible without the flag"
        );
        assert!(!g.info.irreducible && g.info.side_entries.is_empty());
        let st = loop_stats(func, &c);
        let terms: Vec<&InstData> = c
            .blocks
            .iter()
            .map(|&b| func.inst(func.terminator(b).unwrap()))
            .collect();
        let shared_switch = terms.iter().any(|t| match t {
            InstData::Switch { .. } => {
                let targets = t.branch_targets();
                targets.iter().collect::<BTreeSet<_>>().len() < targets.len()
            }
            _ => false,
        });
        let facts = [
            st.depth >= 2,
            st.exits >= 2,
            st.break_outer,
            st.return_in_loop,
            st.several_latches,
            terms.iter().any(|t| matches!(t, InstData::Switch { .. })),
            shared_switch,
            terms
                .iter()
                .filter(|t| matches!(t, InstData::Return { .. }))
                .count()
                >= 2,
            c.preds.iter().any(|p| p.len() >= 3),
            func.layout.blocks().any(|b| {
                func.layout
                    .block_insts(b)
                    .iter()
                    .any(|&i| func.inst(i).is_phi())
            }),
        ];
        for (count, fact) in counts.iter_mut().zip(facts) {
            count.1 += usize::from(fact);
        }
        blocks += c.len();
        insts += func.num_placed_insts();
    }
    let (avg_blocks, avg_insts) = (blocks / n as usize, insts / n as usize);
    eprintln!("{n} functions, {avg_blocks} blocks and {avg_insts} instructions on average; with");
    for (what, count, _) in &counts {
        eprintln!("  {what}: {count}");
    }
    for (what, count, percent) in counts {
        assert!(
            count * 100 >= percent * n as usize,
            "{what} in fewer than {percent}%"
        );
    }
    assert!(
        (5..=40).contains(&avg_blocks),
        "{avg_blocks} blocks on average"
    );
    assert!(
        (20..=300).contains(&avg_insts),
        "{avg_insts} instructions on average"
    );
}

#[test]
fn every_instruction_group_appears() {
    let mut seen = BTreeSet::new();
    for seed in 0..600 {
        let cfg = if seed % 2 == 0 {
            GenConfig::default()
        } else {
            vector_cfg()
        };
        let g = gen(seed, &cfg);
        for (_, func) in g.module.functions() {
            for b in func.layout.blocks() {
                for &i in func.layout.block_insts(b) {
                    seen.insert(func.inst(i).opcode_name());
                }
            }
        }
    }
    let expected = [
        // Integer and float arithmetic, bitwise, shifts, min/max, guarded division.
        "add",
        "sub",
        "mul",
        "sdiv",
        "udiv",
        "srem",
        "urem",
        "and",
        "or",
        "xor",
        "shl",
        "lshr",
        "ashr",
        "smin",
        "smax",
        "umin",
        "umax",
        "fadd",
        "fsub",
        "fmul",
        "fdiv",
        "frem",
        "fmin",
        "fmax",
        "ineg",
        "not",
        "fneg",
        "copy",
        "iconst",
        "fconst",
        // Comparisons, selects, casts.
        "icmp",
        "fcmp",
        "select",
        "trunc",
        "zext",
        "sext",
        "fptrunc",
        "fpext",
        "fptosi",
        "fptoui",
        "sitofp",
        "uitofp",
        "bitcast",
        // Math intrinsics.
        "sqrt",
        "fabs",
        "floor",
        "ceil",
        "ftrunc",
        "round",
        "rint",
        "copysign",
        "fma",
        "abs",
        "ctpop",
        "ctlz",
        "cttz",
        // Memory.
        "ptradd",
        "alloca",
        "global_addr",
        "load",
        "store",
        "masked_load",
        "masked_store",
        "gather",
        "scatter",
        "atomic_rmw",
        "atomic_cas",
        // Vectors and masks.
        "broadcast",
        "extract",
        "insert",
        "shuffle",
        "any",
        "all",
        "popcount",
        "ballot",
        "reduce_add",
        "reduce_mul",
        "reduce_and",
        "reduce_or",
        "reduce_xor",
        "reduce_smin",
        "reduce_smax",
        "reduce_umin",
        "reduce_umax",
        "reduce_fadd",
        "reduce_fmul",
        "reduce_fmin",
        "reduce_fmax",
        // Calls, φs and terminators.
        "call",
        "phi",
        "br",
        "brif",
        "switch",
        "ret",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|op| !seen.contains(op))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

#[test]
fn knobs_are_respected() {
    let scalar = GenConfig {
        floats: false,
        memory: false,
        calls: false,
        ..GenConfig::default()
    };
    for seed in 0..300 {
        let g = gen(seed, &scalar);
        assert_eq!(g.module.functions().count(), 1, "no helper without calls");
        let func = g.function();
        assert!(g.params.iter().all(|p| matches!(p, GenParam::Int(_))));
        for b in func.layout.blocks() {
            for &i in func.layout.block_insts(b) {
                let data = func.inst(i);
                assert!(
                    !data.reads_memory() && !data.has_side_effects(),
                    "memory op without memory"
                );
                if let Some(v) = func.dfg.inst_result(i) {
                    let ty = func.value_type(v);
                    assert!(
                        ty.is_int() && !ty.is_vector(),
                        "{ty} in a scalar integer function"
                    );
                }
            }
        }
    }
    let small = GenConfig {
        min_blocks: 3,
        max_blocks: 6,
        max_loop_depth: 1,
        ..GenConfig::default()
    };
    for seed in 0..300 {
        let g = gen(seed, &small);
        assert!((3..=6).contains(&g.function().layout.num_blocks()));
        assert!(loop_stats(g.function(), &Cfg::new(g.function())).depth <= 1);
    }
}

#[test]
fn irreducible_flag_gives_irreducible_cycles() {
    let n = 1000;
    let (mut irreducible, mut side_entries) = (0, 0);
    for seed in 0..n {
        let g = gen(seed, &irreducible_cfg());
        let c = Cfg::new(g.function());
        let irr = c.is_irreducible();
        irreducible += usize::from(irr);
        side_entries += usize::from(!g.info.side_entries.is_empty());
        assert_eq!(
            g.info.irreducible, irr,
            "seed {seed}: the generator's mark is wrong"
        );
        assert_eq!(
            g.function().name == "gen_irreducible",
            irr,
            "seed {seed}: misnamed"
        );
        if irr {
            assert!(
                !g.info.side_entries.is_empty(),
                "seed {seed}: irreducible without side entry"
            );
        }
    }
    eprintln!(
        "{n} functions with irreducible=true: {irreducible} irreducible, {side_entries} with side entries"
    );
    assert!(
        irreducible * 5 >= n as usize,
        "irreducible CFGs in fewer than 20%"
    );
}

#[test]
fn parameters_match_the_signature() {
    for seed in 0..1000 {
        let g = gen(seed, &GenConfig::default());
        let func = g.function();
        assert_eq!(func.params.len(), g.params.len());
        for (p, kind) in func.params.iter().zip(&g.params) {
            let ty = func.value_type(p.value);
            match kind {
                GenParam::Int(t) => assert!(*t == ty && ty.is_int()),
                GenParam::Float(t) => assert!(*t == ty && ty.is_float()),
                GenParam::Buffer { size, elem } => {
                    assert!(ty.is_ptr() && *size > 0 && [4, 8].contains(&elem.bytes()));
                    assert!(kind.buffer_bytes() >= 64);
                }
            }
        }
        assert!(matches!(func.ret, Some(Type::I32) | Some(Type::I64)));
    }
}

#[test]
fn printing_is_deterministic() {
    for seed in 0..1000 {
        let cfg = if seed % 2 == 0 {
            GenConfig::default()
        } else {
            vector_cfg()
        };
        let a = module_to_string(&gen(seed, &cfg).module);
        let b = module_to_string(&gen(seed, &cfg).module);
        assert!(a.contains("function @gen"), "seed {seed}: {a}");
        assert_eq!(a, b, "seed {seed}: two generations differ");
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let configs = [GenConfig::default(), irreducible_cfg(), vector_cfg()];
    for seed in 0..1000u64 {
        let len = (seed % 67) as usize * (seed % 5 + 1) as usize;
        let bytes = seeded_bytes(seed, len);
        let cfg = &configs[seed as usize % configs.len()];
        let g = generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails");
        let func = g.function();
        verify_function(&g.module, func).expect("short inputs still give valid functions");
        check_structure(func);
    }
    // All-zero and all-ones inputs pick the extreme choice everywhere.
    for byte in [0u8, 0xff] {
        let bytes = vec![byte; 4096];
        let g = generate(&mut Unstructured::new(&bytes), &vector_cfg()).unwrap();
        verify_function(&g.module, g.function()).expect("extreme inputs give valid functions");
    }
}

#[test]
fn large_functions_are_generated_in_linear_time() {
    let cfg = GenConfig {
        min_blocks: 4000,
        max_blocks: 4000,
        ..GenConfig::default()
    };
    let bytes = seeded_bytes(7, 1 << 20);
    let g = generate(&mut Unstructured::new(&bytes), &cfg).unwrap();
    let func = g.function();
    assert_eq!(func.layout.num_blocks(), 4000);
    assert!(
        func.num_placed_insts() > 20_000,
        "{} instructions",
        func.num_placed_insts()
    );
    verify_function(&g.module, func).expect("large functions verify");
}
