//! Running one kernel's timing program and reading what it prints (`driver.c`): a
//! `check NAME CHECKSUM` line per build, the result of one sweep before any timing,
//! then `kernel NAME MEDIAN_MS CHECKSUM` per build.

use std::path::Path;
use std::process::Command;

use super::build::REFERENCE;
use super::error::BenchError;
use super::kernels::Config;

/// One build's figures from one run of the program.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub build: String,
    pub median_ms: f64,
    /// The fastest and the slowest of the processes' medians ([`median_of`]); the median
    /// twice for one process.
    pub range_ms: [f64; 2],
}

/// Runs `exe` on `instances` instances with `runs` timed sweeps per build; the builds'
/// median times. Every build's checksum must equal the reference's, in the checking
/// sweep and in the timed ones (a wrong result is an error, not a figure).
pub fn run_driver(
    kernel: &str,
    exe: &Path,
    instances: u64,
    runs: u32,
) -> Result<Vec<Timing>, BenchError> {
    let out = Command::new(exe)
        .args([instances.to_string(), runs.to_string()])
        .output()
        .map_err(|e| BenchError::Io(exe.to_path_buf(), e))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(BenchError::Run {
            kernel: kernel.to_string(),
            message: format!(
                "{} exited with {}: {}{}",
                exe.display(),
                out.status,
                stdout,
                String::from_utf8_lossy(&out.stderr)
            ),
        });
    }
    parse(kernel, &stdout)
}

/// Per build, the median of its medians over several runs of the program (`runs`, each
/// as [`run_driver`] returns it); builds in the order of the first run.
pub fn median_of(runs: &[Vec<Timing>]) -> Vec<Timing> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|t| {
            let mut ms: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.iter().find(|u| u.build == t.build))
                .map(|u| u.median_ms)
                .collect();
            ms.sort_by(f64::total_cmp);
            let n = ms.len();
            let median = if n % 2 == 1 {
                ms[n / 2]
            } else {
                (ms[n / 2 - 1] + ms[n / 2]) / 2.0
            };
            Timing {
                build: t.build.clone(),
                median_ms: median,
                range_ms: [ms[0], ms[n - 1]],
            }
        })
        .collect()
}

/// How far the checksum of a build with another math library may stray from the
/// reference's, relatively: ISPC has its own `exp`/`log`/`pow` and contracts multiply-adds
/// by its own rules, libmvec's functions are within 4 ulp, so their floats differ in the
/// last bits (every other lanes build must match clang's exactly).
pub const PEER_TOLERANCE: f64 = 1e-4;

/// Does the checksum `got` of `build` match the reference's `want`?
fn checksum_matches(build: &str, got: f64, want: f64) -> bool {
    if got.to_bits() == want.to_bits() {
        return true;
    }
    let other_math = Config::ALL
        .iter()
        .any(|c| c.other_math() && build.starts_with(&format!("{}/", c.name())));
    other_math && (got - want).abs() <= PEER_TOLERANCE * want.abs().max(1.0)
}

/// The timings in the driver's output `text`, checked against the reference's checksum.
pub fn parse(kernel: &str, text: &str) -> Result<Vec<Timing>, BenchError> {
    let bad = |line: &str| BenchError::Run {
        kernel: kernel.to_string(),
        message: format!("unexpected driver output `{line}`"),
    };
    // The reference's checksum per kind of line (they print it with different precision).
    let mut want: [Option<f64>; 2] = [None, None];
    let mut timings = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |w: Option<&&str>| w.and_then(|w| w.parse::<f64>().ok());
        let (kind, build, sum, ms) = match words.first() {
            Some(&"check") => (0, words.get(1), number(words.get(2)), None),
            Some(&"kernel") => (1, words.get(1), number(words.get(3)), number(words.get(2))),
            _ => continue,
        };
        let (Some(&build), Some(sum)) = (build, sum) else {
            return Err(bad(line));
        };
        if build == REFERENCE && want[kind].is_none() {
            want[kind] = Some(sum);
        }
        match want[kind] {
            Some(w) if checksum_matches(build, sum, w) => {}
            Some(w) => {
                return Err(BenchError::Checksum {
                    kernel: kernel.to_string(),
                    build: build.to_string(),
                    got: sum,
                    want: w,
                })
            }
            None => return Err(bad(line)),
        }
        if let Some(ms) = ms {
            timings.push(Timing {
                build: build.to_string(),
                median_ms: ms,
                range_ms: [ms, ms],
            });
        }
    }
    if timings.is_empty() {
        return Err(bad(text.lines().next().unwrap_or("(nothing)")));
    }
    Ok(timings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_are_read_and_checksums_compared() {
        let text = "check clang 12.25\ncheck partial/8 12.25\nkernel clang 4.0 12.3\nkernel partial/8 1.0 12.3\n";
        let t = parse("k", text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].build, "partial/8");
        assert_eq!(t[1].median_ms, 1.0);
        let wrong = "check clang 12.5\ncheck partial/8 12.25\n";
        assert!(matches!(
            parse("k", wrong),
            Err(BenchError::Checksum { ref build, .. }) if build == "partial/8"
        ));
        assert!(parse("k", "garbage\n").is_err());
    }

    #[test]
    fn repeated_runs_give_the_median_of_the_medians() {
        let run = |a: f64, b: f64| {
            vec![
                Timing {
                    build: "clang".into(),
                    median_ms: a,
                    range_ms: [a, a],
                },
                Timing {
                    build: "full/8".into(),
                    median_ms: b,
                    range_ms: [b, b],
                },
            ]
        };
        let m = median_of(&[run(4.0, 1.0), run(9.0, 3.0), run(5.0, 2.0)]);
        assert_eq!((m[0].median_ms, m[1].median_ms), (5.0, 2.0));
        assert_eq!((m[0].range_ms, m[1].range_ms), ([4.0, 9.0], [1.0, 3.0]));
        let even = median_of(&[run(4.0, 1.0), run(6.0, 2.0)]);
        assert_eq!((even[0].build.as_str(), even[0].median_ms), ("clang", 5.0));
        assert!(median_of(&[]).is_empty());
    }

    #[test]
    fn only_builds_with_other_math_may_differ_in_the_last_bits() {
        let near = "check clang 1000.0\ncheck ispc/8 1000.01\n";
        assert!(parse(
            "k",
            &format!("{near}kernel clang 4.0 1000.0\nkernel ispc/8 1.0 1000.01\n")
        )
        .is_ok());
        let lanes = "check clang 1000.0\ncheck partial/8 1000.01\n";
        assert!(parse("k", lanes).is_err());
        let libmvec = "check clang 1000.0\ncheck partial+boscc+fusion+libmvec/8 1000.01\n\
                       kernel clang 4.0 1000.0\nkernel partial+boscc+fusion+libmvec/8 1.0 1000.01\n";
        assert!(parse("k", libmvec).is_ok());
        let far = "check clang 1000.0\ncheck ispc/8 1000.5\n";
        assert!(parse("k", far).is_err());
    }
}
