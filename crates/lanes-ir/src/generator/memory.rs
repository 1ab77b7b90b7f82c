//! Memory accesses that stay inside the declared buffers.
//!
//! lanes IR has no aggregates (ARCHITECTURE.md, "The IR"): an access is `ptradd base,
//! offset` followed by a load or store. The generator computes the offset from data, as
//! real kernels do with indices, and then forces it into range, the way a bounds-checked
//! language would: for an access of `n` bytes with alignment `a` into a buffer of `size`
//! bytes, an index in `0..slots` with `slots = (size - n) / a + 1` is obtained by `urem`,
//! `and` (power-of-two slot counts), `umin`, or a `select` on an unsigned comparison, and
//! scaled by `a` (`mul` or `shl`, with `nuw nsw`, which hold). Since buffer bases are [`super::BUFFER_ALIGN`]-aligned and
//! `a` divides it, every access is naturally aligned and in bounds. Vector accesses
//! (contiguous, masked, gather/scatter) keep even inactive lanes in bounds, so a run never
//! depends on how masking is implemented. Stack arrays (`alloca`) are zeroed in the entry
//! block before any use, so no run reads uninitialized memory.

use arbitrary::Result;

use super::emit::{Buffer, Gen};
use super::pool::Slot;
use super::{chance, range};
use crate::entities::Value;
use crate::flags::IntFlags;
use crate::instructions::InstData;
use crate::memory_order::{Atomic, MemAccess, Ordering};
use crate::opcodes::{AtomicOp, BinaryOp, IntCC};
use crate::types::Type;

impl Gen<'_, '_> {
    /// Adds the module's globals and zeroed stack arrays to the buffers (entry block only).
    pub(super) fn seed_memory(&mut self) -> Result<()> {
        for g in &self.env.globals {
            let base = self.ins(InstData::GlobalAddr { global: g.id }, Type::ptr(g.space));
            let (bytes, writable) = (g.bytes, g.writable);
            self.buffers.push(Buffer {
                base,
                bytes,
                writable,
                elem: None,
            });
        }
        if self.cfg.memory && self.cfg.typed_stack && chance(self.u, 2, 3)? {
            self.typed_stack_array()?;
        }
        if !self.cfg.memory || !chance(self.u, 1, 3)? {
            return Ok(());
        }
        let bytes = (16 * u32::from(self.width)).max(64);
        let base = self.ins(
            InstData::Alloca {
                size: bytes,
                align: super::BUFFER_ALIGN,
            },
            Type::PTR,
        );
        self.zero_fill(base, bytes, Slot::I64);
        self.buffers.push(Buffer {
            base,
            bytes: u64::from(bytes),
            writable: true,
            elem: None,
        });
        Ok(())
    }

    /// A zeroed stack array of one scalar type, which only scalar loads and stores of that
    /// type access (C's `float v[n]` with `v[i]`), zeroed element by element or 8 bytes at
    /// a time (C's `float v[n] = {0}`, a `memset`).
    fn typed_stack_array(&mut self) -> Result<()> {
        let slot = self.mem_slot()?;
        let elem = slot.ty(1).bytes();
        let count = range(self.u, 1, 24)? as u32;
        // Zeroed element by element, or as `memset` expands: 8 bytes at a time.
        let (zero_slot, step) =
            if elem < 8 && (elem * count).is_multiple_of(8) && chance(self.u, 1, 2)? {
                (Slot::I64, 8)
            } else {
                (slot, elem)
            };
        let base = self.ins(
            InstData::Alloca {
                size: elem * count,
                align: step,
            },
            Type::PTR,
        );
        self.zero_fill(base, elem * count, zero_slot);
        self.buffers.push(Buffer {
            base,
            bytes: u64::from(elem * count),
            writable: true,
            elem: Some(slot),
        });
        Ok(())
    }

    /// Zeroes the `bytes` bytes at `base` with stores of `slot`'s zero, in order.
    fn zero_fill(&mut self, base: Value, bytes: u32, slot: Slot) {
        let step = slot.ty(1).bytes();
        let zero = self.constant(slot, 0);
        for k in 0..bytes / step {
            let off = self.constant(Slot::I64, i64::from(k * step));
            let ptr = self.ins(
                InstData::PtrAdd {
                    args: [base, off],
                    flags: IntFlags::NONE,
                },
                Type::PTR,
            );
            self.ins_void(InstData::Store {
                value: zero,
                ptr,
                align: step,
                access: MemAccess::PLAIN,
            });
        }
    }

