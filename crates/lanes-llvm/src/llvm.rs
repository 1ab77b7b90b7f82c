//! Thin wrappers over the LLVM-C API (through `llvm-sys`, as re-exported by inkwell).
//!
//! The translators between lanes IR and LLVM IR work on untyped `LLVMValueRef`s: lanes IR
//! values are scalars or vectors of any element type, and inkwell's typed value wrappers
//! (`IntValue`, `VectorValue`, …) would force a case split at every instruction. Every
//! `unsafe` call into LLVM lives in this module or next to it with the invariant stated:
//! the references come from one live context and module that the caller owns.

use std::ffi::{CStr, CString};

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{ScalarType, Type};

/// A C string for LLVM (interior NULs are replaced, names never contain them).
pub(crate) fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "_")).unwrap_or_default()
}

/// The empty value name.
pub(crate) fn noname() -> *const libc_char {
    c"".as_ptr()
}

/// The C `char` type as LLVM-C uses it.
#[allow(non_camel_case_types)]
pub type libc_char = std::ffi::c_char;

/// Types of lanes IR in an LLVM context.
#[derive(Clone, Copy)]
pub struct Types {
    pub ctx: LLVMContextRef,
}

impl Types {
    /// The LLVM type of a lanes scalar as a value (`i1` stays `i1`).
    pub fn scalar(&self, s: ScalarType) -> LLVMTypeRef {
        // SAFETY: `ctx` is a live context (struct invariant).
        unsafe {
            match s {
                ScalarType::I1 => LLVMInt1TypeInContext(self.ctx),
                ScalarType::I8 => LLVMInt8TypeInContext(self.ctx),
                ScalarType::I16 => LLVMInt16TypeInContext(self.ctx),
                ScalarType::I32 => LLVMInt32TypeInContext(self.ctx),
                ScalarType::I64 => LLVMInt64TypeInContext(self.ctx),
                ScalarType::F32 => LLVMFloatTypeInContext(self.ctx),
                ScalarType::F64 => LLVMDoubleTypeInContext(self.ctx),
                ScalarType::Ptr(space) => LLVMPointerTypeInContext(self.ctx, u32::from(space.0)),
            }
        }
    }

    /// The LLVM type of a lanes value type.
    pub fn ty(&self, t: Type) -> LLVMTypeRef {
        match t {
            Type::Scalar(s) => self.scalar(s),
            // SAFETY: element type from the same context.
            Type::Vector(n, s) => unsafe { LLVMVectorType(self.scalar(s), u32::from(n)) },
        }
    }

    /// The type a lanes value has in memory: `i1` lanes occupy a byte each, so masks are
    /// stored as `<N x i8>` (LLVM would pack `<N x i1>` into bits).
    pub fn mem_ty(&self, t: Type) -> LLVMTypeRef {
        if t.elem() == ScalarType::I1 {
            self.ty(t.with_elem(ScalarType::I8))
        } else {
            self.ty(t)
        }
    }

    pub fn int(&self, bits: u32) -> LLVMTypeRef {
        // SAFETY: live context.
        unsafe { LLVMIntTypeInContext(self.ctx, bits) }
    }

    pub fn i8(&self) -> LLVMTypeRef {
        self.int(8)
    }

    pub fn i32(&self) -> LLVMTypeRef {
        self.int(32)
    }

    pub fn i64(&self) -> LLVMTypeRef {
        self.int(64)
    }

    pub fn void(&self) -> LLVMTypeRef {
        // SAFETY: live context.
        unsafe { LLVMVoidTypeInContext(self.ctx) }
    }

    pub fn ptr(&self) -> LLVMTypeRef {
        // SAFETY: live context.
        unsafe { LLVMPointerTypeInContext(self.ctx, 0) }
    }

    /// `[n x i8]`, the stand-in for aggregates of `n` bytes (byval, sret, globals).
    pub fn bytes(&self, n: u64) -> LLVMTypeRef {
        // SAFETY: live context.
        unsafe { LLVMArrayType2(self.i8(), n) }
    }

    pub fn const_int(&self, ty: LLVMTypeRef, v: u64) -> LLVMValueRef {
        // SAFETY: `ty` is an integer type of this context.
        unsafe { LLVMConstInt(ty, v, 0) }
    }

    pub fn i32c(&self, v: u32) -> LLVMValueRef {
        self.const_int(self.i32(), u64::from(v))
    }

    pub fn i1c(&self, v: bool) -> LLVMValueRef {
        self.const_int(self.int(1), u64::from(v))
    }
}

/// Declares (or finds) the overloaded intrinsic `name` for `overloads` in module `m`.
/// Returns the function and its type, or `None` if LLVM has no such intrinsic.
pub(crate) fn intrinsic(
    m: LLVMModuleRef,
    name: &str,
    overloads: &[LLVMTypeRef],
) -> Option<(LLVMValueRef, LLVMTypeRef)> {
    // SAFETY: `m` is a live module; the overload list is as long as we say.
    unsafe {
        let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
        if id == 0 {
            return None;
        }
        let mut tys = overloads.to_vec();
        let f = LLVMGetIntrinsicDeclaration(m, id, tys.as_mut_ptr(), tys.len());
        Some((f, LLVMGlobalGetValueType(f)))
    }
}

/// Declares (or finds) the external function `name` of type `fn_ty` in module `m`.
pub(crate) fn declare(m: LLVMModuleRef, name: &str, fn_ty: LLVMTypeRef) -> LLVMValueRef {
    let c = cstr(name);
    // SAFETY: live module, NUL-terminated name.
    unsafe {
        let f = LLVMGetNamedFunction(m, c.as_ptr());
        if !f.is_null() {
            return f;
        }
        LLVMAddFunction(m, c.as_ptr(), fn_ty)
    }
}

/// Prints an LLVM value (an instruction, constant, …) as LLVM assembly.
pub(crate) fn print_value(v: LLVMValueRef) -> String {
    // SAFETY: `v` is a live value; the returned message is disposed.
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().trim().to_string();
        LLVMDisposeMessage(p);
        s
    }
}

/// Prints an LLVM type.
pub(crate) fn print_type(t: LLVMTypeRef) -> String {
    // SAFETY: `t` is a live type; the returned message is disposed.
    unsafe {
        let p = LLVMPrintTypeToString(t);
        let s = CStr::from_ptr(p).to_string_lossy().to_string();
        LLVMDisposeMessage(p);
        s
    }
}

/// The name of a value (empty if unnamed).
pub(crate) fn value_name(v: LLVMValueRef) -> String {
    // SAFETY: `v` is live; LLVM returns a pointer and length into its own storage.
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Enum attribute kind id by name (`"signext"`, `"byval"`, …); 0 if unknown.
pub(crate) fn attr_kind(name: &str) -> u32 {
    // SAFETY: pointer and length describe `name`.
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) }
}
