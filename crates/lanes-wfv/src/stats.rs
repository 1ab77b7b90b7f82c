//! Branch statistics in the manner of PLDI'18 Table 1.
//!
//! Table 1 counts, per kernel, the branches, how many the divergence analysis proves
//! uniform, and how many uniform branches partial linearization *lost* (folded although
//! uniform). Theorem 4.5 promises none are lost for a dominance-compact index; full
//! if-conversion loses them all. A branch is a block with at least two distinct
//! successors; a kept uniform branch is lost when all its edges were retargeted to one
//! block (Fig. 8 top).

use core::fmt;
use core::ops::AddAssign;

use lanes_analysis::shapes::ShapeInfo;
use lanes_analysis::{AnalysisSet, FunctionAnalyses};
use lanes_ir::{Block, Function, InstData, Intrinsic, Value};

use crate::guards::Predication;

/// Branch counts of one linearized function (or a sum over many).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub branches: usize,
    pub uniform: usize,
    pub divergent: usize,
    /// Uniform branches whose targets all became one block.
    pub lost: usize,
    /// The blocks of the lost branches (only for one function).
    pub lost_blocks: Vec<Block>,
}

impl Stats {
    /// Uniform branches kept as branches.
    pub fn preserved(&self) -> usize {
        self.uniform - self.lost
    }
}

impl AddAssign<&Stats> for Stats {
    fn add_assign(&mut self, o: &Stats) {
        self.branches += o.branches;
        self.uniform += o.uniform;
        self.divergent += o.divergent;
        self.lost += o.lost;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "branches {} uniform {} divergent {} preserved {} lost {}",
            self.branches,
            self.uniform,
            self.divergent,
            self.preserved(),
            self.lost
        )
    }
}

/// Loops and loop exits of a function by divergence (Table 1 "Loop" and "Exit").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub uniform: usize,
    pub divergent: usize,
    pub uniform_exits: usize,
    pub divergent_exits: usize,
}

impl LoopStats {
    /// Counts the loops of the function `info` describes (exit edges counted once each).
    pub fn of(info: &ShapeInfo) -> LoopStats {
        let mut s = LoopStats::default();
        let loops = info.loops();
        for l in loops.loops() {
            if info.is_divergent_loop(l) {
                s.divergent += 1;
            } else {
                s.uniform += 1;
            }
            for &x in loops.exiting_blocks(l) {
                let mut seen: Vec<Block> = Vec::new();
                for &e in info.cfg().succs(x) {
                    if loops.contains(l, e) || seen.contains(&e) {
                        continue;
                    }
                    seen.push(e);
                    if info.is_divergent_exit(l, x) {
                        s.divergent_exits += 1;
                    } else {
                        s.uniform_exits += 1;
                    }
                }
            }
        }
        s
    }
}

/// The predicate of a load or store (Table 1 "L/S Masks"): constant true, a uniform
/// value, or one that differs between lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MaskKind {
    True,
    Uniform,
    Varying,
}

/// The address of a load or store across lanes: one address, consecutive elements, a
/// constant stride, or anything else (a gather or scatter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AddressKind {
    Uniform,
    Contiguous,
    Strided,
    Scattered,
}

impl MaskKind {
    pub const ALL: [MaskKind; 3] = [MaskKind::True, MaskKind::Uniform, MaskKind::Varying];
    pub fn name(self) -> &'static str {
        match self {
            MaskKind::True => "true",
            MaskKind::Uniform => "uniform",
            MaskKind::Varying => "varying",
        }
    }
}

impl AddressKind {
    pub const ALL: [AddressKind; 4] = [
        AddressKind::Uniform,
        AddressKind::Contiguous,
        AddressKind::Strided,
        AddressKind::Scattered,
    ];
    pub fn name(self) -> &'static str {
        match self {
            AddressKind::Uniform => "uniform",
            AddressKind::Contiguous => "contiguous",
            AddressKind::Strided => "strided",
            AddressKind::Scattered => "gather/scatter",
        }
    }
}

/// Loads and stores counted by mask and address kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// `(is_store, mask, address) → count`, in that order.
    pub counts: std::collections::BTreeMap<(bool, MaskKind, AddressKind), usize>,
}

impl MemoryStats {
    pub fn add(&mut self, store: bool, mask: MaskKind, address: AddressKind) {
        *self.counts.entry((store, mask, address)).or_default() += 1;
    }

    /// Loads and stores with `mask` (Table 1's L/S columns).
    pub fn with_mask(&self, mask: MaskKind) -> usize {
        self.counts
            .iter()
            .filter(|((_, m, _), _)| *m == mask)
            .map(|(_, n)| n)
            .sum()
    }

    /// Loads (`store` false) or stores with `address`.
    pub fn with_address(&self, store: bool, address: AddressKind) -> usize {
        self.counts
            .iter()
            .filter(|((s, _, a), _)| *s == store && *a == address)
            .map(|(_, n)| n)
            .sum()
    }
}

/// PLDI'18 Table 1 for one vector function lanes made (a variant, a masked body, a
/// callee's variant), with the columns BOSCC and branch fusion add.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariantStats {
    /// The vector function's name.
    pub function: String,
    pub width: u16,
    pub branches: Stats,
    pub loops: LoopStats,
    /// Branch-on-superword-condition-code gadgets (PLDI'18 §6.1).
    pub boscc: usize,
    /// Instruction pairs branch fusion (PACT'11 §IV-A) merged into one.
    pub fused: usize,
    pub memory: MemoryStats,
}

/// Counts the loads and stores of `func` (prepared: linearized, with `predication`) by
/// the predicate of their block and the shape of their address (`info`). A block's
/// predicate is varying where its lane mask is; otherwise it is constant true if the block
/// runs whenever the function does (it post-dominates the entry), else uniform (it sits
/// under a uniform branch that linearization kept).
pub fn memory_stats(func: &Function, predication: &Predication, info: &ShapeInfo) -> MemoryStats {
    let mut m = MemoryStats::default();
    let analyses = FunctionAnalyses::with_function(func, AnalysisSet::POST_DOMTREE);
    let entry = func.layout.entry_block();
    for b in func.layout.blocks() {
        let always = entry.is_some_and(|e| analyses.post_domtree().post_dominates(b, e));
        let mask = match predication.mask(b) {
            Some(p) if !info.shape(p).is_uniform() => MaskKind::Varying,
            _ if always => MaskKind::True,
            _ => MaskKind::Uniform,
        };
        for &i in func.layout.block_insts(b) {
            let access: Option<(bool, Value, Value)> = match func.dfg.inst(i) {
                InstData::Load { ptr, .. } => func.dfg.inst_result(i).map(|r| (false, *ptr, r)),
                InstData::Intrinsic {
                    id: Intrinsic::SpeculativeLoad,
                    args,
                } => func.dfg.inst_result(i).map(|r| (false, args[0], r)),
                InstData::Store { value, ptr, .. } => Some((true, *ptr, *value)),
                _ => None,
            };
            let Some((store, ptr, data)) = access else {
                continue;
            };
            let size = i64::from(func.dfg.value_type(data).bytes());
            let shape = info.shape(ptr);
            let address = if shape.is_uniform() {
                AddressKind::Uniform
            } else {
                match shape.stride() {
                    Some(s) if s == size => AddressKind::Contiguous,
                    Some(_) => AddressKind::Strided,
                    None => AddressKind::Scattered,
                }
            };
            m.add(store, mask, address);
        }
    }
    m
}
