//! Addresses as `base + Σ cᵢ·xᵢ + k`, for the two questions SLP packing asks of memory
//! (SuperVectorization, PLDI'22 §3.2 and §4.2): are these accesses adjacent (a vector
//! load or store), and may these two overlap (a dependence that orders them)?
//!
//! Within one run of an item list every SSA value has one value, so two addresses with
//! the same base and the same symbolic part differ by exactly their constants: adjacency
//! and overlap are then interval questions. Pointer arithmetic is modular, so `ptradd`,
//! `add`, `sub`, `mul` and `shl` by constants and `or disjoint` decompose exactly; a
//! `sext`/`zext` is looked through only where its operand's arithmetic cannot wrap
//! (`nsw`/`nuw`), which is what clang's `inbounds` index arithmetic carries. Anything
//! else is an opaque term. Two different bases are known apart when both are distinct
//! stack allocations, or one is a stack allocation and the other a parameter or
//! global, or both are `noalias` (C `restrict`) parameters.

use std::collections::BTreeMap;

use lanes_ir::{BinaryOp, CastOp, Function, InstData, Value};

/// A symbolic part of an offset: a 64-bit value, or the sign or zero extension to 64
/// bits of a narrower one (so that `sext(i + 1)` and `sext(i)` share `Sext(i)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    Value(Value),
    Sext(Value),
    Zext(Value),
}

/// `base + Σ terms + offset`, in bytes; terms sorted, coefficients non-zero.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    pub base: Value,
    pub terms: Vec<(Term, i64)>,
    pub offset: i64,
}

impl Address {
    /// The address of pointer `ptr` in `func`.
    pub fn of(func: &Function, ptr: Value) -> Address {
        let mut base = ptr;
        let mut acc = Linear::default();
        // Follow the chain of `ptradd`s down to the base.
        for _ in 0..64 {
            let Some(InstData::PtrAdd { args, .. }) =
                func.dfg.def_inst(base).map(|i| func.dfg.inst(i))
            else {
                break;
            };
            let [p, off] = *args;
            acc.add(func, Term::Value(off), 1, 0);
            base = p;
        }
        Address {
            base,
            terms: acc.terms.into_iter().filter(|&(_, c)| c != 0).collect(),
            offset: acc.offset,
        }
    }

    /// Do `self` and `other` differ only in their constant offsets?
    pub fn same_symbolic(&self, other: &Address) -> bool {
        self.base == other.base && self.terms == other.terms
    }
}

#[derive(Default)]
struct Linear {
    terms: BTreeMap<Term, i64>,
    offset: i64,
    /// Values looked at so far: a budget against expressions that share operands.
    steps: u32,
}

/// How deep a chain of additions is followed (an unrolled loop's counter is one addition
/// per copy) and how many values one address may look at in all.
const MAX_DEPTH: u32 = 256;
const MAX_STEPS: u32 = 4096;

impl Linear {
    fn opaque(&mut self, t: Term, scale: i64) {
        let c = self.terms.entry(t).or_insert(0);
        *c = c.wrapping_add(scale);
    }

    /// Adds `scale · t`, decomposing what can be decomposed exactly.
    fn add(&mut self, func: &Function, t: Term, scale: i64, depth: u32) {
        let konst = |x: Value| match func.dfg.def_inst(x).map(|i| func.dfg.inst(i)) {
            Some(InstData::Iconst { imm }) => Some(*imm),
            _ => None,
        };
        let v = match t {
            Term::Value(v) => v,
            Term::Sext(x) | Term::Zext(x) => return self.add_extended(func, t, x, scale, depth),
        };
        let def = func.dfg.def_inst(v).map(|i| func.dfg.inst(i));
        self.steps += 1;
        if depth > MAX_DEPTH
            || self.steps > MAX_STEPS
            || func.dfg.value_type(v).elem().bits() != 64
            || def.is_none()
        {
            return self.opaque(t, scale);
        }
        let next = depth + 1;
        match *def.expect("checked") {
            InstData::Iconst { imm } => {
                self.offset = self.offset.wrapping_add(scale.wrapping_mul(imm))
            }
            InstData::Binary { op, args, flags } => match (op, konst(args[0]), konst(args[1])) {
                (BinaryOp::Add, _, _) => {
                    self.add(func, Term::Value(args[0]), scale, next);
                    self.add(func, Term::Value(args[1]), scale, next);
                }
                (BinaryOp::Or, _, _) if flags.disjoint() => {
                    self.add(func, Term::Value(args[0]), scale, next);
                    self.add(func, Term::Value(args[1]), scale, next);
                }
                (BinaryOp::Sub, _, _) => {
                    self.add(func, Term::Value(args[0]), scale, next);
                    self.add(func, Term::Value(args[1]), scale.wrapping_neg(), next);
                }
                (BinaryOp::Mul, _, Some(c)) => {
                    self.add(func, Term::Value(args[0]), scale.wrapping_mul(c), next)
                }
                (BinaryOp::Mul, Some(c), _) => {
                    self.add(func, Term::Value(args[1]), scale.wrapping_mul(c), next)
                }
                (BinaryOp::Shl, _, Some(c)) if (0..63).contains(&c) => {
                    self.add(func, Term::Value(args[0]), scale.wrapping_mul(1 << c), next)
                }
                _ => self.opaque(t, scale),
            },
            InstData::Cast {
                op: CastOp::Sext,
                arg,
                ..
            } => self.add(func, Term::Sext(arg), scale, next),
            InstData::Cast {
                op: CastOp::Zext,
                arg,
                ..
            } => self.add(func, Term::Zext(arg), scale, next),
            _ => self.opaque(t, scale),
        }
    }

    /// Adds `scale · ext(x)`: `ext(a + c)` is `ext(a) + c` when the narrow addition
    /// cannot wrap (`nsw` for a sign extension, `nuw` for a zero extension).
    fn add_extended(&mut self, func: &Function, t: Term, x: Value, scale: i64, depth: u32) {
        let signed = matches!(t, Term::Sext(_));
        let def = func.dfg.def_inst(x).map(|i| func.dfg.inst(i));
        let konst = |x: Value| match func.dfg.def_inst(x).map(|i| func.dfg.inst(i)) {
            Some(InstData::Iconst { imm }) => Some(*imm),
            _ => None,
        };
        let bits = func.dfg.value_type(x).elem().bits();
        match def {
            Some(&InstData::Binary {
                op: BinaryOp::Add,
                args,
                flags,
            }) if depth <= MAX_DEPTH && (if signed { flags.nsw() } else { flags.nuw() }) => {
                if let Some(c) = konst(args[1]) {
                    let c = if signed || bits >= 64 {
                        c
                    } else {
                        c & ((1i64 << bits) - 1)
                    };
                    self.offset = self.offset.wrapping_add(scale.wrapping_mul(c));
                    let inner = if signed {
                        Term::Sext(args[0])
                    } else {
                        Term::Zext(args[0])
                    };
                    return self.add(func, inner, scale, depth + 1);
                }
                self.opaque(t, scale)
            }
            _ => self.opaque(t, scale),
        }
    }
}
