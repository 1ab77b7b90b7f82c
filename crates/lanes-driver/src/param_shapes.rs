//! `--shapes`: the shape of each parameter, counted as the user wrote the function.
//!
//! For C, C++ and OpenCL C input the list names the parameters of the source, one shape
//! per C parameter in C order, whatever clang's ABI lowering made of them: a struct split
//! into coerced pieces, a struct passed `byval`, a hidden `sret` pointer for a returned
//! aggregate ([`lanes_llvm::c_params`] reads the mapping from clang's debug information).
//! Each C parameter's shape goes to every LLVM parameter that carries it — a uniform
//! struct has uniform pieces, a varying one varying pieces. A contiguous, strided or
//! aligned shape describes the value of a pointer or an integer, so it is accepted only
//! for a pointer or integer C parameter carried by exactly one LLVM parameter.
//!
//! The hidden `sret` pointer is always varying: it points at the storage of one
//! instance's result, and the instances of one call must not share it (uniform would make
//! every lane write the same struct; strided would be a promise about the caller's
//! addresses that the variant's name, `v`, does not carry). The caller passes a vector of
//! W result pointers.
//!
//! For `.ll`, `.bc` and `.lir` input the list counts the IR parameters, as lanes IR has
//! them; names are the IR's (`%n` → `n` in LLVM text, `v3` in `.lir`).
//!
//! An entry is `shape` or `name=shape`. As with keyword arguments, positional entries
//! come first and give the leading parameters in order; named ones follow, in any order,
//! each naming a parameter once. A list of positional entries alone must give every
//! parameter; once a list names any, the parameters it leaves out are varying.

use std::path::Path;

use lanes_analysis::shapes::parse_shape;
use lanes_ir::{AddrSpace, Function, ScalarType, Shape, Type};
use lanes_llvm::c_params::{c_signature, llvm_param_names, CKind, CSignature};
use lanes_llvm::clang::{ClangOptions, SourceKind};

use crate::DriverError;

/// A parsed shape: the shape and an alignment in bytes (0 if none given).
type Aligned = (Shape, u32);

/// The entries of a `--shapes` list.
#[derive(Debug, Default, PartialEq)]
struct ShapeList {
    positional: Vec<Aligned>,
    named: Vec<(String, Aligned)>,
}

fn bad(message: String) -> DriverError {
    DriverError::Shapes(message)
}

fn parse_list(text: &str) -> Result<ShapeList, DriverError> {
    let mut list = ShapeList::default();
    if text.trim().is_empty() {
        return Ok(list);
    }
    for (i, entry) in text.split(',').enumerate() {
        match entry.split_once('=') {
            Some((name, shape)) => {
                let name = name.trim().trim_start_matches('%').to_string();
                if name.is_empty() {
                    return Err(bad(format!(
                        "shape {i}: `{}` names no parameter",
                        entry.trim()
                    )));
                }
                let shape = parse_shape(shape, i).map_err(|e| bad(e.to_string()))?;
                list.named.push((name, shape));
            }
            None if !list.named.is_empty() => {
                return Err(bad(format!(
                    "shape {i}: `{}` follows a named shape; positional shapes come first",
                    entry.trim()
                )))
            }
            None => list
                .positional
                .push(parse_shape(entry, i).map_err(|e| bad(e.to_string()))?),
        }
    }
    Ok(list)
}

/// One shape per parameter of `names` (`what` says which parameters, e.g. "in C").
fn assign(
    list: &ShapeList,
    names: &[String],
    function: &str,
    what: &str,
) -> Result<Vec<Aligned>, DriverError> {
    let n = names.len();
    let described = || {
        let listed: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if name.is_empty() {
                    format!("<arg {}>", i + 1)
                } else {
                    name.clone()
                }
            })
            .collect();
        format!(
            "@{function} has {n} parameters{what} ({})",
            listed.join(", ")
        )
    };
    let given = list.positional.len();
    if given > n || (list.named.is_empty() && given != n) {
        return Err(bad(format!("{}; {given} shapes given", described())));
    }
    let mut shapes: Vec<Option<Aligned>> = list.positional.iter().copied().map(Some).collect();
    shapes.resize(n, None);
    for (name, shape) in &list.named {
        let i = names
            .iter()
            .position(|p| !p.is_empty() && p == name)
            .ok_or_else(|| bad(format!("no parameter `{name}`: {}", described())))?;
        if shapes[i].is_some() {
            return Err(bad(format!("parameter `{name}` is given two shapes")));
        }
        shapes[i] = Some(*shape);
    }
    Ok(shapes
        .into_iter()
        .map(|s| s.unwrap_or((Shape::Varying, 0)))
        .collect())
}

/// The shapes of `func`'s (lanes IR, i.e. LLVM) parameters from `--shapes` `text`, for a
/// function imported from `input` with `clang`'s options (module docs).
pub fn parameter_shapes(
    input: &Path,
    clang: &ClangOptions,
    func: &Function,
    text: &str,
) -> Result<Vec<Option<Aligned>>, DriverError> {
    parameter_shapes_with(input, clang, func, text, None)
}

/// Whether `--shapes` for `input` counts C parameters, which needs the function's C
/// signature ([`c_signature`], a `-O0 -g` compile of the source).
pub fn needs_c_signature(input: &Path) -> bool {
    SourceKind::of(input).is_some_and(SourceKind::is_source)
}

