//! Outer-loop vectorization of parallel loops (PLDI'18 §7).
//!
//! A loop the programmer declared parallel — `#pragma omp simd`, `#pragma clang loop
//! vectorize(assume_safety)`, both of which clang marks `llvm.loop.parallel_accesses` —
//! is vectorized the way whole-function vectorization treats a kernel: its body becomes
//! an SPMD function of the iteration number ([`outline`](mod@outline)), which this crate
//! linearizes only where it diverges (inner loops, branches) and widens to `W` lanes
//! ([`crate::define_variant`]); the loop itself is replaced by a vector loop that runs
//! `W` iterations per step and the rest under a mask ([`driver`]). Unlike LLVM's loop
//! vectorizer, the body may hold divergent inner loops (a `while` per element) and
//! arbitrary control flow: that is the point of §7.
//!
//! What is taken ([`recognize`](mod@recognize)): counted loops with one latch (edges to
//! `unreachable` do not count as exits; `break` and `return` in the body are run with a
//! probe of the exit test, [`early_exit`]), whose carried values are inductions
//! ([`induction`]), reductions, and first-order recurrences ([`recurrence`]). A parallel loop not of
//! that form, or whose body the vectorizer rejects, is left as it was and reported
//! ([`Declined`]) — LLVM's own vectorizer may still take it later. Nested parallel loops
//! are handled outermost first; an inner one then is part of the outer body.

pub mod driver;
pub mod early_exit;
pub mod exit_edges;
pub mod induction;
mod logical;
mod min_max;
pub mod outline;
pub mod probe;
pub mod recognize;
pub mod recurrence;
pub mod spmd_launcher;

use lanes_analysis::{AnalysisSet, FunctionAnalyses, Loop};
use lanes_ir::{Block, FuncCursor, FuncId, Function, InstData, Module, Shape};

pub use recognize::{recognize, Declined, ParallelLoop};
pub use spmd_launcher::{launcher, unmasked_through_masked};

use crate::{define_variant_noting, Mode, VariantSpec, WidenReport};

/// The loop hint clang attaches to `#pragma omp simd` and `vectorize(assume_safety)`.
pub const PARALLEL_HINT: &str = "llvm.loop.parallel_accesses";
/// The hint lanes-llvm's import puts the loop's source line in.
pub const LINE_HINT: &str = "lanes.line";
/// `simdlen(N)` / `vectorize_width(N)`.
pub const WIDTH_HINT: &str = "llvm.loop.vectorize.width";

/// How to vectorize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OuterLoopOptions {
    /// Lanes, unless the loop asks for another width.
    pub width: u16,
    pub mode: Mode,
}

/// What happened to one parallel loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopReport {
    pub function: String,
    /// The loop's header in the function as it was imported.
    pub header: Block,
    /// The loop's source line, if the input had line tables.
    pub line: Option<u32>,
    pub outcome: Result<Vectorized, Declined>,
}

/// A vectorized loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vectorized {
    pub width: u16,
    pub reductions: usize,
    pub live_outs: usize,
    /// Edges leaving the loop from the body (`break`, `return`).
    pub early_exits: usize,
    /// Loops nested in the body (now vector loops over the lanes).
    pub inner_loops: usize,
    /// The name of the widened body.
    pub body: String,
    /// The remarks of widening the body and the callees vectorized with it (gathers,
    /// scatters, code run once per lane).
    pub notes: Vec<crate::WidenNote>,
}

/// Vectorizes every parallel loop of every function of `module` that was defined when
/// called; returns one report per parallel loop found.
pub fn vectorize_parallel_loops(module: &mut Module, opts: &OuterLoopOptions) -> Vec<LoopReport> {
    let ids: Vec<FuncId> = module.functions().map(|(id, _)| id).collect();
    vectorize_parallel_loops_in(module, &ids, opts)
}

/// [`vectorize_parallel_loops`] for the functions `ids` only (not, say, vector variants
/// made from them).
pub fn vectorize_parallel_loops_in(
    module: &mut Module,
    ids: &[FuncId],
    opts: &OuterLoopOptions,
) -> Vec<LoopReport> {
    let mut reports = Vec::new();
    for &id in ids {
        let mut tried: Vec<Block> = Vec::new();
        let mut serial = 0;
        while let Some((l, header)) = next_parallel_loop(module, id, &tried) {
            tried.push(header);
            let line = loop_hint(module, id, l, LINE_HINT).and_then(|v| u32::try_from(v).ok());
            let name = format!("{}.simd.{serial}", module.funcs[id].name());
            let outcome = vectorize_loop(module, id, l, &name, opts);
            if outcome.is_ok() {
                serial += 1;
            }
            reports.push(LoopReport {
                function: module.funcs[id].name().to_string(),
                header,
                line,
                outcome,
            });
        }
    }
    reports
}

