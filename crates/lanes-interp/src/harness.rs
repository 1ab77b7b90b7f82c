//! Executing run lines: turning argument specs into values and buffers, calling, and
//! comparing the outcome and memory with the expectation.
//!
//! The filetest runner and the `lanes interp` command both go through [`bind_args`] so
//! that a literal means the same thing everywhere (see [`crate::runline`] for the
//! syntax). Comparisons use [`RtValue::same_as`] (bit equality, any NaN equal to any
//! NaN, `-0.0 ≠ 0.0`) or, for `~=`, a relative tolerance; an expected trap matches an
//! error whose [`ErrorKind::code`](crate::ErrorKind::code) equals the text or whose message
//! contains it.

use lanes_ir::{Module, ScalarType, Type};

use crate::error::InterpError;
use crate::interp::Interpreter;
use crate::memory::{MemError, Memory};
use crate::runline::{ArgSpec, BufInit, Check, CheckTarget, Lit, Outcome, RunLine, ValueSpec};
use crate::value::{fmt_lane, is_nan, normalize, RtValue};

/// A buffer the harness allocated for an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundBuffer {
    pub ptr: u64,
    pub elem: ScalarType,
    /// Number of elements.
    pub len: u64,
}

/// Arguments ready for a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundArgs {
    pub values: Vec<RtValue>,
    pub buffers: Vec<BoundBuffer>,
}

/// Why a run line did not pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    #[error("no function @{0} in the module")]
    NoSuchFunction(String),
    #[error("@{func} takes {expected} arguments, {given} given")]
    Arity {
        func: String,
        expected: usize,
        given: usize,
    },
    #[error("argument {index}: {message}")]
    Argument { index: usize, message: String },
    #[error("cannot allocate a buffer: {0}")]
    Memory(#[from] MemError),
    /// The call failed where it should not have.
    #[error("{0}")]
    Interp(Box<InterpError>),
    /// The call did something other than expected.
    #[error("{0}")]
    Mismatch(String),
}

/// The bits of literal `lit` as a lane of `elem`.
pub fn lit_bits(lit: &Lit, elem: ScalarType, buffers: &[BoundBuffer]) -> Result<u64, String> {
    let bits = elem.bits();
    match (lit, elem) {
        (Lit::Bool(b), ScalarType::I1) => Ok(u64::from(*b)),
        (Lit::Int(n), e) if e.is_int() || e.is_ptr() => {
            let lo = -(1i128 << (bits - 1));
            let hi = (1i128 << bits) - 1;
            if (lo..=hi).contains(n) {
                Ok(normalize(elem, *n as u64))
            } else {
                Err(format!("{n} does not fit in {elem}"))
            }
        }
        (Lit::Int(n), ScalarType::F32) => Ok(u64::from((*n as f32).to_bits())),
        (Lit::Int(n), ScalarType::F64) => Ok((*n as f64).to_bits()),
        (Lit::Float(t), ScalarType::F32) => t
            .parse::<f32>()
            .map(|x| u64::from(x.to_bits()))
            .map_err(|_| format!("bad f32 `{t}`")),
        (Lit::Float(t), ScalarType::F64) => t
            .parse::<f64>()
            .map(f64::to_bits)
            .map_err(|_| format!("bad f64 `{t}`")),
        (Lit::Null, ScalarType::Ptr(_)) => Ok(0),
        (Lit::BufRef { buf, offset }, ScalarType::Ptr(_)) => match buffers.get(*buf) {
            Some(b) => Ok(b.ptr.wrapping_add(*offset as u64)),
            None => Err(format!("buf{buf} is not an earlier buffer argument")),
        },
        (lit, elem) => Err(format!("{} is not a literal of type {elem}", describe(lit))),
    }
}

fn describe(lit: &Lit) -> String {
    match lit {
        Lit::Int(n) => n.to_string(),
        Lit::Float(t) => t.clone(),
        Lit::Bool(b) => b.to_string(),
        Lit::Null => "null".into(),
        Lit::BufRef { buf, offset } => format!("buf{buf}{offset:+}"),
    }
}

