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
//! divergent branches, the median of `runs` runs, the time per instruction, the
//! label-propagation steps per instruction (`ShapeInfo::propagation_steps`, the analysis's
//! only variable work: a machine-independent measure that timing noise on a shared machine
//! cannot blur), and the join causes per instruction (the sum over blocks of
//! `ShapeInfo::join_causes`: the size of the answer).
//!
//! What the monolithic rows show: the join causes alone grow superlinearly (0.27, 0.57,
//! 1.18 per instruction at 1k, 10k, 96k instructions: about 4, 11 and 21 joins per
//! divergent branch), so no algorithm that lists the causes of every join can be linear
//! on this family. The steps (one visit per block of the influence region, 49 per
//! instruction at 96k) are not reduced by φ-placement (iterated dominance frontiers):
//! 98.8% of the visited blocks are not dominated by their branch, and a block where lanes
//! from the branch meet lanes that never passed it lies in the frontier without being a
//! join, its label travelling on (see `shapes::propagate`). The engine keeps its state in
//! dense arrays shared by all runs, which made the 96k row 2.5–4x faster with the same
//! steps and joins. Run with
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
) {
    println!(
        "{label:<24} {insts:>8} {divergent:>8} {runs:>5} {:>10.2}ms {:>9.1} {:>11.2} {:>11.2}",
        median.as_secs_f64() * 1e3,
        median.as_nanos() as f64 / insts as f64,
        steps as f64 / insts as f64,
        joins as f64 / insts as f64
    );
}

fn main() {
    println!("analysis_scaling: {}", machine());
    println!(
        "{:<24} {:>8} {:>8} {:>5} {:>12} {:>9} {:>11} {:>11}",
        "function", "insts", "div.br.", "runs", "median", "ns/inst", "steps/inst", "joins/inst"
    );
    for (segments, runs) in [(10usize, 21), (100, 11), (1_000, 5)] {
        let (module, id) = chained(segments, 7);
        lanes_ir::verifier::verify_module(&module).expect("chained function verifies");
        row(
            &format!("chained x{segments}"),
            runs,
            measure(&module, id, runs),
        );
    }
    for (blocks, runs) in [(100usize, 21), (1_000, 11), (10_000, 3)] {
        let g = generated(blocks, 42);
        row(
            &format!("monolithic {blocks} blocks"),
            runs,
            measure(&g.module, g.func, runs),
        );
    }
}
