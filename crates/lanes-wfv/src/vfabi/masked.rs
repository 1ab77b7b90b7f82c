//! Masked (`_ZGV<isa>M<W>…`) variants of `#pragma omp declare simd` functions: the ABI
//! mask of the x86 vector-function ABI (Intel's "Vector Function ABI", as GCC implements
//! it) turned into the `<W x i1>` entry mask of the masked body that `lanes-wfv` builds
//! (PLDI'18 §3–5 with an entry mask: an inactive lane performs no access and returns
//! zero).
//!
//! The mask is an extra last parameter. Its type depends on the ISA:
//!
//! - `b`, `c`, `d` (SSE, AVX, AVX2): a vector of `W` elements of the *characteristic data
//!   type* (the return type; for a `void` function the type of the first varying
//!   parameter; `int` without one); lane `k` is active iff element `k` is not zero as a
//!   bit pattern (callers pass all ones; for a float type that is a NaN, so the test is
//!   on the bits, not a float compare);
//! - `e` (AVX-512): an integer whose bit `k` is lane `k`. GCC passes it in a general
//!   register; lanes reads it as an `i64` and uses bits `0..W`, so a caller passing a
//!   narrower integer (`__mmask16`) works too.
//!
//! The variant is a thin wrapper: it computes the `<W x i1>` mask and calls the body,
//! which stays internal (and is inlined by LLVM's pipeline).

use lanes_ir::{BinaryOp, CastOp, FuncBuilder, FuncId, Function, IntCC, Module, ScalarType, Type};

/// The characteristic data type of a variant of `scalar` whose parameter letters are
/// `letters` (`v` varying, `u` uniform, …).
pub fn characteristic_type(scalar: &Function, letters: &[char]) -> Type {
    if let Some(t) = scalar.ret {
        return t;
    }
    scalar
        .params
        .iter()
        .zip(letters)
        .find(|(_, &c)| c == 'v')
        .map_or(Type::I32, |(p, _)| scalar.dfg.value_type(p.value))
}

/// The ABI type of the mask parameter for `isa`, width `width` and characteristic type
/// `cdt`, or why there is none lanes can handle.
pub fn mask_type(isa: char, width: u16, cdt: Type) -> Result<Type, &'static str> {
    if isa == 'e' {
        return if width <= 64 {
            Ok(Type::I64)
        } else {
            Err("an AVX-512 mask of more than 64 lanes")
        };
    }
    match cdt.elem() {
        ScalarType::F32 | ScalarType::F64 => Ok(Type::Vector(width, cdt.elem())),
        e if e.is_int() && e != ScalarType::I1 => Ok(Type::Vector(width, e)),
        _ => Err("the characteristic data type is not an integer or float"),
    }
}

/// `name(params of body but its last, mask: mask_ty)`: `body(…, active(mask))`, where
/// `body`'s last parameter is the `<W x i1>` entry mask.
pub fn masked_wrapper(
    module: &Module,
    body: FuncId,
    name: &str,
    mask_ty: Type,
    width: u16,
) -> Option<Function> {
    let callee = module.function(body)?;
    let mut tys: Vec<Type> = callee
        .params
        .iter()
        .map(|p| callee.dfg.value_type(p.value))
        .collect();
    tys.pop()?;
    tys.push(mask_ty);
    let mut f = Function::new(name, &tys, callee.ret);
    let params: Vec<_> = f.params.iter().map(|p| p.value).collect();
    let mask = *params.last()?;
    let mut b = FuncBuilder::new(&mut f);
    let entry = b.create_block();
    b.switch_to_block(entry);
    let active = if mask_ty.is_vector() {
        // Lane k is active iff element k has a bit set.
        let bits = match mask_ty.elem() {
            ScalarType::F32 => b.cast(CastOp::Bitcast, mask, Type::Vector(width, ScalarType::I32)),
            ScalarType::F64 => b.cast(CastOp::Bitcast, mask, Type::Vector(width, ScalarType::I64)),
            _ => mask,
        };
        let zero = b.iconst(b.func.dfg.value_type(bits), 0);
        b.icmp(IntCC::Ne, bits, zero)
    } else {
        // Lane k is active iff bit k is set: (splat(mask) & (1 << lane_id)) != 0.
        let vty = Type::Vector(width, ScalarType::I64);
        let splat = b.broadcast(mask, vty);
        let lanes = b.lane_id(vty);
        let one = b.iconst(vty, 1);
        let bit = b.binary(BinaryOp::Shl, one, lanes);
        let set = b.binary(BinaryOp::And, splat, bit);
        let zero = b.iconst(vty, 0);
        b.icmp(IntCC::Ne, set, zero)
    };
    let mut args = params[..params.len() - 1].to_vec();
    args.push(active);
    let ret = callee.ret;
    let call = b.call(body, args, ret);
    let r = b.func.dfg.inst_result(call);
    b.ret(r);
    Some(f)
}
