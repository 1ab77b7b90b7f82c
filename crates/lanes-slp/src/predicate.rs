//! Control predicates (SuperVectorization, PLDI'22 §3.1, Fig. 6): `true`, a branch
//! condition `c` or its negation, and conjunctions and disjunctions of predicates.
//!
//! Predicated SSA moves an item together with its predicate, so predicates are compared
//! far more often than built: the pool hash-conses them into [`Pred`] handles after a
//! light normalization (flattened, sorted and deduplicated operands; `true`/`false`
//! absorbed; `c ∧ ¬c` is `false` and `c ∨ ¬c` is `true`), so that two predicates written
//! the same way are the same handle and the lowering's predicate table (§3.5) finds
//! equivalent blocks by handle.

use std::collections::HashMap;
use std::fmt;

use cranelift_entity::{entity_impl, PrimaryMap};
use lanes_ir::Value;

/// A control predicate in a [`PredPool`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pred(u32);
entity_impl!(Pred, "p");

/// What a predicate is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PredData {
    True,
    False,
    /// The `i1` value `cond`, or its negation.
    Lit {
        cond: Value,
        negated: bool,
    },
    /// All of (at least two, sorted, none `true`/`false` or itself a conjunction).
    And(Vec<Pred>),
    /// Any of (at least two, sorted, none `true`/`false` or itself a disjunction).
    Or(Vec<Pred>),
}

/// The hash-consed predicates of one function.
#[derive(Clone, Debug)]
pub struct PredPool {
    data: PrimaryMap<Pred, PredData>,
    index: HashMap<PredData, Pred>,
    /// Negations made, so that a predicate sharing parts is negated part by part once.
    negations: HashMap<Pred, Pred>,
}

impl Default for PredPool {
    fn default() -> Self {
        Self::new()
    }
}

impl PredPool {
    /// A pool holding `true` and `false`.
    pub fn new() -> Self {
        let mut pool = PredPool {
            data: PrimaryMap::new(),
            index: HashMap::new(),
            negations: HashMap::new(),
        };
        pool.intern(PredData::True);
        pool.intern(PredData::False);
        pool
    }

    fn intern(&mut self, d: PredData) -> Pred {
        if let Some(&p) = self.index.get(&d) {
            return p;
        }
        let p = self.data.push(d.clone());
        self.index.insert(d, p);
        p
    }

    /// `true`.
    pub fn always(&self) -> Pred {
        Pred(0)
    }

    /// `false`.
    pub fn never(&self) -> Pred {
        Pred(1)
    }

    /// What `p` is.
    pub fn data(&self, p: Pred) -> &PredData {
        &self.data[p]
    }

    /// Is `p` a handle of this pool?
    pub fn is_valid(&self, p: Pred) -> bool {
        self.data.is_valid(p)
    }

    /// The condition `cond` (an `i1`), negated if `negated`.
    pub fn lit(&mut self, cond: Value, negated: bool) -> Pred {
        self.intern(PredData::Lit { cond, negated })
    }

    /// The conjunction of `ps`.
    pub fn and(&mut self, ps: &[Pred]) -> Pred {
        self.combine(ps, true)
    }

    /// The disjunction of `ps`.
    pub fn or(&mut self, ps: &[Pred]) -> Pred {
        self.combine(ps, false)
    }

    /// `a ∧ b`.
    pub fn and2(&mut self, a: Pred, b: Pred) -> Pred {
        self.and(&[a, b])
    }

    /// The negation of `p`, by De Morgan's laws down to the literals.
    pub fn not(&mut self, p: Pred) -> Pred {
        if let Some(&n) = self.negations.get(&p) {
            return n;
        }
        let n = self.negate(p);
        self.negations.insert(p, n);
        n
    }

    fn negate(&mut self, p: Pred) -> Pred {
        match self.data[p].clone() {
            PredData::True => self.never(),
            PredData::False => self.always(),
            PredData::Lit { cond, negated } => self.lit(cond, !negated),
            PredData::And(ps) => {
                let n: Vec<Pred> = ps.iter().map(|&q| self.not(q)).collect();
                self.or(&n)
            }
            PredData::Or(ps) => {
                let n: Vec<Pred> = ps.iter().map(|&q| self.not(q)).collect();
                self.and(&n)
            }
        }
    }

    /// A conjunction (`is_and`) or disjunction of `ps`, normalized.
    fn combine(&mut self, ps: &[Pred], is_and: bool) -> Pred {
        // The neutral element and the absorbing one.
        let (unit, zero) = if is_and {
            (self.always(), self.never())
        } else {
            (self.never(), self.always())
        };
        let mut flat: Vec<Pred> = Vec::with_capacity(ps.len());
        for &p in ps {
            match &self.data[p] {
                _ if p == unit => {}
                _ if p == zero => return zero,
                PredData::And(qs) if is_and => flat.extend(qs.iter().copied()),
                PredData::Or(qs) if !is_and => flat.extend(qs.iter().copied()),
                _ => flat.push(p),
            }
        }
        flat.sort_unstable();
        flat.dedup();
        // A literal next to its complement.
        for &p in &flat {
            if let PredData::Lit { cond, negated } = self.data[p] {
                let complement = PredData::Lit {
                    cond,
                    negated: !negated,
                };
                if self
                    .index
                    .get(&complement)
                    .is_some_and(|c| flat.contains(c))
                {
                    return zero;
                }
            }
        }
        match flat.len() {
            0 => unit,
            1 => flat[0],
            _ if is_and => self.intern(PredData::And(flat)),
            _ => self.intern(PredData::Or(flat)),
        }
    }

