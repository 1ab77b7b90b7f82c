//! What widening decides before it emits code: the shapes of the linearized function
//! (PLDI'18 §2.3), which values stay scalar (module `shapes`), and the vector variants
//! its calls use (module `callees`). Vector values the scalar function already has (a
//! small struct passed in a vector register) are accepted only where they are uniform.

use cranelift_entity::SecondaryMap;
use lanes_analysis::shapes::ArgShapes;
use lanes_analysis::CallGraph;
use lanes_ir::{FuncId, Module, Value};

use super::{callees, lanes, shapes};
use crate::{shapes_of_prepared, Prepared, WfvError};

/// What widening decides before it emits code: the shapes of the linearized function,
/// which values stay scalar, and the vector variants its calls use.
pub(super) struct Plan {
    pub info: lanes_analysis::shapes::ShapeInfo,
    pub uni: SecondaryMap<Value, bool>,
    pub calls: callees::CallPlan,
    /// The module's call graph when widening started (functions widening then defines are
    /// variants and copies that nothing in the function being widened reaches).
    pub graph: CallGraph,
}

impl Plan {
    pub fn new(
        module: &Module,
        prepared: &Prepared,
        args: &ArgShapes,
        width: u16,
    ) -> Result<Plan, WfvError> {
        let old = &prepared.func;
        let info = shapes_of_prepared(module, prepared, args, width)?;
        let graph = CallGraph::with_module(module);
        let pure = |f: FuncId| lanes::is_pure(module, &graph, f);
        let uni = shapes::uniform_values(old, &info, &pure);
        for p in &old.params {
            if !uni[p.value] && old.value_type(p.value).is_vector() {
                return Err(WfvError::Unsupported(format!(
                    "the vector parameter {} is not uniform (a small struct passed in a \
                     vector register: give it the shape u)",
                    p.value
                )));
            }
        }
        // Vector values of the scalar function (a small struct passed in a vector register,
        // `struct { float x, y; }` as `<2 x float>`) stay as they are where they are the
        // same in every lane; a varying one would be a vector of vectors.
        for i in old.dfg.insts() {
            let data = old.dfg.inst(i);
            let varying = match old.dfg.inst_result(i) {
                Some(r) => !uni[r],
                None => data.args().iter().any(|&a| !uni[a]),
            };
            let vector = old
                .dfg
                .inst_result(i)
                .map(|r| old.value_type(r))
                .into_iter()
                .chain(data.args().iter().map(|&a| old.value_type(a)))
                .any(|t| t.is_vector());
            if varying && vector {
                let v = old
                    .dfg
                    .inst_result(i)
                    .map_or_else(|| i.to_string(), |r| r.to_string());
                return Err(WfvError::Unsupported(format!(
                    "a vector value that differs between lanes ({v}; a small struct passed \
                     in a vector register, used with a varying value)"
                )));
            }
        }
        Ok(Plan {
            info,
            uni,
            calls: callees::CallPlan::default(),
            graph,
        })
    }
}
