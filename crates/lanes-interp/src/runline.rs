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
//! lit        := INT | FLOAT | 'true' | 'false' | 'null' | 'buf' N [ ('+' | '-') INT ]
//! ```
//!
//! Integers are decimal or `0x` hex, optionally negative; floats are decimal with a `.` or
//! an exponent, or `inf`, `-inf`, `nan`. A literal takes the type of the parameter (or
//! result, or buffer element) it stands for: `1` is fine for an `f32`, `true` for an
//! `i1`, `null` and `bufN+8` for pointers. A buffer argument allocates a fresh buffer in
//! the parameter's address space (`const` makes it read-only) and passes its address.
//! Examples:
//!
//! ```text
//! ; run: @gcd(12, 18) == 6
//! ; run: @div(1, 0) traps division by zero
//! ; run: @sum(buf[i32: 1, 2, 3, 4], 4) == 10
//! ; run: @double(buf[f32: 1.5, -2], 2) ; buf0 == [f32: 3, -4]
//! ; run: @second(buf[i64 x 4]) == buf0+8
//! ; run: @lanes(<1, 2, 3, 4>) == <2, 4, 6, 8>
//! ```

use lanes_ir::types::parse_scalar_type;
use lanes_ir::ScalarType;

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
    let mut p = Parser { s: text, pos: 0 };
    let (func, args) = p.call()?;
    let outcome = if p.eat("==") {
        Outcome::Equals(p.value()?)
    } else if p.eat("~=") {
        Outcome::Approx(p.value()?)
    } else if p.eat_word("traps") || p.eat_word("faults") || p.eat_word("errors") {
        let rest = &p.s[p.pos..];
        let end = rest.find(';').unwrap_or(rest.len());
        let what = rest[..end].trim().to_string();
        if what.is_empty() {
            return Err(p.error("expected the expected error after `traps`"));
        }
        p.pos += end;
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
    let mut p = Parser { s: text, pos: 0 };
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
    let mut p = Parser { s: text, pos: 0 };
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
    let mut p = Parser { s: text, pos: 0 };
    let v = p.value()?;
    p.end()?;
    Ok(v)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> RunLineError {
        RunLineError {
            column: self.s[..self.pos].chars().count() + 1,
            message: message.into(),
        }
    }

    /// "expected X, found …" at the current position.
    fn expected(&mut self, what: &str) -> RunLineError {
        self.skip_ws();
        let found = match self.rest().chars().next() {
            None => "end of input".to_string(),
            Some(_) => {
                let word: String = self
                    .rest()
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(12)
                    .collect();
                format!("`{word}`")
            }
        };
        self.error(format!("expected {what}, found {found}"))
    }

    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.s.len() - trimmed.len();
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.s.len()
    }

    fn end(&mut self) -> Result<(), RunLineError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &str) -> Result<(), RunLineError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{tok}`")))
        }
    }

    /// The next word (letters, digits, `_`, `.`), without consuming it.
    fn peek_word(&mut self) -> &str {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..len]
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == word {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn word(&mut self, what: &str) -> Result<String, RunLineError> {
        let w = self.peek_word().to_string();
        if w.is_empty() {
            return Err(self.expected(what));
        }
        self.pos += w.len();
        Ok(w)
    }

    /// `@name` or `@"quoted name"`.
    fn name(&mut self) -> Result<String, RunLineError> {
        self.expect("@")?;
        if !self.rest().starts_with('"') {
            let w = self.rest();
            let len = w
                .char_indices()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')))
                .map_or(w.len(), |(i, _)| i);
            if len == 0 {
                return Err(self.expected("a name after `@`"));
            }
            let name = w[..len].to_string();
            self.pos += len;
            return Ok(name);
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    _ => return Err(self.error("bad escape in quoted name")),
                },
                c => out.push(c),
            }
        }
        Err(self.error("unterminated quoted name"))
    }

    fn call(&mut self) -> Result<(String, Vec<ArgSpec>), RunLineError> {
        let name = self.name()?;
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.eat(")") {
            loop {
                args.push(self.arg()?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        Ok((name, args))
    }

    fn arg(&mut self) -> Result<ArgSpec, RunLineError> {
        let read_only = self.eat_word("const");
        if self.peek_word() == "buf" {
            self.pos += 3;
            self.expect("[")?;
            let elem = self.scalar_type()?;
            let init = if self.eat_word("x") {
                BufInit::Zeroed(self.count()?)
            } else {
                self.expect(":")?;
                BufInit::Values(self.lits_until("]")?)
            };
            self.expect("]")?;
            return Ok(ArgSpec::Buffer(BufferSpec {
                elem,
                init,
                read_only,
            }));
        }
        if read_only {
            return Err(self.expected("`buf[` after `const`"));
        }
        Ok(ArgSpec::Value(self.value()?))
    }

    fn scalar_type(&mut self) -> Result<ScalarType, RunLineError> {
        let start = self.pos;
        let w = self.word("an element type")?;
        parse_scalar_type(&w).ok_or_else(|| {
            self.pos = start;
            self.expected("an element type (i8, i32, f32, ptr, …)")
        })
    }

    fn count(&mut self) -> Result<u64, RunLineError> {
        let start = self.pos;
        match self.lit()? {
            Lit::Int(n) if (0..=i128::from(u32::MAX)).contains(&n) => Ok(n as u64),
            _ => {
                self.pos = start;
                Err(self.expected("an element count"))
            }
        }
    }

    /// Comma-separated literals up to (not including) `close`.
    fn lits_until(&mut self, close: &str) -> Result<Vec<Lit>, RunLineError> {
        let mut out = Vec::new();
        self.skip_ws();
        if self.rest().starts_with(close) {
            return Ok(out);
        }
        loop {
            out.push(self.lit()?);
            if !self.eat(",") {
                return Ok(out);
            }
        }
    }

    fn value(&mut self) -> Result<ValueSpec, RunLineError> {
        if self.eat("<") {
            let lits = self.lits_until(">")?;
            self.expect(">")?;
            if lits.is_empty() {
                return Err(self.error("a vector needs at least one lane"));
            }
            return Ok(ValueSpec::Vector(lits));
        }
        Ok(ValueSpec::Scalar(self.lit()?))
    }

    fn lit(&mut self) -> Result<Lit, RunLineError> {
        self.skip_ws();
        let start = self.pos;
        let neg = self.rest().starts_with('-');
        if neg {
            self.pos += 1;
        }
        let w = self.peek_word().to_string();
        let lower = w.to_ascii_lowercase();
        if !neg {
            match w.as_str() {
                "true" => return self.took(&w, Lit::Bool(true)),
                "false" => return self.took(&w, Lit::Bool(false)),
                "null" => return self.took(&w, Lit::Null),
                _ => {}
            }
            if let Some(n) = w.strip_prefix("buf").and_then(|n| n.parse::<usize>().ok()) {
                self.pos += w.len();
                return self.buf_ref(n);
            }
        }
        if matches!(lower.as_str(), "inf" | "nan" | "infinity") {
            self.pos += w.len();
            return Ok(Lit::Float(self.s[start..self.pos].to_string()));
        }
        if !w.starts_with(|c: char| c.is_ascii_digit()) {
            self.pos = start;
            return Err(self.expected("a literal"));
        }
        // A number: the word, plus an exponent sign and digits if it ends in `e`.
        let mut end = self.pos + w.len();
        let hex = lower.starts_with("0x");
        if !hex && lower.ends_with('e') && self.s[end..].starts_with(['+', '-']) {
            end += 1;
            end += self.s[end..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
        }
        let text = &self.s[start..end];
        let digits = text.trim_start_matches('-');
        let lit = if hex {
            u64::from_str_radix(&digits[2..], 16)
                .ok()
                .map(|v| Lit::Int(i128::from(v)))
        } else if digits.contains(['.', 'e', 'E']) {
            digits
                .parse::<f64>()
                .ok()
                .map(|_| Lit::Float(text.to_string()))
        } else {
            digits.parse::<u64>().ok().map(|v| Lit::Int(i128::from(v)))
        };
        let lit = lit.map(|l| match (l, neg) {
            (Lit::Int(v), true) => Lit::Int(-v),
            (l, _) => l,
        });
        match lit {
            Some(l) => {
                self.pos = end;
                Ok(l)
            }
            None => {
                self.pos = start;
                Err(self.error(format!("bad number `{text}`")))
            }
        }
    }

    fn took(&mut self, w: &str, lit: Lit) -> Result<Lit, RunLineError> {
        self.pos += w.len();
        Ok(lit)
    }

    /// The optional `+N` / `-N` after `bufK`.
    fn buf_ref(&mut self, buf: usize) -> Result<Lit, RunLineError> {
        let sign = if self.eat("+") {
            1
        } else if self.eat("-") {
            -1
        } else {
            return Ok(Lit::BufRef { buf, offset: 0 });
        };
        match self.lit()? {
            Lit::Int(n) => {
                let offset = i64::try_from(n * sign).map_err(|_| self.error("offset too large"))?;
                Ok(Lit::BufRef { buf, offset })
            }
            _ => Err(self.error("expected an integer offset")),
        }
    }

    fn check(&mut self) -> Result<Check, RunLineError> {
        self.skip_ws();
        let target = if self.rest().starts_with('@') {
            CheckTarget::Global(self.name()?)
        } else {
            let w = self.peek_word().to_string();
            match w.strip_prefix("buf").and_then(|n| n.parse::<usize>().ok()) {
                Some(n) => {
                    self.pos += w.len();
                    CheckTarget::Buffer(n)
                }
                None => return Err(self.expected("`bufN` or `@global` to check")),
            }
        };
        let approx = if self.eat("==") {
            false
        } else if self.eat("~=") {
            true
        } else {
            return Err(self.expected("`==` or `~=`"));
        };
        self.expect("[")?;
        let elem = self.scalar_type()?;
        self.expect(":")?;
        let values = self.lits_until("]")?;
        self.expect("]")?;
        Ok(Check {
            target,
            approx,
            elem,
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i128) -> Lit {
        Lit::Int(n)
    }

    #[test]
    fn calls_outcomes_and_checks() {
        let r = parse_run_line("@f(1, -2.5, <1, 2>, true) == -3").unwrap();
        assert_eq!(r.func, "f");
        assert_eq!(
            r.args,
            vec![
                ArgSpec::Value(ValueSpec::Scalar(int(1))),
                ArgSpec::Value(ValueSpec::Scalar(Lit::Float("-2.5".into()))),
                ArgSpec::Value(ValueSpec::Vector(vec![int(1), int(2)])),
                ArgSpec::Value(ValueSpec::Scalar(Lit::Bool(true))),
            ]
        );
        assert_eq!(r.outcome, Outcome::Equals(ValueSpec::Scalar(int(-3))));
        let r = parse_run_line("@g(buf[i32: 1,2,3]) ; buf0 == [i32: 2,4,6]").unwrap();
        assert_eq!(r.outcome, Outcome::Succeeds);
        assert_eq!(
            r.checks,
            vec![Check {
                target: CheckTarget::Buffer(0),
                approx: false,
                elem: ScalarType::I32,
                values: vec![int(2), int(4), int(6)]
            }]
        );
        let r = parse_run_line("@div(1, 0) traps division by zero ; @g ~= [f32: 1e-3]").unwrap();
        assert_eq!(r.outcome, Outcome::Traps("division by zero".into()));
        assert_eq!(r.checks[0].target, CheckTarget::Global("g".into()));
        assert!(r.checks[0].approx);
        let r = parse_run_line("@\"a b\"() ~= nan").unwrap();
        assert_eq!(r.func, "a b");
        assert_eq!(
            r.outcome,
            Outcome::Approx(ValueSpec::Scalar(Lit::Float("nan".into())))
        );
    }

    #[test]
    fn buffers_and_pointer_literals() {
        let a = parse_arg("const buf[f32 x 8]").unwrap();
        let want = BufferSpec {
            elem: ScalarType::F32,
            init: BufInit::Zeroed(8),
            read_only: true,
        };
        assert_eq!(a, ArgSpec::Buffer(want));
        let a = parse_arg("buf[ptr.global: null, buf0+16, buf1-4]").unwrap();
        let ArgSpec::Buffer(b) = a else {
            panic!("not a buffer")
        };
        assert_eq!(b.elem, ScalarType::Ptr(lanes_ir::AddrSpace::GLOBAL));
        assert_eq!(
            b.init,
            BufInit::Values(vec![
                Lit::Null,
                Lit::BufRef { buf: 0, offset: 16 },
                Lit::BufRef { buf: 1, offset: -4 }
            ])
        );
        assert_eq!(
            parse_arg("buf[i8: ]").unwrap(),
            ArgSpec::Buffer(BufferSpec {
                elem: ScalarType::I8,
                init: BufInit::Values(vec![]),
                read_only: false
            })
        );
        let list = parse_arg_list("0x10, -0x10, 1e3, 2.5e-3, -inf").unwrap();
        let lits: Vec<Lit> = list
            .into_iter()
            .map(|a| match a {
                ArgSpec::Value(ValueSpec::Scalar(l)) => l,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            lits,
            vec![
                int(16),
                int(-16),
                Lit::Float("1e3".into()),
                Lit::Float("2.5e-3".into()),
                Lit::Float("-inf".into())
            ]
        );
        assert_eq!(parse_args(&["1", "<2, 3>"]).unwrap().len(), 2);
        assert_eq!(
            parse_value("18446744073709551615").unwrap(),
            ValueSpec::Scalar(int(u64::MAX.into()))
        );
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = parse_run_line("@f(1, ) == 2").unwrap_err();
        assert_eq!(e.to_string(), "column 7: expected a literal, found `)`");
        let e = parse_run_line("f(1)").unwrap_err();
        assert_eq!(e.column, 1);
        assert!(parse_run_line("@f(1) == ").is_err());
        assert!(parse_run_line("@f(1) traps").is_err());
        assert!(parse_run_line("@f(buf[q32: 1])")
            .unwrap_err()
            .message
            .contains("element type"));
        assert!(parse_run_line("@f(1) ; buf0 = [i32: 1]").is_err());
        assert!(parse_arg("99999999999999999999999").is_err());
        assert!(parse_arg("1 2").is_err());
        assert!(parse_arg("<>").is_err());
        assert!(parse_arg("const 3").is_err());
        assert!(parse_arg("@\"unterminated").is_err());
        assert!(parse_arg("").is_err());
    }
}
