//! Scaling of the shape and divergence analysis: median analysis times
//! for generated functions of about 1k, 10k, 100k and (monolithic) 1M instructions.
//!
//! Two families of functions from `lanes_ir::generator` (work-item queries as data,
//! loops up to depth 3, unstructured forward edges), every parameter varying so that many
//! branches are divergent and the divergence machinery (label propagation, loop and
//! reconvergence taints) does real work:
//!
//! - *chained*: a program as a sequence of generated regions (functions of 12 blocks, the
//!   size of a kernel, spliced one after the other into one function), 1k to 100k
//!   instructions. This is the shape of real code, and analysis time grows linearly: the
//!   time per instruction stays flat.
//! - *monolithic*: one generated function of 100, 1,000, 10,000 and 100,000 blocks. Its
//!   forward edges may span the whole function (11% of them land anywhere later, 7% on
//!   the last block), so lanes that split may stay apart across the rest of the function:
//!   the worst case for sync dependence.
//!
//! The bench prints the machine, then per size the instruction count, the number of
//! divergent branches, the median of `runs` runs, the time per 1,000 instructions, the
//! label-propagation steps per instruction (`ShapeInfo::propagation_steps`: blocks
//! visited, edges jumped along, subtree edges built and summary work — the analysis's only
//! variable work, a machine-independent measure that timing noise on a shared machine
//! cannot blur), the join causes per instruction (the sum over blocks of
//! `ShapeInfo::join_causes`), the join-divergent blocks, the varying values and the walks
//! summarized. Monolithic sizes up to 10,000 blocks are also analyzed with exact walks
//! (`with_walk_budget(None)`) for comparison.
//!
//! The verdict: linear when the steps per instruction of the largest size are at most
//! twice those of the smallest, or at most 1.5x those of the size ten times smaller
//! (growth has stopped; quadratic work shows about 10x per tenfold).
//!
//! History and what the rows show. With exact walks the monolithic family is NOT linear
//! (0.21, 0.71, 6.89 steps per instruction at 1k, 10k, 96k instructions, before the
//! subtree edges built were counted as steps; 0.67, 1.29, 7.56 with them). Instrumented
//! (not kept) at 96k: of the 662k steps, 98,286 are walks of divergent branches without a
//! post-dominator and 562,671 walks from the exits of divergent loops whose exits have no
//! common post-dominator; the walks of all other sources take 1,033 steps together. Giving
//! the function a single exit block changes nothing (the streams then meet only at the
//! end). Remembering the pending state of walks to cut repeated tails saved only 24%.
//! Since then a walk stops after `DEFAULT_WALK_BUDGET` steps and the rest is summarized
//! soundly in a region shared by all walks (`shapes::summary`): steps per instruction
//! 0.67, 1.52, 1.87, 1.97 at 1k to 963k instructions (1.05x over the last tenfold),
//! with 2.2% more join-divergent blocks and 0.1% more varying values than exact walks at
//! 96k; the chained family and every test program stay exact (no walk summarized).
//! Time per instruction still grows (about 1.3x per tenfold at the largest sizes) while
//! the work per instruction does not: the fixpoint's instruction visits are 1.2–1.5 per
//! instruction at every size (instrumented, not kept), and its accesses spread over ever larger tables (cache
//! misses). Run with `cargo bench -p lanes-analysis --bench analysis_scaling` (results of
//! one run: `bench/results/analysis_scaling.txt`; no timing is asserted anywhere in the
//! tests).

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use lanes_analysis::shapes::summary::DEFAULT_WALK_BUDGET;
use lanes_analysis::shapes::ShapeAnalysis;
use std::collections::HashMap;

use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::{Block, EntityRef, FuncId, Function, InstData, Module, Shape, Value, ValueDef};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cpu}, {cores} hardware threads, {} {}, profile {}",
        std::env::consts::OS,
        std::env::consts::ARCH,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )
}

fn generated(blocks: usize, seed: u64) -> Generated {
    let mut bytes = vec![0; blocks * 400 + 4096];
    SmallRng::seed_from_u64(seed).fill_bytes(&mut bytes);
    let cfg = GenConfig {
        min_blocks: blocks,
        max_blocks: blocks,
        work_items: true,
        calls: false,
        ..GenConfig::default()
    };
    generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails")
}