    /// The top-level conjuncts of `p`: its operands if a conjunction, none if `true`,
    /// else `p` itself.
    pub fn conjuncts(&self, p: Pred) -> Vec<Pred> {
        match &self.data[p] {
            PredData::True => Vec::new(),
            PredData::And(ps) => ps.clone(),
            _ => vec![p],
        }
    }

    /// The conditions of `p` if it is a disjunction of conditions taken as they are
    /// (`c1 | c2 | …`, as a co-iterated loop's continue predicate is).
    pub fn disjoined_conds(&self, p: Pred) -> Option<Vec<Value>> {
        let PredData::Or(ps) = &self.data[p] else {
            return None;
        };
        ps.iter()
            .map(|&q| match self.data[q] {
                PredData::Lit {
                    cond,
                    negated: false,
                } => Some(cond),
                _ => None,
            })
            .collect()
    }

    /// Calls `f` on every branch condition `p` reads. Predicates share their parts (they
    /// are hash-consed), so each part is visited once: walking the tree instead would take
    /// time exponential in the depth of nested joins.
    pub fn for_each_cond(&self, p: Pred, f: &mut impl FnMut(Value)) {
        match &self.data[p] {
            PredData::True | PredData::False => return,
            PredData::Lit { cond, .. } => return f(*cond),
            PredData::And(_) | PredData::Or(_) => {}
        }
        let mut seen: std::collections::HashSet<Pred> = std::collections::HashSet::new();
        let mut stack = vec![p];
        while let Some(q) = stack.pop() {
            if !seen.insert(q) {
                continue;
            }
            match &self.data[q] {
                PredData::True | PredData::False => {}
                PredData::Lit { cond, .. } => f(*cond),
                PredData::And(ps) | PredData::Or(ps) => stack.extend(ps.iter().rev()),
            }
        }
    }

    /// The literals of `p` written out as a formula (shared parts counted each time they
    /// occur), saturating at `u64::MAX`; `memo` keeps the sizes of parts already counted.
    pub fn written_size(&self, p: Pred, memo: &mut HashMap<Pred, u64>) -> u64 {
        if let Some(&n) = memo.get(&p) {
            return n;
        }
        let n = match &self.data[p] {
            PredData::True | PredData::False => 0,
            PredData::Lit { .. } => 1,
            PredData::And(ps) | PredData::Or(ps) => ps.clone().iter().fold(0u64, |acc, &q| {
                acc.saturating_add(self.written_size(q, memo))
            }),
        };
        memo.insert(p, n);
        n
    }

    /// `p` in the text syntax: `true`, `false`, `v3`, `!v3`, `(a & b)`, `(a | b)`.
    pub fn display(&self, p: Pred) -> DisplayPred<'_> {
        DisplayPred {
            pool: self,
            pred: p,
        }
    }
}

/// Formats a predicate (see [`PredPool::display`]).
pub struct DisplayPred<'a> {
    pool: &'a PredPool,
    pred: Pred,
}

impl fmt::Display for DisplayPred<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, ps: &[Pred], sep: &str| {
            write!(f, "(")?;
            for (i, &q) in ps.iter().enumerate() {
                if i > 0 {
                    write!(f, " {sep} ")?;
                }
                write!(f, "{}", self.pool.display(q))?;
            }
            write!(f, ")")
        };
        match self.pool.data(self.pred) {
            PredData::True => write!(f, "true"),
            PredData::False => write!(f, "false"),
            PredData::Lit { cond, negated } => {
                write!(f, "{}{cond}", if *negated { "!" } else { "" })
            }
            PredData::And(ps) => list(f, ps, "&"),
            PredData::Or(ps) => list(f, ps, "|"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn normal_forms_make_equal_predicates_one_handle() {
        let mut pool = PredPool::new();
        let (a, b) = (Value::new(1), Value::new(2));
        let (pa, pb, na) = (pool.lit(a, false), pool.lit(b, false), pool.lit(a, true));
        let t = pool.always();
        let ab = pool.and(&[pa, pb]);
        assert_eq!(pool.and(&[pb, t, pa, pa]), ab);
        assert_eq!(pool.and(&[ab, pa]), ab);
        assert_eq!(pool.and(&[pa, na]), pool.never());
        assert_eq!(pool.or(&[pa, na]), t);
        assert_eq!(pool.or(&[pa]), pa);
        let n = pool.not(ab);
        assert_eq!(pool.display(n).to_string(), "(!v1 | !v2)");
        assert_eq!(pool.not(n), ab);
        assert_eq!(pool.display(ab).to_string(), "(v1 & v2)");
        assert_eq!(pool.conjuncts(ab), vec![pa, pb]);
        assert!(pool.conjuncts(t).is_empty());
    }
}
