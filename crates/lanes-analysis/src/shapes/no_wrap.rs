//! Strides through `sext` and `zext`: an `int` index that cannot wrap stays contiguous
//! when it is widened to a 64-bit offset (PLDI'18 §2.3, shapes of casts).
//!
//! The lattice is modular ([`super::lattice`]): `strided(s)` on an `i32` says lane `i`
//! holds `v₀ + i·s` *modulo 2³²*. Sign extension of such a value is not strided in general
//! (`0x7fffffff, 0x80000000` extend to `2³¹-1, -2³¹`). It is when the lanes' values are
//! `v₀ + i·s` as integers, without wrapping; this module proves that from the way the
//! value is computed. The rules (LLVM LangRef semantics of the flags, [`lanes_ir::flags`]):
//!
//! - `sext x` reads `x` as signed, `zext x` as unsigned, `zext nneg x` as either (the
//!   operand is not negative);
//! - read as signed, `add nsw`, `sub nsw`, `mul nsw` by a constant and `shl nsw` by a
//!   constant compute the integer sum, difference and product of their operands read as
//!   signed (an overflow would be poison); read as unsigned, the same with `nuw`;
//!   `or disjoint` is an addition either way; `sext`/`zext` inside are read through;
//! - the *leaves* of such a computation are values whose lanes are exactly `v₀ + i·s`:
//!   - values uniform where they are used (every lane the same integer);
//!   - `lane_id` (`0, 1, …, W-1`);
//!   - parameters the caller declared contiguous or strided (`--shapes`, `.lir` attributes),
//!     read as signed. This is the contract of such a declaration: lane 0 and every active
//!     lane hold `v₀ + i·s` computed without signed overflow — the values `W` consecutive
//!     iterations of a C loop over an `int` index take, which is what the `F_spmd`
//!     launcher passes for `i < n`. Arguments a call passes to a summarized callee are not
//!     declared, and their strides are only modular.
//!
//! So the extension equals `Σ cⱼ·ext(leafⱼ)` in every lane where it is not poison, which
//! makes it strided with the integer stride `Σ cⱼ·sⱼ` ([`ExtForm`]). Walks stop after
//! [`WALK_STEPS`] nodes, keeping the analysis linear.
//!
//! A lane whose flag fails (an `add nsw` that overflows) is poison in LLVM, and a program
//! must not use it; for lanes IR, whose interpreter wraps, the extension is then not the
//! sum above. The widened code therefore does not take lane 0's extension as the base of
//! the vector (lane 0 may be inactive and overflow where active lanes do not): it builds
//! `Σ cⱼ·ext(leafⱼ of lane 0) + i·stride` from the leaves (`lanes_wfv::widen`), which is
//! every non-poison lane's value.

use lanes_ir::{CastOp, Function, Inst, InstData, Intrinsic, Value, ValueDef};

use super::lattice::{normalize_stride, VShape};

/// Nodes one walk may visit before it gives up (the extension is then varying).
pub const WALK_STEPS: u32 = 64;

/// How a leaf's bits are read as an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    /// As a signed integer (sign-extended).
    Signed,
    /// As an unsigned integer (zero-extended).
    Unsigned,
}

/// One leaf of an extension's sum: `coeff · ext(value)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub value: Value,
    pub ext: Ext,
    pub coeff: i64,
}

/// An extension as an exact sum of leaves: in every lane where it is not poison, the
/// extension's value is `Σ coeff·ext(value)`, and `stride` is the difference between
/// neighbouring lanes (as an integer, not modulo the narrow width).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtForm {
    pub terms: Vec<Term>,
    pub stride: i64,
}

/// The exact form of `sext`/`zext` instruction `cast` of `func`, if its operand's stride
/// provably does not wrap. `shape_at(v, user)` is the shape of `v` as instruction `user`
/// uses it; `declared_params`: the parameters' shapes are declarations (not call-site
/// shapes of a summarized callee).
pub fn extension_form(
    func: &Function,
    cast: Inst,
    shape_at: &dyn Fn(Value, Inst) -> VShape,
    declared_params: bool,
) -> Option<ExtForm> {
    let InstData::Cast { op, arg, flags } = func.dfg.inst(cast) else {
        return None;
    };
    let ext = match op {
        CastOp::Sext => Ext::Signed,
        CastOp::Zext if flags.nneg() => Ext::Signed,
        CastOp::Zext => Ext::Unsigned,
        _ => return None,
    };
    let arg_stride = shape_at(*arg, cast).stride()?;
    let mut walk = Walk {
        func,
        shape_at,
        declared_params,
        terms: Vec::new(),
        stride: 0,
        steps: 0,
    };
    walk.node(*arg, cast, ext, 1)?;
    let stride = i64::try_from(walk.stride).ok()?;
    // The integer stride is the modular one of the operand's lattice shape, read exactly.
    let bits = func.dfg.value_type(*arg).elem().bits();
    if normalize_stride(stride, bits) != arg_stride {
        return None;
    }
    Some(ExtForm {
        terms: walk.terms,
        stride,
    })
}

