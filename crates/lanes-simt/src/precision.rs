//! Static versus dynamic divergence: the precision measurement of PACT'11 §V.
//!
//! PACT'11 compares its divergence analysis with a CUDA profiler and reports that 34% of
//! the branches it calls divergent never diverged at run time (its *false-positive
//! rate*). [`profile_function`] does the same for lanes: it runs a function in the SIMT
//! interpreter ([`super::Simt`]) for several work-groups of W lanes, on arguments given in
//! the `lanes interp` notation or generated (small non-negative integers, floats in
//! [-2, 2), buffers of [`DEFAULT_BUFFER_ELEMS`] random elements), and compares the
//! branches that dynamically diverged with those the analysis classified divergent.
//!
//! Only branches that executed count (a branch never reached says nothing); the rate is
//! `static divergent but never diverged / static divergent`. A branch that diverged but is
//! classified uniform is a *false negative*, which the analysis must never have.

use lanes_analysis::shapes::{ShapeAnalysis, ShapeError, ShapeInfo};
use lanes_ir::{AddrSpace, Block, BranchProfile, FuncId, Module, ScalarType, Shape, Type};

use super::inputs::lane_inputs;
use super::{BranchStats, LaneOutcome, Simt, SimtError, SimtProfile};
use lanes_interp::harness::{bind_args, HarnessError};
use lanes_interp::memory::{MemError, Memory};
use lanes_interp::runline::ArgSpec;
use lanes_interp::value::{normalize, RtValue};

/// Elements of a generated buffer argument (of 8 bytes each at most).
pub const DEFAULT_BUFFER_ELEMS: u64 = 256;

/// Settings of a profile.
#[derive(Clone, Debug)]
pub struct ProfileConfig {
    /// Lanes per group.
    pub width: usize,
    /// Work-groups run (each with fresh inputs when generated).
    pub groups: u64,
    /// Seed of generated inputs.
    pub seed: u64,
    /// Instruction budget per group.
    pub fuel: u64,
}

impl Default for ProfileConfig {
    fn default() -> Self {
        ProfileConfig {
            width: 8,
            groups: 8,
            seed: 1,
            fuel: 10_000_000,
        }
    }
}

/// One branch compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchComparison {
    pub block: Block,
    pub static_divergent: bool,
    pub stats: BranchStats,
}

/// The comparison over all runs.
#[derive(Clone, Debug, Default)]
pub struct PrecisionReport {
    pub branches: Vec<BranchComparison>,
    /// Conditional branches that never executed.
    pub unexecuted: Vec<Block>,
    /// Faults, as `(group, lane, message)`.
    pub faults: Vec<LaneFault>,
    pub utilization: f64,
}

impl PrecisionReport {
    /// Executed branches classified divergent.
    pub fn static_divergent(&self) -> usize {
        self.branches.iter().filter(|b| b.static_divergent).count()
    }
    /// Executed branches that diverged at least once.
    pub fn dynamic_divergent(&self) -> usize {
        self.branches
            .iter()
            .filter(|b| b.stats.diverged > 0)
            .count()
    }
    /// Classified divergent, never diverged.
    pub fn false_positives(&self) -> usize {
        self.branches
            .iter()
            .filter(|b| b.static_divergent && b.stats.diverged == 0)
            .count()
    }
    /// Diverged but classified uniform (must be 0).
    pub fn false_negatives(&self) -> usize {
        self.branches
            .iter()
            .filter(|b| !b.static_divergent && b.stats.diverged > 0)
            .count()
    }
    /// `false_positives / static_divergent` (0 without static divergent branches).
    pub fn false_positive_rate(&self) -> f64 {
        match self.static_divergent() {
            0 => 0.0,
            n => self.false_positives() as f64 / n as f64,
        }
    }
}

