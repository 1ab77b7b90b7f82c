//! Lane-interleaved private memory: ISPC's layout of varying arrays, for the stack
//! allocations of an SPMD function.
//!
//! Widening gives every lane a slice of each `alloca` (CC'12 §3.3): lane `k` owns
//! `[base + k·S, base + (k+1)·S)`. Element `e` of a private `float V[64]` then lies `S`
//! bytes apart from lane to lane, so even `V[j]` with a uniform `j` is a gather and every
//! store a scatter. Laid out element-major instead — element `e` of all lanes side by
//! side, at `base + W·e·g + k·g` for elements of `g` bytes — the same access is one
//! vector load or store, because the address becomes contiguous (PLDI'18 §2.3: stride
//! equal to the access size).
//!
//! The rewrite stays in scalar IR, written with the lane queries so that its width-1
//! meaning is the original program's (`lane_id` = 0, `num_lanes` = 1), which the
//! differential tests check before any widening:
//!
//! ```text
//! a = alloca S            a  = alloca S                       (lane k's slice: base + k·S)
//!                         a' = ptradd a, lane_id · (g − S)    (base + k·g)
//! q = ptradd p, x         q  = ptradd p, x · num_lanes         (W logical bytes per byte)
//! ```
//!
//! A pointer `p` at logical offset `o` of the array is then physically `base + k·g + W·o`;
//! for `o` a multiple of `g` the lanes' elements never overlap and stay inside the `W·S`
//! bytes widening allocates. Shape analysis sees the rest: the alloca is `strided(S)`,
//! `a'` is `strided(g)` (contiguous for `g`-byte accesses), and an offset scaled by the
//! uniform `num_lanes` keeps the offset's uniformity, so a uniform index stays a vector
//! access and only a varying one is a gather or scatter. Widening analyses the shapes for
//! its width (`ShapeAnalysis::with_num_lanes`), where `num_lanes` is the constant `W`: a
//! contiguous index `i` then gives an address stepping `(W + 1)·g` bytes from lane to lane,
//! a strided access rather than an unknown one.
//!
//! Only arrays whose layout no one else can see are rewritten: every pointer derived from
//! the alloca (through `ptradd`, `φ` and `select`, possibly merging several allocas into
//! one family) is only compared, offset by a multiple of `g`, or used as the address of a
//! load, store or atomic of `g` bytes — `g` the smallest access size — or of a plain
//! integer or float load or store of a multiple of `g` bytes, which is split into `g`-byte
//! pieces (module `wide_access`: what `float v[n] = {0}` becomes, a `memset` expanded into
//! 8-byte stores, and struct copies) (volatile and atomic accesses stay once per
//! lane and in order, at the new addresses: no other thread or device can see private
//! memory whose address never left the function). A pointer that is stored, passed to a
//! call, converted to an integer, merged with a pointer from elsewhere, or accessed with
//! another size keeps its family in the per-lane layout.

mod wide_access;

use std::collections::HashMap;

use cranelift_entity::{EntityRef, SecondaryMap};
use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{
    BinaryOp, FuncCursor, Function, Inst, InstData, IntFlags, Intrinsic, Type, Value, ValueDef,
};

/// How the stack arrays of a function are laid out across lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrivateLayout {
    /// Element-major where the array's addresses do not escape (else per lane).
    #[default]
    Interleaved,
    /// One contiguous copy per lane, always (CC'12's layout).
    PerLane,
}

/// The widest vector the offsets are scaled for: `x · num_lanes` must not wrap in the
/// offset's type for any offset inside the array.
const MAX_LANES: u64 = 64;

/// Rewrites every non-escaping family of allocas accessed with one element size to the
/// lane-interleaved layout; returns the number of families rewritten.
pub fn interleave_private_memory(func: &mut Function, info: &ShapeInfo) -> usize {
    let accepted: Vec<Accepted> = families(func)
        .into_iter()
        .filter_map(|f| f.accepted(func, info))
        .collect();
    for fam in &accepted {
        rewrite(func, fam);
    }
    accepted.len()
}

/// Pointers derived from one or more allocas, and what is done with them.
#[derive(Default)]
struct Family {
    allocas: Vec<Inst>,
    members: Vec<Value>,
    /// `ptradd`s whose base is a member (their offsets get scaled).
    offsets: Vec<Inst>,
    /// Loads, stores and atomics through members.
    accesses: Vec<Inst>,
    /// φs and selects joining members: all their pointer operands must be members.
    joins: Vec<Inst>,
    escapes: bool,
}

