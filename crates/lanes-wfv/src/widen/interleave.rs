//! Interleaved access groups: the fields of an array of structures (`p[i].x`, `p[i].y`,
//! `p[i].z`) or the halves of pairs (`a[2*i]`, `a[2*i+1]`) as one wide access plus
//! shuffles, instead of one gather or scatter per field.
//!
//! Each such access on its own is strided (PLDI'18 §2.3 shapes: stride `S` bytes, larger
//! than the access), which the memory table of module `memory` turns into a gather. Taken
//! together, `m` accesses of `T` whose addresses differ by `0, |T|, …, (m-1)·|T|` (in some
//! order) and share the stride `S = m·|T|` cover every byte of `[base, base + W·S)`: one
//! vector access of `W·m` elements, and a shuffle per member (LLVM's loop vectorizer calls
//! these interleaved access groups). Because the group covers its range without gaps,
//! the wide access touches exactly the bytes the lanes' scalar accesses touch; under a
//! mask, each lane's mask bit is repeated `m` times (a masked wide access).
//!
//! Addresses are compared as linear forms over the same leaves ([`address_form`]): a root
//! pointer, a sum of scaled leaf values, and a constant. A group lives in one block, with
//! no other access, call or atomic between its members (a load group is read at its first
//! member, a store group written at its last, which moves accesses only across
//! instructions that do not touch memory).

use std::collections::HashMap;

use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_analysis::shapes::{constant_of as constant, ShapeInfo};
use lanes_ir::{BinaryOp, CastOp, Function, Inst, InstData, Type, Value};

use super::{vec_of, Widener};

/// How deep [`address_form`] looks through integer arithmetic.
const MAX_DEPTH: u32 = 8;
/// The most members of a group.
const MAX_MEMBERS: i64 = 8;

/// A leaf of a linear form: a value, or a sign or zero extension of one (so that the
/// two extensions clang makes of one index compare equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Leaf {
    Value(Value),
    Ext(bool, Value),
}

/// `root + Σ cᵢ·leafᵢ + offset` (bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Form {
    root: Value,
    terms: Vec<(Leaf, i64)>,
    offset: i64,
}

fn add_terms(into: &mut Vec<(Leaf, i64)>, from: Vec<(Leaf, i64)>, scale: i64) {
    for (leaf, c) in from {
        match into.iter_mut().find(|(l, _)| *l == leaf) {
            Some((_, k)) => *k = k.wrapping_add(c.wrapping_mul(scale)),
            None => into.push((leaf, c.wrapping_mul(scale))),
        }
    }
    into.retain(|&(_, c)| c != 0);
}

/// The integer `v` as `Σ cᵢ·leafᵢ + offset`.
fn int_form(func: &Function, v: Value, depth: u32) -> (Vec<(Leaf, i64)>, i64) {
    if let Some(c) = constant(func, v) {
        return (Vec::new(), c);
    }
    let leaf = (vec![(Leaf::Value(v), 1)], 0);
    if depth >= MAX_DEPTH {
        return leaf;
    }
    let Some(data) = func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) else {
        return leaf;
    };
    let sum = |a: (Vec<(Leaf, i64)>, i64), b: (Vec<(Leaf, i64)>, i64), sign: i64| {
        let (mut terms, c) = a;
        add_terms(&mut terms, b.0, sign);
        (terms, c.wrapping_add(b.1.wrapping_mul(sign)))
    };
    let scaled = |a: (Vec<(Leaf, i64)>, i64), k: i64| {
        let mut terms = Vec::new();
        add_terms(&mut terms, a.0, k);
        (terms, a.1.wrapping_mul(k))
    };
    match data {
        InstData::Binary {
            op: BinaryOp::Add,
            args: [a, b],
            ..
        } => sum(
            int_form(func, *a, depth + 1),
            int_form(func, *b, depth + 1),
            1,
        ),
        InstData::Binary {
            op: BinaryOp::Sub,
            args: [a, b],
            ..
        } => sum(
            int_form(func, *a, depth + 1),
            int_form(func, *b, depth + 1),
            -1,
        ),
        InstData::Binary {
            op: BinaryOp::Or,
            args: [a, b],
            flags,
        } if flags.disjoint() => sum(
            int_form(func, *a, depth + 1),
            int_form(func, *b, depth + 1),
            1,
        ),
        InstData::Binary {
            op: BinaryOp::Mul,
            args: [a, b],
            ..
        } => match (constant(func, *a), constant(func, *b)) {
            (_, Some(k)) => scaled(int_form(func, *a, depth + 1), k),
            (Some(k), _) => scaled(int_form(func, *b, depth + 1), k),
            _ => leaf,
        },
        InstData::Binary {
            op: BinaryOp::Shl,
            args: [a, b],
            ..
        } => match constant(func, *b) {
            Some(k) if (0..32).contains(&k) => scaled(int_form(func, *a, depth + 1), 1 << k),
            _ => leaf,
        },
        InstData::Cast {
            op: op @ (CastOp::Sext | CastOp::Zext),
            arg,
            ..
        } => {
            // `ext(x + c)` is `ext(x) + c` when the addition cannot wrap in x's type; so is
            // `ext(x | c)` for a disjoint `or` with a non-negative `c` (no carry, and the
            // sign bit is x's).
            let signed = *op == CastOp::Sext;
            let inner = func.dfg.def_inst(*arg).map(|i| func.dfg.inst(i));
            if let Some(InstData::Binary {
                op: o @ (BinaryOp::Add | BinaryOp::Or),
                args: [x, c],
                flags,
            }) = inner
            {
                let no_wrap = match o {
                    BinaryOp::Or => flags.disjoint(),
                    _ if signed => flags.nsw(),
                    _ => flags.nuw(),
                };
                let k = constant(func, *c).filter(|&k| *o != BinaryOp::Or || k >= 0);
                if let (true, Some(k)) = (no_wrap, k) {
                    return (vec![(Leaf::Ext(signed, *x), 1)], k);
                }
            }
            (vec![(Leaf::Ext(signed, *arg), 1)], 0)
        }
        _ => leaf,
    }
}

