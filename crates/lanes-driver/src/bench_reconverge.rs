//! `lanes bench reconverge`: how much control flow the reconverging transform
//! (lanes-wfv `reconverge`, the reconverging-CFG paper) adds, against partial
//! linearization (PLDI'18) and LLVM's structurization of the same functions ([`STRUCTURIZE`]:
//! `opt-19 -passes=lower-switch,fix-irreducible,unify-loop-exits,structurizecfg`, AMDGPU's
//! order) — the paper's claim is fewer inserted blocks than structurization with the
//! uniform branches kept.
//!
//! Every function of the inputs with a divergent branch is counted (all parameters
//! varying, so the instance-dependent data decides): its blocks and branches; per block
//! order, the flow blocks the transform inserts (over the rounds it takes until the
//! divergence analysis of its result agrees, as `lanes vectorize --linearize reconverge`
//! runs it) and the uniform branches that still end in a `brif` and are still uniform in
//! the result (or that the transform declined it); for partial linearization, the net
//! blocks it adds and the uniform branches it keeps; for structurization, the net blocks
//! it adds (LLVM's pass structurizes every region: with no GPU target there is no
//! uniformity information to skip by). Inputs are C files (imported as `lanes vectorize`
//! does, at -O2) and lanes IR files (the fixed set of generated functions in
//! `bench/reconverge/`, reducible and irreducible).

use std::path::{Path, PathBuf};
use std::process::Command;

use lanes_analysis::shapes::ShapeAnalysis;
use lanes_ir::{Block, Function, InstData, Module, Shape};
use lanes_llvm::clang::{ClangOptions, SourceKind};
use lanes_llvm::Context;
use lanes_wfv::reconverge::{reconverge_analysed, BlockOrder};
use lanes_wfv::{prepare, Mode, WfvError};
use serde::Serialize;

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReconvergeBenchError {
    #[error("{0}: {1}")]
    Input(PathBuf, String),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("opt-19: {0}")]
    Opt(String),
}

/// One order's result on one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OrderResult {
    pub order: &'static str,
    /// Flow blocks inserted; none where the transform declined the function.
    pub flow_blocks: Option<usize>,
    /// Uniform branches still ending in a `brif`.
    pub uniform_kept: Option<usize>,
}

/// One function's counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionCounts {
    pub source: String,
    pub function: String,
    pub blocks: usize,
    pub divergent_branches: usize,
    pub uniform_branches: usize,
    pub irreducible: bool,
    pub orders: Vec<OrderResult>,
    /// Net blocks partial linearization adds, and uniform branches it keeps (none where it
    /// declines, on irreducible control flow).
    pub partial_blocks_added: Option<i64>,
    pub partial_uniform_kept: Option<usize>,
    /// Net blocks structurization adds (none if opt-19 is missing or fails on it).
    pub structurize_blocks_added: Option<i64>,
}

/// Counts every function with a divergent branch in `inputs` (C or lanes IR files);
/// `work` holds opt-19's files. `progress(i, n, file)` before each input.
pub fn run_reconverge_bench(
    inputs: &[PathBuf],
    work: &Path,
    progress: &mut dyn FnMut(usize, usize, &Path),
) -> Result<Vec<FunctionCounts>, ReconvergeBenchError> {
    std::fs::create_dir_all(work).map_err(|e| ReconvergeBenchError::Io(work.to_path_buf(), e))?;
    let mut rows = Vec::new();
    for (i, path) in inputs.iter().enumerate() {
        progress(i, inputs.len(), path);
        let module = load(path)?;
        for (id, f) in module.functions() {
            let Some(counts) = count_function(&module, id, f, path) else {
                continue;
            };
            let added =
                structurize(&module, id, work)?.map(|(before, after)| after as i64 - before as i64);
            rows.push(FunctionCounts {
                structurize_blocks_added: added,
                ..counts
            });
        }
    }
    Ok(rows)
}

fn load(path: &Path) -> Result<Module, ReconvergeBenchError> {
    let bad = |m: String| ReconvergeBenchError::Input(path.to_path_buf(), m);
    if path.extension().is_some_and(|e| e == "lir") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ReconvergeBenchError::Io(path.to_path_buf(), e))?;
        return lanes_ir::parse_module(&text).map_err(|e| bad(e.to_string()));
    }
    let opts = ClangOptions {
        opt: Some("2".into()),
        includes: path.parent().map(Path::to_path_buf).into_iter().collect(),
        ..ClangOptions::default()
    };
    lanes_llvm::driver::import_file_partial(path, &opts)
        .map(|p| p.module)
        .map_err(|e| bad(e.to_string()))
}

