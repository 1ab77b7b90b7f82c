//! Transfer functions of the shape analysis: the shape of an instruction's result from
//! the shapes of its operands (PLDI'18 §2.3, CC'12 §3.2 "uniform / consecutive / aligned").
//!
//! Every rule is *sound* for the lane semantics of [`super::lattice`]: if the operands of
//! an instruction, executed by a set of active lanes, satisfy their shapes, the result
//! satisfies the computed shape. Integer arithmetic wraps, so strides are computed modulo
//! the bit width ([`normalize_stride`]); where a rule needs "no overflow" it falls back to
//! `varying` (`sitofp`, …) unless the no-wrap flags prove it (`sext`/`zext`, below). The
//! rules:
//!
//! - constants, `global_addr`: uniform (aligned to the constant's low bit / the global);
//! - `add`/`sub`/`ptradd`: strides add/subtract (`ptradd` offsets are bytes), and so do
//!   `or disjoint` (an `or` of operands without common bits is their sum);
//!   `mul` by a uniform constant `k`: stride·k; `shl` by a uniform constant `k`: stride·2^k;
//!   `ineg`/`not`: stride negated; `copy`, `trunc`, `bitcast` of same-width ints and
//!   pointer/int casts keep the stride (`trunc` modulo the narrower width);
//! - `sext`/`zext` of a strided value keep its stride when its computation cannot wrap:
//!   `nsw`/`nuw` arithmetic over uniform values, `lane_id` and declared parameters
//!   ([`super::no_wrap`]); otherwise varying;
//! - everything else computes uniform from uniform operands and `varying` otherwise;
//! - `select c, a, b`: `a ⊔ b` if `c` is uniform (all lanes take the same side);
//! - loads (and masked loads, gathers) of a uniform address with uniform mask: uniform —
//!   lanes execute a load in lock-step, so they read the same memory state;
//! - atomics and `alloca` (a private slot per lane): varying;
//! - `lane_extract x, lane` (another lane's `x`): uniform if `x` or `lane` is uniform;
//!   `lane_broadcast x` (the first active lane's `x`): uniform;
//! - work items: `global_id 0`, `local_id 0` contiguous, everything else uniform; `lane_id`
//!   contiguous, `num_lanes` uniform;
//! - calls: declared (external, pure libm) callees map uniform arguments to a uniform
//!   result; defined callees are summarized by analyzing their bodies with the argument
//!   shapes of the call (see [`super::ShapeAnalysis`]).
//!
//! A rule seeing an `undef` operand returns `undef` (optimistic, as in SCCP); φ-nodes are
//! not handled here but by the fixpoint driver, which joins incoming shapes and consults
//! the divergence of the φ's block.

use lanes_ir::{
    BinaryOp, CastOp, FuncId, Function, Inst, InstData, IntFlags, Intrinsic, Module, Type, UnaryOp,
    Value, WorkItemQuery,
};

use super::lattice::{low_bit, normalize_stride, VShape, MAX_ALIGN};
use super::{ShapeAnalysis, ShapeInfo};

/// What the transfer functions need to know besides operand shapes.
pub trait TransferEnv {
    /// The shape of operand `v` at the instruction being evaluated (temporal divergence
    /// already applied by the driver).
    fn operand(&self, v: Value) -> VShape;
    /// The value of `v` if it is an integer constant (`iconst`).
    fn constant(&self, v: Value) -> Option<i64>;
    /// The type of `v`.
    fn ty(&self, v: Value) -> Type;
    /// The result shape of calling defined function `callee` with argument shapes `args`.
    fn call_summary(&self, callee: FuncId, args: &[VShape]) -> VShape;
    /// For a `sext`/`zext` being evaluated: the integer stride of its operand if that
    /// provably does not wrap ([`super::no_wrap`]).
    fn extension_stride(&self) -> Option<i64> {
        None
    }
}

/// Bits of an element of `ty` (pointers are 64 bits).
fn elem_bits(ty: Type) -> u32 {
    ty.elem().bits()
}

/// Joins all operands: the shape "uniform if all uniform, else varying".
fn all_uniform(shapes: &[VShape]) -> VShape {
    if shapes.iter().any(|s| s.is_undef()) {
        return VShape::Undef;
    }
    if shapes.iter().all(|s| s.is_uniform()) {
        VShape::UNIFORM
    } else {
        VShape::VARYING
    }
}

