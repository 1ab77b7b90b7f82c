//! `#pragma omp declare simd` in `lanes compile`: the vector variants clang announces,
//! defined by whole-function vectorization.
//!
//! Under `-fopenmp-simd` (or `-fopenmp`) clang-19 marks each `declare simd` function with
//! one string attribute per variant of the x86 vector-function ABI (Intel's "Vector
//! Function ABI", §2.4 name mangling): `_ZGV` + ISA (`b` SSE, `c` AVX, `d` AVX2, `e`
//! AVX-512) + `N` (unmasked) or `M` (masked) + `W` + one letter per parameter + `_` +
//! the name. clang only declares these; `lanes compile` defines them, each by `lanes-wfv`
//! at width `W` (PLDI'18 §3–5 linearization, CC'12 §3.3 widening): `v` parameters are
//! varying vectors, `u` uniform scalars. A masked variant (`M`) takes the ABI's mask as
//! an extra last parameter, as GCC defines it (a vector of the characteristic type for
//! SSE/AVX/AVX2, an integer with bit `k` for lane `k` for AVX-512); a thin wrapper
//! ([`super::masked_variant`]) turns it into the `<W x i1>` entry mask of the masked
//! body, in which masked-off lanes perform no access and return zero.
//!
//! Variants lanes does not produce — linear (`l`, `R`, `L`, `U`) parameters, an ISA the
//! target lacks (it would change how vectors are passed), a masked variant whose
//! characteristic type is neither integer nor float — are skipped with a note on
//! standard error naming the symbol; a caller that needs one then fails to link rather
//! than running wrong code. A function lanes-wfv cannot vectorize is an error.

use anyhow::{anyhow, bail, Result};

use lanes_ir::{FuncId, Module, Shape};
use lanes_wfv::{define_variant, Mode};

use super::masked_variant;
use super::vectorize::has;

/// One parsed `_ZGV…` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub isa: char,
    pub masked: bool,
    pub width: u16,
    /// One letter per parameter (alignment suffixes dropped).
    pub params: Vec<char>,
    pub function: String,
}

/// Parses `_ZGV<isa><N|M><width><params>_<name>`.
pub fn parse_variant(name: &str) -> Option<Variant> {
    let rest = name.strip_prefix("_ZGV")?;
    let mut chars = rest.chars();
    let isa = chars.next()?;
    let masked = match chars.next()? {
        'N' => false,
        'M' => true,
        _ => return None,
    };
    let rest = chars.as_str();
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let width: u16 = rest[..digits].parse().ok()?;
    let (params_text, function) = rest[digits..].split_once('_')?;
    let mut params = Vec::new();
    let mut it = params_text.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            // Alignment `a<n>` belongs to the previous parameter.
            'a' if !params.is_empty() => {}
            'l' | 'R' | 'L' | 'U' | 'v' | 'u' => params.push(c),
            's' | 'n' | '0'..='9' if !params.is_empty() => {}
            _ => return None,
        }
        while it.peek().is_some_and(|c| c.is_ascii_digit()) {
            it.next();
        }
    }
    (width > 0 && !function.is_empty()).then(|| Variant {
        isa,
        masked,
        width,
        params,
        function: function.to_string(),
    })
}

/// The target feature an ISA letter needs.
fn isa_feature(isa: char) -> Option<&'static str> {
    match isa {
        'b' => Some("sse2"),
        'c' => Some("avx"),
        'd' => Some("avx2"),
        'e' => Some("avx512f"),
        _ => None,
    }
}

/// [`lanes_wfv::define_variant`], with the function named in the error.
pub fn widen_variant(
    module: &mut Module,
    id: FuncId,
    shapes: &[Option<(Shape, u32)>],
    mode: Mode,
    width: u16,
    masked: bool,
    name: &str,
) -> Result<FuncId> {
    let fname = module.funcs[id].name().to_string();
    define_variant(module, id, shapes, mode, width, masked, name)
        .map_err(|e| anyhow!("@{fname}: {e}"))
}

/// Defines every supported variant of `variants` (`(function, _ZGV name)`) in `module`
/// for a target with `features`; notes the others. Returns the names of the functions it
/// added that are not variants (to be internalized).
pub fn define_variants(
    module: &mut Module,
    variants: &[(String, String)],
    features: &str,
) -> Result<Vec<String>> {
    let names =
        |m: &Module| -> Vec<String> { m.funcs.iter().map(|(_, f)| f.name().to_string()).collect() };
    let before = names(module);
    let mut defined: Vec<String> = Vec::new();
    for (func, vname) in variants {
        let note = |why: &str| eprintln!("lanes: note: @{func}: {vname} not emitted: {why}");
        let Some(v) = parse_variant(vname) else {
            note("not a vector-function-ABI name lanes understands");
            continue;
        };
        if defined.contains(vname) {
            continue;
        }
        if !isa_feature(v.isa).is_some_and(|f| has(features, f)) {
            note("the target lacks its ISA (pass -march=native or a CPU that has it)");
            continue;
        }
        if v.params.iter().any(|&c| c != 'v' && c != 'u') {
            note("linear parameters are not supported (only uniform and varying)");
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
            bail!(
                "@{func}: {vname} names {} parameters, @{func} has {n}",
                v.params.len()
            );
        }
        let shapes: Vec<Option<(Shape, u32)>> = v
            .params
            .iter()
            .map(|&c| {
                Some((
                    if c == 'u' {
                        Shape::Uniform
                    } else {
                        Shape::Varying
                    },
                    0,
                ))
            })
            .collect();
        if v.masked {
            let scalar = module
                .function(id)
                .ok_or_else(|| anyhow!("@{func} has no body"))?;
            let cdt = masked_variant::characteristic_type(scalar, &v.params);
            let mask_ty = match masked_variant::mask_type(v.isa, v.width, cdt) {
                Ok(t) => t,
                Err(why) => {
                    note(why);
                    continue;
                }
            };
            let body_name = format!("{vname}.body");
            let body = widen_variant(
                module,
                id,
                &shapes,
                Mode::Partial,
                v.width,
                true,
                &body_name,
            )?;
            let wrapper = masked_variant::masked_wrapper(module, body, vname, mask_ty, v.width)
                .ok_or_else(|| anyhow!("@{func}: {vname}: the masked body has no mask"))?;
            module.define(wrapper);
        } else {
            widen_variant(module, id, &shapes, Mode::Partial, v.width, false, vname)?;
        }
        defined.push(vname.clone());
    }
    Ok(names(module)
        .into_iter()
        .filter(|n| !before.contains(n) && !defined.contains(n))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_parse() {
        let v = parse_variant("_ZGVeM16vul_foo_bar").expect("parses");
        assert_eq!(
            v,
            Variant {
                isa: 'e',
                masked: true,
                width: 16,
                params: vec!['v', 'u', 'l'],
                function: "foo_bar".to_string()
            }
        );
        let v = parse_variant("_ZGVbN4va16ls2u_f").expect("parses");
        assert_eq!(v.params, ['v', 'l', 'u']);
        assert!(parse_variant("_ZGVbX4v_f").is_none());
        assert!(parse_variant("foo").is_none());
        assert!(parse_variant("_ZGVbN4v").is_none());
    }
}