/// A family fit for the interleaved layout, with its element size.
struct Accepted {
    fam: Family,
    elem: u32,
    /// Plain loads and stores of several elements, to split.
    wide: Vec<Inst>,
}

impl Family {
    fn accepted(self, func: &Function, info: &ShapeInfo) -> Option<Accepted> {
        if self.escapes || self.accesses.is_empty() {
            return None;
        }
        let mut sizes: Vec<(Inst, u32, bool)> = Vec::new(); // (access, bytes, splittable)
        for &i in &self.accesses {
            let (ty, plain) = match func.dfg.inst(i) {
                InstData::Load { access, .. } => (
                    func.dfg.value_type(func.dfg.inst_result(i)?),
                    access.is_plain(),
                ),
                InstData::Store { value, access, .. } => {
                    (func.dfg.value_type(*value), access.is_plain())
                }
                InstData::AtomicRmw { value, .. } => (func.dfg.value_type(*value), false),
                InstData::AtomicCas { expected, .. } => (func.dfg.value_type(*expected), false),
                _ => return None,
            };
            if ty.is_vector() || ty.bytes() == 0 {
                return None;
            }
            let splittable = plain && (ty.is_int() || ty.is_float()) && ty != Type::I1;
            sizes.push((i, ty.bytes(), splittable));
        }
        let elem = sizes.iter().map(|&(_, b, _)| b).min()?;
        let mut wide = Vec::new();
        for &(i, bytes, splittable) in &sizes {
            if bytes % elem != 0 || (bytes > elem && !splittable) {
                return None;
            }
            if bytes > elem {
                wide.push(i);
            }
        }
        let in_family = |v: Value| self.members.contains(&v);
        for &j in &self.joins {
            let ptrs: Vec<Value> = match func.dfg.inst(j) {
                InstData::Phi { incoming } => incoming.iter().map(|&(_, v)| v).collect(),
                InstData::Select { args } => vec![args[1], args[2]],
                _ => return None,
            };
            if !ptrs.into_iter().all(in_family) {
                return None;
            }
        }
        for &a in &self.allocas {
            let InstData::Alloca { size, align } = *func.dfg.inst(a) else {
                return None;
            };
            if u64::from(size.next_multiple_of(align.max(elem))) * MAX_LANES >= 1 << 31 {
                return None;
            }
        }
        for &p in &self.offsets {
            let InstData::PtrAdd { args, .. } = func.dfg.inst(p) else {
                return None;
            };
            let off = args[1];
            let bits = func.dfg.value_type(off).elem().bits();
            let aligned = info.shape(off).lane_align() >= elem;
            if !aligned || bits < 32 {
                return None;
            }
        }
        Some(Accepted {
            fam: self,
            elem,
            wide,
        })
    }
}

