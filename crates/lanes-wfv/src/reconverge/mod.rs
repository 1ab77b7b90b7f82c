//! The reconverging transform (the reconverging-CFG paper, "Algorithm" steps 1–3): SPMD
//! control flow without structurization.
//!
//! A CFG is *reconverging* if every divergent branch has exactly two successors, one of
//! which post-dominates it ([`check`]). Such a CFG can run a wave of threads with
//! execution masks and nothing else: at a divergent branch the wave follows the other
//! successor with the threads going there, and the rest wait at the post-dominating one,
//! where all rejoin. Structurization (LLVM's StructurizeCFG) gets there too but rebuilds
//! uniform control flow as well and needs region analysis; the transform here keeps
//! uniform branches where it can, inserts fewer blocks, and takes irreducible CFGs:
//!
//! 1. one sink: every `ret` and `unreachable` block jumps to one return block (the
//!    paper's virtual exit, made real), `switch`es become `brif` cascades (divergent where
//!    the switch was), and a `brif` with two equal targets a `jump`;
//! 2. a block order ([`order`]): depth-first, depth-first obeying post-dominance,
//!    breadth-first or reverse post-order;
//! 3. the OpenTree ([`open_tree`]): flow blocks receive the edges that would leave armed
//!    divergent regions elsewhere than where their threads must rejoin, and branch on φs
//!    of the original conditions to the original targets. The φs of blocks whose
//!    predecessors changed are rebuilt from their original incoming values, and uses
//!    whose definitions no longer dominate them read the reaching definition (on the new
//!    paths a thread never takes, the type's zero).
//!
//! The function keeps its scalar meaning exactly: flow blocks only reroute.
//!
//! 4. [`lower`]: execution and re-join masks, the paper's lowering, with its option of
//!    empty-mask skips ([`SkipEmpty`]); the result has only uniform branches and goes to
//!    widening as partial linearization's would.

pub mod check;
pub mod lower;
mod masks;
pub mod open_tree;
pub mod order;
mod variables;

use cranelift_entity::EntitySet;
use lanes_analysis::shapes::{ArgShapes, ShapeAnalysis, ShapeInfo};
use lanes_analysis::{AnalysisSet, ControlFlowGraph, FunctionAnalyses, PostDominatorTree};
use lanes_ir::cursor::phis;
use lanes_ir::{Block, Function, InstData, ValueSubstitution};

pub use check::{violations, Violation};
pub use lower::{lower_to_masks, Lowered, SkipEmpty};
pub use open_tree::OpenTreeStats;
pub use order::{block_order, BlockOrder};

use crate::cfg_edit::zero_value;
use crate::normalize::{lower_switch_at, single_exit};
use crate::ssa_repair::{remove_trivial_phis, repair_ssa, SsaSearch};
use crate::stats::Stats;
use crate::WfvError;

/// What [`reconverge`] made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconverged {
    /// The flow blocks inserted.
    pub flow_blocks: Vec<Block>,
    /// Blocks whose branch is divergent in the result: the divergent ones of the input
    /// (and the cascades of divergent `switch`es) and every flow block that branches.
    pub divergent: Vec<Block>,
}

/// Makes `func` reconverging; `divergent(b)`: the branch ending `b` is divergent.
pub fn reconverge(
    func: &mut Function,
    divergent: &dyn Fn(Block) -> bool,
    order: BlockOrder,
) -> Result<Reconverged, WfvError> {
    let func_name = func.name.clone();
    // Step 1.
    let mut div: EntitySet<Block> = EntitySet::new();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for &b in &blocks {
        if divergent(b) {
            div.insert(b);
        }
    }
    for &b in &blocks {
        let before: Vec<Block> = func.layout.blocks().collect();
        if lower_switch_at(func, b) && div.contains(b) {
            for nb in func.layout.blocks() {
                if !before.contains(&nb) {
                    div.insert(nb);
                }
            }
        }
    }
    single_exit(func);
    for b in func.layout.blocks().collect::<Vec<_>>() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if let InstData::Brif {
            then_dest,
            else_dest,
            ..
        } = *func.dfg.inst(t)
        {
            if then_dest == else_dest {
                *func.dfg.inst_mut(t) = InstData::Jump { dest: then_dest };
            }
        }
    }
    // Step 2.
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let blocks = block_order(func, &cfg, &pdt, order);
    // Step 3.
    let is_div = |b: Block| div.contains(b);
    let mut tree = open_tree::OpenTree::new(func, &blocks, &is_div);
    tree.run(&blocks).map_err(|e| match e {
        WfvError::Internal(why) => WfvError::NotReconverging(func_name.clone(), why),
        other => other,
    })?;
    let (rerouted, flow_blocks) = (tree.rerouted.clone(), tree.flow_blocks.clone());
    drop(tree);
    rebuild_phis(func, &rerouted);
    let mut analyses = FunctionAnalyses::new();
    analyses.compute(func, AnalysisSet::DOMTREE);
    repair_ssa(func, &mut analyses, None);
    let mut divergent_out: Vec<Block> = func.layout.blocks().filter(|&b| div.contains(b)).collect();
    for &f in &flow_blocks {
        if open_tree::succs_of(func, f).len() == 2 {
            divergent_out.push(f);
        }
    }
    // The property is checked on every result: a CFG the OpenTree left without a primary
    // successor somewhere (seen on irreducible cycles before the orders put the sink last)
    // is an error, never a function that would lower wrongly.
    let is_out_div = |b: Block| divergent_out.contains(&b);
    if let Some(v) = violations(func, &is_out_div).into_iter().next() {
        return Err(WfvError::NotReconverging(func.name.clone(), v.to_string()));
    }
    Ok(Reconverged {
        flow_blocks,
        divergent: divergent_out,
    })
}

