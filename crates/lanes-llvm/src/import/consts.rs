//! Constants: global initializers as bytes, and constant operands as lanes instructions.
//!
//! lanes globals are byte arrays (`GlobalData::init`), so an initializer is serialized
//! through the data layout: integers and floats little-endian, aggregates field by field
//! at their layout offsets, `zeroinitializer`/`undef`/`poison` as zeros. Initializers that
//! need relocations (pointers to other globals) have no byte image and are rejected.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMTypeKind, LLVMValueKind};

use super::types::{element_type, struct_fields, Layout};

/// Writes the bytes of constant `c` at `offset` into `out` (which is large enough).
pub fn write_const(
    c: LLVMValueRef,
    layout: Layout,
    out: &mut [u8],
    offset: usize,
) -> Result<(), String> {
    // SAFETY: `c` is a live constant; accessors are chosen by its value kind and type kind.
    unsafe {
        let ty = LLVMTypeOf(c);
        let size = layout.alloc_size(ty) as usize;
        if offset + size > out.len() {
            return Err("initializer larger than its global".into());
        }
        match LLVMGetValueKind(c) {
            LLVMValueKind::LLVMConstantAggregateZeroValueKind
            | LLVMValueKind::LLVMConstantPointerNullValueKind
            | LLVMValueKind::LLVMUndefValueValueKind
            | LLVMValueKind::LLVMPoisonValueKind => Ok(()),
            LLVMValueKind::LLVMConstantIntValueKind => {
                let bits = LLVMGetIntTypeWidth(ty);
                if bits > 64 {
                    return Err(format!("{bits}-bit integer constant"));
                }
                let v = LLVMConstIntGetZExtValue(c).to_le_bytes();
                let n = (bits as usize).div_ceil(8);
                out[offset..offset + n].copy_from_slice(&v[..n]);
                Ok(())
            }
            LLVMValueKind::LLVMConstantFPValueKind => {
                let mut loses = 0;
                let x = LLVMConstRealGetDouble(c, &mut loses);
                match LLVMGetTypeKind(ty) {
                    LLVMTypeKind::LLVMFloatTypeKind => {
                        out[offset..offset + 4].copy_from_slice(&(x as f32).to_le_bytes())
                    }
                    LLVMTypeKind::LLVMDoubleTypeKind => {
                        out[offset..offset + 8].copy_from_slice(&x.to_le_bytes())
                    }
                    _ => return Err("float constant of an unsupported type".into()),
                }
                Ok(())
            }
            LLVMValueKind::LLVMConstantDataArrayValueKind
            | LLVMValueKind::LLVMConstantDataVectorValueKind
            | LLVMValueKind::LLVMConstantArrayValueKind
            | LLVMValueKind::LLVMConstantVectorValueKind
            | LLVMValueKind::LLVMConstantStructValueKind => {
                if let Some(fields) = struct_fields(ty) {
                    for i in 0..fields {
                        let e = LLVMGetAggregateElement(c, i);
                        if e.is_null() {
                            return Err("unreadable struct field".into());
                        }
                        let off = offset + layout.field_offset(ty, i) as usize;
                        write_const(e, layout, out, off)?;
                    }
                } else {
                    let elem = element_type(ty).ok_or("aggregate of unknown type")?;
                    let step = layout.alloc_size(elem) as usize;
                    let n = match LLVMGetTypeKind(ty) {
                        LLVMTypeKind::LLVMArrayTypeKind => LLVMGetArrayLength2(ty) as usize,
                        _ => LLVMGetVectorSize(ty) as usize,
                    };
                    for i in 0..n {
                        let e = LLVMGetAggregateElement(c, i as u32);
                        if e.is_null() {
                            return Err("unreadable array element".into());
                        }
                        write_const(e, layout, out, offset + i * step)?;
                    }
                }
                Ok(())
            }
            _ => Err("initializer needs a relocation or is not a plain constant".into()),
        }
    }
}
