//! The recursive-descent parser of the run-line grammar (see the parent module).
//!
//! It works on characters with one position, skipping whitespace before every token, so
//! errors carry the column where the unexpected text starts.

use lanes_ir::types::parse_scalar_type;
use lanes_ir::ScalarType;

use super::{ArgSpec, BufInit, BufferSpec, Check, CheckTarget, Lit, RunLineError, ValueSpec};

pub(super) struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(s: &'a str) -> Self {
        Parser { s, pos: 0 }
    }

    /// The unparsed rest of the text.
    pub(super) fn remaining(&self) -> &'a str {
        &self.s[self.pos..]
    }

    /// Skips `n` bytes (of text seen through [`Parser::remaining`]).
    pub(super) fn skip(&mut self, n: usize) {
        self.pos += n;
    }

    pub(super) fn error(&self, message: impl Into<String>) -> RunLineError {
        RunLineError {
            column: self.s[..self.pos].chars().count() + 1,
            message: message.into(),
        }
    }

    /// "expected X, found …" at the current position.
    pub(super) fn expected(&mut self, what: &str) -> RunLineError {
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

    pub(super) fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    pub(super) fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.s.len() - trimmed.len();
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.s.len()
    }

    pub(super) fn end(&mut self) -> Result<(), RunLineError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }

    pub(super) fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, tok: &str) -> Result<(), RunLineError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{tok}`")))
        }
    }

    /// The next word (letters, digits, `_`, `.`), without consuming it.
    pub(super) fn peek_word(&mut self) -> &str {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..len]
    }

    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == word {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    pub(super) fn word(&mut self, what: &str) -> Result<String, RunLineError> {
        let w = self.peek_word().to_string();
        if w.is_empty() {
            return Err(self.expected(what));
        }
        self.pos += w.len();
        Ok(w)
    }

    /// `@name` or `@"quoted name"`.
    pub(super) fn name(&mut self) -> Result<String, RunLineError> {
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

    pub(super) fn call(&mut self) -> Result<(String, Vec<ArgSpec>), RunLineError> {
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

    pub(super) fn arg(&mut self) -> Result<ArgSpec, RunLineError> {
        let read_only = self.eat_word("const");
        if self.peek_word() == "buf" {
            self.pos += 3;
            self.expect("[")?;
            let elem = self.scalar_type()?;
            let init = if self.eat_word("x") {
                BufInit::Zeroed(self.count()?)
            } else if self.eat("@") {
                self.skip_ws();
                let path = self.rest().split(']').next().unwrap_or("").trim_end();
                if path.is_empty() {
                    return Err(self.expected("a file name after `@`"));
                }
                let init = BufInit::File(path.into());
                self.pos += path.len();
                init
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

    pub(super) fn scalar_type(&mut self) -> Result<ScalarType, RunLineError> {
        let start = self.pos;
        let w = self.word("an element type")?;
        parse_scalar_type(&w).ok_or_else(|| {
            self.pos = start;
            self.expected("an element type (i8, i32, f32, ptr, …)")
        })
    }

    pub(super) fn count(&mut self) -> Result<u64, RunLineError> {
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
    pub(super) fn lits_until(&mut self, close: &str) -> Result<Vec<Lit>, RunLineError> {
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

    pub(super) fn value(&mut self) -> Result<ValueSpec, RunLineError> {
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

    pub(super) fn lit(&mut self) -> Result<Lit, RunLineError> {
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

    pub(super) fn took(&mut self, w: &str, lit: Lit) -> Result<Lit, RunLineError> {
        self.pos += w.len();
        Ok(lit)
    }

    /// The optional `+N` / `-N` after `bufK`.
    pub(super) fn buf_ref(&mut self, buf: usize) -> Result<Lit, RunLineError> {
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

    pub(super) fn check(&mut self) -> Result<Check, RunLineError> {
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
