//! Integers of widths lanes has no type for (`i4`, `i12`, `i24`, …), carried in the next
//! wider lanes integer — the promotion LLVM's own type legalizer performs at code
//! generation, done here at import.
//!
//! **Why.** LLVM's middle end narrows values to the bits they need: induction-variable
//! simplification turns the counter of `for (j = 0; j < (v + i) & 15; j++)` into an `i4`,
//! and bitfield code works on `i3` or `i24`. lanes' IR has 1-, 8-, 16-, 32- and 64-bit
//! integers only (ARCHITECTURE.md, "The IR"), so without this such a function could not be
//! imported at all: `lanes compile` left it as LLVM IR, and an OpenCL kernel with a
//! nested loop did not compile.
//!
//! **How.** A value of `iN` lives in `iM`, the narrowest lanes integer wider than N, with
//! its low N bits exact and its high bits unspecified (LLVM's "promoted integer" model).
//! Operations whose low bits depend only on the operands' low bits — `add`, `sub`, `mul`,
//! `and`, `or`, `xor`, `select`, `φ`, `trunc`, `freeze` — run unchanged in `iM` (without
//! `nsw`/`nuw`, which speak of N bits). The others first make their operands exact in all M
//! bits, by sign- or zero-extension within the register (`shl`+`ashr` or `and`) as the
//! operation's signedness asks: division and remainder, right shifts (and every shift
//! amount), comparisons, `switch`, `zext`/`sext`, and conversions to floating point.
//!
//! In memory an `iN` takes `⌈N/8⌉` bytes, and exactly those are read and written: an `i24`
//! load is a 2-byte and a 1-byte load, combined (bitfields of packed structs are such
//! values), as LLVM's x86-64 code generator splits it, volatile or not. Atomics, calls,
//! vectors, pointer casts and bitcasts of such integers are not promoted: their meaning
//! depends on the exact width, so the function stays LLVM IR, with the reason.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

use lanes_ir::{BinaryOp, CastOp, InstData, IntCC, IntFlags, ScalarType, Type, Value};

use super::func::FnCx;
use super::types::odd_width;
use crate::error::ImportError;

/// The `(byte offset, bytes)` pieces of an `iN` in memory: its `⌈N/8⌉` bytes in pieces
/// of 8, 4, 2 and 1 bytes, largest first (one piece where the count is a power of two).
fn pieces(n: u32) -> Vec<(u32, u32)> {
    let mut left = n.div_ceil(8);
    let mut out = Vec::new();
    let mut offset = 0;
    while left > 0 {
        let size = 1 << (31 - left.leading_zeros());
        out.push((offset, size));
        offset += size;
        left -= size;
    }
    out
}

/// The lanes integer of `bytes` bytes (1, 2, 4 or 8).
fn int_of_bytes(bytes: u32) -> ScalarType {
    match bytes {
        1 => ScalarType::I8,
        2 => ScalarType::I16,
        4 => ScalarType::I32,
        _ => ScalarType::I64,
    }
}

/// The alignment a piece of `size` bytes at `offset` has when the whole access has
/// `align`: the largest power of two dividing both, at most the piece's size.
fn piece_align(align: u32, offset: u32, size: u32) -> u32 {
    let at = if offset == 0 {
        align.max(1)
    } else {
        align.max(1).min(1 << offset.trailing_zeros())
    };
    at.min(size)
}

/// How an instruction that involves an odd-width integer is translated.
enum OddWidth {
    /// The ordinary translation is right (`φ`, `select`, `freeze`: no bit of the result
    /// depends on the high bits of the operands in a way the promotion changes).
    Generic,
    /// Translated here; the instruction's value, if it has one.
    Translated(Option<Value>),
}

/// The odd width of `v`'s type, if it has one.
unsafe fn odd_type_of(v: LLVMValueRef) -> Option<(u32, ScalarType)> {
    odd_width(LLVMTypeOf(v))
}

