//! The instruction alignment problem of PACT'11 §IV-A (Definition 4.2), solved with
//! Smith–Waterman: given two instruction sequences `T` and `F`, the profit `g(i, j)` of
//! merging `T[i]` with `F[j]` (the cycles saved minus the selectors merging costs, or none
//! where the two cannot merge) and the cost `b` of a gap (a branch back into divergent
//! code), find the ordered pairs `(x₁, y₁) < … < (x_k, y_k)` maximizing
//! `Σ g(x, y) − b·G`, with `G` the number of gaps between consecutive pairs.
//!
//! The paper's recurrence pays `b` once per gap, when the alignment leaves a run of
//! diagonal cells. We keep that meaning exactly with two tables: `M[i][j]`, the best
//! alignment ending by merging `(i, j)`, and `P[i][j]`, the best `M[i′][j′]` with
//! `i′ ≤ i, j′ ≤ j` (a running maximum, with the cell that attains it):
//!
//! ```text
//! M[i][j] = g(i, j) + max(start(i, j), M[i−1][j−1], P[i−1][j−1] − b)
//! ```
//!
//! Continuing the diagonal is free, any other predecessor is one gap (however long: a
//! gap's cost does not grow with its length, as one branch skips it whole). Smith–Waterman
//! starts a new alignment anywhere at no cost (`start = 0`), leaving the unmatched head
//! and tail of the sequences divergent; fusion pays for those too, as each is one more
//! divergent branch, so [`Ends`] can charge an alignment that does not start at `(0, 0)`
//! (`start = −head`) or does not end at `(n−1, m−1)` (its score less `tail`). The best
//! alignment ends at the cell with the best score; walking the back pointers from there
//! recovers it. Time and space are `O(|T|·|F|)`, as in §IV-A(b).

/// An alignment: the merged pairs in order, and its total profit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Alignment {
    pub pairs: Vec<(usize, usize)>,
    pub score: i64,
}

impl Alignment {
    /// Gaps between consecutive pairs (the interior gaps the score paid for).
    pub fn interior_gaps(&self) -> usize {
        self.pairs
            .windows(2)
            .filter(|w| w[1] != (w[0].0 + 1, w[0].1 + 1))
            .count()
    }
}

/// The most cells [`align`] fills; longer sides are not fused (their matrix would cost
/// more time and memory than fusion can repay).
pub const MAX_CELLS: usize = 1 << 20;

/// What gaps cost: `gap` between two merged pairs, `head` before the first pair unless it
/// is `(0, 0)`, `tail` after the last unless it is `(n−1, m−1)`. Smith–Waterman's local
/// alignment is `head = tail = 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    pub gap: i64,
    pub head: i64,
    pub tail: i64,
}

impl Ends {
    /// Every gap costs `gap`.
    pub fn uniform(gap: i64) -> Ends {
        Ends {
            gap,
            head: gap,
            tail: gap,
        }
    }

    /// Local alignment: interior gaps cost `gap`, the ends nothing.
    pub fn local(gap: i64) -> Ends {
        Ends {
            gap,
            head: 0,
            tail: 0,
        }
    }
}