/// The pointer `p` as a linear form over its root pointer.
fn address_form(func: &Function, p: Value) -> Form {
    let mut terms = Vec::new();
    let mut offset = 0i64;
    let mut root = p;
    for _ in 0..MAX_DEPTH {
        let Some(InstData::PtrAdd {
            args: [base, off], ..
        }) = func.dfg.def_inst(root).map(|i| func.dfg.inst(i))
        else {
            break;
        };
        let (t, c) = int_form(func, *off, 0);
        add_terms(&mut terms, t, 1);
        offset = offset.wrapping_add(c);
        root = *base;
    }
    terms.sort();
    Form {
        root,
        terms,
        offset,
    }
}

/// One interleaved group: `members[j]` accesses slot `slots[j]` of `m`.
#[derive(Clone, Debug)]
pub(super) struct Group {
    pub members: Vec<Inst>,
    pub slots: Vec<u32>,
    pub m: u32,
    pub elem: Type,
    /// Each member's address minus the group's base (slot 0), in bytes.
    pub deltas: Vec<i64>,
    /// The alignment every member's access promised.
    pub align: u32,
}

/// The groups of a function: by the member that emits them (a load group's first, a
/// store group's last member), and each member's group.
#[derive(Default)]
pub(super) struct Groups {
    pub all: Vec<Group>,
    pub of_member: HashMap<Inst, usize>,
}

/// A candidate member: the access, its address's constant offset and its alignment.
struct Access {
    inst: Inst,
    offset: i64,
    align: u32,
}

/// Finds the interleaved groups of `func`, whose scalar values are `uni` and guarded
/// instructions `guarded`.
pub(super) fn find_groups(
    func: &Function,
    info: &ShapeInfo,
    uni: &SecondaryMap<Value, bool>,
    guarded: &EntitySet<Inst>,
) -> Groups {
    let mut groups = Groups::default();
    for b in func.layout.blocks() {
        let mut open: Vec<(Key, Vec<Access>)> = Vec::new();
        for &inst in func.layout.block_insts(b) {
            let data = func.dfg.inst(inst);
            let access = match data {
                InstData::Load {
                    ptr, align, access, ..
                } if access.is_plain() => func
                    .dfg
                    .inst_result(inst)
                    .map(|r| (false, *ptr, func.value_type(r), *align)),
                InstData::Store {
                    value,
                    ptr,
                    align,
                    access,
                } if access.is_plain() => Some((true, *ptr, func.value_type(*value), *align)),
                _ => None,
            };
            let key = access.and_then(|(is_store, ptr, ty, _)| {
                let stride = info.shape(ptr).stride()?;
                let size = i64::from(ty.bytes());
                let fits = !uni[ptr]
                    && !ty.is_vector()
                    && ty != Type::I1
                    && stride > size
                    && stride % size == 0
                    && stride / size <= MAX_MEMBERS;
                let form = address_form(func, ptr);
                fits.then_some((
                    (
                        is_store,
                        form.root,
                        form.terms,
                        ty,
                        stride,
                        guarded.contains(inst),
                    ),
                    form.offset,
                ))
            });
            let Some((key, offset)) = key else {
                if data.has_side_effects() || data.reads_memory() {
                    close(&mut open, &mut groups, |_| true);
                }
                continue;
            };
            // Loads move up to their group's first member and stores down to their last:
            // neither may cross a store (for loads) or any other access (for stores).
            if key.0 {
                close(&mut open, &mut groups, |k| *k != key);
            } else {
                close(&mut open, &mut groups, |k| k.0);
            }
            let align = access.map_or(1, |a| a.3);
            let entry = Access {
                inst,
                offset,
                align,
            };
            match open.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(entry),
                None => open.push((key, vec![entry])),
            }
        }
        close(&mut open, &mut groups, |_| true);
    }
    groups
}