/// Why a profile could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    Harness(#[from] HarnessError),
    #[error(transparent)]
    Simt(#[from] SimtError),
    #[error("cannot allocate: {0}")]
    Memory(#[from] MemError),
}

/// A small deterministic generator (SplitMix64), so the library needs no `rand`.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A generated scalar: integers in 0..64, floats in [-2, 2).
fn gen_scalar(rng: &mut Mix, ty: Type) -> RtValue {
    let lanes: Vec<u64> = (0..ty.lane_count())
        .map(|_| match ty.elem() {
            ScalarType::F32 => u64::from((rng.below(4000) as f32 / 1000.0 - 2.0).to_bits()),
            ScalarType::F64 => (rng.below(4000) as f64 / 1000.0 - 2.0).to_bits(),
            ScalarType::I1 => rng.below(2),
            _ => rng.below(64),
        })
        .collect();
    RtValue::from_lanes(ty, lanes).unwrap_or_else(|| RtValue::splat(ty, 0))
}

/// Generated arguments for lane 0: scalars as [`gen_scalar`], pointers to fresh buffers of
/// [`DEFAULT_BUFFER_ELEMS`] 8-byte words holding small integers (as `i32`/`i64` words they
/// are 0..64, as floats small numbers).
fn gen_args(rng: &mut Mix, params: &[Type], mem: &mut Memory) -> Result<Vec<RtValue>, MemError> {
    params
        .iter()
        .map(|&ty| match ty {
            Type::Scalar(ScalarType::Ptr(space)) => {
                let mut bytes = Vec::with_capacity(DEFAULT_BUFFER_ELEMS as usize * 8);
                for _ in 0..DEFAULT_BUFFER_ELEMS * 2 {
                    let word = if rng.below(2) == 0 {
                        rng.below(64) as u32
                    } else {
                        (rng.below(4000) as f32 / 1000.0 - 2.0).to_bits()
                    };
                    bytes.extend_from_slice(&word.to_le_bytes());
                }
                let space = if space == AddrSpace::PRIVATE {
                    AddrSpace::GLOBAL
                } else {
                    space
                };
                let ptr = mem.alloc_init(&bytes, 16, space, false)?;
                Ok(RtValue::ptr_of(ty.elem(), ptr))
            }
            _ => Ok(gen_scalar(rng, ty)),
        })
        .collect()
}

/// Runs `func` in the SIMT interpreter `cfg.groups` times and compares with `info`.
/// `args`: lane 0's arguments in `lanes interp` notation, or `None` to generate them.
/// `shapes`: the argument shapes the analysis assumed (`None`: the parameter attribute).
pub fn profile_function(
    module: &Module,
    func_id: FuncId,
    info: &ShapeInfo,
    shapes: &[Option<Shape>],
    args: Option<&[ArgSpec]>,
    cfg: &ProfileConfig,
) -> Result<PrecisionReport, ProfileError> {
    let (profile, faults) = run_groups(module, func_id, shapes, args, cfg)?;
    let func = function_of(module, func_id)?;
    let mut report = PrecisionReport {
        faults,
        utilization: profile.utilization(),
        ..PrecisionReport::default()
    };
    for line in lanes_analysis::shapes::report::branches(func, info) {
        match profile.branches.get(&line.block) {
            Some(s) if s.executions > 0 => report.branches.push(BranchComparison {
                block: line.block,
                static_divergent: line.divergent,
                stats: *s,
            }),
            _ => report.unexecuted.push(line.block),
        }
    }
    Ok(report)
}

/// The branch counts of `func` run in the SIMT interpreter `cfg.groups` times at
/// `cfg.width` lanes (arguments as for [`profile_function`]), as the vectorizer takes
/// them ([`lanes_ir::BranchProfile`]): a profile-guided build's training run. The lanes
/// that faulted come too: their counts stop where they faulted, so a caller should
/// not trust a run with faults.
pub fn branch_profile(
    module: &Module,
    func_id: FuncId,
    shapes: &[Option<Shape>],
    args: Option<&[ArgSpec]>,
    cfg: &ProfileConfig,
) -> Result<(BranchProfile, Vec<LaneFault>), ProfileError> {
    let (profile, faults) = run_groups(module, func_id, shapes, args, cfg)?;
    let func = function_of(module, func_id)?;
    Ok((profile.branch_profile(module, func), faults))
}

/// The body of function `id`.
fn function_of(module: &Module, id: FuncId) -> Result<&lanes_ir::Function, ProfileError> {
    module
        .function(id)
        .ok_or_else(|| ShapeError::NoBody(module.funcs[id].name().to_string()).into())
}

/// A lane that faulted in a profile run: `(group, lane, error)`.
pub type LaneFault = (u64, usize, String);

/// Runs `func` `cfg.groups` times; the sum of the runs' profiles (branch counts and
/// utilization), and the lanes that faulted as `(group, lane, error)`.
fn run_groups(
    module: &Module,
    func_id: FuncId,
    shapes: &[Option<Shape>],
    args: Option<&[ArgSpec]>,
    cfg: &ProfileConfig,
) -> Result<(SimtProfile, Vec<LaneFault>), ProfileError> {
    let func = function_of(module, func_id)?;
    let params = func.signature().params;
    let shapes: Vec<Option<Shape>> = func
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| shapes.get(i).copied().flatten().or(p.attrs.shape))
        .collect();
    let mut rng = Mix(cfg.seed);
    let mut total = SimtProfile {
        width: cfg.width,
        ..SimtProfile::default()
    };
    let mut faults = Vec::new();
    let simt = Simt::new(module).fuel(cfg.fuel);
    for group in 0..cfg.groups {
        let mut mem = Memory::new();
        let base = match args {
            Some(specs) => bind_args(&func.name, specs, &params, &mut mem)?.values,
            None => gen_args(&mut rng, &params, &mut mem)?,
        };
        let mut vary = |lane: usize, _p: usize, b: &RtValue| match args {
            Some(_) => perturb(b, lane),
            None => gen_scalar(&mut rng, b.ty()),
        };
        let lanes = lane_inputs(&base, &shapes, cfg.width, group, &mut mem, &mut vary)?;
        let out = simt.run(func_id, &lanes, &mut mem)?;
        for (lane, o) in out.lanes.iter().enumerate() {
            if let LaneOutcome::Faulted(e) = o {
                faults.push((group, lane, e.to_string()));
            }
        }
        total.add_branch_counts(&out.profile);
        total.active_lane_sum += out.profile.active_lane_sum;
        total.block_executions += out.profile.block_executions;
    }
    Ok((total, faults))
}