/// Strided combination `a ± b` (with `sign` ±1) at width `bits`.
fn add_shapes(a: VShape, b: VShape, sign: i64, bits: u32) -> VShape {
    match (a, b) {
        (VShape::Undef, _) | (_, VShape::Undef) => VShape::Undef,
        (
            VShape::Strided {
                stride: s1,
                align: a1,
            },
            VShape::Strided {
                stride: s2,
                align: a2,
            },
        ) => VShape::strided(
            normalize_stride(s1.wrapping_add(sign.wrapping_mul(s2)), bits),
            a1.min(a2),
        ),
        (x, y) => VShape::varying(x.lane_align().min(y.lane_align())),
    }
}

/// `a * k` for a uniform constant `k`.
fn scale(a: VShape, k: i64, bits: u32) -> VShape {
    match a {
        VShape::Undef => VShape::Undef,
        VShape::Strided { stride, align } => VShape::strided(
            normalize_stride(stride.wrapping_mul(k), bits),
            scale_align(align, k),
        ),
        VShape::Varying { align } => VShape::varying(scale_align(align, k)),
    }
}

fn scale_align(align: u32, k: i64) -> u32 {
    if k == 0 {
        return MAX_ALIGN;
    }
    (u64::from(align) * u64::from(low_bit(k))).min(u64::from(MAX_ALIGN)) as u32
}

/// The transfer function of a binary operation.
fn binary(
    op: BinaryOp,
    args: [Value; 2],
    flags: IntFlags,
    rty: Type,
    env: &dyn TransferEnv,
) -> VShape {
    let (a, b) = (env.operand(args[0]), env.operand(args[1]));
    let bits = elem_bits(rty);
    match op {
        BinaryOp::Add => add_shapes(a, b, 1, bits),
        // Operands without common bits: `or` is their sum (clang's `2*i | 1`).
        BinaryOp::Or if flags.disjoint() => add_shapes(a, b, 1, bits),
        BinaryOp::Sub => add_shapes(a, b, -1, bits),
        // Bitwise not: `x ^ -1` is `-1 - x` (clang's `n - 1 - i` as `~i + n`).
        BinaryOp::Xor if is_all_ones(env.constant(args[1]), bits) => add_shapes(b, a, -1, bits),
        BinaryOp::Xor if is_all_ones(env.constant(args[0]), bits) => add_shapes(a, b, -1, bits),
        BinaryOp::Mul => {
            if a.is_undef() || b.is_undef() {
                VShape::Undef
            } else if let Some(k) = env.constant(args[1]).filter(|_| b.is_uniform()) {
                scale(a, k, bits)
            } else if let Some(k) = env.constant(args[0]).filter(|_| a.is_uniform()) {
                scale(b, k, bits)
            } else {
                all_uniform(&[a, b])
            }
        }
        BinaryOp::Shl => match env.constant(args[1]) {
            Some(k) if b.is_uniform() && !a.is_undef() => {
                let k = (k as u64 % u64::from(bits.max(1))) as u32;
                if k >= 63 {
                    all_uniform(&[a, b])
                } else {
                    scale(a, 1i64 << k, bits)
                }
            }
            _ => all_uniform(&[a, b]),
        },
        BinaryOp::And if a.is_uniform() && b.is_uniform() => {
            // x & c keeps c's alignment facts; uniform either way.
            VShape::uniform(a.align().max(b.align()))
        }
        _ => all_uniform(&[a, b]),
    }
}

/// Whether constant `c` has all of its `bits` low bits set (-1 at that width).
fn is_all_ones(c: Option<i64>, bits: u32) -> bool {
    c.is_some_and(|c| normalize_stride(c, bits) == -1)
}