    /// A random buffer; only writable ones if `write`; typed stack arrays only for
    /// scalar loads and stores (`scalar`), which then take the array's type.
    fn pick_buffer(&mut self, write: bool) -> Result<Option<Buffer>> {
        self.pick_buffer_for(write, false)
    }

    /// [`Self::pick_buffer`], typed stack arrays included if `scalar`. Without typed
    /// arrays the candidates and draws are those of older generators (same seeds, same
    /// programs).
    fn pick_buffer_for(&mut self, write: bool, scalar: bool) -> Result<Option<Buffer>> {
        let cands: Vec<Buffer> = self
            .buffers
            .iter()
            .copied()
            .filter(|b| b.writable || !write)
            .filter(|b| b.elem.is_none() || scalar)
            .collect();
        if cands.is_empty() {
            return Ok(None);
        }
        Ok(Some(cands[range(self.u, 0, cands.len() - 1)?]))
    }

    /// An in-bounds address in `buf` for `access` bytes aligned to `align` (a power of two).
    pub(super) fn address(&mut self, buf: Buffer, access: u64, align: u64) -> Result<Value> {
        let ptr_ty = self.func.dfg.value_type(buf.base);
        let slots = buf.bytes.saturating_sub(access) / align + 1;
        let offset = if slots == 1 || chance(self.u, 1, 8)? {
            let k = range(self.u, 0, (slots - 1) as usize)? as u64;
            self.constant(Slot::I64, (k * align) as i64)
        } else {
            let islot = if chance(self.u, 1, 2)? {
                Slot::I32
            } else {
                Slot::I64
            };
            let idx = self.clamp_index(islot, slots)?;
            self.scale(idx, islot, slots, align)?
        };
        Ok(self.ins(
            // In bounds by construction: a fact the widened code must not rely on.
            InstData::PtrAdd {
                args: [buf.base, offset],
                flags: IntFlags::INBOUNDS,
            },
            ptr_ty,
        ))
    }

    /// A vector of in-bounds addresses in `buf`, each for one `elem`-byte, aligned element.
    fn addresses(&mut self, buf: Buffer, elem: u64) -> Result<Value> {
        let base_ty = self.func.dfg.value_type(buf.base);
        let slots = buf.bytes.saturating_sub(elem) / elem + 1;
        let islot = if chance(self.u, 1, 2)? {
            Slot::VI32
        } else {
            Slot::VI64
        };
        let idx = self.clamp_index(islot, slots)?;
        let offset = self.scale(idx, islot, slots, elem)?;
        let ty = Type::Vector(self.width, base_ty.elem());
        Ok(self.ins(
            // In bounds by construction: a fact the widened code must not rely on.
            InstData::PtrAdd {
                args: [buf.base, offset],
                flags: IntFlags::INBOUNDS,
            },
            ty,
        ))
    }

    /// A usable integer (or integer vector) of `slot` forced into `0..slots` (unsigned).
    fn clamp_index(&mut self, slot: Slot, slots: u64) -> Result<Value> {
        let mut x = self.pick(slot)?;
        let ty = slot.ty(self.width);
        if self.cfg.run_indices && chance(self.u, 1, 2)? {
            x = self.held_over_runs(x, slot)?;
        }
        let n = slots as i64;
        let bin = |g: &mut Self, op, a, b| {
            g.ins(
                InstData::Binary {
                    op,
                    args: [a, b],
                    flags: IntFlags::NONE,
                },
                ty,
            )
        };
        Ok(match range(self.u, 0, 3)? {
            0 => {
                let m = self.constant(slot, n);
                bin(self, BinaryOp::URem, x, m)
            }
            1 if slots.is_power_of_two() => {
                let m = self.constant(slot, n - 1);
                bin(self, BinaryOp::And, x, m)
            }
            2 => {
                let limit = self.constant(slot, n);
                let in_range = self.ins(
                    InstData::Icmp {
                        cond: IntCC::Ult,
                        args: [x, limit],
                    },
                    ty.as_bool(),
                );
                let k = range(self.u, 0, (slots - 1) as usize)? as i64;
                let fallback = self.constant(slot, k);
                self.ins(
                    InstData::Select {
                        args: [in_range, x, fallback],
                    },
                    ty,
                )
            }
            _ => {
                let m = self.constant(slot, n - 1);
                bin(self, BinaryOp::UMin, x, m)
            }
        })
    }

