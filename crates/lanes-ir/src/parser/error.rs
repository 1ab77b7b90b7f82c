//! Parse errors of the `.lir` text format.
//!
//! Every error carries the 1-based line and column of the token it concerns and a message
//! that says what the parser expected and what it found, so that a command-line tool can
//! print `file:line:col: message` the way compilers do.

use core::fmt;

/// A syntax or name-resolution error in `.lir` text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line of the offending token.
    pub line: u32,
    /// 1-based column (in characters) of the offending token.
    pub column: u32,
    /// What was expected and what was found.
    pub message: String,
}

impl ParseError {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        ParseError {
            line: pos.line,
            column: pos.column,
            message: message.into(),
        }
    }

    /// The position the error concerns.
    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    /// `path:line:col: message`, the form a command-line tool prints.
    pub fn with_file(&self, path: impl fmt::Display) -> String {
        format!("{path}:{self}")
    }
}

/// A position in the source text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    /// The first character of a text.
    pub const START: Pos = Pos { line: 1, column: 1 };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_file_prefix() {
        let e = ParseError::new(
            Pos {
                line: 3,
                column: 17,
            },
            "expected ',' after operand, found 'block2'",
        );
        assert_eq!(
            e.to_string(),
            "3:17: expected ',' after operand, found 'block2'"
        );
        assert_eq!(
            e.with_file("k.lir"),
            "k.lir:3:17: expected ',' after operand, found 'block2'"
        );
        assert_eq!(e.pos().to_string(), "3:17");
    }
}