/// The value `spec` denotes at type `ty`.
pub fn value_of(spec: &ValueSpec, ty: Type, buffers: &[BoundBuffer]) -> Result<RtValue, String> {
    let elem = ty.elem();
    if ty.lane_count() == 0 {
        return Err(format!("type {ty} has no lanes"));
    }
    match (spec, ty) {
        (ValueSpec::Scalar(l), Type::Scalar(_)) => {
            Ok(RtValue::from_bits(elem, lit_bits(l, elem, buffers)?))
        }
        (ValueSpec::Vector(ls), Type::Vector(n, _)) if ls.len() == usize::from(n) => {
            let lanes = ls
                .iter()
                .map(|l| lit_bits(l, elem, buffers))
                .collect::<Result<_, _>>()?;
            RtValue::from_lanes(ty, lanes).ok_or_else(|| "bad vector".to_string())
        }
        (ValueSpec::Vector(ls), Type::Vector(n, _)) => {
            Err(format!("{} lanes given for {ty}, which has {n}", ls.len()))
        }
        (ValueSpec::Scalar(l), Type::Vector(..)) => {
            // A scalar literal for a vector: splat it, as `iconst` does.
            Ok(RtValue::splat(ty, lit_bits(l, elem, buffers)?))
        }
        (ValueSpec::Vector(_), Type::Scalar(_)) => Err(format!("a vector given for {ty}")),
    }
}

/// Binds argument specs to parameters of types `params`, allocating buffers in `mem`.
pub fn bind_args(
    func: &str,
    specs: &[ArgSpec],
    params: &[Type],
    mem: &mut Memory,
) -> Result<BoundArgs, HarnessError> {
    if specs.len() != params.len() {
        return Err(HarnessError::Arity {
            func: func.to_string(),
            expected: params.len(),
            given: specs.len(),
        });
    }
    let mut bound = BoundArgs {
        values: Vec::new(),
        buffers: Vec::new(),
    };
    for (index, (spec, &ty)) in specs.iter().zip(params).enumerate() {
        let arg_err = |message: String| HarnessError::Argument { index, message };
        let value = match spec {
            ArgSpec::Value(v) => value_of(v, ty, &bound.buffers).map_err(arg_err)?,
            ArgSpec::Buffer(b) => {
                let Type::Scalar(ScalarType::Ptr(space)) = ty else {
                    return Err(arg_err(format!(
                        "a buffer given for a parameter of type {ty}"
                    )));
                };
                let size = u64::from(b.elem.bytes());
                let align = b.elem.bytes().max(16);
                let (ptr, len) = match &b.init {
                    BufInit::Zeroed(n) => (mem.alloc(size.saturating_mul(*n), align, space)?, *n),
                    BufInit::File(path) => {
                        let bytes = std::fs::read(path)
                            .map_err(|e| arg_err(format!("cannot read {}: {e}", path.display())))?;
                        if !(bytes.len() as u64).is_multiple_of(size) {
                            return Err(arg_err(format!(
                                "{} has {} bytes, not whole elements of {size} bytes ({})",
                                path.display(),
                                bytes.len(),
                                b.elem
                            )));
                        }
                        let len = bytes.len() as u64 / size;
                        (mem.alloc_init(&bytes, align, space, false)?, len)
                    }
                    BufInit::Values(lits) => {
                        let mut bytes = Vec::new();
                        for lit in lits {
                            let bits = lit_bits(lit, b.elem, &bound.buffers).map_err(arg_err)?;
                            bytes.extend_from_slice(&bits.to_le_bytes()[..size as usize]);
                        }
                        (
                            mem.alloc_init(&bytes, align, space, false)?,
                            lits.len() as u64,
                        )
                    }
                };
                mem.set_read_only(ptr, b.read_only);
                bound.buffers.push(BoundBuffer {
                    ptr,
                    elem: b.elem,
                    len,
                });
                RtValue::from_bits(ScalarType::Ptr(space), ptr)
            }
        };
        bound.values.push(value);
    }
    Ok(bound)
}

