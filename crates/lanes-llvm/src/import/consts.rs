//! Constants: global initializers as bytes, and constant operands as lanes instructions.
//!
//! lanes globals are byte arrays (`GlobalData::init`), so an initializer is serialized
//! through the data layout: integers and floats little-endian, aggregates field by field
//! at their layout offsets, `zeroinitializer`/`undef`/`poison` as zeros. Initializers that
//! need relocations (pointers to other globals) have no byte image and are rejected.
//!
//! Constant operands of instructions become lanes instructions where they are used:
//! integers and floats `iconst`/`fconst` (float bits exact), `undef`/`poison`/null/zero
//! vectors a zero, non-splat vectors a broadcast and inserts, globals `global_addr`, and the
//! constant expressions clang leaves in operands (`getelementptr`, pointer casts) the
//! instructions they stand for.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind, LLVMValueKind};

use lanes_ir::{CastOp, InstData, IntFlags, Intrinsic, ScalarType, Type, Value};

use super::func::FnCx;
use super::types::{element_type, struct_fields, Layout};
use crate::error::ImportError;
use crate::llvm::print_value;

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

impl FnCx<'_> {
    pub(super) unsafe fn constant(&mut self, c: LLVMValueRef) -> Result<Value, ImportError> {
        let ty = self.llty(c)?;
        Ok(match LLVMGetValueKind(c) {
            LLVMValueKind::LLVMConstantIntValueKind => {
                let imm = if ty.elem() == ScalarType::I1 {
                    LLVMConstIntGetZExtValue(c) as i64
                } else {
                    LLVMConstIntGetSExtValue(c)
                };
                self.iconst(ty, imm)
            }
            LLVMValueKind::LLVMConstantFPValueKind => {
                let mut loses = 0;
                let x = LLVMConstRealGetDouble(c, &mut loses);
                let bits = if ty.elem() == ScalarType::F32 {
                    u64::from((x as f32).to_bits())
                } else {
                    x.to_bits()
                };
                self.emit_v(InstData::Fconst { bits }, ty)
            }
            LLVMValueKind::LLVMConstantPointerNullValueKind
            | LLVMValueKind::LLVMConstantAggregateZeroValueKind
            | LLVMValueKind::LLVMUndefValueValueKind
            | LLVMValueKind::LLVMPoisonValueKind => self.zero(ty),
            LLVMValueKind::LLVMConstantDataVectorValueKind
            | LLVMValueKind::LLVMConstantVectorValueKind => {
                let n = ty.lane_count();
                let lanes: Vec<LLVMValueRef> =
                    (0..n).map(|i| LLVMGetAggregateElement(c, i)).collect();
                if lanes.iter().any(|l| l.is_null()) {
                    return Err(self.err("unreadable vector constant"));
                }
                let first = self.op(lanes[0])?;
                let mut v = self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Broadcast,
                        args: vec![first],
                    },
                    ty,
                );
                for (i, &l) in lanes.iter().enumerate().skip(1) {
                    if l == lanes[0] {
                        continue;
                    }
                    let x = self.op(l)?;
                    let idx = self.iconst(Type::I32, i as i64);
                    v = self.emit_v(
                        InstData::Intrinsic {
                            id: Intrinsic::Insert,
                            args: vec![v, x, idx],
                        },
                        ty,
                    );
                }
                v
            }
            LLVMValueKind::LLVMGlobalVariableValueKind => match self.mcx.globals.get(&c) {
                Some(&global) => self.emit_v(InstData::GlobalAddr { global }, ty),
                None => return Err(self.err("reference to an unknown global")),
            },
            LLVMValueKind::LLVMConstantExprValueKind => self.const_expr(c, ty)?,
            LLVMValueKind::LLVMFunctionValueKind => match self.mcx.funcs.get(&c) {
                Some(&func) => self.emit_v(InstData::FuncAddr { func }, ty),
                None => {
                    return Err(self.err(format!(
                        "address of @{}, whose type lanes cannot express",
                        crate::llvm::value_name(c)
                    )))
                }
            },
            _ => return Err(self.err(format!("unsupported operand `{}`", print_value(c)))),
        })
    }

    /// A zero of type `ty` (also what `undef` and `poison` become).
    pub fn zero(&mut self, ty: Type) -> Value {
        if ty.is_float() {
            self.emit_v(InstData::Fconst { bits: 0 }, ty)
        } else {
            self.iconst(ty, 0)
        }
    }

    unsafe fn const_expr(&mut self, c: LLVMValueRef, ty: Type) -> Result<Value, ImportError> {
        match LLVMGetConstOpcode(c) {
            LLVMOpcode::LLVMGetElementPtr => self.gep(c),
            op => {
                let arg = self.op(LLVMGetOperand(c, 0))?;
                let cast = match op {
                    LLVMOpcode::LLVMPtrToInt => CastOp::PtrToInt,
                    LLVMOpcode::LLVMIntToPtr => CastOp::IntToPtr,
                    LLVMOpcode::LLVMAddrSpaceCast => CastOp::AddrSpaceCast,
                    LLVMOpcode::LLVMBitCast if self.ty_of(arg) == ty => return Ok(arg),
                    LLVMOpcode::LLVMBitCast => CastOp::Bitcast,
                    _ => {
                        return Err(self.err(format!(
                            "unsupported constant expression `{}`",
                            print_value(c)
                        )))
                    }
                };
                Ok(self.emit_v(
                    InstData::Cast {
                        op: cast,
                        arg,
                        flags: IntFlags::NONE,
                    },
                    ty,
                ))
            }
        }
    }
}