struct Walk<'a> {
    func: &'a Function,
    shape_at: &'a dyn Fn(Value, Inst) -> VShape,
    declared_params: bool,
    terms: Vec<Term>,
    stride: i128,
    steps: u32,
}

impl Walk<'_> {
    /// Adds `coeff · (v read as ext)` to the sum; `user` is the instruction using `v`.
    fn node(&mut self, v: Value, user: Inst, ext: Ext, coeff: i128) -> Option<()> {
        self.steps += 1;
        if self.steps > WALK_STEPS {
            return None;
        }
        let shape = (self.shape_at)(v, user);
        if shape.is_uniform() {
            return self.leaf(v, ext, coeff, 0);
        }
        let VShape::Strided { stride, .. } = shape else {
            return None;
        };
        let def = match self.func.dfg.value_def(v) {
            ValueDef::Param(_) if self.declared_params && ext == Ext::Signed => {
                return self.leaf(v, ext, coeff, stride);
            }
            ValueDef::Param(_) => return None,
            ValueDef::Result(i) => i,
        };
        let bits = self.func.dfg.value_type(v).elem().bits();
        match self.func.dfg.inst(def) {
            InstData::Intrinsic {
                id: Intrinsic::LaneId,
                ..
            } => self.leaf(v, ext, coeff, stride),
            InstData::Binary { op, args, flags } => {
                use lanes_ir::BinaryOp as B;
                let exact = match ext {
                    Ext::Signed => flags.nsw(),
                    Ext::Unsigned => flags.nuw(),
                };
                let [a, b] = *args;
                match op {
                    B::Add if exact => {
                        self.node(a, def, ext, coeff)?;
                        self.node(b, def, ext, coeff)
                    }
                    B::Or if flags.disjoint() => {
                        self.node(a, def, ext, coeff)?;
                        self.node(b, def, ext, coeff)
                    }
                    B::Sub if exact => {
                        self.node(a, def, ext, coeff)?;
                        self.node(b, def, ext, -coeff)
                    }
                    B::Mul if exact => {
                        let (x, k) =
                            match (self.constant(b, bits, ext), self.constant(a, bits, ext)) {
                                (Some(k), _) => (a, k),
                                (None, Some(k)) => (b, k),
                                (None, None) => return None,
                            };
                        self.node(x, def, ext, coeff.checked_mul(k)?)
                    }
                    B::Shl if exact => {
                        let k = self.constant(b, bits, Ext::Unsigned)?;
                        if k >= i128::from(bits) {
                            return None;
                        }
                        self.node(a, def, ext, coeff.checked_mul(1i128 << k)?)
                    }
                    _ => None,
                }
            }
            InstData::Cast { op, arg, flags } => match op {
                CastOp::Sext if ext == Ext::Signed => self.node(*arg, def, Ext::Signed, coeff),
                CastOp::Zext if flags.nneg() => self.node(*arg, def, Ext::Signed, coeff),
                // Read as signed or unsigned, a zero-extended value is its operand unsigned.
                CastOp::Zext => self.node(*arg, def, Ext::Unsigned, coeff),
                // A truncation that drops only sign (zero) bits is its operand read signed
                // (unsigned).
                CastOp::Trunc if ext == Ext::Signed && flags.nsw() => {
                    self.node(*arg, def, Ext::Signed, coeff)
                }
                CastOp::Trunc if ext == Ext::Unsigned && flags.nuw() => {
                    self.node(*arg, def, Ext::Unsigned, coeff)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn leaf(&mut self, value: Value, ext: Ext, coeff: i128, stride: i64) -> Option<()> {
        self.stride = self
            .stride
            .checked_add(coeff.checked_mul(i128::from(stride))?)?;
        let coeff = i64::try_from(coeff).ok()?;
        self.terms.push(Term { value, ext, coeff });
        Some(())
    }

    /// The integer an `iconst` of width `bits` stands for, read as `ext`.
    fn constant(&self, v: Value, bits: u32, ext: Ext) -> Option<i128> {
        let imm = super::constant_of(self.func, v)?;
        let signed = i128::from(normalize_stride(imm, bits));
        Some(match ext {
            Ext::Signed => signed,
            Ext::Unsigned if bits >= 64 => i128::from(imm as u64),
            Ext::Unsigned => signed & ((1i128 << bits) - 1),
        })
    }
}