/// The predecessors of loop `l`'s header outside the loop.
fn entering_blocks(analyses: &FunctionAnalyses, l: Loop) -> Vec<Block> {
    let (cfg, loops) = (analyses.cfg(), analyses.loops());
    cfg.preds(loops.header(l))
        .iter()
        .copied()
        .filter(|&p| !loops.contains(l, p))
        .collect()
}

/// Moves a constant operand of the exit test of loop `l` (the `21` of `i < 21`, which
/// clang materializes inside the loop once a call with a constant argument is inlined)
/// to the loop's preheader, where the trip count is computed. A constant computes
/// nothing and moving it leaves the CFG as it was, so `analyses` stay valid.
fn hoist_constant_bound(f: &mut Function, analyses: &FunctionAnalyses, l: Loop) {
    let loops = analyses.loops();
    let ([latch], [preheader]) = (loops.latches(l), &entering_blocks(analyses, l)[..]) else {
        return;
    };
    let Some(term) = f.terminator(*latch) else {
        return;
    };
    let InstData::Brif { cond, .. } = f.dfg.inst(term) else {
        return;
    };
    let Some(InstData::Icmp { args, .. }) = f.dfg.def_inst(*cond).map(|i| f.dfg.inst(i)) else {
        return;
    };
    let constants: Vec<_> = args
        .iter()
        .filter_map(|&a| f.dfg.def_inst(a))
        .filter(|&i| matches!(f.dfg.inst(i), InstData::Iconst { .. }))
        .filter(|&i| f.layout.inst_block(i).is_some_and(|b| loops.contains(l, b)))
        .collect();
    for inst in constants {
        FuncCursor::new(f)
            .goto_before_terminator(*preheader)
            .move_inst(inst);
    }
}

/// The CFG, dominator tree and loop forest of function `id`.
fn loop_forest(module: &Module, id: FuncId) -> Option<FunctionAnalyses> {
    let f = module.function(id)?;
    Some(FunctionAnalyses::with_function(f, AnalysisSet::LOOPS))
}

/// The outermost parallel loop of function `id` whose header is not in `tried`.
fn next_parallel_loop(module: &Module, id: FuncId, tried: &[Block]) -> Option<(Loop, Block)> {
    let f = module.function(id)?;
    let analyses = loop_forest(module, id)?;
    let loops = analyses.loops();
    let mut stack: Vec<Loop> = loops.top_level_loops().collect();
    stack.reverse();
    while let Some(l) = stack.pop() {
        let header = loops.header(l);
        let parallel = f.abi.loops.iter().any(|md| {
            loops.latches(l).contains(&md.latch) && md.hints.iter().any(|h| h.name == PARALLEL_HINT)
        });
        if parallel && !tried.contains(&header) {
            return Some((l, header));
        }
        stack.extend(loops.children(l).iter().rev().copied());
    }
    None
}

/// The value of hint `name` on loop `l` of function `id`, if it has one.
fn loop_hint(module: &Module, id: FuncId, l: Loop, name: &str) -> Option<i64> {
    let f = module.function(id)?;
    let analyses = loop_forest(module, id)?;
    let loops = analyses.loops();
    f.abi
        .loops
        .iter()
        .filter(|md| loops.latches(l).contains(&md.latch))
        .flat_map(|md| &md.hints)
        .find(|h| h.name == name)
        .and_then(|h| h.value)
}

