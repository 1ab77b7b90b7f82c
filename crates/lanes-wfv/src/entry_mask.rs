//! Functions called with some lanes switched off (remainder lanes of an SPMD launcher:
//! `F_spmd(…, n, …)` masks the lanes past `n`).
//!
//! Rather than threading a second kind of mask through every pass, the entry mask is made
//! part of the program: [`with_entry_mask`] gives (a copy of) the scalar function a last parameter
//! `active: i1` and a new entry block `brif active, old_entry, done`, where `done`
//! returns zero. With `active` varying, the branch is divergent, so predicates
//! (PLDI'18 §2.4) include it wherever it matters, linearization folds it, and widening
//! makes `active` the `<W x i1>` mask of the lanes that run: an inactive lane performs no
//! access and returns zero. Blocks then only keep a uniform predicate where all lanes
//! provably agree, which the divergence analysis decides as for any other branch.

use lanes_ir::{FuncId, Function, Module, Param, ParamAttrs, Shape, Type};

use crate::cfg_edit::return_zero_unless;
use crate::WfvError;

/// Defines in `module` a copy of function `id`, named `<name>.masked`, that takes a last
/// parameter `active: i1` (shape varying) and does nothing but return zero when it is
/// false; returns the copy's id. Callers of the original are unaffected.
pub fn with_entry_mask(module: &mut Module, id: FuncId) -> Result<FuncId, WfvError> {
    let Some(f) = module.function(id) else {
        return Err(WfvError::NoBody(module.funcs[id].name().to_string()));
    };
    let mut copy = f.clone();
    copy.name = format!("{}.masked", f.name);
    copy.origin = Some(f.origin_name().to_string());
    add_active_param(&mut copy)?;
    Ok(module.define(copy))
}

fn add_active_param(f: &mut Function) -> Result<(), WfvError> {
    if f.entry_block().is_none() {
        return Err(WfvError::NoBody(f.name.clone()));
    }
    let n = f.params.len();
    let active = f.dfg.make_param(n, Type::I1);
    f.params.push(Param {
        value: active,
        attrs: ParamAttrs {
            shape: Some(Shape::Varying),
            align: 0,
        },
    });
    if !f.abi.params.is_empty() {
        f.abi.params.resize(n + 1, Default::default());
    }
    if !return_zero_unless(f, |_| active) {
        return Err(WfvError::NoBody(f.name.clone()));
    }
    Ok(())
}
