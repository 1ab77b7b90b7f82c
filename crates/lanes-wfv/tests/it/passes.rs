//! Each pass against its own definition, over generated programs:
//!
//! - normalization: one exit block; every loop with a preheader (its only outside
//!   predecessor, which only jumps to the header), a unique latch, dedicated exits; LCSSA
//!   (values defined in a loop are used outside only by φs of its exit blocks); and the
//!   function still computes the same;
//! - the divergent loop transform: every loop the shape analysis called divergent is left
//!   only through its pure latch, whose branch is `any` (PLDI'18 §5); same results;
//! - the block index: a topological order of the acyclic CFG, compact for every loop
//!   (header first, latch last) (§3.1, §3.3).

use crate::common;

use arbitrary::Unstructured;
use lanes_analysis::{
    AnalysisSet, ControlFlowGraph, DominatorTree, Edits, FunctionAnalyses, LoopForest,
};
use lanes_interp::{Memory, RtValue, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated};
use lanes_ir::{Block, Function, InstData, Intrinsic, Shape, ValueDef};
use lanes_wfv::normalize::switch_blocks;
use lanes_wfv::{normalize, shapes_of, transform_divergent_loops, varying_header_phis, BlockIndex};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

const COUNT: u64 = 1200;

pub(crate) fn count() -> u64 {
    COUNT * common::soak()
}

pub(crate) fn generated(seed: u64) -> Generated {
    let cfg = GenConfig {
        max_blocks: 14,
        max_insts_per_block: 3,
        max_loop_depth: 3,
        work_items: true,
        max_trip_count: 3,
        max_trip_product: 27,
        ..GenConfig::default()
    };
    let mut bytes = vec![0; 4096];
    SmallRng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9)).fill_bytes(&mut bytes);
    generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails")
}

pub(crate) fn arguments(g: &Generated, seed: u64, mem: &mut Memory) -> Vec<RtValue> {
    let mut rng = SmallRng::seed_from_u64(seed);
    g.params
        .iter()
        .map(|p| match p {
            GenParam::Int(t) => RtValue::int(t.elem(), rng.gen_range(-50..50)),
            GenParam::Float(t) if *t == lanes_ir::Type::F32 => RtValue::f32(rng.gen()),
            GenParam::Float(_) => RtValue::f64(rng.gen()),
            GenParam::Buffer { .. } => common::random_buffer(p, &mut rng, mem),
        })
        .collect()
}

pub(crate) fn same_semantics(g: &Generated, func: &Function, seed: u64, what: &str) {
    common::verify(&g.module, func, what);
    let mut m = g.module.clone();
    *m.function_mut(g.func).expect("defined") = func.clone();
    for round in 0..2 {
        let alloc = |mem: &mut Memory| arguments(g, seed + round, mem);
        let item = WorkItemContext::one_dim(0, round, 4, 1);
        common::compare(&g.module, &m, g.func, &alloc, &item, what);
    }
}

fn check_normal_form(func: &Function, what: &str) {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let loops = LoopForest::with_cfg(&cfg, &domtree);
    let exits: Vec<_> = func
        .layout
        .blocks()
        .filter(|&b| {
            matches!(
                func.terminator(b).map(|t| func.dfg.inst(t)),
                Some(InstData::Return { .. } | InstData::Unreachable)
            )
        })
        .collect();
    assert_eq!(exits.len(), 1, "{what}: exit blocks {exits:?}");
    assert!(cfg.preds(cfg.entry().unwrap()).is_empty(), "{what}: entry");
    for l in loops.loops() {
        let h = loops.header(l);
        let outside: Vec<_> = cfg
            .preds(h)
            .iter()
            .filter(|&&p| !loops.contains(l, p))
            .collect();
        assert_eq!(outside.len(), 1, "{what}: preheader of {h}");
        assert!(
            matches!(
                func.terminator(*outside[0]).map(|t| func.dfg.inst(t)),
                Some(InstData::Jump { .. })
            ),
            "{what}: preheader of {h} does not just jump"
        );
        assert_eq!(loops.latches(l).len(), 1, "{what}: latches of {h}");
        for &x in loops.exit_blocks(l) {
            assert!(
                cfg.preds(x).iter().all(|&p| loops.contains(l, p)),
                "{what}: exit {x} of {h} is not dedicated"
            );
        }
        // LCSSA.
        for b in func.layout.blocks().filter(|&b| !loops.contains(l, b)) {
            for &inst in func.layout.block_insts(b) {
                let data = func.dfg.inst(inst);
                let inside = |v| match func.dfg.value_def(v) {
                    ValueDef::Result(i) => func
                        .layout
                        .inst_block(i)
                        .is_some_and(|d| loops.contains(l, d)),
                    ValueDef::Param(_) => false,
                };
                match data {
                    InstData::Phi { incoming } => {
                        for &(p, v) in incoming {
                            assert!(
                                !inside(v) || loops.contains(l, p),
                                "{what}: {v} leaves loop {h} outside an exit φ"
                            );
                        }
                    }
                    d => {
                        d.for_each_arg(|v| assert!(!inside(v), "{what}: {v} used outside loop {h}"))
                    }
                }
            }
        }
    }
}