/// Do two lanes agree within the `~=` tolerance?
fn approx_lane(elem: ScalarType, a: u64, b: u64) -> bool {
    let (x, y, tol) = match elem {
        ScalarType::F32 => (
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
            1e-5,
        ),
        ScalarType::F64 => (f64::from_bits(a), f64::from_bits(b), 1e-12),
        _ => return a == b,
    };
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x.is_infinite() || y.is_infinite() {
        return x == y;
    }
    x == y || (x - y).abs() <= tol * x.abs().max(y.abs()).max(f64::MIN_POSITIVE)
}

fn lanes_match(elem: ScalarType, approx: bool, a: u64, b: u64) -> bool {
    if approx {
        approx_lane(elem, a, b)
    } else {
        a == b || (is_nan(elem, a) && is_nan(elem, b))
    }
}

fn show_lanes(elem: ScalarType, lanes: &[u64]) -> String {
    let mut s = format!("[{elem}: ");
    for (i, &l) in lanes.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = fmt_lane(&mut s, elem, l);
    }
    s.push(']');
    s
}

/// Runs one run line with a fresh memory; `Ok` if it passed.
pub fn run_line(interp: &Interpreter<'_>, line: &RunLine) -> Result<(), HarnessError> {
    let module = interp.module();
    let func = module
        .func_by_name(&line.func)
        .ok_or_else(|| HarnessError::NoSuchFunction(line.func.clone()))?;
    let params = module.funcs[func].signature().params;
    let mut mem = Memory::new();
    interp
        .init_globals(&mut mem)
        .map_err(|e| HarnessError::Interp(Box::new(e)))?;
    let bound = bind_args(&line.func, &line.args, &params, &mut mem)?;
    let result = interp.call(func, &bound.values, &mut mem);
    let mismatch = |m: String| Err(HarnessError::Mismatch(m));
    match (&line.outcome, result) {
        (Outcome::Traps(what), Err(e)) => {
            if e.code() != what && !e.to_string().contains(what.as_str()) {
                return mismatch(format!("expected a trap `{what}`, got: {e}"));
            }
        }
        (Outcome::Traps(what), Ok(v)) => {
            let got = v.map_or_else(|| "no value".to_string(), |v| v.to_string());
            return mismatch(format!(
                "expected a trap `{what}`, but the call returned {got}"
            ));
        }
        (_, Err(e)) => return Err(HarnessError::Interp(Box::new(e))),
        (Outcome::Succeeds, Ok(_)) => {}
        (Outcome::Equals(spec) | Outcome::Approx(spec), Ok(got)) => {
            let approx = matches!(line.outcome, Outcome::Approx(_));
            let Some(got) = got else {
                return mismatch("the call returned no value".into());
            };
            let want = value_of(spec, got.ty(), &bound.buffers)
                .map_err(|m| HarnessError::Mismatch(format!("expected value: {m}")))?;
            let elem = got.elem();
            let ok = want
                .lanes()
                .iter()
                .zip(got.lanes())
                .all(|(&a, &b)| lanes_match(elem, approx, a, b));
            if !ok {
                return mismatch(format!("expected {want}, got {got}"));
            }
        }
    }
    for check in &line.checks {
        run_check(interp, module, &mem, &bound, check)?;
    }
    Ok(())
}

