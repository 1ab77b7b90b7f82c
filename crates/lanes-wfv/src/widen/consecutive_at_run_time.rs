//! Gathers and scatters whose addresses are usually consecutive: tested at run time, and a
//! vector access when they are.
//!
//! The shape analysis (PLDI'18 §2.3) proves an address contiguous only when it is for every
//! group of lanes. Many addresses are computed from the contiguous instance index by
//! arithmetic that keeps them consecutive almost everywhere but not provably: a clamp to
//! the grid (`in[clamp(x - 1, 0, nx - 1)]`, consecutive except at the border), a butterfly
//! index (`(p / h) * 2h + p % h`, consecutive while a vector does not straddle a multiple
//! of `h`), a bitonic pair index (`((p >> s) << (s + 1)) | (p & (2^s - 1))`, consecutive
//! once `2^s` reaches the width). Those accesses would be gathers and scatters in every
//! group. Here such an access first compares its lanes' addresses with lane 0's plus
//! `lane · size`; if every active lane's address matches, it is one vector access at lane
//! 0's address (masked where the access is), else the gather or scatter. Only the active
//! lanes' addresses are compared, and the vector access touches exactly those addresses,
//! so inactive lanes still touch no memory.
//!
//! Which accesses: those whose address has no known stride and is computed, through
//! integer and pointer arithmetic, selects and φs, from an integer the shape analysis
//! knows to be contiguous or strided, where every such path makes the address step by the
//! access size: a product with a constant scales the step, a subtraction reverses it, a
//! product with a value not constant (`gid * per_item`) is not followed, and a mask,
//! shift or division by a constant (`gx & -8`) holds runs of lanes, which no vector
//! access covers (a load whose every path does is tested for runs instead: module
//! `runs_at_run_time`). Not those computed from loaded data (`x[idx[i]]`),
//! from floats (an index along a ray) or into private arrays (whose per-lane stack
//! pointers diverge): their addresses are rarely consecutive and the test would only
//! cost. Testing the stack accesses of the kd-tree point correlation and multi-radius
//! kernels made them 1.3x slower at 8 lanes (13.4 against 10.0 ms and 20.5 against
//! 15.5 ms, medians of 18 interleaved runs). The test is a compare, a mask reduction and
//! a branch; the branch goes the same way for long runs of groups.

use std::collections::HashSet;

use lanes_ir::{BinaryOp, InstData, IntCC, IntFlags, Intrinsic, Type, Value};

use super::{vec_of, Widener};

/// How far back [`Widener::run_time_test`] looks through the address computation.
const MAX_DEPTH: u32 = 10;

/// The runs that `x op c`, for the constant `c`, holds one value over, as the power of two
/// `g` such that the result is the same for every `x` in an aligned block of `g`
/// consecutive integers: `x & c` with `c`'s lowest set bit above bit 0 (`x & -8`: 8),
/// `x >> k` (`2^k`), `x / c` (the power of two dividing `c`). `None` for other operations.
fn run_granule(op: BinaryOp, c: i64) -> Option<i64> {
    let g = match op {
        BinaryOp::And if c & 1 == 0 && c != 0 => 1i64 << c.trailing_zeros(),
        BinaryOp::LShr | BinaryOp::AShr if (1..63).contains(&c) => 1i64 << c,
        BinaryOp::UDiv | BinaryOp::SDiv if c.unsigned_abs() > 1 => {
            1i64 << c.unsigned_abs().trailing_zeros().min(62)
        }
        _ => return None,
    };
    Some(g)
}

/// A run-holding operation met on the way from an address to the instance index: its
/// granule ([`run_granule`]) and the scale of the path below it.
#[derive(Clone, Copy)]
struct Run {
    granule: i64,
    below: i64,
}

/// What a gather or scatter tests at run time before it runs ([`Widener::run_time_test`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunTimeTest {
    /// Whether the addresses are consecutive: then one vector access.
    Consecutive,
    /// Whether the addresses are the same over aligned runs of this many lanes: then one
    /// load per run (loads only).
    Runs(u32),
}

/// The ways an address leads to strided integers: those that make it step by the access
/// size from lane to lane, those that pass a run-holding operation (`gx & -8`) and so hold
/// it over runs of lanes, and the others. An address with another kind of path is not
/// tested: `gx - (gx & 7)` (a block's first column) reaches `gx` once stepping and once
/// backwards, and is never consecutive.
#[derive(Default)]
struct Paths {
    stepping: u32,
    other: u32,
    /// The shortest run of lanes (a power of two) over which a run path holds its value.
    shortest_run: Option<i64>,
}