/// Splices `segments` generated functions of 12 blocks into one function: parameters
/// concatenated, each segment's `ret` becoming a branch to the next segment's entry.
fn chained(segments: usize, seed: u64) -> (Module, FuncId) {
    let gens: Vec<Generated> = (0..segments)
        .map(|i| generated(12, seed + i as u64))
        .collect();
    let mut module = Module::new();
    let params: Vec<_> = gens
        .iter()
        .flat_map(|g| g.function().signature().params)
        .collect();
    let last_ret = gens.last().and_then(|g| g.function().ret);
    let mut f = Function::new("chained", &params, last_ret);
    let mut first_param = 0;
    let mut entries = Vec::new();
    let mut pending_rets = Vec::new();
    for g in &gens {
        let src = g.function();
        let globals: Vec<_> = g
            .module
            .globals
            .values()
            .map(|d| module.add_global(d.clone()))
            .collect();
        let mut bmap: HashMap<Block, Block> = HashMap::new();
        for b in src.layout.blocks() {
            bmap.insert(b, f.append_new_block());
        }
        entries.push(bmap[&src.entry_block().unwrap()]);
        let mut vmap: HashMap<Value, Value> = HashMap::new();
        for (i, p) in src.params.iter().enumerate() {
            vmap.insert(p.value, f.params[first_param + i].value);
        }
        first_param += src.params.len();
        let mut new_insts = Vec::new();
        for b in src.layout.blocks() {
            for &inst in src.layout.block_insts(b) {
                let data = src.dfg.inst(inst).clone();
                let ty = src.dfg.inst_result(inst).map(|v| src.dfg.value_type(v));
                let ni = f.dfg.make_inst(data, ty);
                if let (Some(old), Some(new)) = (src.dfg.inst_result(inst), f.dfg.inst_result(ni)) {
                    vmap.insert(old, new);
                }
                f.layout.append_inst(ni, bmap[&b]);
                new_insts.push(ni);
            }
        }
        for ni in new_insts {
            let data = f.dfg.inst_mut(ni);
            data.for_each_arg_mut(|v| *v = vmap[v]);
            data.for_each_target_mut(|b| *b = bmap[b]);
            match data {
                InstData::Phi { incoming } => {
                    incoming.iter_mut().for_each(|(b, _)| *b = bmap[b]);
                }
                InstData::GlobalAddr { global } => *global = globals[global.index()],
                InstData::Return { .. } => pending_rets.push((ni, entries.len())),
                _ => {}
            }
        }
    }
    // Every `ret` of segment k (but the last) jumps to the entry of segment k + 1.
    for (ni, seg) in pending_rets {
        if seg < entries.len() {
            *f.dfg.inst_mut(ni) = InstData::Jump { dest: entries[seg] };
        }
    }
    debug_assert!(f
        .params
        .iter()
        .all(|p| matches!(f.dfg.value_def(p.value), ValueDef::Param(_))));
    let id = module.define(f);
    (module, id)
}

/// What one configuration of the analysis gives on one function.
struct Measured {
    median: Duration,
    divergent: usize,
    insts: usize,
    steps: u64,
    joins: usize,
    join_blocks: usize,
    varying: usize,
    summarized: u64,
}

/// Median time, divergent branches, instructions, propagation steps, join causes,
/// join-divergent blocks, varying values and summarized walks of analyzing `id` with
/// varying arguments and walk budget `budget` (`None`: exact walks).
fn measure(module: &Module, id: FuncId, runs: usize, budget: Option<u64>) -> Measured {
    let func = module.function(id).expect("defined");
    let shapes: Vec<Option<(Shape, u32)>> = func
        .params
        .iter()
        .map(|_| Some((Shape::Varying, 0)))
        .collect();
    let mut times: Vec<Duration> = Vec::new();
    let mut divergent = 0;
    let mut steps = 0;
    let mut joins = 0;
    let (mut join_blocks, mut varying, mut summarized) = (0, 0, 0);
    for _ in 0..runs {
        let start = Instant::now();
        let info = ShapeAnalysis::new(module)
            .with_walk_budget(budget)
            .analyze(id, &shapes)
            .expect("analysis runs");
        times.push(start.elapsed());
        steps = info.propagation_steps();
        joins = info
            .cfg()
            .blocks()
            .iter()
            .map(|&b| info.join_causes(b).len())
            .sum();
        join_blocks = info
            .cfg()
            .blocks()
            .iter()
            .filter(|&&b| info.is_join_divergent(b))
            .count();
        varying = func
            .dfg
            .values()
            .filter(|&v| info.shape(v).is_divergent())
            .count();
        summarized = info.summarized_walks();
        divergent = info
            .cfg()
            .blocks()
            .iter()
            .filter(|&&b| info.is_divergent_branch(b))
            .count();
    }
    times.sort();
    Measured {
        median: times[times.len() / 2],
        divergent,
        insts: func.num_placed_insts(),
        steps,
        joins,
        join_blocks,
        varying,
        summarized,
    }
}

