//! Printing the shape analysis: a text report (also the golden filetest format) and JSON.
//!
//! The text form, per function:
//!
//! ```text
//! function @name
//! args: v0 uniform, v1 contiguous a16
//! branch block1: uniform (v10 uniform)
//! branch block2: divergent (v14 varying), reconverges at block4
//! join block4: by block2
//! loop0 header block1: divergent; exit block1 -> block4 uniform, block2 -> block4 divergent
//! v9: uniform, temporally divergent outside its loop
//! ```
//!
//! Values are listed in definition order (parameters first); `temporally divergent` marks
//! values that are varying at some of their uses.

use core::fmt::Write as _;

use lanes_ir::{Block, Function, InstData, Value};

use super::{ShapeInfo, VShape};

/// One branch of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchLine {
    pub block: Block,
    pub condition: Value,
    pub cond_shape: VShape,
    pub divergent: bool,
    pub ipdom: Option<Block>,
}

/// The conditional branches (brif, switch) of reachable blocks, in RPO.
pub fn branches(func: &Function, info: &ShapeInfo) -> Vec<BranchLine> {
    let mut out = Vec::new();
    for &b in info.cfg().rpo() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let cond = match func.dfg.inst(t) {
            InstData::Brif { cond, .. } => *cond,
            InstData::Switch { arg, .. } => *arg,
            _ => continue,
        };
        out.push(BranchLine {
            block: b,
            condition: cond,
            cond_shape: info.use_shape(func, cond, t),
            divergent: info.is_divergent_branch(b),
            ipdom: info.pdt().ipdom(b),
        });
    }
    out
}

/// Values in order: parameters, then instruction results in RPO.
pub fn values(func: &Function, info: &ShapeInfo) -> Vec<Value> {
    let mut out: Vec<Value> = func.param_values().collect();
    for &b in info.cfg().rpo() {
        for &i in func.layout.block_insts(b) {
            out.extend(func.dfg.inst_result(i));
        }
    }
    out
}

fn list(blocks: &[Block]) -> String {
    let v: Vec<String> = blocks.iter().map(|b| b.to_string()).collect();
    v.join(" ")
}

/// The text report.
pub fn text(func: &Function, info: &ShapeInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "function @{}", func.name);
    let args: Vec<String> = func
        .param_values()
        .map(|v| format!("{v} {}", info.shape(v)))
        .collect();
    let _ = writeln!(
        s,
        "args: {}",
        if args.is_empty() {
            "-".into()
        } else {
            args.join(", ")
        }
    );
    for br in branches(func, info) {
        let kind = if br.divergent { "divergent" } else { "uniform" };
        let _ = write!(
            s,
            "branch {}: {kind} ({} {})",
            br.block, br.condition, br.cond_shape
        );
        if br.divergent {
            match br.ipdom {
                Some(p) => {
                    let _ = write!(s, ", reconverges at {p}");
                }
                None => s.push_str(", reconverges at exit"),
            }
        }
        s.push('\n');
    }
    for &b in info.cfg().rpo() {
        if info.is_join_divergent(b) {
            let _ = writeln!(s, "join {b}: by {}", list(info.join_causes(b)));
        }
    }
    for l in info.loops().loops() {
        let kind = if info.is_divergent_loop(l) {
            "divergent"
        } else {
            "uniform"
        };
        let _ = write!(s, "{l} header {}: {kind}", info.loops().header(l));
        let mut exits = Vec::new();
        for &x in info.loops().exiting_blocks(l) {
            for &e in info.cfg().succs(x) {
                if !info.loops().contains(l, e) {
                    let k = if info.is_divergent_exit(l, x) {
                        "divergent"
                    } else {
                        "uniform"
                    };
                    let item = format!("{x} -> {e} {k}");
                    if !exits.contains(&item) {
                        exits.push(item);
                    }
                }
            }
        }
        if !exits.is_empty() {
            let _ = write!(s, "; exit {}", exits.join(", "));
        }
        s.push('\n');
    }
    for v in values(func, info) {
        let _ = write!(s, "{v}: {}", info.shape(v));
        if info.is_temporally_divergent(v) {
            s.push_str(", temporally divergent");
        }
        s.push('\n');
    }
    s
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON object with the same facts as [`text`].
pub fn json(func: &Function, info: &ShapeInfo) -> String {
    let mut s = String::new();
    let _ = write!(s, "{{\"function\":{},\"branches\":[", json_str(&func.name));
    for (i, br) in branches(func, info).iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"block\":\"{}\",\"condition\":\"{}\",\"condition_shape\":{},\"divergent\":{},\"reconverges_at\":{}}}",
            br.block,
            br.condition,
            json_str(&br.cond_shape.to_string()),
            br.divergent,
            br.ipdom.map_or("null".to_string(), |p| format!("\"{p}\""))
        );
    }
    s.push_str("],\"joins\":[");
    let joins: Vec<String> = info
        .cfg()
        .rpo()
        .iter()
        .filter(|&&b| info.is_join_divergent(b))
        .map(|&b| {
            let causes: Vec<String> = info
                .join_causes(b)
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect();
            format!("{{\"block\":\"{b}\",\"causes\":[{}]}}", causes.join(","))
        })
        .collect();
    s.push_str(&joins.join(","));
    s.push_str("],\"loops\":[");
    let loops: Vec<String> = info
        .loops()
        .loops()
        .map(|l| {
            format!(
                "{{\"loop\":\"{l}\",\"header\":\"{}\",\"divergent\":{}}}",
                info.loops().header(l),
                info.is_divergent_loop(l)
            )
        })
        .collect();
    s.push_str(&loops.join(","));
    s.push_str("],\"values\":[");
    let vals: Vec<String> = values(func, info)
        .into_iter()
        .map(|v| {
            format!(
                "{{\"value\":\"{v}\",\"shape\":{},\"temporally_divergent\":{}}}",
                json_str(&info.shape(v).to_string()),
                info.is_temporally_divergent(v)
            )
        })
        .collect();
    s.push_str(&vals.join(","));
    s.push_str("]}");
    s
}