impl FnCx<'_> {
    /// Translates instruction `i` (of `opcode`) if its result or an operand is an
    /// odd-width integer (module docs): its value, if it has one. `None` where the
    /// ordinary translation applies: no odd width, or one it carries unchanged.
    pub(super) unsafe fn odd_width_inst(
        &mut self,
        i: LLVMValueRef,
        opcode: LLVMOpcode,
    ) -> Option<Result<Option<Value>, ImportError>> {
        let result = odd_type_of(i);
        let operands = (0..LLVMGetNumOperands(i).max(0) as u32)
            .map(|k| LLVMGetOperand(i, k))
            .filter(|&o| LLVMIsABasicBlock(o).is_null());
        let mut operand = None;
        for o in operands {
            if let Some(w) = odd_type_of(o) {
                operand = Some(w);
                break;
            }
        }
        if result.is_none() && operand.is_none() {
            return None;
        }
        match self.promoted(i, opcode, result, operand) {
            Ok(OddWidth::Generic) => None,
            Ok(OddWidth::Translated(v)) => Some(Ok(v)),
            Err(e) => Some(Err(e)),
        }
    }

    unsafe fn promoted(
        &mut self,
        i: LLVMValueRef,
        opcode: LLVMOpcode,
        result: Option<(u32, ScalarType)>,
        operand: Option<(u32, ScalarType)>,
    ) -> Result<OddWidth, ImportError> {
        use LLVMOpcode::*;
        let ty = |r: Option<(u32, ScalarType)>| r.map(|(_, m)| Type::Scalar(m));
        let v = match opcode {
            LLVMPHI | LLVMSelect | LLVMFreeze => return Ok(OddWidth::Generic),
            LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor => {
                let op = match opcode {
                    LLVMAdd => BinaryOp::Add,
                    LLVMSub => BinaryOp::Sub,
                    LLVMMul => BinaryOp::Mul,
                    LLVMAnd => BinaryOp::And,
                    LLVMOr => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                let (a, b) = (self.operand(i, 0)?, self.operand(i, 1)?);
                self.bin(op, a, b)
            }
            LLVMShl | LLVMLShr | LLVMAShr | LLVMUDiv | LLVMURem | LLVMSDiv | LLVMSRem => {
                let (n, m) = result.ok_or_else(|| self.err("odd-width operand"))?;
                let (op, signed, amount) = match opcode {
                    LLVMShl => (BinaryOp::Shl, None, true),
                    LLVMLShr => (BinaryOp::LShr, Some(false), true),
                    LLVMAShr => (BinaryOp::AShr, Some(true), true),
                    LLVMUDiv => (BinaryOp::UDiv, Some(false), false),
                    LLVMURem => (BinaryOp::URem, Some(false), false),
                    LLVMSDiv => (BinaryOp::SDiv, Some(true), false),
                    _ => (BinaryOp::SRem, Some(true), false),
                };
                let mut a = self.operand(i, 0)?;
                if let Some(signed) = signed {
                    a = self.exact(a, n, m, signed);
                }
                let b = self.operand(i, 1)?;
                // A shift amount counts in full; a divisor is extended as the dividend.
                let b = self.exact(b, n, m, signed.filter(|_| !amount).unwrap_or(false));
                self.bin(op, a, b)
            }
            LLVMICmp => {
                let (n, m) = operand.ok_or_else(|| self.err("odd-width comparison"))?;
                let cond = super::func::int_cc(LLVMGetICmpPredicate(i));
                let signed = matches!(cond, IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge);
                let a = self.operand(i, 0)?;
                let a = self.exact(a, n, m, signed);
                let b = self.operand(i, 1)?;
                let b = self.exact(b, n, m, signed);
                self.emit_v(InstData::Icmp { cond, args: [a, b] }, Type::I1)
            }
            LLVMTrunc => {
                let to = self.llty(i)?;
                let a = self.operand(i, 0)?;
                self.resize(CastOp::Trunc, a, to)
            }
            LLVMZExt | LLVMSExt => {
                let signed = opcode == LLVMSExt;
                let to = self.llty(i)?;
                let mut a = self.operand(i, 0)?;
                if let Some((n, m)) = operand {
                    a = self.exact(a, n, m, signed);
                }
                self.resize(if signed { CastOp::Sext } else { CastOp::Zext }, a, to)
            }
            LLVMSIToFP | LLVMUIToFP => {
                let (n, m) = operand.ok_or_else(|| self.err("odd-width conversion"))?;
                let signed = opcode == LLVMSIToFP;
                let a = self.operand(i, 0)?;
                let arg = self.exact(a, n, m, signed);
                let op = if signed {
                    CastOp::SiToFp
                } else {
                    CastOp::UiToFp
                };
                let to = self.llty(i)?;
                self.cast_to(op, arg, to)
            }
            LLVMFPToSI | LLVMFPToUI if result.is_some() => {
                let op = if opcode == LLVMFPToSI {
                    CastOp::FpToSi
                } else {
                    CastOp::FpToUi
                };
                let a = self.operand(i, 0)?;
                let to = ty(result).unwrap_or(Type::I32);
                self.cast_to(op, a, to)
            }
            LLVMSwitch => {
                return self
                    .odd_switch(i, operand)
                    .map(|()| OddWidth::Translated(None))
            }
            LLVMLoad if result.is_some() => {
                let (n, m) = result.unwrap_or((0, ScalarType::I8));
                self.odd_load(i, n, m)?
            }
            LLVMStore => {
                let (n, _) = operand.unwrap_or((0, ScalarType::I8));
                self.odd_store(i, n)?;
                return Ok(OddWidth::Translated(None));
            }
            _ => {
                let (n, _) = result.or(operand).unwrap_or((0, ScalarType::I8));
                return Err(self.err(format!(
                    "type i{n} has no lanes equivalent here: lanes carries odd-width integers \
                     in wider ones for arithmetic, comparisons, casts and memory, but not \
                     for calls, vectors or pointer casts"
                )));
            }
        };
        Ok(OddWidth::Translated(Some(v)))
    }

    /// Load `i` of an `iN` (`n` bits, carried in `m`): its bytes, as little-endian pieces
    /// of 4, 2 and 1 bytes ([`pieces`]), combined. An `iN` in memory takes `⌈N/8⌉`
    /// bytes, and only those are read; the high bits of the last byte are the
    /// unspecified ones of the promotion.
    unsafe fn odd_load(
        &mut self,
        i: LLVMValueRef,
        n: u32,
        m: ScalarType,
    ) -> Result<Value, ImportError> {
        let access = self.non_atomic_access(i, n)?;
        let ptr = self.operand(i, 0)?;
        let align = LLVMGetAlignment(i);
        let carrier = Type::Scalar(m);
        let mut acc = None;
        for (offset, size) in pieces(n) {
            let at = self.byte_offset(ptr, offset);
            let ty = Type::Scalar(int_of_bytes(size));
            let piece = self.emit_v(
                InstData::Load {
                    ptr: at,
                    align: piece_align(align, offset, size),
                    access,
                },
                ty,
            );
            let mut v = self.resize(CastOp::Zext, piece, carrier);
            if offset > 0 {
                let k = self.iconst(carrier, i64::from(8 * offset));
                v = self.bin(BinaryOp::Shl, v, k);
            }
            acc = Some(match acc {
                Some(a) => self.bin(BinaryOp::Or, a, v),
                None => v,
            });
        }
        Ok(acc.unwrap_or_else(|| self.iconst(carrier, 0)))
    }

    /// Store `i` of an `iN`: its `⌈N/8⌉` bytes, as the pieces [`FnCx::odd_load`] reads.
    unsafe fn odd_store(&mut self, i: LLVMValueRef, n: u32) -> Result<(), ImportError> {
        let access = self.non_atomic_access(i, n)?;
        let value = self.operand(i, 0)?;
        let ptr = self.operand(i, 1)?;
        let align = LLVMGetAlignment(i);
        let carrier = self.ty_of(value);
        for (offset, size) in pieces(n) {
            let at = self.byte_offset(ptr, offset);
            let mut v = value;
            if offset > 0 {
                let k = self.iconst(carrier, i64::from(8 * offset));
                v = self.bin(BinaryOp::LShr, v, k);
            }
            let v = self.resize(CastOp::Trunc, v, Type::Scalar(int_of_bytes(size)));
            self.emit(
                InstData::Store {
                    value: v,
                    ptr: at,
                    align: piece_align(align, offset, size),
                    access,
                },
                None,
            );
        }
        Ok(())
    }

    /// The access of load or store `i` of an `iN`: any but atomic (LLVM has no atomic
    /// access of a size that is not a power of two). A volatile one is split into its
    /// pieces as LLVM's code generator splits it for x86-64 (an `i24` as a 2-byte and a
    /// 1-byte access, in this order), so the program performs the accesses clang's
    /// build performs.
    unsafe fn non_atomic_access(
        &self,
        i: LLVMValueRef,
        n: u32,
    ) -> Result<lanes_ir::MemAccess, ImportError> {
        let access = crate::atomics::access_of(i);
        if access.atomic.is_some() {
            return Err(self.err(format!(
                "an atomic access of an i{n} has no lanes equivalent"
            )));
        }
        Ok(access)
    }

    /// `ptr + offset` bytes (`ptr` itself at 0).
    fn byte_offset(&mut self, ptr: Value, offset: u32) -> Value {
        if offset == 0 {
            return ptr;
        }
        let k = self.iconst(Type::I64, i64::from(offset));
        let ty = self.ty_of(ptr);
        self.emit_v(
            InstData::PtrAdd {
                args: [ptr, k],
                flags: IntFlags::NONE,
            },
            ty,
        )
    }

    /// Operand `k` of `i`, translated.
    unsafe fn operand(&mut self, i: LLVMValueRef, k: u32) -> Result<Value, ImportError> {
        self.op(LLVMGetOperand(i, k))
    }

    /// `v` (an `iN` carried in `m`, or a lanes integer of its own width) with all its bits
    /// exact: the low `n` bits sign- or zero-extended within `m`.
    fn exact(&mut self, v: Value, n: u32, m: ScalarType, signed: bool) -> Value {
        if self.ty_of(v) != Type::Scalar(m) || n >= m.bits() {
            return v;
        }
        let ty = Type::Scalar(m);
        if signed {
            let k = self.iconst(ty, i64::from(m.bits() - n));
            let up = self.bin(BinaryOp::Shl, v, k);
            self.bin(BinaryOp::AShr, up, k)
        } else {
            let mask = self.iconst(ty, ((1u64 << n) - 1) as i64);
            self.bin(BinaryOp::And, v, mask)
        }
    }

    /// `v` as type `to` by `op` (a `trunc`, `zext` or `sext`), or `v` itself where the
    /// carrying types already agree.
    fn resize(&mut self, op: CastOp, v: Value, to: Type) -> Value {
        if self.ty_of(v) == to {
            return v;
        }
        self.cast_to(op, v, to)
    }

    fn cast_to(&mut self, op: CastOp, arg: Value, to: Type) -> Value {
        self.emit_v(
            InstData::Cast {
                op,
                arg,
                flags: IntFlags::NONE,
            },
            to,
        )
    }

    /// A `switch` on an odd-width integer: on the sign-extended value, against the
    /// sign-extended case values.
    unsafe fn odd_switch(
        &mut self,
        i: LLVMValueRef,
        operand: Option<(u32, ScalarType)>,
    ) -> Result<(), ImportError> {
        let (n, m) = operand.ok_or_else(|| self.err("odd-width switch"))?;
        let a = self.operand(i, 0)?;
        let arg = self.exact(a, n, m, true);
        self.switch_on(i, arg)
    }
}