/// Normalizes `f`, lowering every switch, with a fresh bundle of analyses; the bundle
/// as normalization leaves it.
fn normalized(f: &mut Function) -> FunctionAnalyses {
    let mut analyses = FunctionAnalyses::new();
    let lower = switch_blocks(f);
    normalize(f, &mut analyses, &lower).unwrap();
    analyses
}

/// Every analysis `kept` claims valid equals the same analysis computed afresh for `f`:
/// the passes keep only what their edits preserved.
fn assert_kept_analyses_hold(f: &Function, kept: &FunctionAnalyses, what: &str) {
    let fresh = FunctionAnalyses::with_function(f, AnalysisSet::ALL);
    let valid = kept.valid();
    let blocks: Vec<Block> = f.layout.blocks().collect();
    if valid.contains(AnalysisSet::CFG) {
        assert_eq!(kept.cfg().rpo(), fresh.cfg().rpo(), "{what}: kept CFG");
        for &b in &blocks {
            assert_eq!(
                kept.cfg().preds(b),
                fresh.cfg().preds(b),
                "{what}: preds of {b}"
            );
        }
    }
    for &b in &blocks {
        if valid.contains(AnalysisSet::DOMTREE) {
            assert_eq!(
                kept.domtree().idom(b),
                fresh.domtree().idom(b),
                "{what}: idom {b}"
            );
        }
        if valid.contains(AnalysisSet::POST_DOMTREE) {
            let (k, n) = (kept.post_domtree(), fresh.post_domtree());
            assert_eq!(k.ipdom(b), n.ipdom(b), "{what}: ipdom {b}");
        }
        if valid.contains(AnalysisSet::LOOPS) {
            let header = |a: &FunctionAnalyses| {
                let l = a.loops().innermost_loop(b);
                l.map(|l| a.loops().header(l))
            };
            assert_eq!(header(kept), header(&fresh), "{what}: loop of {b}");
        }
        if valid.contains(AnalysisSet::LIVENESS) {
            let (k, n) = (kept.liveness(), fresh.liveness());
            assert_eq!(k.live_in(b), n.live_in(b), "{what}: live-in {b}");
        }
    }
}

#[test]
fn normalization_gives_the_normal_form_and_keeps_semantics() {
    let mut unchanged = 0;
    for seed in 0..count() {
        let g = generated(seed);
        let mut f = g.function().clone();
        let mut analyses = normalized(&mut f);
        let what = format!("seed {seed} normalize");
        check_normal_form(&f, &what);
        assert_kept_analyses_hold(&f, &analyses, &what);
        same_semantics(&g, &f, seed, &what);
        // The normal form is a fixpoint, and normalization says it changed nothing there.
        let before = lanes_ir::write::function_to_string(&g.module, &f);
        let lower = switch_blocks(&f);
        let edits = normalize(&mut f, &mut analyses, &lower).unwrap();
        assert_eq!(edits, Edits::Nothing, "{what}: normalized twice");
        assert_eq!(
            lanes_ir::write::function_to_string(&g.module, &f),
            before,
            "{what}"
        );
        unchanged += usize::from(analyses.is_valid(AnalysisSet::LOOPS));
    }
    // The bundle survives the second run: nothing is recomputed where nothing changed.
    assert_eq!(unchanged, count() as usize);
}