/// What [`reconverge_analysed`] made.
#[derive(Clone, Debug, Default)]
pub struct Analysed {
    /// The divergent branches of the result, by its shape analysis.
    pub divergent: Vec<Block>,
    /// Flow blocks inserted, over all rounds.
    pub flow_blocks: usize,
    /// Branch counts of the input; a uniform branch of the input that is divergent in
    /// the result counts as lost.
    pub stats: Stats,
}

/// Makes `func` reconverging (in `order`) for the divergent branches the shape analysis
/// (`analysis`, with argument shapes `args`) finds in the result; `info` is the analysis
/// of `func` as given.
///
/// The analysis of the input (`info`) is not enough: the lowering to masks re-joins
/// threads at each divergent branch's primary successor, its immediate post-dominator in
/// the new CFG, and flow blocks can move that point. A loop's divergent exit rerouted
/// through a flow block outside an enclosing loop, say, lets threads that left the inner
/// loop run the next outer iteration while others still run the inner one, so a value
/// uniform per outer iteration is no longer uniform among the threads running together.
/// The analysis of the reconverged CFG sees that; a branch it newly finds divergent may
/// need flow blocks of its own, so the transform runs again until the divergent branches
/// it was given are the ones the analysis finds.
pub fn reconverge_analysed(
    func: &mut Function,
    analysis: &ShapeAnalysis,
    args: &ArgShapes,
    info: &ShapeInfo,
    order: BlockOrder,
) -> Result<Analysed, WfvError> {
    let divergent_in = |f: &Function, info: &ShapeInfo| -> Vec<Block> {
        f.layout
            .blocks()
            .filter(|&b| info.is_divergent_branch(b))
            .collect()
    };
    let mut divergent = divergent_in(func, info);
    let mut flow_blocks = 0;
    let mut stats = Stats::default();
    let mut uniform_in: Vec<Block> = Vec::new();
    for b in func.layout.blocks() {
        let mut succs = func.successors(b);
        succs.sort();
        succs.dedup();
        if succs.len() < 2 {
            continue;
        }
        stats.branches += 1;
        if divergent.contains(&b) {
            stats.divergent += 1;
        } else {
            stats.uniform += 1;
            uniform_in.push(b);
        }
    }
    for _ in 0..16 {
        flow_blocks += reconverge(func, &|b| divergent.contains(&b), order)?
            .flow_blocks
            .len();
        let now = analysis.analyze_in(func, args, FunctionAnalyses::new())?;
        divergent = divergent_in(func, &now);
        let is_div = |b: Block| divergent.contains(&b);
        if violations(func, &is_div).is_empty() {
            stats.lost_blocks = uniform_in.into_iter().filter(|b| is_div(*b)).collect();
            stats.lost = stats.lost_blocks.len();
            return Ok(Analysed {
                divergent,
                flow_blocks,
                stats,
            });
        }
    }
    Err(WfvError::NotReconverging(
        func.name.clone(),
        "the divergent branches of the reconverged CFG kept changing".into(),
    ))
}

/// Rebuilds the φs of `blocks`, whose predecessors changed: each reads, along every new
/// incoming edge, the value its original incoming edges carried there.
fn rebuild_phis(func: &mut Function, blocks: &[Block]) {
    let cfg = ControlFlowGraph::with_function(func);
    let preds: cranelift_entity::SecondaryMap<Block, Vec<Block>> = func
        .layout
        .blocks()
        .map(|b| (b, cfg.preds(b).to_vec()))
        .collect();
    let mut subst = ValueSubstitution::new();
    let mut old = Vec::new();
    let mut created = Vec::new();
    let mut zeros = std::collections::HashMap::new();
    for &b in blocks {
        for phi in phis(func, b) {
            let InstData::Phi { incoming } = func.dfg.inst(phi).clone() else {
                continue;
            };
            let mut listed: Vec<Block> = incoming.iter().map(|&(p, _)| p).collect();
            let mut now = preds[b].clone();
            listed.sort();
            now.sort();
            if listed == now {
                continue;
            }
            let Some(result) = func.dfg.inst_result(phi) else {
                continue;
            };
            let ty = func.dfg.value_type(result);
            let default = zero_value(func, ty, &mut zeros);
            let never = |_: Block| false;
            let mut search = SsaSearch::new(&preds, incoming, &never, default, ty);
            let new = search.at_entry(func, b);
            created.extend(search.created);
            subst.insert(result, new);
            old.push(phi);
        }
    }
    for phi in old {
        func.layout.remove_inst(phi);
    }
    func.dfg.apply_substitution(&subst);
    remove_trivial_phis(func, &created);
}
