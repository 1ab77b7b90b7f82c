//! The SuperVectorization pass (PLDI'22 Fig. 3): a function into Predicated SSA, packs
//! found and turned into vector items list by list, and the result lowered back to a
//! CFG.

use lanes_ir::{Function, Inst};

use crate::codegen::emit_packs;
use crate::coiterate::{merge_loops, Merge};
use crate::cost::{CostModel, RegisterCost};
use crate::packing::{pack_list, Node, Rejection};
use crate::pssa::LoopId;
use crate::unroll::{is_counted, unroll_with_copies};
use crate::{lower, to_pssa, verify_pssa, SlpError};

/// How to vectorize.
#[derive(Copy, Clone, Debug)]
pub struct SlpOptions {
    /// Bits of the target's vector registers (256 for AVX2, 512 for AVX-512).
    pub register_bits: u32,
}

impl Default for SlpOptions {
    fn default() -> Self {
        SlpOptions { register_bits: 256 }
    }
}

/// What the pass did to one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlpReport {
    /// Trees of packs kept (one per seed).
    pub trees: usize,
    /// Packs (vector instructions from scalar ones) and the scalar instructions they hold.
    pub packs: usize,
    pub packed_insts: usize,
    /// Packs whose lanes ran under different predicates (masked, speculated or blended).
    pub cross_predicate_packs: usize,
    /// Packs of μ-nodes: vector μ-nodes (loop-carried vectors, Fig. 11).
    pub mu_packs: usize,
    /// Seeds not kept: the first store's source line (0 unknown) and why.
    pub rejected: Vec<(u32, Rejection)>,
    /// Loops unrolled because packing their copies pays: unroll factor of each.
    pub unrolled: Vec<u32>,
    /// Groups of loop copies (of a loop inside an unrolled one) fused, and co-iterated.
    pub fused: usize,
    pub coiterated: usize,
}

impl std::ops::AddAssign<&SlpReport> for SlpReport {
    fn add_assign(&mut self, o: &SlpReport) {
        self.trees += o.trees;
        self.packs += o.packs;
        self.packed_insts += o.packed_insts;
        self.cross_predicate_packs += o.cross_predicate_packs;
        self.mu_packs += o.mu_packs;
        self.rejected.extend(o.rejected.iter().cloned());
        self.unrolled.extend(o.unrolled.iter().copied());
        self.fused += o.fused;
        self.coiterated += o.coiterated;
    }
}

/// `func` SLP-vectorized across its blocks (within each loop level).
pub fn supervectorize(
    func: &Function,
    opts: &SlpOptions,
) -> Result<(Function, SlpReport), SlpError> {
    let cost = RegisterCost {
        register_bits: opts.register_bits,
    };
    supervectorize_with(func, &cost)
}

/// [`supervectorize`] with cost model `cost`.
pub fn supervectorize_with(
    func: &Function,
    cost: &dyn CostModel,
) -> Result<(Function, SlpReport), SlpError> {
    let (pssa, report) = supervectorize_pssa(func, cost)?;
    Ok((lower(&pssa), report))
}

/// The packed Predicated SSA [`supervectorize_with`] lowers (verified): what the
/// filetests show.
pub fn supervectorize_pssa(
    func: &Function,
    cost: &dyn CostModel,
) -> Result<(crate::Pssa, SlpReport), SlpError> {
    let mut pssa = to_pssa(func)?;
    let mut report = SlpReport::default();
    // Vectorization-aware unrolling: kept where the main loop's packs pay.
    let candidates: Vec<LoopId> = pssa.loops.keys().filter(|&l| !pssa.loops[l].dead).collect();
    for l in candidates {
        let Some(u) = unroll_factor(&pssa, l, cost) else {
            continue;
        };
        let mut trial = pssa.clone();
        let Some((main, copies)) = unroll_with_copies(&mut trial, l, u) else {
            continue;
        };
        // Reductions split into one accumulator per copy: a column of μ-nodes to pack.
        crate::reduction::split_reductions(&mut trial, main, u);
        // The copies of each loop inside merged (§3.3), so that packs span them: with
        // the unrolling, outer-loop vectorization.
        let mut lists = vec![Some(main)];
        let (mut fused, mut coiterated) = (0, 0);
        let mut unmerged = false;
        for group in copies {
            match merge_loops(&mut trial, &group) {
                Some((m, how)) => {
                    lists.push(Some(m));
                    match how {
                        Merge::Fused => fused += 1,
                        Merge::CoIterated => coiterated += 1,
                    }
                }
                None => unmerged = true,
            }
        }
        // Copies of an inner loop that cannot be merged run one after another: the
        // body grows by whole loops, for packs outside them that run once per `u` of
        // those loops.
        if unmerged {
            continue;
        }
        // What the copies compute alike, computed once: addresses they share.
        for x in lists.iter().flatten() {
            crate::cse::eliminate_common_subexpressions(&mut trial, *x);
        }
        let limit = crate::verify::MAX_UNROLLED_PREDICATE_TERMS;
        if crate::verify::check_predicate_sizes(&trial, limit).is_err() {
            continue;
        }
        let savings: Vec<i64> = lists
            .iter()
            .map(|&x| {
                pack_list(&trial, x, cost)
                    .trees
                    .iter()
                    .map(|t| t.saving)
                    .sum()
            })
            .collect();
        // Merged loops whose bodies stay scalar only cost: they carry every copy's
        // accumulators and address streams through each iteration (beyond the
        // registers, spilled), for packs after them that run once per loop. The
        // paper's model leaves such restructuring out (§4.3); this keeps it from paying
        // for it.
        let merged_pay = savings[1..].iter().sum::<i64>() > 0;
        if savings.iter().sum::<i64>() > 0 && (lists.len() == 1 || merged_pay) {
            pssa = trial;
            report.unrolled.push(u);
            report.fused += fused;
            report.coiterated += coiterated;
        }
    }
    // Inner lists first: a list reads the vectors of the loops nested in it (their
    // lanes extracted after them) as vectors.
    let mut lists: Vec<Option<LoopId>> = pssa
        .walk()
        .into_iter()
        .filter_map(|(_, item)| match item {
            crate::Item::Loop(l) => Some(Some(l)),
            crate::Item::Inst(_) => None,
        })
        .collect();
    lists.reverse();
    lists.push(None);
    for l in lists {
        let packing = pack_list(&pssa, l, cost);
        for t in &packing.trees {
            report.trees += 1;
            for n in &t.nodes {
                let insts = n.insts();
                if insts.is_empty() {
                    continue;
                }
                report.packs += 1;
                report.packed_insts += insts.len();
                if matches!(n, Node::Mu { .. }) {
                    report.mu_packs += 1;
                }
                if differ(&pssa, insts, n) {
                    report.cross_predicate_packs += 1;
                }
            }
        }
        for (inst, why) in &packing.rejected {
            report
                .rejected
                .push((pssa.func.source_lines[*inst], why.clone()));
        }
        emit_packs(&mut pssa, l, &packing.trees);
    }
    remove_dead_code(&mut pssa);
    verify_pssa(&pssa)?;
    crate::verify::check_predicate_sizes(&pssa, crate::verify::MAX_PREDICATE_TERMS)?;
    Ok((pssa, report))
}

