//! The lexer of the `.lir` text format.
//!
//! The token set is exactly what `write.rs` prints: identifiers (opcodes, types, `v7`,
//! `block3`, keywords), numbers (integers and the float spellings of Rust's `{:?}`,
//! including `-inf`, `1e-45` and `0x7fc00000` raw bits), `@names` (plain or quoted with
//! `\"`, `\\` and `\u{hex}` escapes), `x"hex"` byte strings, punctuation, `->` and line
//! ends. Line ends are tokens because an instruction ends at the end of its line: `ret`
//! and argument-less intrinsics such as `barrier` would otherwise swallow the next line's
//! value. Comments run from `;` to the end of the line.
//!
//! The lexer is pulled one token at a time by the parser, so the first error in the text
//! is the one reported, whether lexical or syntactic. It never panics: it walks the text
//! by `char`, and positions saturate instead of overflowing.

use crate::parser::error::{ParseError, Pos};

/// What a token is, with its decoded payload where it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// A word starting with a letter or `_`: opcode, type, keyword, `v7`, `block3`, `inf`.
    Ident(&'a str),
    /// A word starting with a digit or a sign: an integer or a float literal.
    Num(&'a str),
    /// `@name` or `@"quoted name"`, unescaped.
    Name(String),
    /// `x"0a1b"`, decoded.
    Bytes(Vec<u8>),
    /// One of `( ) [ ] { } < > , : =`.
    Punct(char),
    /// `->`.
    Arrow,
    /// The end of a line.
    Newline,
    /// The end of the text.
    Eof,
}

/// A token with its source text and position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// The token's text as written (empty at the end of the text).
    pub raw: &'a str,
    pub pos: Pos,
}

impl Token<'_> {
    /// How the token is named in "found ..." messages.
    pub fn describe(&self) -> String {
        match self.tok {
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of file".to_string(),
            _ => {
                const MAX: usize = 40;
                let mut s: String = self.raw.chars().take(MAX).collect();
                if self.raw.chars().nth(MAX).is_some() {
                    s.push_str("...");
                }
                format!("'{s}'")
            }
        }
    }
}

/// Characters of plain names and identifiers after the first.
pub fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

