//! Barriers under work-item-dependent control flow, found statically.
//!
//! OpenCL requires every work-item of a group to execute each barrier (OpenCL 1.2
//! §6.12.8); a barrier inside `if (get_local_id(0) < 5)` breaks that unless the condition
//! happens to hold for the whole group. The divergence analysis (CC'12 §3.2, PACT'11 §III)
//! finds the branches whose condition may differ between the work-items of a group — with
//! every local id varying, since a group spans all three dimensions — and each barrier
//! control dependent on one, directly or through other branches, gets a warning naming
//! both lines. The analysis over-approximates (a condition may be uniform in practice),
//! so this is a warning; the executor checks every launch and stops one whose
//! work-items do reach different barriers ([`crate::executor`]).

use lanes_analysis::shapes::ArgShapes;
use lanes_analysis::{ControlDependence, ControlFlowGraph, PostDominatorTree};
use lanes_ir::{Block, Function, InstData, Intrinsic, Module, Shape};

/// One warning per barrier of `func` (a work-item function with `own` kernel parameters)
/// that divergent control flow decides; `shapes` are the parameters' shapes, which this
/// check widens to every local id varying.
pub fn divergent_barriers(
    module: &Module,
    func: &Function,
    own: usize,
    shapes: &ArgShapes,
    file: &str,
) -> Vec<String> {
    let mut all_ids = shapes.to_vec();
    for k in [crate::work_items::extra::LY, crate::work_items::extra::LZ] {
        all_ids[own + k] = Some((Shape::Varying, 0));
    }
    let Ok(info) = lanes_wfv::shapes_of(module, func, &all_ids) else {
        return Vec::new();
    };
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let cd = ControlDependence::with_cfg(&cfg, &pdt);
    let line_of = |b: Block| {
        func.layout
            .block_insts(b)
            .iter()
            .rev()
            .map(|&i| func.source_lines.get(i).copied().unwrap_or(0))
            .find(|&l| l > 0)
            .unwrap_or(0)
    };
    let mut warnings = Vec::new();
    for b in func.layout.blocks() {
        for &inst in func.layout.block_insts(b) {
            if !matches!(
                func.dfg.inst(inst),
                InstData::Intrinsic {
                    id: Intrinsic::Barrier,
                    ..
                }
            ) {
                continue;
            }
            // The branches deciding whether `b` runs, transitively.
            let mut seen = vec![b];
            let mut work = vec![b];
            let mut divergent = None;
            while let Some(x) = work.pop() {
                for &c in cd.cdep_blocks(x) {
                    if seen.contains(&c) {
                        continue;
                    }
                    seen.push(c);
                    if info.is_divergent_branch(c) && divergent.is_none() {
                        divergent = Some(c);
                    }
                    work.push(c);
                }
            }
            if let Some(branch) = divergent {
                let line = func.source_lines.get(inst).copied().unwrap_or(0);
                warnings.push(format!(
                    "{file}:{line}: kernel `{}`: this barrier runs only where the branch at line {} goes its way, and that branch's condition may differ between the work-items of a group; if it does, the launch stops with an error",
                    func.origin_name(),
                    line_of(branch)
                ));
            }
        }
    }
    warnings
}
