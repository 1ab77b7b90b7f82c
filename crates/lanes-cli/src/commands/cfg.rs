//! `lanes cfg`: a function's CFG as Graphviz DOT, annotated with the analyses every later
//! transformation rests on.
//!
//! Each block node shows its immediate dominator and post-dominator (`exit` is the virtual
//! exit of the post-dominator tree), its loop depth and the CFG edges it is control
//! dependent on (PLDI'18 §2.1). Loops are nested clusters labelled with header, latches and
//! exits; back edges are blue, loop-exit edges red, blocks of irreducible regions have a red
//! border, unreachable blocks are grey. `--dom-tree` and `--postdom-tree` overlay the trees
//! as dashed edges.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use lanes_analysis::{AnalysisSet, FunctionAnalyses, Loop};
use lanes_ir::{Block, Function, InstData, Module};

use crate::input::{read_verified_module, select_function};

/// Print the CFG as Graphviz DOT with dominator, post-dominator and loop information
#[derive(Args, Debug)]
pub struct CfgArgs {
    /// The .lir file (`-` for standard input)
    pub file: PathBuf,
    /// The function (default: the only one in the file)
    #[arg(short, long)]
    pub function: Option<String>,
    /// Write the DOT text to this file instead of standard output
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Show each block's instructions
    #[arg(long)]
    pub insts: bool,
    /// Overlay the dominator tree (dashed green edges)
    #[arg(long)]
    pub dom_tree: bool,
    /// Overlay the post-dominator tree (dashed purple edges)
    #[arg(long)]
    pub postdom_tree: bool,
}

pub fn run(args: &CfgArgs) -> Result<()> {
    let module = read_verified_module(&args.file)?;
    let id = select_function(&module, args.function.as_deref(), &args.file)?;
    let func = module
        .function(id)
        .context("selected function has no body")?;
    let dot = to_dot(&module, func, args);
    match &args.output {
        Some(path) => {
            std::fs::write(path, dot).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => print!("{dot}"),
    }
    Ok(())
}

/// Escapes text for a DOT string, using `\l` (left-justified) line breaks.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\l"),
            c => out.push(c),
        }
    }
    out
}

fn or_exit(b: Option<Block>) -> String {
    b.map_or_else(|| "exit".to_string(), |b| b.to_string())
}

fn to_dot(module: &Module, func: &Function, args: &CfgArgs) -> String {
    let a = FunctionAnalyses::with_function(func, AnalysisSet::ALL);

    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&func.name));
    let _ = writeln!(
        out,
        "  graph [label=\"@{}: idom / ipdom (exit = virtual exit), loop depth, control dependences\", labelloc=t, fontname=\"monospace\"];",
        escape(&func.name)
    );
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=9];\n");

    // Blocks outside every loop, then each top-level loop as a nested cluster.
    for block in func.layout.blocks() {
        if a.loops().innermost_loop(block).is_none() {
            write_node(&mut out, module, func, &a, block, args.insts, 1);
        }
    }
    let top: Vec<Loop> = a.loops().top_level_loops().collect();
    for l in top {
        write_loop_cluster(&mut out, module, func, &a, l, args.insts, 1);
    }
    if a.post_domtree().roots().next().is_some() && args.postdom_tree {
        out.push_str("  exit [label=\"virtual exit\", shape=doublecircle];\n");
    }
    write_edges(&mut out, func, &a);
    if args.dom_tree {
        for (parent, child) in a.domtree().idom_edges() {
            let _ = writeln!(
                out,
                "  {parent} -> {child} [style=dashed, color=darkgreen, constraint=false, arrowhead=empty];"
            );
        }
    }
    if args.postdom_tree {
        for (parent, child) in a.post_domtree().ipdom_edges() {
            let _ = writeln!(
                out,
                "  {parent} -> {child} [style=dashed, color=purple, constraint=false, arrowhead=empty];"
            );
        }
        for root in a.post_domtree().roots() {
            let _ = writeln!(
                out,
                "  exit -> {root} [style=dashed, color=purple, constraint=false, arrowhead=empty];"
            );
        }
    }
    out.push_str("}\n");
    out
}