fn row(label: &str, runs: usize, m: &Measured) -> (f64, f64) {
    let ms = m.median.as_secs_f64() * 1e3;
    let per_k = ms * 1e3 / m.insts as f64;
    println!(
        "{label:<26} {:>8} {:>8} {runs:>5} {ms:>10.2}ms {per_k:>10.3} {:>11.2} {:>11.2} {:>8} {:>8} {:>6}",
        m.insts,
        m.divergent,
        m.steps as f64 / m.insts as f64,
        m.joins as f64 / m.insts as f64,
        m.join_blocks,
        m.varying,
        m.summarized
    );
    (per_k, m.steps as f64 / m.insts as f64)
}

/// The verdict rests on the label-propagation steps per instruction (machine-independent;
/// linear when the largest function needs at most twice as many per instruction as the
/// smallest); the growth of the time per instruction is printed beside it, as timings on a
/// shared machine are noisy.
fn verdict(family: &str, rows: &[(f64, f64)]) {
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    let before = rows[rows.len() - 2];
    let steps = last.1 / first.1.max(1e-9);
    let decade = last.1 / before.1.max(1e-9);
    let time = last.0 / first.0;
    println!(
        "verdict {family}: steps per instruction grow {steps:.1}x from the smallest to the largest size, {decade:.2}x over the last tenfold; ms per 1k instructions {time:.1}x: {}",
        if steps <= 2.0 || decade <= 1.5 { "linear" } else { "NOT linear" }
    );
}

fn main() {
    println!("analysis_scaling: {}", machine());
    println!(
        "walk budget {} steps (exact rows: every walk run to its end)",
        lanes_analysis::shapes::summary::DEFAULT_WALK_BUDGET
    );
    println!(
        "{:<26} {:>8} {:>8} {:>5} {:>12} {:>10} {:>11} {:>11} {:>8} {:>8} {:>6}",
        "function",
        "insts",
        "div.br.",
        "runs",
        "median",
        "ms/1k inst",
        "steps/inst",
        "joins/inst",
        "join bl.",
        "varying",
        "summ."
    );
    let mut per_k = Vec::new();
    for (segments, runs) in [(10usize, 21), (100, 11), (1_000, 5)] {
        let (module, id) = chained(segments, 7);
        lanes_ir::verifier::verify_module(&module).expect("chained function verifies");
        let m = measure(&module, id, runs, Some(DEFAULT_WALK_BUDGET));
        per_k.push(row(&format!("chained x{segments}"), runs, &m));
    }
    let mut mono = Vec::new();
    let mut exact = Vec::new();
    for (blocks, runs) in [(100usize, 21), (1_000, 11), (10_000, 3), (100_000, 1)] {
        let g = generated(blocks, 42);
        let m = measure(&g.module, g.func, runs, Some(DEFAULT_WALK_BUDGET));
        mono.push(row(&format!("monolithic {blocks} blocks"), runs, &m));
        // Exact walks for comparison (precision and work); too slow at 100,000 blocks.
        if blocks <= 10_000 {
            let e = measure(&g.module, g.func, runs.min(3), None);
            exact.push(row(&format!("  exact {blocks} blocks"), runs.min(3), &e));
        }
    }
    verdict("chained", &per_k);
    verdict("monolithic", &mono);
    verdict("monolithic, exact walks", &exact);
}
