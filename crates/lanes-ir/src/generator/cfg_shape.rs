//! CFG skeletons: which blocks exist, which loops contain them, and where each branches.
//!
//! Blocks are numbered in layout order `0..n`; block 0 is the entry and block `n-1` a
//! return. A *loop* is an interval `[header, last]` of that line; loops form a laminar
//! family (nested or disjoint), a nested loop lies strictly inside its parent (so headers
//! and last blocks are distinct), and no loop contains the entry or the final block.
//! Edges come in two kinds:
//! - *forward* edges `i -> j` with `j > i`. With reducible control flow, an edge entering
//!   a loop (its target inside, its source outside) goes to the loop's header, so the
//!   header dominates the loop; everything else is free: edges into the middle of later
//!   regions, over blocks, out of any number of enclosing loops (`break outer`), to the
//!   final block, several switch cases to one target, early returns;
//! - *back* edges `latch -> header` of a loop, from a latch inside it: its last block and
//!   possibly others (`continue`, also from inside nested loops). A latch ends in
//!   `brif guard, header, exit` where the guard includes `counter + 1 < bound`.
//!
//! Since every edge that goes backwards in layout order is a guarded back edge, every cycle
//! of the CFG passes one, which is what makes every run terminate (see [`super::emit`]).
//! With that ordering, the loops are exactly the natural loops of the back edges (Aho et
//! al., *Compilers*, §9.6.6) and the CFG is reducible, unless `irreducible` is set: then a
//! forward edge may enter a loop at a block other than its header — a *side entry* — and
//! the loop's cycle has two entries, the definition of irreducibility (PLDI'18 §4.4).
//!
//! Reachability is by construction: when block `i` is laid out and block `i+1` has no
//! predecessor yet, `i` branches to `i+1`; every block thus has a predecessor before it.

use arbitrary::{Result, Unstructured};

use super::{chance, range, GenConfig};

/// One loop: the interval `[header, last]` of the block line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LoopShape {
    pub header: usize,
    pub last: usize,
    pub parent: Option<usize>,
    /// 1 for outermost loops.
    pub depth: usize,
    /// The back edges are taken only while `counter + 1 < bound`.
    pub bound: u32,
}

impl LoopShape {
    pub(super) fn contains(&self, b: usize) -> bool {
        self.header <= b && b <= self.last
    }
}

/// The terminator planned for a block, by block numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Term {
    Ret,
    Jump(usize),
    Brif(usize, usize),
    /// Case targets in order (repetitions allowed) and the default.
    Switch {
        cases: Vec<usize>,
        default: usize,
    },
    /// The back edge of loop `lp` to `header`, guarded; `exit` is taken otherwise.
    Latch {
        lp: usize,
        header: usize,
        exit: usize,
    },
}

impl Term {
    /// Targets in branch order, repetitions kept.
    pub(super) fn targets(&self) -> Vec<usize> {
        match self {
            Term::Ret => vec![],
            Term::Jump(t) => vec![*t],
            Term::Brif(a, b) => vec![*a, *b],
            Term::Switch { cases, default } => cases
                .iter()
                .copied()
                .chain(core::iter::once(*default))
                .collect(),
            Term::Latch { header, exit, .. } => vec![*header, *exit],
        }
    }
}

/// A planned CFG.
#[derive(Clone, Debug)]
pub(super) struct Skeleton {
    pub loops: Vec<LoopShape>,
    /// The innermost loop containing each block.
    pub innermost: Vec<Option<usize>>,
    pub terms: Vec<Term>,
    /// Distinct predecessor blocks of each block, ascending.
    pub preds: Vec<Vec<usize>>,
    /// Distinct successor blocks of each block, ascending.
    pub succs: Vec<Vec<usize>>,
    /// Forward edges entering a loop elsewhere than at its header.
    pub side_entries: Vec<(usize, usize)>,
}

impl Skeleton {
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// The loops containing `b`, innermost first.
    pub(super) fn loops_of(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        core::iter::successors(self.innermost[b], |&l| self.loops[l].parent)
    }

    /// Plans a CFG of `n >= 1` blocks.
    pub(super) fn generate(u: &mut Unstructured, cfg: &GenConfig, n: usize) -> Result<Skeleton> {
        let n = n.max(1);
        let mut sk = Skeleton {
            loops: vec![],
            innermost: vec![None; n],
            terms: Vec::with_capacity(n),
            preds: vec![vec![]; n],
            succs: vec![vec![]; n],
            side_entries: vec![],
        };
        if n >= 3 {
            sk.place_loops(u, cfg, 1, n - 1, None, cfg.max_trip_product)?;
        }
        let latch_of = sk.choose_latches(u)?;
        let mut targeted = vec![false; n];
        targeted[0] = true;
        for i in 0..n {
            let need_next = i + 1 < n && !targeted[i + 1];
            let term = sk.plan_term(u, cfg, i, need_next, latch_of[i])?;
            let mut succs = term.targets();
            succs.sort_unstable();
            succs.dedup();
            for &s in &succs {
                targeted[s] = true;
                sk.preds[s].push(i);
            }
            sk.succs[i] = succs;
            sk.terms.push(term);
        }
        Ok(sk)
    }