/// The transfer function of a cast.
fn cast(op: CastOp, arg: Value, rty: Type, env: &dyn TransferEnv) -> VShape {
    let a = env.operand(arg);
    if a.is_undef() {
        return VShape::Undef;
    }
    let from = env.ty(arg);
    match op {
        CastOp::Trunc => match a {
            VShape::Strided { stride, .. } => {
                VShape::strided(normalize_stride(stride, elem_bits(rty)), 1)
            }
            _ => all_uniform(&[a]),
        },
        CastOp::PtrToInt | CastOp::IntToPtr | CastOp::AddrSpaceCast
            if elem_bits(from) == 64 && elem_bits(rty) == 64 =>
        {
            a
        }
        CastOp::Bitcast if from.is_int() && rty.is_int() && from == rty => a,
        CastOp::Zext | CastOp::Sext if a.is_uniform() => VShape::uniform(a.align()),
        // Strided without wrapping: the same integer stride in the wider type. Lane 0's
        // alignment is a fact modulo 2^bits, which the wider value keeps (a ≤ 2^30).
        CastOp::Zext | CastOp::Sext if a.stride().is_some() => match env.extension_stride() {
            Some(s) => VShape::strided(normalize_stride(s, elem_bits(rty)), a.align()),
            None => all_uniform(&[a]),
        },
        _ => all_uniform(&[a]),
    }
}

/// The transfer function of an intrinsic.
fn intrinsic(id: Intrinsic, args: &[Value], env: &dyn TransferEnv) -> VShape {
    let shapes: Vec<VShape> = args.iter().map(|&v| env.operand(v)).collect();
    match id {
        Intrinsic::LaneId => VShape::strided(1, 1),
        Intrinsic::NumLanes => VShape::UNIFORM,
        Intrinsic::Broadcast => shapes.first().copied().unwrap_or(VShape::Undef),
        // extract(vec, idx): a uniform index picks the same element position in every lane.
        Intrinsic::Extract => match (shapes.first(), shapes.get(1)) {
            (Some(&v), Some(&i)) if i.is_uniform() => v,
            _ => all_uniform(&shapes),
        },
        // Another lane's scalar: the same for every lane when the lane index is uniform
        // (or the value itself is); the first active lane's value is uniform.
        Intrinsic::LaneExtract => match (shapes.first(), shapes.get(1)) {
            _ if shapes.iter().any(|s| s.is_undef()) => VShape::Undef,
            (Some(&v), _) if v.is_uniform() => v,
            (Some(_), Some(&i)) if i.is_uniform() => VShape::UNIFORM,
            _ => all_uniform(&shapes),
        },
        Intrinsic::LaneBroadcast => match shapes.first() {
            Some(&v) if v.is_uniform() || v.is_undef() => v,
            _ => VShape::UNIFORM,
        },
        Intrinsic::Insert => match (shapes.first(), shapes.get(1), shapes.get(2)) {
            (Some(&v), Some(&e), Some(&i)) if i.is_uniform() => v.join(e),
            _ => all_uniform(&shapes),
        },
        // `lanes_any`/`all`/`popcount`/`ballot` of an instance's scalar condition ask about
        // the condition across the active lanes (RV's `rv_any`…): every active lane gets the
        // same answer. Of a vector mask an instance owns, they are per instance.
        Intrinsic::Any | Intrinsic::All | Intrinsic::Popcount | Intrinsic::Ballot
            if args.first().is_some_and(|&m| !env.ty(m).is_vector()) =>
        {
            match shapes.first() {
                Some(s) if s.is_undef() => VShape::Undef,
                _ => VShape::UNIFORM,
            }
        }
        _ => all_uniform(&shapes),
    }
}