/// The families of the function's allocas (union over φs and selects that join them).
fn families(func: &Function) -> Vec<Family> {
    let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            func.dfg.inst(i).for_each_arg(|v| users[v].push(i));
        }
    }
    // Union-find over family numbers; each alloca starts its own.
    let mut parent: Vec<usize> = Vec::new();
    let mut family_of: HashMap<Value, usize> = HashMap::new();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut work: Vec<Value> = Vec::new();
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            if let (InstData::Alloca { .. }, Some(r)) = (func.dfg.inst(i), func.dfg.inst_result(i))
            {
                family_of.insert(r, parent.len());
                parent.push(parent.len());
                work.push(r);
            }
        }
    }
    let mut derived: Vec<(Value, Value)> = Vec::new(); // (from, to): same family
    while let Some(v) = work.pop() {
        for &u in &users[v] {
            let joins = matches!(
                func.dfg.inst(u),
                InstData::PtrAdd { args, .. } if args[0] == v
            ) || matches!(func.dfg.inst(u), InstData::Phi { .. })
                || matches!(func.dfg.inst(u), InstData::Select { args } if args[0] != v);
            let Some(r) = func.dfg.inst_result(u).filter(|_| joins) else {
                continue;
            };
            derived.push((v, r));
            if !family_of.contains_key(&r) {
                family_of.insert(r, family_of[&v]);
                work.push(r);
            }
        }
    }
    for (from, to) in derived {
        let (a, b) = (family_of[&from], family_of[&to]);
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra] = rb;
    }
    let mut out: HashMap<usize, Family> = HashMap::new();
    let mut members: Vec<(&Value, &usize)> = family_of.iter().collect();
    members.sort_by_key(|(v, _)| v.index());
    for (&v, &f) in members {
        let root = find(&mut parent, f);
        let fam = out.entry(root).or_default();
        fam.members.push(v);
        if let ValueDef::Result(i) = func.dfg.value_def(v) {
            match func.dfg.inst(i) {
                InstData::Alloca { .. } => fam.allocas.push(i),
                InstData::Phi { .. } | InstData::Select { .. } => fam.joins.push(i),
                _ => {}
            }
        }
        if func.dfg.value_type(v).is_vector() {
            fam.escapes = true;
        }
        for &u in &users[v] {
            match func.dfg.inst(u) {
                InstData::PtrAdd { args, .. } if args[0] == v => fam.offsets.push(u),
                InstData::Phi { .. } | InstData::Icmp { .. } => {}
                InstData::Select { args } if args[0] != v => {}
                InstData::Load { .. } => fam.accesses.push(u),
                InstData::Store { value, .. } | InstData::AtomicRmw { value, .. }
                    if *value != v =>
                {
                    fam.accesses.push(u)
                }
                InstData::AtomicCas {
                    ptr,
                    expected,
                    replacement,
                    ..
                } if *ptr == v && *expected != v && *replacement != v => fam.accesses.push(u),
                _ => fam.escapes = true,
            }
        }
    }
    let mut fams: Vec<(usize, Family)> = out.into_iter().collect();
    fams.sort_by_key(|(k, _)| *k);
    fams.into_iter()
        .map(|(_, mut f)| {
            f.accesses.sort_by_key(|i| i.index());
            f.accesses.dedup();
            f.offsets.sort_by_key(|i| i.index());
            f.offsets.dedup();
            f
        })
        .collect()
}

fn rewrite(func: &mut Function, acc: &Accepted) {
    let g = acc.elem;
    let lane_query = |id| InstData::Intrinsic { id, args: vec![] };
    let mul = |a, b| InstData::Binary {
        op: BinaryOp::Mul,
        args: [a, b],
        flags: IntFlags::NONE,
    };
    for &p in &acc.fam.offsets {
        let InstData::PtrAdd { args, .. } = func.dfg.inst(p).clone() else {
            continue;
        };
        let ty = func.dfg.value_type(args[1]);
        let mut cur = FuncCursor::new(func);
        cur.goto_inst(p);
        let lanes = cur.insert_value(lane_query(Intrinsic::NumLanes), ty);
        let scaled = cur.insert_value(mul(args[1], lanes), ty);
        if let InstData::PtrAdd { args, .. } = func.dfg.inst_mut(p) {
            args[1] = scaled;
        }
    }
    for &a in &acc.fam.allocas {
        let InstData::Alloca { size, align } = *func.dfg.inst(a) else {
            continue;
        };
        let align = align.max(g);
        *func.dfg.inst_mut(a) = InstData::Alloca { size, align };
        let slice = size.next_multiple_of(align);
        let Some(base) = func.dfg.inst_result(a) else {
            continue;
        };
        let ptr_ty = func.dfg.value_type(base);
        let mut cur = FuncCursor::new(func);
        cur.goto_after_inst(a);
        let lane = cur.insert_value(lane_query(Intrinsic::LaneId), Type::I64);
        let step = cur.insert_value(
            InstData::Iconst {
                imm: i64::from(g) - i64::from(slice),
            },
            Type::I64,
        );
        let shift = cur.insert_value(mul(lane, step), Type::I64);
        let lane_base = cur.insert_value(
            InstData::PtrAdd {
                args: [base, shift],
                flags: IntFlags::NONE,
            },
            ptr_ty,
        );
        func.dfg.replace_uses(base, lane_base);
        let ValueDef::Result(own) = func.dfg.value_def(lane_base) else {
            continue;
        };
        if let InstData::PtrAdd { args, .. } = func.dfg.inst_mut(own) {
            args[0] = base;
        }
    }
    for &i in &acc.fam.accesses {
        match func.dfg.inst_mut(i) {
            InstData::Load { align, .. } | InstData::Store { align, .. } => {
                *align = (*align).min(g).max(1);
            }
            _ => {}
        }
    }
    for &i in &acc.wide {
        wide_access::split(func, i, g);
    }
}