/// A pull lexer over a `.lir` text.
pub struct Lexer<'a> {
    src: &'a str,
    offset: usize,
    line: u32,
    column: u32,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.offset..).unwrap_or("")
    }

    fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else {
            self.column = self.column.saturating_add(1);
        }
        Some(c)
    }

    fn slice_from(&self, start: usize) -> &'a str {
        self.src.get(start..self.offset).unwrap_or("")
    }

    fn skip_blanks_and_comments(&mut self) {
        while let Some(c) = self.peek_char() {
            match c {
                ' ' | '\t' | '\r' => {
                    self.bump();
                }
                ';' => {
                    while self.peek_char().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
    }

    /// The next token, or the lexical error at the current position.
    pub fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        self.skip_blanks_and_comments();
        let pos = self.pos();
        let start = self.offset;
        let Some(c) = self.peek_char() else {
            return Ok(Token {
                tok: Tok::Eof,
                raw: "",
                pos,
            });
        };
        let tok = match c {
            '\n' => {
                self.bump();
                Tok::Newline
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ':' | '=' => {
                self.bump();
                Tok::Punct(c)
            }
            '-' if self.peek_second() == Some('>') => {
                self.bump();
                self.bump();
                Tok::Arrow
            }
            '-' | '+' if self.peek_second().is_some_and(is_word_char) => {
                self.bump();
                self.number_word();
                Tok::Num(self.slice_from(start))
            }
            '0'..='9' => {
                self.number_word();
                Tok::Num(self.slice_from(start))
            }
            '@' => {
                self.bump();
                Tok::Name(self.name(pos)?)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                while self.peek_char().is_some_and(is_word_char) {
                    self.bump();
                }
                let word = self.slice_from(start);
                if word == "x" && self.peek_char() == Some('"') {
                    Tok::Bytes(self.byte_string(pos)?)
                } else {
                    Tok::Ident(word)
                }
            }
            '"' => {
                return Err(ParseError::new(
                    pos,
                    "unexpected string; quoted names start with '@'",
                ))
            }
            c => return Err(ParseError::new(pos, format!("unexpected character {c:?}"))),
        };
        Ok(Token {
            tok,
            raw: self.slice_from(start),
            pos,
        })
    }

    /// The rest of a number: word characters, and a sign right after the exponent marker
    /// of a decimal float (`1e-7`).
    fn number_word(&mut self) {
        let digits_start = self.offset;
        while let Some(c) = self.peek_char() {
            let word = self.slice_from(digits_start);
            let word = word.trim_start_matches(['-', '+']);
            let is_hex = word.starts_with("0x") || word.starts_with("0X");
            let after_exponent = !is_hex && (word.ends_with('e') || word.ends_with('E'));
            if is_word_char(c) || (matches!(c, '-' | '+') && after_exponent) {
                self.bump();
            } else {
                break;
            }
        }
    }

    /// A name after `@`: plain word characters or a quoted, escaped string.
    fn name(&mut self, at: Pos) -> Result<String, ParseError> {
        if self.peek_char() == Some('"') {
            return self.quoted(at);
        }
        let start = self.offset;
        while self.peek_char().is_some_and(is_word_char) {
            self.bump();
        }
        let name = self.slice_from(start);
        if name.is_empty() {
            let found = match self.peek_char() {
                None => "end of file".to_string(),
                Some('\n') => "end of line".to_string(),
                Some(c) => format!("{c:?}"),
            };
            return Err(ParseError::new(
                self.pos(),
                format!("expected a name after '@', found {found}"),
            ));
        }
        Ok(name.to_string())
    }

    /// A quoted name; the lexer is at the opening quote.
    fn quoted(&mut self, at: Pos) -> Result<String, ParseError> {
        self.bump();
        let mut out = String::new();
        loop {
            let pos = self.pos();
            match self.bump() {
                None | Some('\n') => {
                    return Err(ParseError::new(
                        at,
                        "unterminated quoted name (missing '\"')",
                    ))
                }
                Some('"') => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('u') => out.push(self.unicode_escape(pos)?),
                    other => {
                        let found = other.map_or("end of file".to_string(), |c| format!("{c:?}"));
                        return Err(ParseError::new(
                            pos,
                            format!("expected '\\\"', '\\\\' or '\\u{{hex}}' escape, found '\\' then {found}"),
                        ));
                    }
                },
                Some(c) => out.push(c),
            }
        }
    }

    /// `{hex}` after `\u`, at most six digits, a Unicode scalar value.
    fn unicode_escape(&mut self, at: Pos) -> Result<char, ParseError> {
        let bad = |what: &str| ParseError::new(at, format!("invalid '\\u{{...}}' escape: {what}"));
        if self.bump() != Some('{') {
            return Err(bad("expected '{' after '\\u'"));
        }
        let mut code: u32 = 0;
        let mut digits = 0;
        loop {
            match self.bump() {
                Some('}') if digits > 0 => break,
                Some(c) if c.is_ascii_hexdigit() && digits < 6 => {
                    code = code * 16 + c.to_digit(16).unwrap_or(0);
                    digits += 1;
                }
                _ => return Err(bad("expected 1 to 6 hex digits and '}'")),
            }
        }
        char::from_u32(code).ok_or_else(|| bad(&format!("{code:#x} is not a Unicode scalar value")))
    }

    /// `"hex"` after `x`; the lexer is at the opening quote.
    fn byte_string(&mut self, at: Pos) -> Result<Vec<u8>, ParseError> {
        self.bump();
        let mut out = Vec::new();
        let mut high: Option<u8> = None;
        loop {
            let pos = self.pos();
            match self.bump() {
                None | Some('\n') => {
                    return Err(ParseError::new(
                        at,
                        "unterminated byte string (missing '\"')",
                    ))
                }
                Some('"') if high.is_none() => return Ok(out),
                Some('"') => {
                    return Err(ParseError::new(
                        pos,
                        "byte string has an odd number of hex digits",
                    ))
                }
                Some(c) => {
                    let Some(d) = c.to_digit(16).and_then(|d| u8::try_from(d).ok()) else {
                        return Err(ParseError::new(
                            pos,
                            format!("expected a hex digit in byte string, found {c:?}"),
                        ));
                    };
                    match high.take() {
                        Some(h) => out.push(h << 4 | d),
                        None => high = Some(d),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token().expect("lexes");
            let end = t.tok == Tok::Eof;
            out.push(t.tok);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn numbers_names_and_punctuation() {
        assert_eq!(
            toks("v4: f32 = fconst -1.5e-7 ; comment\n"),
            vec![
                Tok::Ident("v4"),
                Tok::Punct(':'),
                Tok::Ident("f32"),
                Tok::Punct('='),
                Tok::Ident("fconst"),
                Tok::Num("-1.5e-7"),
                Tok::Newline,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("-inf 0x7fc00000 -> <4 x ptr.global>")[..4],
            [
                Tok::Num("-inf"),
                Tok::Num("0x7fc00000"),
                Tok::Arrow,
                Tok::Punct('<')
            ]
        );
        assert_eq!(
            toks("0x1e-5")[..3],
            [Tok::Num("0x1e"), Tok::Num("-5"), Tok::Eof]
        );
        assert_eq!(
            toks(r#"@f.1$ @"a \"b\" \\ \u{e9}" x"00ff""#)[..3],
            [
                Tok::Name("f.1$".into()),
                Tok::Name("a \"b\" \\ é".into()),
                Tok::Bytes(vec![0, 255])
            ]
        );
    }

    #[test]
    fn lexical_errors_have_positions() {
        let err = |src: &str| {
            let mut lx = Lexer::new(src);
            loop {
                match lx.next_token() {
                    Ok(t) if t.tok == Tok::Eof => panic!("no error in {src:?}"),
                    Ok(_) => {}
                    Err(e) => return e.to_string(),
                }
            }
        };
        assert_eq!(err("a\n  #"), "2:3: unexpected character '#'");
        assert_eq!(
            err("@\"abc"),
            "1:1: unterminated quoted name (missing '\"')"
        );
        assert!(err(r#"@"\u{110000}""#).starts_with("1:3: invalid '\\u{...}' escape"));
        assert!(err(r#"@"\q""#).starts_with("1:3: expected"));
        assert_eq!(
            err("x\"0g\""),
            "1:4: expected a hex digit in byte string, found 'g'"
        );
        assert_eq!(
            err("x\"0\""),
            "1:4: byte string has an odd number of hex digits"
        );
        assert_eq!(err("@ f"), "1:2: expected a name after '@', found ' '");
    }
}
