//! The parser's view of the token stream: one token of lookahead, "expected X, found Y"
//! errors, and the literals of the `.lir` format (entity references, integers, floats,
//! types).
//!
//! Every literal is parsed with checked conversions (`str::parse` into the exact target
//! width), so out-of-range numbers are errors, never wrap-arounds or panics. Entity numbers
//! are capped at [`MAX_ENTITY_INDEX`] because the parser preserves the numbers written in
//! the text (`v7` stays `v7`) by allocating every smaller index too: without a cap, `v4000000000`
//! would ask for gigabytes.

use core::str::FromStr;

use crate::parser::error::{ParseError, Pos};
use crate::parser::lexer::{Lexer, Tok, Token};
use crate::types::{parse_scalar_type, ScalarType, Type};

/// The largest value or block number the parser accepts (`v1048576`, `block1048576`).
pub const MAX_ENTITY_INDEX: u32 = 1 << 20;

/// A token stream with one token of lookahead.
pub struct Cursor<'a> {
    lexer: Lexer<'a>,
    peeked: Option<Token<'a>>,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Self {
        Cursor {
            lexer: Lexer::new(src),
            peeked: None,
        }
    }

    /// The next token, without consuming it.
    pub fn peek(&mut self) -> Result<&Token<'a>, ParseError> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next_token()?);
        }
        // The option was filled just above; `ok_or_else` keeps this free of `unwrap`.
        self.peeked
            .as_ref()
            .ok_or_else(|| ParseError::new(Pos::START, "internal: no token"))
    }

    /// Consumes and returns the next token.
    pub fn next(&mut self) -> Result<Token<'a>, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lexer.next_token(),
        }
    }

    /// The position of the next token.
    pub fn pos(&mut self) -> Result<Pos, ParseError> {
        Ok(self.peek()?.pos)
    }

    /// "expected {what}, found {next token}" at the next token.
    pub fn expected(&mut self, what: &str) -> ParseError {
        match self.peek() {
            Ok(t) => ParseError::new(t.pos, format!("expected {what}, found {}", t.describe())),
            Err(e) => e,
        }
    }

    /// Consumes the punctuation `c` if it is next.
    pub fn eat_punct(&mut self, c: char) -> Result<bool, ParseError> {
        if self.peek()?.tok == Tok::Punct(c) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Consumes the punctuation `c` or fails with "expected {what}".
    pub fn expect_punct(&mut self, c: char, what: &str) -> Result<Pos, ParseError> {
        let pos = self.pos()?;
        if self.eat_punct(c)? {
            return Ok(pos);
        }
        Err(self.expected(what))
    }

    /// Is the next token the identifier `word`?
    pub fn at_ident(&mut self, word: &str) -> Result<bool, ParseError> {
        Ok(self.peek()?.tok == Tok::Ident(word))
    }

    /// Consumes the identifier `word` if it is next.
    pub fn eat_ident(&mut self, word: &str) -> Result<bool, ParseError> {
        if self.at_ident(word)? {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Consumes the keyword `word` or fails with "expected {what}".
    pub fn expect_ident(&mut self, word: &str, what: &str) -> Result<Pos, ParseError> {
        let pos = self.pos()?;
        if self.eat_ident(word)? {
            return Ok(pos);
        }
        Err(self.expected(what))
    }

    /// Any identifier, or fails with "expected {what}".
    pub fn ident(&mut self, what: &str) -> Result<(&'a str, Pos), ParseError> {
        if let Tok::Ident(word) = self.peek()?.tok {
            let pos = self.next()?.pos;
            return Ok((word, pos));
        }
        Err(self.expected(what))
    }

    /// An `@name`, or fails with "expected {what}".
    pub fn name(&mut self, what: &str) -> Result<(String, Pos), ParseError> {
        if matches!(self.peek()?.tok, Tok::Name(_)) {
            let t = self.next()?;
            if let Tok::Name(name) = t.tok {
                return Ok((name, t.pos));
            }
        }
        Err(self.expected(what))
    }

    /// Skips any number of line ends.
    pub fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while self.peek()?.tok == Tok::Newline {
            self.next()?;
        }
        Ok(())
    }

    /// The end of a line (or of the text), or fails with "expected end of line {after}".
    pub fn expect_line_end(&mut self, after: &str) -> Result<(), ParseError> {
        match self.peek()?.tok {
            Tok::Newline => {
                self.next()?;
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => Err(self.expected(&format!("end of line {after}"))),
        }
    }

    /// Is the next token a line end or the end of the text?
    pub fn at_line_end(&mut self) -> Result<bool, ParseError> {
        Ok(matches!(self.peek()?.tok, Tok::Newline | Tok::Eof))
    }

    /// An integer literal of type `T` (decimal, optionally signed), or fails with
    /// "expected {what}" or an out-of-range message.
    pub fn int<T: FromStr>(&mut self, what: &str) -> Result<(T, Pos), ParseError> {
        let Tok::Num(text) = self.peek()?.tok else {
            return Err(self.expected(what));
        };
        let t = self.next()?;
        if !text
            .trim_start_matches(['-', '+'])
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            return Err(ParseError::new(
                t.pos,
                format!("expected {what}, found {}", t.describe()),
            ));
        }
        match text.parse::<T>() {
            Ok(n) => Ok((n, t.pos)),
            Err(_) => Err(ParseError::new(
                t.pos,
                format!("integer {} is out of range for {what}", t.describe()),
            )),
        }
    }

    /// A float constant of element type `elem` as raw bits: a decimal as Rust's `{:?}`
    /// prints it (`1.5`, `-0.0`, `1e-45`, `inf`, `-inf`) or raw bits in hex (`0x7fc00000`).
    /// `f32` is read as `f32` (so the bits round-trip); every other type as `f64`, which is
    /// what the printer falls back to.
    pub fn float(&mut self, elem: ScalarType, what: &str) -> Result<(u64, Pos), ParseError> {
        let (Tok::Num(text) | Tok::Ident(text)) = self.peek()?.tok else {
            return Err(self.expected(what));
        };
        let t = self.next()?;
        let bad = || ParseError::new(t.pos, format!("expected {what}, found {}", t.describe()));
        let f32_bits = elem == ScalarType::F32;
        if let Some(hex) = text.strip_prefix("0x") {
            let bits = u64::from_str_radix(hex, 16).map_err(|_| bad())?;
            if f32_bits && u32::try_from(bits).is_err() {
                return Err(ParseError::new(
                    t.pos,
                    format!("raw bits {} do not fit in an f32", t.describe()),
                ));
            }
            return Ok((bits, t.pos));
        }
        let decimal_like = text
            .trim_start_matches(['-', '+'])
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, 'i' | 'I' | 'n' | 'N'));
        if !decimal_like {
            return Err(bad());
        }
        let bits = if f32_bits {
            u64::from(text.parse::<f32>().map_err(|_| bad())?.to_bits())
        } else {
            text.parse::<f64>().map_err(|_| bad())?.to_bits()
        };
        Ok((bits, t.pos))
    }

    /// A scalar type name (`i32`, `ptr.global`, ...).
    pub fn scalar_type(&mut self, what: &str) -> Result<(ScalarType, Pos), ParseError> {
        if let Tok::Ident(word) = self.peek()?.tok {
            if let Some(s) = parse_scalar_type(word) {
                let pos = self.next()?.pos;
                return Ok((s, pos));
            }
        }
        Err(self.expected(what))
    }

    /// A type: a scalar or `<N x scalar>` with `1 <= N <= 65535`.
    pub fn ty(&mut self, what: &str) -> Result<(Type, Pos), ParseError> {
        let pos = self.pos()?;
        if !self.eat_punct('<')? {
            let (s, pos) = self.scalar_type(what)?;
            return Ok((Type::Scalar(s), pos));
        }
        let (lanes, lanes_pos) = self.int::<u64>("a vector length")?;
        let lanes = u16::try_from(lanes)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                ParseError::new(
                    lanes_pos,
                    format!("vector length must be between 1 and 65535, found {lanes}"),
                )
            })?;
        self.expect_ident("x", "'x' after the vector length")?;
        let (elem, _) = self.scalar_type("a scalar element type")?;
        self.expect_punct('>', "'>' after the vector element type")?;
        Ok((Type::Vector(lanes, elem), pos))
    }

    /// A value reference `vN`.
    pub fn value(&mut self, what: &str) -> Result<(u32, Pos), ParseError> {
        self.entity("v", "value", what)
    }

    /// A block reference `blockN`.
    pub fn block(&mut self, what: &str) -> Result<(u32, Pos), ParseError> {
        self.entity("block", "block", what)
    }

    fn entity(&mut self, prefix: &str, kind: &str, what: &str) -> Result<(u32, Pos), ParseError> {
        if let Tok::Ident(word) = self.peek()?.tok {
            if let Some(index) = entity_index(word, prefix) {
                let pos = self.next()?.pos;
                return match index {
                    Some(n) => Ok((n, pos)),
                    None => Err(ParseError::new(
                        pos,
                        format!(
                            "{kind} number in '{word}' is too large (at most {MAX_ENTITY_INDEX})"
                        ),
                    )),
                };
            }
        }
        Err(self.expected(what))
    }
}

