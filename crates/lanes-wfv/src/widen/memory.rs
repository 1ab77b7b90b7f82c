//! Loads and stores of the widened function (CC'12 §3.3, PLDI'18 §2.3 shapes).
//!
//! | address      | mask      | load                         | store                         |
//! |--------------|-----------|------------------------------|-------------------------------|
//! | uniform      | none      | scalar load                  | scalar store (uniform value)  |
//! | uniform      | varying   | scalar load if `any(mask)`   | scalar store if `any(mask)`   |
//! | uniform      | any       |                              | varying value: scatter, the highest active lane wins |
//! | contiguous   | none      | vector load at lane 0's address | vector store               |
//! | contiguous   | varying   | `masked_load`                | `masked_store`                |
//! | reversed     | any       | as contiguous, at lane W-1's address, lanes reversed | same |
//! | other        | any       | `gather`                     | `scatter`                     |
//!
//! A gather or scatter whose address is computed from the instance index (a clamp, a
//! butterfly) first tests whether its addresses happen to be consecutive, and is then a
//! vector access (module `consecutive_at_run_time`); a gather whose address holds its
//! value over runs of lanes (`in[(gx & -8) + x]`) tests whether it does over aligned runs,
//! and is then one load per run (module `runs_at_run_time`).
//!
//! "Contiguous" is the shape analysis' stride of the address equal to the access size,
//! "reversed" its negation (`a[n - 1 - i]`: lane W-1 has the lowest address, and a
//! shuffle reverses the lanes of the value and the mask); lane 0's address is recomputed
//! on scalars (module `lane0`).
//! Inactive lanes never touch memory: masked operations skip them, and a scalar access
//! under a varying mask runs only if some lane is active. Where that is proven anyway (the
//! body of a divergent loop), [`crate::nonempty_masks`] drops the test afterwards.

use lanes_ir::{InstData, MemAccess, Type, Value};

use super::consecutive_at_run_time::RunTimeTest;
use super::notes::{self, WidenNoteKind};
use super::{vec_of, Widener};