/// Removes items nothing reads that have no effect and read no memory (the scalar
/// address arithmetic and extractions packing made useless), until none is left.
fn remove_dead_code(pssa: &mut crate::Pssa) {
    loop {
        let mut read: std::collections::HashSet<lanes_ir::Value> = Default::default();
        pssa.for_each_read(|_, v| {
            read.insert(v);
        });
        let f = &pssa.func;
        let dead = |item: &crate::Item| match *item {
            crate::Item::Inst(i) => {
                let d = f.dfg.inst(i);
                f.dfg.inst_result(i).is_some_and(|v| !read.contains(&v))
                    && !d.has_side_effects()
                    && !d.reads_memory()
                    && !d.is_terminator()
            }
            crate::Item::Loop(_) => false,
        };
        let before = pssa.walk().len();
        pssa.items.retain(|i| !dead(i));
        for l in pssa.loops.values_mut() {
            l.items.retain(|i| !dead(i));
        }
        if pssa.walk().len() == before {
            return;
        }
    }
}

/// How far to unroll counted loop `l`: as many lanes as a register holds of the widest
/// element it stores, in it or in loops inside it (`None`: not a counted loop, or it
/// stores nothing to pack).
fn unroll_factor(pssa: &crate::Pssa, l: LoopId, cost: &dyn CostModel) -> Option<u32> {
    if !is_counted(pssa, l) {
        return None;
    }
    let f = &pssa.func;
    let mut lanes: Option<u32> = None;
    let mut stack = vec![l];
    while let Some(x) = stack.pop() {
        for &it in &pssa.loops[x].items {
            match it {
                crate::Item::Inst(i) => {
                    if let lanes_ir::InstData::Store { value, .. } = *f.dfg.inst(i) {
                        let ty = f.dfg.value_type(value);
                        if !ty.is_vector() {
                            let n = cost.max_lanes(ty) as u32;
                            lanes = Some(lanes.map_or(n, |m| m.min(n)));
                        }
                    }
                }
                crate::Item::Loop(inner) => stack.push(inner),
            }
        }
    }
    // A loop that stores nothing may still fold values into accumulators.
    lanes.or_else(|| {
        let c = crate::unroll::counted(pssa, l)?;
        pssa.loops[l]
            .mus
            .iter()
            .enumerate()
            .filter(|&(k, m)| {
                let ty = f.dfg.value_type(m.value);
                k != c.iv && (ty.is_int() || ty.is_float())
            })
            .map(|(_, m)| cost.max_lanes(f.dfg.value_type(m.value)) as u32)
            .min()
    })
}

/// Do the lanes of node `n` run under different predicates (or gates)?
fn differ(pssa: &crate::Pssa, insts: &[Inst], n: &Node) -> bool {
    let p0 = pssa.inst_pred[insts[0]];
    insts.iter().any(|&i| pssa.inst_pred[i] != p0)
        || matches!(n, Node::Phi { .. })
            && insts.iter().any(|i| {
                pssa.gates[i]
                    .iter()
                    .map(|g| g.0)
                    .ne(pssa.gates[&insts[0]].iter().map(|g| g.0))
            })
}