/// Vectorizes loop `l` of function `id`; on failure `module` is unchanged.
fn vectorize_loop(
    module: &mut Module,
    id: FuncId,
    l: Loop,
    name: &str,
    opts: &OuterLoopOptions,
) -> Result<Vectorized, Declined> {
    let mut work = module.clone();
    let header = {
        let analyses = loop_forest(&work, id).ok_or(Declined::NoPreheader)?;
        let header = analyses.loops().header(l);
        let outside = entering_blocks(&analyses, l);
        if outside.len() != 1 || analyses.cfg().succs(outside[0]).len() != 1 {
            // A dedicated preheader (LLVM's SimplifyCFG may have folded it away).
            let f = work.function_mut(id).ok_or(Declined::NoPreheader)?;
            FuncCursor::new(f).split_preds(header, &outside);
        }
        header
    };
    let analyses = loop_forest(&work, id).ok_or(Declined::NoPreheader)?;
    let loops = analyses.loops();
    let l = loops.loop_of_header(header).ok_or(Declined::NoPreheader)?;
    let f = work.function_mut(id).ok_or(Declined::NoPreheader)?;
    hoist_constant_bound(f, &analyses, l);
    let func = work.function(id).ok_or(Declined::NoPreheader)?;
    let pl = recognize(func, &analyses, l)?;
    // `simdlen(N)`/`vectorize_width(N)` is the user's width; one lanes cannot make (1 asks
    // for no vectorization at all) leaves the loop to LLVM, with the reason.
    let width = match loop_hint(&work, id, l, WIDTH_HINT) {
        None => opts.width,
        Some(w) => u16::try_from(w)
            .ok()
            .filter(|w| (2..=crate::MAX_WIDTH).contains(w))
            .ok_or_else(|| {
                Declined::Vectorizer(format!(
                    "the loop asks for {w} lanes (simdlen or vectorize_width); lanes makes 2 to {}",
                    crate::MAX_WIDTH
                ))
            })?,
    };
    let inner_loops = loops
        .loops()
        .filter(|&m| m != l && loops.is_nested_in(Some(m), l))
        .count();
    let outlined = outline::outline(func, &pl, name);
    if outlined.private_memory
        && pl
            .live_outs
            .iter()
            .any(|&(v, _)| func.value_type(v).elem().is_ptr())
    {
        return Err(Declined::Vectorizer(
            "a pointer is used after the loop, and the loop has variables of its own, each \
             iteration's copy of which ends with it"
                .to_string(),
        ));
    }
    // With early exits: the probe, which keeps the live-out stores of a pure body.
    let probe_fn = if pl.early_exits.is_empty() {
        None
    } else {
        let pure = probe::is_pure(&outlined.body, &outlined.slot_ptrs);
        let keep: &[lanes_ir::Value] = if pure { &outlined.slot_ptrs } else { &[] };
        let p = probe::probe(&outlined.body, &format!("{name}.probe"), keep)?;
        Some((p, pure))
    };
    let body_id = work.define(outlined.body.clone());
    let mut shapes: Vec<Option<(Shape, u32)>> = vec![Some((Shape::Contiguous, 0))];
    shapes.extend(std::iter::repeat_n(
        Some((Shape::Uniform, 0)),
        outlined.live_ins.len() + outlined.slots.len(),
    ));
    let fail = |e: crate::WfvError| Declined::Vectorizer(e.to_string());
    let full_name = format!("{name}.w{width}");
    let mut notes = WidenReport::default();
    let spec = VariantSpec {
        shapes: &shapes,
        mode: opts.mode,
        width,
        masked: false,
        name: &full_name,
        linear: false,
    };
    if let Some((probe_fn, pure)) = probe_fn {
        // Early exits: module `early_exit`.
        let probe_id = work.define(probe_fn);
        let mut define = |id: FuncId, name: String, masked: bool, notes: &mut WidenReport| {
            let spec = VariantSpec {
                masked,
                name: &name,
                ..spec
            };
            define_variant_noting(&mut work, id, &spec, notes).map_err(fail)
        };
        // The probe's notes repeat the body's (a pure body has only the probe's).
        let mut quiet = WidenReport::default();
        let probe_notes = if pure { &mut notes } else { &mut quiet };
        let probe_name = format!("{name}.probe.w{width}");
        let probe = define(probe_id, probe_name.clone(), false, probe_notes)?;
        let probe_masked = define(
            probe_id,
            format!("{name}.probe.masked.w{width}"),
            true,
            &mut WidenReport::default(),
        )?;
        let body = if pure {
            None
        } else {
            let full = define(body_id, full_name.clone(), false, &mut notes)?;
            let masked = define(
                body_id,
                format!("{name}.masked.w{width}"),
                true,
                &mut WidenReport::default(),
            )?;
            Some((full, masked))
        };
        let step = early_exit::StepFunctions {
            probe,
            probe_masked,
            body,
        };
        let f = work
            .function_mut(id)
            .ok_or_else(|| Declined::Vectorizer("the function vanished".to_string()))?;
        early_exit::build(f, &pl, &outlined, &step, width)?;
        let shown = if pure { probe_name } else { full_name };
        return finish(module, work, &pl, width, inner_loops, shown, notes.notes);
    }
    let full = define_variant_noting(&mut work, body_id, &spec, &mut notes).map_err(fail)?;
    let masked_name = format!("{name}.masked.w{width}");
    let spec = VariantSpec {
        masked: true,
        name: &masked_name,
        ..spec
    };
    // The masked body makes the same calls: its notes would repeat the unmasked one's.
    let masked = define_variant_noting(&mut work, body_id, &spec, &mut WidenReport::default())
        .map_err(fail)?;
    let f = work
        .function_mut(id)
        .ok_or_else(|| Declined::Vectorizer("the function vanished".to_string()))?;
    driver::build(f, &pl, &outlined, full, masked, width)?;
    finish(
        module,
        work,
        &pl,
        width,
        inner_loops,
        full_name,
        notes.notes,
    )
}

/// Verifies the rewritten module `work` and makes it `module`.
fn finish(
    module: &mut Module,
    work: Module,
    pl: &ParallelLoop,
    width: u16,
    inner_loops: usize,
    body: String,
    notes: Vec<crate::WidenNote>,
) -> Result<Vectorized, Declined> {
    lanes_ir::verifier::verify_module(&work)
        .map_err(|e| Declined::Vectorizer(format!("internal error: {e}")))?;
    *module = work;
    Ok(Vectorized {
        width,
        reductions: pl.reductions.len(),
        live_outs: pl.live_outs.len(),
        early_exits: pl.early_exits.len(),
        inner_loops,
        body,
        notes,
    })
}