/// [`parameter_shapes`], with the C signature already read (`signature`, for source input;
/// `lanes vectorize` reads it beside the import, so that the two compiles of the source
/// overlap). With `None` it is read here when needed.
pub fn parameter_shapes_with(
    input: &Path,
    clang: &ClangOptions,
    func: &Function,
    text: &str,
    signature: Option<CSignature>,
) -> Result<Vec<Option<Aligned>>, DriverError> {
    let list = parse_list(text)?;
    let kind = SourceKind::of(input);
    if needs_c_signature(input) {
        let sig = match signature {
            Some(sig) => sig,
            None => c_signature(input, clang, &func.name)?,
        };
        return c_shapes(&list, &sig, func);
    }
    let names: Vec<String> = match kind {
        // Names are only needed when the list has some.
        Some(_) if !list.named.is_empty() => llvm_param_names(input, &func.name)?,
        Some(_) => vec![String::new(); func.params.len()],
        None => func.params.iter().map(|p| p.value.to_string()).collect(),
    };
    if names.len() != func.params.len() {
        return Err(DriverError::Internal(format!(
            "@{}: {} parameters in the file, {} imported",
            func.name,
            names.len(),
            func.params.len()
        )));
    }
    Ok(assign(&list, &names, &func.name, "")?
        .into_iter()
        .map(Some)
        .collect())
}

/// Expands shapes given per C parameter to the LLVM parameters that carry them.
fn c_shapes(
    list: &ShapeList,
    sig: &CSignature,
    func: &Function,
) -> Result<Vec<Option<Aligned>>, DriverError> {
    let name = &func.name;
    let optimized: Vec<String> = func
        .params
        .iter()
        .map(|p| llvm_spelling(func.dfg.value_type(p.value)))
        .collect();
    if sig.llvm_types != optimized {
        return Err(bad(format!(
            "@{name}'s LLVM parameters after optimization ({}) are not those of its C calling \
             convention ({}); the optimizer may change the parameters of a `static` function, \
             so it cannot be vectorized by C parameters — make it externally visible",
            optimized.join(", "),
            sig.llvm_types.join(", ")
        )));
    }
    let names: Vec<String> = sig.params.iter().map(|p| p.name.clone()).collect();
    let per_c = assign(list, &names, name, " in C")?;
    let mut out: Vec<Option<Aligned>> = vec![None; func.params.len()];
    for (pos, (param, &(shape, align))) in sig.params.iter().zip(&per_c).enumerate() {
        let simple = matches!(shape, Shape::Uniform | Shape::Varying) && align == 0;
        let one_scalar =
            matches!(param.kind, CKind::Integer | CKind::Pointer) && param.llvm_params.len() == 1;
        if !(simple || one_scalar) {
            let what = match param.kind {
                CKind::Aggregate => "a struct, union, array or complex value",
                CKind::Float => "a floating-point value",
                _ if param.llvm_params.len() != 1 => "passed in several pieces",
                _ => "neither a pointer nor an integer",
            };
            return Err(bad(format!(
                "parameter `{}` of @{name} is {what}: it can only be uniform (u) or varying (v); \
                 contiguous, strided and aligned shapes describe a pointer or an integer",
                param.display_name(pos + 1)
            )));
        }
        for &i in &param.llvm_params {
            out[i as usize] = Some((shape, align));
        }
    }
    if let Some(i) = sig.sret {
        out[i as usize] = Some((Shape::Varying, 0));
    }
    if let Some(i) = out.iter().position(Option::is_none) {
        return Err(DriverError::Internal(format!(
            "@{name}: LLVM parameter {i} carries no C parameter"
        )));
    }
    Ok(out)
}

/// How LLVM prints lanes type `t`.
fn llvm_spelling(t: Type) -> String {
    let scalar = |s: ScalarType| match s {
        ScalarType::I1 => "i1".to_string(),
        ScalarType::I8 => "i8".to_string(),
        ScalarType::I16 => "i16".to_string(),
        ScalarType::I32 => "i32".to_string(),
        ScalarType::I64 => "i64".to_string(),
        ScalarType::F32 => "float".to_string(),
        ScalarType::F64 => "double".to_string(),
        ScalarType::Ptr(AddrSpace(0)) => "ptr".to_string(),
        ScalarType::Ptr(AddrSpace(n)) => format!("ptr addrspace({n})"),
    };
    match t {
        Type::Scalar(s) => scalar(s),
        Type::Vector(n, s) => format!("<{n} x {}>", scalar(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn positional_then_named() {
        let l = parse_list("u, out=c,n=ua16").unwrap();
        assert_eq!(l.positional, vec![(Shape::Uniform, 0)]);
        let got = assign(&l, &names(&["a", "n", "out", "x"]), "f", " in C").unwrap();
        assert_eq!(
            got,
            vec![
                (Shape::Uniform, 0),
                (Shape::Uniform, 16),
                (Shape::Contiguous, 0),
                (Shape::Varying, 0)
            ]
        );
        assert!(parse_list("n=u,v").is_err());
        let e = assign(&parse_list("u,a=v").unwrap(), &names(&["a", "b"]), "f", "");
        assert!(e.unwrap_err().to_string().contains("two shapes"));
    }

    #[test]
    fn counts_and_unknown_names_list_the_parameters() {
        let p = names(&["a", "s", "n"]);
        let e = assign(&parse_list("u,v").unwrap(), &p, "f", " in C").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad --shapes: @f has 3 parameters in C (a, s, n); 2 shapes given"
        );
        let e = assign(&parse_list("m=u").unwrap(), &p, "f", " in C").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad --shapes: no parameter `m`: @f has 3 parameters in C (a, s, n)"
        );
        let unnamed = names(&["a", ""]);
        let e = assign(&parse_list("u").unwrap(), &unnamed, "f", "").unwrap_err();
        assert!(e.to_string().contains("(a, <arg 2>)"), "{e}");
    }
}
