//! LLVM types → lanes types, and byte layout through the module's data layout.
//!
//! lanes has no aggregates (ARCHITECTURE.md, "The IR"): an LLVM value of struct or array
//! type cannot become a lanes value, but struct and array *addressing* can, because
//! `getelementptr` only needs sizes and field offsets, which the data layout gives
//! ([`Layout`]). Floats other than `float` and `double`, and integers wider than 64 bits,
//! are rejected; scalar integers of other widths up to 64 are carried in the next wider
//! lanes integer where their operations allow it ([`super::odd_ints`]).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::LLVMTypeKind;

use lanes_ir::{AddrSpace, ScalarType, Type};

/// The lanes scalar type of LLVM type `t`, if it has one.
pub(crate) fn scalar_type(t: LLVMTypeRef) -> Option<ScalarType> {
    // SAFETY: `t` is a live type; kind accessors are used per kind.
    unsafe {
        Some(match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMIntegerTypeKind => match LLVMGetIntTypeWidth(t) {
                1 => ScalarType::I1,
                8 => ScalarType::I8,
                16 => ScalarType::I16,
                32 => ScalarType::I32,
                64 => ScalarType::I64,
                _ => return None,
            },
            LLVMTypeKind::LLVMFloatTypeKind => ScalarType::F32,
            LLVMTypeKind::LLVMDoubleTypeKind => ScalarType::F64,
            LLVMTypeKind::LLVMPointerTypeKind => {
                ScalarType::Ptr(AddrSpace(u8::try_from(LLVMGetPointerAddressSpace(t)).ok()?))
            }
            _ => return None,
        })
    }
}

/// The width of LLVM type `t` and the lanes integer that carries it, if `t` is a scalar
/// integer of a width lanes lacks (2 to 63 bits, not 8, 16 or 32): the promotion of
/// [`super::odd_ints`].
pub(crate) fn odd_width(t: LLVMTypeRef) -> Option<(u32, ScalarType)> {
    // SAFETY: `t` is a live type; the width is asked of integer types only.
    let bits = unsafe {
        if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMIntegerTypeKind {
            return None;
        }
        LLVMGetIntTypeWidth(t)
    };
    let carrier = match bits {
        2..=7 => ScalarType::I8,
        9..=15 => ScalarType::I16,
        17..=31 => ScalarType::I32,
        33..=63 => ScalarType::I64,
        _ => return None,
    };
    Some((bits, carrier))
}

/// The lanes type of LLVM first-class type `t` (scalar or fixed vector of scalars).
pub(crate) fn lanes_type(t: LLVMTypeRef) -> Option<Type> {
    // SAFETY: as above.
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMVectorTypeKind => {
                let n = u16::try_from(LLVMGetVectorSize(t)).ok()?;
                Some(Type::Vector(n, scalar_type(LLVMGetElementType(t))?))
            }
            _ => scalar_type(t).map(Type::Scalar),
        }
    }
}

/// Sizes and offsets of the module's data layout.
#[derive(Clone, Copy)]
pub struct Layout {
    pub td: LLVMTargetDataRef,
}

impl Layout {
    /// Allocation size of `t` in bytes (what `getelementptr` steps by).
    pub fn alloc_size(&self, t: LLVMTypeRef) -> u64 {
        // SAFETY: `td` belongs to the module that owns `t`'s context.
        unsafe { LLVMABISizeOfType(self.td, t) }
    }

    /// Byte offset of field `i` of struct type `t`.
    pub fn field_offset(&self, t: LLVMTypeRef, i: u32) -> u64 {
        // SAFETY: as above; the caller checked `i` against the field count.
        unsafe { LLVMOffsetOfElement(self.td, t, i) }
    }
}

/// Is `t` a struct type? Its field count if so.
pub(crate) fn struct_fields(t: LLVMTypeRef) -> Option<u32> {
    // SAFETY: live type.
    unsafe {
        (LLVMGetTypeKind(t) == LLVMTypeKind::LLVMStructTypeKind)
            .then(|| LLVMCountStructElementTypes(t))
    }
}

/// The element type of an array or vector type.
pub(crate) fn element_type(t: LLVMTypeRef) -> Option<LLVMTypeRef> {
    // SAFETY: live type; element type only asked of sequential types.
    unsafe {
        matches!(
            LLVMGetTypeKind(t),
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind
        )
        .then(|| LLVMGetElementType(t))
    }
}
