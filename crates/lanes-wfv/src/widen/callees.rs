//! Calls of functions the module defines, vectorized with their caller (PLDI'18 §7 and
//! RV's whole-function vectorization of callees; CC'12 §3.3 vectorizes called functions
//! the same way as kernels).
//!
//! A call whose arguments differ between lanes would otherwise run once per active lane
//! ([`Widener::per_lane`]): `W` scalar calls with their operands extracted and their
//! results inserted, which costs more than the callee's work in most kernels. Instead, the
//! callee itself is vectorized, for the shapes its arguments have *at that call site*
//! (a contiguous index stays contiguous in the callee, so its accesses are vector loads),
//! at the caller's width. The call passes uniform arguments as scalars, strided ones as
//! lane 0's value (the vector-function ABI's `linear` parameters: the callee rebuilds the
//! vector if it needs one, and its contiguous accesses take their address from the
//! scalar), and the others as vectors.
//!
//! A call under a varying mask calls the masked variant with that mask (its inactive
//! lanes do nothing and return zero, [`crate::entry_mask`]), unless the callee is
//! arithmetic that may run for inactive lanes (no memory, no trap, no loop): that one is
//! called unmasked, as its code inlined would run under the linearized branch without
//! guards. In the callee, lane `k` is the caller's lane `k`, so work-item queries and
//! cross-lane reads mean what they meant in the caller.
//!
//! Variants are made once per callee, argument shapes, width and mask
//! ([`variant_name`]), and reused from every call site that needs the same one; a
//! `declare simd` variant the module already has for the same letters is used as is.
//!
//! Where this stops: a callee that is part of a cycle of calls (recursion: its variant
//! would need itself), a function only declared, an indirect call, and a callee the
//! vectorizer declines keep the per-lane call; the reason goes into the remark widening
//! makes for it (module `notes`).

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use lanes_analysis::shapes::ShapeInfo;
use lanes_analysis::CallGraph;
use lanes_ir::{FuncId, Inst, InstData, Module, Shape, Value};

use super::notes::WidenReport;
use super::{vec_of, Widener};
use crate::vfabi::{mangle, VParam};
use crate::{define_variant_noting, Prepared, VariantSpec, WfvError};

/// The vector variant a call site of the scalar function calls instead.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CalleeVariant {
    pub func: FuncId,
    /// The variant takes the call's block mask as a last `<W x i1>` parameter.
    pub masked: bool,
    /// The variant takes a strided argument as lane 0's scalar (one lanes made); a
    /// `declare simd` variant found in the module takes vectors.
    pub linear: bool,
}

/// The calls of a function being widened: the vector variant each vectorized call calls,
/// and why each other call of a function runs once per lane.
#[derive(Default)]
pub(crate) struct CallPlan {
    pub variants: HashMap<Inst, CalleeVariant>,
    pub per_lane_why: HashMap<Inst, String>,
}

/// Defines (or finds) the vector variant of every call in `prepared` whose callee can be
/// vectorized with it (`calls` is the module's call graph), and says why the others
/// cannot be; the remarks and statistics of the callees' own widening go to `report`. `uni` is widening's
/// choice of scalar values ([`super::shapes::uniform_values`]): a parameter of the
/// variant is scalar exactly where the caller's argument is.
pub(crate) fn vectorize_callees(
    module: &mut Module,
    prepared: &Prepared,
    (info, uni, calls): (&ShapeInfo, &SecondaryMap<Value, bool>, &CallGraph),
    width: u16,
    report: &mut WidenReport,
) -> CallPlan {
    let func = &prepared.func;
    let mut plan = CallPlan::default();
    for b in func.layout.blocks() {
        for &inst in func.layout.block_insts(b) {
            let (callee, args) = match func.dfg.inst(inst) {
                InstData::Call { func: callee, args } => (*callee, args),
                _ => continue,
            };
            // A uniform result comes from a pure callee with uniform arguments, which runs
            // once for all lanes. Other calls with uniform arguments are vectorized too:
            // the callee is part of the SPMD program, and its lanes may still differ
            // (work-item queries, loads of lane-private memory).
            if func.dfg.inst_result(inst).is_some_and(|r| uni[r]) {
                continue;
            }
            let Some(body) = module.function(callee) else {
                plan.per_lane_why
                    .insert(inst, "it is only declared here".to_string());
                continue;
            };
            if calls.is_recursive(callee) {
                plan.per_lane_why
                    .insert(inst, "it is part of a cycle of calls".to_string());
                continue;
            }
            if let Some(p) = body
                .abi
                .params
                .iter()
                .position(|a| a.byval.is_some() || a.sret.is_some())
            {
                plan.per_lane_why.insert(
                    inst,
                    format!("its parameter {p} is passed in memory (byval or sret)"),
                );
                continue;
            }
            let shapes: Vec<Option<(Shape, u32)>> = args
                .iter()
                .map(|&a| {
                    let s = info.use_shape(func, a, inst);
                    let (shape, align) = s.to_param();
                    Some(match (uni[a], shape) {
                        (true, _) => (Shape::Uniform, align),
                        // Widening made it a vector although the analysis found it
                        // uniform: the callee sees a vector of equal lanes.
                        (false, Shape::Uniform) => (Shape::Varying, align),
                        (false, s) => (s, align),
                    })
                })
                .collect();
            // Under a varying mask the masked variant, unless the callee is arithmetic
            // that if-conversion would run unguarded inline: then the unmasked one, whose
            // inactive lanes' results the caller's blends drop.
            let masked = prepared.predication.guarded.iter().any(|&(i, _)| i == inst)
                && prepared.predication.mask(b).is_some()
                && !speculatable(body);
            match variant_for(module, callee, &shapes, prepared, width, masked, report) {
                Ok((v, linear)) => {
                    plan.variants.insert(
                        inst,
                        CalleeVariant {
                            func: v,
                            masked,
                            linear,
                        },
                    );
                }
                Err(e) => {
                    plan.per_lane_why
                        .insert(inst, format!("lanes cannot vectorize it ({e})"));
                }
            }
        }
    }
    plan
}