fn write_loop_cluster(
    out: &mut String,
    module: &Module,
    func: &Function,
    a: &FunctionAnalyses,
    l: Loop,
    insts: bool,
    depth: usize,
) {
    let pad = "  ".repeat(depth);
    let list = |bs: &[Block]| {
        bs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(out, "{pad}subgraph cluster_{l} {{");
    let _ = writeln!(
        out,
        "{pad}  label=\"{l}: header {}, latches {}, exits {}\"; style=rounded; color=blue;",
        a.loops().header(l),
        list(a.loops().latches(l)),
        list(a.loops().exit_blocks(l))
    );
    for &block in a.loops().blocks(l) {
        if a.loops().innermost_loop(block) == Some(l) {
            write_node(out, module, func, a, block, insts, depth + 1);
        }
    }
    for &child in a.loops().children(l) {
        write_loop_cluster(out, module, func, a, child, insts, depth + 1);
    }
    let _ = writeln!(out, "{pad}}}");
}

fn write_node(
    out: &mut String,
    module: &Module,
    func: &Function,
    a: &FunctionAnalyses,
    block: Block,
    insts: bool,
    depth: usize,
) {
    let pad = "  ".repeat(depth);
    let mut label = block.to_string();
    if a.loops().loop_of_header(block).is_some() {
        label.push_str(" (loop header)");
    }
    label.push('\n');
    if !a.cfg().is_reachable(block) {
        label.push_str("unreachable\n");
    } else {
        let _ = writeln!(
            label,
            "idom {}  ipdom {}  depth {}",
            a.domtree()
                .idom(block)
                .map_or_else(|| "-".to_string(), |b| b.to_string()),
            or_exit(a.post_domtree().ipdom(block)),
            a.loops().loop_depth(block)
        );
        let deps: Vec<String> = a
            .control_dependence()
            .cdep(block)
            .iter()
            .map(|e| format!("{}->{}", e.from, e.to))
            .collect();
        if !deps.is_empty() {
            let _ = writeln!(label, "cdep {}", deps.join(" "));
        }
    }
    if insts {
        for &inst in func.layout.block_insts(block) {
            let _ = writeln!(
                label,
                "  {}",
                lanes_ir::write::inst_to_string(module, func, inst)
            );
        }
    }
    let irreducible = a
        .loops()
        .irreducible_regions()
        .iter()
        .any(|r| r.blocks.contains(&block));
    let mut attrs = format!("label=\"{}\"", escape(&label));
    if !a.cfg().is_reachable(block) {
        attrs.push_str(", style=filled, fillcolor=lightgrey");
    } else if irreducible {
        attrs.push_str(", color=red, penwidth=2");
    }
    let _ = writeln!(out, "{pad}{block} [{attrs}];");
}

fn write_edges(out: &mut String, func: &Function, a: &FunctionAnalyses) {
    for block in func.layout.blocks() {
        let Some(term) = func.terminator(block) else {
            continue;
        };
        let labelled: Vec<(Block, String)> = match func.inst(term) {
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                vec![(*then_dest, "T".to_string()), (*else_dest, "F".to_string())]
            }
            InstData::Switch { cases, default, .. } => cases
                .iter()
                .map(|(k, b)| (*b, k.to_string()))
                .chain(std::iter::once((*default, "default".to_string())))
                .collect(),
            data => data
                .branch_targets()
                .into_iter()
                .map(|b| (b, String::new()))
                .collect(),
        };
        for (to, label) in labelled {
            let mut attrs = Vec::new();
            if !label.is_empty() {
                attrs.push(format!("label=\"{}\"", escape(&label)));
            }
            if a.loops().is_back_edge(block, to) {
                attrs.push("color=blue, penwidth=2".to_string());
            } else if a
                .loops()
                .innermost_loop(block)
                .is_some_and(|l| !a.loops().contains(l, to))
            {
                attrs.push("color=red".to_string());
            }
            let attrs = if attrs.is_empty() {
                String::new()
            } else {
                format!(" [{}]", attrs.join(", "))
            };
            let _ = writeln!(out, "  {block} -> {to}{attrs};");
        }
    }
}