#[test]
fn divergent_loops_leave_only_through_their_pure_latch() {
    let mut transformed = 0;
    let mut kept_in_place = 0;
    for seed in 0..count() {
        let g = generated(seed);
        let mut f = g.function().clone();
        let mut analyses = normalized(&mut f);
        let shapes: Vec<_> = g.params.iter().map(|_| Some((Shape::Varying, 0))).collect();
        let info = shapes_of(&g.module, &f, &shapes).unwrap();
        let headers: Vec<_> = info
            .loops()
            .loops()
            .filter(|&l| info.is_divergent_loop(l))
            .map(|l| info.loops().header(l))
            .collect();
        // Every header φ the analysis finds varying may keep its live-outs in place.
        let varying = varying_header_phis(&f, &info, &headers);
        let done = transform_divergent_loops(&mut f, &mut analyses, &headers, &varying).unwrap();
        transformed += done.len();
        kept_in_place += done.iter().map(|t| t.kept_in_place).sum::<usize>();
        let what = format!("seed {seed} divergent loops");
        check_normal_form(&f, &what);
        assert_kept_analyses_hold(&f, &analyses, &what);
        let cfg = ControlFlowGraph::with_function(&f);
        let domtree = DominatorTree::with_function(&f, &cfg);
        let loops = LoopForest::with_cfg(&cfg, &domtree);
        for t in &done {
            let l = loops.loop_of_header(t.header).expect("still a loop");
            assert_eq!(loops.exiting_blocks(l), &[t.pure_latch], "{what}");
            assert_eq!(loops.latches(l), &[t.pure_latch], "{what}");
            let term = f.terminator(t.pure_latch).unwrap();
            let InstData::Brif { cond, .. } = f.dfg.inst(term) else {
                panic!("{what}: pure latch ends in {:?}", f.dfg.inst(term));
            };
            let ValueDef::Result(i) = f.dfg.value_def(*cond) else {
                panic!("{what}: condition is a parameter");
            };
            assert!(
                matches!(
                    f.dfg.inst(i),
                    InstData::Intrinsic {
                        id: Intrinsic::Any,
                        ..
                    }
                ),
                "{what}: latch condition"
            );
        }
        same_semantics(&g, &f, seed, &what);
    }
    eprintln!("{transformed} loops transformed, {kept_in_place} live-outs kept in place");
    assert!(transformed > COUNT as usize / 4);
    assert!(kept_in_place > 0);
}

#[test]
fn block_index_is_topological_and_loop_compact() {
    for seed in 0..count() {
        let g = generated(seed);
        let mut f = g.function().clone();
        normalized(&mut f);
        let cfg = ControlFlowGraph::with_function(&f);
        let domtree = DominatorTree::with_function(&f, &cfg);
        let loops = LoopForest::with_cfg(&cfg, &domtree);
        let index = BlockIndex::compute(&cfg, &loops);
        let what = format!("seed {seed}");
        assert_eq!(index.order().len(), cfg.rpo().len(), "{what}: all blocks");
        for &b in index.order() {
            for s in BlockIndex::dag_succs(&cfg, &loops, b) {
                assert!(index.pos(b) < index.pos(s), "{what}: {b} -> {s} backwards");
            }
        }
        for l in loops.loops() {
            let pos: Vec<usize> = loops
                .blocks(l)
                .iter()
                .map(|&b| index.pos(b).unwrap())
                .collect();
            let (lo, hi) = (*pos.iter().min().unwrap(), *pos.iter().max().unwrap());
            assert_eq!(hi - lo + 1, pos.len(), "{what}: loop not compact");
            assert_eq!(index.pos(loops.header(l)), Some(lo), "{what}: header first");
            assert_eq!(
                index.pos(loops.latches(l)[0]),
                Some(hi),
                "{what}: latch last"
            );
        }
        // Dominance compactness for blocks outside loops (the top level).
        for &d in index.order() {
            if loops.innermost_loop(d).is_some() {
                continue;
            }
            let pos: Vec<usize> = index
                .order()
                .iter()
                .filter(|&&b| loops.innermost_loop(b).is_none() && domtree.dominates(d, b))
                .map(|&b| index.pos(b).unwrap())
                .collect();
            let top: Vec<usize> = index
                .order()
                .iter()
                .enumerate()
                .filter(|(_, &b)| loops.innermost_loop(b).is_none())
                .map(|(i, _)| i)
                .collect();
            // Contiguous among the top-level blocks.
            let ranks: Vec<usize> = pos
                .iter()
                .map(|p| top.iter().position(|t| t == p).unwrap())
                .collect();
            let (lo, hi) = (*ranks.iter().min().unwrap(), *ranks.iter().max().unwrap());
            assert_eq!(hi - lo + 1, ranks.len(), "{what}: dominance region of {d}");
        }
    }
}

