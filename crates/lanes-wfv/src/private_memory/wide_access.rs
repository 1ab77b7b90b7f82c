//! Loads and stores of several elements of an interleaved private array, split into one
//! access per element.
//!
//! In the element-major layout the `g`-byte elements of one lane are `W·g` bytes apart, so
//! an access of `k·g` bytes at logical offset `o` touches `k` separate elements: at `o`,
//! `o + g`, … — physically `p`, `p + W·g`, … from its pointer `p`. A store writes the
//! value's `k` little-endian pieces there (the bits of a float through its integer
//! twin); a load reads the pieces and puts them back together. The pieces' addresses
//! share the access's shape, so a wide access at a uniform index becomes `k` vector
//! accesses. C reaches this through `memset` and `memcpy` of private arrays, which the
//! importer expands into 8-byte accesses (`float v[n] = {0}`, struct copies).

use lanes_ir::{
    BinaryOp, CastOp, FuncCursor, Function, Inst, InstData, IntFlags, Intrinsic, MemAccess, Type,
    Value,
};

/// The integer type of `bytes` bytes.
fn int_of(bytes: u32) -> Type {
    match bytes {
        1 => Type::I8,
        2 => Type::I16,
        4 => Type::I32,
        _ => Type::I64,
    }
}

/// Splits load or store `inst` (plain, integer or float, a multiple of `g` bytes) into
/// `g`-byte accesses, in place.
pub(super) fn split(func: &mut Function, inst: Inst, g: u32) {
    let data = func.dfg.inst(inst).clone();
    let (ptr, stored) = match data {
        InstData::Load { ptr, .. } => (ptr, None),
        InstData::Store { value, ptr, .. } => (ptr, Some(value)),
        _ => return,
    };
    let ty = match stored {
        Some(v) => func.dfg.value_type(v),
        None => match func.dfg.inst_result(inst) {
            Some(r) => func.dfg.value_type(r),
            None => return,
        },
    };
    let whole = int_of(ty.bytes());
    let piece = int_of(g);
    let count = ty.bytes() / g;
    let ptr_ty = func.dfg.value_type(ptr);
    let mut cur = FuncCursor::new(func);
    cur.goto_inst(inst);
    let bin = |op, args| InstData::Binary {
        op,
        args,
        flags: IntFlags::NONE,
    };
    let cast = |op, arg| InstData::Cast {
        op,
        arg,
        flags: IntFlags::NONE,
    };
    let lanes = cur.insert_value(
        InstData::Intrinsic {
            id: Intrinsic::NumLanes,
            args: vec![],
        },
        Type::I64,
    );
    // Piece `j`'s address: `j·g` logical bytes on, `W·j·g` physical ones.
    let mut addresses = vec![ptr];
    for j in 1..count {
        let logical = cur.insert_value(
            InstData::Iconst {
                imm: i64::from(j * g),
            },
            Type::I64,
        );
        let physical = cur.insert_value(bin(BinaryOp::Mul, [logical, lanes]), Type::I64);
        addresses.push(cur.insert_value(
            InstData::PtrAdd {
                args: [ptr, physical],
                flags: IntFlags::NONE,
            },
            ptr_ty,
        ));
    }
    let access = |value, ptr| InstData::Store {
        value,
        ptr,
        align: g,
        access: MemAccess::PLAIN,
    };
    let shift_of = |cur: &mut FuncCursor<'_>, j: u32| {
        cur.insert_value(
            InstData::Iconst {
                imm: i64::from(j * g * 8),
            },
            whole,
        )
    };
    match stored {
        Some(value) => {
            let bits = if ty.is_float() {
                cur.insert_value(cast(CastOp::Bitcast, value), whole)
            } else {
                value
            };
            for (j, &at) in (0..count).zip(&addresses) {
                let shifted = if j == 0 {
                    bits
                } else {
                    let k = shift_of(&mut cur, j);
                    cur.insert_value(bin(BinaryOp::LShr, [bits, k]), whole)
                };
                let part = cur.insert_value(cast(CastOp::Trunc, shifted), piece);
                cur.insert_inst(access(part, at), None);
            }
            cur.goto_inst(inst);
            cur.remove_inst();
        }
        None => {
            let mut combined: Option<Value> = None;
            for (j, &at) in (0..count).zip(&addresses) {
                let part = cur.insert_value(
                    InstData::Load {
                        ptr: at,
                        align: g,
                        access: MemAccess::PLAIN,
                    },
                    piece,
                );
                let wide = cur.insert_value(cast(CastOp::Zext, part), whole);
                let placed = if j == 0 {
                    wide
                } else {
                    let k = shift_of(&mut cur, j);
                    cur.insert_value(bin(BinaryOp::Shl, [wide, k]), whole)
                };
                combined = Some(match combined {
                    Some(c) => cur.insert_value(bin(BinaryOp::Or, [c, placed]), whole),
                    None => placed,
                });
            }
            let Some(bits) = combined else {
                return;
            };
            let value = if ty.is_float() {
                cur.insert_value(cast(CastOp::Bitcast, bits), ty)
            } else {
                bits
            };
            if let Some(old) = func.dfg.inst_result(inst) {
                func.dfg.replace_uses(old, value);
            }
            let mut cur = FuncCursor::new(func);
            cur.goto_inst(inst);
            cur.remove_inst();
        }
    }
}
