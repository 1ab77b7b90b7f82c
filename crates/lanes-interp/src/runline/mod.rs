//! The syntax of `; run:` directives and of interpreter arguments.
//!
//! Filetests (ARCHITECTURE.md, "Testing"; in the style of Cranelift's `; run:` lines)
//! state calls and their expected outcome in comments next to the IR, and the `lanes
//! interp` command takes its arguments in the same notation, so both share this parser
//! (the execution lives in [`crate::harness`]). The grammar:
//!
//! ```text
//! run-line   := call [ outcome ] { ';' check }
//! call       := '@' NAME '(' [ arg { ',' arg } ] ')'
//! outcome    := '==' value            exact: bit-equal, except that any NaN equals nan
//!             | '~=' value            floats within a relative 1e-5 (f32) / 1e-12 (f64)
//!             | ('traps' | 'faults' | 'errors') TEXT
//!                                      an error whose code (`division by zero`,
//!                                      `out-of-bounds`, …) is TEXT, or whose message
//!                                      contains TEXT
//! check      := target ('==' | '~=') '[' TYPE ':' [ lit { ',' lit } ] ']'
//!                                      the whole allocation holds exactly these elements
//! target     := 'buf' N                the N-th buffer argument (from 0, left to right)
//!             | '@' NAME               a global of the module
//! arg        := value | buffer
//! value      := lit | '<' lit { ',' lit } '>'
//! buffer     := [ 'const' ] 'buf' '[' TYPE ':' [ lit { ',' lit } ] ']'
//!             | [ 'const' ] 'buf' '[' TYPE 'x' COUNT ']'        (zero-filled)
//!             | [ 'const' ] 'buf' '[' TYPE '@' PATH ']'         (a file's elements)
//! lit        := INT | FLOAT | 'true' | 'false' | 'null' | 'buf' N [ ('+' | '-') INT ]
//! ```
//!
//! Integers are decimal or `0x` hex, optionally negative; floats are decimal with a `.` or
//! an exponent, or `inf`, `-inf`, `nan`. A literal takes the type of the parameter (or
//! result, or buffer element) it stands for: `1` is fine for an `f32`, `true` for an
//! `i1`, `null` and `bufN+8` for pointers. A buffer argument allocates a fresh buffer in
//! the parameter's address space (`const` makes it read-only) and passes its address.
//! `@ PATH` fills it with a file of whole little-endian elements, read when the call's
//! arguments are bound (the name runs to the `]`), so that real data can be given on the
//! command line (`lanes interp`, `lanes vectorize --profile-arg`). Examples:
//!
//! ```text
//! ; run: @gcd(12, 18) == 6
//! ; run: @div(1, 0) traps division by zero
//! ; run: @sum(buf[i32: 1, 2, 3, 4], 4) == 10
//! ; run: @double(buf[f32: 1.5, -2], 2) ; buf0 == [f32: 3, -4]
//! ; run: @second(buf[i64 x 4]) == buf0+8
//! ; run: @lanes(<1, 2, 3, 4>) == <2, 4, 6, 8>
//! ```

use lanes_ir::ScalarType;

mod parser;

use parser::Parser;

/// A literal, typed only once it meets its parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    Int(i128),
    /// The literal's text, parsed at the target precision (`0.1` as an `f32` is the
    /// nearest `f32`, not a rounded `f64`).
    Float(String),
    Bool(bool),
    Null,
    /// A pointer `offset` bytes into the `buf`-th buffer argument.
    BufRef {
        buf: usize,
        offset: i64,
    },
}

/// A scalar or vector value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueSpec {
    Scalar(Lit),
    Vector(Vec<Lit>),
}

/// The contents of a buffer argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufInit {
    Values(Vec<Lit>),
    Zeroed(u64),
    /// `buf[f32 @ PATH]`: the file's bytes, whole elements in little-endian order (as
    /// `lanes cl run`'s `float[N]=@PATH` reads them), read when the arguments are bound.
    File(std::path::PathBuf),
}

/// A buffer argument: allocated by the harness, passed as a pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSpec {
    pub elem: ScalarType,
    pub init: BufInit,
    pub read_only: bool,
}

/// One argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgSpec {
    Value(ValueSpec),
    Buffer(BufferSpec),
}

/// What the call must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Only succeed.
    Succeeds,
    Equals(ValueSpec),
    Approx(ValueSpec),
    /// Fail with an error matching the text.
    Traps(String),
}

/// What a memory check looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckTarget {
    Buffer(usize),
    Global(String),
}

/// A check of memory contents after the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub target: CheckTarget,
    pub approx: bool,
    pub elem: ScalarType,
    pub values: Vec<Lit>,
}

/// A parsed run line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    pub func: String,
    pub args: Vec<ArgSpec>,
    pub outcome: Outcome,
    pub checks: Vec<Check>,
}

/// A syntax error, at a 1-based character column of the parsed text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct RunLineError {
    pub column: usize,
    pub message: String,
}

/// Parses a run line (the text after `run:`).
pub fn parse_run_line(text: &str) -> Result<RunLine, RunLineError> {
    let mut p = Parser::new(text);
    let (func, args) = p.call()?;
    let outcome = if p.eat("==") {
        Outcome::Equals(p.value()?)
    } else if p.eat("~=") {
        Outcome::Approx(p.value()?)
    } else if p.eat_word("traps") || p.eat_word("faults") || p.eat_word("errors") {
        let rest = p.remaining();
        let end = rest.find(';').unwrap_or(rest.len());
        let what = rest[..end].trim().to_string();
        if what.is_empty() {
            return Err(p.error("expected the expected error after `traps`"));
        }
        p.skip(end);
        Outcome::Traps(what)
    } else {
        Outcome::Succeeds
    };
    let mut checks = Vec::new();
    while p.eat(";") {
        checks.push(p.check()?);
    }
    p.end()?;
    Ok(RunLine {
        func,
        args,
        outcome,
        checks,
    })
}

/// Parses one argument (a whole string, as one command-line word).
pub fn parse_arg(text: &str) -> Result<ArgSpec, RunLineError> {
    let mut p = Parser::new(text);
    let arg = p.arg()?;
    p.end()?;
    Ok(arg)
}

/// Parses one argument per string (the command-line form).
pub fn parse_args<S: AsRef<str>>(texts: &[S]) -> Result<Vec<ArgSpec>, RunLineError> {
    texts.iter().map(|t| parse_arg(t.as_ref())).collect()
}

/// Parses a comma-separated argument list (`1, 2.5, buf[i32: 1, 2]`).
pub fn parse_arg_list(text: &str) -> Result<Vec<ArgSpec>, RunLineError> {
    let mut p = Parser::new(text);
    let mut args = Vec::new();
    if !p.at_end() {
        args.push(p.arg()?);
        while p.eat(",") {
            args.push(p.arg()?);
        }
    }
    p.end()?;
    Ok(args)
}

/// Parses a value (`42`, `-1.5`, `<1, 2>`), e.g. an expected result.
pub fn parse_value(text: &str) -> Result<ValueSpec, RunLineError> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    p.end()?;
    Ok(v)
}
