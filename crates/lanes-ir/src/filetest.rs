//! Golden filetests, in the style of Cranelift's `cranelift/filetests`.
//!
//! A filetest is a `.lir` file: the IR under test, directives in comments (`; run: …`),
//! and, for golden tests, an expected-output section at the end of the file:
//!
//! ```text
//! function @f(v0: i32) -> i32 { … }
//! ; expect:
//! ; idom block1 = block0
//! ```
//!
//! A test crate computes the actual output for the source part and [`run_golden`] compares
//! it with the expected section. With `LANES_BLESS=1` in the environment the files are
//! rewritten with the actual output instead, so that a deliberate change of output is one
//! command and a reviewed diff. Every failing file is reported, not just the first.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The line that starts the expected-output section.
pub const EXPECT_MARKER: &str = "; expect:";

/// The environment variable that turns comparison into rewriting.
pub const BLESS_VAR: &str = "LANES_BLESS";

/// A filetest split into its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTest {
    pub path: PathBuf,
    /// Everything before the expected section (the IR and its directives).
    pub source: String,
    /// The expected lines without their `; ` prefix, or `None` if there is no section.
    pub expected: Option<Vec<String>>,
}

impl FileTest {
    /// Splits `text` at the expected-output marker.
    pub fn parse(path: impl Into<PathBuf>, text: &str) -> FileTest {
        let mut source = String::new();
        let mut expected: Option<Vec<String>> = None;
        for line in text.lines() {
            match &mut expected {
                Some(lines) => {
                    let body = line.strip_prefix(';').unwrap_or(line);
                    lines.push(body.strip_prefix(' ').unwrap_or(body).to_string());
                }
                None if line.trim_end() == EXPECT_MARKER => expected = Some(Vec::new()),
                None => {
                    source.push_str(line);
                    source.push('\n');
                }
            }
        }
        if let Some(lines) = &mut expected {
            while lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
        }
        FileTest {
            path: path.into(),
            source,
            expected,
        }
    }

    /// The lines of the source holding directive `name` (`; name: rest`), with their
    /// 1-based line numbers and the text after the colon, trimmed.
    pub fn directives(&self, name: &str) -> Vec<(usize, String)> {
        let prefix = format!("{name}:");
        self.source
            .lines()
            .enumerate()
            .filter_map(|(i, line)| {
                let comment = line.trim_start().strip_prefix(';')?.trim_start();
                let rest = comment.strip_prefix(&prefix)?;
                Some((i + 1, rest.trim().to_string()))
            })
            .collect()
    }

    /// The file text with `actual` as its expected section.
    pub fn blessed_text(&self, actual: &str) -> String {
        let mut out = self.source.trim_end().to_string();
        out.push('\n');
        out.push_str(EXPECT_MARKER);
        out.push('\n');
        for line in actual.trim_end().lines() {
            if line.is_empty() {
                out.push_str(";\n");
            } else {
                let _ = writeln!(out, "; {line}");
            }
        }
        out
    }
}

/// All `.lir` files below `dir`, sorted, recursively.
pub fn collect_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "lir") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The outcome of a whole filetest run.
#[derive(Debug, Default)]
pub struct Report {
    pub files: usize,
    pub failures: Vec<String>,
}

impl Report {
    /// Panics with every failure if there was one, or if no file was found (a filetest
    /// directory that silently tests nothing is a defect).
    pub fn assert_ok(&self) {
        assert!(self.files > 0, "no filetests were found");
        if !self.failures.is_empty() {
            panic!(
                "{} of {} filetests failed:\n\n{}",
                self.failures.len(),
                self.files,
                self.failures.join("\n\n")
            );
        }
    }
}

/// Runs a golden test over every `.lir` file below `dir`: `produce` turns a test's source
/// into its actual output (or an error, which fails the file). Files without an expected
/// section fail unless blessing, which writes one.
pub fn run_golden(dir: &Path, produce: impl Fn(&FileTest) -> Result<String, String>) -> Report {
    let bless = std::env::var_os(BLESS_VAR).is_some_and(|v| v != "0");
    let mut report = Report::default();
    for path in collect_files(dir) {
        report.files += 1;
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                report
                    .failures
                    .push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        let test = FileTest::parse(&path, &text);
        let actual = match produce(&test) {
            Ok(a) => a,
            Err(e) => {
                report.failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let actual_lines: Vec<String> = actual.trim_end().lines().map(str::to_string).collect();
        if test.expected.as_ref() == Some(&actual_lines) {
            continue;
        }
        if bless {
            if let Err(e) = std::fs::write(&path, test.blessed_text(&actual)) {
                report
                    .failures
                    .push(format!("{}: cannot bless: {e}", path.display()));
            }
            continue;
        }
        report.failures.push(match &test.expected {
            None => format!(
                "{}: no `{EXPECT_MARKER}` section; actual output:\n{actual}\n(run with {BLESS_VAR}=1 to write it)",
                path.display()
            ),
            Some(expected) => format!(
                "{}: output differs (run with {BLESS_VAR}=1 to accept)\n--- expected\n{}\n+++ actual\n{}",
                path.display(),
                expected.join("\n"),
                actual_lines.join("\n")
            ),
        });
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_source_directives_and_expected_section() {
        let text = "; run: @f(1) == 2\nfunction @f() {\n}\n; expect:\n; a b\n;\n; c\n\n";
        let t = FileTest::parse("x.lir", text);
        assert_eq!(t.source, "; run: @f(1) == 2\nfunction @f() {\n}\n");
        assert_eq!(
            t.expected,
            Some(vec!["a b".to_string(), String::new(), "c".to_string()])
        );
        assert_eq!(t.directives("run"), vec![(1, "@f(1) == 2".to_string())]);
        assert!(t.directives("test").is_empty());
        let blessed = t.blessed_text("a b\n\nc\n");
        assert_eq!(FileTest::parse("x.lir", &blessed).expected, t.expected);
    }
}
