//! Guards in front of uniform loops that run under a varying predicate (a BOSCC gadget,
//! PLDI'18 §6, applied to loops).
//!
//! A uniform loop nested in divergent control is left as it is (its exits are uniform),
//! but it may be reached in the linearized CFG while *no* lane is active in it. Its
//! trip count is then computed from values no lane defined — loads that were skipped,
//! blends of paths no lane took — and need not terminate. So its preheader gets the
//! branch `brif any(pred(preheader)), header, skip` where `skip` jumps to one of the
//! loop's exits (with "don't care" values for the exit's φs). The branch is uniform, so
//! partial linearization keeps it (Theorem 4.5): with no lane active the loop is skipped,
//! with some lane active all active lanes agree on every uniform exit of the loop. Which
//! exit `skip` takes does not matter: no lane is active on it, and the blocks deferred
//! past the loop are carried along every exit edge of a uniform branch (Fig. 5, line 10).

use std::collections::HashMap;

use lanes_analysis::{AnalysisSet, Edits, FunctionAnalyses};
use lanes_ir::cursor::phis;
use lanes_ir::{Block, FuncBuilder, FuncCursor, Function, Inst, InstData, Intrinsic, Type, Value};

use crate::block_index::BlockIndex;
use crate::cfg_edit::{phi_result, zero_value};
use crate::divergent_loops::TransformedLoop;
use crate::predicates::Predicates;

/// Inserts the guards; returns the guarded preheaders (ending in the new uniform branch).
/// Works on the loops of `analyses`, and keeps them up to date.
pub(crate) fn insert_loop_guards(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    divergent: &dyn Fn(Block) -> bool,
    transformed: &[TransformedLoop],
) -> Vec<Block> {
    analyses.compute(func, AnalysisSet::LOOPS);
    let a = &*analyses;
    // Materializing a predicate adds instructions.
    let mut edits = Edits::Nothing;
    let index = BlockIndex::compute(a.cfg(), a.loops());
    let div = |b: Block| divergent(b) && !transformed.iter().any(|t| t.pure_latch == b);
    let mut preds = Predicates::compute(a.cfg(), a.loops(), &index, &div, transformed);
    // (header, preheader, its jump to the header, exit, predicate of the preheader)
    let mut todo: Vec<(Block, Block, Inst, Block, Value)> = Vec::new();
    for l in a.loops().loops() {
        let h = a.loops().header(l);
        if transformed.iter().any(|t| t.header == h) || preds.is_uniform(h) {
            continue;
        }
        let outside: Vec<Block> = a
            .cfg()
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| !a.loops().contains(l, p))
            .collect();
        let [ph] = outside[..] else { continue };
        let Some(&x) = a.loops().exit_blocks(l).first() else {
            continue;
        };
        let Some(jump) = func
            .terminator(ph)
            .filter(|&t| matches!(func.dfg.inst(t), InstData::Jump { dest } if *dest == h))
        else {
            continue;
        };
        // Predicates are placed before terminators, never in place of one: `jump` stays.
        edits = Edits::Values;
        if let Some(p) = preds.block_pred(func, ph) {
            todo.push((h, ph, jump, x, p));
        }
    }
    let mut guards = Vec::new();
    let mut zeros = HashMap::new();
    for (h, ph, jump, x, p) in todo {
        let mut cur = FuncCursor::new(func);
        let any = cur.goto_before_terminator(ph).insert_value(
            InstData::Intrinsic {
                id: Intrinsic::Any,
                args: vec![p],
            },
            Type::I1,
        );
        let skip = cur.create_block_after(ph);
        cur.goto_inst(jump).remove_inst();
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(ph);
        b.brif(any, h, skip);
        b.switch_to_block(skip);
        b.jump(x);
        for phi in phis(func, x) {
            let ty = func.dfg.value_type(phi_result(func, phi));
            let z = zero_value(func, ty, &mut zeros);
            if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
                incoming.push((skip, z));
            }
        }
        guards.push(ph);
        edits = Edits::ControlFlow;
    }
    analyses.keep_after(edits);
    guards
}
