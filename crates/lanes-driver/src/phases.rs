//! Wall time per phase of one pipeline run, for `-ftime-report` (clang's flag of the same
//! name): which part of a slow compile is the front end, lanes' own passes or LLVM's code
//! generator is the first question about any compile-time problem, and the answer should
//! not need a profiler.
//!
//! Phases that run at the same time as others (the C signature query runs beside the
//! import) are recorded under their own name with their own duration, so the phases can
//! add up to more than the run's wall time; the report says which ones overlap.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// One timed phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    pub name: String,
    pub time: Duration,
    /// Ran beside other phases rather than after them.
    pub concurrent: bool,
}

/// The phases of one run, in the order they finished.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    phases: Vec<Phase>,
}

impl PhaseTimes {
    /// Runs `f` as phase `name` and records its wall time.
    pub fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.record(name, start.elapsed(), false);
        out
    }

    /// Records a phase timed elsewhere (`concurrent`: it overlapped other phases).
    pub fn record(&mut self, name: &str, time: Duration, concurrent: bool) {
        self.phases.push(Phase {
            name: name.to_string(),
            time,
            concurrent,
        });
    }

    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// The sum of the phases that ran one after the other.
    pub fn sequential_total(&self) -> Duration {
        self.phases
            .iter()
            .filter(|p| !p.concurrent)
            .map(|p| p.time)
            .sum()
    }

    /// The report `-ftime-report` prints: one line per phase, seconds and share of the
    /// sequential total, then the total.
    pub fn report(&self) -> String {
        let total = self.sequential_total().as_secs_f64();
        let mut out = String::from("===- lanes phase timing report -===\n");
        let _ = writeln!(out, "{:>10}  {:>6}  phase", "wall (s)", "share");
        for p in &self.phases {
            let secs = p.time.as_secs_f64();
            let share = if p.concurrent || total == 0.0 {
                "  -   ".to_string()
            } else {
                format!("{:5.1}%", 100.0 * secs / total)
            };
            let note = if p.concurrent { " (concurrent)" } else { "" };
            let _ = writeln!(out, "{secs:>10.3}  {share}  {}{note}", p.name);
        }
        let _ = writeln!(out, "{total:>10.3}  100.0%  total");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_phases_are_reported_but_not_summed() {
        let mut t = PhaseTimes::default();
        t.record("front end", Duration::from_millis(300), false);
        t.record("signature", Duration::from_millis(200), true);
        t.record("codegen", Duration::from_millis(100), false);
        assert_eq!(t.sequential_total(), Duration::from_millis(400));
        let r = t.report();
        assert!(r.contains("75.0%  front end"), "{r}");
        assert!(r.contains("0.200    -     signature (concurrent)"), "{r}");
        assert!(r.contains("0.400  100.0%  total"), "{r}");
        assert_eq!(t.time("x", || 7), 7);
        assert_eq!(t.phases().last().map(|p| p.name.as_str()), Some("x"));
    }
}
