//! Whole-function vectorization, control-flow half: what lanes does to a scalar SPMD
//! function before widening it to `W` lanes (PLDI'18 §2–5, CC'12 §3.3).
//!
//! The pipeline ([`prepare`]) runs, on a copy of one function of a module, after pure
//! instructions that repeat a dominating one are merged ([`common_subexpressions`]),
//! private arrays are laid out across lanes ([`private_memory`]) and varying `int`
//! counters that clang widened to 64 bits are narrowed back ([`narrow_induction`]), in
//! every mode:
//!
//! 1. [`normalize`](mod@normalize): one exit block, loop simplify, LCSSA, divergent
//!    `switch`es lowered to `brif` cascades;
//! 2. [`latch_breaks`] (partial mode): divergent `break`s that leave where the latch
//!    leaves, with what the latch's φs take from them, leave through the latch instead;
//!    then [`divergent_loops`]: the divergent loop transform of §5 on every loop the shape
//!    analysis calls divergent (every loop in full mode), making all loops uniform;
//! 3. [`index_division`] (divisions of the instance index by a uniform value behind a
//!    uniform test, once per vector), then [`branch_fusion`] (PACT'11 §IV-A) and
//!    [`boscc`] (§6.1), as the [`Mode`] asks:
//!    divergent if-then-elses with similar sides merged into one sequence, uniform `any`
//!    branches around heavy sides of divergent branches;
//! 4. [`linearize`](mod@linearize) over the [`block_index`] (§3.1): Fig. 5 partial
//!    linearization (or full if-conversion), with [`predicates`] from control dependence
//!    (§2.4), φs on folded edges turned into [`blend`]s, side effects [`guards`]ed, and
//!    SSA repaired, then the blends that repeat what the blends before them made dropped
//!    (after a BOSCC gadget's join, a kept-in-place live-out's select in the pure latch:
//!    [`redundant_blends`]); [`stats`] counts the branches kept and lost (Table 1).
//!
//! With [`Linearization::Reconverge`] the reconverging transform ([`reconverge`]) and its
//! lowering to masks replace steps 1–4: uniform branches stay, irreducible cycles are
//! taken, and loops need no transform of their own.
//!
//! The passes hand one [`lanes_analysis::FunctionAnalyses`] bundle along: each uses the
//! CFG, dominator trees and loops where they are valid, keeps them up to date, and returns
//! what it changed ([`lanes_analysis::Edits`]); the shape analysis is re-run only after a
//! pass that changed something, and widening starts from the analyses linearization left.
//!
//! The result is still a scalar function of one instance plus a [`Predication`] side
//! table of masks; [`guards::lower_guards`] gives it a width-1 meaning that the
//! interpreter runs, which is how the tests prove every step preserves the semantics.
//!
//! 5. [`widen`](mod@widen) ([`widen()`], [`widen_into`]) maps that function to `W` lanes:
//!    uniform values stay scalar, the others become vectors, masks become `<W x i1>`,
//!    memory accesses become vector, masked, gather/scatter or once-if-any accesses,
//!    calls and atomics run per active lane; then [`nonempty_masks`] drops the
//!    once-if-any tests whose masks are proven to have an active lane (the body of a
//!    divergent loop).
//!
//! 6. For the code generator, [`chunks`] splits a very long vector (or scalar) function
//!    into `noinline` pieces of bounded size, which LLVM compiles in linear time; on
//!    targets with mask registers a large function's unmasked variant calls its masked
//!    body ([`outer_loop::unmasked_through_masked`]) rather than being a second copy.
//!
//! Uniform loops nested in divergent control (a varying header predicate) keep their
//! uniform exits but get a guard `any(pred)` in front (module `loop_guard`):
//! with no lane active their trip count would be computed from values no lane defined,
//! and need not terminate.
//!
//! Tests (`tests/`): every pass is verified after it runs; the width-1 form equals the
//! original (result, memory, exact access sequence) on 64 hand-written kernels and 5,000
//! generated programs per mode; partial linearization loses no uniform branch, full
//! if-conversion does; the widened function equals the scalar one run once per lane at
//! W = 4, 8, 16 (no inactive lane touches memory), in the interpreter and, for 360
//! programs, natively through LLVM. `LANES_SOAK=1` runs ten times more programs.