    /// `x` through an operation that holds its value over runs of consecutive integers:
    /// `x & -2^k`, `x >> k` (logical or arithmetic) or `x / c` (signed or unsigned), for
    /// small `k` and `c`.
    fn held_over_runs(&mut self, x: Value, slot: Slot) -> Result<Value> {
        let ty = slot.ty(self.width);
        let k = range(self.u, 1, 4)? as i64;
        let (op, c) = match range(self.u, 0, 4)? {
            0 => (BinaryOp::And, -(1i64 << k)),
            1 => (BinaryOp::LShr, k),
            2 => (BinaryOp::AShr, k),
            3 => (BinaryOp::UDiv, k + 2),
            _ => (BinaryOp::SDiv, 1i64 << k),
        };
        let c = self.constant(slot, c);
        Ok(self.ins(
            InstData::Binary {
                op,
                args: [x, c],
                flags: IntFlags::NONE,
            },
            ty,
        ))
    }

    /// `idx * align`, as a multiplication or a shift; `idx` is in `0..slots`. The product is
    /// below the buffer's size, so it wraps neither signed nor unsigned: `nuw nsw` hold
    /// (and are stated, for the export and analyses that read them; `lanes_ir::flags`).
    fn scale(&mut self, idx: Value, slot: Slot, slots: u64, align: u64) -> Result<Value> {
        if align == 1 {
            return Ok(idx);
        }
        let ty = slot.ty(self.width);
        let bits = ty.elem().bits();
        let flags = if slots.saturating_mul(align) <= 1u64 << (bits - 1) {
            IntFlags::NUW.union(IntFlags::NSW)
        } else {
            IntFlags::NONE
        };
        let (op, k) = if chance(self.u, 1, 2)? {
            (BinaryOp::Shl, i64::from(align.trailing_zeros()))
        } else {
            (BinaryOp::Mul, align as i64)
        };
        let c = self.constant(slot, k);
        Ok(self.ins(
            InstData::Binary {
                op,
                args: [idx, c],
                flags,
            },
            ty,
        ))
    }

    /// A scalar slot for memory, with its size in bytes.
    fn mem_slot(&mut self) -> Result<Slot> {
        let mut cands = vec![
            Slot::I32,
            Slot::I64,
            Slot::I32,
            Slot::I64,
            Slot::I8,
            Slot::I16,
        ];
        if self.cfg.floats {
            cands.extend([Slot::F32, Slot::F64, Slot::F32, Slot::F64]);
        }
        Ok(cands[range(self.u, 0, cands.len() - 1)?])
    }

    pub(super) fn gen_load(&mut self) -> Result<()> {
        let Some(buf) = self.pick_buffer_for(false, true)? else {
            return Ok(());
        };
        let slot = match buf.elem {
            Some(slot) => slot,
            None => self.mem_slot()?,
        };
        let bytes = u64::from(slot.ty(1).bytes());
        let ptr = self.address(buf, bytes, bytes)?;
        let access = self.scalar_access(slot, Ordering::valid_for_load)?;
        self.def(
            InstData::Load {
                ptr,
                align: bytes as u32,
                access,
            },
            slot,
        );
        Ok(())
    }

    pub(super) fn gen_store(&mut self) -> Result<()> {
        let Some(buf) = self.pick_buffer_for(true, true)? else {
            return Ok(());
        };
        let slot = match buf.elem {
            Some(slot) => slot,
            None => self.mem_slot()?,
        };
        let bytes = u64::from(slot.ty(1).bytes());
        let value = self.pick(slot)?;
        let ptr = self.address(buf, bytes, bytes)?;
        let access = self.scalar_access(slot, Ordering::valid_for_store)?;
        self.ins_void(InstData::Store {
            value,
            ptr,
            align: bytes as u32,
            access,
        });
        Ok(())
    }

    /// Mostly plain; sometimes volatile, atomic with an ordering `valid` allows, or both —
    /// observable accesses the vectorizer must perform once per active lane, in order.
    fn scalar_access(&mut self, slot: Slot, valid: fn(Ordering) -> bool) -> Result<MemAccess> {
        let mut access = MemAccess::PLAIN;
        if chance(self.u, 1, 8)? {
            access.volatile = true;
        }
        if chance(self.u, 1, 8)? && !slot.ty(1).is_vector() && slot.ty(1) != Type::I1 {
            let orderings: Vec<Ordering> =
                Ordering::ALL.into_iter().filter(|&o| valid(o)).collect();
            access.atomic = Some(Atomic::new(*self.u.choose(&orderings)?));
        }
        Ok(access)
    }