/// The result shape of a non-φ instruction with result type `rty`, or `None` if the
/// instruction has no result.
pub fn transfer(
    module: &Module,
    data: &InstData,
    rty: Option<Type>,
    env: &dyn TransferEnv,
) -> Option<VShape> {
    let rty = rty?;
    let op = |v: Value| env.operand(v);
    Some(match data {
        InstData::Iconst { imm } => VShape::uniform(low_bit(*imm)),
        InstData::Fconst { .. } => VShape::UNIFORM,
        InstData::Unary { op: u, arg } => {
            let a = op(*arg);
            match (u, a) {
                (_, VShape::Undef) => VShape::Undef,
                (UnaryOp::Copy | UnaryOp::Freeze, a) => a,
                (UnaryOp::Ineg | UnaryOp::Not, VShape::Strided { stride, align }) => {
                    let bits = elem_bits(rty);
                    let align = if *u == UnaryOp::Ineg { align } else { 1 };
                    VShape::strided(normalize_stride(stride.wrapping_neg(), bits), align)
                }
                _ => all_uniform(&[a]),
            }
        }
        InstData::Binary { op: b, args, flags } => binary(*b, *args, *flags, rty, env),
        InstData::Icmp { args, .. } | InstData::Fcmp { args, .. } => {
            all_uniform(&[op(args[0]), op(args[1])])
        }
        InstData::Select { args } => {
            let c = op(args[0]);
            if c.is_undef() {
                VShape::Undef
            } else if c.is_uniform() {
                op(args[1]).join(op(args[2]))
            } else {
                all_uniform(&[c, op(args[1]), op(args[2])])
            }
        }
        InstData::Cast { op: c, arg, .. } => cast(*c, *arg, rty, env),
        InstData::Phi { incoming } => incoming
            .iter()
            .fold(VShape::Undef, |acc, &(_, v)| acc.join(op(v))),
        InstData::PtrAdd { args, .. } => {
            let (p, o) = (op(args[0]), op(args[1]));
            let off_ty = env.ty(args[1]);
            if elem_bits(off_ty) < 64 && !o.is_uniform() {
                // The offset is sign-extended first: a strided narrow offset may wrap.
                all_uniform(&[p, o]).join(VShape::varying(p.lane_align().min(o.lane_align())))
            } else {
                add_shapes(p, o, 1, 64)
            }
        }
        // Widening gives lane `k` the `k`-th slice of one allocation.
        InstData::Alloca { size, align } => VShape::strided(
            i64::from(lanes_ir::alloca_slice(*size, *align)),
            (*align).max(1),
        ),
        InstData::GlobalAddr { global } => {
            VShape::uniform(module.globals.get(*global).map_or(1, |g| g.align.max(1)))
        }
        InstData::FuncAddr { .. } => VShape::UNIFORM,
        // Each instance makes its own volatile or atomic read, which may see another value.
        InstData::Load { access, .. } if !access.is_plain() => VShape::VARYING,
        InstData::Load { ptr, .. } => all_uniform(&[op(*ptr)]),
        InstData::MaskedLoad {
            ptr,
            mask,
            passthru,
            ..
        }
        | InstData::Gather {
            ptrs: ptr,
            mask,
            passthru,
            ..
        } => all_uniform(&[op(*ptr), op(*mask), op(*passthru)]),
        InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::CallIndirect { .. } => {
            VShape::VARYING
        }
        InstData::Call { func, args } => {
            let shapes: Vec<VShape> = args.iter().map(|&v| op(v)).collect();
            if shapes.iter().any(|s| s.is_undef()) {
                VShape::Undef
            } else if module.function(*func).is_some() {
                env.call_summary(*func, &shapes)
            } else {
                all_uniform(&shapes)
            }
        }
        InstData::Intrinsic { id, args } => intrinsic(*id, args, env),
        InstData::WorkItem { query, dim } => match (query, dim) {
            (WorkItemQuery::GlobalId | WorkItemQuery::LocalId, 0) => VShape::strided(1, 1),
            _ => VShape::UNIFORM,
        },
        InstData::Shuffle { args, .. } => op(args[0]).join(op(args[1])),
        InstData::Store { .. }
        | InstData::MaskedStore { .. }
        | InstData::Scatter { .. }
        | InstData::Fence { .. }
        | InstData::Jump { .. }
        | InstData::Brif { .. }
        | InstData::Switch { .. }
        | InstData::Return { .. }
        | InstData::Unreachable => return None,
    })
}

/// The [`TransferEnv`] of the fixpoint ([`super::ShapeAnalysis`]).
pub(super) struct Env<'a, 'm> {
    pub analysis: &'a ShapeAnalysis<'m>,
    pub func: &'a Function,
    pub info: &'a ShapeInfo,
    /// The instruction being evaluated.
    pub inst: Inst,
}

impl TransferEnv for Env<'_, '_> {
    fn operand(&self, v: Value) -> VShape {
        self.info.use_shape(self.func, v, self.inst)
    }
    fn constant(&self, v: Value) -> Option<i64> {
        self.analysis.constant_in(self.func, v)
    }
    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }
    fn call_summary(&self, callee: FuncId, args: &[VShape]) -> VShape {
        self.analysis.summary(callee, args)
    }
    fn extension_stride(&self) -> Option<i64> {
        self.info
            .extension_form(self.func, self.inst)
            .map(|f| f.stride)
    }
}
