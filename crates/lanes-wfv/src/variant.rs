//! One vector variant of a scalar function: the whole pipeline of this crate, from the
//! scalar function to a new function of the module that runs `W` instances at once.
//!
//! Used by every entry point: `lanes vectorize` (the `_ZGV…` variant and the masked body
//! of the `F_spmd` launcher), `lanes compile`'s `#pragma omp declare simd` variants and
//! the outer-loop vectorizer ([`crate::outer_loop`], PLDI'18 §7), whose remainder calls
//! the masked body.

use lanes_analysis::shapes::ArgShapes;
use lanes_ir::{FuncId, Module, Shape};

use crate::{prepare, widen_into, with_entry_mask, Mode, WfvError};

/// Widens function `id` of `module` to `width` lanes for argument `shapes`, with a
/// trailing varying `i1` mask parameter if `masked` (lanes whose mask is false do nothing
/// and return zero), names the result `name` and returns its id.
pub fn define_variant(
    module: &mut Module,
    id: FuncId,
    shapes: &ArgShapes,
    mode: Mode,
    width: u16,
    masked: bool,
    name: &str,
) -> Result<FuncId, WfvError> {
    // Before anything is added to the module.
    crate::widen::check_width(width)?;
    let (src, shapes) = if masked {
        let mid = with_entry_mask(module, id)?;
        // No shapes means "each from its parameter's attribute": say so per parameter, so
        // that the mask's shape lands on the mask, not on the first parameter.
        let mut s = if shapes.is_empty() {
            vec![None; module.funcs[id].signature().params.len()]
        } else {
            shapes.to_vec()
        };
        s.push(Some((Shape::Varying, 0)));
        (mid, s)
    } else {
        (id, shapes.to_vec())
    };
    let mut p = prepare(module, src, &shapes, mode, &mut |_, _| {})?;
    if masked {
        p.mark_entry_mask();
    }
    let wid = widen_into(module, &p, &shapes, width)?;
    let f = module
        .function_mut(wid)
        .ok_or_else(|| WfvError::Internal("the widened function has no body".to_string()))?;
    f.name = name.to_string();
    Ok(wid)
}
