//! The text form of Predicated SSA, after the paper's figures (PLDI'22 Fig. 5, 10):
//!
//! ```text
//! pssa @search(v0: ptr, v1: i32) {
//!     v2: i32 = iconst 0                              : true
//!     loop L0                                         : true
//!         with v3: i32 = mu(v2, v7)
//!         v5: i1 = icmp eq v4, v1                     : true
//!     while (!v5 & v8)
//!     v9: i32 = phi [v3 : v5], [v10 : !v5]            : true
//!     ret v9                                          : true
//! }
//! ```
//!
//! Instructions are written as lanes IR writes them; a μ-node is `mu(init, rec)` and a
//! gated φ lists `[value : gate]` pairs.

use std::fmt::{self, Write};

use lanes_ir::write::write_inst;
use lanes_ir::Module;

use crate::pssa::{Item, LoopId, Pssa};

/// Column at which an item's predicate is written.
const PRED_COLUMN: usize = 48;

/// Writes `pssa` (of a function of `module`, for callee names).
pub fn write_pssa(w: &mut dyn Write, module: &Module, pssa: &Pssa) -> fmt::Result {
    let f = &pssa.func;
    write!(w, "pssa @{}(", f.name)?;
    for (i, v) in f.param_values().enumerate() {
        if i > 0 {
            write!(w, ", ")?;
        }
        write!(w, "{v}: {}", f.dfg.value_type(v))?;
    }
    writeln!(w, ") {{")?;
    write_items(w, module, pssa, &pssa.items, 1)?;
    writeln!(w, "}}")
}

/// The text of `pssa`.
pub fn pssa_to_string(module: &Module, pssa: &Pssa) -> String {
    let mut s = String::new();
    write_pssa(&mut s, module, pssa).expect("writing to a String cannot fail");
    s
}

fn write_items(
    w: &mut dyn Write,
    module: &Module,
    pssa: &Pssa,
    items: &[Item],
    depth: usize,
) -> fmt::Result {
    let indent = "    ".repeat(depth);
    for &item in items {
        let mut line = String::new();
        match item {
            Item::Inst(inst) => match pssa.gates.get(&inst) {
                Some(gates) => {
                    let v = pssa.func.dfg.inst_result(inst).expect("a φ has a result");
                    write!(line, "{v}: {} = phi", pssa.func.dfg.value_type(v))?;
                    for (i, &(g, x)) in gates.iter().enumerate() {
                        let sep = if i == 0 { " " } else { ", " };
                        write!(line, "{sep}[{x} : {}]", pssa.preds.display(g))?;
                    }
                }
                None => write_inst(&mut line, module, &pssa.func, inst)?,
            },
            Item::Loop(l) => write!(line, "loop {l}")?,
        }
        let pred = pssa.preds.display(pssa.pred_of(item)).to_string();
        let pad = PRED_COLUMN
            .saturating_sub(indent.len() + line.chars().count())
            .max(1);
        writeln!(w, "{indent}{line}{:pad$}: {pred}", "")?;
        if let Item::Loop(l) = item {
            write_loop_body(w, module, pssa, l, depth)?;
        }
    }
    Ok(())
}

fn write_loop_body(
    w: &mut dyn Write,
    module: &Module,
    pssa: &Pssa,
    l: LoopId,
    depth: usize,
) -> fmt::Result {
    let indent = "    ".repeat(depth + 1);
    let data = &pssa.loops[l];
    for m in &data.mus {
        let ty = pssa.func.dfg.value_type(m.value);
        writeln!(
            w,
            "{indent}with {}: {ty} = mu({}, {})",
            m.value, m.init, m.rec
        )?;
    }
    write_items(w, module, pssa, &data.items, depth + 1)?;
    writeln!(
        w,
        "{}while {}",
        "    ".repeat(depth),
        pssa.preds.display(data.cont)
    )
}