/// What accesses must share to form a group: store or load, root pointer, leaf terms,
/// element type, stride, and whether they are guarded.
type Key = (bool, Value, Vec<(Leaf, i64)>, Type, i64, bool);

/// Ends the open candidate lists whose key satisfies `which`, keeping each complete one
/// as a group.
fn close(open: &mut Vec<(Key, Vec<Access>)>, groups: &mut Groups, which: impl Fn(&Key) -> bool) {
    let (done, kept): (Vec<_>, Vec<_>) = open.drain(..).partition(|(k, _)| which(k));
    *open = kept;
    for (key, accesses) in done {
        if let Some(g) = complete_group(&key, &accesses) {
            let k = groups.all.len();
            for &i in &g.members {
                groups.of_member.insert(i, k);
            }
            groups.all.push(g);
        }
    }
}

/// The group of `accesses` (one key) if their offsets fill all `stride / size` slots.
fn complete_group(key: &Key, accesses: &[Access]) -> Option<Group> {
    let (is_store, _, _, ty, stride, _) = *key;
    let size = i64::from(ty.bytes());
    let m = stride / size;
    let min = accesses.iter().map(|a| a.offset).min()?;
    let mut slots = Vec::new();
    let mut filled = vec![false; m as usize];
    for a in accesses {
        let d = a.offset - min;
        if d % size != 0 || d / size >= m {
            return None;
        }
        let s = (d / size) as usize;
        // A store group writes each slot once (two stores to one slot keep their order).
        if is_store && filled[s] {
            return None;
        }
        filled[s] = true;
        slots.push(s as u32);
    }
    if !filled.iter().all(|&f| f) {
        return None;
    }
    Some(Group {
        members: accesses.iter().map(|a| a.inst).collect(),
        slots,
        m: m as u32,
        elem: ty,
        deltas: accesses.iter().map(|a| a.offset - min).collect(),
        align: accesses.iter().map(|a| a.align).min().unwrap_or(1).max(1),
    })
}

