//! One vector variant of a scalar function: the whole pipeline of this crate, from the
//! scalar function to a new function of the module that runs `W` instances at once.
//!
//! Used by every entry point: `lanes vectorize` (the `_ZGV…` variant and the masked body
//! of the `F_spmd` launcher), `lanes compile`'s `#pragma omp declare simd` variants and
//! the outer-loop vectorizer ([`crate::outer_loop`], PLDI'18 §7), whose remainder calls
//! the masked body.

use lanes_analysis::shapes::ArgShapes;
use lanes_ir::{FuncId, Module, Shape};

use crate::widen::{widen_into_noting, WidenReport};
use crate::{prepare, with_entry_mask, Mode, WfvError};

/// What variant to make: argument shapes, linearization mode, width, whether it takes a
/// trailing mask, and its name.
#[derive(Clone, Copy, Debug)]
pub struct VariantSpec<'a> {
    pub shapes: &'a ArgShapes,
    pub mode: Mode,
    pub width: u16,
    pub masked: bool,
    pub name: &'a str,
    /// Strided parameters are passed as lane 0's scalar ([`crate::Prepared::linear_params`]).
    pub linear: bool,
}

/// Widens function `id` of `module` to `width` lanes for argument `shapes`, with a
/// trailing varying `i1` mask parameter if `masked` (lanes whose mask is false do nothing
/// and return zero), names the result `name` and returns its id. The functions it calls
/// with lane-varying arguments get variants too; where gathers, scatters and per-lane code
/// remain is reported by [`define_variant_noting`].
pub fn define_variant(
    module: &mut Module,
    id: FuncId,
    shapes: &ArgShapes,
    mode: Mode,
    width: u16,
    masked: bool,
    name: &str,
) -> Result<FuncId, WfvError> {
    let spec = VariantSpec {
        shapes,
        mode,
        width,
        masked,
        name,
        linear: false,
    };
    define_variant_noting(module, id, &spec, &mut WidenReport::default())
}

/// [`define_variant`], adding to `report` the remarks of widening the function and the
/// callees vectorized with it (gathers, scatters, code run once per lane;
/// [`crate::WidenNote`]) and their Table 1 statistics, the function's last.
pub fn define_variant_noting(
    module: &mut Module,
    id: FuncId,
    spec: &VariantSpec<'_>,
    report: &mut WidenReport,
) -> Result<FuncId, WfvError> {
    let VariantSpec {
        shapes,
        mode,
        width,
        masked,
        name,
        linear,
    } = *spec;
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
    p.linear_params = linear;
    let wid = widen_into_noting(module, &p, &shapes, width, report)?;
    let f = module
        .function_mut(wid)
        .ok_or_else(|| WfvError::Internal("the widened function has no body".to_string()))?;
    f.name = name.to_string();
    if let Some(s) = report.variants.last_mut() {
        s.function = name.to_string();
    }
    Ok(wid)
}
