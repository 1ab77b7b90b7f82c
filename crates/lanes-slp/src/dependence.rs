//! Loop-independent dependences between the items of one item list (SuperVectorization,
//! PLDI'22 §4.2): what orders two items of the same run of a list, and so what a pack may
//! not reorder.
//!
//! SLP never packs an instruction with another instance of itself, so no loop-carried
//! dependence matters: within one run of a list every SSA value has one value. Item `b`
//! depends on an earlier item `a` when it reads a value `a` defines (an operand, a
//! condition of its predicate or gates; for a loop item, anything its body reads from
//! outside), when both touch memory that may overlap and one writes, or when both have
//! effects whose order is observable (calls, fences, atomic and volatile accesses, the
//! return). A loop item touches everything its body touches.

use std::collections::{HashMap, HashSet};

use lanes_ir::{Function, Inst, InstData, Value};

use crate::address::Address;
use crate::pssa::{Item, LoopId, Pssa};

/// What an item does to memory.
#[derive(Clone, Debug)]
pub enum MemEffect {
    None,
    /// A plain access of `bytes` bytes at `addr`.
    Access {
        addr: Address,
        bytes: i64,
        write: bool,
    },
    /// Anything (a call): reads and maybe writes.
    Unknown {
        write: bool,
    },
    /// A loop's plain accesses, over all its iterations.
    Loop(Vec<LoopAccess>),
    /// An effect whose order matters beyond memory contents (volatile, atomic, fence,
    /// return, a call with effects).
    Ordered,
}

/// The items of one list with their definitions, uses, effects and dependences.
pub struct ListDeps {
    pub items: Vec<Item>,
    /// The position of the item defining each value defined in the list.
    pub def_pos: HashMap<Value, usize>,
    /// Per item, the positions of the earlier items it depends on.
    pub preds: Vec<Vec<usize>>,
    pub effects: Vec<MemEffect>,
}

impl ListDeps {
    /// The dependences of the list of `l` (`None`: the function's).
    pub fn of(pssa: &Pssa, l: Option<LoopId>) -> ListDeps {
        let items = pssa.items_of(l).to_vec();
        let func = &pssa.func;
        let mut def_pos = HashMap::new();
        let mut uses: Vec<Vec<Value>> = Vec::with_capacity(items.len());
        let mut effects = Vec::with_capacity(items.len());
        for (pos, &item) in items.iter().enumerate() {
            let (defs, used, effect) = summary(pssa, item);
            for v in defs {
                def_pos.insert(v, pos);
            }
            uses.push(used);
            effects.push(effect);
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
        for b in 0..items.len() {
            for v in &uses[b] {
                if let Some(&a) = def_pos.get(v) {
                    if a < b && !preds[b].contains(&a) {
                        preds[b].push(a);
                    }
                }
            }
            for a in 0..b {
                if conflict(func, &effects[a], &effects[b]) && !preds[b].contains(&a) {
                    preds[b].push(a);
                }
            }
        }
        ListDeps {
            items,
            def_pos,
            preds,
            effects,
        }
    }

    /// For every item, the set of earlier items it depends on transitively, as bit sets.
    pub fn reachability(&self) -> Vec<Vec<u64>> {
        let n = self.items.len();
        let words = n.div_ceil(64);
        let mut reach: Vec<Vec<u64>> = vec![vec![0; words]; n];
        for b in 0..n {
            for &a in &self.preds[b] {
                let (lo, hi) = reach.split_at_mut(b);
                let rb = &mut hi[0];
                for (w, x) in rb.iter_mut().zip(&lo[a]) {
                    *w |= *x;
                }
                rb[a / 64] |= 1 << (a % 64);
            }
        }
        reach
    }
}

/// Does `b` (later) have to stay after `a`?
pub(crate) fn conflict(func: &Function, a: &MemEffect, b: &MemEffect) -> bool {
    use MemEffect::*;
    match (a, b) {
        (None, _) | (_, None) => false,
        (Ordered, _) | (_, Ordered) => true,
        (Unknown { write: wa }, Unknown { write: wb }) => *wa || *wb,
        (Unknown { write }, Access { write: w2, .. })
        | (Access { write: w2, .. }, Unknown { write }) => *write || *w2,
        (Unknown { write }, Loop(xs)) | (Loop(xs), Unknown { write }) => {
            *write || xs.iter().any(|x| x.write)
        }
        (Loop(xs), Loop(ys)) => xs
            .iter()
            .any(|x| ys.iter().any(|y| (x.write || y.write) && !x.apart(func, y))),
        (Loop(xs), Access { addr, bytes, write }) | (Access { addr, bytes, write }, Loop(xs)) => {
            let y = LoopAccess::fixed(addr, *bytes, *write);
            xs.iter().any(|x| (x.write || *write) && !x.apart(func, &y))
        }
        (
            Access {
                addr: x,
                bytes: bx,
                write: wx,
            },
            Access {
                addr: y,
                bytes: by,
                write: wy,
            },
        ) => (*wx || *wy) && may_overlap(func, x, *bx, y, *by),
    }
}

/// May `[x, x + bx)` and `[y, y + by)` overlap?
pub fn may_overlap(func: &Function, x: &Address, bx: i64, y: &Address, by: i64) -> bool {
    if x.same_symbolic(y) {
        let (first, first_bytes, second) = if x.offset <= y.offset {
            (x, bx, y)
        } else {
            (y, by, x)
        };
        return second.offset.wrapping_sub(first.offset) < first_bytes;
    }
    !(x.base != y.base && distinct_objects(func, x.base, y.base))
}

/// Are `a` and `b` pointers to different objects? Two stack allocations are; a stack
/// allocation is no parameter's or global's; two different globals are not the same; a
/// `noalias` parameter is none of these. A pointer of unknown origin (loaded, selected)
/// may be any of them.
pub(crate) fn distinct_objects(func: &Function, a: Value, b: Value) -> bool {
    #[derive(PartialEq)]
    enum Kind {
        Stack,
        Global(lanes_ir::GlobalId),
        Param { noalias: bool },
        Other,
    }
    let kind = |v: Value| match func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
        Some(InstData::Alloca { .. }) => Kind::Stack,
        Some(&InstData::GlobalAddr { global }) => Kind::Global(global),
        None => match func.params.iter().position(|p| p.value == v) {
            Some(i) => Kind::Param {
                noalias: func.abi.param(i).noalias,
            },
            None => Kind::Other,
        },
        _ => Kind::Other,
    };
    if a == b {
        return false;
    }
    match (kind(a), kind(b)) {
        (Kind::Stack, Kind::Stack) => true,
        (Kind::Stack, Kind::Param { .. } | Kind::Global(_))
        | (Kind::Param { .. } | Kind::Global(_), Kind::Stack) => true,
        (Kind::Global(x), Kind::Global(y)) => x != y,
        (Kind::Param { noalias: true }, Kind::Param { .. } | Kind::Global(_))
        | (Kind::Param { .. } | Kind::Global(_), Kind::Param { noalias: true }) => true,
        _ => false,
    }
}