/// The best alignment of sequences of lengths `n` and `m` under `gain` (`None`: the pair
/// cannot merge) and gap costs `ends`; `None` if `n · m` exceeds [`MAX_CELLS`]. An empty
/// alignment (score 0) means no alignment scores above zero.
pub fn align(
    n: usize,
    m: usize,
    gain: impl Fn(usize, usize) -> Option<i64>,
    ends: Ends,
) -> Option<Alignment> {
    let gap = ends.gap;
    if n.checked_mul(m)? > MAX_CELLS {
        return None;
    }
    if n == 0 || m == 0 {
        return Some(Alignment::default());
    }
    const NONE: usize = usize::MAX;
    let at = |i: usize, j: usize| i * m + j;
    // best[c]: M of cell c (None where the pair cannot merge); from[c]: its predecessor.
    let mut best: Vec<Option<i64>> = vec![None; n * m];
    let mut from: Vec<usize> = vec![NONE; n * m];
    // prefix[c]: the largest M in the rectangle up to c, and the cell holding it.
    let mut prefix: Vec<Option<(i64, usize)>> = vec![None; n * m];
    let mut top: Option<(i64, usize)> = None;
    for i in 0..n {
        for j in 0..m {
            let c = at(i, j);
            if let Some(g) = gain(i, j) {
                let start = if (i, j) == (0, 0) { 0 } else { -ends.head };
                let mut score = g + start;
                if i > 0 && j > 0 {
                    let d = at(i - 1, j - 1);
                    let diagonal = best[d].map(|s| (s, d));
                    let jump = prefix[d].map(|(s, p)| (s - gap, p));
                    // The diagonal wins ties: a gap is taken only when it pays.
                    let mut pred = diagonal.filter(|&(s, _)| s > start);
                    if let Some((s, p)) = jump.filter(|&(s, _)| s > start) {
                        if pred.is_none_or(|(d, _)| s > d) {
                            pred = Some((s, p));
                        }
                    }
                    if let Some((s, p)) = pred {
                        score = g + s;
                        from[c] = p;
                    }
                }
                best[c] = Some(score);
                let end = if (i, j) == (n - 1, m - 1) {
                    0
                } else {
                    ends.tail
                };
                if top.is_none_or(|(s, _)| score - end > s) {
                    top = Some((score - end, c));
                }
            }
            let mut here = best[c].map(|s| (s, c));
            for p in [
                i.checked_sub(1).map(|i| at(i, j)),
                j.checked_sub(1).map(|j| at(i, j)),
            ]
            .into_iter()
            .flatten()
            {
                if let Some((s, q)) = prefix[p] {
                    if here.is_none_or(|(h, _)| s > h) {
                        here = Some((s, q));
                    }
                }
            }
            prefix[c] = here;
        }
    }
    let Some((score, end)) = top.filter(|&(s, _)| s > 0) else {
        return Some(Alignment::default());
    };
    let mut pairs = Vec::new();
    let mut c = end;
    while c != NONE {
        pairs.push((c / m, c % m));
        c = from[c];
    }
    pairs.reverse();
    Some(Alignment { pairs, score })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 10(a) of PACT'11 as opcode strings, with the profits of Fig. 12
    /// (`s(↓,↓) = s(↑,↑) = 100`, `s(*,*) = 2`, `s(/,/) = 8`, `s(+,+) = 2`, `b = 2`).
    fn paper_gain<'a>(t: &'a [&str], f: &'a [&str]) -> impl Fn(usize, usize) -> Option<i64> + 'a {
        move |i, j| {
            if t[i] != f[j] {
                return None;
            }
            Some(match t[i] {
                "ld" | "st" => 100,
                "/" => 8,
                _ => 2,
            })
        }
    }

    #[test]
    fn the_papers_example_merges_everything_but_the_extra_subtraction() {
        let t = ["ld", "ld", "*", "*", "*", "/", "/", "*", "+", "st"];
        let f = ["ld", "ld", "*", "*", "*", "/", "/", "*", "-", "+", "st"];
        let a = align(t.len(), f.len(), paper_gain(&t, &f), Ends::local(2)).unwrap();
        let mut want: Vec<(usize, usize)> = (0..8).map(|i| (i, i)).collect();
        want.extend([(8, 9), (9, 10)]);
        assert_eq!(a.pairs, want);
        assert_eq!(a.interior_gaps(), 1);
        // 3 memory operations, 4 products, 2 quotients, 1 sum, one gap.
        assert_eq!(a.score, 300 + 4 * 2 + 2 * 8 + 2 - 2);
    }

    #[test]
    fn a_gap_is_taken_only_when_what_follows_repays_it() {
        // Merging the trailing `+` after skipping `x` gains 1 and costs a gap of 2.
        let t = ["/", "+"];
        let f = ["/", "x", "+"];
        let cheap = |i: usize, j: usize| (t[i] == f[j]).then_some(if t[i] == "/" { 8 } else { 1 });
        assert_eq!(
            align(2, 3, cheap, Ends::local(2)).unwrap().pairs,
            vec![(0, 0)]
        );
        let dear = |i: usize, j: usize| (t[i] == f[j]).then_some(if t[i] == "/" { 8 } else { 5 });
        assert_eq!(
            align(2, 3, dear, Ends::local(2)).unwrap().pairs,
            vec![(0, 0), (1, 2)]
        );
    }

    #[test]
    fn unprofitable_pairs_and_empty_sides_give_the_empty_alignment() {
        assert_eq!(
            align(3, 0, |_, _| Some(5), Ends::local(2)).unwrap(),
            Alignment::default()
        );
        assert_eq!(
            align(2, 2, |_, _| Some(-1), Ends::local(2)).unwrap(),
            Alignment::default()
        );
        assert_eq!(
            align(2, 2, |_, _| None, Ends::local(2)).unwrap(),
            Alignment::default()
        );
        assert!(align(MAX_CELLS, 2, |_, _| Some(1), Ends::local(2)).is_none());
    }

    #[test]
    fn a_costly_pair_in_the_middle_is_kept_when_it_links_two_profitable_runs() {
        // Taking (1, 1) at -1 avoids a gap costing 4.
        let g = |i: usize, j: usize| (i == j).then_some(if i == 1 { -1 } else { 10 });
        let a = align(3, 3, g, Ends::local(4)).unwrap();
        assert_eq!(a.pairs, vec![(0, 0), (1, 1), (2, 2)]);
        assert_eq!(a.score, 19);
    }

    #[test]
    fn charged_ends_extend_an_alignment_to_the_first_and_last_pairs() {
        // Merging the first pair loses 1 but saves the gap in front; likewise the last.
        let g = |i: usize, j: usize| (i == j).then_some(if i == 1 { 8 } else { -1 });
        let local = align(3, 3, g, Ends::local(2)).unwrap();
        assert_eq!(local.pairs, vec![(1, 1)]);
        let charged = align(3, 3, g, Ends::uniform(2)).unwrap();
        assert_eq!(charged.pairs, vec![(0, 0), (1, 1), (2, 2)]);
        assert_eq!(charged.score, 6);
        // Not when the end pair loses more than the gap costs.
        let g = |i: usize, j: usize| (i == j).then_some(if i == 1 { 8 } else { -3 });
        let charged = align(3, 3, g, Ends::uniform(2)).unwrap();
        assert_eq!(charged.pairs, vec![(1, 1)]);
        assert_eq!(charged.score, 4);
    }
}
