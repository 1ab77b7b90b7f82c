//! Scaling of the shape and divergence analysis (issue 4, item 7): median analysis times
//! for generated functions of about 1k, 10k and 100k instructions.
//!
//! Functions come from `lanes_ir::generator` (work-item queries as data, loops up to
//! depth 3, unstructured forward edges), sized by their block count; every parameter is
//! varying, so that many branches are divergent and the divergence machinery (influence
//! regions, label propagation, loop and reconvergence taints) does real work. The bench
//! prints the machine, then per size the instruction count, the number of divergent
//! branches, the median of several runs and the time per instruction; linear growth
//! shows as a flat time per instruction. Run with
//! `cargo bench -p lanes-analysis --bench analysis_scaling` (no timing is asserted
//! anywhere in the tests).

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use lanes_analysis::shapes::ShapeAnalysis;
use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::Shape;
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

fn main() {
    println!("analysis_scaling: {}", machine());
    println!(
        "{:>8} {:>10} {:>10} {:>12} {:>14}",
        "blocks", "insts", "div.br.", "median", "ns/inst"
    );
    for (blocks, runs) in [(100usize, 21), (1_000, 11), (10_000, 5)] {
        let g = generated(blocks, 42);
        let func = g.function();
        let insts = func.num_placed_insts();
        let shapes: Vec<Option<(Shape, u32)>> = func
            .params
            .iter()
            .map(|_| Some((Shape::Varying, 0)))
            .collect();
        let mut times: Vec<Duration> = Vec::new();
        let mut divergent = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let info = ShapeAnalysis::new(&g.module)
                .analyze(g.func, &shapes)
                .expect("analysis runs");
            times.push(start.elapsed());
            divergent = info
                .cfg
                .blocks()
                .iter()
                .filter(|&&b| info.is_divergent_branch(b))
                .count();
        }
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "{blocks:>8} {insts:>10} {divergent:>10} {:>10.2}ms {:>14.1}",
            median.as_secs_f64() * 1e3,
            median.as_nanos() as f64 / insts as f64
        );
    }
}