/// The values `item` defines, the values it reads from outside itself, and its effect.
fn summary(pssa: &Pssa, item: Item) -> (Vec<Value>, Vec<Value>, MemEffect) {
    let func = &pssa.func;
    match item {
        Item::Inst(inst) => {
            let mut used = Vec::new();
            pssa.for_each_operand(inst, |v| used.push(v));
            pssa.for_each_cond(inst, |v| used.push(v));
            let defs = func.dfg.inst_result(inst).into_iter().collect();
            (defs, used, inst_effect(func, inst))
        }
        Item::Loop(l) => {
            let mut defs = Vec::new();
            let mut used = Vec::new();
            let (mut unknown, mut write, mut ordered) = (false, false, false);
            let mut inner: Vec<(LoopId, Address, i64, bool)> = Vec::new();
            let mut stack = vec![l];
            while let Some(l) = stack.pop() {
                let data = &pssa.loops[l];
                for m in &data.mus {
                    defs.push(m.value);
                    used.push(m.init);
                    used.push(m.rec);
                }
                pssa.preds.for_each_cond(data.cont, &mut |v| used.push(v));
                pssa.preds.for_each_cond(data.pred, &mut |v| used.push(v));
                for &it in &data.items {
                    match it {
                        Item::Loop(inner_loop) => stack.push(inner_loop),
                        Item::Inst(inst) => {
                            defs.extend(func.dfg.inst_result(inst));
                            pssa.for_each_operand(inst, |v| used.push(v));
                            pssa.for_each_cond(inst, |v| used.push(v));
                            match inst_effect(func, inst) {
                                MemEffect::None => {}
                                MemEffect::Access {
                                    addr,
                                    bytes,
                                    write: w,
                                } => {
                                    write |= w;
                                    inner.push((l, addr, bytes, w));
                                }
                                MemEffect::Unknown { write: w } => {
                                    unknown = true;
                                    write |= w;
                                }
                                // Only loops summarize; instructions never do.
                                MemEffect::Loop(_) => unknown = true,
                                MemEffect::Ordered => ordered = true,
                            }
                        }
                    }
                }
            }
            used.retain(|v| !defs.contains(v));
            let effect = if ordered {
                MemEffect::Ordered
            } else if unknown {
                MemEffect::Unknown { write }
            } else if !inner.is_empty() {
                let defined: HashSet<Value> = defs.iter().copied().collect();
                MemEffect::Loop(
                    inner
                        .into_iter()
                        .map(|(l, addr, bytes, w)| {
                            LoopAccess::new(pssa, l, &defined, addr, bytes, w)
                        })
                        .collect(),
                )
            } else {
                MemEffect::None
            };
            (defs, used, effect)
        }
    }
}