/// The state of one walk over an address computation.
struct PathWalk {
    /// The access size in bytes: the step of a consecutive address.
    size: i64,
    seen: HashSet<Value>,
    paths: Paths,
}

impl PathWalk {
    /// Counts a path reaching an integer of lane stride `stride`, scaled `scale` times in
    /// the address, below the run-holding operation `run` if there is one.
    fn count(&mut self, stride: i64, scale: i64, run: Option<Run>) {
        let Some(run) = run else {
            if stride.checked_mul(scale) == Some(self.size) {
                self.paths.stepping += 1;
            } else {
                self.paths.other += 1;
            }
            return;
        };
        // The operand of the run-holding operation steps by `step` per lane: it holds
        // one value over `granule / step` lanes when `step` is a power of two dividing
        // the granule.
        let step = stride.saturating_mul(run.below).unsigned_abs();
        if step.is_power_of_two() && step <= run.granule.unsigned_abs() {
            let lanes = run.granule / step as i64;
            let shortest = self.paths.shortest_run.map_or(lanes, |r| r.min(lanes));
            self.paths.shortest_run = Some(shortest);
        } else {
            self.paths.other += 1;
        }
    }
}

impl Widener<'_> {
    /// The run-time test worth making for a gather or scatter at old value `ptr`, an
    /// address of no known stride accessed `size` bytes at a time, from one walk over its
    /// computation:
    /// - [`RunTimeTest::Consecutive`] when it is computed from a contiguous or strided
    ///   value by arithmetic that can make it step by `size` from lane to lane, and by no
    ///   other such path (module docs);
    /// - [`RunTimeTest::Runs`] when every way it is computed from the instance index
    ///   passes an operation that holds its value over runs (`in[(gx & -8) + x]`,
    ///   `tab[gx >> 2]`; module `runs_at_run_time`), with the runs' length in lanes, a
    ///   power of two from 2 to the width, and at most four runs per vector.
    pub(super) fn run_time_test(&self, ptr: Value, size: u32) -> Option<RunTimeTest> {
        let paths = self.address_paths(ptr, size)?;
        if paths.other > 0 {
            return None;
        }
        match (paths.stepping, paths.shortest_run) {
            (1.., None) => Some(RunTimeTest::Consecutive),
            (0, Some(run)) => {
                let run = run.min(i64::from(self.width));
                // Worth a test only when it leaves a few loads.
                let runs = (i64::from(self.width) + run - 1) / run;
                (run >= 2 && runs <= 4).then_some(RunTimeTest::Runs(run as u32))
            }
            _ => None,
        }
    }

    /// The paths from old address `ptr`, accessed `size` bytes at a time, to strided
    /// integers; `None` when the address has a known stride.
    fn address_paths(&self, ptr: Value, size: u32) -> Option<Paths> {
        // An address with a known stride other than the access size is never consecutive.
        if self.info.shape(ptr).stride().is_some() {
            return None;
        }
        let mut walk = PathWalk {
            size: i64::from(size),
            seen: HashSet::new(),
            paths: Paths::default(),
        };
        self.linear_paths(ptr, 1, None, 0, &mut walk);
        Some(walk.paths)
    }

    /// Counts into `walk` the ways `v`, counted `scale` times in the address, leads to a
    /// strided integer: by whether that stride so scaled is the access size, or, below a
    /// run-holding operation `run`, by the runs of lanes it holds over.
    fn linear_paths(
        &self,
        v: Value,
        scale: i64,
        run: Option<Run>,
        depth: u32,
        walk: &mut PathWalk,
    ) {
        // Integer and pointer arithmetic only: an index converted from a float (a position
        // along a ray, a sample coordinate) is data, rarely consecutive between lanes.
        let ty = self.old.dfg.value_type(v).elem();
        if depth > MAX_DEPTH || !(ty.is_int() || ty.is_ptr()) || !walk.seen.insert(v) {
            return;
        }
        // A strided integer: the instance index, or arithmetic on it; it makes the address
        // step by its stride times its scale. A strided pointer is a lane's slice of
        // private memory, whose accesses are consecutive only when every lane's index is
        // the same (a kd-tree's stack pointer, which diverges): not counted.
        let shape = self.info.shape(v);
        if !shape.is_uniform() {
            if let Some(stride) = shape.stride() {
                if ty.is_int() {
                    walk.count(stride, scale, run);
                }
                return;
            }
        }
        let Some(inst) = self.old.dfg.def_inst(v) else {
            return;
        };
        let constant = |x: Value| lanes_analysis::shapes::constant_of(self.old, x);
        // Scales the path below this value by `k`, above a run-holding operation or below.
        let scaled = |x: Value, k: i64| {
            let below = run.map(|r| Run {
                granule: r.granule,
                below: r.below.saturating_mul(k),
            });
            (x, scale.saturating_mul(k), below)
        };
        // Operations that hold their value over runs of lanes: a mask clearing the low bits
        // (`gx & -8`, a block's first column), a shift right or a division by a constant.
        // They break the steps; below them the path counts the runs (module
        // `runs_at_run_time`). (By a uniform value they are followed as they are: a
        // butterfly's `p / h`, whose runs are as long as `h`, is consecutive for `h` at
        // least the width.)
        // But `(x << c) >> d` with `d ≤ c` is how clang writes `sext(trunc x) << (c − d)`:
        // an `int` index (`in[(int)i]`, `in[k + 1]`) sign-extended and scaled by the element
        // size at once. It steps as `x` times `2^(c − d)`.
        if let Some((x, k)) = self.widened_low_bits(inst) {
            let (x, s, r) = scaled(x, k);
            return self.linear_paths(x, s, r, depth + 1, walk);
        }
        if let InstData::Binary { op, args, .. } = self.old.dfg.inst(inst) {
            if let Some(granule) = constant(args[1]).and_then(|c| run_granule(*op, c)) {
                let run = Run { granule, below: 1 };
                return self.linear_paths(args[0], 0, Some(run), depth + 1, walk);
            }
        }
        // The values an address is made of, with their scales: the operands of additions
        // (a subtrahend negated: `n - 1 - i` runs backwards), a product with a constant
        // scaled by it, the operands of other bit operations, divisions and extensions as
        // they are, the two sides of a select (not its condition, which only picks one), a φ's
        // incoming values. A product with a value not constant (`gid * per_item`) steps by
        // an unknown amount: not followed.
        let parts: Vec<(Value, i64, Option<Run>)> = match self.old.dfg.inst(inst) {
            InstData::Binary { op, args, .. } => match op {
                BinaryOp::Sub => vec![scaled(args[0], 1), scaled(args[1], -1)],
                // `x ^ -1` is `-1 - x`: the steps reverse.
                BinaryOp::Xor if constant(args[1]) == Some(-1) => vec![scaled(args[0], -1)],
                BinaryOp::Mul => match (constant(args[0]), constant(args[1])) {
                    (Some(c), _) => vec![scaled(args[1], c)],
                    (_, Some(c)) => vec![scaled(args[0], c)],
                    _ => return,
                },
                BinaryOp::Shl => match constant(args[1]) {
                    Some(k) if (0..32).contains(&k) => vec![scaled(args[0], 1 << k)],
                    // `(p >> s) << (s + 1)`: the lanes between two shifted values are
                    // the other operand's (a bitonic pair index); followed as it is.
                    _ => vec![scaled(args[0], 1)],
                },
                _ => vec![scaled(args[0], 1), scaled(args[1], 1)],
            },
            InstData::PtrAdd { args, .. } => vec![scaled(args[0], 1), scaled(args[1], 1)],
            InstData::Unary { arg, .. } | InstData::Cast { arg, .. } => vec![scaled(*arg, 1)],
            InstData::Select { args } => vec![scaled(args[1], 1), scaled(args[2], 1)],
            InstData::Phi { incoming } => incoming.iter().map(|&(_, v)| scaled(v, 1)).collect(),
            _ => return,
        };
        for (a, k, r) in parts {
            self.linear_paths(a, k, r, depth + 1, walk);
        }
    }

    /// For `inst` = `(x << c) >> d` (arithmetic or logical) with constants `0 ≤ d ≤ c` and
    /// `c − d < 32`: `x` and the factor `2^(c − d)` its low bits, extended, are scaled by.
    fn widened_low_bits(&self, inst: lanes_ir::Inst) -> Option<(Value, i64)> {
        let constant = |x: Value| lanes_analysis::shapes::constant_of(self.old, x);
        let InstData::Binary {
            op: BinaryOp::AShr | BinaryOp::LShr,
            args: [shifted, d],
            ..
        } = *self.old.dfg.inst(inst)
        else {
            return None;
        };
        let InstData::Binary {
            op: BinaryOp::Shl,
            args: [x, c],
            ..
        } = *self.old.dfg.inst(self.old.dfg.def_inst(shifted)?)
        else {
            return None;
        };
        let (c, d) = (constant(c)?, constant(d)?);
        (0 <= d && d <= c && c - d < 32).then(|| (x, 1i64 << (c - d)))
    }

    /// Whether every active lane's address in the vector of pointers `ptrs` is lane 0's
    /// plus `lane · size` (an `i1`), lane 0's address, and the mask a gather or scatter
    /// of the same access takes (`mask`, or all lanes).
    fn consecutive(
        &mut self,
        ptrs: Value,
        size: u32,
        mask: Option<Value>,
    ) -> (Value, Value, Value) {
        let ptr_ty = self.new.dfg.value_type(ptrs).elem();
        let zero = self.emit_v(InstData::Iconst { imm: 0 }, Type::I32);
        let first = self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Extract,
                args: vec![ptrs, zero],
            },
            Type::Scalar(ptr_ty),
        );
        let firsts = self.broadcast(first);
        let lanes = self.lane_id(Type::I64);
        let size = self.emit_v(
            InstData::Iconst {
                imm: i64::from(size),
            },
            Type::I64,
        );
        let sizes = self.broadcast(size);
        let offsets = self.binary(BinaryOp::Mul, lanes, sizes, vec_of(Type::I64, self.width));
        let expected = self.emit_v(
            InstData::PtrAdd {
                args: [firsts, offsets],
                flags: IntFlags::NONE,
            },
            vec_of(Type::Scalar(ptr_ty), self.width),
        );
        let mask_ty = Type::mask(self.width);
        let mut same = self.emit_v(
            InstData::Icmp {
                cond: IntCC::Eq,
                args: [ptrs, expected],
            },
            mask_ty,
        );
        if let Some(m) = mask {
            // Inactive lanes count as matching.
            let inactive = self.emit_v(
                InstData::Unary {
                    op: lanes_ir::UnaryOp::Not,
                    arg: m,
                },
                mask_ty,
            );
            same = self.binary(BinaryOp::Or, same, inactive, mask_ty);
        }
        let all = self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::All,
                args: vec![same],
            },
            Type::I1,
        );
        let gather_mask = match mask {
            Some(m) => m,
            None => self.all_true(),
        };
        (all, first, gather_mask)
    }

    /// A gather of `ty` from old address `ptr` that first tests whether the addresses are
    /// consecutive (module docs).
    pub(super) fn checked_gather(
        &mut self,
        ptr: Value,
        align: u32,
        ty: Type,
        mask: Option<Value>,
    ) -> Value {
        let vt = vec_of(ty, self.width);
        let ptrs = self.vector(ptr);
        let (all, first, m) = self.consecutive(ptrs, ty.bytes(), mask);
        let z = self.zero_vec(ty);
        let vector = match mask {
            None => InstData::Load {
                ptr: first,
                align,
                access: lanes_ir::MemAccess::PLAIN,
            },
            Some(m) => InstData::MaskedLoad {
                ptr: first,
                mask: m,
                passthru: z,
                align,
            },
        };
        let gather = InstData::Gather {
            ptrs,
            mask: m,
            passthru: z,
            align,
        };
        self.either(all, vector, gather, vt)
    }

    /// A scatter of the new vector `v` to old address `ptr` that first tests whether the
    /// addresses are consecutive (module docs).
    pub(super) fn checked_scatter(
        &mut self,
        v: Value,
        ptr: Value,
        align: u32,
        ty: Type,
        mask: Option<Value>,
    ) {
        let ptrs = self.vector(ptr);
        let (all, first, m) = self.consecutive(ptrs, ty.bytes(), mask);
        let vector = match mask {
            None => InstData::Store {
                value: v,
                ptr: first,
                align,
                access: lanes_ir::MemAccess::PLAIN,
            },
            Some(m) => InstData::MaskedStore {
                value: v,
                ptr: first,
                mask: m,
                align,
            },
        };
        let scatter = InstData::Scatter {
            value: v,
            ptrs,
            mask: m,
            align,
        };
        self.either_effect(all, vector, scatter);
    }
}
