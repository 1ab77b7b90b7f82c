//! PLDI'18 Table 1 for the vector functions a run made (`lanes vectorize --stats`,
//! `--stats-json`): branches (divergent, uniform ones folded by linearization — "lost" —
//! and preserved), loops and loop exits (uniform, divergent), the BOSCC gadgets and fused
//! instructions PLDI'18 §6.1 and PACT'11 §IV-A add, the predicates of loads and stores
//! (constant true, uniform, varying), and their addresses (uniform, contiguous, strided,
//! gather/scatter). The counts come from the functions as linearization left them, before
//! widening: the paper's columns.

use std::fmt::Write as _;

use lanes_wfv::{AddressKind, MaskKind, VariantStats};
use serde::Serialize;

/// Three counts under the paper's headings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BranchCounts {
    pub divergent: usize,
    pub lost: usize,
    pub preserved: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UniformDivergent {
    pub uniform: usize,
    pub divergent: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MaskCounts {
    #[serde(rename = "true")]
    pub always: usize,
    pub uniform: usize,
    pub varying: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AddressCounts {
    pub uniform: usize,
    pub contiguous: usize,
    pub strided: usize,
    pub gather_scatter: usize,
}

/// One row of Table 1 (one vector function), as `--stats-json` writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table1Row {
    pub function: String,
    pub width: u16,
    pub branches: BranchCounts,
    pub loops: UniformDivergent,
    pub loop_exits: UniformDivergent,
    pub boscc_gadgets: usize,
    pub fused_instructions: usize,
    pub load_store_masks: MaskCounts,
    pub loads: AddressCounts,
    pub stores: AddressCounts,
}

fn addresses(s: &VariantStats, store: bool) -> AddressCounts {
    let n = |a| s.memory.with_address(store, a);
    AddressCounts {
        uniform: n(AddressKind::Uniform),
        contiguous: n(AddressKind::Contiguous),
        strided: n(AddressKind::Strided),
        gather_scatter: n(AddressKind::Scattered),
    }
}

impl Table1Row {
    pub fn of(s: &VariantStats) -> Table1Row {
        Table1Row {
            function: s.function.clone(),
            width: s.width,
            branches: BranchCounts {
                divergent: s.branches.divergent,
                lost: s.branches.lost,
                preserved: s.branches.preserved(),
            },
            loops: UniformDivergent {
                uniform: s.loops.uniform,
                divergent: s.loops.divergent,
            },
            loop_exits: UniformDivergent {
                uniform: s.loops.uniform_exits,
                divergent: s.loops.divergent_exits,
            },
            boscc_gadgets: s.boscc,
            fused_instructions: s.fused,
            load_store_masks: MaskCounts {
                always: s.memory.with_mask(MaskKind::True),
                uniform: s.memory.with_mask(MaskKind::Uniform),
                varying: s.memory.with_mask(MaskKind::Varying),
            },
            loads: addresses(s, false),
            stores: addresses(s, true),
        }
    }
}

/// The rows of `stats`, in the order the functions were made.
pub fn table1_rows(stats: &[VariantStats]) -> Vec<Table1Row> {
    stats.iter().map(Table1Row::of).collect()
}

/// The table as text: a header of column groups, one line per function.
pub fn table1_text(stats: &[VariantStats]) -> String {
    let rows = table1_rows(stats);
    let name_w = rows
        .iter()
        .map(|r| r.function.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<name_w$} {:>3} | {:^14} | {:^7} | {:^7} | {:>5} {:>5} | {:^14} | {:^19} | {:^19}",
        "", "", "Branch", "Loop", "Exit", "", "", "L/S masks", "Loads", "Stores"
    );
    let _ = writeln!(
        out,
        "{:<name_w$} {:>3} | {:>4} {:>4} {:>4} | {:>3} {:>3} | {:>3} {:>3} | {:>5} {:>5} | {:>4} {:>4} {:>4} | {:>4} {:>4} {:>4} {:>4} | {:>4} {:>4} {:>4} {:>4}",
        "function", "W", "div", "lost", "pres", "uni", "div", "uni", "div", "boscc", "fused",
        "true", "uni", "var", "uni", "cont", "str", "g/s", "uni", "cont", "str", "g/s"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "{:<name_w$} {:>3} | {:>4} {:>4} {:>4} | {:>3} {:>3} | {:>3} {:>3} | {:>5} {:>5} | {:>4} {:>4} {:>4} | {:>4} {:>4} {:>4} {:>4} | {:>4} {:>4} {:>4} {:>4}",
            r.function,
            r.width,
            r.branches.divergent,
            r.branches.lost,
            r.branches.preserved,
            r.loops.uniform,
            r.loops.divergent,
            r.loop_exits.uniform,
            r.loop_exits.divergent,
            r.boscc_gadgets,
            r.fused_instructions,
            r.load_store_masks.always,
            r.load_store_masks.uniform,
            r.load_store_masks.varying,
            r.loads.uniform,
            r.loads.contiguous,
            r.loads.strided,
            r.loads.gather_scatter,
            r.stores.uniform,
            r.stores.contiguous,
            r.stores.strided,
            r.stores.gather_scatter,
        );
    }
    out
}