pub mod blend;
pub mod block_index;
pub mod boscc;
pub mod branch_fusion;
pub(crate) mod cfg_edit;
pub mod chunks;
pub mod common_subexpressions;
pub mod divergent_loops;
pub mod entry_mask;
pub mod guards;
pub mod index_division;
pub mod lane_masks;
pub mod latch_breaks;
pub mod linearize;
pub(crate) mod loop_guard;
pub mod mode;
pub mod narrow_induction;
pub mod nonempty_masks;
pub mod normalize;
pub mod outer_loop;
pub mod predicates;
pub mod private_memory;
pub mod reconverge;
pub mod redundant_blends;
pub(crate) mod ssa_repair;
pub mod stats;
pub mod variant;
pub mod vfabi;
pub mod widen;

use cranelift_entity::EntitySet;
use lanes_analysis::shapes::{ArgShapes, ShapeAnalysis, ShapeError, ShapeInfo};
use lanes_analysis::{Edits, FunctionAnalyses};
use lanes_ir::{Block, FuncId, Function, Module, Value};

pub use block_index::BlockIndex;
pub use boscc::BosccPolicy;
pub use branch_fusion::FusionPolicy;
pub use divergent_loops::{transform_divergent_loops, TransformedLoop};
pub use entry_mask::with_entry_mask;
pub use guards::{lower_guards, Predication};
pub use linearize::{linearize, Linearized};
pub use mode::{Linearization, Mode};
pub use normalize::normalize;
pub use private_memory::PrivateLayout;
pub use ssa_repair::{add_definitions, define_by_assignments};
pub use stats::{AddressKind, LoopStats, MaskKind, MemoryStats, Stats, VariantStats};
pub use variant::{define_variant, define_variant_noting, VariantSpec};
pub use widen::{widen, widen_into, widen_into_noting, WidenNote, WidenNoteKind, WidenReport};

/// The most lanes widening makes: a kept branch whose condition blends made varying
/// follows the first active lane, found as `cttz(ballot(mask))`, and the widest ballot is
/// an `i64`. Every width from 1 to this one is supported, whatever the target's registers
/// (LLVM splits or pads vectors the target does not have).
pub const MAX_WIDTH: u16 = 64;

/// `; source lines 3, 7` for known lines, else nothing.
fn lines_note(lines: &[u32]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let list: Vec<String> = lines.iter().map(u32::to_string).collect();
    format!(
        "; source line{} {}",
        if list.len() > 1 { "s" } else { "" },
        list.join(", ")
    )
}

impl WfvError {
    /// [`WfvError::Irreducible`] for `func`, whose loop analysis found an irreducible
    /// region: names the blocks entering the first one and their source lines.
    pub(crate) fn irreducible(func: &Function, loops: &lanes_analysis::LoopForest) -> WfvError {
        let entries = loops
            .irreducible_regions()
            .first()
            .map(|r| r.entries.clone())
            .unwrap_or_default();
        let mut lines: Vec<u32> = entries
            .iter()
            .filter_map(|&b| {
                func.layout
                    .block_insts(b)
                    .iter()
                    .map(|&i| func.source_lines[i])
                    .find(|&l| l > 0)
            })
            .collect();
        lines.sort_unstable();
        lines.dedup();
        WfvError::Irreducible {
            func: func.name.clone(),
            entries,
            lines,
        }
    }
}

