//! Calls to *declared* (external) functions: a small C math library.
//!
//! Kernels and C code call `sinf`, `sqrt`, `powf` and friends; the importer keeps such
//! calls as calls to declarations (`declare @sinf(f32) -> f32`). The interpreter
//! implements the usual libm names in Rust (the `f` suffix selects `f32`, no suffix
//! `f64`, computed in that precision) so that such programs can run; any other external
//! is an [`ErrorKind::UnknownExternal`]. The declaration's signature must be the C one —
//! a `sinf` declared on `f64` is reported, not silently reinterpreted. Vector arguments
//! of the right element type are accepted and evaluated lane by lane, as a vector variant
//! of the function (`_ZGV…`) would be after the vectorizer replaced the call.

use lanes_ir::{ScalarType, Signature, Type};

use crate::arith::malformed;
use crate::error::ErrorKind;
use crate::float::{max_num, min_num, Float};
use crate::value::RtValue;

/// The libm functions the interpreter implements, by `f64` name, with their arity.
const LIBM: &[(&str, usize)] = &[
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("exp", 1),
    ("exp2", 1),
    ("expm1", 1),
    ("log", 1),
    ("log2", 1),
    ("log10", 1),
    ("log1p", 1),
    ("sqrt", 1),
    ("cbrt", 1),
    ("fabs", 1),
    ("floor", 1),
    ("ceil", 1),
    ("trunc", 1),
    ("round", 1),
    ("rint", 1),
    ("nearbyint", 1),
    ("pow", 2),
    ("atan2", 2),
    ("fmod", 2),
    ("fmin", 2),
    ("fmax", 2),
    ("copysign", 2),
    ("hypot", 2),
    ("fdim", 2),
    ("fma", 3),
];

/// The element type and arity of a libm function `name`, if the interpreter has it.
pub fn libm_signature(name: &str) -> Option<(ScalarType, usize)> {
    let find = |base: &str| LIBM.iter().find(|(n, _)| *n == base).map(|&(_, a)| a);
    if let Some(arity) = find(name) {
        return Some((ScalarType::F64, arity));
    }
    let base = name.strip_suffix('f')?;
    find(base).map(|arity| (ScalarType::F32, arity))
}

/// One libm function on scalars; `base` is the `f64` name.
fn libm_fn<F: Float>(base: &str, xs: &[F]) -> F {
    let x = xs[0];
    let y = || xs.get(1).copied().unwrap_or(x);
    match base {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "expm1" => x.exp_m1(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "log1p" => x.ln_1p(),
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "fabs" => x.abs(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "trunc" => x.trunc(),
        "round" => x.round(),
        "rint" | "nearbyint" => x.rint(),
        "pow" => x.powf(y()),
        "atan2" => x.atan2(y()),
        "fmod" => x % y(),
        "fmin" => min_num(x, y()),
        "fmax" => max_num(x, y()),
        "copysign" => x.copysign(y()),
        "hypot" => x.hypot(y()),
        "fdim" => {
            let y = y();
            if x.is_nan() || y.is_nan() {
                x + y
            } else if x > y {
                x - y
            } else {
                F::from_i64(0)
            }
        }
        "fma" => x.mul_add(y(), xs.get(2).copied().unwrap_or(x)),
        _ => x,
    }
}

/// Calls the external function `name` declared with `sig` on `args` (whose types the
/// caller has checked against `sig`).
pub fn call_external(
    name: &str,
    sig: &Signature,
    args: &[RtValue],
) -> Result<Option<RtValue>, ErrorKind> {
    let Some((elem, arity)) = libm_signature(name) else {
        return Err(ErrorKind::UnknownExternal(name.to_string()));
    };
    let ty = sig.params.first().copied().unwrap_or(Type::Scalar(elem));
    let expected_ok = ty.elem() == elem
        && sig.params.len() == arity
        && sig.params.iter().all(|&p| p == ty)
        && sig.ret == Some(ty);
    if !expected_ok {
        let params = vec![elem.to_string(); arity].join(", ");
        return Err(ErrorKind::BadArgument(format!(
            "@{name} is declared with signature {} but the interpreter implements ({params}) -> {elem}",
            format_sig(sig)
        )));
    }
    if args.len() != arity || args.iter().any(|a| a.ty() != ty) {
        return Err(malformed(format!(
            "arguments of @{name} do not match its declaration"
        )));
    }
    let base = if elem == ScalarType::F32 {
        &name[..name.len() - 1]
    } else {
        name
    };
    fn lanes<F: Float>(base: &str, args: &[RtValue]) -> Vec<u64> {
        (0..args[0].lane_count())
            .map(|i| {
                let xs: Vec<F> = args.iter().map(|a| F::from_lane(a.lanes()[i])).collect();
                libm_fn(base, &xs).to_lane()
            })
            .collect()
    }
    let out = if elem == ScalarType::F32 {
        lanes::<f32>(base, args)
    } else {
        lanes::<f64>(base, args)
    };
    RtValue::from_lanes(ty, out)
        .map(Some)
        .ok_or_else(|| malformed("lane count"))
}

fn format_sig(sig: &Signature) -> String {
    let params: Vec<String> = sig.params.iter().map(Type::to_string).collect();
    match sig.ret {
        Some(r) => format!("({}) -> {r}", params.join(", ")),
        None => format!("({})", params.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(params: &[Type], ret: Type) -> Signature {
        Signature::new(params.to_vec(), Some(ret))
    }

    #[test]
    fn names_select_precision() {
        assert_eq!(libm_signature("sinf"), Some((ScalarType::F32, 1)));
        assert_eq!(libm_signature("sin"), Some((ScalarType::F64, 1)));
        assert_eq!(libm_signature("fmaf"), Some((ScalarType::F32, 3)));
        assert_eq!(libm_signature("fmodf"), Some((ScalarType::F32, 2)));
        assert_eq!(libm_signature("printf"), None);
        assert_eq!(libm_signature("f"), None);
    }

    #[test]
    fn calls_compute_in_the_declared_precision() {
        let s = sig(&[Type::F32], Type::F32);
        let r = call_external("sqrtf", &s, &[RtValue::f32(2.0)])
            .unwrap()
            .unwrap();
        assert_eq!(r, RtValue::f32(2.0f32.sqrt()));
        let p = sig(&[Type::F64, Type::F64], Type::F64);
        let r = call_external("pow", &p, &[RtValue::f64(2.0), RtValue::f64(10.0)]).unwrap();
        assert_eq!(r, Some(RtValue::f64(1024.0)));
        let v = Type::vector(2, ScalarType::F32);
        let r = call_external("fabsf", &sig(&[v], v), &[RtValue::f32s(&[-1.0, 2.0])]).unwrap();
        assert_eq!(r, Some(RtValue::f32s(&[1.0, 2.0])));
        let r = call_external(
            "fminf",
            &sig(&[Type::F32; 2], Type::F32),
            &[RtValue::f32(f32::NAN), RtValue::f32(3.0)],
        );
        assert_eq!(r, Ok(Some(RtValue::f32(3.0))));
    }

    #[test]
    fn unknown_or_misdeclared_functions_are_errors() {
        let s = sig(&[Type::F64], Type::F64);
        assert_eq!(
            call_external("frobnicate", &s, &[RtValue::f64(1.0)]),
            Err(ErrorKind::UnknownExternal("frobnicate".into()))
        );
        assert!(matches!(
            call_external("sinf", &s, &[RtValue::f64(1.0)]),
            Err(ErrorKind::BadArgument(_))
        ));
    }
}
