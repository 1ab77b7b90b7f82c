//! Scaling of the shape and divergence analysis (issue 4, item 7): median analysis times
//! for generated functions of about 1k, 10k and 100k instructions.
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
//! - *monolithic*: one generated function of 100, 1,000 and 10,000 blocks. Its forward
//!   edges may span the whole function (11% of them land anywhere later, 7% on the last
//!   block), so influence regions of divergent branches grow with the function and the
//!   total work is superlinear; printed for comparison.
//!
//! The bench prints the machine, then per size the instruction count, the number of
//! divergent branches, the median of `runs` runs, the time per 1,000 instructions, the
//! label-propagation steps per instruction (`ShapeInfo::propagation_steps`, the analysis's
//! only variable work: a machine-independent measure that timing noise on a shared machine
//! cannot blur), and the join causes per instruction (the sum over blocks of
//! `ShapeInfo::join_causes`: the size of the answer).
//!
//! What the rows show. Chained: flat steps per instruction, linear. Monolithic: NOT
//! linear. Measured by instrumenting the engine (not kept): at 10,000 blocks more than
//! 95% of the steps are the walks of `DivergenceCtx::loop_exit_joins` (one per divergent loop, labels
//! starting at the loop's exits), not the walks of divergent branches (about 1,500 steps
//! per analysis, confined to their loops). 746 of 2,986 divergent loops have exits
//! without a common post-dominator (it is the virtual exit), so nothing stops their walk
//! and it runs to the end of the function, about 5,400 blocks each, finding about 164
//! joins each, mostly the same blocks for loops nested in one another. The join causes
//! therefore grow superlinearly too (0.27, 0.57, 1.18 per instruction). Stopping these
//! walks at the common post-dominator changes nothing here (there is none) and changes
//! the joins elsewhere, so it was not kept. What would make them linear: the joins of a
//! seed set S are the children of a virtual root in the dominator tree of the part of
//! the forward CFG reachable from S, and they grow with S, so a loop nested in a
//! divergent loop need not walk past the outer loop's exits; `join_causes` (only the
//! gated-φ rule and the `lanes analyze` report read it) would have to become a summary.
//! Since then the walk jumps over dominator subtrees (a label reaching a block is the
//! only one that can reach the rest of its subtree, so no join lies there: see
//! `shapes::propagate`), and steps count the blocks visited plus the edges jumped along.
//! Same joins (tested against the full walk); monolithic 10,000 blocks: 49.48 → 6.89
//! steps per instruction, 474 → 87 ms. Still NOT linear. Where the 662k steps at 10,000
//! blocks go (instrumented, not kept): 563k are loop-exit walks — 97k for the 177
//! top-level divergent loops (already 1.0 per instruction, against 0.03 at 100 blocks),
//! 466k for the 1,135 loops nested in a divergent loop — and 99k are branch walks. Only
//! 309 of those nested loops reach every exit of their divergent parent, the case where
//! stopping at the parent's exits and reusing the parent's joins is exact (at most 207k
//! steps saved); with fewer exits reached, reusing them over-approximates the causes. The
//! answer itself grows superlinearly: loop-exit join causes per instruction 0.07, 0.12,
//! 0.62 at 100, 1,000, 10,000 blocks, so no walk that lists causes per loop can be
//! linear here; that needs causes summarized (per loop nest) in the core analysis and
//! listed lazily for `lanes analyze`. Open. The engine keeps its state in dense arrays shared by all runs (2.5–4x faster
//! than hash maps at 96k instructions), and a label waiting at a branch's
//! reconvergence point outside loops no longer keeps the branch's walk alive (steps per
//! instruction of the chained family 0.10 → 0.07). Run with
//! `cargo bench -p lanes-analysis --bench analysis_scaling` (results of one run:
//! `bench/results/analysis_scaling.txt`; no timing is asserted
//! anywhere in the tests).

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
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

/// Median time, divergent branches, instructions and propagation steps of analyzing `id`
/// with varying arguments.
fn measure(module: &Module, id: FuncId, runs: usize) -> (Duration, usize, usize, u64, usize) {
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
    for _ in 0..runs {
        let start = Instant::now();
        let info = ShapeAnalysis::new(module)
            .analyze(id, &shapes)
            .expect("analysis runs");
        times.push(start.elapsed());
        steps = info.propagation_steps();
        joins = info
            .cfg
            .blocks()
            .iter()
            .map(|&b| info.join_causes(b).len())
            .sum();
        divergent = info
            .cfg
            .blocks()
            .iter()
            .filter(|&&b| info.is_divergent_branch(b))
            .count();
    }
    times.sort();
    (
        times[times.len() / 2],
        divergent,
        func.num_placed_insts(),
        steps,
        joins,
    )
}

fn row(
    label: &str,
    runs: usize,
    (median, divergent, insts, steps, joins): (Duration, usize, usize, u64, usize),
) -> (f64, f64) {
    let ms = median.as_secs_f64() * 1e3;
    let per_k = ms * 1e3 / insts as f64;
    println!(
        "{label:<24} {insts:>8} {divergent:>8} {runs:>5} {ms:>10.2}ms {per_k:>10.3} {:>11.2} {:>11.2}",
        steps as f64 / insts as f64,
        joins as f64 / insts as f64
    );
    (per_k, steps as f64 / insts as f64)
}

/// The verdict rests on the label-propagation steps per instruction (machine-independent;
/// linear when the largest function needs at most twice as many per instruction as the
/// smallest); the growth of the time per instruction is printed beside it, as timings on a
/// shared machine are noisy.
fn verdict(family: &str, rows: &[(f64, f64)]) {
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    let steps = last.1 / first.1.max(1e-9);
    let time = last.0 / first.0;
    println!(
        "verdict {family}: steps per instruction grow {steps:.1}x, ms per 1k instructions {time:.1}x from the smallest to the largest size: {}",
        if steps <= 2.0 { "linear" } else { "NOT linear" }
    );
}

fn main() {
    println!("analysis_scaling: {}", machine());
    println!(
        "{:<24} {:>8} {:>8} {:>5} {:>12} {:>10} {:>11} {:>11}",
        "function", "insts", "div.br.", "runs", "median", "ms/1k inst", "steps/inst", "joins/inst"
    );
    let mut per_k = Vec::new();
    for (segments, runs) in [(10usize, 21), (100, 11), (1_000, 5)] {
        let (module, id) = chained(segments, 7);
        lanes_ir::verifier::verify_module(&module).expect("chained function verifies");
        per_k.push(row(
            &format!("chained x{segments}"),
            runs,
            measure(&module, id, runs),
        ));
    }
    let mut mono = Vec::new();
    for (blocks, runs) in [(100usize, 21), (1_000, 11), (10_000, 3)] {
        let g = generated(blocks, 42);
        mono.push(row(
            &format!("monolithic {blocks} blocks"),
            runs,
            measure(&g.module, g.func, runs),
        ));
    }
    verdict("chained", &per_k);
    verdict("monolithic", &mono);
}
