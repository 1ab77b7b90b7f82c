//! Runs every `; run:` directive of the `.lir` files in `filetests/`.
//!
//! Each file is parsed, verified (a filetest must be valid IR: the interpreter's behaviour
//! on malformed IR is not what these tests pin down), and every run line is executed with
//! a fresh memory by [`lanes_interp::run_line`]; see `src/runline.rs` for the syntax. All
//! failures are reported at once with `file:line`. The test checks a floor of 50 files
//! with run lines, so that the suite cannot shrink silently (a lost directory or a
//! renamed extension would otherwise pass with nothing run).

use std::path::Path;

use lanes_interp::{parse_run_line, run_line, Interpreter};
use lanes_ir::filetest::{collect_files, FileTest};

/// Fuel per run line: enough for every test here, small enough to stop a runaway loop fast.
const FUEL: u64 = 5_000_000;

/// Runs the run lines of one file's source; returns (number of run lines, failures).
fn run_file(name: &str, source: &str) -> (usize, Vec<String>) {
    let test = FileTest::parse(name, source);
    let module = match lanes_ir::parse_module(&test.source) {
        Ok(m) => m,
        Err(e) => return (0, vec![format!("{name}:{e}")]),
    };
    if let Err(e) = lanes_ir::verifier::verify_module(&module) {
        return (0, vec![format!("{name}: does not verify:\n{e}")]);
    }
    let directives = test.directives("run");
    if directives.is_empty() {
        return (0, vec![format!("{name}: no `; run:` lines")]);
    }
    let interp = Interpreter::new(&module).fuel(FUEL);
    let mut failures = Vec::new();
    for (line, text) in &directives {
        let outcome = parse_run_line(text)
            .map_err(|e| format!("bad run line: {e}"))
            .and_then(|r| run_line(&interp, &r).map_err(|e| e.to_string()));
        if let Err(e) = outcome {
            failures.push(format!(
                "{name}:{line}: {text}\n    {}",
                e.replace('\n', "\n    ")
            ));
        }
    }
    (directives.len(), failures)
}

#[test]
fn run_lines_of_all_filetests_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = collect_files(&dir);
    let (mut runs, mut failures) = (0, Vec::new());
    for path in &files {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (n, f) = run_file(&name, &text);
                runs += n;
                failures.extend(f);
            }
            Err(e) => failures.push(format!("{name}: cannot read: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} run lines in {} files failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    assert!(
        files.len() >= 50,
        "only {} filetests in {}",
        files.len(),
        dir.display()
    );
    eprintln!("{runs} run lines in {} files passed", files.len());
}

/// The runner must be able to fail: wrong values, wrong traps, wrong buffer contents and
/// unexpected errors are all reported.
#[test]
fn wrong_expectations_are_reported() {
    let src = "\
function @inc(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 1
    v2: i32 = add v0, v1
    ret v2
}

function @fill(v0: ptr) {
block0:
    v1: i32 = iconst 7
    store v1, v0 align 4
    ret
}

function @div(v0: i32, v1: i32) -> i32 {
block0:
    v2: i32 = sdiv v0, v1
    ret v2
}
; run: @inc(1) == 2
; run: @inc(1) == 3
; run: @inc(1) traps division by zero
; run: @div(1, 0) traps out-of-bounds
; run: @div(1, 0) == 0
; run: @fill(buf[i32: 0]) ; buf0 == [i32: 7]
; run: @fill(buf[i32: 0]) ; buf0 == [i32: 8]
; run: @fill(buf[i32: 0, 0]) ; buf0 == [i32: 7]
; run: @fill(buf[i8: 0])
; run: @fill(const buf[i32: 0])
; run: @inc(1, 2) == 2
; run: @nope() == 2
";
    let (runs, failures) = run_file("inline.lir", src);
    assert_eq!(runs, 12);
    let lines: Vec<&str> = failures
        .iter()
        .map(|f| f.split(':').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        lines,
        ["21", "22", "23", "24", "26", "27", "28", "29", "30", "31"],
        "{failures:#?}"
    );
    assert!(failures[0].contains("expected 3, got 2"), "{}", failures[0]);
    assert!(
        failures[3].contains("integer division by zero"),
        "{}",
        failures[3]
    );
    assert!(
        failures[4].contains("expected [i32: 8], got [i32: 7]"),
        "{}",
        failures[4]
    );
    assert!(failures[5].contains("buf0 has 8 bytes"), "{}", failures[5]);
    assert!(
        failures[6].contains("out-of-bounds write"),
        "{}",
        failures[6]
    );
    assert!(failures[7].contains("read-only"), "{}", failures[7]);
}