    /// Places loops in the blocks `lo..hi`, nested in `parent`, with `budget` the largest
    /// product of trip bounds still allowed.
    fn place_loops(
        &mut self,
        u: &mut Unstructured,
        cfg: &GenConfig,
        lo: usize,
        hi: usize,
        parent: Option<usize>,
        budget: u32,
    ) -> Result<()> {
        let depth = parent.map_or(0, |p| self.loops[p].depth);
        let mut pos = lo;
        while pos < hi {
            if depth >= cfg.max_loop_depth || budget < 2 || !chance(u, 1, 4)? {
                pos += 1;
                continue;
            }
            // Long loops near the top of the nest leave room for nested ones; the cap
            // keeps very large functions from becoming one loop.
            let cap = 16usize << (cfg.max_loop_depth - depth).min(8);
            let len = range(u, 1, (hi - pos).min(cap))?;
            let max_bound = cfg.max_trip_count.max(2).min(budget);
            let bound = u.int_in_range(2..=max_bound)?;
            let id = self.loops.len();
            let last = pos + len - 1;
            self.loops.push(LoopShape {
                header: pos,
                last,
                parent,
                depth: depth + 1,
                bound,
            });
            self.innermost[pos..=last].fill(Some(id));
            if len >= 3 {
                self.place_loops(u, cfg, pos + 1, last, Some(id), budget / bound)?;
            }
            pos = last + 1;
        }
        Ok(())
    }

    /// Assigns every loop its last block as a latch, and some loops a second latch.
    fn choose_latches(&self, u: &mut Unstructured) -> Result<Vec<Option<usize>>> {
        let mut latch_of = vec![None; self.len_hint()];
        for (id, lp) in self.loops.iter().enumerate() {
            latch_of[lp.last] = Some(id);
        }
        for (id, lp) in self.loops.iter().enumerate() {
            if lp.last - lp.header >= 2 && chance(u, 1, 3)? {
                let b = range(u, lp.header + 1, lp.last - 1)?;
                if latch_of[b].is_none() {
                    latch_of[b] = Some(id);
                }
            }
        }
        Ok(latch_of)
    }

    fn len_hint(&self) -> usize {
        self.innermost.len()
    }

    fn plan_term(
        &mut self,
        u: &mut Unstructured,
        cfg: &GenConfig,
        i: usize,
        need_next: bool,
        latch: Option<usize>,
    ) -> Result<Term> {
        let n = self.len_hint();
        if i + 1 == n {
            return Ok(Term::Ret);
        }
        if let Some(lp) = latch {
            let exit = if need_next {
                i + 1
            } else {
                self.forward_target(u, cfg, i)?
            };
            return Ok(Term::Latch {
                lp,
                header: self.loops[lp].header,
                exit,
            });
        }
        let kind = range(u, 0, 99)?;
        if kind < 12 && !need_next {
            return Ok(Term::Ret);
        }
        if kind < 40 {
            let t = if need_next {
                i + 1
            } else {
                self.forward_target(u, cfg, i)?
            };
            return Ok(Term::Jump(t));
        }
        if kind < 85 {
            let mut a = self.forward_target(u, cfg, i)?;
            let mut b = self.forward_target(u, cfg, i)?;
            if need_next && a != i + 1 && b != i + 1 {
                if chance(u, 1, 2)? {
                    a = i + 1;
                } else {
                    b = i + 1;
                }
            }
            if a == b {
                // Distinct targets: `brif` with equal targets is legal but rarely useful.
                b = if a == i + 1 {
                    self.forward_target(u, cfg, i)?
                } else {
                    i + 1
                };
            }
            return Ok(if a == b {
                Term::Jump(a)
            } else {
                Term::Brif(a, b)
            });
        }
        let k = range(u, 2, 5)?;
        let mut cases = Vec::with_capacity(k);
        for _ in 0..k {
            // Repeated targets on purpose: several cases sharing a block.
            let t = if !cases.is_empty() && chance(u, 1, 4)? {
                cases[range(u, 0, cases.len() - 1)?]
            } else {
                self.forward_target(u, cfg, i)?
            };
            cases.push(t);
        }
        let mut default = self.forward_target(u, cfg, i)?;
        if need_next && default != i + 1 && !cases.contains(&(i + 1)) {
            let slot = range(u, 0, k)?;
            match cases.get_mut(slot) {
                Some(c) => *c = i + 1,
                None => default = i + 1,
            }
        }
        Ok(Term::Switch { cases, default })
    }