    /// An ordering for a read-modify-write.
    fn rmw_access(&mut self) -> Result<MemAccess> {
        let orderings: Vec<Ordering> = Ordering::ALL
            .into_iter()
            .filter(|o| o.valid_for_rmw())
            .collect();
        let mut access = MemAccess::atomic(*self.u.choose(&orderings)?);
        access.volatile = chance(self.u, 1, 8)?;
        Ok(access)
    }

    /// An atomic read-modify-write or compare-and-swap on an `i32`/`i64` cell.
    pub(super) fn gen_atomic(&mut self) -> Result<()> {
        let Some(buf) = self.pick_buffer(true)? else {
            return Ok(());
        };
        let slot = if chance(self.u, 1, 2)? {
            Slot::I32
        } else {
            Slot::I64
        };
        let bytes = u64::from(slot.ty(1).bytes());
        let ptr = self.address(buf, bytes, bytes)?;
        if chance(self.u, 1, 4)? {
            let (expected, replacement) = (self.pick(slot)?, self.pick(slot)?);
            let access = self.rmw_access()?;
            let failure = access
                .ordering()
                .map_or(Ordering::SeqCst, Ordering::default_failure);
            self.def(
                InstData::AtomicCas {
                    ptr,
                    expected,
                    replacement,
                    access,
                    failure,
                },
                slot,
            );
        } else {
            let op = *self.u.choose(AtomicOp::ALL)?;
            let value = self.pick(slot)?;
            let access = self.rmw_access()?;
            self.def(
                InstData::AtomicRmw {
                    op,
                    ptr,
                    value,
                    access,
                },
                slot,
            );
        }
        Ok(())
    }

    /// A vector memory access: contiguous, masked, gather or scatter.
    pub(super) fn gen_vector_mem(&mut self) -> Result<()> {
        // Even kinds read, odd kinds write.
        let kind = range(self.u, 0, 5)?;
        let Some(buf) = self.pick_buffer(kind % 2 == 1)? else {
            return Ok(());
        };
        let mut cands = vec![Slot::VI32, Slot::VI64];
        if self.cfg.floats {
            cands.extend([Slot::VF32, Slot::VF64]);
        }
        let slot = cands[range(self.u, 0, cands.len() - 1)?];
        let elem = u64::from(slot.elem().ty(1).bytes());
        let align = elem as u32;
        let total = elem * u64::from(self.width);
        match kind {
            0 => {
                let ptr = self.address(buf, total, elem)?;
                let access = MemAccess::PLAIN;
                self.def(InstData::Load { ptr, align, access }, slot);
            }
            1 => {
                let value = self.pick(slot)?;
                let ptr = self.address(buf, total, elem)?;
                let access = MemAccess::PLAIN;
                self.ins_void(InstData::Store {
                    value,
                    ptr,
                    align,
                    access,
                });
            }
            2 => {
                let ptr = self.address(buf, total, elem)?;
                let (mask, passthru) = (self.pick(Slot::Mask)?, self.pick(slot)?);
                self.def(
                    InstData::MaskedLoad {
                        ptr,
                        mask,
                        passthru,
                        align,
                    },
                    slot,
                );
            }
            3 => {
                let value = self.pick(slot)?;
                let ptr = self.address(buf, total, elem)?;
                let mask = self.pick(Slot::Mask)?;
                self.ins_void(InstData::MaskedStore {
                    value,
                    ptr,
                    mask,
                    align,
                });
            }
            4 => {
                let ptrs = self.addresses(buf, elem)?;
                let (mask, passthru) = (self.pick(Slot::Mask)?, self.pick(slot)?);
                self.def(
                    InstData::Gather {
                        ptrs,
                        mask,
                        passthru,
                        align,
                    },
                    slot,
                );
            }
            _ => {
                let value = self.pick(slot)?;
                let ptrs = self.addresses(buf, elem)?;
                let mask = self.pick(Slot::Mask)?;
                self.ins_void(InstData::Scatter {
                    value,
                    ptrs,
                    mask,
                    align,
                });
            }
        }
        Ok(())
    }
}
