//! The values an instruction may use: a scoped pool, one list per type.
//!
//! The generator emits blocks in a preorder walk of the dominator tree. A value defined in
//! block `d` may be used in block `b` exactly when `d` dominates `b` (and, within one block,
//! after its definition), which in that walk means: the value was pushed while `d` was
//! being emitted and `d`'s subtree is still open. So the pool is a stack with one scope per
//! open dominator-tree node; leaving a node truncates every list to its length at entry.
//! That is SSA's dominance rule (Cytron et al. 1991, §3) enforced by construction.
//!
//! Constants live in a second, keyed table with the same scopes, so a constant needed
//! again in a dominated block is reused instead of re-materialized (what GVN would do).

use std::collections::hash_map::{Entry, HashMap};

use crate::entities::Value;
use crate::types::{ScalarType, Type};

/// The value types the generator works with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Slot {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    VI32,
    VI64,
    VF32,
    VF64,
    Mask,
}

pub(super) const NSLOTS: usize = 12;

impl Slot {
    pub(super) const ALL: [Slot; NSLOTS] = [
        Slot::I1,
        Slot::I8,
        Slot::I16,
        Slot::I32,
        Slot::I64,
        Slot::F32,
        Slot::F64,
        Slot::VI32,
        Slot::VI64,
        Slot::VF32,
        Slot::VF64,
        Slot::Mask,
    ];

    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// The IR type of the slot at vector width `w`.
    pub(super) fn ty(self, w: u16) -> Type {
        match self {
            Slot::I1 => Type::I1,
            Slot::I8 => Type::I8,
            Slot::I16 => Type::I16,
            Slot::I32 => Type::I32,
            Slot::I64 => Type::I64,
            Slot::F32 => Type::F32,
            Slot::F64 => Type::F64,
            Slot::VI32 => Type::vector(w, ScalarType::I32),
            Slot::VI64 => Type::vector(w, ScalarType::I64),
            Slot::VF32 => Type::vector(w, ScalarType::F32),
            Slot::VF64 => Type::vector(w, ScalarType::F64),
            Slot::Mask => Type::mask(w),
        }
    }

    /// The slot of a type the generator produces (`None` for pointers and other widths).
    pub(super) fn of(ty: Type, w: u16) -> Option<Slot> {
        Slot::ALL
            .into_iter()
            .find(|s| s.ty(w) == ty && (s.is_scalar() || ty.is_vector()))
    }

    pub(super) fn is_scalar(self) -> bool {
        self.index() <= Slot::F64.index()
    }

    pub(super) fn is_float(self) -> bool {
        matches!(self, Slot::F32 | Slot::F64 | Slot::VF32 | Slot::VF64)
    }

    /// The scalar slot of a vector slot's lanes (the slot itself for scalars).
    pub(super) fn elem(self) -> Slot {
        match self {
            Slot::VI32 => Slot::I32,
            Slot::VI64 => Slot::I64,
            Slot::VF32 => Slot::F32,
            Slot::VF64 => Slot::F64,
            Slot::Mask => Slot::I1,
            s => s,
        }
    }
}

/// Values usable at the current point, per slot, with dominator-tree scopes.
#[derive(Debug, Default)]
pub(super) struct Pool {
    vals: [Vec<Value>; NSLOTS],
    /// Usable constants by slot and value.
    consts: HashMap<(Slot, i64), Value>,
    /// Constants added, in order, to forget them when their scope closes.
    const_log: Vec<(Slot, i64)>,
    /// Lengths of `vals` and of `const_log` when each open scope was entered.
    scopes: Vec<([usize; NSLOTS], usize)>,
}

impl Pool {
    pub(super) fn push(&mut self, slot: Slot, v: Value) {
        self.vals[slot.index()].push(v);
    }

    pub(super) fn get(&self, slot: Slot) -> &[Value] {
        &self.vals[slot.index()]
    }

    /// The values of `slot` pushed since the innermost scope was opened: those defined in
    /// the block being emitted.
    pub(super) fn local(&self, slot: Slot) -> &[Value] {
        let vals = &self.vals[slot.index()];
        let start = self.scopes.last().map_or(0, |(lens, _)| lens[slot.index()]);
        &vals[start.min(vals.len())..]
    }

    /// The usable constant `imm` of `slot`, if any.
    pub(super) fn constant(&self, slot: Slot, imm: i64) -> Option<Value> {
        self.consts.get(&(slot, imm)).copied()
    }

    /// Records a new constant (one not yet usable).
    pub(super) fn add_constant(&mut self, slot: Slot, imm: i64, v: Value) {
        if let Entry::Vacant(e) = self.consts.entry((slot, imm)) {
            e.insert(v);
            self.const_log.push((slot, imm));
        }
    }

    /// Opens the scope of a dominator-tree node.
    pub(super) fn enter(&mut self) {
        let lens = core::array::from_fn(|i| self.vals[i].len());
        self.scopes.push((lens, self.const_log.len()));
    }

    /// Closes the innermost scope, forgetting the values pushed in it.
    pub(super) fn leave(&mut self) {
        if let Some((lens, log_len)) = self.scopes.pop() {
            for (vals, len) in self.vals.iter_mut().zip(lens) {
                vals.truncate(len);
            }
            for key in self.const_log.drain(log_len..) {
                self.consts.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn scopes_forget_inner_values() {
        let mut pool = Pool::default();
        pool.push(Slot::I32, Value::new(0));
        pool.enter();
        pool.push(Slot::I32, Value::new(1));
        pool.push(Slot::F64, Value::new(2));
        assert_eq!(pool.get(Slot::I32).len(), 2);
        pool.leave();
        assert_eq!(pool.get(Slot::I32), &[Value::new(0)]);
        assert!(pool.get(Slot::F64).is_empty());
    }

    #[test]
    fn local_values_are_those_of_the_open_scope() {
        let mut pool = Pool::default();
        pool.enter();
        pool.push(Slot::I32, Value::new(0));
        pool.enter();
        assert!(pool.local(Slot::I32).is_empty());
        pool.push(Slot::I32, Value::new(1));
        assert_eq!(pool.local(Slot::I32), &[Value::new(1)]);
        pool.leave();
        assert_eq!(pool.local(Slot::I32), &[Value::new(0)]);
    }

    #[test]
    fn constants_are_scoped() {
        let mut pool = Pool::default();
        pool.enter();
        pool.add_constant(Slot::I32, 7, Value::new(0));
        pool.enter();
        pool.add_constant(Slot::I32, 8, Value::new(1));
        pool.add_constant(Slot::I32, 7, Value::new(2)); // already usable: kept as is
        assert_eq!(pool.constant(Slot::I32, 7), Some(Value::new(0)));
        pool.leave();
        assert_eq!(pool.constant(Slot::I32, 8), None);
        assert_eq!(pool.constant(Slot::I32, 7), Some(Value::new(0)));
        assert_eq!(pool.constant(Slot::I64, 7), None);
    }

    #[test]
    fn slots_round_trip_through_types() {
        for w in [1u16, 4, 8] {
            for s in Slot::ALL {
                assert_eq!(Slot::of(s.ty(w), w), Some(s), "{s:?} at width {w}");
            }
        }
        assert_eq!(Slot::of(Type::PTR, 4), None);
    }
}