fn run_check(
    interp: &Interpreter<'_>,
    module: &Module,
    mem: &Memory,
    bound: &BoundArgs,
    check: &Check,
) -> Result<(), HarnessError> {
    let mismatch = |m: String| HarnessError::Mismatch(m);
    let (name, ptr, size) = match &check.target {
        CheckTarget::Buffer(i) => {
            let b = bound
                .buffers
                .get(*i)
                .ok_or_else(|| mismatch(format!("there is no buffer buf{i}")))?;
            (format!("buf{i}"), b.ptr, b.len * u64::from(b.elem.bytes()))
        }
        CheckTarget::Global(g) => {
            let ptr = interp
                .global_ptr(mem, g)
                .ok_or_else(|| mismatch(format!("there is no global @{g}")))?;
            let size = module
                .global_by_name(g)
                .map_or(0, |id| module.globals[id].size);
            (format!("@{g}"), ptr, size)
        }
    };
    let esize = u64::from(check.elem.bytes());
    let want: Vec<u64> = check
        .values
        .iter()
        .map(|l| lit_bits(l, check.elem, &bound.buffers))
        .collect::<Result<_, _>>()
        .map_err(|m| mismatch(format!("{name}: {m}")))?;
    if want.len() as u64 * esize != size {
        return Err(mismatch(format!(
            "{name} has {size} bytes, but {} x {} ({} bytes) were given",
            want.len(),
            check.elem,
            want.len() as u64 * esize
        )));
    }
    let bytes = mem
        .read_bytes(ptr, size)
        .map_err(|e| mismatch(format!("{name}: {e}")))?;
    let got: Vec<u64> = bytes
        .chunks_exact(esize as usize)
        .filter_map(|c| RtValue::from_le_bytes(Type::Scalar(check.elem), c))
        .map(|v| v.lanes()[0])
        .collect();
    let ok = want
        .iter()
        .zip(&got)
        .all(|(&a, &b)| lanes_match(check.elem, check.approx, a, b));
    if !ok {
        return Err(mismatch(format!(
            "{name}: expected {}, got {}",
            show_lanes(check.elem, &want),
            show_lanes(check.elem, &got)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::AddrSpace;

    #[test]
    fn literals_take_the_parameter_type() {
        let no = &[];
        assert_eq!(lit_bits(&Lit::Int(-1), ScalarType::I8, no), Ok(0xff));
        assert_eq!(
            lit_bits(&Lit::Int(255), ScalarType::I8, no).map(|b| b as u8),
            Ok(255)
        );
        assert!(lit_bits(&Lit::Int(256), ScalarType::I8, no).is_err());
        assert!(lit_bits(&Lit::Int(2), ScalarType::I1, no).is_err());
        assert_eq!(
            lit_bits(&Lit::Int(3), ScalarType::F32, no),
            Ok(u64::from(3f32.to_bits()))
        );
        let tenth = lit_bits(&Lit::Float("0.1".into()), ScalarType::F32, no).unwrap();
        assert_eq!(tenth, u64::from(0.1f32.to_bits()));
        assert!(lit_bits(&Lit::Float("0.1".into()), ScalarType::I32, no).is_err());
        let bufs = [BoundBuffer {
            ptr: 1 << 40,
            elem: ScalarType::I32,
            len: 4,
        }];
        let p = lit_bits(
            &Lit::BufRef { buf: 0, offset: 8 },
            ScalarType::Ptr(AddrSpace::GLOBAL),
            &bufs,
        );
        assert_eq!(p, Ok((1 << 40) + 8));
        assert!(lit_bits(
            &Lit::BufRef { buf: 1, offset: 0 },
            ScalarType::Ptr(AddrSpace::PRIVATE),
            &bufs
        )
        .is_err());
    }

    #[test]
    fn scalars_splat_to_vectors_and_lane_counts_are_checked() {
        let v4 = Type::vector(4, ScalarType::I32);
        assert_eq!(
            value_of(&ValueSpec::Scalar(Lit::Int(7)), v4, &[]),
            Ok(RtValue::i32s(&[7; 4]))
        );
        assert!(value_of(&ValueSpec::Vector(vec![Lit::Int(1)]), v4, &[]).is_err());
        assert!(value_of(&ValueSpec::Vector(vec![Lit::Int(1)]), Type::I32, &[]).is_err());
    }

    #[test]
    fn tolerance() {
        let f = |x: f32| u64::from(x.to_bits());
        assert!(approx_lane(ScalarType::F32, f(1.0), f(1.000001)));
        assert!(!approx_lane(ScalarType::F32, f(1.0), f(1.001)));
        assert!(approx_lane(ScalarType::F32, f(f32::NAN), f(f32::NAN)));
        assert!(!approx_lane(ScalarType::F32, f(f32::INFINITY), f(f32::MAX)));
        assert!(!lanes_match(
            ScalarType::F64,
            false,
            0.0f64.to_bits(),
            (-0.0f64).to_bits()
        ));
    }
}