/// Why a function could not be vectorized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WfvError {
    #[error("@{0} has no body")]
    NoBody(String),
    #[error(
        "@{func} has irreducible control flow: a cycle entered at {} blocks ({}{}), which \
         linearization cannot order; give the cycle one entry (jump to its top and test \
         there instead of jumping into its middle)",
        entries.len(),
        entries.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", "),
        lines_note(lines)
    )]
    Irreducible {
        func: String,
        /// The blocks entering the first irreducible cycle.
        entries: Vec<Block>,
        /// Their source lines, where known.
        lines: Vec<u32>,
    },
    #[error("@{0}: the reconverging transform could not give every divergent branch a primary successor: {1}")]
    NotReconverging(String, String),
    #[error("the loop with header {0} has no exit")]
    InfiniteLoop(Block),
    #[error("the latch {0} of a loop ends in a divergent branch")]
    DivergentLatch(Block),
    #[error("shape analysis: {0}")]
    Shapes(#[from] ShapeError),
    #[error("not supported by widening yet: {0}")]
    Unsupported(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// The control-flow-vectorized form of one function.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub func: Function,
    pub predication: Predication,
    pub stats: Stats,
    /// Loops and loop exits by divergence, before the divergent loop transform.
    pub loops: LoopStats,
    /// BOSCC gadgets inserted ([`Mode::boscc`]).
    pub boscc: usize,
    /// Instruction pairs branch fusion merged into one ([`Mode::fusion`]).
    pub fused: usize,
    /// Divergent `break`s that leave through their loop's latch ([`crate::latch_breaks`]).
    pub latch_breaks: usize,
    /// Families of stack arrays laid out across lanes element-major
    /// ([`Mode::private_layout`]).
    pub interleaved: usize,
    pub transformed: Vec<TransformedLoop>,
    /// The `active: i1` parameter of a function made by [`with_entry_mask`]: widening then
    /// runs nothing at all when no lane is active (one test at entry), so that accesses
    /// under exactly that mask need no guard of their own.
    pub entry_mask: Option<Value>,
    /// The linearization mode it was prepared in (callees vectorized with it use the same).
    pub mode: Mode,
    /// Widen parameters whose shape is strided as scalars holding lane 0's value (the
    /// vector-function ABI's `linear`), not as vectors. Off unless the caller asks.
    pub linear_params: bool,
    /// The CFG analyses of `func` as linearization left them (valid for `func`, which is
    /// why nothing outside this crate may edit it): widening's shape analysis starts from
    /// them instead of computing the CFG and dominator tree again.
    analyses: FunctionAnalyses,
}

impl Prepared {
    /// Records that the function was made by [`with_entry_mask`]: its last parameter is
    /// the entry mask ([`Prepared::entry_mask`]).
    pub fn mark_entry_mask(&mut self) {
        self.entry_mask = self.func.params.last().map(|param| param.value);
    }
}

/// Shape analysis of `func`, a version of one of `module`'s functions (calls are
/// summarized from the module's other functions; the module is not copied).
pub fn shapes_of(
    module: &Module,
    func: &Function,
    args: &ArgShapes,
) -> Result<ShapeInfo, WfvError> {
    Ok(ShapeAnalysis::new(module).analyze_body(func, args)?)
}

/// Shape analysis of a prepared function, on the CFG analyses linearization left.
pub(crate) fn shapes_of_prepared(
    module: &Module,
    prepared: &Prepared,
    args: &ArgShapes,
    width: u16,
) -> Result<ShapeInfo, WfvError> {
    let analyses = prepared.analyses.clone();
    let analysis = ShapeAnalysis::new(module).with_num_lanes(width);
    analysis.set_dont_care(&prepared.predication.guard_fillers());
    Ok(analysis.analyze_in(&prepared.func, args, analyses)?)
}

/// Divisions of the instance index by a uniform divisor, once per vector where they can
/// (not under full if-conversion, which would run both sides of their test); then branch
/// fusion: divergent if-then-elses with similar sides become one sequence. Returns the
/// shapes of the result (`info` describes `func` as given) and the pairs fused.
/// The φs of `headers` whose shape is varying (not uniform, no stride): the divergent
/// loop transform may keep their live-outs in place.
pub fn varying_header_phis(
    func: &Function,
    info: &ShapeInfo,
    headers: &[Block],
) -> std::collections::HashSet<Value> {
    headers
        .iter()
        .flat_map(|&h| lanes_ir::cursor::phis(func, h))
        .filter_map(|phi| func.dfg.inst_result(phi))
        .filter(|&v| {
            matches!(
                info.shape(v),
                lanes_analysis::shapes::VShape::Varying { .. }
            )
        })
        .collect()
}

fn split_divisions_and_fuse(
    func: &mut Function,
    mut info: ShapeInfo,
    analysis: &ShapeAnalysis,
    args: &ArgShapes,
    mode: Mode,
    after_pass: &mut dyn FnMut(&str, &Function),
) -> Result<(ShapeInfo, usize), WfvError> {
    if !mode.is_full() && index_division::split_index_divisions(func, &info) > 0 {
        after_pass("index_division", func);
        info = analysis.analyze_in(func, args, FunctionAnalyses::new())?;
    }
    let fused = branch_fusion::fuse_branches(func, &info, mode.fusion);
    if fused > 0 {
        after_pass("branch_fusion", func);
        info = analysis.analyze_in(func, args, FunctionAnalyses::new())?;
    }
    Ok((info, fused))
}

/// Runs the whole pipeline on function `id` of `module` with argument shapes `args`.
/// `after_pass(name, func)` sees the function after each pass (tests verify it there).
pub fn prepare(
    module: &Module,
    id: FuncId,
    args: &ArgShapes,
    mode: Mode,
    after_pass: &mut dyn FnMut(&str, &Function),
) -> Result<Prepared, WfvError> {
    let mut func = module
        .function(id)
        .ok_or_else(|| WfvError::NoBody(module.funcs[id].name().to_string()))?
        .clone();
    // Pure instructions that repeat a dominating one (math calls clang kept apart for
    // `errno`) merge first, so that no later pass handles them twice.
    if common_subexpressions::eliminate_common_subexpressions(&mut func) > 0 {
        after_pass("common_subexpressions", &func);
    }
    // One shape analysis for the whole pipeline (callee summaries are computed once), and
    // one bundle of CFG analyses handed from pass to pass: each pass uses what is valid,
    // keeps the bundle up to date and says what it changed. Shapes are recomputed only
    // after a pass that changed something, on the analyses that survived it.
    let analysis = ShapeAnalysis::new(module);
    let mut info = analysis.analyze_in(&func, args, FunctionAnalyses::new())?;
    // Private arrays element-major, so that a uniform index is a vector access.
    let interleaved = match mode.private_layout {
        PrivateLayout::Interleaved => private_memory::interleave_private_memory(&mut func, &info),
        PrivateLayout::PerLane => 0,
    };
    if interleaved > 0 {
        after_pass("private_memory", &func);
        info = analysis.analyze_in(&func, args, info.into_analyses())?;
    }
    // Varying counters that clang widened to 64 bits go back to 32 (narrow gathers).
    if narrow_induction::narrow_varying_inductions(&mut func, &info) > 0 {
        after_pass("narrow_induction", &func);
        info = analysis.analyze_in(&func, args, FunctionAnalyses::new())?;
    }
    // The reconverging transform: flow blocks give every divergent branch a primary
    // successor, and the lowering to masks replaces every other step below.
    if let Linearization::Reconverge(order) = mode.linearization {
        let loops = LoopStats::of(&info);
        // Index divisions once per vector and branch fusion work on the CFG as it is.
        let (info, fused) =
            split_divisions_and_fuse(&mut func, info, &analysis, args, mode, after_pass)?;
        let analysed = reconverge::reconverge_analysed(&mut func, &analysis, args, &info, order)?;
        after_pass("reconverge", &func);
        let lowered = reconverge::lower_to_masks(&mut func, &analysed.divergent, mode.skip_empty)?;
        after_pass("lower_masks", &func);
        return Ok(Prepared {
            func,
            predication: lowered.predication,
            stats: analysed.stats,
            loops,
            boscc: lowered.skips,
            fused,
            latch_breaks: 0,
            interleaved,
            transformed: Vec::new(),
            entry_mask: None,
            mode,
            linear_params: false,
            analyses: FunctionAnalyses::new(),
        });
    }
    let lower: Vec<Block> = normalize::switch_blocks(&func)
        .into_iter()
        .filter(|&b| mode.is_full() || info.is_divergent_branch(b))
        .collect();
    if normalize(&mut func, info.analyses_mut(), &lower)? != Edits::Nothing {
        info = analysis.analyze_in(&func, args, info.into_analyses())?;
    }
    after_pass("normalize", &func);
    let loops = LoopStats::of(&info);
    // Breaks that leave with the latch's values leave through the latch (one exit, whose
    // live-outs stay in place); full if-conversion, the baseline, keeps its exits.
    let latch_breaks = if mode.is_full() {
        0
    } else {
        latch_breaks::fold_breaks_into_latches(&mut func, &info)
    };
    if latch_breaks > 0 {
        after_pass("latch_breaks", &func);
        info = analysis.analyze_in(&func, args, FunctionAnalyses::new())?;
    }
    let mut transformed: Vec<TransformedLoop> = Vec::new();
    // Transform divergent loops until none is left (a transform can make an enclosing
    // loop's exits visible as divergent only through new blocks, so iterate).
    for _ in 0..64 {
        let headers: Vec<Block> = info
            .loops()
            .loops()
            .filter(|&l| mode.is_full() || info.is_divergent_loop(l))
            .map(|l| info.loops().header(l))
            .filter(|h| !transformed.iter().any(|t| t.header == *h))
            .collect();
        if headers.is_empty() {
            break;
        }
        let varying = varying_header_phis(&func, &info, &headers);
        let done = transform_divergent_loops(&mut func, info.analyses_mut(), &headers, &varying)?;
        transformed.extend(done);
        let dont_care: Vec<Value> = transformed
            .iter()
            .flat_map(|t| t.dont_care.iter().copied())
            .collect();
        analysis.set_dont_care(&dont_care);
        after_pass("divergent_loops", &func);
        info = analysis.analyze_in(&func, args, info.into_analyses())?;
    }
    let (mut info, fused) =
        split_divisions_and_fuse(&mut func, info, &analysis, args, mode, after_pass)?;
    // BOSCC gadgets: uniform `any` branches around heavy sides of divergent branches.
    let mut boscc = 0;
    if let Some(policy) = mode.boscc.filter(|_| !mode.is_full()) {
        boscc = boscc::insert_gadgets(&mut func, &info, policy);
        if boscc > 0 {
            after_pass("boscc", &func);
            info = analysis.analyze_in(&func, args, FunctionAnalyses::new())?;
        }
    }
    // Linearization edits the CFG the shapes describe: it takes the divergent branches as
    // they are now, and the analyses.
    let divergent: EntitySet<Block> = {
        let mut set = EntitySet::new();
        for b in func
            .layout
            .blocks()
            .filter(|&b| info.is_divergent_branch(b))
        {
            set.insert(b);
        }
        set
    };
    let mut analyses = info.into_analyses();
    let lin = linearize(
        &mut func,
        &mut analyses,
        &|b| divergent.contains(b),
        &transformed,
        mode,
    )?;
    after_pass("linearize", &func);
    Ok(Prepared {
        func,
        predication: lin.predication,
        stats: lin.stats,
        loops,
        boscc,
        fused,
        latch_breaks,
        interleaved,
        transformed,
        entry_mask: None,
        mode,
        linear_params: false,
        analyses,
    })
}