/// Can `f` run for a lane that is not active, as linearization runs arithmetic under a
/// false predicate (PLDI'18 §2.4)? Only if it has no effect and cannot trap or loop: no
/// memory access, call, atomic, trapping division, mask or cross-lane query (their
/// answers depend on which lanes run), `unreachable`, or cycle in its CFG (an inactive
/// lane's values need not end a loop).
fn speculatable(f: &lanes_ir::Function) -> bool {
    let safe = f.dfg.insts().all(|i| f.dfg.inst(i).is_speculatable());
    if !safe {
        return false;
    }
    let analyses =
        lanes_analysis::FunctionAnalyses::with_function(f, lanes_analysis::AnalysisSet::CFG);
    let cfg = analyses.cfg();
    // Acyclic: every edge goes forward in reverse postorder.
    cfg.rpo().iter().all(|&b| {
        let from = cfg.rpo_number(b);
        cfg.succs(b).iter().all(|&t| cfg.rpo_number(t) > from)
    })
}

/// The variant of `callee` for `shapes`: one the module has (made for another call site,
/// or a matching unmasked `declare simd` variant), else a new one; and whether it takes
/// strided arguments as scalars (the ones lanes makes here do).
fn variant_for(
    module: &mut Module,
    callee: FuncId,
    shapes: &[Option<(Shape, u32)>],
    prepared: &Prepared,
    width: u16,
    masked: bool,
    report: &mut WidenReport,
) -> Result<(FuncId, bool), WfvError> {
    let scalar = module.funcs[callee].name().to_string();
    let name = variant_name(&scalar, shapes, width, masked);
    if let Some(id) = module.func_by_name(&name) {
        return Ok((id, true));
    }
    if !masked {
        // `declare simd` variants name non-uniform parameters `v` (no linear ones here).
        let params: Vec<VParam> = shapes
            .iter()
            .map(|s| VParam::of_shape(s.map(|(s, _)| s), 0, false))
            .collect();
        for isa in ['e', 'd', 'c', 'b'] {
            let declared = mangle(&scalar, isa, width, &params);
            if let Some(id) = module.func_by_name(&declared) {
                if module.function(id).is_some() {
                    return Ok((id, false));
                }
            }
        }
    }
    let spec = VariantSpec {
        shapes,
        mode: prepared.mode,
        width,
        masked,
        name: &name,
        linear: true,
    };
    Ok((define_variant_noting(module, callee, &spec, report)?, true))
}

/// `callee.w<W>.<params>[.masked]`: one name per variant, so that call sites needing the
/// same one share it. The parameters are spelled as the vector-function ABI spells them
/// (`u` uniform, `l<step>` linear — these variants take strided arguments as lane 0's
/// value —, `v` vector, `a<n>` a known alignment).
pub(crate) fn variant_name(
    callee: &str,
    shapes: &[Option<(Shape, u32)>],
    width: u16,
    masked: bool,
) -> String {
    let letters: String = shapes
        .iter()
        .map(|s| {
            let (shape, align) = s.unwrap_or((Shape::Varying, 0));
            VParam::of_shape(Some(shape), if align > 1 { align } else { 0 }, true).mangled()
        })
        .collect();
    let mask = if masked { ".masked" } else { "" };
    format!("{callee}.w{width}.{letters}{mask}")
}

impl Widener<'_> {
    /// The call `inst` (in old block `b`) as a call of its vector variant `v`: uniform
    /// arguments stay scalar, strided ones are lane 0's scalar where the variant takes
    /// them linear, the others are vectors, and a masked variant gets the block's mask
    /// (all-true where the block has none).
    pub(super) fn vector_call(
        &mut self,
        b: lanes_ir::Block,
        inst: Inst,
        v: CalleeVariant,
    ) -> Option<Value> {
        let InstData::Call { args, .. } = self.old.dfg.inst(inst).clone() else {
            return None;
        };
        let mut new_args: Vec<Value> = args
            .iter()
            .map(|&a| {
                let shape = self.info.use_shape(self.old, a, inst);
                let strided = shape.stride().is_some_and(|n| n != 0);
                if self.is_uniform(a) {
                    self.mapped(a)
                } else if v.linear && strided {
                    self.lane0_of(a)
                } else {
                    self.vector(a)
                }
            })
            .collect();
        if v.masked {
            let m = match self.guard_mask(b, inst) {
                Some(m) => m,
                None => self.all_true(),
            };
            new_args.push(m);
        }
        let ty = self
            .old
            .dfg
            .inst_result(inst)
            .map(|r| vec_of(self.old.dfg.value_type(r), self.width));
        self.emit(
            InstData::Call {
                func: v.func,
                args: new_args,
            },
            ty,
        )
    }
}
