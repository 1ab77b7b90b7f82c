//! Rounds of a timing driver: the driver prints `kernel NAME MS CHECKSUM` per kernel
//! (its own median over runs); the benchmark runs it several times and takes the median
//! of the rounds, and the last checksum of each kernel.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::cmd::run;

/// Milliseconds per round and the checksum, by kernel name.
pub struct Rounds {
    pub times: BTreeMap<String, Vec<f64>>,
    pub sums: BTreeMap<String, f64>,
}

impl Rounds {
    /// Runs `exe args…` `rounds` times.
    pub fn run(exe: &Path, args: &[String], rounds: usize) -> Rounds {
        let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut sums = BTreeMap::new();
        for _ in 0..rounds {
            let text = run(Command::new(exe).args(args));
            for line in text.lines() {
                let w: Vec<&str> = line.split_whitespace().collect();
                if let ["kernel", name, ms, sum] = w[..] {
                    times
                        .entry(name.to_string())
                        .or_default()
                        .push(ms.parse().expect("ms"));
                    sums.insert(name.to_string(), sum.parse().expect("checksum"));
                }
            }
        }
        Rounds { times, sums }
    }

    /// The median of kernel `name`'s rounds.
    pub fn median(&self, name: &str) -> f64 {
        let mut xs = self.times[name].clone();
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    }

    /// Kernel `name`'s checksum.
    pub fn sum(&self, name: &str) -> f64 {
        self.sums[name]
    }
}