/// A user-given varying argument in lane `lane`: integers `base + lane·(lane+3) mod 17`,
/// floats `base + lane/4`.
fn perturb(b: &RtValue, lane: usize) -> RtValue {
    let k = (lane * (lane + 3) % 17) as u64;
    let lanes: Vec<u64> = b
        .lanes()
        .iter()
        .map(|&x| match b.elem() {
            ScalarType::F32 => u64::from((f32::from_bits(x as u32) + lane as f32 * 0.25).to_bits()),
            ScalarType::F64 => (f64::from_bits(x) + lane as f64 * 0.25).to_bits(),
            ScalarType::I1 => (x + lane as u64) & 1,
            e => normalize(e, x.wrapping_add(k)),
        })
        .collect();
    RtValue::from_lanes(b.ty(), lanes).unwrap_or_else(|| b.clone())
}

/// Analyzes and profiles in one go (what `lanes analyze --profile` does).
pub fn analyze_and_profile(
    module: &Module,
    func_id: FuncId,
    shapes: &[Option<(Shape, u32)>],
    args: Option<&[ArgSpec]>,
    cfg: &ProfileConfig,
) -> Result<(ShapeInfo, PrecisionReport), ProfileError> {
    let info = ShapeAnalysis::new(module).analyze(func_id, shapes)?;
    let plain: Vec<Option<Shape>> = shapes.iter().map(|s| s.map(|(s, _)| s)).collect();
    let report = profile_function(module, func_id, &info, &plain, args, cfg)?;
    Ok((info, report))
}