/// If `word` is `prefix` followed by a canonical decimal number (no leading zeros), the
/// number if it is at most [`MAX_ENTITY_INDEX`] (`Some(None)` if larger).
pub fn entity_index(word: &str, prefix: &str) -> Option<Option<u32>> {
    let digits = word.strip_prefix(prefix)?;
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return None;
    }
    Some(
        digits
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= MAX_ENTITY_INDEX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_numbers_are_canonical_and_capped() {
        assert_eq!(entity_index("v7", "v"), Some(Some(7)));
        assert_eq!(entity_index("block0", "block"), Some(Some(0)));
        assert_eq!(entity_index("v07", "v"), None);
        assert_eq!(entity_index("vx", "v"), None);
        assert_eq!(entity_index("v4000000000", "v"), Some(None));
        assert_eq!(entity_index("v99999999999999999999999", "v"), Some(None));
    }

    #[test]
    fn types_and_floats() {
        let mut c = Cursor::new("<4 x ptr.local> i1 <0 x i32>");
        assert_eq!(
            c.ty("a type").map(|t| t.0),
            Ok(Type::vector(4, ScalarType::Ptr(crate::AddrSpace::LOCAL)))
        );
        assert_eq!(c.ty("a type").map(|t| t.0), Ok(Type::I1));
        let e = c.ty("a type").unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:21: vector length must be between 1 and 65535, found 0"
        );

        let mut c = Cursor::new("-0.0 inf 1e-45 0x7fc00000 0x100000000 nanx");
        assert_eq!(
            c.float(ScalarType::F64, "f").map(|t| t.0),
            Ok((-0.0f64).to_bits())
        );
        assert_eq!(
            c.float(ScalarType::F32, "f").map(|t| t.0),
            Ok(u64::from(f32::INFINITY.to_bits()))
        );
        assert_eq!(c.float(ScalarType::F32, "f").map(|t| t.0), Ok(1));
        assert_eq!(c.float(ScalarType::F32, "f").map(|t| t.0), Ok(0x7fc0_0000));
        assert!(c
            .float(ScalarType::F32, "f")
            .unwrap_err()
            .message
            .contains("do not fit"));
        assert!(c.float(ScalarType::F32, "f").is_err());
    }

    #[test]
    fn integers_are_range_checked() {
        let mut c = Cursor::new("-9223372036854775808 256 4x");
        assert_eq!(c.int::<i64>("n").map(|t| t.0), Ok(i64::MIN));
        assert_eq!(
            c.int::<u8>("a dimension").unwrap_err().message,
            "integer '256' is out of range for a dimension"
        );
        assert_eq!(
            c.int::<u32>("a size").unwrap_err().message,
            "expected a size, found '4x'"
        );
    }
}