/// What instruction `inst` does to memory.
pub fn inst_effect(func: &Function, inst: Inst) -> MemEffect {
    let data = func.dfg.inst(inst);
    match *data {
        InstData::Load { ptr, access, .. } if access.is_plain() => MemEffect::Access {
            addr: Address::of(func, ptr),
            bytes: i64::from(
                func.dfg
                    .value_type(func.dfg.inst_result(inst).expect("a load has a result"))
                    .bytes(),
            ),
            write: false,
        },
        InstData::Store {
            value, ptr, access, ..
        } if access.is_plain() => MemEffect::Access {
            addr: Address::of(func, ptr),
            bytes: i64::from(func.dfg.value_type(value).bytes()),
            write: true,
        },
        InstData::Return { .. } | InstData::Fence { .. } => MemEffect::Ordered,
        InstData::Load { .. } | InstData::Store { .. } => MemEffect::Ordered,
        _ if data.has_side_effects() => match data {
            InstData::MaskedStore { .. } | InstData::Scatter { .. } => {
                MemEffect::Unknown { write: true }
            }
            _ => MemEffect::Ordered,
        },
        _ if data.reads_memory() => MemEffect::Unknown { write: false },
        _ => MemEffect::None,
    }
}

/// A plain access made inside a loop item, split for the question whether two such
/// accesses can ever overlap (§4.2): `base + stride·i + rest + offset`, with `i` the
/// induction of the loop the access is directly in (any integer, over the iterations),
/// `stride` `None` for an address that does not change with it, and `rest` terms that do
/// not change inside the summarized loop (`exact` is false where the address has other
/// changing terms: then only different objects are known apart).
#[derive(Clone, Debug)]
pub struct LoopAccess {
    pub base: Value,
    pub stride: Option<i64>,
    pub rest: Vec<(crate::address::Term, i64)>,
    pub offset: i64,
    pub bytes: i64,
    pub write: bool,
    pub exact: bool,
}

impl LoopAccess {
    /// The access at `addr` of an item directly in loop `l`, inside a loop item that
    /// defines `defined`.
    pub fn new(
        pssa: &Pssa,
        l: LoopId,
        defined: &HashSet<Value>,
        addr: Address,
        bytes: i64,
        write: bool,
    ) -> LoopAccess {
        use crate::address::Term;
        let value_of = |t: Term| match t {
            Term::Value(v) | Term::Sext(v) | Term::Zext(v) => v,
        };
        let mus: Vec<Value> = pssa.loops[l].mus.iter().map(|m| m.value).collect();
        let mut stride = None;
        let mut rest = Vec::new();
        let mut exact = true;
        for &(t, c) in &addr.terms {
            let v = value_of(t);
            if mus.contains(&v) && stride.is_none() {
                stride = Some(c);
            } else {
                exact &= !defined.contains(&v);
                rest.push((t, c));
            }
        }
        LoopAccess {
            base: addr.base,
            stride,
            rest,
            offset: addr.offset,
            bytes,
            write,
            exact,
        }
    }

    /// An access that is the same in every iteration (of an item beside the loop).
    pub fn fixed(addr: &Address, bytes: i64, write: bool) -> LoopAccess {
        LoopAccess {
            base: addr.base,
            stride: None,
            rest: addr.terms.clone(),
            offset: addr.offset,
            bytes,
            write,
            exact: true,
        }
    }

    /// Are `self` and `other` apart whatever iterations they are made in? Different
    /// objects are; on one object, addresses `k + S·i` and `k' + S·j` (`i`, `j` any
    /// integers, the same loop-invariant rest) never overlap when the distance of `k`
    /// and `k'` modulo `S` leaves room for both accesses — one loop on the odd elements,
    /// the other on the even ones.
    pub fn apart(&self, func: &Function, other: &LoopAccess) -> bool {
        if self.base != other.base {
            return distinct_objects(func, self.base, other.base);
        }
        if !self.exact || !other.exact || self.rest != other.rest {
            return false;
        }
        let stride = match (self.stride, other.stride) {
            (Some(a), Some(b)) if a.abs() == b.abs() => a.abs(),
            (Some(a), None) | (None, Some(a)) => a.abs(),
            (None, None) => {
                let (lo, lo_bytes, hi) = if self.offset <= other.offset {
                    (self.offset, self.bytes, other.offset)
                } else {
                    (other.offset, other.bytes, self.offset)
                };
                return hi.wrapping_sub(lo) >= lo_bytes;
            }
            _ => return false,
        };
        if stride == 0 {
            return false;
        }
        let d = (other.offset - self.offset).rem_euclid(stride);
        d >= self.bytes && stride - d >= other.bytes
    }
}
