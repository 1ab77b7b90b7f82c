//! `#pragma omp declare simd` in [`crate::compile()`]: the vector variants clang announces,
//! defined by whole-function vectorization.
//!
//! Under `-fopenmp-simd` (or `-fopenmp`) clang-19 marks each `declare simd` function with
//! one string attribute per variant of the x86 vector-function ABI (Intel's "Vector
//! Function ABI", §2.4 name mangling): `_ZGV` + ISA (`b` SSE, `c` AVX, `d` AVX2, `e`
//! AVX-512) + `N` (unmasked) or `M` (masked) + `W` + one letter per parameter + `_` +
//! the name ([`lanes_wfv::vfabi`]). clang only declares these; lanes defines them, each by `lanes-wfv`
//! at width `W` (PLDI'18 §3–5 linearization, CC'12 §3.3 widening): `v` parameters are
//! varying vectors, `u` uniform scalars. A masked variant (`M`) takes the ABI's mask as
//! an extra last parameter, as GCC defines it (a vector of the characteristic type for
//! SSE/AVX/AVX2, an integer with bit `k` for lane `k` for AVX-512); a thin wrapper
//! ([`lanes_wfv::vfabi::masked`]) turns it into the `<W x i1>` entry mask of the masked
//! body, in which masked-off lanes perform no access and return zero.
//!
//! Variants lanes does not produce — linear (`l`, `R`, `L`, `U`) parameters, an ISA the
//! target lacks (it would change how vectors are passed), a masked variant whose
//! characteristic type is neither integer nor float — are skipped with a note naming
//! the symbol; a caller that needs one then fails to link rather
//! than running wrong code. A function lanes-wfv cannot vectorize is an error.

use lanes_ir::{FuncId, Module, Shape};
use lanes_llvm::target::Target;
use lanes_wfv::vfabi::{isa_feature, masked, parse_variant};
use lanes_wfv::{define_variant_noting, Mode, VariantSpec, WidenNote, WidenReport};

use crate::DriverError;

/// [`lanes_wfv::define_variant_noting`], with the function named in the error; the
/// remarks and statistics of widening go to `report`.
pub(crate) fn widen_variant(
    module: &mut Module,
    id: FuncId,
    spec: &VariantSpec<'_>,
    report: &mut WidenReport,
) -> Result<FuncId, DriverError> {
    let function = module.funcs[id].name().to_string();
    define_variant_noting(module, id, spec, report).map_err(|e| DriverError::Vectorize {
        function,
        message: e.to_string(),
    })
}

/// Defines every supported variant of `variants` (`(function, _ZGV name)`) in `module`
/// for `target`; notes the others in `notes`, and gives widening's remarks in `remarks`. Returns the names of the functions it added
/// that are not variants (to be internalized).
pub(crate) fn define_variants(
    module: &mut Module,
    variants: &[(String, String)],
    target: &Target,
    mode: Mode,
    notes: &mut Vec<String>,
    remarks: &mut Vec<WidenNote>,
) -> Result<Vec<String>, DriverError> {
    let names =
        |m: &Module| -> Vec<String> { m.funcs.iter().map(|(_, f)| f.name().to_string()).collect() };
    let before = names(module);
    let mut defined: Vec<String> = Vec::new();
    for (func, vname) in variants {
        let mut note = |why: &str| notes.push(format!("note: @{func}: {vname} not emitted: {why}"));
        let Some(v) = parse_variant(vname) else {
            note("not a vector-function-ABI name lanes understands");
            continue;
        };
        if defined.contains(vname) {
            continue;
        }
        if !isa_feature(v.isa).is_some_and(|f| target.has(f)) {
            note("the target lacks its ISA (pass -march=native or a CPU that has it)");
            continue;
        }
        if !(1..=lanes_wfv::MAX_WIDTH).contains(&v.width) {
            note(&format!(
                "{} lanes; lanes makes 1 to {}",
                v.width,
                lanes_wfv::MAX_WIDTH
            ));
            continue;
        }
        if let Some(p) = v.params.iter().find(|p| p.shape().is_none()) {
            note(&format!(
                "its linear parameter `{}` is not supported (lanes takes uniform, varying and \
                 linear parameters with a constant step, not variable steps or references)",
                p.mangled()
            ));
            continue;
        }
        let Some(id) = module
            .func_by_name(func)
            .filter(|&id| module.function(id).is_some())
        else {
            note("the function has no body here");
            continue;
        };
        let n = module.function(id).map_or(0, |f| f.params.len());
        if v.params.len() != n {
            return Err(DriverError::Variant(format!(
                "@{func}: {vname} names {} parameters, @{func} has {n}",
                v.params.len()
            )));
        }
        // Linear parameters (`l<step>`) arrive as lane 0's value: strided shapes passed
        // linear; `aligned(…)` is the parameter's alignment.
        let shapes: Vec<Option<(Shape, u32)>> = v.params.iter().map(|p| p.shape()).collect();
        if v.masked {
            let scalar = module
                .function(id)
                .ok_or_else(|| DriverError::Variant(format!("@{func} has no body")))?;
            let cdt = masked::characteristic_type(scalar, &v.letters());
            let mask_ty = match masked::mask_type(v.isa, v.width, cdt) {
                Ok(t) => t,
                Err(why) => {
                    note(why);
                    continue;
                }
            };
            let body_name = format!("{vname}.body");
            let spec = VariantSpec {
                shapes: &shapes,
                mode,
                width: v.width,
                masked: true,
                name: &body_name,
                linear: true,
            };
            let mut report = WidenReport::default();
            let body = widen_variant(module, id, &spec, &mut report)?;
            remarks.extend(report.notes);
            let wrapper = masked::masked_wrapper(module, body, vname, mask_ty, v.width)
                .ok_or_else(|| {
                    DriverError::Internal(format!("@{func}: {vname}: the masked body has no mask"))
                })?;
            module.define(wrapper);
        } else {
            let spec = VariantSpec {
                shapes: &shapes,
                mode,
                width: v.width,
                masked: false,
                name: vname,
                linear: true,
            };
            let mut report = WidenReport::default();
            widen_variant(module, id, &spec, &mut report)?;
            remarks.extend(report.notes);
        }
        defined.push(vname.clone());
    }
    Ok(names(module)
        .into_iter()
        .filter(|n| !before.contains(n) && !defined.contains(n))
        .collect())
}
