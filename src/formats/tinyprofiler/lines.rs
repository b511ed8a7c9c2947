//! A cursor over the numbered lines of a log: bytes in, one line at a time,
//! without its line ending (`\n` or `\r\n`).

use std::borrow::Cow;
use std::path::Path;

use crate::error::{Error, Location, Result};

#[derive(Clone)]
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The number of the line `next` returns (1-based).
    number: usize,
}

/// One line: its 1-based number and its text (lossy: a log may hold any bytes).
#[derive(Clone)]
pub(super) struct Line<'a> {
    pub number: usize,
    pub text: Cow<'a, str>,
}

impl<'a> Line<'a> {
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// A rule: a line of `-` only (at least three).
    pub fn is_rule(&self) -> bool {
        let t = self.text.trim_end();
        t.len() >= 3 && t.bytes().all(|b| b == b'-')
    }
}

impl<'a> Lines<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Lines {
            bytes,
            pos: 0,
            number: 1,
        }
    }

    /// The next line's raw bytes and number, and moves past it.
    pub fn next_raw(&mut self) -> Option<(usize, &'a [u8])> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        let (line, advance) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let number = self.number;
        self.pos += advance;
        self.number += 1;
        Some((number, line))
    }

    /// The next line as text, and moves past it.
    pub fn next_line(&mut self) -> Option<Line<'a>> {
        self.next_raw().map(|(number, bytes)| Line {
            number,
            text: String::from_utf8_lossy(bytes),
        })
    }

    /// The next line without moving past it.
    pub fn peek(&self) -> Option<Line<'a>> {
        self.clone().next_line()
    }

    /// Moves past blank lines; returns the first other line without
    /// moving past it.
    pub fn skip_blank(&mut self) -> Option<Line<'a>> {
        loop {
            let line = self.peek()?;
            if !line.is_blank() {
                return Some(line);
            }
            self.next_raw();
        }
    }

    /// The number of the line `next_line` would return.
    /// Reads the next line, which must be a rule of `-` (`what` says where,
    /// for the error).
    pub fn expect_rule(&mut self, path: &Path, what: &str) -> Result<()> {
        match self.next_line() {
            Some(l) if l.is_rule() => Ok(()),
            Some(l) => Err(invalid(
                path,
                l.number,
                format!("expected a rule of '-' {what}"),
            )),
            None => Err(invalid(
                path,
                self.number(),
                format!("the log ends where a rule of '-' {what} should be"),
            )),
        }
    }

    pub fn number(&self) -> usize {
        self.number
    }
}

/// Splits the last blank-separated word off `s`: `(rest, word)`; `None`
/// when `s` is blank.
pub(super) fn split_last(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_end();
    if s.is_empty() {
        return None;
    }
    match s.rfind(char::is_whitespace) {
        Some(i) => Some((&s[..i], s[i..].trim_start())),
        None => Some(("", s)),
    }
}

/// A reading error at `line` of the log.
pub(super) fn invalid(path: &Path, line: usize, message: impl Into<String>) -> Error {
    Error::syntax(Location::line(path, line), message)
}
