//! Golden filetests: every `.lir` file under `filetests/` is parsed and, for each of its
//! functions, every analysis is printed and compared with the file's `; expect:` section
//! (`LANES_BLESS=1` rewrites the sections; review the diff).
//!
//! The printed form, per function:
//!
//! ```text
//! function @name
//! rpo: block0 block1 …            (reverse postorder from the entry)
//! unreachable: …                  (layout blocks not reachable from the entry)
//! virtual exit preds: …           (exit blocks and infinite-loop roots)
//! infinite-loop roots: …
//! blockN: idom …, ipdom …, cdep …, pdf …[, ir …]   (ir: influence region of a branch)
//! loopK: header …, depth …, parent …, latches …, blocks …, exiting …, exits …
//! irreducible: entries …, blocks …, parent …
//! live blockN: in …, out …
//! ```
//!
//! `-` stands for "none" (no immediate dominator, the virtual exit as ipdom, an empty set).

use std::fmt::{self, Display, Write as _};
use std::path::Path;

use lanes_analysis::{
    ControlDependence, ControlFlowGraph, DominatorTree, Liveness, LoopForest, PostDominatorTree,
};
use lanes_ir::filetest::{run_golden, FileTest};
use lanes_ir::{Function, Module};

/// A space-separated list, `-` if empty.
struct List<T>(Vec<T>);

impl<T: Display> Display for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("-");
        }
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

fn list<T: Clone>(xs: impl IntoIterator<Item = T>) -> List<T> {
    List(xs.into_iter().collect())
}

fn opt<T: Display>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_string(), |x| x.to_string())
}

fn describe(out: &mut String, func: &Function) -> fmt::Result {
    let cfg = ControlFlowGraph::with_function(func);
    let dt = DominatorTree::with_function(func, &cfg);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let cd = ControlDependence::with_cfg(&cfg, &pdt);
    let forest = LoopForest::with_cfg(&cfg, &dt);
    let live = Liveness::with_function(func, &cfg);

    writeln!(out, "function @{}", func.name)?;
    writeln!(out, "rpo: {}", list(cfg.rpo().iter().copied()))?;
    writeln!(out, "unreachable: {}", list(cfg.unreachable_blocks()))?;
    writeln!(
        out,
        "virtual exit preds: {}",
        list(pdt.virtual_exit_preds().iter().copied())
    )?;
    writeln!(
        out,
        "infinite-loop roots: {}",
        list(pdt.infinite_loop_roots().iter().copied())
    )?;
    for &b in cfg.blocks() {
        write!(
            out,
            "{b}: idom {}, ipdom {}, cdep {}, pdf {}",
            opt(dt.idom(b)),
            opt(pdt.ipdom(b)),
            list(cd.cdep(b).iter().copied()),
            list(cd.post_dominance_frontier(b).iter().copied()),
        )?;
        if cfg.succs(b).len() > 1 {
            write!(out, ", ir {}", list(pdt.influence_region(&cfg, b)))?;
        }
        writeln!(out)?;
    }
    for l in forest.loops() {
        let d = forest.data(l);
        writeln!(
            out,
            "{l}: header {}, depth {}, parent {}, latches {}, blocks {}, exiting {}, exits {}",
            d.header,
            d.depth,
            opt(d.parent),
            list(d.latches.iter().copied()),
            list(forest.blocks(l).iter().copied()),
            list(d.exiting.iter().copied()),
            list(d.exits.iter().copied()),
        )?;
    }
    for r in forest.irreducible_regions() {
        writeln!(
            out,
            "irreducible: entries {}, blocks {}, parent {}",
            list(r.entries.iter().copied()),
            list(r.blocks.iter().copied()),
            opt(r.parent),
        )?;
    }
    for &b in cfg.blocks() {
        writeln!(
            out,
            "live {b}: in {}, out {}",
            list(live.live_in(b).iter().copied()),
            list(live.live_out(b).iter().copied()),
        )?;
    }
    Ok(())
}

fn produce(test: &FileTest) -> Result<String, String> {
    let module: Module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
    lanes_ir::verifier::verify_module(&module).map_err(|e| format!("does not verify: {e}"))?;
    let mut out = String::new();
    for (i, (_, func)) in module.functions().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        describe(&mut out, func).map_err(|e| e.to_string())?;
    }
    if out.is_empty() {
        return Err("no function in the file".to_string());
    }
    Ok(out)
}

#[test]
fn analysis_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    run_golden(&dir, produce).assert_ok();
}