impl Widener<'_> {
    /// Lane 0's address of `g`'s slot 0, as a new scalar, from member `j`'s address
    /// (one whose address is already widened: the one being widened).
    fn group_base(&mut self, g: &Group, j: usize) -> Value {
        let (InstData::Load { ptr, .. } | InstData::Store { ptr, .. }) =
            *self.old.dfg.inst(g.members[j])
        else {
            unreachable!("a group's members are loads or stores");
        };
        let p0 = self.lane0_of(ptr);
        if g.deltas[j] == 0 {
            return p0;
        }
        let back = self.emit_v(InstData::Iconst { imm: -g.deltas[j] }, Type::I64);
        self.emit_v(
            InstData::PtrAdd {
                args: [p0, back],
                flags: lanes_ir::IntFlags::NONE,
            },
            self.new.dfg.value_type(p0),
        )
    }

    /// Each lane's bit of `mask` repeated `m` times: `<W·m x i1>`.
    fn spread_mask(&mut self, mask: Value, m: u32) -> Value {
        let w = u32::from(self.width);
        let picks: Vec<u32> = (0..w * m).map(|p| p / m).collect();
        self.emit_v(
            InstData::Shuffle {
                args: [mask, mask],
                mask: picks,
            },
            Type::mask(self.width * m as u16),
        )
    }

    /// The value of load `inst` of group `k`: at its first member the wide load and the
    /// shuffles of every member, cached for the others.
    pub(super) fn group_load(&mut self, inst: Inst, k: usize, mask: Option<Value>) -> Value {
        if let Some(v) = self.group_values.get(&inst) {
            return *v;
        }
        let g = self.groups.all[k].clone();
        let w = u32::from(self.width);
        let wide_ty = Type::vector(self.width * g.m as u16, g.elem.elem());
        let j = g.members.iter().position(|&i| i == inst).unwrap_or(0);
        let base = self.group_base(&g, j);
        let wide = match mask {
            None => self.emit_v(
                InstData::Load {
                    ptr: base,
                    align: g.align,
                    access: lanes_ir::MemAccess::PLAIN,
                },
                wide_ty,
            ),
            Some(mk) => {
                let spread = self.spread_mask(mk, g.m);
                let zero = self.emit_v(
                    if g.elem.is_float() {
                        InstData::Fconst { bits: 0 }
                    } else {
                        InstData::Iconst { imm: 0 }
                    },
                    wide_ty,
                );
                self.emit_v(
                    InstData::MaskedLoad {
                        ptr: base,
                        mask: spread,
                        passthru: zero,
                        align: g.align,
                    },
                    wide_ty,
                )
            }
        };
        for (&member, &slot) in g.members.iter().zip(&g.slots) {
            let picks: Vec<u32> = (0..w).map(|lane| slot + lane * g.m).collect();
            let v = self.emit_v(
                InstData::Shuffle {
                    args: [wide, wide],
                    mask: picks,
                },
                vec_of(g.elem, self.width),
            );
            self.group_values.insert(member, v);
        }
        self.group_values[&inst]
    }

    /// Store `inst` of group `k`: nothing until the last member, which writes the
    /// interleaved values of all members at once.
    pub(super) fn group_store(&mut self, inst: Inst, k: usize, mask: Option<Value>) {
        let g = self.groups.all[k].clone();
        if g.members.last() != Some(&inst) {
            return;
        }
        let w = u32::from(self.width);
        // The members' values in slot order, concatenated (padded to pairs with zeros).
        let mut parts: Vec<Value> = vec![Value::from_u32(0); g.m as usize];
        for (&member, &slot) in g.members.iter().zip(&g.slots) {
            let InstData::Store { value, .. } = *self.old.dfg.inst(member) else {
                unreachable!("a store group's members are stores");
            };
            parts[slot as usize] = self.vector(value);
        }
        let mut len = w;
        while parts.len() > 1 {
            if parts.len() % 2 == 1 {
                let ty = vec_of(g.elem, len as u16);
                let data = if g.elem.is_float() {
                    InstData::Fconst { bits: 0 }
                } else {
                    InstData::Iconst { imm: 0 }
                };
                let z = self.emit_v(data, ty);
                parts.push(z);
            }
            let next: Vec<Value> = parts
                .chunks(2)
                .map(|pair| {
                    self.emit_v(
                        InstData::Shuffle {
                            args: [pair[0], pair[1]],
                            mask: (0..2 * len).collect(),
                        },
                        vec_of(g.elem, (2 * len) as u16),
                    )
                })
                .collect();
            parts = next;
            len *= 2;
        }
        let cat = parts[0];
        // Element `lane·m + slot` of memory is lane `lane` of slot `slot`'s vector.
        let picks: Vec<u32> = (0..w * g.m).map(|p| (p % g.m) * w + p / g.m).collect();
        let wide = self.emit_v(
            InstData::Shuffle {
                args: [cat, cat],
                mask: picks,
            },
            Type::vector(self.width * g.m as u16, g.elem.elem()),
        );
        let base = self.group_base(&g, g.members.len() - 1);
        match mask {
            None => {
                self.emit(
                    InstData::Store {
                        value: wide,
                        ptr: base,
                        align: g.align,
                        access: lanes_ir::MemAccess::PLAIN,
                    },
                    None,
                );
            }
            Some(mk) => {
                let spread = self.spread_mask(mk, g.m);
                self.emit(
                    InstData::MaskedStore {
                        value: wide,
                        ptr: base,
                        mask: spread,
                        align: g.align,
                    },
                    None,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a[2*i]` and `a[2*i+1]` with an `int i` as clang writes them: `sext(i << 1)` and
    /// `sext((i << 1) | 1)` (a disjoint `or`), and a field at a constant offset.
    #[test]
    fn addresses_of_one_structure_differ_by_constants() {
        let text = "function @f(v0: ptr, v1: i32) {
block0:
    v2: i32 = iconst 1
    v3: i32 = shl nsw v1, v2
    v4: i64 = sext v3
    v5: i64 = iconst 4
    v6: i64 = mul v4, v5
    v7: ptr = ptradd v0, v6
    v8: i32 = or disjoint v3, v2
    v9: i64 = sext v8
    v10: i64 = mul v9, v5
    v11: ptr = ptradd v0, v10
    v12: i64 = iconst 8
    v13: ptr = ptradd v7, v12
    v14: i32 = iconst -1
    v15: i32 = or disjoint v3, v14
    v16: i64 = sext v15
    v17: i64 = mul v16, v5
    v18: ptr = ptradd v0, v17
    ret
}
";
        let module = lanes_ir::parse_module(text).expect("parses");
        let f = module
            .function(module.func_by_name("f").expect("f"))
            .expect("body");
        let v = |n: u32| Value::from_u32(n);
        let (a0, a1, a2, neg) = (
            address_form(f, v(7)),
            address_form(f, v(11)),
            address_form(f, v(13)),
            address_form(f, v(18)),
        );
        assert_eq!((a0.root, &a0.terms), (a1.root, &a1.terms));
        assert_eq!((a1.offset - a0.offset, a2.offset - a0.offset), (4, 8));
        assert_eq!(a2.terms, a0.terms);
        // A negative constant may change the sign bit: not a constant offset.
        assert_ne!(neg.terms, a0.terms);
    }
}
