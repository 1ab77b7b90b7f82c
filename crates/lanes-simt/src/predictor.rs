//! A branch predictor run on the answers a profile counts: whether a wave reaching a
//! two-way branch sends no thread to one of its sides.
//!
//! A vector test of an empty mask is a branch the CPU predicts. What it costs beyond its
//! two instructions is its mispredictions, and how often those happen is not how often
//! the rarer answer comes: a kd-tree walk finds its children past the leaves on every
//! other visit, which a predictor that remembers the branch's recent answers gets right
//! each time. So the profile runs a small one per branch and side and counts its
//! mistakes: a local-history predictor (the last 8 answers of this branch select one of
//! 256 two-bit saturating counters; Yeh and Patt, *Two-level adaptive training branch
//! prediction*, MICRO 1991), a conservative stand-in for the global-history predictors
//! of current cores, which see these patterns too.

/// Answers of one branch side remembered.
const HISTORY_BITS: u32 = 8;

/// One side's predictor.
#[derive(Clone, Debug)]
pub(crate) struct LocalHistory {
    history: u8,
    counters: [u8; 1 << HISTORY_BITS],
}

impl Default for LocalHistory {
    fn default() -> Self {
        // Weakly "not empty": a test is first guessed to find a thread.
        LocalHistory {
            history: 0,
            counters: [1; 1 << HISTORY_BITS],
        }
    }
}

impl LocalHistory {
    /// Predicts the next answer, learns `answer`; returns whether the guess was wrong.
    pub(crate) fn observe(&mut self, answer: bool) -> bool {
        let counter = &mut self.counters[usize::from(self.history)];
        let guess = *counter >= 2;
        *counter = if answer {
            (*counter + 1).min(3)
        } else {
            counter.saturating_sub(1)
        };
        self.history = (self.history << 1) | u8::from(answer);
        guess != answer
    }
}

#[cfg(test)]
mod tests {
    use super::LocalHistory;

    fn mistakes(answers: impl Iterator<Item = bool>) -> usize {
        let mut p = LocalHistory::default();
        answers.filter(|&a| p.observe(a)).count()
    }

    #[test]
    fn a_regular_pattern_is_learned_and_a_constant_answer_costs_nothing() {
        assert_eq!(mistakes(std::iter::repeat_n(false, 1000)), 0);
        // Every other answer: learned after a few rounds.
        assert!(mistakes((0..1000).map(|i: u32| i.is_multiple_of(2))) < 10);
        // Every seventh: too.
        assert!(mistakes((0..1000).map(|i: u32| i.is_multiple_of(7))) < 20);
    }

    #[test]
    fn random_answers_are_mispredicted_about_as_often_as_the_rarer_one_comes() {
        // A fixed pseudo-random stream, "true" with probability about 1/4.
        let mut x: u32 = 12345;
        let answers: Vec<bool> = (0..4000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16).is_multiple_of(4)
            })
            .collect();
        let rare = answers.iter().filter(|&&a| a).count();
        let wrong = mistakes(answers.into_iter());
        assert!(
            wrong * 10 > rare * 8 && wrong < rare * 2,
            "{wrong} vs {rare}"
        );
    }
}