/// The counts of function `id`, if it has a body and a divergent branch.
fn count_function(
    module: &Module,
    id: lanes_ir::FuncId,
    f: &Function,
    path: &Path,
) -> Option<FunctionCounts> {
    let shapes: Vec<Option<(Shape, u32)>> =
        f.params.iter().map(|_| Some((Shape::Varying, 0))).collect();
    let info = lanes_wfv::shapes_of(module, f, &shapes).ok()?;
    let branches: Vec<Block> = f
        .layout
        .blocks()
        .filter(|&b| {
            matches!(
                f.terminator(b).map(|t| f.dfg.inst(t)),
                Some(InstData::Brif { .. })
            )
        })
        .collect();
    let divergent: Vec<Block> = branches
        .iter()
        .copied()
        .filter(|&b| info.is_divergent_branch(b))
        .collect();
    if divergent.is_empty() {
        return None;
    }
    let uniform: Vec<Block> = branches
        .iter()
        .copied()
        .filter(|b| !divergent.contains(b))
        .collect();
    let ends_in_brif = |g: &Function, b: Block| {
        g.layout.is_block_inserted(b)
            && matches!(
                g.terminator(b).map(|t| g.dfg.inst(t)),
                Some(InstData::Brif { .. })
            )
    };
    let analysis = ShapeAnalysis::new(module);
    let orders = BlockOrder::ALL
        .iter()
        .map(|&order| {
            let mut g = f.clone();
            match reconverge_analysed(&mut g, &analysis, &shapes, &info, order) {
                Ok(r) => OrderResult {
                    order: order.name(),
                    flow_blocks: Some(r.flow_blocks),
                    uniform_kept: Some(
                        uniform
                            .iter()
                            .filter(|&&b| ends_in_brif(&g, b) && !r.divergent.contains(&b))
                            .count(),
                    ),
                },
                Err(_) => OrderResult {
                    order: order.name(),
                    flow_blocks: None,
                    uniform_kept: None,
                },
            }
        })
        .collect();
    let partial = prepare(module, id, &shapes, Mode::PARTIAL, &mut |_, _| {});
    let irreducible = matches!(partial, Err(WfvError::Irreducible { .. }));
    let (partial_blocks_added, partial_uniform_kept) = match &partial {
        Ok(p) => (
            Some(p.func.layout.blocks().count() as i64 - f.layout.blocks().count() as i64),
            Some(
                uniform
                    .iter()
                    .filter(|&&b| ends_in_brif(&p.func, b))
                    .count(),
            ),
        ),
        Err(_) => (None, None),
    };
    Some(FunctionCounts {
        source: path.display().to_string(),
        function: f.name.clone(),
        blocks: f.layout.blocks().count(),
        divergent_branches: divergent.len(),
        uniform_branches: uniform.len(),
        irreducible,
        orders,
        partial_blocks_added,
        partial_uniform_kept,
        structurize_blocks_added: None,
    })
}

/// The block count of function `id` of `module` exported to LLVM alone (the others
/// declared), before and after the structurization passes; none if opt-19 is not
/// installed or fails on it (LLVM 19's `fix-irreducible` breaks some irreducible
/// functions: "PHINode should have one entry for each predecessor").
fn structurize(
    module: &Module,
    id: lanes_ir::FuncId,
    work: &Path,
) -> Result<Option<(usize, usize)>, ReconvergeBenchError> {
    if Command::new("opt-19").arg("--version").output().is_err() {
        return Ok(None);
    }
    let mut alone = module.clone();
    for (other, entry) in module.funcs.iter() {
        if other != id && entry.body().is_some() {
            alone.funcs[other] = lanes_ir::FuncEntry::Declared(lanes_ir::ExternFunc {
                name: entry.name().to_string(),
                sig: entry.signature(),
            });
        }
    }
    let name = module.funcs[id].name().to_string();
    let ctx = Context::create();
    let llm = lanes_llvm::export_module(&ctx, &alone, "bench")
        .map_err(|e| ReconvergeBenchError::Opt(e.to_string()))?;
    let Some(before) = llm
        .get_function(&name)
        .map(|f| f.count_basic_blocks() as usize)
    else {
        return Ok(None);
    };
    let input = work.join("in.ll");
    let output = work.join("out.ll");
    std::fs::write(&input, llm.print_to_string().to_bytes())
        .map_err(|e| ReconvergeBenchError::Io(input.clone(), e))?;
    let out = Command::new("opt-19")
        .args([STRUCTURIZE, "-S", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .map_err(|e| ReconvergeBenchError::Opt(e.to_string()))?;
    if !out.status.success() {
        return Ok(None);
    }
    let text = std::fs::read(&output).map_err(|e| ReconvergeBenchError::Io(output.clone(), e))?;
    let after = lanes_llvm::clang::parse_module(&ctx, &text, SourceKind::LlvmText, "after")
        .map_err(|e| ReconvergeBenchError::Opt(e.to_string()))?;
    Ok(after
        .get_function(&name)
        .map(|f| (before, f.count_basic_blocks() as usize)))
}

/// The structurization passes, in AMDGPU's order.
pub const STRUCTURIZE: &str =
    "-passes=lower-switch,fix-irreducible,unify-loop-exits,structurizecfg";