impl Widener<'_> {
    fn contiguous(&self, ptr: Value, ty: Type) -> bool {
        self.info.shape(ptr).stride() == Some(i64::from(ty.bytes()))
    }

    fn reversed(&self, ptr: Value, ty: Type) -> bool {
        self.info.shape(ptr).stride() == Some(-i64::from(ty.bytes()))
    }

    /// The lowest address of a reversed access: lane W-1's, lane 0's minus `W-1` elements.
    fn last_lane_address(&mut self, ptr: Value, ty: Type) -> Value {
        let p0 = self.lane0_of(ptr);
        let back = -i64::from(ty.bytes()) * (i64::from(self.width) - 1);
        let back = self.emit_v(InstData::Iconst { imm: back }, Type::I64);
        let pty = self.new.dfg.value_type(p0);
        self.emit_v(
            InstData::PtrAdd {
                args: [p0, back],
                flags: lanes_ir::IntFlags::NONE,
            },
            pty,
        )
    }

    /// One vector load of `ty` elements at scalar address `p`, masked if `mask` is given.
    fn vector_load(&mut self, p: Value, mask: Option<Value>, align: u32, ty: Type) -> Value {
        let vt = vec_of(ty, self.width);
        let data = match mask {
            None => InstData::Load {
                ptr: p,
                align,
                access: MemAccess::PLAIN,
            },
            Some(m) => InstData::MaskedLoad {
                ptr: p,
                mask: m,
                passthru: self.zero_vec(ty),
                align,
            },
        };
        self.emit_v(data, vt)
    }

    /// One vector store of `v` at scalar address `p`, masked if `mask` is given.
    fn vector_store(&mut self, v: Value, p: Value, mask: Option<Value>, align: u32) {
        let data = match mask {
            None => InstData::Store {
                value: v,
                ptr: p,
                align,
                access: MemAccess::PLAIN,
            },
            Some(m) => InstData::MaskedStore {
                value: v,
                ptr: p,
                mask: m,
                align,
            },
        };
        self.emit(data, None);
    }

    /// `v` (a new vector) with its lanes in reverse order.
    fn reverse_lanes(&mut self, v: Value) -> Value {
        let ty = self.new.dfg.value_type(v);
        let mask = (0..u32::from(self.width)).rev().collect();
        self.emit_v(InstData::Shuffle { args: [v, v], mask }, ty)
    }

    pub(super) fn load(
        &mut self,
        ptr: Value,
        align: u32,
        ty: Type,
        uniform: bool,
        mask: Option<Value>,
    ) -> Value {
        if self.is_uniform(ptr) {
            let p = self.scalar(ptr);
            let load = InstData::Load {
                ptr: p,
                align,
                access: MemAccess::PLAIN,
            };
            let v = match mask {
                None => self.emit_v(load, ty),
                Some(m) => self.once_if_any(m, load, ty),
            };
            return if uniform { v } else { self.broadcast(v) };
        }
        let vt = vec_of(ty, self.width);
        if self.contiguous(ptr, ty) {
            let p0 = self.lane0_of(ptr);
            return self.vector_load(p0, mask, align, ty);
        }
        if self.reversed(ptr, ty) {
            let last = self.last_lane_address(ptr, ty);
            let mask = mask.map(|m| self.reverse_lanes(m));
            let loaded = self.vector_load(last, mask, align, ty);
            return self.reverse_lanes(loaded);
        }
        let why = notes::scattered_because(self.info.shape(ptr), ty.bytes());
        let test = self.run_time_test(ptr, ty.bytes());
        if test == Some(RunTimeTest::Consecutive) {
            self.note_here(
                WidenNoteKind::Gather,
                format!(
                    "a load is a gather unless its addresses are consecutive at run time: {why}"
                ),
            );
            return self.checked_gather(ptr, align, ty, mask);
        }
        if let Some(RunTimeTest::Runs(run)) = test {
            self.note_here(
                WidenNoteKind::Gather,
                format!(
                    "a load is a gather unless its addresses are the same over runs of \
                     {run} lanes at run time: {why}"
                ),
            );
            return self.runs_checked_gather(ptr, align, ty, mask, run);
        }
        self.note_here(WidenNoteKind::Gather, format!("a load is a gather: {why}"));
        let ptrs = self.vector(ptr);
        let m = match mask {
            Some(m) => m,
            None => self.all_true(),
        };
        let z = self.zero_vec(ty);
        self.emit_v(
            InstData::Gather {
                ptrs,
                mask: m,
                passthru: z,
                align,
            },
            vt,
        )
    }

    pub(super) fn store(&mut self, value: Value, ptr: Value, align: u32, mask: Option<Value>) {
        let ty = self.old.dfg.value_type(value);
        if self.is_uniform(ptr) && self.is_uniform(value) {
            let d = InstData::Store {
                value: self.scalar(value),
                ptr: self.scalar(ptr),
                align,
                access: MemAccess::PLAIN,
            };
            match mask {
                None => {
                    self.emit(d, None);
                }
                Some(m) => self.once_if_any_effect(m, d),
            }
            return;
        }
        let v = self.vector(value);
        if !self.is_uniform(ptr) && self.contiguous(ptr, ty) {
            let p0 = self.lane0_of(ptr);
            self.vector_store(v, p0, mask, align);
            return;
        }
        if !self.is_uniform(ptr) && self.reversed(ptr, ty) {
            let last = self.last_lane_address(ptr, ty);
            let v = self.reverse_lanes(v);
            let mask = mask.map(|m| self.reverse_lanes(m));
            self.vector_store(v, last, mask, align);
            return;
        }
        let why = if self.is_uniform(ptr) {
            "a value that differs between lanes is stored to one address (the last active \
             lane's value stays)"
                .to_string()
        } else {
            notes::scattered_because(self.info.shape(ptr), ty.bytes())
        };
        let test = (!self.is_uniform(ptr))
            .then(|| self.run_time_test(ptr, ty.bytes()))
            .flatten();
        if test == Some(RunTimeTest::Consecutive) {
            self.note_here(
                WidenNoteKind::Scatter,
                format!(
                    "a store is a scatter unless its addresses are consecutive at run time: {why}"
                ),
            );
            self.checked_scatter(v, ptr, align, ty, mask);
            return;
        }
        self.note_here(
            WidenNoteKind::Scatter,
            format!("a store is a scatter: {why}"),
        );
        let ptrs = self.vector(ptr);
        let m = match mask {
            Some(m) => m,
            None => self.all_true(),
        };
        self.emit(
            InstData::Scatter {
                value: v,
                ptrs,
                mask: m,
                align,
            },
            None,
        );
    }
}