    /// A forward target of block `i < n-1`: mostly near, sometimes a `break` out of an
    /// enclosing loop, far, or the final block; made legal for reducibility unless a side
    /// entry is wanted.
    fn forward_target(&mut self, u: &mut Unstructured, cfg: &GenConfig, i: usize) -> Result<usize> {
        let n = self.len_hint();
        let last = n - 1;
        let choice = range(u, 0, 99)?;
        if cfg.irreducible && choice < 10 {
            if let Some(j) = self.inside_later_loop(u, i)? {
                if self.legalize(i, j) != j {
                    self.side_entries.push((i, j));
                    return Ok(j);
                }
            }
        }
        let raw = if choice < 40 {
            i + 1
        } else if choice < 68 {
            i + range(u, 2, 4)?
        } else if choice < 82 {
            let enclosing: Vec<usize> = self.loops_of(i).collect();
            if enclosing.is_empty() {
                i + range(u, 2, 6)?
            } else {
                let lp = enclosing[range(u, 0, enclosing.len() - 1)?];
                self.loops[lp].last + 1
            }
        } else if choice < 93 {
            i + range(u, 1, last - i)?
        } else {
            last
        };
        let raw = raw.min(last);
        let legal = self.legalize(i, raw);
        if legal != raw && cfg.irreducible && chance(u, 1, 2)? {
            self.side_entries.push((i, raw));
            return Ok(raw);
        }
        Ok(legal)
    }

    /// A block past the header of one of the next few loops starting after `i`: the target
    /// of a deliberate side entry.
    fn inside_later_loop(&self, u: &mut Unstructured, i: usize) -> Result<Option<usize>> {
        // Loops are created in preorder, so their headers ascend.
        let first = self.loops.partition_point(|l| l.header <= i);
        let candidates = self.loops.len() - first;
        if candidates == 0 {
            return Ok(None);
        }
        let lp = &self.loops[first + range(u, 0, candidates.min(3) - 1)?];
        if lp.last == lp.header {
            return Ok(None);
        }
        Ok(Some(range(u, lp.header + 1, lp.last)?))
    }

    /// Redirects an edge `i -> j` (`j > i`) that would enter loops in their middle to the
    /// header of the outermost loop it enters.
    fn legalize(&self, i: usize, j: usize) -> usize {
        let mut target = j;
        for lp in self.loops_of(j) {
            let header = self.loops[lp].header;
            if header > i {
                target = header;
            } else {
                break;
            }
        }
        target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skeletons(cfg: &GenConfig, count: u64) -> Vec<Skeleton> {
        (0..count)
            .map(|seed| {
                let bytes: Vec<u8> = (0..512u64)
                    .map(|i| (seed.wrapping_mul(0x9e37) ^ (i * 31 + seed)) as u8)
                    .collect();
                let mut u = Unstructured::new(&bytes);
                Skeleton::generate(&mut u, cfg, 5 + (seed as usize % 30)).unwrap()
            })
            .collect()
    }

    #[test]
    fn edges_respect_the_loop_discipline() {
        let cfg = GenConfig::default();
        for sk in skeletons(&cfg, 300) {
            let n = sk.len();
            assert!(matches!(sk.terms[n - 1], Term::Ret));
            assert!(sk.preds[0].is_empty(), "the entry has no predecessors");
            for b in 1..n {
                assert!(
                    sk.preds[b].iter().any(|&p| p < b),
                    "block {b} has no earlier pred"
                );
            }
            for (i, term) in sk.terms.iter().enumerate() {
                for t in term.targets() {
                    if t <= i {
                        let Term::Latch { lp, header, .. } = *term else {
                            panic!("backward edge {i}->{t} is not a latch");
                        };
                        assert_eq!(t, header);
                        assert!(sk.loops[lp].contains(i));
                    } else {
                        // Entering a loop only at its header (no side entries here).
                        for lp in &sk.loops {
                            if lp.contains(t) && !lp.contains(i) {
                                assert_eq!(t, lp.header, "edge {i}->{t} enters a loop midway");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn loops_nest_strictly_and_respect_the_trip_budget() {
        let cfg = GenConfig::default();
        for sk in skeletons(&cfg, 300) {
            for lp in &sk.loops {
                assert!(lp.header >= 1 && lp.last + 1 < sk.len());
                let mut product = lp.bound;
                let mut p = lp.parent;
                while let Some(q) = p {
                    let outer = &sk.loops[q];
                    assert!(outer.header < lp.header && lp.last < outer.last);
                    product *= outer.bound;
                    p = outer.parent;
                }
                assert!(product <= cfg.max_trip_product);
                assert!(lp.depth <= cfg.max_loop_depth);
            }
        }
    }
}
