//! Bounded label-propagation walks over-approximate exact ones (`shapes::summary`).
//!
//! For 300 generated reducible and irreducible functions of up to 300 blocks, every
//! parameter varying, the analysis with walk budgets of 1, 4 and 16 steps must find every
//! divergent branch, join-divergent block, divergent loop and divergent value that exact
//! walks find, and every shape at least as high in the lattice: a summary may only add
//! divergence. The summaries must actually run (walks cut short are counted).

use arbitrary::Unstructured;
use lanes_analysis::shapes::ShapeAnalysis;
use lanes_ir::generator::{generate, GenConfig};
use lanes_ir::Shape;
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

#[test]
fn summarized_walks_only_add_divergence() {
    let (mut summarized, mut extra_joins, mut compared) = (0u64, 0usize, 0usize);
    for seed in 0..300u64 {
        let mut bytes = vec![0; 160 * 1024];
        SmallRng::seed_from_u64(seed ^ 0xb0d9e7).fill_bytes(&mut bytes);
        let gen = GenConfig {
            min_blocks: 8,
            max_blocks: 300,
            work_items: true,
            irreducible: seed % 5 == 0,
            ..GenConfig::default()
        };
        let g = generate(&mut Unstructured::new(&bytes), &gen).expect("generates");
        let func = g.function();
        let shapes: Vec<Option<(Shape, u32)>> = func
            .params
            .iter()
            .map(|_| Some((Shape::Varying, 0)))
            .collect();
        let exact = ShapeAnalysis::new(&g.module)
            .with_walk_budget(None)
            .analyze(g.func, &shapes)
            .expect("analysis runs");
        assert_eq!(exact.summarized_walks(), 0);
        for budget in [1u64, 4, 16] {
            let cut = ShapeAnalysis::new(&g.module)
                .with_walk_budget(Some(budget))
                .analyze(g.func, &shapes)
                .expect("analysis runs");
            summarized += cut.summarized_walks();
            for &b in exact.cfg().blocks() {
                assert!(
                    !exact.is_divergent_branch(b) || cut.is_divergent_branch(b),
                    "seed {seed}, budget {budget}: branch {b} lost"
                );
                assert!(
                    !exact.is_join_divergent(b) || cut.is_join_divergent(b),
                    "seed {seed}, budget {budget}: join {b} lost"
                );
                extra_joins += usize::from(cut.is_join_divergent(b) && !exact.is_join_divergent(b));
            }
            for &l in exact.divergent_loops() {
                assert!(
                    cut.is_divergent_loop(l),
                    "seed {seed}, budget {budget}: divergent loop {l} lost"
                );
            }
            for v in func.dfg.values() {
                let (e, c) = (exact.shape(v), cut.shape(v));
                assert_eq!(
                    e.join(c),
                    c,
                    "seed {seed}, budget {budget}: {v} is {e} with exact walks but {c}"
                );
                compared += 1;
            }
        }
    }
    eprintln!(
        "walk budgets 1/4/16: {summarized} walks summarized, {extra_joins} extra joins, \
         {compared} value shapes compared, none lower than exact"
    );
    assert!(summarized > 1000, "only {summarized} walks summarized");
}