/// The `break` of `for (k < n) { d = k * x; if (d > 0) { c += d; if (c > 10) break; } }`
/// leaves through the latch (`lanes_wfv::latch_breaks`), unless the latch asks which
/// lanes run (here `any`): the lanes that broke out would then change its answer.
#[test]
fn breaks_leave_through_the_latch_only_where_it_may_run_for_them() {
    let text = |latch_test: &str| {
        format!(
            "function @march(v0: i32 varying, v1: f32 varying) -> f32 kernel {{
block0:
    v2: i32 = iconst 0
    v3: f32 = fconst 0.0
    v4: f32 = fconst 10.0
    v5: i32 = iconst 1
    v6: i1 = icmp sgt v0, v2
    brif v6, block1, block5
block1:
    v7: i32 = phi [block0: v2], [block3: v15]
    v8: f32 = phi [block0: v3], [block3: v14]
    v9: f32 = sitofp v7
    v10: f32 = fmul v9, v1
    v11: i1 = fcmp ogt v10, v3
    brif v11, block2, block3
block2:
    v12: f32 = fadd v8, v10
    v13: i1 = fcmp ogt v12, v4
    brif v13, block4, block3
block3:
    v14: f32 = phi [block1: v8], [block2: v12]
    v15: i32 = add v7, v5
    v16: i1 = icmp slt v15, v0
    {latch_test}
block4:
    v17: f32 = phi [block2: v12], [block3: v14]
    br block5
block5:
    v18: f32 = phi [block0: v3], [block4: v17]
    ret v18
}}
"
        )
    };
    let folded = |latch_test: &str| {
        let module = lanes_ir::parse_module(&text(latch_test)).expect("parses");
        let id = module.functions().next().expect("one function").0;
        let shapes = vec![Some((Shape::Varying, 0)); 2];
        let p = lanes_wfv::prepare(
            &module,
            id,
            &shapes,
            lanes_wfv::Mode::PARTIAL,
            &mut |_, _| {},
        )
        .expect("prepares");
        p.latch_breaks
    };
    assert_eq!(folded("brif v16, block1, block4"), 1);
    let asks = "v19: i1 = any v16\n    v20: i1 = and v16, v19\n    brif v20, block1, block4";
    assert_eq!(folded(asks), 0);
}

/// A varying 64-bit counter from `sext a` to `sext b` is narrowed to 32 bits where its
/// range is proven (`wfv_loops.lir`'s `@row_sum`, clang's rotated loop behind `a < b`, and
/// `@row_stride`, tested at its latch); the rotated loop without its guard could count
/// past `b`, and is left as it is.
#[test]
fn varying_counters_are_narrowed_where_their_range_is_proven() {
    let kernels = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/wfv_loops.lir"),
    )
    .expect("readable");
    let narrowed = |text: &str, name: &str| {
        let module = lanes_ir::parse_module(text).expect("parses");
        let id = module.func_by_name(name).expect("defined");
        let shapes = vec![
            Some((Shape::Uniform, 0)),
            Some((Shape::Varying, 0)),
            Some((Shape::Varying, 0)),
        ];
        let mut ran = false;
        lanes_wfv::prepare(
            &module,
            id,
            &shapes,
            lanes_wfv::Mode::PARTIAL,
            &mut |pass, _| {
                ran |= pass == "narrow_induction";
            },
        )
        .expect("prepares");
        ran
    };
    assert!(narrowed(&kernels, "row_sum"));
    assert!(narrowed(&kernels, "row_stride"));
    let unguarded = kernels.replace("brif v13, block1, block3", "br block1");
    assert!(!narrowed(&unguarded, "row_sum"));
}
